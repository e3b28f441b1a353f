// SPDX-License-Identifier: MIT
//
// 03-reattach: ReattachExecute resumes exactly after last_response_id (or
// replays from the start), refuses unknown ids and operations, refuses
// non-reattachable operations, and a second attach ends the first stream
// with INVALID_CURSOR.DISCONNECTED.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const { T } = lib;
const QUERY = lib.sqlPlan('SELECT id FROM range(0, 50000)');

function ids(responses) {
	return responses.map((r) => r.response_id);
}

async function completed(s) {
	const op = lib.uuid();
	const r = await s.execute(QUERY, { operationId: op });
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.ok(r.responses.length >= 6, `${r.responses.length} responses`);
	assert.equal(lib.kinds(r.responses).pop(), 'result_complete');
	return { op, all: r.responses };
}

test('ReattachExecute with last_response_id resumes exactly after it', T,
    async () => {
	const s = new lib.Session(srv);
	const { op, all } = await completed(s);
	const n = all.length;
	for (const k of [0, 1, 2, n - 3, n - 2]) {
		const r = await s.reattach(op, all[k].response_id);
		assert.equal(r.status.code, lib.code.OK,
		    `after #${k}: ${lib.statusText(r.status)}`);
		assert.deepEqual(ids(r.responses), ids(all.slice(k + 1)),
		    `replay after response #${k}`);
		assert.deepEqual(lib.kinds(r.responses),
		    lib.kinds(all.slice(k + 1)));
		lib.checkResponseIds(r.responses, s, op);
	}
	const tail = await s.reattach(op, all[0].response_id);
	assert.deepEqual(lib.countSum(tail.responses, 'id'),
	    { count: 50000, sum: 1249975000n });
	await s.release(op);
});

test('ReattachExecute without last_response_id replays from the first ' +
    'response', T, async () => {
	const s = new lib.Session(srv);
	const { op, all } = await completed(s);
	const r = await s.reattach(op);
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(ids(r.responses), ids(all));
	assert.deepEqual(lib.countSum(r.responses, 'id'),
	    { count: 50000, sum: 1249975000n });
	await s.release(op);
});

test('an unknown last_response_id fails with ' +
    'INVALID_CURSOR.POSITION_NOT_FOUND', T, async () => {
	const s = new lib.Session(srv);
	const { op } = await completed(s);
	const r = await s.reattach(op, lib.uuid());
	assert.equal(r.count, 0);
	lib.assertSparkError(lib.streamError(r),
	    'INVALID_CURSOR.POSITION_NOT_FOUND', 'HY109');
	await s.release(op);
});

test('ReattachExecute to an unknown operation fails with ' +
    'INVALID_HANDLE.OPERATION_NOT_FOUND', T, async () => {
	const s = new lib.Session(srv);
	await s.config({ get_all: {} });
	const r = await s.reattach(lib.uuid());
	assert.equal(r.count, 0);
	lib.assertSparkError(lib.streamError(r),
	    'INVALID_HANDLE.OPERATION_NOT_FOUND', 'HY000');
});

test('a second ReattachExecute ends the attached stream with ' +
    'INVALID_CURSOR.DISCONNECTED', T, async () => {
	const s = new lib.Session(srv);
	const paused = lib.deferred();
	let firstCtx = null;
	const first = lib.startOperation(s, {
		keep: true,
		onResponse(r, ctx, out) {
			if (out.count === 3) {
				firstCtx = ctx;
				ctx.call.pause();
				paused.resolve(r.response_id);
			}
		},
	});
	const lastId = await paused.promise;
	assert.ok(lastId, 'the first stream got three responses');
	// While the first stream is attached (and paused), attach another.
	const got = lib.deferred();
	const second = s.reattach(first.operationId, lastId, {
		stopAfter: 3, onResponse: (r) => got.resolve(r) });
	await Promise.race([got.promise, second]);
	firstCtx.call.resume();
	const r1 = await first.done;
	lib.assertSparkError(lib.streamError(r1),
	    'INVALID_CURSOR.DISCONNECTED', 'HY109');
	assert.equal(r1.responses[2].response_id, lastId);
	const r2 = await second;
	assert.equal(r2.count, 3,
	    `second stream: ${lib.statusText(r2.status)}`);
	lib.checkResponseIds(r2.responses, s, first.operationId);
	if (r1.responses.length > 3)
		assert.equal(r2.responses[0].response_id,
		    r1.responses[3].response_id,
		    'the second stream resumes right after last_response_id');
	else
		assert.ok(!r1.responses.some((x) =>
		    x.response_id === r2.responses[0].response_id));
	const intr = await s.interrupt('OPERATION_ID', first.operationId);
	assert.deepEqual(intr.interrupted_ids, [first.operationId]);
	await s.release(first.operationId);
});

test('ReattachExecute to a non-reattachable operation fails with ' +
    'INVALID_CURSOR.NOT_REATTACHABLE', T, async () => {
	const s = new lib.Session(srv);
	const long = lib.startOperation(s, { reattachable: false });
	assert.ok(await long.first, 'the operation produced a response');
	const r = await s.reattach(long.operationId);
	assert.equal(r.count, 0);
	lib.assertSparkError(lib.streamError(r),
	    'INVALID_CURSOR.NOT_REATTACHABLE', 'HY109');
	const intr = await s.interrupt('OPERATION_ID', long.operationId);
	assert.deepEqual(intr.interrupted_ids, [long.operationId]);
	lib.assertSparkError(lib.streamError(await long.done),
	    'OPERATION_CANCELED', 'HY008');
});

lib.stopTest(srv);
