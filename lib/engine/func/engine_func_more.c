/* SPDX-License-Identifier: MIT */

/*
 * engine_func_more.c: more of Spark's numeric functions (the F_MORE
 * entries of engine_expr.c's table): the hyperbolic and reciprocal
 * trigonometric functions, cbrt, log1p, expm1, hypot, rint, e(),
 * factorial, the try_ arithmetic that gives NULL for an overflow or a
 * zero divisor, and the bitwise functions with Java's int and long
 * semantics.  sc_eng_more_call() writes the SQL; the SQL functions it
 * calls are registered by sc_eng_func_more_register().
 */

#include "engine/plan/engine_expr_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

#define A(i) ((const char *)a[i].sql.data)

/* The double in v: sc_math()'s NaN travels as the text 'NaN'. */
static double
value_double(sqlite3_value *v)
{
	if (sqlite3_value_type(v) == SQLITE_TEXT &&
	    strcmp((const char *)sqlite3_value_text(v), "NaN") == 0)
		return NAN;
	return sqlite3_value_double(v);
}

static void
result_double(sqlite3_context *ctx, double r)
{
	if (isnan(r))
		sqlite3_result_text(ctx, "NaN", 3, SQLITE_STATIC);
	else
		sqlite3_result_double(ctx, r);
}

/*
 * The cube root rounded correctly, as Java's cbrt gives for exact cubes
 * (cbrt(27) is 3.0; the C library's may be one unit off): the neighbour
 * of the C library's answer whose half-way points bracket x.
 */
static double
cbrt_exact(double x)
{
	double r, ax = fabs(x);
	long double lo, hi;
	int i;

	if (ax == 0 || !isfinite(ax))
		return x;
	r = cbrt(ax);
	for (i = 0; i < 4; i++) {
		lo = ((long double)r + nextafter(r, 0)) / 2;
		hi = ((long double)r + nextafter(r, INFINITY)) / 2;
		if ((long double)ax < lo * lo * lo)
			r = nextafter(r, 0);
		else if ((long double)ax > hi * hi * hi)
			r = nextafter(r, INFINITY);
		else
			break;
	}
	return x < 0 ? -r : r;
}

/*
 * sc_fmath(op, x[, y]): Spark's formulas (acosh, asinh and atanh are
 * not the C library's but Spark's logarithms; log1p is NULL at or below
 * -1, as Spark's other logarithms).
 */
static void
fmath_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *op = (const char *)sqlite3_value_text(argv[0]);
	double x, y = 0, r;
	int i;

	for (i = 1; i < argc; i++)
		if (sqlite3_value_type(argv[i]) == SQLITE_NULL) {
			sqlite3_result_null(ctx);
			return;
		}
	if (op == NULL || argc < 2) {
		sqlite3_result_null(ctx);
		return;
	}
	x = value_double(argv[1]);
	if (argc > 2)
		y = value_double(argv[2]);
	if (strcmp(op, "cbrt") == 0)
		r = cbrt_exact(x);
	else if (strcmp(op, "cosh") == 0)
		r = cosh(x);
	else if (strcmp(op, "sinh") == 0)
		r = sinh(x);
	else if (strcmp(op, "tanh") == 0)
		r = tanh(x);
	else if (strcmp(op, "acosh") == 0)
		r = log(x + sqrt(x * x - 1.0));
	else if (strcmp(op, "asinh") == 0)
		r = isinf(x) && x < 0 ? x : log(x + sqrt(x * x + 1.0));
	else if (strcmp(op, "atanh") == 0)
		r = 0.5 * (log1p(x) - log1p(-x));
	else if (strcmp(op, "cot") == 0)
		r = 1.0 / tan(x);
	else if (strcmp(op, "csc") == 0)
		r = 1.0 / sin(x);
	else if (strcmp(op, "sec") == 0)
		r = 1.0 / cos(x);
	else if (strcmp(op, "log1p") == 0) {
		if (x <= -1.0) {
			sqlite3_result_null(ctx);
			return;
		}
		r = log1p(x);
	} else if (strcmp(op, "expm1") == 0)
		r = expm1(x);
	else if (strcmp(op, "hypot") == 0)
		r = hypot(x, y);
	else if (strcmp(op, "rint") == 0)
		r = rint(x);
	else {
		sc_eng_func_fail(ctx, "sc_fmath: unknown operation %s", op);
		return;
	}
	result_double(ctx, r);
}

/*
 * sc_factorial(n, ansi_overflow): n! for n in 0..20, else NULL.  A
 * bigint outside int's range is first cast to int as Spark does: an
 * error under ANSI mode, else Java's wrap-around.
 */
static void
factorial_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int64_t v, r = 1, i;
	char msg[320];

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	v = sqlite3_value_int64(argv[0]);
	if (v < INT32_MIN || v > INT32_MAX) {
		if (sc_eng_ansi()) {
			snprintf(msg, sizeof(msg),
			    "[CAST_OVERFLOW] The value %" PRId64 "L of the "
			    "type \"BIGINT\" cannot be cast to \"INT\" due to "
			    "an overflow. Use `try_cast` to tolerate overflow "
			    "and return NULL instead. If necessary set "
			    "\"spark.sql.ansi.enabled\" to \"false\" to bypass "
			    "this error. SQLSTATE: 22003",
			    v);
			sqlite3_result_error(ctx, msg, -1);
			return;
		}
		v = (int32_t)(uint32_t)(uint64_t)v;
	}
	if (v < 0 || v > 20) {
		sqlite3_result_null(ctx);
		return;
	}
	for (i = 2; i <= v; i++)
		r *= i;
	sqlite3_result_int64(ctx, r);
}

/* v as a signed integer of bits bits (Java's narrowing). */
static int64_t
wrap_bits(uint64_t v, int bits)
{
	switch (bits) {
	case 8:
		return (int8_t)(uint8_t)v;
	case 16:
		return (int16_t)(uint16_t)v;
	case 32:
		return (int32_t)(uint32_t)v;
	default:
		return (int64_t)v;
	}
}

/*
 * sc_shift(op, a, n, bits): Java's <<, >> and >>> on an int (bits 32)
 * or a long (64): the shift count taken modulo the width.
 */
static void
shift_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *op = (const char *)sqlite3_value_text(argv[0]);
	int bits = sqlite3_value_int(argv[3]);
	int64_t v, n;
	uint64_t u;

	(void)argc;
	if (op == NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[2]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	v = sqlite3_value_int64(argv[1]);
	n = sqlite3_value_int64(argv[2]) & (bits == 64 ? 63 : 31);
	u = bits == 64 ? (uint64_t)v : (uint64_t)(uint32_t)v;
	if (strcmp(op, "left") == 0)
		v = wrap_bits(u << n, bits);
	else if (strcmp(op, "right") == 0)
		/* arithmetic: the sign bit fills in */
		v = v < 0 ? (int64_t) ~(~(uint64_t)v >> n) : (int64_t)(u >> n);
	else
		v = wrap_bits(u >> n, bits);
	sqlite3_result_int64(ctx, v);
}

/* sc_bit_count(x): the one bits of x's long value (Long.bitCount). */
static void
bit_count_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	uint64_t u;
	int c = 0;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	for (u = (uint64_t)sqlite3_value_int64(argv[0]); u != 0; u &= u - 1)
		c++;
	sqlite3_result_int(ctx, c);
}

/*
 * sc_tryop(op, a, b, bits): + - * % on integers of bits bits (NULL on
 * overflow or a zero divisor), or on doubles when bits is 0 (% and /
 * NULL for a zero divisor, as Spark's).
 */
static void
tryop_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *op = (const char *)sqlite3_value_text(argv[0]);
	int bits = sqlite3_value_int(argv[3]);
	int64_t x, y, r = 0;
	double dx, dy;

	(void)argc;
	if (op == NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[2]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	if (bits == 0) {
		dx = value_double(argv[1]);
		dy = value_double(argv[2]);
		if ((*op == '%' || *op == '/') && dy == 0) {
			sqlite3_result_null(ctx);
			return;
		}
		result_double(ctx,
		    *op == '+'	     ? dx + dy
			: *op == '-' ? dx - dy
			: *op == '*' ? dx * dy
			: *op == '/' ? dx / dy
				     : fmod(dx, dy));
		return;
	}
	x = sqlite3_value_int64(argv[1]);
	y = sqlite3_value_int64(argv[2]);
	if (*op == '%') {
		if (y == 0) {
			sqlite3_result_null(ctx);
			return;
		}
		sqlite3_result_int64(ctx, y == -1 ? 0 : x % y);
		return;
	}
	if ((*op == '+' && __builtin_add_overflow(x, y, &r)) ||
	    (*op == '-' && __builtin_sub_overflow(x, y, &r)) ||
	    (*op == '*' && __builtin_mul_overflow(x, y, &r)) ||
	    wrap_bits((uint64_t)r, bits) != r) {
		sqlite3_result_null(ctx);
		return;
	}
	sqlite3_result_int64(ctx, r);
}

static int
int_bits(int t)
{
	return t == SC_ARROW_INT8 ? 8
	    : t == SC_ARROW_INT16 ? 16
	    : t == SC_ARROW_INT32 ? 32
				  : 64;
}

static int
refuse(const char *fname, const struct sc_efarg *a, struct sc_error *err)
{
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
	    "`%s` of %s is not supported by sc-serve: only numeric "
	    "operands are (integers only where the result is one).",
	    fname, (const char *)a->ei.name.data);
}

/* A NULL literal's type, or one not known. */
static bool
is_null_type(int t)
{
	return t == SC_ARROW_NULL;
}

/* --- aggregates ---------------------------------------------------- */

/*
 * sc_moment(x, order): skewness (3) and kurtosis (4) by Spark's
 * CentralMomentAgg update, row by row (Spark's answer for one
 * partition): NULL for no rows and where the second moment is 0.
 */
struct moment {
	double n, avg, m2, m3, m4;
	int order;
};

static void
moment_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct moment *m = sqlite3_aggregate_context(ctx, sizeof(*m));
	double x, n1, d, dn, d2, dn2, m2, m3;

	(void)argc;
	if (m == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	m->order = sqlite3_value_int(argv[1]);
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	x = value_double(argv[0]);
	n1 = m->n + 1.0;
	d = x - m->avg;
	dn = d / n1;
	m2 = m->m2 + d * (d - dn);
	d2 = d * d;
	dn2 = dn * dn;
	m3 = m->m3 - 3.0 * dn * m2 + d * (d2 - dn2);
	m->m4 =
	    m->m4 - 4.0 * dn * m3 - 6.0 * dn2 * m2 + d * (d * d2 - dn * dn2);
	m->m3 = m3;
	m->m2 = m2;
	m->avg += dn;
	m->n = n1;
}

static void
moment_final(sqlite3_context *ctx)
{
	struct moment *m = sqlite3_aggregate_context(ctx, 0);

	if (m == NULL || m->n == 0 || m->m2 == 0)
		return;
	if (m->order == 3)
		result_double(ctx,
		    sqrt(m->n) * m->m3 / sqrt(m->m2 * m->m2 * m->m2));
	else
		result_double(ctx, m->n * m->m4 / (m->m2 * m->m2) - 3.0);
}

/*
 * sc_fold(x, op): product ('*', of doubles), bit_and ('&'), bit_or
 * ('|'), bit_xor ('^'), try_sum of integers ('+', NULL once it
 * overflows a long) and of doubles ('s'), try_avg ('a', the double sum
 * over the count, as Spark's avg).  NULL without a non-NULL value.
 */
struct fold {
	int64_t n, i;
	double d;
	bool overflow;
	char op;
};

static void
fold_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct fold *f = sqlite3_aggregate_context(ctx, sizeof(*f));
	const unsigned char *op = sqlite3_value_text(argv[1]);
	int64_t v;
	double x;

	(void)argc;
	if (f == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL || op == NULL)
		return;
	f->op = (char)op[0];
	if (f->op == '*' || f->op == 's' || f->op == 'a') {
		x = value_double(argv[0]);
		f->d = f->n == 0 ? x : f->op == '*' ? f->d * x : f->d + x;
		f->n++;
		return;
	}
	v = sqlite3_value_int64(argv[0]);
	if (f->n++ == 0)
		f->i = v;
	else if (f->op == '&')
		f->i &= v;
	else if (f->op == '|')
		f->i |= v;
	else if (f->op == '^')
		f->i ^= v;
	else if (!f->overflow && __builtin_add_overflow(f->i, v, &f->i))
		f->overflow = true;
}

static void
fold_final(sqlite3_context *ctx)
{
	struct fold *f = sqlite3_aggregate_context(ctx, 0);

	if (f == NULL || f->n == 0 || f->overflow)
		return;
	if (f->op == 'a')
		result_double(ctx, f->d / (double)f->n);
	else if (f->op == '*' || f->op == 's')
		result_double(ctx, f->d);
	else
		sqlite3_result_int64(ctx, f->i);
}

static int
agg_call(const char *lname, struct sc_efarg *a, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_error *err)
{
	int t = a[0].ei.type.t;
	bool isint = sc_eng_is_int_type(t) || is_null_type(t);
	char op;

	if (!isint && t != SC_ARROW_DOUBLE && t != SC_ARROW_FLOAT &&
	    (t != SC_ETYPE_UNKNOWN || strncmp(lname, "bit_", 4) == 0 ||
		strcmp(lname, "try_sum") == 0))
		/* a type not known is fine where the answer is a double */
		return refuse(lname, &a[0], err);
	if (strcmp(lname, "skewness") == 0 || strcmp(lname, "kurtosis") == 0) {
		sc_buf_addf(sql, NULL, "sc_moment(%s, %d)", A(0),
		    lname[0] == 's' ? 3 : 4);
		sc_eng_set_type(ei, SC_ARROW_DOUBLE);
		return 0;
	}
	if (strncmp(lname, "bit_", 4) == 0) {
		if (!isint)
			return refuse(lname, &a[0], err);
		op = lname[4] == 'a' ? '&' : lname[4] == 'o' ? '|' : '^';
		sc_eng_set_type(ei, is_null_type(t) ? SC_ARROW_INT32 : t);
	} else if (strcmp(lname, "product") == 0) {
		op = '*';
		sc_eng_set_type(ei, SC_ARROW_DOUBLE);
	} else if (strcmp(lname, "try_avg") == 0) {
		op = 'a';
		sc_eng_set_type(ei, SC_ARROW_DOUBLE);
	} else {
		op = isint ? '+' : 's';
		sc_eng_set_type(ei, isint ? SC_ARROW_INT64 : SC_ARROW_DOUBLE);
	}
	sc_buf_addf(sql, NULL, "sc_fold(%s, '%c')", A(0), op);
	return 0;
}

static int
try_call(const char *lname, struct sc_efarg *a, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_error *err)
{
	int t0 = a[0].ei.type.t, t1 = a[1].ei.type.t, t, i;
	char op;

	for (i = 0; i < 2; i++) {
		t = a[i].ei.type.t;
		if (!sc_eng_is_int_type(t) && t != SC_ARROW_DOUBLE &&
		    !is_null_type(t))
			return refuse(lname, &a[i], err);
	}
	op = strcmp(lname, "try_add") == 0	 ? '+'
	    : strcmp(lname, "try_subtract") == 0 ? '-'
	    : strcmp(lname, "try_multiply") == 0 ? '*'
	    : strcmp(lname, "try_divide") == 0	 ? '/'
						 : '%';
	if (is_null_type(t0) && is_null_type(t1))
		t = op == '/' ? SC_ARROW_DOUBLE : SC_ARROW_NULL;
	else if (op == '/' || t0 == SC_ARROW_DOUBLE || t1 == SC_ARROW_DOUBLE)
		t = SC_ARROW_DOUBLE;
	else if (is_null_type(t0))
		t = t1;
	else if (is_null_type(t1))
		t = t0;
	else
		t = int_bits(t0) >= int_bits(t1) ? t0 : t1;
	sc_eng_set_type(ei, t);
	sc_buf_addf(sql, NULL, "sc_tryop('%c', %s, %s, %d)", op, A(0), A(1),
	    sc_eng_is_int_type(t) ? int_bits(t) : 0);
	return 0;
}

static int
bitwise_call(const char *lname, struct sc_efarg *a, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_error *err)
{
	int t = a[0].ei.type.t;

	if (strcmp(lname, "bit_count") == 0) {
		if (!sc_eng_is_int_type(t) && t != SC_ARROW_BOOL &&
		    !is_null_type(t))
			return refuse(lname, &a[0], err);
		sc_buf_addf(sql, NULL, "sc_bit_count(%s)", A(0));
		sc_eng_set_type(ei, SC_ARROW_INT32);
		return 0;
	}
	if (!sc_eng_is_int_type(t) && !is_null_type(t))
		return refuse(lname, &a[0], err);
	if (strcmp(lname, "bitwise_not") == 0) {
		/* ~ of a byte, short or int stays in its range */
		sc_buf_addf(sql, NULL, "(~%s)", A(0));
		sc_eng_set_type(ei, is_null_type(t) ? SC_ARROW_NULL : t);
		sc_buf_addf(&ei->name, NULL, "~%s",
		    (const char *)a[0].ei.name.data);
		return 0;
	}
	if (!sc_eng_is_int_type(a[1].ei.type.t) &&
	    !is_null_type(a[1].ei.type.t))
		return refuse(lname, &a[1], err);
	/* a byte or short is shifted as the int Spark casts it to */
	t = t == SC_ARROW_INT64 ? SC_ARROW_INT64 : SC_ARROW_INT32;
	sc_eng_set_type(ei, t);
	sc_buf_addf(sql, NULL, "sc_shift('%s', %s, %s, %d)",
	    strcmp(lname, "shiftleft") == 0	   ? "left"
		: strcmp(lname, "shiftright") == 0 ? "right"
						   : "unsigned",
	    A(0), A(1), int_bits(t));
	return 0;
}

int
sc_eng_more_call(const struct sc_efdef *fd, const char *lname,
    struct sc_efarg *a, size_t n, struct sc_buf *sql, struct sc_einfo *ei,
    struct sc_error *err)
{
	size_t i;
	int t;

	if (strcmp(lname, "skewness") == 0 || strcmp(lname, "kurtosis") == 0 ||
	    strcmp(lname, "product") == 0 || strcmp(lname, "bit_and") == 0 ||
	    strcmp(lname, "bit_or") == 0 || strcmp(lname, "bit_xor") == 0 ||
	    strcmp(lname, "try_sum") == 0 || strcmp(lname, "try_avg") == 0)
		return agg_call(lname, a, sql, ei, err);
	if (strncmp(lname, "try_", 4) == 0)
		return try_call(lname, a, sql, ei, err);
	if (strncmp(lname, "bit", 3) == 0 || strncmp(lname, "shift", 5) == 0)
		return bitwise_call(lname, a, sql, ei, err);
	if (strcmp(lname, "factorial") == 0) {
		t = a[0].ei.type.t;
		if (!sc_eng_is_int_type(t) && !is_null_type(t) &&
		    t != SC_ETYPE_UNKNOWN)
			return refuse(lname, &a[0], err);
		sc_buf_addf(sql, NULL, "sc_factorial(%s)", A(0));
		return 0;
	}
	/* Spark's cast of a string to double is not sc_fmath's */
	for (i = 0; i < n; i++) {
		t = a[i].ei.type.t;
		if (!sc_eng_is_int_type(t) && !is_null_type(t) &&
		    t != SC_ETYPE_UNKNOWN && t != SC_ARROW_FLOAT &&
		    t != SC_ARROW_DOUBLE && t != SC_ARROW_DECIMAL128)
			return refuse(lname, &a[i], err);
	}
	if (strcmp(lname, "e") == 0) {
		sc_buf_addstr(sql, "2.718281828459045", NULL);
		ei->nullable = 0;
	} else
		sc_buf_addf(sql, NULL, "sc_fmath('%s', %s%s%s)", lname, A(0),
		    n == 2 ? ", " : "", n == 2 ? A(1) : "");
	/* Spark names these by its upper-case name: COSH(x), E() */
	sc_buf_addf(&ei->name, NULL, "%s(", fd->sql);
	sc_eng_args_list(&ei->name, a, 0, n, true);
	sc_buf_addch(&ei->name, ')', NULL);
	return 0;
}

int
sc_eng_func_more_register(sqlite3 *db)
{
	static const struct sc_efunc scalar[] = {
		{ "sc_fmath", 2, fmath_fn },
		{ "sc_fmath", 3, fmath_fn },
		{ "sc_factorial", 1, factorial_fn },
		{ "sc_shift", 4, shift_fn },
		{ "sc_bit_count", 1, bit_count_fn },
		{ "sc_tryop", 4, tryop_fn },
	};

	int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
	int rc = sc_eng_func_add(db, scalar, SC_NELEM(scalar));

	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_moment", 2, flags, NULL,
		    NULL, moment_step, moment_final, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_fold", 2, flags, NULL,
		    NULL, fold_step, fold_final, NULL);
	return rc;
}

/* The registry's entries for the functions of engine_func_more.c (engine_fnreg.c). */
static const struct sc_efdef defs[] = {
	{ "cbrt", F_MORE, "CBRT", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "cosh", F_MORE, "COSH", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "sinh", F_MORE, "SINH", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "tanh", F_MORE, "TANH", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "acosh", F_MORE, "ACOSH", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "asinh", F_MORE, "ASINH", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "atanh", F_MORE, "ATANH", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "cot", F_MORE, "COT", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "csc", F_MORE, "CSC", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "sec", F_MORE, "SEC", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "log1p", F_MORE, "LOG1P", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "expm1", F_MORE, "EXPM1", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "hypot", F_MORE, "HYPOT", 2, 2, SC_ARROW_DOUBLE, .flags = 0 },
	{ "rint", F_MORE, "rint", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "e", F_MORE, "E", 0, 0, SC_ARROW_DOUBLE, .flags = 0 },
	{ "factorial", F_MORE, "factorial", 1, 1, SC_ARROW_INT64, .flags = 0 },
	{ "try_add", F_MORE, "try_add", 2, 2, R_UNK, .flags = 0 },
	{ "try_subtract", F_MORE, "try_subtract", 2, 2, R_UNK, .flags = 0 },
	{ "try_multiply", F_MORE, "try_multiply", 2, 2, R_UNK, .flags = 0 },
	{ "try_divide", F_MORE, "try_divide", 2, 2, SC_ARROW_DOUBLE,
	    .flags = 0 },
	{ "try_mod", F_MORE, "try_mod", 2, 2, R_UNK, .flags = 0 },
	{ "bit_count", F_MORE, "bit_count", 1, 1, SC_ARROW_INT32, .flags = 0 },
	{ "shiftleft", F_MORE, "shiftleft", 2, 2, R_UNK, .flags = 0 },
	{ "shiftright", F_MORE, "shiftright", 2, 2, R_UNK, .flags = 0 },
	{ "shiftrightunsigned", F_MORE, "shiftrightunsigned", 2, 2, R_UNK,
	    .flags = 0 },
	{ "bitwise_not", F_MORE, "bitwise_not", 1, 1, R_ARG, .flags = 0 },
	{ "skewness", F_MORE, "skewness", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "kurtosis", F_MORE, "kurtosis", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "product", F_MORE, "product", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "bit_and", F_MORE, "bit_and", 1, 1, R_UNK,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "bit_or", F_MORE, "bit_or", 1, 1, R_UNK,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "bit_xor", F_MORE, "bit_xor", 1, 1, R_UNK,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "try_sum", F_MORE, "try_sum", 1, 1, R_UNK,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "try_avg", F_MORE, "try_avg", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
};
const struct sc_effamily sc_eng_family_more = { "more", defs, SC_NELEM(defs) };
