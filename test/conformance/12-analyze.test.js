// SPDX-License-Identifier: MIT
//
// 12-analyze: AnalyzePlan: the schema of a query (names and types), the
// server's Spark version, explain (every mode), tree_string, is_local,
// is_streaming, input_files, ddl_parse, json_to_ddl, same_semantics,
// semantic_hash, persist, unpersist and get_storage_level.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const { T } = lib;

function fields(dt) {
	assert.equal(dt.kind, 'struct');
	return dt.struct.fields.map((f) => [f.name, f.data_type.kind]);
}

test('AnalyzePlan schema gives the field names and types of a query', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await s.analyze({ schema: { plan: lib.sqlPlan(
	    'SELECT id, \'v\' || id AS s, id * 0.5 AS h, id > 1 AS b ' +
	    'FROM range(3)') } });
	assert.equal(r.session_id, s.sessionId);
	assert.match(r.server_side_session_id, lib.UUID_RE);
	assert.equal(r.result, 'schema');
	// bigint * decimal(1,1) is decimal(22,1) in Spark: the bigint is a
	// decimal(20,0), and a product has p1 + p2 + 1 digits, s1 + s2 after
	// the point.
	assert.deepEqual(fields(r.schema.schema).slice(0, 3),
	    [['id', 'long'], ['s', 'string'], ['h', 'decimal']]);
	const h = r.schema.schema.struct.fields[2].data_type.decimal;
	assert.deepEqual([h.precision, h.scale], [22, 1]);
	assert.equal(fields(r.schema.schema)[3][0], 'b');
	const range = await s.analyze({ schema: {
	    plan: lib.rangePlan(0, 10) } });
	assert.deepEqual(fields(range.schema.schema), [['id', 'long']]);
	assert.equal(range.schema.schema.struct.fields[0].nullable, false);
});

test('AnalyzePlan schema agrees with the schema ExecutePlan sends', T,
    async () => {
	const s = new lib.Session(srv);
	const plan = lib.sqlPlan('SELECT id, id * 2 AS twice FROM range(4)');
	const a = await s.analyze({ schema: { plan } });
	const r = await s.execute(plan);
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(fields(a.schema.schema),
	    fields(r.responses[0].schema));
	const cols = lib.decodeBatches(r.responses).batches[0].table.schema
	    .fields.map((f) => f.name);
	assert.deepEqual(cols, ['id', 'twice']);
});

test('AnalyzePlan schema of a missing table fails with ' +
    'TABLE_OR_VIEW_NOT_FOUND', T, async () => {
	const s = new lib.Session(srv);
	const err = await lib.rejects(s.analyze({ schema: {
	    plan: lib.sqlPlan('SELECT * FROM no_such_table_for_analyze') } }));
	lib.assertSparkError(err, 'TABLE_OR_VIEW_NOT_FOUND', '42P01');
});

test('spark_version is a non-empty version string', T, async () => {
	const s = new lib.Session(srv);
	const r = await s.analyze({ spark_version: {} });
	assert.equal(r.result, 'spark_version');
	assert.match(r.spark_version.version, /^\d+\.\d+/);
});

test('explain returns a non-empty plan text', T, async () => {
	const s = new lib.Session(srv);
	for (const mode of ['EXPLAIN_MODE_SIMPLE', 'EXPLAIN_MODE_EXTENDED']) {
		const r = await s.analyze({ explain: {
		    plan: lib.sqlPlan('SELECT id FROM range(10) WHERE id > 3'),
		    explain_mode: mode } });
		assert.equal(r.result, 'explain');
		assert.ok(r.explain.explain_string.trim().length > 0, mode);
	}
});

test('tree_string prints the schema as a tree', T, async () => {
	const s = new lib.Session(srv);
	const r = await s.analyze({ tree_string: {
	    plan: lib.rangePlan(0, 10) } });
	assert.equal(r.result, 'tree_string');
	assert.equal(r.tree_string.tree_string,
	    'root\n |-- id: long (nullable = false)\n');
	const two = await s.analyze({ tree_string: { plan: lib.sqlPlan(
	    'SELECT id, id * 2 AS twice FROM range(3)') } });
	const line = (name) =>
	    ` \\|-- ${name}: long \\(nullable = (true|false)\\)\\n`;
	assert.match(two.tree_string.tree_string,
	    new RegExp(`^root\\n${line('id')}${line('twice')}$`));
});

test('is_local is false for a range', T, async () => {
	const s = new lib.Session(srv);
	const r = await s.analyze({ is_local: { plan: lib.rangePlan(0, 10) } });
	assert.equal(r.result, 'is_local');
	assert.equal(r.is_local.is_local, false);
});

test('explain answers every mode', T, async () => {
	const s = new lib.Session(srv);
	for (const mode of ['EXPLAIN_MODE_UNSPECIFIED', 'EXPLAIN_MODE_SIMPLE',
	    'EXPLAIN_MODE_EXTENDED', 'EXPLAIN_MODE_CODEGEN',
	    'EXPLAIN_MODE_COST', 'EXPLAIN_MODE_FORMATTED']) {
		const r = await s.analyze({ explain: {
		    plan: lib.sqlPlan('SELECT id FROM range(4)'),
		    explain_mode: mode } });
		assert.equal(r.result, 'explain', mode);
		assert.match(r.explain.explain_string, /range/i, mode);
	}
});

test('is_streaming is false; is_local is true for a local relation', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await s.analyze({ is_streaming: {
	    plan: lib.rangePlan(0, 3) } });
	assert.equal(r.result, 'is_streaming');
	assert.equal(r.is_streaming.is_streaming, false);
	const l = await s.analyze({ is_local: { plan: { root: {
	    local_relation: { schema: 'a INT' } } } } });
	assert.equal(l.is_local.is_local, true);
});

test('input_files lists the paths a plan reads, once each', T,
    async () => {
	const s = new lib.Session(srv);
	const read = (paths, options = {}) => ({ read: { data_source: {
	    format: 'csv', paths, options } } });
	const r = await s.analyze({ input_files: { plan: { root: {
	    limit: { input: read(['files/a.csv', 'files/b.csv']),
		limit: 3 } } } } });
	assert.equal(r.result, 'input_files');
	assert.deepEqual(r.input_files.files, ['files/a.csv', 'files/b.csv']);
	const o = await s.analyze({ input_files: { plan: { root:
	    read([], { path: 'files/c.csv' }) } } });
	assert.deepEqual(o.input_files.files, ['files/c.csv']);
	const none = await s.analyze({ input_files: {
	    plan: lib.rangePlan(0, 3) } });
	assert.deepEqual(none.input_files.files, []);
});

test('ddl_parse reads a DDL schema, or a bare type, as Spark does', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await s.analyze({ ddl_parse: {
	    ddl_string: 'a INT, b STRING NOT NULL, c DECIMAL(10,2)' } });
	assert.equal(r.result, 'ddl_parse');
	const f = r.ddl_parse.parsed.struct.fields;
	assert.deepEqual(f.map((x) => [x.name, x.data_type.kind, x.nullable]),
	    [['a', 'integer', true], ['b', 'string', false],
		['c', 'decimal', true]]);
	assert.equal(f[2].data_type.decimal.precision, 10);
	assert.equal(f[2].data_type.decimal.scale, 2);
	const t = await s.analyze({ ddl_parse: { ddl_string: 'bigint' } });
	assert.equal(t.ddl_parse.parsed.kind, 'long');
	const err = await lib.rejects(s.analyze({ ddl_parse: {
	    ddl_string: 'a NOSUCHTYPE' } }));
	assert.equal(err.code, lib.code.INTERNAL);
});

test('json_to_ddl writes a JSON schema as Spark\'s DDL', T, async () => {
	const s = new lib.Session(srv);
	const json = JSON.stringify({ type: 'struct', fields: [
		{ name: 'a', type: 'integer', nullable: true, metadata: {} },
		{ name: 'b c', type: 'string', nullable: false, metadata: {} },
		{ name: 'd', type: 'decimal(10,2)', nullable: true,
		    metadata: {} },
	] });
	const r = await s.analyze({ json_to_ddl: { json_string: json } });
	assert.equal(r.result, 'json_to_ddl');
	assert.equal(r.json_to_ddl.ddl_string,
	    'a INT,`b c` STRING NOT NULL,d DECIMAL(10,2)');
});

test('same_semantics and semantic_hash ignore plan ids only', T,
    async () => {
	const s = new lib.Session(srv);
	const p = (id, end) => ({ root: { common: { plan_id: String(id) },
	    range: { end: String(end), step: '1' } } });
	const same = await s.analyze({ same_semantics: {
	    target_plan: p(1, 10), other_plan: p(2, 10) } });
	assert.equal(same.result, 'same_semantics');
	assert.equal(same.same_semantics.result, true);
	const diff = await s.analyze({ same_semantics: {
	    target_plan: p(1, 10), other_plan: p(1, 11) } });
	assert.equal(diff.same_semantics.result, false);
	const h = async (plan) => (await s.analyze({ semantic_hash: { plan } }))
	    .semantic_hash.result;
	assert.equal(await h(p(1, 10)), await h(p(7, 10)));
	assert.notEqual(await h(p(1, 10)), await h(p(1, 11)));
});

test('persist, get_storage_level and unpersist keep a plan\'s level', T,
    async () => {
	const s = new lib.Session(srv);
	const rel = { common: { plan_id: '3' },
	    range: { end: '5', step: '1' } };
	const level = async () => (await s.analyze({ get_storage_level: {
	    relation: { ...rel, common: { plan_id: '9' } } } }))
	    .get_storage_level.storage_level;
	const NONE = { use_disk: false, use_memory: false,
	    use_off_heap: false, deserialized: false, replication: 1 };
	assert.deepEqual(await level(), NONE);
	const r = await s.analyze({ persist: { relation: rel,
	    storage_level: { use_disk: true, use_memory: false,
		use_off_heap: false, deserialized: false, replication: 2 } } });
	assert.equal(r.result, 'persist');
	assert.deepEqual(await level(), { use_disk: true, use_memory: false,
	    use_off_heap: false, deserialized: false, replication: 2 });
	const other = new lib.Session(srv);
	assert.deepEqual((await other.analyze({ get_storage_level: {
	    relation: rel } })).get_storage_level.storage_level, NONE);
	const u = await s.analyze({ unpersist: { relation: rel } });
	assert.equal(u.result, 'unpersist');
	assert.deepEqual(await level(), NONE);
	await s.analyze({ persist: { relation: rel } });
	assert.deepEqual(await level(), { use_disk: true, use_memory: true,
	    use_off_heap: false, deserialized: true, replication: 1 });
});

lib.stopTest(srv);
