/* SPDX-License-Identifier: MIT */

/*
 * session.h: the session manager of sc-serve and per-session state.
 *
 * Sessions are keyed by (user_id, session_id) as Spark does; the manager
 * creates them on demand, up to sctk.session.maxSessions in all and
 * sctk.session.maxSessionsPerUser per user id, closes them on
 * ReleaseSession or after an idle timeout, and remembers closed keys
 * (tombstones) so that a closed session cannot silently come back.  Each
 * session carries its runtime conf (Config RPC, bounded by the
 * sctk.session.maxConf* settings), the FetchErrorDetails cache and its
 * engine connection, which is opened on first use.
 */

#ifndef SC_SERVER_SESSION_H
#define SC_SERVER_SESSION_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/uuid.h"
#include "server/server.h"

struct sc_engine;
struct sc_error;
struct sc_sessmgr;

/*
 * A session.  Created and owned by the session manager; reference
 * counted so an operation or an RPC can keep it while the manager drops
 * it.  Fields above the lock are immutable after creation, except conn:
 * NULL until sc_session_conn() opens it (under the lock), then fixed.
 */
struct sc_session {
	char user_id[256];
	char session_id[64]; /* as sent by the client */
	char server_side_id[37]; /* our own random UUID */
	const struct sc_server_conf *conf; /* the manager's (borrowed) */
	struct sc_engine_conn *conn; /* one SQLite connection, or NULL */

	pthread_mutex_t lock;
	int refs;
	bool closed;
	int64_t created_ms; /* realtime */
	int64_t last_access_ms; /* monotonic */
};

void sc_session_ref(struct sc_session *s);
void sc_session_unref(struct sc_session *s);

/* Errors kept per session for FetchErrorDetails, and for how long. */
#define SC_SESSION_MAX_ERRORS 20
#define SC_SESSION_ERROR_TTL_MS 60000

/* The clock of a manager: milliseconds on a monotonic scale. */
typedef int64_t sc_sessmgr_clock_fn(void *arg);

/*
 * A manager with the settings conf (borrowed for the manager's life and
 * read when used: timeouts, bounds, the limits on session conf) and the
 * engine that opens sessions' connections (borrowed; NULL: none).  Free
 * with sc_sessmgr_free().
 */
struct sc_sessmgr *sc_sessmgr_new(const struct sc_server_conf *conf,
    struct sc_engine *engine);
/*
 * Start the manager's maintenance thread: sc_sessmgr_maintain() every
 * conf.session_maintenance_ms, logging how many sessions it closed.
 * 0, or -1 with err (SC_ST_INTERNAL) when the thread cannot be started.
 * sc_sessmgr_stop() stops and joins it (a no-op when it does not run);
 * call it with no session lock held.
 */
int sc_sessmgr_start(struct sc_sessmgr *m, struct sc_error *err);
void sc_sessmgr_stop(struct sc_sessmgr *m);
/*
 * Close every session (as on shutdown, calling the close hooks), stop
 * the maintenance thread if it runs, and free m.  NULL is a no-op.
 */
void sc_sessmgr_free(struct sc_sessmgr *m);

/*
 * A close hook: called once for every session the manager closes
 * (released, expired, or at shutdown), after the session was marked
 * closed and unlinked, with no lock of the manager or the session held.
 * s is valid during the call; take a reference to keep it.
 */
typedef void sc_sessmgr_close_fn(struct sc_session *s, void *arg);
#define SC_SESSMGR_MAX_HOOKS 4
/*
 * Register fn(s, arg) as a close hook; hooks run in the order they were
 * registered.  Register them before the first session is created; at
 * most SC_SESSMGR_MAX_HOOKS (more is a bug).  fn and arg must stay
 * valid until every session is closed (sc_sessmgr_close_all()).
 */
void sc_sessmgr_on_close(struct sc_sessmgr *m, sc_sessmgr_close_fn *fn,
    void *arg);
/*
 * The keep hook: fn(s, arg) is true when s holds something outside the
 * manager's sight (artifacts) that closing it would lose, so it is
 * never closed to make room (see sc_sessmgr_get()).  Called with the
 * manager lock held: fn must not call back into m.  NULL: none.
 */
typedef bool sc_sessmgr_keep_fn(struct sc_session *s, void *arg);
void sc_sessmgr_set_keep(struct sc_sessmgr *m, sc_sessmgr_keep_fn *fn,
    void *arg);
/* How many sessions were closed to make room for new ones. */
uint64_t sc_sessmgr_evicted(struct sc_sessmgr *m);
/* Replace the clock (sc_mono_ms() by default); for tests. */
void sc_sessmgr_set_clock(struct sc_sessmgr *m, sc_sessmgr_clock_fn *fn,
    void *arg);
/* The current time on m's clock. */
int64_t sc_sessmgr_now(struct sc_sessmgr *m);

enum sc_sess_lookup {
	SC_SESS_GET_OR_CREATE = 0, /* ExecutePlan, Config, AnalyzePlan... */
	SC_SESS_GET_ONLY /* ReattachExecute, ReleaseExecute */
};

/*
 * Find the session (user_id, session_id), creating it for
 * SC_SESS_GET_OR_CREATE, and refresh its idle timer.  observed_ssid, if
 * not NULL, is the request's client_observed_server_side_session_id.
 * Returns a new reference (drop it with sc_session_unref()), or NULL with
 * err set by sc_srv_error(): INVALID_HANDLE.FORMAT (session_id is not a
 * UUID), INVALID_HANDLE.SESSION_CLOSED (the key is tombstoned),
 * INVALID_HANDLE.SESSION_NOT_FOUND (SC_SESS_GET_ONLY, unknown key),
 * INVALID_HANDLE.SESSION_CHANGED (observed_ssid differs from the
 * session's server_side_id), or SESSION_LIMIT_EXCEEDED.USER or .SERVER
 * (SQLSTATE 53300, rpc_code RESOURCE_EXHAUSTED) when a new session would
 * pass conf.max_user_sessions or conf.max_sessions.  Before refusing,
 * the least recently used idle, empty session (the user's own at the
 * user cap, anyone's at the server cap) is closed without a tombstone
 * to make room: one that nothing holds (no operation, finished or not,
 * no call in progress) and that has no session conf, no
 * FetchErrorDetails entry, nothing the keep hook names (artifacts) and
 * no engine state (sc_engine_conn_is_empty()).  Its id may come back as
 * a new session (a client that sends the old server-side id gets
 * SESSION_CHANGED).  So a flood of fresh session ids, under one user id
 * or many, cannot lock others out.  The first refusal in a minute is
 * logged as a warning.  A new session has no engine connection yet (see
 * sc_session_conn()).
 */
struct sc_session *sc_sessmgr_get(struct sc_sessmgr *m, const char *user_id,
    const char *session_id, const char *observed_ssid, enum sc_sess_lookup how,
    struct sc_error *err);

/*
 * ReleaseSession: close the session: mark it closed, remove it, tombstone
 * its key unless allow_reconnect, and call the close hooks (which close
 * its operations as abandoned).  Its engine connection is freed when the
 * last reference goes.  Returns 1 and copies the session's server-side
 * id into ssid when it existed, 0 when it did not (nothing happens).
 */
int sc_sessmgr_release(struct sc_sessmgr *m, const char *user_id,
    const char *session_id, bool allow_reconnect, char ssid[SC_UUID_STRLEN]);

/*
 * Maintenance (the maintenance thread calls it; tests may call it
 * directly): close (and tombstone) every session idle for at
 * least conf.session_timeout_ms (never when -1), trim the tombstones to
 * conf.closed_session_tombstones and drop expired FetchErrorDetails
 * entries.  Returns the number of sessions closed.
 */
size_t sc_sessmgr_maintain(struct sc_sessmgr *m);

/* Close every session without tombstones (shutdown). */
void sc_sessmgr_close_all(struct sc_sessmgr *m);

/* Counts, for tests and logs. */
size_t sc_sessmgr_count(struct sc_sessmgr *m);
size_t sc_sessmgr_user_count(struct sc_sessmgr *m, const char *user_id);
size_t sc_sessmgr_tombstone_count(struct sc_sessmgr *m);

/* A live session as sc_sessmgr_list() copies it. */
struct sc_session_info {
	char user_id[256];
	char session_id[64];
	char server_side_id[37];
	int64_t created_ms; /* realtime */
	int64_t last_access_ms; /* realtime */
	int64_t expires_in_ms; /* idle timeout left; -1: none */
};
/*
 * A copy of every live session, oldest first: *v (free() it; never
 * NULL) and *n.  The manager lock is held only while copying.
 */
void sc_sessmgr_list(struct sc_sessmgr *m, struct sc_session_info **v,
    size_t *n);

/* A closed-session tombstone as sc_sessmgr_tombstones() copies it. */
struct sc_session_tomb {
	char user_id[256];
	char session_id[64];
	const char *reason; /* static: "released" or "expired" */
	int64_t at_ms; /* realtime: when closed */
};
/* A copy of the tombstones, least recently used first; as above. */
void sc_sessmgr_tombstones(struct sc_sessmgr *m, struct sc_session_tomb **v,
    size_t *n);

/* True once the session was released or expired. */
bool sc_session_is_closed(struct sc_session *s);

/*
 * The session's engine connection, opened on the first call (the server
 * has an engine) and kept until the session is freed; later calls return
 * the same one.  NULL with err set when it cannot be opened or there is
 * no engine.  s->conn may be read directly only by code that runs after
 * a successful call (an operation started by the caller).
 */
struct sc_engine_conn *sc_session_conn(struct sc_session *s,
    struct sc_error *err);

/*
 * Per-session runtime conf.  Values are strings.  set_many sets n pairs
 * (a repeated key takes its last value) or, when a limit of the server's
 * conf would be passed, none: -1 with err SESSION_CONF_LIMIT_EXCEEDED
 * (SQLSTATE 54000, rpc_code RESOURCE_EXHAUSTED) and subclass KEY_SIZE (a
 * key longer than conf_max_key_size), VALUE_SIZE (a value longer than
 * conf_max_value_size), KEY_COUNT (more than conf_max_keys settings) or
 * TOTAL_SIZE (keys and values of more than conf_max_bytes).  set is
 * set_many of one pair.  unset returns whether the key was there.  get
 * returns a malloc'ed copy (free()) or NULL when the key is not set.
 * each calls fn for every entry in key order on a snapshot, so fn may
 * call back into s.  Every call is O(1) or O(n log n) in the pairs
 * involved, never in the square of the session's settings.
 */
int sc_session_conf_set_many(struct sc_session *s, const char *const *keys,
    const char *const *values, size_t n, struct sc_error *err);
int sc_session_conf_set(struct sc_session *s, const char *key,
    const char *value, struct sc_error *err);
char *sc_session_conf_get(struct sc_session *s, const char *key);
bool sc_session_conf_unset(struct sc_session *s, const char *key);
size_t sc_session_conf_count(struct sc_session *s);
void sc_session_conf_each(struct sc_session *s,
    void (*fn)(const char *key, const char *value, void *arg), void *arg);
/*
 * Whether a Config request naming n keys stays within conf_max_keys: 0,
 * or -1 with err SESSION_CONF_LIMIT_EXCEEDED.KEY_COUNT as above.
 */
int sc_session_conf_check_count(const struct sc_server_conf *conf, size_t n,
    struct sc_error *err);

/*
 * FetchErrorDetails cache.  put stores a copy of err under a new random
 * id (written to id), evicting the least recently used entry beyond
 * SC_SESSION_MAX_ERRORS; 0, or -1 if no id could be made.  take looks id
 * up, removes it and copies the error into *out: 0, or -1 when there is
 * no such entry or it was last touched SC_SESSION_ERROR_TTL_MS ago.
 */
int sc_session_error_put(struct sc_session *s, const struct sc_error *err,
    char id[SC_UUID_STRLEN]);
int sc_session_error_take(struct sc_session *s, const char *id,
    struct sc_error *out);

#endif
