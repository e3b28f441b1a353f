/* SPDX-License-Identifier: MIT */

/*
 * result.c: plain views of ExecutePlanResponse messages and schemas.
 */

#include "core/result.h"

#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "core/value.h"
#include "core/xmem.h"
#include "core/banned.h"

struct sc_result_schema {
	const Spark__Connect__DataType *dt;
	ProtobufCMessage *owner; /* freed with the schema, or NULL */
};

/* numAffectedRows of m's metrics, or -1. */
static int64_t
affected(const Spark__Connect__ExecutePlanResponse *m)
{
	const Spark__Connect__ExecutePlanResponse__Metrics__MetricObject *o;
	size_t i, k;

	for (i = 0; m->metrics != NULL && i < m->metrics->n_metrics; i++) {
		o = m->metrics->metrics[i];
		for (k = 0; k < o->n_execution_metrics; k++)
			if (o->execution_metrics[k]->key != NULL &&
			    strcmp(o->execution_metrics[k]->key,
				"numAffectedRows") == 0 &&
			    o->execution_metrics[k]->value != NULL)
				return o->execution_metrics[k]->value->value;
	}
	return -1;
}

void
sc_result_init(struct sc_result *r, Spark__Connect__ExecutePlanResponse *m)
{
	const Spark__Connect__ExecutePlanResponse__ExecutionProgress *ep;
	const Spark__Connect__ExecutePlanResponse__ArrowBatch *b;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->msg = m;
	r->affected = affected(m);
	if (m->response_id != NULL && m->response_id[0] != '\0')
		r->response_id = m->response_id;
	switch (m->response_type_case) {
	case SC_EXEC_RESP_(ARROW_BATCH):
		b = m->arrow_batch;
		r->kind = SC_RESULT_ARROW;
		r->arrow.data = b->data.data;
		r->arrow.len = b->data.len;
		r->arrow.rows = b->row_count;
		r->arrow.has_start_offset = b->_start_offset_case ==
		    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH___START_OFFSET_START_OFFSET;
		r->arrow.start_offset = b->start_offset;
		return;
	case SC_EXEC_RESP_(SQL_COMMAND_RESULT):
		r->kind = SC_RESULT_SQL;
		return;
	case SC_EXEC_RESP_(EXECUTION_PROGRESS):
		ep = m->execution_progress;
		r->kind = SC_RESULT_PROGRESS;
		r->progress.stages = (int64_t)ep->n_stages;
		for (i = 0; i < ep->n_stages; i++) {
			r->progress.stages_done += ep->stages[i]->done ? 1 : 0;
			r->progress.tasks += ep->stages[i]->num_tasks;
			r->progress.tasks_done +=
			    ep->stages[i]->num_completed_tasks;
		}
		r->progress.inflight = ep->num_inflight_tasks;
		return;
	default:
		/* The schema rides along with a response of its own. */
		if (m->schema != NULL) {
			r->kind = SC_RESULT_SCHEMA;
			r->schema = sc_xcalloc(1, sizeof(*r->schema));
			r->schema->dt = m->schema;
		}
		return;
	}
}

void
sc_result_release(struct sc_result *r)
{
	free(r->schema);
	if (r->msg != NULL)
		protobuf_c_message_free_unpacked(&r->msg->base, NULL);
	memset(r, 0, sizeof(*r));
}

struct sc_plan *
sc_result_take_relation(struct sc_result *r)
{
	Spark__Connect__Relation *rel;
	struct sc_plan *p;

	if (r->kind != SC_RESULT_SQL || r->msg == NULL ||
	    r->msg->sql_command_result == NULL ||
	    (rel = r->msg->sql_command_result->relation) == NULL)
		return NULL;
	p = sc_plan_adopt_relation(&r->msg->base, &rel->base);
	r->msg = NULL;
	sc_result_release(r);
	return p;
}

/* ------------------------------------------------------------ schemas */

struct sc_result_schema *
sc_result_schema_adopt(ProtobufCMessage *owner,
    const Spark__Connect__DataType *dt)
{
	struct sc_result_schema *s;

	s = sc_xcalloc(1, sizeof(*s));
	s->dt = dt;
	s->owner = owner;
	return s;
}

void
sc_result_schema_free(struct sc_result_schema *s)
{
	if (s == NULL)
		return;
	if (s->owner != NULL)
		protobuf_c_message_free_unpacked(s->owner, NULL);
	free(s);
}

static const Spark__Connect__DataType__StructField *
field(const struct sc_result_schema *s, size_t i)
{
	if (s->dt->kind_case != SC_DT_(STRUCT) || i >= s->dt->struct_->n_fields)
		return NULL;
	return s->dt->struct_->fields[i];
}

size_t
sc_result_schema_ncols(const struct sc_result_schema *s)
{
	return s->dt->kind_case == SC_DT_(STRUCT) ? s->dt->struct_->n_fields
						  : 1;
}

const char *
sc_result_schema_name(const struct sc_result_schema *s, size_t i)
{
	const Spark__Connect__DataType__StructField *f = field(s, i);

	return f != NULL ? f->name : "value";
}

bool
sc_result_schema_nullable(const struct sc_result_schema *s, size_t i)
{
	const Spark__Connect__DataType__StructField *f = field(s, i);

	return f == NULL || f->nullable;
}

int
sc_result_schema_type_name(const struct sc_result_schema *s, size_t i,
    struct sc_buf *out, struct sc_error *err)
{
	const Spark__Connect__DataType__StructField *f = field(s, i);

	return sc_value_datatype_name(f != NULL ? f->data_type : s->dt,
	    SC_VALUE_SIMPLE, out, err);
}
