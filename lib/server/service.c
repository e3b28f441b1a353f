/* SPDX-License-Identifier: MIT */

/*
 * service.c: the ten methods of spark.connect.SparkConnectService.  Each
 * handler checks the bearer token, decodes the request, looks the
 * session up and answers; operations are delegated to exec.h, plans to
 * the engine, artifacts to artifact.h.  Handlers run on completion-queue
 * threads and do not block: AnalyzePlan requests that touch the engine,
 * and AddArtifacts calls, run on a thread of their own.
 */

#include "server/service.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/log.h"
#include "core/protocol.h"
#include "core/rpc_server.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "server/admin.h"
#include "server/artifact.h"
#include "server/engine.h"
#include "server/exec.h"
#include "server/session.h"
#include "core/banned.h"

/* The request's optional fields, NULL when absent. */
#define OBSERVED(r)                                             \
	((r)->_client_observed_server_side_session_id_case != 0 \
		? (r)->client_observed_server_side_session_id   \
		: NULL)
#define USER(r) ((r)->user_context != NULL ? (r)->user_context->user_id : "")

/* Settings a client may read but not change, besides the server's. */
static const struct {
	const char *key;
	const char *value;
} builtins[] = {
	{ "spark.app.name", "sc-serve" },
	{ "spark.sql.session.timeZone", "UTC" },
};

/* Keys Spark Connect warns about (SparkConnectConfigHandler). */
static const char *const unsupported_keys[] = {
	"spark.sql.execution.arrow.enabled",
	"spark.sql.execution.arrow.pyspark.fallback.enabled",
};

/* AnalyzePlan threads still running, so shutdown can wait for them. */
static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t jobs_cv = PTHREAD_COND_INITIALIZER;
static int jobs;

/* ------------------------------------------------------------ helpers */

static bool
has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Compare without an early exit, so timing does not reveal the token. */
static bool
same_secret(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, n;
	volatile unsigned char diff = la != lb;

	n = la > lb ? la : lb;
	for (i = 0; i < n; i++)
		diff |=
		    (unsigned char)((i < la ? a[i] : 0) ^ (i < lb ? b[i] : 0));
	return diff == 0;
}

/* Check the bearer token; on failure the call is finished. */
static bool
authorized(struct sc_server *srv, struct sc_rpc_call *call)
{
	char got[512], want[sizeof(srv->conf.token) + 8];
	bool ok;

	if (srv->conf.token[0] == '\0')
		return true;
	if (sc_rpc_call_metadata(call, "authorization", got, sizeof(got)) ==
	    -1) {
		sc_rpc_call_finish(call, SC_GRPC_UNAUTHENTICATED,
		    "No authentication token provided", NULL, 0);
		return false;
	}
	snprintf(want, sizeof(want), "Bearer %s", srv->conf.token);
	ok = same_secret(got, want);
	explicit_bzero(got, sizeof(got));
	explicit_bzero(want, sizeof(want));
	if (!ok) {
		sc_debug("bad token from %s", sc_rpc_call_peer(call));
		sc_rpc_call_finish(call, SC_GRPC_UNAUTHENTICATED,
		    "Invalid authentication token", NULL, 0);
	}
	return ok;
}

/* Unpack the request; on failure the call is finished INVALID_ARGUMENT. */
static void *
decode(struct sc_rpc_call *call, const ProtobufCMessageDescriptor *d)
{
	struct sc_error err;
	const uint8_t *p;
	size_t len;
	void *m;

	p = sc_rpc_call_request(call, &len);
	if ((m = sc_proto_unpack(d, p, len, &err)) == NULL)
		sc_rpc_call_finish(call, SC_GRPC_INVALID_ARGUMENT, err.msg,
		    NULL, 0);
	return m;
}

static void
reply(struct sc_rpc_call *call, const ProtobufCMessage *m)
{
	uint8_t *buf;
	size_t len;

	buf = sc_proto_pack_alloc(m, &len);
	sc_rpc_call_reply(call, buf, len);
	free(buf);
}

static void
free_msg(void *m)
{
	if (m != NULL)
		protobuf_c_message_free_unpacked(m, NULL);
}

/* Look the session up; on failure the call is finished. */
static struct sc_session *
session(struct sc_server *srv, struct sc_rpc_call *call, const char *user,
    const char *sid, const char *observed, enum sc_sess_lookup how)
{
	struct sc_session *s;
	struct sc_error err;

	s = sc_sessmgr_get(srv->sessions, user, sid, observed, how, &err);
	if (s == NULL) {
		sc_debug("session '%s': %s", sid, err.msg);
		sc_srv_finish_error(call, NULL, &err);
	}
	return s;
}

/* An INTERNAL error without an error class (Spark's plain exceptions). */
static int __attribute__((format(printf, 2, 3)))
plain_error(struct sc_error *err, const char *fmt, ...)
{
	char text[sizeof(err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	sc_error_set(err, SC_ST_FAILED, "%s", text);
	err->rpc_code = SC_GRPC_INTERNAL;
	return -1;
}

/* ------------------------------------------------------------ operations */

static void
h_execute(struct sc_rpc_call *call, void *arg)
{
	struct sc_server *srv = arg;
	Spark__Connect__ExecutePlanRequest *req;
	struct sc_session *s;
	struct sc_error err;

	if (!authorized(srv, call) ||
	    (req = decode(call,
		 &spark__connect__execute_plan_request__descriptor)) == NULL)
		return;
	s = session(srv, call, USER(req), req->session_id, OBSERVED(req),
	    SC_SESS_GET_OR_CREATE);
	if (s == NULL) {
		free_msg(req);
		return;
	}
	/* A session's engine connection is opened by its first execution. */
	if (srv->engine != NULL && sc_session_conn(s, &err) == NULL)
		sc_srv_finish_error(call, s, &err);
	else
		sc_exec_execute(srv->execs, s, call, req);
	sc_session_unref(s);
	free_msg(req);
}

static void
h_reattach(struct sc_rpc_call *call, void *arg)
{
	struct sc_server *srv = arg;
	Spark__Connect__ReattachExecuteRequest *req;
	struct sc_session *s;

	if (!authorized(srv, call) ||
	    (req = decode(call,
		 &spark__connect__reattach_execute_request__descriptor)) ==
		NULL)
		return;
	s = session(srv, call, USER(req), req->session_id, OBSERVED(req),
	    SC_SESS_GET_ONLY);
	if (s != NULL) {
		sc_exec_reattach(srv->execs, s, call, req);
		sc_session_unref(s);
	}
	free_msg(req);
}

static void
h_release_execute(struct sc_rpc_call *call, void *arg)
{
	struct sc_server *srv = arg;
	Spark__Connect__ReleaseExecuteRequest *req;
	Spark__Connect__ReleaseExecuteResponse resp =
	    SPARK__CONNECT__RELEASE_EXECUTE_RESPONSE__INIT;
	struct sc_session *s;
	struct sc_error err;
	bool found;

	if (!authorized(srv, call) ||
	    (req = decode(call,
		 &spark__connect__release_execute_request__descriptor)) == NULL)
		return;
	/* As Spark: the observed server-side session id is not checked. */
	s = session(srv, call, USER(req), req->session_id, NULL,
	    SC_SESS_GET_ONLY);
	if (s == NULL) {
		free_msg(req);
		return;
	}
	if (sc_exec_release(srv->execs, s, req, &found, &err) == -1)
		sc_srv_finish_error(call, s, &err);
	else {
		resp.session_id = req->session_id;
		resp.server_side_session_id = s->server_side_id;
		if (found) {
			resp._operation_id_case =
			    SPARK__CONNECT__RELEASE_EXECUTE_RESPONSE___OPERATION_ID_OPERATION_ID;
			resp.operation_id = req->operation_id;
		}
		reply(call, &resp.base);
	}
	sc_session_unref(s);
	free_msg(req);
}

static void
h_interrupt(struct sc_rpc_call *call, void *arg)
{
	struct sc_server *srv = arg;
	Spark__Connect__InterruptRequest *req;
	Spark__Connect__InterruptResponse resp =
	    SPARK__CONNECT__INTERRUPT_RESPONSE__INIT;
	struct sc_session *s;
	struct sc_error err;
	const char *target = NULL;
	char **ids = NULL;
	size_t nids = 0, i;

	if (!authorized(srv, call) ||
	    (req = decode(call,
		 &spark__connect__interrupt_request__descriptor)) == NULL)
		return;
	s = session(srv, call, USER(req), req->session_id, OBSERVED(req),
	    SC_SESS_GET_OR_CREATE);
	if (s == NULL) {
		free_msg(req);
		return;
	}
	if (req->interrupt_type ==
		SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_TYPE__INTERRUPT_TYPE_TAG &&
	    req->interrupt_case ==
		SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_OPERATION_TAG)
		target = req->operation_tag;
	if (req->interrupt_type ==
		SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_TYPE__INTERRUPT_TYPE_OPERATION_ID &&
	    req->interrupt_case ==
		SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_OPERATION_ID)
		target = req->operation_id;
	if (sc_exec_interrupt(srv->execs, s, (int)req->interrupt_type, target,
		&ids, &nids, &err) == -1)
		sc_srv_finish_error(call, s, &err);
	else {
		resp.session_id = req->session_id;
		resp.server_side_session_id = s->server_side_id;
		resp.n_interrupted_ids = nids;
		resp.interrupted_ids = ids;
		reply(call, &resp.base);
	}
	for (i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
	sc_session_unref(s);
	free_msg(req);
}

/* ------------------------------------------------------------ Config */

/* Response pairs and warnings, all malloc'ed. */
struct conf_out {
	Spark__Connect__KeyValue **pairs;
	size_t npairs;
	size_t pairs_cap;
	char **warnings;
	size_t nwarnings;
	size_t warnings_cap;
};

/* Make room for one more element in the array v (n used of cap). */
#define GROW(v, n, cap)                                                   \
	do {                                                              \
		if ((n) >= (cap)) {                                       \
			(cap) = (cap) ? (cap)*2 : 16;                     \
			(v) = sc_xreallocarray((v), (cap), sizeof(*(v))); \
		}                                                         \
	} while (0)

static void
out_pair(struct conf_out *o, const char *key, const char *value)
{
	Spark__Connect__KeyValue *kv;

	kv = sc_xmalloc(sizeof(*kv));
	spark__connect__key_value__init(kv);
	kv->key = sc_xstrdup(key);
	if (value != NULL) {
		kv->_value_case = SPARK__CONNECT__KEY_VALUE___VALUE_VALUE;
		kv->value = sc_xstrdup(value);
	}
	GROW(o->pairs, o->npairs, o->pairs_cap);
	o->pairs[o->npairs++] = kv;
}

static void
out_warning(struct conf_out *o, char *text)
{
	GROW(o->warnings, o->nwarnings, o->warnings_cap);
	o->warnings[o->nwarnings++] = text;
}

static void
out_free(struct conf_out *o)
{
	size_t i;

	for (i = 0; i < o->npairs; i++) {
		free(o->pairs[i]->key);
		if (o->pairs[i]->_value_case != 0)
			free(o->pairs[i]->value);
		free(o->pairs[i]);
	}
	free(o->pairs);
	for (i = 0; i < o->nwarnings; i++)
		free(o->warnings[i]);
	free(o->warnings);
}

static void
warn_key(struct conf_out *o, const char *key)
{
	size_t i;

	for (i = 0; i < SC_NELEM(unsupported_keys); i++)
		if (strcmp(key, unsupported_keys[i]) == 0)
			out_warning(o,
			    sc_xasprintf("The SQL config '%s' is "
					 "NOT supported in Spark Connect",
				key));
}

/* The value of key for session s (malloc'ed), or NULL when unset. */
static char *
conf_value(struct sc_session *s, const char *key)
{
	char buf[128], *v;
	size_t i;

	if ((v = sc_session_conf_get(s, key)) != NULL)
		return v;
	if (sc_server_conf_get(s->conf, key, buf, sizeof(buf)) == 0)
		return sc_xstrdup(buf);
	for (i = 0; i < SC_NELEM(builtins); i++)
		if (strcmp(key, builtins[i].key) == 0)
			return sc_xstrdup(builtins[i].value);
	return NULL;
}

/* Whether key names a server-wide setting a session may not change. */
static bool
is_static(struct sc_session *s, const char *key)
{
	char buf[128];
	size_t i;

	if (has_prefix(key, "spark.connect.") || has_prefix(key, "sctk."))
		return true;
	if (sc_server_conf_get(s->conf, key, buf, sizeof(buf)) == 0)
		return true;
	for (i = 0; i < SC_NELEM(builtins); i++)
		if (strcmp(key, builtins[i].key) == 0)
			return true;
	return false;
}

static int
cannot_modify(struct sc_error *err, const char *key)
{
	return sc_srv_error(err, "CANNOT_MODIFY_CONFIG", "46110",
	    "Cannot modify the value of the Spark config: \"%s\".", key);
}

/*
 * Set: as Spark, pairs are set in order up to the first error, which
 * silent turns into a warning.  The pairs that can be set go to the
 * session in one batch, so a batch that would pass a session limit
 * (SESSION_CONF_LIMIT_EXCEEDED, even when silent) sets nothing.
 */
static int
conf_set(struct sc_session *s, const Spark__Connect__ConfigRequest__Set *op,
    struct conf_out *o, struct sc_error *err)
{
	const Spark__Connect__KeyValue *kv;
	const char **keys, **values;
	struct sc_error e;
	size_t i, n = 0;
	bool silent, failed = false;
	int rc;

	if (sc_session_conf_check_count(s->conf, op->n_pairs, err) == -1)
		return -1;
	silent = op->_silent_case != 0 && op->silent;
	keys = sc_xcalloc(op->n_pairs ? op->n_pairs : 1, sizeof(*keys));
	values = sc_xcalloc(op->n_pairs ? op->n_pairs : 1, sizeof(*values));
	for (i = 0; i < op->n_pairs && !failed; i++) {
		kv = op->pairs[i];
		warn_key(o, kv->key);
		if (kv->_value_case == 0)
			plain_error(&e, "value cannot be null for key: %s",
			    kv->key);
		else if (is_static(s, kv->key))
			cannot_modify(&e, kv->key);
		else {
			keys[n] = kv->key;
			values[n++] = kv->value;
			continue;
		}
		if (!silent)
			failed = true;
		else
			out_warning(o,
			    sc_xasprintf("Failed to set %s to %s due to %s",
				kv->key,
				kv->_value_case != 0 ? kv->value : "null",
				e.msg));
	}
	rc = sc_session_conf_set_many(s, keys, values, n, err);
	free(keys);
	free(values);
	if (rc == 0 && failed) {
		*err = e;
		rc = -1;
	}
	return rc;
}

static int
conf_get(struct sc_session *s, char **keys, size_t n, bool option,
    struct conf_out *o, struct sc_error *err)
{
	char *v;
	size_t i;

	if (sc_session_conf_check_count(s->conf, n, err) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		warn_key(o, keys[i]);
		v = conf_value(s, keys[i]);
		if (v == NULL && !option)
			return sc_srv_error(err, "SQL_CONF_NOT_FOUND", "42K0I",
			    "The SQL config \"%s\" cannot be found. Please "
			    "verify that the config exists.",
			    keys[i]);
		out_pair(o, keys[i], v);
		free(v);
	}
	return 0;
}

static int
conf_get_default(struct sc_session *s,
    const Spark__Connect__ConfigRequest__GetWithDefault *op, struct conf_out *o,
    struct sc_error *err)
{
	const Spark__Connect__KeyValue *kv;
	char *v;
	size_t i;

	if (sc_session_conf_check_count(s->conf, op->n_pairs, err) == -1)
		return -1;
	for (i = 0; i < op->n_pairs; i++) {
		kv = op->pairs[i];
		warn_key(o, kv->key);
		v = conf_value(s, kv->key);
		out_pair(o, kv->key,
		    v != NULL		       ? v
			: kv->_value_case != 0 ? kv->value
					       : NULL);
		free(v);
	}
	return 0;
}

/*
 * GetAll collects every visible setting with the rank of its source
 * (built-in, server, session: a later source overrides), sorts by key and
 * rank and keeps the last entry of each key: O(n log n).
 */
struct all_entry {
	char *key; /* without the prefix */
	char *value;
	int rank;
};

struct all {
	struct all_entry *v;
	size_t n;
	size_t cap;
	const char *prefix;
	int rank;
};

static void
all_add(const char *key, const char *value, void *arg)
{
	struct all *a = arg;

	if (!has_prefix(key, a->prefix))
		return;
	GROW(a->v, a->n, a->cap);
	a->v[a->n].key = sc_xstrdup(key + strlen(a->prefix));
	a->v[a->n].value = sc_xstrdup(value);
	a->v[a->n].rank = a->rank;
	a->n++;
}

static int
cmp_entry(const void *a, const void *b)
{
	const struct all_entry *x = a, *y = b;
	int r = strcmp(x->key, y->key);

	return r != 0 ? r : x->rank - y->rank;
}

static void
conf_get_all(struct sc_session *s,
    const Spark__Connect__ConfigRequest__GetAll *op, struct conf_out *o)
{
	struct all a;
	size_t i;

	memset(&a, 0, sizeof(a));
	a.prefix = op->_prefix_case != 0 ? op->prefix : "";
	for (i = 0; i < SC_NELEM(builtins); i++)
		all_add(builtins[i].key, builtins[i].value, &a);
	a.rank = 1;
	sc_server_conf_each(s->conf, all_add, &a);
	a.rank = 2;
	sc_session_conf_each(s, all_add, &a);
	if (a.n > 1)
		qsort(a.v, a.n, sizeof(*a.v), cmp_entry);
	for (i = 0; i < a.n; i++) {
		if (i + 1 == a.n || strcmp(a.v[i].key, a.v[i + 1].key) != 0)
			out_pair(o, a.v[i].key, a.v[i].value);
		free(a.v[i].key);
		free(a.v[i].value);
	}
	free(a.v);
}

static int
conf_unset(struct sc_session *s, char **keys, size_t n, struct conf_out *o,
    struct sc_error *err)
{
	size_t i;

	if (sc_session_conf_check_count(s->conf, n, err) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		warn_key(o, keys[i]);
		if (is_static(s, keys[i]))
			return cannot_modify(err, keys[i]);
		sc_session_conf_unset(s, keys[i]);
	}
	return 0;
}

/*
 * Spark answers true for its registered, non-static SQL settings; sctk
 * cannot know Spark's registry, so every spark.sql.* key that is not a
 * server setting counts as a session setting.
 */
static int
conf_is_modifiable(struct sc_session *s, char **keys, size_t n,
    struct conf_out *o, struct sc_error *err)
{
	size_t i;
	bool mod;

	if (sc_session_conf_check_count(s->conf, n, err) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		mod = has_prefix(keys[i], "spark.sql.") &&
		    !is_static(s, keys[i]);
		out_pair(o, keys[i], mod ? "true" : "false");
	}
	return 0;
}

static int
config(struct sc_session *s, const Spark__Connect__ConfigRequest *req,
    struct conf_out *o, struct sc_error *err)
{
	const Spark__Connect__ConfigRequest__Operation *op = req->operation;

	switch (op != NULL
		? op->op_type_case
		: SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE__NOT_SET) {
	case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_SET:
		return conf_set(s, op->set, o, err);
	case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET:
		return conf_get(s, op->get->keys, op->get->n_keys, false, o,
		    err);
	case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET_WITH_DEFAULT:
		return conf_get_default(s, op->get_with_default, o, err);
	case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET_OPTION:
		return conf_get(s, op->get_option->keys, op->get_option->n_keys,
		    true, o, err);
	case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET_ALL:
		conf_get_all(s, op->get_all, o);
		return 0;
	case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_UNSET:
		return conf_unset(s, op->unset->keys, op->unset->n_keys, o,
		    err);
	case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_IS_MODIFIABLE:
		return conf_is_modifiable(s, op->is_modifiable->keys,
		    op->is_modifiable->n_keys, o, err);
	default:
		return plain_error(err,
		    "ConfigRequest.operation is not set or not supported");
	}
}

static void
h_config(struct sc_rpc_call *call, void *arg)
{
	struct sc_server *srv = arg;
	Spark__Connect__ConfigRequest *req;
	Spark__Connect__ConfigResponse resp =
	    SPARK__CONNECT__CONFIG_RESPONSE__INIT;
	struct sc_session *s;
	struct sc_error err;
	struct conf_out o;

	if (!authorized(srv, call) ||
	    (req = decode(call, &spark__connect__config_request__descriptor)) ==
		NULL)
		return;
	s = session(srv, call, USER(req), req->session_id, OBSERVED(req),
	    SC_SESS_GET_OR_CREATE);
	if (s == NULL) {
		free_msg(req);
		return;
	}
	memset(&o, 0, sizeof(o));
	if (config(s, req, &o, &err) == -1)
		sc_srv_finish_error(call, s, &err);
	else {
		resp.session_id = req->session_id;
		resp.server_side_session_id = s->server_side_id;
		resp.n_pairs = o.npairs;
		resp.pairs = o.pairs;
		resp.n_warnings = o.nwarnings;
		resp.warnings = o.warnings;
		reply(call, &resp.base);
	}
	out_free(&o);
	sc_session_unref(s);
	free_msg(req);
}

/* ------------------------------------------------------------ AnalyzePlan */

struct analyze_job {
	struct sc_rpc_call *call;
	struct sc_session *s;
	Spark__Connect__AnalyzePlanRequest *req;
};

static const Spark__Connect__Relation *
plan_root(const Spark__Connect__Plan *p, struct sc_session *s,
    struct sc_error *err)
{
	if (p == NULL ||
	    p->op_type_case != SPARK__CONNECT__PLAN__OP_TYPE_ROOT ||
	    p->root == NULL) {
		sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "AnalyzePlan needs a plan with a root relation.");
		return NULL;
	}
	if (sc_session_conn(s, err) == NULL)
		return NULL;
	return p->root;
}

static const char *
analyze_name(Spark__Connect__AnalyzePlanRequest__AnalyzeCase c)
{
	switch (c) {
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_INPUT_FILES:
		return "input_files";
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_DDL_PARSE:
		return "ddl_parse";
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_SAME_SEMANTICS:
		return "same_semantics";
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_SEMANTIC_HASH:
		return "semantic_hash";
	default:
		return "this request";
	}
}

static protobuf_c_boolean
is_local_plan(const Spark__Connect__Plan *p)
{
	return p != NULL &&
	    p->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_ROOT &&
	    p->root != NULL &&
	    p->root->rel_type_case ==
	    SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION;
}

/* Answer an AnalyzePlan request (may run the engine: not on a CQ thread). */
static void
analyze(struct sc_rpc_call *call, struct sc_session *s,
    const Spark__Connect__AnalyzePlanRequest *req)
{
	Spark__Connect__AnalyzePlanResponse resp =
	    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__INIT;
	Spark__Connect__AnalyzePlanResponse__Schema schema =
	    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__SCHEMA__INIT;
	Spark__Connect__AnalyzePlanResponse__Explain explain =
	    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__EXPLAIN__INIT;
	Spark__Connect__AnalyzePlanResponse__TreeString tree =
	    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__TREE_STRING__INIT;
	Spark__Connect__AnalyzePlanResponse__IsLocal local =
	    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__IS_LOCAL__INIT;
	Spark__Connect__AnalyzePlanResponse__IsStreaming streaming =
	    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__IS_STREAMING__INIT;
	Spark__Connect__AnalyzePlanResponse__SparkVersion version =
	    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__SPARK_VERSION__INIT;
	const Spark__Connect__Relation *root;
	Spark__Connect__DataType *dt = NULL;
	struct sc_error err;
	char *text = NULL;
	int rc = -1, mode;

	switch (req->analyze_case) {
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_SCHEMA:
		if ((root = plan_root(req->schema->plan, s, &err)) == NULL ||
		    (rc = sc_engine_schema(s->conn, root, &dt, &err)) == -1)
			break;
		schema.schema = dt;
		resp.result_case =
		    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_SCHEMA;
		resp.schema = &schema;
		break;
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_EXPLAIN:
		mode = (int)req->explain->explain_mode;
		if (mode == 0)
			mode = 1;
		if ((root = plan_root(req->explain->plan, s, &err)) == NULL ||
		    (rc = sc_engine_explain(s->conn, root, mode, &text,
			 &err)) == -1)
			break;
		explain.explain_string = text;
		resp.result_case =
		    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_EXPLAIN;
		resp.explain = &explain;
		break;
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_TREE_STRING:
		if ((root = plan_root(req->tree_string->plan, s, &err)) ==
			NULL ||
		    (rc = sc_engine_tree_string(s->conn, root, &text, &err)) ==
			-1)
			break;
		tree.tree_string = text;
		resp.result_case =
		    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_TREE_STRING;
		resp.tree_string = &tree;
		break;
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_IS_LOCAL:
		/* As Dataset.isLocal: the plan is a local relation. */
		local.is_local = is_local_plan(req->is_local->plan);
		resp.result_case =
		    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_IS_LOCAL;
		resp.is_local = &local;
		rc = 0;
		break;
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_IS_STREAMING:
		streaming.is_streaming = 0;
		resp.result_case =
		    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_IS_STREAMING;
		resp.is_streaming = &streaming;
		rc = 0;
		break;
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_SPARK_VERSION:
		version.version = (char *)SC_SERVICE_SPARK_VERSION;
		resp.result_case =
		    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_SPARK_VERSION;
		resp.spark_version = &version;
		rc = 0;
		break;
	default:
		sc_srv_error(&err, "UNSUPPORTED_FEATURE.ANALYZE_PLAN", "0A000",
		    "The feature is not supported: AnalyzePlan %s.",
		    analyze_name(req->analyze_case));
		break;
	}
	if (rc == -1)
		sc_srv_finish_error(call, s, &err);
	else {
		resp.session_id = req->session_id;
		resp.server_side_session_id = s->server_side_id;
		reply(call, &resp.base);
	}
	if (dt != NULL)
		sc_engine_datatype_free(dt);
	free(text);
}

static void
job_done(struct analyze_job *j)
{
	struct sc_rpc_call *call = j->call;

	sc_session_unref(j->s);
	free_msg(j->req);
	free(j);
	pthread_mutex_lock(&jobs_lock);
	if (--jobs == 0)
		pthread_cond_broadcast(&jobs_cv);
	pthread_mutex_unlock(&jobs_lock);
	sc_rpc_call_unref(call);
}

static void *
analyze_main(void *arg)
{
	struct analyze_job *j = arg;

	analyze(j->call, j->s, j->req);
	job_done(j);
	return NULL;
}

static bool
needs_engine(Spark__Connect__AnalyzePlanRequest__AnalyzeCase c)
{
	return c == SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_SCHEMA ||
	    c == SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_EXPLAIN ||
	    c == SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_TREE_STRING;
}

static void
h_analyze(struct sc_rpc_call *call, void *arg)
{
	struct sc_server *srv = arg;
	Spark__Connect__AnalyzePlanRequest *req;
	struct sc_session *s;
	struct analyze_job *j;
	pthread_attr_t attr;
	pthread_t tid;
	int rc;

	if (!authorized(srv, call) ||
	    (req = decode(call,
		 &spark__connect__analyze_plan_request__descriptor)) == NULL)
		return;
	s = session(srv, call, USER(req), req->session_id, OBSERVED(req),
	    SC_SESS_GET_OR_CREATE);
	if (s == NULL) {
		free_msg(req);
		return;
	}
	j = sc_xcalloc(1, sizeof(*j));
	j->call = call;
	j->s = s;
	j->req = req;
	sc_rpc_call_ref(call);
	pthread_mutex_lock(&jobs_lock);
	jobs++;
	pthread_mutex_unlock(&jobs_lock);
	if (!needs_engine(req->analyze_case)) {
		analyze_main(j);
		return;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&tid, &attr, analyze_main, j);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		analyze_main(j); /* no thread: answer here */
}

/* ------------------------------------------------------------ sessions */

static void
h_release_session(struct sc_rpc_call *call, void *arg)
{
	struct sc_server *srv = arg;
	Spark__Connect__ReleaseSessionRequest *req;
	Spark__Connect__ReleaseSessionResponse resp =
	    SPARK__CONNECT__RELEASE_SESSION_RESPONSE__INIT;
	char ssid[SC_UUID_STRLEN];

	if (!authorized(srv, call) ||
	    (req = decode(call,
		 &spark__connect__release_session_request__descriptor)) == NULL)
		return;
	resp.session_id = req->session_id;
	if (sc_sessmgr_release(srv->sessions, USER(req), req->session_id,
		req->allow_reconnect, ssid) == 1) {
		sc_info("session %s released%s", req->session_id,
		    req->allow_reconnect ? " (reconnect allowed)" : "");
		resp.server_side_session_id = ssid;
	}
	reply(call, &resp.base);
	free_msg(req);
}

static void
h_fetch_error_details(struct sc_rpc_call *call, void *arg)
{
	struct sc_server *srv = arg;
	Spark__Connect__FetchErrorDetailsRequest *req;
	Spark__Connect__FetchErrorDetailsResponse resp =
	    SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__INIT;
	Spark__Connect__FetchErrorDetailsResponse__Error e =
	    SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__ERROR__INIT;
	Spark__Connect__FetchErrorDetailsResponse__SparkThrowable t =
	    SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__SPARK_THROWABLE__INIT;
	Spark__Connect__FetchErrorDetailsResponse__SparkThrowable__MessageParametersEntry
	    param =
		SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__SPARK_THROWABLE__MESSAGE_PARAMETERS_ENTRY__INIT;
	Spark__Connect__FetchErrorDetailsResponse__SparkThrowable__MessageParametersEntry
	    *params[1];
	Spark__Connect__FetchErrorDetailsResponse__Error *errors[1];
	struct sc_session *s;
	struct sc_error stored;
	const char *const *classes;
	const char *pname;
	char pvalue[sizeof(stored.msg)];
	size_t n;

	if (!authorized(srv, call) ||
	    (req = decode(call,
		 &spark__connect__fetch_error_details_request__descriptor)) ==
		NULL)
		return;
	s = session(srv, call, USER(req), req->session_id, OBSERVED(req),
	    SC_SESS_GET_OR_CREATE);
	if (s == NULL) {
		free_msg(req);
		return;
	}
	resp.session_id = req->session_id;
	resp.server_side_session_id = s->server_side_id;
	if (sc_session_error_take(s, req->error_id, &stored) == 0) {
		classes = sc_srv_error_classes(&stored);
		for (n = 0; classes[n] != NULL; n++)
			;
		e.n_error_type_hierarchy = n;
		e.error_type_hierarchy = (char **)(uintptr_t)classes;
		e.message = stored.msg;
		if (stored.errclass[0] != '\0') {
			t._error_class_case =
			    SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__SPARK_THROWABLE___ERROR_CLASS_ERROR_CLASS;
			t.error_class = stored.errclass;
		}
		if (stored.sqlstate[0] != '\0') {
			t._sql_state_case =
			    SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__SPARK_THROWABLE___SQL_STATE_SQL_STATE;
			t.sql_state = stored.sqlstate;
		}
		if (sc_srv_error_param(&stored, &pname, pvalue,
			sizeof(pvalue))) {
			param.key = (char *)(uintptr_t)pname;
			param.value = pvalue;
			params[0] = &param;
			t.n_message_parameters = 1;
			t.message_parameters = params;
		}
		e._spark_throwable_case =
		    SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__ERROR___SPARK_THROWABLE_SPARK_THROWABLE;
		e.spark_throwable = &t;
		errors[0] = &e;
		resp.n_errors = 1;
		resp.errors = errors;
		resp._root_error_idx_case =
		    SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE___ROOT_ERROR_IDX_ROOT_ERROR_IDX;
		resp.root_error_idx = 0;
	}
	reply(call, &resp.base);
	sc_session_unref(s);
	free_msg(req);
}

/* ------------------------------------------------------------ artifacts */

static void
h_artifact_status(struct sc_rpc_call *call, void *arg)
{
	struct sc_server *srv = arg;
	Spark__Connect__ArtifactStatusesRequest *req;
	Spark__Connect__ArtifactStatusesResponse resp =
	    SPARK__CONNECT__ARTIFACT_STATUSES_RESPONSE__INIT;
	Spark__Connect__ArtifactStatusesResponse__ArtifactStatus no =
	    SPARK__CONNECT__ARTIFACT_STATUSES_RESPONSE__ARTIFACT_STATUS__INIT;
	Spark__Connect__ArtifactStatusesResponse__ArtifactStatus yes =
	    SPARK__CONNECT__ARTIFACT_STATUSES_RESPONSE__ARTIFACT_STATUS__INIT;
	Spark__Connect__ArtifactStatusesResponse__StatusesEntry *ents, **entp;
	struct sc_session *s;
	size_t i;

	if (!authorized(srv, call) ||
	    (req = decode(call,
		 &spark__connect__artifact_statuses_request__descriptor)) ==
		NULL)
		return;
	s = session(srv, call, USER(req), req->session_id, OBSERVED(req),
	    SC_SESS_GET_OR_CREATE);
	if (s == NULL) {
		free_msg(req);
		return;
	}
	/* As Spark: only cache/ names of this session can exist. */
	no.exists = 0;
	yes.exists = 1;
	ents = sc_xcalloc(req->n_names ? req->n_names : 1, sizeof(*ents));
	entp = sc_xcalloc(req->n_names ? req->n_names : 1, sizeof(*entp));
	for (i = 0; i < req->n_names; i++) {
		spark__connect__artifact_statuses_response__statuses_entry__init(
		    &ents[i]);
		ents[i].key = req->names[i];
		ents[i].value = srv->artifacts != NULL &&
			sc_artifact_cached(srv->artifacts, s->server_side_id,
			    req->names[i])
		    ? &yes
		    : &no;
		entp[i] = &ents[i];
	}
	resp.n_statuses = req->n_names;
	resp.statuses = entp;
	resp.session_id = req->session_id;
	resp.server_side_session_id = s->server_side_id;
	reply(call, &resp.base);
	free(ents);
	free(entp);
	sc_session_unref(s);
	free_msg(req);
}

/*
 * One AddArtifacts call.  Its messages are handled on a thread of its
 * own, since they go to disk: the read callback (on the call's
 * completion-queue thread) hands each message over, and the thread asks
 * for the next one before it handles the current, so the network and
 * the disk overlap.  One message at a time is held, whatever the size of
 * the artifacts.
 */
enum upload_in { IN_WAIT, IN_MSG, IN_EOF, IN_DEAD };

struct upload_job {
	struct sc_server *srv;
	struct sc_rpc_call *call; /* a reference */
	struct sc_session *s; /* from the first message, or NULL */
	struct sc_artifact_upload *up;
	char *session_id; /* as the first message named it */
	int64_t bytes; /* received in artifacts' data */
	int64_t touched_ms; /* when the session's idle timer was reset */

	pthread_mutex_t mu; /* everything below */
	pthread_cond_t cv;
	int refs; /* the thread's, an outstanding read's */
	enum upload_in in;
	uint8_t *buf; /* the message handed over */
	size_t len, cap;
};

/* Stack of an upload thread; it only handles one message at a time. */
#define UPLOAD_STACK (256 * 1024)
/* How often a running upload resets its session's idle timer. */
#define UPLOAD_TOUCH_MS 1000

static void
job_unref(struct upload_job *j)
{
	bool last;

	pthread_mutex_lock(&j->mu);
	last = --j->refs == 0;
	pthread_mutex_unlock(&j->mu);
	if (!last)
		return;
	pthread_cond_destroy(&j->cv);
	pthread_mutex_destroy(&j->mu);
	free(j->buf);
	free(j->session_id);
	sc_rpc_call_unref(j->call);
	free(j);
}

static void
on_upload_read(struct sc_rpc_call *call, const void *msg, size_t len, bool ok,
    void *arg)
{
	struct upload_job *j = arg;

	(void)call;
	pthread_mutex_lock(&j->mu);
	if (!ok)
		j->in = IN_DEAD;
	else if (msg == NULL)
		j->in = IN_EOF;
	else {
		if (len > j->cap) {
			free(j->buf);
			j->buf = sc_xmalloc(len);
			j->cap = len;
		}
		if (len > 0)
			memcpy(j->buf, msg, len);
		j->len = len;
		j->in = IN_MSG;
	}
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
	job_unref(j);
}

/* Ask for the next message; false when the call is gone. */
static bool
upload_read(struct upload_job *j)
{
	pthread_mutex_lock(&j->mu);
	j->refs++;
	pthread_mutex_unlock(&j->mu);
	if (sc_rpc_call_read(j->call, on_upload_read, j) == 0)
		return true;
	job_unref(j);
	return false;
}

/* Reset the idle timer of the upload's session, as any RPC does. */
static void
touch(struct upload_job *j)
{
	struct sc_session *s;
	struct sc_error err;

	s = sc_sessmgr_get(j->srv->sessions, j->s->user_id, j->s->session_id,
	    NULL, SC_SESS_GET_ONLY, &err);
	if (s != NULL)
		sc_session_unref(s);
	j->touched_ms = sc_mono_ms();
}

/* Handle one AddArtifactsRequest; -1 with err set ends the call. */
static int
upload_message(struct upload_job *j, const uint8_t *msg, size_t len,
    struct sc_error *err)
{
	Spark__Connect__AddArtifactsRequest *req;
	const Spark__Connect__AddArtifactsRequest__Batch *b;
	const Spark__Connect__AddArtifactsRequest__BeginChunkedArtifact *bc;
	const Spark__Connect__AddArtifactsRequest__ArtifactChunk *c;
	size_t i;
	int rc = 0;

	/* Names as sent: the decoded strings would end at a NUL byte. */
	if (sc_artifact_check_request(msg, len, err) == -1)
		return -1;
	req = sc_proto_unpack(
	    &spark__connect__add_artifacts_request__descriptor, msg, len, err);
	if (req == NULL) {
		err->rpc_code = SC_GRPC_INVALID_ARGUMENT;
		return -1;
	}
	if (j->s == NULL) {
		/* As Spark: the first message names the session. */
		j->s = sc_sessmgr_get(j->srv->sessions, USER(req),
		    req->session_id, OBSERVED(req), SC_SESS_GET_OR_CREATE, err);
		if (j->s == NULL ||
		    (j->up = sc_artifact_upload_new(j->srv->artifacts, j->s,
			 err)) == NULL) {
			free_msg(req);
			return -1;
		}
		j->session_id = sc_xstrdup(req->session_id);
		j->touched_ms = sc_mono_ms();
	} else if (sc_mono_ms() - j->touched_ms >= UPLOAD_TOUCH_MS) {
		/* A long upload keeps its session from expiring under it. */
		touch(j);
	}
	switch (req->payload_case) {
	case SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_BATCH:
		b = req->batch;
		for (i = 0; i < b->n_artifacts && rc == 0; i++) {
			c = b->artifacts[i]->data;
			rc = sc_artifact_upload_single(j->up,
			    b->artifacts[i]->name, c ? c->data.data : NULL,
			    c ? c->data.len : 0, c ? c->crc : 0, err);
			j->bytes += c ? (int64_t)c->data.len : 0;
		}
		break;
	case SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_BEGIN_CHUNK:
		bc = req->begin_chunk;
		c = bc->initial_chunk;
		rc = sc_artifact_upload_begin(j->up, bc->name, bc->total_bytes,
		    bc->num_chunks, c ? c->data.data : NULL,
		    c ? c->data.len : 0, c ? c->crc : 0, err);
		j->bytes += c ? (int64_t)c->data.len : 0;
		break;
	case SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_CHUNK:
		c = req->chunk;
		rc = sc_artifact_upload_chunk(j->up, c->data.data, c->data.len,
		    c->crc, err);
		j->bytes += (int64_t)c->data.len;
		break;
	default:
		rc = sc_srv_error(err, "INVALID_ARTIFACT_STREAM.NO_PAYLOAD",
		    NULL,
		    "An AddArtifactsRequest carries no batch, begin_chunk "
		    "or chunk.");
		break;
	}
	free_msg(req);
	return rc;
}

/* Half-close: commit and answer with one summary per artifact. */
static void
upload_finish(struct upload_job *j)
{
	Spark__Connect__AddArtifactsResponse resp =
	    SPARK__CONNECT__ADD_ARTIFACTS_RESPONSE__INIT;
	Spark__Connect__AddArtifactsResponse__ArtifactSummary *sum = NULL;
	Spark__Connect__AddArtifactsResponse__ArtifactSummary **sump = NULL;
	const struct sc_artifact_summary *v = NULL;
	struct sc_error err;
	size_t i, n = 0, bad = 0;

	if (j->up != NULL &&
	    sc_artifact_upload_commit(j->up, &v, &n, &err) == -1) {
		sc_debug("AddArtifacts of session %s failed: %s", j->session_id,
		    err.msg);
		sc_artifact_upload_free(j->up);
		j->up = NULL;
		sc_srv_finish_error(j->call, j->s, &err);
		return;
	}
	sum = sc_xcalloc(n ? n : 1, sizeof(*sum));
	sump = sc_xcalloc(n ? n : 1, sizeof(*sump));
	for (i = 0; i < n; i++) {
		spark__connect__add_artifacts_response__artifact_summary__init(
		    &sum[i]);
		sum[i].name = (char *)(uintptr_t)v[i].name;
		sum[i].is_crc_successful = v[i].crc_ok;
		bad += !v[i].crc_ok;
		sump[i] = &sum[i];
	}
	resp.n_artifacts = n;
	resp.artifacts = sump;
	if (j->s != NULL) {
		resp.session_id = j->session_id;
		resp.server_side_session_id = j->s->server_side_id;
		if (bad == 0)
			sc_info("session %s: %zu artifact%s added (%" PRId64
				" bytes received)",
			    j->session_id, n, n == 1 ? "" : "s", j->bytes);
		else
			sc_info("session %s: %zu artifact%s added, %zu failed "
				"their CRC (%" PRId64 " bytes received)",
			    j->session_id, n - bad, n - bad == 1 ? "" : "s",
			    bad, j->bytes);
	}
	reply(j->call, &resp.base);
	free(sum);
	free(sump);
}

static void
upload_done(struct upload_job *j)
{
	sc_artifact_upload_free(j->up);
	if (j->s != NULL)
		sc_session_unref(j->s);
	job_unref(j);
	pthread_mutex_lock(&jobs_lock);
	if (--jobs == 0)
		pthread_cond_broadcast(&jobs_cv);
	pthread_mutex_unlock(&jobs_lock);
}

static void *
upload_main(void *arg)
{
	struct upload_job *j = arg;
	struct sc_error err;
	enum upload_in in;
	uint8_t *msg = NULL, *tmp;
	size_t len = 0, cap = 0, tcap;
	bool done;

	done = !upload_read(j);
	while (!done) {
		pthread_mutex_lock(&j->mu);
		while (j->in == IN_WAIT)
			pthread_cond_wait(&j->cv, &j->mu);
		in = j->in;
		j->in = IN_WAIT;
		/* Take the message; the next one may arrive meanwhile. */
		tmp = msg;
		tcap = cap;
		msg = j->buf;
		len = j->len;
		cap = j->cap;
		j->buf = tmp;
		j->cap = tcap;
		pthread_mutex_unlock(&j->mu);
		switch (in) {
		case IN_MSG:
			if (!upload_read(j))
				done = true; /* cancelled: nothing to answer */
			else if (upload_message(j, msg, len, &err) == -1) {
				sc_debug(
				    "AddArtifacts of session %s failed: %s",
				    j->session_id ? j->session_id : "?",
				    err.msg);
				/* Nothing is left once the client is told. */
				sc_artifact_upload_free(j->up);
				j->up = NULL;
				sc_srv_finish_error(j->call, j->s, &err);
				done = true;
			}
			break;
		case IN_EOF:
			upload_finish(j);
			done = true;
			break;
		default: /* cancelled, deadline, lost connection */
			done = true;
			break;
		}
	}
	free(msg);
	upload_done(j);
	return NULL;
}

static void
h_add_artifacts(struct sc_rpc_call *call, void *arg)
{
	struct sc_server *srv = arg;
	struct upload_job *j;
	struct sc_error err;
	pthread_attr_t attr;
	pthread_t tid;
	int rc;

	if (!authorized(srv, call))
		return;
	if (srv->artifacts == NULL) {
		sc_srv_error(&err, "UNSUPPORTED_FEATURE.ARTIFACTS", "0A000",
		    "The feature is not supported: this server keeps no "
		    "artifacts.");
		err.rpc_code = SC_GRPC_UNIMPLEMENTED;
		sc_srv_finish_error(call, NULL, &err);
		return;
	}
	j = sc_xcalloc(1, sizeof(*j));
	j->srv = srv;
	j->call = call;
	sc_rpc_call_ref(call);
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	j->refs = 1;
	j->in = IN_WAIT;
	pthread_mutex_lock(&jobs_lock);
	jobs++;
	pthread_mutex_unlock(&jobs_lock);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, UPLOAD_STACK);
	rc = pthread_create(&tid, &attr, upload_main, j);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		sc_srv_error(&err, "RESOURCE_EXHAUSTED", "53000",
		    "Cannot start an artifact upload now: %s.", strerror(rc));
		err.rpc_code = SC_GRPC_RESOURCE_EXHAUSTED;
		sc_srv_finish_error(call, NULL, &err);
		upload_done(j);
	}
}

/* ------------------------------------------------------------ registry */

int
sc_service_register(struct sc_server *srv, struct sc_error *err)
{
	static const struct {
		const char *path;
		enum sc_rpc_kind kind;
		sc_rpc_handler_fn *fn;
	} methods[] = {
		{ SC_METHOD_EXECUTE_PLAN, SC_RPC_SERVER_STREAM, h_execute },
		{ SC_METHOD_ANALYZE_PLAN, SC_RPC_UNARY, h_analyze },
		{ SC_METHOD_CONFIG, SC_RPC_UNARY, h_config },
		{ SC_METHOD_ADD_ARTIFACTS, SC_RPC_CLIENT_STREAM,
		    h_add_artifacts },
		{ SC_METHOD_ARTIFACT_STATUS, SC_RPC_UNARY, h_artifact_status },
		{ SC_METHOD_INTERRUPT, SC_RPC_UNARY, h_interrupt },
		{ SC_METHOD_REATTACH_EXECUTE, SC_RPC_SERVER_STREAM,
		    h_reattach },
		{ SC_METHOD_RELEASE_EXECUTE, SC_RPC_UNARY, h_release_execute },
		{ SC_METHOD_RELEASE_SESSION, SC_RPC_UNARY, h_release_session },
		{ SC_METHOD_FETCH_ERROR_DETAILS, SC_RPC_UNARY,
		    h_fetch_error_details },
	};
	size_t i;

	sc_srv_error_set_max_metadata(srv->conf.max_metadata_size);
	sc_rpc_server_set_details(srv->rpc, sc_srv_error_details);
	for (i = 0; i < SC_NELEM(methods); i++)
		if (sc_rpc_server_add_method(srv->rpc, methods[i].path,
			methods[i].kind, methods[i].fn, srv, err) == -1)
			return -1;
	/* sctk.admin.v1 beside it, on the same port. */
	if (srv->admin != NULL && sc_admin_register(srv->admin, err) == -1)
		return -1;
	return 0;
}

void
sc_service_drain(void)
{
	pthread_mutex_lock(&jobs_lock);
	while (jobs > 0)
		pthread_cond_wait(&jobs_cv, &jobs_lock);
	pthread_mutex_unlock(&jobs_lock);
}
