// SPDX-License-Identifier: MIT
//
// 36-time-zone: spark.sql.session.timeZone changes what a TIMESTAMP
// means, as in Spark: text without a zone is the session zone's wall
// clock (spring gaps move forward, autumn overlaps take the earlier
// offset, as java.time resolves them), fields and text of a TIMESTAMP
// are that zone's, result columns carry the zone, TIMESTAMP_NTZ is left
// alone, and a zone Java cannot resolve is INVALID_CONF_VALUE.TIME_ZONE.
// Expected instants and wall clocks come from Node's Intl (ICU's copy
// of the tz database), not from sc-serve's reader.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const { T } = lib;
const KEY = 'spark.sql.session.timeZone';
const LA = 'America/Los_Angeles';
const PARIS = 'Europe/Paris';

// ------------------------------------------------- Intl as the reference

const fmts = new Map();

// The wall-clock fields of the instant ms in zone, from Intl.
function wall(zone, ms) {
	if (!fmts.has(zone))
		fmts.set(zone, new Intl.DateTimeFormat('en-US', {
			timeZone: zone, hourCycle: 'h23', year: 'numeric',
			month: '2-digit', day: '2-digit', hour: '2-digit',
			minute: '2-digit', second: '2-digit',
		}));
	const p = {};
	for (const { type, value } of fmts.get(zone).formatToParts(ms))
		p[type] = value;
	return { y: p.year, mo: p.month, d: p.day, h: p.hour, mi: p.minute,
		s: p.second };
}

const two = (n) => String(n).padStart(2, '0');

// 'YYYY-MM-DD HH:MM:SS' of the instant ms in zone.
function wallText(zone, ms) {
	const w = wall(zone, ms);
	return `${w.y}-${w.mo}-${w.d} ${w.h}:${w.mi}:${w.s}`;
}

// The zone's offset east of UTC at ms, in ms.
function offset(zone, ms) {
	const w = wall(zone, ms);
	const asUtc = Date.UTC(+w.y, +w.mo - 1, +w.d, +w.h, +w.mi, +w.s);
	return asUtc - Math.floor(ms / 1000) * 1000;
}

// A wall-clock 'YYYY-MM-DD HH:MM:SS' of zone as an instant, resolved as
// java.time does: in a gap, on by the gap; in an overlap, the earlier.
function instant(zone, text) {
	const m = /^(\d+)-(\d+)-(\d+) (\d+):(\d+):(\d+)$/.exec(text);
	const local = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
	const day = 86400000;
	const before = offset(zone, local - 2 * day);
	const after = offset(zone, local + 2 * day);
	if (offset(zone, local - before) === before)
		return local - before;
	if (offset(zone, local - after) === after)
		return local - after;
	return local - before;
}

// ---------------------------------------------------------------- helpers

function set(s, obj) {
	return s.config({ set: { pairs: Object.entries(obj).map(
	    ([key, value]) => ({ key, value })) } });
}

async function sql(s, query) {
	const r = await s.execute(lib.sqlPlan(query));
	assert.equal(r.status.code, lib.code.OK,
	    `${query}: ${lib.statusText(r.status)}`);
	const b = lib.decodeBatches(r.responses).batches[0];
	return { row: lib.resultRows(r.responses)[0],
		fields: b.table.schema.fields };
}

async function zoned(zone) {
	const s = new lib.Session(srv);
	await set(s, { [KEY]: zone });
	return s;
}

// A TIMESTAMP column's value (apache-arrow gives milliseconds).
const ms = (v) => Number(v);

// ------------------------------------------------------------------ tests

test('a TIMESTAMP literal is the session zone\'s wall clock', T, async () => {
	for (const zone of [LA, PARIS, 'UTC', '+08:00', 'Asia/Kolkata']) {
		const s = await zoned(zone);
		const r = await sql(s,
		    "SELECT TIMESTAMP'2024-07-04 12:34:56' AS t, " +
		    "TIMESTAMP'2024-01-15 08:00:00' AS w, " +
		    "TIMESTAMP'2024-01-15 08:00:00Z' AS z, " +
		    "TIMESTAMP'2024-01-15 08:00:00+05:30' AS o");
		const iz = zone === '+08:00' ? 'Asia/Shanghai' : zone;
		assert.equal(ms(r.row[0]), instant(iz, '2024-07-04 12:34:56'),
		    zone);
		assert.equal(ms(r.row[1]), instant(iz, '2024-01-15 08:00:00'),
		    zone);
		assert.equal(ms(r.row[2]), Date.UTC(2024, 0, 15, 8), zone);
		assert.equal(ms(r.row[3]), Date.UTC(2024, 0, 15, 2, 30), zone);
		// Spark sends the session zone as the column's time zone.
		assert.equal(r.fields[0].type.timezone, zone);
	}
});

test('the zone set by SQL SET changes the next query', T, async () => {
	const s = new lib.Session(srv);
	const set1 = await s.execute(lib.sqlCommandPlan(`SET ${KEY}=${PARIS}`));
	assert.equal(set1.status.code, lib.code.OK,
	    lib.statusText(set1.status));
	const g = await s.config({ get: { keys: [KEY] } });
	assert.equal(g.pairs[0].value, PARIS);
	const r = await sql(s,
	    "SELECT hour(TIMESTAMP'2024-07-04 12:00:00Z') AS h, " +
	    "TIMESTAMP'2024-07-04 12:00:00' AS t");
	assert.equal(r.row[0], +wall(PARIS, Date.UTC(2024, 6, 4, 12)).h);
	assert.equal(ms(r.row[1]), instant(PARIS, '2024-07-04 12:00:00'));
	assert.equal(r.fields[1].type.timezone, PARIS);
});

test('SET TIME ZONE \'zone\' and LOCAL set the session zone', T,
    async () => {
	const s = new lib.Session(srv);
	for (const [stmt, zone] of [[`SET TIME ZONE '${LA}'`, LA],
		['SET TIME ZONE LOCAL', 'UTC']]) {
		const r = await s.execute(lib.sqlCommandPlan(stmt));
		assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
		const q = await sql(s, 'SELECT current_timezone(), ' +
		    "hour(TIMESTAMP'2024-07-04 12:00:00Z')");
		assert.deepEqual(q.row,
		    [zone, +wall(zone, Date.UTC(2024, 6, 4, 12)).h], stmt);
	}
	const bad = await s.execute(lib.sqlCommandPlan(
	    "SET TIME ZONE 'Mars/Base'"));
	lib.assertSparkError(lib.streamError(bad),
	    'INVALID_CONF_VALUE.TIME_ZONE', '22022');
});

test('fields, casts and formats of a TIMESTAMP are the zone\'s', T,
    async () => {
	// 2024-03-10 09:30:00Z: 01:30 PST in Los Angeles, 10:30 in Paris.
	const t = Date.UTC(2024, 2, 10, 9, 30, 0);
	for (const zone of [LA, PARIS]) {
		const s = await zoned(zone);
		const lit = "TIMESTAMP'2024-03-10 09:30:00.25Z'";
		const r = await sql(s,
		    `SELECT year(${lit}), month(${lit}), day(${lit}), ` +
		    `hour(${lit}), minute(${lit}), ` +
		    `CAST(${lit} AS STRING), ` +
		    `date_format(${lit}, 'yyyy-MM-dd HH:mm'), ` +
		    `CAST(${lit} AS DATE), to_date(${lit}), ` +
		    `from_unixtime(${t / 1000}), ` +
		    `unix_timestamp('2024-03-10 12:00:00'), ` +
		    `CAST(DATE'2024-03-10' AS TIMESTAMP), ` +
		    `date_trunc('DAY', ${lit})`);
		const w = wall(zone, t);
		const wt = wallText(zone, t);
		assert.deepEqual(r.row.slice(0, 5),
		    [+w.y, +w.mo, +w.d, +w.h, +w.mi], zone);
		assert.equal(r.row[5], `${wt}.25`, zone);
		assert.equal(r.row[6], wt.slice(0, 16), zone);
		const date = Date.UTC(+w.y, +w.mo - 1, +w.d);
		assert.equal(ms(r.row[7]), date, zone);
		assert.equal(ms(r.row[8]), date, zone);
		assert.equal(r.row[9], wt, zone);
		assert.equal(Number(r.row[10]),
		    instant(zone, '2024-03-10 12:00:00') / 1000, zone);
		assert.equal(ms(r.row[11]), instant(zone, '2024-03-10 00:00:00'),
		    zone);
		assert.equal(ms(r.row[12]),
		    instant(zone, `${wt.slice(0, 10)} 00:00:00`), zone);
	}
});

test('date_format prints the session zone\'s offset, id and name', T,
    async () => {
	const t = Date.UTC(2024, 6, 4, 12);
	for (const zone of [LA, PARIS, 'Asia/Kolkata', 'UTC']) {
		const s = await zoned(zone);
		// Pattern letters: Z four times, O four times, X three
		// times (the ISO offset with a colon, Z for zero), V twice.
		const pattern = `HH:mm ${'Z'.repeat(4)}|${'O'.repeat(4)}|` +
		    `${'X'.repeat(3)}|VV`;
		const r = await sql(s,
		    "SELECT date_format(TIMESTAMP'2024-07-04 12:00:00Z', " +
		    `'${pattern}')`);
		// Intl's longOffset is Java's localized GMT form, GMT-07:00,
		// but for zero, which Java prints as GMT alone.
		const gmt = new Intl.DateTimeFormat('en-US', { timeZone: zone,
			timeZoneName: 'longOffset' }).formatToParts(t)
		    .find((p) => p.type === 'timeZoneName').value
		    .replace(/^GMT[+-]00:00$/, 'GMT');
		const xxx = gmt === 'GMT' ? 'Z' : gmt.slice(3);
		const w = wall(zone, t);
		assert.equal(r.row[0],
		    `${w.h}:${w.mi} ${gmt}|${gmt}|${xxx}|${zone}`, zone);
	}
	const s = await zoned(LA);
	const r = await sql(s,
	    "SELECT date_format(TIMESTAMP'2024-07-04 12:00:00Z', 'z'), " +
	    "date_format(TIMESTAMP'2024-01-04 12:00:00Z', 'z')");
	const short = (x) => new Intl.DateTimeFormat('en-US', { timeZone: LA,
		timeZoneName: 'short' }).formatToParts(x)
	    .find((p) => p.type === 'timeZoneName').value;
	assert.deepEqual(r.row, [short(t), short(Date.UTC(2024, 0, 4, 12))]);
});

test('a TIMESTAMP compared with a string or a DATE reads it in the ' +
    'session zone', T, async () => {
	const s = await zoned(LA);
	const r = await sql(s,
	    "SELECT TIMESTAMP'2024-07-04 12:00:00' = '2024-07-04 12:00:00', " +
	    "TIMESTAMP'2024-07-04 12:00:00' < '2024-07-04 12:00:01', " +
	    "TIMESTAMP'2024-07-04 00:00:00' = DATE'2024-07-04', " +
	    "TIMESTAMP'2024-07-04 12:00:00' BETWEEN '2024-07-04 11:00:00' " +
	    "AND '2024-07-04 13:00:00', " +
	    "TIMESTAMP'2024-07-04 12:00:00Z' = '2024-07-04 12:00:00'");
	assert.deepEqual(r.row, [true, true, true, true, false]);
});

test('from_utc_timestamp, to_utc_timestamp, make_timestamp and ' +
    'current_timezone', T, async () => {
	for (const zone of [LA, PARIS, 'UTC']) {
		const s = await zoned(zone);
		// Spark's documented examples print the same in any zone.
		const r = await sql(s,
		    "SELECT CAST(from_utc_timestamp('2016-08-31', 'Asia/Seoul') " +
		    'AS STRING), ' +
		    "CAST(to_utc_timestamp('2016-08-31', 'Asia/Seoul') " +
		    'AS STRING), ' +
		    'make_timestamp(2014, 12, 28, 6, 30, 45.887), ' +
		    "make_timestamp(2014, 12, 28, 6, 30, 45.887, 'CET'), " +
		    'current_timezone()');
		assert.deepEqual(r.row.slice(0, 2),
		    ['2016-08-31 09:00:00', '2016-08-30 15:00:00'], zone);
		assert.equal(ms(r.row[2]),
		    instant(zone, '2014-12-28 06:30:45') + 887, zone);
		assert.equal(ms(r.row[3]),
		    instant('CET', '2014-12-28 06:30:45') + 887, zone);
		assert.equal(r.row[4], zone);
	}
	const s = await zoned(LA);
	const bad = await s.execute(lib.sqlPlan(
	    "SELECT make_timestamp(2014, 12, 28, 6, 30, 0, 'Mars/Base')"));
	lib.assertSparkError(lib.streamError(bad), 'INVALID_TIMEZONE', '22009');
});

test('a string cast to TIMESTAMP is read in the session zone', T,
    async () => {
	const s = await zoned(LA);
	const r = await sql(s,
	    "SELECT CAST('2024-12-25 18:00:00' AS TIMESTAMP), " +
	    "to_timestamp('2024-12-25 18:00:00'), " +
	    "to_timestamp('25/12/2024 18:00', 'dd/MM/yyyy HH:mm'), " +
	    "CAST('2024-12-25T18:00:00+01:00' AS TIMESTAMP)");
	const want = instant(LA, '2024-12-25 18:00:00');
	assert.deepEqual(r.row.map(ms),
	    [want, want, want, Date.UTC(2024, 11, 25, 17)]);
});

test('spring gaps move forward, autumn overlaps take the earlier offset',
    T, async () => {
	const cases = [[LA, '2024-03-10 02:30:00'],
		[LA, '2024-11-03 01:30:00'], [PARIS, '2024-03-31 02:30:00'],
		[PARIS, '2024-10-27 02:30:00']];
	for (const [zone, text] of cases) {
		const s = await zoned(zone);
		const r = await sql(s,
		    `SELECT TIMESTAMP'${text}', CAST('${text}' AS TIMESTAMP), ` +
		    `hour(TIMESTAMP'${text}'), hour('${text}'), ` +
		    `hour('${text}+08:00')`);
		const want = instant(zone, text);
		assert.equal(ms(r.row[0]), want, `${zone} ${text}`);
		assert.equal(ms(r.row[1]), want, `${zone} ${text}`);
		assert.equal(r.row[2], +wall(zone, want).h, `${zone} ${text}`);
		// A string is cast to TIMESTAMP first, so the same hour.
		assert.equal(r.row[3], +wall(zone, want).h, `${zone} ${text}`);
		const m = /^(\d+)-(\d+)-(\d+) (\d+):(\d+)/.exec(text);
		const east = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4] - 8, +m[5]);
		assert.equal(r.row[4], +wall(zone, east).h, `${zone} ${text}`);
	}
	// The reference itself: a gap's 02:30 is 03:30 daylight time, an
	// overlap's 01:30 is the first one (daylight time).
	assert.equal(wallText(LA, instant(LA, '2024-03-10 02:30:00')),
	    '2024-03-10 03:30:00');
	assert.equal(offset(LA, instant(LA, '2024-11-03 01:30:00')),
	    -7 * 3600000);
});

test('current_date is the session zone\'s date', T, async () => {
	// Kiribati (+14) and Niue (-11) are never on the same date.
	for (const zone of ['Pacific/Kiritimati', 'Pacific/Niue']) {
		const s = await zoned(zone);
		const before = Date.now();
		const r = await sql(s, 'SELECT current_date() AS d');
		const after = Date.now();
		assert.equal(String(r.fields[0].type), 'Date32<DAY>');
		const got = new Date(ms(r.row[0])).toISOString().slice(0, 10);
		const dates = [before, after].map((x) => {
			const w = wall(zone, x);
			return `${w.y}-${w.mo}-${w.d}`;
		});
		assert.ok(dates.includes(got), `${zone}: ${got} in ${dates}`);
	}
});

test('show() prints a TIMESTAMP in the session zone; a DataFrame ' +
    'literal is an instant', T, async () => {
	const { df } = lib;
	const s = await zoned(LA);
	const t = Date.UTC(2024, 6, 4, 19, 5, 6);
	const micros = String(BigInt(t) * 1000n);
	const r = await s.execute(df.plan({ show_string: {
		input: df.project(null,
		    df.alias(df.lit({ timestamp: micros }), 't'),
		    df.alias(df.fn('hour', df.lit({ timestamp: micros })),
			'h')),
		num_rows: 20, truncate: 0, vertical: false } }));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	// Spark's showString with truncate 0: cells padded on the right
	// to the column's width, at least 3.
	const cols = [['t', wallText(LA, t)], ['h', String(+wall(LA, t).h)]];
	const width = cols.map(([a, b]) => Math.max(3, a.length, b.length));
	const line = '+' + width.map((n) => '-'.repeat(n)).join('+') + '+\n';
	const cells = (i) => '|' + cols.map((c, j) =>
	    c[i].padEnd(width[j])).join('|') + '|\n';
	assert.deepEqual(lib.resultRows(r.responses), [[
		line + cells(0) + line + cells(1) + line]]);
});

test('TIMESTAMP_NTZ is unaffected by the session zone', T, async () => {
	const s = await zoned(LA);
	const r = await sql(s,
	    "SELECT TIMESTAMP_NTZ'2024-07-04 12:00:00' AS n, " +
	    "hour(TIMESTAMP_NTZ'2024-07-04 12:00:00') AS h, " +
	    "CAST(TIMESTAMP_NTZ'2024-07-04 12:00:00' AS STRING) AS s");
	assert.deepEqual([ms(r.row[0]), r.row[1], r.row[2]],
	    [Date.UTC(2024, 6, 4, 12), 12, '2024-07-04 12:00:00']);
	assert.equal(r.fields[0].type.timezone, null);
});

test('zone ids are read as Java\'s ZoneId reads them', T, async () => {
	const s = new lib.Session(srv);
	const t = Date.UTC(2024, 0, 15, 12);
	for (const [zone, east] of [['UTC+8', 8], ['GMT-05:00', -5],
		['+8:00', 8], ['-07:30', -7.5], ['Z', 0], ['Etc/GMT+8', -8],
		['EST', -5], ['PST', offset(LA, t) / 3600000]]) {
		await set(s, { [KEY]: zone });
		const r = await sql(s,
		    "SELECT CAST(TIMESTAMP'2024-01-15 12:00:00Z' AS STRING)");
		const local = new Date(t + east * 3600000).toISOString();
		assert.equal(r.row[0], `${local.slice(0, 10)} ${
			local.slice(11, 19)}`, zone);
	}
});

test('an unknown zone is INVALID_CONF_VALUE.TIME_ZONE and changes nothing',
    T, async () => {
	const s = await zoned(PARIS);
	for (const bad of ['Nowhere/City', 'america/los_angeles', '+19:00',
		'UTC+', '../../etc/passwd', '']) {
		const err = await lib.rejects(set(s, { [KEY]: bad }));
		const { message } = lib.assertSparkError(err,
		    'INVALID_CONF_VALUE.TIME_ZONE', '22022');
		assert.equal(message, '[INVALID_CONF_VALUE.TIME_ZONE] The ' +
		    `value '${bad}' in the config "${KEY}" is invalid. ` +
		    'Cannot resolve the given timezone. SQLSTATE: 22022');
		const r = await s.execute(lib.sqlCommandPlan(
		    `SET ${KEY}=${bad === '' ? "''" : bad}`));
		lib.assertSparkError(lib.streamError(r),
		    'INVALID_CONF_VALUE.TIME_ZONE', '22022');
	}
	const g = await s.config({ get: { keys: [KEY] } });
	assert.equal(g.pairs[0].value, PARIS);
});

test('AnalyzePlan schemas do not change with the zone', T, async () => {
	const s = await zoned(LA);
	const r = await s.analyze({ schema: { plan: lib.sqlPlan(
	    "SELECT TIMESTAMP'2024-01-01 00:00:00' AS t") } });
	const f = r.schema.schema.struct.fields[0];
	assert.equal(f.name, 't');
	assert.ok(f.data_type.timestamp, JSON.stringify(f.data_type));
});

lib.stopTest(srv);
