/* SPDX-License-Identifier: MIT */

/*
 * types.c: Spark SQL type names for the DataType messages AnalyzePlan
 * returns, spelled as Spark's simpleString does (core/value).
 */

#include "sc-exec.h"

#include "core/value.h"
#include "core/banned.h"

int
type_name(const Spark__Connect__DataType *t, struct sc_buf *out,
    struct sc_error *err)
{
	return sc_value_datatype_name(t, SC_VALUE_SIMPLE, out, err);
}
