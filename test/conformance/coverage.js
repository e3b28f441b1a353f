// SPDX-License-Identifier: MIT
//
// coverage.js: how much of Spark's function library sc-serve knows.  Not a
// test: it starts a private sc-serve and calls each function named in
// spark-functions.txt without arguments (over range(1), as
// unresolved_function; a window function over a window ordered by id),
// then sorts the answers:
//   known      it ran, or failed on its arguments (WRONG_NUM_ARGS,
//              DATATYPE_MISMATCH, ...): the name is mapped
//   refused    UNSUPPORTED_FEATURE.*: known by name, refused
//   unknown    UNRESOLVED_ROUTINE
// Prints one line per category with its counts, then the refused and
// unknown names.  Usage, from the top of the tree after a build:
//   NODE_PATH=build/node/node_modules node test/conformance/coverage.js

'use strict';

const fs = require('node:fs');
const path = require('node:path');
const lib = require('./lib');

function readList() {
	const text = fs.readFileSync(path.join(__dirname,
	    'spark-functions.txt'), 'utf8');
	const cats = [];
	for (const line of text.split('\n')) {
		if (line.startsWith('# ') && / Functions$/.test(line))
			cats.push({ name: line.slice(2), fns: [] });
		else if (!line.startsWith('#') && line.trim() !== '' &&
		    cats.length > 0)
			cats[cats.length - 1].fns.push(
			    ...line.trim().split(/\s+/));
	}
	return cats;
}

function classOf(r) {
	if (r.status.code === lib.code.OK)
		return 'known';
	const m = /^\[([A-Z_.]+)\]/.exec(r.status.details || '');
	const cls = m ? m[1] : '';
	if (cls === 'UNRESOLVED_ROUTINE')
		return 'unknown';
	if (cls.startsWith('UNSUPPORTED_FEATURE'))
		return 'refused';
	return 'known';
}

async function main() {
	const srv = await lib.startServer();
	const s = new lib.Session(srv);
	const totals = { known: 0, refused: 0, unknown: 0 };
	const lists = { refused: [], unknown: [] };
	try {
		for (const cat of readList()) {
			const c = { known: 0, refused: 0, unknown: 0 };
			for (const fn of cat.fns) {
				// A window function is only called over a window.
				const call = cat.name === 'Window Functions' ?
				    { window: { window_function: lib.df.fn(fn),
					order_spec: [{ child: lib.df.col('id'),
					    direction:
						'SORT_DIRECTION_ASCENDING',
					    null_ordering:
						'SORT_NULLS_FIRST' }] } } :
				    lib.df.fn(fn);
				const r = await s.execute(lib.df.plan(
				    lib.df.project({ range: { end: '1',
					step: '1' } }, call)));
				const k = classOf(r);
				c[k]++;
				totals[k]++;
				if (k !== 'known')
					lists[k].push(fn);
			}
			console.log(`${cat.name.padEnd(32)} ${cat.fns.length}` +
			    ` names: ${c.known} known, ${c.refused} ` +
			    `refused, ${c.unknown} unknown`);
		}
		const n = totals.known + totals.refused + totals.unknown;
		console.log(`${'all'.padEnd(32)} ${n} names: ${totals.known} ` +
		    `known, ${totals.refused} refused, ${totals.unknown} ` +
		    'unknown');
		console.log(`refused: ${lists.refused.join(' ')}`);
		console.log(`unknown: ${lists.unknown.join(' ')}`);
	} finally {
		await srv.stop();
	}
}

main().catch((e) => {
	console.error(e);
	process.exit(1);
});
