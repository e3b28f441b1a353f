/* SPDX-License-Identifier: MIT */

/*
 * client_calls.c: the synchronous calls of core/client.h, each one
 * sc_client_call(): build the request, call, turn the answer into plain
 * C values, free it.  (ReleaseExecute is in client.c, next to the
 * asynchronous releases that build the same request.)
 */

#include "core/client.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/plan.h"
#include "core/protocol.h"
#include "core/result.h"
#include "core/xmem.h"
#include "core/banned.h"

int
sc_client_release_session(struct sc_client *c, bool allow_reconnect,
    const struct timespec *deadline, struct sc_error *err)
{
	Spark__Connect__ReleaseSessionRequest req =
	    SPARK__CONNECT__RELEASE_SESSION_REQUEST__INIT;
	void *resp;

	req.allow_reconnect = allow_reconnect;
	if (sc_client_call(c, SC_METHOD_RELEASE_SESSION, &req.base,
		&spark__connect__release_session_response__descriptor, &resp,
		deadline, err) == -1)
		return -1;
	protobuf_c_message_free_unpacked(resp, NULL);
	return 0;
}

void
sc_client_strings_release(struct sc_client_strings *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* A copy of n strings, for an answer that is about to be freed. */
static char **
copy_strings(char *const *v, size_t n)
{
	char **out;
	size_t i;

	out = sc_xcalloc(n > 0 ? n : 1, sizeof(*out));
	for (i = 0; i < n; i++)
		out[i] = sc_xstrdup(v[i]);
	return out;
}

int
sc_client_interrupt(struct sc_client *c, enum sc_client_interrupt what,
    const char *target, struct sc_client_strings *ids,
    const struct timespec *deadline, struct sc_error *err)
{
	Spark__Connect__InterruptRequest req =
	    SPARK__CONNECT__INTERRUPT_REQUEST__INIT;
	Spark__Connect__InterruptResponse *resp;

	if (what != SC_CLIENT_INTERRUPT_ALL &&
	    (target == NULL || target[0] == '\0'))
		return sc_error_set(err, SC_ST_USAGE, "no %s to interrupt",
		    what == SC_CLIENT_INTERRUPT_TAG ? "tag" : "operation id");
	switch (what) {
	case SC_CLIENT_INTERRUPT_ALL:
		req.interrupt_type = SC_INTERRUPT_TYPE_(ALL);
		break;
	case SC_CLIENT_INTERRUPT_TAG:
		req.interrupt_type = SC_INTERRUPT_TYPE_(TAG);
		req.interrupt_case = SC_INTERRUPT_(OPERATION_TAG);
		req.operation_tag = (char *)target;
		break;
	case SC_CLIENT_INTERRUPT_OPERATION:
		req.interrupt_type = SC_INTERRUPT_TYPE_(OPERATION_ID);
		req.interrupt_case = SC_INTERRUPT_(OPERATION_ID);
		req.operation_id = (char *)target;
		break;
	default:
		return sc_error_set(err, SC_ST_USAGE,
		    "unknown kind of interrupt %d", (int)what);
	}
	if (sc_client_call(c, SC_METHOD_INTERRUPT, &req.base,
		&spark__connect__interrupt_response__descriptor, (void **)&resp,
		deadline, err) == -1)
		return -1;
	/* Interrupting one operation stops that one or none. */
	for (size_t i = 0; what == SC_CLIENT_INTERRUPT_OPERATION &&
	     i < resp->n_interrupted_ids;
	     i++)
		if (strcmp(resp->interrupted_ids[i], target) != 0) {
			sc_error_set(err, SC_ST_PROTOCOL,
			    "server says it interrupted operation '%s' when asked to interrupt '%s'",
			    resp->interrupted_ids[i], target);
			protobuf_c_message_free_unpacked(&resp->base, NULL);
			return -1;
		}
	if (ids != NULL) {
		ids->v = copy_strings(resp->interrupted_ids,
		    resp->n_interrupted_ids);
		ids->n = resp->n_interrupted_ids;
	}
	protobuf_c_message_free_unpacked(&resp->base, NULL);
	return 0;
}

/* ------------------------------------------------------------- Config */

void
sc_client_conf_release(struct sc_client_conf *conf)
{
	size_t i;

	for (i = 0; i < conf->n; i++) {
		free(conf->keys[i]);
		free(conf->values[i]);
	}
	free(conf->keys);
	free(conf->values);
	for (i = 0; i < conf->nwarnings; i++)
		free(conf->warnings[i]);
	free(conf->warnings);
	memset(conf, 0, sizeof(*conf));
}

/* The request's storage: the operation and every message it may hold. */
struct conf_msgs {
	Spark__Connect__ConfigRequest__Operation op;
	Spark__Connect__ConfigRequest__Set set;
	Spark__Connect__ConfigRequest__Get get;
	Spark__Connect__ConfigRequest__GetWithDefault get_default;
	Spark__Connect__ConfigRequest__GetOption get_option;
	Spark__Connect__ConfigRequest__GetAll get_all;
	Spark__Connect__ConfigRequest__Unset unset;
	Spark__Connect__ConfigRequest__IsModifiable is_modifiable;
	Spark__Connect__KeyValue *kv; /* n pairs */
	Spark__Connect__KeyValue **kvp;
};

/* rq's keys and values as KeyValue pairs in m (freed by the caller). */
static void
conf_pairs(struct conf_msgs *m, const struct sc_client_conf_req *rq)
{
	size_t i;

	m->kv = sc_xcalloc(rq->n > 0 ? rq->n : 1, sizeof(*m->kv));
	m->kvp = sc_xcalloc(rq->n > 0 ? rq->n : 1, sizeof(*m->kvp));
	for (i = 0; i < rq->n; i++) {
		spark__connect__key_value__init(&m->kv[i]);
		m->kv[i].key = (char *)rq->keys[i];
		if (rq->values != NULL && rq->values[i] != NULL) {
			m->kv[i]._value_case =
			    SPARK__CONNECT__KEY_VALUE___VALUE_VALUE;
			m->kv[i].value = (char *)rq->values[i];
		}
		m->kvp[i] = &m->kv[i];
	}
}

/* Fill the operation of a Config request from rq; -1 for a bad op. */
static int
conf_operation(struct conf_msgs *m, const struct sc_client_conf_req *rq,
    struct sc_error *err)
{
	Spark__Connect__ConfigRequest__Operation *op = &m->op;
	char **keys = (char **)rq->keys;

	memset(m, 0, sizeof(*m));
	spark__connect__config_request__operation__init(op);
	switch (rq->op) {
	case SC_CLIENT_CONF_SET:
		spark__connect__config_request__set__init(&m->set);
		conf_pairs(m, rq);
		m->set.n_pairs = rq->n;
		m->set.pairs = m->kvp;
		if (rq->silent) {
			m->set._silent_case =
			    SPARK__CONNECT__CONFIG_REQUEST__SET___SILENT_SILENT;
			m->set.silent = true;
		}
		op->op_type_case = SC_CONF_OP_(SET);
		op->set = &m->set;
		return 0;
	case SC_CLIENT_CONF_GET:
		spark__connect__config_request__get__init(&m->get);
		m->get.n_keys = rq->n;
		m->get.keys = keys;
		op->op_type_case = SC_CONF_OP_(GET);
		op->get = &m->get;
		return 0;
	case SC_CLIENT_CONF_GET_WITH_DEFAULT:
		spark__connect__config_request__get_with_default__init(
		    &m->get_default);
		conf_pairs(m, rq);
		m->get_default.n_pairs = rq->n;
		m->get_default.pairs = m->kvp;
		op->op_type_case = SC_CONF_OP_(GET_WITH_DEFAULT);
		op->get_with_default = &m->get_default;
		return 0;
	case SC_CLIENT_CONF_GET_OPTION:
		spark__connect__config_request__get_option__init(
		    &m->get_option);
		m->get_option.n_keys = rq->n;
		m->get_option.keys = keys;
		op->op_type_case = SC_CONF_OP_(GET_OPTION);
		op->get_option = &m->get_option;
		return 0;
	case SC_CLIENT_CONF_GET_ALL:
		spark__connect__config_request__get_all__init(&m->get_all);
		if (rq->prefix != NULL) {
			m->get_all._prefix_case =
			    SPARK__CONNECT__CONFIG_REQUEST__GET_ALL___PREFIX_PREFIX;
			m->get_all.prefix = (char *)rq->prefix;
		}
		op->op_type_case = SC_CONF_OP_(GET_ALL);
		op->get_all = &m->get_all;
		return 0;
	case SC_CLIENT_CONF_UNSET:
		spark__connect__config_request__unset__init(&m->unset);
		m->unset.n_keys = rq->n;
		m->unset.keys = keys;
		op->op_type_case = SC_CONF_OP_(UNSET);
		op->unset = &m->unset;
		return 0;
	case SC_CLIENT_CONF_IS_MODIFIABLE:
		spark__connect__config_request__is_modifiable__init(
		    &m->is_modifiable);
		m->is_modifiable.n_keys = rq->n;
		m->is_modifiable.keys = keys;
		op->op_type_case = SC_CONF_OP_(IS_MODIFIABLE);
		op->is_modifiable = &m->is_modifiable;
		return 0;
	}
	return sc_error_set(err, SC_ST_USAGE, "unknown Config operation %d",
	    (int)rq->op);
}

int
sc_client_config(struct sc_client *c, const struct sc_client_conf_req *rq,
    struct sc_client_conf *out, const struct timespec *deadline,
    struct sc_error *err)
{
	Spark__Connect__ConfigRequest req =
	    SPARK__CONNECT__CONFIG_REQUEST__INIT;
	Spark__Connect__ConfigResponse *resp;
	struct conf_msgs m;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	if (conf_operation(&m, rq, err) == -1)
		return -1;
	req.operation = &m.op;
	rc = sc_client_call(c, SC_METHOD_CONFIG, &req.base,
	    &spark__connect__config_response__descriptor, (void **)&resp,
	    deadline, err);
	free(m.kv);
	free(m.kvp);
	if (rc == -1)
		return -1;
	out->n = resp->n_pairs;
	out->keys = sc_xcalloc(out->n > 0 ? out->n : 1, sizeof(*out->keys));
	out->values = sc_xcalloc(out->n > 0 ? out->n : 1, sizeof(*out->values));
	for (i = 0; i < out->n; i++) {
		out->keys[i] = sc_xstrdup(resp->pairs[i]->key);
		if (resp->pairs[i]->_value_case ==
		    SPARK__CONNECT__KEY_VALUE___VALUE_VALUE)
			out->values[i] = sc_xstrdup(resp->pairs[i]->value);
	}
	out->warnings = copy_strings(resp->warnings, resp->n_warnings);
	out->nwarnings = resp->n_warnings;
	protobuf_c_message_free_unpacked(&resp->base, NULL);
	return 0;
}

/* ----------------------------------------------------- ArtifactStatus */

int
sc_client_artifact_status(struct sc_client *c, const char *const *names,
    size_t n, bool *exists, const struct timespec *deadline,
    struct sc_error *err)
{
	Spark__Connect__ArtifactStatusesRequest req =
	    SPARK__CONNECT__ARTIFACT_STATUSES_REQUEST__INIT;
	Spark__Connect__ArtifactStatusesResponse *resp;
	size_t i, j;

	req.n_names = n;
	req.names = (char **)names;
	if (sc_client_call(c, SC_METHOD_ARTIFACT_STATUS, &req.base,
		&spark__connect__artifact_statuses_response__descriptor,
		(void **)&resp, deadline, err) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		exists[i] = false;
		for (j = 0; j < resp->n_statuses; j++)
			if (strcmp(resp->statuses[j]->key, names[i]) == 0 &&
			    resp->statuses[j]->value != NULL)
				exists[i] = resp->statuses[j]->value->exists;
	}
	protobuf_c_message_free_unpacked(&resp->base, NULL);
	return 0;
}

/* -------------------------------------------------------- AnalyzePlan */

int
sc_client_analyze_schema(struct sc_client *c, const struct sc_plan *p,
    struct sc_result_schema **out, const struct timespec *deadline,
    struct sc_error *err)
{
	Spark__Connect__AnalyzePlanRequest req =
	    SPARK__CONNECT__ANALYZE_PLAN_REQUEST__INIT;
	Spark__Connect__AnalyzePlanRequest__Schema sch =
	    SPARK__CONNECT__ANALYZE_PLAN_REQUEST__SCHEMA__INIT;
	Spark__Connect__AnalyzePlanResponse *resp;

	sc_plan_attach(p, &sch.base);
	req.analyze_case = SC_ANALYZE_(SCHEMA);
	req.schema = &sch;
	if (sc_client_call(c, SC_METHOD_ANALYZE_PLAN, &req.base,
		&spark__connect__analyze_plan_response__descriptor,
		(void **)&resp, deadline, err) == -1)
		return -1;
	if (resp->result_case != SC_ANALYZE_RESP_(SCHEMA) ||
	    resp->schema->schema == NULL) {
		protobuf_c_message_free_unpacked(&resp->base, NULL);
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "AnalyzePlan answered without a schema");
	}
	*out = sc_result_schema_adopt(&resp->base, resp->schema->schema);
	return 0;
}
