/* SPDX-License-Identifier: MIT */

/*
 * reader.c: a Parquet file, a row group at a time.  The footer is read
 * once; each row group's column chunks are read whole (one at a time),
 * their pages decompressed and decoded into levels and values, and rows
 * assembled from those by Spark's view of the schema (pq_int.h).  Every
 * offset, length and count in the file is checked before use, and what
 * a row group may cost is bounded by the reader's limit.
 */

#include "parquet/parquet.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/value.h"
#include "core/width.h"
#include "core/xmem.h"
#include "parquet/codec.h"
#include "parquet/pq_int.h"
#include "parquet/thrift.h"
#include "core/banned.h"

#define DEFAULT_MAX_GROUP ((size_t)1 << 30)
/* Julian day of 1970-01-01, for INT96 timestamps. */
#define JULIAN_EPOCH 2440588

struct rcol {
	uint16_t *def, *rep;
	size_t nlev, cap;
	struct sc_pq_vals vals;
	size_t li, vi; /* assembly cursors */
};

struct sc_parquet_reader {
	int fd;
	bool own_fd;
	char *name;
	uint64_t size;
	uint64_t data_end; /* where the footer starts */
	struct sc_pq_filemeta fm;
	struct pq_schema s;
	size_t max_bytes;
	uint32_t next_group;
	int64_t group_rows, row;
	struct rcol *cols;
	bool failed;
};

static int rfail(struct sc_parquet_reader *r, struct sc_error *err,
    enum sc_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int
rfail(struct sc_parquet_reader *r, struct sc_error *err, enum sc_status st,
    const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r != NULL)
		r->failed = true;
	return sc_error_set(err, st, "'%s': %s", r ? r->name : "?", msg);
}

static int
pread_all(struct sc_parquet_reader *r, void *buf, size_t n, uint64_t off,
    struct sc_error *err)
{
	size_t got = 0;
	ssize_t k;

	while (got < n) {
		k = pread(r->fd, (uint8_t *)buf + got, n - got,
		    (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return sc_error_set_errno(err, SC_ST_IO, errno,
			    "cannot read '%s'", r->name);
		if (k == 0)
			return rfail(r, err, SC_ST_IO,
			    "file shorter than it was (truncated while read?)");
		got += (size_t)k;
	}
	return 0;
}

void
sc_parquet_reader_free(struct sc_parquet_reader *r)
{
	size_t i;

	if (r == NULL)
		return;
	if (r->cols != NULL)
		for (i = 0; i < r->s.nleaves; i++) {
			free(r->cols[i].def);
			free(r->cols[i].rep);
			sc_pq_vals_release(&r->cols[i].vals);
		}
	free(r->cols);
	pq_schema_release(&r->s);
	sc_pq_filemeta_release(&r->fm);
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	free(r->name);
	free(r);
}

static int
read_footer(struct sc_parquet_reader *r, struct sc_error *err)
{
	struct sc_thrift_rd rd;
	uint8_t tail[8], head[4], *foot;
	uint32_t flen, i, j;
	int rc;

	if (r->size < 12)
		return rfail(r, err, SC_ST_PROTOCOL,
		    "not a Parquet file (%llu bytes, fewer than 12)",
		    (unsigned long long)r->size);
	if (pread_all(r, head, 4, 0, err) == -1 ||
	    pread_all(r, tail, 8, r->size - 8, err) == -1)
		return -1;
	if (memcmp(tail + 4, "PARE", 4) == 0)
		return rfail(r, err, SC_ST_USAGE,
		    "encrypted Parquet files are not supported");
	if (memcmp(head, "PAR1", 4) != 0 || memcmp(tail + 4, "PAR1", 4) != 0)
		return rfail(r, err, SC_ST_PROTOCOL,
		    "not a Parquet file (no PAR1 magic)");
	memcpy(&flen, tail, 4);
	if (flen == 0 || flen > r->size - 12)
		return rfail(r, err, SC_ST_PROTOCOL,
		    "malformed Parquet file: footer length %u past the file's %llu bytes",
		    flen, (unsigned long long)r->size);
	r->data_end = r->size - 8 - flen;
	foot = sc_xmalloc(flen);
	if (pread_all(r, foot, flen, r->data_end, err) == -1) {
		free(foot);
		return -1;
	}
	sc_thrift_rd_init(&rd, foot, flen, err);
	rc = sc_pq_filemeta_read(&rd, &r->fm);
	free(foot);
	if (rc == -1) {
		sc_error_prefix(err, "': ");
		sc_error_prefix(err, r->name);
		sc_error_prefix(err, "'");
		r->failed = true;
		return -1;
	}
	if (r->fm.encrypted)
		return rfail(r, err, SC_ST_USAGE,
		    "encrypted Parquet files are not supported");
	if (pq_schema_from_file(&r->s, r->fm.schema, r->fm.nschema, r->name,
		err) == -1) {
		r->failed = true;
		return -1;
	}
	for (i = 0; i < r->fm.nrowgroups; i++) {
		const struct sc_pq_rowgroup *g = &r->fm.rowgroups[i];

		if (g->ncols != r->s.nleaves)
			return rfail(r, err, SC_ST_PROTOCOL,
			    "malformed Parquet file: row group %u has %u columns, the schema %zu",
			    i, g->ncols, r->s.nleaves);
		if (g->num_rows < 0)
			return rfail(r, err, SC_ST_PROTOCOL,
			    "malformed Parquet file: row group %u has a negative row count",
			    i);
		for (j = 0; j < g->ncols; j++)
			if (g->cols[j].file_path != NULL)
				return rfail(r, err, SC_ST_USAGE,
				    "column chunks in other files are not supported");
	}
	r->cols = sc_xcalloc(r->s.nleaves + 1, sizeof(*r->cols));
	for (i = 0; i < r->s.nleaves; i++)
		sc_pq_vals_init(&r->cols[i].vals, r->s.leaf[i].physical,
		    r->s.leaf[i].width);
	return 0;
}

struct sc_parquet_reader *
sc_parquet_reader_fdopen(int fd, const char *name,
    const struct sc_parquet_read_opts *opts, struct sc_error *err)
{
	struct sc_parquet_reader *r = sc_xcalloc(1, sizeof(*r));
	struct stat st;

	r->fd = fd;
	r->name = sc_xstrdup(name);
	r->max_bytes = opts && opts->max_group_bytes ? opts->max_group_bytes
						     : DEFAULT_MAX_GROUP;
	if (fstat(fd, &st) == -1) {
		sc_error_set_errno(err, SC_ST_IO, errno, "cannot read '%s'",
		    name);
		sc_parquet_reader_free(r);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		sc_error_set(err, SC_ST_USAGE, "'%s': not a regular file",
		    name);
		sc_parquet_reader_free(r);
		return NULL;
	}
	r->size = (uint64_t)st.st_size;
	if (read_footer(r, err) == -1) {
		sc_parquet_reader_free(r);
		return NULL;
	}
	return r;
}

struct sc_parquet_reader *
sc_parquet_reader_open(const char *path,
    const struct sc_parquet_read_opts *opts, struct sc_error *err)
{
	struct sc_parquet_reader *r;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		sc_error_set_errno(err, SC_ST_IO, errno, "cannot open '%s'",
		    path);
		return NULL;
	}
	if ((r = sc_parquet_reader_fdopen(fd, path, opts, err)) == NULL) {
		close(fd);
		return NULL;
	}
	r->own_fd = true;
	return r;
}

const struct sc_parquet_type *
sc_parquet_reader_schema(const struct sc_parquet_reader *r)
{
	return r->s.type;
}

int64_t
sc_parquet_reader_num_rows(const struct sc_parquet_reader *r)
{
	return r->fm.num_rows;
}

uint32_t
sc_parquet_reader_num_groups(const struct sc_parquet_reader *r)
{
	return r->fm.nrowgroups;
}

const char *
sc_parquet_reader_created_by(const struct sc_parquet_reader *r)
{
	return r->fm.created_by;
}

int64_t
sc_parquet_reader_group_rows(const struct sc_parquet_reader *r)
{
	return r->group_rows;
}

size_t
sc_parquet_reader_num_leaves(const struct sc_parquet_reader *r)
{
	return r->s.nleaves;
}

int
sc_parquet_reader_leaf(const struct sc_parquet_reader *r, size_t i,
    struct sc_parquet_leaf *out)
{
	const struct pq_leaf *lf;

	if (i >= r->s.nleaves)
		return -1;
	lf = &r->s.leaf[i];
	out->path = lf->path;
	out->physical = lf->physical;
	out->max_def = lf->max_def;
	out->max_rep = lf->max_rep;
	out->nlevels = r->cols[i].nlev;
	out->def = lf->max_def > 0 ? r->cols[i].def : NULL;
	out->rep = lf->max_rep > 0 ? r->cols[i].rep : NULL;
	out->vals = &r->cols[i].vals;
	return 0;
}

/* --- column chunks --------------------------------------------------- */

/* What one column chunk's decoding works with. */
struct chunk {
	struct sc_parquet_reader *r;
	const struct pq_leaf *lf;
	struct rcol *col;
	const struct sc_pq_colmeta *m;
	struct sc_pq_vals dict;
	bool has_dict;
	struct sc_buf page; /* a decompressed page */
	uint32_t *lev; /* scratch for levels */
	size_t levcap;
	size_t *used; /* bytes counted against the limit */
	size_t transient; /* of those, what the chunk frees when done */
	struct sc_error *err;
};

static int
cfail(struct chunk *c, const char *what)
{
	return rfail(c->r, c->err, SC_ST_PROTOCOL,
	    "column '%s': malformed Parquet page: %s", c->lf->path, what);
}

/* Put "'file': column 'path': " before err's message. */
static int
cprefix(struct chunk *c)
{
	char pre[512];

	(void)snprintf(pre, sizeof(pre), "'%s': column '%s': ", c->r->name,
	    c->lf->path);
	sc_error_prefix(c->err, pre);
	c->r->failed = true;
	return -1;
}

/* Count bytes against the row group's limit. */
static int
charge(struct chunk *c, uint64_t n)
{
	if (n > c->r->max_bytes || *c->used > c->r->max_bytes - n)
		return rfail(c->r, c->err, SC_ST_INTERNAL,
		    "column '%s': a row group needs more memory than the reader's limit (%zu bytes)",
		    c->lf->path, c->r->max_bytes);
	*c->used += (size_t)n;
	return 0;
}

/* Levels of n entries with max level mx from p: into dst (uint16). */
static int
levels(struct chunk *c, const uint8_t *p, size_t len, int mx, size_t n,
    uint16_t *dst)
{
	size_t i;

	if (n > c->levcap) {
		c->lev = sc_xreallocarray(c->lev, n, sizeof(*c->lev));
		c->levcap = n;
	}
	if (sc_pq_dec_rle(p, len, sc_pq_bit_width((uint64_t)mx), c->lev, n,
		c->err) == -1) {
		return cprefix(c);
	}
	for (i = 0; i < n; i++) {
		if (c->lev[i] > (uint32_t)mx)
			return cfail(c, "a level above the column's maximum");
		dst[i] = (uint16_t)c->lev[i];
	}
	return 0;
}

/* The values of a data page: nv of them in [p, p + n). */
static int
values(struct chunk *c, int enc, const uint8_t *p, size_t n, size_t nv)
{
	struct sc_pq_vals *v = &c->col->vals;
	uint32_t len;
	size_t i, before = v->n, dbefore = v->dlen;
	int rc;

	switch (enc) {
	case SC_PQ_PLAIN:
		rc = sc_pq_dec_plain(v, p, n, nv, NULL, c->err);
		break;
	case SC_PQ_PLAIN_DICTIONARY:
	case SC_PQ_RLE_DICTIONARY:
		if (!c->has_dict)
			return cfail(c,
			    "dictionary indices without a dictionary");
		rc = sc_pq_dec_dict(v, &c->dict, p, n, nv, c->err);
		break;
	case SC_PQ_RLE:
		if (v->type != SC_PQ_BOOLEAN)
			return cfail(c,
			    "RLE values of a type other than BOOLEAN");
		if (n < 4)
			return cfail(c, "RLE length past the end of the page");
		memcpy(&len, p, 4);
		if (len > n - 4)
			return cfail(c, "RLE length past the end of the page");
		if (nv > c->levcap) {
			c->lev = sc_xreallocarray(c->lev, nv, sizeof(*c->lev));
			c->levcap = nv;
		}
		rc = sc_pq_dec_rle(p + 4, len, 1, c->lev, nv, c->err);
		for (i = 0; rc == 0 && i < nv; i++) {
			uint8_t b = (uint8_t)c->lev[i];

			sc_pq_vals_add(v, &b, 1);
		}
		break;
	case SC_PQ_DELTA_BINARY_PACKED:
		rc = sc_pq_dec_delta_vals(v, p, n, nv, c->err);
		break;
	case SC_PQ_DELTA_LENGTH_BYTE_ARRAY:
		rc = sc_pq_dec_delta_length(v, p, n, nv, c->err);
		break;
	case SC_PQ_DELTA_BYTE_ARRAY:
		rc = sc_pq_dec_delta_bytes(v, p, n, nv, c->err);
		break;
	case SC_PQ_BYTE_STREAM_SPLIT:
		rc = sc_pq_dec_byte_stream_split(v, p, n, nv, c->err);
		break;
	default:
		return rfail(c->r, c->err, SC_ST_USAGE,
		    "column '%s': Parquet encoding %s is not supported",
		    c->lf->path, sc_pq_encoding_name(enc));
	}
	if (rc == -1) {
		return cprefix(c);
	}
	/* What the values hold counts against the limit. */
	return charge(c,
	    (v->n - before) * (v->width ? v->width : 8) + (v->dlen - dbefore));
}

static int
decompress(struct chunk *c, const uint8_t *p, size_t n, size_t want)
{
	sc_buf_reset(&c->page);
	if (charge(c, want) == -1)
		return -1;
	if (sc_pq_decompress(c->m->codec, p, n, want, &c->page, c->err) == -1) {
		return cprefix(c);
	}
	*c->used -= want; /* the page buffer is reused */
	return 0;
}

/* Grow the column's level arrays for n more entries. */
static int
more_levels(struct chunk *c, size_t n)
{
	struct rcol *col = c->col;
	size_t want, cap;

	if (charge(c,
		(uint64_t)n * 2 * sizeof(uint16_t) +
		    (uint64_t)n * sizeof(uint32_t)) == -1)
		return -1;
	want = col->nlev + n;
	if (want <= col->cap && col->def != NULL)
		return 0;
	cap = col->cap < 1024 ? 1024 : col->cap;
	while (cap < want)
		cap *= 2;
	col->def = sc_xreallocarray(col->def, cap, sizeof(*col->def));
	col->rep = sc_xreallocarray(col->rep, cap, sizeof(*col->rep));
	col->cap = cap;
	return 0;
}

static int
data_page(struct chunk *c, const struct sc_pq_pagehdr *ph, const uint8_t *p,
    size_t n)
{
	const struct pq_leaf *lf = c->lf;
	struct rcol *col = c->col;
	size_t nv = (size_t)ph->num_values, nn, i, pos = 0, vlen;
	uint16_t *def, *rep;
	const uint8_t *vp;
	uint32_t len;

	if (ph->num_values < 0)
		return cfail(c, "a negative value count");
	if (more_levels(c, nv) == -1)
		return -1;
	def = col->def + col->nlev;
	rep = col->rep + col->nlev;
	if (ph->type == SC_PQ_DATA_PAGE) {
		if (decompress(c, p, n, (size_t)ph->uncompressed_size) == -1)
			return -1;
		vp = c->page.data;
		vlen = c->page.len;
		if (lf->max_rep > 0) {
			if (ph->rep_encoding != SC_PQ_RLE)
				return rfail(c->r, c->err, SC_ST_USAGE,
				    "column '%s': repetition levels encoded as %s are not supported",
				    lf->path,
				    sc_pq_encoding_name(ph->rep_encoding));
			if (vlen < 4)
				return cfail(c,
				    "levels past the end of the page");
			memcpy(&len, vp, 4);
			if (len > vlen - 4)
				return cfail(c,
				    "levels past the end of the page");
			if (levels(c, vp + 4, len, lf->max_rep, nv, rep) == -1)
				return -1;
			pos = 4 + (size_t)len;
		}
		if (lf->max_def > 0) {
			if (ph->def_encoding != SC_PQ_RLE)
				return rfail(c->r, c->err, SC_ST_USAGE,
				    "column '%s': definition levels encoded as %s are not supported",
				    lf->path,
				    sc_pq_encoding_name(ph->def_encoding));
			if (vlen - pos < 4)
				return cfail(c,
				    "levels past the end of the page");
			memcpy(&len, vp + pos, 4);
			if (len > vlen - pos - 4)
				return cfail(c,
				    "levels past the end of the page");
			if (levels(c, vp + pos + 4, len, lf->max_def, nv,
				def) == -1)
				return -1;
			pos += 4 + (size_t)len;
		}
		vp += pos;
		vlen -= pos;
	} else {
		if (ph->rep_len < 0 || ph->def_len < 0 ||
		    (uint64_t)ph->rep_len + (uint64_t)ph->def_len > n ||
		    ph->rep_len + ph->def_len > ph->uncompressed_size)
			return cfail(c, "levels past the end of the page");
		if (lf->max_rep > 0 &&
		    levels(c, p, (size_t)ph->rep_len, lf->max_rep, nv, rep) ==
			-1)
			return -1;
		if (lf->max_def > 0 &&
		    levels(c, p + ph->rep_len, (size_t)ph->def_len, lf->max_def,
			nv, def) == -1)
			return -1;
		pos = (size_t)ph->rep_len + (size_t)ph->def_len;
		if (ph->is_compressed) {
			if (decompress(c, p + pos, n - pos,
				(size_t)(ph->uncompressed_size - ph->rep_len -
				    ph->def_len)) == -1)
				return -1;
			vp = c->page.data;
			vlen = c->page.len;
		} else {
			vp = p + pos;
			vlen = n - pos;
		}
	}
	if (lf->max_rep == 0)
		memset(rep, 0, nv * sizeof(*rep));
	if (lf->max_def == 0)
		for (i = 0; i < nv; i++)
			def[i] = 0;
	for (nn = 0, i = 0; i < nv; i++)
		if (def[i] == lf->max_def)
			nn++;
	if (values(c, ph->encoding, vp, vlen, nn) == -1)
		return -1;
	col->nlev += nv;
	return 0;
}

static int
dict_page(struct chunk *c, const struct sc_pq_pagehdr *ph, const uint8_t *p,
    size_t n)
{
	if (c->has_dict)
		return cfail(c, "a second dictionary");
	if (ph->num_values < 0)
		return cfail(c, "a negative value count");
	if (ph->encoding != SC_PQ_PLAIN &&
	    ph->encoding != SC_PQ_PLAIN_DICTIONARY)
		return cfail(c, "a dictionary not in PLAIN");
	if (c->lf->physical == SC_PQ_BOOLEAN)
		return cfail(c, "a dictionary of booleans");
	if (decompress(c, p, n, (size_t)ph->uncompressed_size) == -1)
		return -1;
	if (sc_pq_dec_plain(&c->dict, c->page.data, c->page.len,
		(size_t)ph->num_values, NULL, c->err) == -1) {
		return cprefix(c);
	}
	c->has_dict = true;
	if (charge(c, c->page.len + c->dict.n * 8) == -1)
		return -1;
	c->transient += c->page.len + c->dict.n * 8;
	return 0;
}

static int
read_chunk(struct sc_parquet_reader *r, const struct sc_pq_rowgroup *g,
    size_t leaf, size_t *used, struct sc_error *err)
{
	const struct sc_pq_colchunk *cc = &g->cols[leaf];
	const struct sc_pq_colmeta *m = &cc->meta;
	struct chunk c;
	struct sc_pq_pagehdr ph;
	struct sc_thrift_rd rd;
	uint8_t *buf = NULL;
	uint64_t start, len, rows;
	size_t pos = 0, i;
	int rc = -1;

	memset(&c, 0, sizeof(c));
	c.r = r;
	c.lf = &r->s.leaf[leaf];
	c.col = &r->cols[leaf];
	c.m = m;
	c.used = used;
	c.err = err;
	if (!cc->has_meta)
		return cfail(&c, "a column chunk without metadata");
	if (m->type != c.lf->physical)
		return cfail(&c,
		    "a column chunk of another type than its schema's");
	if (!sc_pq_codec_supported(m->codec))
		return rfail(r, err, SC_ST_USAGE,
		    "column '%s': Parquet codec %s is not supported",
		    c.lf->path, sc_pq_codec_name(m->codec));
	if (m->num_values < 0)
		return cfail(&c, "a negative value count");
	if (m->num_values == 0) {
		/* No pages to read (pyarrow writes offset 0 for none). */
		if (g->num_rows != 0)
			return rfail(r, err, SC_ST_PROTOCOL,
			    "column '%s': malformed Parquet file: 0 rows in a row group of %lld",
			    c.lf->path, (long long)g->num_rows);
		return 0;
	}
	start = (uint64_t)m->data_page_offset;
	if (m->dictionary_page_offset > 0 &&
	    m->dictionary_page_offset < m->data_page_offset)
		start = (uint64_t)m->dictionary_page_offset;
	len = (uint64_t)m->total_compressed;
	if (m->data_page_offset < 4 || m->total_compressed < 0 ||
	    start > r->data_end || len > r->data_end - start)
		return cfail(&c, "a column chunk past the end of the file");
	if (charge(&c, len) == -1)
		return -1;
	c.transient = (size_t)len;
	buf = sc_xmalloc(len ? len : 1);
	if (pread_all(r, buf, len, start, err) == -1) {
		free(buf);
		*used -= c.transient;
		return -1;
	}
	sc_pq_vals_init(&c.dict, c.lf->physical, c.lf->width);
	sc_buf_init(&c.page, SC_BUF_UNLIMITED);
	while (pos < len && c.col->nlev < (uint64_t)m->num_values) {
		sc_thrift_rd_init(&rd, buf + pos, len - pos, err);
		if (sc_pq_pagehdr_read(&rd, &ph) == -1) {
			cprefix(&c);
			sc_pq_pagehdr_release(&ph);
			goto out;
		}
		pos = (size_t)(rd.p - buf);
		if ((uint64_t)ph.compressed_size > len - pos) {
			sc_pq_pagehdr_release(&ph);
			cfail(&c, "a page past the end of its column chunk");
			goto out;
		}
		if (!ph.has_header && ph.type != SC_PQ_INDEX_PAGE &&
		    ph.type <= SC_PQ_DATA_PAGE_V2) {
			sc_pq_pagehdr_release(&ph);
			cfail(&c, "a page without its header");
			goto out;
		}
		switch (ph.type) {
		case SC_PQ_DATA_PAGE:
		case SC_PQ_DATA_PAGE_V2:
			rc = data_page(&c, &ph, buf + pos,
			    (size_t)ph.compressed_size);
			break;
		case SC_PQ_DICTIONARY_PAGE:
			rc = dict_page(&c, &ph, buf + pos,
			    (size_t)ph.compressed_size);
			break;
		default:
			rc = 0; /* index pages and unknown kinds */
			break;
		}
		sc_pq_pagehdr_release(&ph);
		if (rc == -1)
			goto out;
		rc = -1;
		pos += (size_t)ph.compressed_size;
	}
	if (c.col->nlev != (uint64_t)m->num_values) {
		cfail(&c, "fewer values than the column chunk claims");
		goto out;
	}
	for (rows = 0, i = 0; i < c.col->nlev; i++)
		if (c.col->rep[i] == 0)
			rows++;
	if (rows != (uint64_t)g->num_rows ||
	    (c.col->nlev > 0 && c.col->rep[0] != 0)) {
		rfail(r, err, SC_ST_PROTOCOL,
		    "column '%s': malformed Parquet file: %llu rows in a row group of %lld",
		    c.lf->path, (unsigned long long)rows,
		    (long long)g->num_rows);
		goto out;
	}
	rc = 0;
out:
	/* The chunk's bytes and dictionary go; its levels and values stay. */
	*used -= c.transient;
	free(buf);
	free(c.lev);
	sc_buf_release(&c.page);
	sc_pq_vals_release(&c.dict);
	return rc;
}

int
sc_parquet_reader_next_group(struct sc_parquet_reader *r, struct sc_error *err)
{
	const struct sc_pq_rowgroup *g;
	size_t i, used = 0;

	if (r->failed)
		return rfail(r, err, SC_ST_INTERNAL, "read after an error");
	for (i = 0; i < r->s.nleaves; i++) {
		r->cols[i].nlev = 0;
		r->cols[i].li = r->cols[i].vi = 0;
		sc_pq_vals_reset(&r->cols[i].vals);
	}
	r->group_rows = r->row = 0;
	if (r->next_group >= r->fm.nrowgroups)
		return 0;
	g = &r->fm.rowgroups[r->next_group++];
	for (i = 0; i < r->s.nleaves; i++)
		if (read_chunk(r, g, i, &used, err) == -1)
			return -1;
	r->group_rows = g->num_rows;
	return 1;
}

/* --- rows ------------------------------------------------------------ */

static void
add_json_string(struct sc_buf *out, const uint8_t *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, k;

	(void)sc_buf_addch(out, '"', NULL);
	while (i < n) {
		uint8_t ch = p[i];

		if (ch == '"' || ch == '\\') {
			(void)sc_buf_addch(out, '\\', NULL);
			(void)sc_buf_addch(out, ch, NULL);
			i++;
		} else if (ch < 0x20) {
			char e[7] = { '\\', 'u', '0', '0', hex[ch >> 4],
				hex[ch & 15], 0 };

			(void)sc_buf_addstr(out,
			    ch == '\n'	     ? "\\n"
				: ch == '\t' ? "\\t"
				: ch == '\r' ? "\\r"
					     : e,
			    NULL);
			i++;
		} else if (ch < 0x80) {
			(void)sc_buf_addch(out, ch, NULL);
			i++;
		} else if ((k = sc_utf8_len(p + i, n - i, NULL)) > 0) {
			(void)sc_buf_add(out, p + i, k, NULL);
			i += k;
		} else {
			(void)sc_buf_addstr(out, "\xef\xbf\xbd", NULL);
			i++;
		}
	}
	(void)sc_buf_addch(out, '"', NULL);
}

static void
add_quoted(struct sc_buf *out, const char *s)
{
	(void)sc_buf_addch(out, '"', NULL);
	(void)sc_buf_addstr(out, s, NULL);
	(void)sc_buf_addch(out, '"', NULL);
}

/* Big-endian two's complement bytes (1..16) as a 128-bit hi:lo. */
static void
be_int128(const uint8_t *p, size_t n, int64_t *hi, uint64_t *lo)
{
	uint64_t h = (p[0] & 0x80) ? UINT64_MAX : 0, l = h;
	size_t i;

	for (i = 0; i < n; i++) {
		h = (h << 8) | (l >> 56);
		l = (l << 8) | p[i];
	}
	*hi = (int64_t)h;
	*lo = l;
}

static int
leaf_value(struct sc_parquet_reader *r, const struct pq_lnode *ln,
    const uint8_t *p, size_t n, struct sc_buf *out, struct sc_error *err)
{
	char txt[SC_VALUE_TEXT_MAX];
	int32_t i32;
	int64_t i64, hi;
	uint64_t lo;
	float f;
	double d;

	switch (ln->physical) {
	case SC_PQ_BOOLEAN:
		(void)sc_buf_addstr(out, p[0] ? "true" : "false", NULL);
		return 0;
	case SC_PQ_INT32:
		memcpy(&i32, p, 4);
		switch (ln->conv) {
		case PQ_CONV_DATE:
			sc_value_fmt_date(i32, txt);
			add_quoted(out, txt);
			return 0;
		case PQ_CONV_DECIMAL:
			sc_value_fmt_decimal(i32 < 0 ? -1 : 0,
			    (uint64_t)(int64_t)i32, ln->type->scale, txt);
			add_quoted(out, txt);
			return 0;
		case PQ_CONV_UNSIGNED:
			(void)sc_buf_addf(out, NULL, "%u", (uint32_t)i32);
			return 0;
		default:
			(void)sc_buf_addf(out, NULL, "%d", i32);
			return 0;
		}
	case SC_PQ_INT64:
		memcpy(&i64, p, 8);
		switch (ln->conv) {
		case PQ_CONV_DECIMAL:
			sc_value_fmt_decimal(i64 < 0 ? -1 : 0, (uint64_t)i64,
			    ln->type->scale, txt);
			add_quoted(out, txt);
			return 0;
		case PQ_CONV_UNSIGNED:
			(void)sc_buf_addf(out, NULL, "\"%llu\"",
			    (unsigned long long)(uint64_t)i64);
			return 0;
		case PQ_CONV_MILLIS:
			if (i64 > INT64_MAX / 1000 || i64 < INT64_MIN / 1000)
				return rfail(r, err, SC_ST_PROTOCOL,
				    "a timestamp out of range");
			i64 *= 1000;
			/* FALLTHROUGH */
		case PQ_CONV_MICROS:
			sc_value_fmt_timestamp(i64, txt);
			add_quoted(out, txt);
			return 0;
		default:
			(void)sc_buf_addf(out, NULL, "%lld", (long long)i64);
			return 0;
		}
	case SC_PQ_INT96: {
		int64_t nanos;
		int32_t day;

		memcpy(&nanos, p, 8);
		memcpy(&day, p + 8, 4);
		if (nanos < 0 || nanos >= 86400LL * 1000000000LL)
			return rfail(r, err, SC_ST_PROTOCOL,
			    "an INT96 timestamp out of range");
		i64 = ((int64_t)day - JULIAN_EPOCH) * 86400LL * 1000000LL +
		    nanos / 1000;
		sc_value_fmt_timestamp(i64, txt);
		add_quoted(out, txt);
		return 0;
	}
	case SC_PQ_FLOAT:
	case SC_PQ_DOUBLE:
		if (ln->physical == SC_PQ_FLOAT) {
			memcpy(&f, p, 4);
			sc_value_fmt_float(f, txt);
			d = f;
		} else {
			memcpy(&d, p, 8);
			sc_value_fmt_double(d, txt);
		}
		if (isfinite(d))
			(void)sc_buf_addstr(out, txt, NULL);
		else
			add_quoted(out, txt);
		return 0;
	default: /* BYTE_ARRAY, FIXED */
		if (ln->conv == PQ_CONV_DECIMAL) {
			if (n > 16)
				return rfail(r, err, SC_ST_PROTOCOL,
				    "a decimal of more than 16 bytes");
			if (n == 0)
				hi = 0, lo = 0;
			else
				be_int128(p, n, &hi, &lo);
			sc_value_fmt_decimal(hi, lo, ln->type->scale, txt);
			add_quoted(out, txt);
			return 0;
		}
		if (ln->type->kind == SC_VALUE_STRING) {
			add_json_string(out, p, n);
			return 0;
		}
		{
			static const char hex[] = "0123456789abcdef";
			size_t i;

			(void)sc_buf_addch(out, '"', NULL);
			for (i = 0; i < n; i++) {
				(void)sc_buf_addch(out, hex[p[i] >> 4], NULL);
				(void)sc_buf_addch(out, hex[p[i] & 15], NULL);
			}
			(void)sc_buf_addch(out, '"', NULL);
		}
		return 0;
	}
}

static int
broken(struct sc_parquet_reader *r, struct sc_error *err)
{
	return rfail(r, err, SC_ST_PROTOCOL,
	    "malformed Parquet file: levels that contradict the schema in row group %u",
	    r->next_group - 1);
}

/* The current entry's definition level of leaf i, or -1 past the end. */
static int
cur_def(struct sc_parquet_reader *r, size_t i)
{
	struct rcol *c = &r->cols[i];

	if (c->li >= c->nlev)
		return -1;
	return c->def[c->li];
}

/* Skip one entry of every leaf under ln, all below level below. */
static int
skip_entries(struct sc_parquet_reader *r, const struct pq_lnode *ln, int below,
    struct sc_error *err)
{
	size_t i;
	int d;

	for (i = ln->first_leaf; i < ln->first_leaf + ln->nleaves; i++) {
		d = cur_def(r, i);
		if (d < 0 || d >= below)
			return broken(r, err);
		r->cols[i].li++;
	}
	return 0;
}

static int
assemble(struct sc_parquet_reader *r, const struct pq_lnode *ln,
    struct sc_buf *out, struct sc_error *err)
{
	struct rcol *c = &r->cols[ln->first_leaf];
	const uint8_t *p;
	size_t i, n;
	int d;

	if (ln->nleaves == 0)
		return broken(r, err);
	d = cur_def(r, ln->first_leaf);
	if (d < 0)
		return broken(r, err);
	if (d < ln->def) {
		(void)sc_buf_addstr(out, "null", NULL);
		return skip_entries(r, ln, ln->def, err);
	}
	switch (ln->type->kind) {
	case SC_VALUE_STRUCT:
		(void)sc_buf_addch(out, '[', NULL);
		for (i = 0; i < ln->nchild; i++) {
			if (i > 0)
				(void)sc_buf_addch(out, ',', NULL);
			if (assemble(r, &ln->child[i], out, err) == -1)
				return -1;
		}
		(void)sc_buf_addch(out, ']', NULL);
		return 0;
	case SC_VALUE_ARRAY:
	case SC_VALUE_MAP:
		if (d < ln->def_ne) {
			(void)sc_buf_addstr(out, "[]", NULL);
			return skip_entries(r, ln, ln->def_ne, err);
		}
		(void)sc_buf_addch(out, '[', NULL);
		for (n = 0;; n++) {
			if (n > 0)
				(void)sc_buf_addch(out, ',', NULL);
			if (ln->type->kind == SC_VALUE_MAP) {
				(void)sc_buf_addch(out, '[', NULL);
				if (assemble(r, &ln->child[0], out, err) == -1)
					return -1;
				(void)sc_buf_addch(out, ',', NULL);
				if (assemble(r, &ln->child[1], out, err) == -1)
					return -1;
				(void)sc_buf_addch(out, ']', NULL);
			} else if (assemble(r, &ln->child[0], out, err) == -1)
				return -1;
			if (c->li >= c->nlev || c->rep[c->li] < ln->rep)
				break;
			if (c->rep[c->li] > ln->rep ||
			    c->def[c->li] < ln->def_ne)
				return broken(r, err);
		}
		(void)sc_buf_addch(out, ']', NULL);
		return 0;
	default:
		c->li++;
		if (d < r->s.leaf[ln->first_leaf].max_def) {
			(void)sc_buf_addstr(out, "null", NULL);
			return 0;
		}
		if (c->vi >= c->vals.n)
			return broken(r, err);
		p = sc_pq_vals_get(&c->vals, c->vi++, &n);
		return leaf_value(r, ln, p, n, out, err);
	}
}

static int
row_start(struct sc_parquet_reader *r, struct sc_error *err)
{
	size_t i;

	if (r->failed)
		return rfail(r, err, SC_ST_INTERNAL, "read after an error");
	if (r->row >= r->group_rows)
		return 0;
	for (i = 0; i < r->s.nleaves; i++)
		if (r->cols[i].li >= r->cols[i].nlev ||
		    r->cols[i].rep[r->cols[i].li] != 0)
			return broken(r, err);
	return 1;
}

int
sc_parquet_reader_row_values(struct sc_parquet_reader *r, struct sc_buf *out,
    struct sc_error *err)
{
	size_t i;
	int rc;

	if ((rc = row_start(r, err)) != 1)
		return rc;
	for (i = 0; i < r->s.root.nchild; i++)
		if (assemble(r, &r->s.root.child[i], &out[i], err) == -1)
			return -1;
	r->row++;
	return 1;
}

int
sc_parquet_reader_row(struct sc_parquet_reader *r, struct sc_buf *out,
    struct sc_error *err)
{
	size_t i;
	int rc;

	if ((rc = row_start(r, err)) != 1)
		return rc;
	(void)sc_buf_addch(out, '[', NULL);
	for (i = 0; i < r->s.root.nchild; i++) {
		if (i > 0)
			(void)sc_buf_addch(out, ',', NULL);
		if (assemble(r, &r->s.root.child[i], out, err) == -1)
			return -1;
	}
	(void)sc_buf_addch(out, ']', NULL);
	r->row++;
	return 1;
}
