// SPDX-License-Identifier: MIT
//
// 25-types-nested: struct, array and map types end to end: in a
// LocalRelation's Arrow data and schema string, through the plan (field
// access, struct/array/map constructors and functions, literals), and
// back as Arrow struct, list and map columns, with AnalyzePlan schemas.
// Expected values follow Spark's documented behaviour (ANSI mode, the
// Spark 4 default): element_at out of bounds fails, a map lookup of a
// missing key is null, duplicate map keys fail, size(null) is null.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { arrow, df } = lib;
const srv = lib.useServer();
const { T } = lib;

const F = (name, type, nullable = true) =>
	new arrow.Field(name, type, nullable);
const ST = new arrow.Struct([F('x', new arrow.Int32()),
	F('y', new arrow.Utf8())]);
const LI = new arrow.List(F('element', new arrow.Int64()));
const MP = new arrow.Map_(F('entries', new arrow.Struct([
	F('key', new arrow.Utf8(), false), F('value', new arrow.Float64())]),
false));

// id, s struct<x:int,y:string>, l array<bigint>, m map<string,double>.
function nestedTable() {
	return new arrow.Table({
		id: arrow.vectorFromArray([1, 2, 3], new arrow.Int32()),
		s: arrow.vectorFromArray([{ x: 1, y: 'a' }, null,
			{ x: null, y: 'c"\n' }], ST),
		l: arrow.vectorFromArray([[1n, 2n], [], null], LI),
		m: arrow.vectorFromArray([new Map([['a', 1.5], ['b', null]]),
			null, new Map()], MP),
	});
}

const local = () => df.local(nestedTable());

async function run(s, root) {
	const r = await s.execute(df.plan(root));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return r;
}

async function failure(s, root) {
	const r = await s.execute(df.plan(root));
	return lib.streamError(r);
}

function schemaFields(dt) {
	const one = (t) => {
		switch (t.kind) {
		case 'struct':
			return { struct: t.struct.fields.map((f) =>
				[f.name, one(f.data_type), f.nullable]) };
		case 'array':
			return { array: one(t.array.element_type),
				containsNull: t.array.contains_null };
		case 'map':
			return { map: [one(t.map.key_type),
				one(t.map.value_type)],
			valueContainsNull: t.map.value_contains_null };
		default:
			return t.kind;
		}
	};
	return one(dt).struct;
}

test('nested Arrow columns of a local relation come back as they went in',
    T, async () => {
	const s = new lib.Session(srv);
	const r = await run(s, df.project(local(), df.star()));
	assert.deepEqual(lib.resultFields(r.responses), [
		['id', 'Int32', true],
		['s', 'Struct<{x:Int32, y:Utf8}>', true],
		['l', 'List<Int64>', true],
		['m', 'Map<{key:Utf8, value:Float64}>', true]]);
	assert.deepEqual(lib.resultRows(r.responses), [
		[1, { x: 1, y: 'a' }, [1n, 2n], [['a', 1.5], ['b', null]]],
		[2, null, [], null],
		[3, { x: null, y: 'c"\n' }, null, []]]);
	assert.deepEqual(schemaFields(r.responses[0].schema), [
		['id', 'integer', true],
		['s', { struct: [['x', 'integer', true],
			['y', 'string', true]] }, true],
		['l', { array: 'long', containsNull: true }, true],
		['m', { map: ['string', 'double'], valueContainsNull: true },
			true]]);
});

test('struct fields by col("s.x"), named as asked for', T, async () => {
	const s = new lib.Session(srv);
	const r = await run(s, df.project(local(), df.col('s.x'),
	    df.col('S.Y'), df.col('id')));
	assert.deepEqual(lib.resultFields(r.responses), [
		['x', 'Int32', true], ['Y', 'Utf8', true],
		['id', 'Int32', true]]);
	assert.deepEqual(lib.resultRows(r.responses),
	    [[1, 'a', 1], [null, null, 2], [null, 'c"\n', 3]]);
	const err = await failure(s, df.project(local(), df.col('s.z')));
	lib.assertSparkError(err, 'FIELD_NOT_FOUND', '42704');
	// select("s.*"): the struct's fields as columns.
	const star = await run(s, df.project(local(), df.col('id'),
	    df.star('s.*')));
	assert.deepEqual(lib.resultFields(star.responses), [
		['id', 'Int32', true], ['x', 'Int32', true],
		['y', 'Utf8', true]]);
	assert.deepEqual(lib.resultRows(star.responses),
	    [[1, 1, 'a'], [2, null, null], [3, null, 'c"\n']]);
});

test('size, element_at, map_keys, map_values, array_contains follow ' +
    'Spark', T, async () => {
	const s = new lib.Session(srv);
	const r = await run(s, df.project(local(),
	    df.fn('size', df.col('l')),
	    df.fn('element_at', df.col('m'), df.lit('a')),
	    df.fn('map_keys', df.col('m')),
	    df.fn('map_values', df.col('m')),
	    df.fn('array_contains', df.col('l'), df.lit(2n)),
	    df.fn('try_element_at', df.col('l'), df.lit(2))));
	assert.deepEqual(lib.resultFields(r.responses), [
		['size(l)', 'Int32', true],
		['element_at(m, a)', 'Float64', true],
		['map_keys(m)', 'List<Utf8>', true],
		['map_values(m)', 'List<Float64>', true],
		['array_contains(l, 2)', 'Bool', true],
		['try_element_at(l, 2)', 'Int64', true]]);
	assert.deepEqual(lib.resultRows(r.responses), [
		[2, 1.5, ['a', 'b'], [1.5, null], true, 2n],
		// size(NULL) is NULL under ANSI; a missing key gives NULL.
		[0, null, null, null, false, null],
		[null, null, [], [], null, null]]);
});

test('element_at out of bounds fails under ANSI; index 0 fails', T,
    async () => {
	const s = new lib.Session(srv);
	const filt = df.filter(local(), df.fn('==', df.col('id'),
	    df.lit(1)));
	lib.assertSparkError(await failure(s, df.project(filt,
	    df.fn('element_at', df.col('l'), df.lit(5)))),
	'INVALID_ARRAY_INDEX_IN_ELEMENT_AT', '22003');
	lib.assertSparkError(await failure(s, df.project(filt,
	    df.fn('element_at', df.col('l'), df.lit(0)))),
	'INVALID_INDEX_OF_ZERO', '22003');
	const r = await run(s, df.project(filt,
	    df.fn('element_at', df.col('l'), df.lit(-1)),
	    df.fn('get', df.col('l'), df.lit(0)),
	    df.fn('get', df.col('l'), df.lit(9))));
	assert.deepEqual(lib.resultRows(r.responses), [[2n, 1n, null]]);
});

test('struct, named_struct, array and map build nested values', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await run(s, df.project(local(),
	    df.fn('struct', df.col('id'), df.lit(7)),
	    df.fn('named_struct', df.lit('a'), df.col('l'), df.lit('b'),
		df.col('s')),
	    df.fn('array', df.col('id'), df.lit(5)),
	    df.fn('map', df.col('id'), df.col('s'))));
	assert.deepEqual(lib.resultFields(r.responses), [
		['struct(id, 7)', 'Struct<{id:Int32, col2:Int32}>', false],
		['named_struct(a, l, b, s)',
			'Struct<{a:List<Int64>, b:Struct<{x:Int32, y:Utf8}>}>',
			false],
		['array(id, 5)', 'List<Int32>', false],
		['map(id, s)',
			'Map<{key:Int32, value:Struct<{x:Int32, y:Utf8}>}>',
			false]]);
	assert.deepEqual(lib.resultRows(r.responses)[0], [
		{ id: 1, col2: 7 },
		{ a: [1n, 2n], b: { x: 1, y: 'a' } },
		[1, 5],
		[[1, { x: 1, y: 'a' }]]]);
	assert.deepEqual(lib.resultRows(r.responses)[1][1],
	    { a: [], b: null });
	const a = await s.analyze({ schema: { plan: df.plan(df.project(
	    local(), df.fn('array', df.col('id'), df.lit(5)))) } });
	assert.deepEqual(schemaFields(a.schema.schema), [
		['array(id, 5)', { array: 'integer', containsNull: true },
			false]]);
	lib.assertSparkError(await failure(s, df.project(local(),
	    df.fn('map', df.lit(1), df.lit(2), df.lit(1), df.lit(3)))),
	'DUPLICATED_MAP_KEY', '23505');
});

test('array, map and struct literals', T, async () => {
	const s = new lib.Session(srv);
	const dt = (kind, v = {}) => ({ [kind]: v });
	const arr = { array: { element_type: dt('integer'), elements: [
		{ integer: 1 }, { integer: 2 }, { null: dt('integer') }] } };
	const map = { map: { key_type: dt('string'),
		value_type: dt('boolean'),
		keys: [{ string: 'k' }], values: [{ boolean: true }] } };
	const st = { struct: { struct_type: dt('struct', { fields: [
		{ name: 'p', data_type: dt('long'), nullable: false },
		{ name: 'q', data_type: dt('date'), nullable: true }] }),
	elements: [{ long: '9' }, { date: 19000 }] } };
	const r = await run(s, df.project(null, df.alias(df.lit(arr), 'a'),
	    df.alias(df.lit(map), 'm'), df.alias(df.lit(st), 's')));
	assert.deepEqual(lib.resultFields(r.responses), [
		['a', 'List<Int32>', false],
		['m', 'Map<{key:Utf8, value:Bool}>', false],
		['s', 'Struct<{p:Int64, q:Date32<DAY>}>', false]]);
	const row = lib.resultRows(r.responses)[0];
	assert.deepEqual(row.slice(0, 2), [[1, 2, null], [['k', true]]]);
	assert.equal(row[2].p, 9n);
	assert.equal(new Date(row[2].q).toISOString().slice(0, 10),
	    '2022-01-08');
});

test('a schema string gives nested types (DDL and JSON), rows or none',
    T, async () => {
	const s = new lib.Session(srv);
	const ddl = 'a struct<x: int, `y z`: array<string> NOT NULL>, ' +
	    'm map<string, array<int>> NOT NULL';
	const a = await s.analyze({ schema: { plan: df.plan(
	    df.local(null, ddl)) } });
	assert.deepEqual(schemaFields(a.schema.schema), [
		['a', { struct: [['x', 'integer', true],
			['y z', { array: 'string', containsNull: true },
				false]] }, true],
		['m', { map: ['string', { array: 'integer',
			containsNull: true }], valueContainsNull: true },
		false]]);
	const json = JSON.stringify({ type: 'struct', fields: [
		{ name: 'l', nullable: true, metadata: {}, type: {
			type: 'array', elementType: 'long',
			containsNull: false } },
		{ name: 'm', nullable: false, metadata: {}, type: {
			type: 'map', keyType: 'string',
			valueType: { type: 'struct', fields: [{ name: 'v',
				type: 'double', nullable: true,
				metadata: {} }] },
			valueContainsNull: true } }] });
	const tbl = new arrow.Table({
		l: arrow.vectorFromArray([[5n]], LI),
		m: arrow.vectorFromArray([new Map([['k', { v: 2.5 }]])],
		    new arrow.Map_(F('entries', new arrow.Struct([
			F('key', new arrow.Utf8(), false),
			F('value', new arrow.Struct([F('v',
			    new arrow.Float64())]))]), false))),
	});
	const r = await run(s, df.project(df.local(tbl, json), df.star()));
	assert.deepEqual(lib.resultFields(r.responses), [
		['l', 'List<Int64>', true],
		['m', 'Map<{key:Utf8, value:Struct<{v:Float64}>}>', false]]);
	assert.deepEqual(lib.resultRows(r.responses),
	    [[[5n], [['k', { v: 2.5 }]]]]);
	assert.deepEqual(schemaFields(r.responses[0].schema)[0],
	    ['l', { array: 'long', containsNull: false }, true]);
	const empty = await run(s, df.project(df.local(null, ddl),
	    df.star()));
	assert.equal(lib.decodeBatches(empty.responses).rows, 0);
});

test('nested values filter and nest deeply', T, async () => {
	const s = new lib.Session(srv);
	const r = await run(s, df.project(df.filter(local(),
	    df.fn('>=', df.fn('size', df.col('l')), df.lit(0))),
	df.col('id'),
	df.alias(df.fn('array', df.fn('named_struct', df.lit('k'),
	    df.col('m'), df.lit('n'), df.fn('array', df.col('l')))), 'deep')));
	assert.deepEqual(lib.resultRows(r.responses), [
		[1, [{ k: [['a', 1.5], ['b', null]], n: [[1n, 2n]] }]],
		[2, [{ k: null, n: [[]] }]]]);
	assert.deepEqual(lib.resultFields(r.responses)[1], ['deep',
		'List<Struct<{k:Map<{key:Utf8, value:Float64}>, ' +
		'n:List<List<Int64>>}>>', false]);
});

test('explode and posexplode, inner and outer, arrays and maps', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await run(s, df.project(local(), df.col('id'),
	    df.fn('explode', df.col('l'))));
	assert.deepEqual(lib.resultFields(r.responses), [
		['id', 'Int32', true], ['col', 'Int64', true]]);
	assert.deepEqual(lib.resultRows(r.responses), [[1, 1n], [1, 2n]]);
	const o = await run(s, df.project(local(), df.star(),
	    df.fn('posexplode_outer', df.col('l'))));
	assert.deepEqual(lib.resultFields(o.responses).map((f) => f[0]),
	    ['id', 's', 'l', 'm', 'pos', 'col']);
	assert.deepEqual(lib.resultRows(o.responses).map((x) =>
		[x[0], x[4], x[5]]), [[1, 0, 1n], [1, 1, 2n], [2, null, null],
		[3, null, null]]);
	const m = await run(s, df.project(local(), df.col('id'),
	    { alias: { expr: df.fn('explode', df.col('m')),
		name: ['k', 'v'] } }));
	assert.deepEqual(lib.resultFields(m.responses), [
		['id', 'Int32', true], ['k', 'Utf8', false],
		['v', 'Float64', true]]);
	assert.deepEqual(lib.resultRows(m.responses),
	    [[1, 'a', 1.5], [1, 'b', null]]);
	const two = await s.execute(df.plan(df.project(local(),
	    df.fn('explode', df.col('l')), df.fn('explode', df.col('l')))));
	lib.assertSparkError(lib.streamError(two),
	    'UNSUPPORTED_GENERATOR.MULTI_GENERATOR', '42K0E');
});

test('transform, filter, exists and forall run their lambdas', T,
    async () => {
	const s = new lib.Session(srv);
	const v = (name) => ({ unresolved_named_lambda_variable: {
		name_parts: [name] } });
	const lam = (body, ...vars) => ({ lambda_function: { function: body,
		arguments: vars.map((n) => ({ name_parts: [n] })) } });
	const r = await run(s, df.project(local(),
	    df.fn('transform', df.col('l'), lam(df.fn('*', v('x'),
		df.lit(2n)), 'x')),
	    df.fn('transform', df.col('l'), lam(df.fn('+', v('x'),
		v('i')), 'x', 'i')),
	    df.fn('filter', df.col('l'), lam(df.fn('>', v('x'), df.lit(1n)),
		'x')),
	    df.fn('exists', df.col('l'), lam(df.fn('==', v('x'),
		df.lit(2n)), 'x')),
	    df.fn('forall', df.col('l'), lam(df.fn('>', v('x'), df.lit(0n)),
		'x')),
	    df.fn('transform', df.fn('array', df.col('l')), lam(
		df.fn('transform', v('a'), lam(df.fn('+', v('b'),
		    df.col('id')), 'b')), 'a'))));
	assert.deepEqual(lib.resultFields(r.responses).slice(0, 5), [
		['transform(l, lambdafunction((x * 2), x))', 'List<Int64>',
			true],
		['transform(l, lambdafunction((x + i), x, i))', 'List<Int64>',
			true],
		['filter(l, lambdafunction((x > 1), x))', 'List<Int64>', true],
		['exists(l, lambdafunction((x = 2), x))', 'Bool', true],
		['forall(l, lambdafunction((x > 0), x))', 'Bool', true]]);
	assert.deepEqual(lib.resultRows(r.responses), [
		[[2n, 4n], [1n, 3n], [2n], true, true, [[2n, 3n]]],
		[[], [], [], false, true, [[]]],
		[null, null, null, null, null, [null]]]);
});

test('columns named id, key, value or type stay visible in nested ' +
    'functions', T, async () => {
	const s = new lib.Session(srv);
	const t = df.local(new arrow.Table({
		id: arrow.vectorFromArray([10], new arrow.Int32()),
		key: arrow.vectorFromArray(['b'], new arrow.Utf8()),
		value: arrow.vectorFromArray([[1n, 2n]], LI),
		type: arrow.vectorFromArray([new Map([['a', 1], ['b', 2]])],
		    MP) }));
	const v = { unresolved_named_lambda_variable: { name_parts: ['x'] } };
	const r = await run(s, df.project(t,
	    df.fn('element_at', df.col('type'), df.col('key')),
	    df.fn('transform', df.col('value'), { lambda_function: {
		function: df.fn('+', v, df.col('id')),
		arguments: [{ name_parts: ['x'] }] } }),
	    df.fn('array_contains', df.col('value'), df.fn('-', df.col('id'),
		df.lit(8n))),
	    df.fn('map_contains_key', df.col('type'), df.col('key'))));
	assert.deepEqual(lib.resultRows(r.responses),
	    [[2, [11n, 12n], true, true]]);
	const e = await run(s, df.project(t, df.col('id'), df.col('key'),
	    df.fn('explode', df.col('value'))));
	assert.deepEqual(lib.resultRows(e.responses),
	    [[10, 'b', 1n], [10, 'b', 2n]]);
});

test('to_json, from_json and get_json_object as documented', T,
    async () => {
	const s = new lib.Session(srv);
	const lit = df.lit, fn = df.fn;
	const nullInt = lit({ null: { integer: {} } });
	const r = await run(s, df.project(null,
	    fn('to_json', fn('named_struct', lit('a'), lit(1), lit('b'),
		lit(2))), // {"a":1,"b":2}
	    fn('to_json', fn('array', fn('named_struct', lit('a'), lit(1),
		lit('b'), lit(2)))), // [{"a":1,"b":2}]
	    fn('to_json', fn('map', lit('a'), fn('named_struct', lit('b'),
		lit(1)))), // {"a":{"b":1}}
	    fn('to_json', fn('named_struct', lit('a'), nullInt, lit('b'),
		lit(true))), // {"b":true}: null fields left out
	    fn('from_json', lit('{"a":1, "b":0.8}'), lit('a INT, b DOUBLE')),
	    fn('from_json', lit('{"teacher": "Alice", "student": [{"name": ' +
		'"Bob", "rank": 1}, {"name": "Charlie", "rank": 2}]}'),
	    lit('STRUCT<teacher: STRING, student: ARRAY<STRUCT<name: ' +
		'STRING, rank: INT>>>')),
	    fn('get_json_object', lit('{"a":"b"}'), lit('$.a')),
	    fn('from_json', lit('not json'), lit('a INT')),
	    fn('to_json', fn('named_struct', lit('a'), fn('named_struct',
		lit('b'), lit('x"y'))))));
	assert.deepEqual(lib.resultRows(r.responses), [[
		'{"a":1,"b":2}', '[{"a":1,"b":2}]', '{"a":{"b":1}}',
		'{"b":true}', { a: 1, b: 0.8 },
		{ teacher: 'Alice', student: [{ name: 'Bob', rank: 1 },
			{ name: 'Charlie', rank: 2 }] }, 'b', null,
		'{"a":{"b":"x\\"y"}}']]);
	assert.deepEqual(lib.resultFields(r.responses).slice(4, 5), [[
		'from_json({"a":1, "b":0.8})', 'Struct<{a:Int32, b:Float64}>',
		true]]);
});

test('show() prints nested values as Spark does', T, async () => {
	const s = new lib.Session(srv);
	const r = await run(s, { show_string: { input: df.project(
	    df.filter(local(), df.fn('<', df.col('id'), df.lit(3))),
	    df.col('s'), df.col('l'), df.col('m')), num_rows: 20,
	truncate: 0, vertical: false } });
	assert.deepEqual(lib.resultRows(r.responses), [[
		'+------+------+---------------------+\n' +
		'|s     |l     |m                    |\n' +
		'+------+------+---------------------+\n' +
		'|{1, a}|[1, 2]|{a -> 1.5, b -> NULL}|\n' +
		'|NULL  |[]    |NULL                 |\n' +
		'+------+------+---------------------+\n']]);
});

test('array_union, array_intersect, array_except as documented', T,
    async () => {
	const s = new lib.Session(srv);
	const fn = df.fn;
	const arr = (...v) => fn('array', ...v.map((x) => df.lit(x)));
	const r = await s.execute(df.plan(df.project(null,
	    fn('array_union', arr(1, 2, 3), arr(1, 3, 5)),
	    fn('array_intersect', arr(1, 2, 3), arr(1, 3, 5)),
	    fn('array_except', arr(1, 2, 3), arr(1, 3, 5)),
	    fn('array_union', arr(3, 3, 2), arr(2, 4)),
	    fn('array_except', arr('b', 'a', 'b'), arr('c')))));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(lib.resultRows(r.responses)[0].map(lib.plainValue),
	    [[1, 2, 3, 5], [1, 3], [2], [3, 2, 4], ['b', 'a']]);
	const bad = await s.execute(df.plan(df.project(null,
	    fn('array_union', arr(1), arr('a')))));
	lib.assertSparkError(lib.streamError(bad),
	    'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE', '42K09');
});

lib.stopTest(srv);
