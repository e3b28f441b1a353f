/* SPDX-License-Identifier: MIT */

/*
 * engine_plan_rel.c: each Spark Connect relation into SQLite SQL, and
 * the entry points that translate a plan (sc_eng_rel(), sc_eng_translate()).
 *
 * A range stays native as long as only limit/offset/renames/aliases sit
 * above it.  Plans and columns are engine_plan.c's; the DataFrame
 * relations that combine or reshape inputs engine_rel*.c's.
 */

#include "engine/engine_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* Short names for generated constants core/protocol.h does not have. */
#define STAR_TARGET_(x) \
	SPARK__CONNECT__EXPRESSION__UNRESOLVED_STAR___UNPARSED_TARGET_##x
#define SORT_DIR_(x) \
	SPARK__CONNECT__EXPRESSION__SORT_ORDER__SORT_DIRECTION__SORT_DIRECTION_##x
#define SORT_NULLS_(x) \
	SPARK__CONNECT__EXPRESSION__SORT_ORDER__NULL_ORDERING__SORT_NULLS_##x
#define GROUP_(x) SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_##x

#define cols_copy sc_eng_cols_copy
#define cols_add sc_eng_cols_add

/* ------------------------------------------------------------------ */
/* Relations                                                           */
/* ------------------------------------------------------------------ */

static int rel(struct sc_ectx *, const Spark__Connect__Relation *,
    struct sc_eplan *, struct sc_error *);

/* A range's SQL form, for parents that are not native. */
static void
range_sql(struct sc_eplan *p)
{
	__int128 end;

	end = (__int128)p->start + (__int128)p->count * p->step;

	if (end > INT64_MAX)
		end = INT64_MAX;
	if (end < INT64_MIN)
		end = INT64_MIN;
	sc_buf_reset(&p->sql);
	sc_buf_addf(&p->sql, NULL, "SELECT id AS ");
	sc_eng_quote_ident(&p->sql, p->cols[0].name);
	sc_buf_addf(&p->sql, NULL,
	    " FROM range(%" PRId64 ", %" PRId64 ", %" PRId64 ")", p->start,
	    (int64_t)end, p->step);
}

static void
range_rename(struct sc_eplan *p, const char *name)
{
	char *old = p->cols[0].name;

	p->cols[0].name = sc_xstrdup(name);
	free(old);
	range_sql(p);
}

static int
range_rel(const Spark__Connect__Range *r, struct sc_eplan *out,
    struct sc_error *err)
{
	struct sc_etype t = { .t = SC_ARROW_INT64 };

	out->kind = SC_EPLAN_RANGE;
	out->start = r->_start_case == SPARK__CONNECT__RANGE___START_START
	    ? r->start
	    : 0;
	out->step = r->step;
	if (sc_eng_range_count(out->start, r->end, r->step, &out->count, err) ==
	    -1)
		return -1;
	cols_add(&out->cols, &out->ncols, "id", &t, 0);
	range_sql(out);
	return 0;
}

static int
streaming_error(struct sc_error *err)
{
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.RELATION", "0A000",
	    "Streaming reads are not supported by sc-serve.");
}

/*
 * Read from a table; spark_catalog.default.t means main.t, and a bare
 * name is the session's database's (engine_db.c).
 */
static int
named_table(struct sc_ectx *x, const Spark__Connect__Read *r,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eident id;
	struct sc_buf t;
	size_t first = 0;

	if (r->read_type_case != SPARK__CONNECT__READ__READ_TYPE_NAMED_TABLE ||
	    r->named_table == NULL)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A read relation needs a named table or a data source.");
	if (sc_eng_unknown_field(&r->base) == 3)
		return streaming_error(err);
	if (sc_eng_ident_parse(r->named_table->unparsed_identifier != NULL
		    ? r->named_table->unparsed_identifier
		    : "",
		&id, err) == -1)
		return -1;
	if (id.n > 1 && strcasecmp(id.parts[0], "spark_catalog") == 0)
		first = 1;
	if (id.n - first > 2) {
		sc_eng_ident_release(&id);
		return sc_srv_error(err, "TABLE_OR_VIEW_NOT_FOUND", "42P01",
		    "The table or view `%s` cannot be found.",
		    r->named_table->unparsed_identifier);
	}
	sc_buf_init(&t, SC_BUF_UNLIMITED);
	if (sc_eng_db_table(x, &id.parts[first], id.n - first, true, &t, err) ==
	    -1) {
		sc_buf_release(&t);
		sc_eng_ident_release(&id);
		return -1;
	}
	out->table = (char *)sc_buf_detach(&t, NULL);
	out->alias = sc_xstrdup(id.parts[id.n - 1]);
	sc_buf_addf(&out->sql, NULL, "SELECT * FROM %s", out->table);
	sc_eng_ident_release(&id);
	return 0;
}

/* The range column name a projection keeps (star or that column), or NULL. */
static const char *
range_passthrough(const Spark__Connect__Project *p, const char *col)
{
	const Spark__Connect__Expression *e;
	const char *name = col;

	if (p->n_expressions != 1)
		return NULL;
	e = p->expressions[0];
	if (e->expr_type_case == SC_EXPR_(ALIAS) && e->alias->n_name == 1) {
		name = e->alias->name[0];
		e = e->alias->expr;
		if (e == NULL)
			return NULL;
	}
	if (e->expr_type_case == SC_EXPR_(UNRESOLVED_STAR) &&
	    e->unresolved_star->_unparsed_target_case ==
		STAR_TARGET_(_NOT_SET) &&
	    name == col)
		return name;
	if (e->expr_type_case == SC_EXPR_(UNRESOLVED_ATTRIBUTE) &&
	    e->unresolved_attribute->unparsed_identifier != NULL &&
	    strcasecmp(e->unresolved_attribute->unparsed_identifier, col) == 0)
		return name;
	return NULL;
}

/*
 * The columns of in that the plan node id gave (a join's side: t.* of
 * SQL text over a join, df["*"]).
 */
static int
plan_star(const struct sc_eplan *in, int64_t id, struct sc_buf *sql,
    struct sc_eplan *out, struct sc_error *err)
{
	size_t i, n = 0;

	for (i = 0; i < in->ncols; i++) {
		if (!sc_eng_col_from(&in->cols[i], id))
			continue;
		if (n++ > 0)
			sc_buf_addstr(sql, ", ", NULL);
		sc_eng_col_ref(sql, &in->cols[i]);
		sc_buf_addstr(sql, " AS ", NULL);
		sc_eng_quote_ident(sql, in->cols[i].name);
		cols_add(&out->cols, &out->ncols, in->cols[i].name,
		    &in->cols[i].type, in->cols[i].nullable);
	}
	if (n == 0)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The star's plan id %lld names no input relation.",
		    (long long)id);
	return 0;
}

/* Append the select list item(s) of e; stars expand to in's columns. */
static int
select_item(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression *e, struct sc_buf *sql,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_einfo ei;
	size_t i;

	if (e != NULL && e->expr_type_case == SC_EXPR_(UNRESOLVED_STAR)) {
		const Spark__Connect__Expression__UnresolvedStar *s =
		    e->unresolved_star;

		if (in == NULL)
			return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
			    "A star (*) needs an input relation.");
		if (s->_plan_id_case ==
			SPARK__CONNECT__EXPRESSION__UNRESOLVED_STAR___PLAN_ID_PLAN_ID &&
		    s->_unparsed_target_case != STAR_TARGET_(UNPARSED_TARGET))
			return plan_star(in, s->plan_id, sql, out, err);
		if (s->_unparsed_target_case == STAR_TARGET_(UNPARSED_TARGET) &&
		    s->unparsed_target != NULL) {
			struct sc_eident id;
			char *t = sc_xstrdup(s->unparsed_target);
			size_t l = strlen(t);
			int rc;

			if (l >= 2 && strcmp(t + l - 2, ".*") == 0)
				t[l - 2] = '\0';
			/* s.*: the fields of a struct column. */
			rc = sc_eng_struct_star(x, in, t, sql, out, err);
			if (rc != 1) {
				free(t);
				return rc;
			}
			if (sc_eng_ident_parse(t, &id, err) == -1) {
				free(t);
				return -1;
			}
			free(t);
			for (i = 0; i < id.n; i++) {
				sc_eng_quote_ident(sql, id.parts[i]);
				sc_buf_addch(sql, '.', NULL);
			}
			sc_eng_ident_release(&id);
		}
		if (in->star_list) {
			/* The input's SQL has columns of its own: list ours. */
			for (i = 0; i < in->ncols; i++) {
				if (i > 0)
					sc_buf_addstr(sql, ", ", NULL);
				sc_eng_col_ref(sql, &in->cols[i]);
			}
			if (in->ncols == 0)
				sc_buf_addch(sql, '*', NULL);
		} else {
			sc_buf_addch(sql, '*', NULL);
		}
		for (i = 0; i < in->ncols; i++) {
			cols_add(&out->cols, &out->ncols, in->cols[i].name,
			    &in->cols[i].type, in->cols[i].nullable);
			if (in->cols[i].sqlname != NULL)
				out->cols[out->ncols - 1].sqlname =
				    sc_xstrdup(in->cols[i].sqlname);
		}
		return 0;
	}
	sc_eng_einfo_init(&ei);
	if (sc_eng_expr(x, in, e, sql, &ei, err) == -1 ||
	    sc_eng_cast_name(x, in, e, &ei, err) == -1) {
		sc_eng_einfo_release(&ei);
		return -1;
	}
	sc_buf_addstr(sql, " AS ", NULL);
	sc_eng_quote_ident(sql, (const char *)ei.name.data);
	cols_add(&out->cols, &out->ncols, (const char *)ei.name.data, &ei.type,
	    ei.nullable);
	sc_eng_einfo_release(&ei);
	return 0;
}

/*
 * A list of n columns, more than SQLite's result may hold, refused
 * before any of them is translated: a plan of a million columns would
 * otherwise be worked through, and its SQL built, only for SQLite to
 * refuse it at the end.
 */
static int
too_wide(struct sc_ectx *x, size_t n, const char *what, struct sc_error *err)
{
	int max = sqlite3_limit(x->c->db, SQLITE_LIMIT_COLUMN, -1);

	if (n <= (size_t)max)
		return 0;
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.RELATION", "0A000",
	    "%s of %zu columns (more than %d) is not supported by sc-serve.",
	    what, n, max);
}

static int
project(struct sc_ectx *x, const Spark__Connect__Project *p,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in, gcols;
	struct sc_buf gsql;
	const char *keep;
	size_t i, k, gi = (size_t)-1;
	int rc = -1;

	if (p->n_expressions == 0)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "A projection without columns is not supported "
		    "by sc-serve.");
	if (too_wide(x, p->n_expressions, "A projection", err) == -1)
		return -1;
	sc_eplan_init(&in);
	sc_eplan_init(&gcols);
	sc_buf_init(&gsql, SC_BUF_UNLIMITED);
	if (p->input != NULL) {
		if (rel(x, p->input, &in, err) == -1)
			goto out;
		if (in.kind == SC_EPLAN_RANGE &&
		    (keep = range_passthrough(p, in.cols[0].name)) != NULL) {
			range_rename(&in, keep);
			sc_eng_plan_move(out, &in);
			return 0;
		}
		if (sc_eng_plan_columns(x, &in, err) == -1)
			goto out;
		/* explode() and its kin: in, joined with the elements. */
		gi = sc_eng_generator(p);
		if (gi != (size_t)-1 &&
		    sc_eng_generate(x, p, gi, &in, &gsql, &gcols, err) == -1)
			goto out;
	} else if ((gi = sc_eng_generator(p)) != (size_t)-1) {
		/* SELECT explode(...): over one row without columns. */
		sc_buf_addstr(&in.sql, "SELECT NULL AS _sc_one", NULL);
		in.cols = sc_xcalloc(1, sizeof(*in.cols));
		in.star_list = true;
		if (sc_eng_generate(x, p, gi, &in, &gsql, &gcols, err) == -1)
			goto out;
	}
	sc_buf_addstr(&out->sql, "SELECT ", NULL);
	for (i = 0; i < p->n_expressions; i++) {
		if (i > 0)
			sc_buf_addstr(&out->sql, ", ", NULL);
		if (i == gi) {
			sc_buf_add(&out->sql, gsql.data, gsql.len, NULL);
			for (k = 0; k < gcols.ncols; k++)
				cols_add(&out->cols, &out->ncols,
				    gcols.cols[k].name, &gcols.cols[k].type,
				    gcols.cols[k].nullable);
			continue;
		}
		if (select_item(x,
			p->input != NULL || gi != (size_t)-1 ? &in : NULL,
			p->expressions[i], &out->sql, out, err) == -1)
			goto out;
	}
	if (p->input != NULL || gi != (size_t)-1) {
		sc_buf_addstr(&out->sql, " FROM ", NULL);
		sc_eng_from_item(x, &in, out, &out->sql);
		if (in.alias != NULL)
			out->alias = sc_xstrdup(in.alias);
	}
	if (out->cols == NULL)
		out->cols = sc_xcalloc(1, sizeof(*out->cols));
	rc = 0;
out:
	sc_buf_release(&gsql);
	sc_eplan_release(&gcols);
	sc_eplan_release(&in);
	return rc;
}

/* SELECT * FROM in, keeping in's columns and qualifier. */
int
sc_eng_wrap_plan(struct sc_ectx *x, struct sc_eplan *in, struct sc_eplan *out,
    struct sc_error *err)
{
	if (sc_eng_plan_columns(x, in, err) == -1)
		return -1;
	sc_buf_addstr(&out->sql, "SELECT * FROM ", NULL);
	sc_eng_from_item(x, in, out, &out->sql);
	out->cols = cols_copy(in->cols, in->ncols);
	out->ncols = in->ncols;
	if (in->alias != NULL)
		out->alias = sc_xstrdup(in->alias);
	return 0;
}

static int
wrap_begin(struct sc_ectx *x, const Spark__Connect__Relation *input,
    const char *what, struct sc_eplan *in, struct sc_eplan *out,
    struct sc_error *err)
{
	if (input == NULL)
		return sc_eng_no_input(what, err);
	if (rel(x, input, in, err) == -1)
		return -1;
	return sc_eng_wrap_plan(x, in, out, err);
}

static int
passthrough(struct sc_ectx *x, const Spark__Connect__Relation *input,
    const char *what, struct sc_eplan *out, struct sc_error *err)
{
	if (input == NULL)
		return sc_eng_no_input(what, err);
	return rel(x, input, out, err);
}

static int
filter(struct sc_ectx *x, const Spark__Connect__Filter *f, struct sc_eplan *out,
    struct sc_error *err)
{
	struct sc_eplan in;
	struct sc_einfo ei;
	int rc = -1;

	sc_eplan_init(&in);
	sc_eng_einfo_init(&ei);
	if (wrap_begin(x, f->input, "filter", &in, out, err) == -1)
		goto out;
	sc_buf_addstr(&out->sql, " WHERE ", NULL);
	if (sc_eng_expr(x, &in, f->condition, &out->sql, &ei, err) == -1)
		goto out;
	rc = 0;
out:
	sc_eng_einfo_release(&ei);
	sc_eplan_release(&in);
	return rc;
}

static int
sort(struct sc_ectx *x, const Spark__Connect__Sort *s, struct sc_eplan *out,
    struct sc_error *err)
{
	struct sc_eplan in;
	struct sc_einfo ei;
	size_t i;
	int rc = -1, desc;

	if (too_wide(x, s->n_order, "A sort", err) == -1)
		return -1;
	sc_eplan_init(&in);
	if (wrap_begin(x, s->input, "sort", &in, out, err) == -1)
		goto out;
	for (i = 0; i < s->n_order; i++) {
		const Spark__Connect__Expression__SortOrder *o = s->order[i];

		sc_buf_addstr(&out->sql, i == 0 ? " ORDER BY " : ", ", NULL);
		sc_eng_einfo_init(&ei);
		rc = sc_eng_expr(x, &in, o->child, &out->sql, &ei, err);
		sc_eng_einfo_release(&ei);
		if (rc == -1)
			goto out;
		rc = -1;
		desc = o->direction == SORT_DIR_(DESCENDING);
		sc_buf_addstr(&out->sql, desc ? " DESC" : " ASC", NULL);
		if (o->null_ordering == SORT_NULLS_(FIRST) ||
		    (o->null_ordering == SORT_NULLS_(UNSPECIFIED) && !desc))
			sc_buf_addstr(&out->sql, " NULLS FIRST", NULL);
		else
			sc_buf_addstr(&out->sql, " NULLS LAST", NULL);
	}
	rc = 0;
out:
	sc_eplan_release(&in);
	return rc;
}

static int
limit_offset(struct sc_ectx *x, const Spark__Connect__Relation *input,
    int32_t n, bool offset, struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	int rc = -1;

	if (n < 0)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The %s must not be negative: %d.",
		    offset ? "offset" : "limit", (int)n);
	if (input == NULL)
		return sc_eng_no_input(offset ? "offset" : "limit", err);
	sc_eplan_init(&in);
	if (rel(x, input, &in, err) == -1)
		goto out;
	if (in.kind == SC_EPLAN_RANGE) {
		if (offset) {
			uint64_t skip = (uint64_t)n < in.count ? (uint64_t)n
							       : in.count;

			in.start = (int64_t)((uint64_t)in.start +
			    skip * (uint64_t)in.step);
			in.count -= skip;
		} else if ((uint64_t)n < in.count) {
			in.count = (uint64_t)n;
		}
		range_sql(&in);
		sc_eng_plan_move(out, &in);
		return 0;
	}
	if (sc_eng_wrap_plan(x, &in, out, err) == -1)
		goto out;
	if (offset)
		sc_buf_addf(&out->sql, NULL, " LIMIT -1 OFFSET %d", (int)n);
	else
		sc_buf_addf(&out->sql, NULL, " LIMIT %d", (int)n);
	rc = 0;
out:
	sc_eplan_release(&in);
	return rc;
}

static int
aggregate(struct sc_ectx *x, const Spark__Connect__Aggregate *a,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	struct sc_buf group;
	struct sc_einfo ei;
	size_t i, nitems = 0;
	int rc = -1;

	if (too_wide(x, a->n_grouping_expressions + a->n_aggregate_expressions,
		"An aggregation", err) == -1)
		return -1;
	if (a->group_type != GROUP_(GROUPBY) &&
	    a->group_type != GROUP_(UNSPECIFIED))
		return sc_eng_aggregate_sets(x, a, out, err);
	if (a->input == NULL)
		return sc_eng_no_input("aggregate", err);
	sc_eplan_init(&in);
	sc_buf_init(&group, SC_BUF_UNLIMITED);
	if (rel(x, a->input, &in, err) == -1 ||
	    sc_eng_plan_columns(x, &in, err) == -1)
		goto out;
	sc_buf_addstr(&out->sql, "SELECT ", NULL);
	for (i = 0; i < a->n_grouping_expressions; i++) {
		size_t start = out->sql.len;

		if (nitems++ > 0)
			sc_buf_addstr(&out->sql, ", ", NULL);
		if (group.len > 0)
			sc_buf_addstr(&group, ", ", NULL);
		sc_eng_einfo_init(&ei);
		start = out->sql.len;
		rc = sc_eng_expr(x, &in, a->grouping_expressions[i], &out->sql,
		    &ei, err);
		if (rc == 0) {
			sc_buf_add(&group, out->sql.data + start,
			    out->sql.len - start, NULL);
			sc_buf_addstr(&out->sql, " AS ", NULL);
			sc_eng_quote_ident(&out->sql,
			    (const char *)ei.name.data);
			cols_add(&out->cols, &out->ncols,
			    (const char *)ei.name.data, &ei.type, ei.nullable);
		}
		sc_eng_einfo_release(&ei);
		if (rc == -1)
			goto out;
		rc = -1;
	}
	for (i = 0; i < a->n_aggregate_expressions; i++) {
		if (nitems++ > 0)
			sc_buf_addstr(&out->sql, ", ", NULL);
		if (select_item(x, &in, a->aggregate_expressions[i], &out->sql,
			out, err) == -1)
			goto out;
	}
	if (nitems == 0) {
		sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "An aggregate needs at least one column.");
		goto out;
	}
	sc_buf_addstr(&out->sql, " FROM ", NULL);
	sc_eng_from_item(x, &in, out, &out->sql);
	if (group.len > 0)
		sc_buf_addf(&out->sql, NULL, " GROUP BY %s",
		    (const char *)group.data);
	if (out->cols == NULL)
		out->cols = sc_xcalloc(1, sizeof(*out->cols));
	rc = 0;
out:
	sc_buf_release(&group);
	sc_eplan_release(&in);
	return rc;
}

/*
 * Give in's columns new names (positionally) through a CTE column list,
 * which also copes with duplicate input names.
 */
static int
rename_all(struct sc_ectx *x, struct sc_eplan *in, char **names,
    struct sc_eplan *out, struct sc_error *err)
{
	size_t i, n;
	char cte[32];
	struct sc_buf body;

	(void)err;
	if (in->kind == SC_EPLAN_RANGE) {
		range_rename(in, names[0]);
		sc_eng_plan_move(out, in);
		return 0;
	}
	n = in->ncols;
	sc_buf_init(&body, SC_BUF_UNLIMITED);
	sc_buf_addstr(&body, "SELECT * FROM ", NULL);
	sc_eng_from_item(x, in, out, &body);
	snprintf(cte, sizeof(cte), "_sc_q%u", x->seq++);
	sc_eng_with_add(&out->with, cte, names, n, body.data, body.len);
	sc_buf_release(&body);
	sc_buf_addstr(&out->sql, "SELECT * FROM ", NULL);
	sc_eng_quote_ident(&out->sql, cte);
	out->cols = cols_copy(in->cols, n);
	out->ncols = n;
	for (i = 0; i < n; i++) {
		free(out->cols[i].name);
		out->cols[i].name = sc_xstrdup(names[i]);
	}
	return 0;
}

static int
to_df(struct sc_ectx *x, const Spark__Connect__ToDF *t, struct sc_eplan *out,
    struct sc_error *err)
{
	struct sc_eplan in;
	int rc = -1;

	if (t->input == NULL)
		return sc_eng_no_input("to_df", err);
	sc_eplan_init(&in);
	if (rel(x, t->input, &in, err) == -1 ||
	    sc_eng_plan_columns(x, &in, err) == -1)
		goto out;
	if (t->n_column_names != in.ncols) {
		sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The number of columns doesn't match: the input has %zu "
		    "columns, toDF gave %zu names.",
		    in.ncols, t->n_column_names);
		goto out;
	}
	rc = rename_all(x, &in, t->column_names, out, err);
out:
	sc_eplan_release(&in);
	return rc;
}

/* Parse a length-delimited protobuf varint at *p (bounded by end). */
static int
varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	int shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if ((b & 0x80) == 0)
			return 0;
		shift += 7;
	}
	return -1;
}

/*
 * 4.x sends WithColumnsRenamed.renames (field 3, repeated Rename{1
 * col_name, 2 new_column_name}), which proto/ leaves out; read it from
 * the unknown fields.  Adds (old, new) pairs to the arrays.
 */
static void
renames_4x(const ProtobufCMessage *m, char ***from, char ***to, size_t *n)
{
	unsigned i;

	for (i = 0; i < m->n_unknown_fields; i++) {
		const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
		const uint8_t *p = u->data, *end = u->data + u->len;
		char *f = NULL, *t = NULL;

		uint64_t total;

		if (u->tag != 3 ||
		    u->wire_type != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED)
			continue;
		/* protobuf-c keeps the length prefix in the data. */
		if (varint(&p, end, &total) == -1 ||
		    total != (uint64_t)(end - p))
			continue;
		while (p < end) {
			uint64_t key, len;

			if (varint(&p, end, &key) == -1 || (key & 7) != 2 ||
			    varint(&p, end, &len) == -1 ||
			    len > (uint64_t)(end - p))
				break;
			if (key >> 3 == 1) {
				free(f);
				f = sc_xstrndup((const char *)p, (size_t)len);
			} else if (key >> 3 == 2) {
				free(t);
				t = sc_xstrndup((const char *)p, (size_t)len);
			}
			p += len;
		}
		if (f != NULL && t != NULL) {
			*from = sc_xreallocarray(*from, *n + 1, sizeof(char *));
			*to = sc_xreallocarray(*to, *n + 1, sizeof(char *));
			(*from)[*n] = f;
			(*to)[(*n)++] = t;
		} else {
			free(f);
			free(t);
		}
	}
}

static int
renamed(struct sc_ectx *x, const Spark__Connect__WithColumnsRenamed *w,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	char **names = NULL, **from = NULL, **to = NULL;
	size_t i, k, n = 0;
	int rc = -1;

	if (w->input == NULL)
		return sc_eng_no_input("with_columns_renamed", err);
	sc_eplan_init(&in);
	if (rel(x, w->input, &in, err) == -1 ||
	    sc_eng_plan_columns(x, &in, err) == -1)
		goto out;
	for (i = 0; i < w->n_rename_columns_map; i++) {
		from = sc_xreallocarray(from, n + 1, sizeof(char *));
		to = sc_xreallocarray(to, n + 1, sizeof(char *));
		from[n] = sc_xstrdup(w->rename_columns_map[i]->key);
		to[n++] = sc_xstrdup(w->rename_columns_map[i]->value);
	}
	renames_4x(&w->base, &from, &to, &n);
	names = sc_xcalloc(in.ncols + 1, sizeof(*names));
	for (i = 0; i < in.ncols; i++) {
		names[i] = in.cols[i].name;
		for (k = 0; k < n; k++)
			if (sc_eng_name_cmp(from[k], in.cols[i].name) == 0)
				names[i] = to[k];
	}
	rc = rename_all(x, &in, names, out, err);
out:
	for (k = 0; k < n; k++) {
		free(from[k]);
		free(to[k]);
	}
	free(from);
	free(to);
	free(names);
	sc_eplan_release(&in);
	return rc;
}

static int
show_string(struct sc_ectx *x, const Spark__Connect__ShowString *s,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_buf text;
	struct sc_etype t = { .t = SC_ARROW_UTF8 };

	if (s->input == NULL)
		return sc_eng_no_input("show_string", err);
	sc_buf_init(&text, SC_BUF_UNLIMITED);
	if (sc_eng_show(x, s, &text, err) == -1) {
		sc_buf_release(&text);
		return -1;
	}
	sc_buf_addstr(&out->sql, "SELECT ", NULL);
	sc_eng_quote_string(&out->sql, (const char *)text.data, text.len);
	sc_buf_addstr(&out->sql, " AS `show_string`", NULL);
	cols_add(&out->cols, &out->ncols, "show_string", &t, 0);
	sc_buf_release(&text);
	return 0;
}

/*
 * Every relation and expression of a plan passes here on its way in, so
 * this is also where translating notices that its operation was
 * interrupted or its deadline passed, however large the plan.
 */
int
sc_eng_deeper(struct sc_ectx *x, struct sc_error *err)
{
	if (x->depth >= SC_ENG_MAX_PLAN_DEPTH)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The plan nests deeper than %d levels.",
		    SC_ENG_MAX_PLAN_DEPTH);
	if (x->run != NULL && sc_eng_is_canceled(x->run))
		return sc_eng_canceled(err);
	x->depth++;
	return 0;
}

static int
rel(struct sc_ectx *x, const Spark__Connect__Relation *r, struct sc_eplan *out,
    struct sc_error *err)
{
	int rc;

	if (r == NULL)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A relation is missing.");
	if (sc_eng_deeper(x, err) == -1)
		return -1;
	switch (r->rel_type_case) {
	case SC_REL_(SQL):
		/*
		 * Text the Spark SQL parser takes runs as the plan it parses
		 * to, under a DataFrame's operations as at the root.
		 */
		rc = sc_eng_spark_sql(x, r->sql, out, err);
		if (rc != 0) {
			rc = rc == 1 ? 0 : -1;
			break;
		}
		rc = sc_eng_sql_statement(x, r->sql, out, err);
		break;
	case SC_REL_(RANGE):
		rc = range_rel(r->range, out, err);
		break;
	case SC_REL_(READ):
		if (r->read->read_type_case ==
		    SPARK__CONNECT__READ__READ_TYPE_DATA_SOURCE) {
			rc = sc_eng_unknown_field(&r->read->base) == 3
			    ? streaming_error(err)
			    : sc_eng_files_read(x, r->read->data_source, out,
				  err);
			break;
		}
		rc = named_table(x, r->read, out, err);
		break;
	case SC_REL_(LOCAL_RELATION):
		rc = sc_eng_local_relation(x, r->local_relation, out, err);
		break;
	case SC_REL_(PROJECT):
		rc = project(x, r->project, out, err);
		break;
	case SC_REL_(FILTER):
		rc = filter(x, r->filter, out, err);
		break;
	case SC_REL_(SORT):
		rc = sort(x, r->sort, out, err);
		break;
	case SC_REL_(LIMIT):
		rc = limit_offset(x, r->limit->input, r->limit->limit, false,
		    out, err);
		break;
	case SC_REL_(OFFSET):
		rc = limit_offset(x, r->offset->input, r->offset->offset, true,
		    out, err);
		break;
	case SC_REL_(AGGREGATE):
		rc = aggregate(x, r->aggregate, out, err);
		break;
	case SC_REL_(SUBQUERY_ALIAS):
		if (r->subquery_alias->input == NULL) {
			rc = sc_eng_no_input("subquery_alias", err);
			break;
		}
		rc = rel(x, r->subquery_alias->input, out, err);
		if (rc == 0) {
			free(out->alias);
			out->alias = sc_xstrdup(r->subquery_alias->alias != NULL
				? r->subquery_alias->alias
				: "");
		}
		break;
	case SC_REL_(TO_DF):
		rc = to_df(x, r->to_df, out, err);
		break;
	case SC_REL_(WITH_COLUMNS_RENAMED):
		rc = renamed(x, r->with_columns_renamed, out, err);
		break;
	case SC_REL_(SHOW_STRING):
		rc = show_string(x, r->show_string, out, err);
		break;
	case SC_REL_(JOIN):
		rc = sc_eng_join(x, r->join, out, err);
		break;
	case SC_REL_(SET_OP):
		rc = sc_eng_set_op(x, r->set_op, out, err);
		break;
	case SC_REL_(WITH_COLUMNS):
		rc = sc_eng_with_columns(x, r->with_columns, out, err);
		break;
	case SC_REL_(DROP):
		rc = sc_eng_drop(x, r->drop, out, err);
		break;
	case SC_REL_(DEDUPLICATE):
		rc = sc_eng_dedup(x, r->deduplicate, out, err);
		break;
	case SC_REL_(TAIL):
		rc = sc_eng_tail(x, r->tail, out, err);
		break;
	case SC_REL_(UNPIVOT):
		rc = sc_eng_unpivot(x, r->unpivot, out, err);
		break;
	case SC_REL_(DESCRIBE):
		rc = sc_eng_describe(x, r->describe, out, err);
		break;
	case SC_REL_(SUMMARY):
		rc = sc_eng_summary(x, r->summary, out, err);
		break;
	case SC_REL_(COV):
		rc = sc_eng_cov_corr(x, r->cov->input, r->cov->col1,
		    r->cov->col2, 0, out, err);
		break;
	case SC_REL_(CORR):
		if (r->corr->_method_case ==
			SPARK__CONNECT__STAT_CORR___METHOD_METHOD &&
		    r->corr->method != NULL &&
		    strcmp(r->corr->method, "pearson") != 0) {
			rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.RELATION",
			    "0A000",
			    "Only the pearson correlation is supported, not "
			    "'%s'.",
			    r->corr->method);
			break;
		}
		rc = sc_eng_cov_corr(x, r->corr->input, r->corr->col1,
		    r->corr->col2, 2, out, err);
		break;
	case SC_REL_(SAMPLE):
	case SC_REL_(SAMPLE_BY):
	case SC_REL_(CROSSTAB):
	case SC_REL_(FREQ_ITEMS):
	case SC_REL_(APPROX_QUANTILE):
		rc = sc_eng_rel_sample_stat(x, r, out, err);
		break;
	case SC_REL_(FILL_NA):
		rc = sc_eng_fill_na(x, r->fill_na, out, err);
		break;
	case SC_REL_(DROP_NA):
		rc = sc_eng_drop_na(x, r->drop_na, out, err);
		break;
	case SC_REL_(REPLACE):
		rc = sc_eng_replace_na(x, r->replace, out, err);
		break;
	case SC_REL_(TO_SCHEMA):
		rc = sc_eng_to_schema(x, r->to_schema, out, err);
		break;
	case SC_REL_(TRANSPOSE):
		rc = sc_eng_transpose(x, r->transpose, out, err);
		break;
	case SC_REL_(PARSE):
		rc = sc_eng_parse(x, r->parse, out, err);
		break;
	case SC_REL_(CACHED_LOCAL_RELATION):
		rc = sc_eng_cached_local(x, r->cached_local_relation, out, err);
		break;
	case SC_REL_(CHUNKED_CACHED_LOCAL_RELATION):
		rc = sc_eng_chunked_local(x, r->chunked_cached_local_relation,
		    out, err);
		break;
	/* Hints and partitioning change nothing in one SQLite process. */
	case SC_REL_(HINT):
		rc = passthrough(x, r->hint->input, "hint", out, err);
		break;
	case SC_REL_(REPARTITION):
		rc = passthrough(x, r->repartition->input, "repartition", out,
		    err);
		break;
	case SC_REL_(REPARTITION_BY_EXPRESSION):
		rc = passthrough(x, r->repartition_by_expression->input,
		    "repartition_by_expression", out, err);
		break;
	default:
		rc = sc_eng_unsupported_relation(r, err);
		break;
	}
	/*
	 * A plan id names the node's columns (df["x"], and a qualified
	 * column of SQL text over a join): a table's columns are looked up
	 * so that they carry it (not a user's SQL statement's: its text
	 * may need what an earlier statement makes).
	 */
	if (rc == 0 && r->common != NULL &&
	    r->common->_plan_id_case ==
		SPARK__CONNECT__RELATION_COMMON___PLAN_ID_PLAN_ID) {
		if (out->cols == NULL && !out->list)
			rc = sc_eng_plan_columns(x, out, err);
		if (rc == 0)
			sc_eng_plan_tag(out, r->common->plan_id);
	}
	x->depth--;
	return rc;
}

int
sc_eng_rel(struct sc_ectx *x, const Spark__Connect__Relation *r,
    struct sc_eplan *out, struct sc_error *err)
{
	return rel(x, r, out, err);
}

/* Make p return at most n rows. */
int
sc_eng_plan_limit(struct sc_ectx *x, struct sc_eplan *p, uint64_t n,
    struct sc_error *err)
{
	struct sc_eplan w;

	if (p->kind == SC_EPLAN_RANGE) {
		if (n < p->count)
			p->count = n;
		range_sql(p);
		return 0;
	}
	sc_eplan_init(&w);
	if (sc_eng_wrap_plan(x, p, &w, err) == -1) {
		sc_eplan_release(&w);
		return -1;
	}
	sc_buf_addf(&w.sql, NULL, " LIMIT %" PRIu64, n);
	sc_eng_plan_finish(&w);
	sc_eng_plan_move(p, &w);
	return 0;
}

/* Translate root into out (initialised by the caller). */
int
sc_eng_translate(struct sc_ectx *x, const Spark__Connect__Relation *root,
    struct sc_eplan *out, struct sc_error *err)
{
	if (rel(x, root, out, err) == -1)
		return -1;
	sc_eng_plan_finish(out);
	return 0;
}
