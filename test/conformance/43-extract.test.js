// SPDX-License-Identifier: MIT
//
// 43-extract: extract(field, source) as PySpark sends it, date_part and
// datepart: each field gives the function of its name (year, quarter,
// month, week, day, dayofweek, doy, hour, minute) with Spark's column
// name; the expected values are the examples of Spark's SQL function
// reference for date_part.  SECOND (a decimal in Spark) and the ISO
// week fields are refused by name; an unknown field is
// INVALID_EXTRACT_FIELD.

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

test('date_part gives the documented values and names', T, async () => {
	const s = new lib.Session(srv);
	const got = await sql(s, "SELECT date_part('YEAR', TIMESTAMP " +
	    "'2019-08-12 01:00:00.123456'), date_part('week', timestamp " +
	    "'2019-08-12 01:00:00.123456'), date_part('doy', " +
	    "DATE'2019-08-12'), datepart('MONTH', DATE'2019-08-12')");
	assert.deepEqual(got.rows, [[2019, 33, 224, 8]]);
	assert.deepEqual(got.fields, [
		["date_part(YEAR, TIMESTAMP '2019-08-12 01:00:00.123456')",
		    'Int32', false],
		["date_part(week, TIMESTAMP '2019-08-12 01:00:00.123456')",
		    'Int32', false],
		["date_part(doy, DATE '2019-08-12')", 'Int32', false],
		["datepart(MONTH, DATE '2019-08-12')", 'Int32', false]]);
});

test('extract(field, column) as a DataFrame function', T, async () => {
	const s = new lib.Session(srv);
	const input = lib.sqlPlan("SELECT TIMESTAMP'2024-05-17 13:45:00' AS " +
	    'ts').root;
	const r = await s.execute(df.plan(df.project(input,
	    df.fn('extract', df.lit('YEAR'), df.col('ts')),
	    df.fn('extract', df.lit('qtr'), df.col('ts')),
	    df.fn('extract', df.lit('DOW'), df.col('ts')),
	    df.fn('extract', df.lit('H'), df.col('ts')),
	    df.fn('extract', df.lit('mins'), df.col('ts')))));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	// 2024-05-17 is a Friday: Spark's dayofweek counts Sunday as 1.
	assert.deepEqual(lib.resultRows(r.responses), [[2024, 2, 6, 13, 45]]);
	assert.deepEqual(lib.resultFields(r.responses).map((f) => f[0]), [
		'extract(YEAR FROM ts)', 'extract(qtr FROM ts)',
		'extract(DOW FROM ts)', 'extract(H FROM ts)',
		'extract(mins FROM ts)']);
});

test('wrong fields are refused with their class', T, async () => {
	const s = new lib.Session(srv);
	let r = await s.execute(lib.sqlPlan(
	    "SELECT date_part('foo', DATE'2019-08-12')"));
	const e = lib.assertSparkError(lib.streamError(r),
	    'INVALID_EXTRACT_FIELD', '42601');
	assert.match(e.message, /"foo"/);
	r = await s.execute(lib.sqlPlan(
	    "SELECT date_part('SECONDS', TIMESTAMP'2019-10-01 00:00:01')"));
	lib.assertSparkError(lib.streamError(r),
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
	r = await s.execute(lib.sqlPlan(
	    "SELECT date_part(s, DATE'2019-08-12') FROM VALUES ('YEAR') " +
	    'AS t(s)'));
	lib.assertSparkError(lib.streamError(r), 'NON_FOLDABLE_ARGUMENT',
	    '42K08');
});

lib.stopTest(srv);
