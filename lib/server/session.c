/* SPDX-License-Identifier: MIT */

/*
 * session.c: the session manager (sessions by (user_id, session_id),
 * idle expiry, closed-session tombstones) and per-session state (runtime
 * conf, FetchErrorDetails cache), as Spark 4's SparkConnectSessionManager.
 */

#include "server/session.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/timeutil.h"
#include "core/xmem.h"
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

struct conf_kv {
	char *key;
	char *value;
};

struct conf_map {
	struct conf_kv *v;
	size_t n;
	size_t cap;
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
	struct hnode node;
	struct sc_sessmgr *mgr;
	struct conf_map conf;
	struct err_cache errors;
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
	struct tomb *lru_head;
	struct tomb *lru_tail;
	sc_sessmgr_clock_fn *clock;
	void *clock_arg;
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

static struct sess *
sess_new(struct sc_sessmgr *m, const char *user, const char *sess_id,
    struct sc_error *err)
{
	struct sess *s;
	struct sc_engine_conn *conn = NULL;
	char ssid[SC_UUID_STRLEN];

	if (sc_uuid_v4(ssid, err) == -1)
		return NULL;
	if (m->srv->engine != NULL &&
	    (conn = sc_engine_conn_new(m->srv->engine, err)) == NULL)
		return NULL;
	s = sc_xcalloc(1, sizeof(*s));
	snprintf(s->pub.user_id, sizeof(s->pub.user_id), "%s", user);
	snprintf(s->pub.session_id, sizeof(s->pub.session_id), "%s", sess_id);
	memcpy(s->pub.server_side_id, ssid, sizeof(ssid));
	s->pub.server = m->srv;
	s->pub.conn = conn;
	pthread_mutex_init(&s->pub.lock, NULL);
	s->pub.refs = 1; /* the manager's */
	s->pub.created_ms = sc_realtime_ms();
	s->pub.last_access_ms = sc_sessmgr_now(m);
	s->pub.conf = &s->conf;
	s->pub.errors = &s->errors;
	s->mgr = m;
	s->node.user = s->pub.user_id;
	s->node.sess = s->pub.session_id;
	return s;
}

static void
sess_free(struct sess *s)
{
	size_t i;

	if (s->pub.conn != NULL)
		sc_engine_conn_free(s->pub.conn);
	for (i = 0; i < s->conf.n; i++) {
		free(s->conf.v[i].key);
		free(s->conf.v[i].value);
	}
	free(s->conf.v);
	pthread_mutex_destroy(&s->pub.lock);
	free(s);
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
	if (n != NULL) {
		s = CONTAINER(n, struct sess, node);
		sess_use(m, s);
		pthread_mutex_unlock(&m->lock);
	} else {
		/* Open the engine connection without holding the lock. */
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
		} else {
			s = fresh;
			fresh = NULL;
			htab_insert(&m->sessions, &s->node);
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
 * refused from now on, existing ones are removed as abandoned, and the
 * manager's reference goes.  Called without the manager lock.
 */
static void
sess_close(struct sc_sessmgr *m, struct sess *s)
{
	pthread_mutex_lock(&s->pub.lock);
	s->pub.closed = true;
	pthread_mutex_unlock(&s->pub.lock);
	if (m->srv->execs != NULL)
		sc_exec_session_closed(m->srv->execs, &s->pub);
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
	htab_remove(&m->sessions, n);
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
			errors_expire(&s->errors, now);
			pthread_mutex_unlock(&s->pub.lock);
			if (!pick(s, now, timeout))
				continue;
			htab_remove(&m->sessions, p);
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
sc_sessmgr_tombstone_count(struct sc_sessmgr *m)
{
	size_t n;

	pthread_mutex_lock(&m->lock);
	n = m->tombs.n;
	pthread_mutex_unlock(&m->lock);
	return n;
}

/* ------------------------------------------------------------ conf */

/* Index of key in the sorted map, or where it would go (*found false). */
static size_t
conf_find(const struct conf_map *c, const char *key, bool *found)
{
	size_t lo = 0, hi = c->n, mid;
	int r;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		r = strcmp(c->v[mid].key, key);
		if (r == 0) {
			*found = true;
			return mid;
		}
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

void
sc_session_conf_set(struct sc_session *pub, const char *key, const char *value)
{
	struct sess *s = (struct sess *)pub;
	struct conf_map *c = &s->conf;
	bool found;
	size_t i;

	pthread_mutex_lock(&pub->lock);
	i = conf_find(c, key, &found);
	if (found) {
		free(c->v[i].value);
		c->v[i].value = sc_xstrdup(value);
	} else {
		if (c->n == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 8;
			c->v = sc_xreallocarray(c->v, c->cap, sizeof(*c->v));
		}
		memmove(&c->v[i + 1], &c->v[i], (c->n - i) * sizeof(*c->v));
		c->v[i].key = sc_xstrdup(key);
		c->v[i].value = sc_xstrdup(value);
		c->n++;
	}
	pthread_mutex_unlock(&pub->lock);
}

char *
sc_session_conf_get(struct sc_session *pub, const char *key)
{
	struct sess *s = (struct sess *)pub;
	char *value = NULL;
	bool found;
	size_t i;

	pthread_mutex_lock(&pub->lock);
	i = conf_find(&s->conf, key, &found);
	if (found)
		value = sc_xstrdup(s->conf.v[i].value);
	pthread_mutex_unlock(&pub->lock);
	return value;
}

bool
sc_session_conf_unset(struct sc_session *pub, const char *key)
{
	struct sess *s = (struct sess *)pub;
	struct conf_map *c = &s->conf;
	bool found;
	size_t i;

	pthread_mutex_lock(&pub->lock);
	i = conf_find(c, key, &found);
	if (found) {
		free(c->v[i].key);
		free(c->v[i].value);
		memmove(&c->v[i], &c->v[i + 1], (c->n - i - 1) * sizeof(*c->v));
		c->n--;
	}
	pthread_mutex_unlock(&pub->lock);
	return found;
}

void
sc_session_conf_each(struct sc_session *pub,
    void (*fn)(const char *key, const char *value, void *arg), void *arg)
{
	struct sess *s = (struct sess *)pub;
	struct conf_kv *snap;
	size_t i, n;

	pthread_mutex_lock(&pub->lock);
	n = s->conf.n;
	snap = sc_xcalloc(n ? n : 1, sizeof(*snap));
	for (i = 0; i < n; i++) {
		snap[i].key = sc_xstrdup(s->conf.v[i].key);
		snap[i].value = sc_xstrdup(s->conf.v[i].value);
	}
	pthread_mutex_unlock(&pub->lock);
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
	struct err_cache *c = &s->errors;
	struct err_entry *e;
	int64_t now = sc_sessmgr_now(s->mgr);
	size_t i, oldest;

	if (sc_uuid_v4(id, NULL) == -1)
		return -1;
	pthread_mutex_lock(&pub->lock);
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
	struct err_cache *c = &s->errors;
	int64_t now = sc_sessmgr_now(s->mgr);
	size_t i;
	int rc = -1;

	pthread_mutex_lock(&pub->lock);
	errors_expire(c, now);
	for (i = 0; i < c->n; i++)
		if (strcmp(c->e[i].id, id) == 0) {
			*out = c->e[i].err;
			c->e[i] = c->e[--c->n];
			rc = 0;
			break;
		}
	pthread_mutex_unlock(&pub->lock);
	return rc;
}
