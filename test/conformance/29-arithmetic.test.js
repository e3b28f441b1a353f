// SPDX-License-Identifier: MIT
//
// 29-arithmetic: Spark's ANSI arithmetic (its default, and the only
// mode sc-serve allows): division and remainder by zero and integer
// overflow fail by name, decimal arithmetic has Spark's result types,
// div is integral, round is HALF_UP and bround HALF_EVEN on decimals,
// and a NaN result (sqrt(-1)) stays NaN instead of turning NULL.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { df } = lib;
const srv = lib.useServer();
const { T } = lib;

const lit = df.lit;
const fn = df.fn;
const dec = (value, precision, scale) =>
	lit({ decimal: { value, precision, scale } });

// A decimal's unscaled value as text (resultRows gives its JSON form).
const unscaled = (v) => typeof v === 'number' ? String(v) :
	Object.values(v).join('').replace(/"/g, '');

const row = lib.projectRow;

const fails = lib.projectFails;

test('division and remainder by zero fail with DIVIDE_BY_ZERO', T,
    async () => {
	const s = new lib.Session(srv);
	await fails(s, fn('/', lit(1), lit(0)), 'DIVIDE_BY_ZERO', '22012');
	await fails(s, fn('%', lit(7), lit(0)), 'DIVIDE_BY_ZERO', '22012');
	await fails(s, fn('/', lit(1.5), lit(0.0)), 'DIVIDE_BY_ZERO',
	    '22012');
	await fails(s, fn('div', lit(7), lit(0)), 'DIVIDE_BY_ZERO', '22012');
	const r = await row(s, fn('/', lit(7), lit(2)), fn('%', lit(-7),
	    lit(2)), fn('%', lit(7.5), lit(2)));
	assert.deepEqual(r.values, [3.5, -1, 1.5]);
});

test('integer arithmetic stays int and overflows by name', T, async () => {
	const s = new lib.Session(srv);
	const r = await row(s, fn('*', lit(25), lit(2)),
	    fn('+', lit(2147483646), lit(1)));
	assert.deepEqual(r.values, [50, 2147483647]);
	assert.deepEqual(r.fields.map((f) => f[1]), ['Int32', 'Int32']);
	await fails(s, fn('+', lit(2147483647), lit(1)),
	    'ARITHMETIC_OVERFLOW', '22003');
	await fails(s, fn('*', lit(9223372036854775807n), lit(2n)),
	    'ARITHMETIC_OVERFLOW', '22003');
	await fails(s, fn('-', lit(-2147483648), lit(1)),
	    'ARITHMETIC_OVERFLOW', '22003');
});

test('div is integral division, a bigint', T, async () => {
	const s = new lib.Session(srv);
	const r = await row(s, fn('div', lit(7), lit(2)),
	    fn('div', lit(-7), lit(2)), fn('div', dec('7.5', 2, 1), lit(2)));
	assert.deepEqual(r.values, [3n, -3n, 3n]);
	assert.deepEqual(r.fields.map((f) => f[0]), ['(7 div 2)',
		'(-7 div 2)', '(7.5 div 2)']);
	assert.deepEqual(r.fields.map((f) => f[1]), ['Int64', 'Int64',
		'Int64']);
});

test('decimal arithmetic has Spark\'s result types', T, async () => {
	const s = new lib.Session(srv);
	const r = await row(s,
	    fn('*', dec('2.5', 2, 1), lit(2)), // decimal(13,1)
	    fn('+', dec('2.5', 2, 1), dec('1.25', 3, 2)), // decimal(4,2)
	    fn('-', dec('2.5', 2, 1), lit(1n)), // decimal(22,1)
	    fn('/', dec('1.0', 2, 1), lit(3)), // decimal(13,12)
	    fn('%', dec('7.5', 2, 1), lit(2))); // decimal(2,1)
	assert.deepEqual(r.fields.map((f) => f[1]), ['Decimal[13e+1]',
		'Decimal[4e+2]', 'Decimal[22e+1]', 'Decimal[13e+12]',
		'Decimal[2e+1]']);
	assert.deepEqual(r.values.map(unscaled), ['50', '375', '15',
		'333333333333', '15']);
});

test('round is HALF_UP, bround HALF_EVEN; a decimal keeps its type', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await row(s, fn('round', dec('2.5', 2, 1)),
	    fn('bround', dec('2.5', 2, 1)), fn('round', dec('-2.5', 2, 1)),
	    fn('bround', dec('-3.5', 2, 1)), fn('bround', lit(0.125),
		lit(2)), fn('round', dec('123.456', 6, 3), lit(-1)));
	assert.deepEqual(r.values.map(unscaled), ['3', '2', '-3', '-4',
		'0.12', '120']);
	assert.deepEqual(r.fields.map((f) => f[0]), ['round(2.5, 0)',
		'bround(2.5, 0)', 'round(-2.5, 0)', 'bround(-3.5, 0)',
		'bround(0.125, 2)', 'round(123.456, -1)']);
	assert.deepEqual(r.fields.map((f) => f[1]), ['Decimal[2e0]',
		'Decimal[2e0]', 'Decimal[2e0]', 'Decimal[2e0]', 'Float64',
		'Decimal[4e0]']);
});

test('NaN results are NaN, not NULL', T, async () => {
	const s = new lib.Session(srv);
	const r = await row(s, fn('sqrt', lit(-1)), fn('sqrt', lit(4)),
	    fn('asin', lit(2)), fn('pow', lit(-8), lit(1 / 3)),
	    fn('sqrt', lit({ null: { integer: {} } })));
	assert.ok(Number.isNaN(r.values[0]));
	assert.equal(r.values[1], 2);
	assert.ok(Number.isNaN(r.values[2]));
	assert.ok(Number.isNaN(r.values[3]));
	assert.equal(r.values[4], null);
	assert.deepEqual(r.fields.map((f) => f[0]).slice(0, 4), ['SQRT(-1)',
		'SQRT(4)', 'ASIN(2)', 'POWER(-8, 0.3333333333333333)']);
});

lib.stopTest(srv);
