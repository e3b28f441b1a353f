/* SPDX-License-Identifier: MIT */

/*
 * engine_func.c: SQL functions SQLite lacks, with Spark's semantics, for
 * the function table of engine_expr.c: lpad/rpad, initcap, reverse and
 * concat_ws on UTF-8 characters, crc32, add_months, and the variance
 * and standard deviation aggregates (NULL for fewer rows than they
 * need, as Spark 4).
 */

#include "server/engine_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/buf.h"
#include "core/value.h"
#include "core/xmem.h"
#include "core/banned.h"

/* Bytes of the UTF-8 character starting with lead byte c. */
static size_t
u8len(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		return 2;
	if ((c & 0xf0) == 0xe0)
		return 3;
	if ((c & 0xf8) == 0xf0)
		return 4;
	return 1;
}

/* Characters in s[0..n). */
static size_t
u8count(const unsigned char *s, size_t n)
{
	size_t i = 0, k = 0;

	while (i < n) {
		i += u8len(s[i]);
		k++;
	}
	return k;
}

/* Byte offset of character k of s[0..n) (n if past the end). */
static size_t
u8off(const unsigned char *s, size_t n, size_t k)
{
	size_t i = 0;

	while (i < n && k > 0) {
		i += u8len(s[i]);
		k--;
	}
	return i < n ? i : n;
}

static void
result_buf(sqlite3_context *ctx, struct sc_buf *b)
{
	if (b->failed)
		sqlite3_result_error_nomem(ctx);
	else
		sqlite3_result_text64(ctx, (const char *)b->data, b->len,
		    SQLITE_TRANSIENT, SQLITE_UTF8);
	sc_buf_release(b);
}

/* sc_pad(str, len, pad, left): Spark's lpad / rpad. */
static void
pad_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *s, *p;
	size_t sn, pn, sc, pc, want, i, k;
	sqlite3_int64 len;
	struct sc_buf b;
	bool left;

	(void)argc;
	for (i = 0; i < 3; i++)
		if (sqlite3_value_type(argv[i]) == SQLITE_NULL)
			return;
	s = sqlite3_value_text(argv[0]);
	sn = (size_t)sqlite3_value_bytes(argv[0]);
	len = sqlite3_value_int64(argv[1]);
	p = sqlite3_value_text(argv[2]);
	pn = (size_t)sqlite3_value_bytes(argv[2]);
	left = sqlite3_value_int(argv[3]) != 0;
	if (s == NULL || p == NULL)
		return;
	if (len > 100000000) {
		sqlite3_result_error_toobig(ctx);
		return;
	}
	want = len > 0 ? (size_t)len : 0;
	sc = u8count(s, sn);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	if (want <= sc || pn == 0) {
		/* Cut to len characters (or the string, with no pad). */
		sc_buf_add(&b, s, want <= sc ? u8off(s, sn, want) : sn, NULL);
		result_buf(ctx, &b);
		return;
	}
	pc = u8count(p, pn);
	if (!left)
		sc_buf_add(&b, s, sn, NULL);
	for (k = 0; k < want - sc;) {
		size_t take = want - sc - k < pc ? want - sc - k : pc;

		sc_buf_add(&b, p, u8off(p, pn, take), NULL);
		k += take;
	}
	if (left)
		sc_buf_add(&b, s, sn, NULL);
	result_buf(ctx, &b);
}

/* initcap: lower case, then each letter after a space upper case. */
static void
initcap_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *s;
	size_t n, i;
	struct sc_buf b;
	bool start = true;

	(void)argc;
	if ((s = sqlite3_value_text(argv[0])) == NULL)
		return;
	n = (size_t)sqlite3_value_bytes(argv[0]);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c >= 'A' && c <= 'Z' && !start)
			c = (unsigned char)(c - 'A' + 'a');
		else if (c >= 'a' && c <= 'z' && start)
			c = (unsigned char)(c - 'a' + 'A');
		sc_buf_addch(&b, (char)c, NULL);
		if (c < 0x80 || (c & 0xc0) == 0xc0)
			start = c == ' ';
	}
	result_buf(ctx, &b);
}

/* reverse of a string, by characters. */
static void
reverse_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *s;
	size_t n, i, k;
	struct sc_buf b;

	(void)argc;
	if ((s = sqlite3_value_text(argv[0])) == NULL)
		return;
	n = (size_t)sqlite3_value_bytes(argv[0]);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	if (sc_buf_grow(&b, n + 1, NULL) == -1) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	b.len = n;
	for (i = 0; i < n; i += k) {
		k = u8len(s[i]);
		if (i + k > n)
			k = n - i;
		memcpy(b.data + n - i - k, s + i, k);
	}
	b.data[n] = '\0';
	result_buf(ctx, &b);
}

/* concat_ws(sep, ...): the non-null arguments joined by sep. */
static void
concat_ws_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct sc_buf b;
	const unsigned char *sep, *s;
	int i;
	bool first = true;

	if ((sep = sqlite3_value_text(argv[0])) == NULL)
		return;
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	for (i = 1; i < argc; i++) {
		if ((s = sqlite3_value_text(argv[i])) == NULL)
			continue;
		if (!first)
			sc_buf_add(&b, sep,
			    (size_t)sqlite3_value_bytes(argv[0]), NULL);
		sc_buf_add(&b, s, (size_t)sqlite3_value_bytes(argv[i]), NULL);
		first = false;
	}
	result_buf(ctx, &b);
}

static void
crc32_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const void *p;
	int n;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	p = sqlite3_value_blob(argv[0]);
	n = sqlite3_value_bytes(argv[0]);
	sqlite3_result_int64(ctx,
	    (sqlite3_int64)crc32(0L, (const Bytef *)(p != NULL ? p : ""),
		(uInt)n));
}

/*
 * add_months(date, n): the same day n months on, or the month's last
 * day when it has fewer days (Jan 31 + 1 month = Feb 28 or 29).
 */
static void
add_months_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30,
		31 };
	const char *s;
	int32_t days;
	int y, m, d, dim;
	sqlite3_int64 n, mm;
	char out[16];

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	s = (const char *)sqlite3_value_text(argv[0]);
	if (s == NULL ||
	    sc_value_parse_date(s, (size_t)sqlite3_value_bytes(argv[0]),
		&days) == -1) {
		sqlite3_result_error(ctx,
		    "[CAST_INVALID_INPUT] The value cannot be cast to \"DATE\" "
		    "because it is malformed. SQLSTATE: 22018",
		    -1);
		return;
	}
	sc_value_fmt_date(days, out);
	y = (int)strtol(out, NULL, 10);
	m = (out[5] - '0') * 10 + (out[6] - '0');
	d = (out[8] - '0') * 10 + (out[9] - '0');
	n = sqlite3_value_int64(argv[1]);
	mm = (sqlite3_int64)y * 12 + (m - 1) + n;
	y = (int)(mm >= 0 ? mm / 12 : (mm - 11) / 12);
	m = (int)(mm - (sqlite3_int64)y * 12) + 1;
	dim = mdays[m - 1] +
	    (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
	if (d > dim)
		d = dim;
	if (y < 0 || y > 9999) {
		sqlite3_result_error(ctx,
		    "[DATETIME_OVERFLOW] Datetime operation overflow. "
		    "SQLSTATE: 22008",
		    -1);
		return;
	}
	sqlite3_snprintf((int)sizeof(out), out, "%04d-%02d-%02d", y, m, d);
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/* ---- variance family: sc_var(x, kind) ------------------------------ */

struct var {
	sqlite3_int64 n;
	double mean;
	double m2;
	int kind; /* 0 var_samp, 1 var_pop, 2 stddev_samp, 3 stddev_pop */
};

static void
var_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct var *v = sqlite3_aggregate_context(ctx, sizeof(*v));
	double x, d;

	(void)argc;
	if (v == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	v->kind = sqlite3_value_int(argv[1]);
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	x = sqlite3_value_double(argv[0]);
	v->n++;
	d = x - v->mean;
	v->mean += d / (double)v->n;
	v->m2 += d * (x - v->mean);
}

static void
var_final(sqlite3_context *ctx)
{
	struct var *v = sqlite3_aggregate_context(ctx, 0);
	double r;
	bool pop;

	if (v == NULL || v->n == 0)
		return;
	pop = v->kind == 1 || v->kind == 3;
	if (!pop && v->n < 2)
		return; /* Spark 4: NULL, not NaN */
	r = v->m2 / (double)(pop ? v->n : v->n - 1);
	if (v->kind >= 2)
		r = sqrt(r);
	sqlite3_result_double(ctx, r);
}

int
sc_eng_func_register(sqlite3 *db)
{
	static const struct {
		const char *name;
		int nargs;
		void (*fn)(sqlite3_context *, int, sqlite3_value **);
	} scalar[] = {
		{ "sc_pad", 4, pad_fn },
		{ "sc_initcap", 1, initcap_fn },
		{ "sc_reverse", 1, reverse_fn },
		{ "sc_concat_ws", -1, concat_ws_fn },
		{ "sc_crc32", 1, crc32_fn },
		{ "sc_add_months", 2, add_months_fn },
	};
	int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC, rc = SQLITE_OK;
	size_t i;

	for (i = 0; rc == SQLITE_OK && i < SC_NELEM(scalar); i++)
		rc = sqlite3_create_function_v2(db, scalar[i].name,
		    scalar[i].nargs, flags, NULL, scalar[i].fn, NULL, NULL,
		    NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_var", 2, flags, NULL,
		    NULL, var_step, var_final, NULL);
	return rc;
}
