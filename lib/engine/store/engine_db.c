/* SPDX-License-Identifier: MIT */

/*
 * engine_db.c: Spark's databases (namespaces) besides `default`.  Each
 * is a SQLite database attached under its name to every session's
 * connection, so SQL text that names d.t reaches it as SQLite reads
 * it; `default` is the connection's main database.  In memory a
 * database is a memdb shared by name; with --database FILE it is the
 * file "FILE.<name>.sqlite" beside it, found again at the next start.
 * The engine's list changes under its lock and bumps a generation; a
 * connection attaches and detaches to match when its next call begins.
 * The session's current database (USE) lives on its connection.
 */

#include "engine/engine_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* Longest database name. */
#define DB_NAME_MAX 64

/* Names SQLite keeps for itself, and the catalog's. */
static const char *const reserved[] = { "main", "temp", "spark_catalog",
	"global_temp", NULL };

int
sc_eng_schema_not_found(const char *db, struct sc_error *err)
{
	return sc_srv_error(err, "SCHEMA_NOT_FOUND", "42704",
	    "The schema `%s` cannot be found. Verify the spelling and "
	    "correctness of the schema and catalog.",
	    db);
}

static bool
is_default(const char *db)
{
	return strcasecmp(db, "default") == 0;
}

/* Whether name (lower case) is a name a database may have. */
static bool
valid_name(const char *name)
{
	size_t i;

	for (i = 0; name[i] != '\0'; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
			(name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
			return false;
	return i > 0 && i <= DB_NAME_MAX;
}

static char *
lower(const char *s)
{
	char *l = sc_xstrdup(s), *p;

	for (p = l; *p != '\0'; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return l;
}

/* The database called name in e's list (the lock held), or NULL. */
static struct sc_edb *
find(struct sc_engine *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->ndbs; i++)
		if (strcasecmp(e->dbs[i].name, name) == 0)
			return &e->dbs[i];
	return NULL;
}

/* The anchor's own ATTACH or DETACH of d; SQLite's result. */
static int
anchor_exec(struct sc_engine *e, bool attach, const struct sc_edb *d)
{
	char *sql;
	int rc;

	sql = attach ? sqlite3_mprintf("ATTACH %Q AS \"%w\"", d->path, d->name)
		     : sqlite3_mprintf("DETACH \"%w\"", d->name);
	if (sql == NULL)
		return SQLITE_NOMEM;
	rc = sqlite3_exec(e->anchor, sql, NULL, NULL, NULL);
	sqlite3_free(sql);
	return rc;
}

static void
add_db(struct sc_engine *e, const char *name, char *path)
{
	e->dbs = sc_xreallocarray(e->dbs, e->ndbs + 1, sizeof(*e->dbs));
	e->dbs[e->ndbs].name = sc_xstrdup(name);
	e->dbs[e->ndbs].path = path;
	e->dbs[e->ndbs].id = ++e->dbseq;
	e->ndbs++;
}

/* The file of database name beside e's --database file. */
static char *
db_file(const struct sc_engine *e, const char *name)
{
	return sc_xasprintf("%s.%s.sqlite", e->uri, name);
}

/* The databases a --database FILE had: FILE.<name>.sqlite beside it. */
static int
scan_files(struct sc_engine *e, struct sc_error *err)
{
	const char *slash = strrchr(e->uri, '/'), *base, *n;
	char *dir, name[DB_NAME_MAX + 1];
	struct dirent *de;
	size_t bl, nl;
	DIR *d;
	int fd;

	dir = slash != NULL ? sc_xstrndup(e->uri, (size_t)(slash - e->uri) + 1)
			    : sc_xstrdup(".");
	base = slash != NULL ? slash + 1 : e->uri;
	bl = strlen(base);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return 0; /* no databases besides default */
	}
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, base, bl) != 0 || de->d_name[bl] != '.')
			continue;
		n = de->d_name + bl + 1;
		nl = strlen(n);
		if (nl <= 7 || strcmp(n + nl - 7, ".sqlite") != 0 ||
		    nl - 7 > DB_NAME_MAX)
			continue;
		memcpy(name, n, nl - 7);
		name[nl - 7] = '\0';
		if (!valid_name(name) || is_default(name) || find(e, name))
			continue;
		if ((int)e->ndbs >=
		    sqlite3_limit(e->anchor, SQLITE_LIMIT_ATTACHED, -1))
			break;
		add_db(e, name, db_file(e, name));
		if (anchor_exec(e, true, &e->dbs[e->ndbs - 1]) != SQLITE_OK) {
			sc_error_set(err, SC_ST_IO,
			    "cannot open database '%s': %s",
			    e->dbs[e->ndbs - 1].path,
			    sqlite3_errmsg(e->anchor));
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return 0;
}

void
sc_eng_db_init(struct sc_engine *e)
{
	pthread_mutex_init(&e->dblock, NULL);
	atomic_init(&e->dbgen, 0);
}

int
sc_eng_db_open(struct sc_engine *e, struct sc_error *err)
{
	if (e->memdb)
		return 0;
	if (scan_files(e, err) == -1)
		return -1;
	if (e->ndbs > 0)
		atomic_fetch_add(&e->dbgen, 1);
	return 0;
}

void
sc_eng_db_close(struct sc_engine *e)
{
	size_t i;

	for (i = 0; i < e->ndbs; i++) {
		free(e->dbs[i].name);
		free(e->dbs[i].path);
	}
	free(e->dbs);
	pthread_mutex_destroy(&e->dblock);
}

/* ------------------------------------------------------------------ */
/* A connection's attached databases                                   */
/* ------------------------------------------------------------------ */

static bool
has_id(const struct sc_edb *v, size_t n, unsigned id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].id == id)
			return true;
	return false;
}

/*
 * Attach and detach on c's connection until it has e's databases; a
 * database in use by a statement still running stays for a later call.
 * 0, or -1 when some change has to wait.
 */
int
sc_eng_db_sync(struct sc_engine_conn *c)
{
	struct sc_engine *e = c->e;
	unsigned gen = atomic_load(&e->dbgen);
	struct sc_edb *want = NULL;
	size_t nwant = 0, i;
	char *sql;
	int max, rc = 0;

	if (gen == c->dbgen)
		return 0;
	pthread_mutex_lock(&c->lock);
	pthread_mutex_lock(&e->dblock);
	gen = atomic_load(&e->dbgen);
	if (e->ndbs > 0) {
		want = sc_xcalloc(e->ndbs, sizeof(*want));
		for (i = 0; i < e->ndbs; i++) {
			want[i].name = sc_xstrdup(e->dbs[i].name);
			want[i].path = sc_xstrdup(e->dbs[i].path);
			want[i].id = e->dbs[i].id;
		}
		nwant = e->ndbs;
	}
	pthread_mutex_unlock(&e->dblock);
	max = (int)(nwant > c->natt ? nwant : c->natt);
	for (i = 0; i < c->natt;) {
		if (has_id(want, nwant, c->att[i].id)) {
			i++;
			continue;
		}
		sql = sqlite3_mprintf("DETACH \"%w\"", c->att[i].name);
		if (sql == NULL ||
		    sc_eng_guard_attach(c, sql, max) != SQLITE_OK) {
			sqlite3_free(sql);
			rc = -1;
			i++;
			continue;
		}
		sqlite3_free(sql);
		free(c->att[i].name);
		free(c->att[i].path);
		c->att[i] = c->att[--c->natt];
	}
	for (i = 0; i < nwant; i++) {
		if (has_id(c->att, c->natt, want[i].id))
			continue;
		sql = sqlite3_mprintf("ATTACH %Q AS \"%w\"", want[i].path,
		    want[i].name);
		if (sql == NULL ||
		    sc_eng_guard_attach(c, sql, max) != SQLITE_OK) {
			sqlite3_free(sql);
			rc = -1;
			continue;
		}
		sqlite3_free(sql);
		c->att = sc_xreallocarray(c->att, c->natt + 1, sizeof(*c->att));
		c->att[c->natt++] = want[i];
		want[i].name = want[i].path = NULL;
	}
	for (i = 0; i < nwant; i++) {
		free(want[i].name);
		free(want[i].path);
	}
	free(want);
	if (rc == 0)
		c->dbgen = gen;
	pthread_mutex_unlock(&c->lock);
	return rc;
}

/* current_database(), current_schema(): the session's database. */
static void
fn_current(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct sc_engine_conn *c = sqlite3_user_data(ctx);
	char *db = sc_eng_db_current(c);

	(void)argc;
	(void)argv;
	sqlite3_result_text(ctx, db, -1, free);
}

int
sc_eng_db_conn_setup(struct sc_engine_conn *c)
{
	static const char *const names[] = { "current_database",
		"current_schema" };
	size_t i;
	int rc = SQLITE_OK;

	for (i = 0; i < 2 && rc == SQLITE_OK; i++)
		rc = sqlite3_create_function(c->db, names[i], 0, SQLITE_UTF8, c,
		    fn_current, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sc_eng_db_sync(c) == 0 ? SQLITE_OK : SQLITE_ERROR;
	return rc;
}

void
sc_eng_db_conn_free(struct sc_engine_conn *c)
{
	size_t i;

	for (i = 0; i < c->natt; i++) {
		free(c->att[i].name);
		free(c->att[i].path);
	}
	free(c->att);
	free(c->curdb);
}

char *
sc_eng_db_current(struct sc_engine_conn *c)
{
	char *db;

	pthread_mutex_lock(&c->curlock);
	db = sc_xstrdup(c->curdb != NULL ? c->curdb : "default");
	pthread_mutex_unlock(&c->curlock);
	return db;
}

/* ------------------------------------------------------------------ */
/* Statements                                                          */
/* ------------------------------------------------------------------ */

static int
bad_name(const char *name, struct sc_error *err)
{
	return sc_srv_error(err, "INVALID_SCHEMA_OR_RELATION_NAME", "42602",
	    "`%s` is not a valid name for tables/schemas. Valid names only "
	    "contain alphabet characters, numbers and _.",
	    name);
}

int
sc_eng_db_create(struct sc_ectx *x, const char *name, bool ifne,
    struct sc_error *err)
{
	struct sc_engine *e = x->c->e;
	char *l = lower(name), *path, *sql;
	size_t i;
	int rc = 0, max;

	for (i = 0; reserved[i] != NULL; i++)
		if (strcmp(l, reserved[i]) == 0) {
			rc = sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.SQL_STATEMENT", "0A000",
			    "The feature is not supported: a database named "
			    "`%s` (SQLite keeps the name).",
			    name);
			goto out;
		}
	if (!valid_name(l)) {
		rc = bad_name(name, err);
		goto out;
	}
	pthread_mutex_lock(&e->dblock);
	if (is_default(l) || find(e, l) != NULL) {
		pthread_mutex_unlock(&e->dblock);
		if (!ifne)
			rc = sc_srv_error(err, "SCHEMA_ALREADY_EXISTS", "42P06",
			    "Cannot create schema `%s` because it already "
			    "exists. Choose a different name, drop the "
			    "existing schema, or add the IF NOT EXISTS "
			    "clause to tolerate pre-existing schema.",
			    l);
		goto out;
	}
	max = sqlite3_limit(e->anchor, SQLITE_LIMIT_ATTACHED, -1);
	if ((int)e->ndbs >= max) {
		pthread_mutex_unlock(&e->dblock);
		rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.SQL_STATEMENT",
		    "0A000",
		    "The feature is not supported: more than %d databases "
		    "besides `default` (SQLite attaches at most %d); drop "
		    "one first.",
		    max, max);
		if (err != NULL)
			err->rpc_code = SC_GRPC_RESOURCE_EXHAUSTED;
		goto out;
	}
	path = e->memdb
	    ? sc_xasprintf("file:%s.%s.%u?vfs=memdb", e->uri, l, e->dbseq + 1)
	    : db_file(e, l);
	/*
	 * A file already there (more than the limit at the last start) is
	 * taken as it is: its tables come back rather than being lost.
	 */
	add_db(e, l, path);
	/*
	 * The first page now: a memdb's in no operation's memory account,
	 * a file's on disk, so an empty database is found at the next start.
	 */
	sql = sqlite3_mprintf("PRAGMA \"%w\".user_version=0", l);
	if (sql == NULL ||
	    anchor_exec(e, true, &e->dbs[e->ndbs - 1]) != SQLITE_OK ||
	    sqlite3_exec(e->anchor, sql, NULL, NULL, NULL) != SQLITE_OK) {
		sqlite3_free(sql);
		rc = sc_srv_error(err, "SQLITE_ERROR", "HY000",
		    "cannot create database `%s`: %s.", l,
		    sqlite3_errmsg(e->anchor));
		(void)anchor_exec(e, false, &e->dbs[e->ndbs - 1]);
		e->ndbs--;
		free(e->dbs[e->ndbs].name);
		free(e->dbs[e->ndbs].path);
		pthread_mutex_unlock(&e->dblock);
		goto out;
	}
	sqlite3_free(sql);
	atomic_fetch_add(&e->dbgen, 1);
	pthread_mutex_unlock(&e->dblock);
	(void)sc_eng_db_sync(x->c);
out:
	free(l);
	return rc;
}

/* The tables and views database d holds (via the anchor), or -1. */
static int
count_tables(struct sc_engine *e, const char *name)
{
	sqlite3_stmt *st = NULL;
	char *sql;
	int n = -1;

	sql = sqlite3_mprintf("SELECT count(*) FROM \"%w\".sqlite_schema "
			      "WHERE type IN ('table', 'view')",
	    name);
	if (sql != NULL &&
	    sqlite3_prepare_v2(e->anchor, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return n;
}

int
sc_eng_db_drop(struct sc_ectx *x, const char *name, bool ifex, bool cascade,
    struct sc_error *err)
{
	struct sc_engine *e = x->c->e;
	struct sc_edb *d, gone;
	char *j;

	if (is_default(name))
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.DROP_DATABASE",
		    "0A000",
		    "The feature is not supported: Drop the default "
		    "database `spark_catalog`.`default`.");
	pthread_mutex_lock(&e->dblock);
	if ((d = find(e, name)) == NULL) {
		pthread_mutex_unlock(&e->dblock);
		return ifex ? 0 : sc_eng_schema_not_found(name, err);
	}
	if (!cascade && count_tables(e, d->name) != 0) {
		pthread_mutex_unlock(&e->dblock);
		return sc_srv_error(err, "SCHEMA_NOT_EMPTY", "2BP01",
		    "Cannot drop a schema `%s` because it contains objects. "
		    "Use DROP SCHEMA ... CASCADE to drop the schema and all "
		    "its objects.",
		    d->name);
	}
	if (anchor_exec(e, false, d) != SQLITE_OK) {
		pthread_mutex_unlock(&e->dblock);
		return sc_srv_error(err, "SQLITE_BUSY", "40001",
		    "Cannot drop schema `%s` now: %s.", d->name,
		    sqlite3_errmsg(e->anchor));
	}
	gone = *d;
	*d = e->dbs[--e->ndbs];
	atomic_fetch_add(&e->dbgen, 1);
	pthread_mutex_unlock(&e->dblock);
	if (!e->memdb) {
		/* Sessions that still have it read the unlinked file. */
		(void)unlink(gone.path);
		j = sc_xasprintf("%s-journal", gone.path);
		(void)unlink(j);
		free(j);
	}
	free(gone.name);
	free(gone.path);
	(void)sc_eng_db_sync(x->c);
	return 0;
}

int
sc_eng_db_use(struct sc_ectx *x, const char *name, struct sc_error *err)
{
	struct sc_engine *e = x->c->e;
	struct sc_engine_conn *c = x->c;
	char *l = lower(name);
	bool known;

	pthread_mutex_lock(&e->dblock);
	known = is_default(l) || find(e, l) != NULL;
	pthread_mutex_unlock(&e->dblock);
	if (!known) {
		free(l);
		return sc_eng_schema_not_found(name, err);
	}
	pthread_mutex_lock(&c->curlock);
	free(c->curdb);
	c->curdb = is_default(l) ? NULL : l;
	pthread_mutex_unlock(&c->curlock);
	if (is_default(l))
		free(l);
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **
sc_eng_db_names(struct sc_engine *e, size_t *n)
{
	char **v;
	size_t i;

	pthread_mutex_lock(&e->dblock);
	v = sc_xcalloc(e->ndbs + 1, sizeof(*v));
	v[0] = sc_xstrdup("default");
	for (i = 0; i < e->ndbs; i++)
		v[i + 1] = sc_xstrdup(e->dbs[i].name);
	*n = e->ndbs + 1;
	pthread_mutex_unlock(&e->dblock);
	qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

/*
 * The SQLite schema of database db (NULL: the session's), "main" for
 * default, in *schema; SCHEMA_NOT_FOUND when there is no such database.
 */
int
sc_eng_db_schema(struct sc_ectx *x, const char *db, char **schema,
    struct sc_error *err)
{
	struct sc_engine *e = x->c->e;
	char *cur = db == NULL ? sc_eng_db_current(x->c) : NULL;
	const char *name = db != NULL ? db : cur;
	struct sc_edb *d;

	*schema = NULL;
	if (is_default(name)) {
		*schema = sc_xstrdup("main");
	} else {
		pthread_mutex_lock(&e->dblock);
		if ((d = find(e, name)) != NULL)
			*schema = sc_xstrdup(d->name);
		pthread_mutex_unlock(&e->dblock);
	}
	if (*schema == NULL) {
		sc_eng_schema_not_found(name, err);
		free(cur);
		return -1;
	}
	free(cur);
	(void)sc_eng_db_sync(x->c);
	return 0;
}

/* Whether schema (NULL: temp) has a table or view called name. */
static bool
has_table(struct sc_ectx *x, const char *schema, const char *name)
{
	sqlite3_stmt *st = NULL;
	char *sql;
	bool has = false;

	sql = sqlite3_mprintf("SELECT 1 FROM \"%w\".sqlite_schema WHERE type "
			      "IN ('table', 'view') AND name = ?1 COLLATE "
			      "NOCASE",
	    schema != NULL ? schema : "temp");
	if (sql != NULL &&
	    sc_eng_guard_prepare_own(x->c, sql, &st) == SQLITE_OK &&
	    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC) == SQLITE_OK)
		has = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return has;
}

/*
 * A table's name parts [0, n) (the catalog already taken off) as
 * SQLite reads it: db.t with default as main; t alone in the session's
 * database unless a temp view has that name (Spark looks there first).
 * Names are left as they were when the engine has only default.  With
 * must_exist, a bare name the session's database lacks is
 * TABLE_OR_VIEW_NOT_FOUND as written (SQLite would look further).
 */
int
sc_eng_db_table(struct sc_ectx *x, char *const *parts, size_t n,
    bool must_exist, struct sc_buf *out, struct sc_error *err)
{
	struct sc_engine *e = x->c->e;
	char *schema = NULL;
	bool only_default;
	size_t i;

	/* What SQLite keeps about itself is no table of Spark's. */
	if (n > 0 && sc_eng_guard_introspection(parts[n - 1]))
		return sc_eng_guard_refuse(false, parts[n - 1], err);
	pthread_mutex_lock(&x->c->curlock);
	only_default = x->c->curdb == NULL;
	pthread_mutex_unlock(&x->c->curlock);
	if (only_default)
		only_default = atomic_load(&e->dbgen) == 0;
	if (n == 1 && !only_default && !has_table(x, NULL, parts[0])) {
		if (sc_eng_db_schema(x, NULL, &schema, err) == -1)
			return -1;
		if (must_exist && !has_table(x, schema, parts[0])) {
			free(schema);
			sc_buf_reset(out);
			sc_eng_quote_ident(out, parts[0]);
			sc_buf_addch(out, '\0', NULL);
			return sc_srv_error(err, "TABLE_OR_VIEW_NOT_FOUND",
			    "42P01",
			    "The table or view %s cannot be found. Verify "
			    "the spelling and correctness of the schema and "
			    "catalog.",
			    (const char *)out->data);
		}
		sc_eng_quote_ident(out, schema);
		sc_buf_addch(out, '.', NULL);
		free(schema);
	}
	for (i = 0; i < n; i++) {
		if (i > 0)
			sc_buf_addch(out, '.', NULL);
		if (i + 1 < n && is_default(parts[i]))
			sc_eng_quote_ident(out, "main");
		else
			sc_eng_quote_ident(out, parts[i]);
	}
	return 0;
}

/* Spark's SHOW pattern: '*' any characters, '|' or; any case. */
bool
sc_eng_db_match(const char *pattern, const char *name)
{
	char *p = lower(pattern), *n = lower(name), *alt, *save = NULL;
	bool m = false;

	for (alt = strtok_r(p, "|", &save); alt != NULL && !m;
	     alt = strtok_r(NULL, "|", &save)) {
		while (*alt == ' ')
			alt++;
		alt[strcspn(alt, " ")] = '\0';
		m = sqlite3_strglob(alt, n) == 0;
	}
	free(p);
	free(n);
	return m;
}
