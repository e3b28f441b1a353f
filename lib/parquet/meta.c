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
 * A struct's fields one by one: fn reads the field (id, type) and
 * returns 1, or 0 to have it skipped (an unknown id, or a known id of
 * an unexpected type), or -1.
 */
typedef int field_fn(struct sc_thrift_rd *r, int16_t id, int type, void *arg);

static int
read_struct(struct sc_thrift_rd *r, field_fn *fn, void *arg)
{
	int16_t last = 0, id;
	int type, rc;

	if (sc_thrift_enter(r) == -1)
		return -1;
	for (;;) {
		if (sc_thrift_field(r, &last, &type, &id) == -1)
			return -1;
		if (type == SC_THRIFT_STOP)
			break;
		rc = fn(r, id, type, arg);
		if (rc == -1 || (rc == 0 && sc_thrift_skip(r, type) == -1))
			return -1;
	}
	sc_thrift_leave(r);
	return 0;
}

/* Typed fields: 1 read, 0 of another type (to skip), -1 failed. */
static int
f_int(struct sc_thrift_rd *r, int type, int32_t *dst)
{
	if (type != SC_THRIFT_I32 && type != SC_THRIFT_I16 &&
	    type != SC_THRIFT_BYTE)
		return 0;
	return sc_thrift_int(r, type, dst) == -1 ? -1 : 1;
}

static int
f_enum(struct sc_thrift_rd *r, int type, int *dst)
{
	int32_t v;
	int rc = f_int(r, type, &v);

	if (rc == 1)
		*dst = v;
	return rc;
}

static int
f_i64(struct sc_thrift_rd *r, int type, int64_t *dst)
{
	int32_t v;

	if (type == SC_THRIFT_I64)
		return sc_thrift_i64(r, dst) == -1 ? -1 : 1;
	if (f_int(r, type, &v) != 1)
		return r->failed ? -1 : 0;
	*dst = v;
	return 1;
}

static int
f_bool(int type, bool *dst)
{
	if (type != SC_THRIFT_TRUE && type != SC_THRIFT_FALSE)
		return 0;
	*dst = type == SC_THRIFT_TRUE;
	return 1;
}

static int
f_str(struct sc_thrift_rd *r, int type, char **dst)
{
	if (type != SC_THRIFT_BINARY)
		return 0;
	return sc_thrift_string(r, dst) == -1 ? -1 : 1;
}

static int
f_bytes(struct sc_thrift_rd *r, int type, uint8_t **dst, size_t *len)
{
	const uint8_t *p;
	size_t n;

	if (type != SC_THRIFT_BINARY)
		return 0;
	if (sc_thrift_binary(r, &p, &n) == -1)
		return -1;
	free(*dst);
	*dst = sc_xmalloc(n + 1);
	memcpy(*dst, p, n);
	*len = n;
	return 1;
}

static int
f_struct(struct sc_thrift_rd *r, int type, field_fn *fn, void *arg)
{
	if (type != SC_THRIFT_STRUCT)
		return 0;
	return read_struct(r, fn, arg) == -1 ? -1 : 1;
}

/*
 * A list of structs, each read by fn into elements of size bytes of a
 * new zeroed array (*out, *n), after init (if not NULL) gave each its
 * defaults; a second copy of the field is skipped.
 */
static int
f_list(struct sc_thrift_rd *r, int type, field_fn *fn, void (*init)(void *),
    size_t size, void **out, uint32_t *n, const char *what)
{
	uint32_t i, cnt;
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
		if (init != NULL)
			init((uint8_t *)*out + (size_t)i * size);
		if (read_struct(r, fn, (uint8_t *)*out + (size_t)i * size) ==
		    -1)
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

static int
stats_field(struct sc_thrift_rd *r, int16_t id, int type, void *arg)
{
	struct sc_pq_stats *st = arg;
	int rc;

	switch (id) {
	case 1:
		return f_bytes(r, type, &st->old_max, &st->old_max_len);
	case 2:
		return f_bytes(r, type, &st->old_min, &st->old_min_len);
	case 3:
		if ((rc = f_i64(r, type, &st->null_count)) == 1)
			st->has_null_count = true;
		return rc;
	case 5:
		return f_bytes(r, type, &st->max, &st->max_len);
	case 6:
		return f_bytes(r, type, &st->min, &st->min_len);
	default:
		return 0;
	}
}

/* TimeUnit: which of its empty structs is set. */
static int
unit_field(struct sc_thrift_rd *r, int16_t id, int type, void *arg)
{
	if (type != SC_THRIFT_STRUCT || id < SC_PQ_MILLIS || id > SC_PQ_NANOS)
		return 0;
	*(int *)arg = id;
	return sc_thrift_skip(r, type) == -1 ? -1 : 1;
}

static int
decimal_field(struct sc_thrift_rd *r, int16_t id, int type, void *arg)
{
	struct sc_pq_logical *lt = arg;

	switch (id) {
	case 1:
		return f_int(r, type, &lt->scale);
	case 2:
		return f_int(r, type, &lt->precision);
	default:
		return 0;
	}
}

static int
time_field(struct sc_thrift_rd *r, int16_t id, int type, void *arg)
{
	struct sc_pq_logical *lt = arg;

	switch (id) {
	case 1:
		return f_bool(type, &lt->utc);
	case 2:
		return f_struct(r, type, unit_field, &lt->unit);
	default:
		return 0;
	}
}

static int
int_field(struct sc_thrift_rd *r, int16_t id, int type, void *arg)
{
	struct sc_pq_logical *lt = arg;

	switch (id) {
	case 1:
		return f_enum(r, type, &lt->bit_width);
	case 2:
		return f_bool(type, &lt->is_signed);
	default:
		return 0;
	}
}

/* LogicalType: a union, the field's id naming the kind. */
static int
logical_field(struct sc_thrift_rd *r, int16_t id, int type, void *arg)
{
	struct sc_pq_logical *lt = arg;
	int rc;

	switch (id) {
	case SC_PQ_LT_DECIMAL:
		rc = f_struct(r, type, decimal_field, lt);
		break;
	case SC_PQ_LT_TIME:
	case SC_PQ_LT_TIMESTAMP:
		rc = f_struct(r, type, time_field, lt);
		break;
	case SC_PQ_LT_INTEGER:
		rc = f_struct(r, type, int_field, lt);
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
		if (type != SC_THRIFT_STRUCT)
			return 0;
		rc = sc_thrift_skip(r, type) == -1 ? -1 : 1;
		break;
	default:
		return 0;
	}
	if (rc == 1)
		lt->kind = id;
	return rc;
}

static int
schema_field(struct sc_thrift_rd *r, int16_t id, int type, void *arg)
{
	struct sc_pq_schema_el *el = arg;

	switch (id) {
	case 1:
		return f_enum(r, type, &el->type);
	case 2:
		return f_int(r, type, &el->type_length);
	case 3:
		return f_enum(r, type, &el->repetition);
	case 4:
		return f_str(r, type, &el->name);
	case 5:
		return f_int(r, type, &el->num_children);
	case 6:
		return f_enum(r, type, &el->converted);
	case 7:
		return f_int(r, type, &el->scale);
	case 8:
		return f_int(r, type, &el->precision);
	case 9:
		return f_int(r, type, &el->field_id);
	case 10:
		return f_struct(r, type, logical_field, &el->logical);
	default:
		return 0;
	}
}

/* A list of i32 (encodings) or strings (a path). */
static int
f_i32_list(struct sc_thrift_rd *r, int type, int32_t **out, uint32_t *n)
{
	uint32_t i, cnt;
	int et;

	if (type != SC_THRIFT_LIST || *out != NULL)
		return 0;
	if (sc_thrift_list(r, &et, &cnt) == -1)
		return -1;
	if (et != SC_THRIFT_I32)
		return sc_thrift_fail(r, "list of encodings of another type");
	*out = sc_xcalloc((size_t)cnt + 1, sizeof(**out));
	*n = cnt;
	for (i = 0; i < cnt; i++)
		if (sc_thrift_int(r, et, &(*out)[i]) == -1)
			return -1;
	return 1;
}

static int
f_str_list(struct sc_thrift_rd *r, int type, char ***out, uint32_t *n)
{
	uint32_t i, cnt;
	int et;

	if (type != SC_THRIFT_LIST || *out != NULL)
		return 0;
	if (sc_thrift_list(r, &et, &cnt) == -1)
		return -1;
	if (et != SC_THRIFT_BINARY)
		return sc_thrift_fail(r, "list of names of another type");
	*out = sc_xcalloc((size_t)cnt + 1, sizeof(**out));
	*n = cnt;
	for (i = 0; i < cnt; i++)
		if (sc_thrift_string(r, &(*out)[i]) == -1)
			return -1;
	return 1;
}

static int
colmeta_field(struct sc_thrift_rd *r, int16_t id, int type, void *arg)
{
	struct sc_pq_colmeta *m = arg;

	switch (id) {
	case 1:
		return f_enum(r, type, &m->type);
	case 2:
		return f_i32_list(r, type, &m->encodings, &m->nencodings);
	case 3:
		return f_str_list(r, type, &m->path, &m->npath);
	case 4:
		return f_enum(r, type, &m->codec);
	case 5:
		return f_i64(r, type, &m->num_values);
	case 6:
		return f_i64(r, type, &m->total_uncompressed);
	case 7:
		return f_i64(r, type, &m->total_compressed);
	case 9:
		return f_i64(r, type, &m->data_page_offset);
	case 11:
		return f_i64(r, type, &m->dictionary_page_offset);
	case 12:
		return f_struct(r, type, stats_field, &m->stats);
	default:
		return 0;
	}
}

static int
colchunk_field(struct sc_thrift_rd *r, int16_t id, int type, void *arg)
{
	struct sc_pq_colchunk *c = arg;

	switch (id) {
	case 1:
		return f_str(r, type, &c->file_path);
	case 2:
		return f_i64(r, type, &c->file_offset);
	case 3:
		if (c->has_meta)
			return 0;
		c->has_meta = true;
		c->meta.type = c->meta.codec = -1;
		c->meta.dictionary_page_offset = c->meta.data_page_offset = -1;
		return f_struct(r, type, colmeta_field, &c->meta);
	default:
		return 0;
	}
}

static int
rowgroup_field(struct sc_thrift_rd *r, int16_t id, int type, void *arg)
{
	struct sc_pq_rowgroup *g = arg;

	switch (id) {
	case 1:
		return f_list(r, type, colchunk_field, NULL, sizeof(*g->cols),
		    (void **)&g->cols, &g->ncols, "columns of another type");
	case 2:
		return f_i64(r, type, &g->total_byte_size);
	case 3:
		return f_i64(r, type, &g->num_rows);
	default:
		return 0;
	}
}

static int
kv_field(struct sc_thrift_rd *r, int16_t id, int type, void *arg)
{
	struct sc_pq_kv *kv = arg;

	switch (id) {
	case 1:
		return f_str(r, type, &kv->key);
	case 2:
		return f_str(r, type, &kv->value);
	default:
		return 0;
	}
}

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

static int
filemeta_field(struct sc_thrift_rd *r, int16_t id, int type, void *arg)
{
	struct sc_pq_filemeta *fm = arg;
	uint32_t i, n;
	int et;

	switch (id) {
	case 1:
		return f_int(r, type, &fm->version);
	case 2:
		return f_list(r, type, schema_field, schema_el_init,
		    sizeof(*fm->schema), (void **)&fm->schema, &fm->nschema,
		    "schema of another type");
	case 3:
		return f_i64(r, type, &fm->num_rows);
	case 4:
		return f_list(r, type, rowgroup_field, NULL,
		    sizeof(*fm->rowgroups), (void **)&fm->rowgroups,
		    &fm->nrowgroups, "row groups of another type");
	case 5:
		return f_list(r, type, kv_field, NULL, sizeof(*fm->kv),
		    (void **)&fm->kv, &fm->nkv,
		    "key-value metadata of another type");
	case 6:
		return f_str(r, type, &fm->created_by);
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
	case 8:
		fm->encrypted = true;
		return 0;
	default:
		return 0;
	}
}

int
sc_pq_filemeta_read(struct sc_thrift_rd *r, struct sc_pq_filemeta *fm)
{
	uint32_t i;

	memset(fm, 0, sizeof(*fm));
	fm->num_rows = -1;
	if (read_struct(r, filemeta_field, fm) == -1)
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

static int
data_v1_field(struct sc_thrift_rd *r, int16_t id, int type, void *arg)
{
	struct sc_pq_pagehdr *ph = arg;

	switch (id) {
	case 1:
		return f_int(r, type, &ph->num_values);
	case 2:
		return f_enum(r, type, &ph->encoding);
	case 3:
		return f_enum(r, type, &ph->def_encoding);
	case 4:
		return f_enum(r, type, &ph->rep_encoding);
	case 5:
		return f_struct(r, type, stats_field, &ph->stats);
	default:
		return 0;
	}
}

static int
dict_field(struct sc_thrift_rd *r, int16_t id, int type, void *arg)
{
	struct sc_pq_pagehdr *ph = arg;

	switch (id) {
	case 1:
		return f_int(r, type, &ph->num_values);
	case 2:
		return f_enum(r, type, &ph->encoding);
	case 3:
		return f_bool(type, &ph->is_sorted);
	default:
		return 0;
	}
}

static int
data_v2_field(struct sc_thrift_rd *r, int16_t id, int type, void *arg)
{
	struct sc_pq_pagehdr *ph = arg;

	switch (id) {
	case 1:
		return f_int(r, type, &ph->num_values);
	case 2:
		return f_int(r, type, &ph->num_nulls);
	case 3:
		return f_int(r, type, &ph->num_rows);
	case 4:
		return f_enum(r, type, &ph->encoding);
	case 5:
		return f_int(r, type, &ph->def_len);
	case 6:
		return f_int(r, type, &ph->rep_len);
	case 7:
		return f_bool(type, &ph->is_compressed);
	case 8:
		return f_struct(r, type, stats_field, &ph->stats);
	default:
		return 0;
	}
}

/* The header of the page's kind; another kind's is skipped. */
static int
pagehdr_field(struct sc_thrift_rd *r, int16_t id, int type, void *arg)
{
	static const int kind[] = { [5] = SC_PQ_DATA_PAGE,
		[7] = SC_PQ_DICTIONARY_PAGE,
		[8] = SC_PQ_DATA_PAGE_V2 };
	static field_fn *const
	    fn[] = { [5] = data_v1_field, [7] = dict_field, [8] = data_v2_field };
	struct sc_pq_pagehdr *ph = arg;
	int rc;

	switch (id) {
	case 1:
		return f_enum(r, type, &ph->type);
	case 2:
		return f_int(r, type, &ph->uncompressed_size);
	case 3:
		return f_int(r, type, &ph->compressed_size);
	case 4:
		if ((rc = f_int(r, type, &ph->crc)) == 1)
			ph->has_crc = true;
		return rc;
	case 5:
	case 7:
	case 8:
		if ((ph->type != kind[id] && ph->type != -1) || ph->has_header)
			return 0;
		if ((rc = f_struct(r, type, fn[id], ph)) == 1)
			ph->has_header = true;
		return rc;
	default:
		return 0;
	}
}

int
sc_pq_pagehdr_read(struct sc_thrift_rd *r, struct sc_pq_pagehdr *ph)
{
	memset(ph, 0, sizeof(*ph));
	ph->type = -1;
	ph->uncompressed_size = ph->compressed_size = -1;
	ph->is_compressed = true;
	if (read_struct(r, pagehdr_field, ph) == -1)
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
