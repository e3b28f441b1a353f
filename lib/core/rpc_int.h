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

#endif
