/* SPDX-License-Identifier: MIT */

/*
 * sqlparse_group.c: GROUP BY's grouping analytics in Spark SQL text
 * (ROLLUP (...), CUBE (...), GROUPING SETS (...), a key list WITH ROLLUP
 * or WITH CUBE) as the Aggregate a DataFrame's rollup(), cube() and
 * groupingSets() send, so the plan translator gives them Spark's names.
 */

#include "engine/sql/sqlparse_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

#define GROUP_(x) SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_##x

/* Most distinct keys of grouping sets (engine_rel_group.c's limit). */
#define MAX_GROUPING 12

/* Whether a and b are the same expression, field for field. */
static bool
same_expr(const Expr *a, const Expr *b)
{
	size_t na = protobuf_c_message_get_packed_size(&a->base);
	size_t nb = protobuf_c_message_get_packed_size(&b->base);
	uint8_t *pa, *pb;
	bool same;

	if (na != nb)
		return false;
	pa = sc_xmalloc(na + 1);
	pb = sc_xmalloc(nb + 1);
	protobuf_c_message_pack(&a->base, pa);
	protobuf_c_message_pack(&b->base, pb);
	same = memcmp(pa, pb, na) == 0;
	free(pa);
	free(pb);
	return same;
}

/* The index of e among v[0..n), added at the end when new. */
static size_t
key_index(Expr ***v, size_t *n, const Expr *e)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (same_expr((*v)[i], e))
			return i;
	*v = sc_xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[*n] = sc_sqlp_expr_copy(e);
	return (*n)++;
}

static void
sets_free(Spark__Connect__Aggregate__GroupingSets **s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		protobuf_c_message_free_unpacked(&s[i]->base, NULL);
	free(s);
}

/* One grouping set: ( [expr, ...] ) or a lone expression. */
static Spark__Connect__Aggregate__GroupingSets *
grouping_set(struct parser *p)
{
	Spark__Connect__Aggregate__GroupingSets *gs;
	Expr **v = NULL, *e;
	size_t n = 0;

	if (sc_sqlp_accept_op(p, "(")) {
		if (!sc_sqlp_is_op(p, ")") &&
		    (v = sc_sqlp_expr_list(p, &n, false)) == NULL)
			return NULL;
		if (!sc_sqlp_expect_op(p, ")")) {
			sc_sqlp_exprs_free(v, n);
			return NULL;
		}
	} else {
		if ((e = sc_sqlp_expr(p)) == NULL)
			return NULL;
		v = sc_xmalloc(sizeof(*v));
		v[n++] = e;
	}
	gs = sc_xmalloc(sizeof(*gs));
	spark__connect__aggregate__grouping_sets__init(gs);
	gs->grouping_set = v;
	gs->n_grouping_set = n;
	return gs;
}

/* Whether e is a call of ROLLUP, CUBE or GROUPING SETS among plain keys. */
static bool
is_analytics_call(const Expr *e)
{
	const char *f;

	if (e->expr_type_case !=
	    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION)
		return false;
	f = e->unresolved_function->function_name;
	return strcasecmp(f, "rollup") == 0 || strcasecmp(f, "cube") == 0;
}

/* A copy of select item e without its alias. */
static Expr *
unaliased(const Expr *e)
{
	if (e->expr_type_case == SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS)
		e = e->alias->expr;
	return sc_sqlp_expr_copy(e);
}

/*
 * A GROUP BY key *kp that is an integer literal: the select item it
 * numbers, as Spark reads GROUP BY 1 (spark.sql.groupByOrdinal).  0,
 * or -1 (p->fail set) with Spark's error for a position out of range,
 * a star or an aggregate.
 */
static int
ordinal(struct parser *p, Expr *const *items, size_t nitems, Expr **kp)
{
	const Spark__Connect__Expression__Literal *l;
	const Expr *it;
	int64_t pos;

	if ((*kp)->expr_type_case !=
	    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL)
		return 0;
	l = (*kp)->literal;
	if (l->literal_type_case ==
	    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER)
		pos = l->integer;
	else if (l->literal_type_case ==
	    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG)
		pos = l->long_;
	else
		return 0; /* a constant */
	p->fail = SC_SQLPARSE_ERROR;
	if (pos < 1 || (uint64_t)pos > nitems) {
		sc_srv_error(p->err, "GROUP_BY_POS_OUT_OF_RANGE", "42805",
		    "GROUP BY position %lld is not in select list (valid range is [1, %zu]).",
		    (long long)pos, nitems);
		return -1;
	}
	it = items[pos - 1];
	if (it->expr_type_case ==
	    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_STAR) {
		sc_srv_error(p->err, "STAR_GROUP_BY_POS", "0A000",
		    "Star (*) is not allowed in a select list when GROUP BY an ordinal position is used.");
		return -1;
	}
	if (sc_sqlp_has_aggregate(it)) {
		sc_srv_error(p->err, "GROUP_BY_POS_AGGREGATE", "42903",
		    "GROUP BY %lld refers to an expression that contains an aggregate function. Aggregate functions are not allowed in GROUP BY.",
		    (long long)pos);
		return -1;
	}
	p->fail = 0;
	sc_sqlp_expr_free(*kp);
	*kp = unaliased(it);
	return 0;
}

/*
 * After GROUP BY: the keys into *groups (each aliased _sc_group_N),
 * the group type and, for GROUPING SETS, the sets.  false on failure
 * (p->fail says which).
 */
bool
sc_sqlp_group_by(struct parser *p, Expr *const *items, size_t nitems,
    struct sc_sqlp_grouping *g)
{
	Spark__Connect__Aggregate__GroupingSets *gs;
	Expr **keys = NULL;
	size_t nkeys = 0, i, k;

	memset(g, 0, sizeof(*g));
	g->type = GROUP_(GROUPBY);
	if (sc_sqlp_is_word(p, "all") &&
	    !sc_sqlp_tok_op(sc_sqlp_peek(p, 1), "(") &&
	    !sc_sqlp_tok_op(sc_sqlp_peek(p, 1), ".")) {
		p->i++;
		keys = sc_xcalloc(nitems + 1, sizeof(*keys));
		for (i = 0; i < nitems; i++) {
			if (items[i]->expr_type_case ==
			    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_STAR) {
				sc_sqlp_unsupported(p, "GROUP BY ALL with *");
				goto fail;
			}
			if (!sc_sqlp_has_aggregate(items[i]))
				keys[nkeys++] = unaliased(items[i]);
		}
		goto named;
	}
	if ((sc_sqlp_is_word(p, "rollup") || sc_sqlp_is_word(p, "cube")) &&
	    sc_sqlp_tok_op(sc_sqlp_peek(p, 1), "(")) {
		g->type = sc_sqlp_is_word(p, "rollup") ? GROUP_(ROLLUP)
						       : GROUP_(CUBE);
		p->i += 2;
		if ((keys = sc_sqlp_expr_list(p, &nkeys, false)) == NULL)
			goto fail;
		if (!sc_sqlp_expect_op(p, ")"))
			goto fail;
	} else if (sc_sqlp_is_word(p, "grouping") &&
	    sc_sqlp_tok_word(sc_sqlp_peek(p, 1), "sets")) {
		g->type = GROUP_(GROUPING_SETS);
		p->i += 2;
		if (!sc_sqlp_expect_op(p, "("))
			goto fail;
		do {
			if ((gs = grouping_set(p)) == NULL)
				goto fail;
			g->sets = sc_xreallocarray(g->sets, g->nsets + 1,
			    sizeof(*g->sets));
			g->sets[g->nsets++] = gs;
			/* The keys: every set's expressions, in order. */
			for (k = 0; k < gs->n_grouping_set; k++)
				key_index(&keys, &nkeys, gs->grouping_set[k]);
			/*
			 * The translator's refusal, before key_index() has
			 * compared thousands of keys with each other.
			 */
			if (nkeys > MAX_GROUPING) {
				p->fail = SC_SQLPARSE_ERROR;
				sc_srv_error(p->err,
				    "UNSUPPORTED_FEATURE.GROUP_TYPE", "0A000",
				    "Grouping sets over more than %d expressions are not supported by sc-serve.",
				    MAX_GROUPING);
				goto fail;
			}
		} while (sc_sqlp_accept_op(p, ","));
		if (!sc_sqlp_expect_op(p, ")"))
			goto fail;
	} else {
		if ((keys = sc_sqlp_expr_list(p, &nkeys, false)) == NULL)
			goto fail;
		for (i = 0; i < nkeys; i++)
			if (is_analytics_call(keys[i])) {
				sc_sqlp_unsupported(p,
				    "ROLLUP or CUBE among other GROUP BY keys");
				goto fail;
			}
		if (sc_sqlp_is_word(p, "with") &&
		    (sc_sqlp_tok_word(sc_sqlp_peek(p, 1), "rollup") ||
			sc_sqlp_tok_word(sc_sqlp_peek(p, 1), "cube"))) {
			g->type = sc_sqlp_tok_word(sc_sqlp_peek(p, 1), "rollup")
			    ? GROUP_(ROLLUP)
			    : GROUP_(CUBE);
			p->i += 2;
		}
	}
	if (g->type != GROUP_(GROUPBY) &&
	    (sc_sqlp_is_op(p, ",") ||
		(sc_sqlp_is_word(p, "with") &&
		    (sc_sqlp_tok_word(sc_sqlp_peek(p, 1), "rollup") ||
			sc_sqlp_tok_word(sc_sqlp_peek(p, 1), "cube"))))) {
		sc_sqlp_unsupported(p,
		    "grouping analytics mixed with other GROUP BY keys");
		goto fail;
	}
	for (i = 0; i < nkeys; i++)
		if (ordinal(p, items, nitems, &keys[i]) == -1)
			goto fail;
named:
	for (i = 0; i < nkeys; i++) {
		char name[32];

		snprintf(name, sizeof(name), "_sc_group_%zu", i);
		keys[i] = sc_sqlp_alias_new(keys[i], sc_xstrdup(name));
	}
	g->keys = keys;
	g->nkeys = nkeys;
	return true;
fail:
	sc_sqlp_exprs_free(keys, nkeys);
	sets_free(g->sets, g->nsets);
	g->sets = NULL;
	g->nsets = 0;
	return false;
}

void
sc_sqlp_grouping_release(struct sc_sqlp_grouping *g)
{
	sc_sqlp_exprs_free(g->keys, g->nkeys);
	sets_free(g->sets, g->nsets);
	memset(g, 0, sizeof(*g));
}

/* ------------------------------------------------------------------ */
/* PIVOT                                                               */
/* ------------------------------------------------------------------ */

/*
 * The name the plan translator gives the pivot column of literal l:
 * false for a literal whose name is not simply its text here.
 */
static bool
pivot_value_name(const Spark__Connect__Expression__Literal *l, struct sc_buf *b)
{
	switch (l->literal_type_case) {
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING:
		sc_buf_addstr(b, l->string, NULL);
		return true;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER:
		sc_buf_addf(b, NULL, "%d", (int)l->integer);
		return true;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG:
		sc_buf_addf(b, NULL, "%lld", (long long)l->long_);
		return true;
	default:
		return false;
	}
}

static void
rename_add(Spark__Connect__WithColumnsRenamed *w, const char *from,
    const char *to)
{
	Spark__Connect__WithColumnsRenamed__RenameColumnsMapEntry *m;

	m = sc_xmalloc(sizeof(*m));
	spark__connect__with_columns_renamed__rename_columns_map_entry__init(m);
	m->key = sc_xstrdup(from);
	m->value = sc_xstrdup(to);
	w->rename_columns_map = sc_xreallocarray(w->rename_columns_map,
	    w->n_rename_columns_map + 1, sizeof(*w->rename_columns_map));
	w->rename_columns_map[w->n_rename_columns_map++] = m;
}

/*
 * After FROM ... PIVOT: ( agg [AS a], ... FOR col IN (v [AS a], ...) )
 * over in, as Spark's SQL pivot: grouped by every column of in that
 * neither the aggregates nor col name (a lone * among the grouping
 * expressions, which the translator expands), one column per value and
 * aggregate, renamed where a value has an alias.  Takes in.
 */
Rel *
sc_sqlp_pivot(struct parser *p, Rel *in)
{
	Spark__Connect__Aggregate *a;
	Spark__Connect__WithColumnsRenamed *w = NULL;
	Expr **aggs = NULL, *e, *col = NULL;
	char **aggnames = NULL;
	struct sc_buf b, from, to;
	const struct sc_sqltok *t;
	size_t naggs = 0, nnames = 0, i, k;
	char *alias;
	Rel *r;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	a = sc_xmalloc(sizeof(*a));
	spark__connect__aggregate__init(a);
	a->pivot = sc_xmalloc(sizeof(*a->pivot));
	spark__connect__aggregate__pivot__init(a->pivot);
	if (!sc_sqlp_expect_op(p, "("))
		goto fail;
	do {
		if ((e = sc_sqlp_expr(p)) == NULL)
			goto fail;
		alias = sc_sqlp_opt_alias(p);
		aggs = sc_xreallocarray(aggs, naggs + 1, sizeof(*aggs));
		aggnames =
		    sc_xreallocarray(aggnames, naggs + 1, sizeof(*aggnames));
		aggnames[nnames++] = alias != NULL ? sc_xstrdup(alias) : NULL;
		aggs[naggs++] = alias != NULL ? sc_sqlp_alias_new(e, alias) : e;
		if (p->fail != 0)
			goto fail;
	} while (sc_sqlp_accept_op(p, ","));
	if (!sc_sqlp_accept_word(p, "for")) {
		sc_sqlp_not_taken(p);
		goto fail;
	}
	if (sc_sqlp_is_op(p, "(")) {
		sc_sqlp_unsupported(p, "PIVOT over several columns");
		goto fail;
	}
	/* The column: a name, not an expression (IN follows it). */
	t = sc_sqlp_cur(p);
	if ((t->kind != SC_TK_WORD || sc_sqlp_is_reserved(t)) &&
	    t->kind != SC_TK_QIDENT) {
		sc_sqlp_not_taken(p);
		goto fail;
	}
	sc_sqlp_add_part(&b, t);
	p->i++;
	while (sc_sqlp_is_op(p, ".") &&
	    (sc_sqlp_peek(p, 1)->kind == SC_TK_WORD ||
		sc_sqlp_peek(p, 1)->kind == SC_TK_QIDENT)) {
		sc_buf_addch(&b, '.', NULL);
		sc_sqlp_add_part(&b, sc_sqlp_peek(p, 1));
		p->i += 2;
	}
	sc_buf_addch(&b, '\0', NULL);
	col = sc_sqlp_attr_new((const char *)b.data);
	if (!sc_sqlp_accept_word(p, "in") || !sc_sqlp_expect_op(p, "(")) {
		sc_sqlp_not_taken(p);
		goto fail;
	}
	do {
		Spark__Connect__Expression__Literal *l;

		if ((e = sc_sqlp_expr(p)) == NULL)
			goto fail;
		if (e->expr_type_case !=
		    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL) {
			sc_sqlp_expr_free(e);
			sc_sqlp_unsupported(p,
			    "a PIVOT value that is not a "
			    "literal");
			goto fail;
		}
		l = e->literal;
		e->literal = NULL;
		e->expr_type_case =
		    SPARK__CONNECT__EXPRESSION__EXPR_TYPE__NOT_SET;
		sc_sqlp_expr_free(e);
		a->pivot->values = sc_xreallocarray(a->pivot->values,
		    a->pivot->n_values + 1, sizeof(*a->pivot->values));
		a->pivot->values[a->pivot->n_values++] = l;
		if ((alias = sc_sqlp_opt_alias(p)) == NULL) {
			if (p->fail != 0)
				goto fail;
			continue;
		}
		sc_buf_init(&from, SC_BUF_UNLIMITED);
		if (!pivot_value_name(l, &from)) {
			sc_buf_release(&from);
			free(alias);
			sc_sqlp_unsupported(p,
			    "an alias of a PIVOT value "
			    "that is not a string or an "
			    "integer");
			goto fail;
		}
		if (w == NULL) {
			w = sc_xmalloc(sizeof(*w));
			spark__connect__with_columns_renamed__init(w);
		}
		for (k = 0; k < naggs; k++) {
			if (naggs > 1 && aggnames[k] == NULL) {
				sc_buf_release(&from);
				free(alias);
				sc_sqlp_unsupported(p,
				    "aliased PIVOT values "
				    "over several "
				    "aggregates without "
				    "aliases");
				goto fail;
			}
			sc_buf_init(&to, SC_BUF_UNLIMITED);
			sc_buf_addstr(&to, alias, NULL);
			if (naggs > 1) {
				sc_buf_addf(&to, NULL, "_%s", aggnames[k]);
				sc_buf_addf(&from, NULL, "_%s", aggnames[k]);
			}
			rename_add(w, (const char *)from.data,
			    (const char *)to.data);
			if (naggs > 1)
				sc_buf_setlen(&from,
				    from.len - strlen(aggnames[k]) - 1);
			sc_buf_release(&to);
		}
		sc_buf_release(&from);
		free(alias);
	} while (sc_sqlp_accept_op(p, ","));
	if (!sc_sqlp_expect_op(p, ")") || !sc_sqlp_expect_op(p, ")"))
		goto fail;
	if (sc_sqlp_is_word(p, "as") || sc_sqlp_is_word(p, "unpivot") ||
	    (sc_sqlp_cur(p)->kind == SC_TK_WORD &&
		!sc_sqlp_is_reserved(sc_sqlp_cur(p)))) {
		sc_sqlp_unsupported(p, "an alias after PIVOT");
		goto fail;
	}
	a->input = in;
	in = NULL;
	a->group_type = GROUP_(PIVOT);
	/* Every other column: the translator expands the star. */
	a->grouping_expressions = sc_xmalloc(sizeof(*a->grouping_expressions));
	a->grouping_expressions[0] = sc_sqlp_star_new(NULL);
	a->n_grouping_expressions = 1;
	a->aggregate_expressions = aggs;
	a->n_aggregate_expressions = naggs;
	aggs = NULL;
	naggs = 0;
	a->pivot->col = col;
	col = NULL;
	r = sc_sqlp_rel_new();
	r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_AGGREGATE;
	r->aggregate = a;
	a = NULL;
	if (w != NULL) {
		w->input = r;
		r = sc_sqlp_rel_new();
		r->rel_type_case =
		    SPARK__CONNECT__RELATION__REL_TYPE_WITH_COLUMNS_RENAMED;
		r->with_columns_renamed = w;
		w = NULL;
	}
	goto out;
fail:
	r = NULL;
out:
	for (i = 0; i < nnames; i++)
		free(aggnames[i]);
	free(aggnames);
	sc_sqlp_exprs_free(aggs, naggs);
	sc_sqlp_expr_free(col);
	if (a != NULL)
		protobuf_c_message_free_unpacked(&a->base, NULL);
	if (w != NULL)
		protobuf_c_message_free_unpacked(&w->base, NULL);
	sc_sqlp_rel_free(in);
	sc_buf_release(&b);
	return r;
}

/* ------------------------------------------------------------------ */
/* FILTER                                                              */
/* ------------------------------------------------------------------ */

/*
 * agg(args) FILTER (WHERE cond) as agg(CASE WHEN cond THEN arg END, ...)
 * for an aggregate that skips nulls, which gives the same answer.  Its
 * column name (Spark's "count(1) FILTER (WHERE ...)") is not made here:
 * sc_sqlp_expr_list() asks for an alias.
 */
Expr *
sc_sqlp_agg_filter(struct parser *p, Expr *f)
{
	Spark__Connect__Expression__UnresolvedFunction *u =
	    f->unresolved_function;
	Expr *cond, *w;
	size_t i;

	if (!sc_sqlp_aggregate_skips_nulls(u->function_name)) {
		sc_sqlp_expr_free(f);
		return sc_sqlp_unsupported(p, "FILTER on this aggregate");
	}
	if (!sc_sqlp_expect_op(p, "(") || !sc_sqlp_accept_word(p, "where") ||
	    (cond = sc_sqlp_expr(p)) == NULL) {
		sc_sqlp_expr_free(f);
		return sc_sqlp_not_taken(p);
	}
	if (!sc_sqlp_expect_op(p, ")")) {
		sc_sqlp_expr_free(cond);
		sc_sqlp_expr_free(f);
		return NULL;
	}
	for (i = 0; i < u->n_arguments; i++) {
		Expr *copy = sc_sqlp_expr_dup(p, cond);

		if (copy == NULL) {
			sc_sqlp_expr_free(cond);
			sc_sqlp_expr_free(f);
			return NULL;
		}
		w = sc_sqlp_func_new("when", 2, copy, u->arguments[i]);
		u->arguments[i] = w;
	}
	sc_sqlp_expr_free(cond);
	p->nfilters++;
	return f;
}
