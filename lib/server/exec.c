/* SPDX-License-Identifier: MIT */

/*
 * exec.c: operations, their senders and the execution manager.
 *
 * An operation (struct sc_exec_op) has a state machine, a response
 * buffer (exec_buffer.c) and at most one sender: the RPC streaming its
 * responses.  A sender never blocks anybody: it hands one response to
 * the transport, and the transport's sent() callback hands the next one
 * (flow control); a sender with nothing to send costs no thread, and is
 * woken by whoever changes the operation (a new response, the end, an
 * interrupt, the timer).  Decisions are taken under the operation lock;
 * finishing a call, which may take a session lock in service.c, happens
 * after every lock was dropped ("acts" collected on the way).
 */

#include "server/exec.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/htab.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "server/session.h"
#include "core/banned.h"

#define NO_DEADLINE INT64_MAX
#define COMPLETED_MAX 10000
#define LOW_WATER_GAP (1 << 20)

/* ---------------------------------------------------- keyed tables */

/*
 * The live operations, the abandoned tombstones, the recently completed
 * ids and the scheduler's users and session queues are tables (core/htab)
 * of keys user NUL session NUL operation NUL (or a prefix of that), in
 * insertion order.  A kent is one entry with its own copy of the key.
 */
struct kent {
	struct sc_htab_entry h;
	char *key; /* owned */
	size_t klen;
	int64_t t; /* when added */
	void *val;
};

static char *
key_make(const char *user, const char *session, const char *op, size_t *lenp)
{
	size_t ul = strlen(user), sl = strlen(session), ol = strlen(op);
	char *k;

	k = sc_xmalloc(ul + sl + ol + 3);
	memcpy(k, user, ul + 1);
	memcpy(k + ul + 1, session, sl + 1);
	memcpy(k + ul + sl + 2, op, ol + 1);
	*lenp = ul + sl + ol + 3;
	return k;
}

/* The three parts of a key. */
static void
key_split(const char *k, const char **user, const char **session,
    const char **op)
{
	*user = k;
	*session = k + strlen(k) + 1;
	*op = *session + strlen(*session) + 1;
}

static struct kent *
kent_of(struct sc_htab_entry *h)
{
	return h != NULL ? SC_HTAB_ITEM(h, struct kent, h) : NULL;
}

static struct kent *
ktab_find(struct sc_htab *t, const char *key, size_t klen)
{
	return kent_of(sc_htab_find(t, key, klen));
}

/* Add e (its key set) as the newest entry. */
static void
ktab_insert(struct sc_htab *t, struct kent *e)
{
	sc_htab_insert(t, &e->h, e->key, e->klen);
}

static void
ktab_remove(struct sc_htab *t, struct kent *e)
{
	sc_htab_remove(t, &e->h);
}

/* The oldest entry, or NULL; knext() walks on to the newest. */
static struct kent *
ktab_oldest(struct sc_htab *t)
{
	return kent_of(sc_htab_first(t));
}

static struct kent *
knext(struct sc_htab *t, struct kent *e)
{
	return kent_of(sc_htab_next(t, &e->h));
}

/* ------------------------------------------------------ structures */

struct sender;

/*
 * Where an operation is in the scheduler.  A slot is the right to
 * compute: conf.workers of them, plus those granted by compensation.
 */
enum sched_st {
	SCH_NONE = 0, /* not queued yet, or dropped from the queue */
	SCH_QUEUED, /* PENDING, waiting in its session's queue */
	SCH_READY, /* given a slot, waiting for a thread to take it */
	SCH_SLOT, /* a thread runs it, holding a slot */
	SCH_PARKED, /* waiting for its reader; no slot */
	SCH_RESUME, /* its reader made room; waiting in turn for a slot */
	SCH_NOSLOT, /* canceled while parked: ends without a slot */
	SCH_DONE /* its run ended */
};

/* One user's share of the scheduler (m->users, m->slock). */
struct uent {
	struct kent kent; /* key: the user id */
	int running; /* operations started and not ended */
	size_t nnew, nresume; /* waiting entries */
	struct squeue *scur; /* ring of sessions with waiting work */
	size_t nsq;
	struct uent *rnext, *rprev; /* ring of users with waiting work */
};

/* One session's waiting operations (m->squeues, m->slock). */
struct squeue {
	struct kent kent; /* key: user NUL session NUL */
	struct uent *u;
	struct sc_exec_op *rhead, *rtail; /* resuming after a pause */
	struct sc_exec_op *nhead, *ntail; /* new, in arrival order */
	struct squeue *next, *prev; /* ring in u */
};

/* A runner thread. */
struct thr {
	pthread_t tid;
	struct sc_execmgr *m;
	struct thr *next, *prev; /* m->live, or m->dead (next only) */
};

struct sc_exec_op {
	atomic_int refs;
	struct sc_execmgr *m;
	struct kent kent; /* key; in m->ops */
	char id[SC_UUID_STRLEN];
	struct sc_session *sess;
	char **tags;
	size_t ntags;
	bool reattachable;
	uint8_t *plan; /* packed Plan, or NULL */
	size_t planlen;
	int64_t created_ms;

	pthread_mutex_t lock;
	pthread_cond_t cond; /* emit waits for room */
	int waiters;
	enum sc_exec_state state;
	bool registered;
	struct sc_execbuf *buf;
	struct sc_error error; /* FAILED or CANCELED */
	bool has_error;
	struct sender *sender; /* attached sender, holds a ref */
	int64_t detached_since; /* -1 while attached */
	atomic_int cancel; /* set with CANCELED */
	int64_t rows_sent;
	int64_t bytes_sent;
	int64_t rotations;
	int64_t reattaches;

	/* The scheduler's, under m->slock. */
	enum sched_st sched;
	struct uent *user; /* while waiting or started */
	struct squeue *sq; /* while waiting */
	struct sc_exec_op *qnext, *qprev; /* in sq, or the ready list */
	int64_t slot_since; /* when it got its slot */
	pthread_cond_t slot_cv; /* SCH_RESUME waits here */
};

struct sender {
	atomic_int refs;
	struct sc_exec_op *op; /* holds a ref */
	struct sc_rpc_call *call; /* holds a ref */
	int64_t start; /* first index sent */
	int64_t next; /* next index to send */
	int64_t sent_bytes; /* this stream */
	int64_t deadline; /* or NO_DEADLINE */
	int64_t max_size; /* 0: none */
	bool in_flight;
	bool done; /* its end was decided */
	bool interrupted; /* ends DISCONNECTED */
};

struct sc_execmgr {
	struct sc_server *srv;
	struct sc_server_conf conf;
	sc_exec_clock_fn *clock;
	void *clock_arg;
	sc_exec_run_fn *run;
	void *run_arg;
	struct sc_exec_transport tr;
	size_t completed_max;

	pthread_mutex_t lock;
	pthread_cond_t timer_cv;
	struct sc_htab ops; /* live operations */
	struct sc_htab tombs; /* abandoned */
	struct sc_htab done; /* completed */

	/*
	 * The scheduler, under slock: the innermost lock (taken after the
	 * manager lock and an operation lock, never before).
	 */
	pthread_mutex_t slock;
	pthread_cond_t work_cv; /* idle threads wait here */
	pthread_cond_t threads_cv; /* a thread exited */
	struct sc_htab users; /* struct uent */
	struct sc_htab squeues; /* struct squeue */
	struct uent *ucur; /* ring of users with waiting work */
	size_t nring;
	struct sc_exec_op *rhead, *rtail; /* ready: a slot, no thread yet */
	size_t nready;
	size_t nqueued; /* SCH_QUEUED */
	size_t nresume; /* SCH_RESUME */
	size_t nparked; /* SCH_PARKED */
	int workers; /* slots */
	int extra; /* slots added by compensation */
	int nrunning; /* slots held */
	int max_threads;
	int user_max;
	int nthreads, nidle;
	struct thr *live, *dead;
	int64_t stall_since; /* work waits, no slot given since; or -1 */
	int64_t spawn_retry_at; /* after a failed pthread_create */
	uint64_t compensations;
	bool cap_warned;

	pthread_t timer;
	bool has_timer;
	bool stopping;
	bool stopped;
	uint64_t started;
	uint64_t abandoned;
};

/* What to do with a call once every lock is dropped. */
enum act_kind {
	ACT_OK = 0, /* finish with OK */
	ACT_ERROR, /* finish with a Spark error */
	ACT_STATUS /* finish with a plain gRPC status */
};

struct act {
	struct sender *s; /* holds a ref */
	enum act_kind kind;
	int code;
	const char *msg;
	bool remove; /* then remove the op */
	struct sc_error err;
};

struct acts {
	struct act *v;
	size_t n, cap;
	struct sc_exec_op **unref; /* op refs to drop */
	size_t nunref, capunref;
};

static void pump(struct sc_exec_op *op, struct sender *s, int64_t now,
    struct acts *a);
static void sent_cb(struct sc_rpc_call *call, bool ok, void *arg);

/* ------------------------------------------------------------ misc */

static int64_t
now_ms(struct sc_execmgr *m)
{
	return m->clock(m->clock_arg);
}

static int64_t
default_clock(void *arg)
{
	(void)arg;
	return sc_mono_ms();
}

/* An absolute CLOCK_MONOTONIC time from sc_mono_ms() milliseconds. */
static void
abs_mono(int64_t ms, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ms / 1000);
	ts->tv_nsec = (long)(ms % 1000) * 1000000L;
}

const char *
sc_exec_state_name(enum sc_exec_state st)
{
	switch (st) {
	case SC_EXEC_PENDING:
		return "PENDING";
	case SC_EXEC_RUNNING:
		return "RUNNING";
	case SC_EXEC_FINISHED:
		return "FINISHED";
	case SC_EXEC_FAILED:
		return "FAILED";
	case SC_EXEC_CANCELED:
		return "CANCELED";
	case SC_EXEC_CLOSED:
		return "CLOSED";
	}
	return "?";
}

bool
sc_exec_state_legal(enum sc_exec_state from, enum sc_exec_state to)
{
	switch (from) {
	case SC_EXEC_PENDING:
		return to == SC_EXEC_RUNNING || to == SC_EXEC_CANCELED;
	case SC_EXEC_RUNNING:
		return to == SC_EXEC_FINISHED || to == SC_EXEC_FAILED ||
		    to == SC_EXEC_CANCELED;
	case SC_EXEC_FINISHED:
	case SC_EXEC_FAILED:
	case SC_EXEC_CANCELED:
		return to == SC_EXEC_CLOSED;
	case SC_EXEC_CLOSED:
		return false;
	}
	return false;
}

static void
set_state(struct sc_exec_op *op, enum sc_exec_state to)
{
	if (!sc_exec_state_legal(op->state, to))
		SC_BUG("operation %s: illegal transition %s -> %s", op->id,
		    sc_exec_state_name(op->state), sc_exec_state_name(to));
	op->state = to;
}

static int
handle_error(struct sc_error *err, const char *sub, const char *handle,
    const char *text)
{
	char cls[64];

	snprintf(cls, sizeof(cls), "INVALID_HANDLE.%s", sub);
	return sc_srv_error(err, cls, "HY000", "The handle `%s` is invalid. %s",
	    handle, text);
}

static int
canceled_error(struct sc_error *err)
{
	return sc_srv_error(err, "OPERATION_CANCELED", "HY008",
	    "Operation has been canceled.");
}

static int
disconnected_error(struct sc_error *err)
{
	return sc_srv_error(err, "INVALID_CURSOR.DISCONNECTED", "HY109",
	    "The cursor is invalid. The cursor has been disconnected by the "
	    "server.");
}

static int
not_reattachable_error(struct sc_error *err)
{
	return sc_srv_error(err, "INVALID_CURSOR.NOT_REATTACHABLE", "HY109",
	    "The cursor is invalid. The cursor is not reattachable.");
}

/* A plain INTERNAL error without an error class (a Java exception). */
static int
internal_error(struct sc_error *err, const char *msg)
{
	sc_error_set(err, SC_ST_FAILED, "%s", msg);
	if (err != NULL)
		err->rpc_code = SC_GRPC_INTERNAL;
	return -1;
}

/* ------------------------------------------------ refs and actions */

static void
op_ref(struct sc_exec_op *op)
{
	atomic_fetch_add(&op->refs, 1);
}

/* Drop a reference; never with a lock of ours held. */
static void
op_unref(struct sc_exec_op *op)
{
	size_t i;

	if (op == NULL || atomic_fetch_sub(&op->refs, 1) != 1)
		return;
	sc_execbuf_free(op->buf);
	for (i = 0; i < op->ntags; i++)
		free(op->tags[i]);
	free(op->tags);
	free(op->plan);
	free(op->kent.key);
	pthread_mutex_destroy(&op->lock);
	pthread_cond_destroy(&op->cond);
	pthread_cond_destroy(&op->slot_cv);
	sc_session_unref(op->sess);
	free(op);
}

static void
sender_ref(struct sender *s)
{
	atomic_fetch_add(&s->refs, 1);
}

/* Drop a reference that is known not to be the last (locks may be held). */
static void
sender_unref_held(struct sender *s)
{
	if (atomic_fetch_sub(&s->refs, 1) == 1)
		SC_BUG("last sender reference dropped under a lock");
}

/* Drop a reference; never with a lock of ours held. */
static void
sender_unref(struct sender *s)
{
	struct sc_exec_op *op;

	if (s == NULL || atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	op = s->op;
	op->m->tr.unref(s->call);
	free(s);
	op_unref(op);
}

static void
acts_init(struct acts *a)
{
	memset(a, 0, sizeof(*a));
}

static struct act *
acts_add(struct acts *a, struct sender *s, enum act_kind kind)
{
	struct act *x;

	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 4;
		a->v = sc_xreallocarray(a->v, a->cap, sizeof(*a->v));
	}
	x = &a->v[a->n++];
	memset(x, 0, sizeof(*x));
	sender_ref(s);
	x->s = s;
	x->kind = kind;
	return x;
}

static void
acts_unref_later(struct acts *a, struct sc_exec_op *op)
{
	if (a->nunref == a->capunref) {
		a->capunref = a->capunref ? a->capunref * 2 : 4;
		a->unref =
		    sc_xreallocarray(a->unref, a->capunref, sizeof(*a->unref));
	}
	a->unref[a->nunref++] = op;
}

static void remove_op(struct sc_execmgr *m, struct sc_exec_op *op);

/* Finish calls, then drop references; no lock of ours is held. */
static void
acts_run(struct sc_execmgr *m, struct acts *a)
{
	struct act *x;
	size_t i;

	for (i = 0; i < a->n; i++) {
		x = &a->v[i];
		switch (x->kind) {
		case ACT_OK:
			m->tr.finish(x->s->call, SC_GRPC_OK, "");
			break;
		case ACT_ERROR:
			m->tr.finish_error(x->s->call, x->s->op->sess, &x->err);
			break;
		case ACT_STATUS:
			m->tr.finish(x->s->call, x->code, x->msg);
			break;
		}
		if (x->remove)
			remove_op(m, x->s->op);
		sender_unref(x->s);
	}
	for (i = 0; i < a->nunref; i++)
		op_unref(a->unref[i]);
	free(a->v);
	free(a->unref);
	acts_init(a);
}

/* ------------------------------------------------------- senders */

static struct sender *
sender_new(struct sc_exec_op *op, struct sc_rpc_call *call)
{
	struct sc_execmgr *m = op->m;
	struct sender *s;

	s = sc_xcalloc(1, sizeof(*s));
	atomic_init(&s->refs, 1);
	op_ref(op);
	s->op = op;
	m->tr.ref(call);
	s->call = call;
	s->start = s->next = 1;
	s->deadline = NO_DEADLINE;
	if (op->reattachable) {
		if (m->conf.max_stream_duration_ms > 0)
			s->deadline =
			    now_ms(m) + m->conf.max_stream_duration_ms;
		s->max_size =
		    m->conf.max_stream_size > 0 ? m->conf.max_stream_size : 0;
	}
	return s;
}

/*
 * Decide the end of sender s (op locked): detach it from op and queue
 * the finish.  Non-reattachable operations go with their stream.
 */
static struct act *
end_sender(struct sc_exec_op *op, struct sender *s, int64_t now,
    enum act_kind kind, struct acts *a, const char *why)
{
	struct act *x;

	s->done = true;
	x = acts_add(a, s, kind);
	if (op->sender == s) {
		op->sender = NULL;
		op->detached_since = now;
		sender_unref_held(s);
		sc_info("operation %s detached: %s (%lld bytes in this stream)",
		    op->id, why, (long long)s->sent_bytes);
	}
	if (!op->reattachable && op->registered)
		x->remove = true;
	return x;
}

/* Whether a stream limit ends s now (graceful end, client reattaches). */
static bool
limit_reached(const struct sender *s, int64_t now)
{
	return now >= s->deadline ||
	    (s->max_size > 0 && s->sent_bytes > s->max_size);
}

static void
rotate(struct sc_exec_op *op, struct sender *s, int64_t now, struct acts *a)
{
	op->rotations++;
	end_sender(op, s, now, ACT_OK, a,
	    now >= s->deadline ? "stream rotated at senderMaxStreamDuration"
			       : "stream rotated at senderMaxStreamSize");
}

/*
 * Move sender s on (op locked): end it, send the next response, or
 * wait.  At most one send is in flight; sent_cb() calls pump again.
 */
static void
pump(struct sc_exec_op *op, struct sender *s, int64_t now, struct acts *a)
{
	struct sc_execmgr *m = op->m;
	struct sc_execbuf_stats st;
	struct sc_error e;
	const uint8_t *data;
	size_t len;
	int64_t rows, gap;
	struct act *x;
	int rc;

	if (s->done)
		return;
	if (s->interrupted) {
		x = end_sender(op, s, now, ACT_ERROR, a, "disconnected");
		disconnected_error(&x->err);
		return;
	}
	if (s->in_flight) {
		if (now >= s->deadline)
			rotate(op, s, now, a);
		return;
	}
	sc_execbuf_stats(op->buf, &st);
	if (st.final >= 0 && s->next > st.final) {
		if (op->has_error) {
			x = end_sender(op, s, now, ACT_ERROR, a, op->error.msg);
			x->err = op->error;
		} else
			end_sender(op, s, now, ACT_OK, a, "complete");
		return;
	}
	if (limit_reached(s, now)) {
		rotate(op, s, now, a);
		return;
	}
	rc = sc_execbuf_consume(op->buf, s->next, &data, &len, &rows, &e);
	if (rc == 0)
		return;
	if (rc != 1) {
		x = end_sender(op, s, now, ACT_ERROR, a, "position evicted");
		if (rc == -1)
			x->err = e;
		else
			internal_error(&x->err, "response stream ended early");
		return;
	}
	/*
	 * Wake a producer waiting for room only once LOW_WATER_GAP bytes
	 * (or half the high water) are free again, so that it produces in
	 * short runs instead of one response per wakeup; short enough for
	 * the allocator to reuse the blocks just freed.
	 */
	if (op->waiters > 0) {
		sc_execbuf_stats(op->buf, &st);
		gap = m->conf.high_water_bytes / 2;
		if (gap > LOW_WATER_GAP)
			gap = LOW_WATER_GAP;
		if (st.unconsumed <= m->conf.high_water_bytes - gap)
			pthread_cond_broadcast(&op->cond);
	}
	sender_ref(s); /* for sent_cb() */
	if (m->tr.send_ref != NULL)
		rc = m->tr.send_ref(s->call, data, len, sc_execmem_unref,
		    sc_execbuf_ref(op->buf, s->next), sent_cb, s);
	else
		rc = m->tr.send(s->call, data, len, sent_cb, s);
	if (rc == -1) {
		sender_unref_held(s);
		x = end_sender(op, s, now, ACT_STATUS, a, "call ended");
		x->code = SC_GRPC_CANCELLED;
		x->msg = "call ended";
		return;
	}
	s->in_flight = true;
	s->next++;
	s->sent_bytes += (int64_t)len;
	op->bytes_sent += (int64_t)len;
	op->rows_sent += rows;
}

static void
sent_cb(struct sc_rpc_call *call, bool ok, void *arg)
{
	struct sender *s = arg;
	struct sc_exec_op *op = s->op;
	struct sc_execmgr *m = op->m;
	struct acts a;
	struct act *x;
	int64_t now = now_ms(m);

	(void)call;
	acts_init(&a);
	pthread_mutex_lock(&op->lock);
	s->in_flight = false;
	if (!ok) {
		if (!s->done) {
			x = end_sender(op, s, now, ACT_STATUS, &a,
			    "client went away");
			x->code = SC_GRPC_CANCELLED;
			x->msg = "call ended";
		}
	} else
		pump(op, s, now, &a);
	pthread_mutex_unlock(&op->lock);
	acts_run(m, &a);
	sender_unref(s);
}

static void
close_cb(struct sc_rpc_call *call, bool cancelled, void *arg)
{
	struct sender *s = arg;
	struct sc_exec_op *op = s->op;
	struct sc_execmgr *m = op->m;
	struct acts a;
	struct act *x;

	(void)call;
	acts_init(&a);
	pthread_mutex_lock(&op->lock);
	if (!s->done) {
		x = end_sender(op, s, now_ms(m), ACT_STATUS, &a,
		    cancelled ? "client cancelled the call" : "call closed");
		x->code = SC_GRPC_CANCELLED;
		x->msg = "call ended";
	}
	pthread_mutex_unlock(&op->lock);
	acts_run(m, &a);
	sender_unref(s);
}

/* ---------------------------------------------------- the scheduler */

/*
 * Operations wait in per-session queues; sessions with waiting work form
 * a ring per user, and such users a ring in the manager.  A free slot
 * goes to the users in turn, within a user to its sessions in turn,
 * within a session first to an operation resuming after a pause, then to
 * the oldest new one.  So one user's hundred queued operations delay
 * another user's next one by at most one turn.
 *
 * A new operation needs a slot and a thread, and its user must run fewer
 * than conf.max_running_per_user operations (paused ones included: they
 * keep a thread).  A running operation that waits for its reader gives
 * its slot back (parks) and queues for one again when the reader made
 * room.  When work has waited conf.compensation_delay_ms while every slot
 * stayed busy (long queries that do not pause), one more slot is added
 * (compensation); it goes away with the next slot released.  Threads are
 * started on demand up to conf.max_threads; those beyond conf.workers
 * exit after conf.thread_idle_ms without work.
 */

static void *worker_main(void *arg);

static void
op_unref_held(struct sc_exec_op *op)
{
	if (atomic_fetch_sub(&op->refs, 1) == 1)
		SC_BUG("last operation reference dropped under a lock");
}

/* The user entry of op's user, created on first use. */
static struct uent *
user_get(struct sc_execmgr *m, const char *user)
{
	struct kent *e;
	struct uent *u;
	size_t klen = strlen(user) + 1;

	if ((e = ktab_find(&m->users, user, klen)) != NULL)
		return e->val;
	u = sc_xcalloc(1, sizeof(*u));
	u->kent.key = sc_xmemdup(user, klen);
	u->kent.klen = klen;
	u->kent.val = u;
	ktab_insert(&m->users, &u->kent);
	return u;
}

/* Forget u once it neither runs nor waits. */
static void
user_put(struct sc_execmgr *m, struct uent *u)
{
	if (u == NULL || u->running > 0 || u->nsq > 0)
		return;
	ktab_remove(&m->users, &u->kent);
	free(u->kent.key);
	free(u);
}

static void
uring_add(struct sc_execmgr *m, struct uent *u)
{
	/* Just before the cursor: served at the end of this turn. */
	if (m->ucur == NULL) {
		u->rnext = u->rprev = u;
		m->ucur = u;
	} else {
		u->rnext = m->ucur;
		u->rprev = m->ucur->rprev;
		u->rprev->rnext = u;
		m->ucur->rprev = u;
	}
	m->nring++;
}

static void
uring_del(struct sc_execmgr *m, struct uent *u)
{
	if (u->rnext == u)
		m->ucur = NULL;
	else {
		u->rprev->rnext = u->rnext;
		u->rnext->rprev = u->rprev;
		if (m->ucur == u)
			m->ucur = u->rnext;
	}
	u->rnext = u->rprev = NULL;
	m->nring--;
}

/* The queue of op's session, created and put in its user's ring. */
static struct squeue *
squeue_get(struct sc_execmgr *m, struct sc_exec_op *op)
{
	struct uent *u = op->user;
	struct squeue *q;
	struct kent *e;
	char *key;
	size_t klen;

	key = key_make(op->sess->user_id, op->sess->session_id, "", &klen);
	if ((e = ktab_find(&m->squeues, key, klen)) != NULL) {
		free(key);
		return e->val;
	}
	q = sc_xcalloc(1, sizeof(*q));
	q->kent.key = key;
	q->kent.klen = klen;
	q->kent.val = q;
	q->u = u;
	ktab_insert(&m->squeues, &q->kent);
	if (u->scur == NULL) {
		q->next = q->prev = q;
		u->scur = q;
		uring_add(m, u);
	} else {
		q->next = u->scur;
		q->prev = u->scur->prev;
		q->prev->next = q;
		u->scur->prev = q;
	}
	u->nsq++;
	return q;
}

static void
squeue_drop(struct sc_execmgr *m, struct squeue *q)
{
	struct uent *u = q->u;

	if (q->next == q)
		u->scur = NULL;
	else {
		q->prev->next = q->next;
		q->next->prev = q->prev;
		if (u->scur == q)
			u->scur = q->next;
	}
	u->nsq--;
	ktab_remove(&m->squeues, &q->kent);
	free(q->kent.key);
	free(q);
	if (u->nsq == 0)
		uring_del(m, u);
}

/* Append op (SCH_QUEUED or SCH_RESUME, op->user set) to its queue. */
static void
sq_push(struct sc_execmgr *m, struct sc_exec_op *op)
{
	struct squeue *q = squeue_get(m, op);
	struct sc_exec_op **head, **tail;

	if (op->sched == SCH_RESUME) {
		head = &q->rhead;
		tail = &q->rtail;
		op->user->nresume++;
		m->nresume++;
	} else {
		head = &q->nhead;
		tail = &q->ntail;
		op->user->nnew++;
		m->nqueued++;
	}
	op->sq = q;
	op->qnext = NULL;
	op->qprev = *tail;
	if (*tail != NULL)
		(*tail)->qnext = op;
	else
		*head = op;
	*tail = op;
}

/* Take op out of its queue; the queue goes once it is empty. */
static void
sq_unlink(struct sc_execmgr *m, struct sc_exec_op *op)
{
	struct squeue *q = op->sq;
	struct sc_exec_op **head, **tail;

	if (op->sched == SCH_RESUME) {
		head = &q->rhead;
		tail = &q->rtail;
		op->user->nresume--;
		m->nresume--;
	} else {
		head = &q->nhead;
		tail = &q->ntail;
		op->user->nnew--;
		m->nqueued--;
	}
	if (op->qprev != NULL)
		op->qprev->qnext = op->qnext;
	else
		*head = op->qnext;
	if (op->qnext != NULL)
		op->qnext->qprev = op->qprev;
	else
		*tail = op->qprev;
	op->qnext = op->qprev = NULL;
	op->sq = NULL;
	if (q->rhead == NULL && q->nhead == NULL)
		squeue_drop(m, q);
}

/*
 * The next waiting operation in fair order; new ones only if can_new and
 * their user is below its cap.  take: unlink it and move the turns on.
 */
static struct sc_exec_op *
sched_next(struct sc_execmgr *m, bool can_new, bool take)
{
	struct uent *u;
	struct squeue *q;
	struct sc_exec_op *op;
	size_t i, j;
	bool new_ok;

	for (i = 0, u = m->ucur; i < m->nring; i++, u = u->rnext) {
		new_ok = can_new && u->running < m->user_max;
		if (u->nresume == 0 && (!new_ok || u->nnew == 0))
			continue;
		for (j = 0, q = u->scur; j < u->nsq; j++, q = q->next) {
			op = q->rhead != NULL ? q->rhead
			    : new_ok	      ? q->nhead
					      : NULL;
			if (op == NULL)
				continue;
			if (take) {
				u->scur = q->next;
				m->ucur = u->rnext;
				sq_unlink(m, op);
			}
			return op;
		}
	}
	return NULL;
}

/* Start a runner thread, counted idle until it takes work. */
static int
spawn(struct sc_execmgr *m, int64_t now)
{
	struct thr *t;
	int rc;

	t = sc_xcalloc(1, sizeof(*t));
	t->m = m;
	if ((rc = pthread_create(&t->tid, NULL, worker_main, t)) != 0) {
		free(t);
		sc_warn("cannot start a runner thread (%d running): %s",
		    m->nthreads, strerror(rc));
		m->spawn_retry_at = now + 1000;
		return -1;
	}
	t->next = m->live;
	t->prev = NULL;
	if (m->live != NULL)
		m->live->prev = t;
	m->live = t;
	m->nthreads++;
	m->nidle++;
	return 0;
}

/* Whether a new operation could get a thread now. */
static bool
can_start(struct sc_execmgr *m, int64_t now)
{
	return !m->stopping &&
	    (m->nidle > (int)m->nready ||
		(m->nthreads < m->max_threads && now >= m->spawn_retry_at));
}

/*
 * op gives its slot back.  A slot added by compensation goes away when a
 * long holder (one that held its slot for the compensation delay) lets
 * go, or once fewer than conf.workers slots are busy; a short operation
 * that ran in the added slot leaves it to the next one.
 */
static void
slot_release(struct sc_execmgr *m, const struct sc_exec_op *op, int64_t now)
{
	m->nrunning--;
	if (m->extra > 0 &&
	    now - op->slot_since >= m->conf.compensation_delay_ms)
		m->extra--;
	if (m->nrunning < m->workers)
		m->extra = 0;
}

/*
 * Give free slots to waiting work, in fair order.  Returns true when a
 * stall began (work waits and every slot is busy), for the caller to
 * wake the timer, which compensates after conf.compensation_delay_ms.
 */
static bool
dispatch(struct sc_execmgr *m, int64_t now)
{
	struct sc_exec_op *op;
	bool can_new, granted = false, stalled, began;

	while (m->nrunning < m->workers + m->extra) {
		can_new = can_start(m, now);
		if ((op = sched_next(m, can_new, false)) == NULL)
			break;
		if (op->sched == SCH_QUEUED && m->nidle <= (int)m->nready &&
		    spawn(m, now) == -1)
			continue;
		sched_next(m, can_new, true);
		m->nrunning++;
		op->slot_since = now;
		granted = true;
		if (op->sched == SCH_RESUME) {
			op->sched = SCH_SLOT;
			pthread_cond_signal(&op->slot_cv);
			continue;
		}
		op->sched = SCH_READY;
		op->user->running++;
		op->qnext = NULL;
		if (m->rtail != NULL)
			m->rtail->qnext = op;
		else
			m->rhead = op;
		m->rtail = op;
		m->nready++;
		pthread_cond_signal(&m->work_cv);
	}
	if (m->nqueued > 0 && !m->stopping && m->nthreads >= m->max_threads &&
	    m->nidle <= (int)m->nready) {
		if (!m->cap_warned)
			sc_warn("all %d runner threads are busy "
				"(sctk.execute.maxThreads); queued "
				"operations wait: %zu",
			    m->nthreads, m->nqueued);
		m->cap_warned = true;
	} else if (m->nthreads < m->max_threads)
		m->cap_warned = false;
	stalled = m->nrunning >= m->workers + m->extra &&
	    sched_next(m, can_start(m, now), false) != NULL;
	began = stalled && m->stall_since < 0;
	if (!stalled)
		m->stall_since = -1;
	else if (granted || began)
		m->stall_since = now;
	return began;
}

/* Wake the timer (no lock of ours held). */
static void
timer_kick(struct sc_execmgr *m)
{
	pthread_mutex_lock(&m->lock);
	pthread_cond_signal(&m->timer_cv);
	pthread_mutex_unlock(&m->lock);
}

/*
 * Queue a new operation (manager locked, registered, its sender set).
 * Returns dispatch()'s stall flag.
 */
static bool
sched_add(struct sc_execmgr *m, struct sc_exec_op *op, int64_t now)
{
	bool began;

	pthread_mutex_lock(&m->slock);
	op_ref(op); /* the queue's */
	op->user = user_get(m, op->sess->user_id);
	op->sched = SCH_QUEUED;
	sq_push(m, op);
	began = dispatch(m, now);
	pthread_mutex_unlock(&m->slock);
	return began;
}

/*
 * op was canceled (op locked): drop it from the queue, or wake it if it
 * waits for a slot.  The queue's reference is never the last one: the
 * registry holds one while an operation can be canceled.
 */
static void
sched_cancel(struct sc_execmgr *m, struct sc_exec_op *op)
{
	pthread_mutex_lock(&m->slock);
	if (op->sched == SCH_QUEUED) {
		sq_unlink(m, op);
		op->sched = SCH_NONE;
		user_put(m, op->user);
		op->user = NULL;
		op_unref_held(op);
	} else if (op->sched == SCH_RESUME) {
		sq_unlink(m, op);
		op->sched = SCH_NOSLOT;
		pthread_cond_signal(&op->slot_cv);
	}
	pthread_mutex_unlock(&m->slock);
}

/* op waits for its reader (op locked): give its slot back. */
static bool
sched_park(struct sc_execmgr *m, struct sc_exec_op *op)
{
	bool parked = false;
	int64_t now;

	pthread_mutex_lock(&m->slock);
	if (op->sched == SCH_SLOT) {
		op->sched = SCH_PARKED;
		m->nparked++;
		now = now_ms(m);
		slot_release(m, op, now);
		dispatch(m, now);
		parked = true;
	}
	pthread_mutex_unlock(&m->slock);
	return parked;
}

/*
 * A parked op can go on (no lock of ours held): wait in turn for a slot.
 * Returns with op holding a slot (SCH_SLOT), or canceled (SCH_NOSLOT).
 */
static void
sched_resume(struct sc_execmgr *m, struct sc_exec_op *op)
{
	bool began = false;

	pthread_mutex_lock(&m->slock);
	if (op->sched == SCH_PARKED) {
		m->nparked--;
		if (atomic_load(&op->cancel) != 0)
			op->sched = SCH_NOSLOT;
		else {
			op->sched = SCH_RESUME;
			sq_push(m, op);
			began = dispatch(m, now_ms(m));
		}
	}
	if (began) {
		pthread_mutex_unlock(&m->slock);
		timer_kick(m);
		pthread_mutex_lock(&m->slock);
	}
	while (op->sched == SCH_RESUME)
		pthread_cond_wait(&op->slot_cv, &m->slock);
	pthread_mutex_unlock(&m->slock);
}

/* The run of op ended (scheduler locked); dispatch()'s stall flag. */
static bool
sched_end(struct sc_execmgr *m, struct sc_exec_op *op, int64_t now)
{
	if (op->sched == SCH_SLOT)
		slot_release(m, op, now);
	else if (op->sched == SCH_PARKED)
		m->nparked--;
	else if (op->sched != SCH_NOSLOT)
		SC_BUG("operation %s ended in scheduler state %d", op->id,
		    (int)op->sched);
	op->sched = SCH_DONE;
	op->user->running--;
	user_put(m, op->user);
	op->user = NULL;
	return dispatch(m, now);
}

size_t
sc_execmgr_compensate(struct sc_execmgr *m, int64_t now)
{
	size_t n = 0;
	int64_t waited;

	pthread_mutex_lock(&m->slock);
	if (!m->stopping && m->stall_since >= 0 &&
	    m->conf.compensation_delay_ms >= 0 &&
	    (waited = now - m->stall_since) >= m->conf.compensation_delay_ms &&
	    m->workers + m->extra < m->max_threads) {
		m->extra++;
		m->compensations++;
		n = 1;
		if (m->extra == 1)
			sc_info("all %d workers busy for %lld ms with "
				"operations waiting: running one more beside "
				"them (sctk.execute.compensationDelay)",
			    m->workers, (long long)waited);
		else
			sc_debug("compensation: %d extra slots, %d threads",
			    m->extra, m->nthreads);
	}
	/* Also retries a thread that could not be started. */
	if (!m->stopping)
		dispatch(m, now);
	pthread_mutex_unlock(&m->slock);
	return n;
}

/* When the timer should call sc_execmgr_compensate(), or NO_DEADLINE. */
static int64_t
compensate_at(struct sc_execmgr *m, int64_t now)
{
	int64_t t = NO_DEADLINE;

	pthread_mutex_lock(&m->slock);
	if (m->stall_since >= 0 && m->conf.compensation_delay_ms >= 0 &&
	    m->workers + m->extra < m->max_threads)
		t = m->stall_since + m->conf.compensation_delay_ms;
	if (m->nqueued > 0 && m->spawn_retry_at > now && m->spawn_retry_at < t)
		t = m->spawn_retry_at;
	pthread_mutex_unlock(&m->slock);
	return t;
}

/* Join threads that exited (no lock of ours held). */
static void
reap(struct sc_execmgr *m)
{
	struct thr *t, *next;

	pthread_mutex_lock(&m->slock);
	t = m->dead;
	m->dead = NULL;
	pthread_mutex_unlock(&m->slock);
	for (; t != NULL; t = next) {
		next = t->next;
		pthread_join(t->tid, NULL);
		free(t);
	}
}

/* -------------------------------------------------- op transitions */

/* PENDING or RUNNING -> CANCELED (op locked); true if it moved. */
static bool
cancel_locked(struct sc_exec_op *op)
{
	if (op->state != SC_EXEC_PENDING && op->state != SC_EXEC_RUNNING)
		return false;
	atomic_store(&op->cancel, 1);
	set_state(op, SC_EXEC_CANCELED);
	canceled_error(&op->error);
	op->has_error = true;
	sc_execbuf_finish(op->buf);
	pthread_cond_broadcast(&op->cond);
	sched_cancel(op->m, op);
	sc_info("operation %s canceled", op->id);
	return true;
}

/*
 * Remember src's key in t (the tombstones or the completed ids) as of
 * now, as its newest entry, keeping at most max: an LRU of ids.
 */
static void
remember(struct sc_htab *t, const struct kent *src, int64_t now, size_t max)
{
	struct kent *e;

	if (max == 0)
		return;
	if ((e = ktab_find(t, src->key, src->klen)) != NULL)
		sc_htab_touch(t, &e->h);
	else {
		e = sc_xcalloc(1, sizeof(*e));
		e->key = sc_xmemdup(src->key, src->klen);
		e->klen = src->klen;
		ktab_insert(t, e);
	}
	e->t = now;
	while (sc_htab_count(t) > max) {
		e = ktab_oldest(t);
		ktab_remove(t, e);
		free(e->key);
		free(e);
	}
}

enum close_how {
	CLOSE_COMPLETED = 0, /* released or ended: remember the id */
	CLOSE_ABANDONED, /* tombstone first */
	CLOSE_FORGET /* shutdown, closed session at creation */
};

/*
 * Remove op from the manager (manager and op locked): tombstone or
 * remember it first, cancel it if it still runs, drop its responses
 * and disconnect its sender.  The registry's reference goes to a.
 */
static void
close_locked(struct sc_execmgr *m, struct sc_exec_op *op, enum close_how how,
    int64_t now, struct acts *a)
{
	if (!op->registered)
		return;
	if (how == CLOSE_ABANDONED && m->conf.abandoned_tombstones > 0)
		remember(&m->tombs, &op->kent, now,
		    (size_t)m->conf.abandoned_tombstones);
	else if (how == CLOSE_COMPLETED)
		remember(&m->done, &op->kent, now, m->completed_max);
	ktab_remove(&m->ops, &op->kent);
	op->registered = false;
	cancel_locked(op);
	set_state(op, SC_EXEC_CLOSED);
	sc_execbuf_release_all(op->buf);
	if (op->sender != NULL) {
		op->sender->interrupted = true;
		pump(op, op->sender, now, a);
	}
	pthread_cond_broadcast(&op->cond);
	acts_unref_later(a, op);
}

/* A non-reattachable operation whose stream ended goes away. */
static void
remove_op(struct sc_execmgr *m, struct sc_exec_op *op)
{
	struct acts a;

	acts_init(&a);
	pthread_mutex_lock(&m->lock);
	pthread_mutex_lock(&op->lock);
	if (op->registered) {
		close_locked(m, op, CLOSE_COMPLETED, now_ms(m), &a);
		sc_info("operation %s removed (not reattachable, stream "
			"ended)",
		    op->id);
	}
	pthread_mutex_unlock(&op->lock);
	pthread_mutex_unlock(&m->lock);
	acts_run(m, &a);
}

/* ----------------------------------------------------- the runners */

/* Build and pack a response with op's ids; returns the bytes. */
static uint8_t *
pack_response(struct sc_exec_op *op, Spark__Connect__ExecutePlanResponse *r,
    char rid[SC_UUID_STRLEN], size_t *lenp, struct sc_error *err)
{
	char *o1, *o2, *o3, *o4;
	uint8_t *data;

	if (sc_uuid_v4(rid, err) == -1)
		return NULL;
	o1 = r->session_id;
	o2 = r->server_side_session_id;
	o3 = r->operation_id;
	o4 = r->response_id;
	r->session_id = op->sess->session_id;
	r->server_side_session_id = op->sess->server_side_id;
	r->operation_id = op->id;
	r->response_id = rid;
	data = sc_proto_pack_alloc(&r->base, lenp);
	r->session_id = o1;
	r->server_side_session_id = o2;
	r->operation_id = o3;
	r->response_id = o4;
	return data;
}

static void
run_op(struct sc_execmgr *m, struct sc_exec_op *op)
{
	Spark__Connect__ExecutePlanResponse r =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
	Spark__Connect__ExecutePlanResponse__ResultComplete rc_msg =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESULT_COMPLETE__INIT;
	Spark__Connect__Plan *plan = NULL;
	struct sc_error err;
	struct acts a;
	uint8_t *done_bytes = NULL;
	size_t done_len = 0;
	char rid[SC_UUID_STRLEN];
	int rc;
	int64_t t0 = sc_mono_ms();
	struct sc_execbuf_stats st;

	acts_init(&a);
	sc_error_init(&err);
	pthread_mutex_lock(&op->lock);
	if (op->state != SC_EXEC_PENDING) {
		pthread_mutex_unlock(&op->lock);
		return;
	}
	set_state(op, SC_EXEC_RUNNING);
	pthread_mutex_unlock(&op->lock);
	sc_debug("operation %s running", op->id);

	rc = 0;
	if (op->plan != NULL) {
		plan = sc_proto_unpack(&spark__connect__plan__descriptor,
		    op->plan, op->planlen, &err);
		if (plan == NULL)
			rc = -1;
	}
	if (rc == 0)
		rc = m->run(op, plan, m->run_arg, &err);
	if (plan != NULL)
		protobuf_c_message_free_unpacked(&plan->base, NULL);
	if (rc == 0 && op->reattachable) {
		r.response_type_case =
		    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_RESULT_COMPLETE;
		r.result_complete = &rc_msg;
		done_bytes = pack_response(op, &r, rid, &done_len, &err);
		if (done_bytes == NULL)
			rc = -1;
	}

	pthread_mutex_lock(&op->lock);
	if (op->state == SC_EXEC_RUNNING) {
		if (rc == 0) {
			if (done_bytes != NULL) {
				sc_execbuf_add(op->buf, rid, done_bytes,
				    done_len, 0);
				done_bytes = NULL;
			}
			sc_execbuf_finish(op->buf);
			set_state(op, SC_EXEC_FINISHED);
		} else {
			op->error = err;
			op->has_error = true;
			sc_execbuf_finish(op->buf);
			set_state(op, SC_EXEC_FAILED);
		}
		if (op->sender != NULL)
			pump(op, op->sender, now_ms(m), &a);
		sc_execbuf_stats(op->buf, &st);
		if (rc == 0)
			sc_info("operation %s finished: %lld responses in "
				"%lld ms",
			    op->id, (long long)st.produced,
			    (long long)(sc_mono_ms() - t0));
		else
			sc_info("operation %s failed after %lld responses: %s",
			    op->id, (long long)st.produced, err.msg);
	}
	pthread_mutex_unlock(&op->lock);
	free(done_bytes);
	acts_run(m, &a);
}

/*
 * A runner thread: run ready operations; beyond conf.workers threads,
 * exit after conf.thread_idle_ms without work.
 */
static void *
worker_main(void *arg)
{
	struct thr *t = arg;
	struct sc_execmgr *m = t->m;
	struct sc_exec_op *op;
	struct timespec ts;
	int64_t idle_end = -1;
	bool began;

	pthread_mutex_lock(&m->slock);
	for (;;) {
		if ((op = m->rhead) != NULL) {
			if ((m->rhead = op->qnext) == NULL)
				m->rtail = NULL;
			op->qnext = NULL;
			m->nready--;
			m->nidle--;
			op->sched = SCH_SLOT;
			pthread_mutex_unlock(&m->slock);
			run_op(m, op);
			pthread_mutex_lock(&m->slock);
			began = sched_end(m, op, now_ms(m));
			m->nidle++;
			pthread_mutex_unlock(&m->slock);
			if (began)
				timer_kick(m);
			op_unref(op); /* the queue's */
			idle_end = -1;
			pthread_mutex_lock(&m->slock);
			continue;
		}
		if (m->stopping)
			break;
		if (m->nthreads <= m->workers) {
			idle_end = -1;
			pthread_cond_wait(&m->work_cv, &m->slock);
			continue;
		}
		if (idle_end < 0)
			idle_end = sc_mono_ms() + m->conf.thread_idle_ms;
		else if (sc_mono_ms() >= idle_end)
			break;
		abs_mono(idle_end, &ts);
		pthread_cond_timedwait(&m->work_cv, &m->slock, &ts);
	}
	m->nthreads--;
	m->nidle--;
	if (t->prev != NULL)
		t->prev->next = t->next;
	else
		m->live = t->next;
	if (t->next != NULL)
		t->next->prev = t->prev;
	t->prev = NULL;
	t->next = m->dead;
	m->dead = t;
	if (!m->stopping)
		sc_debug("runner thread exits after %lld ms idle (%d left)",
		    (long long)m->conf.thread_idle_ms, m->nthreads);
	pthread_cond_broadcast(&m->threads_cv);
	pthread_mutex_unlock(&m->slock);
	return NULL;
}

/* --------------------------------------------------- runner helpers */

/*
 * Buffer response rid (the bytes data, len inside the malloc'ed mem,
 * ownership taken), waiting for room, and wake the sender.
 */
static int
emit_bytes(struct sc_exec_op *op, const char *rid, void *mem, uint8_t *data,
    size_t len, int64_t rows, struct sc_error *err)
{
	struct sc_execmgr *m = op->m;
	struct sc_execbuf_stats st;
	struct acts a;
	bool parked = false;

	acts_init(&a);
	pthread_mutex_lock(&op->lock);
	for (;;) {
		if (op->state != SC_EXEC_RUNNING)
			break;
		sc_execbuf_stats(op->buf, &st);
		if (m->conf.high_water_bytes < 0 ||
		    st.unconsumed <= m->conf.high_water_bytes)
			break;
		/* Waiting for the reader: the slot is for others. */
		if (!parked)
			parked = sched_park(m, op);
		op->waiters++;
		pthread_cond_wait(&op->cond, &op->lock);
		op->waiters--;
	}
	if (parked && op->state == SC_EXEC_RUNNING) {
		/* Room again: compute on only with a slot, in turn. */
		pthread_mutex_unlock(&op->lock);
		sched_resume(m, op);
		pthread_mutex_lock(&op->lock);
	}
	if (op->state != SC_EXEC_RUNNING) {
		pthread_mutex_unlock(&op->lock);
		free(mem);
		return canceled_error(err);
	}
	sc_execbuf_add_mem(op->buf, rid, mem, data, len, rows);
	if (op->sender != NULL)
		pump(op, op->sender, now_ms(m), &a);
	pthread_mutex_unlock(&op->lock);
	acts_run(m, &a);
	return 0;
}

int
sc_exec_emit(struct sc_exec_op *op, Spark__Connect__ExecutePlanResponse *resp,
    struct sc_error *err)
{
	uint8_t *data;
	size_t len;
	int64_t rows = 0;
	char rid[SC_UUID_STRLEN];

	if ((data = pack_response(op, resp, rid, &len, err)) == NULL)
		return -1;
	if (resp->response_type_case ==
		SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH &&
	    resp->arrow_batch != NULL)
		rows = resp->arrow_batch->row_count;
	return emit_bytes(op, rid, data, data, len, rows, err);
}

static size_t
varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static uint8_t *
put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Length of string field s (tag of one byte); 0 when it is not sent. */
static size_t
str_field_len(const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	return n == 0 ? 0 : 1 + varint_len(n) + n;
}

static uint8_t *
put_str_field(uint8_t *p, uint8_t tag, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	if (n == 0)
		return p;
	*p++ = tag;
	p = put_varint(p, n);
	memcpy(p, s, n);
	return p + n;
}

/* Wire tags (field << 3 | wire type) of the envelope. */
#define TAG_SESSION_ID 0x0a /* 1, bytes */
#define TAG_ARROW_BATCH 0x12 /* 2, bytes */
#define TAG_OPERATION_ID 0x62 /* 12, bytes */
#define TAG_RESPONSE_ID 0x6a /* 13, bytes */
#define TAG_SERVER_SIDE_ID 0x7a /* 15, bytes */
#define TAG_AB_ROW_COUNT 0x08 /* ArrowBatch 1, varint */
#define TAG_AB_DATA 0x12 /* ArrowBatch 2, bytes */
#define TAG_AB_START_OFFSET 0x18 /* ArrowBatch 3, varint */

size_t
sc_exec_arrow_envelope(uint8_t *out, size_t room, const char *session_id,
    const char *server_side_session_id, const char *operation_id,
    const char *response_id, int64_t rows, int64_t start_offset, size_t ipclen)
{
	size_t ab, n;
	uint8_t *p;

	ab = 1 + varint_len((uint64_t)rows) + 1 +
	    varint_len((uint64_t)start_offset) + 1 + varint_len(ipclen) +
	    ipclen;
	n = str_field_len(session_id) + str_field_len(operation_id) +
	    str_field_len(response_id) + str_field_len(server_side_session_id) +
	    1 + varint_len(ab) + (ab - ipclen);
	if (n > room)
		return 0;
	p = out + room - n;
	p = put_str_field(p, TAG_SESSION_ID, session_id);
	p = put_str_field(p, TAG_OPERATION_ID, operation_id);
	p = put_str_field(p, TAG_RESPONSE_ID, response_id);
	p = put_str_field(p, TAG_SERVER_SIDE_ID, server_side_session_id);
	*p++ = TAG_ARROW_BATCH;
	p = put_varint(p, ab);
	*p++ = TAG_AB_ROW_COUNT;
	p = put_varint(p, (uint64_t)rows);
	*p++ = TAG_AB_START_OFFSET;
	p = put_varint(p, (uint64_t)start_offset);
	*p++ = TAG_AB_DATA;
	put_varint(p, ipclen);
	return n;
}

int
sc_exec_emit_arrow(struct sc_exec_op *op, uint8_t *mem, size_t ipclen,
    int64_t rows, int64_t start_offset, struct sc_error *err)
{
	Spark__Connect__ExecutePlanResponse resp =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
	Spark__Connect__ExecutePlanResponse__ArrowBatch ab =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH__INIT;
	char rid[SC_UUID_STRLEN];
	size_t n;
	int rc;

	if (sc_uuid_v4(rid, err) == -1) {
		free(mem);
		return -1;
	}
	n = sc_exec_arrow_envelope(mem, SC_EXEC_ARROW_HEADROOM,
	    op->sess->session_id, op->sess->server_side_id, op->id, rid, rows,
	    start_offset, ipclen);
	if (n > 0)
		return emit_bytes(op, rid, mem,
		    mem + SC_EXEC_ARROW_HEADROOM - n, n + ipclen, rows, err);
	/* Ids too long for the headroom: pack a copy. */
	ab.row_count = rows;
	ab.data.data = mem + SC_EXEC_ARROW_HEADROOM;
	ab.data.len = ipclen;
	ab._start_offset_case =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH___START_OFFSET_START_OFFSET;
	ab.start_offset = start_offset;
	resp.response_type_case =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH;
	resp.arrow_batch = &ab;
	rc = sc_exec_emit(op, &resp, err);
	free(mem);
	return rc;
}

bool
sc_exec_op_canceled(struct sc_exec_op *op)
{
	bool r;

	pthread_mutex_lock(&op->lock);
	r = op->state == SC_EXEC_CANCELED || op->state == SC_EXEC_CLOSED;
	pthread_mutex_unlock(&op->lock);
	return r;
}

const char *
sc_exec_op_id(const struct sc_exec_op *op)
{
	return op->id;
}

struct sc_session *
sc_exec_op_session(const struct sc_exec_op *op)
{
	return op->sess;
}

struct sc_server *
sc_exec_op_server(const struct sc_exec_op *op)
{
	return op->m->srv;
}

enum sc_exec_state
sc_exec_op_state(struct sc_exec_op *op)
{
	enum sc_exec_state st;

	pthread_mutex_lock(&op->lock);
	st = op->state;
	pthread_mutex_unlock(&op->lock);
	return st;
}

const atomic_int *
sc_exec_op_cancel_flag(const struct sc_exec_op *op)
{
	return &op->cancel;
}

/* ---------------------------------------------------- the handlers */

static struct sc_exec_op *
op_new(struct sc_execmgr *m, struct sc_session *s, const char *id,
    bool reattachable)
{
	struct sc_exec_op *op;

	op = sc_xcalloc(1, sizeof(*op));
	atomic_init(&op->refs, 1);
	op->m = m;
	memcpy(op->id, id, SC_UUID_STRLEN);
	sc_session_ref(s);
	op->sess = s;
	op->reattachable = reattachable;
	op->created_ms = sc_realtime_ms();
	op->kent.key = key_make(s->user_id, s->session_id, id, &op->kent.klen);
	op->kent.val = op;
	pthread_mutex_init(&op->lock, NULL);
	pthread_cond_init(&op->cond, NULL);
	pthread_cond_init(&op->slot_cv, NULL);
	atomic_init(&op->cancel, 0);
	op->state = SC_EXEC_PENDING;
	op->buf = sc_execbuf_new(reattachable ? m->conf.retry_buffer_size : 0);
	op->detached_since = -1;
	return op;
}

static bool
wants_reattach(const Spark__Connect__ExecutePlanRequest *req)
{
	size_t i;
	const Spark__Connect__ExecutePlanRequest__RequestOption *o;

	for (i = 0; i < req->n_request_options; i++) {
		o = req->request_options[i];
		if (o != NULL &&
		    o->request_option_case ==
			SPARK__CONNECT__EXECUTE_PLAN_REQUEST__REQUEST_OPTION__REQUEST_OPTION_REATTACH_OPTIONS &&
		    o->reattach_options != NULL &&
		    o->reattach_options->reattachable)
			return true;
	}
	return false;
}

static int
check_tags(const Spark__Connect__ExecutePlanRequest *req, struct sc_error *err)
{
	size_t i;

	for (i = 0; i < req->n_tags; i++) {
		if (req->tags[i] == NULL || req->tags[i][0] == '\0')
			return internal_error(err,
			    "Spark Connect tag cannot be an empty string.");
		if (strchr(req->tags[i], ',') != NULL)
			return internal_error(err,
			    "Spark job tag cannot contain ','.");
	}
	return 0;
}

static void
unavailable_status(struct act *x)
{
	x->kind = ACT_STATUS;
	x->code = SC_GRPC_UNAVAILABLE;
	x->msg = "sc-serve is shutting down";
}

void
sc_exec_execute(struct sc_execmgr *m, struct sc_session *s,
    struct sc_rpc_call *call, const Spark__Connect__ExecutePlanRequest *req)
{
	struct sc_exec_op *op;
	struct sender *snd;
	struct sc_error err;
	struct kent *e;
	struct acts a;
	struct act *x;
	char id[SC_UUID_STRLEN];
	bool reattachable;
	int64_t now;
	size_t i;
	int rc;

	sc_error_init(&err);
	if (req->_operation_id_case ==
	    SPARK__CONNECT__EXECUTE_PLAN_REQUEST___OPERATION_ID_OPERATION_ID) {
		if (!sc_uuid_valid(req->operation_id)) {
			handle_error(&err, "FORMAT",
			    req->operation_id != NULL ? req->operation_id : "",
			    "Handle must be an UUID string of the format "
			    "'00112233-4455-6677-8899-aabbccddeeff'");
			m->tr.finish_error(call, s, &err);
			return;
		}
		memcpy(id, req->operation_id, SC_UUID_STRLEN);
		sc_uuid_lower(id);
	} else if (sc_uuid_v4(id, &err) == -1) {
		m->tr.finish_error(call, s, &err);
		return;
	}
	if (check_tags(req, &err) == -1) {
		m->tr.finish_error(call, s, &err);
		return;
	}
	reattachable = m->conf.reattachable_enabled && wants_reattach(req);
	op = op_new(m, s, id, reattachable);
	if (req->n_tags > 0) {
		op->tags = sc_xcalloc(req->n_tags, sizeof(*op->tags));
		for (i = 0; i < req->n_tags; i++)
			op->tags[i] = sc_xstrdup(req->tags[i]);
		op->ntags = req->n_tags;
	}
	if (req->plan != NULL)
		op->plan = sc_proto_pack_alloc(&req->plan->base, &op->planlen);

	snd = sender_new(op, call);
	sender_ref(snd);
	m->tr.on_close(call, close_cb, snd);

	acts_init(&a);
	rc = 0;
	if (sc_session_is_closed(s))
		rc = handle_error(&err, "SESSION_CLOSED", s->session_id,
		    "Session was closed.");
	pthread_mutex_lock(&m->lock);
	now = now_ms(m);
	if (m->stopping)
		rc = -1;
	else if (rc == -1)
		;
	else if (ktab_find(&m->ops, op->kent.key, op->kent.klen) != NULL)
		rc = handle_error(&err, "OPERATION_ALREADY_EXISTS", id,
		    "Operation already exists.");
	else if (ktab_find(&m->tombs, op->kent.key, op->kent.klen) != NULL)
		rc = handle_error(&err, "OPERATION_ABANDONED", id,
		    "Operation was considered abandoned because of "
		    "inactivity and removed.");
	else if ((e = ktab_find(&m->done, op->kent.key, op->kent.klen)) !=
	    NULL) {
		if (now - e->t < m->conf.inactive_op_expiry_ms)
			rc = handle_error(&err, "OPERATION_ALREADY_EXISTS", id,
			    "Operation already exists.");
		else {
			ktab_remove(&m->done, e);
			free(e->key);
			free(e);
		}
	}
	if (rc == 0) {
		op_ref(op); /* the registry's */
		op->registered = true;
		ktab_insert(&m->ops, &op->kent);
		pthread_mutex_lock(&op->lock);
		sender_ref(snd); /* op->sender */
		op->sender = snd;
		pthread_mutex_unlock(&op->lock);
		m->started++;
		sc_info("operation %s started: session %s user '%s'%s, %zu "
			"tags",
		    id, s->session_id, s->user_id,
		    reattachable ? ", reattachable" : "", op->ntags);
		/* Queued once its sender is set: it may run at once. */
		sched_add(m, op, now);
		pthread_cond_signal(&m->timer_cv);
	} else {
		pthread_mutex_lock(&op->lock);
		snd->done = true;
		x = acts_add(&a, snd, ACT_ERROR);
		if (m->stopping)
			unavailable_status(x);
		else
			x->err = err;
		pthread_mutex_unlock(&op->lock);
	}
	pthread_mutex_unlock(&m->lock);

	/* Closed meanwhile: sc_exec_session_closed() may have missed it. */
	if (rc == 0 && sc_session_is_closed(s)) {
		pthread_mutex_lock(&m->lock);
		pthread_mutex_lock(&op->lock);
		if (op->sender == snd) {
			x = end_sender(op, snd, now, ACT_ERROR, &a,
			    "session closed");
			x->remove = false;
			handle_error(&x->err, "SESSION_CLOSED", s->session_id,
			    "Session was closed.");
		}
		close_locked(m, op, CLOSE_FORGET, now, &a);
		pthread_mutex_unlock(&op->lock);
		pthread_mutex_unlock(&m->lock);
	}
	acts_run(m, &a);
	sender_unref(snd);
	op_unref(op);
}

/* Find the registered op for key (manager locked); err when there is none. */
static struct sc_exec_op *
find_op(struct sc_execmgr *m, const char *key, size_t klen, const char *id,
    struct sc_error *err)
{
	struct kent *e;

	if ((e = ktab_find(&m->ops, key, klen)) != NULL)
		return e->val;
	if (ktab_find(&m->tombs, key, klen) != NULL)
		handle_error(err, "OPERATION_ABANDONED", id,
		    "Operation was considered abandoned because of "
		    "inactivity and removed.");
	else
		handle_error(err, "OPERATION_NOT_FOUND", id,
		    "Operation not found.");
	return NULL;
}

void
sc_exec_reattach(struct sc_execmgr *m, struct sc_session *s,
    struct sc_rpc_call *call, const Spark__Connect__ReattachExecuteRequest *req)
{
	struct sc_exec_op *op;
	struct sender *snd, *old;
	struct sc_error err;
	struct acts a;
	struct act *x;
	char *key;
	size_t klen;
	int64_t now, index, start;
	const char *id;
	int rc;

	id = req->operation_id != NULL ? req->operation_id : "";
	sc_error_init(&err);
	key = key_make(s->user_id, s->session_id, id, &klen);
	pthread_mutex_lock(&m->lock);
	op = find_op(m, key, klen, id, &err);
	if (op != NULL) {
		if (!op->reattachable) {
			not_reattachable_error(&err);
			op = NULL;
		} else
			op_ref(op);
	}
	pthread_mutex_unlock(&m->lock);
	if (op == NULL) {
		free(key);
		m->tr.finish_error(call, s, &err);
		return;
	}

	snd = sender_new(op, call);
	sender_ref(snd);
	m->tr.on_close(call, close_cb, snd);

	acts_init(&a);
	rc = 0;
	pthread_mutex_lock(&m->lock);
	pthread_mutex_lock(&op->lock);
	now = now_ms(m);
	start = 1;
	if (m->stopping) {
		rc = -1;
	} else if (!op->registered) {
		rc = -1;
		find_op(m, key, klen, id, &err);
	} else if (req->_last_response_id_case ==
	    SPARK__CONNECT__REATTACH_EXECUTE_REQUEST___LAST_RESPONSE_ID_LAST_RESPONSE_ID) {
		rc = sc_execbuf_lookup(op->buf, req->last_response_id, &index,
		    &err);
		start = index + 1;
	}
	if (rc == 0) {
		/* One sender per operation: the old one is disconnected. */
		if ((old = op->sender) != NULL) {
			old->interrupted = true;
			pump(op, old, now, &a);
		}
		if (sc_execbuf_unavailable(op->buf, start, &err))
			rc = -1;
	}
	if (rc == 0) {
		snd->start = snd->next = start;
		sender_ref(snd);
		op->sender = snd;
		op->detached_since = -1;
		op->reattaches++;
		sc_info("operation %s attached: reattach %lld from index %lld",
		    op->id, (long long)op->reattaches, (long long)start);
		pump(op, snd, now, &a);
		pthread_cond_signal(&m->timer_cv);
	} else {
		snd->done = true;
		x = acts_add(&a, snd, ACT_ERROR);
		if (m->stopping)
			unavailable_status(x);
		else
			x->err = err;
	}
	pthread_mutex_unlock(&op->lock);
	pthread_mutex_unlock(&m->lock);
	free(key);
	acts_run(m, &a);
	sender_unref(snd);
	op_unref(op);
}

int
sc_exec_release(struct sc_execmgr *m, struct sc_session *s,
    const Spark__Connect__ReleaseExecuteRequest *req, bool *found,
    struct sc_error *err)
{
	struct sc_exec_op *op;
	struct kent *e;
	struct acts a;
	char *key;
	size_t klen;
	const char *id;
	int rc = 0;

	id = req->operation_id != NULL ? req->operation_id : "";
	key = key_make(s->user_id, s->session_id, id, &klen);
	acts_init(&a);
	pthread_mutex_lock(&m->lock);
	e = ktab_find(&m->ops, key, klen);
	free(key);
	if (e == NULL) {
		pthread_mutex_unlock(&m->lock);
		*found = false;
		return 0;
	}
	op = e->val;
	pthread_mutex_lock(&op->lock);
	if (!op->reattachable)
		rc = not_reattachable_error(err);
	else if (req->release_case ==
	    SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_RELEASE_ALL) {
		sc_info("operation %s released (%s)", op->id,
		    sc_exec_state_name(op->state));
		close_locked(m, op, CLOSE_COMPLETED, now_ms(m), &a);
	} else if (req->release_case ==
		SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_RELEASE_UNTIL &&
	    req->release_until != NULL) {
		rc = sc_execbuf_release_until(op->buf,
		    req->release_until->response_id, err);
		if (rc == 0 && op->waiters > 0)
			pthread_cond_broadcast(&op->cond);
		sc_debug("operation %s released until %s", op->id,
		    req->release_until->response_id);
	} else
		rc = internal_error(err, "Unknown ReleaseExecute type!");
	pthread_mutex_unlock(&op->lock);
	pthread_mutex_unlock(&m->lock);
	acts_run(m, &a);
	if (rc == 0)
		*found = true;
	return rc;
}

static bool
same_session(const struct sc_exec_op *op, const struct sc_session *s)
{
	return strcmp(op->sess->user_id, s->user_id) == 0 &&
	    strcmp(op->sess->session_id, s->session_id) == 0;
}

static bool
has_tag(const struct sc_exec_op *op, const char *tag)
{
	size_t i;

	for (i = 0; i < op->ntags; i++)
		if (strcmp(op->tags[i], tag) == 0)
			return true;
	return false;
}

int
sc_exec_interrupt(struct sc_execmgr *m, struct sc_session *s, int type,
    const char *arg, char ***ids, size_t *nids, struct sc_error *err)
{
	struct sc_exec_op *op;
	struct kent *e;
	struct acts a;
	char **v = NULL;
	size_t n = 0;
	bool match;

	if (type == 2 && (arg == NULL || arg[0] == '\0'))
		return sc_srv_error(err,
		    "INVALID_PARAMETER_VALUE.INTERRUPT_TYPE_TAG_REQUIRES_TAG",
		    "22023",
		    "The value of parameter(s) `operation_tag` in "
		    "`interrupt` is invalid. INTERRUPT_TYPE_TAG requested, but "
		    "no operation_tag provided.");
	if (type == 3 && (arg == NULL || arg[0] == '\0'))
		return sc_srv_error(err,
		    "INVALID_PARAMETER_VALUE.INTERRUPT_TYPE_OPERATION_ID_REQUIRES_ID",
		    "22023",
		    "The value of parameter(s) `operation_id` in "
		    "`interrupt` is invalid. INTERRUPT_TYPE_OPERATION_ID "
		    "requested, but no operation_id provided.");
	if (type < 1 || type > 3)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.INTERRUPT_TYPE",
		    "0A000",
		    "The feature is not supported: Unsupported "
		    "interrupt type: %d.",
		    type);
	acts_init(&a);
	pthread_mutex_lock(&m->lock);
	for (e = ktab_oldest(&m->ops); e != NULL; e = knext(&m->ops, e)) {
		op = e->val;
		if (!same_session(op, s))
			continue;
		match = type == 1 || (type == 2 && has_tag(op, arg)) ||
		    (type == 3 && strcmp(op->id, arg) == 0);
		if (!match)
			continue;
		pthread_mutex_lock(&op->lock);
		if (cancel_locked(op)) {
			v = sc_xreallocarray(v, n + 1, sizeof(*v));
			v[n++] = sc_xstrdup(op->id);
			if (op->sender != NULL)
				pump(op, op->sender, now_ms(m), &a);
		}
		pthread_mutex_unlock(&op->lock);
	}
	pthread_mutex_unlock(&m->lock);
	acts_run(m, &a);
	*ids = v;
	*nids = n;
	return 0;
}

void
sc_exec_session_closed(struct sc_execmgr *m, struct sc_session *s)
{
	struct sc_exec_op *op;
	struct kent *e, *next;
	struct acts a;
	int64_t now;

	acts_init(&a);
	pthread_mutex_lock(&m->lock);
	now = now_ms(m);
	for (e = ktab_oldest(&m->ops); e != NULL; e = next) {
		next = knext(&m->ops, e);
		op = e->val;
		if (!same_session(op, s))
			continue;
		pthread_mutex_lock(&op->lock);
		sc_info("operation %s abandoned: session closed", op->id);
		close_locked(m, op, CLOSE_ABANDONED, now, &a);
		m->abandoned++;
		pthread_mutex_unlock(&op->lock);
	}
	pthread_mutex_unlock(&m->lock);
	acts_run(m, &a);
}

size_t
sc_execmgr_maintain(struct sc_execmgr *m, int64_t now)
{
	struct sc_exec_op *op;
	struct kent *e, *next;
	struct acts a;
	size_t n = 0;
	int64_t idle;

	acts_init(&a);
	pthread_mutex_lock(&m->lock);
	for (e = ktab_oldest(&m->ops); e != NULL; e = next) {
		next = knext(&m->ops, e);
		op = e->val;
		pthread_mutex_lock(&op->lock);
		if (op->sender == NULL && op->detached_since >= 0 &&
		    (idle = now - op->detached_since) >=
			m->conf.detached_timeout_ms) {
			sc_info("operation %s abandoned: detached for %lld ms",
			    op->id, (long long)idle);
			close_locked(m, op, CLOSE_ABANDONED, now, &a);
			m->abandoned++;
			n++;
		}
		pthread_mutex_unlock(&op->lock);
	}
	while ((e = ktab_oldest(&m->done)) != NULL &&
	    now - e->t >= m->conf.inactive_op_expiry_ms) {
		ktab_remove(&m->done, e);
		free(e->key);
		free(e);
	}
	pthread_mutex_unlock(&m->lock);
	acts_run(m, &a);
	return n;
}

size_t
sc_execmgr_expire_streams(struct sc_execmgr *m, int64_t now)
{
	struct sc_exec_op *op;
	struct kent *e;
	struct acts a;
	size_t n = 0;

	acts_init(&a);
	pthread_mutex_lock(&m->lock);
	for (e = ktab_oldest(&m->ops); e != NULL; e = knext(&m->ops, e)) {
		op = e->val;
		pthread_mutex_lock(&op->lock);
		if (op->sender != NULL && now >= op->sender->deadline) {
			pump(op, op->sender, now, &a);
			n++;
		}
		pthread_mutex_unlock(&op->lock);
	}
	pthread_mutex_unlock(&m->lock);
	acts_run(m, &a);
	return n;
}

/* ------------------------------------------------------- the timer */

static void *
timer_main(void *arg)
{
	struct sc_execmgr *m = arg;
	struct sc_exec_op *op;
	struct kent *e;
	struct timespec ts;
	int64_t now, wake, next_maint, interval, comp;

	interval = m->conf.maintenance_interval_ms;
	if (interval < 10)
		interval = 10;
	pthread_mutex_lock(&m->lock);
	next_maint = now_ms(m) + interval;
	while (!m->stopping) {
		now = now_ms(m);
		wake = next_maint;
		for (e = ktab_oldest(&m->ops); e != NULL;
		     e = knext(&m->ops, e)) {
			op = e->val;
			pthread_mutex_lock(&op->lock);
			if (op->sender != NULL && op->sender->deadline < wake)
				wake = op->sender->deadline;
			pthread_mutex_unlock(&op->lock);
		}
		/* A stall that begins signals timer_cv under m->lock. */
		comp = compensate_at(m, now);
		if (comp < wake)
			wake = comp;
		if (now < wake) {
			abs_mono(wake, &ts);
			pthread_cond_timedwait(&m->timer_cv, &m->lock, &ts);
			continue;
		}
		pthread_mutex_unlock(&m->lock);
		if (now >= comp)
			sc_execmgr_compensate(m, now);
		sc_execmgr_expire_streams(m, now);
		if (now >= next_maint) {
			sc_execmgr_maintain(m, now);
			reap(m);
			next_maint = now + interval;
		}
		pthread_mutex_lock(&m->lock);
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

/* ----------------------------------------------------- the manager */

static int
tr_send(struct sc_rpc_call *call, const void *msg, size_t len,
    sc_rpc_sent_fn *sent, void *arg)
{
	return sc_rpc_call_send(call, msg, len, sent, arg);
}

static int
tr_finish(struct sc_rpc_call *call, int code, const char *msg)
{
	return sc_rpc_call_finish(call, code, msg, NULL, 0);
}

static const struct sc_exec_transport rpc_transport = {
	.send = tr_send,
	.send_ref = sc_rpc_call_send_ref,
	.finish = tr_finish,
	.finish_error = sc_srv_finish_error,
	.on_close = sc_rpc_call_on_close,
	.ref = sc_rpc_call_ref,
	.unref = sc_rpc_call_unref,
};

struct sc_execmgr *
sc_execmgr_new_opts(struct sc_server *srv, const struct sc_execmgr_opts *o)
{
	struct sc_execmgr *m;
	pthread_condattr_t ca;
	int i, rc;
	int64_t now;

	m = sc_xcalloc(1, sizeof(*m));
	m->srv = srv;
	m->conf = srv->conf;
	m->clock = o != NULL && o->clock != NULL ? o->clock : default_clock;
	m->clock_arg = o != NULL ? o->clock_arg : NULL;
	m->run = o != NULL && o->run != NULL ? o->run : sc_exec_run_engine;
	m->run_arg = o != NULL ? o->run_arg : NULL;
	m->tr = o != NULL && o->transport != NULL ? *o->transport
						  : rpc_transport;
	m->completed_max = o != NULL && o->completed_max > 0 ? o->completed_max
							     : COMPLETED_MAX;
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->slock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->timer_cv, &ca);
	pthread_cond_init(&m->work_cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&m->threads_cv, NULL);
	sc_htab_init(&m->ops);
	sc_htab_init(&m->tombs);
	sc_htab_init(&m->done);
	sc_htab_init(&m->users);
	sc_htab_init(&m->squeues);
	m->workers = m->conf.workers > 0 ? m->conf.workers : 1;
	m->max_threads = m->conf.max_threads > m->workers ? m->conf.max_threads
							  : m->workers;
	m->user_max = m->conf.max_running_per_user > 0
	    ? m->conf.max_running_per_user
	    : m->max_threads;
	m->stall_since = -1;
	m->spawn_retry_at = INT64_MIN;
	now = now_ms(m);
	pthread_mutex_lock(&m->slock);
	for (i = 0; i < m->workers; i++)
		if (spawn(m, now) == -1)
			SC_BUG("cannot start the runner threads");
	pthread_mutex_unlock(&m->slock);
	if (o == NULL || !o->no_timer) {
		if ((rc = pthread_create(&m->timer, NULL, timer_main, m)) != 0)
			SC_BUG("cannot start the timer thread: %s",
			    strerror(rc));
		m->has_timer = true;
	}
	return m;
}

struct sc_execmgr *
sc_execmgr_new(struct sc_server *srv)
{
	return sc_execmgr_new_opts(srv, NULL);
}

void
sc_execmgr_shutdown(struct sc_execmgr *m)
{
	struct sc_exec_op *op;
	struct kent *e, *next;
	struct acts a;
	struct act *x;
	int64_t now;

	acts_init(&a);
	pthread_mutex_lock(&m->lock);
	if (m->stopping) {
		pthread_mutex_unlock(&m->lock);
		return;
	}
	pthread_mutex_lock(&m->slock);
	m->stopping = true;
	pthread_mutex_unlock(&m->slock);
	now = now_ms(m);
	for (e = ktab_oldest(&m->ops); e != NULL; e = knext(&m->ops, e)) {
		op = e->val;
		pthread_mutex_lock(&op->lock);
		cancel_locked(op);
		if (op->sender != NULL) {
			x = end_sender(op, op->sender, now, ACT_STATUS, &a,
			    "server shutting down");
			x->remove = false;
			unavailable_status(x);
		}
		pthread_mutex_unlock(&op->lock);
	}
	pthread_cond_broadcast(&m->timer_cv);
	pthread_mutex_unlock(&m->lock);
	acts_run(m, &a);

	/* Canceled operations end; then every thread exits. */
	pthread_mutex_lock(&m->slock);
	pthread_cond_broadcast(&m->work_cv);
	while (m->nthreads > 0)
		pthread_cond_wait(&m->threads_cv, &m->slock);
	pthread_mutex_unlock(&m->slock);
	reap(m);
	if (m->has_timer)
		pthread_join(m->timer, NULL);

	pthread_mutex_lock(&m->lock);
	for (e = ktab_oldest(&m->ops); e != NULL; e = next) {
		next = knext(&m->ops, e);
		op = e->val;
		pthread_mutex_lock(&op->lock);
		close_locked(m, op, CLOSE_FORGET, now, &a);
		pthread_mutex_unlock(&op->lock);
	}
	if (m->nring != 0 || m->nready != 0 || m->nqueued != 0)
		SC_BUG("operations still queued after shutdown");
	m->stopped = true;
	pthread_mutex_unlock(&m->lock);
	acts_run(m, &a);
}

static void
ktab_free_entries(struct sc_htab *t)
{
	struct kent *e;

	while ((e = ktab_oldest(t)) != NULL) {
		ktab_remove(t, e);
		free(e->key);
		free(e);
	}
	sc_htab_release(t);
}

void
sc_execmgr_free(struct sc_execmgr *m)
{
	if (m == NULL)
		return;
	sc_execmgr_shutdown(m);
	ktab_free_entries(&m->tombs);
	ktab_free_entries(&m->done);
	sc_htab_release(&m->ops);
	sc_htab_release(&m->users);
	sc_htab_release(&m->squeues);
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->slock);
	pthread_cond_destroy(&m->work_cv);
	pthread_cond_destroy(&m->timer_cv);
	pthread_cond_destroy(&m->threads_cv);
	free(m);
}

/* -------------------------------------------------- inspection */

void
sc_execmgr_counts(struct sc_execmgr *m, struct sc_exec_counts *c)
{
	struct sc_exec_op *op;
	struct kent *e;

	memset(c, 0, sizeof(*c));
	pthread_mutex_lock(&m->lock);
	for (e = ktab_oldest(&m->ops); e != NULL; e = knext(&m->ops, e)) {
		op = e->val;
		pthread_mutex_lock(&op->lock);
		c->by_state[op->state]++;
		if (op->sender != NULL)
			c->attached++;
		pthread_mutex_unlock(&op->lock);
	}
	c->live = sc_htab_count(&m->ops);
	c->tombstones = sc_htab_count(&m->tombs);
	c->completed = sc_htab_count(&m->done);
	c->started = m->started;
	c->abandoned = m->abandoned;
	pthread_mutex_lock(&m->slock);
	c->queued = m->nqueued;
	c->resuming = m->nresume;
	c->parked = m->nparked;
	c->slots = (size_t)m->workers;
	c->slots_busy = (size_t)m->nrunning;
	c->extra_slots = (size_t)m->extra;
	c->threads = (size_t)m->nthreads;
	c->idle_threads = (size_t)m->nidle;
	c->compensations = m->compensations;
	pthread_mutex_unlock(&m->slock);
	pthread_mutex_unlock(&m->lock);
}

void
sc_execmgr_each(struct sc_execmgr *m,
    void (*fn)(const struct sc_exec_info *info, void *arg), void *arg)
{
	struct sc_exec_info info;
	struct sc_execbuf_stats st;
	struct sc_exec_op *op;
	struct kent *e;

	pthread_mutex_lock(&m->lock);
	for (e = ktab_oldest(&m->ops); e != NULL; e = knext(&m->ops, e)) {
		op = e->val;
		memset(&info, 0, sizeof(info));
		key_split(e->key, &info.user_id, &info.session_id, &info.op_id);
		pthread_mutex_lock(&op->lock);
		sc_execbuf_stats(op->buf, &st);
		info.state = op->state;
		info.reattachable = op->reattachable;
		info.attached = op->sender != NULL;
		info.created_ms = op->created_ms;
		info.detached_since_ms =
		    op->sender != NULL ? -1 : op->detached_since;
		info.buffered_bytes = st.bytes;
		info.buffered_responses = st.count;
		info.produced = st.produced;
		info.consumed = st.consumed;
		info.rows_sent = op->rows_sent;
		info.bytes_sent = op->bytes_sent;
		info.rotations = op->rotations;
		info.reattaches = op->reattaches;
		info.ntags = op->ntags;
		info.tags = op->tags;
		pthread_mutex_unlock(&op->lock);
		fn(&info, arg);
	}
	for (e = ktab_oldest(&m->tombs); e != NULL; e = knext(&m->tombs, e)) {
		memset(&info, 0, sizeof(info));
		key_split(e->key, &info.user_id, &info.session_id, &info.op_id);
		info.tombstone = true;
		info.state = SC_EXEC_CLOSED;
		info.detached_since_ms = -1;
		fn(&info, arg);
	}
	pthread_mutex_unlock(&m->lock);
}
