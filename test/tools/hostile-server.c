/* SPDX-License-Identifier: MIT */

/*
 * hostile-server: a Spark Connect server for tests that misbehaves on
 * purpose, one way per mode, so a test can check that a client gives a
 * clear error and a documented exit code instead of a crash, a hang or
 * wrong output passed off as success.  It is built on lib/core's
 * rpc_server API (never grpc_* directly), listens on 127.0.0.1 port 0,
 * writes "sc://127.0.0.1:PORT" to the ready file once listening, and
 * exits on SIGTERM/SIGINT or after -T seconds (default 120).
 *
 *	hostile-server -m mode [-n rows] [-r ready-file] [-T seconds]
 *	hostile-server -l		(list the modes)
 *
 * Every operation has the same result whatever the plan: rows 0..n-1 of
 * one int64 column "id" (-n, default 1000), 100 rows per ArrowBatch,
 * response ids "r-0", "r-1", ..., then ResultComplete; ReattachExecute
 * goes on after its last_response_id.  That is mode "normal"; the other
 * modes break one thing (the table modes[] at the end says what).
 *
 * Adding a mode (for sc-release, sc-upload, sc-inspect and the like):
 *
 *  1. Write what differs from "normal" as hook functions:
 *     - stream_fn: the ExecutePlan and ReattachExecute streams.  It is
 *       called once per response to send, with hc->step the number of
 *       messages sent on this call so far (hc->reattach, hc->after tell
 *       which call it is), fills hc->out with one packed response (the
 *       resp_*() helpers build the usual ones) and returns STEP_SEND; or
 *       returns STEP_END (status OK), STEP_FAIL (set hc->code, hc->msg
 *       and, for details, hc->details with fail_*()), STEP_STALL (send
 *       nothing more: the client must give up by itself), or
 *       STEP_LATER (ask again after PACE_MS, for endless streams).
 *     - unary_fn: every unary method (the method path is hc->method;
 *       the request is hc->req, hc->reqlen; hc->sid is its session id).
 *       Return STEP_SEND with the reply in hc->out, STEP_FAIL, or
 *       STEP_STALL (never answer).  Return STEP_END to get the default
 *       answer of unary_default() for that method (so a mode may change
 *       only ReleaseExecute, say).
 *     - upload_fn: AddArtifacts, the one client-streaming method; it is
 *       handed each message as it arrives (msg NULL at the end) and
 *       returns as unary_fn does, STEP_LATER meaning "read on".  The
 *       default refuses with UNIMPLEMENTED.
 *  2. Add a row to modes[]: name, one line of description, the hooks
 *     (NULL for the default behaviour).
 *  3. Test it from bats: start it like sc-serve (see
 *     test/27-hostile-server.bats, start_hostile), run the client with
 *     -t and under timeout, and assert the exit code and message.
 */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/arrow.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/protocol.h"
#include "core/rpc_server.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "core/banned.h"

#define ROWS_PER_BATCH 100
#define PACE_MS 20 /* STEP_LATER: next try after this long */
#define SSID "hostile-server-side-session"
#define OTHER_ID "00000000-0000-4000-8000-000000000bad"
/* The admin service (sc-inspect): only what the modes need of it. */
#define ADMIN_STATS "/sctk.admin.v1.AdminService/GetStats"
#define ADMIN_LIST "/sctk.admin.v1.AdminService/ListExecutions"
/* An "oversized" unary reply: past gRPC's default 4 MiB receive limit. */
#define OVERSIZED_BYTES (5UL * 1024 * 1024)

enum step {
	STEP_SEND = 0, /* hc->out holds a message: send it */
	STEP_END, /* finish with OK (unary: the default answer) */
	STEP_FAIL, /* finish with hc->code, hc->msg, hc->details */
	STEP_STALL, /* do nothing more; wait for the client */
	STEP_LATER /* stream: ask again after PACE_MS */
};

struct hcall;
typedef enum step stream_fn(struct hcall *hc);
typedef enum step unary_fn(struct hcall *hc);
typedef enum step upload_fn(struct hcall *hc, const void *msg, size_t len);

struct mode {
	const char *name;
	const char *what;
	stream_fn *stream; /* NULL: stream_normal */
	unary_fn *unary; /* NULL: unary_default */
	upload_fn *upload; /* NULL: UNIMPLEMENTED */
};

/* One call: what a hook needs to know and to fill in. */
struct hcall {
	struct sc_rpc_call *call;
	const struct mode *mode;
	const char *method; /* SC_METHOD_* path */
	const uint8_t *req; /* the request (unary, server-streaming) */
	size_t reqlen;
	char sid[80]; /* the request's session id */
	char opid[80]; /* operation id (ExecutePlan, ReattachExecute) */
	bool reattach; /* a ReattachExecute stream */
	long after; /* first response index to send (reattach) */
	unsigned long step; /* messages sent on this call */
	struct sc_buf out; /* the next message, packed */
	int code; /* STEP_FAIL */
	char msg[256];
	uint8_t *details; /* STEP_FAIL: grpc-status-details-bin, or NULL */
	size_t ndetails;
	bool paused; /* stream_endless: the pause is over */
	/* Under mu: */
	bool sending, closed;
	int holds; /* the ticker is pumping it */
	struct hcall *next_waiting;
};

static const struct mode *mode;
static long nrows = 1000;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct hcall *waiting; /* STEP_LATER calls */
static volatile sig_atomic_t stop;

/* ------------------------------------------------------------ helpers */

static void
hc_free(struct hcall *hc)
{
	sc_buf_release(&hc->out);
	free(hc->details);
	free(hc);
}

/* Pack m into hc->out (replacing what it held). */
static enum step
send_msg(struct hcall *hc, const ProtobufCMessage *m)
{
	sc_buf_reset(&hc->out);
	if (sc_proto_pack(m, &hc->out, NULL) == -1)
		abort();
	return STEP_SEND;
}

static enum step fail(struct hcall *hc, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static enum step
fail(struct hcall *hc, int code, const char *fmt, ...)
{
	va_list ap;

	hc->code = code;
	va_start(ap, fmt);
	vsnprintf(hc->msg, sizeof(hc->msg), fmt, ap);
	va_end(ap);
	return STEP_FAIL;
}

/* Fail with details: a google.rpc.Status carrying RetryInfo of delay_s. */
static enum step
fail_retry_info(struct hcall *hc, int code, const char *msg, int64_t delay_s)
{
	struct sc_spark_error se;

	memset(&se, 0, sizeof(se));
	se.code = code;
	se.message = msg;
	se.retry_delay_ms =
	    (int)(delay_s * 1000 > 0x7fffffff ? 0x7fffffff : delay_s * 1000);
	free(hc->details);
	hc->details = sc_error_encode_details(&se, &hc->ndetails);
	return fail(hc, code, "%s", msg);
}

/* An Arrow IPC stream of rows start..start+n-1 in one int64 column. */
static void
arrow_ids(struct sc_buf *out, int64_t start, size_t n)
{
	struct sc_arrow_schema s;
	struct sc_arrow_writer *w;

	sc_arrow_schema_init(&s);
	sc_arrow_schema_add(&s, "id", SC_ARROW_INT64, false);
	if ((w = sc_arrow_writer_new(&s, NULL)) == NULL ||
	    sc_arrow_append_int64_seq(w, start, 1, n, NULL) == -1 ||
	    sc_arrow_writer_flush(w, out, NULL) == -1)
		abort();
	sc_arrow_writer_free(w);
	sc_arrow_schema_release(&s);
}

/* An Arrow IPC stream of n utf8 values "v<i>" in a column "name". */
static void
arrow_names(struct sc_buf *out, size_t n)
{
	struct sc_arrow_schema s;
	struct sc_arrow_writer *w;
	char v[32];
	size_t i;

	sc_arrow_schema_init(&s);
	sc_arrow_schema_add(&s, "name", SC_ARROW_UTF8, false);
	if ((w = sc_arrow_writer_new(&s, NULL)) == NULL)
		abort();
	for (i = 0; i < n; i++) {
		snprintf(v, sizeof(v), "v%zu", i);
		if (sc_arrow_append_bytes(w, 0, v, strlen(v), NULL) == -1 ||
		    sc_arrow_writer_end_row(w, NULL) == -1)
			abort();
	}
	if (sc_arrow_writer_flush(w, out, NULL) == -1)
		abort();
	sc_arrow_writer_free(w);
	sc_arrow_schema_release(&s);
}

/*
 * The envelope of every ExecutePlanResponse: this call's session and
 * operation, the server-side session id, and response id "r-<i>".
 */
static void
envelope(struct hcall *hc, Spark__Connect__ExecutePlanResponse *r, long i,
    char *rid, size_t ridsz)
{
	spark__connect__execute_plan_response__init(r);
	snprintf(rid, ridsz, "r-%ld", i);
	r->session_id = hc->sid;
	r->server_side_session_id = (char *)SSID;
	r->operation_id = hc->opid;
	r->response_id = rid;
}

/* Response i: an ArrowBatch of raw Arrow bytes claiming rows rows. */
static enum step
resp_arrow(struct hcall *hc, long i, const void *data, size_t len, int64_t rows)
{
	Spark__Connect__ExecutePlanResponse r;
	Spark__Connect__ExecutePlanResponse__ArrowBatch b =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH__INIT;
	char rid[32];

	envelope(hc, &r, i, rid, sizeof(rid));
	b.row_count = rows;
	b.data.data = (uint8_t *)data;
	b.data.len = len;
	r.response_type_case = SC_EXEC_RESP_(ARROW_BATCH);
	r.arrow_batch = &b;
	return send_msg(hc, &r.base);
}

/* Response i of the normal result: rows i*100 .. i*100+99 (or fewer). */
static enum step
resp_batch(struct hcall *hc, long i)
{
	struct sc_buf a;
	int64_t start = i * ROWS_PER_BATCH;
	size_t n = (size_t)(nrows - start < ROWS_PER_BATCH ? nrows - start
							   : ROWS_PER_BATCH);
	enum step s;

	sc_buf_init(&a, SC_BUF_UNLIMITED);
	arrow_ids(&a, start, n);
	s = resp_arrow(hc, i, a.data, a.len, (int64_t)n);
	sc_buf_release(&a);
	return s;
}

static enum step
resp_complete(struct hcall *hc, long i)
{
	Spark__Connect__ExecutePlanResponse r;
	Spark__Connect__ExecutePlanResponse__ResultComplete c =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESULT_COMPLETE__INIT;
	char rid[32];

	envelope(hc, &r, i, rid, sizeof(rid));
	r.response_type_case = SC_EXEC_RESP_(RESULT_COMPLETE);
	r.result_complete = &c;
	return send_msg(hc, &r.base);
}

/* The number of ArrowBatch responses of the normal result. */
static long
nbatches(void)
{
	return (nrows + ROWS_PER_BATCH - 1) / ROWS_PER_BATCH;
}

/* The index of the response this call sends next. */
static long
index_of(const struct hcall *hc)
{
	return hc->after + (long)hc->step;
}

/* ------------------------------------------------------------- streams */

/* The honest result: batches, then ResultComplete, then the end. */
static enum step
stream_normal(struct hcall *hc)
{
	long i = index_of(hc);

	if (i < nbatches())
		return resp_batch(hc, i);
	if (i == nbatches())
		return resp_complete(hc, i);
	return STEP_END;
}

/* The second batch's Arrow stream is cut in half. */
static enum step
stream_truncated(struct hcall *hc)
{
	long i = index_of(hc);
	struct sc_buf a;
	enum step s;

	if (i != 1)
		return stream_normal(hc);
	sc_buf_init(&a, SC_BUF_UNLIMITED);
	arrow_ids(&a, 100, 100);
	s = resp_arrow(hc, i, a.data, a.len / 2, 100);
	sc_buf_release(&a);
	return s;
}

/* The first batch is random bytes (fixed seed: the same every run). */
static enum step
stream_garbage(struct hcall *hc)
{
	uint8_t junk[600];
	uint32_t x = 2463534242u;
	size_t k;

	if (index_of(hc) != 0)
		return stream_normal(hc);
	for (k = 0; k < sizeof(junk); k++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		junk[k] = (uint8_t)x;
	}
	return resp_arrow(hc, 0, junk, sizeof(junk), 100);
}

/* The second batch has another schema: a utf8 "name" column. */
static enum step
stream_schema_change(struct hcall *hc)
{
	long i = index_of(hc);
	struct sc_buf a;
	enum step s;

	if (i != 1)
		return stream_normal(hc);
	sc_buf_init(&a, SC_BUF_UNLIMITED);
	arrow_names(&a, 100);
	s = resp_arrow(hc, i, a.data, a.len, 100);
	sc_buf_release(&a);
	return s;
}

/* The first batch claims 150 rows and holds 100. */
static enum step
stream_row_count(struct hcall *hc)
{
	struct sc_buf a;
	enum step s;

	if (index_of(hc) != 0)
		return stream_normal(hc);
	sc_buf_init(&a, SC_BUF_UNLIMITED);
	arrow_ids(&a, 0, 100);
	s = resp_arrow(hc, 0, a.data, a.len, 150);
	sc_buf_release(&a);
	return s;
}

/* The first response is 2 MiB of rows: over a 1 MiB client limit. */
static enum step
stream_oversized(struct hcall *hc)
{
	struct sc_buf a;
	enum step s;

	if (index_of(hc) != 0)
		return stream_normal(hc);
	sc_buf_init(&a, SC_BUF_UNLIMITED);
	arrow_ids(&a, 0, 262144);
	s = resp_arrow(hc, 0, a.data, a.len, 262144);
	sc_buf_release(&a);
	return s;
}

/* The second response names another operation. */
static enum step
stream_wrong_operation(struct hcall *hc)
{
	if (index_of(hc) == 1)
		snprintf(hc->opid, sizeof(hc->opid), "%s", OTHER_ID);
	return stream_normal(hc);
}

/* The second response names another session. */
static enum step
stream_wrong_session(struct hcall *hc)
{
	if (index_of(hc) == 1)
		snprintf(hc->sid, sizeof(hc->sid), "%s", OTHER_ID);
	return stream_normal(hc);
}

/* A response without a response id, in a reattachable execution. */
static enum step
stream_no_response_id(struct hcall *hc)
{
	Spark__Connect__ExecutePlanResponse r;
	Spark__Connect__ExecutePlanResponse__ResultComplete c =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESULT_COMPLETE__INIT;
	char rid[32];

	if (index_of(hc) != 1)
		return stream_normal(hc);
	envelope(hc, &r, 1, rid, sizeof(rid));
	r.response_id = (char *)"";
	r.response_type_case = SC_EXEC_RESP_(RESULT_COMPLETE);
	r.result_complete = &c;
	return send_msg(hc, &r.base);
}

/* Batches forever (paced), never ResultComplete. */
static enum step
stream_endless(struct hcall *hc)
{
	struct sc_buf a;
	enum step s;
	long i = index_of(hc);

	if (hc->step > 0 && hc->step % 5 == 0 && !hc->paused) {
		hc->paused = true; /* a pause every 5 batches */
		return STEP_LATER;
	}
	hc->paused = false;
	sc_buf_init(&a, SC_BUF_UNLIMITED);
	arrow_ids(&a, (int64_t)i * ROWS_PER_BATCH, ROWS_PER_BATCH);
	s = resp_arrow(hc, i, a.data, a.len, ROWS_PER_BATCH);
	sc_buf_release(&a);
	return s;
}

/* One batch, then nothing: the stream stays open and silent. */
static enum step
stream_stall(struct hcall *hc)
{
	if (!hc->reattach && hc->step == 0)
		return resp_batch(hc, 0);
	return STEP_STALL;
}

/*
 * ResultComplete never comes: three batches, then the stream ends; a
 * reattach ends at once with nothing.
 */
static enum step
stream_no_complete(struct hcall *hc)
{
	long i = index_of(hc);

	if (!hc->reattach && i < 3 && i < nbatches())
		return resp_batch(hc, i);
	return STEP_END;
}

/*
 * Wrong response ids on reattach: three batches, the stream ends, and a
 * reattach after r-2 starts again from r-1 (rows the client has).
 */
static enum step
stream_replay(struct hcall *hc)
{
	long i;

	if (!hc->reattach)
		return index_of(hc) < 3 ? resp_batch(hc, index_of(hc))
					: STEP_END;
	i = hc->after - 2 + (long)hc->step;
	if (i < nbatches())
		return resp_batch(hc, i < 0 ? 0 : i);
	return i == nbatches() ? resp_complete(hc, i) : STEP_END;
}

/* The operation is lost after two batches: reattach says NOT_FOUND. */
static enum step
stream_lost(struct hcall *hc)
{
	if (hc->reattach)
		return fail(hc, SC_GRPC_INTERNAL,
		    "[INVALID_HANDLE.OPERATION_NOT_FOUND] The handle `%s` is invalid. Operation not found. SQLSTATE: HY000",
		    hc->opid);
	return index_of(hc) < 2 ? resp_batch(hc, index_of(hc)) : STEP_END;
}

/* One batch, then INTERNAL with grpc-status-details-bin of junk. */
static enum step
stream_garbage_status(struct hcall *hc)
{
	static const uint8_t junk[] = { 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f,
		0x12, 0x03, 'x', 0x1a, 0x80 };

	if (index_of(hc) == 0)
		return resp_batch(hc, 0);
	free(hc->details);
	hc->details = sc_xmemdup(junk, sizeof(junk));
	hc->ndetails = sizeof(junk);
	return fail(hc, SC_GRPC_INTERNAL, "hostile server: boom");
}

/* Every stream fails UNAVAILABLE asking to retry in an hour. */
static enum step
stream_retry_forever(struct hcall *hc)
{
	return fail_retry_info(hc, SC_GRPC_UNAVAILABLE,
	    "hostile server: busy, come back in an hour", 3600);
}

/* --------------------------------------------------------------- unary */

/*
 * The answers of a server that has nothing: AnalyzePlan gives every
 * plan the result's schema, ReleaseExecute and ReleaseSession succeed,
 * Config and Interrupt answer empty, ArtifactStatus knows no artifact,
 * the rest is UNIMPLEMENTED.
 */
static enum step
unary_default(struct hcall *hc)
{
	if (strcmp(hc->method, SC_METHOD_RELEASE_EXECUTE) == 0) {
		Spark__Connect__ReleaseExecuteResponse r =
		    SPARK__CONNECT__RELEASE_EXECUTE_RESPONSE__INIT;

		r.session_id = hc->sid;
		r.server_side_session_id = (char *)SSID;
		return send_msg(hc, &r.base);
	}
	if (strcmp(hc->method, SC_METHOD_ANALYZE_PLAN) == 0) {
		/* Every plan's schema: struct<id: bigint not null>. */
		Spark__Connect__AnalyzePlanResponse r =
		    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__INIT;
		Spark__Connect__AnalyzePlanResponse__Schema sch =
		    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__SCHEMA__INIT;
		Spark__Connect__DataType st = SPARK__CONNECT__DATA_TYPE__INIT,
					 lt = SPARK__CONNECT__DATA_TYPE__INIT;
		Spark__Connect__DataType__Struct s =
		    SPARK__CONNECT__DATA_TYPE__STRUCT__INIT;
		Spark__Connect__DataType__StructField
		    f = SPARK__CONNECT__DATA_TYPE__STRUCT_FIELD__INIT,
		    *fp = &f;
		Spark__Connect__DataType__Long l =
		    SPARK__CONNECT__DATA_TYPE__LONG__INIT;

		lt.kind_case = SC_DT_(LONG);
		lt.long_ = &l;
		f.name = (char *)"id";
		f.data_type = &lt;
		s.n_fields = 1;
		s.fields = &fp;
		st.kind_case = SC_DT_(STRUCT);
		st.struct_ = &s;
		sch.schema = &st;
		r.session_id = hc->sid;
		r.server_side_session_id = (char *)SSID;
		r.result_case = SC_ANALYZE_RESP_(SCHEMA);
		r.schema = &sch;
		return send_msg(hc, &r.base);
	}
	if (strcmp(hc->method, SC_METHOD_RELEASE_SESSION) == 0) {
		Spark__Connect__ReleaseSessionResponse r =
		    SPARK__CONNECT__RELEASE_SESSION_RESPONSE__INIT;

		r.session_id = hc->sid;
		r.server_side_session_id = (char *)SSID;
		return send_msg(hc, &r.base);
	}
	if (strcmp(hc->method, SC_METHOD_CONFIG) == 0) {
		Spark__Connect__ConfigResponse r =
		    SPARK__CONNECT__CONFIG_RESPONSE__INIT;

		r.session_id = hc->sid;
		r.server_side_session_id = (char *)SSID;
		return send_msg(hc, &r.base);
	}
	if (strcmp(hc->method, SC_METHOD_INTERRUPT) == 0) {
		Spark__Connect__InterruptResponse r =
		    SPARK__CONNECT__INTERRUPT_RESPONSE__INIT;

		r.session_id = hc->sid;
		r.server_side_session_id = (char *)SSID;
		return send_msg(hc, &r.base);
	}
	if (strcmp(hc->method, SC_METHOD_ARTIFACT_STATUS) == 0) {
		Spark__Connect__ArtifactStatusesResponse r =
		    SPARK__CONNECT__ARTIFACT_STATUSES_RESPONSE__INIT;

		r.session_id = hc->sid;
		r.server_side_session_id = (char *)SSID;
		return send_msg(hc, &r.base);
	}
	if (strcmp(hc->method, ADMIN_STATS) == 0) {
		Sctk__Admin__V1__GetStatsResponse r =
		    SCTK__ADMIN__V1__GET_STATS_RESPONSE__INIT;

		r.version = (char *)"hostile";
		r.uptime_ms = 1000;
		return send_msg(hc, &r.base);
	}
	if (strcmp(hc->method, ADMIN_LIST) == 0) {
		Sctk__Admin__V1__ListExecutionsResponse r =
		    SCTK__ADMIN__V1__LIST_EXECUTIONS_RESPONSE__INIT;

		return send_msg(hc, &r.base);
	}
	return fail(hc, SC_GRPC_UNIMPLEMENTED, "hostile server: %s",
	    hc->method);
}

/* Every unary reply is bytes that are no protobuf message at all. */
static enum step
unary_garbage(struct hcall *hc)
{
	sc_buf_reset(&hc->out);
	if (sc_buf_add(&hc->out, "\xff\xff\xff\xff\xff", 5, NULL) == -1)
		abort();
	return STEP_SEND;
}

/* Every unary reply is empty: a message of the right type, no ids. */
static enum step
unary_wrong_session(struct hcall *hc)
{
	snprintf(hc->sid, sizeof(hc->sid), "%s", OTHER_ID);
	return STEP_END; /* the default answer, for the other session */
}

/* Unary calls are never answered. */
static enum step
unary_stall(struct hcall *hc)
{
	(void)hc;
	return STEP_STALL;
}

/*
 * Every unary reply is 5 MiB: an empty message padded with an unknown
 * bytes field (number 1000), which a parser would skip.
 */
static enum step
unary_oversized(struct hcall *hc)
{
	uint8_t head[16];
	size_t n = 0, v = OVERSIZED_BYTES;

	head[n++] = 0xc2; /* field 1000, wire type 2 */
	head[n++] = 0x3e;
	do { /* the length, a varint */
		head[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v != 0);
	sc_buf_reset(&hc->out);
	if (sc_buf_add(&hc->out, head, n, NULL) == -1 ||
	    sc_buf_grow(&hc->out, OVERSIZED_BYTES, NULL) == -1)
		abort();
	memset(hc->out.data + n, 'x', OVERSIZED_BYTES);
	hc->out.len = n + OVERSIZED_BYTES;
	return STEP_SEND;
}

/* ReleaseExecute answers for another operation. */
static enum step
unary_wrong_operation(struct hcall *hc)
{
	if (strcmp(hc->method, SC_METHOD_RELEASE_EXECUTE) == 0) {
		Spark__Connect__ReleaseExecuteResponse r =
		    SPARK__CONNECT__RELEASE_EXECUTE_RESPONSE__INIT;

		r.session_id = hc->sid;
		r.server_side_session_id = (char *)SSID;
		r._operation_id_case =
		    SPARK__CONNECT__RELEASE_EXECUTE_RESPONSE___OPERATION_ID_OPERATION_ID;
		r.operation_id = (char *)OTHER_ID;
		return send_msg(hc, &r.base);
	}
	return STEP_END;
}

/* Interrupt says it stopped another operation than the one named. */
static enum step
interrupt_wrong_operation(struct hcall *hc)
{
	if (strcmp(hc->method, SC_METHOD_INTERRUPT) == 0) {
		Spark__Connect__InterruptResponse r =
		    SPARK__CONNECT__INTERRUPT_RESPONSE__INIT;
		char *ids[1] = { (char *)OTHER_ID };

		r.session_id = hc->sid;
		r.server_side_session_id = (char *)SSID;
		r.n_interrupted_ids = 1;
		r.interrupted_ids = ids;
		return send_msg(hc, &r.base);
	}
	return STEP_END;
}

/* ------------------------------------------------------------- uploads */

/* Read the whole upload; then reply with bytes that are no message. */
static enum step
upload_garbage(struct hcall *hc, const void *msg, size_t len)
{
	(void)len;
	if (msg != NULL)
		return STEP_LATER;
	return unary_garbage(hc);
}

/* Read the whole upload; then say nothing, ever. */
static enum step
upload_stall(struct hcall *hc, const void *msg, size_t len)
{
	(void)hc;
	(void)len;
	return msg != NULL ? STEP_LATER : STEP_STALL;
}

/* Read the whole upload; then a 5 MiB reply. */
static enum step
upload_oversized(struct hcall *hc, const void *msg, size_t len)
{
	(void)len;
	if (msg != NULL)
		return STEP_LATER;
	return unary_oversized(hc);
}

/* Read the whole upload; then a reply naming an artifact not sent. */
static enum step
upload_wrong_name(struct hcall *hc, const void *msg, size_t len)
{
	Spark__Connect__AddArtifactsRequest *r;
	Spark__Connect__AddArtifactsResponse resp =
	    SPARK__CONNECT__ADD_ARTIFACTS_RESPONSE__INIT;
	Spark__Connect__AddArtifactsResponse__ArtifactSummary
	    s = SPARK__CONNECT__ADD_ARTIFACTS_RESPONSE__ARTIFACT_SUMMARY__INIT,
	    *sp = &s;

	if (msg != NULL) {
		if (hc->sid[0] == '\0' &&
		    (r = sc_proto_unpack(
			 &spark__connect__add_artifacts_request__descriptor,
			 msg, len, NULL)) != NULL) {
			snprintf(hc->sid, sizeof(hc->sid), "%s", r->session_id);
			protobuf_c_message_free_unpacked(&r->base, NULL);
		}
		return STEP_LATER;
	}
	resp.session_id = hc->sid;
	resp.server_side_session_id = (char *)SSID;
	s.name = (char *)"files/not-what-you-sent";
	s.is_crc_successful = true;
	resp.n_artifacts = 1;
	resp.artifacts = &sp;
	return send_msg(hc, &resp.base);
}

/* --------------------------------------------------------------- modes */

static const struct mode modes[] = {
	{ "normal", "an honest result: n rows, then ResultComplete", NULL, NULL,
	    NULL },
	{ "truncated-arrow", "the second batch's Arrow data is cut in half",
	    stream_truncated, NULL, NULL },
	{ "garbage-arrow", "the first batch's Arrow data is random bytes",
	    stream_garbage, NULL, NULL },
	{ "schema-change", "the second batch has another schema",
	    stream_schema_change, NULL, NULL },
	{ "row-count", "the first batch claims 150 rows and holds 100",
	    stream_row_count, NULL, NULL },
	{ "oversized", "the first response is 2 MiB (use a 1 MiB limit)",
	    stream_oversized, NULL, NULL },
	{ "wrong-operation", "the second response names another operation",
	    stream_wrong_operation, NULL, NULL },
	{ "wrong-session", "the second response names another session",
	    stream_wrong_session, NULL, NULL },
	{ "no-response-id", "a response without a response id",
	    stream_no_response_id, NULL, NULL },
	{ "endless", "batches forever, never ResultComplete", stream_endless,
	    NULL, NULL },
	{ "stall", "one batch, then the stream stays open and silent",
	    stream_stall, NULL, NULL },
	{ "no-complete",
	    "three batches, the stream ends without ResultComplete, a reattach ends at once",
	    stream_no_complete, NULL, NULL },
	{ "reattach-replay",
	    "a reattach after r-2 starts again at r-1 (rows sent twice)",
	    stream_replay, NULL, NULL },
	{ "lost-operation", "after two batches, reattach says NOT_FOUND",
	    stream_lost, NULL, NULL },
	{ "garbage-status", "one batch, then INTERNAL with junk details",
	    stream_garbage_status, NULL, NULL },
	{ "retry-forever", "UNAVAILABLE with RetryInfo of an hour, always",
	    stream_retry_forever, NULL, NULL },
	{ "unary-garbage", "unary replies that are not protobuf", NULL,
	    unary_garbage, NULL },
	{ "unary-wrong-session", "unary replies for another session", NULL,
	    unary_wrong_session, NULL },
	{ "unary-stall", "unary calls are never answered", NULL, unary_stall,
	    NULL },
	{ "unary-oversized", "unary replies of 5 MiB", NULL, unary_oversized,
	    NULL },
	{ "unary-wrong-operation",
	    "ReleaseExecute answers for another operation", NULL,
	    unary_wrong_operation, NULL },
	{ "interrupt-wrong-operation",
	    "Interrupt says it stopped another operation", NULL,
	    interrupt_wrong_operation, NULL },
	{ "upload-garbage",
	    "AddArtifacts replies with bytes that are no message", NULL, NULL,
	    upload_garbage },
	{ "upload-stall", "AddArtifacts reads everything, never answers", NULL,
	    NULL, upload_stall },
	{ "upload-oversized", "AddArtifacts replies with 5 MiB", NULL, NULL,
	    upload_oversized },
	{ "upload-wrong-name",
	    "AddArtifacts answers for an artifact that was not sent", NULL,
	    NULL, upload_wrong_name },
};

/* -------------------------------------------------------------- driving */

static void pump(struct hcall *hc);

/*
 * Whether nothing uses hc any more: the call closed, no send in flight,
 * the ticker not pumping it.  The one that sees it frees it.  mu held.
 */
static bool
unused_locked(const struct hcall *hc)
{
	return hc->closed && !hc->sending && hc->holds == 0;
}

static void
on_sent(struct sc_rpc_call *call, bool ok, void *arg)
{
	struct hcall *hc = arg;
	bool closed, unused;

	(void)call;
	pthread_mutex_lock(&mu);
	hc->sending = false;
	hc->step++;
	closed = hc->closed;
	unused = unused_locked(hc);
	pthread_mutex_unlock(&mu);
	if (unused)
		hc_free(hc);
	else if (ok && !closed)
		pump(hc);
}

static void
on_close(struct sc_rpc_call *call, bool cancelled, void *arg)
{
	struct hcall *hc = arg;
	struct hcall **pp;
	bool unused;

	(void)cancelled;
	pthread_mutex_lock(&mu);
	hc->closed = true;
	for (pp = &waiting; *pp != NULL; pp = &(*pp)->next_waiting)
		if (*pp == hc) {
			*pp = hc->next_waiting;
			break;
		}
	unused = unused_locked(hc);
	pthread_mutex_unlock(&mu);
	sc_rpc_call_unref(call);
	if (unused)
		hc_free(hc);
}

/* Ask the mode for the next thing to do on a stream, and do it. */
static void
pump(struct hcall *hc)
{
	stream_fn *fn = mode->stream != NULL ? mode->stream : stream_normal;
	enum step s;

	s = fn(hc);
	pthread_mutex_lock(&mu);
	if (hc->closed) {
		pthread_mutex_unlock(&mu);
		return;
	}
	switch (s) {
	case STEP_SEND:
		hc->sending = true;
		pthread_mutex_unlock(&mu);
		if (sc_rpc_call_send(hc->call, hc->out.data, hc->out.len,
			on_sent, hc) == -1) {
			pthread_mutex_lock(&mu);
			hc->sending = false;
			pthread_mutex_unlock(&mu);
		}
		return;
	case STEP_LATER:
		hc->next_waiting = waiting;
		waiting = hc;
		pthread_mutex_unlock(&mu);
		return;
	case STEP_END:
		pthread_mutex_unlock(&mu);
		sc_rpc_call_finish(hc->call, 0, "", NULL, 0);
		return;
	case STEP_FAIL:
		pthread_mutex_unlock(&mu);
		sc_rpc_call_finish(hc->call, hc->code, hc->msg, hc->details,
		    hc->ndetails);
		return;
	case STEP_STALL:
		pthread_mutex_unlock(&mu);
		return;
	}
	pthread_mutex_unlock(&mu);
}

static struct hcall *
hc_new(struct sc_rpc_call *call, const char *method)
{
	struct hcall *hc = sc_xcalloc(1, sizeof(*hc));

	hc->call = call;
	hc->mode = mode;
	hc->method = method;
	hc->req = sc_rpc_call_request(call, &hc->reqlen);
	sc_buf_init(&hc->out, SC_BUF_UNLIMITED);
	sc_rpc_call_ref(call);
	sc_rpc_call_on_close(call, on_close, hc);
	return hc;
}

/* The session id of any request (the field every one of them has). */
static void
request_sid(struct hcall *hc, const ProtobufCMessageDescriptor *d)
{
	ProtobufCMessage *m;
	const ProtobufCFieldDescriptor *f;

	if ((m = sc_proto_unpack(d, hc->req, hc->reqlen, NULL)) == NULL)
		return;
	f = protobuf_c_message_descriptor_get_field_by_name(d, "session_id");
	if (f != NULL && f->type == PROTOBUF_C_TYPE_STRING)
		snprintf(hc->sid, sizeof(hc->sid), "%s",
		    *(char **)((char *)m + f->offset));
	protobuf_c_message_free_unpacked(m, NULL);
}

static void
on_execute(struct sc_rpc_call *call, void *arg)
{
	struct hcall *hc = hc_new(call, arg);
	Spark__Connect__ExecutePlanRequest *r;

	r = sc_proto_unpack(&spark__connect__execute_plan_request__descriptor,
	    hc->req, hc->reqlen, NULL);
	if (r == NULL) {
		sc_rpc_call_finish(call, SC_GRPC_INVALID_ARGUMENT,
		    "malformed request", NULL, 0);
		return;
	}
	snprintf(hc->sid, sizeof(hc->sid), "%s", r->session_id);
	snprintf(hc->opid, sizeof(hc->opid), "%s",
	    r->_operation_id_case != 0 ? r->operation_id : OTHER_ID);
	protobuf_c_message_free_unpacked(&r->base, NULL);
	pump(hc);
}

static void
on_reattach(struct sc_rpc_call *call, void *arg)
{
	struct hcall *hc = hc_new(call, arg);
	Spark__Connect__ReattachExecuteRequest *r;

	r = sc_proto_unpack(
	    &spark__connect__reattach_execute_request__descriptor, hc->req,
	    hc->reqlen, NULL);
	if (r == NULL) {
		sc_rpc_call_finish(call, SC_GRPC_INVALID_ARGUMENT,
		    "malformed request", NULL, 0);
		return;
	}
	snprintf(hc->sid, sizeof(hc->sid), "%s", r->session_id);
	snprintf(hc->opid, sizeof(hc->opid), "%s", r->operation_id);
	hc->reattach = true;
	if (r->_last_response_id_case != 0 &&
	    strncmp(r->last_response_id, "r-", 2) == 0)
		hc->after = strtol(r->last_response_id + 2, NULL, 10) + 1;
	protobuf_c_message_free_unpacked(&r->base, NULL);
	pump(hc);
}

/* The request type of each unary method, for its session id. */
static const ProtobufCMessageDescriptor *
request_type(const char *method)
{
	if (strcmp(method, SC_METHOD_ANALYZE_PLAN) == 0)
		return &spark__connect__analyze_plan_request__descriptor;
	if (strcmp(method, SC_METHOD_CONFIG) == 0)
		return &spark__connect__config_request__descriptor;
	if (strcmp(method, SC_METHOD_ARTIFACT_STATUS) == 0)
		return &spark__connect__artifact_statuses_request__descriptor;
	if (strcmp(method, SC_METHOD_INTERRUPT) == 0)
		return &spark__connect__interrupt_request__descriptor;
	if (strcmp(method, SC_METHOD_RELEASE_EXECUTE) == 0)
		return &spark__connect__release_execute_request__descriptor;
	if (strcmp(method, SC_METHOD_RELEASE_SESSION) == 0)
		return &spark__connect__release_session_request__descriptor;
	if (strncmp(method, "/sctk.", 6) == 0)
		return &sctk__admin__v1__get_stats_request__descriptor;
	return &spark__connect__fetch_error_details_request__descriptor;
}

static void
on_unary(struct sc_rpc_call *call, void *arg)
{
	struct hcall *hc = hc_new(call, arg);
	enum step s = STEP_END;

	request_sid(hc, request_type(hc->method));
	if (mode->unary != NULL)
		s = mode->unary(hc);
	if (s == STEP_END)
		s = unary_default(hc);
	if (s == STEP_SEND)
		sc_rpc_call_reply(call, hc->out.data, hc->out.len);
	else if (s == STEP_FAIL)
		sc_rpc_call_finish(call, hc->code, hc->msg, hc->details,
		    hc->ndetails);
}

static void
on_upload_msg(struct sc_rpc_call *call, const void *msg, size_t len, bool ok,
    void *arg)
{
	struct hcall *hc = arg;
	enum step s;

	if (!ok)
		return;
	s = mode->upload(hc, msg, len);
	if (s == STEP_LATER && msg != NULL)
		sc_rpc_call_read(call, on_upload_msg, hc);
	else if (s == STEP_SEND)
		sc_rpc_call_reply(call, hc->out.data, hc->out.len);
	else if (s == STEP_FAIL)
		sc_rpc_call_finish(call, hc->code, hc->msg, hc->details,
		    hc->ndetails);
	else if (s != STEP_STALL)
		sc_rpc_call_finish(call, 0, "", NULL, 0);
}

static void
on_upload(struct sc_rpc_call *call, void *arg)
{
	struct hcall *hc = hc_new(call, arg);

	if (mode->upload == NULL) {
		sc_rpc_call_finish(call, SC_GRPC_UNIMPLEMENTED,
		    "hostile server: no artifacts", NULL, 0);
		return;
	}
	sc_rpc_call_read(call, on_upload_msg, hc);
}

/* Wake the STEP_LATER calls every PACE_MS until told to stop. */
static void *
ticker(void *arg)
{
	struct timespec ts = { 0, PACE_MS * 1000000L };
	struct hcall *list, *hc;
	bool unused;

	(void)arg;
	while (!stop) {
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&mu);
		list = waiting;
		waiting = NULL;
		for (hc = list; hc != NULL; hc = hc->next_waiting)
			hc->holds++;
		pthread_mutex_unlock(&mu);
		while ((hc = list) != NULL) {
			list = hc->next_waiting;
			pump(hc);
			pthread_mutex_lock(&mu);
			hc->holds--;
			unused = unused_locked(hc);
			pthread_mutex_unlock(&mu);
			if (unused)
				hc_free(hc);
		}
	}
	return NULL;
}

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: hostile-server -m mode [-n rows] [-r ready-file] [-T seconds]\n"
	    "       hostile-server -l\n");
	exit(2);
}

static long
number(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0 || v < 0) {
		fprintf(stderr, "hostile-server: invalid %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static int
write_ready(const char *path, int port)
{
	char tmp[4096];
	FILE *fp;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp) ||
	    (fp = fopen(tmp, "w")) == NULL)
		return -1;
	fprintf(fp, "sc://127.0.0.1:%d\n", port);
	if (fclose(fp) != 0 || rename(tmp, path) != 0)
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct {
		const char *path;
		enum sc_rpc_kind kind;
		sc_rpc_handler_fn *fn;
	} methods[] = {
		{ SC_METHOD_EXECUTE_PLAN, SC_RPC_SERVER_STREAM, on_execute },
		{ SC_METHOD_REATTACH_EXECUTE, SC_RPC_SERVER_STREAM,
		    on_reattach },
		{ SC_METHOD_ANALYZE_PLAN, SC_RPC_UNARY, on_unary },
		{ SC_METHOD_CONFIG, SC_RPC_UNARY, on_unary },
		{ SC_METHOD_ARTIFACT_STATUS, SC_RPC_UNARY, on_unary },
		{ SC_METHOD_INTERRUPT, SC_RPC_UNARY, on_unary },
		{ SC_METHOD_RELEASE_EXECUTE, SC_RPC_UNARY, on_unary },
		{ SC_METHOD_RELEASE_SESSION, SC_RPC_UNARY, on_unary },
		{ SC_METHOD_FETCH_ERROR_DETAILS, SC_RPC_UNARY, on_unary },
		{ SC_METHOD_ADD_ARTIFACTS, SC_RPC_CLIENT_STREAM, on_upload },
		{ ADMIN_STATS, SC_RPC_UNARY, on_unary },
		{ ADMIN_LIST, SC_RPC_UNARY, on_unary },
	};
	struct sc_rpc_server_opts o;
	struct sc_rpc_server *srv;
	struct sc_error err;
	struct sigaction sa;
	const char *ready = NULL, *name = NULL;
	long lifetime = 120;
	pthread_t tick;
	int ch, port;
	size_t i;

	while ((ch = getopt(argc, argv, "lm:n:r:T:")) != -1) {
		switch (ch) {
		case 'l':
			for (i = 0; i < SC_NELEM(modes); i++)
				printf("%-20s %s\n", modes[i].name,
				    modes[i].what);
			return 0;
		case 'm':
			name = optarg;
			break;
		case 'n':
			nrows = number(optarg, "row count");
			break;
		case 'r':
			ready = optarg;
			break;
		case 'T':
			lifetime = number(optarg, "lifetime");
			break;
		default:
			usage();
		}
	}
	if (optind != argc || name == NULL)
		usage();
	for (i = 0; i < SC_NELEM(modes); i++)
		if (strcmp(modes[i].name, name) == 0)
			mode = &modes[i];
	if (mode == NULL) {
		fprintf(stderr,
		    "hostile-server: unknown mode '%s' (-l lists them)\n",
		    name);
		return 2;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);

	memset(&o, 0, sizeof(o));
	o.listen = "127.0.0.1:0";
	o.nthreads = 2;
	sc_error_init(&err);
	if ((srv = sc_rpc_server_new(&o, &err)) == NULL)
		goto fail;
	for (i = 0; i < SC_NELEM(methods); i++)
		if (sc_rpc_server_add_method(srv, methods[i].path,
			methods[i].kind, methods[i].fn, (void *)methods[i].path,
			&err) == -1)
			goto fail;
	if (sc_rpc_server_start(srv, &port, &err) == -1)
		goto fail;
	if (pthread_create(&tick, NULL, ticker, NULL) != 0) {
		fprintf(stderr, "hostile-server: cannot start a thread\n");
		return 10;
	}
	if (ready != NULL && write_ready(ready, port) == -1) {
		fprintf(stderr, "hostile-server: cannot write '%s'\n", ready);
		return 9;
	}
	fprintf(stderr, "hostile-server: mode %s on 127.0.0.1:%d\n", mode->name,
	    port);
	for (i = 0; !stop && (long)i < lifetime * 10; i++)
		usleep(100000);
	stop = 1;
	pthread_join(tick, NULL);
	sc_rpc_server_shutdown(srv);
	sc_rpc_server_free(srv);
	return 0;
fail:
	fprintf(stderr, "hostile-server: %s\n", err.msg);
	return err.status != SC_ST_OK ? (int)err.status : 1;
}
