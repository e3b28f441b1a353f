// SPDX-License-Identifier: MIT
//
// 30-progress: while a query computes, sc-serve sends execution_progress
// responses every spark.connect.progress.reportInterval, as Spark 4 does:
// ordinary responses with fresh response ids, one stage of one task not
// yet done; the result that follows is unchanged.  A query that answers
// before the interval sends none, and -1 turns them off.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { T } = lib;
// Long enough to compute for well over 100 ms, even without a sanitizer.
const SLOW = lib.sqlPlan('SELECT count(*) AS n FROM range(0, 20000000)');

function progresses(responses) {
	return responses.filter((r) => r.response_type === 'execution_progress');
}

const fast = lib.useServer({
	conf: { 'spark.connect.progress.reportInterval': '100ms' } });

test('a query computing past the interval reports progress, then its ' +
    'result', T, async () => {
	const s = new lib.Session(fast);
	const r = await s.executeToCompletion(SLOW);
	const p = progresses(r.responses);
	assert.ok(p.length >= 1, `progress responses: ${p.length}`);
	for (const x of p) {
		const ep = x.execution_progress;
		assert.equal(ep.stages.length, 1, 'one stage');
		assert.equal(Number(ep.stages[0].num_tasks), 1, 'one task');
		assert.equal(Number(ep.stages[0].num_completed_tasks), 0,
		    'not completed');
		assert.equal(ep.stages[0].done, false, 'not done');
		assert.equal(Number(ep.num_inflight_tasks), 1, 'in flight');
	}
	// Progress comes before the rows, and the rows are the same.
	const firstBatch = r.responses.findIndex((x) => x.arrow_batch);
	assert.ok(r.responses.indexOf(p[0]) < firstBatch,
	    'progress before the first batch');
	assert.deepEqual(lib.kinds(r.responses),
	    ['schema', 'arrow_batch', 'metrics', 'result_complete']);
	assert.deepEqual(lib.columnValues(r.responses, 'n').map(Number),
	    [20000000]);
	lib.checkResponseIds(r.responses, s, r.operationId);
});

test('a quick query sends no progress', T, async () => {
	const s = new lib.Session(fast);
	const r = await s.executeToCompletion(lib.sqlPlan('SELECT 1 AS a'));
	assert.equal(progresses(r.responses).length, 0);
});

test('a reattach after a progress response goes on after it', T,
    async () => {
	const s = new lib.Session(fast);
	const op = lib.uuid();
	let cut = null;
	const first = await s.execute(SLOW, {
		operationId: op,
		onResponse(resp, ctx) {
			if (resp.response_type === 'execution_progress' &&
			    cut === null) {
				cut = resp.response_id;
				ctx.cancel();
			}
		},
	});
	assert.ok(cut !== null, 'a progress response arrived');
	assert.ok(first.responses.length >= 1);
	const rest = await s.reattach(op, cut);
	assert.equal(rest.status.code, 0);
	assert.ok(!rest.responses.some((x) => x.response_id === cut),
	    'the progress response is not sent again');
	assert.deepEqual(lib.columnValues(rest.responses, 'n').map(Number),
	    [20000000]);
	await s.release(op);
});

test('reportInterval -1 turns progress off', T, async () => {
	const off = await lib.startServer({
		conf: { 'spark.connect.progress.reportInterval': '-1' } });
	try {
		const s = new lib.Session(off);
		const r = await s.executeToCompletion(SLOW);
		assert.equal(progresses(r.responses).length, 0);
		assert.deepEqual(lib.columnValues(r.responses, 'n')
		    .map(Number), [20000000]);
	} finally {
		await off.stop();
	}
});

lib.stopTest(fast);
