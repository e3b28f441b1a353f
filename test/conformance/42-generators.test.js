// SPDX-License-Identifier: MIT
//
// 42-generators: generators with Spark's rows, names and types: explode
// and posexplode without a FROM clause (over one row, as Spark's
// OneRowRelation), inline and inline_outer (the fields of an array of
// structs, a null element giving a row of nulls), json_tuple (one row
// per input row, columns c0, c1, ... of text); map_entries; and count()
// of several columns, which counts the rows where none is null (with
// DISTINCT, the distinct tuples).  Expected answers follow the examples of Spark's SQL
// function reference (explode, inline, json_tuple, count).

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { df } = lib;
const srv = lib.useServer();
const { T } = lib;

async function sql(s, query) {
	const r = await s.execute(lib.sqlPlan(query));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return { rows: lib.resultRows(r.responses),
		fields: lib.resultFields(r.responses) };
}

test('explode and posexplode need no FROM clause', T, async () => {
	const s = new lib.Session(srv);
	let got = await sql(s, 'SELECT explode(array(10, 20))');
	assert.deepEqual(got.fields, [['col', 'Int32', false]]);
	assert.deepEqual(got.rows, [[10], [20]]);
	got = await sql(s, "SELECT posexplode(map('a', 1, 'b', 2)), 5 AS k");
	assert.deepEqual(got.fields, [['pos', 'Int32', false],
		['key', 'Utf8', false], ['value', 'Int32', false],
		['k', 'Int32', false]]);
	assert.deepEqual(got.rows, [[0, 'a', 1, 5], [1, 'b', 2, 5]]);
});

test('inline gives the struct fields as columns', T, async () => {
	const s = new lib.Session(srv);
	// Spark's reference: inline(array(struct(1, 'a'), struct(2, 'b'))).
	let got = await sql(s,
	    "SELECT inline(array(struct(1, 'a'), struct(2, 'b')))");
	assert.deepEqual(got.fields, [['col1', 'Int32', false],
		['col2', 'Utf8', false]]);
	assert.deepEqual(got.rows, [[1, 'a'], [2, 'b']]);
	got = await sql(s, 'SELECT id, inline_outer(array(struct(id AS a, ' +
	    "'x' AS b))) FROM range(2)");
	assert.deepEqual(got.rows, [[0n, 0n, 'x'], [1n, 1n, 'x']]);
	assert.deepEqual(got.fields.map((f) => f[0]), ['id', 'a', 'b']);
	// A DataFrame plan: inline over a column, with aliases.
	const r = await s.execute(df.plan(df.project(
	    lib.sqlPlan("SELECT array(struct(1 AS a, 'p' AS b), " +
		"struct(2 AS a, 'q' AS b)) AS arr").root,
	    { alias: { expr: df.fn('inline', df.col('arr')),
		name: ['n', 's'] } })));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(lib.resultRows(r.responses), [[1, 'p'], [2, 'q']]);
	assert.deepEqual(lib.resultFields(r.responses).map((f) => f[0]),
	    ['n', 's']);
});

test('inline of something else is DATATYPE_MISMATCH', T, async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(lib.sqlPlan('SELECT inline(array(1, 2))'));
	lib.assertSparkError(lib.streamError(r),
	    'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE', '42K09');
});

test('json_tuple gives one row of text per input row', T, async () => {
	const s = new lib.Session(srv);
	// Spark's reference: json_tuple('{"a":1, "b":2}', 'a', 'b') is 1, 2.
	let got = await sql(s,
	    'SELECT json_tuple(\'{"a":1, "b":2}\', \'a\', \'b\')');
	assert.deepEqual(got.fields, [['c0', 'Utf8', true],
		['c1', 'Utf8', true]]);
	assert.deepEqual(got.rows, [['1', '2']]);
	got = await sql(s, 'SELECT json_tuple(\'{"s":"x", "o":{"d":true}, ' +
	    '"n":null, "f":false}\', \'s\', \'o\', \'n\', \'f\', \'z\')');
	assert.deepEqual(got.rows, [['x', '{"d":true}', null, 'false',
		null]]);
	got = await sql(s, "SELECT json_tuple('not json', 'a')");
	assert.deepEqual(got.rows, [[null]]);
	got = await sql(s, 'SELECT id, json_tuple(j, \'k\') FROM VALUES ' +
	    '(1, \'{"k":"one"}\'), (2, \'[]\') AS t(id, j)');
	assert.deepEqual(got.rows, [[1, 'one'], [2, null]]);
});

test('count() of several columns counts rows without a null', T,
    async () => {
	const s = new lib.Session(srv);
	const got = await sql(s, 'SELECT count(DISTINCT a, b), count(a, b), ' +
	    'count(DISTINCT a) FROM VALUES (1, 2), (1, 2), (2, 3), ' +
	    '(NULL, 1), (4, NULL) AS t(a, b)');
	assert.deepEqual(got.fields, [['count(DISTINCT a, b)', 'Int64', false],
		['count(a, b)', 'Int64', false],
		['count(DISTINCT a)', 'Int64', false]]);
	assert.deepEqual(got.rows, [[2n, 3n, 3n]]);
});

test('map_entries is an array of key, value structs', T, async () => {
	const s = new lib.Session(srv);
	// Spark's reference: map_entries(map(1, 'a', 2, 'b')) is
	// [{1, a}, {2, b}].
	const got = await sql(s, "SELECT map_entries(map(1, 'a', 2, 'b')) AS e, " +
	    "map_entries(map(1, 'a', 2, 'b'))[1].value, " +
	    "typeof(map_entries(map(1, 'a')))");
	assert.deepEqual(got.rows, [[[{ key: 1, value: 'a' },
		{ key: 2, value: 'b' }], 'b',
		'array<struct<key:int,value:string>>']]);
	assert.deepEqual(got.fields.map((f) => f[0]), ['e',
		'map_entries(map(1, a, 2, b))[1].value',
		'typeof(map_entries(map(1, a)))']);
});

lib.stopTest(srv);
