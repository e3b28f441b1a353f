/* SPDX-License-Identifier: MIT */

/*
 * test-arrow-interval.c: Spark's interval columns in Arrow (Duration in
 * microseconds, Interval YEAR_MONTH in int32 months): written, read back
 * with their types and values, nulls, range checks, and their text as
 * Spark's CAST(interval AS STRING) gives it for every field range.
 */

#include "core/arrow.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "tap.h"
#include "core/banned.h"

#define DAY 86400000000LL
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

struct got {
	size_t nrows;
	enum sc_arrow_type t[2];
	int64_t v[8][2];
	bool null[8][2];
	struct sc_buf text;
};

static int
collect(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	struct got *g = arg;
	size_t r, c;

	g->t[0] = b->schema->fields[0].type;
	g->t[1] = b->schema->fields[1].type;
	for (r = 0; r < b->nrows && g->nrows < 8; r++, g->nrows++) {
		for (c = 0; c < 2; c++) {
			g->null[g->nrows][c] = sc_arrow_is_null(b, c, r);
			if (!g->null[g->nrows][c])
				sc_arrow_get_int64(b, c, r, &g->v[g->nrows][c]);
			if (c > 0 && sc_buf_addch(&g->text, '|', err) == -1)
				return -1;
			if (sc_arrow_format_value(b, c, r, SC_ARROW_FMT_JSON,
				&g->text, NULL, err) == -1)
				return -1;
		}
		if (sc_buf_addch(&g->text, '\n', err) == -1)
			return -1;
	}
	return 0;
}

static void
test_roundtrip(void)
{
	static const int64_t dt[] = { 0, DAY + 7384500000LL, -3600000000LL,
		INT64_MAX, INT64_MIN };
	static const int64_t ym[] = { 0, 14, -14, INT32_MAX, INT32_MIN };
	struct sc_arrow_schema s;
	struct sc_arrow_writer *w;
	struct sc_error err;
	struct sc_buf ipc;
	struct got g;
	size_t i;
	bool added = true;

	sc_error_init(&err);
	sc_arrow_schema_init(&s);
	sc_arrow_schema_add(&s, "d", SC_ARROW_DURATION_US, true);
	sc_arrow_schema_add(&s, "y", SC_ARROW_INTERVAL_YM, true);
	w = sc_arrow_writer_new(&s, &err);
	sc_arrow_schema_release(&s);
	ok(w != NULL, "writer of duration and month interval columns");
	if (w == NULL)
		return;
	for (i = 0; i < NELEM(dt); i++)
		if (sc_arrow_append_int64(w, 0, dt[i], &err) == -1 ||
		    sc_arrow_append_int64(w, 1, ym[i], &err) == -1 ||
		    sc_arrow_writer_end_row(w, &err) == -1)
			added = false;
	if (sc_arrow_append_null(w, 0, &err) == -1 ||
	    sc_arrow_append_null(w, 1, &err) == -1 ||
	    sc_arrow_writer_end_row(w, &err) == -1)
		added = false;
	ok(added, "values and nulls appended");
	is_int(sc_arrow_append_int64(w, 1, (int64_t)INT32_MAX + 1, &err), -1,
	    "months past int32: refused");
	is_int(err.status, SC_ST_FAILED, "as a value out of range");
	sc_buf_init(&ipc, SC_BUF_UNLIMITED);
	is_int(sc_arrow_writer_flush(w, &ipc, &err), 0, "flush");
	memset(&g, 0, sizeof(g));
	sc_buf_init(&g.text, SC_BUF_UNLIMITED);
	is_int(sc_arrow_read_stream(ipc.data, ipc.len, collect, &g, &err), 0,
	    "read back");
	is_int(g.t[0], SC_ARROW_DURATION_US, "Duration[us] read as such");
	is_int(g.t[1], SC_ARROW_INTERVAL_YM, "Interval[YEAR_MONTH] read");
	is_int(g.nrows, 6, "all rows");
	for (i = 0; i < NELEM(dt); i++) {
		ok(g.v[i][0] == dt[i] && !g.null[i][0], "duration %zu", i);
		ok(g.v[i][1] == ym[i] && !g.null[i][1], "months %zu", i);
	}
	ok(g.null[5][0] && g.null[5][1], "nulls read as nulls");
	is_str((const char *)g.text.data,
	    "\"INTERVAL '0 00:00:00' DAY TO SECOND\"|"
	    "\"INTERVAL '0-0' YEAR TO MONTH\"\n"
	    "\"INTERVAL '1 02:03:04.5' DAY TO SECOND\"|"
	    "\"INTERVAL '1-2' YEAR TO MONTH\"\n"
	    "\"INTERVAL '-0 01:00:00' DAY TO SECOND\"|"
	    "\"INTERVAL '-1-2' YEAR TO MONTH\"\n"
	    "\"INTERVAL '106751991 04:00:54.775807' DAY TO SECOND\"|"
	    "\"INTERVAL '178956970-7' YEAR TO MONTH\"\n"
	    "\"INTERVAL '-106751991 04:00:54.775808' DAY TO SECOND\"|"
	    "\"INTERVAL '-178956970-8' YEAR TO MONTH\"\n"
	    "null|null\n",
	    "JSON text: Spark's string form, day to second, year to month");
	sc_arrow_writer_free(w);
	sc_buf_release(&ipc);
	sc_buf_release(&g.text);
}

static void
test_text(void)
{
	static const struct {
		int64_t v;
		int start, end;
		const char *want;
	} dt[] = {
		{ DAY, 0, 0, "INTERVAL '1' DAY" },
		{ -3 * DAY, 0, 0, "INTERVAL '-3' DAY" },
		{ 2 * 3600000000LL, 1, 1, "INTERVAL '02' HOUR" },
		{ 25 * 3600000000LL, 1, 1, "INTERVAL '25' HOUR" },
		{ -90 * 60000000LL, 2, 2, "INTERVAL '-90' MINUTE" },
		{ 5500000, 3, 3, "INTERVAL '05.5' SECOND" },
		{ 12000001, 3, 3, "INTERVAL '12.000001' SECOND" },
		{ DAY + 3600000000LL, 0, 1, "INTERVAL '1 01' DAY TO HOUR" },
		{ DAY + 60000000LL, 0, 2, "INTERVAL '1 00:01' DAY TO MINUTE" },
		{ 5400000000LL, 1, 2, "INTERVAL '01:30' HOUR TO MINUTE" },
		{ 5400250000LL, 1, 3, "INTERVAL '01:30:00.25' HOUR TO SECOND" },
		{ 61000000, 2, 3, "INTERVAL '01:01' MINUTE TO SECOND" },
		{ -61000000, 2, 3, "INTERVAL '-01:01' MINUTE TO SECOND" },
	};
	static const struct {
		int64_t v;
		int start, end;
		const char *want;
	} ym[] = {
		{ 24, 0, 0, "INTERVAL '2' YEAR" },
		{ -24, 0, 0, "INTERVAL '-2' YEAR" },
		{ 10, 1, 1, "INTERVAL '10' MONTH" },
		{ -14, 1, 1, "INTERVAL '-14' MONTH" },
		{ 13, 0, 1, "INTERVAL '1-1' YEAR TO MONTH" },
	};
	char b[SC_ARROW_INTERVAL_TEXT];
	size_t i, n;

	for (i = 0; i < NELEM(dt); i++) {
		n = sc_arrow_fmt_dt_interval(dt[i].v, dt[i].start, dt[i].end,
		    b);
		is_str(b, dt[i].want, "day-time text %zu", i);
		is_int(n, strlen(dt[i].want), "its length");
	}
	for (i = 0; i < NELEM(ym); i++) {
		n = sc_arrow_fmt_ym_interval(ym[i].v, ym[i].start, ym[i].end,
		    b);
		is_str(b, ym[i].want, "year-month text %zu", i);
		is_int(n, strlen(ym[i].want), "its length");
	}
}

int
main(void)
{
	test_roundtrip();
	test_text();
	return tap_done();
}
