/* SPDX-License-Identifier: MIT */

/*
 * engine_rel_join.c: the DataFrame relations that combine two inputs:
 * join and the set operations (union, intersect, except; by position or
 * name).  Each input becomes a common table expression (engine_plan.c's
 * from items); a join's columns keep Spark's names, duplicates included,
 * while SQL reads them by a unique name (sc_ecol.sqlname), and a column's
 * plan id picks its side.
 */

#include "engine/engine_int.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

#define JT_(x) SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_##x
#define SOT_(x) SPARK__CONNECT__SET_OPERATION__SET_OP_TYPE__SET_OP_TYPE_##x

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

/*
 * Whether s (slen bytes) is name (nlen bytes), *k = 0, or name#k as
 * "%zu" writes k; name compared in any case when nocase.
 */
static bool
alias_of(const char *s, size_t slen, const char *name, size_t nlen, bool nocase,
    size_t *k)
{
	size_t i, v = 0;

	if (slen < nlen ||
	    (nocase ? strncasecmp(s, name, nlen) : strncmp(s, name, nlen)) != 0)
		return false;
	if (slen == nlen) {
		*k = 0;
		return true;
	}
	if (s[nlen] != '#' || slen == nlen + 1 || s[nlen + 1] == '0')
		return false;
	for (i = nlen + 1; i < slen; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (SIZE_MAX - 9) / 10)
			return false;
		v = v * 10 + (size_t)(s[i] - '0');
	}
	*k = v;
	return true;
}

/*
 * Add column c (read as ref) to the join's output, unique in SQL: as
 * its name, or else name#k with the least k no column has.  One pass
 * over the columns marks the k they hold (n columns hold at most n of
 * 0 .. n), where trying k = 1, 2, ... in turn made a join of n columns
 * of one name cost n^3, and a chain of such joins minutes.
 */
static void
out_col(struct sc_eplan *out, struct sc_buf *sel, const struct sc_ecol *c,
    const char *ref, int nullable)
{
	struct sc_ecol *o;
	struct sc_buf q, u;
	size_t i, k, n = out->ncols, nlen = strlen(c->name);
	bool *taken = sc_xcalloc(n + 2, sizeof(*taken));

	sc_buf_init(&q, SC_BUF_UNLIMITED);
	sc_eng_quote_ident(&q, c->name); /* `name`, its inside compared */
	for (i = 0; i < n; i++) {
		const char *sn = out->cols[i].sqlname;
		size_t sl = sn != NULL ? strlen(sn) : 0;

		if (sn != NULL
			? sl >= 2 && sn[0] == '`' && sn[sl - 1] == '`' &&
			    alias_of(sn + 1, sl - 2, (const char *)q.data + 1,
				q.len - 2, false, &k)
			: alias_of(out->cols[i].name, strlen(out->cols[i].name),
			      c->name, nlen, true, &k)) {
			if (k <= n + 1)
				taken[k] = true;
		}
	}
	for (k = 0; taken[k]; k++)
		;
	free(taken);
	sc_buf_release(&q);
	sc_buf_init(&u, SC_BUF_UNLIMITED);
	if (k == 0)
		sc_eng_quote_ident(&u, c->name);
	else {
		char *alias = sc_xasprintf("%s#%zu", c->name, k);

		sc_eng_quote_ident(&u, alias);
		free(alias);
	}
	if (sel->len > 0)
		sc_buf_addstr(sel, ", ", NULL);
	sc_buf_addstr(sel, ref, NULL);
	sc_buf_addstr(sel, " AS ", NULL);
	sc_buf_add(sel, u.data, u.len, NULL);
	sc_eng_cols_add(&out->cols, &out->ncols, c->name, &c->type, nullable);
	o = &out->cols[out->ncols - 1];
	memcpy(o->plan_ids, c->plan_ids, sizeof(o->plan_ids));
	o->nplan_ids = c->nplan_ids;
	/* Quoted even when equal to the name: SQL reads it exactly. */
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
	if (sc_eng_rel_input(x, j->left, "join", &l, err) == -1 ||
	    sc_eng_rel_input(x, j->right, "join", &r, err) == -1)
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

		if (sc_eng_col_named(&l, u, &li) == NULL ||
		    sc_eng_col_named(&r, u, &ri) == NULL) {
			rc = sc_srv_error(err,
			    "UNRESOLVED_USING_COLUMN_FOR_JOIN", "42703",
			    "USING column `%s` cannot be resolved on the %s "
			    "side of the join.",
			    u,
			    sc_eng_col_named(&l, u, NULL) == NULL ? "left"
								  : "right");
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

bool
sc_eng_is_int(int t)
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
	if (sc_eng_is_int(a->t) && sc_eng_is_int(b->t)) {
		out->t = a->t > b->t ? a->t : b->t;
		return 0;
	}
	if ((sc_eng_is_int(a->t) || a->t == SC_ARROW_FLOAT ||
		a->t == SC_ARROW_DOUBLE) &&
	    (sc_eng_is_int(b->t) || b->t == SC_ARROW_FLOAT ||
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
	if (sc_eng_rel_input(x, s->left_input, "set_op", &l, err) == -1 ||
	    sc_eng_rel_input(x, s->right_input, "set_op", &r, err) == -1)
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
			if (sc_eng_col_named(&r, l.cols[i].name, &k) != NULL) {
				rmap[n++] = k;
				continue;
			}
			if (!missing) {
				rc = sc_eng_unresolved(l.cols[i].name, err);
				goto out;
			}
			rmap[n++] = none;
		}
		for (i = 0; i < r.ncols; i++) {
			if (sc_eng_col_named(&l, r.cols[i].name, NULL) != NULL)
				continue;
			if (!missing) {
				rc = sc_eng_unresolved(r.cols[i].name, err);
				goto out;
			}
			lmap[n] = none;
			rmap[n++] = i;
		}
	}
	/*
	 * The inputs first: a side whose columns SQLite would take for one
	 * ('null' and NULL) is read by position.
	 */
	sc_eng_from_item_positional(x, &l, out, &lf);
	sc_eng_from_item_positional(x, &r, out, &rf);
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
		/*
		 * INTERSECT ALL and EXCEPT ALL read the output again by
		 * name, so there it is named by position ('null' and NULL).
		 */
		if (all && s->set_op_type != SOT_(UNION))
			sc_buf_addf(&ls, NULL, "_sc_o%zu", k);
		else
			sc_eng_quote_ident(&ls, named->name);
		if (rc_ != NULL)
			sc_eng_col_ref(&rs, rc_);
		else
			sc_buf_addstr(&rs, "NULL", NULL);
		sc_eng_cols_add(&out->cols, &out->ncols, named->name, &t,
		    lc == NULL || rc_ == NULL || lc->nullable != 0 ||
			(rc_->nullable != 0 && s->set_op_type == SOT_(UNION)));
	}
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
			sc_buf_addf(&out->sql, NULL, "_sc_o%zu AS ", k);
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
