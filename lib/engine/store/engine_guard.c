/* SPDX-License-Identifier: MIT */

/*
 * engine_guard.c: what user SQL may do in the engine and how much it may
 * use.  SQLite can do far more than Spark SQL (attach other database
 * files, rewrite the schema's text, install a tokenizer by address), so
 * every connection gets an authorizer that allows what Spark SQL has,
 * defensive mode and limits.  Memory: every block SQLite allocates
 * carries a header naming the account of the operation that allocated
 * it, so the progress handler can stop an operation whose live SQLite
 * memory passes its limit, whatever holds it (sorters, the ephemeral
 * tables of UNION and DISTINCT, temp tables); a hard heap limit bounds
 * SQLite's memory in the whole process.
 */

#include "engine/engine_int.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "engine/sql/sqlparse.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* ------------------------------------------------------------------ */
/* Memory accounts                                                     */
/* ------------------------------------------------------------------ */

/*
 * The SQLite memory of one operation: bytes allocated while it was the
 * thread's current account and not freed yet.  A block keeps its
 * account after the operation ends (a page cache outlives it), so an
 * account is freed with its last reference: one for the operation, one
 * per live block.
 */
struct sc_eacct {
	atomic_llong bytes;
	atomic_long refs;
};

/* In front of every SQLite block; 16 bytes keep malloc's alignment. */
struct mhdr {
	_Alignas(16) int64_t size;
	struct sc_eacct *acct;
};

static _Thread_local struct sc_eacct *cur_acct;
static bool accounting;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void
acct_unref(struct sc_eacct *a)
{
	if (atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) == 1)
		free(a);
}

static void *
mem_malloc(int n)
{
	struct mhdr *h;

	if (n < 0)
		return NULL;
	if ((h = malloc(sizeof(*h) + (size_t)n)) == NULL)
		return NULL;
	h->size = n;
	h->acct = cur_acct;
	if (h->acct != NULL) {
		atomic_fetch_add_explicit(&h->acct->refs, 1,
		    memory_order_relaxed);
		atomic_fetch_add_explicit(&h->acct->bytes, n,
		    memory_order_relaxed);
	}
	return h + 1;
}

static void
mem_free(void *p)
{
	struct mhdr *h;
	struct sc_eacct *a;
	int64_t n;

	if (p == NULL)
		return;
	h = (struct mhdr *)p - 1;
	a = h->acct;
	n = h->size;
	free(h);
	if (a != NULL) {
		atomic_fetch_sub_explicit(&a->bytes, n, memory_order_relaxed);
		acct_unref(a);
	}
}

/* A block grown or shrunk stays on the account that allocated it. */
static void *
mem_realloc(void *p, int n)
{
	struct mhdr *h = (struct mhdr *)p - 1, *nh;
	int64_t old = h->size;

	if (n < 0)
		return NULL;
	if ((nh = realloc(h, sizeof(*h) + (size_t)n)) == NULL)
		return NULL;
	nh->size = n;
	if (nh->acct != NULL)
		atomic_fetch_add_explicit(&nh->acct->bytes, n - old,
		    memory_order_relaxed);
	return nh + 1;
}

static int
mem_size(void *p)
{
	return p != NULL ? (int)((struct mhdr *)p - 1)->size : 0;
}

static int
mem_roundup(int n)
{
	return n > 0x7ffffff0 ? n : (n + 7) & ~7;
}

static int
mem_init(void *arg)
{
	(void)arg;
	return SQLITE_OK;
}

static void
mem_shutdown(void *arg)
{
	(void)arg;
}

static const sqlite3_mem_methods mem_methods = {
	mem_malloc,
	mem_free,
	mem_realloc,
	mem_size,
	mem_roundup,
	mem_init,
	mem_shutdown,
	NULL,
};

/*
 * Before SQLite is first used: the accounting allocator, and no URI
 * file names (the engine names its memdb without one).  Both fail if
 * something initialised SQLite first; accounting is then off.
 */
static void
guard_init(void)
{
	accounting = sqlite3_config(SQLITE_CONFIG_MALLOC, &mem_methods) ==
	    SQLITE_OK;
	sqlite3_config(SQLITE_CONFIG_URI, 0);
	sqlite3_initialize();
}

/* Once per process; false when memory accounting is not available. */
bool
sc_eng_guard_init(void)
{
	pthread_once(&init_once, guard_init);
	return accounting;
}

struct sc_eacct *
sc_eng_acct_new(void)
{
	struct sc_eacct *a;

	if (!accounting)
		return NULL;
	a = malloc(sizeof(*a));
	if (a == NULL)
		return NULL;
	atomic_init(&a->bytes, 0);
	atomic_init(&a->refs, 1);
	return a;
}

/* Charge this thread's SQLite allocations to a (NULL: to nobody). */
void
sc_eng_acct_enter(struct sc_eacct *a)
{
	cur_acct = a;
}

int64_t
sc_eng_acct_bytes(const struct sc_eacct *a)
{
	return a != NULL
	    ? (int64_t)atomic_load_explicit(&a->bytes, memory_order_relaxed)
	    : 0;
}

/* The operation is over; its blocks still alive keep the account. */
void
sc_eng_acct_done(struct sc_eacct *a)
{
	if (a != NULL)
		acct_unref(a);
}

void
sc_eng_heap_limit(int64_t bytes)
{
	sqlite3_hard_heap_limit64(bytes > 0 ? bytes : 0);
	/* Past three quarters SQLite first gives back cache pages. */
	sqlite3_soft_heap_limit64(bytes > 0 ? bytes / 4 * 3 : 0);
}

/* Whether run r, on c, is over its memory limit (then marked so). */
bool
sc_eng_guard_over(struct sc_engine_conn *c, struct sc_erun *r)
{
	int64_t limit = c->e->op_memory;

	if (limit <= 0 || r->acct == NULL ||
	    sc_eng_acct_bytes(r->acct) <= limit)
		return false;
	r->exhausted = true;
	return true;
}

/* ------------------------------------------------------------------ */
/* The authorizer                                                      */
/* ------------------------------------------------------------------ */

/*
 * Pragmas user SQL may run, all read-only.  With an argument: those
 * whose argument names an object (table_info(t)) or bounds a check;
 * the others only bare (reading their value, never setting it).
 */
static const char *const pragma_args[] = {
	"foreign_key_check",
	"foreign_key_list",
	"index_info",
	"index_list",
	"index_xinfo",
	"integrity_check",
	"quick_check",
	"table_info",
	"table_list",
	"table_xinfo",
};

static const char *const pragma_bare[] = {
	"application_id",
	"auto_vacuum",
	"collation_list",
	"data_version",
	"encoding",
	"foreign_keys",
	"freelist_count",
	"journal_mode",
	"page_count",
	"page_size",
	"schema_version",
	"user_version",
};

/* Functions SQLite has that user SQL must not call. */
static const char *const functions_denied[] = {
	"fts3_tokenizer", /* installs or reveals a process address */
	"load_extension", /* loads code */
};

static bool
in_list(const char *const *list, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcasecmp(list[i], name) == 0)
			return true;
	return false;
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The functions sc-serve registers for its own SQL (sc_cast, sc_overlay,
 * ...) take their arguments as the translator writes them; a client's
 * SQL must not reach them.  SQLite compares function names without
 * regard to ASCII case, and so does this.
 */
bool
sc_eng_guard_internal(const char *name)
{
	return name != NULL && strncasecmp(name, "sc_", 3) == 0;
}

/*
 * What SQLite keeps about itself and its file: the schema's text, page
 * statistics and pages, and the table-valued pragmas (pragma_*, the
 * function list among them).  Spark has none of them.
 */
static const char *const introspection[] = {
	"dbstat",
	"sqlite_dbpage",
	"sqlite_master",
	"sqlite_schema",
	"sqlite_stat1",
	"sqlite_stat4",
	"sqlite_temp_master",
	"sqlite_temp_schema",
};

bool
sc_eng_guard_introspection(const char *name)
{
	return name != NULL &&
	    (strncasecmp(name, "pragma_", 7) == 0 ||
		in_list(introspection, NELEM(introspection), name));
}

int
sc_eng_guard_refuse(bool function, const char *name, struct sc_error *err)
{
	if (function) {
		struct sc_buf q;
		int rc;

		sc_buf_init(&q, SC_BUF_UNLIMITED);
		sc_eng_quote_ident(&q, name);
		rc = sc_eng_unresolved_routine(NULL, (const char *)q.data, err);
		sc_buf_release(&q);
		return rc;
	}
	return sc_srv_error(err, "TABLE_OR_VIEW_NOT_FOUND", "42P01",
	    "The table or view `%s` cannot be found. Verify the spelling and correctness of the schema and catalog.",
	    name);
}

/* Whether the statement being compiled holds a client's text. */
static bool
client_sql(void)
{
	struct sc_erun *r = sc_eng_current_run();

	return r != NULL && r->client_sql;
}

/* Refuse, keeping what for the error (the parts a, b and c joined). */
static int
deny(int kind, const char *a, const char *b, const char *c)
{
	struct sc_erun *r = sc_eng_current_run();

	if (r != NULL && r->denied == SC_EDENY_NONE) {
		r->denied = kind;
		if (snprintf(r->denied_what, sizeof(r->denied_what), "%s%s%s",
			a, b != NULL ? b : "",
			c != NULL ? c : "") >= (int)sizeof(r->denied_what))
			r->denied_what[sizeof(r->denied_what) - 1] = '\0';
	}
	return SQLITE_DENY;
}

static bool
schema_table(const char *name)
{
	return strcasecmp(name, "sqlite_master") == 0 ||
	    strcasecmp(name, "sqlite_schema") == 0 ||
	    strcasecmp(name, "sqlite_temp_master") == 0 ||
	    strcasecmp(name, "sqlite_temp_schema") == 0;
}

/*
 * Whether column b of table a may be read.  The engine's catalog
 * queries read the schema; a client's statement never reads an
 * introspection table, and no view body does.  SQLite itself reads the
 * schema while it compiles DROP and ALTER TABLE (which hold no query of
 * the client's), and the schema's ROWID when it opens a table-valued
 * function or writes the schema.
 */
static bool
may_read(const char *a, const char *b, const char *trigger)
{
	struct sc_erun *r = sc_eng_current_run();

	if (!sc_eng_guard_introspection(a))
		return true;
	if (schema_table(a) && b != NULL && strcasecmp(b, "ROWID") == 0)
		return true;
	if (trigger != NULL)
		return false;
	if (r == NULL || !r->client_sql)
		return true;
	return schema_table(a) && r->client_ddl;
}

/*
 * SQLite asks this while it compiles a statement (also the statements
 * of views and triggers, and those SQLite runs itself, such as the
 * ATTACH inside VACUUM); the schema it reads at open is not asked for.
 */
static int
authorize(void *arg, int action, const char *a, const char *b,
    const char *dbname, const char *trigger)
{
	(void)arg;
	(void)dbname;
	switch (action) {
	case SQLITE_DROP_TABLE:
	case SQLITE_DROP_TEMP_TABLE:
	case SQLITE_DROP_VIEW:
	case SQLITE_DROP_TEMP_VIEW:
	case SQLITE_DROP_INDEX:
	case SQLITE_DROP_TEMP_INDEX:
	case SQLITE_ALTER_TABLE:
		/* SQLite reads the schema for them: no query of the client's. */
		if (client_sql())
			sc_eng_current_run()->client_ddl = true;
		return SQLITE_OK;
	case SQLITE_READ:
		if (a != NULL && !may_read(a, b, trigger))
			return deny(SC_EDENY_TABLE, a, NULL, NULL);
		return SQLITE_OK;
	case SQLITE_ATTACH:
		return deny(SC_EDENY_STATEMENT, "ATTACH DATABASE", NULL, NULL);
	case SQLITE_DETACH:
		return deny(SC_EDENY_STATEMENT, "DETACH DATABASE", NULL, NULL);
	case SQLITE_CREATE_VTABLE:
		return deny(SC_EDENY_STATEMENT, "CREATE VIRTUAL TABLE", NULL,
		    NULL);
	case SQLITE_CREATE_TRIGGER:
	case SQLITE_CREATE_TEMP_TRIGGER:
		return deny(SC_EDENY_STATEMENT, "CREATE TRIGGER", NULL, NULL);
	case SQLITE_TRANSACTION:
		return deny(SC_EDENY_STATEMENT, a != NULL ? a : "BEGIN",
		    " (transactions)", NULL);
	case SQLITE_SAVEPOINT:
		return deny(SC_EDENY_STATEMENT, "SAVEPOINT", NULL, NULL);
	case SQLITE_PRAGMA:
		if (a == NULL)
			break;
		if (in_list(pragma_args, NELEM(pragma_args), a) ||
		    (b == NULL && in_list(pragma_bare, NELEM(pragma_bare), a)))
			return SQLITE_OK;
		if (b != NULL)
			return deny(SC_EDENY_PRAGMA, "PRAGMA ", a,
			    " with a value");
		return deny(SC_EDENY_PRAGMA, "PRAGMA ", a, NULL);
	case SQLITE_FUNCTION:
		if (b != NULL &&
		    in_list(functions_denied, NELEM(functions_denied), b))
			return deny(SC_EDENY_FUNCTION, b, NULL, NULL);
		/*
		 * sc_cast() is the one internal function a client statement
		 * holds: engine_dialect.c writes it for CAST and typed
		 * literals, and refuses client text that names any sc_
		 * function itself.
		 */
		if (sc_eng_guard_internal(b) && client_sql() &&
		    strcasecmp(b, "sc_cast") != 0)
			return deny(SC_EDENY_FUNCTION, b, NULL, NULL);
		return SQLITE_OK;
	default:
		return SQLITE_OK;
	}
	return SQLITE_DENY;
}

/* Restrict a new connection; SQLite's result code on failure. */
int
sc_eng_guard_conn(struct sc_engine_conn *c)
{
	static const struct {
		int op;
		int on;
	} cfg[] = {
		{ SQLITE_DBCONFIG_DEFENSIVE, 1 },
		{ SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0 },
		{ SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0 },
	};
	sqlite3 *db = c->db;
	size_t i;
	int rc, v;

	for (i = 0; i < NELEM(cfg); i++) {
		rc = sqlite3_db_config(db, cfg[i].op, cfg[i].on, &v);
		if (rc != SQLITE_OK)
			return rc;
		if (v != cfg[i].on)
			return SQLITE_ERROR;
	}
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH,
	    c->e->max_value > 0 && c->e->max_value < 1000000000
		? (int)c->e->max_value
		: 1000000000);
	sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, SC_ENGINE_MAX_SQL);
	sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, SC_ENGINE_MAX_EXPR_DEPTH);
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	if (sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, -1) != 0)
		return SQLITE_ERROR;
	return sqlite3_set_authorizer(db, authorize, c);
}

/*
 * Run sql of sc-serve's own (SAVEPOINT, RELEASE, ROLLBACK TO), which the
 * authorizer refuses to clients, on c's connection.  SQLite's result.
 */
int
sc_eng_guard_exec_own(struct sc_engine_conn *c, const char *sql)
{
	int rc;

	sqlite3_set_authorizer(c->db, NULL, NULL);
	rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);
	sqlite3_set_authorizer(c->db, authorize, c);
	return rc;
}

/*
 * Run sc-serve's own ATTACH or DETACH of a database (engine_db.c) on c's
 * connection: the one exception to the authorizer's refusal, with room
 * for max attached databases while it runs; user SQL still finds none.
 */
int
sc_eng_guard_attach(struct sc_engine_conn *c, const char *sql, int max)
{
	int rc;

	sqlite3_limit(c->db, SQLITE_LIMIT_ATTACHED, max);
	rc = sc_eng_guard_exec_own(c, sql);
	sqlite3_limit(c->db, SQLITE_LIMIT_ATTACHED, 0);
	return rc;
}

int
sc_eng_guard_prepare_own(struct sc_engine_conn *c, const char *sql,
    sqlite3_stmt **st)
{
	struct sc_erun *r = sc_eng_current_run();
	bool was = r != NULL && r->client_sql;
	int rc;

	if (r != NULL)
		r->client_sql = false;
	rc = sqlite3_prepare_v2(c->db, sql, -1, st, NULL);
	if (r != NULL)
		r->client_sql = was;
	return rc;
}

/* The first keyword of SQL text, after blanks and comments. */
static bool
first_word_is(const char *s, const char *w)
{
	size_t n = strlen(w);

	if ((s = sc_sqllex_skip(s)) == NULL)
		return false;
	return strncasecmp(s, w, n) == 0 && !isalnum((unsigned char)s[n]) &&
	    s[n] != '_';
}

/*
 * Refuse a prepared statement the authorizer would only stop when it
 * runs: VACUUM attaches its target then, so name it before.
 */
int
sc_eng_guard_statement(struct sc_ectx *x, sqlite3_stmt *st,
    struct sc_error *err)
{
	const char *sql = sqlite3_sql(st);

	(void)x;
	if (sql != NULL && first_word_is(sql, "VACUUM"))
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.STATEMENT",
		    "0A000",
		    "The feature is not supported: VACUUM. sc-serve runs the SQL statements Spark SQL has.");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

/* A limit error: a Spark class, and RESOURCE_EXHAUSTED as its status. */
static int
exhausted(struct sc_error *err, const char *cls, const char *state,
    const char *text)
{
	sc_srv_error(err, cls, state, "%s", text);
	if (err != NULL)
		err->rpc_code = SC_GRPC_RESOURCE_EXHAUSTED;
	return -1;
}

int
sc_eng_too_big(struct sc_error *err, int64_t limit, const char *what)
{
	char text[256];

	snprintf(text, sizeof(text),
	    "%s exceeds the limit of %lld bytes (sctk.sql.maxValueSize).", what,
	    (long long)limit);
	return exhausted(err, "EXCEED_LIMIT_LENGTH", "54006", text);
}

/* The error of a failed sqlite3_bind_*() with result rc. */
int
sc_eng_bind_error(sqlite3_stmt *st, int rc, struct sc_error *err)
{
	sqlite3 *db = sqlite3_db_handle(st);

	if ((rc & 0xff) == SQLITE_TOOBIG)
		return sc_eng_too_big(err,
		    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1),
		    "A string or binary parameter value");
	if ((rc & 0xff) == SQLITE_NOMEM)
		return exhausted(err, "UNABLE_TO_ACQUIRE_MEMORY", "53200",
		    "Unable to acquire memory for a parameter value: SQLite's "
		    "memory limit (sctk.sql.heapLimit) is reached.");
	return sc_srv_error(err, "SQLITE_ERROR", "HY000",
	    "Cannot bind a parameter: %s.", sqlite3_errstr(rc));
}

/*
 * The Spark error for a failure that comes from the restrictions or
 * the limits (rc and SQLite's message msg of x's last call): -1 with
 * err set, or 0 when it is none of them.
 */
int
sc_eng_guard_error(struct sc_ectx *x, int rc, const char *msg,
    struct sc_error *err)
{
	struct sc_erun *r = x->run;
	char text[512];
	int code = rc & 0xff, kind;

	if (r->exhausted) {
		snprintf(text, sizeof(text),
		    "Unable to acquire memory: the operation holds more than "
		    "the %lld bytes of SQLite memory one operation may use "
		    "(sctk.sql.operationMemory).",
		    (long long)x->c->e->op_memory);
		return exhausted(err, "UNABLE_TO_ACQUIRE_MEMORY", "53200",
		    text);
	}
	/* A denied function is a plain error (a name resolution one). */
	if ((code == SQLITE_AUTH || code == SQLITE_ERROR) &&
	    r->denied != SC_EDENY_NONE) {
		kind = r->denied;
		r->denied = SC_EDENY_NONE;
		if (kind == SC_EDENY_FUNCTION || kind == SC_EDENY_TABLE)
			return sc_eng_guard_refuse(kind == SC_EDENY_FUNCTION,
			    r->denied_what, err);
		if (kind == SC_EDENY_PRAGMA)
			return sc_srv_error(err, "UNSUPPORTED_FEATURE.PRAGMA",
			    "0A000",
			    "The feature is not supported: %s. sc-serve only reads the pragmas listed in sc-serve(1).",
			    r->denied_what);
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.STATEMENT",
		    "0A000",
		    "The feature is not supported: %s. sc-serve runs the SQL statements Spark SQL has.",
		    r->denied_what);
	}
	if (code == SQLITE_AUTH)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.STATEMENT",
		    "0A000",
		    "The feature is not supported: %s. sc-serve runs the SQL statements Spark SQL has.",
		    msg);
	if (code == SQLITE_TOOBIG && strcmp(msg, "statement too long") == 0) {
		snprintf(text, sizeof(text),
		    "The SQL text exceeds the limit of %d bytes.",
		    SC_ENGINE_MAX_SQL);
		return exhausted(err, "EXCEED_LIMIT_LENGTH", "54006", text);
	}
	if (code == SQLITE_TOOBIG)
		return sc_eng_too_big(err,
		    sqlite3_limit(x->c->db, SQLITE_LIMIT_LENGTH, -1),
		    "A string or binary value (or a row holding it)");
	if (code == SQLITE_NOMEM && sqlite3_hard_heap_limit64(-1) > 0) {
		snprintf(text, sizeof(text),
		    "Unable to acquire memory: SQLite's memory in sc-serve "
		    "reached its limit of %lld bytes (sctk.sql.heapLimit).",
		    (long long)sqlite3_hard_heap_limit64(-1));
		return exhausted(err, "UNABLE_TO_ACQUIRE_MEMORY", "53200",
		    text);
	}
	if (code == SQLITE_NOMEM)
		return exhausted(err, "UNABLE_TO_ACQUIRE_MEMORY", "53200",
		    "Unable to acquire memory: sc-serve is out of memory.");
	if (strcmp(msg, "parser stack overflow") == 0)
		return sc_srv_error(err, "FAILED_TO_PARSE_TOO_COMPLEX", "54001",
		    "The statement is too complex to parse: it nests parentheses or subqueries more deeply than the SQL parser allows. Divide it into simpler statements.");
	if (strncmp(msg, "Expression tree is too large", 28) == 0)
		return sc_srv_error(err, "FAILED_TO_PARSE_TOO_COMPLEX", "54001",
		    "The statement is too complex: an expression nests deeper than %d levels.",
		    SC_ENGINE_MAX_EXPR_DEPTH);
	return 0;
}
