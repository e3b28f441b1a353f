/* SPDX-License-Identifier: MIT */

/*
 * test-session.c: the session manager of sc-serve (lib/server/session.c)
 * with a fake clock and no engine: handle format, get-or-create versus
 * get-only, per-user keys, SESSION_CHANGED, release and tombstones,
 * allow_reconnect, idle expiry, the tombstone bound, per-session conf,
 * the FetchErrorDetails cache, and the Spark error text and metadata
 * helpers of srverror.c.
 */

#include "server/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/uuid.h"
#include "server/service.h"
#include "tap.h"
#include "core/banned.h"

#define S1 "00112233-4455-6677-8899-aabbccddeeff"
#define S2 "6f1d2c3b-0000-4000-8000-000000000002"

static int64_t fake_now = 1000000;

static int64_t
fake_clock(void *arg)
{
	(void)arg;
	return fake_now;
}

static struct sc_server srv;

static struct sc_sessmgr *
setup(void)
{
	memset(&srv, 0, sizeof(srv));
	sc_server_conf_default(&srv.conf);
	srv.sessions = sc_sessmgr_new(&srv);
	sc_sessmgr_set_clock(srv.sessions, fake_clock, NULL);
	return srv.sessions;
}

static struct sc_session *
get(struct sc_sessmgr *m, const char *user, const char *sid,
    const char *observed, enum sc_sess_lookup how, struct sc_error *err)
{
	sc_error_init(err);
	return sc_sessmgr_get(m, user, sid, observed, how, err);
}

static void
test_format(void)
{
	struct sc_sessmgr *m = setup();
	struct sc_error err;

	ok(get(m, "u", "not-a-uuid", NULL, SC_SESS_GET_OR_CREATE, &err) == NULL,
	    "a session id that is not a UUID is refused");
	is_str(err.errclass, "INVALID_HANDLE.FORMAT", "FORMAT class");
	is_str(err.sqlstate, "HY000", "FORMAT sqlstate");
	is_int(err.rpc_code, SC_GRPC_INTERNAL, "Spark errors are INTERNAL");
	is_int(err.status, SC_ST_FAILED, "status FAILED");
	is_str(err.msg,
	    "[INVALID_HANDLE.FORMAT] The handle `not-a-uuid` is "
	    "invalid. Handle must be an UUID string of the format "
	    "'00112233-4455-6677-8899-aabbccddeeff' SQLSTATE: HY000",
	    "FORMAT message");
	ok(get(m, "u", "", NULL, SC_SESS_GET_ONLY, &err) == NULL,
	    "an empty session id is refused");
	is_str(err.errclass, "INVALID_HANDLE.FORMAT", "empty id: FORMAT");
	ok(get(m, "u", "00112233-4455-6677-8899-aabbccddeeff0", NULL,
	       SC_SESS_GET_OR_CREATE, &err) == NULL,
	    "37 characters refused");
	is_int(sc_sessmgr_count(m), 0, "nothing was created");
	sc_sessmgr_free(m);
}

static void
test_create(void)
{
	struct sc_sessmgr *m = setup();
	struct sc_session *a, *b, *c, *d;
	struct sc_error err;

	ok(get(m, "u", S1, NULL, SC_SESS_GET_ONLY, &err) == NULL,
	    "get-only of an unknown session fails");
	is_str(err.errclass, "INVALID_HANDLE.SESSION_NOT_FOUND",
	    "SESSION_NOT_FOUND class");
	is_str(err.msg,
	    "[INVALID_HANDLE.SESSION_NOT_FOUND] The handle `" S1
	    "` is invalid. Session not found. SQLSTATE: HY000",
	    "SESSION_NOT_FOUND message");

	a = get(m, "u", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(a != NULL, "get-or-create creates");
	is_str(a->user_id, "u", "user id kept");
	is_str(a->session_id, S1, "session id kept");
	ok(sc_uuid_valid(a->server_side_id), "server-side id is a UUID");
	ok(strcmp(a->server_side_id, S1) != 0, "server-side id is our own");
	ok(a->server == &srv, "session knows its server");
	ok(a->conn == NULL, "no engine, no connection");
	ok(!sc_session_is_closed(a), "new session is open");
	is_int(a->last_access_ms, fake_now, "last access is now");

	fake_now += 10;
	b = get(m, "u", S1, NULL, SC_SESS_GET_ONLY, &err);
	ok(b == a, "get-only finds it");
	is_int(a->last_access_ms, fake_now, "an access refreshes the timer");
	c = get(m, "v", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(c != NULL && c != a, "another user gets another session");
	ok(get(m, "w", S1, NULL, SC_SESS_GET_ONLY, &err) == NULL,
	    "a third user does not see them");
	d = get(m, NULL, S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(d != NULL && d != a && d != c, "no user is user \"\"");
	is_str(d->user_id, "", "user id empty");
	is_int(sc_sessmgr_count(m), 3, "three sessions");
	is_int(a->refs, 3, "manager + two lookups hold a");

	sc_session_unref(a);
	sc_session_unref(b);
	sc_session_unref(c);
	sc_session_unref(d);
	sc_sessmgr_free(m);
}

static void
test_changed(void)
{
	struct sc_sessmgr *m = setup();
	struct sc_session *a, *b;
	struct sc_error err;

	a = get(m, "u", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	b = get(m, "u", S1, a->server_side_id, SC_SESS_GET_ONLY, &err);
	ok(b == a, "the right observed id passes");
	sc_session_unref(b);
	ok(get(m, "u", S1, S2, SC_SESS_GET_ONLY, &err) == NULL,
	    "another observed id fails");
	is_str(err.errclass, "INVALID_HANDLE.SESSION_CHANGED",
	    "SESSION_CHANGED class");
	is_str(err.msg,
	    "[INVALID_HANDLE.SESSION_CHANGED] The handle `" S1
	    "` is invalid. The existing Spark server driver instance has "
	    "restarted. Please reconnect. SQLSTATE: HY000",
	    "SESSION_CHANGED message");
	is_int(a->refs, 2, "a failed check drops its reference");
	ok(get(m, "u", S2, S1, SC_SESS_GET_OR_CREATE, &err) == NULL,
	    "a new session with an observed id is a changed session");
	is_str(err.errclass, "INVALID_HANDLE.SESSION_CHANGED",
	    "create + observed: SESSION_CHANGED");
	sc_session_unref(a);
	sc_sessmgr_free(m);
}

static void
test_release(void)
{
	struct sc_sessmgr *m = setup();
	struct sc_session *a, *b;
	struct sc_error err;
	char ssid[SC_UUID_STRLEN], old[SC_UUID_STRLEN];

	a = get(m, "u", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	memcpy(old, a->server_side_id, sizeof(old));
	memset(ssid, 0, sizeof(ssid));
	is_int(sc_sessmgr_release(m, "u", S1, false, ssid), 1,
	    "release finds the session");
	is_str(ssid, old, "release returns the server-side id");
	ok(sc_session_is_closed(a), "the released session is closed");
	is_str(a->session_id, S1, "a held reference stays valid");
	is_int(sc_sessmgr_count(m), 0, "no sessions left");
	is_int(sc_sessmgr_tombstone_count(m), 1, "one tombstone");

	ok(get(m, "u", S1, NULL, SC_SESS_GET_OR_CREATE, &err) == NULL,
	    "get-or-create of a released session fails");
	is_str(err.msg,
	    "[INVALID_HANDLE.SESSION_CLOSED] The handle `" S1
	    "` is invalid. Session was closed. SQLSTATE: HY000",
	    "SESSION_CLOSED message");
	ok(get(m, "u", S1, NULL, SC_SESS_GET_ONLY, &err) == NULL,
	    "get-only of a released session fails");
	is_str(err.errclass, "INVALID_HANDLE.SESSION_CLOSED",
	    "get-only: SESSION_CLOSED rather than NOT_FOUND");
	b = get(m, "v", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(b != NULL, "the same id of another user is not closed");
	sc_session_unref(b);

	is_int(sc_sessmgr_release(m, "u", S1, false, ssid), 0,
	    "releasing again is a no-op");
	is_int(sc_sessmgr_release(m, "u", S2, false, ssid), 0,
	    "releasing an unknown session is a no-op");
	is_int(sc_sessmgr_tombstone_count(m), 1,
	    "an unknown session leaves no tombstone");
	sc_session_unref(a);
	sc_sessmgr_free(m);
}

static void
test_reconnect(void)
{
	struct sc_sessmgr *m = setup();
	struct sc_session *a, *b;
	struct sc_error err;
	char ssid[SC_UUID_STRLEN], old[SC_UUID_STRLEN];

	a = get(m, "u", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	memcpy(old, a->server_side_id, sizeof(old));
	sc_session_unref(a);
	is_int(sc_sessmgr_release(m, "u", S1, true, ssid), 1,
	    "release with allow_reconnect");
	is_int(sc_sessmgr_tombstone_count(m), 0, "no tombstone");
	ok(get(m, "u", S1, NULL, SC_SESS_GET_ONLY, &err) == NULL,
	    "get-only after reconnectable release fails");
	is_str(err.errclass, "INVALID_HANDLE.SESSION_NOT_FOUND",
	    "it is simply not found");
	b = get(m, "u", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(b != NULL, "get-or-create makes a new session");
	ok(strcmp(b->server_side_id, old) != 0,
	    "the new session has a new server-side id");
	ok(get(m, "u", S1, old, SC_SESS_GET_ONLY, &err) == NULL,
	    "the old server-side id is now a changed session");
	sc_session_unref(b);
	sc_sessmgr_free(m);
}

static void
test_expiry(void)
{
	struct sc_sessmgr *m = setup();
	struct sc_session *a, *b;
	struct sc_error err;

	srv.conf.session_timeout_ms = 1000;
	a = get(m, "u", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	b = get(m, "u", S2, NULL, SC_SESS_GET_OR_CREATE, &err);
	sc_session_unref(b);
	fake_now += 999;
	is_int(sc_sessmgr_maintain(m), 0, "nothing idle after 999 ms");
	sc_session_unref(get(m, "u", S1, NULL, SC_SESS_GET_ONLY, &err));
	fake_now += 1;
	is_int(sc_sessmgr_maintain(m), 1, "S2 expires after 1000 ms");
	ok(!sc_session_is_closed(a), "the refreshed session stays");
	ok(get(m, "u", S2, NULL, SC_SESS_GET_OR_CREATE, &err) == NULL,
	    "an expired session is closed");
	is_str(err.errclass, "INVALID_HANDLE.SESSION_CLOSED",
	    "expiry leaves a tombstone");
	fake_now += 998;
	is_int(sc_sessmgr_maintain(m), 0, "S1 idle for 999 ms");
	fake_now += 2;
	is_int(sc_sessmgr_maintain(m), 1, "S1 idle for 1001 ms expires");
	ok(sc_session_is_closed(a), "the held session is marked closed");
	is_int(sc_sessmgr_count(m), 0, "no sessions left");
	sc_session_unref(a);

	srv.conf.session_timeout_ms = -1;
	a = get(m, "x", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	sc_session_unref(a);
	fake_now += 100LL * 24 * 3600 * 1000;
	is_int(sc_sessmgr_maintain(m), 0, "timeout -1: never expires");
	is_int(sc_sessmgr_count(m), 1, "the session is still there");
	sc_sessmgr_free(m);
}

static void
test_tombstone_bound(void)
{
	struct sc_sessmgr *m = setup();
	struct sc_session *s;
	struct sc_error err;
	char ids[5][SC_UUID_STRLEN], ssid[SC_UUID_STRLEN];
	int i;

	srv.conf.closed_session_tombstones = 3;
	for (i = 0; i < 5; i++) {
		snprintf(ids[i], sizeof(ids[i]),
		    "00000000-0000-4000-8000-00000000000%c", '0' + i);
		sc_session_unref(
		    get(m, "u", ids[i], NULL, SC_SESS_GET_OR_CREATE, &err));
		sc_sessmgr_release(m, "u", ids[i], false, ssid);
	}
	is_int(sc_sessmgr_tombstone_count(m), 3, "tombstones are bounded");
	s = get(m, "u", ids[0], NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(s != NULL, "the oldest tombstone was dropped");
	sc_session_unref(s);
	ok(get(m, "u", ids[2], NULL, SC_SESS_GET_OR_CREATE, &err) == NULL,
	    "a recent tombstone holds");
	ok(get(m, "u", ids[4], NULL, SC_SESS_GET_ONLY, &err) == NULL,
	    "the newest tombstone holds");
	is_str(err.errclass, "INVALID_HANDLE.SESSION_CLOSED", "still closed");

	/* A hit refreshes a tombstone: ids[2] was just used, ids[3] not. */
	sc_sessmgr_release(m, "u", ids[0], false, ssid);
	s = get(m, "u", ids[3], NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(s != NULL, "the least recently used tombstone goes first");
	sc_session_unref(s);
	ok(get(m, "u", ids[2], NULL, SC_SESS_GET_ONLY, &err) == NULL,
	    "a recently hit tombstone is kept");

	srv.conf.closed_session_tombstones = 1;
	sc_sessmgr_maintain(m);
	is_int(sc_sessmgr_tombstone_count(m), 1,
	    "maintenance applies a lowered bound");
	sc_sessmgr_free(m);
}

static int conf_n;
static char conf_seen[256];

static void
conf_cb(const char *key, const char *value, void *arg)
{
	struct sc_session *s = arg;
	size_t n = strlen(conf_seen);

	/* each works on a snapshot, so calling back into s is allowed. */
	sc_session_conf_set(s, "z.added", "1");
	snprintf(conf_seen + n, sizeof(conf_seen) - n, "%s=%s;", key, value);
	conf_n++;
}

static void
test_conf(void)
{
	struct sc_sessmgr *m = setup();
	struct sc_session *s;
	struct sc_error err;
	char *v;

	s = get(m, "u", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(sc_session_conf_get(s, "a") == NULL, "unset key is NULL");
	sc_session_conf_set(s, "spark.b", "2");
	sc_session_conf_set(s, "spark.a", "1");
	sc_session_conf_set(s, "spark.c", "3");
	sc_session_conf_set(s, "spark.a", "one");
	v = sc_session_conf_get(s, "spark.a");
	is_str(v, "one", "set replaces");
	free(v);
	ok(sc_session_conf_unset(s, "spark.b"), "unset finds the key");
	ok(!sc_session_conf_unset(s, "spark.b"), "unset twice: not there");
	conf_n = 0;
	conf_seen[0] = '\0';
	sc_session_conf_each(s, conf_cb, s);
	is_int(conf_n, 2, "each sees two entries");
	is_str(conf_seen, "spark.a=one;spark.c=3;", "each in key order");
	v = sc_session_conf_get(s, "z.added");
	is_str(v, "1", "a set from inside each took effect");
	free(v);
	sc_session_unref(s);
	s = get(m, "v", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(sc_session_conf_get(s, "spark.a") == NULL, "conf is per session");
	sc_session_unref(s);
	sc_sessmgr_free(m);
}

static void
test_errors_cache(void)
{
	struct sc_sessmgr *m = setup();
	struct sc_session *s;
	struct sc_error e, out;
	char id[SC_UUID_STRLEN], first[SC_UUID_STRLEN];
	char last[SC_UUID_STRLEN];
	int i;

	s = get(m, "u", S1, NULL, SC_SESS_GET_OR_CREATE, &e);
	sc_srv_error(&e, "TABLE_OR_VIEW_NOT_FOUND", "42P01",
	    "The table or view `t` cannot be found.");
	is_int(sc_session_error_put(s, &e, id), 0, "put stores an error");
	ok(sc_uuid_valid(id), "the error id is a UUID");
	is_int(sc_session_error_take(s, id, &out), 0, "take finds it");
	is_str(out.msg, e.msg, "message kept");
	is_str(out.errclass, "TABLE_OR_VIEW_NOT_FOUND", "class kept");
	is_str(out.sqlstate, "42P01", "sqlstate kept");
	is_int(sc_session_error_take(s, id, &out), -1,
	    "an entry is removed after one fetch");
	is_int(sc_session_error_take(s, "nope", &out), -1, "unknown id");

	sc_session_error_put(s, &e, id);
	fake_now += 59999;
	sc_session_error_put(s, &e, last);
	fake_now += 1;
	is_int(sc_session_error_take(s, id, &out), -1,
	    "an entry expires 60 s after it was stored");
	is_int(sc_session_error_take(s, last, &out), 0,
	    "a younger entry is still there");

	for (i = 0; i < SC_SESSION_MAX_ERRORS + 1; i++) {
		fake_now++;
		sc_session_error_put(s, &e, i == 0 ? first : last);
	}
	is_int(sc_session_error_take(s, first, &out), -1,
	    "the oldest of 21 entries was evicted");
	is_int(sc_session_error_take(s, last, &out), 0, "the newest is kept");
	sc_session_unref(s);
	sc_sessmgr_free(m);
}

static void
test_srv_error(void)
{
	struct sc_error e;
	const char *const *classes;
	const char *name;
	char value[256], big[2000];

	is_int(sc_srv_error(&e, "SQL_CONF_NOT_FOUND", "42K0I",
		   "The SQL config \"%s\" cannot be found.", "x.y"),
	    -1, "sc_srv_error returns -1");
	is_str(e.msg,
	    "[SQL_CONF_NOT_FOUND] The SQL config \"x.y\" cannot be "
	    "found. SQLSTATE: 42K0I",
	    "message format");
	is_int(e.retry_delay_ms, -1, "no retry delay");
	ok(sc_srv_error_param(&e, &name, value, sizeof(value)),
	    "SQL_CONF_NOT_FOUND has a parameter");
	is_str(name, "sqlConf", "parameter name sqlConf");
	is_str(value, "\"x.y\"", "parameter keeps Spark's quotes");
	classes = sc_srv_error_classes(&e);
	is_str(classes[0], "org.apache.spark.SparkNoSuchElementException",
	    "reason for SQL_CONF_NOT_FOUND");

	sc_srv_error(&e, "INVALID_HANDLE.SESSION_CLOSED", "HY000",
	    "The handle `%s` is invalid. Session was closed.", S1);
	ok(sc_srv_error_param(&e, &name, value, sizeof(value)),
	    "INVALID_HANDLE has a parameter");
	is_str(name, "handle", "parameter name handle");
	is_str(value, S1, "handle without backquotes");
	classes = sc_srv_error_classes(&e);
	is_str(classes[0], "org.apache.spark.SparkSQLException",
	    "INVALID_HANDLE is a SparkSQLException");
	is_str(classes[1], "java.sql.SQLException", "then SQLException");
	is_str(classes[4], "java.lang.Object", "ending with Object");
	ok(classes[5] == NULL, "five classes");

	sc_srv_error(&e, "PARSE_SYNTAX_ERROR", "42601", "Syntax error.");
	is_str(sc_srv_error_classes(&e)[0],
	    "org.apache.spark.sql.catalyst.parser.ParseException",
	    "parse errors are ParseExceptions");
	ok(!sc_srv_error_param(&e, &name, value, sizeof(value)),
	    "no parameter known for PARSE_SYNTAX_ERROR");
	sc_srv_error(&e, "SOMETHING_ELSE", "", "Plain.");
	is_str(e.msg, "[SOMETHING_ELSE] Plain.", "no sqlstate, no suffix");
	is_str(sc_srv_error_classes(&e)[0], "org.apache.spark.SparkException",
	    "unknown classes are SparkExceptions");

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	sc_srv_error(&e, "OPERATION_CANCELED", "HY008", "%s", big);
	is_int(strlen(e.msg), sizeof(e.msg) - 1, "a long message fills msg");
	ok(strstr(e.msg, "a... SQLSTATE: HY008") != NULL,
	    "a cut message ends with ... and keeps the SQLSTATE");
	ok(strncmp(e.msg, "[OPERATION_CANCELED] aaa", 24) == 0,
	    "and keeps the class");
}

int
main(void)
{
	test_format();
	test_create();
	test_changed();
	test_release();
	test_reconnect();
	test_expiry();
	test_tombstone_bound();
	test_conf();
	test_errors_cache();
	test_srv_error();
	return tap_done();
}
