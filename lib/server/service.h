/* SPDX-License-Identifier: MIT */

/*
 * service.h: the spark.connect.SparkConnectService handlers of sc-serve
 * (service.c) and the settings and helpers of Spark-style error replies
 * (srverror_rpc.c).  The errors themselves: srverror.h.
 */

#ifndef SC_SERVICE_H
#define SC_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/server.h"
#include "engine/srverror.h"

struct sc_error;

/* The Spark version AnalyzePlan.spark_version reports. */
#define SC_SERVICE_SPARK_VERSION "4.0.0"

/*
 * Register the ten methods of the service on srv->rpc (created, not yet
 * started); sc-serve registers sctk.admin.v1's (sc_admin_register())
 * beside them, so that admin and service do not depend on each other.
 * srv->sessions and srv->execs must be set and outlive the server;
 * srv->conf is read on every call (token, limits).  0, or -1 with err
 * set.
 */
int sc_service_register(struct sc_server *srv, struct sc_error *err);

/*
 * Wait until no AnalyzePlan request or AddArtifacts call is being
 * handled on a thread of its own; call it after sc_rpc_server_shutdown().
 */
void sc_service_drain(void);

/*
 * The limit on ErrorInfo metadata values sc_srv_finish_error() applies
 * to messageParameters (spark.connect.grpc.maxMetadataSize, default
 * 1024); set once at start-up.
 */
void sc_srv_error_set_max_metadata(int64_t bytes);

/*
 * grpc-status-details-bin for a status that carries no error class of
 * its own (sc_rpc_details_fn): a google.rpc.Status with code, msg and an
 * ErrorInfo whose errorClass follows the code: OPERATION_CANCELED
 * (CANCELLED), INVALID_REQUEST (INVALID_ARGUMENT), UNAUTHENTICATED,
 * UNSUPPORTED_FEATURE.RPC (UNIMPLEMENTED), SERVER_UNAVAILABLE,
 * RESOURCE_EXHAUSTED, ..., INTERNAL_ERROR for any other.  malloc'ed;
 * length in *lenp.
 */
uint8_t *sc_srv_error_details(int code, const char *msg, size_t *lenp);

#endif
