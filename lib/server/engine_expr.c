/* SPDX-License-Identifier: MIT */

/*
 * engine_expr.c: Spark Connect expressions into SQLite SQL, each with
 * the column name Spark would give it and, where known, its type.
 * Functions are mapped by a table (funcs[] below, read by
 * engine_fncall.c); anything outside it is an error naming it.  Column
 * references are engine_column.c's, literals engine_literal.c's, the
 * struct, array and map functions engine_collection.c's.
 */

#include "server/engine_expr_int.h"

#include <string.h>

#include "core/error.h"
#include "core/xmem.h"
#include "server/sqlparse.h"
#include "server/srverror.h"
#include "core/banned.h"

/* Short names for generated constants core/protocol.h does not have. */
#define EVAL_(x) SPARK__CONNECT__EXPRESSION__CAST__EVAL_MODE__EVAL_MODE_##x

/* ------------------------------------------------------------------ */
/* Expressions                                                         */
/* ------------------------------------------------------------------ */

void
sc_eng_einfo_init(struct sc_einfo *ei)
{
	memset(ei, 0, sizeof(*ei));
	sc_buf_init(&ei->name, SC_BUF_UNLIMITED);
	ei->type.t = SC_ETYPE_UNKNOWN;
	ei->nullable = 1;
}

void
sc_eng_einfo_release(struct sc_einfo *ei)
{
	sc_buf_release(&ei->name);
	free(ei->unaliased);
	ei->unaliased = NULL;
}

void
sc_eng_set_type(struct sc_einfo *ei, int t)
{
	memset(&ei->type, 0, sizeof(ei->type));
	ei->type.t = t;
}

/* --- functions ----------------------------------------------------- */

/*
 * The functions and operators sc-serve maps to SQLite.  Spark semantics
 * kept: "/" is floating division, floor/ceil give bigint, greatest/least
 * skip NULLs, LIKE is case-sensitive, substring position 0 means 1.
 */
static const struct sc_efdef defs[] = {
	{ "==", F_CMP, "=", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "=", F_CMP, "=", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "!=", F_NE, "<>", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "<>", F_NE, "<>", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "<", F_CMP, "<", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "<=", F_CMP, "<=", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ ">", F_CMP, ">", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ ">=", F_CMP, ">=", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "<=>", F_NULLSAFE, "IS", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "+", F_ARITH, "+", 2, 2, R_UNK, .flags = 0 },
	{ "-", F_ARITH, "-", 1, 2, R_UNK, .flags = 0 },
	{ "*", F_ARITH, "*", 2, 2, R_UNK, .flags = 0 },
	{ "%", F_ARITH, "%", 2, 2, R_UNK, .flags = 0 },
	{ "/", F_DIV, "/", 2, 2, SC_ARROW_DOUBLE, .flags = 0 },
	{ "negative", F_NEG, "-", 1, 1, R_ARG, .flags = 0 },
	{ "and", F_LOGIC, "AND", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "or", F_LOGIC, "OR", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "not", F_NOT, "NOT", 1, 1, SC_ARROW_BOOL, .flags = 0 },
	{ "!", F_NOT, "NOT", 1, 1, SC_ARROW_BOOL, .flags = 0 },
	{ "isnull", F_ISNULL, NULL, 1, 1, SC_ARROW_BOOL, .flags = 0 },
	{ "isnotnull", F_ISNOTNULL, NULL, 1, 1, SC_ARROW_BOOL, .flags = 0 },
	{ "in", F_IN, NULL, 1, -1, SC_ARROW_BOOL, .flags = 0 },
	{ "like", F_LIKE, NULL, 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "startswith", F_STARTS, NULL, 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "endswith", F_ENDS, NULL, 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "contains", F_CONTAINS, NULL, 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "abs", F_SIMPLE, "abs", 1, 1, R_ARG, .flags = 0 },
	{ "upper", F_SIMPLE, "upper", 1, 1, SC_ARROW_UTF8, .flags = 0 },
	/* more strings, dates (engine_func_str.c) */
	{ "btrim", F_SIMPLE, "trim", 1, 2, SC_ARROW_UTF8, .flags = 0 },
	{ "split_part", F_TMPL, "sc_split_part($1, $2, $3)", 3, 3,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "find_in_set", F_TMPL, "sc_find_in_set($1, $2)", 2, 2, SC_ARROW_INT32,
	    .flags = 0 },
	{ "levenshtein", F_TMPL, "sc_levenshtein($*)", 2, 3, SC_ARROW_INT32,
	    .flags = 0 },
	{ "overlay", F_TMPL, "sc_overlay($*)", 3, 4, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "regexp_count", F_TMPL, "sc_regexp_count($1, $2)", 2, 2,
	    SC_ARROW_INT32, .flags = 0 },
	{ "regexp_substr", F_TMPL, "sc_regexp_substr($1, $2)", 2, 2,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "soundex", F_TMPL, "sc_soundex($1)", 1, 1, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "url_encode", F_TMPL, "sc_url_encode($1)", 1, 1, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "url_decode", F_TMPL, "sc_url_decode($1)", 1, 1, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "dayname", F_TMPL,
	    "substr('SunMonTueWedThuFriSat', 1 + 3 * CAST(strftime('%w', $1) "
	    "AS INTEGER), 3)",
	    1, 1, SC_ARROW_UTF8, .flags = SC_EF_WALL },
	{ "monthname", F_TMPL,
	    "substr('JanFebMarAprMayJunJulAugSepOctNovDec', 3 * "
	    "CAST(strftime('%m', $1) AS INTEGER) - 2, 3)",
	    1, 1, SC_ARROW_UTF8, .flags = SC_EF_WALL },
	{ "weekday", F_TMPL, "(CAST(strftime('%w', $1) AS INTEGER) + 6) % 7", 1,
	    1, SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "unix_date", F_TMPL,
	    "CAST(julianday(date($1)) - 2440587.5 AS INTEGER)", 1, 1,
	    SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "next_day", F_TMPL, "sc_next_day($1, $2)", 2, 2, SC_ARROW_DATE32,
	    .flags = SC_EF_WALL },
	{ "date_from_unix_date", F_TMPL, "sc_date_from_unix_date($1)", 1, 1,
	    SC_ARROW_DATE32, .flags = 0 },
	{ "unix_seconds", F_TMPL, "sc_unix_us($1, 1000000)", 1, 1,
	    SC_ARROW_INT64, .flags = 0 },
	{ "unix_millis", F_TMPL, "sc_unix_us($1, 1000)", 1, 1, SC_ARROW_INT64,
	    .flags = 0 },
	{ "unix_micros", F_TMPL, "sc_unix_us($1, 1)", 1, 1, SC_ARROW_INT64,
	    .flags = 0 },
	{ "timestamp_seconds", F_TMPL, "sc_ts_from($1, 1000000)", 1, 1,
	    SC_ARROW_TIMESTAMP_US, .flags = 0 },
	{ "timestamp_millis", F_TMPL, "sc_ts_from($1, 1000)", 1, 1,
	    SC_ARROW_TIMESTAMP_US, .flags = 0 },
	{ "timestamp_micros", F_TMPL, "sc_ts_from($1, 1)", 1, 1,
	    SC_ARROW_TIMESTAMP_US, .flags = 0 },
	{ "current_database", F_SIMPLE, "current_database", 0, 0, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "current_schema", F_SIMPLE, "current_schema", 0, 0, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "ucase", F_SIMPLE, "upper", 1, 1, SC_ARROW_UTF8, .flags = 0 },
	{ "lower", F_SIMPLE, "lower", 1, 1, SC_ARROW_UTF8, .flags = 0 },
	{ "lcase", F_SIMPLE, "lower", 1, 1, SC_ARROW_UTF8, .flags = 0 },
	{ "length", F_SIMPLE, "length", 1, 1, SC_ARROW_INT32, .flags = 0 },
	{ "char_length", F_SIMPLE, "length", 1, 1, SC_ARROW_INT32, .flags = 0 },
	{ "character_length", F_SIMPLE, "length", 1, 1, SC_ARROW_INT32,
	    .flags = 0 },
	{ "trim", F_SIMPLE, "trim", 1, 2, SC_ARROW_UTF8, .flags = 0 },
	{ "ltrim", F_SIMPLE, "ltrim", 1, 2, SC_ARROW_UTF8, .flags = 0 },
	{ "rtrim", F_SIMPLE, "rtrim", 1, 2, SC_ARROW_UTF8, .flags = 0 },
	{ "instr", F_SIMPLE, "instr", 2, 2, SC_ARROW_INT32, .flags = 0 },
	{ "replace", F_REPLACE, "replace", 2, 3, SC_ARROW_UTF8, .flags = 0 },
	{ "sqrt", F_MATH, "SQRT", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "exp", F_SIMPLE, "exp", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "ln", F_SIMPLE, "ln", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "log10", F_SIMPLE, "log10", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "log2", F_SIMPLE, "log2", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "log", F_LOG, "log", 1, 2, SC_ARROW_DOUBLE, .flags = 0 },
	{ "sin", F_SIMPLE, "sin", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "cos", F_SIMPLE, "cos", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	/* engine_func_more.c */
	{ "cbrt", F_MORE, "CBRT", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "cosh", F_MORE, "COSH", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "sinh", F_MORE, "SINH", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "tanh", F_MORE, "TANH", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "acosh", F_MORE, "ACOSH", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "asinh", F_MORE, "ASINH", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "atanh", F_MORE, "ATANH", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "cot", F_MORE, "COT", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "csc", F_MORE, "CSC", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "sec", F_MORE, "SEC", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "log1p", F_MORE, "LOG1P", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "expm1", F_MORE, "EXPM1", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "hypot", F_MORE, "HYPOT", 2, 2, SC_ARROW_DOUBLE, .flags = 0 },
	{ "rint", F_MORE, "rint", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "e", F_MORE, "E", 0, 0, SC_ARROW_DOUBLE, .flags = 0 },
	{ "factorial", F_MORE, "factorial", 1, 1, SC_ARROW_INT64, .flags = 0 },
	{ "try_add", F_MORE, "try_add", 2, 2, R_UNK, .flags = 0 },
	{ "try_subtract", F_MORE, "try_subtract", 2, 2, R_UNK, .flags = 0 },
	{ "try_multiply", F_MORE, "try_multiply", 2, 2, R_UNK, .flags = 0 },
	{ "try_divide", F_MORE, "try_divide", 2, 2, SC_ARROW_DOUBLE,
	    .flags = 0 },
	{ "try_mod", F_MORE, "try_mod", 2, 2, R_UNK, .flags = 0 },
	{ "bit_count", F_MORE, "bit_count", 1, 1, SC_ARROW_INT32, .flags = 0 },
	{ "shiftleft", F_MORE, "shiftleft", 2, 2, R_UNK, .flags = 0 },
	{ "shiftright", F_MORE, "shiftright", 2, 2, R_UNK, .flags = 0 },
	{ "shiftrightunsigned", F_MORE, "shiftrightunsigned", 2, 2, R_UNK,
	    .flags = 0 },
	{ "bitwise_not", F_MORE, "bitwise_not", 1, 1, R_ARG, .flags = 0 },
	{ "skewness", F_MORE, "skewness", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "kurtosis", F_MORE, "kurtosis", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "product", F_MORE, "product", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "bit_and", F_MORE, "bit_and", 1, 1, R_UNK,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "bit_or", F_MORE, "bit_or", 1, 1, R_UNK,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "bit_xor", F_MORE, "bit_xor", 1, 1, R_UNK,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "try_sum", F_MORE, "try_sum", 1, 1, R_UNK,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "try_avg", F_MORE, "try_avg", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "tan", F_SIMPLE, "tan", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "asin", F_MATH, "ASIN", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "acos", F_MATH, "ACOS", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "atan", F_SIMPLE, "atan", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "atan2", F_SIMPLE, "atan2", 2, 2, SC_ARROW_DOUBLE, .flags = 0 },
	{ "degrees", F_SIMPLE, "degrees", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "radians", F_SIMPLE, "radians", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "pi", F_SIMPLE, "pi", 0, 0, SC_ARROW_DOUBLE, .flags = 0 },
	{ "sign", F_SIMPLE, "sign", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "signum", F_SIMPLE, "sign", 1, 1, SC_ARROW_DOUBLE, .flags = 0 },
	{ "pow", F_MATH, "POWER", 2, 2, SC_ARROW_DOUBLE, .flags = 0 },
	{ "power", F_MATH, "POWER", 2, 2, SC_ARROW_DOUBLE, .flags = 0 },
	{ "floor", F_FLOORCEIL, "floor", 1, 1, SC_ARROW_INT64, .flags = 0 },
	{ "ceil", F_FLOORCEIL, "ceil", 1, 1, SC_ARROW_INT64, .flags = 0 },
	{ "ceiling", F_FLOORCEIL, "ceil", 1, 1, SC_ARROW_INT64, .flags = 0 },
	{ "round", F_ROUND, "sc_round", 1, 2, R_UNK, .flags = 0 },
	{ "bround", F_ROUND, "sc_bround", 1, 2, R_UNK, .flags = 0 },
	{ "div", F_IDIV, NULL, 2, 2, SC_ARROW_INT64, .flags = 0 },
	{ "coalesce", F_COALESCE, "coalesce", 1, -1, R_UNK, .flags = 0 },
	{ "nvl", F_COALESCE, "coalesce", 2, 2, R_UNK, .flags = 0 },
	{ "ifnull", F_COALESCE, "coalesce", 2, 2, R_UNK, .flags = 0 },
	{ "nullif", F_SIMPLE, "nullif", 2, 2, R_ARG, .flags = 0 },
	{ "nvl2", F_NVL2, NULL, 3, 3, R_UNK, .flags = 0 },
	{ "greatest", F_EXTREME, "greatest", 2, -1, R_UNK, .flags = 0 },
	{ "least", F_EXTREME, "least", 2, -1, R_UNK, .flags = 0 },
	{ "if", F_IF, NULL, 3, 3, R_UNK, .flags = 0 },
	{ "iff", F_IF, NULL, 3, 3, R_UNK, .flags = 0 },
	{ "when", F_WHEN, NULL, 2, -1, R_UNK, .flags = 0 },
	{ "concat", F_CONCAT, NULL, 0, -1, SC_ARROW_UTF8, .flags = 0 },
	{ "substring", F_SUBSTR, NULL, 2, 3, R_ARG, .flags = 0 },
	{ "substr", F_SUBSTR, NULL, 2, 3, R_ARG, .flags = 0 },
	{ "count", F_COUNT, "count", 1, -1, SC_ARROW_INT64,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "sum", F_AGG, "sum", 1, 1, R_UNK,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "avg", F_AGG, "avg", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "mean", F_AGG, "avg", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "min", F_AGG, "min", 1, 1, R_ARG,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "max", F_AGG, "max", 1, 1, R_ARG,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "current_date", F_NOW, "date('now')", 0, 0, SC_ARROW_DATE32,
	    .flags = SC_EF_NONDET },
	{ "current_timezone", F_NOW, "sc_current_timezone()", 0, 0,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "current_timestamp", F_NOW, "strftime('%Y-%m-%d %H:%M:%f', 'now')", 0,
	    0, SC_ARROW_TIMESTAMP_US, .flags = SC_EF_NONDET },
	{ "now", F_NOW, "strftime('%Y-%m-%d %H:%M:%f', 'now')", 0, 0,
	    SC_ARROW_TIMESTAMP_US, .flags = SC_EF_NONDET },
	{ "year", F_DATEPART, "%Y", 1, 1, SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "month", F_DATEPART, "%m", 1, 1, SC_ARROW_INT32,
	    .flags = SC_EF_WALL },
	{ "day", F_DATEPART, "%d", 1, 1, SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "dayofmonth", F_DATEPART, "%d", 1, 1, SC_ARROW_INT32,
	    .flags = SC_EF_WALL },
	{ "hour", F_DATEPART, "%H", 1, 1, SC_ARROW_INT32, .flags = SC_EF_WALL,
	    .ts_args = 1 },
	{ "minute", F_DATEPART, "%M", 1, 1, SC_ARROW_INT32, .flags = SC_EF_WALL,
	    .ts_args = 1 },
	{ "second", F_DATEPART, "%S", 1, 1, SC_ARROW_INT32, .flags = SC_EF_WALL,
	    .ts_args = 1 },
	{ "to_date", F_TOTYPE, "date", 1, 1, SC_ARROW_DATE32,
	    .flags = SC_EF_WALL },
	{ "to_timestamp", F_TOTYPE, "timestamp", 1, 1, SC_ARROW_TIMESTAMP_US,
	    .flags = 0 },
	{ "to_date", F_TMPL, "sc_parse_dt($1, $2, 0)", 2, 2, SC_ARROW_DATE32,
	    .flags = SC_EF_WALL },
	{ "to_timestamp", F_TMPL, "sc_parse_dt($1, $2, 1)", 2, 2,
	    SC_ARROW_TIMESTAMP_US, .flags = 0 },
	{ "date_format", F_TMPL, "sc_date_format($1, $2)", 2, 2, SC_ARROW_UTF8,
	    .flags = SC_EF_WALL, .ts_args = 1 },
	/* struct, array and map */
	{ "struct", F_NESTED, "struct", 0, -1, R_UNK, .flags = 0 },
	{ "named_struct", F_NESTED, "named_struct", 0, -1, R_UNK, .flags = 0 },
	{ "array", F_NESTED, "array", 0, -1, R_UNK, .flags = 0 },
	{ "map", F_NESTED, "map", 0, -1, R_UNK, .flags = 0 },
	{ "size", F_NESTED, "size", 1, 1, SC_ARROW_INT32, .flags = 0 },
	{ "cardinality", F_NESTED, "size", 1, 1, SC_ARROW_INT32, .flags = 0 },
	{ "array_size", F_NESTED, "array_size", 1, 1, SC_ARROW_INT32,
	    .flags = 0 },
	{ "element_at", F_NESTED, "element_at", 2, 2, R_UNK, .flags = 0 },
	{ "try_element_at", F_NESTED, "try_element_at", 2, 2, R_UNK,
	    .flags = 0 },
	{ "get", F_NESTED, "get", 2, 2, R_UNK, .flags = 0 },
	{ "array_contains", F_NESTED, "array_contains", 2, 2, SC_ARROW_BOOL,
	    .flags = 0 },
	{ "map_keys", F_NESTED, "map_keys", 1, 1, R_UNK, .flags = 0 },
	{ "map_entries", F_NESTED, "map_entries", 1, 1, R_UNK, .flags = 0 },
	{ "array_append", F_NESTED, "array_append", 2, 2, R_UNK, .flags = 0 },
	{ "array_prepend", F_NESTED, "array_prepend", 2, 2, R_UNK, .flags = 0 },
	{ "array_compact", F_NESTED, "array_compact", 1, 1, R_UNK, .flags = 0 },
	{ "arrays_overlap", F_NESTED, "arrays_overlap", 2, 2, SC_ARROW_BOOL,
	    .flags = 0 },
	{ "map_values", F_NESTED, "map_values", 1, 1, R_UNK, .flags = 0 },
	{ "array_distinct", F_NESTED, "array_distinct", 1, 1, R_ARG,
	    .flags = 0 },
	{ "array_union", F_NESTED, "array_union", 2, 2, R_ARG, .flags = 0 },
	{ "array_intersect", F_NESTED, "array_intersect", 2, 2, R_ARG,
	    .flags = 0 },
	{ "array_except", F_NESTED, "array_except", 2, 2, R_ARG, .flags = 0 },
	{ "sort_array", F_NESTED, "sort_array", 1, 2, R_ARG, .flags = 0 },
	{ "array_sort", F_NESTED, "array_sort", 1, 1, R_ARG, .flags = 0 },
	{ "array_remove", F_NESTED, "array_remove", 2, 2, R_ARG, .flags = 0 },
	{ "slice", F_NESTED, "slice", 3, 3, R_ARG, .flags = 0 },
	{ "array_max", F_NESTED, "array_max", 1, 1, R_UNK, .flags = 0 },
	{ "array_min", F_NESTED, "array_min", 1, 1, R_UNK, .flags = 0 },
	{ "array_position", F_NESTED, "array_position", 2, 2, SC_ARROW_INT64,
	    .flags = 0 },
	{ "array_join", F_NESTED, "array_join", 2, 3, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "flatten", F_NESTED, "flatten", 1, 1, R_UNK, .flags = 0 },
	{ "sequence", F_NESTED, "sequence", 2, 3, R_UNK, .flags = 0 },
	{ "array_repeat", F_NESTED, "array_repeat", 2, 2, R_UNK, .flags = 0 },
	{ "map_contains_key", F_NESTED, "map_contains_key", 2, 2, SC_ARROW_BOOL,
	    .flags = 0 },
	{ "collect_list", F_NESTED, "collect_list", 1, 1, R_UNK,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "array_agg", F_NESTED, "collect_list", 1, 1, R_UNK, .flags = 0 },
	{ "collect_set", F_NESTED, "collect_set", 1, 1, R_UNK,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "reverse", F_NESTED, "reverse", 1, 1, R_ARG, .flags = 0 },
	{ "typeof", F_NESTED, "typeof", 1, 1, SC_ARROW_UTF8, .flags = 0 },
	{ "grouping", F_GROUPING, "grouping", 1, 1, SC_ARROW_INT8, .flags = 0 },
	{ "grouping_id", F_GROUPING, "grouping_id", 0, -1, SC_ARROW_INT64,
	    .flags = 0 },
	/* Templates, one entry per argument count where defaults differ. */
	{ "lpad", F_TMPL, "sc_pad($1, $2, ' ', 1)", 2, 2, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "lpad", F_TMPL, "sc_pad($1, $2, $3, 1)", 3, 3, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "rpad", F_TMPL, "sc_pad($1, $2, ' ', 0)", 2, 2, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "rpad", F_TMPL, "sc_pad($1, $2, $3, 0)", 3, 3, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "initcap", F_TMPL, "sc_initcap($1)", 1, 1, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "concat_ws", F_TMPL, "sc_concat_ws($*)", 1, -1, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "left", F_TMPL,
	    "CASE WHEN $2 <= 0 THEN '' ELSE substr($1, 1, $2) END", 2, 2,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "right", F_TMPL,
	    "CASE WHEN $2 <= 0 THEN '' ELSE substr($1, -($2)) END", 2, 2,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "ascii", F_TMPL,
	    "CASE WHEN $1 IS NULL THEN NULL ELSE coalesce(unicode($1), 0) END",
	    1, 1, SC_ARROW_INT32, .flags = 0 },
	{ "repeat", F_TMPL, "sc_repeat($1, $2)", 2, 2, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "locate", F_TMPL, "instr($2, $1)", 2, 2, SC_ARROW_INT32, .flags = 0 },
	{ "position", F_TMPL, "instr($2, $1)", 2, 2, SC_ARROW_INT32,
	    .flags = 0 },
	{ "crc32", F_TMPL, "sc_crc32($1)", 1, 1, SC_ARROW_INT64, .flags = 0 },
	{ "md5", F_TMPL, "sc_digest('md5', $1)", 1, 1, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "sha1", F_TMPL, "sc_digest('sha1', $1)", 1, 1, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "sha", F_TMPL, "sc_digest('sha1', $1)", 1, 1, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "sha2", F_TMPL, "sc_sha2($1, $2)", 2, 2, SC_ARROW_UTF8, .flags = 0 },
	{ "base64", F_TMPL, "sc_base64($1)", 1, 1, SC_ARROW_UTF8, .flags = 0 },
	{ "unbase64", F_TMPL, "sc_unbase64($1)", 1, 1, SC_ARROW_BINARY,
	    .flags = 0 },
	{ "hash", F_HASH, NULL, 1, -1, SC_ARROW_INT32, .flags = 0 },
	{ "rand", F_RAND, NULL, 0, 1, SC_ARROW_DOUBLE, .flags = SC_EF_NONDET },
	{ "random", F_RAND, NULL, 0, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_NONDET },
	{ "randn", F_RAND, NULL, 0, 1, SC_ARROW_DOUBLE, .flags = SC_EF_NONDET },
	{ "isnan", F_TMPL, "sc_isnan($1)", 1, 1, SC_ARROW_BOOL, .flags = 0 },
	{ "width_bucket", F_TMPL, "sc_width_bucket($1, $2, $3, $4)", 4, 4,
	    SC_ARROW_INT64, .flags = 0 },
	{ "nanvl", F_TMPL, "(CASE WHEN sc_isnan($1) THEN $2 ELSE $1 END)", 2, 2,
	    SC_ARROW_DOUBLE, .flags = 0 },
	{ "translate", F_TMPL, "sc_translate($1, $2, $3)", 3, 3, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "substring_index", F_TMPL, "sc_substring_index($1, $2, $3)", 3, 3,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "rlike", F_TMPL, "sc_rlike($1, $2)", 2, 2, SC_ARROW_BOOL,
	    .flags = 0 },
	{ "regexp", F_TMPL, "sc_rlike($1, $2)", 2, 2, SC_ARROW_BOOL,
	    .flags = 0 },
	{ "regexp_like", F_TMPL, "sc_rlike($1, $2)", 2, 2, SC_ARROW_BOOL,
	    .flags = 0 },
	{ "regexp_replace", F_TMPL, "sc_regexp_replace($1, $2, $3)", 3, 3,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "regexp_extract", F_TMPL, "sc_regexp_extract($1, $2, 1)", 2, 2,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "regexp_extract", F_TMPL, "sc_regexp_extract($1, $2, $3)", 3, 3,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "split", F_NESTED, "split", 2, 3, R_UNK, .flags = 0 },
	{ "to_json", F_NESTED, "to_json", 1, 2, SC_ARROW_UTF8, .flags = 0 },
	{ "from_json", F_NESTED, "from_json", 2, 3, R_UNK, .flags = 0 },
	{ "get_json_object", F_TMPL,
	    "CASE WHEN NOT json_valid($1) THEN NULL ELSE CASE json_type($1, $2) "
	    "WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE "
	    "json_extract($1, $2) END END",
	    2, 2, SC_ARROW_UTF8, .flags = 0 },
	{ "octet_length", F_TMPL, "length(CAST($1 AS BLOB))", 1, 1,
	    SC_ARROW_INT32, .flags = 0 },
	{ "bit_length", F_TMPL, "length(CAST($1 AS BLOB)) * 8", 1, 1,
	    SC_ARROW_INT32, .flags = 0 },
	{ "pmod", F_TMPL, "sc_pmod($1, sc_div0($2))", 2, 2, R_UNK, .flags = 0 },
	{ "positive", F_TMPL, "(+$1)", 1, 1, R_ARG, .flags = 0 },
	{ "date_add", F_TMPL,
	    "CASE WHEN $2 IS NULL THEN NULL ELSE date($1, printf('%+d days', "
	    "$2)) END",
	    2, 2, SC_ARROW_DATE32, .flags = SC_EF_WALL },
	{ "date_sub", F_TMPL,
	    "CASE WHEN $2 IS NULL THEN NULL ELSE date($1, printf('%+d days', "
	    "-($2))) END",
	    2, 2, SC_ARROW_DATE32, .flags = SC_EF_WALL },
	{ "datediff", F_TMPL,
	    "CAST(julianday(date($1)) - julianday(date($2)) AS INTEGER)", 2, 2,
	    SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "trunc", F_TMPL,
	    "CASE WHEN lower($2) IN ('year', 'yyyy', 'yy') THEN date($1, "
	    "'start of year') WHEN lower($2) = 'quarter' THEN date($1, 'start "
	    "of month', printf('-%d months', (CAST(strftime('%m', $1) AS "
	    "INTEGER) - 1) % 3)) WHEN lower($2) IN ('month', 'mon', 'mm') "
	    "THEN date($1, 'start of month') WHEN lower($2) = 'week' THEN "
	    "date($1, '-6 days', 'weekday 1') END",
	    2, 2, SC_ARROW_DATE32, .flags = SC_EF_WALL },
	{ "date_trunc", F_TMPL,
	    "CASE WHEN lower($1) IN ('year', 'yyyy', 'yy') THEN strftime("
	    "'%Y-01-01 00:00:00', $2) WHEN lower($1) = 'quarter' THEN "
	    "datetime($2, 'start of month', printf('-%d months', "
	    "(CAST(strftime('%m', $2) AS INTEGER) - 1) % 3)) WHEN lower($1) "
	    "IN ('month', 'mon', 'mm') THEN datetime($2, 'start of month') "
	    "WHEN lower($1) = 'week' THEN datetime($2, 'start of day', "
	    "'-6 days', 'weekday 1') WHEN lower($1) IN ('day', 'dd') THEN "
	    "datetime($2, 'start of day') WHEN lower($1) = 'hour' THEN "
	    "strftime('%Y-%m-%d %H:00:00', $2) WHEN lower($1) = 'minute' "
	    "THEN strftime('%Y-%m-%d %H:%M:00', $2) WHEN lower($1) = "
	    "'second' THEN strftime('%Y-%m-%d %H:%M:%S', $2) WHEN lower($1) "
	    "= 'microsecond' THEN $2 WHEN lower($1) = 'millisecond' THEN "
	    "sc_raise('[UNSUPPORTED_FEATURE.EXPRESSION] date_trunc() to "
	    "milliseconds is not supported by sc-serve. SQLSTATE: 0A000') "
	    "END",
	    2, 2, SC_ARROW_TIMESTAMP_US, .flags = SC_EF_WALL, .ts_args = 2 },
	{ "add_months", F_TMPL, "sc_add_months($1, $2)", 2, 2, SC_ARROW_DATE32,
	    .flags = SC_EF_WALL },
	{ "format_number", F_TMPL, "sc_format_number($1, $2)", 2, 2,
	    SC_ARROW_UTF8, .flags = 0 },
	{ "make_timestamp", F_TMPL, "sc_make_timestamp($1, $2, $3, $4, $5, $6)",
	    6, 6, SC_ARROW_TIMESTAMP_US, .flags = 0 },
	{ "make_timestamp", F_TMPL,
	    "sc_tz_utc_in(sc_make_timestamp($1, $2, $3, $4, $5, $6), $7)", 7, 7,
	    SC_ARROW_TIMESTAMP_US, .flags = 0 },
	{ "make_date", F_TMPL, "sc_make_date($1, $2, $3)", 3, 3,
	    SC_ARROW_DATE32, .flags = 0 },
	{ "months_between", F_TMPL, "sc_months_between($1, $2)", 2, 2,
	    SC_ARROW_DOUBLE, .flags = SC_EF_WALL, .ts_args = 3 },
	{ "months_between", F_TMPL, "sc_months_between($1, $2, $3)", 3, 3,
	    SC_ARROW_DOUBLE, .flags = SC_EF_WALL, .ts_args = 3 },
	{ "last_day", F_TMPL,
	    "date($1, 'start of month', '+1 month', '-1 day')", 1, 1,
	    SC_ARROW_DATE32, .flags = SC_EF_WALL },
	{ "dayofweek", F_TMPL, "CAST(strftime('%w', $1) AS INTEGER) + 1", 1, 1,
	    SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "dayofyear", F_TMPL, "CAST(strftime('%j', $1) AS INTEGER)", 1, 1,
	    SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "weekofyear", F_TMPL,
	    "(CAST(strftime('%j', date($1, '-3 days', 'weekday 4')) AS INTEGER) "
	    "- 1) / 7 + 1",
	    1, 1, SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "quarter", F_TMPL, "(CAST(strftime('%m', $1) AS INTEGER) + 2) / 3", 1,
	    1, SC_ARROW_INT32, .flags = SC_EF_WALL },
	{ "unix_timestamp", F_TMPL, "CAST(strftime('%s', $1) AS INTEGER)", 1, 1,
	    SC_ARROW_INT64, .flags = 0 },
	{ "from_utc_timestamp", F_TMPL, "sc_from_utc_timestamp($1, $2)", 2, 2,
	    SC_ARROW_TIMESTAMP_US, .flags = 0 },
	{ "to_utc_timestamp", F_TMPL, "sc_to_utc_timestamp($1, $2)", 2, 2,
	    SC_ARROW_TIMESTAMP_US, .flags = 0 },
	{ "from_unixtime", F_TMPL,
	    "strftime('%Y-%m-%d %H:%M:%S', $1, 'unixepoch')", 1, 1,
	    SC_ARROW_UTF8, .flags = 0 },
	/* Aggregates */
	{ "stddev", F_TMPL, "sc_var($1, 2)", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "std", F_TMPL, "sc_var($1, 2)", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "stddev_samp", F_TMPL, "sc_var($1, 2)", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "stddev_pop", F_TMPL, "sc_var($1, 3)", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "variance", F_TMPL, "sc_var($1, 0)", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "var_samp", F_TMPL, "sc_var($1, 0)", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "var_pop", F_TMPL, "sc_var($1, 1)", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "first", F_TMPL, "sc_pick($1, 0)", 1, 1, R_ARG, .flags = SC_EF_AGG },
	{ "first", F_TMPL, "sc_pick($1, iif($2, 1, 0))", 2, 2, R_ARG,
	    .flags = SC_EF_AGG },
	{ "first_value", F_TMPL, "sc_pick($1, 0)", 1, 1, R_ARG,
	    .flags = SC_EF_AGG },
	{ "any_value", F_TMPL, "sc_pick($1, 0)", 1, 1, R_ARG,
	    .flags = SC_EF_AGG },
	{ "last", F_TMPL, "sc_pick($1, 2)", 1, 1, R_ARG, .flags = SC_EF_AGG },
	{ "last", F_TMPL, "sc_pick($1, iif($2, 3, 2))", 2, 2, R_ARG,
	    .flags = SC_EF_AGG },
	{ "last_value", F_TMPL, "sc_pick($1, 2)", 1, 1, R_ARG,
	    .flags = SC_EF_AGG },
	{ "max_by", F_TMPL, "sc_pick($1, 4, $2)", 2, 2, R_ARG,
	    .flags = SC_EF_AGG },
	{ "min_by", F_TMPL, "sc_pick($1, 5, $2)", 2, 2, R_ARG,
	    .flags = SC_EF_AGG },
	{ "percentile", F_TMPL, "sc_pct($1, $2, 1)", 2, 2, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG },
	{ "median", F_TMPL, "sc_pct($1, 0.5, 1)", 1, 1, SC_ARROW_DOUBLE,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS },
	{ "percentile_approx", F_TMPL, "sc_pct($1, $2, 0)", 2, 3, R_ARG,
	    .flags = SC_EF_AGG },
	{ "approx_percentile", F_TMPL, "sc_pct($1, $2, 0)", 2, 3, R_ARG,
	    .flags = 0 },
	{ "covar_samp", F_TMPL, "sc_cov($1, $2, 0)", 2, 2, SC_ARROW_DOUBLE,
	    .flags = 0 },
	{ "covar_pop", F_TMPL, "sc_cov($1, $2, 1)", 2, 2, SC_ARROW_DOUBLE,
	    .flags = 0 },
	{ "corr", F_TMPL, "sc_cov($1, $2, 2)", 2, 2, SC_ARROW_DOUBLE,
	    .flags = 0 },
	{ "count_if", F_TMPL, "count(CASE WHEN $1 THEN 1 END)", 1, 1,
	    SC_ARROW_INT64,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "bool_and", F_TMPL, "min($1)", 1, 1, SC_ARROW_BOOL,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "every", F_TMPL, "min($1)", 1, 1, SC_ARROW_BOOL,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "bool_or", F_TMPL, "max($1)", 1, 1, SC_ARROW_BOOL,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "some", F_TMPL, "max($1)", 1, 1, SC_ARROW_BOOL,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
	{ "any", F_TMPL, "max($1)", 1, 1, SC_ARROW_BOOL,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK },
};

const struct sc_effamily sc_eng_family_core = { "core", defs, SC_NELEM(defs) };

static bool
is_string(int t)
{
	return t == SC_ARROW_UTF8 || t == SC_ARROW_LARGE_UTF8;
}

/*
 * A string compared with a number or a boolean without ANSI mode: the
 * string cast to the other side's type (a double for a decimal), as
 * Spark's non-ANSI comparison coercion does.  Other pairs are left.
 */
static int
legacy_compare(struct sc_efarg *a)
{
	struct sc_etype to;
	struct sc_buf b;
	size_t s = is_string(a[0].ei.type.t) ? 0 : 1, o = 1 - s;
	int t = a[o].ei.type.t;

	if (!(sc_eng_is_int_type(t) || t == SC_ARROW_FLOAT ||
		t == SC_ARROW_DOUBLE || t == SC_ARROW_DECIMAL128 ||
		t == SC_ARROW_BOOL))
		return 0;
	to = a[o].ei.type;
	if (t == SC_ARROW_DECIMAL128) {
		memset(&to, 0, sizeof(to));
		to.t = SC_ARROW_DOUBLE;
	}
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_buf_addf(&b, NULL, "sc_cast(%s, '", (const char *)a[s].sql.data);
	sc_eng_type_text(&to, SC_VALUE_TYPENAME, &b);
	sc_buf_addstr(&b, "', 0, 'string')", NULL);
	sc_buf_release(&a[s].sql);
	a[s].sql = b;
	a[s].ei.type = to;
	a[s].ei.nullable = 1;
	return 0;
}

int
sc_eng_legacy_strings(int k, const char *fname, struct sc_efarg *a, size_t n,
    struct sc_error *err)
{
	struct sc_buf b;
	size_t i;
	bool str = false;

	if (sc_eng_ansi())
		return 0;
	for (i = 0; i < n; i++)
		str = str || a[i].ei.type.t == SC_ARROW_UTF8 ||
		    a[i].ei.type.t == SC_ARROW_LARGE_UTF8;
	if (!str)
		return 0;
	if ((k == F_CMP || k == F_NE || k == F_NULLSAFE) && n == 2)
		return legacy_compare(a);
	if ((k != F_ARITH && k != F_DIV) || n != 2)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "`%s` of a string with spark.sql.ansi.enabled=false is "
		    "not supported by sc-serve; add a CAST.",
		    fname);
	for (i = 0; i < n; i++) {
		if (a[i].ei.type.t != SC_ARROW_UTF8 &&
		    a[i].ei.type.t != SC_ARROW_LARGE_UTF8)
			continue;
		sc_buf_init(&b, SC_BUF_UNLIMITED);
		sc_buf_addf(&b, NULL, "sc_cast(%s, 'double', 0, 'string')",
		    (const char *)a[i].sql.data);
		sc_buf_release(&a[i].sql);
		a[i].sql = b;
		sc_eng_set_type(&a[i].ei, SC_ARROW_DOUBLE);
		a[i].ei.nullable = 1;
	}
	return 0;
}

/* A lambda variable in scope: its SQL, type and name. */
static int
lambda_var(struct sc_ectx *x,
    const Spark__Connect__Expression__UnresolvedNamedLambdaVariable *v,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	const char *name = v->n_name_parts > 0 ? v->name_parts[0] : "";
	size_t i;

	for (i = x->nlvars; i-- > 0;)
		if (strcmp(x->lvars[i].name, name) == 0) {
			sc_buf_addstr(sql, x->lvars[i].sql, NULL);
			sc_buf_addstr(&ei->name, name, NULL);
			ei->type = x->lvars[i].type;
			ei->nullable = x->lvars[i].nullable;
			return 0;
		}
	return sc_srv_error(err, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
	    "42703", "A lambda variable with name `%s` cannot be resolved.",
	    name);
}

/* a and b name the same nested type, an array's containsNull aside. */
static bool
same_nested_type(const struct sc_etype *a, const struct sc_etype *b)
{
	struct sc_buf ta, tb;
	bool same;

	if (a->t != b->t)
		return false;
	if (a->nest == b->nest)
		return true;
	sc_buf_init(&ta, SC_BUF_UNLIMITED);
	sc_buf_init(&tb, SC_BUF_UNLIMITED);
	sc_eng_type_text(a, SC_VALUE_SQL, &ta);
	sc_eng_type_text(b, SC_VALUE_SQL, &tb);
	same = !ta.failed && !tb.failed && ta.len == tb.len &&
	    memcmp(ta.data, tb.data, ta.len) == 0;
	sc_buf_release(&ta);
	sc_buf_release(&tb);
	return same;
}

static bool
is_int(int t)
{
	return t == SC_ARROW_INT8 || t == SC_ARROW_INT16 ||
	    t == SC_ARROW_INT32 || t == SC_ARROW_INT64;
}

/* The decimal digits integer type t needs (bigint: 20, as Spark). */
static int
int_digits(int t)
{
	switch (t) {
	case SC_ARROW_INT8:
		return 3;
	case SC_ARROW_INT16:
		return 5;
	case SC_ARROW_INT32:
		return 10;
	default:
		return 20;
	}
}

/*
 * Whether Spark's non-ANSI cast from type f to type t may give NULL for
 * a value that is not NULL (its Cast.forceNullable): text that does not
 * parse, a fraction that does not fit, a date from what holds none.  A
 * source type sc-serve cannot tell counts as one that may.
 */
static bool
legacy_cast_nullable(const struct sc_etype *from, const struct sc_etype *to)
{
	int f = from->t, t = to->t;

	if (f == SC_ARROW_NULL)
		return false;
	if (f == SC_ETYPE_UNKNOWN)
		return true;
	if (f == t && t != SC_ARROW_DECIMAL128)
		return false;
	if (f == SC_ARROW_UTF8 || f == SC_ARROW_LARGE_UTF8)
		return t != SC_ARROW_BINARY && t != SC_ARROW_LARGE_BINARY;
	if (t == SC_ARROW_UTF8 || t == SC_ARROW_LARGE_UTF8)
		return false;
	if ((f == SC_ARROW_FLOAT || f == SC_ARROW_DOUBLE) &&
	    t == SC_ARROW_TIMESTAMP_US)
		return true;
	if ((f == SC_ARROW_FLOAT || f == SC_ARROW_DOUBLE ||
		f == SC_ARROW_DECIMAL128) &&
	    is_int(t))
		return true;
	if (f == SC_ARROW_TIMESTAMP_US && t == SC_ARROW_DATE32)
		return false;
	if (t == SC_ARROW_DATE32)
		return true;
	if (f == SC_ARROW_DATE32 && t == SC_ARROW_TIMESTAMP_US)
		return false;
	if (f == SC_ARROW_DATE32)
		return true;
	if (t == SC_ARROW_DECIMAL128 && f == SC_ARROW_DECIMAL128)
		return to->prec - to->scale < from->prec - from->scale ||
		    to->scale < from->scale;
	if (t == SC_ARROW_DECIMAL128)
		/* Only an integer that always fits cannot. */
		return !is_int(f) || to->prec - to->scale < int_digits(f);
	return false;
}

static int
cast(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__Cast *c, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_error *err)
{
	struct sc_buf inner, tn;
	struct sc_einfo iei;
	struct sc_etype to;
	int mode, ic, rc = -1;

	if (c->expr == NULL)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A cast has no expression.");
	if (c->cast_to_type_case ==
	    SPARK__CONNECT__EXPRESSION__CAST__CAST_TO_TYPE_TYPE) {
		if (sc_eng_type_from_proto(c->type, &to, err) == -1)
			return -1;
	} else if (c->cast_to_type_case ==
	    SPARK__CONNECT__EXPRESSION__CAST__CAST_TO_TYPE_TYPE_STR) {
		if (sc_eng_parse_type(c->type_str, strlen(c->type_str), false,
			&to) == -1)
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.DATA_TYPE", "0A000",
			    "The data type '%s' is not supported by sc-serve.",
			    c->type_str);
	} else {
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A cast has no target type.");
	}
	mode = c->eval_mode == EVAL_(TRY) || c->eval_mode == EVAL_(LEGACY);
	sc_buf_init(&inner, SC_BUF_UNLIMITED);
	sc_buf_init(&tn, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&iei);
	if (sc_eng_expr(x, in, c->expr, &inner, &iei, err) == -1)
		goto out;
	/* To or from an interval: engine_interval.c. */
	ic = sc_eng_interval_cast(&iei, (const char *)inner.data, &to,
	    mode != 0, sql, err);
	if (ic == -1)
		goto out;
	if (ic == 1) {
		/* sql is set */
	} else if (to.t == SC_ARROW_STRUCT || to.t == SC_ARROW_LIST ||
	    to.t == SC_ARROW_MAP) {
		/*
		 * To a nested type: a NULL (of type void) is a null of that
		 * type and a value of the same type (containsNull aside)
		 * stays itself; converting between nested types is not done.
		 */
		if (iei.type.t == SC_ARROW_NULL)
			sc_buf_addstr(sql, "NULL", NULL);
		else if (same_nested_type(&iei.type, &to))
			sc_buf_addf(sql, NULL, "(%s)",
			    (const char *)inner.data);
		else {
			sc_eng_type_text(&to, SC_VALUE_SQL, &tn);
			sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE",
			    "0A000",
			    "A cast to %s from anything but NULL or that type "
			    "is not supported by sc-serve.",
			    (const char *)tn.data);
			goto out;
		}
	} else {
		sc_buf_addf(sql, NULL, "sc_cast(%s, '",
		    (const char *)inner.data);
		sc_eng_type_text(&to, SC_VALUE_TYPENAME, sql);
		sc_buf_addf(sql, NULL, "', %d", mode);
		if (iei.type.t != SC_ETYPE_UNKNOWN) {
			sc_buf_addstr(sql, ", '", NULL);
			sc_eng_type_text(&iei.type, SC_VALUE_TYPENAME, sql);
			sc_buf_addch(sql, '\'', NULL);
		}
		sc_buf_addch(sql, ')', NULL);
		/* STRING COLLATE UTF8_LCASE: engine_interval.c's collation. */
		if (to.t == SC_ARROW_UTF8 && to.prec == SC_ECOLL_LCASE)
			sc_buf_addstr(sql, " COLLATE UTF8_LCASE", NULL);
	}
	sc_eng_type_text(&to, SC_VALUE_SQL, &tn);
	sc_buf_addf(&ei->name, NULL, "CAST(%s AS %s)",
	    (const char *)iei.name.data, (const char *)tn.data);
	ei->type = to;
	ei->nullable = mode != 0 || iei.nullable ||
	    (!sc_eng_ansi() && legacy_cast_nullable(&iei.type, &to));
	rc = 0;
out:
	sc_buf_release(&inner);
	sc_buf_release(&tn);
	sc_eng_einfo_release(&iei);
	return rc;
}

/*
 * SQL expression text (F.expr(), selectExpr, filter("...")) through the
 * Spark SQL parser and this translator, whose name resolution honours
 * spark.sql.caseSensitive=true (SQLite's would not).  Text the parser
 * does not take as one expression is refused.
 */
static int
expression_text(struct sc_ectx *x, const struct sc_eplan *in, const char *s,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	Spark__Connect__Relation *r = NULL;
	char *q = sc_xasprintf("SELECT %s", s);
	size_t hidden = 0;
	int rc;

	rc = sc_sqlparse(q, &r, &hidden, err);
	free(q);
	if (rc == SC_SQLPARSE_ERROR)
		return -1;
	if (rc == SC_SQLPARSE_OK && r->rel_type_case == SC_REL_(PROJECT) &&
	    r->project->input == NULL && r->project->n_expressions == 1 &&
	    hidden == 0) {
		sc_buf_addch(sql, '(', NULL);
		rc = sc_eng_expr(x, in, r->project->expressions[0], sql, ei,
		    err);
		sc_buf_addch(sql, ')', NULL);
		if (rc == 0 && !ei->aliased) {
			sc_buf_reset(&ei->name);
			sc_buf_addstr(&ei->name, s, NULL);
		}
	} else {
		rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "The SQL expression '%s' is not one that the Spark SQL "
		    "parser of sc-serve takes.",
		    s);
	}
	if (r != NULL)
		protobuf_c_message_free_unpacked(&r->base, NULL);
	return rc;
}

int
sc_eng_expr(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression *e, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_error *err)
{
	int rc;

	if (e == NULL)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "An expression is missing.");
	if (sc_eng_deeper(x, err) == -1)
		return -1;
	switch (e->expr_type_case) {
	case SC_EXPR_(LITERAL):
		rc = sc_eng_literal(e->literal, sql, ei, err);
		break;
	case SC_EXPR_(UNRESOLVED_ATTRIBUTE):
		if (x->pivot_cond != NULL) {
			/* Inside a pivot value's aggregate: its rows only. */
			struct sc_buf ax;

			sc_buf_init(&ax, SC_BUF_UNLIMITED);
			rc = sc_eng_attribute(in, e->unresolved_attribute, &ax,
			    ei, err);
			if (rc == 0)
				sc_buf_addf(sql, NULL,
				    "(CASE WHEN %s THEN %s END)", x->pivot_cond,
				    (const char *)ax.data);
			sc_buf_release(&ax);
			break;
		}
		rc =
		    sc_eng_attribute(in, e->unresolved_attribute, sql, ei, err);
		break;
	case SC_EXPR_(UNRESOLVED_FUNCTION):
		rc = sc_eng_fncall(x, in, e->unresolved_function, sql, ei, err);
		break;
	case SC_EXPR_(CALL_FUNCTION): {
		/* call_function(name, ...): the builtin of that name. */
		Spark__Connect__Expression__UnresolvedFunction f =
		    SPARK__CONNECT__EXPRESSION__UNRESOLVED_FUNCTION__INIT;

		f.function_name = e->call_function->function_name;
		f.n_arguments = e->call_function->n_arguments;
		f.arguments = e->call_function->arguments;
		rc = sc_eng_fncall(x, in, &f, sql, ei, err);
		break;
	}
	case SC_EXPR_(EXPRESSION_STRING): {
		const char *s = e->expression_string->expression;

		if (s == NULL)
			s = "";
		/* Through the Spark SQL parser: no client text reaches SQLite. */
		rc = expression_text(x, in, s, sql, ei, err);
		break;
	}
	case SC_EXPR_(ALIAS): {
		const Spark__Connect__Expression__Alias *a = e->alias;

		if (a->n_name != 1) {
			rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
			    "0A000",
			    "An alias with %zu names (a multi-column "
			    "alias) is not supported by sc-serve.",
			    a->n_name);
			break;
		}
		rc = sc_eng_expr(x, in, a->expr, sql, ei, err);
		if (rc == 0) {
			/* f(x AS y) is Spark's name for an aliased argument. */
			free(ei->unaliased);
			ei->unaliased = sc_xstrdup((const char *)ei->name.data);
			sc_buf_reset(&ei->name);
			sc_buf_addstr(&ei->name, a->name[0], NULL);
			ei->aliased = true;
		}
		break;
	}
	case SC_EXPR_(CAST):
		rc = cast(x, in, e->cast, sql, ei, err);
		break;
	case SC_EXPR_(WINDOW):
		rc = sc_eng_window(x, in, e->window, sql, ei, err);
		break;
	case SC_EXPR_(UNRESOLVED_NAMED_LAMBDA_VARIABLE):
		rc = lambda_var(x, e->unresolved_named_lambda_variable, sql, ei,
		    err);
		break;
	case SC_EXPR_(UNRESOLVED_EXTRACT_VALUE):
		rc = sc_eng_extract_value(x, in, e->unresolved_extract_value,
		    sql, ei, err);
		break;
	case SC_EXPR_(UNRESOLVED_STAR):
		rc = sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A star (*) can only be a projected column or the "
		    "argument of count().");
		break;
	case SC_EXPR_(SORT_ORDER):
		rc = sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A sort order can only be used in a sort.");
		break;
	default:
		rc = sc_eng_unsupported_expression(e, err);
		break;
	}
	x->depth--;
	return rc;
}

/*
 * A select list's cast of a column is named as the column, as Spark's
 * analyzer names it (CAST(id AS STRING) is "id"); nested in another
 * expression it keeps its CAST(...) text.
 */
int
sc_eng_cast_name(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression *e, struct sc_einfo *ei,
    struct sc_error *err)
{
	struct sc_einfo cei;
	struct sc_buf csql;
	int rc;

	if (e == NULL || e->expr_type_case != SC_EXPR_(CAST) ||
	    e->cast->expr == NULL ||
	    e->cast->expr->expr_type_case != SC_EXPR_(UNRESOLVED_ATTRIBUTE))
		return 0;
	sc_buf_init(&csql, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&cei);
	rc = sc_eng_expr(x, in, e->cast->expr, &csql, &cei, err);
	if (rc == 0) {
		sc_buf_reset(&ei->name);
		sc_buf_add(&ei->name, cei.name.data, cei.name.len, NULL);
	}
	sc_buf_release(&csql);
	sc_eng_einfo_release(&cei);
	return rc;
}
