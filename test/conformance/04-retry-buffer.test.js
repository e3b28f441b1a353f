// SPDX-License-Identifier: MIT
//
// 04-retry-buffer: with a tiny observerRetryBufferSize (1k), responses
// already sent are evicted: resuming before them fails with
// INVALID_CURSOR.POSITION_NOT_AVAILABLE, never POSITION_NOT_FOUND, while
// the newest responses can still be replayed.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer({ conf: {
	'spark.connect.execute.reattachable.observerRetryBufferSize': '1k',
} });
const { T } = lib;
const QUERY = lib.sqlPlan('SELECT id FROM range(0, 50000)');

async function consumed(s) {
	const op = lib.uuid();
	const r = await s.execute(QUERY, { operationId: op });
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.equal(lib.kinds(r.responses).pop(), 'result_complete');
	assert.ok(r.responses.length >= 6, `${r.responses.length} responses`);
	assert.deepEqual(lib.countSum(r.responses, 'id'),
	    { count: 50000, sum: 1249975000n });
	return { op, all: r.responses };
}

test('resuming after a consumed and evicted response fails with ' +
    'INVALID_CURSOR.POSITION_NOT_AVAILABLE', T, async () => {
	const s = new lib.Session(srv);
	const { op, all } = await consumed(s);
	for (const k of [0, 1]) {
		const r = await s.reattach(op, all[k].response_id);
		assert.equal(r.count, 0, `resume after #${k}`);
		lib.assertSparkError(lib.streamError(r),
		    'INVALID_CURSOR.POSITION_NOT_AVAILABLE', 'HY109');
	}
	await s.release(op);
});

test('reattaching from the start after eviction fails with ' +
    'POSITION_NOT_AVAILABLE', T, async () => {
	const s = new lib.Session(srv);
	const { op } = await consumed(s);
	const r = await s.reattach(op);
	assert.equal(r.count, 0);
	lib.assertSparkError(lib.streamError(r),
	    'INVALID_CURSOR.POSITION_NOT_AVAILABLE', 'HY109');
	await s.release(op);
});

test('an id never produced is still POSITION_NOT_FOUND', T, async () => {
	const s = new lib.Session(srv);
	const { op } = await consumed(s);
	const r = await s.reattach(op, lib.uuid());
	lib.assertSparkError(lib.streamError(r),
	    'INVALID_CURSOR.POSITION_NOT_FOUND', 'HY109');
	await s.release(op);
});

test('the newest responses stay replayable with a 1k buffer', T,
    async () => {
	const s = new lib.Session(srv);
	const { op, all } = await consumed(s);
	const n = all.length;
	const r = await s.reattach(op, all[n - 2].response_id);
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(r.responses.map((x) => x.response_id),
	    [all[n - 1].response_id]);
	assert.deepEqual(lib.kinds(r.responses), ['result_complete']);
	await s.release(op);
});

test('a reader that keeps up gets every row once despite the 1k buffer', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await s.executeToCompletion(
	    lib.sqlPlan('SELECT id FROM range(0, 200000)'));
	assert.deepEqual(lib.countSum(r.responses, 'id'),
	    { count: 200000, sum: 19999900000n });
	await s.release(r.operationId);
});

lib.stopTest(srv);
