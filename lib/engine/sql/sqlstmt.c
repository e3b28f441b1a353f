/* SPDX-License-Identifier: MIT */

/*
 * sqlstmt.c: Spark SQL statements, answered with the rows and columns
 * Spark gives: SHOW TABLES, SHOW DATABASES (SCHEMAS, NAMESPACES), SHOW
 * CURRENT NAMESPACE, DESCRIBE [TABLE], SET and RESET, USE, CREATE and
 * DROP DATABASE (engine_db.c keeps the databases), CACHE, UNCACHE, CLEAR
 * CACHE and REFRESH (no-ops: nothing is cached), and EXPLAIN; the table
 * statements are sqldml.c's.  Each becomes SQL the engine writes, whose
 * result columns carry Spark's names and types; text that is no
 * statement of Spark's is its PARSE_SYNTAX_ERROR.
 */

#include "engine/engine_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/sql/sqlparse.h"
#include "engine/sql/sqlstmt_int.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* The session settings SET reads and writes (sc_engine_set_conf()). */
static const struct sc_engine_conf_ops *conf_ops;

void
sc_engine_set_conf(struct sc_engine *e, const struct sc_engine_conf_ops *ops)
{
	(void)e;
	conf_ops = ops;
}

/* A boolean setting as Spark reads it (true/false, any case, trimmed). */
static bool
conf_bool(void *owner, const char *key, bool dflt)
{
	char *v = conf_ops->get(owner, key);
	const char *p = v;
	size_t n;
	bool b = dflt;

	while (p != NULL && *p != '\0' && (unsigned char)*p <= ' ')
		p++;
	n = p != NULL ? strlen(p) : 0;
	while (n > 0 && (unsigned char)p[n - 1] <= ' ')
		n--;
	if (n == 4 && strncasecmp(p, "true", 4) == 0)
		b = true;
	else if (n == 5 && strncasecmp(p, "false", 5) == 0)
		b = false;
	free(v);
	return b;
}

/* A count setting (0 to INT_MAX); dflt when unset or not a count. */
static int
conf_count(void *owner, const char *key, int dflt)
{
	char *v = conf_ops->get(owner, key), *end;
	long long n;
	int r = dflt;

	if (v != NULL) {
		n = strtoll(v, &end, 10);
		if (end != v && *end == '\0' && n >= 0 && n <= INT_MAX)
			r = (int)n;
	}
	free(v);
	return r;
}

void
sc_eng_read_mode(struct sc_engine_conn *c, struct sc_emode *m)
{
	char *v;

	m->ansi = true;
	m->case_sensitive = false;
	snprintf(m->tz, sizeof(m->tz), "UTC");
	m->transpose_max = 500;
	if (conf_ops == NULL || c->owner == NULL)
		return;
	m->transpose_max =
	    conf_count(c->owner, "spark.sql.transposeMaxValues", 500);
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
	p->cols = t->cols;
	p->ncols = t->ncols;
	t->cols = NULL; /* t->ncols stays: it counts the cells to free */
}

void
sc_stmt_no_result(struct sc_eplan *p)
{
	sc_buf_reset(&p->sql);
	sc_buf_addstr(&p->sql, "-- nothing to do", NULL);
}

/* ------------------------------------------------------------------ */
/* Statements                                                          */
/* ------------------------------------------------------------------ */

const struct sc_sqltok *
sc_stmt_tk(const struct sc_stmt *s, size_t k)
{
	return s->i + k < s->n ? &s->t[s->i + k] : &s->t[s->n - 1];
}

bool
sc_stmt_word_at(const struct sc_stmt *s, size_t k, const char *w)
{
	const struct sc_sqltok *t = sc_stmt_tk(s, k);

	return t->kind == SC_TK_WORD && strlen(w) == t->n &&
	    strncasecmp(t->s, w, t->n) == 0;
}

bool
sc_stmt_accept(struct sc_stmt *s, const char *w)
{
	if (!sc_stmt_word_at(s, 0, w))
		return false;
	s->i++;
	return true;
}

bool
sc_stmt_at_end(const struct sc_stmt *s)
{
	size_t k = 0;

	while (sc_stmt_tk(s, k)->kind == SC_TK_OP && sc_stmt_tk(s, k)->n == 1 &&
	    sc_stmt_tk(s, k)->s[0] == ';')
		k++;
	return sc_stmt_tk(s, k)->kind == SC_TK_EOF;
}

/* A possibly qualified name at the cursor, parts unquoted; NULL if none. */
char *
sc_stmt_name_at(struct sc_stmt *s, char **db)
{
	const struct sc_sqltok *t;
	char *parts[3] = { NULL, NULL, NULL };
	size_t n = 0, i;
	char *last;

	for (;;) {
		t = sc_stmt_tk(s, 0);
		if (t->kind == SC_TK_QIDENT)
			parts[n] = sc_xstrndup((const char *)t->text.data,
			    t->text.len);
		else if (t->kind == SC_TK_WORD)
			parts[n] = sc_xstrndup(t->s, t->n);
		else
			break;
		n++;
		s->i++;
		if (n == 3 || sc_stmt_tk(s, 0)->kind != SC_TK_OP ||
		    sc_stmt_tk(s, 0)->n != 1 || sc_stmt_tk(s, 0)->s[0] != '.')
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

/* SHOW TABLES [FROM|IN db] [[LIKE] 'pattern']. */
static int
show_tables(struct sc_stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	static const char *const fmt[] = {
		"SELECT name FROM \"%w\".sqlite_schema WHERE type IN "
		"('table', 'view') AND name NOT LIKE 'sqlite\\_%%' ESCAPE '\\' "
		"ORDER BY name",
		"SELECT name FROM temp.sqlite_schema WHERE type IN "
		"('table', 'view') AND name NOT LIKE 'sqlite\\_%%' ESCAPE '\\' "
		"AND name NOT LIKE '\\_sc\\_%%' ESCAPE '\\' ORDER BY name",
	};
	struct table t;
	sqlite3_stmt *st;
	const char *row[3];
	char *db = NULL, *like = NULL, *schema = NULL, *ns = NULL, *q;
	size_t k;
	int rc;

	if (sc_stmt_accept(s, "from") || sc_stmt_accept(s, "in")) {
		if ((db = sc_stmt_name_at(s, NULL)) == NULL)
			return 0;
	}
	sc_stmt_accept(s, "like");
	if (sc_stmt_tk(s, 0)->kind == SC_TK_STRING) {
		like = sc_xstrndup((const char *)sc_stmt_tk(s, 0)->text.data,
		    sc_stmt_tk(s, 0)->text.len);
		s->i++;
	}
	if (!sc_stmt_at_end(s)) {
		free(db);
		free(like);
		return 0;
	}
	if (sc_eng_db_schema(s->x, db, &schema, err) == -1) {
		free(db);
		free(like);
		return -1;
	}
	ns = db != NULL ? sc_xstrdup(db) : sc_eng_db_current(s->x->c);
	for (k = 0; ns[k] != '\0'; k++)
		if (ns[k] >= 'A' && ns[k] <= 'Z')
			ns[k] = (char)(ns[k] - 'A' + 'a');
	memset(&t, 0, sizeof(t));
	table_col(&t, "namespace", SC_ARROW_UTF8, 0);
	table_col(&t, "tableName", SC_ARROW_UTF8, 0);
	table_col(&t, "isTemporary", SC_ARROW_BOOL, 0);
	rc = SQLITE_DONE;
	for (k = 0; k < 2 && rc == SQLITE_DONE; k++) {
		q = sqlite3_mprintf(fmt[k], schema);
		rc = sc_eng_prepare(s->x, q, strlen(q), &st, NULL, err);
		sqlite3_free(q);
		if (rc == -1)
			break;
		while ((rc = sc_eng_step(s->x, st)) == SQLITE_ROW) {
			const char *name =
			    (const char *)sqlite3_column_text(st, 0);

			if (like != NULL && !sc_eng_db_match(like, name))
				continue;
			row[0] = k == 0 ? ns : "";
			row[1] = name;
			row[2] = k == 0 ? "false" : "true";
			table_row(&t, row);
		}
		if (rc != SQLITE_DONE)
			sc_eng_sqlite_error(s->x, rc, err);
		sqlite3_finalize(st);
	}
	free(like);
	free(db);
	free(ns);
	free(schema);
	if (rc != SQLITE_DONE) {
		table_release(&t);
		return -1;
	}
	table_plan(&t, p);
	table_release(&t);
	return 1;
}

static int
show_databases(struct sc_stmt *s, struct sc_eplan *p)
{
	struct table t;
	char **names, *like = NULL;
	size_t i, n;

	sc_stmt_accept(s, "like");
	if (sc_stmt_tk(s, 0)->kind == SC_TK_STRING) {
		like = sc_xstrndup((const char *)sc_stmt_tk(s, 0)->text.data,
		    sc_stmt_tk(s, 0)->text.len);
		s->i++;
	}
	if (!sc_stmt_at_end(s)) {
		free(like);
		return 0;
	}
	memset(&t, 0, sizeof(t));
	table_col(&t, "namespace", SC_ARROW_UTF8, 0);
	names = sc_eng_db_names(s->x->c->e, &n);
	for (i = 0; i < n; i++) {
		if (like == NULL || sc_eng_db_match(like, names[i]))
			table_row(&t, (const char *const *)&names[i]);
		free(names[i]);
	}
	free(names);
	free(like);
	table_plan(&t, p);
	table_release(&t);
	return 1;
}

/* SHOW CURRENT NAMESPACE: catalog, namespace. */
static int
show_current(struct sc_stmt *s, struct sc_eplan *p)
{
	struct table t;
	const char *row[2];
	char *db = sc_eng_db_current(s->x->c);

	memset(&t, 0, sizeof(t));
	table_col(&t, "catalog", SC_ARROW_UTF8, 0);
	table_col(&t, "namespace", SC_ARROW_UTF8, 0);
	row[0] = "spark_catalog";
	row[1] = db;
	table_row(&t, row);
	free(db);
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

int
sc_stmt_read_table(struct sc_stmt *s, const char *ident, struct sc_eplan *in,
    struct sc_error *err)
{
	Spark__Connect__Relation rel = SPARK__CONNECT__RELATION__INIT;
	Spark__Connect__Read rd = SPARK__CONNECT__READ__INIT;
	Spark__Connect__Read__NamedTable nt =
	    SPARK__CONNECT__READ__NAMED_TABLE__INIT;

	nt.unparsed_identifier = (char *)ident;
	rd.read_type_case = SPARK__CONNECT__READ__READ_TYPE_NAMED_TABLE;
	rd.named_table = &nt;
	rel.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_READ;
	rel.read = &rd;
	return sc_eng_translate(s->x, &rel, in, err);
}

/* DESCRIBE [TABLE] [EXTENDED] name: col_name, data_type, comment. */
static int
describe(struct sc_stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	struct sc_eplan in;
	struct table t;
	struct sc_ecol *cols = NULL;
	size_t ncols = 0;
	const char *row[3];
	char *name, *db = NULL, *ty;
	struct sc_buf ident;
	size_t i;
	int rc = -1;

	sc_stmt_accept(s, "table");
	if (sc_stmt_accept(s, "extended") || sc_stmt_accept(s, "formatted"))
		return 0;
	if (sc_stmt_word_at(s, 0, "function") ||
	    sc_stmt_word_at(s, 0, "database") ||
	    sc_stmt_word_at(s, 0, "schema") || sc_stmt_word_at(s, 0, "query") ||
	    sc_stmt_word_at(s, 0, "catalog"))
		return 0;
	if ((name = sc_stmt_name_at(s, &db)) == NULL || !sc_stmt_at_end(s)) {
		free(name);
		free(db);
		return 0;
	}
	sc_buf_init(&ident, SC_BUF_UNLIMITED);
	if (db != NULL) {
		sc_eng_quote_ident(&ident, db);
		sc_buf_addch(&ident, '.', NULL);
	}
	sc_eng_quote_ident(&ident, name);
	sc_buf_addch(&ident, '\0', NULL);
	sc_eplan_init(&in);
	memset(&t, 0, sizeof(t));
	if (sc_stmt_read_table(s, (const char *)ident.data, &in, err) == -1 ||
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

char *
sc_stmt_span(const struct sc_stmt *s, size_t from, size_t to)
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

/*
 * SET TIME ZONE 'zone' | LOCAL: Spark's spelling of setting
 * spark.sql.session.timeZone (LOCAL: the server's own zone, UTC); the
 * INTERVAL form is refused.
 */
static int
set_time_zone(struct sc_stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	static const char *const key = "spark.sql.session.timeZone";
	const struct sc_sqltok *v;
	struct table t;
	const char *row[2];
	char *value;
	int rc = -1;

	s->i += 2;
	v = sc_stmt_tk(s, 0);
	if (v->kind == SC_TK_STRING)
		value = sc_xstrndup((const char *)v->text.data, v->text.len);
	else if (sc_stmt_word_at(s, 0, "local"))
		value = sc_xstrdup("UTC");
	else
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.SQL_STATEMENT",
		    "0A000",
		    "The feature is not supported: SET TIME ZONE other than "
		    "'zone' or LOCAL.");
	s->i++;
	if (!sc_stmt_at_end(s)) {
		free(value);
		return sc_srv_error(err, "INVALID_SET_SYNTAX", "42000",
		    "Expected format is 'SET', 'SET key', or 'SET "
		    "key=value'.");
	}
	if (conf_ops->set(s->x->c->owner, key, value, err) == 0) {
		memset(&t, 0, sizeof(t));
		table_col(&t, "key", SC_ARROW_UTF8, 0);
		table_col(&t, "value", SC_ARROW_UTF8, 1);
		row[0] = key;
		row[1] = value;
		table_row(&t, row);
		table_plan(&t, p);
		table_release(&t);
		rc = 1;
	}
	free(value);
	return rc;
}

/* SET; SET key; SET key = value; SET -v; RESET [key]. */
static int
set_stmt(struct sc_stmt *s, bool reset, struct sc_eplan *p,
    struct sc_error *err)
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
	if (!reset && sc_stmt_word_at(s, 0, "time") &&
	    sc_stmt_word_at(s, 1, "zone"))
		return set_time_zone(s, p, err);
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
			key = sc_stmt_span(s, start, end);
			rc = conf_ops->unset(owner, key, err) == -1 ? -1 : 1;
		} else {
			rc = conf_ops->unset(owner, NULL, err) == -1 ? -1 : 1;
		}
		if (rc == 1)
			sc_stmt_no_result(p);
		free(key);
		return rc;
	}
	table_col(&t, "key", SC_ARROW_UTF8, 0);
	table_col(&t, "value", SC_ARROW_UTF8, 1);
	if (start == end) {
		conf_ops->each(owner, kv_add, &t);
	} else if (eq == end) {
		key = sc_stmt_span(s, start, end);
		v = conf_ops->get(owner, key);
		row[0] = key;
		row[1] = v != NULL ? v : "<undefined>";
		table_row(&t, row);
		free(v);
	} else {
		key = sc_stmt_span(s, start, eq);
		value = sc_stmt_span(s, eq + 1, end);
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
explain(struct sc_stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	Spark__Connect__Relation rel = SPARK__CONNECT__RELATION__INIT;
	Spark__Connect__SQL q = SPARK__CONNECT__SQL__INIT;
	struct table t;
	const char *row[1];
	char *text = NULL, *query;
	int mode = 1, rc;

	if (sc_stmt_accept(s, "extended"))
		mode = 2;
	else if (sc_stmt_accept(s, "codegen"))
		mode = 3;
	else if (sc_stmt_accept(s, "cost"))
		mode = 4;
	else if (sc_stmt_accept(s, "formatted"))
		mode = 5;
	query = sc_xstrdup(s->src + sc_stmt_tk(s, 0)->off);
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

/* A string literal at the cursor (COMMENT 'x', LOCATION 'x'). */
static bool
string_at(struct sc_stmt *s)
{
	if (sc_stmt_tk(s, 0)->kind != SC_TK_STRING)
		return false;
	s->i++;
	return true;
}

/*
 * CREATE DATABASE|SCHEMA|NAMESPACE [IF NOT EXISTS] name [COMMENT 'c']
 * [WITH DBPROPERTIES (...)]; a LOCATION is refused.
 */
static int
create_db(struct sc_stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	bool ifne = false;
	char *db, *cat = NULL;
	int depth, rc;

	s->i += 2;
	if (sc_stmt_accept(s, "if")) {
		if (!sc_stmt_accept(s, "not") || !sc_stmt_accept(s, "exists"))
			return 0;
		ifne = true;
	}
	if ((db = sc_stmt_name_at(s, &cat)) == NULL)
		return 0;
	if (cat != NULL && strcasecmp(cat, "spark_catalog") != 0) {
		rc = sc_srv_error(err, "REQUIRES_SINGLE_PART_NAMESPACE",
		    "42K05",
		    "spark_catalog requires a single-part namespace, but got "
		    "`%s`.`%s`.",
		    cat, db);
		goto out;
	}
	for (;;) {
		if (sc_stmt_accept(s, "comment")) {
			if (!string_at(s))
				break;
		} else if (sc_stmt_word_at(s, 0, "location")) {
			rc = sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.SQL_STATEMENT", "0A000",
			    "The feature is not supported: CREATE DATABASE ... "
			    "LOCATION; sc-serve keeps a database beside its "
			    "own.");
			goto out;
		} else if (sc_stmt_accept(s, "with")) {
			if (!sc_stmt_accept(s, "dbproperties") &&
			    !sc_stmt_accept(s, "properties"))
				break;
			if (sc_stmt_tk(s, 0)->kind != SC_TK_OP ||
			    sc_stmt_tk(s, 0)->s[0] != '(')
				break;
			/*
			 * Accepted and not kept: sc-serve has no DESCRIBE
			 * DATABASE EXTENDED to show them.
			 */
			for (depth = 0; sc_stmt_tk(s, 0)->kind != SC_TK_EOF;
			     s->i++) {
				if (sc_stmt_tk(s, 0)->kind == SC_TK_OP &&
				    sc_stmt_tk(s, 0)->s[0] == '(')
					depth++;
				else if (sc_stmt_tk(s, 0)->kind == SC_TK_OP &&
				    sc_stmt_tk(s, 0)->s[0] == ')' &&
				    --depth == 0) {
					s->i++;
					break;
				}
			}
		} else {
			break;
		}
	}
	if (!sc_stmt_at_end(s)) {
		rc = 0;
		goto out;
	}
	rc = sc_eng_db_create(s->x, db, ifne, err) == -1 ? -1 : 1;
	if (rc == 1)
		sc_stmt_no_result(p);
out:
	free(db);
	free(cat);
	return rc;
}

/* DROP DATABASE|SCHEMA|NAMESPACE [IF EXISTS] name [RESTRICT|CASCADE]. */
static int
drop_db(struct sc_stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	bool ifex = false, cascade = false;
	char *db;
	int rc;

	s->i += 2;
	if (sc_stmt_accept(s, "if")) {
		if (!sc_stmt_accept(s, "exists"))
			return 0;
		ifex = true;
	}
	if ((db = sc_stmt_name_at(s, NULL)) == NULL)
		return 0;
	if (sc_stmt_accept(s, "cascade"))
		cascade = true;
	else
		sc_stmt_accept(s, "restrict");
	if (!sc_stmt_at_end(s)) {
		free(db);
		return 0;
	}
	rc = sc_eng_db_drop(s->x, db, ifex, cascade, err) == -1 ? -1 : 1;
	if (rc == 1)
		sc_stmt_no_result(p);
	free(db);
	return rc;
}

static int
statement(struct sc_stmt *s, struct sc_eplan *p, struct sc_error *err)
{
	char *db;
	int rc;

	if (sc_stmt_accept(s, "show")) {
		if (sc_stmt_accept(s, "tables"))
			return show_tables(s, p, err);
		if (sc_stmt_accept(s, "databases") ||
		    sc_stmt_accept(s, "schemas") ||
		    sc_stmt_accept(s, "namespaces"))
			return show_databases(s, p);
		if (sc_stmt_accept(s, "current") &&
		    sc_stmt_accept(s, "namespace") && sc_stmt_at_end(s))
			return show_current(s, p);
		return 0;
	}
	if (sc_stmt_accept(s, "describe") || sc_stmt_accept(s, "desc"))
		return describe(s, p, err);
	if (sc_stmt_accept(s, "set"))
		return set_stmt(s, false, p, err);
	if (sc_stmt_accept(s, "reset"))
		return set_stmt(s, true, p, err);
	if (sc_stmt_accept(s, "explain"))
		return explain(s, p, err);
	if (sc_stmt_accept(s, "use")) {
		if (!sc_stmt_accept(s, "database") &&
		    !sc_stmt_accept(s, "schema"))
			sc_stmt_accept(s, "namespace");
		db = sc_stmt_name_at(s, NULL);
		if (db == NULL || !sc_stmt_at_end(s)) {
			free(db);
			return 0;
		}
		rc = sc_eng_db_use(s->x, db, err) == -1 ? -1 : 1;
		free(db);
		if (rc == 1)
			sc_stmt_no_result(p);
		return rc;
	}
	if (sc_stmt_word_at(s, 0, "create") &&
	    (sc_stmt_word_at(s, 1, "database") ||
		sc_stmt_word_at(s, 1, "schema") ||
		sc_stmt_word_at(s, 1, "namespace")))
		return create_db(s, p, err);
	if (sc_stmt_word_at(s, 0, "drop") &&
	    (sc_stmt_word_at(s, 1, "database") ||
		sc_stmt_word_at(s, 1, "schema") ||
		sc_stmt_word_at(s, 1, "namespace")))
		return drop_db(s, p, err);
	if ((rc = sc_stmt_dml(s, p, err)) != 0)
		return rc;
	if (sc_stmt_accept(s, "cache")) {
		sc_stmt_accept(s, "lazy");
		if (!sc_stmt_accept(s, "table") ||
		    (db = sc_stmt_name_at(s, NULL)) == NULL)
			return 0;
		free(db);
		if (!sc_stmt_at_end(s))
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.SQL_STATEMENT", "0A000",
			    "The feature is not supported: CACHE TABLE ... AS.");
		sc_stmt_no_result(p); /* nothing is cached: a no-op */
		return 1;
	}
	if (sc_stmt_accept(s, "uncache") ||
	    (sc_stmt_accept(s, "clear") && sc_stmt_accept(s, "cache")) ||
	    sc_stmt_accept(s, "refresh")) {
		sc_stmt_no_result(p);
		return 1;
	}
	return 0;
}

int
sc_eng_statement(struct sc_ectx *x, const char *text,
    const Spark__Connect__SQL *args, struct sc_eplan *p, struct sc_error *err)
{
	static const char *const queries[] = { "select", "values", "with",
		"table", NULL };
	struct sc_stmt s;
	int rc;

	if (sc_sqllex_first_word(text, queries))
		return 0;
	memset(&s, 0, sizeof(s));
	s.x = x;
	s.src = text;
	s.args = args;
	if (sc_sqllex(text, &s.t, &s.n) == -1)
		return sc_srv_error(err, "PARSE_SYNTAX_ERROR", "42601",
		    "Syntax error at or near an unclosed string, identifier or comment.");
	rc = statement(&s, p, err);
	/* No statement of Spark's (PRAGMA, VACUUM, ...), or not all of one. */
	if (rc == 0)
		rc = sc_sqlp_syntax_error(sc_stmt_tk(&s, 0), err);
	sc_sqllex_free(s.t, s.n);
	return rc;
}
