/* SPDX-License-Identifier: MIT */

/*
 * test-parquet-enc.c: lib/parquet's Thrift compact protocol (round trips
 * of every footer and page header struct, unknown fields skipped, bounds)
 * and its encodings: the RLE/bit-packed hybrid at every bit width 0..32
 * with runs across group boundaries, DELTA_BINARY_PACKED at every delta
 * width 0..64, the byte-array DELTA encodings, BYTE_STREAM_SPLIT, PLAIN,
 * dictionaries, and each decoder's refusal of malformed input.
 */

#include "parquet/encoding.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "parquet/codec.h"
#include "parquet/meta.h"
#include "parquet/thrift.h"
#include "tap.h"
#include "core/banned.h"

/* A fixed generator, so every run tests the same values. */
static uint64_t rng = 88172645463325252ULL;

static uint64_t
next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* --- Thrift ------------------------------------------------------------ */

static void
test_thrift_ints(void)
{
	static const int64_t vals[] = { 0, 1, -1, 63, -64, 64, 127, 128,
		INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN };
	struct sc_thrift_rd r;
	struct sc_error err;
	struct sc_buf b;
	int64_t v;
	size_t i;
	bool all = true;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	for (i = 0; i < SC_NELEM(vals); i++)
		sc_thrift_w_zigzag(&b, vals[i]);
	sc_thrift_rd_init(&r, b.data, b.len, &err);
	for (i = 0; i < SC_NELEM(vals); i++)
		if (sc_thrift_i64(&r, &v) == -1 || v != vals[i])
			all = false;
	ok(all && r.p == r.end, "zigzag varints of edge values round trip");
	/* -1 is zigzag 1, 64 is 128: two bytes 0x80 0x01. */
	sc_buf_reset(&b);
	sc_thrift_w_zigzag(&b, 64);
	is_mem(b.data, b.len, "\x80\x01", 2, "64 as zigzag varint 80 01");

	/* An 11-byte varint and a truncated one are refused. */
	sc_thrift_rd_init(&r, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
	    11, &err);
	is_int(sc_thrift_i64(&r, &v), -1, "11-byte varint refused");
	is_str(err.msg,
	    "malformed Parquet metadata: varint longer than 10 bytes",
	    "its message");
	sc_thrift_rd_init(&r, "\x80", 1, &err);
	is_int(sc_thrift_i64(&r, &v), -1, "truncated varint refused");
	is_str(err.msg, "malformed Parquet metadata: truncated varint",
	    "its message");
	sc_buf_release(&b);
}

static void
test_thrift_skip(void)
{
	struct sc_pq_pagehdr ph;
	struct sc_thrift_rd r;
	struct sc_error err;
	struct sc_buf b;
	int16_t last = 0, in;

	/* A page header with unknown fields of every type around its own. */
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_thrift_w_i32(&b, &last, 1, SC_PQ_DICTIONARY_PAGE);
	sc_thrift_w_i32(&b, &last, 2, 10);
	sc_thrift_w_i32(&b, &last, 3, 10);
	sc_thrift_w_bool(&b, &last, 40, true);
	sc_thrift_w_binary(&b, &last, 41, "junk", 4);
	sc_thrift_w_list(&b, &last, 42, SC_THRIFT_STRUCT, 2);
	sc_thrift_w_stop(&b);
	in = 0;
	sc_thrift_w_i64(&b, &in, 7, -5);
	sc_thrift_w_stop(&b);
	sc_thrift_w_field(&b, &last, SC_THRIFT_DOUBLE, 43);
	(void)sc_buf_add(&b, "12345678", 8, NULL);
	sc_thrift_w_field(&b, &last, SC_THRIFT_MAP, 44);
	sc_thrift_w_varint(&b, 1);
	(void)sc_buf_addch(&b, (SC_THRIFT_I32 << 4) | SC_THRIFT_BINARY, NULL);
	sc_thrift_w_zigzag(&b, 3);
	sc_thrift_w_varint(&b, 1);
	(void)sc_buf_addch(&b, 'x', NULL);
	sc_thrift_w_field(&b, &last, SC_THRIFT_STRUCT, 7);
	in = 0;
	sc_thrift_w_i32(&b, &in, 1, 99);
	sc_thrift_w_i32(&b, &in, 2, SC_PQ_PLAIN);
	sc_thrift_w_i32(&b, &in, 200, 1); /* unknown, long delta */
	sc_thrift_w_stop(&b);
	sc_thrift_w_field(&b, &last, SC_THRIFT_BYTE, 45);
	(void)sc_buf_addch(&b, 0x7f, NULL);
	sc_thrift_w_stop(&b);
	sc_thrift_rd_init(&r, b.data, b.len, &err);
	is_int(sc_pq_pagehdr_read(&r, &ph), 0,
	    "page header with unknown fields read");
	is_int(ph.type, SC_PQ_DICTIONARY_PAGE, "its type");
	is_int(ph.num_values, 99,
	    "its dictionary's count, after the skipped fields");
	ok(r.p == r.end, "every byte consumed");
	sc_pq_pagehdr_release(&ph);

	/* A list claiming more elements than bytes left. */
	sc_buf_reset(&b);
	last = 0;
	sc_thrift_w_list(&b, &last, 50, SC_THRIFT_I32, 1000000);
	sc_thrift_rd_init(&r, b.data, b.len, &err);
	is_int(sc_pq_pagehdr_read(&r, &ph), -1, "a huge list count refused");
	is_str(err.msg,
	    "malformed Parquet metadata: list longer than the bytes left",
	    "its message");
	sc_pq_pagehdr_release(&ph);

	/* A binary longer than the bytes left. */
	sc_buf_reset(&b);
	last = 0;
	sc_thrift_w_field(&b, &last, SC_THRIFT_BINARY, 50);
	sc_thrift_w_varint(&b, 1u << 30);
	sc_thrift_rd_init(&r, b.data, b.len, &err);
	is_int(sc_pq_pagehdr_read(&r, &ph), -1, "a huge binary refused");
	is_str(err.msg,
	    "malformed Parquet metadata: binary longer than the bytes left",
	    "its message");
	sc_pq_pagehdr_release(&ph);

	/* Structs nested past the bound. */
	sc_buf_reset(&b);
	for (in = 0; in < 40; in++)
		(void)sc_buf_addch(&b, (1 << 4) | SC_THRIFT_STRUCT, NULL);
	sc_thrift_rd_init(&r, b.data, b.len, &err);
	is_int(sc_pq_pagehdr_read(&r, &ph), -1, "structs 40 deep refused");
	is_str(err.msg, "malformed Parquet metadata: structs nested too deep",
	    "its message");
	sc_pq_pagehdr_release(&ph);

	/* A field of an unknown type (13). */
	sc_thrift_rd_init(&r, "\x1d", 1, &err);
	is_int(sc_pq_pagehdr_read(&r, &ph), -1, "unknown field type refused");
	is_str(err.msg, "malformed Parquet metadata: unknown field type",
	    "its message");
	sc_pq_pagehdr_release(&ph);

	/* Empty input. */
	sc_thrift_rd_init(&r, "", 0, &err);
	is_int(sc_pq_pagehdr_read(&r, &ph), -1, "empty page header refused");
	is_str(err.msg, "malformed Parquet metadata: truncated struct",
	    "its message");
	sc_pq_pagehdr_release(&ph);
	sc_buf_release(&b);
}

static void
test_thrift_pagehdr(void)
{
	static const int types[] = { SC_PQ_DATA_PAGE, SC_PQ_DATA_PAGE_V2,
		SC_PQ_DICTIONARY_PAGE };
	struct sc_pq_pagehdr ph, got;
	struct sc_thrift_rd r;
	struct sc_error err;
	struct sc_buf b;
	size_t i;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	for (i = 0; i < SC_NELEM(types); i++) {
		memset(&ph, 0, sizeof(ph));
		ph.type = types[i];
		ph.uncompressed_size = 1000 + (int32_t)i;
		ph.compressed_size = 500;
		ph.has_crc = true;
		ph.crc = -12345;
		ph.num_values = 77;
		ph.encoding = SC_PQ_RLE_DICTIONARY;
		ph.def_encoding = ph.rep_encoding = SC_PQ_RLE;
		ph.num_nulls = 3;
		ph.num_rows = 70;
		ph.def_len = 11;
		ph.rep_len = 12;
		ph.is_compressed = false;
		ph.is_sorted = true;
		ph.stats.has_null_count = true;
		ph.stats.null_count = 3;
		ph.stats.min = (uint8_t *)"aa";
		ph.stats.min_len = 2;
		ph.stats.max = (uint8_t *)"zzz";
		ph.stats.max_len = 3;
		sc_buf_reset(&b);
		sc_pq_pagehdr_write(&b, &ph);
		sc_thrift_rd_init(&r, b.data, b.len, &err);
		is_int(sc_pq_pagehdr_read(&r, &got), 0,
		    "page type %d: read back", types[i]);
		ok(got.type == ph.type &&
			got.uncompressed_size == ph.uncompressed_size &&
			got.compressed_size == 500 && got.has_crc &&
			got.crc == -12345 && got.num_values == 77 &&
			got.has_header,
		    "page type %d: sizes, crc, count", types[i]);
		if (types[i] == SC_PQ_DATA_PAGE)
			ok(got.encoding == SC_PQ_RLE_DICTIONARY &&
				got.def_encoding == SC_PQ_RLE &&
				got.stats.null_count == 3 &&
				got.stats.min_len == 2 &&
				memcmp(got.stats.max, "zzz", 3) == 0,
			    "v1: encodings and statistics");
		if (types[i] == SC_PQ_DATA_PAGE_V2)
			ok(got.num_nulls == 3 && got.num_rows == 70 &&
				got.def_len == 11 && got.rep_len == 12 &&
				!got.is_compressed && got.stats.has_null_count,
			    "v2: nulls, rows, level lengths, is_compressed");
		if (types[i] == SC_PQ_DICTIONARY_PAGE)
			ok(got.is_sorted &&
				got.encoding == SC_PQ_RLE_DICTIONARY,
			    "dictionary: sorted flag and encoding");
		sc_pq_pagehdr_release(&got);
	}
	sc_buf_release(&b);
}

static void
test_thrift_filemeta(void)
{
	struct sc_pq_schema_el els[3];
	struct sc_pq_colchunk cols[2];
	struct sc_pq_rowgroup g;
	struct sc_pq_filemeta fm, got;
	struct sc_pq_kv kv = { (char *)"k", (char *)"v" };
	int32_t enc[2] = { SC_PQ_PLAIN, SC_PQ_RLE };
	char *path0[1] = { (char *)"a" }, *path1[1] = { (char *)"b" };
	struct sc_thrift_rd r;
	struct sc_error err;
	struct sc_buf b;
	size_t i;

	memset(els, 0, sizeof(els));
	for (i = 0; i < 3; i++) {
		els[i].type = -1;
		els[i].repetition = -1;
		els[i].converted = -1;
		els[i].scale = els[i].precision = els[i].field_id = -1;
	}
	els[0].name = (char *)"schema";
	els[0].num_children = 2;
	els[1].name = (char *)"a";
	els[1].type = SC_PQ_FIXED;
	els[1].type_length = 9;
	els[1].repetition = SC_PQ_OPTIONAL;
	els[1].converted = SC_PQ_CT_DECIMAL;
	els[1].precision = 20;
	els[1].scale = 2;
	els[1].logical.kind = SC_PQ_LT_DECIMAL;
	els[1].logical.precision = 20;
	els[1].logical.scale = 2;
	els[2].name = (char *)"b";
	els[2].type = SC_PQ_INT64;
	els[2].repetition = SC_PQ_REQUIRED;
	els[2].field_id = 7;
	els[2].logical.kind = SC_PQ_LT_TIMESTAMP;
	els[2].logical.utc = false;
	els[2].logical.unit = SC_PQ_NANOS;
	memset(cols, 0, sizeof(cols));
	for (i = 0; i < 2; i++) {
		cols[i].has_meta = true;
		cols[i].file_offset = 4 + (int64_t)i * 100;
		cols[i].meta.type = i ? SC_PQ_INT64 : SC_PQ_FIXED;
		cols[i].meta.encodings = enc;
		cols[i].meta.nencodings = 2;
		cols[i].meta.path = i ? path1 : path0;
		cols[i].meta.npath = 1;
		cols[i].meta.codec = SC_PQ_ZSTD;
		cols[i].meta.num_values = 5;
		cols[i].meta.total_compressed = 90;
		cols[i].meta.total_uncompressed = 300;
		cols[i].meta.data_page_offset = 4 + (int64_t)i * 100;
		cols[i].meta.dictionary_page_offset = -1;
	}
	memset(&g, 0, sizeof(g));
	g.cols = cols;
	g.ncols = 2;
	g.num_rows = 5;
	g.total_byte_size = 600;
	memset(&fm, 0, sizeof(fm));
	fm.version = 2;
	fm.schema = els;
	fm.nschema = 3;
	fm.num_rows = 5;
	fm.rowgroups = &g;
	fm.nrowgroups = 1;
	fm.kv = &kv;
	fm.nkv = 1;
	fm.created_by = (char *)"test";
	fm.ncolumn_orders = 2;
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_pq_filemeta_write(&b, &fm);
	sc_thrift_rd_init(&r, b.data, b.len, &err);
	is_int(sc_pq_filemeta_read(&r, &got), 0, "FileMetaData read back");
	ok(got.version == 2 && got.nschema == 3 && got.num_rows == 5 &&
		got.nrowgroups == 1 && got.nkv == 1 &&
		strcmp(got.created_by, "test") == 0 && got.ncolumn_orders == 2,
	    "version, counts, created_by, column orders");
	ok(strcmp(got.schema[1].name, "a") == 0 &&
		got.schema[1].type == SC_PQ_FIXED &&
		got.schema[1].type_length == 9 &&
		got.schema[1].repetition == SC_PQ_OPTIONAL &&
		got.schema[1].converted == SC_PQ_CT_DECIMAL &&
		got.schema[1].precision == 20 && got.schema[1].scale == 2 &&
		got.schema[1].logical.kind == SC_PQ_LT_DECIMAL &&
		got.schema[1].logical.precision == 20 &&
		got.schema[1].logical.scale == 2,
	    "a decimal element with converted and logical types");
	ok(got.schema[2].field_id == 7 &&
		got.schema[2].logical.kind == SC_PQ_LT_TIMESTAMP &&
		!got.schema[2].logical.utc &&
		got.schema[2].logical.unit == SC_PQ_NANOS &&
		got.schema[2].converted == -1,
	    "a timestamp element: field id, unit, isAdjustedToUTC");
	ok(got.rowgroups[0].ncols == 2 && got.rowgroups[0].num_rows == 5 &&
		got.rowgroups[0].total_byte_size == 600 &&
		got.rowgroups[0].cols[1].file_offset == 104 &&
		got.rowgroups[0].cols[1].meta.codec == SC_PQ_ZSTD &&
		got.rowgroups[0].cols[1].meta.nencodings == 2 &&
		got.rowgroups[0].cols[1].meta.encodings[1] == SC_PQ_RLE &&
		strcmp(got.rowgroups[0].cols[1].meta.path[0], "b") == 0 &&
		got.rowgroups[0].cols[1].meta.dictionary_page_offset == -1 &&
		got.rowgroups[0].cols[1].meta.total_uncompressed == 300,
	    "row group and column chunk metadata");
	ok(strcmp(got.kv[0].key, "k") == 0 && strcmp(got.kv[0].value, "v") == 0,
	    "key-value metadata");
	sc_pq_filemeta_release(&got);

	/* Every truncation of it is refused, never read past its end. */
	{
		size_t n;
		bool all = true;

		for (n = 0; n < b.len; n++) {
			uint8_t *cut = sc_xmemdup(b.data, n + 1);

			sc_thrift_rd_init(&r, cut, n, &err);
			if (sc_pq_filemeta_read(&r, &got) != -1 ||
			    strncmp(err.msg,
				"malformed Parquet metadata: ", 28) != 0)
				all = false;
			sc_pq_filemeta_release(&got);
			free(cut);
		}
		ok(all, "each of %zu truncations refused as malformed", b.len);
	}
	sc_buf_release(&b);
}

/* --- the hybrid -------------------------------------------------------- */

static void
test_rle_spec_example(void)
{
	/* Encodings.md: 0..7 at bit width 3 bit-packed are 88 c6 fa. */
	static const uint32_t v[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	uint32_t out[8];
	struct sc_error err;
	struct sc_buf b;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_pq_enc_rle(&b, v, 8, 3);
	is_mem(b.data, b.len, "\x03\x88\xc6\xfa", 4,
	    "0..7 at width 3: header 03, then 88 c6 fa");
	is_int(sc_pq_dec_rle(b.data, b.len, 3, out, 8, &err), 0, "decoded");
	is_mem(out, sizeof(out), v, sizeof(v), "to 0..7");
	/* A run: 100 times 5 at width 3 is header 200 (c8 01), value 05. */
	{
		uint32_t run[100], got[100];
		size_t i;

		for (i = 0; i < 100; i++)
			run[i] = 5;
		sc_buf_reset(&b);
		sc_pq_enc_rle(&b, run, 100, 3);
		is_mem(b.data, b.len, "\xc8\x01\x05", 3,
		    "a run of 100 fives: c8 01 05");
		is_int(sc_pq_dec_rle(b.data, b.len, 3, got, 100, &err), 0,
		    "the run decoded");
		is_mem(got, sizeof(got), run, sizeof(run), "to 100 fives");
	}
	sc_buf_release(&b);
}

static void
test_rle_widths(void)
{
	enum { N = 1000 };
	uint32_t *v = sc_xcalloc(N, sizeof(*v)),
		 *out = sc_xcalloc(N + 16, sizeof(*out));
	struct sc_error err;
	struct sc_buf b;
	int bw, fails = 0;
	size_t i, n, sizes[] = { 0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, N };
	uint64_t mask;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	for (bw = 0; bw <= 32; bw++) {
		mask = bw == 32 ? 0xffffffffu : ((1ull << bw) - 1);
		for (size_t s = 0; s < SC_NELEM(sizes); s++) {
			n = sizes[s];
			/*
			 * Runs of random lengths (1 to 20) so that they start and
			 * end inside, across and on the groups of eight.
			 */
			for (i = 0; i < n;) {
				uint32_t val = (uint32_t)(next_rand() & mask);
				size_t len = 1 + next_rand() % 20;

				if (next_rand() % 3 == 0)
					val = (uint32_t)mask;
				while (len-- > 0 && i < n)
					v[i++] = val;
			}
			sc_buf_reset(&b);
			sc_pq_enc_rle(&b, v, n, bw);
			memset(out, 0xee, N * sizeof(*out));
			if (sc_pq_dec_rle(b.data, b.len, bw, out, n, &err) !=
				0 ||
			    memcmp(out, v, n * sizeof(*v)) != 0) {
				fails++;
				printf("# width %d, %zu values differ\n", bw,
				    n);
			}
			/* Decoding fewer values than encoded stops early. */
			if (n > 3 &&
			    (sc_pq_dec_rle(b.data, b.len, bw, out, n - 3,
				 &err) != 0 ||
				memcmp(out, v, (n - 3) * sizeof(*v)) != 0))
				fails++;
			/* One value more than the data holds is an error. */
			if (n > 0 && bw > 0 && n % 8 == 0 &&
			    sc_pq_dec_rle(b.data, b.len, bw, out, n + 8 + 1,
				&err) != -1)
				fails++;
		}
	}
	is_int(fails, 0, "hybrid round trips at widths 0..32, %zu sizes each",
	    SC_NELEM(sizes));
	free(v);
	free(out);
	sc_buf_release(&b);
}

static void
test_rle_malformed(void)
{
	struct sc_error err;
	uint32_t out[16];

	is_int(sc_pq_dec_rle((const uint8_t *)"", 0, 1, out, 1, &err), -1,
	    "no run header");
	is_str(err.msg,
	    "malformed Parquet page: run header past the end of the page",
	    "its message");
	is_int(sc_pq_dec_rle((const uint8_t *)"\x10\x09", 2, 3, out, 8, &err),
	    -1, "a run value 9 at width 3");
	is_str(err.msg,
	    "malformed Parquet page: run value wider than its bit width",
	    "its message");
	is_int(sc_pq_dec_rle((const uint8_t *)"\x05\xff", 2, 8, out, 16, &err),
	    -1, "bit-packed groups past the end");
	is_str(err.msg,
	    "malformed Parquet page: bit-packed run past the end of the page",
	    "its message");
	is_int(sc_pq_dec_rle((const uint8_t *)"\x10", 1, 9, out, 8, &err), -1,
	    "a run value missing (two bytes at width 9)");
	is_str(err.msg,
	    "malformed Parquet page: run value past the end of the page",
	    "its message");
	is_int(sc_pq_dec_rle((const uint8_t *)"\x02\x00", 2, 33, out, 1, &err),
	    -1, "width 33 refused");
	is_str(err.msg, "malformed Parquet page: bit width over 32",
	    "its message");
	/* A short last bit-packed run that holds the values asked for. */
	is_int(sc_pq_dec_rle((const uint8_t *)"\x03\xff", 2, 1, out, 8, &err),
	    0, "a last group cut short but holding what is asked");
	ok(out[0] == 1 && out[7] == 1, "its values");
}

/* --- DELTA_BINARY_PACKED ------------------------------------------------ */

static void
test_delta(void)
{
	enum { N = 700 };
	int64_t *v = sc_xcalloc(N, sizeof(*v)),
		*out = sc_xcalloc(N + 16, sizeof(*out));
	struct sc_error err;
	struct sc_buf b;
	size_t used, i, n, sizes[] = { 0, 1, 2, 32, 33, 128, 129, 130, 257, N };
	int w, fails = 0;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	/* Deltas that need exactly w bits beyond the minimum, w = 0..64. */
	for (w = 0; w <= 64; w++)
		for (size_t s = 0; s < SC_NELEM(sizes); s++) {
			n = sizes[s];
			for (i = 0; i < n; i++) {
				uint64_t d = w == 0 ? 0
				    : w == 64	    ? next_rand()
					      : next_rand() & ((1ull << w) - 1);

				if (i == 0)
					v[0] = (int64_t)next_rand();
				else
					v[i] =
					    (int64_t)((uint64_t)v[i - 1] + d);
			}
			sc_buf_reset(&b);
			sc_pq_enc_delta(&b, v, n);
			if (sc_pq_dec_delta(b.data, b.len, false, out, n, &used,
				&err) != 0 ||
			    used != b.len ||
			    memcmp(out, v, n * sizeof(*v)) != 0) {
				fails++;
				printf("# delta width %d, %zu values: %s\n", w,
				    n, err.msg);
			}
		}
	is_int(fails, 0, "delta round trips at widths 0..64, %zu sizes each",
	    SC_NELEM(sizes));

	/* INT32 columns wrap at 32 bits: INT32_MAX + 1 is INT32_MIN. */
	{
		int64_t wrap[3] = { INT32_MAX, INT32_MIN, INT32_MAX };
		int64_t got[3];

		sc_buf_reset(&b);
		/* Encoded as 32-bit deltas of +1 and -1. */
		{
			int64_t as32[3] = { INT32_MAX, (int64_t)INT32_MAX + 1,
				INT32_MAX };

			sc_pq_enc_delta(&b, as32, 3);
		}
		is_int(sc_pq_dec_delta(b.data, b.len, true, got, 3, &used,
			   &err),
		    0, "32-bit deltas decoded");
		ok(got[0] == wrap[0] && got[1] == wrap[1] && got[2] == wrap[2],
		    "wrapping at 32 bits");
	}

	/* Malformed headers and blocks. */
	sc_buf_reset(&b);
	sc_pq_enc_delta(&b, v, 200);
	is_int(sc_pq_dec_delta(b.data, b.len, false, out, 199, &used, &err), -1,
	    "a count other than the header's");
	is_str(err.msg,
	    "malformed Parquet page: delta value count differs from the page's",
	    "its message");
	is_int(sc_pq_dec_delta(b.data, b.len / 2, false, out, 200, &used, &err),
	    -1, "half the bytes");
	ok(strstr(err.msg, "past the end of the page") != NULL,
	    "its message: '%s'", err.msg);
	is_int(sc_pq_dec_delta((const uint8_t *)"\x80\x01\x03\x01\x00", 5,
		   false, out, 1, &used, &err),
	    -1, "3 miniblocks of a 128-value block");
	is_str(err.msg,
	    "malformed Parquet page: delta block sizes out of range",
	    "its message");
	is_int(sc_pq_dec_delta(
		   (const uint8_t *)"\x80\x01\x04\x02\x00\x00\x41\x00\x00\x00",
		   10, false, out, 2, &used, &err),
	    -1, "bit width 65");
	is_str(err.msg, "malformed Parquet page: delta bit width over 64",
	    "its message");
	free(v);
	free(out);
	sc_buf_release(&b);
}

/* DELTA_LENGTH_BYTE_ARRAY of strs: lengths, then the bytes. */
static void
enc_delta_length(struct sc_buf *b, const char *const *strs, size_t n)
{
	int64_t len[16];
	size_t i;

	for (i = 0; i < n; i++)
		len[i] = (int64_t)strlen(strs[i]);
	sc_pq_enc_delta(b, len, n);
	for (i = 0; i < n; i++)
		(void)sc_buf_addstr(b, strs[i], NULL);
}

static void
test_byte_arrays(void)
{
	static const char *const words[] = { "", "apple", "applesauce", "apply",
		"banana", "band", "", "band" };
	static const char *const suffix[] = { "", "apple", "sauce", "y",
		"banana", "d", "", "band" };
	static const int64_t prefix[] = { 0, 0, 5, 4, 0, 3, 0, 0 };
	struct sc_pq_vals v;
	struct sc_error err;
	struct sc_buf b;
	const uint8_t *p;
	size_t i, n, len;
	bool all = true;

	n = SC_NELEM(words);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	enc_delta_length(&b, words, n);
	sc_pq_vals_init(&v, SC_PQ_BYTE_ARRAY, 0);
	is_int(sc_pq_dec_delta_length(&v, b.data, b.len, n, &err), 0,
	    "DELTA_LENGTH_BYTE_ARRAY decoded");
	for (i = 0; i < n; i++) {
		p = sc_pq_vals_get(&v, i, &len);
		if (len != strlen(words[i]) || memcmp(p, words[i], len) != 0)
			all = false;
	}
	ok(all && v.n == n, "its %zu values, empty ones too", n);
	sc_pq_vals_reset(&v);
	is_int(sc_pq_dec_delta_length(&v, b.data, b.len - 1, n, &err), -1,
	    "a byte short");
	is_str(err.msg,
	    "malformed Parquet page: values past the end of the page",
	    "its message");

	sc_buf_reset(&b);
	sc_pq_enc_delta(&b, prefix, n);
	enc_delta_length(&b, suffix, n);
	sc_pq_vals_reset(&v);
	is_int(sc_pq_dec_delta_bytes(&v, b.data, b.len, n, &err), 0,
	    "DELTA_BYTE_ARRAY decoded");
	for (all = true, i = 0; i < n; i++) {
		p = sc_pq_vals_get(&v, i, &len);
		if (len != strlen(words[i]) || memcmp(p, words[i], len) != 0)
			all = false;
	}
	ok(all && v.n == n, "prefixes and suffixes make the words");

	/* A prefix longer than the previous value. */
	{
		static const int64_t bad[] = { 0, 9 };
		static const char *const sfx[] = { "ab", "c" };

		sc_buf_reset(&b);
		sc_pq_enc_delta(&b, bad, 2);
		enc_delta_length(&b, sfx, 2);
		sc_pq_vals_reset(&v);
		is_int(sc_pq_dec_delta_bytes(&v, b.data, b.len, 2, &err), -1,
		    "a prefix past the previous value");
		is_str(err.msg,
		    "malformed Parquet page: prefix longer than the previous value",
		    "its message");
	}

	/* PLAIN: a length past the end. */
	sc_pq_vals_reset(&v);
	is_int(sc_pq_dec_plain(&v,
		   (const uint8_t *)"\x05\x00\x00\x00"
				    "abc",
		   7, 1, NULL, &err),
	    -1, "PLAIN byte array past the end");
	is_str(err.msg,
	    "malformed Parquet page: a value past the end of the page",
	    "its message");
	is_int(sc_pq_dec_plain(&v, (const uint8_t *)"\x01\x00\x00\x00", 4,
		   1000000, NULL, &err),
	    -1, "a million values in four bytes");
	is_str(err.msg,
	    "malformed Parquet page: values past the end of the page",
	    "its message");
	sc_pq_vals_release(&v);
	sc_buf_release(&b);
}

static void
test_plain_bss_dict(void)
{
	struct sc_pq_vals v, d, got;
	struct sc_error err;
	struct sc_buf b;
	double x;
	uint8_t bits[10];
	size_t i;
	bool all = true;

	/* Booleans: bit-packed, least significant bit first. */
	sc_pq_vals_init(&v, SC_PQ_BOOLEAN, 1);
	is_int(sc_pq_dec_plain(&v, (const uint8_t *)"\x05\x01", 2, 10, NULL,
		   &err),
	    0, "10 PLAIN booleans");
	for (i = 0; i < 10; i++)
		bits[i] = v.fix[i];
	is_mem(bits, 10, "\x01\x00\x01\x00\x00\x00\x00\x00\x01\x00", 10,
	    "bits 05 01 are 1,0,1,0,0,0,0,0,1,0");
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_pq_enc_plain(&b, &v, 0, 10);
	is_mem(b.data, b.len, "\x05\x01", 2, "and encode back to 05 01");
	sc_pq_vals_release(&v);

	/* BYTE_STREAM_SPLIT of doubles, round trip. */
	sc_pq_vals_init(&v, SC_PQ_DOUBLE, 8);
	for (i = 0; i < 37; i++) {
		x = (double)i * 1.25e10 - 3.5;
		sc_pq_vals_add(&v, &x, 8);
	}
	sc_buf_reset(&b);
	sc_pq_enc_byte_stream_split(&b, &v);
	sc_pq_vals_init(&got, SC_PQ_DOUBLE, 8);
	is_int(sc_pq_dec_byte_stream_split(&got, b.data, b.len, 37, &err), 0,
	    "BYTE_STREAM_SPLIT decoded");
	is_mem(got.fix, got.n * 8, v.fix, v.n * 8, "37 doubles as they were");
	sc_pq_vals_reset(&got);
	is_int(sc_pq_dec_byte_stream_split(&got, b.data, b.len, 38, &err), -1,
	    "one value more than the bytes");
	is_str(err.msg,
	    "malformed Parquet page: values past the end of the page",
	    "its message");

	/* A dictionary and indices at width 2. */
	sc_pq_vals_init(&d, SC_PQ_BYTE_ARRAY, 0);
	sc_pq_vals_add(&d, "x", 1);
	sc_pq_vals_add(&d, "yy", 2);
	sc_pq_vals_add(&d, "", 0);
	{
		static const uint32_t idx[9] = { 0, 1, 2, 1, 1, 0, 2, 2, 1 };
		struct sc_pq_vals s;
		const uint8_t *p;
		size_t len;

		sc_buf_reset(&b);
		(void)sc_buf_addch(&b, 2, NULL);
		sc_pq_enc_rle(&b, idx, 9, 2);
		sc_pq_vals_init(&s, SC_PQ_BYTE_ARRAY, 0);
		is_int(sc_pq_dec_dict(&s, &d, b.data, b.len, 9, &err), 0,
		    "dictionary indices decoded");
		for (i = 0; i < 9; i++) {
			p = sc_pq_vals_get(&s, i, &len);
			if (len !=
				(idx[i] == 0	      ? 1
					: idx[i] == 1 ? 2
						      : 0) ||
			    (len && p[0] != (idx[i] == 0 ? 'x' : 'y')))
				all = false;
		}
		ok(all, "each the dictionary's value");
		sc_pq_vals_release(&d);
		sc_pq_vals_init(&d, SC_PQ_BYTE_ARRAY, 0);
		sc_pq_vals_add(&d, "x", 1);
		sc_pq_vals_reset(&s);
		is_int(sc_pq_dec_dict(&s, &d, b.data, b.len, 9, &err), -1,
		    "an index past a one-entry dictionary");
		is_str(err.msg,
		    "malformed Parquet page: dictionary index out of range",
		    "its message");
		sc_pq_vals_release(&s);
	}
	sc_pq_vals_release(&d);
	sc_pq_vals_release(&v);
	sc_pq_vals_release(&got);
	sc_buf_release(&b);
}

static void
test_codecs(void)
{
	static const int codecs[] = { SC_PQ_UNCOMPRESSED, SC_PQ_SNAPPY,
		SC_PQ_GZIP, SC_PQ_ZSTD };
	struct sc_error err;
	struct sc_buf in, c, out;
	size_t i, k;

	sc_buf_init(&in, SC_BUF_UNLIMITED);
	sc_buf_init(&c, SC_BUF_UNLIMITED);
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	for (k = 0; k < 300000; k++)
		(void)sc_buf_addch(&in,
		    (int)(k % 251 < 100 ? 'a' : next_rand() & 0xff), NULL);
	for (i = 0; i < SC_NELEM(codecs); i++) {
		sc_buf_reset(&c);
		sc_buf_reset(&out);
		is_int(sc_pq_compress(codecs[i], 0, in.data, in.len, &c, &err),
		    0, "%s: compressed", sc_pq_codec_name(codecs[i]));
		is_int(sc_pq_decompress(codecs[i], c.data, c.len, in.len, &out,
			   &err),
		    0, "%s: decompressed", sc_pq_codec_name(codecs[i]));
		is_mem(out.data, out.len, in.data, in.len, "%s: as it was",
		    sc_pq_codec_name(codecs[i]));
		if (codecs[i] == SC_PQ_UNCOMPRESSED)
			continue;
		/* A size other than the header's, corrupt and truncated data. */
		sc_buf_reset(&out);
		is_int(sc_pq_decompress(codecs[i], c.data, c.len, in.len + 1,
			   &out, &err),
		    -1, "%s: a claimed size one too big",
		    sc_pq_codec_name(codecs[i]));
		ok(strncmp(err.msg, "malformed Parquet page: ", 24) == 0,
		    "%s: '%s'", sc_pq_codec_name(codecs[i]), err.msg);
		sc_buf_reset(&out);
		is_int(sc_pq_decompress(codecs[i], c.data, c.len, in.len - 1,
			   &out, &err),
		    -1, "%s: a claimed size one too small",
		    sc_pq_codec_name(codecs[i]));
		sc_buf_reset(&out);
		is_int(sc_pq_decompress(codecs[i], c.data, c.len / 2, in.len,
			   &out, &err),
		    -1, "%s: half the data", sc_pq_codec_name(codecs[i]));
		ok(strncmp(err.msg, "malformed Parquet page: ", 24) == 0,
		    "%s: '%s'", sc_pq_codec_name(codecs[i]), err.msg);
	}
	/* A claim of 1 GiB from 10 bytes costs no gigabyte. */
	sc_buf_reset(&out);
	sc_buf_reset(&c);
	(void)sc_pq_compress(SC_PQ_ZSTD, 0, (const uint8_t *)"abc", 3, &c,
	    &err);
	is_int(sc_pq_decompress(SC_PQ_ZSTD, c.data, c.len, (size_t)1 << 30,
		   &out, &err),
	    -1, "zstd: 1 GiB claimed for 3 bytes");
	ok(out.cap < (1u << 20), "and under a MiB allocated (%zu)", out.cap);
	is_int(sc_pq_decompress(SC_PQ_LZ4, c.data, c.len, 3, &out, &err), -1,
	    "LZ4 is not supported");
	is_str(err.msg, "unsupported Parquet codec LZ4", "its message");
	sc_buf_release(&in);
	sc_buf_release(&c);
	sc_buf_release(&out);
}

int
main(void)
{
	test_thrift_ints();
	test_thrift_skip();
	test_thrift_pagehdr();
	test_thrift_filemeta();
	test_rle_spec_example();
	test_rle_widths();
	test_rle_malformed();
	test_delta();
	test_byte_arrays();
	test_plain_bss_dict();
	test_codecs();
	return tap_done();
}
