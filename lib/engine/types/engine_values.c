/* SPDX-License-Identifier: MIT */

/*
 * engine_values.c: SQLite values as Spark values.  Converting a value
 * into its column's Arrow type (sc_eng_put, see "Result types" in
 * engine.h), and the SQL functions sc_cast() (Spark's CAST, with its ANSI
 * errors), greatest() and least().  Values as text (doubles, dates,
 * timestamps, decimals) are lib/core/value's, the same the client
 * prints with.
 */

#include "engine/engine_int.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* ------------------------------------------------------------------ */
/* Numbers and booleans read from text                                */
/* ------------------------------------------------------------------ */

/* Drop the spaces around s[0..n): advances *sp, returns the new n. */
static size_t
strip(const char **sp, size_t n)
{
	const char *s = *sp;

	for (; n > 0 && isspace((unsigned char)*s); n--)
		s++;
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	*sp = s;
	return n;
}

/* Strict integer text: [+-]digits, surrounding spaces allowed. */
static int
parse_int64(const char *s, size_t n, int64_t *out)
{
	char b[32];
	char *e;
	long long v;

	n = strip(&s, n);
	if (n == 0 || n >= sizeof(b))
		return -1;
	memcpy(b, s, n);
	b[n] = '\0';
	if (!isdigit((unsigned char)b[0]) &&
	    !(n > 1 && (b[0] == '-' || b[0] == '+') &&
		isdigit((unsigned char)b[1])))
		return -1;
	errno = 0;
	v = strtoll(b, &e, 10);
	if (*e != '\0' || errno == ERANGE)
		return -1;
	*out = v;
	return 0;
}

/* Floating text as Java reads it: no hex, NaN/Infinity allowed. */
static int
parse_double(const char *s, size_t n, double *out)
{
	char b[64];
	char *e;
	size_t i;

	n = strip(&s, n);
	if (n == 0 || n >= sizeof(b))
		return -1;
	memcpy(b, s, n);
	b[n] = '\0';
	for (i = 0; i < n; i++)
		if (b[i] == 'x' || b[i] == 'X')
			return -1;
	*out = strtod(b, &e);
	return *e == '\0' ? 0 : -1;
}

static int
parse_bool(const char *s, size_t n, int *out)
{
	static const char *const yes[] = { "t", "true", "y", "yes", "1" };
	static const char *const no[] = { "f", "false", "n", "no", "0" };
	size_t i;

	n = strip(&s, n);
	for (i = 0; i < SC_NELEM(yes); i++) {
		if (strlen(yes[i]) == n && strncasecmp(s, yes[i], n) == 0) {
			*out = 1;
			return 0;
		}
		if (strlen(no[i]) == n && strncasecmp(s, no[i], n) == 0) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

static bool
int_fits(int t, int64_t v)
{
	switch (t) {
	case SC_ARROW_INT8:
		return v >= INT8_MIN && v <= INT8_MAX;
	case SC_ARROW_INT16:
		return v >= INT16_MIN && v <= INT16_MAX;
	case SC_ARROW_INT32:
		return v >= INT32_MIN && v <= INT32_MAX;
	default:
		return true;
	}
}

/* Doubles that convert to int64 without overflow, truncated. */
static int
double_to_int64(double d, int64_t *out)
{
	if (isnan(d) || d >= 9223372036854775808.0 ||
	    d < -9223372036854775808.0)
		return -1;
	*out = (int64_t)d;
	return 0;
}

/* ------------------------------------------------------------------ */
/* SQLite values into Arrow columns                                    */
/* ------------------------------------------------------------------ */

/* Through sqlite3_column_value(): one column lookup, not two. */
void
sc_eng_eval_column(sqlite3_stmt *st, int col, struct sc_eval *v)
{
	sqlite3_value *sv = sqlite3_column_value(st, col);

	v->t = sqlite3_value_type(sv);
	switch (v->t) {
	case SQLITE_INTEGER:
		v->i = sqlite3_value_int64(sv);
		break;
	case SQLITE_FLOAT:
		v->d = sqlite3_value_double(sv);
		break;
	case SQLITE_TEXT:
		v->p = sqlite3_value_text(sv);
		v->n = (size_t)sqlite3_value_bytes(sv);
		break;
	case SQLITE_BLOB:
		v->p = sqlite3_value_blob(sv);
		v->n = (size_t)sqlite3_value_bytes(sv);
		break;
	default:
		break;
	}
}

static const char *
storage_name(int t)
{
	switch (t) {
	case SQLITE_INTEGER:
		return "INTEGER";
	case SQLITE_FLOAT:
		return "REAL";
	case SQLITE_TEXT:
		return "TEXT";
	case SQLITE_BLOB:
		return "BLOB";
	default:
		return "NULL";
	}
}

/* The value as short text for error messages. */
static void
value_text(const struct sc_eval *v, char *buf, size_t sz)
{
	char d[SC_VALUE_TEXT_MAX];
	size_t n;

	switch (v->t) {
	case SQLITE_INTEGER:
		snprintf(buf, sz, "%" PRId64, v->i);
		break;
	case SQLITE_FLOAT:
		sc_value_fmt_double(v->d, d);
		snprintf(buf, sz, "%s", d);
		break;
	case SQLITE_TEXT:
		n = v->n < 60 ? v->n : 60;
		snprintf(buf, sz, "'%.*s%s'", (int)n, (const char *)v->p,
		    v->n > n ? "..." : "");
		break;
	case SQLITE_BLOB:
		snprintf(buf, sz, "<%zu bytes>", v->n);
		break;
	default:
		snprintf(buf, sz, "NULL");
		break;
	}
}

static int
put_mismatch(const struct sc_ecol *c, const struct sc_eval *v, int64_t row,
    bool overflow, struct sc_error *err)
{
	struct sc_buf tn;
	char vt[96];
	int rc;

	sc_buf_init(&tn, SC_BUF_UNLIMITED);
	sc_eng_type_text(&c->type, SC_VALUE_SQL, &tn);
	value_text(v, vt, sizeof(vt));
	if (c->inferred)
		rc = sc_srv_error(err, "INCONSISTENT_COLUMN_TYPE", "42804",
		    "Column `%s` was given the type %s from its first rows, "
		    "but row %" PRId64 " holds the %s value %s; add a CAST to "
		    "the query.",
		    c->name, (const char *)tn.data, row + 1, storage_name(v->t),
		    vt);
	else if (overflow)
		rc = sc_srv_error(err, "CAST_OVERFLOW", "22003",
		    "The value %s of column `%s` cannot be cast to \"%s\" due "
		    "to an overflow.",
		    vt, c->name, (const char *)tn.data);
	else
		rc = sc_srv_error(err, "CAST_INVALID_INPUT", "22018",
		    "The value %s of the type \"%s\" in column `%s` cannot be "
		    "cast to \"%s\" because it is malformed.",
		    vt, storage_name(v->t), c->name, (const char *)tn.data);
	sc_buf_release(&tn);
	return rc;
}

/* SQLite's own text for a number, as in a string column. */
static size_t
number_text(const struct sc_eval *v, char *buf, size_t sz)
{
	if (v->t == SQLITE_INTEGER)
		snprintf(buf, sz, "%" PRId64, v->i);
	else
		sqlite3_snprintf((int)sz, buf, "%!.15g", v->d);
	return strlen(buf);
}

/*
 * Append v to column col of w, converted to the column's type c->type
 * (see "Result types" in engine.h).  row (from 0) is for messages.
 */
int
sc_eng_put(struct sc_arrow_writer *w, size_t col, const struct sc_ecol *c,
    const struct sc_eval *v, int64_t row, struct sc_error *err)
{
	char tb[128];
	int64_t i64;
	double d;
	int32_t days;
	int b;
	size_t n;

	if (v->t == SQLITE_NULL)
		return sc_arrow_append_null(w, col, err);
	if (c->type.nest != NULL)
		return sc_eng_nest_put(w, col, c, v, err);
	switch (c->type.t) {
	case SC_ARROW_BOOL:
		if (v->t == SQLITE_INTEGER)
			return sc_arrow_append_bool(w, col, v->i != 0, err);
		if (v->t == SQLITE_FLOAT)
			return sc_arrow_append_bool(w, col, v->d != 0, err);
		if (v->t == SQLITE_TEXT &&
		    parse_bool((const char *)v->p, v->n, &b) == 0)
			return sc_arrow_append_bool(w, col, b != 0, err);
		break;
	case SC_ARROW_INT8:
	case SC_ARROW_INT16:
	case SC_ARROW_INT32:
	case SC_ARROW_INT64:
		if (v->t == SQLITE_INTEGER) {
			i64 = v->i;
		} else if (v->t == SQLITE_FLOAT) {
			if (double_to_int64(v->d, &i64) == -1 ||
			    (double)i64 != v->d)
				return put_mismatch(c, v, row,
				    !c->inferred && !isnan(v->d) &&
					v->d == trunc(v->d),
				    err);
		} else if (v->t != SQLITE_TEXT ||
		    parse_int64((const char *)v->p, v->n, &i64) == -1) {
			break;
		}
		if (!int_fits(c->type.t, i64))
			return put_mismatch(c, v, row, true, err);
		return sc_arrow_append_int64(w, col, i64, err);
	case SC_ARROW_FLOAT:
	case SC_ARROW_DOUBLE:
		if (v->t == SQLITE_INTEGER)
			return sc_arrow_append_double(w, col, (double)v->i,
			    err);
		if (v->t == SQLITE_FLOAT)
			return sc_arrow_append_double(w, col, v->d, err);
		if (v->t == SQLITE_TEXT && !c->inferred &&
		    parse_double((const char *)v->p, v->n, &d) == 0)
			return sc_arrow_append_double(w, col, d, err);
		break;
	case SC_ARROW_DECIMAL128: {
		const char *text = tb;
		int64_t hi;
		uint64_t lo;
		int rc;

		if (v->t == SQLITE_INTEGER) {
			n = number_text(v, tb, sizeof(tb));
		} else if (v->t == SQLITE_FLOAT && isfinite(v->d)) {
			/* As Spark: the double's shortest decimal text. */
			n = sc_value_fmt_double(v->d, tb);
		} else if (v->t == SQLITE_TEXT) {
			text = (const char *)v->p;
			n = v->n;
		} else {
			break;
		}
		rc = sc_value_parse_decimal(text, n, c->type.prec,
		    c->type.scale, &hi, &lo);
		if (rc == 0)
			return sc_arrow_append_decimal128(w, col, hi, lo, err);
		return put_mismatch(c, v, row, rc == -2, err);
	}
	case SC_ARROW_UTF8:
	case SC_ARROW_LARGE_UTF8:
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_BINARY:
		if (v->t == SQLITE_TEXT || v->t == SQLITE_BLOB)
			return sc_arrow_append_bytes(w, col, v->p, v->n, err);
		if ((c->type.t == SC_ARROW_BINARY ||
			c->type.t == SC_ARROW_LARGE_BINARY) &&
		    c->inferred)
			break;
		n = number_text(v, tb, sizeof(tb));
		return sc_arrow_append_bytes(w, col, tb, n, err);
	case SC_ARROW_DURATION_US: /* intervals: integers (engine_interval.c) */
	case SC_ARROW_INTERVAL_YM:
		if (v->t == SQLITE_INTEGER)
			return sc_arrow_append_int64(w, col, v->i, err);
		break;
	case SC_ARROW_DATE32:
		if (v->t == SQLITE_TEXT &&
		    sc_value_parse_date((const char *)v->p, v->n, &days) == 0)
			return sc_arrow_append_int64(w, col, days, err);
		if (v->t == SQLITE_INTEGER && int_fits(SC_ARROW_INT32, v->i))
			return sc_arrow_append_int64(w, col, v->i, err);
		break;
	case SC_ARROW_TIMESTAMP_US:
		if (v->t == SQLITE_TEXT &&
		    sc_value_parse_timestamp((const char *)v->p, v->n, &i64) ==
			0)
			return sc_arrow_append_int64(w, col, i64, err);
		if (v->t == SQLITE_INTEGER) {
			if (v->i > INT64_MAX / 1000000 ||
			    v->i < INT64_MIN / 1000000)
				return put_mismatch(c, v, row, true, err);
			return sc_arrow_append_int64(w, col, v->i * 1000000,
			    err);
		}
		if (v->t == SQLITE_FLOAT) {
			if (double_to_int64(v->d * 1e6, &i64) == -1)
				return put_mismatch(c, v, row, true, err);
			return sc_arrow_append_int64(w, col,
			    (int64_t)llround(v->d * 1e6), err);
		}
		break;
	default:
		break;
	}
	return put_mismatch(c, v, row, false, err);
}

/* ------------------------------------------------------------------ */
/* sc_cast(x, 'type', mode[, 'source type']): Spark's CAST               */
/* ------------------------------------------------------------------ */

/*
 * mode 0: ANSI (Spark 4 default; malformed input and overflow are
 * errors), 1: TRY/LEGACY (they give NULL).  The source type is the
 * static type of x when the translator knows it (a boolean is 0/1 in
 * SQLite, so CAST(bool AS STRING) needs it).  Mode 0 in a call whose
 * session has spark.sql.ansi.enabled=false is Spark's non-ANSI cast
 * (CAST_LEGACY below): malformed input is NULL, and a number too big
 * for an integer type wraps (integers, decimals) or saturates (floating
 * point) as Java's narrowing conversions do.
 */
#define CAST_LEGACY 2

static void
legacy_refused(sqlite3_context *ctx, const char *what)
{
	sc_eng_func_fail(ctx,
	    "[UNSUPPORTED_FEATURE.EXPRESSION] A cast %s with "
	    "spark.sql.ansi.enabled=false is not supported by sc-serve. "
	    "SQLSTATE: 0A000",
	    what);
}

/* Java's (int) or (long) of d, then narrowed to type as Java's (byte). */
static int64_t
java_d2i(double d, int type)
{
	int64_t v;

	if (isnan(d))
		return 0;
	if (type == SC_ARROW_INT64)
		return d >= 9223372036854775807.0 ? INT64_MAX
		    : d <= -9223372036854775808.0 ? INT64_MIN
						  : (int64_t)d;
	v = d >= 2147483647.0	 ? INT32_MAX
	    : d <= -2147483648.0 ? INT32_MIN
				 : (int64_t)d;
	if (type == SC_ARROW_INT8)
		return (int8_t)(uint8_t)((uint64_t)v & 0xff);
	if (type == SC_ARROW_INT16)
		return (int16_t)(uint16_t)((uint64_t)v & 0xffff);
	return v;
}

/* v narrowed to the integer type as Java's (int), (short), (byte). */
static int64_t
java_narrow(int64_t v, int type)
{
	switch (type) {
	case SC_ARROW_INT8:
		return (int8_t)(uint8_t)((uint64_t)v & 0xff);
	case SC_ARROW_INT16:
		return (int16_t)(uint16_t)((uint64_t)v & 0xffff);
	case SC_ARROW_INT32:
		return (int32_t)(uint32_t)((uint64_t)v & 0xffffffff);
	default:
		return v;
	}
}

static void
cast_fail(sqlite3_context *ctx, int mode, bool overflow, sqlite3_value *x,
    const struct sc_etype *to)
{
	struct sc_buf tn;
	char *msg, vt[96];
	struct sc_eval v;

	if (mode != 0) {
		sqlite3_result_null(ctx);
		return;
	}
	memset(&v, 0, sizeof(v));
	v.t = sqlite3_value_type(x);
	if (v.t == SQLITE_INTEGER)
		v.i = sqlite3_value_int64(x);
	else if (v.t == SQLITE_FLOAT)
		v.d = sqlite3_value_double(x);
	else if (v.t == SQLITE_TEXT || v.t == SQLITE_BLOB) {
		v.p = v.t == SQLITE_TEXT ? sqlite3_value_text(x)
					 : sqlite3_value_blob(x);
		v.n = (size_t)sqlite3_value_bytes(x);
	}
	value_text(&v, vt, sizeof(vt));
	sc_buf_init(&tn, SC_BUF_UNLIMITED);
	sc_eng_type_text(to, SC_VALUE_SQL, &tn);
	if (overflow)
		msg = sqlite3_mprintf(
		    "[CAST_OVERFLOW] The value %s cannot be "
		    "cast to \"%s\" due to an overflow. Use `try_cast` to "
		    "tolerate overflow and return NULL instead. "
		    "SQLSTATE: 22003",
		    vt, (const char *)tn.data);
	else
		msg = sqlite3_mprintf(
		    "[CAST_INVALID_INPUT] The value %s of "
		    "the type \"%s\" cannot be cast to \"%s\" because it is "
		    "malformed. Use `try_cast` to tolerate malformed input and "
		    "return NULL instead. SQLSTATE: 22018",
		    vt, storage_name(v.t), (const char *)tn.data);
	sc_buf_release(&tn);
	if (msg == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	sqlite3_result_error(ctx, msg, -1);
	sqlite3_free(msg);
}

static void
aux_free(void *p)
{
	free(p);
}

/* The parsed type of argument i, cached on the statement. */
static const struct sc_etype *
cast_type_arg(sqlite3_context *ctx, sqlite3_value **argv, int i)
{
	struct sc_etype *t = sqlite3_get_auxdata(ctx, i);
	const char *s;

	if (t != NULL)
		return t;
	s = (const char *)sqlite3_value_text(argv[i]);
	t = sc_xmalloc(sizeof(*t));
	if (s == NULL || sc_eng_parse_type(s, strlen(s), false, t) == -1) {
		free(t);
		return NULL;
	}
	sqlite3_set_auxdata(ctx, i, t, aux_free);
	/* set_auxdata may have freed t already on OOM; ask again. */
	return sqlite3_get_auxdata(ctx, i);
}

static void
cast_to_int(sqlite3_context *ctx, sqlite3_value *x, int type, int mode,
    const struct sc_etype *to, const struct sc_etype *from)
{
	int64_t v;
	double d;
	const char *s, *dot;
	size_t n;
	int ft = from != NULL ? from->t : SC_ETYPE_UNKNOWN;
	bool fp = ft == SC_ARROW_FLOAT || ft == SC_ARROW_DOUBLE;

	if (mode == CAST_LEGACY &&
	    (fp ||
		(ft == SC_ETYPE_UNKNOWN &&
		    sqlite3_value_type(x) == SQLITE_FLOAT))) {
		/* Java's conversion saturates; NaN (text here) is 0. */
		s = (const char *)sqlite3_value_text(x);
		d = s != NULL && strcmp(s, "NaN") == 0
		    ? 0
		    : sqlite3_value_double(x);
		sqlite3_result_int64(ctx, java_d2i(d, type));
		return;
	}
	switch (sqlite3_value_type(x)) {
	case SQLITE_INTEGER:
		v = sqlite3_value_int64(x);
		break;
	case SQLITE_FLOAT:
		d = trunc(sqlite3_value_double(x));
		if (double_to_int64(d, &v) == -1 && mode == CAST_LEGACY) {
			legacy_refused(ctx,
			    "of a decimal beyond a bigint to an integer type");
			return;
		} else if (double_to_int64(d, &v) == -1) {
			cast_fail(ctx, mode, true, x, to);
			return;
		}
		break;
	case SQLITE_TEXT:
		s = (const char *)sqlite3_value_text(x);
		n = (size_t)sqlite3_value_bytes(x);
		n = strip(&s, n);
		/*
		 * A decimal's fractional part goes: 1.9 -> 1; so does a
		 * string's without ANSI mode ('1.9' -> 1), while Spark's ANSI
		 * cast of a string refuses it.
		 */
		dot = memchr(s, '.', n);
		if (dot != NULL &&
		    (mode == CAST_LEGACY ||
			(ft != SC_ARROW_UTF8 && ft != SC_ARROW_LARGE_UTF8))) {
			const char *q;

			for (q = dot + 1; q < s + n; q++)
				if (!isdigit((unsigned char)*q))
					break;
			if (q == s + n && dot > s &&
			    isdigit((unsigned char)dot[-1]))
				n = (size_t)(dot - s);
		}
		if (parse_int64(s, n, &v) == -1) {
			size_t k;
			bool num = n > 0;

			for (k = 0; k < n; k++)
				if (!isdigit((unsigned char)s[k]) &&
				    !(k == 0 && (s[k] == '-' || s[k] == '+')))
					num = false;
			if (mode == CAST_LEGACY && num &&
			    ft == SC_ARROW_DECIMAL128) {
				legacy_refused(ctx,
				    "of a decimal beyond a bigint to an "
				    "integer type");
				return;
			}
			cast_fail(ctx, mode, num, x, to);
			return;
		}
		if (mode == CAST_LEGACY && ft != SC_ARROW_DECIMAL128 &&
		    !int_fits(type, v)) {
			/* A string out of range is NULL, as malformed. */
			cast_fail(ctx, mode, true, x, to);
			return;
		}
		break;
	default:
		cast_fail(ctx, mode, false, x, to);
		return;
	}
	if (!int_fits(type, v)) {
		if (mode == CAST_LEGACY)
			sqlite3_result_int64(ctx, java_narrow(v, type));
		else
			cast_fail(ctx, mode, true, x, to);
		return;
	}
	sqlite3_result_int64(ctx, v);
}

static void
cast_to_string(sqlite3_context *ctx, sqlite3_value *x,
    const struct sc_etype *from)
{
	char b[SC_VALUE_TEXT_MAX];

	switch (sqlite3_value_type(x)) {
	case SQLITE_INTEGER:
		if (from != NULL && from->t == SC_ARROW_BOOL) {
			sqlite3_result_text(ctx,
			    sqlite3_value_int64(x) != 0 ? "true" : "false", -1,
			    SQLITE_STATIC);
			return;
		}
		snprintf(b, sizeof(b), "%lld",
		    (long long)sqlite3_value_int64(x));
		sqlite3_result_text(ctx, b, -1, SQLITE_TRANSIENT);
		return;
	case SQLITE_FLOAT:
		if (from != NULL && from->t == SC_ARROW_FLOAT)
			sc_value_fmt_float((float)sqlite3_value_double(x), b);
		else
			sc_value_fmt_double(sqlite3_value_double(x), b);
		sqlite3_result_text(ctx, b, -1, SQLITE_TRANSIENT);
		return;
	case SQLITE_TEXT:
	case SQLITE_BLOB:
		sqlite3_result_text(ctx, (const char *)sqlite3_value_blob(x),
		    sqlite3_value_bytes(x), SQLITE_TRANSIENT);
		return;
	default:
		sqlite3_result_null(ctx);
		return;
	}
}

/* Whether the cast's source is a TIMESTAMP (an instant). */
static bool
from_ltz(const struct sc_etype *from)
{
	return from != NULL && from->t == SC_ARROW_TIMESTAMP_US && !from->ntz;
}

static void
cast_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct sc_etype *to, *from = NULL;
	sqlite3_value *x = argv[0];
	int mode = sqlite3_value_int(argv[2]), vt, b;
	const char *s = NULL;
	size_t n = 0;
	char buf[96];
	double d;
	int64_t i64;
	int32_t days;

	to = cast_type_arg(ctx, argv, 1);
	if (to == NULL) {
		sqlite3_result_error(ctx,
		    "[INVALID_PLAN_INPUT] sc_cast: bad "
		    "type SQLSTATE: 22023",
		    -1);
		return;
	}
	if (argc > 3 && sqlite3_value_type(argv[3]) == SQLITE_TEXT)
		from = cast_type_arg(ctx, argv, 3);
	if (mode == 0 && !sc_eng_ansi())
		mode = CAST_LEGACY;
	vt = sqlite3_value_type(x);
	if (vt == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	if (vt == SQLITE_TEXT) {
		s = (const char *)sqlite3_value_text(x);
		n = (size_t)sqlite3_value_bytes(x);
	}
	switch (to->t) {
	case SC_ARROW_NULL:
		sqlite3_result_null(ctx);
		return;
	case SC_ARROW_BOOL:
		if (vt == SQLITE_INTEGER) {
			sqlite3_result_int(ctx, sqlite3_value_int64(x) != 0);
		} else if (vt == SQLITE_FLOAT) {
			sqlite3_result_int(ctx, sqlite3_value_double(x) != 0);
		} else if (vt == SQLITE_TEXT && parse_bool(s, n, &b) == 0) {
			sqlite3_result_int(ctx, b);
		} else {
			cast_fail(ctx, mode, false, x, to);
		}
		return;
	case SC_ARROW_INT8:
	case SC_ARROW_INT16:
	case SC_ARROW_INT32:
	case SC_ARROW_INT64:
		cast_to_int(ctx, x, to->t, mode, to, from);
		return;
	case SC_ARROW_FLOAT:
	case SC_ARROW_DOUBLE:
		if (vt == SQLITE_INTEGER)
			d = (double)sqlite3_value_int64(x);
		else if (vt == SQLITE_FLOAT)
			d = sqlite3_value_double(x);
		else if (vt != SQLITE_TEXT || parse_double(s, n, &d) == -1) {
			cast_fail(ctx, mode, false, x, to);
			return;
		}
		if (to->t == SC_ARROW_FLOAT)
			d = (double)(float)d;
		sqlite3_result_double(ctx, d);
		return;
	case SC_ARROW_DECIMAL128: {
		int64_t hi;
		uint64_t lo;
		int rc;

		if (vt == SQLITE_FLOAT) {
			d = sqlite3_value_double(x);
			if (!isfinite(d)) {
				cast_fail(ctx, mode, false, x, to);
				return;
			}
			n = sc_value_fmt_double(d, buf);
			s = buf;
		} else if (vt == SQLITE_INTEGER) {
			snprintf(buf, sizeof(buf), "%lld",
			    (long long)sqlite3_value_int64(x));
			s = buf;
			n = strlen(buf);
		} else if (vt == SQLITE_BLOB) {
			cast_fail(ctx, mode, false, x, to);
			return;
		}
		rc =
		    sc_value_parse_decimal(s, n, to->prec, to->scale, &hi, &lo);
		if (rc == -2 && mode == CAST_LEGACY && vt == SQLITE_FLOAT &&
		    (from == NULL ||
			(from->t == SC_ARROW_DECIMAL128 && from->prec > 15))) {
			/*
			 * A decimal travels as a double: past 15 digits its
			 * overflow may be the double's rounding, not the
			 * value's, and NULL would be another answer than
			 * Spark's.
			 */
			legacy_refused(ctx, "of a wide decimal to a decimal");
			return;
		}
		if (rc != 0) {
			cast_fail(ctx, mode, rc == -2, x, to);
			return;
		}
		sc_value_fmt_decimal(hi, lo, to->scale, buf);
		sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
		return;
	}
	case SC_ARROW_UTF8:
	case SC_ARROW_LARGE_UTF8:
		/* A TIMESTAMP prints in the session time zone. */
		if (vt == SQLITE_TEXT && from_ltz(from) &&
		    sc_value_parse_timestamp(s, n, &i64) == 0) {
			sc_value_fmt_timestamp(
			    sc_tz_to_local(sc_eng_tz_current(), i64), buf);
			sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
			return;
		}
		cast_to_string(ctx, x, from);
		return;
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_BINARY:
		if (vt == SQLITE_TEXT || vt == SQLITE_BLOB)
			sqlite3_result_blob(ctx, sqlite3_value_blob(x),
			    sqlite3_value_bytes(x), SQLITE_TRANSIENT);
		else
			cast_fail(ctx, mode, false, x, to);
		return;
	case SC_ARROW_DATE32:
		/* A TIMESTAMP's date is the session time zone's. */
		if (vt == SQLITE_TEXT && from_ltz(from) &&
		    sc_value_parse_timestamp(s, n, &i64) == 0) {
			i64 = sc_tz_to_local(sc_eng_tz_current(), i64);
			sc_value_fmt_date(i64 / 86400000000LL -
				(i64 % 86400000000LL < 0),
			    buf);
			sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
		} else if (vt == SQLITE_TEXT &&
		    sc_value_parse_date(s, n, &days) == 0) {
			sc_value_fmt_date(days, buf);
			sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
		} else {
			cast_fail(ctx, mode, false, x, to);
		}
		return;
	case SC_ARROW_TIMESTAMP_US:
		/*
		 * Text without a zone is a wall-clock time of the session
		 * zone (a DATE too: its midnight), unless it is already a
		 * TIMESTAMP; a TIMESTAMP to TIMESTAMP_NTZ keeps its wall
		 * clock there.
		 */
		if (vt == SQLITE_TEXT && (from_ltz(from) || to->ntz) &&
		    sc_value_parse_timestamp(s, n, &i64) == 0) {
			if (to->ntz && from_ltz(from))
				i64 = sc_tz_to_local(sc_eng_tz_current(), i64);
		} else if (vt == SQLITE_TEXT && !to->ntz &&
		    sc_eng_tz_parse(sc_eng_tz_current(), s, n, &i64) == 0) {
		} else if (vt == SQLITE_INTEGER) {
			i64 = sqlite3_value_int64(x);
			if ((i64 > INT64_MAX / 1000000 ||
				i64 < INT64_MIN / 1000000) &&
			    mode == CAST_LEGACY) {
				legacy_refused(ctx,
				    "of a number of seconds "
				    "beyond a timestamp");
				return;
			} else if (i64 > INT64_MAX / 1000000 ||
			    i64 < INT64_MIN / 1000000) {
				cast_fail(ctx, mode, true, x, to);
				return;
			}
			i64 *= 1000000;
		} else if (vt == SQLITE_FLOAT) {
			d = sqlite3_value_double(x) * 1e6;
			if (double_to_int64(d, &i64) == -1 &&
			    mode == CAST_LEGACY && isfinite(d)) {
				legacy_refused(ctx,
				    "of a number of seconds "
				    "beyond a timestamp");
				return;
			} else if (double_to_int64(d, &i64) == -1) {
				cast_fail(ctx, mode, true, x, to);
				return;
			}
			i64 = (int64_t)llround(d);
		} else {
			cast_fail(ctx, mode, false, x, to);
			return;
		}
		sc_value_fmt_timestamp(i64, buf);
		sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
		return;
	default:
		cast_fail(ctx, mode, false, x, to);
		return;
	}
}

/*
 * greatest()/least() skipping NULLs as Spark does (SQLite's scalar
 * max()/min() return NULL if any argument is NULL).  Values compare as
 * SQLite orders them (numbers before text before blobs).
 */
static int
value_cmp(sqlite3_value *a, sqlite3_value *b)
{
	int ta = sqlite3_value_type(a), tb = sqlite3_value_type(b);
	int ca = ta == SQLITE_INTEGER || ta == SQLITE_FLOAT ? 0
	    : ta == SQLITE_TEXT				    ? 1
							    : 2;
	int cb = tb == SQLITE_INTEGER || tb == SQLITE_FLOAT ? 0
	    : tb == SQLITE_TEXT				    ? 1
							    : 2;
	int na, nb, r;

	if (ca != cb)
		return ca < cb ? -1 : 1;
	if (ca == 0) {
		if (ta == SQLITE_INTEGER && tb == SQLITE_INTEGER) {
			int64_t x = sqlite3_value_int64(a);
			int64_t y = sqlite3_value_int64(b);

			return x < y ? -1 : x > y;
		} else {
			double x = sqlite3_value_double(a);
			double y = sqlite3_value_double(b);

			return x < y ? -1 : x > y;
		}
	}
	na = sqlite3_value_bytes(a);
	nb = sqlite3_value_bytes(b);
	/* An empty blob's pointer is NULL, which memcmp() may not take. */
	r = na == 0 || nb == 0
	    ? 0
	    : memcmp(sqlite3_value_blob(a), sqlite3_value_blob(b),
		  (size_t)(na < nb ? na : nb));
	if (r != 0)
		return r;
	return na < nb ? -1 : na > nb;
}

static void
extreme_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int want = *(int *)sqlite3_user_data(ctx), i;
	sqlite3_value *best = NULL;

	for (i = 0; i < argc; i++) {
		if (sqlite3_value_type(argv[i]) == SQLITE_NULL)
			continue;
		if (best == NULL || value_cmp(argv[i], best) * want > 0)
			best = argv[i];
	}
	if (best == NULL)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_value(ctx, best);
}

int
sc_eng_register_functions(sqlite3 *db)
{
	static int greatest = 1, least = -1;
	int rc, flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;

	rc = sqlite3_create_function_v2(db, "sc_cast", 3, flags, NULL, cast_fn,
	    NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_cast", 4, flags, NULL,
		    cast_fn, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "greatest", -1, flags,
		    &greatest, extreme_fn, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "least", -1, flags, &least,
		    extreme_fn, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sc_eng_nest_register(db);
	if (rc == SQLITE_OK)
		rc = sc_eng_func_register(db);
	return rc;
}
