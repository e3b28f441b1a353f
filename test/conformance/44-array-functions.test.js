// SPDX-License-Identifier: MIT
//
// 44-array-functions: array_append, array_prepend, array_compact and
// arrays_overlap with the answers of Spark's SQL function reference
// (its examples are the first rows of each test), Spark's column names
// and types; a NULL array gives NULL; element types that Spark would
// widen are refused by name rather than answered otherwise.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const { T } = lib;

async function sql(s, query) {
	const r = await s.execute(lib.sqlPlan(query));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return { rows: lib.resultRows(r.responses),
		fields: lib.resultFields(r.responses) };
}

test('array_append and array_prepend', T, async () => {
	const s = new lib.Session(srv);
	let got = await sql(s, "SELECT array_append(array('b', 'd', 'c', " +
	    "'a'), 'd') AS a1, array_append(array(1, 2, 3), NULL) AS a2, " +
	    'array_append(CAST(NULL AS ARRAY<INT>), 2) AS a3');
	assert.deepEqual(got.rows, [[['b', 'd', 'c', 'a', 'd'],
		[1, 2, 3, null], null]]);
	got = await sql(s, "SELECT array_prepend(array('b', 'd', 'c', 'a'), " +
	    "'d'), array_prepend(array(1, 2, 3), NULL), " +
	    'array_prepend(array(), 1), typeof(array_prepend(array(), 1))');
	assert.deepEqual(got.rows, [[['d', 'b', 'd', 'c', 'a'],
		[null, 1, 2, 3], [1], 'array<int>']]);
	assert.deepEqual(got.fields.map((f) => f[0]), [
		'array_prepend(array(b, d, c, a), d)',
		'array_prepend(array(1, 2, 3), NULL)',
		'array_prepend(array(), 1)',
		'typeof(array_prepend(array(), 1))']);
	got = await sql(s, 'SELECT array_append(array(struct(1 AS a)), ' +
	    'struct(2 AS a))[1].a, array_append(array(true), false)');
	assert.deepEqual(got.rows, [[2, [true, false]]]);
});

test('array_compact drops the nulls', T, async () => {
	const s = new lib.Session(srv);
	const got = await sql(s, 'SELECT array_compact(array(1, 2, 3, ' +
	    "null)), array_compact(array('a', 'b', 'c')), " +
	    'array_compact(array(array(1), NULL, array(NULL)))');
	assert.deepEqual(got.rows, [[[1, 2, 3], ['a', 'b', 'c'],
		[[1], [null]]]]);
});

test('arrays_overlap: true, false or null', T, async () => {
	const s = new lib.Session(srv);
	const got = await sql(s, 'SELECT arrays_overlap(array(1, 2, 3), ' +
	    'array(3, 4, 5)), arrays_overlap(array(1, NULL), array(3)), ' +
	    'arrays_overlap(array(1), array()), arrays_overlap(array(' +
	    'array(1)), array(array(1))), arrays_overlap(array(1), NULL)');
	assert.deepEqual(got.rows, [[true, null, false, true, null]]);
	assert.equal(got.fields[0][1], 'Bool');
});

test('mixed element types are refused by name', T, async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(lib.sqlPlan(
	    "SELECT array_append(array(1), 'x')"));
	const e = lib.assertSparkError(lib.streamError(r),
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
	assert.match(e.message, /array_append/);
	const r2 = await s.execute(lib.sqlPlan('SELECT array_compact(1)'));
	lib.assertSparkError(lib.streamError(r2),
	    'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE', '42K09');
});

lib.stopTest(srv);
