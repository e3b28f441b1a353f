// SPDX-License-Identifier: MIT
//
// 41-rand-seed: rand(seed) and randn(seed) give Spark's numbers for a
// one-partition plan.  The expected values are the examples of PySpark's
// function reference: spark.range(0, 2, 1, 1) with rand(seed=42) * 3 shows
// 1.8575681106759028 and 1.5288056527339444, and with randn(seed=42)
// 2.384479054241165 and 0.1920934041293524.  PySpark always sends a seed
// (a random one when the user gives none), so without this every rand()
// of a PySpark program was refused.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { df } = lib;
const srv = lib.useServer();
const { T } = lib;

const range = (end) => ({ range: { start: '0', end: String(end),
	step: '1' } });

async function rows(s, plan) {
	const r = await s.execute(plan);
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return { rows: lib.resultRows(r.responses),
		fields: lib.resultFields(r.responses) };
}

test('rand(seed=42) * 3 over range(0, 2) is the documented column', T,
    async () => {
	const s = new lib.Session(srv);
	const got = await rows(s, df.plan(df.project(range(2), df.col('id'),
	    df.alias(df.fn('*', df.fn('rand', df.lit(42n)), df.lit(3)),
		'rand'))));
	assert.deepEqual(got.rows, [[0n, 1.8575681106759028],
		[1n, 1.5288056527339444]]);
	assert.deepEqual(got.fields, [['id', 'Int64', false],
		['rand', 'Float64', false]]);
});

test('randn(seed=42) over range(0, 2) is the documented column', T,
    async () => {
	const s = new lib.Session(srv);
	const got = await rows(s, df.plan(df.project(range(2),
	    df.fn('randn', df.lit(42n)))));
	assert.deepEqual(got.rows, [[2.384479054241165],
		[0.1920934041293524]]);
	assert.deepEqual(got.fields, [['randn(42)', 'Float64', false]]);
});

test('the same seed gives the same numbers; an int seed equals a bigint ' +
    'one', T, async () => {
	const s = new lib.Session(srv);
	const q = 'SELECT rand(7) AS a, randn(7) AS b FROM range(1000)';
	const one = await rows(s, lib.sqlPlan(q));
	const two = await rows(s, lib.sqlPlan(q));
	assert.equal(one.rows.length, 1000);
	assert.deepEqual(one.rows, two.rows);
	const asInt = await rows(s, df.plan(df.project(range(1000),
	    df.fn('rand', df.lit(7)))));
	assert.deepEqual(asInt.rows.map((r) => r[0]),
	    one.rows.map((r) => r[0]));
	// Uniform in [0, 1): the mean of 1000 draws is near 0.5, and the
	// Gaussian's near 0 (both well inside 6 standard errors).
	const mean = (v) => v.reduce((x, y) => x + y, 0) / v.length;
	const u = one.rows.map((r) => r[0]), g = one.rows.map((r) => r[1]);
	assert.ok(u.every((v) => v >= 0 && v < 1));
	assert.ok(Math.abs(mean(u) - 0.5) < 6 * Math.sqrt(1 / 12 / 1000));
	assert.ok(Math.abs(mean(g)) < 6 / Math.sqrt(1000));
});

test('two rand(42) in one query draw each from its own generator', T,
    async () => {
	const s = new lib.Session(srv);
	const got = await rows(s, lib.sqlPlan(
	    'SELECT rand(42) AS a, rand(42) AS b FROM range(2)'));
	assert.deepEqual(got.rows, [[0.619189370225301, 0.619189370225301],
		[0.5096018842446481, 0.5096018842446481]]);
});

test('a seed that is not an integer is DATATYPE_MISMATCH', T, async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(lib.sqlPlan("SELECT rand('x')"));
	lib.assertSparkError(lib.streamError(r),
	    'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE', '42K09');
});

lib.stopTest(srv);
