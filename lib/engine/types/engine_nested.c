/* SPDX-License-Identifier: MIT */

/*
 * engine_nested.c: struct, array and map types for the SQLite engine.
 * A nested type is interned (one descriptor per distinct type, kept for
 * the life of the process), so a struct sc_etype stays a plain value
 * that is copied and compared field by field.  A nested value lives in
 * SQLite as JSON text in the lossless form of lib/core/arrow: a struct
 * is the array of its field values, an array a JSON array, a map the
 * array of its [key, value] pairs; binary is hex, decimals, dates and
 * timestamps are text.  Results go into Arrow struct, list and map
 * columns from that text (engine_nested_value.c).
 */

#include "engine/engine_int.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* Distinct nested types a process keeps; more are refused. */
#define MAX_NESTED_TYPES 8192

/* ------------------------------------------------------------------ */
/* Interned types                                                      */
/* ------------------------------------------------------------------ */

static pthread_mutex_t nest_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sc_enest *nest_list;
static size_t nest_count;

/* A key that tells apart every type, nullability included. */
static void
key_text(const struct sc_etype *t, struct sc_buf *out)
{
	const struct sc_enest *n = t->nest;
	size_t i;

	if (n == NULL) {
		sc_eng_type_text(t, SC_VALUE_SIMPLE, out);
		return;
	}
	sc_buf_addstr(out,
	    n->kind == SC_ARROW_STRUCT	  ? "struct<"
		: n->kind == SC_ARROW_MAP ? "map<"
					  : "array<",
	    NULL);
	for (i = 0; i < n->n; i++) {
		if (i > 0)
			sc_buf_addch(out, ',', NULL);
		if (n->kind == SC_ARROW_STRUCT) {
			sc_eng_quote_ident(out, n->names[i]);
			sc_buf_addch(out, ':', NULL);
		}
		key_text(&n->types[i], out);
		if (!n->nullable[i])
			sc_buf_addch(out, '!', NULL);
	}
	sc_buf_addch(out, '>', NULL);
}

/*
 * The interned copy of n (whose arrays it takes over, or frees if the
 * type is known already), or NULL past MAX_NESTED_TYPES.
 */
static const struct sc_enest *
intern(struct sc_enest *n)
{
	struct sc_etype t;
	struct sc_buf key;
	struct sc_enest *p;
	size_t i;

	memset(&t, 0, sizeof(t));
	t.t = n->kind;
	t.nest = n;
	sc_buf_init(&key, SC_BUF_UNLIMITED);
	key_text(&t, &key);
	pthread_mutex_lock(&nest_lock);
	for (p = nest_list; p != NULL; p = p->next)
		if (strcmp(p->key, (const char *)key.data) == 0)
			break;
	if (p == NULL && nest_count < MAX_NESTED_TYPES) {
		p = sc_xmalloc(sizeof(*p));
		*p = *n;
		p->key = (char *)sc_buf_detach(&key, NULL);
		p->next = nest_list;
		nest_list = p;
		nest_count++;
		n->names = NULL;
		n->types = NULL;
		n->nullable = NULL;
		n->n = 0;
	}
	pthread_mutex_unlock(&nest_lock);
	sc_buf_release(&key);
	for (i = 0; n->names != NULL && i < n->n; i++)
		free(n->names[i]);
	free(n->names);
	free(n->types);
	free(n->nullable);
	return p;
}

/* An empty descriptor of kind, to fill with nest_add(). */
static void
nest_init(struct sc_enest *n, int kind)
{
	memset(n, 0, sizeof(*n));
	n->kind = kind;
}

static void
nest_add(struct sc_enest *n, const char *name, size_t nl,
    const struct sc_etype *t, bool nullable)
{
	n->names = sc_xreallocarray(n->names, n->n + 1, sizeof(*n->names));
	n->types = sc_xreallocarray(n->types, n->n + 1, sizeof(*n->types));
	n->nullable =
	    sc_xreallocarray(n->nullable, n->n + 1, sizeof(*n->nullable));
	n->names[n->n] = name != NULL ? sc_xstrndup(name, nl) : NULL;
	n->types[n->n] = *t;
	n->nullable[n->n] = nullable;
	n->n++;
}

static void
nest_discard(struct sc_enest *n)
{
	size_t i;

	for (i = 0; n->names != NULL && i < n->n; i++)
		free(n->names[i]);
	free(n->names);
	free(n->types);
	free(n->nullable);
	memset(n, 0, sizeof(*n));
}

static int
too_many(struct sc_error *err)
{
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE", "0A000",
	    "sc-serve keeps at most %d distinct nested types; this one is "
	    "one too many.",
	    MAX_NESTED_TYPES);
}

/* Finish n into *out: 0, or -1 (err set). */
static int
nest_done(struct sc_enest *n, struct sc_etype *out, struct sc_error *err)
{
	int kind = n->kind;

	memset(out, 0, sizeof(*out));
	out->t = kind;
	if ((out->nest = intern(n)) == NULL)
		return too_many(err);
	return 0;
}

int
sc_eng_nest_array(const struct sc_etype *elem, bool contains_null,
    struct sc_etype *out, struct sc_error *err)
{
	struct sc_enest n;

	nest_init(&n, SC_ARROW_LIST);
	nest_add(&n, NULL, 0, elem, contains_null);
	return nest_done(&n, out, err);
}

int
sc_eng_nest_map(const struct sc_etype *key, const struct sc_etype *value,
    bool value_null, struct sc_etype *out, struct sc_error *err)
{
	struct sc_enest n;

	nest_init(&n, SC_ARROW_MAP);
	nest_add(&n, NULL, 0, key, false);
	nest_add(&n, NULL, 0, value, value_null);
	return nest_done(&n, out, err);
}

int
sc_eng_nest_struct(char *const *names, const struct sc_etype *types,
    const bool *nullable, size_t nf, struct sc_etype *out, struct sc_error *err)
{
	struct sc_enest n;
	size_t i;

	nest_init(&n, SC_ARROW_STRUCT);
	for (i = 0; i < nf; i++)
		nest_add(&n, names[i], strlen(names[i]), &types[i],
		    nullable[i]);
	return nest_done(&n, out, err);
}

/* ------------------------------------------------------------------ */
/* Names                                                               */
/* ------------------------------------------------------------------ */

/* A field name as Spark's simpleString and sql print it. */
static void
field_name(const char *s, bool sql, struct sc_buf *out)
{
	const char *p;
	bool plain = *s != '\0' && !isdigit((unsigned char)*s);

	for (p = s; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			plain = false;
	if (plain || !sql)
		sc_buf_addstr(out, s, NULL);
	else
		sc_eng_quote_ident(out, s);
}

int
sc_eng_nest_type_text(const struct sc_etype *t, enum sc_value_style style,
    struct sc_buf *out)
{
	const struct sc_enest *n = t->nest;
	bool sql = style == SC_VALUE_SQL;
	size_t i;

	if (style == SC_VALUE_TYPENAME || n == NULL)
		return sc_buf_addstr(out,
		    t->t == SC_ARROW_STRUCT    ? "struct"
			: t->t == SC_ARROW_MAP ? "map"
					       : "array",
		    NULL);
	if (n->kind == SC_ARROW_STRUCT)
		sc_buf_addstr(out, sql ? "STRUCT<" : "struct<", NULL);
	else if (n->kind == SC_ARROW_MAP)
		sc_buf_addstr(out, sql ? "MAP<" : "map<", NULL);
	else
		sc_buf_addstr(out, sql ? "ARRAY<" : "array<", NULL);
	for (i = 0; i < n->n; i++) {
		if (i > 0)
			sc_buf_addstr(out, sql ? ", " : ",", NULL);
		if (n->kind == SC_ARROW_STRUCT) {
			field_name(n->names[i], sql, out);
			sc_buf_addstr(out, sql ? ": " : ":", NULL);
		}
		sc_eng_type_text(&n->types[i], style, out);
		if (sql && n->kind == SC_ARROW_STRUCT && !n->nullable[i])
			sc_buf_addstr(out, " NOT NULL", NULL);
	}
	return sc_buf_addch(out, '>', NULL);
}

/* ------------------------------------------------------------------ */
/* DDL: struct<a:int,b:array<string>>, map<string,int>                  */
/* ------------------------------------------------------------------ */

struct ddl {
	const char *p;
	const char *end;
};

static void
dws(struct ddl *d)
{
	while (d->p < d->end && isspace((unsigned char)*d->p))
		d->p++;
}

static bool
dword(struct ddl *d, const char *w)
{
	size_t n = strlen(w);

	dws(d);
	if ((size_t)(d->end - d->p) < n || strncasecmp(d->p, w, n) != 0)
		return false;
	if (d->p + n < d->end &&
	    (isalnum((unsigned char)d->p[n]) || d->p[n] == '_'))
		return false;
	d->p += n;
	return true;
}

static int ddl_type(struct ddl *d, struct sc_etype *out, int depth);

/* A type that runs to a top-level ',' or '>' (not consumed). */
static int
ddl_type(struct ddl *d, struct sc_etype *out, int depth)
{
	struct sc_enest n;
	struct sc_etype a, b;
	struct sc_buf name;
	const char *s;
	int nest = 0;

	if (depth > SC_ENG_NEST_MAX_DEPTH)
		return -1;
	dws(d);
	s = d->p;
	if (dword(d, "array") && (dws(d), d->p < d->end && *d->p == '<')) {
		d->p++;
		if (ddl_type(d, &a, depth + 1) == -1)
			return -1;
		dws(d);
		if (d->p >= d->end || *d->p != '>')
			return -1;
		d->p++;
		return sc_eng_nest_array(&a, true, out, NULL);
	}
	d->p = s;
	if (dword(d, "map") && (dws(d), d->p < d->end && *d->p == '<')) {
		d->p++;
		if (ddl_type(d, &a, depth + 1) == -1)
			return -1;
		dws(d);
		if (d->p >= d->end || *d->p != ',')
			return -1;
		d->p++;
		if (ddl_type(d, &b, depth + 1) == -1)
			return -1;
		dws(d);
		if (d->p >= d->end || *d->p != '>')
			return -1;
		d->p++;
		return sc_eng_nest_map(&a, &b, true, out, NULL);
	}
	d->p = s;
	if (dword(d, "struct") && (dws(d), d->p < d->end && *d->p == '<')) {
		d->p++;
		nest_init(&n, SC_ARROW_STRUCT);
		sc_buf_init(&name, SC_ENGINE_MAX_IDENT);
		dws(d);
		while (d->p < d->end && *d->p != '>') {
			bool nullable = true;

			sc_buf_reset(&name);
			dws(d);
			if (d->p < d->end && *d->p == '`') {
				for (d->p++; d->p < d->end; d->p++) {
					if (*d->p == '`' && d->p + 1 < d->end &&
					    d->p[1] == '`')
						d->p++;
					else if (*d->p == '`')
						break;
					sc_buf_addch(&name, *d->p, NULL);
				}
				if (d->p >= d->end)
					goto bad;
				d->p++;
			} else {
				while (d->p < d->end &&
				    (isalnum((unsigned char)*d->p) ||
					*d->p == '_'))
					sc_buf_addch(&name, *d->p++, NULL);
			}
			if (name.len == 0 || name.failed)
				goto bad;
			dws(d);
			if (d->p < d->end && *d->p == ':')
				d->p++;
			if (ddl_type(d, &a, depth + 1) == -1)
				goto bad;
			if (dword(d, "not")) {
				if (!dword(d, "null"))
					goto bad;
				nullable = false;
			}
			if (dword(d, "comment")) {
				dws(d);
				if (d->p >= d->end || *d->p != '\'')
					goto bad;
				for (d->p++; d->p < d->end && *d->p != '\'';
				     d->p++)
					;
				if (d->p >= d->end)
					goto bad;
				d->p++;
			}
			nest_add(&n, (const char *)name.data, name.len, &a,
			    nullable);
			dws(d);
			if (d->p < d->end && *d->p == ',')
				d->p++;
			else if (d->p >= d->end || *d->p != '>')
				goto bad;
		}
		sc_buf_release(&name);
		if (d->p >= d->end)
			goto bad_n;
		d->p++;
		return nest_done(&n, out, NULL);
bad:
		sc_buf_release(&name);
bad_n:
		nest_discard(&n);
		return -1;
	}
	/* A flat type: up to a top-level ',' or '>', or NOT/COMMENT. */
	d->p = s;
	while (d->p < d->end) {
		if (*d->p == '(')
			nest++;
		else if (*d->p == ')')
			nest--;
		else if (nest == 0 && (*d->p == ',' || *d->p == '>'))
			break;
		else if (nest == 0 && isspace((unsigned char)*d->p)) {
			struct ddl t = { d->p, d->end };

			if (dword(&t, "not") || dword(&t, "comment"))
				break;
		}
		d->p++;
	}
	return sc_eng_parse_type(s, (size_t)(d->p - s), false, out);
}

int
sc_eng_nest_parse(const char *s, size_t n, struct sc_etype *out)
{
	struct ddl d = { s, s + n };

	if (ddl_type(&d, out, 0) == -1)
		return -1;
	dws(&d);
	return d.p == d.end ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* DataType messages and Arrow fields                                  */
/* ------------------------------------------------------------------ */

int
sc_eng_nest_from_proto(const Spark__Connect__DataType *t, struct sc_etype *out,
    struct sc_error *err)
{
	struct sc_enest n;
	struct sc_etype a, b;
	size_t i;

	switch (t->kind_case) {
	case SC_DT_(ARRAY):
		if (t->array->element_type == NULL)
			break;
		if (sc_eng_type_from_proto(t->array->element_type, &a, err) ==
		    -1)
			return -1;
		return sc_eng_nest_array(&a, t->array->contains_null, out, err);
	case SC_DT_(MAP):
		if (t->map->key_type == NULL || t->map->value_type == NULL)
			break;
		if (sc_eng_type_from_proto(t->map->key_type, &a, err) == -1 ||
		    sc_eng_type_from_proto(t->map->value_type, &b, err) == -1)
			return -1;
		return sc_eng_nest_map(&a, &b, t->map->value_contains_null, out,
		    err);
	case SC_DT_(STRUCT):
		nest_init(&n, SC_ARROW_STRUCT);
		for (i = 0; i < t->struct_->n_fields; i++) {
			const Spark__Connect__DataType__StructField *f =
			    t->struct_->fields[i];

			if (f->data_type == NULL || f->name == NULL) {
				nest_discard(&n);
				return sc_srv_error(err, "INVALID_PLAN_INPUT",
				    "22023",
				    "A struct field has no name or type.");
			}
			if (sc_eng_type_from_proto(f->data_type, &a, err) ==
			    -1) {
				nest_discard(&n);
				return -1;
			}
			nest_add(&n, f->name, strlen(f->name), &a, f->nullable);
		}
		return nest_done(&n, out, err);
	default:
		break;
	}
	return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
	    "A nested data type has no element type.");
}

int
sc_eng_nest_from_arrow(const struct sc_arrow_field *f, struct sc_etype *out,
    struct sc_error *err)
{
	struct sc_enest n;
	struct sc_etype a, b;
	const struct sc_arrow_field *e;
	size_t i;

	switch (f->type) {
	case SC_ARROW_LIST:
	case SC_ARROW_LARGE_LIST:
		if (f->nchildren != 1 ||
		    sc_eng_type_from_arrow(&f->children[0], &a, err) == -1)
			break;
		return sc_eng_nest_array(&a, f->children[0].nullable, out, err);
	case SC_ARROW_MAP:
		if (f->nchildren != 1 || f->children[0].nchildren != 2)
			break;
		e = f->children[0].children;
		if (sc_eng_type_from_arrow(&e[0], &a, err) == -1 ||
		    sc_eng_type_from_arrow(&e[1], &b, err) == -1)
			return -1;
		return sc_eng_nest_map(&a, &b, e[1].nullable, out, err);
	case SC_ARROW_STRUCT:
		nest_init(&n, SC_ARROW_STRUCT);
		for (i = 0; i < f->nchildren; i++) {
			if (sc_eng_type_from_arrow(&f->children[i], &a, err) ==
			    -1) {
				nest_discard(&n);
				return -1;
			}
			nest_add(&n, f->children[i].name,
			    strlen(f->children[i].name), &a,
			    f->children[i].nullable);
		}
		return nest_done(&n, out, err);
	default:
		break;
	}
	if (err != NULL && err->errclass[0] != '\0')
		return -1;
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE", "0A000",
	    "The Arrow column `%s` has a nested type sc-serve cannot read.",
	    f->name);
}

/* The Arrow field (name and nullable set by the caller) for t. */
void
sc_eng_arrow_field(const struct sc_etype *t, struct sc_arrow_field *f)
{
	const struct sc_enest *n = t->nest;
	struct sc_arrow_field *e;
	size_t i;

	f->type = t->t == SC_ETYPE_UNKNOWN ? SC_ARROW_NULL
					   : (enum sc_arrow_type)t->t;
	if (f->type == SC_ARROW_DECIMAL128) {
		f->precision = t->prec;
		f->scale = t->scale;
	}
	if (f->type == SC_ARROW_TIMESTAMP_US && !t->ntz)
		f->tz = sc_xstrdup("UTC");
	if (n == NULL)
		return;
	if (n->kind == SC_ARROW_MAP) {
		f->children = sc_xcalloc(1, sizeof(*f->children));
		f->nchildren = 1;
		e = &f->children[0];
		e->name = sc_xstrdup("entries");
		e->type = SC_ARROW_STRUCT;
		e->children = sc_xcalloc(2, sizeof(*e->children));
		e->nchildren = 2;
		e->children[0].name = sc_xstrdup("key");
		e->children[0].nullable = false;
		sc_eng_arrow_field(&n->types[0], &e->children[0]);
		e->children[1].name = sc_xstrdup("value");
		e->children[1].nullable = n->nullable[1];
		sc_eng_arrow_field(&n->types[1], &e->children[1]);
		return;
	}
	f->children = sc_xcalloc(n->n > 0 ? n->n : 1, sizeof(*f->children));
	f->nchildren = n->n;
	for (i = 0; i < n->n; i++) {
		e = &f->children[i];
		e->name = sc_xstrdup(
		    n->kind == SC_ARROW_STRUCT ? n->names[i] : "element");
		e->nullable = n->nullable[i] || n->types[i].t == SC_ARROW_NULL;
		sc_eng_arrow_field(&n->types[i], e);
	}
}

/* ------------------------------------------------------------------ */
/* SQL: values into and out of the JSON form                           */
/* ------------------------------------------------------------------ */

void
sc_eng_nest_encode(const struct sc_etype *t, const char *sql,
    struct sc_buf *out)
{
	if (t->nest != NULL)
		sc_buf_addf(out, NULL, "json(%s)", sql);
	else if (t->t == SC_ARROW_BINARY)
		sc_buf_addf(out, NULL, "sc_hex(%s)", sql);
	else if (t->t == SC_ARROW_BOOL)
		sc_buf_addf(out, NULL,
		    "json(CASE WHEN (%s) IS NULL THEN 'null' WHEN (%s) THEN "
		    "'true' ELSE 'false' END)",
		    sql, sql);
	else
		sc_buf_addstr(out, sql, NULL);
}

void
sc_eng_nest_decode(const struct sc_etype *t, const char *sql,
    struct sc_buf *out)
{
	if (t->nest == NULL && t->t == SC_ARROW_BINARY)
		sc_buf_addf(out, NULL, "sc_unhex(%s)", sql);
	else
		sc_buf_addstr(out, sql, NULL);
}

/*
 * SQL giving the JSON text Spark writes for a value x of type t
 * (to_json): structs as objects by field name, maps as objects keyed by
 * the key's text, arrays as arrays; nulls inside a struct left out.
 */
void
sc_eng_nest_to_json(const struct sc_etype *t, const char *x, struct sc_buf *out,
    int depth)
{
	const struct sc_enest *n = t->nest;
	struct sc_buf sub, at;
	size_t i;
	char q[32];

	/* Every part is JSON text (or NULL); containers json() them. */
	if (n == NULL) {
		if (t->t == SC_ARROW_BOOL)
			sc_buf_addf(out, NULL,
			    "(CASE WHEN (%s) IS NULL THEN NULL WHEN (%s) THEN "
			    "'true' ELSE 'false' END)",
			    x, x);
		else if (t->t == SC_ARROW_BINARY)
			sc_buf_addf(out, NULL,
			    "(CASE WHEN (%s) IS NULL THEN NULL ELSE "
			    "json_quote(sc_hex(%s)) END)",
			    x, x);
		else if (t->t == SC_ARROW_DECIMAL128)
			sc_buf_addf(out, NULL, "CAST((%s) AS TEXT)", x);
		else
			sc_buf_addf(out, NULL,
			    "(CASE WHEN (%s) IS NULL THEN NULL ELSE "
			    "json_quote(%s) END)",
			    x, x);
		return;
	}
	sc_buf_init(&sub, SC_BUF_UNLIMITED);
	sc_buf_init(&at, SC_BUF_UNLIMITED);
	snprintf(q, sizeof(q), "_sc_j%d", depth);
	if (n->kind == SC_ARROW_STRUCT) {
		sc_buf_addf(out, NULL,
		    "(SELECT CASE WHEN %s IS NULL THEN NULL ELSE (SELECT "
		    "coalesce(json_group_object(k, json(v)), json_object()) "
		    "FROM (",
		    x);
		for (i = 0; i < n->n; i++) {
			sc_buf_reset(&at);
			sc_buf_reset(&sub);
			sc_buf_addf(&at, NULL, "json_extract(%s, '$[%zu]')", x,
			    i);
			sc_eng_nest_to_json(&n->types[i], (const char *)at.data,
			    &sub, depth + 1);
			sc_buf_addf(out, NULL, "%sSELECT %zu AS o, ",
			    i > 0 ? " UNION ALL " : "", i);
			sc_eng_quote_string(out, n->names[i],
			    strlen(n->names[i]));
			sc_buf_addf(out, NULL, " AS k, %s AS v",
			    (const char *)sub.data);
		}
		if (n->n == 0)
			sc_buf_addstr(out,
			    "SELECT 0 AS o, NULL AS k, NULL AS v "
			    "WHERE 0",
			    NULL);
		sc_buf_addstr(out, " ORDER BY o) WHERE v IS NOT NULL) END)",
		    NULL);
	} else if (n->kind == SC_ARROW_LIST) {
		sc_buf_addf(&at, NULL, "%s._sc_v", q);
		sc_eng_nest_to_json(&n->types[0], (const char *)at.data, &sub,
		    depth + 1);
		sc_buf_addf(out, NULL,
		    "(CASE WHEN %s IS NULL THEN NULL ELSE (SELECT "
		    "coalesce(json_group_array(json(%s)), json_array()) FROM "
		    "sc_each(%s) AS %s) END)",
		    x, (const char *)sub.data, x, q);
	} else {
		sc_buf_addf(&at, NULL, "json_extract(%s._sc_v, '$[1]')", q);
		sc_eng_nest_to_json(&n->types[1], (const char *)at.data, &sub,
		    depth + 1);
		sc_buf_addf(out, NULL,
		    "(CASE WHEN %s IS NULL THEN NULL ELSE (SELECT "
		    "coalesce(json_group_object(CAST(json_extract(%s._sc_v, "
		    "'$[0]') AS TEXT), json(%s)), json_object()) FROM "
		    "sc_each(%s) AS %s) END)",
		    x, q, (const char *)sub.data, x, q);
	}
	sc_buf_release(&sub);
	sc_buf_release(&at);
}

/*
 * SQL reading JSON text x as type t (from_json): object fields by
 * name, the nested form the engine keeps; what does not fit is null.
 */
void
sc_eng_nest_from_json(const struct sc_etype *t, const char *x,
    struct sc_buf *out, int depth)
{
	const struct sc_enest *n = t->nest;
	struct sc_buf sub, at;
	size_t i;
	char q[32];

	if (n == NULL) {
		sc_eng_nest_encode(t, x, out);
		return;
	}
	sc_buf_init(&sub, SC_BUF_UNLIMITED);
	sc_buf_init(&at, SC_BUF_UNLIMITED);
	snprintf(q, sizeof(q), "_sc_f%d", depth);
	if (n->kind == SC_ARROW_STRUCT) {
		sc_buf_addf(out, NULL,
		    "(CASE WHEN (CASE WHEN json_valid(%s) THEN json_type(%s) "
		    "END) IS NOT 'object' THEN NULL ELSE json_array(",
		    x, x);
		for (i = 0; i < n->n; i++) {
			sc_buf_reset(&at);
			sc_buf_reset(&sub);
			sc_buf_reset(&sub);
			sc_buf_addf(&sub, NULL, "$.\"%s\"", n->names[i]);
			sc_buf_addf(&at, NULL, "json_extract(%s, ", x);
			sc_eng_quote_string(&at, (const char *)sub.data,
			    sub.len);
			sc_buf_addch(&at, ')', NULL);
			sc_buf_reset(&sub);
			sc_eng_nest_from_json(&n->types[i],
			    (const char *)at.data, &sub, depth + 1);
			sc_buf_addf(out, NULL, "%s%s", i > 0 ? ", " : "",
			    (const char *)sub.data);
		}
		sc_buf_addstr(out, ") END)", NULL);
	} else if (n->kind == SC_ARROW_LIST) {
		sc_buf_addf(&at, NULL, "%s._sc_v", q);
		sc_eng_nest_from_json(&n->types[0], (const char *)at.data, &sub,
		    depth + 1);
		sc_buf_addf(out, NULL,
		    "(CASE WHEN (CASE WHEN json_valid(%s) THEN json_type(%s) "
		    "END) IS NOT 'array' THEN NULL ELSE (SELECT "
		    "coalesce(json_group_array(%s), json_array()) FROM "
		    "sc_each(%s) AS %s) END)",
		    x, x, (const char *)sub.data, x, q);
	} else {
		sc_buf_addf(&at, NULL, "%s.value", q);
		sc_eng_nest_from_json(&n->types[1], (const char *)at.data, &sub,
		    depth + 1);
		/* The text through _sc_x: json_each's columns stay inside. */
		sc_buf_addf(out, NULL,
		    "(SELECT CASE WHEN (CASE WHEN json_valid(_sc_x) THEN "
		    "json_type(_sc_x) END) IS NOT 'object' THEN "
		    "NULL ELSE (SELECT coalesce(json_group_array(json_array("
		    "%s.key, %s)), json_array()) FROM json_each(_sc_x) AS %s) "
		    "END FROM (SELECT %s AS _sc_x))",
		    q, (const char *)sub.data, q, x);
	}
	sc_buf_release(&sub);
	sc_buf_release(&at);
}
