/* SPDX-License-Identifier: MIT */

/*
 * sqlparse_setop.c: UNION, INTERSECT, EXCEPT and MINUS between queries
 * in Spark SQL text, with Spark's precedence (INTERSECT first), and the
 * ORDER BY and LIMIT that end such a chain.
 */

#include "engine/sql/sqlparse_int.h"

#include <stdint.h>
#include <stdlib.h>

#include "core/xmem.h"
#include "core/banned.h"

/* Whether r ends in ORDER BY, LIMIT or OFFSET of its own. */
static bool
ordered(const Rel *r)
{
	return r->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_SORT ||
	    r->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_LIMIT ||
	    r->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_OFFSET;
}

#define SETOP_(x) SPARK__CONNECT__SET_OPERATION__SET_OP_TYPE__SET_OP_TYPE_##x

/*
 * The next set operator, [ALL | DISTINCT] read, of level 1 (INTERSECT)
 * or 2 (UNION, EXCEPT, MINUS): its type, or 0 if none of that level.
 */
static int
set_op_word(struct parser *p, int level, bool *all)
{
	int type;

	if (level == 1 && sc_sqlp_accept_word(p, "intersect"))
		type = SETOP_(INTERSECT);
	else if (level == 2 && sc_sqlp_accept_word(p, "union"))
		type = SETOP_(UNION);
	else if (level == 2 &&
	    (sc_sqlp_accept_word(p, "except") ||
		sc_sqlp_accept_word(p, "minus")))
		type = SETOP_(EXCEPT);
	else
		return 0;
	*all = sc_sqlp_accept_word(p, "all");
	if (!*all)
		sc_sqlp_accept_word(p, "distinct");
	return type;
}

static Rel *
set_op_new(Rel *left, Rel *right, int type, bool all)
{
	Spark__Connect__SetOperation *so;
	Rel *r;

	so = sc_xmalloc(sizeof(*so));
	spark__connect__set_operation__init(so);
	so->left_input = left;
	so->right_input = right;
	so->set_op_type = type;
	so->_is_all_case = SPARK__CONNECT__SET_OPERATION___IS_ALL_IS_ALL;
	so->is_all = all;
	r = sc_sqlp_rel_new();
	r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SET_OP;
	r->set_op = so;
	return r;
}

/* The operand of a set operator: a plain SELECT, then its INTERSECTs. */
static Rel *set_level(struct parser *p, Rel *left, int level);

static Rel *
set_operand(struct parser *p, int level)
{
	int saved = p->operand_depth;
	struct sc_sqlp_chain c;
	Rel *r;

	if (p->hidden != 0 || !sc_sqlp_is_word(p, "select"))
		return sc_sqlp_not_taken(p);
	p->operand_depth = p->depth + 1;
	sc_sqlp_chain_begin(p, &c);
	r = sc_sqlp_query(p);
	p->operand_depth = saved;
	if (r != NULL && p->hidden != 0) {
		sc_sqlp_rel_free(r);
		r = sc_sqlp_not_taken(p);
	}
	if (r != NULL && level > 1)
		r = set_level(p, r, level - 1);
	sc_sqlp_chain_end(p, &c);
	return r;
}

/* left, then the operators of one level, left to right. */
static Rel *
set_level(struct parser *p, Rel *left, int level)
{
	Rel *right;
	bool all;
	int type;

	if (level > 1 && (left = set_level(p, left, level - 1)) == NULL)
		return NULL;
	while ((type = set_op_word(p, level, &all)) != 0) {
		/* in the chain the caller began before left */
		if (!sc_sqlp_chain_next(p, 1)) {
			sc_sqlp_rel_free(left);
			return NULL;
		}
		if (p->hidden != 0 || ordered(left) ||
		    (right = set_operand(p, level)) == NULL) {
			sc_sqlp_rel_free(left);
			return sc_sqlp_not_taken(p);
		}
		left = set_op_new(left, right, type, all);
	}
	return left;
}

/* ORDER BY, LIMIT, OFFSET after a chain of set operations, over in. */
static Rel *
chain_tail(struct parser *p, Rel *in)
{
	Spark__Connect__Expression__SortOrder **order;
	int64_t v;
	size_t n;
	Rel *r;

	if (sc_sqlp_accept_word(p, "order")) {
		if (!sc_sqlp_accept_word(p, "by") ||
		    (order = sc_sqlp_order_list(p, &n, NULL, 0)) == NULL)
			goto nt;
		r = sc_sqlp_rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SORT;
		r->sort = sc_xmalloc(sizeof(*r->sort));
		spark__connect__sort__init(r->sort);
		r->sort->input = in;
		r->sort->order = order;
		r->sort->n_order = n;
		in = r;
	}
	if (sc_sqlp_accept_word(p, "limit")) {
		if (sc_sqlp_accept_word(p, "all"))
			v = -1;
		else if (!sc_sqlp_int_arg(p, &v) || v < 0 || v > INT32_MAX)
			goto nt;
		if (v >= 0 && sc_sqlp_is_word(p, "offset"))
			goto nt; /* the offset goes below: not yet */
		if (v >= 0) {
			r = sc_sqlp_rel_new();
			r->rel_type_case =
			    SPARK__CONNECT__RELATION__REL_TYPE_LIMIT;
			r->limit = sc_xmalloc(sizeof(*r->limit));
			spark__connect__limit__init(r->limit);
			r->limit->input = in;
			r->limit->limit = (int32_t)v;
			in = r;
		}
	}
	if (sc_sqlp_is_word(p, "offset"))
		goto nt;
	return in;
nt:
	sc_sqlp_rel_free(in);
	return sc_sqlp_not_taken(p);
}

/*
 * UNION, INTERSECT, EXCEPT or MINUS [ALL | DISTINCT] queries after the
 * query left: INTERSECT binds tighter than the others, as in Spark, and
 * each level goes left to right.  Taken: plain SELECTs, none ordered or
 * limited (an ORDER BY or LIMIT after the last one is the whole
 * chain's) nor grouped (hidden columns).  Takes left.
 */
static Rel *
set_ops(struct parser *p, Rel *left)
{
	Rel *r;

	if ((r = set_level(p, left, 2)) == NULL || r == left)
		return r;
	return chain_tail(p, r);
}

Rel *
sc_sqlp_query_ops(struct parser *p)
{
	struct sc_sqlp_chain c;
	Rel *r;

	sc_sqlp_chain_begin(p, &c);
	if ((r = sc_sqlp_query(p)) != NULL)
		r = set_ops(p, r);
	sc_sqlp_chain_end(p, &c);
	return r;
}
