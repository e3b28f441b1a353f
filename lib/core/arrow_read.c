/* SPDX-License-Identifier: MIT */

/*
 * arrow_read.c: Arrow IPC stream reader for untrusted input, and the
 * joiner that re-frames many streams into one.
 *
 * Every FlatBuffer object is bounds-checked before it is read (offsets,
 * vtables and vectors inside the buffer, a bound on the tables visited),
 * scalars are assembled byte by byte (the input has no alignment
 * guarantee), and every record batch is validated in full (node and
 * buffer counts, buffer ranges, offsets, child lengths) before the
 * caller's callback sees it, so accessors need no further checks.  One
 * walker, next_message(), reads the framing for both.
 */

#include "core/arrow.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arrow_int.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "core/banned.h"

#define MAX_METADATA (64u << 20) /* bytes of one message's metadata */
#define MAX_DEPTH 64 /* schema nesting (Arrow C++'s limit) */
#define MAX_FIELDS 100000 /* fields in one schema, all levels */
#define MAX_TABLES 1000000 /* tables visited in one FlatBuffer */
#define MAX_LENGTH INT32_MAX /* rows in one node (Arrow Java's) */

/* ---- FlatBuffer verification ---------------------------------------- */

struct fb {
	const uint8_t *p;
	size_t len;
	size_t ntables;
	struct sc_error *err;
};

struct fbt {
	struct fb *fb;
	size_t t; /* table position */
	size_t vt; /* vtable position */
	size_t vs; /* vtable size */
};

static int
fb_bad(struct fb *b, const char *what)
{
	return sc_error_set(b->err, SC_ST_PROTOCOL,
	    "malformed Arrow metadata: %s", what);
}

/* Follow the uoffset at p. */
static int
fb_uoffset(struct fb *b, size_t p, size_t *target)
{
	uint32_t v;

	if (p % 4 || p > b->len || b->len - p < 4)
		return fb_bad(b, "offset out of bounds");
	v = sc_arrow_rd32(b->p + p);
	if (v == 0 || v > INT32_MAX || v >= b->len - p)
		return fb_bad(b, "offset out of bounds");
	*target = p + v;
	return 0;
}

static int
fb_table(struct fb *b, size_t t, struct fbt *out)
{
	int64_t vt;
	int32_t so;
	uint32_t u;
	size_t vs, ts;

	if (++b->ntables > MAX_TABLES)
		return fb_bad(b, "too many tables");
	if (t % 4 || t > b->len || b->len - t < 4)
		return fb_bad(b, "table out of bounds");
	u = sc_arrow_rd32(b->p + t);
	memcpy(&so, &u, 4);
	vt = (int64_t)t - so;
	if (vt < 0 || vt % 2 || (uint64_t)vt > b->len ||
	    b->len - (size_t)vt < 4)
		return fb_bad(b, "vtable out of bounds");
	vs = sc_arrow_rd16(b->p + vt);
	ts = sc_arrow_rd16(b->p + vt + 2);
	if (vs % 2 || vs < 4 || vs > b->len - (size_t)vt)
		return fb_bad(b, "bad vtable size");
	if (ts < 4 || ts > b->len - t)
		return fb_bad(b, "table out of bounds");
	out->fb = b;
	out->t = t;
	out->vt = (size_t)vt;
	out->vs = vs;
	return 0;
}

/* 1 and *pos if field id is present (size sz, aligned), 0 if absent. */
static int
fbt_field(const struct fbt *t, unsigned id, size_t sz, size_t *pos)
{
	size_t o = 4 + 2 * (size_t)id, e;

	if (o + 2 > t->vs)
		return 0;
	e = sc_arrow_rd16(t->fb->p + t->vt + o);
	if (e == 0)
		return 0;
	*pos = t->t + e;
	if (*pos > t->fb->len || t->fb->len - *pos < sz || *pos % sz)
		return fb_bad(t->fb, "field out of bounds");
	return 1;
}

static int
fbt_u8(const struct fbt *t, unsigned id, uint8_t def, uint8_t *out)
{
	size_t pos;
	int r;

	if ((r = fbt_field(t, id, 1, &pos)) == -1)
		return -1;
	*out = r ? t->fb->p[pos] : def;
	return 0;
}

static int
fbt_i16(const struct fbt *t, unsigned id, int16_t def, int16_t *out)
{
	size_t pos;
	int r;

	if ((r = fbt_field(t, id, 2, &pos)) == -1)
		return -1;
	*out = r ? (int16_t)sc_arrow_rd16(t->fb->p + pos) : def;
	return 0;
}

static int
fbt_i32(const struct fbt *t, unsigned id, int32_t def, int32_t *out)
{
	size_t pos;
	int r;

	if ((r = fbt_field(t, id, 4, &pos)) == -1)
		return -1;
	*out = r ? (int32_t)sc_arrow_rd32(t->fb->p + pos) : def;
	return 0;
}

static int
fbt_i64(const struct fbt *t, unsigned id, int64_t def, int64_t *out)
{
	size_t pos;
	int r;

	if ((r = fbt_field(t, id, 8, &pos)) == -1)
		return -1;
	*out = r ? sc_arrow_rdi64(t->fb->p + pos) : def;
	return 0;
}

/* Reference field: 1 and *target if present, 0 if absent, -1 on error. */
static int
fbt_ref(const struct fbt *t, unsigned id, size_t *target)
{
	size_t pos;
	int r;

	if ((r = fbt_field(t, id, 4, &pos)) <= 0)
		return r;
	if (fb_uoffset(t->fb, pos, target) == -1)
		return -1;
	return 1;
}

static int
fbt_table(const struct fbt *t, unsigned id, struct fbt *out)
{
	size_t pos;
	int r;

	if ((r = fbt_ref(t, id, &pos)) <= 0)
		return r;
	if (fb_table(t->fb, pos, out) == -1)
		return -1;
	return 1;
}

/* Vector of n elements of esz bytes, elements aligned to ealign. */
static int
fbt_vector(const struct fbt *t, unsigned id, size_t esz, size_t ealign,
    size_t *start, size_t *n)
{
	struct fb *b = t->fb;
	size_t v;
	int r;

	if ((r = fbt_ref(t, id, &v)) <= 0)
		return r;
	if (v % 4 || b->len - v < 4)
		return fb_bad(b, "vector out of bounds");
	*n = sc_arrow_rd32(b->p + v);
	if (*n > (b->len - v - 4) / esz)
		return fb_bad(b, "vector out of bounds");
	*start = v + 4;
	if (*start % ealign)
		return fb_bad(b, "misaligned vector");
	return 1;
}

static int
fbt_string(const struct fbt *t, unsigned id, const char **s, size_t *n)
{
	size_t start;
	int r;

	if ((r = fbt_vector(t, id, 1, 1, &start, n)) <= 0)
		return r;
	if (start + *n >= t->fb->len || t->fb->p[start + *n] != 0)
		return fb_bad(t->fb, "string not terminated");
	*s = (const char *)t->fb->p + start;
	return 1;
}

/* ---- schema ---------------------------------------------------------- */

/* Type union tags. */
enum {
	T_NULL = 1,
	T_INT,
	T_FLOAT,
	T_BINARY,
	T_UTF8,
	T_BOOL,
	T_DECIMAL,
	T_DATE,
	T_TIME,
	T_TIMESTAMP,
	T_INTERVAL,
	T_LIST,
	T_STRUCT,
	T_UNION,
	T_FIXED_BINARY,
	T_FIXED_LIST,
	T_MAP,
	T_DURATION,
	T_LARGE_BINARY,
	T_LARGE_UTF8,
	T_LARGE_LIST,
	T_RUN_END,
	T_BINARY_VIEW,
	T_UTF8_VIEW,
	T_LIST_VIEW,
	T_LARGE_LIST_VIEW
};

static const char *const type_tag_names[] = { "NONE", "Null", "Int",
	"FloatingPoint", "Binary", "Utf8", "Bool", "Decimal", "Date", "Time",
	"Timestamp", "Interval", "List", "Struct", "Union", "FixedSizeBinary",
	"FixedSizeList", "Map", "Duration", "LargeBinary", "LargeUtf8",
	"LargeList", "RunEndEncoded", "BinaryView", "Utf8View", "ListView",
	"LargeListView" };

struct sparse {
	struct fb *fb;
	size_t nfields;
};

static int
unsupported(struct sparse *sp, const struct sc_arrow_field *f, const char *what)
{
	return sc_error_set(sp->fb->err, SC_ST_PROTOCOL,
	    "unsupported Arrow type '%s' for field '%s'", what, f->name);
}

static int parse_field(struct sparse *, const struct fbt *,
    struct sc_arrow_field *, int);

/* Decode the Field.type table into f->type and its attributes. */
static int
parse_type(struct sparse *sp, struct sc_arrow_field *f, uint8_t tag,
    const struct fbt *ty)
{
	int32_t w, prec, scale;
	int16_t unit;
	uint8_t sign;
	const char *tz;
	size_t tzlen;
	char what[40];
	int r;

	switch (tag) {
	case T_NULL:
		f->type = SC_ARROW_NULL;
		return 0;
	case T_BOOL:
		f->type = SC_ARROW_BOOL;
		return 0;
	case T_BINARY:
		f->type = SC_ARROW_BINARY;
		return 0;
	case T_UTF8:
		f->type = SC_ARROW_UTF8;
		return 0;
	case T_LARGE_BINARY:
		f->type = SC_ARROW_LARGE_BINARY;
		return 0;
	case T_LARGE_UTF8:
		f->type = SC_ARROW_LARGE_UTF8;
		return 0;
	case T_LIST:
		f->type = SC_ARROW_LIST;
		return 0;
	case T_LARGE_LIST:
		f->type = SC_ARROW_LARGE_LIST;
		return 0;
	case T_STRUCT:
		f->type = SC_ARROW_STRUCT;
		return 0;
	case T_MAP:
		f->type = SC_ARROW_MAP;
		return 0;
	case T_INT:
		if (fbt_i32(ty, 0, 0, &w) == -1 ||
		    fbt_u8(ty, 1, 0, &sign) == -1)
			return -1;
		if (sign) {
			switch (w) {
			case 8:
				f->type = SC_ARROW_INT8;
				return 0;
			case 16:
				f->type = SC_ARROW_INT16;
				return 0;
			case 32:
				f->type = SC_ARROW_INT32;
				return 0;
			case 64:
				f->type = SC_ARROW_INT64;
				return 0;
			}
		}
		snprintf(what, sizeof(what), "%sint%d", sign ? "" : "u",
		    (int)w);
		return unsupported(sp, f, what);
	case T_FLOAT:
		if (fbt_i16(ty, 0, 0, &unit) == -1)
			return -1;
		if (unit == 1)
			f->type = SC_ARROW_FLOAT;
		else if (unit == 2)
			f->type = SC_ARROW_DOUBLE;
		else
			return unsupported(sp, f,
			    unit == 0 ? "float16" : "FloatingPoint");
		return 0;
	case T_DECIMAL:
		if (fbt_i32(ty, 0, 0, &prec) == -1 ||
		    fbt_i32(ty, 1, 0, &scale) == -1 ||
		    fbt_i32(ty, 2, 128, &w) == -1)
			return -1;
		if (w != 128) {
			snprintf(what, sizeof(what), "decimal%d", (int)w);
			return unsupported(sp, f, what);
		}
		if (prec < 1 || prec > 38 || scale < 0 || scale > 38) {
			snprintf(what, sizeof(what), "decimal(%d,%d)",
			    (int)prec, (int)scale);
			return unsupported(sp, f, what);
		}
		f->type = SC_ARROW_DECIMAL128;
		f->precision = prec;
		f->scale = scale;
		return 0;
	case T_DATE:
		if (fbt_i16(ty, 0, 1, &unit) == -1)
			return -1;
		if (unit != 0)
			return unsupported(sp, f, "date64");
		f->type = SC_ARROW_DATE32;
		return 0;
	case T_TIMESTAMP:
		if (fbt_i16(ty, 0, 0, &unit) == -1)
			return -1;
		if (unit != 2)
			return unsupported(sp, f,
			    unit == 0	    ? "timestamp[s]"
				: unit == 1 ? "timestamp[ms]"
				: unit == 3 ? "timestamp[ns]"
					    : "Timestamp");
		if ((r = fbt_string(ty, 1, &tz, &tzlen)) == -1)
			return -1;
		f->type = SC_ARROW_TIMESTAMP_US;
		if (r)
			f->tz = sc_xstrndup(tz, tzlen);
		return 0;
	case T_DURATION:
		if (fbt_i16(ty, 0, 1, &unit) == -1)
			return -1;
		if (unit != 2)
			return unsupported(sp, f,
			    unit == 0	    ? "duration[s]"
				: unit == 1 ? "duration[ms]"
				: unit == 3 ? "duration[ns]"
					    : "Duration");
		f->type = SC_ARROW_DURATION_US;
		return 0;
	case T_INTERVAL:
		if (fbt_i16(ty, 0, 0, &unit) == -1)
			return -1;
		if (unit != 0)
			return unsupported(sp, f,
			    unit == 1	    ? "day_time_interval"
				: unit == 2 ? "month_day_nano_interval"
					    : "Interval");
		f->type = SC_ARROW_INTERVAL_YM;
		return 0;
	}
	if (tag < SC_NELEM(type_tag_names))
		return unsupported(sp, f, type_tag_names[tag]);
	snprintf(what, sizeof(what), "type tag %u", tag);
	return unsupported(sp, f, what);
}

static int
parse_field(struct sparse *sp, const struct fbt *t, struct sc_arrow_field *f,
    int depth)
{
	struct fbt ty, ch;
	const char *name;
	size_t namelen, start, n, i, pos;
	uint8_t nullable, tag;
	int r;

	if (depth > MAX_DEPTH)
		return sc_error_set(sp->fb->err, SC_ST_PROTOCOL,
		    "Arrow schema nested too deeply");
	if (++sp->nfields > MAX_FIELDS)
		return sc_error_set(sp->fb->err, SC_ST_PROTOCOL,
		    "Arrow schema has too many fields");
	if ((r = fbt_string(t, 0, &name, &namelen)) == -1)
		return -1;
	f->name = r ? sc_xstrndup(name, namelen) : sc_xstrdup("");
	if (fbt_u8(t, 1, 0, &nullable) == -1 || fbt_u8(t, 2, 0, &tag) == -1)
		return -1;
	f->nullable = nullable != 0;
	if ((r = fbt_table(t, 4, &ty)) == -1)
		return -1;
	if (r)
		return sc_error_set(sp->fb->err, SC_ST_PROTOCOL,
		    "Arrow dictionary-encoded field '%s' unsupported", f->name);
	if (tag == 0)
		return fb_bad(sp->fb, "field without a type");
	if ((r = fbt_table(t, 3, &ty)) == -1)
		return -1;
	if (r == 0)
		return fb_bad(sp->fb, "field without a type");
	if (parse_type(sp, f, tag, &ty) == -1)
		return -1;
	if ((r = fbt_vector(t, 5, 4, 4, &start, &n)) == -1)
		return -1;
	if (r == 0)
		n = 0;
	switch (f->type) {
	case SC_ARROW_LIST:
	case SC_ARROW_LARGE_LIST:
	case SC_ARROW_MAP:
		if (n != 1)
			return sc_error_set(sp->fb->err, SC_ST_PROTOCOL,
			    "malformed Arrow metadata: %s field '%s' has %zu "
			    "children",
			    sc_arrow_type_name(f->type), f->name, n);
		break;
	case SC_ARROW_STRUCT:
		break;
	default:
		if (n != 0)
			return sc_error_set(sp->fb->err, SC_ST_PROTOCOL,
			    "malformed Arrow metadata: %s field '%s' has "
			    "children",
			    sc_arrow_type_name(f->type), f->name);
	}
	if (n) {
		f->children = sc_xcalloc(n, sizeof(*f->children));
		f->nchildren = n;
	}
	for (i = 0; i < n; i++) {
		if (fb_uoffset(sp->fb, start + 4 * i, &pos) == -1 ||
		    fb_table(sp->fb, pos, &ch) == -1 ||
		    parse_field(sp, &ch, &f->children[i], depth + 1) == -1)
			return -1;
	}
	if (f->type == SC_ARROW_MAP &&
	    (f->children[0].type != SC_ARROW_STRUCT ||
		f->children[0].nchildren != 2))
		return sc_error_set(sp->fb->err, SC_ST_PROTOCOL,
		    "malformed Arrow metadata: map field '%s' needs a "
		    "struct<key, value> child",
		    f->name);
	return 0;
}

static int
parse_schema(struct fb *b, const struct fbt *t, struct sc_arrow_schema *s)
{
	struct sparse sp = { b, 0 };
	struct fbt ft;
	size_t start, n, i, pos;
	int16_t endian;
	int r;

	if (fbt_i16(t, 0, 0, &endian) == -1)
		return -1;
	if (endian != 0)
		return sc_error_set(b->err, SC_ST_PROTOCOL,
		    "big-endian Arrow data unsupported");
	if ((r = fbt_vector(t, 1, 4, 4, &start, &n)) == -1)
		return -1;
	if (r == 0)
		n = 0;
	if (n > MAX_FIELDS)
		return sc_error_set(b->err, SC_ST_PROTOCOL,
		    "Arrow schema has too many fields");
	if (n) {
		s->fields = sc_xcalloc(n, sizeof(*s->fields));
		s->nfields = n;
	}
	for (i = 0; i < n; i++)
		if (fb_uoffset(b, start + 4 * i, &pos) == -1 ||
		    fb_table(b, pos, &ft) == -1 ||
		    parse_field(&sp, &ft, &s->fields[i], 1) == -1)
			return -1;
	return 0;
}

/* ---- framing ------------------------------------------------------- */

enum { H_SCHEMA = 1, H_DICTIONARY = 2, H_RECORD_BATCH = 3 };

struct msg {
	struct fb fb;
	struct fbt header;
	uint8_t htype;
	const uint8_t *body;
	size_t bodylen;
};

struct stream {
	const uint8_t *p;
	size_t n;
	size_t pos;
	struct sc_error *err;
};

/*
 * Read the next message.  Returns 1 with *m filled, 0 at the end of the
 * stream (marker or end of input), -1 on error.
 */
static int
next_message(struct stream *st, struct msg *m)
{
	size_t left = st->n - st->pos, meta, root;
	struct fbt mt;
	const uint8_t *p = st->p + st->pos;
	int32_t c;
	int16_t version;
	int64_t body;
	int r;

	if (left == 0)
		return 0;
	if (left < 4)
		goto truncated;
	c = (int32_t)sc_arrow_rd32(p);
	if (c == -1) {
		if (left < 8)
			goto truncated;
		c = (int32_t)sc_arrow_rd32(p + 4);
		p += 8;
		left -= 8;
		st->pos += 8;
	} else {
		p += 4;
		left -= 4;
		st->pos += 4;
	}
	if (c < 0)
		return sc_error_set(st->err, SC_ST_PROTOCOL,
		    "malformed Arrow stream: bad message length %d", (int)c);
	if (c == 0) {
		if (st->pos != st->n)
			return sc_error_set(st->err, SC_ST_PROTOCOL,
			    "malformed Arrow stream: %zu bytes after the "
			    "end-of-stream marker",
			    st->n - st->pos);
		return 0;
	}
	meta = (size_t)c;
	if (meta > MAX_METADATA)
		return sc_error_set(st->err, SC_ST_PROTOCOL,
		    "Arrow message metadata too large (%zu bytes)", meta);
	if (meta > left)
		goto truncated;
	memset(m, 0, sizeof(*m));
	m->fb.p = p;
	m->fb.len = meta;
	m->fb.err = st->err;
	if (meta < 12)
		return fb_bad(&m->fb, "message too short");
	if (fb_uoffset(&m->fb, 0, &root) == -1 ||
	    fb_table(&m->fb, root, &mt) == -1)
		return -1;
	if (fbt_i16(&mt, 0, 0, &version) == -1 ||
	    fbt_u8(&mt, 1, 0, &m->htype) == -1 ||
	    fbt_i64(&mt, 3, 0, &body) == -1)
		return -1;
	if (version != 3 && version != 4)
		return sc_error_set(st->err, SC_ST_PROTOCOL,
		    "unsupported Arrow metadata version V%d", version + 1);
	if ((r = fbt_table(&mt, 2, &m->header)) == -1)
		return -1;
	if (r == 0 || m->htype == 0)
		return fb_bad(&m->fb, "message without a header");
	left -= meta;
	st->pos += meta;
	if (body < 0)
		return fb_bad(&m->fb, "negative body length");
	if ((uint64_t)body > left)
		goto truncated;
	m->body = st->p + st->pos;
	m->bodylen = (size_t)body;
	st->pos += (size_t)body;
	/* Each message's header table is now known to be well-formed. */
	m->header.fb = &m->fb;
	return 1;
truncated:
	return sc_error_set(st->err, SC_ST_PROTOCOL, "truncated Arrow stream");
}

/* ---- record batches ------------------------------------------------ */

static void
cols_free(struct sc_arrow_col *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		cols_free(c[i].children, c[i].nchildren);
	free(c);
}

/* Build the column tree for fields; count nodes and buffers. */
static struct sc_arrow_col *
cols_new(const struct sc_arrow_field *f, size_t n, size_t *nnodes,
    size_t *nbufs)
{
	struct sc_arrow_col *c;
	size_t i;

	c = sc_xcalloc(n ? n : 1, sizeof(*c));
	for (i = 0; i < n; i++) {
		c[i].f = &f[i];
		(*nnodes)++;
		switch (f[i].type) {
		case SC_ARROW_NULL:
			break;
		case SC_ARROW_STRUCT:
			*nbufs += 1;
			break;
		case SC_ARROW_UTF8:
		case SC_ARROW_LARGE_UTF8:
		case SC_ARROW_BINARY:
		case SC_ARROW_LARGE_BINARY:
			*nbufs += 3;
			break;
		default:
			*nbufs += 2;
			break;
		}
		c[i].nchildren = f[i].nchildren;
		c[i].children =
		    cols_new(f[i].children, f[i].nchildren, nnodes, nbufs);
	}
	return c;
}

struct bctx {
	struct sc_error *err;
	const uint8_t *nodes; /* FieldNode vector elements */
	const uint8_t *bufs; /* Buffer vector elements */
	size_t ni, bi;
	const uint8_t *body;
	size_t bodylen;
};

static int
batch_bad(struct bctx *x, const struct sc_arrow_field *f, const char *what)
{
	return sc_error_set(x->err, SC_ST_PROTOCOL,
	    "malformed Arrow record batch: %s (field '%s')", what, f->name);
}

static int
next_buf(struct bctx *x, const struct sc_arrow_field *f, const uint8_t **p,
    uint64_t *len)
{
	int64_t off, n;

	off = sc_arrow_rdi64(x->bufs + 16 * x->bi);
	n = sc_arrow_rdi64(x->bufs + 16 * x->bi + 8);
	x->bi++;
	if (off < 0 || n < 0 || (uint64_t)off > x->bodylen ||
	    (uint64_t)n > x->bodylen - (uint64_t)off)
		return batch_bad(x, f, "buffer outside the body");
	*p = x->body + off;
	*len = (uint64_t)n;
	return 0;
}

/*
 * Check the offsets buffer p[0..len) of column c (w bytes each): n + 1
 * non-decreasing values from >= 0 up to at most limit.
 */
static int
check_offsets(struct bctx *x, struct sc_arrow_col *c, const uint8_t *p,
    uint64_t len, unsigned w, uint64_t limit, const char *what)
{
	int64_t prev, o;
	size_t i, n = (size_t)c->length;

	c->offsets = p;
	if (n == 0)
		return 0;
	if (len / w < (uint64_t)n + 1)
		return batch_bad(x, c->f, "offsets buffer too short");
	prev = 0;
	for (i = 0; i <= n; i++) {
		o = w == 4 ? (int32_t)sc_arrow_rd32(p + 4 * i)
			   : sc_arrow_rdi64(p + 8 * i);
		if (o < prev)
			return batch_bad(x, c->f, "offsets not increasing");
		prev = o;
	}
	if ((uint64_t)prev > limit)
		return batch_bad(x, c->f, what);
	return 0;
}

static int
decode_col(struct bctx *x, struct sc_arrow_col *c)
{
	const struct sc_arrow_field *f = c->f;
	const uint8_t *p, *op;
	uint64_t len, n, olen;
	unsigned width = 0, ow;
	size_t i;

	c->length = sc_arrow_rdi64(x->nodes + 16 * x->ni);
	c->null_count = sc_arrow_rdi64(x->nodes + 16 * x->ni + 8);
	x->ni++;
	if (c->length < 0 || c->length > MAX_LENGTH)
		return batch_bad(x, f, "bad length");
	if (c->null_count < 0 || c->null_count > c->length)
		return batch_bad(x, f, "bad null count");
	n = (uint64_t)c->length;
	c->validity = c->values = c->offsets = c->data = NULL;
	c->allnull = false;
	if (f->type == SC_ARROW_NULL) {
		c->allnull = true;
		return 0;
	}
	if (next_buf(x, f, &p, &len) == -1)
		return -1;
	if (c->null_count > 0) {
		if (len >= (n + 7) / 8)
			c->validity = p;
		else if (c->null_count == c->length)
			c->allnull = true;
		else
			return batch_bad(x, f, "validity buffer too short");
	}
	switch (f->type) {
	case SC_ARROW_BOOL:
		if (next_buf(x, f, &p, &len) == -1)
			return -1;
		if (len < (n + 7) / 8)
			return batch_bad(x, f, "values buffer too short");
		c->values = p;
		return 0;
	case SC_ARROW_INT8:
		width = 1;
		break;
	case SC_ARROW_INT16:
		width = 2;
		break;
	case SC_ARROW_INT32:
	case SC_ARROW_DATE32:
	case SC_ARROW_INTERVAL_YM:
	case SC_ARROW_FLOAT:
		width = 4;
		break;
	case SC_ARROW_INT64:
	case SC_ARROW_DOUBLE:
	case SC_ARROW_TIMESTAMP_US:
	case SC_ARROW_DURATION_US:
		width = 8;
		break;
	case SC_ARROW_DECIMAL128:
		width = 16;
		break;
	case SC_ARROW_UTF8:
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_UTF8:
	case SC_ARROW_LARGE_BINARY:
		ow = f->type == SC_ARROW_UTF8 || f->type == SC_ARROW_BINARY ? 4
									    : 8;
		if (next_buf(x, f, &op, &olen) == -1 ||
		    next_buf(x, f, &c->data, &len) == -1)
			return -1;
		return check_offsets(x, c, op, olen, ow, len,
		    "offsets beyond the data");
	case SC_ARROW_LIST:
	case SC_ARROW_LARGE_LIST:
	case SC_ARROW_MAP:
		/* The child comes after the offsets; check them after it. */
		if (next_buf(x, f, &op, &olen) == -1 ||
		    decode_col(x, &c->children[0]) == -1)
			return -1;
		return check_offsets(x, c, op, olen,
		    f->type == SC_ARROW_LARGE_LIST ? 8 : 4,
		    (uint64_t)c->children[0].length,
		    "offsets beyond the child");
	case SC_ARROW_STRUCT:
		for (i = 0; i < c->nchildren; i++) {
			if (decode_col(x, &c->children[i]) == -1)
				return -1;
			if (c->children[i].length < c->length)
				return batch_bad(x, c->children[i].f,
				    "struct child shorter than its parent");
		}
		return 0;
	default:
		return batch_bad(x, f, "unexpected type");
	}
	if (next_buf(x, f, &p, &len) == -1)
		return -1;
	if (len / width < n)
		return batch_bad(x, f, "values buffer too short");
	c->values = p;
	return 0;
}

struct reader {
	struct sc_arrow_schema schema;
	struct sc_arrow_col *cols;
	size_t nnodes, nbufs;
	size_t nbatches;
};

static int
decode_batch(struct reader *rd, const struct msg *m, struct sc_arrow_batch *b,
    struct sc_error *err)
{
	struct bctx x;
	struct fbt cmp;
	size_t ns, nn, bs, nb, i;
	int64_t length;
	int r;

	if (fbt_i64(&m->header, 0, 0, &length) == -1)
		return -1;
	if (length < 0 || length > MAX_LENGTH)
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "malformed Arrow record batch: bad length %lld",
		    (long long)length);
	if ((r = fbt_table(&m->header, 3, &cmp)) == -1)
		return -1;
	if (r)
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "compressed Arrow batches unsupported; set "
		    "spark.sql.execution.arrow.compression.codec=none");
	if ((r = fbt_vector(&m->header, 1, 16, 8, &ns, &nn)) == -1)
		return -1;
	if (r == 0)
		nn = 0;
	if ((r = fbt_vector(&m->header, 2, 16, 8, &bs, &nb)) == -1)
		return -1;
	if (r == 0)
		nb = 0;
	if (nn != rd->nnodes || nb != rd->nbufs)
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "malformed Arrow record batch: %zu nodes and %zu buffers, "
		    "the schema needs %zu and %zu",
		    nn, nb, rd->nnodes, rd->nbufs);
	x.err = err;
	x.nodes = m->fb.p + ns;
	x.bufs = m->fb.p + bs;
	x.ni = x.bi = 0;
	x.body = m->body;
	x.bodylen = m->bodylen;
	for (i = 0; i < rd->schema.nfields; i++) {
		if (decode_col(&x, &rd->cols[i]) == -1)
			return -1;
		if (rd->cols[i].length != length)
			return sc_error_set(err, SC_ST_PROTOCOL,
			    "malformed Arrow record batch: column '%s' has "
			    "%lld rows, the batch %lld",
			    rd->schema.fields[i].name,
			    (long long)rd->cols[i].length, (long long)length);
	}
	b->schema = &rd->schema;
	b->nrows = (size_t)length;
	b->index = rd->nbatches++;
	b->cols = rd->cols;
	return 0;
}

/* Read the first message, which must be the schema. */
static int
read_schema_msg(struct stream *st, struct sc_arrow_schema *s)
{
	struct msg m;
	int r;

	if ((r = next_message(st, &m)) == -1)
		return -1;
	if (r == 0)
		return sc_error_set(st->err, SC_ST_PROTOCOL,
		    "empty Arrow stream: no schema");
	if (m.htype != H_SCHEMA)
		return sc_error_set(st->err, SC_ST_PROTOCOL,
		    "Arrow stream does not start with a schema");
	m.header.fb = &m.fb;
	return parse_schema(&m.fb, &m.header, s);
}

int
sc_arrow_read_schema(const void *p, size_t n, struct sc_arrow_schema *out,
    struct sc_error *err)
{
	struct stream st = { p, n, 0, err };
	struct sc_arrow_schema s;

	sc_arrow_schema_init(&s);
	if (read_schema_msg(&st, &s) == -1) {
		sc_arrow_schema_release(&s);
		return -1;
	}
	*out = s;
	return 0;
}

/*
 * Validate and decode stream p[0..n), calling fn (if not NULL) per
 * record batch; the stream's schema is left in *schema (initialised
 * here; the caller releases it, also on error).
 */
static int
read_stream(const void *p, size_t n, sc_arrow_batch_fn *fn, void *arg,
    struct sc_arrow_schema *schema, struct sc_error *err)
{
	struct stream st = { p, n, 0, err };
	struct reader rd;
	struct sc_arrow_batch b;
	struct msg m;
	int r, rc = -1;

	memset(&rd, 0, sizeof(rd));
	sc_arrow_schema_init(&rd.schema);
	if (read_schema_msg(&st, &rd.schema) == -1)
		goto out;
	rd.cols = cols_new(rd.schema.fields, rd.schema.nfields, &rd.nnodes,
	    &rd.nbufs);
	for (;;) {
		if ((r = next_message(&st, &m)) == -1)
			goto out;
		if (r == 0)
			break;
		switch (m.htype) {
		case H_RECORD_BATCH:
			if (decode_batch(&rd, &m, &b, err) == -1)
				goto out;
			if (fn && fn(&b, arg, err) == -1)
				goto out;
			break;
		case H_DICTIONARY:
			sc_error_set(err, SC_ST_PROTOCOL,
			    "Arrow dictionary batches unsupported");
			goto out;
		case H_SCHEMA:
			sc_error_set(err, SC_ST_PROTOCOL,
			    "unexpected second Arrow schema message");
			goto out;
		default:
			sc_error_set(err, SC_ST_PROTOCOL,
			    "unsupported Arrow message type %u", m.htype);
			goto out;
		}
	}
	rc = 0;
out:
	if (rd.cols)
		cols_free(rd.cols, rd.schema.nfields);
	*schema = rd.schema;
	return rc;
}

int
sc_arrow_read_stream(const void *p, size_t n, sc_arrow_batch_fn *fn, void *arg,
    struct sc_error *err)
{
	struct sc_arrow_schema s;
	int rc;

	rc = read_stream(p, n, fn, arg, &s, err);
	sc_arrow_schema_release(&s);
	return rc;
}

/* ---- re-framing ----------------------------------------------------- */

void
sc_arrow_join_init(struct sc_arrow_join *j, sc_arrow_write_fn *fn, void *arg)
{
	memset(j, 0, sizeof(*j));
	j->write = fn;
	j->arg = arg;
	sc_arrow_schema_init(&j->schema);
}

void
sc_arrow_join_release(struct sc_arrow_join *j)
{
	sc_arrow_schema_release(&j->schema);
	j->started = false;
}

bool
sc_arrow_field_equal(const struct sc_arrow_field *a,
    const struct sc_arrow_field *b)
{
	size_t i;

	if (strcmp(a->name, b->name) != 0 || a->type != b->type ||
	    a->nullable != b->nullable || a->precision != b->precision ||
	    a->scale != b->scale || (a->tz == NULL) != (b->tz == NULL) ||
	    (a->tz != NULL && strcmp(a->tz, b->tz) != 0) ||
	    a->nchildren != b->nchildren)
		return false;
	for (i = 0; i < a->nchildren; i++)
		if (!sc_arrow_field_equal(&a->children[i], &b->children[i]))
			return false;
	return true;
}

static bool
schema_equal(const struct sc_arrow_schema *a, const struct sc_arrow_schema *b)
{
	size_t i;

	if (a->nfields != b->nfields)
		return false;
	for (i = 0; i < a->nfields; i++)
		if (!sc_arrow_field_equal(&a->fields[i], &b->fields[i]))
			return false;
	return true;
}

static int
count_rows(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	(void)err;
	*(uint64_t *)arg += b->nrows;
	return 0;
}

/*
 * Write message m in the modern framing: the continuation marker, the
 * metadata length padded to 8, the metadata and its padding, the body.
 */
static int
put_message(struct sc_arrow_join *j, const struct msg *m, struct sc_error *err)
{
	static const uint8_t zero[8];
	uint8_t pre[8];
	size_t padded = (m->fb.len + 7) & ~(size_t)7;

	memset(pre, 0xff, 4);
	pre[4] = (uint8_t)padded;
	pre[5] = (uint8_t)(padded >> 8);
	pre[6] = (uint8_t)(padded >> 16);
	pre[7] = (uint8_t)(padded >> 24);
	if (j->write(j->arg, pre, 8, err) == -1 ||
	    j->write(j->arg, m->fb.p, m->fb.len, err) == -1 ||
	    (padded > m->fb.len &&
		j->write(j->arg, zero, padded - m->fb.len, err) == -1) ||
	    (m->bodylen > 0 &&
		j->write(j->arg, m->body, m->bodylen, err) == -1))
		return -1;
	return 0;
}

int
sc_arrow_join_add(struct sc_arrow_join *j, const void *p, size_t n,
    uint64_t *rows, struct sc_error *err)
{
	struct stream st = { p, n, 0, err };
	struct sc_arrow_schema s;
	struct msg m;
	uint64_t nrows = 0;
	bool first = !j->started;
	int r;

	/* Validate the whole stream before writing any of it. */
	if (read_stream(p, n, count_rows, &nrows, &s, err) == -1) {
		sc_arrow_schema_release(&s);
		return -1;
	}
	if (first) {
		j->schema = s;
		j->started = true;
	} else {
		r = schema_equal(&j->schema, &s);
		sc_arrow_schema_release(&s);
		if (!r)
			return sc_error_set(err, SC_ST_PROTOCOL,
			    "the result schema changed between Arrow "
			    "batches");
	}
	if (rows != NULL)
		*rows = nrows;
	if (j->schema.nfields == 0)
		return 0;
	/* The same walker again, over metadata known to be sound. */
	while ((r = next_message(&st, &m)) == 1)
		if ((m.htype == H_RECORD_BATCH || first) &&
		    put_message(j, &m, err) == -1)
			return -1;
	return r;
}

int
sc_arrow_join_finish(struct sc_arrow_join *j, struct sc_error *err)
{
	static const uint8_t eos[8] = { 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0 };

	if (!j->started || j->schema.nfields == 0)
		return 0;
	return j->write(j->arg, eos, sizeof(eos), err);
}
