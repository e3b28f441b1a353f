/* SPDX-License-Identifier: MIT */

/*
 * engine.c: the SQLite engine's database and connections, calls on a
 * connection (statements, parameters, cancellation) and SQLite errors
 * as Spark errors.  The entry points (running a plan, SqlCommand,
 * AnalyzePlan) are in engine_entry.c; translation in engine_plan.c
 * (relations), engine_expr.c (expressions) and engine_dialect.c (SQL
 * text); running a translated plan into Arrow batches in engine_run.c;
 * the databases besides default, attached to each connection, in
 * engine_db.c.
 */

#include "engine/engine_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
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

/* INSERT_COLUMN_ARITY_MISMATCH: given values for have columns of what. */
static void
arity_error(struct sc_error *err, const char *what, unsigned long have,
    unsigned long given)
{
	sc_srv_error(err,
	    given < have
		? "INSERT_COLUMN_ARITY_MISMATCH.NOT_ENOUGH_DATA_COLUMNS"
		: "INSERT_COLUMN_ARITY_MISMATCH.TOO_MANY_DATA_COLUMNS",
	    "21S01",
	    "Cannot write to %s, the reason is %s data columns: %lu columns "
	    "are written and the data has %lu.",
	    what, given < have ? "not enough" : "too many", have, given);
}

/*
 * SQLite's analysis errors that Spark has a class for, from the text
 * SQLite writes (sqlite3_errmsg(); stable across its 3.x releases).
 * Spark names columns and counts SQLite does not say; the message keeps
 * what SQLite does say.  1 when msg was one of them (err set), else 0.
 */
static int
analysis_error(const char *msg, struct sc_buf *b, bool cut,
    struct sc_error *err)
{
	unsigned long have, given;
	const char *p;
	char name[256];
	int n = 0;

	if (sscanf(msg,
		"table %255s has %lu columns but %lu values were "
		"supplied%n",
		name, &have, &given, &n) == 3 &&
	    n > 0 && msg[n] == '\0') {
		backquote(b, name, strlen(name), cut);
		arity_error(err, (const char *)b->data, have, given);
		return 1;
	}
	if (sscanf(msg, "%lu values for %lu columns%n", &given, &have, &n) ==
		2 &&
	    n > 0 && msg[n] == '\0') {
		arity_error(err, "the table", have, given);
		return 1;
	}
	if (strncmp(msg, "ambiguous column name: ", 23) == 0) {
		p = msg + 23;
		backquote(b, p, strlen(p), cut);
		sc_srv_error(err, "AMBIGUOUS_REFERENCE", "42704",
		    "Reference %s is ambiguous.", (const char *)b->data);
		return 1;
	}
	if (strncmp(msg, "duplicate column name: ", 23) == 0) {
		p = msg + 23;
		backquote(b, p, strlen(p), cut);
		sc_srv_error(err, "COLUMN_ALREADY_EXISTS", "42711",
		    "The column %s already exists. Choose another name or "
		    "rename the existing column.",
		    (const char *)b->data);
		return 1;
	}
	if (strncmp(msg, "SELECTs to the left and right of ", 33) == 0 &&
	    strstr(msg, " do not have the same number of result columns") !=
		NULL) {
		p = msg + 33;
		sc_srv_error(err, "NUM_COLUMNS_MISMATCH", "42826",
		    "%.*s can only be performed on inputs with the same "
		    "number of columns.",
		    (int)strcspn(p, " "), p);
		return 1;
	}
	if ((p = strstr(msg, " BY term out of range - should be between ")) !=
		NULL &&
	    (strstr(msg, "ORDER BY") != NULL ||
		strstr(msg, "GROUP BY") != NULL) &&
	    sscanf(p + 42, "%lu and %lu%n", &given, &have, &n) == 2) {
		bool order = strstr(msg, "ORDER BY") != NULL;

		sc_srv_error(err,
		    order ? "ORDER_BY_POS_OUT_OF_RANGE"
			  : "GROUP_BY_POS_OUT_OF_RANGE",
		    "42805",
		    "%s BY position is not in select list (valid range is "
		    "[%lu, %lu]).",
		    order ? "ORDER" : "GROUP", given, have);
		return 1;
	}
	if (strcmp(msg,
		"aggregate functions are not allowed in the GROUP BY clause") ==
	    0) {
		sc_srv_error(err, "GROUP_BY_AGGREGATE", "42903",
		    "Aggregate functions are not allowed in GROUP BY.");
		return 1;
	}
	if (strncmp(msg, "wrong number of arguments to function ", 38) == 0) {
		p = msg + 38;
		n = (int)strcspn(p, "(");
		backquote(b, p, (size_t)n, cut);
		sc_srv_error(err, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "42605",
		    "The %s was given a number of parameters it does not "
		    "take.",
		    (const char *)b->data);
		return 1;
	}
	return 0;
}

/* Whether run r has been told to stop. */
bool
sc_eng_is_canceled(const struct sc_erun *r)
{
	return atomic_load(&r->cancel) != 0 ||
	    (r->ext != NULL && atomic_load(r->ext) != 0);
}

int
sc_eng_unresolved_routine(struct sc_engine_conn *c, const char *name,
    struct sc_error *err)
{
	char *db = c != NULL ? sc_eng_db_current(c) : sc_xstrdup("default");
	int rc;

	rc = sc_srv_error(err, "UNRESOLVED_ROUTINE", "42883",
	    "Cannot resolve routine %s on search path [`system`.`builtin`, `system`.`session`, `spark_catalog`.`%s`].",
	    name, db);
	free(db);
	return rc;
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
		ret =
		    sc_eng_unresolved_routine(x->c, (const char *)b.data, err);
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
	} else if (strcmp(msg, "integer overflow") == 0 && x->run->mode.ansi) {
		/* SQLite's sum() of integers past a bigint, as Spark's. */
		ret = sc_srv_error(err, "ARITHMETIC_OVERFLOW", "22003",
		    "long overflow. If necessary set "
		    "\"spark.sql.ansi.enabled\" to \"false\" to bypass this "
		    "error.");
	} else if (strcmp(msg, "integer overflow") == 0) {
		ret = sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "Integer arithmetic wrapping around past a bigint (as "
		    "in sum()) with spark.sql.ansi.enabled=false is not "
		    "supported by sc-serve.");
	} else if (analysis_error(msg, &b, x->run->errcut, err)) {
		ret = -1;
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
	const struct sc_engine_config lim = { SC_ENGINE_OP_MEMORY,
		SC_ENGINE_MAX_VALUE, SC_ENGINE_HEAP_LIMIT };
	sqlite3_stmt *st;
	const char *mode;
	int rc;

	sc_eng_guard_init();
	sc_eng_db_init(e);
	sc_engine_configure(e, &lim);
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
		/* Databases besides default attach as file:...?vfs=memdb. */
		e->flags |= SQLITE_OPEN_URI;
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
	if (sc_eng_db_open(e, err) == -1)
		goto fail;
	return e;
fail:
	sc_engine_free(e);
	return NULL;
}

void
sc_engine_configure(struct sc_engine *e, const struct sc_engine_config *lim)
{
	e->op_memory = lim->op_memory;
	e->max_value = lim->max_value;
	e->heap_limit = lim->heap_limit;
	sc_eng_heap_limit(e->heap_limit);
}

void
sc_engine_free(struct sc_engine *e)
{
	if (e == NULL)
		return;
	sqlite3_close_v2(e->anchor);
	sc_eng_db_close(e);
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
	pthread_mutex_init(&c->curlock, NULL);
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
	if (rc == SQLITE_OK)
		rc = sc_eng_db_conn_setup(c);
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

static void
view_clear(struct sc_eview *v)
{
	size_t i;

	free(v->name);
	free(v->body);
	sc_ecols_free(v->cols, v->ncols);
	for (i = 0; i < v->nheld; i++)
		free(v->held[i]);
	free(v->held);
	v->held = NULL;
	v->nheld = 0;
}

bool
sc_engine_conn_is_empty(struct sc_engine_conn *c)
{
	sqlite3_stmt *st = NULL;
	bool empty;

	pthread_mutex_lock(&c->lock);
	empty = c->runs == NULL && c->nviews == 0 && c->nstale == 0 &&
	    c->natt == 0;
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_lock(&c->curlock);
	empty = empty && c->curdb == NULL;
	pthread_mutex_unlock(&c->curlock);
	/* TEMP objects user SQL made itself (CREATE TEMP TABLE ...). */
	if (empty &&
	    sqlite3_prepare_v2(c->db, "SELECT 1 FROM temp.sqlite_master", -1,
		&st, NULL) == SQLITE_OK)
		empty = sqlite3_step(st) == SQLITE_DONE;
	else
		empty = false;
	sqlite3_finalize(st);
	return empty;
}

int64_t
sc_engine_total_changes(struct sc_engine_conn *c)
{
	return (int64_t)sqlite3_total_changes64(c->db);
}

int64_t
sc_engine_last_changes(struct sc_engine_conn *c)
{
	return (int64_t)sqlite3_changes64(c->db);
}

void
sc_engine_conn_free(struct sc_engine_conn *c)
{
	size_t i;

	if (c == NULL)
		return;
	sc_eng_persist_forget(c);
	sqlite3_close_v2(c->db); /* TEMP tables go with it */
	sc_eng_db_conn_free(c);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->curlock);
	for (i = 0; i < c->nstale; i++)
		free(c->stale[i]);
	free(c->stale);
	for (i = 0; i < c->nviews; i++)
		view_clear(&c->views[i]);
	free(c->views);
	free(c);
}

/* ------------------------------------------------------------------ */
/* Temp views' Spark types                                             */
/* ------------------------------------------------------------------ */

/* The last part of a possibly quoted, qualified name, in lower case. */
static char *
last_name(const char *s)
{
	const char *p = s, *start = s;
	char q = 0, *out, *o;

	for (; *p != '\0'; p++) {
		if (q != 0) {
			if (*p == q)
				q = 0;
		} else if (*p == '`' || *p == '"' || *p == '[')
			q = *p == '[' ? ']' : *p;
		else if (*p == '.')
			start = p + 1;
	}
	out = o = sc_xmalloc(strlen(start) + 1);
	for (p = start; *p != '\0'; p++)
		if (*p != '`' && *p != '"' && *p != '[' && *p != ']')
			*o++ = (char)tolower((unsigned char)*p);
	*o = '\0';
	return out;
}

void
sc_eng_view_note(struct sc_engine_conn *c, const char *name, const char *body,
    size_t bodylen, const struct sc_ecol *cols, size_t n)
{
	struct sc_eview *v = NULL;
	char *key = last_name(name);
	size_t i;

	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->nviews; i++)
		if (strcmp(c->views[i].name, key) == 0) {
			v = &c->views[i];
			/* Its tables go at the end of the next call. */
			c->stale = sc_xreallocarray(c->stale,
			    c->nstale + v->nheld + 1, sizeof(*c->stale));
			for (i = 0; i < v->nheld; i++)
				c->stale[c->nstale++] = v->held[i];
			v->nheld = 0;
			view_clear(v);
			break;
		}
	if (v == NULL) {
		c->views = sc_xreallocarray(c->views, c->nviews + 1,
		    sizeof(*c->views));
		v = &c->views[c->nviews++];
	}
	memset(v, 0, sizeof(*v));
	v->name = key;
	v->body = sc_xstrndup(body, bodylen);
	v->cols = sc_eng_cols_copy(cols, n);
	v->ncols = n;
	pthread_mutex_unlock(&c->lock);
}

void
sc_eng_view_adopt(struct sc_ectx *x, const char *name)
{
	struct sc_engine_conn *c = x->c;
	struct sc_erun *r = x->run;
	char *key = last_name(name);
	size_t i;

	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->nviews; i++)
		if (strcmp(c->views[i].name, key) == 0) {
			c->views[i].held = r->tmp;
			c->views[i].nheld = r->ntmp;
			r->tmp = NULL;
			r->ntmp = 0;
			break;
		}
	pthread_mutex_unlock(&c->lock);
	free(key);
}

/* Whether view text sql (as SQLite keeps it) ends with body. */
static bool
same_body(const char *sql, const char *body)
{
	size_t sn = strlen(sql), bn = strlen(body);

	while (sn > 0 &&
	    (isspace((unsigned char)sql[sn - 1]) || sql[sn - 1] == ';'))
		sn--;
	while (bn > 0 && isspace((unsigned char)body[bn - 1]))
		bn--;
	return bn > 0 && sn >= bn && memcmp(sql + sn - bn, body, bn) == 0;
}

void
sc_eng_view_types(struct sc_ectx *x, const char *table, struct sc_ecol *cols,
    size_t n)
{
	struct sc_engine_conn *c = x->c;
	const unsigned char *sql;
	sqlite3_stmt *st = NULL;
	struct sc_eview *v = NULL;
	char *key;
	size_t i;

	if (c->nviews == 0)
		return;
	key = last_name(table);
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->nviews; i++)
		if (strcmp(c->views[i].name, key) == 0)
			v = &c->views[i];
	if (v != NULL && v->ncols == n &&
	    sc_eng_guard_prepare_own(c,
		"SELECT sql FROM temp.sqlite_schema WHERE type = 'view' AND "
		"lower(name) = ?1",
		&st) == SQLITE_OK &&
	    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW &&
	    (sql = sqlite3_column_text(st, 0)) != NULL &&
	    same_body((const char *)sql, v->body))
		for (i = 0; i < n; i++)
			if (cols[i].type.t == SC_ETYPE_UNKNOWN &&
			    strcasecmp(cols[i].name, v->cols[i].name) == 0) {
				cols[i].type = v->cols[i].type;
				if (cols[i].nullable < 0)
					cols[i].nullable = v->cols[i].nullable;
			}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&c->lock);
	free(key);
}

int
sc_engine_conn_temp_tables(struct sc_engine_conn *c, const char *prefix)
{
	sqlite3_stmt *st = NULL;
	int n = -1;

	if (sc_eng_guard_prepare_own(c,
		"SELECT count(*) FROM temp.sqlite_schema WHERE type = 'table' "
		"AND substr(name, 1, length(?1)) = ?1",
		&st) == SQLITE_OK &&
	    sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
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

void
sc_eng_call_begin(struct sc_engine_conn *c, struct sc_ectx *x,
    struct sc_erun *r, const atomic_int *cancel)
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
	(void)sc_eng_db_sync(c); /* a database created or dropped since */
	r->acct = sc_eng_acct_new();
	sc_eng_acct_enter(r->acct);
	sc_eng_read_mode(c, &r->mode);
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

void
sc_eng_call_end(struct sc_engine_conn *c, struct sc_ectx *x)
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
	x->run->client_ddl = false;
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
	x->run->client_ddl = false;
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
