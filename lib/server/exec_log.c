/* SPDX-License-Identifier: MIT */

/*
 * exec_log.c: the start and end lines of every operation (exec_log.h).  The
 * text form keeps the server's prose; the JSON form carries the same
 * values as named fields.
 */

#include "server/exec_log.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/digest.h"
#include "core/log.h"
#include "core/protocol.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "server/metrics.h"
#include "server/session.h"
#include "core/banned.h"

/* The SQL text a plan carries, or NULL. */
static const char *
plan_sql(const Spark__Connect__Plan *plan)
{
	const Spark__Connect__Command *c;
	const Spark__Connect__Relation *r;

	if (plan == NULL)
		return NULL;
	if (plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_COMMAND &&
	    (c = plan->command) != NULL &&
	    c->command_type_case ==
		SPARK__CONNECT__COMMAND__COMMAND_TYPE_SQL_COMMAND &&
	    c->sql_command != NULL && c->sql_command->sql != NULL &&
	    c->sql_command->sql[0] != '\0')
		return c->sql_command->sql;
	if (plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_ROOT &&
	    (r = plan->root) != NULL &&
	    r->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_SQL &&
	    r->sql != NULL && r->sql->query != NULL)
		return r->sql->query;
	return NULL;
}

void
sc_exec_log_digest(const Spark__Connect__Plan *plan, const void *packed,
    size_t len, char *out)
{
	char hex[129];
	const char *sql = plan_sql(plan);

	out[0] = '\0';
	if (sql != NULL) {
		packed = sql;
		len = strlen(sql);
	} else if (packed == NULL)
		return;
	if (sc_digest_hex("sha256", packed, len, hex) < 16)
		return;
	memcpy(out, hex, 16);
	out[16] = '\0';
}

void
sc_exec_log_start(const struct sc_exec_op *op)
{
	const struct sc_log_field f[] = {
		SC_LOG_STR("operation_id", op->id),
		SC_LOG_STR("session_id", op->sess->session_id),
		SC_LOG_STR("user_id", op->sess->user_id),
		SC_LOG_STR("client", op->peer),
		SC_LOG_NUM("reattachable", op->reattachable ? 1 : 0),
		SC_LOG_NUM("tags", op->ntags),
		SC_LOG_STR("digest", op->digest),
		SC_LOG_STR("statement", op->statement),
	};

	if (sc_log_level < SC_LOG_INFO)
		return;
	sc_log_event(SC_LOG_INFO, "operation_start", f, SC_NELEM(f),
	    "operation %s started: session %s user '%s'%s, %zu tags, client %s, digest %s, statement '%s'",
	    op->id, op->sess->session_id, op->sess->user_id,
	    op->reattachable ? ", reattachable" : "", op->ntags, op->peer,
	    op->digest, op->statement);
}

/* What became of op, as the end line names it. */
static const char *
outcome(const struct sc_exec_op *op, enum close_how how)
{
	switch (op->state) {
	case SC_EXEC_FAILED:
		return "failed";
	case SC_EXEC_CANCELED:
		return "canceled";
	default:
		break;
	}
	if (how == CLOSE_ABANDONED)
		return "abandoned";
	if (op->state == SC_EXEC_FINISHED)
		return "finished";
	return how == CLOSE_COMPLETED ? "released" : "canceled";
}

void
sc_exec_log_end(const struct sc_exec_op *op, enum close_how how)
{
	const char *what = outcome(op, how);
	const char *cls = "";
	int64_t ms;

	ms = sc_realtime_ms() - op->created_ms;
	if (ms < 0)
		ms = 0;
	sc_metrics_operation(ms * 1000);
	if (sc_log_level < SC_LOG_INFO)
		return;
	if (op->has_error && op->state == SC_EXEC_FAILED)
		cls = op->error.errclass[0] != '\0' ? op->error.errclass
						    : "INTERNAL";
	{
		const struct sc_log_field f[] = {
			SC_LOG_STR("operation_id", op->id),
			SC_LOG_STR("session_id", op->sess->session_id),
			SC_LOG_STR("user_id", op->sess->user_id),
			SC_LOG_STR("client", op->peer),
			SC_LOG_STR("digest", op->digest),
			SC_LOG_STR("statement", op->statement),
			SC_LOG_STR("outcome", what),
			SC_LOG_STR("error_class", cls),
			SC_LOG_NUM("rows", op->rows_sent),
			SC_LOG_NUM("bytes", op->bytes_sent),
			SC_LOG_NUM("duration_ms", ms),
		};

		sc_log_event(SC_LOG_INFO, "operation_end", f, SC_NELEM(f),
		    "operation %s ended: %s%s%s%s, session %s user '%s', client %s, digest %s, %" PRId64
		    " rows, %" PRId64 " bytes, %" PRId64 ".%03" PRId64
		    "s, statement '%s'",
		    op->id, what, cls[0] != '\0' ? " [" : "", cls,
		    cls[0] != '\0' ? "]" : "", op->sess->session_id,
		    op->sess->user_id, op->peer, op->digest, op->rows_sent,
		    op->bytes_sent, ms / 1000, ms % 1000, op->statement);
	}
}
