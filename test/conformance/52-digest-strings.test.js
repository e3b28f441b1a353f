// SPDX-License-Identifier: MIT
//
// 52-digest-strings: md5, sha1, sha2, base64, unbase64, hash (Spark's
// Murmur3, seed 42), isnan and nanvl, translate, substring_index with
// the results Spark's function reference documents; what hash() cannot
// type is refused by name.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const { df } = lib;
const srv = lib.useServer();
const { T } = lib;

const lit = df.lit;
const fn = df.fn;

const row = lib.projectRow;

async function refused(s, expr, words) {
	const e = await s.execute(df.plan(df.project(null, expr)));
	const err = lib.streamError(e);
	lib.assertSparkError(err, 'UNSUPPORTED_FEATURE.EXPRESSION', '0A000');
	assert.match(err.details !== undefined ? err.details : err.message,
	    words);
}

test('digests and base64 as documented', T, async () => {
	const s = new lib.Session(srv);
	const r = await row(s, fn('md5', lit('Spark')),
	    fn('sha1', lit('Spark')), fn('sha2', lit('Spark'), lit(256)),
	    fn('sha2', lit('Spark'), lit(7)), fn('base64', lit('Spark SQL')),
	    fn('unbase64', lit('U3BhcmsgU1FM')));
	assert.deepEqual(r.values.slice(0, 5), [
		'8cde774d6f7333752ed72cacddb05126',
		'85f5955f4b27a9a4c2aab6ffe5d7189fc298b92c',
		'529bc3b07127ecb7e53a4dcf1991d9152c24537d919178022b2c42657f79a26b',
		null, 'U3BhcmsgU1FM']);
	assert.equal(Buffer.from(r.values[5]).toString(), 'Spark SQL');
	assert.deepEqual(r.fields.map((f) => f[1]), ['Utf8', 'Utf8', 'Utf8',
		'Utf8', 'Utf8', 'Binary']);
	await refused(s, fn('unbase64', lit('@@')), /unbase64/);
});

test('hash is Spark\'s Murmur3 with seed 42', T, async () => {
	const s = new lib.Session(srv);
	// One row each: the plan's columns would share the name hash(1).
	const r = await row(s, fn('hash', lit(1)),
	    fn('hash', lit({ null: { string: {} } })));
	assert.deepEqual(r.values, [-559580957, 42]);
	assert.deepEqual(r.fields.map((f) => f[1]), ['Int32', 'Int32']);
	const l = await row(s, fn('hash', lit(1n)));
	assert.deepEqual(l.values, [-1712319331]);
	await refused(s, fn('hash', lit('Spark'), fn('array', lit(123)),
	    lit(2)), /hash\(\) of array\(123\)/);
});

test('isnan, nanvl; translate, substring_index as documented', T,
    async () => {
	const s = new lib.Session(srv);
	const nan = fn('sqrt', lit(-1));
	const r = await row(s, fn('isnan', nan), fn('isnan', lit(1.5)),
	    fn('nanvl', nan, lit(123.5)), fn('nanvl', lit(1.5), lit(2.5)),
	    fn('translate', lit('AaBbCc'), lit('abc'), lit('123')),
	    fn('translate', lit('abc'), lit('ab'), lit('x')),
	    fn('substring_index', lit('www.apache.org'), lit('.'), lit(2)),
	    fn('substring_index', lit('www.apache.org'), lit('.'), lit(-2)),
	    fn('substring_index', lit('a'), lit('.'), lit(3)));
	assert.deepEqual(r.values, [true, false, 123.5, 1.5, 'A1B2C3', 'xc',
		'www.apache', 'apache.org', 'a']);
});

test('rand() draws in [0, 1); a seed gives Spark\'s numbers (see ' +
    '41-rand-seed)', T, async () => {
	const s = new lib.Session(srv);
	const r = await row(s, fn('rand'));
	assert.ok(r.values[0] >= 0 && r.values[0] < 1);
	assert.equal(r.fields[0][1], 'Float64');
	// rand(42)'s first number, Spark's documented 1.8575681106759028 / 3.
	const seeded = await row(s, fn('rand', lit(42)));
	assert.equal(seeded.values[0], 0.619189370225301);
});

lib.stopTest(srv);
