// SPDX-License-Identifier: MIT
//
// 15-malformed: request bytes that are not a valid message get
// INVALID_ARGUMENT at once, for unary and streaming RPCs alike, and the
// server keeps serving correct requests afterwards.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const { T } = lib;
const SERVICE = 'spark.connect.SparkConnectService';

// Garbage: a truncated varint, a length running past the end, a field
// number 0, and an end-group tag with no group.
const BAD = [
	Buffer.from([0x0a, 0xff]),
	Buffer.from([0x0a, 0x10, 0x61, 0x62]),
	Buffer.from([0x00, 0x01]),
	Buffer.from([0x0c]),
];

function unaryRaw(name, bytes) {
	return new Promise((resolve) => {
		srv.client.makeUnaryRequest(`/${SERVICE}/${name}`,
		    (x) => x, (x) => x, bytes, new lib.grpc.Metadata(),
		    { deadline: new Date(Date.now() + 5000) },
		    (err, resp) => resolve({ err, resp }));
	});
}

function streamRaw(name, bytes) {
	return new Promise((resolve) => {
		const call = srv.client.makeServerStreamRequest(
		    `/${SERVICE}/${name}`, (x) => x, (x) => x, bytes,
		    new lib.grpc.Metadata(),
		    { deadline: new Date(Date.now() + 5000) });
		let n = 0;
		call.on('data', () => n++);
		call.on('error', (err) => resolve({ err, n }));
		call.on('end', () => resolve({ err: null, n }));
	});
}

for (const name of ['Config', 'AnalyzePlan', 'Interrupt',
    'ReleaseExecute', 'ReleaseSession', 'FetchErrorDetails']) {
	test(`malformed ${name} request gets INVALID_ARGUMENT`, T,
	    async () => {
		for (const bytes of BAD) {
			const { err } = await unaryRaw(name, bytes);
			assert.ok(err, `${name}: no error for ${bytes.toString('hex')}`);
			assert.equal(err.code, lib.code.INVALID_ARGUMENT,
			    lib.statusText(err));
			assert.match(err.details, /malformed/i);
		}
	});
}

for (const name of ['ExecutePlan', 'ReattachExecute']) {
	test(`malformed ${name} request gets INVALID_ARGUMENT`, T,
	    async () => {
		for (const bytes of BAD) {
			const { err, n } = await streamRaw(name, bytes);
			assert.equal(n, 0);
			assert.ok(err, `${name}: stream ended without error`);
			assert.equal(err.code, lib.code.INVALID_ARGUMENT,
			    lib.statusText(err));
		}
	});
}

// Found by fuzzing: a Relation{sql} whose args map has an entry without
// a value (here :x) used to kill sc-serve with SIGSEGV.
test('a sql() argument without a value is INVALID_SQL_ARG, not a crash', T,
    async () => {
	const bytes = Buffer.from(
	    '0a2430663065306430632d306230612d343930382d383730362d30353034303330323031303012060a0466757a7a1a370a3552330a2353454c4543542043415354283f20415320535452494e4729207c7c203a78204153207612080a017832036a01791a023807', 'hex');
	const r = await streamRaw('ExecutePlan', bytes);
	assert.ok(r.err, 'the operation fails');
	assert.equal(r.err.code, lib.code.INTERNAL, r.err.details);
	assert.match(r.err.details, /INVALID_SQL_ARG/);
	const s = new lib.Session(srv);
	const ok = await s.execute(lib.sqlPlan('SELECT 1 AS one'));
	assert.equal(ok.status.code, lib.code.OK, lib.statusText(ok.status));
});

test('the server still answers correct requests afterwards', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(lib.sqlPlan('SELECT id FROM range(100)'));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(lib.countSum(r.responses, 'id'),
	    { count: 100, sum: 4950n });
});

lib.stopTest(srv);
