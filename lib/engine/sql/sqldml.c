/* SPDX-License-Identifier: MIT */

/*
 * sqldml.c: Spark's table statements as SQL the engine writes.  CREATE
 * TABLE (a column list with Spark's types, declared as the DataFrame
 * path declares them, or AS a query), CREATE VIEW, INSERT INTO and
 * OVERWRITE (VALUES rows or a query), TRUNCATE TABLE, ALTER TABLE ADD
 * COLUMN(S) and RENAME TO, DROP TABLE and VIEW; UPDATE and DELETE are sctk's
 * extension (Spark refuses them on its v1 tables).  Names are resolved
 * as the rest of the engine resolves them (engine_db.c: spark_catalog,
 * databases besides default, temp views first) and quoted; queries and
 * expressions go through the Spark SQL parser and the translator.  No
 * byte of the client's text reaches SQLite.
 */

#include "engine/sql/sqlstmt_int.h"
#include "engine/sql/sqlparse_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

static int
syntax(const struct sc_stmt *s, struct sc_error *err)
{
	return sc_sqlp_syntax_error(sc_stmt_tk(s, 0), err);
}

static bool
op_at(const struct sc_stmt *s, size_t k, char c)
{
	const struct sc_sqltok *t = sc_stmt_tk(s, k);

	return t->kind == SC_TK_OP && t->n == 1 && t->s[0] == c;
}

static bool
accept_op(struct sc_stmt *s, char c)
{
	if (!op_at(s, 0, c))
		return false;
	s->i++;
	return true;
}

/* At '(': step past its ')'.  False at the end of the text. */
static bool
skip_parens(struct sc_stmt *s)
{
	int depth = 0;

	for (; sc_stmt_tk(s, 0)->kind != SC_TK_EOF; s->i++) {
		if (op_at(s, 0, '('))
			depth++;
		else if (op_at(s, 0, ')') && --depth == 0) {
			s->i++;
			return true;
		}
	}
	return false;
}

/* The index of the statement's end (its trailing ';' left out). */
static size_t
stmt_end(const struct sc_stmt *s)
{
	size_t end = s->n - 1; /* the EOF token */

	while (end > s->i && s->t[end - 1].kind == SC_TK_OP &&
	    s->t[end - 1].s[0] == ';')
		end--;
	return end;
}

/* The rest of the statement from the cursor as written (malloc'ed). */
static char *
rest(struct sc_stmt *s)
{
	size_t end = stmt_end(s);
	char *text = sc_stmt_span(s, s->i, end);

	s->i = end;
	return text;
}

/* An identifier at the cursor, unquoted (malloc'ed), or NULL. */
static char *
ident_at(struct sc_stmt *s)
{
	const struct sc_sqltok *t = sc_stmt_tk(s, 0);
	char *v;

	if (t->kind == SC_TK_QIDENT)
		v = sc_xstrndup((const char *)t->text.data, t->text.len);
	else if (t->kind == SC_TK_WORD)
		v = sc_xstrndup(t->s, t->n);
	else
		return NULL;
	s->i++;
	return v;
}

/* before, the bytes of b, then after, into out. */
static void
put(struct sc_buf *out, const char *before, const struct sc_buf *b,
    const char *after)
{
	sc_buf_addstr(out, before, NULL);
	sc_buf_add(out, b->data, b->len, NULL);
	sc_buf_addstr(out, after, NULL);
}

/* ---- table names -------------------------------------------------- */

struct tname {
	char *parts[3];
	size_t n;
};

static void
tname_release(struct tname *tn)
{
	size_t i;

	for (i = 0; i < tn->n; i++)
		free(tn->parts[i]);
	tn->n = 0;
}

/* A name of one to three parts at the cursor; false if none. */
static bool
tname_at(struct sc_stmt *s, struct tname *tn)
{
	memset(tn, 0, sizeof(*tn));
	for (;;) {
		if ((tn->parts[tn->n] = ident_at(s)) == NULL)
			break;
		if (++tn->n == 3 || !op_at(s, 0, '.'))
			break;
		s->i++;
	}
	return tn->n > 0;
}

/*
 * tn as SQLite reads it, quoted, into out: spark_catalog taken off,
 * db.t in db's schema (default is main), a bare t in the session's
 * database (for CREATE) or as engine_db.c resolves it (a temp view
 * first).  What SQLite keeps about itself is no table of Spark's.
 */
static int
target(struct sc_stmt *s, const struct tname *tn, bool create,
    struct sc_buf *out, struct sc_error *err)
{
	size_t first = 0;
	char *schema = NULL;
	const char *name = tn->parts[tn->n - 1];

	if (tn->n > 1 && strcasecmp(tn->parts[0], "spark_catalog") == 0)
		first = 1;
	if (sc_eng_guard_introspection(name))
		return sc_eng_guard_refuse(false, name, err);
	if (tn->n - first > 2)
		return sc_srv_error(err, "REQUIRES_SINGLE_PART_NAMESPACE",
		    "42K05",
		    "spark_catalog requires a single-part namespace, but got `%s`.`%s`.",
		    tn->parts[first], tn->parts[first + 1]);
	if (tn->n - first == 1 && !create)
		return sc_eng_db_table(s->x, (char *const *)&tn->parts[first],
		    1, false, out, err);
	/* SQLite's main is default, as it was before databases existed. */
	if (tn->n - first == 2 && strcasecmp(tn->parts[first], "main") == 0)
		schema = sc_xstrdup("main");
	else if (sc_eng_db_schema(s->x,
		     tn->n - first == 2 ? tn->parts[first] : NULL, &schema,
		     err) == -1)
		return -1;
	sc_eng_quote_ident(out, schema);
	sc_buf_addch(out, '.', NULL);
	sc_eng_quote_ident(out, name);
	free(schema);
	return 0;
}

/*
 * Read the table name at the cursor and write it as target() does; in
 * *spark (when not NULL) as Spark names it, each part in backquotes.
 */
static int
target_at(struct sc_stmt *s, bool create, struct sc_buf *out,
    struct sc_buf *spark, struct sc_error *err)
{
	struct tname tn;
	size_t i, k;
	int rc;

	if (!tname_at(s, &tn))
		return syntax(s, err);
	rc = target(s, &tn, create, out, err);
	for (i = 0; spark != NULL && i < tn.n; i++) {
		if (i > 0)
			sc_buf_addch(spark, '.', NULL);
		sc_buf_addch(spark, '`', NULL);
		for (k = 0; tn.parts[i][k] != '\0'; k++) {
			if (tn.parts[i][k] == '`')
				sc_buf_addch(spark, '`', NULL);
			sc_buf_addch(spark, tn.parts[i][k], NULL);
		}
		sc_buf_addch(spark, '`', NULL);
	}
	tname_release(&tn);
	return rc;
}

/* Whether the table or view t (as target() wrote it) exists. */
static bool
exists(struct sc_stmt *s, const struct sc_buf *t)
{
	sqlite3_stmt *st = NULL;
	char *sql = sqlite3_mprintf("SELECT 1 FROM %.*s LIMIT 0", (int)t->len,
	    (const char *)t->data);
	bool found;

	found = sql != NULL &&
	    sc_eng_guard_prepare_own(s->x->c, sql, &st) == SQLITE_OK;
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return found;
}

/* ---- queries and expressions ------------------------------------- */

/*
 * The query text as the translator's SQL in *p, its columns in *cols
 * (free with sc_ecols_free()) when cols is not NULL.
 */
static int
query(struct sc_stmt *s, const char *text, struct sc_eplan *p,
    struct sc_ecol **cols, size_t *ncols, struct sc_error *err)
{
	if (sc_eng_translate_text(s->x, text, s->args, p, err) == -1)
		return -1;
	if (cols != NULL &&
	    sc_eng_exec_plan(s->x, p, NULL, NULL, true, cols, ncols, err) == -1)
		return -1;
	return 0;
}

/* The query at the cursor, to the statement's end. */
static int
query_at(struct sc_stmt *s, struct sc_eplan *p, struct sc_ecol **cols,
    size_t *ncols, struct sc_error *err)
{
	char *text;
	int rc;

	if (sc_stmt_tk(s, 0)->kind == SC_TK_EOF)
		return syntax(s, err);
	text = rest(s);
	rc = query(s, text, p, cols, ncols, err);
	free(text);
	return rc;
}

/*
 * The expression of tokens [from, to) as SQL over the table in, into
 * out (in parentheses).
 */
static int
expr_sql(struct sc_stmt *s, size_t from, size_t to, const struct sc_eplan *in,
    struct sc_buf *out, struct sc_error *err)
{
	Spark__Connect__Expression *e = NULL;
	struct sc_einfo ei;
	char *text;
	int rc;

	if (from >= to)
		return sc_sqlp_syntax_error(&s->t[from], err);
	text = sc_stmt_span(s, from, to);
	rc = sc_sqlparse_expr(text, s->args, &e, err) == SC_SQLPARSE_OK ? 0
									: -1;
	free(text);
	if (rc == -1)
		return -1;
	sc_eng_einfo_init(&ei);
	sc_buf_addch(out, '(', NULL);
	rc = sc_eng_expr(s->x, in, e, out, &ei, err);
	sc_buf_addch(out, ')', NULL);
	sc_eng_einfo_release(&ei);
	protobuf_c_message_free_unpacked(&e->base, NULL);
	return rc;
}

/* The end of the expression from the cursor: a depth-0 ',' or stop word. */
static size_t
expr_end(const struct sc_stmt *s, const char *stop)
{
	size_t i;
	int depth = 0;

	for (i = s->i; s->t[i].kind != SC_TK_EOF; i++) {
		const struct sc_sqltok *t = &s->t[i];

		if (t->kind == SC_TK_OP && t->n == 1 && t->s[0] == '(')
			depth++;
		else if (t->kind == SC_TK_OP && t->n == 1 && t->s[0] == ')')
			depth--;
		else if (depth == 0 && t->kind == SC_TK_OP && t->n == 1 &&
		    (t->s[0] == ',' || t->s[0] == ';'))
			break;
		else if (depth == 0 && stop != NULL &&
		    sc_sqlp_tok_word(t, stop))
			break;
	}
	return i;
}

/* The table Spark names t read as a relation, for its columns. */
static int
table_input(struct sc_stmt *s, const struct sc_buf *t, struct sc_eplan *in,
    struct sc_error *err)
{
	char *ident = sc_xstrndup((const char *)t->data, t->len);
	int rc;

	rc = sc_stmt_read_table(s, ident, in, err);
	if (rc == 0)
		rc = sc_eng_plan_columns(s->x, in, err);
	free(ident);
	return rc;
}

/* ---- CREATE TABLE ------------------------------------------------- */

static bool
is_constraint(const struct sc_stmt *s)
{
	return sc_stmt_word_at(s, 0, "primary") ||
	    sc_stmt_word_at(s, 0, "unique") || sc_stmt_word_at(s, 0, "check") ||
	    sc_stmt_word_at(s, 0, "references") ||
	    sc_stmt_word_at(s, 0, "foreign") ||
	    sc_stmt_word_at(s, 0, "constraint");
}

static int
no_constraints(const struct sc_buf *t, const char *what, struct sc_error *err)
{
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.TABLE_OPERATION", "0A000",
	    "The feature is not supported: Table %.*s does not support %s. Please check the current catalog and namespace to make sure the qualified table name is expected, and also check the catalog implementation which is configured by \"spark.sql.catalog\".",
	    (int)t->len, (const char *)t->data, what);
}

/* Whether token t starts one of Spark's type names (not SQLite's TEXT). */
static bool
spark_type(const struct sc_sqltok *t)
{
	static const char *const words[] = { "bigint", "long", "int", "integer",
		"smallint", "short", "tinyint", "byte", "boolean", "double",
		"float", "real", "string", "varchar", "char", "character",
		"binary", "date", "timestamp", "timestamp_ltz", "timestamp_ntz",
		"decimal", "dec", "numeric", "array", "map", "struct",
		"interval", "void" };
	size_t k;

	for (k = 0; k < SC_NELEM(words); k++)
		if (sc_sqlp_tok_word(t, words[k]))
			return true;
	return false;
}

/*
 * A column definition at the cursor: name type [NOT NULL] [COMMENT
 * 'c'], written as SQLite declares it into out.
 */
static int
column_def(struct sc_stmt *s, const struct sc_buf *t, struct sc_buf *out,
    struct sc_error *err)
{
	struct sc_etype et;
	size_t from, to;
	char *name, *ty;
	int depth = 0, rc;

	if (is_constraint(s))
		return no_constraints(t, "CONSTRAINT", err);
	if ((name = ident_at(s)) == NULL)
		return syntax(s, err);
	/* The type: to a depth-0 ',' or ')' or a column option. */
	for (from = to = s->i; s->t[to].kind != SC_TK_EOF; to++) {
		const struct sc_sqltok *k = &s->t[to];

		if (k->kind == SC_TK_OP && (k->s[0] == '(' || k->s[0] == '<'))
			depth++;
		else if (k->kind == SC_TK_OP && k->s[0] == '>')
			depth--;
		else if (k->kind == SC_TK_OP && k->s[0] == ')' && depth > 0)
			depth--;
		else if (depth == 0 &&
		    ((k->kind == SC_TK_OP &&
			 (k->s[0] == ',' || k->s[0] == ')')) ||
			sc_sqlp_tok_word(k, "not") ||
			sc_sqlp_tok_word(k, "comment") ||
			sc_sqlp_tok_word(k, "default") ||
			sc_sqlp_tok_word(k, "generated") ||
			sc_sqlp_tok_word(k, "primary") ||
			sc_sqlp_tok_word(k, "unique") ||
			sc_sqlp_tok_word(k, "references") ||
			sc_sqlp_tok_word(k, "check")))
			break;
	}
	if (from == to) {
		free(name);
		return sc_sqlp_syntax_error(&s->t[to], err);
	}
	ty = sc_stmt_span(s, from, to);
	rc = spark_type(&s->t[from])
	    ? sc_eng_parse_type(ty, strlen(ty), false, &et)
	    : -1;
	if (rc == -1) {
		sc_srv_error(err, "UNSUPPORTED_DATATYPE", "0A000",
		    "Unsupported data type \"%s\".", ty);
		free(ty);
		free(name);
		return -1;
	}
	free(ty);
	s->i = to;
	sc_eng_quote_ident(out, name);
	free(name);
	sc_buf_addch(out, ' ', NULL);
	sc_eng_type_decl(&et, out);
	for (;;) {
		if (sc_stmt_word_at(s, 0, "not") &&
		    sc_stmt_word_at(s, 1, "null")) {
			s->i += 2;
			sc_buf_addstr(out, " NOT NULL", NULL);
		} else if (sc_stmt_accept(s, "comment")) {
			if (sc_stmt_tk(s, 0)->kind != SC_TK_STRING)
				return syntax(s, err);
			s->i++;
		} else if (sc_stmt_word_at(s, 0, "default") ||
		    sc_stmt_word_at(s, 0, "generated")) {
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.SQL_SYNTAX", "0A000",
			    "The feature is not supported: %s column values in SQL text.",
			    sc_stmt_word_at(s, 0, "default") ? "DEFAULT"
							     : "GENERATED");
		} else if (is_constraint(s)) {
			return no_constraints(t, "CONSTRAINT", err);
		} else {
			return 0;
		}
	}
}

/*
 * The clauses of Spark's CREATE TABLE that say how Spark stores a table,
 * not what it holds (USING fmt, OPTIONS (...), PARTITIONED BY (...),
 * CLUSTERED BY (...), STORED AS fmt, LOCATION 'x', COMMENT 'x',
 * TBLPROPERTIES (...)): read and left out.  False when none is at the
 * cursor.
 */
static bool
table_clause(struct sc_stmt *s)
{
	char *fmt;

	if (sc_stmt_word_at(s, 0, "using") ||
	    (sc_stmt_word_at(s, 0, "stored") && sc_stmt_word_at(s, 1, "as"))) {
		s->i += sc_stmt_word_at(s, 0, "using") ? 1 : 2;
		if ((fmt = ident_at(s)) == NULL)
			return false;
		free(fmt);
		return true;
	}
	if ((sc_stmt_word_at(s, 0, "location") ||
		sc_stmt_word_at(s, 0, "comment")) &&
	    sc_stmt_tk(s, 1)->kind == SC_TK_STRING) {
		s->i += 2;
		return true;
	}
	if ((sc_stmt_word_at(s, 0, "partitioned") ||
		sc_stmt_word_at(s, 0, "clustered")) &&
	    sc_stmt_word_at(s, 1, "by") && op_at(s, 2, '(')) {
		s->i += 2;
		return skip_parens(s);
	}
	if ((sc_stmt_word_at(s, 0, "options") ||
		sc_stmt_word_at(s, 0, "tblproperties")) &&
	    op_at(s, 1, '(')) {
		s->i++;
		return skip_parens(s);
	}
	return false;
}

/*
 * CTAS: "CREATE TABLE t (c type, ...); INSERT INTO t SELECT * FROM
 * (query)", the columns typed as the query's are.
 */
static int
ctas(struct sc_stmt *s, const struct sc_buf *t, bool ifne, struct sc_eplan *p,
    struct sc_error *err)
{
	struct sc_ecol *cols = NULL;
	struct sc_eplan q;
	size_t ncols = 0, i;
	int rc;

	sc_eplan_init(&q);
	rc = query_at(s, &q, &cols, &ncols, err);
	if (rc == 0 && ifne && exists(s, t)) {
		sc_stmt_no_result(p);
	} else if (rc == 0) {
		sc_buf_addstr(&p->sql, "CREATE TABLE ", NULL);
		sc_buf_add(&p->sql, t->data, t->len, NULL);
		sc_buf_addstr(&p->sql, " (", NULL);
		for (i = 0; i < ncols; i++) {
			if (i > 0)
				sc_buf_addstr(&p->sql, ", ", NULL);
			sc_eng_quote_ident(&p->sql, cols[i].name);
			sc_buf_addch(&p->sql, ' ', NULL);
			sc_eng_type_decl(&cols[i].type, &p->sql);
		}
		sc_buf_addstr(&p->sql, "); INSERT INTO ", NULL);
		sc_buf_add(&p->sql, t->data, t->len, NULL);
		sc_buf_addstr(&p->sql, " SELECT * FROM (", NULL);
		sc_buf_add(&p->sql, q.sql.data, q.sql.len, NULL);
		sc_buf_addstr(&p->sql, ")", NULL);
	}
	sc_ecols_free(cols, ncols);
	sc_eplan_release(&q);
	return rc;
}

/* CREATE [OR REPLACE] TABLE [IF NOT EXISTS] t ..., after TABLE. */
static int
create_table(struct sc_stmt *s, bool replace, struct sc_eplan *p,
    struct sc_error *err)
{
	struct sc_buf t, def, name;
	bool ifne = false, cols = false;
	int rc = -1;

	if (sc_stmt_word_at(s, 0, "if") && sc_stmt_word_at(s, 1, "not") &&
	    sc_stmt_word_at(s, 2, "exists")) {
		s->i += 3;
		ifne = true;
	}
	sc_buf_init(&t, SC_BUF_UNLIMITED);
	sc_buf_init(&def, SC_BUF_UNLIMITED);
	sc_buf_init(&name, SC_BUF_UNLIMITED);
	if (target_at(s, true, &t, &name, err) == -1)
		goto out;
	if (accept_op(s, '(')) {
		cols = true;
		for (;;) {
			if (def.len > 0)
				sc_buf_addstr(&def, ", ", NULL);
			if (column_def(s, &name, &def, err) == -1)
				goto out;
			if (accept_op(s, ')'))
				break;
			if (!accept_op(s, ',')) {
				syntax(s, err);
				goto out;
			}
		}
	}
	while (table_clause(s))
		;
	sc_buf_reset(&p->sql);
	if (replace) {
		put(&p->sql, "DROP TABLE IF EXISTS ", &t, "; ");
		p->list = true;
	}
	if (!cols && sc_stmt_accept(s, "as")) {
		p->list = true;
		rc = ctas(s, &t, ifne, p, err);
		goto out;
	}
	if (!cols || !sc_stmt_at_end(s)) {
		syntax(s, err);
		goto out;
	}
	sc_buf_addstr(&p->sql,
	    ifne ? "CREATE TABLE IF NOT EXISTS " : "CREATE TABLE ", NULL);
	sc_buf_add(&p->sql, t.data, t.len, NULL);
	put(&p->sql, " (", &def, ")");
	rc = 0;
out:
	sc_buf_release(&t);
	sc_buf_release(&def);
	sc_buf_release(&name);
	return rc;
}

/* ---- CREATE VIEW -------------------------------------------------- */

/*
 * CREATE [OR REPLACE] [TEMP|TEMPORARY] VIEW [IF NOT EXISTS] v AS query,
 * after VIEW.  A temp view keeps the query's Spark types (an expression
 * of SQLite's view has no declared type) and the TEMP tables it reads.
 */
static int
create_view(struct sc_stmt *s, bool replace, bool temp, struct sc_eplan *p,
    struct sc_error *err)
{
	struct sc_ecol *cols = NULL;
	struct sc_eplan q;
	struct tname tn;
	struct sc_buf t;
	size_t ncols = 0;
	bool ifne = false;
	int rc = -1;

	if (sc_stmt_word_at(s, 0, "if") && sc_stmt_word_at(s, 1, "not") &&
	    sc_stmt_word_at(s, 2, "exists")) {
		s->i += 3;
		ifne = true;
	}
	if (!tname_at(s, &tn))
		return syntax(s, err);
	sc_buf_init(&t, SC_BUF_UNLIMITED);
	sc_eplan_init(&q);
	if (temp && tn.n > 1) {
		sc_srv_error(err, "TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS", "428EK",
		    "CREATE TEMPORARY VIEW or the corresponding Dataset APIs only accept single-part view names, but got: %s.",
		    tn.parts[tn.n - 1]);
		goto out;
	}
	if (temp)
		sc_eng_quote_ident(&t, tn.parts[0]);
	else if (target(s, &tn, true, &t, err) == -1)
		goto out;
	if (op_at(s, 0, '(')) {
		sc_srv_error(err, "UNSUPPORTED_FEATURE.SQL_SYNTAX", "0A000",
		    "The feature is not supported: a column list in CREATE VIEW in SQL text.");
		goto out;
	}
	while (sc_stmt_word_at(s, 0, "comment") ||
	    sc_stmt_word_at(s, 0, "tblproperties"))
		if (!table_clause(s)) {
			syntax(s, err);
			goto out;
		}
	if (!sc_stmt_accept(s, "as")) {
		syntax(s, err);
		goto out;
	}
	if (query_at(s, &q, &cols, &ncols, err) == -1)
		goto out;
	sc_buf_reset(&p->sql);
	if (replace) {
		sc_buf_addstr(&p->sql, "DROP VIEW IF EXISTS ", NULL);
		put(&p->sql, temp ? "temp." : "", &t, "; ");
		p->list = true;
	}
	sc_buf_addstr(&p->sql, temp ? "CREATE TEMP VIEW " : "CREATE VIEW ",
	    NULL);
	put(&p->sql, ifne ? "IF NOT EXISTS " : "", &t, " AS ");
	sc_buf_add(&p->sql, q.sql.data, q.sql.len, NULL);
	if (temp) {
		sc_eng_view_note(s->x->c, tn.parts[0], (const char *)q.sql.data,
		    q.sql.len, cols, ncols);
		sc_eng_view_adopt(s->x, tn.parts[0]);
	}
	rc = 0;
out:
	tname_release(&tn);
	sc_ecols_free(cols, ncols);
	sc_eplan_release(&q);
	sc_buf_release(&t);
	return rc;
}

/* ---- INSERT ------------------------------------------------------- */

/*
 * VALUES rows at the cursor (after VALUES), each "INSERT INTO head
 * SELECT * FROM (row)": rows of literals as one relation, as Spark's
 * inline table, else each row's expressions as a SELECT of its own.
 */
static int
insert_values(struct sc_stmt *s, const struct sc_buf *head, struct sc_eplan *p,
    struct sc_error *err)
{
	struct sc_buf text;
	struct sc_eplan q;
	struct sc_error e;
	size_t from = s->i - 1, open;
	char *all;
	int rc = 0;

	/* All the rows at once, when the parser's VALUES takes them. */
	all = sc_stmt_span(s, from, stmt_end(s));
	sc_eplan_init(&q);
	if (query(s, all, &q, NULL, NULL, &e) == 0) {
		free(all);
		sc_buf_add(&p->sql, head->data, head->len, NULL);
		sc_buf_addstr(&p->sql, " SELECT * FROM (", NULL);
		sc_buf_add(&p->sql, q.sql.data, q.sql.len, NULL);
		sc_buf_addstr(&p->sql, ")", NULL);
		sc_eplan_release(&q);
		s->i = stmt_end(s);
		return 0;
	}
	free(all);
	sc_eplan_release(&q);
	sc_buf_init(&text, SC_BUF_UNLIMITED);
	for (;;) {
		if (!op_at(s, 0, '(')) {
			rc = syntax(s, err);
			break;
		}
		open = s->i;
		if (!skip_parens(s)) {
			rc = syntax(s, err);
			break;
		}
		sc_buf_reset(&text);
		sc_buf_addstr(&text, "SELECT ", NULL);
		all = sc_stmt_span(s, open + 1, s->i - 1);
		sc_buf_addstr(&text, all, NULL);
		free(all);
		sc_buf_addch(&text, '\0', NULL);
		sc_eplan_init(&q);
		rc = query(s, (const char *)text.data, &q, NULL, NULL, err);
		if (rc == 0) {
			if (p->sql.len > 0)
				sc_buf_addstr(&p->sql, "; ", NULL);
			sc_buf_add(&p->sql, head->data, head->len, NULL);
			sc_buf_addstr(&p->sql, " SELECT * FROM (", NULL);
			sc_buf_add(&p->sql, q.sql.data, q.sql.len, NULL);
			sc_buf_addstr(&p->sql, ")", NULL);
			p->list = true;
		}
		sc_eplan_release(&q);
		if (rc == -1 || !accept_op(s, ','))
			break;
	}
	sc_buf_release(&text);
	if (rc == 0 && !sc_stmt_at_end(s))
		rc = syntax(s, err);
	return rc;
}

/* INSERT INTO|OVERWRITE [TABLE] t [(c, ...)] VALUES ... | query. */
static int
insert(struct sc_stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	struct sc_buf t, head, name;
	struct sc_eplan q;
	bool overwrite;
	char *c;
	int rc = -1;

	if (sc_stmt_accept(s, "overwrite"))
		overwrite = true;
	else if (sc_stmt_accept(s, "into"))
		overwrite = false;
	else
		return syntax(s, err); /* INSERT OR REPLACE, ... */
	sc_stmt_accept(s, "table");
	sc_buf_init(&t, SC_BUF_UNLIMITED);
	sc_buf_init(&head, SC_BUF_UNLIMITED);
	sc_buf_init(&name, SC_BUF_UNLIMITED);
	sc_eplan_init(&q);
	if (target_at(s, false, &t, &name, err) == -1)
		goto out;
	sc_buf_reset(&p->sql);
	if (overwrite) {
		put(&p->sql, "DELETE FROM ", &t, "; ");
		p->list = true;
	}
	put(&head, "INSERT INTO ", &t, "");
	/* A column list: names only (a query in parentheses is none). */
	if (op_at(s, 0, '(') && !sc_stmt_word_at(s, 1, "select") &&
	    !sc_stmt_word_at(s, 1, "with") &&
	    !sc_stmt_word_at(s, 1, "values")) {
		s->i++;
		sc_buf_addstr(&head, " (", NULL);
		for (;;) {
			if ((c = ident_at(s)) == NULL) {
				syntax(s, err);
				goto out;
			}
			sc_eng_quote_ident(&head, c);
			free(c);
			if (accept_op(s, ')'))
				break;
			if (!accept_op(s, ',')) {
				syntax(s, err);
				goto out;
			}
			sc_buf_addstr(&head, ", ", NULL);
		}
		sc_buf_addch(&head, ')', NULL);
	}
	if (sc_stmt_accept(s, "values")) {
		rc = insert_values(s, &head, p, err);
		goto out;
	}
	if (query_at(s, &q, NULL, NULL, err) == -1)
		goto out;
	sc_buf_add(&p->sql, head.data, head.len, NULL);
	sc_buf_addstr(&p->sql, " SELECT * FROM (", NULL);
	sc_buf_add(&p->sql, q.sql.data, q.sql.len, NULL);
	sc_buf_addstr(&p->sql, ")", NULL);
	rc = 0;
out:
	sc_buf_release(&t);
	sc_buf_release(&head);
	sc_buf_release(&name);
	sc_eplan_release(&q);
	return rc;
}

/* ---- UPDATE and DELETE (sctk's extension) ------------------------ */

/* [WHERE cond] to the statement's end, over in. */
static int
where(struct sc_stmt *s, const struct sc_eplan *in, struct sc_buf *out,
    struct sc_error *err)
{
	size_t end = stmt_end(s);

	if (!sc_stmt_accept(s, "where"))
		return sc_stmt_at_end(s) ? 0 : syntax(s, err);
	sc_buf_addstr(out, " WHERE ", NULL);
	if (expr_sql(s, s->i, end, in, out, err) == -1)
		return -1;
	s->i = end;
	return 0;
}

/* UPDATE t SET c = e, ... [WHERE cond]. */
static int
update(struct sc_stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	struct sc_buf t, name;
	struct sc_eplan in;
	size_t end;
	char *c;
	int rc = -1;

	sc_buf_init(&t, SC_BUF_UNLIMITED);
	sc_buf_init(&name, SC_BUF_UNLIMITED);
	sc_eplan_init(&in);
	if (target_at(s, false, &t, &name, err) == -1 ||
	    table_input(s, &name, &in, err) == -1)
		goto out;
	if (!sc_stmt_accept(s, "set")) {
		syntax(s, err);
		goto out;
	}
	sc_buf_reset(&p->sql);
	put(&p->sql, "UPDATE ", &t, " SET ");
	for (;;) {
		if ((c = ident_at(s)) == NULL || !accept_op(s, '=')) {
			free(c);
			syntax(s, err);
			goto out;
		}
		sc_eng_quote_ident(&p->sql, c);
		free(c);
		sc_buf_addstr(&p->sql, " = ", NULL);
		end = expr_end(s, "where");
		if (expr_sql(s, s->i, end, &in, &p->sql, err) == -1)
			goto out;
		s->i = end;
		if (!accept_op(s, ','))
			break;
		sc_buf_addstr(&p->sql, ", ", NULL);
	}
	rc = where(s, &in, &p->sql, err);
out:
	sc_buf_release(&t);
	sc_buf_release(&name);
	sc_eplan_release(&in);
	return rc;
}

/* DELETE FROM t [WHERE cond]. */
static int
delete_rows(struct sc_stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	struct sc_buf t, name;
	struct sc_eplan in;
	int rc = -1;

	if (!sc_stmt_accept(s, "from"))
		return syntax(s, err);
	sc_buf_init(&t, SC_BUF_UNLIMITED);
	sc_buf_init(&name, SC_BUF_UNLIMITED);
	sc_eplan_init(&in);
	if (target_at(s, false, &t, &name, err) == -1 ||
	    table_input(s, &name, &in, err) == -1)
		goto out;
	sc_buf_reset(&p->sql);
	put(&p->sql, "DELETE FROM ", &t, "");
	rc = where(s, &in, &p->sql, err);
out:
	sc_buf_release(&t);
	sc_buf_release(&name);
	sc_eplan_release(&in);
	return rc;
}

/* TRUNCATE TABLE t, after TABLE: every row deleted. */
static int
truncate_table(struct sc_stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	struct sc_buf t;
	int rc;

	sc_buf_init(&t, SC_BUF_UNLIMITED);
	rc = target_at(s, false, &t, NULL, err);
	if (rc == 0 && !sc_stmt_at_end(s))
		rc = syntax(s, err);
	if (rc == 0) {
		sc_buf_reset(&p->sql);
		put(&p->sql, "DELETE FROM ", &t, "");
	}
	sc_buf_release(&t);
	return rc;
}

/* ---- ALTER TABLE and DROP ---------------------------------------- */

/* ALTER TABLE t ADD COLUMN[S] ... | RENAME TO u, after TABLE. */
static int
alter_table(struct sc_stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	struct sc_buf t, def, name;
	struct tname tn;
	bool paren;
	int rc = -1;

	sc_buf_init(&t, SC_BUF_UNLIMITED);
	sc_buf_init(&def, SC_BUF_UNLIMITED);
	sc_buf_init(&name, SC_BUF_UNLIMITED);
	if (target_at(s, false, &t, &name, err) == -1)
		goto out;
	sc_buf_reset(&p->sql);
	if (sc_stmt_accept(s, "add")) {
		if (!sc_stmt_accept(s, "columns"))
			sc_stmt_accept(s, "column");
		paren = accept_op(s, '(');
		for (;;) {
			sc_buf_reset(&def);
			if (column_def(s, &name, &def, err) == -1)
				goto out;
			if (p->sql.len > 0) {
				sc_buf_addstr(&p->sql, "; ", NULL);
				p->list = true;
			}
			put(&p->sql, "ALTER TABLE ", &t, " ADD COLUMN ");
			sc_buf_add(&p->sql, def.data, def.len, NULL);
			if (!accept_op(s, ','))
				break;
		}
		if ((paren && !accept_op(s, ')')) || !sc_stmt_at_end(s)) {
			syntax(s, err);
			goto out;
		}
		rc = 0;
	} else if (sc_stmt_accept(s, "rename") && sc_stmt_accept(s, "to")) {
		if (!tname_at(s, &tn)) {
			syntax(s, err);
			goto out;
		}
		put(&p->sql, "ALTER TABLE ", &t, " RENAME TO ");
		sc_eng_quote_ident(&p->sql, tn.parts[tn.n - 1]);
		tname_release(&tn);
		rc = sc_stmt_at_end(s) ? 0 : syntax(s, err);
	} else if (sc_stmt_word_at(s, 0, "column") ||
	    sc_stmt_word_at(s, 0, "drop")) {
		rc = no_constraints(&name,
		    sc_stmt_word_at(s, 0, "drop") ? "DROP COLUMN"
						  : "RENAME COLUMN",
		    err);
	} else {
		sc_srv_error(err, "UNSUPPORTED_FEATURE.SQL_SYNTAX", "0A000",
		    "The feature is not supported: ALTER TABLE other than ADD COLUMNS and RENAME TO in SQL text.");
	}
out:
	sc_buf_release(&t);
	sc_buf_release(&def);
	sc_buf_release(&name);
	return rc;
}

/* DROP TABLE|VIEW [IF EXISTS] t, after DROP. */
static int
drop(struct sc_stmt *s, bool view, struct sc_eplan *p, struct sc_error *err)
{
	struct sc_buf t, name;
	bool ifex = false;
	int rc = -1;

	if (sc_stmt_word_at(s, 0, "if") && sc_stmt_word_at(s, 1, "exists")) {
		s->i += 2;
		ifex = true;
	}
	sc_buf_init(&t, SC_BUF_UNLIMITED);
	sc_buf_init(&name, SC_BUF_UNLIMITED);
	if (target_at(s, false, &t, &name, err) == -1)
		goto out;
	if (!view)
		sc_stmt_accept(s, "purge");
	if (!sc_stmt_at_end(s)) {
		syntax(s, err);
		goto out;
	}
	sc_buf_reset(&p->sql);
	sc_buf_addstr(&p->sql, view ? "DROP VIEW " : "DROP TABLE ", NULL);
	put(&p->sql, ifex ? "IF EXISTS " : "", &t, "");
	rc = 0;
out:
	sc_buf_release(&t);
	sc_buf_release(&name);
	return rc;
}

int
sc_stmt_dml(struct sc_stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	size_t start = s->i;
	bool replace = false, temp = false;
	int rc = 0;

	if (sc_stmt_accept(s, "create")) {
		if (sc_stmt_accept(s, "or")) {
			if (!sc_stmt_accept(s, "replace"))
				return syntax(s, err);
			replace = true;
		}
		if (sc_stmt_word_at(s, 0, "global") &&
		    (sc_stmt_word_at(s, 1, "temp") ||
			sc_stmt_word_at(s, 1, "temporary")))
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.SQL_SYNTAX", "0A000",
			    "The feature is not supported: global temporary views in SQL text; sc-serve has session temporary views only.");
		if (sc_stmt_accept(s, "temp") || sc_stmt_accept(s, "temporary"))
			temp = true;
		if (sc_stmt_accept(s, "view"))
			rc = create_view(s, replace, temp, p, err);
		else if (temp && sc_stmt_word_at(s, 0, "table"))
			/* Spark's own words for it. */
			rc = sc_srv_error(err, "PARSE_SYNTAX_ERROR", "42601",
			    "CREATE TEMPORARY TABLE without a provider is not allowed.");
		else if (sc_stmt_accept(s, "table"))
			rc = create_table(s, replace, p, err);
		else
			rc = syntax(s, err);
	} else if (sc_stmt_accept(s, "insert")) {
		rc = insert(s, p, err);
	} else if (sc_stmt_accept(s, "update")) {
		rc = update(s, p, err);
	} else if (sc_stmt_accept(s, "delete")) {
		rc = delete_rows(s, p, err);
	} else if (sc_stmt_accept(s, "truncate")) {
		rc = sc_stmt_accept(s, "table") ? truncate_table(s, p, err)
						: syntax(s, err);
	} else if (sc_stmt_accept(s, "alter")) {
		rc = sc_stmt_accept(s, "table") ? alter_table(s, p, err)
						: syntax(s, err);
	} else if (sc_stmt_accept(s, "drop")) {
		/* DROP TEMPORARY is Spark's for functions only. */
		if (sc_stmt_accept(s, "temporary") || sc_stmt_accept(s, "temp"))
			rc = syntax(s, err);
		else if (sc_stmt_accept(s, "table"))
			rc = drop(s, false, p, err);
		else if (sc_stmt_accept(s, "view"))
			rc = drop(s, true, p, err);
		else
			rc = syntax(s, err);
	} else {
		s->i = start;
		return 0;
	}
	return rc == -1 ? -1 : 1;
}
