/* SPDX-License-Identifier: MIT */

/*
 * artifact_name.c: the artifact store's checks of what a client sends
 * (names, and the raw request bytes, where a NUL would hide in a decoded
 * string) and the file operations beneath directory descriptors that
 * never follow a symbolic link.
 */

#include "server/artifact.h"
#include "server/artifact_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/crc.h"
#include "core/error.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "server/server.h"
#include "server/session.h"
#include "core/banned.h"

static const struct sc_artifact_prefix prefixes[] = {
	{ "jars/", false, false, false },
	{ "pyfiles/", false, false, false },
	{ "files/", false, false, true },
	{ "archives/", false, true, false },
	{ "classes/", true, false, false },
	{ "cache/", true, false, true },
};
/* ------------------------------------------------------------ names */

/*
 * The first problem of s[0..n) as text: NULL when it is UTF-8 without
 * NUL bytes or control characters (C0, DEL, C1).
 */
static const char *
text_problem(const unsigned char *s, size_t n)
{
	size_t i = 0, k, need;
	uint32_t cp, min;

	while (i < n) {
		cp = s[i];
		if (cp == 0)
			return "a NUL byte";
		if (cp < 0x20 || cp == 0x7f)
			return "a control character";
		if (cp < 0x80) {
			i++;
			continue;
		}
		if (cp >= 0xc2 && cp <= 0xdf) {
			need = 1;
			min = 0x80;
			cp &= 0x1f;
		} else if (cp >= 0xe0 && cp <= 0xef) {
			need = 2;
			min = 0x800;
			cp &= 0x0f;
		} else if (cp >= 0xf0 && cp <= 0xf4) {
			need = 3;
			min = 0x10000;
			cp &= 0x07;
		} else
			return "bytes that are not UTF-8";
		if (n - i - 1 < need)
			return "bytes that are not UTF-8";
		for (k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return "bytes that are not UTF-8";
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return "bytes that are not UTF-8";
		if (cp >= 0x80 && cp <= 0x9f)
			return "a control character";
		i += need + 1;
	}
	return NULL;
}

/*
 * name[0..len) for a message: printable text as is, a backslash, a
 * backquote and any byte that is not printable UTF-8 as \xNN, cut with
 * "..." after SHOW_MAX bytes.
 */
void
sc_artifact_show_name(const char *name, size_t len, char *out, size_t outsz)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t i = 0, o = 0, k, step;

	while (i < len && o + 8 < outsz && o < SHOW_MAX) {
		step = 1;
		if (s[i] >= 0x80) {
			/* A whole printable UTF-8 sequence, or one escaped byte. */
			step = s[i] >= 0xf0 ? 4 : s[i] >= 0xe0 ? 3 : 2;
			if (step > len - i || text_problem(s + i, step) != NULL)
				step = 0;
		} else if (s[i] < 0x20 || s[i] == 0x7f || s[i] == '\\' ||
		    s[i] == '`')
			step = 0;
		if (step == 0) {
			o += (size_t)snprintf(out + o, outsz - o, "\\x%02x",
			    s[i]);
			i++;
			continue;
		}
		for (k = 0; k < step; k++)
			out[o++] = (char)s[i++];
	}
	if (i < len && o + 4 <= outsz) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

int
sc_artifact_bad_name(struct sc_error *err, const char *name, size_t len,
    const char *fmt, ...)
{
	char shown[SHOW_MAX + 16], why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	sc_artifact_show_name(name, len, shown, sizeof(shown));
	return sc_srv_error(err, "INVALID_ARTIFACT_PATH", NULL,
	    "Artifact with name: `%s` is invalid: %s.", shown, why);
}

int
sc_artifact_parse_name(const char *name, size_t len, struct parsed *p,
    struct sc_error *err)
{
	const struct sc_artifact_prefix *pre = NULL;
	const char *hash, *c, *end, *slash;
	const char *problem;
	size_t i, plen, clen, depth = 0;

	if (len == 0)
		return sc_artifact_bad_name(err, name, len,
		    "the name is empty");
	if (len > SC_ARTIFACT_NAME_MAX)
		return sc_artifact_bad_name(err, name, len,
		    "the name is longer than %d bytes", SC_ARTIFACT_NAME_MAX);
	if ((problem = text_problem((const unsigned char *)name, len)) != NULL)
		return sc_artifact_bad_name(err, name, len,
		    "the name contains %s", problem);
	if (memchr(name, '\\', len) != NULL)
		return sc_artifact_bad_name(err, name, len,
		    "the name contains a backslash");
	if (name[0] == '/')
		return sc_artifact_bad_name(err, name, len,
		    "the name is an absolute path; it must be relative");
	for (i = 0; i < SC_NELEM(prefixes); i++) {
		plen = strlen(prefixes[i].text);
		if (len >= plen && memcmp(name, prefixes[i].text, plen) == 0) {
			pre = &prefixes[i];
			break;
		}
	}
	if (pre == NULL)
		return sc_artifact_bad_name(err, name, len,
		    "the name must start with jars/, pyfiles/, files/, "
		    "archives/, classes/ or cache/");
	plen = strlen(pre->text);
	p->pre = pre;
	p->store_len = len;
	if (pre->archive && (hash = memchr(name, '#', len)) != NULL) {
		if (memchr(hash + 1, '#', len - (size_t)(hash - name) - 1) !=
		    NULL)
			return sc_artifact_bad_name(err, name, len,
			    "'#' in the path is not supported for adding an "
			    "archive (only one #fragment may follow the name)");
		if (memchr(hash + 1, '/', len - (size_t)(hash - name) - 1) !=
		    NULL)
			return sc_artifact_bad_name(err, name, len,
			    "the #fragment of an archive cannot contain '/'");
		p->store_len = (size_t)(hash - name);
	}
	if (p->store_len == plen)
		return sc_artifact_bad_name(err, name, len,
		    "nothing follows the prefix %s", pre->text);
	/* Components of the stored name, the prefix's included. */
	end = name + p->store_len;
	for (c = name; c <= end; c = slash + 1) {
		slash = memchr(c, '/', (size_t)(end - c));
		if (slash == NULL)
			slash = end;
		clen = (size_t)(slash - c);
		if (clen == 0)
			return sc_artifact_bad_name(err, name, len,
			    "the name has an empty path component");
		if ((clen == 1 && c[0] == '.') ||
		    (clen == 2 && c[0] == '.' && c[1] == '.'))
			return sc_artifact_bad_name(err, name, len,
			    "the name has a '%.*s' component; it must be a "
			    "relative path and cannot reference "
			    "parent/sibling/nephew directories",
			    (int)clen, c);
		if (clen > SC_ARTIFACT_COMPONENT_MAX)
			return sc_artifact_bad_name(err, name, len,
			    "a path component is longer than %d bytes",
			    SC_ARTIFACT_COMPONENT_MAX);
		if (++depth > SC_ARTIFACT_DEPTH_MAX)
			return sc_artifact_bad_name(err, name, len,
			    "the name has more than %d path components",
			    SC_ARTIFACT_DEPTH_MAX);
	}
	return 0;
}

int
sc_artifact_check_name(const char *name, size_t len, struct sc_error *err)
{
	struct parsed p;

	return sc_artifact_parse_name(name, len, &p, err);
}

/* ------------------------------------------------- the raw request */

static bool
get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	unsigned shift;

	*v = 0;
	for (shift = 0; shift < 64 && p < end; shift += 7) {
		*v |= (uint64_t)(*p & 0x7f) << shift;
		if ((*p++ & 0x80) == 0) {
			*pp = p;
			return true;
		}
	}
	return false;
}

/*
 * Walk the length-delimited fields path[0], path[1], ... of the message
 * p..end and check each string at the end of the path as a name.
 * Malformed input stops the walk quietly (the decoder reports it).
 */
static int
walk_names(const uint8_t *p, const uint8_t *end, const uint32_t *path,
    size_t depth, struct sc_error *err)
{
	uint64_t key, n;

	while (p < end) {
		if (!get_varint(&p, end, &key))
			return 0;
		switch (key & 7) {
		case 0:
			if (!get_varint(&p, end, &n))
				return 0;
			break;
		case 1:
			if (end - p < 8)
				return 0;
			p += 8;
			break;
		case 5:
			if (end - p < 4)
				return 0;
			p += 4;
			break;
		case 2:
			if (!get_varint(&p, end, &n) || n > (uint64_t)(end - p))
				return 0;
			if ((key >> 3) == path[0]) {
				if (depth == 1 &&
				    sc_artifact_check_name((const char *)p,
					(size_t)n, err) == -1)
					return -1;
				if (depth > 1 &&
				    walk_names(p, p + n, path + 1, depth - 1,
					err) == -1)
					return -1;
			}
			p += n;
			break;
		default:
			return 0;
		}
	}
	return 0;
}

int
sc_artifact_check_request(const void *msg, size_t len, struct sc_error *err)
{
	/* batch.artifacts[].name and begin_chunk.name */
	static const uint32_t batch[] = { 3, 1, 1 }, begin[] = { 4, 1 };
	const uint8_t *p = msg;

	if (walk_names(p, p + len, batch, SC_NELEM(batch), err) == -1 ||
	    walk_names(p, p + len, begin, SC_NELEM(begin), err) == -1)
		return -1;
	return 0;
}

/* ------------------------------------------------ files beneath fds */

/*
 * Remove name beneath at and everything in it, never following a
 * symbolic link.  -1 if anything could not be removed.
 */
int
sc_artifact_rm_tree(int at, const char *name, int depth)
{
	struct dirent *de;
	DIR *d;
	int fd, rc = 0;

	if (unlinkat(at, name, 0) == 0 || errno == ENOENT)
		return 0;
	if ((errno != EISDIR && errno != EPERM) ||
	    depth > 2 * SC_ARTIFACT_DEPTH_MAX)
		return -1;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (sc_artifact_rm_tree(dirfd(d), de->d_name, depth + 1) == -1)
			rc = -1;
	}
	closedir(d);
	if (unlinkat(at, name, AT_REMOVEDIR) == -1 && errno != ENOENT)
		rc = -1;
	return rc;
}

bool
sc_artifact_is_full(int e)
{
	return e == ENOSPC || e == EDQUOT;
}

/* An I/O failure about artifact name: the store is full, or another. */
int
sc_artifact_io_error(struct sc_error *err, const char *name, const char *what,
    int e)
{
	char shown[SHOW_MAX + 16];

	sc_artifact_show_name(name, strlen(name), shown, sizeof(shown));
	if (sc_artifact_is_full(e)) {
		sc_warn("artifact store: cannot %s for '%s': %s", what, shown,
		    strerror(e));
		sc_srv_error(err, "ARTIFACT_STORE_FULL", "53100",
		    "Cannot store artifact `%s`: the artifact store is out "
		    "of space (%s).",
		    shown, strerror(e));
		if (err != NULL)
			err->rpc_code = SC_GRPC_RESOURCE_EXHAUSTED;
		return -1;
	}
	sc_warn("artifact store: cannot %s for '%s': %s", what, shown,
	    strerror(e));
	return sc_srv_error(err, "INTERNAL_ERROR", "XX000",
	    "Cannot store artifact `%s`: cannot %s: %s.", shown, what,
	    strerror(e));
}

/*
 * Open the directory of path's parent beneath at, one component at a
 * time with O_NOFOLLOW, creating missing ones (0700) when create is set.
 * Returns a descriptor (at itself when path has one component: do not
 * close that one) and points *base at the last component of copy, a
 * writable copy of path.  -1 with err set, or -2 (err untouched) when
 * create is not set and a directory is missing.
 */
int
sc_artifact_open_parent(int at, char *copy, const char **base, bool create,
    const char *name, struct sc_error *err)
{
	struct stat sb;
	char *c, *slash;
	int cur = at, fd, e, st;

	for (c = copy; (slash = strchr(c, '/')) != NULL; c = slash + 1) {
		*slash = '\0';
		fd = openat(cur, c,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1 && errno == ENOENT && create &&
		    mkdirat(cur, c, 0700) == -1 && errno != EEXIST) {
			e = errno;
			*slash = '/';
			if (cur != at)
				close(cur);
			return sc_artifact_io_error(err, name,
			    "create a directory", e);
		}
		if (fd == -1 && create)
			fd = openat(cur, c,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		e = errno;
		st = fd == -1 ? fstatat(cur, c, &sb, AT_SYMLINK_NOFOLLOW) : 0;
		*slash = '/';
		if (fd != -1) {
			if (cur != at)
				close(cur);
			cur = fd;
			continue;
		}
		if (cur != at)
			close(cur);
		if (st == 0 && S_ISLNK(sb.st_mode))
			return sc_artifact_bad_name(err, name, strlen(name),
			    "'%.*s' in the session's store is a symbolic link",
			    (int)(slash - copy), copy);
		if (st == 0 && !S_ISDIR(sb.st_mode))
			return sc_artifact_bad_name(err, name, strlen(name),
			    "'%.*s' is a stored artifact, not a directory",
			    (int)(slash - copy), copy);
		if (!create && e == ENOENT)
			return -2;
		return sc_artifact_io_error(err, name, "open a directory", e);
	}
	*base = c;
	return cur;
}

/* Whether files a (beneath at_a) and b (beneath at_b) hold the same bytes. */
int
sc_artifact_same_content(int at_a, const char *a, int at_b, const char *b,
    const char *name, bool *same, struct sc_error *err)
{
	struct stat sa, sb;
	char *buf;
	ssize_t na, nb;
	int fa, fb, rc = -1;

	fa = openat(at_a, a, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fa == -1)
		return sc_artifact_io_error(err, name,
		    "read the staged artifact", errno);
	fb = openat(at_b, b, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fb == -1) {
		sc_artifact_io_error(err, name, "read the stored artifact",
		    errno);
		close(fa);
		return -1;
	}
	buf = sc_xmalloc(2 * CMP_BLOCK);
	if (fstat(fa, &sa) == -1 || fstat(fb, &sb) == -1) {
		sc_artifact_io_error(err, name,
		    "compare with the stored artifact", errno);
		goto out;
	}
	*same = sa.st_size == sb.st_size;
	while (*same) {
		na = read(fa, buf, CMP_BLOCK);
		if (na == -1 && errno == EINTR)
			continue;
		if (na == -1) {
			sc_artifact_io_error(err, name,
			    "read the staged artifact", errno);
			goto out;
		}
		if (na == 0)
			break;
		for (nb = 0; nb < na;) {
			ssize_t r =
			    read(fb, buf + CMP_BLOCK + nb, (size_t)(na - nb));
			if (r == -1 && errno == EINTR)
				continue;
			if (r <= 0) {
				if (r == 0)
					*same = false;
				else {
					sc_artifact_io_error(err, name,
					    "read the stored artifact", errno);
					goto out;
				}
				break;
			}
			nb += r;
		}
		if (*same && memcmp(buf, buf + CMP_BLOCK, (size_t)na) != 0)
			*same = false;
	}
	rc = 0;
out:
	free(buf);
	close(fa);
	close(fb);
	return rc;
}
