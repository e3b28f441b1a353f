/* SPDX-License-Identifier: MIT */

/*
 * engine_collection.c: Spark's struct, array and map functions
 * (struct, array, map, element_at, size, array_*, sequence, split,
 * to_json, from_json, ...) and the higher-order ones taking a lambda
 * (transform, filter, exists, forall), over values in their nested
 * JSON form (engine_nested.c).
 */

#include "engine/plan/engine_expr_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

#define A(i) ((const char *)a[i].sql.data)
#define N(i) ((const char *)a[i].ei.name.data)

static bool
is_nested(int t)
{
	return t == SC_ARROW_STRUCT || t == SC_ARROW_LIST || t == SC_ARROW_MAP;
}
/* Arguments from..n-1 (step apart) must have known types. */
static int
need_types(const char *fname, struct sc_efarg *a, size_t from, size_t n,
    size_t step, struct sc_error *err)
{
	size_t i;

	for (i = from; i < n; i += step)
		if (a[i].ei.type.t == SC_ETYPE_UNKNOWN)
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
			    "`%s` of `%s`, whose type sc-serve cannot tell "
			    "before it runs, is not supported by sc-serve; "
			    "add a CAST.",
			    fname, N(i));
	return 0;
}

/* The common type of a[from..n) step apart; NULL type when all null. */
static int
elem_type(const char *fname, struct sc_efarg *a, size_t from, size_t n,
    size_t step, struct sc_etype *t, struct sc_error *err)
{
	struct sc_einfo ci;
	size_t i;
	bool all_null = true;

	if (need_types(fname, a, from, n, step, err) == -1)
		return -1;
	for (i = from; i < n; i += step)
		if (a[i].ei.type.t != SC_ARROW_NULL)
			all_null = false;
	memset(t, 0, sizeof(*t));
	if (all_null) {
		t->t = SC_ARROW_NULL;
		return 0;
	}
	sc_eng_einfo_init(&ci);
	sc_eng_common_type(&ci, a, from, n, step);
	*t = ci.type;
	sc_eng_einfo_release(&ci);
	if (t->t == SC_ETYPE_UNKNOWN)
		return sc_srv_error(err, "DATATYPE_MISMATCH.DATA_DIFF_TYPES",
		    "42K09",
		    "Cannot resolve \"%s\" due to data type mismatch: "
		    "its arguments have different types.",
		    fname);
	return 0;
}

static bool
any_nullable(struct sc_efarg *a, size_t from, size_t n, size_t step)
{
	size_t i;

	for (i = from; i < n; i += step)
		if (a[i].ei.nullable != 0)
			return true;
	return false;
}

int
sc_eng_wrong_arg(const char *fname, const char *want, struct sc_efarg *a,
    size_t i, struct sc_error *err)
{
	struct sc_buf tn;
	int rc;

	sc_buf_init(&tn, SC_BUF_UNLIMITED);
	if (a[i].ei.type.t == SC_ETYPE_UNKNOWN)
		sc_buf_addstr(&tn, "an unknown type", NULL);
	else
		sc_eng_type_text(&a[i].ei.type, SC_VALUE_SQL, &tn);
	rc = sc_srv_error(err, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
	    "42K09",
	    "Cannot resolve \"%s\" due to data type mismatch: parameter %zu "
	    "requires the %s type, however \"%s\" has the type \"%s\".",
	    fname, i + 1, want, N(i), (const char *)tn.data);
	sc_buf_release(&tn);
	return rc;
}

/* Argument i, encoded for a place in a nested value, appended to b. */
static void
encoded(struct sc_buf *b, struct sc_efarg *a, size_t i)
{
	sc_eng_nest_encode(&a[i].ei.type, A(i), b);
}

/*
 * The SQL of an array element or map value lookup: from the JSON pairs
 * or elements of x, decoded as type t.  one_based: element_at's index;
 * ansi: an index out of bounds fails (with class cls), else is NULL.
 */
void
sc_eng_array_item(struct sc_buf *sql, const char *arr, const char *idx,
    const struct sc_etype *t, bool one_based, bool ansi, const char *cls,
    const char *hint)
{
	struct sc_buf x;

	sc_buf_init(&x, SC_BUF_UNLIMITED);
	/* _a, _i, _n: the array, the 0-based index, the length. */
	sc_buf_addf(&x, NULL,
	    "(SELECT CASE WHEN _a IS NULL OR _o IS NULL THEN NULL ");
	if (one_based)
		sc_buf_addstr(&x,
		    "WHEN _o = 0 THEN sc_raise('[INVALID_INDEX_OF_ZERO] The "
		    "index 0 is invalid. An index shall be either < 0 or > 0 "
		    "(the first element has index 1). SQLSTATE: 22003') ",
		    NULL);
	sc_buf_addstr(&x,
	    "WHEN _i >= 0 AND _i < _n THEN json_extract(_a, '$[' || _i || "
	    "']') ",
	    NULL);
	if (ansi)
		sc_buf_addf(&x, NULL,
		    "ELSE sc_raise(printf('[%s] The index %%d is out of "
		    "bounds. The array has %%d elements. %s SQLSTATE: 22003', "
		    "_o, _n)) ",
		    cls, hint);
	sc_buf_addstr(&x, "END FROM (SELECT _a, _o, ", NULL);
	if (one_based)
		sc_buf_addstr(&x,
		    "CASE WHEN _o > 0 THEN _o - 1 WHEN _o < 0 THEN _n + _o "
		    "END",
		    NULL);
	else
		sc_buf_addstr(&x, "_o", NULL);
	sc_buf_addf(&x, NULL,
	    " AS _i, _n FROM (SELECT _a, _o, json_array_length(_a) AS _n "
	    "FROM (SELECT %s AS _a, %s AS _o))))",
	    arr, idx);
	sc_eng_nest_decode(t, (const char *)x.data, sql);
	sc_buf_release(&x);
}

void
sc_eng_map_value(struct sc_buf *sql, const char *map, const char *key,
    const struct sc_etype *t)
{
	struct sc_buf x;

	sc_buf_init(&x, SC_BUF_UNLIMITED);
	sc_buf_addf(&x, NULL,
	    "(SELECT json_extract(_sc_v, '$[1]') FROM sc_each(%s) "
	    "WHERE json_extract(_sc_v, '$[0]') = (%s) LIMIT 1)",
	    map, key);
	sc_eng_nest_decode(t, (const char *)x.data, sql);
	sc_buf_release(&x);
}

/*
 * array_union, array_intersect, array_except: distinct elements in the
 * order they first appear (a's, then b's for a union), a NULL element
 * matching a NULL as in Spark.  Both arrays of one type.
 */
static int
array_set_fn(const char *k, const char *fname, struct sc_efarg *a,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	if (a[0].ei.type.t != SC_ARROW_LIST)
		return sc_eng_wrong_arg(fname, "\"ARRAY\"", a, 0, err);
	/* The element types alike (interned: one pointer per type). */
	if (a[1].ei.type.t != SC_ARROW_LIST ||
	    !sc_eng_same_etype(&a[1].ei.type.nest->types[0],
		&a[0].ei.type.nest->types[0]) ||
	    a[1].ei.type.nest->types[0].nest !=
		a[0].ei.type.nest->types[0].nest)
		return sc_eng_wrong_arg(fname,
		    "\"ARRAY\" (of the first's type)", a, 1, err);
	/* A NULL element possible in either: possible in the result. */
	ei->type = a[0].ei.type.nest->nullable[0] ? a[0].ei.type : a[1].ei.type;
	ei->nullable = a[0].ei.nullable || a[1].ei.nullable;
	sc_buf_addstr(sql,
	    "(SELECT CASE WHEN _a IS NULL OR _b IS NULL THEN NULL ELSE "
	    "(SELECT coalesce(json_group_array(" SC_ENG_ELEM_JSON
	    "), json_array()) "
	    "FROM (SELECT _sc_v, _sc_t, min(_o) AS _o FROM (SELECT _sc_v, "
	    "_sc_t, _sc_k AS _o FROM sc_each(_a) AS x",
	    NULL);
	if (strcmp(k, "array_union") == 0)
		sc_buf_addstr(sql,
		    " UNION ALL SELECT _sc_v, _sc_t, _sc_k + 4294967296 FROM "
		    "sc_each(_b)",
		    NULL);
	else
		sc_buf_addf(sql, NULL,
		    " WHERE %sEXISTS (SELECT 1 FROM sc_each(_b) AS y WHERE "
		    "y._sc_v IS x._sc_v)",
		    strcmp(k, "array_except") == 0 ? "NOT " : "");
	sc_buf_addf(sql, NULL,
	    ") GROUP BY _sc_v, _sc_t ORDER BY _o)) END FROM (SELECT %s AS _a, "
	    "%s AS _b))",
	    A(0), A(1));
	return 0;
}

/*
 * Functions of one array: array_distinct, sort_array, array_sort,
 * array_remove, slice, array_max/min, array_position, array_join,
 * flatten.
 */
static int
array_fn(const char *k, const char *fname,
    const Spark__Connect__Expression__UnresolvedFunction *f, struct sc_efarg *a,
    size_t n, struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	const struct sc_enest *nt = a[0].ei.type.nest;
	const char *asc = "ASC NULLS FIRST";

	(void)f;
	if (a[0].ei.type.t != SC_ARROW_LIST)
		return sc_eng_wrong_arg(fname, "\"ARRAY\"", a, 0, err);
	ei->nullable = a[0].ei.nullable;
	if (strcmp(k, "array_max") == 0 || strcmp(k, "array_min") == 0) {
		ei->type = nt->types[0];
		ei->nullable = 1;
		sc_buf_addf(sql, NULL, "(SELECT %s(_sc_v) FROM sc_each(%s))",
		    k[7] == 'a' ? "max" : "min", A(0));
		return 0;
	}
	if (strcmp(k, "array_position") == 0) {
		sc_buf_addf(sql, NULL,
		    "(SELECT CASE WHEN _a IS NULL OR _v IS NULL THEN NULL ELSE "
		    "(SELECT coalesce(min(_sc_k) + 1, 0) FROM sc_each(_a) "
		    "WHERE _sc_v = _v) END FROM (SELECT %s AS _a, ",
		    A(0));
		encoded(sql, a, 1);
		sc_buf_addstr(sql, " AS _v))", NULL);
		return 0;
	}
	if (strcmp(k, "array_join") == 0) {
		/* Nulls skipped, or replaced by the third argument. */
		sc_buf_addf(sql, NULL,
		    "(SELECT CASE WHEN _a IS NULL OR _d IS NULL THEN NULL ELSE "
		    "(SELECT coalesce(group_concat(%s, _d), '') FROM "
		    "sc_each(_a)%s) END FROM (SELECT %s AS _a, %s AS _d%s%s))",
		    n == 3 ? "coalesce(_sc_v, _r)" : "_sc_v",
		    n == 3 ? "" : " WHERE _sc_v IS NOT NULL", A(0), A(1),
		    n == 3 ? ", " : "", n == 3 ? A(2) : "");
		if (n == 3) {
			sc_buf_setlen(sql, sql->len - 2);
			sc_buf_addstr(sql, " AS _r))", NULL);
		}
		return 0;
	}
	if (strcmp(k, "flatten") == 0) {
		if (nt->types[0].t != SC_ARROW_LIST)
			return sc_eng_wrong_arg(fname, "\"ARRAY<ARRAY>\"", a, 0,
			    err);
		ei->type = nt->types[0];
		/* A null inner array makes the result null, as Spark's. */
		sc_buf_addf(sql, NULL,
		    "(SELECT CASE WHEN _a IS NULL OR EXISTS (SELECT 1 FROM "
		    "sc_each(_a) WHERE _sc_v IS NULL) THEN NULL ELSE (SELECT "
		    "coalesce(json_group_array(" SC_ENG_ELEM_JSON
		    "), json_array()) "
		    "FROM (SELECT i._sc_v, i._sc_t FROM sc_each(_a) AS o, "
		    "sc_each(o._sc_v) AS i ORDER BY o._sc_k, i._sc_k)) END FROM "
		    "(SELECT %s AS _a))",
		    A(0));
		return 0;
	}
	ei->type = a[0].ei.type;
	if (strcmp(k, "sort_array") == 0 && n == 2) {
		const Spark__Connect__Expression *o = f->arguments[1];

		if (o->expr_type_case != SC_EXPR_(LITERAL) ||
		    o->literal->literal_type_case != SC_LIT_(BOOLEAN))
			return sc_eng_wrong_arg(fname,
			    "\"BOOLEAN\" (a literal)", a, 1, err);
		if (!o->literal->boolean)
			asc = "DESC NULLS LAST";
	}
	if (strcmp(k, "array_sort") == 0)
		asc = "ASC NULLS LAST";
	sc_buf_addf(sql, NULL,
	    "(SELECT CASE WHEN _a IS NULL THEN NULL ELSE (SELECT "
	    "coalesce(json_group_array(" SC_ENG_ELEM_JSON
	    "), json_array()) FROM "
	    "(SELECT _sc_v, _sc_t FROM ");
	if (strcmp(k, "array_distinct") == 0)
		sc_buf_addstr(sql,
		    "(SELECT _sc_v, _sc_t, min(_sc_k) AS _sc_k "
		    "FROM sc_each(_a) GROUP BY _sc_v, _sc_t) "
		    "ORDER BY _sc_k",
		    NULL);
	else if (strcmp(k, "array_remove") == 0)
		sc_buf_addstr(sql,
		    "sc_each(_a) WHERE _sc_v IS NULL OR _sc_v "
		    "<> _v ORDER BY _sc_k",
		    NULL);
	else if (strcmp(k, "slice") == 0)
		sc_buf_addstr(sql,
		    "sc_each(_a) WHERE _sc_k >= _i AND _sc_k < _i + _l ORDER "
		    "BY _sc_k",
		    NULL);
	else
		sc_buf_addf(sql, NULL, "sc_each(_a) ORDER BY _sc_v %s", asc);
	sc_buf_addf(sql, NULL, ")) END FROM (SELECT %s AS _a", A(0));
	if (strcmp(k, "array_remove") == 0) {
		sc_buf_addstr(sql, ", ", NULL);
		encoded(sql, a, 1);
		sc_buf_addstr(sql, " AS _v", NULL);
	} else if (strcmp(k, "slice") == 0) {
		/* start 1-based (negative: from the end), length >= 0. */
		sc_buf_addf(sql, NULL,
		    ", CASE WHEN (%s) = 0 THEN sc_raise('[INVALID_PARAMETER_"
		    "VALUE.START] The value of parameter(s) `start` in `slice` "
		    "is invalid: Expects a positive or a negative value for "
		    "`start`, but got 0. SQLSTATE: 22023') WHEN (%s) > 0 THEN "
		    "(%s) - 1 ELSE json_array_length(%s) + (%s) END AS _i, "
		    "CASE WHEN (%s) < 0 THEN sc_raise('[INVALID_PARAMETER_"
		    "VALUE.LENGTH] The value of parameter(s) `length` in "
		    "`slice` is invalid: Expects `length` greater than or "
		    "equal to 0. SQLSTATE: 22023') ELSE (%s) END AS _l",
		    A(1), A(1), A(1), A(0), A(1), A(2), A(2));
	}
	sc_buf_addstr(sql, "))", NULL);
	return 0;
}

/* struct, array and map functions (F_NESTED). */
int
sc_eng_nested_fn(const struct sc_efdef *fd, const char *fname,
    const Spark__Connect__Expression__UnresolvedFunction *f, struct sc_efarg *a,
    size_t n, struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	const char *k = fd->sql;
	struct sc_etype et, vt;
	const struct sc_enest *nt;
	size_t i;
	int rc = -1;

	if ((rc = sc_eng_array_more(k, fname, a, n, sql, ei, err)) != 1)
		return rc;
	rc = -1;

	if (strcmp(k, "struct") == 0 || strcmp(k, "named_struct") == 0) {
		bool named = k[0] == 'n';
		size_t nf = named ? n / 2 : n, step = named ? 2 : 1;
		char **names = sc_xcalloc(nf + 1, sizeof(*names));
		struct sc_etype *types = sc_xcalloc(nf + 1, sizeof(*types));
		bool *nulls = sc_xcalloc(nf + 1, sizeof(*nulls));
		char cn[32];

		if (named && n % 2 != 0) {
			rc = sc_srv_error(err,
			    "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "42605",
			    "The `named_struct` requires an even number of "
			    "parameters but the actual number is %zu.",
			    n);
			goto sout;
		}
		if (need_types(fname, a, named ? 1 : 0, n, step, err) == -1)
			goto sout;
		for (i = 0; i < nf; i++) {
			size_t v = named ? 2 * i + 1 : i;
			const Spark__Connect__Expression *ae = f->arguments[v];

			if (named) {
				const Spark__Connect__Expression *ne =
				    f->arguments[2 * i];

				if (ne->expr_type_case != SC_EXPR_(LITERAL) ||
				    ne->literal->literal_type_case !=
					SC_LIT_(STRING)) {
					rc = sc_eng_wrong_arg(fname,
					    "\"STRING\" (a literal)", a, 2 * i,
					    err);
					goto sout;
				}
				names[i] = sc_xstrdup(ne->literal->string);
			} else if (ae->expr_type_case ==
				SC_EXPR_(UNRESOLVED_ATTRIBUTE) ||
			    ae->expr_type_case == SC_EXPR_(ALIAS)) {
				names[i] = sc_xstrdup(N(v));
			} else {
				snprintf(cn, sizeof(cn), "col%zu", i + 1);
				names[i] = sc_xstrdup(cn);
			}
			types[i] = a[v].ei.type;
			nulls[i] = a[v].ei.nullable != 0;
		}
		rc =
		    sc_eng_nest_struct(names, types, nulls, nf, &ei->type, err);
		if (rc == 0) {
			sc_buf_addstr(sql, "json_array(", NULL);
			for (i = 0; i < nf; i++) {
				if (i > 0)
					sc_buf_addstr(sql, ", ", NULL);
				encoded(sql, a, named ? 2 * i + 1 : i);
			}
			sc_buf_addch(sql, ')', NULL);
			ei->nullable = 0;
		}
sout:
		for (i = 0; i < nf; i++)
			free(names[i]);
		free(names);
		free(types);
		free(nulls);
		return rc;
	}
	if (strcmp(k, "array") == 0) {
		if (elem_type(fname, a, 0, n, 1, &et, err) == -1 ||
		    sc_eng_nest_array(&et, n == 0 || any_nullable(a, 0, n, 1),
			&ei->type, err) == -1)
			return -1;
		sc_buf_addstr(sql, "json_array(", NULL);
		for (i = 0; i < n; i++) {
			if (i > 0)
				sc_buf_addstr(sql, ", ", NULL);
			encoded(sql, a, i);
		}
		sc_buf_addch(sql, ')', NULL);
		ei->nullable = 0;
		return 0;
	}
	if (strcmp(k, "map") == 0) {
		if (n % 2 != 0)
			return sc_srv_error(err,
			    "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "42605",
			    "The `map` requires an even number of parameters "
			    "but the actual number is %zu.",
			    n);
		for (i = 0; i < n; i += 2)
			if (a[i].ei.nullable != 0 &&
			    a[i].ei.type.t == SC_ARROW_NULL)
				return sc_srv_error(err, "NULL_MAP_KEY",
				    "2200E", "Cannot use null as map key.");
		if (elem_type(fname, a, 0, n, 2, &et, err) == -1 ||
		    elem_type(fname, a, 1, n, 2, &vt, err) == -1 ||
		    sc_eng_nest_map(&et, &vt,
			n == 0 || any_nullable(a, 1, n, 2), &ei->type,
			err) == -1)
			return -1;
		/* Spark refuses duplicate keys (mapKeyDedupPolicy EXCEPTION). */
		sc_buf_addstr(sql,
		    "(SELECT CASE WHEN (SELECT count(*) <> "
		    "count(DISTINCT json_extract(_sc_v, '$[0]')) "
		    "FROM sc_each(_m)) THEN sc_raise("
		    "'[DUPLICATED_MAP_KEY] Duplicate map key was "
		    "found, please check the input data. "
		    "SQLSTATE: 23505') WHEN (SELECT count(*) FROM "
		    "sc_each(_m) WHERE json_type(_sc_v, '$[0]') "
		    "= 'null') > 0 THEN sc_raise('[NULL_MAP_KEY] "
		    "Cannot use null as map key. SQLSTATE: "
		    "2200E') ELSE _m END FROM (SELECT json_array(",
		    NULL);
		for (i = 0; i + 1 < n; i += 2) {
			if (i > 0)
				sc_buf_addstr(sql, ", ", NULL);
			sc_buf_addstr(sql, "json_array(", NULL);
			encoded(sql, a, i);
			sc_buf_addstr(sql, ", ", NULL);
			encoded(sql, a, i + 1);
			sc_buf_addch(sql, ')', NULL);
		}
		sc_buf_addstr(sql, ") AS _m))", NULL);
		ei->nullable = 0;
		return 0;
	}
	nt = a[0].ei.type.nest;
	if (strcmp(k, "size") == 0 || strcmp(k, "array_size") == 0) {
		if (a[0].ei.type.t != SC_ARROW_LIST &&
		    (k[5] != '\0' || a[0].ei.type.t != SC_ARROW_MAP))
			return sc_eng_wrong_arg(fname,
			    k[5] != '\0' ? "\"ARRAY\"" : "\"ARRAY\" or \"MAP\"",
			    a, 0, err);
		/* size(NULL) is -1 without ANSI mode (Spark's sizeOfNull). */
		sc_buf_addf(sql, NULL,
		    k[4] == '\0' && !sc_eng_ansi()
			? "coalesce(json_array_length(%s), -1)"
			: "json_array_length(%s)",
		    A(0));
		ei->nullable = a[0].ei.nullable &&
		    (k[4] != '\0' || sc_eng_ansi());
		return 0;
	}
	if (strcmp(k, "element_at") == 0 || strcmp(k, "try_element_at") == 0 ||
	    strcmp(k, "get") == 0) {
		if (a[0].ei.type.t == SC_ARROW_MAP && k[0] != 'g') {
			sc_eng_map_value(sql, A(0), A(1), &nt->types[1]);
			ei->type = nt->types[1];
			return 0;
		}
		if (a[0].ei.type.t != SC_ARROW_LIST)
			return sc_eng_wrong_arg(fname,
			    k[0] == 'g' ? "\"ARRAY\"" : "\"ARRAY\" or \"MAP\"",
			    a, 0, err);
		if (!sc_eng_is_int_type(a[1].ei.type.t))
			return sc_eng_wrong_arg(fname, "\"INT\"", a, 1, err);
		sc_eng_array_item(sql, A(0), A(1), &nt->types[0],
		    k[0] == 'e' || k[0] == 't', k[0] == 'e' && sc_eng_ansi(),
		    "INVALID_ARRAY_INDEX_IN_ELEMENT_AT",
		    "Use `try_element_at` to tolerate accessing element at "
		    "invalid index and return NULL instead.");
		ei->type = nt->types[0];
		return 0;
	}
	if (strcmp(k, "array_contains") == 0) {
		if (a[0].ei.type.t != SC_ARROW_LIST)
			return sc_eng_wrong_arg(fname, "\"ARRAY\"", a, 0, err);
		if (is_nested(a[1].ei.type.t))
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
			    "array_contains of a nested value is not "
			    "supported by sc-serve.");
		sc_buf_addf(sql, NULL,
		    "(SELECT CASE WHEN _a IS NULL OR _v IS NULL THEN NULL "
		    "WHEN EXISTS (SELECT 1 FROM sc_each(_a) WHERE _sc_v = "
		    "_v) THEN 1 WHEN EXISTS (SELECT 1 FROM sc_each(_a) "
		    "WHERE _sc_t = 'null') THEN NULL ELSE 0 END FROM (SELECT "
		    "%s AS _a, ",
		    A(0));
		encoded(sql, a, 1);
		sc_buf_addstr(sql, " AS _v))", NULL);
		return 0;
	}
	if (strcmp(k, "map_contains_key") == 0) {
		if (a[0].ei.type.t != SC_ARROW_MAP)
			return sc_eng_wrong_arg(fname, "\"MAP\"", a, 0, err);
		sc_buf_addf(sql, NULL,
		    "(SELECT CASE WHEN _m IS NULL OR _k IS NULL THEN NULL "
		    "ELSE EXISTS (SELECT 1 FROM sc_each(_m) WHERE "
		    "json_extract(_sc_v, '$[0]') = _k) END FROM (SELECT %s "
		    "AS _m, %s AS _k))",
		    A(0), A(1));
		return 0;
	}
	if (strcmp(k, "collect_list") == 0 || strcmp(k, "collect_set") == 0) {
		if (need_types(fname, a, 0, 1, 1, err) == -1 ||
		    sc_eng_nest_array(&a[0].ei.type, false, &ei->type, err) ==
			-1)
			return -1;
		sc_buf_addf(sql, NULL, "coalesce(json_group_array(%s",
		    k[8] == 's' ? "DISTINCT " : "");
		encoded(sql, a, 0);
		sc_buf_addf(sql, NULL,
		    ") FILTER (WHERE %s IS NOT NULL), "
		    "json_array())",
		    A(0));
		ei->nullable = 0;
		return 0;
	}
	if (strcmp(k, "reverse") == 0) {
		if (a[0].ei.type.t == SC_ARROW_LIST) {
			sc_buf_addf(sql, NULL,
			    "(SELECT CASE WHEN _a IS NULL THEN NULL ELSE "
			    "(SELECT coalesce(json_group_array(" SC_ENG_ELEM_JSON
			    "), json_array()) FROM (SELECT _sc_v, _sc_t FROM "
			    "sc_each(_a) ORDER BY _sc_k DESC)) END FROM "
			    "(SELECT %s AS _a))",
			    A(0));
			return 0;
		}
		if (a[0].ei.type.t != SC_ARROW_UTF8 &&
		    a[0].ei.type.t != SC_ETYPE_UNKNOWN)
			return sc_eng_wrong_arg(fname,
			    "\"STRING\" or \"ARRAY\"", a, 0, err);
		sc_buf_addf(sql, NULL, "sc_reverse(%s)", A(0));
		return 0;
	}
	if (strcmp(k, "array_union") == 0 ||
	    strcmp(k, "array_intersect") == 0 || strcmp(k, "array_except") == 0)
		return array_set_fn(k, fname, a, sql, ei, err);
	if (strcmp(k, "array_distinct") == 0 || strcmp(k, "sort_array") == 0 ||
	    strcmp(k, "array_sort") == 0 || strcmp(k, "array_remove") == 0 ||
	    strcmp(k, "slice") == 0 || strcmp(k, "array_max") == 0 ||
	    strcmp(k, "array_min") == 0 || strcmp(k, "array_position") == 0 ||
	    strcmp(k, "array_join") == 0 || strcmp(k, "flatten") == 0)
		return array_fn(k, fname, f, a, n, sql, ei, err);
	if (strcmp(k, "sequence") == 0 || strcmp(k, "array_repeat") == 0) {
		const char *cnt;

		if (k[1] == 'e') {
			for (i = 0; i < n; i++)
				if (!sc_eng_is_int_type(a[i].ei.type.t))
					return sc_eng_wrong_arg(fname,
					    "\"BIGINT\"", a, i, err);
			sc_eng_common_type(ei, a, 0, n, 1);
			et = ei->type;
		} else {
			if (!sc_eng_is_int_type(a[1].ei.type.t))
				return sc_eng_wrong_arg(fname, "\"INT\"", a, 1,
				    err);
			if (need_types(fname, a, 0, 1, 1, err) == -1)
				return -1;
			et = a[0].ei.type;
		}
		if (sc_eng_nest_array(&et, k[1] != 'e' && a[0].ei.nullable,
			&ei->type, err) == -1)
			return -1;
		if (k[1] == 'e') {
			/*
			 * stop is included; without a step it is 1 up, -1
			 * down, and a step against the direction fails.
			 */
			sc_buf_addf(sql, NULL,
			    "(SELECT CASE WHEN _s IS NULL OR _e IS NULL OR _p "
			    "IS NULL THEN NULL WHEN _p = 0 OR (_p > 0 AND _s > "
			    "_e) OR (_p < 0 AND _s < _e) THEN sc_raise('"
			    "[INVALID_PARAMETER_VALUE.SEQUENCE_STEP] The value "
			    "of parameter(s) `step` in `sequence` is invalid. "
			    "SQLSTATE: 22023') ELSE (SELECT json_group_array(id) "
			    "FROM range(_s, _e + sign(_p), _p)) END FROM (SELECT "
			    "%s AS _s, %s AS _e, ",
			    A(0), A(1));
			if (n == 3)
				sc_buf_addf(sql, NULL, "%s AS _p))", A(2));
			else
				sc_buf_addf(sql, NULL,
				    "iif((%s) <= (%s), 1, -1) AS _p))", A(0),
				    A(1));
			ei->nullable = 1;
			return 0;
		}
		cnt = A(1);
		sc_buf_addstr(sql,
		    "(SELECT CASE WHEN _n IS NULL THEN NULL "
		    "ELSE (SELECT coalesce(json_group_array(",
		    NULL);
		encoded(sql, a, 0);
		sc_buf_addf(sql, NULL,
		    "), json_array()) FROM range(max(_n, 0))) END FROM "
		    "(SELECT %s AS _n))",
		    cnt);
		ei->nullable = a[1].ei.nullable;
		return 0;
	}
	if (strcmp(k, "split") == 0) {
		struct sc_etype st;

		memset(&st, 0, sizeof(st));
		st.t = SC_ARROW_UTF8;
		if (sc_eng_nest_array(&st, false, &ei->type, err) == -1)
			return -1;
		sc_buf_addstr(sql, "sc_split(", NULL);
		sc_eng_args_list(sql, a, 0, n, false);
		sc_buf_addch(sql, ')', NULL);
		ei->nullable = 1;
		return 0;
	}
	if (strcmp(k, "to_json") == 0) {
		if (!is_nested(a[0].ei.type.t))
			return sc_eng_wrong_arg(fname,
			    "\"STRUCT\", \"ARRAY\" or \"MAP\"", a, 0, err);
		sc_eng_nest_to_json(&a[0].ei.type, A(0), sql, 0);
		ei->nullable = a[0].ei.nullable;
		return 0;
	}
	if (strcmp(k, "from_json") == 0) {
		const Spark__Connect__Expression *se = f->arguments[1];
		struct sc_ecol *cols = NULL;
		size_t nc = 0;
		const char *ddl;

		if (se->expr_type_case != SC_EXPR_(LITERAL) ||
		    se->literal->literal_type_case != SC_LIT_(STRING))
			return sc_eng_wrong_arg(fname,
			    "\"STRING\" (a schema literal)", a, 1, err);
		ddl = se->literal->string;
		/* A type (array<int>, struct<...>) or a schema (a INT, ...). */
		if (sc_eng_parse_type(ddl, strlen(ddl), false, &et) == -1 ||
		    !is_nested(et.t)) {
			char **names;
			struct sc_etype *types;
			bool *nulls;

			if (sc_eng_schema_string(ddl, &cols, &nc, err) == -1)
				return -1;
			names = sc_xcalloc(nc + 1, sizeof(*names));
			types = sc_xcalloc(nc + 1, sizeof(*types));
			nulls = sc_xcalloc(nc + 1, sizeof(*nulls));
			for (i = 0; i < nc; i++) {
				names[i] = cols[i].name;
				types[i] = cols[i].type;
				nulls[i] = true;
			}
			i = (size_t)sc_eng_nest_struct(names, types, nulls, nc,
			    &et, err);
			free(names);
			free(types);
			free(nulls);
			sc_ecols_free(cols, nc);
			if (i != 0)
				return -1;
		}
		ei->type = et;
		ei->nullable = 1;
		sc_eng_nest_from_json(&et, A(0), sql, 0);
		sc_buf_addf(&ei->name, NULL, "from_json(%s)", N(0));
		return 0;
	}
	if (strcmp(k, "typeof") == 0) {
		struct sc_buf tn;

		if (need_types(fname, a, 0, 1, 1, err) == -1)
			return -1;
		sc_buf_init(&tn, SC_BUF_UNLIMITED);
		sc_eng_type_text(&a[0].ei.type, SC_VALUE_SIMPLE, &tn);
		sc_eng_quote_string(sql, (const char *)tn.data, tn.len);
		sc_buf_release(&tn);
		ei->nullable = 0;
		return 0;
	}
	/*
	 * map_entries: a map is kept as [[key, value], ...], which is
	 * also how an array of struct<key, value> is kept.
	 */
	if (strcmp(k, "map_entries") == 0) {
		char key[] = "key", value[] = "value";
		char *kv[2] = { key, value };
		bool nulls[2];

		if (a[0].ei.type.t != SC_ARROW_MAP)
			return sc_eng_wrong_arg(fname, "\"MAP\"", a, 0, err);
		nulls[0] = false;
		nulls[1] = nt->nullable[1];
		if (sc_eng_nest_struct(kv, nt->types, nulls, 2, &vt, err) ==
			-1 ||
		    sc_eng_nest_array(&vt, false, &ei->type, err) == -1)
			return -1;
		sc_buf_addstr(sql, A(0), NULL);
		ei->nullable = a[0].ei.nullable;
		return 0;
	}
	/* map_keys, map_values */
	if (a[0].ei.type.t != SC_ARROW_MAP)
		return sc_eng_wrong_arg(fname, "\"MAP\"", a, 0, err);
	i = k[4] == 'k' ? 0 : 1;
	if (sc_eng_nest_array(&nt->types[i], i == 1 && nt->nullable[1],
		&ei->type, err) == -1)
		return -1;
	sc_buf_addf(sql, NULL,
	    "(SELECT CASE WHEN _m IS NULL THEN NULL ELSE (SELECT "
	    "coalesce(json_group_array(_sc_v -> %zu), json_array()) FROM "
	    "sc_each(_m)) END FROM (SELECT %s AS _m))",
	    i, A(0));
	ei->nullable = a[0].ei.nullable;
	return 0;
}

/*
 * transform, filter, exists, forall: the lambda runs once per element
 * (a row of sc_each() of the array); its variables are the element
 * and, for transform and filter, its index.
 */
static int
sc_eng_higher_order(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedFunction *f, const char *fn,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	const Spark__Connect__Expression__LambdaFunction *l;
	struct sc_buf asql, fsql, v;
	struct sc_einfo aei, fei;
	const struct sc_enest *n;
	char q[32];
	size_t i, nv, base = x->nlvars;
	int rc = -1;

	if (f->arguments[1]->expr_type_case != SC_EXPR_(LAMBDA_FUNCTION))
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The second argument of `%s` must be a lambda function.",
		    fn);
	l = f->arguments[1]->lambda_function;
	nv = l->n_arguments;
	if (nv < 1 || nv > (fn[0] == 't' || fn[0] == 'f' ? 2u : 1u) ||
	    x->nlvars + nv > SC_ENG_MAX_LAMBDA_VARS || l->function == NULL)
		return sc_srv_error(err, "INVALID_LAMBDA_FUNCTION_CALL",
		    "42K0D",
		    "Invalid lambda function call: `%s` takes a lambda of "
		    "%s.",
		    fn,
		    fn[0] == 't' || fn[0] == 'f' ? "one or two arguments"
						 : "one argument");
	sc_buf_init(&asql, SC_BUF_UNLIMITED);
	sc_buf_init(&fsql, SC_BUF_UNLIMITED);
	sc_buf_init(&v, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&aei);
	sc_eng_einfo_init(&fei);
	if (sc_eng_expr(x, in, f->arguments[0], &asql, &aei, err) == -1)
		goto out;
	if (aei.type.t != SC_ARROW_LIST) {
		rc = sc_srv_error(err,
		    "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "42K09",
		    "Cannot resolve \"%s\" due to data type mismatch: its "
		    "first argument %s must be an \"ARRAY\".",
		    fn, (const char *)aei.name.data);
		goto out;
	}
	n = aei.type.nest;
	snprintf(q, sizeof(q), "_sc_l%u", x->lseq++);
	for (i = 0; i < nv; i++) {
		struct sc_elvar *lv = &x->lvars[x->nlvars];

		if (l->arguments[i]->n_name_parts == 0) {
			rc = sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
			    "A lambda variable has no name.");
			goto out;
		}
		memset(lv, 0, sizeof(*lv));
		lv->name = l->arguments[i]->name_parts[0];
		sc_buf_reset(&v);
		if (i == 0) {
			char val[48];

			snprintf(val, sizeof(val), "%s._sc_v", q);
			sc_eng_nest_decode(&n->types[0], val, &v);
			lv->type = n->types[0];
			lv->nullable = n->nullable[0];
		} else {
			sc_buf_addf(&v, NULL, "%s._sc_k", q);
			lv->type.t = SC_ARROW_INT32;
			lv->nullable = 0;
		}
		lv->sql = (char *)sc_buf_detach(&v, NULL);
		x->nlvars++;
	}
	if (sc_eng_expr(x, in, l->function, &fsql, &fei, err) == -1)
		goto out;
	/* Spark's name: f(a, lambdafunction(body, x, i)). */
	sc_buf_addf(&ei->name, NULL, "%s(%s, lambdafunction(%s", fn,
	    (const char *)aei.name.data, (const char *)fei.name.data);
	for (i = 0; i < nv; i++)
		sc_buf_addf(&ei->name, NULL, ", %s", x->lvars[base + i].name);
	sc_buf_addstr(&ei->name, "))", NULL);
	ei->nullable = aei.nullable;
	if (fn[0] == 't') {
		if (fei.type.t == SC_ETYPE_UNKNOWN) {
			rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
			    "0A000",
			    "transform() to a value whose type sc-serve cannot "
			    "tell before it runs is not supported; add a "
			    "CAST.");
			goto out;
		}
		if (sc_eng_nest_array(&fei.type, fei.nullable != 0, &ei->type,
			err) == -1)
			goto out;
		sc_buf_reset(&v);
		sc_eng_nest_encode(&fei.type, (const char *)fsql.data, &v);
		sc_buf_addf(sql, NULL,
		    "(CASE WHEN (%s) IS NULL THEN NULL ELSE (SELECT "
		    "coalesce(json_group_array(%s), json_array()) FROM "
		    "sc_each(%s) AS %s) END)",
		    (const char *)asql.data, (const char *)v.data,
		    (const char *)asql.data, q);
	} else if (fn[0] == 'f' && fn[1] == 'i') {
		ei->type = aei.type;
		sc_buf_addf(sql, NULL,
		    "(CASE WHEN (%s) IS NULL THEN NULL ELSE (SELECT "
		    "coalesce(json_group_array(" SC_ENG_ELEM_JSON
		    "), json_array()) "
		    "FROM sc_each(%s) AS %s WHERE %s) END)",
		    (const char *)asql.data, (const char *)asql.data, q,
		    (const char *)fsql.data);
	} else {
		/* exists: any true, else null if any null, else false;
		 * forall: any false, then false, else null if any null. */
		bool ex = fn[0] == 'e';

		memset(&ei->type, 0, sizeof(ei->type));
		ei->type.t = SC_ARROW_BOOL;
		sc_buf_addf(sql, NULL,
		    "(CASE WHEN (%s) IS NULL THEN NULL WHEN EXISTS (SELECT 1 "
		    "FROM sc_each(%s) AS %s WHERE %s(%s)) THEN %d WHEN "
		    "EXISTS (SELECT 1 FROM sc_each(%s) AS %s WHERE (%s) IS "
		    "NULL) THEN NULL ELSE %d END)",
		    (const char *)asql.data, (const char *)asql.data, q,
		    ex ? "" : "NOT ", (const char *)fsql.data, ex ? 1 : 0,
		    (const char *)asql.data, q, (const char *)fsql.data,
		    ex ? 0 : 1);
	}
	rc = 0;
out:
	while (x->nlvars > base)
		free(x->lvars[--x->nlvars].sql);
	sc_buf_release(&asql);
	sc_buf_release(&fsql);
	sc_buf_release(&v);
	sc_eng_einfo_release(&aei);
	sc_eng_einfo_release(&fei);
	return rc;
}

static const struct sc_efdef defs[] = {
	{ "struct", F_NESTED, "struct", 0, -1, R_UNK, .flags = 0 },
	{ "named_struct", F_NESTED, "named_struct", 0, -1, R_UNK, .flags = 0 },
	{ "array", F_NESTED, "array", 0, -1, R_UNK, .flags = 0 },
	{ "map", F_NESTED, "map", 0, -1, R_UNK, .flags = 0 },
	{ "size", F_NESTED, "size", 1, 1, SC_ARROW_INT32, .flags = 0,
	    .aliases = SC_EF_ALIASES("cardinality") },
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
	{ "split", F_NESTED, "split", 2, 3, R_UNK, .flags = 0 },
	{ "to_json", F_NESTED, "to_json", 1, 2, SC_ARROW_UTF8, .flags = 0 },
	{ "from_json", F_NESTED, "from_json", 2, 3, R_UNK, .flags = 0 },
	{ "transform", F_CALL, NULL, 2, 2, R_UNK, .flags = SC_EF_HOF,
	    .call = sc_eng_higher_order },
	{ "filter", F_CALL, NULL, 2, 2, R_UNK, .flags = SC_EF_HOF,
	    .call = sc_eng_higher_order },
	{ "exists", F_CALL, NULL, 2, 2, R_UNK, .flags = SC_EF_HOF,
	    .call = sc_eng_higher_order },
	{ "forall", F_CALL, NULL, 2, 2, R_UNK, .flags = SC_EF_HOF,
	    .call = sc_eng_higher_order },
};
const struct sc_effamily sc_eng_family_nested = { "nested", defs,
	SC_NELEM(defs) };
