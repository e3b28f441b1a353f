/* SPDX-License-Identifier: MIT */

/*
 * client.h: the client side of one Spark Connect connection and session,
 * and the calls a program makes on it.
 *
 * A struct sc_client holds what every request names (session id, user
 * id, client type, the server-side session id observed so far), the
 * transport (a gRPC channel, or function pointers a unit test supplies),
 * and one release worker thread that sends ReleaseExecute requests in
 * the background.  The prefix is sc_client_ because lib/server already
 * uses sc_session_ for the server's sessions.
 *
 * A program usually needs only this:
 *
 *	c = sc_client_connect(&conn, &opts, &err);	(core/conn.h options)
 *	sc_client_interrupt(c, SC_CLIENT_INTERRUPT_TAG, "etl", &ids,
 *	    deadline, &err);
 *	sc_client_free(c);
 *
 * Every synchronous call stamps the envelope, retries what Spark's
 * clients retry (UNAVAILABLE and friends, with backoff, never past the
 * deadline), checks that the answer is for this session and returns
 * plain C values; errors come back in struct sc_error, whose status is
 * the program's exit code.  Streaming results are core/reattach's job.
 * No generated protocol type appears here: requests and answers cross
 * this header as strings, numbers and opaque handles.
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

#include "core/log.h"
#include "core/retry.h"

struct sc_buf;
struct sc_conn_opts;
struct sc_error;
struct sc_plan;
struct sc_result_schema;
struct sc_uri;
struct ProtobufCMessage;
struct ProtobufCMessageDescriptor;

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

/* A unary call in two steps (sc_rpc_unary_start() and the rest). */
typedef void *sc_transport_ustart_fn(void *ctx, const char *method,
    const void *req, size_t reqlen, const struct timespec *deadline,
    struct sc_error *err);
typedef int sc_transport_ufinish_fn(void *call, const struct timespec *until,
    struct sc_buf *resp, struct sc_error *err);
typedef void sc_transport_ucancel_fn(void *call);

struct sc_transport {
	sc_transport_open_fn *stream_open; /* NULL on failure */
	sc_transport_read_fn *stream_read; /* 1 message, 0 end, -1 error */
	sc_transport_stream_fn *stream_cancel; /* any thread */
	sc_transport_stream_fn *stream_free; /* cancels if still running */
	sc_transport_unary_fn *unary; /* 0 or -1 */
	/* Optional (all three or none): releases then go without a thread. */
	sc_transport_ustart_fn *unary_start; /* NULL on failure */
	sc_transport_ufinish_fn *unary_finish; /* 0 running, 1 reply, -1 */
	sc_transport_ucancel_fn *unary_cancel; /* any thread */
};

/* The real transport: lib/core/rpc's client calls on a channel (ctx). */
extern const struct sc_transport sc_client_rpc_transport;

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
 * (attempt 3 of 15)", or, while a server does not answer at all,
 * "reconnecting to 'db1:15002', attempt 5 of 15, reattaching in 12.8s
 * (no answer for 4.3s; giving up at 60s)".
 *
 * status is the same news in a few words for a progress line on a
 * terminal ("reconnecting to 'db1:15002', attempt 5, next in 12.8s"),
 * set on RETRY events and NULL otherwise; silent_ms says how long the
 * server has not answered (-1: it answered last time) and give_up_ms
 * when the loop gives up on that (-1: never).
 */
struct sc_client_event {
	enum sc_client_event_kind kind;
	struct sc_client *client; /* the client it happened on */
	const char *operation_id;
	const char *response_id; /* last_response_id or
						   release_until id, or NULL */
	enum sc_retry_reason reason; /* RETRY */
	int64_t delay_ms; /* RETRY, RELEASE_RETRY */
	int attempt; /* RETRY, RELEASE_RETRY: from 1 */
	int max_attempts;
	const struct sc_error *err; /* RETRY, RELEASE_*: the cause */
	const char *text;
	const char *status; /* RETRY: short, for a progress line */
	int64_t silent_ms; /* RETRY */
	int64_t give_up_ms; /* RETRY */
};

typedef void sc_client_event_fn(const struct sc_client_event *ev, void *arg);

/*
 * The log level an event deserves: SC_LOG_INFO (shown with -v), except
 * a release the server refused, given up on a server that answered at
 * least once, which is SC_LOG_WARN (a server never reached holds
 * nothing of ours), unless the server has been silent past the
 * unreachable limit (the program's own error says that).  A release
 * that is only unconfirmed (sc_client_release_unconfirmed()) stays
 * SC_LOG_INFO: the server drops the operation after its detached
 * timeout.
 */
enum sc_log_level sc_client_event_level(const struct sc_client_event *ev);
/*
 * Whether a release that failed with e merely got no answer: it timed
 * out (a busy or stalled server, or the one short attempt a release gets
 * past its deadline) or the server was unavailable.  Its event text
 * then says "not confirmed" instead of "failed".
 */
bool sc_client_release_unconfirmed(const struct sc_error *e);

/*
 * An sc_client_event_fn that logs ev->text at sc_client_event_level()
 * if the log level lets it through (arg is ignored).  A program with
 * other output on stderr (a progress line) wraps it in its own lock.
 */
void sc_client_log_event(const struct sc_client_event *ev, void *arg);

/* -------------------------------------------------------------- client */

struct sc_client;

struct sc_client_opts {
	const char *session_id; /* NULL: the URI's, else a random UUID */
	const char *user_id; /* NULL: sc_conn_user_id()'s rule (the
				URI's, $USER, $LOGNAME, the login name) */
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
	/*
	 * Give up retrying once the server has not answered for this long
	 * (ms; core/retry.h): 0 means SC_RETRY_UNREACHABLE_MS (60 s), -1
	 * no limit.  "Answered" is any message or any status other than a
	 * bare UNAVAILABLE (one with RetryInfo or a Spark error class comes
	 * from the server); every call and release of the client counts.
	 */
	int64_t unreachable_ms;
	/*
	 * Send a token or an authorization header in the clear to a host
	 * that is not loopback (core/conn.h --insecure); otherwise a token
	 * there turns TLS on.
	 */
	bool insecure;
	int64_t (*now_ms)(void); /* monotonic clock; NULL: sc_mono_ms */
	sc_client_event_fn *on_event; /* NULL: no events */
	void *event_arg;
};

/*
 * What sc_client_connect() builds before connecting, for transports of
 * their own (core/upload.c): the URI of the connection options co
 * (sc_conn_uri()) into *u, initialized here and released by the caller
 * on success, and *opts from o (or zeros) with the session and user ids
 * left to the URI and the TLS file, --insecure and --unreachable-timeout
 * taken from co.  -1 with err set (SC_ST_USAGE) and *u released.
 */
int sc_client_conn_opts(const struct sc_conn_opts *co,
    const struct sc_client_opts *o, struct sc_uri *u,
    struct sc_client_opts *opts, struct sc_error *err);

/*
 * The connected client a program wants: the address and ids from the
 * connection options co (sc_conn_uri()), the rest from o (may be NULL;
 * its session_id, user_id and ca_file are taken from co instead).
 * Connecting is lazy: an unreachable server shows on the first call.
 * NULL with err set: SC_ST_USAGE for a bad address or -H, or what
 * sc_client_new() reports.  Free with sc_client_free().
 */
struct sc_client *sc_client_connect(const struct sc_conn_opts *co,
    const struct sc_client_opts *o, struct sc_error *err);

/*
 * Connect (lazily) to u through core/rpc.  o may be NULL.  A token
 * (u->token) for a host that is not loopback turns TLS on unless
 * o->insecure (core/conn.h decides the rest).  Returns NULL
 * with err set (SC_ST_USAGE for a bad session id; SC_ST_INTERNAL when
 * the release worker thread cannot start; what sc_rpc_new() reports
 * otherwise).  Free with sc_client_free().
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
/* The server, "sc://host:port" (no secrets; "" for a fake transport). */
const char *sc_client_server(const struct sc_client *c);
/* The same as "host:port", for messages ("" for a fake transport). */
const char *sc_client_target(const struct sc_client *c);
/*
 * Whether the session id was made up here because none was given: the
 * server has nothing of this session yet, and nobody else can name it.
 */
bool sc_client_session_is_new(const struct sc_client *c);
/*
 * The first non-empty server_side_session_id seen in a response, or NULL.
 * Once set it never changes, and the pointer stays valid until
 * sc_client_free().
 */
const char *sc_client_server_side_session_id(struct sc_client *c);
/*
 * Whether the server has answered anything on this client yet (a message,
 * or a status other than UNAVAILABLE).
 */
bool sc_client_reached(struct sc_client *c);
/*
 * Tell the client how a call it did not make itself ended: e NULL for an
 * answer from the server, else its error (a bare UNAVAILABLE starts or
 * continues the server's silence, any other status ends it).  For
 * transports driven outside sc_client_call(), such as uploads.
 */
void sc_client_note_status(struct sc_client *c, const struct sc_error *e);
/*
 * The retries a loop under policy p may make now: p->max_retries once
 * the server was reached, else the smaller of that and connect_retries.
 */
int sc_client_max_retries(struct sc_client *c, const struct sc_retry_policy *p);
/*
 * How long (ms) the server has gone without answering: -1 if its last
 * reply (on any call of this client) was an answer, else the time since
 * the first UNAVAILABLE failure after it.
 */
int64_t sc_client_silent_ms(struct sc_client *c);
/* The unreachable limit in ms (sc_client_opts.unreachable_ms), -1: none. */
int64_t sc_client_unreachable_ms(const struct sc_client *c);
/*
 * How much longer a retry loop may wait for the server, by the two
 * limits (sc_retry_silence_left()): -1 for no limit, 0 to give up now.
 */
int64_t sc_client_silence_left(struct sc_client *c);

/* ------------------------------------------------- synchronous calls */

/*
 * ReleaseExecute: let the server drop operation_id's responses up to and
 * including until (a response id), or, with until NULL, the whole
 * operation (ReleaseAll).  *found (if not NULL) tells whether the server
 * knew the operation; an unknown one is not an error, as in Spark.
 */
int sc_client_release_execute(struct sc_client *c, const char *operation_id,
    const char *until, bool *found, const struct timespec *deadline,
    struct sc_error *err);

/*
 * ReleaseSession: end this client's session on the server, with every
 * operation in it.  allow_reconnect lets a later request with the same
 * session id start it afresh instead of failing (Spark 4.0).
 */
int sc_client_release_session(struct sc_client *c, bool allow_reconnect,
    const struct timespec *deadline, struct sc_error *err);

/* A list of strings the client allocated: free with sc_client_strings_release(). */
struct sc_client_strings {
	char **v;
	size_t n;
};
void sc_client_strings_release(struct sc_client_strings *s);

/* What Interrupt stops. */
enum sc_client_interrupt {
	SC_CLIENT_INTERRUPT_ALL = 1, /* every operation of the session */
	SC_CLIENT_INTERRUPT_TAG, /* the operations carrying a tag */
	SC_CLIENT_INTERRUPT_OPERATION /* one operation id */
};

/*
 * Interrupt: stop operations of this session.  target is the tag or the
 * operation id (NULL for SC_CLIENT_INTERRUPT_ALL).  The ids of the
 * operations the server interrupted go to *ids (if not NULL; an empty
 * list when none matched, which is not an error).
 */
int sc_client_interrupt(struct sc_client *c, enum sc_client_interrupt what,
    const char *target, struct sc_client_strings *ids,
    const struct timespec *deadline, struct sc_error *err);

/* Config operations, as the Config RPC has them. */
enum sc_client_conf_op {
	SC_CLIENT_CONF_SET = 1, /* keys[i] = values[i] (silent: warn only) */
	SC_CLIENT_CONF_GET, /* each key's value; an unset key is an error */
	SC_CLIENT_CONF_GET_WITH_DEFAULT, /* values[i]: default (may be NULL) */
	SC_CLIENT_CONF_GET_OPTION, /* each key's value, NULL when unset */
	SC_CLIENT_CONF_GET_ALL, /* every setting starting with prefix */
	SC_CLIENT_CONF_UNSET, /* remove keys */
	SC_CLIENT_CONF_IS_MODIFIABLE /* "true"/"false" per key */
};

/* A Config request; every pointer is borrowed for the call. */
struct sc_client_conf_req {
	enum sc_client_conf_op op;
	const char *const *keys; /* n keys (not GET_ALL) */
	const char *const *values; /* SET, GET_WITH_DEFAULT; NULL entries ok */
	size_t n;
	const char *prefix; /* GET_ALL: NULL for everything */
	bool silent; /* SET: failures become warnings */
};

/* A Config answer: free with sc_client_conf_release(). */
struct sc_client_conf {
	char **keys; /* n keys, in the server's order */
	char **values; /* n values; NULL where the server sent none */
	size_t n;
	char **warnings; /* nwarnings lines of the server's */
	size_t nwarnings;
};
void sc_client_conf_release(struct sc_client_conf *conf);

/*
 * Config: read or change session settings.  The answer goes to *out
 * (zeroed first, and left empty on failure).  A setting the server does
 * not know (GET) or may not change (SET, UNSET) fails with its Spark
 * error class (SQL_CONF_NOT_FOUND, CANNOT_MODIFY_CONFIG), status
 * SC_ST_FAILED.
 */
int sc_client_config(struct sc_client *c, const struct sc_client_conf_req *rq,
    struct sc_client_conf *out, const struct timespec *deadline,
    struct sc_error *err);

/*
 * ArtifactStatus: exists[i] tells whether the session holds an artifact
 * named names[i] ("jars/x.jar", "cache/<sha256>"); a name the server
 * leaves out of its answer counts as absent.  exists holds n entries.
 */
int sc_client_artifact_status(struct sc_client *c, const char *const *names,
    size_t n, bool *exists, const struct timespec *deadline,
    struct sc_error *err);

/*
 * AnalyzePlan(schema): the schema of plan p's result, without running it
 * (Spark does run commands while analysing them).  *out is freed with
 * sc_result_schema_free() (core/result.h).
 */
int sc_client_analyze_schema(struct sc_client *c, const struct sc_plan *p,
    struct sc_result_schema **out, const struct timespec *deadline,
    struct sc_error *err);

/* ------------------------------------------------ the unary pattern */

/*
 * One unary call, the way every synchronous call above makes it: stamp
 * req with this client's envelope (sc_client_stamp()), pack it, send it
 * to method (an SC_METHOD_* path of core/protocol.h), retry retryable
 * failures with the client's policy (not past deadline, NULL: none),
 * unpack the answer as type resp_type into *resp and check its ids
 * (sc_client_check_response()).  0, or -1 with err set; *resp is set
 * only on success (free it with protobuf_c_message_free_unpacked(*resp,
 * NULL)).  The envelope fields of req point into c afterwards.
 */
int sc_client_call(struct sc_client *c, const char *method,
    struct ProtobufCMessage *req,
    const struct ProtobufCMessageDescriptor *resp_type, void **resp,
    const struct timespec *deadline, struct sc_error *err);

/*
 * As sc_client_call() for a service without Spark's envelope (sctk's
 * admin service, core/inspect): req is sent as it is, the answer (at
 * most max bytes, 0: the default) is not checked for this session.  The
 * same retries, events and silence rules.
 */
int sc_client_call_raw(struct sc_client *c, const char *method,
    struct ProtobufCMessage *req,
    const struct ProtobufCMessageDescriptor *resp_type, void **resp, size_t max,
    const struct timespec *deadline, struct sc_error *err);

/*
 * Set the envelope of request m: session id, user context, client type
 * and, once known, the observed server-side session id (see
 * sc_proto_stamp()).  The fields point into c: do not free them with m.
 */
void sc_client_stamp(struct sc_client *c, struct ProtobufCMessage *m);

/*
 * Check the ids of response m (sc_proto_check_response()): our session
 * id, the server-side session id seen first (remembered here), and, when
 * operation_id is not NULL, that operation, with a response id when
 * response_id is true.  0, or -1 with err set (SC_ST_PROTOCOL).
 */
int sc_client_check_response(struct sc_client *c,
    const struct ProtobufCMessage *m, const char *operation_id,
    bool response_id, struct sc_error *err);

/* ------------------------------------------- streams (core/reattach) */

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
 * The short status of a retry for a progress line (the event's status):
 * "reconnecting to 'HOST:PORT', attempt N, next in 12.8s" while the
 * server is silent (silent_ms >= 0), else "<reason>, attempt N, next in
 * 0.2s".  Written into out (outsz bytes, truncated if need be).
 */
void sc_client_retry_status(const struct sc_client *c, enum sc_retry_reason why,
    int attempt, int64_t delay, int64_t silent_ms, char *out, size_t outsz);
/*
 * Append to e->msg that the server gave no answer for the client's
 * unreachable limit: " (no answer from 'HOST:PORT' for 60s)".
 */
void sc_client_no_answer(const struct sc_client *c, struct sc_error *e);
/*
 * Turn e, the failure a retry was waiting out, into the deadline's
 * error: SC_ST_TIMEOUT, "<what> timed out; last error: <e's message>".
 */
void sc_client_timed_out(const char *what, struct sc_error *e);

/* ------------------------------------------------ asynchronous releases */

/*
 * Asynchronous releases.  A ReleaseAll is sent at once by the calling
 * thread without waiting for the reply (up to 8 at a time), when the
 * transport can do so: a hand-off to the worker cost two thread switches
 * and a second thread polling the channel, as much as the query itself
 * for a short one.  Its reply is picked up by later calls and by
 * sc_client_release_wait(); a failed one goes to the worker.  The rest
 * is handled by the client's release worker.  They
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
 * Either of the two (ReleaseAll when response_id is NULL), to be done
 * by deadline (NULL: no limit): no attempt or backoff of it goes past
 * the deadline, and once it has passed the release gets one last
 * attempt of at most a second, without retries, so a program that waits
 * for its releases (sc_client_release_wait()) outlives its deadline by
 * a round trip to a live server and by nothing to a dead one.  A
 * coalesced request takes the newer deadline.
 */
void sc_client_release_async(struct sc_client *c, const char *operation_id,
    const char *response_id, const struct timespec *deadline);

/*
 * Wait until every queued release has been sent (or given up), or until
 * deadline (NULL: no limit).  0 when the queue is empty, -1 if the
 * deadline came first.
 */
int sc_client_release_wait(struct sc_client *c,
    const struct timespec *deadline);

/* Counters, for tests and -vv summaries. */
struct sc_client_stats {
	uint64_t releases_sent; /* succeeded */
	uint64_t releases_failed; /* given up */
	uint64_t releases_coalesced; /* merged or dropped */
};
void sc_client_get_stats(struct sc_client *c, struct sc_client_stats *st);

#endif
