/* SPDX-License-Identifier: MIT */

/*
 * sqlparse_int.h: what the Spark SQL parser's files (sqlparse.c,
 * sqlparse_expr.c, sqlparse_from.c, sqlparse_query.c) share and nobody
 * else sees: the parser state and the helpers more than one of them calls.
 */

#ifndef SC_SQLPARSE_INT_H
#define SC_SQLPARSE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/sql/sqlparse.h"

/*
 * engine_column.c: names compared as Spark's resolver compares them
 * (exactly with spark.sql.caseSensitive=true, else in any case).
 */
int sc_eng_name_cmp(const char *a, const char *b);

/*
 * Deepest nesting of expressions and subqueries taken; each operator of
 * a left-deep chain (a + b + c, a OR b, a JOIN b, a UNION b, a chain of
 * CTEs) counts one level, so no tree the parser builds is deeper than
 * a small multiple of it, and every walk over one (copies, frees, the
 * translator) recurses a bounded number of times.
 */
#define MAX_DEPTH 200

/*
 * Most bytes (packed) of plan one statement may copy: CTEs inlined where
 * they are named, BETWEEN's and CASE's repeated operands.  Copies of
 * copies could otherwise grow exponentially with the text.
 */
#define MAX_COPIED ((size_t)4 << 20)

typedef Spark__Connect__Expression Expr;
typedef Spark__Connect__Relation Rel;

struct parser {
	const char *src;
	struct sc_sqltok *t;
	size_t n;
	size_t i;
	int fail; /* 0, or enum sc_sqlparse_rc of the failure */
	size_t stop; /* not taken: the token the parser stopped at */
	struct sc_error *err;
	int depth; /* queries and expressions nested: 1 in the outermost */
	int level; /* depth, plus the chained operators below (MAX_DEPTH) */
	int peak; /* the highest level since the current operand began */
	struct sc_sqlp_chain *chain; /* the innermost chain, or NULL */
	size_t copied; /* bytes of plan copied so far (MAX_COPIED) */
	size_t hidden; /* hidden output columns (see sqlparse.h) */
	struct cte *ctes; /* WITH name AS (query), ... */
	size_t nctes;
	struct scope *scope; /* the joined FROM items' names in scope */
	size_t nscope;
	int64_t next_id; /* the next plan id for a joined FROM item */
	size_t nwindows; /* OVER (...) windows read so far */
	const Spark__Connect__SQL *args; /* the parameters' values, or NULL */
	size_t npos; /* ? markers read so far */
	int operand_depth; /* the depth of a set operator's operand, or 0 */
	size_t nfilters; /* aggregate FILTER clauses read so far */
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
	int height; /* levels its query took (see struct parser) */
};

/* sqlparse.c: tokens */
const struct sc_sqltok *sc_sqlp_cur(const struct parser *p);
const struct sc_sqltok *sc_sqlp_peek(const struct parser *p, size_t k);
bool sc_sqlp_tok_word(const struct sc_sqltok *t, const char *w);
bool sc_sqlp_tok_op(const struct sc_sqltok *t, const char *o);
bool sc_sqlp_is_word(const struct parser *p, const char *w);
bool sc_sqlp_is_op(const struct parser *p, const char *o);
bool sc_sqlp_accept_word(struct parser *p, const char *w);
bool sc_sqlp_accept_op(struct parser *p, const char *o);
void *sc_sqlp_not_taken(struct parser *p);
void *sc_sqlp_unsupported(struct parser *p, const char *what);
bool sc_sqlp_expect_op(struct parser *p, const char *o);
bool sc_sqlp_is_reserved(const struct sc_sqltok *t);
char *sc_sqlp_ident_text(const struct sc_sqltok *t);
void sc_sqlp_add_part(struct sc_buf *b, const struct sc_sqltok *t);

/* sqlparse.c: building messages */
Expr *sc_sqlp_expr_new(void);
void sc_sqlp_expr_free(Expr *e);
Expr *sc_sqlp_expr_copy(const Expr *e);
Rel *sc_sqlp_rel_new(void);
void sc_sqlp_rel_free(Rel *r);
Rel *sc_sqlp_rel_copy(const Rel *r);
Spark__Connect__Expression__Literal *sc_sqlp_lit_new(Expr **ep);
Expr *sc_sqlp_lit_int(int32_t v);
Expr *sc_sqlp_func_new(const char *name, size_t nargs, ...);
void sc_sqlp_func_add(Expr *e, Expr *arg);
Expr *sc_sqlp_attr_new(const char *ident);
Expr *sc_sqlp_star_new(const char *target);
Expr *sc_sqlp_alias_new(Expr *child, char *name);

/* sqlparse.c: literals */
Expr *sc_sqlp_typed_literal(struct parser *p, const char *kw);
/* A parameter marker (? or :name): the value bound to it. */
Expr *sc_sqlp_param(struct parser *p);
Expr *sc_sqlp_number_literal(struct parser *p, bool neg);

/* sqlparse_interval.c: a string literal; INTERVAL ... at the cursor. */
Expr *sc_sqlp_string_lit(const char *s, size_t n);
Expr *sc_sqlp_interval_literal(struct parser *p);

/* sqlparse_expr.c */
/*
 * One level deeper (p->depth and p->level): false, p->fail set, past
 * MAX_DEPTH.  sc_sqlp_shallower() leaves the level.
 */
bool sc_sqlp_deeper(struct parser *p);
void sc_sqlp_shallower(struct parser *p);
/* Refuse the text as FAILED_TO_PARSE_TOO_COMPLEX, saying why; NULL. */
void *sc_sqlp_too_complex(struct parser *p, const char *why);
/*
 * A left-deep chain: begin before its first operand; before each
 * further operand, sc_sqlp_chain_next() counts the n nodes the operator
 * adds (false, p->fail set, when the chain's operators and its highest
 * operand would pass MAX_DEPTH); end when the chain is done, which
 * gives the chain's height in levels.
 */
struct sc_sqlp_chain {
	int level; /* p->level at the start */
	int peak; /* p->peak at the start */
	int n; /* nodes the operators added */
	int height; /* the highest operand's, in levels */
	int at; /* the level the current operand began at */
	struct sc_sqlp_chain *outer;
};
void sc_sqlp_chain_begin(struct parser *p, struct sc_sqlp_chain *c);
bool sc_sqlp_chain_next(struct parser *p, int n);
int sc_sqlp_chain_end(struct parser *p, struct sc_sqlp_chain *c);
/* A relation height levels high, inlined here: false past MAX_DEPTH. */
bool sc_sqlp_inline(struct parser *p, int height);
/* Copies of e or r that count towards MAX_COPIED (NULL, p->fail set). */
Expr *sc_sqlp_expr_dup(struct parser *p, const Expr *e);
Rel *sc_sqlp_rel_dup(struct parser *p, const Rel *r);
Expr *sc_sqlp_expr(struct parser *p);

/* sqlparse_window.c: after f(...) OVER: the window of f (takes f). */
Expr *sc_sqlp_window(struct parser *p, Expr *f);

/* sqlparse_from.c */
char *sc_sqlp_opt_alias(struct parser *p);
/* At '(' of (a, b, ...): in (taken) with its columns renamed, or NULL. */
Rel *sc_sqlp_to_df(struct parser *p, Rel *in);
bool sc_sqlp_int_arg(struct parser *p, int64_t *v);
Rel *sc_sqlp_from_item(struct parser *p);
void sc_sqlp_scope_pop(struct parser *p, size_t n);
/* fn(child, arg) for each message-typed field of m that is set. */
void sc_sqlp_each_child(ProtobufCMessage *m,
    void (*fn)(ProtobufCMessage *child, void *arg), void *arg);
void sc_sqlp_qualify(struct parser *p, size_t n, ProtobufCMessage *m);
Rel *sc_sqlp_joins(struct parser *p, Rel *left);

/* sqlparse_query.c */
/* Whether e calls an aggregate function (not inside a window). */
bool sc_sqlp_has_aggregate(const Expr *e);
Expr **sc_sqlp_expr_list(struct parser *p, size_t *np, bool aliases);
void sc_sqlp_exprs_free(Expr **v, size_t n);
Spark__Connect__Expression__SortOrder **sc_sqlp_order_list(struct parser *p,
    size_t *np, Expr *const *items, size_t nitems);
void sc_sqlp_last_part(const char *ident, char *out, size_t n);
Rel *sc_sqlp_query(struct parser *p);

/* sqlparse_from.c: VALUES */
Rel *sc_sqlp_values_rel(struct parser *p);

/* sqlparse_group.c: GROUP BY's keys and grouping analytics */
struct sc_sqlp_grouping {
	Expr **keys; /* each aliased _sc_group_N */
	size_t nkeys;
	int type; /* Spark__Connect__Aggregate__GroupType */
	Spark__Connect__Aggregate__GroupingSets **sets; /* GROUPING SETS */
	size_t nsets;
};
/*
 * After GROUP BY, over the select list items: ordinals (GROUP BY 1) and
 * ALL (every item without an aggregate) name its items, as in Spark.
 */
bool sc_sqlp_group_by(struct parser *p, Expr *const *items, size_t nitems,
    struct sc_sqlp_grouping *g);
void sc_sqlp_grouping_release(struct sc_sqlp_grouping *g);
/* After an aggregate call f and FILTER: f of the rows kept (takes f). */
Expr *sc_sqlp_agg_filter(struct parser *p, Expr *f);
/* After FROM ... PIVOT: the pivot of in (taken), or NULL. */
Rel *sc_sqlp_pivot(struct parser *p, Rel *in);

/*
 * sqlparse_setop.c: a SELECT at the cursor and the UNION, INTERSECT,
 * EXCEPT or MINUS queries after it.
 */
Rel *sc_sqlp_query_ops(struct parser *p);

#endif
