// SPDX-License-Identifier: MIT
//
// 35-ansi-case: the settings that change Spark's answers.  With
// spark.sql.ansi.enabled=false a session gets Spark's non-ANSI answers
// (NULL for division by zero, malformed casts, indexes out of bounds and
// unparsable dates; integer overflow and narrowing casts wrapping as
// Java's do; a string in arithmetic read as a double; size(NULL) -1),
// with the default the ANSI errors.  With spark.sql.caseSensitive=true names resolve in
// exactly their case, in SQL text and DataFrame plans.  A typed
// setting refuses a value of another type as Spark's SQLConf does.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { arrow, df } = lib;
const srv = lib.useServer();
const { T } = lib;

const { lit, fn, col } = df;

function set(s, obj) {
	return s.config({ set: { pairs: Object.entries(obj).map(
	    ([key, value]) => ({ key, value })) } });
}

function pairs(resp) {
	return resp.pairs.map((p) => [p.key,
	    p._value === 'value' ? p.value : undefined]);
}

// A session with spark.sql.ansi.enabled=false, and one with the default.
async function sessions() {
	const ansi = new lib.Session(srv);
	const legacy = new lib.Session(srv);
	await set(legacy, { 'spark.sql.ansi.enabled': 'false' });
	return { ansi, legacy };
}

async function ok(s, plan) {
	const r = await s.execute(plan);
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
	return { rows: lib.resultRows(r.responses),
		fields: lib.resultFields(r.responses) };
}

// A statement run as SqlCommand: it succeeds.
async function cmd(s, query) {
	const r = await s.execute(lib.sqlCommandPlan(query));
	assert.equal(r.status.code, lib.code.OK, lib.statusText(r.status));
}

async function fails(s, plan, cls, state) {
	const r = await s.execute(plan);
	return lib.assertSparkError(lib.streamError(r), cls, state);
}

const sql = (q) => lib.sqlPlan(q);
const select = (...exprs) => df.plan(df.project(null, ...exprs));

// ------------------------------------------------------------ settings

test('typed settings refuse a value of another type: ' +
    'INVALID_CONF_VALUE.TYPE_MISMATCH', T, async () => {
	const s = new lib.Session(srv);
	for (const [k, v, type] of [
		['spark.sql.ansi.enabled', 'maybe', 'boolean'],
		['spark.sql.caseSensitive', '10', 'boolean'],
		['spark.sql.shuffle.partitions', 'abc', 'int'],
		['spark.sql.shuffle.partitions', '2147483648', 'int'],
		['spark.sql.repl.eagerEval.maxNumRows', '1.5', 'int'],
		['spark.sql.execution.arrow.localRelationThreshold', '10x',
		    'long']]) {
		const err = await lib.rejects(set(s, { [k]: v }));
		const { message } = lib.assertSparkError(err,
		    'INVALID_CONF_VALUE.TYPE_MISMATCH', '22022');
		assert.ok(message.includes(`The value '${v}' in the config ` +
		    `"${k}" is invalid. It should be a/an '${type}' value.`),
		    message);
	}
	// Nothing was set; values that convert are kept as given.
	assert.deepEqual(pairs(await s.config({ get: { keys: [
	    'spark.sql.ansi.enabled', 'spark.sql.shuffle.partitions'] } })),
	    [['spark.sql.ansi.enabled', 'true'],
		['spark.sql.shuffle.partitions', '200']]);
	await set(s, { 'spark.sql.shuffle.partitions': '-3',
	    'spark.sql.ansi.enabled': 'FALSE',
	    'spark.sql.execution.arrow.localRelationThreshold': '50m' });
	assert.deepEqual(pairs(await s.config({ get: { keys: [
	    'spark.sql.ansi.enabled', 'spark.sql.shuffle.partitions'] } })),
	    [['spark.sql.ansi.enabled', 'FALSE'],
		['spark.sql.shuffle.partitions', '-3']]);
	// A default of the wrong type is refused, as Spark's getConfString.
	const g = await lib.rejects(s.config({ get_with_default: { pairs: [
		{ key: 'spark.sql.shuffle.partitions', value: 'many' }] } }));
	lib.assertSparkError(g, 'INVALID_CONF_VALUE.TYPE_MISMATCH', '22022');
	// SQL's SET checks the same way.
	await fails(s,
	    lib.sqlCommandPlan('SET spark.sql.shuffle.partitions=abc'),
	    'INVALID_CONF_VALUE.TYPE_MISMATCH', '22022');
	await cmd(s, 'SET spark.sql.caseSensitive=true');
	assert.deepEqual(pairs(await s.config({ get: { keys: [
	    'spark.sql.caseSensitive'] } })),
	    [['spark.sql.caseSensitive', 'true']]);
});

// ---------------------------------------------------------- ANSI mode

test('division and remainder by zero: NULL without ANSI mode', T,
    async () => {
	const { ansi, legacy } = await sessions();
	for (const op of ['/', 'div', '%', 'pmod'])
		await fails(ansi, select(fn(op, lit(7), lit(0))),
		    'DIVIDE_BY_ZERO', '22012');
	const r = await ok(legacy, select(fn('/', lit(7), lit(0)),
	    fn('div', lit(7), lit(0)), fn('%', lit(7), lit(0)),
	    fn('pmod', lit(7), lit(0)), fn('/', lit(1.5), lit(0.0)),
	    fn('%', lit(-7), lit(2))));
	assert.deepEqual(r.rows, [[null, null, null, null, null, -1]]);
	assert.deepEqual(r.fields.map((f) => f[1]), ['Float64', 'Int64',
		'Int32', 'Int32', 'Float64', 'Int32']);
	const q = await ok(legacy, sql('SELECT 1 / 0 AS a, 5 % 0 AS b, ' +
	    'pmod(-7, 0) AS c, 7 div 2 AS d'));
	assert.deepEqual(q.rows, [[null, null, null, 3n]]);
});

test('integer overflow: ARITHMETIC_OVERFLOW, or wraps as Java without ' +
    'ANSI mode', T, async () => {
	const { ansi, legacy } = await sessions();
	const exprs = [fn('+', lit(2147483647), lit(1)),
		fn('-', lit(-2147483648), lit(1)),
		fn('*', lit(65536), lit(65536)),
		fn('*', lit(9223372036854775807n), lit(2n)),
		fn('+', lit(9223372036854775807n), lit(1n)),
		fn('negative', lit(-2147483648))];
	for (const e of exprs)
		await fails(ansi, select(e), 'ARITHMETIC_OVERFLOW', '22003');
	const r = await ok(legacy, select(...exprs));
	assert.deepEqual(r.rows, [[-2147483648, 2147483647, 0, -2n,
		-9223372036854775808n, -2147483648]]);
	assert.deepEqual(r.fields.map((f) => f[1]), ['Int32', 'Int32',
		'Int32', 'Int64', 'Int64', 'Int32']);
	assert.deepEqual(r.fields.map((f) => f[0]), ['(2147483647 + 1)',
		'(-2147483648 - 1)', '(65536 * 65536)',
		'(9223372036854775807 * 2)', '(9223372036854775807 + 1)',
		'(- -2147483648)']);
	const q = await ok(legacy, sql('SELECT -x AS n, x - 1 AS m FROM ' +
	    '(SELECT CAST(-2147483648 AS INT) AS x)'));
	assert.deepEqual(q.rows, [[-2147483648, 2147483647]]);
	// abs() too; a bigint sum past its range fails under ANSI mode,
	// and is refused without it (SQLite cannot wrap it).
	const abs = 'SELECT abs(x) AS a FROM (SELECT CAST(-2147483648 AS ' +
	    'INT) AS x)';
	await fails(ansi, sql(abs), 'ARITHMETIC_OVERFLOW', '22003');
	const b = await ok(legacy, sql(abs));
	assert.deepEqual(b.rows, [[-2147483648]]);
	assert.deepEqual(b.fields.map((f) => f[1]), ['Int32']);
	const sum = 'SELECT sum(x) FROM (SELECT 9223372036854775807 AS x ' +
	    'UNION ALL SELECT 1)';
	await fails(ansi, sql(sum), 'ARITHMETIC_OVERFLOW', '22003');
	await fails(legacy, sql(sum), 'UNSUPPORTED_FEATURE.EXPRESSION',
	    '0A000');
	// Within range both modes agree.
	const a = await ok(ansi, select(fn('+', lit(2147483646), lit(1))));
	assert.deepEqual(a.rows, [[2147483647]]);
});

test('casts: NULL for malformed input, narrowing wraps or saturates ' +
    'without ANSI mode', T, async () => {
	const { ansi, legacy } = await sessions();
	const q = 'SELECT CAST(\'abc\' AS INT) AS a, CAST(\'x\' AS DATE) ' +
	    'AS b, CAST(300 AS TINYINT) AS c, CAST(3.0E10D AS INT) AS d, ' +
	    'CAST(CAST(3000000000 AS BIGINT) AS INT) AS e, ' +
	    'CAST(-3.0E10D AS SMALLINT) AS f, CAST(\'99999999999\' AS INT) ' +
	    'AS g, CAST(12345678901.5 AS INT) AS h, ' +
	    'CAST(\' 12 \' AS INT) AS i';
	const r = await ok(legacy, sql(q));
	assert.deepEqual(r.rows, [[null, null, 44, 2147483647, -1294967296,
		0, null, -539222987, 12]]);
	assert.deepEqual(r.fields.map((f) => [f[1], f[2]]), [
		['Int32', true], ['Date32<DAY>', true], ['Int8', false],
		['Int32', true], ['Int32', false], ['Int16', true],
		['Int32', true], ['Int32', true], ['Int32', true]]);
	await fails(ansi, sql('SELECT CAST(\'abc\' AS INT)'),
	    'CAST_INVALID_INPUT', '22018');
	// A string's fraction: refused by the ANSI cast, dropped without.
	await fails(ansi, sql('SELECT CAST(\'1.9\' AS INT)'),
	    'CAST_INVALID_INPUT', '22018');
	assert.deepEqual((await ok(legacy, sql('SELECT CAST(\'1.9\' AS INT) ' +
	    'AS a, CAST(1.9 AS INT) AS b'))).rows, [[1, 1]]);
	assert.deepEqual((await ok(ansi, sql('SELECT CAST(1.9 AS INT) ' +
	    'AS b'))).rows, [[1]]);
	await fails(ansi, sql('SELECT CAST(\'x\' AS DATE)'),
	    'CAST_INVALID_INPUT', '22018');
	await fails(ansi, sql('SELECT CAST(300 AS TINYINT)'),
	    'CAST_OVERFLOW', '22003');
	await fails(ansi, sql('SELECT CAST(3.0E10D AS INT)'),
	    'CAST_OVERFLOW', '22003');
	// A decimal that does not fit: NULL, unless the double it travels
	// as cannot tell (past 15 digits), which is refused.
	assert.deepEqual((await ok(legacy, sql('SELECT CAST(123.456 AS ' +
	    'DECIMAL(2,1)) AS a, CAST(\'123.4\' AS DECIMAL(2,1)) AS b, ' +
	    'CAST(1000 AS DECIMAL(3,0)) AS c'))).rows, [[null, null, null]]);
	await fails(ansi, sql('SELECT CAST(123.456 AS DECIMAL(2,1))'),
	    'CAST_OVERFLOW', '22003');
	// An integer literal past bigint is Spark's decimal(n,0), all of
	// its digits kept.
	assert.deepEqual((await ok(legacy, sql('SELECT typeof(' +
	    '9'.repeat(38) + ') AS t, CAST(' + '9'.repeat(38) +
	    ' AS STRING) AS s'))).rows, [['decimal(38,0)', '9'.repeat(38)]]);
	// The DataFrame cast expression too.
	const c = { cast: { expr: lit('12x'), type_str: 'int' } };
	await fails(ansi, select(c), 'CAST_INVALID_INPUT', '22018');
	const d = await ok(legacy, select(c));
	assert.deepEqual(d.rows, [[null]]);
	assert.deepEqual(d.fields, [['CAST(12x AS INT)', 'Int32', true]]);
});

test('array indexes out of bounds and unparsable dates: NULL without ' +
    'ANSI mode', T, async () => {
	const { ansi, legacy } = await sessions();
	const arr = fn('array', lit(1), lit(2));
	const at = fn('element_at', arr, lit(5));
	const ix = { unresolved_extract_value: { child: arr,
		extraction: lit(5) } };
	await fails(ansi, select(at), 'INVALID_ARRAY_INDEX_IN_ELEMENT_AT',
	    '22003');
	await fails(ansi, select(ix), 'INVALID_ARRAY_INDEX', '22003');
	await fails(ansi, select(fn('to_date', lit('xx'))),
	    'CAST_INVALID_INPUT', '22018');
	await fails(ansi, select(fn('to_timestamp', lit('2020-13-45'),
	    lit('yyyy-MM-dd'))), 'CANNOT_PARSE_TIMESTAMP', '22007');
	const r = await ok(legacy, select(at, ix,
	    fn('element_at', arr, lit(-1)), fn('to_date', lit('xx')),
	    fn('to_timestamp', lit('2020-13-45'), lit('yyyy-MM-dd')),
	    fn('to_date', lit('2020-02-03'))));
	assert.deepEqual(r.rows.map((row) => row.map((v) =>
	    v instanceof Date ? v.toISOString() : v)),
	    [[null, null, 2, null, null, r.rows[0][5]]]);
	assert.equal(new Date(r.rows[0][5]).toISOString().slice(0, 10),
	    '2020-02-03');
	// element_at(array, 0) fails in both modes, as in Spark.
	await fails(legacy, select(fn('element_at', arr, lit(0))),
	    'INVALID_INDEX_OF_ZERO', '22003');
	const q = await ok(legacy, sql('SELECT make_date(2020, 13, 1) AS a, ' +
	    'add_months(\'zz\', 1) AS b'));
	assert.deepEqual(q.rows, [[null, null]]);
	await fails(ansi, sql('SELECT make_date(2020, 13, 1)'),
	    'DATETIME_FIELD_OUT_OF_BOUNDS', '22023');
});

test('size(NULL) is -1 without ANSI mode (array_size stays NULL)', T,
    async () => {
	const { ansi, legacy } = await sessions();
	const q = 'SELECT size(x) AS a, cardinality(x) AS b, ' +
	    'array_size(x) AS c FROM (SELECT CAST(NULL AS ARRAY<INT>) AS x)';
	const r = await ok(legacy, sql(q));
	assert.deepEqual(r.rows, [[-1, -1, null]]);
	assert.deepEqual(r.fields.map((f) => f[2]), [false, false, true]);
	assert.deepEqual((await ok(ansi, sql(q))).rows, [[null, null, null]]);
});

test('a string in arithmetic is a double, in a comparison the other ' +
    'side\'s type, without ANSI mode', T,
    async () => {
	const { legacy } = await sessions();
	const r = await ok(legacy, sql('SELECT \'1\' + 1 AS a, ' +
	    '\'1.5\' * 2 AS b, \'x\' - 1 AS c, 7 / \'2\' AS d'));
	assert.deepEqual(r.rows, [[2, 3, null, 3.5]]);
	assert.deepEqual(r.fields.map((f) => f[1]), ['Float64', 'Float64',
		'Float64', 'Float64']);
	// Compared with a number or boolean, a string takes its type.
	const c = await ok(legacy, sql('SELECT 1 = \'1\' AS a, ' +
	    '2 > \'10\' AS b, \'1.5\' = 1 AS c, 1 = \'x\' AS d, ' +
	    'true = \'true\' AS e, \'1.5\' = 1.5 AS f'));
	assert.deepEqual(c.rows, [[true, false, true, null, true, true]]);
	const { message } = await fails(legacy, sql('SELECT \'7\' div 2'),
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
	assert.ok(message.includes('spark.sql.ansi.enabled=false'), message);
});

test('the mode is read per call: setting it back restores ANSI errors',
    T, async () => {
	const s = new lib.Session(srv);
	await set(s, { 'spark.sql.ansi.enabled': 'false' });
	assert.deepEqual((await ok(s, sql('SELECT 1 / 0 AS a'))).rows,
	    [[null]]);
	await s.config({ unset: { keys: ['spark.sql.ansi.enabled'] } });
	await fails(s, sql('SELECT 1 / 0 AS a'), 'DIVIDE_BY_ZERO', '22012');
	await cmd(s, 'SET spark.sql.ansi.enabled=false');
	assert.deepEqual((await ok(s, sql('SELECT 1 / 0 AS a'))).rows,
	    [[null]]);
	// Spark reads a boolean trimmed and in any case.
	await set(s, { 'spark.sql.ansi.enabled': ' TRUE ' });
	await fails(s, sql('SELECT 1 / 0 AS a'), 'DIVIDE_BY_ZERO', '22012');
	await set(s, { 'spark.sql.ansi.enabled': ' False\t' });
	assert.deepEqual((await ok(s, sql('SELECT 1 / 0 AS a'))).rows,
	    [[null]]);
});

// ------------------------------------------------------ case sensitivity

// A session with spark.sql.caseSensitive=true, and one with the default.
async function caseSessions() {
	const insensitive = new lib.Session(srv);
	const sensitive = new lib.Session(srv);
	await set(sensitive, { 'spark.sql.caseSensitive': 'true' });
	return { insensitive, sensitive };
}

function table() {
	return df.local(new arrow.Table({
		a: arrow.vectorFromArray([1, 2], new arrow.Int32()),
		Bc: arrow.vectorFromArray(['x', 'y'], new arrow.Utf8()),
	}));
}

test('SQL text: names resolve in exactly their case', T, async () => {
	const { insensitive, sensitive } = await caseSessions();
	const q = 'SELECT A FROM (SELECT 1 AS a)';
	assert.deepEqual((await ok(insensitive, sql(q))).rows, [[1]]);
	const { message } = await fails(sensitive, sql(q),
	    'UNRESOLVED_COLUMN.WITH_SUGGESTION', '42703');
	assert.ok(message.includes('`A`') && message.includes('[`a`]'),
	    message);
	assert.deepEqual((await ok(sensitive,
	    sql('SELECT a, t.a AS b FROM (SELECT 1 AS a) t'))).rows, [[1, 1]]);
	await fails(sensitive, sql('SELECT T.a FROM (SELECT 1 AS a) t'),
	    'UNRESOLVED_COLUMN.WITH_SUGGESTION', '42703');
	// Struct fields too.
	const sq = 'SELECT s.X AS v FROM (SELECT named_struct(\'x\', 1) AS s)';
	assert.deepEqual((await ok(insensitive, sql(sq))).rows, [[1]]);
	await fails(sensitive, sql(sq), 'FIELD_NOT_FOUND', '42704');
	// GROUP BY keys and CTE names too.
	const g = 'SELECT A, count(*) AS n FROM (SELECT 1 AS a) GROUP BY a';
	assert.deepEqual((await ok(insensitive, sql(g))).rows, [[1, 1n]]);
	await fails(sensitive, sql(g), 'UNRESOLVED_COLUMN.WITH_SUGGESTION',
	    '42703');
	const w = 'WITH T AS (SELECT 1 AS a) SELECT * FROM t';
	assert.deepEqual((await ok(insensitive, sql(w))).rows, [[1]]);
	await fails(sensitive, sql(w), 'TABLE_OR_VIEW_NOT_FOUND', '42P01');
	// Names differing only by case: Spark's answer where sc-serve can
	// give it, a refusal naming them where it cannot.
	const two = await ok(sensitive, sql('SELECT 1 AS a, 2 AS A'));
	assert.deepEqual(two.rows, [[1, 2]]);
	assert.deepEqual(two.fields.map((f) => f[0]), ['a', 'A']);
	const r = await fails(sensitive,
	    sql('SELECT A FROM (SELECT 1 AS a, 2 AS A)'),
	    'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
	assert.ok(r.message.includes('`a` and `A`') ||
	    r.message.includes('`A` and `a`'), r.message);
});

test('table names stay case-insensitive', T, async () => {
	const { sensitive } = await caseSessions();
	await cmd(sensitive, 'CREATE TABLE case_t (a INT)');
	await cmd(sensitive, 'INSERT INTO case_t VALUES (4)');
	assert.deepEqual((await ok(sensitive,
	    sql('SELECT a FROM CASE_T'))).rows, [[4]]);
	await fails(sensitive, sql('SELECT A FROM case_t'),
	    'UNRESOLVED_COLUMN.WITH_SUGGESTION', '42703');
});

test('DataFrame plans: columns, fields, drop and renames in exactly ' +
    'their case', T, async () => {
	const { insensitive, sensitive } = await caseSessions();
	const p = df.plan(df.project(table(), col('A'), col('bc')));
	const r = await ok(insensitive, p);
	assert.deepEqual(r.rows, [[1, 'x'], [2, 'y']]);
	await fails(sensitive, p, 'UNRESOLVED_COLUMN.WITH_SUGGESTION',
	    '42703');
	const e = await ok(sensitive, df.plan(df.project(table(), col('a'),
	    col('Bc'))));
	assert.deepEqual(e.rows, [[1, 'x'], [2, 'y']]);
	// drop() of a name in another case drops nothing (Spark ignores a
	// name the input lacks); withColumnRenamed likewise renames nothing.
	const d = { drop: { input: table(), column_names: ['A'] } };
	assert.deepEqual((await ok(insensitive, df.plan(d))).fields
	    .map((f) => f[0]), ['Bc']);
	assert.deepEqual((await ok(sensitive, df.plan(d))).fields
	    .map((f) => f[0]), ['a', 'Bc']);
	const w = { with_columns_renamed: { input: table(),
		rename_columns_map: { BC: 'z' } } };
	assert.deepEqual((await ok(insensitive, df.plan(w))).fields
	    .map((f) => f[0]), ['a', 'z']);
	assert.deepEqual((await ok(sensitive, df.plan(w))).fields
	    .map((f) => f[0]), ['a', 'Bc']);
	// SQL expression text (selectExpr, filter("...")) as well.
	const x = df.plan(df.filter(table(),
	    { expression_string: { expression: 'A > 1' } }));
	assert.equal((await ok(insensitive, x)).rows.length, 1);
	await fails(sensitive, x, 'UNRESOLVED_COLUMN.WITH_SUGGESTION',
	    '42703');
	const y = df.plan(df.filter(table(),
	    { expression_string: { expression: 'a > 1' } }));
	assert.deepEqual((await ok(sensitive, y)).rows, [[2, 'y']]);
});

lib.stopTest(srv);
