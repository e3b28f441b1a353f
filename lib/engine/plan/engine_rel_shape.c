/* SPDX-License-Identifier: MIT */

/*
 * engine_rel_shape.c: to_schema (DataFrame.to), which reshapes an
 * input's columns as Spark's analyzer does: columns and struct fields
 * matched by name, at any depth of arrays and maps, and cast where an
 * ANSI store assignment may cast.  Its helpers for names and casts
 * serve engine_rel_transpose.c too.
 */

#include "engine/engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

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

bool
sc_eng_name_eq(const struct sc_ectx *x, const char *a, const char *b)
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

int
sc_eng_unresolved_in(const char *name, const struct sc_eplan *in,
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
bool
sc_eng_same_flat(const struct sc_etype *a, const struct sc_etype *b)
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
	if (sc_eng_same_flat(from, to) || from->t == SC_ARROW_NULL)
		return true;
	if (is_numeric(from->t) && is_numeric(to->t))
		return true;
	if (is_string(to->t) && !is_nested(from->t))
		return true;
	return is_datetime(from->t) && is_datetime(to->t);
}

/* SQL of Spark's ANSI CAST of sql (type from, or unknown) to to. */
void
sc_eng_ansi_cast(const char *sql, const struct sc_etype *from,
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
			if (sc_eng_name_eq(x, fn->names[k], tn->names[i])) {
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
		sc_eng_ansi_cast(sql, ft, tt, out);
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
	if (sc_eng_same_flat(ft, tt)) {
		sc_buf_addstr(out, sql, NULL);
		*rt = *ft;
		return 0;
	}
	sc_eng_ansi_cast(sql, ft, tt, out);
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
			if (sc_eng_name_eq(x, in.cols[k].name, tn->names[i]) &&
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
				sc_eng_unresolved_in(tn->names[i], &in, err);
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
