/* SPDX-License-Identifier: MIT */

/*
 * sqlstmt.c: Spark SQL statements that SQLite does not have, answered
 * with the rows and columns Spark gives: SHOW TABLES, SHOW DATABASES
 * (SCHEMAS, NAMESPACES), DESCRIBE [TABLE], SET and RESET, USE and
 * CREATE DATABASE (only the one database, "default"), CACHE, UNCACHE,
 * CLEAR CACHE and REFRESH (no-ops: nothing is cached), and EXPLAIN.
 * Each becomes one SQLite statement whose result columns carry Spark's
 * names and types.
 */

#include "server/engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "server/sqlparse.h"
#include "server/srverror.h"
#include "core/banned.h"

/* The session settings SET reads and writes (sc_engine_set_conf()). */
static const struct sc_engine_conf_ops *conf_ops;

void
sc_engine_set_conf(struct sc_engine *e, const struct sc_engine_conf_ops *ops)
{
	(void)e;
	conf_ops = ops;
}

/* A boolean setting as Spark reads it (true/false, any case). */
static bool
conf_bool(void *owner, const char *key, bool dflt)
{
	char *v = conf_ops->get(owner, key);
	bool b = dflt;

	if (v != NULL && strcasecmp(v, "true") == 0)
		b = true;
	else if (v != NULL && strcasecmp(v, "false") == 0)
		b = false;
	free(v);
	return b;
}

void
sc_eng_read_mode(struct sc_engine_conn *c, struct sc_emode *m)
{
	char *v;

	m->ansi = true;
	m->case_sensitive = false;
	snprintf(m->tz, sizeof(m->tz), "UTC");
	if (conf_ops == NULL || c->owner == NULL)
		return;
	m->ansi = conf_bool(c->owner, "spark.sql.ansi.enabled", true);
	m->case_sensitive =
	    conf_bool(c->owner, "spark.sql.caseSensitive", false);
	if ((v = conf_ops->get(c->owner, "spark.sql.session.timeZone")) !=
	    NULL) {
		snprintf(m->tz, sizeof(m->tz), "%s", v);
		free(v);
	}
}

/* ------------------------------------------------------------------ */
/* A result table as one SQLite statement                              */
/* ------------------------------------------------------------------ */

struct table {
	struct sc_ecol *cols;
	size_t ncols;
	char **cells; /* row-major, NULL for null */
	size_t nrows;
};

static void
table_col(struct table *t, const char *name, int type, int nullable)
{
	struct sc_ecol *c;

	t->cols = sc_xreallocarray(t->cols, t->ncols + 1, sizeof(*t->cols));
	c = &t->cols[t->ncols++];
	memset(c, 0, sizeof(*c));
	c->name = sc_xstrdup(name);
	c->type.t = type;
	c->nullable = nullable;
}

/* Add a row of ncols cells (each copied; NULL is null). */
static void
table_row(struct table *t, const char *const *cells)
{
	size_t i, base = t->nrows * t->ncols;

	t->cells =
	    sc_xreallocarray(t->cells, base + t->ncols, sizeof(*t->cells));
	for (i = 0; i < t->ncols; i++)
		t->cells[base + i] = cells[i] != NULL ? sc_xstrdup(cells[i])
						      : NULL;
	t->nrows++;
}

static void
table_release(struct table *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	sc_ecols_free(t->cols, t->ncols);
}

static void
cell_sql(struct sc_buf *b, const struct sc_ecol *c, const char *v)
{
	if (v == NULL)
		sc_buf_addstr(b, "NULL", NULL);
	else if (c->type.t == SC_ARROW_BOOL)
		sc_buf_addstr(b, strcmp(v, "true") == 0 ? "1" : "0", NULL);
	else
		sc_eng_quote_string(b, v, strlen(v));
}

/* Move t into plan p: its SQL and its columns. */
static void
table_plan(struct table *t, struct sc_eplan *p)
{
	size_t r, i;

	sc_buf_reset(&p->sql);
	for (r = 0; r < t->nrows || (r == 0 && t->nrows == 0); r++) {
		sc_buf_addstr(&p->sql,
		    r == 0 ? "SELECT " : " UNION ALL SELECT ", NULL);
		for (i = 0; i < t->ncols; i++) {
			if (i > 0)
				sc_buf_addstr(&p->sql, ", ", NULL);
			cell_sql(&p->sql, &t->cols[i],
			    t->nrows > 0 ? t->cells[r * t->ncols + i] : NULL);
			if (r == 0) {
				sc_buf_addstr(&p->sql, " AS ", NULL);
				sc_eng_quote_ident(&p->sql, t->cols[i].name);
			}
		}
	}
	if (t->nrows == 0)
		sc_buf_addstr(&p->sql, " WHERE 0", NULL);
	p->raw = false;
	p->cols = t->cols;
	p->ncols = t->ncols;
	t->cols = NULL; /* t->ncols stays: it counts the cells to free */
}

/* A statement with no result: zero columns, zero rows. */
static void
no_result(struct sc_eplan *p)
{
	sc_buf_reset(&p->sql);
	sc_buf_addstr(&p->sql, "-- nothing to do", NULL);
	p->raw = true;
}

/* ------------------------------------------------------------------ */
/* Statements                                                          */
/* ------------------------------------------------------------------ */

struct stmt {
	struct sc_ectx *x;
	const char *src;
	struct sc_sqltok *t;
	size_t n;
	size_t i;
};

static const struct sc_sqltok *
tk(const struct stmt *s, size_t k)
{
	return s->i + k < s->n ? &s->t[s->i + k] : &s->t[s->n - 1];
}

static bool
word_at(const struct stmt *s, size_t k, const char *w)
{
	const struct sc_sqltok *t = tk(s, k);

	return t->kind == SC_TK_WORD && strlen(w) == t->n &&
	    strncasecmp(t->s, w, t->n) == 0;
}

static bool
accept(struct stmt *s, const char *w)
{
	if (!word_at(s, 0, w))
		return false;
	s->i++;
	return true;
}

static bool
at_end(const struct stmt *s)
{
	size_t k = 0;

	while (tk(s, k)->kind == SC_TK_OP && tk(s, k)->n == 1 &&
	    tk(s, k)->s[0] == ';')
		k++;
	return tk(s, k)->kind == SC_TK_EOF;
}

/* A possibly qualified name at the cursor, parts unquoted; NULL if none. */
static char *
name_at(struct stmt *s, char **db)
{
	const struct sc_sqltok *t;
	char *parts[3] = { NULL, NULL, NULL };
	size_t n = 0, i;
	char *last;

	for (;;) {
		t = tk(s, 0);
		if (t->kind == SC_TK_QIDENT)
			parts[n] = sc_xstrndup((const char *)t->text.data,
			    t->text.len);
		else if (t->kind == SC_TK_WORD)
			parts[n] = sc_xstrndup(t->s, t->n);
		else
			break;
		n++;
		s->i++;
		if (n == 3 || tk(s, 0)->kind != SC_TK_OP || tk(s, 0)->n != 1 ||
		    tk(s, 0)->s[0] != '.')
			break;
		s->i++;
	}
	if (n == 0)
		return NULL;
	last = parts[n - 1];
	if (db != NULL)
		*db = n >= 2 ? sc_xstrdup(parts[n - 2]) : NULL;
	for (i = 0; i + 1 < n; i++)
		free(parts[i]);
	return last;
}

static int
unsupported(struct sc_error *err, const char *what)
{
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.SQL_STATEMENT", "0A000",
	    "The feature is not supported: %s; sc-serve has one database, "
	    "`default`.",
	    what);
}

/* Whether db names the one database. */
static bool
default_db(const char *db)
{
	return db == NULL || strcasecmp(db, "default") == 0 ||
	    strcasecmp(db, "spark_catalog") == 0 || strcasecmp(db, "main") == 0;
}

static int
schema_not_found(const char *db, struct sc_error *err)
{
	return sc_srv_error(err, "SCHEMA_NOT_FOUND", "42704",
	    "The schema `%s` cannot be found. Verify the spelling and "
	    "correctness of the schema and catalog.",
	    db);
}

/* SHOW TABLES [FROM|IN db] [[LIKE] 'pattern']. */
static int
show_tables(struct stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	static const char *const q[] = {
		"SELECT name FROM main.sqlite_schema WHERE type IN "
		"('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
		"ORDER BY name",
		"SELECT name FROM temp.sqlite_schema WHERE type IN "
		"('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
		"AND name NOT LIKE '\\_sc\\_%' ESCAPE '\\' ORDER BY name",
	};
	struct table t;
	sqlite3_stmt *st;
	const char *row[3];
	char *db = NULL, *like = NULL;
	size_t k;
	int rc;

	if (accept(s, "from") || accept(s, "in")) {
		db = name_at(s, NULL);
		if (db == NULL || !default_db(db)) {
			rc = db != NULL ? schema_not_found(db, err) : 1;
			free(db);
			return rc;
		}
		free(db);
	}
	accept(s, "like");
	if (tk(s, 0)->kind == SC_TK_STRING) {
		like = sc_xstrndup((const char *)tk(s, 0)->text.data,
		    tk(s, 0)->text.len);
		s->i++;
	}
	if (!at_end(s)) {
		free(like);
		return 0;
	}
	memset(&t, 0, sizeof(t));
	table_col(&t, "namespace", SC_ARROW_UTF8, 0);
	table_col(&t, "tableName", SC_ARROW_UTF8, 0);
	table_col(&t, "isTemporary", SC_ARROW_BOOL, 0);
	for (k = 0; k < 2; k++) {
		if (sc_eng_prepare(s->x, q[k], strlen(q[k]), &st, NULL, err) ==
		    -1) {
			table_release(&t);
			free(like);
			return -1;
		}
		while ((rc = sc_eng_step(s->x, st)) == SQLITE_ROW) {
			const char *name =
			    (const char *)sqlite3_column_text(st, 0);

			/* Spark's pattern: * any characters, | or. */
			if (like != NULL && sqlite3_strglob(like, name) != 0 &&
			    sqlite3_stricmp(like, name) != 0)
				continue;
			row[0] = k == 0 ? "default" : "";
			row[1] = name;
			row[2] = k == 0 ? "false" : "true";
			table_row(&t, row);
		}
		if (rc != SQLITE_DONE) {
			sc_eng_sqlite_error(s->x, rc, err);
			sqlite3_finalize(st);
			table_release(&t);
			free(like);
			return -1;
		}
		sqlite3_finalize(st);
	}
	free(like);
	table_plan(&t, p);
	table_release(&t);
	return 1;
}

static int
show_databases(struct stmt *s, struct sc_eplan *p)
{
	struct table t;
	const char *row[1] = { "default" };

	accept(s, "like");
	if (tk(s, 0)->kind == SC_TK_STRING)
		s->i++;
	if (!at_end(s))
		return 0;
	memset(&t, 0, sizeof(t));
	table_col(&t, "namespace", SC_ARROW_UTF8, 0);
	table_row(&t, row);
	table_plan(&t, p);
	table_release(&t);
	return 1;
}

/* The Spark simpleString of a column type: int, bigint, decimal(10,2). */
static char *
type_name(const struct sc_etype *ty)
{
	struct sc_buf b;
	size_t i;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	if (ty->t == SC_ARROW_NULL)
		sc_buf_addstr(&b, "void", NULL);
	else if (sc_eng_type_text(ty, SC_VALUE_SQL, &b) == -1)
		sc_buf_addstr(&b, "string", NULL);
	sc_buf_addch(&b, '\0', NULL);
	for (i = 0; b.data[i] != '\0'; i++)
		if (b.data[i] >= 'A' && b.data[i] <= 'Z')
			b.data[i] = (uint8_t)(b.data[i] - 'A' + 'a');
	return (char *)sc_buf_detach(&b, NULL);
}

/* DESCRIBE [TABLE] [EXTENDED] name: col_name, data_type, comment. */
static int
describe(struct stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	Spark__Connect__Relation rel = SPARK__CONNECT__RELATION__INIT;
	Spark__Connect__Read rd = SPARK__CONNECT__READ__INIT;
	Spark__Connect__Read__NamedTable nt =
	    SPARK__CONNECT__READ__NAMED_TABLE__INIT;
	struct sc_eplan in;
	struct table t;
	struct sc_ecol *cols = NULL;
	size_t ncols = 0;
	const char *row[3];
	char *name, *db = NULL, *ty;
	struct sc_buf ident;
	size_t i;
	int rc = -1;

	accept(s, "table");
	if (accept(s, "extended") || accept(s, "formatted"))
		return 0;
	if (word_at(s, 0, "function") || word_at(s, 0, "database") ||
	    word_at(s, 0, "schema") || word_at(s, 0, "query") ||
	    word_at(s, 0, "catalog"))
		return 0;
	if ((name = name_at(s, &db)) == NULL || !at_end(s)) {
		free(name);
		free(db);
		return 0;
	}
	if (!default_db(db)) {
		rc = schema_not_found(db, err);
		free(name);
		free(db);
		return rc;
	}
	sc_buf_init(&ident, SC_BUF_UNLIMITED);
	sc_eng_quote_ident(&ident, name);
	sc_buf_addch(&ident, '\0', NULL);
	nt.unparsed_identifier = (char *)ident.data;
	rd.read_type_case = SPARK__CONNECT__READ__READ_TYPE_NAMED_TABLE;
	rd.named_table = &nt;
	rel.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_READ;
	rel.read = &rd;
	sc_eplan_init(&in);
	memset(&t, 0, sizeof(t));
	if (sc_eng_translate(s->x, &rel, &in, err) == -1 ||
	    sc_eng_exec_plan(s->x, &in, NULL, NULL, true, &cols, &ncols, err) ==
		-1)
		goto out;
	table_col(&t, "col_name", SC_ARROW_UTF8, 0);
	table_col(&t, "data_type", SC_ARROW_UTF8, 0);
	table_col(&t, "comment", SC_ARROW_UTF8, 1);
	for (i = 0; i < ncols; i++) {
		ty = type_name(&cols[i].type);
		row[0] = cols[i].name;
		row[1] = ty;
		row[2] = NULL;
		table_row(&t, row);
		free(ty);
	}
	table_plan(&t, p);
	rc = 1;
out:
	sc_ecols_free(cols, ncols);
	table_release(&t);
	sc_eplan_release(&in);
	sc_buf_release(&ident);
	free(name);
	free(db);
	return rc;
}

/* The text of tokens [from, to) as written. */
static char *
span(const struct stmt *s, size_t from, size_t to)
{
	size_t a, b;

	if (from >= to)
		return sc_xstrdup("");
	a = s->t[from].off;
	b = s->t[to - 1].off + s->t[to - 1].n;
	return sc_xstrndup(s->src + a, b - a);
}

static void
kv_add(const char *key, const char *value, void *arg)
{
	const char *row[2] = { key, value };

	table_row(arg, row);
}

/* SET; SET key; SET key = value; SET -v; RESET [key]. */
static int
set_stmt(struct stmt *s, bool reset, struct sc_eplan *p, struct sc_error *err)
{
	void *owner = s->x->c->owner;
	struct table t;
	const char *row[2];
	char *key = NULL, *value = NULL, *v;
	size_t start = s->i, eq, end;
	int rc = -1;

	if (conf_ops == NULL || owner == NULL)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.SQL_STATEMENT",
		    "0A000",
		    "The feature is not supported: SET without a session.");
	/* The statement's end, without trailing ';'. */
	for (end = s->i; s->t[end].kind != SC_TK_EOF; end++)
		;
	while (end > start && s->t[end - 1].kind == SC_TK_OP &&
	    s->t[end - 1].s[0] == ';')
		end--;
	for (eq = start; eq < end; eq++)
		if (s->t[eq].kind == SC_TK_OP && s->t[eq].n == 1 &&
		    s->t[eq].s[0] == '=')
			break;
	if (start < end && s->t[start].kind == SC_TK_OP &&
	    s->t[start].s[0] == '-')
		return 0; /* SET -v */
	memset(&t, 0, sizeof(t));
	if (reset) {
		if (start < end) {
			key = span(s, start, end);
			rc = conf_ops->unset(owner, key, err) == -1 ? -1 : 1;
		} else {
			rc = conf_ops->unset(owner, NULL, err) == -1 ? -1 : 1;
		}
		if (rc == 1)
			no_result(p);
		free(key);
		return rc;
	}
	table_col(&t, "key", SC_ARROW_UTF8, 0);
	table_col(&t, "value", SC_ARROW_UTF8, 1);
	if (start == end) {
		conf_ops->each(owner, kv_add, &t);
	} else if (eq == end) {
		key = span(s, start, end);
		v = conf_ops->get(owner, key);
		row[0] = key;
		row[1] = v != NULL ? v : "<undefined>";
		table_row(&t, row);
		free(v);
	} else {
		key = span(s, start, eq);
		value = span(s, eq + 1, end);
		if (eq + 2 == end && s->t[eq + 1].kind == SC_TK_STRING) {
			free(value);
			value =
			    sc_xstrndup((const char *)s->t[eq + 1].text.data,
				s->t[eq + 1].text.len);
		}
		if (key[0] == '\0') {
			rc = sc_srv_error(err, "INVALID_SET_SYNTAX", "42000",
			    "Expected format is 'SET', 'SET key', or 'SET "
			    "key=value'.");
			goto out;
		}
		if (conf_ops->set(owner, key, value, err) == -1)
			goto out;
		row[0] = key;
		row[1] = value;
		table_row(&t, row);
	}
	table_plan(&t, p);
	rc = 1;
out:
	table_release(&t);
	free(key);
	free(value);
	return rc;
}

/* EXPLAIN [EXTENDED|CODEGEN|COST|FORMATTED] query: one row, "plan". */
static int
explain(struct stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	Spark__Connect__Relation rel = SPARK__CONNECT__RELATION__INIT;
	Spark__Connect__SQL q = SPARK__CONNECT__SQL__INIT;
	struct table t;
	const char *row[1];
	char *text = NULL, *query;
	int mode = 1, rc;

	if (accept(s, "extended"))
		mode = 2;
	else if (accept(s, "codegen"))
		mode = 3;
	else if (accept(s, "cost"))
		mode = 4;
	else if (accept(s, "formatted"))
		mode = 5;
	query = sc_xstrdup(s->src + tk(s, 0)->off);
	q.query = query;
	rel.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SQL;
	rel.sql = &q;
	rc = sc_engine_explain(s->x->c, &rel, mode, &text, err);
	free(query);
	if (rc == -1)
		return -1;
	memset(&t, 0, sizeof(t));
	table_col(&t, "plan", SC_ARROW_UTF8, 0);
	row[0] = text;
	table_row(&t, row);
	free(text);
	table_plan(&t, p);
	table_release(&t);
	return 1;
}

static int
statement(struct stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	char *db;
	int rc;

	if (accept(s, "show")) {
		if (accept(s, "tables"))
			return show_tables(s, p, err);
		if (accept(s, "databases") || accept(s, "schemas") ||
		    accept(s, "namespaces"))
			return show_databases(s, p);
		return 0;
	}
	if (accept(s, "describe") || accept(s, "desc"))
		return describe(s, p, err);
	if (accept(s, "set"))
		return set_stmt(s, false, p, err);
	if (accept(s, "reset"))
		return set_stmt(s, true, p, err);
	if (accept(s, "explain"))
		return explain(s, p, err);
	if (accept(s, "use")) {
		if (!accept(s, "database") && !accept(s, "schema"))
			accept(s, "namespace");
		db = name_at(s, NULL);
		if (db == NULL || !at_end(s)) {
			free(db);
			return 0;
		}
		rc = default_db(db) ? 1 : schema_not_found(db, err);
		free(db);
		if (rc == 1)
			no_result(p);
		return rc;
	}
	if (word_at(s, 0, "create") &&
	    (word_at(s, 1, "database") || word_at(s, 1, "schema") ||
		word_at(s, 1, "namespace"))) {
		bool ifne = false;

		s->i += 2;
		if (accept(s, "if")) {
			if (!accept(s, "not") || !accept(s, "exists"))
				return 0;
			ifne = true;
		}
		if ((db = name_at(s, NULL)) == NULL)
			return 0;
		if (strcasecmp(db, "default") != 0)
			rc = unsupported(err, "CREATE DATABASE");
		else if (!ifne)
			rc = sc_srv_error(err, "SCHEMA_ALREADY_EXISTS", "42P06",
			    "Cannot create schema `default` because it "
			    "already exists.");
		else {
			no_result(p);
			rc = 1;
		}
		free(db);
		return rc;
	}
	if (word_at(s, 0, "drop") &&
	    (word_at(s, 1, "database") || word_at(s, 1, "schema") ||
		word_at(s, 1, "namespace")))
		return unsupported(err, "DROP DATABASE");
	if (accept(s, "cache")) {
		accept(s, "lazy");
		if (!accept(s, "table") || (db = name_at(s, NULL)) == NULL)
			return 0;
		free(db);
		if (!at_end(s))
			return unsupported(err, "CACHE TABLE ... AS");
		no_result(p); /* nothing is cached: a no-op */
		return 1;
	}
	if (accept(s, "uncache") ||
	    (accept(s, "clear") && accept(s, "cache")) ||
	    accept(s, "refresh")) {
		no_result(p);
		return 1;
	}
	return 0;
}

int
sc_eng_statement(struct sc_ectx *x, const char *text, struct sc_eplan *p,
    struct sc_error *err)
{
	static const char *const starts[] = { "show", "describe", "desc", "set",
		"reset", "explain", "use", "create", "drop", "cache", "uncache",
		"clear", "refresh", NULL };
	struct stmt s;
	int rc;

	if (!sc_sqllex_first_word(text, starts))
		return 0;
	memset(&s, 0, sizeof(s));
	s.x = x;
	s.src = text;
	if (sc_sqllex(text, &s.t, &s.n) == -1)
		return 0;
	rc = statement(&s, p, err);
	sc_sqllex_free(s.t, s.n);
	return rc;
}
