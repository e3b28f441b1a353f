// SPDX-License-Identifier: MIT
//
// 01-execute: ExecutePlan results: the ids on every response, the order
// schema / arrow batches / metrics / result_complete, Arrow batch row
// counts and offsets, the data itself, the range relation, and
// SqlCommand (DDL runs once, a query is echoed back).

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const { T } = lib;

function tableName() {
	return `t_${lib.uuid().replace(/-/g, '').slice(0, 12)}`;
}

test('every response echoes session_id, keeps one server_side_session_id, ' +
    'carries the operation_id and a fresh UUID response_id', T, async () => {
	const s = new lib.Session(srv);
	const cfg = await s.config({ get_all: {} });
	assert.equal(cfg.session_id, s.sessionId);
	assert.match(cfg.server_side_session_id, lib.UUID_RE);
	const seen = new Set();
	for (const plan of [lib.sqlPlan('SELECT id FROM range(0, 25000)'),
	    lib.rangePlan(0, 10), lib.sqlPlan('SELECT 1 AS one')]) {
		for (const reattachable of [true, false]) {
			const op = lib.uuid();
			const r = await s.execute(plan,
			    { operationId: op, reattachable });
			assert.equal(r.status.code, lib.code.OK,
			    lib.statusText(r.status));
			assert.ok(r.responses.length >= 3,
			    `${r.responses.length} responses`);
			const ssid = lib.checkResponseIds(r.responses, s, op,
			    seen);
			assert.equal(ssid, cfg.server_side_session_id,
			    'server_side_session_id is the session\'s');
		}
	}
});

test('a reattachable query streams schema, arrow batches, metrics, then ' +
    'result_complete', T, async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(lib.sqlPlan('SELECT id FROM range(10)'));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	const k = lib.kinds(r.responses);
	assert.match(k.join(' '),
	    /^schema (arrow_batch )+metrics result_complete$/, k.join(' '));
	const schema = r.responses[0].schema;
	assert.equal(schema.kind, 'struct');
	assert.deepEqual(schema.struct.fields.map((f) => [f.name,
	    f.data_type.kind]), [['id', 'long']]);
	for (const resp of r.responses.slice(1))
		assert.equal(resp.schema, null, 'only the first has a schema');
});

test('a non-reattachable query ends OK without result_complete', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(lib.sqlPlan('SELECT id FROM range(10)'),
	    { reattachable: false });
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	const k = lib.kinds(r.responses);
	assert.match(k.join(' '), /^schema (arrow_batch )+metrics$/,
	    k.join(' '));
});

test('SELECT id FROM range(10) returns ten rows that sum to 45', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(lib.sqlPlan('SELECT id FROM range(10)'));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(lib.countSum(r.responses, 'id'),
	    { count: 10, sum: 45n });
	assert.deepEqual(lib.columnValues(r.responses, 'id'),
	    [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n]);
});

test('arrow batches: row_count equals the decoded rows and start_offset ' +
    'counts the rows before', T, async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(
	    lib.sqlPlan('SELECT id FROM range(0, 25000)'));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	const { batches, rows } = lib.decodeBatches(r.responses);
	assert.equal(rows, 25000);
	assert.ok(batches.length >= 3,
	    `25000 rows need >= 3 batches of <= 10000, got ${batches.length}`);
	let before = 0;
	for (const [i, b] of batches.entries()) {
		assert.equal(b.rowCount, b.decoded, `batch ${i} row_count`);
		assert.ok(b.rowCount <= 10000, `batch ${i} has ${b.rowCount}`);
		assert.equal(b.startOffset, before, `batch ${i} start_offset`);
		before += b.rowCount;
	}
	assert.deepEqual(lib.countSum(r.responses, 'id'),
	    { count: 25000, sum: 312487500n });
});

test('an empty result is one arrow batch of zero rows with the schema', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(
	    lib.sqlPlan('SELECT id FROM range(10) WHERE id > 100'));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	const { batches } = lib.decodeBatches(r.responses);
	assert.equal(batches.length, 1);
	assert.equal(batches[0].rowCount, 0);
	assert.equal(batches[0].decoded, 0);
	assert.deepEqual(batches[0].table.schema.fields.map((f) => f.name),
	    ['id']);
});

test('the range relation honours start, end and step', T, async () => {
	const s = new lib.Session(srv);
	const cases = [
		[5, 20, 3, [5n, 8n, 11n, 14n, 17n]],
		[10, 0, -2, [10n, 8n, 6n, 4n, 2n]],
		[null, 4, 1, [0n, 1n, 2n, 3n]],
		[7, 7, 1, []],
		[-3, 2, 2, [-3n, -1n, 1n]],
	];
	for (const [start, end, step, want] of cases) {
		const r = await s.execute(lib.rangePlan(start, end, step));
		assert.equal(r.status.code, lib.code.OK,
		    lib.statusText(r.status));
		assert.deepEqual(lib.columnValues(r.responses, 'id'), want,
		    `range(${start}, ${end}, ${step})`);
		const k = lib.kinds(r.responses);
		assert.equal(k[k.length - 1], 'result_complete');
	}
	const big = await s.execute(lib.rangePlan(0, 100000));
	assert.deepEqual(lib.countSum(big.responses, 'id'),
	    { count: 100000, sum: 4999950000n });
});

test('sql_command with DDL and DML runs once and returns a local_relation',
    T, async () => {
	const s = new lib.Session(srv);
	const t = tableName();
	for (const [plan, sql] of [
		[lib.sqlCommandPlan, `CREATE TABLE ${t} (a INT)`],
		[lib.sqlCommandPlan, `INSERT INTO ${t} VALUES (1), (2), (3)`],
		[lib.sqlCommandPlan35, `INSERT INTO ${t} VALUES (10)`],
	]) {
		const op = lib.uuid();
		const r = await s.execute(plan(sql), { operationId: op });
		assert.equal(r.status.code, lib.code.OK,
		    `${sql}: ${lib.statusText(r.status)}`);
		lib.checkResponseIds(r.responses, s, op);
		assert.deepEqual(lib.kinds(r.responses),
		    ['sql_command_result', 'metrics', 'result_complete'], sql);
		const rel = r.responses[0].sql_command_result.relation;
		assert.equal(rel.rel_type, 'local_relation', sql);
		const lr = rel.local_relation;
		if (lr._data === 'data') {
			const tbl = lib.arrow.tableFromIPC(lr.data);
			assert.ok(tbl.numRows >= 0);
		} else {
			assert.equal(lr._schema, 'schema',
			    'local_relation has data or schema');
		}
	}
	// Replaying a command's responses does not run it again.
	const op = lib.uuid();
	const ins = await s.execute(lib.sqlCommandPlan(
	    `INSERT INTO ${t} VALUES (100)`), { operationId: op });
	assert.equal(ins.status.code, lib.code.OK, lib.statusText(ins.status));
	const replay = await s.reattach(op);
	assert.equal(replay.status.code, lib.code.OK,
	    lib.statusText(replay.status));
	assert.deepEqual(replay.responses.map((x) => x.response_id),
	    ins.responses.map((x) => x.response_id));
	await s.release(op);
	const q = await s.execute(lib.sqlPlan(
	    `SELECT count(*) AS n, sum(a) AS s FROM ${t}`));
	assert.equal(q.status.code, lib.code.OK, lib.statusText(q.status));
	assert.deepEqual(lib.columnValues(q.responses, 'n').map(Number), [5]);
	assert.deepEqual(lib.columnValues(q.responses, 's').map(Number),
	    [116], 'each INSERT ran exactly once');
});

test('sql_command with a query returns the query as a sql relation', T,
    async () => {
	const s = new lib.Session(srv);
	const sql = 'SELECT id * 2 AS twice FROM range(3)';
	for (const plan of [lib.sqlCommandPlan(sql),
	    lib.sqlCommandPlan35(sql)]) {
		const r = await s.execute(plan);
		assert.equal(r.status.code, lib.code.OK,
		    lib.statusText(r.status));
		assert.deepEqual(lib.kinds(r.responses),
		    ['sql_command_result', 'metrics', 'result_complete']);
		const rel = r.responses[0].sql_command_result.relation;
		assert.equal(rel.rel_type, 'sql');
		assert.equal(rel.sql.query, sql);
		// The echoed relation runs as a root.
		const q = await s.execute({ root: rel });
		assert.equal(q.status.code, lib.code.OK,
		    lib.statusText(q.status));
		assert.deepEqual(lib.columnValues(q.responses, 'twice'),
		    [0n, 2n, 4n]);
	}
});

test('operations of one session run at the same time', T, async () => {
	const s = new lib.Session(srv);
	const long = lib.startOperation(s);
	assert.ok(await long.first, 'the long operation started');
	const r = await s.execute(lib.sqlPlan('SELECT id FROM range(10)'),
	    { timeoutMs: 60000 });
	assert.ok(!r.timedOut, 'a second operation of the session did not ' +
	    'produce its result within 60 s while the first one ran');
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(lib.countSum(r.responses, 'id'),
	    { count: 10, sum: 45n });
	const intr = await s.interrupt('OPERATION_ID', long.operationId);
	assert.deepEqual(intr.interrupted_ids, [long.operationId]);
	await long.done;
	await s.release(long.operationId);
});

lib.stopTest(srv);
