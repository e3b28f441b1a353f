/* SPDX-License-Identifier: MIT */

/*
 * auth.c: the token file and the id checks (auth.h).  The table is an
 * array that never changes once built; a reload builds a new one and
 * swaps the pointer under the lock.  It holds the SHA-256 of each token,
 * not the token, sorted: a lookup hashes what the caller presented and
 * searches the digests, so its cost does not grow with the table's size
 * and its timing tells nothing about the tokens themselves.
 */

#include "server/auth.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/digest.h"
#include "core/error.h"
#include "core/xmem.h"
#include "server/server.h"
#include "core/banned.h"

/* SHA-256 in hex. */
#define DIGEST_LEN 64

struct entry {
	char digest[DIGEST_LEN + 1]; /* of the token */
	char *user;
	size_t line; /* in the file */
};

struct table {
	struct entry *v;
	size_t n;
};

struct sc_auth {
	pthread_mutex_t lock;
	char *path;
	struct table *t; /* under lock */
};

/* ------------------------------------------------------------ ids */

/* The length of the valid UTF-8 sequence at p, or 0; *cp its code point. */
static size_t
utf8_seq(const unsigned char *p, uint32_t *cp)
{
	uint32_t c;
	size_t n, i;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		c = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		c = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		c = p[0] & 0x07;
	} else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return 0;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return n;
}

static bool
is_control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

bool
sc_auth_id_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c;
	size_t n;

	while (*p != '\0') {
		if ((n = utf8_seq(p, &c)) == 0 || is_control(c))
			return false;
		p += n;
	}
	return true;
}

void
sc_auth_id_escape(const char *s, char *out, size_t outsz)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, n;
	uint32_t c;

	if (outsz == 0)
		return;
	while (*p != '\0') {
		n = utf8_seq(p, &c);
		if (n == 0 || is_control(c))
			n = 0;
		/* Room for this piece and "..." after it. */
		if (o + (n == 0 ? 4 : n) + 4 > outsz) {
			if (o + 4 <= outsz) {
				memcpy(out + o, "...", 3);
				o += 3;
			}
			break;
		}
		if (n == 0) {
			snprintf(out + o, outsz - o, "\\x%02x", *p);
			o += 4;
			p++;
		} else {
			memcpy(out + o, p, n);
			o += n;
			p += n;
		}
	}
	out[o] = '\0';
}

/* ---------------------------------------------------------- table */

static void
table_free(struct table *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++)
		free(t->v[i].user);
	free(t->v);
	free(t);
}

/* The file's bytes (NUL-terminated), after the checks of auth.h. */
static char *
file_read(const char *path, struct sc_error *err)
{
	struct stat st;
	char *buf;
	size_t len = 0;
	ssize_t r;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return sc_error_set_errno(err, SC_ST_IO, errno,
			   "cannot open token file '%s'", path),
		       NULL;
	if (fstat(fd, &st) == -1) {
		sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot read token file '%s'", path);
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		sc_error_set(err, SC_ST_USAGE,
		    "token file '%s' is not a regular file", path);
		close(fd);
		return NULL;
	}
	if ((st.st_mode & 077) != 0) {
		sc_error_set(err, SC_ST_USAGE,
		    "permissions %04o for token file '%s' are too open: others may read it; make it readable by its owner only (chmod 600)",
		    (unsigned)(st.st_mode & 07777), path);
		close(fd);
		return NULL;
	}
	if (st.st_size > SC_AUTH_FILE_MAX) {
		sc_error_set(err, SC_ST_USAGE,
		    "token file '%s' is larger than %d bytes", path,
		    SC_AUTH_FILE_MAX);
		close(fd);
		return NULL;
	}
	buf = sc_xmalloc(SC_AUTH_FILE_MAX + 1);
	for (;;) {
		r = read(fd, buf + len, SC_AUTH_FILE_MAX + 1 - len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			sc_error_set_errno(err, SC_ST_IO, errno,
			    "cannot read token file '%s'", path);
			break;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len > SC_AUTH_FILE_MAX) {
			sc_error_set(err, SC_ST_USAGE,
			    "token file '%s' is larger than %d bytes", path,
			    SC_AUTH_FILE_MAX);
			r = -1;
			break;
		}
	}
	close(fd);
	if (r == -1) {
		explicit_bzero(buf, len);
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

static bool
blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* One line's error: "token file 'f' line N: text". */
static int
line_error(struct sc_error *err, const char *path, size_t line,
    const char *text)
{
	return sc_error_set(err, SC_ST_USAGE, "token file '%s' line %zu: %s",
	    path, line, text);
}

static int
cmp_entry(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;

	return strcmp(a->digest, b->digest);
}

/* The SHA-256 of token in hex; false if it cannot be computed. */
static bool
digest_of(const char *token, char out[DIGEST_LEN + 1])
{
	return sc_digest_hex("sha256", token, strlen(token), out) == DIGEST_LEN;
}

/* Parse buf (NUL-terminated, changed in place) into a new table. */
static struct table *
table_parse(char *buf, const char *path, const struct sc_server_conf *conf,
    struct sc_error *err)
{
	struct table *t;
	char *p = buf, *eol, *tok, *user, *end;
	size_t line = 0, cap = 0, i;

	t = sc_xcalloc(1, sizeof(*t));
	for (; *p != '\0'; p = eol) {
		line++;
		if ((eol = strchr(p, '\n')) != NULL)
			*eol++ = '\0';
		else
			eol = p + strlen(p);
		while (blank(*p))
			p++;
		if (*p == '\0' || *p == '#')
			continue;
		tok = p;
		while (*p != '\0' && !blank(*p))
			p++;
		end = p;
		while (blank(*p))
			p++;
		*end = '\0';
		user = p;
		while (*p != '\0' && !blank(*p))
			p++;
		end = p;
		while (blank(*p))
			p++;
		if (*user == '\0' || *p != '\0') {
			line_error(err, path, line, "expected 'token user_id'");
			goto fail;
		}
		*end = '\0';
		if (strlen(tok) > SC_AUTH_TOKEN_MAX) {
			line_error(err, path, line,
			    "the token is longer than 255 bytes");
			goto fail;
		}
		if (!sc_auth_id_valid(user) ||
		    strlen(user) >= SC_AUTH_USER_MAX) {
			line_error(err, path, line,
			    "the user id is not valid UTF-8 of at most 255 bytes without control characters");
			goto fail;
		}
		if (sc_auth_same_secret(tok, conf->token) ||
		    sc_auth_same_secret(tok, conf->admin_token)) {
			line_error(err, path, line,
			    "the token is also the --token or the --admin-token");
			goto fail;
		}
		if (t->n == cap) {
			cap = cap == 0 ? 16 : cap * 2;
			t->v = sc_xreallocarray(t->v, cap, sizeof(*t->v));
		}
		if (!digest_of(tok, t->v[t->n].digest)) {
			sc_error_set(err, SC_ST_INTERNAL,
			    "token file '%s': cannot compute SHA-256", path);
			goto fail;
		}
		t->v[t->n].user = sc_xstrdup(user);
		t->v[t->n].line = line;
		t->n++;
	}
	if (t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), cmp_entry);
	for (i = 1; i < t->n; i++)
		if (strcmp(t->v[i - 1].digest, t->v[i].digest) == 0) {
			line_error(err, path,
			    t->v[i - 1].line > t->v[i].line ? t->v[i - 1].line
							    : t->v[i].line,
			    "the token is on an earlier line too");
			goto fail;
		}
	return t;
fail:
	table_free(t);
	return NULL;
}

static struct table *
table_load(const char *path, const struct sc_server_conf *conf,
    struct sc_error *err)
{
	struct table *t;
	char *buf;
	size_t len;

	if ((buf = file_read(path, err)) == NULL)
		return NULL;
	len = strlen(buf);
	t = table_parse(buf, path, conf, err);
	explicit_bzero(buf, len);
	free(buf);
	return t;
}

/* ------------------------------------------------------------ API */

struct sc_auth *
sc_auth_new(const char *path, const struct sc_server_conf *conf,
    struct sc_error *err)
{
	struct sc_auth *a;
	struct table *t;

	if ((t = table_load(path, conf, err)) == NULL)
		return NULL;
	a = sc_xcalloc(1, sizeof(*a));
	pthread_mutex_init(&a->lock, NULL);
	a->path = sc_xstrdup(path);
	a->t = t;
	return a;
}

int
sc_auth_reload(struct sc_auth *a, const struct sc_server_conf *conf,
    size_t *ntokens, struct sc_error *err)
{
	struct table *t, *old;

	if ((t = table_load(a->path, conf, err)) == NULL)
		return -1;
	pthread_mutex_lock(&a->lock);
	old = a->t;
	a->t = t;
	pthread_mutex_unlock(&a->lock);
	table_free(old);
	*ntokens = t->n;
	return 0;
}

size_t
sc_auth_count(struct sc_auth *a)
{
	size_t n;

	pthread_mutex_lock(&a->lock);
	n = a->t->n;
	pthread_mutex_unlock(&a->lock);
	return n;
}

const char *
sc_auth_path(const struct sc_auth *a)
{
	return a->path;
}

void
sc_auth_free(struct sc_auth *a)
{
	if (a == NULL)
		return;
	table_free(a->t);
	pthread_mutex_destroy(&a->lock);
	free(a->path);
	free(a);
}

bool
sc_auth_lookup(struct sc_auth *a, const char *token,
    char user[SC_AUTH_USER_MAX])
{
	struct entry key;
	const struct entry *hit;

	memset(&key, 0, sizeof(key));
	if (a == NULL || token[0] == '\0' || !digest_of(token, key.digest))
		return false;
	pthread_mutex_lock(&a->lock);
	hit = a->t->n == 0
	    ? NULL
	    : bsearch(&key, a->t->v, a->t->n, sizeof(*a->t->v), cmp_entry);
	if (hit != NULL)
		snprintf(user, SC_AUTH_USER_MAX, "%s", hit->user);
	pthread_mutex_unlock(&a->lock);
	explicit_bzero(&key, sizeof(key));
	return hit != NULL;
}

/* Compare without an early exit, so timing does not reveal the token. */
bool
sc_auth_same_secret(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, n;
	volatile unsigned char diff = la != lb;

	n = la > lb ? la : lb;
	for (i = 0; i < n; i++)
		diff |=
		    (unsigned char)((i < la ? a[i] : 0) ^ (i < lb ? b[i] : 0));
	return diff == 0;
}
