/* SPDX-License-Identifier: MIT */

/*
 * client.h: the client side of one Spark Connect connection and session.
 *
 * A struct sc_client holds what every request names (session id, user
 * id, client type, the server-side session id observed so far), the
 * transport (a gRPC channel, or function pointers a unit test supplies),
 * and one release worker thread that sends ReleaseExecute requests in
 * the background.  The prefix is sc_client_ because lib/server already
 * uses sc_session_ for the server's sessions.
 *
 * Thread safety: every function may be called from any thread, except
 * sc_client_free(), which must be the last call.  Events (see
 * sc_client_event_fn) are delivered on the calling thread or on the
 * release worker thread.
 */

#ifndef SC_CLIENT_H
#define SC_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/protocol.h"
#include "core/retry.h"

struct sc_buf;
struct sc_error;
struct sc_uri;

/* client_type sent with every request (after the URI's user_agent). */
#define SC_CLIENT_TYPE "sctk/" SCTK_VERSION

/* ------------------------------------------------------------ transport */

/*
 * The calls a client makes, as function pointers, so the reattach loop can
 * run against a scripted fake.  The semantics are those of the sc_rpc_*
 * functions in core/rpc.h with the same names; ctx is the transport's own
 * context and a stream is an opaque pointer it returns.
 */
typedef void *sc_transport_open_fn(void *ctx, const char *method,
    const void *req, size_t reqlen, const struct timespec *deadline,
    struct sc_error *err);
typedef int sc_transport_read_fn(void *stream, struct sc_buf *msg,
    const struct timespec *wait_until, struct sc_error *err);
typedef void sc_transport_stream_fn(void *stream);
typedef int sc_transport_unary_fn(void *ctx, const char *method,
    const void *req, size_t reqlen, struct sc_buf *resp,
    const struct timespec *deadline, struct sc_error *err);

struct sc_transport {
	sc_transport_open_fn *stream_open; /* NULL on failure */
	sc_transport_read_fn *stream_read; /* 1 message, 0 end, -1 error */
	sc_transport_stream_fn *stream_cancel; /* any thread */
	sc_transport_stream_fn *stream_free; /* cancels if still running */
	sc_transport_unary_fn *unary; /* 0 or -1 */
};

/* --------------------------------------------------------------- events */

enum sc_client_event_kind {
	SC_CLIENT_EV_EXECUTE = 0, /* ExecutePlan sent */
	SC_CLIENT_EV_RESEND, /* ExecutePlan sent again (NOT_FOUND) */
	SC_CLIENT_EV_REATTACH, /* ReattachExecute sent */
	SC_CLIENT_EV_ROTATION, /* stream ended before ResultComplete */
	SC_CLIENT_EV_RETRY, /* a retry is scheduled after a wait */
	SC_CLIENT_EV_COMPLETE, /* ResultComplete received */
	SC_CLIENT_EV_RELEASE, /* a ReleaseExecute succeeded */
	SC_CLIENT_EV_RELEASE_RETRY, /* a ReleaseExecute will be retried */
	SC_CLIENT_EV_RELEASE_FAILED /* a ReleaseExecute was given up */
};

/*
 * One thing worth telling a user with -v.  Every pointer is borrowed for
 * the duration of the callback.  text is a complete line without the
 * program name or newline, e.g. "server unavailable, reattaching in 0.4s
 * (attempt 3 of 15)".
 */
struct sc_client_event {
	enum sc_client_event_kind kind;
	const char *operation_id;
	const char *response_id; /* last_response_id or
						   release_until id, or NULL */
	enum sc_retry_reason reason; /* RETRY */
	int64_t delay_ms; /* RETRY, RELEASE_RETRY */
	int attempt; /* RETRY, RELEASE_RETRY: from 1 */
	int max_attempts;
	const struct sc_error *err; /* RETRY, RELEASE_*: the cause */
	const char *text;
};

typedef void sc_client_event_fn(const struct sc_client_event *ev, void *arg);

/* -------------------------------------------------------------- client */

struct sc_client;

struct sc_client_opts {
	const char *session_id; /* NULL: the URI's, else a random UUID */
	const char *user_id; /* NULL: the URI's, else $USER, else "" */
	const char *ca_file; /* PEM roots for TLS, or NULL */
	/* Unary calls: retry policy (NULL: Spark's default). */
	const struct sc_retry_policy *policy;
	/*
	 * Retries allowed while the server has never answered on this
	 * client (a wrong address should not take Spark's ten minutes to
	 * report): 0 means 3, -1 means as many as the policy allows.  The
	 * policy's max_retries is an upper bound either way.
	 */
	int connect_retries;
	/* Releases: retry policy (NULL: as policy) and queue size. */
	const struct sc_retry_policy *release_policy;
	size_t release_queue; /* distinct operations; 0 = 64 */
	int64_t release_timeout_ms; /* per ReleaseExecute; 0 = 10 s */
	sc_client_event_fn *on_event; /* NULL: no events */
	void *event_arg;
};

/*
 * Connect (lazily) to u through core/rpc.  o may be NULL.  Returns NULL
 * with err set (SC_ST_USAGE for a bad session id; what sc_rpc_new()
 * reports otherwise).  Free with sc_client_free().
 */
struct sc_client *sc_client_new(const struct sc_uri *u,
    const struct sc_client_opts *o, struct sc_error *err);

/*
 * As sc_client_new() over the transport t with context ctx (both borrowed
 * until sc_client_free()).  u may be NULL (then only o names the ids).
 */
struct sc_client *sc_client_new_transport(const struct sc_transport *t,
    void *ctx, const struct sc_uri *u, const struct sc_client_opts *o,
    struct sc_error *err);

/*
 * Stop the release worker (a release in flight is finished, queued ones
 * are dropped: call sc_client_release_wait() first to send them), close
 * the channel and free c.  NULL is a no-op.
 */
void sc_client_free(struct sc_client *c);

/* The ids every request carries (valid until sc_client_free()). */
const char *sc_client_session_id(const struct sc_client *c);
const char *sc_client_user_id(const struct sc_client *c);
const char *sc_client_type(const struct sc_client *c);
/*
 * The first non-empty server_side_session_id seen in a response, or NULL.
 * Once set it never changes, and the pointer stays valid until
 * sc_client_free().
 */
const char *sc_client_server_side_session_id(struct sc_client *c);
/* Whether the server has answered anything on this client yet. */
bool sc_client_reached(struct sc_client *c);
/* Record that the server answered (a message or a non-UNAVAILABLE status). */
void sc_client_mark_reached(struct sc_client *c);
/*
 * The retries a loop under policy p may make now: p->max_retries once
 * the server was reached, else the smaller of that and connect_retries.
 */
int sc_client_max_retries(struct sc_client *c, const struct sc_retry_policy *p);

/*
 * Check the ids of a response: session_id must equal ours, and a
 * non-empty server_side_session_id must equal the first one seen (which
 * is remembered here).  0, or -1 with err set (SC_ST_PROTOCOL, "server
 * answered for session X, expected Y" or "server-side session changed
 * from X to Y").
 */
int sc_client_check_response(struct sc_client *c, const char *session_id,
    const char *server_side_session_id, struct sc_error *err);

/*
 * Request envelopes: set session_id, user_context, client_type and, once
 * known, client_observed_server_side_session_id on m.  The strings and the
 * UserContext are borrowed from c (do not free them with m; clear those
 * fields before protobuf_c_message_free_unpacked() on a message that was
 * unpacked).
 */
void sc_client_stamp_execute(struct sc_client *c,
    Spark__Connect__ExecutePlanRequest *m);
void sc_client_stamp_reattach(struct sc_client *c,
    Spark__Connect__ReattachExecuteRequest *m);
void sc_client_stamp_release(struct sc_client *c,
    Spark__Connect__ReleaseExecuteRequest *m);
void sc_client_stamp_analyze(struct sc_client *c,
    Spark__Connect__AnalyzePlanRequest *m);
void sc_client_stamp_config(struct sc_client *c,
    Spark__Connect__ConfigRequest *m);
void sc_client_stamp_interrupt(struct sc_client *c,
    Spark__Connect__InterruptRequest *m);

/*
 * Calls through the transport.  sc_client_unary() packs req, retries
 * retryable failures with the default policy (not past deadline), and
 * unpacks the reply as type d into *resp (free it with
 * protobuf_c_message_free_unpacked(*resp, NULL)).  0 or -1 with err set.
 */
int sc_client_unary(struct sc_client *c, const char *method,
    const ProtobufCMessage *req, const ProtobufCMessageDescriptor *d,
    void **resp, const struct timespec *deadline, struct sc_error *err);
void *sc_client_stream_open(struct sc_client *c, const char *method,
    const void *req, size_t reqlen, const struct timespec *deadline,
    struct sc_error *err);
int sc_client_stream_read(struct sc_client *c, void *stream, struct sc_buf *msg,
    const struct timespec *wait_until, struct sc_error *err);
void sc_client_stream_cancel(struct sc_client *c, void *stream);
void sc_client_stream_free(struct sc_client *c, void *stream);

/*
 * Format a delay for messages: "0.05s", "0.4s", "3.2s", "60s".  out must
 * hold SC_CLIENT_SECS_STRLEN bytes.
 */
#define SC_CLIENT_SECS_STRLEN 24
void sc_client_format_secs(int64_t ms, char *out);

/* Deliver an event to the callback, if any (used by core/reattach). */
void sc_client_emit(struct sc_client *c, const struct sc_client_event *ev);

/*
 * Asynchronous releases, handled by the client's release worker.  They
 * never block: ReleaseUntil requests for one operation are coalesced
 * into the newest; ReleaseAll replaces a pending ReleaseUntil of the same
 * operation, and a ReleaseUntil queued after a ReleaseAll is dropped.
 * When the queue holds release_queue operations, a new ReleaseUntil is
 * dropped (a later one covers it) and a new ReleaseAll replaces the
 * oldest pending ReleaseUntil, or else waits for room.  Failures are
 * retried with the release policy while retryable, then reported as a
 * SC_CLIENT_EV_RELEASE_FAILED event.
 */
void sc_client_release_until(struct sc_client *c, const char *operation_id,
    const char *response_id);
void sc_client_release_all(struct sc_client *c, const char *operation_id);

/*
 * Wait until every queued release has been sent (or given up), or until
 * deadline (NULL: no limit).  0 when the queue is empty, -1 if the
 * deadline came first.
 */
int sc_client_release_wait(struct sc_client *c,
    const struct timespec *deadline);

/* Counters, for tests and -v summaries. */
struct sc_client_stats {
	uint64_t releases_sent; /* succeeded */
	uint64_t releases_failed; /* given up */
	uint64_t releases_coalesced; /* merged or dropped */
};
void sc_client_get_stats(struct sc_client *c, struct sc_client_stats *st);

#endif
