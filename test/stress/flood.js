// SPDX-License-Identifier: MIT
//
// flood.js: the Node half of test/stress/run (see there).  One JSON
// line on stdout per run.
//
//   node flood.js detached PORT N        N finished, unreleased operations
//   node flood.js sessions PORT N        N sessions at once (Config each)
//   node flood.js stalled PORT N SECS    N large queries never read for
//                                        SECS, then cancelled

'use strict';

const lib = require('../conformance/lib');

const { code } = lib;

// Run n jobs through fn with at most width at once.
async function pool(n, width, fn) {
	let next = 0;
	const worker = async () => {
		while (next < n) {
			const i = next++;
			await fn(i);
		}
	};
	await Promise.all(Array.from({ length: Math.min(width, n) }, worker));
}

async function detached(port, n) {
	const client = lib.newClient(port);
	const s = new lib.Session(client, { userId: 'stress-detached' });
	let ok = 0, failed = 0;
	const t0 = Date.now();
	await pool(n, 32, async () => {
		const r = await s.execute(lib.sqlPlan('SELECT 1'),
		    { keep: false });
		if (r.status.code === code.OK)
			ok++;
		else
			failed++;
	});
	return { ok, failed, ms: Date.now() - t0 };
}

function errorClass(err) {
	const m = /^\[([A-Z_.]+)\]/.exec(err.details || '');
	return m ? m[1] : `grpc ${err.code}`;
}

async function sessions(port, n) {
	const client = lib.newClient(port);
	const classes = {};
	let ok = 0;
	await pool(n, 64, async (i) => {
		const s = new lib.Session(client, {
			userId: `flood-${i % 8}` });
		try {
			await s.config({ get_all: { prefix: 'spark.app.' } });
			ok++;
		} catch (err) {
			const k = errorClass(err);
			classes[k] = (classes[k] || 0) + 1;
		}
	});
	return { ok, refused: classes };
}

async function stalled(port, n, secs) {
	const calls = [];
	const first = [];
	const statuses = {};
	for (let i = 0; i < n; i++) {
		const client = lib.newClient(port);
		const s = new lib.Session(client, { userId: `stall-${i % 8}` });
		const call = s.startExecute(lib.sqlPlan(
		    'SELECT id, id * 2 AS b FROM range(100000000)'));
		first.push(new Promise((resolve) => {
			call.once('data', () => {
				call.pause(); // a client that stops reading
				resolve(true);
			});
			call.on('error', (err) => {
				const k = errorClass(err);
				statuses[k] = (statuses[k] || 0) + 1;
				resolve(false);
			});
			call.on('end', () => resolve(false));
		}));
		calls.push({ call, client });
	}
	// Those past the server's running cap wait in its queue: they are
	// stalled clients too.  Hold everything for secs either way.
	let started = 0;
	for (const p of first)
		p.then((x) => { if (x) started++; });
	await lib.sleep(secs * 1000);
	for (const c of calls) {
		c.call.cancel();
		c.client.close();
	}
	return { started, failed: statuses };
}

(async () => {
	const [cmd, port, n, secs] = process.argv.slice(2);
	let out;
	if (cmd === 'detached')
		out = await detached(Number(port), Number(n));
	else if (cmd === 'sessions')
		out = await sessions(Number(port), Number(n));
	else if (cmd === 'stalled')
		out = await stalled(Number(port), Number(n), Number(secs));
	else
		throw new Error(`unknown command '${cmd}'`);
	console.log(JSON.stringify(out));
	process.exit(0);
})().catch((e) => {
	console.error(e);
	process.exit(1);
});
