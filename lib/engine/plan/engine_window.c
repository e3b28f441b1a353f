/* SPDX-License-Identifier: MIT */

/*
 * engine_window.c: window expressions onto SQLite's window functions:
 * ranking (row_number, rank, dense_rank, percent_rank, cume_dist,
 * ntile), offsets (lag, lead, nth_value), first/last, and aggregates
 * over a partition, order and ROWS or RANGE frame.  Named as Spark
 * names them, frame included.
 */

#include "engine/engine_int.h"
#include "engine/plan/engine_expr_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

#define SORT_DIR_(x) \
	SPARK__CONNECT__EXPRESSION__SORT_ORDER__SORT_DIRECTION__SORT_DIRECTION_##x
#define SORT_NULLS_(x) \
	SPARK__CONNECT__EXPRESSION__SORT_ORDER__NULL_ORDERING__SORT_NULLS_##x
#define FRAME_(x) \
	SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_TYPE__FRAME_TYPE_##x
#define BOUND_(x) \
	SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_##x

typedef Spark__Connect__Expression__Window__WindowFrame__FrameBoundary Bound;

enum wkind { W_RANK, W_OFFSET, W_VALUE, W_AGG };

struct wfn {
	const char *name; /* Spark's */
	const char *sql; /* SQLite's */
	enum wkind k;
	int min, max;
	int rtype; /* result type, or -2: the first argument's */
};

static const struct wfn wfns[] = {
	{ "row_number", "row_number", W_RANK, 0, 0, SC_ARROW_INT32 },
	{ "rank", "rank", W_RANK, 0, 0, SC_ARROW_INT32 },
	{ "dense_rank", "dense_rank", W_RANK, 0, 0, SC_ARROW_INT32 },
	{ "percent_rank", "percent_rank", W_RANK, 0, 0, SC_ARROW_DOUBLE },
	{ "cume_dist", "cume_dist", W_RANK, 0, 0, SC_ARROW_DOUBLE },
	{ "ntile", "ntile", W_RANK, 1, 1, SC_ARROW_INT32 },
	{ "lag", "lag", W_OFFSET, 1, 3, -2 },
	{ "lead", "lead", W_OFFSET, 1, 3, -2 },
	{ "nth_value", "nth_value", W_VALUE, 2, 2, -2 },
	{ "first", "first_value", W_VALUE, 1, 1, -2 },
	{ "first_value", "first_value", W_VALUE, 1, 1, -2 },
	{ "last", "last_value", W_VALUE, 1, 1, -2 },
	{ "last_value", "last_value", W_VALUE, 1, 1, -2 },
};

static int
bound_value(const Bound *b, int64_t *v, struct sc_error *err)
{
	const Spark__Connect__Expression *e = b->value;

	if (e != NULL && e->expr_type_case == SC_EXPR_(LITERAL)) {
		switch (e->literal->literal_type_case) {
		case SC_LIT_(INTEGER):
		case SC_LIT_(SHORT):
		case SC_LIT_(BYTE):
			*v = e->literal->integer;
			return 0;
		case SC_LIT_(LONG):
			*v = e->literal->long_;
			return 0;
		default:
			break;
		}
	}
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
	    "A window frame boundary that is not an integer literal is not "
	    "supported by sc-serve.");
}

/* One frame boundary: SQL into sql, Spark's text into name. */
static int
bound(const Bound *b, bool lower, struct sc_buf *sql, struct sc_buf *name,
    struct sc_error *err)
{
	int64_t v = 0;

	if (b == NULL || b->boundary_case == BOUND_(UNBOUNDED)) {
		sc_buf_addstr(sql,
		    lower ? "UNBOUNDED PRECEDING" : "UNBOUNDED FOLLOWING",
		    NULL);
		sc_buf_addstr(name,
		    lower ? "UNBOUNDED PRECEDING" : "UNBOUNDED FOLLOWING",
		    NULL);
		return 0;
	}
	if (b->boundary_case == BOUND_(CURRENT_ROW)) {
		sc_buf_addstr(sql, "CURRENT ROW", NULL);
		sc_buf_addstr(name, "CURRENT ROW", NULL);
		return 0;
	}
	if (bound_value(b, &v, err) == -1)
		return -1;
	if (v == 0) {
		sc_buf_addstr(sql, "CURRENT ROW", NULL);
		sc_buf_addstr(name, "CURRENT ROW", NULL);
	} else if (v < 0) {
		sc_buf_addf(sql, NULL, "%" PRIu64 " PRECEDING",
		    (uint64_t)0 - (uint64_t)v);
		sc_buf_addf(name, NULL, "%" PRId64 " FOLLOWING", v);
	} else {
		sc_buf_addf(sql, NULL, "%" PRId64 " FOLLOWING", v);
		sc_buf_addf(name, NULL, "%" PRId64 " FOLLOWING", v);
	}
	return 0;
}

int
sc_eng_window(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__Window *w, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_error *err)
{
	const Spark__Connect__Expression *fe = w->window_function;
	const Spark__Connect__Expression__UnresolvedFunction *f;
	const struct wfn *wf = NULL;
	struct sc_buf over, oname, fsql, arg;
	struct sc_einfo ae;
	char lname[64];
	size_t i;
	int rc = -1, offset = 1;
	bool agg = false, ordered = w->n_order_spec > 0;

	if (fe == NULL || fe->expr_type_case != SC_EXPR_(UNRESOLVED_FUNCTION))
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "A window over something other than a function is not "
		    "supported by sc-serve.");
	f = fe->unresolved_function;
	for (i = 0; f->function_name != NULL && f->function_name[i] != '\0' &&
	     i + 1 < sizeof(lname);
	     i++)
		lname[i] = (char)tolower((unsigned char)f->function_name[i]);
	lname[i] = '\0';
	for (i = 0; i < SC_NELEM(wfns); i++)
		if (strcmp(wfns[i].name, lname) == 0)
			wf = &wfns[i];
	/* An aggregate SQLite runs over a window (a flag of its entry). */
	if (wf == NULL) {
		const struct sc_efdef *fd = sc_eng_func_find(lname, -1);

		agg = fd != NULL && (fd->flags & SC_EF_WINDOW_OK) != 0;
	}
	if (wf == NULL && !agg)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "The window function `%s` is not supported by sc-serve.",
		    f->function_name != NULL ? f->function_name : "");
	if (agg && f->is_distinct)
		return sc_srv_error(err, "DISTINCT_WINDOW_FUNCTION_UNSUPPORTED",
		    "0A000", "Distinct window functions are not supported: %s.",
		    lname);
	sc_buf_init(&over, SC_BUF_UNLIMITED);
	sc_buf_init(&oname, SC_BUF_UNLIMITED);
	sc_buf_init(&fsql, SC_BUF_UNLIMITED);
	sc_buf_init(&arg, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&ae);
	if (agg) {
		/* The aggregate as the function table translates it. */
		if (sc_eng_expr(x, in, fe, &fsql, ei, err) == -1)
			goto out;
	} else {
		if ((int)f->n_arguments < wf->min ||
		    (int)f->n_arguments > wf->max) {
			rc = sc_eng_wrong_num_args(lname, wf->min, wf->max,
			    f->n_arguments, err);
			goto out;
		}
		sc_buf_addf(&fsql, NULL, "%s(", wf->sql);
		sc_buf_addf(&ei->name, NULL, "%s(", lname);
		for (i = 0; i < f->n_arguments; i++) {
			sc_buf_reset(&arg);
			sc_eng_einfo_release(&ae);
			sc_eng_einfo_init(&ae);
			if (sc_eng_expr(x, in, f->arguments[i], &arg, &ae,
				err) == -1)
				goto out;
			if (i > 0) {
				sc_buf_addstr(&fsql, ", ", NULL);
				sc_buf_addstr(&ei->name, ", ", NULL);
			}
			sc_buf_add(&fsql, arg.data, arg.len, NULL);
			sc_buf_add(&ei->name, ae.name.data, ae.name.len, NULL);
			if (i == 0) {
				ei->type = ae.type;
				ei->nullable = 1;
			}
			if (i == 1 && wf->k == W_OFFSET &&
			    f->arguments[1]->expr_type_case ==
				SC_EXPR_(LITERAL))
				offset = f->arguments[1]->literal->integer;
		}
		/* lag(x) is lag(x, 1, NULL) in Spark's name. */
		if (wf->k == W_OFFSET && f->n_arguments == 1)
			sc_buf_addstr(&ei->name, ", 1, NULL", NULL);
		else if (wf->k == W_OFFSET && f->n_arguments == 2)
			sc_buf_addstr(&ei->name, ", NULL", NULL);
		sc_buf_addch(&fsql, ')', NULL);
		sc_buf_addch(&ei->name, ')', NULL);
		if (wf->rtype != -2) {
			memset(&ei->type, 0, sizeof(ei->type));
			ei->type.t = wf->rtype;
			ei->nullable = 0;
		}
	}
	/* PARTITION BY, ORDER BY */
	for (i = 0; i < w->n_partition_spec; i++) {
		sc_buf_addstr(&over, i == 0 ? "PARTITION BY " : ", ", NULL);
		sc_buf_addstr(&oname, i == 0 ? "PARTITION BY " : ", ", NULL);
		sc_eng_einfo_release(&ae);
		sc_eng_einfo_init(&ae);
		if (sc_eng_expr(x, in, w->partition_spec[i], &over, &ae, err) ==
		    -1)
			goto out;
		sc_buf_add(&oname, ae.name.data, ae.name.len, NULL);
	}
	for (i = 0; i < w->n_order_spec; i++) {
		const Spark__Connect__Expression__SortOrder *o =
		    w->order_spec[i];
		bool desc = o->direction == SORT_DIR_(DESCENDING);
		bool nfirst = o->null_ordering == SORT_NULLS_(FIRST) ||
		    (o->null_ordering == SORT_NULLS_(UNSPECIFIED) && !desc);
		const char *sep = i == 0 ? " ORDER BY " : ", ";

		if (i == 0 && over.len == 0)
			sep = "ORDER BY ";
		sc_buf_addstr(&over, sep, NULL);
		sc_buf_addstr(&oname, sep, NULL);
		sc_eng_einfo_release(&ae);
		sc_eng_einfo_init(&ae);
		if (sc_eng_expr(x, in, o->child, &over, &ae, err) == -1)
			goto out;
		sc_buf_addf(&over, NULL, " %s NULLS %s", desc ? "DESC" : "ASC",
		    nfirst ? "FIRST" : "LAST");
		sc_buf_add(&oname, ae.name.data, ae.name.len, NULL);
		sc_buf_addf(&oname, NULL, " %s NULLS %s", desc ? "DESC" : "ASC",
		    nfirst ? "FIRST" : "LAST");
	}
	if (oname.len > 0)
		sc_buf_addch(&oname, ' ', NULL);
	/* The frame: given, or Spark's default for the function. */
	if (wf != NULL && (wf->k == W_RANK || wf->k == W_OFFSET)) {
		if (wf->k == W_RANK)
			sc_buf_addstr(&oname,
			    "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
			    NULL);
		else
			sc_buf_addf(&oname, NULL,
			    "ROWS BETWEEN %d FOLLOWING AND %d FOLLOWING",
			    wf->sql[1] == 'a' ? -offset : offset,
			    wf->sql[1] == 'a' ? -offset : offset);
	} else if (w->frame_spec != NULL &&
	    w->frame_spec->frame_type != FRAME_(UNDEFINED)) {
		bool rows = w->frame_spec->frame_type == FRAME_(ROW);

		sc_buf_addstr(&over,
		    rows ? " ROWS BETWEEN " : " RANGE BETWEEN ", NULL);
		sc_buf_addstr(&oname, rows ? "ROWS BETWEEN " : "RANGE BETWEEN ",
		    NULL);
		if (bound(w->frame_spec->lower, true, &over, &oname, err) == -1)
			goto out;
		sc_buf_addstr(&over, " AND ", NULL);
		sc_buf_addstr(&oname, " AND ", NULL);
		if (bound(w->frame_spec->upper, false, &over, &oname, err) ==
		    -1)
			goto out;
	} else if (ordered) {
		sc_buf_addstr(&oname,
		    "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", NULL);
	} else {
		/* Spark's default without an order: the whole partition. */
		sc_buf_addstr(&over,
		    " ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
		    NULL);
		sc_buf_addstr(&oname,
		    "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
		    NULL);
	}
	sc_buf_add(sql, fsql.data, fsql.len, NULL);
	sc_buf_addf(sql, NULL, " OVER (%s)", (const char *)over.data);
	sc_buf_addf(&ei->name, NULL, " OVER (%s)", (const char *)oname.data);
	rc = 0;
out:
	sc_eng_einfo_release(&ae);
	sc_buf_release(&over);
	sc_buf_release(&oname);
	sc_buf_release(&fsql);
	sc_buf_release(&arg);
	return rc;
}
