// SPDX-License-Identifier: MIT
//
// 45-call-function: functions.call_function(name, *cols), which Spark 4's
// clients send as the call_function expression (field 16): the builtin
// of that name runs, named as Spark names its call; an unknown name is
// UNRESOLVED_ROUTINE, and a builtin sent as a user-defined function
// still resolves, as in Spark.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { df } = lib;
const srv = lib.useServer();
const { T } = lib;

const range = (end) => ({ range: { start: '0', end: String(end),
	step: '1' } });
const call = (name, ...args) => ({ call_function: { function_name: name,
	arguments: args } });

test('call_function runs the builtin of that name', T, async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(df.plan(df.project(range(3),
	    call('abs', df.fn('-', df.col('id'))),
	    call('concat_ws', df.lit('-'), df.lit('a'), df.lit('b')))));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(lib.resultRows(r.responses),
	    [[0n, 'a-b'], [1n, 'a-b'], [2n, 'a-b']]);
	assert.deepEqual(lib.resultFields(r.responses).map((f) => f[0]),
	    ['abs((- id))', 'concat_ws(-, a, b)']);
});

test('an unknown name is UNRESOLVED_ROUTINE', T, async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(df.plan(df.project(range(1),
	    call('no_such_fn', df.col('id')))));
	const e = lib.assertSparkError(lib.streamError(r),
	    'UNRESOLVED_ROUTINE', '42883');
	assert.match(e.message, /no_such_fn/);
});

test('a builtin marked user-defined resolves', T, async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(df.plan(df.project(range(2),
	    { unresolved_function: { function_name: 'upper',
		arguments: [df.lit('x')],
		is_user_defined_function: true } })));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(lib.resultRows(r.responses), [['X'], ['X']]);
});

lib.stopTest(srv);
