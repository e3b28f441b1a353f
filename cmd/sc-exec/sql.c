/* SPDX-License-Identifier: MIT */

/*
 * sql.c: splitting a script into statements, Spark SQL lexical rules:
 * quotes with backslash escapes, backquoted identifiers, "--" comments
 * and bracketed comments that nest.
 */

#include "sc-exec.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/width.h"
#include "core/xmem.h"
#include "core/banned.h"

/* The line of offset off, counting on from *at (line *line). */
static size_t
line_of(const char *sql, size_t off, size_t *at, size_t *line)
{
	for (; *at < off; (*at)++)
		if (sql[*at] == '\n')
			(*line)++;
	return *line;
}

static void
push(struct sql_stmt **v, size_t *n, const char *s, size_t len, size_t line)
{
	while (len > 0 && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	*v = sc_xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[*n].text = sc_xstrndup(s, len);
	(*v)[*n].line = line;
	(*n)++;
}

/*
 * Where sql[i] starts a quoted string, a backquoted identifier or a
 * comment, the offset just past it (n at most, for one left open);
 * else i.  *quoted tells a quote from a comment.
 */
static size_t
skip_lexeme(const char *sql, size_t n, size_t i, bool *quoted)
{
	int depth;
	char q = sql[i];

	*quoted = false;
	if (q == '\'' || q == '"' || q == '`') {
		*quoted = true;
		for (i++; i < n && sql[i] != q; i++)
			if (sql[i] == '\\' && q != '`' && i + 1 < n)
				i++;
		return i < n ? i + 1 : n;
	}
	if (q == '-' && i + 1 < n && sql[i + 1] == '-') {
		while (i < n && sql[i] != '\n')
			i++;
		return i;
	}
	if (q == '/' && i + 1 < n && sql[i + 1] == '*') {
		depth = 1;
		for (i += 2; i < n && depth > 0; i++) {
			if (sql[i] == '/' && i + 1 < n && sql[i + 1] == '*') {
				depth++;
				i++;
			} else if (sql[i] == '*' && i + 1 < n &&
			    sql[i + 1] == '/') {
				depth--;
				i++;
			}
		}
		return i < n ? i : n;
	}
	return i;
}

size_t
sql_split(const char *sql, size_t n, struct sql_stmt **out)
{
	struct sql_stmt *v = NULL;
	size_t nv = 0, i = 0, j, start = 0, first = 0, at = 0, line = 1;
	bool code = false; /* the statement has more than comments */
	bool quoted;

	while (i < n) {
		if ((j = skip_lexeme(sql, n, i, &quoted)) != i) {
			if (quoted && !code) {
				first = i;
				code = true;
			}
			i = j;
		} else if (sql[i] == ';') {
			if (code)
				push(&v, &nv, sql + start, i - start,
				    line_of(sql, first, &at, &line));
			start = ++i;
			code = false;
		} else {
			if (!isspace((unsigned char)sql[i]) && !code) {
				first = i;
				code = true;
			}
			i++;
		}
	}
	if (code)
		push(&v, &nv, sql + start, n - start,
		    line_of(sql, first, &at, &line));
	*out = v;
	return nv;
}

size_t
sql_complete(const char *sql, size_t n)
{
	size_t i = 0, j, done = 0;
	bool quoted;

	while (i < n) {
		if ((j = skip_lexeme(sql, n, i, &quoted)) != i)
			i = j;
		else if (sql[i++] == ';')
			done = i;
	}
	return done;
}

void
sql_free_statements(struct sql_stmt *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].text);
	free(v);
}

int
sql_check_text(const char *p, size_t n, const char *name, struct sc_error *err)
{
	const char *nul = memchr(p, '\0', n);
	size_t bad = sc_utf8_check(p, nul != NULL ? (size_t)(nul - p) : n);
	size_t at = 0, line = 1;

	if (nul != NULL && bad == (size_t)(nul - p))
		return sc_error_set(err, SC_ST_USAGE,
		    "%s:%zu: a NUL byte in the SQL text", name,
		    line_of(p, bad, &at, &line));
	if (bad < n)
		return sc_error_set(err, SC_ST_USAGE,
		    "%s:%zu: invalid UTF-8 in the SQL text (byte 0x%02x at "
		    "offset %zu)",
		    name, line_of(p, bad, &at, &line), (unsigned char)p[bad],
		    bad);
	return 0;
}
