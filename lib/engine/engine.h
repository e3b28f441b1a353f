/* SPDX-License-Identifier: MIT */

/*
 * engine.h: the embedded SQLite engine of sc-serve.
 *
 * Spark Connect plans (a single-input chain of relations) are translated
 * to one SQLite statement whose rows are streamed out as Arrow IPC
 * batches; range() is generated natively.  One struct sc_engine per
 * process owns the database, one struct sc_engine_conn per session owns a
 * SQLite connection (so TEMP tables and views are session-scoped).
 *
 * Database.  NULL dbfile: an in-memory database in SQLite's memdb VFS
 * ("file:/sctk-<pid>-<n>?vfs=memdb"), shared by every connection of the
 * engine and alive until sc_engine_free(); SQLite caps it at 1 GiB
 * (then "database or disk is full").  A file is opened in WAL mode.
 * Every connection has a busy timeout (SC_ENGINE_BUSY_TIMEOUT_MS): a
 * writer waits for readers and other writers instead of failing at once,
 * and fails with SQLITE_BUSY after it.  The memdb has no WAL, so a
 * result being streamed (a read transaction, held while the sink blocks)
 * holds off writers of other sessions until it ends.  Several calls may
 * run on one struct sc_engine_conn at the same time (the operations of a
 * session, AnalyzePlan): its connection is opened SQLITE_OPEN_FULLMUTEX,
 * every call keeps its own state, and a native range never touches
 * SQLite.  Statements of one connection interleave row by row; a long
 * single step (a big aggregate) holds the connection until it returns.
 * Cancellation sets a flag that SQLite's progress handler and the batch
 * loops check (sqlite3_interrupt() is not used: it would also hit the
 * other calls of the connection).
 *
 * Restrictions (engine_guard.c).  User SQL gets what Spark SQL has: an
 * authorizer refuses ATTACH and DETACH (so also VACUUM, whose INTO form
 * writes a file), CREATE VIRTUAL TABLE, CREATE TRIGGER, BEGIN/COMMIT/
 * ROLLBACK and SAVEPOINT, every PRAGMA but the read-only ones of a short
 * list, and the functions fts3_tokenizer() (it installs or leaks a
 * process address) and load_extension(); connections run in SQLite's
 * defensive mode (no writable_schema, no sqlite_dbpage writes) with the
 * FTS3 tokenizer interface and extension loading off, no attached
 * database (SQLITE_LIMIT_ATTACHED 0), and no file name is read as a URI.
 * Limits: one string or binary value sctk.sql.maxValueSize bytes
 * (SQLITE_LIMIT_LENGTH), SQL text SC_ENGINE_MAX_SQL bytes, expression
 * depth SC_ENGINE_MAX_EXPR_DEPTH, one result row SC_ENGINE_MAX_ROW bytes
 * (it must fit a response message), and per operation the SQLite memory
 * allocated while it runs and not yet freed (sctk.sql.operationMemory,
 * checked by the progress handler); sctk.sql.heapLimit bounds all of
 * SQLite's memory in the process.  Plans are translated into a flat
 * list of common table expressions, one per relation, so a chain of
 * relations does not nest subqueries.
 *
 * Relations: sql (args, pos_args, named_arguments, pos_arguments bound as
 * SQLite parameters :name, @name, $name, ? and ?NNN; a root sql may hold
 * several statements, run in order, the last one giving the result),
 * range, local_relation (decoded into a TEMP table dropped when the call
 * ends), read.named_table (spark_catalog.default.t is main.t), project,
 * filter, sort, limit, offset, aggregate (GROUPBY), subquery_alias, to_df,
 * with_columns_renamed (3.5 map and 4.x renames), show_string.  A range
 * root, and limit/offset/to_df/subquery_alias/with_columns_renamed/a
 * projection of its column over a range, are produced natively without
 * SQLite; under anything else a range becomes the eponymous table-valued
 * function range(end), range(start, end[, step]), also usable in SQL.
 * Expressions: literal (scalar kinds), unresolved_attribute (a.b and
 * `quoted` parts), unresolved_function (operators == != <> < <= > >= <=>
 * + - * / % and or not, isnull, isnotnull, in, like, count/sum/avg/mean/
 * min/max with DISTINCT, and the scalar functions of funcs[] in
 * engine_expr.c), expression_string (SQL text, given to SQLite),
 * unresolved_star (also t.*), alias, cast (Spark semantics through the
 * SQL function sc_cast; ANSI errors unless eval_mode is TRY or LEGACY),
 * sort_order (in sort).  Spark SQL text: a root sql relation (and a
 * SqlCommand's query, and a view's body) that the Spark SQL parser
 * (sqlparse.c) takes becomes the unresolved plan Spark's parser would
 * make and is translated as above, so it has Spark's types, names and
 * function semantics; Spark's statements (SHOW TABLES, DESCRIBE, SET,
 * USE, EXPLAIN, ...) are answered by sqlstmt.c with Spark's columns.
 * Other user SQL (text the parser does not take, nested sql relations,
 * expression_string) goes to SQLite as written, except that CAST(e AS t)
 * and TRY_CAST with a Spark type become sc_cast() (Spark's conversions
 * and ANSI errors; SQLite's CAST('2024-01-02' AS DATE) is 2024), and the
 * type name STRING becomes TEXT in CREATE column definitions (SQLite's
 * NUMERIC affinity for "STRING" would turn '007' into 7).  Otherwise it
 * keeps SQLite's semantics: 7/2 is 3 in SQL text (the "/" function of a
 * plan divides as Spark does), comparisons give 0/1, "x" is a column or
 * else a string.  LIKE is case-sensitive, as in Spark.
 *
 * Result types.  Columns whose type the translation knows (literals,
 * casts, comparisons and boolean operators -> boolean, count -> bigint,
 * avg and "/" -> double, range id) use it; else the declared type of a
 * table column decides (BIGINT/LONG, INT/INTEGER, SMALLINT, TINYINT/BYTE,
 * BOOLEAN, DOUBLE/REAL (8 bytes, as SQLite stores it), FLOAT, STRING/
 * TEXT/VARCHAR/CHAR, BINARY/BLOB, DATE, TIMESTAMP, TIMESTAMP_NTZ,
 * DECIMAL(p,s)); else the type is inferred from the values of the first
 * rows (up to 10000 rows or 4 MiB, buffered): INTEGER -> bigint, REAL ->
 * double (INTEGER and REAL mixed -> double), TEXT -> string (also when
 * mixed with numbers), BLOB -> binary, all NULL or no rows -> void.
 * Later values are coerced: an integer into a double column, anything
 * into a string column as its SQLite text, an integral real into an
 * integer column; any other mismatch fails with INCONSISTENT_COLUMN_TYPE
 * (42804), asking for a CAST.  Comparisons in raw SQL stay bigint (SQLite
 * gives 0/1).  DATE values are 'YYYY-MM-DD' text (or integer days);
 * TIMESTAMP values 'YYYY-MM-DD[ T]HH:MM:SS[.ffffff][zone]' text, UTC when
 * no zone is given (or integer seconds); TIMESTAMP columns carry the
 * Arrow time zone "UTC".  Nullability: false for NOT NULL table columns,
 * range ids, literals and count; true otherwise.  Decimals kept as REAL
 * by SQLite arithmetic have 15 significant digits.
 *
 * Files.  read.data_source (format csv, json or text; paths, or the
 * option path, naming "files/..." artifacts of the session) and, in SQL,
 * csv.`files/x.csv`, json.`...`, text.`...` (Spark SQL's own form, with
 * default options) and sctk's read_files('files/x.csv', format => 'csv',
 * header => true, ...) load the files into a TEMP table of the call,
 * streamed line by line (twice when the schema is inferred).  Options:
 * header, inferSchema, sep/delimiter, quote, escape, nullValue, path;
 * multiLine false, mode PERMISSIVE and encoding UTF-8 only; others are
 * ignored, as Spark does; a schema (DDL or JSON) replaces inference.
 * CSV: columns _c0, _c1, ... (or the header's names) as wide as the
 * first record; every column string unless inferSchema (int, bigint,
 * double, date, timestamp, boolean, else string); an empty unquoted
 * field, or one equal to nullValue, is null; short records are padded
 * with nulls, long ones cut.  JSON lines: columns sorted by name, types
 * bigint, decimal(38,0), double, boolean, string; a line that is not an
 * object gives _corrupt_record; a nested value is
 * UNSUPPORTED_FEATURE.DATA_TYPE.  Text: one column value.  Names
 * outside files/ are UNSUPPORTED_FEATURE.DATA_SOURCE (0A000), as are
 * other formats and unsupported option values; a missing file is
 * PATH_NOT_FOUND (42K03), a bad name INVALID_ARTIFACT_PATH.
 *
 * Errors are Spark-style (sc_srv_error(): status SC_ST_FAILED, message
 * "[CLASS] text SQLSTATE: xxxxx"):
 *   TABLE_OR_VIEW_NOT_FOUND 42P01            SQLite "no such table"
 *   UNRESOLVED_COLUMN.WITHOUT_SUGGESTION 42703  "no such column"
 *   PARSE_SYNTAX_ERROR 42601                 SQLite syntax errors
 *   OPERATION_CANCELED HY008                 interrupted, or a sink
 *                                            callback returned -1
 *   UNRESOLVED_ROUTINE 42883                 unknown function
 *   WRONG_NUM_ARGS.WITHOUT_SUGGESTION 42605  bad argument count
 *   UNBOUND_SQL_PARAMETER 42P02              a parameter without a value
 *   TABLE_OR_VIEW_ALREADY_EXISTS 42P07       SQLite "already exists"
 *   INSERT_COLUMN_ARITY_MISMATCH.* 21S01     INSERT with too few or too
 *                                            many values for the columns
 *   AMBIGUOUS_REFERENCE 42704, COLUMN_ALREADY_EXISTS 42711,
 *   ORDER_BY_POS_OUT_OF_RANGE and GROUP_BY_POS_OUT_OF_RANGE 42805,
 *   GROUP_BY_AGGREGATE 42903, NUM_COLUMNS_MISMATCH 42826   SQLite's
 *                                            own words for these
 *   CONSTRAINT_VIOLATION 23000               SQLite constraint errors
 *   SQLITE_BUSY 40001                        lock wait timed out
 *   UNSUPPORTED_FEATURE.RELATION 0A000       relation type not supported;
 *                                            the message names it
 *                                            ("The relation type 'join' is
 *                                            not supported by sc-serve.")
 *   UNSUPPORTED_FEATURE.EXPRESSION 0A000     expression type not supported
 *   UNSUPPORTED_FEATURE.GROUP_TYPE 0A000     rollup/cube/pivot/sets
 *   UNSUPPORTED_FEATURE.DATA_TYPE 0A000      e.g. array literal, nested
 *                                            local_relation column
 *   INVALID_PLAN_INPUT 22023                 malformed plan (no input, a
 *                                            to_df with wrong count, ...)
 *   INVALID_PARAMETER_VALUE.RANGE 22023      range step 0
 *   INCONSISTENT_COLUMN_TYPE 42804           see "Result types"
 *   CAST_INVALID_INPUT 22018, CAST_OVERFLOW 22003   unconvertible values
 *   COMMAND_OUTPUT_TOO_LARGE 54000           SqlCommand output > 64 MiB
 *   UNSUPPORTED_FEATURE.STATEMENT 0A000      ATTACH, DETACH, VACUUM, CREATE
 *                                            VIRTUAL TABLE, CREATE TRIGGER,
 *                                            transactions, savepoints
 *   UNSUPPORTED_FEATURE.PRAGMA 0A000         a pragma not on the read-only
 *                                            list, or one that sets a value
 *   UNRESOLVED_ROUTINE 42883                 also fts3_tokenizer(),
 *                                            load_extension()
 *   EXCEED_LIMIT_LENGTH 54006                a value over the value limit,
 *                                            SQL text or a result row over
 *                                            theirs (RESOURCE_EXHAUSTED);
 *                                            a name in a plan's identifier
 *                                            over SC_ENGINE_MAX_IDENT bytes
 *   UNABLE_TO_ACQUIRE_MEMORY 53200           the operation's memory limit,
 *                                            or SQLite's heap limit, is
 *                                            reached (RESOURCE_EXHAUSTED)
 *   FAILED_TO_PARSE_TOO_COMPLEX 54001        SQL nested too deeply for
 *                                            SQLite's parser, or an
 *                                            expression deeper than
 *                                            SC_ENGINE_MAX_EXPR_DEPTH
 *   INVALID_PLAN_INPUT 22023                 local_relation Arrow data
 *                                            that cannot be read
 *                                            (UNSUPPORTED_FEATURE.DATA_TYPE
 *                                            for unsupported Arrow data)
 *   SQLITE_ERROR 42000 (HY000)               any other SQLite error, with
 *                                            SQLite's message (HY000 when
 *                                            it is not a plain SQL error)
 */

#ifndef SC_ENGINE_H
#define SC_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/protocol.h"

struct sc_arrow_writer;
struct sc_error;
struct sc_engine;
struct sc_engine_conn;

/* How long a connection waits for another one's lock. */
#define SC_ENGINE_BUSY_TIMEOUT_MS 30000

/* Longest SQL text one statement may have (SQLITE_LIMIT_SQL_LENGTH). */
#define SC_ENGINE_MAX_SQL (128 << 20)
/* Deepest expression tree (SQLITE_LIMIT_EXPR_DEPTH). */
#define SC_ENGINE_MAX_EXPR_DEPTH 1000
/* Longest name in an identifier (a.b.c: a table or column of a plan). */
#define SC_ENGINE_MAX_IDENT 4096
/*
 * Largest Arrow batch one result row may make: a batch is one response
 * message, and clients refuse messages over 128 MiB.
 */
#define SC_ENGINE_MAX_ROW (120 << 20)

/*
 * Open the engine's database: dbfile (a plain path, never a URI), or a
 * fresh shared in-memory one when dbfile is NULL.  NULL on failure (err
 * set).  Free with sc_engine_free() after every connection.  The first
 * call sets SQLite up for the process (the accounting allocator, no URI
 * file names), which only works before anything else uses SQLite; every
 * call sets SQLite's heap limit to the default of sctk.sql.heapLimit.
 */
struct sc_engine *sc_engine_new(const char *dbfile, struct sc_error *err);
void sc_engine_free(struct sc_engine *e);

/*
 * The engine's limits, in bytes: what one operation may allocate in
 * SQLite (0: no limit), the largest value, and SQLite's whole heap (0:
 * no limit).  sc-serve takes them from its settings (sctk.sql.*).
 */
struct sc_engine_config {
	int64_t op_memory;
	int64_t max_value;
	int64_t heap_limit;
};
/* Their defaults. */
#define SC_ENGINE_OP_MEMORY ((int64_t)256 << 20)
#define SC_ENGINE_MAX_VALUE ((int64_t)64 << 20)
#define SC_ENGINE_HEAP_LIMIT ((int64_t)4 << 30)

/*
 * Take the engine's limits from lim; sc_engine_new() starts with the
 * defaults.  Call it before the first connection: a connection keeps
 * the value limit it was opened with.  The heap limit is process-wide
 * (SQLite has one).
 */
void sc_engine_configure(struct sc_engine *e,
    const struct sc_engine_config *lim);

/*
 * Uploaded files.  fn opens the artifact name ("files/...", or
 * "cache/<hex>" for a cached_local_relation; the engine checks the
 * prefix) of the connection's owner: 0 with *fdp a new
 * read-only descriptor (the engine closes it), or -1 with err set
 * (PATH_NOT_FOUND 42K03 when there is none).  Set it before the first
 * connection; without it every file is PATH_NOT_FOUND.  See "Files".
 */
typedef int sc_engine_files_fn(void *arg, void *owner, const char *name,
    int *fdp, struct sc_error *err);
void sc_engine_set_files(struct sc_engine *e, sc_engine_files_fn *fn,
    void *arg);
/* The owner (a session) given to the files resolver; before any call. */
void sc_engine_conn_set_owner(struct sc_engine_conn *c, void *owner);

/* A new connection (one per session).  NULL on failure (err set). */
struct sc_engine_conn *sc_engine_conn_new(struct sc_engine *e,
    struct sc_error *err);
/* Close the connection; its TEMP tables and views go with it. */
void sc_engine_conn_free(struct sc_engine_conn *c);
/*
 * The rows changed on c so far (every INSERT, UPDATE and DELETE, the
 * engine's own too), and the rows the last of them changed.  A caller
 * that sees the first grow around a statement takes the second as what
 * the statement changed (sqlite3_total_changes64(), sqlite3_changes64()).
 */
int64_t sc_engine_total_changes(struct sc_engine_conn *c);
int64_t sc_engine_last_changes(struct sc_engine_conn *c);
/*
 * Whether closing c would lose nothing a client made: no call in
 * progress, no TEMP table, view or trigger, no attached database and no
 * USE of one.  Call it only while no other thread can start a call on c.
 */
bool sc_engine_conn_is_empty(struct sc_engine_conn *c);

/*
 * Cancel every call in progress on c (safe from any thread, at any time,
 * also while a call is blocked in a sink callback): each fails with
 * OPERATION_CANCELED.  A call that starts afterwards is not affected.
 * To cancel one of several concurrent calls, use the *_cancelable forms.
 */
void sc_engine_conn_interrupt(struct sc_engine_conn *c);

/*
 * How many TEMP tables of c have a name starting with prefix (the
 * engine's own, such as "_sc_local"), or -1.  Client SQL cannot read
 * SQLite's schema; this is how a test sees that they are dropped.
 */
int sc_engine_conn_temp_tables(struct sc_engine_conn *c, const char *prefix);

/*
 * Limits of one Arrow batch: a batch is closed when it holds max_rows
 * rows or its estimated body size (sc_arrow_writer_bytes()) reaches
 * max_bytes, whichever comes first (each batch holds at least one row).
 * <= 0, or a NULL limits pointer, means unlimited.
 */
struct sc_engine_limits {
	int64_t max_rows;
	int64_t max_bytes;
};

struct sc_engine_sink {
	/*
	 * The result schema as DataType{struct}; owned by the engine, valid
	 * during the call.  Return 0, or -1 to stop (the run then fails
	 * with OPERATION_CANCELED).
	 */
	int (*schema)(void *arg, const Spark__Connect__DataType *schema);
	/*
	 * One complete Arrow IPC stream (schema, one record batch, end of
	 * stream) of rows rows; start_offset is the number of rows in the
	 * batches before it.  ipc is valid during the call only.  May block
	 * (backpressure).  Return 0, or -1 to stop (OPERATION_CANCELED).
	 */
	int (*batch)(void *arg, const uint8_t *ipc, size_t len, int64_t rows,
	    int64_t start_offset);
	/*
	 * Optional: the row just computed holds bytes bytes in values of
	 * SC_ENGINE_LARGE_VALUE bytes or more (0: none, after a row that
	 * had some), before they are copied into its batch, which is then
	 * sent by itself.  May block (memory).  Return 0, or -1 to stop
	 * (OPERATION_CANCELED).
	 */
	void *arg;
	int (*large)(void *arg, int64_t bytes);
};
/* A value this large is counted before it is copied (sink->large). */
#define SC_ENGINE_LARGE_VALUE (1 << 20)

/*
 * Run the relation root: sink->schema once, then sink->batch once per
 * batch, at least once (an empty result gives one 0-row batch).  A sql
 * root that is not a query (DDL, DML) is executed and gives an empty
 * zero-column result; one with several statements runs them in order
 * and gives the last one's result.  0, or -1 with err set (nothing more
 * is sent to the sink after an error; batches already sent stay sent).
 */
int sc_engine_run(struct sc_engine_conn *c,
    const Spark__Connect__Relation *root, const struct sc_engine_limits *limits,
    const struct sc_engine_sink *sink, struct sc_error *err);

/*
 * Execute a SqlCommand: the 3.5 form (sql, args, pos_args) or the 4.x
 * form (input = Relation{sql}; it wins when both are set).  A statement
 * that is not a query (DDL, DML, or several statements, which are run in
 * order) is executed now and *result is Relation{local_relation{data:
 * one Arrow stream with the output of the last statement}}; a single
 * query is not run and *result is Relation{sql} echoing the query and its
 * arguments.  *result is heap-allocated: free it with
 * sc_engine_relation_free().  *result is set only on success.
 */
int sc_engine_sql_command(struct sc_engine_conn *c,
    const Spark__Connect__SqlCommand *cmd, Spark__Connect__Relation **result,
    struct sc_error *err);
void sc_engine_relation_free(Spark__Connect__Relation *r);

/*
 * As sc_engine_run() and sc_engine_sql_command(); in addition the call
 * stops with OPERATION_CANCELED once *cancel is non-zero (set it from any
 * thread; it is polled every 1000 SQLite VM steps, every 64 Ki range
 * rows and after every batch).  cancel may be NULL.  This cancels one
 * operation of a session whose other calls go on.
 */
int sc_engine_run_cancelable(struct sc_engine_conn *c,
    const Spark__Connect__Relation *root, const struct sc_engine_limits *limits,
    const struct sc_engine_sink *sink, const atomic_int *cancel,
    struct sc_error *err);
/*
 * A progress reporter for the statements this thread steps: called every
 * few thousand SQLite instructions while a query computes (it decides
 * whether a report is due); non-zero stops the statement, as a cancel
 * does.  NULL removes it.  Per thread: set it around a run.
 */
typedef int sc_engine_progress_fn(void *arg);
void sc_engine_set_progress(sc_engine_progress_fn *fn, void *arg);

/*
 * Instead of sink->batch: the writer w holding the batch's rows;
 * bw writes the stream itself with sc_arrow_writer_flush(), into memory
 * of its own (no copy), with sink->arg.  Return 0, or -1 to stop.
 */
typedef int sc_engine_batch_writer_fn(void *arg, struct sc_arrow_writer *w,
    int64_t rows, int64_t start_offset);
/* As sc_engine_run_cancelable(), with the batches of sink given to bw. */
int sc_engine_run_writer(struct sc_engine_conn *c,
    const Spark__Connect__Relation *root, const struct sc_engine_limits *limits,
    const struct sc_engine_sink *sink, sc_engine_batch_writer_fn *bw,
    const atomic_int *cancel, struct sc_error *err);
int sc_engine_sql_command_cancelable(struct sc_engine_conn *c,
    const Spark__Connect__SqlCommand *cmd, Spark__Connect__Relation **result,
    const atomic_int *cancel, struct sc_error *err);

/*
 * df.createTempView(name) (replace false) and createOrReplaceTempView
 * (replace true): a TEMP view of input on c, which keeps input's Spark
 * types and the TEMP tables input reads (a local relation's rows) for as
 * long as it lives.  Fails with TEMP_TABLE_OR_VIEW_ALREADY_EXISTS 42P07
 * when replace is false and name is taken, INVALID_IDENTIFIER 42602 for
 * a name of several parts, UNSUPPORTED_FEATURE.COMMAND for a global
 * view.  0, or -1 with err set.
 */
int sc_engine_create_view(struct sc_engine_conn *c,
    const Spark__Connect__Relation *input, const char *name, bool global,
    bool replace, const atomic_int *cancel, struct sc_error *err);

/*
 * AnalyzePlan.schema: the result schema of root as DataType{struct}.
 * Types inferred from values need the first rows (up to 10000) to be
 * computed; a statement that writes is never run for that (its unknown
 * types are void), and several statements are a PARSE_SYNTAX_ERROR.
 * A show_string root runs its input.  Free *out with
 * sc_engine_datatype_free().
 */
int sc_engine_schema(struct sc_engine_conn *c,
    const Spark__Connect__Relation *root, Spark__Connect__DataType **out,
    struct sc_error *err);
void sc_engine_datatype_free(Spark__Connect__DataType *t);

/*
 * AnalyzePlan.explain: a malloc'ed text (free()) with the SQL the plan
 * became and SQLite's EXPLAIN QUERY PLAN; mode is ExplainMode (1 simple,
 * 2 extended, 3 codegen, 4 cost, 5 formatted): extended, codegen and
 * cost add the SQLite bytecode program.  A native range says so.
 */
int sc_engine_explain(struct sc_engine_conn *c,
    const Spark__Connect__Relation *root, int mode, char **text,
    struct sc_error *err);

/*
 * AnalyzePlan.tree_string: Spark's printSchema text, malloc'ed (free()):
 * "root\n |-- id: long (nullable = false)\n".
 */
int sc_engine_tree_string(struct sc_engine_conn *c,
    const Spark__Connect__Relation *root, char **text, struct sc_error *err);

/*
 * Append the printSchema name of DataType t ("long", "decimal(10,2)",
 * "void", ...) to out.  0, or -1 (SC_ST_FAILED) for a type the engine
 * does not produce.
 */
struct sc_buf;
int sc_engine_type_name(const Spark__Connect__DataType *t, struct sc_buf *out,
    struct sc_error *err);

/*
 * AnalyzePlan kinds that run no SQL (sqlanalyze.c).  A plan's identity
 * is its serialized root with every plan id cleared: same_semantics
 * compares identities, semantic_hash is their CRC-32 (so two plans Spark
 * would find equal only after analysis, "SELECT 1" and "SELECT  1",
 * differ here).  input_files lists the paths of the plan's data sources
 * as given (malloc'ed array of malloc'ed strings, the caller frees
 * them).  ddl_parse reads a DDL schema ("a INT, b STRING") or a bare
 * type ("decimal(10,2)") as DataType (free with
 * sc_engine_datatype_free()); json_to_ddl writes a DataType JSON schema
 * as Spark's DDL ("a INT,b STRING NOT NULL"), malloc'ed.
 */
int sc_engine_same_semantics(const Spark__Connect__Relation *a,
    const Spark__Connect__Relation *b, bool *same, struct sc_error *err);
int sc_engine_semantic_hash(const Spark__Connect__Relation *root, int32_t *hash,
    struct sc_error *err);
int sc_engine_input_files(const Spark__Connect__Relation *root, char ***files,
    size_t *n, struct sc_error *err);
int sc_engine_ddl_parse(const char *ddl, Spark__Connect__DataType **out,
    struct sc_error *err);
int sc_engine_json_to_ddl(const char *json, char **ddl, struct sc_error *err);

/*
 * Persisted plans (Dataset.persist()): the storage level a plan was
 * persisted with, per connection, until unpersist or the connection is
 * freed.  Results are computed again each time.  A plan never persisted
 * has StorageLevel.NONE (all false, replication 1).
 */
struct sc_engine_storage {
	bool use_disk;
	bool use_memory;
	bool use_off_heap;
	bool deserialized;
	int32_t replication;
};
int sc_engine_persist(struct sc_engine_conn *c,
    const Spark__Connect__Relation *root, const struct sc_engine_storage *level,
    struct sc_error *err);
int sc_engine_unpersist(struct sc_engine_conn *c,
    const Spark__Connect__Relation *root, struct sc_error *err);
int sc_engine_storage_level(struct sc_engine_conn *c,
    const Spark__Connect__Relation *root, struct sc_engine_storage *level,
    struct sc_error *err);

/*
 * The session settings SQL's SET and RESET read and write; owner is the
 * connection's owner (sc_engine_conn_set_owner()).  get: a malloc'ed
 * value (a set one, or Spark's default) or NULL; set: as Config's set,
 * 0 or -1 (err set); unset: key, or every key when NULL; each: the set
 * values, in key order.  Set once, before the first connection.
 */
struct sc_engine_conf_ops {
	char *(*get)(void *owner, const char *key);
	int (*set)(void *owner, const char *key, const char *value,
	    struct sc_error *err);
	int (*unset)(void *owner, const char *key, struct sc_error *err);
	void (*each)(void *owner,
	    void (*fn)(const char *key, const char *value, void *arg),
	    void *arg);
};
void sc_engine_set_conf(struct sc_engine *e,
    const struct sc_engine_conf_ops *ops);

/*
 * Whether value is a time zone Spark accepts for key
 * (spark.sql.session.timeZone): 0, or -1 with Spark's
 * INVALID_CONF_VALUE.TIME_ZONE in err (engine_tz.c).
 */
int sc_engine_tz_check(const char *key, const char *value,
    struct sc_error *err);

#endif
