/* SPDX-License-Identifier: MIT */

/*
 * sqlparse.h: Spark SQL text as Spark Connect plans.  Like Spark's own
 * parser, sc_sqlparse() turns a query into an *unresolved* Relation
 * (read.named_table, range, project, filter, aggregate, sort, limit,
 * offset, subquery_alias, join, set_op) whose expressions are literals,
 * unresolved attributes and functions, casts, aliases, stars and
 * windows; joined FROM items carry plan ids that their qualified
 * columns name.  The plan translator then gives it Spark's types, names
 * and function semantics, as it does for a DataFrame.  sc_sqlstmt() recognizes Spark's
 * statements (SHOW, DESCRIBE, SET, USE, CACHE, ...).  Shared by the
 * engine's sql*.c files and by nothing else.
 */

#ifndef SC_SQLPARSE_H
#define SC_SQLPARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "core/protocol.h"

struct sc_error;

enum sc_sqltk {
	SC_TK_EOF = 0,
	SC_TK_WORD, /* a keyword or plain identifier */
	SC_TK_QIDENT, /* `quoted`: text unquoted */
	SC_TK_STRING, /* a string literal: text unescaped */
	SC_TK_NUM, /* a number: numlen digits, then a suffix */
	SC_TK_OP, /* punctuation or an operator */
	SC_TK_PARAM /* ?, :name, @name, $name */
};

struct sc_sqltok {
	enum sc_sqltk kind;
	const char *s; /* in the source text */
	size_t n;
	size_t off; /* offset in the source text */
	struct sc_buf text; /* STRING, QIDENT */
	size_t numlen; /* NUM: length without the suffix */
	bool frac; /* NUM: has a '.' */
	bool exp; /* NUM: has an exponent */
	char suffix; /* NUM: L S Y D F, 'B' for BD, or 0 */
};

/*
 * Split src into tokens ending with an SC_TK_EOF one: 0, or -1 for an
 * unclosed string, identifier or comment.  Free with sc_sqllex_free().
 */
int sc_sqllex(const char *src, struct sc_sqltok **tokp, size_t *np);
void sc_sqllex_free(struct sc_sqltok *v, size_t n);
/*
 * s after its spaces and comments (-- to the line's end, nested
 * bracketed ones); NULL when a comment is not closed.
 */
const char *sc_sqllex_skip(const char *s);
/*
 * Whether src (after spaces and comments) starts with one of the words
 * (NULL-terminated list, any case), without reading the rest of it.
 */
bool sc_sqllex_first_word(const char *src, const char *const *words);

/*
 * Give err, raised for the SQL text src, Spark's query context where
 * the text shows it: the name of an UNRESOLVED_COLUMN or a
 * TABLE_OR_VIEW_NOT_FOUND, the token of a PARSE_SYNTAX_ERROR, the
 * marker of an UNBOUND_SQL_PARAMETER, the one plain division of a
 * DIVIDE_BY_ZERO.  Nothing when err has one.
 */
void sc_sqllex_error_context(const char *src, struct sc_error *err);

/* What sc_sqlparse() did. */
enum sc_sqlparse_rc {
	SC_SQLPARSE_ERROR = -1, /* a refusal, err set */
	SC_SQLPARSE_NOT_TAKEN = 0, /* not a query this parser takes */
	SC_SQLPARSE_OK = 1 /* *out is the plan */
};

/*
 * Parse the query src.  OK: *out is a heap Relation (free with
 * protobuf_c_message_free_unpacked(&r->base, NULL)).  NOT_TAKEN: src
 * does not begin as a query does (SELECT, VALUES, WITH, TABLE): a
 * statement (sqlstmt.c).  ERROR (err set): a query outside the grammar,
 * refused where the parser stopped: PARSE_SYNTAX_ERROR where Spark's
 * parser would stop too (SQLite's own syntax: [name], GLOB, ';' and a
 * second statement ...), UNSUPPORTED_FEATURE naming Spark syntax whose
 * Spark answer sc-serve cannot give (INTERVAL, subquery expressions ...).  With GROUP BY, HAVING
 * or ORDER BY over an aggregate, *out's output has *hidden columns more
 * than the select list: the grouping keys (_sc_group_N) and aggregates
 * HAVING and ORDER BY need (_sc_agg_N), which the caller drops, since
 * Spark's SQL output is the select list only.
 */
enum sc_sqlparse_rc sc_sqlparse(const char *src, Spark__Connect__Relation **out,
    size_t *hidden, struct sc_error *err);
/*
 * sc_sqlparse() with the values of the text's parameter markers (the
 * SQL message's args, pos_args, named_arguments, pos_arguments): each
 * marker is parsed as its value, a literal keeping its type; a marker
 * without a value is UNBOUND_SQL_PARAMETER (every marker, for
 * sc_sqlparse(), which has no SQL message).  @name, $name and ?NNN are
 * not Spark's: PARSE_SYNTAX_ERROR.
 */
enum sc_sqlparse_rc sc_sqlparse_args(const char *src,
    const Spark__Connect__SQL *args, Spark__Connect__Relation **out,
    size_t *hidden, struct sc_error *err);

/*
 * The expression src alone (UPDATE's SET values, DELETE's condition),
 * markers bound to args (may be NULL): OK (*out, free with
 * protobuf_c_message_free_unpacked()) or ERROR.
 */
enum sc_sqlparse_rc sc_sqlparse_expr(const char *src,
    const Spark__Connect__SQL *args, Spark__Connect__Expression **out,
    struct sc_error *err);
/* Spark's PARSE_SYNTAX_ERROR at token t: -1. */
int sc_sqlp_syntax_error(const struct sc_sqltok *t, struct sc_error *err);

/* Whether name (any case) is an aggregate function Spark SQL knows. */
bool sc_sqlp_is_aggregate(const char *name);
/* Whether that aggregate ignores null inputs (sum, count, ...). */
bool sc_sqlp_aggregate_skips_nulls(const char *name);

#endif
