/* SPDX-License-Identifier: MIT */

/*
 * sqlparse_query.c: one SELECT: its select list, WHERE, GROUP BY,
 * HAVING, ORDER BY, LIMIT and OFFSET, with aggregates lifted for HAVING
 * and ORDER BY.
 */

#include "engine/sql/sqlparse.h"
#include "engine/sql/sqlparse_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/arrow.h"
#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* ------------------------------------------------------------------ */
/* SELECT                                                              */
/* ------------------------------------------------------------------ */

bool
sc_sqlp_has_aggregate(const Expr *e)
{
	const Spark__Connect__Expression__UnresolvedFunction *f;
	size_t i;

	if (e == NULL)
		return false;
	switch (e->expr_type_case) {
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION:
		f = e->unresolved_function;
		if (sc_sqlp_is_aggregate(f->function_name))
			return true;
		for (i = 0; i < f->n_arguments; i++)
			if (sc_sqlp_has_aggregate(f->arguments[i]))
				return true;
		return false;
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS:
		return sc_sqlp_has_aggregate(e->alias->expr);
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CAST:
		return sc_sqlp_has_aggregate(e->cast->expr);
	default:
		return false;
	}
}

Expr **
sc_sqlp_expr_list(struct parser *p, size_t *np, bool aliases)
{
	Expr **v = NULL, *e;
	size_t n = 0, i;
	char *alias;

	for (;;) {
		size_t nfilters = p->nfilters;

		if ((e = sc_sqlp_expr(p)) == NULL)
			goto bad;
		if (aliases) {
			alias = sc_sqlp_opt_alias(p);
			if (p->fail != 0) {
				sc_sqlp_expr_free(e);
				goto bad;
			}
			/* Spark's name of a FILTER is not made: refused. */
			if (alias == NULL && p->nfilters != nfilters) {
				sc_sqlp_expr_free(e);
				sc_sqlp_unsupported(p,
				    "an aggregate FILTER without an alias");
				goto bad;
			}
			if (alias != NULL)
				e = sc_sqlp_alias_new(e, alias);
		}
		v = sc_xreallocarray(v, n + 1, sizeof(*v));
		v[n++] = e;
		if (!sc_sqlp_accept_op(p, ","))
			break;
	}
	*np = n;
	return v;
bad:
	for (i = 0; i < n; i++)
		sc_sqlp_expr_free(v[i]);
	free(v);
	return NULL;
}

void
sc_sqlp_exprs_free(Expr **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sc_sqlp_expr_free(v[i]);
	free(v);
}

/*
 * ORDER BY n over the select list items: the item it numbers (by its
 * alias when it has one), as Spark reads an ordinal.  NULL with p->fail
 * set when n is out of range or numbers a star.
 */
static Expr *
order_ordinal(struct parser *p, Expr *const *items, size_t nitems)
{
	const struct sc_sqltok *t = sc_sqlp_cur(p);
	const Expr *it;
	char *end;
	long long pos;

	pos = strtoll(t->s, &end, 10);
	if (t->numlen != t->n || end != t->s + t->n || pos < 1 ||
	    (unsigned long long)pos > nitems) {
		p->fail = SC_SQLPARSE_ERROR;
		sc_srv_error(p->err, "ORDER_BY_POS_OUT_OF_RANGE", "42805",
		    "ORDER BY position %.*s is not in select list (valid range is [1, %zu]).",
		    (int)(t->n > 20 ? 20 : t->n), t->s, nitems);
		return NULL;
	}
	it = items[pos - 1];
	if (it->expr_type_case ==
	    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_STAR)
		return sc_sqlp_not_taken(p);
	p->i++;
	if (it->expr_type_case == SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS)
		return sc_sqlp_attr_new(it->alias->name[0]);
	return sc_sqlp_expr_copy(it);
}

/*
 * ORDER BY items as sort orders; with the select list items, an
 * integer numbers one of them (else ordinals are not taken).
 */
Spark__Connect__Expression__SortOrder **
sc_sqlp_order_list(struct parser *p, size_t *np, Expr *const *items,
    size_t nitems)
{
	Spark__Connect__Expression__SortOrder **v = NULL, *o;
	size_t n = 0, i;
	Expr *e;

	for (;;) {
		const struct sc_sqltok *nx = sc_sqlp_peek(p, 1);
		bool alone = nx->kind == SC_TK_EOF || sc_sqlp_tok_op(nx, ",") ||
		    sc_sqlp_tok_op(nx, ";") || sc_sqlp_tok_op(nx, ")") ||
		    nx->kind == SC_TK_WORD;

		if (sc_sqlp_cur(p)->kind == SC_TK_NUM &&
		    (items == NULL || !alone))
			goto bad_nt; /* ordinals */
		if (sc_sqlp_cur(p)->kind == SC_TK_NUM)
			e = order_ordinal(p, items, nitems);
		else
			e = sc_sqlp_expr(p);
		if (e == NULL)
			goto bad;
		o = sc_xmalloc(sizeof(*o));
		spark__connect__expression__sort_order__init(o);
		o->child = e;
		o->direction =
		    SPARK__CONNECT__EXPRESSION__SORT_ORDER__SORT_DIRECTION__SORT_DIRECTION_ASCENDING;
		if (sc_sqlp_accept_word(p, "desc"))
			o->direction =
			    SPARK__CONNECT__EXPRESSION__SORT_ORDER__SORT_DIRECTION__SORT_DIRECTION_DESCENDING;
		else
			sc_sqlp_accept_word(p, "asc");
		o->null_ordering = o->direction ==
			SPARK__CONNECT__EXPRESSION__SORT_ORDER__SORT_DIRECTION__SORT_DIRECTION_ASCENDING
		    ? SPARK__CONNECT__EXPRESSION__SORT_ORDER__NULL_ORDERING__SORT_NULLS_FIRST
		    : SPARK__CONNECT__EXPRESSION__SORT_ORDER__NULL_ORDERING__SORT_NULLS_LAST;
		if (sc_sqlp_accept_word(p, "nulls")) {
			if (sc_sqlp_accept_word(p, "first"))
				o->null_ordering =
				    SPARK__CONNECT__EXPRESSION__SORT_ORDER__NULL_ORDERING__SORT_NULLS_FIRST;
			else if (sc_sqlp_accept_word(p, "last"))
				o->null_ordering =
				    SPARK__CONNECT__EXPRESSION__SORT_ORDER__NULL_ORDERING__SORT_NULLS_LAST;
			else {
				protobuf_c_message_free_unpacked(&o->base,
				    NULL);
				goto bad_nt;
			}
		}
		v = sc_xreallocarray(v, n + 1, sizeof(*v));
		v[n++] = o;
		if (!sc_sqlp_accept_op(p, ","))
			break;
	}
	*np = n;
	return v;
bad_nt:
	sc_sqlp_not_taken(p);
bad:
	for (i = 0; i < n; i++)
		protobuf_c_message_free_unpacked(&v[i]->base, NULL);
	free(v);
	return NULL;
}

static bool
limit_arg(struct parser *p, int32_t *v)
{
	int64_t x;

	if (!sc_sqlp_int_arg(p, &x) || x < 0 || x > INT32_MAX) {
		sc_sqlp_not_taken(p);
		return false;
	}
	*v = (int32_t)x;
	return true;
}

/* The last part of a.b.`c`, lower case, in out (size n). */
void
sc_sqlp_last_part(const char *ident, char *out, size_t n)
{
	const char *s = strrchr(ident, '.');
	size_t i, j = 0;

	s = s != NULL ? s + 1 : ident;
	for (i = 0; s[i] != '\0' && j + 1 < n; i++)
		if (s[i] != '`')
			out[j++] = (char)tolower((unsigned char)s[i]);
	out[j] = '\0';
}

/* Output names of a select list; *star when it has a star. */
struct names {
	char (*v)[128];
	size_t n;
	bool star;
	bool *alias; /* v[i] is an alias */
};

static void
names_add(struct names *nm, const char *name, bool alias)
{
	nm->v = sc_xreallocarray(nm->v, nm->n + 1, sizeof(*nm->v));
	nm->alias = sc_xreallocarray(nm->alias, nm->n + 1, sizeof(*nm->alias));
	sc_sqlp_last_part(name, nm->v[nm->n], sizeof(nm->v[0]));
	if (alias) {
		snprintf(nm->v[nm->n], sizeof(nm->v[0]), "%s", name);
		for (char *c = nm->v[nm->n]; *c != '\0'; c++)
			*c = (char)tolower((unsigned char)*c);
	}
	nm->alias[nm->n++] = alias;
}

static int
names_find(const struct names *nm, const char *name)
{
	size_t i;

	for (i = 0; i < nm->n; i++)
		if (strcmp(nm->v[i], name) == 0)
			return (int)i;
	return -1;
}

/* Column references of e, by their last part, added to refs. */
static void
refs_of(const Expr *e, struct names *refs)
{
	size_t i;

	if (e == NULL)
		return;
	switch (e->expr_type_case) {
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE:
		names_add(refs, e->unresolved_attribute->unparsed_identifier,
		    false);
		break;
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION:
		for (i = 0; i < e->unresolved_function->n_arguments; i++)
			refs_of(e->unresolved_function->arguments[i], refs);
		break;
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS:
		refs_of(e->alias->expr, refs);
		break;
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CAST:
		refs_of(e->cast->expr, refs);
		break;
	default:
		break;
	}
}

static void
names_release(struct names *nm)
{
	free(nm->v);
	free(nm->alias);
}

/*
 * Where ORDER BY goes: 1 above the projection (it names only output
 * columns), 0 below it (only input columns, none an alias), -1 neither.
 */
static int
sort_place(Expr **items, size_t nitems,
    Spark__Connect__Expression__SortOrder **order, size_t norder)
{
	struct names out = { 0 }, refs = { 0 };
	size_t i;
	int k, above = 1, alias = 0;

	for (i = 0; i < nitems; i++) {
		if (items[i]->expr_type_case ==
		    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS)
			names_add(&out, items[i]->alias->name[0], true);
		else if (items[i]->expr_type_case ==
		    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE)
			names_add(&out,
			    items[i]->unresolved_attribute->unparsed_identifier,
			    false);
		else if (items[i]->expr_type_case ==
		    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_STAR)
			out.star = true;
	}
	for (i = 0; i < norder; i++)
		refs_of(order[i]->child, &refs);
	for (i = 0; i < refs.n; i++) {
		k = names_find(&out, refs.v[i]);
		if (k < 0)
			above = 0;
		else if (out.alias[k])
			alias = 1;
	}
	k = above || out.star ? 1 : alias ? -1 : 0;
	names_release(&out);
	names_release(&refs);
	return k;
}

static bool
is_aggregate_call(const Expr *e)
{
	if (e->expr_type_case !=
	    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION)
		return false;
	return sc_sqlp_is_aggregate(e->unresolved_function->function_name);
}

/* Items of an aggregate added for HAVING and ORDER BY. */
struct lifted {
	Expr ***items;
	size_t *nitems;
	size_t n;
};

/*
 * In *ep (a HAVING condition or an ORDER BY key over an aggregate):
 * every aggregate call becomes a hidden aggregate column _sc_agg_N,
 * and a column that is a GROUP BY key its hidden key column
 * _sc_group_N, as Spark resolves them against the aggregate.
 */
static void
lift(Expr **ep, struct lifted *l, Expr **groups, size_t ngroups)
{
	Expr *e = *ep, *g;
	char name[32];
	size_t i;

	switch (e->expr_type_case) {
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION:
		if (is_aggregate_call(e)) {
			snprintf(name, sizeof(name), "_sc_agg_%zu", l->n++);
			*l->items = sc_xreallocarray(*l->items, *l->nitems + 1,
			    sizeof(**l->items));
			(*l->items)[(*l->nitems)++] =
			    sc_sqlp_alias_new(e, sc_xstrdup(name));
			*ep = sc_sqlp_attr_new(name);
			return;
		}
		for (i = 0; i < e->unresolved_function->n_arguments; i++)
			lift(&e->unresolved_function->arguments[i], l, groups,
			    ngroups);
		return;
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CAST:
		lift(&e->cast->expr, l, groups, ngroups);
		return;
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE:
		for (i = 0; i < ngroups; i++) {
			g = groups[i]->alias->expr;
			if (g->expr_type_case ==
				SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE &&
			    sc_eng_name_cmp(
				g->unresolved_attribute->unparsed_identifier,
				e->unresolved_attribute->unparsed_identifier) ==
				0) {
				sc_sqlp_expr_free(e);
				*ep =
				    sc_sqlp_attr_new(groups[i]->alias->name[0]);
				return;
			}
		}
		return;
	default:
		return;
	}
}

#define GROUP_TYPE_GROUPBY \
	SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_GROUPBY

/* SELECT ... [FROM ...] [WHERE] [GROUP BY] [ORDER BY] [LIMIT] [OFFSET]. */
Rel *
sc_sqlp_query(struct parser *p)
{
	Expr **items = NULL, **groups = NULL, *where = NULL, *having = NULL;
	Spark__Connect__Expression__SortOrder **order = NULL;
	size_t nitems = 0, ngroups = 0, norder = 0, i;
	Rel *in = NULL, *r;
	bool grouped = false, agg = false, distinct;
	Rel *sort_below = NULL;
	Spark__Connect__Aggregate__GroupingSets **gsets = NULL;
	size_t ngsets = 0;
	int group_type = GROUP_TYPE_GROUPBY;
	int32_t limit = -1, offset = -1;
	int place = 1;
	size_t scope0 = p->nscope, windows0 = p->nwindows, start = p->i;

	if (!sc_sqlp_deeper(p))
		return NULL;
	if (!sc_sqlp_accept_word(p, "select"))
		goto nt;
	distinct = sc_sqlp_accept_word(p, "distinct");
	if (!distinct)
		sc_sqlp_accept_word(p, "all");
	if ((items = sc_sqlp_expr_list(p, &nitems, true)) == NULL)
		goto fail;
	if (sc_sqlp_accept_word(p, "from")) {
		struct sc_sqlp_chain c;

		sc_sqlp_chain_begin(p, &c);
		if ((in = sc_sqlp_from_item(p)) != NULL)
			in = sc_sqlp_joins(p, in);
		sc_sqlp_chain_end(p, &c);
		if (in == NULL)
			goto fail;
		if (sc_sqlp_accept_word(p, "pivot") &&
		    (in = sc_sqlp_pivot(p, in)) == NULL)
			goto fail;
		if (sc_sqlp_is_word(p, "unpivot")) {
			sc_sqlp_unsupported(p, "UNPIVOT");
			goto fail;
		}
		if (sc_sqlp_is_word(p, "natural")) {
			sc_sqlp_unsupported(p, "NATURAL JOIN");
			goto fail;
		}
		if (sc_sqlp_is_word(p, "lateral")) {
			sc_sqlp_unsupported(p,
			    sc_sqlp_tok_word(sc_sqlp_peek(p, 1), "view")
				? "LATERAL VIEW"
				: "LATERAL");
			goto fail;
		}
		if (sc_sqlp_is_op(p, ",") || sc_sqlp_is_word(p, "join") ||
		    sc_sqlp_is_word(p, "inner") || sc_sqlp_is_word(p, "left") ||
		    sc_sqlp_is_word(p, "right") || sc_sqlp_is_word(p, "full") ||
		    sc_sqlp_is_word(p, "cross") ||
		    sc_sqlp_is_word(p, "natural") ||
		    sc_sqlp_is_word(p, "semi") || sc_sqlp_is_word(p, "anti") ||
		    sc_sqlp_is_word(p, "lateral") ||
		    sc_sqlp_is_word(p, "pivot") ||
		    sc_sqlp_is_word(p, "unpivot") ||
		    sc_sqlp_is_word(p, "tablesample"))
			goto nt;
	}
	/* Without FROM, * stands for no column: Spark's one-row relation. */
	if (in == NULL) {
		size_t n = 0;

		for (i = 0; i < nitems; i++)
			if (items[i]->expr_type_case ==
				SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_STAR &&
			    items[i]->unresolved_star->_unparsed_target_case ==
				SPARK__CONNECT__EXPRESSION__UNRESOLVED_STAR___UNPARSED_TARGET__NOT_SET)
				sc_sqlp_expr_free(items[i]);
			else
				items[n++] = items[i];
		nitems = n;
		if (nitems == 0) {
			sc_sqlp_unsupported(p,
			    "a SELECT without FROM whose items are only * (a result without columns)");
			goto fail;
		}
	}
	if (sc_sqlp_accept_word(p, "where") &&
	    (where = sc_sqlp_expr(p)) == NULL)
		goto fail;
	if (sc_sqlp_accept_word(p, "group")) {
		struct sc_sqlp_grouping gb;

		if (!sc_sqlp_accept_word(p, "by"))
			goto nt;
		grouped = true;
		/* Only the outermost query: its keys are dropped at the end. */
		if (p->depth != 1)
			goto nt;
		if (!sc_sqlp_group_by(p, items, nitems, &gb))
			goto fail;
		/* GROUP BY ALL of aggregates only: one group, as Spark. */
		grouped = gb.nkeys > 0 || gb.type != GROUP_TYPE_GROUPBY;
		groups = gb.keys;
		ngroups = gb.nkeys;
		group_type = gb.type;
		gsets = gb.sets;
		ngsets = gb.nsets;
	}
	if (sc_sqlp_accept_word(p, "having")) {
		if (p->depth != 1)
			goto nt;
		if ((having = sc_sqlp_expr(p)) == NULL)
			goto fail;
	}
	if (sc_sqlp_is_word(p, "window")) {
		sc_sqlp_unsupported(p, "a WINDOW clause");
		goto fail;
	}
	if (sc_sqlp_is_word(p, "qualify"))
		goto nt;
	/*
	 * Spark's partition clauses: their order is Spark's partitions',
	 * which one SQLite statement does not have.  Refused by name.
	 */
	if ((sc_sqlp_is_word(p, "cluster") ||
		sc_sqlp_is_word(p, "distribute") ||
		sc_sqlp_is_word(p, "sort")) &&
	    sc_sqlp_tok_word(sc_sqlp_peek(p, 1), "by")) {
		sc_sqlp_unsupported(p,
		    sc_sqlp_is_word(p, "cluster")	   ? "CLUSTER BY"
			: sc_sqlp_is_word(p, "distribute") ? "DISTRIBUTE BY"
							   : "SORT BY");
		goto fail;
	}
	/* A set operator's operand: its ORDER BY is the whole chain's. */
	if (p->operand_depth == p->depth)
		goto tail_done;
	if (sc_sqlp_accept_word(p, "order")) {
		if (!sc_sqlp_accept_word(p, "by") ||
		    (order = sc_sqlp_order_list(p, &norder, items, nitems)) ==
			NULL)
			goto fail_nt;
	}
	if (sc_sqlp_accept_word(p, "limit")) {
		if (sc_sqlp_is_word(p, "all"))
			p->i++;
		else if (!limit_arg(p, &limit))
			goto fail;
	}
	if (sc_sqlp_accept_word(p, "offset") && !limit_arg(p, &offset))
		goto fail;
tail_done:
	if (p->nscope > scope0) {
		for (i = 0; i < nitems; i++)
			sc_sqlp_qualify(p, scope0, &items[i]->base);
		for (i = 0; i < ngroups; i++)
			sc_sqlp_qualify(p, scope0, &groups[i]->base);
		for (i = 0; i < norder; i++)
			sc_sqlp_qualify(p, scope0, &order[i]->base);
		if (where != NULL)
			sc_sqlp_qualify(p, scope0, &where->base);
		if (having != NULL)
			sc_sqlp_qualify(p, scope0, &having->base);
	}
	for (i = 0; i < nitems && !grouped; i++)
		if (sc_sqlp_has_aggregate(items[i]))
			agg = true;
	/* Windows over a grouped query, or in its clauses: not yet. */
	if (p->nwindows > windows0 &&
	    (grouped || agg || distinct || having != NULL)) {
		sc_sqlp_unsupported(p,
		    "window functions in a grouped, "
		    "aggregated or DISTINCT query");
		goto fail;
	}
	/* DISTINCT: grouped by every item (Spark's Distinct). */
	if (distinct) {
		if (grouped || agg || p->depth != 1)
			goto nt;
		groups = sc_xcalloc(nitems, sizeof(*groups));
		for (i = 0; i < nitems; i++) {
			const Expr *g = items[i];
			char name[32];

			if (g->expr_type_case ==
			    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_STAR)
				goto nt;
			if (g->expr_type_case ==
			    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS)
				g = g->alias->expr;
			if ((groups[ngroups] = sc_sqlp_expr_copy(g)) == NULL)
				goto nt;
			snprintf(name, sizeof(name), "_sc_group_%zu", i);
			groups[ngroups] = sc_sqlp_alias_new(groups[ngroups],
			    sc_xstrdup(name));
			ngroups++;
		}
		grouped = true;
	}
	if (order != NULL && !grouped && !agg &&
	    (place = sort_place(items, nitems, order, norder)) < 0)
		goto nt;
	/*
	 * A window's own order would undo a sort below it: the sort keys
	 * become hidden columns of the projection, sorted above it (the
	 * outermost query's hidden columns are dropped at the end).
	 */
	if (order != NULL && place == 0 && p->nwindows > windows0) {
		if (p->depth != 1 || p->hidden > 0)
			goto nt;
		items =
		    sc_xreallocarray(items, nitems + norder, sizeof(*items));
		for (i = 0; i < norder; i++) {
			char name[32];

			snprintf(name, sizeof(name), "_sc_agg_%zu", i);
			items[nitems++] = sc_sqlp_alias_new(order[i]->child,
			    sc_xstrdup(name));
			order[i]->child = sc_sqlp_attr_new(name);
		}
		p->hidden = norder;
		place = 1;
	}
	if (order != NULL && place == 0) {
		/* Sorted below the projection: by input columns. */
		r = sc_sqlp_rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SORT;
		r->sort = sc_xmalloc(sizeof(*r->sort));
		spark__connect__sort__init(r->sort);
		r->sort->order = order;
		r->sort->n_order = norder;
		order = NULL;
		norder = 0;
		if (where != NULL || in == NULL) {
			/* The filter goes under the sort: built below. */
			r->sort->input = NULL;
		}
		sort_below = r;
	}
	if (having != NULL && !grouped && !agg) {
		/* HAVING without GROUP BY or aggregates: one group. */
		if (!sc_sqlp_has_aggregate(having))
			goto nt;
		agg = true;
	}
	/* HAVING and ORDER BY are resolved against the aggregate. */
	if (grouped || agg) {
		struct lifted l = { &items, &nitems, 0 };

		if (p->depth != 1 && (having != NULL || order != NULL))
			goto nt;
		if (having != NULL)
			lift(&having, &l, groups, ngroups);
		for (i = 0; i < norder; i++)
			lift(&order[i]->child, &l, groups, ngroups);
		if (l.n > 0 || grouped)
			p->hidden = ngroups + l.n;
	}
	/* Build from the inside out. */
	if (where != NULL && in == NULL) {
		/*
		 * SELECT ... WHERE without FROM: the filter of Spark's one
		 * row, a column no query names (* would show it).
		 */
		for (i = 0; i < nitems; i++)
			if (items[i]->expr_type_case ==
			    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_STAR)
				goto nt;
		in = sc_sqlp_rel_new();
		in->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_PROJECT;
		in->project = sc_xmalloc(sizeof(*in->project));
		spark__connect__project__init(in->project);
		in->project->expressions = sc_xcalloc(1, sizeof(Expr *));
		in->project->expressions[0] = sc_sqlp_alias_new(
		    sc_sqlp_lit_int(1), sc_xstrdup("_sc_one_row"));
		in->project->n_expressions = 1;
	}
	if (where != NULL) {
		r = sc_sqlp_rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_FILTER;
		r->filter = sc_xmalloc(sizeof(*r->filter));
		spark__connect__filter__init(r->filter);
		r->filter->input = in;
		r->filter->condition = where;
		where = NULL;
		in = r;
	}
	if (sort_below != NULL) {
		if (in == NULL) {
			sc_sqlp_rel_free(sort_below);
			sort_below = NULL;
			goto nt;
		}
		sort_below->sort->input = in;
		in = sort_below;
		sort_below = NULL;
	}
	if (grouped || agg) {
		if (in == NULL)
			goto nt;
		r = sc_sqlp_rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_AGGREGATE;
		r->aggregate = sc_xmalloc(sizeof(*r->aggregate));
		spark__connect__aggregate__init(r->aggregate);
		r->aggregate->input = in;
		r->aggregate->group_type = group_type;
		r->aggregate->grouping_sets = gsets;
		r->aggregate->n_grouping_sets = ngsets;
		gsets = NULL;
		ngsets = 0;
		r->aggregate->grouping_expressions = groups;
		r->aggregate->n_grouping_expressions = ngroups;
		r->aggregate->aggregate_expressions = items;
		r->aggregate->n_aggregate_expressions = nitems;
		groups = items = NULL;
		ngroups = nitems = 0;
	} else {
		r = sc_sqlp_rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_PROJECT;
		r->project = sc_xmalloc(sizeof(*r->project));
		spark__connect__project__init(r->project);
		r->project->input = in;
		r->project->expressions = items;
		r->project->n_expressions = nitems;
		items = NULL;
		nitems = 0;
	}
	in = r;
	if (having != NULL) {
		r = sc_sqlp_rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_FILTER;
		r->filter = sc_xmalloc(sizeof(*r->filter));
		spark__connect__filter__init(r->filter);
		r->filter->input = in;
		r->filter->condition = having;
		having = NULL;
		in = r;
	}
	if (order != NULL) {
		r = sc_sqlp_rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SORT;
		r->sort = sc_xmalloc(sizeof(*r->sort));
		spark__connect__sort__init(r->sort);
		r->sort->input = in;
		r->sort->order = order;
		r->sort->n_order = norder;
		order = NULL;
		in = r;
	}
	if (offset >= 0) {
		r = sc_sqlp_rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_OFFSET;
		r->offset = sc_xmalloc(sizeof(*r->offset));
		spark__connect__offset__init(r->offset);
		r->offset->input = in;
		r->offset->offset = offset;
		in = r;
	}
	if (limit >= 0) {
		r = sc_sqlp_rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_LIMIT;
		r->limit = sc_xmalloc(sizeof(*r->limit));
		spark__connect__limit__init(r->limit);
		r->limit->input = in;
		r->limit->limit = limit;
		in = r; /* over the offset: rows offset .. offset+limit */
	}
	sc_sqlp_scope_pop(p, scope0);
	sc_sqlp_shallower(p);
	return in;
nt:
	/* A clause of this query the parser lacks: named by its SELECT. */
	if (p->fail == 0) {
		p->fail = SC_SQLPARSE_NOT_TAKEN;
		p->stop = start;
	}
	goto fail;
fail_nt:
	sc_sqlp_not_taken(p);
fail:
	sc_sqlp_rel_free(sort_below);
	sc_sqlp_expr_free(having);
	sc_sqlp_exprs_free(items, nitems);
	{
		struct sc_sqlp_grouping gb = { NULL, 0, 0, gsets, ngsets };

		sc_sqlp_grouping_release(&gb);
	}
	sc_sqlp_exprs_free(groups, ngroups);
	sc_sqlp_expr_free(where);
	for (i = 0; i < norder && order != NULL; i++)
		protobuf_c_message_free_unpacked(&order[i]->base, NULL);
	free(order);
	sc_sqlp_rel_free(in);
	sc_sqlp_scope_pop(p, scope0);
	sc_sqlp_shallower(p);
	return NULL;
}
