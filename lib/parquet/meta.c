/* SPDX-License-Identifier: MIT */

/*
 * meta.c: parquet.thrift's footer and page header structs read from and
 * written in the compact protocol.  The field ids are parquet.thrift's;
 * a field of an unexpected type, or any field this file does not know,
 * is skipped, so newer writers' additions do no harm.
 */

#include "parquet/meta.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "parquet/thrift.h"
#include "core/banned.h"

/*
 * Loop over a struct's fields: FIELDS_BEGIN(r) declares last/type/id and
 * enters the struct; each case handles an id; FIELDS_END skips the rest.
 */
#define FIELDS_BEGIN(r)                                           \
	do {                                                      \
		int16_t last_ = 0, id;                            \
		int type;                                         \
		if (sc_thrift_enter(r) == -1)                     \
			return -1;                                \
		for (;;) {                                        \
			if (sc_thrift_field(r, &last_, &type, &id) == -1) \
				return -1;                        \
			if (type == SC_THRIFT_STOP)               \
				break;                            \
			switch (id) {
#define FIELDS_END(r)                                             \
			default:                                  \
			skip:                                     \
				if (sc_thrift_skip(r, type) == -1) \
					return -1;                \
			}                                         \
		}                                                 \
		sc_thrift_leave(r);                               \
	} while (0)
/* Read an integer field of its declared kind, or skip a mistyped one. */
#define INT_FIELD(r, dst)                                                \
	do {                                                             \
		int32_t v_;                                              \
		if (type != SC_THRIFT_I32 && type != SC_THRIFT_I16 &&    \
		    type != SC_THRIFT_BYTE)                              \
			goto skip;                                       \
		if (sc_thrift_int(r, type, &v_) == -1)                   \
			return -1;                                       \
		(dst) = v_;                                              \
	} while (0)
#define I64_FIELD(r, dst)                                                 \
	do {                                                              \
		if (type == SC_THRIFT_I32 || type == SC_THRIFT_I16) {     \
			int32_t v_;                                       \
			if (sc_thrift_int(r, type, &v_) == -1)            \
				return -1;                                \
			(dst) = v_;                                       \
		} else if (type == SC_THRIFT_I64) {                       \
			if (sc_thrift_i64(r, &(dst)) == -1)               \
				return -1;                                \
		} else                                                    \
			goto skip;                                        \
	} while (0)
#define BOOL_FIELD(r, dst)                                    \
	do {                                                  \
		if (type != SC_THRIFT_TRUE && type != SC_THRIFT_FALSE) \
			goto skip;                            \
		(dst) = type == SC_THRIFT_TRUE;               \
	} while (0)
#define STR_FIELD(r, dst)                                     \
	do {                                                  \
		if (type != SC_THRIFT_BINARY)                 \
			goto skip;                            \
		if (sc_thrift_string(r, &(dst)) == -1)        \
			return -1;                            \
	} while (0)
#define STRUCT_FIELD(r, call)                     \
	do {                                      \
		if (type != SC_THRIFT_STRUCT)     \
			goto skip;                \
		if ((call) == -1)                 \
			return -1;                \
	} while (0)

static int
read_bytes(struct sc_thrift_rd *r, uint8_t **dst, size_t *len)
{
	const uint8_t *p;
	size_t n;

	if (sc_thrift_binary(r, &p, &n) == -1)
		return -1;
	free(*dst);
	*dst = sc_xmalloc(n + 1);
	memcpy(*dst, p, n);
	*len = n;
	return 0;
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

static int
read_stats(struct sc_thrift_rd *r, struct sc_pq_stats *st)
{
	/* The legacy fields count only when the new ones are absent. */
	FIELDS_BEGIN(r)
	case 1:
		if (type != SC_THRIFT_BINARY)
			goto skip;
		if (read_bytes(r, &st->old_max, &st->old_max_len) == -1)
			return -1;
		break;
	case 2:
		if (type != SC_THRIFT_BINARY)
			goto skip;
		if (read_bytes(r, &st->old_min, &st->old_min_len) == -1)
			return -1;
		break;
	case 3:
		I64_FIELD(r, st->null_count);
		st->has_null_count = true;
		break;
	case 5:
		if (type != SC_THRIFT_BINARY)
			goto skip;
		if (read_bytes(r, &st->max, &st->max_len) == -1)
			return -1;
		break;
	case 6:
		if (type != SC_THRIFT_BINARY)
			goto skip;
		if (read_bytes(r, &st->min, &st->min_len) == -1)
			return -1;
		break;
	FIELDS_END(r);
	return 0;
}

static int
read_unit(struct sc_thrift_rd *r, int *unit)
{
	FIELDS_BEGIN(r)
	case 1:
	case 2:
	case 3:
		if (type != SC_THRIFT_STRUCT)
			goto skip;
		*unit = id;
		if (sc_thrift_skip(r, type) == -1)
			return -1;
		break;
	FIELDS_END(r);
	return 0;
}

static int
read_decimal(struct sc_thrift_rd *r, struct sc_pq_logical *lt)
{
	FIELDS_BEGIN(r)
	case 1:
		INT_FIELD(r, lt->scale);
		break;
	case 2:
		INT_FIELD(r, lt->precision);
		break;
	FIELDS_END(r);
	return 0;
}

static int
read_time(struct sc_thrift_rd *r, struct sc_pq_logical *lt)
{
	FIELDS_BEGIN(r)
	case 1:
		BOOL_FIELD(r, lt->utc);
		break;
	case 2:
		STRUCT_FIELD(r, read_unit(r, &lt->unit));
		break;
	FIELDS_END(r);
	return 0;
}

static int
read_int(struct sc_thrift_rd *r, struct sc_pq_logical *lt)
{
	FIELDS_BEGIN(r)
	case 1:
		INT_FIELD(r, lt->bit_width);
		break;
	case 2:
		BOOL_FIELD(r, lt->is_signed);
		break;
	FIELDS_END(r);
	return 0;
}

static int
read_logical(struct sc_thrift_rd *r, struct sc_pq_logical *lt)
{
	FIELDS_BEGIN(r)
	case SC_PQ_LT_DECIMAL:
		STRUCT_FIELD(r, read_decimal(r, lt));
		lt->kind = id;
		break;
	case SC_PQ_LT_TIME:
	case SC_PQ_LT_TIMESTAMP:
		STRUCT_FIELD(r, read_time(r, lt));
		lt->kind = id;
		break;
	case SC_PQ_LT_INTEGER:
		STRUCT_FIELD(r, read_int(r, lt));
		lt->kind = id;
		break;
	case SC_PQ_LT_STRING:
	case SC_PQ_LT_MAP:
	case SC_PQ_LT_LIST:
	case SC_PQ_LT_ENUM:
	case SC_PQ_LT_DATE:
	case SC_PQ_LT_UNKNOWN:
	case SC_PQ_LT_JSON:
	case SC_PQ_LT_BSON:
	case SC_PQ_LT_UUID:
	case SC_PQ_LT_FLOAT16:
		STRUCT_FIELD(r, sc_thrift_skip(r, type));
		lt->kind = id;
		break;
	FIELDS_END(r);
	return 0;
}

static int
read_schema_el(struct sc_thrift_rd *r, struct sc_pq_schema_el *el)
{
	el->type = -1;
	el->repetition = -1;
	el->converted = -1;
	el->scale = el->precision = el->field_id = -1;
	FIELDS_BEGIN(r)
	case 1:
		INT_FIELD(r, el->type);
		break;
	case 2:
		INT_FIELD(r, el->type_length);
		break;
	case 3:
		INT_FIELD(r, el->repetition);
		break;
	case 4:
		STR_FIELD(r, el->name);
		break;
	case 5:
		INT_FIELD(r, el->num_children);
		break;
	case 6:
		INT_FIELD(r, el->converted);
		break;
	case 7:
		INT_FIELD(r, el->scale);
		break;
	case 8:
		INT_FIELD(r, el->precision);
		break;
	case 9:
		INT_FIELD(r, el->field_id);
		break;
	case 10:
		STRUCT_FIELD(r, read_logical(r, &el->logical));
		break;
	FIELDS_END(r);
	if (el->name == NULL)
		return sc_thrift_fail(r, "schema element without a name");
	return 0;
}

/* A list of i32 (encodings) or strings (a path). */
static int
read_i32_list(struct sc_thrift_rd *r, int32_t **out, uint32_t *n)
{
	uint32_t i, cnt;
	int et;

	if (sc_thrift_list(r, &et, &cnt) == -1)
		return -1;
	if (et != SC_THRIFT_I32)
		return sc_thrift_fail(r, "list of encodings of another type");
	free(*out);
	*out = sc_xcalloc(cnt + 1, sizeof(**out));
	*n = cnt;
	for (i = 0; i < cnt; i++)
		if (sc_thrift_int(r, et, &(*out)[i]) == -1)
			return -1;
	return 0;
}

static int
read_str_list(struct sc_thrift_rd *r, char ***out, uint32_t *n)
{
	uint32_t i, cnt;
	int et;

	if (sc_thrift_list(r, &et, &cnt) == -1)
		return -1;
	if (et != SC_THRIFT_BINARY)
		return sc_thrift_fail(r, "list of names of another type");
	*out = sc_xcalloc(cnt + 1, sizeof(**out));
	*n = cnt;
	for (i = 0; i < cnt; i++)
		if (sc_thrift_string(r, &(*out)[i]) == -1)
			return -1;
	return 0;
}

static int
read_colmeta(struct sc_thrift_rd *r, struct sc_pq_colmeta *m)
{
	m->type = -1;
	m->codec = -1;
	m->dictionary_page_offset = -1;
	m->data_page_offset = -1;
	FIELDS_BEGIN(r)
	case 1:
		INT_FIELD(r, m->type);
		break;
	case 2:
		if (type != SC_THRIFT_LIST || m->encodings != NULL)
			goto skip;
		if (read_i32_list(r, &m->encodings, &m->nencodings) == -1)
			return -1;
		break;
	case 3:
		if (type != SC_THRIFT_LIST || m->path != NULL)
			goto skip;
		if (read_str_list(r, &m->path, &m->npath) == -1)
			return -1;
		break;
	case 4:
		INT_FIELD(r, m->codec);
		break;
	case 5:
		I64_FIELD(r, m->num_values);
		break;
	case 6:
		I64_FIELD(r, m->total_uncompressed);
		break;
	case 7:
		I64_FIELD(r, m->total_compressed);
		break;
	case 9:
		I64_FIELD(r, m->data_page_offset);
		break;
	case 11:
		I64_FIELD(r, m->dictionary_page_offset);
		break;
	case 12:
		STRUCT_FIELD(r, read_stats(r, &m->stats));
		break;
	FIELDS_END(r);
	return 0;
}

static int
read_colchunk(struct sc_thrift_rd *r, struct sc_pq_colchunk *c)
{
	FIELDS_BEGIN(r)
	case 1:
		STR_FIELD(r, c->file_path);
		break;
	case 2:
		I64_FIELD(r, c->file_offset);
		break;
	case 3:
		if (type != SC_THRIFT_STRUCT || c->has_meta)
			goto skip;
		c->has_meta = true;
		if (read_colmeta(r, &c->meta) == -1)
			return -1;
		break;
	FIELDS_END(r);
	return 0;
}

static int
read_rowgroup(struct sc_thrift_rd *r, struct sc_pq_rowgroup *g)
{
	uint32_t i, n;
	int et;

	FIELDS_BEGIN(r)
	case 1:
		if (type != SC_THRIFT_LIST || g->cols != NULL)
			goto skip;
		if (sc_thrift_list(r, &et, &n) == -1)
			return -1;
		if (et != SC_THRIFT_STRUCT)
			return sc_thrift_fail(r, "columns of another type");
		g->cols = sc_xcalloc(n + 1, sizeof(*g->cols));
		g->ncols = n;
		for (i = 0; i < n; i++)
			if (read_colchunk(r, &g->cols[i]) == -1)
				return -1;
		break;
	case 2:
		I64_FIELD(r, g->total_byte_size);
		break;
	case 3:
		I64_FIELD(r, g->num_rows);
		break;
	FIELDS_END(r);
	return 0;
}

static int
read_kv(struct sc_thrift_rd *r, struct sc_pq_kv *kv)
{
	FIELDS_BEGIN(r)
	case 1:
		STR_FIELD(r, kv->key);
		break;
	case 2:
		STR_FIELD(r, kv->value);
		break;
	FIELDS_END(r);
	if (kv->key == NULL)
		return sc_thrift_fail(r, "key-value pair without a key");
	return 0;
}

int
sc_pq_filemeta_read(struct sc_thrift_rd *r, struct sc_pq_filemeta *fm)
{
	uint32_t i, n;
	int et;

	memset(fm, 0, sizeof(*fm));
	fm->num_rows = -1;
	FIELDS_BEGIN(r)
	case 1:
		INT_FIELD(r, fm->version);
		break;
	case 2:
		if (type != SC_THRIFT_LIST || fm->schema != NULL)
			goto skip;
		if (sc_thrift_list(r, &et, &n) == -1)
			return -1;
		if (et != SC_THRIFT_STRUCT)
			return sc_thrift_fail(r, "schema of another type");
		fm->schema = sc_xcalloc(n + 1, sizeof(*fm->schema));
		fm->nschema = n;
		for (i = 0; i < n; i++)
			if (read_schema_el(r, &fm->schema[i]) == -1)
				return -1;
		break;
	case 3:
		I64_FIELD(r, fm->num_rows);
		break;
	case 4:
		if (type != SC_THRIFT_LIST || fm->rowgroups != NULL)
			goto skip;
		if (sc_thrift_list(r, &et, &n) == -1)
			return -1;
		if (et != SC_THRIFT_STRUCT)
			return sc_thrift_fail(r, "row groups of another type");
		fm->rowgroups = sc_xcalloc(n + 1, sizeof(*fm->rowgroups));
		fm->nrowgroups = n;
		for (i = 0; i < n; i++)
			if (read_rowgroup(r, &fm->rowgroups[i]) == -1)
				return -1;
		break;
	case 5:
		if (type != SC_THRIFT_LIST || fm->kv != NULL)
			goto skip;
		if (sc_thrift_list(r, &et, &n) == -1)
			return -1;
		if (et != SC_THRIFT_STRUCT)
			return sc_thrift_fail(r, "key-value metadata of another type");
		fm->kv = sc_xcalloc(n + 1, sizeof(*fm->kv));
		fm->nkv = n;
		for (i = 0; i < n; i++)
			if (read_kv(r, &fm->kv[i]) == -1)
				return -1;
		break;
	case 6:
		STR_FIELD(r, fm->created_by);
		break;
	case 7:
		if (type != SC_THRIFT_LIST)
			goto skip;
		if (sc_thrift_list(r, &et, &n) == -1)
			return -1;
		fm->ncolumn_orders = n;
		for (i = 0; i < n; i++)
			if (sc_thrift_skip(r, et) == -1)
				return -1;
		break;
	case 8:
		fm->encrypted = true;
		goto skip;
	FIELDS_END(r);
	if (fm->schema == NULL || fm->nschema == 0)
		return sc_thrift_fail(r, "no schema");
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

static int
read_data_v1(struct sc_thrift_rd *r, struct sc_pq_pagehdr *ph)
{
	ph->has_header = true;
	FIELDS_BEGIN(r)
	case 1:
		INT_FIELD(r, ph->num_values);
		break;
	case 2:
		INT_FIELD(r, ph->encoding);
		break;
	case 3:
		INT_FIELD(r, ph->def_encoding);
		break;
	case 4:
		INT_FIELD(r, ph->rep_encoding);
		break;
	case 5:
		STRUCT_FIELD(r, read_stats(r, &ph->stats));
		break;
	FIELDS_END(r);
	return 0;
}

static int
read_dict(struct sc_thrift_rd *r, struct sc_pq_pagehdr *ph)
{
	ph->has_header = true;
	FIELDS_BEGIN(r)
	case 1:
		INT_FIELD(r, ph->num_values);
		break;
	case 2:
		INT_FIELD(r, ph->encoding);
		break;
	case 3:
		BOOL_FIELD(r, ph->is_sorted);
		break;
	FIELDS_END(r);
	return 0;
}

static int
read_data_v2(struct sc_thrift_rd *r, struct sc_pq_pagehdr *ph)
{
	ph->has_header = true;
	FIELDS_BEGIN(r)
	case 1:
		INT_FIELD(r, ph->num_values);
		break;
	case 2:
		INT_FIELD(r, ph->num_nulls);
		break;
	case 3:
		INT_FIELD(r, ph->num_rows);
		break;
	case 4:
		INT_FIELD(r, ph->encoding);
		break;
	case 5:
		INT_FIELD(r, ph->def_len);
		break;
	case 6:
		INT_FIELD(r, ph->rep_len);
		break;
	case 7:
		BOOL_FIELD(r, ph->is_compressed);
		break;
	case 8:
		STRUCT_FIELD(r, read_stats(r, &ph->stats));
		break;
	FIELDS_END(r);
	return 0;
}

int
sc_pq_pagehdr_read(struct sc_thrift_rd *r, struct sc_pq_pagehdr *ph)
{
	memset(ph, 0, sizeof(*ph));
	ph->type = -1;
	ph->uncompressed_size = ph->compressed_size = -1;
	ph->is_compressed = true;
	FIELDS_BEGIN(r)
	case 1:
		INT_FIELD(r, ph->type);
		break;
	case 2:
		INT_FIELD(r, ph->uncompressed_size);
		break;
	case 3:
		INT_FIELD(r, ph->compressed_size);
		break;
	case 4:
		INT_FIELD(r, ph->crc);
		ph->has_crc = true;
		break;
	case 5:
		if (ph->type != SC_PQ_DATA_PAGE && ph->type != -1)
			goto skip;
		STRUCT_FIELD(r, read_data_v1(r, ph));
		break;
	case 7:
		if (ph->type != SC_PQ_DICTIONARY_PAGE && ph->type != -1)
			goto skip;
		STRUCT_FIELD(r, read_dict(r, ph));
		break;
	case 8:
		if (ph->type != SC_PQ_DATA_PAGE_V2 && ph->type != -1)
			goto skip;
		STRUCT_FIELD(r, read_data_v2(r, ph));
		break;
	FIELDS_END(r);
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
write_logical(struct sc_buf *b, int16_t *outer,
    const struct sc_pq_logical *lt)
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
		sc_thrift_w_field(b, &last, SC_THRIFT_STRUCT, (int16_t)lt->kind);
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
				sc_thrift_w_binary(b, &cl, 1, g->cols[j].file_path,
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

	return codec >= 0 && codec < (int)SC_NELEM(names) ? names[codec] :
							     "unknown";
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

	return type >= 0 && type < (int)SC_NELEM(names) ? names[type] :
							   "unknown";
}
