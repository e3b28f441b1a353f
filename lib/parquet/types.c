/* SPDX-License-Identifier: MIT */

/*
 * types.c: Spark types for Parquet columns: building, copying, freeing,
 * and their DDL text both ways ("a int, b array<string> not null").
 */

#include "parquet/parquet.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "parquet/pq_int.h"
#include "core/banned.h"

struct sc_parquet_type *
pq_type_new(int kind)
{
	struct sc_parquet_type *t = sc_xcalloc(1, sizeof(*t));

	t->kind = kind;
	t->nullable = true;
	return t;
}

void
pq_type_add(struct sc_parquet_type *parent, struct sc_parquet_type *c)
{
	parent->child = sc_xreallocarray(parent->child, parent->nchild + 1,
	    sizeof(*parent->child));
	parent->child[parent->nchild++] = c;
}

struct sc_parquet_type *
pq_type_copy(const struct sc_parquet_type *t)
{
	struct sc_parquet_type *c = pq_type_new(t->kind);
	size_t i;

	c->precision = t->precision;
	c->scale = t->scale;
	c->nullable = t->nullable;
	c->name = t->name ? sc_xstrdup(t->name) : NULL;
	for (i = 0; i < t->nchild; i++)
		pq_type_add(c, pq_type_copy(t->child[i]));
	return c;
}

void
sc_parquet_type_free(struct sc_parquet_type *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->nchild; i++)
		sc_parquet_type_free(t->child[i]);
	free(t->child);
	free(t->name);
	free(t);
}

int
pq_decimal_bytes(int precision)
{
	/* The fewest bytes whose signed range holds 10^p - 1. */
	static const int bytes[39] = { 1, 1, 1, 2, 2, 3, 3, 4, 4, 4, 5, 5, 6, 6,
		6, 7, 7, 8, 8, 9, 9, 9, 10, 10, 11, 11, 11, 12, 12, 13, 13, 13,
		14, 14, 15, 15, 16, 16, 16 };

	return precision >= 0 && precision <= 38 ? bytes[precision] : 16;
}

/* --- DDL ----------------------------------------------------------- */

struct ddl {
	const char *p;
	const char *start;
	struct sc_error *err;
	int depth;
};

static void
dws(struct ddl *d)
{
	while (isspace((unsigned char)*d->p))
		d->p++;
}

static int
dfail(struct ddl *d, const char *what)
{
	return sc_error_set(d->err, SC_ST_USAGE,
	    "cannot parse schema '%s' at offset %zu: %s", d->start,
	    (size_t)(d->p - d->start), what);
}

/* An identifier or `quoted` name into a new string. */
static char *
dname(struct ddl *d)
{
	struct sc_buf b;
	const char *s;

	dws(d);
	if (*d->p == '`') {
		sc_buf_init(&b, SC_BUF_UNLIMITED);
		for (d->p++; *d->p != '\0'; d->p++) {
			if (*d->p == '`') {
				if (d->p[1] != '`')
					break;
				d->p++;
			}
			(void)sc_buf_addch(&b, *d->p, NULL);
		}
		if (*d->p != '`') {
			sc_buf_release(&b);
			dfail(d, "unterminated `name`");
			return NULL;
		}
		d->p++;
		return (char *)sc_buf_detach(&b, NULL);
	}
	s = d->p;
	while (isalnum((unsigned char)*d->p) || *d->p == '_')
		d->p++;
	if (d->p == s) {
		dfail(d, "expected a name");
		return NULL;
	}
	return sc_xstrndup(s, (size_t)(d->p - s));
}

static bool
dword(struct ddl *d, const char *w)
{
	size_t n = strlen(w);

	dws(d);
	if (strncasecmp(d->p, w, n) != 0 || isalnum((unsigned char)d->p[n]) ||
	    d->p[n] == '_')
		return false;
	d->p += n;
	return true;
}

static bool
dch(struct ddl *d, char c)
{
	dws(d);
	if (*d->p != c)
		return false;
	d->p++;
	return true;
}

static int
dint(struct ddl *d, int *v)
{
	long x = 0;

	dws(d);
	if (!isdigit((unsigned char)*d->p))
		return dfail(d, "expected a number");
	while (isdigit((unsigned char)*d->p)) {
		x = x * 10 + (*d->p++ - '0');
		if (x > 1000)
			return dfail(d, "number too large");
	}
	*v = (int)x;
	return 0;
}

static struct sc_parquet_type *dtype(struct ddl *d);

/* c next, or -1 and "expected 'c'". */
static int
dexpect(struct ddl *d, char c)
{
	char what[16];

	if (dch(d, c))
		return 0;
	(void)snprintf(what, sizeof(what), "expected '%c'", c);
	return dfail(d, what);
}

/* A type as t's next child, then the character close. */
static int
dchild(struct ddl *d, struct sc_parquet_type *t, char close)
{
	struct sc_parquet_type *c;

	if ((c = dtype(d)) == NULL)
		return -1;
	pq_type_add(t, c);
	return dexpect(d, close);
}

/* "name[:] type [not null]" into t's children, until close. */
static int
dfields(struct ddl *d, struct sc_parquet_type *t, char close, bool colon)
{
	struct sc_parquet_type *c;
	char *name;

	for (;;) {
		if ((name = dname(d)) == NULL)
			return -1;
		if (colon)
			(void)dch(d, ':');
		if ((c = dtype(d)) == NULL) {
			free(name);
			return -1;
		}
		c->name = name;
		if (dword(d, "not")) {
			if (!dword(d, "null")) {
				sc_parquet_type_free(c);
				return dfail(d, "expected NULL after NOT");
			}
			c->nullable = false;
		}
		if (dword(d, "comment")) {
			sc_parquet_type_free(c);
			return dfail(d, "comments are not supported");
		}
		pq_type_add(t, c);
		if (dch(d, ','))
			continue;
		dws(d);
		if (*d->p == close)
			return 0;
		return dfail(d,
		    close == '>' ? "expected ',' or '>'"
				 : "expected ',' or the end");
	}
}

static struct sc_parquet_type *
dtype(struct ddl *d)
{
	static const struct {
		const char *name;
		int kind;
	} simple[] = {
		{ "boolean", SC_VALUE_BOOLEAN },
		{ "tinyint", SC_VALUE_BYTE },
		{ "byte", SC_VALUE_BYTE },
		{ "smallint", SC_VALUE_SHORT },
		{ "short", SC_VALUE_SHORT },
		{ "integer", SC_VALUE_INT },
		{ "int", SC_VALUE_INT },
		{ "bigint", SC_VALUE_LONG },
		{ "long", SC_VALUE_LONG },
		{ "float", SC_VALUE_FLOAT },
		{ "real", SC_VALUE_FLOAT },
		{ "double", SC_VALUE_DOUBLE },
		{ "string", SC_VALUE_STRING },
		{ "binary", SC_VALUE_BINARY },
		{ "date", SC_VALUE_DATE },
		{ "timestamp_ntz", SC_VALUE_TIMESTAMP_NTZ },
		{ "timestamp_ltz", SC_VALUE_TIMESTAMP },
		{ "timestamp", SC_VALUE_TIMESTAMP },
	};
	struct sc_parquet_type *t = NULL;
	size_t i;
	int n;

	if (++d->depth > SC_PARQUET_MAX_DEPTH) {
		dfail(d, "types nested too deep");
		return NULL;
	}
	if (dword(d, "decimal") || dword(d, "dec") || dword(d, "numeric")) {
		t = pq_type_new(SC_VALUE_DECIMAL);
		t->precision = 10;
		if (dch(d, '(')) {
			if (dint(d, &t->precision) == -1)
				goto fail;
			if (dch(d, ',') && dint(d, &t->scale) == -1)
				goto fail;
			if (dexpect(d, ')') == -1)
				goto fail;
		}
		if (t->precision < 1 || t->precision > 38 ||
		    t->scale > t->precision) {
			dfail(d,
			    "decimal precision must be 1 to 38 and its scale at most the precision");
			goto fail;
		}
	} else if (dword(d, "varchar") || dword(d, "char")) {
		t = pq_type_new(SC_VALUE_STRING);
		if (!dch(d, '(') || dint(d, &n) == -1 || !dch(d, ')')) {
			dfail(d, "expected (length)");
			goto fail;
		}
	} else if (dword(d, "array")) {
		t = pq_type_new(SC_VALUE_ARRAY);
		if (dexpect(d, '<') == -1 || dchild(d, t, '>') == -1)
			goto fail;
	} else if (dword(d, "map")) {
		t = pq_type_new(SC_VALUE_MAP);
		if (dexpect(d, '<') == -1 || dchild(d, t, ',') == -1 ||
		    dchild(d, t, '>') == -1)
			goto fail;
		t->child[0]->nullable = false;
	} else if (dword(d, "struct")) {
		t = pq_type_new(SC_VALUE_STRUCT);
		if (dexpect(d, '<') == -1)
			goto fail;
		if (!dch(d, '>')) {
			if (dfields(d, t, '>', true) == -1)
				goto fail;
			d->p++;
		}
	} else {
		for (i = 0; i < SC_NELEM(simple); i++)
			if (dword(d, simple[i].name)) {
				t = pq_type_new(simple[i].kind);
				break;
			}
		if (t == NULL) {
			dfail(d, "unknown type");
			return NULL;
		}
	}
	d->depth--;
	return t;
fail:
	sc_parquet_type_free(t);
	return NULL;
}

struct sc_parquet_type *
sc_parquet_type_parse(const char *text, struct sc_error *err)
{
	struct ddl d = { text, text, err, 0 };
	struct sc_parquet_type *t = pq_type_new(SC_VALUE_STRUCT);

	if (dfields(&d, t, '\0', false) == -1) {
		sc_parquet_type_free(t);
		return NULL;
	}
	return t;
}

static void
add_name(struct sc_buf *out, const char *name)
{
	const char *p;
	bool plain = name[0] != '\0' && !isdigit((unsigned char)name[0]);

	for (p = name; *p != '\0' && plain; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			plain = false;
	if (plain) {
		(void)sc_buf_addstr(out, name, NULL);
		return;
	}
	(void)sc_buf_addch(out, '`', NULL);
	for (p = name; *p != '\0'; p++) {
		if (*p == '`')
			(void)sc_buf_addch(out, '`', NULL);
		(void)sc_buf_addch(out, *p, NULL);
	}
	(void)sc_buf_addch(out, '`', NULL);
}

void
sc_parquet_type_simple(const struct sc_parquet_type *t, struct sc_buf *out)
{
	size_t i;

	switch (t->kind) {
	case SC_VALUE_ARRAY:
		(void)sc_buf_addstr(out, "array<", NULL);
		sc_parquet_type_simple(t->child[0], out);
		(void)sc_buf_addch(out, '>', NULL);
		return;
	case SC_VALUE_MAP:
		(void)sc_buf_addstr(out, "map<", NULL);
		sc_parquet_type_simple(t->child[0], out);
		(void)sc_buf_addch(out, ',', NULL);
		sc_parquet_type_simple(t->child[1], out);
		(void)sc_buf_addch(out, '>', NULL);
		return;
	case SC_VALUE_STRUCT:
		(void)sc_buf_addstr(out, "struct<", NULL);
		for (i = 0; i < t->nchild; i++) {
			if (i > 0)
				(void)sc_buf_addch(out, ',', NULL);
			add_name(out, t->child[i]->name);
			(void)sc_buf_addch(out, ':', NULL);
			sc_parquet_type_simple(t->child[i], out);
		}
		(void)sc_buf_addch(out, '>', NULL);
		return;
	default:
		(void)sc_value_type_name(t->kind, t->precision, t->scale,
		    SC_VALUE_SIMPLE, out, NULL);
		return;
	}
}

void
sc_parquet_type_ddl(const struct sc_parquet_type *t, struct sc_buf *out)
{
	size_t i;

	for (i = 0; i < t->nchild; i++) {
		if (i > 0)
			(void)sc_buf_addstr(out, ", ", NULL);
		add_name(out, t->child[i]->name);
		(void)sc_buf_addch(out, ' ', NULL);
		sc_parquet_type_simple(t->child[i], out);
		if (!t->child[i]->nullable)
			(void)sc_buf_addstr(out, " not null", NULL);
	}
}
