/* SPDX-License-Identifier: MIT */

/*
 * engine_func_format.c: format_string and printf, as Spark runs them
 * through java.util.Formatter (Locale.US) on its internal values: an
 * int is an Integer, a string a UTF8String (so %d of it fails), a float
 * or double formatted from its shortest decimal digits rounded half up.
 * What the Formatter would throw for is refused: at translation when the
 * format is a literal, else when the row is formatted.
 */

#include "engine/plan/engine_expr_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/digest.h"
#include "core/error.h"
#include "core/value.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

enum {
	FL_MINUS = 1 << 0,
	FL_HASH = 1 << 1,
	FL_PLUS = 1 << 2,
	FL_SPACE = 1 << 3,
	FL_ZERO = 1 << 4,
	FL_COMMA = 1 << 5,
	FL_PAREN = 1 << 6,
	FL_PREV = 1 << 7 /* '<': the previous specifier's argument */
};

/* One format specifier. */
struct fspec {
	const char *text; /* from its '%' */
	size_t len;
	int arg; /* 0-based; -1 for %% and %n */
	unsigned fl;
	int width, prec; /* -1: none */
	char conv; /* lower case */
	bool upper;
};

/* What a format needs of its arguments, or why it fails. */
struct fstate {
	const char *tags; /* each argument's Java class, see tag_class() */
	size_t nargs;
	sqlite3_value **argv; /* NULL: only check the types */
	struct sc_buf *out;
	char msg[200];
};

/*
 * The Java class an argument reaches the Formatter as: b Byte, h Short,
 * i Integer, l Long, f Float, d Double, s UTF8String, z Boolean, n null.
 */
static const char *
tag_class(char t)
{
	switch (t) {
	case 'b':
		return "java.lang.Byte";
	case 'h':
		return "java.lang.Short";
	case 'i':
		return "java.lang.Integer";
	case 'l':
		return "java.lang.Long";
	case 'f':
		return "java.lang.Float";
	case 'd':
		return "java.lang.Double";
	case 'z':
		return "java.lang.Boolean";
	default:
		return "org.apache.spark.unsafe.types.UTF8String";
	}
}

static int
fail(struct fstate *st, const char *msg)
{
	snprintf(st->msg, sizeof(st->msg), "%s", msg);
	return -1;
}

/* The code point c in UTF-8, appended to b. */
static void
utf8(struct sc_buf *b, uint32_t c)
{
	if (c < 0x80) {
		sc_buf_addch(b, (char)c, NULL);
	} else if (c < 0x800) {
		sc_buf_addch(b, (char)(0xC0 | c >> 6), NULL);
		sc_buf_addch(b, (char)(0x80 | (c & 0x3F)), NULL);
	} else if (c < 0x10000) {
		sc_buf_addch(b, (char)(0xE0 | c >> 12), NULL);
		sc_buf_addch(b, (char)(0x80 | (c >> 6 & 0x3F)), NULL);
		sc_buf_addch(b, (char)(0x80 | (c & 0x3F)), NULL);
	} else {
		sc_buf_addch(b, (char)(0xF0 | c >> 18), NULL);
		sc_buf_addch(b, (char)(0x80 | (c >> 12 & 0x3F)), NULL);
		sc_buf_addch(b, (char)(0x80 | (c >> 6 & 0x3F)), NULL);
		sc_buf_addch(b, (char)(0x80 | (c & 0x3F)), NULL);
	}
}

/* Parse the specifier at s[0] == '%' (s ends at end): 0, or -1. */
static int
parse_spec(const char *s, const char *end, int *ordinary, int *last,
    struct fspec *sp, struct fstate *st)
{
	const char *p = s + 1, *q;
	long v;

	memset(sp, 0, sizeof(*sp));
	sp->text = s;
	sp->width = sp->prec = -1;
	sp->arg = -2;
	/* argument index: digits and '$' */
	for (q = p; q < end && *q >= '0' && *q <= '9'; q++)
		;
	if (q > p && q < end && *q == '$') {
		v = strtol(p, NULL, 10);
		if (v <= 0 || v > 100000)
			return fail(st,
			    "IllegalFormatArgumentIndexException: Illegal format argument index");
		sp->arg = (int)v - 1;
		p = q + 1;
	}
	for (; p < end; p++) {
		unsigned f = *p == '-' ? FL_MINUS
		    : *p == '#'	       ? FL_HASH
		    : *p == '+'	       ? FL_PLUS
		    : *p == ' '	       ? FL_SPACE
		    : *p == '0'	       ? FL_ZERO
		    : *p == ','	       ? FL_COMMA
		    : *p == '('	       ? FL_PAREN
		    : *p == '<'	       ? FL_PREV
				       : 0;

		if (f == 0)
			break;
		if (sp->fl & f) {
			snprintf(st->msg, sizeof(st->msg),
			    "DuplicateFormatFlagsException: Flags = '%c'", *p);
			return -1;
		}
		sp->fl |= f;
	}
	if (p < end && *p >= '1' && *p <= '9') {
		v = strtol(p, NULL, 10);
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		sp->width = v > 1000000 ? 1000000 : (int)v;
	}
	if (p < end && *p == '.') {
		p++;
		if (p >= end || *p < '0' || *p > '9')
			return fail(st,
			    "UnknownFormatConversionException: "
			    "Conversion = '.'");
		v = strtol(p, NULL, 10);
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		sp->prec = v > 1000000 ? 1000000 : (int)v;
	}
	if (p >= end) {
		return fail(st,
		    "UnknownFormatConversionException: "
		    "Conversion = '%'");
	}
	sp->conv = *p;
	sp->len = (size_t)(p + 1 - s);
	if (*p >= 'A' && *p <= 'Z' && strchr("BHSCXEG", *p) != NULL) {
		sp->upper = true;
		sp->conv = (char)(*p - 'A' + 'a');
	}
	if (strchr("bhscdoxefgn%", sp->conv) == NULL ||
	    (sp->upper && strchr("bhscxeg", sp->conv) == NULL)) {
		snprintf(st->msg, sizeof(st->msg),
		    "UnknownFormatConversionException: Conversion = '%c' "
		    "(sc-serve maps b h s c d o x e f g n %% and their upper "
		    "case)",
		    *p);
		return -1;
	}
	if (sp->conv == '%' || sp->conv == 'n') {
		sp->arg = -1;
		if (sp->prec >= 0)
			return fail(st,
			    "IllegalFormatPrecisionException: a precision");
		if (sp->conv == 'n' && sp->width >= 0)
			return fail(st,
			    "IllegalFormatWidthException: a width with %n");
		if ((sp->conv == 'n' && sp->fl != 0) ||
		    (sp->conv == '%' && (sp->fl & ~(unsigned)FL_MINUS) != 0))
			return fail(st, "IllegalFormatFlagsException: flags");
		if ((sp->fl & FL_MINUS) && sp->width < 0)
			return fail(st, "MissingFormatWidthException: %-%");
		return 0;
	}
	if (sp->fl & FL_PREV) {
		if (*last < 0)
			return fail(st,
			    "MissingFormatArgumentException: "
			    "Format specifier '%<'");
		sp->arg = *last;
	} else if (sp->arg == -2) {
		sp->arg = (*ordinary)++;
	}
	*last = sp->arg;
	/* The checks Java's FormatSpecifier makes of flags and sizes. */
	if ((sp->fl & FL_MINUS) && sp->width < 0)
		return fail(st,
		    "MissingFormatWidthException: '-' without a width");
	switch (sp->conv) {
	case 'b':
	case 'h':
	case 's':
		if ((sp->fl &
			(FL_PLUS | FL_SPACE | FL_ZERO | FL_COMMA | FL_PAREN)) ||
		    (sp->fl & FL_HASH))
			return fail(st,
			    "FormatFlagsConversionMismatchException: a flag the conversion does not take");
		break;
	case 'c':
		if (sp->prec >= 0)
			return fail(st,
			    "IllegalFormatPrecisionException: a precision with %c");
		if (sp->fl &
		    (FL_HASH | FL_PLUS | FL_SPACE | FL_ZERO | FL_COMMA |
			FL_PAREN))
			return fail(st,
			    "FormatFlagsConversionMismatchException: a flag %c does not take");
		break;
	default:
		if (sp->conv != 'e' && sp->conv != 'f' && sp->conv != 'g' &&
		    sp->prec >= 0)
			return fail(st,
			    "IllegalFormatPrecisionException: a precision with an integer conversion");
		if (((sp->fl & FL_PLUS) && (sp->fl & FL_SPACE)) ||
		    ((sp->fl & FL_MINUS) && (sp->fl & FL_ZERO)))
			return fail(st,
			    "IllegalFormatFlagsException: flags that exclude each other");
		if ((sp->fl & FL_ZERO) && sp->width < 0)
			return fail(st,
			    "MissingFormatWidthException: '0' without a width");
		if ((sp->conv == 'd' && (sp->fl & FL_HASH)) ||
		    ((sp->conv == 'o' || sp->conv == 'x') &&
			(sp->fl & (FL_COMMA | FL_PAREN | FL_SPACE | FL_PLUS))) ||
		    (sp->conv == 'e' && (sp->fl & FL_COMMA)) ||
		    (sp->conv == 'g' && (sp->fl & FL_HASH)))
			return fail(st,
			    "FormatFlagsConversionMismatchException: a flag the conversion does not take");
		break;
	}
	return 0;
}

/* Append s[0..n) justified to sp's width (code points). */
static void
justify(struct sc_buf *out, const struct fspec *sp, const char *s, size_t n)
{
	size_t cps = 0, i;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			cps++;
	if (!(sp->fl & FL_MINUS))
		for (i = cps; sp->width >= 0 && i < (size_t)sp->width; i++)
			sc_buf_addch(out, ' ', NULL);
	if (sp->upper) {
		for (i = 0; i < n; i++)
			sc_buf_addch(out,
			    s[i] >= 'a' && s[i] <= 'z' ? (char)(s[i] - 32)
						       : s[i],
			    NULL);
	} else {
		sc_buf_add(out, s, n, NULL);
	}
	if (sp->fl & FL_MINUS)
		for (i = cps; sp->width >= 0 && i < (size_t)sp->width; i++)
			sc_buf_addch(out, ' ', NULL);
}

/* The first n code points of s (precision of %s). */
static size_t
cut(const char *s, size_t len, int prec)
{
	size_t i, cps = 0;

	if (prec < 0)
		return len;
	for (i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80) {
			if (cps == (size_t)prec)
				return i;
			cps++;
		}
	return len;
}

/* %s of an argument: its Java toString. */
static void
to_string(char tag, sqlite3_value *v, struct sc_buf *b)
{
	char t[SC_VALUE_TEXT_MAX];
	const char *s;
	double d;

	switch (tag) {
	case 'b':
	case 'h':
	case 'i':
	case 'l':
		sc_buf_addf(b, NULL, "%lld", (long long)sqlite3_value_int64(v));
		return;
	case 'z':
		sc_buf_addstr(b, sqlite3_value_int64(v) ? "true" : "false",
		    NULL);
		return;
	case 'f':
	case 'd':
		s = (const char *)sqlite3_value_text(v);
		if (sqlite3_value_type(v) == SQLITE_TEXT && s != NULL &&
		    strcmp(s, "NaN") == 0) {
			sc_buf_addstr(b, "NaN", NULL);
			return;
		}
		d = sqlite3_value_double(v);
		if (tag == 'f')
			sc_value_fmt_float((float)d, t);
		else
			sc_value_fmt_double(d, t);
		sc_buf_addstr(b, t, NULL);
		return;
	default:
		s = (const char *)sqlite3_value_text(v);
		sc_buf_add(b, s != NULL ? s : "",
		    (size_t)sqlite3_value_bytes(v), NULL);
	}
}

static double
value_double(sqlite3_value *v)
{
	const char *s = (const char *)sqlite3_value_text(v);

	if (sqlite3_value_type(v) == SQLITE_TEXT && s != NULL &&
	    strcmp(s, "NaN") == 0)
		return NAN;
	return sqlite3_value_double(v);
}

/* %h: Integer.toHexString of the argument's Java hashCode. */
static void
hash_code(char tag, sqlite3_value *v, struct sc_buf *b)
{
	union {
		double d;
		uint64_t u;
	} d;
	union {
		float f;
		uint32_t u;
	} f;
	uint64_t l;
	uint32_t h;

	switch (tag) {
	case 'l':
		l = (uint64_t)sqlite3_value_int64(v);
		h = (uint32_t)(l ^ l >> 32);
		break;
	case 'z':
		h = sqlite3_value_int64(v) ? 1231 : 1237;
		break;
	case 'd':
		d.d = value_double(v);
		if (isnan(d.d))
			d.u = UINT64_C(0x7ff8000000000000);
		h = (uint32_t)(d.u ^ d.u >> 32);
		break;
	case 'f':
		f.f = (float)value_double(v);
		if (isnan(f.f))
			f.u = UINT32_C(0x7fc00000);
		h = f.u;
		break;
	case 's':
		h = (uint32_t)sc_murmur3_bytes(sqlite3_value_text(v),
		    (size_t)sqlite3_value_bytes(v), 42);
		break;
	default:
		h = (uint32_t)(int32_t)sqlite3_value_int64(v);
		break;
	}
	sc_buf_addf(b, NULL, "%x", (unsigned)h);
}

/* digits of s grouped by three with ',' (Locale.US), appended to b. */
static void
grouped(struct sc_buf *b, const char *s, size_t n, bool group)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (group && i > 0 && (n - i) % 3 == 0)
			sc_buf_addch(b, ',', NULL);
		sc_buf_addch(b, s[i], NULL);
	}
}

/*
 * A signed number: the sign as Java's leadingSign/trailingSign write it,
 * the magnitude (integer digits grouped if asked, then rest), zero
 * padding up to the width, then justified.
 */
static void
put_number(struct sc_buf *out, const struct fspec *sp, bool neg,
    const char *intd, size_t nint, const char *rest)
{
	struct sc_buf b;
	size_t begin, len, w;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	if (neg)
		sc_buf_addch(&b, (sp->fl & FL_PAREN) ? '(' : '-', NULL);
	else if (sp->fl & FL_PLUS)
		sc_buf_addch(&b, '+', NULL);
	else if (sp->fl & FL_SPACE)
		sc_buf_addch(&b, ' ', NULL);
	begin = b.len;
	grouped(&b, intd, nint, (sp->fl & FL_COMMA) != 0);
	sc_buf_addstr(&b, rest, NULL);
	if ((sp->fl & FL_ZERO) && sp->width >= 0) {
		w = (size_t)sp->width - (neg && (sp->fl & FL_PAREN) ? 1 : 0);
		len = b.len;
		if (len < w) {
			struct sc_buf z;

			sc_buf_init(&z, SC_BUF_UNLIMITED);
			sc_buf_add(&z, b.data, begin, NULL);
			for (; len < w; len++)
				sc_buf_addch(&z, '0', NULL);
			sc_buf_add(&z, b.data + begin, b.len - begin, NULL);
			sc_buf_release(&b);
			b = z;
		}
	}
	if (neg && (sp->fl & FL_PAREN))
		sc_buf_addch(&b, ')', NULL);
	justify(out, sp, (const char *)b.data, b.len);
	sc_buf_release(&b);
}

/* Integer conversions d, o, x of an integral tag. */
static void
put_integer(struct sc_buf *out, const struct fspec *sp, char tag, int64_t v)
{
	char digits[80];
	uint64_t u;
	int bits = tag == 'b' ? 8 : tag == 'h' ? 16 : tag == 'i' ? 32 : 64;
	struct sc_buf b;

	if (sp->conv == 'd') {
		snprintf(digits, sizeof(digits), "%llu",
		    v < 0 ? 0ULL - (unsigned long long)v
			  : (unsigned long long)v);
		put_number(out, sp, v < 0, digits, strlen(digits), "");
		return;
	}
	/* o, x: two's complement within the type's width. */
	u = (uint64_t)v;
	if (bits < 64)
		u &= (UINT64_C(1) << bits) - 1;
	snprintf(digits, sizeof(digits), sp->conv == 'o' ? "%llo" : "%llx",
	    (unsigned long long)u);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	if (sp->fl & FL_HASH)
		sc_buf_addstr(&b, sp->conv == 'o' ? "0" : "0x", NULL);
	if ((sp->fl & FL_ZERO) && sp->width >= 0) {
		size_t len = b.len + strlen(digits);

		for (; len < (size_t)sp->width; len++)
			sc_buf_addch(&b, '0', NULL);
	}
	sc_buf_addstr(&b, digits, NULL);
	justify(out, sp, (const char *)b.data, b.len);
	sc_buf_release(&b);
}

/*
 * The shortest decimal digits of |v| (Java's): d[0..n) with value
 * 0.d * 10^*exp.  v is finite and not zero.
 */
static size_t
shortest(double v, char *d, size_t dsz, int *exp)
{
	char t[SC_VALUE_TEXT_MAX];
	const char *p;
	size_t n = 0;
	int e = 0, point = -1, lead = 0;

	sc_value_fmt_double(fabs(v), t);
	for (p = t; *p != '\0' && *p != 'E'; p++) {
		if (*p == '.') {
			point = (int)(n + (size_t)lead);
			continue;
		}
		if (n == 0 && *p == '0') {
			lead++;
			continue;
		}
		if (n + 1 < dsz)
			d[n++] = *p;
	}
	if (*p == 'E')
		e = (int)strtol(p + 1, NULL, 10);
	if (point < 0)
		point = (int)(n + (size_t)lead);
	/* digits before the point, leading zeros counted, minus them */
	*exp = point - lead + e;
	while (n > 1 && d[n - 1] == '0')
		n--;
	d[n] = '\0';
	return n;
}

/*
 * Round d[0..n) (0.d * 10^*exp) half up to keep digits; the result
 * replaces d; keep <= 0 keeps nothing unless it rounds up to a 1.
 */
static size_t
round_half_up(char *d, size_t n, int keep, int *exp)
{
	int i;

	if (keep >= (int)n)
		return n;
	if (keep < 0) {
		d[0] = '\0';
		return 0;
	}
	if (d[keep] < '5') {
		d[keep] = '\0';
		while (keep > 0 && d[keep - 1] == '0')
			d[--keep] = '\0';
		return (size_t)keep;
	}
	for (i = keep - 1; i >= 0; i--) {
		if (d[i] < '9') {
			d[i]++;
			d[i + 1] = '\0';
			return (size_t)i + 1;
		}
		d[i] = '\0';
	}
	d[0] = '1';
	d[1] = '\0';
	(*exp)++;
	return 1;
}

/* Fixed notation of 0.d * 10^exp with prec fraction digits. */
static void
fixed(const char *d, size_t n, int exp, int prec, struct sc_buf *ip,
    struct sc_buf *frac)
{
	int i;

	if (exp <= 0)
		sc_buf_addch(ip, '0', NULL);
	for (i = 0; i < exp; i++)
		sc_buf_addch(ip, i < (int)n ? d[i] : '0', NULL);
	if (prec > 0)
		sc_buf_addch(frac, '.', NULL);
	for (i = 0; i < prec; i++) {
		int k = exp + i;

		sc_buf_addch(frac, k >= 0 && k < (int)n ? d[k] : '0', NULL);
	}
}

/* e, f, g of a double v. */
static void
put_float(struct sc_buf *out, const struct fspec *sp, double v)
{
	struct sc_buf ip, frac;
	char d[40];
	size_t n;
	int exp = 0, prec = sp->prec, x;
	bool neg = signbit(v) != 0, sci;

	if (isnan(v) || isinf(v)) {
		struct fspec s2 = *sp;

		s2.fl &= ~(unsigned)FL_ZERO;
		if (isnan(v)) {
			justify(out, &s2, "NaN", 3);
			return;
		}
		s2.fl &= ~(unsigned)FL_COMMA;
		put_number(out, &s2, neg, "Infinity", 8, "");
		return;
	}
	sc_buf_init(&ip, SC_BUF_UNLIMITED);
	sc_buf_init(&frac, SC_BUF_UNLIMITED);
	if (v == 0) {
		d[0] = '0';
		d[1] = '\0';
		n = 1;
		exp = 1;
	} else {
		n = shortest(v, d, sizeof(d), &exp);
	}
	if (prec < 0)
		prec = 6;
	sci = sp->conv == 'e';
	if (sp->conv == 'g') {
		if (prec == 0)
			prec = 1;
		if (v != 0) {
			n = round_half_up(d, n, prec, &exp);
			/* 10^-4 <= rounded < 10^prec: fixed notation */
			sci = exp < -3 || exp > prec;
		} else {
			sci = false;
		}
		prec = sci ? prec - 1 : prec - exp;
	}
	if (sci) {
		char e[16];

		if (v != 0)
			n = round_half_up(d, n, prec + 1, &exp);
		x = v == 0 ? 0 : exp - 1;
		sc_buf_addch(&ip, d[0], NULL);
		if (prec > 0)
			sc_buf_addch(&frac, '.', NULL);
		for (int i = 1; i <= prec; i++)
			sc_buf_addch(&frac, i < (int)n ? d[i] : '0', NULL);
		snprintf(e, sizeof(e), "e%c%02d", x < 0 ? '-' : '+',
		    x < 0 ? -x : x);
		sc_buf_addstr(&frac, e, NULL);
	} else {
		if (v != 0) {
			n = round_half_up(d, n, exp + prec, &exp);
			if (n == 0) {
				d[0] = '0';
				n = 1;
				exp = 1;
			}
		}
		fixed(d, n, exp, prec, &ip, &frac);
	}
	put_number(out, sp, neg, (const char *)ip.data, ip.len,
	    (const char *)frac.data);
	sc_buf_release(&ip);
	sc_buf_release(&frac);
}

/* One specifier with its argument. */
static int
put_spec(struct fstate *st, const struct fspec *sp)
{
	sqlite3_value *v;
	struct sc_buf b;
	char tag;
	int64_t cp;

	if (sp->conv == '%') {
		justify(st->out, sp, "%", 1);
		return 0;
	}
	if (sp->conv == 'n') {
		sc_buf_addch(st->out, '\n', NULL);
		return 0;
	}
	if (sp->arg < 0 || (size_t)sp->arg >= st->nargs) {
		snprintf(st->msg, sizeof(st->msg),
		    "MissingFormatArgumentException: Format specifier '%.*s'",
		    (int)sp->len, sp->text);
		return -1;
	}
	tag = st->tags[sp->arg];
	if (tag != 'n' && strchr("bhs", sp->conv) == NULL) {
		const char *ok = sp->conv == 'c'      ? "bhi"
		    : strchr("dox", sp->conv) != NULL ? "bhil"
						      : "fd";

		if (strchr(ok, tag) == NULL) {
			snprintf(st->msg, sizeof(st->msg),
			    "IllegalFormatConversionException: %c != %s",
			    sp->upper ? sp->conv - 32 : sp->conv,
			    tag_class(tag));
			return -1;
		}
	}
	if (st->argv == NULL)
		return 0;
	v = st->argv[sp->arg];
	if (tag == 'n' || sqlite3_value_type(v) == SQLITE_NULL) {
		const char *s = sp->conv == 'b' ? "false" : "null";
		struct fspec s2 = *sp;

		s2.fl &= FL_MINUS;
		justify(st->out, &s2, s, cut(s, strlen(s), sp->prec));
		return 0;
	}
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	switch (sp->conv) {
	case 'b':
		sc_buf_addstr(&b,
		    tag != 'z' || sqlite3_value_int64(v) ? "true" : "false",
		    NULL);
		break;
	case 'h':
		hash_code(tag, v, &b);
		break;
	case 's':
		to_string(tag, v, &b);
		break;
	case 'c':
		cp = sqlite3_value_int64(v);
		if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
			sc_buf_release(&b);
			snprintf(st->msg, sizeof(st->msg),
			    "IllegalFormatCodePointException: Code point = "
			    "0x%llx",
			    (unsigned long long)cp);
			return -1;
		}
		utf8(&b, (uint32_t)cp);
		break;
	case 'd':
	case 'o':
	case 'x':
		put_integer(st->out, sp, tag, sqlite3_value_int64(v));
		sc_buf_release(&b);
		return 0;
	default:
		put_float(st->out, sp,
		    tag == 'f' ? (double)(float)value_double(v)
			       : value_double(v));
		sc_buf_release(&b);
		return 0;
	}
	if (sp->upper) {
		size_t i;

		/* Java upper-cases with Locale.US rules beyond ASCII too. */
		for (i = 0; i < b.len; i++)
			if ((unsigned char)b.data[i] >= 0x80) {
				sc_buf_release(&b);
				return fail(st,
				    "sc-serve: %S of text beyond ASCII is not "
				    "supported (Java's upper case of it is not "
				    "reproduced).");
			}
	}
	justify(st->out, sp, (const char *)b.data,
	    cut((const char *)b.data, b.len, sp->prec));
	sc_buf_release(&b);
	return 0;
}

/* Format fmt[0..n) into st->out: 0, or -1 with st->msg. */
static int
format_run(struct fstate *st, const char *fmt, size_t n)
{
	const char *p = fmt, *end = fmt + n;
	struct fspec sp;
	int ordinary = 0, last = -1;

	while (p < end) {
		if (*p != '%') {
			sc_buf_addch(st->out, *p++, NULL);
			continue;
		}
		if (parse_spec(p, end, &ordinary, &last, &sp, st) == -1 ||
		    put_spec(st, &sp) == -1)
			return -1;
		p += sp.len;
	}
	return 0;
}

/* sc_format(fmt, tags, args...) */
static void
format_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct fstate st;
	struct sc_buf out, m;
	const char *fmt;

	if (argc < 2) {
		sc_eng_func_bad_args(ctx, "sc_format");
		return;
	}
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return; /* NULL */
	fmt = (const char *)sqlite3_value_text(argv[0]);
	memset(&st, 0, sizeof(st));
	st.tags = (const char *)sqlite3_value_text(argv[1]);
	st.nargs = (size_t)argc - 2;
	if (st.tags == NULL || strlen(st.tags) != st.nargs) {
		sqlite3_result_error(ctx, "sc_format: bad tags", -1);
		return;
	}
	st.argv = argv + 2;
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	st.out = &out;
	if (format_run(&st, fmt, (size_t)sqlite3_value_bytes(argv[0])) == -1) {
		sc_buf_release(&out);
		sc_buf_init(&m, SC_BUF_UNLIMITED);
		if (strncmp(st.msg, "sc-serve: ", 10) == 0)
			sc_buf_addf(&m, NULL,
			    "[UNSUPPORTED_FEATURE.EXPRESSION] format_string(): "
			    "%s SQLSTATE: 0A000",
			    st.msg + 10);
		else
			sc_buf_addf(&m, NULL,
			    "[UNSUPPORTED_FEATURE.EXPRESSION] format_string() "
			    "fails in Spark with java.util.%s; sc-serve refuses "
			    "it. SQLSTATE: 0A000",
			    st.msg);
		sqlite3_result_error(ctx, (const char *)m.data, -1);
		sc_buf_release(&m);
		return;
	}
	sc_eng_func_result_buf(ctx, &out);
}

int
sc_eng_func_format_register(sqlite3 *db)
{
	static const struct sc_efunc scalar[] = {
		{ "sc_format", -1, format_fn },
	};

	return sc_eng_func_add(db, scalar, SC_NELEM(scalar));
}

/* ------------------------------------------------------------------ */
/* format_string(fmt, args...) into SQL                                */
/* ------------------------------------------------------------------ */

static int
arg_tag(const struct sc_etype *t, char *tag)
{
	switch (t->t) {
	case SC_ARROW_INT8:
		*tag = 'b';
		return 0;
	case SC_ARROW_INT16:
		*tag = 'h';
		return 0;
	case SC_ARROW_INT32:
		*tag = 'i';
		return 0;
	case SC_ARROW_INT64:
		*tag = 'l';
		return 0;
	case SC_ARROW_FLOAT:
		*tag = 'f';
		return 0;
	case SC_ARROW_DOUBLE:
		*tag = 'd';
		return 0;
	case SC_ARROW_BOOL:
		*tag = 'z';
		return 0;
	case SC_ARROW_UTF8:
	case SC_ARROW_LARGE_UTF8:
		*tag = 's';
		return 0;
	case SC_ARROW_NULL:
		*tag = 'n';
		return 0;
	default:
		return -1;
	}
}

static int
sc_eng_format_string(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedFunction *f, const char *fn,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	struct sc_efarg *a;
	size_t n = f->n_arguments, i;
	char *tags;
	int rc = -1;

	a = sc_xcalloc(n, sizeof(*a));
	tags = sc_xcalloc(n + 1, 1);
	for (i = 0; i < n; i++) {
		sc_buf_init(&a[i].sql, SC_BUF_UNLIMITED);
		sc_eng_einfo_init(&a[i].ei);
	}
	for (i = 0; i < n; i++)
		if (sc_eng_expr(x, in, f->arguments[i], &a[i].sql, &a[i].ei,
			err) == -1)
			goto out;
	if (a[0].ei.type.t != SC_ARROW_UTF8 &&
	    a[0].ei.type.t != SC_ARROW_NULL) {
		sc_eng_wrong_arg(fn, "\"STRING\"", a, 0, err);
		goto out;
	}
	for (i = 1; i < n; i++)
		if (arg_tag(&a[i].ei.type, &tags[i - 1]) == -1) {
			sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
			    "0A000",
			    "%s() of %s is not supported by sc-serve: only "
			    "integers, floating point, booleans and strings "
			    "are formatted.",
			    fn, (const char *)a[i].ei.name.data);
			goto out;
		}
	/* A literal format: what Java would throw for, before running. */
	if (f->arguments[0]->expr_type_case == SC_EXPR_(LITERAL) &&
	    f->arguments[0]->literal->literal_type_case ==
		SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING) {
		const char *s = f->arguments[0]->literal->string;
		struct fstate st;
		struct sc_buf scratch;

		if (strstr(s, "%0$") != NULL) {
			sc_srv_error(err, "INVALID_PARAMETER_VALUE.ZERO_INDEX",
			    "22023",
			    "The value of parameter(s) `strfmt` in `%s` is "
			    "invalid: expects %%1$, %%2$ and so on, but got "
			    "%%0$.",
			    fn);
			goto out;
		}
		memset(&st, 0, sizeof(st));
		st.tags = tags;
		st.nargs = n - 1;
		sc_buf_init(&scratch, SC_BUF_UNLIMITED);
		st.out = &scratch;
		i = (size_t)format_run(&st, s, strlen(s));
		sc_buf_release(&scratch);
		if (i != 0) {
			sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
			    "0A000",
			    "%s() fails in Spark with java.util.%s; sc-serve "
			    "refuses it.",
			    fn, st.msg);
			goto out;
		}
	}
	sc_buf_addf(sql, NULL, "sc_format(%s, '%s'",
	    (const char *)a[0].sql.data, tags);
	for (i = 1; i < n; i++)
		sc_buf_addf(sql, NULL, ", %s", (const char *)a[i].sql.data);
	sc_buf_addch(sql, ')', NULL);
	sc_buf_addf(&ei->name, NULL, "%s(", fn);
	sc_eng_args_list(&ei->name, a, 0, n, true);
	sc_buf_addch(&ei->name, ')', NULL);
	memset(&ei->type, 0, sizeof(ei->type));
	ei->type.t = SC_ARROW_UTF8;
	ei->nullable = a[0].ei.nullable;
	rc = 0;
out:
	for (i = 0; i < n; i++) {
		sc_buf_release(&a[i].sql);
		sc_eng_einfo_release(&a[i].ei);
	}
	free(a);
	free(tags);
	return rc;
}

static const struct sc_efdef defs[] = {
	{ "format_string", F_CALL, NULL, 1, -1, R_UNK,
	    .call = sc_eng_format_string },
	{ "printf", F_CALL, NULL, 1, -1, R_UNK, .call = sc_eng_format_string },
};
const struct sc_effamily sc_eng_family_format = { "format", defs,
	SC_NELEM(defs) };
