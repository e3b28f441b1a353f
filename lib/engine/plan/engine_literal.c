/* SPDX-License-Identifier: MIT */

/*
 * engine_literal.c: literals into SQLite SQL (array, map and struct
 * literals in their nested JSON form), with the name and type Spark
 * gives them; and literals bound as SQL parameter values.
 */

#include "engine/plan/engine_expr_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* Short names for generated constants core/protocol.h does not have. */
#define LITDEC_(x) SPARK__CONNECT__EXPRESSION__LITERAL__DECIMAL___##x

/* A double as a SQLite REAL literal that reads back exactly. */
static int
real_literal(struct sc_buf *sql, double d, struct sc_error *err)
{
	char b[40];

	if (isnan(d))
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE",
		    "0A000",
		    "NaN literals are not supported by sc-serve "
		    "(SQLite has no NaN).");
	if (isinf(d)) {
		sc_buf_addstr(sql, d > 0 ? "9e999" : "(-9e999)", NULL);
		return 0;
	}
	snprintf(b, sizeof(b), "%.17g", d);
	if (strpbrk(b, ".e") == NULL)
		snprintf(b + strlen(b), sizeof(b) - strlen(b), ".0");
	if (d < 0)
		sc_buf_addf(sql, NULL, "(%s)", b);
	else
		sc_buf_addstr(sql, b, NULL);
	return 0;
}

static void
int_literal(struct sc_buf *sql, int64_t v)
{
	if (v == INT64_MIN)
		sc_buf_addstr(sql, "(-9223372036854775807 - 1)", NULL);
	else if (v < 0)
		sc_buf_addf(sql, NULL, "(%" PRId64 ")", v);
	else
		sc_buf_addf(sql, NULL, "%" PRId64, v);
}

/* Check a decimal literal's text and find its precision and scale. */
static int
decimal_text(const char *s, int *prec, int *scale)
{
	int ni = 0, nf = 0, point = 0, lead = 1;

	if (*s == '+' || *s == '-')
		s++;
	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s == '.' && !point) {
			point = 1;
		} else if (!isdigit((unsigned char)*s)) {
			return -1;
		} else if (point) {
			nf++;
		} else if (*s != '0' || !lead) {
			lead = 0;
			ni++;
		}
	}
	*prec = ni + nf > 0 ? ni + nf : 1;
	*scale = nf;
	return 0;
}

/*
 * The elements of an array, map or struct literal, as json_array(...)
 * of their nested forms (a map's as [key, value] pairs); their names
 * in ei->name.  *nulls: some element is null.
 */
static int
literal_elems(Spark__Connect__Expression__Literal *const *v, size_t n,
    Spark__Connect__Expression__Literal *const *v2, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_etype *t1, struct sc_etype *t2, bool *nulls,
    struct sc_error *err)
{
	struct sc_einfo e;
	struct sc_buf x;
	size_t i, k;
	int rc = 0;

	*nulls = false;
	sc_buf_addstr(sql, "json_array(", NULL);
	for (i = 0; i < n && rc == 0; i++) {
		if (i > 0) {
			sc_buf_addstr(sql, ", ", NULL);
			sc_buf_addstr(&ei->name, ", ", NULL);
		}
		if (v2 != NULL)
			sc_buf_addstr(sql, "json_array(", NULL);
		for (k = 0; k < (v2 != NULL ? 2u : 1u) && rc == 0; k++) {
			sc_eng_einfo_init(&e);
			sc_buf_init(&x, SC_BUF_UNLIMITED);
			rc = sc_eng_literal(k > 0 && v2 != NULL ? v2[i] : v[i],
			    &x, &e, err);
			if (rc == 0) {
				if (k > 0) {
					sc_buf_addstr(sql, ", ", NULL);
					sc_buf_addstr(&ei->name, ", ", NULL);
				}
				sc_eng_nest_encode(&e.type,
				    (const char *)x.data, sql);
				sc_buf_add(&ei->name, e.name.data, e.name.len,
				    NULL);
				if (e.nullable != 0)
					*nulls = true;
				if (k == 0 && t1->t == SC_ETYPE_UNKNOWN &&
				    e.type.t != SC_ARROW_NULL)
					*t1 = e.type;
				if (k == 1 && t2 != NULL &&
				    t2->t == SC_ETYPE_UNKNOWN &&
				    e.type.t != SC_ARROW_NULL)
					*t2 = e.type;
			}
			sc_buf_release(&x);
			sc_eng_einfo_release(&e);
		}
		if (v2 != NULL)
			sc_buf_addch(sql, ')', NULL);
	}
	sc_buf_addch(sql, ')', NULL);
	return rc;
}

static int
literal_type(const Spark__Connect__DataType *d, struct sc_etype *t,
    struct sc_error *err)
{
	memset(t, 0, sizeof(*t));
	t->t = SC_ETYPE_UNKNOWN;
	return d != NULL ? sc_eng_type_from_proto(d, t, err) : 0;
}

static int
literal_nested(const Spark__Connect__Expression__Literal *l, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_error *err)
{
	struct sc_etype t1, t2;
	bool nulls;

	ei->nullable = 0;
	if (l->literal_type_case == SC_LIT_(ARRAY)) {
		if (literal_type(l->array->element_type, &t1, err) == -1)
			return -1;
		sc_buf_addstr(&ei->name, "array(", NULL);
		if (literal_elems(l->array->elements, l->array->n_elements,
			NULL, sql, ei, &t1, NULL, &nulls, err) == -1)
			return -1;
		sc_buf_addch(&ei->name, ')', NULL);
		if (t1.t == SC_ETYPE_UNKNOWN)
			t1.t = SC_ARROW_NULL;
		/* As Spark types an array literal: containsNull true. */
		(void)nulls;
		return sc_eng_nest_array(&t1, true, &ei->type, err);
	}
	if (l->literal_type_case == SC_LIT_(MAP)) {
		if (l->map->n_keys != l->map->n_values)
			return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
			    "A map literal has %zu keys and %zu values.",
			    l->map->n_keys, l->map->n_values);
		if (literal_type(l->map->key_type, &t1, err) == -1 ||
		    literal_type(l->map->value_type, &t2, err) == -1)
			return -1;
		sc_buf_addstr(&ei->name, "map(", NULL);
		if (literal_elems(l->map->keys, l->map->n_keys, l->map->values,
			sql, ei, &t1, &t2, &nulls, err) == -1)
			return -1;
		sc_buf_addch(&ei->name, ')', NULL);
		if (t1.t == SC_ETYPE_UNKNOWN)
			t1.t = SC_ARROW_NULL;
		if (t2.t == SC_ETYPE_UNKNOWN)
			t2.t = SC_ARROW_NULL;
		return sc_eng_nest_map(&t1, &t2, true, &ei->type, err);
	}
	/* A struct literal needs its type: the field names are there. */
	if (l->struct_->struct_type == NULL)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A struct literal has no struct_type.");
	if (literal_type(l->struct_->struct_type, &t1, err) == -1)
		return -1;
	if (t1.t != SC_ARROW_STRUCT || t1.nest->n != l->struct_->n_elements)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A struct literal's values do not match its type.");
	t2 = t1;
	sc_buf_addstr(&ei->name, "struct(", NULL);
	if (literal_elems(l->struct_->elements, l->struct_->n_elements, NULL,
		sql, ei, &t2, NULL, &nulls, err) == -1)
		return -1;
	sc_buf_addch(&ei->name, ')', NULL);
	ei->type = t1;
	return 0;
}

/* A literal as SQL; also its name and type. */
int
sc_eng_literal(const Spark__Connect__Expression__Literal *l, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_error *err)
{
	char b[64];
	size_t i;

	ei->nullable = 0;
	switch (l->literal_type_case) {
	case SC_LIT_(ARRAY):
	case SC_LIT_(MAP):
	case SC_LIT_(STRUCT):
		return literal_nested(l, sql, ei, err);
	case SC_LIT_(NULL):
		sc_buf_addstr(sql, "NULL", NULL);
		sc_buf_addstr(&ei->name, "NULL", NULL);
		ei->nullable = 1;
		sc_eng_set_type(ei, SC_ARROW_NULL);
		if (l->null != NULL &&
		    sc_eng_type_from_proto(l->null, &ei->type, NULL) == -1)
			sc_eng_set_type(ei, SC_ARROW_NULL);
		return 0;
	case SC_LIT_(BINARY):
		sc_buf_addstr(sql, "X'", NULL);
		sc_buf_addstr(&ei->name, "X'", NULL);
		for (i = 0; i < l->binary.len; i++) {
			sc_buf_addf(sql, NULL, "%02X", l->binary.data[i]);
			sc_buf_addf(&ei->name, NULL, "%02X", l->binary.data[i]);
		}
		sc_buf_addch(sql, '\'', NULL);
		sc_buf_addch(&ei->name, '\'', NULL);
		sc_eng_set_type(ei, SC_ARROW_BINARY);
		return 0;
	case SC_LIT_(BOOLEAN):
		sc_buf_addstr(sql, l->boolean ? "1" : "0", NULL);
		sc_buf_addstr(&ei->name, l->boolean ? "true" : "false", NULL);
		sc_eng_set_type(ei, SC_ARROW_BOOL);
		return 0;
	case SC_LIT_(BYTE):
	case SC_LIT_(SHORT):
	case SC_LIT_(INTEGER):
		int_literal(sql, l->integer);
		sc_buf_addf(&ei->name, NULL, "%d", (int)l->integer);
		sc_eng_set_type(ei,
		    l->literal_type_case == SC_LIT_(BYTE) ? SC_ARROW_INT8
			: l->literal_type_case == SC_LIT_(SHORT)
			? SC_ARROW_INT16
			: SC_ARROW_INT32);
		return 0;
	case SC_LIT_(LONG):
		int_literal(sql, l->long_);
		sc_buf_addf(&ei->name, NULL, "%" PRId64, l->long_);
		sc_eng_set_type(ei, SC_ARROW_INT64);
		return 0;
	case SC_LIT_(FLOAT):
	case SC_LIT_(DOUBLE): {
		bool f = l->literal_type_case == SC_LIT_(FLOAT);
		double d = f ? (double)l->float_ : l->double_;

		if (real_literal(sql, d, err) == -1)
			return -1;
		if (f)
			sc_value_fmt_float(l->float_, b);
		else
			sc_value_fmt_double(d, b);
		sc_buf_addstr(&ei->name, b, NULL);
		sc_eng_set_type(ei, f ? SC_ARROW_FLOAT : SC_ARROW_DOUBLE);
		return 0;
	}
	case SC_LIT_(DECIMAL): {
		const Spark__Connect__Expression__Literal__Decimal *d =
		    l->decimal;
		int prec, scale;

		if (d->value == NULL ||
		    decimal_text(d->value, &prec, &scale) == -1)
			return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
			    "Malformed decimal literal '%s'.",
			    d->value != NULL ? d->value : "");
		if (d->_precision_case == LITDEC_(PRECISION_PRECISION))
			prec = d->precision;
		if (d->_scale_case == LITDEC_(SCALE_SCALE))
			scale = d->scale;
		if (prec < 1 || prec > 38 || scale < 0 || scale > prec)
			return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
			    "Invalid decimal literal type decimal(%d,%d).",
			    prec, scale);
		sc_buf_addf(sql, NULL, d->value[0] == '-' ? "(%s)" : "%s",
		    d->value);
		sc_buf_addstr(&ei->name, d->value, NULL);
		sc_eng_set_type(ei, SC_ARROW_DECIMAL128);
		ei->type.prec = prec;
		ei->type.scale = scale;
		return 0;
	}
	case SC_LIT_(STRING):
		sc_eng_quote_string(sql, l->string, strlen(l->string));
		sc_buf_addstr(&ei->name, l->string, NULL);
		sc_eng_set_type(ei, SC_ARROW_UTF8);
		return 0;
	case SC_LIT_(DATE):
		sc_value_fmt_date(l->date, b);
		sc_eng_quote_string(sql, b, strlen(b));
		sc_buf_addf(&ei->name, NULL, "DATE '%s'", b);
		sc_eng_set_type(ei, SC_ARROW_DATE32);
		return 0;
	case SC_LIT_(TIMESTAMP):
	case SC_LIT_(TIMESTAMP_NTZ): {
		bool ntz = l->literal_type_case == SC_LIT_(TIMESTAMP_NTZ);

		sc_value_fmt_timestamp(ntz ? l->timestamp_ntz : l->timestamp,
		    b);
		sc_eng_quote_string(sql, b, strlen(b));
		/* Spark names a TIMESTAMP by its session zone wall clock. */
		if (!ntz)
			sc_value_fmt_timestamp(
			    sc_tz_to_local(sc_eng_tz_current(), l->timestamp),
			    b);
		sc_buf_addf(&ei->name, NULL, "%s '%s'",
		    ntz ? "TIMESTAMP_NTZ" : "TIMESTAMP", b);
		sc_eng_set_type(ei, SC_ARROW_TIMESTAMP_US);
		ei->type.ntz = ntz;
		return 0;
	}
	case SC_LIT_(DAY_TIME_INTERVAL):
	case SC_LIT_(YEAR_MONTH_INTERVAL):
		return sc_eng_interval_literal(l, sql, ei);
	default:
		break;
	}
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE", "0A000",
	    "Literals of this type (Literal field %d) are not supported by "
	    "sc-serve.",
	    (int)l->literal_type_case);
}

int
sc_eng_literal_param(const Spark__Connect__Expression__Literal *l,
    sqlite3_stmt *st, int idx, struct sc_error *err)
{
	char b[64];
	double d;
	char *end;
	int rc;

	switch (l->literal_type_case) {
	case SC_LIT_(NULL):
		sqlite3_bind_null(st, idx);
		return 0;
	case SC_LIT_(BINARY):
		/* A value over the value limit is refused, not NULL. */
		rc = sqlite3_bind_blob64(st, idx, l->binary.data, l->binary.len,
		    SQLITE_TRANSIENT);
		return rc == SQLITE_OK ? 0 : sc_eng_bind_error(st, rc, err);
	case SC_LIT_(BOOLEAN):
		sqlite3_bind_int(st, idx, l->boolean ? 1 : 0);
		return 0;
	case SC_LIT_(BYTE):
	case SC_LIT_(SHORT):
	case SC_LIT_(INTEGER):
		sqlite3_bind_int(st, idx, l->integer);
		return 0;
	case SC_LIT_(LONG):
		sqlite3_bind_int64(st, idx, l->long_);
		return 0;
	case SC_LIT_(FLOAT):
		sqlite3_bind_double(st, idx, l->float_);
		return 0;
	case SC_LIT_(DOUBLE):
		sqlite3_bind_double(st, idx, l->double_);
		return 0;
	case SC_LIT_(DECIMAL):
		if (l->decimal->value == NULL)
			break;
		d = strtod(l->decimal->value, &end);
		if (*end == '\0' && end != l->decimal->value)
			sqlite3_bind_double(st, idx, d);
		else
			sqlite3_bind_text(st, idx, l->decimal->value, -1,
			    SQLITE_TRANSIENT);
		return 0;
	case SC_LIT_(STRING):
		rc = sqlite3_bind_text64(st, idx, l->string, strlen(l->string),
		    SQLITE_TRANSIENT, SQLITE_UTF8);
		return rc == SQLITE_OK ? 0 : sc_eng_bind_error(st, rc, err);
	case SC_LIT_(DATE):
		sc_value_fmt_date(l->date, b);
		sqlite3_bind_text(st, idx, b, -1, SQLITE_TRANSIENT);
		return 0;
	case SC_LIT_(TIMESTAMP):
		sc_value_fmt_timestamp(l->timestamp, b);
		sqlite3_bind_text(st, idx, b, -1, SQLITE_TRANSIENT);
		return 0;
	case SC_LIT_(TIMESTAMP_NTZ):
		sc_value_fmt_timestamp(l->timestamp_ntz, b);
		sqlite3_bind_text(st, idx, b, -1, SQLITE_TRANSIENT);
		return 0;
	default:
		break;
	}
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE", "0A000",
	    "SQL parameters of this type (Literal field %d) are not "
	    "supported by sc-serve.",
	    (int)l->literal_type_case);
}
