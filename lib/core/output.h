/* SPDX-License-Identifier: MIT */

/*
 * output.h: streaming record writers for stdout (table, CSV, TSV and
 * JSON lines).
 *
 * Call sc_output_header() once, then sc_output_row() per record, then
 * sc_output_finish().  Cell bytes are arbitrary (embedded NUL allowed,
 * any encoding); each format makes them safe for its syntax:
 *
 *  CSV (RFC 4180, but LF line ends, not CRLF): a field is quoted when it
 *	contains ',' '"' CR or LF, starts or ends with a space or tab, or
 *	is a non-NULL value equal to the null text (so with the default
 *	null text "" an empty string is written as "" and a NULL as
 *	nothing); '"' is doubled inside quotes.  The null text itself is
 *	written bare unless it needs quotes for the first reasons.  Other
 *	bytes, NUL included, are written unchanged.
 *  TSV: fields separated by TAB, records by LF; TAB, LF, CR, backslash
 *	and NUL are written as the two characters \t \n \r \\ \0.  The
 *	null text is written as is (with the default "" a NULL and an empty
 *	string look alike; "\N" as null text tells them apart).
 *  JSONL: one JSON object per record, keyed by column name in column
 *	order (duplicate names are written as given).  STRING values are
 *	quoted with full escaping: '"' '\\' and the control characters
 *	U+0000-U+001F as \" \\ \b \f \n \r \t or \u00XX; valid UTF-8 is
 *	copied; each byte that does not begin a valid UTF-8 sequence
 *	(including overlong forms, surrogates and > U+10FFFF) becomes \uFFFD.
 *	NUMBER, BOOL and JSON are written raw (a NUMBER that is not a JSON
 *	number, such as NaN, and a BOOL other than true/false are written
 *	as strings instead; an empty one is written as null; CR and LF in
 *	JSON, whitespace there, become spaces to keep one record per line).
 *	NULL is null.  Column names are escaped as STRING values.
 *  TABLE: for humans.  Records are written a page at a time (page_rows
 *	records, default 1000, or fewer if holding them would take more
 *	than 16 MiB), each page aligned to the widest cell so far, in
 *	terminal columns (core/width: wide characters count 2, combining
 *	marks 0).  Widths never shrink; when a page needs wider columns
 *	than the header was drawn with, a blank line and the header, at
 *	the new widths, come before it.  Columns are separated by two
 *	spaces, NUMBER cells are right-aligned, the header is followed by a
 *	line of '-'; trailing spaces are not written.  Control characters
 *	are shown as \t \n \r or \xNN (C1 controls as \u00NN), bytes of
 *	invalid UTF-8 as \xNN; backslash itself is not escaped.
 *  VERTICAL: for wide records, as psql's expanded mode: per record a
 *	line "-[ RECORD n ]---" (with the header; else a blank line between
 *	records), then one line per column, "name | value", names padded to
 *	one width, cells shown as in TABLE.
 */

#ifndef SC_OUTPUT_H
#define SC_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct sc_error;

enum sc_out_format {
	SC_OUT_TABLE = 0,
	SC_OUT_CSV,
	SC_OUT_TSV,
	SC_OUT_JSONL,
	SC_OUT_VERTICAL
};

/*
 * Parse "table", "csv", "tsv", "jsonl", "json" or "vertical"; 0, or -1
 * (out untouched).
 */
int sc_out_format_parse(const char *s, enum sc_out_format *out);

enum sc_out_kind {
	SC_OUT_NULL = 0, /* no value; p and n ignored */
	SC_OUT_STRING, /* text, quoted in JSON */
	SC_OUT_NUMBER, /* JSON number text, raw in JSON */
	SC_OUT_BOOL, /* "true" or "false", raw in JSON */
	SC_OUT_JSON /* a complete JSON value, raw in JSON */
};

/* One cell: n bytes at p (borrowed for the call; p may be NULL if n 0). */
struct sc_out_value {
	enum sc_out_kind kind;
	const char *p;
	size_t n;
};

struct sc_output_opts {
	bool header; /* table/CSV/TSV: write a header row */
	const char *null_text; /* NULL cells; NULL means the default:
					   "" for CSV/TSV, "NULL" for table */
	int flush; /* 1 flush after each record, 0 never,
					   -1 auto: unless fp is a regular
					   file */
	size_t page_rows; /* TABLE: records per page; 0: 1000 */
};

struct sc_output;

/*
 * A writer on fp (borrowed; not closed by sc_output_free()).  opts may be
 * NULL: header on, default null text, auto flush.  null_text is copied.
 * Free with sc_output_free().
 */
struct sc_output *sc_output_new(FILE *fp, enum sc_out_format format,
    const struct sc_output_opts *opts);

/*
 * Set the n column names (copied) and, if opts->header, write the
 * header (the table format writes it with the buffered records).  Call
 * exactly once, before any row.  -1 with err set: SC_ST_INTERNAL on
 * misuse, SC_ST_IO on a write error.
 */
int sc_output_header(struct sc_output *o, const char *const *names, size_t n,
    struct sc_error *err);

/*
 * Write one record of n values (n must equal the number of columns).
 * -1 with err set: SC_ST_INTERNAL on misuse, SC_ST_IO with errno
 * ("cannot write output: ...") on a write error; after a write error
 * every later call fails the same way.
 */
int sc_output_row(struct sc_output *o, const struct sc_out_value *v, size_t n,
    struct sc_error *err);

/*
 * Write the records collected so far (not the table's held ones) and
 * fflush fp.  -1 with err set (SC_ST_IO, errno) if any write failed.
 */
int sc_output_flush(struct sc_output *o, struct sc_error *err);

/*
 * Write whatever is buffered (the table) and fflush fp.  -1 with err
 * set (SC_ST_IO, errno) if any write failed.
 */
int sc_output_finish(struct sc_output *o, struct sc_error *err);

/* Free o (NULL is a no-op); buffered table rows not finished are lost. */
void sc_output_free(struct sc_output *o);

/* ------------------------------------------------- atomic output files */

/*
 * A file written whole or not at all (curl -o, but safe for cron): the
 * data goes to a file with no name, or a hidden temporary name, in the
 * same directory, and takes the final name only on commit, by rename.
 * A reader never sees half of it, and a run that fails or is killed
 * leaves nothing (with a temporary name, only a kill leaves it behind).
 * A path that names a device or FIFO (/dev/stdout, /dev/null, a pipe)
 * is written in place: renaming over it would replace the node.
 */
struct sc_outfile {
	FILE *fp; /* write here; NULL when closed */
	char *path; /* the final name */
	char *tmp; /* the temporary name, or NULL for an unnamed file */
	int fd;
	bool direct; /* path is a device or FIFO, written in place */
};

/*
 * Open f for path (copied).  0, or -1 with err set (SC_ST_IO, "cannot
 * write '<path>': <strerror>").  The file gets mode 0666 less the umask.
 */
int sc_outfile_open(struct sc_outfile *f, const char *path,
    struct sc_error *err);

/*
 * Flush and fsync the data, close, and give it the final name,
 * replacing any file of that name.  0, or -1 with err set (SC_ST_IO);
 * on -1 nothing is left.  f is released either way.
 */
int sc_outfile_commit(struct sc_outfile *f, struct sc_error *err);

/* Close and drop the data; f is released.  A released f is a no-op. */
void sc_outfile_abort(struct sc_outfile *f);

#endif
