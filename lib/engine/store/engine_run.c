/* SPDX-License-Identifier: MIT */

/*
 * engine_run.c: running a translated plan into Arrow batches.  The result
 * columns get their types (from the plan, the declared table columns, or
 * the values of the first rows, buffered); rows are then streamed into
 * batches closed at the row and byte limits and handed to the sink, with
 * cancellation checked between them.
 */

#include "engine/engine_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/*
 * Columns whose type is neither known from the plan nor declared are
 * typed from the values of up to this many first rows (buffered).
 */
#define INFER_ROWS 10000
#define INFER_BYTES (4 << 20)

/* ------------------------------------------------------------------ */
/* Batches                                                             */
/* ------------------------------------------------------------------ */

/*
 * Spark sends the session time zone as a TIMESTAMP column's time zone,
 * in nested types too.
 */
static void
session_zone(struct sc_arrow_field *f, const char *tz)
{
	size_t i;

	if (f->type == SC_ARROW_TIMESTAMP_US && f->tz != NULL) {
		free(f->tz);
		f->tz = sc_xstrdup(tz);
	}
	for (i = 0; i < f->nchildren; i++)
		session_zone(&f->children[i], tz);
}

int
sc_eng_batch_begin(struct sc_ebatch *b, struct sc_ectx *x,
    const struct sc_ecol *cols, size_t n, const struct sc_engine_limits *limits,
    const struct sc_engine_sink *sink, struct sc_error *err)
{
	struct sc_arrow_schema as;
	Spark__Connect__DataType *dt;
	size_t i;
	int rc;

	memset(b, 0, sizeof(*b));
	b->run = x->run;
	b->sink = sink;
	b->max_rows = limits != NULL && limits->max_rows > 0 ? limits->max_rows
							     : INT64_MAX;
	b->max_bytes = limits != NULL && limits->max_bytes > 0
	    ? limits->max_bytes
	    : INT64_MAX;
	if (sc_eng_arrow_schema(cols, n, &as, err) == -1)
		return -1;
	for (i = 0; i < as.nfields; i++)
		session_zone(&as.fields[i], x->run->mode.tz);
	b->w = sc_arrow_writer_new(&as, err);
	sc_arrow_schema_release(&as);
	if (b->w == NULL)
		return -1;
	if (sink->schema != NULL) {
		dt = sc_eng_schema_new(cols, n);
		rc = sink->schema(sink->arg, dt);
		sc_engine_datatype_free(dt);
		if (rc != 0) {
			sc_eng_batch_release(b);
			return sc_eng_canceled(err);
		}
	}
	return 0;
}

int
sc_eng_batch_flush(struct sc_ebatch *b, struct sc_error *err)
{
	int64_t rows = (int64_t)sc_arrow_writer_rows(b->w);

	struct sc_buf *out = &b->run->out;

	if (b->sink == b->run->wsink && b->run->bw != NULL) {
		if (b->run->bw(b->sink->arg, b->w, rows, b->sent) != 0)
			return sc_eng_canceled(err);
		b->sent += rows;
		if (sc_eng_is_canceled(b->run))
			return sc_eng_canceled(err);
		return 0;
	}
	sc_buf_reset(out);
	if (sc_arrow_writer_flush(b->w, out, err) == -1)
		return -1;
	if (b->sink->batch(b->sink->arg, out->data, out->len, rows, b->sent) !=
	    0)
		return sc_eng_canceled(err);
	b->sent += rows;
	/* Keep a big batch's buffer from pinning memory. */
	if (out->cap > (8u << 20)) {
		sc_buf_release(out);
		sc_buf_init(out, SC_BUF_UNLIMITED);
	}
	if (sc_eng_is_canceled(b->run))
		return sc_eng_canceled(err);
	return 0;
}

/* Flush what is left; an empty result still gets its one batch. */
int
sc_eng_batch_end(struct sc_ebatch *b, struct sc_error *err)
{
	if (sc_arrow_writer_rows(b->w) > 0 || b->sent == 0)
		return sc_eng_batch_flush(b, err);
	return 0;
}

void
sc_eng_batch_release(struct sc_ebatch *b)
{
	sc_arrow_writer_free(b->w);
	b->w = NULL;
}

/* ------------------------------------------------------------------ */
/* Running a statement                                                 */
/* ------------------------------------------------------------------ */

/* Rows buffered to infer column types. */
struct rowbuf {
	struct sc_eval *v;
	size_t nv;
	size_t cap;
	struct sc_buf bytes;
	size_t rows;
	bool done; /* the statement is finished */
};

static void
rowbuf_add(struct rowbuf *rb, sqlite3_stmt *st, int ncol)
{
	int i;
	struct sc_eval *v;

	if (rb->nv + (size_t)ncol > rb->cap) {
		rb->cap = rb->cap == 0 ? 256 : rb->cap * 2;
		if (rb->cap < rb->nv + (size_t)ncol)
			rb->cap = rb->nv + (size_t)ncol;
		rb->v = sc_xreallocarray(rb->v, rb->cap, sizeof(*rb->v));
	}
	for (i = 0; i < ncol; i++) {
		v = &rb->v[rb->nv++];
		sc_eng_eval_column(st, i, v);
		if (v->t == SQLITE_TEXT || v->t == SQLITE_BLOB) {
			/* Offsets now, pointers once the bytes stop moving. */
			v->i = (int64_t)rb->bytes.len;
			sc_buf_add(&rb->bytes, v->p, v->n, NULL);
			v->p = NULL;
		}
	}
	rb->rows++;
}

static void
rowbuf_fix(struct rowbuf *rb)
{
	size_t i;

	for (i = 0; i < rb->nv; i++)
		if (rb->v[i].t == SQLITE_TEXT || rb->v[i].t == SQLITE_BLOB)
			rb->v[i].p = rb->bytes.data + rb->v[i].i;
}

static void
rowbuf_release(struct rowbuf *rb)
{
	free(rb->v);
	sc_buf_release(&rb->bytes);
}

/* Type a column from the storage classes seen in the buffered rows. */
static void
infer(struct sc_ecol *col, const struct rowbuf *rb, int ncol, int i)
{
	size_t r;
	int seen = 0;

	for (r = 0; r < rb->rows; r++)
		seen |= 1 << rb->v[r * (size_t)ncol + (size_t)i].t;
	memset(&col->type, 0, sizeof(col->type));
	col->inferred = true;
	if (seen & (1 << SQLITE_BLOB))
		col->type.t = SC_ARROW_BINARY;
	else if (seen & (1 << SQLITE_TEXT))
		col->type.t = SC_ARROW_UTF8;
	else if (seen & (1 << SQLITE_FLOAT))
		col->type.t = SC_ARROW_DOUBLE;
	else if (seen & (1 << SQLITE_INTEGER))
		col->type.t = SC_ARROW_INT64;
	else
		col->type.t = SC_ARROW_NULL;
}

/* Whether result column i is a table column declared NOT NULL. */
static bool
declared_not_null(sqlite3 *db, sqlite3_stmt *st, int i)
{
	const char *dbn = sqlite3_column_database_name(st, i);
	const char *tbl = sqlite3_column_table_name(st, i);
	const char *col = sqlite3_column_origin_name(st, i);
	int notnull = 0;

	if (dbn == NULL || tbl == NULL || col == NULL)
		return false;
	if (strcmp(tbl, "range") == 0 && strcmp(col, "id") == 0)
		return true;
	if (sqlite3_table_column_metadata(db, dbn, tbl, col, NULL, NULL,
		&notnull, NULL, NULL) != SQLITE_OK)
		return false;
	return notnull != 0;
}

/* Decide the result columns of st from the plan, declarations, values. */
static int
result_columns(struct sc_ectx *x, const struct sc_eplan *p, sqlite3_stmt *st,
    bool schema_only, struct rowbuf *rb, struct sc_ecol **colsp, size_t *np,
    struct sc_error *err)
{
	int ncol = sqlite3_column_count(st), i, rc;
	struct sc_ecol *cols;
	const char *decl, *name;
	bool unknown = false;

	cols = sc_xcalloc(ncol > 0 ? (size_t)ncol : 1, sizeof(*cols));
	for (i = 0; i < ncol; i++) {
		const struct sc_ecol *pc =
		    p->cols != NULL && p->ncols == (size_t)ncol ? &p->cols[i]
								: NULL;

		name = pc != NULL ? pc->name : sqlite3_column_name(st, i);
		cols[i].name = sc_xstrdup(name != NULL ? name : "");
		cols[i].type.t = SC_ETYPE_UNKNOWN;
		cols[i].nullable = -1;
		if (pc != NULL) {
			cols[i].type = pc->type;
			cols[i].nullable = pc->nullable;
		}
		if (cols[i].type.t == SC_ETYPE_UNKNOWN) {
			decl = sqlite3_column_decltype(st, i);
			if (decl == NULL ||
			    sc_eng_parse_type(decl, strlen(decl), true,
				&cols[i].type) == -1)
				cols[i].type.t = SC_ETYPE_UNKNOWN;
		}
		if (cols[i].nullable < 0)
			cols[i].nullable = !declared_not_null(x->c->db, st, i);
		if (cols[i].type.t == SC_ETYPE_UNKNOWN)
			unknown = true;
	}
	/* A temp view read whole: the types its query had. */
	if (unknown && p->table != NULL && p->cols == NULL) {
		sc_eng_view_types(x, p->table, cols, (size_t)ncol);
		for (unknown = false, i = 0; i < ncol; i++)
			if (cols[i].type.t == SC_ETYPE_UNKNOWN)
				unknown = true;
	}
	/* Analysis only looks at rows when that has no side effects. */
	if (unknown && schema_only && !sqlite3_stmt_readonly(st))
		rb->done = true;
	else if (unknown) {
		while (rb->rows < INFER_ROWS && rb->bytes.len < INFER_BYTES) {
			rc = sc_eng_step(x, st);
			if (rc == SQLITE_DONE) {
				rb->done = true;
				break;
			}
			if (rc != SQLITE_ROW) {
				sc_ecols_free(cols, (size_t)ncol);
				return sc_eng_sqlite_error(x, rc, err);
			}
			rowbuf_add(rb, st, ncol);
		}
		rowbuf_fix(rb);
	}
	for (i = 0; i < ncol; i++)
		if (cols[i].type.t == SC_ETYPE_UNKNOWN)
			infer(&cols[i], rb, ncol, i);
	*colsp = cols;
	*np = (size_t)ncol;
	return 0;
}

static int
row_too_big(size_t bytes, struct sc_error *err)
{
	sc_srv_error(err, "EXCEED_LIMIT_LENGTH", "54006",
	    "A result row makes an Arrow batch of %zu bytes, more "
	    "than the %d bytes one response message may hold.",
	    bytes, SC_ENGINE_MAX_ROW);
	if (err != NULL)
		err->rpc_code = SC_GRPC_RESOURCE_EXHAUSTED;
	return -1;
}

static int
end_row(struct sc_ebatch *b, struct sc_error *err)
{
	size_t bytes;

	if (sc_arrow_writer_end_row(b->w, err) == -1)
		return -1;
	bytes = sc_arrow_writer_bytes(b->w);
	if (bytes > SC_ENGINE_MAX_ROW)
		return row_too_big(bytes, err);
	if ((int64_t)sc_arrow_writer_rows(b->w) >= b->max_rows ||
	    (int64_t)sc_arrow_writer_bytes(b->w) >= b->max_bytes)
		return sc_eng_batch_flush(b, err);
	return 0;
}

/*
 * Bytes of the current row of st in values of SC_ENGINE_LARGE_VALUE or
 * more, read before they are fetched (so a zeroblob() is not expanded).
 */
static int64_t
large_bytes(sqlite3_stmt *st, size_t ncol)
{
	int64_t sum = 0;
	size_t i;
	int t, n;

	for (i = 0; i < ncol; i++) {
		t = sqlite3_column_type(st, (int)i);
		if (t != SQLITE_TEXT && t != SQLITE_BLOB)
			continue;
		n = sqlite3_column_bytes(st, (int)i);
		if (n >= SC_ENGINE_LARGE_VALUE)
			sum += n;
	}
	return sum;
}

/*
 * Tell the sink about a row of large values before it is copied, in a
 * batch of its own (the rows before it are sent first); and that the
 * one before is gone.  *large: what the last call said.
 */
static int
count_large(struct sc_ebatch *b, sqlite3_stmt *st, size_t ncol, int64_t *large,
    struct sc_error *err)
{
	int64_t n = large_bytes(st, ncol);

	if (n == 0 && *large == 0)
		return 0;
	/* Its values alone pass what one response may hold: never built. */
	if (n > SC_ENGINE_MAX_ROW)
		return row_too_big((size_t)n, err);
	if (n > 0 && sc_arrow_writer_rows(b->w) > 0 &&
	    sc_eng_batch_flush(b, err) == -1)
		return -1;
	*large = n;
	if (b->sink->large(b->sink->arg, n) != 0)
		return sc_eng_canceled(err);
	return 0;
}

/* Stream st's rows (after those buffered in rb) into batches. */
static int
stream_rows(struct sc_ectx *x, sqlite3_stmt *st, const struct sc_ecol *cols,
    size_t ncol, struct rowbuf *rb, const struct sc_engine_limits *limits,
    const struct sc_engine_sink *sink, struct sc_error *err)
{
	struct sc_ebatch b;
	struct sc_eval v;
	size_t r, i;
	int64_t row = 0, large = 0;
	int rc, ret = -1;

	if (sc_eng_batch_begin(&b, x, cols, ncol, limits, sink, err) == -1)
		return -1;
	for (r = 0; r < rb->rows; r++, row++) {
		for (i = 0; i < ncol; i++)
			if (sc_eng_put(b.w, i, &cols[i], &rb->v[r * ncol + i],
				row, err) == -1)
				goto out;
		if (end_row(&b, err) == -1)
			goto out;
	}
	if (!rb->done) {
		for (;;) {
			rc = sc_eng_step(x, st);
			if (rc == SQLITE_DONE)
				break;
			if (rc != SQLITE_ROW) {
				sc_eng_sqlite_error(x, rc, err);
				goto out;
			}
			if (sink->large != NULL &&
			    count_large(&b, st, ncol, &large, err) == -1)
				goto out;
			for (i = 0; i < ncol; i++) {
				sc_eng_eval_column(st, (int)i, &v);
				if (sc_eng_put(b.w, i, &cols[i], &v, row,
					err) == -1)
					goto out;
			}
			row++;
			if (end_row(&b, err) == -1)
				goto out;
			/* A row of large values goes by itself. */
			if (large > 0 && sc_arrow_writer_rows(b.w) > 0 &&
			    sc_eng_batch_flush(&b, err) == -1)
				goto out;
		}
	}
	ret = sc_eng_batch_end(&b, err);
out:
	sc_eng_batch_release(&b);
	return ret;
}

/*
 * Run plan p: schema to the sink, then batches; with schema_only just
 * the result columns in *colsp (free with sc_ecols_free()).  A list
 * plan holds several statements; all but the last are run to completion
 * first and the result is the last one's.
 */
int
sc_eng_exec_plan(struct sc_ectx *x, struct sc_eplan *p,
    const struct sc_engine_limits *limits, const struct sc_engine_sink *sink,
    bool schema_only, struct sc_ecol **colsp, size_t *ncolsp,
    struct sc_error *err)
{
	sqlite3_stmt *st = NULL;
	const char *sql = (const char *)p->sql.data, *tail;
	struct sc_ecol *cols = NULL;
	struct rowbuf rb;
	size_t ncol = 0, posused = 0;
	int rc, ret = -1;
	bool script = false; /* in the savepoint of a statement list */

	if (p->kind == SC_EPLAN_RANGE) {
		if (!schema_only)
			return sc_eng_range_run(x, p, limits, sink, err);
		cols = sc_xcalloc(1, sizeof(*cols));
		cols->name = sc_xstrdup(p->ncols == 1 ? p->cols[0].name : "id");
		cols->type.t = SC_ARROW_INT64;
		cols->nullable = 0;
		*colsp = cols;
		*ncolsp = 1;
		return 0;
	}
	memset(&rb, 0, sizeof(rb));
	sc_buf_init(&rb.bytes, SC_BUF_UNLIMITED);
	for (;;) {
		if (sc_eng_prepare(x, sql, strlen(sql), &st, &tail, err) == -1)
			goto out;
		if (st == NULL) { /* only blanks or comments */
			if (*tail == '\0' || tail == sql)
				break;
			sql = tail;
			continue;
		}
		if (sc_eng_bind(x, st, &x->params, &posused, err) == -1)
			goto out;
		if (!p->list || sc_eng_sql_blank(tail))
			break;
		if (schema_only) {
			/* Analysis must not run the statements before. */
			sc_srv_error(err, "PARSE_SYNTAX_ERROR", "42601",
			    "Syntax error at or near '%.20s': the schema of "
			    "several statements is not defined.",
			    tail);
			goto out;
		}
		/*
		 * Not the last statement: run it, the list as one (a
		 * CREATE TABLE ... AS is a CREATE and an INSERT: a failed
		 * INSERT must not leave the table behind).
		 */
		if (!script && sqlite3_get_autocommit(x->c->db) &&
		    sc_eng_guard_exec_own(x->c, "SAVEPOINT sc_list") ==
			SQLITE_OK)
			script = true;
		while ((rc = sc_eng_step(x, st)) == SQLITE_ROW)
			;
		if (rc != SQLITE_DONE) {
			sc_eng_sqlite_error(x, rc, err);
			goto out;
		}
		sqlite3_finalize(st);
		st = NULL;
		sql = tail;
	}
	if (st == NULL) {
		/* Nothing but comments: an empty, zero-column result. */
		rb.done = true;
		if (schema_only) {
			*colsp = NULL;
			*ncolsp = 0;
			ret = 0;
		} else {
			ret = stream_rows(x, NULL, NULL, 0, &rb, limits, sink,
			    err);
		}
		goto out;
	}
	if (!p->list && !sc_eng_sql_blank(tail)) {
		sc_srv_error(err, "PARSE_SYNTAX_ERROR", "42601",
		    "Syntax error at or near '%.20s': only one statement is "
		    "allowed here.",
		    tail);
		goto out;
	}
	/* A last statement that only reads need not hold the others' lock. */
	if (script && sqlite3_stmt_readonly(st)) {
		sc_eng_guard_exec_own(x->c, "RELEASE sc_list");
		script = false;
	}
	if (result_columns(x, p, st, schema_only, &rb, &cols, &ncol, err) == -1)
		goto out;
	if (schema_only) {
		*colsp = cols;
		*ncolsp = ncol;
		cols = NULL;
		ret = 0;
		goto out;
	}
	ret = stream_rows(x, st, cols, ncol, &rb, limits, sink, err);
out:
	sqlite3_finalize(st);
	x->run->client_sql = false;
	if (script && ret == -1)
		sc_eng_guard_exec_own(x->c,
		    "ROLLBACK TO sc_list; RELEASE sc_list");
	else if (script)
		sc_eng_guard_exec_own(x->c, "RELEASE sc_list");
	sc_ecols_free(cols, ncol);
	rowbuf_release(&rb);
	return ret;
}
