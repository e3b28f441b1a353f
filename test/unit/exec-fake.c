/* SPDX-License-Identifier: MIT */

/*
 * exec-fake.c: the fake harness the execution manager tests share (see
 * exec-fake.h).  Linked into every unit test program; it defines no
 * main() and only xf_-prefixed external symbols.
 */

#include "exec-fake.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/timeutil.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "core/banned.h"

/* ------------------------------------------------------ fake calls */

struct sc_rpc_call *
xf_call_new(void)
{
	struct sc_rpc_call *c = sc_xcalloc(1, sizeof(*c));

	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	atomic_init(&c->refs, 1);
	c->code = -1;
	return c;
}

void
xf_call_free(struct sc_rpc_call *c)
{
	size_t i;

	for (i = 0; i < c->nmsgs; i++)
		protobuf_c_message_free_unpacked(&c->msgs[i]->base, NULL);
	free(c->msgs);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
	free(c);
}

static int
f_send(struct sc_rpc_call *c, const void *msg, size_t len, sc_rpc_sent_fn *sent,
    void *arg)
{
	Spark__Connect__ExecutePlanResponse *r;

	pthread_mutex_lock(&c->mu);
	if (c->finished) {
		pthread_mutex_unlock(&c->mu);
		return -1;
	}
	if (c->in_flight) {
		c->violations++;
		pthread_mutex_unlock(&c->mu);
		return -1;
	}
	r = sc_proto_unpack(&spark__connect__execute_plan_response__descriptor,
	    msg, len, NULL);
	if (r == NULL)
		SC_BUG("unpackable response");
	c->msgs = sc_xreallocarray(c->msgs, c->nmsgs + 1, sizeof(*c->msgs));
	c->msgs[c->nmsgs++] = r;
	c->in_flight = true;
	c->sent = sent;
	c->sent_arg = arg;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	return 0;
}

/* The last response and status OK at once (sc_rpc_call_reply_ref()). */
static int
f_reply_ref(struct sc_rpc_call *c, const void *msg, size_t len,
    void (*unref)(void *), void *ref)
{
	Spark__Connect__ExecutePlanResponse *r;
	int rc = -1;

	pthread_mutex_lock(&c->mu);
	if (c->in_flight)
		c->violations++;
	else if (!c->finished) {
		r = sc_proto_unpack(
		    &spark__connect__execute_plan_response__descriptor, msg,
		    len, NULL);
		if (r == NULL)
			SC_BUG("unpackable response");
		c->msgs =
		    sc_xreallocarray(c->msgs, c->nmsgs + 1, sizeof(*c->msgs));
		c->msgs[c->nmsgs++] = r;
		c->replies++;
		c->finished = true;
		c->code = SC_GRPC_OK;
		pthread_cond_broadcast(&c->cv);
		rc = 0;
	}
	pthread_mutex_unlock(&c->mu);
	unref(ref);
	return rc;
}

static int
f_finish(struct sc_rpc_call *c, int code, const char *msg)
{
	pthread_mutex_lock(&c->mu);
	if (c->finished) {
		pthread_mutex_unlock(&c->mu);
		return -1;
	}
	c->finished = true;
	c->code = code;
	snprintf(c->status, sizeof(c->status), "%s", msg);
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	return 0;
}

static void
f_finish_error(struct sc_rpc_call *c, struct sc_session *s,
    const struct sc_error *err)
{
	(void)s;
	pthread_mutex_lock(&c->mu);
	if (!c->finished) {
		c->finished = true;
		c->code = err->rpc_code == -1 ? SC_GRPC_INTERNAL
					      : err->rpc_code;
		snprintf(c->status, sizeof(c->status), "%s", err->msg);
		snprintf(c->errclass, sizeof(c->errclass), "%s", err->errclass);
		pthread_cond_broadcast(&c->cv);
	}
	pthread_mutex_unlock(&c->mu);
}

static void
f_on_close(struct sc_rpc_call *c, sc_rpc_close_fn *fn, void *arg)
{
	pthread_mutex_lock(&c->mu);
	c->close_fn = fn;
	c->close_arg = arg;
	pthread_mutex_unlock(&c->mu);
}

static void
f_ref(struct sc_rpc_call *c)
{
	atomic_fetch_add(&c->refs, 1);
}

static void
f_unref(struct sc_rpc_call *c)
{
	atomic_fetch_sub(&c->refs, 1);
}

static const struct sc_exec_transport fake_tr = {
	.send = f_send,
	.finish = f_finish,
	.finish_error = f_finish_error,
	.on_close = f_on_close,
	.ref = f_ref,
	.unref = f_unref,
};

static const struct sc_exec_transport fake_tr_reply = {
	.send = f_send,
	.reply_ref = f_reply_ref,
	.finish = f_finish,
	.finish_error = f_finish_error,
	.on_close = f_on_close,
	.ref = f_ref,
	.unref = f_unref,
};

bool xf_reply_ref;

/* Complete the send in flight, if any (the transport's sent()). */
bool
xf_ack(struct sc_rpc_call *c, bool okay)
{
	sc_rpc_sent_fn *fn;
	void *arg;

	pthread_mutex_lock(&c->mu);
	if (!c->in_flight) {
		pthread_mutex_unlock(&c->mu);
		return false;
	}
	c->in_flight = false;
	fn = c->sent;
	arg = c->sent_arg;
	pthread_mutex_unlock(&c->mu);
	fn(c, okay, arg);
	return true;
}

/* The call ends (RECV_CLOSE): the in-flight send dies, close runs. */
void
xf_call_close(struct sc_rpc_call *c, bool cancelled)
{
	sc_rpc_close_fn *fn;
	void *arg;

	xf_ack(c, false);
	pthread_mutex_lock(&c->mu);
	fn = c->close_fn;
	arg = c->close_arg;
	c->close_fn = NULL;
	pthread_mutex_unlock(&c->mu);
	if (fn != NULL)
		fn(c, cancelled, arg);
}

void
xf_deadline_in(struct timespec *ts, int ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

bool
xf_has_complete(const Spark__Connect__ExecutePlanResponse *r)
{
	return r->response_type_case ==
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_RESULT_COMPLETE;
}

bool
xf_is_batch(const Spark__Connect__ExecutePlanResponse *r)
{
	return r->response_type_case ==
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH;
}

/* --------------------------------------------------- fake runner */

atomic_int xf_runs;
static pthread_mutex_t starts_mu = PTHREAD_MUTEX_INITIALIZER;
static char starts[XF_STARTS_MAX][SC_UUID_STRLEN];
static size_t nstarts;
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static bool gate_open;
atomic_int xf_emit_failures;
static pthread_t last_run_thread;

/* Whether the fake runner last ran on the calling thread. */
bool
xf_last_run_here(void)
{
	bool r;

	pthread_mutex_lock(&starts_mu);
	r = pthread_equal(last_run_thread, pthread_self()) != 0;
	pthread_mutex_unlock(&starts_mu);
	return r;
}

void
xf_starts_reset(void)
{
	pthread_mutex_lock(&starts_mu);
	nstarts = 0;
	pthread_mutex_unlock(&starts_mu);
}

size_t
xf_starts(char out[][SC_UUID_STRLEN], size_t max)
{
	size_t i, n;

	pthread_mutex_lock(&starts_mu);
	n = nstarts < max ? nstarts : max;
	for (i = 0; i < n; i++)
		memcpy(out[i], starts[i], SC_UUID_STRLEN);
	pthread_mutex_unlock(&starts_mu);
	return n;
}

void
xf_gate_set(bool open)
{
	pthread_mutex_lock(&gate_mu);
	gate_open = open;
	pthread_cond_broadcast(&gate_cv);
	pthread_mutex_unlock(&gate_mu);
}

/*
 * The plan is a sql_command whose text is a program: "schema",
 * "batch:N:SIZE" (N Arrow batches of SIZE data bytes, one row each),
 * "metrics", "gate" (wait until the gate opens or the operation is
 * canceled), "sleep:US" (sleep US microseconds) and "fail" (end with
 * DIVIDE_BY_ZERO).
 */
static int
fake_run(struct sc_exec_op *op, const Spark__Connect__Plan *plan, void *arg,
    struct sc_error *err)
{
	Spark__Connect__ExecutePlanResponse r;
	Spark__Connect__ExecutePlanResponse__ArrowBatch ab;
	Spark__Connect__ExecutePlanResponse__Metrics mt;
	Spark__Connect__DataType dt;
	struct timespec ts;
	char prog[256], *tok, *save;
	uint8_t *data;
	int n, size, i, rc;
	int64_t offset = 0;

	(void)arg;
	atomic_fetch_add(&xf_runs, 1);
	pthread_mutex_lock(&starts_mu);
	if (nstarts < XF_STARTS_MAX)
		memcpy(starts[nstarts++], sc_exec_op_id(op), SC_UUID_STRLEN);
	pthread_mutex_unlock(&starts_mu);
	pthread_mutex_lock(&starts_mu);
	last_run_thread = pthread_self();
	pthread_mutex_unlock(&starts_mu);
	if (plan != NULL &&
	    plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_ROOT &&
	    plan->root != NULL &&
	    plan->root->rel_type_case ==
		SPARK__CONNECT__RELATION__REL_TYPE_SQL &&
	    strncmp(plan->root->sql->query, "SELECT ", 7) == 0)
		snprintf(prog, sizeof(prog), "%s", plan->root->sql->query + 7);
	else if (plan == NULL ||
	    plan->op_type_case != SPARK__CONNECT__PLAN__OP_TYPE_COMMAND ||
	    plan->command == NULL || plan->command->sql_command == NULL)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023", "no");
	else
		snprintf(prog, sizeof(prog), "%s",
		    plan->command->sql_command->sql);
	for (tok = strtok_r(prog, " ", &save); tok != NULL;
	     tok = strtok_r(NULL, " ", &save)) {
		spark__connect__execute_plan_response__init(&r);
		rc = 0;
		if (strcmp(tok, "schema") == 0) {
			spark__connect__data_type__init(&dt);
			r.schema = &dt;
			rc = sc_exec_emit(op, &r, err);
		} else if (sscanf(tok, "batch:%d:%d", &n, &size) == 2) {
			data = sc_xcalloc(1, (size_t)size + 1);
			for (i = 0; i < n && rc == 0; i++) {
				spark__connect__execute_plan_response__init(&r);
				spark__connect__execute_plan_response__arrow_batch__init(
				    &ab);
				ab.row_count = 1;
				ab.data.data = data;
				ab.data.len = (size_t)size;
				ab._start_offset_case =
				    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH___START_OFFSET_START_OFFSET;
				ab.start_offset = offset++;
				r.response_type_case =
				    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH;
				r.arrow_batch = &ab;
				rc = sc_exec_emit(op, &r, err);
			}
			free(data);
		} else if (sscanf(tok, "sleep:%d", &n) == 1) {
			nanosleep(&(struct timespec){ 0, n * 1000L }, NULL);
		} else if (strcmp(tok, "metrics") == 0) {
			spark__connect__execute_plan_response__metrics__init(
			    &mt);
			r.metrics = &mt;
			rc = sc_exec_emit(op, &r, err);
		} else if (strcmp(tok, "gate") == 0) {
			pthread_mutex_lock(&gate_mu);
			while (!gate_open && !sc_exec_op_canceled(op)) {
				xf_deadline_in(&ts, 1);
				pthread_cond_timedwait(&gate_cv, &gate_mu, &ts);
			}
			pthread_mutex_unlock(&gate_mu);
			if (sc_exec_op_canceled(op))
				return sc_srv_error(err, "OPERATION_CANCELED",
				    "HY008", "Operation has been canceled.");
		} else if (strcmp(tok, "fail") == 0)
			return sc_srv_error(err, "DIVIDE_BY_ZERO", "22012",
			    "Division by zero.");
		if (rc == -1) {
			atomic_fetch_add(&xf_emit_failures, 1);
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------- fixtures */

atomic_llong xf_now = 1000000;

static int64_t
fake_clock(void *arg)
{
	(void)arg;
	return atomic_load(&xf_now);
}

struct sc_server_conf xf_conf;
struct sc_execmgr *xf_mgr;

struct sc_session *
xf_session_new(const char *user, const char *sid)
{
	struct sc_session *s = sc_xcalloc(1, sizeof(*s));

	snprintf(s->user_id, sizeof(s->user_id), "%s", user);
	snprintf(s->session_id, sizeof(s->session_id), "%s", sid);
	if (sc_uuid_v4(s->server_side_id, NULL) == -1)
		SC_BUG("uuid");
	pthread_mutex_init(&s->lock, NULL);
	s->refs = 1000;
	return s;
}

void
xf_mgr_start(size_t completed_max)
{
	struct sc_execmgr_opts o;

	memset(&o, 0, sizeof(o));
	o.clock = fake_clock;
	o.run = fake_run;
	o.transport = xf_reply_ref ? &fake_tr_reply : &fake_tr;
	o.no_timer = true;
	o.completed_max = completed_max;
	xf_mgr = sc_execmgr_new_opts(&xf_conf, &o, NULL);
	if (xf_mgr == NULL)
		SC_BUG("cannot start the execution manager");
}

void
xf_mgr_stop(void)
{
	sc_execmgr_free(xf_mgr);
	xf_mgr = NULL;
}

void
xf_conf_reset(void)
{
	sc_server_conf_default(&xf_conf);
	xf_conf.workers = 2;
}

/* Build and run an ExecutePlan; returns the call. */
struct sc_rpc_call *
xf_execute(struct sc_session *s, const char *opid, const char *prog,
    bool reattachable, const char *tag)
{
	Spark__Connect__ExecutePlanRequest req;
	Spark__Connect__Plan plan;
	Spark__Connect__Command cmd;
	Spark__Connect__SqlCommand sql;
	Spark__Connect__Relation rel;
	Spark__Connect__SQL q;
	Spark__Connect__ExecutePlanRequest__RequestOption opt, *optp = &opt;
	Spark__Connect__ReattachOptions ro;
	char *tags[1];
	struct sc_rpc_call *c = xf_call_new();

	spark__connect__execute_plan_request__init(&req);
	spark__connect__plan__init(&plan);
	spark__connect__command__init(&cmd);
	spark__connect__sql_command__init(&sql);
	spark__connect__execute_plan_request__request_option__init(&opt);
	spark__connect__reattach_options__init(&ro);
	sql.sql = (char *)prog;
	cmd.command_type_case =
	    SPARK__CONNECT__COMMAND__COMMAND_TYPE_SQL_COMMAND;
	cmd.sql_command = &sql;
	plan.op_type_case = SPARK__CONNECT__PLAN__OP_TYPE_COMMAND;
	plan.command = &cmd;
	if (strncmp(prog, "SELECT ", 7) == 0) {
		/* A root SQL relation instead. */
		spark__connect__relation__init(&rel);
		spark__connect__sql__init(&q);
		q.query = (char *)prog;
		rel.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SQL;
		rel.sql = &q;
		plan.op_type_case = SPARK__CONNECT__PLAN__OP_TYPE_ROOT;
		plan.root = &rel;
	}
	req.session_id = s->session_id;
	req.plan = &plan;
	if (opid != NULL) {
		req._operation_id_case =
		    SPARK__CONNECT__EXECUTE_PLAN_REQUEST___OPERATION_ID_OPERATION_ID;
		req.operation_id = (char *)opid;
	}
	if (reattachable) {
		ro.reattachable = true;
		opt.request_option_case =
		    SPARK__CONNECT__EXECUTE_PLAN_REQUEST__REQUEST_OPTION__REQUEST_OPTION_REATTACH_OPTIONS;
		opt.reattach_options = &ro;
		req.n_request_options = 1;
		req.request_options = &optp;
	}
	if (tag != NULL) {
		tags[0] = (char *)tag;
		req.n_tags = 1;
		req.tags = tags;
	}
	sc_exec_execute(xf_mgr, s, c, &req);
	return c;
}

struct sc_rpc_call *
xf_reattach(struct sc_session *s, const char *opid, const char *last)
{
	Spark__Connect__ReattachExecuteRequest req;
	struct sc_rpc_call *c = xf_call_new();

	spark__connect__reattach_execute_request__init(&req);
	req.session_id = s->session_id;
	req.operation_id = (char *)opid;
	if (last != NULL) {
		req._last_response_id_case =
		    SPARK__CONNECT__REATTACH_EXECUTE_REQUEST___LAST_RESPONSE_ID_LAST_RESPONSE_ID;
		req.last_response_id = (char *)last;
	}
	sc_exec_reattach(xf_mgr, s, c, &req);
	return c;
}

/* 0 all, 1 until id, 2 neither. */
int
xf_release(struct sc_session *s, const char *opid, int how, const char *id,
    bool *found, struct sc_error *err)
{
	Spark__Connect__ReleaseExecuteRequest req;
	Spark__Connect__ReleaseExecuteRequest__ReleaseAll all;
	Spark__Connect__ReleaseExecuteRequest__ReleaseUntil until;

	spark__connect__release_execute_request__init(&req);
	spark__connect__release_execute_request__release_all__init(&all);
	spark__connect__release_execute_request__release_until__init(&until);
	req.session_id = s->session_id;
	req.operation_id = (char *)opid;
	if (how == 0) {
		req.release_case =
		    SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_RELEASE_ALL;
		req.release_all = &all;
	} else if (how == 1) {
		req.release_case =
		    SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_RELEASE_UNTIL;
		until.response_id = (char *)id;
		req.release_until = &until;
	}
	sc_error_init(err);
	return sc_exec_release(xf_mgr, s, &req, found, err);
}

/*
 * Wait (5 s at most) until only the test's reference to c is left: the
 * thread that finished a call may still hold the sender's for a moment,
 * as it would hold a real call's.
 */
int
xf_settled_refs(struct sc_rpc_call *c)
{
	int64_t end = sc_mono_ms() + 5000;
	int r;

	while ((r = atomic_load(&c->refs)) != 1 && sc_mono_ms() < end)
		nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	return r;
}

/*
 * Close a call, wait for its references to settle, free it; stores its
 * send-while-in-flight count in *violations and returns the references
 * left (1 when only the test's own is).
 */
int
xf_call_retire(struct sc_rpc_call *c, int *violations)
{
	int refs;

	xf_call_close(c, false);
	*violations = c->violations;
	refs = xf_settled_refs(c);
	xf_call_free(c);
	return refs;
}

static void
find_cb(const struct sc_exec_info *i, void *arg)
{
	struct xf_find *f = arg;

	if (strcmp(i->op_id, f->id) == 0) {
		f->found = true;
		f->tombstone = i->tombstone;
		f->info = *i;
	}
}

struct xf_find
xf_find(const char *id)
{
	struct xf_find f;

	memset(&f, 0, sizeof(f));
	f.id = id;
	sc_execmgr_each(xf_mgr, find_cb, &f);
	return f;
}

/* Wait for an operation's state (5 s). */
bool
xf_wait_state(const char *id, enum sc_exec_state st)
{
	int64_t end = sc_mono_ms() + 5000;
	struct xf_find f;

	do {
		f = xf_find(id);
		if (f.found && !f.tombstone && f.info.state == st)
			return true;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	} while (sc_mono_ms() < end);
	return false;
}
