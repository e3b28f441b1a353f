/* SPDX-License-Identifier: MIT */

/*
 * service.c: the ten methods of spark.connect.SparkConnectService.  Each
 * handler checks the bearer token, decodes the request, looks the
 * session up and answers; operations are delegated to exec.h, plans to
 * the engine, artifacts to artifact.h.  Handlers run on completion-queue
 * threads and do not block: AnalyzePlan requests that touch the engine
 * run as jobs on the execution manager's runner threads, AddArtifacts
 * calls on a thread of their own.
 */

#include "server/service.h"
#include "server/service_int.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/log.h"
#include "core/protocol.h"
#include "core/rpc_server.h"
#include "core/timeutil.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "server/artifact.h"
#include "server/auth.h"
#include "engine/engine.h"
#include "server/exec.h"
#include "server/metrics.h"
#include "server/session.h"
#include "core/banned.h"

/* AnalyzePlan jobs and AddArtifacts threads still running, so shutdown can wait for them. */
static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t jobs_cv = PTHREAD_COND_INITIALIZER;
static int jobs;
/* ------------------------------------------------------------ helpers */

bool
sc_svc_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

enum sc_svc_who
sc_svc_identify(struct sc_server *srv, struct sc_rpc_call *call,
    char user[SC_AUTH_USER_MAX])
{
	char got[512], want[sizeof(srv->conf.token) + 8];
	enum sc_svc_who who = SC_SVC_WRONG;

	if (srv->conf.token[0] == '\0' && srv->auth == NULL)
		return SC_SVC_OPEN;
	if (sc_rpc_call_metadata(call, "authorization", got, sizeof(got)) == -1)
		return SC_SVC_MISSING;
	if (srv->conf.token[0] != '\0') {
		snprintf(want, sizeof(want), "Bearer %s", srv->conf.token);
		if (sc_auth_same_secret(got, want))
			who = SC_SVC_SHARED;
		explicit_bzero(want, sizeof(want));
	}
	if (who == SC_SVC_WRONG && strncmp(got, "Bearer ", 7) == 0 &&
	    sc_auth_lookup(srv->auth, got + 7, user))
		who = SC_SVC_BOUND;
	explicit_bzero(got, sizeof(got));
	return who;
}

void
sc_svc_log_refusal(struct sc_rpc_call *call, const char *reason,
    const char *bound, const char *claimed)
{
	const char *peer = sc_rpc_call_peer(call);
	const struct sc_log_field f[] = {
		SC_LOG_STR("client", peer),
		SC_LOG_STR("reason", reason),
		SC_LOG_STR("user_id", claimed != NULL ? claimed : ""),
		SC_LOG_STR("token_user_id", bound != NULL ? bound : ""),
	};

	if (sc_log_level < SC_LOG_WARN)
		return;
	if (bound != NULL && claimed != NULL)
		sc_log_event(SC_LOG_WARN, "auth_refused", f, SC_NELEM(f),
		    "refused a request from %s: %s: its token is bound to user '%s', it names user '%s'",
		    peer, reason, bound, claimed);
	else
		sc_log_event(SC_LOG_WARN, "auth_refused", f, SC_NELEM(f),
		    "refused a request from %s: %s", peer, reason);
}

/* Check the bearer token; on failure the call is finished. */
bool
sc_svc_authorized(struct sc_server *srv, struct sc_rpc_call *call)
{
	char user[SC_AUTH_USER_MAX];

	switch (sc_svc_identify(srv, call, user)) {
	case SC_SVC_MISSING:
		sc_svc_log_refusal(call, "missing token", NULL, NULL);
		sc_rpc_call_finish(call, SC_GRPC_UNAUTHENTICATED,
		    "No authentication token provided", NULL, 0);
		return false;
	case SC_SVC_WRONG:
		sc_svc_log_refusal(call, "bad token", NULL, NULL);
		sc_rpc_call_finish(call, SC_GRPC_UNAUTHENTICATED,
		    "Invalid authentication token", NULL, 0);
		return false;
	default:
		return true;
	}
}

int
sc_svc_bad_id(struct sc_error *err, const char *what, const char *id)
{
	char shown[128];

	sc_auth_id_escape(id, shown, sizeof(shown));
	sc_srv_error(err, "INVALID_HANDLE.FORMAT", "HY000",
	    "The handle `%s` is invalid. A %s must be valid UTF-8 without control characters.",
	    shown, what);
	err->rpc_code = SC_GRPC_INVALID_ARGUMENT;
	return -1;
}

int
sc_svc_bad_uuid(struct sc_error *err, const char *id)
{
	char shown[128];

	sc_auth_id_escape(id, shown, sizeof(shown));
	return sc_srv_error(err, "INVALID_HANDLE.FORMAT", "HY000",
	    "The handle `%s` is invalid. Handle must be an UUID string of the format '00112233-4455-6677-8899-aabbccddeeff'",
	    shown);
}

int
sc_svc_check_user(enum sc_svc_who who, const char *bound, const char *user,
    struct sc_error *err)
{
	char shown[128];

	if (!sc_auth_id_valid(user))
		return sc_svc_bad_id(err, "user id", user);
	switch (who) {
	case SC_SVC_OPEN:
	case SC_SVC_SHARED:
		return 0;
	case SC_SVC_BOUND:
		if (strcmp(user, bound) == 0)
			return 0;
		sc_auth_id_escape(user, shown, sizeof(shown));
		sc_srv_error(err, SC_SVC_USER_MISMATCH, "42501",
		    "The token is bound to the user `%s`; this request names "
		    "the user `%s`.",
		    bound, shown);
		err->rpc_code = SC_GRPC_PERMISSION_DENIED;
		return -1;
	case SC_SVC_MISSING:
	case SC_SVC_WRONG:
		break;
	}
	/* The token left the table since the call began (SIGHUP). */
	sc_error_set(err, SC_ST_DENIED, "Invalid authentication token");
	err->rpc_code = SC_GRPC_UNAUTHENTICATED;
	return -1;
}

/* Whether the call may act for user; on failure the call is finished. */
static bool
user_allowed(struct sc_server *srv, struct sc_rpc_call *call, const char *user)
{
	char bound[SC_AUTH_USER_MAX];
	struct sc_error err;
	enum sc_svc_who who;

	bound[0] = '\0';
	who = sc_svc_identify(srv, call, bound);
	if (sc_svc_check_user(who, bound, user, &err) == 0)
		return true;
	if (err.rpc_code == SC_GRPC_UNAUTHENTICATED) {
		sc_svc_log_refusal(call, "bad token", NULL, NULL);
		sc_rpc_call_finish(call, SC_GRPC_UNAUTHENTICATED, err.msg, NULL,
		    0);
		return false;
	}
	if (err.rpc_code == SC_GRPC_PERMISSION_DENIED)
		sc_svc_log_refusal(call, "user mismatch", bound, user);
	sc_srv_finish_error(call, NULL, &err);
	return false;
}

/* Unpack the request; on failure the call is finished INVALID_ARGUMENT. */
void *
sc_svc_decode(struct sc_rpc_call *call, const ProtobufCMessageDescriptor *d)
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

void
sc_svc_reply(struct sc_rpc_call *call, const ProtobufCMessage *m)
{
	uint8_t *buf;
	size_t len;

	buf = sc_proto_pack_alloc(m, &len);
	sc_rpc_call_reply(call, buf, len);
	free(buf);
}

void
sc_svc_free_msg(void *m)
{
	if (m != NULL)
		protobuf_c_message_free_unpacked(m, NULL);
}

/* Look the session up; on failure the call is finished. */
struct sc_session *
sc_svc_session(struct sc_server *srv, struct sc_rpc_call *call,
    const char *user, const char *sid, const char *observed,
    enum sc_sess_lookup how)
{
	struct sc_session *s;
	struct sc_error err;

	if (!user_allowed(srv, call, user))
		return NULL;
	s = sc_sessmgr_get(srv->sessions, user, sid, observed, how, &err);
	if (s == NULL) {
		sc_debug("session '%s': %s", sid, err.msg);
		sc_srv_finish_error(call, NULL, &err);
	}
	return s;
}

/* An INTERNAL error without an error class (Spark's plain exceptions). */
int
sc_svc_plain_error(struct sc_error *err, const char *fmt, ...)
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

void
sc_svc_job_begin(void)
{
	pthread_mutex_lock(&jobs_lock);
	jobs++;
	pthread_mutex_unlock(&jobs_lock);
}

void
sc_svc_job_end(void)
{
	pthread_mutex_lock(&jobs_lock);
	if (--jobs == 0)
		pthread_cond_broadcast(&jobs_cv);
	pthread_mutex_unlock(&jobs_lock);
}

/* ------------------------------------------------------------ operations */

/* Whether a tag is not a valid id (err set then). */
static bool
tags_invalid(char **tags, size_t n, struct sc_error *err)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tags[i] != NULL && !sc_auth_id_valid(tags[i]))
			return sc_svc_bad_id(err, "tag", tags[i]) == -1;
	return false;
}

/* An operation id that is not a UUID: the call is finished. */
static bool
op_id_malformed(struct sc_rpc_call *call, struct sc_session *s, const char *id)
{
	struct sc_error err;

	if (id != NULL && sc_uuid_valid(id))
		return false;
	sc_svc_bad_uuid(&err, id != NULL ? id : "");
	sc_srv_finish_error(call, s, &err);
	return true;
}

static void
h_execute(struct sc_rpc_call *call, void *arg)
{
	struct sc_server *srv = arg;
	Spark__Connect__ExecutePlanRequest *req;
	struct sc_session *s;
	struct sc_error err;

	if (!sc_svc_authorized(srv, call) ||
	    (req = sc_svc_decode(call,
		 &spark__connect__execute_plan_request__descriptor)) == NULL)
		return;
	/* Before a session is made: they would reach the admin service. */
	if (tags_invalid(req->tags, req->n_tags, &err)) {
		sc_srv_finish_error(call, NULL, &err);
		sc_svc_free_msg(req);
		return;
	}
	s = sc_svc_session(srv, call, USER(req), req->session_id, OBSERVED(req),
	    SC_SESS_GET_OR_CREATE);
	if (s == NULL) {
		sc_svc_free_msg(req);
		return;
	}
	/* A session's engine connection is opened by its first execution. */
	if (srv->engine != NULL && sc_session_conn(s, &err) == NULL)
		sc_srv_finish_error(call, s, &err);
	else
		sc_exec_execute(srv->execs, s, call, req);
	sc_session_unref(s);
	sc_svc_free_msg(req);
}

static void
h_reattach(struct sc_rpc_call *call, void *arg)
{
	struct sc_server *srv = arg;
	Spark__Connect__ReattachExecuteRequest *req;
	struct sc_session *s;

	if (!sc_svc_authorized(srv, call) ||
	    (req = sc_svc_decode(call,
		 &spark__connect__reattach_execute_request__descriptor)) ==
		NULL)
		return;
	s = sc_svc_session(srv, call, USER(req), req->session_id, OBSERVED(req),
	    SC_SESS_GET_ONLY);
	if (s != NULL) {
		if (!op_id_malformed(call, s, req->operation_id))
			sc_exec_reattach(srv->execs, s, call, req);
		sc_session_unref(s);
	}
	sc_svc_free_msg(req);
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

	if (!sc_svc_authorized(srv, call) ||
	    (req = sc_svc_decode(call,
		 &spark__connect__release_execute_request__descriptor)) == NULL)
		return;
	/* As Spark: the observed server-side session id is not checked. */
	s = sc_svc_session(srv, call, USER(req), req->session_id, NULL,
	    SC_SESS_GET_ONLY);
	if (s == NULL) {
		sc_svc_free_msg(req);
		return;
	}
	if (op_id_malformed(call, s, req->operation_id)) {
		/* Finished there. */
	} else if (sc_exec_release(srv->execs, s, req, &found, &err) == -1)
		sc_srv_finish_error(call, s, &err);
	else {
		resp.session_id = req->session_id;
		resp.server_side_session_id = s->server_side_id;
		if (found) {
			resp._operation_id_case =
			    SPARK__CONNECT__RELEASE_EXECUTE_RESPONSE___OPERATION_ID_OPERATION_ID;
			resp.operation_id = req->operation_id;
		}
		sc_svc_reply(call, &resp.base);
	}
	sc_session_unref(s);
	sc_svc_free_msg(req);
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

	if (!sc_svc_authorized(srv, call) ||
	    (req = sc_svc_decode(call,
		 &spark__connect__interrupt_request__descriptor)) == NULL)
		return;
	if (req->interrupt_case ==
		SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_OPERATION_TAG &&
	    tags_invalid(&req->operation_tag, 1, &err)) {
		sc_srv_finish_error(call, NULL, &err);
		sc_svc_free_msg(req);
		return;
	}
	s = sc_svc_session(srv, call, USER(req), req->session_id, OBSERVED(req),
	    SC_SESS_GET_OR_CREATE);
	if (s == NULL) {
		sc_svc_free_msg(req);
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
		sc_svc_reply(call, &resp.base);
	}
	for (i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
	sc_session_unref(s);
	sc_svc_free_msg(req);
}

/* ------------------------------------------------------------ AnalyzePlan */

/*
 * An AnalyzePlan request that needs the engine runs as a job of the
 * execution manager's runner pool (bounded by its workers and threads).
 * The call's close (client cancel, deadline, shutdown) sets cancel, which
 * the engine polls through a progress handler, as it polls an
 * operation's.  Two references: the runner's and the close callback's.
 */
struct analyze_job {
	struct sc_rpc_call *call;
	struct sc_session *s;
	Spark__Connect__AnalyzePlanRequest *req;
	struct sc_execmgr *execs; /* or NULL: run on the RPC thread */
	atomic_int cancel;
	atomic_int refs;
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

/* A relation of the request, or NULL with err set. */
static const Spark__Connect__Relation *
req_relation(const Spark__Connect__Relation *r, struct sc_session *s,
    struct sc_error *err)
{
	if (r == NULL) {
		sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "AnalyzePlan needs a relation.");
		return NULL;
	}
	if (sc_session_conn(s, err) == NULL)
		return NULL;
	return r;
}

static Spark__Connect__StorageLevel *
storage_level_new(const struct sc_engine_storage *l)
{
	Spark__Connect__StorageLevel *m = sc_xmalloc(sizeof(*m));

	spark__connect__storage_level__init(m);
	m->use_disk = l->use_disk;
	m->use_memory = l->use_memory;
	m->use_off_heap = l->use_off_heap;
	m->deserialized = l->deserialized;
	m->replication = l->replication;
	return m;
}

/*
 * The kinds that need neither a session's SQL nor much time: schema
 * strings, identities, input files and persisted plans.  0, -1 (err
 * set), or 1 when kind is not one of them.
 */
static int
analyze_plain(struct sc_session *s,
    const Spark__Connect__AnalyzePlanRequest *req,
    Spark__Connect__AnalyzePlanResponse *resp, struct sc_error *err)
{
	const Spark__Connect__Relation *root, *other;
	struct sc_engine_storage level;
	const Spark__Connect__StorageLevel *sl;
	bool same;
	int32_t hash;

	switch (req->analyze_case) {
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_DDL_PARSE:
		resp->ddl_parse = sc_xmalloc(sizeof(*resp->ddl_parse));
		spark__connect__analyze_plan_response__ddlparse__init(
		    resp->ddl_parse);
		resp->result_case =
		    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_DDL_PARSE;
		return sc_engine_ddl_parse(req->ddl_parse->ddl_string,
		    &resp->ddl_parse->parsed, err);
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_JSON_TO_DDL:
		resp->json_to_ddl = sc_xmalloc(sizeof(*resp->json_to_ddl));
		spark__connect__analyze_plan_response__json_to_ddl__init(
		    resp->json_to_ddl);
		resp->result_case =
		    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_JSON_TO_DDL;
		return sc_engine_json_to_ddl(req->json_to_ddl->json_string,
		    &resp->json_to_ddl->ddl_string, err);
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_SAME_SEMANTICS:
		if ((root = plan_root(req->same_semantics->target_plan, s,
			 err)) == NULL ||
		    (other = plan_root(req->same_semantics->other_plan, s,
			 err)) == NULL ||
		    sc_engine_same_semantics(root, other, &same, err) == -1)
			return -1;
		resp->same_semantics =
		    sc_xmalloc(sizeof(*resp->same_semantics));
		spark__connect__analyze_plan_response__same_semantics__init(
		    resp->same_semantics);
		resp->same_semantics->result = same;
		resp->result_case =
		    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_SAME_SEMANTICS;
		return 0;
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_SEMANTIC_HASH:
		if ((root = plan_root(req->semantic_hash->plan, s, err)) ==
			NULL ||
		    sc_engine_semantic_hash(root, &hash, err) == -1)
			return -1;
		resp->semantic_hash = sc_xmalloc(sizeof(*resp->semantic_hash));
		spark__connect__analyze_plan_response__semantic_hash__init(
		    resp->semantic_hash);
		resp->semantic_hash->result = hash;
		resp->result_case =
		    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_SEMANTIC_HASH;
		return 0;
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_INPUT_FILES:
		if ((root = plan_root(req->input_files->plan, s, err)) == NULL)
			return -1;
		resp->input_files = sc_xmalloc(sizeof(*resp->input_files));
		spark__connect__analyze_plan_response__input_files__init(
		    resp->input_files);
		resp->result_case =
		    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_INPUT_FILES;
		return sc_engine_input_files(root, &resp->input_files->files,
		    &resp->input_files->n_files, err);
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_PERSIST:
		if ((root = req_relation(req->persist->relation, s, err)) ==
		    NULL)
			return -1;
		/* Without a level, Dataset.persist()'s MEMORY_AND_DISK. */
		sl = req->persist->_storage_level_case != 0
		    ? req->persist->storage_level
		    : NULL;
		level.use_disk = sl != NULL ? sl->use_disk : true;
		level.use_memory = sl != NULL ? sl->use_memory : true;
		level.use_off_heap = sl != NULL ? sl->use_off_heap : false;
		level.deserialized = sl != NULL ? sl->deserialized : true;
		level.replication = sl != NULL ? sl->replication : 1;
		if (sc_engine_persist(s->conn, root, &level, err) == -1)
			return -1;
		resp->persist = sc_xmalloc(sizeof(*resp->persist));
		spark__connect__analyze_plan_response__persist__init(
		    resp->persist);
		resp->result_case =
		    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_PERSIST;
		return 0;
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_UNPERSIST:
		if ((root = req_relation(req->unpersist->relation, s, err)) ==
			NULL ||
		    sc_engine_unpersist(s->conn, root, err) == -1)
			return -1;
		resp->unpersist = sc_xmalloc(sizeof(*resp->unpersist));
		spark__connect__analyze_plan_response__unpersist__init(
		    resp->unpersist);
		resp->result_case =
		    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_UNPERSIST;
		return 0;
	case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_GET_STORAGE_LEVEL:
		if ((root = req_relation(req->get_storage_level->relation, s,
			 err)) == NULL ||
		    sc_engine_storage_level(s->conn, root, &level, err) == -1)
			return -1;
		resp->get_storage_level =
		    sc_xmalloc(sizeof(*resp->get_storage_level));
		spark__connect__analyze_plan_response__get_storage_level__init(
		    resp->get_storage_level);
		resp->get_storage_level->storage_level =
		    storage_level_new(&level);
		resp->result_case =
		    SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_GET_STORAGE_LEVEL;
		return 0;
	default:
		return 1;
	}
}

/* Free what analyze_plain() allocated in resp. */
static void
analyze_plain_free(Spark__Connect__AnalyzePlanResponse *resp)
{
	size_t i;

	switch (resp->result_case) {
	case SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_DDL_PARSE:
		sc_engine_datatype_free(resp->ddl_parse->parsed);
		free(resp->ddl_parse);
		break;
	case SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_JSON_TO_DDL:
		if (resp->json_to_ddl->ddl_string !=
		    (char *)protobuf_c_empty_string)
			free(resp->json_to_ddl->ddl_string);
		free(resp->json_to_ddl);
		break;
	case SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_SAME_SEMANTICS:
		free(resp->same_semantics);
		break;
	case SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_SEMANTIC_HASH:
		free(resp->semantic_hash);
		break;
	case SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_INPUT_FILES:
		for (i = 0; i < resp->input_files->n_files; i++)
			free(resp->input_files->files[i]);
		free(resp->input_files->files);
		free(resp->input_files);
		break;
	case SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_PERSIST:
		free(resp->persist);
		break;
	case SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_UNPERSIST:
		free(resp->unpersist);
		break;
	case SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_GET_STORAGE_LEVEL:
		free(resp->get_storage_level->storage_level);
		free(resp->get_storage_level);
		break;
	default:
		break;
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
		rc = analyze_plain(s, req, &resp, &err);
		if (rc == 1)
			rc = sc_srv_error(&err,
			    "UNSUPPORTED_FEATURE.ANALYZE_PLAN", "0A000",
			    "The feature is not supported: this AnalyzePlan request.");
		break;
	}
	if (rc == -1)
		sc_srv_finish_error(call, s, &err);
	else {
		resp.session_id = req->session_id;
		resp.server_side_session_id = s->server_side_id;
		sc_svc_reply(call, &resp.base);
	}
	if (dt != NULL)
		sc_engine_datatype_free(dt);
	free(text);
	analyze_plain_free(&resp);
}

static void
job_unref(struct analyze_job *j)
{
	if (atomic_fetch_sub(&j->refs, 1) == 1)
		free(j);
}

static void
job_done(struct analyze_job *j)
{
	struct sc_rpc_call *call = j->call;

	sc_session_unref(j->s);
	sc_svc_free_msg(j->req);
	j->s = NULL;
	j->req = NULL;
	job_unref(j);
	sc_svc_job_end();
	sc_rpc_call_unref(call);
}

/* The call ended: a request still computing stops. */
static void
analyze_closed(struct sc_rpc_call *call, bool cancelled, void *arg)
{
	struct analyze_job *j = arg;

	(void)call;
	if (cancelled)
		atomic_store(&j->cancel, 1);
	job_unref(j);
}

/* The engine's progress handler: non-zero stops the statement. */
static int
analyze_progress(void *arg)
{
	struct analyze_job *j = arg;

	return atomic_load(&j->cancel) != 0 ||
	    (j->execs != NULL && sc_execmgr_stopping(j->execs));
}

/* A job of the runner pool (run false: shutdown, it will not run). */
static void
analyze_job_run(void *arg, bool run)
{
	struct analyze_job *j = arg;

	if (!run)
		sc_rpc_call_finish(j->call, SC_GRPC_UNAVAILABLE,
		    "sc-serve is shutting down", NULL, 0);
	else if (atomic_load(&j->cancel) == 0) {
		/* Queued past its deadline: nobody waits for it. */
		sc_engine_set_progress(analyze_progress, j);
		analyze(j->call, j->s, j->req);
		sc_engine_set_progress(NULL, NULL);
	}
	job_done(j);
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
	struct sc_error err;

	if (!sc_svc_authorized(srv, call) ||
	    (req = sc_svc_decode(call,
		 &spark__connect__analyze_plan_request__descriptor)) == NULL)
		return;
	s = sc_svc_session(srv, call, USER(req), req->session_id, OBSERVED(req),
	    SC_SESS_GET_OR_CREATE);
	if (s == NULL) {
		sc_svc_free_msg(req);
		return;
	}
	if (!needs_engine(req->analyze_case) || srv->execs == NULL) {
		analyze(call, s, req);
		sc_session_unref(s);
		sc_svc_free_msg(req);
		return;
	}
	j = sc_xcalloc(1, sizeof(*j));
	j->call = call;
	j->s = s;
	j->req = req;
	j->execs = srv->execs;
	atomic_init(&j->cancel, 0);
	atomic_init(&j->refs, 2);
	sc_rpc_call_ref(call);
	sc_rpc_call_on_close(call, analyze_closed, j);
	sc_svc_job_begin();
	if (sc_execmgr_submit(srv->execs, analyze_job_run, j, &err) == -1) {
		sc_rpc_call_finish(call, SC_GRPC_UNAVAILABLE,
		    "sc-serve is shutting down", NULL, 0);
		job_done(j);
	}
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
	struct sc_error err;

	if (!sc_svc_authorized(srv, call) ||
	    (req = sc_svc_decode(call,
		 &spark__connect__release_session_request__descriptor)) == NULL)
		return;
	if (!user_allowed(srv, call, USER(req))) {
		sc_svc_free_msg(req);
		return;
	}
	/* As Spark: a malformed id is an error, an unknown one is not. */
	if (!sc_uuid_valid(req->session_id)) {
		sc_svc_bad_uuid(&err, req->session_id);
		sc_srv_finish_error(call, NULL, &err);
		sc_svc_free_msg(req);
		return;
	}
	resp.session_id = req->session_id;
	if (sc_sessmgr_release(srv->sessions, USER(req), req->session_id,
		req->allow_reconnect, ssid) == 1) {
		sc_info("session %s released%s", req->session_id,
		    req->allow_reconnect ? " (reconnect allowed)" : "");
		resp.server_side_session_id = ssid;
	}
	sc_svc_reply(call, &resp.base);
	sc_svc_free_msg(req);
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
	    extra =
		SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__SPARK_THROWABLE__MESSAGE_PARAMETERS_ENTRY__INIT;
	Spark__Connect__FetchErrorDetailsResponse__SparkThrowable__MessageParametersEntry
	    *params[2];
	Spark__Connect__FetchErrorDetailsResponse__QueryContext qc =
	    SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__QUERY_CONTEXT__INIT;
	Spark__Connect__FetchErrorDetailsResponse__QueryContext *qcs[1];
	static char none[] = "";
	Spark__Connect__FetchErrorDetailsResponse__Error *errors[1];
	struct sc_session *s;
	struct sc_error stored;
	const char *const *classes;
	const char *pname;
	char pvalue[sizeof(stored.msg)];
	size_t n;

	if (!sc_svc_authorized(srv, call) ||
	    (req = sc_svc_decode(call,
		 &spark__connect__fetch_error_details_request__descriptor)) ==
		NULL)
		return;
	s = sc_svc_session(srv, call, USER(req), req->session_id, OBSERVED(req),
	    SC_SESS_GET_OR_CREATE);
	if (s == NULL) {
		sc_svc_free_msg(req);
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
			/* PARSE_SYNTAX_ERROR's hint, "" here, as in ErrorInfo. */
			if ((pname = sc_srv_error_param_extra(&stored)) !=
			    NULL) {
				extra.key = (char *)(uintptr_t)pname;
				extra.value = none;
				params[1] = &extra;
				t.n_message_parameters = 2;
			}
		}
		if (stored.ctx_start >= 0) {
			/* Where in the SQL text, as Spark's SQLQueryContext. */
			qc.context_type =
			    SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__QUERY_CONTEXT__CONTEXT_TYPE__SQL;
			qc.start_index = stored.ctx_start;
			qc.stop_index = stored.ctx_stop;
			qc.fragment = stored.ctx_fragment;
			qc.summary = stored.ctx_summary;
			qcs[0] = &qc;
			t.n_query_contexts = 1;
			t.query_contexts = qcs;
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
	sc_svc_reply(call, &resp.base);
	sc_session_unref(s);
	sc_svc_free_msg(req);
}

/* ------------------------------------------------------------ registry */

/* An unknown method is UNIMPLEMENTED only for a caller with the token. */
static bool
unknown_gate(struct sc_rpc_call *call, void *arg)
{
	return sc_svc_authorized(arg, call);
}

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
		{ SC_METHOD_CONFIG, SC_RPC_UNARY, sc_svc_config },
		{ SC_METHOD_ADD_ARTIFACTS, SC_RPC_CLIENT_STREAM,
		    sc_svc_add_artifacts },
		{ SC_METHOD_ARTIFACT_STATUS, SC_RPC_UNARY,
		    sc_svc_artifact_status },
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
	sc_rpc_server_set_done(srv->rpc, sc_metrics_rpc_done, NULL);
	sc_rpc_server_set_unknown_gate(srv->rpc, unknown_gate, srv);
	sc_engine_set_conf(srv->engine, &sc_svc_sql_conf);
	for (i = 0; i < SC_NELEM(methods); i++)
		if (sc_rpc_server_add_method(srv->rpc, methods[i].path,
			methods[i].kind, methods[i].fn, srv, err) == -1)
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
