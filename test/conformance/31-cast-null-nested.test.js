// SPDX-License-Identifier: MIT
//
// 31-cast-null-nested: CAST(NULL AS <array, map or struct>) is a typed
// null, as in Spark (a NULL literal casts to every type).

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { df } = lib;
const srv = lib.useServer();
const { T } = lib;

const nul = df.lit({ null: { null: {} } });
const cast = (expr, type) => ({ cast: { expr, type_str: type } });

test('CAST(NULL AS nested type) is a null of that type', T, async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(df.plan(df.project(null,
	    cast(nul, 'array<int>'), cast(nul, 'map<string,int>'),
	    cast(nul, 'struct<a:int,b:string>'))));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(lib.resultRows(r.responses), [[null, null, null]]);
	// Spark's column names and Arrow types, nullable
	assert.deepEqual(lib.resultFields(r.responses), [
		['CAST(NULL AS ARRAY<INT>)', 'List<Int32>', true],
		['CAST(NULL AS MAP<STRING, INT>)', 'Map<{key:Utf8, value:Int32}>',
			true],
		['CAST(NULL AS STRUCT<a: INT, b: STRING>)',
			'Struct<{a:Int32, b:Utf8}>', true]]);
});

test('a cast between nested types is refused by name', T, async () => {
	const s = new lib.Session(srv);
	const arr = df.fn('array', df.lit(1), df.lit(2));
	const ok = await s.execute(df.plan(df.project(null,
	    cast(arr, 'array<int>'))));
	assert.equal(ok.status.code, lib.code.OK, lib.statusText(ok.status));
	assert.deepEqual(lib.resultRows(ok.responses), [[[1, 2]]]);
	const bad = await s.execute(df.plan(df.project(null,
	    cast(arr, 'array<string>'))));
	lib.assertSparkError(lib.streamError(bad),
	    'UNSUPPORTED_FEATURE.DATA_TYPE', '0A000');
});
