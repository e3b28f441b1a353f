/* SPDX-License-Identifier: MIT */

/*
 * engine_int.h: the SQLite engine's insides, shared by lib/server/
 * engine*.c and by nothing else (engine.h is the engine's API).  The
 * types of a translation (columns, plans, one call in progress) and the
 * functions each engine file offers the others, under its name.
 */

#ifndef SC_ENGINE_INT_H
#define SC_ENGINE_INT_H

#include "engine/engine.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "core/arrow.h"
#include "core/buf.h"
#include "core/tz.h"
#include "core/value.h"

/* Lambda variables in scope at once (nested lambdas). */
#define SC_ENG_MAX_LAMBDA_VARS 16

/* Deepest nesting of relations and expressions a plan may have. */
#define SC_ENG_MAX_PLAN_DEPTH 200

/* A column type: an Arrow type, decimal precision/scale, zone flag. */
#define SC_ETYPE_UNKNOWN (-1)
struct sc_enest;
struct sc_etype {
	int t; /* enum sc_arrow_type or SC_ETYPE_UNKNOWN */
	int prec; /* DECIMAL128 */
	int scale; /* DECIMAL128 */
	bool ntz; /* TIMESTAMP_US: without time zone */
	/* STRUCT, LIST, MAP: the interned type (engine_nested.c) */
	const struct sc_enest *nest;
};

/* ---- nested types (engine_nested.c) ------------------------------- */
/*
 * A struct, array or map type, interned: one per distinct type for the
 * life of the process, so equal types have equal pointers.  A list has
 * one member (the element, nullable = containsNull), a map two (key,
 * value; nullable[1] = valueContainsNull), a struct its fields.
 */
struct sc_enest {
	int kind; /* SC_ARROW_STRUCT, SC_ARROW_LIST, SC_ARROW_MAP */
	size_t n;
	char **names; /* struct field names, else NULL */
	struct sc_etype *types;
	bool *nullable;
	char *key; /* the interning key */
	struct sc_enest *next;
};
/* ---- end nested types --------------------------------------------- */

/* An output column of a translated relation. */
#define SC_ECOL_PLAN_IDS 8
struct sc_ecol {
	char *name;
	struct sc_etype type; /* static type, or t UNKNOWN */
	int nullable; /* 1, 0, or -1 when unknown */
	bool inferred; /* type guessed from values */
	/* ---- DataFrame relations (engine_rel.c) ---- */
	char *sqlname; /* how SQL reads it when not `name` (a join), or NULL */
	/* The plan nodes (relations' plan ids) it came out of, latest first. */
	int64_t plan_ids[SC_ECOL_PLAN_IDS];
	unsigned nplan_ids;
};

/* One SQLite value (t is SQLITE_INTEGER ... SQLITE_NULL). */
struct sc_eval {
	int t;
	int64_t i;
	double d;
	const uint8_t *p; /* TEXT (not NUL-terminated), BLOB */
	size_t n;
};

struct sc_engine {
	char *uri; /* name given to sqlite3_open_v2 */
	int flags; /* its open flags */
	bool memdb;
	sqlite3 *anchor; /* keeps a memdb alive */
	int64_t op_memory; /* bytes per operation, 0 unlimited */
	int64_t max_value; /* bytes of one value */
	int64_t heap_limit; /* SQLite's hard heap limit, 0 none */
	sc_engine_files_fn *files; /* resolver of files/ names, or NULL */
	void *files_arg;
	/* Databases besides default (engine_db.c), under dblock. */
	pthread_mutex_t dblock;
	struct sc_edb *dbs;
	size_t ndbs;
	unsigned dbseq; /* ids of created databases */
	atomic_uint dbgen; /* changes when dbs does */
};

/* A database besides default: an attached SQLite database. */
struct sc_edb {
	char *name; /* lower case, [a-z0-9_] */
	char *path; /* what ATTACH opens */
	unsigned id; /* unique per creation */
};

/*
 * A session's connection.  Calls on it may run at the same time (one
 * sqlite3 handle, opened FULLMUTEX); each has a struct sc_erun.
 */
struct sc_engine_conn {
	struct sc_engine *e;
	sqlite3 *db;
	pthread_mutex_t lock; /* the fields below */
	struct sc_erun *runs; /* calls in progress */
	unsigned tmpseq; /* TEMP table names */
	char **stale; /* TEMP tables left to drop */
	size_t nstale;
	void *owner; /* given to e->files */
	struct sc_eview *views; /* temp views' Spark types (engine.c) */
	size_t nviews;
	/*
	 * The session's database (USE), NULL for default, under curlock:
	 * current_database() reads it inside a statement's step, holding
	 * the connection's SQLite mutex, so curlock guards nothing else.
	 */
	pthread_mutex_t curlock;
	char *curdb;
	/* The databases attached to db (engine_db.c), under lock. */
	struct sc_edb *att;
	size_t natt;
	unsigned dbgen; /* e->dbgen they match */
};

/*
 * A temp view made from Spark SQL: its columns' Spark types, which
 * SQLite's view does not keep (its decltype is NULL for an expression).
 * Valid while SQLite's view of that name still has body as its text.
 */
struct sc_eview {
	char *name; /* lower case, unquoted */
	char *body; /* the SELECT SQLite's view runs */
	struct sc_ecol *cols;
	size_t ncols;
	char **held; /* TEMP tables the view reads, dropped with it */
	size_t nheld;
};

/*
 * The session settings that change the engine's answers, read once when
 * a call begins (sc_eng_read_mode()); a call without a session has
 * Spark's defaults.
 */
struct sc_emode {
	bool ansi; /* spark.sql.ansi.enabled */
	bool case_sensitive; /* spark.sql.caseSensitive */
	char tz[64]; /* spark.sql.session.timeZone, as set */
	int transpose_max; /* spark.sql.transposeMaxValues (500) */
};

/* One call in progress on a connection. */
struct sc_erun {
	struct sc_engine_conn *c;
	atomic_int cancel; /* sc_engine_conn_interrupt() */
	const atomic_int *ext; /* the caller's flag, or NULL */
	struct sc_buf out; /* IPC of the batch to send */
	const struct sc_engine_sink *wsink; /* whose batches go to bw */
	sc_engine_batch_writer_fn *bw;
	char **tmp; /* TEMP tables to drop */
	size_t ntmp;
	char errmsg[512]; /* SQLite's, for this call */
	bool errcut; /* errmsg was cut short (ends in "...") */
	struct sc_erun *outer; /* the thread's previous run */
	struct sc_erun *next;
	struct sc_eacct *acct; /* its SQLite memory, or NULL */
	int denied; /* enum sc_edeny: what the authorizer refused */
	char denied_what[160]; /* and its name */
	bool exhausted; /* stopped by the memory limit */
	struct sc_emode mode; /* the session's settings */
	/*
	 * The statement being compiled or run holds a client's SQL text
	 * (a token of it copied through): the authorizer then refuses the
	 * engine's internal functions and introspection.  Clear otherwise,
	 * so only the engine's own SQL may call them.
	 */
	bool client_sql;
	bool client_ddl; /* ... and is a DROP or ALTER (engine_guard.c) */
};

/* Why the authorizer refused a statement (sc_erun.denied). */
enum sc_edeny {
	SC_EDENY_NONE = 0,
	SC_EDENY_STATEMENT, /* UNSUPPORTED_FEATURE.STATEMENT */
	SC_EDENY_PRAGMA, /* UNSUPPORTED_FEATURE.PRAGMA */
	SC_EDENY_FUNCTION, /* UNRESOLVED_ROUTINE */
	SC_EDENY_TABLE /* TABLE_OR_VIEW_NOT_FOUND */
};

/* One SQL parameter value: a literal, or an expression holding one. */
struct sc_eparam {
	const char *name; /* NULL: positional */
	const Spark__Connect__Expression__Literal *lit;
	const Spark__Connect__Expression *expr;
};

struct sc_eparams {
	struct sc_eparam *v;
	size_t n;
};

enum sc_eplan_kind {
	SC_EPLAN_SQL = 0, /* sql: a statement */
	SC_EPLAN_RANGE /* native range */
};

/* A translated relation. */
struct sc_eplan {
	enum sc_eplan_kind kind;
	struct sc_buf sql; /* the statement (also for a range) */
	/*
	 * Common table expressions sql reads from ("`_sc_q0` AS (...),
	 * ..."), empty when none; sc_eng_translate() puts them in front
	 * of sql ("WITH ... sql") before it returns.
	 */
	struct sc_buf with;
	/*
	 * sql is a list of statements the engine wrote for one of Spark's
	 * (CREATE TABLE ... AS is a CREATE and an INSERT), run in order;
	 * the result is the last one's.
	 */
	bool list;
	bool star_list; /* SQL has more columns than cols: * lists cols */
	char *table; /* a table reference to read from */
	char *alias; /* qualifier for the parent, or NULL */
	struct sc_ecol *cols; /* NULL: ask SQLite (names only) */
	size_t ncols;
	/* SC_EPLAN_RANGE: count values start, start + step, ... */
	int64_t start;
	int64_t step;
	uint64_t count;
};

/* Translation of one call: parameters of the plan's sql leaf. */
struct sc_ectx {
	struct sc_engine_conn *c;
	struct sc_erun *run;
	struct sc_eparams params;
	unsigned seq; /* for generated aliases */
	int depth;
	/* ---- grouping sets and pivot (engine_rel_group.c) ---- */
	char **gsql; /* the grouping expressions' SQL, while translating */
	size_t ngsql; /* grouping sets; 0 otherwise */
	unsigned long gmask; /* the set being translated: bit i = gsql[i] */
	const char *pivot_cond; /* a pivot value's rows, or NULL */
	/* ---- lambda variables in scope (engine_expr.c) ---- */
	struct sc_elvar {
		const char *name;
		char *sql;
		struct sc_etype type;
		int nullable;
	} lvars[SC_ENG_MAX_LAMBDA_VARS];
	size_t nlvars;
	unsigned lseq;
};

/* Batches being written for a sink (engine_run.c). */
struct sc_ebatch {
	struct sc_erun *run;
	struct sc_arrow_writer *w;
	const struct sc_engine_sink *sink;
	int64_t max_rows; /* > 0 */
	int64_t max_bytes; /* > 0 */
	int64_t sent; /* rows flushed */
};

/* sqlstmt.c */
void sc_eng_read_mode(struct sc_engine_conn *c, struct sc_emode *m);

/* engine.c */
struct sc_erun *sc_eng_current_run(void);
bool sc_eng_is_canceled(const struct sc_erun *r);
int sc_eng_canceled(struct sc_error *err);
int sc_eng_sqlite_error(struct sc_ectx *x, int rc, struct sc_error *err);
/*
 * UNRESOLVED_ROUTINE for the routine name (already in backquotes) in
 * Spark's words: its search path ends in spark_catalog and c's current
 * database (default when c is NULL).  Returns -1.
 */
int sc_eng_unresolved_routine(struct sc_engine_conn *c, const char *name,
    struct sc_error *err);
int sc_eng_prepare(struct sc_ectx *x, const char *sql, size_t len,
    sqlite3_stmt **st, const char **tail, struct sc_error *err);
int sc_eng_step(struct sc_ectx *x, sqlite3_stmt *st);
int sc_eng_exec(struct sc_ectx *x, const char *sql, struct sc_error *err);
int sc_eng_bind(struct sc_ectx *x, sqlite3_stmt *st, const struct sc_eparams *p,
    size_t *posused, struct sc_error *err);
void sc_eng_add_tmp(struct sc_ectx *x, const char *name);
unsigned sc_eng_next_tmp(struct sc_engine_conn *c);

/* engine_run.c */
int sc_eng_exec_plan(struct sc_ectx *x, struct sc_eplan *p,
    const struct sc_engine_limits *limits, const struct sc_engine_sink *sink,
    bool schema_only, struct sc_ecol **colsp, size_t *ncolsp,
    struct sc_error *err);
int sc_eng_batch_begin(struct sc_ebatch *b, struct sc_ectx *x,
    const struct sc_ecol *cols, size_t n, const struct sc_engine_limits *limits,
    const struct sc_engine_sink *sink, struct sc_error *err);
int sc_eng_batch_flush(struct sc_ebatch *b, struct sc_error *err);
int sc_eng_batch_end(struct sc_ebatch *b, struct sc_error *err);
void sc_eng_batch_release(struct sc_ebatch *b);

/* engine_plan.c */
void sc_eplan_init(struct sc_eplan *p);
void sc_eplan_release(struct sc_eplan *p);
void sc_ecols_free(struct sc_ecol *cols, size_t n);
/* Remember the Spark types of temp view name (its last part). */
void sc_eng_view_note(struct sc_engine_conn *c, const char *name,
    const char *body, size_t bodylen, const struct sc_ecol *cols, size_t n);
/* Keep the call's TEMP tables for temp view name (noted before). */
void sc_eng_view_adopt(struct sc_ectx *x, const char *name);
/* Fill unknown types of cols from the temp view table, if it is one. */
void sc_eng_view_types(struct sc_ectx *x, const char *table,
    struct sc_ecol *cols, size_t n);
int sc_eng_translate(struct sc_ectx *x, const Spark__Connect__Relation *r,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_plan_columns(struct sc_ectx *x, struct sc_eplan *p,
    struct sc_error *err);
int sc_eng_plan_limit(struct sc_ectx *x, struct sc_eplan *p, uint64_t n,
    struct sc_error *err);
/* `name`, as SQLite never reads a string (a backtick doubled). */
void sc_eng_quote_ident(struct sc_buf *b, const char *s);
void sc_eng_quote_string(struct sc_buf *b, const char *s, size_t n);
int sc_eng_unsupported_expression(const Spark__Connect__Expression *e,
    struct sc_error *err);
/*
 * Enter one more level of the plan (x->depth++; the caller decrements
 * it when it leaves): 0, or -1 (err set) past SC_ENG_MAX_PLAN_DEPTH.
 */
int sc_eng_deeper(struct sc_ectx *x, struct sc_error *err);

/* ---- DataFrame relations (engine_rel*.c; helpers in engine_plan.c) ---- */
int sc_eng_rel(struct sc_ectx *x, const Spark__Connect__Relation *r,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_wrap_plan(struct sc_ectx *x, struct sc_eplan *in,
    struct sc_eplan *out, struct sc_error *err);
void sc_eng_from_item(struct sc_ectx *x, struct sc_eplan *p,
    struct sc_eplan *out, struct sc_buf *b);
/*
 * As sc_eng_from_item(), and when two output columns of p differ only
 * in case (SQLite's names ignore case: 'null' and NULL), the common
 * table expression names p's columns _sc_c0, _sc_c1, ... instead, and
 * each column's sqlname says so.  Call it before reading p's columns.
 */
void sc_eng_from_item_positional(struct sc_ectx *x, struct sc_eplan *p,
    struct sc_eplan *out, struct sc_buf *b);
struct sc_ecol *sc_eng_cols_copy(const struct sc_ecol *src, size_t n);
void sc_eng_cols_add(struct sc_ecol **cols, size_t *n, const char *name,
    const struct sc_etype *t, int nullable);
/* How SQL reads column c: its sqlname, or its name quoted. */
void sc_eng_col_ref(struct sc_buf *b, const struct sc_ecol *c);
int sc_eng_join(struct sc_ectx *x, const Spark__Connect__Join *j,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_set_op(struct sc_ectx *x, const Spark__Connect__SetOperation *s,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_with_columns(struct sc_ectx *x, const Spark__Connect__WithColumns *w,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_drop(struct sc_ectx *x, const Spark__Connect__Drop *d,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_dedup(struct sc_ectx *x, const Spark__Connect__Deduplicate *d,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_tail(struct sc_ectx *x, const Spark__Connect__Tail *t,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_unpivot(struct sc_ectx *x, const Spark__Connect__Unpivot *u,
    struct sc_eplan *out, struct sc_error *err);
/* The index of p's generator (explode...), or (size_t)-1. */
size_t sc_eng_generator(const Spark__Connect__Project *p);
/* Join in with the generator's rows; its columns' SQL into gsql. */
int sc_eng_generate(struct sc_ectx *x, const Spark__Connect__Project *p,
    size_t gi, struct sc_eplan *in, struct sc_buf *gsql, struct sc_eplan *gcols,
    struct sc_error *err);
/* na.fill, na.drop, na.replace. */
int sc_eng_fill_na(struct sc_ectx *x, const Spark__Connect__NAFill *f,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_drop_na(struct sc_ectx *x, const Spark__Connect__NADrop *d,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_replace_na(struct sc_ectx *x, const Spark__Connect__NAReplace *r,
    struct sc_eplan *out, struct sc_error *err);
/* describe, summary, stat.cov, stat.corr (kind 0 cov, 2 corr). */
int sc_eng_describe(struct sc_ectx *x, const Spark__Connect__StatDescribe *d,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_summary(struct sc_ectx *x, const Spark__Connect__StatSummary *s,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_cov_corr(struct sc_ectx *x, const Spark__Connect__Relation *input,
    const char *c1, const char *c2, int kind, struct sc_eplan *out,
    struct sc_error *err);
/* engine_rel_freq.c: r, a sample, sample_by or stat relation below. */
int sc_eng_rel_sample_stat(struct sc_ectx *x, const Spark__Connect__Relation *r,
    struct sc_eplan *out, struct sc_error *err);
/* engine_rel_sample.c: sample(), stat.sampleBy(); their SQL functions. */
int sc_eng_sample(struct sc_ectx *x, const Spark__Connect__Sample *s,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_sample_by(struct sc_ectx *x, const Spark__Connect__StatSampleBy *s,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_sample_register(sqlite3 *db);
/* engine_rel_freq.c: stat.crosstab, stat.freqItems, stat.approxQuantile. */
int sc_eng_crosstab(struct sc_ectx *x, const Spark__Connect__StatCrosstab *c,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_freq_items(struct sc_ectx *x, const Spark__Connect__StatFreqItems *f,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_approx_quantile(struct sc_ectx *x,
    const Spark__Connect__StatApproxQuantile *q, struct sc_eplan *out,
    struct sc_error *err);
/* rollup, cube, grouping sets and pivot aggregations. */
int sc_eng_aggregate_sets(struct sc_ectx *x, const Spark__Connect__Aggregate *a,
    struct sc_eplan *out, struct sc_error *err);
/*
 * target.* where target is a struct column of in: its fields as select
 * items into sql and out's columns; 0, -1 (err set), or 1 when target
 * is no struct column (a qualifier).
 */
int sc_eng_struct_star(struct sc_ectx *x, const struct sc_eplan *in,
    const char *target, struct sc_buf *sql, struct sc_eplan *out,
    struct sc_error *err);
/* engine_window.c: a window expression over input in. */
struct sc_einfo;
int sc_eng_window(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__Window *w, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_error *err);
/* engine_rel_shape.c: DataFrame.to(schema), and helpers it shares. */
int sc_eng_to_schema(struct sc_ectx *x, const Spark__Connect__ToSchema *t,
    struct sc_eplan *out, struct sc_error *err);
/* Whether names a and b are equal under spark.sql.caseSensitive. */
bool sc_eng_name_eq(const struct sc_ectx *x, const char *a, const char *b);
/* UNRESOLVED_COLUMN.WITH_SUGGESTION: name, in's columns by likeness. */
int sc_eng_unresolved_in(const char *name, const struct sc_eplan *in,
    struct sc_error *err);
/* Equal flat types (large and plain string or binary are equal). */
bool sc_eng_same_flat(const struct sc_etype *a, const struct sc_etype *b);
/* SQL of Spark's ANSI CAST of sql (type from, or unknown) to type to. */
void sc_eng_ansi_cast(const char *sql, const struct sc_etype *from,
    const struct sc_etype *to, struct sc_buf *out);
/* engine_rel_transpose.c: DataFrame.transpose(). */
int sc_eng_transpose(struct sc_ectx *x, const Spark__Connect__Transpose *t,
    struct sc_eplan *out, struct sc_error *err);
/* engine_rel_parse.c: spark.read.csv/json of strings; cached relations. */
int sc_eng_parse(struct sc_ectx *x, const Spark__Connect__Parse *p,
    struct sc_eplan *out, struct sc_error *err);
int sc_eng_cached_local(struct sc_ectx *x,
    const Spark__Connect__CachedLocalRelation *c, struct sc_eplan *out,
    struct sc_error *err);
int sc_eng_chunked_local(struct sc_ectx *x,
    const Spark__Connect__ChunkedCachedLocalRelation *c, struct sc_eplan *out,
    struct sc_error *err);
/* Tag every column of p as coming out of plan node id. */
void sc_eng_plan_tag(struct sc_eplan *p, int64_t id);
/* Whether column c came out of plan node id. */
bool sc_eng_col_from(const struct sc_ecol *c, int64_t id);
/* ---- end DataFrame relations ---- */

/* engine_entry.c: whether SQL text s holds nothing but spaces, comments and ';'. */
bool sc_eng_sql_blank(const char *s);

/* engine_expr.c */
/* A multi-part identifier, split: a.`b.c` is "a", "b.c". */
struct sc_eident {
	char *parts[8];
	size_t n;
};
int sc_eng_ident_parse(const char *s, struct sc_eident *id,
    struct sc_error *err);
void sc_eng_ident_release(struct sc_eident *id);

/* What an expression produced besides its SQL. */
struct sc_einfo {
	struct sc_buf name; /* Spark's column name for it */
	struct sc_etype type; /* or t UNKNOWN */
	int nullable; /* 1 or 0 */
	bool aliased;
	char *unaliased; /* aliased: the name before the alias */
};
void sc_eng_einfo_init(struct sc_einfo *ei);
void sc_eng_einfo_release(struct sc_einfo *ei);
/* Translate e (over input in, which may be NULL) to SQL text. */
int sc_eng_expr(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression *e, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_error *err);
/* A select item e that casts a column takes the column's name (ei's). */
int sc_eng_cast_name(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression *e, struct sc_einfo *ei,
    struct sc_error *err);
int sc_eng_literal_param(const Spark__Connect__Expression__Literal *l,
    sqlite3_stmt *st, int idx, struct sc_error *err);

/*
 * engine_interval.c: Spark's interval types.  A day-time interval is
 * SC_ARROW_DURATION_US (microseconds), a year-month one
 * SC_ARROW_INTERVAL_YM (months), both INTEGER in SQLite; the etype's
 * prec and scale are its start and end fields (0 DAY ... 3 SECOND; 0
 * YEAR, 1 MONTH).  base: a lower-case type name starting "interval".
 */
int sc_eng_interval_parse_type(const char *base, struct sc_etype *out);
int sc_eng_interval_from_proto(const Spark__Connect__DataType *t,
    struct sc_etype *out, struct sc_error *err);
/* The value of 'text' of those fields (SQL's INTERVAL 'text' DAY ...). */
int sc_eng_interval_qualified(const char *text, int kind, int start, int end,
    int64_t *out);
/*
 * Cell (col, row) of b, of type t, as Spark's text of an interval of t's
 * fields into out: true; false when t is no interval.
 */
bool sc_eng_interval_cell(const struct sc_etype *t,
    const struct sc_arrow_batch *b, size_t col, size_t row, struct sc_buf *out);
/* engine_interval_fn.c: the SQLite functions of intervals. */
int sc_eng_interval_register(sqlite3 *db);
/*
 * Collations: a string etype's prec is SC_ECOLL_LCASE for Spark's
 * UTF8_LCASE (0: UTF8_BINARY); its SQL carries COLLATE UTF8_LCASE, a
 * collation engine_collate.c gives SQLite.  name: after
 * "string collate ", lower case.
 */
#define SC_ECOLL_LCASE 1
int sc_eng_collation_parse_type(const char *name, struct sc_etype *out);
int sc_eng_collate_register(sqlite3 *db);
/* Its SQLite declared type ("INTERVAL DAY_TO_SECOND": TO is a keyword). */
void sc_eng_interval_decl(const struct sc_etype *t, struct sc_buf *out);

/* engine_range.c */
int sc_eng_range_module(sqlite3 *db);
int sc_eng_range_count(int64_t start, int64_t end, int64_t step,
    uint64_t *count, struct sc_error *err);
int sc_eng_range_run(struct sc_ectx *x, const struct sc_eplan *p,
    const struct sc_engine_limits *limits, const struct sc_engine_sink *sink,
    struct sc_error *err);

/* engine_types.c */
int sc_eng_parse_type(const char *s, size_t n, bool sqlite_names,
    struct sc_etype *out);
int sc_eng_type_from_proto(const Spark__Connect__DataType *t,
    struct sc_etype *out, struct sc_error *err);
enum sc_value_type sc_eng_value_type(const struct sc_etype *t);
/* t's name in style (SC_VALUE_TYPENAME, SC_VALUE_SQL); 0 or -1. */
int sc_eng_type_text(const struct sc_etype *t, enum sc_value_style style,
    struct sc_buf *out);
void sc_eng_type_decl(const struct sc_etype *t, struct sc_buf *out);
Spark__Connect__DataType *sc_eng_schema_new(const struct sc_ecol *cols,
    size_t n);
int sc_eng_arrow_schema(const struct sc_ecol *cols, size_t n,
    struct sc_arrow_schema *out, struct sc_error *err);

/* engine_values.c */
void sc_eng_eval_column(sqlite3_stmt *st, int col, struct sc_eval *v);
int sc_eng_put(struct sc_arrow_writer *w, size_t col, const struct sc_ecol *c,
    const struct sc_eval *v, int64_t row, struct sc_error *err);
int sc_eng_register_functions(sqlite3 *db);

/* engine_guard.c */
struct sc_eacct;
bool sc_eng_guard_init(void);
int sc_eng_guard_conn(struct sc_engine_conn *c);
int sc_eng_guard_exec_own(struct sc_engine_conn *c, const char *sql);
int sc_eng_guard_attach(struct sc_engine_conn *c, const char *sql, int max);
/*
 * Whether name is one of sc-serve's internal SQL functions (the sc_
 * prefix, any case), which only the engine's own SQL may call.
 */
bool sc_eng_guard_internal(const char *name);
/* Whether name is a table SQLite keeps about itself (dbstat, pragma_*). */
bool sc_eng_guard_introspection(const char *name);
/* The error for client SQL naming the internal function or table name. */
int sc_eng_guard_refuse(bool function, const char *name, struct sc_error *err);
/*
 * Prepare sql, the engine's own (a catalog query), with
 * sqlite3_prepare_v2() even while a client statement runs.
 */
int sc_eng_guard_prepare_own(struct sc_engine_conn *c, const char *sql,
    sqlite3_stmt **st);

/* ---- databases (engine_db.c) --------------------------------------- */
void sc_eng_db_init(struct sc_engine *e);
int sc_eng_db_open(struct sc_engine *e, struct sc_error *err);
void sc_eng_db_close(struct sc_engine *e);
int sc_eng_db_sync(struct sc_engine_conn *c);
int sc_eng_db_conn_setup(struct sc_engine_conn *c);
void sc_eng_db_conn_free(struct sc_engine_conn *c);
int sc_eng_db_create(struct sc_ectx *x, const char *name, bool ifne,
    struct sc_error *err);
int sc_eng_db_drop(struct sc_ectx *x, const char *name, bool ifex, bool cascade,
    struct sc_error *err);
int sc_eng_db_use(struct sc_ectx *x, const char *name, struct sc_error *err);
char **sc_eng_db_names(struct sc_engine *e, size_t *n);
char *sc_eng_db_current(struct sc_engine_conn *c);
int sc_eng_db_schema(struct sc_ectx *x, const char *db, char **schema,
    struct sc_error *err);
int sc_eng_db_table(struct sc_ectx *x, char *const *parts, size_t n,
    bool must_exist, struct sc_buf *out, struct sc_error *err);
bool sc_eng_db_match(const char *pattern, const char *name);
int sc_eng_schema_not_found(const char *db, struct sc_error *err);
int sc_eng_guard_statement(struct sc_ectx *x, sqlite3_stmt *st,
    struct sc_error *err);
bool sc_eng_guard_over(struct sc_engine_conn *c, struct sc_erun *r);
int sc_eng_guard_error(struct sc_ectx *x, int rc, const char *msg,
    struct sc_error *err);
int sc_eng_too_big(struct sc_error *err, int64_t limit, const char *what);
int sc_eng_bind_error(sqlite3_stmt *st, int rc, struct sc_error *err);
struct sc_eacct *sc_eng_acct_new(void);
void sc_eng_acct_enter(struct sc_eacct *a);
int64_t sc_eng_acct_bytes(const struct sc_eacct *a);
void sc_eng_acct_done(struct sc_eacct *a);
void sc_eng_heap_limit(int64_t bytes);

/* engine_local.c */
/* A schema string (DDL "a INT, b STRING" or DataType JSON) as columns. */
int sc_eng_schema_string(const char *s, struct sc_ecol **cols, size_t *n,
    struct sc_error *err);
int sc_eng_local_relation(struct sc_ectx *x,
    const Spark__Connect__LocalRelation *lr, struct sc_eplan *out,
    struct sc_error *err);
/* One more Arrow IPC stream's rows into the table p's local relation made. */
int sc_eng_local_append(struct sc_ectx *x, const struct sc_eplan *p,
    const uint8_t *data, size_t len, struct sc_error *err);

/* ---- engine_nested.c: nested types and values -------------------- */
/* out = array<elem>, map<key,value>, struct<...>: 0 or -1 (err set). */
int sc_eng_nest_array(const struct sc_etype *elem, bool contains_null,
    struct sc_etype *out, struct sc_error *err);
int sc_eng_nest_map(const struct sc_etype *key, const struct sc_etype *value,
    bool value_null, struct sc_etype *out, struct sc_error *err);
int sc_eng_nest_struct(char *const *names, const struct sc_etype *types,
    const bool *nullable, size_t nf, struct sc_etype *out,
    struct sc_error *err);
/* A DDL type with struct<>, array<>, map<> anywhere in it. */
int sc_eng_nest_parse(const char *s, size_t n, struct sc_etype *out);
int sc_eng_nest_type_text(const struct sc_etype *t, enum sc_value_style style,
    struct sc_buf *out);
int sc_eng_nest_from_proto(const Spark__Connect__DataType *t,
    struct sc_etype *out, struct sc_error *err);
int sc_eng_nest_from_arrow(const struct sc_arrow_field *f, struct sc_etype *out,
    struct sc_error *err);
/* Any Arrow field's type (flat or nested): 0 or -1 (err set). */
int sc_eng_type_from_arrow(const struct sc_arrow_field *f, struct sc_etype *out,
    struct sc_error *err);
/* Fill f's type, its parameters and children for t. */
void sc_eng_arrow_field(const struct sc_etype *t, struct sc_arrow_field *f);
/* engine_nested_value.c: the JSON text of nested value v into w's col. */
int sc_eng_nest_put(struct sc_arrow_writer *w, size_t col,
    const struct sc_ecol *c, const struct sc_eval *v, struct sc_error *err);
/* SQL turning a value of type t into its form inside a nested value. */
void sc_eng_nest_encode(const struct sc_etype *t, const char *sql,
    struct sc_buf *out);
/* SQL turning such a form (json_extract's result) back into a value. */
void sc_eng_nest_decode(const struct sc_etype *t, const char *sql,
    struct sc_buf *out);
/* to_json: SQL of Spark's JSON text for x of type t (depth from 0). */
void sc_eng_nest_to_json(const struct sc_etype *t, const char *x,
    struct sc_buf *out, int depth);
/* from_json: SQL reading JSON text x as type t, in the nested form. */
void sc_eng_nest_from_json(const struct sc_etype *t, const char *x,
    struct sc_buf *out, int depth);
/* engine_nested_value.c: the JSON string at *pos (its quote) unescaped. */
int sc_eng_json_string(const char **pos, const char *end, struct sc_buf *out);
/* engine_nested_value.c: sc_each, sc_hex, sc_unhex, sc_raise: SQLite rc. */
int sc_eng_nest_register(sqlite3 *db);
/* Past the JSON value at p (before end), or NULL if it is cut short. */
const char *sc_eng_json_skip(const char *p, const char *end);
/* The JSON element p[0..n) as sc_each gives it: its value or its type. */
void sc_eng_json_elem(sqlite3_context *ctx, const char *p, size_t n,
    bool type_col);
/* engine_nested_zip.c: sc_zip(a0, ..., a7), arrays side by side. */
int sc_eng_zip_register(sqlite3 *db);
/* engine_func.c: the SQL functions SQLite lacks (sc_pad, sc_var...). */
int sc_eng_func_register(sqlite3 *db);
/* ---- end engine_nested.c ------------------------------------------ */

/*
 * engine.c: begin one call on connection c (r and x are the caller's,
 * cancel its flag or NULL); end it, dropping its TEMP tables.
 */
void sc_eng_call_begin(struct sc_engine_conn *c, struct sc_ectx *x,
    struct sc_erun *r, const atomic_int *cancel);
void sc_eng_call_end(struct sc_engine_conn *c, struct sc_ectx *x);

/* Deepest nesting of types and of values (engine_nested*.c). */
#define SC_ENG_NEST_MAX_DEPTH 32

/* ---- the SQL functions SQLite lacks, by file (engine_func*.c) ------ */
/* A scalar SQL function and its argument count (-1: any). */
struct sc_efunc {
	const char *name;
	int nargs;
	void (*fn)(sqlite3_context *, int, sqlite3_value **);
};
/* engine_func_rand.c: sc_rand(seed, gaussian), Spark's rand/randn. */
int sc_eng_func_rand_register(sqlite3 *db);
/* engine_func.c: register v[0..n) (UTF-8, deterministic): SQLite's rc. */
int sc_eng_func_add(sqlite3 *db, const struct sc_efunc *v, size_t n);
/* Give ctx the text in b (or no memory) and release b. */
void sc_eng_func_result_buf(sqlite3_context *ctx, struct sc_buf *b);
/* Give ctx the error fmt with its one %s, arg. */
void sc_eng_func_fail(sqlite3_context *ctx, const char *fmt, const char *arg);
/*
 * Fail ctx: internal function fn got arguments the engine's SQL never
 * gives it (a count, operator, unit or kind it does not take).
 */
void sc_eng_func_bad_args(sqlite3_context *ctx, const char *fn);
/* Each file's functions, registered by sc_eng_func_register(). */
int sc_eng_func_datetime_register(sqlite3 *db);
int sc_eng_regex_register(sqlite3 *db);
/*
 * engine_regex.c: argument i as a compiled regex_t (Java syntax
 * translated, cached on the statement), or NULL with ctx's error set.
 */
void *sc_eng_regex_arg(sqlite3_context *ctx, sqlite3_value **argv, int i);
int sc_eng_func_num_register(sqlite3 *db);
/* engine_func_num.c: whether the call running now has ANSI mode on. */
bool sc_eng_ansi(void);
/* engine_column.c: whether the call running now has case-sensitive names. */
bool sc_eng_case_sensitive(void);
/*
 * engine_column.c: compare two column, field or alias names as Spark's
 * resolver does: exactly with spark.sql.caseSensitive=true, else in any
 * case (strcmp's sign convention).
 */
int sc_eng_name_cmp(const char *a, const char *b);
int sc_eng_func_agg_register(sqlite3 *db);
int sc_eng_func_format_register(sqlite3 *db);
int sc_eng_func_more_register(sqlite3 *db);
/* engine_func_str.c: split_part, levenshtein, url_encode, ... */
int sc_eng_func_str_register(sqlite3 *db);
/* ---- end engine_func*.c -------------------------------------------- */

/* ---- the session time zone (engine_tz.c) --------------------------- */
/* The zone of the thread's current call, UTC outside one; never NULL. */
const struct sc_tz *sc_eng_tz_current(void);
/*
 * Timestamp text (sc_value_parse_timestamp()'s forms) as an instant:
 * its own zone if it has one, else z's wall clock.  0, or -1.
 */
int sc_eng_tz_parse(const struct sc_tz *z, const char *s, size_t n,
    int64_t *us);
/* sc_tz_local(), sc_tz_utc(), from/to_utc_timestamp: SQLite's rc. */
int sc_eng_tz_register(sqlite3 *db);
/*
 * A function call's arguments and result (engine_fncall.c): the
 * TIMESTAMP arguments of the functions that read wall-clock fields
 * become the session zone's wall-clock text; results given as wall
 * clock (date_trunc, make_timestamp, ...) become instants again, or
 * text (from_unixtime), from sql[from] on.
 */
struct sc_efarg;
struct sc_efdef;
void sc_eng_tz_args(const struct sc_efdef *fd, const char *lname,
    struct sc_efarg *a, size_t n);
void sc_eng_tz_result(const char *lname, const struct sc_efarg *a, size_t n,
    struct sc_buf *sql, size_t from);
/* ---- end engine_tz.c ----------------------------------------------- */

/* engine_files.c */
int sc_eng_files_read(struct sc_ectx *x,
    const Spark__Connect__Read__DataSource *ds, struct sc_eplan *out,
    struct sc_error *err);

/*
 * parse: the rows of rows (one string column) read as CSV or JSON lines,
 * as files are; scols (or NULL: inferred) the columns.  Into a TEMP table.
 */
int sc_eng_files_rows(struct sc_ectx *x, const char *format,
    const char *const *kv, size_t nkv, const struct sc_ecol *scols,
    size_t nscols, sqlite3_stmt *rows, struct sc_eplan *out,
    struct sc_error *err);

/* engine_show.c */
int sc_eng_show(struct sc_ectx *x, const Spark__Connect__ShowString *s,
    struct sc_buf *text, struct sc_error *err);

/* ---- Spark SQL text and analysis (sql*.c) ---------------------------- */

/* sqlanalyze.c: forget the persisted plans of c (it is being freed). */
void sc_eng_persist_forget(const struct sc_engine_conn *c);

/*
 * sqlstmt.c: the Spark statement text (SHOW, DESCRIBE, SET, USE,
 * EXPLAIN, CREATE, INSERT, ...; its markers bound to args' values, args
 * may be NULL) as plan p, SQL the engine writes that gives Spark's rows
 * and columns: 1; 0 when text begins as a query does (SELECT, VALUES,
 * WITH, TABLE); -1 (err set) when it fails, or is no statement of
 * Spark's (PARSE_SYNTAX_ERROR).
 */
int sc_eng_statement(struct sc_ectx *x, const char *text,
    const Spark__Connect__SQL *args, struct sc_eplan *p, struct sc_error *err);

/*
 * engine_entry.c: the sql relation q, which is no query, as the plan of
 * the statement it is (sc_eng_statement()); anything else is Spark's
 * PARSE_SYNTAX_ERROR.  0 or -1.
 */
int sc_eng_sql_statement(struct sc_ectx *x, const Spark__Connect__SQL *q,
    struct sc_eplan *out, struct sc_error *err);
/* engine_entry.c: prepare p's first statement, to see that it runs. */
int sc_eng_check_sql(struct sc_ectx *x, const struct sc_eplan *p,
    struct sc_error *err);

/*
 * engine_entry.c: the Spark SQL text of q as the plan the Spark SQL
 * parser makes of it, translated into p: 1; 0 when it is no query (a
 * statement: sc_eng_sql_statement()); -1 (err set).  A root
 * sql relation goes through it; engine_plan.c's sql relation case may
 * call it first too, so spark.sql(q).filter(...) gets the same answers.
 */
int sc_eng_spark_sql(struct sc_ectx *x, const Spark__Connect__SQL *q,
    struct sc_eplan *p, struct sc_error *err);

/*
 * engine_entry.c: translate the Spark SQL query text, its markers bound
 * to args' values (args may be NULL), as the plan the Spark SQL parser
 * makes of it: 0 (p filled), or -1 (err set; text that is no query is
 * PARSE_SYNTAX_ERROR).
 */
int sc_eng_translate_text(struct sc_ectx *x, const char *text,
    const Spark__Connect__SQL *args, struct sc_eplan *p, struct sc_error *err);

/* ---- end of Spark SQL text and analysis ------------------------------ */

/* ---- shared by the split engine_rel*.c and engine_plan*.c ---------- */

/* engine_rel.c: translate input r into p, with its columns known. */
int sc_eng_rel_input(struct sc_ectx *x, const Spark__Connect__Relation *r,
    const char *what, struct sc_eplan *p, struct sc_error *err);
/* engine_rel.c: p's column named name (any case), its index into *idx. */
const struct sc_ecol *sc_eng_col_named(const struct sc_eplan *p,
    const char *name, size_t *idx);
/* engine_rel.c: Spark's UNRESOLVED_COLUMN error for name. */
int sc_eng_unresolved(const char *name, struct sc_error *err);
/* engine_rel_join.c: t is one of the Arrow integer types. */
bool sc_eng_is_int(int t);
/* engine_plan.c: move src into dst (dst released first). */
void sc_eng_plan_move(struct sc_eplan *dst, struct sc_eplan *src);
/* engine_plan.c: put p's common table expressions in front of its SQL. */
void sc_eng_plan_finish(struct sc_eplan *p);
/* engine_plan.c: add the CTE "name[(cols)] AS (\nbody\n)" to w. */
void sc_eng_with_add(struct sc_buf *w, const char *name, char *const *cols,
    size_t ncols, const uint8_t *body, size_t n);
/* engine_plan.c: the first unknown field number of m, or 0. */
unsigned sc_eng_unknown_field(const ProtobufCMessage *m);
/* engine_plan.c: Spark's error for a relation type sc-serve lacks. */
int sc_eng_unsupported_relation(const Spark__Connect__Relation *r,
    struct sc_error *err);
/* engine_plan.c: INVALID_PLAN_INPUT: the what relation has no input. */
int sc_eng_no_input(const char *what, struct sc_error *err);

/* ---- end of the split files' shared helpers ------------------------ */

#endif
