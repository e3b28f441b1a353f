// SPDX-License-Identifier: MIT
//
// 37-sql-text: Spark SQL text as Spark answers it: parameter markers (?
// and :name) bound as literals with their Spark types and names, an
// unbound one refused as UNBOUND_SQL_PARAMETER; and the query context
// (fragment, start and stop index, summary) FetchErrorDetails gives for
// PARSE_SYNTAX_ERROR, UNRESOLVED_COLUMN, TABLE_OR_VIEW_NOT_FOUND and
// DIVIDE_BY_ZERO, with PARSE_SYNTAX_ERROR's error and hint parameters.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const { T } = lib;

async function rows(s, plan) {
	const r = await s.execute(plan);
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return { rows: lib.resultRows(r.responses),
	    fields: lib.resultFields(r.responses) };
}

// The query text's error: class, and its FetchErrorDetails SparkThrowable.
async function fails(s, plan, errorClass, sqlState) {
	const r = await s.execute(plan);
	const { errorInfo } = lib.assertSparkError(lib.streamError(r),
	    errorClass, sqlState);
	const d = await s.fetchErrorDetails(errorInfo.metadata.errorId);
	assert.equal(d._root_error_idx, 'root_error_idx');
	return d.errors[d.root_error_idx].spark_throwable;
}

const sqlArgs = (query, extra) => ({ root: { sql: { query, ...extra } } });

test('positional parameters are literals of their Spark type', T,
    async () => {
	const s = new lib.Session(srv);
	const { rows: r, fields } = await rows(s, sqlArgs(
	    'SELECT ? AS a, typeof(?) AS t, ? / 2 AS h, ? AS b',
	    { pos_args: [{ integer: 5 }, { integer: 5 }, { integer: 5 },
		{ boolean: true }] }));
	assert.deepEqual(fields.map((f) => f.slice(0, 2)), [
		['a', 'Int32'], ['t', 'Utf8'], ['h', 'Float64'], ['b', 'Bool']]);
	assert.deepEqual(r, [[5, 'int', 2.5, true]]);
});

test('named parameters are literals, named as Spark names them', T,
    async () => {
	const s = new lib.Session(srv);
	const { rows: r, fields } = await rows(s, sqlArgs(
	    'SELECT :x, :x + 1 AS y FROM range(2) WHERE id < :n',
	    { args: { x: { long: '7' }, n: { integer: 1 } } }));
	assert.deepEqual(fields.map((f) => f.slice(0, 2)),
	    [['7', 'Int64'], ['y', 'Int64']]);
	assert.deepEqual(r, [[7n, 8n]]);
	// 4.x named_arguments: expressions, here a literal.
	const r2 = await rows(s, sqlArgs('SELECT :d AS d',
	    { named_arguments: { d: { literal: { string: 'x' } } } }));
	assert.deepEqual(r2.rows, [['x']]);
});

test('a parameter without a value is UNBOUND_SQL_PARAMETER', T, async () => {
	const s = new lib.Session(srv);
	let t = await fails(s, sqlArgs('SELECT :y AS y',
	    { args: { x: { integer: 1 } } }), 'UNBOUND_SQL_PARAMETER',
	'42P02');
	assert.equal(t.error_class, 'UNBOUND_SQL_PARAMETER');
	// Unbound positional markers are named by their offset in the text.
	const r = await s.execute(sqlArgs('SELECT ?, ?',
	    { pos_args: [{ integer: 1 }] }));
	const e = lib.streamError(r);
	lib.assertSparkError(e, 'UNBOUND_SQL_PARAMETER', '42P02');
	assert.match(e.details, /unbound parameter: _10\./);
	// No arguments at all: the marker is still a parameter.  Its query
	// context is the marker.
	t = await fails(s, lib.sqlPlan('SELECT 1 + :z'),
	    'UNBOUND_SQL_PARAMETER', '42P02');
	assert.equal(t.sql_state, '42P02');
	assert.equal(t.query_contexts[0].fragment, ':z');
	assert.equal(t.query_contexts[0].start_index, 11);
	assert.equal(t.query_contexts[0].stop_index, 12);
});

test('UNRESOLVED_COLUMN has the column name\'s query context', T,
    async () => {
	const s = new lib.Session(srv);
	// No relation: no names to suggest, as in Spark.
	const t = await fails(s, lib.sqlPlan('SELECT 1 AS a,\n  nosuchcol + 1'),
	    'UNRESOLVED_COLUMN.WITHOUT_SUGGESTION', '42703');
	assert.equal(t.query_contexts.length, 1);
	const c = t.query_contexts[0];
	assert.equal(c.context_type, 'SQL');
	assert.equal(c.fragment, 'nosuchcol');
	assert.equal(c.start_index, 17);
	assert.equal(c.stop_index, 25);
	assert.equal(c.summary, '== SQL (line 2, position 3) ==\n' +
	    '  nosuchcol + 1\n  ^^^^^^^^^\n');
});

test('TABLE_OR_VIEW_NOT_FOUND has the table name\'s query context', T,
    async () => {
	const s = new lib.Session(srv);
	const t = await fails(s, lib.sqlPlan('SELECT * FROM sq37_missing'),
	    'TABLE_OR_VIEW_NOT_FOUND', '42P01');
	const c = t.query_contexts[0];
	assert.equal(c.fragment, 'sq37_missing');
	assert.equal(c.start_index, 14);
	assert.equal(c.stop_index, 25);
});

test('DIVIDE_BY_ZERO has the division\'s query context', T, async () => {
	const s = new lib.Session(srv);
	const t = await fails(s, lib.sqlPlan('SELECT 1 / 0 AS q'),
	    'DIVIDE_BY_ZERO', '22012');
	const c = t.query_contexts[0];
	assert.equal(c.fragment, '1 / 0');
	assert.equal(c.start_index, 7);
	assert.equal(c.stop_index, 11);
});

test('PARSE_SYNTAX_ERROR has its token\'s position and Spark\'s ' +
    'parameters', T, async () => {
	const s = new lib.Session(srv);
	const t = await fails(s, lib.sqlPlan('SELECT 1 FROM range(2) WHERE'),
	    'PARSE_SYNTAX_ERROR', '42601');
	assert.deepEqual(t.message_parameters, { error: 'end of input',
	    hint: '' });
	const t2 = await fails(s, lib.sqlPlan('SELEKT 1'),
	    'PARSE_SYNTAX_ERROR', '42601');
	assert.deepEqual(t2.message_parameters, { error: '\'SELEKT\'',
	    hint: '' });
	const c = t2.query_contexts[0];
	assert.equal(c.fragment, 'SELEKT');
	assert.equal(c.start_index, 0);
	assert.equal(c.stop_index, 5);
});

lib.stopTest(srv);
