// SPDX-License-Identifier: MIT
//
// 08-abandon: the execution manager removes operations detached longer
// than detachedTimeout (1 s here, maintenance every 200 ms) as abandoned:
// ReattachExecute and a re-used ExecutePlan get OPERATION_ABANDONED, a
// never-seen id OPERATION_NOT_FOUND; attached operations stay.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer({ conf: {
	'spark.connect.execute.manager.detachedTimeout': '1s',
	'spark.connect.execute.manager.maintenanceInterval': '200ms',
	// The attached cases stream for WAIT: without this a fast machine
	// reaches the default 1 GiB rotation and the stream ends OK.
	'spark.connect.execute.reattachable.senderMaxStreamSize': '64g',
} });
const { T } = lib;
const QUERY = lib.sqlPlan('SELECT id FROM range(0, 100000)');
// detachedTimeout plus a few maintenance intervals.
const WAIT = 2500;

// Start a reattachable operation and drop the client stream after its
// first response.  Returns { op, last } (last: that response's id).
async function startAndDrop(s, plan = QUERY) {
	const op = lib.uuid();
	const r = await s.execute(plan, { operationId: op, stopAfter: 1 });
	assert.equal(r.count, 1, 'one response before the cancel');
	assert.equal(r.status.code, lib.code.CANCELLED,
	    lib.statusText(r.status));
	return { op, last: r.responses[0].response_id };
}

test('an operation detached longer than detachedTimeout is abandoned: ' +
    'ReattachExecute fails with OPERATION_ABANDONED', T, async () => {
	const s = new lib.Session(srv);
	const { op } = await startAndDrop(s);
	await lib.sleep(WAIT);
	const r = await s.reattach(op);
	assert.equal(r.count, 0);
	lib.assertSparkError(lib.streamError(r),
	    'INVALID_HANDLE.OPERATION_ABANDONED', 'HY000');
});

test('ExecutePlan re-using an abandoned operation_id fails with ' +
    'OPERATION_ABANDONED', T, async () => {
	const s = new lib.Session(srv);
	const { op } = await startAndDrop(s);
	await lib.sleep(WAIT);
	for (const reattachable of [true, false]) {
		const r = await s.execute(QUERY,
		    { operationId: op, reattachable });
		assert.equal(r.count, 0, 'the operation did not run again');
		lib.assertSparkError(lib.streamError(r),
		    'INVALID_HANDLE.OPERATION_ABANDONED', 'HY000');
	}
});

test('a never-seen operation id fails with OPERATION_NOT_FOUND', T,
    async () => {
	const s = new lib.Session(srv);
	await startAndDrop(s);
	await lib.sleep(WAIT);
	const r = await s.reattach(lib.uuid());
	lib.assertSparkError(lib.streamError(r),
	    'INVALID_HANDLE.OPERATION_NOT_FOUND', 'HY000');
});

test('a long-running operation is abandoned too once detached', T,
    async () => {
	const s = new lib.Session(srv);
	const { op } = await startAndDrop(s, lib.LONG_PLAN);
	await lib.sleep(WAIT);
	const r = await s.reattach(op);
	lib.assertSparkError(lib.streamError(r),
	    'INVALID_HANDLE.OPERATION_ABANDONED', 'HY000');
	const intr = await s.interrupt('OPERATION_ID', op);
	assert.deepEqual(intr.interrupted_ids, [],
	    'an abandoned operation no longer runs');
});

test('a completed operation that was never released is abandoned', T,
    async () => {
	const s = new lib.Session(srv);
	const op = lib.uuid();
	const r = await s.execute(QUERY, { operationId: op });
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	await lib.sleep(WAIT);
	const again = await s.reattach(op, r.responses[0].response_id);
	lib.assertSparkError(lib.streamError(again),
	    'INVALID_HANDLE.OPERATION_ABANDONED', 'HY000');
	// ReleaseExecute finds nothing to release.
	const rel = await s.release(op);
	assert.notEqual(rel._operation_id, 'operation_id');
});

test('an attached operation is not abandoned', T, async () => {
	const s = new lib.Session(srv);
	const long = lib.startOperation(s);
	assert.ok(await long.first);
	await lib.sleep(WAIT);
	const intr = await s.interrupt('OPERATION_ID', long.operationId);
	assert.deepEqual(intr.interrupted_ids, [long.operationId]);
	const done = await long.done;
	assert.ok(done.count > 1);
	lib.assertSparkError(lib.streamError(done), 'OPERATION_CANCELED',
	    'HY008');
	await s.release(long.operationId);
});

test('a reattached operation is not abandoned while attached', T,
    async () => {
	const s = new lib.Session(srv);
	const { op, last } = await startAndDrop(s, lib.LONG_PLAN);
	const first = lib.deferred();
	const re = s.reattach(op, last, { keep: false, timeoutMs: 25000,
	    onResponse: (r) => first.resolve(r) });
	assert.ok(await Promise.race([first.promise, re.then(() => null)]),
	    'the reattach streams');
	await lib.sleep(WAIT);
	const intr = await s.interrupt('OPERATION_ID', op);
	assert.deepEqual(intr.interrupted_ids, [op]);
	lib.assertSparkError(lib.streamError(await re), 'OPERATION_CANCELED',
	    'HY008');
	await s.release(op);
});

lib.stopTest(srv);
