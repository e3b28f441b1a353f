/* SPDX-License-Identifier: MIT */

/*
 * sqlparse_group.c: GROUP BY's grouping analytics in Spark SQL text
 * (ROLLUP (...), CUBE (...), GROUPING SETS (...), a key list WITH ROLLUP
 * or WITH CUBE) as the Aggregate a DataFrame's rollup(), cube() and
 * groupingSets() send, so the plan translator gives them Spark's names.
 */

#include "server/sqlparse_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/xmem.h"
#include "core/banned.h"

#define GROUP_(x) SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_##x

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

/*
 * After GROUP BY: the keys into *groups (each aliased _sc_group_N),
 * the group type and, for GROUPING SETS, the sets.  false on failure
 * (p->fail says which).
 */
bool
sc_sqlp_group_by(struct parser *p, struct sc_sqlp_grouping *g)
{
	Spark__Connect__Aggregate__GroupingSets *gs;
	Expr **keys = NULL;
	size_t nkeys = 0, i, k;

	memset(g, 0, sizeof(*g));
	g->type = GROUP_(GROUPBY);
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
	for (i = 0; i < nkeys; i++) {
		char name[32];

		if (keys[i]->expr_type_case ==
		    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL) {
			/* Ordinals: left to SQLite as before. */
			sc_sqlp_not_taken(p);
			goto fail;
		}
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
