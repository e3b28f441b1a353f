/* SPDX-License-Identifier: MIT */

/*
 * engine_func_agg.c: aggregate functions SQLite lacks, with Spark's
 * semantics: the variance and standard deviation family, covariance and
 * correlation (NULL for fewer rows than they need, as Spark 4),
 * first/last, max_by/min_by and percentile.
 */

#include "engine/plan/engine_expr_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmem.h"
#include "engine/func/engine_hll.h"
#include "core/banned.h"

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
		/* No key yet, even if the mode changed from row to row. */
		if (p->key != NULL) {
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

int
sc_eng_func_agg_register(sqlite3 *db)
{
	int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC, rc;

	rc = sqlite3_create_function_v2(db, "sc_var", 2, flags, NULL, NULL,
	    var_step, var_final, NULL);
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
	if (rc == SQLITE_OK)
		rc = sc_eng_hll_register(db);
	return rc;
}

/* The registry's entries for the aggregates (engine_fnreg.c). */
static const struct sc_efdef defs[] = {
	{ "count", F_COUNT, "count", 1, -1, SC_ARROW_INT64,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "sum", F_AGG, "sum", 1, 1, R_UNK,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "avg", F_AGG, "avg", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK,
	    .aliases = SC_EF_ALIASES("mean") },
	{ "min", F_AGG, "min", 1, 1, R_ARG,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "max", F_AGG, "max", 1, 1, R_ARG,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "grouping", F_GROUPING, "grouping", 1, 1, SC_ARROW_INT8, .flags = 0 },
	{ "grouping_id", F_GROUPING, "grouping_id", 0, -1, SC_ARROW_INT64,
	    .flags = 0 },
	{ "stddev", F_TMPL, "sc_var($1, 2)", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK,
	    .aliases = SC_EF_ALIASES("std", "stddev_samp") },
	{ "stddev_pop", F_TMPL, "sc_var($1, 3)", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "variance", F_TMPL, "sc_var($1, 0)", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK,
	    .aliases = SC_EF_ALIASES("var_samp") },
	{ "var_pop", F_TMPL, "sc_var($1, 1)", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "first", F_TMPL, "sc_pick($1, 0)", 1, 1, R_ARG, .flags = SC_EF_AGG },
	{ "first", F_TMPL, "sc_pick($1, iif($2, 1, 0))", 2, 2, R_ARG,
	    .flags = SC_EF_AGG },
	{ "first_value", F_TMPL, "sc_pick($1, 0)", 1, 1, R_ARG,
	    .flags = SC_EF_AGG },
	{ "any_value", F_TMPL, "sc_pick($1, 0)", 1, 1, R_ARG,
	    .flags = SC_EF_AGG },
	{ "last", F_TMPL, "sc_pick($1, 2)", 1, 1, R_ARG, .flags = SC_EF_AGG },
	{ "last", F_TMPL, "sc_pick($1, iif($2, 3, 2))", 2, 2, R_ARG,
	    .flags = SC_EF_AGG },
	{ "last_value", F_TMPL, "sc_pick($1, 2)", 1, 1, R_ARG,
	    .flags = SC_EF_AGG },
	{ "max_by", F_TMPL, "sc_pick($1, 4, $2)", 2, 2, R_ARG,
	    .flags = SC_EF_AGG },
	{ "min_by", F_TMPL, "sc_pick($1, 5, $2)", 2, 2, R_ARG,
	    .flags = SC_EF_AGG },
	{ "percentile", F_TMPL, "sc_pct($1, $2, 1)", 2, 2, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG },
	{ "median", F_TMPL, "sc_pct($1, 0.5, 1)", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "percentile_approx", F_TMPL, "sc_pct($1, $2, 0)", 2, 3, R_ARG,
	    .flags = SC_EF_AGG },
	{ "approx_percentile", F_TMPL, "sc_pct($1, $2, 0)", 2, 3, R_ARG,
	    .flags = 0 },
	{ "covar_samp", F_TMPL, "sc_cov($1, $2, 0)", 2, 2, SC_ARROW_DOUBLE,
	    .flags = 0 },
	{ "covar_pop", F_TMPL, "sc_cov($1, $2, 1)", 2, 2, SC_ARROW_DOUBLE,
	    .flags = 0 },
	{ "corr", F_TMPL, "sc_cov($1, $2, 2)", 2, 2, SC_ARROW_DOUBLE,
	    .flags = 0 },
	{ "count_if", F_TMPL, "count(CASE WHEN $1 THEN 1 END)", 1, 1,
	    SC_ARROW_INT64,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "bool_and", F_TMPL, "min($1)", 1, 1, SC_ARROW_BOOL,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK,
	    .aliases = SC_EF_ALIASES("every") },
	{ "bool_or", F_TMPL, "max($1)", 1, 1, SC_ARROW_BOOL,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK,
	    .aliases = SC_EF_ALIASES("some", "any") },
};
const struct sc_effamily sc_eng_family_agg = { "agg", defs, SC_NELEM(defs) };
