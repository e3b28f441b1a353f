// SPDX-License-Identifier: MIT
//
// 26-functions: functions by Spark's names, with the results Spark's
// functions reference documents in its examples (cited by function
// below): string, date, math and aggregate functions, typeof, and
// builtins that a plan marks user-defined.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { arrow, df } = lib;
const srv = lib.useServer();
const { T } = lib;

const lit = df.lit;
const fn = df.fn;
const col = df.col;

// One row of the given expressions (no input relation).
const row = lib.projectRow;

const day = (v) => v === null ? null :
	new Date(v).toISOString().slice(0, 10);

test('string functions as documented', T, async () => {
	const s = new lib.Session(srv);
	const r = await row(s,
	    fn('lpad', lit('hi'), lit(5), lit('??')), // ???hi
	    fn('rpad', lit('hi'), lit(5), lit('??')), // hi???
	    fn('lpad', lit('hi'), lit(1), lit('??')), // h
	    fn('lpad', lit('hi'), lit(5)), // '   hi'
	    fn('initcap', lit('sPark sql')), // Spark Sql
	    fn('reverse', lit('Spark SQL')), // LQS krapS
	    fn('concat_ws', lit(' '), lit('Spark'), lit({ null: {
		string: {} } }), lit('SQL')), // Spark SQL
	    fn('left', lit('Spark SQL'), lit(3)), // Spa
	    fn('right', lit('Spark SQL'), lit(3)), // SQL
	    fn('ascii', lit('222')), // 50
	    fn('ascii', lit('')), // 0
	    fn('repeat', lit('123'), lit(2)), // 123123
	    fn('locate', lit('bar'), lit('foobarbar')), // 4
	    fn('octet_length', lit('Spark SQL')), // 9
	    fn('bit_length', lit('Spark SQL')), // 72
	    fn('crc32', lit('Spark'))); // 1557323817
	assert.deepEqual(r.values, ['???hi', 'hi???', 'h', '   hi',
		'Spark Sql', 'LQS krapS', 'Spark SQL', 'Spa', 'SQL', 50, 0,
		'123123', 4, 9, 72, 1557323817n]);
	assert.deepEqual(r.fields.map((f) => f[1]), ['Utf8', 'Utf8', 'Utf8',
		'Utf8', 'Utf8', 'Utf8', 'Utf8', 'Utf8', 'Utf8', 'Int32',
		'Int32', 'Utf8', 'Int32', 'Int32', 'Int32', 'Int64']);
});

test('regular expressions: rlike, regexp_replace, regexp_extract, split',
    T, async () => {
	const s = new lib.Session(srv);
	const r = await row(s,
	    fn('regexp_replace', lit('100-200'), lit('(\\d+)'), lit('num')),
	    fn('regexp_replace', lit('2020-01-02'),
		lit('(\\d+)-(\\d+)-(\\d+)'), lit('$3/$2/$1')),
	    fn('regexp_extract', lit('100-200'), lit('(\\d+)-(\\d+)'),
		lit(1)), // 100
	    fn('regexp_extract', lit('foo'), lit('(\\d+)'), lit(1)), // ''
	    fn('rlike', lit('spark'), lit('^sp[a-z]+\\w$')),
	    fn('split', lit('oneAtwoBthreeC'), lit('[ABC]')),
	    fn('split', lit('oneAtwoBthreeC'), lit('[ABC]'), lit(2)),
	    fn('split', lit('a b  c'), lit('\\s+')));
	assert.deepEqual(r.values, ['num-num', '02/01/2020', '100', '', true,
		['one', 'two', 'three', ''], ['one', 'twoBthreeC'],
		['a', 'b', 'c']]);
	assert.deepEqual(r.fields.map((f) => f[1]).slice(4), ['Bool',
		'List<Utf8>', 'List<Utf8>', 'List<Utf8>']);
	const bad = await s.execute(df.plan(df.project(null,
	    fn('rlike', lit('a'), lit('(?i)A')))));
	lib.assertSparkError(lib.streamError(bad),
	    'UNSUPPORTED_FEATURE.REGEXP', '0A000');
});

test('date functions as documented', T, async () => {
	const s = new lib.Session(srv);
	const r = await row(s,
	    fn('date_add', lit('2016-07-30'), lit(1)), // 2016-07-31
	    fn('date_sub', lit('2016-07-30'), lit(1)), // 2016-07-29
	    fn('datediff', lit('2009-07-31'), lit('2009-07-30')), // 1
	    fn('add_months', lit('2016-08-31'), lit(1)), // 2016-09-30
	    fn('last_day', lit('2009-01-12')), // 2009-01-31
	    fn('dayofweek', lit('2009-07-30')), // 5
	    fn('dayofyear', lit('2016-04-09')), // 100
	    fn('weekofyear', lit('2008-02-20')), // 8
	    fn('quarter', lit('2016-08-31')), // 3
	    fn('from_unixtime', lit(0n))); // 1970-01-01 00:00:00 (UTC)
	const v = r.values;
	assert.deepEqual([day(v[0]), day(v[1]), v[2], day(v[3]), day(v[4]),
		v[5], v[6], v[7], v[8], v[9]],
	['2016-07-31', '2016-07-29', 1, '2016-09-30', '2009-01-31', 5, 100,
		8, 3, '1970-01-01 00:00:00']);
	assert.equal(r.fields[0][1], 'Date32<DAY>');
	// add_months keeps the day or clamps it to the month's last.
	const leap = await row(s, fn('add_months', lit('2020-01-31'),
	    lit(1)), fn('add_months', lit('2020-03-15'), lit(-14)));
	assert.deepEqual(leap.values.map(day), ['2020-02-29', '2019-01-15']);
});

test('date_format, to_date and to_timestamp with patterns', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await row(s,
	    fn('date_format', lit('2016-04-08'), lit('y')), // 2016
	    fn('date_format', lit('2024-02-29 13:05:09.12'),
		lit('EEE, d MMM yyyy HH:mm:ss.SSS a \'at\' hh')),
	    fn('to_date', lit('31/12/2016'), lit('dd/MM/yyyy')),
	    fn('to_timestamp', lit('2016-12-31 10:11'),
		lit('yyyy-MM-dd HH:mm')));
	assert.deepEqual(r.values.slice(0, 2), ['2016',
		'Thu, 29 Feb 2024 13:05:09.120 PM at 01']);
	assert.equal(day(r.values[2]), '2016-12-31');
	const ts = r.values[3];
	assert.equal(new Date(typeof ts === 'bigint' ? Number(ts / 1000n) :
	    Number(ts)).toISOString(), '2016-12-31T10:11:00.000Z');
	assert.deepEqual(r.fields.map((f) => f[1]), ['Utf8', 'Utf8',
		'Date32<DAY>', 'Timestamp<MICROSECOND, UTC>']);
	const bad = await s.execute(df.plan(df.project(null,
	    fn('to_date', lit('2021-02-30'), lit('yyyy-MM-dd')))));
	lib.assertSparkError(lib.streamError(bad), 'CANNOT_PARSE_TIMESTAMP',
	    '22007');
});

test('pmod is positive; by zero it fails under ANSI', T, async () => {
	const s = new lib.Session(srv);
	const r = await row(s, fn('pmod', lit(10), lit(3)),
	    fn('pmod', lit(-10), lit(3)));
	assert.deepEqual(r.values, [1, 2]);
	assert.equal(r.fields[0][1], 'Int32');
	const e = await s.execute(df.plan(df.project(null,
	    fn('pmod', lit(10), lit(0)))));
	lib.assertSparkError(lib.streamError(e), 'DIVIDE_BY_ZERO', '22012');
});

test('aggregates: variance family, count_if, bool_and/or, collect', T,
    async () => {
	const s = new lib.Session(srv);
	const t = df.local(new arrow.Table({
		g: arrow.vectorFromArray(['a', 'a', 'a', 'a', 'b'],
		    new arrow.Utf8()),
		x: arrow.vectorFromArray([1, 2, 3, 4, 5], new arrow.Int32()),
		f: arrow.vectorFromArray([true, true, false, null, true],
		    new arrow.Bool()),
	}));
	const r = await s.execute(df.plan({ aggregate: { input: t,
		group_type: 'GROUP_TYPE_GROUPBY',
		grouping_expressions: [df.col('g')],
		aggregate_expressions: [
			fn('stddev', df.col('x')), fn('var_pop', df.col('x')),
			fn('variance', df.col('x')),
			fn('stddev_pop', df.col('x')),
			fn('count_if', fn('>', df.col('x'), lit(1))),
			fn('bool_and', df.col('f')), fn('bool_or', df.col('f')),
			fn('collect_list', df.col('x')),
			fn('collect_set', df.col('g'))] } }));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	const rows = lib.resultRows(r.responses).sort((p, q) =>
		p[0] < q[0] ? -1 : 1);
	// var_samp(1,2,3,4) = 5/3; one row: the sample forms are NULL.
	assert.deepEqual(rows, [
		['a', Math.sqrt(5 / 3), 1.25, 5 / 3, Math.sqrt(1.25), 3n,
			false, true, [1, 2, 3, 4], ['a']],
		['b', null, 0, null, 0, 1n, true, true, [5], ['b']]]);
	assert.deepEqual(lib.resultFields(r.responses).slice(1).map((f) =>
		[f[0], f[1]]), [
		['stddev(x)', 'Float64'], ['var_pop(x)', 'Float64'],
		['variance(x)', 'Float64'], ['stddev_pop(x)', 'Float64'],
		['count_if((x > 1))', 'Int64'], ['bool_and(f)', 'Bool'],
		['bool_or(f)', 'Bool'], ['collect_list(x)', 'List<Int32>'],
		['collect_set(g)', 'List<Utf8>']]);
});

test('first, last, max_by, min_by, percentile, median, ' +
    'percentile_approx', T, async () => {
	const s = new lib.Session(srv);
	const t = df.local(new arrow.Table({
		k: arrow.vectorFromArray(['a', 'b', 'c', 'd'], new arrow.Utf8()),
		x: arrow.vectorFromArray([null, 10, 30, 20], new arrow.Int32()),
	}));
	const r = await s.execute(df.plan({ aggregate: { input: t,
		group_type: 'GROUP_TYPE_GROUPBY', grouping_expressions: [],
		aggregate_expressions: [
			fn('first', col('x')), fn('first', col('x'), lit(true)),
			fn('last', col('k')), fn('max_by', col('k'), col('x')),
			fn('min_by', col('k'), col('x')),
			fn('percentile', col('x'), lit(0.5)),
			fn('median', col('x')),
			fn('percentile_approx', col('x'), lit(0.5),
			    lit(10000))] } }));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	// first keeps the leading null unless told to skip nulls; the
	// largest x, 30, is c's; 10, 20, 30 have 20 in the middle.
	assert.deepEqual(lib.resultRows(r.responses), [[null, 10, 'd', 'c',
		'b', 20, 20, 20]]);
	assert.deepEqual(lib.resultFields(r.responses).map((f) => f[1]),
	    ['Int32', 'Int32', 'Utf8', 'Utf8', 'Utf8', 'Float64', 'Float64',
		'Int32']);
});

test('array functions as documented', T, async () => {
	const s = new lib.Session(srv);
	const nullInt = lit({ null: { integer: {} } });
	const nullStr = lit({ null: { string: {} } });
	const ints = (...v) => fn('array', ...v.map((x) => x === null ?
	    nullInt : lit(x)));
	const strs = (...v) => fn('array', ...v.map((x) => x === null ?
	    nullStr : lit(x)));
	const r = await row(s,
	    fn('array_distinct', ints(1, 2, 3, null, 3)), // [1,2,3,null]
	    fn('sort_array', strs('b', 'd', null, 'c', 'a'), lit(true)),
	    fn('sort_array', strs('b', 'd', null, 'c', 'a'), lit(false)),
	    fn('array_sort', strs('b', 'd', null, 'c', 'a')),
	    fn('array_remove', ints(1, 2, 3, null, 3), lit(3)), // [1,2,null]
	    fn('slice', ints(1, 2, 3, 4), lit(2), lit(2)), // [2,3]
	    fn('slice', ints(1, 2, 3, 4), lit(-2), lit(2)), // [3,4]
	    fn('array_max', ints(1, 20, null, 3)), // 20
	    fn('array_min', ints(1, 20, null, 3)), // 1
	    fn('array_position', ints(312, 773, 708, 708), lit(708)), // 3
	    fn('array_join', strs('hello', null, 'world'), lit(' ')),
	    fn('array_join', strs('hello', null, 'world'), lit(' '),
		lit(',')), // hello , world
	    fn('flatten', fn('array', ints(1, 2), ints(3, 4))),
	    fn('sequence', lit(1), lit(5)), // [1,2,3,4,5]
	    fn('sequence', lit(5), lit(1)), // [5,4,3,2,1]
	    fn('array_repeat', lit('123'), lit(2)), // ["123","123"]
	    fn('concat', ints(1, 2, 3), ints(4, 5), ints(6)));
	assert.deepEqual(r.values, [[1, 2, 3, null],
		[null, 'a', 'b', 'c', 'd'], ['d', 'c', 'b', 'a', null],
		['a', 'b', 'c', 'd', null], [1, 2, null], [2, 3], [3, 4], 20, 1,
		3n, 'hello world', 'hello , world', [1, 2, 3, 4],
		[1, 2, 3, 4, 5], [5, 4, 3, 2, 1], ['123', '123'],
		[1, 2, 3, 4, 5, 6]]);
	assert.deepEqual(r.fields.map((f) => f[1]).slice(7, 11), ['Int32',
		'Int32', 'Int64', 'Utf8']);
});

test('typeof names the static type; marked user-defined builtins ' +
    'resolve', T, async () => {
	const s = new lib.Session(srv);
	const r = await row(s, fn('typeof', lit(1)),
	    fn('typeof', fn('array', lit(1n))),
	    fn('typeof', fn('named_struct', lit('a'), lit('x'))),
	    { unresolved_function: { function_name: 'upper',
		arguments: [lit('x')], is_user_defined_function: true } });
	assert.deepEqual(r.values, ['int', 'array<bigint>',
		'struct<a:string>', 'X']);
	const bad = await s.execute(df.plan(df.project(null,
	    fn('no_such_fn', lit(1)))));
	lib.assertSparkError(lib.streamError(bad), 'UNRESOLVED_ROUTINE',
	    '42883');
});

test('trunc and date_trunc as documented', T, async () => {
	const s = new lib.Session(srv);
	const d = (y, m, dd) => lit({ date: Date.UTC(y, m - 1, dd) / 864e5 });
	const ts = lit({ timestamp: String(Date.UTC(2015, 2, 5, 9, 32, 5,
	    359) * 1000) });
	const r = await row(s, fn('trunc', d(2019, 8, 4), lit('week')),
	    fn('trunc', d(2019, 8, 4), lit('quarter')),
	    fn('trunc', d(2009, 2, 12), lit('MM')),
	    fn('trunc', d(2015, 10, 27), lit('YEAR')),
	    fn('trunc', d(2015, 10, 27), lit('x')),
	    fn('date_trunc', lit('YEAR'), ts), fn('date_trunc', lit('MM'), ts),
	    fn('date_trunc', lit('DD'), ts), fn('date_trunc', lit('HOUR'), ts),
	    fn('date_trunc', lit('week'), ts));
	assert.deepEqual(r.values.slice(0, 5).map(day), ['2019-07-29',
		'2019-07-01', '2009-02-01', '2015-01-01', null]);
	assert.deepEqual(r.values.slice(5).map((v) =>
	    new Date(Number(v)).toISOString()), ['2015-01-01T00:00:00.000Z',
		'2015-03-01T00:00:00.000Z', '2015-03-05T00:00:00.000Z',
		'2015-03-05T09:00:00.000Z', '2015-03-02T00:00:00.000Z']);
	assert.deepEqual(r.fields.map((f) => f[1]).slice(4, 6), ['Date32<DAY>',
		'Timestamp<MICROSECOND, UTC>']);
});

test('width_bucket as documented', T, async () => {
	const s = new lib.Session(srv);
	const r = await row(s,
	    fn('width_bucket', lit(5.3), lit(0.2), lit(10.6), lit(5)),
	    fn('width_bucket', lit(-2.1), lit(1.3), lit(3.4), lit(3)),
	    fn('width_bucket', lit(8.1), lit(0.0), lit(5.7), lit(4)),
	    fn('width_bucket', lit(-0.9), lit(5.2), lit(0.5), lit(2)),
	    fn('width_bucket', lit(1), lit(1), lit(1), lit(2)),
	    fn('width_bucket', lit(1), lit(0), lit(2), lit(0)));
	assert.deepEqual(r.values, [3n, 0n, 5n, 3n, null, null]);
	assert.equal(r.fields[0][1], 'Int64');
});

lib.stopTest(srv);
