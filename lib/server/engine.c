/* SPDX-License-Identifier: MIT */

/*
 * engine.c: the SQLite engine's database and connections, calls on a
 * connection (statements, parameters, cancellation), SQLite errors as
 * Spark errors, and the entry points: running a plan, SqlCommand and
 * AnalyzePlan.  Translation is in engine_plan.c (relations),
 * engine_expr.c (expressions) and engine_dialect.c (SQL text); running a
 * translated plan into Arrow batches in engine_run.c.
 */

#include "server/engine_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/error.h"
#include "core/xmem.h"
#include "server/server.h"
#include "server/sqlparse.h"
#include "server/srverror.h"
#include "core/banned.h"

/* SQLite checks the cancel flag every this many VM instructions. */
#define PROGRESS_OPS 1000

static atomic_uint memdb_seq;

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

int
sc_eng_canceled(struct sc_error *err)
{
	return sc_srv_error(err, "OPERATION_CANCELED", "HY008",
	    "Operation has been canceled.");
}

/*
 * Quote a possibly qualified SQLite name as `a`.`b`.  A name that save_error()
 * cut short ends in its "..." marker, which stays one: `a`.`bc...`.
 */
static void
backquote(struct sc_buf *b, const char *s, size_t n, bool cut)
{
	size_t i;

	if (cut && n >= 3)
		n -= 3;
	sc_buf_addch(b, '`', NULL);
	for (i = 0; i < n; i++) {
		if (s[i] == '.')
			sc_buf_addstr(b, "`.`", NULL);
		else
			sc_buf_addch(b, s[i], NULL);
	}
	if (cut)
		sc_buf_addstr(b, "...", NULL);
	sc_buf_addch(b, '`', NULL);
}

/* A message already in Spark's form "[CLASS] text SQLSTATE: xxxxx". */
static int
spark_form(const char *msg, struct sc_error *err)
{
	const char *close, *st;
	char cls[128], state[8];
	size_t cl, tl;

	if (msg[0] != '[' || (close = strchr(msg, ']')) == NULL ||
	    close[1] != ' ')
		return 0;
	st = strstr(close, " SQLSTATE: ");
	if (st == NULL || strlen(st + 11) != 5)
		return 0;
	cl = (size_t)(close - msg - 1);
	if (cl == 0 || cl >= sizeof(cls))
		return 0;
	memcpy(cls, msg + 1, cl);
	cls[cl] = '\0';
	memcpy(state, st + 11, 6);
	tl = (size_t)(st - (close + 2));
	sc_srv_error(err, cls, state, "%.*s", (int)tl, close + 2);
	return 1;
}

/* Whether run r has been told to stop. */
bool
sc_eng_is_canceled(const struct sc_erun *r)
{
	return atomic_load(&r->cancel) != 0 ||
	    (r->ext != NULL && atomic_load(r->ext) != 0);
}

/*
 * The error of x's last failed SQLite call (rc, its message saved in
 * x->run->errmsg by the wrappers below) as a Spark error; see the table
 * in engine.h.
 */
int
sc_eng_sqlite_error(struct sc_ectx *x, int rc, struct sc_error *err)
{
	const char *msg = x->run->errmsg, *p;
	struct sc_buf b;
	int ret;
	size_t n;

	if (sc_eng_guard_error(x, rc, msg, err) == -1)
		return -1;
	if ((rc & 0xff) == SQLITE_INTERRUPT || sc_eng_is_canceled(x->run))
		return sc_eng_canceled(err);
	if (spark_form(msg, err))
		return -1;
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	if (strncmp(msg, "no such table: ", 15) == 0 ||
	    strncmp(msg, "no such view: ", 14) == 0) {
		p = strchr(msg, ':') + 2;
		backquote(&b, p, strlen(p), x->run->errcut);
		ret = sc_srv_error(err, "TABLE_OR_VIEW_NOT_FOUND", "42P01",
		    "The table or view %s cannot be found. Verify the "
		    "spelling and correctness of the schema and catalog.",
		    (const char *)b.data);
	} else if (strncmp(msg, "no such column: ", 16) == 0) {
		p = msg + 16;
		backquote(&b, p, strlen(p), x->run->errcut);
		ret = sc_srv_error(err, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
		    "42703",
		    "A column, variable, or function parameter with "
		    "name %s cannot be resolved.",
		    (const char *)b.data);
	} else if (strncmp(msg, "no such function: ", 18) == 0) {
		p = msg + 18;
		backquote(&b, p, strlen(p), x->run->errcut);
		ret = sc_srv_error(err, "UNRESOLVED_ROUTINE", "42883",
		    "Cannot resolve routine %s on search path "
		    "[`system`.`builtin`, `system`.`session`, `main`].",
		    (const char *)b.data);
	} else if (strncmp(msg, "near \"", 6) == 0 &&
	    strstr(msg, "\": syntax error") != NULL) {
		n = (size_t)(strstr(msg, "\": syntax error") - (msg + 6));
		ret = sc_srv_error(err, "PARSE_SYNTAX_ERROR", "42601",
		    "Syntax error at or near '%.*s'.", (int)n, msg + 6);
	} else if (strcmp(msg, "incomplete input") == 0) {
		ret = sc_srv_error(err, "PARSE_SYNTAX_ERROR", "42601",
		    "Syntax error at or near end of input.");
	} else if (strncmp(msg, "unrecognized token: ", 20) == 0) {
		ret = sc_srv_error(err, "PARSE_SYNTAX_ERROR", "42601",
		    "Syntax error at or near %s.", msg + 20);
	} else if (strstr(msg, " already exists") != NULL &&
	    (strncmp(msg, "table ", 6) == 0 || strncmp(msg, "view ", 5) == 0)) {
		p = strchr(msg, ' ') + 1;
		n = (size_t)(strstr(p, " already exists") - p);
		backquote(&b, p, n, false);
		ret = sc_srv_error(err, "TABLE_OR_VIEW_ALREADY_EXISTS", "42P07",
		    "Cannot create table or view %s because it "
		    "already exists.",
		    (const char *)b.data);
	} else if ((rc & 0xff) == SQLITE_CONSTRAINT) {
		ret = sc_srv_error(err, "CONSTRAINT_VIOLATION", "23000", "%s.",
		    msg);
	} else if ((rc & 0xff) == SQLITE_FULL) {
		/* The disk under --database, as ARTIFACT_STORE_FULL. */
		ret = sc_srv_error(err, "DATABASE_FULL", "53100",
		    "The database is out of space (%s); the statement was "
		    "rolled back.",
		    msg);
		if (err != NULL)
			err->rpc_code = SC_GRPC_RESOURCE_EXHAUSTED;
	} else if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) {
		ret = sc_srv_error(err, "SQLITE_BUSY", "40001",
		    "%s (another "
		    "session or operation holds a conflicting lock).",
		    msg);
	} else {
		ret = sc_srv_error(err, "SQLITE_ERROR",
		    (rc & 0xff) == SQLITE_ERROR ? "42000" : "HY000", "%s.",
		    msg);
	}
	sc_buf_release(&b);
	return ret;
}

/*
 * Save the connection's error message for x's call.  The caller holds
 * the connection mutex: another call of the connection could otherwise
 * replace the message in between.  A message too long for errmsg (a
 * long table name) ends in "...", so a cut name is seen to be cut.
 */
static void
save_error(struct sc_ectx *x)
{
	char *m = x->run->errmsg;
	size_t sz = sizeof(x->run->errmsg);

	/* snprintf() may cut a UTF-8 sequence; sc_srv_error_fit() backs off. */
	x->run->errcut = snprintf(m, sz, "%s", sqlite3_errmsg(x->c->db)) >=
	    (int)sz;
	if (x->run->errcut)
		sc_srv_error_fit(m, sz - 2);
}

/* ------------------------------------------------------------------ */
/* Engine and connections                                              */
/* ------------------------------------------------------------------ */

static int
open_db(struct sc_engine *e, sqlite3 **dbp, struct sc_error *err)
{
	sqlite3 *db = NULL;
	int rc;

	rc = sqlite3_open_v2(e->uri, &db, e->flags, e->memdb ? "memdb" : NULL);
	if (rc != SQLITE_OK) {
		sc_error_set(err, SC_ST_IO, "cannot open database '%s': %s",
		    e->memdb ? "(memory)" : e->uri,
		    db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close_v2(db);
		return -1;
	}
	sqlite3_extended_result_codes(db, 0);
	sqlite3_busy_timeout(db, SC_ENGINE_BUSY_TIMEOUT_MS);
	*dbp = db;
	return 0;
}

struct sc_engine *
sc_engine_new(const char *dbfile, struct sc_error *err)
{
	struct sc_engine *e = sc_xcalloc(1, sizeof(*e));
	struct sc_server_conf conf;
	sqlite3_stmt *st;
	const char *mode;
	int rc;

	sc_eng_guard_init();
	sc_server_conf_default(&conf);
	sc_engine_configure(e, &conf);
	/*
	 * FULLMUTEX: the calls of a session may run at the same time.  No
	 * URI: a memdb whose name starts with '/' is shared by every
	 * connection that opens it with the memdb VFS.
	 */
	e->flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_FULLMUTEX;
	if (dbfile == NULL) {
		e->memdb = true;
		e->uri = sc_xasprintf("/sctk-%ld-%u", (long)getpid(),
		    atomic_fetch_add(&memdb_seq, 1));
	} else {
		e->uri = sc_xstrdup(dbfile);
	}
	if (open_db(e, &e->anchor, err) == -1)
		goto fail;
	/*
	 * Write the memdb's first page now, outside any operation: the
	 * database's memory then belongs to no operation's account, also
	 * when it grows later.
	 */
	if (e->memdb &&
	    sqlite3_exec(e->anchor, "PRAGMA user_version=0", NULL, NULL,
		NULL) != SQLITE_OK) {
		sc_error_set(err, SC_ST_INTERNAL,
		    "cannot set up the in-memory database: %s",
		    sqlite3_errmsg(e->anchor));
		goto fail;
	}
	if (!e->memdb) {
		rc = sqlite3_prepare_v2(e->anchor, "PRAGMA journal_mode=WAL",
		    -1, &st, NULL);
		if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
			mode = (const char *)sqlite3_column_text(st, 0);
			if (mode == NULL || strcasecmp(mode, "wal") != 0) {
				sqlite3_finalize(st);
				sc_error_set(err, SC_ST_IO,
				    "cannot use WAL "
				    "mode on database '%s'",
				    dbfile);
				goto fail;
			}
		} else {
			sc_error_set(err, SC_ST_IO,
			    "cannot open database "
			    "'%s': %s",
			    dbfile, sqlite3_errmsg(e->anchor));
			sqlite3_finalize(st);
			goto fail;
		}
		sqlite3_finalize(st);
	}
	return e;
fail:
	sc_engine_free(e);
	return NULL;
}

void
sc_engine_configure(struct sc_engine *e, const struct sc_server_conf *conf)
{
	e->op_memory = conf->sql_op_memory;
	e->max_value = conf->sql_max_value;
	e->heap_limit = conf->sql_heap_limit;
	sc_eng_heap_limit(e->heap_limit);
}

void
sc_engine_free(struct sc_engine *e)
{
	if (e == NULL)
		return;
	sqlite3_close_v2(e->anchor);
	free(e->uri);
	free(e);
}

/* The call the current thread runs, for SQLite's progress handler. */
static _Thread_local struct sc_erun *current_run;

/* The thread's progress reporter (sc_engine_set_progress()). */
static _Thread_local sc_engine_progress_fn *current_progress;
static _Thread_local void *current_progress_arg;

void
sc_engine_set_progress(sc_engine_progress_fn *fn, void *arg)
{
	current_progress = fn;
	current_progress_arg = arg;
}

struct sc_erun *
sc_eng_current_run(void)
{
	return current_run;
}

/*
 * Called by SQLite every PROGRESS_OPS instructions of a statement, in
 * the thread stepping it: non-zero interrupts that statement only, when
 * its call is canceled or over its memory limit.
 */
static int
progress(void *arg)
{
	if (current_run == NULL)
		return 0;
	if (current_progress != NULL &&
	    current_progress(current_progress_arg) != 0)
		return 1;
	return sc_eng_is_canceled(current_run) ||
	    sc_eng_guard_over(arg, current_run);
}

struct sc_engine_conn *
sc_engine_conn_new(struct sc_engine *e, struct sc_error *err)
{
	struct sc_engine_conn *c = sc_xcalloc(1, sizeof(*c));
	char *msg = NULL;
	int rc;

	c->e = e;
	pthread_mutex_init(&c->lock, NULL);
	if (open_db(e, &c->db, err) == -1)
		goto fail;
	/* Spark's LIKE is case-sensitive. */
	rc = sqlite3_exec(c->db,
	    "PRAGMA temp_store=MEMORY; "
	    "PRAGMA case_sensitive_like=ON",
	    NULL, NULL, &msg);
	if (rc == SQLITE_OK && !e->memdb)
		rc = sqlite3_exec(c->db, "PRAGMA synchronous=NORMAL", NULL,
		    NULL, &msg);
	if (rc == SQLITE_OK)
		rc = sc_eng_range_module(c->db);
	if (rc == SQLITE_OK)
		rc = sc_eng_register_functions(c->db);
	if (rc == SQLITE_OK)
		rc = sc_eng_guard_conn(c);
	if (rc != SQLITE_OK) {
		sc_error_set(err, SC_ST_INTERNAL,
		    "cannot set up a database "
		    "connection: %s",
		    msg != NULL ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		goto fail;
	}
	sqlite3_progress_handler(c->db, PROGRESS_OPS, progress, c);
	return c;
fail:
	sc_engine_conn_free(c);
	return NULL;
}

void
sc_engine_set_files(struct sc_engine *e, sc_engine_files_fn *fn, void *arg)
{
	e->files = fn;
	e->files_arg = arg;
}

void
sc_engine_conn_set_owner(struct sc_engine_conn *c, void *owner)
{
	c->owner = owner;
}

void
sc_engine_conn_free(struct sc_engine_conn *c)
{
	size_t i;

	if (c == NULL)
		return;
	sc_eng_persist_forget(c);
	sqlite3_close_v2(c->db); /* TEMP tables go with it */
	pthread_mutex_destroy(&c->lock);
	for (i = 0; i < c->nstale; i++)
		free(c->stale[i]);
	free(c->stale);
	free(c);
}

void
sc_engine_conn_interrupt(struct sc_engine_conn *c)
{
	struct sc_erun *r;

	pthread_mutex_lock(&c->lock);
	for (r = c->runs; r != NULL; r = r->next)
		atomic_store(&r->cancel, 1);
	pthread_mutex_unlock(&c->lock);
}

unsigned
sc_eng_next_tmp(struct sc_engine_conn *c)
{
	unsigned n;

	pthread_mutex_lock(&c->lock);
	n = c->tmpseq++;
	pthread_mutex_unlock(&c->lock);
	return n;
}

void
sc_eng_add_tmp(struct sc_ectx *x, const char *name)
{
	struct sc_erun *r = x->run;

	r->tmp = sc_xreallocarray(r->tmp, r->ntmp + 1, sizeof(*r->tmp));
	r->tmp[r->ntmp++] = sc_xstrdup(name);
}

static void
call_begin(struct sc_engine_conn *c, struct sc_ectx *x, struct sc_erun *r,
    const atomic_int *cancel)
{
	memset(r, 0, sizeof(*r));
	r->c = c;
	r->ext = cancel;
	atomic_init(&r->cancel, 0);
	sc_buf_init(&r->out, SC_BUF_UNLIMITED);
	pthread_mutex_lock(&c->lock);
	r->next = c->runs;
	c->runs = r;
	pthread_mutex_unlock(&c->lock);
	memset(x, 0, sizeof(*x));
	x->c = c;
	x->run = r;
	r->outer = current_run;
	current_run = r;
	r->acct = sc_eng_acct_new();
	sc_eng_acct_enter(r->acct);
}

/*
 * Drop a TEMP table; SQLite refuses while another statement of the
 * connection runs, so such a table is kept for a later call.
 */
static bool
drop_tmp(struct sc_engine_conn *c, const char *name)
{
	char *sql = sqlite3_mprintf("DROP TABLE IF EXISTS temp.\"%w\"", name);
	int rc;

	if (sql == NULL)
		return false;
	rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);
	sqlite3_free(sql);
	return rc == SQLITE_OK;
}

static void
call_end(struct sc_engine_conn *c, struct sc_ectx *x)
{
	struct sc_erun *r = x->run, **pp;
	char **left = NULL;
	size_t i, nleft = 0;

	current_run = r->outer;
	pthread_mutex_lock(&c->lock);
	for (pp = &c->runs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	/* Take the stale tables over: this call retries them. */
	left = c->stale;
	nleft = c->nstale;
	c->stale = NULL;
	c->nstale = 0;
	pthread_mutex_unlock(&c->lock);
	for (i = 0; i < r->ntmp; i++) {
		left = sc_xreallocarray(left, nleft + 1, sizeof(*left));
		left[nleft++] = r->tmp[i];
	}
	free(r->tmp);
	for (i = 0; i < nleft; i++) {
		if (drop_tmp(c, left[i])) {
			free(left[i]);
			continue;
		}
		pthread_mutex_lock(&c->lock);
		c->stale = sc_xreallocarray(c->stale, c->nstale + 1,
		    sizeof(*c->stale));
		c->stale[c->nstale++] = left[i];
		pthread_mutex_unlock(&c->lock);
	}
	free(left);
	free(x->params.v);
	x->params.v = NULL;
	sc_buf_release(&r->out);
	sc_eng_acct_enter(r->outer != NULL ? r->outer->acct : NULL);
	sc_eng_acct_done(r->acct);
	r->acct = NULL;
}

/* ------------------------------------------------------------------ */
/* Statements and parameters                                           */
/* ------------------------------------------------------------------ */

int
sc_eng_prepare(struct sc_ectx *x, const char *sql, size_t len,
    sqlite3_stmt **st, const char **tail, struct sc_error *err)
{
	sqlite3_mutex *m = sqlite3_db_mutex(x->c->db);
	int rc;

	*st = NULL;
	x->run->denied = SC_EDENY_NONE;
	sqlite3_mutex_enter(m);
	rc = sqlite3_prepare_v3(x->c->db, sql, (int)len, 0, st, tail);
	if (rc != SQLITE_OK)
		save_error(x);
	sqlite3_mutex_leave(m);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(*st);
		*st = NULL;
		return sc_eng_sqlite_error(x, rc, err);
	}
	if (*st != NULL && sc_eng_guard_statement(x, *st, err) == -1) {
		sqlite3_finalize(*st);
		*st = NULL;
		return -1;
	}
	return 0;
}

/*
 * sqlite3_step(); on an error the statement is reset under the
 * connection mutex, which puts its own message back, and that is saved.
 */
int
sc_eng_step(struct sc_ectx *x, sqlite3_stmt *st)
{
	sqlite3_mutex *m;
	int rc;

	x->run->denied = SC_EDENY_NONE; /* a statement may be recompiled */
	rc = sqlite3_step(st);

	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return rc;
	m = sqlite3_db_mutex(x->c->db);
	sqlite3_mutex_enter(m);
	sqlite3_reset(st);
	save_error(x);
	sqlite3_mutex_leave(m);
	return rc;
}

/* Run SQL without results (short statements: the mutex is held). */
int
sc_eng_exec(struct sc_ectx *x, const char *sql, struct sc_error *err)
{
	sqlite3_mutex *m = sqlite3_db_mutex(x->c->db);
	int rc;

	sqlite3_mutex_enter(m);
	rc = sqlite3_exec(x->c->db, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		save_error(x);
	sqlite3_mutex_leave(m);
	return rc == SQLITE_OK ? 0 : sc_eng_sqlite_error(x, rc, err);
}

static const struct sc_eparam *
find_param(const struct sc_eparams *p, const char *name, size_t pos)
{
	size_t i, k = 0;

	for (i = 0; i < p->n; i++) {
		if (name != NULL && p->v[i].name != NULL &&
		    strcmp(p->v[i].name, name) == 0)
			return &p->v[i];
		if (name == NULL && p->v[i].name == NULL && k++ == pos)
			return &p->v[i];
	}
	return NULL;
}

/*
 * Bind every parameter of st: "?" takes the next positional value
 * (*posused counts them across statements), "?NNN" the NNN-th, and
 * ":name", "@name", "$name" the named value "name".
 */
int
sc_eng_bind(struct sc_ectx *x, sqlite3_stmt *st, const struct sc_eparams *p,
    size_t *posused, struct sc_error *err)
{
	int i, n = sqlite3_bind_parameter_count(st);
	const char *name;
	const struct sc_eparam *v;
	size_t pos;

	(void)x;
	for (i = 1; i <= n; i++) {
		name = sqlite3_bind_parameter_name(st, i);
		if (name == NULL || name[0] == '?') {
			if (name != NULL && name[1] != '\0')
				pos = (size_t)strtoul(name + 1, NULL, 10) - 1;
			else
				pos = (*posused)++;
			v = find_param(p, NULL, pos);
			if (v == NULL)
				return sc_srv_error(err,
				    "UNBOUND_SQL_PARAMETER", "42P02",
				    "Found the unbound parameter: _%zu. "
				    "Please, fix `args` and provide a mapping "
				    "of the parameter to a SQL literal.",
				    pos + 1);
		} else {
			v = find_param(p, name + 1, 0);
			if (v == NULL)
				return sc_srv_error(err,
				    "UNBOUND_SQL_PARAMETER", "42P02",
				    "Found the unbound parameter: %s. Please, "
				    "fix `args` and provide a mapping of the "
				    "parameter to a SQL literal.",
				    name + 1);
		}
		if (v->lit == NULL && v->expr == NULL)
			/* A map entry without a value: Spark's analyzer. */
			return sc_srv_error(err, "INVALID_SQL_ARG", "42K08",
			    "The argument of `sql()` is invalid: %s has no "
			    "value.",
			    name != NULL ? name : "?");
		if (v->lit != NULL) {
			if (sc_eng_literal_param(v->lit, st, i, err) == -1)
				return -1;
		} else if (v->expr->expr_type_case == SC_EXPR_(LITERAL)) {
			if (sc_eng_literal_param(v->expr->literal, st, i,
				err) == -1)
				return -1;
		} else {
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
			    "SQL parameter %s must be a literal in sc-serve.",
			    name != NULL ? name : "?");
		}
	}
	return 0;
}

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

/*
 * Functions SQLite has under a name whose Spark function answers
 * differently (typeof(1) is 'integer' there, 'int' in Spark; hex() of a
 * number, date('now'), ...): text calling them is refused rather than
 * given SQLite's answer.  char(n) is Spark's for n below 256, its use.
 */
static const char *const sqlite_differs[] = {
	"date",
	"datetime",
	"format",
	"hex",
	"random",
	"time",
	"typeof",
	"unhex",
	"unicode",
};

/* Prepare the first statement of p (and drop it): 0, or -1 (err set). */
int
sc_eng_check_sql(struct sc_ectx *x, const struct sc_eplan *p,
    struct sc_error *err)
{
	const char *sql = (const char *)p->sql.data;
	sqlite3_stmt *st = NULL;

	if (p->kind != SC_EPLAN_SQL || sql == NULL)
		return 0;
	if (sc_eng_prepare(x, sql, strlen(sql), &st, NULL, err) == -1)
		return -1;
	sqlite3_finalize(st);
	return 0;
}

/*
 * Whether e is the translator's UNRESOLVED_ROUTINE for a function SQLite
 * has (SQL text keeps SQLite's functions that Spark lacks, such as
 * printf() and zeroblob(), as an extension); *differs when SQLite's
 * function of that name answers otherwise than Spark's.
 */
static bool
sqlite_routine(const struct sc_error *e, bool *differs)
{
	const char *a, *b;
	size_t i, n;

	if (strcmp(e->errclass, "UNRESOLVED_ROUTINE") != 0 ||
	    (a = strchr(e->msg, '`')) == NULL ||
	    (b = strchr(a + 1, '`')) == NULL)
		return false;
	a++;
	n = (size_t)(b - a);
	*differs = false;
	for (i = 0; i < SC_NELEM(sqlite_differs); i++)
		if (strlen(sqlite_differs[i]) == n &&
		    strncasecmp(a, sqlite_differs[i], n) == 0)
			*differs = true;
	return true;
}

int
sc_eng_spark_sql(struct sc_ectx *x, const Spark__Connect__SQL *q,
    struct sc_eplan *p, struct sc_error *err)
{
	Spark__Connect__Relation *parsed = NULL;
	struct sc_error e, e2;
	size_t hidden = 0;
	bool differs;
	int rc;

	if (q == NULL || q->query == NULL || q->n_args != 0 ||
	    q->n_pos_args != 0 || q->n_named_arguments != 0 ||
	    q->n_pos_arguments != 0)
		return 0;
	switch (sc_sqlparse(q->query, &parsed, &hidden, err)) {
	case SC_SQLPARSE_ERROR:
		return -1;
	case SC_SQLPARSE_OK:
		break;
	default:
		return 0;
	}
	rc = sc_eng_translate(x, parsed, p, &e);
	protobuf_c_message_free_unpacked(&parsed->base, NULL);
	if (rc == 0)
		return hidden == 0 || drop_hidden(x, p, err) == 0 ? 1 : -1;
	if (!sqlite_routine(&e, &differs)) {
		if (err != NULL)
			*err = e;
		return -1;
	}
	/* A function only SQLite has: the text as SQLite runs it. */
	sc_eplan_release(p);
	sc_eplan_init(p);
	p->raw = true;
	if (sc_eng_dialect(x, q->query, &p->sql, err) == -1)
		return -1;
	/*
	 * SQLite's refusal of a function stands; a syntax error means the
	 * text is Spark's: the translator's error.  A function SQLite
	 * answers otherwise than Spark is refused.
	 */
	if (sc_eng_check_sql(x, p, &e2) == -1) {
		if (err != NULL)
			*err = strcmp(e2.errclass, "PARSE_SYNTAX_ERROR") == 0
			    ? e
			    : e2;
		return -1;
	}
	if (differs) {
		if (err != NULL)
			*err = e;
		return -1;
	}
	return 1;
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
sc_eng_translate_text(struct sc_ectx *x, const char *text, struct sc_eplan *p,
    struct sc_error *err)
{
	Spark__Connect__Relation rel = SPARK__CONNECT__RELATION__INIT;
	Spark__Connect__SQL q = SPARK__CONNECT__SQL__INIT;
	Spark__Connect__Relation *parsed = NULL;
	size_t hidden = 0;

	switch (sc_sqlparse(text, &parsed, &hidden, err)) {
	case SC_SQLPARSE_ERROR:
		return -1;
	case SC_SQLPARSE_OK:
		protobuf_c_message_free_unpacked(&parsed->base, NULL);
		break;
	default:
		return 0;
	}
	q.query = (char *)text;
	rel.rel_type_case = SC_REL_(SQL);
	rel.sql = &q;
	return translate_root(x, &rel, p, err) == -1 ? -1 : 1;
}

/* ------------------------------------------------------------------ */
/* Public entry points                                                 */
/* ------------------------------------------------------------------ */

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

	call_begin(c, &x, &r, cancel);
	r.wsink = sink;
	r.bw = bw;
	sc_eplan_init(&p);
	rc = translate_root(&x, root, &p, err);
	if (rc == 0)
		rc = sc_eng_exec_plan(&x, &p, limits, sink, false, NULL, NULL,
		    err);
	sc_eplan_release(&p);
	call_end(c, &x);
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

	call_begin(c, &x, &r, NULL);
	sc_eplan_init(&p);
	rc = translate_root(&x, root, &p, err);
	if (rc == 0)
		rc = sc_eng_exec_plan(&x, &p, NULL, NULL, true, colsp, np, err);
	sc_eplan_release(&p);
	call_end(c, &x);
	return rc;
}

int
sc_engine_schema(struct sc_engine_conn *c, const Spark__Connect__Relation *root,
    Spark__Connect__DataType **out, struct sc_error *err)
{
	struct sc_ecol *cols = NULL;
	size_t n = 0;

	if (plan_columns(c, root, &cols, &n, err) == -1)
		return -1;
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

	call_begin(c, &x, &r, NULL);
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
	call_end(c, &x);
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

/* Collect a SQL message's parameters (3.5 and 4.x fields). */
void
sc_eng_params_from_sql(struct sc_eparams *ps, const Spark__Connect__SQL *q)
{
	size_t i,
	    n = q->n_args + q->n_pos_args + q->n_named_arguments +
	    q->n_pos_arguments;

	ps->v = sc_xcalloc(n > 0 ? n : 1, sizeof(*ps->v));
	ps->n = 0;
	for (i = 0; i < q->n_args; i++) {
		ps->v[ps->n].name = q->args[i]->key;
		ps->v[ps->n++].lit = q->args[i]->value;
	}
	for (i = 0; i < q->n_named_arguments; i++) {
		ps->v[ps->n].name = q->named_arguments[i]->key;
		ps->v[ps->n++].expr = q->named_arguments[i]->value;
	}
	for (i = 0; i < q->n_pos_args; i++)
		ps->v[ps->n++].lit = q->pos_args[i];
	for (i = 0; i < q->n_pos_arguments; i++)
		ps->v[ps->n++].expr = q->pos_arguments[i];
}

/* Whether text is a single query (the echo case of a SqlCommand). */
static int
is_single_query(struct sc_ectx *x, const char *sql, bool *query,
    struct sc_error *err)
{
	sqlite3_stmt *st;
	const char *tail;

	if (sc_eng_prepare(x, sql, strlen(sql), &st, &tail, err) == -1)
		return -1;
	*query = st != NULL && sc_eng_sql_blank(tail) &&
	    sqlite3_column_count(st) > 0 && sqlite3_stmt_readonly(st);
	sqlite3_finalize(st);
	return 0;
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
	bool query;
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
	call_begin(c, &x, &run, cancel);
	sc_eplan_init(&p);
	sc_buf_init(&cap.data, COMMAND_OUTPUT_MAX);
	cap.overflow = false;
	p.raw = true;
	/* Spark's own statements, with Spark's result columns. */
	switch (sc_eng_statement(&x, src->query != NULL ? src->query : "", &p,
	    err)) {
	case -1:
		goto out;
	case 1:
		goto run;
	default:
		break;
	}
	/* A query the Spark SQL parser takes is echoed, as Spark does. */
	switch (sc_sqlparse(src->query != NULL ? src->query : "", &parsed,
	    &hidden, err)) {
	case SC_SQLPARSE_ERROR:
		goto out;
	case SC_SQLPARSE_OK:
		/* Analysed now, as Spark does: errors come from sql(). */
		protobuf_c_message_free_unpacked(&parsed->base, NULL);
		rel.rel_type_case = SC_REL_(SQL);
		rel.sql = (Spark__Connect__SQL *)src;
		if (translate_root(&x, &rel, &p, err) == -1 ||
		    sc_eng_check_sql(&x, &p, err) == -1)
			goto out;
		query = true;
		break;
	default:
		query = false;
		break;
	}
	if (!query &&
	    sc_eng_dialect(&x, src->query != NULL ? src->query : "", &p.sql,
		err) == -1)
		goto out;
	if (!query &&
	    is_single_query(&x, (const char *)p.sql.data, &query, err) == -1)
		goto out;
	if (query) {
		rel.rel_type_case = SC_REL_(SQL);
		rel.sql = (Spark__Connect__SQL *)src;
		*result = relation_copy(&rel, err);
		rc = *result != NULL ? 0 : -1;
		goto out;
	}
	sc_eng_params_from_sql(&x.params, src);
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
	call_end(c, &x);
	free(args);
	free(argp);
	free(na);
	free(nap);
	return rc;
}
