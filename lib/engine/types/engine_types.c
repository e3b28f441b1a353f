/* SPDX-License-Identifier: MIT */

/*
 * engine_types.c: Spark types for the SQLite engine: type names (Spark's
 * and SQLite's declared types) read into a struct sc_etype and written
 * out through lib/core/value, and the DataType messages of a result
 * schema.  Values of those types are engine_values.c's.
 */

#include "engine/engine_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* ------------------------------------------------------------------ */
/* Type names                                                          */
/* ------------------------------------------------------------------ */

struct tname {
	const char *name;
	int t;
};

static const struct tname tnames[] = {
	{ "bigint", SC_ARROW_INT64 },
	{ "long", SC_ARROW_INT64 },
	{ "int8", SC_ARROW_INT64 },
	{ "int", SC_ARROW_INT32 },
	{ "integer", SC_ARROW_INT32 },
	{ "int4", SC_ARROW_INT32 },
	{ "mediumint", SC_ARROW_INT32 },
	{ "smallint", SC_ARROW_INT16 },
	{ "short", SC_ARROW_INT16 },
	{ "int2", SC_ARROW_INT16 },
	{ "tinyint", SC_ARROW_INT8 },
	{ "byte", SC_ARROW_INT8 },
	{ "boolean", SC_ARROW_BOOL },
	{ "bool", SC_ARROW_BOOL },
	{ "double", SC_ARROW_DOUBLE },
	{ "double precision", SC_ARROW_DOUBLE },
	{ "float8", SC_ARROW_DOUBLE },
	{ "float", SC_ARROW_FLOAT },
	{ "float4", SC_ARROW_FLOAT },
	{ "string", SC_ARROW_UTF8 },
	{ "text", SC_ARROW_UTF8 },
	{ "varchar", SC_ARROW_UTF8 },
	{ "char", SC_ARROW_UTF8 },
	{ "character", SC_ARROW_UTF8 },
	{ "nvarchar", SC_ARROW_UTF8 },
	{ "nchar", SC_ARROW_UTF8 },
	{ "clob", SC_ARROW_UTF8 },
	{ "binary", SC_ARROW_BINARY },
	{ "varbinary", SC_ARROW_BINARY },
	{ "blob", SC_ARROW_BINARY },
	{ "date", SC_ARROW_DATE32 },
	{ "timestamp", SC_ARROW_TIMESTAMP_US },
	{ "timestamp_ltz", SC_ARROW_TIMESTAMP_US },
	{ "datetime", SC_ARROW_TIMESTAMP_US },
	{ "timestamp_ntz", SC_ARROW_TIMESTAMP_US },
	{ "decimal", SC_ARROW_DECIMAL128 },
	{ "dec", SC_ARROW_DECIMAL128 },
	{ "numeric", SC_ARROW_DECIMAL128 },
};

static int
parse_small_int(const char **sp, const char *end, int *out)
{
	const char *s = *sp;
	long v = 0;

	while (s < end && isspace((unsigned char)*s))
		s++;
	if (s == end || !isdigit((unsigned char)*s))
		return -1;
	while (s < end && isdigit((unsigned char)*s)) {
		v = v * 10 + (*s - '0');
		if (v > 1000)
			return -1;
		s++;
	}
	while (s < end && isspace((unsigned char)*s))
		s++;
	*sp = s;
	*out = (int)v;
	return 0;
}

/*
 * Parse a type name: Spark's ("bigint", "decimal(10,2)", "real" = float)
 * or, with sqlite_names, a SQLite declared type (where "real" is an
 * 8-byte double and "numeric" without precision is left to inference).
 */
int
sc_eng_parse_type(const char *s, size_t n, bool sqlite_names,
    struct sc_etype *out)
{
	const char *end = s + n, *p, *q;
	char base[32] = "";
	size_t bl = 0, i;
	int prec = -1, scale = 0;
	bool params = false;

	while (s < end && isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	/* The base name: words (letters, digits, _) separated by spaces. */
	for (p = s; p < end && *p != '(' && *p != '<'; p++) {
		if (bl + 1 >= sizeof(base))
			return -1;
		if (isspace((unsigned char)*p)) {
			if (bl > 0 && base[bl - 1] != ' ')
				base[bl++] = ' ';
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '_')
			return -1;
		base[bl++] = (char)tolower((unsigned char)*p);
	}
	while (bl > 0 && base[bl - 1] == ' ')
		bl--;
	base[bl] = '\0';
	/*
	 * Only the nested types take '<': "x<...>" would come back here
	 * through the DDL parser with nothing consumed (found by make fuzz:
	 * a stack overflow).
	 */
	if (p < end && *p == '<')
		return sqlite_names ||
			(strcmp(base, "array") != 0 &&
			    strcmp(base, "map") != 0 &&
			    strcmp(base, "struct") != 0)
		    ? -1
		    : sc_eng_nest_parse(s, (size_t)(end - s), out);
	if (p < end && *p == '(') {
		q = p + 1;
		params = true;
		if (parse_small_int(&q, end, &prec) == -1)
			return -1;
		if (q < end && *q == ',') {
			q++;
			if (parse_small_int(&q, end, &scale) == -1)
				return -1;
		}
		if (q >= end || *q != ')' || q + 1 != end)
			return -1;
	}
	memset(out, 0, sizeof(*out));
	out->t = SC_ETYPE_UNKNOWN;
	if (!sqlite_names &&
	    (strcmp(base, "void") == 0 || strcmp(base, "null") == 0) &&
	    !params) {
		out->t = SC_ARROW_NULL;
		return 0;
	}
	if (strncmp(base, "interval", 8) == 0 && !params)
		return sc_eng_interval_parse_type(base, out);
	if (strncmp(base, "string collate ", 15) == 0 && !params &&
	    !sqlite_names)
		return sc_eng_collation_parse_type(base + 15, out);
	if (strcmp(base, "real") == 0 && !params) {
		out->t = sqlite_names ? SC_ARROW_DOUBLE : SC_ARROW_FLOAT;
		return 0;
	}
	for (i = 0; i < SC_NELEM(tnames); i++)
		if (strcmp(base, tnames[i].name) == 0)
			break;
	if (i == SC_NELEM(tnames))
		return -1;
	out->t = tnames[i].t;
	if (out->t == SC_ARROW_DECIMAL128) {
		if (!params && sqlite_names && strcmp(base, "numeric") == 0) {
			out->t = SC_ETYPE_UNKNOWN;
			return -1;
		}
		if (!params) {
			prec = 10;
			scale = 0;
		}
		if (prec < 1 || prec > 38 || scale < 0 || scale > prec)
			return -1;
		out->prec = prec;
		out->scale = scale;
		return 0;
	}
	/* varchar(n), char(n), and SQLite's int(11) style widths */
	if (params && out->t != SC_ARROW_UTF8 && !sqlite_names)
		return -1;
	if (out->t == SC_ARROW_TIMESTAMP_US)
		out->ntz = strcmp(base, "timestamp_ntz") == 0;
	return 0;
}

int
sc_eng_type_from_proto(const Spark__Connect__DataType *t, struct sc_etype *out,
    struct sc_error *err)
{
	memset(out, 0, sizeof(*out));
	switch (t->kind_case) {
	case SC_DT_(NULL):
		out->t = SC_ARROW_NULL;
		return 0;
	case SC_DT_(BINARY):
		out->t = SC_ARROW_BINARY;
		return 0;
	case SC_DT_(BOOLEAN):
		out->t = SC_ARROW_BOOL;
		return 0;
	case SC_DT_(BYTE):
		out->t = SC_ARROW_INT8;
		return 0;
	case SC_DT_(SHORT):
		out->t = SC_ARROW_INT16;
		return 0;
	case SC_DT_(INTEGER):
		out->t = SC_ARROW_INT32;
		return 0;
	case SC_DT_(LONG):
		out->t = SC_ARROW_INT64;
		return 0;
	case SC_DT_(FLOAT):
		out->t = SC_ARROW_FLOAT;
		return 0;
	case SC_DT_(DOUBLE):
		out->t = SC_ARROW_DOUBLE;
		return 0;
	case SC_DT_(DECIMAL):
		out->t = SC_ARROW_DECIMAL128;
		out->prec = 10;
		out->scale = 0;
		if (t->decimal->_precision_case ==
		    SPARK__CONNECT__DATA_TYPE__DECIMAL___PRECISION_PRECISION)
			out->prec = t->decimal->precision;
		if (t->decimal->_scale_case ==
		    SPARK__CONNECT__DATA_TYPE__DECIMAL___SCALE_SCALE)
			out->scale = t->decimal->scale;
		if (out->prec < 1 || out->prec > 38 || out->scale < 0 ||
		    out->scale > out->prec)
			return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
			    "Invalid decimal type decimal(%d,%d).", out->prec,
			    out->scale);
		return 0;
	case SC_DT_(STRING):
	case SC_DT_(CHAR):
	case SC_DT_(VAR_CHAR):
		out->t = SC_ARROW_UTF8;
		return 0;
	case SC_DT_(DATE):
		out->t = SC_ARROW_DATE32;
		return 0;
	case SC_DT_(TIMESTAMP):
		out->t = SC_ARROW_TIMESTAMP_US;
		return 0;
	case SC_DT_(TIMESTAMP_NTZ):
		out->t = SC_ARROW_TIMESTAMP_US;
		out->ntz = true;
		return 0;
	case SC_DT_(ARRAY):
	case SC_DT_(MAP):
	case SC_DT_(STRUCT):
		return sc_eng_nest_from_proto(t, out, err);
	case SC_DT_(DAY_TIME_INTERVAL):
	case SC_DT_(YEAR_MONTH_INTERVAL):
		return sc_eng_interval_from_proto(t, out, err);
	case SC_DT_(UNPARSED): {
		const char *s = t->unparsed->data_type_string;

		if (s != NULL &&
		    sc_eng_parse_type(s, strlen(s), false, out) == 0)
			return 0;
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE",
		    "0A000",
		    "The data type '%s' is not supported by "
		    "sc-serve.",
		    s != NULL ? s : "");
	}
	default:
		break;
	}
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE", "0A000",
	    "The data type with DataType field %d is not supported by "
	    "sc-serve.",
	    (int)t->kind_case);
}

/* The Spark type of t, as lib/core/value names types. */
enum sc_value_type
sc_eng_value_type(const struct sc_etype *t)
{
	switch (t->t) {
	case SC_ARROW_BOOL:
		return SC_VALUE_BOOLEAN;
	case SC_ARROW_INT8:
		return SC_VALUE_BYTE;
	case SC_ARROW_INT16:
		return SC_VALUE_SHORT;
	case SC_ARROW_INT32:
		return SC_VALUE_INT;
	case SC_ARROW_INT64:
		return SC_VALUE_LONG;
	case SC_ARROW_FLOAT:
		return SC_VALUE_FLOAT;
	case SC_ARROW_DOUBLE:
		return SC_VALUE_DOUBLE;
	case SC_ARROW_UTF8:
	case SC_ARROW_LARGE_UTF8:
		return SC_VALUE_STRING;
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_BINARY:
		return SC_VALUE_BINARY;
	case SC_ARROW_DATE32:
		return SC_VALUE_DATE;
	case SC_ARROW_TIMESTAMP_US:
		return t->ntz ? SC_VALUE_TIMESTAMP_NTZ : SC_VALUE_TIMESTAMP;
	case SC_ARROW_DECIMAL128:
		return SC_VALUE_DECIMAL;
	case SC_ARROW_DURATION_US: /* prec, scale: the fields */
		return SC_VALUE_DT_INTERVAL;
	case SC_ARROW_INTERVAL_YM:
		return SC_VALUE_YM_INTERVAL;
	default:
		return SC_VALUE_VOID;
	}
}

int
sc_eng_type_text(const struct sc_etype *t, enum sc_value_style style,
    struct sc_buf *out)
{
	if (t->t == SC_ARROW_STRUCT || t->t == SC_ARROW_LIST ||
	    t->t == SC_ARROW_MAP)
		return sc_eng_nest_type_text(t, style, out);
	if (t->t == SC_ARROW_UTF8 && t->prec == SC_ECOLL_LCASE)
		return sc_buf_addstr(out,
		    style == SC_VALUE_SQL ? "STRING COLLATE UTF8_LCASE"
					  : "string collate UTF8_LCASE",
		    NULL);
	return sc_value_type_name(sc_eng_value_type(t), t->prec, t->scale,
	    style, out, NULL);
}

/*
 * Declared types for TEMP tables holding local relations: they map back
 * to the same type through sc_eng_parse_type(sqlite_names), and their
 * SQLite affinity never rewrites a stored value (TEXT, not STRING, whose
 * NUMERIC affinity would turn '0123' into 123).
 */
void
sc_eng_type_decl(const struct sc_etype *t, struct sc_buf *out)
{
	switch (t->t) {
	case SC_ARROW_UTF8:
	case SC_ARROW_LARGE_UTF8:
		sc_buf_addstr(out, "TEXT", NULL);
		return;
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_BINARY:
		sc_buf_addstr(out, "BLOB", NULL);
		return;
	case SC_ARROW_STRUCT:
	case SC_ARROW_LIST:
	case SC_ARROW_MAP:
		sc_buf_addstr(out, "TEXT", NULL); /* JSON */
		return;
	case SC_ARROW_NULL:
		return;
	case SC_ARROW_DURATION_US:
	case SC_ARROW_INTERVAL_YM:
		sc_eng_interval_decl(t, out);
		return;
	default:
		sc_eng_type_text(t, SC_VALUE_SQL, out);
		return;
	}
}

/* ------------------------------------------------------------------ */
/* DataType messages                                                   */
/* ------------------------------------------------------------------ */

/*
 * Every flat DataType kind message is a ProtobufCMessage followed by a
 * uint32 type_variation_reference (String adds a collation string), so
 * one zeroed allocation of the right size, initialised by its
 * descriptor's init function, serves for each.
 */
static void *
kind_new(const ProtobufCMessageDescriptor *d)
{
	ProtobufCMessage *m = sc_xcalloc(1, d->sizeof_message);

	d->message_init(m);
	return m;
}

static const ProtobufCMessageDescriptor *const ntz_descriptor =
    &spark__connect__data_type__timestamp_ntz__descriptor;

static Spark__Connect__DataType *datatype_new(const struct sc_etype *t);

static Spark__Connect__DataType *
nested_new(const struct sc_etype *t)
{
	const struct sc_enest *n = t->nest;
	Spark__Connect__DataType *d = sc_xmalloc(sizeof(*d));
	Spark__Connect__DataType__Struct *st;
	size_t i;

	spark__connect__data_type__init(d);
	if (n->kind == SC_ARROW_LIST) {
		d->kind_case = SC_DT_(ARRAY);
		d->array = sc_xmalloc(sizeof(*d->array));
		spark__connect__data_type__array__init(d->array);
		d->array->element_type = datatype_new(&n->types[0]);
		d->array->contains_null = n->nullable[0];
		return d;
	}
	if (n->kind == SC_ARROW_MAP) {
		d->kind_case = SC_DT_(MAP);
		d->map = sc_xmalloc(sizeof(*d->map));
		spark__connect__data_type__map__init(d->map);
		d->map->key_type = datatype_new(&n->types[0]);
		d->map->value_type = datatype_new(&n->types[1]);
		d->map->value_contains_null = n->nullable[1];
		return d;
	}
	d->kind_case = SC_DT_(STRUCT);
	st = sc_xmalloc(sizeof(*st));
	spark__connect__data_type__struct__init(st);
	d->struct_ = st;
	st->n_fields = n->n;
	st->fields = sc_xcalloc(n->n > 0 ? n->n : 1, sizeof(*st->fields));
	for (i = 0; i < n->n; i++) {
		Spark__Connect__DataType__StructField *f;

		f = sc_xmalloc(sizeof(*f));
		spark__connect__data_type__struct_field__init(f);
		f->name = sc_xstrdup(n->names[i]);
		f->data_type = datatype_new(&n->types[i]);
		f->nullable = n->nullable[i];
		st->fields[i] = f;
	}
	return d;
}

static Spark__Connect__DataType *
datatype_new(const struct sc_etype *t)
{
	Spark__Connect__DataType *d;

	if (t->nest != NULL)
		return nested_new(t);
	d = sc_xmalloc(sizeof(*d));
	spark__connect__data_type__init(d);
	switch (t->t) {
	case SC_ARROW_BOOL:
		d->kind_case = SC_DT_(BOOLEAN);
		d->boolean =
		    kind_new(&spark__connect__data_type__boolean__descriptor);
		break;
	case SC_ARROW_INT8:
		d->kind_case = SC_DT_(BYTE);
		d->byte =
		    kind_new(&spark__connect__data_type__byte__descriptor);
		break;
	case SC_ARROW_INT16:
		d->kind_case = SC_DT_(SHORT);
		d->short_ =
		    kind_new(&spark__connect__data_type__short__descriptor);
		break;
	case SC_ARROW_INT32:
		d->kind_case = SC_DT_(INTEGER);
		d->integer =
		    kind_new(&spark__connect__data_type__integer__descriptor);
		break;
	case SC_ARROW_INT64:
		d->kind_case = SC_DT_(LONG);
		d->long_ =
		    kind_new(&spark__connect__data_type__long__descriptor);
		break;
	case SC_ARROW_FLOAT:
		d->kind_case = SC_DT_(FLOAT);
		d->float_ =
		    kind_new(&spark__connect__data_type__float__descriptor);
		break;
	case SC_ARROW_DOUBLE:
		d->kind_case = SC_DT_(DOUBLE);
		d->double_ =
		    kind_new(&spark__connect__data_type__double__descriptor);
		break;
	case SC_ARROW_DECIMAL128:
		d->kind_case = SC_DT_(DECIMAL);
		d->decimal =
		    kind_new(&spark__connect__data_type__decimal__descriptor);
		d->decimal->_precision_case =
		    SPARK__CONNECT__DATA_TYPE__DECIMAL___PRECISION_PRECISION;
		d->decimal->precision = t->prec;
		d->decimal->_scale_case =
		    SPARK__CONNECT__DATA_TYPE__DECIMAL___SCALE_SCALE;
		d->decimal->scale = t->scale;
		break;
	case SC_ARROW_UTF8:
	case SC_ARROW_LARGE_UTF8:
		d->kind_case = SC_DT_(STRING);
		d->string =
		    kind_new(&spark__connect__data_type__string__descriptor);
		if (t->prec == SC_ECOLL_LCASE) /* static: never freed */
			d->string->collation = (char *)"UTF8_LCASE";
		break;
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_BINARY:
		d->kind_case = SC_DT_(BINARY);
		d->binary =
		    kind_new(&spark__connect__data_type__binary__descriptor);
		break;
	case SC_ARROW_DATE32:
		d->kind_case = SC_DT_(DATE);
		d->date =
		    kind_new(&spark__connect__data_type__date__descriptor);
		break;
	case SC_ARROW_TIMESTAMP_US:
		if (t->ntz) {
			d->kind_case = SC_DT_(TIMESTAMP_NTZ);
			d->timestamp_ntz = kind_new(ntz_descriptor);
		} else {
			d->kind_case = SC_DT_(TIMESTAMP);
			d->timestamp = kind_new(
			    &spark__connect__data_type__timestamp__descriptor);
		}
		break;
	case SC_ARROW_DURATION_US:
		d->kind_case = SC_DT_(DAY_TIME_INTERVAL);
		d->day_time_interval = kind_new(
		    &spark__connect__data_type__day_time_interval__descriptor);
		d->day_time_interval->_start_field_case =
		    SPARK__CONNECT__DATA_TYPE__DAY_TIME_INTERVAL___START_FIELD_START_FIELD;
		d->day_time_interval->start_field = t->prec;
		d->day_time_interval->_end_field_case =
		    SPARK__CONNECT__DATA_TYPE__DAY_TIME_INTERVAL___END_FIELD_END_FIELD;
		d->day_time_interval->end_field = t->scale;
		break;
	case SC_ARROW_INTERVAL_YM:
		d->kind_case = SC_DT_(YEAR_MONTH_INTERVAL);
		d->year_month_interval = kind_new(
		    &spark__connect__data_type__year_month_interval__descriptor);
		d->year_month_interval->_start_field_case =
		    SPARK__CONNECT__DATA_TYPE__YEAR_MONTH_INTERVAL___START_FIELD_START_FIELD;
		d->year_month_interval->start_field = t->prec;
		d->year_month_interval->_end_field_case =
		    SPARK__CONNECT__DATA_TYPE__YEAR_MONTH_INTERVAL___END_FIELD_END_FIELD;
		d->year_month_interval->end_field = t->scale;
		break;
	default:
		d->kind_case = SC_DT_(NULL);
		d->null =
		    kind_new(&spark__connect__data_type__null__descriptor);
		break;
	}
	return d;
}

Spark__Connect__DataType *
sc_eng_schema_new(const struct sc_ecol *cols, size_t n)
{
	Spark__Connect__DataType *d = sc_xmalloc(sizeof(*d));
	Spark__Connect__DataType__Struct *st;
	size_t i;

	spark__connect__data_type__init(d);
	d->kind_case = SC_DT_(STRUCT);
	st = sc_xmalloc(sizeof(*st));
	spark__connect__data_type__struct__init(st);
	d->struct_ = st;
	st->n_fields = n;
	st->fields = sc_xcalloc(n > 0 ? n : 1, sizeof(*st->fields));
	for (i = 0; i < n; i++) {
		Spark__Connect__DataType__StructField *f;

		f = sc_xmalloc(sizeof(*f));
		spark__connect__data_type__struct_field__init(f);
		f->name = sc_xstrdup(cols[i].name);
		f->data_type = datatype_new(&cols[i].type);
		f->nullable = cols[i].nullable != 0;
		st->fields[i] = f;
	}
	return d;
}

/*
 * Frees what sc_eng_schema_new() built: the kind messages are single
 * allocations, so any kind other than struct is one free.
 */
void
sc_engine_datatype_free(Spark__Connect__DataType *t)
{
	size_t i;

	if (t == NULL)
		return;
	if (t->kind_case == SC_DT_(STRUCT)) {
		Spark__Connect__DataType__Struct *st = t->struct_;

		for (i = 0; i < st->n_fields; i++) {
			free(st->fields[i]->name);
			sc_engine_datatype_free(st->fields[i]->data_type);
			free(st->fields[i]);
		}
		free(st->fields);
		free(st);
	} else if (t->kind_case == SC_DT_(ARRAY)) {
		sc_engine_datatype_free(t->array->element_type);
		free(t->array);
	} else if (t->kind_case == SC_DT_(MAP)) {
		sc_engine_datatype_free(t->map->key_type);
		sc_engine_datatype_free(t->map->value_type);
		free(t->map);
	} else if (t->kind_case != SC_DT_(_NOT_SET)) {
		free(t->null); /* any member of the union */
	}
	free(t);
}

int
sc_engine_type_name(const Spark__Connect__DataType *t, struct sc_buf *out,
    struct sc_error *err)
{
	struct sc_etype et;

	if (sc_eng_type_from_proto(t, &et, err) == -1)
		return -1;
	return sc_eng_type_text(&et, SC_VALUE_TYPENAME, out);
}

int
sc_eng_arrow_schema(const struct sc_ecol *cols, size_t n,
    struct sc_arrow_schema *out, struct sc_error *err)
{
	size_t i;

	(void)err;
	sc_arrow_schema_init(out);
	for (i = 0; i < n; i++) {
		struct sc_arrow_field *f;
		int t = cols[i].type.t;

		if (t == SC_ETYPE_UNKNOWN)
			t = SC_ARROW_NULL;
		f = sc_arrow_schema_add(out, cols[i].name,
		    (enum sc_arrow_type)t,
		    t == SC_ARROW_NULL || cols[i].nullable != 0);
		sc_eng_arrow_field(&cols[i].type, f);
	}
	return 0;
}

int
sc_eng_type_from_arrow(const struct sc_arrow_field *f, struct sc_etype *out,
    struct sc_error *err)
{
	memset(out, 0, sizeof(*out));
	switch (f->type) {
	case SC_ARROW_NULL:
	case SC_ARROW_BOOL:
	case SC_ARROW_INT8:
	case SC_ARROW_INT16:
	case SC_ARROW_INT32:
	case SC_ARROW_INT64:
	case SC_ARROW_FLOAT:
	case SC_ARROW_DOUBLE:
	case SC_ARROW_DATE32:
		out->t = f->type;
		return 0;
	case SC_ARROW_DECIMAL128:
		out->t = f->type;
		out->prec = f->precision;
		out->scale = f->scale;
		if (out->prec < 1 || out->prec > 38 || out->scale < 0 ||
		    out->scale > out->prec)
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.DATA_TYPE", "0A000",
			    "Column `%s` has the unsupported type "
			    "decimal(%d,%d).",
			    f->name, out->prec, out->scale);
		return 0;
	case SC_ARROW_UTF8:
	case SC_ARROW_LARGE_UTF8:
		out->t = SC_ARROW_UTF8;
		return 0;
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_BINARY:
		out->t = SC_ARROW_BINARY;
		return 0;
	case SC_ARROW_TIMESTAMP_US:
		out->t = f->type;
		out->ntz = f->tz == NULL;
		return 0;
	case SC_ARROW_DURATION_US: /* Arrow keeps no fields */
		out->t = f->type;
		out->scale = 3; /* DAY TO SECOND */
		return 0;
	case SC_ARROW_INTERVAL_YM:
		out->t = f->type;
		out->scale = 1; /* YEAR TO MONTH */
		return 0;
	case SC_ARROW_STRUCT:
	case SC_ARROW_LIST:
	case SC_ARROW_LARGE_LIST:
	case SC_ARROW_MAP:
		return sc_eng_nest_from_arrow(f, out, err);
	}
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE", "0A000",
	    "Column `%s` of a local relation has the Arrow type %s, which "
	    "sc-serve does not support.",
	    f->name, sc_arrow_type_name(f->type));
}
