/* SPDX-License-Identifier: MIT */

/*
 * engine_rel.c: the DataFrame relations that reshape one input:
 * with_columns, drop, deduplicate and tail, and the generators (explode,
 * posexplode) of a projection; with the helpers the other engine_rel_*.c
 * files share.  Each input becomes a common table expression
 * (engine_plan.c's from items).  Joins and set operations are in
 * engine_rel_join.c, rollup/cube/grouping sets/pivot in
 * engine_rel_group.c, na.* and describe/summary/cov/corr in
 * engine_rel_stat.c.
 */

#include "engine/engine_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/plan/engine_expr_int.h"
#include "engine/srverror.h"
#include "core/banned.h"

static int
no_input(const char *what, struct sc_error *err)
{
	return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
	    "The %s relation has no input.", what);
}

/* Translate input r into p, with its columns known. */
int
sc_eng_rel_input(struct sc_ectx *x, const Spark__Connect__Relation *r,
    const char *what, struct sc_eplan *p, struct sc_error *err)
{
	if (r == NULL)
		return no_input(what, err);
	if (sc_eng_rel(x, r, p, err) == -1)
		return -1;
	return sc_eng_plan_columns(x, p, err);
}

const struct sc_ecol *
sc_eng_col_named(const struct sc_eplan *p, const char *name, size_t *idx)
{
	size_t i;

	for (i = 0; i < p->ncols; i++)
		if (sc_eng_name_cmp(p->cols[i].name, name) == 0) {
			if (idx != NULL)
				*idx = i;
			return &p->cols[i];
		}
	return NULL;
}

int
sc_eng_unresolved(const char *name, struct sc_error *err)
{
	return sc_srv_error(err, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
	    "42703",
	    "A column, variable, or function parameter with name `%s` "
	    "cannot be resolved.",
	    name);
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
	if (sc_eng_rel_input(x, w->input, "with_columns", &in, err) == -1)
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
			if (sc_eng_name_cmp(out->cols[k].name, a->name[0]) == 0)
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
	if (sc_eng_rel_input(x, d->input, "drop", &in, err) == -1)
		goto out;
	keep = sc_xcalloc(in.ncols + 1, sizeof(*keep));
	for (i = 0; i < in.ncols; i++)
		keep[i] = true;
	/* A name the input lacks is no error (Spark ignores it). */
	for (i = 0; i < d->n_column_names; i++)
		for (k = 0; k < in.ncols; k++)
			if (sc_eng_name_cmp(in.cols[k].name,
				d->column_names[i]) == 0)
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
			    sc_eng_name_cmp(in.cols[k].name,
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
	if (sc_eng_rel_input(x, d->input, "deduplicate", &in, err) == -1)
		goto out;
	for (i = 0; i < d->n_column_names; i++) {
		if ((c = sc_eng_col_named(&in, d->column_names[i], NULL)) ==
		    NULL) {
			rc = sc_eng_unresolved(d->column_names[i], err);
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
	if (sc_eng_rel_input(x, t->input, "tail", &in, err) == -1)
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
		strcasecmp(n, "posexplode_outer") == 0 ||
		strcasecmp(n, "inline") == 0 ||
		strcasecmp(n, "inline_outer") == 0 ||
		strcasecmp(n, "json_tuple") == 0);
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
 * json_tuple(json, key, ...): one row per input row (in is unchanged),
 * columns c0, c1, ... (or the alias's names), each the key's value as
 * text: a string as itself, other values as their JSON text, null for
 * JSON null, a missing key, or text that is not a JSON object.
 */
static int
json_tuple(struct sc_ectx *x,
    const Spark__Connect__Expression__UnresolvedFunction *f,
    const Spark__Connect__Expression__Alias *al, struct sc_eplan *in,
    struct sc_buf *gsql, struct sc_eplan *gcols, struct sc_error *err)
{
	const Spark__Connect__Expression__Literal *l;
	struct sc_buf js, col;
	struct sc_einfo ei;
	struct sc_etype str;
	char name[32];
	size_t i, nk = f->n_arguments > 0 ? f->n_arguments - 1 : 0;
	int rc = -1;

	if (f->n_arguments < 2)
		return sc_srv_error(err, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
		    "42605",
		    "The `json_tuple` requires at least 2 parameters but the "
		    "actual number is %zu.",
		    f->n_arguments);
	if (al != NULL && al->n_name != nk)
		return sc_srv_error(err,
		    "UNSUPPORTED_GENERATOR.OUTER_ALIAS_MISMATCH", "42K0E",
		    "The number of aliases supplied in the AS clause does not "
		    "match the number of columns output by the UDTF. Expected "
		    "%zu aliases, but got %zu.",
		    nk, al->n_name);
	for (i = 1; i < f->n_arguments; i++) {
		const Spark__Connect__Expression *k = f->arguments[i];

		l = k->expr_type_case == SC_EXPR_(LITERAL) ? k->literal : NULL;
		if (l == NULL ||
		    l->literal_type_case !=
			SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING ||
		    strpbrk(l->string, "\"\\") != NULL)
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
			    "json_tuple() with a key that is not a string "
			    "literal without quotes or backslashes is not "
			    "supported by sc-serve.");
	}
	sc_buf_init(&js, SC_BUF_UNLIMITED);
	sc_buf_init(&col, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&ei);
	if (sc_eng_expr(x, in, f->arguments[0], &js, &ei, err) == -1)
		goto out;
	memset(&str, 0, sizeof(str));
	str.t = SC_ARROW_UTF8;
	for (i = 1; i < f->n_arguments; i++) {
		char *path = sqlite3_mprintf("'$.\"%q\"'",
		    f->arguments[i]->literal->string);

		if (path == NULL) {
			rc = sc_srv_error(err, "UNABLE_TO_ACQUIRE_MEMORY",
			    "53200", "Out of memory in json_tuple().");
			goto out;
		}
		sc_buf_reset(&col);
		sc_buf_addf(&col, NULL,
		    "CASE WHEN json_valid(%s) THEN CASE json_type(%s, %s) WHEN "
		    "'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' "
		    "THEN NULL ELSE CAST(json_extract(%s, %s) AS TEXT) END END",
		    (const char *)js.data, (const char *)js.data, path,
		    (const char *)js.data, path);
		sqlite3_free(path);
		snprintf(name, sizeof(name), "c%zu", i - 1);
		gen_col(gsql, gcols, (const char *)col.data, &str, 1,
		    al != NULL ? al->name[i - 1] : name);
	}
	rc = 0;
out:
	sc_eng_einfo_release(&ei);
	sc_buf_release(&js);
	sc_buf_release(&col);
	return rc;
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
	const char *fname, *names[64];
	size_t i, nn = 0, want;
	bool outer, posx, inl;
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
	if (strcasecmp(fname, "json_tuple") == 0)
		return json_tuple(x, f, al, in, gsql, gcols, err);
	outer = strstr(fname, "_outer") != NULL ||
	    strstr(fname, "_OUTER") != NULL;
	posx = strncasecmp(fname, "pos", 3) == 0;
	inl = strncasecmp(fname, "inline", 6) == 0;
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
	if (inl &&
	    (n->kind != SC_ARROW_LIST || n->types[0].t != SC_ARROW_STRUCT ||
		n->types[0].nest == NULL)) {
		rc = sc_srv_error(err,
		    "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "42K09",
		    "Cannot resolve \"%s(%s)\" due to data type mismatch: its "
		    "input must be an \"ARRAY<STRUCT>\".",
		    fname, (const char *)ei.name.data);
		goto out;
	}
	/* Names: the alias's, else Spark's pos, col / key, value. */
	if (inl)
		for (i = 0; i < n->types[0].nest->n && i < SC_NELEM(names); i++)
			names[nn++] = n->types[0].nest->names[i];
	else if (posx)
		names[nn++] = "pos";
	if (inl)
		;
	else if (n->kind == SC_ARROW_LIST) {
		names[nn++] = "col";
	} else {
		names[nn++] = "key";
		names[nn++] = "value";
	}
	if (inl && n->types[0].nest->n > SC_NELEM(names)) {
		rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "%s() of a struct of more than 64 fields is not "
		    "supported by sc-serve.",
		    fname);
		goto out;
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
	if (inl) {
		const struct sc_enest *st = n->types[0].nest;
		char path[64];

		/* A null element gives a row of nulls, as Spark's inline. */
		for (i = 0; i < st->n; i++) {
			snprintf(path, sizeof(path),
			    "json_extract(_sc_gv, '$[%zu]')", i);
			sc_buf_reset(&v);
			sc_eng_nest_decode(&st->types[i], path, &v);
			gen_col(gsql, gcols, (const char *)v.data,
			    &st->types[i],
			    outer || n->nullable[0] || st->nullable[i],
			    names[i]);
		}
	} else if (n->kind == SC_ARROW_LIST) {
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
/* unpivot (melt)                                                      */
/* ------------------------------------------------------------------ */

/* One id or value column of an unpivot: its SQL and what it is. */
struct upcol {
	struct sc_buf sql;
	struct sc_einfo ei;
};

static void
upcols_free(struct upcol *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		sc_buf_release(&c[i].sql);
		sc_eng_einfo_release(&c[i].ei);
	}
	free(c);
}

/*
 * The value column's type: one type, or integers widened to the widest,
 * or integers and doubles to double, as Spark's least common type is;
 * other mixes (decimals, dates with strings, ...) are refused rather
 * than given another answer.
 */
static int
unpivot_type(const struct upcol *v, size_t n, struct sc_einfo *out,
    struct sc_error *err)
{
	size_t i;

	out->type = v[0].ei.type;
	out->nullable = 0;
	for (i = 0; i < n; i++) {
		const struct sc_etype *t = &v[i].ei.type;

		if (t->t == SC_ETYPE_UNKNOWN)
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
			    "unpivot() of a column whose type sc-serve does "
			    "not know (`%s`) is not supported.",
			    (const char *)v[i].ei.name.data);
		out->nullable |= v[i].ei.nullable;
		if (sc_eng_same_etype(&out->type, t))
			continue;
		if (sc_eng_is_int_type(out->type.t) &&
		    sc_eng_is_int_type(t->t)) {
			if (t->t > out->type.t)
				out->type.t = t->t;
		} else if ((sc_eng_is_int_type(out->type.t) ||
			       out->type.t == SC_ARROW_DOUBLE) &&
		    (sc_eng_is_int_type(t->t) || t->t == SC_ARROW_DOUBLE)) {
			out->type.t = SC_ARROW_DOUBLE;
		} else
			return sc_srv_error(err,
			    "UNPIVOT_VALUE_DATA_TYPE_MISMATCH", "42K09",
			    "Unpivot value columns must share a least common "
			    "type; `%s` does not fit the others.",
			    (const char *)v[i].ei.name.data);
	}
	return 0;
}

/*
 * SELECT ids, CASE k WHEN 0 THEN 'a' ... END, CASE k WHEN 0 THEN a ...
 * END FROM (input) CROSS JOIN (VALUES (0), (1), ...): SQLite keeps the
 * CROSS JOIN's left table outermost, so each input row gives its value
 * columns' rows in order, as Spark's Expand does.
 */
int
sc_eng_unpivot(struct sc_ectx *x, const Spark__Connect__Unpivot *u,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	struct upcol *ids = NULL, *vals = NULL;
	struct sc_einfo vt;
	size_t i, k, nids = 0, nvals = 0;
	bool *is_id = NULL;
	char k_alias[32];
	int rc = -1;

	sc_eplan_init(&in);
	sc_eng_einfo_init(&vt);
	if (sc_eng_rel_input(x, u->input, "unpivot", &in, err) == -1)
		goto out;
	if (u->variable_column_name == NULL || u->value_column_name == NULL ||
	    u->variable_column_name[0] == '\0' ||
	    u->value_column_name[0] == '\0') {
		rc = sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "An unpivot needs the names of its variable and value "
		    "columns.");
		goto out;
	}
	is_id = sc_xcalloc(in.ncols + 1, sizeof(*is_id));
	ids = sc_xcalloc(u->n_ids + 1, sizeof(*ids));
	for (i = 0; i < u->n_ids; i++, nids++) {
		sc_buf_init(&ids[i].sql, SC_BUF_UNLIMITED);
		sc_eng_einfo_init(&ids[i].ei);
		if (sc_eng_expr(x, &in, u->ids[i], &ids[i].sql, &ids[i].ei,
			err) == -1) {
			nids++;
			goto out;
		}
		if (sc_eng_col_named(&in, (const char *)ids[i].ei.name.data,
			&k) != NULL)
			is_id[k] = true;
	}
	if (u->values != NULL) {
		vals = sc_xcalloc(u->values->n_values + 1, sizeof(*vals));
		for (i = 0; i < u->values->n_values; i++, nvals++) {
			sc_buf_init(&vals[i].sql, SC_BUF_UNLIMITED);
			sc_eng_einfo_init(&vals[i].ei);
			if (sc_eng_expr(x, &in, u->values->values[i],
				&vals[i].sql, &vals[i].ei, err) == -1) {
				nvals++;
				goto out;
			}
		}
	} else {
		/* Every column that is not an id. */
		vals = sc_xcalloc(in.ncols + 1, sizeof(*vals));
		for (i = 0; i < in.ncols; i++) {
			if (is_id[i])
				continue;
			sc_buf_init(&vals[nvals].sql, SC_BUF_UNLIMITED);
			sc_eng_einfo_init(&vals[nvals].ei);
			sc_eng_col_ref(&vals[nvals].sql, &in.cols[i]);
			sc_buf_addstr(&vals[nvals].ei.name, in.cols[i].name,
			    NULL);
			vals[nvals].ei.type = in.cols[i].type;
			vals[nvals].ei.nullable = in.cols[i].nullable != 0;
			nvals++;
		}
	}
	if (nvals == 0) {
		rc = sc_srv_error(err, "UNPIVOT_REQUIRES_VALUE_COLUMNS",
		    "42K0A",
		    "At least one value column needs to be specified for "
		    "UNPIVOT, all columns specified as ids.");
		goto out;
	}
	if (unpivot_type(vals, nvals, &vt, err) == -1)
		goto out;
	snprintf(k_alias, sizeof(k_alias), "_sc_k%u", x->seq++);
	sc_buf_addstr(&out->sql, "SELECT ", NULL);
	for (i = 0; i < nids; i++) {
		sc_buf_add(&out->sql, ids[i].sql.data, ids[i].sql.len, NULL);
		sc_buf_addstr(&out->sql, " AS ", NULL);
		sc_eng_quote_ident(&out->sql,
		    (const char *)ids[i].ei.name.data);
		sc_buf_addstr(&out->sql, ", ", NULL);
		sc_eng_cols_add(&out->cols, &out->ncols,
		    (const char *)ids[i].ei.name.data, &ids[i].ei.type,
		    ids[i].ei.nullable);
	}
	sc_buf_addf(&out->sql, NULL, "CASE %s.column1", k_alias);
	for (i = 0; i < nvals; i++) {
		sc_buf_addf(&out->sql, NULL, " WHEN %zu THEN ", i);
		sc_eng_quote_string(&out->sql,
		    (const char *)vals[i].ei.name.data, vals[i].ei.name.len);
	}
	sc_buf_addstr(&out->sql, " END AS ", NULL);
	sc_eng_quote_ident(&out->sql, u->variable_column_name);
	sc_buf_addf(&out->sql, NULL, ", CASE %s.column1", k_alias);
	for (i = 0; i < nvals; i++) {
		sc_buf_addf(&out->sql, NULL, " WHEN %zu THEN ", i);
		if (vt.type.t == SC_ARROW_DOUBLE &&
		    vals[i].ei.type.t != SC_ARROW_DOUBLE) {
			sc_buf_addstr(&out->sql, "CAST(", NULL);
			sc_buf_add(&out->sql, vals[i].sql.data, vals[i].sql.len,
			    NULL);
			sc_buf_addstr(&out->sql, " AS REAL)", NULL);
		} else
			sc_buf_add(&out->sql, vals[i].sql.data, vals[i].sql.len,
			    NULL);
	}
	sc_buf_addstr(&out->sql, " END AS ", NULL);
	sc_eng_quote_ident(&out->sql, u->value_column_name);
	{
		struct sc_etype st = { 0 };

		st.t = SC_ARROW_UTF8;
		sc_eng_cols_add(&out->cols, &out->ncols,
		    u->variable_column_name, &st, 0);
	}
	sc_eng_cols_add(&out->cols, &out->ncols, u->value_column_name, &vt.type,
	    vt.nullable);
	sc_buf_addstr(&out->sql, " FROM ", NULL);
	sc_eng_from_item(x, &in, out, &out->sql);
	sc_buf_addstr(&out->sql, " CROSS JOIN (VALUES ", NULL);
	for (i = 0; i < nvals; i++)
		sc_buf_addf(&out->sql, NULL, "%s(%zu)", i > 0 ? ", " : "", i);
	sc_buf_addf(&out->sql, NULL, ") AS %s", k_alias);
	rc = 0;
out:
	upcols_free(ids, nids);
	upcols_free(vals, nvals);
	free(is_id);
	sc_eng_einfo_release(&vt);
	sc_eplan_release(&in);
	return rc;
}
