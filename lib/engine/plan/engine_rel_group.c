/* SPDX-License-Identifier: MIT */

/*
 * engine_rel_group.c: an aggregate's rollup, cube, grouping sets and
 * pivot as SQLite SQL.
 */

#include "engine/engine_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/sql/sqlparse.h"
#include "engine/srverror.h"
#include "core/banned.h"

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

/*
 * Functions whose arguments keep naming the input's columns in a
 * grouping set that leaves a key out: the aggregates, and grouping().
 */
static bool
keeps_args(const Spark__Connect__Expression *e)
{
	const char *n;

	if (e->expr_type_case == SC_EXPR_(WINDOW))
		return true;
	if (e->expr_type_case != SC_EXPR_(UNRESOLVED_FUNCTION))
		return false;
	n = e->unresolved_function->function_name;
	return n != NULL &&
	    (sc_sqlp_is_aggregate(n) || strcasecmp(n, "grouping") == 0 ||
		strcasecmp(n, "grouping_id") == 0);
}

static bool mask_expr(struct sc_ectx *x, struct sc_eplan *in,
    Spark__Connect__Expression *e);

/* mask_expr() on every expression under the message m. */
static bool
mask_fields(struct sc_ectx *x, struct sc_eplan *in, ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	bool changed = false;
	unsigned f;
	size_t i;

	for (f = 0; f < d->n_fields; f++) {
		const ProtobufCFieldDescriptor *fd = &d->fields[f];
		char *at = (char *)m + fd->offset;
		ProtobufCMessage **v;
		size_t n;

		if (fd->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF &&
		    *(uint32_t *)((char *)m + fd->quantifier_offset) != fd->id)
			continue;
		if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
			n = *(size_t *)((char *)m + fd->quantifier_offset);
			v = *(ProtobufCMessage ***)at;
		} else {
			n = 1;
			v = (ProtobufCMessage **)at;
		}
		for (i = 0; i < n; i++) {
			if (v[i] == NULL)
				continue;
			if (v[i]->descriptor ==
			    &spark__connect__expression__descriptor)
				changed |= mask_expr(x, in,
				    (Spark__Connect__Expression *)v[i]);
			else
				changed |= mask_fields(x, in, v[i]);
		}
	}
	return changed;
}

/*
 * In the grouping set x->gmask, a grouping key the set leaves out is
 * null wherever the select list names it outside an aggregate, as in
 * Spark's Expand: e (a copy) with such keys made null literals.
 */
static bool
mask_expr(struct sc_ectx *x, struct sc_eplan *in, Spark__Connect__Expression *e)
{
	Spark__Connect__Expression *n, t;
	struct sc_buf s;
	struct sc_einfo ei;
	struct sc_error err;
	size_t i;
	int rc;

	if (keeps_args(e))
		return false;
	if (e->expr_type_case != SC_EXPR_(LITERAL) &&
	    e->expr_type_case != SC_EXPR_(ALIAS)) {
		sc_buf_init(&s, SC_BUF_UNLIMITED);
		sc_eng_einfo_init(&ei);
		rc = sc_eng_expr(x, in, e, &s, &ei, &err);
		for (i = 0; rc == 0 && i < x->ngsql; i++)
			if (!(x->gmask >> i & 1) &&
			    strcmp((const char *)s.data, x->gsql[i]) == 0)
				break;
		sc_buf_release(&s);
		sc_eng_einfo_release(&ei);
		if (rc == 0 && i < x->ngsql) {
			n = sc_xmalloc(sizeof(*n));
			spark__connect__expression__init(n);
			n->expr_type_case = SC_EXPR_(LITERAL);
			n->literal = sc_xmalloc(sizeof(*n->literal));
			spark__connect__expression__literal__init(n->literal);
			n->literal->literal_type_case =
			    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_NULL;
			n->literal->null =
			    sc_xmalloc(sizeof(*n->literal->null));
			spark__connect__data_type__init(n->literal->null);
			t = *e;
			*e = *n;
			*n = t;
			protobuf_c_message_free_unpacked(&n->base, NULL);
			return true;
		}
	}
	return mask_fields(x, in, &e->base);
}

/* A heap copy of e (free with protobuf_c_message_free_unpacked()). */
static Spark__Connect__Expression *
expr_copy(const Spark__Connect__Expression *e)
{
	size_t n = protobuf_c_message_get_packed_size(&e->base);
	uint8_t *b = sc_xmalloc(n + 1);
	Spark__Connect__Expression *c;

	protobuf_c_message_pack(&e->base, b);
	c = spark__connect__expression__unpack(NULL, n, b);
	free(b);
	return c;
}

/*
 * One aggregate expression as "sql AS name" into sel; its column.  In
 * a grouping set, the keys it leaves out are null: ei keeps the name
 * and type the expression has, nullable.
 */
static int
agg_item(struct sc_ectx *x, struct sc_eplan *in,
    const Spark__Connect__Expression *e, struct sc_buf *sel,
    struct sc_einfo *ei, struct sc_error *err)
{
	Spark__Connect__Expression *m = NULL;
	struct sc_einfo mi;
	struct sc_buf s;
	int rc;

	sc_buf_init(&s, SC_BUF_UNLIMITED);
	rc = sc_eng_expr(x, in, e, &s, ei, err);
	if (rc == 0 && x->ngsql > 0 && (m = expr_copy(e)) != NULL &&
	    mask_expr(x, in, m)) {
		sc_buf_reset(&s);
		sc_eng_einfo_init(&mi);
		rc = sc_eng_expr(x, in, m, &s, &mi, err);
		sc_eng_einfo_release(&mi);
		ei->nullable = 1;
	}
	if (m != NULL)
		protobuf_c_message_free_unpacked(&m->base, NULL);
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

static void
exprs_free(Spark__Connect__Expression **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		protobuf_c_message_free_unpacked(&v[i]->base, NULL);
	free(v);
}

/*
 * SQL text's PIVOT groups by every input column that neither the pivot
 * column nor the aggregates read; its parser sends a lone * as the
 * grouping expression.  Those columns, as attributes, into *gv.
 */
static int
pivot_rest(struct sc_ectx *x, struct sc_eplan *in,
    const Spark__Connect__Aggregate *a, Spark__Connect__Expression ***gv,
    size_t *ng, struct sc_error *err)
{
	Spark__Connect__Expression *e;
	struct sc_buf used, s, id;
	struct sc_einfo ei;
	size_t i, k;
	int rc = -1;

	*gv = NULL;
	*ng = 0;
	sc_buf_init(&used, SC_BUF_UNLIMITED);
	sc_buf_init(&s, SC_BUF_UNLIMITED);
	for (i = 0; i <= a->n_aggregate_expressions; i++) {
		sc_eng_einfo_init(&ei);
		rc = sc_eng_expr(x, in,
		    i < a->n_aggregate_expressions ? a->aggregate_expressions[i]
						   : a->pivot->col,
		    &used, &ei, err);
		sc_eng_einfo_release(&ei);
		if (rc == -1)
			goto out;
		sc_buf_addch(&used, '\n', NULL);
	}
	for (i = 0; i < in->ncols; i++) {
		sc_buf_init(&id, SC_BUF_UNLIMITED);
		sc_buf_addch(&id, '`', NULL);
		for (k = 0; in->cols[i].name[k] != '\0'; k++) {
			if (in->cols[i].name[k] == '`')
				sc_buf_addch(&id, '`', NULL);
			sc_buf_addch(&id, in->cols[i].name[k], NULL);
		}
		sc_buf_addch(&id, '`', NULL);
		e = sc_xmalloc(sizeof(*e));
		spark__connect__expression__init(e);
		e->expr_type_case = SC_EXPR_(UNRESOLVED_ATTRIBUTE);
		e->unresolved_attribute =
		    sc_xmalloc(sizeof(*e->unresolved_attribute));
		spark__connect__expression__unresolved_attribute__init(
		    e->unresolved_attribute);
		e->unresolved_attribute->unparsed_identifier =
		    (char *)sc_buf_detach(&id, NULL);
		sc_buf_reset(&s);
		sc_eng_einfo_init(&ei);
		rc = sc_eng_expr(x, in, e, &s, &ei, err);
		sc_eng_einfo_release(&ei);
		if (rc == -1 ||
		    strstr((const char *)used.data, (const char *)s.data) !=
			NULL) {
			protobuf_c_message_free_unpacked(&e->base, NULL);
			if (rc == -1)
				goto out;
			continue;
		}
		*gv = sc_xreallocarray(*gv, *ng + 1, sizeof(**gv));
		(*gv)[(*ng)++] = e;
	}
	rc = 0;
out:
	if (rc == -1) {
		exprs_free(*gv, *ng);
		*gv = NULL;
		*ng = 0;
	}
	sc_buf_release(&used);
	sc_buf_release(&s);
	return rc;
}

int
sc_eng_aggregate_sets(struct sc_ectx *x, const Spark__Connect__Aggregate *a,
    struct sc_eplan *out, struct sc_error *err)
{
	Spark__Connect__Aggregate rest;
	Spark__Connect__Expression **restv = NULL;
	size_t nrest = 0;
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
	if (sc_eng_rel_input(x, a->input, "aggregate", &in, err) == -1)
		goto out;
	if (a->group_type == GROUP_(PIVOT) && ng == 1 && a->pivot != NULL &&
	    a->pivot->col != NULL &&
	    a->grouping_expressions[0]->expr_type_case ==
		SC_EXPR_(UNRESOLVED_STAR) &&
	    a->grouping_expressions[0]->unresolved_star->unparsed_target ==
		NULL) {
		if (pivot_rest(x, &in, a, &restv, &nrest, err) == -1)
			goto out;
		rest = *a;
		rest.grouping_expressions = restv;
		rest.n_grouping_expressions = nrest;
		a = &rest;
		ng = nrest;
	}
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
	exprs_free(restv, nrest);
	pvals_free(pv, npv);
	sc_buf_release(&from);
	sc_buf_release(&branch);
	sc_buf_release(&cond);
	sc_buf_release(&psql);
	sc_eplan_release(&in);
	return rc;
}
