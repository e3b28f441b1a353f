// SPDX-License-Identifier: MIT
//
// 02-operation-id: client-chosen operation ids are echoed normalized,
// generated when absent, refused when malformed, and never reused while
// active or recently completed.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const { T } = lib;
const SMALL = lib.sqlPlan('SELECT id FROM range(10)');

test('a client-chosen operation_id is echoed in lowercase canonical form',
    T, async () => {
	const s = new lib.Session(srv);
	const op = lib.uuid();
	const r = await s.execute(SMALL, { operationId: op.toUpperCase() });
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.ok(r.responses.length > 0);
	for (const resp of r.responses)
		assert.equal(resp.operation_id, op);
	await s.release(op);
});

test('without an operation_id the server picks one UUID for all responses',
    T, async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(SMALL);
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	const ids = new Set(r.responses.map((x) => x.operation_id));
	assert.equal(ids.size, 1);
	const [op] = ids;
	assert.match(op, lib.UUID_RE);
	const rel = await s.release(op);
	assert.equal(rel.operation_id, op, 'the generated id is the handle');
});

test('a malformed operation_id fails with INVALID_HANDLE.FORMAT', T,
    async () => {
	const s = new lib.Session(srv);
	for (const bad of ['not-a-uuid', '', '1234',
	    '00112233-4455-6677-8899-aabbccddeeffaa']) {
		const r = await s.execute(SMALL, { operationId: bad });
		assert.equal(r.count, 0, `no response for "${bad}"`);
		lib.assertSparkError(lib.streamError(r),
		    'INVALID_HANDLE.FORMAT', 'HY000');
	}
});

test('reusing the id of an active operation fails with ' +
    'INVALID_HANDLE.OPERATION_ALREADY_EXISTS', T, async () => {
	const s = new lib.Session(srv);
	const long = lib.startOperation(s);
	assert.ok(await long.first, 'the long operation produced a response');
	for (const reattachable of [true, false]) {
		const r = await s.execute(SMALL,
		    { operationId: long.operationId, reattachable });
		assert.equal(r.count, 0);
		lib.assertSparkError(lib.streamError(r),
		    'INVALID_HANDLE.OPERATION_ALREADY_EXISTS', 'HY000');
	}
	const intr = await s.interrupt('OPERATION_ID', long.operationId);
	assert.deepEqual(intr.interrupted_ids, [long.operationId],
	    'the first operation was still running');
	const done = await long.done;
	lib.assertSparkError(lib.streamError(done), 'OPERATION_CANCELED',
	    'HY008');
	await s.release(long.operationId);
});

test('reusing the id of a completed operation fails with ' +
    'OPERATION_ALREADY_EXISTS', T, async () => {
	const s = new lib.Session(srv);
	const op = lib.uuid();
	const r = await s.execute(SMALL, { operationId: op,
	    reattachable: false });
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	const again = await s.execute(SMALL, { operationId: op,
	    reattachable: false });
	assert.equal(again.count, 0, 'the operation did not run twice');
	lib.assertSparkError(lib.streamError(again),
	    'INVALID_HANDLE.OPERATION_ALREADY_EXISTS', 'HY000');
});

test('reusing the id of a completed and released operation fails with ' +
    'OPERATION_ALREADY_EXISTS', T, async () => {
	const s = new lib.Session(srv);
	const op = lib.uuid();
	const r = await s.execute(SMALL, { operationId: op });
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	const rel = await s.release(op);
	assert.equal(rel.operation_id, op);
	const again = await s.execute(SMALL, { operationId: op });
	assert.equal(again.count, 0, 'the operation did not run twice');
	lib.assertSparkError(lib.streamError(again),
	    'INVALID_HANDLE.OPERATION_ALREADY_EXISTS', 'HY000');
});

test('the same operation_id in another session is another operation', T,
    async () => {
	const a = new lib.Session(srv);
	const b = new lib.Session(srv);
	const op = lib.uuid();
	const ra = await a.execute(SMALL, { operationId: op });
	const rb = await b.execute(SMALL, { operationId: op });
	for (const r of [ra, rb]) {
		assert.equal(r.status.code, lib.code.OK,
		    lib.statusText(r.status));
		assert.deepEqual(lib.countSum(r.responses, 'id'),
		    { count: 10, sum: 45n });
	}
	assert.equal((await a.release(op)).operation_id, op);
	assert.equal((await b.release(op)).operation_id, op);
});

lib.stopTest(srv);
