/* SPDX-License-Identifier: MIT */

/*
 * engine_nested_value.c: nested values at run time.  The JSON text a
 * struct, array or map value is in SQLite (engine_nested.c) goes into
 * Arrow struct, list and map columns; sc_each() gives the elements of
 * such a value as rows; sc_hex(), sc_unhex() and sc_raise() are the
 * scalar helpers the generated SQL calls.
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
#include "core/hex.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

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
	int i, d;

	*v = 0;
	if (end - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		if ((d = sc_hex_digit((unsigned char)p[i])) == -1)
			return -1;
		*v = *v * 16 + (unsigned long)d;
	}
	return 0;
}

/*
 * A JSON string at *pos (the quote) into out, unescaped (\u escapes and
 * surrogate pairs as UTF-8); *pos past the closing quote: 0 or -1.
 */
int
sc_eng_json_string(const char **pos, const char *end, struct sc_buf *out)
{
	struct jcur cur = { *pos, end, *pos }, *j = &cur;
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
	*pos = j->p + 1;
	return 0;
}

static int
jstring(struct jcur *j, struct sc_buf *out)
{
	return sc_eng_json_string(&j->p, j->end, out);
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
	uint8_t c;

	if (n % 2 != 0)
		return -1;
	for (i = 0; i < n; i += 2) {
		if (sc_hex_decode(s + i, 1, &c) == -1)
			return -1;
		sc_buf_addch(out, (char)c, NULL);
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

	if (depth > SC_ENG_NEST_MAX_DEPTH)
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

/* A copy of an argument's text, shared by cursors and the table. */
struct etext {
	unsigned refs;
	size_t len;
	char data[];
};

/* Where a lookup by _sc_k found element kk of text. */
struct ekept {
	struct etext *text; /* NULL: nothing kept */
	size_t pos, end;
	int64_t k;
};

/*
 * The table (one per connection) keeps the last lookup's place, so the
 * next one in the same array goes on from there even from a new cursor
 * (a fold's steps each open one): a walk over the array, not a scan per
 * element.
 */
struct evtab {
	sqlite3_vtab base;
	struct ekept kept;
};

struct ecursor {
	sqlite3_vtab_cursor base;
	struct etext *t; /* the argument */
	const char *text; /* t->data */
	size_t len;
	size_t pos; /* the current element's start */
	size_t end; /* and end */
	bool eof;
	int64_t k;
	bool one; /* a lookup by _sc_k: one row */
};

static void
etext_unref(struct etext *t)
{
	if (t != NULL && --t->refs == 0)
		free(t);
}

static struct etext *
etext_new(const char *s, size_t n)
{
	struct etext *t = sc_xmalloc(sizeof(*t) + n + 1);

	t->refs = 1;
	t->len = n;
	memcpy(t->data, s, n);
	t->data[n] = '\0';
	return t;
}

/* Past the JSON value at p (strings, brackets), or NULL if cut short. */
const char *
sc_eng_json_skip(const char *p, const char *end)
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
	if ((q = sc_eng_json_skip(p, end)) == NULL) {
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
	struct evtab *v;
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
	*vt = &v->base;
	return SQLITE_OK;
}

static int
e_disconnect(sqlite3_vtab *vt)
{
	struct evtab *v = (struct evtab *)vt;

	etext_unref(v->kept.text);
	sqlite3_free(v);
	return SQLITE_OK;
}

static int
e_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
	int i, json = -1, key = -1;

	(void)v;
	for (i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *ct =
		    &info->aConstraint[i];

		if (ct->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		if (ct->iColumn == ECOL_JSON) {
			if (!ct->usable)
				return SQLITE_CONSTRAINT;
			json = i;
		} else if (ct->iColumn == ECOL_K && ct->usable) {
			key = i;
		}
	}
	if (json < 0) {
		info->idxNum = 0;
		info->estimatedCost = 1e12;
		return SQLITE_OK;
	}
	info->aConstraintUsage[json].argvIndex = 1;
	info->aConstraintUsage[json].omit = 1;
	info->estimatedCost = 10;
	info->estimatedRows = 10;
	info->idxNum = 1;
	if (key >= 0) {
		/* One element by position (zip_with, aggregate's steps). */
		info->aConstraintUsage[key].argvIndex = 2;
		info->aConstraintUsage[key].omit = 1;
		info->estimatedCost = 2;
		info->estimatedRows = 1;
		info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
		info->idxNum = 3;
	}
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

	etext_unref(c->t);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* The element _sc_k = key of c's text, from the place kept if it can. */
static void
e_lookup(struct ecursor *c, struct ekept *kept, int64_t key)
{
	size_t i;

	if (kept->text == c->t && key >= kept->k) {
		c->k = kept->k;
		c->pos = kept->pos;
		c->end = kept->end;
		c->eof = false;
	} else {
		for (i = 0; i < c->len && isspace((unsigned char)c->text[i]);
		     i++)
			;
		if (i >= c->len || c->text[i] != '[')
			return;
		c->k = 0;
		c->eof = false;
		c->pos = i + 1;
		e_seek(c);
	}
	while (!c->eof && c->k < key) {
		size_t p = c->end;

		while (p < c->len && isspace((unsigned char)c->text[p]))
			p++;
		if (p >= c->len || c->text[p] != ',') {
			c->eof = true;
			break;
		}
		c->pos = p + 1;
		c->k++;
		e_seek(c);
	}
	if (c->eof)
		return;
	if (kept->text != c->t) {
		etext_unref(kept->text);
		kept->text = c->t;
		c->t->refs++;
	}
	kept->k = c->k;
	kept->pos = c->pos;
	kept->end = c->end;
}

static int
e_filter(sqlite3_vtab_cursor *cp, int idxnum, const char *idxstr, int argc,
    sqlite3_value **argv)
{
	struct ecursor *c = (struct ecursor *)cp;
	struct ekept *kept = &((struct evtab *)cp->pVtab)->kept;
	const char *s;
	size_t i, n;
	int64_t key;

	(void)idxstr;
	c->eof = true;
	c->one = false;
	if ((idxnum & 1) == 0 || argc < 1 ||
	    (s = (const char *)sqlite3_value_text(argv[0])) == NULL) {
		etext_unref(c->t);
		c->t = NULL;
		c->text = NULL;
		c->len = 0;
		return SQLITE_OK;
	}
	n = (size_t)sqlite3_value_bytes(argv[0]);
	/* The same text as this cursor's, or as the place kept: shared. */
	if (c->t == NULL || c->t->len != n || memcmp(c->t->data, s, n) != 0) {
		etext_unref(c->t);
		if (kept->text != NULL && kept->text->len == n &&
		    memcmp(kept->text->data, s, n) == 0) {
			c->t = kept->text;
			c->t->refs++;
		} else {
			c->t = etext_new(s, n);
		}
	}
	c->text = c->t->data;
	c->len = c->t->len;
	c->k = 0;
	if (idxnum & 2) {
		c->one = true;
		if (argc < 2 || sqlite3_value_type(argv[1]) == SQLITE_NULL)
			return SQLITE_OK;
		key = sqlite3_value_int64(argv[1]);
		if (key < 0 ||
		    (sqlite3_value_type(argv[1]) == SQLITE_FLOAT &&
			(double)key != sqlite3_value_double(argv[1])))
			return SQLITE_OK;
		e_lookup(c, kept, key);
		return SQLITE_OK;
	}
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

	if (c->one) {
		c->eof = true;
		return SQLITE_OK;
	}
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

void
sc_eng_json_elem(sqlite3_context *ctx, const char *p, size_t n, bool type_col)
{
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
	if (type_col) {
		sqlite3_result_text(ctx, type, -1, SQLITE_STATIC);
		return;
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
}

static int
e_column(sqlite3_vtab_cursor *cp, sqlite3_context *ctx, int col)
{
	struct ecursor *c = (struct ecursor *)cp;

	switch (col) {
	case ECOL_K:
		sqlite3_result_int64(ctx, c->k);
		return SQLITE_OK;
	case ECOL_T:
	case ECOL_V:
		sc_eng_json_elem(ctx, c->text + c->pos, c->end - c->pos,
		    col == ECOL_T);
		return SQLITE_OK;
	default:
		sqlite3_result_text(ctx, c->text, (int)c->len,
		    SQLITE_TRANSIENT);
		return SQLITE_OK;
	}
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
	if (rc == SQLITE_OK)
		rc = sc_eng_zip_register(db);
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
