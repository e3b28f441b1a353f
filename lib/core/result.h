/* SPDX-License-Identifier: MIT */

/*
 * result.h: what the server sends back about a result, as plain C.
 *
 * A struct sc_result is one ExecutePlanResponse of an operation
 * (core/reattach's sc_reattach_next_result()): Arrow rows, the relation
 * a SQL command answers with, execution progress or a schema.  A struct
 * sc_result_schema is a result's column list (a Spark DataType), from a
 * response or from AnalyzePlan (sc_client_analyze_schema()).
 */

#ifndef SC_RESULT_H
#define SC_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/protocol.h"

struct sc_buf;
struct sc_error;
struct sc_plan;
struct sc_result_schema;

enum sc_result_kind {
	SC_RESULT_OTHER = 0, /* nothing a client shows (metrics, ...) */
	SC_RESULT_ARROW, /* Arrow rows: arrow */
	SC_RESULT_SQL, /* a SQL command's answer: sc_result_take_relation() */
	SC_RESULT_PROGRESS, /* execution progress: progress */
	SC_RESULT_SCHEMA /* the result's schema: schema */
};

/* One batch of rows: an Arrow IPC stream (schema and record batches). */
struct sc_result_arrow {
	const uint8_t *data; /* borrowed from the result */
	size_t len;
	int64_t rows; /* row count the server states */
	bool has_start_offset;
	int64_t start_offset; /* first row's index in the result */
};

/* ExecutionProgress, summed over the stages. */
struct sc_result_progress {
	int64_t stages;
	int64_t stages_done;
	int64_t tasks;
	int64_t tasks_done;
	int64_t inflight; /* tasks running now */
};

struct sc_result {
	enum sc_result_kind kind;
	const char *response_id; /* borrowed; NULL if none */
	struct sc_result_arrow arrow; /* SC_RESULT_ARROW */
	struct sc_result_progress progress; /* SC_RESULT_PROGRESS */
	struct sc_result_schema *schema; /* SC_RESULT_SCHEMA, owned */
	/*
	 * A metrics response's numAffectedRows (sc-serve's count of the rows
	 * a SQL command changed; Spark sends none), else -1.
	 */
	int64_t affected;
	Spark__Connect__ExecutePlanResponse *msg; /* owned */
};

/*
 * Fill r from the unpacked response m, which r then owns (free it with
 * sc_result_release()).
 */
void sc_result_init(struct sc_result *r,
    Spark__Connect__ExecutePlanResponse *m);

/* Free what r owns; r is left empty (kind SC_RESULT_OTHER). */
void sc_result_release(struct sc_result *r);

/*
 * SC_RESULT_SQL: the relation the command answered with, as a plan to
 * execute next, or NULL if it sent none.  The plan takes the response
 * over: r is left empty.  Free the plan with sc_plan_free().
 */
struct sc_plan *sc_result_take_relation(struct sc_result *r);

/*
 * A schema's columns: a struct's fields, or one column named "value"
 * for a result of another type (nullable).
 */
size_t sc_result_schema_ncols(const struct sc_result_schema *s);
const char *sc_result_schema_name(const struct sc_result_schema *s, size_t i);
bool sc_result_schema_nullable(const struct sc_result_schema *s, size_t i);

/*
 * Append the Spark SQL name of column i's type to out, as Spark's
 * simpleString spells it (bigint, array<int>, struct<a:int>; see
 * core/value).  0, or -1 with err set if out's limit is hit.
 */
int sc_result_schema_type_name(const struct sc_result_schema *s, size_t i,
    struct sc_buf *out, struct sc_error *err);

/* Free a schema from sc_client_analyze_schema().  NULL is a no-op. */
void sc_result_schema_free(struct sc_result_schema *s);

/*
 * A schema that owns the unpacked message owner holding the DataType dt
 * (for core/client's AnalyzePlan).
 */
struct sc_result_schema *sc_result_schema_adopt(ProtobufCMessage *owner,
    const Spark__Connect__DataType *dt);

#endif
