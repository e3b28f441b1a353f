// SPDX-License-Identifier: MIT
//
// admin-fake-server.js: a small sctk.admin.v1 server in Node (grpc-js,
// proto-loader on proto/sctk/admin/v1/admin.proto), an independent peer
// for sc-inspect's own tests: answers made from a fixture file, exactly
// as the proto describes them (filters, the caller's user, the admin
// token), and every request logged for the test to check.
//
//   node admin-fake-server.js --ready-file F [--admin-token T]
//       [--fixture FILE.json] [--log FILE] [--no-admin] [--list-max N]
//       [--watch-events N] [--watch-interval MS]
//
// --ready-file   written with "sc://127.0.0.1:PORT" once listening
// --fixture      {"executions": [...], "sessions": [...], "tombstones":
//                [...], "stats": {...}} with the proto's field names;
//                times in an execution may be given relative to now as
//                "-90s"-style strings in *_at_ms fields
// --log          one JSON line per request: method, caller, the request
//                and the admin token header seen
// --list-max     the server's own limit on ListExecutions (0: none);
//                a longer answer is cut and marked truncated
// --no-admin     serve nothing at all (every call is UNIMPLEMENTED), as
//                a Spark Connect server answers for this service
// --watch-events after the snapshot, send N PROGRESS events of the first
//                execution (rows_sent growing), one per interval, then
//                end the stream; 0 (default) keeps it open, silent

'use strict';

const fs = require('node:fs');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const TOP = path.resolve(__dirname, '..', '..');

function parseArgs(argv) {
	const o = { adminToken: null, fixture: null, log: null, ready: null,
		noAdmin: false, listMax: 0, watchEvents: 0, watchInterval: 100 };
	for (let i = 2; i < argv.length; i++) {
		const a = argv[i];
		const next = () => {
			if (i + 1 >= argv.length)
				throw new Error(`${a} needs a value`);
			return argv[++i];
		};
		if (a === '--admin-token') o.adminToken = next();
		else if (a === '--fixture') o.fixture = next();
		else if (a === '--log') o.log = next();
		else if (a === '--ready-file') o.ready = next();
		else if (a === '--no-admin') o.noAdmin = true;
		else if (a === '--list-max') o.listMax = Number(next());
		else if (a === '--watch-events') o.watchEvents = Number(next());
		else if (a === '--watch-interval') o.watchInterval = Number(next());
		else throw new Error(`unknown option ${a}`);
	}
	if (!o.ready) throw new Error('--ready-file is required');
	return o;
}

const opts = parseArgs(process.argv);
const started = Date.now();

// "-90s", "-10m", "-2h", "-500ms" relative to now; numbers as they are.
function when(v) {
	if (typeof v !== 'string') return v;
	const m = /^-(\d+)(ms|s|m|h)$/.exec(v);
	if (!m) return Number(v);
	const unit = { ms: 1, s: 1000, m: 60000, h: 3600000 }[m[2]];
	return Date.now() - Number(m[1]) * unit;
}

function loadFixture() {
	const f = opts.fixture ? JSON.parse(fs.readFileSync(opts.fixture, 'utf8')) : {};
	const execs = (f.executions || []).map((e) => {
		const x = { tags: [], abandon_in_ms: -1, ...e };
		for (const k of Object.keys(x))
			if (k.endsWith('_at_ms')) x[k] = when(x[k]);
		return x;
	});
	return {
		executions: execs,
		sessions: f.sessions || [],
		tombstones: (f.tombstones || []).map((t) => ({ ...t, at_ms: when(t.at_ms) })),
		stats: f.stats || {},
	};
}

const data = loadFixture();

function log(method, call, req) {
	if (!opts.log) return;
	const tok = call.metadata.get('x-sctk-admin-token');
	fs.appendFileSync(opts.log, JSON.stringify({
		method,
		caller: req.caller ? req.caller.user_id : null,
		admin_token: tok.length ? String(tok[0]) : null,
		authorization: call.metadata.get('authorization').length > 0,
		request: req,
	}) + '\n');
}

function isAdmin(call) {
	const tok = call.metadata.get('x-sctk-admin-token');
	return opts.adminToken !== null && tok.length > 0 &&
	    String(tok[0]) === opts.adminToken;
}

// What the caller may see: everything with the admin token, else only
// the executions of the user it names.
function visible(call, req, userOf) {
	const admin = isAdmin(call);
	const user = req.caller ? req.caller.user_id : '';
	return (x) => admin || userOf(x) === user;
}

const STATE = ['EXECUTION_STATE_UNSPECIFIED', 'EXECUTION_STATE_PENDING',
	'EXECUTION_STATE_RUNNING', 'EXECUTION_STATE_FINISHED',
	'EXECUTION_STATE_FAILED', 'EXECUTION_STATE_CANCELED',
	'EXECUTION_STATE_CLOSED'];

function stateName(s) {
	return typeof s === 'number' ? (STATE[s] || s) : s;
}

function matches(x, f, now) {
	if (!f) return true;
	if (f.session_id && x.session_id !== f.session_id) return false;
	if (f.user_id && x.user_id !== f.user_id) return false;
	if (f.tag && !(x.tags || []).includes(f.tag)) return false;
	if (f.states && f.states.length &&
	    !f.states.map(stateName).includes(stateName(x.state)))
		return false;
	const det = Number(f.detached_for_ms || 0);
	if (det > 0 && (x.attached || !x.detached_since_at_ms ||
	    now - x.detached_since_at_ms < det))
		return false;
	const old = Number(f.older_than_ms || 0);
	if (old > 0 && now - x.created_at_ms < old) return false;
	return true;
}

function listExecutions(call, cb) {
	const req = call.request;
	log('ListExecutions', call, req);
	const now = Date.now();
	const see = visible(call, req, (x) => x.user_id);
	let v = data.executions.filter((x) => see(x) && matches(x, req.filter, now));
	v.sort((a, b) => b.created_at_ms - a.created_at_ms);
	let truncated = false;
	let max = req.limit > 0 ? req.limit : opts.listMax;
	if (opts.listMax > 0 && max > opts.listMax) max = opts.listMax;
	if (max > 0 && v.length > max) {
		v = v.slice(0, max);
		truncated = true;
	}
	cb(null, { executions: v, truncated, server_time_ms: now });
}

function getExecution(call, cb) {
	const req = call.request;
	log('GetExecution', call, req);
	const see = visible(call, req, (x) => x.user_id);
	const x = data.executions.find((e) => e.operation_id === req.operation_id);
	if (!x || !see(x))
		return cb({ code: grpc.status.NOT_FOUND,
			details: `operation ${req.operation_id} not found` });
	cb(null, { execution: x, server_time_ms: Date.now() });
}

function listSessions(call, cb) {
	const req = call.request;
	log('ListSessions', call, req);
	const see = visible(call, req, (s) => s.user_id);
	const v = data.sessions.filter((s) => see(s) &&
	    (!req.user_id || s.user_id === req.user_id) &&
	    (!req.session_id || s.session_id === req.session_id));
	cb(null, { sessions: v, server_time_ms: Date.now() });
}

function listTombstones(call, cb) {
	const req = call.request;
	log('ListTombstones', call, req);
	const see = visible(call, req, (t) => t.user_id);
	const v = data.tombstones.filter((t) => see(t) &&
	    (!req.user_id || t.user_id === req.user_id) &&
	    (!req.session_id || t.session_id === req.session_id));
	cb(null, { tombstones: v, server_time_ms: Date.now() });
}

function getStats(call, cb) {
	const req = call.request;
	log('GetStats', call, req);
	const counts = {};
	for (const x of data.executions) {
		const s = stateName(x.state);
		counts[s] = (counts[s] || 0) + 1;
	}
	cb(null, {
		version: 'fake 1',
		started_at_ms: started,
		uptime_ms: Date.now() - started,
		operations: Object.entries(counts).map(([state, count]) => (
			{ state: /^[0-9]+$/.test(state) ? Number(state) : state, count })),
		sessions: data.sessions.length,
		server_time_ms: Date.now(),
		...data.stats,
	});
}

function watch(call) {
	const req = call.request;
	log('Watch', call, req);
	const now = Date.now();
	const see = visible(call, req, (x) => x.user_id);
	const v = data.executions.filter((x) => see(x) && matches(x, req.filter, now));
	if (req.initial_snapshot)
		for (const x of v)
			call.write({ kind: 'KIND_SNAPSHOT', at_ms: now, execution: x });
	let n = 0;
	if (opts.watchEvents <= 0 || v.length === 0)
		return; /* open until the client cancels */
	const t = setInterval(() => {
		if (n >= opts.watchEvents) {
			clearInterval(t);
			call.end();
			return;
		}
		n++;
		const x = { ...v[0], rows_sent: Number(v[0].rows_sent || 0) + n * 10 };
		call.write({ kind: 'KIND_PROGRESS', at_ms: Date.now(), execution: x });
	}, opts.watchInterval);
	call.on('cancelled', () => clearInterval(t));
}

const server = new grpc.Server();
if (!opts.noAdmin) {
	const def = protoLoader.loadSync('sctk/admin/v1/admin.proto', {
		includeDirs: [path.join(TOP, 'proto')],
		keepCase: true,
		longs: Number,
		enums: String,
		defaults: true,
	});
	const pkg = grpc.loadPackageDefinition(def);
	server.addService(pkg.sctk.admin.v1.AdminService.service, {
		ListExecutions: listExecutions,
		GetExecution: getExecution,
		ListSessions: listSessions,
		ListTombstones: listTombstones,
		GetStats: getStats,
		Watch: watch,
	});
}
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(),
    (err, port) => {
	if (err) {
		console.error(`admin-fake-server: ${err.message}`);
		process.exit(1);
	}
	const tmp = `${opts.ready}.tmp`;
	fs.writeFileSync(tmp, `sc://127.0.0.1:${port}\n`);
	fs.renameSync(tmp, opts.ready);
});
for (const sig of ['SIGTERM', 'SIGINT'])
	process.on(sig, () => server.tryShutdown(() => process.exit(0)));
