// SPDX-License-Identifier: MIT
//
// 50-fairness: one client cannot lock others out.  A flood of fresh
// session ids, under one user id or thousands, fills the session table;
// idle, empty sessions are then closed to make room (least recently used
// first), so another user and the flooding user still get sessions, and
// sessions that hold something (a temp view, a setting) survive.
// AnalyzePlan runs on the bounded runner pool and stops at its client's
// deadline: twenty that would compute for ever leave no thread behind,
// and SIGTERM still stops the server at once.

'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer({ conf: {
	'sctk.session.maxSessions': '2000',
	'sctk.session.maxSessionsPerUser': '500',
	'sctk.execute.workers': '2',
	'sctk.execute.maxThreads': '8',
} });
const T = { timeout: 120000 * lib.SLOW };

// Threads of a process, from /proc.
function threads(pid) {
	const m = /Threads:\s+(\d+)/.exec(
	    fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
	return Number(m[1]);
}

// Wait (bounded) until fn() is true; returns whether it became true.
async function waitFor(fn, ms) {
	const end = Date.now() + ms * lib.SLOW;
	for (;;) {
		if (fn())
			return true;
		if (Date.now() > end)
			return false;
		await lib.sleep(50);
	}
}

// Config get with a fresh session id each, 100 in flight: counts of
// answers by outcome ('ok' or the error class).
async function flood(client, total, userOf, inFlight = 100) {
	const out = {};
	let next = 0;
	async function worker() {
		while (next < total) {
			const i = next++;
			const s = new lib.Session(client,
			    { userId: userOf(i) });
			let k = 'ok';
			try {
				await s.config({ get: {
				    keys: ['spark.app.name'] } });
			} catch (err) {
				k = /^\[([A-Z_.]+)\]/.exec(err.details);
				k = k ? k[1] : lib.statusText(err);
			}
			out[k] = (out[k] || 0) + 1;
		}
	}
	await Promise.all(Array.from({ length: inFlight }, worker));
	return out;
}

async function sqlRows(s, query) {
	const r = await s.execute(lib.sqlPlan(query));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return lib.resultRows(r.responses);
}

test('a session flood under many user ids locks nobody out', T,
    async () => {
	// Alice's session holds a temp view, bob's a setting.
	const alice = new lib.Session(srv, { userId: 'alice' });
	await sqlRows(alice, 'CREATE TEMP VIEW mine AS SELECT 42 AS x');
	const bob = new lib.Session(srv, { userId: 'bob' });
	await bob.config({ set: { pairs: [
	    { key: 'spark.sctk.fair', value: 'kept' }] } });

	const many = await flood(srv.client, 5000, (i) => `flooder${i}`);
	assert.deepEqual(many, { ok: 5000 },
	    'fresh sessions make room by closing idle empty ones');

	// A new user, and the flooders, still get sessions.
	const carol = new lib.Session(srv, { userId: 'carol' });
	assert.deepEqual(await sqlRows(carol, 'SELECT 1 AS one'), [[1]]);
	const again = new lib.Session(srv, { userId: 'flooder7' });
	await again.config({ get: { keys: ['spark.app.name'] } });

	// What held something is still there.
	assert.deepEqual(await sqlRows(alice, 'SELECT x FROM mine'), [[42]]);
	const got = await bob.config({ get: { keys: ['spark.sctk.fair'] } });
	assert.equal(got.pairs[0].value, 'kept');
});

test('a session flood under one user id stops at its own cap and ' +
    'still leaves that user new sessions', T, async () => {
	const one = await flood(srv.client, 2000, () => 'flooder');
	assert.deepEqual(one, { ok: 2000 });
	const s = new lib.Session(srv, { userId: 'flooder' });
	assert.deepEqual(await sqlRows(s, 'SELECT 2 AS two'), [[2]]);
	const dave = new lib.Session(srv, { userId: 'dave' });
	assert.deepEqual(await sqlRows(dave, 'SELECT 3 AS three'), [[3]]);
});

test('sessions that hold something are not closed: then the caps refuse',
    T, async () => {
	const capped = await lib.startServer({ conf: {
		'sctk.session.maxSessions': '20',
		'sctk.session.maxSessionsPerUser': '10',
	} });
	try {
		// Ten users, two sessions each, every one with a setting.
		for (let i = 0; i < 20; i++) {
			const s = new lib.Session(capped.client,
			    { userId: `u${i % 10}` });
			await s.config({ set: { pairs: [
			    { key: 'spark.sctk.k', value: 'v' }] } });
		}
		const err = await lib.rejects(new lib.Session(capped.client,
		    { userId: 'late' }).config({ get: { keys: [] } }));
		assert.equal(err.code, lib.code.RESOURCE_EXHAUSTED,
		    lib.statusText(err));
		assert.match(err.details,
		    /^\[SESSION_LIMIT_EXCEEDED\.SERVER\] Cannot create a new session: the server already has 20 sessions/);
	} finally {
		const e = await capped.stop();
		assert.deepEqual({ status: e.status, signal: e.signal },
		    { status: 0, signal: null });
	}
});

// AnalyzePlan(schema) of a transpose that reads 9e18 rows to find its
// columns: it computes until something stops it.
function endlessTranspose() {
	return { schema: { plan: { root: { transpose: {
		input: { sql: { query: 'SELECT id AS k, id AS v FROM ' +
		    'range(9000000000000000000)' } },
		index_columns: [{ unresolved_attribute: {
		    unparsed_identifier: 'k' } }],
	} } } } };
}

test('AnalyzePlan stops at its deadline and holds no thread after it', T,
    async () => {
	const a = await lib.startServer({ conf: {
		'sctk.execute.workers': '2',
		'sctk.execute.maxThreads': '4',
	} });
	try {
		const pid = a.proc.pid;
		const s0 = new lib.Session(a.client);
		await s0.config({ get: { keys: [] } });
		await lib.sleep(200);
		const base = threads(pid);
		const calls = [];
		for (let i = 0; i < 20; i++) {
			const s = new lib.Session(a.client,
			    { userId: `an${i % 4}` });
			calls.push(lib.rejects(s.unary('AnalyzePlan',
			    s.base(endlessTranspose()),
			    { timeoutMs: 1500 })));
		}
		const errs = await Promise.all(calls);
		for (const e of errs)
			assert.equal(e.code, lib.code.DEADLINE_EXCEEDED,
			    lib.statusText(e));
		// While they were queued or computing, the pool bounded them.
		assert.ok(await waitFor(() => threads(pid) <= base + 2, 15000),
		    `threads ${threads(pid)}, ${base} before`);
		// The runners are free again: a query answers.
		assert.deepEqual(await sqlRows(s0, 'SELECT 5 AS five'), [[5]]);
		// And a cheap AnalyzePlan too.
		const r = await s0.analyze({ schema: {
		    plan: lib.rangePlan(0, 3) } });
		assert.equal(r.schema.schema.struct.fields[0].name, 'id');

		// Endless ones in progress do not hold up SIGTERM.
		for (let i = 0; i < 6; i++) {
			const s = new lib.Session(a.client);
			s.unary('AnalyzePlan', s.base(endlessTranspose()),
			    { timeoutMs: 60000 }).catch(() => {});
		}
		await lib.sleep(500);
		const e = await a.stop();
		assert.deepEqual({ status: e.status, signal: e.signal,
		    killed: e.killed }, { status: 0, signal: null,
		    killed: undefined });
		assert.doesNotMatch(a.logText(), /did not finish/);
	} finally {
		await a.stop();
	}
});

lib.stopTest(srv);
