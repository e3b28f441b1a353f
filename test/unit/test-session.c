/* SPDX-License-Identifier: MIT */

/*
 * test-session.c: the session manager of sc-serve (lib/server/session.c)
 * with a fake clock and no engine: handle format, get-or-create versus
 * get-only, per-user keys, SESSION_CHANGED, release and tombstones,
 * allow_reconnect, idle expiry, the tombstone bound, the caps on
 * sessions in total and per user, per-session conf and its limits, the
 * engine connection opened on first use, the FetchErrorDetails cache,
 * and the Spark error text and metadata helpers of srverror.c.
 */

#include "server/session.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "core/uuid.h"
#include "engine/engine.h"
#include "server/service.h"
#include "tap.h"
#include "core/banned.h"

#define S1 "00112233-4455-6677-8899-aabbccddeeff"
#define S2 "6f1d2c3b-0000-4000-8000-000000000002"

/* Atomic: the maintenance thread reads it too. */
static _Atomic int64_t fake_now = 1000000;

static int64_t
fake_clock(void *arg)
{
	(void)arg;
	return fake_now;
}

static struct sc_server srv;

/* A manager with the default settings and engine (NULL: none). */
static struct sc_sessmgr *
setup_with(struct sc_engine *engine)
{
	memset(&srv, 0, sizeof(srv));
	sc_server_conf_default(&srv.conf);
	srv.engine = engine;
	srv.sessions = sc_sessmgr_new(&srv.conf, engine);
	sc_sessmgr_set_clock(srv.sessions, fake_clock, NULL);
	return srv.sessions;
}

static struct sc_sessmgr *
setup(void)
{
	return setup_with(NULL);
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
	ok(a->conf == &srv.conf, "session knows the server's settings");
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
	sc_session_conf_set(s, "z.added", "1", NULL);
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
	is_int(sc_session_conf_set(s, "spark.b", "2", &err), 0, "set");
	sc_session_conf_set(s, "spark.a", "1", NULL);
	sc_session_conf_set(s, "spark.c", "3", NULL);
	sc_session_conf_set(s, "spark.a", "one", NULL);
	is_int(sc_session_conf_count(s), 3, "three keys");
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

/* A session id that differs in its last digits. */
static const char *
sid(unsigned n)
{
	static char buf[SC_UUID_STRLEN];

	snprintf(buf, sizeof(buf), "6f1d2c3b-0000-4000-8000-%012x", n);
	return buf;
}

static void
test_caps(void)
{
	struct sc_sessmgr *m = setup();
	struct sc_session *s, *held[5];
	struct sc_error err;
	char ssid[SC_UUID_STRLEN];
	unsigned i;

	/* Sessions someone holds are never closed to make room. */
	srv.conf.max_sessions = 5;
	srv.conf.max_user_sessions = 3;
	for (i = 0; i < 3; i++) {
		held[i] =
		    get(m, "alice", sid(i), NULL, SC_SESS_GET_OR_CREATE, &err);
		ok(held[i] != NULL, "alice's session %u is created", i);
	}
	is_int(sc_sessmgr_user_count(m, "alice"), 3, "alice has three");
	ok(get(m, "alice", sid(3), NULL, SC_SESS_GET_OR_CREATE, &err) == NULL,
	    "a fourth session of alice is refused");
	is_str(err.errclass, "SESSION_LIMIT_EXCEEDED.USER", "USER class");
	is_str(err.sqlstate, "53300", "sqlstate 53300");
	is_int(err.rpc_code, SC_GRPC_RESOURCE_EXHAUSTED,
	    "status RESOURCE_EXHAUSTED");
	is_str(err.msg,
	    "[SESSION_LIMIT_EXCEEDED.USER] Cannot create a new session: "
	    "this user already has 3 sessions, the limit per user "
	    "(sctk.session.maxSessionsPerUser). Release sessions that are "
	    "no longer used, or retry when idle ones have expired. "
	    "SQLSTATE: 53300",
	    "USER message");
	s = get(m, "alice", sid(1), NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(s != NULL, "an existing session of alice is still found");
	sc_session_unref(s);

	for (i = 10; i < 12; i++) {
		held[i - 7] =
		    get(m, "bob", sid(i), NULL, SC_SESS_GET_OR_CREATE, &err);
		ok(held[i - 7] != NULL, "bob's session %u is created", i);
	}
	is_int(sc_sessmgr_count(m), 5, "five sessions in all");
	ok(get(m, "carol", sid(20), NULL, SC_SESS_GET_OR_CREATE, &err) == NULL,
	    "a sixth session is refused, whoever asks");
	is_str(err.errclass, "SESSION_LIMIT_EXCEEDED.SERVER", "SERVER class");
	is_int(err.rpc_code, SC_GRPC_RESOURCE_EXHAUSTED,
	    "SERVER: RESOURCE_EXHAUSTED");
	ok(strstr(err.msg,
	       "the server already has 5 sessions, its limit "
	       "(sctk.session.maxSessions)") != NULL,
	    "SERVER message names the count and the setting");
	is_int(sc_sessmgr_user_count(m, "carol"), 0, "carol has none");
	is_int(sc_sessmgr_count(m), 5, "a refusal creates nothing");
	is_int((int64_t)sc_sessmgr_evicted(m), 0, "nothing was evicted");

	is_int(sc_sessmgr_release(m, "bob", sid(10), false, ssid), 1,
	    "release one of bob's");
	sc_session_unref(held[3]);
	is_int(sc_sessmgr_user_count(m, "bob"), 1, "bob has one left");
	s = get(m, "carol", sid(20), NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(s != NULL, "a released session frees a place");
	sc_session_unref(s);

	for (i = 0; i < 5; i++)
		if (i != 3)
			sc_session_unref(held[i]);
	srv.conf.session_timeout_ms = 1000;
	fake_now += 1000;
	is_int(sc_sessmgr_maintain(m), 5, "all five expire");
	is_int(sc_sessmgr_user_count(m, "alice"), 0, "expiry counts out");
	s = get(m, "alice", sid(5), NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(s != NULL, "alice may create sessions again");
	sc_session_unref(s);
	sc_sessmgr_free(m);
}

/* The keep hook of test_evict: the session S2 of "kept" has artifacts. */
static bool
keep_s2(struct sc_session *s, void *arg)
{
	(*(int *)arg)++;
	return strcmp(s->user_id, "kept") == 0 &&
	    strcmp(s->session_id, S2) == 0;
}

static void
test_evict(void)
{
	struct sc_sessmgr *m = setup();
	struct sc_session *s, *busy;
	struct sc_error err;
	char old[SC_UUID_STRLEN];
	int asked = 0;
	unsigned i;

	srv.conf.max_sessions = 6;
	srv.conf.max_user_sessions = 3;
	sc_sessmgr_set_keep(m, keep_s2, &asked);

	/* One user's flood: its own least recently used session makes room. */
	for (i = 0; i < 10; i++) {
		fake_now += 10;
		s = get(m, "flood", sid(i), NULL, SC_SESS_GET_OR_CREATE, &err);
		ok(s != NULL, "flood's fresh session %u is created", i);
		sc_session_unref(s);
	}
	is_int(sc_sessmgr_user_count(m, "flood"), 3,
	    "flood keeps its cap of three");
	is_int((int64_t)sc_sessmgr_evicted(m), 7, "seven were closed");
	is_int(sc_sessmgr_tombstone_count(m), 0, "without tombstones");
	s = get(m, "flood", sid(9), NULL, SC_SESS_GET_ONLY, &err);
	ok(s != NULL, "the newest one is still there");
	sc_session_unref(s);
	ok(get(m, "flood", sid(0), NULL, SC_SESS_GET_ONLY, &err) == NULL,
	    "the oldest one is gone");
	is_str(err.errclass, "INVALID_HANDLE.SESSION_NOT_FOUND",
	    "an evicted id is not tombstoned");

	/* Sessions that hold something stay. */
	fake_now += 10;
	busy = get(m, "alice", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(busy != NULL, "alice's session is created (kept referenced)");
	fake_now += 10;
	s = get(m, "bob", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(s != NULL && sc_session_conf_set(s, "k", "v", &err) == 0,
	    "bob's session holds a setting");
	memcpy(old, s->server_side_id, sizeof(old));
	sc_session_unref(s);
	fake_now += 10;
	s = get(m, "kept", S2, NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(s != NULL, "kept's session (with artifacts) is created");
	sc_session_unref(s);
	is_int(sc_sessmgr_count(m), 6, "the table is full");
	is_int(sc_sessmgr_user_count(m, "flood"), 3, "flood still has three");

	/* A full table: anyone's idle, empty sessions make room. */
	for (i = 0; i < 3; i++) {
		fake_now += 10;
		s = get(m, "legit", sid(100 + i), NULL, SC_SESS_GET_OR_CREATE,
		    &err);
		ok(s != NULL, "legit's session %u is created", i);
		sc_session_unref(s);
	}
	is_int(sc_sessmgr_user_count(m, "flood"), 0,
	    "flood's empty sessions were closed for legit");
	ok(asked > 0, "the keep hook was asked");
	s = get(m, "bob", S1, NULL, SC_SESS_GET_ONLY, &err);
	ok(s != NULL && strcmp(s->server_side_id, old) == 0,
	    "bob's session with a setting was kept");
	sc_session_unref(s);
	s = get(m, "kept", S2, NULL, SC_SESS_GET_ONLY, &err);
	ok(s != NULL, "kept's session with artifacts was kept");
	sc_session_unref(s);
	sc_sessmgr_free(m);
	sc_session_unref(busy);

	/* Nothing to close: the table is full of sessions that hold state. */
	m = setup();
	srv.conf.max_sessions = 2;
	sc_sessmgr_set_keep(m, keep_s2, &asked);
	busy = get(m, "alice", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	s = get(m, "kept", S2, NULL, SC_SESS_GET_OR_CREATE, &err);
	sc_session_unref(s);
	ok(get(m, "legit", sid(7), NULL, SC_SESS_GET_OR_CREATE, &err) == NULL,
	    "a held session and one with artifacts are not closed");
	is_str(err.errclass, "SESSION_LIMIT_EXCEEDED.SERVER",
	    "then the SERVER limit applies");
	s = get(m, "kept", S2, NULL, SC_SESS_GET_ONLY, &err);
	ok(s != NULL, "the session with artifacts is still there");
	sc_session_unref(s);
	sc_session_unref(busy);
	s = get(m, "legit", sid(7), NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(s != NULL, "once alice's call ends, her empty session makes room");
	sc_session_unref(s);
	ok(get(m, "alice", S1, NULL, SC_SESS_GET_ONLY, &err) == NULL,
	    "alice's session was the one closed");
	sc_sessmgr_free(m);
}

/* Count entries; note the first four keys in conf_seen. */
static void
count_cb(const char *key, const char *value, void *arg)
{
	size_t n = strlen(conf_seen);

	(void)value;
	(void)arg;
	if (conf_n++ < 4)
		snprintf(conf_seen + n, sizeof(conf_seen) - n, "%s,", key);
}

/* Replace key's value with value: true when that worked. */
static bool
unset_and_set(struct sc_session *s, const char *key, const char *value)
{
	struct sc_error err;
	bool was = sc_session_conf_unset(s, key);

	return was && sc_session_conf_set(s, key, value, &err) == 0;
}

static void
test_conf_limits(void)
{
	struct sc_sessmgr *m = setup();
	struct sc_session *s;
	struct sc_error err;
	const char *keys[4], *values[4];
	char key[64], *big, *v;
	int i, n, rc;

	srv.conf.conf_max_keys = 3;
	srv.conf.conf_max_key_size = 8;
	srv.conf.conf_max_value_size = 10;
	srv.conf.conf_max_bytes = 32;
	s = get(m, "u", S1, NULL, SC_SESS_GET_OR_CREATE, &err);

	is_int(sc_session_conf_set(s, "k1", "0123456789", &err), 0,
	    "a value of the largest size is accepted");
	is_int(sc_session_conf_set(s, "k1", "0123456789a", &err), -1,
	    "a value one byte larger is refused");
	is_str(err.errclass, "SESSION_CONF_LIMIT_EXCEEDED.VALUE_SIZE",
	    "VALUE_SIZE class");
	is_str(err.sqlstate, "54000", "sqlstate 54000");
	is_int(err.rpc_code, SC_GRPC_RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED");
	is_str(err.msg,
	    "[SESSION_CONF_LIMIT_EXCEEDED.VALUE_SIZE] The value for \"k1\" "
	    "is 11 bytes long; values of at most 10 bytes are allowed "
	    "(sctk.session.maxConfValueSize). SQLSTATE: 54000",
	    "VALUE_SIZE message");
	v = sc_session_conf_get(s, "k1");
	is_str(v, "0123456789", "the refused value did not replace the old");
	free(v);
	is_int(sc_session_conf_set(s, "12345678", "x", &err), 0,
	    "a key of the largest size is accepted");
	is_int(sc_session_conf_set(s, "123456789", "x", &err), -1,
	    "a key one byte longer is refused");
	is_str(err.errclass, "SESSION_CONF_LIMIT_EXCEEDED.KEY_SIZE",
	    "KEY_SIZE class");
	ok(strstr(err.msg, "9 bytes long; keys of at most 8 bytes") != NULL,
	    "KEY_SIZE message gives both sizes");

	/* k1 and 12345678 are set: one more key fits, two do not. */
	keys[0] = "k2";
	values[0] = "a";
	keys[1] = "k3";
	values[1] = "b";
	is_int(sc_session_conf_set_many(s, keys, values, 2, &err), -1,
	    "a batch that would make four keys is refused");
	is_str(err.errclass, "SESSION_CONF_LIMIT_EXCEEDED.KEY_COUNT",
	    "KEY_COUNT class");
	is_str(err.msg,
	    "[SESSION_CONF_LIMIT_EXCEEDED.KEY_COUNT] The session would hold "
	    "4 settings; at most 3 are allowed (sctk.session.maxConfKeys). "
	    "SQLSTATE: 54000",
	    "KEY_COUNT message");
	ok(sc_session_conf_get(s, "k2") == NULL, "and sets none of it");
	keys[1] = "k2";
	values[1] = "c";
	keys[2] = "k1";
	values[2] = "z";
	is_int(sc_session_conf_set_many(s, keys, values, 3, &err), 0,
	    "a repeated key and a replaced key count once");
	v = sc_session_conf_get(s, "k2");
	is_str(v, "c", "the last value of a repeated key wins");
	free(v);
	is_int(sc_session_conf_count(s), 3, "three keys");

	/* k1=z, 12345678=x, k2=c: 15 bytes of 32. */
	is_int(sc_session_conf_set(s, "k2", "0123456789", &err), 0,
	    "replacing a value within the total is fine");
	rc = sc_session_conf_set(s, "k1", "0123456789", &err);
	is_int(rc, -1, "a value that passes the total is refused");
	is_str(err.errclass, "SESSION_CONF_LIMIT_EXCEEDED.TOTAL_SIZE",
	    "TOTAL_SIZE class");
	ok(strstr(err.msg, "would take 33 bytes; at most 32") != NULL,
	    "TOTAL_SIZE message: %s", err.msg);
	ok(sc_session_conf_unset(s, "k2"), "unset frees room");
	is_int(sc_session_conf_set(s, "k1", "0123456789", &err), 0,
	    "then it fits");

	is_int(sc_session_conf_check_count(&srv.conf, 3, &err), 0,
	    "a request with three keys is fine");
	is_int(sc_session_conf_check_count(&srv.conf, 4, &err), -1,
	    "a request with four keys is not");
	is_str(err.msg,
	    "[SESSION_CONF_LIMIT_EXCEEDED.KEY_COUNT] The request names 4 "
	    "keys; a session holds at most 3 settings "
	    "(sctk.session.maxConfKeys). SQLSTATE: 54000",
	    "request KEY_COUNT message");

	/* The defaults: 10000 keys, values up to 64 KiB. */
	sc_server_conf_default(&srv.conf);
	n = 10000 - (int)sc_session_conf_count(s);
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "spark.k%05d", n - i);
		if (sc_session_conf_set(s, key, "v", &err) == -1)
			break;
	}
	is_int(i, n, "10000 keys fit with the defaults");
	is_int(sc_session_conf_set(s, "one.more", "v", &err), -1,
	    "the 10001st is refused");
	is_str(err.errclass, "SESSION_CONF_LIMIT_EXCEEDED.KEY_COUNT",
	    "KEY_COUNT at 10000");
	conf_n = 0;
	conf_seen[0] = '\0';
	sc_session_conf_each(s, count_cb, NULL);
	is_int(conf_n, 10000, "each lists 10000 entries");
	is_str(conf_seen, "12345678,k1,spark.k00001,spark.k00002,",
	    "in key order");
	big = malloc(64 * 1024 + 2);
	memset(big, 'v', 64 * 1024 + 1);
	big[64 * 1024 + 1] = '\0';
	is_int(sc_session_conf_set(s, "k1", big, &err), -1,
	    "a value of 64 KiB + 1 is refused by default");
	big[64 * 1024] = '\0';
	ok(unset_and_set(s, "k1", big), "a value of 64 KiB is accepted");
	free(big);
	sc_session_unref(s);
	sc_sessmgr_free(m);
}

/* What the close hooks saw. */
struct seen {
	int calls;
	bool all_closed; /* every session was closed when seen */
	char last[64];
	char order[16]; /* hook letters, in call order */
};

static struct seen seen;

static void
hook_a(struct sc_session *s, void *arg)
{
	size_t n = strlen(seen.order);

	seen.calls++;
	if (!sc_session_is_closed(s))
		seen.all_closed = false;
	snprintf(seen.last, sizeof(seen.last), "%s", s->session_id);
	if (n + 1 < sizeof(seen.order))
		seen.order[n] = *(const char *)arg;
}

static void
test_close_hooks(void)
{
	struct sc_sessmgr *m = setup();
	struct sc_session *a;
	struct sc_error err;
	char ssid[SC_UUID_STRLEN], la = 'a', lb = 'b';

	memset(&seen, 0, sizeof(seen));
	seen.all_closed = true;
	sc_sessmgr_on_close(m, hook_a, &la);
	sc_sessmgr_on_close(m, hook_a, &lb);
	a = get(m, "u", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	sc_session_unref(a);
	is_int(seen.calls, 0, "no hook while the session lives");
	is_int(sc_sessmgr_release(m, "u", S1, false, ssid), 1, "release");
	is_int(seen.calls, 2, "release calls each hook once");
	is_str(seen.order, "ab", "hooks run in the order registered");
	is_str(seen.last, S1, "with the released session");
	is_int(sc_sessmgr_release(m, "u", S1, false, ssid), 0,
	    "a second release finds nothing");
	is_int(seen.calls, 2, "and calls no hook");

	srv.conf.session_timeout_ms = 1000;
	a = get(m, "u", S2, NULL, SC_SESS_GET_OR_CREATE, &err);
	sc_session_unref(a);
	fake_now += 1000;
	is_int(sc_sessmgr_maintain(m), 1, "an idle session expires");
	is_int(seen.calls, 4, "expiry calls the hooks");
	is_str(seen.last, S2, "with the expired session");

	a = get(m, "v", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	sc_session_unref(a);
	sc_sessmgr_close_all(m);
	is_int(seen.calls, 6, "close_all calls the hooks");
	ok(seen.all_closed, "every session was marked closed before its hooks");
	sc_sessmgr_free(m);
	is_int(seen.calls, 6, "free after close_all calls no more hooks");
}

/* Wait up to 10 s for m to hold n sessions. */
static bool
wait_count(struct sc_sessmgr *m, size_t n)
{
	int64_t end = sc_mono_ms() + 10000;
	struct timespec ms = { 0, 1000000L };

	while (sc_sessmgr_count(m) != n && sc_mono_ms() < end)
		nanosleep(&ms, NULL);
	return sc_sessmgr_count(m) == n;
}

/* The manager's own thread expires idle sessions; stop ends it. */
static void
test_maintenance_thread(void)
{
	struct sc_sessmgr *m = setup();
	struct sc_session *a;
	struct sc_error err;
	struct timespec pause = { 0, 100000000L };

	srv.conf.session_timeout_ms = 1000;
	srv.conf.session_maintenance_ms = 10;
	a = get(m, "u", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	sc_session_unref(a);
	is_int(sc_sessmgr_start(m, &err), 0, "the maintenance thread starts");
	is_int(sc_sessmgr_start(m, &err), 0, "starting it again is a no-op");
	nanosleep(&pause, NULL);
	is_int(sc_sessmgr_count(m), 1, "a session not idle long enough stays");
	fake_now += 1000;
	ok(wait_count(m, 0), "the thread closes the idle session by itself");
	is_int(sc_sessmgr_tombstone_count(m), 1, "and tombstones it");
	sc_sessmgr_stop(m);
	sc_sessmgr_stop(m); /* a second stop is a no-op */
	a = get(m, "u", S2, NULL, SC_SESS_GET_OR_CREATE, &err);
	sc_session_unref(a);
	fake_now += 1000;
	nanosleep(&pause, NULL);
	is_int(sc_sessmgr_count(m), 1, "after stop nothing expires sessions");
	is_int(sc_sessmgr_start(m, &err), 0, "it starts again after stop");
	ok(wait_count(m, 0), "and expires again");
	sc_sessmgr_free(m);
}

static void
test_lazy(void)
{
	struct sc_sessmgr *m;
	struct sc_session *s;
	struct sc_engine_conn *c;
	struct sc_engine *engine;
	struct sc_error err, e, got;
	char id[SC_UUID_STRLEN];

	engine = sc_engine_new(NULL, &err);
	ok(engine != NULL, "an in-memory engine");
	m = setup_with(engine);
	s = get(m, "u", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(s->conn == NULL, "a new session has no engine connection");
	ok(sc_session_error_take(s, S2, &got) == -1, "nor a cached error");
	c = sc_session_conn(s, &err);
	ok(c != NULL && s->conn == c, "the first use opens the connection");
	ok(sc_session_conn(s, &err) == c, "later uses get the same one");
	sc_srv_error(&e, "X", "", "x");
	sc_session_error_put(s, &e, id);
	ok(sc_session_error_take(s, id, &got) == 0 &&
		strcmp(got.errclass, "X") == 0,
	    "the first error is kept");
	sc_session_unref(s);
	sc_sessmgr_free(m);
	sc_engine_free(engine);

	m = setup();
	s = get(m, "u", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(sc_session_conn(s, &err) == NULL, "no engine, no connection");
	is_str(err.msg, "no SQL engine for this session", "and why");
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
	/* As Spark 4.3's ErrorInfo "classes" show them. */
	sc_srv_error(&e, "DIVIDE_BY_ZERO", "22012", "Division by zero.");
	classes = sc_srv_error_classes(&e);
	is_str(classes[0], "org.apache.spark.SparkArithmeticException",
	    "DIVIDE_BY_ZERO is a SparkArithmeticException");
	is_str(classes[1], "java.lang.ArithmeticException",
	    "then ArithmeticException (PySpark's class)");
	sc_srv_error(&e, "UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703", "x");
	is_str(sc_srv_error_classes(&e)[0],
	    "org.apache.spark.sql.catalyst.ExtendedAnalysisException",
	    "the longest prefix wins: UNRESOLVED_COLUMN, not UNRESOLVED_");
	is_str(sc_srv_error_classes(&e)[1],
	    "org.apache.spark.sql.AnalysisException", "then AnalysisException");
	sc_srv_error(&e, "UNRESOLVED_ROUTINE", "42883", "x");
	is_str(sc_srv_error_classes(&e)[0],
	    "org.apache.spark.sql.AnalysisException",
	    "UNRESOLVED_ROUTINE is a plain AnalysisException");
	sc_srv_error(&e, "AMBIGUOUS_REFERENCE", "42704", "x");
	is_str(sc_srv_error_classes(&e)[0],
	    "org.apache.spark.sql.AnalysisException",
	    "AMBIGUOUS_REFERENCE is an AnalysisException");
	sc_srv_error(&e, "INVALID_ARRAY_INDEX_IN_ELEMENT_AT", "22003", "x");
	is_str(sc_srv_error_classes(&e)[0],
	    "org.apache.spark.SparkArrayIndexOutOfBoundsException",
	    "an array index out of bounds");
	sc_srv_error(&e, "CAST_INVALID_INPUT", "22018",
	    "The value 'x' of the type \"STRING\" cannot be cast to \"INT\"");
	is_str(sc_srv_error_classes(&e)[0],
	    "org.apache.spark.SparkNumberFormatException",
	    "a bad number is a SparkNumberFormatException");
	sc_srv_error(&e, "CAST_INVALID_INPUT", "22018",
	    "The value 'x' of the type \"STRING\" cannot be cast to \"DATE\"");
	is_str(sc_srv_error_classes(&e)[0],
	    "org.apache.spark.SparkDateTimeException",
	    "a bad date is a SparkDateTimeException");
	sc_srv_error(&e, "UNSUPPORTED_FEATURE.DROP_DATABASE", "0A000", "x");
	is_str(sc_srv_error_classes(&e)[0],
	    "org.apache.spark.sql.AnalysisException",
	    "dropping the default database is an AnalysisException");
	sc_srv_error(&e, "SOMETHING_ELSE", "", "Plain.");
	is_str(e.msg, "[SOMETHING_ELSE] Plain.", "no sqlstate, no suffix");
	is_str(sc_srv_error_classes(&e)[0], "org.apache.spark.SparkException",
	    "unknown classes are SparkExceptions");
	sc_srv_error(&e, NULL, NULL, SC_SRV_REQUIREMENT "Support %d.", 0);
	is_str(e.msg, "requirement failed: Support 0.", "a require() text");
	is_str(e.errclass, "", "a require() has no error class");
	classes = sc_srv_error_classes(&e);
	is_str(classes[0], "java.lang.IllegalArgumentException",
	    "a require() is an IllegalArgumentException");
	is_str(classes[1], "java.lang.RuntimeException", "then Runtime");
	sc_srv_error(&e, NULL, NULL, "Other.");
	is_str(sc_srv_error_classes(&e)[0], "org.apache.spark.SparkException",
	    "other errors without a class are SparkExceptions");

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
	sc_log_init("test-session", SC_LOG_STYLE_CLIENT, SC_LOG_ERROR);
	test_format();
	test_create();
	test_changed();
	test_release();
	test_reconnect();
	test_expiry();
	test_tombstone_bound();
	test_conf();
	test_caps();
	test_evict();
	test_conf_limits();
	test_close_hooks();
	test_maintenance_thread();
	test_lazy();
	test_errors_cache();
	test_srv_error();
	return tap_done();
}
