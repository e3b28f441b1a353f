// SPDX-License-Identifier: MIT
//
// lib.js: the shared half of the conformance suite, an independent Spark
// Connect client (grpc-js, apache-arrow) that checks sc-serve against
// the protocol.  It starts a private sc-serve per test file, speaks every
// RPC with plain objects built from our proto/ files, collects response
// streams, decodes Arrow batches and Spark error details, and asserts
// Spark-style errors.  See README in this directory.

'use strict';

const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test, before, after } = require('node:test');

const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const arrow = require('apache-arrow');
// protobufjs is proto-loader's own dependency; take the copy it uses.
const protobuf = require(require.resolve('protobufjs',
    { paths: [path.dirname(require.resolve('@grpc/proto-loader'))] }));

const TOP = path.resolve(__dirname, '..', '..');
const BUILD = process.env.SCTK_BUILD || path.join(TOP, 'build');
const PROTO_DIR = path.join(TOP, 'proto');
const INCLUDE_DIRS = [PROTO_DIR, '/usr/include'];
const SANITIZE = !!process.env.SCTK_SANITIZE;
// Sanitizer builds run several times slower.
const SLOW = SANITIZE ? 6 : 1;

const SERVICE = 'spark.connect.SparkConnectService';
const PROTO_FILES = [
	'spark/connect/base.proto',
	'google/rpc/status.proto',
	'google/rpc/error_details.proto',
];
const LOADER_OPTS = {
	includeDirs: INCLUDE_DIRS,
	keepCase: true,
	longs: String,
	enums: String,
	defaults: true,
	oneofs: true,
};

const packageDef = protoLoader.loadSync(PROTO_FILES, LOADER_OPTS);
const loaded = grpc.loadPackageDefinition(packageDef);
const ServiceClient = loaded.spark.connect.SparkConnectService;

// The same .proto files through protobufjs, for the messages that do not
// travel as RPC payloads (google.rpc.Status, ErrorInfo).
const pbRoot = new protobuf.Root();
pbRoot.resolvePath = (origin, target) => {
	for (const dir of INCLUDE_DIRS) {
		const p = path.join(dir, target);
		if (fs.existsSync(p))
			return p;
	}
	return protobuf.util.path.resolve(origin, target);
};
pbRoot.loadSync(PROTO_FILES, { keepCase: true });
pbRoot.resolveAll();
const StatusType = pbRoot.lookupType('google.rpc.Status');
const ErrorInfoType = pbRoot.lookupType('google.rpc.ErrorInfo');
const RetryInfoType = pbRoot.lookupType('google.rpc.RetryInfo');
const TO_OBJECT = { longs: String, enums: String, defaults: true,
    oneofs: true };

const code = grpc.status;
const UUID_RE =
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function uuid() {
	return crypto.randomUUID();
}

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

// A promise with its resolve function exposed.
function deferred() {
	let resolve;
	const promise = new Promise((r) => { resolve = r; });
	return { promise, resolve };
}

// ----------------------------------------------------------- the server

// Start a private sc-serve on 127.0.0.1 port 0.  conf: { key: value }
// passed as --conf key=value; args: further options.  Resolves to
// { proc, port, url, dir, client, logText(), stop() } once the ready file
// names the address (bounded wait); rejects with the log otherwise.
async function startServer({ conf = {}, args = [] } = {}) {
	const bin = path.join(BUILD, 'bin', 'sc-serve');
	if (!fs.existsSync(bin))
		throw new Error(`${bin} does not exist (set SCTK_BUILD?)`);
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sctk-conf-'));
	const ready = path.join(dir, 'ready');
	const logPath = path.join(dir, 'server.log');
	const argv = ['--listen', '127.0.0.1:0', '--ready-file', ready];
	for (const [k, v] of Object.entries(conf))
		argv.push('--conf', `${k}=${v}`);
	argv.push(...args);
	const env = { ...process.env };
	delete env.SPARK_CONNECT_AUTHENTICATE_TOKEN;
	delete env.SPARK_REMOTE;
	if (!env.GRPC_VERBOSITY)
		env.GRPC_VERBOSITY = 'NONE';
	if (SANITIZE) {
		env.ASAN_OPTIONS = `log_path=${dir}/asan:` +
		    (env.ASAN_OPTIONS || '');
		env.UBSAN_OPTIONS = `log_path=${dir}/ubsan:` +
		    (env.UBSAN_OPTIONS || '');
	}
	const logFd = fs.openSync(logPath, 'w');
	const proc = spawn(bin, argv, { stdio: ['ignore', logFd, logFd], env });
	fs.closeSync(logFd);
	const exited = new Promise((resolve) => {
		proc.on('exit',
		    (status, signal) => resolve({ status, signal }));
	});
	let exitInfo = null;
	// Never leave a server behind if this process dies early.
	const reap = () => {
		if (!exitInfo)
			proc.kill('SIGKILL');
	};
	process.on('exit', reap);
	exited.then((e) => {
		exitInfo = e;
		process.removeListener('exit', reap);
	});
	const logText = () => {
		try {
			return fs.readFileSync(logPath, 'utf8');
		} catch (e) {
			return '';
		}
	};

	const deadline = Date.now() + 60000 * SLOW;
	let port = 0, url = '';
	for (;;) {
		let text = '';
		try {
			text = fs.readFileSync(ready, 'utf8');
		} catch (e) {
			text = '';
		}
		const m = /^sc:\/\/127\.0\.0\.1:(\d+)\s*$/.exec(text);
		if (m) {
			port = Number(m[1]);
			url = text.trim();
			break;
		}
		if (exitInfo)
			throw new Error(`sc-serve ${argv.join(' ')} ` +
			    'exited early ' +
			    `(${JSON.stringify(exitInfo)}):\n${logText()}`);
		if (Date.now() > deadline) {
			proc.kill('SIGKILL');
			throw new Error('sc-serve did not become ready; ' +
			    'ready ' +
			    `file ${JSON.stringify(text)}:\n${logText()}`);
		}
		await sleep(25);
	}
	assert.ok(port > 0 && port < 65536, `port ${port}`);

	const client = newClient(port);
	let stopped = null;
	const stop = async () => {
		if (stopped)
			return stopped;
		client.close();
		if (!exitInfo)
			proc.kill('SIGTERM');
		let timer = null;
		const timeout = new Promise((resolve) => {
			timer = setTimeout(() => resolve(null), 25000);
		});
		let e = await Promise.race([exited, timeout]);
		clearTimeout(timer);
		if (e === null) {
			proc.kill('SIGKILL');
			e = await exited;
			e.killed = true;
		}
		stopped = e;
		return e;
	};
	return { proc, port, url, dir, client, logText, stop, argv,
	    sanitizerReports: () => fs.readdirSync(dir).filter(
	    (f) => /^(asan|ubsan)\./.test(f)) };
}

function newClient(port, options = {}) {
	return new ServiceClient(`127.0.0.1:${port}`,
	    grpc.credentials.createInsecure(), {
		'grpc.max_receive_message_length': 128 * 1024 * 1024,
		'grpc.max_send_message_length': 128 * 1024 * 1024,
		...options,
	    });
}

// One server for the whole test file: before() starts it, and the file's
// last test stops it (stopTest()).  Returns an object whose fields are
// filled by before(): srv.client, srv.port, ... (see startServer()).
function useServer(opts = {}) {
	const srv = {};
	before(async () => {
		Object.assign(srv, await startServer(opts));
	}, { timeout: 90000 * SLOW });
	after(async () => {
		// Only a safety net: stopTest() checks the exit status.
		if (srv.stop)
			await srv.stop();
	});
	return srv;
}

// The file's last top-level test: SIGTERM makes sc-serve exit 0.
function stopTest(srv) {
	test('sc-serve exits with status 0 on SIGTERM', { timeout: 30000 },
	    async () => {
		const e = await srv.stop();
		assert.equal(e.killed, undefined,
		    'sc-serve did not stop on SIGTERM:\n' +
		    tail(srv.logText()));
		assert.deepEqual({ status: e.status, signal: e.signal },
		    { status: 0, signal: null },
		    `sc-serve exit:\n${tail(srv.logText())}`);
		if (SANITIZE)
			assert.deepEqual(srv.sanitizerReports(), []);
		// A clean run leaves nothing behind (a failed one keeps the
		// log for a look).
		fs.rmSync(srv.dir, { recursive: true, force: true });
	});
}

function tail(text, n = 30) {
	return text.split('\n').slice(-n).join('\n');
}

// ----------------------------------------------------------- sessions

// A client session: a session id (UUID unless given), a user id, and the
// server-side session id observed so far (sent back when observe is set).
class Session {
	constructor(srvOrClient, { sessionId, userId = 'conformance',
	    metadata = null, observe = false } = {}) {
		this.client = srvOrClient.client || srvOrClient;
		this.sessionId = sessionId === undefined ? uuid() : sessionId;
		this.userId = userId;
		this.metadata = metadata;
		this.observe = observe;
		this.serverSideId = null;
	}

	base(extra = {}) {
		const r = {
			session_id: this.sessionId,
			user_context: { user_id: this.userId, user_name: '' },
			client_type: 'sctk-conformance',
		};
		return Object.assign(r, extra);
	}

	meta() {
		const md = new grpc.Metadata();
		if (this.metadata)
			for (const [k, v] of Object.entries(this.metadata))
				md.set(k, v);
		return md;
	}

	remember(resp) {
		if (resp && resp.server_side_session_id && !this.serverSideId)
			this.serverSideId = resp.server_side_session_id;
	}

	observed(req, field) {
		if (this.observe && this.serverSideId)
			req[field] = this.serverSideId;
		return req;
	}

	// Unary RPC: resolves to the response, rejects with the grpc error.
	unary(method, req, { timeoutMs = 10000 } = {}) {
		return new Promise((resolve, reject) => {
			const deadline = new Date(Date.now() + timeoutMs);
			this.client[method](req, this.meta(), { deadline },
			    (err, resp) => {
				if (err) {
					reject(err);
					return;
				}
				this.remember(resp);
				resolve(resp);
			});
		});
	}

	// ExecutePlan request for plan (options: operationId, reattachable,
	// tags, extra fields).
	executeRequest(plan, { operationId, reattachable = true, tags = [],
	    extra = {} } = {}) {
		const req = this.base({ plan, tags });
		if (operationId !== undefined)
			req.operation_id = operationId;
		if (reattachable)
			req.request_options = [{
				reattach_options: { reattachable: true } }];
		this.observed(req, 'client_observed_server_side_session_id');
		return Object.assign(req, extra);
	}

	// Start ExecutePlan; returns the grpc stream (see collect()).
	startExecute(plan, opts = {}) {
		return this.client.ExecutePlan(this.executeRequest(plan, opts),
		    this.meta());
	}

	// ExecutePlan to the end: { responses, status, error, ... }.
	execute(plan, opts = {}) {
		return collect(this.startExecute(plan, opts), opts, this);
	}

	reattachRequest(operationId, lastResponseId, extra = {}) {
		const req = this.base({ operation_id: operationId });
		if (lastResponseId !== undefined && lastResponseId !== null)
			req.last_response_id = lastResponseId;
		this.observed(req, 'client_observed_server_side_session_id');
		return Object.assign(req, extra);
	}

	startReattach(operationId, lastResponseId, extra = {}) {
		return this.client.ReattachExecute(
		    this.reattachRequest(operationId, lastResponseId, extra),
		    this.meta());
	}

	reattach(operationId, lastResponseId, opts = {}) {
		return collect(this.startReattach(operationId, lastResponseId,
		    opts.extra), opts, this);
	}

	// ReleaseExecute: until = a response id, or undefined for release_all.
	release(operationId, until, extra = {}) {
		const req = this.base({ operation_id: operationId });
		if (until === undefined)
			req.release_all = {};
		else if (until !== null)
			req.release_until = { response_id: until };
		return this.unary('ReleaseExecute', Object.assign(req, extra));
	}

	// Interrupt: type 'ALL' | 'TAG' | 'OPERATION_ID' | 'UNSPECIFIED'.
	interrupt(type, arg) {
		const req = this.base({
			interrupt_type: `INTERRUPT_TYPE_${type}` });
		if (type === 'TAG' && arg !== undefined)
			req.operation_tag = arg;
		if (type === 'OPERATION_ID' && arg !== undefined)
			req.operation_id = arg;
		this.observed(req, 'client_observed_server_side_session_id');
		return this.unary('Interrupt', req);
	}

	// Config: op is one ConfigRequest.Operation member, e.g.
	// { get: { keys: ['a'] } }.
	config(op, extra = {}) {
		const req = this.base({ operation: op });
		this.observed(req, 'client_observed_server_side_session_id');
		return this.unary('Config', Object.assign(req, extra));
	}

	// AnalyzePlan: analyze is one request member, e.g.
	// { schema: { plan } }.
	analyze(analyze, extra = {}) {
		const req = this.base(analyze);
		this.observed(req, 'client_observed_server_side_session_id');
		return this.unary('AnalyzePlan', Object.assign(req, extra));
	}

	releaseSession(allowReconnect = false) {
		return this.unary('ReleaseSession',
		    this.base({ allow_reconnect: allowReconnect }));
	}

	fetchErrorDetails(errorId) {
		return this.unary('FetchErrorDetails',
		    this.base({ error_id: errorId }));
	}

	// Run a reattachable plan to result_complete, reattaching after every
	// stream that ends OK without it.  Returns { responses, streams,
	// operationId } (streams: the collect() results of every stream).
	async executeToCompletion(plan, opts = {}) {
		const operationId = opts.operationId || uuid();
		const streams = [];
		const all = [];
		let r = await this.execute(plan, { ...opts, operationId });
		for (let i = 0; ; i++) {
			streams.push(r);
			all.push(...r.responses);
			assert.equal(r.status.code, code.OK,
			    `stream ${i} ended with ${statusText(r.status)}`);
			if (all.length > 0 &&
			    all[all.length - 1].result_complete)
				break;
			assert.ok(i < (opts.maxStreams || 1000),
			    'too many streams');
			const last = all.length ?
			    all[all.length - 1].response_id : undefined;
			r = await this.reattach(operationId, last, opts);
		}
		return { responses: all, streams, operationId };
	}
}

// ------------------------------------------------------------- streams

// Collect a response stream until it ends.  Never rejects on a gRPC
// error: resolves to { responses, count, status: {code, details,
// metadata}, error, timedOut }.  Options:
//   keep          keep the responses (default true; false only counts)
//   onResponse    (resp, ctx) called for each response; ctx.cancel()
//                 cancels the call
//   delayMs       pause the stream this long after every response (a
//                 slow reader)
//   stopAfter     cancel the call after this many responses
//   timeoutMs     cancel after this long (default 20 s)
function collect(call, opts = {}, session = null) {
	return new Promise((resolve) => {
		const out = { responses: [], count: 0, status: null,
		    error: null, timedOut: false, call, rows: 0 };
		let ended = false, done = false, canceled = false;
		const ctx = {
			call,
			cancel() {
				canceled = true;
				call.cancel();
				call.resume();
			},
		};
		const timer = setTimeout(() => {
			out.timedOut = true;
			ctx.cancel();
		}, opts.timeoutMs || 20000);
		const finish = () => {
			if (done || !out.status || !ended)
				return;
			done = true;
			clearTimeout(timer);
			resolve(out);
		};
		call.on('data', (resp) => {
			out.count++;
			if (session)
				session.remember(resp);
			if (resp.arrow_batch)
				out.rows += Number(resp.arrow_batch.row_count);
			if (opts.keep !== false)
				out.responses.push(resp);
			if (opts.onResponse)
				opts.onResponse(resp, ctx, out);
			if (opts.stopAfter && out.count >= opts.stopAfter &&
			    !canceled)
				ctx.cancel();
			if (opts.delayMs && !canceled) {
				call.pause();
				setTimeout(() => call.resume(), opts.delayMs);
			}
		});
		call.on('error', (err) => {
			out.error = err;
		});
		call.on('status', (st) => {
			out.status = st;
			finish();
		});
		call.on('end', () => {
			ended = true;
			finish();
		});
	});
}

function statusText(st) {
	if (!st)
		return 'no status';
	const name = Object.keys(code).find((k) => code[k] === st.code);
	return `${name || st.code}: ${st.details}`;
}

// ------------------------------------------------------------- plans

function sqlPlan(query) {
	return { root: { sql: { query } } };
}

function rangePlan(start, end, step = 1) {
	const range = { end: String(end), step: String(step) };
	if (start !== undefined && start !== null)
		range.start = String(start);
	return { root: { range } };
}

// SqlCommand, 4.x form (input = Relation{sql}).
function sqlCommandPlan(query) {
	return { command: { sql_command: { input: { sql: { query } } } } };
}

// SqlCommand, 3.5 form (sql).
function sqlCommandPlan35(query) {
	return { command: { sql_command: { sql: query } } };
}

// ---------------------------------------------------------------- arrow

// Decode every arrow_batch of responses.  Returns { batches: [{ rowCount,
// startOffset (number or null), table }], rows: total decoded rows,
// tables }.
function decodeBatches(responses) {
	const batches = [];
	let rows = 0;
	for (const r of responses) {
		if (!r.arrow_batch)
			continue;
		const b = r.arrow_batch;
		const table = arrow.tableFromIPC(b.data);
		batches.push({
			rowCount: Number(b.row_count),
			startOffset: b._start_offset === 'start_offset' ?
			    Number(b.start_offset) : null,
			table,
			decoded: table.numRows,
		});
		rows += table.numRows;
	}
	return { batches, rows };
}

// All values of column name over the batches, as JS values (int64 as
// BigInt).
function columnValues(responses, name) {
	const out = [];
	for (const b of decodeBatches(responses).batches) {
		const col = b.table.getChild(name);
		assert.ok(col, `column ${name} in ` +
		    b.table.schema.fields.map((f) => f.name).join(','));
		for (let i = 0; i < col.length; i++)
			out.push(col.get(i));
	}
	return out;
}

// Count and sum of an integer column (BigInt sum).
function countSum(responses, name) {
	let n = 0, sum = 0n;
	for (const v of columnValues(responses, name)) {
		n++;
		sum += BigInt(v);
	}
	return { count: n, sum };
}

// ---------------------------------------------------------------- errors

// Parse grpc-status-details-bin of a grpc error (or status): returns
// { status: google.rpc.Status, errorInfo (first ErrorInfo or null),
// retryInfo } or null when the trailer is absent.
function errorDetails(errOrStatus) {
	const md = errOrStatus && errOrStatus.metadata;
	if (!md)
		return null;
	const bins = md.get('grpc-status-details-bin');
	if (!bins || bins.length === 0)
		return null;
	const st = StatusType.toObject(StatusType.decode(bins[0]), TO_OBJECT);
	let errorInfo = null, retryInfo = null;
	for (const d of st.details) {
		const type = d.type_url.replace(/^.*\//, '');
		if (type === 'google.rpc.ErrorInfo' && !errorInfo)
			errorInfo = ErrorInfoType.toObject(
			    ErrorInfoType.decode(d.value), TO_OBJECT);
		if (type === 'google.rpc.RetryInfo' && !retryInfo)
			retryInfo = RetryInfoType.toObject(
			    RetryInfoType.decode(d.value), TO_OBJECT);
	}
	return { status: st, errorInfo, retryInfo };
}

// Assert that err (a grpc error or a collect() status) is a Spark error of
// class errorClass: gRPC INTERNAL, message "[CLASS] ... SQLSTATE: xxxxx"
// (sqlState exact when given, any 5 characters when null), the same code
// and message in grpc-status-details-bin, and an ErrorInfo with domain
// org.apache.spark, a reason, metadata errorClass and sqlState.
// Returns { message, errorInfo, details }.
function assertSparkError(err, errorClass, sqlState = null) {
	assert.ok(err, `expected a ${errorClass} error, got success`);
	const message = err.details !== undefined ? err.details : err.message;
	assert.equal(err.code, code.INTERNAL,
	    `gRPC code of ${errorClass}: got ${statusText(err)}`);
	const esc = errorClass.replace(/[.]/g, '\\.');
	assert.match(message, new RegExp(`^\\[${esc}\\] `),
	    `status message starts with [${errorClass}]`);
	const m = / SQLSTATE: ([0-9A-Z]{5})$/.exec(message);
	assert.ok(m, `status message ends with SQLSTATE: xxxxx: ${message}`);
	if (sqlState !== null)
		assert.equal(m[1], sqlState, `SQLSTATE in ${message}`);
	const details = errorDetails(err);
	assert.ok(details, `grpc-status-details-bin present for ${message}`);
	assert.equal(details.status.code, code.INTERNAL, 'Status.code');
	assert.equal(details.status.message, message, 'Status.message');
	const info = details.errorInfo;
	assert.ok(info, 'ErrorInfo in the status details');
	assert.equal(info.domain, 'org.apache.spark', 'ErrorInfo.domain');
	assert.ok(info.reason.length > 0, 'ErrorInfo.reason is set');
	assert.equal(info.metadata.errorClass, errorClass,
	    'ErrorInfo metadata errorClass');
	assert.equal(info.metadata.sqlState, m[1],
	    'ErrorInfo metadata sqlState');
	if (info.metadata.classes !== undefined) {
		const classes = JSON.parse(info.metadata.classes);
		assert.ok(Array.isArray(classes) && classes.length > 0,
		    'metadata classes is a non-empty JSON array');
	}
	return { message, errorInfo: info, details };
}

// Await a promise that must reject; returns the error.
async function rejects(promise) {
	try {
		const v = await promise;
		assert.fail(`expected an error, got ${JSON.stringify(v)}`);
	} catch (err) {
		if (err instanceof assert.AssertionError)
			throw err;
		return err;
	}
}

// The error a collect() result ended with, as a grpc error (code,
// details, metadata); fails if the stream ended OK.
function streamError(r) {
	assert.ok(r.status, 'stream has a status');
	assert.notEqual(r.status.code, code.OK,
	    `expected the stream to fail; it ended OK after ${r.count} ` +
	    'responses');
	return r.error || r.status;
}

// ------------------------------------------------------ response checks

// Whether a response carries no response_type (schema-only, metrics-only).
function responseType(r) {
	return r.response_type || null;
}

// The invariants every response of one operation satisfies: session_id
// echo, the same non-empty server_side_session_id, the operation id, and
// a fresh UUID response_id.  seen: a Set of response ids across calls.
function checkResponseIds(responses, session, operationId, seen = new Set()) {
	let ssid = null;
	for (const [i, r] of responses.entries()) {
		assert.equal(r.session_id, session.sessionId,
		    `response ${i} session_id`);
		assert.ok(r.server_side_session_id,
		    `response ${i} server_side_session_id set`);
		if (ssid === null)
			ssid = r.server_side_session_id;
		assert.equal(r.server_side_session_id, ssid,
		    `response ${i} server_side_session_id unchanged`);
		if (operationId)
			assert.equal(r.operation_id, operationId,
			    `response ${i} operation_id`);
		else
			assert.match(r.operation_id, UUID_RE,
			    `response ${i} operation_id`);
		assert.match(r.response_id, UUID_RE,
		    `response ${i} response_id`);
		assert.ok(!seen.has(r.response_id),
		    `response ${i} response_id ${r.response_id} is fresh`);
		seen.add(r.response_id);
	}
	return ssid;
}

// The shape of each response, ignoring execution_progress (which may
// come at any time): 'schema' (schema only), 'metrics' (metrics only),
// 'observed' (observed metrics only), 'empty', or the response_type.
function kinds(responses) {
	const out = [];
	for (const r of responses) {
		const t = r.response_type;
		if (t === 'execution_progress')
			continue;
		if (t)
			out.push(t);
		else if (r.schema)
			out.push('schema');
		else if (r.metrics)
			out.push('metrics');
		else if (r.observed_metrics.length > 0)
			out.push('observed');
		else
			out.push('empty');
	}
	return out;
}

// A long operation: range(0, 1e12) unless opts.plan.  Returns
// { operationId, first, done }: first resolves to the first response (null
// if the stream ended without any), done to the collect() result
// (responses not kept unless opts.keep; out.lastId is the last id seen).
const LONG_PLAN = rangePlan(0, '1000000000000');

function startOperation(session, opts = {}) {
	const operationId = opts.operationId || uuid();
	const first = deferred();
	const userOn = opts.onResponse;
	const done = session.execute(opts.plan || LONG_PLAN, {
		keep: false,
		timeoutMs: 25000,
		...opts,
		operationId,
		onResponse(r, ctx, out) {
			out.lastId = r.response_id;
			first.resolve(r);
			if (userOn)
				userOn(r, ctx, out);
		},
	});
	done.then(() => first.resolve(null));
	return { operationId, first: first.promise, done };
}

// Call an RPC of the service that does not exist.
function callUnknownMethod(client, name, timeoutMs = 60000) {
	return new Promise((resolve) => {
		const started = Date.now();
		client.makeUnaryRequest(`/${SERVICE}/${name}`,
		    (x) => x, (x) => x, Buffer.alloc(0), new grpc.Metadata(),
		    { deadline: new Date(Date.now() + timeoutMs) },
		    (err, resp) => resolve({ err, resp,
		    elapsed: Date.now() - started }));
	});
}

// ------------------------------------------------------ DataFrame plans
//
// Relations and expressions as a Spark client builds them (protobuf JSON
// form of proto-loader), for the DataFrame tests (24- onward).

const df = {
	col: (name) => ({ unresolved_attribute: { unparsed_identifier: name } }),
	star: (target) => ({ unresolved_star: target === undefined ? {} :
	    { unparsed_target: target } }),
	fn: (name, ...args) => ({ unresolved_function: { function_name: name,
	    arguments: args } }),
	alias: (expr, name) => ({ alias: { expr, name: [name] } }),
	// A literal from a JS value: string, boolean, integer (int32),
	// BigInt (long), or { type: value } for any other literal field.
	lit(v) {
		if (typeof v === 'string')
			return { literal: { string: v } };
		if (typeof v === 'boolean')
			return { literal: { boolean: v } };
		if (typeof v === 'bigint')
			return { literal: { long: String(v) } };
		if (typeof v === 'number' && Number.isInteger(v))
			return { literal: { integer: v } };
		if (typeof v === 'number')
			return { literal: { double: v } };
		return { literal: v };
	},
	// A LocalRelation of an apache-arrow Table (and a schema string).
	local(table, schema) {
		const lr = {};
		if (table)
			lr.data = Buffer.from(arrow.tableToIPC(table, 'stream'));
		if (schema !== undefined)
			lr.schema = schema;
		return { local_relation: lr };
	},
	project: (input, ...expressions) => ({ project: { input,
	    expressions } }),
	filter: (input, condition) => ({ filter: { input, condition } }),
	plan: (root) => ({ root }),
};

// The rows of a result as plain JS: int64 as BigInt, structs as
// objects, lists as arrays, maps as arrays of [key, value].
function plainValue(v) {
	if (v === null || v === undefined)
		return null;
	if (v instanceof Map)
		return [...v.entries()].map(([k, x]) => [plainValue(k),
		    plainValue(x)]);
	const kind = typeof v === 'object' && v.constructor ?
	    v.constructor.name : '';
	if (kind === 'MapRow')
		return [...v].map(([k, x]) => [plainValue(k), plainValue(x)]);
	if (kind !== 'StructRow' && typeof v === 'object' &&
	    typeof v.toArray === 'function' && !(v instanceof Uint8Array))
		return [...v].map(plainValue);
	if (typeof v === 'object' && typeof v.toJSON === 'function') {
		const o = {};
		for (const [k, x] of Object.entries(v.toJSON()))
			o[k] = plainValue(x);
		return o;
	}
	return v;
}

function resultRows(responses) {
	const out = [];
	for (const b of decodeBatches(responses).batches)
		for (let i = 0; i < b.table.numRows; i++) {
			const row = [];
			for (const f of b.table.schema.fields)
				row.push(plainValue(
				    b.table.getChild(f.name).get(i)));
			out.push(row);
		}
	return out;
}

// Every file's bound on one test: generous, because a loaded machine is
// slow and a bound is not a measure of speed (make bench measures).
const T = { timeout: 120000 * SLOW };

// The values and Arrow fields of the one row a projection of exprs
// (with no input) gives, after checking it succeeded.
async function projectRow(s, ...exprs) {
	const r = await s.execute(df.plan(df.project(null, ...exprs)));
	assert.equal(r.status.code, code.OK, statusText(r.status));
	return { values: resultRows(r.responses)[0],
		fields: resultFields(r.responses) };
}

// A projection of expr (with no input) fails with Spark's error class
// cls and SQLSTATE state.
async function projectFails(s, expr, cls, state) {
	const e = await s.execute(df.plan(df.project(null, expr)));
	assertSparkError(streamError(e), cls, state);
}

// The Arrow fields of a result: [[name, String(type), nullable], ...].
function resultFields(responses) {
	const b = decodeBatches(responses).batches[0];
	return b.table.schema.fields.map((f) => [f.name, String(f.type),
	    f.nullable]);
}

module.exports = {
	T, df, plainValue, resultRows, resultFields, projectRow, projectFails,
	TOP, BUILD, SANITIZE, SLOW, UUID_RE, code, grpc, arrow,
	uuid, sleep, deferred, startServer, newClient, useServer, stopTest,
	Session,
	collect, statusText, sqlPlan, rangePlan, sqlCommandPlan,
	sqlCommandPlan35, decodeBatches, columnValues, countSum, errorDetails,
	assertSparkError, rejects, streamError, responseType,
	checkResponseIds, callUnknownMethod, packageDef, kinds, LONG_PLAN,
	startOperation,
};
