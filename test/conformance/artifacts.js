// SPDX-License-Identifier: MIT
//
// artifacts.js: the AddArtifacts half of the conformance client.  It
// uploads as Spark's Scala and Python clients do (one client-streaming
// call; artifacts of at most 32 KiB packed into batches of at most
// 32 KiB; larger ones as BeginChunkedArtifact plus ArtifactChunk
// messages of 32 KiB; a CRC-32 per chunk), sends hand-made request
// sequences for the protocol-error cases, and reads back what the server
// stored (sha256 of each file, every file left under a directory).
//
// As a program, for the bats tests (one JSON line on stdout, exit 0
// unless the script itself failed):
//
//   node artifacts.js upload SERVER SESSION_ID NAME=FILE...
//   node artifacts.js status SERVER SESSION_ID NAME...
//
// SERVER is sc://host:port.

'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const lib = require('./lib');

const CHUNK_SIZE = 32 * 1024;

// CRC-32 (IEEE, as zlib and java.util.zip.CRC32), unsigned.
let crcTable = null;
function crc32(buf) {
	if (typeof zlib.crc32 === 'function')
		return zlib.crc32(buf) >>> 0;
	if (!crcTable) {
		crcTable = new Uint32Array(256);
		for (let n = 0; n < 256; n++) {
			let c = n;
			for (let k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
			crcTable[n] = c >>> 0;
		}
	}
	let c = 0xffffffff;
	for (let i = 0; i < buf.length; i++)
		c = crcTable[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
	return (c ^ 0xffffffff) >>> 0;
}

function sha256(buf) {
	return crypto.createHash('sha256').update(buf).digest('hex');
}

function sha256File(file) {
	const h = crypto.createHash('sha256');
	const fd = fs.openSync(file, 'r');
	const buf = Buffer.alloc(1 << 20);
	try {
		for (;;) {
			const n = fs.readSync(fd, buf, 0, buf.length, null);
			if (n === 0)
				break;
			h.update(buf.subarray(0, n));
		}
	} finally {
		fs.closeSync(fd);
	}
	return h.digest('hex');
}

// Deterministic pseudo-random bytes (so a failure can be reproduced).
function bytes(n, seed = 1) {
	const b = Buffer.alloc(n);
	let x = (seed * 2654435761) >>> 0 || 1;
	for (let i = 0; i < n; i++) {
		x ^= x << 13;
		x >>>= 0;
		x ^= x >>> 17;
		x ^= x << 5;
		x >>>= 0;
		b[i] = x & 0xff;
	}
	return b;
}

// ------------------------------------------------------------ a call

// Open one AddArtifacts call for session; returns { write(req) (a
// promise that waits for flow control), end() (resolves to { resp, err
// }), cancel() }.  Every request gets the session fields, as Spark's
// clients send them on every message.
function openCall(session, { timeoutMs = 60000 } = {}) {
	let done;
	const result = new Promise((resolve) => { done = resolve; });
	const call = session.client.AddArtifacts(session.meta(),
	    { deadline: new Date(Date.now() + timeoutMs) },
	    (err, resp) => {
		if (resp)
			session.remember(resp);
		done({ err, resp });
	    });
	let failed = false;
	call.on('error', () => { failed = true; });
	return {
		call,
		write(payload) {
			if (failed)
				return Promise.resolve(false);
			const req = session.base(payload);
			return new Promise((resolve) => {
				if (call.write(req)) {
					resolve(true);
					return;
				}
				// Flow control, or the server ended the call.
				call.once('drain', () => resolve(true));
				result.then(() => resolve(false));
			});
		},
		end() {
			call.end();
			return result;
		},
		result,
		cancel() {
			call.cancel();
			return result;
		},
	};
}

// The requests Spark's algorithm makes of items (each { name, data:
// Buffer } or { name, file, size }), as a lazy sequence of payloads:
// { batch }, { begin_chunk }, { chunk }.  corrupt(name, index) may
// return true to send a wrong CRC for that chunk (index 0 for a batch
// artifact or a chunked artifact's first chunk).
async function* plan(items, { chunkSize = CHUNK_SIZE, corrupt = null } = {}) {
	let batch = [], batchSize = 0;
	const crcOf = (name, i, data) => {
		const c = crc32(data);
		return String(corrupt && corrupt(name, i) ?
		    (c ^ 0x5a5a5a5a) >>> 0 : c);
	};
	for (const it of items) {
		const size = it.data ? it.data.length : it.size;
		if (size > chunkSize) {
			if (batch.length) {
				yield { batch: { artifacts: batch } };
				batch = [];
				batchSize = 0;
			}
			const n = Math.ceil(size / chunkSize);
			let fd = null;
			const buf = Buffer.alloc(chunkSize);
			const piece = (i) => {
				const len = Math.min(chunkSize,
				    size - i * chunkSize);
				if (it.data)
					return it.data.subarray(i * chunkSize,
					    i * chunkSize + len);
				const got = fs.readSync(fd, buf, 0, len,
				    i * chunkSize);
				if (got !== len)
					throw new Error(`${it.file}: short read`);
				return buf.subarray(0, len);
			};
			if (!it.data)
				fd = fs.openSync(it.file, 'r');
			try {
				let d = piece(0);
				yield { begin_chunk: { name: it.name,
				    total_bytes: String(size),
				    num_chunks: String(n),
				    initial_chunk: { data: Buffer.from(d),
				    crc: crcOf(it.name, 0, d) } } };
				for (let i = 1; i < n; i++) {
					d = piece(i);
					yield { chunk: { data: Buffer.from(d),
					    crc: crcOf(it.name, i, d) } };
				}
			} finally {
				if (fd !== null)
					fs.closeSync(fd);
			}
			continue;
		}
		const data = it.data || fs.readFileSync(it.file);
		if (batchSize + size > chunkSize && batch.length) {
			yield { batch: { artifacts: batch } };
			batch = [];
			batchSize = 0;
		}
		batch.push({ name: it.name,
		    data: { data, crc: crcOf(it.name, 0, data) } });
		batchSize += size;
	}
	if (batch.length)
		yield { batch: { artifacts: batch } };
}

// Upload items on one call with Spark's algorithm.  Resolves to { resp,
// err, requests: the payload kinds sent, in order ('batch:N' with the
// number of artifacts, 'begin', 'chunk') }.
async function addArtifacts(session, items, opts = {}) {
	const c = openCall(session, opts);
	const requests = [];
	for await (const p of plan(items, opts)) {
		requests.push(p.batch ? `batch:${p.batch.artifacts.length}` :
		    p.begin_chunk ? 'begin' : 'chunk');
		if (!await c.write(p))
			break;
	}
	const r = await c.end();
	return { ...r, requests };
}

// Send hand-made payloads (each { batch } | { begin_chunk } | { chunk }
// | {}) on one call and half-close.  Resolves to { resp, err }.
async function sendRaw(session, payloads, opts = {}) {
	const c = openCall(session, opts);
	for (const p of payloads)
		if (!await c.write(p))
			break;
	return c.end();
}

// A chunk payload of data with its right CRC.
function chunkOf(data, crc = undefined) {
	return { data, crc: String(crc === undefined ? crc32(data) : crc) };
}

// ArtifactStatus: resolves to { name: exists }.
async function status(session, names) {
	const resp = await session.unary('ArtifactStatus',
	    session.base({ names }));
	const out = {};
	for (const [k, v] of Object.entries(resp.statuses))
		out[k] = !!(v && v.exists);
	return out;
}

// The server-side session id of session (a Config call makes the server
// create the session if needed).
async function serverSideId(session) {
	if (!session.serverSideId)
		await session.config({ get_all: { prefix: 'spark.app.' } });
	return session.serverSideId;
}

// Every file and directory under dir, relative, sorted; dirs end in '/'.
function tree(dir) {
	const out = [];
	const walk = (d, rel) => {
		let ents;
		try {
			ents = fs.readdirSync(d, { withFileTypes: true });
		} catch (e) {
			if (e.code === 'ENOENT')
				return;
			throw e;
		}
		for (const e of ents) {
			const r = rel ? `${rel}/${e.name}` : e.name;
			if (e.isDirectory()) {
				out.push(`${r}/`);
				walk(path.join(d, e.name), r);
			} else
				out.push(r);
		}
	};
	walk(dir, '');
	return out.sort();
}

// ------------------------------------------------------------ program

function usage() {
	process.stderr.write('usage: artifacts.js upload SERVER SESSION ' +
	    'NAME=FILE...\n       artifacts.js status SERVER SESSION ' +
	    'NAME...\n');
	process.exit(2);
}

function errorJson(err) {
	const d = lib.errorDetails(err);
	return { code: err.code, message: err.details,
	    errorClass: d && d.errorInfo ?
	    d.errorInfo.metadata.errorClass || null : null };
}

async function main(argv) {
	const [cmd, server, sessionId, ...rest] = argv;
	const m = /^sc:\/\/([^/]+)$/.exec(server || '');
	if (!m || !sessionId || rest.length === 0)
		usage();
	const client = new (lib.grpc.loadPackageDefinition(lib.packageDef)
	    .spark.connect.SparkConnectService)(m[1],
	    lib.grpc.credentials.createInsecure(),
	    { 'grpc.max_send_message_length': 128 * 1024 * 1024 });
	const s = new lib.Session(client, { sessionId });
	let out;
	if (cmd === 'upload') {
		const items = rest.map((a) => {
			const eq = a.indexOf('=');
			if (eq < 1)
				usage();
			const file = a.slice(eq + 1);
			return { name: a.slice(0, eq), file,
			    size: fs.statSync(file).size };
		});
		const r = await addArtifacts(s, items);
		out = r.err ? errorJson(r.err) : { code: 0,
		    ssid: r.resp.server_side_session_id,
		    artifacts: r.resp.artifacts.map((a) => ({
			name: a.name, crc: a.is_crc_successful })) };
	} else if (cmd === 'status') {
		try {
			out = { code: 0, statuses: await status(s, rest) };
		} catch (err) {
			out = errorJson(err);
		}
	} else
		usage();
	client.close();
	process.stdout.write(`${JSON.stringify(out)}\n`);
}

if (require.main === module)
	main(process.argv.slice(2)).catch((e) => {
		process.stderr.write(`artifacts.js: ${e.stack || e}\n`);
		process.exit(1);
	});

module.exports = {
	CHUNK_SIZE, crc32, sha256, sha256File, bytes, openCall, plan,
	addArtifacts, sendRaw, chunkOf, status, serverSideId, tree,
};
