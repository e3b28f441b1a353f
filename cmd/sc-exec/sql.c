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

#include "core/xmem.h"
#include "core/banned.h"

static void
push(char ***v, size_t *n, const char *s, size_t len)
{
	while (len > 0 && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	*v = sc_xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = sc_xstrndup(s, len);
}

size_t
sql_split(const char *sql, size_t n, char ***out)
{
	char **v = NULL;
	size_t nv = 0, i = 0, start = 0;
	bool code = false; /* the statement has more than comments */
	int depth;
	char q;

	while (i < n) {
		char ch = sql[i];

		if (ch == '\'' || ch == '"' || ch == '`') {
			q = ch;
			code = true;
			for (i++; i < n && sql[i] != q; i++)
				if (sql[i] == '\\' && q != '`' && i + 1 < n)
					i++;
			i++;
		} else if (ch == '-' && i + 1 < n && sql[i + 1] == '-') {
			while (i < n && sql[i] != '\n')
				i++;
		} else if (ch == '/' && i + 1 < n && sql[i + 1] == '*') {
			depth = 1;
			for (i += 2; i < n && depth > 0; i++) {
				if (sql[i] == '/' && i + 1 < n &&
				    sql[i + 1] == '*') {
					depth++;
					i++;
				} else if (sql[i] == '*' && i + 1 < n &&
				    sql[i + 1] == '/') {
					depth--;
					i++;
				}
			}
		} else if (ch == ';') {
			if (code)
				push(&v, &nv, sql + start, i - start);
			start = ++i;
			code = false;
		} else {
			if (!isspace((unsigned char)ch))
				code = true;
			i++;
		}
	}
	if (code)
		push(&v, &nv, sql + start, (i > n ? n : i) - start);
	*out = v;
	return nv;
}

void
sql_free_statements(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
