// SPDX-License-Identifier: MIT
//
// 27-windows: window functions (ranking, lag/lead, aggregates over
// partitions and ROWS frames) with Spark's column names, and rollup,
// cube, grouping sets with grouping_id, and pivot with and without
// values (missing combinations are null, as Spark's pivot gives).

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { arrow, df } = lib;
const srv = lib.useServer();
const { T } = lib;

const fn = df.fn;
const col = df.col;

// dept, name, salary, year
function staff() {
	return df.local(new arrow.Table({
		dept: arrow.vectorFromArray(['eng', 'eng', 'eng', 'ops', 'ops'],
		    new arrow.Utf8()),
		name: arrow.vectorFromArray(['a', 'b', 'c', 'd', 'e'],
		    new arrow.Utf8()),
		salary: arrow.vectorFromArray([300, 200, 200, 100, 150],
		    new arrow.Int32()),
		year: arrow.vectorFromArray([2020, 2021, 2020, 2020, 2021],
		    new arrow.Int32()),
	}));
}

const order = (name, desc = false) => ({ child: col(name),
	direction: desc ? 'SORT_DIRECTION_DESCENDING' :
	    'SORT_DIRECTION_ASCENDING' });

const win = (f, part, ord, frame) => ({ window: { window_function: f,
	partition_spec: part.map(col), order_spec: ord, frame_spec: frame } });

async function run(s, root) {
	const r = await s.execute(df.plan(root));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return r;
}

const byName = (rows, i = 0) => [...rows].sort((p, q) =>
	String(p[i]) < String(q[i]) ? -1 : String(p[i]) > String(q[i]) ? 1 : 0);

test('ranking functions over a partition, named as Spark names them', T,
    async () => {
	const s = new lib.Session(srv);
	const o = [order('salary', true)];
	const r = await run(s, df.project(staff(), col('name'),
	    win(fn('row_number'), ['dept'], o),
	    win(fn('rank'), ['dept'], o),
	    win(fn('dense_rank'), ['dept'], o),
	    win(fn('lag', col('salary')), ['dept'], [order('salary')])));
	const f = lib.resultFields(r.responses);
	assert.deepEqual(f.map((x) => x[0]), ['name',
		'row_number() OVER (PARTITION BY dept ORDER BY salary DESC ' +
		'NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)',
		'rank() OVER (PARTITION BY dept ORDER BY salary DESC NULLS ' +
		'LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)',
		'dense_rank() OVER (PARTITION BY dept ORDER BY salary DESC ' +
		'NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)',
		'lag(salary, 1, NULL) OVER (PARTITION BY dept ORDER BY salary ' +
		'ASC NULLS FIRST ROWS BETWEEN -1 FOLLOWING AND -1 FOLLOWING)']);
	assert.deepEqual(f.slice(1).map((x) => [x[1], x[2]]), [
		['Int32', false], ['Int32', false], ['Int32', false],
		['Int32', true]]);
	const rows = byName(lib.resultRows(r.responses));
	// a 300 first; b and c tie at 200 (rank 2, 2; dense 2, 2); e 150
	// is first in ops.
	assert.deepEqual(rows.map((x) => x.slice(2, 4)), [[1, 1], [2, 2],
		[2, 2], [2, 2], [1, 1]]);
	assert.deepEqual(rows.map((x) => x[1]).slice(3), [2, 1]);
	assert.deepEqual(rows.map((x) => x[4]), [200, null, 200, null, 100]);
});

test('aggregates over a whole partition and over a ROWS frame', T,
    async () => {
	const s = new lib.Session(srv);
	const frame = { frame_type: 'FRAME_TYPE_ROW',
		lower: { value: df.lit(-1) }, upper: { current_row: true } };
	const r = await run(s, df.project(staff(), col('name'),
	    win(fn('sum', col('salary')), ['dept'], []),
	    win(fn('sum', col('salary')), ['dept'], [order('name')], frame),
	    win(fn('count', df.lit(1)), [], [])));
	const f = lib.resultFields(r.responses).map((x) => x[0]);
	assert.deepEqual(f.slice(1), [
		'sum(salary) OVER (PARTITION BY dept ROWS BETWEEN UNBOUNDED ' +
		'PRECEDING AND UNBOUNDED FOLLOWING)',
		'sum(salary) OVER (PARTITION BY dept ORDER BY name ASC NULLS ' +
		'FIRST ROWS BETWEEN -1 FOLLOWING AND CURRENT ROW)',
		'count(1) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND ' +
		'UNBOUNDED FOLLOWING)']);
	assert.deepEqual(byName(lib.resultRows(r.responses)), [
		['a', 700n, 300n, 5n], ['b', 700n, 500n, 5n],
		['c', 700n, 400n, 5n], ['d', 250n, 100n, 5n],
		['e', 250n, 250n, 5n]]);
});

const agg = (type, groups, aggs, extra = {}) => ({ aggregate: {
	input: staff(), group_type: type, grouping_expressions: groups,
	aggregate_expressions: aggs, ...extra } });

test('rollup, cube and grouping sets with grouping_id', T, async () => {
	const s = new lib.Session(srv);
	const r = await run(s, agg('GROUP_TYPE_ROLLUP', [col('dept'),
		col('year')], [fn('sum', col('salary')),
		fn('grouping_id')]));
	assert.deepEqual(lib.resultFields(r.responses), [
		['dept', 'Utf8', true], ['year', 'Int32', true],
		['sum(salary)', 'Int64', true],
		['grouping_id()', 'Int64', false]]);
	const key = (x) => `${x[0]}/${x[1]}`;
	const rows = lib.resultRows(r.responses).sort((p, q) =>
		key(p) < key(q) ? -1 : 1);
	assert.deepEqual(rows, [
		['eng', 2020, 500n, 0n], ['eng', 2021, 200n, 0n],
		['eng', null, 700n, 1n], ['ops', 2020, 100n, 0n],
		['ops', 2021, 150n, 0n], ['ops', null, 250n, 1n],
		[null, null, 950n, 3n]].sort((p, q) =>
		key(p) < key(q) ? -1 : 1));
	const c = await run(s, agg('GROUP_TYPE_CUBE', [col('dept'),
		col('year')], [fn('count', df.lit(1)),
		fn('grouping', col('year'))]));
	// 4 (dept, year) + 2 dept + 2 year + 1 total.
	assert.equal(lib.resultRows(c.responses).length, 9);
	assert.deepEqual(lib.resultFields(c.responses)[3],
	    ['grouping(year)', 'Int8', false]);
	const gs = await run(s, agg('GROUP_TYPE_GROUPING_SETS', [col('dept'),
		col('year')], [fn('max', col('salary'))], { grouping_sets: [
		{ grouping_set: [col('dept')] },
		{ grouping_set: [col('year')] }] }));
	assert.deepEqual(byName(lib.resultRows(gs.responses).map((x) =>
		[`${x[0]}|${x[1]}`, x[2]])), [
		['eng|null', 300], ['null|2020', 300], ['null|2021', 200],
		['ops|null', 150]]);
	const bad = await s.execute(df.plan(df.project(staff(),
	    fn('grouping_id'))));
	lib.assertSparkError(lib.streamError(bad),
	    'UNSUPPORTED_GROUPING_EXPRESSION', '42K0E');
});

test('pivot with values and without; empty cells are null', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await run(s, agg('GROUP_TYPE_PIVOT', [col('dept')],
	    [fn('sum', col('salary'))], { pivot: { col: col('year'),
		values: [{ integer: 2020 }, { integer: 2021 },
		    { integer: 2022 }] } }));
	assert.deepEqual(lib.resultFields(r.responses), [
		['dept', 'Utf8', true], ['2020', 'Int64', true],
		['2021', 'Int64', true], ['2022', 'Int64', true]]);
	assert.deepEqual(byName(lib.resultRows(r.responses)), [
		['eng', 500n, 200n, null], ['ops', 100n, 150n, null]]);
	const auto = await run(s, agg('GROUP_TYPE_PIVOT', [col('year')],
	    [fn('count', df.lit(1)), fn('max', col('salary'))],
	    { pivot: { col: col('dept') } }));
	assert.deepEqual(lib.resultFields(auto.responses).map((x) => x[0]),
	    ['year', 'eng_count(1)', 'eng_max(salary)', 'ops_count(1)',
		'ops_max(salary)']);
	assert.deepEqual(byName(lib.resultRows(auto.responses)), [
		[2020, 2n, 300, 1n, 100], [2021, 1n, 200, 1n, 150]]);
});

lib.stopTest(srv);
