// SPDX-License-Identifier: MIT
//
// 12-analyze: AnalyzePlan: the schema of a query (names and types), the
// server's Spark version, explain, tree_string and is_local.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const T = { timeout: 30000 };

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
	assert.deepEqual(fields(r.schema.schema).slice(0, 3),
	    [['id', 'long'], ['s', 'string'], ['h', 'double']]);
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

lib.stopTest(srv);
