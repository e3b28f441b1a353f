/* SPDX-License-Identifier: MIT */

/*
 * exec.h: operations of sc-serve: ExecutePlan, ReattachExecute,
 * ReleaseExecute, Interrupt and the execution manager (Spark's
 * ExecuteHolder, ExecuteResponseObserver, ExecuteGrpcResponseSender and
 * SparkConnectExecutionManager).
 *
 *   exec.c          operations, their state machine, the handlers, the
 *                   manager's life and maintenance
 *   exec_send.c     senders: pump, stream rotation, flow control, and
 *                   sc_exec_emit*() for runners
 *   exec_sched.c    the slot scheduler, runner threads, the timer
 *   exec_table.c    keys, tombstones, recently completed ids, inspection
 *   exec_buffer.c   the per-operation response buffer (retry buffer)
 *   exec_run.c      the default runner: a plan on the embedded engine
 *   exec_int.h      what these files share
 *
 * Threads: the handlers below run on completion-queue threads and never
 * block; plans run on runner threads; one timer thread ends streams at
 * senderMaxStreamDuration, runs maintenance and compensates stalls.
 *
 * Scheduling: conf.workers slots, the right to compute.  An operation
 * waits PENDING until it gets a slot and a thread, in fair order (users
 * in turn, their sessions in turn, each session's operations in
 * order), and only while its user runs fewer than
 * conf.max_running_per_user operations.  One that waits for its reader
 * (backpressure) gives its slot back and queues for one again once the
 * reader made room; it keeps its thread, since the engine calls the sink
 * from inside its loop.  When work has waited conf.compensation_delay_ms
 * while every slot stayed busy, one more slot is added until the next
 * one is released.  Threads start on demand up to conf.max_threads;
 * those beyond conf.workers exit after conf.thread_idle_ms idle.  The
 * operations of one session may run at the same time (each has its own
 * cancel flag for the engine).
 *
 * Locks: the manager lock is taken before an operation lock, and the
 * scheduler lock after both; none of them is held while calling
 * sc_srv_finish_error() or into the session manager.
 */

#ifndef SC_EXEC_H
#define SC_EXEC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/protocol.h"
#include "core/rpc_server.h"
#include "server/server.h"

struct sc_error;
struct sc_execmgr;
struct sc_exec_op;

/* ------------------------------------------------------- the service */

/*
 * A manager with the settings conf (copied).  Plans run on the engine
 * connection of their session (sc_session_conn(), opened by the caller
 * of sc_exec_execute()).  Starts conf.workers worker threads and the
 * timer thread, which also calls sc_execmgr_maintain() every
 * conf.maintenance_interval_ms.  NULL with err (SC_ST_INTERNAL) when a
 * thread cannot be started.
 */
struct sc_execmgr *sc_execmgr_new(const struct sc_server_conf *conf,
    struct sc_error *err);
/*
 * Jobs: short work that is not an operation (AnalyzePlan) run on the
 * same bounded runner threads, so it counts in conf.workers and
 * conf.max_threads.  A job waits in its own queue for a slot (jobs and
 * operations take turns) and a thread, then fn(arg, true) runs on a
 * runner thread.  A job still queued at shutdown gets fn(arg, false) (on
 * the thread of sc_execmgr_shutdown()) and must only clean up.  A running
 * job must stop soon once sc_execmgr_stopping() is true (shutdown waits
 * for it).  0, or -1 with err (SC_ST_INTERNAL) after shutdown began:
 * then fn is not called.
 */
typedef void sc_exec_job_fn(void *arg, bool run);
int sc_execmgr_submit(struct sc_execmgr *m, sc_exec_job_fn *fn, void *arg,
    struct sc_error *err);
/* Whether shutdown began; any thread, no lock. */
bool sc_execmgr_stopping(struct sc_execmgr *m);

/*
 * Shut down: refuse new operations, cancel every operation, end every
 * attached stream with UNAVAILABLE "sc-serve is shutting down", and join
 * all threads.  Idempotent.  Call it with no session lock held.
 */
void sc_execmgr_shutdown(struct sc_execmgr *m);
/*
 * Shut down if not done yet, and free m.  NULL is a no-op.  Call it after
 * sc_rpc_server_shutdown(): until then call callbacks may still arrive.
 * The right order is sc_execmgr_shutdown(), sc_rpc_server_shutdown(),
 * sc_execmgr_free().
 */
void sc_execmgr_free(struct sc_execmgr *m);

/*
 * The handlers own the call's reply: they always finish the call, now
 * (an error) or later (the stream).  The session has been looked up
 * (get-or-create for ExecutePlan, get-only for ReattachExecute) and
 * SESSION_CHANGED checked by the caller; they take their own session
 * reference when they keep it.  Both register the call's close callback
 * (sc_rpc_call_on_close()), so the caller must not.  Neither blocks.
 *
 * sc_exec_execute: validate operation_id (INVALID_HANDLE.FORMAT) and
 * tags, refuse a live or recently completed id
 * (INVALID_HANDLE.OPERATION_ALREADY_EXISTS) or an abandoned one
 * (INVALID_HANDLE.OPERATION_ABANDONED), queue the plan and attach the
 * call as the operation's sender.
 *
 * sc_exec_reattach: INVALID_HANDLE.OPERATION_NOT_FOUND,
 * INVALID_HANDLE.OPERATION_ABANDONED, INVALID_CURSOR.NOT_REATTACHABLE,
 * INVALID_CURSOR.POSITION_NOT_FOUND or POSITION_NOT_AVAILABLE; otherwise
 * the call replaces the current sender (which ends with
 * INVALID_CURSOR.DISCONNECTED) and resumes after last_response_id.
 */
void sc_exec_execute(struct sc_execmgr *m, struct sc_session *s,
    struct sc_rpc_call *call, const Spark__Connect__ExecutePlanRequest *req);
void sc_exec_reattach(struct sc_execmgr *m, struct sc_session *s,
    struct sc_rpc_call *call,
    const Spark__Connect__ReattachExecuteRequest *req);

/*
 * ReleaseExecute (the session was looked up get-only).  Returns 0 and
 * sets *found (false: no such operation, which is not an error), or -1
 * with err set by sc_srv_error(): INVALID_CURSOR.NOT_REATTACHABLE,
 * INVALID_CURSOR.POSITION_NOT_FOUND (release_until of an id this
 * operation never produced, or one forgotten long ago: see
 * exec_buffer.c), or an INTERNAL error when neither release_all nor
 * release_until is set.
 */
int sc_exec_release(struct sc_execmgr *m, struct sc_session *s,
    const Spark__Connect__ReleaseExecuteRequest *req, bool *found,
    struct sc_error *err);

/*
 * Interrupt operations of session s: type 1 all, 2 those tagged arg, 3
 * the one with id arg.  On success *ids is a malloc'ed array of *nids
 * malloc'ed operation ids (those this call moved to CANCELED; free each
 * and the array; NULL when *nids is 0).  -1 with err set by
 * sc_srv_error(): INVALID_PARAMETER_VALUE.INTERRUPT_TYPE_TAG_REQUIRES_TAG,
 * ..._OPERATION_ID_REQUIRES_ID, UNSUPPORTED_FEATURE.INTERRUPT_TYPE.
 */
int sc_exec_interrupt(struct sc_execmgr *m, struct sc_session *s, int type,
    const char *arg, char ***ids, size_t *nids, struct sc_error *err);

/*
 * Session s was closed: remove its operations as abandoned (tombstoned,
 * canceled, streams ended with INVALID_CURSOR.DISCONNECTED).  Call it
 * after marking s closed and with no session or session-manager lock
 * held.  sc_exec_session_closed_hook() is the same as a close hook of
 * the session manager (sc_sessmgr_on_close(), arg: the execution
 * manager).
 */
void sc_exec_session_closed(struct sc_execmgr *m, struct sc_session *s);
void sc_exec_session_closed_hook(struct sc_session *s, void *execmgr);

/*
 * Maintenance at now_mono_ms (the manager's clock): remove operations
 * detached for at least conf.detached_timeout_ms as abandoned
 * (tombstone first, then remove), and drop expired entries of the
 * recently-completed cache.  Returns the number of operations abandoned.
 */
size_t sc_execmgr_maintain(struct sc_execmgr *m, int64_t now_mono_ms);

/* ---------------------------------------------------- inspection */

enum sc_exec_state {
	SC_EXEC_PENDING = 0, /* queued for a worker */
	SC_EXEC_RUNNING, /* a worker runs the plan */
	SC_EXEC_FINISHED, /* all responses produced */
	SC_EXEC_FAILED, /* ended with an error (replayed) */
	SC_EXEC_CANCELED, /* interrupted: ends with OPERATION_CANCELED */
	SC_EXEC_CLOSED /* removed, its buffer dropped */
};
#define SC_EXEC_NSTATES 6

/* "PENDING", "RUNNING", ...; "?" when out of range. */
const char *sc_exec_state_name(enum sc_exec_state st);
/*
 * Whether an operation may go from -> to.  Legal: PENDING->RUNNING,
 * PENDING->CANCELED, RUNNING->FINISHED, RUNNING->FAILED,
 * RUNNING->CANCELED, and FINISHED, FAILED or CANCELED -> CLOSED.  An
 * operation closed while PENDING or RUNNING is canceled first.
 */
bool sc_exec_state_legal(enum sc_exec_state from, enum sc_exec_state to);

/* One live operation or tombstone, as sc_execmgr_each() shows it. */
struct sc_exec_info {
	const char *op_id;
	const char *user_id;
	const char *session_id;
	const char *server_side_session_id; /* "" for tombstones */
	bool tombstone; /* abandoned: ids, time and reason only */
	enum sc_exec_state state;
	bool reattachable;
	bool attached; /* a stream is attached */
	int64_t created_ms; /* realtime */
	int64_t started_ms; /* realtime; 0: not yet */
	int64_t finished_ms; /* realtime; 0: not yet (also canceled) */
	int64_t detached_since_ms; /* manager clock; -1: attached */
	int64_t attach_change_ms; /* realtime: attached or detached since */
	int64_t abandon_in_ms; /* detached and reattachable; else -1 */
	int64_t buffered_bytes; /* kept for retry or unsent */
	int64_t buffered_responses;
	int64_t produced; /* highest index produced */
	int64_t consumed; /* highest index sent */
	int64_t responses_sent; /* sends, all streams (resends count) */
	int64_t responses_released; /* produced and no longer buffered */
	int64_t rows_sent; /* Arrow rows sent */
	int64_t bytes_sent; /* bytes sent, all streams */
	int64_t rotations; /* streams ended at a limit */
	int64_t reattaches; /* reattaches attached */
	const char *statement; /* SQL text or plan summary, abbreviated */
	char last_error_class[128]; /* "" when none or without a class */
	int64_t closed_ms; /* tombstones: when, realtime */
	const char *reason; /* tombstones: why */
	size_t ntags;
	char *const *tags;
};

/* The longest statement text kept (bytes, then "..."). */
#define SC_EXEC_STATEMENT_MAX 200
/* At most one PROGRESS event per operation per this many ms. */
#define SC_EXEC_PROGRESS_MS 500

struct sc_exec_counts {
	size_t live; /* registered operations */
	size_t by_state[SC_EXEC_NSTATES]; /* live ones per state */
	size_t attached; /* live ones with a sender */
	size_t tombstones; /* abandoned ids remembered */
	size_t completed; /* recently completed ids remembered */
	size_t queued; /* new ones waiting for a slot */
	size_t resuming; /* paused ones waiting for a slot again */
	size_t parked; /* paused for their reader, holding no slot */
	size_t slots; /* conf.workers */
	size_t slots_busy; /* held by running operations */
	size_t extra_slots; /* added by compensation, still in use */
	size_t threads; /* runner threads */
	size_t idle_threads;
	uint64_t compensations; /* slots added since start */
	uint64_t started; /* operations created since start */
	uint64_t abandoned; /* removed as abandoned since start */
	uint64_t finished; /* ended FINISHED since start */
	uint64_t failed; /* ended FAILED since start */
	uint64_t canceled; /* CANCELED since start */
	uint64_t reattaches; /* reattaches attached since start */
	int64_t rows_sent; /* Arrow rows sent since start */
	int64_t bytes_sent; /* response bytes sent since start */
	int64_t buffered; /* unconsumed response bytes, all operations */
};

void sc_execmgr_counts(struct sc_execmgr *m, struct sc_exec_counts *c);
/*
 * Call fn for every live operation, then every tombstone.  fn runs with
 * the manager lock held: it must not call back into m.  info is valid
 * during the call only.
 */
void sc_execmgr_each(struct sc_execmgr *m,
    void (*fn)(const struct sc_exec_info *info, void *arg), void *arg);

/*
 * A copy of the live operations (oldest first), and of the tombstones
 * when tombstones is set, taken with the manager lock held only while
 * copying: its string pointers stay valid (the operations are
 * referenced) until sc_exec_snapshot_release().
 */
struct sc_exec_snapshot {
	struct sc_exec_info *v;
	size_t n;
	struct sc_exec_op **ops; /* referenced, n_ops of them */
	size_t n_ops;
	char **keys; /* tombstone key copies */
	size_t n_keys;
};
void sc_execmgr_snapshot(struct sc_execmgr *m, bool tombstones,
    struct sc_exec_snapshot *out);
void sc_exec_snapshot_release(struct sc_exec_snapshot *s);

/*
 * Events of an operation's life, for an observer (sc-serve's admin
 * service).  CREATED (registered, its first stream attached), STARTED
 * (running), ATTACHED (a reattach), DETACHED (its stream ended),
 * PROGRESS (responses produced or sent; at most one per
 * SC_EXEC_PROGRESS_MS), FINISHED, FAILED, CANCELED, RELEASED
 * (ReleaseExecute release_all), ABANDONED, REMOVED (gone from the
 * manager, after RELEASED or ABANDONED or when a non-reattachable
 * stream ended).
 */
enum sc_exec_event {
	SC_EXEC_EV_CREATED = 0,
	SC_EXEC_EV_STARTED,
	SC_EXEC_EV_ATTACHED,
	SC_EXEC_EV_DETACHED,
	SC_EXEC_EV_PROGRESS,
	SC_EXEC_EV_FINISHED,
	SC_EXEC_EV_FAILED,
	SC_EXEC_EV_CANCELED,
	SC_EXEC_EV_RELEASED,
	SC_EXEC_EV_ABANDONED,
	SC_EXEC_EV_REMOVED
};
/*
 * Called with the operation's lock (and maybe the manager lock) held:
 * it must not block nor call into the manager; info is valid during the
 * call only.
 */
typedef void sc_exec_event_fn(enum sc_exec_event ev,
    const struct sc_exec_info *info, void *arg);
/* Set the one observer, before the first operation is created. */
void sc_execmgr_on_event(struct sc_execmgr *m, sc_exec_event_fn *fn, void *arg);
/* The manager's settings (borrowed). */
const struct sc_server_conf *sc_execmgr_conf(const struct sc_execmgr *m);

/* ---------------------------------- internals, exposed for the tests */

/*
 * The response buffer of one operation (exec_buffer.c).  Responses are
 * packed bytes with an index 1, 2, 3, ... and a UUID response id.  Not
 * locked: the owner's lock protects it.
 */
struct sc_execbuf;

/* Ids of evicted responses still answered exactly (see exec_buffer.c). */
#define SC_EXECBUF_EVICTED_IDS 8192

/* A buffer keeping retry_size bytes behind the last consumed response. */
struct sc_execbuf *sc_execbuf_new(int64_t retry_size);
void sc_execbuf_free(struct sc_execbuf *b);
/*
 * Keep *total (shared by several buffers, or NULL for none) up to date
 * with this buffer's unconsumed bytes from now on.  It must outlive b
 * while b holds unconsumed bytes (none after sc_execbuf_release_all()).
 */
void sc_execbuf_set_total(struct sc_execbuf *b, atomic_int_fast64_t *total);
/*
 * Append a response: id (36-character UUID, any case), data (malloc'ed,
 * ownership taken) and the number of Arrow rows it carries (for
 * statistics).  Returns its index.  Not after sc_execbuf_finish().
 */
int64_t sc_execbuf_add(struct sc_execbuf *b, const char *id, uint8_t *data,
    size_t len, int64_t rows);
/*
 * As sc_execbuf_add(), with the bytes data, len inside the malloc'ed
 * block mem (ownership taken).
 */
int64_t sc_execbuf_add_mem(struct sc_execbuf *b, const char *id, void *mem,
    uint8_t *data, size_t len, int64_t rows);
/*
 * As sc_execbuf_add_mem(), mem a block of cap bytes from
 * sc_execmem_block(), which goes back to the pool once unused (cap 0:
 * it is freed).
 */
int64_t sc_execbuf_add_block(struct sc_execbuf *b, const char *id, void *mem,
    size_t cap, uint8_t *data, size_t len, int64_t rows);
/* No more responses: the final index is the last one added. */
void sc_execbuf_finish(struct sc_execbuf *b);
/*
 * Consume response index (index >= 1), as a sender does before sending
 * it.  Returns 1 with *data, *len and *rows (borrowed until the next
 * call on b; rows may be NULL), 0 if it has not been produced yet, 2 if
 * index is past the final index (the stream is complete), or -1 with
 * INVALID_CURSOR.POSITION_NOT_AVAILABLE if it was evicted or released.
 * Consuming evicts older responses by Spark's rule (see exec_buffer.c).
 */
int sc_execbuf_consume(struct sc_execbuf *b, int64_t index,
    const uint8_t **data, size_t *len, int64_t *rows, struct sc_error *err);
/*
 * A new reference to the memory of buffered response index (just
 * consumed), which stays valid after the buffer drops it; release it
 * with sc_execmem_unref() (from any thread).
 */
struct sc_execmem;
struct sc_execmem *sc_execbuf_ref(struct sc_execbuf *b, int64_t index);
void sc_execmem_unref(void *mem);
/*
 * A malloc'ed block of at least want bytes (*capp: its size), reused
 * from a small process-wide pool of freed response blocks when one
 * fits.  sc_execmem_block_put() gives one back (freed when the pool is
 * full or cap is 0); sc_execmem_pool_drain() frees the pool.  Any
 * thread.
 */
void *sc_execmem_block(size_t want, size_t *capp);
void sc_execmem_block_put(void *p, size_t cap);
void sc_execmem_pool_drain(void);
/*
 * The value budget: memory that rows of large values take in the whole
 * server while they are built, buffered and sent (SQLite's copy of the
 * values, the Arrow column, the response block).  A runner takes a
 * row's bytes before it builds the row, on its user's account (one
 * user holds at most half of the budget); a response block carries its
 * share (sc_execbuf_charge_last()) until it is freed.  Process-wide.
 * sc_execmem_budget_set(): cap bytes, -1 for no limit;
 * sc_execmem_budget(): the cap and the bytes taken (either may be NULL).
 * sc_execmem_take_now(): take n for user at once when it fits and
 * nobody waits (always with force); its account, or NULL.
 * sc_execmem_take(): wait in arrival order until n fits; the account,
 * or NULL once *cancel is set (nothing taken).  sc_execmem_give(): give
 * n back to the account.  Any thread.
 */
struct sc_execacct;
void sc_execmem_budget_set(int64_t cap);
void sc_execmem_budget(int64_t *capp, int64_t *usedp);
struct sc_execacct *sc_execmem_take_now(const char *user, int64_t n,
    bool force);
struct sc_execacct *sc_execmem_take(const char *user, int64_t n,
    const atomic_int *cancel);
void sc_execmem_give(struct sc_execacct *a, int64_t n);
/*
 * The newest response carries n bytes of the value budget of account
 * a, given back when its memory is freed.
 */
void sc_execbuf_charge_last(struct sc_execbuf *b, struct sc_execacct *a,
    int64_t n);
/*
 * Drop the responses already handed to a sender, kept only for a
 * reattach (an operation about to wait for the value budget must not
 * wait for itself).  Returns how many were dropped.
 */
int64_t sc_execbuf_drop_consumed(struct sc_execbuf *b);
/*
 * Whether consuming index would fail with POSITION_NOT_AVAILABLE (it
 * was evicted or released); err filled when true.
 */
bool sc_execbuf_unavailable(struct sc_execbuf *b, int64_t index,
    struct sc_error *err);
/* The index of response id: 0, or -1 with POSITION_NOT_FOUND. */
int sc_execbuf_lookup(struct sc_execbuf *b, const char *id, int64_t *index,
    struct sc_error *err);
/* Drop responses up to and including id: 0, or -1 POSITION_NOT_FOUND. */
int sc_execbuf_release_until(struct sc_execbuf *b, const char *id,
    struct sc_error *err);
/* Drop every buffered response (ids are still known). */
void sc_execbuf_release_all(struct sc_execbuf *b);

struct sc_execbuf_stats {
	int64_t produced; /* highest index added, 0 if none */
	int64_t consumed; /* highest index consumed, 0 if none */
	int64_t final; /* -1 until finished */
	int64_t first; /* lowest buffered index */
	int64_t bytes; /* bytes buffered */
	int64_t count; /* responses buffered */
	int64_t unconsumed; /* bytes above consumed */
	int64_t known_ids; /* ids that can be looked up */
};
void sc_execbuf_stats(const struct sc_execbuf *b, struct sc_execbuf_stats *st);

/* The clock of a manager: milliseconds on a monotonic scale. */
typedef int64_t sc_exec_clock_fn(void *arg);

/*
 * Runs one operation's plan on a worker thread: produce responses with
 * sc_exec_emit() (schema, batches, metrics, ...; ResultComplete is added
 * by the caller), then return 0, or -1 with err (the stream then ends
 * with err after the responses produced so far).  The default runner
 * (exec_run.c) runs it on the session's engine connection.
 */
typedef int sc_exec_run_fn(struct sc_exec_op *op,
    const Spark__Connect__Plan *plan, void *arg, struct sc_error *err);

/*
 * How a manager talks to calls; the default is rpc.c and
 * sc_srv_finish_error().  Tests substitute fakes.
 */
struct sc_exec_transport {
	int (*send)(struct sc_rpc_call *call, const void *msg, size_t len,
	    sc_rpc_sent_fn *sent, void *arg);
	/* Optional: send without copying (sc_rpc_call_send_ref()). */
	int (*send_ref)(struct sc_rpc_call *call, const void *msg, size_t len,
	    void (*unref)(void *), void *ref, sc_rpc_sent_fn *sent, void *arg);
	/*
	 * Optional: the last response and status OK in one batch, without
	 * copying (sc_rpc_call_reply_ref()); no sent() follows.
	 */
	int (*reply_ref)(struct sc_rpc_call *call, const void *msg, size_t len,
	    void (*unref)(void *), void *ref);
	int (*finish)(struct sc_rpc_call *call, int code, const char *msg);
	void (*finish_error)(struct sc_rpc_call *call, struct sc_session *s,
	    const struct sc_error *err);
	void (*on_close)(struct sc_rpc_call *call, sc_rpc_close_fn *fn,
	    void *arg);
	void (*ref)(struct sc_rpc_call *call);
	void (*unref)(struct sc_rpc_call *call);
	/* Optional: the client's address (sc_rpc_call_peer()). */
	const char *(*peer)(struct sc_rpc_call *call);
};

struct sc_execmgr_opts {
	sc_exec_clock_fn *clock; /* NULL: sc_mono_ms() */
	void *clock_arg;
	sc_exec_run_fn *run; /* NULL: engine */
	void *run_arg;
	const struct sc_exec_transport *transport; /* NULL: rpc.c */
	bool no_timer; /* no timer thread */
	size_t completed_max; /* 0: 10000 */
};

/* As sc_execmgr_new() with substitutes (tests). */
struct sc_execmgr *sc_execmgr_new_opts(const struct sc_server_conf *conf,
    const struct sc_execmgr_opts *o, struct sc_error *err);
/*
 * End streams that reached senderMaxStreamDuration at now (the manager's
 * clock); the timer thread does this.  Returns the number ended.
 */
size_t sc_execmgr_expire_streams(struct sc_execmgr *m, int64_t now);
/*
 * Add a slot if work has waited conf.compensation_delay_ms at now (the
 * manager's clock) while every slot was busy, and the slots are fewer
 * than conf.max_threads; the timer thread does this.  Returns the number
 * of slots added (0 or 1).
 */
size_t sc_execmgr_compensate(struct sc_execmgr *m, int64_t now);

/*
 * For runners: set the response's ids (session, server-side session,
 * operation, a fresh response id), pack it once, and buffer it, waking
 * the sender.  Blocks while the operation's unsent bytes exceed
 * conf.high_water_bytes (except in a run on the RPC thread that received
 * it, which only trivial queries get).  0, or -1 with OPERATION_CANCELED once the
 * operation was canceled or closed (the response is dropped).  resp
 * stays the caller's; the id fields are reset before returning.
 */
int sc_exec_emit(struct sc_exec_op *op,
    Spark__Connect__ExecutePlanResponse *resp, struct sc_error *err);
/*
 * For runners: the ArrowBatch response of an Arrow IPC stream of ipclen
 * bytes at mem + SC_EXEC_ARROW_HEADROOM, mem malloc'ed (ownership taken,
 * also on error).  The envelope (sc_proto_arrow_envelope()) is encoded
 * in place in front of the bytes, which are not copied.  As sc_exec_emit() otherwise.
 */
#define SC_EXEC_ARROW_HEADROOM 256
int sc_exec_emit_arrow(struct sc_exec_op *op, uint8_t *mem, size_t ipclen,
    int64_t rows, int64_t start_offset, struct sc_error *err);
/* As sc_exec_emit_arrow(), mem a block of cap bytes (sc_execmem_block). */
int sc_exec_emit_arrow_block(struct sc_exec_op *op, uint8_t *mem, size_t cap,
    size_t ipclen, int64_t rows, int64_t start_offset, struct sc_error *err);
/*
 * For runners: take n bytes of the value budget (exec_buffer.c) on the
 * account of the operation's user, before building a row of large
 * values.  When they do not fit, the operation gives its slot to
 * others, drops the responses it keeps only for a reattach, and waits
 * in turn until they fit or it is canceled.  A run on an RPC thread
 * takes them without waiting.  The account (*acct), or -1 with
 * OPERATION_CANCELED.  sc_exec_charge_next(): n of them go with the
 * next response the runner emits, until its memory is freed.
 */
int sc_exec_reserve(struct sc_exec_op *op, int64_t n, struct sc_execacct **acct,
    struct sc_error *err);
void sc_exec_charge_next(struct sc_exec_op *op, struct sc_execacct *a,
    int64_t n);
/* True once the operation was canceled or closed (runners may poll). */
bool sc_exec_op_canceled(struct sc_exec_op *op);
/* The operation's id, session and its manager's settings (borrowed). */
const char *sc_exec_op_id(const struct sc_exec_op *op);
struct sc_session *sc_exec_op_session(const struct sc_exec_op *op);
const struct sc_server_conf *sc_exec_op_conf(const struct sc_exec_op *op);
/* The operation's current state (locks it). */
enum sc_exec_state sc_exec_op_state(struct sc_exec_op *op);
/*
 * For runners: the operation's cancel flag, non-zero once it was
 * canceled or closed (for sc_engine_run_cancelable()); valid as long as
 * the operation.
 */
const atomic_int *sc_exec_op_cancel_flag(const struct sc_exec_op *op);

/* The default runner (exec_run.c). */
int sc_exec_run_engine(struct sc_exec_op *op, const Spark__Connect__Plan *plan,
    void *arg, struct sc_error *err);

#endif
