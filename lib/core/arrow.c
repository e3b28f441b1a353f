/* SPDX-License-Identifier: MIT */

/*
 * arrow.c: Arrow schema helpers shared by the IPC reader (arrow_read.c)
 * and writer (arrow_write.c): building, copying and freeing schemas,
 * type names and Spark SQL type strings.
 */

#include "core/arrow.h"

#include <string.h>

#include "core/xmem.h"
#include "core/banned.h"

void
sc_arrow_schema_init(struct sc_arrow_schema *s)
{
	s->fields = NULL;
	s->nfields = 0;
}

static void
field_release(struct sc_arrow_field *f)
{
	size_t i;

	for (i = 0; i < f->nchildren; i++)
		field_release(&f->children[i]);
	free(f->children);
	free(f->name);
	free(f->tz);
	memset(f, 0, sizeof(*f));
}

void
sc_arrow_schema_release(struct sc_arrow_schema *s)
{
	size_t i;

	for (i = 0; i < s->nfields; i++)
		field_release(&s->fields[i]);
	free(s->fields);
	sc_arrow_schema_init(s);
}

static void
field_copy(struct sc_arrow_field *dst, const struct sc_arrow_field *src)
{
	size_t i;

	*dst = *src;
	dst->name = sc_xstrdup(src->name ? src->name : "");
	dst->tz = src->tz ? sc_xstrdup(src->tz) : NULL;
	dst->children = NULL;
	if (src->nchildren) {
		dst->children =
		    sc_xcalloc(src->nchildren, sizeof(*dst->children));
		for (i = 0; i < src->nchildren; i++)
			field_copy(&dst->children[i], &src->children[i]);
	}
}

void
sc_arrow_schema_copy(struct sc_arrow_schema *dst,
    const struct sc_arrow_schema *src)
{
	size_t i;

	sc_arrow_schema_init(dst);
	if (src->nfields == 0)
		return;
	dst->fields = sc_xcalloc(src->nfields, sizeof(*dst->fields));
	for (i = 0; i < src->nfields; i++)
		field_copy(&dst->fields[i], &src->fields[i]);
	dst->nfields = src->nfields;
}

static struct sc_arrow_field *
field_append(struct sc_arrow_field **arr, size_t *n, const char *name,
    enum sc_arrow_type type, bool nullable)
{
	struct sc_arrow_field *f;

	*arr = sc_xreallocarray(*arr, *n + 1, sizeof(**arr));
	f = &(*arr)[(*n)++];
	memset(f, 0, sizeof(*f));
	f->name = sc_xstrdup(name ? name : "");
	f->type = type;
	f->nullable = nullable;
	return f;
}

struct sc_arrow_field *
sc_arrow_schema_add(struct sc_arrow_schema *s, const char *name,
    enum sc_arrow_type type, bool nullable)
{
	return field_append(&s->fields, &s->nfields, name, type, nullable);
}

const char *
sc_arrow_type_name(enum sc_arrow_type type)
{
	switch (type) {
	case SC_ARROW_NULL:
		return "null";
	case SC_ARROW_BOOL:
		return "bool";
	case SC_ARROW_INT8:
		return "int8";
	case SC_ARROW_INT16:
		return "int16";
	case SC_ARROW_INT32:
		return "int32";
	case SC_ARROW_INT64:
		return "int64";
	case SC_ARROW_FLOAT:
		return "float";
	case SC_ARROW_DOUBLE:
		return "double";
	case SC_ARROW_DECIMAL128:
		return "decimal128";
	case SC_ARROW_UTF8:
		return "utf8";
	case SC_ARROW_LARGE_UTF8:
		return "large_utf8";
	case SC_ARROW_BINARY:
		return "binary";
	case SC_ARROW_LARGE_BINARY:
		return "large_binary";
	case SC_ARROW_DATE32:
		return "date32";
	case SC_ARROW_TIMESTAMP_US:
		return "timestamp[us]";
	case SC_ARROW_DURATION_US:
		return "duration[us]";
	case SC_ARROW_INTERVAL_YM:
		return "month_interval";
	case SC_ARROW_STRUCT:
		return "struct";
	case SC_ARROW_LIST:
		return "list";
	case SC_ARROW_MAP:
		return "map";
	case SC_ARROW_LARGE_LIST:
		return "large_list";
	}
	return "unknown";
}
