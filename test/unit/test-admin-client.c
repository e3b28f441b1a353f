/* SPDX-License-Identifier: MIT */

/*
 * test-admin-client.c: core/inspect, the admin service's client, against a scripted fake transport:
 * what each request carries (the caller, the filter), how answers become
 * plain views (unknown enum values included), the message for a server
 * without the service, retries, NOT_FOUND, the Watch stream; and the
 * fields: names, lists, every kind of value for machines and people,
 * and ordering.
 */

#include "core/inspect.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/conn.h"
#include "core/error.h"
#include "core/protocol.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

/* ------------------------------------------------------ fake transport */

#define MAX_SCRIPT 8

struct reply {
	int code; /* 0: answer with bytes, else this gRPC status */
	uint8_t *bytes;
	size_t len;
};

static struct {
	struct reply r[MAX_SCRIPT];
	size_t n, next;
	char method[128];
	uint8_t *req; /* the last request */
	size_t reqlen;
	int calls;
} fx;

static void
fx_reset(void)
{
	size_t i;

	for (i = 0; i < fx.n; i++)
		free(fx.r[i].bytes);
	free(fx.req);
	memset(&fx, 0, sizeof(fx));
}

static void
fx_answer(const ProtobufCMessage *m)
{
	struct reply *r = &fx.r[fx.n++];

	r->code = 0;
	r->bytes = sc_proto_pack_alloc(m, &r->len);
}

static void
fx_fail(int code)
{
	fx.r[fx.n++].code = code;
}

static void
fx_raw(const void *p, size_t n)
{
	struct reply *r = &fx.r[fx.n++];

	r->bytes = sc_xmemdup(p, n);
	r->len = n;
}

static int
next_reply(struct sc_buf *out, struct sc_error *err)
{
	struct reply *r;

	if (fx.next == fx.n)
		return sc_error_from_grpc(err, SC_GRPC_INTERNAL, "no script",
		    NULL, 0);
	r = &fx.r[fx.next++];
	if (r->code != 0)
		return sc_error_from_grpc(err, r->code, "scripted failure",
		    NULL, 0);
	return sc_buf_add(out, r->bytes, r->len, err);
}

static void
keep_request(const char *method, const void *req, size_t reqlen)
{
	snprintf(fx.method, sizeof(fx.method), "%s", method);
	free(fx.req);
	fx.req = sc_xmemdup(req, reqlen > 0 ? reqlen : 1);
	fx.reqlen = reqlen;
	fx.calls++;
}

static int
f_unary(void *ctx, const char *method, const void *req, size_t reqlen,
    struct sc_buf *resp, const struct timespec *deadline, struct sc_error *err)
{
	(void)ctx;
	(void)deadline;
	keep_request(method, req, reqlen);
	return next_reply(resp, err);
}

static int stream_token;

static void *
f_open(void *ctx, const char *method, const void *req, size_t reqlen,
    const struct timespec *deadline, struct sc_error *err)
{
	(void)ctx;
	(void)deadline;
	(void)err;
	keep_request(method, req, reqlen);
	return &stream_token;
}

static int
f_read(void *stream, struct sc_buf *msg, const struct timespec *wait_until,
    struct sc_error *err)
{
	(void)stream;
	(void)wait_until;
	sc_buf_reset(msg);
	if (fx.next == fx.n)
		return 0;
	return next_reply(msg, err) == 0 ? 1 : -1;
}

static void
f_stream(void *stream)
{
	(void)stream;
}

static const struct sc_transport fake = { f_open, f_read, f_stream, f_stream,
	f_unary, NULL, NULL, NULL };

static int nevents;

static void
count_event(const struct sc_client_event *ev, void *arg)
{
	(void)arg;
	if (ev->kind == SC_CLIENT_EV_RETRY)
		nevents++;
}

static struct sc_inspect *
fake_admin(bool admin_token)
{
	struct sc_inspect_opts o;

	memset(&o, 0, sizeof(o));
	o.admin_token = admin_token ? "secret" : NULL;
	o.on_event = count_event;
	return sc_inspect_new_transport(&fake, NULL, "sc://h:1", "alice", &o,
	    NULL);
}

/* The last request, decoded as d. */
static void *
last_request(const ProtobufCMessageDescriptor *d)
{
	return sc_proto_unpack(d, fx.req, fx.reqlen, NULL);
}

/* ------------------------------------------------------------ fixtures */

/* A string literal in a generated message (its fields are char *). */
#define S(x) ((char *)(x))

static char *tags2[] = { S("etl"), S("nightly") };

static void
fill_exec(Sctk__Admin__V1__Execution *e, const char *op)
{
	sctk__admin__v1__execution__init(e);
	e->operation_id = (char *)op;
	e->session_id = S("aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa");
	e->user_id = S("alice");
	e->n_tags = 2;
	e->tags = tags2;
	e->statement = S("SELECT * FROM big");
	e->state = SCTK__ADMIN__V1__EXECUTION_STATE__EXECUTION_STATE_RUNNING;
	e->reattachable = true;
	e->created_at_ms = 1700000000250;
	e->started_at_ms = 1700000001000;
	e->attached = false;
	e->detached_since_at_ms = 1700000000000;
	e->abandon_in_ms = 60000;
	e->responses_produced = 10;
	e->responses_sent = 8;
	e->responses_released = 5;
	e->buffered_bytes = 1536;
	e->rows_sent = 1000;
	e->bytes_sent = 99999;
	e->rotations = 2;
	e->reattaches = 1;
	e->last_error_class = S("");
	e->server_side_session_id = S("ssid-1");
}

/* -------------------------------------------------------------- tests */

static void
test_states(void)
{
	enum sc_inspect_state s;

	is_str(sc_inspect_state_name(SC_INSPECT_STATE_PENDING), "pending",
	    "state name pending");
	is_str(sc_inspect_state_name(SC_INSPECT_STATE_CLOSED), "closed",
	    "state name closed");
	is_str(sc_inspect_state_name((enum sc_inspect_state)42), "unknown",
	    "a state this client lacks is unknown");
	ok(sc_inspect_state_parse("canceled", &s) == 0 &&
		s == SC_INSPECT_STATE_CANCELED,
	    "parse canceled");
	ok(sc_inspect_state_parse("unknown", &s) == -1,
	    "unknown is not a state to ask for");
	ok(sc_inspect_state_parse("RUNNING", &s) == -1,
	    "states are lower case");
	is_str(sc_inspect_event_name(SC_INSPECT_EV_REMOVED), "removed",
	    "event name removed");
	is_str(sc_inspect_event_name((enum sc_inspect_event_kind)99), "unknown",
	    "unknown event");
	is_str(sc_inspect_tomb_kind_name(SC_INSPECT_TOMB_SESSION), "session",
	    "tombstone kind");
}

static void
test_list(void)
{
	Sctk__Admin__V1__ListExecutionsResponse resp =
	    SCTK__ADMIN__V1__LIST_EXECUTIONS_RESPONSE__INIT;
	Sctk__Admin__V1__Execution e1, e2, *v[2] = { &e1, &e2 };
	Sctk__Admin__V1__ListExecutionsRequest *rq;
	static const enum sc_inspect_state st[] = { SC_INSPECT_STATE_RUNNING,
		SC_INSPECT_STATE_FINISHED };
	struct sc_inspect_filter f = { "s-1", "bob", "etl", st, 2, 600000,
		7200000 };
	struct sc_inspect_exec_list l;
	struct sc_error err;
	struct sc_inspect *a;

	fx_reset();
	fill_exec(&e1, "op-1");
	fill_exec(&e2, "op-2");
	e2.state = (Sctk__Admin__V1__ExecutionState)42;
	e2.n_tags = 0;
	e2.tags = NULL;
	e2.attached = true;
	e2.last_error_class = S("DIVIDE_BY_ZERO");
	resp.n_executions = 2;
	resp.executions = v;
	resp.truncated = true;
	resp.server_time_ms = 1700000612250;
	fx_answer(&resp.base);
	a = fake_admin(false);
	ok(sc_inspect_list(a, &f, 50, &l, NULL, &err) == 0, "ListExecutions");
	is_str(fx.method, "/sctk.admin.v1.AdminService/ListExecutions",
	    "method path");
	rq =
	    last_request(&sctk__admin__v1__list_executions_request__descriptor);
	ok(rq != NULL && rq->caller != NULL && rq->filter != NULL,
	    "request decodes");
	if (rq != NULL && rq->caller != NULL && rq->filter != NULL) {
		is_str(rq->caller->user_id, "alice", "caller's user id");
		is_str(rq->filter->session_id, "s-1", "filter session");
		is_str(rq->filter->user_id, "bob", "filter user");
		is_str(rq->filter->tag, "etl", "filter tag");
		is_int(rq->filter->n_states, 2, "two states");
		is_int(rq->filter->states[1],
		    SCTK__ADMIN__V1__EXECUTION_STATE__EXECUTION_STATE_FINISHED,
		    "state numbers as in the protocol");
		is_int(rq->filter->detached_for_ms, 600000, "detached for");
		is_int(rq->filter->older_than_ms, 7200000, "older than");
		is_int(rq->limit, 50, "limit");
	}
	if (rq != NULL)
		protobuf_c_message_free_unpacked(&rq->base, NULL);
	is_int(l.n, 2, "two executions");
	ok(l.truncated, "truncated");
	is_int(l.server_time_ms, 1700000612250, "server time");
	is_str(l.v[0].operation_id, "op-1", "operation id");
	is_str(l.v[0].session_id, "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa",
	    "session id");
	is_int(l.v[0].ntags, 2, "tags");
	is_str(l.v[0].tags[1], "nightly", "second tag");
	is_int(l.v[0].state, SC_INSPECT_STATE_RUNNING, "running");
	is_int(l.v[0].buffered_bytes, 1536, "buffered bytes");
	is_int(l.v[0].abandon_in_ms, 60000, "abandon in");
	is_str(l.v[0].server_side_session_id, "ssid-1", "server-side id");
	is_int(l.v[1].state, SC_INSPECT_STATE_UNKNOWN,
	    "an unknown state value is unknown");
	is_int(l.v[1].raw_state, 42, "and its number is kept");
	is_int(l.v[1].ntags, 0, "no tags");
	is_str(l.v[1].last_error_class, "DIVIDE_BY_ZERO", "error class");
	sc_inspect_exec_list_release(&l);
	ok(l.v == NULL && l.msg == NULL, "released");

	/* No filter at all: an empty one, and no limit. */
	resp.n_executions = 0;
	resp.truncated = false;
	fx_answer(&resp.base);
	ok(sc_inspect_list(a, NULL, 0, &l, NULL, &err) == 0 && l.n == 0,
	    "empty list without a filter");
	rq =
	    last_request(&sctk__admin__v1__list_executions_request__descriptor);
	ok(rq != NULL && rq->filter != NULL &&
		rq->filter->session_id[0] == '\0' &&
		rq->filter->n_states == 0 && rq->limit == 0,
	    "no conditions sent");
	if (rq != NULL)
		protobuf_c_message_free_unpacked(&rq->base, NULL);
	sc_inspect_exec_list_release(&l);
	sc_inspect_free(a);
}

static void
test_errors(void)
{
	static const uint8_t junk[] = { 0x0a, 0xff, 0xff };
	struct sc_inspect_exec_list l;
	struct sc_inspect_stats st;
	struct sc_error err;
	struct sc_inspect *a;

	fx_reset();
	a = fake_admin(false);
	fx_fail(SC_GRPC_UNIMPLEMENTED);
	sc_error_init(&err);
	ok(sc_inspect_list(a, NULL, 0, &l, NULL, &err) == -1,
	    "UNIMPLEMENTED fails");
	is_int(err.status, SC_ST_PROTOCOL, "as a protocol error (exit 7)");
	is_str(err.msg,
	    "the server at 'sc://h:1' has no sctk admin service (not sc-serve?)",
	    "in plain words");
	is_int(err.rpc_code, SC_GRPC_UNIMPLEMENTED, "the code is kept");
	is_int(fx.calls, 1, "not retried");

	/*
	 * UNAVAILABLE is retried: only 3 times before the server answers
	 * (this one has: UNIMPLEMENTED came from a server).
	 */
	sc_inspect_free(a);
	a = fake_admin(false);
	fx_reset();
	nevents = 0;
	fx_fail(SC_GRPC_UNAVAILABLE);
	fx_fail(SC_GRPC_UNAVAILABLE);
	fx_fail(SC_GRPC_UNAVAILABLE);
	fx_fail(SC_GRPC_UNAVAILABLE);
	fx_fail(SC_GRPC_UNAVAILABLE);
	ok(sc_inspect_stats(a, &st, NULL, &err) == -1, "unreachable fails");
	is_int(err.status, SC_ST_UNAVAILABLE, "status 4");
	is_int(fx.calls, 4, "one call and 3 retries");
	is_int(nevents, 3, "a retry event each");

	fx_reset();
	nevents = 0;
	fx_fail(SC_GRPC_UNAVAILABLE);
	{
		Sctk__Admin__V1__GetStatsResponse r =
		    SCTK__ADMIN__V1__GET_STATS_RESPONSE__INIT;

		r.version = S("v");
		fx_answer(&r.base);
	}
	ok(sc_inspect_stats(a, &st, NULL, &err) == 0, "a retry succeeds");
	is_int(nevents, 1, "after one retry event");
	is_str(st.version, "v", "with the answer");

	fx_reset();
	fx_fail(SC_GRPC_PERMISSION_DENIED);
	ok(sc_inspect_stats(a, &st, NULL, &err) == -1 &&
		err.status == SC_ST_DENIED,
	    "PERMISSION_DENIED is status 8");
	is_int(fx.calls, 1, "and not retried");

	fx_reset();
	fx_raw(junk, sizeof(junk));
	ok(sc_inspect_list(a, NULL, 0, &l, NULL, &err) == -1 &&
		err.status == SC_ST_PROTOCOL,
	    "a malformed answer is a protocol error");
	is_str(err.msg, "malformed ListExecutionsResponse message",
	    "naming the message");
	sc_inspect_free(a);
}

static void
test_get(void)
{
	Sctk__Admin__V1__GetExecutionResponse r =
	    SCTK__ADMIN__V1__GET_EXECUTION_RESPONSE__INIT;
	Sctk__Admin__V1__GetExecutionRequest *rq;
	Sctk__Admin__V1__Execution e;
	struct sc_inspect_exec_list l;
	struct sc_error err;
	struct sc_inspect *a;

	fx_reset();
	a = fake_admin(false);
	fill_exec(&e, "op-9");
	r.execution = &e;
	r.server_time_ms = 5;
	fx_answer(&r.base);
	ok(sc_inspect_get(a, "op-9", &l, NULL, &err) == 0 && l.n == 1,
	    "GetExecution");
	is_str(fx.method, "/sctk.admin.v1.AdminService/GetExecution",
	    "method path");
	rq = last_request(&sctk__admin__v1__get_execution_request__descriptor);
	ok(rq != NULL && strcmp(rq->operation_id, "op-9") == 0 &&
		rq->caller != NULL && strcmp(rq->caller->user_id, "alice") == 0,
	    "asks for the operation, as the caller");
	if (rq != NULL)
		protobuf_c_message_free_unpacked(&rq->base, NULL);
	is_str(l.v[0].operation_id, "op-9", "the execution");
	sc_inspect_exec_list_release(&l);

	fx_fail(SC_GRPC_NOT_FOUND);
	ok(sc_inspect_get(a, "op-0", &l, NULL, &err) == -1, "NOT_FOUND fails");
	is_int(err.status, SC_ST_NOTFOUND, "status 3");
	is_str(err.msg, "no operation 'op-0' on the server for user 'alice'",
	    "naming the user who may not see it");

	r.execution = NULL;
	fx_answer(&r.base);
	ok(sc_inspect_get(a, "op-9", &l, NULL, &err) == -1 &&
		err.status == SC_ST_PROTOCOL,
	    "an answer without the execution is a protocol error");
	sc_inspect_free(a);

	fx_reset();
	a = fake_admin(true);
	fx_fail(SC_GRPC_NOT_FOUND);
	ok(sc_inspect_get(a, "op-0", &l, NULL, &err) == -1, "admin: NOT_FOUND");
	is_str(err.msg, "no operation 'op-0' on the server",
	    "the admin sees every user's");
	sc_inspect_free(a);
}

static void
test_sessions_tombs_stats(void)
{
	Sctk__Admin__V1__ListSessionsResponse sr =
	    SCTK__ADMIN__V1__LIST_SESSIONS_RESPONSE__INIT;
	Sctk__Admin__V1__Session s = SCTK__ADMIN__V1__SESSION__INIT, *sv[1];
	Sctk__Admin__V1__Artifact ar = SCTK__ADMIN__V1__ARTIFACT__INIT, *av[1];
	Sctk__Admin__V1__ListSessionsRequest *srq;
	Sctk__Admin__V1__ListTombstonesResponse tr =
	    SCTK__ADMIN__V1__LIST_TOMBSTONES_RESPONSE__INIT;
	Sctk__Admin__V1__Tombstone t1 = SCTK__ADMIN__V1__TOMBSTONE__INIT,
				   t2 = SCTK__ADMIN__V1__TOMBSTONE__INIT,
				   *tv[2] = { &t1, &t2 };
	Sctk__Admin__V1__GetStatsResponse gr =
	    SCTK__ADMIN__V1__GET_STATS_RESPONSE__INIT;
	Sctk__Admin__V1__StateCount c1 = SCTK__ADMIN__V1__STATE_COUNT__INIT,
				    c2 = SCTK__ADMIN__V1__STATE_COUNT__INIT,
				    c3 = SCTK__ADMIN__V1__STATE_COUNT__INIT,
				    *cv[3] = { &c1, &c2, &c3 };
	struct sc_inspect_session_list sl;
	struct sc_inspect_tomb_list tl;
	struct sc_inspect_stats st;
	struct sc_error err;
	struct sc_inspect *a;

	fx_reset();
	a = fake_admin(false);
	ar.name = S("jars/a.jar");
	ar.size = 1024;
	ar.stored_at_ms = 7;
	av[0] = &ar;
	s.session_id = S("s-1");
	s.user_id = S("alice");
	s.expires_in_ms = -1;
	s.operations = 3;
	s.n_artifacts = 1;
	s.artifacts = av;
	s.artifact_bytes = 1024;
	sv[0] = &s;
	sr.n_sessions = 1;
	sr.sessions = sv;
	fx_answer(&sr.base);
	ok(sc_inspect_sessions(a, "alice", "s-1", &sl, NULL, &err) == 0 &&
		sl.n == 1,
	    "ListSessions");
	srq = last_request(&sctk__admin__v1__list_sessions_request__descriptor);
	ok(srq != NULL && strcmp(srq->user_id, "alice") == 0 &&
		strcmp(srq->session_id, "s-1") == 0,
	    "with its filters");
	if (srq != NULL)
		protobuf_c_message_free_unpacked(&srq->base, NULL);
	is_int(sl.v[0].nartifacts, 1, "one artifact");
	is_str(sl.v[0].artifacts[0].name, "jars/a.jar", "its name");
	is_int(sl.v[0].artifacts[0].size, 1024, "its size");
	is_int(sl.v[0].expires_in_ms, -1, "no idle timeout");
	is_int(sl.v[0].operations, 3, "operations");
	sc_inspect_session_list_release(&sl);

	t1.kind = SCTK__ADMIN__V1__TOMBSTONE__KIND__KIND_OPERATION;
	t1.operation_id = S("op-1");
	t1.reason = S("abandoned");
	t2.kind = (Sctk__Admin__V1__Tombstone__Kind)9;
	tr.n_tombstones = 2;
	tr.tombstones = tv;
	fx_answer(&tr.base);
	ok(sc_inspect_tombstones(a, NULL, NULL, &tl, NULL, &err) == 0 &&
		tl.n == 2,
	    "ListTombstones");
	is_str(fx.method, "/sctk.admin.v1.AdminService/ListTombstones",
	    "method path");
	is_int(tl.v[0].kind, SC_INSPECT_TOMB_OPERATION, "operation tombstone");
	is_str(tl.v[0].reason, "abandoned", "reason");
	is_int(tl.v[1].kind, SC_INSPECT_TOMB_UNKNOWN, "an unknown kind");
	sc_inspect_tomb_list_release(&tl);

	c1.state = SCTK__ADMIN__V1__EXECUTION_STATE__EXECUTION_STATE_RUNNING;
	c1.count = 2;
	c2.state = SCTK__ADMIN__V1__EXECUTION_STATE__EXECUTION_STATE_CLOSED;
	c2.count = 1;
	c3.state = (Sctk__Admin__V1__ExecutionState)77;
	c3.count = 4;
	gr.n_operations = 3;
	gr.operations = cv;
	gr.version = S("sctk 0.1.0");
	gr.sessions = 5;
	gr.uptime_ms = 61000;
	gr.reattaches = 9;
	fx_answer(&gr.base);
	ok(sc_inspect_stats(a, &st, NULL, &err) == 0, "GetStats");
	is_int(st.by_state[SC_INSPECT_STATE_RUNNING], 2, "running");
	is_int(st.by_state[SC_INSPECT_STATE_CLOSED], 1, "closed");
	is_int(st.by_state[SC_INSPECT_STATE_UNKNOWN], 4, "unknown states");
	is_int(st.sessions, 5, "sessions");
	is_int(st.reattaches, 9, "reattaches");
	is_str(st.version, "sctk 0.1.0", "version");
	sc_inspect_free(a);
}

static int seen;

static int
stop_after_two(const struct sc_inspect_event *ev, void *arg)
{
	(void)ev;
	(void)arg;
	return ++seen == 2;
}

static void
test_watch(void)
{
	Sctk__Admin__V1__WatchEvent e1 = SCTK__ADMIN__V1__WATCH_EVENT__INIT,
				    e2 = SCTK__ADMIN__V1__WATCH_EVENT__INIT,
				    e3 = SCTK__ADMIN__V1__WATCH_EVENT__INIT;
	Sctk__Admin__V1__WatchRequest *rq;
	Sctk__Admin__V1__Execution x;
	struct sc_inspect_filter f = { NULL, NULL, "etl", NULL, 0, 0, 0 };
	struct sc_inspect_watch *w;
	struct sc_inspect_event ev;
	struct sc_error err;
	struct sc_inspect *a;

	fx_reset();
	a = fake_admin(false);
	fill_exec(&x, "op-w");
	e1.kind = SCTK__ADMIN__V1__WATCH_EVENT__KIND__KIND_SNAPSHOT;
	e1.at_ms = 11;
	e1.execution = &x;
	e2.kind = SCTK__ADMIN__V1__WATCH_EVENT__KIND__KIND_REMOVED;
	e2.dropped = 5;
	e3.kind = (Sctk__Admin__V1__WatchEvent__Kind)55;
	e3.execution = &x;
	fx_answer(&e1.base);
	fx_answer(&e2.base);
	fx_answer(&e3.base);
	w = sc_inspect_watch_open(a, &f, true, NULL, &err);
	ok(w != NULL, "Watch opens");
	is_str(fx.method, "/sctk.admin.v1.AdminService/Watch", "method path");
	rq = last_request(&sctk__admin__v1__watch_request__descriptor);
	ok(rq != NULL && rq->initial_snapshot && rq->filter != NULL &&
		strcmp(rq->filter->tag, "etl") == 0 && rq->caller != NULL &&
		strcmp(rq->caller->user_id, "alice") == 0,
	    "asks for a snapshot, with the filter, as the caller");
	if (rq != NULL)
		protobuf_c_message_free_unpacked(&rq->base, NULL);
	is_int(sc_inspect_watch_next(w, &ev, NULL, &err), 1, "an event");
	ok(ev.kind == SC_INSPECT_EV_SNAPSHOT && ev.at_ms == 11 && ev.has_exec &&
		strcmp(ev.exec.operation_id, "op-w") == 0,
	    "the snapshot of op-w");
	is_int(sc_inspect_watch_next(w, &ev, NULL, &err), 1, "another");
	is_int(ev.dropped, 5, "the events the server dropped");
	ok(ev.kind == SC_INSPECT_EV_REMOVED && !ev.has_exec &&
		strcmp(ev.exec.operation_id, "") == 0 &&
		ev.exec.abandon_in_ms == -1,
	    "without an execution: empty strings");
	is_int(sc_inspect_watch_next(w, &ev, NULL, &err), 1, "a third");
	ok(ev.kind == SC_INSPECT_EV_UNKNOWN && ev.raw_kind == 55,
	    "an unknown kind, its number kept");
	is_int(sc_inspect_watch_next(w, &ev, NULL, &err), 0, "the end");
	sc_inspect_watch_free(w);

	fx_reset();
	fx_fail(SC_GRPC_UNIMPLEMENTED);
	w = sc_inspect_watch_open(a, NULL, false, NULL, &err);
	ok(w != NULL, "opens (the status comes with the first read)");
	is_int(sc_inspect_watch_next(w, &ev, NULL, &err), -1, "then fails");
	is_str(err.msg,
	    "the server at 'sc://h:1' has no sctk admin service (not sc-serve?)",
	    "as a server without the service");
	is_int(err.status, SC_ST_PROTOCOL, "status 7");
	sc_inspect_watch_free(w);

	fx_reset();
	fx_answer(&e1.base);
	fx_answer(&e1.base);
	fx_answer(&e1.base);
	seen = 0;
	ok(sc_inspect_watch(a, NULL, true, stop_after_two, NULL, NULL, &err) ==
		0,
	    "sc_inspect_watch stops when the callback says");
	is_int(seen, 2, "after two events");
	sc_inspect_free(a);
}

static void
test_connect(void)
{
	struct sc_inspect_opts o;
	struct sc_conn_opts co;
	struct sc_inspect *a;
	struct sc_error err;

	memset(&o, 0, sizeof(o));
	sc_conn_opts_init(&co);
	co.server = "sc://127.0.0.1:1;user_id=carol";
	o.admin_token = "t0k";
	a = sc_inspect_connect(&co, &o, &err);
	ok(a != NULL, "connects lazily");
	if (a != NULL) {
		is_str(sc_inspect_server(a), "sc://127.0.0.1:1", "server name");
		is_str(sc_inspect_user_id(a), "carol", "user from the URI");
	}
	sc_inspect_free(a);
	ok(sc_conn_opt(&co, 'H', "x-sctk-admin-token=other", &err) == 0,
	    "-H with the admin header");
	ok(sc_inspect_connect(&co, &o, &err) == NULL &&
		err.status == SC_ST_USAGE,
	    "and --admin-token too is a usage error");
	is_str(err.msg,
	    "header 'x-sctk-admin-token' given twice: as a header and as the admin token",
	    "saying so");
	sc_conn_opts_release(&co);
	sc_conn_opts_init(&co);
	co.server = "sc://127.0.0.1:1";
	o.admin_token = "bad\ntoken";
	ok(sc_inspect_connect(&co, &o, &err) == NULL &&
		err.status == SC_ST_USAGE,
	    "a token that cannot be a header is refused");
	is_str(err.msg,
	    "invalid admin token: value of 'x-sctk-admin-token' contains characters not allowed in a header",
	    "with the header's rule");
	sc_conn_opts_release(&co);
}

/* --------------------------------------------------------------- fields */

/* Field name of kind r, rendered for rec. */
static const char *
val(enum sc_inspect_rec r, const void *rec, const char *name, bool human,
    bool json, int64_t now, enum sc_out_kind *kind)
{
	static struct sc_buf b;
	struct sc_inspect_render how = { human, json, now };
	enum sc_out_kind k;
	int i = sc_inspect_field_find(r, name);

	if (b.data == NULL)
		sc_buf_init(&b, 1 << 16);
	if (i < 0)
		return "(no such field)";
	k = sc_inspect_field_value(r, rec, (size_t)i, &how, &b);
	if (kind != NULL)
		*kind = k;
	return k == SC_OUT_NULL ? "(null)" : (const char *)b.data;
}

static void
test_fields(void)
{
	static const char *const tg[] = { "a\"b", "c\\d", "\xff" };
	struct sc_inspect_exec x, y;
	struct sc_inspect_session s;
	struct sc_inspect_stats st;
	const int64_t now = 1700000612250;
	enum sc_out_kind k;
	const size_t *def;
	size_t idx[8], n;
	struct sc_error err;
	char b[SC_INSPECT_TIME_STRLEN];

	is_int(sc_inspect_nfields(SC_INSPECT_REC_EXEC), 22,
	    "22 execution fields");
	is_str(sc_inspect_field_name(SC_INSPECT_REC_EXEC, 0), "operation_id",
	    "first field");
	is_str(sc_inspect_field_name(SC_INSPECT_REC_EXEC, 21), "statement",
	    "last field");
	is_int(sc_inspect_field_find(SC_INSPECT_REC_EXEC, "detached_for"), 10,
	    "find detached_for");
	is_int(sc_inspect_field_find(SC_INSPECT_REC_EXEC, "nope"), -1,
	    "no such field");
	is_int(sc_inspect_nfields(SC_INSPECT_REC_EVENT), 24,
	    "an event: at, event and the execution's fields");
	is_str(sc_inspect_field_name(SC_INSPECT_REC_EVENT, 2), "operation_id",
	    "after at and event");
	ok(sc_inspect_field_numeric(SC_INSPECT_REC_EXEC, 16) &&
		!sc_inspect_field_numeric(SC_INSPECT_REC_EXEC, 0),
	    "rows_sent is a number, operation_id not");
	is_int(sc_inspect_field_width(SC_INSPECT_REC_EXEC, 0), 36,
	    "an id is 36");
	is_int(sc_inspect_field_width(SC_INSPECT_REC_EXEC, 6), 19, "a time 19");
	is_int(sc_inspect_field_width(SC_INSPECT_REC_EXEC, 14), 18,
	    "a short value: the name's width");

	n = sc_inspect_default_fields(SC_INSPECT_REC_EXEC, false, &def);
	ok(n == 22 && def[21] == 21, "machines get every field");
	n = sc_inspect_default_fields(SC_INSPECT_REC_EXEC, true, &def);
	ok(n == 10 && def[0] == 0 && def[9] == 21,
	    "people get ten, ids first and the statement last");

	is_int(sc_inspect_fields_parse(SC_INSPECT_REC_EXEC,
		   "state,operation_id", idx, 8, &err),
	    2, "parse two fields");
	ok(idx[0] == 4 && idx[1] == 0, "in the order given");
	is_int(sc_inspect_fields_parse(SC_INSPECT_REC_TOMB, "all", idx, 8,
		   &err),
	    6, "all the tombstone's fields");
	is_int(sc_inspect_fields_parse(SC_INSPECT_REC_TOMB, "kind,bogus", idx,
		   8, &err),
	    -1, "an unknown field");
	is_str(err.msg,
	    "unknown field 'bogus' (fields: kind, operation_id, session_id, user_id, reason, at)",
	    "listing the fields there are");
	is_int(err.status, SC_ST_USAGE, "a usage error");
	is_int(sc_inspect_fields_parse(SC_INSPECT_REC_TOMB, "kind,,at", idx, 8,
		   &err),
	    -1, "an empty name");
	is_str(err.msg, "empty field name in 'kind,,at'", "is refused");
	is_int(sc_inspect_fields_parse(SC_INSPECT_REC_EXEC, "all", idx, 8,
		   &err),
	    -1, "all of 22 into 8");
	is_str(err.msg, "too many fields", "is too many");

	/* Times, durations and sizes. */
	sc_inspect_format_time(1700000000250, false, b);
	is_str(b, "2023-11-14T22:13:20.250Z", "RFC 3339 UTC, milliseconds");
	sc_inspect_format_time(0, false, b);
	is_str(b, "", "time 0: never");
	sc_inspect_format_duration(612250, false, b);
	is_str(b, "612.250", "machine duration in seconds");
	sc_inspect_format_duration(-5, false, b);
	is_str(b, "0.000", "negative durations are 0");
	sc_inspect_format_duration(250, true, b);
	is_str(b, "250ms", "250ms");
	sc_inspect_format_duration(12345, true, b);
	is_str(b, "12.3s", "12.3s");
	sc_inspect_format_duration(612250, true, b);
	is_str(b, "10m12s", "10m12s");
	sc_inspect_format_duration(7380000, true, b);
	is_str(b, "2h03m", "2h03m");
	sc_inspect_format_duration(273600000, true, b);
	is_str(b, "3d04h", "3d04h");
	sc_inspect_format_size(512, b);
	is_str(b, "512B", "512B");
	sc_inspect_format_size(1536, b);
	is_str(b, "1.5KiB", "1.5KiB");
	sc_inspect_format_size(20 * 1048576, b);
	is_str(b, "20.0MiB", "20.0MiB");
	sc_inspect_format_size(1048575, b);
	is_str(b, "1.0MiB", "just under a MiB rounds up a unit");

	/* An execution's values. */
	memset(&x, 0, sizeof(x));
	x.operation_id = "op-1";
	x.session_id = "s";
	x.user_id = "alice";
	x.tags = tg;
	x.ntags = 3;
	x.statement = "SELECT 1";
	x.state = SC_INSPECT_STATE_FINISHED;
	x.reattachable = true;
	x.created_at_ms = 1700000000250;
	x.detached_since_at_ms = 1700000000000;
	x.abandon_in_ms = -1;
	x.buffered_bytes = 1536;
	x.rows_sent = 7;
	x.last_error_class = "";
	x.server_side_session_id = "";
	is_str(val(SC_INSPECT_REC_EXEC, &x, "state", false, false, now, &k),
	    "finished", "state");
	is_int(k, SC_OUT_STRING, "a string");
	is_str(val(SC_INSPECT_REC_EXEC, &x, "created", false, false, now, NULL),
	    "2023-11-14T22:13:20.250Z", "created, for machines");
	is_str(val(SC_INSPECT_REC_EXEC, &x, "finished", false, false, now, &k),
	    "(null)", "a time that never was is null");
	is_str(val(SC_INSPECT_REC_EXEC, &x, "detached_for", false, false, now,
		   &k),
	    "612.250", "detached_for from the server's clock");
	is_int(k, SC_OUT_NUMBER, "a number");
	is_str(val(SC_INSPECT_REC_EXEC, &x, "detached_for", true, false, now,
		   NULL),
	    "10m12s", "and for people");
	is_str(val(SC_INSPECT_REC_EXEC, &x, "abandon_in", false, false, now,
		   NULL),
	    "(null)", "abandon_in -1 is null");
	is_str(val(SC_INSPECT_REC_EXEC, &x, "reattachable", false, false, now,
		   &k),
	    "true", "a boolean");
	is_int(k, SC_OUT_BOOL, "of kind bool");
	is_str(val(SC_INSPECT_REC_EXEC, &x, "buffered_bytes", false, false, now,
		   NULL),
	    "1536", "bytes for machines");
	is_str(val(SC_INSPECT_REC_EXEC, &x, "buffered_bytes", true, false, now,
		   NULL),
	    "1.5KiB", "and for people");
	is_str(val(SC_INSPECT_REC_EXEC, &x, "last_error_class", false, false,
		   now, NULL),
	    "(null)", "no error class is null");
	is_str(val(SC_INSPECT_REC_EXEC, &x, "tags", false, false, now, &k),
	    "a\"b,c\\d,\xff", "tags joined with ','");
	is_str(val(SC_INSPECT_REC_EXEC, &x, "tags", false, true, now, &k),
	    "[\"a\\\"b\",\"c\\\\d\",\"\\ufffd\"]",
	    "a JSON array in JSON, escaped, invalid UTF-8 replaced");
	is_int(k, SC_OUT_JSON, "of kind JSON");
	x.attached = true;
	is_str(val(SC_INSPECT_REC_EXEC, &x, "detached_for", false, false, now,
		   NULL),
	    "(null)", "attached: detached_for is null");

	/* Ordering. */
	y = x;
	y.operation_id = "op-0";
	y.rows_sent = 9;
	ok(sc_inspect_field_cmp(SC_INSPECT_REC_EXEC, &x, &y, 16, now) < 0,
	    "7 rows before 9");
	y.rows_sent = 7;
	ok(sc_inspect_field_cmp(SC_INSPECT_REC_EXEC, &x, &y, 16, now) > 0,
	    "a tie goes by operation id");
	y.abandon_in_ms = 5;
	ok(sc_inspect_field_cmp(SC_INSPECT_REC_EXEC, &x, &y, 11, now) < 0,
	    "an absent value first");
	y.buffered_bytes = 100000;
	ok(sc_inspect_field_cmp(SC_INSPECT_REC_EXEC, &x, &y, 15, now) < 0,
	    "sizes as numbers, not as text");

	/* Sessions and statistics. */
	memset(&s, 0, sizeof(s));
	s.session_id = S("s");
	s.user_id = S("u");
	s.server_side_session_id = S("");
	s.last_access_at_ms = now - 90000;
	s.expires_in_ms = -1;
	s.nartifacts = 2;
	is_str(val(SC_INSPECT_REC_SESSION, &s, "idle_for", true, false, now,
		   NULL),
	    "1m30s", "a session's idle time");
	is_str(val(SC_INSPECT_REC_SESSION, &s, "expires_in", false, false, now,
		   NULL),
	    "(null)", "no idle timeout");
	is_str(val(SC_INSPECT_REC_SESSION, &s, "artifacts", false, false, now,
		   NULL),
	    "2", "the number of artifacts");
	memset(&st, 0, sizeof(st));
	st.by_state[SC_INSPECT_STATE_RUNNING] = 2;
	st.by_state[SC_INSPECT_STATE_UNKNOWN] = 1;
	st.by_state[SC_INSPECT_STATE_CLOSED] = 3;
	is_str(val(SC_INSPECT_REC_STATS, &st, "operations", false, false, now,
		   NULL),
	    "6", "operations: every state's");
	is_str(val(SC_INSPECT_REC_STATS, &st, "closed", false, false, now,
		   NULL),
	    "3", "closed");
	is_str(val(SC_INSPECT_REC_STATS, &st, "running", false, false, now,
		   NULL),
	    "2", "running");
}

int
main(void)
{
	test_states();
	test_list();
	test_errors();
	test_get();
	test_sessions_tombs_stats();
	test_watch();
	test_connect();
	test_fields();
	fx_reset();
	return tap_done();
}
