/* SPDX-License-Identifier: MIT */

/*
 * test-metrics.c: lib/server/metrics.c (RPCs counted by method and code,
 * cumulative histogram buckets) and lib/core/inspect_prom.c (the
 * Prometheus text: HELP and TYPE lines, label escaping, histogram
 * samples, +Inf), with exact values.
 */

#include "server/metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/inspect.h"
#include "tap.h"
#include "core/banned.h"

/* The index of a method by name, or SC_METRICS_NMETHODS. */
static size_t
method(const char *name)
{
	size_t i;

	for (i = 0; i < SC_METRICS_NMETHODS; i++)
		if (strcmp(sc_metrics_method_name(i), name) == 0)
			return i;
	return i;
}

static void
test_counts(void)
{
	struct sc_metrics_snapshot *s = malloc(sizeof(*s));
	size_t ep = method("ExecutePlan"), other = method("other");

	sc_metrics_rpc("/spark.connect.SparkConnectService/ExecutePlan", 0,
	    500);
	sc_metrics_rpc("/spark.connect.SparkConnectService/ExecutePlan", 0,
	    2000);
	sc_metrics_rpc("/spark.connect.SparkConnectService/ExecutePlan", 13,
	    400000000);
	sc_metrics_rpc("/x.Y/Nope", 12, 1);
	sc_metrics_rpc("/x.Y/Nope", 99, 1);
	sc_metrics_operation(1000);
	sc_metrics_operation(1001);
	sc_metrics_snapshot(s);
	is_int(s->calls[ep][0], 2, "two ExecutePlan OK");
	is_int(s->calls[ep][13], 1, "one ExecutePlan INTERNAL");
	is_int(s->calls[other][12], 1, "an unknown method counts as other");
	is_int(s->calls[other][2], 1, "a code out of range counts as UNKNOWN");
	is_int(s->rpc[ep].count, 3, "three durations");
	is_int(s->rpc[ep].le[0], 1, "0.5 ms <= 1 ms");
	is_int(s->rpc[ep].le[1], 2, "2 ms <= 2.5 ms, cumulative");
	is_int(s->rpc[ep].le[SC_METRICS_NBUCKETS - 1], 2, "400 s only in +Inf");
	is_int(s->rpc[ep].sum_us, 400002500, "the sum in microseconds");
	is_int(s->op.le[0], 1, "1 ms is in the 1 ms bucket");
	is_int(s->op.le[1], 2, "1.001 ms is in the next");
	is_str(sc_metrics_code_name(16), "UNAUTHENTICATED", "code 16");
	ok(sc_metrics_code_name(17) == NULL, "no code 17");
	free(s);
}

static void
test_prometheus(void)
{
	struct sc_inspect_stats *s = calloc(1, sizeof(*s));
	struct sc_error err;
	struct sc_buf b;
	const char *t;

	snprintf(s->version, sizeof(s->version), "1.0 \"x\"\\\n");
	s->sessions = 3;
	s->by_state[2] = 5; /* running */
	snprintf(s->rpcs[0].method, sizeof(s->rpcs[0].method), "Config");
	snprintf(s->rpcs[0].code, sizeof(s->rpcs[0].code), "OK");
	s->rpcs[0].count = 7;
	s->nrpcs = 1;
	snprintf(s->rpc_hist[0].method, sizeof(s->rpc_hist[0].method),
	    "Config");
	s->rpc_hist[0].nbounds = 2;
	s->rpc_hist[0].bounds[0] = 0.001;
	s->rpc_hist[0].bounds[1] = 0.0025;
	s->rpc_hist[0].le[0] = 4;
	s->rpc_hist[0].le[1] = 6;
	s->rpc_hist[0].count = 7;
	s->rpc_hist[0].sum_seconds = 1.5;
	s->nrpc_hist = 1;
	sc_buf_init(&b, 1 << 20);
	is_int(sc_inspect_prometheus(s, &b, &err), 0, "written");
	t = (const char *)b.data;
	ok(strstr(t, "sctk_build_info{version=\"1.0 \\\"x\\\"\\\\\\n\"} 1\n") !=
		NULL,
	    "a label escapes quote, backslash and newline");
	ok(strstr(t,
	       "# HELP sctk_sessions Live sessions.\n"
	       "# TYPE sctk_sessions gauge\nsctk_sessions 3\n") != NULL,
	    "HELP, TYPE and the sample");
	ok(strstr(t, "sctk_operations{state=\"running\"} 5\n") != NULL,
	    "operations by state");
	ok(strstr(t, "sctk_rpcs_total{method=\"Config\",code=\"OK\"} 7\n") !=
		NULL,
	    "RPCs by method and code");
	ok(strstr(t,
	       "sctk_rpc_duration_seconds_bucket{method=\"Config\","
	       "le=\"0.001\"} 4\n"
	       "sctk_rpc_duration_seconds_bucket{method=\"Config\","
	       "le=\"0.0025\"} 6\n"
	       "sctk_rpc_duration_seconds_bucket{method=\"Config\","
	       "le=\"+Inf\"} 7\n"
	       "sctk_rpc_duration_seconds_sum{method=\"Config\"} 1.500000\n"
	       "sctk_rpc_duration_seconds_count{method=\"Config\"} 7\n") !=
		NULL,
	    "a histogram: buckets, +Inf, sum, count");
	ok(strstr(t, "operation_duration_seconds") == NULL,
	    "no operation histogram when the server sent none");
	sc_buf_release(&b);
	sc_buf_init(&b, 100);
	is_int(sc_inspect_prometheus(s, &b, &err), -1, "a full buffer fails");
	sc_buf_release(&b);
	free(s);
}

int
main(void)
{
	test_counts();
	test_prometheus();
	return tap_done();
}
