// SPDX-License-Identifier: MIT
//
// 24-dataframe-relations: the relations a DataFrame program builds:
// join (inner, outer, semi, anti, cross; conditions with plan ids, using
// columns), set operations (union, unionByName with missing columns,
// intersect, except, distinct and all), with_columns, drop, deduplicate,
// tail, hint, repartition and unpivot.  Names, types, nullability and rows as
// Spark gives them; where Spark's order is unspecified, rows are sorted.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { arrow, df } = lib;
const srv = lib.useServer();
const { T } = lib;

let nextPlan = 100;

// A relation with a plan id, as clients stamp every DataFrame.
function tagged(rel) {
	const id = nextPlan++;
	return { rel: { common: { plan_id: String(id) }, ...rel }, id };
}

// A column of the DataFrame with plan id id: df["name"].
const colOf = (id, name) => ({ unresolved_attribute: {
	unparsed_identifier: name, plan_id: String(id) } });

// people(id int, name string), orders(id int, amount double).
function people() {
	return tagged(df.local(new arrow.Table({
		id: arrow.vectorFromArray([1, 2, 3], new arrow.Int32()),
		name: arrow.vectorFromArray(['ann', 'bob', null],
		    new arrow.Utf8()),
	})));
}

function orders() {
	return tagged(df.local(new arrow.Table({
		id: arrow.vectorFromArray([1, 1, 4], new arrow.Int32()),
		amount: arrow.vectorFromArray([10.5, 2, 7],
		    new arrow.Float64()),
	})));
}

function nums(values, name = 'n') {
	return df.local(new arrow.Table({
		[name]: arrow.vectorFromArray(values, new arrow.Int32()),
	}));
}

async function run(s, root) {
	const r = await s.execute(df.plan(root));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return r;
}

const sorted = (rows) => [...rows].sort((a, b) =>
	JSON.stringify(a, (k, v) => typeof v === 'bigint' ? `${v}` : v) <
	    JSON.stringify(b, (k, v) => typeof v === 'bigint' ? `${v}` : v) ?
	    -1 : 1);

const join = (left, right, type, extra) => ({ join: { left, right,
	join_type: type, ...extra } });

test('an inner join on df1.id == df2.id keeps both id columns', T,
    async () => {
	const s = new lib.Session(srv);
	const p = people(), o = orders();
	const r = await run(s, join(p.rel, o.rel, 'JOIN_TYPE_INNER', {
		join_condition: df.fn('==', colOf(p.id, 'id'),
		    colOf(o.id, 'id')) }));
	assert.deepEqual(lib.resultFields(r.responses), [
		['id', 'Int32', true], ['name', 'Utf8', true],
		['id', 'Int32', true], ['amount', 'Float64', true]]);
	assert.deepEqual(sorted(lib.resultRows(r.responses)), [
		[1, 'ann', 1, 10.5], [1, 'ann', 1, 2]].sort());
	// A later select picks a side by plan id.
	const j = tagged(join(p.rel, o.rel, 'JOIN_TYPE_INNER', {
		join_condition: df.fn('==', colOf(p.id, 'id'),
		    colOf(o.id, 'id')) }));
	const sel = await run(s, df.project(j.rel, colOf(o.id, 'id'),
	    df.col('amount')));
	assert.deepEqual(lib.resultFields(sel.responses), [
		['id', 'Int32', true], ['amount', 'Float64', true]]);
	const amb = await s.execute(df.plan(df.project(join(p.rel, o.rel,
	    'JOIN_TYPE_INNER', { join_condition: df.fn('==',
		colOf(p.id, 'id'), colOf(o.id, 'id')) }), df.col('id'))));
	lib.assertSparkError(lib.streamError(amb), 'AMBIGUOUS_REFERENCE',
	    '42704');
});

test('outer joins with using columns show the key once', T, async () => {
	const s = new lib.Session(srv);
	const using = { using_columns: ['id'] };
	const left = await run(s, join(people().rel, orders().rel,
	    'JOIN_TYPE_LEFT_OUTER', using));
	assert.deepEqual(lib.resultFields(left.responses), [
		['id', 'Int32', true], ['name', 'Utf8', true],
		['amount', 'Float64', true]]);
	assert.deepEqual(sorted(lib.resultRows(left.responses)), sorted([
		[1, 'ann', 10.5], [1, 'ann', 2], [2, 'bob', null],
		[3, null, null]]));
	const right = await run(s, join(people().rel, orders().rel,
	    'JOIN_TYPE_RIGHT_OUTER', using));
	assert.deepEqual(sorted(lib.resultRows(right.responses)), sorted([
		[1, 'ann', 10.5], [1, 'ann', 2], [4, null, 7]]));
	const full = await run(s, join(people().rel, orders().rel,
	    'JOIN_TYPE_FULL_OUTER', using));
	assert.deepEqual(sorted(lib.resultRows(full.responses)), sorted([
		[1, 'ann', 10.5], [1, 'ann', 2], [2, 'bob', null],
		[3, null, null], [4, null, 7]]));
	const bad = await s.execute(df.plan(join(people().rel, orders().rel,
	    'JOIN_TYPE_INNER', { using_columns: ['nope'] })));
	lib.assertSparkError(lib.streamError(bad),
	    'UNRESOLVED_USING_COLUMN_FOR_JOIN', '42703');
});

test('semi, anti and cross joins', T, async () => {
	const s = new lib.Session(srv);
	const p = people(), o = orders();
	const cond = { join_condition: df.fn('==', colOf(p.id, 'id'),
		colOf(o.id, 'id')) };
	const semi = await run(s, join(p.rel, o.rel, 'JOIN_TYPE_LEFT_SEMI',
	    cond));
	assert.deepEqual(lib.resultFields(semi.responses), [
		['id', 'Int32', true], ['name', 'Utf8', true]]);
	assert.deepEqual(lib.resultRows(semi.responses), [[1, 'ann']]);
	const anti = await run(s, join(p.rel, o.rel, 'JOIN_TYPE_LEFT_ANTI',
	    cond));
	assert.deepEqual(sorted(lib.resultRows(anti.responses)),
	    [[2, 'bob'], [3, null]]);
	const cross = await run(s, join(nums([1, 2], 'a'), nums([7, 8, 9],
	    'b'), 'JOIN_TYPE_CROSS'));
	assert.equal(lib.resultRows(cross.responses).length, 6);
	assert.deepEqual(lib.resultFields(cross.responses),
	    [['a', 'Int32', true], ['b', 'Int32', true]]);
});

const setOp = (l, r, type, opts = {}) => ({ set_op: { left_input: l,
	right_input: r, set_op_type: type, ...opts } });

test('union, intersect and except, distinct and all', T, async () => {
	const s = new lib.Session(srv);
	const a = nums([1, 1, 2, 3]), b = nums([1, 1, 1, 3, 5]);
	const rows = async (root) => sorted(lib.resultRows(
	    (await run(s, root)).responses)).map((x) => x[0]);
	assert.deepEqual(await rows(setOp(a, b, 'SET_OP_TYPE_UNION',
	    { is_all: true })), [1, 1, 1, 1, 1, 2, 3, 3, 5]);
	assert.deepEqual(await rows(setOp(a, b, 'SET_OP_TYPE_UNION',
	    { is_all: false })), [1, 2, 3, 5]);
	assert.deepEqual(await rows(setOp(a, b, 'SET_OP_TYPE_INTERSECT',
	    { is_all: false })), [1, 3]);
	assert.deepEqual(await rows(setOp(a, b, 'SET_OP_TYPE_INTERSECT',
	    { is_all: true })), [1, 1, 3]);
	assert.deepEqual(await rows(setOp(a, b, 'SET_OP_TYPE_EXCEPT',
	    { is_all: false })), [2]);
	assert.deepEqual(await rows(setOp(b, a, 'SET_OP_TYPE_EXCEPT',
	    { is_all: true })), [1, 5]);
	const bad = await s.execute(df.plan(setOp(a, join(nums([1]),
	    nums([2], 'm'), 'JOIN_TYPE_CROSS'), 'SET_OP_TYPE_UNION',
	{ is_all: true })));
	lib.assertSparkError(lib.streamError(bad), 'NUM_COLUMNS_MISMATCH',
	    '42826');
});

test('unionByName matches names; allowMissingColumns fills nulls', T,
    async () => {
	const s = new lib.Session(srv);
	const ab = df.local(new arrow.Table({
		a: arrow.vectorFromArray([1], new arrow.Int32()),
		b: arrow.vectorFromArray(['x'], new arrow.Utf8()) }));
	const ba = df.local(new arrow.Table({
		b: arrow.vectorFromArray(['y'], new arrow.Utf8()),
		a: arrow.vectorFromArray([2n], new arrow.Int64()) }));
	const c = df.local(new arrow.Table({
		c: arrow.vectorFromArray([true], new arrow.Bool()) }));
	const r = await run(s, setOp(ab, ba, 'SET_OP_TYPE_UNION',
	    { is_all: true, by_name: true }));
	assert.deepEqual(lib.resultFields(r.responses), [
		['a', 'Int64', true], ['b', 'Utf8', true]]);
	assert.deepEqual(lib.resultRows(r.responses), [[1n, 'x'], [2n, 'y']]);
	const m = await run(s, setOp(ab, c, 'SET_OP_TYPE_UNION',
	    { is_all: true, by_name: true, allow_missing_columns: true }));
	assert.deepEqual(lib.resultFields(m.responses), [
		['a', 'Int32', true], ['b', 'Utf8', true],
		['c', 'Bool', true]]);
	assert.deepEqual(lib.resultRows(m.responses),
	    [[1, 'x', null], [null, null, true]]);
	const bad = await s.execute(df.plan(setOp(ab, c, 'SET_OP_TYPE_UNION',
	    { is_all: true, by_name: true })));
	lib.assertSparkError(lib.streamError(bad),
	    'UNRESOLVED_COLUMN.WITHOUT_SUGGESTION', '42703');
});

test('with_columns adds and replaces; drop removes; hint and ' +
    'repartition change nothing', T, async () => {
	const s = new lib.Session(srv);
	const p = people();
	const wc = { with_columns: { input: p.rel, aliases: [
		{ expr: df.fn('+', df.col('id'), df.lit(10)), name: ['id'] },
		{ expr: df.fn('upper', df.col('name')), name: ['up'] }] } };
	const r = await run(s, wc);
	assert.deepEqual(lib.resultFields(r.responses), [
		['id', 'Int32', true], ['name', 'Utf8', true],
		['up', 'Utf8', true]]);
	assert.deepEqual(lib.resultRows(r.responses), [
		[11, 'ann', 'ANN'], [12, 'bob', 'BOB'], [13, null, null]]);
	const d = await run(s, { drop: { input: wc, column_names: ['NAME',
		'nope'] } });
	assert.deepEqual(lib.resultFields(d.responses).map((f) => f[0]),
	    ['id', 'up']);
	const d2 = await run(s, { drop: { input: p.rel,
		columns: [colOf(p.id, 'id')] } });
	assert.deepEqual(lib.resultRows(d2.responses),
	    [['ann'], ['bob'], [null]]);
	for (const rel of [
		{ hint: { input: p.rel, name: 'broadcast' } },
		{ repartition: { input: p.rel, num_partitions: 4,
			shuffle: true } },
		{ repartition_by_expression: { input: p.rel,
			partition_exprs: [df.col('id')] } }]) {
		const h = await run(s, rel);
		assert.deepEqual(lib.resultRows(h.responses),
		    [[1, 'ann'], [2, 'bob'], [3, null]]);
	}
});

test('deduplicate on all columns or a subset; tail keeps the last rows',
    T, async () => {
	const s = new lib.Session(srv);
	const t = df.local(new arrow.Table({
		k: arrow.vectorFromArray([1, 1, 2, null, null],
		    new arrow.Int32()),
		v: arrow.vectorFromArray(['a', 'a', 'b', 'c', 'c'],
		    new arrow.Utf8()) }));
	const all = await run(s, { deduplicate: { input: t,
		all_columns_as_keys: true } });
	assert.deepEqual(sorted(lib.resultRows(all.responses)),
	    sorted([[1, 'a'], [2, 'b'], [null, 'c']]));
	const sub = await run(s, { deduplicate: { input: t,
		column_names: ['k'] } });
	assert.equal(lib.resultRows(sub.responses).length, 3);
	const bad = await s.execute(df.plan({ deduplicate: { input: t,
		column_names: ['zz'] } }));
	lib.assertSparkError(lib.streamError(bad),
	    'UNRESOLVED_COLUMN.WITHOUT_SUGGESTION', '42703');
	const tail = await run(s, { tail: { input: t, limit: 2 } });
	assert.deepEqual(lib.resultRows(tail.responses),
	    [[null, 'c'], [null, 'c']]);
	const none = await run(s, { tail: { input: t, limit: 0 } });
	assert.equal(lib.decodeBatches(none.responses).rows, 0);
});

test('na.fill, na.drop and na.replace', T, async () => {
	const s = new lib.Session(srv);
	const t = () => df.local(new arrow.Table({
		a: arrow.vectorFromArray([1, null, 3], new arrow.Int32()),
		b: arrow.vectorFromArray([null, 2.5, 1], new arrow.Float64()),
		s: arrow.vectorFromArray([null, 'x', 'y'], new arrow.Utf8()) }));
	const fill = await run(s, { fill_na: { input: t(),
		values: [{ integer: 0 }] } });
	// A number fills the numeric columns only.
	assert.deepEqual(lib.resultRows(fill.responses),
	    [[1, 0, null], [0, 2.5, 'x'], [3, 1, 'y']]);
	assert.deepEqual(lib.resultFields(fill.responses), [
		['a', 'Int32', false], ['b', 'Float64', false],
		['s', 'Utf8', true]]);
	const per = await run(s, { fill_na: { input: t(), cols: ['a', 'S'],
		values: [{ double: 9.7 }, { string: 'q' }] } });
	assert.deepEqual(lib.resultRows(per.responses),
	    [[1, null, 'q'], [9, 2.5, 'x'], [3, 1, 'y']]);
	const any = await run(s, { drop_na: { input: t() } });
	assert.deepEqual(lib.resultRows(any.responses), [[3, 1, 'y']]);
	const two = await run(s, { drop_na: { input: t(),
		min_non_nulls: 2 } });
	assert.equal(lib.resultRows(two.responses).length, 2);
	const onA = await run(s, { drop_na: { input: t(), cols: ['a'] } });
	assert.deepEqual(lib.resultRows(onA.responses).map((x) => x[0]),
	    [1, 3]);
	const rep = await run(s, { replace: { input: t(), replacements: [
		{ old_value: { string: 'x' }, new_value: { string: 'X' } },
		{ old_value: { integer: 3 }, new_value: { integer: 30 } }] } });
	assert.deepEqual(lib.resultRows(rep.responses),
	    [[1, null, null], [null, 2.5, 'X'], [30, 1, 'y']]);
	const bad = await s.execute(df.plan({ drop_na: { input: t(),
		cols: ['nope'] } }));
	lib.assertSparkError(lib.streamError(bad),
	    'UNRESOLVED_COLUMN.WITHOUT_SUGGESTION', '42703');
});

test('describe, summary, stat.cov and stat.corr', T, async () => {
	const s = new lib.Session(srv);
	const t = () => df.local(new arrow.Table({
		x: arrow.vectorFromArray([1, 2, 3, 4], new arrow.Int32()),
		y: arrow.vectorFromArray([2, 4, 6, 8], new arrow.Float64()),
		s: arrow.vectorFromArray(['a', 'b', null, 'd'],
		    new arrow.Utf8()) }));
	const d = await run(s, { describe: { input: t(), cols: ['x', 's'] } });
	assert.deepEqual(lib.resultFields(d.responses), [
		['summary', 'Utf8', true], ['x', 'Utf8', true],
		['s', 'Utf8', true]]);
	assert.deepEqual(lib.resultRows(d.responses), [
		['count', '4', '3'], ['mean', '2.5', null],
		['stddev', '1.2909944487358056', null], ['min', '1', 'a'],
		['max', '4', 'd']]);
	const sm = await run(s, { summary: { input: t() } });
	assert.deepEqual(lib.resultRows(sm.responses).map((r) => r.slice(0,
		2)), [['count', '4'], ['mean', '2.5'],
		['stddev', '1.2909944487358056'], ['min', '1'], ['25%', '1'],
		['50%', '2'], ['75%', '3'], ['max', '4']]);
	assert.deepEqual(lib.resultFields(sm.responses).map((f) => f[0]),
	    ['summary', 'x', 'y', 's']);
	const cov = await run(s, { cov: { input: t(), col1: 'x',
		col2: 'y' } });
	assert.deepEqual(lib.resultFields(cov.responses),
	    [['cov', 'Float64', true]]);
	assert.deepEqual(lib.resultRows(cov.responses), [[10 / 3]]);
	const corr = await run(s, { corr: { input: t(), col1: 'x',
		col2: 'y' } });
	assert.deepEqual(lib.resultRows(corr.responses), [[1]]);
	const bad = await s.execute(df.plan({ cov: { input: t(), col1: 'x',
		col2: 's' } }));
	lib.assertSparkError(lib.streamError(bad),
	    'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE', '42K09');
});


// wide(id int, a int, b bigint, c double, s string).
function wide() {
	return df.local(new arrow.Table({
		id: arrow.vectorFromArray([1, 2], new arrow.Int32()),
		a: arrow.vectorFromArray([10, null], new arrow.Int32()),
		b: arrow.vectorFromArray([20n, 40n], new arrow.Int64()),
		c: arrow.vectorFromArray([0.5, 1.5], new arrow.Float64()),
		s: arrow.vectorFromArray(['x', 'y'], new arrow.Utf8()),
	}));
}

const unpivot = (input, ids, values, extra = {}) => ({ unpivot: {
	input, ids: ids.map(df.col),
	...(values ? { values: { values: values.map(df.col) } } : {}),
	variable_column_name: 'var', value_column_name: 'val', ...extra } });

test('unpivot: each row gives its value columns in order, widened', T,
    async () => {
	const s = new lib.Session(srv);
	// int and bigint: bigint; the variable column is never null.
	const r = await run(s, unpivot(wide(), ['id'], ['a', 'b']));
	assert.deepEqual(lib.resultFields(r.responses), [
		['id', 'Int32', true], ['var', 'Utf8', false],
		['val', 'Int64', true]]);
	assert.deepEqual(lib.resultRows(r.responses), [
		[1, 'a', 10n], [1, 'b', 20n], [2, 'a', null], [2, 'b', 40n]]);
	// No values: every column that is not an id; int, bigint, double
	// meet at double.
	const all = await run(s, unpivot(df.project(wide(),
	    ...['id', 'a', 'b', 'c'].map(df.col)), ['id'], null));
	assert.deepEqual(lib.resultFields(all.responses).map((f) => f[1]),
	    ['Int32', 'Utf8', 'Float64']);
	assert.deepEqual(lib.resultRows(all.responses), [
		[1, 'a', 10], [1, 'b', 20], [1, 'c', 0.5],
		[2, 'a', null], [2, 'b', 40], [2, 'c', 1.5]]);
	// No ids at all.
	const noid = await run(s, unpivot(wide(), [], ['s']));
	assert.deepEqual(lib.resultRows(noid.responses),
	    [['s', 'x'], ['s', 'y']]);
});

test('unpivot refuses what Spark refuses, with its classes', T,
    async () => {
	const s = new lib.Session(srv);
	const mix = await s.execute(df.plan(unpivot(wide(), ['id'],
	    ['a', 's'])));
	lib.assertSparkError(lib.streamError(mix),
	    'UNPIVOT_VALUE_DATA_TYPE_MISMATCH', '42K09');
	const none = await s.execute(df.plan(unpivot(df.project(wide(),
	    df.col('id')), ['id'], null)));
	lib.assertSparkError(lib.streamError(none),
	    'UNPIVOT_REQUIRES_VALUE_COLUMNS', '42K0A');
});

lib.stopTest(srv);
