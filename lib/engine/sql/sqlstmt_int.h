/* SPDX-License-Identifier: MIT */

/*
 * sqlstmt_int.h: what the statement files (sqlstmt.c, sqldml.c) share
 * and nobody else sees: a statement's tokens and a cursor over them.
 */

#ifndef SC_SQLSTMT_INT_H
#define SC_SQLSTMT_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine_int.h"
#include "engine/sql/sqlparse.h"

struct sc_stmt {
	struct sc_ectx *x;
	const char *src;
	const Spark__Connect__SQL *args; /* the markers' values, or NULL */
	struct sc_sqltok *t;
	size_t n;
	size_t i;
};

/* The token k after the cursor (the last, EOF, past the end). */
const struct sc_sqltok *sc_stmt_tk(const struct sc_stmt *s, size_t k);
/* Whether token k after the cursor is the word w (any case). */
bool sc_stmt_word_at(const struct sc_stmt *s, size_t k, const char *w);
/* Step over the word w if it is at the cursor. */
bool sc_stmt_accept(struct sc_stmt *s, const char *w);
/* Whether only ';' are left. */
bool sc_stmt_at_end(const struct sc_stmt *s);
/* A name of up to 3 parts at the cursor: its last part, *db the one before. */
char *sc_stmt_name_at(struct sc_stmt *s, char **db);
/* The text of tokens [from, to) as written (malloc'ed). */
char *sc_stmt_span(const struct sc_stmt *s, size_t from, size_t to);
/* The table Spark names ident, read as a relation, translated into in. */
int sc_stmt_read_table(struct sc_stmt *s, const char *ident,
    struct sc_eplan *in, struct sc_error *err);
/* A statement with no result: zero columns, zero rows. */
void sc_stmt_no_result(struct sc_eplan *p);

/*
 * sqldml.c: CREATE TABLE and VIEW, INSERT, UPDATE, DELETE, ALTER TABLE
 * and DROP TABLE and VIEW at the cursor as p: 1; 0 when the statement
 * is none of these; -1 (err set).
 */
int sc_stmt_dml(struct sc_stmt *s, struct sc_eplan *p, struct sc_error *err);

#endif
