/* SPDX-License-Identifier: MIT */

/*
 * test-proto.c: the generated protocol code against hand-encoded bytes.
 *
 * Every expected encoding below was written byte by byte from the field
 * numbers of Spark Connect's messages (tag = field << 3 | wire type; wire
 * type 0 varint, 2 length-delimited), so a wrong number or type in proto/
 * shows up as a mismatch.  Then the envelope every request carries
 * (sc_proto_stamp) and the id checks of answers (sc_proto_check_response).  Each case decodes the bytes with protobuf-c and
 * checks the fields, and builds the message by hand, packs it and compares.
 */

#include "core/protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

/* A string literal of wire bytes as (pointer, length), without its NUL. */
#define BYTES(s) (const uint8_t *)(s), (sizeof(s) - 1)

#define S(s) ((char *)(s))

/* Short names for the long oneof-case and enum constants used below. */
#define C_CONFIG_OPERATION_OP_TYPE_GET \
	SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET
#define C_DATA_TYPE_STRUCT_FIELD_METADATA_NOT_SET \
	SPARK__CONNECT__DATA_TYPE__STRUCT_FIELD___METADATA__NOT_SET
#define C_EPREQ_CLIENT_TYPE_NOT_SET \
	SPARK__CONNECT__EXECUTE_PLAN_REQUEST___CLIENT_TYPE__NOT_SET
#define C_EPREQ_COSSID_COSSID \
	SPARK__CONNECT__EXECUTE_PLAN_REQUEST___CLIENT_OBSERVED_SERVER_SIDE_SESSION_ID_CLIENT_OBSERVED_SERVER_SIDE_SESSION_ID
#define C_EPREQ_OPID_OPID \
	SPARK__CONNECT__EXECUTE_PLAN_REQUEST___OPERATION_ID_OPERATION_ID
#define C_EPREQ_REQOPT_REQOPT_REATTACH_OPTIONS \
	SPARK__CONNECT__EXECUTE_PLAN_REQUEST__REQUEST_OPTION__REQUEST_OPTION_REATTACH_OPTIONS
#define C_EPRESP_AB_SOFF_SOFF \
	SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH___START_OFFSET_START_OFFSET
#define C_EPRESP_RT_AB \
	SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH
#define C_EPRESP_RT_NOT_SET \
	SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE__NOT_SET
#define C_EPRESP_RT_RESULT_COMPLETE \
	SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_RESULT_COMPLETE
#define C_EXPRESSION_EXPR_TYPE_LITERAL \
	SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL
#define C_EXPRESSION_LITERAL_LT_LONG \
	SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG
#define C_INTR_INTERRUPT_OPERATION_TAG \
	SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_OPERATION_TAG
#define C_INTR_INTERRUPT_OPID \
	SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_OPERATION_ID
#define C_INTR_IT_IT_OPID \
	SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_TYPE__INTERRUPT_TYPE_OPERATION_ID
#define C_INTR_IT_IT_TAG \
	SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_TYPE__INTERRUPT_TYPE_TAG
#define C_RANGE_NPART_NOT_SET SPARK__CONNECT__RANGE___NUM_PARTITIONS__NOT_SET
#define C_RANGE_NPART_NPART \
	SPARK__CONNECT__RANGE___NUM_PARTITIONS_NUM_PARTITIONS
#define C_REATTACH_LRID_LRID \
	SPARK__CONNECT__REATTACH_EXECUTE_REQUEST___LAST_RESPONSE_ID_LAST_RESPONSE_ID
#define C_RELEASE_RELEASE_RELEASE_ALL \
	SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_RELEASE_ALL
#define C_RELEASE_RELEASE_RELEASE_UNTIL \
	SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_RELEASE_UNTIL

static void
hexdump(const char *label, const uint8_t *p, size_t n)
{
	size_t i;

	printf("#   %s:", label);
	for (i = 0; i < n; i++)
		printf(" %02x", p[i]);
	printf("\n");
}

/* Pack m with protobuf-c and compare with the literal bytes. */
static void
check_pack(const void *m, const uint8_t *want, size_t wantlen, const char *name)
{
	uint8_t *p;
	size_t n;

	p = sc_proto_pack_alloc(m, &n);
	is_mem(p, n, want, wantlen, "%s: packs to the literal bytes", name);
	if (n != wantlen || memcmp(p, want, n) != 0) {
		hexdump("got ", p, n);
		hexdump("want", want, wantlen);
	}
	free(p);
}

/* Unpack, failing the test (and returning NULL) if that fails. */
static void *
unpack(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n,
    const char *name)
{
	struct sc_error err;
	void *m;

	m = sc_proto_unpack(d, p, n, &err);
	ok(m != NULL, "%s: unpacks", name);
	if (m == NULL)
		printf("#   %s\n", err.msg);
	return m;
}

/* Repack what was unpacked: protobuf-c must reproduce the bytes. */
static void
check_repack(void *m, const uint8_t *want, size_t wantlen, const char *name)
{
	check_pack(m, want, wantlen, name);
	protobuf_c_message_free_unpacked(m, NULL);
}

/* ------------------------------------------------ ExecutePlanRequest */

static const char epr_bytes[] = "\x0a\x04"
				"sess" /* 1 session_id, LEN 4 */
				"\x12\x03" /* 2 user_context, LEN 3 */
				"\x0a\x01"
				"u" /*   1 user_id */
				"\x1a\x0e" /* 3 plan, LEN 14 */
				"\x0a\x0c" /*   1 root (Relation), LEN 12 */
				"\x52\x0a" /*     10 sql (SQL), tag 10<<3|2 */
				"\x0a\x08"
				"SELECT 1" /*       1 query */
				"\x2a\x04" /* 5 request_options[0], LEN 4 */
				"\x0a\x02" /*   1 reattach_options, LEN 2 */
				"\x08\x01" /*     1 reattachable = true */
				"\x32\x02"
				"op" /* 6 operation_id (optional) */
				"\x3a\x02"
				"t1" /* 7 tags[0] */
				"\x3a\x02"
				"t2" /* 7 tags[1] */
				"\x42\x03"
				"srv"; /* 8 client_observed_server_side_... */

static void
test_execute_plan_request(void)
{
	Spark__Connect__ExecutePlanRequest
	    req = SPARK__CONNECT__EXECUTE_PLAN_REQUEST__INIT,
	    *r;
	Spark__Connect__UserContext uc = SPARK__CONNECT__USER_CONTEXT__INIT;
	Spark__Connect__Plan plan = SPARK__CONNECT__PLAN__INIT;
	Spark__Connect__Relation rel = SPARK__CONNECT__RELATION__INIT;
	Spark__Connect__SQL sql = SPARK__CONNECT__SQL__INIT;
	Spark__Connect__ExecutePlanRequest__RequestOption opt =
	    SPARK__CONNECT__EXECUTE_PLAN_REQUEST__REQUEST_OPTION__INIT;
	Spark__Connect__ExecutePlanRequest__RequestOption *opts[1];
	Spark__Connect__ReattachOptions ro =
	    SPARK__CONNECT__REATTACH_OPTIONS__INIT;
	char *tags[2];

	r = unpack(&spark__connect__execute_plan_request__descriptor,
	    BYTES(epr_bytes), "ExecutePlanRequest");
	if (r != NULL) {
		is_str(r->session_id, "sess", "session_id is field 1");
		ok(r->user_context != NULL &&
			strcmp(r->user_context->user_id, "u") == 0,
		    "user_context.user_id is 2.1");
		ok(r->plan != NULL &&
			r->plan->op_type_case ==
			    SPARK__CONNECT__PLAN__OP_TYPE_ROOT &&
			r->plan->root->rel_type_case ==
			    SPARK__CONNECT__RELATION__REL_TYPE_SQL,
		    "plan.root.sql is 3.1.10");
		if (r->plan != NULL && r->plan->root != NULL &&
		    r->plan->root->rel_type_case ==
			SPARK__CONNECT__RELATION__REL_TYPE_SQL)
			is_str(r->plan->root->sql->query, "SELECT 1",
			    "sql.query is field 1");
		is_int(r->n_request_options, 1, "one request option");
		ok(r->n_request_options == 1 &&
			r->request_options[0]->request_option_case ==
			    C_EPREQ_REQOPT_REQOPT_REATTACH_OPTIONS &&
			r->request_options[0]->reattach_options->reattachable,
		    "request_options[0].reattach_options.reattachable");
		is_int(r->_operation_id_case, C_EPREQ_OPID_OPID,
		    "operation_id present");
		is_str(r->operation_id, "op", "operation_id is field 6");
		ok(r->n_tags == 2 && strcmp(r->tags[0], "t1") == 0 &&
			strcmp(r->tags[1], "t2") == 0,
		    "tags are field 7");
		is_int(r->_client_type_case, C_EPREQ_CLIENT_TYPE_NOT_SET,
		    "client_type absent");
		is_str(r->client_observed_server_side_session_id, "srv",
		    "client_observed_server_side_session_id is field 8");
		check_repack(r, BYTES(epr_bytes), "ExecutePlanRequest repack");
	}

	req.session_id = S("sess");
	uc.user_id = S("u");
	req.user_context = &uc;
	sql.query = S("SELECT 1");
	rel.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SQL;
	rel.sql = &sql;
	plan.op_type_case = SPARK__CONNECT__PLAN__OP_TYPE_ROOT;
	plan.root = &rel;
	req.plan = &plan;
	ro.reattachable = 1;
	opt.request_option_case = C_EPREQ_REQOPT_REQOPT_REATTACH_OPTIONS;
	opt.reattach_options = &ro;
	opts[0] = &opt;
	req.n_request_options = 1;
	req.request_options = opts;
	req._operation_id_case = C_EPREQ_OPID_OPID;
	req.operation_id = S("op");
	tags[0] = S("t1");
	tags[1] = S("t2");
	req.n_tags = 2;
	req.tags = tags;
	req._client_observed_server_side_session_id_case =
	    C_EPREQ_COSSID_COSSID;
	req.client_observed_server_side_session_id = S("srv");
	check_pack(&req, BYTES(epr_bytes), "ExecutePlanRequest");
}

/* ----------------------------------------------- ExecutePlanResponse */

static const char resp_batch_bytes[] =
    "\x0a\x04"
    "sess" /* 1 session_id */
    "\x12\x0b" /* 2 arrow_batch, LEN 11 */
    "\x08\x03" /*   1 row_count = 3 */
    "\x12\x04"
    "\xde\xad\xbe\xef" /*   2 data, 4 bytes */
    "\x18\xac\x02" /*   3 start_offset = 300 (optional) */
    "\x62\x02"
    "op" /* 12 operation_id, tag 12<<3|2 */
    "\x6a\x02"
    "r1" /* 13 response_id */
    "\x7a\x03"
    "srv"; /* 15 server_side_session_id */

static const char resp_schema_bytes[] =
    "\x0a\x04"
    "sess" /* 1 session_id */
    "\x3a\x02" /* 7 schema (DataType), LEN 2 */
    "\x3a\x00" /*   7 long, empty message */
    "\x62\x02"
    "op" /* 12 operation_id */
    "\x6a\x02"
    "r0" /* 13 response_id */
    "\x7a\x03"
    "srv"; /* 15 server_side_session_id */

static const char resp_done_bytes[] = "\x0a\x04"
				      "sess" /* 1 session_id */
				      "\x62\x02"
				      "op" /* 12 operation_id */
				      "\x6a\x02"
				      "r2" /* 13 response_id */
				      "\x72\x00" /* 14 result_complete, empty */
				      "\x7a\x03"
				      "srv"; /* 15 server_side_session_id */

static void
test_execute_plan_response(void)
{
	Spark__Connect__ExecutePlanResponse
	    resp = SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT,
	    *r;
	Spark__Connect__ExecutePlanResponse__ArrowBatch ab =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH__INIT;
	Spark__Connect__ExecutePlanResponse__ResultComplete rc =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESULT_COMPLETE__INIT;
	Spark__Connect__DataType dt = SPARK__CONNECT__DATA_TYPE__INIT;
	Spark__Connect__DataType__Long lt =
	    SPARK__CONNECT__DATA_TYPE__LONG__INIT;
	uint8_t data[4] = { 0xde, 0xad, 0xbe, 0xef };

	r = unpack(&spark__connect__execute_plan_response__descriptor,
	    BYTES(resp_batch_bytes), "ExecutePlanResponse arrow_batch");
	if (r != NULL) {
		is_str(r->session_id, "sess", "session_id is field 1");
		is_str(r->operation_id, "op", "operation_id is field 12");
		is_str(r->response_id, "r1", "response_id is field 13");
		is_str(r->server_side_session_id, "srv",
		    "server_side_session_id is field 15");
		is_int(r->response_type_case, C_EPRESP_RT_AB,
		    "arrow_batch is field 2");
		if (r->response_type_case == C_EPRESP_RT_AB) {
			is_int(r->arrow_batch->row_count, 3, "row_count");
			is_mem(r->arrow_batch->data.data,
			    r->arrow_batch->data.len, data, sizeof(data),
			    "data");
			is_int(r->arrow_batch->_start_offset_case,
			    C_EPRESP_AB_SOFF_SOFF, "start_offset present");
			is_int(r->arrow_batch->start_offset, 300,
			    "start_offset");
		}
		ok(r->schema == NULL && r->metrics == NULL,
		    "no schema, no metrics");
		check_repack(r, BYTES(resp_batch_bytes), "arrow_batch repack");
	}

	resp.session_id = S("sess");
	resp.operation_id = S("op");
	resp.response_id = S("r1");
	resp.server_side_session_id = S("srv");
	ab.row_count = 3;
	ab.data.data = data;
	ab.data.len = sizeof(data);
	ab._start_offset_case = C_EPRESP_AB_SOFF_SOFF;
	ab.start_offset = 300;
	resp.response_type_case = C_EPRESP_RT_AB;
	resp.arrow_batch = &ab;
	check_pack(&resp, BYTES(resp_batch_bytes),
	    "ExecutePlanResponse arrow_batch");

	r = unpack(&spark__connect__execute_plan_response__descriptor,
	    BYTES(resp_schema_bytes), "ExecutePlanResponse schema");
	if (r != NULL) {
		is_int(r->response_type_case, C_EPRESP_RT_NOT_SET,
		    "schema-only response has no response_type");
		ok(r->schema != NULL &&
			r->schema->kind_case ==
			    SPARK__CONNECT__DATA_TYPE__KIND_LONG,
		    "schema is field 7, a long");
		is_str(r->response_id, "r0", "response_id");
		check_repack(r, BYTES(resp_schema_bytes), "schema repack");
	}
	resp.response_id = S("r0");
	resp.response_type_case = C_EPRESP_RT_NOT_SET;
	dt.kind_case = SPARK__CONNECT__DATA_TYPE__KIND_LONG;
	dt.long_ = &lt;
	resp.schema = &dt;
	check_pack(&resp, BYTES(resp_schema_bytes),
	    "ExecutePlanResponse schema");

	r = unpack(&spark__connect__execute_plan_response__descriptor,
	    BYTES(resp_done_bytes), "ExecutePlanResponse result_complete");
	if (r != NULL) {
		is_int(r->response_type_case, C_EPRESP_RT_RESULT_COMPLETE,
		    "result_complete is field 14");
		ok(r->result_complete != NULL, "result_complete set");
		check_repack(r, BYTES(resp_done_bytes),
		    "result_complete repack");
	}
	resp.schema = NULL;
	resp.response_id = S("r2");
	resp.response_type_case = C_EPRESP_RT_RESULT_COMPLETE;
	resp.result_complete = &rc;
	check_pack(&resp, BYTES(resp_done_bytes),
	    "ExecutePlanResponse result_complete");
}

/* ------------------------------------------------------------- Range */

static const char range_start0_bytes[] =
    "\x08\x00" /* 1 start = 0, present (optional) */
    "\x10\x0a" /* 2 end = 10 */
    "\x18\x01"; /* 3 step = 1 */

static const char range_nostart_bytes[] = "\x10\x0a" /* 2 end = 10 */
					  "\x18\x01"; /* 3 step = 1 */

static const char range_neg_bytes[] =
    "\x08\xfb\xff\xff\xff\xff\xff\xff\xff\xff\x01" /* 1 start = -5 */
    "\x10\x0a" /* 2 end = 10 */
    "\x18\x02" /* 3 step = 2 */
    "\x20\x04"; /* 4 num_partitions = 4 (optional) */

/* Relation{range: Range{end 3}} plus unknown field 99 (varint 1). */
static const char rel_range_unknown_bytes[] =
    "\x7a\x02" /* 15 range, tag 15<<3|2, LEN 2 */
    "\x10\x03" /*   2 end = 3 */
    "\x98\x06\x01"; /* 99 unknown, tag 99<<3|0 = 792 */

static void
test_range(void)
{
	Spark__Connect__Range rg = SPARK__CONNECT__RANGE__INIT, *r;
	Spark__Connect__Relation *rel;

	r = unpack(&spark__connect__range__descriptor,
	    BYTES(range_start0_bytes), "Range start=0");
	if (r != NULL) {
		is_int(r->_start_case, SPARK__CONNECT__RANGE___START_START,
		    "start = 0 is present");
		is_int(r->start, 0, "start");
		is_int(r->end, 10, "end");
		is_int(r->step, 1, "step");
		is_int(r->_num_partitions_case, C_RANGE_NPART_NOT_SET,
		    "num_partitions absent");
		check_repack(r, BYTES(range_start0_bytes), "Range repack");
	}
	rg._start_case = SPARK__CONNECT__RANGE___START_START;
	rg.start = 0;
	rg.end = 10;
	rg.step = 1;
	check_pack(&rg, BYTES(range_start0_bytes), "Range start=0");

	r = unpack(&spark__connect__range__descriptor,
	    BYTES(range_nostart_bytes), "Range without start");
	if (r != NULL) {
		is_int(r->_start_case, SPARK__CONNECT__RANGE___START__NOT_SET,
		    "start absent");
		is_int(r->end, 10, "end");
		check_repack(r, BYTES(range_nostart_bytes),
		    "Range without start repack");
	}
	rg._start_case = SPARK__CONNECT__RANGE___START__NOT_SET;
	check_pack(&rg, BYTES(range_nostart_bytes), "Range without start");

	r = unpack(&spark__connect__range__descriptor, BYTES(range_neg_bytes),
	    "Range start=-5");
	if (r != NULL) {
		is_int(r->start, -5, "negative start, ten-byte varint");
		is_int(r->_num_partitions_case, C_RANGE_NPART_NPART,
		    "num_partitions present");
		is_int(r->num_partitions, 4, "num_partitions");
		protobuf_c_message_free_unpacked(&r->base, NULL);
	}
	rg._start_case = SPARK__CONNECT__RANGE___START_START;
	rg.start = -5;
	rg.step = 2;
	rg._num_partitions_case = C_RANGE_NPART_NPART;
	rg.num_partitions = 4;
	check_pack(&rg, BYTES(range_neg_bytes), "Range start=-5");

	rel = unpack(&spark__connect__relation__descriptor,
	    BYTES(rel_range_unknown_bytes), "Relation with unknown field");
	if (rel != NULL) {
		ok(rel->rel_type_case ==
			    SPARK__CONNECT__RELATION__REL_TYPE_RANGE &&
			rel->range->end == 3,
		    "range is Relation field 15");
		is_int(rel->base.n_unknown_fields, 1, "unknown field 99 kept");
		protobuf_c_message_free_unpacked(&rel->base, NULL);
	}
}

/* ------------------------------------------ Reattach, Release, Interrupt */

static const char reattach_bytes[] = "\x0a\x04"
				     "sess" /* 1 session_id */
				     "\x1a\x02"
				     "op" /* 3 operation_id */
				     "\x2a\x02"
				     "r7"; /* 5 last_response_id (optional) */

static const char reattach_empty_bytes[] =
    "\x0a\x04"
    "sess" /* 1 session_id */
    "\x1a\x02"
    "op" /* 3 operation_id */
    "\x2a\x00"; /* 5 last_response_id "", present */

static const char release_until_bytes[] =
    "\x0a\x04"
    "sess" /* 1 session_id */
    "\x1a\x02"
    "op" /* 3 operation_id */
    "\x32\x04" /* 6 release_until, LEN 4 */
    "\x0a\x02"
    "r9"; /*   1 response_id */

static const char release_all_bytes[] = "\x0a\x04"
					"sess" /* 1 session_id */
					"\x1a\x02"
					"op" /* 3 operation_id */
					"\x2a\x00"; /* 5 release_all, empty */

static const char interrupt_tag_bytes[] =
    "\x0a\x04"
    "sess" /* 1 session_id */
    "\x20\x02" /* 4 interrupt_type = TAG (2) */
    "\x2a\x03"
    "job"; /* 5 operation_tag */

static const char interrupt_id_bytes[] =
    "\x0a\x04"
    "sess" /* 1 session_id */
    "\x20\x03" /* 4 interrupt_type = OPERATION_ID */
    "\x32\x02"
    "op"; /* 6 operation_id */

static void
test_reattach_release_interrupt(void)
{
	Spark__Connect__ReattachExecuteRequest
	    ra = SPARK__CONNECT__REATTACH_EXECUTE_REQUEST__INIT,
	    *r;
	Spark__Connect__ReleaseExecuteRequest
	    rl = SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__INIT,
	    *l;
	Spark__Connect__ReleaseExecuteRequest__ReleaseUntil ru =
	    SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_UNTIL__INIT;
	Spark__Connect__ReleaseExecuteRequest__ReleaseAll rall =
	    SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_ALL__INIT;
	Spark__Connect__InterruptRequest
	    ir = SPARK__CONNECT__INTERRUPT_REQUEST__INIT,
	    *i;

	r = unpack(&spark__connect__reattach_execute_request__descriptor,
	    BYTES(reattach_bytes), "ReattachExecuteRequest");
	if (r != NULL) {
		is_str(r->operation_id, "op", "operation_id is field 3");
		is_int(r->_last_response_id_case, C_REATTACH_LRID_LRID,
		    "last_response_id present");
		is_str(r->last_response_id, "r7",
		    "last_response_id is field 5");
		check_repack(r, BYTES(reattach_bytes), "Reattach repack");
	}
	ra.session_id = S("sess");
	ra.operation_id = S("op");
	ra._last_response_id_case = C_REATTACH_LRID_LRID;
	ra.last_response_id = S("r7");
	check_pack(&ra, BYTES(reattach_bytes), "ReattachExecuteRequest");
	ra.last_response_id = S("");
	check_pack(&ra, BYTES(reattach_empty_bytes),
	    "ReattachExecuteRequest with present empty last_response_id");
	r = unpack(&spark__connect__reattach_execute_request__descriptor,
	    BYTES(reattach_empty_bytes), "Reattach with empty id");
	if (r != NULL) {
		ok(r->_last_response_id_case == C_REATTACH_LRID_LRID &&
			strcmp(r->last_response_id, "") == 0,
		    "present empty last_response_id survives decoding");
		protobuf_c_message_free_unpacked(&r->base, NULL);
	}

	l = unpack(&spark__connect__release_execute_request__descriptor,
	    BYTES(release_until_bytes), "ReleaseExecuteRequest until");
	if (l != NULL) {
		ok(l->release_case == C_RELEASE_RELEASE_RELEASE_UNTIL &&
			strcmp(l->release_until->response_id, "r9") == 0,
		    "release_until.response_id is 6.1");
		check_repack(l, BYTES(release_until_bytes),
		    "ReleaseExecute repack");
	}
	rl.session_id = S("sess");
	rl.operation_id = S("op");
	ru.response_id = S("r9");
	rl.release_case = C_RELEASE_RELEASE_RELEASE_UNTIL;
	rl.release_until = &ru;
	check_pack(&rl, BYTES(release_until_bytes),
	    "ReleaseExecuteRequest release_until");
	rl.release_case = C_RELEASE_RELEASE_RELEASE_ALL;
	rl.release_all = &rall;
	check_pack(&rl, BYTES(release_all_bytes),
	    "ReleaseExecuteRequest release_all");

	i = unpack(&spark__connect__interrupt_request__descriptor,
	    BYTES(interrupt_tag_bytes), "InterruptRequest tag");
	if (i != NULL) {
		is_int(i->interrupt_type, C_INTR_IT_IT_TAG,
		    "interrupt_type is field 4");
		ok(i->interrupt_case == C_INTR_INTERRUPT_OPERATION_TAG &&
			strcmp(i->operation_tag, "job") == 0,
		    "operation_tag is field 5");
		check_repack(i, BYTES(interrupt_tag_bytes),
		    "Interrupt tag repack");
	}
	i = unpack(&spark__connect__interrupt_request__descriptor,
	    BYTES(interrupt_id_bytes), "InterruptRequest id");
	if (i != NULL) {
		ok(i->interrupt_case == C_INTR_INTERRUPT_OPID &&
			strcmp(i->operation_id, "op") == 0,
		    "operation_id is field 6");
		protobuf_c_message_free_unpacked(&i->base, NULL);
	}
	ir.session_id = S("sess");
	ir.interrupt_type = C_INTR_IT_IT_TAG;
	ir.interrupt_case = C_INTR_INTERRUPT_OPERATION_TAG;
	ir.operation_tag = S("job");
	check_pack(&ir, BYTES(interrupt_tag_bytes), "InterruptRequest tag");
	ir.interrupt_type = C_INTR_IT_IT_OPID;
	ir.interrupt_case = C_INTR_INTERRUPT_OPID;
	ir.operation_id = S("op");
	check_pack(&ir, BYTES(interrupt_id_bytes), "InterruptRequest id");
}

/* ------------------------------------------------ google.rpc.Status */

static const char errinfo_bytes[] = "\x0a\x01"
				    "R" /* 1 reason */
				    "\x12\x10"
				    "org.apache.spark" /* 2 domain, 16 bytes */
				    "\x1a\x0f" /* 3 metadata entry, LEN 15 */
				    "\x0a\x0a"
				    "errorClass" /*   1 key, 10 bytes */
				    "\x12\x01"
				    "X"; /*   2 value */

static const char status_bytes[] = "\x08\x0d" /* 1 code = 13 (INTERNAL) */
				   "\x12\x04"
				   "boom" /* 2 message */
				   "\x1a\x52" /* 3 details[0] (Any), LEN 82 */
				   "\x0a\x28" /*   1 type_url, 40 bytes */
				   "type.googleapis.com/google.rpc.ErrorInfo"
				   "\x12\x26" /*   2 value, 38 bytes: */
				   "\x0a\x01"
				   "R" /*     ErrorInfo 1 reason */
				   "\x12\x10"
				   "org.apache.spark" /*   2 domain */
				   "\x1a\x0f" /*     3 metadata entry */
				   "\x0a\x0a"
				   "errorClass" /*       1 key */
				   "\x12\x01"
				   "X"; /*       2 value */

static const char retryinfo_bytes[] =
    "\x0a\x08" /* 1 retry_delay (Duration), LEN 8 */
    "\x08\x02" /*   1 seconds = 2 */
    "\x10\x80\xca\xb5\xee\x01"; /*   2 nanos = 500000000 */

static void
test_status(void)
{
	Google__Rpc__Status st = GOOGLE__RPC__STATUS__INIT, *s;
	Google__Rpc__ErrorInfo ei = GOOGLE__RPC__ERROR_INFO__INIT, *e;
	Google__Rpc__ErrorInfo__MetadataEntry
	    me = GOOGLE__RPC__ERROR_INFO__METADATA_ENTRY__INIT,
	    *mes[1];
	Google__Rpc__RetryInfo ri = GOOGLE__RPC__RETRY_INFO__INIT, *rr;
	Google__Protobuf__Duration du = GOOGLE__PROTOBUF__DURATION__INIT;
	Google__Protobuf__Any any, *anys[1];
	struct sc_error err;

	s = unpack(&google__rpc__status__descriptor, BYTES(status_bytes),
	    "google.rpc.Status");
	if (s != NULL) {
		is_int(s->code, 13, "code is field 1");
		is_str(s->message, "boom", "message is field 2");
		is_int(s->n_details, 1, "one detail");
		if (s->n_details == 1) {
			is_str(s->details[0]->type_url,
			    "type.googleapis.com/google.rpc.ErrorInfo",
			    "Any.type_url");
			ok(sc_proto_any_is(s->details[0],
			       &google__rpc__error_info__descriptor),
			    "sc_proto_any_is ErrorInfo");
			ok(!sc_proto_any_is(s->details[0],
			       &google__rpc__retry_info__descriptor),
			    "not a RetryInfo");
			rr = sc_proto_any_unpack(s->details[0],
			    &google__rpc__retry_info__descriptor, &err);
			ok(rr == NULL && err.status == SC_ST_PROTOCOL,
			    "Any of the wrong type is refused");
			e = sc_proto_any_unpack(s->details[0],
			    &google__rpc__error_info__descriptor, &err);
			ok(e != NULL, "ErrorInfo unpacks from Any");
			if (e != NULL) {
				is_str(e->reason, "R", "reason is field 1");
				is_str(e->domain, "org.apache.spark",
				    "domain is field 2");
				ok(e->n_metadata == 1 &&
					strcmp(e->metadata[0]->key,
					    "errorClass") == 0 &&
					strcmp(e->metadata[0]->value, "X") == 0,
				    "metadata map is field 3");
				protobuf_c_message_free_unpacked(&e->base,
				    NULL);
			}
		}
		check_repack(s, BYTES(status_bytes), "Status repack");
	}

	ei.reason = S("R");
	ei.domain = S("org.apache.spark");
	me.key = S("errorClass");
	me.value = S("X");
	mes[0] = &me;
	ei.n_metadata = 1;
	ei.metadata = mes;
	check_pack(&ei, BYTES(errinfo_bytes), "ErrorInfo");
	sc_proto_any_pack(&any, &ei.base);
	is_str(any.type_url, "type.googleapis.com/google.rpc.ErrorInfo",
	    "sc_proto_any_pack type URL");
	anys[0] = &any;
	st.code = 13;
	st.message = S("boom");
	st.n_details = 1;
	st.details = anys;
	check_pack(&st, BYTES(status_bytes), "google.rpc.Status");
	sc_proto_any_release(&any);
	ok(any.value.data == NULL && any.value.len == 0,
	    "sc_proto_any_release empties the Any");
	sc_proto_any_release(&any); /* harmless on an initialised Any */

	rr = unpack(&google__rpc__retry_info__descriptor,
	    BYTES(retryinfo_bytes), "RetryInfo");
	if (rr != NULL) {
		ok(rr->retry_delay != NULL && rr->retry_delay->seconds == 2 &&
			rr->retry_delay->nanos == 500000000,
		    "retry_delay is Duration{2 s, 500000000 ns}");
		protobuf_c_message_free_unpacked(&rr->base, NULL);
	}
	du.seconds = 2;
	du.nanos = 500000000;
	ri.retry_delay = &du;
	check_pack(&ri, BYTES(retryinfo_bytes), "RetryInfo");
}

/* ------------------------------------------- DataType, Literal, Config */

static const char dt_long_bytes[] = "\x3a\x00"; /* 7 long, empty message */

static const char dt_struct_bytes[] =
    "\xaa\x01\x0c" /* 21 struct, 2-byte tag; LEN 12 */
    "\x0a\x0a" /*   1 fields[0], LEN 10 */
    "\x0a\x02"
    "id" /*     1 name */
    "\x12\x02" /*     2 data_type, LEN 2 */
    "\x3a\x00" /*       7 long */
    "\x18\x01"; /*     3 nullable = true */

static const char lit_long_bytes[] = "\x0a\x02" /* 1 literal, LEN 2 */
				     "\x38\x2a"; /*   7 long = 42, tag 7<<3|0 */

static const char lit_neg_bytes[] =
    "\x0a\x0b" /* 1 literal, LEN 11 */
    "\x38\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"; /* 7 long = -1 */

static const char config_get_bytes[] =
    "\x0a\x04"
    "sess" /* 1 session_id */
    "\x1a\x1a" /* 3 operation, LEN 26 */
    "\x12\x18" /*   2 get, LEN 24 */
    "\x0a\x16"
    "spark.sql.ansi.enabled"; /* 1 keys[0], 22 bytes */

static void
test_types_literals_config(void)
{
	Spark__Connect__DataType dt = SPARK__CONNECT__DATA_TYPE__INIT,
				 inner = SPARK__CONNECT__DATA_TYPE__INIT, *d;
	Spark__Connect__DataType__Long lt =
	    SPARK__CONNECT__DATA_TYPE__LONG__INIT;
	Spark__Connect__DataType__Struct st =
	    SPARK__CONNECT__DATA_TYPE__STRUCT__INIT;
	Spark__Connect__DataType__StructField
	    sf = SPARK__CONNECT__DATA_TYPE__STRUCT_FIELD__INIT,
	    *sfs[1];
	Spark__Connect__Expression ex = SPARK__CONNECT__EXPRESSION__INIT, *x;
	Spark__Connect__Expression__Literal lit =
	    SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
	Spark__Connect__ConfigRequest cr = SPARK__CONNECT__CONFIG_REQUEST__INIT,
				      *c;
	Spark__Connect__ConfigRequest__Operation op =
	    SPARK__CONNECT__CONFIG_REQUEST__OPERATION__INIT;
	Spark__Connect__ConfigRequest__Get get =
	    SPARK__CONNECT__CONFIG_REQUEST__GET__INIT;
	char *keys[1];

	d = unpack(&spark__connect__data_type__descriptor, BYTES(dt_long_bytes),
	    "DataType long");
	if (d != NULL) {
		ok(d->kind_case == SPARK__CONNECT__DATA_TYPE__KIND_LONG &&
			d->long_ != NULL,
		    "long is field 7");
		check_repack(d, BYTES(dt_long_bytes), "DataType long repack");
	}
	dt.kind_case = SPARK__CONNECT__DATA_TYPE__KIND_LONG;
	dt.long_ = &lt;
	check_pack(&dt, BYTES(dt_long_bytes), "DataType long");

	d = unpack(&spark__connect__data_type__descriptor,
	    BYTES(dt_struct_bytes), "DataType struct");
	if (d != NULL) {
		ok(d->kind_case == SPARK__CONNECT__DATA_TYPE__KIND_STRUCT &&
			d->struct_->n_fields == 1,
		    "struct is field 21");
		if (d->kind_case == SPARK__CONNECT__DATA_TYPE__KIND_STRUCT &&
		    d->struct_->n_fields == 1) {
			sfs[0] = d->struct_->fields[0];
			is_str(sfs[0]->name, "id", "StructField.name");
			ok(sfs[0]->data_type != NULL &&
				sfs[0]->data_type->kind_case ==
				    SPARK__CONNECT__DATA_TYPE__KIND_LONG,
			    "StructField.data_type is field 2");
			ok(sfs[0]->nullable, "StructField.nullable");
			is_int(sfs[0]->_metadata_case,
			    C_DATA_TYPE_STRUCT_FIELD_METADATA_NOT_SET,
			    "StructField.metadata absent");
		}
		check_repack(d, BYTES(dt_struct_bytes),
		    "DataType struct repack");
	}
	inner.kind_case = SPARK__CONNECT__DATA_TYPE__KIND_LONG;
	inner.long_ = &lt;
	sf.name = S("id");
	sf.data_type = &inner;
	sf.nullable = 1;
	sfs[0] = &sf;
	st.n_fields = 1;
	st.fields = sfs;
	dt.kind_case = SPARK__CONNECT__DATA_TYPE__KIND_STRUCT;
	dt.struct_ = &st;
	check_pack(&dt, BYTES(dt_struct_bytes), "DataType struct");

	x = unpack(&spark__connect__expression__descriptor,
	    BYTES(lit_long_bytes), "Expression literal long");
	if (x != NULL) {
		ok(x->expr_type_case == C_EXPRESSION_EXPR_TYPE_LITERAL &&
			x->literal->literal_type_case ==
			    C_EXPRESSION_LITERAL_LT_LONG &&
			x->literal->long_ == 42,
		    "literal 1, long 7 = 42");
		check_repack(x, BYTES(lit_long_bytes), "literal repack");
	}
	lit.literal_type_case = C_EXPRESSION_LITERAL_LT_LONG;
	lit.long_ = 42;
	ex.expr_type_case = C_EXPRESSION_EXPR_TYPE_LITERAL;
	ex.literal = &lit;
	check_pack(&ex, BYTES(lit_long_bytes), "Expression literal long");
	lit.long_ = -1;
	check_pack(&ex, BYTES(lit_neg_bytes), "Expression literal long -1");
	x = unpack(&spark__connect__expression__descriptor,
	    BYTES(lit_neg_bytes), "Expression literal -1");
	if (x != NULL) {
		is_int(x->literal->long_, -1, "literal long -1");
		protobuf_c_message_free_unpacked(&x->base, NULL);
	}

	c = unpack(&spark__connect__config_request__descriptor,
	    BYTES(config_get_bytes), "ConfigRequest get");
	if (c != NULL) {
		ok(c->operation != NULL &&
			c->operation->op_type_case ==
			    C_CONFIG_OPERATION_OP_TYPE_GET &&
			c->operation->get->n_keys == 1 &&
			strcmp(c->operation->get->keys[0],
			    "spark.sql.ansi.enabled") == 0,
		    "operation 3, get 2, keys 1");
		check_repack(c, BYTES(config_get_bytes), "Config repack");
	}
	cr.session_id = S("sess");
	keys[0] = S("spark.sql.ansi.enabled");
	get.n_keys = 1;
	get.keys = keys;
	op.op_type_case = C_CONFIG_OPERATION_OP_TYPE_GET;
	op.get = &get;
	cr.operation = &op;
	check_pack(&cr, BYTES(config_get_bytes), "ConfigRequest get");
}

/* ------------------------------------------------- malformed input */

/* Append the varint v to p at *n. */
static void
put_varint(uint8_t *p, size_t *n, uint64_t v)
{
	while (v >= 0x80) {
		p[(*n)++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[(*n)++] = (uint8_t)v;
}

/*
 * Expression{alias: Alias{expr: Expression{alias: ...}}} with levels
 * aliases around Expression{literal: {long: 1}}, built by hand from the
 * inside out into out.  Read as an Expression, the literal is at nesting
 * depth 2 * levels + 1; the bytes from *alias_off on are the outermost
 * Alias, in which it is at depth 2 * levels.
 */
static size_t
nested_alias(uint8_t *out, size_t outsz, int levels, size_t *alias_off)
{
	uint8_t *b;
	size_t n = 0, m = 0, i;
	int l;

	if ((b = malloc(outsz)) == NULL)
		abort();
	/* Expression{1 literal {7 long = 1}} */
	out[n++] = 0x0a;
	out[n++] = 0x02;
	out[n++] = 0x38;
	out[n++] = 0x01;
	for (l = 0; l < levels; l++) {
		m = 0;
		b[m++] = 0x32; /* Expression 6 alias */
		put_varint(b, &m, n + 1 + (n < 0x80 ? 1 : 2));
		*alias_off = m;
		b[m++] = 0x0a; /* Alias 1 expr */
		put_varint(b, &m, n);
		for (i = 0; i < n; i++)
			b[m + i] = out[i];
		n += m;
		for (i = 0; i < n; i++)
			out[i] = b[i];
	}
	free(b);
	return n;
}

static void
test_malformed(void)
{
	static const char truncated_varint[] =
	    "\x10\x80"; /* Range 2 end, varint cut short */
	static const char long_varint[] =
	    "\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"; /* 11 bytes */
	static const char len_past_end[] =
	    "\x0a\x05"
	    "ab"; /* 1 session_id, LEN 5, 2 bytes */
	static const char inner_past_end[] =
	    "\x12\x03" /* 2 arrow_batch, LEN 3 */
	    "\x12\x05\x00"; /*   2 data, LEN 5: too long */
	static const char bad_wire_type[] = "\x0f"; /* field 1, wire type 7 */
	static const char field_zero[] = "\x00\x01"; /* field number 0 */
	struct sc_error err;
	struct sc_buf buf;
	uint8_t deep[1024];
	size_t n, off;
	void *m;
	Spark__Connect__Range rg = SPARK__CONNECT__RANGE__INIT;

	m = sc_proto_unpack(&spark__connect__range__descriptor,
	    BYTES(truncated_varint), &err);
	ok(m == NULL, "truncated varint is refused");
	if (m == NULL) {
		is_int(err.status, SC_ST_PROTOCOL, "status SC_ST_PROTOCOL");
		is_str(err.msg, "malformed Range message", "message");
	}
	m = sc_proto_unpack(&spark__connect__range__descriptor,
	    BYTES(long_varint), &err);
	ok(m == NULL, "eleven-byte varint is refused");
	m = sc_proto_unpack(&spark__connect__execute_plan_response__descriptor,
	    BYTES(len_past_end), &err);
	ok(m == NULL, "length past the end is refused");
	if (m == NULL)
		is_str(err.msg, "malformed ExecutePlanResponse message",
		    "message names the type");
	m = sc_proto_unpack(&spark__connect__execute_plan_response__descriptor,
	    BYTES(inner_past_end), &err);
	ok(m == NULL, "inner length past its message is refused");
	m = sc_proto_unpack(&spark__connect__range__descriptor,
	    BYTES(bad_wire_type), &err);
	ok(m == NULL, "wire type 7 is refused");
	m = sc_proto_unpack(&spark__connect__range__descriptor,
	    BYTES(field_zero), &err);
	ok(m == NULL, "field number 0 is refused");
	m = sc_proto_unpack(&spark__connect__range__descriptor, NULL, 3, &err);
	ok(m == NULL, "NULL with a length is refused");

	m = sc_proto_unpack(&spark__connect__range__descriptor, NULL, 0, &err);
	ok(m != NULL, "empty input is an empty message");
	if (m != NULL)
		protobuf_c_message_free_unpacked(m, NULL);

	n = nested_alias(deep, sizeof(deep), 49, &off); /* depth 99 */
	m = sc_proto_unpack(&spark__connect__expression__descriptor, deep, n,
	    &err);
	ok(m != NULL, "nesting depth 99 accepted");
	if (m != NULL)
		protobuf_c_message_free_unpacked(m, NULL);
	n = nested_alias(deep, sizeof(deep), 50, &off);
	m = sc_proto_unpack(&spark__connect__expression__alias__descriptor,
	    deep + off, n - off, &err);
	ok(m != NULL, "nesting depth %d accepted", SC_PROTO_MAX_DEPTH);
	if (m != NULL)
		protobuf_c_message_free_unpacked(m, NULL);
	m = sc_proto_unpack(&spark__connect__expression__descriptor, deep, n,
	    &err);
	ok(m == NULL, "nesting depth %d refused", SC_PROTO_MAX_DEPTH + 1);
	if (m == NULL)
		is_str(err.msg,
		    "Expression message nested too deeply: messages within "
		    "messages deeper than the limit of 100 levels (about 47 "
		    "chained relations or nested expressions)",
		    "depth error message");

	/* sc_proto_pack: appends, and refuses to pass the limit. */
	rg.end = 10;
	rg.step = 1;
	sc_buf_init(&buf, 8);
	ok(sc_proto_pack(&rg.base, &buf, &err) == 0 &&
		sc_proto_pack(&rg.base, &buf, &err) == 0,
	    "two packs fit in 8 bytes");
	is_mem(buf.data, buf.len, "\x10\x0a\x18\x01\x10\x0a\x18\x01", 8,
	    "sc_proto_pack appends");
	is_int(sc_proto_pack(&rg.base, &buf, &err), -1,
	    "a third pack passes the limit");
	is_int(err.status, SC_ST_PROTOCOL, "limit status");
	is_str(err.msg, "Range message of 4 bytes exceeds the limit of 8 bytes",
	    "limit message");
	is_int(buf.len, 8, "buffer untouched on failure");
	sc_buf_release(&buf);
}

static void
test_names(void)
{
	is_str(SC_SERVICE,
	    spark__connect__spark_connect_service__descriptor.name,
	    "SC_SERVICE is the generated service name");
	is_str(SC_METHOD_EXECUTE_PLAN,
	    "/spark.connect.SparkConnectService/ExecutePlan",
	    "ExecutePlan path");
	is_str(SC_METHOD_ARTIFACT_STATUS,
	    "/spark.connect.SparkConnectService/ArtifactStatus",
	    "ArtifactStatus path");
	is_int(spark__connect__spark_connect_service__descriptor.n_methods, 10,
	    "ten methods");
}

/*
 * Every request message gets the same envelope from sc_proto_stamp(),
 * found by field name: stamp each, pack it, parse the bytes back and
 * read the fields through the generated structs.
 */
static void
test_stamp(void)
{
	static const struct {
		const ProtobufCMessageDescriptor *d;
		bool observed; /* has client_observed_server_side_session_id */
	} t[] = {
		{ &spark__connect__execute_plan_request__descriptor, true },
		{ &spark__connect__reattach_execute_request__descriptor, true },
		{ &spark__connect__release_execute_request__descriptor, true },
		{ &spark__connect__analyze_plan_request__descriptor, true },
		{ &spark__connect__config_request__descriptor, true },
		{ &spark__connect__interrupt_request__descriptor, true },
		{ &spark__connect__artifact_statuses_request__descriptor,
		    true },
		{ &spark__connect__add_artifacts_request__descriptor, true },
		{ &spark__connect__fetch_error_details_request__descriptor,
		    true },
		{ &spark__connect__release_session_request__descriptor, false },
	};
	Spark__Connect__UserContext uc = SPARK__CONNECT__USER_CONTEXT__INIT;
	struct sc_proto_ids ids;
	const ProtobufCFieldDescriptor *f;
	ProtobufCMessage *m, *back;
	const char *sid, *ssid;
	struct sc_buf b;
	uint8_t *bytes;
	size_t i, len;
	int pass;

	uc.user_id = S("alice");
	ids.session_id = "00112233-4455-6677-8899-aabbccddeeff";
	ids.user_context = &uc;
	ids.client_type = "sctk/test";
	for (pass = 0; pass < 2; pass++) {
		ids.observed_ssid = pass == 0 ? NULL : "ssid-1";
		for (i = 0; i < SC_NELEM(t); i++) {
			m = sc_xcalloc(1, t[i].d->sizeof_message);
			t[i].d->message_init(m);
			sc_proto_stamp(m, &ids);
			bytes = sc_proto_pack_alloc(m, &len);
			back = sc_proto_unpack(t[i].d, bytes, len, NULL);
			free(bytes);
			ok(back != NULL, "%s stamped (%s observed id)",
			    t[i].d->short_name, pass == 0 ? "no" : "an");
			if (back == NULL) {
				free(m);
				continue;
			}
			/* The packed bytes carry the fields: read them back. */
			f = protobuf_c_message_descriptor_get_field_by_name(
			    t[i].d, "session_id");
			is_str(*(char **)((char *)back + f->offset),
			    ids.session_id, "  session_id");
			f = protobuf_c_message_descriptor_get_field_by_name(
			    t[i].d, "user_context");
			is_str((*(Spark__Connect__UserContext **)((char *)back +
				    f->offset))
				   ->user_id,
			    "alice", "  user_context.user_id");
			f = protobuf_c_message_descriptor_get_field_by_name(
			    t[i].d, "client_type");
			is_int(
			    *(uint32_t *)((char *)back + f->quantifier_offset),
			    f->id, "  client_type present");
			is_str(*(char **)((char *)back + f->offset),
			    "sctk/test", "  client_type");
			f = protobuf_c_message_descriptor_get_field_by_name(
			    t[i].d, "client_observed_server_side_session_id");
			if (!t[i].observed)
				ok(f == NULL,
				    "  no observed id in the message");
			else if (pass == 0)
				is_int(*(uint32_t *)((char *)back +
					   f->quantifier_offset),
				    0, "  no observed id yet: absent");
			else
				is_str(*(char **)((char *)back + f->offset),
				    "ssid-1", "  observed id");
			protobuf_c_message_free_unpacked(back, NULL);
			free(m);
		}
	}

	/* The ids of an answer, for any response type. */
	{
		Spark__Connect__ConfigResponse cr =
		    SPARK__CONNECT__CONFIG_RESPONSE__INIT;
		Spark__Connect__FetchErrorDetailsResponse fr =
		    SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__INIT;

		cr.session_id = S("s1");
		cr.server_side_session_id = S("ss1");
		sc_proto_response_ids(&cr.base, &sid, &ssid);
		ok(sid != NULL && strcmp(sid, "s1") == 0 && ssid != NULL &&
			strcmp(ssid, "ss1") == 0,
		    "response ids of a ConfigResponse");
		fr.session_id = S("s2");
		sc_proto_response_ids(&fr.base, &sid, NULL);
		is_str(sid, "s2",
		    "response ids of a FetchErrorDetailsResponse");
	}

	/* sc_proto_set_message: the plan of an ExecutePlanRequest. */
	{
		Spark__Connect__ExecutePlanRequest req =
		    SPARK__CONNECT__EXECUTE_PLAN_REQUEST__INIT;
		Spark__Connect__Plan plan = SPARK__CONNECT__PLAN__INIT;

		sc_proto_set_message(&req.base, "plan", &plan.base);
		ok(req.plan == &plan, "set_message points the field at it");
		sc_buf_init(&b, SC_BUF_UNLIMITED);
		sc_proto_pack(&req.base, &b, NULL);
		is_mem(b.data, b.len, "\x1a\x00", 2, "  packed as field 3");
		sc_buf_release(&b);
	}
	is_int(SC_REL_(RANGE), SPARK__CONNECT__RELATION__REL_TYPE_RANGE,
	    "SC_REL_ aliases the generated names");
	is_int(SC_INTERRUPT_TYPE_(TAG),
	    SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_TYPE__INTERRUPT_TYPE_TAG,
	    "SC_INTERRUPT_TYPE_ too");
}

static void
test_check_response(void)
{
	Spark__Connect__ExecutePlanResponse ep =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
	Spark__Connect__ConfigResponse cr =
	    SPARK__CONNECT__CONFIG_RESPONSE__INIT;
	Spark__Connect__ArtifactStatusesResponse ar =
	    SPARK__CONNECT__ARTIFACT_STATUSES_RESPONSE__INIT;
	Spark__Connect__ReleaseExecuteResponse rr =
	    SPARK__CONNECT__RELEASE_EXECUTE_RESPONSE__INIT;
	struct sc_proto_expect x = { "S", NULL, NULL, false };
	struct sc_error err;

	cr.session_id = S("S");
	is_int(sc_proto_check_response(&cr.base, &x, &err), 0,
	    "our session: accepted");
	cr.server_side_session_id = S("ss1");
	x.ssid = "ss1";
	is_int(sc_proto_check_response(&cr.base, &x, &err), 0,
	    "the same server-side session: accepted");
	x.ssid = "ss0";
	is_int(sc_proto_check_response(&cr.base, &x, &err), -1,
	    "another server-side session: refused");
	is_str(err.msg,
	    "server-side session changed from 'ss0' to 'ss1' (the server restarted or the session was re-created)",
	    "  message");
	is_int(err.status, SC_ST_PROTOCOL, "  status protocol");
	cr.server_side_session_id = S("");
	is_int(sc_proto_check_response(&cr.base, &x, &err), 0,
	    "no server-side session in the answer: accepted (3.5)");
	cr.session_id = S("T");
	is_int(sc_proto_check_response(&cr.base, &x, &err), -1,
	    "another session: refused");
	is_str(err.msg, "server answered for session 'T', expected 'S'",
	    "  message");
	cr.session_id = S("");
	is_int(sc_proto_check_response(&cr.base, &x, &err), -1,
	    "an empty session id: refused");
	is_int(sc_proto_check_response(&ar.base, &x, &err), 0,
	    "an empty session id in ArtifactStatusesResponse: accepted (3.5)");

	/* ReleaseExecuteResponse: operation_id is optional (not found). */
	x.ssid = NULL;
	x.operation_id = "op1";
	rr.session_id = S("S");
	is_int(sc_proto_check_response(&rr.base, &x, &err), 0,
	    "no operation id: accepted");
	rr._operation_id_case =
	    SPARK__CONNECT__RELEASE_EXECUTE_RESPONSE___OPERATION_ID_OPERATION_ID;
	rr.operation_id = S("op2");
	is_int(sc_proto_check_response(&rr.base, &x, &err), -1,
	    "another operation: refused");
	is_str(err.msg, "server answered for operation 'op2', expected 'op1'",
	    "  message");

	/* A reattachable operation's responses need a response id. */
	ep.session_id = S("S");
	ep.operation_id = S("op1");
	x.response_id = true;
	is_int(sc_proto_check_response(&ep.base, &x, &err), -1,
	    "no response id: refused");
	is_str(err.msg,
	    "server sent a response without a response id for reattachable operation op1",
	    "  message");
	ep.response_id = S("r1");
	is_int(sc_proto_check_response(&ep.base, &x, &err), 0,
	    "with a response id: accepted");
}

/*
 * sc_proto_arrow_envelope() writes its tags by hand: the field numbers
 * and wire types it assumes are the generated descriptors', and what it
 * writes unpacks as the message it stands for.
 */
static void
test_arrow_envelope(void)
{
	static const struct {
		const ProtobufCMessageDescriptor *d;
		const char *name;
		unsigned id;
		ProtobufCType type;
	} f[] = {
		{ &spark__connect__execute_plan_response__descriptor,
		    "session_id", 1, PROTOBUF_C_TYPE_STRING },
		{ &spark__connect__execute_plan_response__descriptor,
		    "arrow_batch", 2, PROTOBUF_C_TYPE_MESSAGE },
		{ &spark__connect__execute_plan_response__descriptor,
		    "operation_id", 12, PROTOBUF_C_TYPE_STRING },
		{ &spark__connect__execute_plan_response__descriptor,
		    "response_id", 13, PROTOBUF_C_TYPE_STRING },
		{ &spark__connect__execute_plan_response__descriptor,
		    "server_side_session_id", 15, PROTOBUF_C_TYPE_STRING },
		{ &spark__connect__execute_plan_response__arrow_batch__descriptor,
		    "row_count", 1, PROTOBUF_C_TYPE_INT64 },
		{ &spark__connect__execute_plan_response__arrow_batch__descriptor,
		    "data", 2, PROTOBUF_C_TYPE_BYTES },
		{ &spark__connect__execute_plan_response__arrow_batch__descriptor,
		    "start_offset", 3, PROTOBUF_C_TYPE_INT64 },
	};
	const ProtobufCFieldDescriptor *fd;
	Spark__Connect__ExecutePlanResponse *r;
	uint8_t buf[128];
	size_t i, n;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		fd = protobuf_c_message_descriptor_get_field_by_name(f[i].d,
		    f[i].name);
		ok(fd != NULL && fd->id == f[i].id && fd->type == f[i].type,
		    "envelope: %s is field %u of its type", f[i].name, f[i].id);
	}
	n = sc_proto_arrow_envelope(buf, sizeof(buf) - 3, "s", "ss", "op", "r",
	    300, 7, 3);
	memcpy(buf + sizeof(buf) - 3, "abc", 3);
	r = n == 0 ? NULL
		   : spark__connect__execute_plan_response__unpack(NULL, n + 3,
			 buf + sizeof(buf) - 3 - n);
	ok(r != NULL && strcmp(r->session_id, "s") == 0 &&
		strcmp(r->server_side_session_id, "ss") == 0 &&
		strcmp(r->operation_id, "op") == 0 &&
		strcmp(r->response_id, "r") == 0 && r->arrow_batch != NULL &&
		r->arrow_batch->row_count == 300 &&
		r->arrow_batch->start_offset == 7 &&
		r->arrow_batch->data.len == 3 &&
		memcmp(r->arrow_batch->data.data, "abc", 3) == 0,
	    "envelope: unpacks as the response it stands for");
	if (r != NULL)
		spark__connect__execute_plan_response__free_unpacked(r, NULL);
	is_int((int)sc_proto_arrow_envelope(buf, 10, "s", "ss", "op", "r", 1, 1,
		   3),
	    0, "envelope: 0 when it does not fit");
}

int
main(void)
{
	test_stamp();
	test_check_response();
	test_execute_plan_request();
	test_execute_plan_response();
	test_range();
	test_reattach_release_interrupt();
	test_status();
	test_types_literals_config();
	test_malformed();
	test_names();
	test_arrow_envelope();
	return tap_done();
}
