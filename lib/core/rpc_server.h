/* SPDX-License-Identifier: MIT */

/*
 * rpc_server.h: the server half of the gRPC module (rpc_server.c): a
 * server with registered methods, completion-queue threads that never
 * block, and calls driven by callbacks.  At most one message send is in
 * flight per call; its completion callback is the flow-control signal.
 * A status always carries initial metadata and optional
 * grpc-status-details-bin trailing metadata.
 */

#ifndef SC_RPC_SERVER_H
#define SC_RPC_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_error;

struct sc_rpc_server;
struct sc_rpc_call;

enum sc_rpc_kind {
	SC_RPC_UNARY = 0, /* request arrives with the call */
	SC_RPC_SERVER_STREAM, /* request arrives with the call */
	SC_RPC_CLIENT_STREAM /* read messages with sc_rpc_call_read() */
};

/*
 * Server threads and call lifetime (the rules rpc.c implements):
 *
 *  - Every call is pinned to one of the nthreads completion-queue
 *    threads.  Its handler and its sent(), read() and close() callbacks
 *    run there, one at a time, in completion order, with no rpc.c lock
 *    held, so they may call sc_rpc_call_send/reply/finish/read.  They
 *    must not block.
 *  - Any other thread may call sc_rpc_call_send/reply/finish/read/peer
 *    too: a per-call mutex serialises them with the callbacks,
 *    and none of them waits for the network.
 *  - A call is valid from the handler until its close callback has
 *    returned.  To use it from another thread, or later, take
 *    sc_rpc_call_ref() in the handler and drop it with
 *    sc_rpc_call_unref() when done (typically in or after close()).
 *    The object is freed once the handler has returned, every batch has
 *    completed (status sent or call cancelled, RECV_CLOSE done) and the
 *    last reference is gone.
 *  - A call nobody finishes ends when the client cancels, its deadline
 *    passes, the connection breaks, or sc_rpc_server_shutdown() cancels
 *    it.  close() then reports cancelled=true; rpc.c sends no status of
 *    its own (the client already has one), and later send/reply/finish
 *    return -1.
 *  - sc_rpc_server_shutdown() cancels every call and waits until every
 *    call object is freed, so references held elsewhere must be dropped
 *    once close() has run.  Never call it from a callback.
 */

/*
 * A new call.  Runs on the call's completion-queue thread: it must not
 * block.  See the rules above for how long the call stays valid.
 */
typedef void sc_rpc_handler_fn(struct sc_rpc_call *call, void *arg);
/* A send completed: ok is false when the call is dead. Must not block. */
typedef void sc_rpc_sent_fn(struct sc_rpc_call *call, bool ok, void *arg);
/*
 * A client message (msg, len), or end of input (msg NULL, ok true), or a
 * dead call (ok false).
 */
typedef void sc_rpc_read_fn(struct sc_rpc_call *call, const void *msg,
    size_t len, bool ok, void *arg);
/* The call ended (cancelled: client cancel, deadline, broken connection). */
typedef void sc_rpc_close_fn(struct sc_rpc_call *call, bool cancelled,
    void *arg);
/*
 * The grpc-status-details-bin bytes for a status code != OK with message
 * msg that its sender gave no details for: malloc'ed (rpc.c frees them),
 * length in *lenp, or NULL for none.  Runs on any thread, must not block.
 */
typedef uint8_t *sc_rpc_details_fn(int code, const char *msg, size_t *lenp);

/*
 * The TLS listener (gRPC's own) was found deaf: connections to it are no
 * longer accepted.  Runs on the watchdog thread; the server cannot
 * recover, so the owner should shut it down and exit.
 */
typedef void sc_rpc_deaf_fn(void *arg);

/*
 * Connections.  A plaintext listener is the server's own accept loop
 * (rpc_listen.c): it never stops accepting, refuses a connection over
 * max_connections in all or max_peer_connections from one address (it
 * is accepted and closed at once, and the refusals are logged at most
 * every 10 s), and closes a connection that sends no byte within
 * grace_ms.  gRPC 1.51 cannot be given TLS connections that way, so a
 * TLS listener stays gRPC's: grace_ms is its handshake timeout, and a
 * watchdog connects to it every grace_ms (at least 1 s) and calls
 * on_deaf after three probes in a row got no answer within twice
 * grace_ms (at least 2 s).  Either way a connection without calls for
 * idle_ms is closed (GOAWAY).
 */
struct sc_rpc_server_opts {
	const char *listen; /* "127.0.0.1:0", "[::1]:15002" */
	const char *tls_cert_file; /* PEM, with tls_key_file, or NULL */
	const char *tls_key_file;
	long max_message_size; /* receive limit; 0 = SC_RPC_MAX_MESSAGE */
	int nthreads; /* completion-queue threads; 0 = 2 */
	long max_connections; /* 0: the fd limit less a quarter (>= 64) */
	long max_peer_connections; /* 0: 4096 */
	int64_t grace_ms; /* 0: 10 s; < 0: no limit */
	int64_t idle_ms; /* 0: 30 min; < 0: no limit */
	sc_rpc_deaf_fn *on_deaf; /* TLS only; NULL: only logged */
	void *deaf_arg;
};

/* Create (not yet listening). NULL on failure. */
struct sc_rpc_server *sc_rpc_server_new(const struct sc_rpc_server_opts *o,
    struct sc_error *err);
/*
 * Give every non-OK status sent without details, unknown methods and
 * malformed requests included, the details fn makes.  Call before
 * sc_rpc_server_start().
 */
void sc_rpc_server_set_details(struct sc_rpc_server *srv,
    sc_rpc_details_fn *fn);
/*
 * Whether a call to an unknown method may be told UNIMPLEMENTED: true,
 * or false after the gate has finished the call itself (with
 * UNAUTHENTICATED, say), so nothing answers before the token check.
 */
typedef bool sc_rpc_gate_fn(struct sc_rpc_call *call, void *arg);
/* Set the gate of unknown methods before sc_rpc_server_start(). */
void sc_rpc_server_set_unknown_gate(struct sc_rpc_server *srv,
    sc_rpc_gate_fn *fn, void *arg);
/*
 * A call ended: the method path it named (as the client sent it, for an
 * unknown method), the status code it was given (CANCELLED when it
 * ended without one: a client's cancel, a deadline, a broken
 * connection) and the microseconds since it arrived.  Runs on the
 * call's completion-queue thread; must not block.
 */
typedef void sc_rpc_done_fn(const char *path, int code, int64_t us, void *arg);
/* Set the callback of ended calls before sc_rpc_server_start(). */
void sc_rpc_server_set_done(struct sc_rpc_server *srv, sc_rpc_done_fn *fn,
    void *arg);
/* Register a method path before sc_rpc_server_start(). 0 or -1. */
int sc_rpc_server_add_method(struct sc_rpc_server *srv, const char *path,
    enum sc_rpc_kind kind, sc_rpc_handler_fn *fn, void *arg,
    struct sc_error *err);
/*
 * Bind (SO_REUSEPORT off, so a busy port is an error: SC_ST_IO), start
 * the threads, and store the bound port in *portp.  Unknown methods get
 * UNIMPLEMENTED at once (with the details of sc_rpc_server_set_details()).
 */
int sc_rpc_server_start(struct sc_rpc_server *srv, int *portp,
    struct sc_error *err);
/*
 * Stop accepting, cancel every live call, wait until all calls have been
 * freed, and join the threads.  Idempotent (but not to be called from
 * two threads at once, nor from a callback).
 */
void sc_rpc_server_shutdown(struct sc_rpc_server *srv);
void sc_rpc_server_free(struct sc_rpc_server *srv);

/* The request message of a unary or server-streaming call. */
const uint8_t *sc_rpc_call_request(struct sc_rpc_call *call, size_t *lenp);
/* Copy the first value of request metadata key into out; 0 found, -1 not. */
int sc_rpc_call_metadata(struct sc_rpc_call *call, const char *key, char *out,
    size_t outsz);
/* "ipv4:127.0.0.1:5555" or similar; borrowed, valid while the call is. */
const char *sc_rpc_call_peer(struct sc_rpc_call *call);
void sc_rpc_call_ref(struct sc_rpc_call *call);
void sc_rpc_call_unref(struct sc_rpc_call *call);
/*
 * Send one message (copied).  At most one send may be in flight; sent()
 * runs (on a CQ thread) once gRPC has accepted the message into flow
 * control, or the call died.  Callable from any thread, including from
 * sent() itself.  Returns -1 if a send is already in flight, the call is
 * finished or dead (sent() is then not called).
 */
int sc_rpc_call_send(struct sc_rpc_call *call, const void *msg, size_t len,
    sc_rpc_sent_fn *sent, void *arg);
/*
 * As sc_rpc_call_send(), without copying: msg, len stay valid until
 * unref(ref) is called, which happens exactly once, from any thread
 * (perhaps after the call ended), once gRPC no longer needs the bytes;
 * also when the send is refused (-1).
 */
int sc_rpc_call_send_ref(struct sc_rpc_call *call, const void *msg, size_t len,
    void (*unref)(void *), void *ref, sc_rpc_sent_fn *sent, void *arg);
/*
 * Unary reply: message and status OK in one batch.  0, or -1 if a send
 * is in flight or the call is finished, closed or dead.
 */
int sc_rpc_call_reply(struct sc_rpc_call *call, const void *msg, size_t len);
/*
 * As sc_rpc_call_reply(), without copying (as sc_rpc_call_send_ref()):
 * the last message of a stream and its status OK in one batch.
 */
int sc_rpc_call_reply_ref(struct sc_rpc_call *call, const void *msg, size_t len,
    void (*unref)(void *), void *ref);
/*
 * Finish with a status (adds initial metadata if none went out; details,
 * if not NULL, become grpc-status-details-bin; a non-OK status without
 * them gets those of the server's sc_rpc_details_fn, if it has one).  Waits for no in-flight
 * send: if one is in flight, the status goes out when it completes
 * (and not at all if that send fails).  Exactly once per call; further
 * calls return -1, as does finishing a call that is already closed
 * (cancelled) or dead, which sends nothing.
 */
int sc_rpc_call_finish(struct sc_rpc_call *call, int code, const char *msg,
    const void *details, size_t details_len);
/* Register the close callback (once, before returning from the handler). */
void sc_rpc_call_on_close(struct sc_rpc_call *call, sc_rpc_close_fn *fn,
    void *arg);
/*
 * Client-streaming (AddArtifacts): read the next message; one read
 * outstanding.  msg is valid only during fn, which may call
 * sc_rpc_call_read() again; fn runs on the call's completion-queue
 * thread.  Callable from any thread.  0, or -1 if a read is outstanding
 * or the call is closed or dead.
 */
int sc_rpc_call_read(struct sc_rpc_call *call, sc_rpc_read_fn *fn, void *arg);
/*
 * Where sc_rpc_call_read_into() puts a message of len bytes: a buffer of
 * at least len bytes (not NULL, even for 0) that stays the caller's.
 * Runs on the call's completion-queue thread; must not block.  NULL
 * cancels the call (fn then sees a dead call).
 */
typedef void *sc_rpc_buf_fn(size_t len, void *arg);
/*
 * As sc_rpc_call_read(), but the message is copied once, straight from
 * the received bytes into buf(len, arg), and fn gets that buffer (a
 * large message would otherwise be joined into one piece first).
 */
int sc_rpc_call_read_into(struct sc_rpc_call *call, sc_rpc_buf_fn *buf,
    sc_rpc_read_fn *fn, void *arg);

#endif
