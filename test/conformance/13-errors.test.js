// SPDX-License-Identifier: MIT
//
// 13-errors: Spark-style errors: gRPC INTERNAL, "[CLASS] ... SQLSTATE:
// xxxxx", ErrorInfo with errorClass, sqlState and errorId, the full error
// from FetchErrorDetails; unknown methods are UNIMPLEMENTED.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const { T } = lib;
const BAD = lib.sqlPlan('SELECT * FROM no_such_table_conformance');

async function badTable(s, opts = {}) {
	const r = await s.execute(BAD, opts);
	assert.ok(!lib.kinds(r.responses).includes('result_complete'));
	return lib.assertSparkError(lib.streamError(r),
	    'TABLE_OR_VIEW_NOT_FOUND', '42P01');
}

test('a missing table fails with TABLE_OR_VIEW_NOT_FOUND and SQLSTATE ' +
    '42P01 in ErrorInfo', T, async () => {
	const s = new lib.Session(srv);
	const { message, errorInfo } = await badTable(s);
	assert.ok(message.includes('no_such_table_conformance'), message);
	assert.match(errorInfo.metadata.errorId, lib.UUID_RE);
	const classes = JSON.parse(errorInfo.metadata.classes);
	assert.ok(classes.includes(errorInfo.reason),
	    `classes ${errorInfo.metadata.classes} list the reason`);
	if (errorInfo.metadata.messageParameters !== undefined) {
		const p = JSON.parse(errorInfo.metadata.messageParameters);
		assert.equal(typeof p, 'object');
		for (const v of Object.values(p))
			assert.equal(typeof v, 'string');
	}
	// Non-reattachable operations fail the same way.
	await badTable(s, { reattachable: false });
});

test('FetchErrorDetails with the errorId returns the error, once', T,
    async () => {
	const s = new lib.Session(srv);
	const { message, errorInfo } = await badTable(s);
	const id = errorInfo.metadata.errorId;
	const r = await s.fetchErrorDetails(id);
	assert.equal(r.session_id, s.sessionId);
	assert.equal(r.server_side_session_id, s.serverSideId);
	assert.equal(r._root_error_idx, 'root_error_idx');
	assert.ok(r.root_error_idx >= 0 && r.root_error_idx < r.errors.length,
	    `root_error_idx ${r.root_error_idx} of ${r.errors.length}`);
	const root = r.errors[r.root_error_idx];
	assert.ok(root.message.includes('TABLE_OR_VIEW_NOT_FOUND') ||
	    message.includes(root.message), root.message);
	assert.ok(root.error_type_hierarchy.length > 0);
	assert.equal(root._spark_throwable, 'spark_throwable');
	assert.equal(root.spark_throwable.error_class,
	    'TABLE_OR_VIEW_NOT_FOUND');
	assert.equal(root.spark_throwable.sql_state, '42P01');
	const again = await s.fetchErrorDetails(id);
	assert.notEqual(again._root_error_idx, 'root_error_idx',
	    'a fetched error is forgotten');
	assert.deepEqual(again.errors, []);
});

test('FetchErrorDetails with an unknown error id returns an empty ' +
    'response', T, async () => {
	const s = new lib.Session(srv);
	await s.config({ get_all: {} });
	const r = await s.fetchErrorDetails(lib.uuid());
	assert.equal(r.session_id, s.sessionId);
	assert.notEqual(r._root_error_idx, 'root_error_idx');
	assert.deepEqual(r.errors, []);
});

test('an error id is only known to its own session', T, async () => {
	const a = new lib.Session(srv);
	const b = new lib.Session(srv);
	const { errorInfo } = await badTable(a);
	const r = await b.fetchErrorDetails(errorInfo.metadata.errorId);
	assert.notEqual(r._root_error_idx, 'root_error_idx');
	assert.deepEqual(r.errors, []);
});

test('a syntax error fails with PARSE_SYNTAX_ERROR and SQLSTATE 42601', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await s.execute(lib.sqlPlan('SELEKT 1 FROM'));
	lib.assertSparkError(lib.streamError(r), 'PARSE_SYNTAX_ERROR',
	    '42601');
});

test('the error of a failed reattachable operation is replayed on ' +
    'reattach', T, async () => {
	const s = new lib.Session(srv);
	const op = lib.uuid();
	const r = await s.execute(lib.sqlPlan(
	    'SELECT id FROM range(5) UNION ALL SELECT * FROM no_such_t2'),
	    { operationId: op });
	lib.assertSparkError(lib.streamError(r), 'TABLE_OR_VIEW_NOT_FOUND',
	    '42P01');
	const last = r.responses.length ?
	    r.responses[r.responses.length - 1].response_id : undefined;
	const re = await s.reattach(op, last);
	assert.equal(re.count, 0);
	lib.assertSparkError(lib.streamError(re), 'TABLE_OR_VIEW_NOT_FOUND',
	    '42P01');
	const rel = await s.release(op);
	assert.equal(rel.operation_id, op, 'the failed operation is kept ' +
	    'until released');
	const gone = await s.reattach(op, last);
	lib.assertSparkError(lib.streamError(gone),
	    'INVALID_HANDLE.OPERATION_NOT_FOUND', 'HY000');
});

test('an unknown method fails with UNIMPLEMENTED quickly', T, async () => {
	for (const name of ['NoSuchMethod', 'GetStatus', 'CloneSession']) {
		const { err, elapsed } = await lib.callUnknownMethod(srv.client,
		    name);
		assert.ok(err, `${name} must fail`);
		assert.equal(err.code, lib.code.UNIMPLEMENTED,
		    `${name}: ${lib.statusText(err)}`);
		// UNIMPLEMENTED, not the deadline's DEADLINE_EXCEEDED.
		assert.ok(elapsed < 30000, `${name} took ${elapsed} ms`);
	}
	const other = await new Promise((resolve) => {
		srv.client.makeUnaryRequest('/no.such.Service/Method',
		    (x) => x, (x) => x, Buffer.alloc(0),
		    new lib.grpc.Metadata(),
		    { deadline: new Date(Date.now() + 5000) },
		    (e) => resolve(e));
	});
	assert.equal(other && other.code, lib.code.UNIMPLEMENTED);
});

lib.stopTest(srv);
