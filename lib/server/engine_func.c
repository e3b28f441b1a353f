/* SPDX-License-Identifier: MIT */

/*
 * engine_func.c: SQL functions SQLite lacks, with Spark's semantics, for
 * the function table of engine_expr.c: lpad/rpad, initcap, reverse and
 * concat_ws, translate and substring_index on UTF-8 characters, crc32,
 * digests, base64 and Spark's hash(), add_months, ANSI arithmetic checks
 * (division by zero, integer overflow), round/bround, the math functions
 * whose result may be NaN, and the variance and standard deviation
 * aggregates (NULL for fewer rows than they need, as Spark 4).
 */

#include "server/engine_int.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "core/buf.h"
#include "core/digest.h"
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

/* Days since 1970-01-01 of a proleptic Gregorian y-m-d. */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static bool
leap_year(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int
month_days(int64_t y, int m)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30,
		31 };

	return mdays[m - 1] + (m == 2 && leap_year(y));
}

static void
field_bounds_error(sqlite3_context *ctx, const char *what)
{
	char *msg;

	msg = sqlite3_mprintf("[DATETIME_FIELD_OUT_OF_BOUNDS] %s. If necessary "
			      "set \"spark.sql.ansi.enabled\" to \"false\" to "
			      "bypass this error. SQLSTATE: 22023",
	    what);
	if (msg == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	sqlite3_result_error(ctx, msg, -1);
	sqlite3_free(msg);
}

/*
 * make_date(year, month, day): the date, or under ANSI (the only mode
 * sc-serve runs) Spark's DATETIME_FIELD_OUT_OF_BOUNDS error when the
 * fields name no date.  A null field gives null.
 */
static int civil_days(sqlite3_context *ctx, sqlite3_value **argv,
    int64_t *days);

static void
make_date_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int64_t days;
	char out[24];
	int i;

	for (i = 0; i < argc; i++)
		if (sqlite3_value_type(argv[i]) == SQLITE_NULL)
			return;
	if (civil_days(ctx, argv, &days) == -1)
		return;
	sc_value_fmt_date(days, out);
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/*
 * make_timestamp(year, month, day, hour, min, sec): that instant in UTC
 * (the session zone), sec with up to 6 decimals; sec 60 without a
 * fraction is the next minute's start.  Fields naming no instant fail
 * as make_date's do; a null field gives null.
 */
static void
make_timestamp_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	static const char *const names[] = { "HourOfDay", "MinuteOfHour" };
	sqlite3_int64 hm[2];
	int64_t days, secus;
	char what[96], out[48];
	double sec;
	int i;

	for (i = 0; i < argc; i++)
		if (sqlite3_value_type(argv[i]) == SQLITE_NULL)
			return;
	if (civil_days(ctx, argv, &days) == -1)
		return;
	for (i = 0; i < 2; i++) {
		hm[i] = sqlite3_value_int64(argv[3 + i]);
		if (hm[i] < 0 || hm[i] > (i == 0 ? 23 : 59)) {
			snprintf(what, sizeof(what),
			    "Invalid value for %s (valid values 0 - %d): %lld",
			    names[i], i == 0 ? 23 : 59, (long long)hm[i]);
			field_bounds_error(ctx, what);
			return;
		}
	}
	sec = sqlite3_value_double(argv[5]);
	secus = sec >= 0 && sec < 61 ? llround(sec * 1e6) : -1;
	if (secus < 0 || secus >= 61000000) {
		snprintf(what, sizeof(what),
		    "Invalid value for SecondOfMinute (valid values 0 - 59): "
		    "%.0f",
		    trunc(sec));
		field_bounds_error(ctx, what);
		return;
	}
	if (secus > 60000000) {
		sqlite3_result_error(ctx,
		    "[INVALID_FRACTION_OF_SECOND] Valid range for seconds is "
		    "[0, 60] (inclusive), but the provided value is not. "
		    "SQLSTATE: 22023",
		    -1);
		return;
	}
	if (days < -106751991 || days > 106751990) {
		sqlite3_result_error(ctx,
		    "[DATETIME_OVERFLOW] Datetime operation overflow. "
		    "SQLSTATE: 22008",
		    -1);
		return;
	}
	sc_value_fmt_timestamp(days * 86400000000LL +
		(hm[0] * 3600 + hm[1] * 60) * 1000000LL + secus,
	    out);
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/*
 * The day number of the date argv[0..2] (year, month, day) name, or -1
 * with Spark's ANSI error set.
 */
static int
civil_days(sqlite3_context *ctx, sqlite3_value **argv, int64_t *days)
{
	static const char *const mnames[] = { "JANUARY", "FEBRUARY", "MARCH",
		"APRIL", "MAY", "JUNE", "JULY", "AUGUST", "SEPTEMBER",
		"OCTOBER", "NOVEMBER", "DECEMBER" };
	sqlite3_int64 y, m, d;
	char what[96];

	y = sqlite3_value_int64(argv[0]);
	m = sqlite3_value_int64(argv[1]);
	d = sqlite3_value_int64(argv[2]);
	if (y < -999999999 || y > 999999999) {
		snprintf(what, sizeof(what),
		    "Invalid value for Year (valid values -999999999 - "
		    "999999999): %lld",
		    (long long)y);
		field_bounds_error(ctx, what);
		return -1;
	}
	if (m < 1 || m > 12) {
		snprintf(what, sizeof(what),
		    "Invalid value for MonthOfYear (valid values 1 - 12): %lld",
		    (long long)m);
		field_bounds_error(ctx, what);
		return -1;
	}
	if (d < 1 || d > 31) {
		snprintf(what, sizeof(what),
		    "Invalid value for DayOfMonth (valid values 1 - 28/31): "
		    "%lld",
		    (long long)d);
		field_bounds_error(ctx, what);
		return -1;
	}
	if (d > month_days(y, (int)m)) {
		if (m == 2 && d == 29)
			snprintf(what, sizeof(what),
			    "Invalid date 'February 29' as '%lld' is not a "
			    "leap year",
			    (long long)y);
		else
			snprintf(what, sizeof(what), "Invalid date '%s %lld'",
			    mnames[m - 1], (long long)d);
		field_bounds_error(ctx, what);
		return -1;
	}
	*days = days_from_civil(y, (int)m, (int)d);
	return 0;
}

/* A date or timestamp argument in microseconds, or -1 with an error set. */
static int
ts_arg(sqlite3_context *ctx, sqlite3_value *v, int64_t *us)
{
	const char *s;

	s = (const char *)sqlite3_value_text(v);
	if (s == NULL ||
	    sc_value_parse_timestamp(s, (size_t)sqlite3_value_bytes(v), us) ==
		-1) {
		sqlite3_result_error(ctx,
		    "[CAST_INVALID_INPUT] The value cannot be cast to "
		    "\"TIMESTAMP\" because it is malformed. SQLSTATE: 22018",
		    -1);
		return -1;
	}
	return 0;
}

/*
 * months_between(t1, t2[, roundOff]): whole months when both fall on
 * the same day of the month or both on their month's last day; else
 * the month difference plus the rest in seconds (sub-second part
 * dropped) over a 31-day month, rounded half up to 8 decimals unless
 * roundOff is false.  Days are in UTC, the server's session zone.
 */
static void
months_between_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const int64_t day_us = 86400000000LL;
	int64_t us[2], days, sec[2];
	int64_t y[2];
	int mo[2], d[2], i;
	char out[24];
	double diff;
	bool round_off = true;

	for (i = 0; i < argc; i++)
		if (sqlite3_value_type(argv[i]) == SQLITE_NULL)
			return;
	if (argc == 3)
		round_off = sqlite3_value_int64(argv[2]) != 0;
	for (i = 0; i < 2; i++) {
		if (ts_arg(ctx, argv[i], &us[i]) == -1)
			return;
		days = us[i] >= 0 ? us[i] / day_us
				  : -((-us[i] + day_us - 1) / day_us);
		sec[i] = (us[i] - days * day_us) / 1000000;
		sc_value_fmt_date(days, out);
		/* YYYY-MM-DD, the year possibly signed and longer */
		{
			size_t n = strlen(out);

			y[i] = strtoll(out, NULL, 10);
			mo[i] = (out[n - 5] - '0') * 10 + (out[n - 4] - '0');
			d[i] = (out[n - 2] - '0') * 10 + (out[n - 1] - '0');
		}
	}
	diff = (double)((y[0] * 12 + mo[0]) - (y[1] * 12 + mo[1]));
	if (d[0] == d[1] ||
	    (d[0] == month_days(y[0], mo[0]) &&
		d[1] == month_days(y[1], mo[1]))) {
		sqlite3_result_double(ctx, diff);
		return;
	}
	diff += (double)((int64_t)(d[0] - d[1]) * 86400 + sec[0] - sec[1]) /
	    (double)(31 * 86400);
	if (round_off)
		diff = floor(diff * 1e8 + 0.5) / 1e8;
	sqlite3_result_double(ctx, diff);
}

/*
 * Round the decimal digits s (an optional '-', digits, an optional '.'
 * and digits) to d decimals, HALF_EVEN, into b.  -1 if s is not such a
 * number.
 */
static int
round_decimal_text(const char *s, size_t n, int d, struct sc_buf *b)
{
	size_t i = 0, ip, fp = 0, k;
	const char *frac = NULL;
	char *dig;
	size_t nd;
	bool neg = false, up;
	int j;

	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	for (ip = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		;
	ip = i - ip;
	if (i < n && s[i] == '.') {
		frac = s + ++i;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			fp++;
	}
	if (i != n || ip + fp == 0)
		return -1;
	/* digits: a leading 0 for a carry, the integer part, d decimals */
	nd = 1 + ip + (size_t)d;
	dig = sc_xmalloc(nd + 1);
	dig[0] = '0';
	memcpy(dig + 1, frac != NULL ? frac - 1 - ip : s + n - ip, ip);
	for (k = 0; k < (size_t)d; k++)
		dig[1 + ip + k] = k < fp ? frac[k] : '0';
	/* HALF_EVEN on the dropped decimals */
	up = false;
	if ((size_t)d < fp && frac[d] >= '5') {
		bool rest = false;

		for (k = (size_t)d + 1; k < fp; k++)
			rest = rest || frac[k] != '0';
		up = frac[d] > '5' || rest || ((dig[nd - 1] - '0') % 2 == 1);
	}
	if (up) {
		for (j = (int)nd - 1; j >= 0 && dig[j] == '9'; j--)
			dig[j] = '0';
		if (j >= 0)
			dig[j]++;
	}
	dig[nd] = '\0';
	if (neg)
		sc_buf_addch(b, '-', NULL);
	k = 0;
	while (k + 1 < 1 + ip && dig[k] == '0')
		k++;
	sc_buf_add(b, dig + k, 1 + ip - k, NULL);
	if (d > 0) {
		sc_buf_addch(b, '.', NULL);
		sc_buf_add(b, dig + 1 + ip, (size_t)d, NULL);
	}
	free(dig);
	return 0;
}

/*
 * format_number(x, d[, scale]): x rounded HALF_EVEN to d decimals (a
 * double by its exact binary value, as Java's DecimalFormat; a decimal,
 * which travels as a double, by its digits at its scale) with ','
 * between groups of three integer digits; null when d < 0.  A pattern
 * string as d is refused.
 */
static void
format_number_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct sc_buf b, out;
	sqlite3_int64 d;
	const char *p, *dot, *digits;
	char *tmp;
	size_t i, nint;
	double v;

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER) {
		sqlite3_result_error(ctx,
		    "[UNSUPPORTED_FEATURE.EXPRESSION] format_number() with a "
		    "pattern is not supported by sc-serve. SQLSTATE: 0A000",
		    -1);
		return;
	}
	d = sqlite3_value_int64(argv[1]);
	if (d < 0)
		return;
	if (d > 1000) {
		sqlite3_result_error(ctx,
		    "[UNSUPPORTED_FEATURE.EXPRESSION] format_number() to more "
		    "than 1000 decimals is not supported by sc-serve. "
		    "SQLSTATE: 0A000",
		    -1);
		return;
	}
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	switch (sqlite3_value_type(argv[0])) {
	case SQLITE_INTEGER:
		sc_buf_addf(&b, NULL, "%lld",
		    (long long)sqlite3_value_int64(argv[0]));
		if (d > 0) {
			sc_buf_addch(&b, '.', NULL);
			for (i = 0; i < (size_t)d; i++)
				sc_buf_addch(&b, '0', NULL);
		}
		break;
	case SQLITE_FLOAT:
		v = sqlite3_value_double(argv[0]);
		if (isinf(v)) {
			sc_buf_addstr(&b,
			    v < 0 ? "-\xe2\x88\x9e" : "\xe2\x88\x9e", NULL);
			break;
		}
		if (argc == 3) {
			/* a decimal of that scale: its digits, then round */
			int sc = sqlite3_value_int(argv[2]);

			sc = sc < 0 ? 0 : sc > 38 ? 38 : sc;
			tmp = sc_xmalloc(400);
			snprintf(tmp, 400, "%.*f", sc, v);
			round_decimal_text(tmp, strlen(tmp), (int)d, &b);
			free(tmp);
			break;
		}
		tmp = sc_xmalloc(330 + (size_t)d);
		snprintf(tmp, 330 + (size_t)d, "%.*f", (int)d, v);
		sc_buf_addstr(&b, tmp, NULL);
		free(tmp);
		break;
	default:
		p = (const char *)sqlite3_value_text(argv[0]);
		if (p != NULL && strcmp(p, "NaN") == 0) {
			sc_buf_addstr(&b, "NaN", NULL);
			break;
		}
		if (p == NULL ||
		    round_decimal_text(p, (size_t)sqlite3_value_bytes(argv[0]),
			(int)d, &b) == -1) {
			sc_buf_release(&b);
			sqlite3_result_error(ctx,
			    "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] "
			    "format_number() takes a number. SQLSTATE: 42K09",
			    -1);
			return;
		}
		break;
	}
	if (b.failed) {
		sc_buf_release(&b);
		sqlite3_result_error_nomem(ctx);
		return;
	}
	sc_buf_addch(&b, '\0', NULL);
	p = (const char *)b.data;
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	if (*p == '-')
		sc_buf_addch(&out, *p++, NULL);
	digits = p;
	dot = strchr(digits, '.');
	nint = dot != NULL ? (size_t)(dot - digits) : strlen(digits);
	if (nint == 0 || !isdigit((unsigned char)digits[0])) {
		sc_buf_addstr(&out, digits, NULL);
	} else {
		for (i = 0; i < nint; i++) {
			if (i > 0 && (nint - i) % 3 == 0)
				sc_buf_addch(&out, ',', NULL);
			sc_buf_addch(&out, digits[i], NULL);
		}
		if (dot != NULL)
			sc_buf_addstr(&out, dot, NULL);
	}
	sc_buf_release(&b);
	result_buf(ctx, &out);
}

/* ---- Java datetime patterns: date_format, to_date/to_timestamp ----- */

struct civil {
	int y, mo, d, h, mi, s, us;
	int64_t days;
};

static const char *const months[] = { "January", "February", "March", "April",
	"May", "June", "July", "August", "September", "October", "November",
	"December" };
static const char *const wdays[] = { "Sunday", "Monday", "Tuesday", "Wednesday",
	"Thursday", "Friday", "Saturday" };

static int64_t
floordiv(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* Microseconds since the epoch as date and time fields. */
static void
civil_from_us(int64_t us, struct civil *c)
{
	char b[SC_VALUE_TEXT_MAX];
	int64_t sec = floordiv(us, 1000000);

	c->us = (int)(us - sec * 1000000);
	c->days = floordiv(sec, 86400);
	sec -= c->days * 86400;
	c->h = (int)(sec / 3600);
	c->mi = (int)(sec / 60 % 60);
	c->s = (int)(sec % 60);
	sc_value_fmt_date(c->days, b);
	sscanf(b, "%d-%d-%d", &c->y, &c->mo, &c->d);
}

static bool
pattern_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void
fail(sqlite3_context *ctx, const char *fmt, const char *arg)
{
	char *m = sqlite3_mprintf(fmt, arg);

	sqlite3_result_error(ctx, m != NULL ? m : "error", -1);
	sqlite3_free(m);
}

/* sc_date_format(ts, pattern): the value as a Java pattern prints it. */
static void
date_format_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *v, *f;
	struct civil c;
	struct sc_buf b;
	int64_t us;
	size_t i, k;
	int yday;
	char t[16];

	(void)argc;
	v = (const char *)sqlite3_value_text(argv[0]);
	f = (const char *)sqlite3_value_text(argv[1]);
	if (v == NULL || f == NULL)
		return;
	if (sc_value_parse_timestamp(v, (size_t)sqlite3_value_bytes(argv[0]),
		&us) == -1)
		return; /* Spark: NULL for a string it cannot read */
	civil_from_us(us, &c);
	sc_value_fmt_date(c.days, t);
	{
		int32_t jan1;
		char y1[16];

		snprintf(y1, sizeof(y1), "%04d-01-01", c.y);
		sc_value_parse_date(y1, strlen(y1), &jan1);
		yday = (int)(c.days - jan1) + 1;
	}
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	for (i = 0; f[i] != '\0'; i += k) {
		char ch = f[i];

		if (ch == '\'') {
			/* 'text', '' for a quote */
			if (f[i + 1] == '\'') {
				sc_buf_addch(&b, '\'', NULL);
				k = 2;
				continue;
			}
			for (k = 1; f[i + k] != '\0' && f[i + k] != '\''; k++)
				sc_buf_addch(&b, f[i + k], NULL);
			if (f[i + k] == '\'')
				k++;
			continue;
		}
		for (k = 1; f[i + k] == ch; k++)
			;
		if (!pattern_letter(ch)) {
			sc_buf_add(&b, f + i, k, NULL);
			continue;
		}
		switch (ch) {
		case 'y':
		case 'u':
			if (k == 2)
				sc_buf_addf(&b, NULL, "%02d", c.y % 100);
			else
				sc_buf_addf(&b, NULL, "%0*d", (int)k, c.y);
			break;
		case 'M':
		case 'L':
			if (k >= 4)
				sc_buf_addstr(&b, months[c.mo - 1], NULL);
			else if (k == 3)
				sc_buf_add(&b, months[c.mo - 1], 3, NULL);
			else
				sc_buf_addf(&b, NULL, "%0*d", (int)k, c.mo);
			break;
		case 'd':
			sc_buf_addf(&b, NULL, "%0*d", (int)k, c.d);
			break;
		case 'D':
			sc_buf_addf(&b, NULL, "%0*d", (int)k, yday);
			break;
		case 'H':
			sc_buf_addf(&b, NULL, "%0*d", (int)k, c.h);
			break;
		case 'h':
			sc_buf_addf(&b, NULL, "%0*d", (int)k,
			    c.h % 12 == 0 ? 12 : c.h % 12);
			break;
		case 'k':
			sc_buf_addf(&b, NULL, "%0*d", (int)k,
			    c.h == 0 ? 24 : c.h);
			break;
		case 'K':
			sc_buf_addf(&b, NULL, "%0*d", (int)k, c.h % 12);
			break;
		case 'm':
			sc_buf_addf(&b, NULL, "%0*d", (int)k, c.mi);
			break;
		case 's':
			sc_buf_addf(&b, NULL, "%0*d", (int)k, c.s);
			break;
		case 'S': {
			char fr[8];
			size_t w = k > 6 ? 6 : k;

			snprintf(fr, sizeof(fr), "%06d", c.us);
			sc_buf_add(&b, fr, w, NULL);
			for (; w < k; w++)
				sc_buf_addch(&b, '0', NULL);
			break;
		}
		case 'a':
			sc_buf_addstr(&b, c.h < 12 ? "AM" : "PM", NULL);
			break;
		case 'E': {
			const char *wd =
			    wdays[(int)(((c.days + 4) % 7 + 7) % 7)];

			if (k >= 4)
				sc_buf_addstr(&b, wd, NULL);
			else
				sc_buf_add(&b, wd, 3, NULL);
			break;
		}
		case 'Q':
		case 'q':
			sc_buf_addf(&b, NULL, "%0*d", (int)k, (c.mo + 2) / 3);
			break;
		case 'X':
		case 'x':
		case 'Z':
			sc_buf_addstr(&b, ch == 'X' ? "Z" : "+0000", NULL);
			break;
		case 'V':
		case 'z':
		case 'O':
			sc_buf_addstr(&b, "UTC", NULL);
			break;
		default:
			sc_buf_release(&b);
			fail(ctx,
			    "[INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER] "
			    "Found the illegal character in the datetime "
			    "pattern '%s'. SQLSTATE: 22007",
			    f);
			return;
		}
	}
	result_buf(ctx, &b);
}

static void
regex_free(void *p)
{
	regfree(p);
	free(p);
}

/* Read n digits (exactly, or 1..max when !exact) of s at *i. */
static int
digits(const char *s, size_t *i, size_t n, bool exact, int *out)
{
	size_t k = 0;
	int v = 0;

	while (k < n && s[*i + k] >= '0' && s[*i + k] <= '9') {
		v = v * 10 + (s[*i + k] - '0');
		k++;
	}
	if (k == 0 || (exact && k != n))
		return -1;
	*i += k;
	*out = v;
	return 0;
}

/*
 * sc_parse_dt(text, pattern, want_ts): the text read with a Java
 * pattern, as 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS.ffffff'; text the
 * pattern does not fit fails under ANSI (Spark 4's default).
 */
static void
parse_dt_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *v, *f;
	size_t i = 0, j, k;
	int y = 1970, mo = 1, d = 1, h = 0, mi = 0, sec = 0, us = 0, x;
	bool pm = false, ampm = false;
	char out[64];
	int32_t days;

	(void)argc;
	v = (const char *)sqlite3_value_text(argv[0]);
	f = (const char *)sqlite3_value_text(argv[1]);
	if (v == NULL || f == NULL)
		return;
	for (j = 0; f[j] != '\0'; j += k) {
		char ch = f[j];

		if (ch == '\'') {
			for (k = 1; f[j + k] != '\0' && f[j + k] != '\''; k++) {
				if (v[i] != f[j + k])
					goto bad;
				i++;
			}
			if (f[j + k] == '\'')
				k++;
			continue;
		}
		for (k = 1; f[j + k] == ch; k++)
			;
		if (!pattern_letter(ch)) {
			if (strncmp(v + i, f + j, k) != 0)
				goto bad;
			i += k;
			continue;
		}
		switch (ch) {
		case 'y':
			if (digits(v, &i, k == 2 ? 2 : 9, k == 2, &x) == -1)
				goto bad;
			y = k == 2 ? 2000 + x : x;
			break;
		case 'M':
			if (digits(v, &i, 2, k == 2, &mo) == -1)
				goto bad;
			break;
		case 'd':
			if (digits(v, &i, 2, k == 2, &d) == -1)
				goto bad;
			break;
		case 'H':
		case 'h':
			if (digits(v, &i, 2, k == 2, &h) == -1)
				goto bad;
			break;
		case 'm':
			if (digits(v, &i, 2, k == 2, &mi) == -1)
				goto bad;
			break;
		case 's':
			if (digits(v, &i, 2, k == 2, &sec) == -1)
				goto bad;
			break;
		case 'S': {
			size_t start = i, n;

			if (digits(v, &i, k, true, &x) == -1)
				goto bad;
			for (us = x, n = i - start; n < 6; n++)
				us *= 10;
			for (; n > 6; n--)
				us /= 10;
			break;
		}
		case 'a':
			ampm = true;
			if (strncasecmp(v + i, "PM", 2) == 0)
				pm = true;
			else if (strncasecmp(v + i, "AM", 2) != 0)
				goto bad;
			i += 2;
			break;
		default:
			goto bad;
		}
	}
	if (v[i] != '\0')
		goto bad;
	if (ampm)
		h = h % 12 + (pm ? 12 : 0);
	if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59)
		goto bad;
	snprintf(out, sizeof(out), "%04d-%02d-%02d", y, mo, d);
	/* The date must exist: 2021-02-30 is no date. */
	if (sc_value_parse_date(out, strlen(out), &days) == -1)
		goto bad;
	{
		char back[SC_VALUE_TEXT_MAX];

		sc_value_fmt_date(days, back);
		if (strcmp(back, out) != 0)
			goto bad;
	}
	if (sqlite3_value_int(argv[2]))
		snprintf(out + 10, sizeof(out) - 10, " %02d:%02d:%02d.%06d", h,
		    mi, sec, us);
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
	return;
bad:
	fail(ctx,
	    "[CANNOT_PARSE_TIMESTAMP] Text '%s' could not be parsed. Use "
	    "`try_to_timestamp` to tolerate invalid input string and return "
	    "NULL instead. SQLSTATE: 22007",
	    v);
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

/* ---- regular expressions: Java syntax onto POSIX extended ---------- */

/*
 * Translate the common subset of Java's regex syntax to POSIX ERE:
 * \d \w \s (and upper-case negations), escapes of punctuation, classes,
 * groups, alternation, greedy quantifiers.  Lookaround, lazy or
 * possessive quantifiers, backreferences, named groups and inline
 * flags are refused (-1): POSIX has no such thing, and a wrong match
 * would be a wrong answer.
 */
static int
java_to_posix(const char *p, struct sc_buf *out)
{
	bool in_class = false;

	for (; *p != '\0'; p++) {
		if (*p == '\\') {
			p++;
			switch (*p) {
			case 'd':
				sc_buf_addstr(out, in_class ? "0-9" : "[0-9]",
				    NULL);
				break;
			case 'D':
				if (in_class)
					return -1;
				sc_buf_addstr(out, "[^0-9]", NULL);
				break;
			case 'w':
				sc_buf_addstr(out,
				    in_class ? "[:alnum:]_" : "[[:alnum:]_]",
				    NULL);
				break;
			case 'W':
				if (in_class)
					return -1;
				sc_buf_addstr(out, "[^[:alnum:]_]", NULL);
				break;
			case 's':
				sc_buf_addstr(out,
				    in_class ? "[:space:]" : "[[:space:]]",
				    NULL);
				break;
			case 'S':
				if (in_class)
					return -1;
				sc_buf_addstr(out, "[^[:space:]]", NULL);
				break;
			case 't':
				sc_buf_addch(out, '\t', NULL);
				break;
			case 'n':
				sc_buf_addch(out, '\n', NULL);
				break;
			case '\0':
				return -1;
			default:
				if ((*p >= 'a' && *p <= 'z') ||
				    (*p >= 'A' && *p <= 'Z') ||
				    (*p >= '0' && *p <= '9'))
					return -1; /* \b, \1, \p{...}, ... */
				if (in_class) {
					sc_buf_addch(out, *p, NULL);
				} else {
					sc_buf_addch(out, '\\', NULL);
					sc_buf_addch(out, *p, NULL);
				}
				break;
			}
			continue;
		}
		if (in_class) {
			if (*p == ']')
				in_class = false;
			else if (*p == '[')
				return -1; /* nested classes, unions */
			sc_buf_addch(out, *p, NULL);
			continue;
		}
		switch (*p) {
		case '[':
			in_class = true;
			sc_buf_addch(out, '[', NULL);
			if (p[1] == '^')
				sc_buf_addch(out, *++p, NULL);
			if (p[1] == ']')
				sc_buf_addch(out, *++p, NULL);
			break;
		case '(':
			if (p[1] == '?')
				return -1;
			sc_buf_addch(out, '(', NULL);
			break;
		case '*':
		case '+':
		case '?':
		case '}':
			sc_buf_addch(out, *p, NULL);
			if (p[1] == '?' || p[1] == '+')
				return -1; /* lazy, possessive */
			break;
		default:
			sc_buf_addch(out, *p, NULL);
			break;
		}
	}
	return in_class ? -1 : 0;
}

/* The compiled pattern of argument i, cached on the statement. */
static regex_t *
pattern_arg(sqlite3_context *ctx, sqlite3_value **argv, int i)
{
	regex_t *re = sqlite3_get_auxdata(ctx, i);
	struct sc_buf e;
	const char *p;
	int rc;

	if (re != NULL)
		return re;
	if ((p = (const char *)sqlite3_value_text(argv[i])) == NULL)
		return NULL;
	sc_buf_init(&e, SC_BUF_UNLIMITED);
	if (java_to_posix(p, &e) == -1) {
		sc_buf_release(&e);
		fail(ctx,
		    "[UNSUPPORTED_FEATURE.REGEXP] The regular expression '%s' "
		    "uses Java syntax sc-serve does not support (lookaround, "
		    "lazy quantifiers, backreferences, \\b, \\p, inline "
		    "flags). SQLSTATE: 0A000",
		    p);
		return NULL;
	}
	re = sc_xmalloc(sizeof(*re));
	rc = regcomp(re, (const char *)e.data, REG_EXTENDED);
	sc_buf_release(&e);
	if (rc != 0) {
		free(re);
		fail(ctx,
		    "[INVALID_PARAMETER_VALUE.PATTERN] The value of parameter "
		    "`regexp` is invalid: '%s'. SQLSTATE: 22023",
		    p);
		return NULL;
	}
	sqlite3_set_auxdata(ctx, i, re, regex_free);
	return sqlite3_get_auxdata(ctx, i);
}

static void
rlike_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s;
	regex_t *re;

	(void)argc;
	if ((s = (const char *)sqlite3_value_text(argv[0])) == NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	if ((re = pattern_arg(ctx, argv, 1)) == NULL)
		return;
	sqlite3_result_int(ctx, regexec(re, s, 0, NULL, 0) == 0);
}

/* regexp_replace(str, regexp, rep): $n in rep is group n. */
static void
regexp_replace_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s, *rep, *r;
	regmatch_t m[10];
	struct sc_buf b;
	regex_t *re;
	size_t off = 0, len;
	int flags = 0, g;

	(void)argc;
	if ((s = (const char *)sqlite3_value_text(argv[0])) == NULL ||
	    (rep = (const char *)sqlite3_value_text(argv[2])) == NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	if ((re = pattern_arg(ctx, argv, 1)) == NULL)
		return;
	len = strlen(s);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	while (off <= len && regexec(re, s + off, 10, m, flags) == 0) {
		sc_buf_add(&b, s + off, (size_t)m[0].rm_so, NULL);
		for (r = rep; *r != '\0'; r++) {
			if (*r == '\\' && r[1] != '\0') {
				sc_buf_addch(&b, *++r, NULL);
			} else if (*r == '$' && r[1] >= '0' && r[1] <= '9') {
				g = *++r - '0';
				if (m[g].rm_so >= 0)
					sc_buf_add(&b, s + off + m[g].rm_so,
					    (size_t)(m[g].rm_eo - m[g].rm_so),
					    NULL);
			} else {
				sc_buf_addch(&b, *r, NULL);
			}
		}
		if (m[0].rm_eo == m[0].rm_so) {
			/* An empty match: keep one character and go on. */
			if (off + (size_t)m[0].rm_eo < len)
				sc_buf_addch(&b, s[off + m[0].rm_eo], NULL);
			off += (size_t)m[0].rm_eo + 1;
		} else {
			off += (size_t)m[0].rm_eo;
		}
		flags = REG_NOTBOL;
	}
	if (off < len)
		sc_buf_add(&b, s + off, len - off, NULL);
	result_buf(ctx, &b);
}

/* regexp_extract(str, regexp, idx): group idx of the first match. */
static void
regexp_extract_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s;
	regmatch_t m[10];
	regex_t *re;
	sqlite3_int64 idx;

	if ((s = (const char *)sqlite3_value_text(argv[0])) == NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	idx = argc > 2 ? sqlite3_value_int64(argv[2]) : 1;
	if ((re = pattern_arg(ctx, argv, 1)) == NULL)
		return;
	if (idx < 0 || idx > (sqlite3_int64)re->re_nsub || idx > 9) {
		sqlite3_result_error(ctx,
		    "[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX] The value of "
		    "parameter(s) `idx` in `regexp_extract` is invalid: "
		    "Expects group index between 0 and the number of groups. "
		    "SQLSTATE: 22023",
		    -1);
		return;
	}
	if (regexec(re, s, 10, m, 0) != 0 || m[idx].rm_so < 0) {
		sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
		return;
	}
	sqlite3_result_text(ctx, s + m[idx].rm_so,
	    (int)(m[idx].rm_eo - m[idx].rm_so), SQLITE_TRANSIENT);
}

static void
json_str(struct sc_buf *b, const char *s, size_t n)
{
	size_t i;

	sc_buf_addch(b, '"', NULL);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			sc_buf_addf(b, NULL, "\\%c", c);
		else if (c < 0x20)
			sc_buf_addf(b, NULL, "\\u%04x", c);
		else
			sc_buf_addch(b, (char)c, NULL);
	}
	sc_buf_addch(b, '"', NULL);
}

/* split(str, regexp[, limit]): a JSON array of strings. */
static void
split_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s;
	regmatch_t m[1];
	struct sc_buf b;
	regex_t *re;
	size_t off = 0, len, k = 0, from;
	sqlite3_int64 limit;
	int flags = 0;

	if ((s = (const char *)sqlite3_value_text(argv[0])) == NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	limit = argc > 2 ? sqlite3_value_int64(argv[2]) : -1;
	if ((re = pattern_arg(ctx, argv, 1)) == NULL)
		return;
	len = strlen(s);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_buf_addch(&b, '[', NULL);
	from = 0;
	/* Java's split: an empty match splits between characters. */
	while (off < len && (limit <= 0 || (sqlite3_int64)k + 1 < limit) &&
	    regexec(re, s + off, 1, m, flags) == 0) {
		size_t a = off + (size_t)m[0].rm_so,
		       e = off + (size_t)m[0].rm_eo;

		if (e == a) {
			if (a >= len)
				break;
			if (a == 0) {
				off = a + 1;
				flags = REG_NOTBOL;
				continue;
			}
		}
		if (k++ > 0)
			sc_buf_addch(&b, ',', NULL);
		json_str(&b, s + from, a - from);
		from = e;
		off = e > a ? e : a + 1;
		flags = REG_NOTBOL;
	}
	if (k++ > 0)
		sc_buf_addch(&b, ',', NULL);
	json_str(&b, s + from, len - from);
	sc_buf_addch(&b, ']', NULL);
	result_buf(ctx, &b);
}

/* ---- sc_cov(x, y, kind): covar_samp 0, covar_pop 1, corr 2 -------- */

struct cov {
	sqlite3_int64 n;
	double mx, my, cxy, m2x, m2y;
	int kind;
};

static void
cov_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct cov *c = sqlite3_aggregate_context(ctx, sizeof(*c));
	double x, y, dx, dy;

	(void)argc;
	if (c == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	c->kind = sqlite3_value_int(argv[2]);
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	x = sqlite3_value_double(argv[0]);
	y = sqlite3_value_double(argv[1]);
	c->n++;
	dx = x - c->mx;
	dy = y - c->my;
	c->mx += dx / (double)c->n;
	c->my += dy / (double)c->n;
	c->cxy += dx * (y - c->my);
	c->m2x += dx * (x - c->mx);
	c->m2y += dy * (y - c->my);
}

static void
cov_final(sqlite3_context *ctx)
{
	struct cov *c = sqlite3_aggregate_context(ctx, 0);

	if (c == NULL || c->n == 0)
		return;
	switch (c->kind) {
	case 0:
		if (c->n < 2)
			return; /* Spark 4: NULL */
		sqlite3_result_double(ctx, c->cxy / (double)(c->n - 1));
		return;
	case 1:
		sqlite3_result_double(ctx, c->cxy / (double)c->n);
		return;
	default:
		if (c->n < 2 || c->m2x == 0 || c->m2y == 0)
			return; /* Spark 4: NULL when a side is constant */
		sqlite3_result_double(ctx, c->cxy / sqrt(c->m2x * c->m2y));
		return;
	}
}

/* ---- first/last, max_by/min_by, percentile --------------------------- */

/*
 * sc_pick(x, mode[, y]): mode 0 first, 1 first ignoring nulls, 2 last,
 * 3 last ignoring nulls (in the rows' order), 4 max_by, 5 min_by (x
 * of the row with the largest / smallest y; nulls in y are skipped).
 */
struct pick {
	sqlite3_value *v;
	sqlite3_value *key;
	bool seen;
};

static int
value_cmp3(sqlite3_value *a, sqlite3_value *b)
{
	int ta = sqlite3_value_numeric_type(a),
	    tb = sqlite3_value_numeric_type(b);

	if ((ta == SQLITE_INTEGER || ta == SQLITE_FLOAT) &&
	    (tb == SQLITE_INTEGER || tb == SQLITE_FLOAT)) {
		double x = sqlite3_value_double(a), y = sqlite3_value_double(b);

		if (ta == SQLITE_INTEGER && tb == SQLITE_INTEGER) {
			sqlite3_int64 i = sqlite3_value_int64(a),
				      j = sqlite3_value_int64(b);

			return i < j ? -1 : i > j;
		}
		return x < y ? -1 : x > y;
	}
	{
		const unsigned char *p = sqlite3_value_text(a),
				    *q = sqlite3_value_text(b);
		int r = strcmp(p != NULL ? (const char *)p : "",
		    q != NULL ? (const char *)q : "");

		return r < 0 ? -1 : r > 0;
	}
}

static void
pick_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct pick *p = sqlite3_aggregate_context(ctx, sizeof(*p));
	int mode = sqlite3_value_int(argv[1]);
	bool null = sqlite3_value_type(argv[0]) == SQLITE_NULL;
	sqlite3_value *nv;

	if (p == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (mode >= 4) {
		int c;

		if (argc < 3 || sqlite3_value_type(argv[2]) == SQLITE_NULL)
			return;
		if (p->seen) {
			c = value_cmp3(argv[2], p->key);
			if ((mode == 4 && c <= 0) || (mode == 5 && c >= 0))
				return;
		}
		sqlite3_value_free(p->key);
		p->key = sqlite3_value_dup(argv[2]);
	} else {
		if ((mode == 1 || mode == 3) && null)
			return;
		if ((mode == 0 || mode == 1) && p->seen)
			return;
	}
	nv = sqlite3_value_dup(argv[0]);
	if (nv == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	sqlite3_value_free(p->v);
	p->v = nv;
	p->seen = true;
}

static void
pick_final(sqlite3_context *ctx)
{
	struct pick *p = sqlite3_aggregate_context(ctx, 0);

	if (p == NULL)
		return;
	if (p->v != NULL)
		sqlite3_result_value(ctx, p->v);
	sqlite3_value_free(p->v);
	sqlite3_value_free(p->key);
	p->v = p->key = NULL;
}

/*
 * sc_pct(x, p, exact): exact 1 is percentile (linear interpolation
 * between the two nearest values, as Spark's percentile and median),
 * exact 0 percentile_approx (the smallest value with at least p of
 * the values at or below it).
 */
struct pct {
	double *v;
	size_t n, cap;
	double p;
	int exact;
};

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
pct_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct pct *c = sqlite3_aggregate_context(ctx, sizeof(*c));

	(void)argc;
	if (c == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	c->p = sqlite3_value_double(argv[1]);
	c->exact = sqlite3_value_int(argv[2]);
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->v = sc_xreallocarray(c->v, c->cap, sizeof(*c->v));
	}
	c->v[c->n++] = sqlite3_value_double(argv[0]);
}

static void
pct_final(sqlite3_context *ctx)
{
	struct pct *c = sqlite3_aggregate_context(ctx, 0);
	double pos, lo;
	size_t k;

	if (c == NULL)
		return;
	if (c->p < 0 || c->p > 1) {
		sqlite3_result_error(ctx,
		    "[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] The percentage "
		    "must be between 0.0 and 1.0. SQLSTATE: 42K09",
		    -1);
	} else if (c->n > 0) {
		qsort(c->v, c->n, sizeof(*c->v), dcmp);
		if (c->exact) {
			pos = c->p * (double)(c->n - 1);
			lo = floor(pos);
			k = (size_t)lo;
			sqlite3_result_double(ctx,
			    k + 1 < c->n
				? c->v[k] + (pos - lo) * (c->v[k + 1] - c->v[k])
				: c->v[k]);
		} else {
			pos = ceil(c->p * (double)c->n);
			k = pos < 1 ? 0 : (size_t)pos - 1;
			sqlite3_result_double(ctx,
			    c->v[k < c->n ? k : c->n - 1]);
		}
	}
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}

/* ---- arithmetic under ANSI mode -------------------------------- */

#define DIV0_MSG                                                           \
	"[DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate " \
	"divisor being 0 and return NULL instead. SQLSTATE: 22012"

/* sc_div0(x): x itself, a divisor; zero fails as Spark's "/" and "%". */
static void
div0_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_value *x = argv[0];

	(void)argc;
	switch (sqlite3_value_numeric_type(x)) {
	case SQLITE_INTEGER:
		if (sqlite3_value_int64(x) == 0) {
			sqlite3_result_error(ctx, DIV0_MSG, -1);
			return;
		}
		break;
	case SQLITE_FLOAT:
		if (sqlite3_value_double(x) == 0) {
			sqlite3_result_error(ctx, DIV0_MSG, -1);
			return;
		}
		break;
	default:
		break;
	}
	sqlite3_result_value(ctx, x);
}

/*
 * sc_intchk(x, bits): x, the result of integer arithmetic, if it fits a
 * signed integer of that many bits; SQLite turns a 64-bit overflow into
 * a REAL, which fails here too, as Spark's ANSI arithmetic does.
 */
static void
intchk_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int bits = sqlite3_value_int(argv[1]);
	int64_t v, lim;
	static const char *const names[] = { "tinyint", "smallint", "integer",
		"long" };
	const char *name;

	(void)argc;
	name = bits == 8 ? names[0]
	    : bits == 16 ? names[1]
	    : bits == 32 ? names[2]
			 : names[3];
	switch (sqlite3_value_type(argv[0])) {
	case SQLITE_NULL:
		sqlite3_result_null(ctx);
		return;
	case SQLITE_INTEGER:
		v = sqlite3_value_int64(argv[0]);
		lim = bits >= 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
		if (bits >= 64 || (v <= lim && v >= -lim - 1)) {
			sqlite3_result_int64(ctx, v);
			return;
		}
		break;
	default:
		break;
	}
	{
		char msg[256];

		snprintf(msg, sizeof(msg),
		    "[ARITHMETIC_OVERFLOW] %s overflow. Use 'try_add' to "
		    "tolerate overflow and return NULL instead. SQLSTATE: 22003",
		    name);
		sqlite3_result_error(ctx, msg, -1);
	}
}

/*
 * sc_bround(x, d): x rounded to d decimal places (d < 0: to tens,
 * hundreds...), half to even; sc_round(x, d) the same, half up (away
 * from zero), as Spark's round.
 */
static void
bround_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	double x, m, r, f;
	int d;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	d = sqlite3_value_int(argv[1]);
	if (sqlite3_value_numeric_type(argv[0]) == SQLITE_INTEGER && d >= 0) {
		sqlite3_result_int64(ctx, sqlite3_value_int64(argv[0]));
		return;
	}
	x = sqlite3_value_double(argv[0]);
	if (d > 300 || d < -300 || !isfinite(x)) {
		sqlite3_result_double(ctx, x);
		return;
	}
	/*
	 * A tie within rounding error of the double is a tie: Spark rounds
	 * the decimal the double prints as (2.675 is 2.68), not the binary
	 * value nearest it.
	 */
	m = pow(10, d);
	r = x * m;
	f = floor(r);
	if (fabs(r - f - 0.5) < 1e-9 * fmax(1, fabs(r)) &&
	    sqlite3_user_data(ctx) != NULL)
		r = fmod(f, 2) == 0 ? f : f + 1;
	else if (fabs(r - f - 0.5) < 1e-9 * fmax(1, fabs(r)))
		r = r < 0 ? f : f + 1;
	else
		r = round(r);
	sqlite3_result_double(ctx, r / m);
}

/*
 * sc_math(op, x[, y]): the functions whose Spark result is NaN where
 * SQLite's is NULL (sqrt of a negative, asin and acos outside -1..1,
 * pow of a negative to a fraction).  SQLite cannot hold a NaN (it
 * stores NULL), so NaN travels as the text 'NaN', which the Arrow
 * writer reads back into the double NaN for a double column.
 */
static void
math_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *op = (const char *)sqlite3_value_text(argv[0]);
	double x, y = 0, r;
	int i;

	for (i = 1; i < argc; i++)
		if (sqlite3_value_type(argv[i]) == SQLITE_NULL) {
			sqlite3_result_null(ctx);
			return;
		}
	if (op == NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	x = sqlite3_value_double(argv[1]);
	if (argc > 2)
		y = sqlite3_value_double(argv[2]);
	if (strcmp(op, "sqrt") == 0)
		r = sqrt(x);
	else if (strcmp(op, "asin") == 0)
		r = asin(x);
	else if (strcmp(op, "acos") == 0)
		r = acos(x);
	else
		r = pow(x, y);
	if (isnan(r))
		sqlite3_result_text(ctx, "NaN", 3, SQLITE_STATIC);
	else
		sqlite3_result_double(ctx, r);
}

/* ---- digests, base64, hash --------------------------------------- */

/* sc_digest(alg, x): md5, sha1 as hex; NULL in, NULL out. */
static void
digest_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *alg = (const char *)sqlite3_value_text(argv[0]);
	char hex[SC_DIGEST_HEX_MAX];
	const void *p;
	int n;

	(void)argc;
	if (alg == NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	p = sqlite3_value_blob(argv[1]);
	n = sqlite3_value_bytes(argv[1]);
	if (sc_digest_hex(alg, p != NULL ? p : "", (size_t)n, hex) < 0)
		return;
	sqlite3_result_text(ctx, hex, -1, SQLITE_TRANSIENT);
}

/* sc_sha2(x, bits): bits 0 (as 256), 224, 256, 384, 512; else NULL. */
static void
sha2_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char hex[SC_DIGEST_HEX_MAX], alg[16];
	const void *p;
	int n, bits;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	bits = sqlite3_value_int(argv[1]);
	if (bits == 0)
		bits = 256;
	if (bits != 224 && bits != 256 && bits != 384 && bits != 512)
		return;
	snprintf(alg, sizeof(alg), "sha%d", bits);
	p = sqlite3_value_blob(argv[0]);
	n = sqlite3_value_bytes(argv[0]);
	if (sc_digest_hex(alg, p != NULL ? p : "", (size_t)n, hex) < 0)
		return;
	sqlite3_result_text(ctx, hex, -1, SQLITE_TRANSIENT);
}

static void
base64_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const void *p;
	char *out;
	size_t n;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	p = sqlite3_value_blob(argv[0]);
	n = (size_t)sqlite3_value_bytes(argv[0]);
	out = sc_xmalloc(sc_digest_base64_len(n) + 1);
	sc_digest_base64(p != NULL ? p : "", n, out);
	sqlite3_result_text(ctx, out, -1, free);
}

/*
 * unbase64(s): the bytes.  Text that is not plain base64 fails by name:
 * Spark's decoder skips what is not base64, which is not mirrored here.
 */
static void
unbase64_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s;
	unsigned char *out;
	long k;
	int n;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	s = (const char *)sqlite3_value_text(argv[0]);
	n = sqlite3_value_bytes(argv[0]);
	out = sc_xmalloc((size_t)n + 1);
	k = sc_digest_unbase64(s != NULL ? s : "", (size_t)n, out);
	if (k < 0) {
		free(out);
		sqlite3_result_error(ctx,
		    "[UNSUPPORTED_FEATURE.EXPRESSION] unbase64() of text that "
		    "is not plain base64 is not supported by sc-serve. "
		    "SQLSTATE: 0A000",
		    -1);
		return;
	}
	sqlite3_result_blob(ctx, out, (int)k, free);
}

/*
 * sc_hash(tags, x...): Spark's hash(): Murmur3 with seed 42, each
 * argument seeding the next, a NULL leaving the seed alone.  tags has a
 * letter per argument for its Spark type: i (byte, short, int), l
 * (bigint), z (boolean), f (float), d (double), s (string, binary).
 */
static void
hash_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *tags = (const char *)sqlite3_value_text(argv[0]);
	int32_t h = 42;
	int i;
	double d;
	float f;
	int32_t fi;
	int64_t li;
	const void *p;

	for (i = 1; i < argc; i++) {
		sqlite3_value *v = argv[i];

		if (sqlite3_value_type(v) == SQLITE_NULL)
			continue;
		switch (tags != NULL && (int)strlen(tags) >= i ? tags[i - 1]
							       : 's') {
		case 'i':
		case 'z':
			h = sc_murmur3_int((int32_t)sqlite3_value_int64(v), h);
			break;
		case 'l':
			h = sc_murmur3_long(sqlite3_value_int64(v), h);
			break;
		case 'f':
			f = (float)sqlite3_value_double(v);
			if (f == 0)
				f = 0; /* -0.0 hashes as 0.0 */
			if (isnan(f))
				fi = 0x7fc00000;
			else
				memcpy(&fi, &f, sizeof(fi));
			h = sc_murmur3_int(fi, h);
			break;
		case 'd':
			if (sqlite3_value_type(v) == SQLITE_TEXT)
				d = NAN; /* the NaN of sc_math() */
			else
				d = sqlite3_value_double(v);
			if (d == 0)
				d = 0;
			if (isnan(d))
				li = INT64_C(0x7ff8000000000000);
			else
				memcpy(&li, &d, sizeof(li));
			h = sc_murmur3_long(li, h);
			break;
		default:
			p = sqlite3_value_blob(v);
			h = sc_murmur3_bytes(p != NULL ? p : "",
			    (size_t)sqlite3_value_bytes(v), h);
			break;
		}
	}
	sqlite3_result_int64(ctx, h);
}

/* sc_isnan(x): x is the NaN sc_math() gives ('NaN'); NULL is false. */
static void
isnan_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	sqlite3_result_int(ctx,
	    sqlite3_value_type(argv[0]) == SQLITE_TEXT &&
		strcmp((const char *)sqlite3_value_text(argv[0]), "NaN") == 0);
}

/*
 * translate(s, from, to): each character of s found in from replaced
 * by the one at the same place in to, or dropped when to is shorter;
 * the first occurrence in from counts.  On UTF-8 characters.
 */
static void
translate_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *s, *from, *to;
	size_t ns, nf, nt, i, j, k, cl, fl, pos, tpos;
	struct sc_buf out;

	(void)argc;
	for (i = 0; i < 3; i++)
		if (sqlite3_value_type(argv[i]) == SQLITE_NULL)
			return;
	s = sqlite3_value_text(argv[0]);
	ns = (size_t)sqlite3_value_bytes(argv[0]);
	from = sqlite3_value_text(argv[1]);
	nf = (size_t)sqlite3_value_bytes(argv[1]);
	to = sqlite3_value_text(argv[2]);
	nt = (size_t)sqlite3_value_bytes(argv[2]);
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	for (i = 0; i < ns; i += cl) {
		cl = u8len(s[i]);
		if (i + cl > ns)
			cl = ns - i;
		/* The character's place in from, if there. */
		for (j = 0, pos = 0; j < nf; j += fl, pos++) {
			fl = u8len(from[j]);
			if (fl == cl && j + fl <= nf &&
			    memcmp(from + j, s + i, cl) == 0)
				break;
		}
		if (j >= nf) {
			sc_buf_add(&out, s + i, cl, NULL);
			continue;
		}
		k = u8off(to, nt, pos);
		tpos = u8count(to, nt);
		if (pos < tpos)
			sc_buf_add(&out, to + k, u8len(to[k]), NULL);
	}
	sqlite3_result_text(ctx, out.len > 0 ? (const char *)out.data : "",
	    (int)out.len, SQLITE_TRANSIENT);
	sc_buf_release(&out);
}

/*
 * substring_index(s, delim, count): s before the count-th delim from
 * the left (count > 0), or after the count-th from the right (count <
 * 0); all of s when delim occurs fewer times; '' for count 0.
 */
static void
substring_index_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s, *d;
	size_t ns, nd, i;
	int64_t count, seen = 0;

	(void)argc;
	for (i = 0; i < 3; i++)
		if (sqlite3_value_type(argv[i]) == SQLITE_NULL)
			return;
	s = (const char *)sqlite3_value_text(argv[0]);
	ns = (size_t)sqlite3_value_bytes(argv[0]);
	d = (const char *)sqlite3_value_text(argv[1]);
	nd = (size_t)sqlite3_value_bytes(argv[1]);
	count = sqlite3_value_int64(argv[2]);
	if (count == 0 || nd == 0) {
		sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
		return;
	}
	if (count > 0) {
		for (i = 0; i + nd <= ns; i++)
			if (memcmp(s + i, d, nd) == 0 && ++seen == count) {
				sqlite3_result_text(ctx, s, (int)i,
				    SQLITE_TRANSIENT);
				return;
			}
	} else {
		for (i = ns >= nd ? ns - nd + 1 : 0; i-- > 0;)
			if (memcmp(s + i, d, nd) == 0 && ++seen == -count) {
				sqlite3_result_text(ctx, s + i + nd,
				    (int)(ns - i - nd), SQLITE_TRANSIENT);
				return;
			}
	}
	sqlite3_result_text(ctx, s, (int)ns, SQLITE_TRANSIENT);
}

/*
 * width_bucket(v, min, max, n): the bucket of v among n equal-width
 * buckets from min to max (1..n), 0 below, n + 1 above; min > max
 * counts downwards.  NULL for n <= 0, min = max, or a bound or value
 * that is NULL, NaN or infinite (as Spark's).
 */
static void
width_bucket_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	double v, lo, hi, mn, mx;
	int64_t nb;
	int i;

	(void)argc;
	for (i = 0; i < 4; i++)
		if (sqlite3_value_type(argv[i]) == SQLITE_NULL ||
		    sqlite3_value_type(argv[i]) == SQLITE_TEXT)
			return; /* NULL, or the NaN of sc_math() */
	v = sqlite3_value_double(argv[0]);
	mn = sqlite3_value_double(argv[1]);
	mx = sqlite3_value_double(argv[2]);
	nb = sqlite3_value_int64(argv[3]);
	if (nb <= 0 || nb == INT64_MAX || !isfinite(v) || !isfinite(mn) ||
	    !isfinite(mx) || mn == mx)
		return;
	lo = mn < mx ? mn : mx;
	hi = mn < mx ? mx : mn;
	if (mn < mx) {
		if (v < lo)
			sqlite3_result_int64(ctx, 0);
		else if (v >= hi)
			sqlite3_result_int64(ctx, nb + 1);
		else
			sqlite3_result_int64(ctx,
			    (int64_t)((double)nb * (v - lo) / (hi - lo)) + 1);
	} else {
		if (v > hi)
			sqlite3_result_int64(ctx, 0);
		else if (v <= lo)
			sqlite3_result_int64(ctx, nb + 1);
		else
			sqlite3_result_int64(ctx,
			    (int64_t)((double)nb * (hi - v) / (hi - lo)) + 1);
	}
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
		{ "sc_make_date", 3, make_date_fn },
		{ "sc_make_timestamp", 6, make_timestamp_fn },
		{ "sc_format_number", 2, format_number_fn },
		{ "sc_format_number", 3, format_number_fn },
		{ "sc_months_between", 2, months_between_fn },
		{ "sc_months_between", 3, months_between_fn },
		{ "sc_date_format", 2, date_format_fn },
		{ "sc_parse_dt", 3, parse_dt_fn },
		{ "sc_rlike", 2, rlike_fn },
		{ "sc_regexp_replace", 3, regexp_replace_fn },
		{ "sc_regexp_extract", 3, regexp_extract_fn },
		{ "sc_split", 2, split_fn },
		{ "sc_split", 3, split_fn },
		{ "sc_div0", 1, div0_fn },
		{ "sc_intchk", 2, intchk_fn },
		{ "sc_math", 2, math_fn },
		{ "sc_math", 3, math_fn },
		{ "sc_digest", 2, digest_fn },
		{ "sc_sha2", 2, sha2_fn },
		{ "sc_base64", 1, base64_fn },
		{ "sc_unbase64", 1, unbase64_fn },
		{ "sc_hash", -1, hash_fn },
		{ "sc_isnan", 1, isnan_fn },
		{ "sc_width_bucket", 4, width_bucket_fn },
		{ "sc_translate", 3, translate_fn },
		{ "sc_substring_index", 3, substring_index_fn },
	};
	int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC, rc = SQLITE_OK;
	size_t i;

	for (i = 0; rc == SQLITE_OK && i < SC_NELEM(scalar); i++)
		rc = sqlite3_create_function_v2(db, scalar[i].name,
		    scalar[i].nargs, flags, NULL, scalar[i].fn, NULL, NULL,
		    NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_round", 2, flags, NULL,
		    bround_fn, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_bround", 2, flags,
		    (void *)"even", bround_fn, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_var", 2, flags, NULL,
		    NULL, var_step, var_final, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_cov", 3, flags, NULL,
		    NULL, cov_step, cov_final, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_pick", 2, flags, NULL,
		    NULL, pick_step, pick_final, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_pick", 3, flags, NULL,
		    NULL, pick_step, pick_final, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_pct", 3, flags, NULL,
		    NULL, pct_step, pct_final, NULL);
	return rc;
}
