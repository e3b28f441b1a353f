// SPDX-License-Identifier: MIT
//
// 05-rotation-size: with senderMaxStreamSize of 4 KiB every stream ends
// with OK and no result_complete once it passed the limit; reattaching
// with the last response id until result_complete delivers every row of
// range(0, 200000) exactly once.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer({ conf: {
	'spark.connect.execute.reattachable.senderMaxStreamSize': '4k',
} });
const { T } = lib;

// Run plan to completion and check the rotation and the data.
async function checkRotation(plan) {
	const s = new lib.Session(srv);
	const r = await s.executeToCompletion(plan);
	const streams = r.streams;
	assert.ok(streams.length >= 3,
	    `expected several streams, got ${streams.length}`);
	for (const [i, st] of streams.entries()) {
		assert.equal(st.status.code, lib.code.OK,
		    `stream ${i}: ${lib.statusText(st.status)}`);
		const k = lib.kinds(st.responses);
		if (i < streams.length - 1) {
			assert.ok(st.responses.length > 0,
			    `stream ${i} sent something`);
			assert.ok(!k.includes('result_complete'),
			    `stream ${i} has no result_complete`);
		} else {
			assert.equal(k.pop(), 'result_complete',
			    'the last stream ends with result_complete');
			assert.ok(!k.includes('result_complete'));
		}
	}
	// The size limit: a stream stops right after the response that
	// crossed 4 KiB, so no rotated stream holds two Arrow batches of
	// 10000 rows (80 KB each).
	for (const [i, st] of streams.slice(0, -1).entries()) {
		const big = st.responses.filter((x) => x.arrow_batch &&
		    x.arrow_batch.data.length > 4096);
		assert.ok(big.length <= 1,
		    `stream ${i} went on after passing 4k`);
	}
	lib.checkResponseIds(r.responses, s, r.operationId);
	const k = lib.kinds(r.responses);
	assert.match(k.join(' '),
	    /^schema (arrow_batch )+metrics result_complete$/);
	const { batches } = lib.decodeBatches(r.responses);
	let before = 0;
	for (const [i, b] of batches.entries()) {
		assert.equal(b.rowCount, b.decoded, `batch ${i} row_count`);
		assert.equal(b.startOffset, before, `batch ${i} start_offset`);
		before += b.rowCount;
	}
	assert.deepEqual(lib.countSum(r.responses, 'id'),
	    { count: 200000, sum: 19999900000n });
	const rel = await s.release(r.operationId);
	assert.equal(rel.operation_id, r.operationId);
}

test('SQL range(0, 200000): streams rotate at 4 KiB and every row ' +
    'arrives exactly once', T, async () => {
	await checkRotation(lib.sqlPlan('SELECT id FROM range(0, 200000)'));
});

test('range relation (0, 200000): streams rotate at 4 KiB and every row ' +
    'arrives exactly once', T, async () => {
	await checkRotation(lib.rangePlan(0, 200000));
});

test('a small result that fits in one stream is not rotated', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(lib.sqlPlan('SELECT 1 AS one'));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(lib.kinds(r.responses),
	    ['schema', 'arrow_batch', 'metrics', 'result_complete']);
	await s.release(r.responses[0].operation_id);
});

lib.stopTest(srv);
