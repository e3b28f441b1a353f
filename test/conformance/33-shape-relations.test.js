// SPDX-License-Identifier: MIT
//
// 33-shape-relations: the relations that reshape or bring in rows:
// to_schema (DataFrame.to: columns matched by name, ANSI up-casts, the
// nullability rules and their error classes), transpose (index values
// as columns, sorted, one least common type), parse (spark.read.csv and
// spark.read.json over a relation of strings, with a schema or inferred)
// cached_local_relation (a LocalRelation uploaded as the artifact
// cache/<sha-256>) and chunked_cached_local_relation (its rows as
// several Arrow stream artifacts, its schema as one more).  Names, types, nullability and rows as Spark gives
// them.

'use strict';

const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { test } = require('node:test');

const lib = require('./lib');
const A = require('./artifacts');

const { arrow, df } = lib;
const srv = lib.useServer();
const { T } = lib;

async function run(s, root) {
	const r = await s.execute(df.plan(root));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return r;
}

async function fails(s, root, errorClass, sqlState) {
	const r = await s.execute(df.plan(root));
	return lib.assertSparkError(lib.streamError(r), errorClass, sqlState);
}

const rows = (r) => lib.resultRows(r.responses);
const fields = (r) => lib.resultFields(r.responses);

// DataType messages.
const DT = {
	int: { integer: {} },
	long: { long: {} },
	double: { double: {} },
	string: { string: {} },
	date: { date: {} },
	struct: (...f) => ({ struct: { fields: f } }),
	field: (name, data_type, nullable = true) => ({ name, data_type,
	    nullable }),
	array: (element_type, contains_null = true) => ({ array: {
	    element_type, contains_null } }),
};

const toSchema = (input, ...f) => ({ to_schema: { input,
    schema: DT.struct(...f) } });

// i string (nullable), j int (not nullable, as Arrow data without nulls
// still says nullable: the schema string makes it NOT NULL).
function pairs() {
	return df.local(new arrow.Table({
		i: arrow.vectorFromArray(['a', 'c'], new arrow.Utf8()),
		j: arrow.vectorFromArray([1, 2], new arrow.Int32()),
	}), 'i STRING, j INT NOT NULL');
}

test('to_schema reorders, selects and up-casts columns by name', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await run(s, toSchema(pairs(),
	    DT.field('J', DT.long), DT.field('I', DT.string),
	    DT.field('extra', DT.double)));
	// Names from the schema, j keeps its NOT NULL, a missing nullable
	// column is null.
	assert.deepEqual(fields(r), [['J', 'Int64', false],
		['I', 'Utf8', true], ['extra', 'Float64', true]]);
	assert.deepEqual(rows(r), [[1n, 'a', null], [2n, 'c', null]]);
	const one = await run(s, toSchema(pairs(), DT.field('j', DT.string)));
	assert.deepEqual(fields(one), [['j', 'Utf8', false]]);
	assert.deepEqual(rows(one), [['1'], ['2']]);
	// The schema of the plan says the same without running it.
	const an = await s.analyze({ schema: { plan: df.plan(toSchema(pairs(),
	    DT.field('j', DT.double, false))) } });
	const f = an.schema.schema.struct.fields;
	assert.deepEqual(f.map((x) => [x.name, Object.keys(x.data_type)
	    .find((k) => x.data_type[k] !== null && k !== 'kind'),
	    x.nullable]), [['j', 'double', false]]);
});

test('to_schema refuses what Spark refuses, by error class', T,
    async () => {
	const s = new lib.Session(srv);
	const miss = await fails(s, toSchema(pairs(),
	    DT.field('non_exist', DT.string, false)),
	'UNRESOLVED_COLUMN.WITH_SUGGESTION', '42703');
	assert.match(miss.message, /`non_exist`.*\[`i`, `j`\]/);
	const cast = await fails(s, toSchema(pairs(), DT.field('i', DT.int)),
	    'INVALID_COLUMN_OR_FIELD_DATA_TYPE', '42000');
	assert.match(cast.message,
	    /`i` is of type "STRING" while it's required to be "INT"/);
	const nul = await fails(s, toSchema(pairs(),
	    DT.field('i', DT.string, false)), 'NULLABLE_COLUMN_OR_FIELD',
	'42000');
	assert.match(nul.message, /Column or field `i` is nullable/);
	const amb = await fails(s, toSchema({ to_df: { input: pairs(),
	    column_names: ['i', 'I'] } }, DT.field('i', DT.string)),
	'AMBIGUOUS_COLUMN_OR_FIELD', '42702');
	assert.match(amb.message, /`i` is ambiguous and has 2 matches/);
	// An up-cast that overflows is an ANSI cast error at run time.
	const big = df.local(new arrow.Table({
		n: arrow.vectorFromArray([1n, 5000000000n], new arrow.Int64()),
	}));
	await fails(s, toSchema(big, DT.field('n', DT.int)), 'CAST_OVERFLOW',
	    '22003');
});

test('to_schema reorders the fields of a struct column', T, async () => {
	const s = new lib.Session(srv);
	const st = df.project(pairs(), df.alias(df.fn('struct', df.col('i'),
	    df.col('j')), 's'));
	const r = await run(s, toSchema(st, DT.field('s', DT.struct(
	    DT.field('j', DT.long), DT.field('I', DT.string),
	    DT.field('k', DT.date)), false)));
	assert.deepEqual(fields(r), [['s',
		'Struct<{j:Int64, I:Utf8, k:Date32<DAY>}>', false]]);
	assert.deepEqual(rows(r), [[{ j: 1n, I: 'a', k: null }],
		[{ j: 2n, I: 'c', k: null }]]);
	const e = await fails(s, toSchema(st, DT.field('s', DT.struct(
	    DT.field('zz', DT.int, false)), false)),
	'UNRESOLVED_FIELD.WITH_SUGGESTION', '42703');
	assert.match(e.message, /`zz`.*`s`.*\[`i`, `j`\]/);
	await fails(s, toSchema(st, DT.field('s', DT.struct(
	    DT.field('i', DT.int)), false)),
	'INVALID_COLUMN_OR_FIELD_DATA_TYPE', '42000');
});

test('to_schema converts array elements and map values', T, async () => {
	const s = new lib.Session(srv);
	const input = { sql: { query: 'SELECT array(1, 2) AS a, ' +
	    "map('k', 1, 'z', NULL) AS m, " +
	    "array(named_struct('i', 1, 'j', 'x'), NULL) AS s" } };
	const r = await run(s, toSchema(input,
	    DT.field('a', DT.array(DT.long, false)),
	    DT.field('m', { map: { key_type: DT.string, value_type: DT.double,
		value_contains_null: true } }),
	    DT.field('s', DT.array(DT.struct(DT.field('J', DT.string),
		DT.field('i', DT.long))))));
	assert.deepEqual(fields(r), [['a', 'List<Int64>', false],
		['m', 'Map<{key:Utf8, value:Float64}>', false],
		['s', 'List<Struct<{J:Utf8, i:Int64}>>', false]]);
	assert.deepEqual(rows(r), [[[1n, 2n], [['k', 1], ['z', null]],
		[{ J: 'x', i: 1n }, null]]]);
	await fails(s, toSchema(input, DT.field('m', { map: {
	    key_type: DT.string, value_type: DT.long,
	    value_contains_null: false } })),
	'NOT_NULL_CONSTRAINT_VIOLATION.MAP_VALUE', '42000');
	const e = await fails(s, toSchema(input,
	    DT.field('a', DT.array(DT.date))),
	'INVALID_COLUMN_OR_FIELD_DATA_TYPE', '42000');
	assert.match(e.message, /`a`.`element` is of type "INT"/);
});

// name string, id int, age int (Spark's transpose examples).
function people(extra = {}) {
	return df.local(new arrow.Table({
		name: arrow.vectorFromArray(['mike', 'jim', null],
		    new arrow.Utf8()),
		id: arrow.vectorFromArray([1, 0, 9], new arrow.Int32()),
		age: arrow.vectorFromArray([20, 30, 40], new arrow.Int32()),
		...extra,
	}));
}

test('transpose makes the index values columns, sorted', T, async () => {
	const s = new lib.Session(srv);
	const r = await run(s, { transpose: { input: people() } });
	// The null index row is left out; jim sorts before mike.
	assert.deepEqual(fields(r), [['key', 'Utf8', false],
		['jim', 'Int32', true], ['mike', 'Int32', true]]);
	assert.deepEqual(rows(r), [['id', 0, 1], ['age', 30, 20]]);
	const byAge = await run(s, { transpose: { input: df.project(
	    people(), df.col('age'), df.col('id')),
	index_columns: [df.col('AGE')] } });
	assert.deepEqual(fields(byAge).map((f) => f[0]),
	    ['key', '20', '30', '40']);
	assert.deepEqual(rows(byAge), [['id', 1, 0, 9]]);
	// Integers and doubles share double.
	const mixed = df.local(new arrow.Table({
		k: arrow.vectorFromArray(['x', 'y'], new arrow.Utf8()),
		a: arrow.vectorFromArray([1, 2], new arrow.Int32()),
		b: arrow.vectorFromArray([10.5, 20], new arrow.Float64()),
	}));
	const m = await run(s, { transpose: { input: mixed } });
	assert.deepEqual(fields(m), [['key', 'Utf8', false],
		['x', 'Float64', true], ['y', 'Float64', true]]);
	assert.deepEqual(rows(m), [['a', 1, 2], ['b', 10.5, 20]]);
	// No rows: the key column alone.
	const none = await run(s, { transpose: { input: df.filter(people(),
	    df.lit(false)) } });
	assert.deepEqual(fields(none), [['key', 'Utf8', false]]);
	assert.deepEqual(rows(none), [['id'], ['age']]);
});

test('transpose refuses mixed types, bad index columns, too many rows', T,
    async () => {
	const s = new lib.Session(srv);
	const e = await fails(s, { transpose: { input: df.project(people(),
	    df.col('id'), df.col('name'), df.col('age')) } },
	'TRANSPOSE_NO_LEAST_COMMON_TYPE', '42K09');
	assert.match(e.message, /"STRING" and "INT" do not/);
	const arr = df.project(people(), df.alias(df.fn('array',
	    df.col('id')), 'a'), df.col('age'));
	const bad = await fails(s, { transpose: { input: arr } },
	    'TRANSPOSE_INVALID_INDEX_COLUMN', '42804');
	assert.match(bad.message,
	    /must be of atomic type, but found: ArrayType\(IntegerType,true\)/);
	await fails(s, { transpose: { input: people(),
	    index_columns: [df.col('nope')] } },
	'UNRESOLVED_COLUMN.WITH_SUGGESTION', '42703');
	const many = await fails(s, { transpose: { input: { range: {
	    start: '0', end: '501', step: '1' } } } },
	'TRANSPOSE_EXCEED_ROW_LIMIT', '54006');
	assert.match(many.message, /limit of 500/);
	const ok = await run(s, { transpose: { input: { range: {
	    start: '0', end: '500', step: '1' } } } });
	assert.equal(fields(ok).length, 501);
	assert.deepEqual(rows(ok), []);
	// The session's spark.sql.transposeMaxValues moves the limit.
	await s.config({ set: { pairs: [{ key: 'spark.sql.transposeMaxValues',
	    value: '1' }] } });
	const one = await fails(s, { transpose: { input: people() } },
	    'TRANSPOSE_EXCEED_ROW_LIMIT', '54006');
	assert.match(one.message, /limit of 1 for TRANSPOSE/);
});

function strings(values) {
	return df.local(new arrow.Table({
		value: arrow.vectorFromArray(values, new arrow.Utf8()),
	}));
}

const parse = (input, format, options = {}, schema = undefined) => ({
	parse: { input, format, options, ...(schema ? { schema } : {}) } });

test('parse reads CSV strings, with a schema or inferring one', T,
    async () => {
	const s = new lib.Session(srv);
	// Null and blank strings are skipped, and so is every string equal
	// to the header (Spark filters the Dataset by it).
	const csv = strings(['id,name', '1,"a, b"', '', '2,', null, ' \t',
	    'id,name']);
	const r = await run(s, parse(csv, 'PARSE_FORMAT_CSV',
	    { header: 'true', inferSchema: 'true' }));
	assert.deepEqual(fields(r), [['id', 'Int32', true],
		['name', 'Utf8', true]]);
	assert.deepEqual(rows(r), [[1, 'a, b'], [2, null]]);
	const typed = await run(s, parse(strings(['1,x,2024-01-02', '2,y,']),
	    'PARSE_FORMAT_CSV', {}, DT.struct(DT.field('n', DT.long),
		DT.field('s', DT.string), DT.field('d', DT.date))));
	assert.deepEqual(fields(typed), [['n', 'Int64', true],
		['s', 'Utf8', true], ['d', 'Date32<DAY>', true]]);
	assert.deepEqual(rows(typed).map((x) => [x[0], x[1],
	    x[2] === null ? null : new Date(x[2]).toISOString().slice(0, 10)]),
	[[1n, 'x', '2024-01-02'], [2n, 'y', null]]);
	// Without inferSchema every column is a string, named _c0, _c1.
	const plain = await run(s, parse(strings(['1,x', '2,y']),
	    'PARSE_FORMAT_CSV'));
	assert.deepEqual(fields(plain), [['_c0', 'Utf8', true],
		['_c1', 'Utf8', true]]);
	assert.deepEqual(rows(plain), [['1', 'x'], ['2', 'y']]);
});

test('parse reads JSON strings; a malformed one is a _corrupt_record', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await run(s, parse(strings(['{"b": 1, "a": "x"}',
	    '{"a": "y", "b": 2.5}', 'not json']), 'PARSE_FORMAT_JSON'));
	assert.deepEqual(fields(r), [['_corrupt_record', 'Utf8', true],
		['a', 'Utf8', true], ['b', 'Float64', true]]);
	assert.deepEqual(rows(r), [[null, 'x', 1], [null, 'y', 2.5],
		['not json', null, null]]);
	const typed = await run(s, parse(strings(['{"b": 7, "a": "x"}']),
	    'PARSE_FORMAT_JSON', {}, DT.struct(DT.field('b', DT.long),
		DT.field('c', DT.string))));
	assert.deepEqual(fields(typed), [['b', 'Int64', true],
		['c', 'Utf8', true]]);
	assert.deepEqual(rows(typed), [[7n, null]]);
	await fails(s, parse(strings(['<a/>']), 'PARSE_FORMAT_XML'),
	    'UNSUPPORTED_FEATURE.DATA_SOURCE', '0A000');
	await fails(s, parse(strings(['{}']), 'PARSE_FORMAT_JSON',
	    { mode: 'FAILFAST' }), 'UNSUPPORTED_FEATURE.DATA_SOURCE', '0A000');
	await fails(s, parse(pairs(), 'PARSE_FORMAT_CSV'),
	    'UNSUPPORTED_DESERIALIZER.FIELD_NUMBER_MISMATCH', '0A000');
});

// LocalRelation{1 data, 2 schema} in protobuf's wire form.
function localRelationBytes(table, schema) {
	const varint = (n) => {
		const out = [];
		while (n > 127) {
			out.push((n & 127) | 128);
			n = Math.floor(n / 128);
		}
		out.push(n);
		return Buffer.from(out);
	};
	const field = (tag, bytes) => Buffer.concat([Buffer.from([tag]),
	    varint(bytes.length), bytes]);
	const parts = [field(0x0a,
	    Buffer.from(arrow.tableToIPC(table, 'stream')))];
	if (schema !== undefined)
		parts.push(field(0x12, Buffer.from(schema)));
	return Buffer.concat(parts);
}

test('cached_local_relation reads the uploaded cache/<sha256>', T,
    async () => {
	const s = new lib.Session(srv);
	const blob = localRelationBytes(new arrow.Table({
		x: arrow.vectorFromArray([3, 1, 2], new arrow.Int32()),
		y: arrow.vectorFromArray(['c', 'a', null], new arrow.Utf8()),
	}), 'x INT NOT NULL, y STRING');
	const hash = crypto.createHash('sha256').update(blob).digest('hex');
	const up = await A.addArtifacts(s, [{ name: `cache/${hash}`,
	    data: blob }]);
	assert.equal(up.err, null, up.err && up.err.message);
	assert.deepEqual(await A.status(s, [`cache/${hash}`]),
	    { [`cache/${hash}`]: true });
	const r = await run(s, { cached_local_relation: { hash } });
	assert.deepEqual(fields(r), [['x', 'Int32', false],
		['y', 'Utf8', true]]);
	assert.deepEqual(rows(r), [[3, 'c'], [1, 'a'], [2, null]]);
	// It is a relation like any other.
	const f = await run(s, df.filter({ cached_local_relation: { hash } },
	    df.fn('>', df.col('x'), df.lit(1))));
	assert.deepEqual(rows(f), [[3, 'c'], [2, null]]);
	const miss = await fails(s, { cached_local_relation: {
	    hash: '0'.repeat(64) } }, 'INVALID_PLAN_INPUT', '22023');
	assert.match(miss.message, /Not found any cached local relation/);
	await fails(s, { cached_local_relation: { hash: '../x' } },
	    'INVALID_PLAN_INPUT', '22023');
	// Another session does not see it.
	const other = new lib.Session(srv);
	await fails(other, { cached_local_relation: { hash } },
	    'INVALID_PLAN_INPUT', '22023');
});

test('chunked_cached_local_relation appends its chunks in order', T,
    async () => {
	const s = new lib.Session(srv);
	const chunk = (xs, ys) => Buffer.from(arrow.tableToIPC(new arrow.Table({
		x: arrow.vectorFromArray(xs, new arrow.Int64()),
		y: arrow.vectorFromArray(ys, new arrow.Utf8()),
	}), 'stream'));
	// The schema as PySpark sends it: JSON, non-ASCII escaped.
	const schema = Buffer.from('{"type":"struct","fields":[' +
	    '{"name":"x","type":"long","nullable":false,"metadata":{}},' +
	    '{"name":"\\u6570","type":"string","nullable":true,' +
	    '"metadata":{}}]}');
	const blobs = [schema, chunk([1n, 2n], ['a', 'b']),
		chunk([3n], [null]), chunk([4n, 5n], ['d', 'e'])];
	const odd = Buffer.from(arrow.tableToIPC(new arrow.Table({
		x: arrow.vectorFromArray([1n], new arrow.Int64()),
	}), 'stream'));
	blobs.push(odd);
	const h = blobs.map((b) =>
	    crypto.createHash('sha256').update(b).digest('hex'));
	const up = await A.addArtifacts(s, blobs.map((b, i) =>
	    ({ name: `cache/${h[i]}`, data: b })));
	assert.equal(up.err, null, up.err && up.err.message);
	const rel = (data, sh) => ({ chunked_cached_local_relation: {
	    dataHashes: data, schemaHash: sh } });
	const r = await run(s, rel([h[1], h[2], h[3]], h[0]));
	assert.deepEqual(fields(r), [['x', 'Int64', false],
		['\u6570', 'Utf8', true]]);
	assert.deepEqual(rows(r).map((w) => [Number(w[0]), w[1]]),
	    [[1, 'a'], [2, 'b'], [3, null], [4, 'd'], [5, 'e']]);
	// Without a schema hash, the first chunk's Arrow schema.
	const n = await run(s, { chunked_cached_local_relation: {
	    dataHashes: [h[3], h[1]] } });
	assert.deepEqual(fields(n), [['x', 'Int64', true], ['y', 'Utf8', true]]);
	assert.deepEqual(rows(n).map((w) => [Number(w[0]), w[1]]),
	    [[4, 'd'], [5, 'e'], [1, 'a'], [2, 'b']]);
	// A schema and no data: no rows.
	const e = await run(s, rel([], h[0]));
	assert.deepEqual(rows(e), []);
	const miss = await fails(s, rel([h[1], '0'.repeat(64)], h[0]),
	    'INVALID_PLAN_INPUT', '22023');
	assert.match(miss.message, /Not found any cached local relation/);
	await fails(s, rel([h[1]], '0'.repeat(64)), 'INVALID_PLAN_INPUT',
	    '22023');
	const cols = await fails(s, rel([h[1], h[4]], h[0]),
	    'INVALID_PLAN_INPUT', '22023');
	assert.match(cols.message, /schema has 2 columns but its data has 1/);
});

lib.stopTest(srv);
