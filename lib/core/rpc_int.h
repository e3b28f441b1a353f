/* SPDX-License-Identifier: MIT */

/*
 * rpc_int.h: what the rpc module's files share and nobody else sees.
 * The module is the only code that calls the gRPC C core (Debian 12,
 * 1.51): rpc.c (process-wide set-up and helpers both halves use),
 * rpc_client.c (channels and calls, rpc.h) and rpc_server.c (the server,
 * rpc_server.h).  A client program links rpc.o and rpc_client.o only.
 */

#ifndef SC_RPC_INT_H
#define SC_RPC_INT_H

#include <stddef.h>
#include <stdint.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/alloc.h>
#include <grpc/support/log.h>
#include <grpc/support/time.h>

struct sc_error;

/* The trailer that carries a google.rpc.Status with Spark's details. */
#define SC_RPC_DETAILS_KEY "grpc-status-details-bin"

/*
 * grpc_init() for one channel or server (the core's log is routed to
 * sc_debug once per process); sc_rpc_core_stop() undoes it when that
 * channel or server is gone.  The core counts: the last stop waits for
 * its background work (a TLS handshake still running, a reconnect timer)
 * and frees it, so a program exits with nothing of the core left over.
 */
void sc_rpc_core_start(void);
void sc_rpc_core_stop(void);

/* Fill a channel argument. */
void sc_rpc_arg_int(grpc_arg *a, const char *key, int v);

/* A receive limit in bytes as a channel argument; <= 0 is unlimited. */
int sc_rpc_limit_arg(long n);

/* A zeroed batch operation of the given type. */
void sc_rpc_op(grpc_op *op, grpc_op_type type);

/* A byte buffer holding a copy of p[0..n): one allocation, one copy. */
grpc_byte_buffer *sc_rpc_make_bb(const void *p, size_t n);

/*
 * Read a whole (small: 1 MiB at most) PEM file, what naming it in
 * errors ("CA file").  malloc'ed and NUL-terminated; free with
 * sc_rpc_free_secret() when it may hold a key.  NULL on failure.
 */
char *sc_rpc_read_file(const char *path, const char *what,
    struct sc_error *err);

/* Wipe and free a NUL-terminated secret; NULL is a no-op. */
void sc_rpc_free_secret(char *s);

/*
 * rpc_listen.c: the server's own accept loop for plaintext listeners
 * (gRPC 1.51's never recovers from EMFILE).  One thread accepts,
 * refuses connections over max_conns in all or max_peer_conns from one
 * address, closes those that send nothing within grace_ms, and hands
 * the others to gRPC with grpc_server_add_channel_from_fd().
 */
struct sc_rpc_listener;

struct sc_rpc_listen_opts {
	long max_conns; /* 0: sc_rpc_default_max_connections() */
	long max_peer_conns; /* 0: 4096 */
	int64_t grace_ms; /* 0: 10 s; < 0: no limit */
};

/* The soft RLIMIT_NOFILE (at most 2^20). */
long sc_rpc_fd_limit(void);
/* A quarter of fd_limit (at least 64) left for everything else. */
long sc_rpc_default_max_connections(long fd_limit);
/*
 * Bind and listen on addr ("host:port", "[v6]:port"; port 0 picks a free
 * one, stored in *portp).  Accepts nothing yet.  NULL on failure
 * (SC_ST_IO).
 */
struct sc_rpc_listener *sc_rpc_listener_new(const char *addr,
    const struct sc_rpc_listen_opts *o, int *portp, struct sc_error *err);
/* Start accepting for gs, which must be started.  0 or -1. */
int sc_rpc_listener_start(struct sc_rpc_listener *l, grpc_server *gs,
    struct sc_error *err);
/*
 * Stop accepting: join the thread, close the listening sockets and the
 * connections not yet handed over.  Idempotent.
 */
void sc_rpc_listener_stop(struct sc_rpc_listener *l);
/* Stop, then free; NULL is a no-op. */
void sc_rpc_listener_free(struct sc_rpc_listener *l);
/*
 * The peer ("ipv4:127.0.0.1:5555") of a connection gRPC names
 * grpc_peer ("fd:12"), malloc'ed, or NULL when it is not one of ours.
 */
char *sc_rpc_listener_peer(struct sc_rpc_listener *l, const char *grpc_peer);

#endif
