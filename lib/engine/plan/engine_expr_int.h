/* SPDX-License-Identifier: MIT */

/*
 * engine_expr_int.h: the insides of expression translation, shared by
 * engine_expr.c, engine_column.c, engine_literal.c, engine_fncall.c and
 * engine_collection.c, and by nothing else: the function table's
 * entries, a call's arguments, and the functions each of those files
 * offers the others.
 */

#ifndef SC_ENGINE_EXPR_INT_H
#define SC_ENGINE_EXPR_INT_H

#include "engine/engine_int.h"

#include <stdbool.h>
#include <stddef.h>

enum sc_efkind {
	F_CMP,
	F_NULLSAFE,
	F_NE,
	F_ARITH,
	F_DIV,
	F_LOGIC,
	F_NOT,
	F_NEG,
	F_ISNULL,
	F_ISNOTNULL,
	F_IN,
	F_LIKE,
	F_STARTS,
	F_ENDS,
	F_CONTAINS,
	F_SIMPLE,
	F_REPLACE,
	F_LOG,
	F_FLOORCEIL,
	F_ROUND,
	F_IDIV,
	F_MATH,
	F_HASH,
	F_RAND,
	F_COALESCE,
	F_NVL2,
	F_EXTREME,
	F_IF,
	F_WHEN,
	F_CONCAT,
	F_SUBSTR,
	F_COUNT,
	F_AGG,
	F_NOW,
	F_DATEPART,
	F_TOTYPE,
	F_NESTED, /* nested_fn() */
	F_GROUPING, /* grouping(), grouping_id() */
	F_MORE, /* engine_func_more.c: sql is the name Spark gives */
	F_TMPL, /* sql is a template: $1.. the arguments, $* all of them */
	F_CALL /* call() translates the call, arguments and all */
};

/* Result type: an Arrow type, unknown, or that of the first argument. */
#define R_UNK SC_ETYPE_UNKNOWN
#define R_ARG (-2)

/*
 * What a function is, beside how it is translated (sc_efdef.flags).
 * Every entry of one name has the same flags.
 */
enum {
	SC_EF_AGG = 1 << 0, /* an aggregate: SQL text groups by it */
	SC_EF_SKIPS_NULLS = 1
	    << 1, /* aggregate ignoring nulls: FILTER is CASE */
	SC_EF_WINDOW_OK = 1 << 2, /* an aggregate SQLite runs over a window */
	SC_EF_HOF = 1 << 3, /* higher-order: takes lambdas */
	SC_EF_WALL = 1 << 4, /* reads a TIMESTAMP's session-zone wall clock */
	SC_EF_NONDET = 1 << 5 /* not deterministic (random, clock) */
};

/*
 * A call translated by the entry itself (F_CALL): the unresolved call
 * f, its lower-case name; 0 with sql and ei set, or -1 with err set.
 * It checks its own argument count.
 */
typedef int sc_efcall(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedFunction *f, const char *lname,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err);

/*
 * One entry of the function registry: a Spark function (or an overload
 * of it by argument count), kept in its family's table (sc_eng_funcs_*
 * below) and found through sc_eng_func_find().
 */
struct sc_efdef {
	const char *name; /* Spark's name, lower case */
	enum sc_efkind k;
	const char *sql; /* operator or SQLite function */
	int min, max; /* argument count; max -1: any */
	int rtype;
	unsigned flags; /* SC_EF_* */
	unsigned ts_args; /* SC_EF_WALL: bit i, argument i is a TIMESTAMP */
	sc_efcall *call; /* F_CALL */
	const char *const *aliases; /* other names, NULL-terminated; or NULL */
};

/* An entry's aliases: .aliases = SC_EF_ALIASES("ucase"). */
#define SC_EF_ALIASES(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* A family's table of functions: its entries and their count. */
struct sc_effamily {
	const char *name;
	const struct sc_efdef *defs;
	size_t n;
};

/*
 * The families' tables, each in its file beside the implementations:
 * operators, conditionals and the like (engine_expr.c), numbers
 * (engine_func_num.c), strings (engine_func_str.c), dates and times
 * (engine_func_datetime.c), aggregates (engine_func_agg.c), the
 * F_MORE functions (engine_func_more.c); the others are declared with
 * their files below.
 */
extern const struct sc_effamily sc_eng_family_core;
extern const struct sc_effamily sc_eng_family_num;
extern const struct sc_effamily sc_eng_family_str;
extern const struct sc_effamily sc_eng_family_datetime;
extern const struct sc_effamily sc_eng_family_agg;
extern const struct sc_effamily sc_eng_family_more;
/* engine_fnreg.c: the registry over every family's table. */
extern const struct sc_effamily *const sc_eng_families[];
extern const size_t sc_eng_nfamilies;
/*
 * The entry for Spark function name (any case; a name or an alias) that
 * takes n arguments, else the first of that name (n -1: the first);
 * NULL when none.
 */
const struct sc_efdef *sc_eng_func_find(const char *name, int n);
/* ei's type becomes the plain type t. */
void sc_eng_set_type(struct sc_einfo *ei, int t);

/* engine_column.c: a column reference; an extract value. */
int sc_eng_attribute(const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedAttribute *a,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err);
int sc_eng_extract_value(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedExtractValue *u,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err);

/* engine_literal.c: a literal as SQL; also its name and type. */
int sc_eng_literal(const Spark__Connect__Expression__Literal *l,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err);

/* engine_fncall.c */
/* A function call's argument: its SQL and what it produced. */
struct sc_efarg {
	struct sc_buf sql;
	struct sc_einfo ei;
};
int sc_eng_fncall(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedFunction *f, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_error *err);
bool sc_eng_is_int_type(int t);
/*
 * WRONG_NUM_ARGS.WITHOUT_SUGGESTION for fname called with n arguments
 * where it takes min..max (max -1: any number): -1.
 */
int sc_eng_wrong_num_args(const char *fname, int min, int max, size_t n,
    struct sc_error *err);
/*
 * engine_func_array.c: array_append, array_prepend, array_compact,
 * arrays_overlap (sc_eng_nested_fn's k): 0, -1 (err set), or 1 when k
 * is none of them.
 */
int sc_eng_array_more(const char *k, const char *fname, struct sc_efarg *a,
    size_t n, struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err);
/*
 * engine_func_more.c: the F_MORE functions (cbrt, try_add, shiftleft...)
 * over a[0..n): 0 with sql and ei set, or -1 with err set.
 */
int sc_eng_more_call(const struct sc_efdef *fd, const char *lname,
    struct sc_efarg *a, size_t n, struct sc_buf *sql, struct sc_einfo *ei,
    struct sc_error *err);
/* engine_func_extract.c: extract, date_part, datepart. */
extern const struct sc_effamily sc_eng_family_extract;
/*
 * engine_expr.c: without ANSI mode, the string operands of arithmetic
 * kind k (F_ARITH, F_DIV, ...) as Spark's implicit cast to double; -1
 * with UNSUPPORTED_FEATURE where sc-serve does not follow Spark.
 */
int sc_eng_legacy_strings(int k, const char *fname, struct sc_efarg *a,
    size_t n, struct sc_error *err);
/* Field by field: memcmp would read the padding, never written. */
bool sc_eng_same_etype(const struct sc_etype *a, const struct sc_etype *b);
/* The common type of arguments from..n-1 (step apart), or unknown. */
void sc_eng_common_type(struct sc_einfo *ei, struct sc_efarg *a, size_t from,
    size_t n, size_t step);
/* The SQL (or names) of a[from..n), comma-separated, appended to b. */
void sc_eng_args_list(struct sc_buf *b, struct sc_efarg *a, size_t from,
    size_t n, bool names);

/*
 * engine_interval.c: operator lname over a[0..n) when its answer is an
 * interval or needs one (date - date, date + n, ...): 1 with sql, ei
 * set; 0 when not such an operation; -1 (err set) when refused.
 */
int sc_eng_interval_op(const char *lname, struct sc_efarg *a, size_t n,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err);
/*
 * The interval functions (make_dt_interval, make_ym_interval, and SQL
 * text's INTERVAL literals).
 */
extern const struct sc_effamily sc_eng_family_interval;
/* engine_collate.c: collate(e, name). */
extern const struct sc_effamily sc_eng_family_collate;
/* Comparison lname of a[0], a[1] under UTF8_LCASE if a side has it. */
bool sc_eng_collate_cmp(const char *lname, struct sc_efarg *a,
    struct sc_buf *sql, struct sc_einfo *ei);
/*
 * A cast of e (SQL inner) to `to` when either is an interval: 1 with
 * sql set, 0 when neither is, -1 (err set) when refused.
 */
int sc_eng_interval_cast(const struct sc_einfo *e, const char *inner,
    const struct sc_etype *to, bool try_mode, struct sc_buf *sql,
    struct sc_error *err);
/* A day_time_interval or year_month_interval literal. */
int sc_eng_interval_literal(const Spark__Connect__Expression__Literal *l,
    struct sc_buf *sql, struct sc_einfo *ei);

/* engine_collection.c */
/* An element of sc_each() (columns _sc_v, _sc_t) in its JSON form. */
#define SC_ENG_ELEM_JSON                                                \
	"CASE WHEN _sc_t IN ('array', 'object') THEN json(_sc_v) WHEN " \
	"_sc_t = 'true' THEN json('true') WHEN _sc_t = 'false' THEN "   \
	"json('false') ELSE _sc_v END"
/* DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE for argument i: -1. */
int sc_eng_wrong_arg(const char *fname, const char *want, struct sc_efarg *a,
    size_t i, struct sc_error *err);
void sc_eng_array_item(struct sc_buf *sql, const char *arr, const char *idx,
    const struct sc_etype *t, bool one_based, bool ansi, const char *cls,
    const char *hint);
void sc_eng_map_value(struct sc_buf *sql, const char *map, const char *key,
    const struct sc_etype *t);
/* struct, array and map functions (F_NESTED). */
int sc_eng_nested_fn(const struct sc_efdef *fd, const char *fname,
    const Spark__Connect__Expression__UnresolvedFunction *f, struct sc_efarg *a,
    size_t n, struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err);
/* transform, filter, exists, forall. */
extern const struct sc_effamily sc_eng_family_nested;

/* engine_func_hof.c: zip_with, arrays_zip, aggregate, reduce. */
extern const struct sc_effamily sc_eng_family_hof;

/* engine_hll.c: approx_count_distinct(col[, rsd]) as sc_hll(). */
extern const struct sc_effamily sc_eng_family_hll;

/* engine_func_format.c: format_string and printf, as sc_format(). */
extern const struct sc_effamily sc_eng_family_format;

#endif
