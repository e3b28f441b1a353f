/* SPDX-License-Identifier: MIT */

/*
 * engine_func_datetime.c: the date and time functions SQLite lacks, with
 * Spark's semantics: add_months, make_date, make_timestamp,
 * months_between, and Java datetime patterns (date_format, to_date and
 * to_timestamp with a pattern).
 */

#include "engine/plan/engine_expr_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/value.h"
#include "core/xmem.h"
#include "core/banned.h"

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
		if (!sc_eng_ansi())
			return; /* NULL, as Spark's non-ANSI cast */
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
	/* Past a million years either way is out of range anyhow. */
	if (n > 12000000 || n < -12000000) {
		y = -1;
	} else {
		mm = (sqlite3_int64)y * 12 + (m - 1) + n;
		y = (int)(mm >= 0 ? mm / 12 : (mm - 11) / 12);
		m = (int)(mm - (sqlite3_int64)y * 12) + 1;
		dim = mdays[m - 1] +
		    (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
		if (d > dim)
			d = dim;
	}
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

	if (!sc_eng_ansi())
		return; /* NULL without ANSI mode, as Spark */
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
 * make_timestamp(year, month, day, hour, min, sec): that wall-clock
 * time (sc_eng_tz_result() makes it the session zone's instant), sec
 * with up to 6 decimals; sec 60 without a fraction is the next
 * minute's start.  Fields naming no instant fail
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
		if (!sc_eng_ansi())
			return; /* NULL without ANSI mode */
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
	*days = sc_value_days_from_civil(y, (int)m, (int)d);
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
		if (!sc_eng_ansi())
			return -1; /* NULL without ANSI mode */
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
 * roundOff is false.  The arguments come as the session zone's wall
 * clock (sc_eng_tz_args()).
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
		/* Floor division, safe down to the smallest long. */
		days = us[i] / day_us - (us[i] % day_us < 0);
		sec[i] = (us[i] % day_us + day_us) % day_us / 1000000;
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
	int64_t sec = floordiv(us, 1000000), y;

	c->us = (int)((us % 1000000 + 1000000) % 1000000); /* no overflow */
	c->days = floordiv(sec, 86400);
	sec -= c->days * 86400;
	c->h = (int)(sec / 3600);
	c->mi = (int)(sec / 60 % 60);
	c->s = (int)(sec % 60);
	sc_value_civil_from_days(c->days, &y, &c->mo, &c->d);
	c->y = (int)y; /* |y| < 300 000 for any int64 of microseconds */
}

static bool
pattern_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * An offset as Java's pattern letters print it: style 0 +HH[mm], 1
 * +HHmm, 2 +HH:mm, 3 +HHmm[ss], 4 +HH:mm[:ss]; zero as zero (or, when
 * NULL, as +00...).
 */
static void
offset_text(struct sc_buf *b, int32_t off, int style, const char *zero)
{
	int32_t a = off < 0 ? -off : off;
	int h = (int)(a / 3600), m = (int)(a / 60 % 60), sec = (int)(a % 60);

	if (off == 0 && zero != NULL) {
		sc_buf_addstr(b, zero, NULL);
		return;
	}
	sc_buf_addf(b, NULL, "%c%02d", off < 0 ? '-' : '+', h);
	if (style == 0 && (m != 0 || sec != 0))
		sc_buf_addf(b, NULL, "%02d", m);
	else if (style == 1 || style == 3)
		sc_buf_addf(b, NULL, "%02d", m);
	else if (style == 2 || style == 4)
		sc_buf_addf(b, NULL, ":%02d", m);
	if (style == 3 && sec != 0)
		sc_buf_addf(b, NULL, "%02d", sec);
	else if (style == 4 && sec != 0)
		sc_buf_addf(b, NULL, ":%02d", sec);
}

/* GMT, GMT-8, GMT+5:30 (short) or GMT-08:00 (long), as Java's O. */
static void
gmt_text(struct sc_buf *b, int32_t off, bool full)
{
	int32_t a = off < 0 ? -off : off;
	int h = (int)(a / 3600), m = (int)(a / 60 % 60), sec = (int)(a % 60);

	sc_buf_addstr(b, "GMT", NULL);
	if (off == 0)
		return;
	sc_buf_addf(b, NULL, full ? "%c%02d:%02d" : "%c%d", off < 0 ? '-' : '+',
	    h, m);
	if (!full && (m != 0 || sec != 0))
		sc_buf_addf(b, NULL, ":%02d", m);
	if (sec != 0)
		sc_buf_addf(b, NULL, ":%02d", sec);
}

/*
 * The session zone's letters (X x Z O VV z, k of them) for the
 * wall-clock time us: 0, or -1 for a form not printed (long names).
 */
static int
zone_field(struct sc_buf *b, char ch, size_t k, int64_t us)
{
	const struct sc_tz *z = sc_eng_tz_current();
	int64_t t = sc_tz_to_utc(z, us);
	int64_t secs = t / 1000000 - (t % 1000000 < 0);
	int32_t off = sc_tz_offset(z, secs);

	switch (ch) {
	case 'X':
	case 'x':
		if (k > 5)
			return -1;
		offset_text(b, off, k == 1 ? 0 : (int)k - 1,
		    ch == 'X' ? "Z" : NULL);
		return 0;
	case 'Z':
		if (k <= 3)
			offset_text(b, off, 1, NULL);
		else if (k == 4)
			gmt_text(b, off, true);
		else if (k == 5)
			offset_text(b, off, 4, "Z");
		else
			return -1;
		return 0;
	case 'O':
		if (k != 1 && k != 4)
			return -1;
		gmt_text(b, off, k == 4);
		return 0;
	case 'V':
		if (k != 2)
			return -1;
		sc_buf_addstr(b, z->id, NULL);
		return 0;
	default: /* z: the short name; the long one is locale data */
		if (k > 3)
			return -1;
		sc_buf_addstr(b, sc_tz_abbr(z, secs), NULL);
		return 0;
	}
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
		case 'O':
		case 'V':
		case 'z':
			if (zone_field(&b, ch, k, us) == -1) {
				sc_buf_release(&b);
				sc_eng_func_fail(ctx,
				    "[UNSUPPORTED_FEATURE.EXPRESSION] The "
				    "datetime pattern '%s' asks for a time "
				    "zone's long name or too many letters, "
				    "which sc-serve does not print. "
				    "SQLSTATE: 0A000",
				    f);
				return;
			}
			break;
		default:
			sc_buf_release(&b);
			sc_eng_func_fail(ctx,
			    "[INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER] "
			    "Found the illegal character in the datetime "
			    "pattern '%s'. SQLSTATE: 22007",
			    f);
			return;
		}
	}
	sc_eng_func_result_buf(ctx, &b);
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
	if (!sc_eng_ansi())
		return; /* NULL without ANSI mode, as Spark */
	sc_eng_func_fail(ctx,
	    "[CANNOT_PARSE_TIMESTAMP] Text '%s' could not be parsed. Use "
	    "`try_to_timestamp` to tolerate invalid input string and return "
	    "NULL instead. SQLSTATE: 22007",
	    v);
}

int
sc_eng_func_datetime_register(sqlite3 *db)
{
	static const struct sc_efunc scalar[] = {
		{ "sc_add_months", 2, add_months_fn },
		{ "sc_make_date", 3, make_date_fn },
		{ "sc_make_timestamp", 6, make_timestamp_fn },
		{ "sc_months_between", 2, months_between_fn },
		{ "sc_months_between", 3, months_between_fn },
		{ "sc_date_format", 2, date_format_fn },
		{ "sc_parse_dt", 3, parse_dt_fn },
	};

	int rc;

	rc = sc_eng_func_add(db, scalar, SC_NELEM(scalar));
	if (rc == SQLITE_OK)
		rc = sc_eng_tz_register(db);
	return rc;
}

/* The registry's entries for the date and time functions (engine_fnreg.c). */
static const struct sc_efdef defs[] = {
	{ "dayname", F_TMPL,
	    "substr('SunMonTueWedThuFriSat', 1 + 3 * CAST(strftime('%w', $1) "
	    "AS INTEGER), 3)",
	    1, 1, SC_ARROW_UTF8, .flags = SC_EF_WALL },
	{ "monthname", F_TMPL,
	    "substr('JanFebMarAprMayJunJulAugSepOctNovDec', 3 * "
	    "CAST(strftime('%m', $1) AS INTEGER) - 2, 3)",
	    1, 1, SC_ARROW_UTF8, .flags = SC_EF_WALL },
	{ "weekday", F_TMPL, "(CAST(strftime('%w', $1) AS INTEGER) + 6) % 7", 1,
	    1, SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "unix_date", F_TMPL,
	    "CAST(julianday(date($1)) - 2440587.5 AS INTEGER)", 1, 1,
	    SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "next_day", F_TMPL, "sc_next_day($1, $2)", 2, 2, SC_ARROW_DATE32,
	    .flags = SC_EF_WALL },
	{ "date_from_unix_date", F_TMPL, "sc_date_from_unix_date($1)", 1, 1,
	    SC_ARROW_DATE32, .flags = 0 },
	{ "unix_seconds", F_TMPL, "sc_unix_us($1, 1000000)", 1, 1,
	    SC_ARROW_INT64, .flags = 0 },
	{ "unix_millis", F_TMPL, "sc_unix_us($1, 1000)", 1, 1, SC_ARROW_INT64,
	    .flags = 0 },
	{ "unix_micros", F_TMPL, "sc_unix_us($1, 1)", 1, 1, SC_ARROW_INT64,
	    .flags = 0 },
	{ "timestamp_seconds", F_TMPL, "sc_ts_from($1, 1000000)", 1, 1,
	    SC_ARROW_TIMESTAMP_US, .flags = 0 },
	{ "timestamp_millis", F_TMPL, "sc_ts_from($1, 1000)", 1, 1,
	    SC_ARROW_TIMESTAMP_US, .flags = 0 },
	{ "timestamp_micros", F_TMPL, "sc_ts_from($1, 1)", 1, 1,
	    SC_ARROW_TIMESTAMP_US, .flags = 0 },
	{ "current_date", F_NOW, "date('now')", 0, 0, SC_ARROW_DATE32,
	    .flags = SC_EF_NONDET },
	{ "current_timezone", F_NOW, "sc_current_timezone()", 0, 0,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "current_timestamp", F_NOW, "strftime('%Y-%m-%d %H:%M:%f', 'now')", 0,
	    0, SC_ARROW_TIMESTAMP_US, .flags = SC_EF_NONDET,
	    .aliases = SC_EF_ALIASES("now") },
	{ "year", F_DATEPART, "%Y", 1, 1, SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "month", F_DATEPART, "%m", 1, 1, SC_ARROW_INT32,
	    .flags = SC_EF_WALL },
	{ "day", F_DATEPART, "%d", 1, 1, SC_ARROW_INT32, .flags = SC_EF_WALL,
	    .aliases = SC_EF_ALIASES("dayofmonth") },
	{ "hour", F_DATEPART, "%H", 1, 1, SC_ARROW_INT32, .flags = SC_EF_WALL,
	    .ts_args = 1 },
	{ "minute", F_DATEPART, "%M", 1, 1, SC_ARROW_INT32, .flags = SC_EF_WALL,
	    .ts_args = 1 },
	{ "second", F_DATEPART, "%S", 1, 1, SC_ARROW_INT32, .flags = SC_EF_WALL,
	    .ts_args = 1 },
	{ "to_date", F_TOTYPE, "date", 1, 1, SC_ARROW_DATE32,
	    .flags = SC_EF_WALL },
	{ "to_timestamp", F_TOTYPE, "timestamp", 1, 1, SC_ARROW_TIMESTAMP_US,
	    .flags = 0 },
	{ "to_date", F_TMPL, "sc_parse_dt($1, $2, 0)", 2, 2, SC_ARROW_DATE32,
	    .flags = SC_EF_WALL },
	{ "to_timestamp", F_TMPL, "sc_parse_dt($1, $2, 1)", 2, 2,
	    SC_ARROW_TIMESTAMP_US, .flags = 0 },
	{ "date_format", F_TMPL, "sc_date_format($1, $2)", 2, 2, SC_ARROW_UTF8,
	    .flags = SC_EF_WALL, .ts_args = 1 },
	{ "date_add", F_TMPL,
	    "CASE WHEN $2 IS NULL THEN NULL ELSE date($1, printf('%+d days', "
	    "$2)) END",
	    2, 2, SC_ARROW_DATE32, .flags = SC_EF_WALL },
	{ "date_sub", F_TMPL,
	    "CASE WHEN $2 IS NULL THEN NULL ELSE date($1, printf('%+d days', "
	    "-($2))) END",
	    2, 2, SC_ARROW_DATE32, .flags = SC_EF_WALL },
	{ "datediff", F_TMPL,
	    "CAST(julianday(date($1)) - julianday(date($2)) AS INTEGER)", 2, 2,
	    SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "trunc", F_TMPL,
	    "CASE WHEN lower($2) IN ('year', 'yyyy', 'yy') THEN date($1, "
	    "'start of year') WHEN lower($2) = 'quarter' THEN date($1, 'start "
	    "of month', printf('-%d months', (CAST(strftime('%m', $1) AS "
	    "INTEGER) - 1) % 3)) WHEN lower($2) IN ('month', 'mon', 'mm') "
	    "THEN date($1, 'start of month') WHEN lower($2) = 'week' THEN "
	    "date($1, '-6 days', 'weekday 1') END",
	    2, 2, SC_ARROW_DATE32, .flags = SC_EF_WALL },
	{ "date_trunc", F_TMPL,
	    "CASE WHEN lower($1) IN ('year', 'yyyy', 'yy') THEN strftime("
	    "'%Y-01-01 00:00:00', $2) WHEN lower($1) = 'quarter' THEN "
	    "datetime($2, 'start of month', printf('-%d months', "
	    "(CAST(strftime('%m', $2) AS INTEGER) - 1) % 3)) WHEN lower($1) "
	    "IN ('month', 'mon', 'mm') THEN datetime($2, 'start of month') "
	    "WHEN lower($1) = 'week' THEN datetime($2, 'start of day', "
	    "'-6 days', 'weekday 1') WHEN lower($1) IN ('day', 'dd') THEN "
	    "datetime($2, 'start of day') WHEN lower($1) = 'hour' THEN "
	    "strftime('%Y-%m-%d %H:00:00', $2) WHEN lower($1) = 'minute' "
	    "THEN strftime('%Y-%m-%d %H:%M:00', $2) WHEN lower($1) = "
	    "'second' THEN strftime('%Y-%m-%d %H:%M:%S', $2) WHEN lower($1) "
	    "= 'microsecond' THEN $2 WHEN lower($1) = 'millisecond' THEN "
	    "sc_raise('[UNSUPPORTED_FEATURE.EXPRESSION] date_trunc() to "
	    "milliseconds is not supported by sc-serve. SQLSTATE: 0A000') "
	    "END",
	    2, 2, SC_ARROW_TIMESTAMP_US, .flags = SC_EF_WALL, .ts_args = 2 },
	{ "add_months", F_TMPL, "sc_add_months($1, $2)", 2, 2, SC_ARROW_DATE32,
	    .flags = SC_EF_WALL },
	{ "make_timestamp", F_TMPL, "sc_make_timestamp($1, $2, $3, $4, $5, $6)",
	    6, 6, SC_ARROW_TIMESTAMP_US, .flags = 0 },
	{ "make_timestamp", F_TMPL,
	    "sc_tz_utc_in(sc_make_timestamp($1, $2, $3, $4, $5, $6), $7)", 7, 7,
	    SC_ARROW_TIMESTAMP_US, .flags = 0 },
	{ "make_date", F_TMPL, "sc_make_date($1, $2, $3)", 3, 3,
	    SC_ARROW_DATE32, .flags = 0 },
	{ "months_between", F_TMPL, "sc_months_between($1, $2)", 2, 2,
	    SC_ARROW_DOUBLE, .flags = SC_EF_WALL, .ts_args = 3 },
	{ "months_between", F_TMPL, "sc_months_between($1, $2, $3)", 3, 3,
	    SC_ARROW_DOUBLE, .flags = SC_EF_WALL, .ts_args = 3 },
	{ "last_day", F_TMPL,
	    "date($1, 'start of month', '+1 month', '-1 day')", 1, 1,
	    SC_ARROW_DATE32, .flags = SC_EF_WALL },
	{ "dayofweek", F_TMPL, "CAST(strftime('%w', $1) AS INTEGER) + 1", 1, 1,
	    SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "dayofyear", F_TMPL, "CAST(strftime('%j', $1) AS INTEGER)", 1, 1,
	    SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "weekofyear", F_TMPL,
	    "(CAST(strftime('%j', date($1, '-3 days', 'weekday 4')) AS INTEGER) "
	    "- 1) / 7 + 1",
	    1, 1, SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "quarter", F_TMPL, "(CAST(strftime('%m', $1) AS INTEGER) + 2) / 3", 1,
	    1, SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "unix_timestamp", F_TMPL, "CAST(strftime('%s', $1) AS INTEGER)", 1, 1,
	    SC_ARROW_INT64, .flags = 0 },
	{ "from_utc_timestamp", F_TMPL, "sc_from_utc_timestamp($1, $2)", 2, 2,
	    SC_ARROW_TIMESTAMP_US, .flags = 0 },
	{ "to_utc_timestamp", F_TMPL, "sc_to_utc_timestamp($1, $2)", 2, 2,
	    SC_ARROW_TIMESTAMP_US, .flags = 0 },
	{ "from_unixtime", F_TMPL,
	    "strftime('%Y-%m-%d %H:%M:%S', $1, 'unixepoch')", 1, 1,
	    SC_ARROW_UTF8, .flags = 0 },
};
const struct sc_effamily sc_eng_family_datetime = { "datetime", defs,
	SC_NELEM(defs) };
