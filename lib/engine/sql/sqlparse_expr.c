/* SPDX-License-Identifier: MIT */

/*
 * sqlparse_expr.c: Spark SQL expressions, with Spark's operator
 * precedence, windows and function calls, as unresolved Spark Connect
 * expressions.
 */

#include "engine/sql/sqlparse.h"
#include "engine/sql/sqlparse_int.h"

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
#include "core/hex.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* ------------------------------------------------------------------ */
/* Expressions                                                         */
/* ------------------------------------------------------------------ */

void *
sc_sqlp_too_complex(struct parser *p, const char *why)
{
	if (p->fail == 0) {
		p->fail = SC_SQLPARSE_ERROR;
		sc_srv_error(p->err, "FAILED_TO_PARSE_TOO_COMPLEX", "54001",
		    "The statement is too complex to parse: %s. Divide it into simpler statements.",
		    why);
	}
	return NULL;
}

static bool
too_deep(struct parser *p)
{
	char why[128];

	snprintf(why, sizeof(why),
	    "it nests expressions, subqueries or chained operators more than %d levels deep",
	    MAX_DEPTH);
	sc_sqlp_too_complex(p, why);
	return false;
}

bool
sc_sqlp_deeper(struct parser *p)
{
	p->depth++;
	if (++p->level > MAX_DEPTH)
		return too_deep(p);
	if (p->level > p->peak)
		p->peak = p->level;
	return true;
}

void
sc_sqlp_shallower(struct parser *p)
{
	p->depth--;
	p->level--;
}

/*
 * A chain of n operators over operands at most h levels high is at most
 * n + h levels high (each operand sits under at most n of them), so n +
 * h is what counts against MAX_DEPTH, and what the chain adds to the
 * level of what holds it.  An operand's height is the peak level its
 * parse reached, less the level it began at.
 */
void
sc_sqlp_chain_begin(struct parser *p, struct sc_sqlp_chain *c)
{
	c->level = p->level;
	c->peak = p->peak;
	c->n = 0;
	c->height = 0;
	c->at = p->level;
	c->outer = p->chain;
	p->chain = c;
	p->peak = p->level;
}

static void
operand_done(struct parser *p, struct sc_sqlp_chain *c)
{
	if (p->peak - c->at > c->height)
		c->height = p->peak - c->at;
}

bool
sc_sqlp_chain_next(struct parser *p, int n)
{
	struct sc_sqlp_chain *c = p->chain;

	operand_done(p, c);
	if (c->level + c->n + n + c->height > MAX_DEPTH)
		return too_deep(p);
	c->n += n;
	p->level = c->level + c->n;
	p->peak = p->level;
	c->at = p->level;
	return true;
}

int
sc_sqlp_chain_end(struct parser *p, struct sc_sqlp_chain *c)
{
	int top;

	operand_done(p, c);
	top = c->level + c->n + c->height;
	p->chain = c->outer;
	p->level = c->level;
	p->peak = c->peak > top ? c->peak : top;
	return c->n + c->height;
}

bool
sc_sqlp_inline(struct parser *p, int height)
{
	if (p->level + height > MAX_DEPTH)
		return too_deep(p);
	if (p->level + height > p->peak)
		p->peak = p->level + height;
	return true;
}

static bool
charge(struct parser *p, size_t len)
{
	char why[128];

	if (len <= MAX_COPIED - p->copied) {
		p->copied += len;
		return true;
	}
	snprintf(why, sizeof(why),
	    "its common table expressions and repeated operands expand to more than %zu bytes of plan",
	    MAX_COPIED);
	sc_sqlp_too_complex(p, why);
	return false;
}

Expr *
sc_sqlp_expr_dup(struct parser *p, const Expr *e)
{
	if (!charge(p, protobuf_c_message_get_packed_size(&e->base)))
		return NULL;
	return sc_sqlp_expr_copy(e);
}

Rel *
sc_sqlp_rel_dup(struct parser *p, const Rel *r)
{
	if (!charge(p, protobuf_c_message_get_packed_size(&r->base)))
		return NULL;
	return sc_sqlp_rel_copy(r);
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
		t = sc_sqlp_cur(p);
		if (t->kind == SC_TK_EOF ||
		    (depth == 0 && sc_sqlp_tok_op(t, ")")))
			break;
		if (sc_sqlp_tok_op(t, "(") || sc_sqlp_tok_op(t, "<"))
			depth++;
		else if (sc_sqlp_tok_op(t, ")") || sc_sqlp_tok_op(t, ">"))
			depth--;
		if (b.len > 0 && t->kind == SC_TK_WORD)
			sc_buf_addch(&b, ' ', NULL);
		if (t->kind == SC_TK_QIDENT || t->kind == SC_TK_STRING) {
			sc_buf_release(&b);
			return sc_sqlp_not_taken(p);
		}
		sc_buf_add(&b, t->s, t->n, NULL);
		p->i++;
	}
	if (b.len == 0) {
		sc_buf_release(&b);
		return sc_sqlp_not_taken(p);
	}
	return (char *)sc_buf_detach(&b, NULL);
}

/*
 * The type after e::, as text: a name and, for DECIMAL(p, s) or
 * ARRAY<...>, MAP<...>, STRUCT<...>, its balanced parameters.
 */
static char *
colon_type_text(struct parser *p)
{
	const struct sc_sqltok *t = sc_sqlp_cur(p);
	struct sc_buf b;
	int depth = 0;

	if (t->kind != SC_TK_WORD)
		return sc_sqlp_not_taken(p);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_buf_add(&b, t->s, t->n, NULL);
	p->i++;
	if (!sc_sqlp_is_op(p, "(") && !sc_sqlp_is_op(p, "<"))
		return (char *)sc_buf_detach(&b, NULL);
	do {
		t = sc_sqlp_cur(p);
		if (t->kind == SC_TK_EOF || t->kind == SC_TK_QIDENT ||
		    t->kind == SC_TK_STRING) {
			sc_buf_release(&b);
			return sc_sqlp_not_taken(p);
		}
		if (sc_sqlp_tok_op(t, "(") || sc_sqlp_tok_op(t, "<"))
			depth++;
		else if (sc_sqlp_tok_op(t, ")") || sc_sqlp_tok_op(t, ">"))
			depth--;
		else if (sc_sqlp_tok_op(t, ">>"))
			depth -= 2; /* ARRAY<ARRAY<INT>> */
		if (t->kind == SC_TK_WORD && b.len > 0 &&
		    b.data[b.len - 1] != '<' && b.data[b.len - 1] != '(')
			sc_buf_addch(&b, ' ', NULL);
		sc_buf_add(&b, t->s, t->n, NULL);
		p->i++;
	} while (depth > 0);
	if (depth < 0) {
		sc_buf_release(&b);
		return sc_sqlp_not_taken(p);
	}
	return (char *)sc_buf_detach(&b, NULL);
}

static Expr *
cast_expr(struct parser *p, bool try_)
{
	Spark__Connect__Expression__Cast *c;
	Expr *inner, *e;
	char *ty;

	if (!sc_sqlp_expect_op(p, "(") || (inner = sc_sqlp_expr(p)) == NULL)
		return NULL;
	if (!sc_sqlp_accept_word(p, "as") || (ty = type_text(p)) == NULL) {
		sc_sqlp_expr_free(inner);
		return sc_sqlp_not_taken(p);
	}
	if (!sc_sqlp_expect_op(p, ")")) {
		free(ty);
		sc_sqlp_expr_free(inner);
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
	e = sc_sqlp_expr_new();
	e->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CAST;
	e->cast = c;
	return e;
}

/* CASE [x] WHEN a THEN b ... [ELSE c] END as when(cond, val, ...). */
static Expr *
case_expr(struct parser *p)
{
	Expr *subject = NULL, *w = NULL, *c, *v;

	if (!sc_sqlp_is_word(p, "when") && (subject = sc_sqlp_expr(p)) == NULL)
		return NULL;
	w = sc_sqlp_func_new("when", 0);
	while (sc_sqlp_accept_word(p, "when")) {
		if ((c = sc_sqlp_expr(p)) == NULL)
			goto bad;
		if (subject != NULL) {
			Spark__Connect__Expression *copy;

			if ((copy = sc_sqlp_expr_dup(p, subject)) == NULL) {
				sc_sqlp_expr_free(c);
				goto bad;
			}
			c = sc_sqlp_func_new("==", 2, copy, c);
		}
		sc_sqlp_func_add(w, c);
		if (!sc_sqlp_accept_word(p, "then") ||
		    (v = sc_sqlp_expr(p)) == NULL) {
			sc_sqlp_not_taken(p);
			goto bad;
		}
		sc_sqlp_func_add(w, v);
	}
	if (w->unresolved_function->n_arguments == 0) {
		sc_sqlp_not_taken(p);
		goto bad;
	}
	if (sc_sqlp_accept_word(p, "else")) {
		if ((v = sc_sqlp_expr(p)) == NULL)
			goto bad;
		sc_sqlp_func_add(w, v);
	}
	if (!sc_sqlp_accept_word(p, "end")) {
		sc_sqlp_not_taken(p);
		goto bad;
	}
	sc_sqlp_expr_free(subject);
	return w;
bad:
	sc_sqlp_expr_free(subject);
	sc_sqlp_expr_free(w);
	return NULL;
}

/*
 * The references in e to lambda variables names[0..n): attributes of one
 * part become UnresolvedNamedLambdaVariable, as Spark's analyzer binds
 * them (an inner lambda's own variables are bound the same way).
 */
struct lambda_names {
	char **names;
	size_t n;
};

static void bind_lambda_vars(ProtobufCMessage *m, char **names, size_t n);

static void
bind_child(ProtobufCMessage *m, void *arg)
{
	struct lambda_names *b = arg;

	bind_lambda_vars(m, b->names, b->n);
}

static void
bind_lambda_vars(ProtobufCMessage *m, char **names, size_t n)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	struct lambda_names b = { names, n };
	size_t k;

	if (d == &spark__connect__relation__descriptor)
		return;
	if (d == &spark__connect__expression__descriptor) {
		Expr *e = (Expr *)m;
		Spark__Connect__Expression__UnresolvedAttribute *a;
		Spark__Connect__Expression__UnresolvedNamedLambdaVariable *v;

		if (e->expr_type_case ==
		    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE) {
			a = e->unresolved_attribute;
			for (k = 0; k < n; k++)
				if (a->unparsed_identifier != NULL &&
				    sc_eng_name_cmp(a->unparsed_identifier,
					names[k]) == 0)
					break;
			if (k == n)
				return;
			v = sc_xmalloc(sizeof(*v));
			spark__connect__expression__unresolved_named_lambda_variable__init(
			    v);
			v->n_name_parts = 1;
			v->name_parts = sc_xcalloc(1, sizeof(*v->name_parts));
			v->name_parts[0] = sc_xstrdup(names[k]);
			protobuf_c_message_free_unpacked(&a->base, NULL);
			e->expr_type_case =
			    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_NAMED_LAMBDA_VARIABLE;
			e->unresolved_named_lambda_variable = v;
			return;
		}
	}
	sc_sqlp_each_child(m, bind_child, &b);
}

/* An identifier token: a plain word that is not reserved, or `quoted`. */
static bool
is_ident(const struct sc_sqltok *t)
{
	return (t->kind == SC_TK_WORD && !sc_sqlp_is_reserved(t)) ||
	    t->kind == SC_TK_QIDENT;
}

/*
 * x -> body, or (x, y) -> body, as a function's argument: a
 * LambdaFunction, or NULL (nothing consumed) when the tokens at p are
 * not one.  *err is set when they are one but its body fails.
 */
static Expr *
lambda(struct parser *p, bool *failed)
{
	Spark__Connect__Expression__LambdaFunction *l;
	size_t i = p->i, n = 0, k;
	char *names[8];
	Expr *body, *e;

	*failed = false;
	if (is_ident(sc_sqlp_peek(p, 0)) &&
	    sc_sqlp_tok_op(sc_sqlp_peek(p, 1), "->")) {
		names[n++] = sc_sqlp_ident_text(sc_sqlp_peek(p, 0));
		p->i += 2;
	} else if (sc_sqlp_is_op(p, "(")) {
		k = 1;
		while (n < SC_NELEM(names) && is_ident(sc_sqlp_peek(p, k))) {
			names[n++] = sc_sqlp_ident_text(sc_sqlp_peek(p, k));
			k++;
			if (!sc_sqlp_tok_op(sc_sqlp_peek(p, k), ","))
				break;
			k++;
		}
		if (n == 0 || !sc_sqlp_tok_op(sc_sqlp_peek(p, k), ")") ||
		    !sc_sqlp_tok_op(sc_sqlp_peek(p, k + 1), "->")) {
			while (n > 0)
				free(names[--n]);
			p->i = i;
			return NULL;
		}
		p->i += k + 2;
	} else
		return NULL;
	if ((body = sc_sqlp_expr(p)) == NULL) {
		while (n > 0)
			free(names[--n]);
		*failed = true;
		return NULL;
	}
	bind_lambda_vars(&body->base, names, n);
	l = sc_xmalloc(sizeof(*l));
	spark__connect__expression__lambda_function__init(l);
	l->function = body;
	l->n_arguments = n;
	l->arguments = sc_xcalloc(n, sizeof(*l->arguments));
	for (k = 0; k < n; k++) {
		l->arguments[k] = sc_xmalloc(sizeof(*l->arguments[k]));
		spark__connect__expression__unresolved_named_lambda_variable__init(
		    l->arguments[k]);
		l->arguments[k]->n_name_parts = 1;
		l->arguments[k]->name_parts = sc_xcalloc(1, sizeof(char *));
		l->arguments[k]->name_parts[0] = names[k];
	}
	e = sc_sqlp_expr_new();
	e->expr_type_case =
	    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LAMBDA_FUNCTION;
	e->lambda_function = l;
	return e;
}

/* name(args) after the name and '(' . */
static Expr *
call(struct parser *p, char *name)
{
	Expr *f, *a;
	bool failed;
	size_t i;

	for (i = 0; name[i] != '\0'; i++)
		name[i] = (char)tolower((unsigned char)name[i]);
	/* Spark's mod() is %'s remainder, decimals kept: not mapped yet. */
	if (strcmp(name, "mod") == 0) {
		free(name);
		return sc_sqlp_unsupported(p, "mod()");
	}
	f = sc_sqlp_func_new(name, 0);
	free(name);
	if (sc_sqlp_accept_word(p, "distinct"))
		f->unresolved_function->is_distinct = true;
	else
		sc_sqlp_accept_word(p, "all");
	if (!sc_sqlp_is_op(p, ")")) {
		for (;;) {
			if (sc_sqlp_is_op(p, "*") &&
			    sc_sqlp_tok_op(sc_sqlp_peek(p, 1), ")") &&
			    strcmp(f->unresolved_function->function_name,
				"count") == 0) {
				/* count(*) is count(1), as Spark names it. */
				p->i++;
				a = sc_sqlp_lit_int(1);
			} else if ((a = lambda(p, &failed)) == NULL &&
			    (failed || (a = sc_sqlp_expr(p)) == NULL)) {
				sc_sqlp_expr_free(f);
				return NULL;
			}
			/* struct(1 AS a): the field's name, as Spark reads it. */
			if (strcmp(f->unresolved_function->function_name,
				"struct") == 0 &&
			    sc_sqlp_accept_word(p, "as")) {
				const struct sc_sqltok *t = sc_sqlp_cur(p);

				if ((t->kind != SC_TK_WORD &&
					t->kind != SC_TK_QIDENT) ||
				    sc_sqlp_is_reserved(t)) {
					sc_sqlp_expr_free(a);
					sc_sqlp_expr_free(f);
					return sc_sqlp_not_taken(p);
				}
				a = sc_sqlp_alias_new(a, sc_sqlp_ident_text(t));
				p->i++;
			}
			sc_sqlp_func_add(f, a);
			if (!sc_sqlp_accept_op(p, ","))
				break;
		}
	}
	if (!sc_sqlp_expect_op(p, ")")) {
		sc_sqlp_expr_free(f);
		return NULL;
	}
	if (sc_sqlp_accept_word(p, "over"))
		return sc_sqlp_window(p, f);
	if (sc_sqlp_accept_word(p, "filter"))
		return sc_sqlp_agg_filter(p, f);
	/* WITHIN GROUP, IGNORE and RESPECT NULLS are not taken. */
	if (sc_sqlp_is_word(p, "within") || sc_sqlp_is_word(p, "ignore") ||
	    sc_sqlp_is_word(p, "respect")) {
		sc_sqlp_expr_free(f);
		return sc_sqlp_not_taken(p);
	}
	return f;
}

/*
 * X'0102' at p's x: a BINARY literal.  An odd number of digits reads
 * as if a 0 led them, as Spark's does.
 */
static Expr *
binary_literal(struct parser *p, const struct sc_sqltok *str)
{
	Spark__Connect__Expression__Literal *l;
	const unsigned char *h = str->text.data;
	size_t n = str->text.len, i, j;
	uint8_t *v;
	Expr *e;

	for (i = 0; i < n; i++)
		if (sc_hex_digit(h[i]) == -1) {
			if (p->fail == 0) {
				p->fail = SC_SQLPARSE_ERROR;
				sc_srv_error(p->err, "INVALID_TYPED_LITERAL",
				    "42604",
				    "The value of the typed literal \"X\" is invalid: '%.*s'.",
				    (int)(n > 200 ? 200 : n), (const char *)h);
			}
			return NULL;
		}
	v = sc_xmalloc(n / 2 + 1);
	j = 0;
	i = 0;
	if (n % 2 == 1)
		v[j++] = (uint8_t)sc_hex_digit(h[i++]);
	(void)sc_hex_decode((const char *)h + i, (n - i) / 2, v + j);
	j += (n - i) / 2;
	l = sc_sqlp_lit_new(&e);
	l->literal_type_case =
	    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BINARY;
	l->binary.data = v;
	l->binary.len = j;
	p->i += 2;
	return e;
}

static Expr *
primary(struct parser *p)
{
	const struct sc_sqltok *t = sc_sqlp_cur(p);
	struct sc_buf b;
	Spark__Connect__Expression__Literal *l;
	Expr *e;
	char *name;

	switch (t->kind) {
	case SC_TK_NUM:
		return sc_sqlp_number_literal(p, false);
	case SC_TK_PARAM:
		return sc_sqlp_param(p);
	case SC_TK_STRING:
		l = sc_sqlp_lit_new(&e);
		l->literal_type_case =
		    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING;
		l->string =
		    sc_xstrndup((const char *)t->text.data, t->text.len);
		if (memchr(t->text.data, '\0', t->text.len) != NULL) {
			sc_sqlp_expr_free(e);
			return sc_sqlp_not_taken(p);
		}
		p->i++;
		return e;
	case SC_TK_OP:
		if (sc_sqlp_accept_op(p, "(")) {
			if (sc_sqlp_is_word(p, "select") ||
			    sc_sqlp_is_word(p, "with"))
				return sc_sqlp_unsupported(p,
				    "scalar subqueries");
			if (sc_sqlp_is_word(p, "values"))
				return sc_sqlp_not_taken(p);
			if ((e = sc_sqlp_expr(p)) == NULL)
				return NULL;
			if (!sc_sqlp_expect_op(p, ")")) {
				sc_sqlp_expr_free(e);
				return NULL;
			}
			return e;
		}
		if (sc_sqlp_accept_op(p, "*"))
			return sc_sqlp_star_new(NULL);
		return sc_sqlp_not_taken(p);
	case SC_TK_QIDENT:
	case SC_TK_WORD:
		break;
	default:
		return sc_sqlp_not_taken(p);
	}
	if (t->kind == SC_TK_WORD) {
		const struct sc_sqltok *nx = sc_sqlp_peek(p, 1);

		if (sc_sqlp_tok_word(t, "true") ||
		    sc_sqlp_tok_word(t, "false")) {
			l = sc_sqlp_lit_new(&e);
			l->literal_type_case =
			    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BOOLEAN;
			l->boolean = sc_sqlp_tok_word(t, "true");
			p->i++;
			return e;
		}
		if (sc_sqlp_tok_word(t, "null")) {
			Spark__Connect__DataType *dt = sc_xmalloc(sizeof(*dt));
			Spark__Connect__DataType__NULL *nt =
			    sc_xmalloc(sizeof(*nt));

			spark__connect__data_type__init(dt);
			spark__connect__data_type__null__init(nt);
			dt->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_NULL;
			dt->null = nt;
			l = sc_sqlp_lit_new(&e);
			l->literal_type_case =
			    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_NULL;
			l->null = dt;
			p->i++;
			return e;
		}
		if (nx->kind == SC_TK_STRING &&
		    (sc_sqlp_tok_word(t, "date") ||
			sc_sqlp_tok_word(t, "timestamp") ||
			sc_sqlp_tok_word(t, "timestamp_ltz") ||
			sc_sqlp_tok_word(t, "timestamp_ntz"))) {
			char kw[16];

			snprintf(kw, sizeof(kw), "%.*s", (int)t->n, t->s);
			p->i++;
			return sc_sqlp_typed_literal(p, kw);
		}
		if (sc_sqlp_tok_word(t, "interval") &&
		    (nx->kind == SC_TK_STRING || nx->kind == SC_TK_NUM ||
			sc_sqlp_tok_op(nx, "-")))
			return sc_sqlp_interval_literal(p);
		if (sc_sqlp_tok_word(t, "interval"))
			return sc_sqlp_unsupported(p, "INTERVAL literals");
		if (nx->kind == SC_TK_STRING && sc_sqlp_tok_word(t, "x") &&
		    t->s + t->n == nx->s)
			return binary_literal(p, nx);
		if (sc_sqlp_tok_word(t, "case")) {
			p->i++;
			return case_expr(p);
		}
		if ((sc_sqlp_tok_word(t, "cast") ||
			sc_sqlp_tok_word(t, "try_cast")) &&
		    sc_sqlp_tok_op(nx, "(")) {
			p->i++;
			return cast_expr(p, sc_sqlp_tok_word(t, "try_cast"));
		}
		if (sc_sqlp_tok_word(t, "exists") && sc_sqlp_tok_op(nx, "(") &&
		    (sc_sqlp_tok_word(sc_sqlp_peek(p, 2), "select") ||
			sc_sqlp_tok_word(sc_sqlp_peek(p, 2), "with")))
			return sc_sqlp_unsupported(p, "EXISTS subqueries");
		/* exists(array, x -> ...) and filter(...) are functions. */
		if ((sc_sqlp_tok_word(t, "exists") ||
			sc_sqlp_tok_word(t, "filter")) &&
		    sc_sqlp_tok_op(nx, "(")) {
			name = sc_sqlp_ident_text(t);
			p->i += 2;
			return call(p, name);
		}
		if (sc_sqlp_is_reserved(t))
			return sc_sqlp_not_taken(p);
	}
	/* a, a.b, `a`.`b`, t.*, f(...) */
	if (sc_sqlp_tok_op(sc_sqlp_peek(p, 1), "(")) {
		name = sc_sqlp_ident_text(t);
		p->i += 2;
		return call(p, name);
	}
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_sqlp_add_part(&b, t);
	p->i++;
	while (sc_sqlp_is_op(p, ".")) {
		t = sc_sqlp_peek(p, 1);
		if (sc_sqlp_tok_op(t, "*")) {
			p->i += 2;
			sc_buf_addch(&b, '\0', NULL);
			e = sc_sqlp_star_new((const char *)b.data);
			sc_buf_release(&b);
			return e;
		}
		if (t->kind != SC_TK_WORD && t->kind != SC_TK_QIDENT) {
			sc_buf_release(&b);
			return sc_sqlp_not_taken(p);
		}
		sc_buf_addch(&b, '.', NULL);
		sc_sqlp_add_part(&b, t);
		p->i += 2;
	}
	sc_buf_addch(&b, '\0', NULL);
	e = sc_sqlp_attr_new((const char *)b.data);
	sc_buf_release(&b);
	if (sc_sqlp_is_op(p, "->")) {
		sc_sqlp_expr_free(e);
		return sc_sqlp_not_taken(p);
	}
	return e;
}

/*
 * e[key] (UnresolvedExtractValue, as Spark's parser makes it),
 * e::type (a cast, Spark 4's shorthand) and e COLLATE name, after a
 * primary expression.
 * Takes e.
 */
static Expr *
postfix(struct parser *p, Expr *e)
{
	Spark__Connect__Expression__UnresolvedExtractValue *x;
	Spark__Connect__Expression__Literal *l;
	Spark__Connect__Expression__Cast *c;
	Expr *k, *n;
	char *ty;

	for (;;) {
		if (e == NULL)
			return NULL;
		if (sc_sqlp_accept_op(p, "::")) {
			if (!sc_sqlp_chain_next(p, 1)) {
				sc_sqlp_expr_free(e);
				return NULL;
			}
			if ((ty = colon_type_text(p)) == NULL) {
				sc_sqlp_expr_free(e);
				return sc_sqlp_not_taken(p);
			}
			c = sc_xmalloc(sizeof(*c));
			spark__connect__expression__cast__init(c);
			c->expr = e;
			c->cast_to_type_case =
			    SPARK__CONNECT__EXPRESSION__CAST__CAST_TO_TYPE_TYPE_STR;
			c->type_str = ty;
			n = sc_sqlp_expr_new();
			n->expr_type_case =
			    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CAST;
			n->cast = c;
			e = n;
			continue;
		}
		if (sc_sqlp_is_word(p, "collate") &&
		    (sc_sqlp_peek(p, 1)->kind == SC_TK_WORD ||
			sc_sqlp_peek(p, 1)->kind == SC_TK_QIDENT)) {
			/* e COLLATE name: collate(e, 'name'), as Spark's. */
			if (!sc_sqlp_chain_next(p, 1)) {
				sc_sqlp_expr_free(e);
				return NULL;
			}
			ty = sc_sqlp_ident_text(sc_sqlp_peek(p, 1));
			e = sc_sqlp_func_new("collate", 2, e,
			    sc_sqlp_string_lit(ty, strlen(ty)));
			free(ty);
			p->i += 2;
			continue;
		}
		if (sc_sqlp_is_op(p, ".") &&
		    (sc_sqlp_peek(p, 1)->kind == SC_TK_WORD ||
			sc_sqlp_peek(p, 1)->kind == SC_TK_QIDENT)) {
			/* f(...).field: a struct's field by name. */
			if (!sc_sqlp_chain_next(p, 1)) {
				sc_sqlp_expr_free(e);
				return NULL;
			}
			l = sc_sqlp_lit_new(&k);
			l->literal_type_case =
			    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING;
			l->string = sc_sqlp_ident_text(sc_sqlp_peek(p, 1));
			p->i += 2;
		} else if (sc_sqlp_accept_op(p, "[")) {
			if (!sc_sqlp_chain_next(p, 1) ||
			    (k = sc_sqlp_expr(p)) == NULL) {
				sc_sqlp_expr_free(e);
				return NULL;
			}
			if (!sc_sqlp_expect_op(p, "]")) {
				sc_sqlp_expr_free(k);
				sc_sqlp_expr_free(e);
				return NULL;
			}
		} else
			return e;
		x = sc_xmalloc(sizeof(*x));
		spark__connect__expression__unresolved_extract_value__init(x);
		x->child = e;
		x->extraction = k;
		n = sc_sqlp_expr_new();
		n->expr_type_case =
		    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_EXTRACT_VALUE;
		n->unresolved_extract_value = x;
		e = n;
	}
}

static Expr *
unary(struct parser *p)
{
	struct sc_sqlp_chain c;
	Expr *e;

	if (!sc_sqlp_deeper(p))
		return NULL;
	if (sc_sqlp_is_op(p, "-") && sc_sqlp_peek(p, 1)->kind == SC_TK_NUM) {
		p->i++;
		e = sc_sqlp_number_literal(p, true);
	} else if (sc_sqlp_accept_op(p, "-")) {
		e = unary(p);
		e = e != NULL ? sc_sqlp_func_new("negative", 1, e) : NULL;
	} else if (sc_sqlp_accept_op(p, "+")) {
		e = unary(p);
		e = e != NULL ? sc_sqlp_func_new("positive", 1, e) : NULL;
	} else if (sc_sqlp_is_op(p, "~")) {
		e = sc_sqlp_unsupported(p, "the bitwise operator ~");
	} else {
		sc_sqlp_chain_begin(p, &c);
		e = postfix(p, primary(p));
		sc_sqlp_chain_end(p, &c);
	}
	sc_sqlp_shallower(p);
	if (e != NULL && (sc_sqlp_is_op(p, "[") || sc_sqlp_is_op(p, "::"))) {
		sc_sqlp_expr_free(e);
		return sc_sqlp_not_taken(p);
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

static Expr *binary(struct parser *p, int level);

/*
 * A shift operator at the cursor (<<, >> and >>>, read from adjacent
 * '<' and '>' tokens, which type names need apart): its function and
 * its tokens in *n, or NULL.
 */
static const char *
shift_at(const struct parser *p, size_t *n)
{
	const struct sc_sqltok *a = sc_sqlp_cur(p), *b = sc_sqlp_peek(p, 1),
			       *c = sc_sqlp_peek(p, 2);

	if (a->kind != SC_TK_OP || a->n != 1 || b->kind != SC_TK_OP ||
	    b->n != 1 || b->off != a->off + 1 || a->s[0] != b->s[0])
		return NULL;
	if (a->s[0] == '<') {
		*n = 2;
		return "shiftleft";
	}
	if (a->s[0] != '>')
		return NULL;
	if (c->kind == SC_TK_OP && c->n == 1 && c->s[0] == '>' &&
	    c->off == b->off + 1) {
		*n = 3;
		return "shiftrightunsigned";
	}
	*n = 2;
	return "shiftright";
}

/* a << b, a >> b, a >>> b: between & and + in Spark's precedence. */
static Expr *
shift(struct parser *p, int level)
{
	struct sc_sqlp_chain c;
	const char *f;
	Expr *l, *r;
	size_t n;

	sc_sqlp_chain_begin(p, &c);
	if ((l = binary(p, level + 1)) == NULL) {
		sc_sqlp_chain_end(p, &c);
		return NULL;
	}
	while ((f = shift_at(p, &n)) != NULL) {
		p->i += n;
		if (!sc_sqlp_chain_next(p, 1) ||
		    (r = binary(p, level + 1)) == NULL) {
			sc_sqlp_expr_free(l);
			sc_sqlp_chain_end(p, &c);
			return NULL;
		}
		l = sc_sqlp_func_new(f, 2, l, r);
	}
	sc_sqlp_chain_end(p, &c);
	return l;
}

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
		{ NULL, 0 }, /* shift() */
		{ add_ops, 3 },
		{ mul_ops, 4 },
	};
	struct sc_sqlp_chain c;
	Expr *l, *r;
	size_t i;
	bool found;

	if (level == 6)
		return unary(p);
	if (levels[level].ops == NULL)
		return shift(p, level);
	sc_sqlp_chain_begin(p, &c);
	if ((l = binary(p, level + 1)) == NULL) {
		sc_sqlp_chain_end(p, &c);
		return NULL;
	}
	for (;;) {
		found = false;
		for (i = 0; i < levels[level].n; i++) {
			const struct binop *o = &levels[level].ops[i];

			if (o->word ? sc_sqlp_is_word(p, o->tok)
				    : sc_sqlp_is_op(p, o->tok)) {
				found = true;
				if (level < 3) {
					sc_sqlp_expr_free(l);
					sc_sqlp_chain_end(p, &c);
					return sc_sqlp_unsupported(p,
					    "the bitwise operators & | ^");
				}
				p->i++;
				if (!sc_sqlp_chain_next(p, 1) ||
				    (r = binary(p, level + 1)) == NULL) {
					sc_sqlp_expr_free(l);
					sc_sqlp_chain_end(p, &c);
					return NULL;
				}
				l = sc_sqlp_func_new(o->func, 2, l, r);
				break;
			}
		}
		if (!found) {
			sc_sqlp_chain_end(p, &c);
			return l;
		}
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
	return neg ? sc_sqlp_func_new("not", 1, e) : e;
}

/*
 * A value, then the comparisons and predicates after it, left to right
 * (inside the chain predicate() begins).
 */
static Expr *
predicate_chain(struct parser *p)
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
			if (sc_sqlp_is_op(p, cmps[i].op))
				break;
		if (i < sizeof(cmps) / sizeof(cmps[0])) {
			p->i++;
			if (!sc_sqlp_chain_next(p, 1)) {
				sc_sqlp_expr_free(l);
				return NULL;
			}
			if (sc_sqlp_is_word(p, "any") ||
			    sc_sqlp_is_word(p, "all") ||
			    sc_sqlp_is_word(p, "some")) {
				sc_sqlp_expr_free(l);
				return sc_sqlp_not_taken(p);
			}
			if ((r = value(p)) == NULL) {
				sc_sqlp_expr_free(l);
				return NULL;
			}
			l = sc_sqlp_func_new(cmps[i].func, 2, l, r);
			continue;
		}
		if (sc_sqlp_accept_word(p, "is")) {
			neg = sc_sqlp_accept_word(p, "not");
			if (sc_sqlp_accept_word(p, "null")) {
				if (!sc_sqlp_chain_next(p, 1)) {
					sc_sqlp_expr_free(l);
					return NULL;
				}
				l = sc_sqlp_func_new(
				    neg ? "isnotnull" : "isnull", 1, l);
				continue;
			}
			sc_sqlp_expr_free(l);
			return sc_sqlp_not_taken(
			    p); /* IS TRUE, IS DISTINCT FROM */
		}
		neg = false;
		if (sc_sqlp_is_word(p, "not") &&
		    (sc_sqlp_tok_word(sc_sqlp_peek(p, 1), "between") ||
			sc_sqlp_tok_word(sc_sqlp_peek(p, 1), "in") ||
			sc_sqlp_tok_word(sc_sqlp_peek(p, 1), "like") ||
			sc_sqlp_tok_word(sc_sqlp_peek(p, 1), "rlike") ||
			sc_sqlp_tok_word(sc_sqlp_peek(p, 1), "regexp") ||
			sc_sqlp_tok_word(sc_sqlp_peek(p, 1), "ilike"))) {
			neg = true;
			p->i++;
		}
		if (sc_sqlp_accept_word(p, "between")) {
			Spark__Connect__Expression *copy;

			/* and(>=(l, lo), <=(l, hi)), under not(): 3 levels */
			if (!sc_sqlp_chain_next(p, neg ? 3 : 2) ||
			    (lo = value(p)) == NULL) {
				sc_sqlp_expr_free(l);
				return NULL;
			}
			if (!sc_sqlp_accept_word(p, "and") ||
			    (hi = value(p)) == NULL) {
				sc_sqlp_expr_free(lo);
				sc_sqlp_expr_free(l);
				return sc_sqlp_not_taken(p);
			}
			if ((copy = sc_sqlp_expr_dup(p, l)) == NULL) {
				sc_sqlp_expr_free(lo);
				sc_sqlp_expr_free(hi);
				sc_sqlp_expr_free(l);
				return sc_sqlp_not_taken(p);
			}
			l = negate(sc_sqlp_func_new("and", 2,
				       sc_sqlp_func_new(">=", 2, l, lo),
				       sc_sqlp_func_new("<=", 2, copy, hi)),
			    neg);
			continue;
		}
		if (sc_sqlp_accept_word(p, "in")) {
			if (!sc_sqlp_chain_next(p, neg ? 2 : 1)) {
				sc_sqlp_expr_free(l);
				return NULL;
			}
			if (!sc_sqlp_expect_op(p, "(")) {
				sc_sqlp_expr_free(l);
				return sc_sqlp_not_taken(p);
			}
			if (sc_sqlp_is_word(p, "select") ||
			    sc_sqlp_is_word(p, "with")) {
				sc_sqlp_expr_free(l);
				return sc_sqlp_unsupported(p, "IN subqueries");
			}
			in = sc_sqlp_func_new("in", 1, l);
			for (;;) {
				if ((r = sc_sqlp_expr(p)) == NULL) {
					sc_sqlp_expr_free(in);
					return NULL;
				}
				sc_sqlp_func_add(in, r);
				if (!sc_sqlp_accept_op(p, ","))
					break;
			}
			if (!sc_sqlp_expect_op(p, ")")) {
				sc_sqlp_expr_free(in);
				return NULL;
			}
			l = negate(in, neg);
			continue;
		}
		if (sc_sqlp_is_word(p, "like") || sc_sqlp_is_word(p, "rlike") ||
		    sc_sqlp_is_word(p, "regexp") ||
		    sc_sqlp_is_word(p, "ilike")) {
			const char *f = sc_sqlp_is_word(p, "like") ? "like"
			    : sc_sqlp_is_word(p, "ilike")	   ? "ilike"
								   : "rlike";

			p->i++;
			if (!sc_sqlp_chain_next(p, neg ? 2 : 1)) {
				sc_sqlp_expr_free(l);
				return NULL;
			}
			if (sc_sqlp_is_word(p, "any") ||
			    sc_sqlp_is_word(p, "all") ||
			    sc_sqlp_is_word(p, "some")) {
				sc_sqlp_expr_free(l);
				return sc_sqlp_not_taken(p);
			}
			if ((r = value(p)) == NULL) {
				sc_sqlp_expr_free(l);
				return NULL;
			}
			if (sc_sqlp_is_word(p, "escape")) {
				sc_sqlp_expr_free(l);
				sc_sqlp_expr_free(r);
				return sc_sqlp_not_taken(p);
			}
			l = negate(sc_sqlp_func_new(f, 2, l, r), neg);
			continue;
		}
		return l;
	}
}

static Expr *
predicate(struct parser *p)
{
	struct sc_sqlp_chain c;
	Expr *e;

	sc_sqlp_chain_begin(p, &c);
	e = predicate_chain(p);
	sc_sqlp_chain_end(p, &c);
	return e;
}

static Expr *
not_expr(struct parser *p)
{
	Expr *e;

	if (!sc_sqlp_deeper(p))
		return NULL;
	if (sc_sqlp_accept_word(p, "not") || sc_sqlp_accept_op(p, "!")) {
		e = not_expr(p);
		e = e != NULL ? sc_sqlp_func_new("not", 1, e) : NULL;
	} else {
		e = predicate(p);
	}
	sc_sqlp_shallower(p);
	return e;
}

static Expr *
and_expr(struct parser *p)
{
	struct sc_sqlp_chain c;
	Expr *l, *r;

	sc_sqlp_chain_begin(p, &c);
	if ((l = not_expr(p)) == NULL) {
		sc_sqlp_chain_end(p, &c);
		return NULL;
	}
	while (sc_sqlp_accept_word(p, "and")) {
		if (!sc_sqlp_chain_next(p, 1) || (r = not_expr(p)) == NULL) {
			sc_sqlp_expr_free(l);
			sc_sqlp_chain_end(p, &c);
			return NULL;
		}
		l = sc_sqlp_func_new("and", 2, l, r);
	}
	sc_sqlp_chain_end(p, &c);
	return l;
}

Expr *
sc_sqlp_expr(struct parser *p)
{
	struct sc_sqlp_chain c;
	Expr *l, *r;

	if (!sc_sqlp_deeper(p))
		return NULL;
	sc_sqlp_chain_begin(p, &c);
	if ((l = and_expr(p)) == NULL)
		goto fail;
	while (sc_sqlp_accept_word(p, "or")) {
		if (!sc_sqlp_chain_next(p, 1) || (r = and_expr(p)) == NULL) {
			sc_sqlp_expr_free(l);
			goto fail;
		}
		l = sc_sqlp_func_new("or", 2, l, r);
	}
	sc_sqlp_chain_end(p, &c);
	sc_sqlp_shallower(p);
	return l;
fail:
	sc_sqlp_chain_end(p, &c);
	sc_sqlp_shallower(p);
	return NULL;
}
