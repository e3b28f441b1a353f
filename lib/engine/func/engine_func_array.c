/* SPDX-License-Identifier: MIT */

/*
 * engine_func_array.c: array_append, array_prepend, array_compact and
 * arrays_overlap over the JSON text an array is kept as.  Element types
 * must match (Spark would widen them; sc-serve refuses the mix rather
 * than answer otherwise), a NULL literal element aside.
 */

#include "engine/plan/engine_expr_int.h"

#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "engine/srverror.h"
#include "core/banned.h"

#define A(i) ((const char *)a[i].sql.data)

/* Whether element e (argument i) can go into array argument 0 as is. */
static int
same_elem(const char *fname, struct sc_efarg *a, size_t i, struct sc_error *err)
{
	const struct sc_enest *nt = a[0].ei.type.nest;

	if (a[i].ei.type.t == SC_ARROW_NULL ||
	    nt->types[0].t == SC_ARROW_NULL ||
	    sc_eng_same_etype(&nt->types[0], &a[i].ei.type))
		return 0;
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
	    "%s() of an element whose type differs from the array's is not "
	    "supported by sc-serve (Spark would widen both).",
	    fname);
}

/* The array argument i as canonical JSON text, NULL for SQL NULL. */
static void
json_of(struct sc_buf *b, struct sc_efarg *a, size_t i)
{
	sc_buf_addf(b, NULL, "json(%s)", A(i));
}

int
sc_eng_array_more(const char *k, const char *fname, struct sc_efarg *a,
    size_t n, struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	const struct sc_enest *nt;
	struct sc_buf e;
	size_t i;

	if (strcmp(k, "array_append") != 0 && strcmp(k, "array_prepend") != 0 &&
	    strcmp(k, "array_compact") != 0 && strcmp(k, "arrays_overlap") != 0)
		return 1;
	for (i = 0; i < n; i++) {
		if (i > 0 && strcmp(k, "arrays_overlap") != 0)
			continue;
		/* A NULL literal is a null array, as Spark casts it. */
		if (a[i].ei.type.t == SC_ARROW_NULL) {
			struct sc_etype vt;

			if (strcmp(k, "arrays_overlap") == 0) {
				sc_eng_set_type(ei, SC_ARROW_BOOL);
			} else {
				memset(&vt, 0, sizeof(vt));
				vt.t = SC_ARROW_NULL;
				if (sc_eng_nest_array(n > 1 ? &a[1].ei.type
							    : &vt,
					true, &ei->type, err) == -1)
					return -1;
			}
			ei->nullable = 1;
			sc_buf_addstr(sql, "NULL", NULL);
			return 0;
		}
		if (a[i].ei.type.t != SC_ARROW_LIST)
			return sc_eng_wrong_arg(fname, "\"ARRAY\"", a, i, err);
	}
	nt = a[0].ei.type.nest;
	ei->nullable = a[0].ei.nullable;
	if (strcmp(k, "array_compact") == 0) {
		/* The elements that are not null, in order. */
		if (sc_eng_nest_array(&nt->types[0], false, &ei->type, err) ==
		    -1)
			return -1;
		sc_buf_addstr(sql,
		    "(SELECT CASE WHEN _a IS NULL THEN NULL ELSE "
		    "(SELECT json_group_array(CASE WHEN type IN "
		    "('object', 'array') THEN json(value) WHEN "
		    "type = 'true' THEN json('true') WHEN type = "
		    "'false' THEN json('false') ELSE value END) "
		    "FROM (SELECT type, value FROM json_each(_a) "
		    "WHERE type <> 'null' ORDER BY key)) END "
		    "FROM (SELECT ",
		    NULL);
		json_of(sql, a, 0);
		sc_buf_addstr(sql, " AS _a))", NULL);
		return 0;
	}
	if (strcmp(k, "arrays_overlap") == 0) {
		if (!sc_eng_same_etype(&nt->types[0],
			&a[1].ei.type.nest->types[0]) &&
		    nt->types[0].t != SC_ARROW_NULL &&
		    a[1].ei.type.nest->types[0].t != SC_ARROW_NULL)
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
			    "arrays_overlap() of arrays whose element types "
			    "differ is not supported by sc-serve (Spark would "
			    "widen both).");
		sc_eng_set_type(ei, SC_ARROW_BOOL);
		ei->nullable = 1;
		/*
		 * True for a common element that is not null; else null
		 * when both have elements and one has a null; else false.
		 */
		sc_buf_addstr(sql,
		    "(SELECT CASE WHEN _a IS NULL OR _b IS NULL THEN NULL WHEN "
		    "EXISTS (SELECT 1 FROM json_each(_a) AS x, json_each(_b) "
		    "AS y WHERE x.type <> 'null' AND x.type = y.type AND "
		    "x.value = y.value) THEN 1 WHEN json_array_length(_a) > 0 "
		    "AND json_array_length(_b) > 0 AND (EXISTS (SELECT 1 FROM "
		    "json_each(_a) WHERE type = 'null') OR EXISTS (SELECT 1 "
		    "FROM json_each(_b) WHERE type = 'null')) THEN NULL ELSE 0 "
		    "END FROM (SELECT ",
		    NULL);
		json_of(sql, a, 0);
		sc_buf_addstr(sql, " AS _a, ", NULL);
		json_of(sql, a, 1);
		sc_buf_addstr(sql, " AS _b))", NULL);
		return 0;
	}
	/* array_append, array_prepend: the element as JSON, at one end. */
	if (same_elem(fname, a, 1, err) == -1)
		return -1;
	/* An empty array() has void elements: the element's type wins. */
	if (sc_eng_nest_array(nt->types[0].t == SC_ARROW_NULL ? &a[1].ei.type
							      : &nt->types[0],
		nt->nullable[0] || a[1].ei.nullable, &ei->type, err) == -1)
		return -1;
	sc_buf_init(&e, SC_BUF_UNLIMITED);
	sc_buf_addstr(&e, "json_quote(", NULL);
	if (a[1].ei.type.t == SC_ARROW_NULL)
		sc_buf_addstr(&e, "NULL", NULL);
	else
		sc_eng_nest_encode(&a[1].ei.type, A(1), &e);
	sc_buf_addch(&e, ')', NULL);
	sc_buf_addstr(sql, "(SELECT CASE WHEN _a IS NULL THEN NULL ELSE json(",
	    NULL);
	if (k[6] == 'a')
		sc_buf_addf(sql, NULL,
		    "substr(_a, 1, length(_a) - 1) || CASE WHEN "
		    "json_array_length(_a) > 0 THEN ',' ELSE '' END || %s || "
		    "']'",
		    (const char *)e.data);
	else
		sc_buf_addf(sql, NULL,
		    "'[' || %s || CASE WHEN json_array_length(_a) > 0 THEN ',' "
		    "|| substr(_a, 2) ELSE ']' END",
		    (const char *)e.data);
	sc_buf_addstr(sql, ") END FROM (SELECT ", NULL);
	json_of(sql, a, 0);
	sc_buf_addstr(sql, " AS _a))", NULL);
	sc_buf_release(&e);
	return 0;
}
