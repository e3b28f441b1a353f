// SPDX-License-Identifier: MIT
//
// 17-session-limits: what one client can make sc-serve hold.  A Config
// request with 10^6 keys is refused at once (SESSION_CONF_LIMIT_EXCEEDED)
// while other sessions keep being answered; a session holds at most
// sctk.session.maxConfKeys settings of bounded size, and get_all over the
// maximum answers at once; a flood of fresh session ids stops at
// sctk.session.maxSessionsPerUser and sctk.session.maxSessions
// (SESSION_LIMIT_EXCEEDED, RESOURCE_EXHAUSTED) with memory bounded, an
// idle session costing about a kilobyte; memory freed after large
// requests goes back to the system.  These are sctk limits: Spark has no
// error class for them, so the tests check sctk's own.

'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const { T } = lib;
const P = 'spark.sctk.limits.';
const CONFIG = lib.packageDef['spark.connect.SparkConnectService'].Config;

// VmRSS of a process in MiB.
function rssMiB(pid) {
	const m = /VmRSS:\s+(\d+) kB/.exec(
	    fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
	return Number(m[1]) / 1024;
}

// Assert that err is sctk's limit error of class errorClass: status
// RESOURCE_EXHAUSTED, "[CLASS] ... SQLSTATE: sqlState" and an ErrorInfo
// that says the same.  Returns the message.
function assertLimit(err, errorClass, sqlState) {
	assert.ok(err, `expected ${errorClass}, got success`);
	const message = err.details !== undefined ? err.details : err.message;
	assert.equal(err.code, lib.code.RESOURCE_EXHAUSTED,
	    `gRPC code of ${errorClass}: ${lib.statusText(err)}`);
	assert.ok(message.startsWith(`[${errorClass}] `), message);
	assert.ok(message.endsWith(` SQLSTATE: ${sqlState}`), message);
	const d = lib.errorDetails(err);
	assert.ok(d && d.errorInfo, `ErrorInfo for ${message}`);
	assert.equal(d.status.code, lib.code.RESOURCE_EXHAUSTED);
	assert.equal(d.errorInfo.domain, 'org.apache.spark');
	assert.equal(d.errorInfo.metadata.errorClass, errorClass);
	assert.equal(d.errorInfo.metadata.sqlState, sqlState);
	return message;
}

function setPairs(s, pairs, extra = {}) {
	return s.config({ set: { pairs, ...extra } });
}

// Config with a request already serialized, so the time measured is the
// server's (and the transfer's), not the client's serializer.
function rawConfig(client, bytes, timeoutMs) {
	return new Promise((resolve) => {
		const started = process.hrtime.bigint();
		client.makeUnaryRequest(CONFIG.path, (b) => b,
		    CONFIG.responseDeserialize, bytes, new lib.grpc.Metadata(),
		    { deadline: new Date(Date.now() + timeoutMs) },
		    (err, resp) => resolve({ err, resp, ms: Number(
		    process.hrtime.bigint() - started) / 1e6 }));
	});
}

test('a Config set of 10^6 keys is refused at once; others are answered',
    T, async (t) => {
	const s = new lib.Session(srv);
	const pairs = [];
	for (let i = 0; i < 1000000; i++)
		pairs.push({ key: `${P}k${i}`, value: `v${i}` });
	const bytes = CONFIG.requestSerialize(s.base({
	    operation: { set: { pairs } } }));
	t.diagnostic(`request: ${(bytes.length / 1048576).toFixed(1)} MiB`);
	const big = rawConfig(srv.client, bytes, 30000 * lib.SLOW);
	// Meanwhile, other sessions.
	const others = [];
	for (let i = 0; i < 20; i++) {
		const o = new lib.Session(srv);
		others.push(o.unary('Config', o.base({ operation: {
		    get: { keys: ['spark.app.name'] } } }),
		    { timeoutMs: 60000 * lib.SLOW }));
	}
	const r = await big;
	t.diagnostic(`10^6 keys answered after ${r.ms.toFixed(0)} ms`);
	const message = assertLimit(r.err,
	    'SESSION_CONF_LIMIT_EXCEEDED.KEY_COUNT', '54000');
	assert.ok(message.includes('The request names 1000000 keys; a ' +
	    'session holds at most 10000 settings ' +
	    '(sctk.session.maxConfKeys).'), message);
	for (const o of await Promise.all(others))
		assert.equal(o.pairs[0].value, 'sc-serve');
	// Nothing was set, and get_all answers at once.
	const all = await s.unary('Config', s.base({ operation: {
	    get_all: { prefix: P } } }), { timeoutMs: 60000 * lib.SLOW });
	assert.equal(all.pairs.length, 0);
});

test('a session holds at most 10000 settings; get_all over them is fast',
    T, async (t) => {
	const s = new lib.Session(srv);
	const pairs = [];
	for (let i = 0; i < 10000; i++)
		pairs.push({ key: `${P}m${String(i).padStart(5, '0')}`,
		    value: `v${i}` });
	await setPairs(s, pairs);
	let err = await lib.rejects(setPairs(s, [{ key: `${P}one.more`,
	    value: 'x' }]));
	let message = assertLimit(err,
	    'SESSION_CONF_LIMIT_EXCEEDED.KEY_COUNT', '54000');
	assert.ok(message.includes('The session would hold 10001 ' +
	    'settings; at most 10000 are allowed'), message);
	// Replacing a value is not a new setting.
	await setPairs(s, [{ key: `${P}m00000`, value: 'replaced' }]);

	const started = Date.now();
	const all = await s.unary('Config', s.base({ operation: {
	    get_all: {} } }), { timeoutMs: 60000 * lib.SLOW });
	t.diagnostic(`get_all of ${all.pairs.length} pairs in ` +
	    `${Date.now() - started} ms`);
	const mine = all.pairs.filter((p) => p.key.startsWith(P));
	assert.equal(mine.length, 10000);
	assert.deepEqual(mine.slice(0, 2).map((p) => [p.key, p.value]),
	    [[`${P}m00000`, 'replaced'], [`${P}m00001`, 'v1']]);
	assert.equal(mine[9999].key, `${P}m09999`);
	assert.ok(all.pairs.some((p) => p.key === 'spark.app.name'),
	    'built-in settings are listed too');
	const keys = all.pairs.map((p) => p.key);
	assert.deepEqual(keys, [...keys].sort(), 'in key order');

	// A request naming more keys than a session can hold does no work.
	const many = pairs.map((p) => p.key).concat([`${P}x`]);
	err = await lib.rejects(s.config({ get: { keys: many } }));
	message = assertLimit(err, 'SESSION_CONF_LIMIT_EXCEEDED.KEY_COUNT',
	    '54000');
	assert.ok(message.includes('The request names 10001 keys'), message);
	err = await lib.rejects(s.config({ unset: { keys: many } }));
	assertLimit(err, 'SESSION_CONF_LIMIT_EXCEEDED.KEY_COUNT', '54000');
	const left = await s.config({ get: { keys: [`${P}m09999`] } });
	assert.equal(left.pairs[0].value, 'v9999', 'nothing was unset');
});

test('keys of at most 1 KiB and values of at most 64 KiB; all or nothing',
    T, async () => {
	const s = new lib.Session(srv);
	const key = P + 'k'.repeat(1024 - P.length);
	await setPairs(s, [{ key, value: 'v'.repeat(65536) }]);
	let err = await lib.rejects(setPairs(s, [
	    { key: `${P}fine`, value: 'x' },
	    { key: `${key}k`, value: 'x' }]));
	let message = assertLimit(err,
	    'SESSION_CONF_LIMIT_EXCEEDED.KEY_SIZE', '54000');
	assert.ok(message.includes('A setting\'s key is 1025 bytes long; ' +
	    'keys of at most 1024 bytes are allowed ' +
	    '(sctk.session.maxConfKeySize).'), message);
	err = await lib.rejects(setPairs(s, [
	    { key: `${P}fine`, value: 'x' },
	    { key: `${P}big`, value: 'v'.repeat(65537) }],
	    { silent: true }));
	message = assertLimit(err, 'SESSION_CONF_LIMIT_EXCEEDED.VALUE_SIZE',
	    '54000');
	assert.ok(message.includes(`The value for "${P}big" is 65537 ` +
	    'bytes long; values of at most 65536 bytes are allowed'),
	    message);
	const r = await s.config({ get_option: { keys: [`${P}fine`,
	    `${P}big`] } });
	assert.deepEqual(r.pairs.map((p) => p._value), [undefined,
	    undefined], 'a refused set sets none of its pairs');
	// 1 MiB of settings in all.
	const pairs = [];
	for (let i = 0; i < 16; i++)
		pairs.push({ key: `${P}t${i}`, value: 'v'.repeat(65536) });
	err = await lib.rejects(setPairs(s, pairs));
	message = assertLimit(err, 'SESSION_CONF_LIMIT_EXCEEDED.TOTAL_SIZE',
	    '54000');
	assert.ok(/would take \d+ bytes; at most 1048576 are allowed/.test(
	    message), message);
});

// Config calls with a fresh session id each, n in flight: counts of
// answers by outcome ('ok' or the error class).  Each sets a setting, so
// that no session is idle and empty (those would be closed to make room:
// 50-fairness tests that).
async function flood(server, total, userOf, inFlight = 100) {
	const out = {};
	let next = 0;
	async function worker() {
		while (next < total) {
			const i = next++;
			const s = new lib.Session(server,
			    { userId: userOf(i) });
			let k = 'ok';
			try {
				await s.config({ set: { pairs: [
				    { key: `${P}flood`, value: '1' }] } });
			} catch (err) {
				k = /^\[([A-Z_.]+)\]/.exec(err.details);
				k = k ? k[1] : lib.statusText(err);
				if (k.startsWith('SESSION_LIMIT_EXCEEDED'))
					assertLimit(err, k, '53300');
			}
			out[k] = (out[k] || 0) + 1;
		}
	}
	await Promise.all(Array.from({ length: inFlight }, worker));
	return out;
}

test('a session flood stops at the caps with bounded memory', T,
    async (t) => {
	const capped = await lib.startServer({ conf: {
		'sctk.session.maxSessions': '3000',
		'sctk.session.maxSessionsPerUser': '1000',
	} });
	try {
		await lib.sleep(200);
		const before = rssMiB(capped.proc.pid);
		const one = await flood(capped, 1500, () => 'flooder');
		assert.deepEqual(one, { 'ok': 1000,
		    'SESSION_LIMIT_EXCEEDED.USER': 500 });
		const many = await flood(capped, 2500, (i) => `user${i}`);
		assert.deepEqual(many, { 'ok': 2000,
		    'SESSION_LIMIT_EXCEEDED.SERVER': 500 });
		const after = rssMiB(capped.proc.pid);
		t.diagnostic(`3000 idle sessions: RSS ${before.toFixed(1)} ` +
		    `-> ${after.toFixed(1)} MiB, ` +
		    `${((after - before) * 1048576 / 3000).toFixed(0)} ` +
		    'bytes per session');
		if (!lib.SANITIZE)
			assert.ok(after - before < 32,
			    `RSS grew ${(after - before).toFixed(1)} MiB`);

		// At the cap, existing sessions work and a release makes room.
		const s = new lib.Session(capped.client, { userId: 'user1' });
		let err = await lib.rejects(s.config({ get: {
		    keys: ['spark.app.name'] } }));
		assertLimit(err, 'SESSION_LIMIT_EXCEEDED.SERVER', '53300');
		const old = new lib.Session(capped.client,
		    { userId: 'flooder' });
		err = await lib.rejects(old.config({ get: { keys: [] } }));
		assertLimit(err, 'SESSION_LIMIT_EXCEEDED.SERVER', '53300');
		const r = await lib.startOperation(new lib.Session(
		    capped.client, { userId: 'user1' }), { plan:
		    lib.sqlPlan('SELECT 1') }).done;
		assertLimit(lib.streamError(r),
		    'SESSION_LIMIT_EXCEEDED.SERVER', '53300');
		assert.match(capped.logText(), / W new sessions refused: \[SESSION_LIMIT_EXCEEDED\.(USER|SERVER)\]/);
	} finally {
		const e = await capped.stop();
		assert.deepEqual({ status: e.status, signal: e.signal },
		    { status: 0, signal: null });
	}
});

test('a released session makes room under the cap', T, async () => {
	const capped = await lib.startServer({ conf: {
		'sctk.session.maxSessionsPerUser': '2' } });
	try {
		const a = new lib.Session(capped.client, { userId: 'u' });
		const b = new lib.Session(capped.client, { userId: 'u' });
		const c = new lib.Session(capped.client, { userId: 'u' });
		// A setting: an idle, empty session would make room itself.
		await setPairs(a, [{ key: `${P}held`, value: '1' }]);
		await b.execute(lib.sqlPlan('SELECT 1'));
		const err = await lib.rejects(c.config({ get: {
		    keys: ['spark.app.name'] } }));
		assertLimit(err, 'SESSION_LIMIT_EXCEEDED.USER', '53300');
		await a.releaseSession();
		const r = await c.execute(lib.sqlPlan('SELECT 7 AS n'));
		assert.equal(r.status.code, lib.code.OK,
		    lib.statusText(r.status));
		assert.deepEqual(lib.columnValues(r.responses, 'n').map(Number), [7]);
	} finally {
		await capped.stop();
	}
});

// Three plans of 300 000 expressions are minutes of CPU on a loaded
// machine: a longer bound than the file's.
test('memory freed after large requests goes back to the system',
    { timeout: 600000 * lib.SLOW }, async (t) => {
	if (lib.SANITIZE) {
		t.skip('the sanitizer replaces the allocator');
		return;
	}
	const big = await lib.startServer();
	try {
		await lib.sleep(200);
		const base = rssMiB(big.proc.pid);
		const exprs = [];
		for (let i = 0; i < 300000; i++)
			exprs.push({ unresolved_attribute: {
			    unparsed_identifier: 'id' } });
		const plan = { root: { project: { input: { range: {
		    end: '10', step: '1' } }, expressions: exprs } } };
		const s = new lib.Session(big.client);
		const seen = [];
		for (let i = 0; i < 3; i++) {
			const r = await s.execute(plan, { timeoutMs: 300000 });
			assert.notEqual(r.status, null);
			seen.push(rssMiB(big.proc.pid).toFixed(0));
		}
		let now = rssMiB(big.proc.pid);
		for (let i = 0; i < 50 && now - base >= 64; i++) {
			await lib.sleep(200);
			now = rssMiB(big.proc.pid);
		}
		t.diagnostic(`3 x Project(300000): RSS ${base.toFixed(0)} -> ` +
		    `${seen.join(', ')} -> ${now.toFixed(0)} MiB when idle`);
		assert.ok(now - base < 64, `RSS stays ${(now - base)
		    .toFixed(0)} MiB above ${base.toFixed(0)} MiB`);
	} finally {
		await big.stop();
	}
});

lib.stopTest(srv);
