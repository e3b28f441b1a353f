/* SPDX-License-Identifier: MIT */

/*
 * sqllex.c: Spark SQL text as tokens: words, `quoted` identifiers,
 * string literals ('...' and "...", with Spark's backslash escapes;
 * adjacent ones are one literal), numbers with their type suffixes,
 * operators, and parameter markers.  Spaces and comments (-- to the end
 * of the line, nested block comments) are dropped.
 */

#include "engine/sql/sqlparse.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/hex.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

static const char *const ops[] = {
	"<=>",
	"<=",
	">=",
	"<>",
	"!=",
	"==",
	"||",
	"::",
	"->",
	"=>",
};

const char *
sc_sqllex_skip(const char *s)
{
	int depth;

	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (s[0] == '-' && s[1] == '-') {
			while (*s != '\0' && *s != '\n')
				s++;
		} else if (s[0] == '/' && s[1] == '*') {
			depth = 1;
			s += 2;
			while (depth > 0) {
				if (*s == '\0')
					return NULL;
				if (s[0] == '/' && s[1] == '*') {
					depth++;
					s += 2;
				} else if (s[0] == '*' && s[1] == '/') {
					depth--;
					s += 2;
				} else {
					s++;
				}
			}
		} else {
			return s;
		}
	}
}

/* The value of n hex digits at s, or -1 when one is not a hex digit. */
static long
hex_digits(const char *s, int n)
{
	long v = 0;
	int i, d;

	for (i = 0; i < n; i++) {
		if ((d = sc_hex_digit((unsigned char)s[i])) == -1)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/*
 * Code point c as UTF-8; a surrogate standing alone (Java keeps it in a
 * String, and writes it as '?' in UTF-8) or a value past U+10FFFF is '?'.
 */
static void
add_utf8(struct sc_buf *out, long c)
{
	if ((c >= 0xd800 && c <= 0xdfff) || c < 0 || c > 0x10ffff) {
		sc_buf_addch(out, '?', NULL);
	} else if (c < 0x80) {
		sc_buf_addch(out, (char)c, NULL);
	} else if (c < 0x800) {
		sc_buf_addch(out, (char)(0xc0 | (c >> 6)), NULL);
		sc_buf_addch(out, (char)(0x80 | (c & 0x3f)), NULL);
	} else if (c < 0x10000) {
		sc_buf_addch(out, (char)(0xe0 | (c >> 12)), NULL);
		sc_buf_addch(out, (char)(0x80 | ((c >> 6) & 0x3f)), NULL);
		sc_buf_addch(out, (char)(0x80 | (c & 0x3f)), NULL);
	} else {
		sc_buf_addch(out, (char)(0xf0 | (c >> 18)), NULL);
		sc_buf_addch(out, (char)(0x80 | ((c >> 12) & 0x3f)), NULL);
		sc_buf_addch(out, (char)(0x80 | ((c >> 6) & 0x3f)), NULL);
		sc_buf_addch(out, (char)(0x80 | (c & 0x3f)), NULL);
	}
}

/*
 * A Unicode or octal escape after the backslash at s, as Spark's parser
 * reads them: \uXXXX (a UTF-16 unit; a high surrogate and a \u low one
 * after it make one character), \UXXXXXXXX, and \ooo whose first digit
 * is 0 or 1.  The last character of the escape, or NULL when s starts
 * none of them.
 */
static const char *
unicode_escape(const char *s, struct sc_buf *out)
{
	long c, lo;

	if (s[1] == 'u' && (c = hex_digits(s + 2, 4)) >= 0) {
		if (c >= 0xd800 && c <= 0xdbff && s[6] == '\\' && s[7] == 'u' &&
		    (lo = hex_digits(s + 8, 4)) >= 0xdc00 && lo <= 0xdfff) {
			add_utf8(out,
			    0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00));
			return s + 11;
		}
		add_utf8(out, c);
		return s + 5;
	}
	if (s[1] == 'U' && (c = hex_digits(s + 2, 8)) >= 0) {
		add_utf8(out, c);
		return s + 9;
	}
	if ((s[1] == '0' || s[1] == '1') && s[2] >= '0' && s[2] <= '7' &&
	    s[3] >= '0' && s[3] <= '7') {
		add_utf8(out,
		    ((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
		return s + 3;
	}
	return NULL;
}

/* One string literal at s (a quote); its end, or NULL if not closed. */
static const char *
string_lit(const char *s, struct sc_buf *out)
{
	const char *e;
	char q = *s++;

	for (; *s != '\0' && *s != q; s++) {
		if (*s != '\\' || s[1] == '\0') {
			sc_buf_addch(out, *s, NULL);
			continue;
		}
		if ((e = unicode_escape(s, out)) != NULL) {
			s = e;
			continue;
		}
		s++;
		switch (*s) {
		case '0':
			sc_buf_addch(out, '\0', NULL);
			break;
		case 'b':
			sc_buf_addch(out, '\b', NULL);
			break;
		case 'n':
			sc_buf_addch(out, '\n', NULL);
			break;
		case 'r':
			sc_buf_addch(out, '\r', NULL);
			break;
		case 't':
			sc_buf_addch(out, '\t', NULL);
			break;
		case 'Z':
			sc_buf_addch(out, '\032', NULL);
			break;
		case '%':
		case '_':
			sc_buf_addch(out, '\\', NULL);
			sc_buf_addch(out, *s, NULL);
			break;
		default:
			sc_buf_addch(out, *s, NULL);
			break;
		}
	}
	return *s == q ? s + 1 : NULL;
}

static bool
word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* A number at s: digits, fraction, exponent, then a type suffix. */
static const char *
number(const char *s, struct sc_sqltok *t)
{
	const char *p = s, *e;

	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		p++;
		t->frac = true;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if ((*p == 'e' || *p == 'E') &&
	    (isdigit((unsigned char)p[1]) ||
		((p[1] == '+' || p[1] == '-') &&
		    isdigit((unsigned char)p[2])))) {
		t->exp = true;
		p += 2;
		while (isdigit((unsigned char)*p))
			p++;
	}
	t->numlen = (size_t)(p - s);
	e = p;
	if ((p[0] == 'B' || p[0] == 'b') && (p[1] == 'D' || p[1] == 'd'))
		e = p + 2;
	else if (strchr("LlSsYyDdFf", *p) != NULL && *p != '\0')
		e = p + 1;
	if (e != p && word_char(*e))
		return NULL; /* 12abc: not a number */
	if (e != p)
		t->suffix = (char)toupper((unsigned char)*p);
	if (e == p + 2)
		t->suffix = 'B';
	if (word_char(*e))
		return NULL;
	return e;
}

int
sc_sqllex(const char *src, struct sc_sqltok **tokp, size_t *np)
{
	struct sc_sqltok *v = NULL, t;
	size_t n = 0, cap = 0, i;
	const char *s = src, *e;

	for (;;) {
		if ((s = sc_sqllex_skip(s)) == NULL)
			goto bad;
		memset(&t, 0, sizeof(t));
		t.off = (size_t)(s - src);
		t.s = s;
		if (*s == '\0') {
			t.kind = SC_TK_EOF;
			e = s;
		} else if (*s == '\'' || *s == '"') {
			t.kind = SC_TK_STRING;
			sc_buf_init(&t.text, SC_BUF_UNLIMITED);
			e = s;
			do {
				if ((e = string_lit(e, &t.text)) == NULL) {
					sc_buf_release(&t.text);
					goto bad;
				}
				s = sc_sqllex_skip(e);
			} while (s != NULL && (*s == '\'' || *s == '"'));
		} else if (*s == '`') {
			t.kind = SC_TK_QIDENT;
			sc_buf_init(&t.text, SC_BUF_UNLIMITED);
			for (e = s + 1;; e++) {
				if (*e == '\0') {
					sc_buf_release(&t.text);
					goto bad;
				}
				if (*e == '`' && e[1] == '`')
					e++;
				else if (*e == '`')
					break;
				sc_buf_addch(&t.text, *e, NULL);
			}
			e++;
		} else if (isdigit((unsigned char)*s) ||
		    (*s == '.' && isdigit((unsigned char)s[1]))) {
			t.kind = SC_TK_NUM;
			if ((e = number(s, &t)) == NULL && *s == '.') {
				/* .0x: the '.' alone; the rest follows. */
				t.kind = SC_TK_OP;
				t.frac = t.exp = false;
				t.suffix = 0;
				e = s + 1;
			} else if (e == NULL) {
				/* 1abc: an identifier, as Spark allows. */
				t.kind = SC_TK_WORD;
				t.frac = t.exp = false;
				t.suffix = 0;
				for (e = s; word_char(*e); e++)
					;
			}
		} else if (isalpha((unsigned char)*s) || *s == '_' ||
		    (unsigned char)*s >= 0x80) {
			t.kind = SC_TK_WORD;
			for (e = s; word_char(*e) || (unsigned char)*e >= 0x80;
			     e++)
				;
		} else if (*s == '?' ||
		    ((*s == ':' || *s == '@' || *s == '$') &&
			(isalpha((unsigned char)s[1]) || s[1] == '_'))) {
			t.kind = SC_TK_PARAM;
			for (e = s + 1; word_char(*e); e++)
				;
		} else {
			t.kind = SC_TK_OP;
			e = s + 1;
			for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
				if (strncmp(s, ops[i], strlen(ops[i])) == 0) {
					e = s + strlen(ops[i]);
					break;
				}
		}
		t.n = (size_t)(e - t.s);
		if (n == cap) {
			cap = cap == 0 ? 64 : cap * 2;
			v = sc_xreallocarray(v, cap, sizeof(*v));
		}
		v[n++] = t;
		if (t.kind == SC_TK_EOF)
			break;
		s = e;
	}
	*tokp = v;
	*np = n;
	return 0;
bad:
	sc_sqllex_free(v, n);
	return -1;
}

void
sc_sqllex_free(struct sc_sqltok *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].kind == SC_TK_STRING || v[i].kind == SC_TK_QIDENT)
			sc_buf_release(&v[i].text);
	free(v);
}

bool
sc_sqllex_first_word(const char *src, const char *const *words)
{
	const char *s = sc_sqllex_skip(src);
	size_t n = 0, i;

	if (s == NULL)
		return false;
	while (word_char(s[n]))
		n++;
	for (i = 0; words[i] != NULL; i++)
		if (strlen(words[i]) == n && strncasecmp(s, words[i], n) == 0)
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* Where an error is in the text                                       */
/* ------------------------------------------------------------------ */

/* Whether token t is the identifier part p (n bytes, unquoted). */
static bool
tok_is_part(const struct sc_sqltok *t, const char *p, size_t n)
{
	if (t->kind == SC_TK_QIDENT)
		return t->text.len == n && memcmp(t->text.data, p, n) == 0;
	return t->kind == SC_TK_WORD && t->n == n &&
	    strncasecmp(t->s, p, n) == 0;
}

/*
 * The tokens naming `a`.`b` (name, from the message: backquoted parts
 * joined by dots): the index of the first, and of the last in *last.
 * Preferred: an occurrence not itself after a dot.
 */
static bool
find_name(const struct sc_sqltok *t, size_t nt, const char *name, size_t *first,
    size_t *last)
{
	char parts[8][128];
	size_t np = 0, i, k, n, pass;
	const char *s = name;

	while (*s == '`' && np < 8) {
		n = 0;
		for (s++; *s != '\0'; s++) {
			if (*s == '`' && s[1] != '`')
				break;
			if (*s == '`')
				s++;
			if (n + 1 < sizeof(parts[0]))
				parts[np][n++] = *s;
		}
		if (*s != '`')
			return false;
		parts[np++][n] = '\0';
		s++;
		if (*s != '.')
			break;
		s++;
	}
	if (np == 0)
		return false;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i + 2 * (np - 1) < nt; i++) {
			if (pass == 0 && i > 0 && t[i - 1].kind == SC_TK_OP &&
			    t[i - 1].n == 1 && t[i - 1].s[0] == '.')
				continue;
			for (k = 0; k < np; k++) {
				if (!tok_is_part(&t[i + 2 * k], parts[k],
					strlen(parts[k])))
					break;
				if (k + 1 < np &&
				    !(t[i + 2 * k + 1].kind == SC_TK_OP &&
					t[i + 2 * k + 1].n == 1 &&
					t[i + 2 * k + 1].s[0] == '.'))
					break;
			}
			if (k == np) {
				*first = i;
				*last = i + 2 * (np - 1);
				return true;
			}
		}
	return false;
}

void
sc_sqllex_error_context(const char *src, struct sc_error *err)
{
	struct sc_sqltok *t = NULL;
	size_t nt = 0, i, first = 0, last = 0;
	const char *a, *b;
	bool found = false;

	if (err == NULL || src == NULL || err->ctx_start >= 0 ||
	    sc_sqllex(src, &t, &nt) == -1)
		return;
	if (strncmp(err->errclass, "UNRESOLVED_COLUMN", 17) == 0 ||
	    strcmp(err->errclass, "TABLE_OR_VIEW_NOT_FOUND") == 0) {
		if ((a = strchr(err->msg, '`')) != NULL)
			found = find_name(t, nt, a, &first, &last);
	} else if (strcmp(err->errclass, "PARSE_SYNTAX_ERROR") == 0) {
		/* Syntax error at or near 'X'. */
		if ((a = strstr(err->msg, "near '")) != NULL &&
		    (b = strstr(a + 6, "'.")) != NULL) {
			a += 6;
			for (i = 0; i + 1 < nt && !found; i++)
				if (t[i].n == (size_t)(b - a) &&
				    strncmp(t[i].s, a, t[i].n) == 0) {
					first = last = i;
					found = true;
				}
		}
	} else if (strcmp(err->errclass, "UNBOUND_SQL_PARAMETER") == 0) {
		/* The marker: ?, at its offset _N, or :name. */
		if ((a = strstr(err->msg, "parameter: ")) != NULL &&
		    (b = strchr(a + 11, '.')) != NULL) {
			a += 11;
			for (i = 0; i + 1 < nt && !found; i++) {
				if (t[i].kind != SC_TK_PARAM)
					continue;
				if (t[i].s[0] == '?')
					found = *a == '_' &&
					    (size_t)strtoul(a + 1, NULL, 10) ==
						t[i].off;
				else
					found = t[i].n - 1 == (size_t)(b - a) &&
					    strncmp(t[i].s + 1, a,
						t[i].n - 1) == 0;
				if (found)
					first = last = i;
			}
		}
	} else if (strcmp(err->errclass, "DIVIDE_BY_ZERO") == 0) {
		/* The one division with plain operands: a / b. */
		for (i = 1; i + 1 < nt; i++) {
			if (!((t[i].kind == SC_TK_OP && t[i].n == 1 &&
				  (t[i].s[0] == '/' || t[i].s[0] == '%')) ||
				(t[i].kind == SC_TK_WORD && t[i].n == 3 &&
				    strncasecmp(t[i].s, "div", 3) == 0)))
				continue;
			if (t[i - 1].kind == SC_TK_OP ||
			    t[i + 1].kind == SC_TK_OP ||
			    t[i + 1].kind == SC_TK_EOF)
				continue;
			if (found) {
				found = false; /* more than one: not known */
				break;
			}
			first = i - 1;
			last = i + 1;
			found = true;
		}
	}
	if (found)
		sc_srv_error_context(err, src, t[first].off,
		    t[last].off + t[last].n - 1);
	sc_sqllex_free(t, nt);
}
