/* SPDX-License-Identifier: MIT */

/*
 * scstream.c: the Spark Connect client side of test/bench/run.  "stream"
 * runs a Range or SQL relation as plan.root through the reattach loop of
 * core/reattach and discards the results (the response envelope is
 * unpacked, the Arrow data is not); "latency" times full ExecutePlan round
 * trips; "hold" starts an ExecutePlan, reads nothing for a while, then
 * cancels and releases it.  Each prints one line of key=value pairs.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/protocol.h"
#include "core/reattach.h"
#include "core/client.h"
#include "core/uri.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "core/banned.h"

#define MAX_COUNT 10000000000ULL

/* Two generated enum names too long for one line. */
#define ARROW_BATCH \
	SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH
#define OPT_REATTACH \
	SPARK__CONNECT__EXECUTE_PLAN_REQUEST__REQUEST_OPTION__REQUEST_OPTION_REATTACH_OPTIONS

static const char usage_text[] =
    "usage: scstream stream -s uri (--range end | --sql query)"
    " [--no-reattach] [--start-at t]\n"
    "       scstream latency -s uri --sql query --count n [--warmup n]"
    " [--reattachable]\n"
    "       scstream hold -s uri (--range end | --sql query)"
    " --hold-ms ms\n";

#define BENCH_PROG "scstream"
#include "bench.h"

struct opts {
	const char *server;
	const char *sql;
	int64_t range_end; /* -1: no --range */
	uint64_t count;
	uint64_t warmup;
	uint64_t hold_ms;
	double start_at; /* realtime seconds; 0: now */
	bool reattachable;
};

static void
parse_args(int argc, char *argv[], struct opts *o)
{
	static const struct option longopts[] = {
		{ "count", required_argument, NULL, 'c' },
		{ "hold-ms", required_argument, NULL, 'H' },
		{ "no-reattach", no_argument, NULL, 'N' },
		{ "range", required_argument, NULL, 'r' },
		{ "reattachable", no_argument, NULL, 'R' },
		{ "server", required_argument, NULL, 's' },
		{ "sql", required_argument, NULL, 'q' },
		{ "start-at", required_argument, NULL, 'S' },
		{ "warmup", required_argument, NULL, 'w' }, { NULL, 0, NULL, 0 }
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "s:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			o->count = num_arg(optarg, "count", MAX_COUNT);
			break;
		case 'H':
			o->hold_ms = num_arg(optarg, "hold time", 3600000);
			break;
		case 'N':
			o->reattachable = false;
			break;
		case 'q':
			o->sql = optarg;
			break;
		case 'r':
			o->range_end =
			    (int64_t)num_arg(optarg, "range end", INT64_MAX);
			break;
		case 'R':
			o->reattachable = true;
			break;
		case 's':
			o->server = optarg;
			break;
		case 'S':
			o->start_at = start_at_arg(optarg);
			break;
		case 'w':
			o->warmup = num_arg(optarg, "warmup", MAX_COUNT);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || o->server == NULL ||
	    (o->sql == NULL) == (o->range_end < 0))
		usage();
}

static struct sc_client *
connect_to(const char *server)
{
	struct sc_uri u;
	struct sc_error err;
	struct sc_client *c;

	sc_error_init(&err);
	sc_uri_init(&u);
	if (sc_uri_parse(&u, server, &err) == -1)
		die("%s", err.msg);
	if ((c = sc_client_new(&u, NULL, &err)) == NULL)
		die("%s", err.msg);
	sc_uri_release(&u);
	return c;
}

/* The plan: plan.root is a Range(0, end, 1) or a SQL relation. */
struct plan {
	Spark__Connect__Plan plan;
	Spark__Connect__Relation rel;
	Spark__Connect__Range range;
	Spark__Connect__SQL sql;
};

static void
plan_init(struct plan *p, const struct opts *o)
{
	spark__connect__plan__init(&p->plan);
	spark__connect__relation__init(&p->rel);
	spark__connect__range__init(&p->range);
	spark__connect__sql__init(&p->sql);
	if (o->sql != NULL) {
		p->sql.query = (char *)o->sql;
		p->rel.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SQL;
		p->rel.sql = &p->sql;
	} else {
		p->range._start_case = SPARK__CONNECT__RANGE___START_START;
		p->range.start = 0;
		p->range.end = o->range_end;
		p->range.step = 1;
		p->rel.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_RANGE;
		p->rel.range = &p->range;
	}
	p->plan.op_type_case = SPARK__CONNECT__PLAN__OP_TYPE_ROOT;
	p->plan.root = &p->rel;
}

struct totals {
	uint64_t responses;
	uint64_t batches;
	uint64_t rows;
	uint64_t data_bytes; /* ArrowBatch.data */
	uint64_t batch_msg_bytes; /* packed ArrowBatch responses */
	uint64_t streams;
	bool complete;
};

/* Run the plan once through the reattach loop, reading to the end. */
static int
run_once(struct sc_client *c, const struct plan *p, bool reattachable,
    struct totals *t, struct sc_error *err)
{
	Spark__Connect__ExecutePlanRequest req =
	    SPARK__CONNECT__EXECUTE_PLAN_REQUEST__INIT;
	Spark__Connect__ExecutePlanResponse *resp;
	struct sc_reattach_opts ro;
	struct sc_reattach *it;
	int r;

	sc_reattach_opts_init(&ro);
	ro.reattachable = reattachable;
	req.plan = (Spark__Connect__Plan *)&p->plan;
	if ((it = sc_reattach_open(c, &req, &ro, err)) == NULL)
		return -1;
	while ((r = sc_reattach_next(it, &resp, err)) == 1) {
		t->responses++;
		if (resp->response_type_case == ARROW_BATCH &&
		    resp->arrow_batch != NULL) {
			t->batches++;
			t->rows += (uint64_t)resp->arrow_batch->row_count;
			t->data_bytes += resp->arrow_batch->data.len;
			t->batch_msg_bytes +=
			    protobuf_c_message_get_packed_size(&resp->base);
		}
		protobuf_c_message_free_unpacked(&resp->base, NULL);
	}
	t->streams += sc_reattach_streams(it);
	t->complete = r == 0;
	sc_reattach_close(it);
	return r;
}

static int
stream_cmd(int argc, char *argv[])
{
	struct opts o = { .range_end = -1, .reattachable = true };
	struct plan p;
	struct totals t;
	struct sc_client *c;
	struct sc_error err;
	double t0, secs, r0;

	parse_args(argc, argv, &o);
	plan_init(&p, &o);
	c = connect_to(o.server);
	sc_error_init(&err);
	memset(&t, 0, sizeof(t));
	wait_until(o.start_at);
	r0 = real_s();
	t0 = now_s();
	if (run_once(c, &p, o.reattachable, &t, &err) == -1)
		die("stream: %s", err.msg);
	secs = now_s() - t0;
	(void)sc_client_release_wait(c, NULL);
	sc_client_free(c);
	if (o.range_end >= 0 && t.rows != (uint64_t)o.range_end)
		die("stream: %" PRIu64 " rows, expected %" PRId64, t.rows,
		    o.range_end);
	printf("rows=%" PRIu64 " batches=%" PRIu64 " responses=%" PRIu64
	       " streams=%" PRIu64 " data_bytes=%" PRIu64
	       " batch_msg_bytes=%" PRIu64
	       " avg_msg=%.0f secs=%.6f rows_per_s=%.0f mb_per_s=%.2f"
	       " t_start=%.6f t_end=%.6f\n",
	    t.rows, t.batches, t.responses, t.streams, t.data_bytes,
	    t.batch_msg_bytes,
	    t.batches ? (double)t.batch_msg_bytes / (double)t.batches : 0.0,
	    secs, (double)t.rows / secs, (double)t.data_bytes / secs / 1e6, r0,
	    r0 + secs);
	return 0;
}

static int
latency_cmd(int argc, char *argv[])
{
	struct opts o = { .range_end = -1, .warmup = 200 };
	struct plan p;
	struct totals t;
	struct sc_client *c;
	struct sc_error err;
	double *lat, t0, sum = 0;
	uint64_t i;

	parse_args(argc, argv, &o);
	if (o.count == 0)
		usage();
	plan_init(&p, &o);
	c = connect_to(o.server);
	sc_error_init(&err);
	lat = sc_xcalloc(o.count, sizeof(*lat));
	for (i = 0; i < o.warmup + o.count; i++) {
		memset(&t, 0, sizeof(t));
		t0 = now_s();
		if (run_once(c, &p, o.reattachable, &t, &err) == -1)
			die("latency: %s", err.msg);
		if (t.batches == 0)
			die("latency: no ArrowBatch in the result");
		if (i >= o.warmup) {
			lat[i - o.warmup] = now_s() - t0;
			sum += lat[i - o.warmup];
		}
	}
	(void)sc_client_release_wait(c, NULL);
	sc_client_free(c);
	qsort(lat, o.count, sizeof(*lat), cmp_double);
	printf("count=%" PRIu64 " p50_us=%.1f p99_us=%.1f mean_us=%.1f "
	       "max_us=%.1f\n",
	    o.count, percentile(lat, o.count, 50) * 1e6,
	    percentile(lat, o.count, 99) * 1e6, sum / (double)o.count * 1e6,
	    lat[o.count - 1] * 1e6);
	free(lat);
	return 0;
}

/*
 * Start a reattachable ExecutePlan and read nothing for o.hold_ms; then
 * read a few responses (to show the operation was alive and producing),
 * cancel the stream and ReleaseAll.
 */
static int
hold_cmd(int argc, char *argv[])
{
	struct opts o = { .range_end = -1 };
	Spark__Connect__ExecutePlanRequest req =
	    SPARK__CONNECT__EXECUTE_PLAN_REQUEST__INIT;
	Spark__Connect__ExecutePlanRequest__RequestOption ropt =
	    SPARK__CONNECT__EXECUTE_PLAN_REQUEST__REQUEST_OPTION__INIT;
	Spark__Connect__ExecutePlanRequest__RequestOption *ropts[1];
	Spark__Connect__ReattachOptions reat =
	    SPARK__CONNECT__REATTACH_OPTIONS__INIT;
	struct plan p;
	struct sc_client *c;
	struct sc_error err;
	struct sc_buf msg;
	struct timespec until;
	char opid[SC_UUID_STRLEN];
	void *s;
	uint8_t *packed;
	size_t len;
	uint64_t got = 0, bytes = 0;
	double t0, held;
	int i, r;

	parse_args(argc, argv, &o);
	if (o.hold_ms == 0)
		usage();
	plan_init(&p, &o);
	c = connect_to(o.server);
	sc_error_init(&err);
	if (sc_uuid_v4(opid, &err) == -1)
		die("%s", err.msg);
	req.plan = &p.plan;
	sc_client_stamp(c, &req.base);
	req._operation_id_case =
	    SPARK__CONNECT__EXECUTE_PLAN_REQUEST___OPERATION_ID_OPERATION_ID;
	req.operation_id = opid;
	reat.reattachable = true;
	ropt.request_option_case = OPT_REATTACH;
	ropt.reattach_options = &reat;
	ropts[0] = &ropt;
	req.n_request_options = 1;
	req.request_options = ropts;
	packed = sc_proto_pack_alloc(&req.base, &len);

	t0 = now_s();
	s = sc_client_stream_open(c, SC_METHOD_EXECUTE_PLAN, packed, len, NULL,
	    &err);
	free(packed);
	if (s == NULL)
		die("hold: %s", err.msg);
	usleep((useconds_t)(o.hold_ms * 1000));
	held = now_s() - t0;

	sc_buf_init(&msg, SC_BUF_UNLIMITED);
	for (i = 0; i < 3; i++) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += 10;
		r = sc_client_stream_read(c, s, &msg, &until, &err);
		if (r != 1)
			break;
		got++;
		bytes += msg.len;
	}
	sc_client_stream_cancel(c, s);
	sc_client_stream_free(c, s);
	sc_buf_release(&msg);

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += 10;
	if (sc_client_release_execute(c, opid, NULL, NULL, &until, &err) == -1)
		die("hold: ReleaseExecute: %s", err.msg);
	sc_client_free(c);
	if (got == 0)
		die("hold: no response after the hold");
	printf("held_s=%.3f after_msgs=%" PRIu64 " after_bytes=%" PRIu64 "\n",
	    held, got, bytes);
	return 0;
}

int
main(int argc, char *argv[])
{
	if (argc < 2)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
#ifdef __GLIBC__
	/* As sc-exec does: see its main(). */
	mallopt(M_TRIM_THRESHOLD, 8 * 1024 * 1024);
#endif
	if (strcmp(argv[1], "stream") == 0)
		return stream_cmd(argc - 1, argv + 1);
	if (strcmp(argv[1], "latency") == 0)
		return latency_cmd(argc - 1, argv + 1);
	if (strcmp(argv[1], "hold") == 0)
		return hold_cmd(argc - 1, argv + 1);
	usage();
}
