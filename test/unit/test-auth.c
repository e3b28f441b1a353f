/* SPDX-License-Identifier: MIT */

/*
 * test-auth.c: lib/server/auth.c: which ids pass (UTF-8 without control
 * characters) and how others are shown; the token file: its syntax,
 * permissions, refusals with their messages, lookups, and a reload that
 * keeps the old table when the new file is bad, a large table; and the
 * user check of service.c (sc_svc_check_user()).
 */

#include "server/auth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/xmem.h"
#include "server/server.h"
#include "server/service_int.h"
#include "tap.h"
#include "core/banned.h"

static char path[256];

static void
put(const char *text, mode_t mode)
{
	FILE *fp;

	unlink(path);
	fp = fopen(path, "w");
	if (fp == NULL) {
		perror(path);
		exit(1);
	}
	fputs(text, fp);
	fclose(fp);
	chmod(path, mode);
}

static void
test_ids(void)
{
	static const struct {
		const char *s;
		bool ok;
		const char *shown;
	} cases[] = {
		{ "", true, "" },
		{ "alice", true, "alice" },
		{ "zo\xc3\xab \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80", true,
		    "zo\xc3\xab \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80" },
		{ "bad\xff\xfe\xc0\x80", false, "bad\\xff\\xfe\\xc0\\x80" },
		{ "a\x01"
		  "b",
		    false, "a\\x01b" },
		{ "tab\t", false, "tab\\x09" },
		{ "del\x7f", false, "del\\x7f" },
		{ "nel\xc2\x85", false, "nel\\xc2\\x85" }, /* C1 */
		{ "nbsp\xc2\xa0", true, "nbsp\xc2\xa0" },
		{ "over\xe0\x80\xaf", false, "over\\xe0\\x80\\xaf" },
		{ "sur\xed\xa0\x80", false, "sur\\xed\\xa0\\x80" },
		{ "big\xf4\x90\x80\x80", false, "big\\xf4\\x90\\x80\\x80" },
		{ "cut\xe6\x97", false, "cut\\xe6\\x97" },
	};
	char out[64];
	size_t i;

	for (i = 0; i < SC_NELEM(cases); i++) {
		is_int(sc_auth_id_valid(cases[i].s), cases[i].ok,
		    "valid: case %zu", i);
		sc_auth_id_escape(cases[i].s, out, sizeof(out));
		is_str(out, cases[i].shown, "escape: case %zu", i);
	}
	sc_auth_id_escape("\xff\xff\xff\xff\xff", out, 12);
	is_str(out, "\\xff\\xff...", "escape: cut with ...");
	sc_auth_id_escape("abcdefghij", out, 8);
	is_str(out, "abcd...", "escape: plain text cut");
}

static void
test_file(void)
{
	struct sc_server_conf conf;
	struct sc_error err;
	struct sc_auth *a;
	char user[SC_AUTH_USER_MAX], want[512];
	size_t n = 0;

	sc_server_conf_default(&conf);
	snprintf(conf.token, sizeof(conf.token), "shared");
	snprintf(conf.admin_token, sizeof(conf.admin_token), "adm");

	put("# comment\n\n  tok-a   alice \t\n\ttok-b bob\r\ntok-a2 alice",
	    0600);
	a = sc_auth_new(path, &conf, &err);
	ok(a != NULL, "a good file loads");
	if (a == NULL)
		return;
	is_int((int)sc_auth_count(a), 3, "three tokens");
	ok(sc_auth_lookup(a, "tok-a", user) && strcmp(user, "alice") == 0,
	    "tok-a is alice");
	ok(sc_auth_lookup(a, "tok-a2", user) && strcmp(user, "alice") == 0,
	    "a user may have two tokens");
	ok(sc_auth_lookup(a, "tok-b", user) && strcmp(user, "bob") == 0,
	    "CR LF line ends");
	ok(!sc_auth_lookup(a, "tok-", user), "a prefix is not a token");
	ok(!sc_auth_lookup(a, "tok-ab", user), "nor a longer one");
	ok(!sc_auth_lookup(a, "", user), "nor an empty one");
	ok(!sc_auth_lookup(NULL, "tok-a", user), "no table, no user");

	/* Bad files: the old table stays. */
	static const struct {
		const char *text;
		mode_t mode;
		int status;
		const char *msg; /* after "token file 'PATH' " */
	} bad[] = {
		{ "tok-c carol\n", 0644, SC_ST_USAGE, NULL },
		{ "tok-c carol\n", 0640, SC_ST_USAGE, NULL },
		{ "tok-c\n", 0600, SC_ST_USAGE,
		    "line 1: expected 'token user_id'" },
		{ "tok-c carol extra\n", 0600, SC_ST_USAGE,
		    "line 1: expected 'token user_id'" },
		{ "x y\n#\nx z\n", 0600, SC_ST_USAGE,
		    "line 3: the token is on an earlier line too" },
		{ "shared carol\n", 0600, SC_ST_USAGE,
		    "line 1: the token is also the --token or the --admin-token" },
		{ "adm carol\n", 0600, SC_ST_USAGE,
		    "line 1: the token is also the --token or the --admin-token" },
		{ "t car\x01ol\n", 0600, SC_ST_USAGE,
		    "line 1: the user id is not valid UTF-8 of at most 255 bytes without control characters" },
	};
	size_t i;

	for (i = 0; i < SC_NELEM(bad); i++) {
		put(bad[i].text, bad[i].mode);
		is_int(sc_auth_reload(a, &conf, &n, &err), -1, "bad %zu", i);
		is_int(err.status, bad[i].status, "bad %zu: status", i);
		if (bad[i].msg != NULL)
			snprintf(want, sizeof(want), "token file '%s' %s", path,
			    bad[i].msg);
		else
			snprintf(want, sizeof(want),
			    "permissions %04o for token file '%s' are too open: others may read it; make it readable by its owner only (chmod 600)",
			    (unsigned)bad[i].mode, path);
		is_str(err.msg, want, "bad %zu: message", i);
		is_int((int)sc_auth_count(a), 3, "bad %zu: old table stays", i);
	}
	ok(sc_auth_lookup(a, "tok-a", user), "tok-a still works");

	/* A good reload replaces the table. */
	put("tok-c carol\n", 0400);
	is_int(sc_auth_reload(a, &conf, &n, &err), 0, "reload");
	is_int((int)n, 1, "one token now");
	ok(!sc_auth_lookup(a, "tok-a", user), "tok-a is gone");
	ok(sc_auth_lookup(a, "tok-c", user) && strcmp(user, "carol") == 0,
	    "tok-c is carol");

	unlink(path);
	is_int(sc_auth_reload(a, &conf, &n, &err), -1, "a missing file");
	is_int(err.status, SC_ST_IO, "is an I/O error");
	snprintf(want, sizeof(want),
	    "cannot open token file '%s': No such file or directory", path);
	is_str(err.msg, want, "its message");
	sc_auth_free(a);
	sc_auth_free(NULL);
	ok(sc_auth_new(path, &conf, &err) == NULL, "no file, no table");
}

/* Many tokens: every one finds its user, near misses find none. */
static void
test_many(void)
{
	struct sc_server_conf conf;
	struct sc_error err;
	struct sc_auth *a;
	char user[SC_AUTH_USER_MAX], tok[32], want[32];
	FILE *fp;
	int i, found = 0, wrong = 0;

	sc_server_conf_default(&conf);
	unlink(path);
	if ((fp = fopen(path, "w")) == NULL)
		return;
	for (i = 0; i < 2000; i++)
		fprintf(fp, "t%d u%d\n", i, i % 7);
	fclose(fp);
	chmod(path, 0600);
	a = sc_auth_new(path, &conf, &err);
	ok(a != NULL, "2000 tokens load");
	if (a == NULL)
		return;
	is_int((int)sc_auth_count(a), 2000, "all of them");
	for (i = 0; i < 2000; i++) {
		snprintf(tok, sizeof(tok), "t%d", i);
		snprintf(want, sizeof(want), "u%d", i % 7);
		if (sc_auth_lookup(a, tok, user))
			found += strcmp(user, want) == 0;
		snprintf(tok, sizeof(tok), "t%dx", i);
		wrong += sc_auth_lookup(a, tok, user);
	}
	is_int(found, 2000, "every token finds its user");
	is_int(wrong, 0, "no other string finds one");
	sc_auth_free(a);
}

static void
test_check_user(void)
{
	struct sc_error err;

	is_int(sc_svc_check_user(SC_SVC_OPEN, "", "anyone", &err), 0,
	    "open: any user");
	is_int(sc_svc_check_user(SC_SVC_SHARED, "", "anyone", &err), 0,
	    "shared token: any user");
	is_int(sc_svc_check_user(SC_SVC_BOUND, "alice", "alice", &err), 0,
	    "bound: its user");
	is_int(sc_svc_check_user(SC_SVC_BOUND, "alice", "bob", &err), -1,
	    "bound: another user");
	is_int(err.rpc_code, SC_GRPC_PERMISSION_DENIED, "PERMISSION_DENIED");
	is_str(err.errclass, "SCTK_AUTH.USER_MISMATCH", "its class");
	is_str(err.msg,
	    "[SCTK_AUTH.USER_MISMATCH] The token is bound to the user `alice`; this request names the user `bob`. SQLSTATE: 42501",
	    "its message");
	is_int(sc_svc_check_user(SC_SVC_SHARED, "", "b\xff", &err), -1,
	    "invalid UTF-8");
	is_int(err.rpc_code, SC_GRPC_INVALID_ARGUMENT, "INVALID_ARGUMENT");
	is_str(err.msg,
	    "[INVALID_HANDLE.FORMAT] The handle `b\\xff` is invalid. A user id must be valid UTF-8 without control characters. SQLSTATE: HY000",
	    "its message");
	is_int(sc_svc_check_user(SC_SVC_WRONG, "", "a", &err), -1,
	    "a token gone since");
	is_int(err.rpc_code, SC_GRPC_UNAUTHENTICATED, "UNAUTHENTICATED");
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/sctk-test-auth.%d",
	    tmp != NULL ? tmp : "/tmp", (int)getpid());
	test_ids();
	test_file();
	test_many();
	test_check_user();
	unlink(path);
	return tap_done();
}
