/* SPDX-License-Identifier: MIT */

/*
 * engine_files.c: a session's uploaded files ("files/...") read as
 * relations: read.data_source (formats csv, json, text) and, in SQL,
 * csv.`files/x.csv`, json.`...`, text.`...` and sctk's read_files().
 * The engine knows no artifact store: it asks the resolver given to
 * sc_engine_set_files() for a descriptor of the name.  A file is streamed
 * line by line (twice when its schema is inferred) into a TEMP table of
 * the call, dropped when the call ends; only one line is held at a time.
 * The lines, CSV fields and JSON records are engine_files_text.c's.
 */

#include "engine/engine_int.h"
#include "engine/store/engine_files_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

#define FILES_PREFIX "files/"
#define CORRUPT_COL "_corrupt_record"
#define SC_DS_FORMAT SPARK__CONNECT__READ__DATA_SOURCE___FORMAT_FORMAT
#define SC_DS_SCHEMA SPARK__CONNECT__READ__DATA_SOURCE___SCHEMA_SCHEMA

struct rcol {
	char *name;
	enum rkind kind;
};

struct rcols {
	struct rcol *v;
	size_t n;
};

static bool
has_schema(const struct ropts *o)
{
	return o->schema != NULL || o->scols != NULL;
}

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

static int
opt_error(struct sc_error *err, const char *key, const char *val,
    const char *why)
{
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_SOURCE", "0A000",
	    "The data source option %s = '%s' is not supported by sc-serve: "
	    "%s.",
	    key, val, why);
}

static int
opt_bool(const char *key, const char *val, bool *out, struct sc_error *err)
{
	if (strcasecmp(val, "true") == 0)
		*out = true;
	else if (strcasecmp(val, "false") == 0)
		*out = false;
	else
		return opt_error(err, key, val, "it must be true or false");
	return 0;
}

static int
opt_char(const char *key, const char *val, char *out, bool empty_ok,
    struct sc_error *err)
{
	if (strcmp(val, "\\t") == 0)
		*out = '\t';
	else if (val[0] == '\0' && empty_ok)
		*out = '\0';
	else if (strlen(val) == 1 && (unsigned char)val[0] < 0x80 &&
	    val[0] != '\n' && val[0] != '\r')
		*out = val[0];
	else
		return opt_error(err, key, val,
		    "it must be one ASCII character other than a line end");
	return 0;
}

static int
opts_format(struct ropts *o, const char *fmt, struct sc_error *err)
{
	memset(o, 0, sizeof(*o));
	o->sep = ',';
	o->quote = '"';
	o->esc = '\\';
	o->nullv = "";
	if (strcasecmp(fmt, "csv") == 0)
		o->fmt = RF_CSV;
	else if (strcasecmp(fmt, "json") == 0)
		o->fmt = RF_JSON;
	else if (strcasecmp(fmt, "text") == 0)
		o->fmt = RF_TEXT;
	else
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_SOURCE",
		    "0A000",
		    "The data source format '%s' is not supported by "
		    "sc-serve (it reads csv, json and text).",
		    fmt);
	return 0;
}

/*
 * One option (keys are case-insensitive, as Spark's); unknown ones are
 * ignored, as Spark does.  *path receives a "path" option.
 */
static int
opts_set(struct ropts *o, const char *key, const char *val, const char **path,
    struct sc_error *err)
{
	bool b;

	if (strcasecmp(key, "header") == 0)
		return opt_bool(key, val, &o->header, err);
	if (strcasecmp(key, "inferSchema") == 0)
		return opt_bool(key, val, &o->infer, err);
	if (strcasecmp(key, "sep") == 0 || strcasecmp(key, "delimiter") == 0)
		return opt_char(key, val, &o->sep, false, err);
	if (strcasecmp(key, "quote") == 0)
		return opt_char(key, val, &o->quote, true, err);
	if (strcasecmp(key, "escape") == 0)
		return opt_char(key, val, &o->esc, true, err);
	if (strcasecmp(key, "nullValue") == 0) {
		o->nullv = val;
		return 0;
	}
	if (strcasecmp(key, "multiLine") == 0) {
		if (opt_bool(key, val, &b, err) == -1)
			return -1;
		return b ? opt_error(err, key, val,
			       "records spanning lines are not read")
			 : 0;
	}
	if (strcasecmp(key, "mode") == 0)
		return strcasecmp(val, "PERMISSIVE") == 0
		    ? 0
		    : opt_error(err, key, val, "only PERMISSIVE is");
	if (strcasecmp(key, "encoding") == 0 || strcasecmp(key, "charset") == 0)
		return strcasecmp(val, "UTF-8") == 0 ||
			strcasecmp(val, "UTF8") == 0
		    ? 0
		    : opt_error(err, key, val, "files are read as UTF-8");
	if (strcasecmp(key, "path") == 0) {
		*path = val;
		return 0;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Reading files into a TEMP table                                     */
/* ------------------------------------------------------------------ */

struct reader {
	struct sc_ectx *x;
	const struct ropts *o;
	struct lines l;
	struct fields f;
	struct jrec j;
	struct rcols cols;
	struct sc_ecol *ecols; /* the final columns */
	size_t necols;
	bool corrupt; /* json: a _corrupt_record column */
	sqlite3_stmt *ins;
	/* Rows (parse) with a header: the header's line, in this pass. */
	struct sc_buf hdr;
	bool hdr_set;
};

static void
reader_release(struct reader *r)
{
	size_t i;

	for (i = 0; i < r->cols.n; i++)
		free(r->cols.v[i].name);
	free(r->cols.v);
	free(r->f.v);
	sc_buf_release(&r->f.text);
	free(r->j.v);
	sc_buf_release(&r->j.text);
	sc_buf_release(&r->l.line);
	sc_buf_release(&r->hdr);
	sc_ecols_free(r->ecols, r->necols);
	sqlite3_finalize(r->ins);
}

static size_t
col_add(struct rcols *c, const char *name)
{
	c->v = sc_xreallocarray(c->v, c->n + 1, sizeof(*c->v));
	c->v[c->n].name = sc_xstrdup(name);
	c->v[c->n].kind = K_NONE;
	return c->n++;
}

static int
canceled_check(struct reader *r, struct sc_error *err)
{
	if ((r->l.no & 1023) == 0 && sc_eng_is_canceled(r->x->run))
		return sc_eng_canceled(err);
	return 0;
}

/*
 * CSV column names: the header's fields (an empty or null one is
 * _c<i>; names equal but for case get their index appended, as Spark
 * does), or _c0, _c1, ... for the first record's width.
 */
static void
csv_names(struct reader *r, bool header)
{
	struct fields *f = &r->f;
	char name[32];
	size_t i, k;
	bool dup;

	for (i = 0; i < f->n; i++) {
		snprintf(name, sizeof(name), "_c%zu", i);
		if (!header || f->v[i].null || f->v[i].len == 0) {
			col_add(&r->cols, name);
			continue;
		}
		dup = false;
		for (k = 0; k < f->n && !dup; k++)
			dup = k != i && !f->v[k].null &&
			    strcasecmp(sc_eng_field_text(f, k),
				sc_eng_field_text(f, i)) == 0;
		if (dup) {
			struct sc_buf b;

			sc_buf_init(&b, SC_BUF_UNLIMITED);
			sc_buf_addf(&b, NULL, "%s%zu", sc_eng_field_text(f, i),
			    i);
			col_add(&r->cols, (const char *)b.data);
			sc_buf_release(&b);
		} else {
			col_add(&r->cols, sc_eng_field_text(f, i));
		}
	}
}

/* The header was read: remember it when reading rows (parse). */
static void
header_seen(struct reader *r)
{
	if (r->l.st == NULL || r->hdr_set)
		return;
	sc_buf_reset(&r->hdr);
	sc_buf_add(&r->hdr, r->l.line.data, r->l.line.len, NULL);
	r->hdr_set = true;
}

/* The next record of CSV (empty lines are skipped): 1, 0, -1. */
static int
csv_next(struct reader *r, struct sc_error *err)
{
	int rc;

	while ((rc = sc_eng_lines_next(&r->l, err)) == 1) {
		if (canceled_check(r, err) == -1)
			return -1;
		if (r->l.line.len == 0)
			continue;
		/* Spark drops every string of a Dataset equal to its header. */
		if (r->hdr_set && r->l.line.len == r->hdr.len &&
		    memcmp(r->l.line.data, r->hdr.data, r->hdr.len) == 0)
			continue;
		sc_eng_csv_split(r->o, (const char *)r->l.line.data,
		    r->l.line.len, &r->f);
		return 1;
	}
	return rc;
}

/* The next record of JSON lines: 1 (*ok: parsed), 0 at the end, -1. */
static int
json_next(struct reader *r, bool *ok, struct sc_error *err)
{
	const uint8_t *s;
	size_t n, i;
	int rc;

	while ((rc = sc_eng_lines_next(&r->l, err)) == 1) {
		if (canceled_check(r, err) == -1)
			return -1;
		s = r->l.line.data;
		n = r->l.line.len;
		for (i = 0; i < n && isspace(s[i]); i++)
			;
		if (i == n)
			continue;
		if ((rc = sc_eng_json_record((const char *)s, n, &r->j, err)) ==
		    -1)
			return -1;
		*ok = rc == 1;
		return 1;
	}
	return rc;
}

/* Schema pass over one file: column names and, if asked, kinds. */
static int
scan_file(struct reader *r, bool first, struct sc_error *err)
{
	const struct ropts *o = r->o;
	size_t i, k;
	bool ok, header = o->header;
	int rc;

	r->hdr_set = false;
	if (o->fmt == RF_CSV) {
		while ((rc = csv_next(r, err)) == 1) {
			if (header) {
				header = false;
				header_seen(r);
				if (first && r->cols.n == 0 && !has_schema(o))
					csv_names(r, true);
				continue;
			}
			if (first && r->cols.n == 0 && !has_schema(o))
				csv_names(r, false);
			if (!o->infer || has_schema(o))
				return 0;
			for (i = 0; i < r->f.n && i < r->cols.n; i++)
				if (!r->f.v[i].null)
					r->cols.v[i].kind = sc_eng_kind_merge(
					    r->cols.v[i].kind,
					    sc_eng_csv_kind(
						sc_eng_field_text(&r->f, i)));
		}
		return rc;
	}
	while ((rc = json_next(r, &ok, err)) == 1) {
		if (!ok) {
			r->corrupt = true;
			continue;
		}
		for (i = 0; i < r->j.n; i++) {
			for (k = 0; k < r->cols.n; k++)
				if (strcmp(r->cols.v[k].name,
					sc_eng_jkey(&r->j, i)) == 0)
					break;
			if (k == r->cols.n)
				k = col_add(&r->cols, sc_eng_jkey(&r->j, i));
			r->cols.v[k].kind = sc_eng_kind_merge(r->cols.v[k].kind,
			    r->j.v[i].kind);
		}
	}
	return rc;
}

static int
rcol_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rcol *)a)->name,
	    ((const struct rcol *)b)->name);
}

static void
kind_type(enum rkind k, struct sc_etype *t)
{
	memset(t, 0, sizeof(*t));
	switch (k) {
	case K_INT:
		t->t = SC_ARROW_INT32;
		break;
	case K_LONG:
		t->t = SC_ARROW_INT64;
		break;
	case K_DEC:
		t->t = SC_ARROW_DECIMAL128;
		t->prec = 38;
		break;
	case K_DOUBLE:
		t->t = SC_ARROW_DOUBLE;
		break;
	case K_BOOL:
		t->t = SC_ARROW_BOOL;
		break;
	case K_DATE:
		t->t = SC_ARROW_DATE32;
		break;
	case K_TS:
		t->t = SC_ARROW_TIMESTAMP_US;
		break;
	default:
		t->t = SC_ARROW_UTF8;
		break;
	}
}

/* The final columns from the scan (or the given schema). */
static int
make_columns(struct reader *r, struct sc_error *err)
{
	const struct ropts *o = r->o;
	size_t i, k;

	if (o->fmt == RF_TEXT && !has_schema(o)) {
		r->ecols = sc_xcalloc(1, sizeof(*r->ecols));
		r->necols = 1;
		r->ecols[0].name = sc_xstrdup("value");
		r->ecols[0].type.t = SC_ARROW_UTF8;
		r->ecols[0].nullable = 1;
		return 0;
	}
	if (o->scols != NULL) {
		r->ecols = sc_eng_cols_copy(o->scols, o->nscols);
		r->necols = o->nscols;
		for (i = 0; i < r->necols; i++) {
			r->ecols[i].nullable = 1;
			if (o->fmt == RF_JSON)
				col_add(&r->cols, r->ecols[i].name);
		}
		return 0;
	}
	if (o->schema != NULL) {
		if (sc_eng_schema_string(o->schema, &r->ecols, &r->necols,
			err) == -1)
			return -1;
		if (o->fmt == RF_TEXT &&
		    (r->necols != 1 || r->ecols[0].type.t != SC_ARROW_UTF8))
			return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
			    "The text data source has one string column; the "
			    "schema '%s' does not fit it.",
			    o->schema);
		for (i = 0; i < r->necols; i++) {
			r->ecols[i].nullable = 1;
			if (o->fmt == RF_JSON)
				col_add(&r->cols, r->ecols[i].name);
		}
		return 0;
	}
	if (o->fmt == RF_JSON) {
		if (r->corrupt) {
			k = col_add(&r->cols, CORRUPT_COL);
			r->cols.v[k].kind = K_STRING;
		}
		qsort(r->cols.v, r->cols.n, sizeof(*r->cols.v), rcol_cmp);
	}
	if (r->cols.n == 0)
		return sc_srv_error(err, "UNABLE_TO_INFER_SCHEMA", "42KD9",
		    "Unable to infer schema for %s. It must be specified "
		    "manually.",
		    o->fmt == RF_CSV ? "CSV" : "JSON");
	for (i = 0; i < r->cols.n; i++)
		for (k = i + 1; k < r->cols.n; k++)
			if (strcasecmp(r->cols.v[i].name, r->cols.v[k].name) ==
			    0)
				return sc_srv_error(err,
				    "COLUMN_ALREADY_EXISTS", "42711",
				    "The column `%s` already exists.",
				    r->cols.v[k].name);
	r->ecols = sc_xcalloc(r->cols.n, sizeof(*r->ecols));
	r->necols = r->cols.n;
	for (i = 0; i < r->cols.n; i++) {
		r->ecols[i].name = sc_xstrdup(r->cols.v[i].name);
		kind_type(o->fmt == RF_CSV && !o->infer ? K_STRING
							: r->cols.v[i].kind,
		    &r->ecols[i].type);
		r->ecols[i].nullable = 1;
	}
	return 0;
}

static int
create_table(struct reader *r, char *name, size_t namesz, struct sc_error *err)
{
	struct sc_buf sql;
	size_t i;
	bool text;
	int rc = -1;

	snprintf(name, namesz, "_sc_file_%u", sc_eng_next_tmp(r->x->c));
	sc_buf_init(&sql, SC_BUF_UNLIMITED);
	sc_buf_addstr(&sql, "CREATE TEMP TABLE ", NULL);
	sc_eng_quote_ident(&sql, name);
	sc_buf_addch(&sql, '(', NULL);
	for (i = 0; i < r->necols; i++) {
		if (i > 0)
			sc_buf_addstr(&sql, ", ", NULL);
		sc_eng_quote_ident(&sql, r->ecols[i].name);
		sc_buf_addch(&sql, ' ', NULL);
		sc_eng_type_decl(&r->ecols[i].type, &sql);
	}
	sc_buf_addch(&sql, ')', NULL);
	if (sc_eng_exec(r->x, (const char *)sql.data, err) == -1)
		goto out;
	sc_eng_add_tmp(r->x, name);
	/* Text goes in as it is; other types through Spark's cast (TRY). */
	sc_buf_reset(&sql);
	sc_buf_addstr(&sql, "INSERT INTO temp.", NULL);
	sc_eng_quote_ident(&sql, name);
	sc_buf_addstr(&sql, " VALUES (", NULL);
	for (i = 0; i < r->necols; i++) {
		if (i > 0)
			sc_buf_addstr(&sql, ", ", NULL);
		text = r->ecols[i].type.t == SC_ARROW_UTF8 ||
		    r->ecols[i].type.t == SC_ARROW_LARGE_UTF8;
		if (text) {
			sc_buf_addf(&sql, NULL, "?%zu", i + 1);
			continue;
		}
		sc_buf_addf(&sql, NULL, "sc_cast(?%zu, '", i + 1);
		sc_eng_type_text(&r->ecols[i].type, SC_VALUE_TYPENAME, &sql);
		sc_buf_addstr(&sql, "', 1)", NULL);
	}
	sc_buf_addch(&sql, ')', NULL);
	rc = sc_eng_prepare(r->x, (const char *)sql.data, sql.len, &r->ins,
	    NULL, err);
out:
	sc_buf_release(&sql);
	return rc;
}

static int
bind_text(struct reader *r, size_t col, const char *s, size_t n,
    struct sc_error *err)
{
	int rc = sqlite3_bind_text(r->ins, (int)col + 1, s, (int)n,
	    SQLITE_TRANSIENT);

	return rc == SQLITE_OK ? 0 : sc_eng_bind_error(r->ins, rc, err);
}

static int
insert_row(struct reader *r, struct sc_error *err)
{
	int rc = sc_eng_step(r->x, r->ins);

	sqlite3_reset(r->ins);
	sqlite3_clear_bindings(r->ins);
	return rc == SQLITE_DONE ? 0 : sc_eng_sqlite_error(r->x, rc, err);
}

static int
jcol_cmp(const void *key, const void *c)
{
	return strcmp(key, ((const struct rcol *)c)->name);
}

/* Load pass over one file. */
static int
load_file(struct reader *r, struct sc_error *err)
{
	const struct ropts *o = r->o;
	const struct rcol *c;
	bool header = o->header, ok;
	size_t i;
	int rc;

	r->hdr_set = false;
	if (o->fmt == RF_TEXT) {
		while ((rc = sc_eng_lines_next(&r->l, err)) == 1) {
			if (canceled_check(r, err) == -1 ||
			    bind_text(r, 0, (const char *)r->l.line.data,
				r->l.line.len, err) == -1 ||
			    insert_row(r, err) == -1)
				return -1;
		}
		return rc;
	}
	if (o->fmt == RF_CSV) {
		while ((rc = csv_next(r, err)) == 1) {
			if (header) {
				header = false;
				header_seen(r);
				continue;
			}
			for (i = 0; i < r->f.n && i < r->necols; i++)
				if (!r->f.v[i].null &&
				    bind_text(r, i, sc_eng_field_text(&r->f, i),
					r->f.v[i].len, err) == -1)
					return -1;
			if (insert_row(r, err) == -1)
				return -1;
		}
		return rc;
	}
	while ((rc = json_next(r, &ok, err)) == 1) {
		if (!ok) {
			c = bsearch(CORRUPT_COL, r->cols.v, r->cols.n,
			    sizeof(*r->cols.v), jcol_cmp);
			if (c != NULL &&
			    bind_text(r, (size_t)(c - r->cols.v),
				(const char *)r->l.line.data, r->l.line.len,
				err) == -1)
				return -1;
		}
		for (i = 0; ok && i < r->j.n; i++) {
			if (r->j.v[i].kind == K_NONE)
				continue;
			if (has_schema(o)) {
				size_t k;

				for (k = 0; k < r->cols.n; k++)
					if (strcmp(r->cols.v[k].name,
						sc_eng_jkey(&r->j, i)) == 0)
						break;
				c = k < r->cols.n ? &r->cols.v[k] : NULL;
			} else {
				c = bsearch(sc_eng_jkey(&r->j, i), r->cols.v,
				    r->cols.n, sizeof(*r->cols.v), jcol_cmp);
			}
			if (c != NULL &&
			    bind_text(r, (size_t)(c - r->cols.v),
				sc_eng_jval(&r->j, i),
				strlen(sc_eng_jval(&r->j, i)), err) == -1)
				return -1;
		}
		if (insert_row(r, err) == -1)
			return -1;
	}
	return rc;
}

/*
 * Open the session's file name: only "files/..." names are read; the
 * resolver (sc_engine_set_files()) checks the name and opens it.
 */
static int
files_open(struct sc_ectx *x, const char *name, int *fd, struct sc_error *err)
{
	struct sc_engine *e = x->c->e;

	if (strncmp(name, FILES_PREFIX, strlen(FILES_PREFIX)) != 0)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_SOURCE",
		    "0A000",
		    "sc-serve reads only files uploaded to the session "
		    "(artifacts named files/...), not '%s'.",
		    name);
	if (e->files == NULL)
		return sc_srv_error(err, "PATH_NOT_FOUND", "42K03",
		    "Path does not exist: %s.", name);
	return e->files(e->files_arg, x->c->owner, name, fd, err);
}

/* The lines of file fd, or the rows of rows when it is not NULL. */
static void
lines_open(struct lines *l, struct sc_ectx *x, sqlite3_stmt *rows, int fd,
    const char *name)
{
	int64_t max = sqlite3_limit(x->c->db, SQLITE_LIMIT_LENGTH, -1);

	if (rows != NULL)
		sc_eng_lines_open_rows(l, x, rows, name, max);
	else
		sc_eng_lines_open(l, fd, name, max);
}

static int
load(struct sc_ectx *x, const struct ropts *o, const char *const *paths,
    size_t npaths, sqlite3_stmt *rows, struct sc_eplan *out,
    struct sc_error *err)
{
	struct reader r;
	struct sc_buf t;
	char name[48];
	int *fds;
	size_t i;
	int rc = -1;

	if (npaths == 0)
		return sc_srv_error(err, "UNABLE_TO_INFER_SCHEMA", "42KD9",
		    "Unable to infer schema for %s: no path was given.",
		    o->fmt == RF_CSV	    ? "CSV"
			: o->fmt == RF_JSON ? "JSON"
					    : "Text");
	memset(&r, 0, sizeof(r));
	r.x = x;
	r.o = o;
	sc_buf_init(&r.f.text, SC_BUF_UNLIMITED);
	sc_buf_init(&r.j.text, SC_BUF_UNLIMITED);
	sc_buf_init(&r.l.line, SC_BUF_UNLIMITED);
	sc_buf_init(&r.hdr, SC_BUF_UNLIMITED);
	fds = sc_xcalloc(npaths, sizeof(*fds));
	for (i = 0; i < npaths; i++)
		fds[i] = -1;
	for (i = 0; i < npaths && rows == NULL; i++)
		if (files_open(x, paths[i], &fds[i], err) == -1)
			goto out;
	/* Schema: every file when inferring, else the first record. */
	if (o->fmt != RF_TEXT && !has_schema(o)) {
		for (i = 0; i < npaths; i++) {
			lines_open(&r.l, x, rows, fds[i], paths[i]);
			if (scan_file(&r, i == 0, err) == -1 ||
			    sc_eng_lines_rewind(&r.l, err) == -1)
				goto out;
			if (o->fmt == RF_CSV && !o->infer)
				break;
		}
	}
	if (make_columns(&r, err) == -1 ||
	    create_table(&r, name, sizeof(name), err) == -1)
		goto out;
	for (i = 0; i < npaths; i++) {
		lines_open(&r.l, x, rows, fds[i], paths[i]);
		if (rows != NULL && sc_eng_lines_rewind(&r.l, err) == -1)
			goto out;
		if (load_file(&r, err) == -1)
			goto out;
	}
	sc_buf_init(&t, SC_BUF_UNLIMITED);
	sc_buf_addstr(&t, "temp.", NULL);
	sc_eng_quote_ident(&t, name);
	out->table = (char *)sc_buf_detach(&t, NULL);
	sc_buf_addf(&out->sql, NULL, "SELECT * FROM %s", out->table);
	out->cols = r.ecols;
	out->ncols = r.necols;
	r.ecols = NULL;
	r.necols = 0;
	rc = 0;
out:
	for (i = 0; i < npaths; i++)
		if (fds[i] != -1)
			close(fds[i]);
	free(fds);
	reader_release(&r);
	return rc;
}

int
sc_eng_files_read(struct sc_ectx *x, const Spark__Connect__Read__DataSource *ds,
    struct sc_eplan *out, struct sc_error *err)
{
	struct ropts o;
	const char *path = NULL, *one[1];
	size_t i;

	if (ds->n_predicates > 0)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_SOURCE",
		    "0A000",
		    "Predicates (a JDBC read) are not supported by sc-serve.");
	/* Spark's default source (spark.sql.sources.default) is parquet. */
	if (opts_format(&o,
		ds->_format_case == SC_DS_FORMAT && ds->format != NULL
		    ? ds->format
		    : "parquet",
		err) == -1)
		return -1;
	for (i = 0; i < ds->n_options; i++)
		if (opts_set(&o,
			ds->options[i]->key != NULL ? ds->options[i]->key : "",
			ds->options[i]->value != NULL ? ds->options[i]->value
						      : "",
			&path, err) == -1)
			return -1;
	if (ds->_schema_case == SC_DS_SCHEMA && ds->schema != NULL &&
	    ds->schema[0] != '\0')
		o.schema = ds->schema;
	if (ds->n_paths > 0)
		return load(x, &o, (const char *const *)ds->paths, ds->n_paths,
		    NULL, out, err);
	one[0] = path;
	return load(x, &o, one, path != NULL ? 1 : 0, NULL, out, err);
}

int
sc_eng_files_rows(struct sc_ectx *x, const char *format, const char *const *kv,
    size_t nkv, const struct sc_ecol *scols, size_t nscols, sqlite3_stmt *rows,
    struct sc_eplan *out, struct sc_error *err)
{
	struct ropts o;
	const char *opath = NULL, *name = "the parsed strings";
	size_t i;

	if (opts_format(&o, format, err) == -1)
		return -1;
	for (i = 0; i + 1 < nkv; i += 2)
		if (opts_set(&o, kv[i], kv[i + 1], &opath, err) == -1)
			return -1;
	if (scols != NULL) {
		o.scols = scols;
		o.nscols = nscols;
	}
	return load(x, &o, &name, 1, rows, out, err);
}
