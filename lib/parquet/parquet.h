/* SPDX-License-Identifier: MIT */

/*
 * parquet.h: Parquet files read and written with Spark's type mapping.
 *
 * A file's schema is a Spark struct type (struct sc_parquet_type: the
 * types of core/value.h, nested arrays, maps and structs).  Reading is
 * streamed by row group: sc_parquet_reader_next_group() decodes the
 * next row group's column chunks (memory bounded by one row group, and
 * by the reader's limit), then rows come out one by one as text, or a
 * leaf column's levels and values are taken as they are.
 *
 * Values as text are the engine's lossless JSON (core/arrow.h's
 * SC_ARROW_FMT_LOSSLESS): null, true/false, integers in decimal, float
 * and double as Java prints them ("NaN", "Infinity" and "-Infinity"
 * quoted), a decimal's plain text quoted ("12.30"), strings quoted,
 * binary as quoted lowercase hex, dates "YYYY-MM-DD", timestamps
 * "YYYY-MM-DD HH:MM:SS[.ffffff]" (an instant in UTC; a timestamp_ntz as
 * its wall clock); an array a JSON array, a struct the array of its
 * field values in order, a map the array of its [key, value] pairs.  A
 * row is a struct.  The writer takes rows in the same form.
 *
 * What Spark writes, the writer writes: boolean BOOLEAN; byte and short
 * INT32 with INT(8)/INT(16); int INT32; long INT64; float FLOAT; double
 * DOUBLE; decimal(p, s) INT32 for p <= 9, INT64 for p <= 18, else
 * FIXED_LEN_BYTE_ARRAY of the fewest bytes for p; string BYTE_ARRAY
 * STRING; binary BYTE_ARRAY; date INT32 DATE; timestamp INT64
 * TIMESTAMP(MICROS, isAdjustedToUTC=true); timestamp_ntz INT64
 * TIMESTAMP(MICROS, false); arrays as 3-level LIST groups (list/element),
 * maps as MAP groups (key_value/key/value), structs as groups.  The
 * reader also takes what other writers make: INT96 timestamps, millis
 * and nanos, unsigned integers, 2-level lists and repeated fields.
 */

#ifndef SC_PARQUET_H
#define SC_PARQUET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/value.h"

struct sc_buf;
struct sc_error;
struct sc_pq_vals;

/* Types nest at most this deep (HACKING.md's bound for types). */
#define SC_PARQUET_MAX_DEPTH 32

/*
 * A Spark type: kind is an enum sc_value_type (BOOLEAN, BYTE, SHORT, INT,
 * LONG, FLOAT, DOUBLE, DECIMAL, STRING, BINARY, DATE, TIMESTAMP,
 * TIMESTAMP_NTZ, ARRAY, MAP, STRUCT); a field or element carries its name
 * and nullability.  ARRAY has one child (the element), MAP two (key,
 * value), STRUCT its fields.
 */
struct sc_parquet_type {
	int kind;
	int precision, scale; /* DECIMAL */
	char *name; /* a struct field's name; NULL for elements */
	bool nullable;
	struct sc_parquet_type **child;
	size_t nchild;
};

/*
 * A Spark DDL list of columns, "a int, b array<string> not null, c
 * struct<x:int,y:decimal(10,2)>, d map<string,double>", as a STRUCT
 * type (free with sc_parquet_type_free()).  NULL and SC_ST_USAGE on text
 * that is not one.
 */
struct sc_parquet_type *sc_parquet_type_parse(const char *ddl,
    struct sc_error *err);
/* Append t's fields as DDL (the inverse of the above): "a INT, ...". */
void sc_parquet_type_ddl(const struct sc_parquet_type *t, struct sc_buf *out);
/* Append one type's simpleString: int, array<string>, struct<a:int>. */
void sc_parquet_type_simple(const struct sc_parquet_type *t,
    struct sc_buf *out);
void sc_parquet_type_free(struct sc_parquet_type *t);

/* --- reading -------------------------------------------------------- */

struct sc_parquet_reader;

struct sc_parquet_read_opts {
	/*
	 * The most bytes one row group's decoded columns may take (levels,
	 * values and page buffers); 0 means 1 GiB.  A file needing more is
	 * refused (SC_ST_INTERNAL, "... exceeds the reader's limit").
	 */
	size_t max_group_bytes;
};

/*
 * Open path and read its footer and schema.  NULL on failure: SC_ST_IO
 * (cannot open or read), SC_ST_PROTOCOL ("'f': not a Parquet file",
 * malformed metadata), SC_ST_USAGE (a type Spark cannot read).  opts may
 * be NULL.  Free with sc_parquet_reader_free().
 */
struct sc_parquet_reader *sc_parquet_reader_open(const char *path,
    const struct sc_parquet_read_opts *opts, struct sc_error *err);
/* The same, from a file already open (not closed by the reader). */
struct sc_parquet_reader *sc_parquet_reader_fdopen(int fd, const char *name,
    const struct sc_parquet_read_opts *opts, struct sc_error *err);
void sc_parquet_reader_free(struct sc_parquet_reader *r);

/* The file's columns as a STRUCT (owned by the reader). */
const struct sc_parquet_type *sc_parquet_reader_schema(
    const struct sc_parquet_reader *r);
int64_t sc_parquet_reader_num_rows(const struct sc_parquet_reader *r);
uint32_t sc_parquet_reader_num_groups(const struct sc_parquet_reader *r);
/* The footer's "created_by", or NULL. */
const char *sc_parquet_reader_created_by(const struct sc_parquet_reader *r);

/*
 * Decode the next row group: 1, 0 after the last, -1 on failure (the
 * reader is then done).  Rows of the previous group are dropped.
 */
int sc_parquet_reader_next_group(struct sc_parquet_reader *r,
    struct sc_error *err);
/* Rows in the current group. */
int64_t sc_parquet_reader_group_rows(const struct sc_parquet_reader *r);

/*
 * Append the current group's next row as text (see above) to out: 1, 0
 * at the group's end, -1 on failure (levels that contradict the schema).
 */
int sc_parquet_reader_row(struct sc_parquet_reader *r, struct sc_buf *out,
    struct sc_error *err);
/*
 * The same, one text per top-level column: out[i] gets column i's value
 * (out has as many buffers as the schema has fields).
 */
int sc_parquet_reader_row_values(struct sc_parquet_reader *r,
    struct sc_buf *out, struct sc_error *err);

/*
 * A leaf column of the current group as stored: levels per entry
 * (def[i], rep[i]; NULL when the column's maximum is 0) and the
 * non-null values in order.  Owned by the reader until the next group.
 */
struct sc_parquet_leaf {
	const char *path; /* "a.list.element" */
	int physical; /* enum sc_pq_type */
	int max_def, max_rep;
	size_t nlevels;
	const uint16_t *def, *rep;
	const struct sc_pq_vals *vals;
};
size_t sc_parquet_reader_num_leaves(const struct sc_parquet_reader *r);
int sc_parquet_reader_leaf(const struct sc_parquet_reader *r, size_t i,
    struct sc_parquet_leaf *out);

/* --- writing -------------------------------------------------------- */

struct sc_parquet_writer;

struct sc_parquet_write_opts {
	int codec; /* enum sc_pq_codec: UNCOMPRESSED, SNAPPY (Spark's), GZIP, ZSTD */
	int level; /* the codec's level; 0 its default */
	size_t group_bytes; /* a row group's buffered size; 0: 128 MiB */
	size_t page_bytes; /* a page's values; 0: 1 MiB */
	size_t dict_bytes; /* a dictionary's limit, then PLAIN; 0: 1 MiB */
	bool no_dictionary; /* PLAIN only */
	bool page_v2; /* DATA_PAGE_V2 instead of v1 */
};

/*
 * Create path (truncating it) for rows of schema (a STRUCT, copied).
 * opts may be NULL (snappy, Spark's sizes).  SC_ST_IO if the file
 * cannot be created; SC_ST_USAGE for a type Parquet cannot hold.
 */
struct sc_parquet_writer *sc_parquet_writer_open(const char *path,
    const struct sc_parquet_type *schema,
    const struct sc_parquet_write_opts *opts, struct sc_error *err);
/*
 * Add one row given as text (a JSON array, one value per column, in the
 * form above); SC_ST_USAGE, naming the column, for a value that does not
 * fit its type.  Rows are buffered up to the group size, then written.
 */
int sc_parquet_writer_add_row(struct sc_parquet_writer *w, const char *text,
    size_t n, struct sc_error *err);
/*
 * Write what is buffered and the footer, and close the file; 0 or -1.
 * The writer is freed either way.
 */
int sc_parquet_writer_close(struct sc_parquet_writer *w, struct sc_error *err);
/* Drop a writer without finishing its file (which is then unusable). */
void sc_parquet_writer_abort(struct sc_parquet_writer *w);

#endif
