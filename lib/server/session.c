/* SPDX-License-Identifier: MIT */

/*
 * session.c: the session manager (sessions by (user_id, session_id),
 * idle expiry, closed-session tombstones, caps per user and in total) and
 * per-session state (runtime conf, FetchErrorDetails cache, the engine
 * connection), as Spark 4's SparkConnectSessionManager.  A new session
 * costs a few hundred bytes: its engine connection and error cache are
 * made when first needed.
 */

#include "server/session.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/htab.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "engine/engine.h"
#include "core/banned.h"

/*
 * Every table here is a core/htab.  Sessions and tombstones are keyed
 * user NUL session NUL, the per-user counts user NUL, the conf by the
 * setting's name.
 */
#define KEY_MAX                                      \
	(sizeof(((struct sc_session *)0)->user_id) + \
	    sizeof(((struct sc_session *)0)->session_id))

/* Session conf: a table of keys, sorted only when listed. */
struct conf_kv {
	struct sc_htab_entry h;
	char *key;
	char *value;
};

struct conf_map {
	struct sc_htab t;
	int64_t bytes; /* of every key and value */
};

struct err_entry {
	char id[SC_UUID_STRLEN];
	int64_t atime;
	struct sc_error err;
};

struct err_cache {
	struct err_entry e[SC_SESSION_MAX_ERRORS];
	size_t n;
};

/* The public session first, so a struct sc_session * is a struct sess *. */
struct sess {
	struct sc_session pub;
	struct sc_htab_entry h; /* in m->sessions */
	char *key;
	size_t klen;
	struct sc_sessmgr *mgr;
	struct sc_engine *engine; /* borrowed; NULL: none */
	uint64_t seq; /* creation order (manager lock) */
	/* Under pub.lock: */
	struct conf_map conf;
	struct err_cache *errors; /* NULL until the first error */
};

/* Sessions of one user, keyed user NUL. */
struct ucount {
	struct sc_htab_entry h;
	char *key;
	int64_t n;
};

/* A closed key; the table's order is the order of last use. */
struct tomb {
	struct sc_htab_entry h;
	char *key;
	const char *why; /* static */
	int64_t at_ms; /* realtime */
};

struct hook {
	sc_sessmgr_close_fn *fn;
	void *arg;
};

struct sc_sessmgr {
	const struct sc_server_conf *conf; /* borrowed */
	struct sc_engine *engine; /* borrowed, or NULL */
	struct hook hooks[SC_SESSMGR_MAX_HOOKS];
	size_t nhooks;
	sc_sessmgr_keep_fn *keep; /* or NULL */
	void *keep_arg;
	uint64_t evicted; /* sessions closed to make room */
	uint64_t seq; /* sessions created */
	pthread_mutex_t lock;
	struct sc_htab sessions; /* struct sess */
	struct sc_htab tombs; /* struct tomb, least recently used first */
	struct sc_htab users; /* struct ucount */
	sc_sessmgr_clock_fn *clock;
	void *clock_arg;
	int64_t cap_warned; /* when a cap was last logged, or -1 */

	/* The maintenance thread, under tlock. */
	pthread_mutex_t tlock;
	pthread_cond_t tcv; /* CLOCK_MONOTONIC */
	pthread_t tid;
	bool running;
	bool stop;
};

/*
 * Spell the key user NUL session NUL into k (KEY_MAX bytes); its length,
 * or 0 when it does not fit, and then no table holds it.
 */
static size_t
key_make(char *k, const char *user, const char *sess)
{
	size_t ul = strlen(user), sl = strlen(sess);

	if (ul + sl + 2 > KEY_MAX)
		return 0;
	memcpy(k, user, ul + 1);
	memcpy(k + ul + 1, sess, sl + 1);
	return ul + sl + 2;
}

/* The entry of t with the key (user, sess), or NULL. */
static struct sc_htab_entry *
find2(struct sc_htab *t, const char *user, const char *sess)
{
	char k[KEY_MAX];
	size_t klen = key_make(k, user, sess);

	return klen != 0 ? sc_htab_find(t, k, klen) : NULL;
}

/* ------------------------------------------------------------ tombstones */

static void
tomb_free(struct sc_sessmgr *m, struct tomb *t)
{
	sc_htab_remove(&m->tombs, &t->h);
	free(t->key);
	free(t);
}

/* Drop the least recently used tombstones beyond the configured bound. */
static void
tomb_trim(struct sc_sessmgr *m)
{
	int64_t max = m->conf->closed_session_tombstones;
	struct sc_htab_entry *e;

	if (max < 0)
		max = 0;
	while ((int64_t)sc_htab_count(&m->tombs) > max &&
	    (e = sc_htab_first(&m->tombs)) != NULL)
		tomb_free(m, SC_HTAB_ITEM(e, struct tomb, h));
}

static void
tomb_add(struct sc_sessmgr *m, const char *user, const char *sess,
    const char *why)
{
	struct sc_htab_entry *e;
	struct tomb *t;
	char k[KEY_MAX];
	size_t klen;

	if ((klen = key_make(k, user, sess)) == 0)
		return;
	if ((e = sc_htab_find(&m->tombs, k, klen)) != NULL) {
		sc_htab_touch(&m->tombs, e);
		t = SC_HTAB_ITEM(e, struct tomb, h);
	} else {
		t = sc_xcalloc(1, sizeof(*t));
		t->key = sc_xmemdup(k, klen);
		sc_htab_insert(&m->tombs, &t->h, t->key, klen);
	}
	t->why = why;
	t->at_ms = sc_realtime_ms();
	tomb_trim(m);
}

/* Whether the key is tombstoned; a hit counts as a use. */
static bool
tomb_check(struct sc_sessmgr *m, const char *user, const char *sess)
{
	struct sc_htab_entry *e;

	if ((e = find2(&m->tombs, user, sess)) == NULL)
		return false;
	sc_htab_touch(&m->tombs, e);
	return true;
}

/* ------------------------------------------------------------ caps */

static struct ucount *
user_find(struct sc_sessmgr *m, const char *user)
{
	struct sc_htab_entry *e;

	e = sc_htab_find(&m->users, user, strlen(user) + 1);
	return e != NULL ? SC_HTAB_ITEM(e, struct ucount, h) : NULL;
}

static int64_t
user_sessions(struct sc_sessmgr *m, const char *user)
{
	struct ucount *u = user_find(m, user);

	return u != NULL ? u->n : 0;
}

/* Count a session of user in (delta 1) or out (delta -1). */
static void
user_count(struct sc_sessmgr *m, const char *user, int delta)
{
	struct ucount *u = user_find(m, user);

	if (u == NULL) {
		if (delta < 0)
			return;
		u = sc_xcalloc(1, sizeof(*u));
		u->key = sc_xstrdup(user);
		sc_htab_insert(&m->users, &u->h, u->key, strlen(user) + 1);
	}
	if ((u->n += delta) > 0)
		return;
	sc_htab_remove(&m->users, &u->h);
	free(u->key);
	free(u);
}

static void
sessions_add(struct sc_sessmgr *m, struct sess *s)
{
	sc_htab_insert(&m->sessions, &s->h, s->key, s->klen);
	s->seq = m->seq++;
	user_count(m, s->pub.user_id, 1);
}

static void
sessions_remove(struct sc_sessmgr *m, struct sess *s)
{
	sc_htab_remove(&m->sessions, &s->h);
	user_count(m, s->pub.user_id, -1);
}

static void errors_expire(struct err_cache *c, int64_t now);

/*
 * Whether s is idle and empty, so that closing it loses nothing but its
 * server-side id: nothing but the manager holds it (no operation, not
 * even a finished one kept for reattaching, and no call in progress),
 * no session conf, no FetchErrorDetails entry, no artifact (the keep
 * hook), and an engine connection that is not open or holds nothing
 * (sc_engine_conn_is_empty()).  Manager lock held, so no new reference
 * can appear meanwhile.
 */
static bool
idle_cheap(struct sess *s, int64_t now, int64_t *last)
{
	bool ok;

	pthread_mutex_lock(&s->pub.lock);
	errors_expire(s->errors, now);
	ok = s->pub.refs == 1 && sc_htab_count(&s->conf.t) == 0 &&
	    (s->errors == NULL || s->errors->n == 0);
	*last = s->pub.last_access_ms;
	pthread_mutex_unlock(&s->pub.lock);
	return ok;
}

/* The checks that cost more: the keep hook and the engine's state. */
static bool
idle_empty(struct sc_sessmgr *m, struct sess *s)
{
	if (m->keep != NULL && m->keep(&s->pub, m->keep_arg))
		return false;
	return s->pub.conn == NULL || sc_engine_conn_is_empty(s->pub.conn);
}

/* Candidates evict_pick() looks at closely, least recently used first. */
#define EVICT_CANDIDATES 16

/*
 * Unlink the least recently used idle, empty session (of user, or of
 * anyone when user is NULL) to make room for a new one; the caller
 * closes it (sess_close()) once the manager lock is dropped.  NULL when
 * there is none.  The table is in order of last use (sess_use()), so
 * the walk stops at the first EVICT_CANDIDATES sessions that pass the
 * cheap checks; only those get the costly ones.  Manager lock held.
 */
static struct sess *
evict_pick(struct sc_sessmgr *m, const char *user)
{
	struct sc_htab_entry *p;
	struct sess *s, *cand[EVICT_CANDIDATES];
	int64_t now = sc_sessmgr_now(m), last, lasts[EVICT_CANDIDATES];
	size_t n = 0, i, j;

	for (p = sc_htab_first(&m->sessions); p != NULL;
	     p = sc_htab_next(&m->sessions, p)) {
		s = SC_HTAB_ITEM(p, struct sess, h);
		if (user != NULL && strcmp(s->pub.user_id, user) != 0)
			continue;
		if (n == EVICT_CANDIDATES)
			break;
		if (!idle_cheap(s, now, &last))
			continue;
		/* Insert in order of last use, dropping the most recent. */
		if (n < EVICT_CANDIDATES)
			n++;
		for (j = n - 1; j > 0 && lasts[j - 1] > last; j--) {
			cand[j] = cand[j - 1];
			lasts[j] = lasts[j - 1];
		}
		cand[j] = s;
		lasts[j] = last;
	}
	for (i = 0; i < n; i++)
		if (idle_empty(m, cand[i])) {
			sessions_remove(m, cand[i]);
			m->evicted++;
			return cand[i];
		}
	return NULL;
}

/*
 * Whether one more session of user fits; manager lock held.  At a cap,
 * the least recently used idle, empty session (the user's own at the
 * user cap) makes room: it is unlinked into *victim for the caller to
 * close.  On -1, err is SESSION_LIMIT_EXCEEDED.SERVER or .USER with
 * RESOURCE_EXHAUSTED, and *warn is set when the refusal should be logged
 * (once a minute).
 */
static int
check_caps(struct sc_sessmgr *m, const char *user, bool *warn,
    struct sess **victim, struct sc_error *err)
{
	const struct sc_server_conf *c = m->conf;
	int64_t now, have = user_sessions(m, user);
	bool user_full = have >= c->max_user_sessions;
	bool server_full = (int64_t)sc_htab_count(&m->sessions) >=
	    c->max_sessions;

	*victim = NULL;
	if (user_full)
		*victim = evict_pick(m, user);
	else if (server_full)
		*victim = evict_pick(m, NULL);
	if (*victim != NULL)
		return 0;
	if (server_full)
		sc_srv_error(err, "SESSION_LIMIT_EXCEEDED.SERVER", "53300",
		    "Cannot create a new session: the server already has "
		    "%lld sessions, its limit (sctk.session.maxSessions). "
		    "Release sessions that are no longer used, or retry "
		    "when idle ones have expired.",
		    (long long)sc_htab_count(&m->sessions));
	else if (user_full)
		sc_srv_error(err, "SESSION_LIMIT_EXCEEDED.USER", "53300",
		    "Cannot create a new session: this user already has "
		    "%lld sessions, the limit per user "
		    "(sctk.session.maxSessionsPerUser). Release sessions "
		    "that are no longer used, or retry when idle ones have "
		    "expired.",
		    (long long)have);
	else
		return 0;
	if (err != NULL)
		err->rpc_code = SC_GRPC_RESOURCE_EXHAUSTED;
	now = sc_sessmgr_now(m);
	*warn = m->cap_warned == -1 || now - m->cap_warned >= 60000;
	if (*warn)
		m->cap_warned = now;
	return -1;
}

static void
cap_refused(const char *user, const struct sc_error *err)
{
	sc_warn("new sessions refused: %s (user '%s')", err->msg, user);
}

static void sess_close(struct sc_sessmgr *m, struct sess *s);

/* Close a session evict_pick() unlinked (NULL: none); no lock held. */
static void
evicted_close(struct sc_sessmgr *m, struct sess *s)
{
	if (s == NULL)
		return;
	sc_debug("closed idle empty session '%s' of user '%s' to make room",
	    s->pub.session_id, s->pub.user_id);
	sess_close(m, s);
}

/* ------------------------------------------------------------ sessions */

static int64_t
default_clock(void *arg)
{
	(void)arg;
	return sc_mono_ms();
}

struct sc_sessmgr *
sc_sessmgr_new(const struct sc_server_conf *conf, struct sc_engine *engine)
{
	struct sc_sessmgr *m;

	m = sc_xcalloc(1, sizeof(*m));
	m->conf = conf;
	m->engine = engine;
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->tlock, NULL);
	sc_mono_cond_init(&m->tcv);
	sc_htab_init(&m->sessions);
	sc_htab_init(&m->tombs);
	sc_htab_init(&m->users);
	m->clock = default_clock;
	m->cap_warned = -1;
	return m;
}

void
sc_sessmgr_set_keep(struct sc_sessmgr *m, sc_sessmgr_keep_fn *fn, void *arg)
{
	pthread_mutex_lock(&m->lock);
	m->keep = fn;
	m->keep_arg = arg;
	pthread_mutex_unlock(&m->lock);
}

uint64_t
sc_sessmgr_evicted(struct sc_sessmgr *m)
{
	uint64_t n;

	pthread_mutex_lock(&m->lock);
	n = m->evicted;
	pthread_mutex_unlock(&m->lock);
	return n;
}

void
sc_sessmgr_set_clock(struct sc_sessmgr *m, sc_sessmgr_clock_fn *fn, void *arg)
{
	pthread_mutex_lock(&m->lock);
	m->clock = fn != NULL ? fn : default_clock;
	m->clock_arg = arg;
	pthread_mutex_unlock(&m->lock);
}

int64_t
sc_sessmgr_now(struct sc_sessmgr *m)
{
	return m->clock(m->clock_arg);
}

static int
handle_error(struct sc_error *err, const char *sub, const char *handle,
    const char *text)
{
	return sc_srv_error(err, sub, "HY000", "The handle `%s` is invalid. %s",
	    handle, text);
}

/* A new session; its engine connection waits for sc_session_conn(). */
static struct sess *
sess_new(struct sc_sessmgr *m, const char *user, const char *sess_id,
    struct sc_error *err)
{
	struct sess *s;
	char ssid[SC_UUID_STRLEN], key[KEY_MAX];

	if (sc_uuid_v4(ssid, err) == -1)
		return NULL;
	s = sc_xcalloc(1, sizeof(*s));
	snprintf(s->pub.user_id, sizeof(s->pub.user_id), "%s", user);
	snprintf(s->pub.session_id, sizeof(s->pub.session_id), "%s", sess_id);
	memcpy(s->pub.server_side_id, ssid, sizeof(ssid));
	s->pub.conf = m->conf;
	pthread_mutex_init(&s->pub.lock, NULL);
	s->pub.refs = 1; /* the manager's */
	s->pub.created_ms = sc_realtime_ms();
	s->pub.last_access_ms = sc_sessmgr_now(m);
	s->mgr = m;
	s->engine = m->engine;
	s->klen = key_make(key, user, sess_id);
	s->key = sc_xmemdup(key, s->klen);
	sc_htab_init(&s->conf.t);
	return s;
}

static void conf_clear(struct conf_map *c);

static void
sess_free(struct sess *s)
{
	if (s->pub.conn != NULL)
		sc_engine_conn_free(s->pub.conn);
	conf_clear(&s->conf);
	free(s->key);
	free(s->errors);
	pthread_mutex_destroy(&s->pub.lock);
	free(s);
}

struct sc_engine_conn *
sc_session_conn(struct sc_session *s, struct sc_error *err)
{
	struct sc_engine *engine = ((struct sess *)s)->engine;
	struct sc_engine_conn *c, *fresh;

	pthread_mutex_lock(&s->lock);
	c = s->conn;
	pthread_mutex_unlock(&s->lock);
	if (c != NULL)
		return c;
	if (engine == NULL) {
		sc_error_set(err, SC_ST_INTERNAL,
		    "no SQL engine for this session");
		if (err != NULL)
			err->rpc_code = SC_GRPC_INTERNAL;
		return NULL;
	}
	/* Open without the lock; of two racing opens the first one wins. */
	if ((fresh = sc_engine_conn_new(engine, err)) == NULL)
		return NULL;
	/* The engine reads the session's uploaded files through it. */
	sc_engine_conn_set_owner(fresh, s);
	pthread_mutex_lock(&s->lock);
	if (s->conn == NULL) {
		s->conn = fresh;
		fresh = NULL;
	}
	c = s->conn;
	pthread_mutex_unlock(&s->lock);
	if (fresh != NULL)
		sc_engine_conn_free(fresh);
	return c;
}

void
sc_session_ref(struct sc_session *s)
{
	pthread_mutex_lock(&s->lock);
	s->refs++;
	pthread_mutex_unlock(&s->lock);
}

void
sc_session_unref(struct sc_session *s)
{
	int refs;

	if (s == NULL)
		return;
	pthread_mutex_lock(&s->lock);
	refs = --s->refs;
	pthread_mutex_unlock(&s->lock);
	if (refs == 0)
		sess_free((struct sess *)s);
}

bool
sc_session_is_closed(struct sc_session *s)
{
	bool closed;

	pthread_mutex_lock(&s->lock);
	closed = s->closed;
	pthread_mutex_unlock(&s->lock);
	return closed;
}

/*
 * Take a reference and refresh the idle timer; manager lock held.  The
 * table stays in order of last use, least recent first (evict_pick()).
 */
static void
sess_use(struct sc_sessmgr *m, struct sess *s)
{
	int64_t now = sc_sessmgr_now(m);

	pthread_mutex_lock(&s->pub.lock);
	s->pub.refs++;
	s->pub.last_access_ms = now;
	pthread_mutex_unlock(&s->pub.lock);
	sc_htab_touch(&m->sessions, &s->h);
}

struct sc_session *
sc_sessmgr_get(struct sc_sessmgr *m, const char *user_id,
    const char *session_id, const char *observed_ssid, enum sc_sess_lookup how,
    struct sc_error *err)
{
	struct sc_htab_entry *n;
	struct sess *s, *fresh, *victim = NULL, *victim2 = NULL;
	bool warn = false;

	if (user_id == NULL)
		user_id = "";
	if (session_id == NULL)
		session_id = "";
	if (!sc_uuid_valid(session_id))
		return handle_error(err, "INVALID_HANDLE.FORMAT", session_id,
			   "Handle must be an UUID string of the format "
			   "'00112233-4455-6677-8899-aabbccddeeff'"),
		       NULL;
	if (strlen(user_id) >= sizeof(((struct sc_session *)0)->user_id)) {
		sc_error_set(err, SC_ST_USAGE,
		    "user_id is longer than %zu bytes",
		    sizeof(((struct sc_session *)0)->user_id) - 1);
		if (err != NULL)
			err->rpc_code = SC_GRPC_INVALID_ARGUMENT;
		return NULL;
	}

	pthread_mutex_lock(&m->lock);
	n = find2(&m->sessions, user_id, session_id);
	if (n == NULL && tomb_check(m, user_id, session_id)) {
		pthread_mutex_unlock(&m->lock);
		return handle_error(err, "INVALID_HANDLE.SESSION_CLOSED",
			   session_id, "Session was closed."),
		       NULL;
	}
	if (n == NULL && how == SC_SESS_GET_ONLY) {
		pthread_mutex_unlock(&m->lock);
		return handle_error(err, "INVALID_HANDLE.SESSION_NOT_FOUND",
			   session_id, "Session not found."),
		       NULL;
	}
	if (n == NULL && check_caps(m, user_id, &warn, &victim, err) == -1) {
		pthread_mutex_unlock(&m->lock);
		if (warn)
			cap_refused(user_id, err);
		return NULL;
	}
	if (n != NULL) {
		s = SC_HTAB_ITEM(n, struct sess, h);
		sess_use(m, s);
		pthread_mutex_unlock(&m->lock);
	} else {
		/* Make the session without holding the lock. */
		pthread_mutex_unlock(&m->lock);
		evicted_close(m, victim);
		if ((fresh = sess_new(m, user_id, session_id, err)) == NULL)
			return NULL;
		pthread_mutex_lock(&m->lock);
		n = find2(&m->sessions, user_id, session_id);
		if (n == NULL && tomb_check(m, user_id, session_id)) {
			pthread_mutex_unlock(&m->lock);
			sess_free(fresh);
			return handle_error(err,
				   "INVALID_HANDLE.SESSION_CLOSED", session_id,
				   "Session was closed."),
			       NULL;
		}
		if (n != NULL) { /* another request created it first */
			s = SC_HTAB_ITEM(n, struct sess, h);
			sess_use(m, s);
		} else if (check_caps(m, user_id, &warn, &victim2, err) == -1) {
			pthread_mutex_unlock(&m->lock);
			sess_free(fresh);
			if (warn)
				cap_refused(user_id, err);
			return NULL;
		} else {
			s = fresh;
			fresh = NULL;
			sessions_add(m, s);
			sess_use(m, s);
		}
		pthread_mutex_unlock(&m->lock);
		evicted_close(m, victim2);
		if (fresh != NULL)
			sess_free(fresh);
	}

	if (observed_ssid != NULL &&
	    strcmp(observed_ssid, s->pub.server_side_id) != 0) {
		sc_session_unref(&s->pub);
		return handle_error(err, "INVALID_HANDLE.SESSION_CHANGED",
			   session_id,
			   "The existing Spark server driver instance "
			   "has restarted. Please reconnect."),
		       NULL;
	}
	return &s->pub;
}

/*
 * Close a session the manager has already unlinked: new operations are
 * refused from now on, existing ones are removed as abandoned, its
 * artifacts are deleted, and the manager's reference goes.  Called
 * without the manager lock.
 */
static void
sess_close(struct sc_sessmgr *m, struct sess *s)
{
	struct hook hooks[SC_SESSMGR_MAX_HOOKS];
	size_t i, n;

	pthread_mutex_lock(&s->pub.lock);
	s->pub.closed = true;
	pthread_mutex_unlock(&s->pub.lock);
	pthread_mutex_lock(&m->lock);
	n = m->nhooks;
	memcpy(hooks, m->hooks, n * sizeof(hooks[0]));
	pthread_mutex_unlock(&m->lock);
	for (i = 0; i < n; i++)
		hooks[i].fn(&s->pub, hooks[i].arg);
	sc_session_unref(&s->pub);
}

void
sc_sessmgr_on_close(struct sc_sessmgr *m, sc_sessmgr_close_fn *fn, void *arg)
{
	pthread_mutex_lock(&m->lock);
	if (m->nhooks == SC_SESSMGR_MAX_HOOKS)
		SC_BUG("more than %d session close hooks",
		    SC_SESSMGR_MAX_HOOKS);
	m->hooks[m->nhooks].fn = fn;
	m->hooks[m->nhooks].arg = arg;
	m->nhooks++;
	pthread_mutex_unlock(&m->lock);
}

int
sc_sessmgr_release(struct sc_sessmgr *m, const char *user_id,
    const char *session_id, bool allow_reconnect, char ssid[SC_UUID_STRLEN])
{
	struct sc_htab_entry *n;
	struct sess *s;

	if (user_id == NULL)
		user_id = "";
	if (session_id == NULL)
		session_id = "";
	pthread_mutex_lock(&m->lock);
	if ((n = find2(&m->sessions, user_id, session_id)) == NULL) {
		pthread_mutex_unlock(&m->lock);
		return 0;
	}
	s = SC_HTAB_ITEM(n, struct sess, h);
	sessions_remove(m, s);
	if (!allow_reconnect)
		tomb_add(m, user_id, session_id, "released");
	memcpy(ssid, s->pub.server_side_id, SC_UUID_STRLEN);
	pthread_mutex_unlock(&m->lock);
	sess_close(m, s);
	return 1;
}

/* Drop expired FetchErrorDetails entries; session lock held. */
static void
errors_expire(struct err_cache *c, int64_t now)
{
	size_t i = 0;

	if (c == NULL)
		return;
	while (i < c->n)
		if (now - c->e[i].atime >= SC_SESSION_ERROR_TTL_MS)
			c->e[i] = c->e[--c->n];
		else
			i++;
}

/*
 * Unlink every session for which pick() is true into a new array (count
 * in *np); tombstone them when tomb is set.  Manager lock held.
 */
static struct sess **
collect(struct sc_sessmgr *m, bool (*pick)(struct sess *, int64_t, int64_t),
    bool tomb, size_t *np)
{
	struct sess **out = NULL, *s;
	struct sc_htab_entry *p, *next;
	int64_t now = sc_sessmgr_now(m);
	int64_t timeout = m->conf->session_timeout_ms;
	size_t n = 0;

	for (p = sc_htab_first(&m->sessions); p != NULL; p = next) {
		next = sc_htab_next(&m->sessions, p);
		s = SC_HTAB_ITEM(p, struct sess, h);
		pthread_mutex_lock(&s->pub.lock);
		errors_expire(s->errors, now);
		pthread_mutex_unlock(&s->pub.lock);
		if (!pick(s, now, timeout))
			continue;
		sessions_remove(m, s);
		if (tomb)
			tomb_add(m, s->pub.user_id, s->pub.session_id,
			    "expired");
		out = sc_xreallocarray(out, n + 1, sizeof(*out));
		out[n++] = s;
	}
	*np = n;
	return out;
}

static bool
pick_idle(struct sess *s, int64_t now, int64_t timeout)
{
	int64_t last;

	if (timeout < 0)
		return false;
	pthread_mutex_lock(&s->pub.lock);
	last = s->pub.last_access_ms;
	pthread_mutex_unlock(&s->pub.lock);
	return now - last >= timeout;
}

static bool
pick_all(struct sess *s, int64_t now, int64_t timeout)
{
	(void)s;
	(void)now;
	(void)timeout;
	return true;
}

size_t
sc_sessmgr_maintain(struct sc_sessmgr *m)
{
	struct sess **v;
	size_t i, n;

	pthread_mutex_lock(&m->lock);
	v = collect(m, pick_idle, true, &n);
	tomb_trim(m);
	pthread_mutex_unlock(&m->lock);
	for (i = 0; i < n; i++)
		sess_close(m, v[i]);
	free(v);
	return n;
}

void
sc_sessmgr_close_all(struct sc_sessmgr *m)
{
	struct sess **v;
	size_t i, n;

	pthread_mutex_lock(&m->lock);
	v = collect(m, pick_all, false, &n);
	pthread_mutex_unlock(&m->lock);
	for (i = 0; i < n; i++)
		sess_close(m, v[i]);
	free(v);
}

void
sc_sessmgr_free(struct sc_sessmgr *m)
{
	struct sc_htab_entry *e;

	if (m == NULL)
		return;
	sc_sessmgr_stop(m);
	sc_sessmgr_close_all(m);
	while ((e = sc_htab_first(&m->tombs)) != NULL)
		tomb_free(m, SC_HTAB_ITEM(e, struct tomb, h));
	sc_htab_release(&m->sessions);
	sc_htab_release(&m->tombs);
	sc_htab_release(&m->users);
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->tlock);
	pthread_cond_destroy(&m->tcv);
	free(m);
}

/* ------------------------------------------------------------ maintenance */

/* Every conf.session_maintenance_ms, until sc_sessmgr_stop(). */
static void *
maint_main(void *arg)
{
	struct sc_sessmgr *m = arg;
	struct timespec at;
	int64_t every;
	size_t n;

	pthread_setname_np(pthread_self(), "sc-sessions");

	pthread_mutex_lock(&m->tlock);
	while (!m->stop) {
		every = m->conf->session_maintenance_ms;
		sc_deadline_in_ms(&at, every > 0 ? every : 1);
		while (!m->stop &&
		    pthread_cond_timedwait(&m->tcv, &m->tlock, &at) !=
			ETIMEDOUT)
			;
		if (m->stop)
			break;
		pthread_mutex_unlock(&m->tlock);
		if ((n = sc_sessmgr_maintain(m)) > 0)
			sc_info("closed %zu idle session%s", n,
			    n == 1 ? "" : "s");
		pthread_mutex_lock(&m->tlock);
	}
	pthread_mutex_unlock(&m->tlock);
	return NULL;
}

int
sc_sessmgr_start(struct sc_sessmgr *m, struct sc_error *err)
{
	int rc = 0, e;

	pthread_mutex_lock(&m->tlock);
	if (!m->running) {
		m->stop = false;
		if ((e = pthread_create(&m->tid, NULL, maint_main, m)) != 0)
			rc = sc_error_set(err, SC_ST_INTERNAL,
			    "cannot start the session maintenance thread: %s",
			    strerror(e));
		else
			m->running = true;
	}
	pthread_mutex_unlock(&m->tlock);
	return rc;
}

void
sc_sessmgr_stop(struct sc_sessmgr *m)
{
	bool running;

	pthread_mutex_lock(&m->tlock);
	running = m->running;
	m->stop = true;
	m->running = false;
	pthread_cond_signal(&m->tcv);
	pthread_mutex_unlock(&m->tlock);
	if (running)
		pthread_join(m->tid, NULL);
}

size_t
sc_sessmgr_count(struct sc_sessmgr *m)
{
	size_t n;

	pthread_mutex_lock(&m->lock);
	n = sc_htab_count(&m->sessions);
	pthread_mutex_unlock(&m->lock);
	return n;
}

size_t
sc_sessmgr_user_count(struct sc_sessmgr *m, const char *user_id)
{
	size_t n;

	pthread_mutex_lock(&m->lock);
	n = (size_t)user_sessions(m, user_id != NULL ? user_id : "");
	pthread_mutex_unlock(&m->lock);
	return n;
}

size_t
sc_sessmgr_tombstone_count(struct sc_sessmgr *m)
{
	size_t n;

	pthread_mutex_lock(&m->lock);
	n = sc_htab_count(&m->tombs);
	pthread_mutex_unlock(&m->lock);
	return n;
}

/* ------------------------------------------------------------ conf */

static struct conf_kv *
conf_find(struct conf_map *c, const char *key)
{
	struct sc_htab_entry *e = sc_htab_find(&c->t, key, strlen(key));

	return e != NULL ? SC_HTAB_ITEM(e, struct conf_kv, h) : NULL;
}

/* Set key to value (copies); session lock held. */
static void
conf_put(struct conf_map *c, const char *key, const char *value)
{
	struct conf_kv *kv;

	if ((kv = conf_find(c, key)) != NULL) {
		c->bytes += (int64_t)strlen(value) - (int64_t)strlen(kv->value);
		free(kv->value);
		kv->value = sc_xstrdup(value);
		return;
	}
	kv = sc_xcalloc(1, sizeof(*kv));
	kv->key = sc_xstrdup(key);
	kv->value = sc_xstrdup(value);
	sc_htab_insert(&c->t, &kv->h, kv->key, strlen(key));
	c->bytes += (int64_t)(strlen(key) + strlen(value));
}

/* Take kv out of c and free it; session lock held. */
static void
conf_del(struct conf_map *c, struct conf_kv *kv)
{
	sc_htab_remove(&c->t, &kv->h);
	c->bytes -= (int64_t)(strlen(kv->key) + strlen(kv->value));
	free(kv->key);
	free(kv->value);
	free(kv);
}

static void
conf_clear(struct conf_map *c)
{
	struct sc_htab_entry *e;

	while ((e = sc_htab_first(&c->t)) != NULL)
		conf_del(c, SC_HTAB_ITEM(e, struct conf_kv, h));
	sc_htab_release(&c->t);
	c->bytes = 0;
}

static int conf_limit(struct sc_error *err, const char *sub, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

static int
conf_limit(struct sc_error *err, const char *sub, const char *fmt, ...)
{
	char cls[64], text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(cls, sizeof(cls), "SESSION_CONF_LIMIT_EXCEEDED.%s", sub);
	sc_srv_error(err, cls, "54000", "%s", text);
	if (err != NULL)
		err->rpc_code = SC_GRPC_RESOURCE_EXHAUSTED;
	return -1;
}

int
sc_session_conf_check_count(const struct sc_server_conf *conf, size_t n,
    struct sc_error *err)
{
	if ((int64_t)n <= conf->conf_max_keys)
		return 0;
	return conf_limit(err, "KEY_COUNT",
	    "The request names %zu keys; a session holds at most %lld "
	    "settings (sctk.session.maxConfKeys).",
	    n, (long long)conf->conf_max_keys);
}

/* One pair of a batch, sorted by key and then by position. */
struct pair {
	const char *key;
	const char *value;
	size_t pos;
};

static int
cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	int r = strcmp(x->key, y->key);

	if (r != 0)
		return r;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int
sc_session_conf_set_many(struct sc_session *pub, const char *const *keys,
    const char *const *values, size_t n, struct sc_error *err)
{
	const struct sc_server_conf *lim = pub->conf;
	struct sess *s = (struct sess *)pub;
	struct conf_map *c = &s->conf;
	struct conf_kv *kv;
	struct pair *v;
	int64_t bytes, klen, vlen;
	size_t i, nv = 0, fresh = 0;

	if (n == 0)
		return 0;
	if (sc_session_conf_check_count(lim, n, err) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		klen = (int64_t)strlen(keys[i]);
		vlen = (int64_t)strlen(values[i]);
		if (klen > lim->conf_max_key_size)
			return conf_limit(err, "KEY_SIZE",
			    "A setting's key is %lld bytes long; keys of at "
			    "most %lld bytes are allowed "
			    "(sctk.session.maxConfKeySize).",
			    (long long)klen, (long long)lim->conf_max_key_size);
		if (vlen > lim->conf_max_value_size)
			return conf_limit(err, "VALUE_SIZE",
			    "The value for \"%.64s\" is %lld bytes long; values "
			    "of at most %lld bytes are allowed "
			    "(sctk.session.maxConfValueSize).",
			    keys[i], (long long)vlen,
			    (long long)lim->conf_max_value_size);
	}
	/* The last value of each key wins, as when set one by one. */
	v = sc_xreallocarray(NULL, n, sizeof(*v));
	for (i = 0; i < n; i++) {
		v[i].key = keys[i];
		v[i].value = values[i];
		v[i].pos = i;
	}
	qsort(v, n, sizeof(*v), cmp_pair);
	for (i = 0; i < n; i++)
		if (i + 1 == n || strcmp(v[i].key, v[i + 1].key) != 0)
			v[nv++] = v[i];

	pthread_mutex_lock(&pub->lock);
	bytes = c->bytes;
	for (i = 0; i < nv; i++) {
		vlen = (int64_t)strlen(v[i].value);
		if ((kv = conf_find(c, v[i].key)) != NULL)
			bytes += vlen - (int64_t)strlen(kv->value);
		else {
			fresh++;
			bytes += (int64_t)strlen(v[i].key) + vlen;
		}
	}
	if ((int64_t)(sc_htab_count(&c->t) + fresh) > lim->conf_max_keys) {
		pthread_mutex_unlock(&pub->lock);
		free(v);
		return conf_limit(err, "KEY_COUNT",
		    "The session would hold %zu settings; at most %lld are "
		    "allowed (sctk.session.maxConfKeys).",
		    sc_htab_count(&c->t) + fresh,
		    (long long)lim->conf_max_keys);
	}
	if (bytes > lim->conf_max_bytes) {
		pthread_mutex_unlock(&pub->lock);
		free(v);
		return conf_limit(err, "TOTAL_SIZE",
		    "The session's settings would take %lld bytes; at most "
		    "%lld are allowed (sctk.session.maxConfBytes).",
		    (long long)bytes, (long long)lim->conf_max_bytes);
	}
	for (i = 0; i < nv; i++)
		conf_put(c, v[i].key, v[i].value);
	pthread_mutex_unlock(&pub->lock);
	free(v);
	return 0;
}

int
sc_session_conf_set(struct sc_session *s, const char *key, const char *value,
    struct sc_error *err)
{
	return sc_session_conf_set_many(s, &key, &value, 1, err);
}

char *
sc_session_conf_get(struct sc_session *pub, const char *key)
{
	struct sess *s = (struct sess *)pub;
	struct conf_kv *kv;
	char *value = NULL;

	pthread_mutex_lock(&pub->lock);
	if ((kv = conf_find(&s->conf, key)) != NULL)
		value = sc_xstrdup(kv->value);
	pthread_mutex_unlock(&pub->lock);
	return value;
}

bool
sc_session_conf_unset(struct sc_session *pub, const char *key)
{
	struct sess *s = (struct sess *)pub;
	struct conf_kv *kv;

	pthread_mutex_lock(&pub->lock);
	if ((kv = conf_find(&s->conf, key)) != NULL)
		conf_del(&s->conf, kv);
	pthread_mutex_unlock(&pub->lock);
	return kv != NULL;
}

size_t
sc_session_conf_count(struct sc_session *pub)
{
	struct sess *s = (struct sess *)pub;
	size_t n;

	pthread_mutex_lock(&pub->lock);
	n = sc_htab_count(&s->conf.t);
	pthread_mutex_unlock(&pub->lock);
	return n;
}

/* A copy of one setting, for sc_session_conf_each(). */
struct kv_copy {
	char *key;
	char *value;
};

static int
cmp_kv(const void *a, const void *b)
{
	const struct kv_copy *x = a, *y = b;

	return strcmp(x->key, y->key);
}

void
sc_session_conf_each(struct sc_session *pub,
    void (*fn)(const char *key, const char *value, void *arg), void *arg)
{
	struct sess *s = (struct sess *)pub;
	struct kv_copy *snap;
	struct sc_htab_entry *e;
	struct conf_kv *kv;
	size_t i, n = 0;

	pthread_mutex_lock(&pub->lock);
	snap = sc_xcalloc(sc_htab_count(&s->conf.t) + 1, sizeof(*snap));
	for (e = sc_htab_first(&s->conf.t); e != NULL;
	     e = sc_htab_next(&s->conf.t, e)) {
		kv = SC_HTAB_ITEM(e, struct conf_kv, h);
		snap[n].key = sc_xstrdup(kv->key);
		snap[n].value = sc_xstrdup(kv->value);
		n++;
	}
	pthread_mutex_unlock(&pub->lock);
	qsort(snap, n, sizeof(*snap), cmp_kv);
	for (i = 0; i < n; i++) {
		fn(snap[i].key, snap[i].value, arg);
		free(snap[i].key);
		free(snap[i].value);
	}
	free(snap);
}

/* ------------------------------------------------------------ errors */

int
sc_session_error_put(struct sc_session *pub, const struct sc_error *err,
    char id[SC_UUID_STRLEN])
{
	struct sess *s = (struct sess *)pub;
	struct err_cache *c;
	struct err_entry *e;
	int64_t now = sc_sessmgr_now(s->mgr);
	size_t i, oldest;

	if (sc_uuid_v4(id, NULL) == -1)
		return -1;
	pthread_mutex_lock(&pub->lock);
	if (s->errors == NULL)
		s->errors = sc_xcalloc(1, sizeof(*c));
	c = s->errors;
	errors_expire(c, now);
	if (c->n == SC_SESSION_MAX_ERRORS) {
		for (oldest = 0, i = 1; i < c->n; i++)
			if (c->e[i].atime < c->e[oldest].atime)
				oldest = i;
		c->e[oldest] = c->e[--c->n];
	}
	e = &c->e[c->n++];
	memcpy(e->id, id, SC_UUID_STRLEN);
	e->atime = now;
	e->err = *err;
	pthread_mutex_unlock(&pub->lock);
	return 0;
}

int
sc_session_error_take(struct sc_session *pub, const char *id,
    struct sc_error *out)
{
	struct sess *s = (struct sess *)pub;
	struct err_cache *c;
	int64_t now = sc_sessmgr_now(s->mgr);
	size_t i;
	int rc = -1;

	pthread_mutex_lock(&pub->lock);
	c = s->errors;
	errors_expire(c, now);
	for (i = 0; c != NULL && i < c->n; i++)
		if (strcmp(c->e[i].id, id) == 0) {
			*out = c->e[i].err;
			c->e[i] = c->e[--c->n];
			rc = 0;
			break;
		}
	pthread_mutex_unlock(&pub->lock);
	return rc;
}

/* ------------------------------------------------------------ inspection */

/* A session as listed, with its place in creation order. */
struct listed {
	uint64_t seq;
	struct sc_session_info info;
};

static int
cmp_listed(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void
sc_sessmgr_list(struct sc_sessmgr *m, struct sc_session_info **v, size_t *n)
{
	struct sc_session_info *out, *o;
	struct listed *all;
	struct sc_htab_entry *p;
	struct sess *s;
	int64_t now, now_rt, timeout, last;
	size_t i = 0, j;

	pthread_mutex_lock(&m->lock);
	now = sc_sessmgr_now(m);
	now_rt = sc_realtime_ms();
	timeout = m->conf->session_timeout_ms;
	all = sc_xcalloc(sc_htab_count(&m->sessions) + 1, sizeof(*all));
	for (p = sc_htab_first(&m->sessions); p != NULL;
	     p = sc_htab_next(&m->sessions, p)) {
		s = SC_HTAB_ITEM(p, struct sess, h);
		all[i].seq = s->seq;
		o = &all[i++].info;
		memcpy(o->user_id, s->pub.user_id, sizeof(o->user_id));
		memcpy(o->session_id, s->pub.session_id, sizeof(o->session_id));
		memcpy(o->server_side_id, s->pub.server_side_id,
		    sizeof(o->server_side_id));
		o->created_ms = s->pub.created_ms;
		pthread_mutex_lock(&s->pub.lock);
		last = s->pub.last_access_ms;
		pthread_mutex_unlock(&s->pub.lock);
		o->last_access_ms = now_rt - (now - last);
		o->expires_in_ms = -1;
		if (timeout >= 0) {
			o->expires_in_ms = timeout - (now - last);
			if (o->expires_in_ms < 0)
				o->expires_in_ms = 0;
		}
	}
	pthread_mutex_unlock(&m->lock);
	/* The table is in order of last use; the list is oldest first. */
	qsort(all, i, sizeof(*all), cmp_listed);
	out = sc_xcalloc(i + 1, sizeof(*out));
	for (j = 0; j < i; j++)
		out[j] = all[j].info;
	free(all);
	*v = out;
	*n = i;
}

void
sc_sessmgr_tombstones(struct sc_sessmgr *m, struct sc_session_tomb **v,
    size_t *n)
{
	struct sc_session_tomb *out, *o;
	struct sc_htab_entry *p;
	struct tomb *t;
	size_t i = 0;

	pthread_mutex_lock(&m->lock);
	out = sc_xcalloc(sc_htab_count(&m->tombs) + 1, sizeof(*out));
	for (p = sc_htab_first(&m->tombs); p != NULL;
	     p = sc_htab_next(&m->tombs, p)) {
		t = SC_HTAB_ITEM(p, struct tomb, h);
		o = &out[i++];
		snprintf(o->user_id, sizeof(o->user_id), "%s", t->key);
		snprintf(o->session_id, sizeof(o->session_id), "%s",
		    t->key + strlen(t->key) + 1);
		o->reason = t->why != NULL ? t->why : "closed";
		o->at_ms = t->at_ms;
	}
	pthread_mutex_unlock(&m->lock);
	*v = out;
	*n = i;
}
