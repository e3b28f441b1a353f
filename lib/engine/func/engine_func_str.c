/* SPDX-License-Identifier: MIT */

/*
 * engine_func_str.c: more of Spark's string and date functions as
 * SQLite functions: split_part, find_in_set, levenshtein, soundex,
 * url_encode, url_decode, date_from_unix_date and timestamp_seconds,
 * timestamp_millis, timestamp_micros.  Strings are counted in code
 * points as Spark's UTF8String does; a NULL argument gives NULL.
 */

#include "engine/plan/engine_expr_int.h"

#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/hex.h"
#include "core/value.h"
#include "core/width.h"
#include "core/xmem.h"
#include "core/banned.h"

/* The first d[0..dn) in s[0..sn), or NULL (dn > 0). */
static const char *
find(const char *s, size_t sn, const char *d, size_t dn)
{
	const char *end = s + sn;

	for (; (size_t)(end - s) >= dn; s++)
		if (memcmp(s, d, dn) == 0)
			return s;
	return NULL;
}

static bool
any_null(int argc, sqlite3_value **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (sqlite3_value_type(argv[i]) == SQLITE_NULL)
			return true;
	return false;
}

/*
 * split_part(str, delim, n): the n-th piece of str split at each delim
 * (from the end when n < 0), "" past the last; an empty delim leaves
 * str whole; n = 0 fails as Spark's element_at does.
 */
static void
split_part_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s, *d, *p, *hit;
	size_t sn, dn, npieces, want, i;
	sqlite3_int64 n;

	if (any_null(argc, argv))
		return;
	s = (const char *)sqlite3_value_text(argv[0]);
	sn = (size_t)sqlite3_value_bytes(argv[0]);
	d = (const char *)sqlite3_value_text(argv[1]);
	dn = (size_t)sqlite3_value_bytes(argv[1]);
	n = sqlite3_value_int64(argv[2]);
	if (s == NULL || d == NULL)
		return;
	if (n == 0) {
		sqlite3_result_error(ctx,
		    "[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index "
		    "shall be either < 0 or > 0 (the first element has index "
		    "1). SQLSTATE: 22003",
		    -1);
		return;
	}
	npieces = 1;
	if (dn > 0)
		for (p = s;
		     (hit = find(p, sn - (size_t)(p - s), d, dn)) != NULL;
		     p = hit + dn)
			npieces++;
	if (n > 0 ? (uint64_t)n > npieces : (uint64_t) - (n + 1) >= npieces) {
		sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
		return;
	}
	want = n > 0 ? (size_t)n - 1 : npieces - (size_t) - (n + 1) - 1;
	if (dn == 0) {
		sqlite3_result_text(ctx, s, (int)sn, SQLITE_TRANSIENT);
		return;
	}
	p = s;
	for (i = 0; i < want; i++)
		p = find(p, sn - (size_t)(p - s), d, dn) + dn;
	hit = find(p, sn - (size_t)(p - s), d, dn);
	sqlite3_result_text(ctx, p,
	    (int)(hit != NULL ? (size_t)(hit - p) : sn - (size_t)(p - s)),
	    SQLITE_TRANSIENT);
}

/*
 * find_in_set(str, list): the 1-based place of str among list's
 * comma-separated items, 0 when absent or when str holds a comma.
 */
static void
find_in_set_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s, *l, *p, *e;
	size_t sn, ln;
	sqlite3_int64 k = 1;

	if (any_null(argc, argv))
		return;
	s = (const char *)sqlite3_value_text(argv[0]);
	sn = (size_t)sqlite3_value_bytes(argv[0]);
	l = (const char *)sqlite3_value_text(argv[1]);
	ln = (size_t)sqlite3_value_bytes(argv[1]);
	if (s == NULL || l == NULL)
		return;
	if (memchr(s, ',', sn) != NULL) {
		sqlite3_result_int(ctx, 0);
		return;
	}
	for (p = l;; k++) {
		e = memchr(p, ',', ln - (size_t)(p - l));
		if (e == NULL)
			e = l + ln;
		if ((size_t)(e - p) == sn && memcmp(p, s, sn) == 0) {
			sqlite3_result_int64(ctx, k);
			return;
		}
		if (e == l + ln)
			break;
		p = e + 1;
	}
	sqlite3_result_int(ctx, 0);
}

/* The code points of UTF-8 s (n bytes) into a new array; *len its size. */
static uint32_t *
code_points(const unsigned char *s, size_t n, size_t *len)
{
	uint32_t *v = sc_xcalloc(n + 1, sizeof(*v));
	size_t i = 0, k = 0;

	while (i < n) {
		unsigned c = s[i];
		int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
		uint32_t cp = more == 0 ? c : c & (0x3F >> more);

		for (i++; more > 0 && i < n; more--, i++)
			cp = cp << 6 | (s[i] & 0x3F);
		v[k++] = cp;
	}
	*len = k;
	return v;
}

/*
 * levenshtein(a, b[, threshold]): the edit distance in code points;
 * with a threshold, -1 when the distance is above it.
 */
static void
levenshtein_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	uint32_t *a, *b;
	size_t an, bn, i, j;
	size_t *row;
	size_t dist;

	if (any_null(argc, argv))
		return;
	a = code_points(sqlite3_value_text(argv[0]),
	    (size_t)sqlite3_value_bytes(argv[0]), &an);
	b = code_points(sqlite3_value_text(argv[1]),
	    (size_t)sqlite3_value_bytes(argv[1]), &bn);
	row = sc_xcalloc(bn + 1, sizeof(*row));
	for (j = 0; j <= bn; j++)
		row[j] = j;
	for (i = 1; i <= an; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (j = 1; j <= bn; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	dist = row[bn];
	free(row);
	free(a);
	free(b);
	if (argc == 3 && (sqlite3_int64)dist > sqlite3_value_int64(argv[2]))
		sqlite3_result_int(ctx, -1);
	else
		sqlite3_result_int64(ctx, (sqlite3_int64)dist);
}

/*
 * soundex(s): Spark's American Soundex: the first letter and three
 * digits; H and W neither code nor separate, other non-letters do; s
 * whose first byte is no ASCII letter comes back as it is.
 */
static void
soundex_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	static const char codes[] = "01230127022455012623017202";
	const unsigned char *s;
	char sx[5] = "0000";
	size_t n, i, k = 1;
	char last;
	int c;

	if (any_null(argc, argv))
		return;
	s = sqlite3_value_text(argv[0]);
	n = (size_t)sqlite3_value_bytes(argv[0]);
	if (s == NULL)
		return;
	c = n > 0 ? s[0] : 0;
	if (c >= 'a' && c <= 'z')
		c -= 32;
	if (c < 'A' || c > 'Z') {
		sqlite3_result_text(ctx, (const char *)s, (int)n,
		    SQLITE_TRANSIENT);
		return;
	}
	sx[0] = (char)c;
	last = codes[c - 'A'];
	for (i = 1; i < n && k < 4; i++) {
		c = s[i];
		if (c >= 'a' && c <= 'z')
			c -= 32;
		if (c < 'A' || c > 'Z') {
			last = '0';
			continue;
		}
		if (codes[c - 'A'] == '7')
			continue;
		if (codes[c - 'A'] != '0' && codes[c - 'A'] != last)
			sx[k++] = codes[c - 'A'];
		last = codes[c - 'A'];
	}
	sqlite3_result_text(ctx, sx, 4, SQLITE_TRANSIENT);
}

/* The byte offset of code point k (clamped to the end) in s[0..n). */
static size_t
cp_offset(const unsigned char *s, size_t n, int64_t k)
{
	size_t i = 0;

	for (; k > 0 && i < n; k--)
		for (i++; i < n && (s[i] & 0xC0) == 0x80; i++)
			;
	return i;
}

/* Spark's substringSQL(pos, len) of s (nc code points) into b. */
static void
substring_sql(struct sc_buf *b, const unsigned char *s, size_t n, int64_t nc,
    int32_t pos, int32_t len)
{
	int64_t start = pos > 0 ? pos - 1 : pos < 0 ? nc + pos : 0;
	int64_t end = start + len;
	size_t from, to;

	if (end > INT32_MAX)
		end = INT32_MAX;
	if (start < 0)
		start = 0;
	if (start >= end)
		return;
	from = cp_offset(s, n, start);
	to = cp_offset(s, n, end);
	sc_buf_add(b, s + from, to - from, NULL);
}

/*
 * overlay(input, replace, pos[, len]): input with len code points from
 * pos on (replace's length when len < 0) replaced by replace, the
 * pieces cut as Spark's substring() does; Java int arithmetic.
 */
static void
overlay_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *in, *rep;
	sqlite3_int64 pos, len;
	size_t n, rn;
	int64_t nc, rc;
	struct sc_buf b;
	int i;

	if (any_null(argc, argv))
		return;
	for (i = 0; i < 2; i++)
		if (sqlite3_value_type(argv[i]) == SQLITE_BLOB) {
			sqlite3_result_error(ctx,
			    "[UNSUPPORTED_FEATURE.EXPRESSION] overlay() of "
			    "BINARY is not supported by sc-serve. SQLSTATE: "
			    "0A000",
			    -1);
			return;
		}
	pos = sqlite3_value_int64(argv[2]);
	len = argc == 4 ? sqlite3_value_int64(argv[3]) : -1;
	if (pos < INT32_MIN || pos > INT32_MAX || len < INT32_MIN ||
	    len > INT32_MAX) {
		sqlite3_result_error(ctx,
		    "[UNSUPPORTED_FEATURE.EXPRESSION] overlay() with a "
		    "position or length outside INT is not supported by "
		    "sc-serve. SQLSTATE: 0A000",
		    -1);
		return;
	}
	in = sqlite3_value_text(argv[0]);
	n = (size_t)sqlite3_value_bytes(argv[0]);
	rep = sqlite3_value_text(argv[1]);
	rn = (size_t)sqlite3_value_bytes(argv[1]);
	nc = 0;
	for (size_t k = 0; k < n; k++)
		nc += (in[k] & 0xC0) != 0x80;
	rc = 0;
	for (size_t k = 0; k < rn; k++)
		rc += (rep[k] & 0xC0) != 0x80;
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_buf_addstr(&b, "", NULL);
	substring_sql(&b, in, n, nc, 1, (int32_t)((uint32_t)pos - 1u));
	sc_buf_add(&b, rep, rn, NULL);
	/* Java's int addition wraps */
	substring_sql(&b, in, n, nc,
	    (int32_t)((uint32_t)pos + (uint32_t)(len >= 0 ? len : rc)),
	    INT32_MAX);
	sc_eng_func_result_buf(ctx, &b);
}

/*
 * The matches of argv[1] in argv[0] as Java's Matcher.find() walks
 * them: after an empty match the search goes on one character later.
 * Counts them (want < 0) or gives the first one; -1 with ctx's error
 * set (an empty match before a character outside the BMP, where Java
 * would step inside its surrogate pair, is refused), 0 at NULL, 1.
 */
static int
regex_walk(sqlite3_context *ctx, sqlite3_value **argv, int64_t *count,
    regmatch_t *first)
{
	const char *s;
	regmatch_t m;
	regex_t *re;
	size_t off = 0, len;
	int flags = 0;

	*count = 0;
	if ((s = (const char *)sqlite3_value_text(argv[0])) == NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return 0;
	if ((re = sc_eng_regex_arg(ctx, argv, 1)) == NULL)
		return -1;
	len = strlen(s);
	while (off <= len && regexec(re, s + off, 1, &m, flags) == 0) {
		if (++*count == 1 && first != NULL) {
			first->rm_so = m.rm_so + (regoff_t)off;
			first->rm_eo = m.rm_eo + (regoff_t)off;
			return 1;
		}
		off += (size_t)m.rm_eo;
		if (m.rm_eo == m.rm_so) {
			if (off < len && (unsigned char)s[off] >= 0xF0) {
				sqlite3_result_error(ctx,
				    "[UNSUPPORTED_FEATURE.EXPRESSION] an empty "
				    "regular expression match before a "
				    "character outside the BMP is not "
				    "supported by sc-serve. SQLSTATE: 0A000",
				    -1);
				return -1;
			}
			for (off++; off < len &&
			     ((unsigned char)s[off] & 0xC0) == 0x80;
			     off++)
				;
		}
		flags = REG_NOTBOL;
	}
	return 1;
}

/* regexp_count(str, regexp): how many times regexp matches. */
static void
regexp_count_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int64_t n;

	(void)argc;
	if (regex_walk(ctx, argv, &n, NULL) == 1)
		sqlite3_result_int64(ctx, n);
}

/* regexp_substr(str, regexp): the first match, NULL if none or empty. */
static void
regexp_substr_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	regmatch_t m;
	int64_t n;

	(void)argc;
	if (regex_walk(ctx, argv, &n, &m) == 1 && n > 0 && m.rm_eo > m.rm_so)
		sqlite3_result_text(ctx,
		    (const char *)sqlite3_value_text(argv[0]) + m.rm_so,
		    (int)(m.rm_eo - m.rm_so), SQLITE_TRANSIENT);
}

/*
 * url_encode(s): Java's URLEncoder with UTF-8: letters, digits and
 * ".-*_" stay, a space becomes '+', every other byte %XX.
 */
static void
url_encode_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *s;
	struct sc_buf b;
	size_t n, i;

	if (any_null(argc, argv))
		return;
	s = sqlite3_value_text(argv[0]);
	n = (size_t)sqlite3_value_bytes(argv[0]);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_buf_addstr(&b, "", NULL);
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '-' ||
		    c == '*' || c == '_')
			sc_buf_addch(&b, (char)c, NULL);
		else if (c == ' ')
			sc_buf_addch(&b, '+', NULL);
		else {
			sc_buf_addch(&b, '%', NULL);
			sc_buf_addch(&b, hex[c >> 4], NULL);
			sc_buf_addch(&b, hex[c & 15], NULL);
		}
	}
	sc_eng_func_result_buf(ctx, &b);
}

/*
 * url_decode(s): Java's URLDecoder with UTF-8: '+' is a space, %XX a
 * byte (Integer.parseInt's two characters, so "%+4" is byte 4), the
 * rest as it is.  A broken escape fails as Spark's CANNOT_DECODE_URL;
 * bytes that are no UTF-8 (Java would put U+FFFD) are refused.
 */
static void
url_decode_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *s;
	struct sc_buf b;
	size_t n, i;

	if (any_null(argc, argv))
		return;
	s = sqlite3_value_text(argv[0]);
	n = (size_t)sqlite3_value_bytes(argv[0]);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_buf_addstr(&b, "", NULL);
	for (i = 0; i < n; i++) {
		int hi, lo, v;

		if (s[i] == '+') {
			sc_buf_addch(&b, ' ', NULL);
			continue;
		}
		if (s[i] != '%') {
			sc_buf_addch(&b, (char)s[i], NULL);
			continue;
		}
		hi = i + 2 < n ? sc_hex_digit((unsigned char)s[i + 1]) : -1;
		lo = i + 2 < n ? sc_hex_digit((unsigned char)s[i + 2]) : -1;
		if (i + 2 < n && (s[i + 1] == '+' || s[i + 1] == '-') &&
		    lo >= 0)
			v = s[i + 1] == '-' && lo > 0 ? -1 : lo;
		else
			v = hi >= 0 && lo >= 0 ? hi * 16 + lo : -1;
		if (v < 0) {
			sc_buf_release(&b);
			sc_eng_func_fail(ctx,
			    "[CANNOT_DECODE_URL] The provided URL cannot be "
			    "decoded: %s. Please ensure that the URL is "
			    "properly formatted and try again. SQLSTATE: 22546",
			    (const char *)s);
			return;
		}
		sc_buf_addch(&b, (char)v, NULL);
		i += 2;
	}
	if (sc_utf8_check(b.data, b.len) != b.len) {
		sc_buf_release(&b);
		sqlite3_result_error(ctx,
		    "[UNSUPPORTED_FEATURE.EXPRESSION] url_decode() of bytes "
		    "that are not UTF-8 is not supported by sc-serve. "
		    "SQLSTATE: 0A000",
		    -1);
		return;
	}
	sc_eng_func_result_buf(ctx, &b);
}

/* Days 0001-01-01 .. 9999-12-31 since the epoch: the dates sc-serve keeps. */
#define DAY_MIN (-719162LL)
#define DAY_MAX 2932896LL

static void
out_of_range(sqlite3_context *ctx, const char *fn)
{
	sc_eng_func_fail(ctx,
	    "[UNSUPPORTED_FEATURE.EXPRESSION] %s() outside the years 1 to "
	    "9999 is not supported by sc-serve. SQLSTATE: 0A000",
	    fn);
}

/* date_from_unix_date(n): the date n days after 1970-01-01. */
static void
date_from_unix_date_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char out[SC_VALUE_TEXT_MAX];
	sqlite3_int64 d;

	if (any_null(argc, argv))
		return;
	d = sqlite3_value_int64(argv[0]);
	if (d < DAY_MIN || d > DAY_MAX) {
		out_of_range(ctx, "date_from_unix_date");
		return;
	}
	sc_value_fmt_date(d, out);
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/*
 * next_day(date, dow): the first date after date falling on dow, one
 * of SU, SUN, SUNDAY, MO, ... in any case; another dow fails as
 * Spark's ILLEGAL_DAY_OF_WEEK under ANSI mode, else gives NULL.
 */
static void
next_day_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	static const char *const dows[] = { "MONDAY", "TUESDAY", "WEDNESDAY",
		"THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY" };
	char out[SC_VALUE_TEXT_MAX], up[16];
	const char *s, *w;
	size_t n, wn, i;
	int32_t days;
	int dow, want = -1;

	if (any_null(argc, argv))
		return;
	w = (const char *)sqlite3_value_text(argv[1]);
	wn = (size_t)sqlite3_value_bytes(argv[1]);
	for (i = 0; i < wn; i++)
		if ((unsigned char)w[i] >= 0x80) {
			/* Java's upper case maps some of these to ASCII */
			sqlite3_result_error(ctx,
			    "[UNSUPPORTED_FEATURE.EXPRESSION] next_day() of a "
			    "day name that is not ASCII is not supported by "
			    "sc-serve. SQLSTATE: 0A000",
			    -1);
			return;
		}
	for (i = 0; i < wn && i + 1 < sizeof(up); i++)
		up[i] = (char)(w[i] >= 'a' && w[i] <= 'z' ? w[i] - 32 : w[i]);
	up[i] = '\0';
	for (i = 0; i < 7 && wn < sizeof(up); i++)
		if (strcmp(up, dows[i]) == 0 ||
		    ((wn == 2 || wn == 3) && strncmp(up, dows[i], wn) == 0))
			want = (int)i;
	if (want < 0) {
		if (sc_eng_ansi())
			sc_eng_func_fail(ctx,
			    "[ILLEGAL_DAY_OF_WEEK] Illegal input for day of "
			    "week: %s. SQLSTATE: 22009",
			    w);
		return;
	}
	s = (const char *)sqlite3_value_text(argv[0]);
	n = (size_t)sqlite3_value_bytes(argv[0]);
	if (sc_value_parse_date(s, n, &days) == -1) {
		if (sc_eng_ansi())
			sqlite3_result_error(ctx,
			    "[CAST_INVALID_INPUT] The value cannot be cast to "
			    "\"DATE\" because it is malformed. SQLSTATE: 22018",
			    -1);
		return;
	}
	/* 1970-01-01 was a Thursday (3 counting from Monday) */
	dow = (int)(((int64_t)days + 3) % 7 + 7) % 7;
	if ((int64_t)days + (want - dow + 6) % 7 + 1 > DAY_MAX) {
		out_of_range(ctx, "next_day");
		return;
	}
	sc_value_fmt_date((int64_t)days + (want - dow + 6) % 7 + 1, out);
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/*
 * sc_ts_from(n, unit): the instant n seconds (unit 1000000), millis
 * (1000) or micros (1) after the epoch; only whole numbers (a double
 * or decimal would need Spark's own rounding).
 */
static void
ts_from_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	static const char *const names[] = { "timestamp_micros",
		"timestamp_millis", "timestamp_seconds" };
	char out[SC_VALUE_TEXT_MAX];
	sqlite3_int64 v, unit;
	const char *fn;

	if (any_null(argc, argv))
		return;
	unit = sqlite3_value_int64(argv[1]);
	if (unit != 1 && unit != 1000 && unit != 1000000) {
		sc_eng_func_bad_args(ctx, "sc_ts_from");
		return;
	}
	fn = names[unit == 1 ? 0 : unit == 1000 ? 1 : 2];
	if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) {
		sc_eng_func_fail(ctx,
		    "[UNSUPPORTED_FEATURE.EXPRESSION] %s() of a fractional "
		    "number is not supported by sc-serve. SQLSTATE: 0A000",
		    fn);
		return;
	}
	v = sqlite3_value_int64(argv[0]);
	if (v < DAY_MIN * 86400000000LL / unit ||
	    v > (DAY_MAX + 1) * 86400000000LL / unit - 1) {
		out_of_range(ctx, fn);
		return;
	}
	sc_value_fmt_timestamp(v * unit, out);
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/*
 * sc_unix_us(ts, unit): TIMESTAMP ts (an instant, UTC text) as seconds
 * (unit 1000000), milliseconds (1000) or microseconds (1) since the
 * epoch, rounded down as Math.floorDiv.
 */
static void
unix_us_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_int64 unit, q;
	const char *s;
	int64_t us;

	if (any_null(argc, argv))
		return;
	s = (const char *)sqlite3_value_text(argv[0]);
	unit = sqlite3_value_int64(argv[1]);
	if (s == NULL || unit <= 0 ||
	    sc_value_parse_timestamp(s, (size_t)sqlite3_value_bytes(argv[0]),
		&us) == -1) {
		sqlite3_result_error(ctx,
		    "[INTERNAL_ERROR] unix_seconds() got no timestamp. "
		    "SQLSTATE: XX000",
		    -1);
		return;
	}
	q = us / unit;
	if (us % unit != 0 && us < 0)
		q--;
	sqlite3_result_int64(ctx, q);
}

/* A string or TIMESTAMP_NTZ given to unix_seconds() and its kin. */
static void
unix_refuse_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	if (any_null(argc, argv))
		return;
	sqlite3_result_error(ctx,
	    "[UNSUPPORTED_FEATURE.EXPRESSION] unix_seconds(), unix_millis() "
	    "and unix_micros() of anything but a TIMESTAMP or DATE are not "
	    "supported by sc-serve. SQLSTATE: 0A000",
	    -1);
}

int
sc_eng_func_str_register(sqlite3 *db)
{
	static const struct sc_efunc scalar[] = {
		{ "sc_split_part", 3, split_part_fn },
		{ "sc_find_in_set", 2, find_in_set_fn },
		{ "sc_levenshtein", 2, levenshtein_fn },
		{ "sc_levenshtein", 3, levenshtein_fn },
		{ "sc_soundex", 1, soundex_fn },
		{ "sc_url_encode", 1, url_encode_fn },
		{ "sc_url_decode", 1, url_decode_fn },
		{ "sc_date_from_unix_date", 1, date_from_unix_date_fn },
		{ "sc_ts_from", 2, ts_from_fn },
		{ "sc_next_day", 2, next_day_fn },
		{ "sc_overlay", 3, overlay_fn },
		{ "sc_overlay", 4, overlay_fn },
		{ "sc_regexp_count", 2, regexp_count_fn },
		{ "sc_unix_us", 2, unix_us_fn },
		{ "sc_unix_refuse", 1, unix_refuse_fn },
		{ "sc_regexp_substr", 2, regexp_substr_fn },
	};

	return sc_eng_func_add(db, scalar, SC_NELEM(scalar));
}

/* The registry's entries for the string functions (engine_fnreg.c). */
static const struct sc_efdef defs[] = {
	{ "like", F_LIKE, NULL, 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "startswith", F_STARTS, NULL, 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "endswith", F_ENDS, NULL, 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "contains", F_CONTAINS, NULL, 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "upper", F_SIMPLE, "upper", 1, 1, SC_ARROW_UTF8, .flags = 0,
	    .aliases = SC_EF_ALIASES("ucase") },
	{ "btrim", F_SIMPLE, "trim", 1, 2, SC_ARROW_UTF8, .flags = 0 },
	{ "split_part", F_TMPL, "sc_split_part($1, $2, $3)", 3, 3,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "find_in_set", F_TMPL, "sc_find_in_set($1, $2)", 2, 2, SC_ARROW_INT32,
	    .flags = 0 },
	{ "levenshtein", F_TMPL, "sc_levenshtein($*)", 2, 3, SC_ARROW_INT32,
	    .flags = 0 },
	{ "overlay", F_TMPL, "sc_overlay($*)", 3, 4, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "regexp_count", F_TMPL, "sc_regexp_count($1, $2)", 2, 2,
	    SC_ARROW_INT32, .flags = 0 },
	{ "regexp_substr", F_TMPL, "sc_regexp_substr($1, $2)", 2, 2,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "soundex", F_TMPL, "sc_soundex($1)", 1, 1, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "url_encode", F_TMPL, "sc_url_encode($1)", 1, 1, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "url_decode", F_TMPL, "sc_url_decode($1)", 1, 1, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "lower", F_SIMPLE, "lower", 1, 1, SC_ARROW_UTF8, .flags = 0,
	    .aliases = SC_EF_ALIASES("lcase") },
	{ "length", F_SIMPLE, "length", 1, 1, SC_ARROW_INT32, .flags = 0,
	    .aliases = SC_EF_ALIASES("char_length", "character_length") },
	{ "trim", F_SIMPLE, "trim", 1, 2, SC_ARROW_UTF8, .flags = 0 },
	{ "ltrim", F_SIMPLE, "ltrim", 1, 2, SC_ARROW_UTF8, .flags = 0 },
	{ "rtrim", F_SIMPLE, "rtrim", 1, 2, SC_ARROW_UTF8, .flags = 0 },
	{ "instr", F_SIMPLE, "instr", 2, 2, SC_ARROW_INT32, .flags = 0 },
	{ "replace", F_REPLACE, "replace", 2, 3, SC_ARROW_UTF8, .flags = 0 },
	{ "concat", F_CONCAT, NULL, 0, -1, SC_ARROW_UTF8, .flags = 0 },
	{ "substring", F_SUBSTR, NULL, 2, 3, R_ARG, .flags = 0,
	    .aliases = SC_EF_ALIASES("substr") },
	{ "lpad", F_TMPL, "sc_pad($1, $2, ' ', 1)", 2, 2, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "lpad", F_TMPL, "sc_pad($1, $2, $3, 1)", 3, 3, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "rpad", F_TMPL, "sc_pad($1, $2, ' ', 0)", 2, 2, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "rpad", F_TMPL, "sc_pad($1, $2, $3, 0)", 3, 3, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "initcap", F_TMPL, "sc_initcap($1)", 1, 1, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "concat_ws", F_TMPL, "sc_concat_ws($*)", 1, -1, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "left", F_TMPL,
	    "CASE WHEN $2 <= 0 THEN '' ELSE substr($1, 1, $2) END", 2, 2,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "right", F_TMPL,
	    "CASE WHEN $2 <= 0 THEN '' ELSE substr($1, -($2)) END", 2, 2,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "ascii", F_TMPL,
	    "CASE WHEN $1 IS NULL THEN NULL ELSE coalesce(unicode($1), 0) END",
	    1, 1, SC_ARROW_INT32, .flags = 0 },
	{ "repeat", F_TMPL, "sc_repeat($1, $2)", 2, 2, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "locate", F_TMPL, "instr($2, $1)", 2, 2, SC_ARROW_INT32, .flags = 0,
	    .aliases = SC_EF_ALIASES("position") },
	{ "crc32", F_TMPL, "sc_crc32($1)", 1, 1, SC_ARROW_INT64, .flags = 0 },
	{ "md5", F_TMPL, "sc_digest('md5', $1)", 1, 1, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "sha1", F_TMPL, "sc_digest('sha1', $1)", 1, 1, SC_ARROW_UTF8,
	    .flags = 0, .aliases = SC_EF_ALIASES("sha") },
	{ "sha2", F_TMPL, "sc_sha2($1, $2)", 2, 2, SC_ARROW_UTF8, .flags = 0 },
	{ "base64", F_TMPL, "sc_base64($1)", 1, 1, SC_ARROW_UTF8, .flags = 0 },
	{ "unbase64", F_TMPL, "sc_unbase64($1)", 1, 1, SC_ARROW_BINARY,
	    .flags = 0 },
	{ "translate", F_TMPL, "sc_translate($1, $2, $3)", 3, 3, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "substring_index", F_TMPL, "sc_substring_index($1, $2, $3)", 3, 3,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "rlike", F_TMPL, "sc_rlike($1, $2)", 2, 2, SC_ARROW_BOOL, .flags = 0,
	    .aliases = SC_EF_ALIASES("regexp", "regexp_like") },
	{ "regexp_replace", F_TMPL, "sc_regexp_replace($1, $2, $3)", 3, 3,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "regexp_extract", F_TMPL, "sc_regexp_extract($1, $2, 1)", 2, 2,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "regexp_extract", F_TMPL, "sc_regexp_extract($1, $2, $3)", 3, 3,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "get_json_object", F_TMPL,
	    "CASE WHEN NOT json_valid($1) THEN NULL ELSE CASE json_type($1, $2) "
	    "WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE "
	    "json_extract($1, $2) END END",
	    2, 2, SC_ARROW_UTF8, .flags = 0 },
	{ "octet_length", F_TMPL, "length(CAST($1 AS BLOB))", 1, 1,
	    SC_ARROW_INT32, .flags = 0 },
	{ "bit_length", F_TMPL, "length(CAST($1 AS BLOB)) * 8", 1, 1,
	    SC_ARROW_INT32, .flags = 0 },
	{ "format_number", F_TMPL, "sc_format_number($1, $2)", 2, 2,
	    SC_ARROW_UTF8, .flags = 0 },
};
const struct sc_effamily sc_eng_family_str = { "str", defs, SC_NELEM(defs) };
