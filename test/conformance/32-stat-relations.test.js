// SPDX-License-Identifier: MIT
//
// 32-stat-relations: sample, stat.sampleBy, stat.crosstab, stat.freqItems
// and stat.approxQuantile, as a DataFrame program sends them.
//
// Spark's row choice for sample and sampleBy depends on its partitions
// and its generator, so what is checked is what Spark promises: one seed
// gives the same rows every time, the fraction holds (statistically;
// the draws are fixed by the seed, so the counts are too), the bounds
// (0 gives no row, [0, 1) every row), and the input's schema.  The
// other three are checked against Spark's documented answers.  Spark's
// require() failures are java.lang.IllegalArgumentException without an
// error class, with Spark's "requirement failed: ..." message.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { arrow, df } = lib;
const srv = lib.useServer();
const { T } = lib;

const range = (n) => ({ range: { start: '0', end: String(n), step: '1' } });

const sample = (input, lower, upper, opts = {}) => ({ sample: { input,
	lower_bound: lower, upper_bound: upper, ...opts } });

async function run(s, root) {
	const r = await s.execute(df.plan(root));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return r;
}

async function rows(s, root) {
	return lib.resultRows((await run(s, root)).responses);
}

const ids = (rs) => rs.map((r) => Number(r[0]));

const sorted = (rs) => [...rs].sort((a, b) =>
	JSON.stringify(a, (k, v) => typeof v === 'bigint' ? `${v}` : v) <
	    JSON.stringify(b, (k, v) => typeof v === 'bigint' ? `${v}` : v) ?
	    -1 : 1);

// A failed require() in Spark: IllegalArgumentException, no class.
function assertRequirement(err, message) {
	assert.ok(err, `expected "${message}", got success`);
	const text = err.details !== undefined ? err.details : err.message;
	assert.equal(err.code, lib.code.INTERNAL, lib.statusText(err));
	assert.equal(text, `requirement failed: ${message}`);
	const info = lib.errorDetails(err).errorInfo;
	assert.equal(info.reason, 'java.lang.IllegalArgumentException');
	assert.equal(info.metadata.errorClass, undefined);
	assert.equal(JSON.parse(info.metadata.classes)[0],
	    'java.lang.IllegalArgumentException');
}

test('sample: one seed, the same rows; the fraction holds; the schema ' +
    'is the input\'s', T, async () => {
	const s = new lib.Session(srv);
	const p = sample(range(10000), 0, 0.3, { seed: '42' });
	const r = await run(s, p);
	assert.deepEqual(lib.resultFields(r.responses), [
		['id', 'Int64', false]]);
	const a = ids(lib.resultRows(r.responses));
	assert.deepEqual(ids(await rows(s, p)), a, 'same seed, same rows');
	// 10000 draws at 0.3: mean 3000, standard deviation 46.
	assert.ok(a.length > 2800 && a.length < 3200, `${a.length} rows`);
	assert.deepEqual(a, [...a].sort((x, y) => x - y),
	    'rows keep the input order');
	const b = ids(await rows(s, sample(range(10000), 0, 0.3,
	    { seed: '43' })));
	assert.notDeepEqual(b, a, 'another seed, other rows');
	// Names, types and nullability of a local relation stay.
	const t = df.local(new arrow.Table({
		k: arrow.vectorFromArray(['a', null, 'c'], new arrow.Utf8()),
		v: arrow.vectorFromArray([1.5, 2.5, null],
		    new arrow.Float64()) }));
	const all = await run(s, sample(t, 0, 1, { seed: '7' }));
	assert.deepEqual(lib.resultFields(all.responses), [
		['k', 'Utf8', true], ['v', 'Float64', true]]);
	assert.deepEqual(lib.resultRows(all.responses),
	    [['a', 1.5], [null, 2.5], ['c', null]]);
});

test('sample bounds: fraction 0 gives no row, [0, 1] every row, ' +
    'randomSplit\'s ranges split the input', T, async () => {
	const s = new lib.Session(srv);
	const none = await run(s, sample(range(500), 0, 0, { seed: '1' }));
	assert.deepEqual(lib.resultRows(none.responses), []);
	assert.deepEqual(lib.resultFields(none.responses), [
		['id', 'Int64', false]]);
	assert.deepEqual(ids(await rows(s, sample(range(500), 0, 1,
	    { seed: '1' }))), [...Array(500).keys()]);
	// Without a seed Spark picks one at random: the bounds still hold.
	assert.deepEqual(ids(await rows(s, sample(range(500), 0, 1))),
	    [...Array(500).keys()]);
	assert.deepEqual(await rows(s, sample(range(500), 0.3, 0.3)), []);
	// randomSplit([1, 2, 1], seed 5): [0, .25), [.25, .75), [.75, 1)
	// with deterministic_order; together exactly the input, no overlap.
	const parts = [];
	for (const [lo, hi] of [[0, 0.25], [0.25, 0.75], [0.75, 1]])
		parts.push(ids(await rows(s, sample(range(2000), lo, hi,
		    { seed: '5', deterministic_order: true }))));
	const union = parts.flat().sort((x, y) => x - y);
	assert.deepEqual(union, [...Array(2000).keys()]);
	assert.ok(parts[0].length > 400 && parts[0].length < 600,
	    `${parts[0].length} rows in the first quarter`);
	assert.ok(parts[1].length > 900 && parts[1].length < 1100,
	    `${parts[1].length} rows in the middle half`);
});

test('sample with replacement: Poisson counts, repeated rows, one seed ' +
    'the same rows', T, async () => {
	const s = new lib.Session(srv);
	const p = sample(range(2000), 0, 2, { with_replacement: true,
		seed: '9' });
	const a = ids(await rows(s, p));
	// 2000 Poisson(2) counts: mean 4000, standard deviation 63.
	assert.ok(a.length > 3700 && a.length < 4300, `${a.length} rows`);
	assert.ok(new Set(a).size < a.length, 'some rows repeat');
	assert.deepEqual(ids(await rows(s, p)), a);
	assert.deepEqual(await rows(s, sample(range(10), 0, 0,
	    { with_replacement: true, seed: '9' })), []);
	// A mean past 1000 copies of each row is refused by name.
	lib.assertSparkError(lib.streamError(await s.execute(df.plan(
	    sample(range(10), 0, 1001, { with_replacement: true,
		seed: '1' })))), 'UNSUPPORTED_FEATURE.RELATION', '0A000');
	// Past [0, 1] with replacement is allowed; without it is not.
	assertRequirement(lib.streamError(await s.execute(df.plan(
	    sample(range(10), 0, 1.5, { seed: '1' })))),
	'Sampling fraction (1.5) must be on interval [0, 1] without ' +
	    'replacement');
	assertRequirement(lib.streamError(await s.execute(df.plan(
	    sample(range(10), 0.5, 0, { with_replacement: true,
		seed: '1' })))),
	'Sampling fraction (-0.5) must be nonnegative with replacement');
});

const strata = () => {
	const keys = [], vals = [];
	for (let i = 0; i < 900; i++) {
		keys.push(['A', 'B', 'C'][i % 3]);
		vals.push(i);
	}
	return df.local(new arrow.Table({
		key: arrow.vectorFromArray(keys, new arrow.Utf8()),
		val: arrow.vectorFromArray(vals, new arrow.Int32()) }));
};

const sampleBy = (input, col, fractions, seed) => ({ sample_by: { input,
	col, fractions: fractions.map(([k, f]) => ({
		stratum: df.lit(k).literal, fraction: f })),
	...(seed !== undefined ? { seed } : {}) } });

test('sampleBy: each stratum with its fraction, others left out, one ' +
    'seed the same rows', T, async () => {
	const s = new lib.Session(srv);
	const p = sampleBy(strata(), df.col('key'), [['A', 0.5], ['B', 1]],
	    '3');
	const r = await run(s, p);
	assert.deepEqual(lib.resultFields(r.responses), [
		['key', 'Utf8', true], ['val', 'Int32', true]]);
	const got = lib.resultRows(r.responses);
	const count = (k) => got.filter((x) => x[0] === k).length;
	assert.equal(count('B'), 300, 'fraction 1: every row');
	assert.equal(count('C'), 0, 'a stratum not listed: fraction 0');
	// 300 draws at 0.5: mean 150, standard deviation 8.7.
	assert.ok(count('A') > 115 && count('A') < 185, `${count('A')} A`);
	assert.deepEqual(await rows(s, p), got, 'same seed, same rows');
	assert.deepEqual(await rows(s, sampleBy(strata(), df.col('key'),
	    [['A', 0], ['B', 0]], '3')), []);
	assertRequirement(lib.streamError(await s.execute(df.plan(
	    sampleBy(strata(), df.col('key'), [['A', 0.5], ['B', 1.5]],
		'3')))),
	'Fractions must be in [0, 1], but got Map(A -> 0.5, B -> 1.5).');
	lib.assertSparkError(lib.streamError(await s.execute(df.plan(
	    sampleBy(strata(), df.col('nope'), [['A', 0.5]], '3')))),
	'UNRESOLVED_COLUMN.WITHOUT_SUGGESTION', '42703');
});

const pairs = (a, b, ta = new arrow.Int32(), tb = new arrow.Int32()) =>
	df.local(new arrow.Table({
		key: arrow.vectorFromArray(a, ta),
		value: arrow.vectorFromArray(b, tb) }));

test('crosstab: Spark\'s documented table, names and types', T,
    async () => {
	const s = new lib.Session(srv);
	// DataFrameStatFunctions.crosstab's example: (1,1), (1,2), (2,1),
	// (2,1), (2,3), (3,2), (3,3).  The first column "key_value" holds
	// col1 as strings; one bigint column per value of col2, sorted, a
	// pair never seen counting 0.  Spark's row order is its hash
	// aggregate's (its example shows 2, 1, 3): sorted here.
	const r = await run(s, { crosstab: { input: pairs(
	    [1, 1, 2, 2, 2, 3, 3], [1, 2, 1, 1, 3, 2, 3]),
	col1: 'key', col2: 'value' } });
	assert.deepEqual(lib.resultFields(r.responses), [
		['key_value', 'Utf8', true], ['1', 'Int64', false],
		['2', 'Int64', false], ['3', 'Int64', false]]);
	assert.deepEqual(sorted(lib.resultRows(r.responses)), [
		['1', 1n, 1n, 0n], ['2', 2n, 0n, 1n], ['3', 0n, 1n, 1n]]);
	// Nulls count as "null"; values are Spark's strings, sorted as
	// strings; backquotes leave the column names.
	const n = await run(s, { crosstab: { input: pairs(
	    ['x', null, 'x', 'y'], [1.5, 10, null, 1.5], new arrow.Utf8(),
	    new arrow.Float64()), col1: 'key', col2: 'value' } });
	assert.deepEqual(lib.resultFields(n.responses).map((f) => f[0]),
	    ['key_value', '1.5', '10.0', 'null']);
	assert.deepEqual(sorted(lib.resultRows(n.responses)), [
		['null', 0n, 1n, 0n], ['x', 1n, 0n, 1n], ['y', 1n, 0n, 0n]]);
	const q = await run(s, { crosstab: { input: pairs(['a'], ['b`c'],
	    new arrow.Utf8(), new arrow.Utf8()), col1: 'key',
	col2: 'value' } });
	assert.deepEqual(lib.resultFields(q.responses).map((f) => f[0]),
	    ['key_value', 'bc']);
	lib.assertSparkError(lib.streamError(await s.execute(df.plan({
		crosstab: { input: pairs([1], [2]), col1: 'key',
			col2: 'nope' } }))),
	'UNRESOLVED_COLUMN.WITHOUT_SUGGESTION', '42703');
});

const freqItems = (input, cols, support) => ({ freq_items: { input, cols,
	...(support !== undefined ? { support } : {}) } });

test('freqItems: every item at least as frequent as the support, as ' +
    'array columns', T, async () => {
	const s = new lib.Session(srv);
	// PySpark's freqItems example: [(1, 11), (1, 11), (3, 10), (4, 8),
	// (4, 8)] gives [4, 1, 3] and [8, 11, 10] at the default support
	// (1%).  Spark may add false positives and gives no order; the
	// items with frequency >= support are always among its answer.
	const input = () => df.local(new arrow.Table({
		c1: arrow.vectorFromArray([1, 1, 3, 4, 4], new arrow.Int32()),
		c2: arrow.vectorFromArray([11n, 11n, 10n, 8n, 8n],
		    new arrow.Int64()) }));
	const r = await run(s, freqItems(input(), ['c1', 'c2']));
	assert.deepEqual(lib.resultFields(r.responses), [
		['c1_freqItems', 'List<Int32>', false],
		['c2_freqItems', 'List<Int64>', false]]);
	const [row] = lib.resultRows(r.responses);
	const num = (a) => a.map(Number).sort((x, y) => x - y);
	assert.deepEqual(num(row[0]), [1, 3, 4]);
	assert.deepEqual(num(row[1]), [8, 10, 11]);
	const [hi] = await rows(s, freqItems(input(), ['c1'], 0.4));
	assert.deepEqual(num(hi[0]), [1, 4]);
	// Nulls are items too; the element type is nullable when the
	// column is.
	const t = df.local(new arrow.Table({
		s: arrow.vectorFromArray([null, null, 'a', 'b'],
		    new arrow.Utf8()) }));
	const nr = await run(s, freqItems(t, ['s'], 0.5));
	const f = lib.decodeBatches(nr.responses).batches[0].table.schema
	    .fields[0];
	assert.equal(f.type.children[0].nullable, true);
	assert.deepEqual(lib.resultRows(nr.responses), [[[null]]]);
	assertRequirement(lib.streamError(await s.execute(df.plan(
	    freqItems(input(), ['c1'], 0)))),
	'Support must be in [1e-4, 1], but got 0.0.');
	lib.assertSparkError(lib.streamError(await s.execute(df.plan(
	    freqItems(input(), ['nope'])))),
	'UNRESOLVED_COLUMN.WITHOUT_SUGGESTION', '42703');
});

const quantile = (input, cols, probabilities, err) => ({ approx_quantile: {
	input, cols, probabilities, relative_error: err } });

test('approxQuantile: one row, array<array<double>> "approx_quantile", ' +
    'the exact quantiles', T, async () => {
	const s = new lib.Session(srv);
	const t = () => df.local(new arrow.Table({
		i: arrow.vectorFromArray([7, 1, 3, 10, 5, 2, 9, 4, 8, 6],
		    new arrow.Int32()),
		d: arrow.vectorFromArray([NaN, null, 2.5, 0.5, null, null,
			null, null, null, null], new arrow.Float64()),
		n: arrow.vectorFromArray(new Array(10).fill(null),
		    new arrow.Float64()),
		s: arrow.vectorFromArray(new Array(10).fill('x'),
		    new arrow.Utf8()) }));
	const p = [0, 0.25, 0.5, 0.75, 1];
	const r = await run(s, quantile(t(), ['i', 'd', 'n'], p, 0));
	assert.deepEqual(lib.resultFields(r.responses), [
		['approx_quantile', 'List<List<Float64>>', false]]);
	// Rank ceil(p * n) of the values neither null nor NaN; an empty
	// column gives an empty array.
	assert.deepEqual(lib.resultRows(r.responses), [[[
		[1, 3, 5, 8, 10], [0.5, 0.5, 0.5, 2.5, 2.5], []]]]);
	// Any relative error: the exact answer is within Spark's bound.
	assert.deepEqual(await rows(s, quantile(t(), ['i'], [0.5, 0.9],
	    0.1)), [[[[5, 9]]]]);
	assertRequirement(lib.streamError(await s.execute(df.plan(
	    quantile(t(), ['i'], [0.5, 1.5], 0)))),
	'percentile should be in the range [0.0, 1.0]');
	assertRequirement(lib.streamError(await s.execute(df.plan(
	    quantile(t(), ['i'], [0.5], -1)))),
	'Relative Error must be non-negative but got -1.0');
	assertRequirement(lib.streamError(await s.execute(df.plan(
	    quantile(t(), ['s'], [0.5], 0)))),
	'Quantile calculation for column s with data type StringType is ' +
	    'not supported.');
	lib.assertSparkError(lib.streamError(await s.execute(df.plan(
	    quantile(t(), ['nope'], [0.5], 0)))),
	'UNRESOLVED_COLUMN.WITHOUT_SUGGESTION', '42703');
});

test('AnalyzePlan gives the same schemas as ExecutePlan', T, async () => {
	const s = new lib.Session(srv);
	const kinds = (dt) => dt.struct.fields.map((f) => [f.name,
		f.data_type.kind, f.nullable]);
	const ct = { crosstab: { input: pairs([1, 2], [3, 4]), col1: 'key',
		col2: 'value' } };
	const a = await s.analyze({ schema: { plan: df.plan(ct) } });
	assert.deepEqual(kinds(a.schema.schema), [
		['key_value', 'string', true], ['3', 'long', false],
		['4', 'long', false]]);
	const aq = await s.analyze({ schema: { plan: df.plan(quantile(
	    pairs([1], [2]), ['key'], [0.5], 0)) } });
	const f = aq.schema.schema.struct.fields[0];
	assert.deepEqual([f.name, f.nullable, f.data_type.array.contains_null,
		f.data_type.array.element_type.array.element_type.kind],
	['approx_quantile', false, true, 'double']);
	const sm = await s.analyze({ schema: { plan: df.plan(sample(
	    range(5), 0, 0.5, { seed: '1' })) } });
	assert.deepEqual(kinds(sm.schema.schema), [['id', 'long', false]]);
});

lib.stopTest(srv);
