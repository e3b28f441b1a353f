/* SPDX-License-Identifier: MIT */

/*
 * engine_func_num.c: numeric functions SQLite lacks, with Spark's
 * semantics: format_number (HALF_EVEN), arithmetic with and without
 * ANSI mode (division by zero, integer overflow), round/bround, and the math
 * functions whose result may be NaN.
 */

#include "engine/plan/engine_expr_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/value.h"
#include "core/xmem.h"
#include "core/banned.h"

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
	sc_eng_func_result_buf(ctx, &out);
}

/* ---- arithmetic under ANSI mode and without it ------------------ */

bool
sc_eng_ansi(void)
{
	const struct sc_erun *r = sc_eng_current_run();

	return r == NULL || r->mode.ansi;
}

#define DIV0_MSG                                                           \
	"[DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate " \
	"divisor being 0 and return NULL instead. SQLSTATE: 22012"

/*
 * sc_div0(x): x itself, a divisor; zero fails as Spark's "/" and "%"
 * under ANSI mode, and is NULL (so is the quotient) without it.
 */
static void
div0_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_value *x = argv[0];
	bool zero = false;

	(void)argc;
	switch (sqlite3_value_numeric_type(x)) {
	case SQLITE_INTEGER:
		zero = sqlite3_value_int64(x) == 0;
		break;
	case SQLITE_FLOAT:
		zero = sqlite3_value_double(x) == 0;
		break;
	default:
		break;
	}
	if (zero && sc_eng_ansi())
		sqlite3_result_error(ctx, DIV0_MSG, -1);
	else if (zero)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_value(ctx, x);
}

static const char *
int_name(int bits)
{
	return bits == 8 ? "tinyint"
	    : bits == 16 ? "smallint"
	    : bits == 32 ? "integer"
			 : "long";
}

/* v as a signed integer of that many bits, wrapped as Java's casts. */
static int64_t
wrap_bits(int64_t v, int bits)
{
	switch (bits) {
	case 8:
		return (int8_t)(uint8_t)((uint64_t)v & 0xff);
	case 16:
		return (int16_t)(uint16_t)((uint64_t)v & 0xffff);
	case 32:
		return (int32_t)(uint32_t)((uint64_t)v & 0xffffffff);
	default:
		return v;
	}
}

static void
overflow(sqlite3_context *ctx, int bits, const char *try_fn)
{
	char msg[256];

	if (try_fn != NULL)
		snprintf(msg, sizeof(msg),
		    "[ARITHMETIC_OVERFLOW] %s overflow. Use '%s' to "
		    "tolerate overflow and return NULL instead. SQLSTATE: 22003",
		    int_name(bits), try_fn);
	else
		snprintf(msg, sizeof(msg),
		    "[ARITHMETIC_OVERFLOW] %s overflow. If necessary set "
		    "\"spark.sql.ansi.enabled\" to \"false\" to bypass this "
		    "error. SQLSTATE: 22003",
		    int_name(bits));
	sqlite3_result_error(ctx, msg, -1);
}

/*
 * Spark's div of a by b (IntegralDivide: the operands as longs, the
 * quotient truncated towards zero, a long).
 */
static void
int_div(sqlite3_context *ctx, sqlite3_value *a, sqlite3_value *b)
{
	int64_t x, y;
	double q;

	if (sqlite3_value_numeric_type(a) != SQLITE_INTEGER ||
	    sqlite3_value_numeric_type(b) != SQLITE_INTEGER) {
		/* Not integers: the double quotient truncated, as before. */
		if (sqlite3_value_double(b) == 0) {
			if (sc_eng_ansi())
				sqlite3_result_error(ctx, DIV0_MSG, -1);
			return;
		}
		q = trunc(sqlite3_value_double(a) / sqlite3_value_double(b));
		if (isnan(q))
			return;
		/* SQLite's CAST of a real to INTEGER saturates. */
		sqlite3_result_int64(ctx,
		    q >= 9223372036854775808.0	     ? INT64_MAX
			: q < -9223372036854775808.0 ? INT64_MIN
						     : (int64_t)q);
		return;
	}
	x = sqlite3_value_int64(a);
	y = sqlite3_value_int64(b);
	if (y == 0) {
		if (sc_eng_ansi())
			sqlite3_result_error(ctx, DIV0_MSG, -1);
		return;
	}
	if (x == INT64_MIN && y == -1) {
		if (sc_eng_ansi())
			sqlite3_result_error(ctx,
			    "[ARITHMETIC_OVERFLOW] Overflow in integral "
			    "divide. Use 'try_divide' to tolerate overflow and "
			    "return NULL instead. If necessary set "
			    "\"spark.sql.ansi.enabled\" to \"false\" to bypass "
			    "this error. SQLSTATE: 22003",
			    -1);
		else
			sqlite3_result_int64(ctx, INT64_MIN); /* Java's */
		return;
	}
	sqlite3_result_int64(ctx, x / y);
}

/*
 * sc_intop(x, 'op', y, bits): x op y (op +, - or *) in integers of that
 * many bits: an overflow fails under ANSI mode (ARITHMETIC_OVERFLOW, as
 * Spark's exact arithmetic) and wraps in two's complement without it
 * (as Java's int and long arithmetic).  sc_intop(0, 'neg', y, bits) is
 * Spark's unary minus, sc_intop(0, 'abs', y, bits) its abs().
 * sc_intop(x, 'div', y, 64) is Spark's integral division (div) of
 * longs: the quotient truncated; the smallest long div -1 overflows
 * (ARITHMETIC_OVERFLOW under ANSI mode, itself without, as Java's);
 * a zero divisor fails under ANSI mode and is NULL without.  Other
 * operators and widths are refused.
 */
static void
intop_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *op = (const char *)sqlite3_value_text(argv[1]);
	int bits = sqlite3_value_int(argv[3]);
	int64_t x, y, r, lim;
	uint64_t ur;
	bool over;
	const char *try_fn;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[2]) == SQLITE_NULL || op == NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	if ((bits != 8 && bits != 16 && bits != 32 && bits != 64) ||
	    (strcmp(op, "+") != 0 && strcmp(op, "-") != 0 &&
		strcmp(op, "*") != 0 && strcmp(op, "neg") != 0 &&
		strcmp(op, "abs") != 0 && strcmp(op, "div") != 0)) {
		sc_eng_func_bad_args(ctx, "sc_intop");
		return;
	}
	if (op[0] == 'd') {
		int_div(ctx, argv[0], argv[2]);
		return;
	}
	if (sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER ||
	    sqlite3_value_numeric_type(argv[2]) != SQLITE_INTEGER) {
		/* Not integers after all: SQLite's arithmetic, as before. */
		double a = sqlite3_value_double(argv[0]);
		double b = sqlite3_value_double(argv[2]);

		sqlite3_result_double(ctx,
		    op[0] == '+'       ? a + b
			: op[0] == '*' ? a * b
			: op[0] == 'n' ? -b
			: op[0] == 'a' ? fabs(b)
				       : a - b);
		return;
	}
	x = sqlite3_value_int64(argv[0]);
	y = sqlite3_value_int64(argv[2]);
	if (op[0] == 'a' && y >= 0) {
		sqlite3_result_int64(ctx, y);
		return;
	}
	switch (op[0]) {
	case '+':
		over = __builtin_add_overflow(x, y, &r);
		ur = (uint64_t)x + (uint64_t)y;
		try_fn = "try_add";
		break;
	case '*':
		over = __builtin_mul_overflow(x, y, &r);
		ur = (uint64_t)x * (uint64_t)y;
		try_fn = "try_multiply";
		break;
	case 'a':
	case 'n':
		x = 0;
		/* FALLTHROUGH */
	default:
		over = __builtin_sub_overflow(x, y, &r);
		ur = (uint64_t)x - (uint64_t)y;
		try_fn = op[0] == 'a' || op[0] == 'n' ? NULL : "try_subtract";
		break;
	}
	if (!over && bits < 64) {
		lim = ((int64_t)1 << (bits - 1)) - 1;
		over = r > lim || r < -lim - 1;
	}
	if (!over) {
		sqlite3_result_int64(ctx, r);
		return;
	}
	if (sc_eng_ansi()) {
		overflow(ctx, bits, try_fn);
		return;
	}
	sqlite3_result_int64(ctx, wrap_bits((int64_t)ur, bits));
}

/*
 * sc_pmod(a, n): Spark's pmod: r = a % n, and (r + n) % n when r is
 * negative, in longs (Java's wrapping addition) or in doubles.  A zero
 * n is DIVIDE_BY_ZERO under ANSI mode, NULL without (sc_div0 sees to it
 * first in the engine's SQL).
 */
static void
pmod_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int64_t a, n, r;
	double x, y, d;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	if (sqlite3_value_numeric_type(argv[0]) == SQLITE_INTEGER &&
	    sqlite3_value_numeric_type(argv[1]) == SQLITE_INTEGER) {
		a = sqlite3_value_int64(argv[0]);
		n = sqlite3_value_int64(argv[1]);
		if (n == 0) {
			if (sc_eng_ansi())
				sqlite3_result_error(ctx, DIV0_MSG, -1);
			return;
		}
		r = n == -1 ? 0 : a % n;
		if (r < 0) {
			r = (int64_t)((uint64_t)r + (uint64_t)n);
			r = n == -1 ? 0 : r % n;
		}
		sqlite3_result_int64(ctx, r);
		return;
	}
	x = sqlite3_value_double(argv[0]);
	y = sqlite3_value_double(argv[1]);
	if (y == 0) {
		if (sc_eng_ansi())
			sqlite3_result_error(ctx, DIV0_MSG, -1);
		return;
	}
	d = fmod(x, y);
	if (d < 0)
		d = fmod(d + y, y);
	sqlite3_result_double(ctx, d);
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

int
sc_eng_func_num_register(sqlite3 *db)
{
	static const struct sc_efunc scalar[] = {
		{ "sc_format_number", 2, format_number_fn },
		{ "sc_format_number", 3, format_number_fn },
		{ "sc_div0", 1, div0_fn },
		{ "sc_pmod", 2, pmod_fn },
		{ "sc_intop", 4, intop_fn },
		{ "sc_math", 2, math_fn },
		{ "sc_math", 3, math_fn },
	};
	int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
	int rc = sc_eng_func_add(db, scalar, SC_NELEM(scalar));

	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_round", 2, flags, NULL,
		    bround_fn, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_bround", 2, flags,
		    (void *)"even", bround_fn, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sc_eng_func_format_register(db);
	return rc;
}

/* The registry's entries for the number functions (engine_fnreg.c). */
static const struct sc_efdef defs[] = {
	{ "/", F_DIV, "/", 2, 2, SC_ARROW_DOUBLE, .flags = 0 },
	{ "sqrt", F_MATH, "SQRT", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "exp", F_SIMPLE, "exp", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "ln", F_SIMPLE, "ln", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "log10", F_SIMPLE, "log10", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "log2", F_SIMPLE, "log2", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "log", F_LOG, "log", 1, 2, SC_ARROW_DOUBLE, .flags = 0 },
	{ "sin", F_SIMPLE, "sin", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "cos", F_SIMPLE, "cos", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "tan", F_SIMPLE, "tan", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "asin", F_MATH, "ASIN", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "acos", F_MATH, "ACOS", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "atan", F_SIMPLE, "atan", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "atan2", F_SIMPLE, "atan2", 2, 2, SC_ARROW_DOUBLE, .flags = 0 },
	{ "degrees", F_SIMPLE, "degrees", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "radians", F_SIMPLE, "radians", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "pi", F_SIMPLE, "pi", 0, 0, SC_ARROW_DOUBLE, .flags = 0 },
	{ "sign", F_SIMPLE, "sign", 1, 1, SC_ARROW_DOUBLE, .flags = 0,
	    .aliases = SC_EF_ALIASES("signum") },
	{ "pow", F_MATH, "POWER", 2, 2, SC_ARROW_DOUBLE, .flags = 0,
	    .aliases = SC_EF_ALIASES("power") },
	{ "floor", F_FLOORCEIL, "floor", 1, 1, SC_ARROW_INT64, .flags = 0 },
	{ "ceil", F_FLOORCEIL, "ceil", 1, 1, SC_ARROW_INT64, .flags = 0,
	    .aliases = SC_EF_ALIASES("ceiling") },
	{ "round", F_ROUND, "sc_round", 1, 2, R_UNK, .flags = 0 },
	{ "bround", F_ROUND, "sc_bround", 1, 2, R_UNK, .flags = 0 },
	{ "div", F_IDIV, NULL, 2, 2, SC_ARROW_INT64, .flags = 0 },
	{ "rand", F_RAND, NULL, 0, 1, SC_ARROW_DOUBLE, .flags = SC_EF_NONDET,
	    .aliases = SC_EF_ALIASES("random") },
	{ "randn", F_RAND, NULL, 0, 1, SC_ARROW_DOUBLE, .flags = SC_EF_NONDET },
	{ "isnan", F_TMPL, "sc_isnan($1)", 1, 1, SC_ARROW_BOOL, .flags = 0 },
	{ "width_bucket", F_TMPL, "sc_width_bucket($1, $2, $3, $4)", 4, 4,
	    SC_ARROW_INT64, .flags = 0 },
	{ "nanvl", F_TMPL, "(CASE WHEN sc_isnan($1) THEN $2 ELSE $1 END)", 2, 2,
	    SC_ARROW_DOUBLE, .flags = 0 },
	{ "pmod", F_TMPL, "sc_pmod($1, sc_div0($2))", 2, 2, R_UNK, .flags = 0 },
	{ "positive", F_TMPL, "(+$1)", 1, 1, R_ARG, .flags = 0 },
};
const struct sc_effamily sc_eng_family_num = { "num", defs, SC_NELEM(defs) };
