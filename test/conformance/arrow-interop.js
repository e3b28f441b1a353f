// SPDX-License-Identifier: MIT
//
// arrow-interop.js: the independent Arrow peer for lib/core/arrow, using
// npm apache-arrow (NODE_PATH=build/node/node_modules).
//
//   node arrow-interop.js read    IPC stream on stdin -> JSON lines, in
//                                 exactly the format of 'arrow-tool read'
//   node arrow-interop.js write   an IPC stream of every type the C reader
//                                 supports (nested included, nulls, four
//                                 batches) on stdout
//   node arrow-interop.js json    the JSON lines of the table 'write'
//                                 writes, formatted from the in-memory
//                                 data (never serialized)
//
// The JSON formatting mirrors sc_arrow_format_value(SC_ARROW_FMT_JSON)
// and is written from raw buffers (BigInt for 64-bit and decimals), so no
// precision is lost.
'use strict';

const A = require('apache-arrow');

// ---- formatting ---------------------------------------------------------

function isValid(d, i) {
	if (d.type.typeId === A.Type.Null)
		return false;
	if (d.nullCount === 0)
		return true;
	const bm = d.nullBitmap;
	if (!bm || bm.length === 0)
		return false;
	const j = d.offset + i;
	return ((bm[j >> 3] >> (j & 7)) & 1) === 1;
}

// Shortest digits (at least two tried) that round-trip, Java layout.
function javaDouble(v, isFloat) {
	if (Number.isNaN(v))
		return 'NaN';
	if (v === Infinity)
		return 'Infinity';
	if (v === -Infinity)
		return '-Infinity';
	if (v === 0)
		return Object.is(v, -0) ? '-0.0' : '0.0';
	const neg = v < 0;
	const a = Math.abs(v);
	let s;
	for (let p = 2; p <= 17; p++) {
		s = a.toExponential(p - 1);
		const r = Number(s);
		if (isFloat ? Math.fround(r) === a : r === a)
			break;
	}
	const [mant, ex] = s.split('e');
	let d = mant.replace('.', '');
	while (d.length > 1 && d.endsWith('0'))
		d = d.slice(0, -1);
	const e = parseInt(ex, 10);
	let t;
	if (e >= -3 && e < 7) {
		if (e < 0) {
			t = '0.' + '0'.repeat(-e - 1) + d;
		} else {
			let ip = '';
			for (let i = 0; i <= e; i++)
				ip += i < d.length ? d[i] : '0';
			const fp = d.slice(e + 1);
			t = ip + '.' + (fp.length ? fp : '0');
		}
	} else {
		t = d[0] + '.' + (d.length > 1 ? d.slice(1) : '0') + 'E' + e;
	}
	return (neg ? '-' : '') + t;
}

function decimalText(words, i, scale) {
	let v = 0n;
	for (let k = 3; k >= 0; k--)
		v = (v << 32n) | BigInt(words[4 * i + k]);
	if (v >> 127n)
		v -= 1n << 128n;
	const neg = v < 0n;
	let s = (neg ? -v : v).toString();
	if (scale > 0) {
		s = s.padStart(scale + 1, '0');
		const k = s.length - scale;
		s = s.slice(0, k) + '.' + s.slice(k);
	}
	return (neg ? '-' : '') + s;
}

function pad(n, w) {
	return String(n).padStart(w, '0');
}

function dateText(z) {
	z += 719468;
	const era = Math.floor(z / 146097);
	const doe = z - era * 146097;
	const yoe = Math.floor((doe - Math.floor(doe / 1460) +
	    Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
	const doy = doe - (365 * yoe + Math.floor(yoe / 4) -
	    Math.floor(yoe / 100));
	const mp = Math.floor((5 * doy + 2) / 153);
	const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
	const m = mp < 10 ? mp + 3 : mp - 9;
	const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
	let ys;
	if (y > 9999)
		ys = '+' + y;
	else if (y < 0)
		ys = '-' + pad(-y, 4);
	else
		ys = pad(y, 4);
	return ys + '-' + pad(m, 2) + '-' + pad(d, 2);
}

function timestampText(us) {
	const day = 86400000000n;
	let days = us / day, rem = us % day;
	if (rem < 0n) {
		days -= 1n;
		rem += day;
	}
	const secs = Number(rem / 1000000n), frac = Number(rem % 1000000n);
	let s = dateText(Number(days)) + ' ' + pad(Math.floor(secs / 3600), 2) +
	    ':' + pad(Math.floor(secs / 60) % 60, 2) + ':' + pad(secs % 60, 2);
	if (frac)
		s += '.' + pad(frac, 6).replace(/0+$/, '');
	return s;
}

// The wall clock of an instant (microseconds) in zone tz, as sctk shows a
// timestamp column that carries a zone; the offset comes from Intl.
function wallClock(us, tz) {
	if (!tz || tz === 'UTC')
		return us;
	const ms = Number(us / 1000n) - (us % 1000n < 0n ? 1 : 0);
	const parts = {};
	for (const p of new Intl.DateTimeFormat('en-US', { timeZone: tz,
	    hourCycle: 'h23', year: 'numeric', month: 'numeric',
	    day: 'numeric', hour: 'numeric', minute: 'numeric',
	    second: 'numeric', era: 'short' }).formatToParts(new Date(ms)))
		parts[p.type] = p.value;
	let y = Number(parts.year);
	if (parts.era === 'BC')
		y = 1 - y;
	const local = new Date(0);
	local.setUTCFullYear(y, Number(parts.month) - 1, Number(parts.day));
	local.setUTCHours(Number(parts.hour), Number(parts.minute),
	    Number(parts.second), 0);
	const off = Math.round((local.getTime() - Math.floor(ms / 1000) * 1000) /
	    1000);
	return us + BigInt(off) * 1000000n;
}

const decoder = new TextDecoder('utf-8');

function hex(b) {
	return Buffer.from(b.buffer, b.byteOffset, b.byteLength)
	    .toString('hex');
}

function slot(d, i) {
	const o = d.valueOffsets;
	const j = d.offset + i;
	return [Number(o[j]), Number(o[j + 1])];
}

function json(d, i) {
	if (!isValid(d, i))
		return 'null';
	const t = d.type;
	const j = d.offset + i;
	switch (t.typeId) {
	case A.Type.Bool:
		return ((d.values[j >> 3] >> (j & 7)) & 1) ? 'true' : 'false';
	case A.Type.Int:
		return String(d.values[j]);
	case A.Type.Float: {
		const v = d.values[j];
		const s = javaDouble(v, t.precision === A.Precision.SINGLE);
		return Number.isFinite(v) ? s : JSON.stringify(s);
	}
	case A.Type.Decimal:
		return decimalText(d.values, j, t.scale);
	case A.Type.Utf8:
	case A.Type.LargeUtf8: {
		const [a, e] = slot(d, i);
		return JSON.stringify(decoder.decode(d.values.subarray(a, e)));
	}
	case A.Type.Binary:
	case A.Type.LargeBinary: {
		const [a, e] = slot(d, i);
		return '"' + hex(d.values.subarray(a, e)) + '"';
	}
	case A.Type.Date:
		return '"' + dateText(d.values[j]) + '"';
	case A.Type.Timestamp:
		return '"' + timestampText(wallClock(BigInt(d.values[j]),
		    t.timezone)) + '"';
	case A.Type.Struct:
		return '{' + t.children.map((f, k) => JSON.stringify(f.name) +
		    ':' + json(d.children[k], j)).join(',') + '}';
	case A.Type.List:
	case A.Type.LargeList: {
		const [a, e] = slot(d, i);
		const out = [];
		for (let k = a; k < e; k++)
			out.push(json(d.children[0], k));
		return '[' + out.join(',') + ']';
	}
	case A.Type.Map: {
		const [a, e] = slot(d, i);
		const ent = d.children[0];
		const key = ent.children[0], val = ent.children[1];
		const obj = key.type.typeId === A.Type.Utf8 ||
		    key.type.typeId === A.Type.LargeUtf8;
		const out = [];
		for (let k = a; k < e; k++) {
			const kt = isValid(key, k) ? json(key, k) : '"null"';
			if (obj)
				out.push(kt + ':' + json(val, k));
			else
				out.push('{"key":' + json(key, k) +
				    ',"value":' + json(val, k) + '}');
		}
		const body = out.join(',');
		return obj ? '{' + body + '}' : '[' + body + ']';
	}
	default:
		throw new Error('unsupported type ' + t);
	}
}

function batchLines(batch) {
	const fields = batch.schema.fields;
	const cols = batch.data.children;
	const lines = [];
	for (let r = 0; r < batch.numRows; r++)
		lines.push('{' + fields.map((f, c) => '"' + f.name + '":' +
		    json(cols[c], r)).join(',') + '}\n');
	return lines.join('');
}

// ---- building data from JS values -----------------------------------

function bitmap(n, bit) {
	const b = new Uint8Array((n + 7) >> 3);
	for (let i = 0; i < n; i++)
		if (bit(i))
			b[i >> 3] |= 1 << (i & 7);
	return b;
}

// Build Data of type t from values (null = null slot).
function build(t, vals) {
	const n = vals.length;
	let nulls = 0;
	for (const v of vals)
		if (v === null)
			nulls++;
	const nullBitmap = bitmap(n, (i) => vals[i] !== null);
	const base = { type: t, length: n, nullCount: nulls, nullBitmap };
	const enc = new TextEncoder();
	switch (t.typeId) {
	case A.Type.Null:
		return A.makeData({ type: t, length: n, nullCount: n });
	case A.Type.Bool:
		return A.makeData({ ...base, data: bitmap(n, (i) => vals[i]) });
	case A.Type.Int:
	case A.Type.Float:
	case A.Type.Date:
	case A.Type.Timestamp: {
		const big = t.ArrayType === BigInt64Array;
		const arr = new t.ArrayType(n);
		vals.forEach((v, i) => {
			arr[i] = v === null ? (big ? 0n : 0) : v;
		});
		return A.makeData({ ...base, data: arr });
	}
	case A.Type.Decimal: {
		const arr = new Uint32Array(4 * n);
		vals.forEach((v, i) => {
			let u = v === null ? 0n : BigInt.asUintN(128, v);
			for (let k = 0; k < 4; k++) {
				arr[4 * i + k] = Number(u & 0xffffffffn);
				u >>= 32n;
			}
		});
		return A.makeData({ ...base, data: arr });
	}
	case A.Type.Utf8:
	case A.Type.LargeUtf8:
	case A.Type.Binary:
	case A.Type.LargeBinary: {
		const large = t.typeId === A.Type.LargeUtf8 ||
		    t.typeId === A.Type.LargeBinary;
		const parts = vals.map((v) => v === null ? new Uint8Array(0) :
		    typeof v === 'string' ? enc.encode(v) : Uint8Array.from(v));
		const offs = large ? new BigInt64Array(n + 1) :
		    new Int32Array(n + 1);
		let total = 0;
		parts.forEach((p, i) => {
			total += p.length;
			offs[i + 1] = large ? BigInt(total) : total;
		});
		const data = new Uint8Array(total);
		let at = 0;
		for (const p of parts) {
			data.set(p, at);
			at += p.length;
		}
		return A.makeData({ ...base, valueOffsets: offs, data });
	}
	case A.Type.Struct: {
		const children = t.children.map((f) => build(f.type,
		    vals.map((v) => v === null ? null : v[f.name])));
		return A.makeData({ ...base, children });
	}
	case A.Type.List:
	case A.Type.LargeList:
	case A.Type.Map: {
		const large = t.typeId === A.Type.LargeList;
		const flat = [];
		const offs = large ? new BigInt64Array(n + 1) :
		    new Int32Array(n + 1);
		vals.forEach((v, i) => {
			if (v !== null)
				for (const e of v)
					flat.push(t.typeId === A.Type.Map ?
					    { key: e[0], value: e[1] } : e);
			offs[i + 1] = large ? BigInt(flat.length) : flat.length;
		});
		const child = build(t.children[0].type, flat);
		return A.makeData({ ...base, valueOffsets: offs, child });
	}
	default:
		throw new Error('cannot build ' + t);
	}
}

function field(name, type, nullable = true) {
	return new A.Field(name, type, nullable);
}

function schema() {
	const entries = (k, v) => field('entries', new A.Struct([
	    field('key', k, false), field('value', v, true)]), false);
	return new A.Schema([
		field('n', new A.Null()),
		field('b', new A.Bool()),
		field('i8', new A.Int8()),
		field('i16', new A.Int16()),
		field('i32', new A.Int32(), false),
		field('i64', new A.Int64()),
		field('f32', new A.Float32()),
		field('f64', new A.Float64()),
		field('dec', new A.Decimal(3, 20, 128)),
		field('s', new A.Utf8()),
		field('ls', new A.LargeUtf8()),
		field('bin', new A.Binary()),
		field('lbin', new A.LargeBinary()),
		field('d', new A.DateDay()),
		field('ts', new A.TimestampMicrosecond('America/Los_Angeles')),
		field('tsntz', new A.TimestampMicrosecond()),
		field('st', new A.Struct([field('a', new A.Int32()),
		    field('b', new A.List(field('element', new A.Utf8())))])),
		field('l', new A.List(field('element', new A.Struct([
		    field('x', new A.Float64()),
		    field('y', new A.Map_(entries(new A.Utf8(),
		        new A.Int64())))])))),
		field('ll', new A.LargeList(field('element', new A.LargeList(
		    field('element', new A.Int16()))))),
		field('m', new A.Map_(entries(new A.Utf8(),
		    new A.List(field('element', new A.Int64()))))),
		field('mi', new A.Map_(entries(new A.Int32(), new A.Utf8()))),
	]);
}

// Row r of the table; every column is a pure function of r.
function row(r) {
	const nul = (c) => (r + c) % 4 === 3;
	const pick = (a, k = 0) => a[(r + k) % a.length];
	return {
		n: null,
		b: nul(1) ? null : r % 3 === 0,
		i8: nul(2) ? null : pick([-128, 127, 0, -1, 42]),
		i16: nul(3) ? null : pick([-32768, 32767, 0, 1234]),
		i32: pick([-2147483648, 2147483647, 0, 7, -65536]),
		i64: nul(5) ? null : pick([-(2n ** 63n), 2n ** 63n - 1n, 0n,
		    9007199254740993n, -42n]),
		f32: nul(6) ? null : Math.fround(pick([1, 0.1, -3.4e38, 1e-45,
		    NaN, 16777216, 1e7, 0.001, -Infinity])),
		f64: nul(7) ? null : pick([0.1, -0, 1e7, 1e-4, 123456789.125,
		    NaN, Infinity, 5e-324, 1.7976931348623157e308, 0.001,
		    1e21]),
		dec: nul(8) ? null : pick([0n, -1n, 12345n,
		    -(10n ** 20n - 1n), 10n ** 20n - 1n, 5n]),
		s: nul(9) ? null : pick(['', 'héllo', 'q"b\\', 'c\u0001\n\t',
		    '\u2028 \ud83d\ude00', 'a,b']),
		ls: nul(10) ? null : pick(['large', '', 'ß', 'x'.repeat(40)]),
		bin: nul(11) ? null : pick([[], [0], [255, 1, 2],
		    [0xde, 0xad]]),
		lbin: nul(12) ? null : pick([[1, 2, 3], [], [0x80]]),
		d: nul(13) ? null : pick([0, -1, 19000, -719528, 2932896,
		    2932897, -800000]),
		ts: nul(14) ? null : pick([0n, 1n, -1n, 1700000000123456n,
		    -62135596800000000n, 253402300799999999n]),
		tsntz: nul(15) ? null : pick([86399999999n, -86400000001n,
		    1000n, 0n, 1500000000000000n]),
		st: nul(16) ? null : { a: r % 5 === 2 ? null : r * 10,
		    b: r % 3 === 1 ? null :
		    pick([[], ['x'], ['y', null, 'z']]) },
		l: nul(17) ? null : pick([[], [null],
		    [{ x: 1.5, y: [['k', 1n], ['l', null]] },
		    { x: null, y: null }],
		    [{ x: -0, y: [] }]]),
		ll: nul(18) ? null : pick([[[1, 2], [], null], [], [[-32768]]]),
		m: nul(19) ? null : pick([[], [['a', [1n, 2n]], ['b', null]],
		    [['', []]]]),
		mi: nul(20) ? null : pick([[[1, 'one'], [-2, null]], [],
		    [[2147483647, 'max']]]),
	};
}

const SIZES = [4, 0, 9, 3];

function batches() {
	const sc = schema();
	const out = [];
	let r = 0;
	for (const size of SIZES) {
		const rows = [];
		for (let i = 0; i < size; i++)
			rows.push(row(r++));
		const children = sc.fields.map((f) => build(f.type,
		    rows.map((x) => x[f.name])));
		const data = A.makeData({ type: new A.Struct(sc.fields),
		    length: size, nullCount: 0, children });
		out.push(new A.RecordBatch(sc, data));
	}
	return out;
}

// ---- modes --------------------------------------------------------------

function readStdin() {
	const chunks = [];
	const fs = require('fs');
	const buf = Buffer.alloc(65536);
	for (;;) {
		let n;
		try {
			n = fs.readSync(0, buf, 0, buf.length, null);
		} catch (e) {
			if (e.code === 'EAGAIN')
				continue;
			if (e.code === 'EOF')
				break;
			throw e;
		}
		if (n === 0)
			break;
		chunks.push(Buffer.from(buf.subarray(0, n)));
	}
	return Buffer.concat(chunks);
}

function main() {
	const mode = process.argv[2];
	if (mode === 'read') {
		const table = A.tableFromIPC(readStdin());
		for (const b of table.batches)
			process.stdout.write(batchLines(b));
	} else if (mode === 'write') {
		const bytes = A.tableToIPC(new A.Table(batches()), 'stream');
		process.stdout.write(Buffer.from(bytes));
	} else if (mode === 'json') {
		for (const b of batches())
			process.stdout.write(batchLines(b));
	} else {
		process.stderr.write(
		    'usage: arrow-interop.js read | write | json\n');
		process.exit(2);
	}
}

main();
