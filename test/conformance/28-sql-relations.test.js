// SPDX-License-Identifier: MIT
//
// 28-sql-relations: a sql relation under a DataFrame's operations, as
// spark.sql(q).filter(...) sends it.  The text is read by the Spark SQL
// parser there as at the root: Spark's answers (7 / 2 is 3.5, typeof is
// Spark's type name), Spark's types through AnalyzePlan, Spark's errors.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { df } = lib;
const srv = lib.useServer();
const { T } = lib;

const sqlRel = (query) => ({ sql: { query } });

async function run(s, root) {
	const r = await s.execute(df.plan(root));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return r;
}

test('a filter over spark.sql() sees Spark\'s values', T, async () => {
	const s = new lib.Session(srv);
	const r = await run(s, df.filter(
	    sqlRel('SELECT 7 / 2 AS q, 1L AS b, typeof(1L) AS t'),
	    df.fn('>', df.col('q'), df.lit(3))));
	assert.deepEqual(lib.resultFields(r.responses), [
		['q', 'Float64', true], ['b', 'Int64', false],
		['t', 'Utf8', false]]);
	assert.deepEqual(lib.resultRows(r.responses), [[3.5, 1n, 'bigint']]);
});

test('a projection over spark.sql() of a range', T, async () => {
	const s = new lib.Session(srv);
	const r = await run(s, df.project(
	    sqlRel('SELECT id, id % 3 AS m FROM range(10) WHERE id > 4'),
	    df.alias(df.fn('+', df.col('m'), df.lit(1)), 'm1')));
	assert.deepEqual(lib.resultFields(r.responses),
	    [['m1', 'Int64', true]]);
	assert.deepEqual(lib.resultRows(r.responses),
	    [[3n], [1n], [2n], [3n], [1n]]);
});

test('AnalyzePlan types a nested spark.sql() as Spark does', T,
    async () => {
	const s = new lib.Session(srv);
	const a = await s.analyze({ schema: { plan: df.plan(df.filter(
	    sqlRel('SELECT 7 / 2 AS q, 2Y AS y, 1.5 AS d'),
	    df.fn('>', df.col('q'), df.lit(0)))) } });
	assert.deepEqual(a.schema.schema.struct.fields.map((f) =>
	    [f.name, f.data_type.kind]), [['q', 'double'], ['y', 'byte'],
		['d', 'decimal']]);
});

test('a nested spark.sql() gives Spark\'s errors', T, async () => {
	const s = new lib.Session(srv);
	const e = await s.execute(df.plan(df.filter(
	    sqlRel('SELECT nope_fn(1) AS x'),
	    df.fn('>', df.col('x'), df.lit(0)))));
	lib.assertSparkError(lib.streamError(e), 'UNRESOLVED_ROUTINE',
	    '42883');
	const p = await s.execute(df.plan(df.filter(
	    sqlRel('SELECT 1 FROM'), df.lit(true))));
	lib.assertSparkError(lib.streamError(p), 'PARSE_SYNTAX_ERROR',
	    '42601');
});

// Tables of the tests below, made through SQL text.
async function tables(s) {
	for (const q of [
		'CREATE OR REPLACE TABLE q28_p (id INT, name STRING) USING parquet',
		"INSERT INTO q28_p VALUES (1, 'ann'), (2, 'bob')",
		'CREATE OR REPLACE TABLE q28_o (id INT, amount INT) USING parquet',
		'INSERT INTO q28_o VALUES (1, 10), (1, 5), (3, 7)',
	]) {
		const r = await s.execute(lib.sqlCommandPlan(q));
		assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	}
}

test('a join in spark.sql() under a filter, by qualified columns', T,
    async () => {
	const s = new lib.Session(srv);
	await tables(s);
	const r = await run(s, df.filter(sqlRel(
	    'SELECT p.id, o.id AS oid, o.amount FROM q28_p p ' +
	    'LEFT JOIN q28_o o ON p.id = o.id'),
	    df.fn('isnotnull', df.col('oid'))));
	assert.deepEqual(lib.resultFields(r.responses), [
		['id', 'Int32', true], ['oid', 'Int32', true],
		['amount', 'Int32', true]]);
	assert.deepEqual(lib.resultRows(r.responses).sort(),
	    [[1, 1, 10], [1, 1, 5]].sort());
	const amb = await s.execute(df.plan(df.filter(sqlRel(
	    'SELECT id FROM q28_p p JOIN q28_o o ON p.id = o.id'),
	    df.lit(true))));
	lib.assertSparkError(lib.streamError(amb), 'AMBIGUOUS_REFERENCE',
	    '42704');
});

test('df["id"] of a table read names its side of a join', T, async () => {
	const s = new lib.Session(srv);
	await tables(s);
	const table = (name, id) => ({ common: { plan_id: String(id) },
	    read: { named_table: { unparsed_identifier: name } } });
	const col = (id, name) => ({ unresolved_attribute: {
		unparsed_identifier: name, plan_id: String(id) } });
	const j = { join: { left: table('q28_p', 1), right: table('q28_o', 2),
		join_type: 'JOIN_TYPE_INNER',
		join_condition: df.fn('==', col(1, 'id'), col(2, 'id')) } };
	const r = await run(s, df.project(j, col(2, 'id'), df.col('amount')));
	assert.deepEqual(lib.resultFields(r.responses), [
		['id', 'Int32', true], ['amount', 'Int32', true]]);
	assert.deepEqual(lib.resultRows(r.responses).sort(),
	    [[1, 10], [1, 5]].sort());
});
