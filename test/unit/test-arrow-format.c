/* SPDX-License-Identifier: MIT */

/*
 * test-arrow-format.c: sc_arrow_format_value() byte for byte for the
 * types with their own formatting code (integers of every width, bool,
 * date, timestamp): extremes, signs, zero, nulls, and an empty batch.
 */

#include "core/arrow.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/output.h"
#include "tap.h"
#include "core/banned.h"

enum { C_I8, C_I16, C_I32, C_I64, C_B, C_D, C_TS, NCOLS };

struct want {
	int64_t i8, i16, i32, i64;
	int b; /* 0, 1, or -1 for null */
	int64_t d, ts;
	bool null; /* every column but b null */
	const char *text; /* the row, cells joined by '|' */
};

static const struct want rows[] = {
	{ 0, 0, 0, 0, 0, 0, 0, false,
	    "0|0|0|0|false|1970-01-01|1970-01-01 00:00:00" },
	{ -1, -1, -1, -1, 1, -1, -1, false,
	    "-1|-1|-1|-1|true|1969-12-31|1969-12-31 23:59:59.999999" },
	{ INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN, 1, -719162,
	    -62135596800000000LL, false,
	    "-128|-32768|-2147483648|-9223372036854775808|true|0001-01-01|"
	    "0001-01-01 00:00:00" },
	{ INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX, 0, 2932896,
	    253402300799999999LL, false,
	    "127|32767|2147483647|9223372036854775807|false|9999-12-31|"
	    "9999-12-31 23:59:59.999999" },
	{ 9, 10, 99, 100, -1, 19724, 1704164645500000LL, false,
	    "9|10|99|100||2024-01-02|2024-01-02 03:04:05.5" },
	{ -9, -10, -99, -100, 0, 2932897, 1704164645000010LL, false,
	    "-9|-10|-99|-100|false|+10000-01-01|2024-01-02 03:04:05.00001" },
	{ 0, 0, 0, 0, 1, 0, 0, true, "||||true||" },
	{ 42, 1000, 1234567, 1000000000000000000LL, 0, -719163, 86399000000LL,
	    false,
	    "42|1000|1234567|1000000000000000000|false|0000-12-31|"
	    "1970-01-01 23:59:59" },
	{ -42, -1000, -7654321, -999999999999999999LL, 1, 10957,
	    946684800123000LL, false,
	    "-42|-1000|-7654321|-999999999999999999|true|2000-01-01|"
	    "2000-01-01 00:00:00.123" },
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))

struct got {
	size_t batches;
	size_t nrows;
	struct sc_buf text; /* all rows, '\n' after each */
	struct sc_buf json;
	int kinds[NCOLS];
};

static int
collect(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	struct got *g = arg;
	size_t r, c;
	int kind;

	g->batches++;
	g->nrows += b->nrows;
	for (r = 0; r < b->nrows; r++) {
		for (c = 0; c < NCOLS; c++) {
			if (c > 0 &&
			    (sc_buf_addch(&g->text, '|', err) == -1 ||
				sc_buf_addch(&g->json, ',', err) == -1))
				return -1;
			if (sc_arrow_format_value(b, c, r, SC_ARROW_FMT_TEXT,
				&g->text, &kind, err) == -1 ||
			    sc_arrow_format_value(b, c, r, SC_ARROW_FMT_JSON,
				&g->json, NULL, err) == -1)
				return -1;
			if (r == 0)
				g->kinds[c] = kind;
		}
		if (sc_buf_addch(&g->text, '\n', err) == -1 ||
		    sc_buf_addch(&g->json, '\n', err) == -1)
			return -1;
	}
	return 0;
}

static struct sc_arrow_writer *
writer(void)
{
	struct sc_arrow_schema s;
	struct sc_arrow_writer *w;
	struct sc_error err;

	sc_arrow_schema_init(&s);
	sc_arrow_schema_add(&s, "i8", SC_ARROW_INT8, true);
	sc_arrow_schema_add(&s, "i16", SC_ARROW_INT16, true);
	sc_arrow_schema_add(&s, "i32", SC_ARROW_INT32, true);
	sc_arrow_schema_add(&s, "i64", SC_ARROW_INT64, true);
	sc_arrow_schema_add(&s, "b", SC_ARROW_BOOL, true);
	sc_arrow_schema_add(&s, "d", SC_ARROW_DATE32, true);
	sc_arrow_schema_add(&s, "ts", SC_ARROW_TIMESTAMP_US, true);
	sc_error_init(&err);
	w = sc_arrow_writer_new(&s, &err);
	sc_arrow_schema_release(&s);
	return w;
}

static int
add_row(struct sc_arrow_writer *w, const struct want *x, struct sc_error *err)
{
	const int64_t v[NCOLS] = { x->i8, x->i16, x->i32, x->i64, 0, x->d,
		x->ts };
	size_t c;
	int rc;

	for (c = 0; c < NCOLS; c++) {
		if (c == C_B)
			rc = x->b < 0
			    ? sc_arrow_append_null(w, c, err)
			    : sc_arrow_append_bool(w, c, x->b == 1, err);
		else if (x->null)
			rc = sc_arrow_append_null(w, c, err);
		else
			rc = sc_arrow_append_int64(w, c, v[c], err);
		if (rc == -1)
			return -1;
	}
	return sc_arrow_writer_end_row(w, err);
}

static void
test_values(void)
{
	struct sc_arrow_writer *w;
	struct sc_error err;
	struct sc_buf ipc, want;
	struct got g;
	size_t i;
	bool added = true;

	sc_error_init(&err);
	sc_buf_init(&ipc, SC_BUF_UNLIMITED);
	sc_buf_init(&want, SC_BUF_UNLIMITED);
	memset(&g, 0, sizeof(g));
	sc_buf_init(&g.text, SC_BUF_UNLIMITED);
	sc_buf_init(&g.json, SC_BUF_UNLIMITED);
	w = writer();
	ok(w != NULL, "writer");
	if (w == NULL)
		return;
	for (i = 0; i < NROWS; i++) {
		if (add_row(w, &rows[i], &err) == -1)
			added = false;
		sc_buf_addstr(&want, rows[i].text, NULL);
		sc_buf_addch(&want, '\n', NULL);
	}
	ok(added, "rows appended");
	is_int(sc_arrow_writer_flush(w, &ipc, &err), 0, "flush");
	is_int(sc_arrow_read_stream(ipc.data, ipc.len, collect, &g, &err), 0,
	    "read");
	is_int(g.nrows, NROWS, "all rows read");
	is_str((const char *)g.text.data, (const char *)want.data,
	    "text of every value");
	if (strcmp((const char *)g.text.data, (const char *)want.data) != 0)
		printf("# got:\n%s", (const char *)g.text.data);
	is_int(g.kinds[C_I8], SC_OUT_NUMBER, "int8 kind NUMBER");
	is_int(g.kinds[C_I64], SC_OUT_NUMBER, "int64 kind NUMBER");
	is_int(g.kinds[C_B], SC_OUT_BOOL, "bool kind BOOL");
	is_int(g.kinds[C_D], SC_OUT_STRING, "date kind STRING");
	is_str((const char *)g.json.data,
	    "0,0,0,0,false,\"1970-01-01\",\"1970-01-01 00:00:00\"\n"
	    "-1,-1,-1,-1,true,\"1969-12-31\","
	    "\"1969-12-31 23:59:59.999999\"\n"
	    "-128,-32768,-2147483648,-9223372036854775808,true,"
	    "\"0001-01-01\",\"0001-01-01 00:00:00\"\n"
	    "127,32767,2147483647,9223372036854775807,false,\"9999-12-31\","
	    "\"9999-12-31 23:59:59.999999\"\n"
	    "9,10,99,100,null,\"2024-01-02\",\"2024-01-02 03:04:05.5\"\n"
	    "-9,-10,-99,-100,false,\"+10000-01-01\","
	    "\"2024-01-02 03:04:05.00001\"\n"
	    "null,null,null,null,true,null,null\n"
	    "42,1000,1234567,1000000000000000000,false,\"0000-12-31\","
	    "\"1970-01-01 23:59:59\"\n"
	    "-42,-1000,-7654321,-999999999999999999,true,\"2000-01-01\","
	    "\"2000-01-01 00:00:00.123\"\n",
	    "JSON of every value");

	/* A batch of 0 rows: the callback runs, nothing is formatted. */
	sc_buf_reset(&ipc);
	sc_buf_reset(&g.text);
	g.batches = 0;
	g.nrows = 0;
	is_int(sc_arrow_writer_flush(w, &ipc, &err), 0, "flush 0 rows");
	is_int(sc_arrow_read_stream(ipc.data, ipc.len, collect, &g, &err), 0,
	    "read 0 rows");
	is_int(g.batches, 1, "one batch");
	is_int(g.nrows, 0, "of 0 rows");
	is_int(g.text.len, 0, "nothing formatted");
	sc_buf_reset(&g.text);
	is_int(sc_arrow_format_value(NULL, 0, 0, SC_ARROW_FMT_TEXT, &g.text,
		   NULL, &err),
	    -1, "no batch: -1");

	sc_arrow_writer_free(w);
	sc_buf_release(&ipc);
	sc_buf_release(&want);
	sc_buf_release(&g.text);
	sc_buf_release(&g.json);
}

int
main(void)
{
	test_values();
	return tap_done();
}
