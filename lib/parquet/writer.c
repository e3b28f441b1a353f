/* SPDX-License-Identifier: MIT */

/*
 * writer.c: Parquet files as Spark writes them.  Rows (text, see
 * parquet.h) are shredded into each leaf column's levels and values and
 * buffered up to the row group size; a row group is written column by
 * column, each chunk as a dictionary page (while the dictionary stays
 * under its limit; pages after that fall back to PLAIN) and data pages
 * cut at row boundaries, with min/max/null count statistics per page
 * and per chunk, compressed by the chosen codec.
 */

#include "parquet/parquet.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/value.h"
#include "core/xmem.h"
#include "parquet/codec.h"
#include "parquet/json.h"
#include "parquet/pq_int.h"
#include "core/banned.h"

#define DEFAULT_GROUP ((size_t)128 << 20)
#define DEFAULT_PAGE ((size_t)1 << 20)
#define DEFAULT_DICT ((size_t)1 << 20)
/* Longer min/max values are left out of the statistics. */
#define STATS_MAX 4096

struct wcol {
	const struct pq_leaf *lf;
	const struct pq_lnode *ln;
	uint16_t *def, *rep;
	size_t nlev, cap;
	struct sc_pq_vals vals;
};

struct sc_parquet_writer {
	FILE *fp;
	char *path;
	struct sc_parquet_write_opts o;
	struct pq_schema s;
	struct sc_pq_schema_el *els;
	uint32_t nels;
	struct wcol *cols;
	int64_t rows; /* buffered */
	int64_t total_rows;
	uint64_t offset;
	struct sc_pq_rowgroup *groups;
	uint32_t ngroups;
};

/* --- rows into columns ----------------------------------------------- */

static void
find_leaves(struct sc_parquet_writer *w, const struct pq_lnode *ln)
{
	size_t i;

	if (ln->nchild == 0 && ln->type->kind != SC_VALUE_STRUCT) {
		w->cols[ln->first_leaf].ln = ln;
		return;
	}
	for (i = 0; i < ln->nchild; i++)
		find_leaves(w, &ln->child[i]);
}

static void
push_level(struct wcol *c, int rep, int def)
{
	if (c->nlev == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 1024;
		c->def = sc_xreallocarray(c->def, c->cap, sizeof(*c->def));
		c->rep = sc_xreallocarray(c->rep, c->cap, sizeof(*c->rep));
	}
	c->def[c->nlev] = (uint16_t)def;
	c->rep[c->nlev] = (uint16_t)rep;
	c->nlev++;
}

static int
wrong(struct wcol *c, struct sc_error *err, const char *what)
{
	return sc_error_set(err, SC_ST_USAGE, "column '%s': %s", c->lf->path,
	    what);
}

static int
hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* An integer of JSON text within [lo, hi]. */
static int
int_of(struct wcol *c, const struct sc_pq_json *j, int64_t lo, int64_t hi,
    int64_t *v, struct sc_error *err)
{
	const char *s = j->s;
	bool neg = false;
	uint64_t x = 0, lim;

	if (j->kind != SC_PQ_JSON_NUMBER)
		return wrong(c, err, "expected an integer");
	if (*s == '-') {
		neg = true;
		s++;
	}
	lim = neg ? (uint64_t)(-(lo + 1)) + 1 : (uint64_t)hi;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return wrong(c, err, "expected an integer");
		if (x > (lim - (uint64_t)(*s - '0')) / 10)
			return wrong(c, err, "integer out of its type's range");
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

static int
add_value(struct wcol *c, const struct sc_pq_json *j, struct sc_error *err)
{
	const struct sc_parquet_type *t = c->ln->type;
	struct sc_pq_vals *v = &c->vals;
	uint8_t be[16], *bytes;
	int64_t i64, hi;
	uint64_t lo;
	int32_t i32, days;
	double d;
	float f;
	size_t k, n;
	int h1, h2;
	char *end;

	switch (t->kind) {
	case SC_VALUE_BOOLEAN:
		if (j->kind != SC_PQ_JSON_TRUE && j->kind != SC_PQ_JSON_FALSE)
			return wrong(c, err, "expected true or false");
		be[0] = j->kind == SC_PQ_JSON_TRUE;
		sc_pq_vals_add(v, be, 1);
		return 0;
	case SC_VALUE_BYTE:
	case SC_VALUE_SHORT:
	case SC_VALUE_INT:
		if (int_of(c, j,
			t->kind == SC_VALUE_BYTE	? INT8_MIN
			    : t->kind == SC_VALUE_SHORT ? INT16_MIN
							: INT32_MIN,
			t->kind == SC_VALUE_BYTE	? INT8_MAX
			    : t->kind == SC_VALUE_SHORT ? INT16_MAX
							: INT32_MAX,
			&i64, err) == -1)
			return -1;
		i32 = (int32_t)i64;
		sc_pq_vals_add(v, &i32, 4);
		return 0;
	case SC_VALUE_LONG:
		if (int_of(c, j, INT64_MIN, INT64_MAX, &i64, err) == -1)
			return -1;
		sc_pq_vals_add(v, &i64, 8);
		return 0;
	case SC_VALUE_FLOAT:
	case SC_VALUE_DOUBLE:
		if (j->kind == SC_PQ_JSON_STRING) {
			if (strcmp(j->s, "NaN") == 0)
				d = NAN;
			else if (strcmp(j->s, "Infinity") == 0)
				d = INFINITY;
			else if (strcmp(j->s, "-Infinity") == 0)
				d = -INFINITY;
			else
				return wrong(c, err, "expected a number");
		} else if (j->kind == SC_PQ_JSON_NUMBER) {
			errno = 0;
			d = t->kind == SC_VALUE_FLOAT ? strtof(j->s, &end)
						      : strtod(j->s, &end);
			if (*end != '\0')
				return wrong(c, err, "expected a number");
		} else
			return wrong(c, err, "expected a number");
		if (t->kind == SC_VALUE_FLOAT) {
			f = (float)d;
			sc_pq_vals_add(v, &f, 4);
		} else
			sc_pq_vals_add(v, &d, 8);
		return 0;
	case SC_VALUE_DECIMAL:
		if (j->kind != SC_PQ_JSON_STRING &&
		    j->kind != SC_PQ_JSON_NUMBER)
			return wrong(c, err, "expected a decimal");
		switch (sc_value_parse_decimal(j->s, j->len, t->precision,
		    t->scale, &hi, &lo)) {
		case 0:
			break;
		case -2:
			return wrong(c, err,
			    "decimal needs more digits than its precision");
		default:
			return wrong(c, err, "expected a decimal");
		}
		if (c->lf->physical == SC_PQ_INT32) {
			i32 = (int32_t)lo;
			sc_pq_vals_add(v, &i32, 4);
		} else if (c->lf->physical == SC_PQ_INT64) {
			i64 = (int64_t)lo;
			sc_pq_vals_add(v, &i64, 8);
		} else {
			for (k = 0; k < 8; k++) {
				be[k] = (uint8_t)((uint64_t)hi >> (56 - 8 * k));
				be[8 + k] = (uint8_t)(lo >> (56 - 8 * k));
			}
			sc_pq_vals_add(v, be + 16 - c->lf->width, c->lf->width);
		}
		return 0;
	case SC_VALUE_STRING:
		if (j->kind != SC_PQ_JSON_STRING)
			return wrong(c, err, "expected a string");
		sc_pq_vals_add(v, j->s, j->len);
		return 0;
	case SC_VALUE_BINARY:
		if (j->kind != SC_PQ_JSON_STRING || j->len % 2 != 0)
			return wrong(c, err, "expected hex digits in a string");
		n = j->len / 2;
		bytes = sc_xmalloc(n + 1);
		for (k = 0; k < n; k++) {
			h1 = hexval(j->s[2 * k]);
			h2 = hexval(j->s[2 * k + 1]);
			if (h1 < 0 || h2 < 0) {
				free(bytes);
				return wrong(c, err,
				    "expected hex digits in a string");
			}
			bytes[k] = (uint8_t)(h1 << 4 | h2);
		}
		sc_pq_vals_add(v, bytes, n);
		free(bytes);
		return 0;
	case SC_VALUE_DATE:
		if (j->kind != SC_PQ_JSON_STRING ||
		    sc_value_parse_date(j->s, j->len, &days) == -1)
			return wrong(c, err, "expected a date");
		sc_pq_vals_add(v, &days, 4);
		return 0;
	case SC_VALUE_TIMESTAMP:
	case SC_VALUE_TIMESTAMP_NTZ:
		if (j->kind != SC_PQ_JSON_STRING ||
		    sc_value_parse_timestamp(j->s, j->len, &i64) == -1)
			return wrong(c, err, "expected a timestamp");
		sc_pq_vals_add(v, &i64, 8);
		return 0;
	default:
		return wrong(c, err, "a type Parquet cannot hold");
	}
}

static void
push_null(struct sc_parquet_writer *w, const struct pq_lnode *ln, int rep,
    int def)
{
	size_t i;

	for (i = ln->first_leaf; i < ln->first_leaf + ln->nleaves; i++)
		push_level(&w->cols[i], rep, def);
}

static int
shred(struct sc_parquet_writer *w, const struct pq_lnode *ln,
    const struct sc_pq_json *j, int rep, int def, struct sc_error *err)
{
	struct wcol *c = &w->cols[ln->first_leaf];
	const struct sc_pq_json *pair;
	size_t i;
	int r;

	if (j == NULL || j->kind == SC_PQ_JSON_NULL) {
		if (!ln->type->nullable)
			return wrong(c, err,
			    "null in a field that cannot be null");
		push_null(w, ln, rep, def);
		return 0;
	}
	switch (ln->type->kind) {
	case SC_VALUE_STRUCT:
		if (j->kind != SC_PQ_JSON_ARRAY || j->n != ln->nchild)
			return wrong(c, err,
			    "expected a struct as an array of its field values");
		for (i = 0; i < ln->nchild; i++)
			if (shred(w, &ln->child[i], &j->item[i], rep, ln->def,
				err) == -1)
				return -1;
		return 0;
	case SC_VALUE_ARRAY:
	case SC_VALUE_MAP:
		if (j->kind != SC_PQ_JSON_ARRAY)
			return wrong(c, err,
			    ln->type->kind == SC_VALUE_MAP
				? "expected a map as an array of [key, value] pairs"
				: "expected an array");
		if (j->n == 0) {
			push_null(w, ln, rep, ln->def);
			return 0;
		}
		for (i = 0; i < j->n; i++) {
			r = i == 0 ? rep : ln->rep;
			if (ln->type->kind == SC_VALUE_ARRAY) {
				if (shred(w, &ln->child[0], &j->item[i], r,
					ln->def_ne, err) == -1)
					return -1;
				continue;
			}
			pair = &j->item[i];
			if (pair->kind != SC_PQ_JSON_ARRAY || pair->n != 2)
				return wrong(c, err,
				    "expected a map as an array of [key, value] pairs");
			if (pair->item[0].kind == SC_PQ_JSON_NULL)
				return wrong(c, err,
				    "a map key cannot be null");
			if (shred(w, &ln->child[0], &pair->item[0], r,
				ln->def_ne, err) == -1 ||
			    shred(w, &ln->child[1], &pair->item[1], r,
				ln->def_ne, err) == -1)
				return -1;
		}
		return 0;
	default:
		if (add_value(c, j, err) == -1)
			return -1;
		push_level(c, rep, ln->def);
		return 0;
	}
}

/* --- pages and chunks ------------------------------------------------ */

/* A signed comparison of values of leaf c (FLOAT/DOUBLE: no NaN). */
static int
cmp_vals(const struct wcol *c, const uint8_t *a, size_t alen, const uint8_t *b,
    size_t blen)
{
	int32_t i32a, i32b;
	int64_t i64a, i64b;
	float fa, fb;
	double da, db;
	size_t n;
	int r;

	switch (c->lf->physical) {
	case SC_PQ_BOOLEAN:
		return (int)a[0] - (int)b[0];
	case SC_PQ_INT32:
		memcpy(&i32a, a, 4);
		memcpy(&i32b, b, 4);
		return (i32a > i32b) - (i32a < i32b);
	case SC_PQ_INT64:
		memcpy(&i64a, a, 8);
		memcpy(&i64b, b, 8);
		return (i64a > i64b) - (i64a < i64b);
	case SC_PQ_FLOAT:
		memcpy(&fa, a, 4);
		memcpy(&fb, b, 4);
		return (fa > fb) - (fa < fb);
	case SC_PQ_DOUBLE:
		memcpy(&da, a, 8);
		memcpy(&db, b, 8);
		return (da > db) - (da < db);
	case SC_PQ_FIXED:
		/* Decimals: big-endian two's complement, equal lengths. */
		if ((a[0] ^ b[0]) & 0x80)
			return (a[0] & 0x80) ? -1 : 1;
		return memcmp(a, b, alen);
	default:
		n = alen < blen ? alen : blen;
		r = memcmp(a, b, n);
		if (r != 0)
			return r;
		return (alen > blen) - (alen < blen);
	}
}

struct stats {
	const uint8_t *min, *max;
	size_t minlen, maxlen;
	int64_t nulls;
};

static void
stats_add(const struct wcol *c, struct stats *st, const uint8_t *p, size_t n)
{
	if (c->lf->physical == SC_PQ_FLOAT) {
		float f;

		memcpy(&f, p, 4);
		if (isnan(f))
			return;
	} else if (c->lf->physical == SC_PQ_DOUBLE) {
		double d;

		memcpy(&d, p, 8);
		if (isnan(d))
			return;
	}
	if (st->min == NULL || cmp_vals(c, p, n, st->min, st->minlen) < 0) {
		st->min = p;
		st->minlen = n;
	}
	if (st->max == NULL || cmp_vals(c, p, n, st->max, st->maxlen) > 0) {
		st->max = p;
		st->maxlen = n;
	}
}

/* Statistics as the footer holds them (copies). */
static void
stats_out(const struct wcol *c, const struct stats *st, struct sc_pq_stats *out)
{
	static const float fzero = 0.0f, fnzero = -0.0f;
	static const double dzero = 0.0, dnzero = -0.0;

	memset(out, 0, sizeof(*out));
	out->has_null_count = true;
	out->null_count = st->nulls;
	if (st->min == NULL || st->minlen > STATS_MAX || st->maxlen > STATS_MAX)
		return;
	out->min = sc_xcalloc(1, st->minlen + 1);
	memcpy(out->min, st->min, st->minlen);
	out->min_len = st->minlen;
	out->max = sc_xcalloc(1, st->maxlen + 1);
	memcpy(out->max, st->max, st->maxlen);
	out->max_len = st->maxlen;
	/* A zero min is -0.0 and a zero max +0.0 (parquet.thrift). */
	if (c->lf->physical == SC_PQ_FLOAT) {
		float f;

		memcpy(&f, out->min, 4);
		if (f == 0.0f)
			memcpy(out->min, &fnzero, 4);
		memcpy(&f, out->max, 4);
		if (f == 0.0f)
			memcpy(out->max, &fzero, 4);
	} else if (c->lf->physical == SC_PQ_DOUBLE) {
		double d;

		memcpy(&d, out->min, 8);
		if (d == 0.0)
			memcpy(out->min, &dnzero, 8);
		memcpy(&d, out->max, 8);
		if (d == 0.0)
			memcpy(out->max, &dzero, 8);
	}
}

/* The dictionary: values and an open-addressing table of their indices. */
struct dict {
	struct sc_pq_vals vals;
	uint32_t *slot; /* index + 1, 0 empty */
	size_t nslot;
	bool off; /* fallen back to PLAIN */
};

static uint64_t
hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static void
dict_rehash(struct dict *d, size_t nslot)
{
	const uint8_t *p;
	size_t i, n, k;

	free(d->slot);
	d->slot = sc_xcalloc(nslot, sizeof(*d->slot));
	d->nslot = nslot;
	for (i = 0; i < d->vals.n; i++) {
		p = sc_pq_vals_get(&d->vals, i, &n);
		for (k = hash_bytes(p, n) & (nslot - 1); d->slot[k] != 0;
		     k = (k + 1) & (nslot - 1))
			;
		d->slot[k] = (uint32_t)i + 1;
	}
}

/* The index of value p, added if new. */
static uint32_t
dict_index(struct dict *d, const uint8_t *p, size_t n)
{
	const uint8_t *e;
	size_t k, en;

	if ((d->vals.n + 1) * 2 > d->nslot)
		dict_rehash(d, d->nslot ? d->nslot * 2 : 1024);
	for (k = hash_bytes(p, n) & (d->nslot - 1); d->slot[k] != 0;
	     k = (k + 1) & (d->nslot - 1)) {
		e = sc_pq_vals_get(&d->vals, d->slot[k] - 1, &en);
		if (en == n && memcmp(e, p, n) == 0)
			return d->slot[k] - 1;
	}
	sc_pq_vals_add(&d->vals, p, n);
	d->slot[k] = (uint32_t)d->vals.n;
	return (uint32_t)(d->vals.n - 1);
}

static size_t
dict_bytes(const struct dict *d)
{
	return d->vals.type == SC_PQ_BYTE_ARRAY ? d->vals.dlen + 4 * d->vals.n
						: d->vals.n * d->vals.width;
}

struct chunkw {
	struct sc_parquet_writer *w;
	struct wcol *c;
	struct sc_buf pages; /* the data pages, headers included */
	struct sc_buf body, comp;
	struct dict dict;
	struct stats st; /* the chunk's */
	int64_t total_uncompressed;
	bool used_plain, used_dict;
	uint32_t *idx;
};

/* Levels as the hybrid, into b. */
static void
enc_levels(struct sc_buf *b, const uint16_t *lev, size_t n, int mx)
{
	uint32_t *tmp = sc_xreallocarray(NULL, n ? n : 1, sizeof(*tmp));
	size_t i;

	for (i = 0; i < n; i++)
		tmp[i] = lev[i];
	sc_pq_enc_rle(b, tmp, n, sc_pq_bit_width((uint64_t)mx));
	free(tmp);
}

static void
enc_levels_v1(struct sc_buf *b, const uint16_t *lev, size_t n, int mx)
{
	size_t at = b->len;
	uint32_t len;

	(void)sc_buf_add(b, "\0\0\0\0", 4, NULL);
	enc_levels(b, lev, n, mx);
	if (b->failed)
		return;
	len = (uint32_t)(b->len - at - 4);
	memcpy(b->data + at, &len, 4);
}

/* One data page: entries [l0, l1), values [v0, v1). */
static int
write_page(struct chunkw *k, size_t l0, size_t l1, size_t v0, size_t v1,
    struct sc_error *err)
{
	struct sc_parquet_writer *w = k->w;
	struct wcol *c = k->c;
	struct sc_pq_pagehdr ph;
	struct stats st;
	struct sc_buf vals;
	const uint8_t *p;
	size_t i, n, before, rows = 0, lev_len = 0;
	bool use_dict;
	int rc = -1;

	memset(&st, 0, sizeof(st));
	for (i = l0; i < l1; i++) {
		if (c->def[i] < c->lf->max_def)
			st.nulls++;
		if (c->rep[i] == 0)
			rows++;
	}
	for (i = v0; i < v1; i++) {
		p = sc_pq_vals_get(&c->vals, i, &n);
		stats_add(c, &st, p, n);
		stats_add(c, &k->st, p, n);
	}
	k->st.nulls += st.nulls;

	/* Dictionary indices, unless the dictionary would grow too big. */
	sc_buf_init(&vals, SC_BUF_UNLIMITED);
	use_dict = !k->dict.off;
	if (use_dict) {
		before = k->dict.vals.n;
		k->idx = sc_xreallocarray(k->idx, v1 - v0 + 1, sizeof(*k->idx));
		for (i = v0; i < v1; i++) {
			p = sc_pq_vals_get(&c->vals, i, &n);
			k->idx[i - v0] = dict_index(&k->dict, p, n);
		}
		if (dict_bytes(&k->dict) > w->o.dict_bytes) {
			/* Fall back: this page and the rest are PLAIN. */
			k->dict.vals.n = before;
			if (k->dict.vals.type == SC_PQ_BYTE_ARRAY)
				k->dict.vals.dlen =
				    (size_t)k->dict.vals.off[before];
			k->dict.off = true;
			use_dict = false;
		}
	}
	if (use_dict) {
		int bw = sc_pq_bit_width(
		    k->dict.vals.n > 0 ? k->dict.vals.n - 1 : 0);

		(void)sc_buf_addch(&vals, bw, NULL);
		sc_pq_enc_rle(&vals, k->idx, v1 - v0, bw);
		k->used_dict = true;
	} else {
		sc_pq_enc_plain(&vals, &c->vals, v0, v1);
		k->used_plain = true;
	}

	memset(&ph, 0, sizeof(ph));
	ph.num_values = (int32_t)(l1 - l0);
	ph.encoding = use_dict
	    ? (w->o.page_v2 ? SC_PQ_RLE_DICTIONARY : SC_PQ_PLAIN_DICTIONARY)
	    : SC_PQ_PLAIN;
	ph.def_encoding = ph.rep_encoding = SC_PQ_RLE;
	sc_buf_reset(&k->body);
	sc_buf_reset(&k->comp);
	if (!w->o.page_v2) {
		ph.type = SC_PQ_DATA_PAGE;
		if (c->lf->max_rep > 0)
			enc_levels_v1(&k->body, c->rep + l0, l1 - l0,
			    c->lf->max_rep);
		if (c->lf->max_def > 0)
			enc_levels_v1(&k->body, c->def + l0, l1 - l0,
			    c->lf->max_def);
		(void)sc_buf_add(&k->body, vals.data, vals.len, NULL);
		if (k->body.failed ||
		    sc_pq_compress(w->o.codec, w->o.level, k->body.data,
			k->body.len, &k->comp, err) == -1)
			goto out;
		ph.uncompressed_size = (int32_t)k->body.len;
	} else {
		ph.type = SC_PQ_DATA_PAGE_V2;
		ph.num_rows = (int32_t)rows;
		ph.num_nulls = (int32_t)st.nulls;
		if (c->lf->max_rep > 0)
			enc_levels(&k->comp, c->rep + l0, l1 - l0,
			    c->lf->max_rep);
		ph.rep_len = (int32_t)k->comp.len;
		if (c->lf->max_def > 0)
			enc_levels(&k->comp, c->def + l0, l1 - l0,
			    c->lf->max_def);
		ph.def_len = (int32_t)k->comp.len - ph.rep_len;
		lev_len = k->comp.len;
		ph.is_compressed = w->o.codec != SC_PQ_UNCOMPRESSED;
		if (sc_pq_compress(w->o.codec, w->o.level, vals.data, vals.len,
			&k->comp, err) == -1)
			goto out;
		ph.uncompressed_size = (int32_t)(lev_len + vals.len);
	}
	if (k->comp.len > INT32_MAX || k->body.len > INT32_MAX) {
		sc_error_set(err, SC_ST_USAGE, "column '%s': a page over 2 GiB",
		    c->lf->path);
		goto out;
	}
	ph.compressed_size = (int32_t)k->comp.len;
	stats_out(c, &st, &ph.stats);
	before = k->pages.len;
	sc_pq_pagehdr_write(&k->pages, &ph);
	sc_pq_stats_release(&ph.stats);
	k->total_uncompressed +=
	    (int64_t)(k->pages.len - before) + ph.uncompressed_size;
	(void)sc_buf_add(&k->pages, k->comp.data, k->comp.len, NULL);
	if (k->pages.failed || k->body.failed || k->comp.failed ||
	    vals.failed) {
		sc_error_set(err, SC_ST_INTERNAL,
		    "column '%s': a column chunk too large to buffer",
		    c->lf->path);
		goto out;
	}
	rc = 0;
out:
	sc_buf_release(&vals);
	return rc;
}

static int
fwrite_all(struct sc_parquet_writer *w, const void *p, size_t n,
    struct sc_error *err)
{
	if (n > 0 && fwrite(p, 1, n, w->fp) != n)
		return sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot write '%s'", w->path);
	w->offset += n;
	return 0;
}

static int
write_chunk(struct sc_parquet_writer *w, struct wcol *c,
    struct sc_pq_colchunk *cc, struct sc_error *err)
{
	struct chunkw k;
	struct sc_pq_colmeta *m = &cc->meta;
	struct sc_pq_pagehdr ph;
	struct sc_buf dpage, dhead;
	size_t l0 = 0, l, v0 = 0, v = 0, bytes = 0, n, i;
	int64_t dict_total = 0;
	int rc = -1;

	memset(&k, 0, sizeof(k));
	k.w = w;
	k.c = c;
	sc_buf_init(&k.pages, SC_BUF_UNLIMITED);
	sc_buf_init(&k.body, SC_BUF_UNLIMITED);
	sc_buf_init(&k.comp, SC_BUF_UNLIMITED);
	sc_buf_init(&dpage, SC_BUF_UNLIMITED);
	sc_buf_init(&dhead, SC_BUF_UNLIMITED);
	sc_pq_vals_init(&k.dict.vals, c->lf->physical, c->lf->width);
	k.dict.off = w->o.no_dictionary || c->lf->physical == SC_PQ_BOOLEAN;

	/* Pages of about page_bytes of values, cut where a row starts. */
	for (l = 0; l < c->nlev; l++) {
		if (l > l0 && c->rep[l] == 0 && bytes >= w->o.page_bytes) {
			if (write_page(&k, l0, l, v0, v, err) == -1)
				goto out;
			l0 = l;
			v0 = v;
			bytes = 0;
		}
		if (c->def[l] == c->lf->max_def) {
			(void)sc_pq_vals_get(&c->vals, v, &n);
			bytes += n + 4;
			v++;
		}
	}
	if ((c->nlev > l0 || c->nlev == 0) &&
	    write_page(&k, l0, c->nlev, v0, v, err) == -1)
		goto out;

	memset(m, 0, sizeof(*m));
	m->type = c->lf->physical;
	m->codec = w->o.codec;
	m->num_values = (int64_t)c->nlev;
	m->dictionary_page_offset = -1;
	cc->has_meta = true;
	cc->file_offset = (int64_t)w->offset;
	if (k.used_dict) {
		memset(&ph, 0, sizeof(ph));
		ph.type = SC_PQ_DICTIONARY_PAGE;
		ph.num_values = (int32_t)k.dict.vals.n;
		ph.encoding = w->o.page_v2 ? SC_PQ_PLAIN
					   : SC_PQ_PLAIN_DICTIONARY;
		sc_buf_reset(&k.body);
		sc_pq_enc_plain(&k.body, &k.dict.vals, 0, k.dict.vals.n);
		if (sc_pq_compress(w->o.codec, w->o.level, k.body.data,
			k.body.len, &dpage, err) == -1)
			goto out;
		ph.uncompressed_size = (int32_t)k.body.len;
		ph.compressed_size = (int32_t)dpage.len;
		sc_pq_pagehdr_write(&dhead, &ph);
		m->dictionary_page_offset = (int64_t)w->offset;
		dict_total = (int64_t)(dhead.len + k.body.len);
		if (fwrite_all(w, dhead.data, dhead.len, err) == -1 ||
		    fwrite_all(w, dpage.data, dpage.len, err) == -1)
			goto out;
	}
	m->data_page_offset = (int64_t)w->offset;
	if (fwrite_all(w, k.pages.data, k.pages.len, err) == -1)
		goto out;
	m->total_compressed = (int64_t)(dhead.len + dpage.len + k.pages.len);
	m->total_uncompressed = dict_total + k.total_uncompressed;
	m->encodings = sc_xcalloc(4, sizeof(*m->encodings));
	if (k.used_dict)
		m->encodings[m->nencodings++] = w->o.page_v2
		    ? SC_PQ_RLE_DICTIONARY
		    : SC_PQ_PLAIN_DICTIONARY;
	if (k.used_plain || k.used_dict)
		m->encodings[m->nencodings++] = SC_PQ_PLAIN;
	m->encodings[m->nencodings++] = SC_PQ_RLE;
	m->path = sc_xcalloc(c->lf->nparts + 1, sizeof(*m->path));
	for (i = 0; i < c->lf->nparts; i++)
		m->path[i] = sc_xstrdup(c->lf->parts[i]);
	m->npath = (uint32_t)c->lf->nparts;
	stats_out(c, &k.st, &m->stats);
	rc = 0;
out:
	sc_buf_release(&k.pages);
	sc_buf_release(&k.body);
	sc_buf_release(&k.comp);
	sc_buf_release(&dpage);
	sc_buf_release(&dhead);
	sc_pq_vals_release(&k.dict.vals);
	free(k.dict.slot);
	free(k.idx);
	return rc;
}

static int
flush_group(struct sc_parquet_writer *w, struct sc_error *err)
{
	struct sc_pq_rowgroup *g;
	size_t i;

	if (w->rows == 0)
		return 0;
	w->groups =
	    sc_xreallocarray(w->groups, w->ngroups + 1, sizeof(*w->groups));
	g = &w->groups[w->ngroups++];
	memset(g, 0, sizeof(*g));
	g->cols = sc_xcalloc(w->s.nleaves + 1, sizeof(*g->cols));
	g->ncols = (uint32_t)w->s.nleaves;
	g->num_rows = w->rows;
	for (i = 0; i < w->s.nleaves; i++) {
		if (write_chunk(w, &w->cols[i], &g->cols[i], err) == -1)
			return -1;
		g->total_byte_size += g->cols[i].meta.total_uncompressed;
		w->cols[i].nlev = 0;
		sc_pq_vals_reset(&w->cols[i].vals);
	}
	w->total_rows += w->rows;
	w->rows = 0;
	return 0;
}

static size_t
buffered(const struct sc_parquet_writer *w)
{
	size_t i, n = 0;

	for (i = 0; i < w->s.nleaves; i++)
		n += w->cols[i].nlev * 4 +
		    w->cols[i].vals.n * w->cols[i].vals.width +
		    w->cols[i].vals.dlen;
	return n;
}

/* --- the API ----------------------------------------------------------- */

static void
writer_free(struct sc_parquet_writer *w)
{
	size_t k;

	if (w->fp != NULL)
		fclose(w->fp);
	for (k = 0; w->cols && k < w->s.nleaves; k++) {
		free(w->cols[k].def);
		free(w->cols[k].rep);
		sc_pq_vals_release(&w->cols[k].vals);
	}
	free(w->cols);
	pq_schema_release(&w->s);
	{
		/* The footer's own release frees groups and elements. */
		struct sc_pq_filemeta fm;

		memset(&fm, 0, sizeof(fm));
		fm.schema = w->els;
		fm.nschema = w->nels;
		fm.rowgroups = w->groups;
		fm.nrowgroups = w->ngroups;
		sc_pq_filemeta_release(&fm);
	}
	free(w->path);
	free(w);
}

struct sc_parquet_writer *
sc_parquet_writer_open(const char *path, const struct sc_parquet_type *schema,
    const struct sc_parquet_write_opts *opts, struct sc_error *err)
{
	struct sc_parquet_writer *w = sc_xcalloc(1, sizeof(*w));
	size_t i;

	if (opts != NULL)
		w->o = *opts;
	else
		w->o.codec = SC_PQ_SNAPPY;
	if (w->o.group_bytes == 0)
		w->o.group_bytes = DEFAULT_GROUP;
	if (w->o.page_bytes == 0)
		w->o.page_bytes = DEFAULT_PAGE;
	if (w->o.dict_bytes == 0)
		w->o.dict_bytes = DEFAULT_DICT;
	w->path = sc_xstrdup(path);
	if (!sc_pq_codec_supported(w->o.codec)) {
		sc_error_set(err, SC_ST_USAGE, "unsupported Parquet codec %s",
		    sc_pq_codec_name(w->o.codec));
		writer_free(w);
		return NULL;
	}
	if (pq_schema_for_write(&w->s, schema, &w->els, &w->nels, err) == -1) {
		writer_free(w);
		return NULL;
	}
	w->cols = sc_xcalloc(w->s.nleaves + 1, sizeof(*w->cols));
	for (i = 0; i < w->s.nleaves; i++) {
		w->cols[i].lf = &w->s.leaf[i];
		sc_pq_vals_init(&w->cols[i].vals, w->s.leaf[i].physical,
		    w->s.leaf[i].width);
	}
	find_leaves(w, &w->s.root);
	if ((w->fp = fopen(path, "wbe")) == NULL) {
		sc_error_set_errno(err, SC_ST_IO, errno, "cannot create '%s'",
		    path);
		writer_free(w);
		return NULL;
	}
	if (fwrite_all(w, "PAR1", 4, err) == -1) {
		writer_free(w);
		return NULL;
	}
	return w;
}

int
sc_parquet_writer_add_row(struct sc_parquet_writer *w, const char *text,
    size_t n, struct sc_error *err)
{
	struct sc_pq_json *j;
	size_t i, *nlev, *nval, *dlen;
	int rc = 0;

	if ((j = sc_pq_json_parse(text, n, err)) == NULL)
		return -1;
	if (j->kind != SC_PQ_JSON_ARRAY || j->n != w->s.root.nchild) {
		sc_error_set(err, SC_ST_USAGE,
		    "a row must be a JSON array of %zu values",
		    w->s.root.nchild);
		sc_pq_json_free(j);
		return -1;
	}
	nlev = sc_xcalloc(w->s.nleaves + 1, sizeof(*nlev));
	nval = sc_xcalloc(w->s.nleaves + 1, sizeof(*nval));
	dlen = sc_xcalloc(w->s.nleaves + 1, sizeof(*dlen));
	for (i = 0; i < w->s.nleaves; i++) {
		nlev[i] = w->cols[i].nlev;
		nval[i] = w->cols[i].vals.n;
		dlen[i] = w->cols[i].vals.dlen;
	}
	for (i = 0; i < w->s.root.nchild && rc == 0; i++)
		rc = shred(w, &w->s.root.child[i], &j->item[i], 0, 0, err);
	if (rc == -1)
		/* Take the row back out of every column. */
		for (i = 0; i < w->s.nleaves; i++) {
			w->cols[i].nlev = nlev[i];
			w->cols[i].vals.n = nval[i];
			w->cols[i].vals.dlen = dlen[i];
		}
	free(nlev);
	free(nval);
	free(dlen);
	sc_pq_json_free(j);
	if (rc == -1)
		return -1;
	w->rows++;
	if (buffered(w) >= w->o.group_bytes)
		return flush_group(w, err);
	return 0;
}

int
sc_parquet_writer_close(struct sc_parquet_writer *w, struct sc_error *err)
{
	struct sc_pq_filemeta fm;
	struct sc_buf b;
	uint32_t len;
	int rc = -1;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	if (flush_group(w, err) == -1)
		goto out;
	memset(&fm, 0, sizeof(fm));
	fm.version = 1;
	fm.schema = w->els;
	fm.nschema = w->nels;
	fm.num_rows = w->total_rows;
	fm.rowgroups = w->groups;
	fm.nrowgroups = w->ngroups;
	fm.created_by = (char *)(uintptr_t) "sctk version " SCTK_VERSION;
	fm.ncolumn_orders = (uint32_t)w->s.nleaves;
	sc_pq_filemeta_write(&b, &fm);
	if (b.failed) {
		sc_error_set(err, SC_ST_INTERNAL, "'%s': footer too large",
		    w->path);
		goto out;
	}
	len = (uint32_t)b.len;
	if (fwrite_all(w, b.data, b.len, err) == -1 ||
	    fwrite_all(w, &len, 4, err) == -1 ||
	    fwrite_all(w, "PAR1", 4, err) == -1)
		goto out;
	if (fflush(w->fp) != 0 || ferror(w->fp)) {
		sc_error_set_errno(err, SC_ST_IO, errno, "cannot write '%s'",
		    w->path);
		goto out;
	}
	if (fclose(w->fp) != 0) {
		w->fp = NULL;
		sc_error_set_errno(err, SC_ST_IO, errno, "cannot write '%s'",
		    w->path);
		goto out;
	}
	w->fp = NULL;
	rc = 0;
out:
	sc_buf_release(&b);
	writer_free(w);
	return rc;
}

void
sc_parquet_writer_abort(struct sc_parquet_writer *w)
{
	if (w != NULL)
		writer_free(w);
}
