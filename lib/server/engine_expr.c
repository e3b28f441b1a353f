/* SPDX-License-Identifier: MIT */

/*
 * engine_expr.c: Spark Connect expressions into SQLite SQL, each with
 * the column name Spark would give it and, where known, its type.
 * Functions are mapped by a table (funcs[] below); anything outside it
 * is an error naming it.  Also identifiers (a.`b.c`) and SQL parameter
 * values.
 */

#include "server/engine_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "server/srverror.h"
#include "core/banned.h"

/* Short names for generated constants core/protocol.h does not have. */
#define LITDEC_(x) SPARK__CONNECT__EXPRESSION__LITERAL__DECIMAL___##x
#define EVAL_(x) SPARK__CONNECT__EXPRESSION__CAST__EVAL_MODE__EVAL_MODE_##x

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
}

static void
set_type(struct sc_einfo *ei, int t)
{
	memset(&ei->type, 0, sizeof(ei->type));
	ei->type.t = t;
}

/*
 * Field name of struct type t (case-insensitive, as Spark's default
 * resolver): its index, or -1 (err set) when it has none.
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
			if (strcasecmp(n->names[i], name) == 0) {
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
		if (strcasecmp(in->cols[i].name, name) != 0)
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

static int attribute(const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedAttribute *a,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err);

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
	    (in->alias != NULL && strcasecmp(in->alias, target) == 0))
		return 1;
	a.unparsed_identifier = (char *)target;
	sc_buf_init(&s, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&ei);
	rc = attribute(in, &a, &s, &ei, NULL);
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

static int
attribute(const struct sc_eplan *in,
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
	/* A column the plan reads by another name (a side of a join). */
	if (in != NULL && in->cols != NULL) {
		c = NULL;
		if (id.n == 1 ||
		    (id.n == 2 && in->alias != NULL &&
			strcasecmp(in->alias, id.parts[0]) == 0))
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
		    strcasecmp(in->alias, id.parts[0]) == 0)
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

static int literal(const Spark__Connect__Expression__Literal *l,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err);

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
			rc = literal(k > 0 && v2 != NULL ? v2[i] : v[i], &x, &e,
			    err);
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
static int
literal(const Spark__Connect__Expression__Literal *l, struct sc_buf *sql,
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
		set_type(ei, SC_ARROW_NULL);
		if (l->null != NULL &&
		    sc_eng_type_from_proto(l->null, &ei->type, NULL) == -1)
			set_type(ei, SC_ARROW_NULL);
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
		set_type(ei, SC_ARROW_BINARY);
		return 0;
	case SC_LIT_(BOOLEAN):
		sc_buf_addstr(sql, l->boolean ? "1" : "0", NULL);
		sc_buf_addstr(&ei->name, l->boolean ? "true" : "false", NULL);
		set_type(ei, SC_ARROW_BOOL);
		return 0;
	case SC_LIT_(BYTE):
	case SC_LIT_(SHORT):
	case SC_LIT_(INTEGER):
		int_literal(sql, l->integer);
		sc_buf_addf(&ei->name, NULL, "%d", (int)l->integer);
		set_type(ei,
		    l->literal_type_case == SC_LIT_(BYTE) ? SC_ARROW_INT8
			: l->literal_type_case == SC_LIT_(SHORT)
			? SC_ARROW_INT16
			: SC_ARROW_INT32);
		return 0;
	case SC_LIT_(LONG):
		int_literal(sql, l->long_);
		sc_buf_addf(&ei->name, NULL, "%" PRId64, l->long_);
		set_type(ei, SC_ARROW_INT64);
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
		set_type(ei, f ? SC_ARROW_FLOAT : SC_ARROW_DOUBLE);
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
		set_type(ei, SC_ARROW_DECIMAL128);
		ei->type.prec = prec;
		ei->type.scale = scale;
		return 0;
	}
	case SC_LIT_(STRING):
		sc_eng_quote_string(sql, l->string, strlen(l->string));
		sc_buf_addstr(&ei->name, l->string, NULL);
		set_type(ei, SC_ARROW_UTF8);
		return 0;
	case SC_LIT_(DATE):
		sc_value_fmt_date(l->date, b);
		sc_eng_quote_string(sql, b, strlen(b));
		sc_buf_addf(&ei->name, NULL, "DATE '%s'", b);
		set_type(ei, SC_ARROW_DATE32);
		return 0;
	case SC_LIT_(TIMESTAMP):
	case SC_LIT_(TIMESTAMP_NTZ): {
		bool ntz = l->literal_type_case == SC_LIT_(TIMESTAMP_NTZ);

		sc_value_fmt_timestamp(ntz ? l->timestamp_ntz : l->timestamp,
		    b);
		sc_eng_quote_string(sql, b, strlen(b));
		sc_buf_addf(&ei->name, NULL, "%s '%s'",
		    ntz ? "TIMESTAMP_NTZ" : "TIMESTAMP", b);
		set_type(ei, SC_ARROW_TIMESTAMP_US);
		ei->type.ntz = ntz;
		return 0;
	}
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

/* --- functions ----------------------------------------------------- */

enum fkind {
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
	F_TMPL /* sql is a template: $1.. the arguments, $* all of them */
};

/* Result type: an Arrow type, unknown, or that of the first argument. */
#define R_UNK SC_ETYPE_UNKNOWN
#define R_ARG (-2)

struct fdef {
	const char *name; /* Spark's name, lower case */
	enum fkind k;
	const char *sql; /* operator or SQLite function */
	int min, max; /* argument count; max -1: any */
	int rtype;
};

/*
 * The functions and operators sc-serve maps to SQLite.  Spark semantics
 * kept: "/" is floating division, floor/ceil give bigint, greatest/least
 * skip NULLs, LIKE is case-sensitive, substring position 0 means 1.
 */
static const struct fdef funcs[] = {
	{ "==", F_CMP, "=", 2, 2, SC_ARROW_BOOL },
	{ "=", F_CMP, "=", 2, 2, SC_ARROW_BOOL },
	{ "!=", F_NE, "<>", 2, 2, SC_ARROW_BOOL },
	{ "<>", F_NE, "<>", 2, 2, SC_ARROW_BOOL },
	{ "<", F_CMP, "<", 2, 2, SC_ARROW_BOOL },
	{ "<=", F_CMP, "<=", 2, 2, SC_ARROW_BOOL },
	{ ">", F_CMP, ">", 2, 2, SC_ARROW_BOOL },
	{ ">=", F_CMP, ">=", 2, 2, SC_ARROW_BOOL },
	{ "<=>", F_NULLSAFE, "IS", 2, 2, SC_ARROW_BOOL },
	{ "+", F_ARITH, "+", 2, 2, R_UNK },
	{ "-", F_ARITH, "-", 1, 2, R_UNK },
	{ "*", F_ARITH, "*", 2, 2, R_UNK },
	{ "%", F_ARITH, "%", 2, 2, R_UNK },
	{ "/", F_DIV, "/", 2, 2, SC_ARROW_DOUBLE },
	{ "negative", F_NEG, "-", 1, 1, R_ARG },
	{ "and", F_LOGIC, "AND", 2, 2, SC_ARROW_BOOL },
	{ "or", F_LOGIC, "OR", 2, 2, SC_ARROW_BOOL },
	{ "not", F_NOT, "NOT", 1, 1, SC_ARROW_BOOL },
	{ "!", F_NOT, "NOT", 1, 1, SC_ARROW_BOOL },
	{ "isnull", F_ISNULL, NULL, 1, 1, SC_ARROW_BOOL },
	{ "isnotnull", F_ISNOTNULL, NULL, 1, 1, SC_ARROW_BOOL },
	{ "in", F_IN, NULL, 1, -1, SC_ARROW_BOOL },
	{ "like", F_LIKE, NULL, 2, 2, SC_ARROW_BOOL },
	{ "startswith", F_STARTS, NULL, 2, 2, SC_ARROW_BOOL },
	{ "endswith", F_ENDS, NULL, 2, 2, SC_ARROW_BOOL },
	{ "contains", F_CONTAINS, NULL, 2, 2, SC_ARROW_BOOL },
	{ "abs", F_SIMPLE, "abs", 1, 1, R_ARG },
	{ "upper", F_SIMPLE, "upper", 1, 1, SC_ARROW_UTF8 },
	{ "ucase", F_SIMPLE, "upper", 1, 1, SC_ARROW_UTF8 },
	{ "lower", F_SIMPLE, "lower", 1, 1, SC_ARROW_UTF8 },
	{ "lcase", F_SIMPLE, "lower", 1, 1, SC_ARROW_UTF8 },
	{ "length", F_SIMPLE, "length", 1, 1, SC_ARROW_INT32 },
	{ "char_length", F_SIMPLE, "length", 1, 1, SC_ARROW_INT32 },
	{ "character_length", F_SIMPLE, "length", 1, 1, SC_ARROW_INT32 },
	{ "trim", F_SIMPLE, "trim", 1, 2, SC_ARROW_UTF8 },
	{ "ltrim", F_SIMPLE, "ltrim", 1, 2, SC_ARROW_UTF8 },
	{ "rtrim", F_SIMPLE, "rtrim", 1, 2, SC_ARROW_UTF8 },
	{ "instr", F_SIMPLE, "instr", 2, 2, SC_ARROW_INT32 },
	{ "replace", F_REPLACE, "replace", 2, 3, SC_ARROW_UTF8 },
	{ "sqrt", F_MATH, "SQRT", 1, 1, SC_ARROW_DOUBLE },
	{ "exp", F_SIMPLE, "exp", 1, 1, SC_ARROW_DOUBLE },
	{ "ln", F_SIMPLE, "ln", 1, 1, SC_ARROW_DOUBLE },
	{ "log10", F_SIMPLE, "log10", 1, 1, SC_ARROW_DOUBLE },
	{ "log2", F_SIMPLE, "log2", 1, 1, SC_ARROW_DOUBLE },
	{ "log", F_LOG, "log", 1, 2, SC_ARROW_DOUBLE },
	{ "sin", F_SIMPLE, "sin", 1, 1, SC_ARROW_DOUBLE },
	{ "cos", F_SIMPLE, "cos", 1, 1, SC_ARROW_DOUBLE },
	{ "tan", F_SIMPLE, "tan", 1, 1, SC_ARROW_DOUBLE },
	{ "asin", F_MATH, "ASIN", 1, 1, SC_ARROW_DOUBLE },
	{ "acos", F_MATH, "ACOS", 1, 1, SC_ARROW_DOUBLE },
	{ "atan", F_SIMPLE, "atan", 1, 1, SC_ARROW_DOUBLE },
	{ "atan2", F_SIMPLE, "atan2", 2, 2, SC_ARROW_DOUBLE },
	{ "degrees", F_SIMPLE, "degrees", 1, 1, SC_ARROW_DOUBLE },
	{ "radians", F_SIMPLE, "radians", 1, 1, SC_ARROW_DOUBLE },
	{ "pi", F_SIMPLE, "pi", 0, 0, SC_ARROW_DOUBLE },
	{ "sign", F_SIMPLE, "sign", 1, 1, SC_ARROW_DOUBLE },
	{ "signum", F_SIMPLE, "sign", 1, 1, SC_ARROW_DOUBLE },
	{ "pow", F_MATH, "POWER", 2, 2, SC_ARROW_DOUBLE },
	{ "power", F_MATH, "POWER", 2, 2, SC_ARROW_DOUBLE },
	{ "floor", F_FLOORCEIL, "floor", 1, 1, SC_ARROW_INT64 },
	{ "ceil", F_FLOORCEIL, "ceil", 1, 1, SC_ARROW_INT64 },
	{ "ceiling", F_FLOORCEIL, "ceil", 1, 1, SC_ARROW_INT64 },
	{ "round", F_ROUND, "sc_round", 1, 2, R_UNK },
	{ "bround", F_ROUND, "sc_bround", 1, 2, R_UNK },
	{ "div", F_IDIV, NULL, 2, 2, SC_ARROW_INT64 },
	{ "coalesce", F_COALESCE, "coalesce", 1, -1, R_UNK },
	{ "nvl", F_COALESCE, "coalesce", 2, 2, R_UNK },
	{ "ifnull", F_COALESCE, "coalesce", 2, 2, R_UNK },
	{ "nullif", F_SIMPLE, "nullif", 2, 2, R_ARG },
	{ "nvl2", F_NVL2, NULL, 3, 3, R_UNK },
	{ "greatest", F_EXTREME, "greatest", 2, -1, R_UNK },
	{ "least", F_EXTREME, "least", 2, -1, R_UNK },
	{ "if", F_IF, NULL, 3, 3, R_UNK },
	{ "iff", F_IF, NULL, 3, 3, R_UNK },
	{ "when", F_WHEN, NULL, 2, -1, R_UNK },
	{ "concat", F_CONCAT, NULL, 0, -1, SC_ARROW_UTF8 },
	{ "substring", F_SUBSTR, NULL, 2, 3, R_ARG },
	{ "substr", F_SUBSTR, NULL, 2, 3, R_ARG },
	{ "count", F_COUNT, "count", 1, -1, SC_ARROW_INT64 },
	{ "sum", F_AGG, "sum", 1, 1, R_UNK },
	{ "avg", F_AGG, "avg", 1, 1, SC_ARROW_DOUBLE },
	{ "mean", F_AGG, "avg", 1, 1, SC_ARROW_DOUBLE },
	{ "min", F_AGG, "min", 1, 1, R_ARG },
	{ "max", F_AGG, "max", 1, 1, R_ARG },
	{ "current_date", F_NOW, "date('now')", 0, 0, SC_ARROW_DATE32 },
	{ "current_timestamp", F_NOW, "strftime('%Y-%m-%d %H:%M:%f', 'now')", 0,
	    0, SC_ARROW_TIMESTAMP_US },
	{ "now", F_NOW, "strftime('%Y-%m-%d %H:%M:%f', 'now')", 0, 0,
	    SC_ARROW_TIMESTAMP_US },
	{ "year", F_DATEPART, "%Y", 1, 1, SC_ARROW_INT32 },
	{ "month", F_DATEPART, "%m", 1, 1, SC_ARROW_INT32 },
	{ "day", F_DATEPART, "%d", 1, 1, SC_ARROW_INT32 },
	{ "dayofmonth", F_DATEPART, "%d", 1, 1, SC_ARROW_INT32 },
	{ "hour", F_DATEPART, "%H", 1, 1, SC_ARROW_INT32 },
	{ "minute", F_DATEPART, "%M", 1, 1, SC_ARROW_INT32 },
	{ "second", F_DATEPART, "%S", 1, 1, SC_ARROW_INT32 },
	{ "to_date", F_TOTYPE, "date", 1, 1, SC_ARROW_DATE32 },
	{ "to_timestamp", F_TOTYPE, "timestamp", 1, 1, SC_ARROW_TIMESTAMP_US },
	{ "to_date", F_TMPL, "sc_parse_dt($1, $2, 0)", 2, 2, SC_ARROW_DATE32 },
	{ "to_timestamp", F_TMPL, "sc_parse_dt($1, $2, 1)", 2, 2,
	    SC_ARROW_TIMESTAMP_US },
	{ "date_format", F_TMPL, "sc_date_format($1, $2)", 2, 2,
	    SC_ARROW_UTF8 },
	/* struct, array and map */
	{ "struct", F_NESTED, "struct", 0, -1, R_UNK },
	{ "named_struct", F_NESTED, "named_struct", 0, -1, R_UNK },
	{ "array", F_NESTED, "array", 0, -1, R_UNK },
	{ "map", F_NESTED, "map", 0, -1, R_UNK },
	{ "size", F_NESTED, "size", 1, 1, SC_ARROW_INT32 },
	{ "cardinality", F_NESTED, "size", 1, 1, SC_ARROW_INT32 },
	{ "array_size", F_NESTED, "array_size", 1, 1, SC_ARROW_INT32 },
	{ "element_at", F_NESTED, "element_at", 2, 2, R_UNK },
	{ "try_element_at", F_NESTED, "try_element_at", 2, 2, R_UNK },
	{ "get", F_NESTED, "get", 2, 2, R_UNK },
	{ "array_contains", F_NESTED, "array_contains", 2, 2, SC_ARROW_BOOL },
	{ "map_keys", F_NESTED, "map_keys", 1, 1, R_UNK },
	{ "map_values", F_NESTED, "map_values", 1, 1, R_UNK },
	{ "array_distinct", F_NESTED, "array_distinct", 1, 1, R_ARG },
	{ "array_union", F_NESTED, "array_union", 2, 2, R_ARG },
	{ "array_intersect", F_NESTED, "array_intersect", 2, 2, R_ARG },
	{ "array_except", F_NESTED, "array_except", 2, 2, R_ARG },
	{ "sort_array", F_NESTED, "sort_array", 1, 2, R_ARG },
	{ "array_sort", F_NESTED, "array_sort", 1, 1, R_ARG },
	{ "array_remove", F_NESTED, "array_remove", 2, 2, R_ARG },
	{ "slice", F_NESTED, "slice", 3, 3, R_ARG },
	{ "array_max", F_NESTED, "array_max", 1, 1, R_UNK },
	{ "array_min", F_NESTED, "array_min", 1, 1, R_UNK },
	{ "array_position", F_NESTED, "array_position", 2, 2, SC_ARROW_INT64 },
	{ "array_join", F_NESTED, "array_join", 2, 3, SC_ARROW_UTF8 },
	{ "flatten", F_NESTED, "flatten", 1, 1, R_UNK },
	{ "sequence", F_NESTED, "sequence", 2, 3, R_UNK },
	{ "array_repeat", F_NESTED, "array_repeat", 2, 2, R_UNK },
	{ "map_contains_key", F_NESTED, "map_contains_key", 2, 2,
	    SC_ARROW_BOOL },
	{ "collect_list", F_NESTED, "collect_list", 1, 1, R_UNK },
	{ "array_agg", F_NESTED, "collect_list", 1, 1, R_UNK },
	{ "collect_set", F_NESTED, "collect_set", 1, 1, R_UNK },
	{ "reverse", F_NESTED, "reverse", 1, 1, R_ARG },
	{ "typeof", F_NESTED, "typeof", 1, 1, SC_ARROW_UTF8 },
	{ "grouping", F_GROUPING, "grouping", 1, 1, SC_ARROW_INT8 },
	{ "grouping_id", F_GROUPING, "grouping_id", 0, -1, SC_ARROW_INT64 },
	/* Templates, one entry per argument count where defaults differ. */
	{ "lpad", F_TMPL, "sc_pad($1, $2, ' ', 1)", 2, 2, SC_ARROW_UTF8 },
	{ "lpad", F_TMPL, "sc_pad($1, $2, $3, 1)", 3, 3, SC_ARROW_UTF8 },
	{ "rpad", F_TMPL, "sc_pad($1, $2, ' ', 0)", 2, 2, SC_ARROW_UTF8 },
	{ "rpad", F_TMPL, "sc_pad($1, $2, $3, 0)", 3, 3, SC_ARROW_UTF8 },
	{ "initcap", F_TMPL, "sc_initcap($1)", 1, 1, SC_ARROW_UTF8 },
	{ "concat_ws", F_TMPL, "sc_concat_ws($*)", 1, -1, SC_ARROW_UTF8 },
	{ "left", F_TMPL,
	    "CASE WHEN $2 <= 0 THEN '' ELSE substr($1, 1, $2) END", 2, 2,
	    SC_ARROW_UTF8 },
	{ "right", F_TMPL,
	    "CASE WHEN $2 <= 0 THEN '' ELSE substr($1, -($2)) END", 2, 2,
	    SC_ARROW_UTF8 },
	{ "ascii", F_TMPL,
	    "CASE WHEN $1 IS NULL THEN NULL ELSE coalesce(unicode($1), 0) END",
	    1, 1, SC_ARROW_INT32 },
	{ "repeat", F_TMPL,
	    "CASE WHEN $2 <= 0 THEN '' ELSE replace(printf('%.*c', $2, 'x'), "
	    "'x', $1) END",
	    2, 2, SC_ARROW_UTF8 },
	{ "locate", F_TMPL, "instr($2, $1)", 2, 2, SC_ARROW_INT32 },
	{ "position", F_TMPL, "instr($2, $1)", 2, 2, SC_ARROW_INT32 },
	{ "crc32", F_TMPL, "sc_crc32($1)", 1, 1, SC_ARROW_INT64 },
	{ "md5", F_TMPL, "sc_digest('md5', $1)", 1, 1, SC_ARROW_UTF8 },
	{ "sha1", F_TMPL, "sc_digest('sha1', $1)", 1, 1, SC_ARROW_UTF8 },
	{ "sha", F_TMPL, "sc_digest('sha1', $1)", 1, 1, SC_ARROW_UTF8 },
	{ "sha2", F_TMPL, "sc_sha2($1, $2)", 2, 2, SC_ARROW_UTF8 },
	{ "base64", F_TMPL, "sc_base64($1)", 1, 1, SC_ARROW_UTF8 },
	{ "unbase64", F_TMPL, "sc_unbase64($1)", 1, 1, SC_ARROW_BINARY },
	{ "hash", F_HASH, NULL, 1, -1, SC_ARROW_INT32 },
	{ "rand", F_RAND, NULL, 0, 1, SC_ARROW_DOUBLE },
	{ "random", F_RAND, NULL, 0, 1, SC_ARROW_DOUBLE },
	{ "randn", F_RAND, NULL, 0, 1, SC_ARROW_DOUBLE },
	{ "isnan", F_TMPL, "sc_isnan($1)", 1, 1, SC_ARROW_BOOL },
	{ "width_bucket", F_TMPL, "sc_width_bucket($1, $2, $3, $4)", 4, 4,
	    SC_ARROW_INT64 },
	{ "nanvl", F_TMPL, "(CASE WHEN sc_isnan($1) THEN $2 ELSE $1 END)", 2, 2,
	    SC_ARROW_DOUBLE },
	{ "translate", F_TMPL, "sc_translate($1, $2, $3)", 3, 3,
	    SC_ARROW_UTF8 },
	{ "substring_index", F_TMPL, "sc_substring_index($1, $2, $3)", 3, 3,
	    SC_ARROW_UTF8 },
	{ "rlike", F_TMPL, "sc_rlike($1, $2)", 2, 2, SC_ARROW_BOOL },
	{ "regexp", F_TMPL, "sc_rlike($1, $2)", 2, 2, SC_ARROW_BOOL },
	{ "regexp_like", F_TMPL, "sc_rlike($1, $2)", 2, 2, SC_ARROW_BOOL },
	{ "regexp_replace", F_TMPL, "sc_regexp_replace($1, $2, $3)", 3, 3,
	    SC_ARROW_UTF8 },
	{ "regexp_extract", F_TMPL, "sc_regexp_extract($1, $2, 1)", 2, 2,
	    SC_ARROW_UTF8 },
	{ "regexp_extract", F_TMPL, "sc_regexp_extract($1, $2, $3)", 3, 3,
	    SC_ARROW_UTF8 },
	{ "split", F_NESTED, "split", 2, 3, R_UNK },
	{ "to_json", F_NESTED, "to_json", 1, 2, SC_ARROW_UTF8 },
	{ "from_json", F_NESTED, "from_json", 2, 3, R_UNK },
	{ "get_json_object", F_TMPL,
	    "CASE WHEN NOT json_valid($1) THEN NULL ELSE CASE json_type($1, $2) "
	    "WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE "
	    "json_extract($1, $2) END END",
	    2, 2, SC_ARROW_UTF8 },
	{ "octet_length", F_TMPL, "length(CAST($1 AS BLOB))", 1, 1,
	    SC_ARROW_INT32 },
	{ "bit_length", F_TMPL, "length(CAST($1 AS BLOB)) * 8", 1, 1,
	    SC_ARROW_INT32 },
	{ "pmod", F_TMPL,
	    "CASE WHEN $2 = 0 THEN sc_raise('[DIVIDE_BY_ZERO] Division by zero. "
	    "Use `try_divide` to tolerate divisor being 0 and return NULL "
	    "instead. SQLSTATE: 22012') ELSE mod(mod($1, $2) + $2, $2) END",
	    2, 2, R_UNK },
	{ "positive", F_TMPL, "(+$1)", 1, 1, R_ARG },
	{ "date_add", F_TMPL,
	    "CASE WHEN $2 IS NULL THEN NULL ELSE date($1, printf('%+d days', "
	    "$2)) END",
	    2, 2, SC_ARROW_DATE32 },
	{ "date_sub", F_TMPL,
	    "CASE WHEN $2 IS NULL THEN NULL ELSE date($1, printf('%+d days', "
	    "-($2))) END",
	    2, 2, SC_ARROW_DATE32 },
	{ "datediff", F_TMPL,
	    "CAST(julianday(date($1)) - julianday(date($2)) AS INTEGER)", 2, 2,
	    SC_ARROW_INT32 },
	{ "trunc", F_TMPL,
	    "CASE WHEN lower($2) IN ('year', 'yyyy', 'yy') THEN date($1, "
	    "'start of year') WHEN lower($2) = 'quarter' THEN date($1, 'start "
	    "of month', printf('-%d months', (CAST(strftime('%m', $1) AS "
	    "INTEGER) - 1) % 3)) WHEN lower($2) IN ('month', 'mon', 'mm') "
	    "THEN date($1, 'start of month') WHEN lower($2) = 'week' THEN "
	    "date($1, '-6 days', 'weekday 1') END",
	    2, 2, SC_ARROW_DATE32 },
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
	    2, 2, SC_ARROW_TIMESTAMP_US },
	{ "add_months", F_TMPL, "sc_add_months($1, $2)", 2, 2,
	    SC_ARROW_DATE32 },
	{ "format_number", F_TMPL, "sc_format_number($1, $2)", 2, 2,
	    SC_ARROW_UTF8 },
	{ "make_timestamp", F_TMPL, "sc_make_timestamp($1, $2, $3, $4, $5, $6)",
	    6, 6, SC_ARROW_TIMESTAMP_US },
	{ "make_timestamp", F_TMPL,
	    "sc_raise('[UNSUPPORTED_FEATURE.EXPRESSION] make_timestamp() with "
	    "a time zone is not supported by sc-serve. SQLSTATE: 0A000')",
	    7, 7, SC_ARROW_TIMESTAMP_US },
	{ "make_date", F_TMPL, "sc_make_date($1, $2, $3)", 3, 3,
	    SC_ARROW_DATE32 },
	{ "months_between", F_TMPL, "sc_months_between($1, $2)", 2, 2,
	    SC_ARROW_DOUBLE },
	{ "months_between", F_TMPL, "sc_months_between($1, $2, $3)", 3, 3,
	    SC_ARROW_DOUBLE },
	{ "last_day", F_TMPL,
	    "date($1, 'start of month', '+1 month', '-1 day')", 1, 1,
	    SC_ARROW_DATE32 },
	{ "dayofweek", F_TMPL, "CAST(strftime('%w', $1) AS INTEGER) + 1", 1, 1,
	    SC_ARROW_INT32 },
	{ "dayofyear", F_TMPL, "CAST(strftime('%j', $1) AS INTEGER)", 1, 1,
	    SC_ARROW_INT32 },
	{ "weekofyear", F_TMPL,
	    "(CAST(strftime('%j', date($1, '-3 days', 'weekday 4')) AS INTEGER) "
	    "- 1) / 7 + 1",
	    1, 1, SC_ARROW_INT32 },
	{ "quarter", F_TMPL, "(CAST(strftime('%m', $1) AS INTEGER) + 2) / 3", 1,
	    1, SC_ARROW_INT32 },
	{ "unix_timestamp", F_TMPL, "CAST(strftime('%s', $1) AS INTEGER)", 1, 1,
	    SC_ARROW_INT64 },
	{ "from_unixtime", F_TMPL,
	    "strftime('%Y-%m-%d %H:%M:%S', $1, 'unixepoch')", 1, 1,
	    SC_ARROW_UTF8 },
	/* Aggregates */
	{ "stddev", F_TMPL, "sc_var($1, 2)", 1, 1, SC_ARROW_DOUBLE },
	{ "std", F_TMPL, "sc_var($1, 2)", 1, 1, SC_ARROW_DOUBLE },
	{ "stddev_samp", F_TMPL, "sc_var($1, 2)", 1, 1, SC_ARROW_DOUBLE },
	{ "stddev_pop", F_TMPL, "sc_var($1, 3)", 1, 1, SC_ARROW_DOUBLE },
	{ "variance", F_TMPL, "sc_var($1, 0)", 1, 1, SC_ARROW_DOUBLE },
	{ "var_samp", F_TMPL, "sc_var($1, 0)", 1, 1, SC_ARROW_DOUBLE },
	{ "var_pop", F_TMPL, "sc_var($1, 1)", 1, 1, SC_ARROW_DOUBLE },
	{ "first", F_TMPL, "sc_pick($1, 0)", 1, 1, R_ARG },
	{ "first", F_TMPL, "sc_pick($1, iif($2, 1, 0))", 2, 2, R_ARG },
	{ "first_value", F_TMPL, "sc_pick($1, 0)", 1, 1, R_ARG },
	{ "any_value", F_TMPL, "sc_pick($1, 0)", 1, 1, R_ARG },
	{ "last", F_TMPL, "sc_pick($1, 2)", 1, 1, R_ARG },
	{ "last", F_TMPL, "sc_pick($1, iif($2, 3, 2))", 2, 2, R_ARG },
	{ "last_value", F_TMPL, "sc_pick($1, 2)", 1, 1, R_ARG },
	{ "max_by", F_TMPL, "sc_pick($1, 4, $2)", 2, 2, R_ARG },
	{ "min_by", F_TMPL, "sc_pick($1, 5, $2)", 2, 2, R_ARG },
	{ "percentile", F_TMPL, "sc_pct($1, $2, 1)", 2, 2, SC_ARROW_DOUBLE },
	{ "median", F_TMPL, "sc_pct($1, 0.5, 1)", 1, 1, SC_ARROW_DOUBLE },
	{ "percentile_approx", F_TMPL, "sc_pct($1, $2, 0)", 2, 3, R_ARG },
	{ "approx_percentile", F_TMPL, "sc_pct($1, $2, 0)", 2, 3, R_ARG },
	{ "covar_samp", F_TMPL, "sc_cov($1, $2, 0)", 2, 2, SC_ARROW_DOUBLE },
	{ "covar_pop", F_TMPL, "sc_cov($1, $2, 1)", 2, 2, SC_ARROW_DOUBLE },
	{ "corr", F_TMPL, "sc_cov($1, $2, 2)", 2, 2, SC_ARROW_DOUBLE },
	{ "count_if", F_TMPL, "count(CASE WHEN $1 THEN 1 END)", 1, 1,
	    SC_ARROW_INT64 },
	{ "bool_and", F_TMPL, "min($1)", 1, 1, SC_ARROW_BOOL },
	{ "every", F_TMPL, "min($1)", 1, 1, SC_ARROW_BOOL },
	{ "bool_or", F_TMPL, "max($1)", 1, 1, SC_ARROW_BOOL },
	{ "some", F_TMPL, "max($1)", 1, 1, SC_ARROW_BOOL },
	{ "any", F_TMPL, "max($1)", 1, 1, SC_ARROW_BOOL },
};

struct farg {
	struct sc_buf sql;
	struct sc_einfo ei;
};

static bool
is_int_type(int t)
{
	return t == SC_ARROW_INT8 || t == SC_ARROW_INT16 ||
	    t == SC_ARROW_INT32 || t == SC_ARROW_INT64;
}

static bool
is_num_type(int t)
{
	return is_int_type(t) || t == SC_ARROW_FLOAT || t == SC_ARROW_DOUBLE;
}

/* The common type of arguments from..n-1 (step apart), or unknown. */
/* Field by field: memcmp would read the padding, never written. */
static bool
same_etype(const struct sc_etype *a, const struct sc_etype *b)
{
	return a->t == b->t && a->prec == b->prec && a->scale == b->scale &&
	    a->ntz == b->ntz;
}

static void
common_type(struct sc_einfo *ei, struct farg *a, size_t from, size_t n,
    size_t step)
{
	size_t i;

	ei->type.t = SC_ETYPE_UNKNOWN;
	for (i = from; i < n; i += step) {
		if (a[i].ei.type.t == SC_ARROW_NULL)
			continue;
		if (a[i].ei.type.t == SC_ETYPE_UNKNOWN) {
			ei->type.t = SC_ETYPE_UNKNOWN;
			return;
		}
		if (ei->type.t == SC_ETYPE_UNKNOWN) {
			ei->type = a[i].ei.type;
		} else if (!same_etype(&ei->type, &a[i].ei.type)) {
			if (is_num_type(ei->type.t) &&
			    is_num_type(a[i].ei.type.t) &&
			    !is_int_type(ei->type.t) !=
				!is_int_type(a[i].ei.type.t)) {
				set_type(ei, SC_ARROW_DOUBLE);
			} else if (is_int_type(ei->type.t) &&
			    is_int_type(a[i].ei.type.t)) {
				if (a[i].ei.type.t > ei->type.t)
					ei->type.t = a[i].ei.type.t;
			} else {
				ei->type.t = SC_ETYPE_UNKNOWN;
				return;
			}
		}
	}
}

/*
 * The decimal(p, s) an exact numeric type widens to in decimal
 * arithmetic (an integer as Spark widens it: int is decimal(10,0)).
 */
static bool
as_decimal(const struct sc_etype *t, int *p, int *s)
{
	*s = 0;
	switch (t->t) {
	case SC_ARROW_DECIMAL128:
		*p = t->prec;
		*s = t->scale;
		return true;
	case SC_ARROW_INT8:
		*p = 3;
		return true;
	case SC_ARROW_INT16:
		*p = 5;
		return true;
	case SC_ARROW_INT32:
		*p = 10;
		return true;
	case SC_ARROW_INT64:
		*p = 20;
		return true;
	default:
		return false;
	}
}

/*
 * Spark's result type of decimal arithmetic (op one of + - * / %), with
 * precision loss allowed (its default): past 38 digits the scale gives
 * way, down to 6.  False unless one side is a decimal and the other a
 * decimal or an integer.
 */
static bool
decimal_result(char op, const struct sc_etype *l, const struct sc_etype *r,
    struct sc_etype *out)
{
	int p1, s1, p2, s2, p, s;

	if (l->t != SC_ARROW_DECIMAL128 && r->t != SC_ARROW_DECIMAL128)
		return false;
	if (!as_decimal(l, &p1, &s1) || !as_decimal(r, &p2, &s2))
		return false;
	switch (op) {
	case '+':
	case '-':
		s = s1 > s2 ? s1 : s2;
		p = (p1 - s1 > p2 - s2 ? p1 - s1 : p2 - s2) + s + 1;
		break;
	case '*':
		p = p1 + p2 + 1;
		s = s1 + s2;
		break;
	case '/':
		s = s1 + p2 + 1 > 6 ? s1 + p2 + 1 : 6;
		p = p1 - s1 + s2 + s;
		break;
	default: /* % */
		s = s1 > s2 ? s1 : s2;
		p = (p1 - s1 < p2 - s2 ? p1 - s1 : p2 - s2) + s;
		break;
	}
	if (p > 38) {
		int intd = p - s, mins = s < 6 ? s : 6;

		s = 38 - intd > mins ? 38 - intd : mins;
		p = 38;
	}
	memset(out, 0, sizeof(*out));
	out->t = SC_ARROW_DECIMAL128;
	out->prec = p;
	out->scale = s;
	return true;
}

/* Bits of an integer type. */
static int
int_bits(int t)
{
	return t == SC_ARROW_INT8 ? 8
	    : t == SC_ARROW_INT16 ? 16
	    : t == SC_ARROW_INT32 ? 32
				  : 64;
}

static void
list(struct sc_buf *b, struct farg *a, size_t from, size_t n, bool names)
{
	size_t i;

	for (i = from; i < n; i++) {
		if (i > from)
			sc_buf_addstr(b, ", ", NULL);
		if (names)
			sc_buf_add(b, a[i].ei.name.data, a[i].ei.name.len,
			    NULL);
		else
			sc_buf_add(b, a[i].sql.data, a[i].sql.len, NULL);
	}
}

#define A(i) ((const char *)a[i].sql.data)
#define N(i) ((const char *)a[i].ei.name.data)

static bool
is_nested(int t)
{
	return t == SC_ARROW_STRUCT || t == SC_ARROW_LIST || t == SC_ARROW_MAP;
}

/* An element of sc_each() (columns _sc_v, _sc_t) in its JSON form. */
#define ELEM_JSON                                                       \
	"CASE WHEN _sc_t IN ('array', 'object') THEN json(_sc_v) WHEN " \
	"_sc_t = 'true' THEN json('true') WHEN _sc_t = 'false' THEN "   \
	"json('false') ELSE _sc_v END"

/* Arguments from..n-1 (step apart) must have known types. */
static int
need_types(const char *fname, struct farg *a, size_t from, size_t n,
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
elem_type(const char *fname, struct farg *a, size_t from, size_t n, size_t step,
    struct sc_etype *t, struct sc_error *err)
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
	common_type(&ci, a, from, n, step);
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
any_nullable(struct farg *a, size_t from, size_t n, size_t step)
{
	size_t i;

	for (i = from; i < n; i += step)
		if (a[i].ei.nullable != 0)
			return true;
	return false;
}

static int
wrong_arg(const char *fname, const char *want, struct farg *a, size_t i,
    struct sc_error *err)
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
encoded(struct sc_buf *b, struct farg *a, size_t i)
{
	sc_eng_nest_encode(&a[i].ei.type, A(i), b);
}

/*
 * The SQL of an array element or map value lookup: from the JSON pairs
 * or elements of x, decoded as type t.  one_based: element_at's index;
 * ansi: an index out of bounds fails (with class cls), else is NULL.
 */
static void
array_item(struct sc_buf *sql, const char *arr, const char *idx,
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

static void
map_value(struct sc_buf *sql, const char *map, const char *key,
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

/* Expand template t: $1..$9 are arguments (parenthesized), $* all. */
static void template(struct sc_buf *sql, const char *t, struct farg *a,
    size_t n)
{
	size_t k;

	for (; *t != '\0'; t++) {
		if (t[0] == '$' && t[1] == '*') {
			list(sql, a, 0, n, false);
			t++;
		} else if (t[0] == '$' && t[1] >= '1' && t[1] <= '9' &&
		    (size_t)(t[1] - '1') < n) {
			k = (size_t)(t[1] - '1');
			sc_buf_addf(sql, NULL, "(%s)", A(k));
			t++;
		} else {
			sc_buf_addch(sql, *t, NULL);
		}
	}
}

/*
 * array_union, array_intersect, array_except: distinct elements in the
 * order they first appear (a's, then b's for a union), a NULL element
 * matching a NULL as in Spark.  Both arrays of one type.
 */
static int
array_set_fn(const char *k, const char *fname, struct farg *a,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	if (a[0].ei.type.t != SC_ARROW_LIST)
		return wrong_arg(fname, "\"ARRAY\"", a, 0, err);
	/* The element types alike (interned: one pointer per type). */
	if (a[1].ei.type.t != SC_ARROW_LIST ||
	    !same_etype(&a[1].ei.type.nest->types[0],
		&a[0].ei.type.nest->types[0]) ||
	    a[1].ei.type.nest->types[0].nest !=
		a[0].ei.type.nest->types[0].nest)
		return wrong_arg(fname, "\"ARRAY\" (of the first's type)", a, 1,
		    err);
	/* A NULL element possible in either: possible in the result. */
	ei->type = a[0].ei.type.nest->nullable[0] ? a[0].ei.type : a[1].ei.type;
	ei->nullable = a[0].ei.nullable || a[1].ei.nullable;
	sc_buf_addstr(sql,
	    "(SELECT CASE WHEN _a IS NULL OR _b IS NULL THEN NULL ELSE "
	    "(SELECT coalesce(json_group_array(" ELEM_JSON "), json_array()) "
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
    const Spark__Connect__Expression__UnresolvedFunction *f, struct farg *a,
    size_t n, struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	const struct sc_enest *nt = a[0].ei.type.nest;
	const char *asc = "ASC NULLS FIRST";

	(void)f;
	if (a[0].ei.type.t != SC_ARROW_LIST)
		return wrong_arg(fname, "\"ARRAY\"", a, 0, err);
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
			return wrong_arg(fname, "\"ARRAY<ARRAY>\"", a, 0, err);
		ei->type = nt->types[0];
		/* A null inner array makes the result null, as Spark's. */
		sc_buf_addf(sql, NULL,
		    "(SELECT CASE WHEN _a IS NULL OR EXISTS (SELECT 1 FROM "
		    "sc_each(_a) WHERE _sc_v IS NULL) THEN NULL ELSE (SELECT "
		    "coalesce(json_group_array(" ELEM_JSON "), json_array()) "
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
			return wrong_arg(fname, "\"BOOLEAN\" (a literal)", a, 1,
			    err);
		if (!o->literal->boolean)
			asc = "DESC NULLS LAST";
	}
	if (strcmp(k, "array_sort") == 0)
		asc = "ASC NULLS LAST";
	sc_buf_addf(sql, NULL,
	    "(SELECT CASE WHEN _a IS NULL THEN NULL ELSE (SELECT "
	    "coalesce(json_group_array(" ELEM_JSON "), json_array()) FROM "
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
static int
nested_fn(const struct fdef *fd, const char *fname,
    const Spark__Connect__Expression__UnresolvedFunction *f, struct farg *a,
    size_t n, struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	const char *k = fd->sql;
	struct sc_etype et, vt;
	const struct sc_enest *nt;
	size_t i;
	int rc = -1;

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
					rc = wrong_arg(fname,
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
			return wrong_arg(fname,
			    k[5] != '\0' ? "\"ARRAY\"" : "\"ARRAY\" or \"MAP\"",
			    a, 0, err);
		sc_buf_addf(sql, NULL, "json_array_length(%s)", A(0));
		ei->nullable = a[0].ei.nullable;
		return 0;
	}
	if (strcmp(k, "element_at") == 0 || strcmp(k, "try_element_at") == 0 ||
	    strcmp(k, "get") == 0) {
		if (a[0].ei.type.t == SC_ARROW_MAP && k[0] != 'g') {
			map_value(sql, A(0), A(1), &nt->types[1]);
			ei->type = nt->types[1];
			return 0;
		}
		if (a[0].ei.type.t != SC_ARROW_LIST)
			return wrong_arg(fname,
			    k[0] == 'g' ? "\"ARRAY\"" : "\"ARRAY\" or \"MAP\"",
			    a, 0, err);
		if (!is_int_type(a[1].ei.type.t))
			return wrong_arg(fname, "\"INT\"", a, 1, err);
		array_item(sql, A(0), A(1), &nt->types[0],
		    k[0] == 'e' || k[0] == 't', k[0] == 'e',
		    "INVALID_ARRAY_INDEX_IN_ELEMENT_AT",
		    "Use `try_element_at` to tolerate accessing element at "
		    "invalid index and return NULL instead.");
		ei->type = nt->types[0];
		return 0;
	}
	if (strcmp(k, "array_contains") == 0) {
		if (a[0].ei.type.t != SC_ARROW_LIST)
			return wrong_arg(fname, "\"ARRAY\"", a, 0, err);
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
			return wrong_arg(fname, "\"MAP\"", a, 0, err);
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
			    "(SELECT coalesce(json_group_array(" ELEM_JSON
			    "), json_array()) FROM (SELECT _sc_v, _sc_t FROM "
			    "sc_each(_a) ORDER BY _sc_k DESC)) END FROM "
			    "(SELECT %s AS _a))",
			    A(0));
			return 0;
		}
		if (a[0].ei.type.t != SC_ARROW_UTF8 &&
		    a[0].ei.type.t != SC_ETYPE_UNKNOWN)
			return wrong_arg(fname, "\"STRING\" or \"ARRAY\"", a, 0,
			    err);
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
				if (!is_int_type(a[i].ei.type.t))
					return wrong_arg(fname, "\"BIGINT\"", a,
					    i, err);
			common_type(ei, a, 0, n, 1);
			et = ei->type;
		} else {
			if (!is_int_type(a[1].ei.type.t))
				return wrong_arg(fname, "\"INT\"", a, 1, err);
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
		list(sql, a, 0, n, false);
		sc_buf_addch(sql, ')', NULL);
		ei->nullable = 1;
		return 0;
	}
	if (strcmp(k, "to_json") == 0) {
		if (!is_nested(a[0].ei.type.t))
			return wrong_arg(fname,
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
			return wrong_arg(fname, "\"STRING\" (a schema literal)",
			    a, 1, err);
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
	/* map_keys, map_values */
	if (a[0].ei.type.t != SC_ARROW_MAP)
		return wrong_arg(fname, "\"MAP\"", a, 0, err);
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

/*
 * Spark functions refused by name (UNSUPPORTED_FEATURE) rather than left
 * unresolved: sc-serve knows them but would not give Spark's answer.
 */
static const struct {
	const char *name;
	const char *why;
} refused[] = {
	{ "approx_count_distinct",
	    "Spark's HyperLogLog++ estimate is not reproduced (an exact count "
	    "would differ from it)" },
	{ "format_string", "Java's Formatter is not reproduced yet" },
	{ "zip_with", "not mapped yet" },
	{ "arrays_zip", "not mapped yet" },
	{ "aggregate", "not mapped yet" },
	{ "reduce", "not mapped yet" },
};

static const char *const hofs[] = { "transform", "filter", "exists", "forall" };

/*
 * transform, filter, exists, forall: the lambda runs once per element
 * (a row of sc_each() of the array); its variables are the element
 * and, for transform and filter, its index.
 */
static int
higher_order(struct sc_ectx *x, const struct sc_eplan *in,
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

	if (f->n_arguments != 2)
		return sc_srv_error(err, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
		    "42605",
		    "The `%s` requires 2 parameters but the actual number is "
		    "%zu.",
		    fn, f->n_arguments);
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
		    "coalesce(json_group_array(" ELEM_JSON "), json_array()) "
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

static int
function(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedFunction *f, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_error *err)
{
	const struct fdef *fd = NULL;
	struct farg *a = NULL;
	char lname[64];
	const char *fname = f->function_name != NULL ? f->function_name : "";
	size_t n = f->n_arguments, i, k;
	int rc = -1;
	bool star = false;

	for (i = 0; fname[i] != '\0' && i + 1 < sizeof(lname); i++)
		lname[i] = (char)tolower((unsigned char)fname[i]);
	lname[i] = '\0';
	for (i = 0; i < SC_NELEM(hofs); i++)
		if (strcmp(hofs[i], lname) == 0)
			return higher_order(x, in, f, hofs[i], sql, ei, err);
	for (i = 0; i < SC_NELEM(refused); i++)
		if (strcmp(refused[i].name, lname) == 0)
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
			    "%s() is not supported by sc-serve: %s.", lname,
			    refused[i].why);
	/* The entry of that name that takes n arguments, else the first. */
	for (i = 0; i < SC_NELEM(funcs); i++)
		if (strcmp(funcs[i].name, lname) == 0) {
			if (fd == NULL)
				fd = &funcs[i];
			if ((int)n >= funcs[i].min &&
			    (funcs[i].max < 0 || (int)n <= funcs[i].max)) {
				fd = &funcs[i];
				break;
			}
		}
	/* Builtins resolve even when the plan marks them user-defined. */
	if (fd == NULL)
		return sc_srv_error(err, "UNRESOLVED_ROUTINE", "42883",
		    "Cannot resolve routine `%s` on search path "
		    "[`system`.`builtin`, `system`.`session`, `main`]; "
		    "see engine_expr.c for the functions sc-serve maps.",
		    fname);
	if ((int)n < fd->min || (fd->max >= 0 && (int)n > fd->max))
		return sc_srv_error(err, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
		    "42605",
		    "The `%s` requires %d%s parameters but the "
		    "actual number is %zu.",
		    fname, fd->min, fd->max == fd->min ? "" : " or more", n);
	if (f->is_distinct && fd->k != F_COUNT && fd->k != F_AGG)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "DISTINCT is only allowed in aggregate functions, not in "
		    "`%s`.",
		    fname);
	a = sc_xcalloc(n + 1, sizeof(*a));
	for (i = 0; i < n; i++) {
		sc_buf_init(&a[i].sql, SC_BUF_UNLIMITED);
		sc_eng_einfo_init(&a[i].ei);
	}
	for (i = 0; i < n; i++) {
		const Spark__Connect__Expression *ae = f->arguments[i];

		if (fd->k == F_COUNT && n == 1 &&
		    ae->expr_type_case == SC_EXPR_(UNRESOLVED_STAR)) {
			star = true;
			continue;
		}
		if (sc_eng_expr(x, in, ae, &a[i].sql, &a[i].ei, err) == -1)
			goto out;
	}
	if (fd->rtype == R_ARG && n > 0)
		ei->type = a[0].ei.type;
	else
		set_type(ei, fd->rtype == R_ARG ? SC_ETYPE_UNKNOWN : fd->rtype);
	ei->nullable = 1;

	switch (fd->k) {
	case F_CMP:
	case F_LOGIC:
		sc_buf_addf(sql, NULL, "(%s %s %s)", A(0), fd->sql, A(1));
		sc_buf_addf(&ei->name, NULL, "(%s %s %s)", N(0), fd->sql, N(1));
		break;
	case F_NULLSAFE:
		sc_buf_addf(sql, NULL, "(%s IS %s)", A(0), A(1));
		sc_buf_addf(&ei->name, NULL, "(%s <=> %s)", N(0), N(1));
		ei->nullable = 0;
		break;
	case F_NE:
		sc_buf_addf(sql, NULL, "(%s <> %s)", A(0), A(1));
		sc_buf_addf(&ei->name, NULL, "(NOT (%s = %s))", N(0), N(1));
		break;
	case F_ARITH:
		if (n == 1) {
			sc_buf_addf(sql, NULL, "(- %s)", A(0));
			sc_buf_addf(&ei->name, NULL, "(- %s)", N(0));
			ei->type = a[0].ei.type;
			break;
		}
		sc_buf_addf(&ei->name, NULL, "(%s %s %s)", N(0), fd->sql, N(1));
		if (decimal_result(fd->sql[0], &a[0].ei.type, &a[1].ei.type,
			&ei->type)) {
			if (fd->sql[0] == '%')
				sc_buf_addf(sql, NULL, "mod(%s, sc_div0(%s))",
				    A(0), A(1));
			else
				sc_buf_addf(sql, NULL, "(%s %s %s)", A(0),
				    fd->sql, A(1));
			break;
		}
		common_type(ei, a, 0, 2, 1);
		if (!is_num_type(ei->type.t))
			ei->type.t = SC_ETYPE_UNKNOWN;
		if (fd->sql[0] == '%' && !is_num_type(ei->type.t))
			/* Unknown types: SQLite's % (integers) as before. */
			sc_buf_addf(sql, NULL, "(%s %% sc_div0(%s))", A(0),
			    A(1));
		else if (fd->sql[0] == '%' && is_int_type(ei->type.t))
			/* Integers: SQLite's % truncates as Java's does. */
			sc_buf_addf(sql, NULL, "(%s %% sc_div0(%s))", A(0),
			    A(1));
		else if (fd->sql[0] == '%')
			sc_buf_addf(sql, NULL, "mod(%s, sc_div0(%s))", A(0),
			    A(1));
		else if (is_int_type(ei->type.t))
			/* ANSI mode: an overflow fails, as in Spark. */
			sc_buf_addf(sql, NULL, "sc_intchk(%s %s %s, %d)", A(0),
			    fd->sql, A(1), int_bits(ei->type.t));
		else
			sc_buf_addf(sql, NULL, "(%s %s %s)", A(0), fd->sql,
			    A(1));
		break;
	case F_DIV:
		sc_buf_addf(sql, NULL, "(CAST(%s AS REAL) / sc_div0(%s))", A(0),
		    A(1));
		sc_buf_addf(&ei->name, NULL, "(%s / %s)", N(0), N(1));
		decimal_result('/', &a[0].ei.type, &a[1].ei.type, &ei->type);
		break;
	case F_IDIV:
		/* Integral division: the quotient truncated, a bigint. */
		sc_buf_addf(sql, NULL, "CAST((%s) / sc_div0(%s) AS INTEGER)",
		    A(0), A(1));
		sc_buf_addf(&ei->name, NULL, "(%s div %s)", N(0), N(1));
		break;
	case F_HASH: {
		/* Spark's Murmur3 needs each argument's type: see hash_fn. */
		char tags[64];

		if (n >= sizeof(tags)) {
			sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
			    "0A000",
			    "hash() of %zu arguments is not supported by "
			    "sc-serve.",
			    n);
			goto out;
		}
		for (i = 0; i < n; i++) {
			switch (a[i].ei.type.t) {
			case SC_ARROW_INT8:
			case SC_ARROW_INT16:
			case SC_ARROW_INT32:
				tags[i] = 'i';
				break;
			case SC_ARROW_BOOL:
				tags[i] = 'z';
				break;
			case SC_ARROW_INT64:
				tags[i] = 'l';
				break;
			case SC_ARROW_FLOAT:
				tags[i] = 'f';
				break;
			case SC_ARROW_DOUBLE:
				tags[i] = 'd';
				break;
			case SC_ARROW_UTF8:
			case SC_ARROW_LARGE_UTF8:
			case SC_ARROW_BINARY:
			case SC_ARROW_LARGE_BINARY:
			case SC_ARROW_NULL:
				tags[i] = 's';
				break;
			default:
				sc_srv_error(err,
				    "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
				    "hash() of %s (argument %zu) is not "
				    "supported by sc-serve: only integers, "
				    "booleans, floating point, strings and "
				    "binary.",
				    N(i), i + 1);
				goto out;
			}
		}
		tags[n] = '\0';
		sc_buf_addf(sql, NULL, "sc_hash('%s'", tags);
		for (i = 0; i < n; i++)
			sc_buf_addf(sql, NULL, ", %s", A(i));
		sc_buf_addch(sql, ')', NULL);
		ei->nullable = 0;
		break;
	}
	case F_RAND:
		/*
		 * Unseeded rand() is any uniform draw; a seed asks for the
		 * numbers of Spark's per-partition XORShiftRandom, which
		 * sc-serve does not reproduce, so it is refused by name.
		 */
		if (n > 0 || strcmp(lname, "randn") == 0) {
			sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
			    "0A000",
			    "%s()%s is not supported by sc-serve: it does not "
			    "reproduce Spark's random number generator.",
			    lname, n > 0 ? " with a seed" : "");
			goto out;
		}
		sc_buf_addstr(sql, "(random() / 18446744073709551616.0 + 0.5)",
		    NULL);
		ei->nullable = 0;
		break;
	case F_MATH:
		/* NaN results (sqrt(-1)) as Spark's NaN: see engine_func.c. */
		sc_buf_addf(sql, NULL, "sc_math('%s', %s%s%s)",
		    lname[0] == 'p' ? "pow" : lname, A(0), n == 2 ? ", " : "",
		    n == 2 ? A(1) : "");
		sc_buf_addf(&ei->name, NULL, "%s(", fd->sql);
		list(&ei->name, a, 0, n, true);
		sc_buf_addch(&ei->name, ')', NULL);
		break;
	case F_NOT:
		sc_buf_addf(sql, NULL, "(NOT %s)", A(0));
		sc_buf_addf(&ei->name, NULL, "(NOT %s)", N(0));
		break;
	case F_NEG:
		sc_buf_addf(sql, NULL, "(- %s)", A(0));
		sc_buf_addf(&ei->name, NULL, "(- %s)", N(0));
		break;
	case F_ISNULL:
	case F_ISNOTNULL:
		sc_buf_addf(sql, NULL, "(%s IS %sNULL)", A(0),
		    fd->k == F_ISNULL ? "" : "NOT ");
		sc_buf_addf(&ei->name, NULL, "(%s IS %sNULL)", N(0),
		    fd->k == F_ISNULL ? "" : "NOT ");
		ei->nullable = 0;
		break;
	case F_IN:
		sc_buf_addf(sql, NULL, "(%s IN (", A(0));
		list(sql, a, 1, n, false);
		sc_buf_addstr(sql, "))", NULL);
		sc_buf_addf(&ei->name, NULL, "(%s IN (", N(0));
		list(&ei->name, a, 1, n, true);
		sc_buf_addstr(&ei->name, "))", NULL);
		break;
	case F_LIKE:
		sc_buf_addf(sql, NULL, "(%s LIKE %s ESCAPE '\\')", A(0), A(1));
		sc_buf_addf(&ei->name, NULL, "%s LIKE %s", N(0), N(1));
		break;
	case F_STARTS:
		sc_buf_addf(sql, NULL, "(substr(%s, 1, length(%s)) = %s)", A(0),
		    A(1), A(1));
		break;
	case F_ENDS:
		sc_buf_addf(sql, NULL,
		    "(length(%s) >= length(%s) AND "
		    "substr(%s, length(%s) - length(%s) + 1) = %s)",
		    A(0), A(1), A(0), A(0), A(1), A(1));
		break;
	case F_CONTAINS:
		sc_buf_addf(sql, NULL, "(instr(%s, %s) > 0)", A(0), A(1));
		break;
	case F_SIMPLE:
	case F_EXTREME:
		sc_buf_addf(sql, NULL, "%s(", fd->sql);
		list(sql, a, 0, n, false);
		sc_buf_addch(sql, ')', NULL);
		if (fd->k == F_EXTREME)
			common_type(ei, a, 0, n, 1);
		break;
	case F_REPLACE:
		sc_buf_addf(sql, NULL, "replace(%s, %s, %s)", A(0), A(1),
		    n == 3 ? A(2) : "''");
		break;
	case F_LOG:
		if (n == 1)
			sc_buf_addf(sql, NULL, "ln(%s)", A(0));
		else
			sc_buf_addf(sql, NULL, "log(%s, %s)", A(0), A(1));
		break;
	case F_FLOORCEIL:
		sc_buf_addf(sql, NULL, "CAST(%s(%s) AS INTEGER)", fd->sql,
		    A(0));
		break;
	case F_ROUND:
		sc_buf_addf(sql, NULL, "%s(%s, %s)", fd->sql, A(0),
		    n == 2 ? A(1) : "0");
		sc_buf_addf(&ei->name, NULL, "%s(%s, %s)", lname, N(0),
		    n == 2 ? N(1) : "0");
		if (a[0].ei.type.t == SC_ARROW_DECIMAL128) {
			/* Spark: room for a carry, the scale at most s. */
			int p = a[0].ei.type.prec, s = a[0].ei.type.scale;
			int d = 0, ip = p - s + 1;

			if (n == 2 &&
			    f->arguments[1]->expr_type_case ==
				SC_EXPR_(LITERAL))
				d = (int)strtol(A(1), NULL, 10);
			ei->type = a[0].ei.type;
			if (d < 0) {
				ei->type.prec = ip > 1 - d ? ip : 1 - d;
				ei->type.scale = 0;
			} else {
				ei->type.scale = d < s ? d : s;
				ei->type.prec = ip + ei->type.scale;
			}
			if (ei->type.prec > 38)
				ei->type.prec = 38;
		} else if (is_int_type(a[0].ei.type.t))
			ei->type = a[0].ei.type;
		else if (is_num_type(a[0].ei.type.t))
			set_type(ei, SC_ARROW_DOUBLE);
		break;
	case F_COALESCE:
		if (n == 1) {
			sc_buf_addf(sql, NULL, "(%s)", A(0));
		} else {
			sc_buf_addstr(sql, "coalesce(", NULL);
			list(sql, a, 0, n, false);
			sc_buf_addch(sql, ')', NULL);
		}
		common_type(ei, a, 0, n, 1);
		break;
	case F_NVL2:
		sc_buf_addf(sql, NULL,
		    "(CASE WHEN %s IS NOT NULL THEN %s "
		    "ELSE %s END)",
		    A(0), A(1), A(2));
		common_type(ei, a, 1, 3, 1);
		break;
	case F_IF:
		sc_buf_addf(sql, NULL, "(CASE WHEN %s THEN %s ELSE %s END)",
		    A(0), A(1), A(2));
		sc_buf_addf(&ei->name, NULL, "(IF(%s, %s, %s))", N(0), N(1),
		    N(2));
		common_type(ei, a, 1, 3, 1);
		break;
	case F_WHEN:
		sc_buf_addstr(sql, "(CASE", NULL);
		sc_buf_addstr(&ei->name, "CASE", NULL);
		for (k = 0; k + 1 < n; k += 2) {
			sc_buf_addf(sql, NULL, " WHEN %s THEN %s", A(k),
			    A(k + 1));
			sc_buf_addf(&ei->name, NULL, " WHEN %s THEN %s", N(k),
			    N(k + 1));
		}
		if (n % 2 == 1) {
			sc_buf_addf(sql, NULL, " ELSE %s", A(n - 1));
			sc_buf_addf(&ei->name, NULL, " ELSE %s", N(n - 1));
		}
		sc_buf_addstr(sql, " END)", NULL);
		sc_buf_addstr(&ei->name, " END", NULL);
		common_type(ei, a, 1, n, 2);
		if (n % 2 == 1 && ei->type.t != SC_ETYPE_UNKNOWN) {
			struct sc_einfo t;

			sc_eng_einfo_init(&t);
			t.type = ei->type;
			common_type(&t, a, n - 1, n, 1);
			if (!same_etype(&t.type, &ei->type) &&
			    a[n - 1].ei.type.t != SC_ARROW_NULL)
				ei->type.t = SC_ETYPE_UNKNOWN;
			sc_eng_einfo_release(&t);
		}
		break;
	case F_CONCAT:
		if (n > 0 && a[0].ei.type.t == SC_ARROW_LIST) {
			/* concat of arrays: the elements in order. */
			for (i = 0; i < n; i++)
				if (!same_etype(&a[i].ei.type, &a[0].ei.type)) {
					wrong_arg(fname,
					    "\"ARRAY\" (all the same)", a, i,
					    err);
					goto out;
				}
			ei->type = a[0].ei.type;
			sc_buf_addstr(sql, "(CASE WHEN ", NULL);
			for (i = 0; i < n; i++)
				sc_buf_addf(sql, NULL, "%s(%s) IS NULL",
				    i > 0 ? " OR " : "", A(i));
			sc_buf_addstr(sql,
			    " THEN NULL ELSE (SELECT "
			    "coalesce(json_group_array(" ELEM_JSON
			    "), json_array()) FROM (",
			    NULL);
			for (i = 0; i < n; i++)
				sc_buf_addf(sql, NULL,
				    "%sSELECT %zu AS _o, _sc_k, _sc_v, _sc_t "
				    "FROM sc_each(%s)",
				    i > 0 ? " UNION ALL " : "", i, A(i));
			sc_buf_addstr(sql, " ORDER BY _o, _sc_k)) END)", NULL);
			break;
		}
		if (n == 0) {
			sc_buf_addstr(sql, "''", NULL);
		} else {
			sc_buf_addch(sql, '(', NULL);
			for (i = 0; i < n; i++)
				sc_buf_addf(sql, NULL, "%s%s",
				    i > 0 ? " || " : "", A(i));
			if (n == 1)
				sc_buf_addstr(sql, " || ''", NULL);
			sc_buf_addch(sql, ')', NULL);
		}
		break;
	case F_SUBSTR:
		sc_buf_addf(sql, NULL, "substr(%s, iif(%s = 0, 1, %s)", A(0),
		    A(1), A(1));
		if (n == 3)
			sc_buf_addf(sql, NULL, ", max(%s, 0)", A(2));
		sc_buf_addch(sql, ')', NULL);
		if (a[0].ei.type.t != SC_ARROW_BINARY)
			set_type(ei, SC_ARROW_UTF8);
		break;
	case F_COUNT:
		ei->nullable = 0;
		if (star ||
		    (n == 1 &&
			f->arguments[0]->expr_type_case == SC_EXPR_(LITERAL) &&
			!f->is_distinct && a[0].ei.type.t != SC_ARROW_NULL)) {
			if (x->pivot_cond != NULL)
				sc_buf_addf(sql, NULL,
				    "count(CASE WHEN %s THEN 1 END)",
				    x->pivot_cond);
			else
				sc_buf_addstr(sql, "count(*)", NULL);
			sc_buf_addf(&ei->name, NULL, "count(%s)",
			    star ? "1" : N(0));
			break;
		}
		if (n > 1) {
			sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
			    "0A000",
			    "count() of several columns is not "
			    "supported by sc-serve.");
			goto out;
		}
		/* FALLTHROUGH */
	case F_AGG:
		sc_buf_addf(sql, NULL, "%s(%s%s)", fd->sql,
		    f->is_distinct ? "DISTINCT " : "", A(0));
		sc_buf_addf(&ei->name, NULL, "%s(%s%s)", lname,
		    f->is_distinct ? "DISTINCT " : "", N(0));
		if (strcmp(fd->sql, "sum") == 0) {
			if (is_int_type(a[0].ei.type.t))
				set_type(ei, SC_ARROW_INT64);
			else if (is_num_type(a[0].ei.type.t))
				set_type(ei, SC_ARROW_DOUBLE);
		}
		break;
	case F_NOW:
		sc_buf_addstr(sql, fd->sql, NULL);
		sc_buf_addf(&ei->name, NULL, "%s()", lname);
		ei->nullable = 0;
		break;
	case F_DATEPART:
		sc_buf_addf(sql, NULL, "CAST(strftime('%s', %s) AS INTEGER)",
		    fd->sql, A(0));
		break;
	case F_TOTYPE:
		sc_buf_addf(sql, NULL, "sc_cast(%s, '%s', 0)", A(0), fd->sql);
		break;
	case F_NESTED:
		if (nested_fn(fd, fname, f, a, n, sql, ei, err) == -1)
			goto out;
		break;
	case F_GROUPING: {
		unsigned long id = 0;
		size_t gi;

		if (x->ngsql == 0) {
			sc_srv_error(err, "UNSUPPORTED_GROUPING_EXPRESSION",
			    "42K0E",
			    "grouping()/grouping_id() can only be used with "
			    "GroupingSets/Cube/Rollup.");
			goto out;
		}
		for (k = 0; k < (n > 0 ? n : x->ngsql); k++) {
			gi = k;
			if (n > 0) {
				for (gi = 0; gi < x->ngsql; gi++)
					if (strcmp(x->gsql[gi], A(k)) == 0)
						break;
				if (gi == x->ngsql) {
					sc_srv_error(err,
					    "GROUPING_COLUMN_MISMATCH", "42803",
					    "Column of grouping (%s) can't be "
					    "found in grouping columns.",
					    N(k));
					goto out;
				}
			}
			id = id << 1 | !(x->gmask >> gi & 1);
		}
		sc_buf_addf(sql, NULL, "%lu", id);
		ei->nullable = 0;
		break;
	}
	case F_TMPL:
		if (strcmp(lname, "format_number") == 0 &&
		    a[0].ei.type.t == SC_ARROW_DECIMAL128)
			/* a decimal travels as a double: give its scale */
			sc_buf_addf(sql, NULL, "sc_format_number(%s, %s, %d)",
			    A(0), A(1), a[0].ei.type.scale);
		else
			template(sql, fd->sql, a, n);
		if (strstr(fd->sql, "mod(") != NULL) {
			common_type(ei, a, 0, n, 1);
			if (!is_num_type(ei->type.t))
				ei->type.t = SC_ETYPE_UNKNOWN;
		}
		if (strncmp(fd->sql, "count(", 6) == 0)
			ei->nullable = 0;
		break;
	}
	if (ei->name.len == 0) {
		/* Spark names RLike RLIKE(...) and shows regexp_replace's
		 * default position. */
		sc_buf_addf(&ei->name, NULL, "%s(",
		    strcmp(lname, "rlike") == 0 ? "RLIKE" : lname);
		list(&ei->name, a, 0, n, true);
		if (strcmp(lname, "regexp_replace") == 0 && n == 3)
			sc_buf_addstr(&ei->name, ", 1", NULL);
		sc_buf_addch(&ei->name, ')', NULL);
	}
	rc = 0;
out:
	for (i = 0; i < n; i++) {
		sc_buf_release(&a[i].sql);
		sc_eng_einfo_release(&a[i].ei);
	}
	free(a);
	return rc;
}

#undef A
#undef N

/*
 * child[extraction]: a struct's field by name, an array's element by a
 * 0-based index (out of bounds fails, as under ANSI), a map's value by
 * key (NULL when missing).  Named as Spark names them: s.f is "f" when
 * col("s.f") asked for it, child[x] otherwise.
 */
static int
extract_value(struct sc_ectx *x, const struct sc_eplan *in,
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
		if (!is_int_type(ke.type.t)) {
			rc = sc_srv_error(err,
			    "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "42K09",
			    "An array index must be an integer, not %s.",
			    (const char *)ke.name.data);
			goto out;
		}
		array_item(sql, (const char *)cs.data, (const char *)ks.data,
		    &n->types[0], false, true, "INVALID_ARRAY_INDEX",
		    "Use the SQL function `get()` to tolerate accessing "
		    "element at invalid index and return NULL instead.");
		ei->type = n->types[0];
		rc = 0;
		break;
	case SC_ARROW_MAP:
		map_value(sql, (const char *)cs.data, (const char *)ks.data,
		    &n->types[1]);
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

static int
cast(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__Cast *c, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_error *err)
{
	struct sc_buf inner, tn;
	struct sc_einfo iei;
	struct sc_etype to;
	int mode, rc = -1;

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
	if (to.t == SC_ARROW_STRUCT || to.t == SC_ARROW_LIST ||
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
	}
	sc_eng_type_text(&to, SC_VALUE_SQL, &tn);
	sc_buf_addf(&ei->name, NULL, "CAST(%s AS %s)",
	    (const char *)iei.name.data, (const char *)tn.data);
	ei->type = to;
	ei->nullable = mode != 0 || iei.nullable;
	rc = 0;
out:
	sc_buf_release(&inner);
	sc_buf_release(&tn);
	sc_eng_einfo_release(&iei);
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
		rc = literal(e->literal, sql, ei, err);
		break;
	case SC_EXPR_(UNRESOLVED_ATTRIBUTE):
		if (x->pivot_cond != NULL) {
			/* Inside a pivot value's aggregate: its rows only. */
			struct sc_buf ax;

			sc_buf_init(&ax, SC_BUF_UNLIMITED);
			rc = attribute(in, e->unresolved_attribute, &ax, ei,
			    err);
			if (rc == 0)
				sc_buf_addf(sql, NULL,
				    "(CASE WHEN %s THEN %s END)", x->pivot_cond,
				    (const char *)ax.data);
			sc_buf_release(&ax);
			break;
		}
		rc = attribute(in, e->unresolved_attribute, sql, ei, err);
		break;
	case SC_EXPR_(UNRESOLVED_FUNCTION):
		rc = function(x, in, e->unresolved_function, sql, ei, err);
		break;
	case SC_EXPR_(EXPRESSION_STRING): {
		const char *s = e->expression_string->expression;

		if (s == NULL)
			s = "";
		sc_buf_addch(sql, '(', NULL);
		rc = sc_eng_dialect(x, s, sql, err);
		sc_buf_addstr(sql, "\n)", NULL);
		sc_buf_addstr(&ei->name, s, NULL);
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
		rc = extract_value(x, in, e->unresolved_extract_value, sql, ei,
		    err);
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
