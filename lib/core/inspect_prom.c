/* SPDX-License-Identifier: MIT */

/*
 * inspect_prom.c: server statistics as Prometheus' text exposition
 * format, for node_exporter's textfile collector (sc-inspect stats
 * --format prometheus) and for sc-serve's /metrics.  Names and labels
 * are stable; man/sc-inspect.1 lists them.
 */

#include "core/inspect.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/banned.h"

static const char *const state_names[SC_INSPECT_NSTATES] = { "unknown",
	"pending", "running", "finished", "failed", "canceled", "closed" };

/* A label value as the format wants it: \\, \" and \n escaped. */
static int
add_label(struct sc_buf *b, const char *v, struct sc_error *err)
{
	for (; *v != '\0'; v++) {
		if ((*v == '\\' || *v == '"') &&
		    sc_buf_addch(b, '\\', err) == -1)
			return -1;
		if (*v == '\n') {
			if (sc_buf_addstr(b, "\\n", err) == -1)
				return -1;
		} else if (sc_buf_addch(b, *v, err) == -1)
			return -1;
	}
	return 0;
}

/* The HELP and TYPE lines of a metric. */
static int
head(struct sc_buf *b, const char *name, const char *type, const char *help,
    struct sc_error *err)
{
	return sc_buf_addf(b, err, "# HELP sctk_%s %s\n# TYPE sctk_%s %s\n",
	    name, help, name, type);
}

/* The samples of histogram h, labels (may be "") first in each. */
static int
hist(struct sc_buf *b, const char *name, const char *labels,
    const struct sc_inspect_hist *h, struct sc_error *err)
{
	const char *sep = labels[0] != '\0' ? "," : "";
	size_t i;

	for (i = 0; i < h->nbounds; i++)
		if (sc_buf_addf(b, err,
			"sctk_%s_bucket{%s%sle=\"%g\"} %" PRId64 "\n", name,
			labels, sep, h->bounds[i], h->le[i]) == -1)
			return -1;
	if (sc_buf_addf(b, err, "sctk_%s_bucket{%s%sle=\"+Inf\"} %" PRId64 "\n",
		name, labels, sep, h->count) == -1)
		return -1;
	if (labels[0] != '\0')
		return sc_buf_addf(b, err,
		    "sctk_%s_sum{%s} %.6f\nsctk_%s_count{%s} %" PRId64 "\n",
		    name, labels, h->sum_seconds, name, labels, h->count);
	return sc_buf_addf(b, err,
	    "sctk_%s_sum %.6f\nsctk_%s_count %" PRId64 "\n", name,
	    h->sum_seconds, name, h->count);
}

/* A metric of one sample without labels: a field of the stats. */
struct plain {
	const char *name, *type, *help;
	size_t off; /* of an int64_t in struct sc_inspect_stats */
};

#define GAUGE(n, f, h)                                              \
	{                                                           \
		n, "gauge", h, offsetof(struct sc_inspect_stats, f) \
	}
#define COUNTER(n, f, h)                                              \
	{                                                             \
		n, "counter", h, offsetof(struct sc_inspect_stats, f) \
	}

static const struct plain plain[] = {
	GAUGE("sessions", sessions, "Live sessions."),
	GAUGE("buffered_bytes", buffered_bytes,
	    "Result bytes buffered for clients, not yet released."),
	GAUGE("streams_open", streams_open,
	    "Result streams and admin watches attached now."),
	GAUGE("artifacts", artifacts,
	    "Artifacts stored, all sessions together."),
	GAUGE("artifact_store_bytes", artifact_bytes,
	    "Bytes of the artifacts stored, all sessions together."),
	GAUGE("resident_memory_bytes", rss_bytes,
	    "Resident set size of sc-serve."),
	GAUGE("heap_bytes", heap_in_use_bytes,
	    "Heap memory in use by sc-serve."),
	COUNTER("operations_started_total", operations_started,
	    "Operations started since sc-serve started."),
	COUNTER("operations_finished_total", operations_finished,
	    "Operations that produced all their results."),
	COUNTER("operations_failed_total", operations_failed,
	    "Operations that failed with an error."),
	COUNTER("operations_canceled_total", operations_canceled,
	    "Operations interrupted or canceled."),
	COUNTER("operations_abandoned_total", operations_abandoned,
	    "Operations abandoned: detached too long, or their session closed."),
	COUNTER("rows_sent_total", rows_sent, "Result rows sent to clients."),
	COUNTER("sent_bytes_total", bytes_sent,
	    "Result bytes sent to clients."),
	COUNTER("reattaches_total", reattaches,
	    "ReattachExecute calls that attached to an operation."),
};

static int
plain_metrics(const struct sc_inspect_stats *s, struct sc_buf *b,
    struct sc_error *err)
{
	const unsigned char *base = (const unsigned char *)s;
	int64_t v;
	size_t i;

	if (head(b, "build_info", "gauge",
		"The version of sc-serve answering, as a label.", err) == -1 ||
	    sc_buf_addstr(b, "sctk_build_info{version=\"", err) == -1 ||
	    add_label(b, s->version, err) == -1 ||
	    sc_buf_addstr(b, "\"} 1\n", err) == -1)
		return -1;
	if (head(b, "start_time_seconds", "gauge",
		"When sc-serve started, in seconds since the Unix epoch.",
		err) == -1 ||
	    sc_buf_addf(b, err, "sctk_start_time_seconds %.3f\n",
		(double)s->started_at_ms / 1000) == -1)
		return -1;
	if (head(b, "operations", "gauge",
		"Operations the server holds now, by state.", err) == -1)
		return -1;
	for (i = 1; i < SC_INSPECT_NSTATES; i++)
		if (sc_buf_addf(b, err,
			"sctk_operations{state=\"%s\"} %" PRId64 "\n",
			state_names[i], s->by_state[i]) == -1)
			return -1;
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		memcpy(&v, base + plain[i].off, sizeof(v));
		if (head(b, plain[i].name, plain[i].type, plain[i].help, err) ==
			-1 ||
		    sc_buf_addf(b, err, "sctk_%s %" PRId64 "\n", plain[i].name,
			v) == -1)
			return -1;
	}
	return 0;
}

static int
rpcs(const struct sc_inspect_stats *s, struct sc_buf *b, struct sc_error *err)
{
	char labels[128];
	size_t i;

	if (head(b, "rpcs_total", "counter",
		"RPCs ended, by method and gRPC status code.", err) == -1)
		return -1;
	for (i = 0; i < s->nrpcs; i++)
		if (sc_buf_addstr(b, "sctk_rpcs_total{method=\"", err) == -1 ||
		    add_label(b, s->rpcs[i].method, err) == -1 ||
		    sc_buf_addstr(b, "\",code=\"", err) == -1 ||
		    add_label(b, s->rpcs[i].code, err) == -1 ||
		    sc_buf_addf(b, err, "\"} %" PRId64 "\n",
			s->rpcs[i].count) == -1)
			return -1;
	if (head(b, "rpc_duration_seconds", "histogram",
		"RPC durations, from arrival to end, by method.", err) == -1)
		return -1;
	for (i = 0; i < s->nrpc_hist; i++) {
		/* Method names are the server's own: [A-Za-z]+. */
		if (s->rpc_hist[i].count == 0 ||
		    strpbrk(s->rpc_hist[i].method, "\\\"\n") != NULL)
			continue;
		snprintf(labels, sizeof(labels), "method=\"%s\"",
		    s->rpc_hist[i].method);
		if (hist(b, "rpc_duration_seconds", labels, &s->rpc_hist[i],
			err) == -1)
			return -1;
	}
	if (!s->has_op_hist)
		return 0;
	if (head(b, "operation_duration_seconds", "histogram",
		"Operation durations, from creation to leaving the server.",
		err) == -1)
		return -1;
	return hist(b, "operation_duration_seconds", "", &s->op_hist, err);
}

int
sc_inspect_prometheus(const struct sc_inspect_stats *s, struct sc_buf *b,
    struct sc_error *err)
{
	if (plain_metrics(s, b, err) == -1 || rpcs(s, b, err) == -1)
		return -1;
	return 0;
}
