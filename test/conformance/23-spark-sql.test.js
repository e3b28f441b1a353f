// SPDX-License-Identifier: MIT
//
// 23-spark-sql: the table of Spark SQL statements and Spark's answers
// (test/sql/spark-sql.tsv) through the Node client, as PySpark's
// spark.sql() sends them: a SqlCommand; a query comes back as a relation
// to execute, a statement as a local relation with its rows.  Each "ok"
// row's schema (names and types) and rows, a query's schema also through
// AnalyzePlan; each "error" row's class.  "xfail" rows hold Spark's
// answer where sc-serve does not give it yet: they are skipped, with the
// reason.

'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer();
const { T } = lib;
const TABLE = path.join(__dirname, '..', 'sql', 'spark-sql.tsv');

const rows = fs.readFileSync(TABLE, 'utf8').split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
	    const [expect, query, schema, data] = l.split('\t');
	    return { expect, query, schema, data };
    });

// A DataType message's name as DESCRIBE writes it.
function protoTypeName(dt) {
	const simple = { long: 'bigint', integer: 'int', short: 'smallint',
	    byte: 'tinyint', string: 'string', boolean: 'boolean',
	    double: 'double', float: 'float', date: 'date',
	    timestamp: 'timestamp', timestamp_ntz: 'timestamp_ntz',
	    binary: 'binary', null: 'void' };
	if (dt.kind === 'decimal')
		return `decimal(${dt.decimal.precision},${dt.decimal.scale})`;
	return simple[dt.kind] ?? dt.kind;
}

// An Arrow field's type as DESCRIBE writes it.
function arrowTypeName(t) {
	const A = lib.arrow;
	if (A.DataType.isUtf8(t) || A.DataType.isLargeUtf8(t))
		return 'string';
	if (A.DataType.isBool(t))
		return 'boolean';
	if (A.DataType.isInt(t))
		return { 8: 'tinyint', 16: 'smallint', 32: 'int', 64: 'bigint' }[
		    t.bitWidth];
	if (A.DataType.isFloat(t))
		return t.precision === A.Precision.DOUBLE ? 'double' : 'float';
	if (A.DataType.isDecimal(t))
		return `decimal(${t.precision},${t.scale})`;
	if (A.DataType.isDate(t))
		return 'date';
	if (A.DataType.isTimestamp(t))
		return t.timezone ? 'timestamp' : 'timestamp_ntz';
	if (A.DataType.isNull(t))
		return 'void';
	if (A.DataType.isBinary(t))
		return 'binary';
	return String(t);
}

function pad(n, w = 2) {
	return String(n).padStart(w, '0');
}

// A value as sc-exec writes it (Java's and Spark's text).
function render(v, t) {
	const A = lib.arrow;
	if (v === null || v === undefined)
		return 'NULL';
	if (A.DataType.isBool(t))
		return v ? 'true' : 'false';
	if (A.DataType.isFloat(t)) {
		if (Number.isNaN(v))
			return 'NaN';
		if (Number.isInteger(v) && Math.abs(v) < 1e7)
			return v.toFixed(1);
		return String(v);
	}
	if (A.DataType.isDecimal(t)) {
		// The unscaled integer, little-endian 32-bit words.
		const words = new Uint32Array(v.buffer, v.byteOffset, 4);
		let n = 0n;
		for (let i = 3; i >= 0; i--)
			n = (n << 32n) | BigInt(words[i]);
		if (words[3] & 0x80000000)
			n -= 1n << 128n;
		const neg = n < 0n;
		let s = (neg ? -n : n).toString().padStart(t.scale + 1, '0');
		if (t.scale > 0)
			s = `${s.slice(0, -t.scale)}.${s.slice(-t.scale)}`;
		return (neg ? '-' : '') + s;
	}
	if (A.DataType.isDate(t)) {
		const d = new Date(Number(v));
		return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-` +
		    pad(d.getUTCDate());
	}
	if (A.DataType.isTimestamp(t)) {
		const d = new Date(Number(v));
		let s = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-` +
		    `${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:` +
		    `${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
		if (d.getUTCMilliseconds() !== 0)
			s += `.${pad(d.getUTCMilliseconds(), 3)}`.replace(/0+$/, '');
		return s;
	}
	return String(v);
}

// Schema "name:type|..." and rows "v|v;v|v" of Arrow tables.
function tablesText(tables) {
	let schema = null;
	const out = [];
	for (const tbl of tables) {
		schema ??= tbl.schema.fields.map((f) =>
		    `${f.name}:${arrowTypeName(f.type)}`).join('|');
		for (let r = 0; r < tbl.numRows; r++)
			out.push(tbl.schema.fields.map((f, i) =>
			    render(tbl.getChildAt(i).get(r), f.type)).join('|'));
	}
	return { schema: schema ?? '', data: out.join(';') };
}

// Run q as spark.sql() does: { error } or { schema, data, relation }.
async function sparkSql(s, q) {
	const r = await s.execute(lib.sqlCommandPlan(q));
	if (r.status.code !== lib.code.OK)
		return { error: lib.streamError(r) };
	const res = r.responses.find((x) => x.sql_command_result);
	assert.ok(res, `${q}: no sql_command_result`);
	const rel = res.sql_command_result.relation;
	if (rel.rel_type === 'local_relation') {
		const lr = rel.local_relation;
		if (lr._data !== 'data')
			return { schema: '', data: '' };
		return tablesText([lib.arrow.tableFromIPC(lr.data)]);
	}
	const e = await s.execute({ root: rel });
	if (e.status.code !== lib.code.OK)
		return { error: lib.streamError(e) };
	const got = tablesText(lib.decodeBatches(e.responses).batches
	    .map((b) => b.table));
	const sch = e.responses.find((x) => x.schema);
	if (sch)
		got.schema = sch.schema.struct.fields.map((f) =>
		    `${f.name}:${protoTypeName(f.data_type)}`).join('|');
	got.relation = rel;
	return got;
}

const session = { s: null };

test('the table has rows of every kind', T, () => {
	const n = (f) => rows.filter(f).length;
	assert.ok(n((r) => r.expect === 'ok') >= 50);
	assert.ok(n((r) => r.expect.startsWith('error ')) >= 5);
	assert.ok(n((r) => r.expect === 'setup') >= 3);
});

for (const row of rows) {
	const name = `${row.expect.split(' ')[0]}: ${row.query}`;
	if (row.expect.startsWith('xfail')) {
		test(name, { ...T, skip: row.expect.slice(6) }, () => {});
		continue;
	}
	test(name, T, async () => {
		session.s ??= new lib.Session(srv);
		const s = session.s;
		const got = await sparkSql(s, row.query);
		if (row.expect.startsWith('error ')) {
			assert.ok(got.error, `${row.query}: no error`);
			lib.assertSparkError(got.error, row.expect.slice(6));
			return;
		}
		assert.ok(!got.error, got.error && got.error.message);
		if (row.expect === 'setup')
			return;
		assert.equal(got.schema, row.schema, 'schema');
		assert.equal(got.data, row.data, 'rows');
		if (got.relation) {
			const a = await s.analyze({ schema: {
			    plan: { root: got.relation } } });
			assert.equal(a.schema.schema.struct.fields.map((f) =>
			    `${f.name}:${protoTypeName(f.data_type)}`).join('|'),
			row.schema, 'AnalyzePlan schema');
		}
	});
}

test('errors of SQL text carry Spark\'s messageParameters', T, async () => {
	const s = new lib.Session(srv);
	for (const [q, cls, params] of [
		['SELECT * FROM sq_missing_one', 'TABLE_OR_VIEW_NOT_FOUND',
		    { relationName: '`sq_missing_one`' }],
		['SELECT * FROM main.sq_missing_two', 'TABLE_OR_VIEW_NOT_FOUND',
		    { relationName: '`main`.`sq_missing_two`' }],
		['SELECT sq_no_col FROM range(1)',
		    'UNRESOLVED_COLUMN.WITHOUT_SUGGESTION',
		    { objectName: '`sq_no_col`' }],
		['SELEC 1', 'PARSE_SYNTAX_ERROR',
		    { error: "'SELEC'", hint: '' }],
		['USE sq_no_db', 'SCHEMA_NOT_FOUND',
		    { schemaName: '`sq_no_db`' }],
	]) {
		const got = await sparkSql(s, q);
		assert.ok(got.error, `${q}: no error`);
		const { errorInfo } = lib.assertSparkError(got.error, cls);
		assert.deepEqual(JSON.parse(errorInfo.metadata.messageParameters),
		    params, q);
	}
});

lib.stopTest(srv);
