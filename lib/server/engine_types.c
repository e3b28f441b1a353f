/* SPDX-License-Identifier: MIT */

/*
 * engine_types.c: Spark types for the SQLite engine.  Type names (Spark
 * and SQLite declared types), DataType messages, conversion of SQLite
 * values into Arrow columns, dates and timestamps as text, Java-style
 * double formatting, and the sc_cast() SQL function behind Spark's CAST.
 */

#define SC_ENGINE_INTERNAL
#include "server/engine.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "server/srverror.h"
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
	if (p < end && *p == '<')
		return -1;
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
	case SPARK__CONNECT__DATA_TYPE__KIND_NULL:
		out->t = SC_ARROW_NULL;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_BINARY:
		out->t = SC_ARROW_BINARY;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_BOOLEAN:
		out->t = SC_ARROW_BOOL;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_BYTE:
		out->t = SC_ARROW_INT8;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_SHORT:
		out->t = SC_ARROW_INT16;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_INTEGER:
		out->t = SC_ARROW_INT32;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_LONG:
		out->t = SC_ARROW_INT64;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_FLOAT:
		out->t = SC_ARROW_FLOAT;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_DOUBLE:
		out->t = SC_ARROW_DOUBLE;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_DECIMAL:
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
	case SPARK__CONNECT__DATA_TYPE__KIND_STRING:
	case SPARK__CONNECT__DATA_TYPE__KIND_CHAR:
	case SPARK__CONNECT__DATA_TYPE__KIND_VAR_CHAR:
		out->t = SC_ARROW_UTF8;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_DATE:
		out->t = SC_ARROW_DATE32;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_TIMESTAMP:
		out->t = SC_ARROW_TIMESTAMP_US;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_TIMESTAMP_NTZ:
		out->t = SC_ARROW_TIMESTAMP_US;
		out->ntz = true;
		return 0;
	case SPARK__CONNECT__DATA_TYPE__KIND_UNPARSED: {
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
	    "sc-serve (only flat types are).",
	    (int)t->kind_case);
}

/* printSchema names. */
void
sc_eng_type_name(const struct sc_etype *t, struct sc_buf *out)
{
	const char *s = "void";

	switch (t->t) {
	case SC_ARROW_BOOL:
		s = "boolean";
		break;
	case SC_ARROW_INT8:
		s = "byte";
		break;
	case SC_ARROW_INT16:
		s = "short";
		break;
	case SC_ARROW_INT32:
		s = "integer";
		break;
	case SC_ARROW_INT64:
		s = "long";
		break;
	case SC_ARROW_FLOAT:
		s = "float";
		break;
	case SC_ARROW_DOUBLE:
		s = "double";
		break;
	case SC_ARROW_UTF8:
	case SC_ARROW_LARGE_UTF8:
		s = "string";
		break;
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_BINARY:
		s = "binary";
		break;
	case SC_ARROW_DATE32:
		s = "date";
		break;
	case SC_ARROW_TIMESTAMP_US:
		s = t->ntz ? "timestamp_ntz" : "timestamp";
		break;
	case SC_ARROW_DECIMAL128:
		sc_buf_addf(out, NULL, "decimal(%d,%d)", t->prec, t->scale);
		return;
	default:
		break;
	}
	sc_buf_addstr(out, s, NULL);
}

/* SQL names, as Spark prints them in CAST(x AS BIGINT) and in DDL. */
void
sc_eng_type_sql(const struct sc_etype *t, struct sc_buf *out)
{
	const char *s = "VOID";

	switch (t->t) {
	case SC_ARROW_BOOL:
		s = "BOOLEAN";
		break;
	case SC_ARROW_INT8:
		s = "TINYINT";
		break;
	case SC_ARROW_INT16:
		s = "SMALLINT";
		break;
	case SC_ARROW_INT32:
		s = "INT";
		break;
	case SC_ARROW_INT64:
		s = "BIGINT";
		break;
	case SC_ARROW_FLOAT:
		s = "FLOAT";
		break;
	case SC_ARROW_DOUBLE:
		s = "DOUBLE";
		break;
	case SC_ARROW_UTF8:
	case SC_ARROW_LARGE_UTF8:
		s = "STRING";
		break;
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_BINARY:
		s = "BINARY";
		break;
	case SC_ARROW_DATE32:
		s = "DATE";
		break;
	case SC_ARROW_TIMESTAMP_US:
		s = t->ntz ? "TIMESTAMP_NTZ" : "TIMESTAMP";
		break;
	case SC_ARROW_DECIMAL128:
		sc_buf_addf(out, NULL, "DECIMAL(%d,%d)", t->prec, t->scale);
		return;
	default:
		break;
	}
	sc_buf_addstr(out, s, NULL);
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
	case SC_ARROW_NULL:
		return;
	default:
		sc_eng_type_sql(t, out);
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

static Spark__Connect__DataType *
datatype_new(const struct sc_etype *t)
{
	Spark__Connect__DataType *d = sc_xmalloc(sizeof(*d));

	spark__connect__data_type__init(d);
	switch (t->t) {
	case SC_ARROW_BOOL:
		d->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_BOOLEAN;
		d->boolean =
		    kind_new(&spark__connect__data_type__boolean__descriptor);
		break;
	case SC_ARROW_INT8:
		d->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_BYTE;
		d->byte =
		    kind_new(&spark__connect__data_type__byte__descriptor);
		break;
	case SC_ARROW_INT16:
		d->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_SHORT;
		d->short_ =
		    kind_new(&spark__connect__data_type__short__descriptor);
		break;
	case SC_ARROW_INT32:
		d->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_INTEGER;
		d->integer =
		    kind_new(&spark__connect__data_type__integer__descriptor);
		break;
	case SC_ARROW_INT64:
		d->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_LONG;
		d->long_ =
		    kind_new(&spark__connect__data_type__long__descriptor);
		break;
	case SC_ARROW_FLOAT:
		d->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_FLOAT;
		d->float_ =
		    kind_new(&spark__connect__data_type__float__descriptor);
		break;
	case SC_ARROW_DOUBLE:
		d->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_DOUBLE;
		d->double_ =
		    kind_new(&spark__connect__data_type__double__descriptor);
		break;
	case SC_ARROW_DECIMAL128:
		d->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_DECIMAL;
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
		d->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_STRING;
		d->string =
		    kind_new(&spark__connect__data_type__string__descriptor);
		break;
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_BINARY:
		d->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_BINARY;
		d->binary =
		    kind_new(&spark__connect__data_type__binary__descriptor);
		break;
	case SC_ARROW_DATE32:
		d->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_DATE;
		d->date =
		    kind_new(&spark__connect__data_type__date__descriptor);
		break;
	case SC_ARROW_TIMESTAMP_US:
		if (t->ntz) {
			d->kind_case =
			    SPARK__CONNECT__DATA_TYPE__KIND_TIMESTAMP_NTZ;
			d->timestamp_ntz = kind_new(ntz_descriptor);
		} else {
			d->kind_case =
			    SPARK__CONNECT__DATA_TYPE__KIND_TIMESTAMP;
			d->timestamp = kind_new(
			    &spark__connect__data_type__timestamp__descriptor);
		}
		break;
	default:
		d->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_NULL;
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
	d->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_STRUCT;
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
	if (t->kind_case == SPARK__CONNECT__DATA_TYPE__KIND_STRUCT) {
		Spark__Connect__DataType__Struct *st = t->struct_;

		for (i = 0; i < st->n_fields; i++) {
			free(st->fields[i]->name);
			sc_engine_datatype_free(st->fields[i]->data_type);
			free(st->fields[i]);
		}
		free(st->fields);
		free(st);
	} else if (t->kind_case != SPARK__CONNECT__DATA_TYPE__KIND__NOT_SET) {
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
	sc_eng_type_name(&et, out);
	return 0;
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
		if (t == SC_ARROW_DECIMAL128) {
			f->precision = cols[i].type.prec;
			f->scale = cols[i].type.scale;
		}
		if (t == SC_ARROW_TIMESTAMP_US && !cols[i].type.ntz)
			f->tz = sc_xstrdup("UTC");
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Dates and timestamps                                                */
/* ------------------------------------------------------------------ */

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void
civil_from_days(int64_t z, int64_t *yp, int *mp, int *dp)
{
	int64_t era, doe, yoe, y, doy, mp_;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp_ = (5 * doy + 2) / 153;
	*dp = (int)(doy - (153 * mp_ + 2) / 5 + 1);
	*mp = (int)(mp_ < 10 ? mp_ + 3 : mp_ - 9);
	*yp = y + (*mp <= 2);
}

static int
days_in_month(int64_t y, int m)
{
	static const int dim[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30,
		31 };

	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return dim[m - 1];
}

static int
digits(const char **sp, const char *end, int min, int max, int64_t *out)
{
	const char *s = *sp;
	int64_t v = 0;
	int n = 0;

	while (s < end && isdigit((unsigned char)*s) && n < max) {
		v = v * 10 + (*s - '0');
		s++;
		n++;
	}
	if (n < min)
		return -1;
	*sp = s;
	*out = v;
	return 0;
}

/*
 * Parse "[+-]yyyy[-m[m][-d[d]]]" at *sp (Spark's date forms) and leave
 * *sp after it.
 */
static int
parse_date_part(const char **sp, const char *end, int64_t *days)
{
	const char *s = *sp;
	int64_t y, m = 1, d = 1;
	int neg = 0;

	if (s < end && (*s == '-' || *s == '+'))
		neg = *s++ == '-';
	if (digits(&s, end, 4, 6, &y) == -1)
		return -1;
	if (s < end && *s == '-') {
		s++;
		if (digits(&s, end, 1, 2, &m) == -1)
			return -1;
		if (s < end && *s == '-') {
			s++;
			if (digits(&s, end, 1, 2, &d) == -1)
				return -1;
		}
	}
	if (neg)
		y = -y;
	if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, (int)m))
		return -1;
	*days = days_from_civil(y, (int)m, (int)d);
	*sp = s;
	return 0;
}

static void
trim(const char **sp, size_t *np)
{
	const char *s = *sp;
	size_t n = *np;

	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	*sp = s;
	*np = n;
}

/* A date, optionally followed by ' ' or 'T' and anything (ignored). */
int
sc_eng_parse_date(const char *s, size_t n, int32_t *out)
{
	const char *end;
	int64_t days;

	trim(&s, &n);
	end = s + n;
	if (parse_date_part(&s, end, &days) == -1)
		return -1;
	if (s < end && *s != ' ' && *s != 'T')
		return -1;
	if (days < INT32_MIN || days > INT32_MAX)
		return -1;
	*out = (int32_t)days;
	return 0;
}

/*
 * "date[( |T)h[h]:m[m][:s[s][.fraction]]][zone]" where zone is Z, UTC,
 * or [+-]hh[:mm]; no zone means UTC.
 */
int
sc_eng_parse_timestamp(const char *s, size_t n, int64_t *out)
{
	const char *end;
	int64_t days, h = 0, mi = 0, sec = 0, frac = 0, off = 0;
	int fd = 0;

	trim(&s, &n);
	end = s + n;
	if (parse_date_part(&s, end, &days) == -1)
		return -1;
	if (s < end && (*s == ' ' || *s == 'T')) {
		s++;
		if (digits(&s, end, 1, 2, &h) == -1 || s >= end || *s != ':')
			return -1;
		s++;
		if (digits(&s, end, 1, 2, &mi) == -1)
			return -1;
		if (s < end && *s == ':') {
			s++;
			if (digits(&s, end, 1, 2, &sec) == -1)
				return -1;
			if (s < end && *s == '.') {
				s++;
				while (s < end && isdigit((unsigned char)*s)) {
					if (fd < 6) {
						frac = frac * 10 + (*s - '0');
						fd++;
					}
					s++;
				}
			}
		}
		if (h > 23 || mi > 59 || sec > 59)
			return -1;
		while (fd < 6) {
			frac *= 10;
			fd++;
		}
		if (s < end && *s == ' ')
			s++;
		if (s < end && (*s == 'Z' || *s == 'z') && s + 1 == end) {
			s++;
		} else if (end - s == 3 && strncasecmp(s, "UTC", 3) == 0) {
			s += 3;
		} else if (s < end && (*s == '+' || *s == '-')) {
			int neg = *s == '-';
			int64_t oh, om = 0;

			s++;
			if (digits(&s, end, 1, 2, &oh) == -1)
				return -1;
			if (s < end && *s == ':')
				s++;
			if (s < end && digits(&s, end, 2, 2, &om) == -1)
				return -1;
			if (oh > 18 || om > 59)
				return -1;
			off = (oh * 3600 + om * 60) * (neg ? -1 : 1);
		}
	}
	if (s != end)
		return -1;
	*out =
	    ((days * 86400 + h * 3600 + mi * 60 + sec) - off) * 1000000 + frac;
	return 0;
}

void
sc_eng_fmt_date(int32_t days, char *buf, size_t sz)
{
	int64_t y;
	int m, d;

	civil_from_days(days, &y, &m, &d);
	if (y >= 0 && y <= 9999)
		snprintf(buf, sz, "%04" PRId64 "-%02d-%02d", y, m, d);
	else
		snprintf(buf, sz, "%+05" PRId64 "-%02d-%02d", y, m, d);
}

void
sc_eng_fmt_timestamp(int64_t us, char *buf, size_t sz)
{
	int64_t secs, days, rem, frac;
	size_t l;
	int i;
	char f[8];

	secs = us / 1000000;
	frac = us % 1000000;
	if (frac < 0) {
		frac += 1000000;
		secs--;
	}
	days = secs / 86400;
	rem = secs % 86400;
	if (rem < 0) {
		rem += 86400;
		days--;
	}
	sc_eng_fmt_date((int32_t)days, buf, sz);
	l = strlen(buf);
	snprintf(buf + l, sz - l, " %02d:%02d:%02d", (int)(rem / 3600),
	    (int)(rem / 60 % 60), (int)(rem % 60));
	if (frac != 0) {
		snprintf(f, sizeof(f), ".%06d", (int)frac);
		for (i = 6; f[i] == '0'; i--)
			f[i] = '\0';
		l = strlen(buf);
		snprintf(buf + l, sz - l, "%s", f);
	}
}

/* ------------------------------------------------------------------ */
/* Numbers as text                                                     */
/* ------------------------------------------------------------------ */

/*
 * Java's Double.toString (Float.toString with is_float): the shortest
 * digits that read back as d, plain notation for 1e-3 <= |d| < 1e7,
 * else d.dddE<n>; always a digit after the point.
 */
void
sc_eng_fmt_double(double d, bool is_float, char *buf, size_t sz)
{
	char tmp[40], dig[24];
	char *p, *e;
	int prec, nd = 0, exp10, i;
	size_t o = 0;

	if (isnan(d)) {
		snprintf(buf, sz, "NaN");
		return;
	}
	if (isinf(d)) {
		snprintf(buf, sz, d > 0 ? "Infinity" : "-Infinity");
		return;
	}
	if (d == 0) {
		snprintf(buf, sz, signbit(d) ? "-0.0" : "0.0");
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, d);
		if (is_float ? (float)strtod(tmp, NULL) == (float)d
			     : strtod(tmp, NULL) == d)
			break;
	}
	p = tmp;
	if (*p == '-')
		p++;
	for (; *p != 'e' && *p != '\0'; p++)
		if (isdigit((unsigned char)*p))
			dig[nd++] = *p;
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	dig[nd] = '\0';
	exp10 = (int)strtol(p + 1, &e, 10);

#define PUT(c)                          \
	do {                            \
		if (o + 1 < sz)         \
			buf[o++] = (c); \
	} while (0)
	if (d < 0)
		PUT('-');
	if (exp10 >= -3 && exp10 < 7) {
		if (exp10 < 0) {
			PUT('0');
			PUT('.');
			for (i = -1; i > exp10; i--)
				PUT('0');
			for (i = 0; i < nd; i++)
				PUT(dig[i]);
		} else {
			for (i = 0; i <= exp10; i++)
				PUT(i < nd ? dig[i] : '0');
			PUT('.');
			if (nd <= exp10 + 1)
				PUT('0');
			for (i = exp10 + 1; i < nd; i++)
				PUT(dig[i]);
		}
	} else {
		PUT(dig[0]);
		PUT('.');
		if (nd == 1)
			PUT('0');
		for (i = 1; i < nd; i++)
			PUT(dig[i]);
		PUT('E');
		snprintf(tmp, sizeof(tmp), "%d", exp10);
		for (p = tmp; *p != '\0'; p++)
			PUT(*p);
	}
#undef PUT
	if (sz > 0)
		buf[o] = '\0';
}

/*
 * Rescale decimal text s[0..n) ("[+-]digits[.digits][e[+-]n]") to scale
 * digits after the point, rounding half up (away from zero), as Spark's
 * CAST(x AS DECIMAL(p,s)).  0 and the text in out, -1 malformed, -2 the
 * result needs more than prec digits.
 */
static int
dec_rescale(const char *s, size_t n, int prec, int scale, char *out,
    size_t outsz)
{
	char dg[96];
	const char *end;
	int nd = 0, point = -1, exp10 = 0, neg = 0, shift, i, ni;
	bool any = false;

	trim(&s, &n);
	end = s + n;
	if (s < end && (*s == '+' || *s == '-'))
		neg = *s++ == '-';
	for (; s < end; s++) {
		if (isdigit((unsigned char)*s)) {
			any = true;
			if (nd == 0 && *s == '0') {
				if (point >= 0)
					exp10--;
				continue;
			}
			if (nd >= 80)
				return -2;
			dg[nd++] = *s;
			if (point >= 0)
				exp10--;
		} else if (*s == '.' && point < 0) {
			point = nd;
		} else {
			break;
		}
	}
	if (!any)
		return -1;
	if (s < end && (*s == 'e' || *s == 'E')) {
		char *e;
		long x;
		char eb[16];
		size_t el = (size_t)(end - s - 1);

		if (el == 0 || el >= sizeof(eb))
			return -1;
		memcpy(eb, s + 1, el);
		eb[el] = '\0';
		x = strtol(eb, &e, 10);
		if (*e != '\0')
			return -1;
		if (x > 100 || x < -100)
			return x > 0 && nd > 0 ? -2 : (nd = 0, 0);
		exp10 += (int)x;
		s = end;
	}
	if (s != end)
		return -1;
	/* value = dg[0..nd) * 10^exp10; want unscaled = value * 10^scale */
	shift = exp10 + scale;
	if (shift >= 0) {
		if (nd + shift > 80)
			return -2;
		for (i = 0; i < shift && nd > 0; i++)
			dg[nd++] = '0';
	} else {
		int drop = -shift;
		bool up;

		if (drop > nd) {
			nd = 0;
		} else {
			up = dg[nd - drop] >= '5';
			nd -= drop;
			if (up) {
				for (i = nd - 1; i >= 0 && dg[i] == '9'; i--)
					dg[i] = '0';
				if (i >= 0) {
					dg[i]++;
				} else {
					memmove(dg + 1, dg, (size_t)nd);
					dg[0] = '1';
					nd++;
				}
			}
		}
	}
	if (nd > prec)
		return -2;
	/* Format: integer part, '.', scale digits. */
	ni = nd - scale;
	i = 0;
	if (outsz < (size_t)(prec + 4))
		return -2;
	if (neg && nd > 0)
		out[i++] = '-';
	if (ni <= 0) {
		out[i++] = '0';
	} else {
		memcpy(out + i, dg, (size_t)ni);
		i += ni;
	}
	if (scale > 0) {
		int k;

		out[i++] = '.';
		for (k = 0; k < scale; k++) {
			int src = ni + k;

			out[i++] = src >= 0 && src < nd ? dg[src] : '0';
		}
	}
	out[i] = '\0';
	return 0;
}

/* Strict integer text: [+-]digits, surrounding spaces allowed. */
static int
parse_int64(const char *s, size_t n, int64_t *out)
{
	char b[32];
	char *e;
	long long v;

	trim(&s, &n);
	if (n == 0 || n >= sizeof(b))
		return -1;
	memcpy(b, s, n);
	b[n] = '\0';
	if (!isdigit((unsigned char)b[0]) &&
	    !(n > 1 && (b[0] == '-' || b[0] == '+') &&
		isdigit((unsigned char)b[1])))
		return -1;
	errno = 0;
	v = strtoll(b, &e, 10);
	if (*e != '\0' || errno == ERANGE)
		return -1;
	*out = v;
	return 0;
}

/* Floating text as Java reads it: no hex, NaN/Infinity allowed. */
static int
parse_double(const char *s, size_t n, double *out)
{
	char b[64];
	char *e;
	size_t i;

	trim(&s, &n);
	if (n == 0 || n >= sizeof(b))
		return -1;
	memcpy(b, s, n);
	b[n] = '\0';
	for (i = 0; i < n; i++)
		if (b[i] == 'x' || b[i] == 'X')
			return -1;
	*out = strtod(b, &e);
	return *e == '\0' ? 0 : -1;
}

static int
parse_bool(const char *s, size_t n, int *out)
{
	static const char *const yes[] = { "t", "true", "y", "yes", "1" };
	static const char *const no[] = { "f", "false", "n", "no", "0" };
	size_t i;

	trim(&s, &n);
	for (i = 0; i < SC_NELEM(yes); i++) {
		if (strlen(yes[i]) == n && strncasecmp(s, yes[i], n) == 0) {
			*out = 1;
			return 0;
		}
		if (strlen(no[i]) == n && strncasecmp(s, no[i], n) == 0) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

static bool
int_fits(int t, int64_t v)
{
	switch (t) {
	case SC_ARROW_INT8:
		return v >= INT8_MIN && v <= INT8_MAX;
	case SC_ARROW_INT16:
		return v >= INT16_MIN && v <= INT16_MAX;
	case SC_ARROW_INT32:
		return v >= INT32_MIN && v <= INT32_MAX;
	default:
		return true;
	}
}

/* Doubles that convert to int64 without overflow, truncated. */
static int
double_to_int64(double d, int64_t *out)
{
	if (isnan(d) || d >= 9223372036854775808.0 ||
	    d < -9223372036854775808.0)
		return -1;
	*out = (int64_t)d;
	return 0;
}

/* ------------------------------------------------------------------ */
/* SQLite values into Arrow columns                                    */
/* ------------------------------------------------------------------ */

/* Through sqlite3_column_value(): one column lookup, not two. */
void
sc_eng_eval_column(sqlite3_stmt *st, int col, struct sc_eval *v)
{
	sqlite3_value *sv = sqlite3_column_value(st, col);

	v->t = sqlite3_value_type(sv);
	switch (v->t) {
	case SQLITE_INTEGER:
		v->i = sqlite3_value_int64(sv);
		break;
	case SQLITE_FLOAT:
		v->d = sqlite3_value_double(sv);
		break;
	case SQLITE_TEXT:
		v->p = sqlite3_value_text(sv);
		v->n = (size_t)sqlite3_value_bytes(sv);
		break;
	case SQLITE_BLOB:
		v->p = sqlite3_value_blob(sv);
		v->n = (size_t)sqlite3_value_bytes(sv);
		break;
	default:
		break;
	}
}

static const char *
storage_name(int t)
{
	switch (t) {
	case SQLITE_INTEGER:
		return "INTEGER";
	case SQLITE_FLOAT:
		return "REAL";
	case SQLITE_TEXT:
		return "TEXT";
	case SQLITE_BLOB:
		return "BLOB";
	default:
		return "NULL";
	}
}

/* The value as short text for error messages. */
static void
value_text(const struct sc_eval *v, char *buf, size_t sz)
{
	size_t n;

	switch (v->t) {
	case SQLITE_INTEGER:
		snprintf(buf, sz, "%" PRId64, v->i);
		break;
	case SQLITE_FLOAT:
		sc_eng_fmt_double(v->d, false, buf, sz);
		break;
	case SQLITE_TEXT:
		n = v->n < 60 ? v->n : 60;
		snprintf(buf, sz, "'%.*s%s'", (int)n, (const char *)v->p,
		    v->n > n ? "..." : "");
		break;
	case SQLITE_BLOB:
		snprintf(buf, sz, "<%zu bytes>", v->n);
		break;
	default:
		snprintf(buf, sz, "NULL");
		break;
	}
}

static int
put_mismatch(const struct sc_ecol *c, const struct sc_eval *v, int64_t row,
    bool overflow, struct sc_error *err)
{
	struct sc_buf tn;
	char vt[96];
	int rc;

	sc_buf_init(&tn, 64);
	sc_eng_type_sql(&c->type, &tn);
	value_text(v, vt, sizeof(vt));
	if (c->inferred)
		rc = sc_srv_error(err, "INCONSISTENT_COLUMN_TYPE", "42804",
		    "Column `%s` was given the type %s from its first rows, "
		    "but row %" PRId64 " holds the %s value %s; add a CAST to "
		    "the query.",
		    c->name, (const char *)tn.data, row + 1, storage_name(v->t),
		    vt);
	else if (overflow)
		rc = sc_srv_error(err, "CAST_OVERFLOW", "22003",
		    "The value %s of column `%s` cannot be cast to \"%s\" due "
		    "to an overflow.",
		    vt, c->name, (const char *)tn.data);
	else
		rc = sc_srv_error(err, "CAST_INVALID_INPUT", "22018",
		    "The value %s of the type \"%s\" in column `%s` cannot be "
		    "cast to \"%s\" because it is malformed.",
		    vt, storage_name(v->t), c->name, (const char *)tn.data);
	sc_buf_release(&tn);
	return rc;
}

/* SQLite's own text for a number, as in a string column. */
static size_t
number_text(const struct sc_eval *v, char *buf, size_t sz)
{
	if (v->t == SQLITE_INTEGER)
		snprintf(buf, sz, "%" PRId64, v->i);
	else
		sqlite3_snprintf((int)sz, buf, "%!.15g", v->d);
	return strlen(buf);
}

/*
 * Append v to column col of w, converted to the column's type c->type
 * (see "Result types" in engine.h).  row (from 0) is for messages.
 */
int
sc_eng_put(struct sc_arrow_writer *w, size_t col, const struct sc_ecol *c,
    const struct sc_eval *v, int64_t row, struct sc_error *err)
{
	char tb[128];
	int64_t i64;
	double d;
	int32_t days;
	int b;
	size_t n;

	if (v->t == SQLITE_NULL)
		return sc_arrow_append_null(w, col, err);
	switch (c->type.t) {
	case SC_ARROW_BOOL:
		if (v->t == SQLITE_INTEGER)
			return sc_arrow_append_bool(w, col, v->i != 0, err);
		if (v->t == SQLITE_FLOAT)
			return sc_arrow_append_bool(w, col, v->d != 0, err);
		if (v->t == SQLITE_TEXT &&
		    parse_bool((const char *)v->p, v->n, &b) == 0)
			return sc_arrow_append_bool(w, col, b != 0, err);
		break;
	case SC_ARROW_INT8:
	case SC_ARROW_INT16:
	case SC_ARROW_INT32:
	case SC_ARROW_INT64:
		if (v->t == SQLITE_INTEGER) {
			i64 = v->i;
		} else if (v->t == SQLITE_FLOAT) {
			if (double_to_int64(v->d, &i64) == -1 ||
			    (double)i64 != v->d)
				return put_mismatch(c, v, row,
				    !c->inferred && !isnan(v->d) &&
					v->d == trunc(v->d),
				    err);
		} else if (v->t != SQLITE_TEXT ||
		    parse_int64((const char *)v->p, v->n, &i64) == -1) {
			break;
		}
		if (!int_fits(c->type.t, i64))
			return put_mismatch(c, v, row, true, err);
		return sc_arrow_append_int64(w, col, i64, err);
	case SC_ARROW_FLOAT:
	case SC_ARROW_DOUBLE:
		if (v->t == SQLITE_INTEGER)
			return sc_arrow_append_double(w, col, (double)v->i,
			    err);
		if (v->t == SQLITE_FLOAT)
			return sc_arrow_append_double(w, col, v->d, err);
		if (v->t == SQLITE_TEXT && !c->inferred &&
		    parse_double((const char *)v->p, v->n, &d) == 0)
			return sc_arrow_append_double(w, col, d, err);
		break;
	case SC_ARROW_DECIMAL128: {
		char out[64];
		int rc;

		if (v->t == SQLITE_INTEGER) {
			n = number_text(v, tb, sizeof(tb));
		} else if (v->t == SQLITE_FLOAT && isfinite(v->d)) {
			/* As Spark: the double's shortest decimal text. */
			sc_eng_fmt_double(v->d, false, tb, sizeof(tb));
			n = strlen(tb);
		} else if (v->t == SQLITE_TEXT && v->n < sizeof(tb)) {
			n = v->n;
			memcpy(tb, v->p, n);
		} else {
			break;
		}
		rc = dec_rescale(tb, n, c->type.prec, c->type.scale, out,
		    sizeof(out));
		if (rc == 0)
			return sc_arrow_append_decimal_str(w, col, out, err);
		return put_mismatch(c, v, row, rc == -2, err);
	}
	case SC_ARROW_UTF8:
	case SC_ARROW_LARGE_UTF8:
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_BINARY:
		if (v->t == SQLITE_TEXT || v->t == SQLITE_BLOB)
			return sc_arrow_append_bytes(w, col, v->p, v->n, err);
		if ((c->type.t == SC_ARROW_BINARY ||
			c->type.t == SC_ARROW_LARGE_BINARY) &&
		    c->inferred)
			break;
		n = number_text(v, tb, sizeof(tb));
		return sc_arrow_append_bytes(w, col, tb, n, err);
	case SC_ARROW_DATE32:
		if (v->t == SQLITE_TEXT &&
		    sc_eng_parse_date((const char *)v->p, v->n, &days) == 0)
			return sc_arrow_append_int64(w, col, days, err);
		if (v->t == SQLITE_INTEGER && int_fits(SC_ARROW_INT32, v->i))
			return sc_arrow_append_int64(w, col, v->i, err);
		break;
	case SC_ARROW_TIMESTAMP_US:
		if (v->t == SQLITE_TEXT &&
		    sc_eng_parse_timestamp((const char *)v->p, v->n, &i64) == 0)
			return sc_arrow_append_int64(w, col, i64, err);
		if (v->t == SQLITE_INTEGER) {
			if (v->i > INT64_MAX / 1000000 ||
			    v->i < INT64_MIN / 1000000)
				return put_mismatch(c, v, row, true, err);
			return sc_arrow_append_int64(w, col, v->i * 1000000,
			    err);
		}
		if (v->t == SQLITE_FLOAT) {
			if (double_to_int64(v->d * 1e6, &i64) == -1)
				return put_mismatch(c, v, row, true, err);
			return sc_arrow_append_int64(w, col,
			    (int64_t)llround(v->d * 1e6), err);
		}
		break;
	default:
		break;
	}
	return put_mismatch(c, v, row, false, err);
}

/* ------------------------------------------------------------------ */
/* sc_cast(x, 'type', mode[, 'source type']): Spark's CAST               */
/* ------------------------------------------------------------------ */

/*
 * mode 0: ANSI (Spark 4 default; malformed input and overflow are
 * errors), 1: TRY/LEGACY (they give NULL).  The source type is the
 * static type of x when the translator knows it (a boolean is 0/1 in
 * SQLite, so CAST(bool AS STRING) needs it).
 */

static void
cast_fail(sqlite3_context *ctx, int mode, bool overflow, sqlite3_value *x,
    const struct sc_etype *to)
{
	struct sc_buf tn;
	char *msg, vt[96];
	struct sc_eval v;

	if (mode != 0) {
		sqlite3_result_null(ctx);
		return;
	}
	memset(&v, 0, sizeof(v));
	v.t = sqlite3_value_type(x);
	if (v.t == SQLITE_INTEGER)
		v.i = sqlite3_value_int64(x);
	else if (v.t == SQLITE_FLOAT)
		v.d = sqlite3_value_double(x);
	else if (v.t == SQLITE_TEXT || v.t == SQLITE_BLOB) {
		v.p = v.t == SQLITE_TEXT ? sqlite3_value_text(x)
					 : sqlite3_value_blob(x);
		v.n = (size_t)sqlite3_value_bytes(x);
	}
	value_text(&v, vt, sizeof(vt));
	sc_buf_init(&tn, 64);
	sc_eng_type_sql(to, &tn);
	if (overflow)
		msg = sqlite3_mprintf(
		    "[CAST_OVERFLOW] The value %s cannot be "
		    "cast to \"%s\" due to an overflow. Use `try_cast` to "
		    "tolerate overflow and return NULL instead. "
		    "SQLSTATE: 22003",
		    vt, (const char *)tn.data);
	else
		msg = sqlite3_mprintf(
		    "[CAST_INVALID_INPUT] The value %s of "
		    "the type \"%s\" cannot be cast to \"%s\" because it is "
		    "malformed. Use `try_cast` to tolerate malformed input and "
		    "return NULL instead. SQLSTATE: 22018",
		    vt, storage_name(v.t), (const char *)tn.data);
	sc_buf_release(&tn);
	if (msg == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	sqlite3_result_error(ctx, msg, -1);
	sqlite3_free(msg);
}

static void
aux_free(void *p)
{
	free(p);
}

/* The parsed type of argument i, cached on the statement. */
static const struct sc_etype *
cast_type_arg(sqlite3_context *ctx, sqlite3_value **argv, int i)
{
	struct sc_etype *t = sqlite3_get_auxdata(ctx, i);
	const char *s;

	if (t != NULL)
		return t;
	s = (const char *)sqlite3_value_text(argv[i]);
	t = sc_xmalloc(sizeof(*t));
	if (s == NULL || sc_eng_parse_type(s, strlen(s), false, t) == -1) {
		free(t);
		return NULL;
	}
	sqlite3_set_auxdata(ctx, i, t, aux_free);
	/* set_auxdata may have freed t already on OOM; ask again. */
	return sqlite3_get_auxdata(ctx, i);
}

static void
cast_to_int(sqlite3_context *ctx, sqlite3_value *x, int type, int mode,
    const struct sc_etype *to)
{
	int64_t v;
	double d;
	const char *s, *dot;
	size_t n;

	switch (sqlite3_value_type(x)) {
	case SQLITE_INTEGER:
		v = sqlite3_value_int64(x);
		break;
	case SQLITE_FLOAT:
		d = trunc(sqlite3_value_double(x));
		if (double_to_int64(d, &v) == -1) {
			cast_fail(ctx, mode, true, x, to);
			return;
		}
		break;
	case SQLITE_TEXT:
		s = (const char *)sqlite3_value_text(x);
		n = (size_t)sqlite3_value_bytes(x);
		trim(&s, &n);
		/* Spark ignores a fractional part: '1.9' -> 1 */
		dot = memchr(s, '.', n);
		if (dot != NULL) {
			const char *q;

			for (q = dot + 1; q < s + n; q++)
				if (!isdigit((unsigned char)*q))
					break;
			if (q == s + n && dot > s &&
			    isdigit((unsigned char)dot[-1]))
				n = (size_t)(dot - s);
		}
		if (parse_int64(s, n, &v) == -1) {
			size_t k;
			bool num = n > 0;

			for (k = 0; k < n; k++)
				if (!isdigit((unsigned char)s[k]) &&
				    !(k == 0 && (s[k] == '-' || s[k] == '+')))
					num = false;
			cast_fail(ctx, mode, num, x, to);
			return;
		}
		break;
	default:
		cast_fail(ctx, mode, false, x, to);
		return;
	}
	if (!int_fits(type, v)) {
		cast_fail(ctx, mode, true, x, to);
		return;
	}
	sqlite3_result_int64(ctx, v);
}

static void
cast_to_string(sqlite3_context *ctx, sqlite3_value *x,
    const struct sc_etype *from)
{
	char b[64];

	switch (sqlite3_value_type(x)) {
	case SQLITE_INTEGER:
		if (from != NULL && from->t == SC_ARROW_BOOL) {
			sqlite3_result_text(ctx,
			    sqlite3_value_int64(x) != 0 ? "true" : "false", -1,
			    SQLITE_STATIC);
			return;
		}
		snprintf(b, sizeof(b), "%lld",
		    (long long)sqlite3_value_int64(x));
		sqlite3_result_text(ctx, b, -1, SQLITE_TRANSIENT);
		return;
	case SQLITE_FLOAT:
		sc_eng_fmt_double(sqlite3_value_double(x),
		    from != NULL && from->t == SC_ARROW_FLOAT, b, sizeof(b));
		sqlite3_result_text(ctx, b, -1, SQLITE_TRANSIENT);
		return;
	case SQLITE_TEXT:
	case SQLITE_BLOB:
		sqlite3_result_text(ctx, (const char *)sqlite3_value_blob(x),
		    sqlite3_value_bytes(x), SQLITE_TRANSIENT);
		return;
	default:
		sqlite3_result_null(ctx);
		return;
	}
}

static void
cast_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct sc_etype *to, *from = NULL;
	sqlite3_value *x = argv[0];
	int mode = sqlite3_value_int(argv[2]), vt, b;
	const char *s = NULL;
	size_t n = 0;
	char buf[96];
	double d;
	int64_t i64;
	int32_t days;

	to = cast_type_arg(ctx, argv, 1);
	if (to == NULL) {
		sqlite3_result_error(ctx,
		    "[INVALID_PLAN_INPUT] sc_cast: bad "
		    "type SQLSTATE: 22023",
		    -1);
		return;
	}
	if (argc > 3 && sqlite3_value_type(argv[3]) == SQLITE_TEXT)
		from = cast_type_arg(ctx, argv, 3);
	vt = sqlite3_value_type(x);
	if (vt == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	if (vt == SQLITE_TEXT) {
		s = (const char *)sqlite3_value_text(x);
		n = (size_t)sqlite3_value_bytes(x);
	}
	switch (to->t) {
	case SC_ARROW_NULL:
		sqlite3_result_null(ctx);
		return;
	case SC_ARROW_BOOL:
		if (vt == SQLITE_INTEGER) {
			sqlite3_result_int(ctx, sqlite3_value_int64(x) != 0);
		} else if (vt == SQLITE_FLOAT) {
			sqlite3_result_int(ctx, sqlite3_value_double(x) != 0);
		} else if (vt == SQLITE_TEXT && parse_bool(s, n, &b) == 0) {
			sqlite3_result_int(ctx, b);
		} else {
			cast_fail(ctx, mode, false, x, to);
		}
		return;
	case SC_ARROW_INT8:
	case SC_ARROW_INT16:
	case SC_ARROW_INT32:
	case SC_ARROW_INT64:
		cast_to_int(ctx, x, to->t, mode, to);
		return;
	case SC_ARROW_FLOAT:
	case SC_ARROW_DOUBLE:
		if (vt == SQLITE_INTEGER)
			d = (double)sqlite3_value_int64(x);
		else if (vt == SQLITE_FLOAT)
			d = sqlite3_value_double(x);
		else if (vt != SQLITE_TEXT || parse_double(s, n, &d) == -1) {
			cast_fail(ctx, mode, false, x, to);
			return;
		}
		if (to->t == SC_ARROW_FLOAT)
			d = (double)(float)d;
		sqlite3_result_double(ctx, d);
		return;
	case SC_ARROW_DECIMAL128: {
		int rc;

		if (vt == SQLITE_FLOAT) {
			d = sqlite3_value_double(x);
			if (!isfinite(d)) {
				cast_fail(ctx, mode, false, x, to);
				return;
			}
			sc_eng_fmt_double(d, false, buf, sizeof(buf));
			s = buf;
			n = strlen(buf);
		} else if (vt == SQLITE_INTEGER) {
			snprintf(buf, sizeof(buf), "%lld",
			    (long long)sqlite3_value_int64(x));
			s = buf;
			n = strlen(buf);
		} else if (vt == SQLITE_BLOB) {
			cast_fail(ctx, mode, false, x, to);
			return;
		}
		rc = dec_rescale(s, n, to->prec, to->scale, buf, sizeof(buf));
		if (rc != 0) {
			cast_fail(ctx, mode, rc == -2, x, to);
			return;
		}
		sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
		return;
	}
	case SC_ARROW_UTF8:
	case SC_ARROW_LARGE_UTF8:
		cast_to_string(ctx, x, from);
		return;
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_BINARY:
		if (vt == SQLITE_TEXT || vt == SQLITE_BLOB)
			sqlite3_result_blob(ctx, sqlite3_value_blob(x),
			    sqlite3_value_bytes(x), SQLITE_TRANSIENT);
		else
			cast_fail(ctx, mode, false, x, to);
		return;
	case SC_ARROW_DATE32:
		if (vt == SQLITE_TEXT && sc_eng_parse_date(s, n, &days) == 0) {
			sc_eng_fmt_date(days, buf, sizeof(buf));
			sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
		} else {
			cast_fail(ctx, mode, false, x, to);
		}
		return;
	case SC_ARROW_TIMESTAMP_US:
		if (vt == SQLITE_TEXT &&
		    sc_eng_parse_timestamp(s, n, &i64) == 0) {
		} else if (vt == SQLITE_INTEGER) {
			i64 = sqlite3_value_int64(x);
			if (i64 > INT64_MAX / 1000000 ||
			    i64 < INT64_MIN / 1000000) {
				cast_fail(ctx, mode, true, x, to);
				return;
			}
			i64 *= 1000000;
		} else if (vt == SQLITE_FLOAT) {
			d = sqlite3_value_double(x) * 1e6;
			if (double_to_int64(d, &i64) == -1) {
				cast_fail(ctx, mode, true, x, to);
				return;
			}
			i64 = (int64_t)llround(d);
		} else {
			cast_fail(ctx, mode, false, x, to);
			return;
		}
		sc_eng_fmt_timestamp(i64, buf, sizeof(buf));
		sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
		return;
	default:
		cast_fail(ctx, mode, false, x, to);
		return;
	}
}

/*
 * greatest()/least() skipping NULLs as Spark does (SQLite's scalar
 * max()/min() return NULL if any argument is NULL).  Values compare as
 * SQLite orders them (numbers before text before blobs).
 */
static int
value_cmp(sqlite3_value *a, sqlite3_value *b)
{
	int ta = sqlite3_value_type(a), tb = sqlite3_value_type(b);
	int ca = ta == SQLITE_INTEGER || ta == SQLITE_FLOAT ? 0
	    : ta == SQLITE_TEXT				    ? 1
							    : 2;
	int cb = tb == SQLITE_INTEGER || tb == SQLITE_FLOAT ? 0
	    : tb == SQLITE_TEXT				    ? 1
							    : 2;
	int na, nb, r;

	if (ca != cb)
		return ca < cb ? -1 : 1;
	if (ca == 0) {
		if (ta == SQLITE_INTEGER && tb == SQLITE_INTEGER) {
			int64_t x = sqlite3_value_int64(a);
			int64_t y = sqlite3_value_int64(b);

			return x < y ? -1 : x > y;
		} else {
			double x = sqlite3_value_double(a);
			double y = sqlite3_value_double(b);

			return x < y ? -1 : x > y;
		}
	}
	na = sqlite3_value_bytes(a);
	nb = sqlite3_value_bytes(b);
	r = memcmp(sqlite3_value_blob(a), sqlite3_value_blob(b),
	    (size_t)(na < nb ? na : nb));
	if (r != 0)
		return r;
	return na < nb ? -1 : na > nb;
}

static void
extreme_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int want = *(int *)sqlite3_user_data(ctx), i;
	sqlite3_value *best = NULL;

	for (i = 0; i < argc; i++) {
		if (sqlite3_value_type(argv[i]) == SQLITE_NULL)
			continue;
		if (best == NULL || value_cmp(argv[i], best) * want > 0)
			best = argv[i];
	}
	if (best == NULL)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_value(ctx, best);
}

int
sc_eng_register_functions(sqlite3 *db)
{
	static int greatest = 1, least = -1;
	int rc, flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;

	rc = sqlite3_create_function_v2(db, "sc_cast", 3, flags, NULL, cast_fn,
	    NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_cast", 4, flags, NULL,
		    cast_fn, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "greatest", -1, flags,
		    &greatest, extreme_fn, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "least", -1, flags, &least,
		    extreme_fn, NULL, NULL, NULL);
	return rc;
}
