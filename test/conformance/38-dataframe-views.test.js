// SPDX-License-Identifier: MIT
//
// 38-dataframe-views: df.createTempView(name) and createOrReplaceTempView
// (the create_dataframe_view command, field 3 of Command): the view is
// then read by SQL text and by a named table read with the DataFrame's
// own names, types and rows, a local relation's rows included (they
// outlive the command that made the view).  As Spark: creating a taken
// name without replace is TEMP_TABLE_OR_VIEW_ALREADY_EXISTS (42P07),
// replace swaps the view, views belong to their session, and a name of
// several parts is refused.  Global temp views are refused by name.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { arrow, df } = lib;
const srv = lib.useServer();
const { T } = lib;

const range = (start, end) => ({ range: { start: String(start),
	end: String(end), step: '1' } });

function people() {
	return df.local(new arrow.Table({
		id: arrow.vectorFromArray([1, 2, 3], new arrow.Int32()),
		name: arrow.vectorFromArray(['ann', 'bob', null],
		    new arrow.Utf8()),
		ok: arrow.vectorFromArray([true, false, true],
		    new arrow.Bool()),
	}));
}

const viewPlan = (input, name, replace = true, isGlobal = false) => ({
	command: { create_dataframe_view: { input, name, replace,
		is_global: isGlobal } } });

async function ok(s, plan) {
	const r = await s.execute(plan);
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return r;
}

async function sqlRows(s, query) {
	const r = await ok(s, lib.sqlPlan(query));
	return { rows: lib.resultRows(r.responses),
		fields: lib.resultFields(r.responses) };
}

test('createOrReplaceTempView of a local relation keeps names, types ' +
    'and rows', T, async () => {
	const s = new lib.Session(srv);
	const r = await ok(s, viewPlan(people(), 'people'));
	assert.ok(r.responses.some((m) => m.result_complete),
	    'the command ends with ResultComplete');
	const got = await sqlRows(s, 'SELECT * FROM people ORDER BY id');
	assert.deepEqual(got.fields, [['id', 'Int32', true],
		['name', 'Utf8', true], ['ok', 'Bool', true]]);
	assert.deepEqual(got.rows, [[1, 'ann', true], [2, 'bob', false],
		[3, null, true]]);
	// Again in a later operation: the rows outlived the command.
	const sum = await sqlRows(s,
	    'SELECT sum(id) AS s, count(name) AS c FROM people WHERE ok');
	assert.deepEqual(sum.rows, [[4n, 1n]]);
	assert.deepEqual(sum.fields, [['s', 'Int64', true],
		['c', 'Int64', false]]);
});

test('a view of a DataFrame plan is read by a named table read', T,
    async () => {
	const s = new lib.Session(srv);
	await ok(s, viewPlan(df.filter(range(0, 10),
	    df.fn('>', df.col('id'), df.lit(6))), 'big'));
	const r = await ok(s, df.plan({ read: { named_table: {
		unparsed_identifier: 'big' } } }));
	assert.deepEqual(lib.resultFields(r.responses),
	    [['id', 'Int64', false]]);
	assert.deepEqual(lib.resultRows(r.responses), [[7n], [8n], [9n]]);
});

test('createTempView of a taken name is TEMP_TABLE_OR_VIEW_ALREADY_EXISTS',
    T, async () => {
	const s = new lib.Session(srv);
	await ok(s, viewPlan(range(0, 2), 'v1', false));
	const r = await s.execute(viewPlan(range(0, 5), 'v1', false));
	const e = lib.assertSparkError(lib.streamError(r),
	    'TEMP_TABLE_OR_VIEW_ALREADY_EXISTS', '42P07');
	assert.match(e.message, /`v1`/);
	// The first view is untouched.
	assert.deepEqual((await sqlRows(s, 'SELECT count(*) FROM v1')).rows,
	    [[2n]]);
});

test('createOrReplaceTempView replaces the view and its rows', T,
    async () => {
	const s = new lib.Session(srv);
	await ok(s, viewPlan(people(), 'p2'));
	await ok(s, viewPlan(df.local(new arrow.Table({
		x: arrow.vectorFromArray([1.5, 2.5], new arrow.Float64()),
	})), 'p2'));
	const got = await sqlRows(s, 'SELECT * FROM p2 ORDER BY x');
	assert.deepEqual(got.fields, [['x', 'Float64', true]]);
	assert.deepEqual(got.rows, [[1.5], [2.5]]);
});

test('a temp view belongs to its session', T, async () => {
	const a = new lib.Session(srv), b = new lib.Session(srv);
	await ok(a, viewPlan(range(0, 3), 'mine'));
	const r = await b.execute(lib.sqlPlan('SELECT * FROM mine'));
	lib.assertSparkError(lib.streamError(r), 'TABLE_OR_VIEW_NOT_FOUND',
	    '42P01');
});

test('wrong names and global views are refused', T, async () => {
	const s = new lib.Session(srv);
	let r = await s.execute(viewPlan(range(0, 1), 'db.v'));
	lib.assertSparkError(lib.streamError(r), 'INVALID_IDENTIFIER',
	    '42602');
	r = await s.execute(viewPlan(range(0, 1), ''));
	lib.assertSparkError(lib.streamError(r), 'INVALID_IDENTIFIER',
	    '42602');
	r = await s.execute(viewPlan(range(0, 1), 'g', true, true));
	const e = lib.assertSparkError(lib.streamError(r),
	    'UNSUPPORTED_FEATURE.COMMAND', '0A000');
	assert.match(e.message, /global temporary views/);
	r = await s.execute(viewPlan(undefined, 'x'));
	lib.assertSparkError(lib.streamError(r), 'INVALID_PLAN_INPUT',
	    '22023');
});

test('a backquoted name is one part', T, async () => {
	const s = new lib.Session(srv);
	await ok(s, viewPlan(range(0, 4), '`my view`'));
	assert.deepEqual((await sqlRows(s,
	    'SELECT count(*) FROM `my view`')).rows, [[4n]]);
});

lib.stopTest(srv);
