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

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "server/artifact.h"
#include "server/engine.h"
#include "server/exec.h"
#include "core/banned.h"

#define CONTAINER(p, type, member) \
	((type *)(void *)((char *)(p)-offsetof(type, member)))

/* A hash table of (user, session) keys with chained buckets. */
struct hnode {
	struct hnode *next;
	uint64_t hash;
	const char *user;
	const char *sess;
};

struct htab {
	struct hnode **b;
	size_t nb;
	size_t n;
};

/* Session conf: a hash table of keys, sorted only when listed. */
struct conf_kv {
	struct conf_kv *next;
	uint64_t hash;
	char *key;
	char *value;
};

struct conf_map {
	struct conf_kv **b;
	size_t nb;
	size_t n;
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

/*
 * The public session first, so a struct sc_session * is a struct sess *.
 * pub.errors is a struct err_cache *, NULL until the first error.
 */
struct sess {
	struct sc_session pub;
	struct hnode node;
	struct sc_sessmgr *mgr;
	struct conf_map conf;
};

/* Sessions of one user, keyed (user, ""). */
struct ucount {
	struct hnode node;
	char *user;
	int64_t n;
};

/* A closed key; the list is in recency order, most recent first. */
struct tomb {
	struct hnode node;
	struct tomb *prev;
	struct tomb *next;
	char *user;
	char *sess;
};

struct sc_sessmgr {
	struct sc_server *srv;
	pthread_mutex_t lock;
	struct htab sessions;
	struct htab tombs;
	struct htab users; /* struct ucount */
	struct tomb *lru_head;
	struct tomb *lru_tail;
	sc_sessmgr_clock_fn *clock;
	void *clock_arg;
	int64_t cap_warned; /* when a cap was last logged, or -1 */
};

/* ------------------------------------------------------------ hashing */

static uint64_t
fnv(uint64_t h, const char *s)
{
	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t
key_hash(const char *user, const char *sess)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = fnv(h, user);
	h ^= 0xff; /* cannot occur in UTF-8: separates the parts */
	h *= 0x100000001b3ULL;
	return fnv(h, sess);
}

static struct hnode **
htab_slot(struct htab *t, uint64_t hash, const char *user, const char *sess)
{
	struct hnode **pp;

	if (t->nb == 0)
		return NULL;
	for (pp = &t->b[hash % t->nb]; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->hash == hash && strcmp((*pp)->user, user) == 0 &&
		    strcmp((*pp)->sess, sess) == 0)
			return pp;
	return NULL;
}

static struct hnode *
htab_find(struct htab *t, const char *user, const char *sess)
{
	struct hnode **pp;

	pp = htab_slot(t, key_hash(user, sess), user, sess);
	return pp != NULL ? *pp : NULL;
}

static void
htab_insert(struct htab *t, struct hnode *n)
{
	struct hnode **nb, *p, *next;
	size_t i, size;

	if (t->n >= t->nb) {
		size = t->nb ? t->nb * 2 : 16;
		nb = sc_xcalloc(size, sizeof(*nb));
		for (i = 0; i < t->nb; i++)
			for (p = t->b[i]; p != NULL; p = next) {
				next = p->next;
				p->next = nb[p->hash % size];
				nb[p->hash % size] = p;
			}
		free(t->b);
		t->b = nb;
		t->nb = size;
	}
	n->hash = key_hash(n->user, n->sess);
	n->next = t->b[n->hash % t->nb];
	t->b[n->hash % t->nb] = n;
	t->n++;
}

static void
htab_remove(struct htab *t, struct hnode *n)
{
	struct hnode **pp;

	for (pp = &t->b[n->hash % t->nb]; *pp != NULL; pp = &(*pp)->next)
		if (*pp == n) {
			*pp = n->next;
			t->n--;
			return;
		}
}

/* ------------------------------------------------------------ tombstones */

static void
lru_unlink(struct sc_sessmgr *m, struct tomb *t)
{
	if (t->prev != NULL)
		t->prev->next = t->next;
	else
		m->lru_head = t->next;
	if (t->next != NULL)
		t->next->prev = t->prev;
	else
		m->lru_tail = t->prev;
	t->prev = t->next = NULL;
}

static void
lru_push(struct sc_sessmgr *m, struct tomb *t)
{
	t->prev = NULL;
	t->next = m->lru_head;
	if (m->lru_head != NULL)
		m->lru_head->prev = t;
	else
		m->lru_tail = t;
	m->lru_head = t;
}

static void
tomb_free(struct sc_sessmgr *m, struct tomb *t)
{
	htab_remove(&m->tombs, &t->node);
	lru_unlink(m, t);
	free(t->user);
	free(t->sess);
	free(t);
}

/* Drop the least recently used tombstones beyond the configured bound. */
static void
tomb_trim(struct sc_sessmgr *m)
{
	int64_t max = m->srv->conf.closed_session_tombstones;

	if (max < 0)
		max = 0;
	while (m->lru_tail != NULL && (int64_t)m->tombs.n > max)
		tomb_free(m, m->lru_tail);
}

static void
tomb_add(struct sc_sessmgr *m, const char *user, const char *sess)
{
	struct hnode *n;
	struct tomb *t;

	if ((n = htab_find(&m->tombs, user, sess)) != NULL) {
		t = CONTAINER(n, struct tomb, node);
		lru_unlink(m, t);
		lru_push(m, t);
		return;
	}
	t = sc_xcalloc(1, sizeof(*t));
	t->user = sc_xstrdup(user);
	t->sess = sc_xstrdup(sess);
	t->node.user = t->user;
	t->node.sess = t->sess;
	htab_insert(&m->tombs, &t->node);
	lru_push(m, t);
	tomb_trim(m);
}

/* Whether the key is tombstoned; a hit counts as a use. */
static bool
tomb_check(struct sc_sessmgr *m, const char *user, const char *sess)
{
	struct hnode *n;
	struct tomb *t;

	if ((n = htab_find(&m->tombs, user, sess)) == NULL)
		return false;
	t = CONTAINER(n, struct tomb, node);
	lru_unlink(m, t);
	lru_push(m, t);
	return true;
}

/* ------------------------------------------------------------ caps */

static int64_t
user_sessions(struct sc_sessmgr *m, const char *user)
{
	struct hnode *n = htab_find(&m->users, user, "");

	return n != NULL ? CONTAINER(n, struct ucount, node)->n : 0;
}

/* Count a session of user in (delta 1) or out (delta -1). */
static void
user_count(struct sc_sessmgr *m, const char *user, int delta)
{
	struct hnode *n = htab_find(&m->users, user, "");
	struct ucount *u;

	if (n == NULL) {
		if (delta < 0)
			return;
		u = sc_xcalloc(1, sizeof(*u));
		u->user = sc_xstrdup(user);
		u->node.user = u->user;
		u->node.sess = "";
		htab_insert(&m->users, &u->node);
	} else
		u = CONTAINER(n, struct ucount, node);
	if ((u->n += delta) > 0)
		return;
	htab_remove(&m->users, &u->node);
	free(u->user);
	free(u);
}

static void
sessions_add(struct sc_sessmgr *m, struct sess *s)
{
	htab_insert(&m->sessions, &s->node);
	user_count(m, s->pub.user_id, 1);
}

static void
sessions_remove(struct sc_sessmgr *m, struct sess *s)
{
	htab_remove(&m->sessions, &s->node);
	user_count(m, s->pub.user_id, -1);
}

/*
 * Whether one more session of user fits; manager lock held.  On -1, err
 * is SESSION_LIMIT_EXCEEDED.SERVER or .USER with RESOURCE_EXHAUSTED, and
 * *warn is set when the refusal should be logged (once a minute).
 */
static int
check_caps(struct sc_sessmgr *m, const char *user, bool *warn,
    struct sc_error *err)
{
	const struct sc_server_conf *c = &m->srv->conf;
	int64_t now, have;

	if ((int64_t)m->sessions.n >= c->max_sessions)
		sc_srv_error(err, "SESSION_LIMIT_EXCEEDED.SERVER", "53300",
		    "Cannot create a new session: the server already has "
		    "%lld sessions, its limit (sctk.session.maxSessions). "
		    "Release sessions that are no longer used, or retry "
		    "when idle ones have expired.",
		    (long long)m->sessions.n);
	else if ((have = user_sessions(m, user)) >= c->max_user_sessions)
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

/* ------------------------------------------------------------ sessions */

static int64_t
default_clock(void *arg)
{
	(void)arg;
	return sc_mono_ms();
}

struct sc_sessmgr *
sc_sessmgr_new(struct sc_server *srv)
{
	struct sc_sessmgr *m;

	m = sc_xcalloc(1, sizeof(*m));
	m->srv = srv;
	pthread_mutex_init(&m->lock, NULL);
	m->clock = default_clock;
	m->cap_warned = -1;
	return m;
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
	char ssid[SC_UUID_STRLEN];

	if (sc_uuid_v4(ssid, err) == -1)
		return NULL;
	s = sc_xcalloc(1, sizeof(*s));
	snprintf(s->pub.user_id, sizeof(s->pub.user_id), "%s", user);
	snprintf(s->pub.session_id, sizeof(s->pub.session_id), "%s", sess_id);
	memcpy(s->pub.server_side_id, ssid, sizeof(ssid));
	s->pub.server = m->srv;
	pthread_mutex_init(&s->pub.lock, NULL);
	s->pub.refs = 1; /* the manager's */
	s->pub.created_ms = sc_realtime_ms();
	s->pub.last_access_ms = sc_sessmgr_now(m);
	s->pub.conf = &s->conf;
	s->mgr = m;
	s->node.user = s->pub.user_id;
	s->node.sess = s->pub.session_id;
	return s;
}

static void conf_clear(struct conf_map *c);

static void
sess_free(struct sess *s)
{
	if (s->pub.conn != NULL)
		sc_engine_conn_free(s->pub.conn);
	conf_clear(&s->conf);
	free(s->pub.errors);
	pthread_mutex_destroy(&s->pub.lock);
	free(s);
}

struct sc_engine_conn *
sc_session_conn(struct sc_session *s, struct sc_error *err)
{
	struct sc_engine_conn *c, *fresh;

	pthread_mutex_lock(&s->lock);
	c = s->conn;
	pthread_mutex_unlock(&s->lock);
	if (c != NULL)
		return c;
	if (s->server->engine == NULL) {
		sc_error_set(err, SC_ST_INTERNAL,
		    "no SQL engine for this session");
		if (err != NULL)
			err->rpc_code = SC_GRPC_INTERNAL;
		return NULL;
	}
	/* Open without the lock; of two racing opens the first one wins. */
	if ((fresh = sc_engine_conn_new(s->server->engine, err)) == NULL)
		return NULL;
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

/* Take a reference and refresh the idle timer; manager lock held. */
static void
sess_use(struct sc_sessmgr *m, struct sess *s)
{
	int64_t now = sc_sessmgr_now(m);

	pthread_mutex_lock(&s->pub.lock);
	s->pub.refs++;
	s->pub.last_access_ms = now;
	pthread_mutex_unlock(&s->pub.lock);
}

struct sc_session *
sc_sessmgr_get(struct sc_sessmgr *m, const char *user_id,
    const char *session_id, const char *observed_ssid, enum sc_sess_lookup how,
    struct sc_error *err)
{
	struct hnode *n;
	struct sess *s, *fresh;
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
	n = htab_find(&m->sessions, user_id, session_id);
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
	if (n == NULL && check_caps(m, user_id, &warn, err) == -1) {
		pthread_mutex_unlock(&m->lock);
		if (warn)
			cap_refused(user_id, err);
		return NULL;
	}
	if (n != NULL) {
		s = CONTAINER(n, struct sess, node);
		sess_use(m, s);
		pthread_mutex_unlock(&m->lock);
	} else {
		/* Make the session without holding the lock. */
		pthread_mutex_unlock(&m->lock);
		if ((fresh = sess_new(m, user_id, session_id, err)) == NULL)
			return NULL;
		pthread_mutex_lock(&m->lock);
		n = htab_find(&m->sessions, user_id, session_id);
		if (n == NULL && tomb_check(m, user_id, session_id)) {
			pthread_mutex_unlock(&m->lock);
			sess_free(fresh);
			return handle_error(err,
				   "INVALID_HANDLE.SESSION_CLOSED", session_id,
				   "Session was closed."),
			       NULL;
		}
		if (n != NULL) { /* another request created it first */
			s = CONTAINER(n, struct sess, node);
			sess_use(m, s);
		} else if (check_caps(m, user_id, &warn, err) == -1) {
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
	pthread_mutex_lock(&s->pub.lock);
	s->pub.closed = true;
	pthread_mutex_unlock(&s->pub.lock);
	if (m->srv->execs != NULL)
		sc_exec_session_closed(m->srv->execs, &s->pub);
	if (m->srv->artifacts != NULL)
		sc_artifact_session_closed(m->srv->artifacts,
		    s->pub.server_side_id);
	sc_session_unref(&s->pub);
}

int
sc_sessmgr_release(struct sc_sessmgr *m, const char *user_id,
    const char *session_id, bool allow_reconnect, char ssid[SC_UUID_STRLEN])
{
	struct hnode *n;
	struct sess *s;

	if (user_id == NULL)
		user_id = "";
	if (session_id == NULL)
		session_id = "";
	pthread_mutex_lock(&m->lock);
	if ((n = htab_find(&m->sessions, user_id, session_id)) == NULL) {
		pthread_mutex_unlock(&m->lock);
		return 0;
	}
	s = CONTAINER(n, struct sess, node);
	sessions_remove(m, s);
	if (!allow_reconnect)
		tomb_add(m, user_id, session_id);
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
	struct hnode *p, *next;
	int64_t now = sc_sessmgr_now(m);
	int64_t timeout = m->srv->conf.session_timeout_ms;
	size_t i, n = 0;

	for (i = 0; i < m->sessions.nb; i++)
		for (p = m->sessions.b[i]; p != NULL; p = next) {
			next = p->next;
			s = CONTAINER(p, struct sess, node);
			pthread_mutex_lock(&s->pub.lock);
			errors_expire(s->pub.errors, now);
			pthread_mutex_unlock(&s->pub.lock);
			if (!pick(s, now, timeout))
				continue;
			sessions_remove(m, s);
			if (tomb)
				tomb_add(m, s->pub.user_id, s->pub.session_id);
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
	if (m == NULL)
		return;
	sc_sessmgr_close_all(m);
	while (m->lru_head != NULL)
		tomb_free(m, m->lru_head);
	free(m->sessions.b);
	free(m->tombs.b);
	free(m->users.b);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

size_t
sc_sessmgr_count(struct sc_sessmgr *m)
{
	size_t n;

	pthread_mutex_lock(&m->lock);
	n = m->sessions.n;
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
	n = m->tombs.n;
	pthread_mutex_unlock(&m->lock);
	return n;
}

/* ------------------------------------------------------------ conf */

static uint64_t
conf_hash(const char *key)
{
	return fnv(0xcbf29ce484222325ULL, key);
}

static struct conf_kv **
conf_slot(struct conf_map *c, const char *key, uint64_t hash)
{
	struct conf_kv **pp;

	if (c->nb == 0)
		return NULL;
	for (pp = &c->b[hash % c->nb]; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->hash == hash && strcmp((*pp)->key, key) == 0)
			return pp;
	return NULL;
}

static struct conf_kv *
conf_find(struct conf_map *c, const char *key)
{
	struct conf_kv **pp = conf_slot(c, key, conf_hash(key));

	return pp != NULL ? *pp : NULL;
}

/* Set key to value (copies); session lock held. */
static void
conf_put(struct conf_map *c, const char *key, const char *value)
{
	struct conf_kv *kv, **nb, *p, *next;
	uint64_t hash = conf_hash(key);
	size_t i, size;

	if ((kv = conf_find(c, key)) != NULL) {
		c->bytes += (int64_t)strlen(value) - (int64_t)strlen(kv->value);
		free(kv->value);
		kv->value = sc_xstrdup(value);
		return;
	}
	if (c->n >= c->nb) {
		size = c->nb ? c->nb * 2 : 8;
		nb = sc_xcalloc(size, sizeof(*nb));
		for (i = 0; i < c->nb; i++)
			for (p = c->b[i]; p != NULL; p = next) {
				next = p->next;
				p->next = nb[p->hash % size];
				nb[p->hash % size] = p;
			}
		free(c->b);
		c->b = nb;
		c->nb = size;
	}
	kv = sc_xmalloc(sizeof(*kv));
	kv->hash = hash;
	kv->key = sc_xstrdup(key);
	kv->value = sc_xstrdup(value);
	kv->next = c->b[hash % c->nb];
	c->b[hash % c->nb] = kv;
	c->n++;
	c->bytes += (int64_t)(strlen(key) + strlen(value));
}

static void
conf_kv_free(struct conf_kv *kv)
{
	free(kv->key);
	free(kv->value);
	free(kv);
}

static void
conf_clear(struct conf_map *c)
{
	struct conf_kv *p, *next;
	size_t i;

	for (i = 0; i < c->nb; i++)
		for (p = c->b[i]; p != NULL; p = next) {
			next = p->next;
			conf_kv_free(p);
		}
	free(c->b);
	memset(c, 0, sizeof(*c));
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
	const struct sc_server_conf *lim = &pub->server->conf;
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
	if ((int64_t)(c->n + fresh) > lim->conf_max_keys) {
		pthread_mutex_unlock(&pub->lock);
		free(v);
		return conf_limit(err, "KEY_COUNT",
		    "The session would hold %zu settings; at most %lld are "
		    "allowed (sctk.session.maxConfKeys).",
		    c->n + fresh, (long long)lim->conf_max_keys);
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
	struct conf_map *c = &s->conf;
	struct conf_kv **pp, *kv;

	pthread_mutex_lock(&pub->lock);
	if ((pp = conf_slot(c, key, conf_hash(key))) != NULL) {
		kv = *pp;
		*pp = kv->next;
		c->n--;
		c->bytes -= (int64_t)(strlen(kv->key) + strlen(kv->value));
		conf_kv_free(kv);
	}
	pthread_mutex_unlock(&pub->lock);
	return pp != NULL;
}

size_t
sc_session_conf_count(struct sc_session *pub)
{
	struct sess *s = (struct sess *)pub;
	size_t n;

	pthread_mutex_lock(&pub->lock);
	n = s->conf.n;
	pthread_mutex_unlock(&pub->lock);
	return n;
}

static int
cmp_kv(const void *a, const void *b)
{
	const struct conf_kv *x = a, *y = b;

	return strcmp(x->key, y->key);
}

void
sc_session_conf_each(struct sc_session *pub,
    void (*fn)(const char *key, const char *value, void *arg), void *arg)
{
	struct sess *s = (struct sess *)pub;
	struct conf_kv *snap, *p;
	size_t i, n = 0;

	pthread_mutex_lock(&pub->lock);
	snap = sc_xcalloc(s->conf.n ? s->conf.n : 1, sizeof(*snap));
	for (i = 0; i < s->conf.nb; i++)
		for (p = s->conf.b[i]; p != NULL; p = p->next) {
			snap[n].key = sc_xstrdup(p->key);
			snap[n].value = sc_xstrdup(p->value);
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
	if (pub->errors == NULL)
		pub->errors = sc_xcalloc(1, sizeof(*c));
	c = pub->errors;
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
	c = pub->errors;
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
