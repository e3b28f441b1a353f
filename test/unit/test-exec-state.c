/* SPDX-License-Identifier: MIT */

/*
 * test-exec-state.c: the operation state machine: the table of legal
 * transitions, and the races around it run with threads against the
 * manager (fake calls acked by a thread, a fake runner): interrupt
 * before start, interrupt against completion, release during send,
 * reattach during completion, session close while running, and
 * concurrent ExecutePlans with one operation id.  Each race runs many
 * times and checks that every outcome is one of the legal ones.
 */

#include "server/exec.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/timeutil.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

/* ------------------------------------------------------ fake calls */

struct sc_rpc_call {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	atomic_int refs;
	Spark__Connect__ExecutePlanResponse **msgs;
	size_t nmsgs;
	bool in_flight;
	sc_rpc_sent_fn *sent;
	void *sent_arg;
	bool finished;
	int code;
	char status[2048];
	char errclass[128];
	sc_rpc_close_fn *close_fn;
	void *close_arg;
	int violations; /* send with one in flight */
};

static struct sc_rpc_call *
call_new(void)
{
	struct sc_rpc_call *c = sc_xcalloc(1, sizeof(*c));

	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	atomic_init(&c->refs, 1);
	c->code = -1;
	return c;
}

static void
call_free(struct sc_rpc_call *c)
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

/* Complete the send in flight, if any (the transport's sent()). */
static bool
ack(struct sc_rpc_call *c, bool okay)
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
static void
call_close(struct sc_rpc_call *c, bool cancelled)
{
	sc_rpc_close_fn *fn;
	void *arg;

	ack(c, false);
	pthread_mutex_lock(&c->mu);
	fn = c->close_fn;
	arg = c->close_arg;
	c->close_fn = NULL;
	pthread_mutex_unlock(&c->mu);
	if (fn != NULL)
		fn(c, cancelled, arg);
}

static void
deadline_in(struct timespec *ts, int ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static bool
has_complete(const Spark__Connect__ExecutePlanResponse *r)
{
	return r->response_type_case ==
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_RESULT_COMPLETE;
}

static bool
is_batch(const Spark__Connect__ExecutePlanResponse *r)
{
	return r->response_type_case ==
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH;
}

/* --------------------------------------------------- fake runner */

static atomic_int runs;
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static bool gate_open;
static atomic_int emit_failures;

static void
gate_set(bool open)
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
	atomic_fetch_add(&runs, 1);
	if (plan == NULL || plan->command == NULL ||
	    plan->command->sql_command == NULL)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023", "no");
	snprintf(prog, sizeof(prog), "%s", plan->command->sql_command->sql);
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
				deadline_in(&ts, 1);
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
			atomic_fetch_add(&emit_failures, 1);
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------- fixtures */

static atomic_llong fake_now = 1000000;

static int64_t
fake_clock(void *arg)
{
	(void)arg;
	return atomic_load(&fake_now);
}

static struct sc_server srv;
static struct sc_execmgr *mgr;

static struct sc_session *
session_new(const char *user, const char *sid)
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

static void
mgr_start(size_t completed_max)
{
	struct sc_execmgr_opts o;

	memset(&o, 0, sizeof(o));
	o.clock = fake_clock;
	o.run = fake_run;
	o.transport = &fake_tr;
	o.no_timer = true;
	o.completed_max = completed_max;
	mgr = sc_execmgr_new_opts(&srv, &o);
}

static void
mgr_stop(void)
{
	sc_execmgr_free(mgr);
	mgr = NULL;
}

static void
conf_reset(void)
{
	sc_server_conf_default(&srv.conf);
	srv.conf.workers = 2;
}

/* Build and run an ExecutePlan; returns the call. */
static struct sc_rpc_call *
execute(struct sc_session *s, const char *opid, const char *prog,
    bool reattachable, const char *tag)
{
	Spark__Connect__ExecutePlanRequest req;
	Spark__Connect__Plan plan;
	Spark__Connect__Command cmd;
	Spark__Connect__SqlCommand sql;
	Spark__Connect__ExecutePlanRequest__RequestOption opt, *optp = &opt;
	Spark__Connect__ReattachOptions ro;
	char *tags[1];
	struct sc_rpc_call *c = call_new();

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
	sc_exec_execute(mgr, s, c, &req);
	return c;
}

static struct sc_rpc_call *
reattach(struct sc_session *s, const char *opid, const char *last)
{
	Spark__Connect__ReattachExecuteRequest req;
	struct sc_rpc_call *c = call_new();

	spark__connect__reattach_execute_request__init(&req);
	req.session_id = s->session_id;
	req.operation_id = (char *)opid;
	if (last != NULL) {
		req._last_response_id_case =
		    SPARK__CONNECT__REATTACH_EXECUTE_REQUEST___LAST_RESPONSE_ID_LAST_RESPONSE_ID;
		req.last_response_id = (char *)last;
	}
	sc_exec_reattach(mgr, s, c, &req);
	return c;
}

/* 0 all, 1 until id, 2 neither. */
static int
release(struct sc_session *s, const char *opid, int how, const char *id,
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
	return sc_exec_release(mgr, s, &req, found, err);
}

/*
 * Wait (5 s at most) until only the test's reference to c is left: the
 * thread that finished a call may still hold the sender's for a moment,
 * as it would hold a real call's.
 */
static int
settled_refs(struct sc_rpc_call *c)
{
	int64_t end = sc_mono_ms() + 5000;
	int r;

	while ((r = atomic_load(&c->refs)) != 1 && sc_mono_ms() < end)
		nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	return r;
}

/* Close and free a call; its references must all be gone. */
static int leaks, violations;

static void
done(struct sc_rpc_call *c, const char *what)
{
	(void)what;
	call_close(c, false);
	violations += c->violations;
	if (settled_refs(c) != 1)
		leaks++;
	call_free(c);
}

struct find {
	const char *id;
	struct sc_exec_info info;
	bool found;
	bool tombstone;
};

static void
find_cb(const struct sc_exec_info *i, void *arg)
{
	struct find *f = arg;

	if (strcmp(i->op_id, f->id) == 0) {
		f->found = true;
		f->tombstone = i->tombstone;
		f->info = *i;
	}
}

static struct find
find(const char *id)
{
	struct find f;

	memset(&f, 0, sizeof(f));
	f.id = id;
	sc_execmgr_each(mgr, find_cb, &f);
	return f;
}

/* Wait for an operation's state (5 s). */
static bool
wait_state(const char *id, enum sc_exec_state st)
{
	int64_t end = sc_mono_ms() + 5000;
	struct find f;

	do {
		f = find(id);
		if (f.found && !f.tombstone && f.info.state == st)
			return true;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	} while (sc_mono_ms() < end);
	return false;
}

#define OP1 "6a0b3c1e-1111-4aaa-8bbb-000000000001"
#define OP2 "6a0b3c1e-1111-4aaa-8bbb-000000000002"
#define OP3 "6a0b3c1e-1111-4aaa-8bbb-000000000003"
#define OP4 "6a0b3c1e-1111-4aaa-8bbb-000000000004"
#define OP5 "6a0b3c1e-1111-4aaa-8bbb-000000000005"
#define SID "00112233-4455-6677-8899-aabbccddeeff"
#define SID2 "00112233-4455-6677-8899-aabbccddee00"

/* --------------------------------------------------------- acker */

static pthread_mutex_t ack_mu = PTHREAD_MUTEX_INITIALIZER;
static struct sc_rpc_call *ack_calls[64];
static size_t ack_n;
static atomic_bool ack_stop;
static pthread_t ack_thr;

static void *
acker(void *arg)
{
	size_t i;

	(void)arg;
	while (!atomic_load(&ack_stop)) {
		pthread_mutex_lock(&ack_mu);
		for (i = 0; i < ack_n; i++)
			ack(ack_calls[i], true);
		pthread_mutex_unlock(&ack_mu);
		sched_yield();
	}
	return NULL;
}

static void
acked(struct sc_rpc_call *c)
{
	pthread_mutex_lock(&ack_mu);
	ack_calls[ack_n++] = c;
	pthread_mutex_unlock(&ack_mu);
}

static void
unacked(struct sc_rpc_call *c)
{
	size_t i;

	pthread_mutex_lock(&ack_mu);
	for (i = 0; i < ack_n; i++)
		if (ack_calls[i] == c) {
			ack_calls[i] = ack_calls[--ack_n];
			break;
		}
	pthread_mutex_unlock(&ack_mu);
}

/* Wait until the acker has nothing left in flight on c and c ended. */
static bool
settle(struct sc_rpc_call *c)
{
	int64_t end = sc_mono_ms() + 5000;
	bool r = false;

	while (sc_mono_ms() < end) {
		pthread_mutex_lock(&c->mu);
		r = c->finished && !c->in_flight;
		pthread_mutex_unlock(&c->mu);
		if (r)
			break;
		nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	return r;
}

static void
opid(char *out, int family, int n)
{
	snprintf(out, SC_UUID_STRLEN, "7b1c2d3e-%04d-4aaa-8bbb-%012d", family,
	    n);
}

static void
random_pause(unsigned *seed)
{
	int k = (int)(rand_r(seed) % 200), i;

	for (i = 0; i < k; i++)
		sched_yield();
}

/* ---------------------------------------------------------- tests */

static void
test_table(void)
{
	/* from \ to: PENDING RUNNING FINISHED FAILED CANCELED CLOSED */
	static const bool want[SC_EXEC_NSTATES][SC_EXEC_NSTATES] = {
		{ 0, 1, 0, 0, 1, 0 }, /* PENDING */
		{ 0, 0, 1, 1, 1, 0 }, /* RUNNING */
		{ 0, 0, 0, 0, 0, 1 }, /* FINISHED */
		{ 0, 0, 0, 0, 0, 1 }, /* FAILED */
		{ 0, 0, 0, 0, 0, 1 }, /* CANCELED */
		{ 0, 0, 0, 0, 0, 0 }, /* CLOSED */
	};
	int f, t, bad = 0;

	for (f = 0; f < SC_EXEC_NSTATES; f++)
		for (t = 0; t < SC_EXEC_NSTATES; t++) {
			bool got = sc_exec_state_legal((enum sc_exec_state)f,
			    (enum sc_exec_state)t);

			ok(got == want[f][t], "%s -> %s is %s",
			    sc_exec_state_name((enum sc_exec_state)f),
			    sc_exec_state_name((enum sc_exec_state)t),
			    want[f][t] ? "legal" : "illegal");
			if (got != want[f][t])
				bad++;
		}
	is_int(bad, 0, "transition table");
	is_str(sc_exec_state_name(SC_EXEC_CANCELED), "CANCELED", "name");
	is_str(sc_exec_state_name((enum sc_exec_state)42), "?",
	    "out-of-range name");
}

/*
 * With every worker busy, a queued operation interrupted before a worker
 * takes it never runs; the others are not affected.
 */
static void
test_interrupt_pending(struct sc_session *s)
{
	char a[8][SC_UUID_STRLEN], b[SC_UUID_STRLEN];
	struct sc_rpc_call *ca[8], *cb;
	struct sc_error err;
	char **ids;
	size_t n, i;
	int k, w, nw = srv.conf.workers, before, good = 0;
	bool found, fine;

	for (k = 0; k < 50; k++) {
		gate_set(false);
		before = atomic_load(&runs);
		for (w = 0; w < nw; w++) {
			opid(a[w], 1, 8 * k + w);
			ca[w] = execute(s, a[w], "gate", true, NULL);
			wait_state(a[w], SC_EXEC_RUNNING);
			acked(ca[w]);
		}
		opid(b, 1, 8 * k + 7);
		cb = execute(s, b, "batch:1:1", true, NULL);
		acked(cb);
		fine = wait_state(b, SC_EXEC_PENDING);
		sc_exec_interrupt(mgr, s, 3, b, &ids, &n, &err);
		gate_set(true);
		for (w = 0; w < nw; w++) {
			settle(ca[w]);
			if (ca[w]->code != SC_GRPC_OK)
				fine = false;
		}
		settle(cb);
		if (fine && n == 1 && strcmp(ids[0], b) == 0 &&
		    strcmp(cb->errclass, "OPERATION_CANCELED") == 0 &&
		    cb->nmsgs == 0 && atomic_load(&runs) - before == nw &&
		    wait_state(b, SC_EXEC_CANCELED))
			good++;
		for (i = 0; i < n; i++)
			free(ids[i]);
		free(ids);
		for (w = 0; w < nw; w++) {
			unacked(ca[w]);
			release(s, a[w], 0, NULL, &found, &err);
			done(ca[w], "pending a");
		}
		unacked(cb);
		release(s, b, 0, NULL, &found, &err);
		done(cb, "pending b");
	}
	is_int(good, 50,
	    "interrupt while PENDING: CANCELED, never run, "
	    "OPERATION_CANCELED; the running ones finish (50 runs)");
}

struct racer {
	struct sc_session *s;
	const char *id;
	unsigned seed;
	char **ids;
	size_t n;
	int rc;
};

static atomic_bool go;

static void *
interrupter(void *arg)
{
	struct racer *r = arg;
	struct sc_error err;

	while (!atomic_load(&go))
		;
	nanosleep(&(struct timespec){ 0,
		      (long)(rand_r(&r->seed) % 800) * 1000L },
	    NULL);
	r->rc = sc_exec_interrupt(mgr, r->s, 3, r->id, &r->ids, &r->n, &err);
	return NULL;
}

/*
 * Interrupt racing with start and completion: either the interrupt won
 * (listed, CANCELED, the stream ends with OPERATION_CANCELED after what
 * was produced) or the operation finished (not listed, FINISHED,
 * ResultComplete, OK).
 */
static void
test_interrupt_race(struct sc_session *s)
{
	struct racer r;
	struct sc_rpc_call *c;
	pthread_t t;
	char id[SC_UUID_STRLEN];
	int k, canceled = 0, finished = 0, bad = 0;
	size_t i;
	bool found;
	struct sc_error err;
	struct find f;

	for (k = 0; k < 300; k++) {
		opid(id, 2, k);
		memset(&r, 0, sizeof(r));
		r.s = s;
		r.id = id;
		r.seed = (unsigned)k;
		atomic_store(&go, false);
		pthread_create(&t, NULL, interrupter, &r);
		atomic_store(&go, true);
		c = execute(s, id, "batch:1:10 sleep:300 batch:2:10", true,
		    NULL);
		acked(c);
		pthread_join(t, NULL);
		if (!settle(c))
			bad++;
		f = find(id);
		if (r.rc == 0 && r.n == 1) {
			if (strcmp(c->errclass, "OPERATION_CANCELED") == 0 &&
			    f.info.state == SC_EXEC_CANCELED &&
			    (c->nmsgs == 0 ||
				!has_complete(c->msgs[c->nmsgs - 1])))
				canceled++;
			else
				bad++;
		} else if (r.rc == 0 && r.n == 0) {
			if (c->code == SC_GRPC_OK && c->nmsgs == 4 &&
			    has_complete(c->msgs[3]) &&
			    f.info.state == SC_EXEC_FINISHED)
				finished++;
			else
				bad++;
		} else
			bad++;
		for (i = 0; i < r.n; i++)
			free(r.ids[i]);
		free(r.ids);
		unacked(c);
		release(s, id, 0, NULL, &found, &err);
		done(c, "interrupt race");
	}
	is_int(bad, 0,
	    "interrupt vs completion: only legal outcomes "
	    "(%d canceled, %d finished)",
	    canceled, finished);
	is_int(canceled + finished, 300, "interrupt vs completion: 300 runs");
}

static void *
releaser(void *arg)
{
	struct racer *r = arg;
	struct sc_error err;
	bool found;

	while (!atomic_load(&go))
		;
	random_pause(&r->seed);
	r->rc = release(r->s, r->id, 0, NULL, &found, &err);
	r->n = found;
	return NULL;
}

/*
 * release_all while responses are being sent: the stream ends with
 * DISCONNECTED, or completed first; the operation is gone either way.
 */
static void
test_release_race(struct sc_session *s)
{
	struct racer r;
	struct sc_rpc_call *c;
	pthread_t t;
	char id[SC_UUID_STRLEN];
	int k, disc = 0, compl = 0, bad = 0;

	for (k = 0; k < 300; k++) {
		opid(id, 3, k);
		memset(&r, 0, sizeof(r));
		r.s = s;
		r.id = id;
		r.seed = (unsigned)k * 7;
		atomic_store(&go, false);
		pthread_create(&t, NULL, releaser, &r);
		c = execute(s, id, "batch:20:100", true, NULL);
		acked(c);
		atomic_store(&go, true);
		pthread_join(t, NULL);
		if (!settle(c) || r.rc != 0 || r.n != 1 || find(id).found)
			bad++;
		else if (strcmp(c->errclass, "INVALID_CURSOR.DISCONNECTED") ==
		    0)
			disc++;
		else if (c->code == SC_GRPC_OK && c->nmsgs == 21 &&
		    has_complete(c->msgs[20]))
			compl ++;
		else
			bad++;
		unacked(c);
		done(c, "release race");
	}
	is_int(bad, 0,
	    "release during send: only legal outcomes (%d "
	    "disconnected, %d complete)",
	    disc, compl );
	is_int(disc + compl, 300, "release during send: 300 runs");
}

/*
 * Reattach while the operation completes: the old stream is
 * disconnected (or already ended); the new one resumes right after the
 * last response id the client saw and ends with ResultComplete.
 */
static void
test_reattach_race(struct sc_session *s)
{
	struct sc_rpc_call *c, *c2;
	char id[SC_UUID_STRLEN], last[SC_UUID_STRLEN];
	int k, bad = 0, disc = 0;
	int64_t seen, want_first;
	unsigned seed = 99;
	bool found;
	struct sc_error err;
	size_t i;

	for (k = 0; k < 300; k++) {
		opid(id, 4, k);
		c = execute(s, id, "batch:5:10 sleep:200 batch:5:10", true,
		    NULL);
		acked(c);
		random_pause(&seed);
		pthread_mutex_lock(&c->mu);
		seen = (int64_t)c->nmsgs;
		if (seen > 0)
			snprintf(last, sizeof(last), "%s",
			    c->msgs[seen - 1]->response_id);
		pthread_mutex_unlock(&c->mu);
		c2 = reattach(s, id, seen > 0 ? last : NULL);
		acked(c2);
		if (!settle(c) || !settle(c2)) {
			bad++;
			goto next;
		}
		if (strcmp(c->errclass, "INVALID_CURSOR.DISCONNECTED") == 0)
			disc++;
		else if (c->code != SC_GRPC_OK)
			bad++;
		/* Indices: batches 1..10 have start_offset 0..9; 11 done. */
		want_first = seen + 1;
		if (c2->code != SC_GRPC_OK || (int64_t)c2->nmsgs != 11 - seen) {
			bad++;
			goto next;
		}
		for (i = 0; i < c2->nmsgs; i++) {
			int64_t index = want_first + (int64_t)i;

			if (index <= 10 &&
			    (!is_batch(c2->msgs[i]) ||
				c2->msgs[i]->arrow_batch->start_offset !=
				    index - 1))
				bad++;
			if (index == 11 && !has_complete(c2->msgs[i]))
				bad++;
		}
next:
		unacked(c);
		unacked(c2);
		release(s, id, 0, NULL, &found, &err);
		done(c, "reattach race old");
		done(c2, "reattach race new");
	}
	is_int(bad, 0,
	    "reattach during completion: resumes exactly after "
	    "the last seen id (%d disconnected)",
	    disc);
}

/* The session closes while its operations run. */
static void
test_session_close_race(void)
{
	struct sc_session *s;
	struct sc_rpc_call *c;
	char id[SC_UUID_STRLEN], sid[64];
	int k, bad = 0;
	unsigned seed = 5;
	struct find f;

	for (k = 0; k < 200; k++) {
		snprintf(sid, sizeof(sid), "00112233-4455-6677-8899-%012d", k);
		s = session_new("carol", sid);
		opid(id, 5, k);
		c = execute(s, id, "batch:50:10", true, NULL);
		acked(c);
		random_pause(&seed);
		pthread_mutex_lock(&s->lock);
		s->closed = true;
		pthread_mutex_unlock(&s->lock);
		sc_exec_session_closed(mgr, s);
		if (!settle(c))
			bad++;
		else if (strcmp(c->errclass, "INVALID_CURSOR.DISCONNECTED") !=
			0 &&
		    !(c->code == SC_GRPC_OK && c->nmsgs == 51))
			bad++;
		f = find(id);
		if (!f.found || !f.tombstone)
			bad++;
		unacked(c);
		done(c, "session close race");
		/* Its worker may still be unwinding: wait for the refs. */
		{
			int64_t end = sc_mono_ms() + 5000;
			int refs;

			do {
				pthread_mutex_lock(&s->lock);
				refs = s->refs;
				pthread_mutex_unlock(&s->lock);
				if (refs == 1000)
					break;
				nanosleep(&(struct timespec){ 0, 100000 },
				    NULL);
			} while (sc_mono_ms() < end);
			if (refs != 1000)
				bad++;
		}
		pthread_mutex_destroy(&s->lock);
		free(s);
	}
	is_int(bad, 0,
	    "session close while running: DISCONNECTED or "
	    "complete, tombstoned, references released (200 runs)");
}

struct dup {
	struct sc_session *s;
	const char *id;
	struct sc_rpc_call *c;
};

static void *
dup_exec(void *arg)
{
	struct dup *d = arg;

	d->c = execute(d->s, d->id, "batch:2:10", true, NULL);
	return NULL;
}

/* Eight ExecutePlans with one id at once: exactly one runs. */
static void
test_duplicate_race(struct sc_session *s)
{
	struct dup d[8];
	pthread_t t[8];
	char id[SC_UUID_STRLEN];
	int k, i, bad = 0, winners, exists;
	bool found;
	struct sc_error err;

	for (k = 0; k < 50; k++) {
		opid(id, 6, k);
		for (i = 0; i < 8; i++) {
			d[i].s = s;
			d[i].id = id;
			pthread_create(&t[i], NULL, dup_exec, &d[i]);
		}
		for (i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
		winners = exists = 0;
		for (i = 0; i < 8; i++) {
			acked(d[i].c);
			settle(d[i].c);
			if (d[i].c->code == SC_GRPC_OK && d[i].c->nmsgs == 3)
				winners++;
			else if (strcmp(d[i].c->errclass,
				     "INVALID_HANDLE.OPERATION_ALREADY_EXISTS") ==
			    0)
				exists++;
			unacked(d[i].c);
		}
		if (winners != 1 || exists != 7)
			bad++;
		release(s, id, 0, NULL, &found, &err);
		for (i = 0; i < 8; i++)
			done(d[i].c, "duplicate");
	}
	is_int(bad, 0,
	    "concurrent ExecutePlan with one id: one runs, seven "
	    "get OPERATION_ALREADY_EXISTS (50 runs)");
}

int
main(void)
{
	struct sc_session *s;

	test_table();
	conf_reset();
	srv.conf.workers = 4;
	mgr_start(0);
	pthread_create(&ack_thr, NULL, acker, NULL);
	s = session_new("alice", SID);
	test_interrupt_pending(s);
	test_interrupt_race(s);
	test_release_race(s);
	test_reattach_race(s);
	test_session_close_race();
	test_duplicate_race(s);
	atomic_store(&ack_stop, true);
	pthread_join(ack_thr, NULL);
	mgr_stop();
	is_int(violations, 0, "flow control: never two sends in flight");
	is_int(leaks, 0, "every call reference released");
	is_int(s->refs, 1000, "session references all released");
	pthread_mutex_destroy(&s->lock);
	free(s);
	return tap_done();
}
