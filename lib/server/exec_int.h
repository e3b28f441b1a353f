/* SPDX-License-Identifier: MIT */

/*
 * exec_int.h: what the files of the execution manager share, and nobody
 * else may use.
 *
 *   exec.c        the operation's states and transitions, the four
 *                 handlers, session close, maintenance, the manager's
 *                 life (new, shutdown, free)
 *   exec_send.c   references and deferred actions, senders (the RPC
 *                 streaming an operation's responses: sc_exec_pump, rotation,
 *                 flow control), and the runner side (sc_exec_emit*)
 *   exec_sched.c  the slot scheduler, the runner threads and the timer
 *   exec_table.c  keys, the bounded tombstone and completed-id caches,
 *                 inspection
 *   exec_buffer.c the response buffer of one operation
 *   exec_run.c    the default runner (the engine)
 *
 * An operation (struct sc_exec_op) has a state machine, a response
 * buffer and at most one sender: the RPC streaming its responses.  A
 * sender never blocks anybody: it hands one response to the transport,
 * and the transport's sent() callback hands the next one (flow control);
 * a sender with nothing to send costs no thread, and is woken by whoever
 * changes the operation (a new response, the end, an interrupt, the
 * timer).  Decisions are taken under the operation lock; finishing a
 * call, which may take a session lock in service.c, happens after every
 * lock was dropped ("acts" collected on the way, run by
 * sc_exec_acts_run()).
 */

#ifndef SC_EXEC_INT_H
#define SC_EXEC_INT_H

#include "server/exec.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/htab.h"
#include "core/uuid.h"

#define NO_DEADLINE INT64_MAX

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
	int64_t rt; /* when added, realtime (tombstones) */
	const char *why; /* static: why it was tombstoned, or NULL */
	void *val;
};

static inline struct kent *
kent_of(struct sc_htab_entry *h)
{
	return h != NULL ? SC_HTAB_ITEM(h, struct kent, h) : NULL;
}

static inline struct kent *
ktab_find(struct sc_htab *t, const char *key, size_t klen)
{
	return kent_of(sc_htab_find(t, key, klen));
}

/* Add e (its key set) as the newest entry. */
static inline void
ktab_insert(struct sc_htab *t, struct kent *e)
{
	sc_htab_insert(t, &e->h, e->key, e->klen);
}

static inline void
ktab_remove(struct sc_htab *t, struct kent *e)
{
	sc_htab_remove(t, &e->h);
}

/* The oldest entry, or NULL; knext() walks on to the newest. */
static inline struct kent *
ktab_oldest(struct sc_htab *t)
{
	return kent_of(sc_htab_first(t));
}

static inline struct kent *
knext(struct sc_htab *t, struct kent *e)
{
	return kent_of(sc_htab_next(t, &e->h));
}

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
	int running; /* operations started, not paused and not ended */
	int paused; /* parked ones: a thread each, no slot */
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

/* A job (sc_execmgr_submit()), waiting or ready (m->slock). */
struct job {
	sc_exec_job_fn *fn;
	void *arg;
	int64_t slot_since;
	struct job *next;
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
	int64_t responses_sent; /* sends handed to the transport */
	int64_t started_ms; /* realtime; 0: not yet */
	int64_t finished_ms; /* realtime; 0: not yet */
	int64_t attach_change_ms; /* realtime: last attach or detach */
	int64_t progress_at; /* manager clock: last PROGRESS event */
	int64_t charge; /* runner's: value budget for the next response */
	struct sc_execacct *charge_acct;
	/* Immutable after creation: a short text of the plan. */
	char statement[SC_EXEC_STATEMENT_MAX + 4];
	char digest[17]; /* sc_exec_log_digest() */
	char peer[72]; /* the ExecutePlan call's client address */

	/* The scheduler's, under m->slock. */
	enum sched_st sched;
	struct uent *user; /* while waiting or started */
	struct squeue *sq; /* while waiting */
	struct sc_exec_op *qnext, *qprev; /* in sq, or the ready list */
	int64_t slot_since; /* when it got its slot */
	pthread_cond_t slot_cv; /* SCH_RESUME waits here */
	bool inline_run; /* runs on the thread that received it */
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
	struct sc_server_conf conf;
	sc_exec_clock_fn *clock;
	void *clock_arg;
	sc_exec_run_fn *run;
	void *run_arg;
	struct sc_exec_transport tr;
	size_t completed_max;

	pthread_mutex_t lock;
	pthread_cond_t timer_cv;
	/*
	 * When the timer thread wakes by itself (under lock), INT64_MIN
	 * while it works: a new deadline later than that needs no signal.
	 */
	int64_t timer_at;
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
	int user_max; /* conf.max_running_per_user */
	int user_held_max; /* threads one user may hold, paused included */
	int nthreads, nidle;
	int ninline; /* runs on RPC threads (sc_exec_sched_take) */
	struct job *jhead, *jtail; /* jobs waiting for a slot */
	struct job *jrhead, *jrtail; /* jobs with a slot, no thread yet */
	size_t njobs; /* waiting */
	bool job_turn; /* the next free slot goes to a job */
	atomic_bool stop_flag; /* = stopping, read without a lock */
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
	/* Totals since start (any thread). */
	atomic_uint_fast64_t finished, failed, canceled, reattached;
	atomic_int_fast64_t rows_total, bytes_total;
	/*
	 * Unconsumed response bytes of every operation (their buffers keep
	 * it), capped by conf.max_buffered_bytes: a runner over it waits on
	 * room_cv (room_mu, taken after an operation lock, never before),
	 * counted in room_waiters.
	 */
	atomic_int_fast64_t buffered;
	pthread_mutex_t room_mu;
	pthread_cond_t room_cv;
	atomic_int room_waiters;
	/* Set before the first operation, then read without a lock. */
	sc_exec_event_fn *event_fn;
	void *event_arg;
};

/* What to do with a call once every lock is dropped. */
enum act_kind {
	ACT_OK = 0, /* finish with OK */
	ACT_ERROR, /* finish with a Spark error */
	ACT_STATUS, /* finish with a plain gRPC status */
	ACT_NONE /* already finished (the last response carried OK) */
};

struct act {
	struct sender *s; /* holds a ref */
	enum act_kind kind;
	int code;
	const char *msg;
	bool remove; /* then remove the op */
	struct sc_error err;
};

/* A send decided under the operation lock, started after it is dropped. */
struct asend {
	struct sender *s; /* holds a ref, for sent_cb() */
	const uint8_t *data;
	size_t len;
	struct sc_execmem *mem; /* holds a ref: data stays valid */
	bool last; /* with status OK, no sent_cb() */
};

struct acts {
	struct act *v;
	size_t n, cap;
	struct asend *sends;
	size_t nsends, capsends;
	struct sc_exec_op **unref; /* op refs to drop */
	size_t nunref, capunref;
};

enum close_how {
	CLOSE_COMPLETED = 0, /* released or ended: remember the id */
	CLOSE_ABANDONED, /* tombstone first */
	CLOSE_FORGET /* shutdown, closed session at creation */
};

/* The manager's clock. */
static inline int64_t
sc_exec_now(struct sc_execmgr *m)
{
	return m->clock(m->clock_arg);
}

/* exec.c */
void sc_exec_set_state(struct sc_exec_op *op, enum sc_exec_state to);
int sc_exec_canceled_error(struct sc_error *err);
int sc_exec_internal_error(struct sc_error *err, const char *msg);
/* A non-reattachable operation whose stream ended goes away. */
void sc_exec_remove_op(struct sc_execmgr *m, struct sc_exec_op *op);

/* exec_send.c: references; the _held ones are never the last. */
void sc_exec_op_ref(struct sc_exec_op *op);
void sc_exec_op_unref(struct sc_exec_op *op);
void sc_exec_op_unref_held(struct sc_exec_op *op);
void sc_exec_sender_ref(struct sender *s);
void sc_exec_sender_unref(struct sender *s);
/* exec_send.c: actions, run once every lock of ours is dropped. */
void sc_exec_acts_init(struct acts *a);
struct act *sc_exec_acts_add(struct acts *a, struct sender *s,
    enum act_kind kind);
void sc_exec_acts_unref_later(struct acts *a, struct sc_exec_op *op);
void sc_exec_acts_run(struct sc_execmgr *m, struct acts *a);
/* exec_send.c: senders (op locked unless said otherwise). */
struct sender *sc_exec_sender_new(struct sc_exec_op *op,
    struct sc_rpc_call *call);
struct act *sc_exec_end_sender(struct sc_exec_op *op, struct sender *s,
    int64_t now, enum act_kind kind, struct acts *a, const char *why);
void sc_exec_pump(struct sc_exec_op *op, struct sender *s, int64_t now,
    struct acts *a);
/*
 * Wake the runners waiting for room under conf.max_buffered_bytes: all
 * of them when force (an operation ended, or one's unconsumed bytes
 * fell to none), else once the total is low enough again.  Any lock of
 * ours but room_mu may be held.
 */
void sc_exec_room_wake(struct sc_execmgr *m, bool force);
/* The transport's close callback of a sender's call (no lock held). */
void sc_exec_close_cb(struct sc_rpc_call *call, bool cancelled, void *arg);
uint8_t *sc_exec_pack_response(struct sc_exec_op *op,
    Spark__Connect__ExecutePlanResponse *r, char rid[SC_UUID_STRLEN],
    size_t *lenp, struct sc_error *err);

/* exec_sched.c */
/*
 * Start conf.workers runner threads, and the timer thread when timer is
 * set: 0, or -1 with err (SC_ST_INTERNAL) when a thread cannot be
 * started (those started run until sc_exec_sched_stop()).
 * sc_exec_sched_stop() waits for every runner (their operations
 * canceled) and the timer to end (m->stopping set).
 */
int sc_exec_sched_start(struct sc_execmgr *m, bool timer, struct sc_error *err);
void sc_exec_sched_stop(struct sc_execmgr *m);
bool sc_exec_sched_add(struct sc_execmgr *m, struct sc_exec_op *op,
    int64_t now);
/*
 * Give op a slot at once, to run on the calling thread, when a slot is
 * free, nothing waits and its user runs nothing else (manager locked,
 * registered, its sender set); false: queue it with sc_exec_sched_add().
 * After true, sc_exec_sched_run_inline() (no lock of ours held) runs it.
 */
bool sc_exec_sched_take(struct sc_execmgr *m, struct sc_exec_op *op,
    int64_t now);
void sc_exec_sched_run_inline(struct sc_execmgr *m, struct sc_exec_op *op);
void sc_exec_sched_cancel(struct sc_execmgr *m, struct sc_exec_op *op);
bool sc_exec_sched_park(struct sc_execmgr *m, struct sc_exec_op *op);
void sc_exec_sched_resume(struct sc_execmgr *m, struct sc_exec_op *op);

/* exec_table.c */
char *sc_exec_key_make(const char *user, const char *session, const char *op,
    size_t *lenp);
struct kent *sc_exec_remember(struct sc_htab *t, const struct kent *src,
    int64_t now, size_t max);
/*
 * Fill info from op (op locked; pointers borrowed from op) and tell the
 * event callback, if there is one, about ev.  PROGRESS is sent at most
 * once per SC_EXEC_PROGRESS_MS per operation.
 */
void sc_exec_op_info(struct sc_exec_op *op, int64_t now,
    struct sc_exec_info *info);
void sc_exec_event(struct sc_exec_op *op, enum sc_exec_event ev, int64_t now);
/* A short text of plan (SQL text or "range(0, 10)") into out. */
void sc_exec_plan_summary(const Spark__Connect__Plan *plan, char *out,
    size_t outsz);
/* Remove and free every entry of t, and release it. */
void sc_exec_ktab_free_entries(struct sc_htab *t);

#endif
