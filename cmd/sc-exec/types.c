/* SPDX-License-Identifier: MIT */

/*
 * types.c: Spark SQL type names for the DataType messages AnalyzePlan
 * returns, spelled as Spark's simpleString does.
 */

#include "sc-exec.h"

#include "core/buf.h"
#include "core/error.h"
#include "core/banned.h"

int
type_name(const Spark__Connect__DataType *t, struct sc_buf *out,
    struct sc_error *err)
{
	const Spark__Connect__DataType__Struct *st;
	size_t i;
	int p, s;

	if (t == NULL)
		return sc_buf_addstr(out, "unknown", err);
	switch (t->kind_case) {
	case SPARK__CONNECT__DATA_TYPE__KIND_NULL:
		return sc_buf_addstr(out, "void", err);
	case SPARK__CONNECT__DATA_TYPE__KIND_BINARY:
		return sc_buf_addstr(out, "binary", err);
	case SPARK__CONNECT__DATA_TYPE__KIND_BOOLEAN:
		return sc_buf_addstr(out, "boolean", err);
	case SPARK__CONNECT__DATA_TYPE__KIND_BYTE:
		return sc_buf_addstr(out, "tinyint", err);
	case SPARK__CONNECT__DATA_TYPE__KIND_SHORT:
		return sc_buf_addstr(out, "smallint", err);
	case SPARK__CONNECT__DATA_TYPE__KIND_INTEGER:
		return sc_buf_addstr(out, "int", err);
	case SPARK__CONNECT__DATA_TYPE__KIND_LONG:
		return sc_buf_addstr(out, "bigint", err);
	case SPARK__CONNECT__DATA_TYPE__KIND_FLOAT:
		return sc_buf_addstr(out, "float", err);
	case SPARK__CONNECT__DATA_TYPE__KIND_DOUBLE:
		return sc_buf_addstr(out, "double", err);
	case SPARK__CONNECT__DATA_TYPE__KIND_DECIMAL:
		/* Spark's defaults when absent: decimal(10,0). */
		p = t->decimal->_precision_case ==
			SPARK__CONNECT__DATA_TYPE__DECIMAL___PRECISION_PRECISION
		    ? t->decimal->precision
		    : 10;
		s = t->decimal->_scale_case ==
			SPARK__CONNECT__DATA_TYPE__DECIMAL___SCALE_SCALE
		    ? t->decimal->scale
		    : 0;
		return sc_buf_addf(out, err, "decimal(%d,%d)", p, s);
	case SPARK__CONNECT__DATA_TYPE__KIND_STRING:
		return sc_buf_addstr(out, "string", err);
	case SPARK__CONNECT__DATA_TYPE__KIND_CHAR:
		return sc_buf_addf(out, err, "char(%d)", t->char_->length);
	case SPARK__CONNECT__DATA_TYPE__KIND_VAR_CHAR:
		return sc_buf_addf(out, err, "varchar(%d)",
		    t->var_char->length);
	case SPARK__CONNECT__DATA_TYPE__KIND_DATE:
		return sc_buf_addstr(out, "date", err);
	case SPARK__CONNECT__DATA_TYPE__KIND_TIMESTAMP:
		return sc_buf_addstr(out, "timestamp", err);
	case SPARK__CONNECT__DATA_TYPE__KIND_TIMESTAMP_NTZ:
		return sc_buf_addstr(out, "timestamp_ntz", err);
	case SPARK__CONNECT__DATA_TYPE__KIND_CALENDAR_INTERVAL:
		return sc_buf_addstr(out, "interval", err);
	case SPARK__CONNECT__DATA_TYPE__KIND_YEAR_MONTH_INTERVAL:
		return sc_buf_addstr(out, "interval year to month", err);
	case SPARK__CONNECT__DATA_TYPE__KIND_DAY_TIME_INTERVAL:
		return sc_buf_addstr(out, "interval day to second", err);
	case SPARK__CONNECT__DATA_TYPE__KIND_ARRAY:
		if (sc_buf_addstr(out, "array<", err) == -1 ||
		    type_name(t->array->element_type, out, err) == -1)
			return -1;
		return sc_buf_addch(out, '>', err);
	case SPARK__CONNECT__DATA_TYPE__KIND_MAP:
		if (sc_buf_addstr(out, "map<", err) == -1 ||
		    type_name(t->map->key_type, out, err) == -1 ||
		    sc_buf_addch(out, ',', err) == -1 ||
		    type_name(t->map->value_type, out, err) == -1)
			return -1;
		return sc_buf_addch(out, '>', err);
	case SPARK__CONNECT__DATA_TYPE__KIND_STRUCT:
		st = t->struct_;
		if (sc_buf_addstr(out, "struct<", err) == -1)
			return -1;
		for (i = 0; i < st->n_fields; i++)
			if ((i > 0 && sc_buf_addch(out, ',', err) == -1) ||
			    sc_buf_addf(out, err, "%s:", st->fields[i]->name) ==
				-1 ||
			    type_name(st->fields[i]->data_type, out, err) == -1)
				return -1;
		return sc_buf_addch(out, '>', err);
	case SPARK__CONNECT__DATA_TYPE__KIND_UNPARSED:
		return sc_buf_addstr(out, t->unparsed->data_type_string, err);
	case SPARK__CONNECT__DATA_TYPE__KIND_VARIANT:
		return sc_buf_addstr(out, "variant", err);
	default:
		return sc_buf_addstr(out, "unknown", err);
	}
}
