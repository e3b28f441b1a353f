/* SPDX-License-Identifier: MIT */

/*
 * test-artifact.c: sc-serve's artifact store (lib/server/artifact.c):
 * the name validator (table-driven), names checked on the wire bytes,
 * the store directory (modes, lock, stale sessions, private store),
 * staging and commit (order, CRC failures, modes, content), every
 * protocol error leaving nothing behind, duplicates, limits, a session
 * closed during and after an upload, planted symbolic links, and the
 * ArtifactStatus, listing and engine helpers.
 */

#include "server/artifact.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/crc.h"
#include "core/error.h"
#include "core/log.h"
#include "core/xmem.h"
#include "server/server.h"
#include "server/session.h"
#include "tap.h"
#include "core/banned.h"

#define S1 "00112233-4455-6677-8899-aabbccddeeff"
#define S2 "6f1d2c3b-0000-4000-8000-000000000002"

static struct sc_server srv;
static char root[256]; /* a scratch directory for the whole run */
static char store_dir[300]; /* the store of the current test */

/* ------------------------------------------------------------ helpers */

static void
rm_rf(const char *path)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", path);
}

/* Files under dir (recursively, relative, sorted, dirs end in '/'). */
static void
walk(const char *dir, const char *rel, char *out, size_t outsz)
{
	char p[1024], r[1024], **names = NULL;
	struct dirent *de;
	struct stat sb;
	size_t n = 0, i, j;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	for (i = 0; i < n; i++) /* sort: few names */
		for (j = i + 1; j < n; j++)
			if (strcmp(names[j], names[i]) < 0) {
				char *t = names[i];
				names[i] = names[j];
				names[j] = t;
			}
	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		snprintf(r, sizeof(r), "%s%s%s", rel, rel[0] ? "/" : "",
		    names[i]);
		if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			snprintf(out + strlen(out), outsz - strlen(out), "%s/ ",
			    r);
			walk(p, r, out, outsz);
		} else
			snprintf(out + strlen(out), outsz - strlen(out), "%s ",
			    r);
		free(names[i]);
	}
	free(names);
}

/* The tree of the store as one string, "" when empty. */
static const char *
tree(void)
{
	static char out[8192];

	out[0] = '\0';
	walk(store_dir, "", out, sizeof(out));
	return out;
}

/* As sc-serve wires it: a closed session's artifacts go with it. */
static void
closed_hook(struct sc_session *s, void *arg)
{
	sc_artifact_session_closed(arg, s->server_side_id);
}

/* sctk.artifact.maxStoreBytes of the next open_store() (-1: none). */
static int64_t store_cap = -1;

static struct sc_artifact_store *
open_store(int64_t max_size, int64_t bytes, int64_t files)
{
	struct sc_artifact_limits lim = { max_size, bytes, files, store_cap };
	struct sc_error err;
	struct sc_artifact_store *st;

	snprintf(store_dir, sizeof(store_dir), "%s/store", root);
	rm_rf(store_dir);
	st = sc_artifact_store_new(store_dir, &lim, &err);
	if (st == NULL)
		printf("# %s\n", err.msg);
	memset(&srv, 0, sizeof(srv));
	sc_server_conf_default(&srv.conf);
	srv.artifacts = st;
	srv.sessions = sc_sessmgr_new(&srv.conf, NULL);
	sc_sessmgr_on_close(srv.sessions, closed_hook, st);
	return st;
}

static void
close_store(void)
{
	sc_sessmgr_free(srv.sessions);
	sc_artifact_store_free(srv.artifacts);
	srv.artifacts = NULL;
}

static struct sc_session *
session(const char *sid)
{
	struct sc_error err;
	struct sc_session *s;

	s = sc_sessmgr_get(srv.sessions, "u", sid, NULL, SC_SESS_GET_OR_CREATE,
	    &err);
	if (s == NULL)
		printf("# %s\n", err.msg);
	return s;
}

/* The path of name in session s's directory. */
static const char *
spath(const struct sc_session *s, const char *name)
{
	static char p[1024];

	snprintf(p, sizeof(p), "%s/%s%s%s", store_dir, s->server_side_id,
	    name[0] ? "/" : "", name);
	return p;
}

/* Whole file contents (static buffer), or NULL. */
static const char *
slurp(const char *path, size_t *lenp)
{
	static char buf[1 << 18];
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY)) == -1)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	*lenp = (size_t)n;
	return buf;
}

static int64_t
crc(const char *s)
{
	return sc_crc32_update(0, s, strlen(s));
}

/* One batch artifact with the right CRC. */
static int
single(struct sc_artifact_upload *up, const char *name, const char *data,
    struct sc_error *err)
{
	sc_error_init(err);
	return sc_artifact_upload_single(up, name, data, strlen(data),
	    crc(data), err);
}

static int
commit(struct sc_artifact_upload *up, size_t *n, struct sc_error *err)
{
	const struct sc_artifact_summary *v;

	sc_error_init(err);
	return sc_artifact_upload_commit(up, &v, n, err);
}

static mode_t
mode_of(const char *path)
{
	struct stat sb;

	return lstat(path, &sb) == 0 ? sb.st_mode & 07777 : (mode_t)-1;
}

/* ------------------------------------------------------------ names */

static void
test_names(void)
{
	static const struct {
		const char *name;
		int len; /* -1: strlen */
		const char *why; /* NULL: valid */
	} cases[] = {
		{ "jars/x.jar", -1, NULL },
		{ "pyfiles/a.py", -1, NULL },
		{ "files/data.csv", -1, NULL },
		{ "files/sub/dir/data.csv", -1, NULL },
		{ "archives/a.zip", -1, NULL },
		{ "archives/a.tar.gz#unpacked", -1, NULL },
		{ "classes/com/x/A.class", -1, NULL },
		{ "cache/0123456789abcdef", -1, NULL },
		{ "files/caf\xc3\xa9.csv", -1, NULL },
		{ "files/\xf0\x9f\x98\x80", -1, NULL },
		{ "files/with space", -1, NULL },
		{ "files/#hash", -1, NULL },
		{ "files/.hidden", -1, NULL },
		{ "files/...", -1, NULL },
		{ "", -1, "the name is empty" },
		{ "/etc/passwd", -1, "absolute path" },
		{ "/files/x", -1, "absolute path" },
		{ "files/../x", -1, "'..' component" },
		{ "files/a/../../x", -1, "'..' component" },
		{ "files/a/../b", -1, "'..' component" },
		{ "files/..", -1, "'..' component" },
		{ "files/./a", -1, "'.' component" },
		{ "files/.", -1, "'.' component" },
		{ "files//a", -1, "empty path component" },
		{ "files/a/", -1, "empty path component" },
		{ "files/a\\b", -1, "backslash" },
		{ "files\\..\\..\\x", -1, "backslash" },
		{ "files/a\0b", 9, "a NUL byte" },
		{ "files/a\x01", -1, "control character" },
		{ "files/a\nb", -1, "control character" },
		{ "files/a\x7f", -1, "control character" },
		{ "files/a\xc2\x85", -1, "control character" },
		{ "files/a\xff", -1, "not UTF-8" },
		{ "files/a\xc0\xaf", -1, "not UTF-8" },
		{ "files/a\xed\xa0\x80", -1, "not UTF-8" },
		{ "files/a\xe2\x82", -1, "not UTF-8" },
		{ "x/y", -1, "must start with jars/" },
		{ "forward_to_fs/tmp/x", -1, "must start with jars/" },
		{ "filesx/a", -1, "must start with jars/" },
		{ "files", -1, "must start with jars/" },
		{ "jars/", -1, "nothing follows the prefix jars/" },
		{ "archives/#frag", -1, "nothing follows" },
		{ "archives/a.zip#b#c", -1,
		    "'#' in the path is not supported" },
		{ "archives/a.zip#b/c", -1, "cannot contain '/'" },
		{ "files/../../../../etc/passwd", -1, "'..' component" },
	};
	char longname[SC_ARTIFACT_NAME_MAX + 8], comp[300], deep[200];
	struct sc_error err;
	size_t i, len;
	int rc;

	for (i = 0; i < SC_NELEM(cases); i++) {
		len = cases[i].len < 0 ? strlen(cases[i].name)
				       : (size_t)cases[i].len;
		sc_error_init(&err);
		rc = sc_artifact_check_name(cases[i].name, len, &err);
		if (cases[i].why == NULL) {
			is_int(rc, 0, "name %zu is valid", i);
			continue;
		}
		is_int(rc, -1, "name %zu is refused (%s)", i, cases[i].why);
		is_str(err.errclass, "INVALID_ARTIFACT_PATH",
		    "name %zu: INVALID_ARTIFACT_PATH", i);
		ok(strstr(err.msg, cases[i].why) != NULL, "name %zu: '%s'", i,
		    err.msg);
		is_int(err.rpc_code, SC_GRPC_INTERNAL, "name %zu: INTERNAL", i);
	}

	memcpy(longname, "files/", 6);
	memset(longname + 6, 'a', sizeof(longname) - 7);
	longname[sizeof(longname) - 1] = '\0';
	ok(sc_artifact_check_name(longname, SC_ARTIFACT_NAME_MAX, NULL) == -1,
	    "a name of 1024 bytes with a long component is refused");
	for (i = 106; i + 1 < SC_ARTIFACT_NAME_MAX; i += 100)
		longname[i] = '/';
	ok(sc_artifact_check_name(longname, SC_ARTIFACT_NAME_MAX, &err) == 0,
	    "a name of exactly 1024 bytes is valid: %s", err.msg);
	rc = sc_artifact_check_name(longname, SC_ARTIFACT_NAME_MAX + 1, &err);
	ok(rc == -1 && strstr(err.msg, "longer than 1024 bytes") != NULL,
	    "1025 bytes are refused");

	snprintf(comp, sizeof(comp), "files/");
	memset(comp + 6, 'c', 255);
	comp[6 + 255] = '\0';
	ok(sc_artifact_check_name(comp, strlen(comp), NULL) == 0,
	    "a component of 255 bytes is valid");
	comp[6 + 255] = 'c';
	comp[6 + 256] = '\0';
	rc = sc_artifact_check_name(comp, strlen(comp), &err);
	ok(rc == -1 && strstr(err.msg, "longer than 255 bytes") != NULL,
	    "a component of 256 bytes is refused");

	deep[0] = '\0';
	snprintf(deep, sizeof(deep), "files");
	for (i = 1; i < SC_ARTIFACT_DEPTH_MAX; i++)
		snprintf(deep + strlen(deep), sizeof(deep) - strlen(deep),
		    "/d");
	ok(sc_artifact_check_name(deep, strlen(deep), NULL) == 0,
	    "32 components are valid");
	snprintf(deep + strlen(deep), sizeof(deep) - strlen(deep), "/d");
	rc = sc_artifact_check_name(deep, strlen(deep), &err);
	ok(rc == -1 && strstr(err.msg, "more than 32 path components"),
	    "33 components are refused");

	/* Control bytes and backquotes are escaped in the message. */
	sc_artifact_check_name("files/a\x1b[2J`", 12, &err);
	is_str(err.msg,
	    "[INVALID_ARTIFACT_PATH] Artifact with name: "
	    "`files/a\\x1b[2J\\x60` is invalid: the name contains a control "
	    "character.",
	    "the message shows the name escaped");
}

/* A protobuf LEN field. */
static size_t
put_len(uint8_t *p, unsigned field, const void *data, size_t n)
{
	size_t k = 0;

	p[k++] = (uint8_t)(field << 3 | 2);
	p[k++] = (uint8_t)n; /* < 128 here */
	memcpy(p + k, data, n);
	return k + n;
}

static void
test_request(void)
{
	uint8_t art[64], batch[80], msg[128], begin[64];
	struct sc_error err;
	size_t na, nb, nm;

	/* batch { artifacts { name "files/a\0b" } } */
	na = put_len(art, 1, "files/a\0b", 9);
	nb = put_len(batch, 1, art, na);
	nm = put_len(msg, 1, "sid", 3);
	nm += put_len(msg + nm, 3, batch, nb);
	ok(sc_artifact_check_request(msg, nm, &err) == -1,
	    "a NUL byte in a batch artifact's name is found on the wire");
	ok(strstr(err.msg, "a NUL byte") != NULL, "%s", err.msg);

	/* begin_chunk { name "jars/\0" total_bytes 5 } */
	na = put_len(begin, 1, "jars/x\0", 7);
	begin[na++] = 2 << 3;
	begin[na++] = 5;
	nm = put_len(msg, 4, begin, na);
	ok(sc_artifact_check_request(msg, nm, &err) == -1,
	    "a NUL byte in a chunked artifact's name is found");

	na = put_len(art, 1, "files/ok", 8);
	nb = put_len(batch, 1, art, na);
	nm = put_len(msg, 3, batch, nb);
	ok(sc_artifact_check_request(msg, nm, NULL) == 0,
	    "a good batch passes");
	nm = put_len(msg, 5, "\x0a\x03xyz", 5); /* chunk { data "xyz" } */
	ok(sc_artifact_check_request(msg, nm, NULL) == 0,
	    "a chunk has no name to check");
	ok(sc_artifact_check_request("\x1a\x7f", 2, NULL) == 0,
	    "a truncated message is left to the decoder");
	ok(sc_artifact_check_request("\x0b", 1, NULL) == 0,
	    "a group wire type is left to the decoder");
}

/* ------------------------------------------------------------ store */

static void
test_store_dir(void)
{
	struct sc_artifact_limits lim = { -1, -1, -1, -1 };
	struct sc_artifact_store *st, *st2;
	struct sc_error err;
	char dir[400], stale[500], other[500], tmpdir[400];
	struct stat sb;
	const char *old;

	snprintf(dir, sizeof(dir), "%s/given", root);
	st = sc_artifact_store_new(dir, &lim, &err);
	ok(st != NULL, "a missing directory is created");
	is_int(mode_of(dir), 0700, "with mode 0700");
	sc_error_init(&err);
	st2 = sc_artifact_store_new(dir, &lim, &err);
	ok(st2 == NULL, "a second store on the same directory is refused");
	ok(strstr(err.msg, "is in use by another sc-serve") != NULL, "%s",
	    err.msg);
	is_int(err.status, SC_ST_IO, "as an I/O error");
	sc_artifact_store_free(st);
	ok(stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode),
	    "a given directory is kept at the end");

	/* Session directories an earlier server left are removed. */
	snprintf(stale, sizeof(stale), "%s/%s", dir, S1);
	mkdir(stale, 0700);
	snprintf(other, sizeof(other), "%s/%s/files", dir, S1);
	mkdir(other, 0700);
	snprintf(other, sizeof(other), "%s/keep-me", dir);
	mkdir(other, 0700);
	st = sc_artifact_store_new(dir, &lim, &err);
	ok(st != NULL, "the directory is reused");
	ok(stat(stale, &sb) == -1 && errno == ENOENT,
	    "a stale session directory is removed");
	ok(stat(other, &sb) == 0, "other entries are left alone");
	sc_artifact_store_free(st);

	chmod(dir, 0755);
	sc_error_init(&err);
	ok(sc_artifact_store_new(dir, &lim, &err) == NULL,
	    "a directory others can read is refused");
	ok(strstr(err.msg, "must belong to this user and be private") != NULL &&
		strstr(err.msg, "mode 0755") != NULL,
	    "%s", err.msg);
	chmod(dir, 0700);

	snprintf(other, sizeof(other), "%s/file", root);
	close(open(other, O_CREAT | O_WRONLY, 0600));
	ok(sc_artifact_store_new(other, &lim, &err) == NULL,
	    "a file is no artifact directory");

	/* A private store lives in $TMPDIR and goes at the end. */
	snprintf(tmpdir, sizeof(tmpdir), "%s/tmp", root);
	mkdir(tmpdir, 0700);
	old = getenv("TMPDIR");
	setenv("TMPDIR", tmpdir, 1);
	st = sc_artifact_store_new(NULL, &lim, &err);
	if (old != NULL)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	ok(st != NULL, "a private store is created");
	ok(strncmp(sc_artifact_store_dir(st), tmpdir, strlen(tmpdir)) == 0 &&
		strstr(sc_artifact_store_dir(st), "/sc-serve-artifacts-") !=
		    NULL,
	    "under $TMPDIR: %s", sc_artifact_store_dir(st));
	is_int(mode_of(sc_artifact_store_dir(st)), 0700, "mode 0700");
	snprintf(other, sizeof(other), "%s", sc_artifact_store_dir(st));
	sc_artifact_store_free(st);
	ok(stat(other, &sb) == -1 && errno == ENOENT,
	    "a private store is removed at the end");
}

/* ------------------------------------------------------------ uploads */

static void
test_upload(void)
{
	struct sc_artifact_store *st = open_store(-1, -1, -1);
	const struct sc_artifact_summary *v;
	struct sc_artifact_upload *up;
	struct sc_session *s = session(S1);
	struct sc_error err;
	char big[100000];
	const char *got;
	size_t n, len, i;

	for (i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7 + i / 251);
	up = sc_artifact_upload_new(st, s, &err);
	ok(up != NULL, "an upload starts");
	is_int(single(up, "files/a.csv", "x,y\n1,2\n", &err), 0,
	    "a batch artifact");
	is_int(single(up, "jars/empty.jar", "", &err), 0, "an empty one");
	is_int(sc_artifact_upload_single(up, "files/bad.txt", "abc", 3,
		   crc("abd"), &err),
	    0, "a wrong CRC is no error");
	is_int(sc_artifact_upload_begin(up, "files/sub/big.bin", sizeof(big), 4,
		   big, 32768, sc_crc32_update(0, big, 32768), &err),
	    0, "a chunked artifact begins");
	ok(strstr(tree(), ".upload-") != NULL &&
		access(spath(s, "files/sub/big.bin"), F_OK) == -1,
	    "data is staged, nothing committed yet: %s", tree());
	is_int(sc_artifact_upload_chunk(up, big + 32768, 32768,
		   sc_crc32_update(0, big + 32768, 32768), &err),
	    0, "chunk 2");
	is_int(sc_artifact_upload_chunk(up, big + 65536, 32768,
		   sc_crc32_update(0, big + 65536, 32768), &err),
	    0, "chunk 3");
	is_int(sc_artifact_upload_chunk(up, big + 98304, sizeof(big) - 98304,
		   sc_crc32_update(0, big + 98304, sizeof(big) - 98304), &err),
	    0, "chunk 4");
	is_int(sc_artifact_upload_begin(up, "archives/a.zip#dir", 3, 1, "zip",
		   3, crc("zip"), &err),
	    0, "a chunked artifact of one chunk");
	is_int(sc_artifact_upload_commit(up, &v, &n, &err), 0, "commit");
	is_int(n, 5, "five summaries");
	is_str(v[0].name, "files/a.csv", "in order 1");
	is_str(v[2].name, "files/bad.txt", "in order 3");
	is_str(v[3].name, "files/sub/big.bin", "in order 4");
	is_str(v[4].name, "archives/a.zip#dir", "the name as sent");
	ok(v[0].crc_ok && v[1].crc_ok && !v[2].crc_ok && v[3].crc_ok &&
		v[4].crc_ok,
	    "CRC results");
	sc_artifact_upload_free(up);

	got = slurp(spath(s, "files/a.csv"), &len);
	ok(got != NULL && len == 8 && memcmp(got, "x,y\n1,2\n", 8) == 0,
	    "files/a.csv stored");
	got = slurp(spath(s, "files/sub/big.bin"), &len);
	ok(got != NULL && len == sizeof(big) &&
		memcmp(got, big, sizeof(big)) == 0,
	    "the chunked artifact is stored byte for byte");
	ok(access(spath(s, "files/bad.txt"), F_OK) == -1,
	    "the artifact with a bad CRC is not stored");
	ok(access(spath(s, "archives/a.zip"), F_OK) == 0,
	    "an archive is stored without its #fragment");
	is_int(mode_of(spath(s, "files/a.csv")), 0600, "files are 0600");
	is_int(mode_of(spath(s, "files/sub")), 0700, "directories are 0700");
	is_int(mode_of(spath(s, "")), 0700, "the session directory is 0700");
	ok(strstr(tree(), ".upload-") == NULL, "no staging file is left: %s",
	    tree());

	/* Listing, ArtifactStatus and the engine's view. */
	{
		struct sc_artifact_info *li;
		size_t nl;
		char path[1024];
		int fd = -1;

		sc_artifact_list(st, s->server_side_id, &li, &nl);
		is_int(nl, 4, "four artifacts listed");
		if (nl == 4) {
			is_str(li[0].name, "archives/a.zip", "sorted 1");
			is_str(li[1].name, "files/a.csv", "sorted 2");
			is_int(li[1].size, 8, "with its size");
			is_str(li[2].name, "files/sub/big.bin", "sorted 3");
			is_int(li[2].size, sizeof(big), "100000 bytes");
			is_str(li[3].name, "jars/empty.jar", "sorted 4");
			ok(li[0].stored_ms > 1700000000000LL,
			    "with a stored time");
		}
		sc_artifact_list_free(li, nl);
		sc_artifact_list(st, S2, &li, &nl);
		ok(li == NULL && nl == 0, "an unknown session has none");

		is_int(sc_artifact_path(srv.artifacts, s, "files/a.csv", &fd,
			   path, sizeof(path), &err),
		    0, "the engine resolves files/a.csv");
		ok(fd >= 0 && read(fd, path + 900, 8) == 8 &&
			memcmp(path + 900, "x,y\n1,2\n", 8) == 0,
		    "and reads it through the descriptor");
		path[900] = '\0';
		is_str(path, spath(s, "files/a.csv"), "its path");
		if (fd >= 0)
			close(fd);
		ok(sc_artifact_path(srv.artifacts, s, "files/nope.csv", NULL,
		       NULL, 0, &err) == -1,
		    "a missing artifact");
		is_str(err.errclass, "PATH_NOT_FOUND", "is PATH_NOT_FOUND");
		is_str(err.sqlstate, "42K03", "SQLSTATE 42K03");
		ok(sc_artifact_path(srv.artifacts, s, "jars/empty.jar", NULL,
		       NULL, 0, &err) == -1,
		    "a jar is not data");
		is_str(err.errclass, "INVALID_ARTIFACT_PATH", "refused");
		ok(sc_artifact_path(srv.artifacts, s, "cache/abc", NULL, NULL,
		       0, &err) == -1,
		    "a missing cache/ blob");
		is_str(err.errclass, "PATH_NOT_FOUND",
		    "cache/ names are looked up (cached_local_relation)");
		ok(sc_artifact_path(srv.artifacts, s, "files/../x", NULL, NULL,
		       0, &err) == -1,
		    "a bad name is refused");
	}
	sc_session_unref(s);
	close_store();
}

/* One protocol error case: run fn, expect class, and nothing stored. */
static void
protocol_case(const char *what, const char *cls,
    int (*fn)(struct sc_artifact_upload *, struct sc_error *))
{
	struct sc_artifact_store *st = open_store(-1, -1, -1);
	struct sc_artifact_upload *up;
	struct sc_session *s = session(S1);
	struct sc_error err;
	char want[200];
	int rc;

	up = sc_artifact_upload_new(st, s, &err);
	single(up, "files/before.txt", "staged before the error", &err);
	sc_error_init(&err);
	rc = fn(up, &err);
	is_int(rc, -1, "%s fails", what);
	is_str(err.errclass, cls, "%s: %s", what, err.msg);
	is_int(err.rpc_code, SC_GRPC_INTERNAL, "%s: INTERNAL", what);
	ok(single(up, "files/after.txt", "x", &err) == -1,
	    "%s: the upload takes nothing more", what);
	sc_artifact_upload_free(up);
	snprintf(want, sizeof(want), ".lock %s/ ", s->server_side_id);
	is_str(tree(), want, "%s: nothing is left but an empty directory",
	    what);
	sc_session_unref(s);
	close_store();
}

static int
p_begin_open(struct sc_artifact_upload *up, struct sc_error *err)
{
	sc_artifact_upload_begin(up, "files/a", 10, 2, "12345", 5, crc("12345"),
	    err);
	return sc_artifact_upload_begin(up, "files/b", 1, 1, "x", 1, crc("x"),
	    err);
}

static int
p_batch_open(struct sc_artifact_upload *up, struct sc_error *err)
{
	sc_artifact_upload_begin(up, "files/a", 10, 2, "12345", 5, crc("12345"),
	    err);
	return single(up, "files/b", "x", err);
}

static int
p_no_begin(struct sc_artifact_upload *up, struct sc_error *err)
{
	return sc_artifact_upload_chunk(up, "x", 1, crc("x"), err);
}

static int
p_excess(struct sc_artifact_upload *up, struct sc_error *err)
{
	sc_artifact_upload_begin(up, "files/a", 10, 2, "12345", 5, crc("12345"),
	    err);
	sc_artifact_upload_chunk(up, "67890", 5, crc("67890"), err);
	return sc_artifact_upload_chunk(up, "", 0, 0, err);
}

static int
p_missing_bytes(struct sc_artifact_upload *up, struct sc_error *err)
{
	sc_artifact_upload_begin(up, "files/a", 10, 2, "12345", 5, crc("12345"),
	    err);
	return sc_artifact_upload_chunk(up, "678", 3, crc("678"), err);
}

static int
p_too_many_bytes(struct sc_artifact_upload *up, struct sc_error *err)
{
	sc_artifact_upload_begin(up, "files/a", 6, 3, "12345", 5, crc("12345"),
	    err);
	return sc_artifact_upload_chunk(up, "67", 2, crc("67"), err);
}

static int
p_unfinished(struct sc_artifact_upload *up, struct sc_error *err)
{
	size_t n;

	sc_artifact_upload_begin(up, "files/a", 10, 3, "12345", 5, crc("12345"),
	    err);
	return commit(up, &n, err);
}

static int
p_bad_header(struct sc_artifact_upload *up, struct sc_error *err)
{
	return sc_artifact_upload_begin(up, "files/a", 10, 0, NULL, 0, 0, err);
}

static int
p_bad_name(struct sc_artifact_upload *up, struct sc_error *err)
{
	return single(up, "files/../../escape", "x", err);
}

static void
test_protocol(void)
{
	protocol_case("begin while a chunked artifact is open",
	    "INVALID_ARTIFACT_STREAM.CHUNKED_ARTIFACT_OPEN", p_begin_open);
	protocol_case("a batch while a chunked artifact is open",
	    "INVALID_ARTIFACT_STREAM.CHUNKED_ARTIFACT_OPEN", p_batch_open);
	protocol_case("a chunk with none open",
	    "INVALID_ARTIFACT_STREAM.NO_CHUNKED_ARTIFACT", p_no_begin);
	protocol_case("an excess chunk",
	    "INVALID_ARTIFACT_STREAM.EXCESS_CHUNKS", p_excess);
	protocol_case("fewer bytes than total_bytes",
	    "INVALID_ARTIFACT_STREAM.SIZE_MISMATCH", p_missing_bytes);
	protocol_case("more bytes than total_bytes",
	    "INVALID_ARTIFACT_STREAM.SIZE_MISMATCH", p_too_many_bytes);
	protocol_case("a stream ending mid-artifact",
	    "INVALID_ARTIFACT_STREAM.UNFINISHED", p_unfinished);
	protocol_case("num_chunks 0", "INVALID_ARTIFACT_STREAM.BAD_HEADER",
	    p_bad_header);
	protocol_case("an escaping name", "INVALID_ARTIFACT_PATH", p_bad_name);
}

static void
test_protocol_text(void)
{
	struct sc_artifact_store *st = open_store(-1, -1, -1);
	struct sc_session *s = session(S1);
	struct sc_artifact_upload *up;
	struct sc_error err;

	up = sc_artifact_upload_new(st, s, &err);
	p_excess(up, &err);
	is_str(err.msg,
	    "[INVALID_ARTIFACT_STREAM.EXCESS_CHUNKS] Excessive data chunks "
	    "for artifact: files/a, expected 2 chunks in total. Processed 10 "
	    "bytes out of 10 bytes.",
	    "Spark's text for excess chunks");
	sc_artifact_upload_free(up);
	up = sc_artifact_upload_new(st, s, &err);
	p_missing_bytes(up, &err);
	is_str(err.msg,
	    "[INVALID_ARTIFACT_STREAM.SIZE_MISMATCH] Missing data for "
	    "artifact: files/a. All 2 declared chunks arrived, with 8 of "
	    "the 10 declared bytes.",
	    "what arrived for missing bytes");
	sc_artifact_upload_free(up);
	sc_session_unref(s);
	close_store();
}

/* ------------------------------------------------------------ duplicates */

static void
test_duplicates(void)
{
	struct sc_artifact_store *st = open_store(-1, -1, -1);
	struct sc_session *s = session(S1);
	struct sc_artifact_upload *up;
	struct sc_error err;
	const char *got;
	size_t n, len;

	up = sc_artifact_upload_new(st, s, &err);
	single(up, "files/d.txt", "one", &err);
	single(up, "classes/A.class", "v1", &err);
	single(up, "cache/h", "c1", &err);
	is_int(commit(up, &n, &err), 0, "first upload");
	sc_artifact_upload_free(up);

	up = sc_artifact_upload_new(st, s, &err);
	single(up, "files/d.txt", "one", &err);
	is_int(commit(up, &n, &err), 0,
	    "the same name with the same bytes is accepted");
	sc_artifact_upload_free(up);

	up = sc_artifact_upload_new(st, s, &err);
	single(up, "files/new1.txt", "n1", &err);
	single(up, "files/d.txt", "two", &err);
	single(up, "classes/A.class", "v2", &err);
	single(up, "cache/h", "c2", &err);
	single(up, "files/new2.txt", "n2", &err);
	is_int(commit(up, &n, &err), -1,
	    "different bytes under a stored name fail");
	is_str(err.errclass, "ARTIFACT_ALREADY_EXISTS", "%s", err.msg);
	is_str(err.sqlstate, "42713", "SQLSTATE 42713");
	is_str(err.msg,
	    "[ARTIFACT_ALREADY_EXISTS] The artifact `files/d.txt` already "
	    "exists. Please choose a different name for the new artifact "
	    "because it cannot be overwritten. SQLSTATE: 42713",
	    "Spark's text");
	sc_artifact_upload_free(up);
	got = slurp(spath(s, "files/d.txt"), &len);
	ok(got != NULL && strcmp(got, "one") == 0,
	    "the stored artifact is unchanged");
	got = slurp(spath(s, "classes/A.class"), &len);
	ok(got != NULL && strcmp(got, "v2") == 0, "classes/ is overwritten");
	got = slurp(spath(s, "cache/h"), &len);
	ok(got != NULL && strcmp(got, "c2") == 0, "cache/ is replaced");
	ok(access(spath(s, "files/new1.txt"), F_OK) == 0 &&
		access(spath(s, "files/new2.txt"), F_OK) == 0,
	    "as Spark, the call's other artifacts are stored");
	ok(strstr(tree(), ".upload-") == NULL, "no staging file left");

	/* A name under an artifact, and a directory under a name. */
	up = sc_artifact_upload_new(st, s, &err);
	single(up, "files/d.txt/x", "y", &err);
	is_int(commit(up, &n, &err), -1, "a name below a file fails");
	ok(strstr(err.msg,
	       "'files/d.txt' is a stored artifact, not a "
	       "directory") != NULL,
	    "%s", err.msg);
	sc_artifact_upload_free(up);
	up = sc_artifact_upload_new(st, s, &err);
	single(up, "files", "y", &err);
	sc_artifact_upload_free(up);
	sc_session_unref(s);
	close_store();
}

/* ------------------------------------------------------------ limits */

static void
test_limits(void)
{
	struct sc_artifact_store *st = open_store(10, 25, 3);
	struct sc_session *s = session(S1);
	struct sc_artifact_upload *up;
	struct sc_error err;
	char want[400];
	size_t n;

	up = sc_artifact_upload_new(st, s, &err);
	single(up, "files/ok", "0123456789", &err);
	is_int(single(up, "files/big", "0123456789a", &err), -1,
	    "an artifact over maxSize is refused");
	is_str(err.errclass, "ARTIFACT_LIMIT_EXCEEDED.SIZE", "%s", err.msg);
	is_str(err.sqlstate, "54000", "SQLSTATE 54000");
	is_int(err.rpc_code, SC_GRPC_RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED");
	sc_artifact_upload_free(up);
	snprintf(want, sizeof(want), ".lock %s/ ", s->server_side_id);
	is_str(tree(), want, "nothing is left");

	up = sc_artifact_upload_new(st, s, &err);
	sc_error_init(&err);
	is_int(sc_artifact_upload_begin(up, "files/big", 11, 2, "0", 1,
		   crc("0"), &err),
	    -1, "a chunked artifact is refused by its declared size");
	is_str(err.errclass, "ARTIFACT_LIMIT_EXCEEDED.SIZE", "%s", err.msg);
	sc_artifact_upload_free(up);
	is_str(tree(), want, "nothing is left");

	up = sc_artifact_upload_new(st, s, &err);
	single(up, "files/a", "0123456789", &err);
	single(up, "files/b", "0123456789", &err);
	is_int(commit(up, &n, &err), 0, "20 of 25 bytes");
	sc_artifact_upload_free(up);

	up = sc_artifact_upload_new(st, s, &err);
	is_int(single(up, "files/c", "012345", &err), -1,
	    "26 bytes are over maxSessionBytes");
	is_str(err.errclass, "ARTIFACT_LIMIT_EXCEEDED.SESSION_BYTES", "%s",
	    err.msg);
	is_int(err.rpc_code, SC_GRPC_RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED");
	sc_artifact_upload_free(up);

	/* Two uploads at once share the quota. */
	{
		struct sc_artifact_upload *u1, *u2;

		u1 = sc_artifact_upload_new(st, s, &err);
		u2 = sc_artifact_upload_new(st, s, &err);
		is_int(single(u1, "files/c", "0123", &err), 0,
		    "u1 stages 4 bytes");
		is_int(single(u2, "files/d", "01", &err), -1,
		    "u2 cannot pass the quota with u1's staged bytes");
		sc_artifact_upload_free(u2);
		is_int(commit(u1, &n, &err), 0, "u1 commits");
		sc_artifact_upload_free(u1);
	}
	up = sc_artifact_upload_new(st, s, &err);
	is_int(single(up, "files/e", "", &err), -1,
	    "a fourth artifact is over maxSessionFiles");
	is_str(err.errclass, "ARTIFACT_LIMIT_EXCEEDED.SESSION_FILES", "%s",
	    err.msg);
	sc_artifact_upload_free(up);

	/* Replacing counts the difference only. */
	up = sc_artifact_upload_new(st, s, &err);
	is_int(single(up, "files/a", "0123456789", &err), 0,
	    "the same bytes again stage within the limits");
	is_int(commit(up, &n, &err), 0, "and commit");
	sc_artifact_upload_free(up);
	snprintf(want, sizeof(want),
	    ".lock %s/ %s/files/ %s/files/a %s/files/b %s/files/c ",
	    s->server_side_id, s->server_side_id, s->server_side_id,
	    s->server_side_id, s->server_side_id);
	is_str(tree(), want, "only the committed artifacts are there");
	sc_session_unref(s);
	close_store();
}

/*
 * maxStoreBytes bounds the artifacts of all sessions together (stored
 * and staged); a released session's give the room back.
 */
static void
test_store_cap(void)
{
	struct sc_artifact_store *st;
	struct sc_session *s, *s2;
	struct sc_artifact_upload *up, *up2;
	struct sc_error err;
	char ssid[SC_UUID_STRLEN];
	size_t n;

	store_cap = 20;
	st = open_store(-1, -1, -1);
	store_cap = -1;
	s = session(S1);
	s2 = session(S2);
	up = sc_artifact_upload_new(st, s, &err);
	is_int(single(up, "files/a", "0123456789", &err), 0,
	    "store: 10 bytes in session 1");
	is_int(commit(up, &n, &err), 0, "store: committed");
	sc_artifact_upload_free(up);
	up = sc_artifact_upload_new(st, s2, &err);
	up2 = sc_artifact_upload_new(st, s2, &err);
	is_int(single(up, "files/b", "01234567", &err), 0,
	    "store: 8 staged in session 2");
	is_int(single(up2, "files/c", "012", &err), -1,
	    "store: 3 more would pass 20 with the staged ones");
	is_str(err.errclass, "ARTIFACT_STORE_FULL", "%s", err.msg);
	is_str(err.sqlstate, "53100", "store: SQLSTATE 53100");
	is_int(err.rpc_code, SC_GRPC_RESOURCE_EXHAUSTED,
	    "store: RESOURCE_EXHAUSTED");
	is_str(err.msg,
	    "[ARTIFACT_STORE_FULL] Cannot store artifact `files/c` of 3 "
	    "bytes: the artifacts of all sessions would pass the store's "
	    "limit of 20 bytes (sctk.artifact.maxStoreBytes). Release "
	    "sessions that no longer need theirs. SQLSTATE: 53100",
	    "store: the message names the limit");
	sc_artifact_upload_free(up2);
	sc_artifact_upload_free(up); /* not committed: 8 bytes back */
	up = sc_artifact_upload_new(st, s2, &err);
	is_int(single(up, "files/b", "0123456789", &err), 0,
	    "store: an upload given up gave its bytes back");
	is_int(commit(up, &n, &err), 0, "store: 20 of 20 stored");
	sc_artifact_upload_free(up);
	up = sc_artifact_upload_new(st, s2, &err);
	is_int(single(up, "files/b", "0123456789", &err), 0,
	    "store: the same bytes again need no room");
	sc_artifact_upload_free(up);
	is_int(sc_sessmgr_release(srv.sessions, "u", S1, false, ssid), 1,
	    "store: session 1 released");
	up = sc_artifact_upload_new(st, s2, &err);
	is_int(single(up, "files/d", "0123456789", &err), 0,
	    "store: its 10 bytes are free again");
	is_int(commit(up, &n, &err), 0, "store: committed");
	sc_artifact_upload_free(up);
	sc_session_unref(s);
	sc_session_unref(s2);
	close_store();
}

/* ------------------------------------------------------------ sessions */

static void
test_sessions(void)
{
	struct sc_artifact_store *st = open_store(-1, -1, -1);
	struct sc_session *s = session(S1), *s2 = session(S2);
	struct sc_artifact_upload *up, *up2;
	struct sc_error err;
	char ssid[SC_UUID_STRLEN], dir[600];
	const char *got;
	size_t n, len;

	/* Two sessions, the same name, different bytes. */
	up = sc_artifact_upload_new(st, s, &err);
	up2 = sc_artifact_upload_new(st, s2, &err);
	single(up, "files/same", "from one", &err);
	single(up2, "files/same", "from two", &err);
	is_int(commit(up2, &n, &err), 0, "session 2 commits");
	is_int(commit(up, &n, &err), 0, "session 1 commits");
	sc_artifact_upload_free(up);
	sc_artifact_upload_free(up2);
	got = slurp(spath(s, "files/same"), &len);
	ok(got != NULL && strcmp(got, "from one") == 0, "session 1's bytes");
	got = slurp(spath(s2, "files/same"), &len);
	ok(got != NULL && strcmp(got, "from two") == 0, "session 2's bytes");

	up = sc_artifact_upload_new(st, s, &err);
	single(up, "cache/abc", "blob", &err);
	commit(up, &n, &err);
	sc_artifact_upload_free(up);
	ok(sc_artifact_cached(st, s->server_side_id, "cache/abc"),
	    "ArtifactStatus: a cached name of this session exists");
	ok(!sc_artifact_cached(st, s2->server_side_id, "cache/abc"),
	    "not in another session");
	ok(!sc_artifact_cached(st, s->server_side_id, "files/same"),
	    "a stored files/ name is reported missing, as Spark does");
	ok(!sc_artifact_cached(st, s->server_side_id, "cache/other"),
	    "an unknown cache/ name is missing");

	/* A release removes the directory, and an upload in progress fails. */
	up = sc_artifact_upload_new(st, s, &err);
	is_int(sc_artifact_upload_begin(up, "files/long", 10, 2, "12345", 5,
		   crc("12345"), &err),
	    0, "an upload is in progress");
	snprintf(dir, sizeof(dir), "%s", spath(s, ""));
	is_int(sc_sessmgr_release(srv.sessions, "u", S1, false, ssid), 1,
	    "the session is released");
	ok(access(dir, F_OK) == -1 && errno == ENOENT,
	    "its artifact directory is gone");
	sc_error_init(&err);
	is_int(sc_artifact_upload_chunk(up, "67890", 5, crc("67890"), &err), -1,
	    "the upload's next chunk fails");
	is_str(err.errclass, "INVALID_HANDLE.SESSION_CLOSED", "%s", err.msg);
	is_str(err.msg,
	    "[INVALID_HANDLE.SESSION_CLOSED] The handle `" S1 "` is invalid. "
	    "Session was closed. SQLSTATE: HY000",
	    "naming the client's session id");
	sc_artifact_upload_free(up);
	ok(access(dir, F_OK) == -1, "and nothing comes back");
	ok(!sc_artifact_cached(st, s->server_side_id, "cache/abc"),
	    "the cache entry went with the session");
	ok(sc_artifact_upload_new(st, s, &err) == NULL,
	    "a closed session starts no upload");
	is_str(err.errclass, "INVALID_HANDLE.SESSION_CLOSED", "%s", err.msg);
	ok(access(dir, F_OK) == -1, "and creates no directory");

	/* Expiry removes them too. */
	srv.conf.session_timeout_ms = 0;
	ok(sc_sessmgr_maintain(srv.sessions) >= 1, "idle sessions expire");
	ok(access(spath(s2, ""), F_OK) == -1,
	    "the expired session's artifacts are gone");
	sc_session_unref(s);
	sc_session_unref(s2);
	close_store();
}

/* ------------------------------------------------------------ symlinks */

static void
test_symlinks(void)
{
	struct sc_artifact_store *st = open_store(-1, -1, -1);
	struct sc_session *s = session(S1);
	struct sc_artifact_upload *up;
	struct sc_error err;
	char outside[400], target[500], link[1024];
	const char *got;
	size_t n, len;
	int fd;

	snprintf(outside, sizeof(outside), "%s/outside", root);
	rm_rf(outside);
	mkdir(outside, 0700);
	up = sc_artifact_upload_new(st, s, &err);
	single(up, "jars/first.jar", "j", &err);
	commit(up, &n, &err);
	sc_artifact_upload_free(up);

	/* A directory on the path replaced by a link to outside. */
	snprintf(link, sizeof(link), "%s", spath(s, "files"));
	ok(symlink(outside, link) == 0, "plant files -> outside");
	up = sc_artifact_upload_new(st, s, &err);
	single(up, "files/x.csv", "payload", &err);
	is_int(commit(up, &n, &err), -1, "the upload fails");
	is_str(err.errclass, "INVALID_ARTIFACT_PATH", "%s", err.msg);
	ok(strstr(err.msg,
	       "'files' in the session's store is a symbolic "
	       "link") != NULL,
	    "naming the link");
	sc_artifact_upload_free(up);
	snprintf(target, sizeof(target), "%s/x.csv", outside);
	ok(access(target, F_OK) == -1, "nothing was written outside");
	ok(sc_artifact_path(srv.artifacts, s, "files/x.csv", NULL, NULL, 0,
	       &err) == -1,
	    "the engine does not follow it either");
	unlink(link);

	/* A stored file replaced by a link to a file outside. */
	snprintf(target, sizeof(target), "%s/secret", outside);
	fd = open(target, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	ok(fd >= 0 && write(fd, "secret", 6) == 6, "an outside file");
	close(fd);
	snprintf(link, sizeof(link), "%s", spath(s, "jars/first.jar"));
	unlink(link);
	ok(symlink(target, link) == 0, "plant jars/first.jar -> outside");
	up = sc_artifact_upload_new(st, s, &err);
	single(up, "jars/first.jar", "overwrite?", &err);
	is_int(commit(up, &n, &err), -1, "the upload fails");
	ok(strstr(err.msg, "symbolic link") != NULL, "%s", err.msg);
	sc_artifact_upload_free(up);
	got = slurp(target, &len);
	ok(got != NULL && strcmp(got, "secret") == 0,
	    "the outside file is unchanged");
	up = sc_artifact_upload_new(st, s, &err);
	single(up, "classes/A.class", "c", &err);
	commit(up, &n, &err);
	sc_artifact_upload_free(up);
	snprintf(link, sizeof(link), "%s", spath(s, "classes/A.class"));
	unlink(link);
	ok(symlink(target, link) == 0, "plant classes/A.class -> outside");
	up = sc_artifact_upload_new(st, s, &err);
	single(up, "classes/A.class", "overwrite?", &err);
	is_int(commit(up, &n, &err), -1,
	    "a replacing prefix does not write through a link either");
	sc_artifact_upload_free(up);
	got = slurp(target, &len);
	ok(got != NULL && strcmp(got, "secret") == 0,
	    "the outside file is still unchanged");

	/* Release removes the links, not what they point to. */
	sc_sessmgr_release(srv.sessions, "u", S1, false, link);
	ok(access(target, F_OK) == 0, "removing the store spares the target");
	sc_session_unref(s);
	close_store();
	rm_rf(outside);
}

int
main(void)
{
	sc_log_init("test-artifact", SC_LOG_STYLE_CLIENT, SC_LOG_ERROR);
	tap_template(root, sizeof(root), "test-artifact-");
	if (mkdtemp(root) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_names();
	test_request();
	test_store_dir();
	test_upload();
	test_protocol();
	test_protocol_text();
	test_duplicates();
	test_limits();
	test_store_cap();
	test_sessions();
	test_symlinks();
	rm_rf(root);
	return tap_done();
}
