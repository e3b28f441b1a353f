// SPDX-License-Identifier: MIT
//
// 53-format-number: format_number with the result the example of
// Spark's SQL functions reference gives, Java DecimalFormat's HALF_EVEN
// rounding and grouping, and the pattern form refused by name.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { df } = lib;
const srv = lib.useServer();
const { T } = lib;

const lit = df.lit;
const fn = df.fn;
const dec = (value, precision, scale) =>
	lit({ decimal: { value, precision, scale } });

test('format_number as documented', T, async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(df.plan(df.project(null,
	    // format_number(12332.123456, 4) = 12,332.1235 (a decimal
	    // literal in SQL; the same as a double)
	    fn('format_number', dec('12332.123456', 11, 6), lit(4)),
	    fn('format_number', lit(12332.123456), lit(4)),
	    // HALF_EVEN: 0.125 is exact in binary, 2.5 and 3.5 too
	    fn('format_number', lit(0.125), lit(2)),
	    fn('format_number', dec('2.5', 2, 1), lit(0)),
	    fn('format_number', dec('3.5', 2, 1), lit(0)),
	    fn('format_number', dec('-999999.995', 9, 3), lit(2)),
	    fn('format_number', lit(1234567n), lit(0)),
	    fn('format_number', lit(-1234), lit(1)),
	    fn('format_number', lit(1.5), lit(-1)), // d < 0: NULL
	    fn('format_number', dec('0.05', 2, 2), lit(1)))));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(lib.resultRows(r.responses), [['12,332.1235',
		'12,332.1235', '0.12', '2', '4', '-1,000,000.00', '1,234,567',
		'-1,234.0', null, '0.0']]);
	assert.equal(lib.resultFields(r.responses)[0][1], 'Utf8');
});

test('format_number with a pattern is refused by name', T, async () => {
	const s = new lib.Session(srv);
	// documented: format_number(12332.123456, '##################.###')
	const bad = await s.execute(df.plan(df.project(null,
	    fn('format_number', lit(12332.123456),
		lit('##################.###')))));
	lib.assertSparkError(lib.streamError(bad),
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
});

