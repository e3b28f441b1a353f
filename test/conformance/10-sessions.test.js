// SPDX-License-Identifier: MIT
//
// 10-sessions: session ids must be UUIDs; Reattach/Release need an
// existing session; ReleaseSession closes a session for good unless
// allow_reconnect; a wrong observed server-side session id is refused;
// sessions are keyed by (user_id, session_id) and temp views are
// session-scoped.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const { T } = lib;
const SMALL = lib.sqlPlan('SELECT id FROM range(10)');

test('a session_id that is not a UUID fails with INVALID_HANDLE.FORMAT', T,
    async () => {
	for (const bad of ['not-a-uuid', '', 'session-1']) {
		const s = new lib.Session(srv, { sessionId: bad });
		lib.assertSparkError(await lib.rejects(
		    s.config({ get_all: {} })), 'INVALID_HANDLE.FORMAT',
		    'HY000');
		const r = await s.execute(SMALL);
		assert.equal(r.count, 0);
		lib.assertSparkError(lib.streamError(r),
		    'INVALID_HANDLE.FORMAT', 'HY000');
		lib.assertSparkError(await lib.rejects(
		    s.analyze({ spark_version: {} })),
		    'INVALID_HANDLE.FORMAT', 'HY000');
	}
});

test('ReattachExecute on an unknown session fails with ' +
    'INVALID_HANDLE.SESSION_NOT_FOUND', T, async () => {
	const s = new lib.Session(srv);
	const r = await s.reattach(lib.uuid());
	assert.equal(r.count, 0);
	lib.assertSparkError(lib.streamError(r),
	    'INVALID_HANDLE.SESSION_NOT_FOUND', 'HY000');
});

test('ReleaseExecute on an unknown session fails with ' +
    'INVALID_HANDLE.SESSION_NOT_FOUND', T, async () => {
	const s = new lib.Session(srv);
	lib.assertSparkError(await lib.rejects(s.release(lib.uuid())),
	    'INVALID_HANDLE.SESSION_NOT_FOUND', 'HY000');
});

test('the same session_id under another user_id is another session', T,
    async () => {
	const id = lib.uuid();
	const alice = new lib.Session(srv, { sessionId: id, userId: 'alice' });
	const bob = new lib.Session(srv, { sessionId: id, userId: 'bob' });
	const ra = await alice.config({ get_all: {} });
	const rb = await bob.config({ get_all: {} });
	assert.notEqual(ra.server_side_session_id, rb.server_side_session_id);
	const op = lib.uuid();
	const r = await alice.execute(SMALL, { operationId: op });
	assert.equal(r.status.code, lib.code.OK);
	const other = await bob.reattach(op);
	lib.assertSparkError(lib.streamError(other),
	    'INVALID_HANDLE.OPERATION_NOT_FOUND', 'HY000');
	await alice.release(op);
});

test('after ReleaseSession every request fails with ' +
    'INVALID_HANDLE.SESSION_CLOSED', T, async () => {
	const s = new lib.Session(srv);
	const op = lib.uuid();
	const r = await s.execute(SMALL, { operationId: op });
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	const rel = await s.releaseSession();
	assert.equal(rel.session_id, s.sessionId);
	assert.equal(rel.server_side_session_id, s.serverSideId);
	const closed = (err) => lib.assertSparkError(err,
	    'INVALID_HANDLE.SESSION_CLOSED', 'HY000');
	closed(await lib.rejects(s.config({ get_all: {} })));
	closed(await lib.rejects(s.analyze({ spark_version: {} })));
	closed(await lib.rejects(s.interrupt('ALL')));
	closed(await lib.rejects(s.release(op)));
	closed(lib.streamError(await s.execute(SMALL)));
	closed(lib.streamError(await s.reattach(op)));
});

test('ReleaseSession ends the session\'s running operations', T,
    async () => {
	const s = new lib.Session(srv);
	const long = lib.startOperation(s);
	assert.ok(await long.first);
	await s.releaseSession();
	const done = await long.done;
	assert.ok(!done.timedOut, 'the stream ended');
	const err = lib.streamError(done);
	const cls = /^\[([A-Z_.]+)\]/.exec(err.details);
	assert.ok(cls && ['OPERATION_CANCELED',
	    'INVALID_CURSOR.DISCONNECTED'].includes(cls[1]),
	    `ended with ${lib.statusText(done.status)}`);
	lib.assertSparkError(err, cls[1]);
});

test('ReleaseSession with allow_reconnect lets the session be created ' +
    'again', T, async () => {
	const s = new lib.Session(srv);
	const before = await s.config({ set: { pairs: [
	    { key: 'spark.sctk.conformance.k', value: 'v' }] } });
	const rel = await s.releaseSession(true);
	assert.equal(rel.server_side_session_id, before.server_side_session_id);
	const after = await s.config({ get_option: {
	    keys: ['spark.sctk.conformance.k'] } });
	assert.equal(after.session_id, s.sessionId);
	assert.match(after.server_side_session_id, lib.UUID_RE);
	assert.notEqual(after.server_side_session_id,
	    before.server_side_session_id, 'a new server-side session');
	assert.notEqual(after.pairs[0]._value, 'value',
	    'the new session starts with a fresh conf');
	const r = await s.execute(SMALL);
	assert.deepEqual(lib.countSum(r.responses, 'id'),
	    { count: 10, sum: 45n });
});

test('ReleaseSession of an unknown session succeeds', T, async () => {
	const s = new lib.Session(srv);
	const rel = await s.releaseSession();
	assert.equal(rel.session_id, s.sessionId);
	assert.equal(rel.server_side_session_id, '');
});

test('a wrong client_observed_server_side_session_id fails with ' +
    'INVALID_HANDLE.SESSION_CHANGED', T, async () => {
	const s = new lib.Session(srv);
	const cfg = await s.config({ get_all: {} });
	const wrong = { client_observed_server_side_session_id: lib.uuid() };
	const changed = (err) => lib.assertSparkError(err,
	    'INVALID_HANDLE.SESSION_CHANGED', 'HY000');
	changed(await lib.rejects(s.config({ get_all: {} }, wrong)));
	changed(await lib.rejects(s.analyze({ spark_version: {} }, wrong)));
	changed(lib.streamError(await s.execute(SMALL, { extra: wrong })));
	// The right one is accepted everywhere.
	const right = { client_observed_server_side_session_id:
	    cfg.server_side_session_id };
	await s.config({ get_all: {} }, right);
	await s.analyze({ spark_version: {} }, right);
	const op = lib.uuid();
	const r = await s.execute(SMALL, { operationId: op, extra: right });
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	const re = await s.reattach(op, r.responses[0].response_id,
	    { extra: right });
	assert.equal(re.status.code, lib.code.OK, lib.statusText(re.status));
	changed(lib.streamError(await s.reattach(op,
	    r.responses[0].response_id, { extra: wrong })));
	await s.release(op);
});

test('temporary views are visible in their own session only', T,
    async () => {
	const a = new lib.Session(srv);
	const b = new lib.Session(srv);
	const v = `v_${lib.uuid().replace(/-/g, '').slice(0, 12)}`;
	const c = await a.execute(lib.sqlCommandPlan(
	    `CREATE TEMPORARY VIEW ${v} AS SELECT 42 AS answer`));
	assert.equal(c.status.code, lib.code.OK, lib.statusText(c.status));
	const ra = await a.execute(lib.sqlPlan(`SELECT answer FROM ${v}`));
	assert.equal(ra.status.code, lib.code.OK, lib.statusText(ra.status));
	assert.deepEqual(lib.columnValues(ra.responses, 'answer').map(Number),
	    [42]);
	const rb = await b.execute(lib.sqlPlan(`SELECT answer FROM ${v}`));
	lib.assertSparkError(lib.streamError(rb), 'TABLE_OR_VIEW_NOT_FOUND',
	    '42P01');
});

lib.stopTest(srv);
