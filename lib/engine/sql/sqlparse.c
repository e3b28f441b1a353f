/* SPDX-License-Identifier: MIT */

/*
 * sqlparse.c: a Spark SQL query as an unresolved Spark Connect plan.
 * Recursive descent over sqllex.c's tokens, with Spark's operator
 * precedence (OR < AND < NOT < comparisons and predicates < | < ^ < &
 * < + - || < * / % div < unary), Spark's literal types (1 int, 1L
 * bigint, 1.5 decimal(2,1), 1.5D and 1e3 double, 'x' and "x" string,
 * DATE '...', TIMESTAMP '...') and Spark's operator names, so the plan
 * translator answers as it does for the same DataFrame.  A query
 * outside the grammar is refused where the parser stopped: nothing
 * goes to SQLite as the client wrote it.
 *
 * This file holds the tokens, building messages, literals, WITH, the set
 * operations and sc_sqlparse(); expressions are sqlparse_expr.c's, FROM
 * items (joins, VALUES) sqlparse_from.c's, SELECT sqlparse_query.c's.
 */

#include "engine/sql/sqlparse.h"
#include "engine/sql/sqlparse_int.h"
#include "engine/engine_int.h"

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
#include "core/value.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* ------------------------------------------------------------------ */
/* Tokens                                                              */
/* ------------------------------------------------------------------ */

const struct sc_sqltok *
sc_sqlp_cur(const struct parser *p)
{
	return &p->t[p->i];
}

const struct sc_sqltok *
sc_sqlp_peek(const struct parser *p, size_t k)
{
	return p->i + k < p->n ? &p->t[p->i + k] : &p->t[p->n - 1];
}

bool
sc_sqlp_tok_word(const struct sc_sqltok *t, const char *w)
{
	return t->kind == SC_TK_WORD && strlen(w) == t->n &&
	    strncasecmp(t->s, w, t->n) == 0;
}

bool
sc_sqlp_tok_op(const struct sc_sqltok *t, const char *o)
{
	return t->kind == SC_TK_OP && strlen(o) == t->n &&
	    strncmp(t->s, o, t->n) == 0;
}

bool
sc_sqlp_is_word(const struct parser *p, const char *w)
{
	return sc_sqlp_tok_word(sc_sqlp_cur(p), w);
}

bool
sc_sqlp_is_op(const struct parser *p, const char *o)
{
	return sc_sqlp_tok_op(sc_sqlp_cur(p), o);
}

bool
sc_sqlp_accept_word(struct parser *p, const char *w)
{
	if (!sc_sqlp_is_word(p, w))
		return false;
	p->i++;
	return true;
}

bool
sc_sqlp_accept_op(struct parser *p, const char *o)
{
	if (!sc_sqlp_is_op(p, o))
		return false;
	p->i++;
	return true;
}

/* Give up on the text here (refused by sc_sqlparse_args()). */
void *
sc_sqlp_not_taken(struct parser *p)
{
	if (p->fail == 0) {
		p->fail = SC_SQLPARSE_NOT_TAKEN;
		p->stop = p->i;
	}
	return NULL;
}

/* Refuse the text: Spark syntax without Spark's answer here. */
void *
sc_sqlp_unsupported(struct parser *p, const char *what)
{
	if (p->fail == 0) {
		p->fail = SC_SQLPARSE_ERROR;
		sc_srv_error(p->err, "UNSUPPORTED_FEATURE.SQL_SYNTAX", "0A000",
		    "The feature is not supported: %s in SQL text.", what);
	}
	return NULL;
}

bool
sc_sqlp_expect_op(struct parser *p, const char *o)
{
	if (sc_sqlp_accept_op(p, o))
		return true;
	sc_sqlp_not_taken(p);
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

bool
sc_sqlp_is_reserved(const struct sc_sqltok *t)
{
	size_t i;

	if (t->kind != SC_TK_WORD)
		return false;
	for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (sc_sqlp_tok_word(t, reserved[i]))
			return true;
	return false;
}

/* An identifier's text (malloc'ed), or NULL when t is none. */
char *
sc_sqlp_ident_text(const struct sc_sqltok *t)
{
	if (t->kind == SC_TK_QIDENT)
		return sc_xstrndup((const char *)t->text.data, t->text.len);
	if (t->kind == SC_TK_WORD)
		return sc_xstrndup(t->s, t->n);
	return NULL;
}

/* An identifier part as unparsed_identifier text: `x` if it needs it. */
void
sc_sqlp_add_part(struct sc_buf *b, const struct sc_sqltok *t)
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

Expr *
sc_sqlp_expr_new(void)
{
	Expr *e = sc_xmalloc(sizeof(*e));

	spark__connect__expression__init(e);
	return e;
}

void
sc_sqlp_expr_free(Expr *e)
{
	if (e != NULL)
		protobuf_c_message_free_unpacked(&e->base, NULL);
}

/* A deep copy of e, or NULL. */
Expr *
sc_sqlp_expr_copy(const Expr *e)
{
	size_t len = protobuf_c_message_get_packed_size(&e->base);
	uint8_t *buf = sc_xmalloc(len > 0 ? len : 1);
	Expr *copy;

	protobuf_c_message_pack(&e->base, buf);
	copy = spark__connect__expression__unpack(NULL, len, buf);
	free(buf);
	return copy;
}

Rel *
sc_sqlp_rel_new(void)
{
	Rel *r = sc_xmalloc(sizeof(*r));

	spark__connect__relation__init(r);
	return r;
}

void
sc_sqlp_rel_free(Rel *r)
{
	if (r != NULL)
		protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A deep copy of r, or NULL. */
Rel *
sc_sqlp_rel_copy(const Rel *r)
{
	size_t len = protobuf_c_message_get_packed_size(&r->base);
	uint8_t *buf = sc_xmalloc(len > 0 ? len : 1);
	Rel *copy;

	protobuf_c_message_pack(&r->base, buf);
	copy = spark__connect__relation__unpack(NULL, len, buf);
	free(buf);
	return copy;
}

Spark__Connect__Expression__Literal *
sc_sqlp_lit_new(Expr **ep)
{
	Expr *e = sc_sqlp_expr_new();
	Spark__Connect__Expression__Literal *l = sc_xmalloc(sizeof(*l));

	spark__connect__expression__literal__init(l);
	e->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL;
	e->literal = l;
	*ep = e;
	return l;
}

Expr *
sc_sqlp_lit_int(int32_t v)
{
	Expr *e;
	Spark__Connect__Expression__Literal *l = sc_sqlp_lit_new(&e);

	l->literal_type_case =
	    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER;
	l->integer = v;
	return e;
}

Expr *
sc_sqlp_func_new(const char *name, size_t nargs, ...)
{
	Expr *e = sc_sqlp_expr_new();
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

void
sc_sqlp_func_add(Expr *e, Expr *arg)
{
	Spark__Connect__Expression__UnresolvedFunction *f =
	    e->unresolved_function;

	f->arguments =
	    sc_xreallocarray(f->arguments, f->n_arguments + 1, sizeof(Expr *));
	f->arguments[f->n_arguments++] = arg;
}

Expr *
sc_sqlp_attr_new(const char *ident)
{
	Expr *e = sc_sqlp_expr_new();
	Spark__Connect__Expression__UnresolvedAttribute *a;

	a = sc_xmalloc(sizeof(*a));
	spark__connect__expression__unresolved_attribute__init(a);
	a->unparsed_identifier = sc_xstrdup(ident);
	e->expr_type_case =
	    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE;
	e->unresolved_attribute = a;
	return e;
}

Expr *
sc_sqlp_star_new(const char *target)
{
	Expr *e = sc_sqlp_expr_new();
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

Expr *
sc_sqlp_alias_new(Expr *child, char *name)
{
	Expr *e = sc_sqlp_expr_new();
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
	*days = sc_value_days_from_civil(y, (int)m, (int)d);
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

/*
 * A parameter marker: ? takes the next positional value, :name the named
 * one, as Spark binds them before analysis (a literal's type and name);
 * one left without a value is Spark's UNBOUND_SQL_PARAMETER, named as
 * Spark names it (a positional one by its offset in the text).
 */
Expr *
sc_sqlp_param(struct parser *p)
{
	const struct sc_sqltok *t = sc_sqlp_cur(p);
	const Spark__Connect__SQL *q = p->args;
	Spark__Connect__Expression__Literal *l = NULL;
	const Expr *v = NULL;
	char name[128];
	size_t i, k;
	bool novalue = false;
	Expr *e;

	if (t->s[0] == '?') {
		k = p->npos++;
		snprintf(name, sizeof(name), "_%zu", t->off);
		if (q != NULL && k < q->n_pos_args)
			l = q->pos_args[k];
		else if (q != NULL && k < q->n_pos_arguments)
			v = q->pos_arguments[k];
	} else {
		if (t->n - 1 >= sizeof(name))
			return sc_sqlp_not_taken(p);
		memcpy(name, t->s + 1, t->n - 1);
		name[t->n - 1] = '\0';
		for (i = 0; q != NULL && i < q->n_args; i++)
			if (strcmp(q->args[i]->key, name) == 0) {
				l = q->args[i]->value;
				novalue |= l == NULL;
			}
		for (i = 0; q != NULL && i < q->n_named_arguments; i++)
			if (strcmp(q->named_arguments[i]->key, name) == 0) {
				v = q->named_arguments[i]->value;
				novalue |= v == NULL;
			}
	}
	if (l == NULL && v == NULL && novalue) {
		/* A map entry without a value: Spark's analyzer. */
		if (p->fail == 0) {
			p->fail = SC_SQLPARSE_ERROR;
			sc_srv_error(p->err, "INVALID_SQL_ARG", "42K08",
			    "The argument of `sql()` is invalid: %s has no "
			    "value.",
			    name);
		}
		return NULL;
	}
	if (l == NULL && v == NULL) {
		if (p->fail == 0) {
			p->fail = SC_SQLPARSE_ERROR;
			sc_srv_error(p->err, "UNBOUND_SQL_PARAMETER", "42P02",
			    "Found the unbound parameter: %s. Please, fix "
			    "`args` and provide a mapping of the parameter to "
			    "either a SQL literal or collection constructor "
			    "functions such as `map()`, `array()`, "
			    "`struct()`.",
			    name);
		}
		return NULL;
	}
	p->i++;
	if (v != NULL)
		return sc_sqlp_expr_copy(v);
	e = sc_sqlp_expr_new();
	e->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL;
	{
		size_t n = protobuf_c_message_get_packed_size(&l->base);
		uint8_t *b = sc_xmalloc(n + 1);

		protobuf_c_message_pack(&l->base, b);
		e->literal = (Spark__Connect__Expression__Literal *)
		    protobuf_c_message_unpack(
			&spark__connect__expression__literal__descriptor, NULL,
			n, b);
		free(b);
	}
	if (e->literal == NULL) {
		sc_sqlp_expr_free(e);
		return sc_sqlp_not_taken(p);
	}
	return e;
}

/* DATE '...', TIMESTAMP '...' after the keyword. */
Expr *
sc_sqlp_typed_literal(struct parser *p, const char *kw)
{
	const struct sc_sqltok *t = sc_sqlp_cur(p);
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
			return sc_sqlp_not_taken(p);
		l = sc_sqlp_lit_new(&e);
		l->literal_type_case =
		    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DATE;
		l->date = (int32_t)v;
		return e;
	}
	while (*s == ' ')
		s++;
	/*
	 * A TIMESTAMP is an instant: Spark's forms, with a zone of their
	 * own or read in the session zone (engine_tz.c).
	 */
	if (strcasecmp(kw, "timestamp_ntz") == 0
		? !parse_timestamp(s, &v)
		: sc_eng_tz_parse(sc_eng_tz_current(), s, strlen(s), &v) == -1)
		return sc_sqlp_not_taken(p);
	l = sc_sqlp_lit_new(&e);
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
Expr *
sc_sqlp_number_literal(struct parser *p, bool neg)
{
	const struct sc_sqltok *t = sc_sqlp_cur(p);
	Spark__Connect__Expression__Literal *l;
	char buf[128], *end;
	size_t len = t->numlen, digits = 0, scale = 0, i;
	bool seen_dot = false, lead = true;
	long long ll;
	double d;
	Expr *e;

	if (len + 2 > sizeof(buf))
		return sc_sqlp_not_taken(p);
	snprintf(buf, sizeof(buf), "%s%.*s", neg ? "-" : "", (int)len, t->s);
	p->i++;
	l = sc_sqlp_lit_new(&e);
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
			sc_sqlp_expr_free(e);
			return sc_sqlp_not_taken(p);
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
			sc_sqlp_expr_free(e);
			return sc_sqlp_not_taken(p);
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
		const char *dg = buf + (buf[0] == '-');
		size_t nd = strlen(dg);

		if (t->suffix == 0 && nd <= 38 &&
		    nd == strspn(dg, "0123456789")) {
			/*
			 * As the cast of its digits, which keeps all of them
			 * (a decimal literal goes through a double).
			 */
			Spark__Connect__Expression__Cast *c;
			Expr *ce;

			sc_sqlp_expr_free(e);
			c = sc_xmalloc(sizeof(*c));
			spark__connect__expression__cast__init(c);
			c->expr = sc_sqlp_string_lit(buf, strlen(buf));
			c->cast_to_type_case =
			    SPARK__CONNECT__EXPRESSION__CAST__CAST_TO_TYPE_TYPE_STR;
			c->type_str = sc_xasprintf("decimal(%zu,0)", nd);
			ce = sc_sqlp_expr_new();
			ce->expr_type_case =
			    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CAST;
			ce->cast = c;
			return ce;
		}
		sc_sqlp_expr_free(e);
		return sc_sqlp_unsupported(p,
		    "an out-of-range numeric literal");
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
	sc_sqlp_expr_free(e);
	return sc_sqlp_unsupported(p, "an out-of-range numeric literal");
}

/* ------------------------------------------------------------------ */
/* WITH, set operations, the parser                                    */
/* ------------------------------------------------------------------ */

/*
 * WITH name [(a, b)] AS (query), ... after the keyword: each query is
 * kept, and inlined where a FROM item names it, as Spark substitutes a
 * non-recursive CTE.  False (p->fail set) when not taken.
 */
static bool
with_clause(struct parser *p)
{
	struct sc_sqlp_chain chain;
	struct cte c;
	size_t cols, after;

	/* Spark 4.0 has no recursive CTE (it came in 4.1). */
	if (sc_sqlp_is_word(p, "recursive") &&
	    !sc_sqlp_tok_word(sc_sqlp_peek(p, 1), "as")) {
		sc_sqlp_unsupported(p, "WITH RECURSIVE");
		return false;
	}
	for (;;) {
		const struct sc_sqltok *t = sc_sqlp_cur(p);

		if ((t->kind != SC_TK_WORD || sc_sqlp_is_reserved(t)) &&
		    t->kind != SC_TK_QIDENT) {
			sc_sqlp_not_taken(p);
			return false;
		}
		c.name = sc_sqlp_ident_text(t);
		p->i++;
		/* name (a, b, ...): the query's columns renamed after it. */
		cols = 0;
		if (sc_sqlp_is_op(p, "(")) {
			cols = p->i;
			while (sc_sqlp_cur(p)->kind != SC_TK_EOF &&
			    !sc_sqlp_accept_op(p, ")"))
				p->i++;
		}
		/* A CTE's own GROUP BY keys could not be hidden: deeper. */
		p->depth++;
		c.rel = NULL;
		/* How deep its query is, where it is inlined: its height. */
		sc_sqlp_chain_begin(p, &chain);
		if (!sc_sqlp_accept_word(p, "as") ||
		    !sc_sqlp_expect_op(p, "(") ||
		    !sc_sqlp_is_word(p, "select") ||
		    (c.rel = sc_sqlp_query_ops(p)) == NULL ||
		    !sc_sqlp_expect_op(p, ")")) {
			sc_sqlp_chain_end(p, &chain);
			p->depth--;
			free(c.name);
			sc_sqlp_rel_free(c.rel);
			sc_sqlp_not_taken(p);
			return false;
		}
		c.height = sc_sqlp_chain_end(p, &chain);
		p->depth--;
		if (cols != 0) {
			after = p->i;
			p->i = cols;
			c.rel = sc_sqlp_to_df(p, c.rel);
			p->i = after;
			if (c.rel == NULL) {
				free(c.name);
				return false;
			}
		}
		p->ctes =
		    sc_xreallocarray(p->ctes, p->nctes + 1, sizeof(*p->ctes));
		p->ctes[p->nctes++] = c;
		if (!sc_sqlp_accept_op(p, ","))
			return true;
	}
}

enum sc_sqlparse_rc
sc_sqlparse(const char *src, Spark__Connect__Relation **out, size_t *hidden,
    struct sc_error *err)
{
	return sc_sqlparse_args(src, NULL, out, hidden, err);
}

/* Words SQLite has and Spark SQL does not: a syntax error there. */
static bool
sqlite_only(const struct sc_sqltok *t)
{
	static const char *const words[] = { "glob", "indexed", "notnull",
		"isnull", "autoincrement", "without", "pragma", "vacuum",
		"attach", "detach", "reindex", "begin", "commit", "rollback",
		"savepoint", "release", "replace", "upsert", "returning" };
	size_t k;

	/* A string where a name goes: SQLite reads it as one. */
	if (t->kind == SC_TK_PARAM || t->kind == SC_TK_STRING)
		return true;
	if (t->kind == SC_TK_OP)
		return t->s[0] == '[' || t->s[0] == ']' || t->s[0] == ';';
	for (k = 0; k < SC_NELEM(words); k++)
		if (sc_sqlp_tok_word(t, words[k]))
			return true;
	return false;
}

int
sc_sqlp_syntax_error(const struct sc_sqltok *t, struct sc_error *err)
{
	if (t->kind == SC_TK_EOF)
		return sc_srv_error(err, "PARSE_SYNTAX_ERROR", "42601",
		    "Syntax error at or near end of input.");
	return sc_srv_error(err, "PARSE_SYNTAX_ERROR", "42601",
	    "Syntax error at or near '%.*s'.", (int)(t->n > 40 ? 40 : t->n),
	    t->s);
}

/*
 * A query the parser stopped in at token t (not taken): what SQLite
 * alone has is Spark's syntax error there; the rest is Spark syntax
 * sc-serve does not answer.
 */
static void
refuse_at(const struct sc_sqltok *t, struct sc_error *err)
{
	if (t->kind == SC_TK_EOF || sqlite_only(t)) {
		sc_sqlp_syntax_error(t, err);
		return;
	}
	sc_srv_error(err, "UNSUPPORTED_FEATURE.SQL_SYNTAX", "0A000",
	    "The feature is not supported: the SQL text at or near '%.*s', which the Spark SQL parser of sc-serve does not take.",
	    (int)(t->n > 40 ? 40 : t->n), t->s);
}

static void
parser_release(struct parser *p)
{
	size_t i;

	sc_sqllex_free(p->t, p->n);
	for (i = 0; i < p->nctes; i++) {
		free(p->ctes[i].name);
		sc_sqlp_rel_free(p->ctes[i].rel);
	}
	free(p->ctes);
	sc_sqlp_scope_pop(p, 0);
	free(p->scope);
}

/* Lex src for p: 0, or -1 (err set: Spark's syntax error). */
static int
parser_open(struct parser *p, const char *src, const Spark__Connect__SQL *args,
    struct sc_error *err)
{
	static const Spark__Connect__SQL none = SPARK__CONNECT__SQL__INIT;
	size_t i;

	memset(p, 0, sizeof(*p));
	p->src = src;
	p->err = err;
	if (sc_sqllex(src, &p->t, &p->n) == -1)
		return sc_srv_error(err, "PARSE_SYNTAX_ERROR", "42601",
		    "Syntax error at or near an unclosed string, identifier or comment.");
	/*
	 * Spark's markers are ? and :name; @name, $name and ?NNN are not.
	 * Without the SQL message, a marker has no value (unbound).
	 */
	for (i = 0; i < p->n; i++)
		if (p->t[i].kind == SC_TK_PARAM &&
		    (p->t[i].s[0] == '@' || p->t[i].s[0] == '$' ||
			(p->t[i].s[0] == '?' && p->t[i].n > 1))) {
			sc_sqlp_syntax_error(&p->t[i], err);
			sc_sqllex_free(p->t, p->n);
			return -1;
		}
	p->args = args != NULL ? args : &none;
	return 0;
}

/* After parsing: p's outcome for r, which must have read all tokens. */
static enum sc_sqlparse_rc
parser_end(struct parser *p, void *r)
{
	if (r != NULL && sc_sqlp_cur(p)->kind != SC_TK_EOF) {
		sc_srv_error(p->err, "PARSE_SYNTAX_ERROR", "42601",
		    "Syntax error at or near '%.*s': extra input '%.*s'.",
		    (int)(sc_sqlp_cur(p)->n > 40 ? 40 : sc_sqlp_cur(p)->n),
		    sc_sqlp_cur(p)->s,
		    (int)(sc_sqlp_cur(p)->n > 40 ? 40 : sc_sqlp_cur(p)->n),
		    sc_sqlp_cur(p)->s);
		return SC_SQLPARSE_ERROR;
	}
	if (r != NULL)
		return SC_SQLPARSE_OK;
	if (p->fail != SC_SQLPARSE_ERROR)
		refuse_at(&p->t[p->stop < p->n ? p->stop : p->n - 1], p->err);
	return SC_SQLPARSE_ERROR;
}

enum sc_sqlparse_rc
sc_sqlparse_args(const char *src, const Spark__Connect__SQL *args,
    Spark__Connect__Relation **out, size_t *hidden, struct sc_error *err)
{
	static const char *const starts[] = { "select", "values", "with",
		"table", NULL };
	struct parser p;
	enum sc_sqlparse_rc rc;
	Rel *r;

	/* Statements (a long INSERT) are not read twice. */
	if (!sc_sqllex_first_word(src, starts))
		return SC_SQLPARSE_NOT_TAKEN;
	if (parser_open(&p, src, args, err) == -1)
		return SC_SQLPARSE_ERROR;
	r = NULL;
	if (sc_sqlp_accept_word(&p, "with") && !with_clause(&p))
		goto parsed;
	if (sc_sqlp_accept_word(&p, "values"))
		r = sc_sqlp_values_rel(&p);
	else if (sc_sqlp_accept_word(&p, "table"))
		r = sc_sqlp_from_item(&p); /* TABLE t: SELECT * FROM t */
	else
		r = sc_sqlp_query_ops(&p);
parsed:
	while (r != NULL && sc_sqlp_accept_op(&p, ";"))
		;
	rc = parser_end(&p, r);
	if (rc == SC_SQLPARSE_OK) {
		*out = r;
		*hidden = p.hidden;
	} else {
		sc_sqlp_rel_free(r);
	}
	parser_release(&p);
	return rc;
}

enum sc_sqlparse_rc
sc_sqlparse_expr(const char *src, const Spark__Connect__SQL *args,
    Spark__Connect__Expression **out, struct sc_error *err)
{
	struct parser p;
	enum sc_sqlparse_rc rc;
	Expr *e;

	if (parser_open(&p, src, args, err) == -1)
		return SC_SQLPARSE_ERROR;
	e = sc_sqlp_expr(&p);
	rc = parser_end(&p, e);
	if (rc == SC_SQLPARSE_OK)
		*out = e;
	else
		sc_sqlp_expr_free(e);
	parser_release(&p);
	return rc;
}
