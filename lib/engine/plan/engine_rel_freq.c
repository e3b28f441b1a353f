/* SPDX-License-Identifier: MIT */

/*
 * engine_rel_freq.c: the DataFrame statistics that count values:
 * stat.crosstab, stat.freqItems and stat.approxQuantile; and the one
 * entry engine_plan_rel.c calls for them and engine_rel_sample.c's.
 *
 * freqItems gives exactly the items whose frequency is at least the
 * support, most frequent first: Spark's one-pass algorithm (Karp,
 * Schenker and Papadimitriou) keeps every such item and may add others,
 * so this is an answer it could give.  approxQuantile gives the exact
 * quantile Spark computes for a relative error of 0 (the value of rank
 * ceil(p * n) among the n values that are neither null nor NaN), which
 * lies within the error bound Spark documents for any relative error.
 */

#include "engine/engine_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/value.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* Most distinct values of col2 a crosstab takes (Spark's pivot limit). */
#define MAX_CROSSTAB_VALUES 10000
/* Most columns one SQLite result may have, less the first. */
#define MAX_CROSSTAB_COLUMNS 1999

static bool
is_numeric(int t)
{
	return sc_eng_is_int(t) || t == SC_ARROW_FLOAT ||
	    t == SC_ARROW_DOUBLE || t == SC_ARROW_DECIMAL128;
}

/* Input column name of in, or Spark's UNRESOLVED_COLUMN. */
static const struct sc_ecol *
column(const struct sc_eplan *in, const char *name, struct sc_error *err)
{
	const struct sc_ecol *c;

	if (name == NULL)
		name = "";
	if ((c = sc_eng_col_named(in, name, NULL)) == NULL)
		sc_eng_unresolved(name, err);
	return c;
}

/* SQL: c's value as Spark's CAST(c AS STRING), 'null' for a null. */
static void
string_of(struct sc_buf *b, const struct sc_ecol *c, bool unquote)
{
	struct sc_buf ref, tn;

	sc_buf_init(&ref, SC_BUF_UNLIMITED);
	sc_buf_init(&tn, SC_BUF_UNLIMITED);
	sc_eng_col_ref(&ref, c);
	sc_buf_addf(b, NULL, "CASE WHEN %s IS NULL THEN 'null' ELSE %s",
	    (const char *)ref.data, unquote ? "replace(" : "");
	if (c->type.t == SC_ETYPE_UNKNOWN ||
	    sc_eng_type_text(&c->type, SC_VALUE_TYPENAME, &tn) == -1)
		sc_buf_addf(b, NULL, "CAST(%s AS TEXT)",
		    (const char *)ref.data);
	else
		sc_buf_addf(b, NULL, "sc_cast(%s, 'string', 0, '%s')",
		    (const char *)ref.data, (const char *)tn.data);
	sc_buf_addstr(b, unquote ? ", '`', '')" : "", NULL);
	sc_buf_addstr(b, " END", NULL);
	sc_buf_release(&ref);
	sc_buf_release(&tn);
}

/* The statement text of out so far with sql after its CTEs. */
static void
statement(const struct sc_eplan *out, const char *sql, struct sc_buf *q)
{
	if (out->with.len > 0) {
		sc_buf_addstr(q, "WITH ", NULL);
		sc_buf_add(q, out->with.data, out->with.len, NULL);
		sc_buf_addch(q, '\n', NULL);
	}
	sc_buf_addstr(q, sql, NULL);
}

/*
 * The distinct strings of col2 (backquotes dropped), sorted as Spark's
 * pivot sorts them: each becomes a count column of out, and a
 * "sum(_sc_b = 'v') AS `v`" item of sel.
 */
static int
crosstab_values(struct sc_ectx *x, struct sc_eplan *out, const char *src,
    struct sc_buf *sel, struct sc_error *err)
{
	struct sc_etype cnt = { .t = SC_ARROW_INT64 };
	struct sc_buf q, s;
	sqlite3_stmt *st = NULL;
	const char *v;
	size_t n = 0;
	int step, rc = -1;

	sc_buf_init(&q, SC_BUF_UNLIMITED);
	sc_buf_init(&s, SC_BUF_UNLIMITED);
	sc_buf_addf(&s, NULL,
	    "SELECT DISTINCT _sc_b FROM %s ORDER BY 1 LIMIT %d", src,
	    MAX_CROSSTAB_VALUES + 1);
	statement(out, (const char *)s.data, &q);
	if (sc_eng_prepare(x, (const char *)q.data, q.len, &st, NULL, err) ==
	    -1)
		goto out;
	while ((step = sc_eng_step(x, st)) == SQLITE_ROW) {
		if (n == MAX_CROSSTAB_VALUES) {
			sc_srv_error(err, "PIVOT_VALUE_LIMIT_EXCEEDED", "54000",
			    "The pivot column has more than %d distinct "
			    "values; give the values to pivot on.",
			    MAX_CROSSTAB_VALUES);
			goto out;
		}
		if (n++ == MAX_CROSSTAB_COLUMNS) {
			sc_srv_error(err, "UNSUPPORTED_FEATURE.RELATION",
			    "0A000",
			    "A crosstab of more than %d distinct values of "
			    "its second column is not supported by sc-serve.",
			    MAX_CROSSTAB_COLUMNS);
			goto out;
		}
		v = (const char *)sqlite3_column_text(st, 0);
		if (v == NULL)
			v = "";
		sc_buf_addstr(sel, ", sum(_sc_b = ", NULL);
		sc_eng_quote_string(sel, v,
		    (size_t)sqlite3_column_bytes(st, 0));
		sc_buf_addstr(sel, ") AS ", NULL);
		sc_eng_quote_ident(sel, v);
		sc_eng_cols_add(&out->cols, &out->ncols, v, &cnt, 0);
	}
	if (step != SQLITE_DONE) {
		sc_eng_sqlite_error(x, step, err);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	sc_buf_release(&q);
	sc_buf_release(&s);
	return rc;
}

/*
 * crosstab: one row per value of col1 (as a string, sorted; Spark's
 * order is its hash aggregate's), one bigint count per value of col2,
 * as Spark 4's groupBy(col1 string).pivot(col2 string).count().na.fill(0).
 */
int
sc_eng_crosstab(struct sc_ectx *x, const Spark__Connect__StatCrosstab *c,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_etype str = { .t = SC_ARROW_UTF8 };
	const struct sc_ecol *a, *b;
	struct sc_eplan in;
	struct sc_buf body, sel, name;
	char cte[32];
	int rc = -1;

	sc_eplan_init(&in);
	sc_buf_init(&body, SC_BUF_UNLIMITED);
	sc_buf_init(&sel, SC_BUF_UNLIMITED);
	sc_buf_init(&name, SC_BUF_UNLIMITED);
	if (sc_eng_rel_input(x, c->input, "crosstab", &in, err) == -1 ||
	    (a = column(&in, c->col1, err)) == NULL ||
	    (b = column(&in, c->col2, err)) == NULL)
		goto out;
	sc_buf_addf(&name, NULL, "%s_%s", c->col1, c->col2);
	sc_buf_addstr(&body, "SELECT ", NULL);
	string_of(&body, a, false);
	sc_buf_addstr(&body, " AS _sc_a, ", NULL);
	string_of(&body, b, true);
	sc_buf_addstr(&body, " AS _sc_b FROM ", NULL);
	sc_eng_from_item(x, &in, out, &body);
	snprintf(cte, sizeof(cte), "_sc_q%u", x->seq++);
	sc_eng_with_add(&out->with, cte, NULL, 0, body.data, body.len);
	/* Never null, but nullable when col1 is (a CASE over it). */
	sc_eng_cols_add(&out->cols, &out->ncols, (const char *)name.data, &str,
	    a->nullable != 0);
	if (crosstab_values(x, out, cte, &sel, err) == -1)
		goto out;
	sc_buf_addstr(&out->sql, "SELECT _sc_a AS ", NULL);
	sc_eng_quote_ident(&out->sql, (const char *)name.data);
	sc_buf_add(&out->sql, sel.data, sel.len, NULL);
	sc_buf_addf(&out->sql, NULL, " FROM `%s` GROUP BY _sc_a ORDER BY _sc_a",
	    cte);
	rc = 0;
out:
	sc_buf_release(&body);
	sc_buf_release(&sel);
	sc_buf_release(&name);
	sc_eplan_release(&in);
	return rc;
}

/* Spark's require() on the support. */
static int
check_support(double s, struct sc_error *err)
{
	char t[SC_VALUE_TEXT_MAX];

	if (s >= 1e-4 && s <= 1.0)
		return 0;
	sc_value_fmt_double(s, t);
	return sc_srv_error(err, NULL, NULL,
	    SC_SRV_REQUIREMENT "Support must be in [1e-4, 1], but got %s.", t);
}

int
sc_eng_freq_items(struct sc_ectx *x, const Spark__Connect__StatFreqItems *f,
    struct sc_eplan *out, struct sc_error *err)
{
	double support = f->_support_case ==
		SPARK__CONNECT__STAT_FREQ_ITEMS___SUPPORT_SUPPORT
	    ? f->support
	    : 0.01;
	const struct sc_ecol *c;
	struct sc_eplan in;
	struct sc_etype at;
	struct sc_buf from, ref, name;
	size_t i;
	int rc = -1;

	if (check_support(support, err) == -1)
		return -1;
	sc_eplan_init(&in);
	sc_buf_init(&from, SC_BUF_UNLIMITED);
	sc_buf_init(&ref, SC_BUF_UNLIMITED);
	sc_buf_init(&name, SC_BUF_UNLIMITED);
	if (sc_eng_rel_input(x, f->input, "freq_items", &in, err) == -1)
		goto out;
	sc_eng_from_item(x, &in, out, &from);
	sc_buf_addstr(&out->sql, "SELECT ", NULL);
	for (i = 0; i < f->n_cols; i++) {
		if ((c = column(&in, f->cols[i], err)) == NULL)
			goto out;
		if (c->type.t == SC_ETYPE_UNKNOWN) {
			sc_srv_error(err, "UNSUPPORTED_FEATURE.RELATION",
			    "0A000",
			    "freqItems of `%s`, whose type sc-serve cannot "
			    "tell before it runs, is not supported by "
			    "sc-serve; add a CAST.",
			    f->cols[i]);
			goto out;
		}
		if (sc_eng_nest_array(&c->type, c->nullable != 0, &at, err) ==
		    -1)
			goto out;
		sc_buf_reset(&ref);
		sc_eng_col_ref(&ref, c);
		if (i > 0)
			sc_buf_addstr(&out->sql, ", ", NULL);
		/* Every value counts, null too, as in Spark's counter. */
		sc_buf_addstr(&out->sql, "(SELECT coalesce(json_group_array(",
		    NULL);
		sc_eng_nest_encode(&c->type, "_sc_v", &out->sql);
		sc_buf_addf(&out->sql, NULL,
		    "), json_array()) FROM (SELECT _sc_v FROM (SELECT %s AS "
		    "_sc_v, count(*) AS _sc_n FROM %s GROUP BY 1) WHERE "
		    "CAST(_sc_n AS REAL) / (SELECT count(*) FROM %s) >= "
		    "%.17g ORDER BY _sc_n DESC, _sc_v ASC NULLS FIRST)) AS ",
		    (const char *)ref.data, (const char *)from.data,
		    (const char *)from.data, support);
		sc_buf_reset(&name);
		sc_buf_addf(&name, NULL, "%s_freqItems", f->cols[i]);
		sc_eng_quote_ident(&out->sql, (const char *)name.data);
		sc_eng_cols_add(&out->cols, &out->ncols,
		    (const char *)name.data, &at, 0);
	}
	if (f->n_cols == 0) {
		sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "freqItems needs at least one column.");
		goto out;
	}
	rc = 0;
out:
	sc_buf_release(&from);
	sc_buf_release(&ref);
	sc_buf_release(&name);
	sc_eplan_release(&in);
	return rc;
}

/* Spark's DataType.toString of t, for its require() message. */
static void
type_name(const struct sc_etype *t, struct sc_buf *b)
{
	switch (t->t) {
	case SC_ARROW_UTF8:
		sc_buf_addstr(b, "StringType", NULL);
		break;
	case SC_ARROW_BOOL:
		sc_buf_addstr(b, "BooleanType", NULL);
		break;
	case SC_ARROW_BINARY:
		sc_buf_addstr(b, "BinaryType", NULL);
		break;
	case SC_ARROW_DATE32:
		sc_buf_addstr(b, "DateType", NULL);
		break;
	case SC_ARROW_TIMESTAMP_US:
		sc_buf_addstr(b, t->ntz ? "TimestampNTZType" : "TimestampType",
		    NULL);
		break;
	case SC_ARROW_NULL:
		sc_buf_addstr(b, "NullType", NULL);
		break;
	default:
		if (sc_eng_type_text(t, SC_VALUE_SQL, b) == -1)
			sc_buf_addstr(b, "unknown", NULL);
		break;
	}
}

int
sc_eng_approx_quantile(struct sc_ectx *x,
    const Spark__Connect__StatApproxQuantile *q, struct sc_eplan *out,
    struct sc_error *err)
{
	struct sc_etype dbl = { .t = SC_ARROW_DOUBLE }, inner, outer;
	const struct sc_ecol **cs = NULL;
	struct sc_eplan in;
	struct sc_buf from, ref, body, tn;
	char cte[32], t[SC_VALUE_TEXT_MAX];
	size_t i, k;
	int rc = -1;

	sc_eplan_init(&in);
	sc_buf_init(&from, SC_BUF_UNLIMITED);
	sc_buf_init(&ref, SC_BUF_UNLIMITED);
	sc_buf_init(&body, SC_BUF_UNLIMITED);
	sc_buf_init(&tn, SC_BUF_UNLIMITED);
	if (sc_eng_rel_input(x, q->input, "approx_quantile", &in, err) == -1)
		goto out;
	/* In Spark's order: the columns resolve, then each require(). */
	cs = sc_xcalloc(q->n_cols + 1, sizeof(*cs));
	for (i = 0; i < q->n_cols; i++)
		if ((cs[i] = column(&in, q->cols[i], err)) == NULL)
			goto out;
	if (!(q->relative_error >= 0)) {
		sc_value_fmt_double(q->relative_error, t);
		sc_srv_error(err, NULL, NULL,
		    SC_SRV_REQUIREMENT
		    "Relative Error must be non-negative but got %s",
		    t);
		goto out;
	}
	for (i = 0; i < q->n_cols; i++)
		if (cs[i]->type.t != SC_ETYPE_UNKNOWN &&
		    !is_numeric(cs[i]->type.t)) {
			type_name(&cs[i]->type, &tn);
			sc_srv_error(err, NULL, NULL,
			    SC_SRV_REQUIREMENT
			    "Quantile calculation for column %s with data "
			    "type %s is not supported.",
			    q->cols[i], (const char *)tn.data);
			goto out;
		}
	for (k = 0; k < q->n_probabilities; k++)
		if (!(q->probabilities[k] >= 0 && q->probabilities[k] <= 1)) {
			sc_srv_error(err, NULL, NULL,
			    SC_SRV_REQUIREMENT
			    "percentile should be in the range [0.0, 1.0]");
			goto out;
		}
	if (sc_eng_nest_array(&dbl, true, &inner, err) == -1 ||
	    sc_eng_nest_array(&inner, true, &outer, err) == -1)
		goto out;
	sc_eng_from_item(x, &in, out, &from);
	sc_buf_addstr(&out->sql, "SELECT json_array(", NULL);
	for (i = 0; i < q->n_cols; i++) {
		bool fl = cs[i]->type.t == SC_ARROW_FLOAT ||
		    cs[i]->type.t == SC_ARROW_DOUBLE ||
		    cs[i]->type.t == SC_ETYPE_UNKNOWN;

		/* The column's values, neither null nor NaN, as doubles. */
		sc_buf_reset(&ref);
		sc_eng_col_ref(&ref, cs[i]);
		sc_buf_reset(&body);
		sc_buf_addf(&body, NULL,
		    "SELECT CAST(%s AS REAL) AS _sc_v FROM %s WHERE %s IS "
		    "NOT NULL",
		    (const char *)ref.data, (const char *)from.data,
		    (const char *)ref.data);
		if (fl)
			sc_buf_addf(&body, NULL,
			    " AND typeof(%s) IN ('integer', 'real')",
			    (const char *)ref.data);
		snprintf(cte, sizeof(cte), "_sc_q%u", x->seq++);
		sc_eng_with_add(&out->with, cte, NULL, 0, body.data, body.len);
		if (i > 0)
			sc_buf_addstr(&out->sql, ", ", NULL);
		sc_buf_addf(&out->sql, NULL,
		    "(SELECT CASE WHEN _sc_n = 0 THEN json_array() ELSE "
		    "json_array(");
		for (k = 0; k < q->n_probabilities; k++)
			sc_buf_addf(&out->sql, NULL,
			    "%s(SELECT _sc_v FROM `%s` ORDER BY _sc_v LIMIT 1 "
			    "OFFSET max(CAST(ceil(%.17g * (SELECT count(*) "
			    "FROM `%s`)) AS INTEGER) - 1, 0))",
			    k > 0 ? ", " : "", cte, q->probabilities[k], cte);
		sc_buf_addf(&out->sql, NULL,
		    ") END FROM (SELECT count(*) AS _sc_n FROM `%s`))", cte);
	}
	sc_buf_addstr(&out->sql, ") AS `approx_quantile`", NULL);
	sc_eng_cols_add(&out->cols, &out->ncols, "approx_quantile", &outer, 0);
	rc = 0;
out:
	free(cs);
	sc_buf_release(&from);
	sc_buf_release(&ref);
	sc_buf_release(&body);
	sc_buf_release(&tn);
	sc_eplan_release(&in);
	return rc;
}

int
sc_eng_rel_sample_stat(struct sc_ectx *x, const Spark__Connect__Relation *r,
    struct sc_eplan *out, struct sc_error *err)
{
	switch (r->rel_type_case) {
	case SC_REL_(SAMPLE):
		return sc_eng_sample(x, r->sample, out, err);
	case SC_REL_(SAMPLE_BY):
		return sc_eng_sample_by(x, r->sample_by, out, err);
	case SC_REL_(CROSSTAB):
		return sc_eng_crosstab(x, r->crosstab, out, err);
	case SC_REL_(FREQ_ITEMS):
		return sc_eng_freq_items(x, r->freq_items, out, err);
	case SC_REL_(APPROX_QUANTILE):
		return sc_eng_approx_quantile(x, r->approx_quantile, out, err);
	default:
		return sc_eng_unsupported_relation(r, err);
	}
}
