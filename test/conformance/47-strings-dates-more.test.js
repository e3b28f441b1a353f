// SPDX-License-Identifier: MIT
//
// 47-strings-dates-more: btrim, split_part, find_in_set, overlay,
// levenshtein, soundex, regexp_count, regexp_substr,
// url_encode, url_decode, dayname, monthname, weekday, next_day,
// unix_date, date_from_unix_date, timestamp_seconds/millis/micros,
// unix_seconds/millis/micros and
// current_database()/current_schema().  The first values of each test
// are the examples of Spark's SQL function reference (the timestamp
// ones shown in UTC and in its Los Angeles); names and
// Arrow types as Spark 4 gives them; a NULL argument gives NULL.

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

const names = (got) => got.fields.map((f) => f[0]);
const types = (got) => got.fields.map((f) => f[1]);

test('btrim, split_part and find_in_set', T, async () => {
	const s = new lib.Session(srv);
	const got = await sql(s, "SELECT btrim('    SparkSQL   '), " +
	    "btrim('SSparkSQLS', 'SL'), split_part('11.12.13', '.', 3), " +
	    "split_part('11.12.13', '.', -1), split_part('11.12.13', '.', " +
	    "5), split_part('a,,b', '', 1), " +
	    "find_in_set('ab', 'abc,b,ab,c,def'), " +
	    "find_in_set('a,b', 'a,b'), find_in_set('', 'x,,y'), " +
	    "btrim(NULL), split_part(NULL, '.', 1), find_in_set('a', NULL)");
	assert.deepEqual(got.rows, [['SparkSQL', 'parkSQ', '13', '13', '',
		'a,,b', 3, 0, 2, null, null, null]]);
	assert.deepEqual(names(got).slice(0, 7), [
		'btrim(    SparkSQL   )', 'btrim(SSparkSQLS, SL)',
		'split_part(11.12.13, ., 3)', 'split_part(11.12.13, ., -1)',
		'split_part(11.12.13, ., 5)', 'split_part(a,,b, , 1)',
		'find_in_set(ab, abc,b,ab,c,def)']);
	assert.deepEqual(types(got).slice(0, 7), ['Utf8', 'Utf8', 'Utf8',
		'Utf8', 'Utf8', 'Utf8', 'Int32']);
	const r = await s.execute(lib.sqlPlan(
	    "SELECT split_part('11.12.13', '.', 0)"));
	lib.assertSparkError(lib.streamError(r), 'INVALID_INDEX_OF_ZERO',
	    '22003');
});

// Positions 0 and -3 cut as Spark's substring(): nothing before, the
// rest from 1 and from 3 before the end.
test('overlay: Spark reference examples as plain calls', T, async () => {
	const s = new lib.Session(srv);
	const got = await sql(s, "SELECT overlay('Spark SQL', '_', 6), " +
	    "overlay('Spark SQL', 'CORE', 7), " +
	    "overlay('Spark SQL', 'ANSI ', 7, 0), " +
	    "overlay('Spark SQL', 'tructured', 2, 4), " +
	    "overlay('Spark SQL', 'X', 0), overlay('Spark SQL', 'X', -3), " +
	    "overlay('caf\u00e9s', 'E', 4, 1), overlay(NULL, 'a', 1), " +
	    "overlay('a', 'b', NULL)");
	assert.deepEqual(got.rows, [['Spark_SQL', 'Spark CORE',
		'Spark ANSI SQL', 'Structured SQL', 'XSpark SQL', 'XQL',
		'cafEs', null, null]]);
	assert.deepEqual(names(got).slice(0, 3), [
		'overlay(Spark SQL, _, 6, -1)', 'overlay(Spark SQL, CORE, 7, -1)',
		'overlay(Spark SQL, ANSI , 7, 0)']);
	assert.equal(types(got)[0], 'Utf8');
});

test('levenshtein with and without a threshold, soundex', T, async () => {
	const s = new lib.Session(srv);
	const got = await sql(s, "SELECT levenshtein('kitten', 'sitting'), " +
	    "levenshtein('kitten', 'sitting', 2), " +
	    "levenshtein('kitten', 'sitting', 3), levenshtein('', 'abc'), " +
	    "levenshtein('caf\u00e9', 'cafe'), levenshtein(NULL, 'a'), " +
	    "soundex('Miller'), soundex('Tymczak'), soundex('Ashcraft'), " +
	    "soundex('1abc'), soundex(''), soundex(NULL)");
	assert.deepEqual(got.rows, [[3, -1, 3, 3, 1, null, 'M460', 'T522',
		'A261', '1abc', '', null]]);
	assert.deepEqual(names(got).slice(0, 2), [
		'levenshtein(kitten, sitting)',
		'levenshtein(kitten, sitting, 2)']);
	assert.deepEqual(types(got).slice(0, 1), ['Int32']);
	assert.equal(names(got)[6], 'soundex(Miller)');
	assert.equal(types(got)[6], 'Utf8');
});

// Java's Matcher.find(): after an empty match the search moves one
// character on, so 'a*' matches 'baaa' three times.
test('regexp_count and regexp_substr', T, async () => {
	const s = new lib.Session(srv);
	const text = 'Steven Jones and Stephen Smith are the best players';
	const got = await sql(s, `SELECT regexp_count('${text}', ` +
	    "'Ste(v|ph)en'), regexp_count('abcdefghijklmnopqrstuvwxyz', " +
	    "'[a-z]{3}'), regexp_count('baaa', 'a*'), " +
	    `regexp_substr('${text}', 'Ste(v|ph)en'), ` +
	    `regexp_substr('${text}', 'Jeck'), regexp_substr('abc', 'x*'), ` +
	    "regexp_count(NULL, 'a'), regexp_substr('a', NULL)");
	assert.deepEqual(got.rows, [[2, 8, 3, 'Steven', null, null, null,
		null]]);
	assert.deepEqual(names(got).slice(0, 4), [
		`regexp_count(${text}, Ste(v|ph)en)`,
		'regexp_count(abcdefghijklmnopqrstuvwxyz, [a-z]{3})',
		'regexp_count(baaa, a*)',
		`regexp_substr(${text}, Ste(v|ph)en)`]);
	assert.deepEqual(types(got).slice(2, 4), ['Int32', 'Utf8']);
});

test('url_encode and url_decode as Java URLEncoder/URLDecoder', T,
    async () => {
	const s = new lib.Session(srv);
	const got = await sql(s,
	    "SELECT url_encode('https://spark.apache.org'), " +
	    "url_decode('https%3A%2F%2Fspark.apache.org'), " +
	    "url_encode('a b*~\u00e9'), url_decode('a+b%C3%A9%7e'), " +
	    'url_encode(NULL), url_decode(NULL)');
	assert.deepEqual(got.rows, [['https%3A%2F%2Fspark.apache.org',
		'https://spark.apache.org', 'a+b*%7E%C3%A9', 'a b\u00e9~', null,
		null]]);
	assert.deepEqual(names(got).slice(0, 2), [
		'url_encode(https://spark.apache.org)',
		'url_decode(https%3A%2F%2Fspark.apache.org)']);
	assert.deepEqual(types(got).slice(0, 2), ['Utf8', 'Utf8']);
	const r = await s.execute(lib.sqlPlan(
	    "SELECT url_decode('http%3A%2F%2spark.apache.org')"));
	lib.assertSparkError(lib.streamError(r), 'CANNOT_DECODE_URL',
	    '22546');
});

test('dayname, monthname, weekday, unix_date, date_from_unix_date', T,
    async () => {
	const s = new lib.Session(srv);
	const got = await sql(s, "SELECT dayname(DATE'2008-02-20'), " +
	    "monthname('2008-02-20'), weekday('2009-07-30'), " +
	    "unix_date(DATE'1970-01-02'), date_from_unix_date(1), " +
	    "weekday(DATE'2024-01-07'), unix_date(DATE'1969-12-31'), " +
	    'dayname(NULL), monthname(NULL), weekday(NULL), ' +
	    'unix_date(NULL), date_from_unix_date(NULL)');
	// a DATE arrives as milliseconds since the epoch
	assert.deepEqual(got.rows, [['Wed', 'Feb', 3, 1, 86400000, 6, -1,
		null, null, null, null, null]]);
	const d = await sql(s, 'SELECT CAST(date_from_unix_date(1) AS STRING)');
	assert.deepEqual(d.rows, [['1970-01-02']]);
	assert.deepEqual(names(got).slice(0, 5), [
		"dayname(DATE '2008-02-20')", 'monthname(2008-02-20)',
		'weekday(2009-07-30)', "unix_date(DATE '1970-01-02')",
		'date_from_unix_date(1)']);
	assert.deepEqual(types(got).slice(0, 5), ['Utf8', 'Utf8', 'Int32',
		'Int32', 'Date32<DAY>']);
});

test('next_day: the first such day after the date', T, async () => {
	const s = new lib.Session(srv);
	const got = await sql(s, "SELECT next_day('2015-01-14', 'TU'), " +
	    "next_day(DATE'2015-01-20', 'tuesday'), " +
	    "next_day(DATE'2015-01-14', 'Wed'), next_day(NULL, 'MO'), " +
	    "next_day(DATE'2015-01-14', NULL)");
	assert.deepEqual(got.rows, [[Date.UTC(2015, 0, 20),
		Date.UTC(2015, 0, 27), Date.UTC(2015, 0, 21), null, null]]);
	assert.equal(names(got)[0], 'next_day(2015-01-14, TU)');
	assert.equal(types(got)[0], 'Date32<DAY>');
	const r = await s.execute(lib.sqlPlan(
	    "SELECT next_day(DATE'2015-01-14', 'xx')"));
	const e = lib.assertSparkError(lib.streamError(r),
	    'ILLEGAL_DAY_OF_WEEK', '22009');
	assert.match(e.message, /day of week: xx\./);
});

test('timestamp_seconds, _millis, _micros are instants', T, async () => {
	const s = new lib.Session(srv);
	const got = await sql(s, 'SELECT ' +
	    'CAST(timestamp_seconds(1230219000) AS STRING), ' +
	    'CAST(timestamp_millis(1230219000123) AS STRING), ' +
	    'CAST(timestamp_micros(1230219000123123) AS STRING), ' +
	    'timestamp_seconds(NULL), timestamp_seconds(1230219000)');
	assert.deepEqual(got.rows.map((r) => r.slice(0, 4)), [[
		'2008-12-25 15:30:00', '2008-12-25 15:30:00.123',
		'2008-12-25 15:30:00.123123', null]]);
	assert.equal(names(got)[4], 'timestamp_seconds(1230219000)');
	assert.equal(types(got)[4], 'Timestamp<MICROSECOND, UTC>');
	const r = await s.execute(lib.sqlPlan(
	    'SELECT timestamp_seconds(1.5D)'));
	lib.assertSparkError(lib.streamError(r),
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
});

test('unix_seconds, unix_millis, unix_micros round down', T, async () => {
	const s = new lib.Session(srv);
	const got = await sql(s, "SELECT unix_seconds(TIMESTAMP'1970-01-01 " +
	    "00:00:01Z'), unix_millis(TIMESTAMP'1970-01-01 00:00:01Z'), " +
	    "unix_micros(TIMESTAMP'1970-01-01 00:00:01Z'), " +
	    'unix_seconds(timestamp_millis(-1)), ' +
	    'unix_millis(timestamp_micros(-1)), ' +
	    'unix_micros(timestamp_micros(-1)), unix_seconds(NULL), ' +
	    "unix_seconds(DATE'1970-01-02')");
	assert.deepEqual(got.rows, [[1n, 1000n, 1000000n, -1n, -1n, -1n,
		null, 86400n]]);
	assert.deepEqual(types(got).slice(0, 3), ['Int64', 'Int64', 'Int64']);
	const n = await sql(s, 'SELECT unix_seconds(timestamp_seconds(1))');
	assert.deepEqual(names(n), ['unix_seconds(timestamp_seconds(1))']);
	const r = await s.execute(lib.sqlPlan(
	    "SELECT unix_seconds('1970-01-01 00:00:01')"));
	lib.assertSparkError(lib.streamError(r),
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
});

// Spark's reference shows timestamp_seconds(1230219000) in
// America/Los_Angeles; a TIMESTAMP's day and month are the session
// zone's: 2008-02-21 03:00 UTC is still Wednesday the 20th there.
test('the session time zone: wall-clock day, instant unchanged', T,
    async () => {
	const s = new lib.Session(srv);
	await s.config({ set: { pairs: [{
		key: 'spark.sql.session.timeZone',
		value: 'America/Los_Angeles' }] } });
	const q = 'SELECT dayname(timestamp_seconds(1203562800)), ' +
	    'weekday(timestamp_seconds(1203562800)), ' +
	    'unix_date(timestamp_seconds(1203562800)), ' +
	    'monthname(timestamp_seconds(1204340400)), ' +
	    'CAST(timestamp_seconds(1230219000) AS STRING), ' +
	    "next_day(timestamp_seconds(1203562800), 'TH'), " +
	    "unix_seconds(DATE'1970-01-02')";
	const la = await s.execute(lib.sqlPlan(q));
	assert.equal(la.status.code, lib.code.OK, lib.statusText(la.status));
	assert.deepEqual(lib.resultRows(la.responses), [['Wed', 2, 13929,
		'Feb', '2008-12-25 07:30:00', Date.UTC(2008, 1, 21), 115200n]]);
	const u = new lib.Session(srv);
	const utc = await sql(u, q);
	assert.deepEqual(utc.rows, [['Thu', 3, 13930, 'Mar',
		'2008-12-25 15:30:00', Date.UTC(2008, 1, 28), 86400n]]);
});

test('current_database() and current_schema() in a DataFrame', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(df.plan(df.project(
	    { range: { start: '0', end: '1', step: '1' } },
	    df.fn('current_database'), df.fn('current_schema'))));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(lib.resultRows(r.responses), [['default',
		'default']]);
	assert.deepEqual(lib.resultFields(r.responses), [
		['current_schema()', 'Utf8', false],
		['current_schema()', 'Utf8', false]]);
});

lib.stopTest(srv);
