// SPDX-License-Identifier: MIT
//
// 18-artifacts: AddArtifacts and ArtifactStatus, uploaded with Spark's
// own algorithm (artifacts.js): size boundaries around the 32 KiB chunk,
// many small files in several batches, batches and chunked artifacts in
// one call, a wrong CRC reported and not stored, every path-safety case,
// duplicates (idempotent, ARTIFACT_ALREADY_EXISTS, classes/ overwritten,
// cache/ replaced), limits, two sessions uploading the same name at
// once, ReleaseSession and expiry removing the files, each protocol
// error leaving nothing behind, ArtifactStatus for cache/ names, and
// ErrorInfo on every error.  Stored bytes are checked by the sha256 of
// the file on disk, in the --artifact-dir the test gives the server.

'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test, after } = require('node:test');

const lib = require('./lib');
const A = require('./artifacts');

const { T } = lib;
const KIB = 1024;
const MIB = 1024 * KIB;

function storeDir(tag) {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), `sctk-art-${tag}-`));
	fs.chmodSync(d, 0o700);
	return d;
}
const DIR = storeDir('main');
const LIMITS = storeDir('limits');
after(() => {
	fs.rmSync(DIR, { recursive: true, force: true });
	fs.rmSync(LIMITS, { recursive: true, force: true });
});

const srv = lib.useServer({ args: ['--artifact-dir', DIR] });
const lim = lib.useServer({
	args: ['--artifact-dir', LIMITS, '--max-artifact-size', '40k',
	    '--session-timeout', '2s'],
	conf: { 'sctk.artifact.maxSessionBytes': '100k',
	    'sctk.artifact.maxSessionFiles': '6',
	    'spark.connect.session.manager.maintenanceInterval': '100ms' },
});

// The files of session s in the store, relative, sorted ('dir/' ends a
// directory).
function stored(dir, ssid) {
	return A.tree(path.join(dir, ssid));
}

function sha(dir, ssid, name) {
	return A.sha256File(path.join(dir, ssid, name));
}

// Assert an AddArtifacts error: gRPC code, errorClass in the message
// and in ErrorInfo, SQLSTATE (or none).
function assertArtifactError(err, code, errorClass, sqlState) {
	assert.ok(err, `expected ${errorClass}, the upload succeeded`);
	assert.equal(err.code, code, `${errorClass}: ${lib.statusText(err)}`);
	const esc = errorClass.replace(/[.]/g, '\\.');
	assert.match(err.details, new RegExp(`^\\[${esc}\\] `));
	if (sqlState)
		assert.ok(err.details.endsWith(` SQLSTATE: ${sqlState}`),
		    err.details);
	else
		assert.doesNotMatch(err.details, /SQLSTATE/);
	const d = lib.errorDetails(err);
	assert.ok(d && d.errorInfo, 'ErrorInfo in grpc-status-details-bin');
	assert.equal(d.status.code, code);
	assert.equal(d.status.message, err.details);
	assert.equal(d.errorInfo.domain, 'org.apache.spark');
	assert.equal(d.errorInfo.metadata.errorClass, errorClass);
	if (sqlState)
		assert.equal(d.errorInfo.metadata.sqlState, sqlState);
	return d;
}

// The session's directory is empty and no staging file is anywhere.
function assertNothingLeft(dir, ssid, what) {
	assert.deepEqual(stored(dir, ssid), [],
	    `${what}: nothing left in the session's directory`);
	assert.deepEqual(A.tree(dir).filter((f) => f.includes('.upload-')),
	    [], `${what}: no staging file in the store`);
}

test('size boundaries, batches and chunks in one call, stored byte for ' +
    'byte', T, async () => {
	const s = new lib.Session(srv);
	const sizes = [0, 1, 32767, 32768, 32769, 5 * MIB + 123];
	const items = sizes.map((n, i) => ({ name: `files/size-${n}.bin`,
	    data: A.bytes(n, i + 1) }));
	const r = await A.addArtifacts(s, items);
	assert.equal(r.err, null, r.err && lib.statusText(r.err));
	// Spark's algorithm: 0, 1 and 32767 in one batch, 32768 alone (the
	// batch is full), 32769 and the large one chunked.
	assert.deepEqual(r.requests.slice(0, 5),
	    ['batch:3', 'batch:1', 'begin', 'chunk', 'begin']);
	assert.equal(r.requests.length,
	    5 + Math.ceil((5 * MIB + 123) / A.CHUNK_SIZE) - 1);
	assert.deepEqual(r.resp.artifacts.map((a) => [a.name,
	    a.is_crc_successful]), items.map((it) => [it.name, true]));
	assert.equal(r.resp.session_id, s.sessionId);
	assert.match(r.resp.server_side_session_id, lib.UUID_RE);
	const ssid = r.resp.server_side_session_id;
	for (const it of items) {
		assert.equal(sha(DIR, ssid, it.name), A.sha256(it.data),
		    `${it.name} on disk`);
		const st = fs.statSync(path.join(DIR, ssid, it.name));
		assert.equal(st.size, it.data.length);
		assert.equal(st.mode & 0o777, 0o600, `${it.name} mode`);
	}
	assert.equal(fs.statSync(path.join(DIR, ssid)).mode & 0o777, 0o700);
	assert.ok(!A.tree(path.join(DIR, ssid)).some(
	    (f) => f.includes('.upload-')), 'no staging file left');
	await s.releaseSession();
});

test('many small files fill several batches', T, async () => {
	const s = new lib.Session(srv);
	const items = [];
	for (let i = 0; i < 300; i++)
		items.push({ name: `pyfiles/m${i}.py`,
		    data: A.bytes(700 + (i % 50), 100 + i) });
	const r = await A.addArtifacts(s, items);
	assert.equal(r.err, null, r.err && lib.statusText(r.err));
	const batches = r.requests.filter((q) => q.startsWith('batch:'));
	assert.equal(batches.length, r.requests.length, 'batches only');
	assert.ok(batches.length >= 7, `${batches.length} batches`);
	assert.equal(batches.reduce((n, b) => n + Number(b.slice(6)), 0),
	    300);
	assert.equal(r.resp.artifacts.length, 300);
	assert.ok(r.resp.artifacts.every((a, i) =>
	    a.name === items[i].name && a.is_crc_successful));
	const ssid = r.resp.server_side_session_id;
	for (const it of items)
		assert.equal(sha(DIR, ssid, it.name), A.sha256(it.data));
	assert.equal(stored(DIR, ssid).length, 301, 'pyfiles/ and 300 files');
	await s.releaseSession();
});

test('a chunk or batch artifact with a wrong CRC is reported and not ' +
    'stored', T, async () => {
	const s = new lib.Session(srv);
	const items = [
		{ name: 'files/good-small.txt', data: A.bytes(100, 1) },
		{ name: 'files/bad-small.txt', data: A.bytes(200, 2) },
		{ name: 'files/bad-chunk.bin', data: A.bytes(100 * KIB, 3) },
		{ name: 'files/good-chunk.bin', data: A.bytes(70 * KIB, 4) },
		{ name: 'files/bad-first.bin', data: A.bytes(40 * KIB, 5) },
	];
	const r = await A.addArtifacts(s, items, {
		corrupt: (name, i) => (name === 'files/bad-small.txt') ||
		    (name === 'files/bad-chunk.bin' && i === 2) ||
		    (name === 'files/bad-first.bin' && i === 0),
	});
	assert.equal(r.err, null, r.err && lib.statusText(r.err));
	assert.deepEqual(r.resp.artifacts.map((a) => [a.name,
	    a.is_crc_successful]), [
		['files/good-small.txt', true],
		['files/bad-small.txt', false],
		['files/bad-chunk.bin', false],
		['files/good-chunk.bin', true],
		['files/bad-first.bin', false],
	]);
	const ssid = r.resp.server_side_session_id;
	assert.deepEqual(stored(DIR, ssid), ['files/',
	    'files/good-chunk.bin', 'files/good-small.txt']);
	assert.equal(sha(DIR, ssid, 'files/good-chunk.bin'),
	    A.sha256(items[3].data));
	// Re-sent with good CRCs, they are stored.
	const again = await A.addArtifacts(s, [items[1], items[2]]);
	assert.equal(again.err, null);
	assert.ok(again.resp.artifacts.every((a) => a.is_crc_successful));
	assert.equal(sha(DIR, ssid, 'files/bad-chunk.bin'),
	    A.sha256(items[2].data));
	await s.releaseSession();
});

test('every unsafe name is refused with INVALID_ARTIFACT_PATH and ' +
    'nothing of the call is stored', T, async () => {
	const bad = [
		['/etc/passwd', 'absolute path'],
		['/files/x', 'absolute path'],
		['files/../../x', "'..' component"],
		['../x', 'must start with jars/'],
		['files/a/../b', "'..' component"],
		['files/..', "'..' component"],
		['files/./a', "'.' component"],
		['', 'the name is empty'],
		['files//a', 'empty path component'],
		['files/a/', 'empty path component'],
		['files/a\\b', 'backslash'],
		['files\\..\\..\\x', 'backslash'],
		['files/a\u0000b', 'a NUL byte'],
		['files/a\u0001b', 'a control character'],
		['files/a\nb', 'a control character'],
		['files/a\u007f', 'a control character'],
		['files/a\u0085', 'a control character'],
		['other/x', 'must start with jars/, pyfiles/, files/, ' +
		    'archives/, classes/ or cache/'],
		['forward_to_fs/tmp/x', 'must start with'],
		['jars/', 'nothing follows the prefix jars/'],
		['archives/a.zip#b#c', "'#' in the path is not supported"],
		[`files/${'a'.repeat(256)}`, 'longer than 255 bytes'],
		[`files/${'d/'.repeat(32)}x`, 'more than 32 path components'],
		[`files/${'abcd/'.repeat(205)}`, 'longer than 1024 bytes'],
	];
	const s = new lib.Session(srv);
	const ssid = await A.serverSideId(s);
	for (const [name, why] of bad) {
		for (const size of [10, 40 * KIB]) {
			const r = await A.addArtifacts(s, [
				{ name: 'files/ok-before.txt',
				    data: A.bytes(5, 1) },
				{ name, data: A.bytes(size, 2) },
			]);
			const d = assertArtifactError(r.err,
			    lib.code.INTERNAL, 'INVALID_ARTIFACT_PATH', null);
			assert.ok(r.err.details.includes(why),
			    `${JSON.stringify(name)}: ${r.err.details}`);
			assert.equal(d.errorInfo.reason,
			    'org.apache.spark.SparkRuntimeException');
			assertNothingLeft(DIR, ssid, JSON.stringify(name));
		}
	}
	// Control bytes never reach the message raw.
	const r = await A.addArtifacts(s, [{ name: 'files/\u001b[2J',
	    data: A.bytes(1) }]);
	assert.ok(r.err.details.includes('files/\\x1b[2J'), r.err.details);
	// The name parameter, as Spark's messageParameters.
	const d = lib.errorDetails(r.err);
	assert.deepEqual(JSON.parse(d.errorInfo.metadata.messageParameters),
	    { name: 'files/\\x1b[2J' });
	await s.releaseSession();
});

test('an archive is stored without its #fragment', T, async () => {
	const s = new lib.Session(srv);
	const data = A.bytes(50, 9);
	const r = await A.addArtifacts(s,
	    [{ name: 'archives/lib.tar.gz#unpacked', data }]);
	assert.equal(r.err, null);
	assert.equal(r.resp.artifacts[0].name, 'archives/lib.tar.gz#unpacked');
	const ssid = r.resp.server_side_session_id;
	assert.deepEqual(stored(DIR, ssid),
	    ['archives/', 'archives/lib.tar.gz']);
	await s.releaseSession();
});

test('duplicates: same bytes accepted, other bytes ARTIFACT_ALREADY_' +
    'EXISTS, classes/ overwritten, cache/ replaced', T, async () => {
	const s = new lib.Session(srv);
	const one = A.bytes(50 * KIB, 1), two = A.bytes(50 * KIB, 2);
	const first = await A.addArtifacts(s, [
		{ name: 'jars/dep.jar', data: one },
		{ name: 'classes/com/x/A.class', data: A.bytes(300, 3) },
		{ name: 'cache/aa', data: A.bytes(10, 4) },
	]);
	assert.equal(first.err, null);
	const ssid = first.resp.server_side_session_id;

	const same = await A.addArtifacts(s, [{ name: 'jars/dep.jar',
	    data: one }]);
	assert.equal(same.err, null, 'the same bytes again are accepted');
	assert.deepEqual(same.resp.artifacts.map((a) => a.is_crc_successful),
	    [true]);

	const diff = await A.addArtifacts(s, [
		{ name: 'files/new-before.txt', data: A.bytes(5, 5) },
		{ name: 'jars/dep.jar', data: two },
		{ name: 'classes/com/x/A.class', data: A.bytes(400, 6) },
		{ name: 'cache/aa', data: A.bytes(20, 7) },
		{ name: 'files/new-after.txt', data: A.bytes(6, 8) },
	]);
	const d = assertArtifactError(diff.err, lib.code.INTERNAL,
	    'ARTIFACT_ALREADY_EXISTS', '42713');
	assert.equal(diff.err.details, '[ARTIFACT_ALREADY_EXISTS] The ' +
	    'artifact `jars/dep.jar` already exists. Please choose a ' +
	    'different name for the new artifact because it cannot be ' +
	    'overwritten. SQLSTATE: 42713');
	assert.deepEqual(JSON.parse(d.errorInfo.metadata.messageParameters),
	    { normalizedRemoteRelativePath: 'jars/dep.jar' });
	assert.equal(sha(DIR, ssid, 'jars/dep.jar'), A.sha256(one),
	    'the stored jar is unchanged');
	assert.equal(sha(DIR, ssid, 'classes/com/x/A.class'),
	    A.sha256(A.bytes(400, 6)), 'classes/ is overwritten');
	assert.equal(sha(DIR, ssid, 'cache/aa'), A.sha256(A.bytes(20, 7)),
	    'cache/ is replaced');
	assert.equal(sha(DIR, ssid, 'files/new-after.txt'),
	    A.sha256(A.bytes(6, 8)), 'as Spark, the others are stored');
	assert.ok(!stored(DIR, ssid).some((f) => f.includes('.upload-')));
	await s.releaseSession();
});

test('two sessions upload the same name at once', T, async () => {
	const s1 = new lib.Session(srv), s2 = new lib.Session(srv);
	const d1 = A.bytes(3 * MIB + 1, 11), d2 = A.bytes(3 * MIB + 2, 12);
	const [r1, r2] = await Promise.all([
		A.addArtifacts(s1, [{ name: 'files/same.bin', data: d1 }]),
		A.addArtifacts(s2, [{ name: 'files/same.bin', data: d2 }]),
	]);
	assert.equal(r1.err, null);
	assert.equal(r2.err, null);
	const a = r1.resp.server_side_session_id;
	const b = r2.resp.server_side_session_id;
	assert.notEqual(a, b);
	assert.equal(sha(DIR, a, 'files/same.bin'), A.sha256(d1));
	assert.equal(sha(DIR, b, 'files/same.bin'), A.sha256(d2));
	// One session, the same name twice at once: one wins, the other
	// is told, and the stored file is one of the two, whole.
	const s3 = new lib.Session(srv);
	const [x, y] = await Promise.all([
		A.addArtifacts(s3, [{ name: 'files/race.bin', data: d1 }]),
		A.addArtifacts(s3, [{ name: 'files/race.bin', data: d2 }]),
	]);
	const errs = [x.err, y.err].filter((e) => e);
	assert.equal(errs.length, 1, 'exactly one of the two fails');
	assertArtifactError(errs[0], lib.code.INTERNAL,
	    'ARTIFACT_ALREADY_EXISTS', '42713');
	const c = await A.serverSideId(s3);
	const got = sha(DIR, c, 'files/race.bin');
	assert.equal(got, A.sha256(x.err ? d2 : d1));
	await Promise.all([s1, s2, s3].map((s) => s.releaseSession()));
});

test('ReleaseSession removes the session\'s artifacts', T, async () => {
	const s = new lib.Session(srv);
	const r = await A.addArtifacts(s, [
		{ name: 'files/a.csv', data: Buffer.from('x,y\n1,2\n') },
		{ name: 'jars/b.jar', data: A.bytes(100 * KIB, 1) },
	]);
	assert.equal(r.err, null);
	const dir = path.join(DIR, r.resp.server_side_session_id);
	assert.ok(fs.existsSync(path.join(dir, 'jars/b.jar')));
	const other = new lib.Session(srv);
	const o = await A.addArtifacts(other, [{ name: 'files/a.csv',
	    data: Buffer.from('other') }]);
	await s.releaseSession();
	assert.equal(fs.existsSync(dir), false, 'the directory is gone');
	assert.equal(sha(DIR, o.resp.server_side_session_id, 'files/a.csv'),
	    A.sha256(Buffer.from('other')), 'another session keeps its own');
	await other.releaseSession();
});

test('ArtifactStatus: only cache/ names stored in this session exist',
    T, async () => {
	const s = new lib.Session(srv), t = new lib.Session(srv);
	const blob = A.bytes(1000, 42);
	const name = `cache/${A.sha256(blob)}`;
	assert.deepEqual(await A.status(s, [name, 'files/x.csv']),
	    { [name]: false, 'files/x.csv': false });
	const r = await A.addArtifacts(s, [{ name, data: blob },
	    { name: 'files/x.csv', data: Buffer.from('1\n') }]);
	assert.equal(r.err, null);
	assert.deepEqual(await A.status(s, [name, 'files/x.csv',
	    'cache/unknown', 'cache/../x']),
	    { [name]: true, 'files/x.csv': false, 'cache/unknown': false,
		'cache/../x': false });
	assert.deepEqual(await A.status(t, [name]), { [name]: false },
	    'another session does not see it');
	await s.releaseSession();
	await t.releaseSession();
});

// ------------------------------------------------ hand-encoded messages

// Protobuf wire bytes made by hand, for encodings no encoder makes.
function varint(v) {
	let n = BigInt.asUintN(64, BigInt(v));
	const out = [];
	do {
		let b = Number(n & 0x7fn);
		n >>= 7n;
		if (n)
			b |= 0x80;
		out.push(b);
	} while (n);
	return Buffer.from(out);
}
const ld = (num, b) => Buffer.concat([varint(num * 8 + 2),
    varint(b.length), Buffer.from(b)]);
const vi = (num, v) => Buffer.concat([varint(num * 8), varint(v)]);
const cat = (...b) => Buffer.concat(b);

test('chunks in any field order, with unknown or repeated fields, are ' +
    'read as a protobuf decoder reads them', T, async () => {
	const s = new lib.Session(srv);
	const ssid = await A.serverSideId(s);
	const d = [];
	for (let i = 0; i < 7; i++)
		d.push(B(1000 + i, 40 + i));
	const crc = (b) => vi(2, A.crc32(b));
	const S = cat(ld(1, s.sessionId), ld(2, ld(1, s.userId)));
	const msgs = [
		cat(S, ld(4, cat(ld(1, 'files/enc.bin'), vi(2, 7021), vi(3, 7),
		    ld(4, cat(ld(1, d[0]), crc(d[0])))))),
		cat(S, ld(5, cat(ld(1, d[1]), crc(d[1])))),
		// crc before data, the chunk before the session fields
		cat(ld(5, cat(crc(d[2]), ld(1, d[2]))), S, ld(6, 'hand')),
		// an unknown field in the chunk
		cat(S, ld(5, cat(ld(1, d[3]), vi(9, 7), crc(d[3])))),
		// data twice: the last one counts
		cat(S, ld(5, cat(ld(1, B(50, 9)), ld(1, d[4]), crc(d[4])))),
		// an unknown top-level field, and the observed server-side id
		cat(S, vi(99, 1), ld(7, ssid), ld(5, cat(ld(1, d[5]),
		    crc(d[5])))),
		// the crc twice: the last one counts
		cat(S, ld(5, cat(vi(2, 1), ld(1, d[6]), crc(d[6])))),
	];
	const r = await new Promise((resolve) => {
		const call = srv.client.makeClientStreamRequest(
		    '/spark.connect.SparkConnectService/AddArtifacts',
		    (x) => x, (x) => x, new lib.grpc.Metadata(),
		    { deadline: new Date(Date.now() + 10000 * lib.SLOW) },
		    (err, resp) => resolve({ err, resp }));
		for (const m of msgs)
			call.write(m);
		call.end();
	});
	assert.equal(r.err, null, r.err && lib.statusText(r.err));
	assert.equal(sha(DIR, ssid, 'files/enc.bin'),
	    A.sha256(Buffer.concat(d)));
	await s.releaseSession();
});

// -------------------------------------------------------- protocol errors

const chunk = (data, crc) => ({ chunk: A.chunkOf(data, crc) });
const begin = (name, total, n, data) => ({ begin_chunk: { name,
    total_bytes: String(total), num_chunks: String(n),
    initial_chunk: A.chunkOf(data) } });
const batch = (name, data) => ({ batch: { artifacts: [{ name,
    data: A.chunkOf(data) }] } });
const B = (n, seed) => A.bytes(n, seed);

const PROTOCOL = [
	['a begin while a chunked artifact is open', 'CHUNKED_ARTIFACT_OPEN',
	    [begin('files/a', 64 * KIB, 2, B(32 * KIB, 1)),
		begin('files/b', 10, 1, B(10, 2))]],
	['a batch while a chunked artifact is open', 'CHUNKED_ARTIFACT_OPEN',
	    [begin('files/a', 64 * KIB, 2, B(32 * KIB, 1)),
		batch('files/b', B(10, 2))]],
	['a chunk with none open', 'NO_CHUNKED_ARTIFACT',
	    [chunk(B(100, 1))]],
	['an excess chunk', 'EXCESS_CHUNKS',
	    [begin('files/a', 40 * KIB, 2, B(32 * KIB, 1)),
		chunk(B(8 * KIB, 2)), chunk(B(1, 3))]],
	['fewer bytes than total_bytes', 'SIZE_MISMATCH',
	    [begin('files/a', 60000, 2, B(32 * KIB, 1)),
		chunk(B(1000, 2))]],
	['more bytes than total_bytes', 'SIZE_MISMATCH',
	    [begin('files/a', 40000, 3, B(32 * KIB, 1)),
		chunk(B(32 * KIB, 2))]],
	['a stream ending mid-artifact', 'UNFINISHED',
	    [begin('files/a', 96 * KIB, 3, B(32 * KIB, 1)),
		chunk(B(32 * KIB, 2))]],
	['num_chunks 0', 'BAD_HEADER', [begin('files/a', 10, 0, B(10, 1))]],
	['a negative total_bytes', 'BAD_HEADER',
	    [begin('files/a', -1, 1, B(0, 1))]],
	['a request without a payload', 'NO_PAYLOAD', [{}]],
];

test('each protocol error is a clear error and leaves no partial file',
    T, async () => {
	const s = new lib.Session(srv);
	const ssid = await A.serverSideId(s);
	for (const [what, sub, payloads] of PROTOCOL) {
		const r = await A.sendRaw(s, [
			batch('files/staged-first.txt', B(77, 7)),
			...payloads,
		]);
		const cls = `INVALID_ARTIFACT_STREAM.${sub}`;
		assertArtifactError(r.err, lib.code.INTERNAL, cls, null);
		assertNothingLeft(DIR, ssid, what);
	}
	// Spark's words where it has them.
	const ex = await A.sendRaw(s, PROTOCOL[3][2]);
	assert.equal(ex.err.details, '[INVALID_ARTIFACT_STREAM.' +
	    'EXCESS_CHUNKS] Excessive data chunks for artifact: files/a, ' +
	    'expected 2 chunks in total. Processed 40960 bytes out of 40960 ' +
	    'bytes.');
	const mi = await A.sendRaw(s, PROTOCOL[4][2]);
	assert.equal(mi.err.details, '[INVALID_ARTIFACT_STREAM.' +
	    'SIZE_MISMATCH] Missing data for artifact: files/a. All 2 ' +
	    'declared chunks arrived, with 33768 of the 60000 declared ' +
	    'bytes.');
	await s.releaseSession();
});

test('a cancelled upload leaves no partial file', T, async () => {
	const s = new lib.Session(srv);
	const ssid = await A.serverSideId(s);
	const c = A.openCall(s);
	await c.write(batch('files/x', B(10, 1)));
	await c.write(begin('files/big', 10 * MIB, 320, B(32 * KIB, 2)));
	await c.write(chunk(B(32 * KIB, 3)));
	// Wait until the server has staged something, then cancel.
	const deadline = Date.now() + 5000 * lib.SLOW;
	while (!A.tree(path.join(DIR, ssid)).some(
	    (f) => f.includes('.upload-')) && Date.now() < deadline)
		await lib.sleep(10);
	const r = await c.cancel();
	assert.equal(r.err.code, lib.code.CANCELLED);
	const gone = Date.now() + 5000 * lib.SLOW;
	while (A.tree(path.join(DIR, ssid)).length > 0 && Date.now() < gone)
		await lib.sleep(20);
	assertNothingLeft(DIR, ssid, 'cancelled');
	await s.releaseSession();
});

// ------------------------------------------------------------- errors

test('a session id that is not a UUID fails with INVALID_HANDLE.FORMAT',
    T, async () => {
	const s = new lib.Session(srv, { sessionId: 'not-a-uuid' });
	const r = await A.addArtifacts(s, [{ name: 'files/x',
	    data: B(3, 1) }]);
	lib.assertSparkError(r.err, 'INVALID_HANDLE.FORMAT', 'HY000');
	assert.deepEqual(A.tree(DIR).filter((f) => f.includes('files')), []);
});

test('a released session cannot upload (SESSION_CLOSED)', T, async () => {
	const s = new lib.Session(srv);
	await A.serverSideId(s);
	await s.releaseSession();
	const r = await A.addArtifacts(s, [{ name: 'files/x',
	    data: B(3, 1) }]);
	lib.assertSparkError(r.err, 'INVALID_HANDLE.SESSION_CLOSED', 'HY000');
});

test('malformed request bytes get INVALID_ARGUMENT with ErrorInfo', T,
    async () => {
	const r = await new Promise((resolve) => {
		const call = srv.client.makeClientStreamRequest(
		    '/spark.connect.SparkConnectService/AddArtifacts',
		    (x) => x, (x) => x, new lib.grpc.Metadata(),
		    { deadline: new Date(Date.now() + 10000) },
		    (err, resp) => resolve({ err, resp }));
		call.write(Buffer.from([0x0a, 0x7f, 0x01]));
		call.end();
	});
	assert.equal(r.err.code, lib.code.INVALID_ARGUMENT,
	    lib.statusText(r.err));
	const d = lib.errorDetails(r.err);
	assert.ok(d && d.errorInfo, 'ErrorInfo present');
	assert.equal(d.errorInfo.metadata.errorClass, 'INVALID_REQUEST');
});

test('an unknown method fails with UNIMPLEMENTED and ErrorInfo', T,
    async () => {
	for (const name of ['NoSuchMethod', 'GetStatus', 'CloneSession']) {
		const { err } = await lib.callUnknownMethod(srv.client, name);
		assert.equal(err.code, lib.code.UNIMPLEMENTED);
		const d = lib.errorDetails(err);
		assert.ok(d && d.errorInfo, `${name}: ErrorInfo present`);
		assert.equal(d.status.code, lib.code.UNIMPLEMENTED);
		assert.equal(d.errorInfo.domain, 'org.apache.spark');
		assert.equal(d.errorInfo.metadata.errorClass,
		    'UNSUPPORTED_FEATURE.RPC');
		assert.equal(d.errorInfo.metadata.sqlState, '0A000');
		assert.equal(d.errorInfo.reason, 'org.apache.spark.' +
		    'SparkUnsupportedOperationException');
	}
});

// -------------------------------------------------------------- limits

test('an artifact over --max-artifact-size is RESOURCE_EXHAUSTED and ' +
    'leaves nothing', T, async () => {
	const s = new lib.Session(lim);
	const ssid = await A.serverSideId(s);
	const r = await A.addArtifacts(s, [
		{ name: 'files/small', data: B(100, 1) },
		{ name: 'files/big', data: B(40 * KIB + 1, 2) },
	]);
	assertArtifactError(r.err, lib.code.RESOURCE_EXHAUSTED,
	    'ARTIFACT_LIMIT_EXCEEDED.SIZE', '54000');
	assert.match(r.err.details, /has 40961 bytes, more than the limit of 40960 bytes per artifact \(sctk\.artifact\.maxSize\)/);
	assertNothingLeft(LIMITS, ssid, 'maxSize');
	const ok = await A.addArtifacts(s, [{ name: 'files/exact',
	    data: B(40 * KIB, 3) }]);
	assert.equal(ok.err, null, 'exactly the limit is accepted');
	await s.releaseSession();
});

test('the session quota of bytes and files is RESOURCE_EXHAUSTED and ' +
    'leaves nothing of the call', T, async () => {
	const s = new lib.Session(lim);
	const first = await A.addArtifacts(s, [
		{ name: 'files/a', data: B(40 * KIB, 1) },
		{ name: 'files/b', data: B(40 * KIB, 2) },
	]);
	assert.equal(first.err, null);
	const ssid = first.resp.server_side_session_id;
	const before = stored(LIMITS, ssid);
	const over = await A.addArtifacts(s, [
		{ name: 'files/c', data: B(10 * KIB, 3) },
		{ name: 'files/d', data: B(11 * KIB, 4) },
	]);
	assertArtifactError(over.err, lib.code.RESOURCE_EXHAUSTED,
	    'ARTIFACT_LIMIT_EXCEEDED.SESSION_BYTES', '54000');
	assert.deepEqual(stored(LIMITS, ssid), before, 'nothing added');
	// The same bytes again fit: a stored name needs no more room.
	const again = await A.addArtifacts(s, [
		{ name: 'files/a', data: B(40 * KIB, 1) }]);
	assert.equal(again.err, null);
	const many = [];
	for (let i = 0; i < 5; i++)
		many.push({ name: `files/n${i}`, data: B(10, i) });
	const files = await A.addArtifacts(s, many);
	assertArtifactError(files.err, lib.code.RESOURCE_EXHAUSTED,
	    'ARTIFACT_LIMIT_EXCEEDED.SESSION_FILES', '54000');
	assert.deepEqual(stored(LIMITS, ssid), before, 'nothing added');
	await s.releaseSession();
});

test('a long upload keeps its session from expiring', T, async () => {
	const s = new lib.Session(lim);
	const c = A.openCall(s);
	const data = B(6 * 1024, 1);
	// 3.5 s in all, longer than --session-timeout 2s, with 700 ms
	// between messages.
	await c.write(begin('files/slow', 6 * 1024 * 6, 6, data));
	for (let i = 1; i < 6; i++) {
		await lib.sleep(700);
		await c.write(chunk(data));
	}
	const r = await c.end();
	assert.equal(r.err, null, r.err && lib.statusText(r.err));
	assert.equal(sha(LIMITS, r.resp.server_side_session_id, 'files/slow'),
	    A.sha256(Buffer.concat([data, data, data, data, data, data])));
	await s.releaseSession();
});

test('an expired session\'s artifacts are removed', T, async () => {
	const s = new lib.Session(lim);
	const r = await A.addArtifacts(s, [{ name: 'files/a',
	    data: B(100, 1) }]);
	assert.equal(r.err, null);
	const dir = path.join(LIMITS, r.resp.server_side_session_id);
	assert.ok(fs.existsSync(dir));
	const deadline = Date.now() + 10000 * lib.SLOW;
	while (fs.existsSync(dir) && Date.now() < deadline)
		await lib.sleep(100);
	assert.equal(fs.existsSync(dir), false,
	    'removed after --session-timeout 2s');
});

lib.stopTest(srv);
lib.stopTest(lim);

test('a clean stop leaves the given directory with no session in it', T,
    () => {
	assert.deepEqual(A.tree(DIR), []);
	assert.deepEqual(A.tree(LIMITS), []);
});
