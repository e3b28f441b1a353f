/* SPDX-License-Identifier: MIT */

/*
 * metrics.h: the server's counters that no manager keeps: RPCs by
 * method and status code, RPC durations by method and operation
 * durations as histograms.  One set per process (as the log is one);
 * every update is a few relaxed atomic additions, from any thread.
 * The admin service's GetStats hands them out (admin.c), and
 * sc_inspect_prometheus() (core/inspect.h) writes them as Prometheus
 * text for `sc-inspect stats --format prometheus` and /metrics.
 */

#ifndef SC_METRICS_H
#define SC_METRICS_H

#include <stddef.h>
#include <stdint.h>

/* Methods: Spark Connect's ten, the admin service's six, "other". */
#define SC_METRICS_NMETHODS 17
/* gRPC status codes 0 (OK) to 16 (UNAUTHENTICATED). */
#define SC_METRICS_NCODES 17
/* Histogram buckets (upper bounds, seconds), +Inf not counted. */
#define SC_METRICS_NBUCKETS 16

extern const double sc_metrics_bounds[SC_METRICS_NBUCKETS];

/* A histogram: cumulative counts per bound, as Prometheus has them. */
struct sc_metrics_hist {
	uint64_t le[SC_METRICS_NBUCKETS]; /* observations <= the bound */
	uint64_t count; /* all observations (the +Inf bucket) */
	uint64_t sum_us; /* their sum, microseconds */
};

struct sc_metrics_snapshot {
	uint64_t calls[SC_METRICS_NMETHODS][SC_METRICS_NCODES];
	struct sc_metrics_hist rpc[SC_METRICS_NMETHODS];
	struct sc_metrics_hist op;
};

/*
 * A call to the method at path ("/pkg.Service/Method") ended with the
 * gRPC status code after us microseconds.  Unknown methods count as
 * "other".
 */
void sc_metrics_rpc(const char *path, int code, int64_t us);
/* The same as an sc_rpc_done_fn (core/rpc_server.h); arg is unused. */
void sc_metrics_rpc_done(const char *path, int code, int64_t us, void *arg);
/* An operation ended us microseconds after it was created. */
void sc_metrics_operation(int64_t us);

/* Method i's name ("ExecutePlan", ..., "other"). */
const char *sc_metrics_method_name(size_t i);
/* The name of a gRPC status code ("OK", "INTERNAL"), or NULL. */
const char *sc_metrics_code_name(int code);

/* Every counter now (each is read atomically, not all at one instant). */
void sc_metrics_snapshot(struct sc_metrics_snapshot *out);

#endif
