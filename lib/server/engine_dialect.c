/* SPDX-License-Identifier: MIT */

/*
 * engine_dialect.c: Spark SQL text made fit for SQLite.  A small
 * tokenizer finds CAST and TRY_CAST with a Spark type (they become
 * sc_cast(), Spark's conversions) and the type STRING in CREATE column
 * definitions (it becomes TEXT), and file references (csv.`files/x.csv`,
 * read_files(...)), which become the TEMP tables the files are loaded
 * into; every other token is copied as it is.
 */

#include "server/engine_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "server/srverror.h"
#include "core/banned.h"

enum tok { T_SPACE, T_WORD, T_IDENT, T_STRING, T_PUNCT };

struct token {
	enum tok kind;
	size_t off;
	size_t len;
};

static bool
word_is(const char *s, const struct token *t, const char *w)
{
	return t->kind == T_WORD && strlen(w) == t->len &&
	    strncasecmp(s + t->off, w, t->len) == 0;
}

static bool
punct_is(const char *s, const struct token *t, char c)
{
	return t->kind == T_PUNCT && s[t->off] == c;
}

/* Split s into tokens (whitespace and comments are T_SPACE). */
static struct token *
tokenize(const char *s, size_t *np)
{
	struct token *v = NULL;
	size_t n = 0, i = 0, j;
	enum tok k;
	char q;

	while (s[i] != '\0') {
		j = i;
		if (isspace((unsigned char)s[i])) {
			k = T_SPACE;
			while (isspace((unsigned char)s[j]))
				j++;
		} else if (s[i] == '-' && s[i + 1] == '-') {
			k = T_SPACE;
			while (s[j] != '\0' && s[j] != '\n')
				j++;
		} else if (s[i] == '/' && s[i + 1] == '*') {
			const char *e = strstr(s + i + 2, "*/");

			k = T_SPACE;
			j = e != NULL ? (size_t)(e - s) + 2 : strlen(s);
		} else if (s[i] == '\'' || s[i] == '"' || s[i] == '`' ||
		    s[i] == '[') {
			k = s[i] == '\'' ? T_STRING : T_IDENT;
			q = s[i] == '[' ? ']' : s[i];
			for (j = i + 1; s[j] != '\0'; j++) {
				if (s[j] == q && s[j + 1] == q && q != ']')
					j++;
				else if (s[j] == q)
					break;
			}
			if (s[j] != '\0')
				j++;
		} else if (isalpha((unsigned char)s[i]) || s[i] == '_') {
			k = T_WORD;
			while (isalnum((unsigned char)s[j]) || s[j] == '_' ||
			    s[j] == '$')
				j++;
		} else {
			k = T_PUNCT;
			j++;
		}
		v = sc_xreallocarray(v, n + 1, sizeof(*v));
		v[n].kind = k;
		v[n].off = i;
		v[n++].len = j - i;
		i = j;
	}
	*np = n;
	return v;
}

/* Index of the next non-space token after i, or n. */
static size_t
next_sig(const struct token *t, size_t n, size_t i)
{
	for (i++; i < n && t[i].kind == T_SPACE; i++)
		;
	return i;
}

struct dialect {
	struct sc_ectx *x; /* NULL: file references are copied */
	struct sc_error *err;
	int rc; /* -1 once loading a file failed */
	const char *s;
	struct token *t;
	size_t n;
	bool create; /* the statement is a CREATE */
	bool ctable; /* ... a CREATE TABLE */
	int depth; /* parentheses open in the statement */
	size_t sig[2]; /* the last two non-space tokens */
	size_t nsig;
	struct sc_eplan *p; /* where the copied bytes are noted */
};

/* Note out's bytes [from, out->len) as copied from the client's text. */
static void
note_client(struct dialect *d, size_t from, const struct sc_buf *out)
{
	struct sc_eplan *p = d->p;

	if (p == NULL || out != &p->sql || from >= out->len)
		return;
	if (p->nclient > 0 && p->client[2 * p->nclient - 1] >= from) {
		p->client[2 * p->nclient - 1] = out->len;
		return;
	}
	p->client = sc_xreallocarray(p->client, 2 * (p->nclient + 1),
	    sizeof(*p->client));
	p->client[2 * p->nclient] = from;
	p->client[2 * p->nclient + 1] = out->len;
	p->nclient++;
}

static size_t skip_table_clause(struct dialect *d, size_t i);

/* Index of the next non-space token after i that ends the statement. */
static size_t
stmt_end(const struct dialect *d, size_t i)
{
	int depth = 0;

	for (; i < d->n; i++) {
		if (punct_is(d->s, &d->t[i], '('))
			depth++;
		else if (punct_is(d->s, &d->t[i], ')'))
			depth--;
		else if (depth <= 0 && punct_is(d->s, &d->t[i], ';'))
			break;
	}
	return i;
}

/* A name (a, `a`, a.b) from token i: the index after it, or 0. */
static size_t
name_end(const struct dialect *d, size_t i)
{
	size_t j;

	if (i >= d->n || (d->t[i].kind != T_WORD && d->t[i].kind != T_IDENT))
		return 0;
	j = next_sig(d->t, d->n, i);
	if (j < d->n && punct_is(d->s, &d->t[j], '.')) {
		j = next_sig(d->t, d->n, j);
		if (j >= d->n ||
		    (d->t[j].kind != T_WORD && d->t[j].kind != T_IDENT))
			return 0;
		return j + 1;
	}
	return i + 1;
}

/* The text of tokens [from, to), as written. */
static void
copy_span(const struct dialect *d, size_t from, size_t to, struct sc_buf *out)
{
	if (from < to)
		sc_buf_add(out, d->s + d->t[from].off,
		    d->t[to - 1].off + d->t[to - 1].len - d->t[from].off, NULL);
}

/* Whether tokens [from, to) hold a parameter marker (?, :x, @x, $x). */
static bool
has_marker(const struct dialect *d, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		if (d->t[i].kind == T_PUNCT &&
		    strchr("?:@$", d->s[d->t[i].off]) != NULL)
			return true;
	return false;
}

/*
 * The query at tokens [from, to) (a view's body, the rows of CREATE
 * TABLE ... AS and of INSERT) as the plan the Spark SQL parser and the
 * translator make of it, in *p: 1.  0 when the parser does not take it
 * (or it has parameter markers, whose values the statement binds): it
 * stays as written, refused if it names what no client may reach
 * (sc_eng_sql_not_taken()); -1 then (d->rc, d->err set).
 */
static int
query_plan(struct dialect *d, size_t from, size_t to, struct sc_eplan *p)
{
	struct sc_buf text;
	int rc;

	if (d->x == NULL || d->rc == -1)
		return 0;
	if (has_marker(d, from, to))
		return 0;
	sc_buf_init(&text, SC_BUF_UNLIMITED);
	copy_span(d, from, to, &text);
	sc_buf_addch(&text, '\0', NULL);
	rc = sc_eng_translate_text(d->x, (const char *)text.data, p, d->err);
	if (rc == 1 && p->sql.len == 0)
		rc = 0;
	if (rc == 0 &&
	    sc_eng_sql_not_taken((const char *)text.data, d->err) == -1)
		rc = -1;
	sc_buf_release(&text);
	if (rc == -1)
		d->rc = -1;
	return rc;
}

/*
 * The body of a view at token i, up to the statement's end: as the plan
 * the Spark SQL parser makes of it (so the view answers with Spark's
 * semantics).  The index after it, or 0 to copy it as written (the
 * parser does not take it, or it has parameter markers).
 */
static size_t
view_body(struct dialect *d, size_t i, const char *name, struct sc_buf *out)
{
	size_t end = stmt_end(d, i), ncols = 0;
	struct sc_ecol *cols = NULL;
	struct sc_error e;
	struct sc_eplan p;
	int rc;

	sc_eplan_init(&p);
	rc = query_plan(d, i, end, &p);
	if (rc == 1) {
		/*
		 * The view keeps the query's Spark types, which SQLite's
		 * view does not (an expression has no declared type).
		 */
		if (name != NULL &&
		    sc_eng_exec_plan(d->x, &p, NULL, NULL, true, &cols, &ncols,
			&e) == 0)
			sc_eng_view_note(d->x->c, name,
			    (const char *)p.sql.data, p.sql.len, cols, ncols);
		sc_ecols_free(cols, ncols);
		sc_buf_add(out, p.sql.data, p.sql.len, NULL);
	}
	sc_eplan_release(&p);
	return rc == 0 ? 0 : end;
}

/*
 * CREATE [OR REPLACE] TABLE name [clauses] AS query, the name at tokens
 * [k, e): when the Spark SQL parser takes the query, the table is
 * created with the query's column types and filled with its rows as
 * Spark computes them ("CREATE TABLE name (c type, ...); INSERT INTO
 * name SELECT ...").  The index after the statement, or 0 to leave it
 * to SQLite.
 */
static size_t
ctas(struct dialect *d, size_t k, size_t e, bool replace, struct sc_buf *out)
{
	struct token *t = d->t;
	struct sc_ecol *cols = NULL;
	struct sc_eplan p;
	size_t i, j, end, ncols = 0, after;
	int rc;

	if (d->x == NULL || d->rc == -1)
		return 0;
	/* The storage clauses, then AS. */
	j = e < d->n && t[e].kind == T_SPACE ? next_sig(t, d->n, e) : e;
	while (j < d->n && (after = skip_table_clause(d, j)) != 0)
		j = after < d->n && t[after].kind == T_SPACE
		    ? next_sig(t, d->n, after)
		    : after;
	if (j >= d->n || !word_is(d->s, &t[j], "as"))
		return 0;
	j = next_sig(t, d->n, j);
	end = stmt_end(d, j);
	sc_eplan_init(&p);
	rc = query_plan(d, j, end, &p);
	if (rc == 1 &&
	    sc_eng_exec_plan(d->x, &p, NULL, NULL, true, &cols, &ncols,
		d->err) == -1) {
		rc = -1;
		d->rc = -1;
	}
	if (rc == 1) {
		if (replace) {
			sc_buf_addstr(out, "DROP TABLE IF EXISTS ", NULL);
			copy_span(d, k, e, out);
			sc_buf_addstr(out, "; ", NULL);
		}
		sc_buf_addstr(out, "CREATE TABLE ", NULL);
		copy_span(d, k, e, out);
		sc_buf_addstr(out, " (", NULL);
		for (i = 0; i < ncols; i++) {
			if (i > 0)
				sc_buf_addstr(out, ", ", NULL);
			sc_eng_quote_ident(out, cols[i].name);
			sc_buf_addch(out, ' ', NULL);
			sc_eng_type_decl(&cols[i].type, out);
		}
		sc_buf_addstr(out, "); INSERT INTO ", NULL);
		copy_span(d, k, e, out);
		sc_buf_addstr(out, " SELECT * FROM (", NULL);
		sc_buf_add(out, p.sql.data, p.sql.len, NULL);
		sc_buf_addstr(out, ")", NULL);
	}
	sc_ecols_free(cols, ncols);
	sc_eplan_release(&p);
	return rc == 0 ? 0 : end;
}

/*
 * INSERT INTO|OVERWRITE [TABLE] name [(c, ...)] query, the name at tokens
 * [k, e): the query as the plan the Spark SQL parser makes of it
 * ("INSERT INTO name [(c, ...)] SELECT * FROM (...)", after a DELETE for
 * OVERWRITE).  The index after the statement, or 0 for VALUES rows and
 * a query the parser does not take (as written).
 */
static size_t
insert_rows(struct dialect *d, size_t k, size_t e, bool overwrite,
    struct sc_buf *out)
{
	const struct token *t = d->t;
	size_t j, c, end, cols = 0, ncols = 0;
	struct sc_eplan p;
	int rc;

	if (d->x == NULL || d->rc == -1)
		return 0;
	j = e < d->n && t[e].kind == T_SPACE ? next_sig(t, d->n, e) : e;
	/* A column list: names and commas only. */
	if (j < d->n && punct_is(d->s, &t[j], '(')) {
		for (c = next_sig(t, d->n, j); c < d->n;
		     c = next_sig(t, d->n, c)) {
			if ((t[c].kind == T_WORD || t[c].kind == T_IDENT) &&
			    ncols % 2 == 0 && !word_is(d->s, &t[c], "select") &&
			    !word_is(d->s, &t[c], "with") &&
			    !word_is(d->s, &t[c], "values") &&
			    !word_is(d->s, &t[c], "table") &&
			    !word_is(d->s, &t[c], "from"))
				ncols++;
			else if (punct_is(d->s, &t[c], ',') && ncols % 2 == 1)
				ncols++;
			else
				break;
		}
		if (c < d->n && punct_is(d->s, &t[c], ')') && ncols % 2 == 1) {
			cols = j;
			j = next_sig(t, d->n, c);
			e = c + 1;
		}
	}
	/*
	 * VALUES rows stay as SQLite reads them: their values go into the
	 * columns with SQLite's affinity, as the engine has always stored
	 * them (the Spark SQL parser's VALUES takes literals only).
	 */
	if (j >= d->n || word_is(d->s, &t[j], "values"))
		return 0;
	end = stmt_end(d, j);
	sc_eplan_init(&p);
	rc = query_plan(d, j, end, &p);
	if (rc == 1) {
		if (overwrite) {
			sc_buf_addstr(out, "DELETE FROM ", NULL);
			copy_span(d, k, cols != 0 ? cols : e, out);
			sc_buf_addstr(out, "; ", NULL);
		}
		sc_buf_addstr(out, "INSERT INTO ", NULL);
		copy_span(d, k, e, out);
		sc_buf_addstr(out, " SELECT * FROM (", NULL);
		sc_buf_add(out, p.sql.data, p.sql.len, NULL);
		sc_buf_addstr(out, ")", NULL);
	}
	sc_eplan_release(&p);
	return rc == 0 ? 0 : end;
}

/*
 * Spark's statement forms SQLite lacks, at the statement's first token
 * i: CREATE OR REPLACE [TEMP] VIEW and TABLE (a DROP ... IF EXISTS
 * first), INSERT OVERWRITE (a DELETE first), INSERT INTO TABLE, DROP
 * TEMPORARY VIEW.  The index of the token to go on with, or 0.
 */
static size_t
rewrite_head(struct dialect *d, size_t i, struct sc_buf *out)
{
	const char *s = d->s;
	struct token *t = d->t;
	size_t j, k, e, body;
	bool replace = false, temp = false;
	struct sc_buf name;

	j = next_sig(t, d->n, i);
	if (word_is(s, &t[i], "create")) {
		if (j < d->n && word_is(s, &t[j], "or")) {
			k = next_sig(t, d->n, j);
			if (k >= d->n || !word_is(s, &t[k], "replace"))
				return 0;
			replace = true;
			j = next_sig(t, d->n, k);
		}
		if (j < d->n &&
		    (word_is(s, &t[j], "temp") ||
			word_is(s, &t[j], "temporary"))) {
			temp = true;
			j = next_sig(t, d->n, j);
		}
		if (j >= d->n)
			return 0;
		if (word_is(s, &t[j], "table") && !temp) {
			k = next_sig(t, d->n, j);
			if ((e = name_end(d, k)) == 0)
				return 0;
			if ((body = ctas(d, k, e, replace, out)) != 0)
				return body;
			if (!replace)
				return 0;
			sc_buf_addstr(out, "DROP TABLE IF EXISTS ", NULL);
			copy_span(d, k, e, out);
			sc_buf_addstr(out, "; CREATE TABLE ", NULL);
			d->create = d->ctable = true;
			return k;
		}
		if (!word_is(s, &t[j], "view") || (!replace && !temp))
			return 0;
		k = next_sig(t, d->n, j);
		if ((e = name_end(d, k)) == 0)
			return 0;
		if (replace) {
			sc_buf_addstr(out, "DROP VIEW IF EXISTS ", NULL);
			if (temp)
				sc_buf_addstr(out, "temp.", NULL);
			copy_span(d, k, e, out);
			sc_buf_addstr(out, "; ", NULL);
		}
		sc_buf_addstr(out, temp ? "CREATE TEMP VIEW " : "CREATE VIEW ",
		    NULL);
		copy_span(d, k, e, out);
		sc_buf_init(&name, SC_BUF_UNLIMITED);
		copy_span(d, k, e, &name);
		sc_buf_addch(&name, '\0', NULL);
		j = next_sig(t, d->n, e - 1);
		if (j < d->n && word_is(s, &t[j], "as")) {
			sc_buf_addstr(out, " AS ", NULL);
			body = next_sig(t, d->n, j);
			if (body < d->n &&
			    (k = view_body(d, body,
				 temp ? (const char *)name.data : NULL, out)) !=
				0) {
				sc_buf_release(&name);
				return k;
			}
			sc_buf_release(&name);
			return body;
		}
		sc_buf_release(&name);
		return e;
	}
	if (word_is(s, &t[i], "insert")) {
		if (j >= d->n)
			return 0;
		if (word_is(s, &t[j], "overwrite"))
			replace = true;
		else if (!word_is(s, &t[j], "into"))
			return 0;
		k = next_sig(t, d->n, j);
		if (k < d->n && word_is(s, &t[k], "table"))
			k = next_sig(t, d->n, k);
		if ((e = name_end(d, k)) == 0)
			return 0;
		if ((body = insert_rows(d, k, e, replace, out)) != 0)
			return body;
		/* Rows with parameter markers: SQLite binds them. */
		if (replace) {
			sc_buf_addstr(out, "DELETE FROM ", NULL);
			copy_span(d, k, e, out);
			sc_buf_addstr(out, "; ", NULL);
		}
		sc_buf_addstr(out, "INSERT INTO ", NULL);
		return k;
	}
	if (word_is(s, &t[i], "drop") && j < d->n &&
	    (word_is(s, &t[j], "temp") || word_is(s, &t[j], "temporary"))) {
		k = next_sig(t, d->n, j);
		if (k >= d->n || !word_is(s, &t[k], "view"))
			return 0;
		sc_buf_addstr(out, "DROP VIEW", NULL);
		return k + 1;
	}
	return 0;
}

/*
 * Clauses of Spark's CREATE TABLE that SQLite lacks, at token i (depth
 * 0): USING format, OPTIONS (...), PARTITIONED BY (...), CLUSTERED BY
 * (...), TBLPROPERTIES (...), LOCATION '...', COMMENT '...'.  They say
 * how Spark stores a table, not what it holds.  The index after the
 * clause, or 0.
 */
static size_t
skip_table_clause(struct dialect *d, size_t i)
{
	const char *s = d->s;
	struct token *t = d->t;
	size_t j = next_sig(t, d->n, i);
	int depth = 0;

	if (word_is(s, &t[i], "using") || word_is(s, &t[i], "stored")) {
		if (word_is(s, &t[i], "stored")) { /* STORED AS fmt */
			if (j >= d->n || !word_is(s, &t[j], "as"))
				return 0;
			j = next_sig(t, d->n, j);
		}
		return j < d->n && (t[j].kind == T_WORD || t[j].kind == T_IDENT)
		    ? j + 1
		    : 0;
	}
	if ((word_is(s, &t[i], "location") || word_is(s, &t[i], "comment")) &&
	    j < d->n && t[j].kind == T_STRING)
		return j + 1;
	if (word_is(s, &t[i], "partitioned") ||
	    word_is(s, &t[i], "clustered")) {
		if (j >= d->n || !word_is(s, &t[j], "by"))
			return 0;
		j = next_sig(t, d->n, j);
	} else if (!word_is(s, &t[i], "options") &&
	    !word_is(s, &t[i], "tblproperties")) {
		return 0;
	}
	if (j >= d->n || !punct_is(s, &t[j], '('))
		return 0;
	for (; j < d->n; j++) {
		if (punct_is(s, &t[j], '('))
			depth++;
		else if (punct_is(s, &t[j], ')') && --depth == 0)
			return j + 1;
	}
	return 0;
}

static void emit(struct dialect *, size_t, size_t, struct sc_buf *);

/*
 * CAST(e AS type) / TRY_CAST(e AS type) at token i with a Spark type:
 * write sc_cast(e, 'type', mode) and return the index after it, or 0 to
 * leave the text alone.
 */
static size_t
rewrite_cast(struct dialect *d, size_t i, struct sc_buf *out)
{
	const char *s = d->s;
	struct token *t = d->t;
	struct sc_buf ty;
	struct sc_etype et;
	size_t open, j, k = 0, as = 0;
	int depth = 0, rc;
	bool try_ = word_is(s, &t[i], "try_cast");

	open = next_sig(t, d->n, i);
	if (open >= d->n || !punct_is(s, &t[open], '('))
		return 0;
	for (j = open; j < d->n; j++) {
		if (punct_is(s, &t[j], '('))
			depth++;
		else if (punct_is(s, &t[j], ')') && --depth == 0)
			break;
		else if (depth == 1 && word_is(s, &t[j], "as"))
			as = j;
	}
	if (j >= d->n || as == 0)
		return 0;
	sc_buf_init(&ty, SC_BUF_UNLIMITED);
	for (k = as + 1; k < j; k++)
		if (t[k].kind != T_SPACE || ty.len > 0)
			sc_buf_add(&ty, s + t[k].off, t[k].len, NULL);
	rc = sc_eng_parse_type((const char *)ty.data, ty.len, false, &et);
	sc_buf_release(&ty);
	if (rc == -1)
		return 0;
	sc_buf_addstr(out, "sc_cast(", NULL);
	emit(d, open + 1, as, out);
	sc_buf_addstr(out, ", '", NULL);
	sc_eng_type_text(&et, SC_VALUE_TYPENAME, out);
	sc_buf_addf(out, NULL, "', %d)", try_ ? 1 : 0);
	return j + 1;
}

/*
 * DATE 'x', TIMESTAMP 'x', TIMESTAMP_NTZ 'x', TIMESTAMP_LTZ 'x': Spark's
 * typed literals, which SQLite cannot parse, as sc_cast() of the string.
 * Returns the token after the literal, or 0.
 */
static size_t
rewrite_typed_literal(struct dialect *d, size_t i, struct sc_buf *out)
{
	const char *s = d->s;
	struct token *t = d->t;
	struct sc_etype et;
	size_t str = next_sig(t, d->n, i);

	if (str >= d->n || t[str].kind != T_STRING || s[t[str].off] != '\'' ||
	    sc_eng_parse_type(s + t[i].off, t[i].len, false, &et) == -1)
		return 0;
	sc_buf_addstr(out, "sc_cast(", NULL);
	sc_buf_add(out, s + t[str].off, t[str].len, NULL);
	sc_buf_addstr(out, ", '", NULL);
	sc_eng_type_text(&et, SC_VALUE_TYPENAME, out);
	sc_buf_addstr(out, "', 0)", NULL);
	return str + 1;
}

/* The text of a quoted token, unquoted (a doubled quote is one). */
static char *
unquote(const struct dialect *d, const struct token *t)
{
	struct sc_buf b;
	size_t i;
	char q = d->s[t->off];

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	for (i = t->off + 1; i + 1 < t->off + t->len; i++) {
		sc_buf_addch(&b, d->s[i], NULL);
		if (d->s[i] == q && d->s[i + 1] == q)
			i++;
	}
	return (char *)sc_buf_detach(&b, NULL);
}

static bool
is_format_word(const char *s, const struct token *t)
{
	return word_is(s, t, "csv") || word_is(s, t, "json") ||
	    word_is(s, t, "text");
}

/*
 * Spark SQL's csv.`files/x.csv` (also json, text) at token i, not after
 * a '.': load it and write the TEMP table's name; the index after it,
 * or 0 to leave the text alone.
 */
static size_t
rewrite_file_ref(struct dialect *d, size_t i, struct sc_buf *out)
{
	const char *s = d->s;
	struct token *t = d->t;
	size_t dot, id;
	char *path, *fmt;

	if (d->x == NULL || d->rc == -1 ||
	    (d->nsig > 0 && punct_is(s, &t[d->sig[0]], '.')))
		return 0;
	dot = next_sig(t, d->n, i);
	if (dot >= d->n || !punct_is(s, &t[dot], '.'))
		return 0;
	id = next_sig(t, d->n, dot);
	if (id >= d->n || t[id].kind != T_IDENT || s[t[id].off] != '`' ||
	    t[id].len < 2 || s[t[id].off + t[id].len - 1] != '`')
		return 0;
	path = unquote(d, &t[id]);
	fmt = sc_xstrndup(s + t[i].off, t[i].len);
	if (sc_eng_files_table(d->x, fmt, path, NULL, 0, out, d->err) == -1)
		d->rc = -1;
	free(path);
	free(fmt);
	return id + 1;
}

/*
 * sctk's read_files('path', name => value, ...) at token i (values are
 * strings, true, false or numbers; format defaults to csv): load it and
 * write the TEMP table's name; the index after it, or 0.
 */
static size_t
rewrite_read_files(struct dialect *d, size_t i, struct sc_buf *out)
{
	const char *s = d->s;
	struct token *t = d->t;
	char *path = NULL, *fmt = NULL, **kv = NULL;
	size_t nkv = 0, j, k, end = 0;

	if (d->x == NULL || d->rc == -1 ||
	    (d->nsig > 0 && punct_is(s, &t[d->sig[0]], '.')))
		return 0;
	j = next_sig(t, d->n, i);
	if (j >= d->n || !punct_is(s, &t[j], '('))
		return 0;
	j = next_sig(t, d->n, j);
	if (j >= d->n || t[j].kind != T_STRING)
		goto bad;
	path = unquote(d, &t[j]);
	for (;;) {
		j = next_sig(t, d->n, j);
		if (j < d->n && punct_is(s, &t[j], ')')) {
			end = j + 1;
			break;
		}
		if (j >= d->n || !punct_is(s, &t[j], ','))
			goto bad;
		j = next_sig(t, d->n, j);
		if (j >= d->n || t[j].kind != T_WORD)
			goto bad;
		k = j;
		j = next_sig(t, d->n, j);
		if (j + 1 >= d->n || !punct_is(s, &t[j], '=') ||
		    !punct_is(s, &t[j + 1], '>'))
			goto bad;
		j = next_sig(t, d->n, j + 1);
		if (j >= d->n)
			goto bad;
		kv = sc_xreallocarray(kv, nkv + 2, sizeof(*kv));
		kv[nkv++] = sc_xstrndup(s + t[k].off, t[k].len);
		if (t[j].kind == T_STRING) {
			kv[nkv++] = unquote(d, &t[j]);
		} else if (t[j].kind == T_WORD) {
			kv[nkv++] = sc_xstrndup(s + t[j].off, t[j].len);
		} else {
			goto bad;
		}
	}
	for (k = 0; k + 1 < nkv; k += 2)
		if (strcasecmp(kv[k], "format") == 0)
			fmt = kv[k + 1];
	if (sc_eng_files_table(d->x, fmt != NULL ? fmt : "csv", path,
		(const char *const *)kv, nkv, out, d->err) == -1)
		d->rc = -1;
	goto out;
bad:
	d->rc = -1;
	end = d->n;
	sc_srv_error(d->err, "INVALID_PARAMETER_VALUE", "22023",
	    "read_files() takes a path string and then name => value options whose values are strings, true or false: read_files('files/x.csv', format => 'csv', header => true).");
out:
	for (k = 0; k < nkv; k++)
		free(kv[k]);
	free(kv);
	free(path);
	return end;
}

static void
emit(struct dialect *d, size_t from, size_t to, struct sc_buf *out)
{
	const char *s = d->s;
	struct token *t = d->t;
	size_t i, nx, after;
	bool repl;

	for (i = from; i < to; i++) {
		if (t[i].kind == T_SPACE) {
			sc_buf_add(out, s + t[i].off, t[i].len, NULL);
			continue;
		}
		if ((d->nsig == 0 || punct_is(s, &t[d->sig[0]], ';')) &&
		    (after = rewrite_head(d, i, out)) != 0) {
			if (after > to)
				after = to;
			if (after < d->n && after > 0 &&
			    t[after - 1].kind != T_SPACE)
				sc_buf_addch(out, ' ', NULL);
			d->depth = 0;
			d->sig[1] = d->sig[0];
			d->sig[0] = i;
			d->nsig++;
			i = after - 1;
			continue;
		}
		if (d->ctable && d->depth == 0 &&
		    (after = skip_table_clause(d, i)) != 0) {
			i = after - 1;
			continue;
		}
		if (punct_is(s, &t[i], '('))
			d->depth++;
		else if (punct_is(s, &t[i], ')'))
			d->depth--;
		else if (punct_is(s, &t[i], ';'))
			d->depth = 0;
		if ((word_is(s, &t[i], "cast") ||
			word_is(s, &t[i], "try_cast")) &&
		    (after = rewrite_cast(d, i, out)) != 0) {
			i = after - 1;
			d->sig[1] = d->sig[0];
			d->sig[0] = i;
			d->nsig++;
			continue;
		}
		if ((word_is(s, &t[i], "date") ||
			word_is(s, &t[i], "timestamp") ||
			word_is(s, &t[i], "timestamp_ntz") ||
			word_is(s, &t[i], "timestamp_ltz")) &&
		    (after = rewrite_typed_literal(d, i, out)) != 0) {
			i = after - 1;
			d->sig[1] = d->sig[0];
			d->sig[0] = i;
			d->nsig++;
			continue;
		}
		if (((is_format_word(s, &t[i]) &&
			 (after = rewrite_file_ref(d, i, out)) != 0) ||
			(word_is(s, &t[i], "read_files") &&
			    (after = rewrite_read_files(d, i, out)) != 0))) {
			if (after > to)
				after = to;
			i = after - 1;
			d->sig[1] = d->sig[0];
			d->sig[0] = i;
			d->nsig++;
			continue;
		}
		repl = false;
		if (word_is(s, &t[i], "string") && d->nsig > 1 && d->create &&
		    (t[d->sig[0]].kind == T_WORD ||
			t[d->sig[0]].kind == T_IDENT) &&
		    (punct_is(s, &t[d->sig[1]], '(') ||
			punct_is(s, &t[d->sig[1]], ','))) {
			nx = next_sig(t, d->n, i);
			repl = nx >= d->n || !punct_is(s, &t[nx], '(');
		}
		if (repl) {
			sc_buf_addstr(out, "TEXT", NULL);
		} else {
			size_t at = out->len;

			sc_buf_add(out, s + t[i].off, t[i].len, NULL);
			/* A ';' only ends the statement SQLite reads. */
			if (!punct_is(s, &t[i], ';'))
				note_client(d, at, out);
		}
		if (d->nsig == 0 || punct_is(s, &t[d->sig[0]], ';')) {
			d->create = word_is(s, &t[i], "create");
			d->ctable = false;
		}
		if (d->create && word_is(s, &t[i], "table") && d->depth == 0 &&
		    d->nsig > 0 &&
		    (word_is(s, &t[d->sig[0]], "create") ||
			word_is(s, &t[d->sig[0]], "temp") ||
			word_is(s, &t[d->sig[0]], "temporary")))
			d->ctable = true;
		d->sig[1] = d->sig[0];
		d->sig[0] = i;
		d->nsig++;
	}
}

/*
 * Refuse text that names one of sc-serve's internal functions (a word
 * or a quoted name before '(') or an introspection table, however it
 * is quoted or cased: what SQLite would call or read.
 */
static int
check_names(struct dialect *d)
{
	const struct token *t = d->t;
	size_t i, nx;
	char *name;
	bool call;
	int rc = 0;

	for (i = 0; i < d->n && rc == 0; i++) {
		if (t[i].kind != T_WORD && t[i].kind != T_IDENT)
			continue;
		name = t[i].kind == T_WORD
		    ? sc_xstrndup(d->s + t[i].off, t[i].len)
		    : unquote(d, &t[i]);
		nx = next_sig(t, d->n, i);
		call = nx < d->n && punct_is(d->s, &t[nx], '(');
		if (call && sc_eng_guard_internal(name))
			rc = sc_eng_guard_refuse(true, name, d->err);
		else if (sc_eng_guard_introspection(name))
			rc = sc_eng_guard_refuse(false, name, d->err);
		free(name);
	}
	return rc;
}

int
sc_eng_dialect_names(const char *s, struct sc_error *err)
{
	struct dialect d;
	int rc;

	memset(&d, 0, sizeof(d));
	d.err = err;
	d.s = s;
	d.t = tokenize(s, &d.n);
	rc = check_names(&d);
	free(d.t);
	return rc;
}

/*
 * Append Spark SQL text s to p's SQL, adapted where SQLite would
 * silently give other answers: CAST(e AS type) and TRY_CAST with a Spark
 * type become sc_cast() (Spark's conversions and errors instead of
 * SQLite's, where CAST('2024-01-02' AS DATE) is 2024), and the type name
 * STRING becomes TEXT in the column definitions of CREATE statements
 * (its NUMERIC affinity would turn '007' into 7).  Nothing else changes.
 * The bytes copied from s are noted in p->client, so that the statements
 * holding them are compiled as a client's (engine_guard.c).
 */
int
sc_eng_dialect(struct sc_ectx *x, const char *s, struct sc_eplan *p,
    struct sc_error *err)
{
	static const char *const names_words[] = { "select", "where", "update",
		"by" };
	struct dialect d;
	size_t i, k;

	memset(&d, 0, sizeof(d));
	d.x = x;
	d.err = err;
	d.s = s;
	d.p = p;
	d.t = tokenize(s, &d.n);
	/*
	 * SQLite finds column names in any case: text that names columns
	 * cannot honour spark.sql.caseSensitive=true.
	 */
	for (i = 0; i < d.n && sc_eng_case_sensitive(); i++)
		for (k = 0; k < SC_NELEM(names_words); k++)
			if (word_is(s, &d.t[i], names_words[k])) {
				free(d.t);
				return sc_srv_error(err,
				    "UNSUPPORTED_FEATURE.SQL_SYNTAX", "0A000",
				    "SQL text that sc-serve's Spark SQL parser does not take runs as SQLite's, whose column names are case-insensitive: with spark.sql.caseSensitive=true it is not supported by sc-serve.");
			}
	/*
	 * Spark 4.0 has no recursive CTE (4.1 has one, with its own rules):
	 * refused by name wherever it is, as the Spark SQL parser does.
	 */
	for (i = 0; i < d.n; i++) {
		k = next_sig(d.t, d.n, i);
		if (word_is(s, &d.t[i], "with") && k < d.n &&
		    word_is(s, &d.t[k], "recursive") &&
		    (k = next_sig(d.t, d.n, k)) < d.n &&
		    !word_is(s, &d.t[k], "as")) {
			free(d.t);
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.SQL_SYNTAX", "0A000",
			    "The feature is not supported: WITH RECURSIVE in SQL text.");
		}
	}
	if (check_names(&d) == -1) {
		free(d.t);
		return -1;
	}
	emit(&d, 0, d.n, &p->sql);
	free(d.t);
	return d.rc;
}

const char *
sc_eng_sql_skip(const char *s)
{
	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (s[0] == '-' && s[1] == '-') {
			while (*s != '\0' && *s != '\n')
				s++;
		} else if (s[0] == '/' && s[1] == '*') {
			const char *e = strstr(s + 2, "*/");

			if (e == NULL)
				return NULL;
			s = e + 2;
		} else {
			return s;
		}
	}
}

bool
sc_eng_sql_blank(const char *s)
{
	while ((s = sc_eng_sql_skip(s)) != NULL && *s == ';')
		s++;
	return s == NULL || *s == '\0';
}
