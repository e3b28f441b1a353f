/* SPDX-License-Identifier: MIT */

/*
 * engine_func_hof.c: zip_with, arrays_zip, aggregate and reduce over
 * the engine's arrays (JSON text): elements side by side by position,
 * the shorter arrays padded with nulls, and a fold as a recursive
 * common table expression whose rows are the accumulator's steps.
 */

#include "engine/plan/engine_expr_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* Arrays zipped by sc_zip() at most; more are joined by position. */
#define NZIP 8

/*
 * The column c ('v' value, 't' type) of array k's element among narr in
 * zip_from()'s FROM item named q.
 */
static void
zcol(char *out, size_t sz, const char *q, size_t narr, size_t k, char c)
{
	if (narr <= NZIP)
		snprintf(out, sz, "%s._sc_%c%zu", q, c, k);
	else
		snprintf(out, sz, "%s%zu._sc_%c", q, k, c);
}

/* The element (value column v, type column t) in its JSON form. */
static void
elem_json(struct sc_buf *b, const char *v, const char *t)
{
	sc_buf_addf(b, NULL,
	    "CASE WHEN %s IN ('array', 'object') THEN json(%s) WHEN %s = "
	    "'true' THEN json('true') WHEN %s = 'false' THEN json('false') "
	    "ELSE %s END",
	    t, v, t, t, v);
}

static int
not_array(const char *fn, size_t i, const struct sc_einfo *ei,
    struct sc_error *err)
{
	return sc_srv_error(err, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
	    "42K09",
	    "Cannot resolve \"%s\" due to data type mismatch: parameter %zu "
	    "requires the \"ARRAY\" type, however \"%s\" has another type.",
	    fn, i + 1, (const char *)ei->name.data);
}

/* f's argument i is a lambda of nv variables: its LambdaFunction. */
static const Spark__Connect__Expression__LambdaFunction *
lambda_arg(const char *fn,
    const Spark__Connect__Expression__UnresolvedFunction *f, size_t i,
    size_t nv, struct sc_error *err)
{
	const Spark__Connect__Expression__LambdaFunction *l;
	size_t k;

	if (f->arguments[i]->expr_type_case != SC_EXPR_(LAMBDA_FUNCTION)) {
		sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "Argument %zu of `%s` must be a lambda function.", i + 1,
		    fn);
		return NULL;
	}
	l = f->arguments[i]->lambda_function;
	if (l->n_arguments != nv || l->function == NULL) {
		sc_srv_error(err,
		    "INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH", "42K0D",
		    "Invalid lambda function call. A higher order function "
		    "expects %zu arguments, but got %zu.",
		    nv, l->n_arguments);
		return NULL;
	}
	for (k = 0; k < nv; k++)
		if (l->arguments[k]->n_name_parts == 0) {
			sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
			    "A lambda variable has no name.");
			return NULL;
		}
	return l;
}

/*
 * Translate lambda l with its variables bound to sqls[k] of types[k]
 * (nullable), then unbind them.  Its name, lambdafunction(body, v...),
 * is appended to name.
 */
static int
run_lambda(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__LambdaFunction *l,
    const char *const *sqls, const struct sc_etype *types, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_buf *name, struct sc_error *err)
{
	size_t base = x->nlvars, k, nv = l->n_arguments;
	int rc;

	if (x->nlvars + nv > SC_ENG_MAX_LAMBDA_VARS)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "Lambda functions nested more than %d variables deep are "
		    "not supported by sc-serve.",
		    SC_ENG_MAX_LAMBDA_VARS);
	for (k = 0; k < nv; k++) {
		struct sc_elvar *lv = &x->lvars[x->nlvars++];

		memset(lv, 0, sizeof(*lv));
		lv->name = l->arguments[k]->name_parts[0];
		lv->sql = sc_xstrdup(sqls[k]);
		lv->type = types[k];
		lv->nullable = 1;
	}
	rc = sc_eng_expr(x, in, l->function, sql, ei, err);
	if (rc == 0) {
		sc_buf_addf(name, NULL, "lambdafunction(%s",
		    (const char *)ei->name.data);
		for (k = 0; k < nv; k++)
			sc_buf_addf(name, NULL, ", %s",
			    l->arguments[k]->name_parts[0]);
		sc_buf_addch(name, ')', NULL);
	}
	while (x->nlvars > base)
		free(x->lvars[--x->nlvars].sql);
	return rc;
}

/* Equal types, nested ones by their SQL names (containsNull aside). */
static bool
same_type(const struct sc_etype *a, const struct sc_etype *b)
{
	struct sc_buf ta, tb;
	bool same;

	if (a->t != b->t)
		return false;
	if (a->nest == NULL && b->nest == NULL)
		return sc_eng_same_etype(a, b);
	sc_buf_init(&ta, SC_BUF_UNLIMITED);
	sc_buf_init(&tb, SC_BUF_UNLIMITED);
	sc_eng_type_text(a, SC_VALUE_SQL, &ta);
	sc_eng_type_text(b, SC_VALUE_SQL, &tb);
	same = ta.len == tb.len && memcmp(ta.data, tb.data, ta.len) == 0;
	sc_buf_release(&ta);
	sc_buf_release(&tb);
	return same;
}

/*
 * Arrays a[0..n) side by side as a FROM item named q (see zcol()), in
 * order of position by " ORDER BY <order>" appended after it: sc_zip()
 * for up to NZIP arrays, one pass over each; else their positions
 * (ix) with each array's sc_each() joined by position.
 */
static void
zip_from(struct sc_buf *b, struct sc_efarg *a, size_t n, const char *ix,
    const char *q)
{
	size_t k;

	if (n <= NZIP) {
		sc_buf_addstr(b, "sc_zip(", NULL);
		sc_eng_args_list(b, a, 0, n, false);
		sc_buf_addf(b, NULL, ") AS %s ORDER BY %s._sc_k", q, q);
		return;
	}
	sc_buf_addstr(b, "(", NULL);
	for (k = 0; k < n; k++)
		sc_buf_addf(b, NULL, "%sSELECT _sc_k AS _sc_i FROM sc_each(%s)",
		    k > 0 ? " UNION " : "", (const char *)a[k].sql.data);
	sc_buf_addf(b, NULL, ") AS %s", ix);
	for (k = 0; k < n; k++)
		sc_buf_addf(b, NULL,
		    " LEFT JOIN sc_each(%s) AS %s%zu ON %s%zu._sc_k = %s._sc_i",
		    (const char *)a[k].sql.data, q, k, q, k, ix);
	sc_buf_addf(b, NULL, " ORDER BY %s._sc_i", ix);
}

/* (CASE WHEN a0 IS NULL OR ... THEN NULL ELSE , for arrays a[0..n). */
static void
null_if_any(struct sc_buf *b, struct sc_efarg *a, size_t n)
{
	size_t k;

	sc_buf_addstr(b, "(CASE WHEN ", NULL);
	for (k = 0; k < n; k++)
		sc_buf_addf(b, NULL, "%s(%s) IS NULL", k > 0 ? " OR " : "",
		    (const char *)a[k].sql.data);
	if (n == 0)
		sc_buf_addstr(b, "0", NULL);
	sc_buf_addstr(b, " THEN NULL ELSE ", NULL);
}

static int
zip_with(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedFunction *f, const char *fn,
    struct sc_efarg *a, struct sc_buf *sql, struct sc_einfo *ei,
    struct sc_error *err)
{
	const Spark__Connect__Expression__LambdaFunction *l;
	struct sc_etype types[2];
	struct sc_buf vs[2], body, enc, lname;
	struct sc_einfo bei;
	const char *sqls[2];
	char q[32], ix[32];
	unsigned seq = x->lseq++;
	size_t k;
	int rc = -1;

	if ((l = lambda_arg(fn, f, 2, 2, err)) == NULL)
		return -1;
	snprintf(q, sizeof(q), "_sc_z%u_", seq);
	snprintf(ix, sizeof(ix), "_sc_zi%u", seq);
	sc_buf_init(&body, SC_BUF_UNLIMITED);
	sc_buf_init(&enc, SC_BUF_UNLIMITED);
	sc_buf_init(&lname, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&bei);
	for (k = 0; k < 2; k++) {
		char v[48];

		sc_buf_init(&vs[k], SC_BUF_UNLIMITED);
		zcol(v, sizeof(v), q, 2, k, 'v');
		types[k] = a[k].ei.type.nest->types[0];
		sc_eng_nest_decode(&types[k], v, &vs[k]);
		sqls[k] = (const char *)vs[k].data;
	}
	if (run_lambda(x, in, l, sqls, types, &body, &bei, &lname, err) == -1)
		goto out;
	if (bei.type.t == SC_ETYPE_UNKNOWN) {
		sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
		    "zip_with() to a value whose type sc-serve cannot tell "
		    "before it runs is not supported; add a CAST.");
		goto out;
	}
	if (sc_eng_nest_array(&bei.type, bei.nullable != 0, &ei->type, err) ==
	    -1)
		goto out;
	sc_eng_nest_encode(&bei.type, "_sc_e", &enc);
	null_if_any(sql, a, 2);
	sc_buf_addf(sql, NULL,
	    "(SELECT coalesce(json_group_array(%s), json_array()) FROM "
	    "(SELECT (%s) AS _sc_e FROM ",
	    (const char *)enc.data, (const char *)body.data);
	zip_from(sql, a, 2, ix, q);
	sc_buf_addstr(sql, ")) END)", NULL);
	sc_buf_addf(&ei->name, NULL, "%s(%s, %s, %s)", fn,
	    (const char *)a[0].ei.name.data, (const char *)a[1].ei.name.data,
	    (const char *)lname.data);
	ei->nullable = a[0].ei.nullable || a[1].ei.nullable;
	rc = 0;
out:
	for (k = 0; k < 2; k++)
		sc_buf_release(&vs[k]);
	sc_buf_release(&body);
	sc_buf_release(&enc);
	sc_buf_release(&lname);
	sc_eng_einfo_release(&bei);
	return rc;
}

/*
 * A struct field's name for arrays_zip's argument e, as Spark's
 * analyzer gives it: a column's last name part, an alias's name, else
 * the argument's position.
 */
static char *
zip_field_name(const Spark__Connect__Expression *e, size_t i)
{
	char pos[24];

	if (e->expr_type_case == SC_EXPR_(UNRESOLVED_ATTRIBUTE) &&
	    e->unresolved_attribute->unparsed_identifier != NULL) {
		struct sc_eident id;
		char *s = NULL;

		if (sc_eng_ident_parse(
			e->unresolved_attribute->unparsed_identifier, &id,
			NULL) == 0) {
			if (id.n > 0)
				s = sc_xstrdup(id.parts[id.n - 1]);
			sc_eng_ident_release(&id);
		}
		if (s != NULL)
			return s;
	}
	if (e->expr_type_case == SC_EXPR_(ALIAS) && e->alias->n_name == 1)
		return sc_xstrdup(e->alias->name[0]);
	snprintf(pos, sizeof(pos), "%zu", i);
	return sc_xstrdup(pos);
}

static int
arrays_zip(struct sc_ectx *x,
    const Spark__Connect__Expression__UnresolvedFunction *f, const char *fn,
    struct sc_efarg *a, size_t n, struct sc_buf *sql, struct sc_einfo *ei,
    struct sc_error *err)
{
	struct sc_etype st, *types;
	char **names, q[32], ix[32], cv[64], ct[64];
	bool *nulls;
	unsigned seq = x->lseq++;
	size_t k;
	int rc = -1;

	types = sc_xcalloc(n + 1, sizeof(*types));
	names = sc_xcalloc(n + 1, sizeof(*names));
	nulls = sc_xcalloc(n + 1, sizeof(*nulls));
	for (k = 0; k < n; k++) {
		types[k] = a[k].ei.type.nest->types[0];
		names[k] = zip_field_name(f->arguments[k], k);
		nulls[k] = true;
	}
	if (sc_eng_nest_struct(names, types, nulls, n, &st, err) == -1 ||
	    sc_eng_nest_array(&st, false, &ei->type, err) == -1)
		goto out;
	snprintf(q, sizeof(q), "_sc_y%u_", seq);
	snprintf(ix, sizeof(ix), "_sc_yi%u", seq);
	null_if_any(sql, a, n);
	sc_buf_addstr(sql,
	    "(SELECT coalesce(json_group_array(json(_sc_e)), json_array()) "
	    "FROM (SELECT json_array(",
	    NULL);
	for (k = 0; k < n; k++) {
		zcol(cv, sizeof(cv), q, n, k, 'v');
		zcol(ct, sizeof(ct), q, n, k, 't');
		if (k > 0)
			sc_buf_addstr(sql, ", ", NULL);
		elem_json(sql, cv, ct);
	}
	sc_buf_addstr(sql, ") AS _sc_e FROM ", NULL);
	if (n == 0)
		sc_buf_addf(sql, NULL, "(SELECT 0 AS _sc_i WHERE 0) AS %s", ix);
	else
		zip_from(sql, a, n, ix, q);
	sc_buf_addstr(sql, ")) END)", NULL);
	sc_buf_addf(&ei->name, NULL, "%s(", fn);
	sc_eng_args_list(&ei->name, a, 0, n, true);
	sc_buf_addch(&ei->name, ')', NULL);
	ei->nullable = 0;
	for (k = 0; k < n; k++)
		if (a[k].ei.nullable)
			ei->nullable = 1;
	rc = 0;
out:
	for (k = 0; k < n; k++)
		free(names[k]);
	free(names);
	free(types);
	free(nulls);
	return rc;
}

/*
 * aggregate(arr, start, merge[, finish]): the rows of _sc_r<seq>
 * (_sc_i, _sc_a) are the accumulator after i elements; the last one,
 * through finish, is the answer.
 */
static int
fold(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedFunction *f, const char *fn,
    struct sc_efarg *a, struct sc_buf *sql, struct sc_einfo *ei,
    struct sc_error *err)
{
	const Spark__Connect__Expression__LambdaFunction *lm, *lf = NULL;
	struct sc_etype types[2];
	struct sc_buf ev, msql, fsql;
	struct sc_einfo mei, fei;
	const char *sqls[2];
	char r[32], q[32], acc[48], v[48];
	unsigned seq = x->lseq++;
	int rc = -1;

	if ((lm = lambda_arg(fn, f, 2, 2, err)) == NULL ||
	    (f->n_arguments == 4 &&
		(lf = lambda_arg(fn, f, 3, 1, err)) == NULL))
		return -1;
	if (a[1].ei.type.t == SC_ETYPE_UNKNOWN)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "%s() from a start value whose type sc-serve cannot tell "
		    "before it runs is not supported; add a CAST.",
		    fn);
	snprintf(r, sizeof(r), "_sc_r%u", seq);
	snprintf(q, sizeof(q), "_sc_re%u", seq);
	snprintf(acc, sizeof(acc), "%s._sc_a", r);
	snprintf(v, sizeof(v), "%s._sc_v", q);
	sc_buf_init(&ev, SC_BUF_UNLIMITED);
	sc_buf_init(&msql, SC_BUF_UNLIMITED);
	sc_buf_init(&fsql, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&mei);
	sc_eng_einfo_init(&fei);
	types[0] = a[1].ei.type;
	types[1] = a[0].ei.type.nest->types[0];
	sc_eng_nest_decode(&types[1], v, &ev);
	sqls[0] = acc;
	sqls[1] = (const char *)ev.data;
	sc_buf_addf(&ei->name, NULL, "%s(%s, %s, ", fn,
	    (const char *)a[0].ei.name.data, (const char *)a[1].ei.name.data);
	if (run_lambda(x, in, lm, sqls, types, &msql, &mei, &ei->name, err) ==
	    -1)
		goto out;
	if (mei.type.t != SC_ARROW_NULL && !same_type(&mei.type, &types[0])) {
		struct sc_buf tz, tm;

		sc_buf_init(&tz, SC_BUF_UNLIMITED);
		sc_buf_init(&tm, SC_BUF_UNLIMITED);
		sc_eng_type_text(&types[0], SC_VALUE_SQL, &tz);
		if (mei.type.t == SC_ETYPE_UNKNOWN)
			sc_buf_addstr(&tm, "an unknown type", NULL);
		else
			sc_eng_type_text(&mei.type, SC_VALUE_SQL, &tm);
		sc_srv_error(err, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
		    "42K09",
		    "Cannot resolve \"%s\" due to data type mismatch: the "
		    "third parameter requires the \"%s\" type, however \"%s\" "
		    "has the type \"%s\".",
		    fn, (const char *)tz.data, (const char *)mei.name.data,
		    (const char *)tm.data);
		sc_buf_release(&tz);
		sc_buf_release(&tm);
		goto out;
	}
	sc_buf_addstr(&ei->name, ", ", NULL);
	if (lf != NULL) {
		if (run_lambda(x, in, lf, sqls, types, &fsql, &fei, &ei->name,
			err) == -1)
			goto out;
		ei->type = fei.type;
		ei->nullable = a[0].ei.nullable || fei.nullable;
	} else {
		/* Spark's default finish, the identity, names its variable id. */
		sc_buf_addstr(&ei->name, "lambdafunction(id, id)", NULL);
		sc_buf_addstr(&fsql, acc, NULL);
		ei->type = types[0];
		ei->nullable = 1;
	}
	sc_buf_addch(&ei->name, ')', NULL);
	sc_buf_addf(sql, NULL,
	    "(CASE WHEN (%s) IS NULL THEN NULL ELSE (WITH RECURSIVE "
	    "%sx(_sc_x) AS MATERIALIZED (SELECT (%s)), "
	    "%s(_sc_i, _sc_a) AS (SELECT 0, (%s) UNION ALL SELECT "
	    "%s._sc_i + 1, (%s) FROM %s, %sx JOIN sc_each(%sx._sc_x) AS %s "
	    "ON %s._sc_k = %s._sc_i) SELECT (%s) FROM %s ORDER BY %s._sc_i "
	    "DESC LIMIT 1) END)",
	    (const char *)a[0].sql.data, r, (const char *)a[0].sql.data, r,
	    (const char *)a[1].sql.data, r, (const char *)msql.data, r, r, r, q,
	    q, r, (const char *)fsql.data, r, r);
	rc = 0;
out:
	sc_buf_release(&ev);
	sc_buf_release(&msql);
	sc_buf_release(&fsql);
	sc_eng_einfo_release(&mei);
	sc_eng_einfo_release(&fei);
	return rc;
}

static int
sc_eng_hof_more(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedFunction *f, const char *fn,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	struct sc_efarg *a;
	size_t n = f->n_arguments, nexpr, i;
	int rc = -1;
	bool zip = strcmp(fn, "zip_with") == 0;
	bool az = strcmp(fn, "arrays_zip") == 0;

	/* The arguments before the lambdas. */
	nexpr = az ? n : 2;
	a = sc_xcalloc(n + 1, sizeof(*a));
	for (i = 0; i < n; i++) {
		sc_buf_init(&a[i].sql, SC_BUF_UNLIMITED);
		sc_eng_einfo_init(&a[i].ei);
	}
	for (i = 0; i < nexpr; i++) {
		if (sc_eng_expr(x, in, f->arguments[i], &a[i].sql, &a[i].ei,
			err) == -1)
			goto out;
		if ((az || zip || i == 0) && a[i].ei.type.t == SC_ARROW_NULL) {
			/* NULL casts to array<void>, as Spark casts it. */
			struct sc_etype vt;

			memset(&vt, 0, sizeof(vt));
			vt.t = SC_ARROW_NULL;
			if (sc_eng_nest_array(&vt, true, &a[i].ei.type, err) ==
			    -1)
				goto out;
		}
		if ((az || zip || i == 0) &&
		    (a[i].ei.type.t != SC_ARROW_LIST ||
			a[i].ei.type.nest == NULL)) {
			not_array(fn, i, &a[i].ei, err);
			goto out;
		}
	}
	if (zip)
		rc = zip_with(x, in, f, fn, a, sql, ei, err);
	else if (az)
		rc = arrays_zip(x, f, fn, a, n, sql, ei, err);
	else
		rc = fold(x, in, f, fn, a, sql, ei, err);
out:
	for (i = 0; i < n; i++) {
		sc_buf_release(&a[i].sql);
		sc_eng_einfo_release(&a[i].ei);
	}
	free(a);
	return rc;
}

static const struct sc_efdef defs[] = {
	{ "zip_with", F_CALL, NULL, 3, 3, R_UNK, .flags = SC_EF_HOF,
	    .call = sc_eng_hof_more },
	{ "arrays_zip", F_CALL, NULL, 0, -1, R_UNK, .call = sc_eng_hof_more },
	{ "aggregate", F_CALL, NULL, 3, 4, R_UNK, .flags = SC_EF_HOF,
	    .call = sc_eng_hof_more },
	{ "reduce", F_CALL, NULL, 3, 4, R_UNK, .flags = SC_EF_HOF,
	    .call = sc_eng_hof_more },
};
const struct sc_effamily sc_eng_family_hof = { "hof", defs, SC_NELEM(defs) };
