/* SPDX-License-Identifier: MIT */

/*
 * render.c: results to stdout.  Text formats decode every ArrowBatch
 * with core/arrow and write records through core/output; the arrow
 * format joins Spark's per-response IPC streams into one stream per
 * result (sc_arrow_join).  Each response is written and dropped before
 * the next is read, so memory stays flat however large the result.
 */

#include "sc-exec.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/arrow.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/result.h"
#include "core/xmem.h"
#include "core/banned.h"

#define CELL_MAX (256UL * 1024 * 1024)

struct render {
	FILE *fp;
	struct render_opts o;
	uint64_t rows; /* all results */
	uint64_t bytes;
	uint64_t shown; /* results with columns written */
	uint64_t cut; /* results cut at max_rows */

	/* The current result. */
	bool started; /* header or schema written */
	bool empty; /* no columns: print nothing */
	uint64_t res_rows;
	bool limit; /* a row past max_rows came: the result is cut */
	struct sc_output *out;
	size_t ncols;
	struct sc_buf *cells;
	struct sc_out_value *vals;
	struct sc_arrow_join join; /* arrow mode */
	struct sc_arrow_schema schema; /* text mode: the first batch's */
	char **pending; /* names from a schema message */
	size_t npending;
	/* Its interval columns' fields (start, end), else -1: Arrow has none. */
	int (*ival)[2];
	uint64_t batch_rows; /* rows decoded in this batch */
	bool flush_batches; /* stdout is a pipe or tty */
};

/*
 * Flushing after every record (git's rule for pipes) costs a write(2)
 * per row: 10 M rows took 8.4 s into a pipe against 3.1 s into a file.
 * A reader of a pipe or a terminal sees each batch as soon as it is
 * decoded instead, which keeps latency at one batch (at most 10000 rows
 * from Spark) and the syscall count at one per batch.
 */
static bool
stdout_is_file(FILE *fp)
{
	struct stat st;

	return fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode);
}

static int
write_error(struct sc_error *err)
{
	return sc_error_set_errno(err, SC_ST_IO, errno, "cannot write output");
}

/* The joiner's output. */
static int
put(void *arg, const void *p, size_t n, struct sc_error *err)
{
	struct render *r = arg;

	if (fwrite(p, 1, n, r->fp) != n)
		return write_error(err);
	return 0;
}

struct render *
render_new(FILE *fp, const struct render_opts *o)
{
	struct render *r;

	r = sc_xcalloc(1, sizeof(*r));
	r->fp = fp;
	r->o = *o;
	sc_arrow_join_init(&r->join, put, r);
	sc_arrow_schema_init(&r->schema);
	r->flush_batches = !stdout_is_file(fp);
	return r;
}

static void
clear_pending(struct render *r)
{
	size_t i;

	for (i = 0; i < r->npending; i++)
		free(r->pending[i]);
	SC_FREE(r->pending);
	SC_FREE(r->ival);
	r->npending = 0;
}

/*
 * The fields of an interval type's simpleString ("interval day to
 * second", "interval month"): start and end numbered as Spark's
 * DayTimeIntervalType (day 0 ... second 3) and YearMonthIntervalType
 * (year 0, month 1) number them; -1 when it is no interval.
 */
static void
interval_fields(const char *s, int f[2])
{
	static const char *const names[] = { "day", "hour", "minute", "second",
		"year", "month" };
	size_t i, k, j = 0;

	f[0] = f[1] = -1;
	if (strncmp(s, "interval ", 9) != 0)
		return;
	s += 9;
	while (j < 2) {
		for (i = 0; i < SC_NELEM(names); i++) {
			k = strlen(names[i]);
			if (strncmp(s, names[i], k) == 0 &&
			    (s[k] == '\0' || s[k] == ' '))
				break;
		}
		if (i == SC_NELEM(names))
			return;
		f[j++] = (int)(i < 4 ? i : i - 4);
		s += k;
		if (strncmp(s, " to ", 4) != 0)
			break;
		s += 4;
	}
	if (j == 1)
		f[1] = f[0];
}

/* Cell i of row as Spark's string of an interval of its fields: 1, else 0. */
static int
interval_cell(struct render *r, const struct sc_arrow_batch *b, size_t i,
    size_t row, struct sc_error *err)
{
	char t[SC_ARROW_INTERVAL_TEXT];
	enum sc_arrow_type ty = b->schema->fields[i].type;
	int64_t v;

	if (r->ival == NULL || i >= r->npending || r->ival[i][0] < 0 ||
	    (ty != SC_ARROW_DURATION_US && ty != SC_ARROW_INTERVAL_YM) ||
	    sc_arrow_get_int64(b, i, row, &v) == -1)
		return 0;
	if (ty == SC_ARROW_DURATION_US)
		sc_arrow_fmt_dt_interval(v, r->ival[i][0], r->ival[i][1], t);
	else
		sc_arrow_fmt_ym_interval(v, r->ival[i][0], r->ival[i][1], t);
	return sc_buf_addstr(&r->cells[i], t, err) == -1 ? -1 : 1;
}

static void
reset_result(struct render *r)
{
	size_t i;

	sc_output_free(r->out);
	r->out = NULL;
	for (i = 0; i < r->ncols; i++)
		sc_buf_release(&r->cells[i]);
	SC_FREE(r->cells);
	SC_FREE(r->vals);
	r->ncols = 0;
	sc_arrow_join_release(&r->join);
	sc_arrow_join_init(&r->join, put, r);
	sc_arrow_schema_release(&r->schema);
	clear_pending(r);
	if (r->limit)
		r->cut++;
	r->started = false;
	r->empty = false;
	r->limit = false;
	r->res_rows = 0;
}

void
render_free(struct render *r)
{
	if (r == NULL)
		return;
	reset_result(r);
	free(r);
}

void
render_begin(struct render *r)
{
	reset_result(r);
}

uint64_t
render_rows(const struct render *r)
{
	return r->rows;
}

uint64_t
render_bytes(const struct render *r)
{
	return r->bytes;
}

uint64_t
render_cut(const struct render *r)
{
	return r->cut + (r->limit ? 1 : 0);
}

/* ----------------------------------------------------------- text mode */

static int
text_header(struct render *r, const char *const *names, size_t n,
    struct sc_error *err)
{
	struct sc_output_opts oo;
	size_t i;

	r->started = true;
	if (n == 0) {
		r->empty = true;
		return 0;
	}
	/* Results for the eye are told apart by a blank line. */
	if (r->shown > 0 &&
	    (r->o.format == SC_OUT_TABLE || r->o.format == SC_OUT_VERTICAL) &&
	    fputc('\n', r->fp) == EOF)
		return write_error(err);
	r->shown++;
	memset(&oo, 0, sizeof(oo));
	oo.header = r->o.header;
	oo.null_text = r->o.null_text;
	oo.flush = 0;
	oo.page_rows = r->o.page_rows;
	r->out = sc_output_new(r->fp, r->o.format, &oo);
	r->ncols = n;
	r->cells = sc_xcalloc(n, sizeof(*r->cells));
	r->vals = sc_xcalloc(n, sizeof(*r->vals));
	for (i = 0; i < n; i++)
		sc_buf_init(&r->cells[i], CELL_MAX);
	return sc_output_header(r->out, names, n, err);
}

static int
text_batch(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	struct render *r = arg;
	const char **names;
	size_t i, row, n = b->schema->nfields;
	int kind, rc;

	if (!r->started) {
		names = sc_xcalloc(n + 1, sizeof(*names));
		for (i = 0; i < n; i++)
			names[i] = b->schema->fields[i].name;
		rc = text_header(r, names, n, err);
		free(names);
		if (rc == -1)
			return -1;
	}
	if (n != r->ncols && !(r->empty && n == 0))
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "result has %zu columns in one batch and %zu in another",
		    r->ncols, n);
	/*
	 * As many columns is not the same columns: a batch with other
	 * names or types would print under the first one's header.
	 */
	if (r->schema.nfields == 0 && n > 0)
		sc_arrow_schema_copy(&r->schema, b->schema);
	for (i = 0; i < n && i < r->schema.nfields; i++)
		if (!sc_arrow_field_equal(&r->schema.fields[i],
			&b->schema->fields[i]))
			return sc_error_set(err, SC_ST_PROTOCOL,
			    "the result schema changed between Arrow batches");
	for (row = 0; row < b->nrows; row++) {
		if (r->o.max_rows > 0 && r->res_rows >= r->o.max_rows) {
			r->limit = true;
			return -1;
		}
		r->batch_rows++;
		r->res_rows++;
		r->rows++;
		if (r->empty)
			continue;
		for (i = 0; i < n; i++) {
			sc_buf_reset(&r->cells[i]);
			kind = SC_OUT_STRING;
			if ((rc = interval_cell(r, b, i, row, err)) == -1)
				return -1;
			/* Nested values: JSON in JSON lines, else as show(). */
			if (rc == 0 &&
			    sc_arrow_format_value(b, i, row,
				r->o.format == SC_OUT_JSONL ? SC_ARROW_FMT_TEXT
							    : SC_ARROW_FMT_CELL,
				&r->cells[i], &kind, err) == -1)
				return -1;
			r->vals[i].kind = (enum sc_out_kind)kind;
			r->vals[i].p = (const char *)r->cells[i].data;
			r->vals[i].n = r->cells[i].len;
		}
		if (sc_output_row(r->out, r->vals, n, err) == -1)
			return -1;
	}
	if (r->flush_batches && !r->empty && sc_output_flush(r->out, err) == -1)
		return -1;
	return 0;
}

/* --------------------------------------------------------------- common */

/* Write one Arrow IPC stream; r->batch_rows counts its rows. */
static int
render_data(struct render *r, const uint8_t *p, size_t n, struct sc_error *err)
{
	r->batch_rows = 0;
	r->bytes += n;
	if (r->o.mode == RENDER_ARROW) {
		if (sc_arrow_join_add(&r->join, p, n, &r->batch_rows, err) ==
		    -1)
			return -1;
		r->started = true;
		r->res_rows += r->batch_rows;
		r->rows += r->batch_rows;
	} else if (sc_arrow_read_stream(p, n, text_batch, r, err) == -1)
		return r->limit ? 1 : -1;
	/*
	 * A result of exactly max_rows rows is not cut: the limit is
	 * reached only by a row past it, in the next batch if need be.
	 */
	return 0;
}

int
render_batch(struct render *r, const struct sc_result_arrow *b,
    struct sc_error *err)
{
	int rc;

	if (b->has_start_offset && b->start_offset != (int64_t)r->res_rows)
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "Arrow batch starts at row %lld, but %llu rows were received",
		    (long long)b->start_offset,
		    (unsigned long long)r->res_rows);
	rc = render_data(r, b->data, b->len, err);
	if (rc != 0)
		return rc;
	if (r->batch_rows != (uint64_t)b->rows)
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "Arrow batch says %lld rows but holds %llu",
		    (long long)b->rows, (unsigned long long)r->batch_rows);
	return r->limit ? 1 : 0;
}

int
render_local(struct render *r, const void *p, size_t n, struct sc_error *err)
{
	return render_data(r, p, n, err);
}

void
render_schema(struct render *r, const struct sc_result_schema *schema)
{
	size_t i, n;

	if (r->started || schema == NULL)
		return;
	n = sc_result_schema_ncols(schema);
	clear_pending(r);
	r->pending = sc_xcalloc(n + 1, sizeof(*r->pending));
	r->ival = sc_xcalloc(n + 1, sizeof(*r->ival));
	for (i = 0; i < n; i++) {
		struct sc_buf t;

		r->pending[i] = sc_xstrdup(sc_result_schema_name(schema, i));
		sc_buf_init(&t, 256);
		if (sc_result_schema_type_name(schema, i, &t, NULL) == 0 &&
		    t.len > 0)
			interval_fields((const char *)t.data, r->ival[i]);
		else
			r->ival[i][0] = r->ival[i][1] = -1;
		sc_buf_release(&t);
	}
	r->npending = n;
}

int
render_end(struct render *r, struct sc_error *err)
{
	int rc = 0;

	if (r->o.mode == RENDER_ARROW) {
		if (sc_arrow_join_finish(&r->join, err) == -1)
			rc = -1;
		else if (fflush(r->fp) == EOF)
			rc = write_error(err);
	} else {
		/* A result without batches: the header from its schema. */
		if (!r->started && r->npending > 0)
			rc = text_header(r, (const char *const *)r->pending,
			    r->npending, err);
		if (rc == 0 && r->out != NULL)
			rc = sc_output_finish(r->out, err);
	}
	reset_result(r);
	return rc;
}
