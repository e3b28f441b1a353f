/* SPDX-License-Identifier: MIT */

/*
 * plan.c: building the spark.connect.Plan messages a client sends.
 *
 * A built plan is one allocation holding every message of its small
 * tree, pointing at each other; a parsed or adopted plan owns the
 * unpacked message it points into.
 */

#include "core/plan.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/protocol.h"
#include "core/xmem.h"
#include "core/banned.h"

struct sc_plan {
	Spark__Connect__Plan *msg; /* the plan sent: &plan, or in owned */
	ProtobufCMessage *owned; /* unpacked message freed with the plan */
	char *text; /* the SQL, owned */
	Spark__Connect__Plan plan;
	Spark__Connect__Relation rel;
	Spark__Connect__SQL sql;
	Spark__Connect__Range range;
	Spark__Connect__SqlCommand sqlcmd;
	Spark__Connect__Command cmd;
};

static struct sc_plan *
plan_new(void)
{
	struct sc_plan *p;

	p = sc_xcalloc(1, sizeof(*p));
	spark__connect__plan__init(&p->plan);
	spark__connect__relation__init(&p->rel);
	spark__connect__sql__init(&p->sql);
	spark__connect__range__init(&p->range);
	spark__connect__sql_command__init(&p->sqlcmd);
	spark__connect__command__init(&p->cmd);
	p->msg = &p->plan;
	return p;
}

/* Relation{sql{query: p->text}} in p->rel. */
static void
sql_relation(struct sc_plan *p)
{
	p->sql.query = p->text;
	p->rel.rel_type_case = SC_REL_(SQL);
	p->rel.sql = &p->sql;
}

struct sc_plan *
sc_plan_sql_command(const char *stmt)
{
	struct sc_plan *p = plan_new();

	p->text = sc_xstrdup(stmt);
	sql_relation(p);
	p->sqlcmd.sql = p->text; /* Spark 3.5 */
	p->sqlcmd.input = &p->rel; /* Spark 4.x */
	p->cmd.command_type_case = SC_CMD_(SQL_COMMAND);
	p->cmd.sql_command = &p->sqlcmd;
	p->plan.op_type_case = SC_PLAN_(COMMAND);
	p->plan.command = &p->cmd;
	return p;
}

struct sc_plan *
sc_plan_sql(const char *stmt)
{
	struct sc_plan *p = plan_new();

	p->text = sc_xstrdup(stmt);
	sql_relation(p);
	p->plan.op_type_case = SC_PLAN_(ROOT);
	p->plan.root = &p->rel;
	return p;
}

struct sc_plan *
sc_plan_range(int64_t start, int64_t end, int64_t step)
{
	struct sc_plan *p = plan_new();

	p->range._start_case = SPARK__CONNECT__RANGE___START_START;
	p->range.start = start;
	p->range.end = end;
	p->range.step = step;
	p->rel.rel_type_case = SC_REL_(RANGE);
	p->rel.range = &p->range;
	p->plan.op_type_case = SC_PLAN_(ROOT);
	p->plan.root = &p->rel;
	return p;
}

struct sc_plan *
sc_plan_parse(const void *bytes, size_t n, const char *what,
    struct sc_error *err)
{
	Spark__Connect__Plan *m;
	struct sc_plan *p;

	m = sc_proto_unpack(&spark__connect__plan__descriptor, bytes, n, NULL);
	if (m == NULL ||
	    (m->op_type_case == SC_PLAN_(ROOT) && m->root == NULL) ||
	    (m->op_type_case == SC_PLAN_(COMMAND) && m->command == NULL) ||
	    m->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE__NOT_SET) {
		if (m != NULL)
			protobuf_c_message_free_unpacked(&m->base, NULL);
		sc_error_set(err, SC_ST_USAGE,
		    "'%s' is not a serialized spark.connect.Plan", what);
		return NULL;
	}
	p = plan_new();
	p->msg = m;
	p->owned = &m->base;
	return p;
}

struct sc_plan *
sc_plan_adopt_relation(ProtobufCMessage *owner, ProtobufCMessage *rel)
{
	struct sc_plan *p;

	if (rel->descriptor != &spark__connect__relation__descriptor)
		SC_BUG("a %s is not a Relation", rel->descriptor->name);
	p = plan_new();
	p->owned = owner;
	p->plan.op_type_case = SC_PLAN_(ROOT);
	p->plan.root = (Spark__Connect__Relation *)rel;
	return p;
}

void
sc_plan_free(struct sc_plan *p)
{
	if (p == NULL)
		return;
	if (p->owned != NULL)
		protobuf_c_message_free_unpacked(p->owned, NULL);
	free(p->text);
	free(p);
}

bool
sc_plan_is_sql_command(const struct sc_plan *p)
{
	return p->msg->op_type_case == SC_PLAN_(COMMAND) &&
	    p->msg->command != NULL &&
	    p->msg->command->command_type_case == SC_CMD_(SQL_COMMAND);
}

bool
sc_plan_local_rows(const struct sc_plan *p, const void **data, size_t *len)
{
	const Spark__Connect__Relation *rel = p->msg->root;
	const Spark__Connect__LocalRelation *lr;

	if (p->msg->op_type_case != SC_PLAN_(ROOT) || rel == NULL ||
	    rel->rel_type_case != SC_REL_(LOCAL_RELATION))
		return false;
	lr = rel->local_relation;
	if (lr->_data_case != SPARK__CONNECT__LOCAL_RELATION___DATA_DATA ||
	    lr->data.len == 0)
		return false;
	if (data != NULL)
		*data = lr->data.data;
	if (len != NULL)
		*len = lr->data.len;
	return true;
}

void
sc_plan_attach(const struct sc_plan *p, ProtobufCMessage *m)
{
	sc_proto_set_message(m, "plan", &p->msg->base);
}
