// SPDX-License-Identifier: MIT
//
// 19-identifiers: long names in hand-made plans.  A name over sc-serve's
// 4096-byte limit fails with EXCEED_LIMIT_LENGTH naming the limit; it
// never reads the table named by its last bytes (a bounded buffer once
// dropped the front of a 5,000-byte name and read the table of the
// remaining 903).  Names at the limit work, also qualified, and a long
// unknown name stays in the error message, visibly cut where it is cut.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const { T } = lib;
const LIMIT = 4096;

function table(name) {
	return { root: { read: { named_table: { unparsed_identifier: name } } } };
}

function col(name) {
	return { unresolved_attribute: { unparsed_identifier: name } };
}

async function createTable(s, name, value) {
	const r = await s.execute(lib.sqlCommandPlan(
	    `CREATE TABLE ${name} AS SELECT ${value} AS x`));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
}

test('a 5,000-byte table name fails with EXCEED_LIMIT_LENGTH, never ' +
    'reading the table its last 903 bytes name', T, async () => {
	const s = new lib.Session(srv);
	const tail = 'b'.repeat(903);
	await createTable(s, tail, 42);
	const name = 'a'.repeat(LIMIT + 1) + tail;
	const r = await s.execute(table(name));
	assert.equal(lib.decodeBatches(r.responses).rows, 0,
	    'no rows come back');
	const { message } = lib.assertSparkError(lib.streamError(r),
	    'EXCEED_LIMIT_LENGTH', '54006');
	assert.equal(message, '[EXCEED_LIMIT_LENGTH] The identifier ' +
	    `'${'a'.repeat(60)}...' (${name.length} bytes) has a name longer ` +
	    `than the ${LIMIT} bytes sc-serve allows. SQLSTATE: 54006`);
	// The table itself is there.
	const ok = await s.execute(table(tail));
	assert.equal(ok.status.code, lib.code.OK, lib.statusText(ok.status));
	assert.deepEqual(lib.columnValues(ok.responses, 'x'), [42]);
});

test('a 5,000-byte column name fails the same way', T, async () => {
	const s = new lib.Session(srv);
	const name = 'c'.repeat(5000);
	const r = await s.execute({ root: { project: {
	    input: { sql: { query: 'SELECT 1 AS c' } },
	    expressions: [col(name)] } } });
	assert.equal(lib.decodeBatches(r.responses).rows, 0);
	const { message } = lib.assertSparkError(lib.streamError(r),
	    'EXCEED_LIMIT_LENGTH', '54006');
	assert.ok(message.includes(`(5000 bytes) has a name longer than the ` +
	    `${LIMIT} bytes`), message);
});

test('a table name of exactly 4096 bytes is read, also qualified', T,
    async () => {
	const s = new lib.Session(srv);
	const name = 'd'.repeat(LIMIT);
	await createTable(s, name, 7);
	const r = await s.execute(table(name));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(lib.columnValues(r.responses, 'x'), [7]);
	const q = await s.execute(table(`spark_catalog.default.${name}`));
	assert.equal(q.status.code, lib.code.OK, lib.statusText(q.status));
	assert.deepEqual(lib.columnValues(q.responses, 'x'), [7]);
});

test('a long unknown table or column keeps its name in the error, cut ' +
    'with a marker', T, async () => {
	const s = new lib.Session(srv);
	const zs = 'z'.repeat(3000);
	let r = await s.execute(table(zs));
	let { message } = lib.assertSparkError(lib.streamError(r),
	    'TABLE_OR_VIEW_NOT_FOUND', '42P01');
	let m = /^\[TABLE_OR_VIEW_NOT_FOUND\] The table or view `(z+)\.\.\.` cannot be found\. /.exec(message);
	assert.ok(m, message);
	assert.ok(m[1].length >= 400, `${m[1].length} bytes of the name kept`);
	const ys = 'y'.repeat(3000);
	r = await s.execute({ root: { project: {
	    input: { sql: { query: 'SELECT 1 AS c' } },
	    expressions: [col(ys)] } } });
	({ message } = lib.assertSparkError(lib.streamError(r),
	    'UNRESOLVED_COLUMN.WITHOUT_SUGGESTION', '42703'));
	m = /name `(y+)\.\.\.` cannot be resolved\. /.exec(message);
	assert.ok(m, message);
	assert.ok(m[1].length >= 400, `${m[1].length} bytes of the name kept`);
	// A short one is neither cut nor marked.
	r = await s.execute(table('no_such_short_table'));
	({ message } = lib.assertSparkError(lib.streamError(r),
	    'TABLE_OR_VIEW_NOT_FOUND', '42P01'));
	assert.ok(message.includes('`no_such_short_table` cannot be found'),
	    message);
});

lib.stopTest(srv);
