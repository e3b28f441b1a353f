/* SPDX-License-Identifier: MIT */

/*
 * engine_interval_fn.c: the SQLite functions engine_interval.c's SQL
 * calls: timestamps to and from microseconds, interval overflow checks,
 * multiplication and division rounded half up, make_dt_interval and
 * make_ym_interval, and an interval's text and parsing for CAST.
 */

#include "engine/engine_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/arrow.h"
#include "core/value.h"
#include "core/xmem.h"
#include "core/banned.h"

#define US_DAY 86400000000LL
#define DT SC_ARROW_DURATION_US
#define YM SC_ARROW_INTERVAL_YM

static void
ts_us_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s = (const char *)sqlite3_value_text(argv[0]);
	size_t n = (size_t)sqlite3_value_bytes(argv[0]);
	int64_t us;
	int32_t days;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL || s == NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	if (sc_value_parse_timestamp(s, n, &us) == 0) {
		sqlite3_result_int64(ctx, us);
		return;
	}
	/* A date beyond a timestamp's range (year 294247) is none. */
	if (sc_value_parse_date(s, n, &days) == 0 &&
	    !__builtin_mul_overflow((int64_t)days, US_DAY, &us)) {
		sqlite3_result_int64(ctx, us);
		return;
	}
	sqlite3_result_null(ctx);
}

static void
us_ts_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char b[SC_VALUE_TEXT_MAX];

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	sc_value_fmt_timestamp(sqlite3_value_int64(argv[0]), b);
	sqlite3_result_text(ctx, b, -1, SQLITE_TRANSIENT);
}

static void
overflow(sqlite3_context *ctx, int bits)
{
	sqlite3_result_error(ctx,
	    bits == 64 ? "[ARITHMETIC_OVERFLOW] long overflow. SQLSTATE: 22003"
		       : "[ARITHMETIC_OVERFLOW] integer overflow. SQLSTATE: "
			 "22003",
	    -1);
}

/* sc_ival_chk(v, bits): v if an integer of that many bits. */
static void
ival_chk_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int bits = sqlite3_value_int(argv[1]);
	int64_t v;

	(void)argc;
	switch (sqlite3_value_type(argv[0])) {
	case SQLITE_NULL:
		sqlite3_result_null(ctx);
		return;
	case SQLITE_INTEGER:
		v = sqlite3_value_int64(argv[0]);
		if (bits == 64 || (v >= INT32_MIN && v <= INT32_MAX)) {
			sqlite3_result_int64(ctx, v);
			return;
		}
		break;
	default:
		break;
	}
	overflow(ctx, bits);
}

/* Spark's error for the minimum interval divided by -1. */
static void
divide_overflow(sqlite3_context *ctx)
{
	sqlite3_result_error(ctx,
	    "[ARITHMETIC_OVERFLOW] Overflow in integral divide. Use "
	    "'try_divide' to tolerate overflow and return NULL instead. If "
	    "necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass "
	    "this error. SQLSTATE: 22003",
	    -1);
}

/*
 * sc_ival_muldiv(v, k, op, bits): interval v times or divided by the
 * number k, rounded half up as Spark's interval arithmetic does.  The
 * smallest interval divided by -1 overflows, as Spark's checkDivideOverflow
 * says (whatever the ANSI mode).
 */
static void
ival_muldiv_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *op = (const char *)sqlite3_value_text(argv[2]);
	int bits = sqlite3_value_int(argv[3]);
	/* The int64 or int32 range is [-lim, lim). */
	double lim = bits == 64 ? 9223372036854775808.0 : 2147483648.0;
	int64_t v, k, r, rem;
	uint64_t ur, uk;
	double d;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL || op == NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	if ((strcmp(op, "*") != 0 && strcmp(op, "/") != 0) ||
	    (bits != 32 && bits != 64)) {
		sc_eng_func_bad_args(ctx, "sc_ival_muldiv");
		return;
	}
	v = sqlite3_value_int64(argv[0]);
	if (*op == '/' && sqlite3_value_double(argv[1]) == 0) {
		sqlite3_result_error(ctx,
		    "[INTERVAL_DIVIDED_BY_ZERO] Division by zero. Use "
		    "`try_divide` to tolerate divisor being 0 and return NULL "
		    "instead. SQLSTATE: 22012",
		    -1);
		return;
	}
	if (sqlite3_value_numeric_type(argv[1]) == SQLITE_INTEGER) {
		k = sqlite3_value_int64(argv[1]);
		if (*op == '*') {
			if (__builtin_mul_overflow(v, k, &r)) {
				overflow(ctx, bits);
				return;
			}
		} else if (k == -1 &&
		    (v == INT64_MIN || (bits == 32 && v == INT32_MIN))) {
			divide_overflow(ctx);
			return;
		} else if (k == -1) {
			r = -v;
		} else {
			/* Half up: away from zero at .5 (|k| > 1 here). */
			r = v / k;
			rem = v % k;
			ur = rem < 0 ? -(uint64_t)rem : (uint64_t)rem;
			uk = k < 0 ? -(uint64_t)k : (uint64_t)k;
			if (ur >= uk - ur)
				r += (v < 0) != (k < 0) ? -1 : 1;
		}
		if (bits != 64 && (r > INT32_MAX || r < INT32_MIN)) {
			overflow(ctx, bits);
			return;
		}
		sqlite3_result_int64(ctx, r);
		return;
	}
	d = sqlite3_value_double(argv[1]);
	d = *op == '*' ? (double)v * d : (double)v / d;
	d = round(d); /* half away from zero */
	if (!isfinite(d) || d >= lim || d < -lim) {
		overflow(ctx, bits);
		return;
	}
	sqlite3_result_int64(ctx, (int64_t)d);
}

/*
 * sc_make_interval(1, days, hours, mins, secs): make_dt_interval;
 * sc_make_interval(0, years, months): make_ym_interval.  The count of
 * arguments decides which.
 */
static void
make_interval_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int64_t t, part;
	double secs;
	int i;

	if (argc != 3 && argc != 5) {
		sc_eng_func_bad_args(ctx, "sc_make_interval");
		return;
	}
	for (i = 1; i < argc; i++)
		if (sqlite3_value_type(argv[i]) == SQLITE_NULL) {
			sqlite3_result_null(ctx);
			return;
		}
	if (argc == 3) {
		if (__builtin_mul_overflow(sqlite3_value_int64(argv[1]), 12,
			&t) ||
		    __builtin_add_overflow(t, sqlite3_value_int64(argv[2]),
			&t) ||
		    t > INT32_MAX || t < INT32_MIN) {
			overflow(ctx, 32);
			return;
		}
		sqlite3_result_int64(ctx, t);
		return;
	}
	secs = sqlite3_value_double(argv[4]) * 1e6;
	if (!isfinite(secs) || fabs(secs) >= 9.2e18 ||
	    __builtin_mul_overflow(sqlite3_value_int64(argv[1]), US_DAY, &t) ||
	    __builtin_mul_overflow(sqlite3_value_int64(argv[2]), 3600000000LL,
		&part) ||
	    __builtin_add_overflow(t, part, &t) ||
	    __builtin_mul_overflow(sqlite3_value_int64(argv[3]), 60000000LL,
		&part) ||
	    __builtin_add_overflow(t, part, &t) ||
	    __builtin_add_overflow(t, (int64_t)llround(secs), &t)) {
		overflow(ctx, 64);
		return;
	}
	sqlite3_result_int64(ctx, t);
}

/* sc_ival_text(v, ym, start, end): Spark's string of an interval. */
static void
ival_text_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char b[SC_ARROW_INTERVAL_TEXT];

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	if (sqlite3_value_int(argv[1]))
		sc_arrow_fmt_ym_interval(sqlite3_value_int64(argv[0]),
		    sqlite3_value_int(argv[2]), sqlite3_value_int(argv[3]), b);
	else
		sc_arrow_fmt_dt_interval(sqlite3_value_int64(argv[0]),
		    sqlite3_value_int(argv[2]), sqlite3_value_int(argv[3]), b);
	sqlite3_result_text(ctx, b, -1, SQLITE_TRANSIENT);
}

/*
 * sc_ival_parse(s, ym, start, end, try): the interval text s as CAST
 * reads it: the value alone ('1 02:00:00') or Spark's whole form
 * (INTERVAL '1 02:00:00' DAY TO HOUR, of those same fields).
 */
static void
ival_parse_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s = (const char *)sqlite3_value_text(argv[0]);
	int kind = sqlite3_value_int(argv[1]) ? YM : DT;
	int start = sqlite3_value_int(argv[2]),
	    end = sqlite3_value_int(argv[3]);
	char b[SC_ARROW_INTERVAL_TEXT], msg[256], *body = NULL;
	int64_t v;
	size_t n, k;

	(void)argc;
	if (s == NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	n = strlen(s);
	if (n > 10 && strncasecmp(s, "interval '", 10) == 0) {
		/* The whole form: its fields must be the target's. */
		if (kind == YM)
			sc_arrow_fmt_ym_interval(0, start, end, b);
		else
			sc_arrow_fmt_dt_interval(0, start, end, b);
		k = strcspn(b + 10, "'"); /* the tail after the value */
		body = strchr(s + 10, '\'');
		if (body == NULL || strcasecmp(body, b + 10 + k) != 0)
			goto bad;
		body = sc_xstrndup(s + 10, (size_t)(body - (s + 10)));
		s = body;
	}
	if (sc_eng_interval_qualified(s, kind, start, end, &v) == 0) {
		sqlite3_result_int64(ctx, v);
		free(body);
		return;
	}
	free(body);
bad:
	if (sqlite3_value_int(argv[4])) {
		sqlite3_result_null(ctx);
		return;
	}
	snprintf(msg, sizeof(msg),
	    "[CAST_INVALID_INPUT] The value '%.100s' of the type \"STRING\" "
	    "cannot be cast to an interval of those fields because it is "
	    "malformed. SQLSTATE: 22018",
	    (const char *)sqlite3_value_text(argv[0]));
	sqlite3_result_error(ctx, msg, -1);
}

int
sc_eng_interval_register(sqlite3 *db)
{
	static const struct sc_efunc scalar[] = {
		{ "sc_ts_us", 1, ts_us_fn },
		{ "sc_us_ts", 1, us_ts_fn },
		{ "sc_ival_chk", 2, ival_chk_fn },
		{ "sc_ival_muldiv", 4, ival_muldiv_fn },
		{ "sc_make_interval", 3, make_interval_fn },
		{ "sc_make_interval", 5, make_interval_fn },
		{ "sc_ival_text", 4, ival_text_fn },
		{ "sc_ival_parse", 5, ival_parse_fn },
	};

	int rc = sc_eng_func_add(db, scalar, SC_NELEM(scalar));

	if (rc == SQLITE_OK)
		rc = sc_eng_collate_register(db);
	return rc;
}
