/* SPDX-License-Identifier: MIT */

/*
 * engine_rel_sample.c: sample() and stat.sampleBy().  Spark draws from a
 * generator per partition, which one SQLite process cannot reproduce;
 * here a row's draw is a hash of the seed and the row's number (its
 * place in the input, or in the order of all its columns when the plan
 * asks for a deterministic order), so one seed picks the same rows on
 * every run and the splits of randomSplit never overlap.
 */

#include "engine/engine_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "core/error.h"
#include "core/value.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* Spark's RandomSampler.roundingEpsilon. */
#define FRACTION_EPS 1e-6
/* The largest mean a sample with replacement may ask for. */
#define MAX_POISSON_MEAN 1000.0

/* ------------------------------------------------------------------ */
/* The draws                                                           */
/* ------------------------------------------------------------------ */

/* SplitMix64's finaliser: a bijection that scatters every input bit. */
static uint64_t
mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* The k-th uniform draw in [0, 1) of row n under seed. */
static double
draw(int64_t seed, int64_t n, uint64_t k)
{
	uint64_t z = (uint64_t)seed ^ mix((uint64_t)n);

	z = mix(z + (k + 1) * UINT64_C(0x9e3779b97f4a7c15));
	return (double)(z >> 11) * 0x1.0p-53;
}

/* sc_rand_u(seed, n): row n's draw. */
static void
rand_u_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	sqlite3_result_double(ctx,
	    draw(sqlite3_value_int64(argv[0]), sqlite3_value_int64(argv[1]),
		0));
}

/*
 * sc_rand_poisson(seed, n, mean): how many times row n is taken, a
 * Poisson count (Knuth's product of uniforms, in parts of mean at most
 * 20 so that exp() stays far from underflow; the sum of Poisson counts
 * is one with the summed mean).
 */
static void
rand_poisson_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int64_t seed = sqlite3_value_int64(argv[0]);
	int64_t n = sqlite3_value_int64(argv[1]);
	double rest = sqlite3_value_double(argv[2]), part, limit, p;
	uint64_t k = 0, j = 0;

	(void)argc;
	if (!(rest > 0) || rest > MAX_POISSON_MEAN) {
		sqlite3_result_int64(ctx, 0);
		return;
	}
	while (rest > 0) {
		part = rest > 20 ? 20 : rest;
		rest -= part;
		limit = exp(-part);
		for (p = draw(seed, n, j++); p > limit; p *= draw(seed, n, j++))
			k++;
	}
	sqlite3_result_int64(ctx, (sqlite3_int64)k);
}

int
sc_eng_sample_register(sqlite3 *db)
{
	static const struct sc_efunc scalar[] = {
		{ "sc_rand_u", 2, rand_u_fn },
		{ "sc_rand_poisson", 3, rand_poisson_fn },
	};

	return sc_eng_func_add(db, scalar, SC_NELEM(scalar));
}

/* ------------------------------------------------------------------ */
/* Relations                                                           */
/* ------------------------------------------------------------------ */

/* Spark picks a random seed when the plan has none. */
static int64_t
some_seed(void)
{
	int64_t s = 0;

	if (getrandom(&s, sizeof(s), 0) != (ssize_t)sizeof(s))
		s = (int64_t)mix((uint64_t)(uintptr_t)&s);
	return s;
}

/*
 * The CTE body "SELECT c AS _sc_c0, ..., [extra, ]row_number() OVER
 * (...) AS _sc_rn FROM in": in's columns by position (duplicate names
 * and a join's qualified columns alike), numbered in input order, or in
 * the order of every column that can be ordered (not a map) when sorted.
 */
static void
numbered(struct sc_ectx *x, struct sc_eplan *in, struct sc_eplan *out,
    bool sorted, const char *extra, struct sc_buf *b)
{
	size_t i, nord = 0;

	sc_buf_addstr(b, "SELECT ", NULL);
	for (i = 0; i < in->ncols; i++) {
		sc_eng_col_ref(b, &in->cols[i]);
		sc_buf_addf(b, NULL, " AS _sc_c%zu, ", i);
	}
	if (extra != NULL)
		sc_buf_addf(b, NULL, "%s, ", extra);
	sc_buf_addstr(b, "row_number() OVER (", NULL);
	for (i = 0; sorted && i < in->ncols; i++) {
		if (in->cols[i].type.t == SC_ARROW_MAP)
			continue;
		sc_buf_addstr(b, nord++ == 0 ? "ORDER BY " : ", ", NULL);
		sc_eng_col_ref(b, &in->cols[i]);
	}
	sc_buf_addstr(b, ") AS _sc_rn FROM ", NULL);
	sc_eng_from_item(x, in, out, b);
}

/* "SELECT _sc_c0 AS `a`, ... FROM " and out's columns, in's. */
static void
select_back(struct sc_eplan *in, struct sc_eplan *out, const char *qual)
{
	size_t i;

	sc_buf_addstr(&out->sql, "SELECT ", NULL);
	for (i = 0; i < in->ncols; i++) {
		if (i > 0)
			sc_buf_addstr(&out->sql, ", ", NULL);
		sc_buf_addf(&out->sql, NULL, "%s_sc_c%zu AS ", qual, i);
		sc_eng_quote_ident(&out->sql, in->cols[i].name);
	}
	sc_buf_addstr(&out->sql, " FROM ", NULL);
	out->cols = sc_eng_cols_copy(in->cols, in->ncols);
	out->ncols = in->ncols;
	for (i = 0; i < in->ncols; i++) {
		free(out->cols[i].sqlname);
		out->cols[i].sqlname = NULL;
	}
	if (in->alias != NULL)
		out->alias = sc_xstrdup(in->alias);
}

static int
require_fraction(double f, bool repl, struct sc_error *err)
{
	char t[SC_VALUE_TEXT_MAX];

	if (repl ? f >= -FRACTION_EPS
		 : f >= -FRACTION_EPS && f <= 1.0 + FRACTION_EPS)
		return 0;
	sc_value_fmt_double(f, t);
	return sc_srv_error(err, NULL, NULL,
	    SC_SRV_REQUIREMENT "Sampling fraction (%s) must be %s", t,
	    repl ? "nonnegative with replacement"
		 : "on interval [0, 1] without replacement");
}

int
sc_eng_sample(struct sc_ectx *x, const Spark__Connect__Sample *s,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	struct sc_buf body;
	double frac = s->upper_bound - s->lower_bound;
	bool repl = s->_with_replacement_case ==
		SPARK__CONNECT__SAMPLE___WITH_REPLACEMENT_WITH_REPLACEMENT &&
	    s->with_replacement;
	int64_t seed = s->_seed_case == SPARK__CONNECT__SAMPLE___SEED_SEED
	    ? s->seed
	    : some_seed();
	char cte[32];
	int rc = -1;

	if (require_fraction(frac, repl, err) == -1)
		return -1;
	if (repl && frac > MAX_POISSON_MEAN)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.RELATION",
		    "0A000",
		    "A sample with replacement of a fraction above %g is not "
		    "supported by sc-serve.",
		    MAX_POISSON_MEAN);
	sc_eplan_init(&in);
	sc_buf_init(&body, SC_BUF_UNLIMITED);
	if (sc_eng_rel_input(x, s->input, "sample", &in, err) == -1)
		goto out;
	if (repl) {
		/* The Poisson count needs the row number: one level more. */
		numbered(x, &in, out, s->deterministic_order, NULL, &body);
		snprintf(cte, sizeof(cte), "_sc_q%u", x->seq++);
		sc_eng_with_add(&out->with, cte, NULL, 0, body.data, body.len);
		select_back(&in, out, "_sc_p.");
		sc_buf_addf(&out->sql, NULL,
		    "(SELECT *, sc_rand_poisson(%" PRId64
		    ", _sc_rn, %.17g) AS _sc_k FROM `%s`) AS _sc_p JOIN "
		    "range(0, _sc_p._sc_k) AS _sc_r ORDER BY _sc_p._sc_rn",
		    seed, frac, cte);
		rc = 0;
		goto out;
	}
	numbered(x, &in, out, s->deterministic_order, NULL, &body);
	snprintf(cte, sizeof(cte), "_sc_q%u", x->seq++);
	sc_eng_with_add(&out->with, cte, NULL, 0, body.data, body.len);
	select_back(&in, out, "");
	sc_eng_quote_ident(&out->sql, cte);
	if (!(frac > 0))
		sc_buf_addstr(&out->sql, " WHERE 0", NULL);
	else
		sc_buf_addf(&out->sql, NULL,
		    " WHERE sc_rand_u(%" PRId64 ", _sc_rn) >= %.17g AND "
		    "sc_rand_u(%" PRId64 ", _sc_rn) < %.17g",
		    seed, s->lower_bound, seed, s->upper_bound);
	sc_buf_addstr(&out->sql, " ORDER BY _sc_rn", NULL);
	rc = 0;
out:
	sc_buf_release(&body);
	sc_eplan_release(&in);
	return rc;
}

/* A stratum as Scala prints a map key: its value's text. */
static void
stratum_text(const Spark__Connect__Expression__Literal *l, struct sc_buf *b)
{
	char t[SC_VALUE_TEXT_MAX];

	switch (l->literal_type_case) {
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING:
		sc_buf_addstr(b, l->string != NULL ? l->string : "", NULL);
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BYTE:
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_SHORT:
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER:
		sc_buf_addf(b, NULL, "%d",
		    l->literal_type_case ==
			    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER
			? (int)l->integer
			: l->literal_type_case ==
			    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_SHORT
			? (int)l->short_
			: (int)l->byte);
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG:
		sc_buf_addf(b, NULL, "%" PRId64, l->long_);
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DOUBLE:
		sc_value_fmt_double(l->double_, t);
		sc_buf_addstr(b, t, NULL);
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_FLOAT:
		sc_value_fmt_float(l->float_, t);
		sc_buf_addstr(b, t, NULL);
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BOOLEAN:
		sc_buf_addstr(b, l->boolean ? "true" : "false", NULL);
		break;
	default:
		sc_buf_addstr(b, "null", NULL);
		break;
	}
}

/* Spark's require(): every fraction in [0, 1]. */
static int
check_fractions(const Spark__Connect__StatSampleBy *s, struct sc_error *err)
{
	struct sc_buf m;
	char t[SC_VALUE_TEXT_MAX];
	size_t i;
	bool bad = false;
	int rc;

	for (i = 0; i < s->n_fractions; i++)
		if (!(s->fractions[i]->fraction >= 0 &&
			s->fractions[i]->fraction <= 1))
			bad = true;
	if (!bad)
		return 0;
	sc_buf_init(&m, SC_BUF_UNLIMITED);
	sc_buf_addstr(&m, "Map(", NULL);
	for (i = 0; i < s->n_fractions; i++) {
		if (i > 0)
			sc_buf_addstr(&m, ", ", NULL);
		if (s->fractions[i]->stratum != NULL)
			stratum_text(s->fractions[i]->stratum, &m);
		else
			sc_buf_addstr(&m, "null", NULL);
		sc_value_fmt_double(s->fractions[i]->fraction, t);
		sc_buf_addf(&m, NULL, " -> %s", t);
	}
	sc_buf_addch(&m, ')', NULL);
	rc = sc_srv_error(err, NULL, NULL,
	    SC_SRV_REQUIREMENT "Fractions must be in [0, 1], but got %s.",
	    (const char *)m.data);
	sc_buf_release(&m);
	return rc;
}

/* A literal's SQL. */
static int
literal_sql(struct sc_ectx *x, const Spark__Connect__Expression__Literal *l,
    struct sc_buf *sql, bool *isnull, struct sc_error *err)
{
	Spark__Connect__Expression e = SPARK__CONNECT__EXPRESSION__INIT;
	struct sc_einfo ei;
	int rc;

	e.expr_type_case = SC_EXPR_(LITERAL);
	e.literal = (Spark__Connect__Expression__Literal *)l;
	sc_eng_einfo_init(&ei);
	rc = sc_eng_expr(x, NULL, &e, sql, &ei, err);
	*isnull = ei.type.t == SC_ARROW_NULL;
	sc_eng_einfo_release(&ei);
	return rc;
}

int
sc_eng_sample_by(struct sc_ectx *x, const Spark__Connect__StatSampleBy *s,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	struct sc_einfo ei;
	struct sc_buf body, col, frac, lit;
	int64_t seed = s->_seed_case ==
		SPARK__CONNECT__STAT_SAMPLE_BY___SEED_SEED
	    ? s->seed
	    : some_seed();
	char cte[32];
	bool isnull;
	size_t i;
	int rc = -1;

	if (check_fractions(s, err) == -1)
		return -1;
	if (s->col == NULL)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "sampleBy needs a column.");
	sc_eplan_init(&in);
	sc_eng_einfo_init(&ei);
	sc_buf_init(&body, SC_BUF_UNLIMITED);
	sc_buf_init(&col, SC_BUF_UNLIMITED);
	sc_buf_init(&frac, SC_BUF_UNLIMITED);
	sc_buf_init(&lit, SC_BUF_UNLIMITED);
	if (sc_eng_rel_input(x, s->input, "sample_by", &in, err) == -1)
		goto out;
	if (sc_eng_expr(x, &in, s->col, &col, &ei, err) == -1)
		goto out;
	sc_buf_addstr(&col, " AS _sc_s", NULL);
	/* A stratum given twice: the last fraction counts, as in a map. */
	sc_buf_addstr(&frac, "CASE", NULL);
	for (i = s->n_fractions; i-- > 0;) {
		const Spark__Connect__StatSampleBy__Fraction *f =
		    s->fractions[i];

		if (f->stratum == NULL) {
			sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
			    "A sampleBy fraction has no stratum.");
			goto out;
		}
		sc_buf_reset(&lit);
		if (literal_sql(x, f->stratum, &lit, &isnull, err) == -1)
			goto out;
		if (isnull)
			sc_buf_addstr(&frac, " WHEN _sc_s IS NULL", NULL);
		else
			sc_buf_addf(&frac, NULL, " WHEN _sc_s = %s",
			    (const char *)lit.data);
		sc_buf_addf(&frac, NULL, " THEN %.17g", f->fraction);
	}
	sc_buf_addstr(&frac, " ELSE 0 END", NULL);
	numbered(x, &in, out, false, (const char *)col.data, &body);
	snprintf(cte, sizeof(cte), "_sc_q%u", x->seq++);
	sc_eng_with_add(&out->with, cte, NULL, 0, body.data, body.len);
	select_back(&in, out, "");
	sc_eng_quote_ident(&out->sql, cte);
	sc_buf_addf(&out->sql, NULL,
	    " WHERE sc_rand_u(%" PRId64 ", _sc_rn) < (%s) ORDER BY _sc_rn",
	    seed, (const char *)frac.data);
	rc = 0;
out:
	sc_buf_release(&body);
	sc_buf_release(&col);
	sc_buf_release(&frac);
	sc_buf_release(&lit);
	sc_eng_einfo_release(&ei);
	sc_eplan_release(&in);
	return rc;
}
