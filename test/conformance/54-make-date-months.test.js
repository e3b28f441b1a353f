// SPDX-License-Identifier: MIT
//
// 54-make-date-months: make_date and months_between with the results
// the examples of Spark's SQL functions reference give (cited by
// function below), and Spark's ANSI error for fields that name no date.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { df } = lib;
const srv = lib.useServer();
const { T } = lib;

const lit = df.lit;
const fn = df.fn;

const row = lib.projectRow;

const day = (v) => v === null ? null :
	new Date(v).toISOString().slice(0, 10);
const nullInt = lit({ null: { integer: {} } });

test('make_date as documented', T, async () => {
	const s = new lib.Session(srv);
	const r = await row(s,
	    fn('make_date', lit(2013), lit(7), lit(15)), // 2013-07-15
	    fn('make_date', lit(2019), lit(7), nullInt), // NULL
	    fn('make_date', lit(2020), lit(2), lit(29)), // leap day
	    fn('make_date', lit(1), lit(1), lit(1))); // 0001-01-01
	assert.deepEqual([day(r.values[0]), r.values[1], day(r.values[2])],
	    ['2013-07-15', null, '2020-02-29']);
	assert.equal(new Date(r.values[3]).toISOString().slice(0, 10),
	    '0001-01-01');
	assert.equal(r.fields[0][1], 'Date32<DAY>');
});

test('make_date fields that name no date raise Spark\'s ANSI error', T,
    async () => {
	const s = new lib.Session(srv);
	// The documented make_date(2019, 13, 1) is NULL only without ANSI;
	// with ANSI on (Spark 4's default, sc-serve's only mode) it fails.
	for (const args of [[2019, 13, 1], [2019, 2, 30], [2019, 2, 29],
		[2019, 1, 0]]) {
		const bad = await s.execute(df.plan(df.project(null,
		    fn('make_date', ...args.map(lit)))));
		const err = lib.streamError(bad);
		lib.assertSparkError(err, 'DATETIME_FIELD_OUT_OF_BOUNDS',
		    '22023');
	}
});

test('months_between as documented', T, async () => {
	const s = new lib.Session(srv);
	const r = await row(s,
	    // 3.94959677
	    fn('months_between', lit('1997-02-28 10:30:00'),
		lit('1996-10-30')),
	    // 3.9495967741935485
	    fn('months_between', lit('1997-02-28 10:30:00'),
		lit('1996-10-30'), lit(false)),
	    // both on their month's last day: whole months
	    fn('months_between', lit('2020-02-29'), lit('2019-11-30')),
	    // the same day of the month, times ignored
	    fn('months_between', lit('2020-01-15 23:00:00'),
		lit('2020-03-15 01:00:00')),
	    fn('months_between', lit({ null: { string: {} } }),
		lit('2020-01-01')));
	assert.deepEqual(r.values,
	    [3.94959677, 3.9495967741935485, 3, -2, null]);
	assert.equal(r.fields[0][1], 'Float64');
});

test('make_timestamp as documented', T, async () => {
	const s = new lib.Session(srv);
	const r = await row(s,
	    // 2014-12-28 06:30:45.887
	    fn('make_timestamp', lit(2014), lit(12), lit(28), lit(6), lit(30),
		lit({ decimal: { value: '45.887', precision: 8, scale: 6 } })),
	    // 2019-07-01 00:00:00
	    fn('make_timestamp', lit(2019), lit(6), lit(30), lit(23), lit(59),
		lit(60)),
	    // NULL
	    fn('make_timestamp', nullInt, lit(7), lit(22), lit(15), lit(30),
		lit(0)));
	const iso = (v) => new Date(typeof v === 'bigint' ? Number(v / 1000n) :
	    v).toISOString();
	assert.deepEqual([iso(r.values[0]), iso(r.values[1]), r.values[2]],
	    ['2014-12-28T06:30:45.887Z', '2019-07-01T00:00:00.000Z', null]);
	assert.match(r.fields[0][1], /^Timestamp<MICROSECOND/);
	// Invalid fields under ANSI: make_timestamp(2019, 6, 30, 23, 59, 1)
	// with hour 25, or seconds past 60 fail (a time zone argument is
	// in 36-time-zone).
	for (const [args, cls, state] of [
		[[2019, 6, 30, 25, 0, 0].map(lit), 'DATETIME_FIELD_OUT_OF_BOUNDS',
			'22023'],
		[[2019, 6, 30, 23, 59, 61].map(lit),
			'DATETIME_FIELD_OUT_OF_BOUNDS', '22023'],
		[[2019, 6, 30, 23, 59, 60.5].map(lit),
			'INVALID_FRACTION_OF_SECOND', '22023']]) {
		const bad = await s.execute(df.plan(df.project(null,
		    fn('make_timestamp', ...args))));
		lib.assertSparkError(lib.streamError(bad), cls, state);
	}
});
