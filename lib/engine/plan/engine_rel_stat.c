/* SPDX-License-Identifier: MIT */

/*
 * engine_rel_stat.c: the DataFrame's na functions (fill, drop, replace)
 * and its statistics (describe, summary, stat.cov, stat.corr).
 */

#include "engine/engine_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* ------------------------------------------------------------------ */
/* na.fill, na.drop, na.replace                                        */
/* ------------------------------------------------------------------ */

enum vclass { V_NONE, V_NUM, V_STR, V_BOOL };

static enum vclass
type_class(int t)
{
	if (sc_eng_is_int(t) || t == SC_ARROW_FLOAT || t == SC_ARROW_DOUBLE ||
	    t == SC_ARROW_DECIMAL128)
		return V_NUM;
	if (t == SC_ARROW_UTF8)
		return V_STR;
	if (t == SC_ARROW_BOOL)
		return V_BOOL;
	return V_NONE;
}

/* A literal as SQL of column c's type; its class (V_NONE: null). */
static int
value_sql(struct sc_ectx *x, const Spark__Connect__Expression__Literal *l,
    const struct sc_ecol *c, struct sc_buf *sql, enum vclass *vc,
    struct sc_error *err)
{
	Spark__Connect__Expression e = SPARK__CONNECT__EXPRESSION__INIT;
	struct sc_buf v, tn;
	struct sc_einfo ei;
	int rc;

	e.expr_type_case = SC_EXPR_(LITERAL);
	e.literal = (Spark__Connect__Expression__Literal *)l;
	sc_buf_init(&v, SC_BUF_UNLIMITED);
	sc_buf_init(&tn, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&ei);
	rc = sc_eng_expr(x, NULL, &e, &v, &ei, err);
	if (rc == 0) {
		*vc = ei.type.t == SC_ARROW_NULL ? V_NONE
						 : type_class(ei.type.t);
		if (c != NULL && sc_eng_is_int(c->type.t) && *vc == V_NUM &&
		    !sc_eng_is_int(ei.type.t)) {
			/* 1.5 into an int column is 1, as Spark casts. */
			sc_eng_type_text(&c->type, SC_VALUE_TYPENAME, &tn);
			sc_buf_addf(sql, NULL, "sc_cast(%s, '%s', 1)",
			    (const char *)v.data, (const char *)tn.data);
		} else {
			sc_buf_add(sql, v.data, v.len, NULL);
		}
	}
	sc_buf_release(&v);
	sc_buf_release(&tn);
	sc_eng_einfo_release(&ei);
	return rc;
}

/* Mark the columns named in names[] (all when none): -1 on a bad name. */
static int
pick_cols(const struct sc_eplan *in, char **names, size_t n, bool *pick,
    struct sc_error *err)
{
	size_t i, k;

	for (k = 0; k < in->ncols; k++)
		pick[k] = n == 0;
	for (i = 0; i < n; i++) {
		if (strcmp(names[i], "*") == 0) {
			for (k = 0; k < in->ncols; k++)
				pick[k] = true;
			continue;
		}
		if (sc_eng_col_named(in, names[i], &k) == NULL)
			return sc_eng_unresolved(names[i], err);
		pick[k] = true;
	}
	return 0;
}

/* SELECT with column k as expr[k] (or itself) FROM in. */
static void
select_exprs(struct sc_ectx *x, struct sc_eplan *in, struct sc_buf *expr,
    struct sc_eplan *out)
{
	size_t k;

	sc_buf_addstr(&out->sql, "SELECT ", NULL);
	for (k = 0; k < in->ncols; k++) {
		if (k > 0)
			sc_buf_addstr(&out->sql, ", ", NULL);
		if (expr[k].len == 0) {
			sc_eng_col_ref(&out->sql, &in->cols[k]);
			continue;
		}
		sc_buf_add(&out->sql, expr[k].data, expr[k].len, NULL);
		sc_buf_addstr(&out->sql, " AS ", NULL);
		sc_eng_quote_ident(&out->sql, in->cols[k].name);
	}
	sc_buf_addstr(&out->sql, " FROM ", NULL);
	sc_eng_from_item(x, in, out, &out->sql);
	out->cols = sc_eng_cols_copy(in->cols, in->ncols);
	out->ncols = in->ncols;
	for (k = 0; k < in->ncols; k++)
		if (expr[k].len > 0) {
			free(out->cols[k].sqlname);
			out->cols[k].sqlname = NULL;
		}
}

int
sc_eng_fill_na(struct sc_ectx *x, const Spark__Connect__NAFill *f,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	struct sc_buf *expr = NULL, v;
	bool *pick = NULL;
	enum vclass vc;
	size_t k, i;
	int rc = -1;

	if (f->n_values == 0 || (f->n_values > 1 && f->n_values != f->n_cols))
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "na.fill needs one value, or one value per column.");
	sc_eplan_init(&in);
	sc_buf_init(&v, SC_BUF_UNLIMITED);
	if (sc_eng_rel_input(x, f->input, "fill_na", &in, err) == -1)
		goto out;
	pick = sc_xcalloc(in.ncols + 1, sizeof(*pick));
	expr = sc_xcalloc(in.ncols + 1, sizeof(*expr));
	for (k = 0; k < in.ncols; k++)
		sc_buf_init(&expr[k], SC_BUF_UNLIMITED);
	if (pick_cols(&in, f->cols, f->n_cols, pick, err) == -1)
		goto out;
	for (k = 0; k < in.ncols; k++) {
		const struct sc_ecol *c = &in.cols[k];

		if (!pick[k])
			continue;
		i = 0;
		if (f->n_values > 1)
			for (i = 0; i < f->n_cols; i++)
				if (sc_eng_name_cmp(f->cols[i], c->name) == 0)
					break;
		sc_buf_reset(&v);
		if (value_sql(x, f->values[i], c, &v, &vc, err) == -1)
			goto out;
		/* Only columns of the value's kind are filled. */
		if (vc == V_NONE || vc != type_class(c->type.t))
			continue;
		sc_buf_addstr(&expr[k], "coalesce(", NULL);
		sc_eng_col_ref(&expr[k], c);
		sc_buf_addf(&expr[k], NULL, ", %s)", (const char *)v.data);
	}
	select_exprs(x, &in, expr, out);
	for (k = 0; k < in.ncols; k++)
		if (expr[k].len > 0 && out->cols[k].nullable != 0)
			out->cols[k].nullable = 0;
	rc = 0;
out:
	for (k = 0; expr != NULL && k < in.ncols; k++)
		sc_buf_release(&expr[k]);
	free(expr);
	free(pick);
	sc_buf_release(&v);
	sc_eplan_release(&in);
	return rc;
}

int
sc_eng_drop_na(struct sc_ectx *x, const Spark__Connect__NADrop *d,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	bool *pick = NULL;
	size_t k, n = 0;
	int64_t min;
	int rc = -1;

	sc_eplan_init(&in);
	if (sc_eng_rel_input(x, d->input, "drop_na", &in, err) == -1)
		goto out;
	pick = sc_xcalloc(in.ncols + 1, sizeof(*pick));
	if (pick_cols(&in, d->cols, d->n_cols, pick, err) == -1)
		goto out;
	for (k = 0; k < in.ncols; k++)
		n += pick[k];
	min = d->_min_non_nulls_case ==
		SPARK__CONNECT__NADROP___MIN_NON_NULLS_MIN_NON_NULLS
	    ? d->min_non_nulls
	    : (int64_t)n;
	out->cols = sc_eng_cols_copy(in.cols, in.ncols);
	out->ncols = in.ncols;
	sc_buf_addstr(&out->sql, "SELECT * FROM ", NULL);
	sc_eng_from_item(x, &in, out, &out->sql);
	sc_buf_addstr(&out->sql, " WHERE (0", NULL);
	for (k = 0; k < in.ncols; k++) {
		if (!pick[k])
			continue;
		sc_buf_addstr(&out->sql, " + (", NULL);
		sc_eng_col_ref(&out->sql, &in.cols[k]);
		sc_buf_addstr(&out->sql, " IS NOT NULL)", NULL);
	}
	sc_buf_addf(&out->sql, NULL, ") >= %" PRId64, min);
	if (in.alias != NULL)
		out->alias = sc_xstrdup(in.alias);
	rc = 0;
out:
	free(pick);
	sc_eplan_release(&in);
	return rc;
}

int
sc_eng_replace_na(struct sc_ectx *x, const Spark__Connect__NAReplace *r,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	struct sc_buf *expr = NULL, ov, nv;
	bool *pick = NULL;
	enum vclass oc, nc;
	size_t k, i;
	int rc = -1;

	sc_eplan_init(&in);
	sc_buf_init(&ov, SC_BUF_UNLIMITED);
	sc_buf_init(&nv, SC_BUF_UNLIMITED);
	if (sc_eng_rel_input(x, r->input, "replace", &in, err) == -1)
		goto out;
	pick = sc_xcalloc(in.ncols + 1, sizeof(*pick));
	expr = sc_xcalloc(in.ncols + 1, sizeof(*expr));
	for (k = 0; k < in.ncols; k++)
		sc_buf_init(&expr[k], SC_BUF_UNLIMITED);
	if (pick_cols(&in, r->cols, r->n_cols, pick, err) == -1)
		goto out;
	for (k = 0; k < in.ncols; k++) {
		const struct sc_ecol *c = &in.cols[k];
		bool any = false;

		if (!pick[k])
			continue;
		for (i = 0; i < r->n_replacements; i++) {
			const Spark__Connect__NAReplace__Replacement *p =
			    r->replacements[i];

			if (p->old_value == NULL || p->new_value == NULL) {
				rc = sc_srv_error(err, "INVALID_PLAN_INPUT",
				    "22023",
				    "A replacement has no old or new value.");
				goto out;
			}
			sc_buf_reset(&ov);
			sc_buf_reset(&nv);
			if (value_sql(x, p->old_value, c, &ov, &oc, err) ==
				-1 ||
			    value_sql(x, p->new_value, c, &nv, &nc, err) == -1)
				goto out;
			/* Spark replaces in columns of the values' kind. */
			if (oc != V_NONE && oc != type_class(c->type.t))
				continue;
			if (!any)
				sc_buf_addstr(&expr[k], "CASE", NULL);
			any = true;
			sc_buf_addstr(&expr[k], " WHEN ", NULL);
			sc_eng_col_ref(&expr[k], c);
			if (oc == V_NONE)
				sc_buf_addstr(&expr[k], " IS NULL", NULL);
			else
				sc_buf_addf(&expr[k], NULL, " = %s",
				    (const char *)ov.data);
			sc_buf_addf(&expr[k], NULL, " THEN %s",
			    (const char *)nv.data);
		}
		if (any) {
			sc_buf_addstr(&expr[k], " ELSE ", NULL);
			sc_eng_col_ref(&expr[k], c);
			sc_buf_addstr(&expr[k], " END", NULL);
		}
	}
	select_exprs(x, &in, expr, out);
	rc = 0;
out:
	for (k = 0; expr != NULL && k < in.ncols; k++)
		sc_buf_release(&expr[k]);
	free(expr);
	free(pick);
	sc_buf_release(&ov);
	sc_buf_release(&nv);
	sc_eplan_release(&in);
	return rc;
}

/* ------------------------------------------------------------------ */
/* describe, summary, cov, corr                                        */
/* ------------------------------------------------------------------ */

/* x as Spark's string of a value of type t. */
static void
as_string(struct sc_buf *b, const char *x, const struct sc_etype *t)
{
	struct sc_buf tn;

	sc_buf_init(&tn, SC_BUF_UNLIMITED);
	sc_eng_type_text(t, SC_VALUE_TYPENAME, &tn);
	sc_buf_addf(b, NULL, "sc_cast(%s, 'string', 0, '%s')", x,
	    (const char *)tn.data);
	sc_buf_release(&tn);
}

static bool
stat_col(const struct sc_ecol *c)
{
	return type_class(c->type.t) == V_NUM || c->type.t == SC_ARROW_UTF8;
}

/* One statistic of column c over from, as string SQL into b. */
static int
statistic(struct sc_buf *b, const char *stat, const struct sc_ecol *c,
    const char *from, struct sc_error *err)
{
	struct sc_etype dbl;
	struct sc_buf ref, x;
	bool num = type_class(c->type.t) == V_NUM;
	double p;
	char *end;
	int rc = 0;

	memset(&dbl, 0, sizeof(dbl));
	dbl.t = SC_ARROW_DOUBLE;
	sc_buf_init(&ref, SC_BUF_UNLIMITED);
	sc_buf_init(&x, SC_BUF_UNLIMITED);
	sc_eng_col_ref(&ref, c);
	if (strcmp(stat, "count") == 0) {
		sc_buf_addf(b, NULL, "CAST(count(%s) AS TEXT)",
		    (const char *)ref.data);
	} else if (strcmp(stat, "mean") == 0 || strcmp(stat, "stddev") == 0) {
		if (!num) {
			sc_buf_addstr(b, "NULL", NULL);
		} else {
			sc_buf_addf(&x, NULL,
			    stat[0] == 'm' ? "avg(%s)" : "sc_var(%s, 2)",
			    (const char *)ref.data);
			as_string(b, (const char *)x.data, &dbl);
		}
	} else if (strcmp(stat, "min") == 0 || strcmp(stat, "max") == 0) {
		sc_buf_addf(&x, NULL, "%s(%s)", stat, (const char *)ref.data);
		as_string(b, (const char *)x.data, &c->type);
	} else if (strchr(stat, '%') != NULL && (p = strtod(stat, &end)) >= 0 &&
	    p <= 100 && *end == '%' && end[1] == '\0') {
		if (!num) {
			sc_buf_addstr(b, "NULL", NULL);
		} else {
			/* The smallest value with p% of them at or below. */
			sc_buf_addf(&x, NULL,
			    "(SELECT _v FROM (SELECT %s AS _v FROM %s WHERE "
			    "%s IS NOT NULL ORDER BY 1) LIMIT 1 OFFSET (SELECT "
			    "max(CAST(ceil(%.17g * count(%s)) AS INTEGER) - 1, "
			    "0) FROM %s))",
			    (const char *)ref.data, from,
			    (const char *)ref.data, p / 100,
			    (const char *)ref.data, from);
			as_string(b, (const char *)x.data, &c->type);
		}
	} else {
		rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.RELATION", "0A000",
		    "The summary statistic '%s' is not supported by "
		    "sc-serve.",
		    stat);
	}
	sc_buf_release(&ref);
	sc_buf_release(&x);
	return rc;
}

static int
stats(struct sc_ectx *x, const Spark__Connect__Relation *src, char **cols,
    size_t ncols, char *const *st, size_t nst, struct sc_eplan *out,
    struct sc_error *err)
{
	static const char *const dflt[] = { "count", "mean", "stddev", "min",
		"25%", "50%", "75%", "max" };
	struct sc_eplan in;
	struct sc_buf from;
	struct sc_etype str;
	bool *pick = NULL;
	size_t i, k;
	int rc = -1;

	memset(&str, 0, sizeof(str));
	str.t = SC_ARROW_UTF8;
	sc_eplan_init(&in);
	sc_buf_init(&from, SC_BUF_UNLIMITED);
	if (sc_eng_rel_input(x, src, "describe", &in, err) == -1)
		goto out;
	pick = sc_xcalloc(in.ncols + 1, sizeof(*pick));
	if (pick_cols(&in, cols, ncols, pick, err) == -1)
		goto out;
	if (ncols == 0)
		for (k = 0; k < in.ncols; k++)
			pick[k] = stat_col(&in.cols[k]);
	sc_eng_from_item(x, &in, out, &from);
	sc_eng_cols_add(&out->cols, &out->ncols, "summary", &str, 1);
	for (k = 0; k < in.ncols; k++)
		if (pick[k])
			sc_eng_cols_add(&out->cols, &out->ncols,
			    in.cols[k].name, &str, 1);
	if (nst == 0) {
		st = (char *const *)dflt;
		nst = SC_NELEM(dflt);
	}
	for (i = 0; i < nst; i++) {
		if (i > 0)
			sc_buf_addstr(&out->sql, " UNION ALL ", NULL);
		sc_buf_addstr(&out->sql, "SELECT ", NULL);
		sc_eng_quote_string(&out->sql, st[i], strlen(st[i]));
		sc_buf_addstr(&out->sql, " AS `summary`", NULL);
		for (k = 0; k < in.ncols; k++) {
			if (!pick[k])
				continue;
			sc_buf_addstr(&out->sql, ", ", NULL);
			if (statistic(&out->sql, st[i], &in.cols[k],
				(const char *)from.data, err) == -1)
				goto out;
			sc_buf_addstr(&out->sql, " AS ", NULL);
			sc_eng_quote_ident(&out->sql, in.cols[k].name);
		}
		/* A percentile's row is subqueries alone: one row. */
		sc_buf_addf(&out->sql, NULL, " FROM %s",
		    strchr(st[i], '%') != NULL ? "(SELECT 1)"
					       : (const char *)from.data);
	}
	rc = 0;
out:
	free(pick);
	sc_buf_release(&from);
	sc_eplan_release(&in);
	return rc;
}

int
sc_eng_describe(struct sc_ectx *x, const Spark__Connect__StatDescribe *d,
    struct sc_eplan *out, struct sc_error *err)
{
	static char *const st[] = { (char *)"count", (char *)"mean",
		(char *)"stddev", (char *)"min", (char *)"max" };

	return stats(x, d->input, d->cols, d->n_cols, st, SC_NELEM(st), out,
	    err);
}

int
sc_eng_summary(struct sc_ectx *x, const Spark__Connect__StatSummary *s,
    struct sc_eplan *out, struct sc_error *err)
{
	return stats(x, s->input, NULL, 0, s->statistics, s->n_statistics, out,
	    err);
}

/* cov (kind 0) or corr (kind 2) of two numeric columns: one row. */
int
sc_eng_cov_corr(struct sc_ectx *x, const Spark__Connect__Relation *src,
    const char *c1, const char *c2, int kind, struct sc_eplan *out,
    struct sc_error *err)
{
	struct sc_eplan in;
	const struct sc_ecol *a, *b;
	struct sc_etype dbl;
	const char *name = kind == 2 ? "corr" : "cov";
	int rc = -1;

	memset(&dbl, 0, sizeof(dbl));
	dbl.t = SC_ARROW_DOUBLE;
	sc_eplan_init(&in);
	if (sc_eng_rel_input(x, src, name, &in, err) == -1)
		goto out;
	if ((a = sc_eng_col_named(&in, c1 != NULL ? c1 : "", NULL)) == NULL) {
		rc = sc_eng_unresolved(c1 != NULL ? c1 : "", err);
		goto out;
	}
	if ((b = sc_eng_col_named(&in, c2 != NULL ? c2 : "", NULL)) == NULL) {
		rc = sc_eng_unresolved(c2 != NULL ? c2 : "", err);
		goto out;
	}
	if (type_class(a->type.t) != V_NUM || type_class(b->type.t) != V_NUM) {
		rc = sc_srv_error(err,
		    "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "42K09",
		    "Currently %s calculation is supported between numeric "
		    "columns only.",
		    kind == 2 ? "correlation" : "covariance");
		goto out;
	}
	sc_buf_addstr(&out->sql, "SELECT sc_cov(", NULL);
	sc_eng_col_ref(&out->sql, a);
	sc_buf_addstr(&out->sql, ", ", NULL);
	sc_eng_col_ref(&out->sql, b);
	sc_buf_addf(&out->sql, NULL, ", %d) AS `%s` FROM ", kind, name);
	sc_eng_from_item(x, &in, out, &out->sql);
	sc_eng_cols_add(&out->cols, &out->ncols, name, &dbl, 1);
	rc = 0;
out:
	sc_eplan_release(&in);
	return rc;
}
