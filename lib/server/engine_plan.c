/* SPDX-License-Identifier: MIT */

/*
 * engine_plan.c: Spark Connect relations and expressions into SQLite SQL.
 *
 * Each relation becomes a SELECT over its input as a subquery (SQLite
 * flattens them), carrying the output column names and, where the plan
 * tells, their Spark types.  A range stays native as long as only
 * limit/offset/renames/aliases sit above it.  Functions are mapped by a
 * table (funcs[] below); anything outside it is an error naming it.
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

#define MAX_DEPTH 200

/*
 * Short names for generated constants that core/protocol.h does not
 * have (it has SC_REL_, SC_EXPR_, SC_LIT_, SC_DT_ ...).
 */
#define LITDEC_(x) SPARK__CONNECT__EXPRESSION__LITERAL__DECIMAL___##x
#define STAR_TARGET_(x) \
	SPARK__CONNECT__EXPRESSION__UNRESOLVED_STAR___UNPARSED_TARGET_##x
#define SORT_DIR_(x) \
	SPARK__CONNECT__EXPRESSION__SORT_ORDER__SORT_DIRECTION__SORT_DIRECTION_##x
#define SORT_NULLS_(x) \
	SPARK__CONNECT__EXPRESSION__SORT_ORDER__NULL_ORDERING__SORT_NULLS_##x
#define GROUP_(x) SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_##x
#define EVAL_(x) SPARK__CONNECT__EXPRESSION__CAST__EVAL_MODE__EVAL_MODE_##x

/* ------------------------------------------------------------------ */
/* Plans and columns                                                   */
/* ------------------------------------------------------------------ */

void
sc_eplan_init(struct sc_eplan *p)
{
	memset(p, 0, sizeof(*p));
	sc_buf_init(&p->sql, SC_BUF_UNLIMITED);
	sc_buf_init(&p->with, SC_BUF_UNLIMITED);
}

void
sc_eplan_release(struct sc_eplan *p)
{
	sc_buf_release(&p->sql);
	sc_buf_release(&p->with);
	free(p->table);
	free(p->alias);
	sc_ecols_free(p->cols, p->ncols);
	p->table = NULL;
	p->alias = NULL;
	p->cols = NULL;
	p->ncols = 0;
}

void
sc_ecols_free(struct sc_ecol *cols, size_t n)
{
	size_t i;

	if (cols == NULL)
		return;
	for (i = 0; i < n; i++)
		free(cols[i].name);
	free(cols);
}

static struct sc_ecol *
cols_copy(const struct sc_ecol *src, size_t n)
{
	struct sc_ecol *c = sc_xcalloc(n > 0 ? n : 1, sizeof(*c));
	size_t i;

	for (i = 0; i < n; i++) {
		c[i] = src[i];
		c[i].name = sc_xstrdup(src[i].name);
	}
	return c;
}

static void
cols_add(struct sc_ecol **cols, size_t *n, const char *name,
    const struct sc_etype *t, int nullable)
{
	struct sc_ecol *c;

	*cols = sc_xreallocarray(*cols, *n + 1, sizeof(**cols));
	c = &(*cols)[(*n)++];
	memset(c, 0, sizeof(*c));
	c->name = sc_xstrdup(name);
	if (t != NULL)
		c->type = *t;
	else
		c->type.t = SC_ETYPE_UNKNOWN;
	c->nullable = nullable;
}

/* Move src into dst (dst released first). */
static void
plan_move(struct sc_eplan *dst, struct sc_eplan *src)
{
	sc_eplan_release(dst);
	*dst = *src;
	sc_eplan_init(src);
}

/*
 * Identifiers are quoted with backticks: SQLite reads a double-quoted
 * name that matches no column as a string literal (kept on for users'
 * Spark SQL, where "x" is a string), but never a backticked one.
 */
void
sc_eng_quote_ident(struct sc_buf *b, const char *s, size_t n)
{
	size_t i;

	sc_buf_addch(b, '`', NULL);
	for (i = 0; i < n; i++) {
		if (s[i] == '`')
			sc_buf_addch(b, '`', NULL);
		sc_buf_addch(b, s[i], NULL);
	}
	sc_buf_addch(b, '`', NULL);
}

static void
qident(struct sc_buf *b, const char *s)
{
	sc_eng_quote_ident(b, s, strlen(s));
}

static void
qstring(struct sc_buf *b, const char *s, size_t n)
{
	size_t i;

	sc_buf_addch(b, '\'', NULL);
	for (i = 0; i < n; i++) {
		if (s[i] == '\'')
			sc_buf_addch(b, '\'', NULL);
		sc_buf_addch(b, s[i], NULL);
	}
	sc_buf_addch(b, '\'', NULL);
}

/* The whole statement of p: its common table expressions, then sql. */
static void
plan_text(const struct sc_eplan *p, struct sc_buf *out)
{
	if (p->with.len > 0) {
		sc_buf_addstr(out, "WITH ", NULL);
		sc_buf_add(out, p->with.data, p->with.len, NULL);
		sc_buf_addch(out, '\n', NULL);
	}
	sc_buf_add(out, p->sql.data, p->sql.len, NULL);
}

/* Put p's common table expressions in front of its statement. */
static void
plan_finish(struct sc_eplan *p)
{
	struct sc_buf full;

	if (p->with.len == 0)
		return;
	sc_buf_init(&full, SC_BUF_UNLIMITED);
	plan_text(p, &full);
	sc_buf_release(&p->sql);
	p->sql = full;
	sc_buf_reset(&p->with);
}

/*
 * Add the common table expression "name[(cols)] AS (\nbody\n)" to w
 * (the body on lines of its own, so a trailing "--" comment ends before
 * the parenthesis).
 */
static void
with_add(struct sc_buf *w, const char *name, char *const *cols, size_t ncols,
    const uint8_t *body, size_t n)
{
	size_t i;

	if (w->len > 0)
		sc_buf_addstr(w, ",\n", NULL);
	qident(w, name);
	if (cols != NULL) {
		sc_buf_addch(w, '(', NULL);
		for (i = 0; i < ncols; i++) {
			if (i > 0)
				sc_buf_addstr(w, ", ", NULL);
			qident(w, cols[i]);
		}
		sc_buf_addch(w, ')', NULL);
	}
	sc_buf_addstr(w, " AS (\n", NULL);
	sc_buf_add(w, body, n, NULL);
	sc_buf_addstr(w, "\n)", NULL);
}

/*
 * Names of the output columns of p, from SQLite when the translation
 * does not know them (a user's SQL); types stay unknown then.
 */
int
sc_eng_plan_columns(struct sc_ectx *x, struct sc_eplan *p, struct sc_error *err)
{
	sqlite3_stmt *st;
	const char *tail;
	struct sc_buf full;
	int i, n, rc;

	if (p->cols != NULL)
		return 0;
	if (p->with.len > 0) {
		sc_buf_init(&full, SC_BUF_UNLIMITED);
		plan_text(p, &full);
		rc = sc_eng_prepare(x, (const char *)full.data, full.len, &st,
		    &tail, err);
		sc_buf_release(&full);
	} else {
		rc = sc_eng_prepare(x, (const char *)p->sql.data, p->sql.len,
		    &st, &tail, err);
	}
	if (rc == -1)
		return -1;
	n = st != NULL ? sqlite3_column_count(st) : 0;
	p->cols = sc_xcalloc(n > 0 ? (size_t)n : 1, sizeof(*p->cols));
	p->ncols = (size_t)n;
	for (i = 0; i < n; i++) {
		const char *name = sqlite3_column_name(st, i);

		p->cols[i].name = sc_xstrdup(name != NULL ? name : "");
		p->cols[i].type.t = SC_ETYPE_UNKNOWN;
		p->cols[i].nullable = -1;
	}
	sqlite3_finalize(st);
	return 0;
}

/*
 * Append p to b as a FROM item of plan out, under p's alias or a fresh
 * one: p's table, or a common table expression of out holding p's
 * statement.  Common table expressions, unlike subqueries in FROM, do
 * not nest: a chain of relations stays within SQLite's parser stack.
 */
static void
from_item(struct sc_ectx *x, struct sc_eplan *p, struct sc_eplan *out,
    struct sc_buf *b)
{
	size_t n = p->sql.len;
	char gen[32], cte[32];

	if (p->table != NULL) {
		sc_buf_addstr(b, p->table, NULL);
		if (p->alias != NULL) {
			sc_buf_addstr(b, " AS ", NULL);
			qident(b, p->alias);
		}
		return;
	}
	while (
	    n > 0 && (isspace(p->sql.data[n - 1]) || p->sql.data[n - 1] == ';'))
		n--;
	if (p->with.len > 0) {
		if (out->with.len > 0)
			sc_buf_addstr(&out->with, ",\n", NULL);
		sc_buf_add(&out->with, p->with.data, p->with.len, NULL);
		sc_buf_reset(&p->with);
	}
	snprintf(cte, sizeof(cte), "_sc_q%u", x->seq++);
	with_add(&out->with, cte, NULL, 0, p->sql.data, n);
	qident(b, cte);
	sc_buf_addstr(b, " AS ", NULL);
	if (p->alias != NULL) {
		qident(b, p->alias);
	} else {
		snprintf(gen, sizeof(gen), "_s%u", x->seq++);
		qident(b, gen);
	}
}

/* ------------------------------------------------------------------ */
/* Spark SQL text for SQLite                                           */
/* ------------------------------------------------------------------ */

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
	const char *s;
	struct token *t;
	size_t n;
	bool create; /* the statement is a CREATE */
	size_t sig[2]; /* the last two non-space tokens */
	size_t nsig;
};

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
		if ((word_is(s, &t[i], "cast") ||
			word_is(s, &t[i], "try_cast")) &&
		    (after = rewrite_cast(d, i, out)) != 0) {
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
		if (repl)
			sc_buf_addstr(out, "TEXT", NULL);
		else
			sc_buf_add(out, s + t[i].off, t[i].len, NULL);
		if (d->nsig == 0 || punct_is(s, &t[d->sig[0]], ';'))
			d->create = word_is(s, &t[i], "create");
		d->sig[1] = d->sig[0];
		d->sig[0] = i;
		d->nsig++;
	}
}

/*
 * Copy Spark SQL text s into out, adapted where SQLite would silently
 * give other answers: CAST(e AS type) and TRY_CAST with a Spark type
 * become sc_cast() (Spark's conversions and errors instead of SQLite's,
 * where CAST('2024-01-02' AS DATE) is 2024), and the type name STRING
 * becomes TEXT in the column definitions of CREATE statements (its
 * NUMERIC affinity would turn '007' into 7).  Nothing else changes.
 */
void
sc_eng_dialect(const char *s, struct sc_buf *out)
{
	struct dialect d;

	memset(&d, 0, sizeof(d));
	d.s = s;
	d.t = tokenize(s, &d.n);
	emit(&d, 0, d.n, out);
	free(d.t);
}

/* ------------------------------------------------------------------ */
/* Errors naming what is not supported                                 */
/* ------------------------------------------------------------------ */

struct numname {
	unsigned num;
	const char *name;
};

static const struct numname relnames[] = {
	{ 5, "join" },
	{ 6, "set_op" },
	{ 12, "sample" },
	{ 14, "deduplicate" },
	{ 17, "repartition" },
	{ 21, "drop" },
	{ 22, "tail" },
	{ 23, "with_columns" },
	{ 24, "hint" },
	{ 25, "unpivot" },
	{ 26, "to_schema" },
	{ 27, "repartition_by_expression" },
	{ 28, "map_partitions" },
	{ 29, "collect_metrics" },
	{ 30, "parse" },
	{ 31, "group_map" },
	{ 32, "co_group_map" },
	{ 33, "with_watermark" },
	{ 34, "apply_in_pandas_with_state" },
	{ 35, "html_string" },
	{ 36, "cached_local_relation" },
	{ 37, "cached_remote_relation" },
	{ 38, "common_inline_user_defined_table_function" },
	{ 39, "as_of_join" },
	{ 40, "common_inline_user_defined_data_source" },
	{ 41, "with_relations" },
	{ 42, "transpose" },
	{ 43, "unresolved_table_valued_function" },
	{ 44, "lateral_join" },
	{ 45, "chunked_cached_local_relation" },
	{ 46, "relation_changes" },
	{ 47, "nearest_by_join" },
	{ 48, "zip" },
	{ 49, "graph_frames" },
	{ 90, "fill_na" },
	{ 91, "drop_na" },
	{ 92, "replace" },
	{ 100, "summary" },
	{ 101, "crosstab" },
	{ 102, "describe" },
	{ 103, "cov" },
	{ 104, "corr" },
	{ 105, "approx_quantile" },
	{ 106, "freq_items" },
	{ 107, "sample_by" },
	{ 200, "catalog" },
	{ 300, "ml_relation" },
	{ 998, "extension" },
	{ 999, "unknown" },
};

static const struct numname exprnames[] = {
	{ 8, "unresolved_regex" },
	{ 10, "lambda_function" },
	{ 11, "window" },
	{ 12, "unresolved_extract_value" },
	{ 13, "update_fields" },
	{ 14, "unresolved_named_lambda_variable" },
	{ 15, "common_inline_user_defined_function" },
	{ 16, "call_function" },
	{ 17, "named_argument_expression" },
	{ 19, "merge_action" },
	{ 21, "lazy_expression" },
	{ 22, "subquery_expression" },
	{ 999, "extension" },
};

/* The first unknown field number of m, or 0. */
static unsigned
unknown_field(const ProtobufCMessage *m)
{
	return m->n_unknown_fields > 0 ? m->unknown_fields[0].tag : 0;
}

static const char *
numname(const struct numname *t, size_t n, unsigned num, char *buf, size_t sz)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].num == num)
			return t[i].name;
	snprintf(buf, sz, "#%u", num);
	return buf;
}

static int
unsupported_relation(const Spark__Connect__Relation *r, struct sc_error *err)
{
	char buf[32];
	unsigned num = (unsigned)r->rel_type_case;

	if (r->rel_type_case == SC_REL_(_NOT_SET))
		num = unknown_field(&r->base);
	if (num == 0)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The relation has no type set.");
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.RELATION", "0A000",
	    "The relation type '%s' is not supported by sc-serve.",
	    numname(relnames, SC_NELEM(relnames), num, buf, sizeof(buf)));
}

static int
unsupported_expression(const Spark__Connect__Expression *e,
    struct sc_error *err)
{
	char buf[32];
	unsigned num = (unsigned)e->expr_type_case;

	if (e->expr_type_case == SC_EXPR_(_NOT_SET))
		num = unknown_field(&e->base);
	if (num == 0)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "An expression has no type set.");
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
	    "The expression type '%s' is not supported by sc-serve.",
	    numname(exprnames, SC_NELEM(exprnames), num, buf, sizeof(buf)));
}

static int
no_input(const char *what, struct sc_error *err)
{
	return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
	    "The %s relation has no input.", what);
}

/* ------------------------------------------------------------------ */
/* Identifiers                                                         */
/* ------------------------------------------------------------------ */

struct ident {
	char *parts[8];
	size_t n;
};

static void
ident_release(struct ident *id)
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
static int
ident_parse(const char *s, struct ident *id, struct sc_error *err)
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
			ident_release(id);
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
	ident_release(id);
	return sc_srv_error(err, "PARSE_SYNTAX_ERROR", "42601",
	    "Syntax error in the identifier '%.200s'.", s);
}

/* ------------------------------------------------------------------ */
/* Expressions                                                         */
/* ------------------------------------------------------------------ */

/* What an expression produced besides its SQL. */
struct einfo {
	struct sc_buf name; /* Spark's column name for it */
	struct sc_etype type; /* or t UNKNOWN */
	int nullable; /* 1 or 0 */
	bool aliased;
};

static void
einfo_init(struct einfo *ei)
{
	memset(ei, 0, sizeof(*ei));
	sc_buf_init(&ei->name, SC_BUF_UNLIMITED);
	ei->type.t = SC_ETYPE_UNKNOWN;
	ei->nullable = 1;
}

static void
einfo_release(struct einfo *ei)
{
	sc_buf_release(&ei->name);
}

static void
set_type(struct einfo *ei, int t)
{
	memset(&ei->type, 0, sizeof(ei->type));
	ei->type.t = t;
}

static int expr(struct sc_ectx *, const struct sc_eplan *,
    const Spark__Connect__Expression *, struct sc_buf *, struct einfo *,
    struct sc_error *);

static const struct sc_ecol *
find_col(const struct sc_eplan *in, const char *name)
{
	size_t i;

	if (in == NULL || in->cols == NULL)
		return NULL;
	for (i = 0; i < in->ncols; i++)
		if (strcasecmp(in->cols[i].name, name) == 0)
			return &in->cols[i];
	return NULL;
}

static int
attribute(const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedAttribute *a,
    struct sc_buf *sql, struct einfo *ei, struct sc_error *err)
{
	struct ident id;
	const struct sc_ecol *c;
	size_t i;

	if (ident_parse(a->unparsed_identifier != NULL ? a->unparsed_identifier
						       : "",
		&id, err) == -1)
		return -1;
	for (i = 0; i < id.n; i++) {
		if (i > 0)
			sc_buf_addch(sql, '.', NULL);
		qident(sql, id.parts[i]);
	}
	sc_buf_addstr(&ei->name, id.parts[id.n - 1], NULL);
	c = find_col(in, id.parts[id.n - 1]);
	ei->nullable = -1; /* SQLite's table metadata may know */
	if (c != NULL) {
		ei->type = c->type;
		ei->nullable = c->nullable;
	}
	ident_release(&id);
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

/* A literal as SQL; also its name and type. */
static int
literal(const Spark__Connect__Expression__Literal *l, struct sc_buf *sql,
    struct einfo *ei, struct sc_error *err)
{
	char b[64];
	size_t i;

	ei->nullable = 0;
	switch (l->literal_type_case) {
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
		qstring(sql, l->string, strlen(l->string));
		sc_buf_addstr(&ei->name, l->string, NULL);
		set_type(ei, SC_ARROW_UTF8);
		return 0;
	case SC_LIT_(DATE):
		sc_value_fmt_date(l->date, b);
		qstring(sql, b, strlen(b));
		sc_buf_addf(&ei->name, NULL, "DATE '%s'", b);
		set_type(ei, SC_ARROW_DATE32);
		return 0;
	case SC_LIT_(TIMESTAMP):
	case SC_LIT_(TIMESTAMP_NTZ): {
		bool ntz = l->literal_type_case == SC_LIT_(TIMESTAMP_NTZ);

		sc_value_fmt_timestamp(ntz ? l->timestamp_ntz : l->timestamp,
		    b);
		qstring(sql, b, strlen(b));
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
	F_TOTYPE
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
	{ "sqrt", F_SIMPLE, "sqrt", 1, 1, SC_ARROW_DOUBLE },
	{ "exp", F_SIMPLE, "exp", 1, 1, SC_ARROW_DOUBLE },
	{ "ln", F_SIMPLE, "ln", 1, 1, SC_ARROW_DOUBLE },
	{ "log10", F_SIMPLE, "log10", 1, 1, SC_ARROW_DOUBLE },
	{ "log2", F_SIMPLE, "log2", 1, 1, SC_ARROW_DOUBLE },
	{ "log", F_LOG, "log", 1, 2, SC_ARROW_DOUBLE },
	{ "sin", F_SIMPLE, "sin", 1, 1, SC_ARROW_DOUBLE },
	{ "cos", F_SIMPLE, "cos", 1, 1, SC_ARROW_DOUBLE },
	{ "tan", F_SIMPLE, "tan", 1, 1, SC_ARROW_DOUBLE },
	{ "asin", F_SIMPLE, "asin", 1, 1, SC_ARROW_DOUBLE },
	{ "acos", F_SIMPLE, "acos", 1, 1, SC_ARROW_DOUBLE },
	{ "atan", F_SIMPLE, "atan", 1, 1, SC_ARROW_DOUBLE },
	{ "atan2", F_SIMPLE, "atan2", 2, 2, SC_ARROW_DOUBLE },
	{ "degrees", F_SIMPLE, "degrees", 1, 1, SC_ARROW_DOUBLE },
	{ "radians", F_SIMPLE, "radians", 1, 1, SC_ARROW_DOUBLE },
	{ "pi", F_SIMPLE, "pi", 0, 0, SC_ARROW_DOUBLE },
	{ "sign", F_SIMPLE, "sign", 1, 1, SC_ARROW_DOUBLE },
	{ "signum", F_SIMPLE, "sign", 1, 1, SC_ARROW_DOUBLE },
	{ "pow", F_SIMPLE, "pow", 2, 2, SC_ARROW_DOUBLE },
	{ "power", F_SIMPLE, "pow", 2, 2, SC_ARROW_DOUBLE },
	{ "floor", F_FLOORCEIL, "floor", 1, 1, SC_ARROW_INT64 },
	{ "ceil", F_FLOORCEIL, "ceil", 1, 1, SC_ARROW_INT64 },
	{ "ceiling", F_FLOORCEIL, "ceil", 1, 1, SC_ARROW_INT64 },
	{ "round", F_ROUND, "round", 1, 2, R_UNK },
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
};

struct farg {
	struct sc_buf sql;
	struct einfo ei;
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
static void
common_type(struct einfo *ei, struct farg *a, size_t from, size_t n,
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
		} else if (memcmp(&ei->type, &a[i].ei.type, sizeof(ei->type)) !=
		    0) {
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

static int
function(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedFunction *f, struct sc_buf *sql,
    struct einfo *ei, struct sc_error *err)
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
	for (i = 0; i < SC_NELEM(funcs); i++)
		if (strcmp(funcs[i].name, lname) == 0) {
			fd = &funcs[i];
			break;
		}
	if (fd == NULL || f->is_user_defined_function)
		return sc_srv_error(err, "UNRESOLVED_ROUTINE", "42883",
		    "Cannot resolve routine `%s` on search path "
		    "[`system`.`builtin`, `system`.`session`, `main`]; "
		    "see engine_plan.c for the functions sc-serve maps.",
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
		einfo_init(&a[i].ei);
	}
	for (i = 0; i < n; i++) {
		const Spark__Connect__Expression *ae = f->arguments[i];

		if (fd->k == F_COUNT && n == 1 &&
		    ae->expr_type_case == SC_EXPR_(UNRESOLVED_STAR)) {
			star = true;
			continue;
		}
		if (expr(x, in, ae, &a[i].sql, &a[i].ei, err) == -1)
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
		sc_buf_addf(sql, NULL, "(%s %s %s)", A(0), fd->sql, A(1));
		sc_buf_addf(&ei->name, NULL, "(%s %s %s)", N(0), fd->sql, N(1));
		common_type(ei, a, 0, 2, 1);
		if (!is_num_type(ei->type.t))
			ei->type.t = SC_ETYPE_UNKNOWN;
		break;
	case F_DIV:
		sc_buf_addf(sql, NULL, "(CAST(%s AS REAL) / %s)", A(0), A(1));
		sc_buf_addf(&ei->name, NULL, "(%s / %s)", N(0), N(1));
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
		sc_buf_addf(sql, NULL, "round(%s, %s)", A(0),
		    n == 2 ? A(1) : "0");
		if (is_int_type(a[0].ei.type.t))
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
			struct einfo t;

			einfo_init(&t);
			t.type = ei->type;
			common_type(&t, a, n - 1, n, 1);
			if (memcmp(&t.type, &ei->type, sizeof(t.type)) != 0 &&
			    a[n - 1].ei.type.t != SC_ARROW_NULL)
				ei->type.t = SC_ETYPE_UNKNOWN;
			einfo_release(&t);
		}
		break;
	case F_CONCAT:
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
	}
	if (ei->name.len == 0) {
		sc_buf_addf(&ei->name, NULL, "%s(", lname);
		list(&ei->name, a, 0, n, true);
		sc_buf_addch(&ei->name, ')', NULL);
	}
	rc = 0;
out:
	for (i = 0; i < n; i++) {
		sc_buf_release(&a[i].sql);
		einfo_release(&a[i].ei);
	}
	free(a);
	return rc;
}

#undef A
#undef N

static int
cast(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__Cast *c, struct sc_buf *sql,
    struct einfo *ei, struct sc_error *err)
{
	struct sc_buf inner, tn;
	struct einfo iei;
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
	einfo_init(&iei);
	if (expr(x, in, c->expr, &inner, &iei, err) == -1)
		goto out;
	sc_buf_addf(sql, NULL, "sc_cast(%s, '", (const char *)inner.data);
	sc_eng_type_text(&to, SC_VALUE_TYPENAME, sql);
	sc_buf_addf(sql, NULL, "', %d", mode);
	if (iei.type.t != SC_ETYPE_UNKNOWN) {
		sc_buf_addstr(sql, ", '", NULL);
		sc_eng_type_text(&iei.type, SC_VALUE_TYPENAME, sql);
		sc_buf_addch(sql, '\'', NULL);
	}
	sc_buf_addch(sql, ')', NULL);
	sc_eng_type_text(&to, SC_VALUE_SQL, &tn);
	sc_buf_addf(&ei->name, NULL, "CAST(%s AS %s)",
	    (const char *)iei.name.data, (const char *)tn.data);
	ei->type = to;
	ei->nullable = mode != 0 || iei.nullable;
	rc = 0;
out:
	sc_buf_release(&inner);
	sc_buf_release(&tn);
	einfo_release(&iei);
	return rc;
}

/* Translate e (over input in, which may be NULL) to SQL text. */
static int
expr(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression *e, struct sc_buf *sql, struct einfo *ei,
    struct sc_error *err)
{
	int rc;

	if (e == NULL)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "An expression is missing.");
	if (++x->depth > MAX_DEPTH) {
		x->depth--;
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The plan nests deeper than %d levels.", MAX_DEPTH);
	}
	switch (e->expr_type_case) {
	case SC_EXPR_(LITERAL):
		rc = literal(e->literal, sql, ei, err);
		break;
	case SC_EXPR_(UNRESOLVED_ATTRIBUTE):
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
		sc_eng_dialect(s, sql);
		sc_buf_addstr(sql, "\n)", NULL);
		sc_buf_addstr(&ei->name, s, NULL);
		rc = 0;
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
		rc = expr(x, in, a->expr, sql, ei, err);
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
		rc = unsupported_expression(e, err);
		break;
	}
	x->depth--;
	return rc;
}

/* ------------------------------------------------------------------ */
/* Relations                                                           */
/* ------------------------------------------------------------------ */

static int rel(struct sc_ectx *, const Spark__Connect__Relation *,
    struct sc_eplan *, struct sc_error *);

/* A range's SQL form, for parents that are not native. */
static void
range_sql(struct sc_eplan *p)
{
	__int128 end;

	end = (__int128)p->start + (__int128)p->count * p->step;

	if (end > INT64_MAX)
		end = INT64_MAX;
	if (end < INT64_MIN)
		end = INT64_MIN;
	sc_buf_reset(&p->sql);
	sc_buf_addf(&p->sql, NULL, "SELECT id AS ");
	qident(&p->sql, p->cols[0].name);
	sc_buf_addf(&p->sql, NULL,
	    " FROM range(%" PRId64 ", %" PRId64 ", %" PRId64 ")", p->start,
	    (int64_t)end, p->step);
}

static void
range_rename(struct sc_eplan *p, const char *name)
{
	char *old = p->cols[0].name;

	p->cols[0].name = sc_xstrdup(name);
	free(old);
	range_sql(p);
}

static int
range_rel(const Spark__Connect__Range *r, struct sc_eplan *out,
    struct sc_error *err)
{
	struct sc_etype t = { SC_ARROW_INT64, 0, 0, false };

	out->kind = SC_EPLAN_RANGE;
	out->start = r->_start_case == SPARK__CONNECT__RANGE___START_START
	    ? r->start
	    : 0;
	out->step = r->step;
	if (sc_eng_range_count(out->start, r->end, r->step, &out->count, err) ==
	    -1)
		return -1;
	cols_add(&out->cols, &out->ncols, "id", &t, 0);
	range_sql(out);
	return 0;
}

/* Read from a table; spark_catalog.default.t means main.t. */
static int
named_table(const Spark__Connect__Read *r, struct sc_eplan *out,
    struct sc_error *err)
{
	struct ident id;
	struct sc_buf t;
	size_t i, first = 0;

	if (r->read_type_case != SPARK__CONNECT__READ__READ_TYPE_NAMED_TABLE)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.RELATION",
		    "0A000",
		    "The relation type 'read.data_source' is not "
		    "supported by sc-serve.");
	if (unknown_field(&r->base) == 3)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.RELATION",
		    "0A000", "Streaming reads are not supported by sc-serve.");
	if (ident_parse(r->named_table->unparsed_identifier != NULL
		    ? r->named_table->unparsed_identifier
		    : "",
		&id, err) == -1)
		return -1;
	if (id.n > 1 && strcasecmp(id.parts[0], "spark_catalog") == 0)
		first = 1;
	if (id.n - first > 2) {
		ident_release(&id);
		return sc_srv_error(err, "TABLE_OR_VIEW_NOT_FOUND", "42P01",
		    "The table or view `%s` cannot be found.",
		    r->named_table->unparsed_identifier);
	}
	sc_buf_init(&t, SC_BUF_UNLIMITED);
	for (i = first; i < id.n; i++) {
		if (i > first)
			sc_buf_addch(&t, '.', NULL);
		if (i + 1 < id.n && strcasecmp(id.parts[i], "default") == 0)
			qident(&t, "main");
		else
			qident(&t, id.parts[i]);
	}
	out->table = (char *)sc_buf_detach(&t, NULL);
	out->alias = sc_xstrdup(id.parts[id.n - 1]);
	sc_buf_addf(&out->sql, NULL, "SELECT * FROM %s", out->table);
	ident_release(&id);
	return 0;
}

/* The range column name a projection keeps (star or that column), or NULL. */
static const char *
range_passthrough(const Spark__Connect__Project *p, const char *col)
{
	const Spark__Connect__Expression *e;
	const char *name = col;

	if (p->n_expressions != 1)
		return NULL;
	e = p->expressions[0];
	if (e->expr_type_case == SC_EXPR_(ALIAS) && e->alias->n_name == 1) {
		name = e->alias->name[0];
		e = e->alias->expr;
		if (e == NULL)
			return NULL;
	}
	if (e->expr_type_case == SC_EXPR_(UNRESOLVED_STAR) &&
	    e->unresolved_star->_unparsed_target_case ==
		STAR_TARGET_(_NOT_SET) &&
	    name == col)
		return name;
	if (e->expr_type_case == SC_EXPR_(UNRESOLVED_ATTRIBUTE) &&
	    e->unresolved_attribute->unparsed_identifier != NULL &&
	    strcasecmp(e->unresolved_attribute->unparsed_identifier, col) == 0)
		return name;
	return NULL;
}

/* Append the select list item(s) of e; stars expand to in's columns. */
static int
select_item(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression *e, struct sc_buf *sql,
    struct sc_eplan *out, struct sc_error *err)
{
	struct einfo ei;
	size_t i;

	if (e != NULL && e->expr_type_case == SC_EXPR_(UNRESOLVED_STAR)) {
		const Spark__Connect__Expression__UnresolvedStar *s =
		    e->unresolved_star;

		if (in == NULL)
			return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
			    "A star (*) needs an input relation.");
		if (s->_unparsed_target_case == STAR_TARGET_(UNPARSED_TARGET) &&
		    s->unparsed_target != NULL) {
			struct ident id;
			char *t = sc_xstrdup(s->unparsed_target);
			size_t l = strlen(t);

			if (l >= 2 && strcmp(t + l - 2, ".*") == 0)
				t[l - 2] = '\0';
			if (ident_parse(t, &id, err) == -1) {
				free(t);
				return -1;
			}
			free(t);
			for (i = 0; i < id.n; i++) {
				qident(sql, id.parts[i]);
				sc_buf_addch(sql, '.', NULL);
			}
			ident_release(&id);
		}
		sc_buf_addch(sql, '*', NULL);
		for (i = 0; i < in->ncols; i++)
			cols_add(&out->cols, &out->ncols, in->cols[i].name,
			    &in->cols[i].type, in->cols[i].nullable);
		return 0;
	}
	einfo_init(&ei);
	if (expr(x, in, e, sql, &ei, err) == -1) {
		einfo_release(&ei);
		return -1;
	}
	sc_buf_addstr(sql, " AS ", NULL);
	qident(sql, (const char *)ei.name.data);
	cols_add(&out->cols, &out->ncols, (const char *)ei.name.data, &ei.type,
	    ei.nullable);
	einfo_release(&ei);
	return 0;
}

static int
project(struct sc_ectx *x, const Spark__Connect__Project *p,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	const char *keep;
	size_t i;
	int rc = -1;

	if (p->n_expressions == 0)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "A projection without columns is not supported "
		    "by sc-serve.");
	sc_eplan_init(&in);
	if (p->input != NULL) {
		if (rel(x, p->input, &in, err) == -1)
			goto out;
		if (in.kind == SC_EPLAN_RANGE &&
		    (keep = range_passthrough(p, in.cols[0].name)) != NULL) {
			range_rename(&in, keep);
			plan_move(out, &in);
			return 0;
		}
		if (sc_eng_plan_columns(x, &in, err) == -1)
			goto out;
	}
	sc_buf_addstr(&out->sql, "SELECT ", NULL);
	for (i = 0; i < p->n_expressions; i++) {
		if (i > 0)
			sc_buf_addstr(&out->sql, ", ", NULL);
		if (select_item(x, p->input != NULL ? &in : NULL,
			p->expressions[i], &out->sql, out, err) == -1)
			goto out;
	}
	if (p->input != NULL) {
		sc_buf_addstr(&out->sql, " FROM ", NULL);
		from_item(x, &in, out, &out->sql);
		if (in.alias != NULL)
			out->alias = sc_xstrdup(in.alias);
	}
	if (out->cols == NULL)
		out->cols = sc_xcalloc(1, sizeof(*out->cols));
	rc = 0;
out:
	sc_eplan_release(&in);
	return rc;
}

/* SELECT * FROM in, keeping in's columns and qualifier. */
static int
wrap_plan(struct sc_ectx *x, struct sc_eplan *in, struct sc_eplan *out,
    struct sc_error *err)
{
	if (sc_eng_plan_columns(x, in, err) == -1)
		return -1;
	sc_buf_addstr(&out->sql, "SELECT * FROM ", NULL);
	from_item(x, in, out, &out->sql);
	out->cols = cols_copy(in->cols, in->ncols);
	out->ncols = in->ncols;
	if (in->alias != NULL)
		out->alias = sc_xstrdup(in->alias);
	return 0;
}

static int
wrap_begin(struct sc_ectx *x, const Spark__Connect__Relation *input,
    const char *what, struct sc_eplan *in, struct sc_eplan *out,
    struct sc_error *err)
{
	if (input == NULL)
		return no_input(what, err);
	if (rel(x, input, in, err) == -1)
		return -1;
	return wrap_plan(x, in, out, err);
}

static int
filter(struct sc_ectx *x, const Spark__Connect__Filter *f, struct sc_eplan *out,
    struct sc_error *err)
{
	struct sc_eplan in;
	struct einfo ei;
	int rc = -1;

	sc_eplan_init(&in);
	einfo_init(&ei);
	if (wrap_begin(x, f->input, "filter", &in, out, err) == -1)
		goto out;
	sc_buf_addstr(&out->sql, " WHERE ", NULL);
	if (expr(x, &in, f->condition, &out->sql, &ei, err) == -1)
		goto out;
	rc = 0;
out:
	einfo_release(&ei);
	sc_eplan_release(&in);
	return rc;
}

static int
sort(struct sc_ectx *x, const Spark__Connect__Sort *s, struct sc_eplan *out,
    struct sc_error *err)
{
	struct sc_eplan in;
	struct einfo ei;
	size_t i;
	int rc = -1, desc;

	sc_eplan_init(&in);
	if (wrap_begin(x, s->input, "sort", &in, out, err) == -1)
		goto out;
	for (i = 0; i < s->n_order; i++) {
		const Spark__Connect__Expression__SortOrder *o = s->order[i];

		sc_buf_addstr(&out->sql, i == 0 ? " ORDER BY " : ", ", NULL);
		einfo_init(&ei);
		rc = expr(x, &in, o->child, &out->sql, &ei, err);
		einfo_release(&ei);
		if (rc == -1)
			goto out;
		rc = -1;
		desc = o->direction == SORT_DIR_(DESCENDING);
		sc_buf_addstr(&out->sql, desc ? " DESC" : " ASC", NULL);
		if (o->null_ordering == SORT_NULLS_(FIRST) ||
		    (o->null_ordering == SORT_NULLS_(UNSPECIFIED) && !desc))
			sc_buf_addstr(&out->sql, " NULLS FIRST", NULL);
		else
			sc_buf_addstr(&out->sql, " NULLS LAST", NULL);
	}
	rc = 0;
out:
	sc_eplan_release(&in);
	return rc;
}

static int
limit_offset(struct sc_ectx *x, const Spark__Connect__Relation *input,
    int32_t n, bool offset, struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	int rc = -1;

	if (n < 0)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The %s must not be negative: %d.",
		    offset ? "offset" : "limit", (int)n);
	if (input == NULL)
		return no_input(offset ? "offset" : "limit", err);
	sc_eplan_init(&in);
	if (rel(x, input, &in, err) == -1)
		goto out;
	if (in.kind == SC_EPLAN_RANGE) {
		if (offset) {
			uint64_t skip = (uint64_t)n < in.count ? (uint64_t)n
							       : in.count;

			in.start = (int64_t)((uint64_t)in.start +
			    skip * (uint64_t)in.step);
			in.count -= skip;
		} else if ((uint64_t)n < in.count) {
			in.count = (uint64_t)n;
		}
		range_sql(&in);
		plan_move(out, &in);
		return 0;
	}
	if (wrap_plan(x, &in, out, err) == -1)
		goto out;
	if (offset)
		sc_buf_addf(&out->sql, NULL, " LIMIT -1 OFFSET %d", (int)n);
	else
		sc_buf_addf(&out->sql, NULL, " LIMIT %d", (int)n);
	rc = 0;
out:
	sc_eplan_release(&in);
	return rc;
}

static int
aggregate(struct sc_ectx *x, const Spark__Connect__Aggregate *a,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	struct sc_buf group;
	struct einfo ei;
	size_t i, nitems = 0;
	int rc = -1;

	if (a->group_type != GROUP_(GROUPBY) &&
	    a->group_type != GROUP_(UNSPECIFIED))
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.GROUP_TYPE",
		    "0A000",
		    "Aggregation with %s is not supported by "
		    "sc-serve (only groupBy is).",
		    a->group_type == GROUP_(ROLLUP)	 ? "rollup"
			: a->group_type == GROUP_(CUBE)	 ? "cube"
			: a->group_type == GROUP_(PIVOT) ? "pivot"
							 : "grouping sets");
	if (a->input == NULL)
		return no_input("aggregate", err);
	sc_eplan_init(&in);
	sc_buf_init(&group, SC_BUF_UNLIMITED);
	if (rel(x, a->input, &in, err) == -1 ||
	    sc_eng_plan_columns(x, &in, err) == -1)
		goto out;
	sc_buf_addstr(&out->sql, "SELECT ", NULL);
	for (i = 0; i < a->n_grouping_expressions; i++) {
		size_t start = out->sql.len;

		if (nitems++ > 0)
			sc_buf_addstr(&out->sql, ", ", NULL);
		if (group.len > 0)
			sc_buf_addstr(&group, ", ", NULL);
		einfo_init(&ei);
		start = out->sql.len;
		rc = expr(x, &in, a->grouping_expressions[i], &out->sql, &ei,
		    err);
		if (rc == 0) {
			sc_buf_add(&group, out->sql.data + start,
			    out->sql.len - start, NULL);
			sc_buf_addstr(&out->sql, " AS ", NULL);
			qident(&out->sql, (const char *)ei.name.data);
			cols_add(&out->cols, &out->ncols,
			    (const char *)ei.name.data, &ei.type, ei.nullable);
		}
		einfo_release(&ei);
		if (rc == -1)
			goto out;
		rc = -1;
	}
	for (i = 0; i < a->n_aggregate_expressions; i++) {
		if (nitems++ > 0)
			sc_buf_addstr(&out->sql, ", ", NULL);
		if (select_item(x, &in, a->aggregate_expressions[i], &out->sql,
			out, err) == -1)
			goto out;
	}
	if (nitems == 0) {
		sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "An aggregate needs at least one column.");
		goto out;
	}
	sc_buf_addstr(&out->sql, " FROM ", NULL);
	from_item(x, &in, out, &out->sql);
	if (group.len > 0)
		sc_buf_addf(&out->sql, NULL, " GROUP BY %s",
		    (const char *)group.data);
	if (out->cols == NULL)
		out->cols = sc_xcalloc(1, sizeof(*out->cols));
	rc = 0;
out:
	sc_buf_release(&group);
	sc_eplan_release(&in);
	return rc;
}

/*
 * Give in's columns new names (positionally) through a CTE column list,
 * which also copes with duplicate input names.
 */
static int
rename_all(struct sc_ectx *x, struct sc_eplan *in, char **names,
    struct sc_eplan *out, struct sc_error *err)
{
	size_t i, n;
	char cte[32];
	struct sc_buf body;

	(void)err;
	if (in->kind == SC_EPLAN_RANGE) {
		range_rename(in, names[0]);
		plan_move(out, in);
		return 0;
	}
	n = in->ncols;
	sc_buf_init(&body, SC_BUF_UNLIMITED);
	sc_buf_addstr(&body, "SELECT * FROM ", NULL);
	from_item(x, in, out, &body);
	snprintf(cte, sizeof(cte), "_sc_q%u", x->seq++);
	with_add(&out->with, cte, names, n, body.data, body.len);
	sc_buf_release(&body);
	sc_buf_addstr(&out->sql, "SELECT * FROM ", NULL);
	qident(&out->sql, cte);
	out->cols = cols_copy(in->cols, n);
	out->ncols = n;
	for (i = 0; i < n; i++) {
		free(out->cols[i].name);
		out->cols[i].name = sc_xstrdup(names[i]);
	}
	return 0;
}

static int
to_df(struct sc_ectx *x, const Spark__Connect__ToDF *t, struct sc_eplan *out,
    struct sc_error *err)
{
	struct sc_eplan in;
	int rc = -1;

	if (t->input == NULL)
		return no_input("to_df", err);
	sc_eplan_init(&in);
	if (rel(x, t->input, &in, err) == -1 ||
	    sc_eng_plan_columns(x, &in, err) == -1)
		goto out;
	if (t->n_column_names != in.ncols) {
		sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The number of columns doesn't match: the input has %zu "
		    "columns, toDF gave %zu names.",
		    in.ncols, t->n_column_names);
		goto out;
	}
	rc = rename_all(x, &in, t->column_names, out, err);
out:
	sc_eplan_release(&in);
	return rc;
}

/* Parse a length-delimited protobuf varint at *p (bounded by end). */
static int
varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	int shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if ((b & 0x80) == 0)
			return 0;
		shift += 7;
	}
	return -1;
}

/*
 * 4.x sends WithColumnsRenamed.renames (field 3, repeated Rename{1
 * col_name, 2 new_column_name}), which proto/ leaves out; read it from
 * the unknown fields.  Adds (old, new) pairs to the arrays.
 */
static void
renames_4x(const ProtobufCMessage *m, char ***from, char ***to, size_t *n)
{
	unsigned i;

	for (i = 0; i < m->n_unknown_fields; i++) {
		const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
		const uint8_t *p = u->data, *end = u->data + u->len;
		char *f = NULL, *t = NULL;

		uint64_t total;

		if (u->tag != 3 ||
		    u->wire_type != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED)
			continue;
		/* protobuf-c keeps the length prefix in the data. */
		if (varint(&p, end, &total) == -1 ||
		    total != (uint64_t)(end - p))
			continue;
		while (p < end) {
			uint64_t key, len;

			if (varint(&p, end, &key) == -1 || (key & 7) != 2 ||
			    varint(&p, end, &len) == -1 ||
			    len > (uint64_t)(end - p))
				break;
			if (key >> 3 == 1) {
				free(f);
				f = sc_xstrndup((const char *)p, (size_t)len);
			} else if (key >> 3 == 2) {
				free(t);
				t = sc_xstrndup((const char *)p, (size_t)len);
			}
			p += len;
		}
		if (f != NULL && t != NULL) {
			*from = sc_xreallocarray(*from, *n + 1, sizeof(char *));
			*to = sc_xreallocarray(*to, *n + 1, sizeof(char *));
			(*from)[*n] = f;
			(*to)[(*n)++] = t;
		} else {
			free(f);
			free(t);
		}
	}
}

static int
renamed(struct sc_ectx *x, const Spark__Connect__WithColumnsRenamed *w,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	char **names = NULL, **from = NULL, **to = NULL;
	size_t i, k, n = 0;
	int rc = -1;

	if (w->input == NULL)
		return no_input("with_columns_renamed", err);
	sc_eplan_init(&in);
	if (rel(x, w->input, &in, err) == -1 ||
	    sc_eng_plan_columns(x, &in, err) == -1)
		goto out;
	for (i = 0; i < w->n_rename_columns_map; i++) {
		from = sc_xreallocarray(from, n + 1, sizeof(char *));
		to = sc_xreallocarray(to, n + 1, sizeof(char *));
		from[n] = sc_xstrdup(w->rename_columns_map[i]->key);
		to[n++] = sc_xstrdup(w->rename_columns_map[i]->value);
	}
	renames_4x(&w->base, &from, &to, &n);
	names = sc_xcalloc(in.ncols + 1, sizeof(*names));
	for (i = 0; i < in.ncols; i++) {
		names[i] = in.cols[i].name;
		for (k = 0; k < n; k++)
			if (strcasecmp(from[k], in.cols[i].name) == 0)
				names[i] = to[k];
	}
	rc = rename_all(x, &in, names, out, err);
out:
	for (k = 0; k < n; k++) {
		free(from[k]);
		free(to[k]);
	}
	free(from);
	free(to);
	free(names);
	sc_eplan_release(&in);
	return rc;
}

static int
show_string(struct sc_ectx *x, const Spark__Connect__ShowString *s,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_buf text;
	struct sc_etype t = { SC_ARROW_UTF8, 0, 0, false };

	if (s->input == NULL)
		return no_input("show_string", err);
	sc_buf_init(&text, SC_BUF_UNLIMITED);
	if (sc_eng_show(x, s, &text, err) == -1) {
		sc_buf_release(&text);
		return -1;
	}
	sc_buf_addstr(&out->sql, "SELECT ", NULL);
	qstring(&out->sql, (const char *)text.data, text.len);
	sc_buf_addstr(&out->sql, " AS `show_string`", NULL);
	cols_add(&out->cols, &out->ncols, "show_string", &t, 0);
	sc_buf_release(&text);
	return 0;
}

static int
rel(struct sc_ectx *x, const Spark__Connect__Relation *r, struct sc_eplan *out,
    struct sc_error *err)
{
	int rc;

	if (r == NULL)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A relation is missing.");
	if (++x->depth > MAX_DEPTH) {
		x->depth--;
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The plan nests deeper than %d levels.", MAX_DEPTH);
	}
	switch (r->rel_type_case) {
	case SC_REL_(SQL):
		out->raw = true;
		sc_eng_dialect(r->sql->query != NULL ? r->sql->query : "",
		    &out->sql);
		free(x->params.v);
		sc_eng_params_from_sql(&x->params, r->sql);
		rc = 0;
		break;
	case SC_REL_(RANGE):
		rc = range_rel(r->range, out, err);
		break;
	case SC_REL_(READ):
		rc = named_table(r->read, out, err);
		break;
	case SC_REL_(LOCAL_RELATION):
		rc = sc_eng_local_relation(x, r->local_relation, out, err);
		break;
	case SC_REL_(PROJECT):
		rc = project(x, r->project, out, err);
		break;
	case SC_REL_(FILTER):
		rc = filter(x, r->filter, out, err);
		break;
	case SC_REL_(SORT):
		rc = sort(x, r->sort, out, err);
		break;
	case SC_REL_(LIMIT):
		rc = limit_offset(x, r->limit->input, r->limit->limit, false,
		    out, err);
		break;
	case SC_REL_(OFFSET):
		rc = limit_offset(x, r->offset->input, r->offset->offset, true,
		    out, err);
		break;
	case SC_REL_(AGGREGATE):
		rc = aggregate(x, r->aggregate, out, err);
		break;
	case SC_REL_(SUBQUERY_ALIAS):
		if (r->subquery_alias->input == NULL) {
			rc = no_input("subquery_alias", err);
			break;
		}
		rc = rel(x, r->subquery_alias->input, out, err);
		if (rc == 0) {
			free(out->alias);
			out->alias = sc_xstrdup(r->subquery_alias->alias != NULL
				? r->subquery_alias->alias
				: "");
		}
		break;
	case SC_REL_(TO_DF):
		rc = to_df(x, r->to_df, out, err);
		break;
	case SC_REL_(WITH_COLUMNS_RENAMED):
		rc = renamed(x, r->with_columns_renamed, out, err);
		break;
	case SC_REL_(SHOW_STRING):
		rc = show_string(x, r->show_string, out, err);
		break;
	default:
		rc = unsupported_relation(r, err);
		break;
	}
	x->depth--;
	return rc;
}

/* Make p return at most n rows. */
int
sc_eng_plan_limit(struct sc_ectx *x, struct sc_eplan *p, uint64_t n,
    struct sc_error *err)
{
	struct sc_eplan w;

	if (p->kind == SC_EPLAN_RANGE) {
		if (n < p->count)
			p->count = n;
		range_sql(p);
		return 0;
	}
	sc_eplan_init(&w);
	if (wrap_plan(x, p, &w, err) == -1) {
		sc_eplan_release(&w);
		return -1;
	}
	sc_buf_addf(&w.sql, NULL, " LIMIT %" PRIu64, n);
	plan_finish(&w);
	plan_move(p, &w);
	return 0;
}

/* Translate root into out (initialised by the caller). */
int
sc_eng_translate(struct sc_ectx *x, const Spark__Connect__Relation *root,
    struct sc_eplan *out, struct sc_error *err)
{
	if (rel(x, root, out, err) == -1)
		return -1;
	plan_finish(out);
	return 0;
}
