/* SPDX-License-Identifier: MIT */

/*
 * value.c: Spark's text for SQL values and types.
 *
 * Doubles use the C library's correctly rounded conversions (printf's
 * %.*e to find the nearest decimal of a length, strtod to check that it
 * reads back) rather than a digit-generation algorithm of our own; dates
 * use the days-from-civil arithmetic of the proleptic Gregorian
 * calendar, so no time zone database and no struct tm are involved.
 */

#include "core/value.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/protocol.h"
#include "core/xmem.h"
#include "core/banned.h"

typedef unsigned __int128 u128;

#define DEC_MAX_DIGITS 38 /* Spark's DecimalType.MAX_PRECISION */
#define US_PER_DAY 86400000000LL

/* ------------------------------------------------------------ numbers */

/*
 * A decimal candidate: digits d[0..p) (d[0] may be 0 only transiently),
 * the value d[0].d[1]...d[p-1] * 10^e.
 */
struct dec {
	char d[24];
	int p;
	int e;
};

/*
 * The p-digit decimal nearest to v > 0 (printf rounds correctly), as
 * digits in *c and as text in txt (48 bytes).
 */
static void
nearest(double v, int p, struct dec *c, char *txt)
{
	const char *s;
	int k = 0;

	snprintf(txt, 48, "%.*e", p - 1, v);
	for (s = txt; *s != 'e'; s++)
		if (*s != '.')
			c->d[k++] = *s;
	c->p = k;
	c->e = (int)strtol(s + 1, NULL, 10);
}

/* c as text in txt (48 bytes). */
static void
dec_text(const struct dec *c, char *txt)
{
	snprintf(txt, 48, "%c.%.*se%d", c->d[0], c->p - 1, c->d + 1, c->e);
}

/* txt read back as a double (or, with is_float, a float). */
static double
read_back(const char *txt, bool is_float)
{
	return is_float ? (double)strtof(txt, NULL) : strtod(txt, NULL);
}

/* The next p-digit decimal above c (up) or below it. */
static void
step(struct dec *c, bool up)
{
	int i;

	if (up) {
		for (i = c->p - 1; i >= 0 && c->d[i] == '9'; i--)
			c->d[i] = '0';
		if (i >= 0) {
			c->d[i]++;
			return;
		}
		c->d[0] = '1'; /* 9.99 -> 10.0, p digits: 1.00e(e+1) */
		c->e++;
		return;
	}
	for (i = c->p - 1; i > 0 && c->d[i] == '0'; i--)
		c->d[i] = '9';
	c->d[i]--; /* d[0] is 1..9 */
	if (i == 0 && c->d[0] == '0') {
		/* 1.00e(e) - one step is 9.99e(e-1): a finer grid below. */
		memset(c->d, '9', (size_t)c->p);
		c->e--;
	}
}

/*
 * Java's choice of digits for v > 0: among the decimals that round to v,
 * those of the fewest digits (two when one would do), and of those the
 * one nearest to v.  For each length p, printf gives the nearest p-digit
 * decimal c.  If c reads back as v it is the answer.  If not, the
 * p-digit decimals that do (if any) lie on the other side of v, which
 * only happens where the rounding interval is wider on that side: at a
 * power of two it is twice as wide above as below.  There the nearest of
 * them is c's neighbour on that side.
 */
static void
shortest(double v, bool is_float, struct dec *c)
{
	char txt[48];
	int p, pmax = is_float ? 9 : 17, e2;
	bool pow2 = frexp(v, &e2) == 0.5;
	double r;

	for (p = 2; p < pmax; p++) {
		nearest(v, p, c, txt);
		if ((r = read_back(txt, is_float)) == v)
			break;
		if (pow2) {
			step(c, r < v);
			dec_text(c, txt);
			if (read_back(txt, is_float) == v)
				break;
		}
	}
	if (p == pmax)
		nearest(v, p, c, txt);
	while (c->p > 1 && c->d[c->p - 1] == '0')
		c->p--;
}

static size_t
fmt_java(double v, bool is_float, char *buf)
{
	struct dec c;
	size_t n = 0;
	int i;

	if (isnan(v))
		return (size_t)snprintf(buf, SC_VALUE_TEXT_MAX, "NaN");
	if (isinf(v))
		return (size_t)snprintf(buf, SC_VALUE_TEXT_MAX, "%s",
		    v > 0 ? "Infinity" : "-Infinity");
	if (v == 0)
		return (size_t)snprintf(buf, SC_VALUE_TEXT_MAX, "%s",
		    signbit(v) ? "-0.0" : "0.0");
	if (v < 0)
		buf[n++] = '-';
	shortest(fabs(v), is_float, &c);
	if (c.e >= -3 && c.e < 7) {
		/* Plain: 0.00ddd, or digits with the point after e + 1. */
		if (c.e < 0) {
			buf[n++] = '0';
			buf[n++] = '.';
			for (i = -1; i > c.e; i--)
				buf[n++] = '0';
			memcpy(buf + n, c.d, (size_t)c.p);
			n += (size_t)c.p;
		} else {
			for (i = 0; i <= c.e; i++)
				buf[n++] = i < c.p ? c.d[i] : '0';
			buf[n++] = '.';
			if (c.p <= c.e + 1)
				buf[n++] = '0';
			for (i = c.e + 1; i < c.p; i++)
				buf[n++] = c.d[i];
		}
		buf[n] = '\0';
		return n;
	}
	buf[n++] = c.d[0];
	buf[n++] = '.';
	if (c.p == 1)
		buf[n++] = '0';
	memcpy(buf + n, c.d + 1, (size_t)(c.p - 1));
	n += (size_t)(c.p - 1);
	return n + (size_t)snprintf(buf + n, SC_VALUE_TEXT_MAX - n, "E%d", c.e);
}

size_t
sc_value_fmt_double(double v, char *buf)
{
	return fmt_java(v, false, buf);
}

size_t
sc_value_fmt_float(float v, char *buf)
{
	return fmt_java(v, true, buf);
}

size_t
sc_value_fmt_decimal(int64_t hi, uint64_t lo, int scale, char *buf)
{
	char dig[DEC_MAX_DIGITS + 2];
	u128 v = (u128)(uint64_t)hi << 64 | lo;
	size_t k = 0, n = 0;
	int j;

	if (scale < 0)
		scale = 0;
	if (scale > DEC_MAX_DIGITS)
		scale = DEC_MAX_DIGITS;
	if (hi < 0) {
		buf[n++] = '-';
		v = (u128)0 - v;
	}
	/* Least significant first; at least scale + 1 digits. */
	do {
		dig[k++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v != 0);
	while ((int)k <= scale)
		dig[k++] = '0';
	for (j = (int)k - 1; j >= 0; j--) {
		buf[n++] = dig[j];
		if (j == scale && scale > 0)
			buf[n++] = '.';
	}
	buf[n] = '\0';
	return n;
}

static void
trim(const char **sp, size_t *np)
{
	const char *s = *sp;
	size_t n = *np;

	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	*sp = s;
	*np = n;
}

int
sc_value_parse_decimal(const char *s, size_t n, int precision, int scale,
    int64_t *hi, uint64_t *lo)
{
	const char *end, *mant, *mend;
	u128 u = 0, lim;
	int64_t q, top, x = 0;
	size_t intdigits = 0;
	bool neg = false, point = false, any = false, up = false;
	int i;

	if (precision < 1 || precision > DEC_MAX_DIGITS || scale < 0 ||
	    scale > precision)
		return -1;
	trim(&s, &n);
	end = s + n;
	if (s < end && (*s == '+' || *s == '-'))
		neg = *s++ == '-';
	/* The mantissa: digits with at most one point. */
	for (mant = s; s < end; s++) {
		if (*s == '.' && !point)
			point = true;
		else if (isdigit((unsigned char)*s)) {
			any = true;
			if (!point)
				intdigits++;
		} else
			break;
	}
	mend = s;
	if (!any)
		return -1;
	if (s < end && (*s == 'e' || *s == 'E')) {
		bool eneg = false, edig = false;

		if (++s < end && (*s == '+' || *s == '-'))
			eneg = *s++ == '-';
		for (; s < end && isdigit((unsigned char)*s); s++) {
			edig = true;
			if (x < 100000)
				x = x * 10 + (*s - '0');
		}
		if (!edig)
			return -1;
		if (eneg)
			x = -x;
	}
	if (s != end)
		return -1;
	/*
	 * The mantissa digit at index i (points skipped) stands for
	 * 10^(top - i) in the unscaled value; keep those at powers >= 0,
	 * round half up on the one at -1, and a non-zero digit at a power
	 * >= precision does not fit.
	 */
	top = (int64_t)intdigits - 1 + x + scale;
	lim = 1;
	for (i = 0; i < precision; i++)
		lim *= 10;
	for (q = top; mant < mend; mant++) {
		if (*mant == '.')
			continue;
		if (q >= 0) {
			if (*mant != '0' && q >= precision)
				return -2;
			u = u * 10 + (u128)(*mant - '0');
		} else if (q == -1)
			up = *mant >= '5';
		q--;
	}
	/* Zeros for the powers the mantissa did not reach. */
	for (; q >= 0 && u != 0; q--) {
		if (u >= lim / 10)
			return -2;
		u *= 10;
	}
	if (up)
		u++;
	if (u >= lim)
		return -2;
	if (neg)
		u = (u128)0 - u;
	*hi = (int64_t)(uint64_t)(u >> 64);
	*lo = (uint64_t)u;
	return 0;
}

/* ----------------------------------------------------- dates and times */

int64_t
sc_value_days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

void
sc_value_civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

/* v as exactly width decimal digits, zero-padded (v < 10^width). */
static void
padded(char *p, unsigned int v, int width)
{
	while (width-- > 0) {
		p[width] = (char)('0' + v % 10);
		v /= 10;
	}
}

size_t
sc_value_fmt_date(int64_t days, char *buf)
{
	int64_t y;
	int m, d;

	sc_value_civil_from_days(days, &y, &m, &d);
	if (y < 0 || y > 9999)
		return (size_t)snprintf(buf, SC_VALUE_TEXT_MAX,
		    "%c%04lld-%02d-%02d", y < 0 ? '-' : '+',
		    (long long)(y < 0 ? -y : y), m, d);
	padded(buf, (unsigned int)y, 4);
	buf[4] = '-';
	padded(buf + 5, (unsigned int)m, 2);
	buf[7] = '-';
	padded(buf + 8, (unsigned int)d, 2);
	buf[10] = '\0';
	return 10;
}

size_t
sc_value_fmt_timestamp(int64_t us, char *buf)
{
	int64_t days = us / US_PER_DAY, rem = us % US_PER_DAY, secs, frac;
	size_t n;

	if (rem < 0) {
		days--;
		rem += US_PER_DAY;
	}
	n = sc_value_fmt_date(days, buf);
	secs = rem / 1000000;
	frac = rem % 1000000;
	buf[n] = ' ';
	padded(buf + n + 1, (unsigned int)(secs / 3600), 2);
	buf[n + 3] = ':';
	padded(buf + n + 4, (unsigned int)(secs / 60 % 60), 2);
	buf[n + 6] = ':';
	padded(buf + n + 7, (unsigned int)(secs % 60), 2);
	n += 9;
	if (frac != 0) {
		buf[n] = '.';
		padded(buf + n + 1, (unsigned int)frac, 6);
		n += 7;
		while (buf[n - 1] == '0')
			n--;
	}
	buf[n] = '\0';
	return n;
}

/* min..max decimal digits at *sp into *out; advances *sp. */
static int
num(const char **sp, const char *end, int min, int max, int64_t *out)
{
	const char *s = *sp;
	int64_t v = 0;
	int k = 0;

	for (; s < end && k < max && isdigit((unsigned char)*s); s++, k++)
		v = v * 10 + (*s - '0');
	if (k < min)
		return -1;
	*sp = s;
	*out = v;
	return 0;
}

static bool
leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* [+-]yyyy[yy][-m[m][-d[d]]] at *sp: the day number; advances *sp. */
static int
date_part(const char **sp, const char *end, int64_t *days)
{
	static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
		30, 31 };
	const char *s = *sp;
	int64_t y, m = 1, d = 1;
	bool neg = false;

	if (s < end && (*s == '+' || *s == '-'))
		neg = *s++ == '-';
	if (num(&s, end, 4, 6, &y) == -1)
		return -1;
	if (s < end && *s == '-') {
		s++;
		if (num(&s, end, 1, 2, &m) == -1)
			return -1;
		if (s < end && *s == '-') {
			s++;
			if (num(&s, end, 1, 2, &d) == -1)
				return -1;
		}
	}
	if (neg)
		y = -y;
	if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1] + (m == 2 && leap(y)))
		return -1;
	*days = sc_value_days_from_civil(y, (int)m, (int)d);
	*sp = s;
	return 0;
}

int
sc_value_parse_date(const char *s, size_t n, int32_t *days)
{
	const char *end;
	int64_t v;

	trim(&s, &n);
	end = s + n;
	if (date_part(&s, end, &v) == -1)
		return -1;
	if (s < end && *s != ' ' && *s != 'T')
		return -1;
	if (v < INT32_MIN || v > INT32_MAX)
		return -1;
	*days = (int32_t)v;
	return 0;
}

/* An optional zone at *sp: its offset east of UTC in seconds. */
static int
zone(const char **sp, const char *end, int64_t *off)
{
	const char *s = *sp;
	int64_t h, mi = 0;
	bool neg;

	*off = 0;
	if (s < end && *s == ' ')
		s++;
	if (s == end) {
		*sp = s;
		return 0;
	}
	if (end - s == 1 && (*s == 'Z' || *s == 'z')) {
		*sp = end;
		return 0;
	}
	if (end - s == 3 && strncasecmp(s, "UTC", 3) == 0) {
		*sp = end;
		return 0;
	}
	if (*s != '+' && *s != '-')
		return -1;
	neg = *s++ == '-';
	if (num(&s, end, 1, 2, &h) == -1)
		return -1;
	if (s < end && *s == ':')
		s++;
	if (s < end && num(&s, end, 2, 2, &mi) == -1)
		return -1;
	if (h > 18 || mi > 59)
		return -1;
	*off = (h * 3600 + mi * 60) * (neg ? -1 : 1);
	*sp = s;
	return 0;
}

int
sc_value_parse_timestamp(const char *s, size_t n, int64_t *us)
{
	const char *end;
	int64_t days, h = 0, mi = 0, sec = 0, frac = 0, off = 0, secs;
	__int128 v;
	int fd = 0;

	trim(&s, &n);
	end = s + n;
	if (date_part(&s, end, &days) == -1)
		return -1;
	if (s < end && (*s == ' ' || *s == 'T')) {
		s++;
		if (num(&s, end, 1, 2, &h) == -1 || s == end || *s++ != ':' ||
		    num(&s, end, 1, 2, &mi) == -1)
			return -1;
		if (s < end && *s == ':') {
			s++;
			if (num(&s, end, 1, 2, &sec) == -1)
				return -1;
			if (s < end && *s == '.')
				for (s++; s < end && isdigit((unsigned char)*s);
				     s++)
					if (fd < 6) {
						frac = frac * 10 + (*s - '0');
						fd++;
					}
		}
		if (h > 23 || mi > 59 || sec > 59)
			return -1;
		for (; fd < 6; fd++)
			frac *= 10;
		if (zone(&s, end, &off) == -1)
			return -1;
	}
	if (s != end)
		return -1;
	/* Years up to 999999 are read: 64 bits hold only +-292,000. */
	secs = days * 86400 + h * 3600 + mi * 60 + sec - off;
	v = (__int128)secs * 1000000 + frac;
	if (v > INT64_MAX || v < INT64_MIN)
		return -1;
	*us = (int64_t)v;
	return 0;
}

/* ------------------------------------------------------------- types */

/* Each type's simpleString and typeName; sql is simpleString in capitals. */
static const struct {
	const char *simple;
	const char *type_name;
} names[] = {
	[SC_VALUE_VOID] = { "void", "void" },
	[SC_VALUE_BOOLEAN] = { "boolean", "boolean" },
	[SC_VALUE_BYTE] = { "tinyint", "byte" },
	[SC_VALUE_SHORT] = { "smallint", "short" },
	[SC_VALUE_INT] = { "int", "integer" },
	[SC_VALUE_LONG] = { "bigint", "long" },
	[SC_VALUE_FLOAT] = { "float", "float" },
	[SC_VALUE_DOUBLE] = { "double", "double" },
	[SC_VALUE_DECIMAL] = { "decimal", "decimal" },
	[SC_VALUE_STRING] = { "string", "string" },
	[SC_VALUE_CHAR] = { "char", "char" },
	[SC_VALUE_VARCHAR] = { "varchar", "varchar" },
	[SC_VALUE_BINARY] = { "binary", "binary" },
	[SC_VALUE_DATE] = { "date", "date" },
	[SC_VALUE_TIMESTAMP] = { "timestamp", "timestamp" },
	[SC_VALUE_TIMESTAMP_NTZ] = { "timestamp_ntz", "timestamp_ntz" },
	[SC_VALUE_INTERVAL] = { "interval", "interval" },
	[SC_VALUE_YM_INTERVAL] = { "interval", "interval" },
	[SC_VALUE_DT_INTERVAL] = { "interval", "interval" },
	[SC_VALUE_VARIANT] = { "variant", "variant" },
	[SC_VALUE_ARRAY] = { "array", "array" },
	[SC_VALUE_MAP] = { "map", "map" },
	[SC_VALUE_STRUCT] = { "struct", "struct" },
};

static const char *const ym_fields[] = { "year", "month" };
static const char *const dt_fields[] = { "day", "hour", "minute", "second" };

/* Append s, in capitals for SQL. */
static int
word(const char *s, enum sc_value_style style, struct sc_buf *out,
    struct sc_error *err)
{
	size_t n = out->len;

	if (sc_buf_addstr(out, s, err) == -1)
		return -1;
	if (style == SC_VALUE_SQL)
		for (; n < out->len; n++)
			out->data[n] = (uint8_t)toupper(out->data[n]);
	return 0;
}

/* " year to month", " day", ...: Spark's interval field range. */
static int
fields(const char *const *f, int nf, int a, int b, enum sc_value_style style,
    struct sc_buf *out, struct sc_error *err)
{
	if (a < 0 || b < a || b >= nf)
		return 0;
	if (sc_buf_addch(out, ' ', err) == -1 ||
	    word(f[a], style, out, err) == -1)
		return -1;
	if (a == b)
		return 0;
	if (word(" to ", style, out, err) == -1)
		return -1;
	return word(f[b], style, out, err);
}

int
sc_value_type_name(enum sc_value_type t, int a, int b,
    enum sc_value_style style, struct sc_buf *out, struct sc_error *err)
{
	const char *w;

	if ((unsigned)t >= SC_NELEM(names))
		return sc_error_set(err, SC_ST_INTERNAL, "unknown type %d",
		    (int)t);
	w = style == SC_VALUE_TYPENAME ? names[t].type_name : names[t].simple;
	if (word(w, style, out, err) == -1)
		return -1;
	switch (t) {
	case SC_VALUE_DECIMAL:
		return sc_buf_addf(out, err, "(%d,%d)", a, b);
	case SC_VALUE_CHAR:
	case SC_VALUE_VARCHAR:
		return sc_buf_addf(out, err, "(%d)", a);
	case SC_VALUE_YM_INTERVAL:
		return fields(ym_fields, 2, a, b, style, out, err);
	case SC_VALUE_DT_INTERVAL:
		return fields(dt_fields, 4, a, b, style, out, err);
	default:
		return 0;
	}
}

/* Spark's QuotingUtils.quoteIfNeeded, for struct field names in SQL. */
static int
field_name(const char *s, struct sc_buf *out, struct sc_error *err)
{
	const char *p;
	bool plain = *s != '\0', digits = true;

	for (p = s; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && *p != '_')
			plain = false;
		if (!isdigit((unsigned char)*p))
			digits = false;
	}
	if (plain && !digits)
		return sc_buf_addstr(out, s, err);
	if (sc_buf_addch(out, '`', err) == -1)
		return -1;
	for (p = s; *p != '\0'; p++)
		if ((*p == '`' && sc_buf_addch(out, '`', err) == -1) ||
		    sc_buf_addch(out, *p, err) == -1)
			return -1;
	return sc_buf_addch(out, '`', err);
}

/* The enum type and parameters of a flat DataType; -1 if nested/odd. */
static int
flat(const Spark__Connect__DataType *t, enum sc_value_type *vt, int *a, int *b)
{
	static const struct {
		int kind;
		enum sc_value_type vt;
	} kinds[] = {
		{ SPARK__CONNECT__DATA_TYPE__KIND_NULL, SC_VALUE_VOID },
		{ SPARK__CONNECT__DATA_TYPE__KIND_BINARY, SC_VALUE_BINARY },
		{ SPARK__CONNECT__DATA_TYPE__KIND_BOOLEAN, SC_VALUE_BOOLEAN },
		{ SPARK__CONNECT__DATA_TYPE__KIND_BYTE, SC_VALUE_BYTE },
		{ SPARK__CONNECT__DATA_TYPE__KIND_SHORT, SC_VALUE_SHORT },
		{ SPARK__CONNECT__DATA_TYPE__KIND_INTEGER, SC_VALUE_INT },
		{ SPARK__CONNECT__DATA_TYPE__KIND_LONG, SC_VALUE_LONG },
		{ SPARK__CONNECT__DATA_TYPE__KIND_FLOAT, SC_VALUE_FLOAT },
		{ SPARK__CONNECT__DATA_TYPE__KIND_DOUBLE, SC_VALUE_DOUBLE },
		{ SPARK__CONNECT__DATA_TYPE__KIND_STRING, SC_VALUE_STRING },
		{ SPARK__CONNECT__DATA_TYPE__KIND_DATE, SC_VALUE_DATE },
		{ SPARK__CONNECT__DATA_TYPE__KIND_TIMESTAMP,
		    SC_VALUE_TIMESTAMP },
		{ SPARK__CONNECT__DATA_TYPE__KIND_TIMESTAMP_NTZ,
		    SC_VALUE_TIMESTAMP_NTZ },
		{ SPARK__CONNECT__DATA_TYPE__KIND_CALENDAR_INTERVAL,
		    SC_VALUE_INTERVAL },
		{ SPARK__CONNECT__DATA_TYPE__KIND_VARIANT, SC_VALUE_VARIANT },
	};
	size_t i;

	*a = *b = 0;
	switch (t->kind_case) {
	case SPARK__CONNECT__DATA_TYPE__KIND_DECIMAL:
		*vt = SC_VALUE_DECIMAL;
		*a = t->decimal->_precision_case ==
			SPARK__CONNECT__DATA_TYPE__DECIMAL___PRECISION_PRECISION
		    ? t->decimal->precision
		    : 10;
		*b = t->decimal->_scale_case ==
			SPARK__CONNECT__DATA_TYPE__DECIMAL___SCALE_SCALE
		    ? t->decimal->scale
		    : 0;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_CHAR:
		*vt = SC_VALUE_CHAR;
		*a = t->char_->length;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_VAR_CHAR:
		*vt = SC_VALUE_VARCHAR;
		*a = t->var_char->length;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_YEAR_MONTH_INTERVAL:
		*vt = SC_VALUE_YM_INTERVAL;
		*b = 1;
		if (t->year_month_interval->_start_field_case ==
		    SPARK__CONNECT__DATA_TYPE__YEAR_MONTH_INTERVAL___START_FIELD_START_FIELD)
			*a = t->year_month_interval->start_field;
		if (t->year_month_interval->_end_field_case ==
		    SPARK__CONNECT__DATA_TYPE__YEAR_MONTH_INTERVAL___END_FIELD_END_FIELD)
			*b = t->year_month_interval->end_field;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_DAY_TIME_INTERVAL:
		*vt = SC_VALUE_DT_INTERVAL;
		*b = 3;
		if (t->day_time_interval->_start_field_case ==
		    SPARK__CONNECT__DATA_TYPE__DAY_TIME_INTERVAL___START_FIELD_START_FIELD)
			*a = t->day_time_interval->start_field;
		if (t->day_time_interval->_end_field_case ==
		    SPARK__CONNECT__DATA_TYPE__DAY_TIME_INTERVAL___END_FIELD_END_FIELD)
			*b = t->day_time_interval->end_field;
		return 0;
	default:
		break;
	}
	for (i = 0; i < SC_NELEM(kinds); i++)
		if ((int)t->kind_case == kinds[i].kind) {
			*vt = kinds[i].vt;
			return 0;
		}
	return -1;
}

int
sc_value_datatype_name(const Spark__Connect__DataType *t,
    enum sc_value_style style, struct sc_buf *out, struct sc_error *err)
{
	const Spark__Connect__DataType__Struct *st;
	const char *sep = style == SC_VALUE_SQL ? ", " : ",";
	enum sc_value_type vt;
	size_t i;
	int a, b;

	if (t == NULL)
		return sc_buf_addstr(out, "unknown", err);
	if (flat(t, &vt, &a, &b) == 0)
		return sc_value_type_name(vt, a, b, style, out, err);
	switch (t->kind_case) {
	case SPARK__CONNECT__DATA_TYPE__KIND_ARRAY:
		if (word("array", style, out, err) == -1)
			return -1;
		if (style == SC_VALUE_TYPENAME)
			return 0;
		if (sc_buf_addch(out, '<', err) == -1 ||
		    sc_value_datatype_name(t->array->element_type, style, out,
			err) == -1)
			return -1;
		return sc_buf_addch(out, '>', err);
	case SPARK__CONNECT__DATA_TYPE__KIND_MAP:
		if (word("map", style, out, err) == -1)
			return -1;
		if (style == SC_VALUE_TYPENAME)
			return 0;
		if (sc_buf_addch(out, '<', err) == -1 ||
		    sc_value_datatype_name(t->map->key_type, style, out, err) ==
			-1 ||
		    sc_buf_addstr(out, sep, err) == -1 ||
		    sc_value_datatype_name(t->map->value_type, style, out,
			err) == -1)
			return -1;
		return sc_buf_addch(out, '>', err);
	case SPARK__CONNECT__DATA_TYPE__KIND_STRUCT:
		if (word("struct", style, out, err) == -1)
			return -1;
		if (style == SC_VALUE_TYPENAME)
			return 0;
		if (sc_buf_addch(out, '<', err) == -1)
			return -1;
		st = t->struct_;
		for (i = 0; i < st->n_fields; i++)
			if ((i > 0 && sc_buf_addstr(out, sep, err) == -1) ||
			    (style == SC_VALUE_SQL
				    ? field_name(st->fields[i]->name, out, err)
				    : sc_buf_addstr(out, st->fields[i]->name,
					  err)) == -1 ||
			    sc_buf_addstr(out,
				style == SC_VALUE_SQL ? ": " : ":",
				err) == -1 ||
			    sc_value_datatype_name(st->fields[i]->data_type,
				style, out, err) == -1)
				return -1;
		return sc_buf_addch(out, '>', err);
	case SPARK__CONNECT__DATA_TYPE__KIND_UNPARSED:
		return sc_buf_addstr(out,
		    t->unparsed->data_type_string != NULL
			? t->unparsed->data_type_string
			: "",
		    err);
	default:
		return sc_buf_addstr(out, "unknown", err);
	}
}
