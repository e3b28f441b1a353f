// SPDX-License-Identifier: MIT
//
// 46-math-more: cbrt, the hyperbolic and reciprocal trigonometric
// functions, log1p, expm1, hypot, rint, e(), factorial, the try_
// arithmetic and the bitwise functions, with the values of the examples
// in Spark's SQL function reference (math and bitwise pages) plus NULL,
// NaN and overflow cases, their Arrow types and Spark's column names.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');
const arrow = require('apache-arrow');

const { df } = lib;
const srv = lib.useServer();
const { T } = lib;

const lit = df.lit;
const fn = df.fn;
const nullInt = () => lit({ null: { integer: {} } });
const long = (v) => lit({ long: v });
const dbl = (v) => lit({ double: v });

const row = lib.projectRow;

const fails = lib.projectFails;

test('math functions: Spark reference examples, names and types', T,
    async () => {
	const s = new lib.Session(srv);
	// cbrt(27.0) 3.0; cosh(0) 1.0; sinh(0) 0.0; tanh(0) 0.0;
	// acosh(1) 0.0; asinh(0) 0.0; atanh(0) 0.0; cot(1)
	// 0.6420926159343306; csc(1) 1.1883951057781212; sec(0) 1.0;
	// log1p(0) 0.0; expm1(0) 0.0; hypot(3, 4) 5.0; rint(12.3456) 12.0;
	// e() 2.718281828459045; factorial(5) 120.
	const r = await row(s, fn('cbrt', dbl(27)), fn('cosh', lit(0)),
	    fn('sinh', lit(0)), fn('tanh', lit(0)), fn('acosh', lit(1)),
	    fn('asinh', lit(0)), fn('atanh', lit(0)), fn('cot', lit(1)),
	    fn('csc', lit(1)), fn('sec', lit(0)), fn('log1p', lit(0)),
	    fn('expm1', lit(0)), fn('hypot', lit(3), lit(4)),
	    fn('rint', lit(12.3456)), fn('e'), fn('factorial', lit(5)));
	assert.deepEqual(r.values.map((v) => typeof v === 'bigint' ?
	    Number(v) : v), [3, 1, 0, 0, 0, 0, 0, 0.6420926159343306,
		1.1883951057781212, 1, 0, 0, 5, 12, 2.718281828459045, 120]);
	assert.deepEqual(r.fields.map((f) => f[0]), ['CBRT(27.0)', 'COSH(0)',
		'SINH(0)', 'TANH(0)', 'ACOSH(1)', 'ASINH(0)', 'ATANH(0)',
		'COT(1)', 'CSC(1)', 'SEC(0)', 'LOG1P(0)', 'EXPM1(0)',
		'HYPOT(3, 4)', 'rint(12.3456)', 'E()', 'factorial(5)']);
	assert.deepEqual(r.fields.map((f) => f[1]),
	    [...Array(15).fill('Float64'), 'Int64']);
});

test('math functions: NaN, NULL, log1p below -1, rint to even', T,
    async () => {
	const s = new lib.Session(srv);
	// acosh(0) and atanh(2) are NaN in Spark's reference.
	const r = await row(s, fn('acosh', lit(0)), fn('atanh', lit(2)),
	    fn('log1p', lit(-1)), fn('log1p', lit(-2)),
	    fn('cbrt', nullInt()), fn('hypot', lit(3), nullInt()),
	    fn('rint', lit(2.5)), fn('rint', lit(-3.5)),
	    fn('cbrt', fn('acosh', lit(0))), fn('cbrt', lit(-8)), fn('cbrt', dbl(1e-300)),
	    fn('cbrt', dbl(64)));
	assert.ok(Number.isNaN(r.values[0]));
	assert.ok(Number.isNaN(r.values[1]));
	assert.deepEqual(r.values.slice(2, 8), [null, null, null, null, 2,
		-4]);
	assert.ok(Number.isNaN(r.values[8]));
	assert.deepEqual(r.values.slice(9), [-2, 1e-100, 4]);
	// overflow to infinity stays infinite; asinh(-inf) is -inf.
	const inf = await row(s, fn('cosh', dbl(1000)), fn('atanh', lit(1)),
	    fn('expm1', dbl(1000)), fn('asinh', fn('negative', fn('cosh', dbl(1000)))),
	    fn('try_multiply', dbl(1e308), dbl(10)));
	assert.deepEqual(inf.values, [Infinity, Infinity, Infinity, -Infinity,
		Infinity]);
});

test('factorial: 0..20, else NULL', T, async () => {
	const s = new lib.Session(srv);
	const r = await row(s, fn('factorial', lit(0)),
	    fn('factorial', lit(20)), fn('factorial', lit(21)),
	    fn('factorial', lit(-1)), fn('factorial', nullInt()));
	assert.deepEqual(r.values.map((v) => v === null ? null : String(v)),
	    ['1', '2432902008176640000', null, null, null]);
});

test('try_ arithmetic: reference examples, NULL on overflow', T,
    async () => {
	const s = new lib.Session(srv);
	// try_add(1, 2) 3; try_add(2147483647, 1) NULL; try_subtract(2, 1)
	// 1; try_subtract(-2147483648, 1) NULL; try_multiply(2, 3) 6;
	// try_multiply(-2147483648, 10) NULL; try_divide(3, 2) 1.5;
	// try_divide(2L, 2L) 1.0; try_divide(1, 0) NULL; try_mod(3, 2) 1;
	// try_mod(2L, 2L) 0; try_mod(3.0, 2.0) 1.0; try_mod(1, 0) NULL.
	const r = await row(s, fn('try_add', lit(1), lit(2)),
	    fn('try_add', lit(2147483647), lit(1)),
	    fn('try_subtract', lit(2), lit(1)),
	    fn('try_subtract', lit(-2147483648), lit(1)),
	    fn('try_multiply', lit(2), lit(3)),
	    fn('try_multiply', lit(-2147483648), lit(10)),
	    fn('try_divide', lit(3), lit(2)),
	    fn('try_divide', long(2), long(2)),
	    fn('try_divide', lit(1), lit(0)),
	    fn('try_mod', lit(3), lit(2)), fn('try_mod', long(2), long(2)),
	    fn('try_mod', dbl(3), dbl(2)), fn('try_mod', lit(1), lit(0)));
	assert.deepEqual(r.values.map((v) => typeof v === 'bigint' ?
	    Number(v) : v), [3, null, 1, null, 6, null, 1.5, 1, null, 1, 0,
		1, null]);
	assert.deepEqual(r.fields.map((f) => f[1]), ['Int32', 'Int32',
		'Int32', 'Int32', 'Int32', 'Int32', 'Float64', 'Float64',
		'Float64', 'Int32', 'Int64', 'Float64', 'Int32']);
	assert.equal(r.fields[0][0], 'try_add(1, 2)');
	assert.equal(r.fields[6][0], 'try_divide(3, 2)');
});

test('try_ arithmetic: long overflow, int widened, NULL operand', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await row(s,
	    fn('try_add', long('9223372036854775807'), lit(1)),
	    fn('try_add', lit(2147483647), long(1)),
	    fn('try_multiply', long('-9223372036854775808'), long(-1)),
	    fn('try_mod', long('-9223372036854775808'), long(-1)),
	    fn('try_add', lit(1), nullInt()), fn('try_divide', lit(1.5),
		dbl(0)));
	assert.deepEqual(r.values.map((v) => v === null ? null : String(v)),
	    [null, '2147483648', null, '0', null, null]);
	assert.deepEqual(r.fields.map((f) => f[1]).slice(0, 2),
	    ['Int64', 'Int64']);
});

test('a decimal, date or string operand is refused by name', T, async () => {
	const s = new lib.Session(srv);
	await fails(s, fn('try_add', lit({ decimal: { value: '1.5',
		precision: 2, scale: 1 } }), lit(1)),
	'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
	await fails(s, fn('try_subtract', lit({ date: 19000 }), lit(1)),
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
	// a string operand is refused, not read as 0
	await fails(s, fn('cosh', lit('abc')), 'UNSUPPORTED_FEATURE.EXPRESSION',
	    '0A000');
	await fails(s, fn('factorial', lit(5.5)),
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
});

test('bitwise: reference examples and Java int/long semantics', T,
    async () => {
	const s = new lib.Session(srv);
	// bit_count(0) 0; shiftleft(2, 1) 4; shiftright(4, 1) 2;
	// shiftrightunsigned(4, 1) 2; ~ 0 -1.
	const r = await row(s, fn('bit_count', lit(0)),
	    fn('shiftleft', lit(2), lit(1)), fn('shiftright', lit(4), lit(1)),
	    fn('shiftrightunsigned', lit(4), lit(1)),
	    fn('bitwise_not', lit(0)), fn('bit_count', lit(-1)),
	    fn('shiftleft', lit(1), lit(31)), fn('shiftleft', lit(1), lit(32)),
	    fn('shiftright', lit(-8), lit(1)),
	    fn('shiftrightunsigned', lit(-8), lit(28)),
	    fn('shiftrightunsigned', long(-8), lit(60)),
	    fn('shiftleft', long(1), lit(63)),
	    fn('shiftleft', nullInt(), lit(1)));
	assert.deepEqual(r.values.map((v) => v === null ? null : String(v)),
	    ['0', '4', '2', '2', '-1', '64', '-2147483648', '1', '-4', '15',
		'15', '-9223372036854775808', null]);
	assert.deepEqual(r.fields.map((f) => f[1]).slice(0, 12), ['Int32',
		'Int32', 'Int32', 'Int32', 'Int32', 'Int32', 'Int32', 'Int32',
		'Int32', 'Int32', 'Int64', 'Int64']);
	assert.deepEqual(r.fields.map((f) => f[0]).slice(0, 5),
	    ['bit_count(0)', 'shiftleft(2, 1)', 'shiftright(4, 1)',
		'shiftrightunsigned(4, 1)', '~0']);
});

// One aggregate row over a local relation of x (an Arrow vector).
async function agg(s, vec, ...exprs) {
	const t = df.local(new arrow.Table({ x: vec }));
	const r = await s.execute(df.plan({ aggregate: { input: t,
		group_type: 'GROUP_TYPE_GROUPBY', grouping_expressions: [],
		aggregate_expressions: exprs } }));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return { values: lib.resultRows(r.responses)[0],
		fields: lib.resultFields(r.responses) };
}

const ints = (v) => arrow.vectorFromArray(v, new arrow.Int32());
const longs = (v) => arrow.vectorFromArray(v, new arrow.Int64());
const x = df.col('x');

test('skewness and kurtosis: Spark reference examples', T, async () => {
	const s = new lib.Session(srv);
	// skewness of -10, -20, 100, 1000 is 1.1135657469022011 (and of
	// -1000, -100, 10, 20 its negative); kurtosis of them is
	// -0.7014368047529627, of 1, 10, 100, 10, 1 0.19432323191699075.
	// Spark's answers depend in their last digits on how the rows are
	// split into partitions (those figures merge two of two rows, or of
	// two and three); sc-serve gives Spark's answer for one partition.
	let r = await agg(s, ints([-10, -20, 100, 1000]), fn('skewness', x),
	    fn('kurtosis', x));
	assert.equal(r.values[0], 1.1135657469022011);
	assert.equal(r.values[1], -0.7014368047529609);
	assert.ok(Math.abs(r.values[1] - -0.7014368047529627) < 1e-14);
	assert.deepEqual(r.fields.map((f) => [f[0], f[1]]),
	    [['skewness(x)', 'Float64'], ['kurtosis(x)', 'Float64']]);
	r = await agg(s, ints([-1000, -100, 10, 20]), fn('skewness', x));
	assert.equal(r.values[0], -1.113565746902201);
	assert.ok(Math.abs(r.values[0] - -1.1135657469022011) < 1e-14);
	r = await agg(s, ints([1, 10, 100, 10, 1]), fn('kurtosis', x));
	assert.equal(r.values[0], 0.19432323191698986);
	assert.ok(Math.abs(r.values[0] - 0.19432323191699075) < 1e-14);
	// one row: the second moment is 0, NULL; no rows: NULL.
	r = await agg(s, ints([7, null]), fn('skewness', x),
	    fn('kurtosis', x));
	assert.deepEqual(r.values, [null, null]);
	r = await agg(s, ints([null]), fn('kurtosis', x));
	assert.deepEqual(r.values, [null]);
});

test('product, bit_and, bit_or, bit_xor: reference examples', T,
    async () => {
	const s = new lib.Session(srv);
	// product of 1, 2, 3 is 6.0; bit_and of 3, 5 is 1, bit_or 7,
	// bit_xor 6.
	let r = await agg(s, ints([1, 2, null, 3]), fn('product', x));
	assert.deepEqual(r.values, [6]);
	assert.deepEqual(r.fields.map((f) => [f[0], f[1]]),
	    [['product(x)', 'Float64']]);
	r = await agg(s, ints([3, null, 5]), fn('bit_and', x),
	    fn('bit_or', x), fn('bit_xor', x));
	assert.deepEqual(r.values, [1, 7, 6]);
	assert.deepEqual(r.fields.map((f) => [f[0], f[1]]),
	    [['bit_and(x)', 'Int32'], ['bit_or(x)', 'Int32'],
		['bit_xor(x)', 'Int32']]);
	r = await agg(s, longs([-1n, -3n]), fn('bit_and', x),
	    fn('bit_xor', x));
	assert.deepEqual(r.values, [-3n, 2n]);
	assert.equal(r.fields[0][1], 'Int64');
	r = await agg(s, ints([null]), fn('bit_or', x), fn('product', x));
	assert.deepEqual(r.values, [null, null]);
});

test('try_sum and try_avg: reference examples, NULL on overflow', T,
    async () => {
	const s = new lib.Session(srv);
	// try_sum of 5, 10, 15 is 30; of NULL, 10, 15 25; of NULLs NULL;
	// of 9223372036854775807L, 1L NULL.  try_avg of 1, 2, 3 is 2.0; of
	// 1, 2, NULL 1.5.
	let r = await agg(s, ints([5, 10, 15]), fn('try_sum', x),
	    fn('try_avg', x));
	assert.deepEqual(r.values, [30n, 10]);
	assert.deepEqual(r.fields.map((f) => [f[0], f[1]]),
	    [['try_sum(x)', 'Int64'], ['try_avg(x)', 'Float64']]);
	r = await agg(s, ints([null, 10, 15]), fn('try_sum', x));
	assert.deepEqual(r.values, [25n]);
	r = await agg(s, ints([null, null]), fn('try_sum', x),
	    fn('try_avg', x));
	assert.deepEqual(r.values, [null, null]);
	r = await agg(s, longs([9223372036854775807n, 1n, -5n]),
	    fn('try_sum', x));
	assert.deepEqual(r.values, [null]);
	r = await agg(s, ints([1, 2, null]), fn('try_avg', x));
	assert.deepEqual(r.values, [1.5]);
	r = await agg(s, arrow.vectorFromArray([0.5, 1.25],
	    new arrow.Float64()), fn('try_sum', x), fn('try_avg', x));
	assert.deepEqual(r.values, [1.75, 0.875]);
	assert.equal(r.fields[0][1], 'Float64');
});

async function sqlRows(s, q) {
	const r = await s.execute(lib.sqlPlan(q));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return lib.resultRows(r.responses);
}

test('SQL text: the aggregates in HAVING and with FILTER', T, async () => {
	const s = new lib.Session(srv);
	let rows = await sqlRows(s, 'SELECT col % 2 AS k, product(col) AS p ' +
	    'FROM VALUES (3), (5), (4) AS tab(col) GROUP BY col % 2 ' +
	    'HAVING try_sum(col) > 4 ORDER BY k');
	assert.deepEqual(rows, [[1, 15]]);
	rows = await sqlRows(s, 'SELECT try_avg(col) FILTER (WHERE col > 3) AS a, ' +
	    'skewness(col) FILTER (WHERE col > 9) AS b ' +
	    'FROM VALUES (3), (5), (4) AS tab(col)');
	assert.deepEqual(rows, [[4.5, null]]);
});

lib.stopTest(srv);
