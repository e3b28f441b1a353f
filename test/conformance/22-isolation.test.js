// SPDX-License-Identifier: MIT
//
// 22-isolation: another session's, or another user's, operation ids,
// tags, session ids and artifacts behave exactly like unknown ones.  For
// every RPC that takes one (ExecutePlan with an operation id,
// ReattachExecute, ReleaseExecute, Interrupt by id, by tag and all,
// ArtifactStatus, AddArtifacts, and the admin service's GetExecution,
// ListExecutions, ListSessions, ListTombstones and Watch filters), the
// answer to a stranger naming the owner's object equals, code, error
// class and message (with the id itself masked), the answer to a random
// id; and the owner's operation and artifact are untouched afterwards.
// Strangers: the same user in another session, another user, and
// another user reusing the owner's session id.

'use strict';

const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');
const protoLoader = require('@grpc/proto-loader');
const lib = require('./lib');
const A = require('./artifacts');

const { grpc, code } = lib;
const TOKEN = 'spark-secret';

const adminDef = protoLoader.loadSync(['sctk/admin/v1/admin.proto'], {
	includeDirs: [path.join(lib.TOP, 'proto')],
	keepCase: true, longs: Number, enums: String, defaults: true,
	oneofs: true,
});
const AdminClient =
    grpc.loadPackageDefinition(adminDef).sctk.admin.v1.AdminService;

const srv = lib.useServer({ args: ['--token', TOKEN] });
const { T } = lib;

function session(user, sessionId) {
	return new lib.Session(srv, { userId: user, sessionId,
	    metadata: { authorization: `Bearer ${TOKEN}` } });
}

// What a call came to, comparable across ids: the gRPC code, the error
// class and the message with every given id replaced by <id>.
function outcome(errOrStatus, ids) {
	if (!errOrStatus || errOrStatus.code === code.OK)
		return { code: code.OK };
	let msg = errOrStatus.details !== undefined ? errOrStatus.details :
	    errOrStatus.message;
	for (const id of ids)
		msg = msg.split(id).join('<id>');
	const d = lib.errorDetails(errOrStatus);
	return {
		code: errOrStatus.code,
		errorClass: d && d.errorInfo ?
		    d.errorInfo.metadata.errorClass : null,
		message: msg,
	};
}

async function unaryOutcome(promise, ids) {
	try {
		return { ...outcome(null, ids), resp: await promise };
	} catch (err) {
		return outcome(err, ids);
	}
}

let admin = null;
function adminCall(method, req) {
	if (!admin)
		admin = new AdminClient(`127.0.0.1:${srv.port}`,
		    grpc.credentials.createInsecure());
	const md = new grpc.Metadata();
	md.set('authorization', `Bearer ${TOKEN}`);
	return new Promise((resolve, reject) => {
		admin[method](req, md,
		    { deadline: new Date(Date.now() + 20000 * lib.SLOW) },
		    (err, resp) => (err ? reject(err) : resolve(resp)));
	});
}

// The first events of a Watch (the snapshot), then cancel.
function watchSnapshot(user, filter) {
	const md = new grpc.Metadata();
	md.set('authorization', `Bearer ${TOKEN}`);
	if (!admin)
		admin = new AdminClient(`127.0.0.1:${srv.port}`,
		    grpc.credentials.createInsecure());
	return new Promise((resolve) => {
		const events = [];
		const call = admin.Watch({ caller: { user_id: user }, filter,
		    initial_snapshot: true }, md);
		const done = (err) => {
			clearTimeout(timer);
			call.cancel();
			resolve({ events, err });
		};
		const timer = setTimeout(() => done(null), 1500);
		call.on('data', (ev) => events.push(ev));
		call.on('error', (err) => {
			if (err.code !== code.CANCELLED)
				done(err);
		});
	});
}

// The owner: alice, a long reattachable operation tagged, an artifact.
const OWNER_ID = lib.uuid();
let owner = null;
const OP = lib.uuid();
const TAG = 'owner-secret-tag';
const SECRET = Buffer.from('the owner\'s artifact\n');
// ArtifactStatus answers for cache/ names only.
const CACHED = `cache/${A.sha256(SECRET)}`;
let ownerOp = null;

// The strangers.
const strangers = {
	'same user, other session': () => session('alice', lib.uuid()),
	'other user': () => session('bob', lib.uuid()),
	'other user, same session id': () => session('eve', OWNER_ID),
};

test('the owner starts an operation and stores an artifact', T,
    async () => {
	owner = session('alice', OWNER_ID);
	ownerOp = lib.startOperation(owner, { operationId: OP,
	    tags: [TAG], stopAfter: 2 });
	assert.ok(await ownerOp.first, 'the owner\'s operation answers');
	const r = await A.addArtifacts(owner,
	    [{ name: 'files/secret.txt', data: SECRET },
		{ name: CACHED, data: SECRET }]);
	assert.equal(r.err, null, r.err && r.err.details);
	assert.deepEqual(await A.status(owner, [CACHED]), { [CACHED]: true });
});

for (const [who, make] of Object.entries(strangers)) {
	test(`${who}: the owner's ids are unknown ids`, T, async () => {
		const s = make();
		const rnd = lib.uuid();
		const ids = [OP, rnd, OWNER_ID, s.sessionId];
		// A session for the stranger first (so both cases meet the
		// same session state).
		await s.config({ get: { keys: ['spark.sql.ansi.enabled'] } })
		    .catch(() => {});

		// ReattachExecute.
		const ra = await s.reattach(OP, undefined, { timeoutMs: 60000 });
		const rb = await s.reattach(rnd, undefined, { timeoutMs: 60000 });
		assert.equal(ra.count, 0, 'no response of the owner\'s');
		assert.deepEqual(outcome(ra.status, ids),
		    outcome(rb.status, ids), 'ReattachExecute');
		assert.notEqual(ra.status.code, code.OK);

		// ReleaseExecute, all and until.
		for (const until of [undefined, lib.uuid()]) {
			const a = await unaryOutcome(s.release(OP, until), ids);
			const b = await unaryOutcome(s.release(rnd, until), ids);
			delete a.resp;
			delete b.resp;
			assert.deepEqual(a, b, `ReleaseExecute ${until}`);
		}

		// Interrupt by id, by tag, all.
		let a = await unaryOutcome(s.interrupt('OPERATION_ID', OP), ids);
		let b = await unaryOutcome(s.interrupt('OPERATION_ID', rnd), ids);
		assert.equal(a.code, code.OK, JSON.stringify(a));
		assert.deepEqual(a.resp.interrupted_ids, []);
		assert.deepEqual(b.resp.interrupted_ids, []);
		a = await unaryOutcome(s.interrupt('TAG', TAG), ids);
		assert.equal(a.code, code.OK, JSON.stringify(a));
		assert.deepEqual(a.resp.interrupted_ids, []);
		a = await unaryOutcome(s.interrupt('ALL'), ids);
		assert.equal(a.code, code.OK, JSON.stringify(a));
		assert.ok(!a.resp.interrupted_ids.includes(OP));

		// ArtifactStatus: the owner's name is not there.
		const fake = `cache/${A.sha256(Buffer.from(rnd))}`;
		assert.deepEqual(await A.status(s, [CACHED, fake]),
		    { [CACHED]: false, [fake]: false });

		// AddArtifacts under the owner's name: the stranger's own,
		// as under a fresh name.
		const mine = Buffer.from(`${who}\n`);
		const x = await A.addArtifacts(s,
		    [{ name: 'files/secret.txt', data: mine }]);
		const y = await A.addArtifacts(s,
		    [{ name: `files/${rnd}.txt`, data: mine }]);
		assert.equal(x.err, null, x.err && x.err.details);
		assert.equal(y.err, null, y.err && y.err.details);

		// ExecutePlan with the owner's operation id: a new operation
		// of the stranger's, as with a random id; never the owner's
		// rows nor OPERATION_ALREADY_EXISTS.
		const ea = await s.executeToCompletion(
		    lib.sqlPlan('SELECT 41 AS x'), { operationId: OP });
		const eb = await s.executeToCompletion(
		    lib.sqlPlan('SELECT 41 AS x'), { operationId: rnd });
		assert.deepEqual(lib.columnValues(ea.responses, 'x').map(Number),
		    [41]);
		assert.deepEqual(lib.columnValues(eb.responses, 'x').map(Number),
		    [41]);
		await s.release(OP).catch(() => {});
		await s.release(rnd).catch(() => {});
	});
}

test('the admin service: another user\'s ids are unknown ids', T,
    async () => {
	const rnd = lib.uuid();
	const ids = [OP, rnd, OWNER_ID];
	const a = await unaryOutcome(adminCall('GetExecution',
	    { caller: { user_id: 'bob' }, operation_id: OP }), ids);
	const b = await unaryOutcome(adminCall('GetExecution',
	    { caller: { user_id: 'bob' }, operation_id: rnd }), ids);
	assert.deepEqual(a, b, 'GetExecution');
	assert.equal(a.code, code.NOT_FOUND);
	// The owner, who names her session, sees it (an operation id alone
	// is no proof of who the caller is).
	const own = await adminCall('ListExecutions',
	    { caller: { user_id: 'alice' }, filter: { session_id: OWNER_ID } });
	assert.deepEqual(own.executions.map((e) => e.operation_id), [OP]);
	await assert.rejects(adminCall('GetExecution',
	    { caller: { user_id: 'alice' }, operation_id: OP }),
	    (err) => err.code === code.NOT_FOUND);

	for (const filter of [{ session_id: OWNER_ID }, { tag: TAG },
	    { user_id: 'alice' }]) {
		const l = await adminCall('ListExecutions',
		    { caller: { user_id: 'bob' }, filter });
		assert.deepEqual(l.executions.map((e) => e.operation_id)
		    .filter((id) => id === OP), [], JSON.stringify(filter));
		const w = await watchSnapshot('bob', filter);
		assert.equal(w.err, null, w.err && w.err.details);
		assert.ok(!JSON.stringify(w.events).includes(OP),
		    `Watch ${JSON.stringify(filter)}`);
	}
	for (const method of ['ListSessions', 'ListTombstones']) {
		const r = await adminCall(method, { caller: { user_id: 'bob' },
		    session_id: OWNER_ID });
		const text = JSON.stringify(r);
		assert.ok(!text.includes('alice'), `${method}: ${text}`);
		const r2 = await adminCall(method, { caller: { user_id: 'bob' },
		    user_id: 'alice' });
		assert.ok(!JSON.stringify(r2).includes('alice'), method);
	}
});

test('the owner\'s operation and artifact are untouched', T, async () => {
	// Still running and reattachable, and it was never interrupted.
	const own = await adminCall('ListExecutions',
	    { caller: { user_id: 'alice' }, filter: { session_id: OWNER_ID } });
	assert.deepEqual(own.executions.map((e) => e.state),
	    ['EXECUTION_STATE_RUNNING']);
	const r = await owner.reattach(OP, undefined,
	    { stopAfter: 1, timeoutMs: 60000 });
	assert.equal(r.count, 1);
	assert.deepEqual(await A.status(owner, [CACHED]), { [CACHED]: true });
	// The strangers' files/secret.txt (other sizes) are theirs.
	const ls = await adminCall('ListSessions', { caller: { user_id: 'alice' },
	    session_id: OWNER_ID });
	assert.equal(ls.sessions.length, 1);
	assert.deepEqual(ls.sessions[0].artifacts
	    .filter((x) => x.name === 'files/secret.txt').map((x) => x.size),
	    [SECRET.length]);
	const ir = await owner.interrupt('OPERATION_ID', OP);
	assert.deepEqual(ir.interrupted_ids, [OP]);
	await owner.release(OP).catch(() => {});
});

lib.stopTest(srv);
