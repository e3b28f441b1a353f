/* SPDX-License-Identifier: MIT */

/*
 * exec_run.c: the default runner: one operation's plan on the embedded
 * engine, producing Spark's response order: for a root relation a
 * schema-only response, the Arrow batches and a metrics-only response;
 * for a sql_command its result relation and metrics.  ResultComplete is
 * added by exec_sched.c.
 */

#include "server/exec.h"

#include <stdio.h>
#include <string.h>

#include "core/arrow.h"
#include "core/buf.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "engine/engine.h"
#include "server/session.h"
#include "core/banned.h"

/* Command field numbers in spark/connect/commands.proto (4.x). */
static const char *const command_names[] = { NULL, "register_function",
	"write_operation", "create_dataframe_view", "write_operation_v2",
	"sql_command", "write_stream_operation_start",
	"streaming_query_command", "get_resources_command",
	"streaming_query_manager_command", "register_table_function",
	"streaming_query_listener_bus_command", "register_data_source",
	"create_resource_profile_command", "checkpoint_command",
	"remove_cached_remote_relation_command", "merge_into_table_command",
	"ml_command", "execute_external_command", "pipeline_command" };

struct run {
	struct sc_exec_op *op;
	int64_t progress_ms; /* spark.connect.progress.reportInterval */
	int64_t next_progress; /* sc_mono_ms() of the next report */
	int64_t rows;
	struct sc_error err; /* why the sink stopped */
	bool stopped;
	size_t last_ipc; /* size of the previous batch's stream */
	int64_t large; /* the current row's large values, in bytes */
	int64_t pool; /* value budget taken for them, not yet in a block */
	struct sc_execacct *acct; /* the pool's */
};

/*
 * What a row of n bytes of large values is charged before it is built:
 * SQLite's copy, the Arrow column and the response block.
 */
#define LARGE_COPIES 3

static int
emit(struct run *r, Spark__Connect__ExecutePlanResponse *resp)
{
	if (sc_exec_emit(r->op, resp, &r->err) == -1) {
		r->stopped = true;
		return -1;
	}
	return 0;
}

static int
on_schema(void *arg, const Spark__Connect__DataType *schema)
{
	Spark__Connect__ExecutePlanResponse resp =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;

	resp.schema = (Spark__Connect__DataType *)schema;
	return emit(arg, &resp);
}

static int
on_batch(void *arg, const uint8_t *ipc, size_t len, int64_t rows,
    int64_t start_offset)
{
	struct run *r = arg;
	Spark__Connect__ExecutePlanResponse resp =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
	Spark__Connect__ExecutePlanResponse__ArrowBatch ab =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH__INIT;

	ab.row_count = rows;
	ab.data.data = (uint8_t *)ipc;
	ab.data.len = len;
	ab._start_offset_case =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH___START_OFFSET_START_OFFSET;
	ab.start_offset = start_offset;
	resp.response_type_case =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH;
	resp.arrow_batch = &ab;
	if (emit(r, &resp) == -1)
		return -1;
	r->rows += rows;
	return 0;
}

static int
memory_error(struct run *r, int64_t need, int64_t limit, const char *what)
{
	sc_srv_error(&r->err, "UNABLE_TO_ACQUIRE_MEMORY", "53200",
	    "Unable to acquire memory: a result row holds %lld bytes of values; with their Arrow batch and response that is %lld bytes, more than the %lld bytes %s.",
	    (long long)r->large, (long long)need, (long long)limit, what);
	r->err.rpc_code = SC_GRPC_RESOURCE_EXHAUSTED;
	r->stopped = true;
	return -1;
}

/*
 * The row just computed holds n bytes of large values: give back what
 * the row before took, and take this one's before it is copied.
 */
static int
on_large(void *arg, int64_t n)
{
	struct run *r = arg;
	const struct sc_server_conf *conf = sc_exec_op_conf(r->op);
	int64_t need = n * LARGE_COPIES, cap;

	sc_execmem_give(r->acct, r->pool);
	r->pool = 0;
	r->large = n;
	sc_execmem_budget(&cap, NULL);
	if (n == 0)
		return 0;
	if (conf->sql_op_memory > 0 && need > conf->sql_op_memory)
		return memory_error(r, need, conf->sql_op_memory,
		    "one operation may use (sctk.sql.operationMemory)");
	if (cap >= 0 && need > cap / 2)
		return memory_error(r, need, cap / 2,
		    "one user's rows of large values may use together (an eighth of sctk.sql.heapLimit)");
	if (sc_exec_reserve(r->op, need, &r->acct, &r->err) == -1) {
		r->stopped = true;
		return -1;
	}
	r->pool = need;
	return 0;
}

/*
 * A batch of large values was written into a block: the block carries
 * its share of the budget, the writer's copy is freed and given back;
 * SQLite's copy stays taken until the next row.
 */
static void
large_written(struct run *r, struct sc_arrow_writer *w, size_t cap)
{
	int64_t charge = r->pool < (int64_t)cap ? r->pool : (int64_t)cap;

	sc_exec_charge_next(r->op, r->acct, charge);
	r->pool -= charge;
	sc_arrow_writer_trim(w, SC_ENGINE_LARGE_VALUE);
	if (r->pool > r->large) {
		sc_execmem_give(r->acct, r->pool - r->large);
		r->pool = r->large;
	}
}

/*
 * Write the batch's Arrow stream once, into a block sized after the
 * previous batch with room for the response envelope in front; the
 * block becomes the buffered response (no further copy).
 */
static int
on_batch_writer(void *arg, struct sc_arrow_writer *w, int64_t rows,
    int64_t start_offset)
{
	struct run *r = arg;
	struct sc_buf b;
	uint8_t *mem;
	size_t len, cap, ipclen, want = r->last_ipc;

	/*
	 * Sized after the previous batch: usually no regrowth; a batch of
	 * large values after its rows, so that it is not grown by doubling.
	 */
	if (r->large > 0 && want < sc_arrow_writer_bytes(w) + 4096)
		want = sc_arrow_writer_bytes(w) + 4096;
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	b.data = sc_execmem_block(SC_EXEC_ARROW_HEADROOM + want + 1024, &b.cap);
	b.len = SC_EXEC_ARROW_HEADROOM;
	b.data[b.len] = '\0';
	if (sc_arrow_writer_flush(w, &b, &r->err) == -1) {
		sc_buf_release(&b);
		r->stopped = true;
		return -1;
	}
	cap = b.cap;
	mem = sc_buf_detach(&b, &len);
	ipclen = len - SC_EXEC_ARROW_HEADROOM;
	/* A small batch after a large one need not be as large. */
	r->last_ipc = r->large > 0 ? 0 : ipclen;
	if (r->large > 0)
		large_written(r, w, cap);
	if (sc_exec_emit_arrow_block(r->op, mem, cap, ipclen, rows,
		start_offset, &r->err) == -1) {
		r->stopped = true;
		return -1;
	}
	r->rows += rows;
	return 0;
}

/*
 * The metrics-only response: one plan node with its output rows, and for
 * a SQL command that changed rows (affected >= 0), numAffectedRows: a
 * metric of sc-serve's own (Spark sends none), which Spark's clients
 * pass over and sc-exec shows as psql does ("DELETE 60").
 */
static int
emit_metrics(struct run *r, const char *node, int64_t affected)
{
	static char key[] = "numOutputRows", akey[] = "numAffectedRows";
	static char vname[] = "number of output rows";
	static char aname[] = "number of affected rows";
	static char vtype[] = "sum";
	char name[64];
	Spark__Connect__ExecutePlanResponse resp =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
	Spark__Connect__ExecutePlanResponse__Metrics mt =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__METRICS__INIT;
	Spark__Connect__ExecutePlanResponse__Metrics__MetricObject mo =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__METRICS__METRIC_OBJECT__INIT;
	Spark__Connect__ExecutePlanResponse__Metrics__MetricObject__ExecutionMetricsEntry
	    me =
		SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__METRICS__METRIC_OBJECT__EXECUTION_METRICS_ENTRY__INIT;
	Spark__Connect__ExecutePlanResponse__Metrics__MetricValue mv =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__METRICS__METRIC_VALUE__INIT;
	Spark__Connect__ExecutePlanResponse__Metrics__MetricObject *mop = &mo;
	Spark__Connect__ExecutePlanResponse__Metrics__MetricObject__ExecutionMetricsEntry
	    ae =
		SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__METRICS__METRIC_OBJECT__EXECUTION_METRICS_ENTRY__INIT;
	Spark__Connect__ExecutePlanResponse__Metrics__MetricValue av =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__METRICS__METRIC_VALUE__INIT;
	Spark__Connect__ExecutePlanResponse__Metrics__MetricObject__ExecutionMetricsEntry
	    *mep[2] = { &me, &ae };

	snprintf(name, sizeof(name), "%s", node);
	mv.name = vname;
	mv.value = r->rows;
	mv.metric_type = vtype;
	me.key = key;
	me.value = &mv;
	av.name = aname;
	av.value = affected;
	av.metric_type = vtype;
	ae.key = akey;
	ae.value = &av;
	mo.name = name;
	mo.n_execution_metrics = affected >= 0 ? 2 : 1;
	mo.execution_metrics = mep;
	mt.n_metrics = 1;
	mt.metrics = &mop;
	resp.metrics = &mt;
	return emit(r, &resp);
}

/*
 * While a query computes, an execution_progress response every
 * reportInterval, as Spark 4 sends them: one stage of one task (SQLite
 * runs a query as one), not done yet; the progress bars of Spark's
 * clients (and sc-exec's) show that the query is alive.
 */
static int
on_progress(void *arg)
{
	struct run *r = arg;
	Spark__Connect__ExecutePlanResponse resp =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
	Spark__Connect__ExecutePlanResponse__ExecutionProgress ep =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__EXECUTION_PROGRESS__INIT;
	Spark__Connect__ExecutePlanResponse__ExecutionProgress__StageInfo st =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__EXECUTION_PROGRESS__STAGE_INFO__INIT;
	Spark__Connect__ExecutePlanResponse__ExecutionProgress__StageInfo *stp =
	    &st;
	int64_t now = sc_mono_ms();

	if (now < r->next_progress)
		return 0;
	r->next_progress = now + r->progress_ms;
	st.stage_id = 0;
	st.num_tasks = 1;
	st.num_completed_tasks = 0;
	st.done = false;
	ep.n_stages = 1;
	ep.stages = &stp;
	ep.num_inflight_tasks = 1;
	resp.response_type_case =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_EXECUTION_PROGRESS;
	resp.execution_progress = &ep;
	return emit(r, &resp);
}

static int
run_root(struct run *r, struct sc_engine_conn *conn,
    const Spark__Connect__Relation *root, struct sc_error *err)
{
	const struct sc_server_conf *conf = sc_exec_op_conf(r->op);
	struct sc_engine_limits lim;
	struct sc_engine_sink sink;
	int rc;

	/* Spark keeps each batch under 70% of the maximum message size. */
	memset(&sink, 0, sizeof(sink));
	lim.max_rows = conf->batch_max_rows;
	lim.max_bytes =
	    conf->batch_max_bytes > 0 ? conf->batch_max_bytes / 10 * 7 : 0;
	sink.schema = on_schema;
	sink.batch = on_batch;
	sink.large = on_large;
	sink.arg = r;
	r->progress_ms = conf->progress_interval_ms;
	r->next_progress = sc_mono_ms() + r->progress_ms;
	if (r->progress_ms >= 0)
		sc_engine_set_progress(on_progress, r);
	rc = sc_engine_run_writer(conn, root, &lim, &sink, on_batch_writer,
	    sc_exec_op_cancel_flag(r->op), err);
	sc_engine_set_progress(NULL, NULL);
	sc_execmem_give(r->acct, r->pool);
	r->pool = 0;
	if (rc == -1) {
		if (r->stopped && err != NULL)
			*err = r->err;
		return -1;
	}
	if (emit_metrics(r, "SQLite", -1) == -1) {
		if (err != NULL)
			*err = r->err;
		return -1;
	}
	return 0;
}

static int
unsupported_command(const Spark__Connect__Command *cmd, struct sc_error *err)
{
	char what[64];
	uint32_t tag = 0;

	if (cmd->command_type_case ==
	    SPARK__CONNECT__COMMAND__COMMAND_TYPE_EXTENSION)
		snprintf(what, sizeof(what), "extension");
	else {
		if (cmd->base.n_unknown_fields > 0)
			tag = cmd->base.unknown_fields[0].tag;
		if (tag > 0 &&
		    tag < sizeof(command_names) / sizeof(command_names[0]))
			snprintf(what, sizeof(what), "%s", command_names[tag]);
		else if (tag > 0)
			snprintf(what, sizeof(what), "field %u", tag);
		else
			snprintf(what, sizeof(what), "(none)");
	}
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.COMMAND", "0A000",
	    "The feature is not supported: the command %s; sc-serve runs "
	    "sql_command and create_dataframe_view.",
	    what);
}

static int
run_command(struct run *r, struct sc_engine_conn *conn,
    const Spark__Connect__Command *cmd, struct sc_error *err)
{
	Spark__Connect__ExecutePlanResponse resp =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
	Spark__Connect__ExecutePlanResponse__SqlCommandResult res =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__SQL_COMMAND_RESULT__INIT;
	Spark__Connect__Relation *rel = NULL;
	int64_t changes;
	int rc;

	if (cmd->command_type_case ==
		SPARK__CONNECT__COMMAND__COMMAND_TYPE_CREATE_DATAFRAME_VIEW &&
	    cmd->create_dataframe_view != NULL) {
		const Spark__Connect__CreateDataFrameViewCommand *v =
		    cmd->create_dataframe_view;

		if (sc_engine_create_view(conn, v->input, v->name, v->is_global,
			v->replace, sc_exec_op_cancel_flag(r->op), err) == -1)
			return -1;
		if (emit_metrics(r, "SQLiteCommand", -1) == -1) {
			if (err != NULL)
				*err = r->err;
			return -1;
		}
		return 0;
	}
	if (cmd->command_type_case !=
		SPARK__CONNECT__COMMAND__COMMAND_TYPE_SQL_COMMAND ||
	    cmd->sql_command == NULL)
		return unsupported_command(cmd, err);
	changes = sc_engine_total_changes(conn);
	rc = sc_engine_sql_command_cancelable(conn, cmd->sql_command, &rel,
	    sc_exec_op_cancel_flag(r->op), err);
	if (rc == -1)
		return -1;
	/* Rows changed: those of the last statement that changed any. */
	changes = sc_engine_total_changes(conn) > changes
	    ? sc_engine_last_changes(conn)
	    : 0;
	res.relation = rel;
	resp.response_type_case =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_SQL_COMMAND_RESULT;
	resp.sql_command_result = &res;
	rc = emit(r, &resp);
	sc_engine_relation_free(rel);
	if (rc == 0)
		rc = emit_metrics(r, "SQLiteCommand", changes);
	if (rc == -1 && err != NULL)
		*err = r->err;
	return rc;
}

int
sc_exec_run_engine(struct sc_exec_op *op, const Spark__Connect__Plan *plan,
    void *arg, struct sc_error *err)
{
	struct sc_session *s = sc_exec_op_session(op);
	struct run r;

	(void)arg;
	memset(&r, 0, sizeof(r));
	r.op = op;
	if (plan == NULL ||
	    plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE__NOT_SET ||
	    (plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_ROOT &&
		plan->root == NULL) ||
	    (plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_COMMAND &&
		plan->command == NULL))
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The plan has neither a root relation nor a command.");
	if (s->conn == NULL)
		return sc_srv_error(err, "INTERNAL_ERROR", "XX000",
		    "The session has no engine connection.");
	if (plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_ROOT)
		return run_root(&r, s->conn, plan->root, err);
	return run_command(&r, s->conn, plan->command, err);
}
