/* SPDX-License-Identifier: MIT */

/*
 * engine_files_int.h: what engine_files.c (options, reading into a TEMP
 * table) and engine_files_text.c (lines, CSV fields, JSON records) share.
 * Only those two files include it.
 */

#ifndef SC_ENGINE_FILES_INT_H
#define SC_ENGINE_FILES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/error.h"

enum rfmt { RF_CSV = 0, RF_JSON, RF_TEXT };

struct ropts {
	enum rfmt fmt;
	bool header;
	bool infer;
	char sep, quote, esc;
	const char *nullv;
	const char *schema; /* DDL, or NULL */
	const struct sc_ecol *scols; /* or the schema's columns (parse) */
	size_t nscols;
};

/* Kinds a value may have, from narrowest; inference merges them. */
enum rkind {
	K_NONE = 0, /* only nulls so far */
	K_INT,
	K_LONG,
	K_DEC, /* json: an integer beyond bigint: decimal(38,0) */
	K_DOUBLE,
	K_BOOL,
	K_DATE,
	K_TS,
	K_STRING
};

/* ---- lines (engine_files_text.c) ---- */

struct sc_ecol;
struct sc_ectx;
struct sqlite3_stmt;

struct lines {
	int fd;
	/* Instead of fd: the rows of st's one string column, each a line. */
	struct sqlite3_stmt *st;
	struct sc_ectx *x;
	const char *name;
	uint8_t buf[65536];
	size_t pos, end;
	bool eof;
	struct sc_buf line;
	int64_t max; /* longest line */
	uint64_t no; /* lines read */
};

void sc_eng_lines_open(struct lines *l, int fd, const char *name, int64_t max);
/* Lines from the rows of st (null and blank rows skipped), for parse. */
void sc_eng_lines_open_rows(struct lines *l, struct sc_ectx *x,
    struct sqlite3_stmt *st, const char *name, int64_t max);
int sc_eng_lines_next(struct lines *l, struct sc_error *err);
int sc_eng_lines_rewind(struct lines *l, struct sc_error *err);

/* ---- CSV (engine_files_text.c) ---- */

struct field {
	size_t off, len; /* in fields.text */
	bool null;
};

struct fields {
	struct field *v;
	size_t n, cap;
	struct sc_buf text;
};

const char *sc_eng_field_text(const struct fields *f, size_t i);
void sc_eng_csv_split(const struct ropts *o, const char *s, size_t n,
    struct fields *f);
enum rkind sc_eng_csv_kind(const char *s);
enum rkind sc_eng_kind_merge(enum rkind a, enum rkind b);

/* ---- JSON lines (engine_files_text.c) ---- */

struct jpair {
	size_t key; /* offset of the NUL-terminated key in jrec.text */
	size_t val; /* offset of the NUL-terminated text of the value */
	enum rkind kind; /* K_NONE: null */
};

struct jrec {
	struct jpair *v;
	size_t n, cap;
	struct sc_buf text;
};

int sc_eng_json_record(const char *s, size_t n, struct jrec *r,
    struct sc_error *err);
const char *sc_eng_jkey(const struct jrec *r, size_t i);
const char *sc_eng_jval(const struct jrec *r, size_t i);

#endif
