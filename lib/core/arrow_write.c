/* SPDX-License-Identifier: MIT */

/*
 * arrow_write.c: Arrow IPC stream writer: rows appended column by
 * column (nested values too) and flushed as record batches.  The
 * FlatBuffers, the schema message and the end of stream are
 * arrow_write_fb.c's.
 */

#include "core/arrow.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "core/arrow_int.h"
#include "core/arrow_write_int.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/value.h"
#include "core/xmem.h"
#include "core/banned.h"

/* ---- the row writer ------------------------------------------------ */

struct wcol {
	const struct sc_arrow_field *f;
	size_t n; /* values appended */
	size_t nnull;
	unsigned width; /* fixed-width bytes; 0 bool/var/null */
	unsigned offw; /* 4 or 8 for var-width, else 0 */
	struct bytes valid; /* validity bitmap */
	struct bytes vals; /* values, bool bits, or offsets */
	struct bytes data; /* var-width bytes */
	/*
	 * A column holding only a sequence (sc_arrow_append_int64_seq)
	 * keeps start and step instead of the values, and writes them
	 * straight into the flushed batch: a Range is then generated into
	 * the message once, not into a column buffer and copied again.
	 */
	bool lazy;
	uint64_t lazy_start, lazy_step;
	/*
	 * Nested columns (struct, list, map): their children, each with
	 * its own count.  A list or map keeps int32 offsets in vals.
	 */
	bool nested;
	struct wcol *kids;
	size_t nkids;
};

struct sc_arrow_writer {
	struct sc_arrow_schema schema;
	struct wcol *cols;
	size_t nrows;
	struct bytes meta; /* FlatBuffer scratch */
};

static void
col_reset(struct wcol *c)
{
	size_t i;

	c->n = c->nnull = 0;
	c->lazy = false;
	c->valid.len = c->vals.len = c->data.len = 0;
	if (c->offw)
		sc_arrow_bytes_put(&c->vals, NULL,
		    c->offw); /* offsets[0] = 0 */
	for (i = 0; i < c->nkids; i++)
		col_reset(&c->kids[i]);
}

/* Whether the writer can write a column of field f (and its children). */
static bool
col_writable(const struct sc_arrow_field *f)
{
	size_t i;

	switch (f->type) {
	case SC_ARROW_LARGE_LIST:
		return false;
	case SC_ARROW_LIST:
		if (f->nchildren != 1)
			return false;
		break;
	case SC_ARROW_MAP:
		if (f->nchildren != 1 ||
		    f->children[0].type != SC_ARROW_STRUCT ||
		    f->children[0].nchildren != 2)
			return false;
		break;
	default:
		break;
	}
	for (i = 0; i < f->nchildren; i++)
		if (!col_writable(&f->children[i]))
			return false;
	return true;
}

static void
col_setup(struct wcol *c, const struct sc_arrow_field *f)
{
	size_t i;

	c->f = f;
	switch (f->type) {
	case SC_ARROW_INT8:
		c->width = 1;
		break;
	case SC_ARROW_INT16:
		c->width = 2;
		break;
	case SC_ARROW_INT32:
	case SC_ARROW_DATE32:
	case SC_ARROW_INTERVAL_YM:
	case SC_ARROW_FLOAT:
		c->width = 4;
		break;
	case SC_ARROW_INT64:
	case SC_ARROW_TIMESTAMP_US:
	case SC_ARROW_DURATION_US:
	case SC_ARROW_DOUBLE:
		c->width = 8;
		break;
	case SC_ARROW_DECIMAL128:
		c->width = 16;
		break;
	case SC_ARROW_UTF8:
	case SC_ARROW_BINARY:
		c->offw = 4;
		break;
	case SC_ARROW_LARGE_UTF8:
	case SC_ARROW_LARGE_BINARY:
		c->offw = 8;
		break;
	case SC_ARROW_LIST:
	case SC_ARROW_MAP:
		c->offw = 4;
		c->nested = true;
		break;
	case SC_ARROW_STRUCT:
		c->nested = true;
		break;
	default:
		break;
	}
	if (f->nchildren > 0 && c->nested) {
		c->kids = sc_xcalloc(f->nchildren, sizeof(*c->kids));
		c->nkids = f->nchildren;
		for (i = 0; i < f->nchildren; i++)
			col_setup(&c->kids[i], &f->children[i]);
	}
	col_reset(c);
}

static void
col_free(struct wcol *c)
{
	size_t i;

	for (i = 0; i < c->nkids; i++)
		col_free(&c->kids[i]);
	free(c->kids);
	sc_arrow_bytes_free(&c->valid);
	sc_arrow_bytes_free(&c->vals);
	sc_arrow_bytes_free(&c->data);
}

struct sc_arrow_writer *
sc_arrow_writer_new(const struct sc_arrow_schema *s, struct sc_error *err)
{
	struct sc_arrow_writer *w;
	size_t i;

	for (i = 0; i < s->nfields; i++)
		if (!col_writable(&s->fields[i])) {
			sc_error_set(err, SC_ST_INTERNAL,
			    "cannot write nested Arrow column '%s'",
			    s->fields[i].name ? s->fields[i].name : "");
			return NULL;
		}
	w = sc_xcalloc(1, sizeof(*w));
	sc_arrow_schema_copy(&w->schema, s);
	w->cols = sc_xcalloc(s->nfields ? s->nfields : 1, sizeof(*w->cols));
	for (i = 0; i < s->nfields; i++)
		col_setup(&w->cols[i], &w->schema.fields[i]);
	return w;
}

void
sc_arrow_writer_free(struct sc_arrow_writer *w)
{
	size_t i;

	if (w == NULL)
		return;
	for (i = 0; i < w->schema.nfields; i++)
		col_free(&w->cols[i]);
	free(w->cols);
	sc_arrow_bytes_free(&w->meta);
	sc_arrow_schema_release(&w->schema);
	free(w);
}

const struct sc_arrow_schema *
sc_arrow_writer_schema(const struct sc_arrow_writer *w)
{
	return &w->schema;
}

size_t
sc_arrow_writer_rows(const struct sc_arrow_writer *w)
{
	return w->nrows;
}

static size_t
pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The value buffer's length, virtual for a lazy sequence. */
static size_t
vals_len(const struct wcol *c)
{
	return c->lazy ? c->n * 8 : c->vals.len;
}

/* Write values start, start + step, ... as little-endian int64s. */
static void
fill_seq(uint8_t *p, uint64_t v, uint64_t step, size_t n)
{
	size_t i;

	/*
	 * A byte-wise store costs about 60 instructions a row; on a
	 * little-endian host the value's own bytes are already in order.
	 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (i = 0; i < n; i++, v += step)
		memcpy(p + i * 8, &v, 8);
#else
	for (i = 0; i < n; i++, v += step)
		sc_arrow_le64(p + i * 8, v);
#endif
}

/* Turn a lazy sequence into real values before anything else is added. */
static void
materialize(struct wcol *c)
{
	if (!c->lazy)
		return;
	c->lazy = false;
	c->vals.len = 0;
	sc_arrow_bytes_reserve(&c->vals, c->n * 8);
	fill_seq(c->vals.p, c->lazy_start, c->lazy_step, c->n);
	c->vals.len = c->n * 8;
}

static size_t
col_bytes(const struct wcol *c)
{
	size_t i, sum;

	sum = pad8(c->valid.len) + pad8(vals_len(c)) + pad8(c->data.len);
	for (i = 0; i < c->nkids; i++)
		sum += col_bytes(&c->kids[i]);
	return sum;
}

size_t
sc_arrow_writer_bytes(const struct sc_arrow_writer *w)
{
	size_t i, sum = 0;

	for (i = 0; i < w->schema.nfields; i++)
		sum += col_bytes(&w->cols[i]);
	return sum;
}

/* Find column col and check it can take the next value of this row. */
static struct wcol *
col_get(struct sc_arrow_writer *w, size_t col, struct sc_error *err)
{
	struct wcol *c;

	if (col >= w->schema.nfields) {
		sc_error_set(err, SC_ST_INTERNAL,
		    "Arrow column %zu out of range", col);
		return NULL;
	}
	c = &w->cols[col];
	materialize(c);
	if (c->n != w->nrows) {
		sc_error_set(err, SC_ST_INTERNAL,
		    "Arrow column '%s' already has a value for row %zu",
		    c->f->name, w->nrows);
		return NULL;
	}
	return c;
}

static int
wrong_kind(const struct wcol *c, const char *what, struct sc_error *err)
{
	return sc_error_set(err, SC_ST_INTERNAL,
	    "cannot append %s to Arrow %s column '%s'", what,
	    sc_arrow_type_name(c->f->type), c->f->name);
}

/* Add one bit (the next slot) to a bitmap. */
static void
bit_push(struct bytes *b, size_t idx, bool set)
{
	if (idx % 8 == 0)
		sc_arrow_bytes_put(b, NULL, 1);
	if (set)
		b->p[idx / 8] |= (uint8_t)(1u << (idx % 8));
}

/* Record the validity of the value being appended and count it. */
static void
col_push_valid(struct wcol *c, bool valid)
{
	bit_push(&c->valid, c->n, valid);
	if (!valid)
		c->nnull++;
}

/*
 * Add a slot holding nothing: a null when valid is false, else a zero
 * or empty value.  A struct's fields get a slot too (a null in nullable
 * fields, a zero value in the others), as Arrow wants them as long as
 * the struct.
 */
static void
col_fill(struct wcol *c, bool valid)
{
	uint8_t off[8];
	size_t i;

	if (c->f->type == SC_ARROW_NULL) {
		c->nnull++;
		c->n++;
		return;
	}
	col_push_valid(c, valid);
	if (c->f->type == SC_ARROW_BOOL)
		bit_push(&c->vals, c->n, false);
	else if (c->width)
		sc_arrow_bytes_put(&c->vals, NULL, c->width);
	else if (c->offw) {
		memcpy(off, c->vals.p + c->vals.len - c->offw, c->offw);
		sc_arrow_bytes_put(&c->vals, off, c->offw);
	}
	if (c->f->type == SC_ARROW_STRUCT)
		for (i = 0; i < c->nkids; i++)
			col_fill(&c->kids[i], !c->kids[i].f->nullable);
	c->n++;
}

static int
put_null(struct wcol *c, struct sc_error *err)
{
	if (!c->f->nullable && c->f->type != SC_ARROW_NULL)
		return sc_error_set(err, SC_ST_FAILED,
		    "null value in non-nullable column '%s'", c->f->name);
	col_fill(c, false);
	return 0;
}

int
sc_arrow_append_null(struct sc_arrow_writer *w, size_t col,
    struct sc_error *err)
{
	struct wcol *c;

	if ((c = col_get(w, col, err)) == NULL)
		return -1;
	return put_null(c, err);
}

static int
put_bool(struct wcol *c, bool v, struct sc_error *err)
{
	if (c->f->type != SC_ARROW_BOOL)
		return wrong_kind(c, "a boolean", err);
	col_push_valid(c, true);
	bit_push(&c->vals, c->n, v);
	c->n++;
	return 0;
}

int
sc_arrow_append_bool(struct sc_arrow_writer *w, size_t col, bool v,
    struct sc_error *err)
{
	struct wcol *c;

	if ((c = col_get(w, col, err)) == NULL)
		return -1;
	return put_bool(c, v, err);
}

static void
col_push_le(struct wcol *c, uint64_t v)
{
	uint8_t tmp[8];

	sc_arrow_le64(tmp, v);
	col_push_valid(c, true);
	sc_arrow_bytes_put(&c->vals, tmp,
	    c->width); /* low bytes: little-endian */
	c->n++;
}

static int
put_int64(struct wcol *c, int64_t v, struct sc_error *err)
{
	int64_t lo, hi;

	switch (c->f->type) {
	case SC_ARROW_INT8:
		lo = INT8_MIN;
		hi = INT8_MAX;
		break;
	case SC_ARROW_INT16:
		lo = INT16_MIN;
		hi = INT16_MAX;
		break;
	case SC_ARROW_INT32:
	case SC_ARROW_DATE32:
	case SC_ARROW_INTERVAL_YM:
		lo = INT32_MIN;
		hi = INT32_MAX;
		break;
	case SC_ARROW_INT64:
	case SC_ARROW_TIMESTAMP_US:
	case SC_ARROW_DURATION_US:
		lo = INT64_MIN;
		hi = INT64_MAX;
		break;
	default:
		return wrong_kind(c, "an integer", err);
	}
	if (v < lo || v > hi)
		return sc_error_set(err, SC_ST_FAILED,
		    "value %lld out of range for %s column '%s'", (long long)v,
		    sc_arrow_type_name(c->f->type), c->f->name);
	col_push_le(c, (uint64_t)v);
	return 0;
}

int
sc_arrow_append_int64(struct sc_arrow_writer *w, size_t col, int64_t v,
    struct sc_error *err)
{
	struct wcol *c;

	if ((c = col_get(w, col, err)) == NULL)
		return -1;
	return put_int64(c, v, err);
}

int
sc_arrow_append_int64_seq(struct sc_arrow_writer *w, int64_t start,
    int64_t step, size_t n, struct sc_error *err)
{
	struct wcol *c;
	uint8_t *p;
	size_t i, first, nbytes;
	bool extend;

	if (w->schema.nfields != 1)
		return sc_error_set(err, SC_ST_INTERNAL,
		    "a sequence needs a one-column Arrow writer");
	c = &w->cols[0];
	/* A fresh column, or one that continues the same sequence, stays lazy. */
	extend = c->lazy && c->lazy_step == (uint64_t)step &&
	    c->lazy_start + c->n * c->lazy_step == (uint64_t)start;
	if (!extend &&
	    (c->f->type != SC_ARROW_INT64 || c->n != 0 || w->nrows != 0)) {
		if ((c = col_get(w, 0, err)) == NULL)
			return -1;
		if (c->f->type != SC_ARROW_INT64)
			return wrong_kind(c, "an int64 sequence", err);
	}
	if (n == 0)
		return 0;
	/* Validity: finish the partial byte, then whole bytes of ones. */
	first = c->n;
	while (first % 8 != 0 && first < c->n + n)
		bit_push(&c->valid, first++, true);
	if (first < c->n + n) {
		i = c->n + n - first; /* bits left, from a byte start */
		nbytes = (i + 7) / 8;
		sc_arrow_bytes_reserve(&c->valid, nbytes);
		memset(c->valid.p + c->valid.len, 0xff, i / 8);
		if (i % 8 != 0) /* unused high bits stay zero */
			c->valid.p[c->valid.len + i / 8] =
			    (uint8_t)((1u << (i % 8)) - 1);
		c->valid.len += nbytes;
	}
	if (extend || (c->n == 0 && !c->lazy)) {
		if (!extend) {
			c->lazy = true;
			c->lazy_start = (uint64_t)start;
			c->lazy_step = (uint64_t)step;
		}
	} else {
		sc_arrow_bytes_reserve(&c->vals, n * 8);
		p = c->vals.p + c->vals.len;
		fill_seq(p, (uint64_t)start, (uint64_t)step, n);
		c->vals.len += n * 8;
	}
	c->n += n;
	w->nrows += n;
	return 0;
}

static int
put_double(struct wcol *c, double v, struct sc_error *err)
{
	uint64_t u;
	uint32_t u32;
	float fv;

	if (c->f->type == SC_ARROW_DOUBLE) {
		memcpy(&u, &v, 8);
		col_push_le(c, u);
	} else if (c->f->type == SC_ARROW_FLOAT) {
		fv = (float)v;
		memcpy(&u32, &fv, 4);
		col_push_le(c, u32);
	} else
		return wrong_kind(c, "a floating-point value", err);
	return 0;
}

int
sc_arrow_append_double(struct sc_arrow_writer *w, size_t col, double v,
    struct sc_error *err)
{
	struct wcol *c;

	if ((c = col_get(w, col, err)) == NULL)
		return -1;
	return put_double(c, v, err);
}

static int
put_bytes(struct wcol *c, const void *p, size_t n, struct sc_error *err)
{
	uint8_t tmp[8];
	uint64_t end;

	if (c->offw == 0 || c->nested)
		return wrong_kind(c, "bytes", err);
	if (n > (size_t)INT32_MAX ||
	    (c->offw == 4 && c->data.len > (size_t)INT32_MAX - n))
		return sc_error_set(err, SC_ST_FAILED,
		    "value too large for Arrow column '%s'", c->f->name);
	col_push_valid(c, true);
	if (n)
		sc_arrow_bytes_put(&c->data, p, n);
	end = c->data.len;
	if (c->offw == 4)
		sc_arrow_le32(tmp, (uint32_t)end);
	else
		sc_arrow_le64(tmp, end);
	sc_arrow_bytes_put(&c->vals, tmp, c->offw);
	c->n++;
	return 0;
}

int
sc_arrow_append_bytes(struct sc_arrow_writer *w, size_t col, const void *p,
    size_t n, struct sc_error *err)
{
	struct wcol *c;

	if ((c = col_get(w, col, err)) == NULL)
		return -1;
	return put_bytes(c, p, n, err);
}

typedef unsigned __int128 u128;

static u128
pow10_u128(int e)
{
	u128 r = 1;

	while (e-- > 0)
		r *= 10;
	return r;
}

static int
out_of_range(const struct wcol *c, struct sc_error *err)
{
	return sc_error_set(err, SC_ST_FAILED,
	    "decimal value out of range for decimal(%d,%d) column '%s'",
	    c->f->precision, c->f->scale, c->f->name);
}

static int
push_decimal(struct wcol *c, u128 mag, bool neg, struct sc_error *err)
{
	uint8_t tmp[16];
	u128 v;

	if (mag >= pow10_u128(c->f->precision))
		return out_of_range(c, err);
	v = neg ? (u128)0 - mag : mag;
	sc_arrow_le64(tmp, (uint64_t)v);
	sc_arrow_le64(tmp + 8, (uint64_t)(v >> 64));
	col_push_valid(c, true);
	sc_arrow_bytes_put(&c->vals, tmp, 16);
	c->n++;
	return 0;
}

static int
decimal_check(struct wcol **cp, struct sc_error *err)
{
	if ((*cp)->f->type != SC_ARROW_DECIMAL128)
		return wrong_kind(*cp, "a decimal", err);
	if ((*cp)->f->precision < 1 || (*cp)->f->precision > 38 ||
	    (*cp)->f->scale < 0 || (*cp)->f->scale > (*cp)->f->precision)
		return sc_error_set(err, SC_ST_INTERNAL,
		    "bad decimal(%d,%d) column '%s'", (*cp)->f->precision,
		    (*cp)->f->scale, (*cp)->f->name);
	return 0;
}

static int
decimal_col(struct sc_arrow_writer *w, size_t col, struct wcol **cp,
    struct sc_error *err)
{
	if ((*cp = col_get(w, col, err)) == NULL)
		return -1;
	return decimal_check(cp, err);
}

int
sc_arrow_append_decimal128(struct sc_arrow_writer *w, size_t col, int64_t hi,
    uint64_t lo, struct sc_error *err)
{
	struct wcol *c;
	u128 v;
	bool neg = hi < 0;

	if (decimal_col(w, col, &c, err) == -1)
		return -1;
	v = (u128)(uint64_t)hi << 64 | lo;
	return push_decimal(c, neg ? (u128)0 - v : v, neg, err);
}

int
sc_arrow_append_decimal_str(struct sc_arrow_writer *w, size_t col,
    const char *s, struct sc_error *err)
{
	struct wcol *c;
	int64_t hi;
	uint64_t lo;
	int r;

	if (decimal_col(w, col, &c, err) == -1)
		return -1;
	r = sc_value_parse_decimal(s, strlen(s), c->f->precision, c->f->scale,
	    &hi, &lo);
	if (r == -1)
		return sc_error_set(err, SC_ST_FAILED,
		    "invalid decimal literal '%s' for column '%s'", s,
		    c->f->name);
	if (r == -2)
		return out_of_range(c, err);
	return sc_arrow_append_decimal128(w, col, hi, lo, err);
}

/* Drop values beyond row k (a partial row). */
static void
col_truncate(struct wcol *c, size_t k)
{
	size_t i;

	materialize(c);
	if (k >= c->n)
		return;
	for (i = k; i < c->n; i++) {
		if (c->f->type == SC_ARROW_NULL)
			c->nnull--;
		else if (!(c->valid.p[i / 8] >> (i % 8) & 1))
			c->nnull--;
		if (c->f->type != SC_ARROW_NULL)
			c->valid.p[i / 8] &= (uint8_t) ~(1u << (i % 8));
		if (c->f->type == SC_ARROW_BOOL)
			c->vals.p[i / 8] &= (uint8_t) ~(1u << (i % 8));
	}
	c->n = k;
	if (c->f->type == SC_ARROW_NULL)
		return;
	c->valid.len = (k + 7) / 8;
	if (c->f->type == SC_ARROW_BOOL)
		c->vals.len = (k + 7) / 8;
	else if (c->width)
		c->vals.len = k * c->width;
	else if (c->offw && c->nested) {
		c->vals.len = (k + 1) * c->offw;
		col_truncate(&c->kids[0], sc_arrow_rd32(c->vals.p + k * 4));
	} else if (c->offw) {
		c->vals.len = (k + 1) * c->offw;
		c->data.len = c->offw == 4
		    ? sc_arrow_rd32(c->vals.p + k * 4)
		    : (size_t)sc_arrow_rd64(c->vals.p + k * 8);
	}
	if (c->f->type == SC_ARROW_STRUCT)
		for (i = 0; i < c->nkids; i++)
			col_truncate(&c->kids[i], k);
}

int
sc_arrow_writer_end_row(struct sc_arrow_writer *w, struct sc_error *err)
{
	size_t i;

	for (i = 0; i < w->schema.nfields; i++)
		if (w->cols[i].n != w->nrows + 1)
			break;
	if (i == w->schema.nfields) {
		w->nrows++;
		return 0;
	}
	sc_error_set(err, SC_ST_INTERNAL,
	    "Arrow row %zu has no value for column '%s'", w->nrows,
	    w->schema.fields[i].name);
	for (i = 0; i < w->schema.nfields; i++)
		col_truncate(&w->cols[i], w->nrows);
	return -1;
}

static void
add_body(struct sc_buf *out, const struct bytes *b)
{
	static const uint8_t zero[8];

	(void)sc_buf_add(out, b->p, b->len, NULL);
	(void)sc_buf_add(out, zero, pad8(b->len) - b->len, NULL);
}

/* A lazy sequence, generated straight into out, padded. */
static void
add_seq(struct sc_buf *out, const struct wcol *c)
{
	static const uint8_t zero[8];
	size_t len = c->n * 8;

	if (sc_buf_grow(out, len, NULL) == -1)
		return;
	fill_seq(out->data + out->len, c->lazy_start, c->lazy_step, c->n);
	sc_buf_setlen(out, out->len + len);
	(void)sc_buf_add(out, zero, pad8(len) - len, NULL);
}

static size_t
col_nodes(const struct wcol *c)
{
	size_t i, n = 1;

	for (i = 0; i < c->nkids; i++)
		n += col_nodes(&c->kids[i]);
	return n;
}

/* Field nodes and buffers of c and its children, depth first. */
struct layout {
	uint64_t *nodes;
	uint64_t *bufs;
	size_t nn;
	size_t nb;
	size_t body;
};

static void
layout_buf(struct layout *l, size_t len)
{
	l->bufs[2 * l->nb] = l->body;
	l->bufs[2 * l->nb + 1] = len;
	l->body += pad8(len);
	l->nb++;
}

static void
col_layout(struct layout *l, const struct wcol *c)
{
	size_t i;

	l->nodes[2 * l->nn] = c->n;
	l->nodes[2 * l->nn + 1] = c->nnull;
	l->nn++;
	if (c->f->type == SC_ARROW_NULL)
		return;
	layout_buf(l, c->valid.len);
	if (c->f->type != SC_ARROW_STRUCT)
		layout_buf(l, vals_len(c));
	if (c->offw && !c->nested)
		layout_buf(l, c->data.len);
	for (i = 0; i < c->nkids; i++)
		col_layout(l, &c->kids[i]);
}

static void
col_body(struct sc_buf *out, const struct wcol *c)
{
	size_t i;

	if (c->f->type == SC_ARROW_NULL)
		return;
	add_body(out, &c->valid);
	if (c->lazy)
		add_seq(out, c);
	else if (c->f->type != SC_ARROW_STRUCT)
		add_body(out, &c->vals);
	if (c->offw && !c->nested)
		add_body(out, &c->data);
	for (i = 0; i < c->nkids; i++)
		col_body(out, &c->kids[i]);
}

int
sc_arrow_writer_flush_batch(struct sc_arrow_writer *w, struct sc_buf *out,
    struct sc_error *err)
{
	struct fbf v[3] = { { 0, 8, 0 }, { 1, 0, 0 }, { 2, 0, 0 } };
	struct layout l;
	size_t nf = w->schema.nfields, nnodes = 0, i, hslot, t;
	size_t slots[2];
	int rc;

	for (i = 0; i < nf; i++) {
		if (w->cols[i].n != w->nrows)
			return sc_error_set(err, SC_ST_INTERNAL,
			    "Arrow row %zu is incomplete", w->nrows);
		nnodes += col_nodes(&w->cols[i]);
	}
	memset(&l, 0, sizeof(l));
	l.nodes = sc_xcalloc(2 * nnodes + 1, sizeof(*l.nodes));
	l.bufs = sc_xcalloc(6 * nnodes + 1, sizeof(*l.bufs));
	for (i = 0; i < nf; i++)
		col_layout(&l, &w->cols[i]);
	hslot = sc_arrow_fb_message(&w->meta, H_RECORD_BATCH, true, l.body);
	v[0].val = w->nrows;
	t = sc_arrow_fb_table(&w->meta, v, 3, slots);
	sc_arrow_fb_patch(&w->meta, hslot, t);
	sc_arrow_fb_patch(&w->meta, slots[0],
	    sc_arrow_fb_pairvec(&w->meta, l.nodes, l.nn));
	sc_arrow_fb_patch(&w->meta, slots[1],
	    sc_arrow_fb_pairvec(&w->meta, l.bufs, l.nb));
	free(l.nodes);
	free(l.bufs);
	if ((rc = sc_arrow_frame_metadata(&w->meta, out, l.body, err)) == -1)
		return -1;
	for (i = 0; i < nf; i++)
		col_body(out, &w->cols[i]);
	for (i = 0; i < nf; i++)
		col_reset(&w->cols[i]);
	w->nrows = 0;
	return 0;
}

static void
col_trim(struct wcol *c, size_t max)
{
	size_t i;

	if (c->data.len == 0 && c->data.cap > max)
		sc_arrow_bytes_free(&c->data);
	for (i = 0; i < c->nkids; i++)
		col_trim(&c->kids[i], max);
}

void
sc_arrow_writer_trim(struct sc_arrow_writer *w, size_t max)
{
	size_t i;

	if (w->nrows != 0)
		return;
	for (i = 0; i < w->schema.nfields; i++)
		col_trim(&w->cols[i], max);
}

/* ---- nested values --------------------------------------------------- */

struct sc_arrow_wnode *
sc_arrow_writer_node(struct sc_arrow_writer *w, size_t col,
    struct sc_error *err)
{
	return (struct sc_arrow_wnode *)col_get(w, col, err);
}

struct sc_arrow_wnode *
sc_arrow_wnode_child(struct sc_arrow_wnode *node, size_t i)
{
	struct wcol *c = (struct wcol *)node;

	return i < c->nkids ? (struct sc_arrow_wnode *)&c->kids[i] : NULL;
}

const struct sc_arrow_field *
sc_arrow_wnode_field(const struct sc_arrow_wnode *node)
{
	return ((const struct wcol *)node)->f;
}

int
sc_arrow_wnode_null(struct sc_arrow_wnode *node, struct sc_error *err)
{
	return put_null((struct wcol *)node, err);
}

int
sc_arrow_wnode_bool(struct sc_arrow_wnode *node, bool v, struct sc_error *err)
{
	return put_bool((struct wcol *)node, v, err);
}

int
sc_arrow_wnode_int64(struct sc_arrow_wnode *node, int64_t v,
    struct sc_error *err)
{
	return put_int64((struct wcol *)node, v, err);
}

int
sc_arrow_wnode_double(struct sc_arrow_wnode *node, double v,
    struct sc_error *err)
{
	return put_double((struct wcol *)node, v, err);
}

int
sc_arrow_wnode_bytes(struct sc_arrow_wnode *node, const void *p, size_t n,
    struct sc_error *err)
{
	return put_bytes((struct wcol *)node, p, n, err);
}

int
sc_arrow_wnode_decimal128(struct sc_arrow_wnode *node, int64_t hi, uint64_t lo,
    struct sc_error *err)
{
	struct wcol *c = (struct wcol *)node;
	u128 v;
	bool neg = hi < 0;

	if (decimal_check(&c, err) == -1)
		return -1;
	v = (u128)(uint64_t)hi << 64 | lo;
	return push_decimal(c, neg ? (u128)0 - v : v, neg, err);
}

int
sc_arrow_wnode_end(struct sc_arrow_wnode *node, struct sc_error *err)
{
	struct wcol *c = (struct wcol *)node;
	uint8_t tmp[4];
	size_t i;

	if (!c->nested)
		return wrong_kind(c, "the end of a nested value", err);
	if (c->f->type == SC_ARROW_STRUCT) {
		for (i = 0; i < c->nkids; i++)
			if (c->kids[i].n != c->n + 1)
				return sc_error_set(err, SC_ST_INTERNAL,
				    "Arrow struct '%s' has no value for its "
				    "field '%s'",
				    c->f->name, c->kids[i].f->name);
	} else {
		if (c->kids[0].n > (size_t)INT32_MAX)
			return sc_error_set(err, SC_ST_FAILED,
			    "too many elements for Arrow column '%s'",
			    c->f->name);
		sc_arrow_le32(tmp, (uint32_t)c->kids[0].n);
		sc_arrow_bytes_put(&c->vals, tmp, 4);
	}
	col_push_valid(c, true);
	c->n++;
	return 0;
}

int
sc_arrow_writer_flush(struct sc_arrow_writer *w, struct sc_buf *out,
    struct sc_error *err)
{
	if (sc_arrow_write_schema(&w->schema, out, err) == -1 ||
	    sc_arrow_writer_flush_batch(w, out, err) == -1)
		return -1;
	return sc_arrow_write_eos(out, err);
}
