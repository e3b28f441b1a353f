// SPDX-License-Identifier: MIT
//
// 51-bad-utf8: ids a client makes up are checked at the door.  A user id
// or tag that is not valid UTF-8 (raw bytes on the wire) or holds a
// control character is INVALID_ARGUMENT [INVALID_HANDLE.FORMAT] before
// any session is made, so the admin service's proto3 string fields stay
// decodable (a strict decoder fails on the whole ListSessions answer
// otherwise).  A malformed session id on ReleaseSession and a malformed
// operation id on ReleaseExecute and ReattachExecute are
// INVALID_HANDLE.FORMAT too, as Spark answers.  Artifact names that
// clash with a directory say so.

'use strict';

const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');
const protoLoader = require('@grpc/proto-loader');
const lib = require('./lib');
const A = require('./artifacts');

const { grpc, code } = lib;
const SERVICE = 'spark.connect.SparkConnectService';
const T = { timeout: 30000 * lib.SLOW };
const BAD = Buffer.from([0x62, 0x61, 0x64, 0xff, 0xfe, 0xc0, 0x80]); // bad...
const HOLE = 'badHOLE'; // as many bytes as BAD

const srv = lib.useServer();

const adminDef = protoLoader.loadSync(['sctk/admin/v1/admin.proto'], {
	includeDirs: [path.join(lib.TOP, 'proto')],
	keepCase: true, longs: Number, enums: String, defaults: true,
});

// The request bytes of method for obj, with HOLE replaced by BAD.
function encode(method, obj) {
	const buf = lib.packageDef[SERVICE][method].requestSerialize(obj);
	const at = buf.indexOf(HOLE);
	assert.ok(at >= 0, 'the placeholder is in the request');
	BAD.copy(buf, at);
	return buf;
}

function unaryRaw(client, full, bytes) {
	return new Promise((resolve) => {
		client.makeUnaryRequest(full, (x) => x, (x) => x, bytes,
		    new grpc.Metadata(),
		    { deadline: new Date(Date.now() + 10000 * lib.SLOW) },
		    (err, resp) => resolve({ err, resp }));
	});
}

function streamRaw(method, bytes) {
	return new Promise((resolve) => {
		const call = srv.client.makeServerStreamRequest(
		    `/${SERVICE}/${method}`, (x) => x, (x) => x, bytes,
		    new grpc.Metadata(),
		    { deadline: new Date(Date.now() + 10000 * lib.SLOW) });
		let n = 0;
		call.on('data', () => n++);
		call.on('error', (err) => resolve({ err, n }));
		call.on('end', () => resolve({ err: null, n }));
	});
}

// INVALID_ARGUMENT, class INVALID_HANDLE.FORMAT, and this message.
function assertBadId(err, message) {
	assert.ok(err, 'refused');
	assert.equal(err.code, code.INVALID_ARGUMENT, lib.statusText(err));
	assert.equal(err.details, message);
	const d = lib.errorDetails(err);
	assert.equal(d.errorInfo.metadata.errorClass, 'INVALID_HANDLE.FORMAT');
}

// ListSessions as raw bytes (a loopback caller of a server without a
// token sees everything).
async function listSessionsRaw() {
	const c = new grpc.Client(`127.0.0.1:${srv.port}`,
	    grpc.credentials.createInsecure());
	const { err, resp } = await unaryRaw(c,
	    '/sctk.admin.v1.AdminService/ListSessions', Buffer.alloc(0));
	c.close();
	assert.equal(err, null);
	return resp;
}

// The user ids of the sessions; the raw answer must not hold the bytes
// (a strict decoder, as Python's, Java's and Go's, fails on them).
function sessionUsers(raw) {
	const t = adminDef['sctk.admin.v1.AdminService'].ListSessions;
	assert.equal(raw.indexOf(BAD.subarray(3)), -1, 'no invalid bytes');
	return t.responseDeserialize(raw).sessions.map((s) => s.user_id);
}

test('ExecutePlan with a user id of invalid UTF-8: INVALID_ARGUMENT, no session', T,
    async () => {
	const s = new lib.Session(srv, { userId: HOLE });
	const bytes = encode('ExecutePlan',
	    s.executeRequest(lib.sqlPlan('SELECT 1')));
	const { err, n } = await streamRaw('ExecutePlan', bytes);
	assert.equal(n, 0);
	assertBadId(err, '[INVALID_HANDLE.FORMAT] The handle `bad\\xff\\xfe' +
	    '\\xc0\\x80` is invalid. A user id must be valid UTF-8 without ' +
	    'control characters. SQLSTATE: HY000');
	const users = sessionUsers(await listSessionsRaw());
	assert.ok(!users.some((u) => u.startsWith('bad')), users.join(','));
});

test('Config and AnalyzePlan with such a user id: the same', T, async () => {
	const s = new lib.Session(srv, { userId: HOLE });
	for (const [method, extra] of [
		['Config', { operation: { get_all: {} } }],
		['AnalyzePlan', { spark_version: {} }],
		['ReleaseSession', {}],
		['Interrupt', { interrupt_type: 'INTERRUPT_TYPE_ALL' }]]) {
		const { err } = await unaryRaw(srv.client,
		    `/${SERVICE}/${method}`, encode(method, s.base(extra)));
		assert.ok(err, method);
		assert.equal(err.code, code.INVALID_ARGUMENT, method);
		assert.match(err.details, /^\[INVALID_HANDLE\.FORMAT\] The handle `bad\\xff\\xfe\\xc0\\x80` is invalid\. A user id /, method);
	}
	assert.deepEqual(sessionUsers(await listSessionsRaw())
	    .filter((u) => u.startsWith('bad')), []);
});

test('control characters in a user id or a tag, invalid UTF-8 in a tag', T,
    async () => {
	let s = new lib.Session(srv, { userId: 'eve\u0007' });
	let r = await s.execute(lib.sqlPlan('SELECT 1'));
	assertBadId(lib.streamError(r), '[INVALID_HANDLE.FORMAT] The handle ' +
	    '`eve\\x07` is invalid. A user id must be valid UTF-8 without ' +
	    'control characters. SQLSTATE: HY000');
	s = new lib.Session(srv, { userId: 'eve\u0085' }); // C1 NEL
	r = await s.execute(lib.sqlPlan('SELECT 1'));
	assert.equal(lib.streamError(r).code, code.INVALID_ARGUMENT);
	s = new lib.Session(srv, { userId: 'tagger' });
	r = await s.execute(lib.sqlPlan('SELECT 1'), { tags: ['ok', 'a\nb'] });
	assertBadId(lib.streamError(r), '[INVALID_HANDLE.FORMAT] The handle ' +
	    '`a\\x0ab` is invalid. A tag must be valid UTF-8 without control ' +
	    'characters. SQLSTATE: HY000');
	const bytes = encode('ExecutePlan',
	    s.executeRequest(lib.sqlPlan('SELECT 1'), { tags: [HOLE] }));
	const raw = await streamRaw('ExecutePlan', bytes);
	assertBadId(raw.err, '[INVALID_HANDLE.FORMAT] The handle `bad\\xff' +
	    '\\xfe\\xc0\\x80` is invalid. A tag must be valid UTF-8 without ' +
	    'control characters. SQLSTATE: HY000');
	// Nothing of it was made: tagger has no session.
	assert.deepEqual(sessionUsers(await listSessionsRaw())
	    .filter((u) => u === 'tagger'), []);
	// Unicode beyond ASCII is fine.
	s = new lib.Session(srv, { userId: 'zoë-日本' });
	r = await s.execute(lib.sqlPlan('SELECT 1 AS x'), { tags: ['ß'] });
	assert.equal(r.status.code, code.OK, lib.statusText(r.status));
	assert.ok(sessionUsers(await listSessionsRaw()).includes('zoë-日本'));
	await s.releaseSession();
});

test('ReleaseSession with an empty or malformed session id: INVALID_HANDLE.FORMAT', T,
    async () => {
	for (const id of ['', 'not-a-uuid']) {
		const s = new lib.Session(srv, { sessionId: id });
		const err = await lib.rejects(s.releaseSession());
		lib.assertSparkError(err, 'INVALID_HANDLE.FORMAT', 'HY000');
		assert.equal(err.details, `[INVALID_HANDLE.FORMAT] The handle ` +
		    `\`${id}\` is invalid. Handle must be an UUID string of ` +
		    `the format '00112233-4455-6677-8899-aabbccddeeff' ` +
		    'SQLSTATE: HY000');
	}
	// A well-formed id of no session is still fine, as in Spark.
	const s = new lib.Session(srv);
	await s.releaseSession();
});

test('ReleaseExecute and ReattachExecute with a malformed operation id: INVALID_HANDLE.FORMAT', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(lib.sqlPlan('SELECT 1'));
	assert.equal(r.status.code, code.OK);
	const msg = '[INVALID_HANDLE.FORMAT] The handle `not-a-uuid` is ' +
	    'invalid. Handle must be an UUID string of the format ' +
	    '\'00112233-4455-6677-8899-aabbccddeeff\' SQLSTATE: HY000';
	const err = await lib.rejects(s.release('not-a-uuid'));
	lib.assertSparkError(err, 'INVALID_HANDLE.FORMAT', 'HY000');
	assert.equal(err.details, msg);
	const ra = await s.reattach('not-a-uuid');
	const e2 = lib.streamError(ra);
	lib.assertSparkError(e2, 'INVALID_HANDLE.FORMAT', 'HY000');
	assert.equal(e2.details, msg);
	// An unknown but well-formed id stays as before.
	await s.release(lib.uuid());
	await s.releaseSession();
});

test('an artifact name that is a directory of other artifacts says so', T,
    async () => {
	const s = new lib.Session(srv);
	let r = await A.addArtifacts(s,
	    [{ name: 'files/d/e', data: Buffer.from('e') }]);
	assert.equal(r.err, null);
	r = await A.addArtifacts(s, [{ name: 'files/d', data: Buffer.from('d') }]);
	lib.assertSparkError(r.err, 'ARTIFACT_ALREADY_EXISTS', '42713');
	assert.equal(r.err.details, '[ARTIFACT_ALREADY_EXISTS] The artifact ' +
	    '`files/d` cannot be stored: a directory of that name holds ' +
	    'other artifacts of this session (`files/d/...`). Please choose ' +
	    'a different name for the new artifact. SQLSTATE: 42713');
	// cache/ names are replaced, but not by a directory's name.
	r = await A.addArtifacts(s,
	    [{ name: 'cache/q/r', data: Buffer.from('r') }]);
	assert.equal(r.err, null);
	r = await A.addArtifacts(s, [{ name: 'cache/q', data: Buffer.from('q') }]);
	assert.match(r.err.details, /^\[ARTIFACT_ALREADY_EXISTS\] The artifact `cache\/q` cannot be stored: a directory of that name /);
	// The other way round: a file where a directory is needed.
	r = await A.addArtifacts(s, [{ name: 'files/f', data: Buffer.from('f') }]);
	assert.equal(r.err, null);
	r = await A.addArtifacts(s,
	    [{ name: 'files/f/g', data: Buffer.from('g') }]);
	assert.ok(r.err);
	assert.match(r.err.details, /^\[INVALID_ARTIFACT_PATH\] .*'files\/f' is a stored artifact, not a directory/);
	await s.releaseSession();
});

lib.stopTest(srv);
