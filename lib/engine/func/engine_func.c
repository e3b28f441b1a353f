/* SPDX-License-Identifier: MIT */

/*
 * engine_func.c: SQL functions SQLite lacks, with Spark's semantics, for
 * the function table of engine_expr.c: lpad/rpad, initcap, reverse and
 * concat_ws, translate and substring_index on UTF-8 characters, crc32,
 * digests, base64 and Spark's hash(), isnan, width_bucket; and the
 * registration of all of them, those of engine_func_datetime.c,
 * engine_regex.c, engine_func_num.c and engine_func_agg.c too.
 */

#include "engine/engine_int.h"

#include <math.h>
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

void
sc_eng_func_result_buf(sqlite3_context *ctx, struct sc_buf *b)
{
	if (b->failed)
		sqlite3_result_error_nomem(ctx);
	else
		sqlite3_result_text64(ctx, (const char *)b->data, b->len,
		    SQLITE_TRANSIENT, SQLITE_UTF8);
	sc_buf_release(b);
}

void
sc_eng_func_fail(sqlite3_context *ctx, const char *fmt, const char *arg)
{
	char *m = sqlite3_mprintf(fmt, arg);

	sqlite3_result_error(ctx, m != NULL ? m : "error", -1);
	sqlite3_free(m);
}

void
sc_eng_func_bad_args(sqlite3_context *ctx, const char *fn)
{
	sc_eng_func_fail(ctx,
	    "[INTERNAL_ERROR] %s() was given arguments sc-serve never gives "
	    "it. SQLSTATE: XX000",
	    fn);
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
		sc_eng_func_result_buf(ctx, &b);
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
	sc_eng_func_result_buf(ctx, &b);
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
	sc_eng_func_result_buf(ctx, &b);
}

/*
 * repeat(s, n): s n times; '' for n <= 0.  A result over the value limit
 * is SQLite's "too big" error (EXCEED_LIMIT_LENGTH), never the NULL that
 * printf('%.*c') gives past it.
 */
static void
repeat_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *s;
	sqlite3_int64 n, i, limit;
	struct sc_buf b;
	size_t sn;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	s = sqlite3_value_text(argv[0]);
	sn = (size_t)sqlite3_value_bytes(argv[0]);
	n = sqlite3_value_int64(argv[1]);
	if (s == NULL)
		return;
	if (n <= 0 || sn == 0) {
		sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
		return;
	}
	limit = sqlite3_limit(sqlite3_context_db_handle(ctx),
	    SQLITE_LIMIT_LENGTH, -1);
	if (n > limit / (sqlite3_int64)sn) {
		sqlite3_result_error_toobig(ctx);
		return;
	}
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	for (i = 0; i < n; i++)
		sc_buf_add(&b, s, sn, NULL);
	sc_eng_func_result_buf(ctx, &b);
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
	sc_eng_func_result_buf(ctx, &b);
}

/* concat_ws(sep, ...): the non-null arguments joined by sep. */
static void
concat_ws_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct sc_buf b;
	const unsigned char *sep, *s;
	int i;
	bool first = true;

	if (argc < 1) {
		sc_eng_func_bad_args(ctx, "sc_concat_ws");
		return;
	}
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
	sc_eng_func_result_buf(ctx, &b);
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
	const char *tags;
	int32_t h = 42;
	int i;
	double d;
	float f;
	int32_t fi;
	int64_t li;
	const void *p;

	if (argc < 1) {
		sc_eng_func_bad_args(ctx, "sc_hash");
		return;
	}
	tags = (const char *)sqlite3_value_text(argv[0]);
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
			if (memcmp(s + i, d, nd) == 0 &&
			    ++seen ==
				(count == INT64_MIN ? INT64_MAX : -count)) {
				sqlite3_result_text(ctx, s + i + nd,
				    (int)(ns - i - nd), SQLITE_TRANSIENT);
				return;
			}
	}
	sqlite3_result_text(ctx, s, (int)ns, SQLITE_TRANSIENT);
}

/*
 * Java's (long) of a double, plus one as Java's long addition: NaN is 0
 * and out of range saturates (hi - lo is infinite for bounds near the
 * largest doubles, and Spark's bucket is then 1).
 */
static int64_t
java_long_plus1(double d)
{
	int64_t v;

	if (isnan(d))
		v = 0;
	else if (d >= 9223372036854775808.0)
		v = INT64_MAX;
	else if (d < -9223372036854775808.0)
		v = INT64_MIN;
	else
		v = (int64_t)d;
	return (int64_t)((uint64_t)v + 1);
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
			    java_long_plus1((double)nb * (v - lo) / (hi - lo)));
	} else {
		if (v > hi)
			sqlite3_result_int64(ctx, 0);
		else if (v <= lo)
			sqlite3_result_int64(ctx, nb + 1);
		else
			sqlite3_result_int64(ctx,
			    java_long_plus1((double)nb * (hi - v) / (hi - lo)));
	}
}

int
sc_eng_func_add(sqlite3 *db, const struct sc_efunc *v, size_t n)
{
	int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC, rc = SQLITE_OK;
	size_t i;

	for (i = 0; rc == SQLITE_OK && i < n; i++)
		rc = sqlite3_create_function_v2(db, v[i].name, v[i].nargs,
		    flags, NULL, v[i].fn, NULL, NULL, NULL);
	return rc;
}

int
sc_eng_func_register(sqlite3 *db)
{
	static const struct sc_efunc scalar[] = {
		{ "sc_pad", 4, pad_fn },
		{ "sc_initcap", 1, initcap_fn },
		{ "sc_reverse", 1, reverse_fn },
		{ "sc_repeat", 2, repeat_fn },
		{ "sc_concat_ws", -1, concat_ws_fn },
		{ "sc_crc32", 1, crc32_fn },
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
	int rc = sc_eng_func_add(db, scalar, SC_NELEM(scalar));

	if (rc == SQLITE_OK)
		rc = sc_eng_func_datetime_register(db);
	if (rc == SQLITE_OK)
		rc = sc_eng_regex_register(db);
	if (rc == SQLITE_OK)
		rc = sc_eng_func_num_register(db);
	if (rc == SQLITE_OK)
		rc = sc_eng_func_agg_register(db);
	if (rc == SQLITE_OK)
		rc = sc_eng_func_rand_register(db);
	if (rc == SQLITE_OK)
		rc = sc_eng_sample_register(db);
	if (rc == SQLITE_OK)
		rc = sc_eng_interval_register(db);
	if (rc == SQLITE_OK)
		rc = sc_eng_func_more_register(db);
	if (rc == SQLITE_OK)
		rc = sc_eng_func_str_register(db);
	return rc;
}
