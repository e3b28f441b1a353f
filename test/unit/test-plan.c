/* SPDX-License-Identifier: MIT */

/*
 * test-plan.c: the plans a client sends (core/plan) against bytes
 * written by hand from the field numbers of proto/, and the plain views
 * of responses (core/result) against messages built here.
 */

#include "core/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/protocol.h"
#include "core/result.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

#define BYTES(s) (const uint8_t *)(s), (sizeof(s) - 1)
/* is_mem() against a string literal of wire bytes. */
#define is_wire(got, gotlen, lit, ...) \
	is_mem((got), (gotlen), (lit), sizeof(lit) - 1, __VA_ARGS__)

/* The bytes of p as the plan field (3) of an ExecutePlanRequest. */
static void
pack_in_request(const struct sc_plan *p, struct sc_buf *out)
{
	Spark__Connect__ExecutePlanRequest req =
	    SPARK__CONNECT__EXECUTE_PLAN_REQUEST__INIT;

	sc_plan_attach(p, &req.base);
	sc_buf_reset(out);
	if (sc_proto_pack(&req.base, out, NULL) == -1)
		abort();
}

static void
test_builders(void)
{
	struct sc_buf b;
	struct sc_plan *p;

	sc_buf_init(&b, SC_BUF_UNLIMITED);

	/*
	 * Plan{command: Command{sql_command: SqlCommand{sql: "SELECT 1",
	 * input: Relation{sql: SQL{query: "SELECT 1"}}}}}: field 3 of the
	 * request (1a), Plan.command 2 (12), Command.sql_command 5 (2a),
	 * SqlCommand.sql 1 (0a) and .input 6 (32), Relation.sql 10 (52),
	 * SQL.query 1 (0a).
	 */
	p = sc_plan_sql_command("SELECT 1");
	pack_in_request(p, &b);
	is_wire(b.data, b.len,
	    ("\x1a\x1c\x12\x1a\x2a\x18\x0a\x08SELECT 1"
	     "\x32\x0c\x52\x0a\x0a\x08SELECT 1"),
	    "sql_command: the 3.5 sql field and the 4.x input relation");
	ok(sc_plan_is_sql_command(p), "  is a SQL command");
	ok(!sc_plan_local_rows(p, NULL, NULL), "  holds no rows");
	sc_plan_free(p);

	/* Plan{root: Relation{sql: SQL{query}}}: Plan.root 1 (0a). */
	p = sc_plan_sql("SELECT 2");
	pack_in_request(p, &b);
	is_wire(b.data, b.len, ("\x1a\x0e\x0a\x0c\x52\x0a\x0a\x08SELECT 2"),
	    "sql: a root SQL relation");
	ok(!sc_plan_is_sql_command(p), "  is not a SQL command");
	sc_plan_free(p);

	/*
	 * Plan{root: Relation{range: Range{start: 0, end: 5, step: 1}}}:
	 * Relation.range 15 (7a); start is optional, so 0 is sent (08 00).
	 */
	p = sc_plan_range(0, 5, 1);
	pack_in_request(p, &b);
	is_wire(b.data, b.len,
	    ("\x1a\x0a\x0a\x08\x7a\x06\x08\x00\x10\x05\x18\x01"),
	    "range(0, 5, 1), start present");
	sc_plan_free(p);

	/* Negative numbers are ten-byte varints. */
	p = sc_plan_range(10, -1, -3);
	pack_in_request(p, &b);
	is_wire(b.data, b.len,
	    ("\x1a\x1c\x0a\x1a\x7a\x18\x08\x0a"
	     "\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"
	     "\x18\xfd\xff\xff\xff\xff\xff\xff\xff\xff\x01"),
	    "range(10, -1, -3)");
	sc_plan_free(p);

	/* The statement is copied: the caller's buffer may go. */
	{
		char *stmt = sc_xstrdup("SELECT 3");

		p = sc_plan_sql(stmt);
		memset(stmt, 'X', strlen(stmt));
		free(stmt);
		pack_in_request(p, &b);
		is_wire(b.data, b.len,
		    ("\x1a\x0e\x0a\x0c\x52\x0a\x0a\x08SELECT 3"),
		    "the statement is the plan's own copy");
		sc_plan_free(p);
	}
	sc_plan_free(NULL);
	sc_buf_release(&b);
}

static void
test_parse(void)
{
	struct sc_error err;
	struct sc_buf b;
	struct sc_plan *p;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	/* Plan{root: Relation{range{end: 5, step: 1}}}, as sc-exec --plan. */
	p = sc_plan_parse(BYTES("\x0a\x06\x7a\x04\x10\x05\x18\x01"), "p.bin",
	    &err);
	ok(p != NULL, "parse a serialized range plan");
	pack_in_request(p, &b);
	is_wire(b.data, b.len, ("\x1a\x08\x0a\x06\x7a\x04\x10\x05\x18\x01"),
	    "  sent as it was read");
	ok(!sc_plan_is_sql_command(p), "  not a SQL command");
	sc_plan_free(p);

	p = sc_plan_parse(BYTES("garbage"), "bad.bin", &err);
	ok(p == NULL, "garbage is refused");
	is_str(err.msg, "'bad.bin' is not a serialized spark.connect.Plan",
	    "  message names the file");
	is_int(err.status, SC_ST_USAGE, "  status usage");

	p = sc_plan_parse(NULL, 0, "empty.bin", &err);
	ok(p == NULL, "an empty plan (no root, no command) is refused");
	is_str(err.msg, "'empty.bin' is not a serialized spark.connect.Plan",
	    "  message");

	/* Plan{command: Command{sql_command: SqlCommand{sql: "x"}}} */
	p = sc_plan_parse(BYTES("\x12\x05\x2a\x03\x0a\x01x"), "c.bin", &err);
	ok(p != NULL && sc_plan_is_sql_command(p),
	    "a serialized SQL command is one");
	sc_plan_free(p);
	sc_buf_release(&b);
}

/* A packed ExecutePlanResponse, unpacked again, as reattach hands it out. */
static Spark__Connect__ExecutePlanResponse *
roundtrip(const Spark__Connect__ExecutePlanResponse *m)
{
	Spark__Connect__ExecutePlanResponse *r;
	struct sc_buf b;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	if (sc_proto_pack(&m->base, &b, NULL) == -1)
		abort();
	r = sc_proto_unpack(&spark__connect__execute_plan_response__descriptor,
	    b.data, b.len, NULL);
	sc_buf_release(&b);
	if (r == NULL)
		abort();
	return r;
}

static void
test_results(void)
{
	Spark__Connect__ExecutePlanResponse m =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
	Spark__Connect__ExecutePlanResponse__ArrowBatch ab =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH__INIT;
	Spark__Connect__ExecutePlanResponse__SqlCommandResult scr =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__SQL_COMMAND_RESULT__INIT;
	Spark__Connect__ExecutePlanResponse__ExecutionProgress ep =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__EXECUTION_PROGRESS__INIT;
	Spark__Connect__ExecutePlanResponse__ExecutionProgress__StageInfo st[2];
	Spark__Connect__ExecutePlanResponse__ExecutionProgress__StageInfo
	    *stp[2];
	Spark__Connect__Relation rel = SPARK__CONNECT__RELATION__INIT;
	Spark__Connect__LocalRelation lr;
	Spark__Connect__DataType dt = SPARK__CONNECT__DATA_TYPE__INIT,
				 lt = SPARK__CONNECT__DATA_TYPE__INIT,
				 str = SPARK__CONNECT__DATA_TYPE__INIT;
	Spark__Connect__DataType__Struct sct =
	    SPARK__CONNECT__DATA_TYPE__STRUCT__INIT;
	Spark__Connect__DataType__Long l =
	    SPARK__CONNECT__DATA_TYPE__LONG__INIT;
	Spark__Connect__DataType__StructField f[2], *fp[2];
	static uint8_t ipc[] = { 0xff, 0xff, 0xff, 0xff, 0x10, 0, 0, 0 };
	struct sc_result r;
	struct sc_plan *p;
	struct sc_buf tn;
	const void *rows;
	size_t len;
	int i;

	sc_buf_init(&tn, SC_BUF_UNLIMITED);
	m.session_id = (char *)"s";
	m.operation_id = (char *)"o";
	m.response_id = (char *)"r1";

	/* Arrow rows, with a start offset. */
	ab.row_count = 3;
	ab.data.data = ipc;
	ab.data.len = sizeof(ipc);
	ab._start_offset_case =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH___START_OFFSET_START_OFFSET;
	ab.start_offset = 7;
	m.response_type_case = SC_EXEC_RESP_(ARROW_BATCH);
	m.arrow_batch = &ab;
	sc_result_init(&r, roundtrip(&m));
	is_int(r.kind, SC_RESULT_ARROW, "arrow batch: kind");
	is_mem(r.arrow.data, r.arrow.len, ipc, sizeof(ipc), "  the IPC bytes");
	ok(r.arrow.rows == 3 && r.arrow.has_start_offset &&
		r.arrow.start_offset == 7,
	    "  3 rows from row 7");
	is_str(r.response_id, "r1", "  response id");
	sc_result_release(&r);
	is_int(r.kind, SC_RESULT_OTHER, "release empties the result");

	/* Without a start offset (Spark 3.5). */
	ab._start_offset_case = 0;
	sc_result_init(&r, roundtrip(&m));
	ok(!r.arrow.has_start_offset, "no start offset from 3.5");
	sc_result_release(&r);

	/* Progress, summed over the stages. */
	for (i = 0; i < 2; i++) {
		spark__connect__execute_plan_response__execution_progress__stage_info__init(
		    &st[i]);
		stp[i] = &st[i];
	}
	st[0].num_tasks = 4;
	st[0].num_completed_tasks = 4;
	st[0].done = true;
	st[1].num_tasks = 6;
	st[1].num_completed_tasks = 2;
	ep.n_stages = 2;
	ep.stages = stp;
	ep.num_inflight_tasks = 3;
	m.response_type_case = SC_EXEC_RESP_(EXECUTION_PROGRESS);
	m.execution_progress = &ep;
	sc_result_init(&r, roundtrip(&m));
	is_int(r.kind, SC_RESULT_PROGRESS, "progress: kind");
	ok(r.progress.stages == 2 && r.progress.stages_done == 1 &&
		r.progress.tasks == 10 && r.progress.tasks_done == 6 &&
		r.progress.inflight == 3,
	    "  2 stages (1 done), 6 of 10 tasks, 3 running");
	sc_result_release(&r);

	/* A SQL command's answer: a relation holding a command's rows. */
	spark__connect__local_relation__init(&lr);
	lr._data_case = SPARK__CONNECT__LOCAL_RELATION___DATA_DATA;
	lr.data.data = ipc;
	lr.data.len = sizeof(ipc);
	rel.rel_type_case = SC_REL_(LOCAL_RELATION);
	rel.local_relation = &lr;
	scr.relation = &rel;
	m.response_type_case = SC_EXEC_RESP_(SQL_COMMAND_RESULT);
	m.sql_command_result = &scr;
	sc_result_init(&r, roundtrip(&m));
	is_int(r.kind, SC_RESULT_SQL, "sql command result: kind");
	p = sc_result_take_relation(&r);
	ok(p != NULL, "  the relation, as a plan");
	is_int(r.kind, SC_RESULT_OTHER, "  the result is left empty");
	ok(r.msg == NULL, "  the plan owns the response now");
	ok(sc_plan_local_rows(p, &rows, &len), "  holds a command's rows");
	is_mem(rows, len, ipc, sizeof(ipc), "  those rows");
	sc_result_release(&r);
	sc_plan_free(p);

	/* The same answer with a query relation to run next. */
	rel.rel_type_case = SC_REL_(RANGE);
	rel.range = &(Spark__Connect__Range)SPARK__CONNECT__RANGE__INIT;
	sc_result_init(&r, roundtrip(&m));
	p = sc_result_take_relation(&r);
	ok(p != NULL && !sc_plan_local_rows(p, NULL, NULL) &&
		!sc_plan_is_sql_command(p),
	    "a query relation is a plan to run");
	sc_plan_free(p);

	/* An answer without a relation. */
	scr.relation = NULL;
	sc_result_init(&r, roundtrip(&m));
	ok(sc_result_take_relation(&r) == NULL, "no relation, no plan");
	sc_result_release(&r);

	/* A schema: struct<id: bigint not null, s: string>. */
	l.type_variation_reference = 0;
	lt.kind_case = SC_DT_(LONG);
	lt.long_ = &l;
	str.kind_case = SC_DT_(STRING);
	str.string = &(Spark__Connect__DataType__String)
			 SPARK__CONNECT__DATA_TYPE__STRING__INIT;
	for (i = 0; i < 2; i++) {
		spark__connect__data_type__struct_field__init(&f[i]);
		fp[i] = &f[i];
	}
	f[0].name = (char *)"id";
	f[0].data_type = &lt;
	f[0].nullable = false;
	f[1].name = (char *)"s";
	f[1].data_type = &str;
	f[1].nullable = true;
	sct.n_fields = 2;
	sct.fields = fp;
	dt.kind_case = SC_DT_(STRUCT);
	dt.struct_ = &sct;
	m.response_type_case = 0;
	m.schema = &dt;
	sc_result_init(&r, roundtrip(&m));
	is_int(r.kind, SC_RESULT_SCHEMA, "schema: kind");
	is_int(sc_result_schema_ncols(r.schema), 2, "  two columns");
	is_str(sc_result_schema_name(r.schema, 0), "id", "  first name");
	ok(!sc_result_schema_nullable(r.schema, 0), "  id not nullable");
	is_str(sc_result_schema_name(r.schema, 1), "s", "  second name");
	ok(sc_result_schema_nullable(r.schema, 1), "  s nullable");
	sc_buf_reset(&tn);
	is_int(sc_result_schema_type_name(r.schema, 0, &tn, NULL), 0,
	    "  id's type name");
	is_str((const char *)tn.data, "bigint", "  id is a bigint");
	sc_buf_reset(&tn);
	sc_result_schema_type_name(r.schema, 1, &tn, NULL);
	is_str((const char *)tn.data, "string", "  s is a string");
	sc_result_release(&r);

	/* A non-struct schema is one nullable column named "value". */
	m.schema = &lt;
	sc_result_init(&r, roundtrip(&m));
	ok(sc_result_schema_ncols(r.schema) == 1 &&
		strcmp(sc_result_schema_name(r.schema, 0), "value") == 0 &&
		sc_result_schema_nullable(r.schema, 0),
	    "a bare type: one column 'value'");
	sc_result_release(&r);

	/* Nothing a client shows. */
	m.schema = NULL;
	m.response_id = (char *)"";
	sc_result_init(&r, roundtrip(&m));
	ok(r.kind == SC_RESULT_OTHER && r.response_id == NULL &&
		r.arrow.data == NULL && r.schema == NULL,
	    "other responses: kind other, no response id");
	sc_result_release(&r);
	sc_buf_release(&tn);
}

/* spark.sql(query, args): each literal in the 3.5 and the 4.x fields. */
static void
test_params(void)
{
	static const struct {
		enum sc_value_type type;
		const char *text;
		bool ok;
	} checks[] = {
		{ SC_VALUE_STRING, "x'; DROP TABLE t; --", true },
		{ SC_VALUE_INT, "-2147483648", true },
		{ SC_VALUE_INT, "2147483648", false },
		{ SC_VALUE_LONG, "9223372036854775807", true },
		{ SC_VALUE_LONG, "1.5", false },
		{ SC_VALUE_DOUBLE, "1e-3", true },
		{ SC_VALUE_DOUBLE, "x", false },
		{ SC_VALUE_BOOLEAN, "False", true },
		{ SC_VALUE_BOOLEAN, "yes", false },
		{ SC_VALUE_DECIMAL, "-0012.340", true },
		{ SC_VALUE_DECIMAL, "1.", false },
		{ SC_VALUE_DECIMAL, ".5", false },
		{ SC_VALUE_DECIMAL, "123456789012345678901234567890123456789",
		    false },
		{ SC_VALUE_DATE, "2024-02-29", true },
		{ SC_VALUE_DATE, "2023-02-29", false },
		{ SC_VALUE_TIMESTAMP, "2024-01-01 10:00:00+02:00", true },
		{ SC_VALUE_TIMESTAMP, "noon", false },
	};
	struct sc_plan_param named[] = {
		{ "s", SC_VALUE_STRING, "x'; DROP TABLE t; --" },
		{ "d", SC_VALUE_DECIMAL, "-0012.340" },
		{ "day", SC_VALUE_DATE, "1970-01-02" },
	};
	struct sc_plan_param pos[] = {
		{ NULL, SC_VALUE_LONG, "42" },
		{ NULL, SC_VALUE_BOOLEAN, "TRUE" },
	};
	Spark__Connect__Plan *m;
	const Spark__Connect__SqlCommand *cmd;
	const Spark__Connect__SQL *sql;
	const Spark__Connect__Expression__Literal *l;
	struct sc_error err;
	struct sc_plan *p;
	struct sc_buf b;
	size_t i;

	for (i = 0; i < SC_NELEM(checks); i++) {
		struct sc_plan_param one = { NULL, checks[i].type,
			checks[i].text };

		is_int(sc_plan_param_check(&one, &err), checks[i].ok ? 0 : -1,
		    "param check '%s'", checks[i].text);
	}
	sc_error_init(&err);
	sc_plan_param_check(&(struct sc_plan_param){ NULL, SC_VALUE_INT, "x" },
	    &err);
	is_str(err.msg, "'x' is not a valid int", "  the message");
	is_int(err.status, SC_ST_USAGE, "  a usage error");

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	p = sc_plan_sql_command_params("SELECT :s, :d, :day", named, 3);
	pack_in_request(p, &b);
	sc_plan_free(p);
	m = sc_proto_unpack(&spark__connect__execute_plan_request__descriptor,
	    b.data, b.len, NULL);
	cmd = ((Spark__Connect__ExecutePlanRequest *)m)
		  ->plan->command->sql_command;
	sql = cmd->input->sql;
	is_str(cmd->sql, "SELECT :s, :d, :day", "named: the text is as given");
	ok(cmd->n_args == 3 && sql->n_args == 3 &&
		sql->n_named_arguments == 3 && cmd->n_pos_args == 0 &&
		sql->n_pos_arguments == 0,
	    "  3.5 args and 4.x named_arguments, nothing positional");
	l = cmd->args[0]->value;
	ok(strcmp(cmd->args[0]->key, "s") == 0 &&
		l->literal_type_case == SC_LIT_(STRING) &&
		strcmp(l->string, named[0].text) == 0,
	    "  s: the string as a literal");
	l = sql->named_arguments[1]->value->literal;
	ok(strcmp(sql->named_arguments[1]->key, "d") == 0 &&
		l->literal_type_case == SC_LIT_(DECIMAL) &&
		strcmp(l->decimal->value, "-0012.340") == 0 &&
		l->decimal->precision == 5 && l->decimal->scale == 3,
	    "  d: decimal(5,3) in an expression");
	l = sql->args[2]->value;
	ok(l->literal_type_case == SC_LIT_(DATE) && l->date == 1,
	    "  day: date 1");
	protobuf_c_message_free_unpacked(&m->base, NULL);

	p = sc_plan_sql_params("SELECT ?, ?", pos, 2);
	pack_in_request(p, &b);
	sc_plan_free(p);
	m = sc_proto_unpack(&spark__connect__execute_plan_request__descriptor,
	    b.data, b.len, NULL);
	sql = ((Spark__Connect__ExecutePlanRequest *)m)->plan->root->sql;
	ok(sql->n_pos_args == 2 && sql->n_pos_arguments == 2 &&
		sql->n_args == 0 && sql->n_named_arguments == 0,
	    "positional: pos_args and pos_arguments");
	ok(sql->pos_args[0]->literal_type_case == SC_LIT_(LONG) &&
		sql->pos_args[0]->long_ == 42 &&
		sql->pos_arguments[1]->literal->literal_type_case ==
		    SC_LIT_(BOOLEAN) &&
		sql->pos_arguments[1]->literal->boolean,
	    "  42 and true, in order");
	protobuf_c_message_free_unpacked(&m->base, NULL);
	sc_buf_release(&b);
}

/*
 * A NUL byte would cut SQL short without a word: protobuf-c hands a
 * string over as a C string.  Refused in script text and in plan files.
 */
static void
test_nul(void)
{
	struct sc_error err;
	struct sc_plan *p;

	is_int(sc_plan_check_sql("SELECT 1", 8, &err), 0, "NUL: clean SQL");
	is_int(sc_plan_check_sql("SELECT 1 AS a\0; DROP TABLE x", 28, &err), -1,
	    "NUL: in SQL text, refused");
	is_str(err.msg,
	    "the SQL holds a NUL byte at offset 13; it would be cut short there",
	    "  message");
	is_int(err.status, SC_ST_USAGE, "  exit 2");
	is_int(sc_plan_check_sql("", 0, &err), 0, "NUL: empty text");

	/* Plan{root: Relation{sql{query: "SELECT 1 AS a\0; DROP TABLE x"}}} */
	p = sc_plan_parse(BYTES("\x0a\x20\x52\x1e\x0a\x1cSELECT 1 AS a\0; "
				"DROP TABLE x"),
	    "nul.bin", &err);
	ok(p == NULL, "NUL: in a plan file's SQL, refused");
	is_str(err.msg,
	    "'nul.bin' holds a string with a NUL byte, which would be sent cut short",
	    "  message");
	is_int(err.status, SC_ST_USAGE, "  exit 2");
	/* The same with a space: parsed. */
	p = sc_plan_parse(BYTES("\x0a\x20\x52\x1e\x0a\x1cSELECT 1 AS a ; "
				"DROP TABLE x"),
	    "ok.bin", &err);
	ok(p != NULL, "NUL: the same plan without it parses");
	sc_plan_free(p);
	/* In a command's SqlCommand.sql, two levels down. */
	p = sc_plan_parse(BYTES("\x12\x06\x2a\x04\x0a\x02x\0"), "c.bin", &err);
	ok(p == NULL, "NUL: in SqlCommand.sql, refused");
	/* Bytes fields may hold NUL (Arrow data): Plan{root: local_relation
	   {data: "\0\0"}}. */
	p = sc_plan_parse(BYTES("\x0a\x06\x5a\x04\x0a\x02\0\0"), "l.bin", &err);
	ok(p != NULL, "NUL: in a bytes field, fine");
	sc_plan_free(p);
}

int
main(void)
{
	test_builders();
	test_params();
	test_parse();
	test_results();
	test_nul();
	return tap_done();
}
