// SPDX-License-Identifier: MIT
//
// 40-databases: Spark's databases (namespaces) besides default, as
// PySpark's spark.sql() and DataFrame reads use them: CREATE DATABASE
// (SCHEMA) [IF NOT EXISTS], SHOW DATABASES [LIKE], USE (per session),
// current_database() and SHOW CURRENT NAMESPACE, tables named db.t and
// spark_catalog.db.t in CREATE, INSERT, SELECT, DESCRIBE, DROP and
// named table reads, SHOW TABLES IN db with temp views, DROP DATABASE
// RESTRICT and CASCADE.
// Errors with Spark's classes: SCHEMA_ALREADY_EXISTS, SCHEMA_NOT_FOUND,
// SCHEMA_NOT_EMPTY, UNSUPPORTED_FEATURE.DROP_DATABASE for default.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const { T } = lib;

// A value of a local relation's Arrow table as plain JS.
const plain = (v) => typeof v === 'bigint' ? Number(v) : v;

// spark.sql(q): rows of a statement or of the query it returns; or error.
async function sql(s, q) {
	const r = await s.execute(lib.sqlCommandPlan(q));
	if (r.status.code !== lib.code.OK)
		return { error: lib.streamError(r) };
	const res = r.responses.find((x) => x.sql_command_result);
	assert.ok(res, `${q}: no sql_command_result`);
	const rel = res.sql_command_result.relation;
	if (rel.rel_type === 'local_relation') {
		const lr = rel.local_relation;
		if (lr._data !== 'data')
			return { rows: [], names: [] };
		const t = lib.arrow.tableFromIPC(lr.data);
		return { names: t.schema.fields.map((f) => f.name),
			rows: t.toArray().map((row) => t.schema.fields.map(
			    (f) => plain(row[f.name]))) };
	}
	return read(s, rel);
}

async function read(s, rel) {
	const e = await s.execute({ root: rel });
	if (e.status.code !== lib.code.OK)
		return { error: lib.streamError(e) };
	return { names: lib.resultFields(e.responses).map((f) => f[0]),
		rows: lib.resultRows(e.responses).map((r) => r.map(plain)) };
}

async function ok(s, q) {
	const got = await sql(s, q);
	assert.ok(!got.error, `${q}: ${got.error && got.error.details}`);
	return got;
}

async function fails(s, q, cls, state) {
	const got = await sql(s, q);
	assert.ok(got.error, `${q}: expected ${cls}`);
	return lib.assertSparkError(got.error, cls, state);
}

const table = (name) => ({ read: { named_table: {
	unparsed_identifier: name } } });

test('CREATE DATABASE, SHOW DATABASES and SCHEMA_ALREADY_EXISTS', T,
    async () => {
	const s = new lib.Session(srv);
	await ok(s, 'CREATE DATABASE db_a');
	await ok(s, 'CREATE SCHEMA IF NOT EXISTS db_a COMMENT \'again\'');
	await ok(s, 'CREATE NAMESPACE db_b WITH DBPROPERTIES (\'k\' = \'v\')');
	await fails(s, 'CREATE DATABASE db_a', 'SCHEMA_ALREADY_EXISTS',
	    '42P06');
	await fails(s, 'CREATE DATABASE default', 'SCHEMA_ALREADY_EXISTS',
	    '42P06');
	const all = await ok(s, 'SHOW DATABASES');
	assert.deepEqual(all.names, ['namespace']);
	assert.deepEqual(all.rows, [['db_a'], ['db_b'], ['default']]);
	const some = await ok(s, 'SHOW SCHEMAS LIKE \'db_*\'');
	assert.deepEqual(some.rows, [['db_a'], ['db_b']]);
	const alt = await ok(s, 'SHOW NAMESPACES LIKE \'DB_B|default\'');
	assert.deepEqual(alt.rows, [['db_b'], ['default']]);
	await fails(s, 'CREATE DATABASE db_c LOCATION \'/tmp/x\'',
	    'UNSUPPORTED_FEATURE.SQL_STATEMENT', '0A000');
	await fails(s, 'CREATE DATABASE `../x`',
	    'INVALID_SCHEMA_OR_RELATION_NAME', '42602');
	await ok(s, 'DROP DATABASE db_b');
	assert.deepEqual((await ok(s, 'SHOW DATABASES')).rows,
	    [['db_a'], ['default']]);
});

test('tables named db.t and spark_catalog.db.t in statements and reads',
    T, async () => {
	const s = new lib.Session(srv);
	await ok(s, 'CREATE DATABASE IF NOT EXISTS db_a');
	await ok(s, 'CREATE TABLE db_a.t1 (id INT, name STRING)');
	await ok(s, 'INSERT INTO db_a.t1 VALUES (1, \'ann\'), (2, \'bob\')');
	await ok(s, 'INSERT INTO spark_catalog.db_a.t1 VALUES (3, \'cy\')');
	await ok(s, 'CREATE TABLE t1 (x DOUBLE)'); // default.t1
	await ok(s, 'INSERT INTO default.t1 VALUES (0.5)');
	const q = await ok(s, 'SELECT id, name FROM db_a.t1 ORDER BY id');
	assert.deepEqual(q.rows, [[1, 'ann'], [2, 'bob'], [3, 'cy']]);
	const sum = await ok(s,
	    'SELECT sum(id) AS s FROM spark_catalog.db_a.t1');
	assert.deepEqual(sum.rows, [[6]]);
	const dflt = await read(s, table('spark_catalog.default.t1'));
	assert.deepEqual(dflt.rows, [[0.5]]);
	const df = await read(s, table('db_a.t1'));
	assert.deepEqual(df.names, ['id', 'name']);
	assert.equal(df.rows.length, 3);
	const d = await ok(s, 'DESCRIBE TABLE db_a.t1');
	assert.deepEqual(d.rows, [['id', 'int', null],
		['name', 'string', null]]);
	const missing = await read(s, table('db_a.t_missing'));
	lib.assertSparkError(missing.error, 'TABLE_OR_VIEW_NOT_FOUND',
	    '42P01');
	await fails(s, 'CREATE TABLE db_none.t (a INT)', 'SCHEMA_NOT_FOUND',
	    '42704');
	// SQLite's main is default, as before databases existed.
	await ok(s, 'CREATE TABLE main.t_main (a INT)');
	await ok(s, 'INSERT INTO main.t_main VALUES (9)');
	assert.deepEqual((await ok(s, 'SELECT a FROM default.t_main')).rows,
	    [[9]]);
});

test('USE sets the session\'s database: bare names, current_database()',
    T, async () => {
	const s = new lib.Session(srv), other = new lib.Session(srv);
	await ok(s, 'CREATE DATABASE IF NOT EXISTS db_u');
	assert.deepEqual((await ok(s, 'SELECT current_database() AS d'))
	    .rows, [['default']]);
	await ok(s, 'USE db_u');
	assert.deepEqual((await ok(s, 'SELECT current_schema() AS d')).rows,
	    [['db_u']]);
	await ok(s, 'CREATE TABLE tu (a INT)');
	await ok(s, 'INSERT INTO tu VALUES (7), (8)');
	assert.deepEqual((await ok(s, 'SELECT sum(a) AS s FROM tu')).rows,
	    [[15]]);
	assert.equal((await read(s, table('tu'))).rows.length, 2);
	const shown = await ok(s, 'SHOW TABLES');
	assert.deepEqual(shown.rows, [['db_u', 'tu', false]]);
	// The other session is still in default: tu is not there.
	assert.deepEqual((await ok(other, 'SELECT current_database() AS d'))
	    .rows, [['default']]);
	// ... and SQLite does not look for it in db_u: Spark's message.
	const nf = await sql(other, 'SELECT * FROM tu');
	const { errorInfo } = lib.assertSparkError(nf.error,
	    'TABLE_OR_VIEW_NOT_FOUND', '42P01');
	assert.deepEqual(JSON.parse(errorInfo.metadata.messageParameters),
	    { relationName: '`tu`' });
	assert.deepEqual((await ok(other, 'SELECT a FROM db_u.tu ORDER BY a'))
	    .rows, [[7], [8]]);
	const cur = await ok(s, 'SHOW CURRENT NAMESPACE');
	assert.deepEqual(cur.names, ['catalog', 'namespace']);
	assert.deepEqual(cur.rows, [['spark_catalog', 'db_u']]);
	await fails(s, 'USE db_nowhere', 'SCHEMA_NOT_FOUND', '42704');
	await ok(s, 'USE DATABASE default');
	assert.deepEqual((await ok(s, 'SELECT current_database() AS d'))
	    .rows, [['default']]);
});

test('two sessions see the same database\'s tables', T, async () => {
	const a = new lib.Session(srv), b = new lib.Session(srv);
	// b's connection exists before the database does.
	assert.deepEqual((await ok(b, 'SELECT 1 AS one')).rows, [[1]]);
	await ok(a, 'CREATE DATABASE db_shared');
	await ok(a, 'CREATE TABLE db_shared.t (v INT)');
	await ok(a, 'INSERT INTO db_shared.t VALUES (1), (2), (3)');
	assert.deepEqual((await ok(b, 'SELECT count(*) AS n FROM ' +
	    'db_shared.t')).rows, [[3]]);
	await ok(b, 'INSERT INTO db_shared.t VALUES (4)');
	assert.deepEqual((await read(a, table('db_shared.t'))).rows.length,
	    4);
	assert.deepEqual((await ok(b, 'SHOW TABLES IN db_shared')).rows,
	    [['db_shared', 't', false]]);
});

test('INSERT INTO db.t binds the SQL\'s parameters', T, async () => {
	const s = new lib.Session(srv);
	await ok(s, 'CREATE DATABASE IF NOT EXISTS db_p');
	await ok(s, 'CREATE TABLE db_p.t (a INT, b STRING)');
	const r = await s.execute({ command: { sql_command: { input: { sql: {
		query: 'INSERT INTO spark_catalog.db_p.t VALUES (?, ?)',
		pos_arguments: [{ literal: { integer: 41 } },
			{ literal: { string: 'p' } }] } } } } });
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	assert.deepEqual((await ok(s, 'SELECT a, b FROM db_p.t')).rows,
	    [[41, 'p']]);
});

test('SHOW TABLES IN db lists temp views with an empty namespace', T,
    async () => {
	const s = new lib.Session(srv);
	await ok(s, 'CREATE DATABASE db_v');
	await ok(s, 'CREATE TABLE db_v.k1 (a INT)');
	await ok(s, 'CREATE TABLE db_v.k2 (a INT)');
	await ok(s, 'CREATE TEMPORARY VIEW tv AS SELECT 1 AS a');
	const r = await ok(s, 'SHOW TABLES FROM db_v');
	assert.deepEqual(r.names, ['namespace', 'tableName', 'isTemporary']);
	assert.deepEqual(r.rows, [['db_v', 'k1', false],
		['db_v', 'k2', false], ['', 'tv', true]]);
	assert.deepEqual((await ok(s, 'SHOW TABLES IN db_v LIKE \'k2\''))
	    .rows, [['db_v', 'k2', false]]);
	await fails(s, 'SHOW TABLES IN db_gone', 'SCHEMA_NOT_FOUND',
	    '42704');
});

test('DROP DATABASE: RESTRICT refuses tables, CASCADE drops them', T,
    async () => {
	const s = new lib.Session(srv);
	await ok(s, 'CREATE DATABASE db_d');
	await ok(s, 'CREATE TABLE db_d.t (a INT)');
	await fails(s, 'DROP DATABASE db_d', 'SCHEMA_NOT_EMPTY', '2BP01');
	await fails(s, 'DROP SCHEMA db_d RESTRICT', 'SCHEMA_NOT_EMPTY',
	    '2BP01');
	await ok(s, 'DROP TABLE db_d.t');
	await ok(s, 'DROP DATABASE db_d');
	await ok(s, 'CREATE DATABASE db_d');
	await ok(s, 'CREATE TABLE db_d.t2 (a INT)');
	await ok(s, 'DROP SCHEMA db_d CASCADE');
	await fails(s, 'DROP DATABASE db_d', 'SCHEMA_NOT_FOUND', '42704');
	await ok(s, 'DROP DATABASE IF EXISTS db_d');
	const nf = await read(s, table('db_d.t2'));
	lib.assertSparkError(nf.error, 'TABLE_OR_VIEW_NOT_FOUND', '42P01');
	// Created again, it is empty.
	await ok(s, 'CREATE DATABASE db_d');
	assert.deepEqual((await ok(s, 'SHOW TABLES IN db_d')).rows, []);
	await fails(s, 'DROP DATABASE default',
	    'UNSUPPORTED_FEATURE.DROP_DATABASE', '0A000');
});

lib.stopTest(srv);
