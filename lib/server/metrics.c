/* SPDX-License-Identifier: MIT */

/*
 * metrics.c: RPC and operation counters (metrics.h).  A method is found
 * by a scan of seventeen names: cheaper than the call it counts.
 */

#include "server/metrics.h"

#include <stdatomic.h>
#include <string.h>

#include "core/banned.h"

const double sc_metrics_bounds[SC_METRICS_NBUCKETS] = { 0.001, 0.0025, 0.005,
	0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300 };

/* The bounds in microseconds. */
static const int64_t bounds_us[SC_METRICS_NBUCKETS] = { 1000, 2500, 5000, 10000,
	25000, 50000, 100000, 250000, 500000, 1000000, 2500000, 5000000,
	10000000, 30000000, 60000000, 300000000 };

static const char *const methods[SC_METRICS_NMETHODS] = { "ExecutePlan",
	"AnalyzePlan", "Config", "AddArtifacts", "ArtifactStatus", "Interrupt",
	"ReattachExecute", "ReleaseExecute", "ReleaseSession",
	"FetchErrorDetails", "ListExecutions", "GetExecution", "ListSessions",
	"ListTombstones", "GetStats", "Watch", "other" };

static const char *const codes[SC_METRICS_NCODES] = { "OK", "CANCELLED",
	"UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
	"FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
	"INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED" };

/* Observations per bucket (not cumulative); the last one is +Inf. */
struct hist {
	atomic_uint_fast64_t n[SC_METRICS_NBUCKETS + 1];
	atomic_uint_fast64_t sum_us;
};

static atomic_uint_fast64_t calls[SC_METRICS_NMETHODS][SC_METRICS_NCODES];
static struct hist rpc_hist[SC_METRICS_NMETHODS];
static struct hist op_hist;

static void
observe(struct hist *h, int64_t us)
{
	size_t i;

	if (us < 0)
		us = 0;
	for (i = 0; i < SC_METRICS_NBUCKETS && us > bounds_us[i]; i++)
		;
	atomic_fetch_add_explicit(&h->n[i], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&h->sum_us, (uint_fast64_t)us,
	    memory_order_relaxed);
}

static size_t
method_index(const char *path)
{
	const char *slash = path != NULL ? strrchr(path, '/') : NULL;
	const char *name = slash != NULL ? slash + 1 : "";
	size_t i;

	for (i = 0; i < SC_METRICS_NMETHODS - 1; i++)
		if (strcmp(name, methods[i]) == 0)
			return i;
	return SC_METRICS_NMETHODS - 1;
}

void
sc_metrics_rpc(const char *path, int code, int64_t us)
{
	size_t m = method_index(path);

	if (code < 0 || code >= SC_METRICS_NCODES)
		code = 2; /* UNKNOWN */
	atomic_fetch_add_explicit(&calls[m][code], 1, memory_order_relaxed);
	observe(&rpc_hist[m], us);
}

void
sc_metrics_rpc_done(const char *path, int code, int64_t us, void *arg)
{
	(void)arg;
	sc_metrics_rpc(path, code, us);
}

void
sc_metrics_operation(int64_t us)
{
	observe(&op_hist, us);
}

const char *
sc_metrics_method_name(size_t i)
{
	return i < SC_METRICS_NMETHODS ? methods[i] : NULL;
}

const char *
sc_metrics_code_name(int code)
{
	return code >= 0 && code < SC_METRICS_NCODES ? codes[code] : NULL;
}

static void
hist_read(struct hist *h, struct sc_metrics_hist *out)
{
	uint64_t run = 0;
	size_t i;

	for (i = 0; i < SC_METRICS_NBUCKETS; i++) {
		run += atomic_load_explicit(&h->n[i], memory_order_relaxed);
		out->le[i] = run;
	}
	out->count = run +
	    atomic_load_explicit(&h->n[SC_METRICS_NBUCKETS],
		memory_order_relaxed);
	out->sum_us = atomic_load_explicit(&h->sum_us, memory_order_relaxed);
}

void
sc_metrics_snapshot(struct sc_metrics_snapshot *out)
{
	size_t m, c;

	memset(out, 0, sizeof(*out));
	for (m = 0; m < SC_METRICS_NMETHODS; m++) {
		for (c = 0; c < SC_METRICS_NCODES; c++)
			out->calls[m][c] = atomic_load_explicit(&calls[m][c],
			    memory_order_relaxed);
		hist_read(&rpc_hist[m], &out->rpc[m]);
	}
	hist_read(&op_hist, &out->op);
}
