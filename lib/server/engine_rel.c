/* SPDX-License-Identifier: MIT */

/*
 * engine_rel.c: the DataFrame relations that combine or reshape inputs:
 * join, set operations (union, intersect, except; by position or name),
 * with_columns, drop, deduplicate and tail.  Each input becomes a common
 * table expression (engine_plan.c's from items); a join's columns keep
 * Spark's names, duplicates included, while SQL reads them by a unique
 * name (sc_ecol.sqlname), and a column's plan id picks its side.
 */

#include "server/engine_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "server/srverror.h"
#include "core/banned.h"

#define JT_(x) SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_##x
#define SOT_(x) SPARK__CONNECT__SET_OPERATION__SET_OP_TYPE__SET_OP_TYPE_##x

static int
no_input(const char *what, struct sc_error *err)
{
	return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
	    "The %s relation has no input.", what);
}

/* Translate input r into p, with its columns known. */
static int
input(struct sc_ectx *x, const Spark__Connect__Relation *r, const char *what,
    struct sc_eplan *p, struct sc_error *err)
{
	if (r == NULL)
		return no_input(what, err);
	if (sc_eng_rel(x, r, p, err) == -1)
		return -1;
	return sc_eng_plan_columns(x, p, err);
}

static const struct sc_ecol *
col_named(const struct sc_eplan *p, const char *name, size_t *idx)
{
	size_t i;

	for (i = 0; i < p->ncols; i++)
		if (strcasecmp(p->cols[i].name, name) == 0) {
			if (idx != NULL)
				*idx = i;
			return &p->cols[i];
		}
	return NULL;
}

static int
unresolved(const char *name, struct sc_error *err)
{
	return sc_srv_error(err, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
	    "42703",
	    "A column, variable, or function parameter with name `%s` "
	    "cannot be resolved.",
	    name);
}

/* ------------------------------------------------------------------ */
/* Join                                                                */
/* ------------------------------------------------------------------ */

/* qual.ref: how the join's own SQL reads column c of a side. */
static char *
side_ref(const char *qual, const struct sc_ecol *c)
{
	struct sc_buf b;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_eng_quote_ident(&b, qual);
	sc_buf_addch(&b, '.', NULL);
	sc_eng_col_ref(&b, c);
	return (char *)sc_buf_detach(&b, NULL);
}

/* Add column c (read as ref) to the join's output, unique in SQL. */
static void
out_col(struct sc_eplan *out, struct sc_buf *sel, const struct sc_ecol *c,
    const char *ref, int nullable)
{
	struct sc_ecol *o;
	struct sc_buf u;
	size_t i, k = 0;
	char alias[300];

	snprintf(alias, sizeof(alias), "%s", c->name);
	for (;;) {
		for (i = 0; i < out->ncols; i++) {
			const char *sn = out->cols[i].sqlname;

			sc_buf_init(&u, SC_BUF_UNLIMITED);
			sc_eng_quote_ident(&u, alias);
			if (sn != NULL
				? strcmp(sn, (const char *)u.data) == 0
				: strcasecmp(out->cols[i].name, alias) == 0) {
				sc_buf_release(&u);
				break;
			}
			sc_buf_release(&u);
		}
		if (i == out->ncols)
			break;
		snprintf(alias, sizeof(alias), "%s#%zu", c->name, ++k);
	}
	if (sel->len > 0)
		sc_buf_addstr(sel, ", ", NULL);
	sc_buf_addstr(sel, ref, NULL);
	sc_buf_addstr(sel, " AS ", NULL);
	sc_eng_quote_ident(sel, alias);
	sc_eng_cols_add(&out->cols, &out->ncols, c->name, &c->type, nullable);
	o = &out->cols[out->ncols - 1];
	memcpy(o->plan_ids, c->plan_ids, sizeof(o->plan_ids));
	o->nplan_ids = c->nplan_ids;
	/* Quoted even when equal to the name: SQL reads it exactly. */
	sc_buf_init(&u, SC_BUF_UNLIMITED);
	sc_eng_quote_ident(&u, alias);
	o->sqlname = (char *)sc_buf_detach(&u, NULL);
}

/* The two sides as one input for the condition: qualified references. */
static void
both_sides(struct sc_eplan *both, const struct sc_eplan *l, const char *lq,
    const struct sc_eplan *r, const char *rq)
{
	size_t i;

	both->cols = sc_xcalloc(l->ncols + r->ncols + 1, sizeof(*both->cols));
	for (i = 0; i < l->ncols + r->ncols; i++) {
		const struct sc_ecol *c = i < l->ncols ? &l->cols[i]
						       : &r->cols[i - l->ncols];

		both->cols[i] = *c;
		both->cols[i].name = sc_xstrdup(c->name);
		both->cols[i].sqlname = side_ref(i < l->ncols ? lq : rq, c);
	}
	both->ncols = l->ncols + r->ncols;
}

int
sc_eng_join(struct sc_ectx *x, const Spark__Connect__Join *j,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan l, r, both;
	struct sc_buf sel, from, cond;
	struct sc_einfo ei;
	char lq[32], rq[32];
	const char *kw;
	bool lnull = false, rnull = false, semi = false, anti = false;
	bool *lused = NULL, *rused = NULL;
	size_t i, li, ri;
	char *ref, *ref2;
	int rc = -1;

	sc_eplan_init(&l);
	sc_eplan_init(&r);
	sc_eplan_init(&both);
	sc_buf_init(&sel, SC_BUF_UNLIMITED);
	sc_buf_init(&from, SC_BUF_UNLIMITED);
	sc_buf_init(&cond, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&ei);
	switch (j->join_type) {
	case JT_(UNSPECIFIED):
	case JT_(INNER):
		kw = "JOIN";
		break;
	case JT_(LEFT_OUTER):
		kw = "LEFT JOIN";
		rnull = true;
		break;
	case JT_(RIGHT_OUTER):
		kw = "RIGHT JOIN";
		lnull = true;
		break;
	case JT_(FULL_OUTER):
		kw = "FULL JOIN";
		lnull = rnull = true;
		break;
	case JT_(CROSS):
		kw = "JOIN";
		break;
	case JT_(LEFT_SEMI):
		kw = NULL;
		semi = true;
		break;
	case JT_(LEFT_ANTI):
		kw = NULL;
		anti = true;
		break;
	default:
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.JOIN_TYPE",
		    "0A000", "The join type %d is not supported by sc-serve.",
		    (int)j->join_type);
	}
	if (j->join_condition != NULL && j->n_using_columns > 0)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A join has both a condition and using columns.");
	if (input(x, j->left, "join", &l, err) == -1 ||
	    input(x, j->right, "join", &r, err) == -1)
		goto out;
	/* Each side under the user's alias, or one of the join's own. */
	snprintf(lq, sizeof(lq), "_sc_l%u", x->seq++);
	snprintf(rq, sizeof(rq), "_sc_r%u", x->seq++);
	if (l.alias == NULL)
		l.alias = sc_xstrdup(lq);
	if (r.alias == NULL)
		r.alias = sc_xstrdup(rq);
	if (strcasecmp(l.alias, r.alias) == 0) {
		free(r.alias);
		r.alias = sc_xstrdup(rq);
	}
	both_sides(&both, &l, l.alias, &r, r.alias);
	lused = sc_xcalloc(l.ncols + 1, sizeof(*lused));
	rused = sc_xcalloc(r.ncols + 1, sizeof(*rused));
	/* USING columns: equal names, each shown once, first. */
	for (i = 0; i < j->n_using_columns; i++) {
		const char *u = j->using_columns[i];

		if (col_named(&l, u, &li) == NULL ||
		    col_named(&r, u, &ri) == NULL) {
			rc = sc_srv_error(err,
			    "UNRESOLVED_USING_COLUMN_FOR_JOIN", "42703",
			    "USING column `%s` cannot be resolved on the %s "
			    "side of the join.",
			    u,
			    col_named(&l, u, NULL) == NULL ? "left" : "right");
			goto out;
		}
		lused[li] = rused[ri] = true;
		ref = side_ref(l.alias, &l.cols[li]);
		ref2 = side_ref(r.alias, &r.cols[ri]);
		sc_buf_addf(&cond, NULL, "%s%s = %s", i > 0 ? " AND " : "", ref,
		    ref2);
		if (!semi && !anti) {
			struct sc_buf co;

			sc_buf_init(&co, SC_BUF_UNLIMITED);
			if (lnull && rnull)
				sc_buf_addf(&co, NULL, "coalesce(%s, %s)", ref,
				    ref2);
			else
				sc_buf_addstr(&co, lnull ? ref2 : ref, NULL);
			out_col(out, &sel,
			    lnull && !rnull ? &r.cols[ri] : &l.cols[li],
			    (const char *)co.data,
			    lnull && rnull ? (l.cols[li].nullable != 0 &&
						 r.cols[ri].nullable != 0)
					   : (lnull ? r.cols[ri].nullable
						    : l.cols[li].nullable));
			sc_buf_release(&co);
		}
		free(ref);
		free(ref2);
	}
	if (j->join_condition != NULL) {
		if (sc_eng_expr(x, &both, j->join_condition, &cond, &ei, err) ==
		    -1)
			goto out;
	}
	if (semi || anti) {
		sc_buf_addstr(&out->sql, "SELECT ", NULL);
		for (i = 0; i < l.ncols; i++) {
			if (i > 0)
				sc_buf_addstr(&out->sql, ", ", NULL);
			ref = side_ref(l.alias, &l.cols[i]);
			sc_buf_addstr(&out->sql, ref, NULL);
			free(ref);
		}
		sc_buf_addstr(&out->sql, " FROM ", NULL);
		sc_eng_from_item(x, &l, out, &out->sql);
		sc_buf_addf(&out->sql, NULL, " WHERE %sEXISTS (SELECT 1 FROM ",
		    anti ? "NOT " : "");
		sc_eng_from_item(x, &r, out, &out->sql);
		if (cond.len > 0)
			sc_buf_addf(&out->sql, NULL, " WHERE %s",
			    (const char *)cond.data);
		sc_buf_addch(&out->sql, ')', NULL);
		out->cols = sc_eng_cols_copy(l.cols, l.ncols);
		out->ncols = l.ncols;
		rc = 0;
		goto out;
	}
	for (i = 0; i < l.ncols; i++) {
		if (lused[i])
			continue;
		ref = side_ref(l.alias, &l.cols[i]);
		out_col(out, &sel, &l.cols[i], ref,
		    lnull ? 1 : l.cols[i].nullable);
		free(ref);
	}
	for (i = 0; i < r.ncols; i++) {
		if (rused[i])
			continue;
		ref = side_ref(r.alias, &r.cols[i]);
		out_col(out, &sel, &r.cols[i], ref,
		    rnull ? 1 : r.cols[i].nullable);
		free(ref);
	}
	if (out->ncols == 0) {
		rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.RELATION", "0A000",
		    "A join without columns is not supported by sc-serve.");
		goto out;
	}
	sc_buf_addstr(&out->sql, "SELECT ", NULL);
	sc_buf_add(&out->sql, sel.data, sel.len, NULL);
	sc_buf_addstr(&out->sql, " FROM ", NULL);
	sc_eng_from_item(x, &l, out, &out->sql);
	if (cond.len == 0 && !lnull && !rnull)
		sc_buf_addstr(&out->sql, " CROSS JOIN ", NULL);
	else
		sc_buf_addf(&out->sql, NULL, " %s ", kw);
	sc_eng_from_item(x, &r, out, &out->sql);
	if (cond.len > 0)
		sc_buf_addf(&out->sql, NULL, " ON %s", (const char *)cond.data);
	else if (lnull || rnull)
		sc_buf_addstr(&out->sql, " ON 1", NULL);
	rc = 0;
out:
	free(lused);
	free(rused);
	sc_eng_einfo_release(&ei);
	sc_buf_release(&sel);
	sc_buf_release(&from);
	sc_buf_release(&cond);
	sc_eplan_release(&l);
	sc_eplan_release(&r);
	sc_eplan_release(&both);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Set operations                                                      */
/* ------------------------------------------------------------------ */

static bool
is_int(int t)
{
	return t == SC_ARROW_INT8 || t == SC_ARROW_INT16 ||
	    t == SC_ARROW_INT32 || t == SC_ARROW_INT64;
}

/* The wider of a and b as Spark widens a union's columns; -1: none. */
static int
widen(const struct sc_etype *a, const struct sc_etype *b, struct sc_etype *out)
{
	if (a->t == b->t && a->prec == b->prec && a->scale == b->scale &&
	    a->ntz == b->ntz && a->nest == b->nest) {
		*out = *a;
		return 0;
	}
	if (a->t == SC_ETYPE_UNKNOWN || b->t == SC_ETYPE_UNKNOWN) {
		memset(out, 0, sizeof(*out));
		out->t = SC_ETYPE_UNKNOWN;
		return 0;
	}
	if (a->t == SC_ARROW_NULL) {
		*out = *b;
		return 0;
	}
	if (b->t == SC_ARROW_NULL) {
		*out = *a;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	if (is_int(a->t) && is_int(b->t)) {
		out->t = a->t > b->t ? a->t : b->t;
		return 0;
	}
	if ((is_int(a->t) || a->t == SC_ARROW_FLOAT ||
		a->t == SC_ARROW_DOUBLE) &&
	    (is_int(b->t) || b->t == SC_ARROW_FLOAT ||
		b->t == SC_ARROW_DOUBLE)) {
		out->t = SC_ARROW_DOUBLE;
		return 0;
	}
	if (a->t == SC_ARROW_UTF8 || b->t == SC_ARROW_UTF8) {
		if (a->nest != NULL || b->nest != NULL ||
		    a->t == SC_ARROW_BINARY || b->t == SC_ARROW_BINARY)
			return -1;
		out->t = SC_ARROW_UTF8;
		return 0;
	}
	return -1;
}

int
sc_eng_set_op(struct sc_ectx *x, const Spark__Connect__SetOperation *s,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan l, r;
	struct sc_buf ls, rs, lf, rf;
	const char *op;
	bool all, by_name, missing;
	size_t *lmap = NULL, *rmap = NULL, n = 0, i, k;
	const size_t none = (size_t)-1;
	struct sc_etype t;
	int rc = -1;

	all = s->_is_all_case ==
		SPARK__CONNECT__SET_OPERATION___IS_ALL_IS_ALL &&
	    s->is_all;
	by_name = s->_by_name_case ==
		SPARK__CONNECT__SET_OPERATION___BY_NAME_BY_NAME &&
	    s->by_name;
	missing = s->_allow_missing_columns_case ==
		SPARK__CONNECT__SET_OPERATION___ALLOW_MISSING_COLUMNS_ALLOW_MISSING_COLUMNS &&
	    s->allow_missing_columns;
	switch (s->set_op_type) {
	case SOT_(UNION):
		op = all ? "UNION ALL" : "UNION";
		break;
	case SOT_(INTERSECT):
		op = "INTERSECT";
		break;
	case SOT_(EXCEPT):
		op = "EXCEPT";
		break;
	default:
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A set operation has no type.");
	}
	sc_eplan_init(&l);
	sc_eplan_init(&r);
	sc_buf_init(&ls, SC_BUF_UNLIMITED);
	sc_buf_init(&rs, SC_BUF_UNLIMITED);
	sc_buf_init(&lf, SC_BUF_UNLIMITED);
	sc_buf_init(&rf, SC_BUF_UNLIMITED);
	if (input(x, s->left_input, "set_op", &l, err) == -1 ||
	    input(x, s->right_input, "set_op", &r, err) == -1)
		goto out;
	/* Output column k: left column lmap[k], right column rmap[k]. */
	lmap = sc_xcalloc(l.ncols + r.ncols + 1, sizeof(*lmap));
	rmap = sc_xcalloc(l.ncols + r.ncols + 1, sizeof(*rmap));
	if (!by_name) {
		if (l.ncols != r.ncols) {
			rc = sc_srv_error(err, "NUM_COLUMNS_MISMATCH", "42826",
			    "%s can only be performed on inputs with the same "
			    "number of columns, but the first input has %zu "
			    "columns and the second input has %zu columns.",
			    s->set_op_type == SOT_(UNION) ? "UNION"
				: s->set_op_type == SOT_(INTERSECT)
				? "INTERSECT"
				: "EXCEPT",
			    l.ncols, r.ncols);
			goto out;
		}
		for (i = 0; i < l.ncols; i++)
			lmap[n] = rmap[n] = i, n++;
	} else {
		for (i = 0; i < l.ncols; i++) {
			lmap[n] = i;
			if (col_named(&r, l.cols[i].name, &k) != NULL) {
				rmap[n++] = k;
				continue;
			}
			if (!missing) {
				rc = unresolved(l.cols[i].name, err);
				goto out;
			}
			rmap[n++] = none;
		}
		for (i = 0; i < r.ncols; i++) {
			if (col_named(&l, r.cols[i].name, NULL) != NULL)
				continue;
			if (!missing) {
				rc = unresolved(r.cols[i].name, err);
				goto out;
			}
			lmap[n] = none;
			rmap[n++] = i;
		}
	}
	for (k = 0; k < n; k++) {
		const struct sc_ecol *lc = lmap[k] != none ? &l.cols[lmap[k]]
							   : NULL;
		const struct sc_ecol *rc_ = rmap[k] != none ? &r.cols[rmap[k]]
							    : NULL;
		const struct sc_ecol *named = lc != NULL ? lc : rc_;
		struct sc_etype nt;

		memset(&nt, 0, sizeof(nt));
		nt.t = SC_ARROW_NULL;
		if (widen(lc != NULL ? &lc->type : &nt,
			rc_ != NULL ? &rc_->type : &nt, &t) == -1) {
			struct sc_buf a, b;

			sc_buf_init(&a, SC_BUF_UNLIMITED);
			sc_buf_init(&b, SC_BUF_UNLIMITED);
			sc_eng_type_text(&lc->type, SC_VALUE_SQL, &a);
			sc_eng_type_text(&rc_->type, SC_VALUE_SQL, &b);
			rc = sc_srv_error(err, "INCOMPATIBLE_COLUMN_TYPE",
			    "42825",
			    "%s can only be performed on tables with "
			    "compatible column types. The column `%s` has "
			    "the type \"%s\" on the left and \"%s\" on the "
			    "right.",
			    op, named->name, (const char *)a.data,
			    (const char *)b.data);
			sc_buf_release(&a);
			sc_buf_release(&b);
			goto out;
		}
		if (k > 0) {
			sc_buf_addstr(&ls, ", ", NULL);
			sc_buf_addstr(&rs, ", ", NULL);
		}
		if (lc != NULL)
			sc_eng_col_ref(&ls, lc);
		else
			sc_buf_addstr(&ls, "NULL", NULL);
		sc_buf_addstr(&ls, " AS ", NULL);
		sc_eng_quote_ident(&ls, named->name);
		if (rc_ != NULL)
			sc_eng_col_ref(&rs, rc_);
		else
			sc_buf_addstr(&rs, "NULL", NULL);
		sc_eng_cols_add(&out->cols, &out->ncols, named->name, &t,
		    lc == NULL || rc_ == NULL || lc->nullable != 0 ||
			(rc_->nullable != 0 && s->set_op_type == SOT_(UNION)));
	}
	sc_eng_from_item(x, &l, out, &lf);
	sc_eng_from_item(x, &r, out, &rf);
	if (all && s->set_op_type != SOT_(UNION)) {
		/* INTERSECT ALL, EXCEPT ALL: number the copies of a row. */
		struct sc_buf lp;

		sc_buf_init(&lp, SC_BUF_UNLIMITED);
		for (k = 0; k < n; k++) {
			if (k > 0)
				sc_buf_addstr(&lp, ", ", NULL);
			if (lmap[k] != none)
				sc_eng_col_ref(&lp, &l.cols[lmap[k]]);
			else
				sc_buf_addstr(&lp, "NULL", NULL);
		}
		sc_buf_addstr(&out->sql, "SELECT ", NULL);
		for (k = 0; k < n; k++) {
			if (k > 0)
				sc_buf_addstr(&out->sql, ", ", NULL);
			sc_eng_quote_ident(&out->sql, out->cols[k].name);
		}
		sc_buf_addf(&out->sql, NULL,
		    " FROM (SELECT %s, row_number() OVER (PARTITION BY %s) "
		    "AS _sc_rn FROM %s %s SELECT %s, row_number() OVER "
		    "(PARTITION BY %s) FROM %s)",
		    (const char *)ls.data, (const char *)lp.data,
		    (const char *)lf.data, op, (const char *)rs.data,
		    (const char *)rs.data, (const char *)rf.data);
		sc_buf_release(&lp);
	} else {
		sc_buf_addf(&out->sql, NULL,
		    "SELECT %s FROM %s %s SELECT %s "
		    "FROM %s",
		    (const char *)ls.data, (const char *)lf.data, op,
		    (const char *)rs.data, (const char *)rf.data);
	}
	rc = 0;
out:
	free(lmap);
	free(rmap);
	sc_buf_release(&ls);
	sc_buf_release(&rs);
	sc_buf_release(&lf);
	sc_buf_release(&rf);
	sc_eplan_release(&l);
	sc_eplan_release(&r);
	return rc;
}

/* ------------------------------------------------------------------ */
/* with_columns, drop, deduplicate, tail                               */
/* ------------------------------------------------------------------ */

int
sc_eng_with_columns(struct sc_ectx *x, const Spark__Connect__WithColumns *w,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	struct sc_buf *exprs = NULL;
	struct sc_einfo ei;
	size_t i, k, nout;
	int rc = -1;

	sc_eplan_init(&in);
	if (input(x, w->input, "with_columns", &in, err) == -1)
		goto out;
	out->cols = sc_eng_cols_copy(in.cols, in.ncols);
	out->ncols = nout = in.ncols;
	exprs = sc_xcalloc(in.ncols + w->n_aliases + 1, sizeof(*exprs));
	for (i = 0; i < in.ncols + w->n_aliases; i++)
		sc_buf_init(&exprs[i], SC_BUF_UNLIMITED);
	for (i = 0; i < w->n_aliases; i++) {
		const Spark__Connect__Expression__Alias *a = w->aliases[i];

		if (a->n_name != 1 || a->expr == NULL) {
			rc = sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
			    "A with_columns alias needs one name and an "
			    "expression.");
			goto out;
		}
		sc_eng_einfo_init(&ei);
		if (sc_eng_expr(x, &in, a->expr, &exprs[nout], &ei, err) ==
		    -1) {
			sc_eng_einfo_release(&ei);
			goto out;
		}
		/* A name already there is replaced in place. */
		for (k = 0; k < nout; k++)
			if (strcasecmp(out->cols[k].name, a->name[0]) == 0)
				break;
		if (k < nout) {
			sc_buf_release(&exprs[k]);
			exprs[k] = exprs[nout];
			sc_buf_init(&exprs[nout], SC_BUF_UNLIMITED);
			free(out->cols[k].name);
			free(out->cols[k].sqlname);
			out->cols[k].sqlname = NULL;
			out->cols[k].name = sc_xstrdup(a->name[0]);
			out->cols[k].type = ei.type;
			out->cols[k].nullable = ei.nullable;
			out->cols[k].nplan_ids = 0;
		} else {
			sc_eng_cols_add(&out->cols, &out->ncols, a->name[0],
			    &ei.type, ei.nullable);
			nout++;
		}
		sc_eng_einfo_release(&ei);
	}
	sc_buf_addstr(&out->sql, "SELECT ", NULL);
	for (k = 0; k < nout; k++) {
		if (k > 0)
			sc_buf_addstr(&out->sql, ", ", NULL);
		if (exprs[k].len == 0) {
			sc_eng_col_ref(&out->sql, &in.cols[k]);
			continue;
		}
		sc_buf_add(&out->sql, exprs[k].data, exprs[k].len, NULL);
		sc_buf_addstr(&out->sql, " AS ", NULL);
		sc_eng_quote_ident(&out->sql, out->cols[k].name);
	}
	sc_buf_addstr(&out->sql, " FROM ", NULL);
	sc_eng_from_item(x, &in, out, &out->sql);
	rc = 0;
out:
	for (i = 0; exprs != NULL && i < in.ncols + w->n_aliases; i++)
		sc_buf_release(&exprs[i]);
	free(exprs);
	sc_eplan_release(&in);
	return rc;
}

/* SELECT the columns of in marked keep[] FROM in. */
static void
select_kept(struct sc_ectx *x, struct sc_eplan *in, const bool *keep,
    struct sc_eplan *out)
{
	size_t i;
	bool first = true;

	sc_buf_addstr(&out->sql, "SELECT ", NULL);
	for (i = 0; i < in->ncols; i++) {
		struct sc_ecol *c;

		if (!keep[i])
			continue;
		if (!first)
			sc_buf_addstr(&out->sql, ", ", NULL);
		first = false;
		sc_eng_col_ref(&out->sql, &in->cols[i]);
		sc_eng_cols_add(&out->cols, &out->ncols, in->cols[i].name,
		    &in->cols[i].type, in->cols[i].nullable);
		c = &out->cols[out->ncols - 1];
		if (in->cols[i].sqlname != NULL)
			c->sqlname = sc_xstrdup(in->cols[i].sqlname);
		memcpy(c->plan_ids, in->cols[i].plan_ids, sizeof(c->plan_ids));
		c->nplan_ids = in->cols[i].nplan_ids;
	}
	sc_buf_addstr(&out->sql, " FROM ", NULL);
	sc_eng_from_item(x, in, out, &out->sql);
}

int
sc_eng_drop(struct sc_ectx *x, const Spark__Connect__Drop *d,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	bool *keep = NULL;
	size_t i, k, left;
	int rc = -1;

	sc_eplan_init(&in);
	if (input(x, d->input, "drop", &in, err) == -1)
		goto out;
	keep = sc_xcalloc(in.ncols + 1, sizeof(*keep));
	for (i = 0; i < in.ncols; i++)
		keep[i] = true;
	/* A name the input lacks is no error (Spark ignores it). */
	for (i = 0; i < d->n_column_names; i++)
		for (k = 0; k < in.ncols; k++)
			if (strcasecmp(in.cols[k].name, d->column_names[i]) ==
			    0)
				keep[k] = false;
	for (i = 0; i < d->n_columns; i++) {
		const Spark__Connect__Expression *e = d->columns[i];
		const Spark__Connect__Expression__UnresolvedAttribute *a;

		if (e->expr_type_case != SC_EXPR_(UNRESOLVED_ATTRIBUTE)) {
			rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
			    "0A000",
			    "drop() of an expression that is not a column is "
			    "not supported by sc-serve.");
			goto out;
		}
		a = e->unresolved_attribute;
		for (k = 0; k < in.ncols; k++) {
			if (a->unparsed_identifier == NULL ||
			    strcasecmp(in.cols[k].name,
				a->unparsed_identifier) != 0)
				continue;
			if (a->_plan_id_case ==
				SPARK__CONNECT__EXPRESSION__UNRESOLVED_ATTRIBUTE___PLAN_ID_PLAN_ID &&
			    in.cols[k].nplan_ids > 0 &&
			    !sc_eng_col_from(&in.cols[k], a->plan_id))
				continue;
			keep[k] = false;
		}
	}
	for (i = left = 0; i < in.ncols; i++)
		left += keep[i];
	if (left == 0) {
		rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.RELATION", "0A000",
		    "Dropping every column is not supported by sc-serve.");
		goto out;
	}
	select_kept(x, &in, keep, out);
	rc = 0;
out:
	free(keep);
	sc_eplan_release(&in);
	return rc;
}

int
sc_eng_dedup(struct sc_ectx *x, const Spark__Connect__Deduplicate *d,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	struct sc_buf keys;
	const struct sc_ecol *c;
	size_t i;
	int rc = -1;

	if (d->_within_watermark_case ==
		SPARK__CONNECT__DEDUPLICATE___WITHIN_WATERMARK_WITHIN_WATERMARK &&
	    d->within_watermark)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.RELATION",
		    "0A000",
		    "dropDuplicatesWithinWatermark (streaming) is not "
		    "supported by sc-serve.");
	sc_eplan_init(&in);
	sc_buf_init(&keys, SC_BUF_UNLIMITED);
	if (input(x, d->input, "deduplicate", &in, err) == -1)
		goto out;
	for (i = 0; i < d->n_column_names; i++) {
		if ((c = col_named(&in, d->column_names[i], NULL)) == NULL) {
			rc = unresolved(d->column_names[i], err);
			goto out;
		}
		if (keys.len > 0)
			sc_buf_addstr(&keys, ", ", NULL);
		sc_eng_col_ref(&keys, c);
	}
	out->cols = sc_eng_cols_copy(in.cols, in.ncols);
	out->ncols = in.ncols;
	sc_buf_addstr(&out->sql, "SELECT ", NULL);
	for (i = 0; i < in.ncols; i++) {
		if (i > 0)
			sc_buf_addstr(&out->sql, ", ", NULL);
		sc_eng_col_ref(&out->sql, &in.cols[i]);
	}
	if (keys.len == 0) {
		sc_buf_addstr(&out->sql, " FROM (SELECT DISTINCT * FROM ",
		    NULL);
		sc_eng_from_item(x, &in, out, &out->sql);
		sc_buf_addch(&out->sql, ')', NULL);
	} else {
		/* The first row of each key, as Spark keeps one. */
		sc_buf_addf(&out->sql, NULL,
		    " FROM (SELECT *, row_number() OVER (PARTITION BY %s) AS "
		    "_sc_rn FROM ",
		    (const char *)keys.data);
		sc_eng_from_item(x, &in, out, &out->sql);
		sc_buf_addstr(&out->sql, ") WHERE _sc_rn = 1", NULL);
	}
	rc = 0;
out:
	sc_buf_release(&keys);
	sc_eplan_release(&in);
	return rc;
}

int
sc_eng_tail(struct sc_ectx *x, const Spark__Connect__Tail *t,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	size_t i;
	int rc = -1;

	if (t->limit < 0)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The tail must not be negative: %d.", (int)t->limit);
	sc_eplan_init(&in);
	if (input(x, t->input, "tail", &in, err) == -1)
		goto out;
	out->cols = sc_eng_cols_copy(in.cols, in.ncols);
	out->ncols = in.ncols;
	sc_buf_addstr(&out->sql, "SELECT ", NULL);
	for (i = 0; i < in.ncols; i++) {
		if (i > 0)
			sc_buf_addstr(&out->sql, ", ", NULL);
		sc_eng_col_ref(&out->sql, &in.cols[i]);
	}
	sc_buf_addstr(&out->sql,
	    " FROM (SELECT *, row_number() OVER () AS _sc_rn, count(*) OVER "
	    "() AS _sc_n FROM ",
	    NULL);
	sc_eng_from_item(x, &in, out, &out->sql);
	sc_buf_addf(&out->sql, NULL,
	    ") WHERE _sc_rn > _sc_n - %d ORDER BY _sc_rn", (int)t->limit);
	rc = 0;
out:
	sc_eplan_release(&in);
	return rc;
}

/* ------------------------------------------------------------------ */
/* rollup, cube, grouping sets, pivot                                  */
/* ------------------------------------------------------------------ */

#define GROUP_(x) SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_##x

/* Most grouping expressions a rollup, cube or grouping sets may have. */
#define MAX_GROUPING 12
/* Most values a pivot finds by itself (spark.sql.pivotMaxValues). */
#define MAX_PIVOT_VALUES 10000

struct gexpr {
	struct sc_buf sql;
	struct sc_einfo ei;
};

/* One aggregate expression as "sql AS name" into sel; its column. */
static int
agg_item(struct sc_ectx *x, struct sc_eplan *in,
    const Spark__Connect__Expression *e, struct sc_buf *sel,
    struct sc_einfo *ei, struct sc_error *err)
{
	struct sc_buf s;
	int rc;

	sc_buf_init(&s, SC_BUF_UNLIMITED);
	rc = sc_eng_expr(x, in, e, &s, ei, err);
	if (rc == 0) {
		sc_buf_add(sel, s.data, s.len, NULL);
	}
	sc_buf_release(&s);
	return rc;
}

/* A pivot value: its SQL literal, its name, or (isnull) NULL. */
struct pval {
	struct sc_buf sql;
	struct sc_buf name;
	bool isnull;
};

static void
pvals_free(struct pval *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		sc_buf_release(&v[i].sql);
		sc_buf_release(&v[i].name);
	}
	free(v);
}

static struct pval *
pval_add(struct pval **v, size_t *n)
{
	struct pval *p;

	*v = sc_xreallocarray(*v, *n + 1, sizeof(**v));
	p = &(*v)[(*n)++];
	sc_buf_init(&p->sql, SC_BUF_UNLIMITED);
	sc_buf_init(&p->name, SC_BUF_UNLIMITED);
	p->isnull = false;
	return p;
}

/* The distinct values of psql over from, sorted (Spark's default). */
static int
pivot_values(struct sc_ectx *x, const struct sc_eplan *out, const char *psql,
    const char *from, struct pval **v, size_t *n, struct sc_error *err)
{
	struct sc_buf q;
	sqlite3_stmt *st = NULL;
	struct pval *p;
	int rc = -1, step;
	char b[64];

	sc_buf_init(&q, SC_BUF_UNLIMITED);
	if (out->with.len > 0) {
		sc_buf_addstr(&q, "WITH ", NULL);
		sc_buf_add(&q, out->with.data, out->with.len, NULL);
		sc_buf_addch(&q, '\n', NULL);
	}
	sc_buf_addf(&q, NULL,
	    "SELECT DISTINCT %s FROM %s ORDER BY 1 ASC NULLS FIRST LIMIT %d",
	    psql, from, MAX_PIVOT_VALUES + 1);
	if (sc_eng_prepare(x, (const char *)q.data, q.len, &st, NULL, err) ==
	    -1)
		goto out;
	while ((step = sc_eng_step(x, st)) == SQLITE_ROW) {
		if (*n == MAX_PIVOT_VALUES) {
			sc_srv_error(err, "PIVOT_VALUE_LIMIT_EXCEEDED", "54000",
			    "The pivot column has more than %d distinct "
			    "values; give the values to pivot on.",
			    MAX_PIVOT_VALUES);
			goto out;
		}
		p = pval_add(v, n);
		switch (sqlite3_column_type(st, 0)) {
		case SQLITE_NULL:
			p->isnull = true;
			sc_buf_addstr(&p->name, "null", NULL);
			break;
		case SQLITE_INTEGER:
			sc_buf_addf(&p->sql, NULL, "%lld",
			    (long long)sqlite3_column_int64(st, 0));
			sc_buf_add(&p->name, p->sql.data, p->sql.len, NULL);
			break;
		case SQLITE_FLOAT:
			sqlite3_snprintf((int)sizeof(b), b, "%!.17g",
			    sqlite3_column_double(st, 0));
			sc_buf_addstr(&p->sql, b, NULL);
			sc_value_fmt_double(sqlite3_column_double(st, 0), b);
			sc_buf_addstr(&p->name, b, NULL);
			break;
		default:
			sc_eng_quote_string(&p->sql,
			    (const char *)sqlite3_column_text(st, 0),
			    (size_t)sqlite3_column_bytes(st, 0));
			sc_buf_add(&p->name, sqlite3_column_text(st, 0),
			    (size_t)sqlite3_column_bytes(st, 0), NULL);
			break;
		}
	}
	if (step != SQLITE_DONE) {
		sc_eng_sqlite_error(x, step, err);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	sc_buf_release(&q);
	return rc;
}

int
sc_eng_aggregate_sets(struct sc_ectx *x, const Spark__Connect__Aggregate *a,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	struct gexpr *g = NULL;
	struct sc_buf from, branch, cond, psql;
	struct sc_einfo ei;
	unsigned long *sets = NULL, full;
	size_t ng = a->n_grouping_expressions, nsets = 0, i, k, s;
	struct pval *pv = NULL;
	size_t npv = 0;
	char **saved_gsql = x->gsql;
	size_t saved_ngsql = x->ngsql;
	unsigned long saved_gmask = x->gmask;
	int rc = -1;

	sc_eplan_init(&in);
	sc_buf_init(&from, SC_BUF_UNLIMITED);
	sc_buf_init(&branch, SC_BUF_UNLIMITED);
	sc_buf_init(&cond, SC_BUF_UNLIMITED);
	sc_buf_init(&psql, SC_BUF_UNLIMITED);
	if (ng > MAX_GROUPING && a->group_type != GROUP_(PIVOT))
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.GROUP_TYPE",
		    "0A000",
		    "Grouping sets over more than %d expressions are not "
		    "supported by sc-serve.",
		    MAX_GROUPING);
	if (input(x, a->input, "aggregate", &in, err) == -1)
		goto out;
	g = sc_xcalloc(ng + 1, sizeof(*g));
	for (i = 0; i < ng; i++) {
		sc_buf_init(&g[i].sql, SC_BUF_UNLIMITED);
		sc_eng_einfo_init(&g[i].ei);
	}
	for (i = 0; i < ng; i++)
		if (sc_eng_expr(x, &in, a->grouping_expressions[i], &g[i].sql,
			&g[i].ei, err) == -1)
			goto out;
	sc_eng_from_item(x, &in, out, &from);
	full = ng > 0 ? (1UL << ng) - 1 : 0;
	switch (a->group_type) {
	case GROUP_(ROLLUP):
		sets = sc_xcalloc(ng + 1, sizeof(*sets));
		for (k = ng + 1; k-- > 0;)
			sets[nsets++] = k > 0 ? (1UL << k) - 1 : 0;
		break;
	case GROUP_(CUBE):
		sets = sc_xcalloc(full + 1, sizeof(*sets));
		for (k = full + 1; k-- > 0;)
			sets[nsets++] = k;
		break;
	case GROUP_(GROUPING_SETS):
		sets = sc_xcalloc(a->n_grouping_sets + 1, sizeof(*sets));
		for (s = 0; s < a->n_grouping_sets; s++) {
			const Spark__Connect__Aggregate__GroupingSets *gs =
			    a->grouping_sets[s];
			unsigned long m = 0;

			for (k = 0; k < gs->n_grouping_set; k++) {
				struct sc_buf t;
				struct sc_einfo te;

				sc_buf_init(&t, SC_BUF_UNLIMITED);
				sc_eng_einfo_init(&te);
				rc = sc_eng_expr(x, &in, gs->grouping_set[k],
				    &t, &te, err);
				for (i = 0; rc == 0 && i < ng; i++)
					if (strcmp((const char *)t.data,
						(const char *)g[i].sql.data) ==
					    0)
						break;
				if (rc == 0 && i == ng)
					rc = sc_srv_error(err,
					    "GROUPING_COLUMN_MISMATCH", "42803",
					    "The grouping set column %s is not "
					    "one of the grouping expressions.",
					    (const char *)te.name.data);
				sc_buf_release(&t);
				sc_eng_einfo_release(&te);
				if (rc == -1)
					goto out;
				m |= 1UL << i;
			}
			sets[nsets++] = m;
		}
		rc = -1;
		break;
	case GROUP_(PIVOT):
		nsets = 1;
		break;
	default:
		rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.GROUP_TYPE",
		    "0A000", "The group type %d is not supported by sc-serve.",
		    (int)a->group_type);
		goto out;
	}
	if (a->group_type == GROUP_(PIVOT)) {
		struct sc_einfo pe;

		if (a->pivot == NULL || a->pivot->col == NULL) {
			rc = sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
			    "A pivot has no column.");
			goto out;
		}
		sc_eng_einfo_init(&pe);
		rc = sc_eng_expr(x, &in, a->pivot->col, &psql, &pe, err);
		sc_eng_einfo_release(&pe);
		if (rc == -1)
			goto out;
		rc = -1;
		for (k = 0; k < a->pivot->n_values; k++) {
			Spark__Connect__Expression le =
			    SPARK__CONNECT__EXPRESSION__INIT;
			struct pval *p = pval_add(&pv, &npv);

			le.expr_type_case = SC_EXPR_(LITERAL);
			le.literal = a->pivot->values[k];
			sc_eng_einfo_init(&pe);
			rc = sc_eng_expr(x, NULL, &le, &p->sql, &pe, err);
			sc_buf_add(&p->name, pe.name.data, pe.name.len, NULL);
			p->isnull = pe.type.t == SC_ARROW_NULL;
			if (p->isnull) {
				sc_buf_reset(&p->name);
				sc_buf_addstr(&p->name, "null", NULL);
			}
			sc_eng_einfo_release(&pe);
			if (rc == -1)
				goto out;
			rc = -1;
		}
		if (a->pivot->n_values == 0 &&
		    pivot_values(x, out, (const char *)psql.data,
			(const char *)from.data, &pv, &npv, err) == -1)
			goto out;
	}
	/* One SELECT per grouping set, put together with UNION ALL. */
	x->gsql = sc_xcalloc(ng + 1, sizeof(*x->gsql));
	for (i = 0; i < ng; i++)
		x->gsql[i] = (char *)g[i].sql.data;
	x->ngsql = a->group_type == GROUP_(PIVOT) ? 0 : ng;
	for (s = 0; s < nsets; s++) {
		unsigned long m = a->group_type == GROUP_(PIVOT) ? full
								 : sets[s];

		x->gmask = m;
		sc_buf_reset(&branch);
		sc_buf_addstr(&branch, "SELECT ", NULL);
		for (i = 0; i < ng; i++) {
			if (i > 0)
				sc_buf_addstr(&branch, ", ", NULL);
			if (m >> i & 1)
				sc_buf_add(&branch, g[i].sql.data, g[i].sql.len,
				    NULL);
			else
				sc_buf_addstr(&branch, "NULL", NULL);
			sc_buf_addstr(&branch, " AS ", NULL);
			sc_eng_quote_ident(&branch,
			    (const char *)g[i].ei.name.data);
			if (s == 0)
				sc_eng_cols_add(&out->cols, &out->ncols,
				    (const char *)g[i].ei.name.data,
				    &g[i].ei.type,
				    a->group_type == GROUP_(PIVOT)
					? g[i].ei.nullable
					: 1);
		}
		for (k = 0; k < (a->group_type == GROUP_(PIVOT) ? npv : 1);
		     k++) {
			if (a->group_type == GROUP_(PIVOT)) {
				sc_buf_reset(&cond);
				if (pv[k].isnull)
					sc_buf_addf(&cond, NULL, "(%s) IS NULL",
					    (const char *)psql.data);
				else
					sc_buf_addf(&cond, NULL, "(%s) = %s",
					    (const char *)psql.data,
					    (const char *)pv[k].sql.data);
				x->pivot_cond = (const char *)cond.data;
			}
			for (i = 0; i < a->n_aggregate_expressions; i++) {
				struct sc_buf name;

				if (ng > 0 || i > 0 || k > 0)
					sc_buf_addstr(&branch, ", ", NULL);
				sc_eng_einfo_init(&ei);
				if (x->pivot_cond != NULL)
					sc_buf_addf(&branch, NULL,
					    "CASE WHEN count(CASE WHEN %s "
					    "THEN 1 END) > 0 THEN ",
					    x->pivot_cond);
				rc = agg_item(x, &in,
				    a->aggregate_expressions[i], &branch, &ei,
				    err);
				if (x->pivot_cond != NULL)
					sc_buf_addstr(&branch, " END", NULL);
				x->pivot_cond = NULL;
				if (rc == -1) {
					sc_eng_einfo_release(&ei);
					goto out;
				}
				rc = -1;
				sc_buf_init(&name, SC_BUF_UNLIMITED);
				if (a->group_type == GROUP_(PIVOT)) {
					sc_buf_add(&name, pv[k].name.data,
					    pv[k].name.len, NULL);
					if (a->n_aggregate_expressions > 1) {
						sc_buf_addch(&name, '_', NULL);
						sc_buf_add(&name, ei.name.data,
						    ei.name.len, NULL);
					}
					x->pivot_cond = (const char *)cond.data;
				} else {
					sc_buf_add(&name, ei.name.data,
					    ei.name.len, NULL);
				}
				sc_buf_addstr(&branch, " AS ", NULL);
				sc_eng_quote_ident(&branch,
				    (const char *)name.data);
				if (s == 0)
					sc_eng_cols_add(&out->cols, &out->ncols,
					    (const char *)name.data, &ei.type,
					    a->group_type == GROUP_(PIVOT)
						? 1
						: ei.nullable);
				sc_buf_release(&name);
				sc_eng_einfo_release(&ei);
			}
			x->pivot_cond = NULL;
		}
		sc_buf_addstr(&branch, " FROM ", NULL);
		sc_buf_add(&branch, from.data, from.len, NULL);
		if (m != 0) {
			bool first = true;

			sc_buf_addstr(&branch, " GROUP BY ", NULL);
			for (i = 0; i < ng; i++) {
				if (!(m >> i & 1))
					continue;
				if (!first)
					sc_buf_addstr(&branch, ", ", NULL);
				first = false;
				sc_buf_add(&branch, g[i].sql.data, g[i].sql.len,
				    NULL);
			}
		}
		if (s > 0)
			sc_buf_addstr(&out->sql, " UNION ALL ", NULL);
		sc_buf_add(&out->sql, branch.data, branch.len, NULL);
	}
	if (out->ncols == 0) {
		rc = sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "An aggregate needs at least one column.");
		goto out;
	}
	rc = 0;
out:
	free(x->gsql != saved_gsql ? x->gsql : NULL);
	x->gsql = saved_gsql;
	x->ngsql = saved_ngsql;
	x->gmask = saved_gmask;
	x->pivot_cond = NULL;
	for (i = 0; g != NULL && i < ng; i++) {
		sc_buf_release(&g[i].sql);
		sc_eng_einfo_release(&g[i].ei);
	}
	free(g);
	free(sets);
	pvals_free(pv, npv);
	sc_buf_release(&from);
	sc_buf_release(&branch);
	sc_buf_release(&cond);
	sc_buf_release(&psql);
	sc_eplan_release(&in);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Generators in a projection: explode, posexplode (and _outer)        */
/* ------------------------------------------------------------------ */

static bool
is_generator(const Spark__Connect__Expression *e)
{
	const char *n;

	if (e == NULL)
		return false;
	if (e->expr_type_case == SC_EXPR_(ALIAS))
		e = e->alias->expr;
	if (e == NULL || e->expr_type_case != SC_EXPR_(UNRESOLVED_FUNCTION))
		return false;
	n = e->unresolved_function->function_name;
	return n != NULL &&
	    (strcasecmp(n, "explode") == 0 ||
		strcasecmp(n, "explode_outer") == 0 ||
		strcasecmp(n, "posexplode") == 0 ||
		strcasecmp(n, "posexplode_outer") == 0);
}

size_t
sc_eng_generator(const Spark__Connect__Project *p)
{
	size_t i;

	for (i = 0; i < p->n_expressions; i++)
		if (is_generator(p->expressions[i]))
			return i;
	return (size_t)-1;
}

/* Add an output column "sql AS name" of the generator. */
static void
gen_col(struct sc_buf *sql, struct sc_eplan *out, const char *expr,
    const struct sc_etype *t, int nullable, const char *name)
{
	if (sql->len > 0)
		sc_buf_addstr(sql, ", ", NULL);
	sc_buf_addstr(sql, expr, NULL);
	sc_buf_addstr(sql, " AS ", NULL);
	sc_eng_quote_ident(sql, name);
	sc_eng_cols_add(&out->cols, &out->ncols, name, t, nullable);
}

/*
 * Rewrite in as in joined with the rows of the generator at gi of p
 * (in becomes that join, its columns unchanged: _sc_gk, _sc_gv hold
 * the element's position and value), and put the generator's output
 * columns, SQL "expr AS name, ...", into gsql and gcols.
 */
int
sc_eng_generate(struct sc_ectx *x, const Spark__Connect__Project *p, size_t gi,
    struct sc_eplan *in, struct sc_buf *gsql, struct sc_eplan *gcols,
    struct sc_error *err)
{
	const Spark__Connect__Expression *e = p->expressions[gi];
	const Spark__Connect__Expression__Alias *al = NULL;
	const Spark__Connect__Expression__UnresolvedFunction *f;
	struct sc_eplan gen;
	struct sc_buf arg, v;
	struct sc_einfo ei;
	const struct sc_enest *n;
	struct sc_etype pos;
	const char *fname, *names[3];
	size_t i, nn = 0, want;
	bool outer, posx;
	char qual[32];
	int rc = -1;

	for (i = gi + 1; i < p->n_expressions; i++)
		if (is_generator(p->expressions[i]))
			return sc_srv_error(err,
			    "UNSUPPORTED_GENERATOR.MULTI_GENERATOR", "42K0E",
			    "Only one generator allowed per SELECT clause but "
			    "found more.");
	if (e->expr_type_case == SC_EXPR_(ALIAS)) {
		al = e->alias;
		e = al->expr;
	}
	f = e->unresolved_function;
	fname = f->function_name;
	outer = strstr(fname, "_outer") != NULL ||
	    strstr(fname, "_OUTER") != NULL;
	posx = strncasecmp(fname, "pos", 3) == 0;
	if (f->n_arguments != 1)
		return sc_srv_error(err, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
		    "42605",
		    "The `%s` requires 1 parameters but the actual number is "
		    "%zu.",
		    fname, f->n_arguments);
	sc_eplan_init(&gen);
	sc_buf_init(&arg, SC_BUF_UNLIMITED);
	sc_buf_init(&v, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&ei);
	if (sc_eng_expr(x, in, f->arguments[0], &arg, &ei, err) == -1)
		goto out;
	if (ei.type.t != SC_ARROW_LIST && ei.type.t != SC_ARROW_MAP) {
		rc = sc_srv_error(err,
		    "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "42K09",
		    "Cannot resolve \"%s(%s)\" due to data type mismatch: its "
		    "input must be an \"ARRAY\" or a \"MAP\".",
		    fname, (const char *)ei.name.data);
		goto out;
	}
	n = ei.type.nest;
	/* Names: the alias's, else Spark's pos, col / key, value. */
	if (posx)
		names[nn++] = "pos";
	if (n->kind == SC_ARROW_LIST) {
		names[nn++] = "col";
	} else {
		names[nn++] = "key";
		names[nn++] = "value";
	}
	want = nn;
	if (al != NULL) {
		if (al->n_name != want) {
			rc = sc_srv_error(err,
			    "UNSUPPORTED_GENERATOR.OUTER_ALIAS_MISMATCH",
			    "42K0E",
			    "The number of aliases supplied in the AS clause "
			    "does not match the number of columns output by "
			    "the UDTF. Expected %zu aliases, but got %zu.",
			    want, al->n_name);
			goto out;
		}
		for (i = 0; i < nn; i++)
			names[i] = al->name[i];
	}
	/* in, joined with the elements of the generator's argument. */
	if (in->alias == NULL) {
		snprintf(qual, sizeof(qual), "_sc_g%u", x->seq++);
		in->alias = sc_xstrdup(qual);
	}
	sc_buf_addstr(&gen.sql, "SELECT ", NULL);
	sc_eng_quote_ident(&gen.sql, in->alias);
	sc_buf_addstr(&gen.sql,
	    ".*, _g._sc_k AS _sc_gk, _g._sc_v AS _sc_gv FROM ", NULL);
	sc_eng_from_item(x, in, &gen, &gen.sql);
	sc_buf_addf(&gen.sql, NULL, " %s sc_each(%s) AS _g%s",
	    outer ? "LEFT JOIN" : ",", (const char *)arg.data,
	    outer ? " ON 1" : "");
	gen.cols = sc_eng_cols_copy(in->cols, in->ncols);
	gen.ncols = in->ncols;
	gen.star_list = true;
	/* The generator's columns, over gen. */
	i = 0;
	if (posx) {
		memset(&pos, 0, sizeof(pos));
		pos.t = SC_ARROW_INT32;
		gen_col(gsql, gcols, "_sc_gk", &pos, outer, names[i++]);
	}
	if (n->kind == SC_ARROW_LIST) {
		sc_buf_reset(&v);
		sc_eng_nest_decode(&n->types[0], "_sc_gv", &v);
		gen_col(gsql, gcols, (const char *)v.data, &n->types[0],
		    outer || n->nullable[0], names[i++]);
	} else {
		sc_buf_reset(&v);
		sc_eng_nest_decode(&n->types[0], "json_extract(_sc_gv, '$[0]')",
		    &v);
		gen_col(gsql, gcols, (const char *)v.data, &n->types[0], outer,
		    names[i++]);
		sc_buf_reset(&v);
		sc_eng_nest_decode(&n->types[1], "json_extract(_sc_gv, '$[1]')",
		    &v);
		gen_col(gsql, gcols, (const char *)v.data, &n->types[1],
		    outer || n->nullable[1], names[i++]);
	}
	sc_eplan_release(in);
	*in = gen;
	sc_eplan_init(&gen);
	rc = 0;
out:
	sc_eng_einfo_release(&ei);
	sc_buf_release(&arg);
	sc_buf_release(&v);
	sc_eplan_release(&gen);
	return rc;
}

/* ------------------------------------------------------------------ */
/* na.fill, na.drop, na.replace                                        */
/* ------------------------------------------------------------------ */

enum vclass { V_NONE, V_NUM, V_STR, V_BOOL };

static enum vclass
type_class(int t)
{
	if (is_int(t) || t == SC_ARROW_FLOAT || t == SC_ARROW_DOUBLE ||
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
		if (c != NULL && is_int(c->type.t) && *vc == V_NUM &&
		    !is_int(ei.type.t)) {
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
		if (col_named(in, names[i], &k) == NULL)
			return unresolved(names[i], err);
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
	if (input(x, f->input, "fill_na", &in, err) == -1)
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
				if (strcasecmp(f->cols[i], c->name) == 0)
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
	if (input(x, d->input, "drop_na", &in, err) == -1)
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
	if (input(x, r->input, "replace", &in, err) == -1)
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
	if (input(x, src, "describe", &in, err) == -1)
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
	if (input(x, src, name, &in, err) == -1)
		goto out;
	if ((a = col_named(&in, c1 != NULL ? c1 : "", NULL)) == NULL) {
		rc = unresolved(c1 != NULL ? c1 : "", err);
		goto out;
	}
	if ((b = col_named(&in, c2 != NULL ? c2 : "", NULL)) == NULL) {
		rc = unresolved(c2 != NULL ? c2 : "", err);
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
