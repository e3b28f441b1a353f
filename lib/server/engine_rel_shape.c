/* SPDX-License-Identifier: MIT */

/*
 * engine_rel_shape.c: the relations that reshape an input's columns as
 * Spark's analyzer does: to_schema (DataFrame.to: columns matched by
 * name, cast where an ANSI store assignment may cast) and transpose
 * (DataFrame.transpose: the index column's values become the columns;
 * like Spark, it reads its input while the plan is translated).
 */

#include "server/engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "server/srverror.h"
#include "core/banned.h"

/* Index values a transpose takes without spark.sql.transposeMaxValues. */
#define MAX_TRANSPOSE_VALUES 500

/* Deepest column path to_schema follows into nested types. */
#define MAX_PATH (SC_ENG_NEST_MAX_DEPTH + 2)

/* ------------------------------------------------------------------ */
/* Names, paths and types in messages                                  */
/* ------------------------------------------------------------------ */

struct path {
	const char *part[MAX_PATH];
	size_t n;
};

/* Spark's toSQLId: `a`.`b`, backticks doubled. */
static void
path_text(const struct path *p, const char *last, struct sc_buf *b)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (i > 0)
			sc_buf_addch(b, '.', NULL);
		sc_eng_quote_ident(b, p->part[i]);
	}
	if (last != NULL) {
		if (p->n > 0)
			sc_buf_addch(b, '.', NULL);
		sc_eng_quote_ident(b, last);
	}
}

static bool
same_name(const struct sc_ectx *x, const char *a, const char *b)
{
	return x->run != NULL && x->run->mode.case_sensitive
	    ? strcmp(a, b) == 0
	    : strcasecmp(a, b) == 0;
}

static size_t
levenshtein(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, *row, prev, cur, r;

	row = sc_xcalloc(lb + 1, sizeof(*row));
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			cur = row[j];
			r = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < r)
				r = row[j] + 1;
			if (row[j - 1] + 1 < r)
				r = row[j - 1] + 1;
			row[j] = r;
			prev = cur;
		}
	}
	r = row[lb];
	free(row);
	return r;
}

/*
 * UNRESOLVED_COLUMN.WITH_SUGGESTION for name: the candidates quoted and
 * ordered by their edit distance to it, as Spark orders them.
 */
static int
unresolved_suggest(const char *name, char *const *cands, size_t n,
    struct sc_error *err)
{
	struct sc_buf b;
	size_t *d, *ord, i, k, t;
	int rc;

	d = sc_xcalloc(n + 1, sizeof(*d));
	ord = sc_xcalloc(n + 1, sizeof(*ord));
	for (i = 0; i < n; i++) {
		d[i] = levenshtein(cands[i], name);
		ord[i] = i;
	}
	/* Insertion sort: stable, as Spark's. */
	for (i = 1; i < n; i++)
		for (k = i; k > 0 && d[ord[k - 1]] > d[ord[k]]; k--) {
			t = ord[k];
			ord[k] = ord[k - 1];
			ord[k - 1] = t;
		}
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	for (i = 0; i < n; i++) {
		if (i > 0)
			sc_buf_addstr(&b, ", ", NULL);
		sc_eng_quote_ident(&b, cands[ord[i]]);
	}
	rc = sc_srv_error(err, "UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703",
	    "A column, variable, or function parameter with name `%s` cannot "
	    "be resolved. Did you mean one of the following? [%s].",
	    name, (const char *)b.data);
	sc_buf_release(&b);
	free(d);
	free(ord);
	return rc;
}

static int
unresolved_plan_col(const char *name, const struct sc_eplan *in,
    struct sc_error *err)
{
	char **names = sc_xcalloc(in->ncols + 1, sizeof(*names));
	size_t i;
	int rc;

	for (i = 0; i < in->ncols; i++)
		names[i] = in->cols[i].name;
	rc = unresolved_suggest(name, names, in->ncols, err);
	free(names);
	return rc;
}

/* "TYPE" as Spark's toSQLType writes it into a message. */
static void
sql_type(const struct sc_etype *t, struct sc_buf *b)
{
	sc_buf_addch(b, '"', NULL);
	sc_eng_type_text(t, SC_VALUE_SQL, b);
	sc_buf_addch(b, '"', NULL);
}

/* ------------------------------------------------------------------ */
/* Type classes                                                        */
/* ------------------------------------------------------------------ */

static bool
is_nested(int t)
{
	return t == SC_ARROW_STRUCT || t == SC_ARROW_LIST || t == SC_ARROW_MAP;
}

static bool
is_string(int t)
{
	return t == SC_ARROW_UTF8 || t == SC_ARROW_LARGE_UTF8;
}

static bool
is_numeric(int t)
{
	return t >= SC_ARROW_INT8 && t <= SC_ARROW_DECIMAL128;
}

static bool
is_datetime(int t)
{
	return t == SC_ARROW_DATE32 || t == SC_ARROW_TIMESTAMP_US;
}

/* Equal flat types (the large string and binary forms are the same). */
static bool
same_flat(const struct sc_etype *a, const struct sc_etype *b)
{
	int ta = a->t, tb = b->t;

	if (ta == SC_ARROW_LARGE_UTF8)
		ta = SC_ARROW_UTF8;
	if (tb == SC_ARROW_LARGE_UTF8)
		tb = SC_ARROW_UTF8;
	if (ta == SC_ARROW_LARGE_BINARY)
		ta = SC_ARROW_BINARY;
	if (tb == SC_ARROW_LARGE_BINARY)
		tb = SC_ARROW_BINARY;
	if (ta != tb)
		return false;
	if (ta == SC_ARROW_DECIMAL128)
		return a->prec == b->prec && a->scale == b->scale;
	if (ta == SC_ARROW_TIMESTAMP_US)
		return a->ntz == b->ntz;
	return true;
}

/* Spark's Cast.canANSIStoreAssign for flat types. */
static bool
can_store(const struct sc_etype *from, const struct sc_etype *to)
{
	if (same_flat(from, to) || from->t == SC_ARROW_NULL)
		return true;
	if (is_numeric(from->t) && is_numeric(to->t))
		return true;
	if (is_string(to->t) && !is_nested(from->t))
		return true;
	return is_datetime(from->t) && is_datetime(to->t);
}

/* SQL of Spark's ANSI CAST of sql (type from, or unknown) to to. */
static void
ansi_cast(const char *sql, const struct sc_etype *from,
    const struct sc_etype *to, struct sc_buf *out)
{
	sc_buf_addf(out, NULL, "sc_cast(%s, '", sql);
	sc_eng_type_text(to, SC_VALUE_TYPENAME, out);
	sc_buf_addstr(out, "', 0", NULL);
	if (from->t != SC_ETYPE_UNKNOWN) {
		sc_buf_addstr(out, ", '", NULL);
		sc_eng_type_text(from, SC_VALUE_TYPENAME, out);
		sc_buf_addch(out, '\'', NULL);
	}
	sc_buf_addch(out, ')', NULL);
}

/* ------------------------------------------------------------------ */
/* to_schema                                                           */
/* ------------------------------------------------------------------ */

static int reconcile(struct sc_ectx *x, const char *sql,
    const struct sc_etype *ft, int fnull, const struct sc_etype *tt, bool tnull,
    struct path *p, struct sc_buf *out, struct sc_etype *rt,
    struct sc_error *err);

static int
path_push(struct path *p, const char *part, struct sc_error *err)
{
	if (p->n == MAX_PATH)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE",
		    "0A000",
		    "A schema nested deeper than %d levels is not supported "
		    "by sc-serve.",
		    MAX_PATH);
	p->part[p->n++] = part;
	return 0;
}

/*
 * The fields of struct value sql (type ft) matched to the fields of tt
 * by name, as Spark's Project.reorderFields: a new struct value.
 */
static int
reorder_struct(struct sc_ectx *x, const char *sql, const struct sc_etype *ft,
    int fnull, const struct sc_etype *tt, struct path *p, struct sc_buf *out,
    struct sc_etype *rt, struct sc_error *err)
{
	const struct sc_enest *fn = ft->nest, *tn = tt->nest;
	struct sc_etype *types;
	bool *nulls;
	struct sc_buf item, at, v;
	size_t i, k, m, nm;
	int rc = -1;

	types = sc_xcalloc(tn->n + 1, sizeof(*types));
	nulls = sc_xcalloc(tn->n + 1, sizeof(*nulls));
	sc_buf_init(&item, SC_BUF_UNLIMITED);
	sc_buf_init(&at, SC_BUF_UNLIMITED);
	sc_buf_init(&v, SC_BUF_UNLIMITED);
	if (fnull != 0)
		sc_buf_addf(out, NULL, "CASE WHEN (%s) IS NULL THEN NULL ELSE ",
		    sql);
	sc_buf_addstr(out, "json_array(", NULL);
	for (i = 0; i < tn->n; i++) {
		nm = 0;
		m = 0;
		for (k = 0; k < fn->n; k++)
			if (same_name(x, fn->names[k], tn->names[i])) {
				if (nm++ == 0)
					m = k;
			}
		if (i > 0)
			sc_buf_addstr(out, ", ", NULL);
		if (nm > 1) {
			sc_buf_reset(&v);
			path_text(p, tn->names[i], &v);
			sc_srv_error(err, "AMBIGUOUS_COLUMN_OR_FIELD", "42702",
			    "Column or field %s is ambiguous and has %zu "
			    "matches.",
			    (const char *)v.data, nm);
			goto out;
		}
		if (nm == 0) {
			if (!tn->nullable[i]) {
				sc_buf_reset(&v);
				path_text(p, NULL, &v);
				sc_buf_reset(&item);
				for (k = 0; k < fn->n; k++) {
					if (k > 0)
						sc_buf_addstr(&item, ", ",
						    NULL);
					sc_eng_quote_ident(&item, fn->names[k]);
				}
				sc_srv_error(err,
				    "UNRESOLVED_FIELD.WITH_SUGGESTION", "42703",
				    "A field with name `%s` cannot be resolved "
				    "with the struct-type column %s. Did you "
				    "mean one of the following? [%s].",
				    tn->names[i], (const char *)v.data,
				    (const char *)item.data);
				goto out;
			}
			sc_buf_addstr(out, "NULL", NULL);
			types[i] = tn->types[i];
			nulls[i] = true;
			continue;
		}
		sc_buf_reset(&at);
		sc_buf_reset(&v);
		sc_buf_reset(&item);
		sc_buf_addf(&at, NULL, "json_extract(%s, '$[%zu]')", sql, m);
		sc_eng_nest_decode(&fn->types[m], (const char *)at.data, &v);
		if (path_push(p, fn->names[m], err) == -1)
			goto out;
		rc = reconcile(x, (const char *)v.data, &fn->types[m],
		    fn->nullable[m], &tn->types[i], tn->nullable[i], p, &item,
		    &types[i], err);
		p->n--;
		if (rc == -1)
			goto out;
		rc = -1;
		nulls[i] = fn->nullable[m];
		sc_eng_nest_encode(&types[i], (const char *)item.data, out);
	}
	sc_buf_addch(out, ')', NULL);
	if (fnull != 0)
		sc_buf_addstr(out, " END", NULL);
	rc = sc_eng_nest_struct(tn->names, types, nulls, tn->n, rt, err);
out:
	sc_buf_release(&item);
	sc_buf_release(&at);
	sc_buf_release(&v);
	free(types);
	free(nulls);
	return rc;
}

/*
 * One member of the elements of an array or map value (alias is the
 * sc_each() row, at is SQL of the member's JSON form there): its SQL
 * converted into item (in the nested form), its type into rt.  *same
 * tells whether converting changes nothing.
 */
static int
member(struct sc_ectx *x, const char *at, const struct sc_etype *ft, bool fnull,
    const struct sc_etype *tt, bool tnull, struct path *p, const char *part,
    struct sc_buf *item, struct sc_etype *rt, bool *same, struct sc_error *err)
{
	struct sc_buf v, o;
	int rc;

	if (path_push(p, part, err) == -1)
		return -1;
	sc_buf_init(&v, SC_BUF_UNLIMITED);
	sc_buf_init(&o, SC_BUF_UNLIMITED);
	sc_eng_nest_decode(ft, at, &v);
	rc = reconcile(x, (const char *)v.data, ft, fnull, tt, tnull, p, &o, rt,
	    err);
	p->n--;
	if (rc == 0) {
		*same = strcmp((const char *)o.data, (const char *)v.data) == 0;
		sc_eng_nest_encode(rt, (const char *)o.data, item);
	}
	sc_buf_release(&v);
	sc_buf_release(&o);
	return rc;
}

/*
 * Every element of array or map value sql rebuilt from items (SQL over
 * the sc_each() row alias), in order; a null array stays null.
 */
static void
rebuild(const char *sql, int fnull, const char *alias, const char *items,
    struct sc_buf *out)
{
	if (fnull != 0)
		sc_buf_addf(out, NULL, "CASE WHEN (%s) IS NULL THEN NULL ELSE ",
		    sql);
	sc_buf_addf(out, NULL,
	    "(SELECT coalesce(json_group_array(%s), json_array()) FROM "
	    "(SELECT _sc_k, _sc_v, _sc_t FROM sc_each(%s) ORDER BY _sc_k) "
	    "AS %s)",
	    items, sql, alias);
	if (fnull != 0)
		sc_buf_addstr(out, " END", NULL);
}

/* Spark's ArrayTransform of reconcileColumnType over the elements. */
static int
convert_array(struct sc_ectx *x, const char *sql, const struct sc_etype *ft,
    int fnull, const struct sc_etype *tt, struct path *p, struct sc_buf *out,
    struct sc_etype *rt, struct sc_error *err)
{
	const struct sc_enest *fn = ft->nest, *tn = tt->nest;
	struct sc_buf at, item;
	struct sc_etype et;
	char alias[32];
	bool same = false;
	int rc;

	snprintf(alias, sizeof(alias), "_sc_e%u", x->seq++);
	sc_buf_init(&at, SC_BUF_UNLIMITED);
	sc_buf_init(&item, SC_BUF_UNLIMITED);
	sc_buf_addf(&at, NULL, "%s._sc_v", alias);
	rc = member(x, (const char *)at.data, &fn->types[0], fn->nullable[0],
	    &tn->types[0], tn->nullable[0], p, "element", &item, &et, &same,
	    err);
	if (rc == 0 && same) {
		sc_buf_addstr(out, sql, NULL);
		*rt = *ft;
	} else if (rc == 0) {
		rebuild(sql, fnull, alias, (const char *)item.data, out);
		rc = sc_eng_nest_array(&et, fn->nullable[0], rt, err);
	}
	sc_buf_release(&at);
	sc_buf_release(&item);
	return rc;
}

/* MapFromArrays of the converted keys and values. */
static int
convert_map(struct sc_ectx *x, const char *sql, const struct sc_etype *ft,
    int fnull, const struct sc_etype *tt, struct path *p, struct sc_buf *out,
    struct sc_etype *rt, struct sc_error *err)
{
	const struct sc_enest *fn = ft->nest, *tn = tt->nest;
	struct sc_buf at, k, v, items;
	struct sc_etype kt, vt;
	char alias[32];
	bool ksame = false, vsame = false;
	int rc;

	snprintf(alias, sizeof(alias), "_sc_e%u", x->seq++);
	sc_buf_init(&at, SC_BUF_UNLIMITED);
	sc_buf_init(&k, SC_BUF_UNLIMITED);
	sc_buf_init(&v, SC_BUF_UNLIMITED);
	sc_buf_init(&items, SC_BUF_UNLIMITED);
	sc_buf_addf(&at, NULL, "json_extract(%s._sc_v, '$[0]')", alias);
	rc = member(x, (const char *)at.data, &fn->types[0], false,
	    &tn->types[0], false, p, "key", &k, &kt, &ksame, err);
	if (rc == 0) {
		sc_buf_reset(&at);
		sc_buf_addf(&at, NULL, "json_extract(%s._sc_v, '$[1]')", alias);
		rc = member(x, (const char *)at.data, &fn->types[1],
		    fn->nullable[1], &tn->types[1], tn->nullable[1], p, "value",
		    &v, &vt, &vsame, err);
	}
	if (rc == 0 && ksame && vsame) {
		sc_buf_addstr(out, sql, NULL);
		*rt = *ft;
	} else if (rc == 0) {
		sc_buf_addf(&items, NULL, "json_array(%s, %s)",
		    (const char *)k.data, (const char *)v.data);
		rebuild(sql, fnull, alias, (const char *)items.data, out);
		rc = sc_eng_nest_map(&kt, &vt, fn->nullable[1], rt, err);
	}
	sc_buf_release(&at);
	sc_buf_release(&k);
	sc_buf_release(&v);
	sc_buf_release(&items);
	return rc;
}

static int
not_null_violation(const struct path *p, bool array, struct sc_error *err)
{
	struct sc_buf v;
	int rc;

	sc_buf_init(&v, SC_BUF_UNLIMITED);
	path_text(p, NULL, &v);
	rc = sc_srv_error(err,
	    array ? "NOT_NULL_CONSTRAINT_VIOLATION.ARRAY_ELEMENT"
		  : "NOT_NULL_CONSTRAINT_VIOLATION.MAP_VALUE",
	    "42000",
	    "Assigning a NULL is not allowed here. The %s %s is defined to "
	    "contain only %s that are NOT NULL.",
	    array ? "array" : "map", (const char *)v.data,
	    array ? "elements" : "values");
	sc_buf_release(&v);
	return rc;
}

/*
 * Spark's Project.reconcileColumnType: value sql of type ft (nullable
 * fnull: 1, 0, -1 unknown) as type tt into out, its type into rt.
 */
static int
reconcile(struct sc_ectx *x, const char *sql, const struct sc_etype *ft,
    int fnull, const struct sc_etype *tt, bool tnull, struct path *p,
    struct sc_buf *out, struct sc_etype *rt, struct sc_error *err)
{
	struct sc_buf v;
	int rc;

	if (fnull == 1 && !tnull) {
		sc_buf_init(&v, SC_BUF_UNLIMITED);
		path_text(p, NULL, &v);
		rc = sc_srv_error(err, "NULLABLE_COLUMN_OR_FIELD", "42000",
		    "Column or field %s is nullable while it's required to be "
		    "non-nullable.",
		    (const char *)v.data);
		sc_buf_release(&v);
		return rc;
	}
	if (ft->t == SC_ARROW_STRUCT && tt->t == SC_ARROW_STRUCT)
		return reorder_struct(x, sql, ft, fnull, tt, p, out, rt, err);
	if (ft->t == SC_ARROW_LIST && tt->t == SC_ARROW_LIST) {
		if (ft->nest->nullable[0] && !tt->nest->nullable[0])
			return not_null_violation(p, true, err);
		return convert_array(x, sql, ft, fnull, tt, p, out, rt, err);
	}
	if (ft->t == SC_ARROW_MAP && tt->t == SC_ARROW_MAP) {
		if (ft->nest->nullable[1] && !tt->nest->nullable[1])
			return not_null_violation(p, false, err);
		return convert_map(x, sql, ft, fnull, tt, p, out, rt, err);
	}
	if (ft->t == SC_ETYPE_UNKNOWN && !is_nested(tt->t)) {
		ansi_cast(sql, ft, tt, out);
		*rt = *tt;
		return 0;
	}
	if (ft->t == SC_ARROW_NULL) {
		sc_buf_addstr(out, "NULL", NULL);
		*rt = *tt;
		return 0;
	}
	if (is_nested(ft->t) || is_nested(tt->t) || !can_store(ft, tt)) {
		sc_buf_init(&v, SC_BUF_UNLIMITED);
		path_text(p, NULL, &v);
		sc_buf_addstr(&v, " is of type ", NULL);
		sql_type(ft, &v);
		sc_buf_addstr(&v, " while it's required to be ", NULL);
		sql_type(tt, &v);
		rc = sc_srv_error(err, "INVALID_COLUMN_OR_FIELD_DATA_TYPE",
		    "42000", "Column or field %s.", (const char *)v.data);
		sc_buf_release(&v);
		return rc;
	}
	if (same_flat(ft, tt)) {
		sc_buf_addstr(out, sql, NULL);
		*rt = *ft;
		return 0;
	}
	ansi_cast(sql, ft, tt, out);
	*rt = *tt;
	return 0;
}

int
sc_eng_to_schema(struct sc_ectx *x, const Spark__Connect__ToSchema *t,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	struct sc_etype target, rt;
	const struct sc_enest *tn;
	struct sc_buf ref, item;
	struct path p = { .n = 0 };
	size_t i, k, m, nm;
	int rc = -1;

	if (t->schema == NULL)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A to_schema relation needs a schema.");
	if (sc_eng_type_from_proto(t->schema, &target, err) == -1)
		return -1;
	if (target.t != SC_ARROW_STRUCT)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The schema of a to_schema relation must be a struct.");
	tn = target.nest;
	sc_eplan_init(&in);
	sc_buf_init(&ref, SC_BUF_UNLIMITED);
	sc_buf_init(&item, SC_BUF_UNLIMITED);
	if (sc_eng_rel_input(x, t->input, "to_schema", &in, err) == -1)
		goto out;
	sc_buf_addstr(&out->sql, "SELECT ", NULL);
	for (i = 0; i < tn->n; i++) {
		nm = 0;
		m = 0;
		for (k = 0; k < in.ncols; k++)
			if (same_name(x, in.cols[k].name, tn->names[i]) &&
			    nm++ == 0)
				m = k;
		if (i > 0)
			sc_buf_addstr(&out->sql, ", ", NULL);
		if (nm > 1) {
			sc_buf_reset(&item);
			sc_eng_quote_ident(&item, tn->names[i]);
			sc_srv_error(err, "AMBIGUOUS_COLUMN_OR_FIELD", "42702",
			    "Column or field %s is ambiguous and has %zu "
			    "matches.",
			    (const char *)item.data, nm);
			goto out;
		}
		if (nm == 0) {
			if (!tn->nullable[i]) {
				unresolved_plan_col(tn->names[i], &in, err);
				goto out;
			}
			sc_buf_addstr(&out->sql, "NULL AS ", NULL);
			sc_eng_quote_ident(&out->sql, tn->names[i]);
			sc_eng_cols_add(&out->cols, &out->ncols, tn->names[i],
			    &tn->types[i], 1);
			continue;
		}
		sc_buf_reset(&ref);
		sc_buf_reset(&item);
		sc_eng_col_ref(&ref, &in.cols[m]);
		p.n = 0;
		p.part[p.n++] = in.cols[m].name;
		if (reconcile(x, (const char *)ref.data, &in.cols[m].type,
			in.cols[m].nullable, &tn->types[i], tn->nullable[i], &p,
			&item, &rt, err) == -1)
			goto out;
		sc_buf_add(&out->sql, item.data, item.len, NULL);
		sc_buf_addstr(&out->sql, " AS ", NULL);
		sc_eng_quote_ident(&out->sql, tn->names[i]);
		sc_eng_cols_add(&out->cols, &out->ncols, tn->names[i], &rt,
		    in.cols[m].nullable);
	}
	if (tn->n == 0) {
		sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE", "0A000",
		    "A to_schema relation without columns is not supported "
		    "by sc-serve.");
		goto out;
	}
	sc_buf_addstr(&out->sql, " FROM ", NULL);
	sc_eng_from_item(x, &in, out, &out->sql);
	if (in.alias != NULL)
		out->alias = sc_xstrdup(in.alias);
	rc = 0;
out:
	sc_buf_release(&ref);
	sc_buf_release(&item);
	sc_eplan_release(&in);
	return rc;
}

/* ------------------------------------------------------------------ */
/* transpose                                                           */
/* ------------------------------------------------------------------ */

/* A type as Catalyst's toString writes it (IntegerType, ArrayType(...)). */
static void
catalyst_name(const struct sc_etype *t, struct sc_buf *b)
{
	const struct sc_enest *n = t->nest;
	size_t i;

	switch (t->t) {
	case SC_ARROW_NULL:
		sc_buf_addstr(b, "NullType", NULL);
		return;
	case SC_ARROW_BOOL:
		sc_buf_addstr(b, "BooleanType", NULL);
		return;
	case SC_ARROW_INT8:
		sc_buf_addstr(b, "ByteType", NULL);
		return;
	case SC_ARROW_INT16:
		sc_buf_addstr(b, "ShortType", NULL);
		return;
	case SC_ARROW_INT32:
		sc_buf_addstr(b, "IntegerType", NULL);
		return;
	case SC_ARROW_INT64:
		sc_buf_addstr(b, "LongType", NULL);
		return;
	case SC_ARROW_FLOAT:
		sc_buf_addstr(b, "FloatType", NULL);
		return;
	case SC_ARROW_DOUBLE:
		sc_buf_addstr(b, "DoubleType", NULL);
		return;
	case SC_ARROW_DECIMAL128:
		sc_buf_addf(b, NULL, "DecimalType(%d,%d)", t->prec, t->scale);
		return;
	case SC_ARROW_UTF8:
	case SC_ARROW_LARGE_UTF8:
		sc_buf_addstr(b, "StringType", NULL);
		return;
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_BINARY:
		sc_buf_addstr(b, "BinaryType", NULL);
		return;
	case SC_ARROW_DATE32:
		sc_buf_addstr(b, "DateType", NULL);
		return;
	case SC_ARROW_TIMESTAMP_US:
		sc_buf_addstr(b, t->ntz ? "TimestampNTZType" : "TimestampType",
		    NULL);
		return;
	case SC_ARROW_LIST:
		sc_buf_addstr(b, "ArrayType(", NULL);
		catalyst_name(&n->types[0], b);
		sc_buf_addstr(b, n->nullable[0] ? ",true)" : ",false)", NULL);
		return;
	case SC_ARROW_MAP:
		sc_buf_addstr(b, "MapType(", NULL);
		catalyst_name(&n->types[0], b);
		sc_buf_addch(b, ',', NULL);
		catalyst_name(&n->types[1], b);
		sc_buf_addstr(b, n->nullable[1] ? ",true)" : ",false)", NULL);
		return;
	case SC_ARROW_STRUCT:
		sc_buf_addstr(b, "StructType(", NULL);
		for (i = 0; i < n->n; i++) {
			sc_buf_addstr(b,
			    i > 0 ? ",StructField(" : "StructField(", NULL);
			sc_buf_addstr(b, n->names[i], NULL);
			sc_buf_addch(b, ',', NULL);
			catalyst_name(&n->types[i], b);
			sc_buf_addstr(b, n->nullable[i] ? ",true)" : ",false)",
			    NULL);
		}
		sc_buf_addch(b, ')', NULL);
		return;
	default:
		sc_buf_addstr(b, "UnknownType", NULL);
		return;
	}
}

/* Rank of a non-decimal numeric type in Spark's numeric precedence. */
static int
num_rank(int t)
{
	switch (t) {
	case SC_ARROW_INT8:
		return 0;
	case SC_ARROW_INT16:
		return 1;
	case SC_ARROW_INT32:
		return 2;
	case SC_ARROW_INT64:
		return 3;
	case SC_ARROW_FLOAT:
		return 4;
	case SC_ARROW_DOUBLE:
		return 5;
	default:
		return -1;
	}
}

/* Digits of an integral type as a decimal (DecimalType.forType). */
static int
int_digits(int t)
{
	static const int d[] = { 3, 5, 10, 20 };
	int r = num_rank(t);

	return r >= 0 && r <= 3 ? d[r] : -1;
}

/* Spark's TypeCoercion.findTightestCommonType: true with *out set. */
static bool
tightest(const struct sc_etype *a, const struct sc_etype *b,
    struct sc_etype *out)
{
	const struct sc_etype *d, *o;
	int ra = num_rank(a->t), rb = num_rank(b->t);

	if (is_nested(a->t) || is_nested(b->t)) {
		if (a->t == b->t && a->nest == b->nest) {
			*out = *a;
			return true;
		}
		return false;
	}
	if (same_flat(a, b) || b->t == SC_ARROW_NULL) {
		*out = *a;
		return true;
	}
	if (a->t == SC_ARROW_NULL) {
		*out = *b;
		return true;
	}
	if (ra >= 0 && rb >= 0) {
		*out = ra >= rb ? *a : *b;
		return true;
	}
	if (a->t == SC_ARROW_DECIMAL128 || b->t == SC_ARROW_DECIMAL128) {
		d = a->t == SC_ARROW_DECIMAL128 ? a : b;
		o = d == a ? b : a;
		if (int_digits(o->t) > 0 &&
		    d->prec - d->scale >= int_digits(o->t)) {
			*out = *d;
			return true;
		}
		return false;
	}
	if (is_datetime(a->t) && is_datetime(b->t)) {
		/* date < timestamp_ntz < timestamp */
		if (a->t == SC_ARROW_DATE32)
			*out = *b;
		else if (b->t == SC_ARROW_DATE32)
			*out = *a;
		else
			*out = a->ntz ? *b : *a;
		return true;
	}
	return false;
}

struct tvals {
	char **names; /* each index value, as a string */
	sqlite3_value ***v; /* v[row][col] */
	size_t nrows, ncols;
};

static void
tvals_release(struct tvals *t)
{
	size_t i, k;

	for (i = 0; i < t->nrows; i++) {
		free(t->names[i]);
		for (k = 0; k < t->ncols; k++)
			sqlite3_value_free(t->v[i][k]);
		free(t->v[i]);
	}
	free(t->names);
	free(t->v);
}

/* The index column of t over in: 0 (*idx set) or -1. */
static int
index_column(struct sc_ectx *x, const Spark__Connect__Transpose *t,
    const struct sc_eplan *in, size_t *idx, struct sc_error *err)
{
	const Spark__Connect__Expression *e;
	struct sc_buf b;
	const char *name;
	size_t k, nm = 0;
	int rc;

	if (t->n_index_columns == 0) {
		*idx = 0;
		return 0;
	}
	if (t->n_index_columns > 1)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A transpose takes one index column, not %zu.",
		    t->n_index_columns);
	e = t->index_columns[0];
	if (e == NULL || e->expr_type_case != SC_EXPR_(UNRESOLVED_ATTRIBUTE) ||
	    e->unresolved_attribute->unparsed_identifier == NULL)
		return sc_srv_error(err, "TRANSPOSE_INVALID_INDEX_COLUMN",
		    "42804",
		    "Invalid index column for TRANSPOSE because: Index column "
		    "must be an atomic attribute");
	name = e->unresolved_attribute->unparsed_identifier;
	for (k = 0; k < in->ncols; k++)
		if (same_name(x, in->cols[k].name, name) && nm++ == 0)
			*idx = k;
	if (nm == 0)
		return unresolved_plan_col(name, in, err);
	if (nm > 1) {
		sc_buf_init(&b, SC_BUF_UNLIMITED);
		sc_eng_quote_ident(&b, name);
		rc = sc_srv_error(err, "AMBIGUOUS_REFERENCE", "42704",
		    "Reference %s is ambiguous, could be: %zu columns.",
		    (const char *)b.data, nm);
		sc_buf_release(&b);
		return rc;
	}
	return 0;
}

/* Read the index values (sorted, at most the limit) and the values. */
static int
transpose_read(struct sc_ectx *x, struct sc_eplan *in, size_t idx,
    const struct sc_etype *common, struct tvals *tv, struct sc_error *err)
{
	struct sc_eplan w;
	struct sc_etype str = { .t = SC_ARROW_UTF8 };
	struct sc_buf q, ref;
	sqlite3_stmt *st = NULL;
	size_t i, k;
	int rc = -1, step;
	int max = x->run != NULL ? x->run->mode.transpose_max
				 : MAX_TRANSPOSE_VALUES;

	sc_eplan_init(&w);
	sc_buf_init(&q, SC_BUF_UNLIMITED);
	sc_buf_init(&ref, SC_BUF_UNLIMITED);
	sc_eng_col_ref(&ref, &in->cols[idx]);
	sc_buf_addstr(&w.sql, "SELECT ", NULL);
	if (is_string(in->cols[idx].type.t))
		sc_buf_add(&w.sql, ref.data, ref.len, NULL);
	else
		ansi_cast((const char *)ref.data, &in->cols[idx].type, &str,
		    &w.sql);
	for (i = 0; i < in->ncols; i++) {
		struct sc_buf c;

		if (i == idx)
			continue;
		sc_buf_addstr(&w.sql, ", ", NULL);
		sc_buf_init(&c, SC_BUF_UNLIMITED);
		sc_eng_col_ref(&c, &in->cols[i]);
		if (in->cols[i].type.t == SC_ARROW_NULL)
			sc_buf_addstr(&w.sql, "NULL", NULL);
		else if (is_nested(common->t) ||
		    same_flat(&in->cols[i].type, common))
			sc_buf_add(&w.sql, c.data, c.len, NULL);
		else
			ansi_cast((const char *)c.data, &in->cols[i].type,
			    common, &w.sql);
		sc_buf_release(&c);
	}
	sc_buf_addstr(&w.sql, " FROM ", NULL);
	sc_eng_from_item(x, in, &w, &w.sql);
	sc_buf_addf(&w.sql, NULL, " WHERE %s IS NOT NULL ORDER BY %s ASC",
	    (const char *)ref.data, (const char *)ref.data);
	sc_buf_addf(&w.sql, NULL, " LIMIT %lld", (long long)max + 1);
	sc_eng_plan_finish(&w);
	if (sc_eng_prepare(x, (const char *)w.sql.data, w.sql.len, &st, NULL,
		err) == -1)
		goto out;
	tv->ncols = in->ncols - 1;
	while ((step = sc_eng_step(x, st)) == SQLITE_ROW) {
		if (tv->nrows == (size_t)max) {
			sc_srv_error(err, "TRANSPOSE_EXCEED_ROW_LIMIT", "54006",
			    "Number of rows exceeds the allowed limit of %d "
			    "for TRANSPOSE. If this was intended, set "
			    "spark.sql.transposeMaxValues to at least the "
			    "current row count.",
			    max);
			goto out;
		}
		tv->names = sc_xreallocarray(tv->names, tv->nrows + 1,
		    sizeof(*tv->names));
		tv->v = sc_xreallocarray(tv->v, tv->nrows + 1, sizeof(*tv->v));
		tv->names[tv->nrows] =
		    sc_xstrndup((const char *)sqlite3_column_text(st, 0),
			(size_t)sqlite3_column_bytes(st, 0));
		tv->v[tv->nrows] = sc_xcalloc(tv->ncols + 1, sizeof(**tv->v));
		tv->nrows++;
		for (k = 0; k < tv->ncols; k++) {
			tv->v[tv->nrows - 1][k] = sqlite3_value_dup(
			    sqlite3_column_value(st, (int)k + 1));
			if (tv->v[tv->nrows - 1][k] == NULL) {
				sc_srv_error(err, "UNABLE_TO_ACQUIRE_MEMORY",
				    "53200",
				    "Out of memory while transposing.");
				goto out;
			}
		}
	}
	if (step != SQLITE_DONE) {
		sc_eng_sqlite_error(x, step, err);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	sc_buf_release(&q);
	sc_buf_release(&ref);
	sc_eplan_release(&w);
	return rc;
}

/* The transposed rows into a TEMP table; out reads it. */
static int
transpose_table(struct sc_ectx *x, const struct sc_eplan *in, size_t idx,
    const struct sc_etype *common, const struct tvals *tv, struct sc_eplan *out,
    struct sc_error *err)
{
	struct sc_etype str = { .t = SC_ARROW_UTF8 };
	struct sc_buf sql;
	sqlite3_stmt *ins = NULL;
	char name[48];
	size_t i, j, row;
	int rc = -1, step, b;

	snprintf(name, sizeof(name), "_sc_transpose_%u", sc_eng_next_tmp(x->c));
	sc_buf_init(&sql, SC_BUF_UNLIMITED);
	sc_buf_addstr(&sql, "CREATE TEMP TABLE ", NULL);
	sc_eng_quote_ident(&sql, name);
	sc_buf_addstr(&sql, "(`key` TEXT NOT NULL", NULL);
	for (j = 0; j < tv->nrows; j++) {
		sc_buf_addf(&sql, NULL, ", `_c%zu` ", j);
		sc_eng_type_decl(common, &sql);
	}
	sc_buf_addch(&sql, ')', NULL);
	if (sc_eng_exec(x, (const char *)sql.data, err) == -1)
		goto out;
	sc_eng_add_tmp(x, name);
	sc_buf_reset(&sql);
	sc_buf_addstr(&sql, "INSERT INTO temp.", NULL);
	sc_eng_quote_ident(&sql, name);
	sc_buf_addstr(&sql, " VALUES (?", NULL);
	for (j = 0; j < tv->nrows; j++)
		sc_buf_addstr(&sql, ", ?", NULL);
	sc_buf_addch(&sql, ')', NULL);
	if (sc_eng_prepare(x, (const char *)sql.data, sql.len, &ins, NULL,
		err) == -1)
		goto out;
	/* One row per column that is not the index, in the input's order. */
	for (i = 0, row = 0; i < in->ncols; i++) {
		if (i == idx)
			continue;
		b = sqlite3_bind_text(ins, 1, in->cols[i].name, -1,
		    SQLITE_TRANSIENT);
		for (j = 0; b == SQLITE_OK && j < tv->nrows; j++)
			b = sqlite3_bind_value(ins, (int)j + 2, tv->v[j][row]);
		if (b != SQLITE_OK) {
			sc_eng_bind_error(ins, b, err);
			goto out;
		}
		step = sc_eng_step(x, ins);
		sqlite3_reset(ins);
		if (step != SQLITE_DONE) {
			sc_eng_sqlite_error(x, step, err);
			goto out;
		}
		row++;
	}
	sc_eng_cols_add(&out->cols, &out->ncols, "key", &str, 0);
	sc_buf_addstr(&out->sql, "SELECT `key`", NULL);
	for (j = 0; j < tv->nrows; j++) {
		sc_buf_addf(&out->sql, NULL, ", `_c%zu` AS ", j);
		sc_eng_quote_ident(&out->sql, tv->names[j]);
		sc_eng_cols_add(&out->cols, &out->ncols, tv->names[j], common,
		    1);
	}
	sc_buf_addstr(&out->sql, " FROM temp.", NULL);
	sc_eng_quote_ident(&out->sql, name);
	rc = 0;
out:
	sqlite3_finalize(ins);
	sc_buf_release(&sql);
	return rc;
}

int
sc_eng_transpose(struct sc_ectx *x, const Spark__Connect__Transpose *t,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	struct sc_etype common = { .t = SC_ARROW_UTF8 }, next;
	struct tvals tv = { .nrows = 0 };
	struct sc_buf b;
	size_t idx = 0, i;
	bool first = true;
	int rc = -1;

	sc_eplan_init(&in);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	if (sc_eng_rel_input(x, t->input, "transpose", &in, err) == -1 ||
	    index_column(x, t, &in, &idx, err) == -1)
		goto out;
	if (in.cols[idx].type.t == SC_ETYPE_UNKNOWN ||
	    in.cols[idx].type.t == SC_ARROW_NULL ||
	    is_nested(in.cols[idx].type.t)) {
		catalyst_name(&in.cols[idx].type, &b);
		sc_srv_error(err, "TRANSPOSE_INVALID_INDEX_COLUMN", "42804",
		    "Invalid index column for TRANSPOSE because: Index column "
		    "must be of atomic type, but found: %s",
		    (const char *)b.data);
		goto out;
	}
	for (i = 0; i < in.ncols; i++) {
		if (i == idx)
			continue;
		if (in.cols[i].type.t == SC_ETYPE_UNKNOWN) {
			sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE",
			    "0A000",
			    "The type of column `%s` is not known to sc-serve "
			    "before it runs, which a transpose needs.",
			    in.cols[i].name);
			goto out;
		}
		if (first) {
			common = in.cols[i].type;
			first = false;
			continue;
		}
		if (!tightest(&common, &in.cols[i].type, &next)) {
			sql_type(&common, &b);
			sc_buf_addstr(&b, " and ", NULL);
			sql_type(&in.cols[i].type, &b);
			sc_srv_error(err, "TRANSPOSE_NO_LEAST_COMMON_TYPE",
			    "42K09",
			    "Transpose requires non-index columns to share a "
			    "least common type, but %s do not.",
			    (const char *)b.data);
			goto out;
		}
		common = next;
	}
	if (transpose_read(x, &in, idx, &common, &tv, err) == -1)
		goto out;
	rc = transpose_table(x, &in, idx, &common, &tv, out, err);
out:
	tvals_release(&tv);
	sc_buf_release(&b);
	sc_eplan_release(&in);
	return rc;
}
