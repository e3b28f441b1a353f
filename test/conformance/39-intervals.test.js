// SPDX-License-Identifier: MIT
//
// 39-intervals: Spark's ANSI interval types (DayTimeIntervalType as Arrow
// Duration[us], YearMonthIntervalType as Interval[YEAR_MONTH]) and the
// datetime arithmetic around them, as Spark answers it: date + integer
// is date_add, date - date and timestamp - timestamp are intervals,
// INTERVAL literals in SQL text and in the protocol, schemas and names;
// what sc-serve cannot answer is refused by name, never a wrong value.

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
	await sqlFails(s, "SELECT date'2024-01-02' * 2",
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
});

const DAY = 86400000000n;

// An AnalyzePlan schema's fields: name, interval kind, start, end.
const ivalFields = (schema) => schema.struct.fields.map((x) => {
	const k = x.data_type.kind;
	const d = x.data_type[k];
	return [x.name, k, d.start_field, d.end_field];
});

// A value of a Duration column (bigint microseconds, as apache-arrow
// gives it) or of a year-month Interval column (months).
const months = (v) => typeof v === 'number' ? v :
	v instanceof Int32Array ? v[0] * 12 + v[1] : Number(v);

test('date - date is a day interval, timestamp - timestamp day to second',
    T, async () => {
	const s = new lib.Session(srv);
	const r = await sql(s, "SELECT date'2024-01-02' - date'2024-01-01', " +
	    "timestamp'2024-01-01 00:00' - timestamp'2023-12-31 00:00', " +
	    "date'2024-01-01' - date'2024-03-01'");
	assert.deepEqual(r.fields, [
		["(DATE '2024-01-02' - DATE '2024-01-01')",
			'Duration<MICROSECOND>', false],
		["(TIMESTAMP '2024-01-01 00:00:00' - " +
		    "TIMESTAMP '2023-12-31 00:00:00')",
		'Duration<MICROSECOND>', false],
		["(DATE '2024-01-01' - DATE '2024-03-01')",
			'Duration<MICROSECOND>', false]]);
	assert.deepEqual(r.rows[0].map(BigInt), [DAY, DAY, -60n * DAY]);
	const a = await s.analyze({ schema: { plan: lib.sqlPlan(
	    "SELECT date'2024-01-02' - date'2024-01-01' AS d, " +
	    "timestamp'2024-01-01 00:00' - timestamp'2023-12-31 00:00' AS t")
	} });
	assert.deepEqual(ivalFields(a.schema.schema), [
		['d', 'day_time_interval', 0, 0],
		['t', 'day_time_interval', 0, 3]]);
});

test('INTERVAL literals in SQL text: types, values and Spark\'s names', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await sql(s, "SELECT INTERVAL '3' DAY, INTERVAL 1 YEAR " +
	    "2 MONTHS, INTERVAL '1 02:03:04.5' DAY TO SECOND, INTERVAL -3 " +
	    "HOURS, INTERVAL '-1-2' YEAR TO MONTH, INTERVAL '10' MONTH, " +
	    "INTERVAL '01:30' HOUR TO MINUTE, INTERVAL 2 WEEKS");
	assert.deepEqual(r.fields.map((f) => f[0]), [
		"INTERVAL '3' DAY", "INTERVAL '1-2' YEAR TO MONTH",
		"INTERVAL '1 02:03:04.5' DAY TO SECOND", "INTERVAL '-03' HOUR",
		"INTERVAL '-1-2' YEAR TO MONTH", "INTERVAL '10' MONTH",
		"INTERVAL '01:30' HOUR TO MINUTE", "INTERVAL '14' DAY"]);
	assert.deepEqual(r.fields.map((f) => f[1]), [
		'Duration<MICROSECOND>', 'Interval<YEAR_MONTH>',
		'Duration<MICROSECOND>', 'Duration<MICROSECOND>',
		'Interval<YEAR_MONTH>', 'Interval<YEAR_MONTH>',
		'Duration<MICROSECOND>', 'Duration<MICROSECOND>']);
	const v = r.rows[0];
	assert.equal(BigInt(v[0]), 3n * DAY);
	assert.equal(months(v[1]), 14);
	assert.equal(BigInt(v[2]), DAY + 7384500000n);
	assert.equal(BigInt(v[3]), -3n * 3600000000n);
	assert.equal(months(v[4]), -14);
	assert.equal(months(v[5]), 10);
	assert.equal(BigInt(v[6]), 5400000000n);
	assert.equal(BigInt(v[7]), 14n * DAY);
	const t = await sql(s, "SELECT typeof(INTERVAL '3' DAY), " +
	    "typeof(INTERVAL 1 YEAR 2 MONTHS), typeof(INTERVAL '1' DAY + " +
	    "INTERVAL '2' HOUR), typeof(INTERVAL '10' MONTH)");
	assert.deepEqual(t.rows[0], ['interval day', 'interval year to month',
		'interval day to hour', 'interval month']);
});

test('malformed and mixed INTERVAL literals fail by name', T, async () => {
	const s = new lib.Session(srv);
	await sqlFails(s, "SELECT INTERVAL '1 25' DAY TO HOUR",
	    'INVALID_INTERVAL_FORMAT', '22006');
	await sqlFails(s, "SELECT INTERVAL '1-12' YEAR TO MONTH",
	    'INVALID_INTERVAL_FORMAT', '22006');
	await sqlFails(s, 'SELECT INTERVAL 1 YEAR 2 DAYS',
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
	await sqlFails(s, "SELECT INTERVAL '1 day'",
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
});

test('date and timestamp plus or minus an interval', T, async () => {
	const s = new lib.Session(srv);
	const r = await sql(s, "SELECT date'2024-01-01' + INTERVAL '1' DAY, " +
	    "date'2024-01-01' - INTERVAL 1 DAY, " +
	    "date'2024-01-31' + INTERVAL '1' MONTH, " +
	    "date'2024-01-01' + INTERVAL '2' HOUR, " +
	    "INTERVAL 2 DAYS + timestamp'2024-01-01 00:00:00', " +
	    "timestamp'2024-01-31 10:00:00' + INTERVAL '1-1' YEAR TO MONTH, " +
	    "timestamp'2024-01-01 00:00:00' - INTERVAL '1:30' HOUR TO MINUTE");
	assert.deepEqual(r.fields.map((f) => f[0]), [
		"date_add(DATE '2024-01-01', " +
		    "extractansiintervaldays(INTERVAL '1' DAY))",
		"date_add(DATE '2024-01-01', " +
		    "(- extractansiintervaldays(INTERVAL '1' DAY)))",
		"DATE '2024-01-31' + INTERVAL '1' MONTH",
		"DATE '2024-01-01' + INTERVAL '02' HOUR",
		"INTERVAL '2' DAY + TIMESTAMP '2024-01-01 00:00:00'",
		"TIMESTAMP '2024-01-31 10:00:00' + " +
		    "INTERVAL '1-1' YEAR TO MONTH",
		"TIMESTAMP '2024-01-01 00:00:00' - " +
		    "INTERVAL '01:30' HOUR TO MINUTE"]);
	assert.deepEqual(r.fields.map((f) => f[1]), [
		'Date32<DAY>', 'Date32<DAY>', 'Date32<DAY>',
		'Timestamp<MICROSECOND, UTC>', 'Timestamp<MICROSECOND, UTC>',
		'Timestamp<MICROSECOND, UTC>', 'Timestamp<MICROSECOND, UTC>']);
	const iso = (v) => new Date(Number(v)).toISOString();
	assert.deepEqual(r.rows[0].map(iso), [
		'2024-01-02T00:00:00.000Z', '2023-12-31T00:00:00.000Z',
		'2024-02-29T00:00:00.000Z', '2024-01-01T02:00:00.000Z',
		'2024-01-03T00:00:00.000Z', '2025-02-28T10:00:00.000Z',
		'2023-12-31T22:30:00.000Z']);
});

test('interval arithmetic, comparisons and make_*_interval', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await sql(s, "SELECT INTERVAL '1' DAY + INTERVAL '2' HOUR, " +
	    "INTERVAL '3' DAY - INTERVAL '1' DAY, INTERVAL '1' DAY * 2.5, " +
	    "INTERVAL '1' DAY / 3, INTERVAL '1' YEAR / 5, " +
	    "- INTERVAL '1' DAY, INTERVAL '3' DAY > INTERVAL 2 DAYS, " +
	    'make_dt_interval(1, 2, 3, 4.5), make_ym_interval(1, 2)');
	assert.deepEqual(r.fields.map((f) => f[0]), [
		"(INTERVAL '1' DAY + INTERVAL '02' HOUR)",
		"(INTERVAL '3' DAY - INTERVAL '1' DAY)",
		"(INTERVAL '1' DAY * 2.5)", "(INTERVAL '1' DAY / 3)",
		"(INTERVAL '1' YEAR / 5)", "(- INTERVAL '1' DAY)",
		"(INTERVAL '3' DAY > INTERVAL '2' DAY)",
		'make_dt_interval(1, 2, 3, 4.5)', 'make_ym_interval(1, 2)']);
	const v = r.rows[0];
	assert.equal(BigInt(v[0]), DAY + 7200000000n);
	assert.equal(BigInt(v[1]), 2n * DAY);
	assert.equal(BigInt(v[2]), 5n * DAY / 2n);
	assert.equal(BigInt(v[3]), DAY / 3n);
	assert.equal(months(v[4]), 2);
	assert.equal(BigInt(v[5]), -DAY);
	assert.equal(v[6], true);
	assert.equal(BigInt(v[7]), DAY + 7384500000n);
	assert.equal(months(v[8]), 14);
	await sqlFails(s, "SELECT INTERVAL '1' DAY / 0",
	    'INTERVAL_DIVIDED_BY_ZERO', '22012');
	await sqlFails(s, "SELECT INTERVAL '1' DAY + INTERVAL '1' MONTH",
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
	await sqlFails(s, "SELECT INTERVAL '1' DAY = 86400000000",
	    'DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES', '42K09');
	await sqlFails(s, "SELECT INTERVAL '1' DAY < INTERVAL '1' MONTH",
	    'DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES', '42K09');
});

test('interval literals of the protocol and local relation columns', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(df.plan(df.project(null,
	    df.lit({ day_time_interval: String(DAY + 1500000n) }),
	    df.lit({ year_month_interval: -14 }))));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(lib.resultFields(r.responses), [
		["INTERVAL '1 00:00:01.5' DAY TO SECOND",
			'Duration<MICROSECOND>', false],
		["INTERVAL '-1-2' YEAR TO MONTH", 'Interval<YEAR_MONTH>',
			false]]);
	const v = lib.resultRows(r.responses)[0];
	assert.equal(BigInt(v[0]), DAY + 1500000n);
	assert.equal(months(v[1]), -14);
	const ddl = 'd interval day, t interval day to second, ' +
	    'y interval year to month';
	const a = await s.analyze({ schema: { plan: df.plan(
	    df.local(null, ddl)) } });
	assert.deepEqual(ivalFields(a.schema.schema), [
		['d', 'day_time_interval', 0, 0],
		['t', 'day_time_interval', 0, 3],
		['y', 'year_month_interval', 0, 1]]);
	const tbl = new lib.arrow.Table({
		d: lib.arrow.vectorFromArray([DAY, null],
		    new lib.arrow.Duration(lib.arrow.TimeUnit.MICROSECOND)),
	});
	const q = await s.execute(df.plan(df.project(df.local(tbl),
	    df.fn('+', df.col('d'), df.col('d')))));
	assert.equal(q.status.code, lib.code.OK, lib.statusText(q.status));
	assert.deepEqual(lib.resultFields(q.responses),
	    [['(d + d)', 'Duration<MICROSECOND>', true]]);
	assert.deepEqual(lib.resultRows(q.responses).map((x) =>
	    x[0] === null ? null : BigInt(x[0])), [2n * DAY, null]);
});

test('casts to and from intervals; other functions of one refused', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await sql(s, "SELECT CAST(INTERVAL '1' DAY AS STRING), " +
	    "CAST(INTERVAL '1-2' YEAR TO MONTH AS STRING), " +
	    "CAST(INTERVAL '3' DAY AS BIGINT), CAST(INTERVAL '2' YEAR AS INT), " +
	    "CAST('1' AS INTERVAL DAY), " +
	    "CAST('INTERVAL \\'1 02\\' DAY TO HOUR' AS INTERVAL DAY TO HOUR), " +
	    "try_cast('x' AS INTERVAL DAY), " +
	    "CAST(INTERVAL '1 05:00:00' DAY TO SECOND AS INTERVAL DAY), " +
	    'CAST(2 AS INTERVAL HOUR)');
	const v = r.rows[0];
	assert.deepEqual(v.slice(0, 4), ["INTERVAL '1' DAY",
		"INTERVAL '1-2' YEAR TO MONTH", 3n, 2]);
	assert.equal(BigInt(v[4]), DAY);
	assert.equal(BigInt(v[5]), DAY + 7200000000n);
	assert.equal(v[6], null);
	assert.equal(BigInt(v[7]), DAY);
	assert.equal(BigInt(v[8]), 7200000000n);
	await sqlFails(s, "SELECT CAST('x' AS INTERVAL DAY)",
	    'CAST_INVALID_INPUT', '22018');
	await sqlFails(s, "SELECT CAST(INTERVAL '1 05' DAY TO HOUR AS INT)",
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
	await sqlFails(s, "SELECT concat('x', INTERVAL '1' DAY)",
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
});

test('show() prints intervals as Spark does, with their fields', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(df.plan({ show_string: { input:
	    lib.sqlPlan("SELECT INTERVAL '1' DAY AS d, INTERVAL '1-2' " +
	    "YEAR TO MONTH AS y, CAST(NULL AS INTERVAL HOUR) AS n").root,
	num_rows: 20, truncate: 0, vertical: false } }));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(lib.resultRows(r.responses), [[
		'+----------------+----------------------------+----+\n' +
		'|d               |y                           |n   |\n' +
		'+----------------+----------------------------+----+\n' +
		"|INTERVAL '1' DAY|INTERVAL '1-2' YEAR TO MONTH|NULL|\n" +
		'+----------------+----------------------------+----+\n']]);
});

test('COLLATE UTF8_LCASE compares lower-cased, UTF8_BINARY as bytes', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await sql(s, "SELECT 'a' COLLATE UTF8_LCASE = 'A', " +
	    "'a' COLLATE UTF8_BINARY = 'A', 'É' COLLATE utf8_lcase = 'é', " +
	    "collate('B', 'UTF8_LCASE') < 'a', " +
	    "lower('A' COLLATE UTF8_LCASE) = 'A', " +
	    "CAST('x' AS STRING COLLATE UTF8_LCASE) <> 'X', " +
	    "typeof('a' COLLATE UTF8_LCASE), 'a' COLLATE UTF8_LCASE");
	assert.deepEqual(r.fields.map((f) => f[0]), [
		'(collate(a, UTF8_LCASE) = A)', '(collate(a, UTF8_BINARY) = A)',
		'(collate(É, UTF8_LCASE) = é)', '(collate(B, UTF8_LCASE) < a)',
		'(lower(collate(A, UTF8_LCASE)) = A)',
		'(NOT (CAST(x AS STRING COLLATE UTF8_LCASE) = X))',
		'typeof(collate(a, UTF8_LCASE))', 'collate(a, UTF8_LCASE)']);
	assert.deepEqual(r.rows[0], [true, false, true, false, true, false,
		'string collate UTF8_LCASE', 'a']);
	const d = await sql(s, 'SELECT count(DISTINCT s COLLATE UTF8_LCASE) ' +
	    "FROM VALUES ('b'), ('A'), ('a'), ('B') AS t(s)");
	assert.deepEqual(d.rows, [[2n]]);
	const a = await s.analyze({ schema: { plan: lib.sqlPlan(
	    "SELECT 'a' COLLATE UTF8_LCASE AS c") } });
	assert.equal(a.schema.schema.struct.fields[0].data_type.string
	    .collation, 'UTF8_LCASE');
});

test('other collations are refused by name, never SQLite\'s error', T,
    async () => {
	const s = new lib.Session(srv);
	await sqlFails(s, "SELECT 'a' COLLATE UNICODE_CI = 'A'",
	    'UNSUPPORTED_FEATURE.COLLATION', '0A000');
	await sqlFails(s, "SELECT 'a' COLLATE NOPE_NOT = 'A'",
	    'COLLATION_INVALID_NAME', '42704');
	await sqlFails(s, 'SELECT 1 COLLATE UTF8_LCASE',
	    'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE', '42K09');
});

lib.stopTest(srv);
