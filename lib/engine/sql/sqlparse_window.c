/* SPDX-License-Identifier: MIT */

/*
 * sqlparse_window.c: a window function's OVER (PARTITION BY ... ORDER BY
 * ... ROWS|RANGE BETWEEN ...) in Spark SQL text, as the Window
 * expression a DataFrame's over() sends.
 */

#include "engine/sql/sqlparse_int.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmem.h"
#include "core/banned.h"

typedef Spark__Connect__Expression__Window__WindowFrame__FrameBoundary Bound;

/*
 * A frame boundary: UNBOUNDED PRECEDING|FOLLOWING, CURRENT ROW, or an
 * integer PRECEDING (negative, as a client sends it) or FOLLOWING.
 */
static Bound *
frame_bound(struct parser *p)
{
	Bound *b = sc_xmalloc(sizeof(*b));
	int64_t v;

	spark__connect__expression__window__window_frame__frame_boundary__init(
	    b);
	if (sc_sqlp_accept_word(p, "unbounded")) {
		if (!sc_sqlp_accept_word(p, "preceding") &&
		    !sc_sqlp_accept_word(p, "following"))
			goto nt;
		b->boundary_case =
		    SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_UNBOUNDED;
		b->unbounded = true;
		return b;
	}
	if (sc_sqlp_accept_word(p, "current")) {
		if (!sc_sqlp_accept_word(p, "row"))
			goto nt;
		b->boundary_case =
		    SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_CURRENT_ROW;
		b->current_row = true;
		return b;
	}
	if (sc_sqlp_is_op(p, "-") || !sc_sqlp_int_arg(p, &v))
		goto nt;
	if (sc_sqlp_accept_word(p, "preceding"))
		v = -v;
	else if (!sc_sqlp_accept_word(p, "following"))
		goto nt;
	b->boundary_case =
	    SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_VALUE;
	b->value = sc_sqlp_expr_new();
	b->value->expr_type_case =
	    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL;
	b->value->literal = sc_xmalloc(sizeof(*b->value->literal));
	spark__connect__expression__literal__init(b->value->literal);
	b->value->literal->literal_type_case =
	    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG;
	b->value->literal->long_ = v;
	return b;
nt:
	protobuf_c_message_free_unpacked(&b->base, NULL);
	return sc_sqlp_not_taken(p);
}

/*
 * f OVER ([PARTITION BY e, ...] [ORDER BY o, ...] [ROWS|RANGE frame])
 * after OVER.  Named windows are not taken.  Takes f.
 */
Expr *
sc_sqlp_window(struct parser *p, Expr *f)
{
	Spark__Connect__Expression__Window *w;
	Spark__Connect__Expression__Window__WindowFrame *fr;
	Expr *e;
	bool rows;

	w = sc_xmalloc(sizeof(*w));
	spark__connect__expression__window__init(w);
	w->window_function = f;
	e = sc_sqlp_expr_new();
	e->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_WINDOW;
	e->window = w;
	p->nwindows++;
	if (!sc_sqlp_accept_op(p, "(")) {
		sc_sqlp_expr_free(e);
		return sc_sqlp_unsupported(p, "a named window (OVER name)");
	}
	if (sc_sqlp_accept_word(p, "partition")) {
		if (!sc_sqlp_accept_word(p, "by") ||
		    (w->partition_spec = sc_sqlp_expr_list(p,
			 &w->n_partition_spec, false)) == NULL)
			goto nt;
	}
	if (sc_sqlp_accept_word(p, "order")) {
		if (!sc_sqlp_accept_word(p, "by") ||
		    (w->order_spec = sc_sqlp_order_list(p, &w->n_order_spec,
			 NULL, 0)) == NULL)
			goto nt;
	}
	if ((rows = sc_sqlp_is_word(p, "rows")) ||
	    sc_sqlp_is_word(p, "range")) {
		p->i++;
		fr = sc_xmalloc(sizeof(*fr));
		spark__connect__expression__window__window_frame__init(fr);
		w->frame_spec = fr;
		fr->frame_type = rows
		    ? SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_TYPE__FRAME_TYPE_ROW
		    : SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_TYPE__FRAME_TYPE_RANGE;
		if (sc_sqlp_accept_word(p, "between")) {
			if ((fr->lower = frame_bound(p)) == NULL ||
			    !sc_sqlp_accept_word(p, "and") ||
			    (fr->upper = frame_bound(p)) == NULL)
				goto nt;
		} else {
			if ((fr->lower = frame_bound(p)) == NULL)
				goto nt;
			fr->upper = sc_xmalloc(sizeof(*fr->upper));
			spark__connect__expression__window__window_frame__frame_boundary__init(
			    fr->upper);
			fr->upper->boundary_case =
			    SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_CURRENT_ROW;
			fr->upper->current_row = true;
		}
	}
	if (!sc_sqlp_accept_op(p, ")"))
		goto nt;
	return e;
nt:
	sc_sqlp_expr_free(e);
	return sc_sqlp_not_taken(p);
}
