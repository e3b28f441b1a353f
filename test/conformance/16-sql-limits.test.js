// SPDX-License-Identifier: MIT
//
// 16-sql-limits: hand-made plans at sc-serve's limits.  Chains of 15 and
// more relations run (they used to stop in SQLite's parser); a plan
// deeper than the protobuf nesting limit gets an error naming the limit;
// a value over the value limit ends the operation with RESOURCE_EXHAUSTED
// and an error class, never a giant message; Arrow local relations that
// cannot be read, SQL too deep for the parser and statements Spark SQL
// lacks fail with Spark error classes.

'use strict';

const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');
const lib = require('./lib');

// protobufjs (proto-loader's copy) refuses to encode messages nested
// deeper than 100 levels; this client must send such plans.
require(require.resolve('protobufjs', { paths:
    [path.dirname(require.resolve('@grpc/proto-loader'))] }))
    .util.recursionLimit = 1000;

const srv = lib.useServer();
const { T } = lib;

const N = 1000; // rows of the leaf

function leaf() {
	// A sql leaf, so the chain is SQL and not a native range.
	return { sql: { query: `SELECT id FROM range(${N})` } };
}

function col(name) {
	return { unresolved_attribute: { unparsed_identifier: name } };
}

function ge(name, v) {
	return { unresolved_function: { function_name: '>=',
	    arguments: [col(name), { literal: { long: String(v) } }] } };
}

// n Filter relations on top of each other: filter i keeps id >= i.
function filterChain(n, input = leaf()) {
	let r = input;
	for (let i = 1; i <= n; i++)
		r = { filter: { input: r, condition: ge('id', i) } };
	return r;
}

// Project(id), Filter, Project(id), ... n relations in all.
function mixedChain(n) {
	let r = leaf(), k = 0;
	for (let i = 1; i <= n; i++) {
		if (i % 2 === 0)
			r = { filter: { input: r, condition: ge('id', ++k) } };
		else
			r = { project: { input: r, expressions: [col('id')] } };
	}
	return { r, k };
}

// Rows id = lo .. N-1: their count and sum.
function expect(lo) {
	let sum = 0n;
	for (let i = lo; i < N; i++)
		sum += BigInt(i);
	return { count: N - lo, sum };
}

async function runChain(s, root) {
	const r = await s.execute({ root });
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return lib.countSum(r.responses, 'id');
}

for (const n of [15, 20, 45]) {
	test(`${n} chained Filter relations return the right rows`, T,
	    async () => {
		const s = new lib.Session(srv);
		assert.deepEqual(await runChain(s, filterChain(n)), expect(n));
	});
}

test('40 alternating Project and Filter relations return the right rows',
    T, async () => {
	const s = new lib.Session(srv);
	const { r, k } = mixedChain(40);
	assert.equal(k, 20);
	assert.deepEqual(await runChain(s, r), expect(k));
});

test('a chain over an aliased, renamed and sorted input keeps its columns',
    T, async () => {
	const s = new lib.Session(srv);
	let r = { subquery_alias: { input: filterChain(10), alias: 'q' } };
	r = { to_df: { input: r, column_names: ['v'] } };
	r = { filter: { input: r, condition: ge('v', 500) } };
	r = { sort: { input: r, order: [{ child: col('v'),
	    direction: 'SORT_DIRECTION_DESCENDING',
	    null_ordering: 'SORT_NULLS_LAST' }] } };
	r = { limit: { input: r, limit: 3 } };
	const res = await s.execute({ root: r });
	assert.equal(res.status.code, lib.code.OK, lib.statusText(res.status));
	assert.deepEqual(lib.columnValues(res.responses, 'v').map(Number),
	    [999, 998, 997]);
});

test('a plan deeper than the nesting limit gets an error naming the limit',
    T, async () => {
	const s = new lib.Session(srv);
	const r = await s.execute({ root: filterChain(60) });
	const err = lib.streamError(r);
	assert.equal(err.code, lib.code.INVALID_ARGUMENT, lib.statusText(err));
	assert.equal(err.details, 'ExecutePlanRequest message nested too ' +
	    'deeply: messages within messages deeper than the limit of 100 ' +
	    'levels (about 47 chained relations or nested expressions)');
	const a = await lib.rejects(s.analyze({ schema: { plan:
	    { root: filterChain(60) } } }));
	assert.equal(a.code, lib.code.INVALID_ARGUMENT, lib.statusText(a));
	assert.match(a.details, /^AnalyzePlanRequest message nested too deeply: .* limit of 100 levels/);
});

// A limit error: RESOURCE_EXHAUSTED with the Spark error in the status
// message and in the ErrorInfo.
function assertLimitError(err, errorClass, sqlState) {
	assert.equal(err.code, lib.code.RESOURCE_EXHAUSTED,
	    lib.statusText(err));
	assert.match(err.details, new RegExp(`^\\[${errorClass}\\] .* ` +
	    `SQLSTATE: ${sqlState}$`));
	const d = lib.errorDetails(err);
	assert.ok(d, 'grpc-status-details-bin present');
	assert.equal(d.status.code, lib.code.RESOURCE_EXHAUSTED);
	assert.equal(d.errorInfo.metadata.errorClass, errorClass);
	assert.equal(d.errorInfo.metadata.sqlState, sqlState);
	return err.details;
}

test("SELECT repeat('x', 943718400) ends with RESOURCE_EXHAUSTED and " +
    'EXCEED_LIMIT_LENGTH, sending no batch', T, async () => {
	const s = new lib.Session(srv);
	// zeroblob() is SQLite's, not Spark's (UNRESOLVED_ROUTINE).
	const r = await s.execute(lib.sqlPlan("SELECT repeat('x', 943718400)"),
	    { timeoutMs: 50000 * lib.SLOW });
	assert.ok(!r.timedOut, 'the operation did not end');
	const msg = assertLimitError(lib.streamError(r), 'EXCEED_LIMIT_LENGTH',
	    '54006');
	assert.match(msg, /exceeds the limit of 67108864 bytes \(sctk\.sql\.maxValueSize\)/);
	assert.ok(!lib.kinds(r.responses).includes('arrow_batch'));
	// The session and the server go on.
	const ok = await s.execute(lib.sqlPlan("SELECT length(repeat('x', 1000)) AS n"));
	assert.equal(ok.status.code, lib.code.OK, lib.statusText(ok.status));
	assert.deepEqual(lib.columnValues(ok.responses, 'n').map(Number),
	    [1000]);
});

test('a string parameter over the value limit is refused, not NULL', T,
    async () => {
	const s = new lib.Session(srv);
	const big = 'x'.repeat(70 * 1024 * 1024);
	const r = await s.execute({ root: { sql: {
	    query: 'SELECT length(?) AS n', pos_args: [{ string: big }] } } },
	    { timeoutMs: 50000 * lib.SLOW });
	assertLimitError(lib.streamError(r), 'EXCEED_LIMIT_LENGTH', '54006');
});

// An Arrow IPC stream of one int32 column a = 1, 2, 3.
function arrowStream() {
	const t = lib.arrow.tableFromArrays({ a: Int32Array.from([1, 2, 3]) });
	return Buffer.from(lib.arrow.tableToIPC(t, 'stream'));
}

test('a valid Arrow local relation still runs', T, async () => {
	const s = new lib.Session(srv);
	const r = await s.execute({ root: { local_relation:
	    { data: arrowStream() } } });
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(lib.columnValues(r.responses, 'a').map(Number),
	    [1, 2, 3]);
});

test('Arrow local relations that cannot be read fail with ' +
    'INVALID_PLAN_INPUT', T, async () => {
	const s = new lib.Session(srv);
	const good = arrowStream();
	const bad = [
		[good.subarray(0, good.length - 9), /truncated Arrow stream/],
		[Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]),
		    /metadata too large \(2147483647 bytes\)/],
		[Buffer.from([0xf0, 0xff, 0xff, 0xff]), /bad message length/],
		[Buffer.from([0, 0, 0, 0]), /no schema/],
	];
	for (const [data, re] of bad) {
		const r = await s.execute({ root: { local_relation: { data } } });
		const { message } = lib.assertSparkError(lib.streamError(r),
		    'INVALID_PLAN_INPUT', '22023');
		assert.match(message, /^\[INVALID_PLAN_INPUT\] The local relation's Arrow data cannot be read: /);
		assert.match(message, re);
	}
});

test('SQL nested too deeply for the parser fails with ' +
    'FAILED_TO_PARSE_TOO_COMPLEX', T, async () => {
	const s = new lib.Session(srv);
	const q = `SELECT ${'('.repeat(1000)}1${')'.repeat(1000)}`;
	const r = await s.execute(lib.sqlPlan(q));
	lib.assertSparkError(lib.streamError(r), 'FAILED_TO_PARSE_TOO_COMPLEX',
	    '54001');
});

test('statements and functions Spark SQL lacks fail with error classes', T,
    async () => {
	const s = new lib.Session(srv);
	const cases = [
		["ATTACH DATABASE 'file:/tmp/sctk-never.db?vfs=unix' AS y",
		    'PARSE_SYNTAX_ERROR', '42601'],
		['PRAGMA writable_schema=ON', 'PARSE_SYNTAX_ERROR',
		    '42601'],
		["SELECT fts3_tokenizer('simple')", 'UNRESOLVED_ROUTINE',
		    '42883'],
	];
	for (const [q, cls, state] of cases) {
		const r = await s.execute(lib.sqlPlan(q));
		lib.assertSparkError(lib.streamError(r), cls, state);
		// The same through sql_command.
		const c = await s.execute(lib.sqlCommandPlan(q));
		lib.assertSparkError(lib.streamError(c), cls, state);
	}
});

lib.stopTest(srv);
