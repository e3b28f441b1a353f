// SPDX-License-Identifier: MIT
//
// 48-overflow: integer and interval arithmetic at the edges, from
// DataFrame literals (the plan a client builds, no SQL text).  The
// smallest day-time or year-month interval divided by -1 is Spark's
// ARITHMETIC_OVERFLOW whatever the ANSI mode (IntervalDivide's
// checkDivideOverflow); the smallest long div -1 is ARITHMETIC_OVERFLOW
// with ANSI on and the smallest long again without (Java's division);
// %, pmod and / of the same operands are Spark's values in both modes.
// The server must stay up through all of it.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { df } = lib;
const { lit, fn } = df;
const srv = lib.useServer();
const T = { timeout: 30000 };

const LONG_MIN = -9223372036854775808n;
const INT_MIN = -2147483648;

function set(s, obj) {
	return s.config({ set: { pairs: Object.entries(obj).map(
	    ([key, value]) => ({ key, value })) } });
}

// The one row of a projection without input of exprs.
async function row(s, ...exprs) {
	const r = await s.execute(df.plan(df.project(null, ...exprs)));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	const rows = lib.resultRows(r.responses);
	assert.equal(rows.length, 1);
	return rows[0];
}

async function fails(s, expr, cls, state) {
	const r = await s.execute(df.plan(df.project(null, expr)));
	return lib.assertSparkError(lib.streamError(r), cls, state);
}

const DIVIDE_OVERFLOW = '[ARITHMETIC_OVERFLOW] Overflow in integral ' +
    "divide. Use 'try_divide' to tolerate overflow and return NULL " +
    'instead. If necessary set "spark.sql.ansi.enabled" to "false" to ' +
    'bypass this error. SQLSTATE: 22003';

test('the smallest day-time interval / -1 overflows, in both modes', T,
    async () => {
	const ansi = new lib.Session(srv);
	const legacy = new lib.Session(srv);
	await set(legacy, { 'spark.sql.ansi.enabled': 'false' });
	for (const s of [ansi, legacy]) {
		const e = await fails(s, fn('/',
		    lit({ day_time_interval: String(LONG_MIN) }), lit(-1)),
		'ARITHMETIC_OVERFLOW', '22003');
		assert.equal(e.message, DIVIDE_OVERFLOW);
		await fails(s, fn('/',
		    lit({ day_time_interval: String(LONG_MIN) }),
		    lit(-1n)), 'ARITHMETIC_OVERFLOW', '22003');
		await fails(s, fn('/',
		    lit({ year_month_interval: INT_MIN }), lit(-1)),
		'ARITHMETIC_OVERFLOW', '22003');
		await fails(s, fn('/',
		    lit({ day_time_interval: '86400000000' }), lit(0)),
		'INTERVAL_DIVIDED_BY_ZERO', '22012');
	}
	// One above the smallest divides; the smallest by 1 and 2 too.
	const v = await row(ansi,
	    fn('/', lit({ day_time_interval: String(LONG_MIN + 1n) }),
		lit(-1)),
	    fn('/', lit({ day_time_interval: String(LONG_MIN) }), lit(1)),
	    fn('/', lit({ day_time_interval: String(LONG_MIN) }), lit(2)),
	    fn('/', lit({ year_month_interval: INT_MIN + 1 }), lit(-1)));
	assert.equal(BigInt(v[0]), -(LONG_MIN + 1n));
	assert.equal(BigInt(v[1]), LONG_MIN);
	assert.equal(BigInt(v[2]), LONG_MIN / 2n);
	const m = v[3] instanceof Int32Array ? v[3][0] * 12 + v[3][1] :
	    Number(v[3]);
	assert.equal(m, -(INT_MIN + 1));
});

test('the smallest long div -1: ARITHMETIC_OVERFLOW, or itself without ANSI',
    T, async () => {
	const ansi = new lib.Session(srv);
	const legacy = new lib.Session(srv);
	await set(legacy, { 'spark.sql.ansi.enabled': 'false' });
	const e = await fails(ansi, fn('div', lit(LONG_MIN), lit(-1n)),
	    'ARITHMETIC_OVERFLOW', '22003');
	assert.equal(e.message, DIVIDE_OVERFLOW);
	assert.deepEqual(await row(legacy, fn('div', lit(LONG_MIN), lit(-1n))),
	    [LONG_MIN]);
	// An int is a long to div: no overflow.
	for (const s of [ansi, legacy])
		assert.deepEqual(await row(s, fn('div', lit(INT_MIN), lit(-1)),
		    fn('div', lit(-7), lit(2)), fn('div', lit(LONG_MIN),
			lit(1n))), [2147483648n, -3n, LONG_MIN]);
	await fails(ansi, fn('div', lit(1n), lit(0n)), 'DIVIDE_BY_ZERO',
	    '22012');
	assert.deepEqual(await row(legacy, fn('div', lit(1n), lit(0n))),
	    [null]);
});

test('%, pmod and / of the smallest long and int by -1', T, async () => {
	const ansi = new lib.Session(srv);
	const legacy = new lib.Session(srv);
	await set(legacy, { 'spark.sql.ansi.enabled': 'false' });
	for (const s of [ansi, legacy]) {
		const v = await row(s, fn('%', lit(LONG_MIN), lit(-1n)),
		    fn('%', lit(INT_MIN), lit(-1)),
		    fn('/', lit(LONG_MIN), lit(-1n)),
		    fn('%', lit(LONG_MIN), lit(3n)));
		assert.equal(BigInt(v[0]), 0n);
		assert.equal(Number(v[1]), 0);
		assert.equal(v[2], 9223372036854775808);
		assert.equal(BigInt(v[3]), -2n);
		const p = await row(s, fn('pmod', lit(LONG_MIN), lit(-1n)),
		    fn('pmod', lit(INT_MIN), lit(-1)));
		assert.equal(Number(p[0]), 0);
		assert.equal(Number(p[1]), 0);
	}
});

test('negation and abs of the smallest long follow the ANSI mode', T,
    async () => {
	const ansi = new lib.Session(srv);
	const legacy = new lib.Session(srv);
	await set(legacy, { 'spark.sql.ansi.enabled': 'false' });
	await fails(ansi, fn('negative', lit(LONG_MIN)),
	    'ARITHMETIC_OVERFLOW', '22003');
	await fails(ansi, fn('abs', lit(LONG_MIN)), 'ARITHMETIC_OVERFLOW',
	    '22003');
	assert.deepEqual(await row(legacy, fn('negative', lit(LONG_MIN)),
	    fn('abs', lit(LONG_MIN))), [LONG_MIN, LONG_MIN]);
});

test('the server is still up', T, async () => {
	const s = new lib.Session(srv);
	assert.deepEqual(await row(s, fn('+', lit(1n), lit(1n))), [2n]);
});

lib.stopTest(srv);
