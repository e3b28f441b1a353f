// SPDX-License-Identifier: MIT
//
// 09-interrupt: Interrupt by all, tag and id, before execution starts and
// while a long range or a slow SQL query runs: the stream ends with
// OPERATION_CANCELED and interrupted_ids lists exactly the operations
// this call canceled; malformed requests get their error classes.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const { T } = lib;
const SLOW_SQL = lib.sqlPlan('SELECT count(*) AS n FROM range(2000000000)');

function assertCanceled(done, what = 'the stream') {
	assert.ok(!done.timedOut, `${what} ended`);
	assert.ok(!lib.kinds(done.responses).includes('result_complete'),
	    `${what} has no result_complete`);
	lib.assertSparkError(lib.streamError(done), 'OPERATION_CANCELED',
	    'HY008');
}

function sorted(a) {
	return [...a].sort();
}

// Wait until the operations were received: the first of each session
// has produced a response; the others may wait behind it, so give their
// ExecutePlan calls a moment to arrive.
async function started(...ops) {
	const firsts = await Promise.all(ops.map((o) => Promise.race([
	    o.first, lib.sleep(3000).then(() => undefined)])));
	assert.ok(firsts.some((f) => f), 'some operation started');
	await lib.sleep(300);
}

test('Interrupt by tag right after ExecutePlan cancels the operation ' +
    'before it produces a result', T, async () => {
	const s = new lib.Session(srv);
	await s.config({ get_all: {} });
	let hits = 0;
	for (let attempt = 0; attempt < 5 && hits < 2; attempt++) {
		const tag = `early-${attempt}`;
		const long = lib.startOperation(s, { tags: [tag], keep: true });
		const intr = await s.interrupt('TAG', tag);
		if (intr.interrupted_ids.length === 0) {
			// The Interrupt overtook the ExecutePlan: clean up.
			await long.first;
			const again = await s.interrupt('OPERATION_ID',
			    long.operationId);
			assert.deepEqual(again.interrupted_ids,
			    [long.operationId]);
			assertCanceled(await long.done);
			continue;
		}
		hits++;
		assert.deepEqual(intr.interrupted_ids, [long.operationId]);
		assertCanceled(await long.done);
		await s.release(long.operationId);
	}
	assert.ok(hits > 0, 'no Interrupt reached a freshly started operation');
});

test('Interrupt by id during a long range(0, 1e12) ends the stream with ' +
    'OPERATION_CANCELED', T, async () => {
	const s = new lib.Session(srv);
	const long = lib.startOperation(s);
	assert.ok(await long.first);
	const intr = await s.interrupt('OPERATION_ID', long.operationId);
	assert.equal(intr.session_id, s.sessionId);
	assert.equal(intr.server_side_session_id, s.serverSideId);
	assert.deepEqual(intr.interrupted_ids, [long.operationId]);
	const done = await long.done;
	assert.ok(done.count >= 1);
	assertCanceled(done);
	// Reattaching replays the same error.
	const r = await s.reattach(long.operationId, done.lastId);
	lib.assertSparkError(lib.streamError(r), 'OPERATION_CANCELED',
	    'HY008');
	await s.release(long.operationId);
});

test('Interrupt during a slow SQL query ends it with OPERATION_CANCELED',
    T, async () => {
	const s = new lib.Session(srv);
	const long = lib.startOperation(s, { plan: SLOW_SQL, keep: true });
	await lib.sleep(500);
	const intr = await s.interrupt('OPERATION_ID', long.operationId);
	assert.deepEqual(intr.interrupted_ids, [long.operationId]);
	const done = await long.done;
	assert.equal(lib.kinds(done.responses).filter(
	    (k) => k === 'arrow_batch').length, 0, 'no result rows');
	assertCanceled(done);
	await s.release(long.operationId);
});

test('interrupting an operation twice lists it once; finished ones are ' +
    'not listed', T, async () => {
	const s = new lib.Session(srv);
	const long = lib.startOperation(s);
	assert.ok(await long.first);
	const one = await s.interrupt('OPERATION_ID', long.operationId);
	assert.deepEqual(one.interrupted_ids, [long.operationId]);
	const two = await s.interrupt('OPERATION_ID', long.operationId);
	assert.deepEqual(two.interrupted_ids, []);
	assertCanceled(await long.done);
	const op = lib.uuid();
	const r = await s.execute(lib.sqlPlan('SELECT 1 AS one'),
	    { operationId: op });
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	const fin = await s.interrupt('OPERATION_ID', op);
	assert.deepEqual(fin.interrupted_ids, []);
	const none = await s.interrupt('OPERATION_ID', lib.uuid());
	assert.deepEqual(none.interrupted_ids, []);
	await s.release(long.operationId);
	await s.release(op);
});

test('INTERRUPT_TYPE_ALL cancels every operation of the session and no ' +
    'other', T, async () => {
	const a = new lib.Session(srv);
	const b = new lib.Session(srv);
	const a1 = lib.startOperation(a);
	const a2 = lib.startOperation(a, { reattachable: false });
	const b1 = lib.startOperation(b);
	assert.ok(await a1.first);
	assert.ok(await b1.first);
	await started(a1, a2, b1);
	const intr = await a.interrupt('ALL');
	assert.deepEqual(sorted(intr.interrupted_ids),
	    sorted([a1.operationId, a2.operationId]));
	assertCanceled(await a1.done, 'a1');
	assertCanceled(await a2.done, 'a2');
	const again = await a.interrupt('ALL');
	assert.deepEqual(again.interrupted_ids, []);
	const ib = await b.interrupt('OPERATION_ID', b1.operationId);
	assert.deepEqual(ib.interrupted_ids, [b1.operationId],
	    'the other session\'s operation was still running');
	assertCanceled(await b1.done, 'b1');
	await a.release(a1.operationId);
	await b.release(b1.operationId);
});

test('INTERRUPT_TYPE_TAG cancels only the operations with that tag', T,
    async () => {
	const s = new lib.Session(srv);
	const x = lib.startOperation(s, { tags: ['x', 'shared'] });
	const y = lib.startOperation(s, { tags: ['y', 'shared'] });
	const z = lib.startOperation(s, { tags: ['z'] });
	await started(x, y, z);
	const ix = await s.interrupt('TAG', 'x');
	assert.deepEqual(ix.interrupted_ids, [x.operationId]);
	assertCanceled(await x.done, 'x');
	const none = await s.interrupt('TAG', 'nosuchtag');
	assert.deepEqual(none.interrupted_ids, []);
	const part = await s.interrupt('TAG', 'share');
	assert.deepEqual(part.interrupted_ids, [], 'tags match exactly');
	const shared = await s.interrupt('TAG', 'shared');
	assert.deepEqual(shared.interrupted_ids, [y.operationId]);
	assertCanceled(await y.done, 'y');
	const iz = await s.interrupt('TAG', 'z');
	assert.deepEqual(iz.interrupted_ids, [z.operationId]);
	assertCanceled(await z.done, 'z');
	for (const o of [x, y, z])
		await s.release(o.operationId);
});

test('INTERRUPT_TYPE_TAG without operation_tag fails with ' +
    'INVALID_PARAMETER_VALUE.INTERRUPT_TYPE_TAG_REQUIRES_TAG', T,
    async () => {
	const s = new lib.Session(srv);
	const err = await lib.rejects(s.interrupt('TAG'));
	lib.assertSparkError(err,
	    'INVALID_PARAMETER_VALUE.INTERRUPT_TYPE_TAG_REQUIRES_TAG', '22023');
});

test('INTERRUPT_TYPE_OPERATION_ID without operation_id fails with ' +
    'INVALID_PARAMETER_VALUE.INTERRUPT_TYPE_OPERATION_ID_REQUIRES_ID', T,
    async () => {
	const s = new lib.Session(srv);
	const err = await lib.rejects(s.interrupt('OPERATION_ID'));
	lib.assertSparkError(err,
	    'INVALID_PARAMETER_VALUE.INTERRUPT_TYPE_OPERATION_ID_REQUIRES_ID',
	    '22023');
});

test('INTERRUPT_TYPE_UNSPECIFIED fails with ' +
    'UNSUPPORTED_FEATURE.INTERRUPT_TYPE', T, async () => {
	const s = new lib.Session(srv);
	const err = await lib.rejects(s.interrupt('UNSPECIFIED'));
	lib.assertSparkError(err, 'UNSUPPORTED_FEATURE.INTERRUPT_TYPE');
});

test('a tag that is empty or contains a comma is refused with INTERNAL',
    T, async () => {
	const s = new lib.Session(srv);
	for (const tag of ['', 'a,b']) {
		const r = await s.execute(lib.sqlPlan('SELECT 1 AS one'),
		    { tags: [tag] });
		assert.equal(r.count, 0, `tag ${JSON.stringify(tag)}`);
		assert.equal(r.status.code, lib.code.INTERNAL,
		    lib.statusText(r.status));
	}
});

lib.stopTest(srv);
