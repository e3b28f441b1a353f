/* SPDX-License-Identifier: MIT */

/*
 * sqlparse_interval.c: Spark SQL's INTERVAL literals, handed to the
 * engine (engine_interval.c) as a call of their parts, and string
 * literals built for the parser's own calls (COLLATE's name).
 */

#include "engine/sql/sqlparse.h"
#include "engine/sql/sqlparse_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/xmem.h"
#include "core/banned.h"

/* A string literal's expression. */
Expr *
sc_sqlp_string_lit(const char *s, size_t n)
{
	Expr *e;
	Spark__Connect__Expression__Literal *l = sc_sqlp_lit_new(&e);

	l->literal_type_case =
	    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING;
	l->string = sc_xstrndup(s, n);
	return e;
}

/*
 * INTERVAL 'text' FIELD [TO FIELD] or INTERVAL value FIELD [value FIELD
 * ...]: its parts as strings (a string's text after a "'", a number's,
 * the fields' words, "to") in a call engine_interval.c reads.
 */
Expr *
sc_sqlp_interval_literal(struct parser *p)
{
	const struct sc_sqltok *t, *u;
	Expr *f = sc_sqlp_func_new("sc_interval_literal", 0);
	struct sc_buf b;
	bool neg, unit;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	p->i++;
	for (;;) {
		t = sc_sqlp_cur(p);
		neg = sc_sqlp_tok_op(t, "-");
		if (neg)
			t = sc_sqlp_peek(p, 1);
		u = sc_sqlp_peek(p, neg ? 2 : 1);
		unit = u->kind == SC_TK_WORD && !sc_sqlp_is_reserved(u);
		if ((t->kind != SC_TK_STRING && t->kind != SC_TK_NUM) ||
		    (!unit && f->unresolved_function->n_arguments > 0))
			break;
		sc_buf_reset(&b);
		if (neg)
			sc_buf_addch(&b, '-', NULL);
		if (t->kind == SC_TK_STRING) {
			sc_buf_addch(&b, '\'', NULL);
			sc_buf_add(&b, t->text.data, t->text.len, NULL);
		} else {
			sc_buf_add(&b, t->s, t->n, NULL);
		}
		sc_sqlp_func_add(f,
		    sc_sqlp_string_lit((const char *)b.data, b.len));
		p->i += neg ? 2 : 1;
		if (!unit)
			break;
		sc_sqlp_func_add(f, sc_sqlp_string_lit(u->s, u->n));
		p->i++;
		u = sc_sqlp_peek(p, 1);
		if (sc_sqlp_is_word(p, "to") && u->kind == SC_TK_WORD) {
			sc_sqlp_func_add(f, sc_sqlp_string_lit("to", 2));
			sc_sqlp_func_add(f, sc_sqlp_string_lit(u->s, u->n));
			p->i += 2;
			break;
		}
	}
	sc_buf_release(&b);
	return f;
}
