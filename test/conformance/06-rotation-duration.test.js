// SPDX-License-Identifier: MIT
//
// 06-rotation-duration: with senderMaxStreamDuration of 200 ms a slow
// reader's streams end with OK and no result_complete; reattaching with
// the last response id until result_complete delivers every row of
// range(0, 200000) exactly once.  Batches are kept at 1000 rows so that
// the client's buffers cannot swallow the whole result early.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer({ conf: {
	'spark.connect.execute.reattachable.senderMaxStreamDuration': '200ms',
	'spark.sql.execution.arrow.maxRecordsPerBatch': '1000',
} });
const { T } = lib;

test('a slow reader\'s streams end OK at 200 ms without result_complete ' +
    'and every row arrives exactly once', T, async () => {
	const s = new lib.Session(srv);
	const started = Date.now();
	const r = await s.executeToCompletion(
	    lib.sqlPlan('SELECT id FROM range(0, 200000)'),
	    { delayMs: 15, timeoutMs: 60000 });
	const streams = r.streams;
	assert.ok(streams.length >= 2,
	    `expected several streams, got ${streams.length} in ` +
	    `${Date.now() - started} ms`);
	for (const [i, st] of streams.slice(0, -1).entries()) {
		assert.equal(st.status.code, lib.code.OK,
		    `stream ${i}: ${lib.statusText(st.status)}`);
		assert.ok(!lib.kinds(st.responses).includes('result_complete'),
		    `stream ${i} has no result_complete`);
	}
	lib.checkResponseIds(r.responses, s, r.operationId);
	const { batches } = lib.decodeBatches(r.responses);
	let before = 0;
	for (const [i, b] of batches.entries()) {
		assert.ok(b.rowCount <= 1000, `batch ${i}: ${b.rowCount} rows`);
		assert.equal(b.startOffset, before, `batch ${i} start_offset`);
		before += b.rowCount;
	}
	assert.deepEqual(lib.countSum(r.responses, 'id'),
	    { count: 200000, sum: 19999900000n });
	await s.release(r.operationId);
});

test('a fast reader of a small result gets it in one stream', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(lib.sqlPlan('SELECT id FROM range(10)'));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.equal(lib.kinds(r.responses).pop(), 'result_complete');
	assert.deepEqual(lib.countSum(r.responses, 'id'),
	    { count: 10, sum: 45n });
});

lib.stopTest(srv);
