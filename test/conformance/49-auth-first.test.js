// SPDX-License-Identifier: MIT
//
// 49-auth-first: with --token, nothing answers before the token check.
// A method the server does not have (CloneSession, GetStatus, another
// service's) fails with UNAUTHENTICATED for a caller without the right
// token, and with UNIMPLEMENTED only for one with it.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer({ args: ['--token', 's3cret'] });
const T = { timeout: 30000 };
const METHODS = [
	'/spark.connect.SparkConnectService/CloneSession',
	'/spark.connect.SparkConnectService/GetStatus',
	'/spark.connect.SparkConnectService/NoSuchMethod',
	'/x.Y/Z',
];

function call(path, authorization) {
	const md = new lib.grpc.Metadata();
	if (authorization !== undefined)
		md.set('authorization', authorization);
	return new Promise((resolve) => {
		srv.client.makeUnaryRequest(path, (x) => x, (x) => x,
		    Buffer.alloc(0), md,
		    { deadline: new Date(Date.now() + 10000) },
		    (err) => resolve(err));
	});
}

test('an unknown method without a token is UNAUTHENTICATED', T,
    async () => {
	for (const path of METHODS) {
		const err = await call(path);
		assert.ok(err, `${path} must fail`);
		assert.equal(err.code, lib.code.UNAUTHENTICATED,
		    `${path}: ${lib.statusText(err)}`);
		assert.equal(err.details, 'No authentication token provided');
	}
});

test('an unknown method with a wrong token is UNAUTHENTICATED', T,
    async () => {
	for (const path of METHODS) {
		const err = await call(path, 'Bearer wrong');
		assert.equal(err && err.code, lib.code.UNAUTHENTICATED,
		    `${path}: ${lib.statusText(err)}`);
		assert.equal(err.details, 'Invalid authentication token');
	}
});

test('an unknown method with the token is UNIMPLEMENTED', T, async () => {
	for (const path of METHODS) {
		const err = await call(path, 'Bearer s3cret');
		assert.equal(err && err.code, lib.code.UNIMPLEMENTED,
		    `${path}: ${lib.statusText(err)}`);
		assert.equal(err.details, `unknown method '${path}'`);
	}
});

lib.stopTest(srv);
