// SPDX-License-Identifier: MIT
//
// 14-auth: a server started with --token requires "authorization: Bearer
// <token>" on every call: none or a wrong one is UNAUTHENTICATED, the
// right one works.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer({ args: ['--token', 's3cret'] });
const { T } = lib;
const SMALL = lib.sqlPlan('SELECT id FROM range(10)');

async function refused(s) {
	const e1 = await lib.rejects(s.config({ get_all: {} }));
	assert.equal(e1.code, lib.code.UNAUTHENTICATED, lib.statusText(e1));
	const e2 = await lib.rejects(s.analyze({ spark_version: {} }));
	assert.equal(e2.code, lib.code.UNAUTHENTICATED, lib.statusText(e2));
	const r = await s.execute(SMALL);
	assert.equal(r.count, 0);
	assert.equal(r.status.code, lib.code.UNAUTHENTICATED,
	    lib.statusText(r.status));
	const re = await s.reattach(lib.uuid());
	assert.equal(re.status.code, lib.code.UNAUTHENTICATED,
	    lib.statusText(re.status));
}

test('without a token every call fails with UNAUTHENTICATED', T,
    async () => {
	await refused(new lib.Session(srv));
});

test('a wrong token fails with UNAUTHENTICATED', T, async () => {
	for (const value of ['Bearer wrong', 'Bearer s3cre', 'Bearer s3cret2',
	    's3cret', 'Basic s3cret', 'Bearer '])
		await refused(new lib.Session(srv,
		    { metadata: { authorization: value } }));
});

test('the right token works', T, async () => {
	const s = new lib.Session(srv,
	    { metadata: { authorization: 'Bearer s3cret' } });
	const cfg = await s.config({ get_all: {} });
	assert.equal(cfg.session_id, s.sessionId);
	const r = await s.execute(SMALL);
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual(lib.countSum(r.responses, 'id'),
	    { count: 10, sum: 45n });
	await s.release(r.responses[0].operation_id);
});

test('a refused call leaves no session behind', T, async () => {
	const id = lib.uuid();
	await refused(new lib.Session(srv, { sessionId: id }));
	const ok = new lib.Session(srv, { sessionId: id,
	    metadata: { authorization: 'Bearer s3cret' } });
	const r = await ok.reattach(lib.uuid());
	lib.assertSparkError(lib.streamError(r),
	    'INVALID_HANDLE.SESSION_NOT_FOUND', 'HY000');
});

lib.stopTest(srv);
