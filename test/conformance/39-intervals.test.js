// SPDX-License-Identifier: MIT
//
// 39-intervals: datetime arithmetic as Spark answers it: date + integer
// is date_add, date - date and timestamp - timestamp are intervals; what
// sc-serve cannot answer is refused by name, never a wrong value.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const T = { timeout: 30000 };

async function sql(s, query) {
	const r = await s.execute(lib.sqlPlan(query));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return { rows: lib.resultRows(r.responses),
		fields: lib.resultFields(r.responses) };
}

async function sqlFails(s, query, cls, state) {
	const r = await s.execute(lib.sqlPlan(query));
	lib.assertSparkError(lib.streamError(r), cls, state);
}

test('date + integer and date - integer are date_add and date_sub', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await sql(s, "SELECT date'2024-01-02' + 1, " +
	    "2 + date'2024-01-02', date'2024-03-01' - 1");
	assert.deepEqual(r.fields.map((f) => f[0]), [
		"date_add(DATE '2024-01-02', 1)",
		"date_add(DATE '2024-01-02', 2)",
		"date_sub(DATE '2024-03-01', 1)"]);
	assert.deepEqual(r.fields.map((f) => f[1]), [
		'Date32<DAY>', 'Date32<DAY>', 'Date32<DAY>']);
	assert.deepEqual(r.rows.map((row) => row.map((v) =>
	    new Date(v).toISOString().slice(0, 10))), [
		['2024-01-03', '2024-01-04', '2024-02-29']]);
});

test('datetime arithmetic without an answer is refused by name', T,
    async () => {
	const s = new lib.Session(srv);
	await sqlFails(s, "SELECT date'2024-01-02' - date'2024-01-01'",
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
	await sqlFails(s, "SELECT date'2024-01-02' * 2",
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
});

lib.stopTest(srv);
