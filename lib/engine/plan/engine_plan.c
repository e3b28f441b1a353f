/* SPDX-License-Identifier: MIT */

/*
 * engine_plan.c: Spark Connect relations into SQLite SQL: plans and
 * their columns, and the errors naming what is not supported.
 *
 * Each relation becomes a SELECT over its input, carrying the output
 * column names and, where the plan tells, their Spark types; the inputs
 * of a chain become a flat list of common table expressions.  The
 * relations themselves are engine_plan_rel.c's, expressions
 * engine_expr.c's, SQL text engine_dialect.c's.
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

/* ------------------------------------------------------------------ */
/* Plans and columns                                                   */
/* ------------------------------------------------------------------ */

void
sc_eplan_init(struct sc_eplan *p)
{
	memset(p, 0, sizeof(*p));
	sc_buf_init(&p->sql, SC_BUF_UNLIMITED);
	sc_buf_init(&p->with, SC_BUF_UNLIMITED);
}

void
sc_eplan_release(struct sc_eplan *p)
{
	sc_buf_release(&p->sql);
	sc_buf_release(&p->with);
	free(p->table);
	free(p->alias);
	sc_ecols_free(p->cols, p->ncols);
	p->table = NULL;
	p->alias = NULL;
	p->cols = NULL;
	p->ncols = 0;
}

void
sc_ecols_free(struct sc_ecol *cols, size_t n)
{
	size_t i;

	if (cols == NULL)
		return;
	for (i = 0; i < n; i++) {
		free(cols[i].name);
		free(cols[i].sqlname);
	}
	free(cols);
}

struct sc_ecol *
sc_eng_cols_copy(const struct sc_ecol *src, size_t n)
{
	struct sc_ecol *c = sc_xcalloc(n > 0 ? n : 1, sizeof(*c));
	size_t i;

	for (i = 0; i < n; i++) {
		c[i] = src[i];
		c[i].name = sc_xstrdup(src[i].name);
		if (src[i].sqlname != NULL)
			c[i].sqlname = sc_xstrdup(src[i].sqlname);
	}
	return c;
}

#define cols_copy sc_eng_cols_copy
#define cols_add sc_eng_cols_add

void
sc_eng_col_ref(struct sc_buf *b, const struct sc_ecol *c)
{
	if (c->sqlname != NULL)
		sc_buf_addstr(b, c->sqlname, NULL);
	else
		sc_eng_quote_ident(b, c->name);
}

void
sc_eng_plan_tag(struct sc_eplan *p, int64_t id)
{
	size_t i;

	for (i = 0; p->cols != NULL && i < p->ncols; i++) {
		struct sc_ecol *c = &p->cols[i];

		if (c->nplan_ids > 0 && c->plan_ids[0] == id)
			continue;
		memmove(c->plan_ids + 1, c->plan_ids,
		    (SC_ECOL_PLAN_IDS - 1) * sizeof(c->plan_ids[0]));
		c->plan_ids[0] = id;
		if (c->nplan_ids < SC_ECOL_PLAN_IDS)
			c->nplan_ids++;
	}
}

bool
sc_eng_col_from(const struct sc_ecol *c, int64_t id)
{
	unsigned i;

	for (i = 0; i < c->nplan_ids; i++)
		if (c->plan_ids[i] == id)
			return true;
	return false;
}

void
sc_eng_cols_add(struct sc_ecol **cols, size_t *n, const char *name,
    const struct sc_etype *t, int nullable)
{
	struct sc_ecol *c;

	*cols = sc_xreallocarray(*cols, *n + 1, sizeof(**cols));
	c = &(*cols)[(*n)++];
	memset(c, 0, sizeof(*c));
	c->name = sc_xstrdup(name);
	if (t != NULL)
		c->type = *t;
	else
		c->type.t = SC_ETYPE_UNKNOWN;
	c->nullable = nullable;
}

/* Move src into dst (dst released first). */
void
sc_eng_plan_move(struct sc_eplan *dst, struct sc_eplan *src)
{
	sc_eplan_release(dst);
	*dst = *src;
	sc_eplan_init(src);
}

/*
 * Identifiers are quoted with backticks: SQLite reads a double-quoted
 * name that matches no column as a string literal (kept on for users'
 * Spark SQL, where "x" is a string), but never a backticked one.
 */
void
sc_eng_quote_ident(struct sc_buf *b, const char *s)
{
	size_t i;

	sc_buf_addch(b, '`', NULL);
	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] == '`')
			sc_buf_addch(b, '`', NULL);
		sc_buf_addch(b, s[i], NULL);
	}
	sc_buf_addch(b, '`', NULL);
}

/* A string literal: 'it''s'. */
void
sc_eng_quote_string(struct sc_buf *b, const char *s, size_t n)
{
	size_t i;

	sc_buf_addch(b, '\'', NULL);
	for (i = 0; i < n; i++) {
		if (s[i] == '\'')
			sc_buf_addch(b, '\'', NULL);
		sc_buf_addch(b, s[i], NULL);
	}
	sc_buf_addch(b, '\'', NULL);
}

/* The whole statement of p: its common table expressions, then sql. */
static void
plan_text(const struct sc_eplan *p, struct sc_buf *out)
{
	if (p->with.len > 0) {
		sc_buf_addstr(out, "WITH ", NULL);
		sc_buf_add(out, p->with.data, p->with.len, NULL);
		sc_buf_addch(out, '\n', NULL);
	}
	sc_buf_add(out, p->sql.data, p->sql.len, NULL);
}

/* Put p's common table expressions in front of its statement. */
void
sc_eng_plan_finish(struct sc_eplan *p)
{
	struct sc_buf full;

	if (p->with.len == 0)
		return;
	sc_buf_init(&full, SC_BUF_UNLIMITED);
	plan_text(p, &full);
	sc_buf_release(&p->sql);
	p->sql = full;
	sc_buf_reset(&p->with);
}

/*
 * Add the common table expression "name[(cols)] AS (\nbody\n)" to w
 * (the body on lines of its own, so a trailing "--" comment ends before
 * the parenthesis).
 */
void
sc_eng_with_add(struct sc_buf *w, const char *name, char *const *cols,
    size_t ncols, const uint8_t *body, size_t n)
{
	size_t i;

	if (w->len > 0)
		sc_buf_addstr(w, ",\n", NULL);
	sc_eng_quote_ident(w, name);
	if (cols != NULL) {
		sc_buf_addch(w, '(', NULL);
		for (i = 0; i < ncols; i++) {
			if (i > 0)
				sc_buf_addstr(w, ", ", NULL);
			sc_eng_quote_ident(w, cols[i]);
		}
		sc_buf_addch(w, ')', NULL);
	}
	sc_buf_addstr(w, " AS (\n", NULL);
	sc_buf_add(w, body, n, NULL);
	sc_buf_addstr(w, "\n)", NULL);
}

/*
 * Names of the output columns of p, from SQLite when the translation
 * does not know them (a user's SQL, a table); types stay unknown then,
 * but for a table's columns, whose declared types SQLite reports.
 */
int
sc_eng_plan_columns(struct sc_ectx *x, struct sc_eplan *p, struct sc_error *err)
{
	sqlite3_stmt *st;
	const char *tail;
	struct sc_buf full;
	int i, n, rc;

	if (p->cols != NULL)
		return 0;
	if (p->with.len > 0) {
		sc_buf_init(&full, SC_BUF_UNLIMITED);
		plan_text(p, &full);
		rc = sc_eng_prepare(x, (const char *)full.data, full.len, &st,
		    &tail, err);
		sc_buf_release(&full);
	} else {
		rc = sc_eng_prepare(x, (const char *)p->sql.data, p->sql.len,
		    &st, &tail, err);
	}
	if (rc == -1)
		return -1;
	n = st != NULL ? sqlite3_column_count(st) : 0;
	p->cols = sc_xcalloc(n > 0 ? (size_t)n : 1, sizeof(*p->cols));
	p->ncols = (size_t)n;
	for (i = 0; i < n; i++) {
		const char *name = sqlite3_column_name(st, i);
		const char *decl = sqlite3_column_decltype(st, i);

		p->cols[i].name = sc_xstrdup(name != NULL ? name : "");
		p->cols[i].type.t = SC_ETYPE_UNKNOWN;
		p->cols[i].nullable = -1;
		/* A table's column keeps its declared Spark type (INT is
		 * int, not the bigint its values would suggest). */
		if (decl != NULL &&
		    sc_eng_parse_type(decl, strlen(decl), true,
			&p->cols[i].type) == -1)
			p->cols[i].type.t = SC_ETYPE_UNKNOWN;
	}
	sqlite3_finalize(st);
	/* A temp view's columns: the types its query had. */
	if (p->table != NULL)
		sc_eng_view_types(x, p->table, p->cols, p->ncols);
	return 0;
}

/*
 * Append p to b as a FROM item of plan out, under p's alias or a fresh
 * one: p's table, or a common table expression of out holding p's
 * statement.  Common table expressions, unlike subqueries in FROM, do
 * not nest: a chain of relations stays within SQLite's parser stack.
 */
static void from_item(struct sc_ectx *x, struct sc_eplan *p,
    struct sc_eplan *out, struct sc_buf *b, char *const *cols, size_t ncols);

void
sc_eng_from_item(struct sc_ectx *x, struct sc_eplan *p, struct sc_eplan *out,
    struct sc_buf *b)
{
	from_item(x, p, out, b, NULL, 0);
}

/* Do two of p's columns have names SQLite takes for one? */
static bool
names_collide(const struct sc_eplan *p)
{
	size_t i, j;

	for (i = 0; i < p->ncols; i++)
		for (j = i + 1; j < p->ncols; j++)
			if (strcasecmp(p->cols[i].name, p->cols[j].name) == 0)
				return true;
	return false;
}

void
sc_eng_from_item_positional(struct sc_ectx *x, struct sc_eplan *p,
    struct sc_eplan *out, struct sc_buf *b)
{
	char **names;
	char name[32];
	size_t i;

	if (p->table != NULL || !names_collide(p)) {
		from_item(x, p, out, b, NULL, 0);
		return;
	}
	names = sc_xcalloc(p->ncols, sizeof(*names));
	for (i = 0; i < p->ncols; i++) {
		snprintf(name, sizeof(name), "_sc_c%zu", i);
		names[i] = sc_xstrdup(name);
		free(p->cols[i].sqlname);
		p->cols[i].sqlname = sc_xstrdup(name);
	}
	from_item(x, p, out, b, names, p->ncols);
	for (i = 0; i < p->ncols; i++)
		free(names[i]);
	free(names);
}

static void
from_item(struct sc_ectx *x, struct sc_eplan *p, struct sc_eplan *out,
    struct sc_buf *b, char *const *cols, size_t ncols)
{
	size_t n = p->sql.len;
	char gen[32], cte[32];

	if (p->table != NULL) {
		sc_buf_addstr(b, p->table, NULL);
		if (p->alias != NULL) {
			sc_buf_addstr(b, " AS ", NULL);
			sc_eng_quote_ident(b, p->alias);
		}
		return;
	}
	while (
	    n > 0 && (isspace(p->sql.data[n - 1]) || p->sql.data[n - 1] == ';'))
		n--;
	if (p->with.len > 0) {
		if (out->with.len > 0)
			sc_buf_addstr(&out->with, ",\n", NULL);
		sc_buf_add(&out->with, p->with.data, p->with.len, NULL);
		sc_buf_reset(&p->with);
	}
	snprintf(cte, sizeof(cte), "_sc_q%u", x->seq++);
	sc_eng_with_add(&out->with, cte, cols, ncols, p->sql.data, n);
	sc_eng_quote_ident(b, cte);
	sc_buf_addstr(b, " AS ", NULL);
	if (p->alias != NULL) {
		sc_eng_quote_ident(b, p->alias);
	} else {
		snprintf(gen, sizeof(gen), "_s%u", x->seq++);
		sc_eng_quote_ident(b, gen);
	}
}

/* ------------------------------------------------------------------ */
/* Errors naming what is not supported                                 */
/* ------------------------------------------------------------------ */

struct numname {
	unsigned num;
	const char *name;
};

static const struct numname relnames[] = {
	{ 5, "join" },
	{ 6, "set_op" },
	{ 12, "sample" },
	{ 14, "deduplicate" },
	{ 17, "repartition" },
	{ 21, "drop" },
	{ 22, "tail" },
	{ 23, "with_columns" },
	{ 24, "hint" },
	{ 25, "unpivot" },
	{ 26, "to_schema" },
	{ 27, "repartition_by_expression" },
	{ 28, "map_partitions" },
	{ 29, "collect_metrics" },
	{ 30, "parse" },
	{ 31, "group_map" },
	{ 32, "co_group_map" },
	{ 33, "with_watermark" },
	{ 34, "apply_in_pandas_with_state" },
	{ 35, "html_string" },
	{ 36, "cached_local_relation" },
	{ 37, "cached_remote_relation" },
	{ 38, "common_inline_user_defined_table_function" },
	{ 39, "as_of_join" },
	{ 40, "common_inline_user_defined_data_source" },
	{ 41, "with_relations" },
	{ 42, "transpose" },
	{ 43, "unresolved_table_valued_function" },
	{ 44, "lateral_join" },
	{ 45, "chunked_cached_local_relation" },
	{ 46, "relation_changes" },
	{ 47, "nearest_by_join" },
	{ 48, "zip" },
	{ 49, "graph_frames" },
	{ 90, "fill_na" },
	{ 91, "drop_na" },
	{ 92, "replace" },
	{ 100, "summary" },
	{ 101, "crosstab" },
	{ 102, "describe" },
	{ 103, "cov" },
	{ 104, "corr" },
	{ 105, "approx_quantile" },
	{ 106, "freq_items" },
	{ 107, "sample_by" },
	{ 200, "catalog" },
	{ 300, "ml_relation" },
	{ 998, "extension" },
	{ 999, "unknown" },
};

static const struct numname exprnames[] = {
	{ 8, "unresolved_regex" },
	{ 10, "lambda_function" },
	{ 11, "window" },
	{ 12, "unresolved_extract_value" },
	{ 13, "update_fields" },
	{ 14, "unresolved_named_lambda_variable" },
	{ 15, "common_inline_user_defined_function" },
	{ 16, "call_function" },
	{ 17, "named_argument_expression" },
	{ 19, "merge_action" },
	{ 21, "lazy_expression" },
	{ 22, "subquery_expression" },
	{ 999, "extension" },
};

/* The first unknown field number of m, or 0. */
unsigned
sc_eng_unknown_field(const ProtobufCMessage *m)
{
	return m->n_unknown_fields > 0 ? m->unknown_fields[0].tag : 0;
}

static const char *
numname(const struct numname *t, size_t n, unsigned num, char *buf, size_t sz)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].num == num)
			return t[i].name;
	snprintf(buf, sz, "#%u", num);
	return buf;
}

int
sc_eng_unsupported_relation(const Spark__Connect__Relation *r,
    struct sc_error *err)
{
	char buf[32];
	unsigned num = (unsigned)r->rel_type_case;

	if (r->rel_type_case == SC_REL_(_NOT_SET))
		num = sc_eng_unknown_field(&r->base);
	if (num == 0)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The relation has no type set.");
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.RELATION", "0A000",
	    "The relation type '%s' is not supported by sc-serve.",
	    numname(relnames, SC_NELEM(relnames), num, buf, sizeof(buf)));
}

int
sc_eng_unsupported_expression(const Spark__Connect__Expression *e,
    struct sc_error *err)
{
	char buf[32];
	unsigned num = (unsigned)e->expr_type_case;

	if (e->expr_type_case == SC_EXPR_(_NOT_SET))
		num = sc_eng_unknown_field(&e->base);
	if (num == 0)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "An expression has no type set.");
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
	    "The expression type '%s' is not supported by sc-serve.",
	    numname(exprnames, SC_NELEM(exprnames), num, buf, sizeof(buf)));
}

int
sc_eng_no_input(const char *what, struct sc_error *err)
{
	return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
	    "The %s relation has no input.", what);
}
