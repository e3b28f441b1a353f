/* SPDX-License-Identifier: MIT */

/*
 * plan.h: the plans a client sends, as opaque handles.
 *
 * A struct sc_plan is one spark.connect.Plan: a root relation whose rows
 * are the result, or a command.  The builders below make the plans
 * Spark's own clients make for the same calls; core/reattach executes
 * one and core/client describes one (AnalyzePlan).  Nothing here names
 * a generated protocol type: lib/core's other modules reach the message
 * through sc_plan_attach().
 */

#ifndef SC_PLAN_H
#define SC_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/value.h"

struct sc_error;
struct ProtobufCMessage;

struct sc_plan;

/*
 * spark.sql(stmt): a sql_command carrying stmt twice, in the sql field
 * Spark 3.5 reads and as an input relation Relation{sql{query}} that
 * Spark 4.x reads (and prefers when both are set).  The server runs it
 * and answers with a relation (sc_result_take_relation()) to execute
 * next: a query's plan, or a command's output rows.  stmt is copied.
 */
struct sc_plan *sc_plan_sql_command(const char *stmt);

/*
 * Plan{root: Relation{sql{query: stmt}}}: the query as a relation, for
 * AnalyzePlan (a command would run, not be described).  stmt is copied.
 */
struct sc_plan *sc_plan_sql(const char *stmt);

/*
 * One parameter of spark.sql(query, args): a literal of a SQL type,
 * given as text.  type is one of SC_VALUE_STRING, SC_VALUE_BOOLEAN
 * (true/false, any case), SC_VALUE_INT, SC_VALUE_LONG, SC_VALUE_DOUBLE,
 * SC_VALUE_DECIMAL ([+-]digits[.digits], at most 38 digits),
 * SC_VALUE_DATE and SC_VALUE_TIMESTAMP (core/value's forms; no zone is
 * UTC).
 */
struct sc_plan_param {
	const char *name; /* :name in the SQL; NULL for a positional ? */
	enum sc_value_type type;
	const char *text;
};

/*
 * Whether p->text reads as a literal of p->type.  0, or -1 with err set
 * (SC_ST_USAGE, "'<text>' is not a valid <type name>").
 */
int sc_plan_param_check(const struct sc_plan_param *p, struct sc_error *err);

/*
 * sc_plan_sql_command() and sc_plan_sql() with parameters, sent as
 * Spark's clients send them: literals in the 3.5 fields (args, pos_args)
 * and literal expressions in the 4.x ones (named_arguments,
 * pos_arguments); never spliced into the text.  Each of the n params
 * (all named or all positional) must pass sc_plan_param_check(); a bad
 * one is a bug (SC_BUG).  Everything is copied.
 */
struct sc_plan *sc_plan_sql_command_params(const char *stmt,
    const struct sc_plan_param *v, size_t n);
struct sc_plan *sc_plan_sql_params(const char *stmt,
    const struct sc_plan_param *v, size_t n);

/*
 * Check SQL text (len bytes at sql) before it is split into statements
 * and given to the builders above, which take C strings: a NUL byte
 * would cut the statement short without a word.  0, or -1 with err set
 * (SC_ST_USAGE): "the SQL holds a NUL byte at offset 13; it would be
 * cut short there".
 */
int sc_plan_check_sql(const void *sql, size_t len, struct sc_error *err);

/* spark.range(start, end, step): Plan{root: Relation{range}}; step != 0. */
struct sc_plan *sc_plan_range(int64_t start, int64_t end, int64_t step);

/*
 * A serialized spark.connect.Plan (n bytes at p, copied).  NULL with err
 * set (SC_ST_USAGE, "'<what>' is not a serialized spark.connect.Plan")
 * when the bytes do not parse or name neither a root nor a command, or
 * ("'<what>' holds a string with a NUL byte, which would be sent cut
 * short") when a string field anywhere in it holds a NUL byte.
 */
struct sc_plan *sc_plan_parse(const void *p, size_t n, const char *what,
    struct sc_error *err);

/* Free p and everything it owns.  NULL is a no-op. */
void sc_plan_free(struct sc_plan *p);

/* Whether p is a sql_command (its result is a relation to run next). */
bool sc_plan_is_sql_command(const struct sc_plan *p);

/*
 * Whether p's root is just rows: a LocalRelation with Arrow data and
 * nothing else, as Spark answers a command (DDL, DML, SHOW ...).  If
 * so, *data and *len (if not NULL) get the Arrow IPC stream, borrowed
 * from p.
 */
bool sc_plan_local_rows(const struct sc_plan *p, const void **data,
    size_t *len);

/*
 * Point the "plan" field of request m (ExecutePlanRequest,
 * AnalyzePlanRequest.Schema and the like) at p's message, which stays
 * p's: p must outlive m, and m must not be freed as an unpacked message.
 * For lib/core's callers of the protocol.
 */
void sc_plan_attach(const struct sc_plan *p, struct ProtobufCMessage *m);

/*
 * A plan whose root is the Relation message rel, which lives inside the
 * unpacked message owner; the plan takes owner and frees it (with
 * protobuf_c_message_free_unpacked()).  For core/result.
 */
struct sc_plan *sc_plan_adopt_relation(struct ProtobufCMessage *owner,
    struct ProtobufCMessage *rel);

#endif
