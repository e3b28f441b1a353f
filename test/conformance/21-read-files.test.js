// SPDX-License-Identifier: MIT
//
// 21-read-files: files uploaded with AddArtifacts (artifacts.js, Spark's
// algorithm) read back by the engine: a DataFrame read (Relation read
// with data_source, as spark.read.csv('files/x.csv') sends it) of CSV
// with and without header and inferSchema, JSON lines and text, checked
// by rows, column names and types, and nulls; Spark SQL's
// csv.`files/x.csv` and sctk's read_files(); and the refusals: paths
// outside files/, "..", other formats, missing files, and another
// session's files.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');

const lib = require('./lib');
const A = require('./artifacts');

const { T } = lib;
const srv = lib.useServer();

const CSV = 'id,name,score,ok,day\r\n' +
    '1,alice,1.5,true,2024-01-02\r\n' +
    '2,"bob, jr",,false,2024-02-03\r\n' +
    '\r\n' +
    '3,"say ""hi""",2.25,TRUE,\r\n';

const JSONL = '{"b": 1, "a": "x", "c": true}\n' +
    '{"a": null, "b": 2.5, "d": "\\u00e9\\"q"}\n' +
    '\n' +
    '{"b": 3}\n';

const NULLS = 'a,b\nNA,1\n"",2\n,3\n"NA",4\n';

const TEXT = 'one\r\ntwo\n\nthree';

function readPlan(format, paths, options = {}, schema = undefined) {
	const ds = { paths, options };
	if (format !== null)
		ds.format = format;
	if (schema !== undefined)
		ds.schema = schema;
	return { root: { read: { data_source: ds } } };
}

// Rows of a result as arrays (int64 as Number), and [name, kind] pairs.
function rows(r) {
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	const out = [];
	for (const b of lib.decodeBatches(r.responses).batches) {
		const names = b.table.schema.fields.map((f) => f.name);
		for (let i = 0; i < b.table.numRows; i++)
			out.push(names.map((n) => {
				const v = b.table.getChild(n).get(i);
				return typeof v === 'bigint' ? Number(v) : v;
			}));
	}
	return out;
}

function schema(r) {
	const s = r.responses.find((x) => x.schema);
	return s.schema.struct.fields.map((f) => [f.name, f.data_type.kind]);
}

async function upload(s, files) {
	const r = await A.addArtifacts(s, Object.entries(files).map(
	    ([name, text]) => ({ name, data: Buffer.from(text) })));
	assert.equal(r.err, null, r.err && lib.statusText(r.err));
}

async function failure(s, plan) {
	const r = await s.execute(plan);
	assert.notEqual(r.status.code, lib.code.OK, 'the read must fail');
	return r.status;
}

test('csv without header: _c0.. string columns, the header line is data',
    T, async () => {
	const s = new lib.Session(srv);
	await upload(s, { 'files/data.csv': CSV });
	const r = await s.execute(readPlan('csv', ['files/data.csv']));
	assert.deepEqual(schema(r), [['_c0', 'string'], ['_c1', 'string'],
	    ['_c2', 'string'], ['_c3', 'string'], ['_c4', 'string']]);
	assert.deepEqual(rows(r), [
		['id', 'name', 'score', 'ok', 'day'],
		['1', 'alice', '1.5', 'true', '2024-01-02'],
		['2', 'bob, jr', null, 'false', '2024-02-03'],
		['3', 'say "hi"', '2.25', 'TRUE', null],
	]);
});

test('csv with header: its names, strings without inferSchema', T,
    async () => {
	const s = new lib.Session(srv);
	await upload(s, { 'files/data.csv': CSV });
	const r = await s.execute(readPlan('csv', ['files/data.csv'],
	    { header: 'true' }));
	assert.deepEqual(schema(r), [['id', 'string'], ['name', 'string'],
	    ['score', 'string'], ['ok', 'string'], ['day', 'string']]);
	assert.deepEqual(rows(r).map((x) => x[0]), ['1', '2', '3']);
});

test('csv with header and inferSchema: Spark\'s types', T, async () => {
	const s = new lib.Session(srv);
	await upload(s, { 'files/data.csv': CSV,
	    'files/wide.csv': 'n,big,mix,t\n1,3000000000,1,2024-01-02 10:00:00\n' +
		'2,4,x,2024-01-03T11:30:00\n' });
	const r = await s.execute(readPlan('csv', ['files/data.csv'],
	    { header: 'true', inferSchema: 'true' }));
	assert.deepEqual(schema(r), [['id', 'integer'], ['name', 'string'],
	    ['score', 'double'], ['ok', 'boolean'], ['day', 'date']]);
	const v = rows(r);
	assert.deepEqual(v.map((x) => [x[0], x[1], x[2], x[3]]), [
		[1, 'alice', 1.5, true],
		[2, 'bob, jr', null, false],
		[3, 'say "hi"', 2.25, true],
	]);
	assert.equal(v[2][4], null);
	assert.notEqual(v[0][4], null);
	const w = await s.execute(readPlan('csv', ['files/wide.csv'],
	    { header: 'true', inferSchema: 'true' }));
	assert.deepEqual(schema(w), [['n', 'integer'], ['big', 'long'],
	    ['mix', 'string'], ['t', 'timestamp']]);
	const wv = rows(w);
	assert.deepEqual(wv.map((x) => [x[0], x[1], x[2]]),
	    [[1, 3000000000, '1'], [2, 4, 'x']]);
	// 2024-01-02T10:00:00Z and 2024-01-03T11:30:00Z in milliseconds.
	assert.deepEqual(wv.map((x) => Number(x[3])),
	    [1704189600000, 1704281400000]);
	// AnalyzePlan gives the same schema without running the plan.
	const a = await s.analyze({ schema: { plan: readPlan('csv',
	    ['files/wide.csv'], { header: 'true', inferSchema: 'true' }) } });
	assert.deepEqual(a.schema.schema.struct.fields.map((f) =>
	    [f.name, f.data_type.kind]), schema(w));
});

test('csv nullValue, sep and a given schema', T, async () => {
	const s = new lib.Session(srv);
	await upload(s, { 'files/nulls.csv': NULLS,
	    'files/semi.csv': 'x;y\n"a;b";7\nc;x\n' });
	// Unquoted empty and nullValue are null; a quoted "" is an empty
	// string once nullValue is not "".
	const r = await s.execute(readPlan('csv', ['files/nulls.csv'],
	    { header: 'true', nullValue: 'NA' }));
	assert.deepEqual(rows(r), [[null, '1'], ['', '2'], [null, '3'],
	    [null, '4']]);
	const d = await s.execute(readPlan('csv', ['files/nulls.csv'],
	    { header: 'true' }));
	assert.deepEqual(rows(d), [['NA', '1'], [null, '2'], [null, '3'],
	    ['NA', '4']]);
	const g = await s.execute(readPlan('csv', ['files/semi.csv'],
	    { sep: ';', header: 'true' }, 'x STRING, y INT'));
	assert.deepEqual(schema(g), [['x', 'string'], ['y', 'integer']]);
	// PERMISSIVE: a value that does not fit its type is null.
	assert.deepEqual(rows(g), [['a;b', 7], ['c', null]]);
});

test('json lines: columns sorted by name, long/double/boolean/string',
    T, async () => {
	const s = new lib.Session(srv);
	await upload(s, { 'files/data.json': JSONL,
	    'files/bad.json': '{"a": 1}\nnot json\n' });
	const r = await s.execute(readPlan('json', ['files/data.json']));
	assert.deepEqual(schema(r), [['a', 'string'], ['b', 'double'],
	    ['c', 'boolean'], ['d', 'string']]);
	assert.deepEqual(rows(r), [
		['x', 1, true, null],
		[null, 2.5, null, '\u00e9"q'],
		[null, 3, null, null],
	]);
	const b = await s.execute(readPlan('json', ['files/bad.json']));
	assert.deepEqual(schema(b), [['_corrupt_record', 'string'],
	    ['a', 'long']]);
	assert.deepEqual(rows(b), [[null, 1], ['not json', null]]);
});

test('text: one column value per line, empty lines kept', T, async () => {
	const s = new lib.Session(srv);
	await upload(s, { 'files/notes.txt': TEXT });
	const r = await s.execute(readPlan('text', ['files/notes.txt']));
	assert.deepEqual(schema(r), [['value', 'string']]);
	assert.deepEqual(rows(r), [['one'], ['two'], [''], ['three']]);
});

test('several paths are one relation; a chain over a read works', T,
    async () => {
	const s = new lib.Session(srv);
	await upload(s, { 'files/p1.csv': 'x\n1\n2\n',
	    'files/p2.csv': 'x\n30\n' });
	const plan = { root: { filter: {
		input: readPlan('csv', ['files/p1.csv', 'files/p2.csv'],
		    { header: 'true', inferSchema: 'true' }).root,
		condition: { expression_string: { expression: 'x > 1' } },
	} } };
	const r = await s.execute(plan);
	assert.deepEqual(rows(r), [[2], [30]]);
});

test('Spark SQL csv.`files/...` and sctk read_files()', T, async () => {
	const s = new lib.Session(srv);
	await upload(s, { 'files/n.csv': '5,a\n7,b\n', 'files/h.csv': 'x,y\n1,2\n3,4\n',
	    'files/t.json': '{"k": 2}\n{"k": 40}\n' });
	let r = await s.execute(lib.sqlPlan(
	    'SELECT count(*) AS n, sum(_c0) AS s FROM csv.`files/n.csv`'));
	assert.deepEqual(rows(r), [[2, 12]]);
	r = await s.execute(lib.sqlPlan(
	    'SELECT sum(k) AS s FROM json.`files/t.json`'));
	assert.deepEqual(rows(r), [[42]]);
	r = await s.execute(lib.sqlPlan('SELECT sum(x) AS s, max(y) AS m ' +
	    'FROM read_files(\'files/h.csv\', format => \'csv\', ' +
	    'header => true, inferSchema => true)'));
	assert.deepEqual(rows(r), [[4, 4]]);
	const st = await failure(s, lib.sqlPlan(
	    'SELECT * FROM csv.`/etc/passwd`'));
	lib.assertSparkError(st, 'UNSUPPORTED_FEATURE.DATA_SOURCE', '0A000');
});

test('refusals: outside files/, "..", other formats, missing files', T,
    async () => {
	const s = new lib.Session(srv);
	await upload(s, { 'files/data.csv': CSV, 'jars/x.csv': 'a\n' });
	for (const p of ['/etc/passwd', 'jars/x.csv', 'file:///etc/passwd',
	    'x.csv'])
		lib.assertSparkError(await failure(s, readPlan('csv', [p])),
		    'UNSUPPORTED_FEATURE.DATA_SOURCE', '0A000');
	const dots = await failure(s, readPlan('csv', ['files/../jars/x.csv']));
	// Spark's INVALID_ARTIFACT_PATH has no SQLSTATE.
	assert.equal(dots.code, lib.code.INTERNAL, lib.statusText(dots));
	assert.match(dots.details, /^\[INVALID_ARTIFACT_PATH\] .*'\.\.'/);
	assert.equal(lib.errorDetails(dots).errorInfo.metadata.errorClass,
	    'INVALID_ARTIFACT_PATH');
	lib.assertSparkError(await failure(s,
	    readPlan('csv', ['files/missing.csv'])), 'PATH_NOT_FOUND', '42K03');
	lib.assertSparkError(await failure(s,
	    readPlan('parquet', ['files/data.csv'])),
	'UNSUPPORTED_FEATURE.DATA_SOURCE', '0A000');
	// No format: Spark's default source, parquet.
	lib.assertSparkError(await failure(s,
	    readPlan(null, ['files/data.csv'])),
	'UNSUPPORTED_FEATURE.DATA_SOURCE', '0A000');
	lib.assertSparkError(await failure(s, readPlan('csv',
	    ['files/data.csv'], { multiLine: 'true' })),
	'UNSUPPORTED_FEATURE.DATA_SOURCE', '0A000');
	lib.assertSparkError(await failure(s, readPlan('csv', [])),
	    'UNABLE_TO_INFER_SCHEMA', '42KD9');
});

test('another session cannot read a session\'s files', T, async () => {
	const a = new lib.Session(srv);
	const b = new lib.Session(srv);
	await upload(a, { 'files/secret.csv': 's\n1\n' });
	const ok = await a.execute(readPlan('csv', ['files/secret.csv']));
	assert.deepEqual(rows(ok), [['s'], ['1']]);
	lib.assertSparkError(await failure(b,
	    readPlan('csv', ['files/secret.csv'])), 'PATH_NOT_FOUND', '42K03');
	lib.assertSparkError(await failure(b, lib.sqlPlan(
	    'SELECT * FROM csv.`files/secret.csv`')), 'PATH_NOT_FOUND',
	'42K03');
});
