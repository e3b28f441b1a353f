/* SPDX-License-Identifier: MIT */

/*
 * fuzz-proto: every request message a server decodes, through
 * sc_proto_unpack() (core/protocol: the framing and depth walk, then
 * protobuf-c), and the plans among them through sc-serve's engine
 * (lib/engine/engine.h, an in-memory database): the plan-to-SQL
 * translation exec_run.c runs, with the run cancelled before it starts
 * (so no input can keep the fuzzer busy for long), EXPLAIN of the same
 * plan, and a SqlCommand likewise.  The first byte chooses the message
 * type (modulo the number of types); the rest is the message.  A message
 * that decodes must pack and decode again.
 * The admin service's requests (proto/sctk/admin) are decoded too.
 */

#include "fuzz.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/arrow.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/protocol.h"
#include "engine/engine.h"
#include "core/banned.h"

/* A fresh database now and then, so tables made by inputs do not pile up. */
#define ENGINE_INPUTS 5000

static const ProtobufCMessageDescriptor *const types[] = {
	&spark__connect__execute_plan_request__descriptor,
	&spark__connect__analyze_plan_request__descriptor,
	&spark__connect__config_request__descriptor,
	&spark__connect__add_artifacts_request__descriptor,
	&spark__connect__artifact_statuses_request__descriptor,
	&spark__connect__interrupt_request__descriptor,
	&spark__connect__reattach_execute_request__descriptor,
	&spark__connect__release_execute_request__descriptor,
	&spark__connect__release_session_request__descriptor,
	&spark__connect__fetch_error_details_request__descriptor,
	&sctk__admin__v1__list_executions_request__descriptor,
	&sctk__admin__v1__get_execution_request__descriptor,
	&sctk__admin__v1__list_sessions_request__descriptor,
	&sctk__admin__v1__list_tombstones_request__descriptor,
	&sctk__admin__v1__get_stats_request__descriptor,
	&sctk__admin__v1__watch_request__descriptor,
};

static struct sc_engine *engine;
static unsigned long engine_uses;

static int
on_schema(void *arg, const Spark__Connect__DataType *schema)
{
	(void)arg;
	(void)schema;
	return 0;
}

static int
on_batch(void *arg, const uint8_t *ipc, size_t len, int64_t rows,
    int64_t start_offset)
{
	(void)arg;
	(void)ipc;
	(void)len;
	(void)rows;
	(void)start_offset;
	return -1; /* one batch is enough */
}

static int
on_writer(void *arg, struct sc_arrow_writer *w, int64_t rows,
    int64_t start_offset)
{
	struct sc_buf b;

	(void)arg;
	(void)rows;
	(void)start_offset;
	sc_buf_init(&b, 1 << 20);
	(void)sc_arrow_writer_flush(w, &b, NULL);
	sc_buf_release(&b);
	return -1; /* one batch is enough */
}

/* At exit, so leak checkers see only what inputs leaked. */
static void
engine_free(void)
{
	sc_engine_free(engine);
	engine = NULL;
}

static struct sc_engine_conn *
conn_new(void)
{
	static bool registered;

	if (engine != NULL && ++engine_uses % ENGINE_INPUTS == 0)
		engine_free();
	if (engine == NULL && (engine = sc_engine_new(NULL, NULL)) == NULL)
		abort();
	if (!registered) {
		atexit(engine_free);
		registered = true;
	}
	return sc_engine_conn_new(engine, NULL);
}

/* The translation of root, its EXPLAIN, and a run cancelled at once. */
static void
plan_root(const Spark__Connect__Relation *root)
{
	struct sc_engine_limits lim = { 100, 1 << 16 };
	struct sc_engine_sink sink = { on_schema, on_batch, NULL, NULL };
	struct sc_engine_conn *c;
	struct sc_error err;
	atomic_int cancel = 1;
	char *text = NULL;

	if ((c = conn_new()) == NULL)
		return;
	sc_error_init(&err);
	if (sc_engine_explain(c, root, 1, &text, &err) == 0)
		free(text);
	else if (err.msg[0] == '\0')
		abort();
	sc_error_init(&err);
	if (sc_engine_run_writer(c, root, &lim, &sink, on_writer, &cancel,
		&err) == 0)
		abort(); /* cancelled before it began, or an error */
	if (err.msg[0] == '\0')
		abort();
	sc_engine_conn_free(c);
}

static void
plan_command(const Spark__Connect__SqlCommand *cmd)
{
	Spark__Connect__Relation *rel = NULL;
	struct sc_engine_conn *c;
	atomic_int cancel = 1;

	if ((c = conn_new()) == NULL)
		return;
	if (sc_engine_sql_command_cancelable(c, cmd, &rel, &cancel, NULL) == 0)
		sc_engine_relation_free(rel);
	sc_engine_conn_free(c);
}

/* The plan of an ExecutePlanRequest or AnalyzePlanRequest, if any. */
static void
plans(const ProtobufCMessage *m)
{
	const Spark__Connect__Plan *p = NULL;

	if (m->descriptor == &spark__connect__execute_plan_request__descriptor)
		p = ((const Spark__Connect__ExecutePlanRequest *)m)->plan;
	else if (m->descriptor ==
	    &spark__connect__analyze_plan_request__descriptor) {
		const Spark__Connect__AnalyzePlanRequest *a = (const void *)m;

		if (a->analyze_case == SC_ANALYZE_(SCHEMA) && a->schema != NULL)
			p = a->schema->plan;
		else if (a->analyze_case == SC_ANALYZE_(EXPLAIN) &&
		    a->explain != NULL)
			p = a->explain->plan;
	}
	if (p == NULL)
		return;
	if (p->op_type_case == SC_PLAN_(ROOT) && p->root != NULL)
		plan_root(p->root);
	else if (p->op_type_case == SC_PLAN_(COMMAND) && p->command != NULL &&
	    p->command->command_type_case == SC_CMD_(SQL_COMMAND) &&
	    p->command->sql_command != NULL)
		plan_command(p->command->sql_command);
}

int
sc_fuzz_proto(const uint8_t *data, size_t n)
{
	const ProtobufCMessageDescriptor *d;
	ProtobufCMessage *m, *again;
	struct sc_error err;
	uint8_t *packed;
	size_t len;

	if (n == 0)
		return 0;
	d = types[data[0] % (sizeof(types) / sizeof(types[0]))];
	sc_error_init(&err);
	if ((m = sc_proto_unpack(d, data + 1, n - 1, &err)) == NULL) {
		if (err.status != SC_ST_PROTOCOL || err.msg[0] == '\0')
			abort();
		return 0;
	}
	packed = sc_proto_pack_alloc(m, &len);
	if ((again = sc_proto_unpack(d, packed, len, NULL)) == NULL)
		abort(); /* what we packed must decode */
	protobuf_c_message_free_unpacked(again, NULL);
	free(packed);
	plans(m);
	protobuf_c_message_free_unpacked(m, NULL);
	return 0;
}

SC_FUZZ_MAIN_FOR(sc_fuzz_proto)
