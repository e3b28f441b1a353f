/* SPDX-License-Identifier: MIT */

/*
 * arrow.h: Arrow IPC streaming format, hand-written reader and writer.
 *
 * The writer builds what Spark sends in one ExecutePlanResponse.ArrowBatch
 * (schema, one record batch, end-of-stream marker) for the flat types a
 * result row can hold.  The reader validates untrusted streams (both
 * framings, V4/V5) and exposes every type Spark sends, nested included;
 * the joiner re-frames many such streams into one.  Files: arrow.c
 * (schemas), arrow_write.c, arrow_read.c (validate, decode, re-frame),
 * arrow_format.c (values by type, as text and as JSON); arrow_int.h is
 * what they share.
 */

#ifndef SC_ARROW_H
#define SC_ARROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_buf;
struct sc_error;

/* Logical column types.  Add new values at the end. */
enum sc_arrow_type {
	SC_ARROW_NULL = 0,
	SC_ARROW_BOOL,
	SC_ARROW_INT8,
	SC_ARROW_INT16,
	SC_ARROW_INT32,
	SC_ARROW_INT64,
	SC_ARROW_FLOAT,
	SC_ARROW_DOUBLE,
	SC_ARROW_DECIMAL128, /* precision, scale */
	SC_ARROW_UTF8,
	SC_ARROW_LARGE_UTF8,
	SC_ARROW_BINARY,
	SC_ARROW_LARGE_BINARY,
	SC_ARROW_DATE32, /* days since 1970-01-01 */
	SC_ARROW_TIMESTAMP_US, /* microseconds; tz NULL = without time zone */
	SC_ARROW_STRUCT, /* children = the fields */
	SC_ARROW_LIST, /* one child ("element") */
	SC_ARROW_MAP, /* one child "entries": struct {key, value} */
	SC_ARROW_LARGE_LIST, /* one child, int64 offsets (read only) */
	SC_ARROW_DURATION_US, /* Spark's day-time interval: microseconds */
	SC_ARROW_INTERVAL_YM /* Spark's year-month interval: int32 months */
};

/*
 * A field.  All pointers are owned by the enclosing schema and freed by
 * sc_arrow_schema_release().  name is never NULL in a schema built by this
 * module (an absent name reads as "").
 */
struct sc_arrow_field {
	char *name;
	enum sc_arrow_type type;
	bool nullable;
	int precision; /* DECIMAL128 only */
	int scale; /* DECIMAL128 only */
	char *tz; /* TIMESTAMP_US; NULL = NTZ */
	struct sc_arrow_field *children;
	size_t nchildren;
};

struct sc_arrow_schema {
	struct sc_arrow_field *fields;
	size_t nfields;
};

/* Make s empty (no allocation). */
void sc_arrow_schema_init(struct sc_arrow_schema *s);
/* Free everything s owns; s is left empty (as after init). */
void sc_arrow_schema_release(struct sc_arrow_schema *s);
/* Deep copy src into dst (dst is overwritten, not released first). */
/*
 * Two fields alike in every attribute a value's type depends on: name,
 * type, nullability, precision and scale, time zone, and children.
 */
bool sc_arrow_field_equal(const struct sc_arrow_field *a,
    const struct sc_arrow_field *b);
void sc_arrow_schema_copy(struct sc_arrow_schema *dst,
    const struct sc_arrow_schema *src);
/*
 * Append a field (name copied) with all other attributes zero/NULL, and
 * return it.  The pointer stays valid until the next add to the same
 * schema.  Set precision/scale directly; set tz with sc_xstrdup().
 */
struct sc_arrow_field *sc_arrow_schema_add(struct sc_arrow_schema *s,
    const char *name, enum sc_arrow_type type, bool nullable);

/*
 * Spark's string form of an interval (CAST(i AS STRING)), NUL-terminated
 * in buf (SC_ARROW_INTERVAL_TEXT bytes); returns its length.  A day-time
 * interval is microseconds, its fields 0 DAY, 1 HOUR, 2 MINUTE, 3
 * SECOND ("INTERVAL '1 02:03:04.5' DAY TO SECOND"); a year-month one is
 * months, its fields 0 YEAR, 1 MONTH ("INTERVAL '1-2' YEAR TO MONTH").
 * An Arrow column holds no fields: readers show DAY TO SECOND and YEAR
 * TO MONTH, as a client knowing only the Arrow type would.
 */
#define SC_ARROW_INTERVAL_TEXT 64
size_t sc_arrow_fmt_dt_interval(int64_t us, int start, int end, char *buf);
size_t sc_arrow_fmt_ym_interval(int64_t months, int start, int end, char *buf);

/* "int64", "utf8", "timestamp[us]", ... (fixed strings, for messages). */
const char *sc_arrow_type_name(enum sc_arrow_type type);

/* ------------------------------------------------------------------ */
/* Writer                                                              */
/* ------------------------------------------------------------------ */

struct sc_arrow_writer;

/*
 * New writer for schema (deep-copied; the caller keeps its own).  Columns
 * of the flat types (NULL, BOOL, INT8..INT64, FLOAT, DOUBLE, DECIMAL128,
 * UTF8, LARGE_UTF8, BINARY, LARGE_BINARY, DATE32, TIMESTAMP_US) take the
 * sc_arrow_append_*() calls; STRUCT, LIST and MAP columns (any depth)
 * take their values through the node calls below.  Returns NULL (err
 * set, SC_ST_INTERNAL) for a LARGE_LIST, or a list or map whose children
 * are not as Arrow requires.  Free with sc_arrow_writer_free().
 */
struct sc_arrow_writer *sc_arrow_writer_new(const struct sc_arrow_schema *s,
    struct sc_error *err);
void sc_arrow_writer_free(struct sc_arrow_writer *w);
/* The writer's own copy of the schema. */
const struct sc_arrow_schema *sc_arrow_writer_schema(
    const struct sc_arrow_writer *w);

/*
 * Appending a row: call one sc_arrow_append_*() per column, in any column
 * order, then sc_arrow_writer_end_row().  Each append adds the next value
 * of that column.  Errors (-1, err set): col out of range or a value of
 * the wrong kind for the column type (SC_ST_INTERNAL: a caller bug); a
 * value out of range for the column type, a null in a non-nullable column,
 * a string/binary over 2 GiB (SC_ST_FAILED).  On error nothing is added.
 *
 * _int64: INT8/16/32/64 (range-checked), DATE32 (days, int32 range),
 *   TIMESTAMP_US (microseconds since the epoch, UTC for tz columns).
 * _double: FLOAT (converted, may round) and DOUBLE.
 * _bytes: UTF8, LARGE_UTF8 (p must be UTF-8; not checked), BINARY,
 *   LARGE_BINARY.  p may be NULL when n is 0.
 * _decimal128: the unscaled value as a 128-bit two's complement integer
 *   hi:lo; checked against the column precision.
 * _decimal_str: decimal text as Spark's CAST reads it, rounded half up
 *   to the column scale and precision-checked (sc_value_parse_decimal).
 * _null: any nullable column; the only append allowed for NULL columns.
 */
int sc_arrow_append_null(struct sc_arrow_writer *w, size_t col,
    struct sc_error *err);
int sc_arrow_append_bool(struct sc_arrow_writer *w, size_t col, bool v,
    struct sc_error *err);
int sc_arrow_append_int64(struct sc_arrow_writer *w, size_t col, int64_t v,
    struct sc_error *err);
/*
 * Append n rows start, start + step, ... to the only column of a
 * one-column int64 writer (a range): one bounds check and a tight loop
 * instead of n appends and n sc_arrow_writer_end_row() calls.  The rows
 * are complete afterwards.  Arithmetic wraps as in two's complement.
 */
int sc_arrow_append_int64_seq(struct sc_arrow_writer *w, int64_t start,
    int64_t step, size_t n, struct sc_error *err);
int sc_arrow_append_double(struct sc_arrow_writer *w, size_t col, double v,
    struct sc_error *err);
int sc_arrow_append_bytes(struct sc_arrow_writer *w, size_t col, const void *p,
    size_t n, struct sc_error *err);
int sc_arrow_append_decimal128(struct sc_arrow_writer *w, size_t col,
    int64_t hi, uint64_t lo, struct sc_error *err);
int sc_arrow_append_decimal_str(struct sc_arrow_writer *w, size_t col,
    const char *s, struct sc_error *err);

/*
 * Nested values.  sc_arrow_writer_node() gives column col for the
 * current row (NULL, err set, if it has a value already); a node's
 * children are sc_arrow_wnode_child() (a struct's fields; a list's one
 * element node; a map's one "entries" struct node of key and value).
 * A node takes one value per slot: sc_arrow_wnode_null() (a struct's
 * fields get a slot of their own), a scalar (_bool ... _decimal128, as
 * the sc_arrow_append_*() calls), or a nested value: a struct after one
 * value for each of its fields, a list or map after its elements (each
 * map entry is one value of the entries struct), then
 * sc_arrow_wnode_end().  A nested value left unfinished makes the row
 * fail at sc_arrow_writer_end_row() (the partial row is discarded).
 * Nodes stay valid until the writer is freed.
 */
struct sc_arrow_wnode;
struct sc_arrow_wnode *sc_arrow_writer_node(struct sc_arrow_writer *w,
    size_t col, struct sc_error *err);
struct sc_arrow_wnode *sc_arrow_wnode_child(struct sc_arrow_wnode *node,
    size_t i);
const struct sc_arrow_field *sc_arrow_wnode_field(
    const struct sc_arrow_wnode *node);
int sc_arrow_wnode_null(struct sc_arrow_wnode *node, struct sc_error *err);
int sc_arrow_wnode_bool(struct sc_arrow_wnode *node, bool v,
    struct sc_error *err);
int sc_arrow_wnode_int64(struct sc_arrow_wnode *node, int64_t v,
    struct sc_error *err);
int sc_arrow_wnode_double(struct sc_arrow_wnode *node, double v,
    struct sc_error *err);
int sc_arrow_wnode_bytes(struct sc_arrow_wnode *node, const void *p, size_t n,
    struct sc_error *err);
int sc_arrow_wnode_decimal128(struct sc_arrow_wnode *node, int64_t hi,
    uint64_t lo, struct sc_error *err);
int sc_arrow_wnode_end(struct sc_arrow_wnode *node, struct sc_error *err);

/*
 * Complete the current row: every column must have received exactly one
 * value since the previous end_row (else -1, SC_ST_INTERNAL, and the
 * partial row is discarded).  A zero-column schema just counts rows.
 */
int sc_arrow_writer_end_row(struct sc_arrow_writer *w, struct sc_error *err);
/* Completed rows buffered since the last flush. */
size_t sc_arrow_writer_rows(const struct sc_arrow_writer *w);
/*
 * Estimated size in bytes of the record batch body buffered so far
 * (validity, offsets and data, 8-byte padded), for batch size limits.
 */
size_t sc_arrow_writer_bytes(const struct sc_arrow_writer *w);

/*
 * Append one complete IPC stream to out: the schema message, one record
 * batch with the buffered rows (possibly 0 rows: Spark's shape for an
 * empty result), and the end-of-stream marker.  Then reset the row
 * buffers, keeping their allocations.  -1 if out's limit is exceeded
 * (the rows are kept then).
 */
int sc_arrow_writer_flush(struct sc_arrow_writer *w, struct sc_buf *out,
    struct sc_error *err);
/*
 * Free the value buffers of every column that keep more than max bytes
 * allocated while no row is buffered (after a flush), so that one large
 * value does not pin its copy for the writer's life.
 */
void sc_arrow_writer_trim(struct sc_arrow_writer *w, size_t max);
/* As flush, but only the record batch message (for multi-batch streams). */
int sc_arrow_writer_flush_batch(struct sc_arrow_writer *w, struct sc_buf *out,
    struct sc_error *err);

/* Append the schema message alone.  Any schema (nested included). */
int sc_arrow_write_schema(const struct sc_arrow_schema *s, struct sc_buf *out,
    struct sc_error *err);
/* Append the end-of-stream marker FF FF FF FF 00 00 00 00. */
int sc_arrow_write_eos(struct sc_buf *out, struct sc_error *err);

/* ------------------------------------------------------------------ */
/* Reader                                                              */
/* ------------------------------------------------------------------ */

struct sc_arrow_col; /* private: one decoded column */

/*
 * One decoded record batch, valid only during the callback.  Values point
 * into the caller's input bytes.  index counts batches from 0.
 */
struct sc_arrow_batch {
	const struct sc_arrow_schema *schema;
	size_t nrows;
	size_t index;
	const struct sc_arrow_col *cols; /* private */
};

/*
 * Called once per record batch.  Return 0 to continue, or -1 (after
 * filling err) to stop: sc_arrow_read_stream() then returns -1 with err
 * as the callback left it.
 */
typedef int sc_arrow_batch_fn(const struct sc_arrow_batch *b, void *arg,
    struct sc_error *err);

/*
 * Validate and decode the IPC stream p[0..n) (modern or legacy framing,
 * metadata V4 or V5), calling fn for each record batch in order.  Every
 * batch is fully validated (offsets, lengths, child lengths, UTF-8 is not
 * checked) before fn sees it.  The stream must start with a schema
 * message; the end-of-stream marker is optional; bytes after it are an
 * error.  Errors are SC_ST_PROTOCOL with a message saying what is wrong,
 * e.g. "unsupported Arrow type 'Union'", "compressed Arrow batches
 * unsupported; set spark.sql.execution.arrow.compression.codec=none",
 * "Arrow dictionary batches unsupported", "truncated Arrow stream".
 * fn may be NULL (validation only).
 */
int sc_arrow_read_stream(const void *p, size_t n, sc_arrow_batch_fn *fn,
    void *arg, struct sc_error *err);

/*
 * Decode just the schema message at the start of stream p[0..n) into
 * *out (initialised here; release with sc_arrow_schema_release()).
 */
int sc_arrow_read_schema(const void *p, size_t n, struct sc_arrow_schema *out,
    struct sc_error *err);

/*
 * Re-framing.  Spark sends a result as many IPC streams, one per
 * ExecutePlanResponse (a schema, record batches, an end-of-stream marker
 * each).  A joiner writes them as one stream: the first schema, every
 * record batch, one end-of-stream marker, each message in the modern
 * framing (continuation marker, metadata padded to 8 bytes).  Bytes go
 * out through fn as they are, without copies.  A result without columns
 * (a command's) writes nothing.
 */
typedef int sc_arrow_write_fn(void *arg, const void *p, size_t n,
    struct sc_error *err);

struct sc_arrow_join {
	sc_arrow_write_fn *write;
	void *arg;
	struct sc_arrow_schema schema; /* the first stream's */
	bool started; /* a stream was added */
};

/* Start a joiner writing through fn(arg, ...); allocates nothing. */
void sc_arrow_join_init(struct sc_arrow_join *j, sc_arrow_write_fn *fn,
    void *arg);
/*
 * Validate stream p[0..n) in full (as sc_arrow_read_stream()), check that
 * its schema equals the first stream's (else SC_ST_PROTOCOL "the result
 * schema changed between Arrow batches"), then write its record batches,
 * and its schema if it is the first.  Nothing of a stream that fails
 * validation is written.  *rows (if not NULL) gets its row count.  -1
 * with err as the check or fn left it.
 */
int sc_arrow_join_add(struct sc_arrow_join *j, const void *p, size_t n,
    uint64_t *rows, struct sc_error *err);
/* Write the end-of-stream marker (if a schema with columns went out). */
int sc_arrow_join_finish(struct sc_arrow_join *j, struct sc_error *err);
/* Free what j holds; sc_arrow_join_init() before reuse. */
void sc_arrow_join_release(struct sc_arrow_join *j);

/* True if the value is null (also for out-of-range col/row). */
bool sc_arrow_is_null(const struct sc_arrow_batch *b, size_t col, size_t row);

/*
 * Typed getters; 0 on success, -1 if col/row is out of range, the column
 * type does not fit, or the value is null (*out untouched then).
 * _int64: BOOL (0/1), INT8..INT64, DATE32, TIMESTAMP_US.
 * _double: FLOAT, DOUBLE, and the integer types.
 * _bytes: UTF8, LARGE_UTF8, BINARY, LARGE_BINARY (pointer into input).
 * _decimal128: DECIMAL128 unscaled value.
 */
int sc_arrow_get_int64(const struct sc_arrow_batch *b, size_t col, size_t row,
    int64_t *out);
int sc_arrow_get_double(const struct sc_arrow_batch *b, size_t col, size_t row,
    double *out);
int sc_arrow_get_bytes(const struct sc_arrow_batch *b, size_t col, size_t row,
    const uint8_t **p, size_t *n);
int sc_arrow_get_decimal128(const struct sc_arrow_batch *b, size_t col,
    size_t row, int64_t *hi, uint64_t *lo);

enum sc_arrow_fmt {
	SC_ARROW_FMT_TEXT = 0,
	SC_ARROW_FMT_JSON = 1,
	SC_ARROW_FMT_LOSSLESS = 2,
	SC_ARROW_FMT_SHOW = 3,
	SC_ARROW_FMT_CELL = 4
};

/*
 * Append the value at (col, row) to out and store its kind (an enum
 * sc_out_kind value from core/output.h: 0 NULL, 1 STRING, 2 NUMBER,
 * 3 BOOL, 4 JSON) in *kind_out if not NULL.
 *
 * SC_ARROW_FMT_TEXT appends raw text (never quoted), as Spark prints it:
 *   null -> nothing (kind NULL); bool -> true/false (BOOL);
 *   integers -> decimal (NUMBER); float/double -> Java's
 *   Float/Double.toString (sc_value_fmt_float/double in core/value.h):
 *   1.0, 0.001, 1.0E7, 1.0E-4, -0.0, 4.9E-324 (NUMBER), and NaN,
 *   Infinity, -Infinity (STRING); decimal -> sc_value_fmt_decimal(),
 *   12.30 for scale 2 (NUMBER); utf8 -> the bytes, invalid UTF-8
 *   replaced by U+FFFD (STRING); binary -> lowercase hex, no prefix
 *   (STRING); date -> sc_value_fmt_date(), YYYY-MM-DD (STRING);
 *   timestamp -> sc_value_fmt_timestamp(), YYYY-MM-DD HH:MM:SS[.ffffff]
 *   in UTC whatever the column's tz (STRING); struct, list, map -> the
 *   JSON text below (JSON).
 * SC_ARROW_FMT_JSON appends one JSON value: null, true/false, numbers
 *   as in TEXT, strings quoted and escaped like JavaScript's
 *   JSON.stringify (so NaN and Infinity become "NaN", "Infinity"),
 *   struct -> {"name":value,...}, list -> [v,...], map -> {"k":v,...}
 *   when the key type is UTF8/LARGE_UTF8, else [{"key":k,"value":v},...].
 * SC_ARROW_FMT_LOSSLESS appends JSON that keeps what JSON would lose:
 *   as JSON, but a struct is the array of its field values in order,
 *   a map the array of its [key, value] pairs, a decimal its text in
 *   quotes, binary its lowercase hex in quotes.
 * SC_ARROW_FMT_SHOW appends a cell as Spark's show() prints it: as
 *   TEXT, but binary is [0A FF], and nested values are [a, b] (arrays),
 *   {a, b} (structs), {k -> v, ...} (maps) with NULL for null members.
 * SC_ARROW_FMT_CELL appends a cell for text tables, CSV and TSV: as TEXT,
 *   but a struct, list or map as SHOW prints it, of kind STRING.
 * With kind_out: TEXT output plus kind is enough to build the JSON form
 * (quote when STRING, "null" when NULL, raw otherwise).
 * Returns -1 on a bad col/row (SC_ST_INTERNAL) or if out's limit is hit.
 */
int sc_arrow_format_value(const struct sc_arrow_batch *b, size_t col,
    size_t row, enum sc_arrow_fmt fmt, struct sc_buf *out, int *kind_out,
    struct sc_error *err);

#endif
