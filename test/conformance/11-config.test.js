// SPDX-License-Identifier: MIT
//
// 11-config: the Config RPC on a session's runtime conf: set, get,
// get_with_default, get_option, get_all (prefix stripped), unset,
// is_modifiable; a missing key is SQL_CONF_NOT_FOUND; server settings are
// readable under their Spark names; conf is per session.

'use strict';

const assert = require('node:assert/strict');
const { test } = require('node:test');
const lib = require('./lib');

const srv = lib.useServer({ conf: {
	'spark.connect.execute.manager.abandonedTombstonesSize': '1234',
} });
const { T } = lib;
const P = 'spark.sctk.conformance.';

// [key, value or undefined (unset)] of a ConfigResponse.
function pairs(resp) {
	return resp.pairs.map((p) => [p.key,
	    p._value === 'value' ? p.value : undefined]);
}

function set(s, obj) {
	return s.config({ set: { pairs: Object.entries(obj).map(
	    ([key, value]) => ({ key, value })) } });
}

test('set then get returns the values in the order asked', T, async () => {
	const s = new lib.Session(srv);
	const r = await set(s, { [`${P}a`]: '1', [`${P}b`]: 'two words' });
	assert.equal(r.session_id, s.sessionId);
	assert.match(r.server_side_session_id, lib.UUID_RE);
	const g = await s.config({ get: { keys: [`${P}b`, `${P}a`] } });
	assert.equal(g.session_id, s.sessionId);
	assert.equal(g.server_side_session_id, r.server_side_session_id);
	assert.deepEqual(pairs(g), [[`${P}b`, 'two words'], [`${P}a`, '1']]);
	await set(s, { [`${P}a`]: 'replaced' });
	assert.deepEqual(pairs(await s.config({ get: { keys: [`${P}a`] } })),
	    [[`${P}a`, 'replaced']]);
});

test('get of a key without a value fails with SQL_CONF_NOT_FOUND', T,
    async () => {
	const s = new lib.Session(srv);
	await set(s, { [`${P}present`]: 'x' });
	const err = await lib.rejects(s.config({ get: {
	    keys: [`${P}present`, `${P}missing`] } }));
	const { message } = lib.assertSparkError(err, 'SQL_CONF_NOT_FOUND');
	assert.ok(message.includes(`${P}missing`), message);
});

test('get_with_default returns the value or the given default', T,
    async () => {
	const s = new lib.Session(srv);
	await set(s, { [`${P}d1`]: 'set' });
	const r = await s.config({ get_with_default: { pairs: [
		{ key: `${P}d1`, value: 'default1' },
		{ key: `${P}d2`, value: 'default2' },
	] } });
	assert.deepEqual(pairs(r), [[`${P}d1`, 'set'],
	    [`${P}d2`, 'default2']]);
});

test('get_option returns the value or leaves it unset', T, async () => {
	const s = new lib.Session(srv);
	await set(s, { [`${P}o1`]: '' });
	const r = await s.config({ get_option: {
	    keys: [`${P}o1`, `${P}o2`] } });
	assert.deepEqual(pairs(r), [[`${P}o1`, ''], [`${P}o2`, undefined]]);
});

test('get_all returns every entry, and with a prefix only those keys ' +
    'with the prefix stripped', T, async () => {
	const s = new lib.Session(srv);
	await set(s, { [`${P}p.x`]: '1', [`${P}p.y`]: '2', [`${P}q`]: '3' });
	const all = new Map(pairs(await s.config({ get_all: {} })));
	assert.equal(all.get(`${P}p.x`), '1');
	assert.equal(all.get(`${P}p.y`), '2');
	assert.equal(all.get(`${P}q`), '3');
	const some = await s.config({ get_all: { prefix: `${P}p.` } });
	assert.deepEqual(pairs(some).sort(), [['x', '1'], ['y', '2']]);
	const none = await s.config({ get_all: { prefix: `${P}nothing.` } });
	assert.deepEqual(pairs(none), []);
});

test('unset removes keys', T, async () => {
	const s = new lib.Session(srv);
	await set(s, { [`${P}u1`]: 'a', [`${P}u2`]: 'b' });
	const r = await s.config({ unset: { keys: [`${P}u1`, `${P}never`] } });
	assert.equal(r.session_id, s.sessionId);
	assert.deepEqual(pairs(await s.config({ get_option: {
	    keys: [`${P}u1`, `${P}u2`] } })),
	    [[`${P}u1`, undefined], [`${P}u2`, 'b']]);
	lib.assertSparkError(await lib.rejects(s.config({ get: {
	    keys: [`${P}u1`] } })), 'SQL_CONF_NOT_FOUND');
});

test('is_modifiable answers "true" or "false" for each key', T,
    async () => {
	const s = new lib.Session(srv);
	const keys = [`${P}m`, 'spark.sql.ansi.enabled',
	    'spark.connect.execute.reattachable.enabled'];
	const r = await s.config({ is_modifiable: { keys } });
	assert.deepEqual(r.pairs.map((p) => p.key), keys);
	for (const [k, v] of pairs(r))
		assert.ok(v === 'true' || v === 'false', `${k}: ${v}`);
	assert.equal(pairs(r)[2][1], 'false',
	    'a server setting cannot be changed by a session');
});

test('server settings are readable under their Spark names', T,
    async () => {
	const s = new lib.Session(srv);
	const r = await s.config({ get: { keys: [
		'spark.connect.execute.manager.abandonedTombstonesSize',
		'spark.connect.execute.reattachable.enabled',
	] } });
	assert.deepEqual(pairs(r), [
		['spark.connect.execute.manager.abandonedTombstonesSize',
		    '1234'],
		['spark.connect.execute.reattachable.enabled', 'true'],
	]);
	const all = new Map(pairs(await s.config({ get_all: {
	    prefix: 'spark.connect.' } })));
	assert.equal(all.get('execute.manager.abandonedTombstonesSize'),
	    '1234');
});

test('conf is per session', T, async () => {
	const a = new lib.Session(srv);
	const b = new lib.Session(srv);
	await set(a, { [`${P}mine`]: 'a' });
	assert.deepEqual(pairs(await b.config({ get_option: {
	    keys: [`${P}mine`] } })), [[`${P}mine`, undefined]]);
	assert.deepEqual(pairs(await a.config({ get_option: {
	    keys: [`${P}mine`] } })), [[`${P}mine`, 'a']]);
});

test('Spark\'s standard settings answer with Spark\'s defaults', T,
    async () => {
	const s = new lib.Session(srv);
	const want = [
		['spark.sql.ansi.enabled', 'true'],
		['spark.sql.shuffle.partitions', '200'],
		['spark.sql.session.timeZone', 'UTC'],
		['spark.sql.session.localRelationCacheThreshold', '1048576'],
		['spark.sql.session.localRelationSizeLimit', '3221225472'],
		['spark.sql.session.localRelationChunkSizeRows', '10000'],
		['spark.sql.session.localRelationChunkSizeBytes', '16777216'],
		['spark.sql.session.localRelationBatchOfChunksSizeBytes',
		    '1073741824'],
		['spark.sql.connect.serverStacktrace.enabled', 'true'],
		['spark.sql.pyspark.jvmStacktrace.enabled', 'false'],
		['spark.sql.execution.pyspark.udf.simplifiedTraceback.enabled',
		    'true'],
		['spark.sql.pyspark.inferNestedDictAsStruct.enabled', 'false'],
		['spark.sql.execution.arrow.pyspark.enabled', 'false'],
		['spark.sql.timestampType', 'TIMESTAMP_LTZ'],
		['spark.sql.caseSensitive', 'false'],
	];
	const r = await s.config({ get: { keys: want.map((w) => w[0]) } });
	assert.deepEqual(pairs(r), want);
	const o = await s.config({ get_option: {
	    keys: ['spark.sql.shuffle.partitions'] } });
	assert.deepEqual(pairs(o), [['spark.sql.shuffle.partitions', '200']]);
	// As Spark: the caller's default wins over an unset setting's own.
	const d = await s.config({ get_with_default: { pairs: [
		{ key: 'spark.sql.shuffle.partitions', value: '7' }] } });
	assert.deepEqual(pairs(d), [['spark.sql.shuffle.partitions', '7']]);
});

test('a session sets Spark\'s settings; one whose other value sc-serve ' +
    'cannot honour is refused', T, async () => {
	const s = new lib.Session(srv);
	await set(s, { 'spark.sql.shuffle.partitions': '8',
	    'spark.sql.ansi.enabled': 'TRUE' });
	assert.deepEqual(pairs(await s.config({ get: { keys: [
	    'spark.sql.shuffle.partitions', 'spark.sql.ansi.enabled'] } })),
	    [['spark.sql.shuffle.partitions', '8'],
		['spark.sql.ansi.enabled', 'TRUE']]);
	const d = await s.config({ get_with_default: { pairs: [
		{ key: 'spark.sql.shuffle.partitions', value: '7' }] } });
	assert.deepEqual(pairs(d), [['spark.sql.shuffle.partitions', '8']]);
	for (const [k, v] of [['spark.sql.timestampType', 'TIMESTAMP_NTZ'],
	    ['spark.sql.mapKeyDedupPolicy', 'LAST_WIN']]) {
		const err = await lib.rejects(set(s, { [k]: v }));
		const { message } = lib.assertSparkError(err,
		    'UNSUPPORTED_FEATURE.SET_CONFIG', '0A000');
		assert.ok(message.includes(k), message);
	}
	assert.deepEqual(pairs(await s.config({ get: { keys: [
	    'spark.sql.ansi.enabled'] } })),
	    [['spark.sql.ansi.enabled', 'TRUE']]);
	await s.config({ unset: { keys: ['spark.sql.shuffle.partitions'] } });
	assert.deepEqual(pairs(await s.config({ get: { keys: [
	    'spark.sql.shuffle.partitions'] } })),
	    [['spark.sql.shuffle.partitions', '200']]);
});

lib.stopTest(srv);
