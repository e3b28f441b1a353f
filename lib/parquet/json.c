/* SPDX-License-Identifier: MIT */

/*
 * json.c: RFC 8259 JSON into a tree, for rows given as text.  Nesting
 * is bounded (SC_PARQUET_MAX_DEPTH + 2), so no input recurses deeply.
 */

#include "parquet/json.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "parquet/parquet.h"
#include "core/banned.h"

struct jp {
	const char *p, *start, *end;
	struct sc_error *err;
	int depth;
};

static int
jfail(struct jp *j, const char *what)
{
	return sc_error_set(j->err, SC_ST_USAGE,
	    "malformed JSON at byte %zu: %s", (size_t)(j->p - j->start), what);
}

static void
ws(struct jp *j)
{
	while (j->p < j->end &&
	    (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int
hex4(struct jp *j, unsigned *u)
{
	int k, c;

	*u = 0;
	if (j->end - j->p < 4)
		return jfail(j, "short \\u escape");
	for (k = 0; k < 4; k++) {
		c = j->p[k];
		*u <<= 4;
		if (c >= '0' && c <= '9')
			*u |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*u |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*u |= (unsigned)(c - 'A' + 10);
		else
			return jfail(j, "bad \\u escape");
	}
	j->p += 4;
	return 0;
}

static void
put_utf8(struct sc_buf *b, unsigned u)
{
	uint8_t o[4];
	size_t n;

	if (u < 0x80) {
		o[0] = (uint8_t)u;
		n = 1;
	} else if (u < 0x800) {
		o[0] = (uint8_t)(0xc0 | (u >> 6));
		o[1] = (uint8_t)(0x80 | (u & 0x3f));
		n = 2;
	} else if (u < 0x10000) {
		o[0] = (uint8_t)(0xe0 | (u >> 12));
		o[1] = (uint8_t)(0x80 | ((u >> 6) & 0x3f));
		o[2] = (uint8_t)(0x80 | (u & 0x3f));
		n = 3;
	} else {
		o[0] = (uint8_t)(0xf0 | (u >> 18));
		o[1] = (uint8_t)(0x80 | ((u >> 12) & 0x3f));
		o[2] = (uint8_t)(0x80 | ((u >> 6) & 0x3f));
		o[3] = (uint8_t)(0x80 | (u & 0x3f));
		n = 4;
	}
	(void)sc_buf_add(b, o, n, NULL);
}

static int
jstring(struct jp *j, struct sc_pq_json *v)
{
	struct sc_buf b;
	unsigned u, lo;
	char c;

	j->p++; /* the quote */
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	for (;;) {
		if (j->p >= j->end) {
			sc_buf_release(&b);
			return jfail(j, "unterminated string");
		}
		c = *j->p++;
		if (c == '"')
			break;
		if ((unsigned char)c < 0x20) {
			sc_buf_release(&b);
			return jfail(j, "control character in a string");
		}
		if (c != '\\') {
			(void)sc_buf_addch(&b, c, NULL);
			continue;
		}
		if (j->p >= j->end) {
			sc_buf_release(&b);
			return jfail(j, "unterminated string");
		}
		c = *j->p++;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			(void)sc_buf_addch(&b, c, NULL);
			break;
		case 'b':
			(void)sc_buf_addch(&b, '\b', NULL);
			break;
		case 'f':
			(void)sc_buf_addch(&b, '\f', NULL);
			break;
		case 'n':
			(void)sc_buf_addch(&b, '\n', NULL);
			break;
		case 'r':
			(void)sc_buf_addch(&b, '\r', NULL);
			break;
		case 't':
			(void)sc_buf_addch(&b, '\t', NULL);
			break;
		case 'u':
			if (hex4(j, &u) == -1) {
				sc_buf_release(&b);
				return -1;
			}
			if (u >= 0xd800 && u < 0xdc00 && j->end - j->p >= 6 &&
			    j->p[0] == '\\' && j->p[1] == 'u') {
				j->p += 2;
				if (hex4(j, &lo) == -1) {
					sc_buf_release(&b);
					return -1;
				}
				if (lo >= 0xdc00 && lo < 0xe000)
					u = 0x10000 + ((u - 0xd800) << 10) +
					    (lo - 0xdc00);
				else {
					put_utf8(&b, 0xfffd);
					u = lo;
				}
			}
			if (u >= 0xd800 && u < 0xe000)
				u = 0xfffd;
			put_utf8(&b, u);
			break;
		default:
			sc_buf_release(&b);
			return jfail(j, "bad escape");
		}
	}
	v->kind = SC_PQ_JSON_STRING;
	v->s = (char *)sc_buf_detach(&b, &v->len);
	return 0;
}

static int
jnumber(struct jp *j, struct sc_pq_json *v)
{
	const char *s = j->p;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return jfail(j, "bad number");
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return jfail(j, "bad number");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return jfail(j, "bad number");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	v->kind = SC_PQ_JSON_NUMBER;
	v->len = (size_t)(j->p - s);
	v->s = sc_xstrndup(s, v->len);
	return 0;
}

static bool
word(struct jp *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
		return false;
	j->p += n;
	return true;
}

static int jvalue(struct jp *j, struct sc_pq_json *v);

static int
jitems(struct jp *j, struct sc_pq_json *v, bool object)
{
	struct sc_pq_json key;
	size_t cap = 0;
	char close = object ? '}' : ']';

	if (++j->depth > SC_PARQUET_MAX_DEPTH + 2)
		return jfail(j, "nested too deep");
	v->kind = object ? SC_PQ_JSON_OBJECT : SC_PQ_JSON_ARRAY;
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		if (v->n == cap) {
			cap = cap ? cap * 2 : 4;
			v->item =
			    sc_xreallocarray(v->item, cap, sizeof(*v->item));
			if (object)
				v->key = sc_xreallocarray(v->key, cap,
				    sizeof(*v->key));
		}
		memset(&v->item[v->n], 0, sizeof(v->item[v->n]));
		if (object) {
			ws(j);
			memset(&key, 0, sizeof(key));
			if (j->p >= j->end || *j->p != '"')
				return jfail(j, "expected a member name");
			if (jstring(j, &key) == -1)
				return -1;
			v->key[v->n] = key.s;
			v->n++;
			ws(j);
			if (j->p >= j->end || *j->p != ':')
				return jfail(j, "expected ':'");
			j->p++;
			if (jvalue(j, &v->item[v->n - 1]) == -1)
				return -1;
		} else {
			v->n++;
			if (jvalue(j, &v->item[v->n - 1]) == -1)
				return -1;
		}
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			break;
		}
		return jfail(j,
		    object ? "expected ',' or '}'" : "expected ',' or ']'");
	}
	j->depth--;
	return 0;
}

static int
jvalue(struct jp *j, struct sc_pq_json *v)
{
	ws(j);
	if (j->p >= j->end)
		return jfail(j, "expected a value");
	switch (*j->p) {
	case '"':
		return jstring(j, v);
	case '[':
		return jitems(j, v, false);
	case '{':
		return jitems(j, v, true);
	case 'n':
		v->kind = SC_PQ_JSON_NULL;
		return word(j, "null") ? 0 : jfail(j, "expected a value");
	case 't':
		v->kind = SC_PQ_JSON_TRUE;
		return word(j, "true") ? 0 : jfail(j, "expected a value");
	case 'f':
		v->kind = SC_PQ_JSON_FALSE;
		return word(j, "false") ? 0 : jfail(j, "expected a value");
	default:
		return jnumber(j, v);
	}
}

static void
release(struct sc_pq_json *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		release(&v->item[i]);
		if (v->key != NULL)
			free(v->key[i]);
	}
	free(v->item);
	free(v->key);
	free(v->s);
}

void
sc_pq_json_free(struct sc_pq_json *v)
{
	if (v == NULL)
		return;
	release(v);
	free(v);
}

struct sc_pq_json *
sc_pq_json_parse(const char *text, size_t n, struct sc_error *err)
{
	struct sc_pq_json *v = sc_xcalloc(1, sizeof(*v));
	struct jp j = { text, text, text + n, err, 0 };

	if (jvalue(&j, v) == -1) {
		sc_pq_json_free(v);
		return NULL;
	}
	ws(&j);
	if (j.p != j.end) {
		jfail(&j, "text after the value");
		sc_pq_json_free(v);
		return NULL;
	}
	return v;
}
