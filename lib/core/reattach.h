/* SPDX-License-Identifier: MIT */

/*
 * reattach.h: the reattachable-execution client loop (ExecutePlan,
 * ReattachExecute, ReleaseExecute) as a pull iterator.
 *
 * It does what PySpark's and the Scala client's reattachable iterators do
 * (ExecutePlan with a reattachable option, ReattachExecute after the last
 * response id on any failure or early end, ReleaseUntil as responses are
 * consumed, ReleaseAll at the end), plus: a fresh retry budget whenever a
 * response arrives, backoff also for failures after a stream opened, a
 * total-time cap, a per-stream deadline and a no-progress watchdog that
 * turn a silently dead connection into a reattach, and response-id checks
 * on every message.
 *
 *	it = sc_reattach_execute(client, plan, &exec, &opts, &err);
 *	while ((r = sc_reattach_next_result(it, &res, &err)) == 1) {
 *		use(&res);			(core/result.h)
 *		sc_result_release(&res);
 *	}
 *	sc_reattach_close(it);		(ReleaseAll, asynchronously)
 *
 * sc_reattach_open() and sc_reattach_next() are the same loop on the
 * generated messages, for callers that build their own request.
 */

#ifndef SC_REATTACH_H
#define SC_REATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "core/protocol.h"
#include "core/retry.h"

struct sc_client;
struct sc_error;
struct sc_plan;
struct sc_reattach;
struct sc_result;

/*
 * Sleep ms milliseconds for a backoff; return 0, or -1 to give up (for
 * tests, which record the delays instead of sleeping).
 */
typedef int sc_reattach_sleep_fn(void *arg, int64_t ms);

struct sc_reattach_opts {
	/*
	 * Ask for reattachable execution (default true).  When false, the
	 * stream's end is the result's end, nothing is released, and a
	 * failure is retried (by re-sending ExecutePlan) only before the
	 * first response.
	 */
	bool reattachable;
	struct sc_retry_policy policy; /* default: Spark's DefaultPolicy */
	/*
	 * Each ExecutePlan/ReattachExecute stream's gRPC deadline; when it
	 * passes the loop reattaches.  0 = none.  Default 10 minutes.
	 */
	int64_t segment_ms;
	/*
	 * No-progress watchdog: no message for this long cancels the stream
	 * and reattaches.  0 = none.  Default 150 s, above Spark's 2-minute
	 * stream rotation and below common 4-minute idle-connection kills.
	 */
	int64_t watchdog_ms;
	/* Absolute end of everything (CLOCK_MONOTONIC), or NULL. */
	const struct timespec *deadline;
	/*
	 * A stream that ends before ResultComplete without any response
	 * within this many ms counts as a failed attempt (with backoff), so a
	 * server that closes every stream at once cannot spin the loop.
	 * Default 1000.
	 */
	int64_t min_rotation_ms;
	sc_reattach_sleep_fn *sleep; /* NULL: an interruptible sleep */
	void *sleep_arg;
	uint32_t (*rnd)(void); /* jitter source; NULL: random() */
};

/* Fill o with the defaults described above. */
void sc_reattach_opts_init(struct sc_reattach_opts *o);

/*
 * Start executing req (borrowed for the call; it is packed here).  The
 * envelope (session, user, client type) is set from c; a missing
 * operation_id is generated now, before anything is sent, and a
 * reattachable RequestOption is added when o->reattachable.  Nothing is
 * sent until the first sc_reattach_next().  o may be NULL (defaults).
 * Returns NULL with err set (SC_ST_USAGE: operation_id is not a UUID).
 * c must outlive the iterator.
 */
struct sc_reattach *sc_reattach_open(struct sc_client *c,
    const Spark__Connect__ExecutePlanRequest *req,
    const struct sc_reattach_opts *o, struct sc_error *err);

/* What an execution carries besides its plan; pointers are borrowed. */
struct sc_reattach_exec {
	const char *operation_id; /* a UUID, or NULL: a random one */
	const char *const *tags; /* ntags operation tags */
	size_t ntags;
};

/*
 * As sc_reattach_open(), for plan p (borrowed for the call) with the
 * operation id and tags of x (may be NULL).
 */
struct sc_reattach *sc_reattach_execute(struct sc_client *c,
    const struct sc_plan *p, const struct sc_reattach_exec *x,
    const struct sc_reattach_opts *o, struct sc_error *err);

/*
 * Attach to an existing reattachable operation (started by this or
 * another process with the same session and user id): the first call is
 * ReattachExecute with last_response_id = after (NULL: from the
 * beginning).  An operation the server does not know fails the first
 * sc_reattach_next() with SC_ST_NOTFOUND.
 */
struct sc_reattach *sc_reattach_attach(struct sc_client *c,
    const char *operation_id, const char *after,
    const struct sc_reattach_opts *o, struct sc_error *err);

/*
 * The next response: 1 with *resp set (the caller frees it with
 * protobuf_c_message_free_unpacked(&(*resp)->base, NULL)), 0 at the end
 * (ResultComplete received; it is not returned), -1 with err set.  Calling
 * again marks the previous response consumed (ReleaseUntil, coalesced and
 * asynchronous).  Errors: the server's error for the operation (status
 * from its gRPC code, errclass set), the last retryable error once the
 * budget or total time is spent, SC_ST_TIMEOUT when o->deadline passed,
 * SC_ST_NOTFOUND for an unknown operation when attaching, SC_ST_PROTOCOL
 * for a response of another session or operation, and errclass
 * "RESPONSE_ALREADY_RECEIVED" when the server lost the session after
 * responses were received, "OPERATION_CANCELED" when the session is
 * there but the operation is not (it was interrupted or released).
 * After -1 or 0 every call returns the same.
 * A terminal error queues ReleaseAll.
 */
int sc_reattach_next(struct sc_reattach *it,
    Spark__Connect__ExecutePlanResponse **resp, struct sc_error *err);

/*
 * As sc_reattach_next(), with the response as a plain struct sc_result
 * (core/result.h; release it with sc_result_release()).
 */
int sc_reattach_next_result(struct sc_reattach *it, struct sc_result *r,
    struct sc_error *err);

/*
 * Send the first request now (ExecutePlan, or ReattachExecute when
 * attaching) without waiting for an answer, so the server starts on it;
 * sc_reattach_next() then reads that stream.  A no-op once a stream was
 * opened.  0, or -1 with err set as sc_reattach_next() fails.
 */
int sc_reattach_send(struct sc_reattach *it, struct sc_error *err);

/* The operation id (valid until sc_reattach_close()). */
const char *sc_reattach_operation_id(const struct sc_reattach *it);
/* Streams opened so far (1 + reattaches). */
uint64_t sc_reattach_streams(const struct sc_reattach *it);
/*
 * The id of the last response returned (or the --after one), or NULL;
 * valid until the next sc_reattach_next() or sc_reattach_close().
 */
const char *sc_reattach_last_response_id(const struct sc_reattach *it);

/*
 * From any thread (a signal handler thread, say): cancel the current
 * stream, wake a backoff sleep, and make sc_reattach_next() fail with
 * SC_ST_FAILED "interrupted".  Queues ReleaseAll unless the operation
 * already completed or is not reattachable.  Safe to call more than once;
 * it must not race with sc_reattach_close().
 */
void sc_reattach_abort(struct sc_reattach *it);
bool sc_reattach_aborted(struct sc_reattach *it);

/*
 * Whether an attached operation (sc_reattach_attach()) that failed with e
 * is left on the server, not released: the server gone or slow, the
 * operation gone, or an INVALID_CURSOR.* error (another client reads it).
 */
bool sc_reattach_left(const struct sc_error *e);

/*
 * Free the iterator; cancel the stream if one is open and queue ReleaseAll
 * for a reattachable operation not yet released.  NULL is a no-op.
 */
void sc_reattach_close(struct sc_reattach *it);

/*
 * Free the iterator without releasing the operation, which stays on the
 * server for a later sc_reattach_attach() (sc-exec --detach).  Responses
 * returned so far are not released either.
 */
void sc_reattach_detach(struct sc_reattach *it);

#endif
