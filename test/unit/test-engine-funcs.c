/* SPDX-License-Identifier: MIT */

/*
 * test-engine-funcs.c: every SQL function the engine registers in SQLite
 * (sc_eng_register_functions(), listed back by pragma_function_list) is
 * called with every argument count from 0 to its own count + 2 (variadic
 * ones: 0 to 10), with NULL, integers at their limits, reals, text (JSON,
 * format strings, invalid UTF-8, long) and blobs.  Each call must end in
 * a value or an error, never a crash; make SANITIZE=... check runs this
 * under ASan and UBSan, where reading past argc or a trapping division
 * fails it.  Then the values a few of them must give for hostile
 * arguments.
 */

#include "engine/engine_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

/* The arguments of the calls; bound by kind. */
enum kind { K_NULL, K_INT, K_REAL, K_TEXT, K_BLOB };
struct arg {
	enum kind kind;
	int64_t i;
	double r;
	const char *s;
	int n; /* bytes of s, -1: strlen */
};

static char long_text[5001];

static const struct arg args[] = {
	{ K_NULL, 0, 0, NULL, 0 },
	{ K_INT, 0, 0, NULL, 0 },
	{ K_INT, 1, 0, NULL, 0 },
	{ K_INT, -1, 0, NULL, 0 },
	{ K_INT, 2, 0, NULL, 0 },
	{ K_INT, 3, 0, NULL, 0 },
	{ K_INT, 4, 0, NULL, 0 },
	{ K_INT, 99, 0, NULL, 0 },
	{ K_INT, -2, 0, NULL, 0 },
	{ K_INT, INT64_MIN, 0, NULL, 0 },
	{ K_INT, INT64_MAX, 0, NULL, 0 },
	{ K_INT, INT32_MIN, 0, NULL, 0 },
	{ K_INT, INT32_MAX, 0, NULL, 0 },
	{ K_INT, 1000000000000000000, 0, NULL, 0 },
	{ K_REAL, 0, 1e308, NULL, 0 },
	{ K_REAL, 0, -1e308, NULL, 0 },
	{ K_REAL, 0, -0.5, NULL, 0 },
	{ K_REAL, 0, 2.5, NULL, 0 },
	{ K_REAL, 0, 9.3e18, NULL, 0 },
	{ K_TEXT, 0, 0, "", -1 },
	{ K_TEXT, 0, 0, "abc", -1 },
	{ K_TEXT, 0, 0, "NaN", -1 },
	{ K_TEXT, 0, 0, "-Infinity", -1 },
	{ K_TEXT, 0, 0, "[1,2,3]", -1 },
	{ K_TEXT, 0, 0, "[[1,2],[3,null]]", -1 },
	{ K_TEXT, 0, 0, "{\"a\":1}", -1 },
	{ K_TEXT, 0, 0, "[", -1 },
	{ K_TEXT, 0, 0, "%s%d%n%999999999d%1$s%<s%-0+#,(x", -1 },
	{ K_TEXT, 0, 0, "yyyy-MM-dd HH:mm:ss.SSS VV", -1 },
	{ K_TEXT, 0, 0, "2024-02-29 23:59:59.999999", -1 },
	{ K_TEXT, 0, 0, "UTC", -1 },
	{ K_TEXT, 0, 0, "America/New_York", -1 },
	{ K_TEXT, 0, 0, "+", -1 },
	{ K_TEXT, 0, 0, "day", -1 },
	{ K_TEXT, 0, 0, "(a|b)*[", -1 },
	{ K_TEXT, 0, 0, "\xff\xfe\xc3", -1 },
	{ K_TEXT, 0, 0, "a\0b", 3 },
	{ K_TEXT, 0, 0, long_text, -1 },
	{ K_BLOB, 0, 0, "\x00\xff", 2 },
	{ K_BLOB, 0, 0, "", 0 },
};
#define NARGS (sizeof(args) / sizeof(args[0]))

/* Argument counts tried for a variadic function: 0 to VARIADIC_MAX. */
#define VARIADIC_MAX 10
/* Random argument lists per function and count. */
#define RANDOM_CALLS 60

struct func {
	char *name;
	char type; /* s, a, w */
	int narg;
};

static uint64_t seed = 88172645463325252ULL;

static unsigned
next_rand(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (unsigned)(seed >> 11);
}

static void
bind_arg(sqlite3_stmt *st, int i, const struct arg *a)
{
	switch (a->kind) {
	case K_NULL:
		sqlite3_bind_null(st, i);
		break;
	case K_INT:
		sqlite3_bind_int64(st, i, a->i);
		break;
	case K_REAL:
		sqlite3_bind_double(st, i, a->r);
		break;
	case K_TEXT:
		sqlite3_bind_text(st, i, a->s, a->n, SQLITE_STATIC);
		break;
	case K_BLOB:
		sqlite3_bind_blob(st, i, a->s, a->n, SQLITE_STATIC);
		break;
	}
}

/* SELECT f(?1, ..., ?k) over two rows (so aggregates step twice). */
static sqlite3_stmt *
prepare_call(sqlite3 *db, const struct func *f, int k)
{
	sqlite3_stmt *st = NULL;
	struct sc_buf b;
	int i;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_buf_addf(&b, NULL, "SELECT %s(", f->name);
	for (i = 0; i < k; i++)
		sc_buf_addf(&b, NULL, "%s?%d", i > 0 ? ", " : "", i + 1);
	sc_buf_addf(&b, NULL, ")%s FROM (SELECT 1 UNION ALL SELECT 2)",
	    f->type == 'w' ? " OVER ()" : "");
	if (sqlite3_prepare_v2(db, (const char *)b.data, -1, &st, NULL) !=
	    SQLITE_OK) {
		sqlite3_finalize(st);
		st = NULL;
	}
	sc_buf_release(&b);
	return st;
}

/* Run st with the arguments pick[0..k); SQLite's last result code. */
static int
call(sqlite3_stmt *st, const int *pick, int k)
{
	int i, rc;

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	for (i = 0; i < k; i++)
		bind_arg(st, i + 1, &args[pick[i]]);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		(void)sqlite3_column_text(st, 0);
	return rc;
}

/* Every call of f with k arguments; the number of calls made. */
static long
calls_of(sqlite3 *db, const struct func *f, int k, long *refused)
{
	int pick[VARIADIC_MAX + 2];
	sqlite3_stmt *st = prepare_call(db, f, k);
	long n = 0;
	size_t v, w;
	int i, j, rc;

	if (st == NULL) {
		(*refused)++;
		return 0;
	}
	/* Every value in every place, the others all one value each. */
	for (v = 0; v < NARGS; v++)
		for (i = 0; i < (k > 0 ? k : 1); i++)
			for (w = 0; w < (k > 1 ? NARGS : 1); w++) {
				if (k > 2 && w % 4 != 0)
					continue;
				for (j = 0; j < k; j++)
					pick[j] = (int)(j == i ? v : w);
				rc = call(st, pick, k);
				if (rc != SQLITE_DONE && rc != SQLITE_ERROR &&
				    rc != SQLITE_TOOBIG && rc != SQLITE_NOMEM &&
				    rc != SQLITE_RANGE && rc != SQLITE_MISMATCH)
					printf("# %s/%d: rc %d\n", f->name, k,
					    rc);
				n++;
			}
	for (i = 0; k > 0 && i < RANDOM_CALLS; i++) {
		for (j = 0; j < k; j++)
			pick[j] = (int)(next_rand() % NARGS);
		(void)call(st, pick, k);
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

static struct func *
list_funcs(sqlite3 *db, size_t *nf)
{
	struct func *v = NULL;
	sqlite3_stmt *st;
	size_t n = 0;

	if (sqlite3_prepare_v2(db,
		"SELECT name, type, narg FROM pragma_function_list "
		"WHERE builtin = 0 AND (name LIKE 'sc\\_%' ESCAPE '\\' "
		"OR name IN ('greatest', 'least')) ORDER BY name, narg",
		-1, &st, NULL) != SQLITE_OK)
		return NULL;
	while (sqlite3_step(st) == SQLITE_ROW) {
		v = sc_xreallocarray(v, n + 1, sizeof(*v));
		v[n].name =
		    sc_xstrdup((const char *)sqlite3_column_text(st, 0));
		v[n].type = (char)sqlite3_column_text(st, 1)[0];
		v[n].narg = sqlite3_column_int(st, 2);
		n++;
	}
	sqlite3_finalize(st);
	*nf = n;
	return v;
}

static void
test_every_function(sqlite3 *db)
{
	struct func *fv;
	size_t nf = 0, i;
	long calls = 0, refused = 0;
	int k, max;

	fv = list_funcs(db, &nf);
	ok(fv != NULL && nf >= 80, "the engine registers %zu functions", nf);
	for (i = 0; i < nf; i++) {
		max = fv[i].narg >= 0 ? fv[i].narg + 2 : VARIADIC_MAX;
		for (k = 0; k <= max; k++)
			calls += calls_of(db, &fv[i], k, &refused);
		ok(1, "%s (%d arguments, %c): no crash", fv[i].name, fv[i].narg,
		    fv[i].type);
	}
	printf("# %ld calls, %ld argument counts refused by SQLite\n", calls,
	    refused);
	for (i = 0; i < nf; i++)
		free(fv[i].name);
	free(fv);
}

/* The first column of SQL's one row as text, or "error: " and why. */
static const char *
eval(sqlite3 *db, const char *sql)
{
	static char out[512];
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(out, sizeof(out), "error: %s", sqlite3_errmsg(db));
		return out;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(out, sizeof(out), "%s",
		    sqlite3_column_type(st, 0) == SQLITE_NULL
			? "NULL"
			: (const char *)sqlite3_column_text(st, 0));
	else
		snprintf(out, sizeof(out), "error: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return out;
}

#define OVERFLOW_DIV                                                     \
	"error: [ARITHMETIC_OVERFLOW] Overflow in integral divide. Use " \
	"'try_divide' to tolerate overflow and return NULL instead. If " \
	"necessary set \"spark.sql.ansi.enabled\" to \"false\" to "      \
	"bypass this error. SQLSTATE: 22003"

/* What some of them give for what crashed them, and Spark's values. */
static void
test_values(sqlite3 *db)
{
	is_str(eval(db,
		   "SELECT sc_ival_muldiv(-9223372036854775807 - 1, "
		   "-1, '/', 64)"),
	    OVERFLOW_DIV, "smallest day-time interval / -1");
	is_str(eval(db, "SELECT sc_ival_muldiv(-2147483648, -1, '/', 32)"),
	    OVERFLOW_DIV, "smallest year-month interval / -1");
	is_str(eval(db,
		   "SELECT sc_ival_muldiv(-9223372036854775807, -1, "
		   "'/', 64)"),
	    "9223372036854775807", "one above it divides");
	is_str(eval(db, "SELECT sc_ival_muldiv(7, 2, '/', 64)"), "4",
	    "interval / 2 rounds half up");
	is_str(eval(db, "SELECT sc_ival_muldiv(1, 0, '+', 64)"),
	    "error: [INTERNAL_ERROR] sc_ival_muldiv() was given arguments "
	    "sc-serve never gives it. SQLSTATE: XX000",
	    "an operator other than * or /");
	is_str(eval(db, "SELECT sc_ts_from(1, 0)"),
	    "error: [INTERNAL_ERROR] sc_ts_from() was given arguments "
	    "sc-serve never gives it. SQLSTATE: XX000",
	    "sc_ts_from of unit 0");
	is_str(eval(db, "SELECT sc_concat_ws()"),
	    "error: [INTERNAL_ERROR] sc_concat_ws() was given arguments "
	    "sc-serve never gives it. SQLSTATE: XX000",
	    "sc_concat_ws of nothing");
	is_str(eval(db, "SELECT sc_levenshtein('abc')"),
	    "error: wrong number of arguments to function sc_levenshtein()",
	    "sc_levenshtein of one argument");
	is_str(eval(db, "SELECT sc_intop(1, '+', 2, -1)"),
	    "error: [INTERNAL_ERROR] sc_intop() was given arguments "
	    "sc-serve never gives it. SQLSTATE: XX000",
	    "sc_intop of width -1");
	/* No call runs: ANSI mode, as Spark 4's default. */
	is_str(eval(db,
		   "SELECT sc_intop(-9223372036854775807 - 1, 'div', "
		   "-1, 64)"),
	    OVERFLOW_DIV, "smallest long div -1");
	is_str(eval(db, "SELECT sc_intop(-7, 'div', 2, 64)"), "-3",
	    "div truncates");
	is_str(eval(db, "SELECT sc_make_interval(0, 1, 2)"), "14",
	    "make_ym_interval(1, 2)");
	is_str(eval(db, "SELECT sc_make_interval(1, 1, 0, 0, 0.5)"),
	    "86400500000", "make_dt_interval(1, 0, 0, 0.5)");
	is_str(eval(db, "SELECT sc_make_interval(1, 106751992, 0, 0, 0)"),
	    "error: [ARITHMETIC_OVERFLOW] long overflow. SQLSTATE: 22003",
	    "make_dt_interval past a long");
	is_str(eval(db,
		   "SELECT sc_pmod(7, -3) || ',' || sc_pmod(-7, 3) || "
		   "',' || sc_pmod(9007199254740993, 10) || ',' || "
		   "sc_pmod(7.5, -2)"),
	    "1,2,3,1.5", "pmod as Spark's");
	is_str(eval(db, "SELECT sc_width_bucket(0, -1e308, 1e308, 10)"), "1",
	    "width_bucket over an infinite width");
	is_str(eval(db,
		   "SELECT sc_substring_index('a.b.c', '.', "
		   "-9223372036854775807 - 1)"),
	    "a.b.c", "substring_index of the smallest count");
}

int
main(void)
{
	sqlite3 *db;

	memset(long_text, 'x', sizeof(long_text) - 1);
	if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
		ok(0, "open a database");
		return tap_done();
	}
	/* Results as long as SQLite's default: a repeat() must stay small. */
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1000000);
	is_int(sc_eng_register_functions(db), SQLITE_OK,
	    "sc_eng_register_functions");
	test_values(db);
	test_every_function(db);
	sqlite3_close(db);
	return tap_done();
}
