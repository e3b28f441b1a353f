// SPDX-License-Identifier: MIT
//
// 20-admin: sctk.admin.v1.AdminService (proto/sctk/admin/v1/admin.proto)
// on sc-serve's port, from an independent client: every RPC, every
// filter, the per-execution fields of running, detached, finished,
// failed and canceled operations, sessions with artifacts, tombstones,
// statistics, the Watch stream, and the access rules (admin token; the
// shared Spark token: the declared user's, in the session it names, no
// SQL text; no token: loopback only).  Also lists 10 000
// detached operations and reports how long that took.

'use strict';

const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test } = require('node:test');
const protoLoader = require('@grpc/proto-loader');
const lib = require('./lib');
const A = require('./artifacts');

const { grpc, code } = lib;
const SPARK_TOKEN = 'spark-secret';
const ADMIN_TOKEN = 'admin-secret';
const DETACHED_TIMEOUT = 3000;

const adminDef = protoLoader.loadSync(['sctk/admin/v1/admin.proto'], {
	includeDirs: [path.join(lib.TOP, 'proto')],
	keepCase: true, longs: Number, enums: String, defaults: true,
	oneofs: true,
});
const AdminClient =
    grpc.loadPackageDefinition(adminDef).sctk.admin.v1.AdminService;

const srv = lib.useServer({
	args: ['--token', SPARK_TOKEN, '--admin-token', ADMIN_TOKEN],
	conf: {
		'spark.connect.execute.manager.detachedTimeout':
		    `${DETACHED_TIMEOUT}ms`,
		'spark.connect.execute.manager.maintenanceInterval': '200ms',
		'spark.connect.execute.reattachable.senderMaxStreamSize': '64g',
	},
});
const { T } = lib;

function admin(port, host = '127.0.0.1') {
	return new AdminClient(`${host}:${port}`,
	    grpc.credentials.createInsecure(),
	    { 'grpc.max_receive_message_length': 256 * 1024 * 1024 });
}

// Metadata: 'admin' (x-sctk-admin-token), 'bearer-admin', 'spark' (the
// Spark token), 'wrong-admin', or nothing.
function md(kind) {
	const m = new grpc.Metadata();
	if (kind === 'admin')
		m.set('x-sctk-admin-token', ADMIN_TOKEN);
	else if (kind === 'bearer-admin')
		m.set('authorization', `Bearer ${ADMIN_TOKEN}`);
	else if (kind === 'spark')
		m.set('authorization', `Bearer ${SPARK_TOKEN}`);
	else if (kind === 'wrong-admin')
		m.set('x-sctk-admin-token', 'not-it');
	return m;
}

function call(client, method, req, kind = 'admin') {
	return new Promise((resolve, reject) => {
		client[method](req, md(kind),
		    { deadline: new Date(Date.now() + 20000 * lib.SLOW) },
		    (err, resp) => (err ? reject(err) : resolve(resp)));
	});
}

let cli = null;
function ac() {
	if (!cli)
		cli = admin(srv.port);
	return cli;
}

function sparkSession(user, sessionId) {
	return new lib.Session(srv, { userId: user, sessionId,
	    metadata: { authorization: `Bearer ${SPARK_TOKEN}` } });
}

async function getExec(opId, kind = 'admin', user = '') {
	const r = await call(ac(), 'GetExecution',
	    { caller: { user_id: user }, operation_id: opId }, kind);
	return r.execution;
}

async function list(filter = {}, { kind = 'admin', user = '', limit = 0 }
    = {}) {
	return call(ac(), 'ListExecutions',
	    { caller: { user_id: user }, filter, limit }, kind);
}

// An admin error: gRPC code, ErrorInfo errorClass.
function assertAdminError(err, grpcCode, errorClass) {
	assert.equal(err.code, grpcCode, lib.statusText(err));
	const d = lib.errorDetails(err);
	assert.ok(d && d.errorInfo, `ErrorInfo in ${lib.statusText(err)}`);
	assert.equal(d.errorInfo.metadata.errorClass, errorClass);
}

async function waitFor(what, fn, ms = 10000) {
	const end = Date.now() + ms * lib.SLOW;
	for (;;) {
		const v = await fn();
		if (v)
			return v;
		if (Date.now() > end)
			assert.fail(`timed out waiting for ${what}`);
		await lib.sleep(50);
	}
}

// A reattachable operation whose client stream is dropped after its
// first response: detached, still running.
async function detachedOp(s, plan = lib.LONG_PLAN, tags = []) {
	const op = lib.uuid();
	const r = await s.execute(plan, { operationId: op, stopAfter: 1,
	    tags });
	assert.equal(r.status.code, code.CANCELLED, lib.statusText(r.status));
	await waitFor('detached', async () =>
	    !(await getExec(op)).attached);
	return op;
}

test('a running, attached operation: every field', T, async () => {
	const s = sparkSession('alice');
	const t0 = Date.now();
	const op = lib.startOperation(s, { tags: ['t1', 'two'] });
	await op.first;
	const e = await getExec(op.operationId);
	assert.equal(e.operation_id, op.operationId);
	assert.equal(e.session_id, s.sessionId);
	assert.equal(e.user_id, 'alice');
	assert.deepEqual(e.tags, ['t1', 'two']);
	assert.equal(e.statement, 'range(0, 1000000000000)');
	assert.equal(e.state, 'EXECUTION_STATE_RUNNING');
	assert.equal(e.reattachable, true);
	assert.ok(e.created_at_ms >= t0 - 1000 && e.created_at_ms <= Date.now());
	assert.ok(e.started_at_ms >= e.created_at_ms);
	assert.equal(e.finished_at_ms, 0);
	assert.equal(e.attached, true);
	assert.ok(e.attached_since_at_ms >= e.created_at_ms);
	assert.equal(e.detached_since_at_ms, 0);
	assert.equal(e.abandon_in_ms, -1);
	assert.equal(e.server_side_session_id, s.serverSideId);
	assert.equal(e.last_error_class, '');
	assert.ok(e.responses_sent >= 1);
	// The client keeps reading: the counters grow.
	await lib.sleep(300);
	const e2 = await getExec(op.operationId);
	assert.ok(e2.responses_sent > e.responses_sent,
	    `${e2.responses_sent} > ${e.responses_sent}`);
	assert.ok(e2.rows_sent > e.rows_sent);
	assert.ok(e2.bytes_sent > e.bytes_sent);
	assert.ok(e2.responses_produced >= e2.responses_sent);
	// Interrupted: CANCELED with its error class.
	await s.interrupt('OPERATION_ID', op.operationId);
	await op.done;
	const e3 = await getExec(op.operationId);
	assert.equal(e3.state, 'EXECUTION_STATE_CANCELED');
	assert.equal(e3.last_error_class, 'OPERATION_CANCELED');
	assert.ok(e3.finished_at_ms >= e3.started_at_ms);
	await s.release(op.operationId);
});

test('a detached operation: abandon_in_ms counts down, a reattach counts',
    T, async () => {
	const s = sparkSession('alice');
	const op = await detachedOp(s);
	const e = await getExec(op);
	assert.equal(e.attached, false);
	assert.equal(e.attached_since_at_ms, 0);
	assert.ok(e.detached_since_at_ms > 0);
	assert.ok(e.abandon_in_ms > 0 && e.abandon_in_ms <= DETACHED_TIMEOUT,
	    `abandon_in_ms ${e.abandon_in_ms}`);
	assert.equal(e.reattaches, 0);
	await lib.sleep(300);
	const e2 = await getExec(op);
	assert.ok(e2.abandon_in_ms < e.abandon_in_ms,
	    `${e2.abandon_in_ms} < ${e.abandon_in_ms}`);
	// Reattach, read one response, drop it again.
	const r = await s.reattach(op, undefined, { stopAfter: 1 });
	assert.equal(r.count, 1);
	const e3 = await waitFor('detached again', async () => {
		const x = await getExec(op);
		return !x.attached ? x : null;
	});
	assert.equal(e3.reattaches, 1);
	assert.ok(e3.responses_sent > e.responses_sent);
	await s.release(op);
	await assert.rejects(getExec(op), (err) => {
		assertAdminError(err, code.NOT_FOUND,
		    'INVALID_HANDLE.OPERATION_NOT_FOUND');
		return true;
	});
});

test('a finished and a failed operation', T, async () => {
	const s = sparkSession('carol');
	const ok = await s.executeToCompletion(
	    lib.sqlPlan('SELECT 1 AS x\n  UNION ALL SELECT 2'));
	const e = await getExec(ok.operationId);
	assert.equal(e.state, 'EXECUTION_STATE_FINISHED');
	assert.equal(e.statement, 'SELECT 1 AS x UNION ALL SELECT 2');
	assert.equal(e.attached, false);
	assert.equal(e.rows_sent, 2);
	assert.equal(e.responses_sent, e.responses_produced);
	assert.ok(e.finished_at_ms >= e.started_at_ms && e.started_at_ms > 0);
	assert.equal(e.last_error_class, '');

	const bad = lib.uuid();
	const r = await s.execute(lib.sqlCommandPlan('SELECT * FROM nope_t'),
	    { operationId: bad });
	const cls = lib.errorDetails(lib.streamError(r)).errorInfo
	    .metadata.errorClass;
	assert.ok(cls.length > 0);
	const f = await getExec(bad);
	assert.equal(f.state, 'EXECUTION_STATE_FAILED');
	assert.equal(f.last_error_class, cls);
	assert.equal(f.statement, 'SELECT * FROM nope_t');
	await s.release(ok.operationId);
	await s.release(bad);
});

test('statements are abbreviated to 200 bytes', T, async () => {
	const s = sparkSession('carol');
	const q = `SELECT '${'x'.repeat(400)}' AS long_one`;
	const r = await s.executeToCompletion(lib.sqlPlan(q));
	const e = await getExec(r.operationId);
	assert.ok(e.statement.endsWith('...'));
	assert.equal(Buffer.byteLength(e.statement), 203, e.statement);
	assert.ok(q.startsWith(e.statement.slice(0, -3)));
	await s.release(r.operationId);
});

test('ListExecutions: every filter, newest first, limit', T, async () => {
	const s1 = sparkSession('dave');
	const s2 = sparkSession('dave');
	const s3 = sparkSession('erin');
	const ids = [];
	for (const [s, tags] of [[s1, ['a']], [s1, ['b']], [s2, ['a']],
	    [s3, ['a']]]) {
		const r = await s.executeToCompletion(lib.sqlPlan('SELECT 1'),
		    { tags });
		ids.push(r.operationId);
	}
	const names = (r) => r.executions.map((e) => e.operation_id);
	let r = await list({ user_id: 'dave' });
	assert.deepEqual(names(r), [ids[2], ids[1], ids[0]], 'newest first');
	assert.equal(r.truncated, false);
	assert.ok(r.server_time_ms > 0);
	r = await list({ session_id: s1.sessionId });
	assert.deepEqual(names(r), [ids[1], ids[0]]);
	r = await list({ user_id: 'dave', tag: 'a' });
	assert.deepEqual(names(r), [ids[2], ids[0]]);
	r = await list({ tag: 'a', session_id: s3.sessionId });
	assert.deepEqual(names(r), [ids[3]]);
	r = await list({ user_id: 'dave',
	    states: ['EXECUTION_STATE_FINISHED'] });
	assert.equal(r.executions.length, 3);
	r = await list({ user_id: 'dave',
	    states: ['EXECUTION_STATE_RUNNING', 'EXECUTION_STATE_FAILED'] });
	assert.equal(r.executions.length, 0);
	r = await list({ user_id: 'dave' }, { limit: 2 });
	assert.deepEqual(names(r), [ids[2], ids[1]]);
	assert.equal(r.truncated, true);
	// detached_for and older_than: none yet, all three after a wait.
	r = await list({ user_id: 'dave', detached_for_ms: 60000 });
	assert.equal(r.executions.length, 0);
	r = await list({ user_id: 'dave', older_than_ms: 60000 });
	assert.equal(r.executions.length, 0);
	await lib.sleep(700);
	r = await list({ user_id: 'dave', detached_for_ms: 500 });
	assert.equal(r.executions.length, 3);
	r = await list({ user_id: 'dave', older_than_ms: 500 });
	assert.equal(r.executions.length, 3);
	// An attached one is never "detached for".
	const live = lib.startOperation(s3);
	await live.first;
	r = await list({ session_id: s3.sessionId, detached_for_ms: 1 });
	assert.deepEqual(names(r), [ids[3]]);
	await s3.interrupt('ALL');
	await live.done;
	await assert.rejects(list({}, { limit: -1 }), (err) => {
		assertAdminError(err, code.INVALID_ARGUMENT,
		    'INVALID_PARAMETER_VALUE.LIMIT');
		return true;
	});
	for (const [s, id] of [[s1, ids[0]], [s1, ids[1]], [s2, ids[2]],
	    [s3, ids[3]], [s3, live.operationId]])
		await s.release(id);
});

test('ListSessions: sessions with their artifacts and operations', T,
    async () => {
	const s = sparkSession('frank');
	const items = [{ name: 'files/a.txt', data: A.bytes(10, 1) },
		{ name: 'jars/b.jar', data: A.bytes(70000, 2) }];
	const t0 = Date.now();
	const up = await A.addArtifacts(s, items);
	assert.equal(up.err, null, up.err && lib.statusText(up.err));
	const op = await s.executeToCompletion(lib.sqlPlan('SELECT 1'));
	const r = await call(ac(), 'ListSessions',
	    { caller: {}, user_id: 'frank' });
	assert.equal(r.sessions.length, 1);
	const x = r.sessions[0];
	assert.equal(x.session_id, s.sessionId);
	assert.equal(x.user_id, 'frank');
	assert.equal(x.server_side_session_id, s.serverSideId);
	assert.ok(x.created_at_ms >= t0 - 1000);
	assert.ok(x.last_access_at_ms >= x.created_at_ms);
	assert.ok(x.expires_in_ms > 0 && x.expires_in_ms <= 3600000);
	assert.equal(x.operations, 1);
	assert.deepEqual(x.artifacts.map((a) => [a.name, a.size]),
	    [['files/a.txt', 10], ['jars/b.jar', 70000]]);
	assert.ok(x.artifacts.every((a) => a.stored_at_ms >= t0 - 1000));
	assert.equal(x.artifact_bytes, 70010);
	const bySession = await call(ac(), 'ListSessions',
	    { caller: {}, session_id: s.sessionId });
	assert.deepEqual(bySession.sessions.map((y) => y.session_id),
	    [s.sessionId]);
	await s.release(op.operationId);
});

test('tombstones: an abandoned operation and a released session', T,
    async () => {
	const s = sparkSession('gina');
	const op = await detachedOp(s);
	await waitFor('abandoned', async () => {
		const r = await call(ac(), 'ListTombstones',
		    { caller: {}, user_id: 'gina' });
		return r.tombstones.some((t) => t.operation_id === op);
	}, DETACHED_TIMEOUT + 5000);
	let r = await call(ac(), 'ListTombstones',
	    { caller: {}, session_id: s.sessionId });
	const t = r.tombstones.find((x) => x.operation_id === op);
	assert.equal(t.kind, 'KIND_OPERATION');
	assert.equal(t.user_id, 'gina');
	assert.equal(t.reason, 'detached too long');
	assert.ok(t.at_ms > 0 && t.at_ms <= Date.now());
	await assert.rejects(getExec(op));

	// A released session, and its operation abandoned with it.
	const s2 = sparkSession('gina');
	const op2 = await detachedOp(s2);
	await s2.releaseSession();
	r = await call(ac(), 'ListTombstones',
	    { caller: {}, session_id: s2.sessionId });
	const kinds = r.tombstones.map((x) => `${x.kind} ${x.operation_id} ` +
	    x.reason).sort();
	assert.deepEqual(kinds, [`KIND_OPERATION ${op2} session closed`,
		'KIND_SESSION  released']);
	const sess = await call(ac(), 'ListSessions',
	    { caller: {}, session_id: s2.sessionId });
	assert.equal(sess.sessions.length, 0);
});

test('GetStats: server-wide for the admin, nothing for a declared user',
    T, async () => {
	const s = sparkSession('hank');
	const op = await detachedOp(s);
	const a = await call(ac(), 'GetStats', { caller: {} });
	assert.equal(a.version, '0.1.0');
	assert.ok(a.uptime_ms > 0);
	assert.ok(Math.abs(a.server_time_ms - Date.now()) < 5000);
	assert.equal(a.server_time_ms - a.started_at_ms, a.uptime_ms);
	assert.deepEqual(a.operations.map((x) => x.state), [
		'EXECUTION_STATE_PENDING', 'EXECUTION_STATE_RUNNING',
		'EXECUTION_STATE_FINISHED', 'EXECUTION_STATE_FAILED',
		'EXECUTION_STATE_CANCELED', 'EXECUTION_STATE_CLOSED']);
	assert.ok(a.operations[1].count >= 1, 'hank\'s op runs');
	assert.ok(a.rss_bytes > 1024 * 1024);
	// mallinfo2() reads 0 under AddressSanitizer's allocator.
	if (!lib.SANITIZE)
		assert.ok(a.heap_in_use_bytes > 0);
	assert.ok(a.sessions >= 1);
	assert.ok(a.operations_started >= 10);
	assert.ok(a.operations_finished >= 5);
	assert.ok(a.operations_failed >= 1);
	assert.ok(a.operations_canceled >= 1);
	assert.ok(a.operations_abandoned >= 1);
	assert.ok(a.rows_sent > 0 && a.bytes_sent > 0);
	assert.ok(a.reattaches >= 1);
	assert.ok(a.buffered_bytes > 0);
	// Anybody with the shared token may claim to be hank: no counts.
	// (A token of --token-file proves the user: 51-bad-utf8 and
	// test/51-sc-serve-isolation.bats.)
	const u = await call(ac(), 'GetStats', { caller: { user_id: 'hank' } },
	    'spark');
	assert.equal(u.version, '0.1.0');
	assert.deepEqual(u.operations.map((x) => x.count), [0, 0, 0, 0, 0, 0]);
	assert.equal(u.sessions, 0);
	assert.equal(u.rss_bytes, 0);
	assert.equal(u.operations_started, 0);
	assert.equal(u.buffered_bytes, 0);
	await s.interrupt('ALL');
	await s.release(op);
});

// Collect Watch events until pred(events) holds.
function watch(req, kind, pred, ms = 15000) {
	return new Promise((resolve, reject) => {
		const events = [];
		const c = ac().Watch(req, md(kind));
		const timer = setTimeout(() => {
			c.cancel();
			reject(new Error('watch timed out: ' + JSON.stringify(
			    events.map((e) => e.kind))));
		}, ms * lib.SLOW);
		c.on('data', (e) => {
			events.push(e);
			if (pred(events)) {
				clearTimeout(timer);
				c.cancel();
				resolve(events);
			}
		});
		c.on('error', (err) => {
			if (err.code !== code.CANCELLED) {
				clearTimeout(timer);
				reject(err);
			}
		});
	});
}

test('Watch: a new execution appears, progresses, is released', T,
    async () => {
	const s = sparkSession('ivan');
	const before = await s.executeToCompletion(lib.sqlPlan('SELECT 7'));
	const kinds = (ev, id) => ev.filter((e) =>
	    e.execution.operation_id === id).map((e) => e.kind);
	const opId = lib.uuid();
	const seen = watch({ caller: {}, filter: { session_id: s.sessionId },
	    initial_snapshot: true }, 'admin',
	    (ev) => kinds(ev, opId).includes('KIND_REMOVED'));
	await lib.sleep(200);
	// Enough rows for several batches (progress), then release.
	const r = await s.executeToCompletion(
	    lib.sqlPlan('SELECT id FROM range(0, 300000)'),
	    { operationId: opId });
	assert.equal(r.streams[0].status.code, code.OK);
	await s.release(opId);
	const ev = await seen;
	assert.equal(ev[0].kind, 'KIND_SNAPSHOT');
	assert.equal(ev[0].execution.operation_id, before.operationId);
	const k = kinds(ev, opId);
	assert.deepEqual(k.slice(0, 2), ['KIND_CREATED', 'KIND_STARTED']);
	assert.ok(k.includes('KIND_PROGRESS'), k.join(' '));
	assert.ok(k.indexOf('KIND_FINISHED') > 1);
	assert.ok(k.indexOf('KIND_DETACHED') > k.indexOf('KIND_STARTED'));
	assert.deepEqual(k.slice(-2), ['KIND_RELEASED', 'KIND_REMOVED']);
	const last = ev[ev.length - 1];
	assert.equal(last.execution.state, 'EXECUTION_STATE_CLOSED');
	assert.equal(last.execution.rows_sent, 300000);
	assert.ok(last.at_ms > 0);
	assert.equal(last.dropped, 0);
	await s.release(before.operationId);
});

test('Watch is user- and session-scoped without the admin token', T,
    async () => {
	const alice = sparkSession('wally');
	const bob = sparkSession('wendy');
	const seen = watch({ caller: { user_id: 'wendy' },
	    filter: { session_id: bob.sessionId } }, 'spark',
	    (ev) => ev.some((e) => e.kind === 'KIND_REMOVED'));
	await lib.sleep(200);
	const a = await alice.executeToCompletion(lib.sqlPlan('SELECT 1'));
	await alice.release(a.operationId);
	const b = await bob.executeToCompletion(lib.sqlPlan('SELECT 2'));
	await bob.release(b.operationId);
	const ev = await seen;
	assert.ok(ev.every((e) => e.execution.user_id === 'wendy'),
	    'only wendy\'s events');
	assert.ok(ev.every((e) => e.execution.statement === ''),
	    'no SQL text');
});

test('access: admin token, Spark token with user and session isolation, wrong tokens',
    T, async () => {
	const alice = sparkSession('alice2');
	const bob = sparkSession('bob2');
	const a = await alice.executeToCompletion(lib.sqlPlan('SELECT 1'));
	const b = await bob.executeToCompletion(lib.sqlPlan('SELECT 2'));
	const users = (r) => [...new Set(r.executions.map((e) => e.user_id))]
	    .sort();
	// The admin token, either header: everything.
	for (const kind of ['admin', 'bearer-admin']) {
		const r = await list({}, { kind });
		assert.ok(users(r).includes('alice2') &&
		    users(r).includes('bob2'), kind);
	}
	// The shared Spark token proves no user: the declared user's, in
	// the session the request names, without SQL text.
	let r = await list({}, { kind: 'spark', user: 'alice2' });
	assert.equal(r.executions.length, 0, 'no session named');
	r = await list({ session_id: alice.sessionId },
	    { kind: 'spark', user: 'alice2' });
	assert.deepEqual(users(r), ['alice2']);
	assert.ok(r.executions.every((e) => e.statement === ''));
	r = await list({ session_id: bob.sessionId },
	    { kind: 'spark', user: 'alice2' });
	assert.equal(r.executions.length, 0);
	r = await list({ session_id: alice.sessionId, user_id: 'bob2' },
	    { kind: 'spark', user: 'alice2' });
	assert.equal(r.executions.length, 0);
	r = await list({ session_id: alice.sessionId },
	    { kind: 'spark', user: '' });
	assert.equal(r.executions.length, 0, 'an empty user sees nothing');
	for (const id of [a.operationId, b.operationId])
		await assert.rejects(getExec(id, 'spark', 'alice2'), (err) => {
			assertAdminError(err, code.NOT_FOUND,
			    'INVALID_HANDLE.OPERATION_NOT_FOUND');
			return true;
		});
	let ss = await call(ac(), 'ListSessions',
	    { caller: { user_id: 'bob2' } }, 'spark');
	assert.equal(ss.sessions.length, 0);
	ss = await call(ac(), 'ListSessions',
	    { caller: { user_id: 'bob2' }, session_id: bob.sessionId },
	    'spark');
	assert.deepEqual(ss.sessions.map((x) => x.session_id),
	    [bob.sessionId]);
	const ts = await call(ac(), 'ListTombstones',
	    { caller: { user_id: 'bob2' } }, 'spark');
	assert.equal(ts.tombstones.length, 0);
	// No token, a wrong one.
	for (const [kind, msg] of [['none', 'No authentication token provided'],
	    ['wrong-admin', 'Invalid admin token']]) {
		const err = await lib.rejects(list({}, { kind, user: 'alice2' }));
		assert.equal(err.code, code.UNAUTHENTICATED);
		assert.equal(err.details, msg);
		assert.equal(lib.errorDetails(err).errorInfo.metadata.errorClass,
		    'UNAUTHENTICATED');
	}
	await alice.release(a.operationId);
	await bob.release(b.operationId);
});

// A non-loopback address of this machine, or null.
function externalAddress() {
	for (const addrs of Object.values(os.networkInterfaces()))
		for (const x of addrs || [])
			if (x.family === 'IPv4' && !x.internal)
				return x.address;
	return null;
}

// sc-serve on every address (lib.startServer() expects 127.0.0.1).
async function startWildcardServer() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sctk-admin-'));
	const ready = path.join(dir, 'ready');
	const env = { ...process.env, GRPC_VERBOSITY: 'NONE' };
	delete env.SPARK_CONNECT_AUTHENTICATE_TOKEN;
	delete env.SCTK_ADMIN_TOKEN;
	const proc = spawn(path.join(lib.BUILD, 'bin', 'sc-serve'),
	    ['--listen', '0.0.0.0:0', '--ready-file', ready],
	    { stdio: 'ignore', env });
	const exited = new Promise((resolve) => proc.on('exit',
	    (status, signal) => resolve({ status, signal })));
	const port = await waitFor('the ready file', async () => {
		let text = '';
		try {
			text = fs.readFileSync(ready, 'utf8');
		} catch (e) {
			text = '';
		}
		const m = /^sc:\/\/0\.0\.0\.0:(\d+)\s*$/.exec(text);
		return m ? Number(m[1]) : 0;
	});
	const stop = async () => {
		proc.kill('SIGTERM');
		const e = await exited;
		fs.rmSync(dir, { recursive: true, force: true });
		return e;
	};
	return { port, stop };
}

test('without any token: loopback callers only', T, async (t) => {
	const other = await startWildcardServer();
	try {
		const local = admin(other.port);
		const r = await call(local, 'GetStats', { caller: {} }, 'none');
		assert.ok(r.rss_bytes > 0, 'a loopback caller sees everything');
		local.close();
		const ext = externalAddress();
		if (ext === null) {
			t.diagnostic('no non-loopback address: remote case ' +
			    'not run');
			return;
		}
		const remote = admin(other.port, ext);
		for (const m of ['ListExecutions', 'GetStats', 'ListSessions']) {
			const err = await lib.rejects(call(remote, m,
			    { caller: {} }, 'none'));
			assertAdminError(err, code.PERMISSION_DENIED,
			    'SCTK_ADMIN.LOOPBACK_ONLY');
		}
		remote.close();
	} finally {
		assert.deepEqual(await other.stop(),
		    { status: 0, signal: null });
	}
});

// 2000 operations list whole; SCTK_ADMIN_LIST_OPS=10000 is the size
// whose listing time the issue named (a benchmark's figure, reported as
// a diagnostic, not asserted).
test('many detached operations are listed whole', {
	timeout: 600000 * lib.SLOW }, async (t) => {
	const big = await lib.startServer();
	try {
		const s = new lib.Session(big, { userId: 'bulk' });
		const N = Number(process.env.SCTK_ADMIN_LIST_OPS || 2000);
		let next = 0;
		const worker = async () => {
			while (next < N) {
				next++;
				const r = await s.execute(lib.sqlPlan('SELECT 1'),
				    { keep: false });
				assert.equal(r.status.code, code.OK);
			}
		};
		await Promise.all(Array.from({ length: 32 }, worker));
		const c = admin(big.port);
		let best = Infinity, resp = null;
		for (let i = 0; i < 3; i++) {
			const t0 = process.hrtime.bigint();
			resp = await call(c, 'ListExecutions',
			    { caller: {}, filter: { detached_for_ms: 0 } },
			    'none');
			const ms = Number(process.hrtime.bigint() - t0) / 1e6;
			best = Math.min(best, ms);
		}
		assert.equal(resp.executions.length, N);
		assert.equal(resp.truncated, false);
		assert.ok(resp.executions.every((e) => !e.attached &&
		    e.state === 'EXECUTION_STATE_FINISHED'));
		t.diagnostic(`ListExecutions of ${N} detached operations: ` +
		    `${best.toFixed(1)} ms (best of 3, client included)`);
		// How fast is a benchmark's question (a loaded machine misses
		// any bound): the time is only reported.
		c.close();
	} finally {
		const e = await big.stop();
		assert.equal(e.status, 0);
	}
});

lib.stopTest(srv);
