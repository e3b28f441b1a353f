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
 * columns from that text.
 */

#include "server/engine_int.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "server/srverror.h"
#include "core/banned.h"

/* Distinct nested types a process keeps; more are refused. */
#define MAX_NESTED_TYPES 8192
/* Deepest nesting of types and of values. */
#define MAX_DEPTH 32

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

	if (depth > MAX_DEPTH)
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
/* Values: the JSON text into Arrow                                    */
/* ------------------------------------------------------------------ */

struct jcur {
	const char *p;
	const char *end;
	const char *start;
};

static void
jws(struct jcur *j)
{
	while (j->p < j->end && isspace((unsigned char)*j->p))
		j->p++;
}

static int
bad_value(struct jcur *j, const struct sc_etype *t, struct sc_error *err)
{
	struct sc_buf tn;
	int rc;

	sc_buf_init(&tn, SC_BUF_UNLIMITED);
	sc_eng_type_text(t, SC_VALUE_SQL, &tn);
	rc = sc_srv_error(err, "CAST_INVALID_INPUT", "22018",
	    "The value '%.60s%s' cannot be read as \"%s\".", j->start,
	    j->end - j->start > 60 ? "..." : "", (const char *)tn.data);
	sc_buf_release(&tn);
	return rc;
}

static void
utf8_put(struct sc_buf *b, unsigned long c)
{
	if (c < 0x80) {
		sc_buf_addch(b, (char)c, NULL);
	} else if (c < 0x800) {
		sc_buf_addch(b, (char)(0xc0 | c >> 6), NULL);
		sc_buf_addch(b, (char)(0x80 | (c & 0x3f)), NULL);
	} else if (c < 0x10000) {
		sc_buf_addch(b, (char)(0xe0 | c >> 12), NULL);
		sc_buf_addch(b, (char)(0x80 | (c >> 6 & 0x3f)), NULL);
		sc_buf_addch(b, (char)(0x80 | (c & 0x3f)), NULL);
	} else {
		sc_buf_addch(b, (char)(0xf0 | c >> 18), NULL);
		sc_buf_addch(b, (char)(0x80 | (c >> 12 & 0x3f)), NULL);
		sc_buf_addch(b, (char)(0x80 | (c >> 6 & 0x3f)), NULL);
		sc_buf_addch(b, (char)(0x80 | (c & 0x3f)), NULL);
	}
}

static int
hex4(const char *p, const char *end, unsigned long *v)
{
	int i;

	*v = 0;
	if (end - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		if (!isxdigit((unsigned char)p[i]))
			return -1;
		*v = *v * 16 +
		    (unsigned long)(isdigit((unsigned char)p[i])
			    ? p[i] - '0'
			    : (tolower((unsigned char)p[i]) - 'a' + 10));
	}
	return 0;
}

/* A JSON string at j->p (the quote) into out, unescaped. */
static int
jstring(struct jcur *j, struct sc_buf *out)
{
	unsigned long c, lo;

	j->p++;
	while (j->p < j->end && *j->p != '"') {
		if (*j->p != '\\') {
			sc_buf_addch(out, *j->p++, NULL);
			continue;
		}
		if (++j->p >= j->end)
			return -1;
		switch (*j->p++) {
		case 'n':
			sc_buf_addch(out, '\n', NULL);
			break;
		case 't':
			sc_buf_addch(out, '\t', NULL);
			break;
		case 'r':
			sc_buf_addch(out, '\r', NULL);
			break;
		case 'b':
			sc_buf_addch(out, '\b', NULL);
			break;
		case 'f':
			sc_buf_addch(out, '\f', NULL);
			break;
		case 'u':
			if (hex4(j->p, j->end, &c) == -1)
				return -1;
			j->p += 4;
			if (c >= 0xd800 && c < 0xdc00 && j->end - j->p >= 6 &&
			    j->p[0] == '\\' && j->p[1] == 'u' &&
			    hex4(j->p + 2, j->end, &lo) == 0 && lo >= 0xdc00 &&
			    lo < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) +
				    (lo - 0xdc00);
				j->p += 6;
			}
			utf8_put(out, c);
			break;
		default:
			sc_buf_addch(out, j->p[-1], NULL);
			break;
		}
	}
	if (j->p >= j->end)
		return -1;
	j->p++;
	return 0;
}

/* A scalar token (number, true, false, null) as [*s, *s + *n). */
static void
jtoken(struct jcur *j, const char **s, size_t *n)
{
	*s = j->p;
	while (j->p < j->end &&
	    (isalnum((unsigned char)*j->p) || *j->p == '-' || *j->p == '+' ||
		*j->p == '.'))
		j->p++;
	*n = (size_t)(j->p - *s);
}

static int
unhex(const char *s, size_t n, struct sc_buf *out)
{
	size_t i;
	int hi, lo;

	if (n % 2 != 0)
		return -1;
	for (i = 0; i < n; i += 2) {
		if (!isxdigit((unsigned char)s[i]) ||
		    !isxdigit((unsigned char)s[i + 1]))
			return -1;
		hi = isdigit((unsigned char)s[i])
		    ? s[i] - '0'
		    : tolower((unsigned char)s[i]) - 'a' + 10;
		lo = isdigit((unsigned char)s[i + 1])
		    ? s[i + 1] - '0'
		    : tolower((unsigned char)s[i + 1]) - 'a' + 10;
		sc_buf_addch(out, (char)(hi << 4 | lo), NULL);
	}
	return 0;
}

static int put_value(struct jcur *j, struct sc_arrow_wnode *node,
    const struct sc_etype *t, int depth, struct sc_error *err);

/* A scalar: text s[0..n) (str: it was a JSON string) into node. */
static int
put_scalar(struct jcur *j, struct sc_arrow_wnode *node,
    const struct sc_etype *t, const char *s, size_t n, bool str,
    struct sc_error *err)
{
	char b[80];
	char *e;
	int64_t i64, hi;
	uint64_t lo;
	int32_t days;
	double d;
	struct sc_buf bin;
	int rc;

	if (t->t != SC_ARROW_UTF8 && t->t != SC_ARROW_BINARY) {
		if (n >= sizeof(b))
			return bad_value(j, t, err);
		memcpy(b, s, n);
		b[n] = '\0';
	}
	switch (t->t) {
	case SC_ARROW_BOOL:
		if (strcmp(b, "true") == 0 || strcmp(b, "1") == 0)
			return sc_arrow_wnode_bool(node, true, err);
		if (strcmp(b, "false") == 0 || strcmp(b, "0") == 0)
			return sc_arrow_wnode_bool(node, false, err);
		break;
	case SC_ARROW_INT8:
	case SC_ARROW_INT16:
	case SC_ARROW_INT32:
	case SC_ARROW_INT64:
		i64 = strtoll(b, &e, 10);
		if (*e == '.' || *e == 'e' || *e == 'E') {
			d = strtod(b, &e);
			if (*e != '\0' || d != trunc(d) || fabs(d) > 9e18)
				break;
			i64 = (int64_t)d;
		}
		if (*e != '\0' || n == 0)
			break;
		return sc_arrow_wnode_int64(node, i64, err);
	case SC_ARROW_FLOAT:
	case SC_ARROW_DOUBLE:
		d = strtod(b, &e);
		if (*e != '\0' || n == 0)
			break;
		return sc_arrow_wnode_double(node, d, err);
	case SC_ARROW_DECIMAL128:
		rc = sc_value_parse_decimal(b, n, t->prec, t->scale, &hi, &lo);
		if (rc == 0)
			return sc_arrow_wnode_decimal128(node, hi, lo, err);
		break;
	case SC_ARROW_UTF8:
		return sc_arrow_wnode_bytes(node, s, n, err);
	case SC_ARROW_BINARY:
		sc_buf_init(&bin, SC_BUF_UNLIMITED);
		rc = str ? unhex(s, n, &bin) : -1;
		if (rc == 0)
			rc = sc_arrow_wnode_bytes(node, bin.data, bin.len, err);
		else
			rc = bad_value(j, t, err);
		sc_buf_release(&bin);
		return rc;
	case SC_ARROW_DATE32:
		if (sc_value_parse_date(b, n, &days) == 0)
			return sc_arrow_wnode_int64(node, days, err);
		break;
	case SC_ARROW_TIMESTAMP_US:
		if (sc_value_parse_timestamp(b, n, &i64) == 0)
			return sc_arrow_wnode_int64(node, i64, err);
		break;
	default:
		break;
	}
	return bad_value(j, t, err);
}

static int
put_elems(struct jcur *j, struct sc_arrow_wnode *node, const struct sc_etype *t,
    int depth, struct sc_error *err)
{
	const struct sc_enest *n = t->nest;
	struct sc_arrow_wnode *ent;
	size_t i = 0;

	j->p++; /* '[' */
	jws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		goto end;
	}
	for (;;) {
		jws(j);
		if (n->kind == SC_ARROW_STRUCT) {
			if (i >= n->n ||
			    put_value(j, sc_arrow_wnode_child(node, i),
				&n->types[i], depth + 1, err) == -1)
				return i >= n->n ? bad_value(j, t, err) : -1;
		} else if (n->kind == SC_ARROW_LIST) {
			if (put_value(j, sc_arrow_wnode_child(node, 0),
				&n->types[0], depth + 1, err) == -1)
				return -1;
		} else {
			ent = sc_arrow_wnode_child(node, 0);
			if (j->p >= j->end || *j->p != '[')
				return bad_value(j, t, err);
			j->p++;
			jws(j);
			if (put_value(j, sc_arrow_wnode_child(ent, 0),
				&n->types[0], depth + 1, err) == -1)
				return -1;
			jws(j);
			if (j->p >= j->end || *j->p++ != ',')
				return bad_value(j, t, err);
			jws(j);
			if (put_value(j, sc_arrow_wnode_child(ent, 1),
				&n->types[1], depth + 1, err) == -1)
				return -1;
			jws(j);
			if (j->p >= j->end || *j->p++ != ']')
				return bad_value(j, t, err);
			if (sc_arrow_wnode_end(ent, err) == -1)
				return -1;
		}
		i++;
		jws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == ']') {
			j->p++;
			break;
		}
		return bad_value(j, t, err);
	}
end:
	if (n->kind == SC_ARROW_STRUCT && i != n->n)
		return bad_value(j, t, err);
	return sc_arrow_wnode_end(node, err);
}

static int
put_value(struct jcur *j, struct sc_arrow_wnode *node, const struct sc_etype *t,
    int depth, struct sc_error *err)
{
	struct sc_buf s;
	const char *tok;
	size_t n;
	int rc;

	if (depth > MAX_DEPTH)
		return bad_value(j, t, err);
	jws(j);
	if (j->p >= j->end)
		return bad_value(j, t, err);
	if (*j->p == '[') {
		if (t->nest == NULL)
			return bad_value(j, t, err);
		return put_elems(j, node, t, depth, err);
	}
	if (*j->p == '"') {
		if (t->nest != NULL)
			return bad_value(j, t, err);
		sc_buf_init(&s, SC_BUF_UNLIMITED);
		if (jstring(j, &s) == -1)
			rc = bad_value(j, t, err);
		else
			rc = put_scalar(j, node, t, (const char *)s.data, s.len,
			    true, err);
		sc_buf_release(&s);
		return rc;
	}
	jtoken(j, &tok, &n);
	if (n == 4 && strncmp(tok, "null", 4) == 0)
		return sc_arrow_wnode_null(node, err);
	if (n == 0 || t->nest != NULL)
		return bad_value(j, t, err);
	if (t->t == SC_ARROW_NULL)
		return bad_value(j, t, err);
	return put_scalar(j, node, t, tok, n, false, err);
}

int
sc_eng_nest_put(struct sc_arrow_writer *w, size_t col, const struct sc_ecol *c,
    const struct sc_eval *v, struct sc_error *err)
{
	struct sc_arrow_wnode *node;
	struct jcur j;

	if ((node = sc_arrow_writer_node(w, col, err)) == NULL)
		return -1;
	if (v->t != SQLITE_TEXT && v->t != SQLITE_BLOB)
		return sc_srv_error(err, "CAST_INVALID_INPUT", "22018",
		    "Column `%s` holds a value that is not a nested value.",
		    c->name);
	j.p = j.start = (const char *)v->p;
	j.end = j.p + v->n;
	if (put_value(&j, node, &c->type, 0, err) == -1)
		return -1;
	jws(&j);
	if (j.p != j.end)
		return bad_value(&j, &c->type, err);
	return 0;
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

static void
hex_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *p;
	char *s;
	int n, i;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	p = sqlite3_value_blob(argv[0]);
	n = sqlite3_value_bytes(argv[0]);
	if ((s = sqlite3_malloc64((sqlite3_uint64)n * 2 + 1)) == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	for (i = 0; i < n; i++) {
		s[2 * i] = hex[p[i] >> 4];
		s[2 * i + 1] = hex[p[i] & 15];
	}
	sqlite3_result_text(ctx, s, 2 * n, sqlite3_free);
}

static void
unhex_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct sc_buf b;
	const char *s;
	int n;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	s = (const char *)sqlite3_value_text(argv[0]);
	n = sqlite3_value_bytes(argv[0]);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	if (s != NULL && unhex(s, (size_t)n, &b) == 0)
		sqlite3_result_blob64(ctx, b.len > 0 ? b.data : (void *)"",
		    b.len, SQLITE_TRANSIENT);
	sc_buf_release(&b);
}

/* sc_raise('[CLASS] text SQLSTATE: xxxxx'): fail the statement. */
static void
raise_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s;

	(void)argc;
	s = (const char *)sqlite3_value_text(argv[0]);
	sqlite3_result_error(ctx, s != NULL ? s : "error", -1);
}

/* ------------------------------------------------------------------ */
/* sc_each(json): the elements of a JSON array, as json_each() gives   */
/* them but under names no user column has (_sc_k, _sc_v, _sc_t), so   */
/* a column named id, key or value outside stays visible inside.       */
/* ------------------------------------------------------------------ */

enum { ECOL_K = 0, ECOL_V, ECOL_T, ECOL_JSON };

struct ecursor {
	sqlite3_vtab_cursor base;
	char *text; /* a copy of the argument */
	size_t len;
	size_t pos; /* the current element's start */
	size_t end; /* and end */
	bool eof;
	int64_t k;
};

/* Past the JSON value at p (strings, brackets), or NULL if cut short. */
static const char *
jskip_value(const char *p, const char *end)
{
	int depth = 0;

	do {
		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p >= end)
			return NULL;
		if (*p == '"') {
			for (p++; p < end && *p != '"'; p++)
				if (*p == '\\')
					p++;
			if (p >= end)
				return NULL;
			p++;
		} else if (*p == '[' || *p == '{') {
			depth++;
			p++;
			continue;
		} else if (*p == ']' || *p == '}') {
			if (--depth < 0)
				return NULL;
			p++;
		} else if (*p == ',' || *p == ':') {
			p++;
			continue;
		} else {
			while (p < end && *p != ',' && *p != ']' && *p != '}' &&
			    *p != ':' && !isspace((unsigned char)*p))
				p++;
		}
	} while (depth > 0);
	return p;
}

/* Find the element at c->pos (after '[' or ','): sets end or eof. */
static void
e_seek(struct ecursor *c)
{
	const char *b = c->text, *p = b + c->pos, *end = b + c->len, *q;

	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p >= end || *p == ']') {
		c->eof = true;
		return;
	}
	if ((q = jskip_value(p, end)) == NULL) {
		c->eof = true;
		return;
	}
	c->pos = (size_t)(p - b);
	c->end = (size_t)(q - b);
}

static int
e_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **vt, char **errp)
{
	sqlite3_vtab *v;
	int rc;

	(void)aux;
	(void)argc;
	(void)argv;
	(void)errp;
	rc = sqlite3_declare_vtab(db,
	    "CREATE TABLE x(_sc_k INTEGER, _sc_v, _sc_t TEXT, json HIDDEN)");
	if (rc != SQLITE_OK)
		return rc;
	if ((v = sqlite3_malloc(sizeof(*v))) == NULL)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	*vt = v;
	return SQLITE_OK;
}

static int
e_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

static int
e_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
	int i;

	(void)v;
	for (i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *ct =
		    &info->aConstraint[i];

		if (ct->iColumn != ECOL_JSON ||
		    ct->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		if (!ct->usable)
			return SQLITE_CONSTRAINT;
		info->aConstraintUsage[i].argvIndex = 1;
		info->aConstraintUsage[i].omit = 1;
		info->estimatedCost = 10;
		info->estimatedRows = 10;
		info->idxNum = 1;
		return SQLITE_OK;
	}
	info->idxNum = 0;
	info->estimatedCost = 1e12;
	return SQLITE_OK;
}

static int
e_open(sqlite3_vtab *v, sqlite3_vtab_cursor **cp)
{
	struct ecursor *c = sqlite3_malloc(sizeof(*c));

	(void)v;
	if (c == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*cp = &c->base;
	return SQLITE_OK;
}

static int
e_close(sqlite3_vtab_cursor *cp)
{
	struct ecursor *c = (struct ecursor *)cp;

	free(c->text);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int
e_filter(sqlite3_vtab_cursor *cp, int idxnum, const char *idxstr, int argc,
    sqlite3_value **argv)
{
	struct ecursor *c = (struct ecursor *)cp;
	const char *s;
	size_t i;

	(void)idxstr;
	free(c->text);
	c->text = NULL;
	c->eof = true;
	c->k = 0;
	if (idxnum != 1 || argc != 1 ||
	    (s = (const char *)sqlite3_value_text(argv[0])) == NULL)
		return SQLITE_OK;
	c->len = (size_t)sqlite3_value_bytes(argv[0]);
	c->text = sc_xmalloc(c->len + 1);
	memcpy(c->text, s, c->len);
	c->text[c->len] = '\0';
	for (i = 0; i < c->len && isspace((unsigned char)c->text[i]); i++)
		;
	if (i >= c->len || c->text[i] != '[')
		return SQLITE_OK;
	c->eof = false;
	c->pos = i + 1;
	e_seek(c);
	return SQLITE_OK;
}

static int
e_next(sqlite3_vtab_cursor *cp)
{
	struct ecursor *c = (struct ecursor *)cp;
	size_t p = c->end;

	while (p < c->len && isspace((unsigned char)c->text[p]))
		p++;
	if (p >= c->len || c->text[p] != ',') {
		c->eof = true;
		return SQLITE_OK;
	}
	c->pos = p + 1;
	c->k++;
	e_seek(c);
	return SQLITE_OK;
}

static int
e_eof(sqlite3_vtab_cursor *cp)
{
	return ((struct ecursor *)cp)->eof;
}

static int
e_column(sqlite3_vtab_cursor *cp, sqlite3_context *ctx, int col)
{
	struct ecursor *c = (struct ecursor *)cp;
	const char *p = c->text + c->pos;
	size_t n = c->end - c->pos;
	struct jcur j;
	struct sc_buf b;
	char num[64], *e;
	long long ll;
	const char *type;

	switch (*p) {
	case '"':
		type = "text";
		break;
	case '[':
		type = "array";
		break;
	case '{':
		type = "object";
		break;
	case 'n':
		type = "null";
		break;
	case 't':
		type = "true";
		break;
	case 'f':
		type = "false";
		break;
	default:
		type = memchr(p, '.', n) != NULL || memchr(p, 'e', n) != NULL ||
			memchr(p, 'E', n) != NULL
		    ? "real"
		    : "integer";
		break;
	}
	switch (col) {
	case ECOL_K:
		sqlite3_result_int64(ctx, c->k);
		return SQLITE_OK;
	case ECOL_T:
		sqlite3_result_text(ctx, type, -1, SQLITE_STATIC);
		return SQLITE_OK;
	case ECOL_V:
		break;
	default:
		sqlite3_result_text(ctx, c->text, (int)c->len,
		    SQLITE_TRANSIENT);
		return SQLITE_OK;
	}
	if (*p == '"') {
		j.p = j.start = p;
		j.end = p + n;
		sc_buf_init(&b, SC_BUF_UNLIMITED);
		if (jstring(&j, &b) == 0)
			sqlite3_result_text64(ctx, (const char *)b.data, b.len,
			    SQLITE_TRANSIENT, SQLITE_UTF8);
		sc_buf_release(&b);
	} else if (*p == '[' || *p == '{') {
		sqlite3_result_text(ctx, p, (int)n, SQLITE_TRANSIENT);
		sqlite3_result_subtype(ctx, 'J');
	} else if (*p == 't' || *p == 'f') {
		sqlite3_result_int(ctx, *p == 't');
	} else if (*p != 'n' && n < sizeof(num)) {
		memcpy(num, p, n);
		num[n] = '\0';
		ll = strtoll(num, &e, 10);
		if (*e == '\0')
			sqlite3_result_int64(ctx, ll);
		else
			sqlite3_result_double(ctx, strtod(num, NULL));
	}
	return SQLITE_OK;
}

static int
e_rowid(sqlite3_vtab_cursor *cp, sqlite3_int64 *rowid)
{
	*rowid = ((struct ecursor *)cp)->k;
	return SQLITE_OK;
}

static const sqlite3_module each_module = {
	.iVersion = 0,
	.xCreate = NULL, /* eponymous only */
	.xConnect = e_connect,
	.xBestIndex = e_best_index,
	.xDisconnect = e_disconnect,
	.xDestroy = e_disconnect,
	.xOpen = e_open,
	.xClose = e_close,
	.xFilter = e_filter,
	.xNext = e_next,
	.xEof = e_eof,
	.xColumn = e_column,
	.xRowid = e_rowid,
};

int
sc_eng_nest_register(sqlite3 *db)
{
	int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC, rc;

	rc = sqlite3_create_module_v2(db, "sc_each", &each_module, NULL, NULL);
	if (rc != SQLITE_OK)
		return rc;

	rc = sqlite3_create_function_v2(db, "sc_hex", 1, flags, NULL, hex_fn,
	    NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_unhex", 1, flags, NULL,
		    unhex_fn, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_raise", 1, SQLITE_UTF8,
		    NULL, raise_fn, NULL, NULL, NULL);
	return rc;
}
