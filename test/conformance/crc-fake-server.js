// SPDX-License-Identifier: MIT
//
// crc-fake-server.js: a fake Spark Connect server for sc-upload's tests
// of what a real server rarely does.  It takes AddArtifacts calls as
// Spark's handler does (batches, BeginChunkedArtifact plus ArtifactChunk
// messages, a CRC-32 check per chunk, one answer listing every artifact
// in order) and keeps nothing, but on request it
//
//   --corrupt NAME:N     answers is_crc_successful=false for artifact NAME
//                        on its first N sends (repeatable), as if the
//                        bytes had been damaged on the way;
//   --unavailable N      ends the first N calls with UNAVAILABLE after
//                        reading them whole, as a server going away would;
//   --stall              never answers AddArtifacts (the client's
//                        deadline must end the call).
//
// Every call is logged to --log FILE as one JSON line:
//   {"call":1,"status":"ok","messages":"B2 B1 C3 +2",
//    "artifacts":[{"name":..,"bytes":..,"chunks":..,"crc_ok":..,
//    "answered_ok":..}]}
// so a test can assert exactly what was sent and re-sent: "messages" is
// the call's requests in order, Bn a batch of n artifacts, Cn a
// BeginChunkedArtifact announcing n chunks, +n that many ArtifactChunk
// messages in a row.  ArtifactStatus
// answers "missing" for every name.  The bound address (sc://127.0.0.1:
// PORT) goes to --ready-file once listening.  It stops on SIGTERM or
// SIGINT, and by itself after --lifetime seconds (default 120), so it
// never outlives a test.
//
//   node crc-fake-server.js --ready-file F --log F [--corrupt NAME:N]...
//       [--unavailable N] [--stall] [--lifetime SECS]

'use strict';

const fs = require('node:fs');

const lib = require('./lib');
const { crc32 } = require('./artifacts');

const { grpc } = lib;

function usage(msg) {
	process.stderr.write(`crc-fake-server: ${msg}\n`);
	process.exit(2);
}

function parseArgs(argv) {
	const o = { corrupt: new Map(), unavailable: 0, lifetime: 120 };
	for (let i = 0; i < argv.length; i++) {
		const v = argv[i + 1];
		switch (argv[i]) {
		case '--ready-file': o.ready = v; i++; break;
		case '--log': o.log = v; i++; break;
		case '--corrupt': {
			const k = v ? v.lastIndexOf(':') : -1;
			if (k <= 0)
				usage(`bad --corrupt '${v}'`);
			o.corrupt.set(v.slice(0, k), Number(v.slice(k + 1)));
			i++;
			break;
		}
		case '--unavailable': o.unavailable = Number(v); i++; break;
		case '--stall': o.stall = true; break;
		case '--lifetime': o.lifetime = Number(v); i++; break;
		default: usage(`unknown argument '${argv[i]}'`);
		}
	}
	if (!o.ready || !o.log)
		usage('--ready-file and --log are required');
	return o;
}

const opts = parseArgs(process.argv.slice(2));
const SSID = lib.uuid();
let calls = 0;

function log(entry) {
	fs.appendFileSync(opts.log, JSON.stringify(entry) + '\n');
}

function addArtifacts(call, callback) {
	const n = ++calls;
	const arts = [];
	const msgs = [];
	let open = null; // the chunked artifact receiving chunks
	let sessionId = '';
	let failed = null;

	const take = (a, chunk) => {
		const data = chunk.data || Buffer.alloc(0);
		if (crc32(data) !== Number(chunk.crc))
			a.crc_ok = false;
		a.bytes += data.length;
		a.chunks++;
	};
	call.on('data', (req) => {
		if (failed)
			return;
		sessionId = sessionId || req.session_id;
		switch (req.payload) {
		case 'batch':
			msgs.push(`B${req.batch.artifacts.length}`);
			if (open)
				failed = 'a batch while a chunked artifact is open';
			for (const s of req.batch.artifacts) {
				const a = { name: s.name, bytes: 0, chunks: 0,
					crc_ok: true };
				take(a, s.data);
				arts.push(a);
			}
			break;
		case 'begin_chunk': {
			if (open)
				failed = 'a begin while a chunked artifact is open';
			const b = req.begin_chunk;
			msgs.push(`C${Number(b.num_chunks)}`);
			const a = { name: b.name, bytes: 0, chunks: 0,
				crc_ok: true, total: Number(b.total_bytes),
				num: Number(b.num_chunks) };
			take(a, b.initial_chunk);
			arts.push(a);
			open = a.chunks < a.num ? a : null;
			break;
		}
		case 'chunk': {
			const last = msgs.length - 1;
			if (last >= 0 && msgs[last][0] === '+')
				msgs[last] = `+${Number(msgs[last].slice(1)) + 1}`;
			else
				msgs.push('+1');
			if (!open) {
				failed = 'a chunk with no chunked artifact open';
				break;
			}
			take(open, req.chunk);
			if (open.chunks === open.num) {
				if (open.bytes !== open.total)
					failed = `${open.name}: ${open.bytes} ` +
					    `bytes, total_bytes ${open.total}`;
				open = null;
			}
			break;
		}
		default:
			failed = 'a request without payload';
		}
	});
	call.on('end', () => {
		if (opts.stall)
			return;
		if (!failed && open)
			failed = `the stream ended inside ${open.name}`;
		const summary = arts.map((a) => {
			let ok = a.crc_ok;
			const left = opts.corrupt.get(a.name) || 0;
			if (left > 0) {
				opts.corrupt.set(a.name, left - 1);
				ok = false;
			}
			return { name: a.name, bytes: a.bytes, chunks: a.chunks,
				crc_ok: a.crc_ok, answered_ok: ok };
		});
		if (failed) {
			log({ call: n, status: 'error', error: failed,
				messages: msgs.join(' '), artifacts: summary });
			callback({ code: grpc.status.INTERNAL, details: failed });
			return;
		}
		if (n <= opts.unavailable) {
			log({ call: n, status: 'unavailable',
				messages: msgs.join(' '), artifacts: summary });
			callback({ code: grpc.status.UNAVAILABLE,
				details: 'fake server going away' });
			return;
		}
		log({ call: n, status: 'ok', messages: msgs.join(' '),
			artifacts: summary });
		callback(null, {
			session_id: sessionId,
			server_side_session_id: SSID,
			artifacts: summary.map((a) => ({ name: a.name,
				is_crc_successful: a.answered_ok })),
		});
	});
	call.on('error', () => {});
}

function artifactStatus(call, callback) {
	const statuses = {};
	for (const name of call.request.names)
		statuses[name] = { exists: false };
	callback(null, { session_id: call.request.session_id,
		server_side_session_id: SSID, statuses });
}

const loaded = grpc.loadPackageDefinition(lib.packageDef);
const server = new grpc.Server();
server.addService(loaded.spark.connect.SparkConnectService.service, {
	AddArtifacts: addArtifacts,
	ArtifactStatus: artifactStatus,
});

function stop() {
	server.tryShutdown(() => process.exit(0));
	setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
setTimeout(stop, opts.lifetime * 1000).unref();

server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(),
    (err, port) => {
	if (err) {
		process.stderr.write(`crc-fake-server: ${err.message}\n`);
		process.exit(1);
	}
	fs.writeFileSync(opts.ready + '.tmp', `sc://127.0.0.1:${port}\n`);
	fs.renameSync(opts.ready + '.tmp', opts.ready);
});
