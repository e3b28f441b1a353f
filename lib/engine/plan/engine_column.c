/* SPDX-License-Identifier: MIT */

/*
 * engine_column.c: column references in expressions: identifiers
 * (a.`b.c`), the column of the input a name means (a join's side by
 * plan id), struct fields (s.f, s.*) and extract value (s['f'], a[0],
 * m['k']).
 */

#include "engine/plan/engine_expr_int.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* ------------------------------------------------------------------ */
/* Identifiers                                                         */
/* ------------------------------------------------------------------ */

void
sc_eng_ident_release(struct sc_eident *id)
{
	size_t i;

	for (i = 0; i < id->n; i++)
		free(id->parts[i]);
	id->n = 0;
}

/* The identifier s has a part over SC_ENGINE_MAX_IDENT bytes. */
static int
ident_too_long(const char *s, struct sc_error *err)
{
	size_t k = 60;

	/* Its start, cut on a UTF-8 character boundary. */
	while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	return sc_srv_error(err, "EXCEED_LIMIT_LENGTH", "54006",
	    "The identifier '%.*s...' (%zu bytes) has a name longer than the "
	    "%d bytes sc-serve allows.",
	    (int)k, s, strlen(s), SC_ENGINE_MAX_IDENT);
}

/*
 * Spark's multi-part identifier: a.b, `a.b`.c, `x``y` (a backtick); each
 * name at most SC_ENGINE_MAX_IDENT bytes.
 */
int
sc_eng_ident_parse(const char *s, struct sc_eident *id, struct sc_error *err)
{
	const char *whole = s;
	struct sc_buf part;

	id->n = 0;
	sc_buf_init(&part, SC_ENGINE_MAX_IDENT);
	for (;;) {
		sc_buf_reset(&part);
		if (*s == '`') {
			s++;
			for (;;) {
				if (*s == '\0')
					goto bad;
				if (*s == '`' && s[1] == '`') {
					sc_buf_addch(&part, '`', NULL);
					s += 2;
				} else if (*s == '`') {
					s++;
					break;
				} else {
					sc_buf_addch(&part, *s++, NULL);
				}
			}
		} else {
			while (*s != '\0' && *s != '.')
				sc_buf_addch(&part, *s++, NULL);
		}
		/* A failed append is sticky: one check covers the part. */
		if (part.failed) {
			sc_buf_release(&part);
			sc_eng_ident_release(id);
			return ident_too_long(whole, err);
		}
		if (id->n == SC_NELEM(id->parts))
			goto bad;
		id->parts[id->n++] = sc_xstrdup((const char *)part.data);
		if (*s == '\0')
			break;
		if (*s != '.')
			goto bad;
		s++;
	}
	sc_buf_release(&part);
	return 0;
bad:
	sc_buf_release(&part);
	sc_eng_ident_release(id);
	return sc_srv_error(err, "PARSE_SYNTAX_ERROR", "42601",
	    "Syntax error in the identifier '%.200s'.", s);
}

/* ------------------------------------------------------------------ */
/* Columns and struct fields                                           */
/* ------------------------------------------------------------------ */

bool
sc_eng_case_sensitive(void)
{
	const struct sc_erun *r = sc_eng_current_run();

	return r != NULL && r->mode.case_sensitive;
}

int
sc_eng_name_cmp(const char *a, const char *b)
{
	return sc_eng_case_sensitive() ? strcmp(a, b) : strcasecmp(a, b);
}

/*
 * With spark.sql.caseSensitive=true, name must be a column of in in
 * exactly that case: a column only another case matches is Spark's
 * UNRESOLVED_COLUMN.WITH_SUGGESTION (shown is the name as written), and
 * columns that differ only by case are refused where SQLite, whose
 * names are case-insensitive, would have to tell them apart.
 */
static int
case_check(const struct sc_eplan *in, const char *shown, const char *name,
    struct sc_error *err)
{
	const struct sc_ecol *e = NULL, *o = NULL;
	struct sc_buf sug;
	size_t i;
	int rc;

	if (!sc_eng_case_sensitive() || in == NULL || in->cols == NULL)
		return 0;
	sc_buf_init(&sug, SC_BUF_UNLIMITED);
	for (i = 0; i < in->ncols; i++) {
		if (strcmp(in->cols[i].name, name) == 0) {
			e = &in->cols[i];
		} else if (strcasecmp(in->cols[i].name, name) == 0) {
			o = &in->cols[i];
			if (sug.len > 0)
				sc_buf_addstr(&sug, ", ", NULL);
			sc_buf_addch(&sug, '`', NULL);
			sc_buf_addstr(&sug, o->name, NULL);
			sc_buf_addch(&sug, '`', NULL);
		}
	}
	rc = 0;
	if (e == NULL && o != NULL)
		rc = sc_srv_error(err, "UNRESOLVED_COLUMN.WITH_SUGGESTION",
		    "42703",
		    "A column, variable, or function parameter with name %s "
		    "cannot be resolved. Did you mean one of the following? "
		    "[%s].",
		    shown, (const char *)sug.data);
	else if (e != NULL && o != NULL &&
	    (e->sqlname == NULL || o->sqlname == NULL))
		rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "Columns `%s` and `%s`, which differ only by case, with "
		    "spark.sql.caseSensitive=true are not supported by "
		    "sc-serve: its SQL engine cannot tell them apart.",
		    e->name, o->name);
	sc_buf_release(&sug);
	return rc;
}

/* The attribute id as Spark shows it in errors: `a`.`b`. */
static void
shown_name(const struct sc_eident *id, struct sc_buf *b)
{
	size_t i;

	for (i = 0; i < id->n; i++) {
		if (i > 0)
			sc_buf_addch(b, '.', NULL);
		sc_buf_addch(b, '`', NULL);
		sc_buf_addstr(b, id->parts[i], NULL);
		sc_buf_addch(b, '`', NULL);
	}
}

/* case_check() for the column the attribute id names in in. */
static int
attribute_case_check(const struct sc_eplan *in, const struct sc_eident *id,
    struct sc_error *err)
{
	struct sc_buf shown;
	const char *col = id->parts[0];
	int rc;

	if (!sc_eng_case_sensitive() || in == NULL || in->cols == NULL ||
	    id->n == 0)
		return 0;
	sc_buf_init(&shown, SC_BUF_UNLIMITED);
	shown_name(id, &shown);
	if (id->n > 1 && in->alias != NULL &&
	    strcmp(in->alias, id->parts[0]) == 0)
		col = id->parts[1];
	else if (id->n > 1 && in->alias != NULL &&
	    strcasecmp(in->alias, id->parts[0]) == 0 &&
	    sc_eng_col_named(in, id->parts[0], NULL) == NULL) {
		/* Only the qualifier's case differs. */
		rc = sc_srv_error(err, "UNRESOLVED_COLUMN.WITH_SUGGESTION",
		    "42703",
		    "A column, variable, or function parameter with name %s "
		    "cannot be resolved. Did you mean one of the following? "
		    "[`%s`.`%s`].",
		    (const char *)shown.data, in->alias, id->parts[1]);
		sc_buf_release(&shown);
		return rc;
	}
	rc = case_check(in, (const char *)shown.data, col, err);
	sc_buf_release(&shown);
	return rc;
}

/*
 * Field name of struct type t (in any case, as Spark's default
 * resolver, or exactly with spark.sql.caseSensitive=true): its index,
 * or -1 (err set) when it has none.
 */
static int
struct_field(const struct sc_etype *t, const char *name, size_t *idx,
    struct sc_error *err)
{
	const struct sc_enest *n = t->nest;
	struct sc_buf tn;
	size_t i;
	int rc;

	if (t->t == SC_ARROW_STRUCT && n != NULL)
		for (i = 0; i < n->n; i++)
			if (sc_eng_name_cmp(n->names[i], name) == 0) {
				*idx = i;
				return 0;
			}
	sc_buf_init(&tn, SC_BUF_UNLIMITED);
	sc_eng_type_text(t, SC_VALUE_SQL, &tn);
	if (t->t == SC_ARROW_STRUCT)
		rc = sc_srv_error(err, "FIELD_NOT_FOUND", "42704",
		    "No such struct field `%s` in %s.", name,
		    (const char *)tn.data);
	else
		rc = sc_srv_error(err, "INVALID_EXTRACT_BASE_FIELD_TYPE",
		    "42000",
		    "Can't extract a value from \"%s\". Need a complex type "
		    "[STRUCT, ARRAY, MAP] but got \"%s\".",
		    name, (const char *)tn.data);
	sc_buf_release(&tn);
	return rc;
}

/*
 * Field i of the struct value whose SQL is expr (of ei's type): expr
 * and ei become the field's.  expr is the caller's own buffer.
 */
static void
get_field(struct sc_buf *expr, struct sc_einfo *ei, size_t i)
{
	const struct sc_enest *n = ei->type.nest;
	struct sc_buf x;

	sc_buf_init(&x, SC_BUF_UNLIMITED);
	sc_buf_addf(&x, NULL, "json_extract(%s, '$[%zu]')",
	    (const char *)expr->data, i);
	sc_buf_reset(expr);
	sc_eng_nest_decode(&n->types[i], (const char *)x.data, expr);
	sc_buf_release(&x);
	ei->nullable = ei->nullable != 0 || n->nullable[i];
	ei->type = n->types[i];
}

/*
 * The column of in that a one-part name means: with a plan id, one of
 * the columns that plan node gave (a join's side), else the only one of
 * that name.  NULL (err set) when two match; NULL (err untouched) when
 * none does.
 */
static const struct sc_ecol *
resolve_col(const struct sc_eplan *in, const char *name,
    const Spark__Connect__Expression__UnresolvedAttribute *a, bool *ambiguous,
    struct sc_error *err)
{
	const struct sc_ecol *c = NULL, *byid = NULL;
	size_t i, n = 0, nid = 0;
	bool pid = a->_plan_id_case ==
	    SPARK__CONNECT__EXPRESSION__UNRESOLVED_ATTRIBUTE___PLAN_ID_PLAN_ID;

	*ambiguous = false;
	if (in == NULL || in->cols == NULL)
		return NULL;
	for (i = 0; i < in->ncols; i++) {
		if (sc_eng_name_cmp(in->cols[i].name, name) != 0)
			continue;
		if (n++ == 0)
			c = &in->cols[i];
		if (pid && sc_eng_col_from(&in->cols[i], a->plan_id) &&
		    nid++ == 0)
			byid = &in->cols[i];
	}
	if (nid == 1)
		return byid;
	if (n > 1) {
		*ambiguous = true;
		sc_srv_error(err, "AMBIGUOUS_REFERENCE", "42704",
		    "Reference `%s` is ambiguous, could be: %zu columns of "
		    "that name.",
		    name, n);
		return NULL;
	}
	return c;
}

int
sc_eng_struct_star(struct sc_ectx *x, const struct sc_eplan *in,
    const char *target, struct sc_buf *sql, struct sc_eplan *out,
    struct sc_error *err)
{
	Spark__Connect__Expression__UnresolvedAttribute a =
	    SPARK__CONNECT__EXPRESSION__UNRESOLVED_ATTRIBUTE__INIT;
	struct sc_einfo ei;
	struct sc_buf s, f;
	const struct sc_enest *n;
	size_t i;
	int rc;

	(void)x;
	if (in == NULL || in->cols == NULL ||
	    (in->alias != NULL && sc_eng_name_cmp(in->alias, target) == 0))
		return 1;
	a.unparsed_identifier = (char *)target;
	sc_buf_init(&s, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&ei);
	rc = sc_eng_attribute(in, &a, &s, &ei, NULL);
	if (rc == -1 || ei.type.t != SC_ARROW_STRUCT) {
		sc_buf_release(&s);
		sc_eng_einfo_release(&ei);
		return 1; /* a qualifier, as before */
	}
	n = ei.type.nest;
	sc_buf_init(&f, SC_BUF_UNLIMITED);
	for (i = 0; i < n->n; i++) {
		struct sc_einfo fe = ei;

		sc_buf_reset(&f);
		sc_buf_add(&f, s.data, s.len, NULL);
		get_field(&f, &fe, i);
		if (i > 0)
			sc_buf_addstr(sql, ", ", NULL);
		sc_buf_add(sql, f.data, f.len, NULL);
		sc_buf_addstr(sql, " AS ", NULL);
		sc_eng_quote_ident(sql, n->names[i]);
		sc_eng_cols_add(&out->cols, &out->ncols, n->names[i], &fe.type,
		    fe.nullable);
	}
	if (n->n == 0) {
		rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "Expanding a struct without fields is not "
		    "supported by sc-serve.");
	} else {
		rc = 0;
	}
	sc_buf_release(&f);
	sc_buf_release(&s);
	sc_eng_einfo_release(&ei);
	return rc;
}

int
sc_eng_attribute(const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedAttribute *a,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	struct sc_eident id;
	const struct sc_ecol *c;
	size_t i, k = 0, first = 0;
	bool amb;

	if (sc_eng_ident_parse(
		a->unparsed_identifier != NULL ? a->unparsed_identifier : "",
		&id, err) == -1)
		return -1;
	if (attribute_case_check(in, &id, err) == -1) {
		sc_eng_ident_release(&id);
		return -1;
	}
	/* A column the plan reads by another name (a side of a join). */
	if (in != NULL && in->cols != NULL) {
		c = NULL;
		if (id.n == 1 ||
		    (id.n == 2 && in->alias != NULL &&
			sc_eng_name_cmp(in->alias, id.parts[0]) == 0))
			c = resolve_col(in, id.parts[id.n - 1], a, &amb, err);
		else
			amb = false;
		if (amb) {
			sc_eng_ident_release(&id);
			return -1;
		}
		if (c != NULL && c->sqlname != NULL) {
			sc_eng_col_ref(sql, c);
			sc_buf_addstr(&ei->name, id.parts[id.n - 1], NULL);
			ei->type = c->type;
			ei->nullable = c->nullable;
			sc_eng_ident_release(&id);
			return 0;
		}
	}
	/*
	 * a.b.c: a qualifier and a column, or a column and struct fields
	 * (a struct column wins when the input has no qualifier a).
	 */
	if (id.n > 1 && in != NULL && in->cols != NULL) {
		if (in->alias != NULL &&
		    sc_eng_name_cmp(in->alias, id.parts[0]) == 0)
			first = 1;
		c = resolve_col(in, id.parts[first], a, &amb, NULL);
		if (c != NULL && c->type.t == SC_ARROW_STRUCT &&
		    first + 1 < id.n) {
			struct sc_buf fx;

			sc_buf_init(&fx, SC_BUF_UNLIMITED);
			sc_eng_col_ref(&fx, c);
			ei->type = c->type;
			ei->nullable = c->nullable;
			for (i = first + 1; i < id.n; i++) {
				if (struct_field(&ei->type, id.parts[i], &k,
					err) == -1) {
					sc_buf_release(&fx);
					sc_eng_ident_release(&id);
					return -1;
				}
				get_field(&fx, ei, k);
			}
			sc_buf_add(sql, fx.data, fx.len, NULL);
			sc_buf_release(&fx);
			sc_buf_addstr(&ei->name, id.parts[id.n - 1], NULL);
			sc_eng_ident_release(&id);
			return 0;
		}
	}
	if (id.n > 1 && sc_eng_case_sensitive() &&
	    (in == NULL || in->alias == NULL ||
		strcmp(in->alias, id.parts[0]) != 0)) {
		/* SQLite would find the qualifier in any case. */
		struct sc_buf shown;

		sc_buf_init(&shown, SC_BUF_UNLIMITED);
		shown_name(&id, &shown);
		sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
		    "The qualified name %s, whose qualifier names no input "
		    "in that case, with spark.sql.caseSensitive=true is not "
		    "supported by sc-serve.",
		    (const char *)shown.data);
		sc_buf_release(&shown);
		sc_eng_ident_release(&id);
		return -1;
	}
	for (i = 0; i < id.n; i++) {
		if (i > 0)
			sc_buf_addch(sql, '.', NULL);
		sc_eng_quote_ident(sql, id.parts[i]);
	}
	sc_buf_addstr(&ei->name, id.parts[id.n - 1], NULL);
	c = resolve_col(in, id.parts[id.n - 1], a, &amb, NULL);
	ei->nullable = -1; /* SQLite's table metadata may know */
	if (c != NULL) {
		ei->type = c->type;
		ei->nullable = c->nullable;
	}
	sc_eng_ident_release(&id);
	return 0;
}

/*
 * child[extraction]: a struct's field by name, an array's element by a
 * 0-based index (out of bounds fails, as under ANSI), a map's value by
 * key (NULL when missing).  Named as Spark names them: s.f is "f" when
 * col("s.f") asked for it, child[x] otherwise.
 */
int
sc_eng_extract_value(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedExtractValue *u,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	struct sc_buf cs, ks;
	struct sc_einfo ce, ke;
	const struct sc_enest *n;
	size_t k;
	int rc = -1;

	if (u->child == NULL || u->extraction == NULL)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "An extract value has no child or no extraction.");
	sc_buf_init(&cs, SC_BUF_UNLIMITED);
	sc_buf_init(&ks, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&ce);
	sc_eng_einfo_init(&ke);
	if (sc_eng_expr(x, in, u->child, &cs, &ce, err) == -1 ||
	    sc_eng_expr(x, in, u->extraction, &ks, &ke, err) == -1)
		goto out;
	n = ce.type.nest;
	switch (ce.type.t) {
	case SC_ARROW_STRUCT:
		if (u->extraction->expr_type_case != SC_EXPR_(LITERAL) ||
		    u->extraction->literal->literal_type_case !=
			SC_LIT_(STRING)) {
			rc = sc_srv_error(err, "INVALID_EXTRACT_FIELD_TYPE",
			    "42000",
			    "Field name should be a non-null string literal, "
			    "but it's %s.",
			    (const char *)ke.name.data);
			goto out;
		}
		if (struct_field(&ce.type, u->extraction->literal->string, &k,
			err) == -1)
			goto out;
		ei->type = ce.type;
		ei->nullable = ce.nullable;
		get_field(&cs, ei, k);
		sc_buf_add(sql, cs.data, cs.len, NULL);
		sc_buf_addf(&ei->name, NULL, "%s.%s",
		    (const char *)ce.name.data, n->names[k]);
		rc = 0;
		break;
	case SC_ARROW_LIST:
		if (!sc_eng_is_int_type(ke.type.t)) {
			rc = sc_srv_error(err,
			    "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "42K09",
			    "An array index must be an integer, not %s.",
			    (const char *)ke.name.data);
			goto out;
		}
		sc_eng_array_item(sql, (const char *)cs.data,
		    (const char *)ks.data, &n->types[0], false, sc_eng_ansi(),
		    "INVALID_ARRAY_INDEX",
		    "Use the SQL function `get()` to tolerate accessing "
		    "element at invalid index and return NULL instead.");
		ei->type = n->types[0];
		rc = 0;
		break;
	case SC_ARROW_MAP:
		sc_eng_map_value(sql, (const char *)cs.data,
		    (const char *)ks.data, &n->types[1]);
		ei->type = n->types[1];
		rc = 0;
		break;
	default:
		rc =
		    struct_field(&ce.type, (const char *)ke.name.data, &k, err);
		if (ce.type.t == SC_ETYPE_UNKNOWN)
			rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
			    "0A000",
			    "Extracting a value from `%s`, whose type sc-serve "
			    "cannot tell before it runs, is not supported by "
			    "sc-serve.",
			    (const char *)ce.name.data);
		goto out;
	}
	if (ce.type.t != SC_ARROW_STRUCT) {
		ei->nullable = 1;
		sc_buf_addf(&ei->name, NULL, "%s[%s]",
		    (const char *)ce.name.data, (const char *)ke.name.data);
	}
out:
	sc_buf_release(&cs);
	sc_buf_release(&ks);
	sc_eng_einfo_release(&ce);
	sc_eng_einfo_release(&ke);
	return rc;
}
