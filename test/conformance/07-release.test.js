// SPDX-License-Identifier: MIT
//
// 07-release: ReleaseExecute.  release_until drops responses up to an id,
// release_all removes the operation (OPERATION_NOT_FOUND afterwards, not
// ABANDONED), an unknown operation is not an error, and a
// non-reattachable operation cannot be released.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const { T } = lib;
const QUERY = lib.sqlPlan('SELECT id FROM range(0, 50000)');

async function completed(s) {
	const op = lib.uuid();
	const r = await s.execute(QUERY, { operationId: op });
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.ok(r.responses.length >= 6, `${r.responses.length} responses`);
	return { op, all: r.responses };
}

function checkReleaseResponse(resp, s, op) {
	assert.equal(resp.session_id, s.sessionId);
	assert.equal(resp.server_side_session_id, s.serverSideId);
	if (op === null) {
		assert.notEqual(resp._operation_id, 'operation_id',
		    'operation_id is unset');
		assert.equal(resp.operation_id, undefined);
	} else {
		assert.equal(resp.operation_id, op);
	}
}

test('release_until drops responses up to the id: reattaching from ' +
    'before it fails with POSITION_NOT_AVAILABLE', T, async () => {
	const s = new lib.Session(srv);
	const { op, all } = await completed(s);
	const rel = await s.release(op, all[3].response_id);
	checkReleaseResponse(rel, s, op);
	for (const k of [0, 1, 2]) {
		const r = await s.reattach(op, all[k].response_id);
		assert.equal(r.count, 0, `resume after #${k}`);
		lib.assertSparkError(lib.streamError(r),
		    'INVALID_CURSOR.POSITION_NOT_AVAILABLE', 'HY109');
	}
	const from = await s.reattach(op);
	lib.assertSparkError(lib.streamError(from),
	    'INVALID_CURSOR.POSITION_NOT_AVAILABLE', 'HY109');
	// Resuming right after the released id still works.
	const r = await s.reattach(op, all[3].response_id);
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(r.responses.map((x) => x.response_id),
	    all.slice(4).map((x) => x.response_id));
	// Releasing an id already released is fine.
	checkReleaseResponse(await s.release(op, all[1].response_id), s, op);
	checkReleaseResponse(await s.release(op), s, op);
});

test('release_until of an id the operation never produced fails with ' +
    'INVALID_CURSOR.POSITION_NOT_FOUND', T, async () => {
	const s = new lib.Session(srv);
	const { op } = await completed(s);
	const err = await lib.rejects(s.release(op, lib.uuid()));
	lib.assertSparkError(err, 'INVALID_CURSOR.POSITION_NOT_FOUND',
	    'HY109');
	await s.release(op);
});

test('release_all removes the operation: ReattachExecute then fails with ' +
    'OPERATION_NOT_FOUND, not OPERATION_ABANDONED', T, async () => {
	const s = new lib.Session(srv);
	const { op, all } = await completed(s);
	checkReleaseResponse(await s.release(op), s, op);
	for (const last of [undefined, all[2].response_id]) {
		const r = await s.reattach(op, last);
		assert.equal(r.count, 0);
		lib.assertSparkError(lib.streamError(r),
		    'INVALID_HANDLE.OPERATION_NOT_FOUND', 'HY000');
	}
	// A second release_all finds nothing and is not an error.
	checkReleaseResponse(await s.release(op), s, null);
});

test('release_all of a running operation ends its stream with an error',
    T, async () => {
	const s = new lib.Session(srv);
	const long = lib.startOperation(s);
	assert.ok(await long.first);
	checkReleaseResponse(await s.release(long.operationId), s,
	    long.operationId);
	const done = await long.done;
	assert.ok(!done.timedOut, 'the stream ended');
	const err = lib.streamError(done);
	const cls = /^\[([A-Z_.]+)\]/.exec(err.details);
	assert.ok(cls && ['OPERATION_CANCELED',
	    'INVALID_CURSOR.DISCONNECTED'].includes(cls[1]),
	    `ended with ${lib.statusText(done.status)}`);
	lib.assertSparkError(err, cls[1]);
	const r = await s.reattach(long.operationId);
	lib.assertSparkError(lib.streamError(r),
	    'INVALID_HANDLE.OPERATION_NOT_FOUND', 'HY000');
});

test('ReleaseExecute of an unknown operation succeeds with operation_id ' +
    'unset', T, async () => {
	const s = new lib.Session(srv);
	await s.config({ get_all: {} });
	checkReleaseResponse(await s.release(lib.uuid()), s, null);
	checkReleaseResponse(await s.release(lib.uuid(), lib.uuid()), s,
	    null);
});

test('ReleaseExecute of a non-reattachable operation fails with ' +
    'INVALID_CURSOR.NOT_REATTACHABLE', T, async () => {
	const s = new lib.Session(srv);
	const long = lib.startOperation(s, { reattachable: false });
	const first = await long.first;
	assert.ok(first);
	for (const until of [undefined, first.response_id]) {
		const err = await lib.rejects(s.release(long.operationId,
		    until));
		lib.assertSparkError(err, 'INVALID_CURSOR.NOT_REATTACHABLE',
		    'HY109');
	}
	const intr = await s.interrupt('OPERATION_ID', long.operationId);
	assert.deepEqual(intr.interrupted_ids, [long.operationId],
	    'the operation kept running');
	lib.assertSparkError(lib.streamError(await long.done),
	    'OPERATION_CANCELED', 'HY008');
});

test('ReleaseExecute with neither release_all nor release_until fails ' +
    'with INTERNAL', T, async () => {
	const s = new lib.Session(srv);
	const { op, all } = await completed(s);
	const err = await lib.rejects(s.release(op, null));
	assert.equal(err.code, lib.code.INTERNAL, lib.statusText(err));
	// Nothing was released.
	const r = await s.reattach(op);
	assert.deepEqual(r.responses.map((x) => x.response_id),
	    all.map((x) => x.response_id));
	await s.release(op);
});

lib.stopTest(srv);
