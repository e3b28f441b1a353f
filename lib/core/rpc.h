/* SPDX-License-Identifier: MIT */

/*
 * rpc.h: the client half of the only module that calls the gRPC C core
 * (grpc_*, in lib/core/rpc*.c); the server half is rpc_server.h.
 *
 * A channel (struct sc_rpc) with unary calls, server-streaming reads and
 * client-streaming writes, each with an absolute CLOCK_MONOTONIC deadline
 * (NULL means none) and cancellation.  A channel may be used from
 * several threads at once; one call object (stream, upload) belongs to
 * one thread, except sc_rpc_stream_cancel() and sc_rpc_upload_cancel(),
 * which any thread may call.
 *
 * Errors: failed calls fill struct sc_error via sc_error_from_grpc()
 * (rpc_code, errclass, sqlstate, error_id, retry_delay_ms), with the
 * gRPC core's words for a failed or lost connection replaced by ours
 * (sc_error_reword_transport(): "cannot connect to 'host:port':
 * connection refused").
 */

#ifndef SC_RPC_H
#define SC_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct sc_buf;
struct sc_error;
struct sc_uri;

/*
 * The largest message a channel or the server receives unless told
 * otherwise: 128 MiB, Spark's default (spark.connect.grpc.
 * maxInboundMessageSize, and its clients' grpc_max_message_size).  What
 * either side sends is not limited.
 */
#define SC_RPC_MAX_MESSAGE (128L * 1024 * 1024)

struct sc_rpc;
struct sc_rpc_stream;
struct sc_rpc_upload;

/*
 * Open a channel to u: insecure, or TLS with system roots when
 * u->use_ssl (or a token is set and the host is not a loopback name),
 * or TLS with the PEM roots in ca_file when not NULL (a ca_file alone
 * turns TLS on); "authorization: Bearer <token>" and u->params as
 * metadata on every call; receive limit u->max_message_size; keepalive
 * 60 s / 20 s timeout.  Connecting is lazy: unreachable servers
 * surface as UNAVAILABLE on the first call.  Returns NULL on failure.
 * Free with sc_rpc_free().
 */
struct sc_rpc *sc_rpc_new(const struct sc_uri *u, const char *ca_file,
    struct sc_error *err);
void sc_rpc_free(struct sc_rpc *rpc);

/*
 * Unary call: send req, wait for the reply or the deadline, and append
 * the reply bytes to resp.  0, or -1 with err filled (a gRPC status, or
 * SC_ST_TIMEOUT for DEADLINE_EXCEEDED).
 */
int sc_rpc_unary(struct sc_rpc *rpc, const char *method, const void *req,
    size_t reqlen, struct sc_buf *resp, const struct timespec *deadline,
    struct sc_error *err);

/*
 * The same in two steps, for a caller that has other work meanwhile:
 * start the call (NULL on failure), then sc_rpc_unary_finish() waits
 * until `until` (NULL: the call's end; a time past: only a look) and
 * returns 0 while the call runs on, 1 with the reply appended to resp,
 * or -1 with err; after 1 or -1, u is freed.  The call goes on while
 * other calls on the channel wait for their replies: the thread that
 * polls handles its bytes.  sc_rpc_unary_cancel() ends it early (any
 * thread); it is finished (and freed) all the same.  method is
 * borrowed until then.
 */
struct sc_rpc_unary;
struct sc_rpc_unary *sc_rpc_unary_start(struct sc_rpc *rpc, const char *method,
    const void *req, size_t reqlen, const struct timespec *deadline,
    struct sc_error *err);
int sc_rpc_unary_finish(struct sc_rpc_unary *u, const struct timespec *until,
    struct sc_buf *resp, struct sc_error *err);
void sc_rpc_unary_cancel(struct sc_rpc_unary *u);

/*
 * Start a server-streaming call.  deadline bounds the whole call (the
 * gRPC deadline).  Returns NULL on failure.  Free with
 * sc_rpc_stream_free(), which cancels the call if still running.
 */
struct sc_rpc_stream *sc_rpc_stream_open(struct sc_rpc *rpc, const char *method,
    const void *req, size_t reqlen, const struct timespec *deadline,
    struct sc_error *err);
/*
 * Read the next message into msg (reset first).  Returns 1 with a
 * message, 0 at the end of a stream that finished with status OK, -1 on
 * error (err has the status).  If wait_until (absolute, monotonic) passes
 * first, returns -1 with SC_ST_TIMEOUT and rpc_code -1 and the stream
 * stays usable; the caller may cancel it (a no-progress watchdog).
 */
int sc_rpc_stream_read(struct sc_rpc_stream *s, struct sc_buf *msg,
    const struct timespec *wait_until, struct sc_error *err);
/* Cancel the call; safe from any thread; later reads return -1. */
void sc_rpc_stream_cancel(struct sc_rpc_stream *s);
void sc_rpc_stream_free(struct sc_rpc_stream *s);

/*
 * Client-streaming call (AddArtifacts).  No tool calls it yet: it is the
 * transport sc-upload is to be written on, kept with its tests in
 * test-rpc.c (and rpc_server.h's sc_rpc_call_read() is its other end).
 */
struct sc_rpc_upload *sc_rpc_upload_open(struct sc_rpc *rpc, const char *method,
    const struct timespec *deadline, struct sc_error *err);
/* Send one message; blocks while the transport is full.  0 or -1. */
int sc_rpc_upload_write(struct sc_rpc_upload *up, const void *msg, size_t len,
    struct sc_error *err);
/* Half-close, wait for the single reply, append it to resp.  0 or -1. */
int sc_rpc_upload_finish(struct sc_rpc_upload *up, struct sc_buf *resp,
    struct sc_error *err);
void sc_rpc_upload_cancel(struct sc_rpc_upload *up);
void sc_rpc_upload_free(struct sc_rpc_upload *up);

#endif
