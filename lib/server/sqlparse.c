/* SPDX-License-Identifier: MIT */

/*
 * sqlparse.c: a Spark SQL query as an unresolved Spark Connect plan.
 * Recursive descent over sqllex.c's tokens, with Spark's operator
 * precedence (OR < AND < NOT < comparisons and predicates < | < ^ < &
 * < + - || < * / % div < unary), Spark's literal types (1 int, 1L
 * bigint, 1.5 decimal(2,1), 1.5D and 1e3 double, 'x' and "x" string,
 * DATE '...', TIMESTAMP '...') and Spark's operator names, so the plan
 * translator answers as it does for the same DataFrame.  Anything
 * outside the grammar is "not taken" and goes to SQLite as before.
 */

#include "server/sqlparse.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/arrow.h"
#include "core/error.h"
#include "core/xmem.h"
#include "server/srverror.h"
#include "core/banned.h"

/* Deepest nesting of expressions and subqueries taken. */
#define MAX_DEPTH 200

typedef Spark__Connect__Expression Expr;
typedef Spark__Connect__Relation Rel;

struct parser {
	const char *src;
	struct sc_sqltok *t;
	size_t n;
	size_t i;
	int fail; /* 0, or enum sc_sqlparse_rc of the failure */
	struct sc_error *err;
	int depth;
	size_t hidden; /* hidden output columns (see sqlparse.h) */
	struct cte *ctes; /* WITH name AS (query), ... */
	size_t nctes;
	struct scope *scope; /* the joined FROM items' names in scope */
	size_t nscope;
	int64_t next_id; /* the next plan id for a joined FROM item */
	size_t nwindows; /* OVER (...) windows read so far */
};

/*
 * A FROM item of a join: its alias (or table name) and the plan id the
 * parser stamps on it, by which a qualified column above the join (p.x)
 * names that side, as a DataFrame's df["x"] does.
 */
struct scope {
	char *name;
	int64_t id;
};

/* Plan ids of joined FROM items: far from those a client stamps. */
#define SQL_PLAN_ID_BASE ((int64_t)1 << 52)

/* A common table expression, inlined where it is named. */
struct cte {
	char *name;
	Spark__Connect__Relation *rel;
};

/* ------------------------------------------------------------------ */
/* Tokens                                                              */
/* ------------------------------------------------------------------ */

static const struct sc_sqltok *
cur(const struct parser *p)
{
	return &p->t[p->i];
}

static const struct sc_sqltok *
peek(const struct parser *p, size_t k)
{
	return p->i + k < p->n ? &p->t[p->i + k] : &p->t[p->n - 1];
}

static bool
tok_word(const struct sc_sqltok *t, const char *w)
{
	return t->kind == SC_TK_WORD && strlen(w) == t->n &&
	    strncasecmp(t->s, w, t->n) == 0;
}

static bool
tok_op(const struct sc_sqltok *t, const char *o)
{
	return t->kind == SC_TK_OP && strlen(o) == t->n &&
	    strncmp(t->s, o, t->n) == 0;
}

static bool
is_word(const struct parser *p, const char *w)
{
	return tok_word(cur(p), w);
}

static bool
is_op(const struct parser *p, const char *o)
{
	return tok_op(cur(p), o);
}

static bool
accept_word(struct parser *p, const char *w)
{
	if (!is_word(p, w))
		return false;
	p->i++;
	return true;
}

static bool
accept_op(struct parser *p, const char *o)
{
	if (!is_op(p, o))
		return false;
	p->i++;
	return true;
}

/* Give up on the text: leave it to SQLite. */
static void *
not_taken(struct parser *p)
{
	if (p->fail == 0)
		p->fail = SC_SQLPARSE_NOT_TAKEN;
	return NULL;
}

/* Refuse the text: Spark syntax without Spark's answer here. */
static void *
unsupported(struct parser *p, const char *what)
{
	if (p->fail == 0) {
		p->fail = SC_SQLPARSE_ERROR;
		sc_srv_error(p->err, "UNSUPPORTED_FEATURE.SQL_SYNTAX", "0A000",
		    "The feature is not supported: %s in SQL text.", what);
	}
	return NULL;
}

static bool
expect_op(struct parser *p, const char *o)
{
	if (accept_op(p, o))
		return true;
	not_taken(p);
	return false;
}

/* Words that end an expression or cannot be a bare alias. */
static const char *const reserved[] = {
	"all",
	"and",
	"anti",
	"as",
	"asc",
	"between",
	"by",
	"case",
	"cluster",
	"cross",
	"desc",
	"distinct",
	"distribute",
	"div",
	"else",
	"end",
	"escape",
	"except",
	"exists",
	"false",
	"filter",
	"for",
	"from",
	"full",
	"group",
	"having",
	"ilike",
	"in",
	"inner",
	"intersect",
	"interval",
	"into",
	"is",
	"join",
	"lateral",
	"left",
	"like",
	"limit",
	"minus",
	"natural",
	"not",
	"null",
	"nulls",
	"offset",
	"on",
	"or",
	"order",
	"outer",
	"over",
	"pivot",
	"qualify",
	"regexp",
	"right",
	"rlike",
	"select",
	"semi",
	"sort",
	"tablesample",
	"then",
	"true",
	"union",
	"unpivot",
	"using",
	"values",
	"when",
	"where",
	"window",
	"with",
};

static bool
is_reserved(const struct sc_sqltok *t)
{
	size_t i;

	if (t->kind != SC_TK_WORD)
		return false;
	for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (tok_word(t, reserved[i]))
			return true;
	return false;
}

/* An identifier's text (malloc'ed), or NULL when t is none. */
static char *
ident_text(const struct sc_sqltok *t)
{
	if (t->kind == SC_TK_QIDENT)
		return sc_xstrndup((const char *)t->text.data, t->text.len);
	if (t->kind == SC_TK_WORD)
		return sc_xstrndup(t->s, t->n);
	return NULL;
}

/* An identifier part as unparsed_identifier text: `x` if it needs it. */
static void
add_part(struct sc_buf *b, const struct sc_sqltok *t)
{
	size_t i;

	if (t->kind == SC_TK_WORD) {
		sc_buf_add(b, t->s, t->n, NULL);
		return;
	}
	sc_buf_addch(b, '`', NULL);
	for (i = 0; i < t->text.len; i++) {
		if (t->text.data[i] == '`')
			sc_buf_addch(b, '`', NULL);
		sc_buf_addch(b, (char)t->text.data[i], NULL);
	}
	sc_buf_addch(b, '`', NULL);
}

/* ------------------------------------------------------------------ */
/* Building messages                                                   */
/* ------------------------------------------------------------------ */

static Expr *
expr_new(void)
{
	Expr *e = sc_xmalloc(sizeof(*e));

	spark__connect__expression__init(e);
	return e;
}

static void
expr_free(Expr *e)
{
	if (e != NULL)
		protobuf_c_message_free_unpacked(&e->base, NULL);
}

/* A deep copy of e, or NULL. */
static Expr *
expr_copy(const Expr *e)
{
	size_t len = protobuf_c_message_get_packed_size(&e->base);
	uint8_t *buf = sc_xmalloc(len > 0 ? len : 1);
	Expr *copy;

	protobuf_c_message_pack(&e->base, buf);
	copy = spark__connect__expression__unpack(NULL, len, buf);
	free(buf);
	return copy;
}

static Rel *
rel_new(void)
{
	Rel *r = sc_xmalloc(sizeof(*r));

	spark__connect__relation__init(r);
	return r;
}

static void
rel_free(Rel *r)
{
	if (r != NULL)
		protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A deep copy of r, or NULL. */
static Rel *
rel_copy(const Rel *r)
{
	size_t len = protobuf_c_message_get_packed_size(&r->base);
	uint8_t *buf = sc_xmalloc(len > 0 ? len : 1);
	Rel *copy;

	protobuf_c_message_pack(&r->base, buf);
	copy = spark__connect__relation__unpack(NULL, len, buf);
	free(buf);
	return copy;
}

static Spark__Connect__Expression__Literal *
lit_new(Expr **ep)
{
	Expr *e = expr_new();
	Spark__Connect__Expression__Literal *l = sc_xmalloc(sizeof(*l));

	spark__connect__expression__literal__init(l);
	e->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL;
	e->literal = l;
	*ep = e;
	return l;
}

static Expr *
lit_int(int32_t v)
{
	Expr *e;
	Spark__Connect__Expression__Literal *l = lit_new(&e);

	l->literal_type_case =
	    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER;
	l->integer = v;
	return e;
}

static Expr *
func_new(const char *name, size_t nargs, ...)
{
	Expr *e = expr_new();
	Spark__Connect__Expression__UnresolvedFunction *f;
	va_list ap;
	size_t i;

	f = sc_xmalloc(sizeof(*f));
	spark__connect__expression__unresolved_function__init(f);
	f->function_name = sc_xstrdup(name);
	f->arguments = sc_xcalloc(nargs > 0 ? nargs : 1, sizeof(Expr *));
	f->n_arguments = nargs;
	va_start(ap, nargs);
	for (i = 0; i < nargs; i++)
		f->arguments[i] = va_arg(ap, Expr *);
	va_end(ap);
	e->expr_type_case =
	    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION;
	e->unresolved_function = f;
	return e;
}

static void
func_add(Expr *e, Expr *arg)
{
	Spark__Connect__Expression__UnresolvedFunction *f =
	    e->unresolved_function;

	f->arguments =
	    sc_xreallocarray(f->arguments, f->n_arguments + 1, sizeof(Expr *));
	f->arguments[f->n_arguments++] = arg;
}

static Expr *
attr_new(const char *ident)
{
	Expr *e = expr_new();
	Spark__Connect__Expression__UnresolvedAttribute *a;

	a = sc_xmalloc(sizeof(*a));
	spark__connect__expression__unresolved_attribute__init(a);
	a->unparsed_identifier = sc_xstrdup(ident);
	e->expr_type_case =
	    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE;
	e->unresolved_attribute = a;
	return e;
}

static Expr *
star_new(const char *target)
{
	Expr *e = expr_new();
	Spark__Connect__Expression__UnresolvedStar *s;

	s = sc_xmalloc(sizeof(*s));
	spark__connect__expression__unresolved_star__init(s);
	if (target != NULL) {
		s->_unparsed_target_case =
		    SPARK__CONNECT__EXPRESSION__UNRESOLVED_STAR___UNPARSED_TARGET_UNPARSED_TARGET;
		s->unparsed_target = sc_xstrdup(target);
	}
	e->expr_type_case =
	    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_STAR;
	e->unresolved_star = s;
	return e;
}

static Expr *
alias_new(Expr *child, char *name)
{
	Expr *e = expr_new();
	Spark__Connect__Expression__Alias *a;

	a = sc_xmalloc(sizeof(*a));
	spark__connect__expression__alias__init(a);
	a->expr = child;
	a->name = sc_xcalloc(1, sizeof(char *));
	a->name[0] = name;
	a->n_name = 1;
	e->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS;
	e->alias = a;
	return e;
}

/* ------------------------------------------------------------------ */
/* Literals                                                            */
/* ------------------------------------------------------------------ */

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static bool
leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* "yyyy-mm-dd" at s: the days, and the rest of s in *end. */
static bool
parse_date(const char *s, int64_t *days, const char **end)
{
	static const unsigned mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30,
		31, 30, 31 };
	long y, m = 1, d = 1;
	char *e;

	errno = 0;
	y = strtol(s, &e, 10);
	if (e - s != 4 || errno != 0)
		return false;
	if (*e == '-') {
		s = e + 1;
		m = strtol(s, &e, 10);
		if (e - s < 1 || e - s > 2)
			return false;
		if (*e == '-') {
			s = e + 1;
			d = strtol(s, &e, 10);
			if (e - s < 1 || e - s > 2)
				return false;
		}
	}
	if (m < 1 || m > 12 || d < 1 || d > (long)mdays[m - 1] ||
	    (m == 2 && d == 29 && !leap(y)))
		return false;
	*days = days_from_civil(y, (unsigned)m, (unsigned)d);
	*end = e;
	return true;
}

/* "yyyy-mm-dd[ |T]hh:mm[:ss[.ffffff]]" as microseconds (UTC). */
static bool
parse_timestamp(const char *s, int64_t *us)
{
	int64_t days, frac = 0, scale = 100000;
	long h = 0, mi = 0, sec = 0;
	const char *e;
	char *x;

	if (!parse_date(s, &days, &e))
		return false;
	if (*e == ' ' || *e == 'T') {
		s = e + 1;
		h = strtol(s, &x, 10);
		if (x - s < 1 || x - s > 2 || *x != ':')
			return false;
		s = x + 1;
		mi = strtol(s, &x, 10);
		if (x - s != 2)
			return false;
		if (*x == ':') {
			s = x + 1;
			sec = strtol(s, &x, 10);
			if (x - s != 2)
				return false;
			if (*x == '.') {
				for (x++; isdigit((unsigned char)*x); x++) {
					frac += (*x - '0') * scale;
					scale /= 10;
				}
			}
		}
		e = x;
	}
	if (*e == 'Z')
		e++;
	if (*e != '\0' || h > 23 || mi > 59 || sec > 59)
		return false;
	*us = ((days * 86400 + h * 3600 + mi * 60 + sec) * 1000000) + frac;
	return true;
}

/* DATE '...', TIMESTAMP '...' after the keyword. */
static Expr *
typed_literal(struct parser *p, const char *kw)
{
	const struct sc_sqltok *t = cur(p);
	Spark__Connect__Expression__Literal *l;
	const char *s = (const char *)t->text.data, *end;
	int64_t v;
	Expr *e;

	p->i++;
	if (strcasecmp(kw, "date") == 0) {
		while (*s == ' ')
			s++;
		if (!parse_date(s, &v, &end) || *end != '\0' || v < INT32_MIN ||
		    v > INT32_MAX)
			return not_taken(p);
		l = lit_new(&e);
		l->literal_type_case =
		    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DATE;
		l->date = (int32_t)v;
		return e;
	}
	while (*s == ' ')
		s++;
	if (!parse_timestamp(s, &v))
		return not_taken(p);
	l = lit_new(&e);
	if (strcasecmp(kw, "timestamp_ntz") == 0) {
		l->literal_type_case =
		    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_TIMESTAMP_NTZ;
		l->timestamp_ntz = v;
	} else {
		l->literal_type_case =
		    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_TIMESTAMP;
		l->timestamp = v;
	}
	return e;
}

/* A number token (negated when neg) as Spark types it. */
static Expr *
number_literal(struct parser *p, bool neg)
{
	const struct sc_sqltok *t = cur(p);
	Spark__Connect__Expression__Literal *l;
	char buf[128], *end;
	size_t len = t->numlen, digits = 0, scale = 0, i;
	bool seen_dot = false, lead = true;
	long long ll;
	double d;
	Expr *e;

	if (len + 2 > sizeof(buf))
		return not_taken(p);
	snprintf(buf, sizeof(buf), "%s%.*s", neg ? "-" : "", (int)len, t->s);
	p->i++;
	l = lit_new(&e);
	if (t->suffix == 'D' || t->suffix == 'F' ||
	    (t->exp && t->suffix != 'B')) {
		errno = 0;
		d = strtod(buf, &end);
		if (t->suffix == 'F') {
			l->literal_type_case =
			    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_FLOAT;
			l->float_ = (float)d;
		} else {
			l->literal_type_case =
			    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DOUBLE;
			l->double_ = d;
		}
		return e;
	}
	if (t->frac || t->suffix == 'B') {
		if (t->exp) {
			expr_free(e);
			return not_taken(p);
		}
		for (i = 0; i < len; i++) {
			if (t->s[i] == '.') {
				seen_dot = true;
				continue;
			}
			if (t->s[i] == '0' && lead && !seen_dot)
				continue;
			lead = false;
			digits++;
			if (seen_dot)
				scale++;
		}
		if (digits < scale)
			digits = scale;
		if (digits == 0)
			digits = 1;
		if (digits > 38) {
			expr_free(e);
			return not_taken(p);
		}
		l->literal_type_case =
		    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DECIMAL;
		l->decimal = sc_xmalloc(sizeof(*l->decimal));
		spark__connect__expression__literal__decimal__init(l->decimal);
		l->decimal->value = sc_xstrdup(buf);
		l->decimal->_precision_case =
		    SPARK__CONNECT__EXPRESSION__LITERAL__DECIMAL___PRECISION_PRECISION;
		l->decimal->precision = (int32_t)digits;
		l->decimal->_scale_case =
		    SPARK__CONNECT__EXPRESSION__LITERAL__DECIMAL___SCALE_SCALE;
		l->decimal->scale = (int32_t)scale;
		return e;
	}
	errno = 0;
	ll = strtoll(buf, &end, 10);
	if (errno != 0 || *end != '\0') {
		/* Past bigint: Spark makes it decimal(n,0). */
		expr_free(e);
		return t->suffix == 0
		    ? not_taken(p)
		    : unsupported(p, "an out-of-range numeric literal");
	}
	switch (t->suffix) {
	case 'L':
		l->literal_type_case =
		    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG;
		l->long_ = ll;
		return e;
	case 'S':
		if (ll < INT16_MIN || ll > INT16_MAX)
			break;
		l->literal_type_case =
		    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_SHORT;
		l->short_ = (int32_t)ll;
		return e;
	case 'Y':
		if (ll < INT8_MIN || ll > INT8_MAX)
			break;
		l->literal_type_case =
		    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BYTE;
		l->byte = (int32_t)ll;
		return e;
	default:
		if (ll >= INT32_MIN && ll <= INT32_MAX) {
			l->literal_type_case =
			    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER;
			l->integer = (int32_t)ll;
		} else {
			l->literal_type_case =
			    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG;
			l->long_ = ll;
		}
		return e;
	}
	expr_free(e);
	return unsupported(p, "an out-of-range numeric literal");
}

/* ------------------------------------------------------------------ */
/* Expressions                                                         */
/* ------------------------------------------------------------------ */

static Expr *expr(struct parser *p);

static bool
deeper(struct parser *p)
{
	if (++p->depth > MAX_DEPTH) {
		not_taken(p);
		return false;
	}
	return true;
}

/* A type name up to the closing ')' of CAST, as text. */
static char *
type_text(struct parser *p)
{
	struct sc_buf b;
	int depth = 0;
	const struct sc_sqltok *t;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	for (;;) {
		t = cur(p);
		if (t->kind == SC_TK_EOF || (depth == 0 && tok_op(t, ")")))
			break;
		if (tok_op(t, "(") || tok_op(t, "<"))
			depth++;
		else if (tok_op(t, ")") || tok_op(t, ">"))
			depth--;
		if (b.len > 0 && t->kind == SC_TK_WORD)
			sc_buf_addch(&b, ' ', NULL);
		if (t->kind == SC_TK_QIDENT || t->kind == SC_TK_STRING) {
			sc_buf_release(&b);
			return not_taken(p);
		}
		sc_buf_add(&b, t->s, t->n, NULL);
		p->i++;
	}
	if (b.len == 0) {
		sc_buf_release(&b);
		return not_taken(p);
	}
	return (char *)sc_buf_detach(&b, NULL);
}

static Expr *
cast_expr(struct parser *p, bool try_)
{
	Spark__Connect__Expression__Cast *c;
	Expr *inner, *e;
	char *ty;

	if (!expect_op(p, "(") || (inner = expr(p)) == NULL)
		return NULL;
	if (!accept_word(p, "as") || (ty = type_text(p)) == NULL) {
		expr_free(inner);
		return not_taken(p);
	}
	if (!expect_op(p, ")")) {
		free(ty);
		expr_free(inner);
		return NULL;
	}
	c = sc_xmalloc(sizeof(*c));
	spark__connect__expression__cast__init(c);
	c->expr = inner;
	c->cast_to_type_case =
	    SPARK__CONNECT__EXPRESSION__CAST__CAST_TO_TYPE_TYPE_STR;
	c->type_str = ty;
	c->eval_mode = try_
	    ? SPARK__CONNECT__EXPRESSION__CAST__EVAL_MODE__EVAL_MODE_TRY
	    : SPARK__CONNECT__EXPRESSION__CAST__EVAL_MODE__EVAL_MODE_UNSPECIFIED;
	e = expr_new();
	e->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CAST;
	e->cast = c;
	return e;
}

/* CASE [x] WHEN a THEN b ... [ELSE c] END as when(cond, val, ...). */
static Expr *
case_expr(struct parser *p)
{
	Expr *subject = NULL, *w = NULL, *c, *v;

	if (!is_word(p, "when") && (subject = expr(p)) == NULL)
		return NULL;
	w = func_new("when", 0);
	while (accept_word(p, "when")) {
		if ((c = expr(p)) == NULL)
			goto bad;
		if (subject != NULL) {
			Spark__Connect__Expression *copy;
			size_t len =
			    protobuf_c_message_get_packed_size(&subject->base);
			uint8_t *buf = sc_xmalloc(len > 0 ? len : 1);

			protobuf_c_message_pack(&subject->base, buf);
			copy =
			    spark__connect__expression__unpack(NULL, len, buf);
			free(buf);
			if (copy == NULL) {
				expr_free(c);
				goto bad;
			}
			c = func_new("==", 2, copy, c);
		}
		func_add(w, c);
		if (!accept_word(p, "then") || (v = expr(p)) == NULL) {
			not_taken(p);
			goto bad;
		}
		func_add(w, v);
	}
	if (w->unresolved_function->n_arguments == 0) {
		not_taken(p);
		goto bad;
	}
	if (accept_word(p, "else")) {
		if ((v = expr(p)) == NULL)
			goto bad;
		func_add(w, v);
	}
	if (!accept_word(p, "end")) {
		not_taken(p);
		goto bad;
	}
	expr_free(subject);
	return w;
bad:
	expr_free(subject);
	expr_free(w);
	return NULL;
}

typedef Spark__Connect__Expression__Window__WindowFrame__FrameBoundary Bound;

static Expr **expr_list(struct parser *p, size_t *np, bool aliases);
static Spark__Connect__Expression__SortOrder **order_list(struct parser *p,
    size_t *np);
static bool int_arg(struct parser *p, int64_t *v);

/*
 * A frame boundary: UNBOUNDED PRECEDING|FOLLOWING, CURRENT ROW, or an
 * integer PRECEDING (negative, as a client sends it) or FOLLOWING.
 */
static Bound *
frame_bound(struct parser *p)
{
	Bound *b = sc_xmalloc(sizeof(*b));
	int64_t v;

	spark__connect__expression__window__window_frame__frame_boundary__init(
	    b);
	if (accept_word(p, "unbounded")) {
		if (!accept_word(p, "preceding") &&
		    !accept_word(p, "following"))
			goto nt;
		b->boundary_case =
		    SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_UNBOUNDED;
		b->unbounded = true;
		return b;
	}
	if (accept_word(p, "current")) {
		if (!accept_word(p, "row"))
			goto nt;
		b->boundary_case =
		    SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_CURRENT_ROW;
		b->current_row = true;
		return b;
	}
	if (is_op(p, "-") || !int_arg(p, &v))
		goto nt;
	if (accept_word(p, "preceding"))
		v = -v;
	else if (!accept_word(p, "following"))
		goto nt;
	b->boundary_case =
	    SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_VALUE;
	b->value = expr_new();
	b->value->expr_type_case =
	    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL;
	b->value->literal = sc_xmalloc(sizeof(*b->value->literal));
	spark__connect__expression__literal__init(b->value->literal);
	b->value->literal->literal_type_case =
	    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG;
	b->value->literal->long_ = v;
	return b;
nt:
	protobuf_c_message_free_unpacked(&b->base, NULL);
	return not_taken(p);
}

/*
 * f OVER ([PARTITION BY e, ...] [ORDER BY o, ...] [ROWS|RANGE frame])
 * after OVER.  Named windows are not taken.  Takes f.
 */
static Expr *
window(struct parser *p, Expr *f)
{
	Spark__Connect__Expression__Window *w;
	Spark__Connect__Expression__Window__WindowFrame *fr;
	Expr *e;
	bool rows;

	w = sc_xmalloc(sizeof(*w));
	spark__connect__expression__window__init(w);
	w->window_function = f;
	e = expr_new();
	e->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_WINDOW;
	e->window = w;
	p->nwindows++;
	if (!accept_op(p, "(")) {
		expr_free(e);
		return unsupported(p, "a named window (OVER name)");
	}
	if (accept_word(p, "partition")) {
		if (!accept_word(p, "by") ||
		    (w->partition_spec =
			    expr_list(p, &w->n_partition_spec, false)) == NULL)
			goto nt;
	}
	if (accept_word(p, "order")) {
		if (!accept_word(p, "by") ||
		    (w->order_spec = order_list(p, &w->n_order_spec)) == NULL)
			goto nt;
	}
	if ((rows = is_word(p, "rows")) || is_word(p, "range")) {
		p->i++;
		fr = sc_xmalloc(sizeof(*fr));
		spark__connect__expression__window__window_frame__init(fr);
		w->frame_spec = fr;
		fr->frame_type = rows
		    ? SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_TYPE__FRAME_TYPE_ROW
		    : SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_TYPE__FRAME_TYPE_RANGE;
		if (accept_word(p, "between")) {
			if ((fr->lower = frame_bound(p)) == NULL ||
			    !accept_word(p, "and") ||
			    (fr->upper = frame_bound(p)) == NULL)
				goto nt;
		} else {
			if ((fr->lower = frame_bound(p)) == NULL)
				goto nt;
			fr->upper = sc_xmalloc(sizeof(*fr->upper));
			spark__connect__expression__window__window_frame__frame_boundary__init(
			    fr->upper);
			fr->upper->boundary_case =
			    SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_CURRENT_ROW;
			fr->upper->current_row = true;
		}
	}
	if (!accept_op(p, ")"))
		goto nt;
	return e;
nt:
	expr_free(e);
	return not_taken(p);
}

/* name(args) after the name and '(' . */
static Expr *
call(struct parser *p, char *name)
{
	Expr *f, *a;
	size_t i;

	for (i = 0; name[i] != '\0'; i++)
		name[i] = (char)tolower((unsigned char)name[i]);
	f = func_new(name, 0);
	free(name);
	if (accept_word(p, "distinct"))
		f->unresolved_function->is_distinct = true;
	else
		accept_word(p, "all");
	if (!is_op(p, ")")) {
		for (;;) {
			if (is_op(p, "*") && tok_op(peek(p, 1), ")") &&
			    strcmp(f->unresolved_function->function_name,
				"count") == 0) {
				/* count(*) is count(1), as Spark names it. */
				p->i++;
				a = lit_int(1);
			} else if ((a = expr(p)) == NULL) {
				expr_free(f);
				return NULL;
			}
			func_add(f, a);
			if (!accept_op(p, ","))
				break;
		}
	}
	if (!expect_op(p, ")")) {
		expr_free(f);
		return NULL;
	}
	if (accept_word(p, "over"))
		return window(p, f);
	/* FILTER and WITHIN GROUP are not taken. */
	if (is_word(p, "filter") || is_word(p, "within") ||
	    is_word(p, "ignore") || is_word(p, "respect")) {
		expr_free(f);
		return not_taken(p);
	}
	return f;
}

static Expr *
primary(struct parser *p)
{
	const struct sc_sqltok *t = cur(p);
	struct sc_buf b;
	Spark__Connect__Expression__Literal *l;
	Expr *e;
	char *name;

	switch (t->kind) {
	case SC_TK_NUM:
		return number_literal(p, false);
	case SC_TK_STRING:
		l = lit_new(&e);
		l->literal_type_case =
		    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING;
		l->string =
		    sc_xstrndup((const char *)t->text.data, t->text.len);
		if (memchr(t->text.data, '\0', t->text.len) != NULL) {
			expr_free(e);
			return not_taken(p);
		}
		p->i++;
		return e;
	case SC_TK_OP:
		if (accept_op(p, "(")) {
			if (is_word(p, "select") || is_word(p, "with"))
				return unsupported(p, "scalar subqueries");
			if (is_word(p, "values"))
				return not_taken(p);
			if ((e = expr(p)) == NULL)
				return NULL;
			if (!expect_op(p, ")")) {
				expr_free(e);
				return NULL;
			}
			return e;
		}
		if (accept_op(p, "*"))
			return star_new(NULL);
		return not_taken(p);
	case SC_TK_QIDENT:
	case SC_TK_WORD:
		break;
	default:
		return not_taken(p);
	}
	if (t->kind == SC_TK_WORD) {
		const struct sc_sqltok *nx = peek(p, 1);

		if (tok_word(t, "true") || tok_word(t, "false")) {
			l = lit_new(&e);
			l->literal_type_case =
			    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BOOLEAN;
			l->boolean = tok_word(t, "true");
			p->i++;
			return e;
		}
		if (tok_word(t, "null")) {
			Spark__Connect__DataType *dt = sc_xmalloc(sizeof(*dt));
			Spark__Connect__DataType__NULL *nt =
			    sc_xmalloc(sizeof(*nt));

			spark__connect__data_type__init(dt);
			spark__connect__data_type__null__init(nt);
			dt->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_NULL;
			dt->null = nt;
			l = lit_new(&e);
			l->literal_type_case =
			    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_NULL;
			l->null = dt;
			p->i++;
			return e;
		}
		if (nx->kind == SC_TK_STRING &&
		    (tok_word(t, "date") || tok_word(t, "timestamp") ||
			tok_word(t, "timestamp_ltz") ||
			tok_word(t, "timestamp_ntz"))) {
			char kw[16];

			snprintf(kw, sizeof(kw), "%.*s", (int)t->n, t->s);
			p->i++;
			return typed_literal(p, kw);
		}
		if (tok_word(t, "interval"))
			return unsupported(p, "INTERVAL literals");
		if (nx->kind == SC_TK_STRING && (tok_word(t, "x")))
			return not_taken(p);
		if (tok_word(t, "case")) {
			p->i++;
			return case_expr(p);
		}
		if ((tok_word(t, "cast") || tok_word(t, "try_cast")) &&
		    tok_op(nx, "(")) {
			p->i++;
			return cast_expr(p, tok_word(t, "try_cast"));
		}
		if (tok_word(t, "exists") && tok_op(nx, "("))
			return unsupported(p, "EXISTS subqueries");
		if (is_reserved(t))
			return not_taken(p);
	}
	/* a, a.b, `a`.`b`, t.*, f(...) */
	if (tok_op(peek(p, 1), "(")) {
		name = ident_text(t);
		p->i += 2;
		return call(p, name);
	}
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	add_part(&b, t);
	p->i++;
	while (is_op(p, ".")) {
		t = peek(p, 1);
		if (tok_op(t, "*")) {
			p->i += 2;
			sc_buf_addch(&b, '\0', NULL);
			e = star_new((const char *)b.data);
			sc_buf_release(&b);
			return e;
		}
		if (t->kind != SC_TK_WORD && t->kind != SC_TK_QIDENT) {
			sc_buf_release(&b);
			return not_taken(p);
		}
		sc_buf_addch(&b, '.', NULL);
		add_part(&b, t);
		p->i += 2;
	}
	sc_buf_addch(&b, '\0', NULL);
	e = attr_new((const char *)b.data);
	sc_buf_release(&b);
	if (is_op(p, "[") || is_op(p, "::") || is_op(p, "->")) {
		expr_free(e);
		return not_taken(p);
	}
	return e;
}

static Expr *
unary(struct parser *p)
{
	Expr *e;

	if (!deeper(p))
		return NULL;
	if (is_op(p, "-") && peek(p, 1)->kind == SC_TK_NUM) {
		p->i++;
		e = number_literal(p, true);
	} else if (accept_op(p, "-")) {
		e = unary(p);
		e = e != NULL ? func_new("negative", 1, e) : NULL;
	} else if (accept_op(p, "+")) {
		e = unary(p);
		e = e != NULL ? func_new("positive", 1, e) : NULL;
	} else if (accept_op(p, "~")) {
		e = unary(p);
		e = e != NULL ? func_new("~", 1, e) : NULL;
	} else {
		e = primary(p);
	}
	p->depth--;
	if (e != NULL && (is_op(p, "[") || is_op(p, "::"))) {
		expr_free(e);
		return not_taken(p);
	}
	return e;
}

/* One level of left-associative binary operators. */
struct binop {
	const char *tok; /* operator or word */
	bool word;
	const char *func; /* Spark's function name */
};

static const struct binop mul_ops[] = {
	{ "*", false, "*" },
	{ "/", false, "/" },
	{ "%", false, "%" },
	{ "div", true, "div" },
};
static const struct binop add_ops[] = {
	{ "+", false, "+" },
	{ "-", false, "-" },
	{ "||", false, "concat" },
};
static const struct binop band_ops[] = { { "&", false, "&" } };
static const struct binop bxor_ops[] = { { "^", false, "^" } };
static const struct binop bor_ops[] = { { "|", false, "|" } };

static Expr *
binary(struct parser *p, int level)
{
	static const struct {
		const struct binop *ops;
		size_t n;
	} levels[] = {
		{ bor_ops, 1 },
		{ bxor_ops, 1 },
		{ band_ops, 1 },
		{ add_ops, 3 },
		{ mul_ops, 4 },
	};
	Expr *l, *r;
	size_t i;
	bool found;

	if (level == 5)
		return unary(p);
	if ((l = binary(p, level + 1)) == NULL)
		return NULL;
	for (;;) {
		found = false;
		for (i = 0; i < levels[level].n; i++) {
			const struct binop *o = &levels[level].ops[i];

			if (o->word ? is_word(p, o->tok) : is_op(p, o->tok)) {
				found = true;
				p->i++;
				if ((r = binary(p, level + 1)) == NULL) {
					expr_free(l);
					return NULL;
				}
				l = func_new(o->func, 2, l, r);
				break;
			}
		}
		if (!found)
			return l;
	}
}

static Expr *
value(struct parser *p)
{
	return binary(p, 0);
}

static Expr *
negate(Expr *e, bool neg)
{
	return neg ? func_new("not", 1, e) : e;
}

/* Comparisons and predicates after the left operand l. */
static Expr *
predicate(struct parser *p)
{
	static const struct {
		const char *op;
		const char *func;
	} cmps[] = {
		{ "=", "==" },
		{ "==", "==" },
		{ "<>", "!=" },
		{ "!=", "!=" },
		{ "<", "<" },
		{ "<=", "<=" },
		{ ">", ">" },
		{ ">=", ">=" },
		{ "<=>", "<=>" },
	};
	Expr *l, *r, *lo, *hi, *in;
	size_t i;
	bool neg;

	if ((l = value(p)) == NULL)
		return NULL;
	for (;;) {
		for (i = 0; i < sizeof(cmps) / sizeof(cmps[0]); i++)
			if (is_op(p, cmps[i].op))
				break;
		if (i < sizeof(cmps) / sizeof(cmps[0])) {
			p->i++;
			if (is_word(p, "any") || is_word(p, "all") ||
			    is_word(p, "some")) {
				expr_free(l);
				return not_taken(p);
			}
			if ((r = value(p)) == NULL) {
				expr_free(l);
				return NULL;
			}
			l = func_new(cmps[i].func, 2, l, r);
			continue;
		}
		if (accept_word(p, "is")) {
			neg = accept_word(p, "not");
			if (accept_word(p, "null")) {
				l = func_new(neg ? "isnotnull" : "isnull", 1,
				    l);
				continue;
			}
			expr_free(l);
			return not_taken(p); /* IS TRUE, IS DISTINCT FROM */
		}
		neg = false;
		if (is_word(p, "not") &&
		    (tok_word(peek(p, 1), "between") ||
			tok_word(peek(p, 1), "in") ||
			tok_word(peek(p, 1), "like") ||
			tok_word(peek(p, 1), "rlike") ||
			tok_word(peek(p, 1), "regexp") ||
			tok_word(peek(p, 1), "ilike"))) {
			neg = true;
			p->i++;
		}
		if (accept_word(p, "between")) {
			Spark__Connect__Expression *copy;
			size_t len;
			uint8_t *buf;

			if ((lo = value(p)) == NULL) {
				expr_free(l);
				return NULL;
			}
			if (!accept_word(p, "and") || (hi = value(p)) == NULL) {
				expr_free(lo);
				expr_free(l);
				return not_taken(p);
			}
			len = protobuf_c_message_get_packed_size(&l->base);
			buf = sc_xmalloc(len > 0 ? len : 1);
			protobuf_c_message_pack(&l->base, buf);
			copy =
			    spark__connect__expression__unpack(NULL, len, buf);
			free(buf);
			if (copy == NULL) {
				expr_free(lo);
				expr_free(hi);
				expr_free(l);
				return not_taken(p);
			}
			l = negate(func_new("and", 2, func_new(">=", 2, l, lo),
				       func_new("<=", 2, copy, hi)),
			    neg);
			continue;
		}
		if (accept_word(p, "in")) {
			if (!expect_op(p, "(")) {
				expr_free(l);
				return not_taken(p);
			}
			if (is_word(p, "select") || is_word(p, "with")) {
				expr_free(l);
				return unsupported(p, "IN subqueries");
			}
			in = func_new("in", 1, l);
			for (;;) {
				if ((r = expr(p)) == NULL) {
					expr_free(in);
					return NULL;
				}
				func_add(in, r);
				if (!accept_op(p, ","))
					break;
			}
			if (!expect_op(p, ")")) {
				expr_free(in);
				return NULL;
			}
			l = negate(in, neg);
			continue;
		}
		if (is_word(p, "like") || is_word(p, "rlike") ||
		    is_word(p, "regexp") || is_word(p, "ilike")) {
			const char *f = is_word(p, "like") ? "like"
			    : is_word(p, "ilike")	   ? "ilike"
							   : "rlike";

			p->i++;
			if (is_word(p, "any") || is_word(p, "all") ||
			    is_word(p, "some")) {
				expr_free(l);
				return not_taken(p);
			}
			if ((r = value(p)) == NULL) {
				expr_free(l);
				return NULL;
			}
			if (is_word(p, "escape")) {
				expr_free(l);
				expr_free(r);
				return not_taken(p);
			}
			l = negate(func_new(f, 2, l, r), neg);
			continue;
		}
		return l;
	}
}

static Expr *
not_expr(struct parser *p)
{
	Expr *e;

	if (!deeper(p))
		return NULL;
	if (accept_word(p, "not") || accept_op(p, "!")) {
		e = not_expr(p);
		e = e != NULL ? func_new("not", 1, e) : NULL;
	} else {
		e = predicate(p);
	}
	p->depth--;
	return e;
}

static Expr *
and_expr(struct parser *p)
{
	Expr *l, *r;

	if ((l = not_expr(p)) == NULL)
		return NULL;
	while (accept_word(p, "and")) {
		if ((r = not_expr(p)) == NULL) {
			expr_free(l);
			return NULL;
		}
		l = func_new("and", 2, l, r);
	}
	return l;
}

static Expr *
expr(struct parser *p)
{
	Expr *l, *r;

	if (!deeper(p))
		return NULL;
	if ((l = and_expr(p)) == NULL) {
		p->depth--;
		return NULL;
	}
	while (accept_word(p, "or")) {
		if ((r = and_expr(p)) == NULL) {
			expr_free(l);
			p->depth--;
			return NULL;
		}
		l = func_new("or", 2, l, r);
	}
	p->depth--;
	return l;
}

/* ------------------------------------------------------------------ */
/* Queries                                                             */
/* ------------------------------------------------------------------ */

/* [AS] alias: the alias (malloc'ed), or NULL when there is none. */
static char *
opt_alias(struct parser *p)
{
	const struct sc_sqltok *t;
	bool as = accept_word(p, "as");
	char *name;

	t = cur(p);
	if ((t->kind == SC_TK_WORD && !is_reserved(t)) ||
	    t->kind == SC_TK_QIDENT) {
		name = ident_text(t);
		p->i++;
		return name;
	}
	if (as)
		not_taken(p);
	return NULL;
}

static Rel *query(struct parser *p);
static Rel *values_rel(struct parser *p);
static Rel *set_ops(struct parser *p, Rel *left);

static bool
int_arg(struct parser *p, int64_t *v)
{
	const struct sc_sqltok *t;
	bool neg = accept_op(p, "-");
	long long ll;
	char *end;

	t = cur(p);
	if (t->kind != SC_TK_NUM || t->frac || t->exp ||
	    (t->suffix != 0 && t->suffix != 'L'))
		return false;
	errno = 0;
	ll = strtoll(t->s, &end, 10);
	if (errno != 0)
		return false;
	p->i++;
	*v = neg ? -ll : ll;
	return true;
}

/* range(end), range(start, end[, step[, partitions]]) after "range(". */
static Rel *
range_rel(struct parser *p)
{
	Spark__Connect__Range *rg;
	int64_t a[4];
	size_t n = 0;
	Rel *r;

	for (;;) {
		if (n == 4 || !int_arg(p, &a[n]))
			return not_taken(p);
		n++;
		if (!accept_op(p, ","))
			break;
	}
	if (!expect_op(p, ")"))
		return NULL;
	rg = sc_xmalloc(sizeof(*rg));
	spark__connect__range__init(rg);
	if (n == 1) {
		rg->end = a[0];
	} else {
		rg->_start_case = SPARK__CONNECT__RANGE___START_START;
		rg->start = a[0];
		rg->end = a[1];
	}
	rg->step = n >= 3 ? a[2] : 1;
	if (n == 4) {
		rg->_num_partitions_case =
		    SPARK__CONNECT__RANGE___NUM_PARTITIONS_NUM_PARTITIONS;
		rg->num_partitions = (int32_t)a[3];
	}
	r = rel_new();
	r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_RANGE;
	r->range = rg;
	return r;
}

static Rel *
alias_rel(Rel *in, char *alias)
{
	Spark__Connect__SubqueryAlias *sa;
	Rel *r;

	if (alias == NULL)
		return in;
	sa = sc_xmalloc(sizeof(*sa));
	spark__connect__subquery_alias__init(sa);
	sa->input = in;
	sa->alias = alias;
	r = rel_new();
	r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SUBQUERY_ALIAS;
	r->subquery_alias = sa;
	return r;
}

/* (a, b, ...) after an alias: in's columns renamed, as toDF() does. */
static Rel *
to_df(struct parser *p, Rel *in)
{
	Spark__Connect__ToDF *td;
	Rel *r;
	char **names = NULL;
	size_t n = 0;

	p->i++; /* ( */
	for (;;) {
		if (cur(p)->kind != SC_TK_WORD && cur(p)->kind != SC_TK_QIDENT)
			break;
		names = sc_xreallocarray(names, n + 1, sizeof(*names));
		names[n++] = ident_text(cur(p));
		p->i++;
		if (!accept_op(p, ","))
			break;
	}
	td = sc_xmalloc(sizeof(*td));
	spark__connect__to_df__init(td);
	td->input = in;
	td->column_names = names;
	td->n_column_names = n;
	r = rel_new();
	r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_TO_DF;
	r->to_df = td;
	if (n == 0 || !expect_op(p, ")")) {
		rel_free(r);
		not_taken(p);
		return NULL;
	}
	return r;
}

/* One FROM item: a table, range(...) or (query), with an alias. */
static Rel *
from_item(struct parser *p)
{
	const struct sc_sqltok *t = cur(p);
	Spark__Connect__Read *rd;
	struct sc_buf b;
	Rel *r;
	char *alias;
	size_t k;

	if (accept_word(p, "values"))
		return values_rel(p);
	if (accept_op(p, "(")) {
		if (accept_word(p, "values"))
			r = values_rel(p);
		else if (is_word(p, "select") && (r = query(p)) != NULL)
			r = set_ops(p, r);
		else
			return not_taken(p);
		if (r == NULL)
			return NULL;
		if (!expect_op(p, ")")) {
			rel_free(r);
			return NULL;
		}
	} else if (tok_word(t, "range") && tok_op(peek(p, 1), "(")) {
		p->i += 2;
		if ((r = range_rel(p)) == NULL)
			return NULL;
	} else if ((t->kind == SC_TK_WORD && !is_reserved(t)) ||
	    t->kind == SC_TK_QIDENT) {
		/* Files (csv.`files/x.csv`) and functions go to SQLite. */
		if (tok_op(peek(p, 1), "(") ||
		    (tok_op(peek(p, 1), ".") &&
			peek(p, 2)->kind == SC_TK_QIDENT &&
			(tok_word(t, "csv") || tok_word(t, "json") ||
			    tok_word(t, "text") || tok_word(t, "parquet"))))
			return not_taken(p);
		for (k = 0; k < p->nctes && !tok_op(peek(p, 1), "."); k++) {
			char *name = ident_text(t);
			bool match = strcasecmp(name, p->ctes[k].name) == 0;

			free(name);
			if (!match)
				continue;
			p->i++;
			if ((r = rel_copy(p->ctes[k].rel)) == NULL)
				return not_taken(p);
			r = alias_rel(r, sc_xstrdup(p->ctes[k].name));
			goto aliased;
		}
		sc_buf_init(&b, SC_BUF_UNLIMITED);
		add_part(&b, t);
		p->i++;
		while (is_op(p, ".") &&
		    (peek(p, 1)->kind == SC_TK_WORD ||
			peek(p, 1)->kind == SC_TK_QIDENT)) {
			sc_buf_addch(&b, '.', NULL);
			add_part(&b, peek(p, 1));
			p->i += 2;
		}
		sc_buf_addch(&b, '\0', NULL);
		rd = sc_xmalloc(sizeof(*rd));
		spark__connect__read__init(rd);
		rd->read_type_case =
		    SPARK__CONNECT__READ__READ_TYPE_NAMED_TABLE;
		rd->named_table = sc_xmalloc(sizeof(*rd->named_table));
		spark__connect__read__named_table__init(rd->named_table);
		rd->named_table->unparsed_identifier =
		    (char *)sc_buf_detach(&b, NULL);
		r = rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_READ;
		r->read = rd;
	} else {
		return not_taken(p);
	}
aliased:
	if (is_op(p, "(")) {
		rel_free(r);
		return not_taken(p);
	}
	alias = opt_alias(p);
	if (p->fail != 0) {
		free(alias);
		rel_free(r);
		return NULL;
	}
	if (alias != NULL && is_op(p, "(")) /* t(a, b): column names */
		r = to_df(p, r);
	if (r == NULL) {
		free(alias);
		return NULL;
	}
	return alias_rel(r, alias);
}

static void last_part(const char *ident, char *out, size_t n);

/* Stamp a plan id on the joined FROM item r and put its name in scope. */
static void
scope_add(struct parser *p, Rel *r)
{
	char name[256];
	const char *q = NULL;

	if (r->rel_type_case ==
	    SPARK__CONNECT__RELATION__REL_TYPE_SUBQUERY_ALIAS)
		q = r->subquery_alias->alias;
	else if (r->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_READ &&
	    r->read->read_type_case ==
		SPARK__CONNECT__READ__READ_TYPE_NAMED_TABLE) {
		last_part(r->read->named_table->unparsed_identifier, name,
		    sizeof(name));
		q = name[0] != '\0' ? name : NULL;
	}
	if (q == NULL || r->common != NULL)
		return;
	r->common = sc_xmalloc(sizeof(*r->common));
	spark__connect__relation_common__init(r->common);
	r->common->_plan_id_case =
	    SPARK__CONNECT__RELATION_COMMON___PLAN_ID_PLAN_ID;
	r->common->plan_id = SQL_PLAN_ID_BASE + p->next_id++;
	p->scope = sc_xreallocarray(p->scope, p->nscope + 1, sizeof(*p->scope));
	p->scope[p->nscope].name = sc_xstrdup(q);
	p->scope[p->nscope].id = r->common->plan_id;
	p->nscope++;
}

/* Drop the names a query put in scope (those from n on). */
static void
scope_pop(struct parser *p, size_t n)
{
	while (p->nscope > n)
		free(p->scope[--p->nscope].name);
}

/*
 * Rewrite the qualified columns of m (an expression, or a message
 * holding expressions) whose qualifier names a joined FROM item in scope
 * from n on: q.x becomes x of that item's plan id.
 */
static void
qualify(struct parser *p, size_t n, ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	unsigned i;

	if (d == &spark__connect__relation__descriptor)
		return;
	if (d == &spark__connect__expression__unresolved_star__descriptor) {
		Spark__Connect__Expression__UnresolvedStar *st =
		    (Spark__Connect__Expression__UnresolvedStar *)m;
		char qual[256];
		size_t k, len;

		if (st->_unparsed_target_case !=
			SPARK__CONNECT__EXPRESSION__UNRESOLVED_STAR___UNPARSED_TARGET_UNPARSED_TARGET ||
		    st->unparsed_target == NULL)
			return;
		len = strlen(st->unparsed_target);
		if (len > 2 && strcmp(st->unparsed_target + len - 2, ".*") == 0)
			len -= 2;
		if (len >= 2 && st->unparsed_target[0] == '`' &&
		    st->unparsed_target[len - 1] == '`' &&
		    memchr(st->unparsed_target + 1, '`', len - 2) == NULL) {
			memcpy(qual, st->unparsed_target + 1, len - 2);
			qual[len - 2] = '\0';
		} else if (len < sizeof(qual) &&
		    memchr(st->unparsed_target, '.', len) == NULL &&
		    memchr(st->unparsed_target, '`', len) == NULL) {
			memcpy(qual, st->unparsed_target, len);
			qual[len] = '\0';
		} else {
			return;
		}
		for (k = p->nscope; k > n; k--) {
			if (strcasecmp(p->scope[k - 1].name, qual) != 0)
				continue;
			free(st->unparsed_target);
			st->unparsed_target = NULL;
			st->_unparsed_target_case =
			    SPARK__CONNECT__EXPRESSION__UNRESOLVED_STAR___UNPARSED_TARGET__NOT_SET;
			st->_plan_id_case =
			    SPARK__CONNECT__EXPRESSION__UNRESOLVED_STAR___PLAN_ID_PLAN_ID;
			st->plan_id = p->scope[k - 1].id;
			return;
		}
		return;
	}
	if (d ==
	    &spark__connect__expression__unresolved_attribute__descriptor) {
		Spark__Connect__Expression__UnresolvedAttribute *a =
		    (Spark__Connect__Expression__UnresolvedAttribute *)m;
		const char *s = a->unparsed_identifier, *dot;
		char qual[256];
		size_t k, len;

		if (s == NULL ||
		    a->_plan_id_case ==
			SPARK__CONNECT__EXPRESSION__UNRESOLVED_ATTRIBUTE___PLAN_ID_PLAN_ID)
			return;
		if (s[0] == '`') {
			if ((dot = strchr(s + 1, '`')) == NULL || dot[1] != '.')
				return;
			len = (size_t)(dot - s - 1);
			dot++;
			s++;
		} else {
			if ((dot = strchr(s, '.')) == NULL)
				return;
			len = (size_t)(dot - s);
		}
		if (len == 0 || len >= sizeof(qual) || dot[1] == '\0')
			return;
		memcpy(qual, s, len);
		qual[len] = '\0';
		for (k = p->nscope; k > n; k--) {
			if (strcasecmp(p->scope[k - 1].name, qual) != 0)
				continue;
			s = sc_xstrdup(dot + 1);
			free(a->unparsed_identifier);
			a->unparsed_identifier = (char *)s;
			a->_plan_id_case =
			    SPARK__CONNECT__EXPRESSION__UNRESOLVED_ATTRIBUTE___PLAN_ID_PLAN_ID;
			a->plan_id = p->scope[k - 1].id;
			return;
		}
		return;
	}
	for (i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		char *base = (char *)m;

		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) != 0 &&
		    *(uint32_t *)(base + f->quantifier_offset) != f->id)
			continue;
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t c = *(size_t *)(base + f->quantifier_offset), j;
			ProtobufCMessage **v =
			    *(ProtobufCMessage ***)(base + f->offset);

			for (j = 0; j < c; j++)
				if (v[j] != NULL)
					qualify(p, n, v[j]);
		} else {
			ProtobufCMessage *sub =
			    *(ProtobufCMessage **)(base + f->offset);

			if (sub != NULL)
				qualify(p, n, sub);
		}
	}
}

/*
 * The join type words before JOIN ("LEFT OUTER", "ANTI", ...) and JOIN:
 * true with *type set, false when the next words start no join.
 */
static bool
join_type(struct parser *p, Spark__Connect__Join__JoinType *type)
{
	size_t at = p->i;

	*type = SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_INNER;
	if (accept_word(p, "inner")) {
	} else if (accept_word(p, "cross")) {
		*type = SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_CROSS;
	} else if (accept_word(p, "left")) {
		*type = SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_OUTER;
		if (accept_word(p, "semi"))
			*type =
			    SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_SEMI;
		else if (accept_word(p, "anti"))
			*type =
			    SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_ANTI;
		else
			accept_word(p, "outer");
	} else if (accept_word(p, "right")) {
		*type = SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_RIGHT_OUTER;
		accept_word(p, "outer");
	} else if (accept_word(p, "full")) {
		*type = SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_FULL_OUTER;
		accept_word(p, "outer");
	} else if (accept_word(p, "semi")) {
		*type = SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_SEMI;
	} else if (accept_word(p, "anti")) {
		*type = SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_ANTI;
	}
	if (accept_word(p, "join"))
		return true;
	p->i = at;
	return false;
}

/*
 * The joins after the FROM item left: "a, b", "a [type] JOIN b [ON cond
 * | USING (cols)]", left to right, as Spark's parser nests them.  Takes
 * left; NULL on failure.
 */
static Rel *
joins(struct parser *p, Rel *left)
{
	Spark__Connect__Join__JoinType type;
	Spark__Connect__Join *j;
	Rel *right, *r;
	size_t n = p->nscope;
	bool comma;

	for (;;) {
		if ((comma = accept_op(p, ",")))
			type = SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_CROSS;
		else if (!join_type(p, &type))
			return left;
		if (left->rel_type_case !=
		    SPARK__CONNECT__RELATION__REL_TYPE_JOIN)
			scope_add(p, left);
		if ((right = from_item(p)) == NULL) {
			rel_free(left);
			return NULL;
		}
		scope_add(p, right);
		j = sc_xmalloc(sizeof(*j));
		spark__connect__join__init(j);
		j->left = left;
		j->right = right;
		j->join_type = type;
		r = rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_JOIN;
		r->join = j;
		if (comma) {
			/* a comma join has no condition */
		} else if (accept_word(p, "on")) {
			if ((j->join_condition = expr(p)) == NULL) {
				rel_free(r);
				return NULL;
			}
			qualify(p, n, &j->join_condition->base);
			if (type ==
			    SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_CROSS)
				j->join_type =
				    SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_INNER;
		} else if (accept_word(p, "using")) {
			if (!expect_op(p, "(")) {
				rel_free(r);
				return NULL;
			}
			for (;;) {
				char *name = ident_text(cur(p));

				if (name == NULL) {
					rel_free(r);
					return not_taken(p);
				}
				p->i++;
				j->using_columns = sc_xreallocarray(
				    j->using_columns, j->n_using_columns + 1,
				    sizeof(*j->using_columns));
				j->using_columns[j->n_using_columns++] = name;
				if (!accept_op(p, ","))
					break;
			}
			if (!expect_op(p, ")")) {
				rel_free(r);
				return NULL;
			}
			/* The translator types its merged keys otherwise. */
			if (type ==
			    SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_FULL_OUTER) {
				rel_free(r);
				return not_taken(p);
			}
		}
		/* [INNER] JOIN b without a condition: a cross join */
		if (type == SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_INNER &&
		    j->join_condition == NULL && j->n_using_columns == 0)
			j->join_type =
			    SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_CROSS;
		left = r;
	}
}

/* Aggregate functions: a SELECT using one without GROUP BY aggregates. */
static const char *const aggregates[] = {
	"any_value",
	"approx_count_distinct",
	"avg",
	"bit_and",
	"bit_or",
	"bit_xor",
	"bool_and",
	"bool_or",
	"collect_list",
	"collect_set",
	"count",
	"count_if",
	"every",
	"first",
	"first_value",
	"kurtosis",
	"last",
	"last_value",
	"max",
	"max_by",
	"mean",
	"median",
	"min",
	"min_by",
	"mode",
	"percentile",
	"percentile_approx",
	"skewness",
	"some",
	"std",
	"stddev",
	"stddev_pop",
	"stddev_samp",
	"sum",
	"var_pop",
	"var_samp",
	"variance",
};

static bool
has_aggregate(const Expr *e)
{
	const Spark__Connect__Expression__UnresolvedFunction *f;
	size_t i;

	if (e == NULL)
		return false;
	switch (e->expr_type_case) {
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION:
		f = e->unresolved_function;
		for (i = 0; i < sizeof(aggregates) / sizeof(aggregates[0]); i++)
			if (strcmp(f->function_name, aggregates[i]) == 0)
				return true;
		for (i = 0; i < f->n_arguments; i++)
			if (has_aggregate(f->arguments[i]))
				return true;
		return false;
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS:
		return has_aggregate(e->alias->expr);
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CAST:
		return has_aggregate(e->cast->expr);
	default:
		return false;
	}
}

static Expr **
expr_list(struct parser *p, size_t *np, bool aliases)
{
	Expr **v = NULL, *e;
	size_t n = 0, i;
	char *alias;

	for (;;) {
		if ((e = expr(p)) == NULL)
			goto bad;
		if (aliases) {
			alias = opt_alias(p);
			if (p->fail != 0) {
				expr_free(e);
				goto bad;
			}
			if (alias != NULL)
				e = alias_new(e, alias);
		}
		v = sc_xreallocarray(v, n + 1, sizeof(*v));
		v[n++] = e;
		if (!accept_op(p, ","))
			break;
	}
	*np = n;
	return v;
bad:
	for (i = 0; i < n; i++)
		expr_free(v[i]);
	free(v);
	return NULL;
}

static void
exprs_free(Expr **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		expr_free(v[i]);
	free(v);
}

/* ORDER BY items as sort orders. */
static Spark__Connect__Expression__SortOrder **
order_list(struct parser *p, size_t *np)
{
	Spark__Connect__Expression__SortOrder **v = NULL, *o;
	size_t n = 0, i;
	Expr *e;

	for (;;) {
		if (cur(p)->kind == SC_TK_NUM)
			goto bad_nt; /* ordinals */
		if ((e = expr(p)) == NULL)
			goto bad;
		o = sc_xmalloc(sizeof(*o));
		spark__connect__expression__sort_order__init(o);
		o->child = e;
		o->direction =
		    SPARK__CONNECT__EXPRESSION__SORT_ORDER__SORT_DIRECTION__SORT_DIRECTION_ASCENDING;
		if (accept_word(p, "desc"))
			o->direction =
			    SPARK__CONNECT__EXPRESSION__SORT_ORDER__SORT_DIRECTION__SORT_DIRECTION_DESCENDING;
		else
			accept_word(p, "asc");
		o->null_ordering = o->direction ==
			SPARK__CONNECT__EXPRESSION__SORT_ORDER__SORT_DIRECTION__SORT_DIRECTION_ASCENDING
		    ? SPARK__CONNECT__EXPRESSION__SORT_ORDER__NULL_ORDERING__SORT_NULLS_FIRST
		    : SPARK__CONNECT__EXPRESSION__SORT_ORDER__NULL_ORDERING__SORT_NULLS_LAST;
		if (accept_word(p, "nulls")) {
			if (accept_word(p, "first"))
				o->null_ordering =
				    SPARK__CONNECT__EXPRESSION__SORT_ORDER__NULL_ORDERING__SORT_NULLS_FIRST;
			else if (accept_word(p, "last"))
				o->null_ordering =
				    SPARK__CONNECT__EXPRESSION__SORT_ORDER__NULL_ORDERING__SORT_NULLS_LAST;
			else {
				protobuf_c_message_free_unpacked(&o->base,
				    NULL);
				goto bad_nt;
			}
		}
		v = sc_xreallocarray(v, n + 1, sizeof(*v));
		v[n++] = o;
		if (!accept_op(p, ","))
			break;
	}
	*np = n;
	return v;
bad_nt:
	not_taken(p);
bad:
	for (i = 0; i < n; i++)
		protobuf_c_message_free_unpacked(&v[i]->base, NULL);
	free(v);
	return NULL;
}

static bool
limit_arg(struct parser *p, int32_t *v)
{
	int64_t x;

	if (!int_arg(p, &x) || x < 0 || x > INT32_MAX) {
		not_taken(p);
		return false;
	}
	*v = (int32_t)x;
	return true;
}

/* The last part of a.b.`c`, lower case, in out (size n). */
static void
last_part(const char *ident, char *out, size_t n)
{
	const char *s = strrchr(ident, '.');
	size_t i, j = 0;

	s = s != NULL ? s + 1 : ident;
	for (i = 0; s[i] != '\0' && j + 1 < n; i++)
		if (s[i] != '`')
			out[j++] = (char)tolower((unsigned char)s[i]);
	out[j] = '\0';
}

/* Output names of a select list; *star when it has a star. */
struct names {
	char (*v)[128];
	size_t n;
	bool star;
	bool *alias; /* v[i] is an alias */
};

static void
names_add(struct names *nm, const char *name, bool alias)
{
	nm->v = sc_xreallocarray(nm->v, nm->n + 1, sizeof(*nm->v));
	nm->alias = sc_xreallocarray(nm->alias, nm->n + 1, sizeof(*nm->alias));
	last_part(name, nm->v[nm->n], sizeof(nm->v[0]));
	if (alias) {
		snprintf(nm->v[nm->n], sizeof(nm->v[0]), "%s", name);
		for (char *c = nm->v[nm->n]; *c != '\0'; c++)
			*c = (char)tolower((unsigned char)*c);
	}
	nm->alias[nm->n++] = alias;
}

static int
names_find(const struct names *nm, const char *name)
{
	size_t i;

	for (i = 0; i < nm->n; i++)
		if (strcmp(nm->v[i], name) == 0)
			return (int)i;
	return -1;
}

/* Column references of e, by their last part, added to refs. */
static void
refs_of(const Expr *e, struct names *refs)
{
	size_t i;

	if (e == NULL)
		return;
	switch (e->expr_type_case) {
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE:
		names_add(refs, e->unresolved_attribute->unparsed_identifier,
		    false);
		break;
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION:
		for (i = 0; i < e->unresolved_function->n_arguments; i++)
			refs_of(e->unresolved_function->arguments[i], refs);
		break;
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS:
		refs_of(e->alias->expr, refs);
		break;
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CAST:
		refs_of(e->cast->expr, refs);
		break;
	default:
		break;
	}
}

static void
names_release(struct names *nm)
{
	free(nm->v);
	free(nm->alias);
}

/*
 * Where ORDER BY goes: 1 above the projection (it names only output
 * columns), 0 below it (only input columns, none an alias), -1 neither.
 */
static int
sort_place(Expr **items, size_t nitems,
    Spark__Connect__Expression__SortOrder **order, size_t norder)
{
	struct names out = { 0 }, refs = { 0 };
	size_t i;
	int k, above = 1, alias = 0;

	for (i = 0; i < nitems; i++) {
		if (items[i]->expr_type_case ==
		    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS)
			names_add(&out, items[i]->alias->name[0], true);
		else if (items[i]->expr_type_case ==
		    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE)
			names_add(&out,
			    items[i]->unresolved_attribute->unparsed_identifier,
			    false);
		else if (items[i]->expr_type_case ==
		    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_STAR)
			out.star = true;
	}
	for (i = 0; i < norder; i++)
		refs_of(order[i]->child, &refs);
	for (i = 0; i < refs.n; i++) {
		k = names_find(&out, refs.v[i]);
		if (k < 0)
			above = 0;
		else if (out.alias[k])
			alias = 1;
	}
	k = above || out.star ? 1 : alias ? -1 : 0;
	names_release(&out);
	names_release(&refs);
	return k;
}

static bool
is_aggregate_call(const Expr *e)
{
	size_t i;

	if (e->expr_type_case !=
	    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION)
		return false;
	for (i = 0; i < sizeof(aggregates) / sizeof(aggregates[0]); i++)
		if (strcmp(e->unresolved_function->function_name,
			aggregates[i]) == 0)
			return true;
	return false;
}

/* Items of an aggregate added for HAVING and ORDER BY. */
struct lifted {
	Expr ***items;
	size_t *nitems;
	size_t n;
};

/*
 * In *ep (a HAVING condition or an ORDER BY key over an aggregate):
 * every aggregate call becomes a hidden aggregate column _sc_agg_N,
 * and a column that is a GROUP BY key its hidden key column
 * _sc_group_N, as Spark resolves them against the aggregate.
 */
static void
lift(Expr **ep, struct lifted *l, Expr **groups, size_t ngroups)
{
	Expr *e = *ep, *g;
	char name[32];
	size_t i;

	switch (e->expr_type_case) {
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION:
		if (is_aggregate_call(e)) {
			snprintf(name, sizeof(name), "_sc_agg_%zu", l->n++);
			*l->items = sc_xreallocarray(*l->items, *l->nitems + 1,
			    sizeof(**l->items));
			(*l->items)[(*l->nitems)++] =
			    alias_new(e, sc_xstrdup(name));
			*ep = attr_new(name);
			return;
		}
		for (i = 0; i < e->unresolved_function->n_arguments; i++)
			lift(&e->unresolved_function->arguments[i], l, groups,
			    ngroups);
		return;
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CAST:
		lift(&e->cast->expr, l, groups, ngroups);
		return;
	case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE:
		for (i = 0; i < ngroups; i++) {
			g = groups[i]->alias->expr;
			if (g->expr_type_case ==
				SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE &&
			    strcasecmp(
				g->unresolved_attribute->unparsed_identifier,
				e->unresolved_attribute->unparsed_identifier) ==
				0) {
				expr_free(e);
				*ep = attr_new(groups[i]->alias->name[0]);
				return;
			}
		}
		return;
	default:
		return;
	}
}

/* SELECT ... [FROM ...] [WHERE] [GROUP BY] [ORDER BY] [LIMIT] [OFFSET]. */
static Rel *
query(struct parser *p)
{
	Expr **items = NULL, **groups = NULL, *where = NULL, *having = NULL;
	Spark__Connect__Expression__SortOrder **order = NULL;
	size_t nitems = 0, ngroups = 0, norder = 0, i;
	Rel *in = NULL, *r;
	bool grouped = false, agg = false, distinct;
	Rel *sort_below = NULL;
	int32_t limit = -1, offset = -1;
	int place = 1;
	size_t scope0 = p->nscope, windows0 = p->nwindows;

	if (!deeper(p))
		return NULL;
	if (!accept_word(p, "select"))
		goto nt;
	distinct = accept_word(p, "distinct");
	if (!distinct)
		accept_word(p, "all");
	if ((items = expr_list(p, &nitems, true)) == NULL)
		goto fail;
	if (accept_word(p, "from")) {
		if ((in = from_item(p)) == NULL || (in = joins(p, in)) == NULL)
			goto fail;
		if (is_op(p, ",") || is_word(p, "join") ||
		    is_word(p, "inner") || is_word(p, "left") ||
		    is_word(p, "right") || is_word(p, "full") ||
		    is_word(p, "cross") || is_word(p, "natural") ||
		    is_word(p, "semi") || is_word(p, "anti") ||
		    is_word(p, "lateral") || is_word(p, "pivot") ||
		    is_word(p, "unpivot") || is_word(p, "tablesample"))
			goto nt;
	}
	if (accept_word(p, "where") && (where = expr(p)) == NULL)
		goto fail;
	if (accept_word(p, "group")) {
		if (!accept_word(p, "by") || is_word(p, "all") ||
		    is_word(p, "rollup") || is_word(p, "cube") ||
		    is_word(p, "grouping") || cur(p)->kind == SC_TK_NUM)
			goto nt;
		grouped = true;
		/* Only the outermost query: its keys are dropped at the end. */
		if (p->depth != 1 ||
		    (groups = expr_list(p, &ngroups, false)) == NULL)
			goto fail_nt;
		for (i = 0; i < ngroups; i++) {
			char name[32];

			if (groups[i]->expr_type_case ==
			    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL)
				goto nt; /* ordinals */
			snprintf(name, sizeof(name), "_sc_group_%zu", i);
			groups[i] = alias_new(groups[i], sc_xstrdup(name));
		}
	}
	if (accept_word(p, "having")) {
		if (p->depth != 1)
			goto nt;
		if ((having = expr(p)) == NULL)
			goto fail;
	}
	if (is_word(p, "window")) {
		unsupported(p, "a WINDOW clause");
		goto fail;
	}
	if (is_word(p, "qualify") || is_word(p, "cluster") ||
	    is_word(p, "distribute") || is_word(p, "sort"))
		goto nt;
	if (accept_word(p, "order")) {
		if (!accept_word(p, "by") ||
		    (order = order_list(p, &norder)) == NULL)
			goto fail_nt;
	}
	if (accept_word(p, "limit")) {
		if (is_word(p, "all"))
			p->i++;
		else if (!limit_arg(p, &limit))
			goto fail;
	}
	if (accept_word(p, "offset") && !limit_arg(p, &offset))
		goto fail;
	if (p->nscope > scope0) {
		for (i = 0; i < nitems; i++)
			qualify(p, scope0, &items[i]->base);
		for (i = 0; i < ngroups; i++)
			qualify(p, scope0, &groups[i]->base);
		for (i = 0; i < norder; i++)
			qualify(p, scope0, &order[i]->base);
		if (where != NULL)
			qualify(p, scope0, &where->base);
		if (having != NULL)
			qualify(p, scope0, &having->base);
	}
	for (i = 0; i < nitems && !grouped; i++)
		if (has_aggregate(items[i]))
			agg = true;
	/* Windows over a grouped query, or in its clauses: not yet. */
	if (p->nwindows > windows0 &&
	    (grouped || agg || distinct || having != NULL))
		goto nt;
	/* DISTINCT: grouped by every item (Spark's Distinct). */
	if (distinct) {
		if (grouped || agg || p->depth != 1)
			goto nt;
		groups = sc_xcalloc(nitems, sizeof(*groups));
		for (i = 0; i < nitems; i++) {
			const Expr *g = items[i];
			char name[32];

			if (g->expr_type_case ==
			    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_STAR)
				goto nt;
			if (g->expr_type_case ==
			    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS)
				g = g->alias->expr;
			if ((groups[ngroups] = expr_copy(g)) == NULL)
				goto nt;
			snprintf(name, sizeof(name), "_sc_group_%zu", i);
			groups[ngroups] =
			    alias_new(groups[ngroups], sc_xstrdup(name));
			ngroups++;
		}
		grouped = true;
	}
	if (order != NULL && !grouped && !agg &&
	    (place = sort_place(items, nitems, order, norder)) < 0)
		goto nt;
	/* A window's own order would undo a sort below it. */
	if (order != NULL && place == 0 && p->nwindows > windows0)
		goto nt;
	if (order != NULL && place == 0) {
		/* Sorted below the projection: by input columns. */
		r = rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SORT;
		r->sort = sc_xmalloc(sizeof(*r->sort));
		spark__connect__sort__init(r->sort);
		r->sort->order = order;
		r->sort->n_order = norder;
		order = NULL;
		norder = 0;
		if (where != NULL || in == NULL) {
			/* The filter goes under the sort: built below. */
			r->sort->input = NULL;
		}
		sort_below = r;
	}
	if (having != NULL && !grouped && !agg) {
		/* HAVING without GROUP BY or aggregates: one group. */
		if (!has_aggregate(having))
			goto nt;
		agg = true;
	}
	/* HAVING and ORDER BY are resolved against the aggregate. */
	if (grouped || agg) {
		struct lifted l = { &items, &nitems, 0 };

		if (p->depth != 1 && (having != NULL || order != NULL))
			goto nt;
		if (having != NULL)
			lift(&having, &l, groups, ngroups);
		for (i = 0; i < norder; i++)
			lift(&order[i]->child, &l, groups, ngroups);
		if (l.n > 0 || grouped)
			p->hidden = ngroups + l.n;
	}
	/* Build from the inside out. */
	if (where != NULL) {
		r = rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_FILTER;
		r->filter = sc_xmalloc(sizeof(*r->filter));
		spark__connect__filter__init(r->filter);
		r->filter->input = in;
		r->filter->condition = where;
		where = NULL;
		if (in == NULL)
			goto nt_r;
		in = r;
	}
	if (sort_below != NULL) {
		if (in == NULL) {
			rel_free(sort_below);
			sort_below = NULL;
			goto nt;
		}
		sort_below->sort->input = in;
		in = sort_below;
		sort_below = NULL;
	}
	if (grouped || agg) {
		if (in == NULL)
			goto nt;
		r = rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_AGGREGATE;
		r->aggregate = sc_xmalloc(sizeof(*r->aggregate));
		spark__connect__aggregate__init(r->aggregate);
		r->aggregate->input = in;
		r->aggregate->group_type =
		    SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_GROUPBY;
		r->aggregate->grouping_expressions = groups;
		r->aggregate->n_grouping_expressions = ngroups;
		r->aggregate->aggregate_expressions = items;
		r->aggregate->n_aggregate_expressions = nitems;
		groups = items = NULL;
		ngroups = nitems = 0;
	} else {
		r = rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_PROJECT;
		r->project = sc_xmalloc(sizeof(*r->project));
		spark__connect__project__init(r->project);
		r->project->input = in;
		r->project->expressions = items;
		r->project->n_expressions = nitems;
		items = NULL;
		nitems = 0;
	}
	in = r;
	if (having != NULL) {
		r = rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_FILTER;
		r->filter = sc_xmalloc(sizeof(*r->filter));
		spark__connect__filter__init(r->filter);
		r->filter->input = in;
		r->filter->condition = having;
		having = NULL;
		in = r;
	}
	if (order != NULL) {
		r = rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SORT;
		r->sort = sc_xmalloc(sizeof(*r->sort));
		spark__connect__sort__init(r->sort);
		r->sort->input = in;
		r->sort->order = order;
		r->sort->n_order = norder;
		order = NULL;
		in = r;
	}
	if (offset >= 0) {
		r = rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_OFFSET;
		r->offset = sc_xmalloc(sizeof(*r->offset));
		spark__connect__offset__init(r->offset);
		r->offset->input = in;
		r->offset->offset = offset;
		in = r;
	}
	if (limit >= 0) {
		r = rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_LIMIT;
		r->limit = sc_xmalloc(sizeof(*r->limit));
		spark__connect__limit__init(r->limit);
		r->limit->input = in;
		r->limit->limit = limit;
		in = r; /* over the offset: rows offset .. offset+limit */
	}
	scope_pop(p, scope0);
	p->depth--;
	return in;
nt_r:
	rel_free(r);
	in = NULL;
nt:
	not_taken(p);
	goto fail;
fail_nt:
	not_taken(p);
fail:
	rel_free(sort_below);
	expr_free(having);
	exprs_free(items, nitems);
	exprs_free(groups, ngroups);
	expr_free(where);
	for (i = 0; i < norder && order != NULL; i++)
		protobuf_c_message_free_unpacked(&order[i]->base, NULL);
	free(order);
	rel_free(in);
	scope_pop(p, scope0);
	p->depth--;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* VALUES                                                              */
/* ------------------------------------------------------------------ */

/* A column of an inline table: its Arrow type, from its literals. */
struct vcol {
	enum sc_arrow_type type; /* SC_ARROW_NULL until a value is seen */
	int prec, scale; /* DECIMAL128 */
	bool ntz;
	bool nullable;
};

static int
int_rank(enum sc_arrow_type t)
{
	switch (t) {
	case SC_ARROW_INT8:
		return 1;
	case SC_ARROW_INT16:
		return 2;
	case SC_ARROW_INT32:
		return 3;
	case SC_ARROW_INT64:
		return 4;
	default:
		return 0;
	}
}

/* Merge the type of literal l into c: false when Spark's common type
 * is not one this parser computes (then VALUES is not taken). */
static bool
vcol_merge(struct vcol *c, const Spark__Connect__Expression__Literal *l)
{
	struct vcol t;
	int ip;

	memset(&t, 0, sizeof(t));
	switch (l->literal_type_case) {
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_NULL:
		c->nullable = true;
		return true;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BYTE:
		t.type = SC_ARROW_INT8;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_SHORT:
		t.type = SC_ARROW_INT16;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER:
		t.type = SC_ARROW_INT32;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG:
		t.type = SC_ARROW_INT64;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DOUBLE:
		t.type = SC_ARROW_DOUBLE;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_FLOAT:
		t.type = SC_ARROW_FLOAT;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DECIMAL:
		t.type = SC_ARROW_DECIMAL128;
		t.prec = l->decimal->precision;
		t.scale = l->decimal->scale;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING:
		t.type = SC_ARROW_UTF8;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BOOLEAN:
		t.type = SC_ARROW_BOOL;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DATE:
		t.type = SC_ARROW_DATE32;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_TIMESTAMP:
		t.type = SC_ARROW_TIMESTAMP_US;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_TIMESTAMP_NTZ:
		t.type = SC_ARROW_TIMESTAMP_US;
		t.ntz = true;
		break;
	default:
		return false;
	}
	if (c->type == SC_ARROW_NULL) {
		t.nullable = c->nullable;
		*c = t;
		return true;
	}
	if (int_rank(c->type) > 0 && int_rank(t.type) > 0) {
		if (int_rank(t.type) > int_rank(c->type))
			c->type = t.type;
		return true;
	}
	if (c->type == SC_ARROW_DECIMAL128 && t.type == SC_ARROW_DECIMAL128) {
		ip = c->prec - c->scale > t.prec - t.scale ? c->prec - c->scale
							   : t.prec - t.scale;
		if (t.scale > c->scale)
			c->scale = t.scale;
		c->prec = ip + c->scale;
		return c->prec <= 38;
	}
	return c->type == t.type && c->ntz == t.ntz;
}

static int
vappend(struct sc_arrow_writer *w, size_t col, const struct vcol *c,
    const Spark__Connect__Expression__Literal *l, struct sc_error *err)
{
	switch (l->literal_type_case) {
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_NULL:
		return sc_arrow_append_null(w, col, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BYTE:
		return sc_arrow_append_int64(w, col, l->byte, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_SHORT:
		return sc_arrow_append_int64(w, col, l->short_, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER:
		return sc_arrow_append_int64(w, col, l->integer, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG:
		return sc_arrow_append_int64(w, col, l->long_, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DOUBLE:
		return sc_arrow_append_double(w, col, l->double_, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_FLOAT:
		return sc_arrow_append_double(w, col, l->float_, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DECIMAL:
		return sc_arrow_append_decimal_str(w, col, l->decimal->value,
		    err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING:
		return sc_arrow_append_bytes(w, col, l->string,
		    strlen(l->string), err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BOOLEAN:
		return sc_arrow_append_bool(w, col, l->boolean, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DATE:
		return sc_arrow_append_int64(w, col, l->date, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_TIMESTAMP:
		return sc_arrow_append_int64(w, col, l->timestamp, err);
	default:
		(void)c;
		return sc_arrow_append_int64(w, col, l->timestamp_ntz, err);
	}
}

/*
 * VALUES row, ... [[AS] t[(a, b, ...)]] after the keyword, as Spark's
 * inline table: a local relation (columns col1, col2, ..., typed from
 * their literals), under an alias.  Only literal values are taken.
 */
static Rel *
values_rel(struct parser *p)
{
	Expr ***rows = NULL, **row;
	size_t nrows = 0, ncols = 0, n, i, j;
	struct vcol *cols = NULL;
	struct sc_arrow_schema as;
	struct sc_arrow_writer *w = NULL;
	struct sc_arrow_field *f;
	struct sc_buf ipc;
	struct sc_error e;
	char **names = NULL, *alias = NULL, name[32];
	size_t nnames = 0;
	Rel *r = NULL, *lr;
	bool paren;

	sc_arrow_schema_init(&as);
	sc_buf_init(&ipc, SC_BUF_UNLIMITED);
	for (;;) {
		paren = accept_op(p, "(");
		if (paren)
			row = expr_list(p, &n, false);
		else if ((row = sc_xcalloc(1, sizeof(*row))) != NULL &&
		    (row[0] = expr(p)) != NULL)
			n = 1;
		else {
			free(row);
			row = NULL;
		}
		if (row == NULL || (paren && !expect_op(p, ")")) ||
		    (nrows > 0 && n != ncols)) {
			if (row != NULL)
				exprs_free(row, n);
			not_taken(p);
			goto out;
		}
		for (i = 0; i < n; i++)
			if (row[i]->expr_type_case !=
			    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL) {
				exprs_free(row, n);
				not_taken(p);
				goto out;
			}
		ncols = n;
		rows = sc_xreallocarray(rows, nrows + 1, sizeof(*rows));
		rows[nrows++] = row;
		if (!accept_op(p, ","))
			break;
	}
	/* [AS] t [(a, b)] */
	accept_word(p, "as");
	if ((cur(p)->kind == SC_TK_WORD && !is_reserved(cur(p))) ||
	    cur(p)->kind == SC_TK_QIDENT) {
		alias = ident_text(cur(p));
		p->i++;
		if (accept_op(p, "(")) {
			for (;;) {
				if (cur(p)->kind != SC_TK_WORD &&
				    cur(p)->kind != SC_TK_QIDENT) {
					not_taken(p);
					goto out;
				}
				names = sc_xreallocarray(names, nnames + 1,
				    sizeof(*names));
				names[nnames++] = ident_text(cur(p));
				p->i++;
				if (!accept_op(p, ","))
					break;
			}
			if (!expect_op(p, ")") || nnames != ncols) {
				not_taken(p);
				goto out;
			}
		}
	}
	cols = sc_xcalloc(ncols, sizeof(*cols));
	for (j = 0; j < ncols; j++)
		for (i = 0; i < nrows; i++)
			if (!vcol_merge(&cols[j], rows[i][j]->literal)) {
				not_taken(p);
				goto out;
			}
	for (j = 0; j < ncols; j++) {
		snprintf(name, sizeof(name), "col%zu", j + 1);
		f = sc_arrow_schema_add(&as, names != NULL ? names[j] : name,
		    cols[j].type,
		    cols[j].nullable || cols[j].type == SC_ARROW_NULL);
		f->precision = cols[j].prec;
		f->scale = cols[j].scale;
		if (cols[j].type == SC_ARROW_TIMESTAMP_US && !cols[j].ntz)
			f->tz = sc_xstrdup("UTC");
	}
	if ((w = sc_arrow_writer_new(&as, &e)) == NULL) {
		not_taken(p);
		goto out;
	}
	for (i = 0; i < nrows; i++) {
		for (j = 0; j < ncols; j++)
			if (vappend(w, j, &cols[j], rows[i][j]->literal, &e) ==
			    -1) {
				not_taken(p);
				goto out;
			}
		if (sc_arrow_writer_end_row(w, &e) == -1) {
			not_taken(p);
			goto out;
		}
	}
	if (sc_arrow_writer_flush(w, &ipc, &e) == -1) {
		not_taken(p);
		goto out;
	}
	lr = rel_new();
	lr->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION;
	lr->local_relation = sc_xmalloc(sizeof(*lr->local_relation));
	spark__connect__local_relation__init(lr->local_relation);
	lr->local_relation->_data_case =
	    SPARK__CONNECT__LOCAL_RELATION___DATA_DATA;
	lr->local_relation->data.len = ipc.len;
	lr->local_relation->data.data = sc_buf_detach(&ipc, NULL);
	r = alias_rel(lr, alias);
	alias = NULL;
out:
	for (i = 0; i < nrows; i++)
		exprs_free(rows[i], ncols);
	free(rows);
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	free(alias);
	free(cols);
	sc_arrow_writer_free(w);
	sc_arrow_schema_release(&as);
	sc_buf_release(&ipc);
	return r;
}

/*
 * WITH name [(a, b)] AS (query), ... after the keyword: each query is
 * kept, and inlined where a FROM item names it, as Spark substitutes a
 * non-recursive CTE.  False (p->fail set) when not taken.
 */
static bool
with_clause(struct parser *p)
{
	struct cte c;

	if (is_word(p, "recursive")) {
		not_taken(p);
		return false;
	}
	for (;;) {
		const struct sc_sqltok *t = cur(p);

		if ((t->kind != SC_TK_WORD || is_reserved(t)) &&
		    t->kind != SC_TK_QIDENT) {
			not_taken(p);
			return false;
		}
		c.name = ident_text(t);
		p->i++;
		/* A CTE's own GROUP BY keys could not be hidden: deeper. */
		p->depth++;
		c.rel = NULL;
		if (is_op(p, "(") || !accept_word(p, "as") ||
		    !expect_op(p, "(") || !is_word(p, "select") ||
		    (c.rel = query(p)) == NULL ||
		    (c.rel = set_ops(p, c.rel)) == NULL || !expect_op(p, ")")) {
			p->depth--;
			free(c.name);
			rel_free(c.rel);
			not_taken(p);
			return false;
		}
		p->depth--;
		p->ctes =
		    sc_xreallocarray(p->ctes, p->nctes + 1, sizeof(*p->ctes));
		p->ctes[p->nctes++] = c;
		if (!accept_op(p, ","))
			return true;
	}
}

/* Whether r ends in ORDER BY, LIMIT or OFFSET of its own. */
static bool
ordered(const Rel *r)
{
	return r->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_SORT ||
	    r->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_LIMIT ||
	    r->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_OFFSET;
}

/*
 * UNION, INTERSECT, EXCEPT or MINUS [ALL | DISTINCT] queries after the
 * query left, left to right.  Taken: a chain of one precedence level
 * (INTERSECT binds tighter than the others in Spark) of plain SELECTs,
 * none ordered or limited (an ORDER BY or LIMIT after the last one is
 * the whole chain's) nor grouped (hidden columns).  Takes left.
 */
static Rel *
set_ops(struct parser *p, Rel *left)
{
	Spark__Connect__SetOperation__SetOpType type;
	Spark__Connect__SetOperation *so;
	int level = 0; /* 1 INTERSECT, 2 UNION/EXCEPT */
	Rel *right, *r;
	bool all;

	for (;;) {
		if (accept_word(p, "union"))
			type =
			    SPARK__CONNECT__SET_OPERATION__SET_OP_TYPE__SET_OP_TYPE_UNION;
		else if (accept_word(p, "except") || accept_word(p, "minus"))
			type =
			    SPARK__CONNECT__SET_OPERATION__SET_OP_TYPE__SET_OP_TYPE_EXCEPT;
		else if (accept_word(p, "intersect"))
			type =
			    SPARK__CONNECT__SET_OPERATION__SET_OP_TYPE__SET_OP_TYPE_INTERSECT;
		else
			return left;
		if (level != 0 &&
		    level !=
			(type == SPARK__CONNECT__SET_OPERATION__SET_OP_TYPE__SET_OP_TYPE_INTERSECT
				? 1
				: 2))
			goto nt;
		level = type ==
			SPARK__CONNECT__SET_OPERATION__SET_OP_TYPE__SET_OP_TYPE_INTERSECT
		    ? 1
		    : 2;
		all = accept_word(p, "all");
		if (!all)
			accept_word(p, "distinct");
		if (p->hidden != 0 || ordered(left) || !is_word(p, "select"))
			goto nt;
		if ((right = query(p)) == NULL) {
			rel_free(left);
			return NULL;
		}
		so = sc_xmalloc(sizeof(*so));
		spark__connect__set_operation__init(so);
		so->left_input = left;
		so->right_input = right;
		so->set_op_type = type;
		so->_is_all_case =
		    SPARK__CONNECT__SET_OPERATION___IS_ALL_IS_ALL;
		so->is_all = all;
		r = rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SET_OP;
		r->set_op = so;
		left = r;
		if (p->hidden != 0 || ordered(right))
			goto nt;
	}
nt:
	rel_free(left);
	return not_taken(p);
}

enum sc_sqlparse_rc
sc_sqlparse(const char *src, Spark__Connect__Relation **out, size_t *hidden,
    struct sc_error *err)
{
	static const char *const starts[] = { "select", "values", "with",
		NULL };
	struct parser p;
	Rel *r;
	size_t i;

	/* Statements (a long INSERT) are not read twice. */
	if (!sc_sqllex_first_word(src, starts))
		return SC_SQLPARSE_NOT_TAKEN;
	memset(&p, 0, sizeof(p));
	p.src = src;
	p.err = err;
	if (sc_sqllex(src, &p.t, &p.n) == -1)
		return SC_SQLPARSE_NOT_TAKEN;
	for (i = 0; i < p.n; i++)
		if (p.t[i].kind == SC_TK_PARAM) {
			sc_sqllex_free(p.t, p.n);
			return SC_SQLPARSE_NOT_TAKEN;
		}
	r = NULL;
	if (accept_word(&p, "with") && !with_clause(&p))
		goto parsed;
	if (accept_word(&p, "values"))
		r = values_rel(&p);
	else if ((r = query(&p)) != NULL)
		r = set_ops(&p, r);
parsed:
	while (r != NULL && accept_op(&p, ";"))
		;
	if (r != NULL && cur(&p)->kind != SC_TK_EOF) {
		rel_free(r);
		r = NULL;
		if (p.fail == 0)
			p.fail = SC_SQLPARSE_NOT_TAKEN;
	}
	sc_sqllex_free(p.t, p.n);
	for (i = 0; i < p.nctes; i++) {
		free(p.ctes[i].name);
		rel_free(p.ctes[i].rel);
	}
	free(p.ctes);
	scope_pop(&p, 0);
	free(p.scope);
	if (r == NULL)
		return p.fail == SC_SQLPARSE_ERROR ? SC_SQLPARSE_ERROR
						   : SC_SQLPARSE_NOT_TAKEN;
	*out = r;
	*hidden = p.hidden;
	return SC_SQLPARSE_OK;
}
