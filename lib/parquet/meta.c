/* SPDX-License-Identifier: MIT */

/*
 * meta.c: parquet.thrift's footer and page header structs read from and
 * written in the compact protocol.  The field ids are parquet.thrift's;
 * a field of an unexpected type, or any field this file does not know,
 * is skipped, so newer writers' additions do no harm.
 */

#include "parquet/meta.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "parquet/thrift.h"
#include "core/banned.h"

/*
 * Structs are read by tables: a row per known field id says what kind
 * of value it is and where it goes (offsetof the struct being read).  A
 * field whose id no row names, or whose type is not its row's, is
 * skipped.  F_CALL rows hand the field to a function for what a table
 * cannot say (lists, unions, flags); it returns 1, 0 (skip) or -1.
 */
typedef int field_fn(struct sc_thrift_rd *r, int16_t id, int type, void *base);

enum fkind {
	F_I32, /* int32_t */
	F_ENUM, /* int */
	F_I64, /* int64_t */
	F_BOOL, /* bool */
	F_STR, /* char *, NUL-terminated, free() */
	F_BYTES, /* uint8_t * and its size_t length at flag */
	F_STRUCT, /* a nested struct, read by sub */
	F_CALL /* fn(r, id, type, the struct) */
};

struct fdesc {
	int16_t id; /* 0 ends a table */
	uint8_t kind;
	size_t off;
	size_t flag; /* a bool set once read (F_BYTES: the length) */
	const struct fdesc *sub;
	field_fn *fn;
};

#define NO_FLAG ((size_t)-1)
#define FIELD(id, kind, st, m)                                 \
	{                                                      \
		id, kind, offsetof(st, m), NO_FLAG, NULL, NULL \
	}
#define FLAGGED(id, kind, st, m, f)                                    \
	{                                                              \
		id, kind, offsetof(st, m), offsetof(st, f), NULL, NULL \
	}
#define NESTED(id, st, m, sub)                                    \
	{                                                         \
		id, F_STRUCT, offsetof(st, m), NO_FLAG, sub, NULL \
	}
#define CALL(id, fn)                             \
	{                                        \
		id, F_CALL, 0, NO_FLAG, NULL, fn \
	}
#define END                                  \
	{                                    \
		0, 0, 0, NO_FLAG, NULL, NULL \
	}

static int read_struct(struct sc_thrift_rd *r, const struct fdesc *d,
    void *base);

static bool
int_type(int type)
{
	return type == SC_THRIFT_I32 || type == SC_THRIFT_I16 ||
	    type == SC_THRIFT_BYTE;
}

/* One field by its row: 1, 0 (of another type: skip), -1. */
static int
read_field(struct sc_thrift_rd *r, const struct fdesc *f, int type, void *base)
{
	uint8_t *at = (uint8_t *)base + f->off, **bytes;
	const uint8_t *p;
	int32_t v;
	size_t n;

	switch (f->kind) {
	case F_I32:
	case F_ENUM:
		if (!int_type(type) || sc_thrift_int(r, type, &v) == -1)
			return int_type(type) ? -1 : 0;
		if (f->kind == F_I32)
			memcpy(at, &v, sizeof(v));
		else
			*(int *)(void *)at = v;
		return 1;
	case F_I64:
		if (type == SC_THRIFT_I64)
			return sc_thrift_i64(r, (int64_t *)(void *)at) == -1
			    ? -1
			    : 1;
		if (!int_type(type) || sc_thrift_int(r, type, &v) == -1)
			return int_type(type) ? -1 : 0;
		*(int64_t *)(void *)at = v;
		return 1;
	case F_BOOL:
		if (type != SC_THRIFT_TRUE && type != SC_THRIFT_FALSE)
			return 0;
		*(bool *)at = type == SC_THRIFT_TRUE;
		return 1;
	case F_STR:
		if (type != SC_THRIFT_BINARY)
			return 0;
		return sc_thrift_string(r, (char **)(void *)at) == -1 ? -1 : 1;
	case F_BYTES:
		if (type != SC_THRIFT_BINARY)
			return 0;
		if (sc_thrift_binary(r, &p, &n) == -1)
			return -1;
		bytes = (uint8_t **)(void *)at;
		free(*bytes);
		*bytes = sc_xmalloc(n + 1);
		memcpy(*bytes, p, n);
		*(size_t *)(void *)((uint8_t *)base + f->flag) = n;
		return 1;
	case F_STRUCT:
		if (type != SC_THRIFT_STRUCT)
			return 0;
		return read_struct(r, f->sub, at) == -1 ? -1 : 1;
	default:
		return f->fn(r, f->id, type, base);
	}
}

static int
read_struct(struct sc_thrift_rd *r, const struct fdesc *d, void *base)
{
	const struct fdesc *f;
	int16_t last = 0, id;
	int type, rc;

	if (sc_thrift_enter(r) == -1)
		return -1;
	for (;;) {
		if (sc_thrift_field(r, &last, &type, &id) == -1)
			return -1;
		if (type == SC_THRIFT_STOP)
			break;
		for (f = d; f->id != 0 && f->id != id; f++)
			;
		rc = f->id == 0 ? 0 : read_field(r, f, type, base);
		if (rc == 1 && f->flag != NO_FLAG && f->kind != F_BYTES)
			*(bool *)((uint8_t *)base + f->flag) = true;
		if (rc == -1 || (rc == 0 && sc_thrift_skip(r, type) == -1))
			return -1;
	}
	sc_thrift_leave(r);
	return 0;
}

/*
 * A list of structs read by d into a new zeroed array of size-byte
 * elements (*out, *n), after init (if not NULL) gave each its defaults;
 * a second copy of the field is skipped.
 */
static int
read_list(struct sc_thrift_rd *r, int type, const struct fdesc *d,
    void (*init)(void *), size_t size, void **out, uint32_t *n,
    const char *what)
{
	uint32_t i, cnt;
	uint8_t *e;
	int et;

	if (type != SC_THRIFT_LIST || *out != NULL)
		return 0;
	if (sc_thrift_list(r, &et, &cnt) == -1)
		return -1;
	if (et != SC_THRIFT_STRUCT)
		return sc_thrift_fail(r, what);
	*out = sc_xcalloc((size_t)cnt + 1, size);
	*n = cnt;
	for (i = 0; i < cnt; i++) {
		e = (uint8_t *)*out + (size_t)i * size;
		if (init != NULL)
			init(e);
		if (read_struct(r, d, e) == -1)
			return -1;
	}
	return 1;
}

void
sc_pq_stats_release(struct sc_pq_stats *st)
{
	free(st->min);
	free(st->max);
	free(st->old_min);
	free(st->old_max);
	memset(st, 0, sizeof(*st));
}

static const struct fdesc stats_fields[] = {
	FLAGGED(1, F_BYTES, struct sc_pq_stats, old_max, old_max_len),
	FLAGGED(2, F_BYTES, struct sc_pq_stats, old_min, old_min_len),
	FLAGGED(3, F_I64, struct sc_pq_stats, null_count, has_null_count),
	FLAGGED(5, F_BYTES, struct sc_pq_stats, max, max_len),
	FLAGGED(6, F_BYTES, struct sc_pq_stats, min, min_len),
	END,
};

/* TimeUnit, a union of empty structs: which one is set. */
static int
unit_member(struct sc_thrift_rd *r, int16_t id, int type, void *base)
{
	if (type != SC_THRIFT_STRUCT)
		return 0;
	*(int *)base = id;
	return sc_thrift_skip(r, type) == -1 ? -1 : 1;
}

static const struct fdesc unit_fields[] = {
	CALL(SC_PQ_MILLIS, unit_member),
	CALL(SC_PQ_MICROS, unit_member),
	CALL(SC_PQ_NANOS, unit_member),
	END,
};

/* DecimalType, TimeType/TimestampType and IntType share the struct. */
static const struct fdesc decimal_fields[] = {
	FIELD(1, F_I32, struct sc_pq_logical, scale),
	FIELD(2, F_I32, struct sc_pq_logical, precision),
	END,
};

static const struct fdesc time_fields[] = {
	FIELD(1, F_BOOL, struct sc_pq_logical, utc),
	NESTED(2, struct sc_pq_logical, unit, unit_fields),
	END,
};

static const struct fdesc int_fields[] = {
	FIELD(1, F_ENUM, struct sc_pq_logical, bit_width),
	FIELD(2, F_BOOL, struct sc_pq_logical, is_signed),
	END,
};

/* LogicalType: a union, the member's id naming the kind. */
static int
logical_member(struct sc_thrift_rd *r, int16_t id, int type, void *base)
{
	struct sc_pq_logical *lt = base;
	const struct fdesc *d;
	int rc;

	if (type != SC_THRIFT_STRUCT)
		return 0;
	switch (id) {
	case SC_PQ_LT_DECIMAL:
		d = decimal_fields;
		break;
	case SC_PQ_LT_TIME:
	case SC_PQ_LT_TIMESTAMP:
		d = time_fields;
		break;
	case SC_PQ_LT_INTEGER:
		d = int_fields;
		break;
	default:
		d = NULL;
		break;
	}
	rc = d ? read_struct(r, d, lt) : sc_thrift_skip(r, type);
	lt->kind = id;
	return rc == -1 ? -1 : 1;
}

static const struct fdesc logical_fields[] = {
	CALL(SC_PQ_LT_STRING, logical_member),
	CALL(SC_PQ_LT_MAP, logical_member),
	CALL(SC_PQ_LT_LIST, logical_member),
	CALL(SC_PQ_LT_ENUM, logical_member),
	CALL(SC_PQ_LT_DECIMAL, logical_member),
	CALL(SC_PQ_LT_DATE, logical_member),
	CALL(SC_PQ_LT_TIME, logical_member),
	CALL(SC_PQ_LT_TIMESTAMP, logical_member),
	CALL(SC_PQ_LT_INTEGER, logical_member),
	CALL(SC_PQ_LT_UNKNOWN, logical_member),
	CALL(SC_PQ_LT_JSON, logical_member),
	CALL(SC_PQ_LT_BSON, logical_member),
	CALL(SC_PQ_LT_UUID, logical_member),
	CALL(SC_PQ_LT_FLOAT16, logical_member),
	END,
};

static const struct fdesc schema_fields[] = {
	FIELD(1, F_ENUM, struct sc_pq_schema_el, type),
	FIELD(2, F_I32, struct sc_pq_schema_el, type_length),
	FIELD(3, F_ENUM, struct sc_pq_schema_el, repetition),
	FIELD(4, F_STR, struct sc_pq_schema_el, name),
	FIELD(5, F_I32, struct sc_pq_schema_el, num_children),
	FIELD(6, F_ENUM, struct sc_pq_schema_el, converted),
	FIELD(7, F_I32, struct sc_pq_schema_el, scale),
	FIELD(8, F_I32, struct sc_pq_schema_el, precision),
	FIELD(9, F_I32, struct sc_pq_schema_el, field_id),
	NESTED(10, struct sc_pq_schema_el, logical, logical_fields),
	END,
};

/* A schema element's defaults, before its fields are read. */
static void
schema_el_init(void *arg)
{
	struct sc_pq_schema_el *el = arg;

	el->type = -1;
	el->repetition = -1;
	el->converted = -1;
	el->scale = el->precision = el->field_id = -1;
}

/* ColumnMetaData's encodings (2: i32) and path (3: strings). */
static int
colmeta_list(struct sc_thrift_rd *r, int16_t id, int type, void *base)
{
	struct sc_pq_colmeta *m = base;
	int want = id == 2 ? SC_THRIFT_I32 : SC_THRIFT_BINARY, et, rc = 0;
	uint32_t i, cnt;

	if (type != SC_THRIFT_LIST ||
	    (id == 2 ? (void *)m->encodings : (void *)m->path) != NULL)
		return 0;
	if (sc_thrift_list(r, &et, &cnt) == -1)
		return -1;
	if (et != want)
		return sc_thrift_fail(r,
		    "list of encodings or names of another type");
	if (id == 2) {
		m->encodings =
		    sc_xcalloc((size_t)cnt + 1, sizeof(*m->encodings));
		m->nencodings = cnt;
	} else {
		m->path = sc_xcalloc((size_t)cnt + 1, sizeof(*m->path));
		m->npath = cnt;
	}
	for (i = 0; i < cnt && rc == 0; i++)
		rc = id == 2 ? sc_thrift_int(r, et, &m->encodings[i])
			     : sc_thrift_string(r, &m->path[i]);
	return rc == -1 ? -1 : 1;
}

static const struct fdesc colmeta_fields[] = {
	FIELD(1, F_ENUM, struct sc_pq_colmeta, type),
	CALL(2, colmeta_list),
	CALL(3, colmeta_list),
	FIELD(4, F_ENUM, struct sc_pq_colmeta, codec),
	FIELD(5, F_I64, struct sc_pq_colmeta, num_values),
	FIELD(6, F_I64, struct sc_pq_colmeta, total_uncompressed),
	FIELD(7, F_I64, struct sc_pq_colmeta, total_compressed),
	FIELD(9, F_I64, struct sc_pq_colmeta, data_page_offset),
	FIELD(11, F_I64, struct sc_pq_colmeta, dictionary_page_offset),
	NESTED(12, struct sc_pq_colmeta, stats, stats_fields),
	END,
};

/* ColumnChunk's metadata: once, with its defaults. */
static int
colmeta_field(struct sc_thrift_rd *r, int16_t id, int type, void *base)
{
	struct sc_pq_colchunk *c = base;

	(void)id;
	if (type != SC_THRIFT_STRUCT || c->has_meta)
		return 0;
	c->has_meta = true;
	c->meta.type = c->meta.codec = -1;
	c->meta.dictionary_page_offset = c->meta.data_page_offset = -1;
	return read_struct(r, colmeta_fields, &c->meta) == -1 ? -1 : 1;
}

static const struct fdesc colchunk_fields[] = {
	FIELD(1, F_STR, struct sc_pq_colchunk, file_path),
	FIELD(2, F_I64, struct sc_pq_colchunk, file_offset),
	CALL(3, colmeta_field),
	END,
};

static int
columns_field(struct sc_thrift_rd *r, int16_t id, int type, void *base)
{
	struct sc_pq_rowgroup *g = base;

	(void)id;
	return read_list(r, type, colchunk_fields, NULL, sizeof(*g->cols),
	    (void **)&g->cols, &g->ncols, "columns of another type");
}

static const struct fdesc rowgroup_fields[] = {
	CALL(1, columns_field),
	FIELD(2, F_I64, struct sc_pq_rowgroup, total_byte_size),
	FIELD(3, F_I64, struct sc_pq_rowgroup, num_rows),
	END,
};

static const struct fdesc kv_fields[] = {
	FIELD(1, F_STR, struct sc_pq_kv, key),
	FIELD(2, F_STR, struct sc_pq_kv, value),
	END,
};

/* FileMetaData's lists, column orders (counted) and encryption. */
static int
filemeta_list(struct sc_thrift_rd *r, int16_t id, int type, void *base)
{
	struct sc_pq_filemeta *fm = base;
	uint32_t i, n;
	int et;

	switch (id) {
	case 2:
		return read_list(r, type, schema_fields, schema_el_init,
		    sizeof(*fm->schema), (void **)&fm->schema, &fm->nschema,
		    "schema of another type");
	case 4:
		return read_list(r, type, rowgroup_fields, NULL,
		    sizeof(*fm->rowgroups), (void **)&fm->rowgroups,
		    &fm->nrowgroups, "row groups of another type");
	case 5:
		return read_list(r, type, kv_fields, NULL, sizeof(*fm->kv),
		    (void **)&fm->kv, &fm->nkv,
		    "key-value metadata of another type");
	case 7:
		if (type != SC_THRIFT_LIST)
			return 0;
		if (sc_thrift_list(r, &et, &n) == -1)
			return -1;
		fm->ncolumn_orders = n;
		for (i = 0; i < n; i++)
			if (sc_thrift_skip(r, et) == -1)
				return -1;
		return 1;
	default: /* 8: an encryption algorithm, skipped */
		fm->encrypted = true;
		return 0;
	}
}

static const struct fdesc filemeta_fields[] = {
	FIELD(1, F_I32, struct sc_pq_filemeta, version),
	CALL(2, filemeta_list),
	FIELD(3, F_I64, struct sc_pq_filemeta, num_rows),
	CALL(4, filemeta_list),
	CALL(5, filemeta_list),
	FIELD(6, F_STR, struct sc_pq_filemeta, created_by),
	CALL(7, filemeta_list),
	CALL(8, filemeta_list),
	END,
};

int
sc_pq_filemeta_read(struct sc_thrift_rd *r, struct sc_pq_filemeta *fm)
{
	uint32_t i;

	memset(fm, 0, sizeof(*fm));
	fm->num_rows = -1;
	if (read_struct(r, filemeta_fields, fm) == -1)
		return -1;
	if (fm->schema == NULL || fm->nschema == 0)
		return sc_thrift_fail(r, "no schema");
	for (i = 0; i < fm->nschema; i++)
		if (fm->schema[i].name == NULL)
			return sc_thrift_fail(r,
			    "schema element without a name");
	for (i = 0; i < fm->nkv; i++)
		if (fm->kv[i].key == NULL)
			return sc_thrift_fail(r,
			    "key-value pair without a key");
	if (fm->num_rows < 0)
		return sc_thrift_fail(r, "no row count");
	return 0;
}

void
sc_pq_filemeta_release(struct sc_pq_filemeta *fm)
{
	uint32_t i, j, k;

	for (i = 0; i < fm->nschema && fm->schema; i++)
		free(fm->schema[i].name);
	free(fm->schema);
	for (i = 0; i < fm->nrowgroups && fm->rowgroups; i++) {
		struct sc_pq_rowgroup *g = &fm->rowgroups[i];

		for (j = 0; j < g->ncols && g->cols; j++) {
			struct sc_pq_colmeta *m = &g->cols[j].meta;

			free(g->cols[j].file_path);
			free(m->encodings);
			for (k = 0; k < m->npath && m->path; k++)
				free(m->path[k]);
			free(m->path);
			sc_pq_stats_release(&m->stats);
		}
		free(g->cols);
	}
	free(fm->rowgroups);
	for (i = 0; i < fm->nkv && fm->kv; i++) {
		free(fm->kv[i].key);
		free(fm->kv[i].value);
	}
	free(fm->kv);
	free(fm->created_by);
	memset(fm, 0, sizeof(*fm));
}

static const struct fdesc data_v1_fields[] = {
	FIELD(1, F_I32, struct sc_pq_pagehdr, num_values),
	FIELD(2, F_ENUM, struct sc_pq_pagehdr, encoding),
	FIELD(3, F_ENUM, struct sc_pq_pagehdr, def_encoding),
	FIELD(4, F_ENUM, struct sc_pq_pagehdr, rep_encoding),
	NESTED(5, struct sc_pq_pagehdr, stats, stats_fields),
	END,
};

static const struct fdesc dict_fields[] = {
	FIELD(1, F_I32, struct sc_pq_pagehdr, num_values),
	FIELD(2, F_ENUM, struct sc_pq_pagehdr, encoding),
	FIELD(3, F_BOOL, struct sc_pq_pagehdr, is_sorted),
	END,
};

static const struct fdesc data_v2_fields[] = {
	FIELD(1, F_I32, struct sc_pq_pagehdr, num_values),
	FIELD(2, F_I32, struct sc_pq_pagehdr, num_nulls),
	FIELD(3, F_I32, struct sc_pq_pagehdr, num_rows),
	FIELD(4, F_ENUM, struct sc_pq_pagehdr, encoding),
	FIELD(5, F_I32, struct sc_pq_pagehdr, def_len),
	FIELD(6, F_I32, struct sc_pq_pagehdr, rep_len),
	FIELD(7, F_BOOL, struct sc_pq_pagehdr, is_compressed),
	NESTED(8, struct sc_pq_pagehdr, stats, stats_fields),
	END,
};

/* The header of the page's own kind, once; another kind's is skipped. */
static int
subheader_field(struct sc_thrift_rd *r, int16_t id, int type, void *base)
{
	struct sc_pq_pagehdr *ph = base;
	const struct fdesc *d;
	int kind;

	switch (id) {
	case 5:
		kind = SC_PQ_DATA_PAGE;
		d = data_v1_fields;
		break;
	case 7:
		kind = SC_PQ_DICTIONARY_PAGE;
		d = dict_fields;
		break;
	default:
		kind = SC_PQ_DATA_PAGE_V2;
		d = data_v2_fields;
		break;
	}
	if (type != SC_THRIFT_STRUCT || ph->has_header ||
	    (ph->type != kind && ph->type != -1))
		return 0;
	ph->has_header = true;
	return read_struct(r, d, ph) == -1 ? -1 : 1;
}

static const struct fdesc pagehdr_fields[] = {
	FIELD(1, F_ENUM, struct sc_pq_pagehdr, type),
	FIELD(2, F_I32, struct sc_pq_pagehdr, uncompressed_size),
	FIELD(3, F_I32, struct sc_pq_pagehdr, compressed_size),
	FLAGGED(4, F_I32, struct sc_pq_pagehdr, crc, has_crc),
	CALL(5, subheader_field),
	CALL(7, subheader_field),
	CALL(8, subheader_field),
	END,
};

int
sc_pq_pagehdr_read(struct sc_thrift_rd *r, struct sc_pq_pagehdr *ph)
{
	memset(ph, 0, sizeof(*ph));
	ph->type = -1;
	ph->uncompressed_size = ph->compressed_size = -1;
	ph->is_compressed = true;
	if (read_struct(r, pagehdr_fields, ph) == -1)
		return -1;
	if (ph->type < 0 || ph->uncompressed_size < 0 ||
	    ph->compressed_size < 0)
		return sc_thrift_fail(r, "page header without type or sizes");
	return 0;
}

void
sc_pq_pagehdr_release(struct sc_pq_pagehdr *ph)
{
	sc_pq_stats_release(&ph->stats);
}

/* --- writing ------------------------------------------------------- */

static void
write_stats(struct sc_buf *b, int16_t *outer, int16_t id,
    const struct sc_pq_stats *st)
{
	int16_t last = 0;

	sc_thrift_w_field(b, outer, SC_THRIFT_STRUCT, id);
	if (st->has_null_count)
		sc_thrift_w_i64(b, &last, 3, st->null_count);
	if (st->max != NULL)
		sc_thrift_w_binary(b, &last, 5, st->max, st->max_len);
	if (st->min != NULL)
		sc_thrift_w_binary(b, &last, 6, st->min, st->min_len);
	sc_thrift_w_stop(b);
}

static void
write_empty(struct sc_buf *b, int16_t *outer, int16_t id)
{
	sc_thrift_w_field(b, outer, SC_THRIFT_STRUCT, id);
	sc_thrift_w_stop(b);
}

static void
write_logical(struct sc_buf *b, int16_t *outer, const struct sc_pq_logical *lt)
{
	int16_t last = 0, inner = 0;

	sc_thrift_w_field(b, outer, SC_THRIFT_STRUCT, 10);
	switch (lt->kind) {
	case SC_PQ_LT_DECIMAL:
		sc_thrift_w_field(b, &last, SC_THRIFT_STRUCT, SC_PQ_LT_DECIMAL);
		sc_thrift_w_i32(b, &inner, 1, lt->scale);
		sc_thrift_w_i32(b, &inner, 2, lt->precision);
		sc_thrift_w_stop(b);
		break;
	case SC_PQ_LT_TIME:
	case SC_PQ_LT_TIMESTAMP:
		sc_thrift_w_field(b, &last, SC_THRIFT_STRUCT,
		    (int16_t)lt->kind);
		sc_thrift_w_bool(b, &inner, 1, lt->utc);
		sc_thrift_w_field(b, &inner, SC_THRIFT_STRUCT, 2);
		{
			int16_t u = 0;

			write_empty(b, &u, (int16_t)lt->unit);
			sc_thrift_w_stop(b);
		}
		sc_thrift_w_stop(b);
		break;
	case SC_PQ_LT_INTEGER:
		sc_thrift_w_field(b, &last, SC_THRIFT_STRUCT, SC_PQ_LT_INTEGER);
		sc_thrift_w_field(b, &inner, SC_THRIFT_BYTE, 1);
		(void)sc_buf_addch(b, lt->bit_width, NULL);
		sc_thrift_w_bool(b, &inner, 2, lt->is_signed);
		sc_thrift_w_stop(b);
		break;
	default:
		write_empty(b, &last, (int16_t)lt->kind);
		break;
	}
	sc_thrift_w_stop(b);
}

static void
write_schema_el(struct sc_buf *b, const struct sc_pq_schema_el *el)
{
	int16_t last = 0;

	if (el->type >= 0)
		sc_thrift_w_i32(b, &last, 1, el->type);
	if (el->type == SC_PQ_FIXED)
		sc_thrift_w_i32(b, &last, 2, el->type_length);
	if (el->repetition >= 0)
		sc_thrift_w_i32(b, &last, 3, el->repetition);
	sc_thrift_w_binary(b, &last, 4, el->name, strlen(el->name));
	if (el->type < 0)
		sc_thrift_w_i32(b, &last, 5, el->num_children);
	if (el->converted >= 0)
		sc_thrift_w_i32(b, &last, 6, el->converted);
	if (el->scale >= 0)
		sc_thrift_w_i32(b, &last, 7, el->scale);
	if (el->precision >= 0)
		sc_thrift_w_i32(b, &last, 8, el->precision);
	if (el->field_id >= 0)
		sc_thrift_w_i32(b, &last, 9, el->field_id);
	if (el->logical.kind != SC_PQ_LT_NONE)
		write_logical(b, &last, &el->logical);
	sc_thrift_w_stop(b);
}

static void
write_colmeta(struct sc_buf *b, int16_t *outer, const struct sc_pq_colmeta *m)
{
	int16_t last = 0;
	uint32_t i;

	sc_thrift_w_field(b, outer, SC_THRIFT_STRUCT, 3);
	sc_thrift_w_i32(b, &last, 1, m->type);
	sc_thrift_w_list(b, &last, 2, SC_THRIFT_I32, m->nencodings);
	for (i = 0; i < m->nencodings; i++)
		sc_thrift_w_zigzag(b, m->encodings[i]);
	sc_thrift_w_list(b, &last, 3, SC_THRIFT_BINARY, m->npath);
	for (i = 0; i < m->npath; i++) {
		sc_thrift_w_varint(b, strlen(m->path[i]));
		(void)sc_buf_addstr(b, m->path[i], NULL);
	}
	sc_thrift_w_i32(b, &last, 4, m->codec);
	sc_thrift_w_i64(b, &last, 5, m->num_values);
	sc_thrift_w_i64(b, &last, 6, m->total_uncompressed);
	sc_thrift_w_i64(b, &last, 7, m->total_compressed);
	sc_thrift_w_i64(b, &last, 9, m->data_page_offset);
	if (m->dictionary_page_offset >= 0)
		sc_thrift_w_i64(b, &last, 11, m->dictionary_page_offset);
	write_stats(b, &last, 12, &m->stats);
	sc_thrift_w_stop(b);
}

void
sc_pq_filemeta_write(struct sc_buf *b, const struct sc_pq_filemeta *fm)
{
	int16_t last = 0, gl, cl, kl;
	uint32_t i, j;

	sc_thrift_w_i32(b, &last, 1, fm->version);
	sc_thrift_w_list(b, &last, 2, SC_THRIFT_STRUCT, fm->nschema);
	for (i = 0; i < fm->nschema; i++)
		write_schema_el(b, &fm->schema[i]);
	sc_thrift_w_i64(b, &last, 3, fm->num_rows);
	sc_thrift_w_list(b, &last, 4, SC_THRIFT_STRUCT, fm->nrowgroups);
	for (i = 0; i < fm->nrowgroups; i++) {
		const struct sc_pq_rowgroup *g = &fm->rowgroups[i];

		gl = 0;
		sc_thrift_w_list(b, &gl, 1, SC_THRIFT_STRUCT, g->ncols);
		for (j = 0; j < g->ncols; j++) {
			cl = 0;
			if (g->cols[j].file_path != NULL)
				sc_thrift_w_binary(b, &cl, 1,
				    g->cols[j].file_path,
				    strlen(g->cols[j].file_path));
			sc_thrift_w_i64(b, &cl, 2, g->cols[j].file_offset);
			if (g->cols[j].has_meta)
				write_colmeta(b, &cl, &g->cols[j].meta);
			sc_thrift_w_stop(b);
		}
		sc_thrift_w_i64(b, &gl, 2, g->total_byte_size);
		sc_thrift_w_i64(b, &gl, 3, g->num_rows);
		sc_thrift_w_stop(b);
	}
	if (fm->nkv > 0) {
		sc_thrift_w_list(b, &last, 5, SC_THRIFT_STRUCT, fm->nkv);
		for (i = 0; i < fm->nkv; i++) {
			kl = 0;
			sc_thrift_w_binary(b, &kl, 1, fm->kv[i].key,
			    strlen(fm->kv[i].key));
			if (fm->kv[i].value != NULL)
				sc_thrift_w_binary(b, &kl, 2, fm->kv[i].value,
				    strlen(fm->kv[i].value));
			sc_thrift_w_stop(b);
		}
	}
	if (fm->created_by != NULL)
		sc_thrift_w_binary(b, &last, 6, fm->created_by,
		    strlen(fm->created_by));
	if (fm->ncolumn_orders > 0) {
		sc_thrift_w_list(b, &last, 7, SC_THRIFT_STRUCT,
		    fm->ncolumn_orders);
		for (i = 0; i < fm->ncolumn_orders; i++) {
			kl = 0;
			write_empty(b, &kl, 1); /* TYPE_ORDER */
			sc_thrift_w_stop(b);
		}
	}
	sc_thrift_w_stop(b);
}

void
sc_pq_pagehdr_write(struct sc_buf *b, const struct sc_pq_pagehdr *ph)
{
	int16_t last = 0, in = 0;

	sc_thrift_w_i32(b, &last, 1, ph->type);
	sc_thrift_w_i32(b, &last, 2, ph->uncompressed_size);
	sc_thrift_w_i32(b, &last, 3, ph->compressed_size);
	if (ph->has_crc)
		sc_thrift_w_i32(b, &last, 4, ph->crc);
	switch (ph->type) {
	case SC_PQ_DATA_PAGE:
		sc_thrift_w_field(b, &last, SC_THRIFT_STRUCT, 5);
		sc_thrift_w_i32(b, &in, 1, ph->num_values);
		sc_thrift_w_i32(b, &in, 2, ph->encoding);
		sc_thrift_w_i32(b, &in, 3, ph->def_encoding);
		sc_thrift_w_i32(b, &in, 4, ph->rep_encoding);
		write_stats(b, &in, 5, &ph->stats);
		sc_thrift_w_stop(b);
		break;
	case SC_PQ_DICTIONARY_PAGE:
		sc_thrift_w_field(b, &last, SC_THRIFT_STRUCT, 7);
		sc_thrift_w_i32(b, &in, 1, ph->num_values);
		sc_thrift_w_i32(b, &in, 2, ph->encoding);
		sc_thrift_w_bool(b, &in, 3, ph->is_sorted);
		sc_thrift_w_stop(b);
		break;
	case SC_PQ_DATA_PAGE_V2:
		sc_thrift_w_field(b, &last, SC_THRIFT_STRUCT, 8);
		sc_thrift_w_i32(b, &in, 1, ph->num_values);
		sc_thrift_w_i32(b, &in, 2, ph->num_nulls);
		sc_thrift_w_i32(b, &in, 3, ph->num_rows);
		sc_thrift_w_i32(b, &in, 4, ph->encoding);
		sc_thrift_w_i32(b, &in, 5, ph->def_len);
		sc_thrift_w_i32(b, &in, 6, ph->rep_len);
		sc_thrift_w_bool(b, &in, 7, ph->is_compressed);
		write_stats(b, &in, 8, &ph->stats);
		sc_thrift_w_stop(b);
		break;
	}
	sc_thrift_w_stop(b);
}

const char *
sc_pq_codec_name(int codec)
{
	static const char *const names[] = { "UNCOMPRESSED", "SNAPPY", "GZIP",
		"LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW" };

	return codec >= 0 && codec < (int)SC_NELEM(names) ? names[codec]
							  : "unknown";
}

const char *
sc_pq_encoding_name(int enc)
{
	static const char *const names[] = { "PLAIN", "GROUP_VAR_INT",
		"PLAIN_DICTIONARY", "RLE", "BIT_PACKED", "DELTA_BINARY_PACKED",
		"DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "RLE_DICTIONARY",
		"BYTE_STREAM_SPLIT" };

	return enc >= 0 && enc < (int)SC_NELEM(names) ? names[enc] : "unknown";
}

const char *
sc_pq_type_name(int type)
{
	static const char *const names[] = { "BOOLEAN", "INT32", "INT64",
		"INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY",
		"FIXED_LEN_BYTE_ARRAY" };

	return type >= 0 && type < (int)SC_NELEM(names) ? names[type]
							: "unknown";
}
