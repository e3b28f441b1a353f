/* SPDX-License-Identifier: MIT */

/*
 * engine_entry.c: the engine's entry points (engine.h) that take a plan:
 * running it, its schema, tree string and EXPLAIN, and SqlCommand; and
 * the way Spark SQL text takes to a plan: a query through the Spark SQL
 * parser (sqlparse.c) and the translator, a statement through sqlstmt.c;
 * the SQL SQLite runs is always the engine's.
 * Each runs as one call on a connection (engine.c).
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
#include "engine/sql/sqlparse.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* ---- Spark SQL text (sqlparse.c) ---------------------------------- */

/* Whether name is a hidden column of a parsed query (sqlparse.h). */
static bool
hidden_col(const char *name)
{
	return strncmp(name, "_sc_group_", 10) == 0 ||
	    strncmp(name, "_sc_agg_", 8) == 0;
}

/* Drop the hidden columns of p: GROUP BY keys and lifted aggregates. */
static int
drop_hidden(struct sc_ectx *x, struct sc_eplan *p, struct sc_error *err)
{
	struct sc_buf sql;
	size_t i, n = 0;

	if (p->kind != SC_EPLAN_SQL)
		return 0;
	if (sc_eng_plan_columns(x, p, err) == -1)
		return -1;
	sc_buf_init(&sql, SC_BUF_UNLIMITED);
	sc_buf_addstr(&sql, "SELECT ", NULL);
	for (i = 0; i < p->ncols; i++) {
		if (hidden_col(p->cols[i].name))
			continue;
		if (n++ > 0)
			sc_buf_addstr(&sql, ", ", NULL);
		sc_eng_quote_ident(&sql, p->cols[i].name);
	}
	if (n == p->ncols || n == 0) {
		sc_buf_release(&sql);
		return 0;
	}
	sc_buf_addstr(&sql, " FROM (", NULL);
	sc_buf_add(&sql, p->sql.data, p->sql.len, NULL);
	sc_buf_addstr(&sql, ")", NULL);
	sc_buf_release(&p->sql);
	p->sql = sql;
	for (i = 0, n = 0; i < p->ncols; i++) {
		if (hidden_col(p->cols[i].name))
			free(p->cols[i].name);
		else
			p->cols[n++] = p->cols[i];
	}
	p->ncols = n;
	return 0;
}

/* Prepare the first statement of p (and drop it): 0, or -1 (err set). */
int
sc_eng_check_sql(struct sc_ectx *x, const struct sc_eplan *p,
    struct sc_error *err)
{
	const char *sql = (const char *)p->sql.data;
	sqlite3_stmt *st = NULL;
	const char *tail;
	int rc;

	if (p->kind != SC_EPLAN_SQL || sql == NULL)
		return 0;
	rc = sc_eng_prepare(x, sql, strlen(sql), &st, &tail, err);
	sqlite3_finalize(st);
	return rc;
}

int
sc_eng_sql_statement(struct sc_ectx *x, const Spark__Connect__SQL *q,
    struct sc_eplan *out, struct sc_error *err)
{
	const char *text = q->query != NULL ? q->query : "";
	int rc = sc_eng_statement(x, text, q, out, err);

	if (rc == 0) /* a query */
		return sc_eng_translate_text(x, text, q, out, err);
	return rc == 1 ? 0 : -1;
}

int
sc_eng_spark_sql(struct sc_ectx *x, const Spark__Connect__SQL *q,
    struct sc_eplan *p, struct sc_error *err)
{
	Spark__Connect__Relation *parsed = NULL;
	size_t hidden = 0;
	int rc;

	if (q == NULL || q->query == NULL)
		return 0;
	switch (sc_sqlparse_args(q->query, q, &parsed, &hidden, err)) {
	case SC_SQLPARSE_ERROR:
		return -1;
	case SC_SQLPARSE_OK:
		break;
	default:
		return 0;
	}
	rc = sc_eng_translate(x, parsed, p, err);
	protobuf_c_message_free_unpacked(&parsed->base, NULL);
	if (rc == -1)
		return -1;
	return hidden == 0 || drop_hidden(x, p, err) == 0 ? 1 : -1;
}

/*
 * Translate root.  A sql relation, at the root or under others, whose
 * text the Spark SQL parser takes runs as the plan it parses to
 * (sc_eng_spark_sql(), from the translator's sql case).
 */
static int
translate_root(struct sc_ectx *x, const Spark__Connect__Relation *root,
    struct sc_eplan *p, struct sc_error *err)
{
	return sc_eng_translate(x, root, p, err);
}

int
sc_eng_translate_text(struct sc_ectx *x, const char *text,
    const Spark__Connect__SQL *args, struct sc_eplan *p, struct sc_error *err)
{
	Spark__Connect__SQL q = SPARK__CONNECT__SQL__INIT;
	int rc;

	if (args != NULL)
		q = *args;
	q.query = (char *)text;
	/* A statement inside a statement is no query: a syntax error. */
	rc = sc_eng_spark_sql(x, &q, p, err);
	if (rc == 0) {
		const char *w = sc_sqllex_skip(text);
		int n = 0;

		while (w != NULL && w[n] != '\0' && w[n] != ' ' && n < 40)
			n++;
		return sc_srv_error(err, "PARSE_SYNTAX_ERROR", "42601",
		    n > 0 ? "Syntax error at or near '%.*s'."
			  : "Syntax error at or near end of input.",
		    n, w != NULL ? w : "");
	}
	return rc == 1 ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Public entry points                                                 */
/* ------------------------------------------------------------------ */

/*
 * An error raised for the SQL text of root (or of the relation root
 * shows or limits): Spark's query context, where the text shows it.
 */
static void
sql_error_context(const Spark__Connect__Relation *r, struct sc_error *err)
{
	while (r != NULL) {
		if (r->rel_type_case == SC_REL_(SHOW_STRING) && r->show_string)
			r = r->show_string->input;
		else if (r->rel_type_case == SC_REL_(LIMIT) && r->limit)
			r = r->limit->input;
		else
			break;
	}
	if (r != NULL && r->rel_type_case == SC_REL_(SQL) && r->sql != NULL)
		sc_sqllex_error_context(r->sql->query, err);
}

int
sc_engine_run_writer(struct sc_engine_conn *c,
    const Spark__Connect__Relation *root, const struct sc_engine_limits *limits,
    const struct sc_engine_sink *sink, sc_engine_batch_writer_fn *bw,
    const atomic_int *cancel, struct sc_error *err)
{
	struct sc_ectx x;
	struct sc_erun r;
	struct sc_eplan p;
	int rc;

	sc_eng_call_begin(c, &x, &r, cancel);
	r.wsink = sink;
	r.bw = bw;
	sc_eplan_init(&p);
	rc = translate_root(&x, root, &p, err);
	if (rc == 0)
		rc = sc_eng_exec_plan(&x, &p, limits, sink, false, NULL, NULL,
		    err);
	sc_eplan_release(&p);
	sc_eng_call_end(c, &x);
	if (rc == -1)
		sql_error_context(root, err);
	return rc;
}

int
sc_engine_run_cancelable(struct sc_engine_conn *c,
    const Spark__Connect__Relation *root, const struct sc_engine_limits *limits,
    const struct sc_engine_sink *sink, const atomic_int *cancel,
    struct sc_error *err)
{
	return sc_engine_run_writer(c, root, limits, sink, NULL, cancel, err);
}

int
sc_engine_run(struct sc_engine_conn *c, const Spark__Connect__Relation *root,
    const struct sc_engine_limits *limits, const struct sc_engine_sink *sink,
    struct sc_error *err)
{
	return sc_engine_run_cancelable(c, root, limits, sink, NULL, err);
}

static int
plan_columns(struct sc_engine_conn *c, const Spark__Connect__Relation *root,
    struct sc_ecol **colsp, size_t *np, struct sc_error *err)
{
	struct sc_ectx x;
	struct sc_erun r;
	struct sc_eplan p;
	int rc;

	sc_eng_call_begin(c, &x, &r, NULL);
	sc_eplan_init(&p);
	rc = translate_root(&x, root, &p, err);
	if (rc == 0)
		rc = sc_eng_exec_plan(&x, &p, NULL, NULL, true, colsp, np, err);
	sc_eplan_release(&p);
	sc_eng_call_end(c, &x);
	return rc;
}

int
sc_engine_schema(struct sc_engine_conn *c, const Spark__Connect__Relation *root,
    Spark__Connect__DataType **out, struct sc_error *err)
{
	struct sc_ecol *cols = NULL;
	size_t n = 0;

	if (plan_columns(c, root, &cols, &n, err) == -1) {
		sql_error_context(root, err);
		return -1;
	}
	*out = sc_eng_schema_new(cols, n);
	sc_ecols_free(cols, n);
	return 0;
}

int
sc_engine_tree_string(struct sc_engine_conn *c,
    const Spark__Connect__Relation *root, char **text, struct sc_error *err)
{
	struct sc_ecol *cols = NULL;
	struct sc_buf b;
	size_t n = 0, i;

	if (plan_columns(c, root, &cols, &n, err) == -1)
		return -1;
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_buf_addstr(&b, "root\n", NULL);
	for (i = 0; i < n; i++) {
		sc_buf_addf(&b, NULL, " |-- %s: ", cols[i].name);
		sc_eng_type_text(&cols[i].type, SC_VALUE_TYPENAME, &b);
		sc_buf_addf(&b, NULL, " (nullable = %s)\n",
		    cols[i].nullable != 0 ? "true" : "false");
	}
	sc_ecols_free(cols, n);
	*text = (char *)sc_buf_detach(&b, NULL);
	return 0;
}

/* EXPLAIN QUERY PLAN rows as an indented tree. */
static int
query_plan(struct sc_ectx *x, const char *sql, struct sc_buf *b,
    struct sc_error *err)
{
	sqlite3_stmt *st;
	char *q = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql);
	int ids[64], depth[64], nids = 0, rc, id, parent, d, i;

	if (q == NULL)
		return sc_error_set(err, SC_ST_INTERNAL, "out of memory");
	rc = sc_eng_prepare(x, q, strlen(q), &st, NULL, err);
	sqlite3_free(q);
	if (rc == -1)
		return -1;
	while ((rc = sc_eng_step(x, st)) == SQLITE_ROW) {
		id = sqlite3_column_int(st, 0);
		parent = sqlite3_column_int(st, 1);
		d = 0;
		for (i = 0; i < nids; i++)
			if (ids[i] == parent)
				d = depth[i] + 1;
		if (nids < 64) {
			ids[nids] = id;
			depth[nids++] = d;
		}
		for (i = 0; i < d; i++)
			sc_buf_addstr(b, "   ", NULL);
		sc_buf_addf(b, NULL, "%s%s\n", d > 0 ? "+- " : "",
		    (const char *)sqlite3_column_text(st, 3));
	}
	if (rc != SQLITE_DONE) {
		sc_eng_sqlite_error(x, rc, err);
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static int
program(struct sc_ectx *x, const char *sql, struct sc_buf *b,
    struct sc_error *err)
{
	sqlite3_stmt *st;
	char *q = sqlite3_mprintf("EXPLAIN %s", sql);
	int rc, i;
	const char *p4;

	if (q == NULL)
		return sc_error_set(err, SC_ST_INTERNAL, "out of memory");
	rc = sc_eng_prepare(x, q, strlen(q), &st, NULL, err);
	sqlite3_free(q);
	if (rc == -1)
		return -1;
	sc_buf_addstr(b, "addr  opcode         p1    p2    p3    p4\n", NULL);
	while ((rc = sc_eng_step(x, st)) == SQLITE_ROW) {
		sc_buf_addf(b, NULL, "%-5d %-14s", sqlite3_column_int(st, 0),
		    (const char *)sqlite3_column_text(st, 1));
		for (i = 2; i <= 4; i++)
			sc_buf_addf(b, NULL, " %-5d",
			    sqlite3_column_int(st, i));
		p4 = (const char *)sqlite3_column_text(st, 5);
		sc_buf_addf(b, NULL, " %s\n", p4 != NULL ? p4 : "");
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sc_eng_sqlite_error(x, rc, err);
	return 0;
}

int
sc_engine_explain(struct sc_engine_conn *c,
    const Spark__Connect__Relation *root, int mode, char **text,
    struct sc_error *err)
{
	struct sc_ectx x;
	struct sc_erun r;
	struct sc_eplan p;
	struct sc_buf b;
	int rc;

	sc_eng_call_begin(c, &x, &r, NULL);
	sc_eplan_init(&p);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	rc = translate_root(&x, root, &p, err);
	if (rc == 0 && p.kind == SC_EPLAN_RANGE) {
		sc_buf_addf(&b, NULL,
		    "== Physical Plan ==\nRange (start=%" PRId64
		    ", step=%" PRId64 ", count=%" PRIu64 ", native "
		    "Arrow generator)\n",
		    p.start, p.step, p.count);
	} else if (rc == 0) {
		sc_buf_addf(&b, NULL, "== SQL ==\n%s\n\n== Physical Plan ==\n",
		    (const char *)p.sql.data);
		rc = query_plan(&x, (const char *)p.sql.data, &b, err);
		if (rc == 0 && mode >= 2 && mode <= 4) {
			sc_buf_addstr(&b, "\n== SQLite Program ==\n", NULL);
			rc = program(&x, (const char *)p.sql.data, &b, err);
		}
	}
	sc_eplan_release(&p);
	sc_eng_call_end(c, &x);
	if (rc == -1) {
		sc_buf_release(&b);
		return -1;
	}
	*text = (char *)sc_buf_detach(&b, NULL);
	return 0;
}

/* ------------------------------------------------------------------ */
/* SqlCommand                                                          */
/* ------------------------------------------------------------------ */

/* A command's output is one Arrow stream in one message: bounded. */
#define COMMAND_OUTPUT_MAX (64 << 20)

struct capture {
	struct sc_buf data;
	bool overflow;
};

static int
capture_batch(void *arg, const uint8_t *ipc, size_t len, int64_t rows,
    int64_t start_offset)
{
	struct capture *cap = arg;

	(void)rows;
	(void)start_offset;
	if (sc_buf_add(&cap->data, ipc, len, NULL) == -1) {
		cap->overflow = true;
		return -1;
	}
	return 0;
}

/* Deep copy of m as a Relation that sc_engine_relation_free() frees. */
static Spark__Connect__Relation *
relation_copy(const Spark__Connect__Relation *m, struct sc_error *err)
{
	uint8_t *bytes;
	size_t len;
	Spark__Connect__Relation *r;

	bytes = sc_proto_pack_alloc(&m->base, &len);
	r = sc_proto_unpack(&spark__connect__relation__descriptor, bytes, len,
	    err);
	free(bytes);
	return r;
}

void
sc_engine_relation_free(Spark__Connect__Relation *r)
{
	if (r != NULL)
		protobuf_c_message_free_unpacked(&r->base, NULL);
}

int
sc_engine_sql_command(struct sc_engine_conn *c,
    const Spark__Connect__SqlCommand *cmd, Spark__Connect__Relation **result,
    struct sc_error *err)
{
	return sc_engine_sql_command_cancelable(c, cmd, result, NULL, err);
}

int
sc_engine_sql_command_cancelable(struct sc_engine_conn *c,
    const Spark__Connect__SqlCommand *cmd, Spark__Connect__Relation **result,
    const atomic_int *cancel, struct sc_error *err)
{
	Spark__Connect__SQL q = SPARK__CONNECT__SQL__INIT;
	Spark__Connect__SQL__ArgsEntry *args = NULL, **argp = NULL;
	Spark__Connect__SQL__NamedArgumentsEntry *na = NULL, **nap = NULL;
	Spark__Connect__Relation rel = SPARK__CONNECT__RELATION__INIT;
	Spark__Connect__Relation *parsed = NULL;
	size_t hidden = 0;
	Spark__Connect__LocalRelation lr;
	const Spark__Connect__SQL *src;
	struct sc_engine_sink sink;
	struct sc_ectx x;
	struct sc_erun run;
	struct sc_eplan p;
	struct capture cap;
	size_t i;
	int rc = -1;

	if (cmd->input != NULL) {
		if (cmd->input->rel_type_case != SC_REL_(SQL))
			return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
			    "SqlCommand.input must be a sql relation.");
		src = cmd->input->sql;
	} else {
		/* The 3.5 form, re-expressed as a SQL message. */
		q.query = cmd->sql;
		args = sc_xcalloc(cmd->n_args + 1, sizeof(*args));
		argp = sc_xcalloc(cmd->n_args + 1, sizeof(*argp));
		for (i = 0; i < cmd->n_args; i++) {
			spark__connect__sql__args_entry__init(&args[i]);
			args[i].key = cmd->args[i]->key;
			args[i].value = cmd->args[i]->value;
			argp[i] = &args[i];
		}
		q.n_args = cmd->n_args;
		q.args = argp;
		na = sc_xcalloc(cmd->n_named_arguments + 1, sizeof(*na));
		nap = sc_xcalloc(cmd->n_named_arguments + 1, sizeof(*nap));
		for (i = 0; i < cmd->n_named_arguments; i++) {
			spark__connect__sql__named_arguments_entry__init(
			    &na[i]);
			na[i].key = cmd->named_arguments[i]->key;
			na[i].value = cmd->named_arguments[i]->value;
			nap[i] = &na[i];
		}
		q.n_named_arguments = cmd->n_named_arguments;
		q.named_arguments = nap;
		q.n_pos_args = cmd->n_pos_args;
		q.pos_args = cmd->pos_args;
		q.n_pos_arguments = cmd->n_pos_arguments;
		q.pos_arguments = cmd->pos_arguments;
		src = &q;
	}
	sc_eng_call_begin(c, &x, &run, cancel);
	sc_eplan_init(&p);
	sc_buf_init(&cap.data, COMMAND_OUTPUT_MAX);
	cap.overflow = false;
	/* Spark's statements, with Spark's result columns. */
	switch (sc_eng_statement(&x, src->query != NULL ? src->query : "", src,
	    &p, err)) {
	case -1:
		goto out;
	case 1:
		goto run;
	default:
		break;
	}
	/* A query is echoed, as Spark does. */
	if (sc_sqlparse_args(src->query != NULL ? src->query : "", src, &parsed,
		&hidden, err) != SC_SQLPARSE_OK)
		goto out;
	/* Analysed now, as Spark does: errors come from sql(). */
	protobuf_c_message_free_unpacked(&parsed->base, NULL);
	rel.rel_type_case = SC_REL_(SQL);
	rel.sql = (Spark__Connect__SQL *)src;
	if (translate_root(&x, &rel, &p, err) == -1 ||
	    sc_eng_check_sql(&x, &p, err) == -1)
		goto out;
	*result = relation_copy(&rel, err);
	rc = *result != NULL ? 0 : -1;
	goto out;
run:
	memset(&sink, 0, sizeof(sink));
	sink.batch = capture_batch;
	sink.arg = &cap;
	if (sc_eng_exec_plan(&x, &p, NULL, &sink, false, NULL, NULL, err) ==
	    -1) {
		if (cap.overflow)
			sc_srv_error(err, "COMMAND_OUTPUT_TOO_LARGE", "54000",
			    "The output of the SQL command exceeds %d MiB; "
			    "run it as a query instead.",
			    COMMAND_OUTPUT_MAX >> 20);
		goto out;
	}
	spark__connect__local_relation__init(&lr);
	lr._data_case = SPARK__CONNECT__LOCAL_RELATION___DATA_DATA;
	lr.data.data = cap.data.data;
	lr.data.len = cap.data.len;
	rel.rel_type_case = SC_REL_(LOCAL_RELATION);
	rel.local_relation = &lr;
	*result = relation_copy(&rel, err);
	rc = *result != NULL ? 0 : -1;
out:
	sc_buf_release(&cap.data);
	sc_eplan_release(&p);
	sc_eng_call_end(c, &x);
	free(args);
	free(argp);
	free(na);
	free(nap);
	if (rc == -1 && err != NULL)
		sc_sqllex_error_context(src->query, err);
	return rc;
}

/* ---- DataFrame temp views ----------------------------------------- */

/*
 * Whether name is one identifier, plain ([A-Za-z0-9_]) or in backquotes
 * (a doubled backquote stands for one): a temp view's name has one part.
 */
static bool
one_part(const char *name)
{
	const char *p = name;

	if (*p == '`') {
		for (p++; *p != '\0'; p++)
			if (*p == '`' && p[1] == '`')
				p++;
			else if (*p == '`')
				break;
		return *p == '`' && p[1] == '\0' && p > name + 1;
	}
	for (; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
	return p > name;
}

/* The identifier without its backquotes (malloc'ed). */
static char *
unquote_ident(const char *name)
{
	char *out = sc_xstrdup(name), *o = out;
	const char *p = name;

	if (*p != '`')
		return out;
	for (p++; *p != '\0' && !(*p == '`' && p[1] != '`'); p++) {
		if (*p == '`')
			p++;
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

/* Whether the connection has a temp table or view called name. */
static bool
temp_exists(struct sc_ectx *x, const char *name)
{
	sqlite3_stmt *st = NULL;
	bool found = false;

	if (sc_eng_guard_prepare_own(x->c,
		"SELECT 1 FROM temp.sqlite_schema WHERE type IN ('table', "
		"'view') AND lower(name) = lower(?1)",
		&st) == SQLITE_OK &&
	    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC) == SQLITE_OK)
		found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* The view's body: the plan's columns by name, each name once. */
static int
view_sql(struct sc_ectx *x, struct sc_eplan *p, const struct sc_ecol *cols,
    size_t n, struct sc_buf *out, struct sc_error *err)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (strcasecmp(cols[i].name, cols[j].name) == 0)
				return sc_srv_error(err,
				    "COLUMN_ALREADY_EXISTS", "42711",
				    "The column `%s` already exists. Choose "
				    "another name or rename the existing "
				    "column.",
				    cols[i].name);
	(void)x;
	sc_buf_addstr(out, "SELECT * FROM (\n", NULL);
	sc_buf_add(out, p->sql.data, p->sql.len, NULL);
	sc_buf_addstr(out, "\n)", NULL);
	return 0;
}

int
sc_engine_create_view(struct sc_engine_conn *c,
    const Spark__Connect__Relation *input, const char *name, bool global,
    bool replace, const atomic_int *cancel, struct sc_error *err)
{
	struct sc_ecol *cols = NULL;
	struct sc_buf body, sql;
	struct sc_ectx x;
	struct sc_erun r;
	struct sc_eplan p;
	char *plain = NULL, *q;
	size_t ncols = 0;
	int rc = -1;

	if (input == NULL)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "CreateDataFrameViewCommand has no input relation.");
	if (global)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.COMMAND", "0A000",
		    "The feature is not supported: global temporary views "
		    "(createGlobalTempView); sc-serve has session temporary "
		    "views only (createTempView).");
	if (name == NULL || !one_part(name))
		return sc_srv_error(err, "INVALID_IDENTIFIER", "42602",
		    "The identifier %s is invalid: a temporary view's name "
		    "is one plain or backquoted identifier.",
		    name != NULL && *name != '\0' ? name : "''");
	sc_eng_call_begin(c, &x, &r, cancel);
	sc_eplan_init(&p);
	sc_buf_init(&body, SC_BUF_UNLIMITED);
	sc_buf_init(&sql, SC_BUF_UNLIMITED);
	plain = unquote_ident(name);
	if (!replace && temp_exists(&x, plain)) {
		rc = sc_srv_error(err, "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS",
		    "42P07",
		    "Cannot create the temporary view `%s` because it "
		    "already exists.",
		    plain);
		goto out;
	}
	if (translate_root(&x, input, &p, err) == -1)
		goto out;
	if (sc_eng_exec_plan(&x, &p, NULL, NULL, true, &cols, &ncols, err) ==
	    -1)
		goto out;
	if (view_sql(&x, &p, cols, ncols, &body, err) == -1)
		goto out;
	q = sqlite3_mprintf("DROP VIEW IF EXISTS temp.\"%w\"; DROP TABLE IF "
			    "EXISTS temp.\"%w\"; CREATE TEMP VIEW \"%w\" AS ",
	    plain, plain, plain);
	if (q == NULL) {
		rc = sc_srv_error(err, "UNABLE_TO_ACQUIRE_MEMORY", "53200",
		    "Out of memory creating the view.");
		goto out;
	}
	sc_buf_addstr(&sql, q, NULL);
	sqlite3_free(q);
	sc_buf_add(&sql, body.data, body.len, NULL);
	sc_buf_addch(&sql, '\0', NULL);
	if (sc_eng_exec(&x, (const char *)sql.data, err) == -1)
		goto out;
	sc_eng_view_note(c, plain, (const char *)body.data, body.len, cols,
	    ncols);
	sc_eng_view_adopt(&x, plain);
	rc = 0;
out:
	free(plain);
	sc_ecols_free(cols, ncols);
	sc_buf_release(&body);
	sc_buf_release(&sql);
	sc_eplan_release(&p);
	sc_eng_call_end(c, &x);
	return rc;
}

bool
sc_eng_sql_blank(const char *s)
{
	while ((s = sc_sqllex_skip(s)) != NULL && *s == ';')
		s++;
	return s == NULL || *s == '\0';
}
