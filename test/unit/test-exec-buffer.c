/* SPDX-License-Identifier: MIT */

/*
 * test-exec-buffer.c: the per-operation response buffer (exec_buffer.c):
 * Spark's retry-buffer eviction rule with exact byte sizes, the
 * POSITION_NOT_FOUND / POSITION_NOT_AVAILABLE answers, release_until and
 * release_all, the bounded id map over a million responses, shared
 * response memory (sc_execbuf_ref), and the hand-encoded ArrowBatch
 * envelope against protobuf-c.
 */

#include "server/exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/protocol.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

/* A deterministic UUID for response n. */
static const char *
rid(int64_t n)
{
	static char buf[8][SC_UUID_STRLEN];
	static int k;
	char *p = buf[k++ & 7];

	snprintf(p, SC_UUID_STRLEN, "%08x-0000-4000-8000-%012llx",
	    (unsigned)(n * 2654435761u), (unsigned long long)n);
	return p;
}

static int64_t
add(struct sc_execbuf *b, int64_t n, size_t len)
{
	uint8_t *d = sc_xmalloc(len ? len : 1);

	memset(d, (int)(n & 0xff), len);
	return sc_execbuf_add(b, rid(n), d, len, (int64_t)n);
}

static int
consume(struct sc_execbuf *b, int64_t index)
{
	const uint8_t *d;
	size_t len;
	int64_t rows;

	return sc_execbuf_consume(b, index, &d, &len, &rows, NULL);
}

static struct sc_execbuf_stats
stats(struct sc_execbuf *b)
{
	struct sc_execbuf_stats st;

	sc_execbuf_stats(b, &st);
	return st;
}

/* Sizes 100 5 7 300 1 2 with a retry buffer of 10 bytes. */
static void
test_eviction_rule(void)
{
	static const size_t sizes[] = { 100, 5, 7, 300, 1, 2 };
	struct sc_execbuf *b = sc_execbuf_new(10);
	const uint8_t *d;
	size_t len, i;
	int64_t rows;

	for (i = 0; i < SC_NELEM(sizes); i++)
		is_int(add(b, (int64_t)i + 1, sizes[i]), i + 1,
		    "add returns index %zu", i + 1);
	is_int(stats(b).bytes, 415, "415 bytes buffered");
	is_int(stats(b).unconsumed, 415, "all unconsumed");

	/* Consume 1: nothing before it. */
	is_int(sc_execbuf_consume(b, 1, &d, &len, &rows, NULL), 1, "consume 1");
	is_int(len, 100, "response 1 is 100 bytes");
	is_int(rows, 1, "rows of response 1");
	is_int(d[0], 1, "data of response 1");
	is_int(stats(b).first, 1, "consume 1 keeps 1");
	is_int(stats(b).unconsumed, 315, "315 unconsumed");

	/* Consume 2: walk from 1: sum 0 < 10, add 100; stop at 0. */
	is_int(consume(b, 2), 1, "consume 2");
	is_int(stats(b).first, 1, "consume 2 keeps 1 (crosses B, kept)");

	/* Consume 3: 2 (5) -> 5 < 10, 1 (100) -> 105; stop at 0. */
	is_int(consume(b, 3), 1, "consume 3");
	is_int(stats(b).first, 1, "consume 3 keeps 1, 2");

	/* Consume 4: 3 (7) -> 7, 2 (5) -> 12 >= 10 stop at 1: drop 1. */
	is_int(consume(b, 4), 1, "consume 4");
	is_int(stats(b).first, 2, "consume 4 drops 1");
	is_int(stats(b).bytes, 315, "315 bytes left");
	is_int(stats(b).count, 5, "5 responses left");

	/* Consume 5: 4 (300) -> 300 >= 10, stop at 3: drop 2, 3. */
	is_int(consume(b, 5), 1, "consume 5");
	is_int(stats(b).first, 4, "consume 5 drops 2 and 3");
	is_int(stats(b).bytes, 303, "303 bytes left");

	/* Consume 6: 5 (1) -> 1, 4 (300) -> 301, stop at 3: nothing. */
	is_int(consume(b, 6), 1, "consume 6");
	is_int(stats(b).first, 4, "consume 6 keeps 4, 5");
	is_int(stats(b).consumed, 6, "highest consumed 6");
	is_int(stats(b).unconsumed, 0, "nothing unconsumed");
	is_int(consume(b, 7), 0, "7 not produced yet");
	sc_execbuf_finish(b);
	is_int(consume(b, 7), 2, "7 is past the final index");
	is_int(stats(b).final, 6, "final index 6");
	sc_execbuf_free(b);
}

static void
test_zero_and_huge(void)
{
	struct sc_execbuf *b = sc_execbuf_new(0);
	int64_t i;

	for (i = 1; i <= 5; i++)
		add(b, i, 10);
	consume(b, 1);
	consume(b, 2);
	consume(b, 3);
	is_int(stats(b).first, 3, "B=0: only the current response is kept");
	is_int(stats(b).count, 3, "B=0: 3, 4, 5 buffered");
	is_int(stats(b).bytes, 30, "B=0: 30 bytes");
	sc_execbuf_free(b);

	b = sc_execbuf_new(1 << 30);
	for (i = 1; i <= 100; i++)
		add(b, i, 1000);
	for (i = 1; i <= 100; i++)
		consume(b, i);
	is_int(stats(b).first, 1, "large B keeps everything");
	is_int(stats(b).bytes, 100000, "100000 bytes kept");
	sc_execbuf_free(b);

	/* Exactly B: the response that reaches B is kept, older ones go. */
	b = sc_execbuf_new(20);
	for (i = 1; i <= 4; i++)
		add(b, i, 10);
	for (i = 1; i <= 4; i++)
		consume(b, i);
	/* Consume 4: 3 -> 10 < 20, 2 -> 20, stop at 1: drop 1. */
	is_int(stats(b).first, 2, "sum reaching B exactly keeps 2, 3, 4");
	sc_execbuf_free(b);
}

static void
test_positions(void)
{
	struct sc_execbuf *b = sc_execbuf_new(0);
	struct sc_error err;
	int64_t i, index;
	char want[200];

	for (i = 1; i <= 4; i++)
		add(b, i, 10);
	consume(b, 1);
	consume(b, 2);
	consume(b, 3); /* drops 1, 2 */

	sc_error_init(&err);
	is_int(sc_execbuf_consume(b, 1, &(const uint8_t *){ NULL },
		   &(size_t){ 0 }, NULL, &err),
	    -1, "consuming evicted 1 fails");
	is_str(err.errclass, "INVALID_CURSOR.POSITION_NOT_AVAILABLE",
	    "POSITION_NOT_AVAILABLE class");
	is_str(err.sqlstate, "HY109", "its SQLSTATE");
	snprintf(want, sizeof(want),
	    "[INVALID_CURSOR.POSITION_NOT_AVAILABLE] "
	    "The cursor is invalid. The cursor position id %s is no longer "
	    "available at index 1. SQLSTATE: HY109",
	    rid(1));
	is_str(err.msg, want,
	    "POSITION_NOT_AVAILABLE message names id and "
	    "index");
	is_int(err.rpc_code, SC_GRPC_INTERNAL, "INTERNAL status");

	ok(sc_execbuf_unavailable(b, 2, NULL), "2 is unavailable");
	ok(!sc_execbuf_unavailable(b, 3, NULL), "3 is available");
	ok(!sc_execbuf_unavailable(b, 5, NULL),
	    "5 (not produced) is not "
	    "unavailable");

	is_int(sc_execbuf_lookup(b, rid(1), &index, NULL), 0,
	    "evicted id 1 is still known");
	is_int(index, 1, "id 1 -> index 1");
	is_int(sc_execbuf_lookup(b, rid(4), &index, NULL), 0, "id 4 known");
	is_int(index, 4, "id 4 -> index 4");
	/* Upper case is the same id. */
	{
		char up[SC_UUID_STRLEN];
		size_t k;

		memcpy(up, rid(3), SC_UUID_STRLEN);
		for (k = 0; up[k] != '\0'; k++)
			if (up[k] >= 'a' && up[k] <= 'f')
				up[k] = (char)(up[k] - 'a' + 'A');
		is_int(sc_execbuf_lookup(b, up, &index, NULL), 0,
		    "upper-case id found");
		is_int(index, 3, "upper-case id -> 3");
	}

	sc_error_init(&err);
	is_int(sc_execbuf_lookup(b, rid(99), &index, &err), -1,
	    "unknown id fails");
	is_str(err.errclass, "INVALID_CURSOR.POSITION_NOT_FOUND",
	    "POSITION_NOT_FOUND class");
	snprintf(want, sizeof(want),
	    "[INVALID_CURSOR.POSITION_NOT_FOUND] "
	    "The cursor is invalid. The cursor position id %s is not found. "
	    "SQLSTATE: HY109",
	    rid(99));
	is_str(err.msg, want, "POSITION_NOT_FOUND message");
	is_int(sc_execbuf_lookup(b, "not-a-uuid", &index, &err), -1,
	    "malformed id fails");
	is_str(err.errclass, "INVALID_CURSOR.POSITION_NOT_FOUND",
	    "malformed id: POSITION_NOT_FOUND");
	sc_execbuf_free(b);
}

static void
test_release(void)
{
	struct sc_execbuf *b = sc_execbuf_new(1000);
	struct sc_error err;
	int64_t i;

	for (i = 1; i <= 6; i++)
		add(b, i, 10);
	consume(b, 1);
	consume(b, 2);
	is_int(stats(b).unconsumed, 40, "40 bytes unconsumed");
	is_int(sc_execbuf_release_until(b, rid(2), NULL), 0, "release until 2");
	is_int(stats(b).first, 3, "1 and 2 dropped (inclusive)");
	is_int(stats(b).bytes, 40, "40 bytes left");
	is_int(sc_execbuf_release_until(b, rid(1), NULL), 0,
	    "release until an already dropped id is a no-op");
	is_int(stats(b).first, 3, "still 3");
	is_int(sc_execbuf_release_until(b, rid(4), NULL), 0,
	    "release until 4 (beyond consumed)");
	is_int(stats(b).first, 5, "3, 4 dropped");
	is_int(stats(b).unconsumed, 20, "unconsumed drops to 20");
	is_int(consume(b, 3), -1, "3 was released: not available");
	sc_error_init(&err);
	is_int(sc_execbuf_release_until(b, rid(77), &err), -1,
	    "release until an unknown id fails");
	is_str(err.errclass, "INVALID_CURSOR.POSITION_NOT_FOUND",
	    "with POSITION_NOT_FOUND");
	sc_execbuf_release_all(b);
	is_int(stats(b).count, 0, "release_all: nothing buffered");
	is_int(stats(b).bytes, 0, "release_all: 0 bytes");
	is_int(stats(b).unconsumed, 0, "release_all: 0 unconsumed");
	is_int(stats(b).first, 7, "release_all: first is produced + 1");
	is_int(sc_execbuf_release_until(b, rid(6), NULL), 0,
	    "ids still known after release_all");
	is_int(add(b, 7, 10), 7, "adding after release_all continues");
	is_int(consume(b, 7), 1, "and 7 can be consumed");
	sc_execbuf_free(b);
}

/*
 * Two buffers keep a shared total of their unconsumed bytes: adds,
 * consumes, releases beyond consumed, release_all and free.
 */
static void
test_total(void)
{
	struct sc_execbuf *a = sc_execbuf_new(1000), *b = sc_execbuf_new(0);
	atomic_int_fast64_t total;

	atomic_init(&total, 0);
	add(a, 1, 10);
	sc_execbuf_set_total(a, &total);
	is_int(atomic_load(&total), 10, "set_total counts what is there");
	sc_execbuf_set_total(b, &total);
	add(a, 2, 20);
	add(b, 1, 5);
	add(b, 2, 7);
	is_int(atomic_load(&total), 42, "adds: 10 + 20 + 5 + 7");
	consume(a, 2);
	is_int(atomic_load(&total), 12, "consume up to 2: 30 fewer");
	consume(b, 1);
	is_int(atomic_load(&total), 7, "consume 1 of b: 5 fewer");
	add(a, 3, 100);
	is_int(sc_execbuf_release_until(a, rid(3), NULL), 0,
	    "release beyond consumed");
	is_int(atomic_load(&total), 7, "released unconsumed bytes leave it");
	add(a, 4, 50);
	sc_execbuf_release_all(a);
	is_int(atomic_load(&total), 7, "release_all: a counts nothing");
	sc_execbuf_free(a);
	sc_execbuf_free(b);
	is_int(atomic_load(&total), 0, "free: b's 7 bytes leave it");
}

/* A million responses: memory for ids stays bounded. */
static void
test_million(void)
{
	struct sc_execbuf *b = sc_execbuf_new(500);
	struct sc_execbuf_stats st;
	int64_t i, index, maxknown = 0;
	bool good = true;

	for (i = 1; i <= 1000000; i++) {
		add(b, i, 100);
		if (consume(b, i) != 1)
			good = false;
		sc_execbuf_stats(b, &st);
		if (st.known_ids > maxknown)
			maxknown = st.known_ids;
	}
	ok(good, "a million responses consumed");
	st = stats(b);
	is_int(st.count, 6, "B=500, 100-byte responses: 6 buffered");
	is_int(st.known_ids, 6 + SC_EXECBUF_EVICTED_IDS,
	    "known ids = buffered + ring");
	ok(maxknown <= 6 + SC_EXECBUF_EVICTED_IDS,
	    "id map never grew "
	    "beyond that (max %lld)",
	    (long long)maxknown);
	is_int(sc_execbuf_lookup(b, rid(1000000 - 6), &index, NULL), 0,
	    "a just evicted id is known");
	is_int(index, 1000000 - 6, "and maps to its index");
	ok(sc_execbuf_unavailable(b, index, NULL), "and is unavailable");
	is_int(sc_execbuf_lookup(b, rid(1000000 - 5 - SC_EXECBUF_EVICTED_IDS),
		   &index, NULL),
	    0, "the oldest remembered id is known");
	is_int(sc_execbuf_lookup(b, rid(1000000 - 6 - SC_EXECBUF_EVICTED_IDS),
		   &index, NULL),
	    -1, "one older is forgotten (POSITION_NOT_FOUND)");
	is_int(sc_execbuf_lookup(b, rid(1), &index, NULL), -1,
	    "the first id is forgotten");
	sc_execbuf_free(b);
}

static void
test_shared_memory(void)
{
	struct sc_execbuf *b = sc_execbuf_new(0);
	struct sc_execmem *m1, *m2;
	const uint8_t *d;
	size_t len;
	int64_t rows;
	uint8_t *mem = sc_xmalloc(100);

	memset(mem, 'x', 100);
	memcpy(mem + 10, "hello", 5);
	is_int(sc_execbuf_add_mem(b, rid(1), mem, mem + 10, 5, 7), 1,
	    "add_mem: index 1");
	add(b, 2, 30);
	is_int(sc_execbuf_consume(b, 1, &d, &len, &rows, NULL), 1,
	    "add_mem: consumed");
	ok(d == mem + 10 && len == 5 && rows == 7,
	    "add_mem: bytes inside the block");
	m1 = sc_execbuf_ref(b, 1);
	is_int(sc_execbuf_consume(b, 2, &d, &len, &rows, NULL), 1,
	    "consume 2 (evicts 1 with retry size 0)");
	is_int(stats(b).first, 2, "response 1 dropped by the buffer");
	m2 = sc_execbuf_ref(b, 2);
	sc_execbuf_release_all(b);
	is_int(stats(b).count, 0, "release_all: nothing buffered");
	is_mem(mem + 10, 5, "hello", 5, "a referenced block outlives eviction");
	sc_execmem_unref(m1);
	sc_execbuf_free(b);
	sc_execmem_unref(m2);
	sc_execmem_unref(NULL);
	ok(true, "references released after the buffer (no leak under ASan)");
}

/* One envelope case: hand-encoded vs protobuf-c, all fields. */
static void
envelope_case(const char *sid, const char *ssid, int64_t rows, int64_t start,
    size_t ipclen)
{
	static const char opid[] = "6a0b3c1e-1111-4aaa-8bbb-0000000000aa";
	static const char respid[] = "0f0e0d0c-0b0a-4988-8776-665544332211";
	Spark__Connect__ExecutePlanResponse want =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
	Spark__Connect__ExecutePlanResponse__ArrowBatch ab =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH__INIT;
	Spark__Connect__ExecutePlanResponse *got;
	uint8_t *mem, *ref, *re;
	size_t i, n, reflen, relen;
	struct sc_error err;

	mem = sc_xmalloc(SC_EXEC_ARROW_HEADROOM + ipclen + 1);
	for (i = 0; i < ipclen; i++)
		mem[SC_EXEC_ARROW_HEADROOM + i] = (uint8_t)(i * 7 + 3);
	n = sc_proto_arrow_envelope(mem, SC_EXEC_ARROW_HEADROOM, sid, ssid,
	    opid, respid, rows, start, ipclen);
	ok(n > 0 && n <= SC_EXEC_ARROW_HEADROOM,
	    "envelope rows=%lld len=%zu: %zu bytes", (long long)rows, ipclen,
	    n);

	want.session_id = (char *)sid;
	want.server_side_session_id = (char *)ssid;
	want.operation_id = (char *)opid;
	want.response_id = (char *)respid;
	ab.row_count = rows;
	ab.data.data = mem + SC_EXEC_ARROW_HEADROOM;
	ab.data.len = ipclen;
	ab._start_offset_case =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH___START_OFFSET_START_OFFSET;
	ab.start_offset = start;
	want.response_type_case =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH;
	want.arrow_batch = &ab;
	ref = sc_proto_pack_alloc(&want.base, &reflen);

	sc_error_init(&err);
	got =
	    sc_proto_unpack(&spark__connect__execute_plan_response__descriptor,
		mem + SC_EXEC_ARROW_HEADROOM - n, n + ipclen, &err);
	ok(got != NULL, "envelope decodes (%s)", got ? "" : err.msg);
	if (got == NULL) {
		free(ref);
		free(mem);
		return;
	}
	is_str(got->session_id, sid, "session_id");
	is_str(got->server_side_session_id, ssid, "server_side_session_id");
	is_str(got->operation_id, opid, "operation_id");
	is_str(got->response_id, respid, "response_id");
	is_int(got->response_type_case,
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH,
	    "response type arrow_batch");
	ok(got->arrow_batch != NULL && got->arrow_batch->row_count == rows,
	    "row_count");
	ok(got->arrow_batch != NULL &&
		got->arrow_batch->_start_offset_case ==
		    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH___START_OFFSET_START_OFFSET &&
		got->arrow_batch->start_offset == start,
	    "start_offset set");
	ok(got->arrow_batch != NULL && got->arrow_batch->data.len == ipclen &&
		(ipclen == 0 ||
		    memcmp(got->arrow_batch->data.data,
			mem + SC_EXEC_ARROW_HEADROOM, ipclen) == 0),
	    "data");
	ok(got->base.n_unknown_fields == 0 &&
		got->arrow_batch->base.n_unknown_fields == 0,
	    "no unknown fields");
	re = sc_proto_pack_alloc(&got->base, &relen);
	ok(relen == reflen && memcmp(re, ref, reflen) == 0,
	    "repacked = pack_response's bytes (%zu, %zu)", relen, reflen);
	free(re);
	protobuf_c_message_free_unpacked(&got->base, NULL);
	free(ref);
	free(mem);
}

static void
test_envelope(void)
{
	static const char sid[] = "11111111-2222-4333-8444-555555555555";
	static const char ssid[] = "99999999-8888-4777-8666-555555555555";
	uint8_t room[300];

	envelope_case(sid, ssid, 0, 0, 0);
	envelope_case(sid, ssid, 0, 12345, 200);
	envelope_case(sid, ssid, 1, 0, 127);
	envelope_case(sid, ssid, 127, 128, 128);
	envelope_case(sid, ssid, 10000, 49990000, 81704);
	envelope_case(sid, ssid, 1 << 20, INT64_MAX, (size_t)1 << 21);
	envelope_case(sid, ssid, -1, -5, 16383);
	envelope_case(sid, "", 3, 3, 16384);
	is_int(sc_proto_arrow_envelope(room, 100, sid, ssid, sid, ssid, 1, 1,
		   10),
	    0, "too little room: 0");
	ok(sc_proto_arrow_envelope(room, sizeof(room), sid, ssid, sid, ssid, 1,
	       1, 10) > 0,
	    "enough room");
}

static int64_t
budget_used(int64_t *cap)
{
	int64_t used;

	sc_execmem_budget(cap, &used);
	return used;
}

/* The value budget: caps, a user's half, order, cancel, charges. */
static void
test_value_budget(void)
{
	struct sc_execacct *a, *a2, *b2, *c;
	struct sc_execbuf *b;
	atomic_int cancel;
	int64_t cap;

	sc_execmem_budget_set(100);
	is_int(budget_used(&cap), 0, "budget: nothing taken");
	is_int(cap, 100, "budget: cap set");
	a = sc_execmem_take_now("alice", 50, false);
	ok(a != NULL, "budget: alice takes her half");
	ok(sc_execmem_take_now("alice", 1, false) == NULL,
	    "budget: not a byte past her half");
	b2 = sc_execmem_take_now("bob", 40, false);
	ok(b2 != NULL, "budget: bob takes 40 beside her");
	ok(sc_execmem_take_now("carol", 11, false) == NULL,
	    "budget: carol's 11 do not fit the 10 left");
	c = sc_execmem_take_now("carol", 10, false);
	ok(c != NULL, "budget: carol's 10 do");
	is_int(budget_used(NULL), 100, "budget: all taken");
	atomic_init(&cancel, 1);
	ok(sc_execmem_take("dave", 5, &cancel) == NULL,
	    "budget: a canceled waiter takes nothing");
	is_int(budget_used(NULL), 100, "budget: still all taken");
	sc_execmem_give(c, 10);
	atomic_store(&cancel, 0);
	c = sc_execmem_take("dave", 5, &cancel);
	ok(c != NULL, "budget: a waiter takes what was given back");
	sc_execmem_give(c, 5);
	/* A response carries its charge until its memory is freed. */
	b = sc_execbuf_new(0);
	add(b, 1, 10);
	sc_execbuf_charge_last(b, a, 50);
	add(b, 2, 10);
	is_int(consume(b, 1), 1, "budget: response 1 consumed");
	is_int(consume(b, 2), 1, "budget: response 2 consumed");
	is_int(budget_used(NULL), 40,
	    "budget: response 1 dropped, its 50 given back");
	a2 = sc_execmem_take_now("alice", 50, false);
	ok(a2 != NULL, "budget: alice's half is free again");
	sc_execbuf_charge_last(b, a2, 50);
	is_int(sc_execbuf_drop_consumed(b), 1, "budget: drop_consumed drops 1");
	is_int(budget_used(NULL), 40, "budget: and gives back its 50");
	sc_execbuf_free(b);
	sc_execmem_give(b2, 40);
	is_int(budget_used(NULL), 0, "budget: nothing left taken");
	ok(sc_execmem_take_now("x", 1000, true) != NULL,
	    "budget: force takes past the cap");
	sc_execmem_budget_set(-1);
	a = sc_execmem_take_now("x", 5, false);
	ok(a != NULL, "budget: no limit");
	sc_execmem_give(a, 1005);
	is_int(budget_used(NULL), 0, "budget: all given back");
}

int
main(void)
{
	test_eviction_rule();
	test_zero_and_huge();
	test_positions();
	test_release();
	test_total();
	test_million();
	test_shared_memory();
	test_envelope();
	test_value_budget();
	return tap_done();
}
