/* SPDX-License-Identifier: MIT */

/*
 * inspect.c: the sctk.admin.v1 client: requests built from plain C
 * filters, answers turned into views of the decoded messages, the Watch
 * stream, and the one message for a server without the service.
 *
 * It is built on a struct sc_client (core/client.h), whose one unary
 * loop (sc_client_call_raw(): admin messages carry no Spark envelope to
 * stamp or check) retries, reports and gives up as every program's
 * calls do.
 */

#include "core/inspect.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/conn.h"
#include "core/error.h"
#include "core/protocol.h"
#include "core/uri.h"
#include "core/xmem.h"
/* The admin service's messages; only this file of lib/core uses them. */
#include "core/client.h"
#include "core/banned.h"

#define METHOD(m) "/" SC_INSPECT_SERVICE "/" m
#define M_LIST METHOD("ListExecutions")
#define M_GET METHOD("GetExecution")
#define M_SESSIONS METHOD("ListSessions")
#define M_TOMBSTONES METHOD("ListTombstones")
#define M_STATS METHOD("GetStats")
#define M_WATCH METHOD("Watch")

/* Largest answer accepted (10,000 executions take about 3 MiB). */
#define ANSWER_MAX (256UL * 1024 * 1024)
/* Largest Watch event. */
#define EVENT_MAX (16UL * 1024 * 1024)
struct sc_inspect {
	struct sc_client *c; /* the connection, its retries and events */
	char server[300]; /* "sc://host:port", for messages */
	char *user_id; /* the Caller's, as every request names it */
	bool has_admin_token;
};

struct sc_inspect_watch {
	struct sc_inspect *a;
	void *stream;
	struct sc_buf msg;
	Sctk__Admin__V1__WatchEvent *ev; /* the last event decoded */
};

/* ------------------------------------------------------------- names */

static const char *const state_names[SC_INSPECT_NSTATES] = { "unknown",
	"pending", "running", "finished", "failed", "canceled", "closed" };

const char *
sc_inspect_state_name(enum sc_inspect_state s)
{
	if ((int)s <= 0 || (int)s >= SC_INSPECT_NSTATES)
		return "unknown";
	return state_names[s];
}

int
sc_inspect_state_parse(const char *s, enum sc_inspect_state *out)
{
	int i;

	for (i = 1; i < SC_INSPECT_NSTATES; i++)
		if (strcmp(s, state_names[i]) == 0) {
			*out = (enum sc_inspect_state)i;
			return 0;
		}
	return -1;
}

const char *
sc_inspect_tomb_kind_name(enum sc_inspect_tomb_kind k)
{
	switch (k) {
	case SC_INSPECT_TOMB_OPERATION:
		return "operation";
	case SC_INSPECT_TOMB_SESSION:
		return "session";
	default:
		return "unknown";
	}
}

static const char *const event_names[] = { "unknown", "snapshot", "created",
	"started", "attached", "detached", "progress", "finished", "failed",
	"canceled", "released", "abandoned", "removed" };

const char *
sc_inspect_event_name(enum sc_inspect_event_kind k)
{
	if ((int)k <= 0 ||
	    (size_t)k >= sizeof(event_names) / sizeof(event_names[0]))
		return "unknown";
	return event_names[k];
}

/* ------------------------------------------------------ construction */

static struct sc_inspect *
inspect_new(struct sc_client *c, const struct sc_inspect_opts *o)
{
	struct sc_inspect *a = sc_xcalloc(1, sizeof(*a));

	a->c = c;
	snprintf(a->server, sizeof(a->server), "%s", sc_client_server(c));
	a->user_id = sc_xstrdup(sc_client_user_id(c));
	a->has_admin_token = o != NULL && o->admin_token != NULL;
	return a;
}

static void
client_opts(struct sc_client_opts *co, const struct sc_inspect_opts *o)
{
	if (o != NULL) {
		co->on_event = o->on_event;
		co->event_arg = o->event_arg;
		co->policy = o->policy;
	}
}

struct sc_inspect *
sc_inspect_new_transport(const struct sc_transport *t, void *ctx,
    const char *server, const char *user_id, const struct sc_inspect_opts *o,
    struct sc_error *err)
{
	struct sc_client_opts co;
	struct sc_inspect *a;
	struct sc_client *c;

	memset(&co, 0, sizeof(co));
	client_opts(&co, o);
	co.user_id = user_id;
	if ((c = sc_client_new_transport(t, ctx, NULL, &co, err)) == NULL)
		return NULL;
	a = inspect_new(c, o);
	snprintf(a->server, sizeof(a->server), "%s",
	    server != NULL ? server : "");
	return a;
}

/* Wipe the admin token's copy among the address's headers. */
static void
wipe_header(struct sc_uri *u)
{
	size_t i;

	for (i = 0; i < u->nparams; i++)
		if (strcmp(u->params[i].key, SC_INSPECT_TOKEN_HEADER) == 0)
			explicit_bzero(u->params[i].value,
			    strlen(u->params[i].value));
}

struct sc_inspect *
sc_inspect_connect(const struct sc_conn_opts *co,
    const struct sc_inspect_opts *o, struct sc_error *err)
{
	struct sc_client_opts opts;
	struct sc_client *c;
	struct sc_uri u;
	struct sc_error e;
	const char *tok = o != NULL ? o->admin_token : NULL;
	size_t i;

	if (sc_client_conn_opts(co, NULL, &u, &opts, err) == -1)
		return NULL;
	client_opts(&opts, o);
	c = NULL;
	if (tok != NULL) {
		sc_error_init(&e);
		if (tok[0] == '\0') {
			sc_error_set(err, SC_ST_USAGE,
			    "invalid admin token: empty");
			goto out;
		}
		for (i = 0; i < u.nparams; i++)
			if (strcmp(u.params[i].key, SC_INSPECT_TOKEN_HEADER) ==
			    0) {
				sc_error_set(err, SC_ST_USAGE,
				    "header '%s' given twice: as a header and as the admin token",
				    SC_INSPECT_TOKEN_HEADER);
				goto out;
			}
		if (sc_uri_add_metadata(&u.params, &u.nparams,
			SC_INSPECT_TOKEN_HEADER, tok, &e) == -1) {
			sc_error_set(err, SC_ST_USAGE,
			    "invalid admin token: %s", e.msg);
			goto out;
		}
		/*
		 * A secret goes over TLS unless it stays on this host or
		 * --insecure says otherwise; sc_client_new() does the same
		 * for a --token.
		 */
		if (!u.use_ssl && !sc_conn_loopback(u.host) && !co->insecure)
			u.use_ssl = true;
	}
	c = sc_client_new(&u, &opts, err);
out:
	wipe_header(&u);
	sc_uri_release(&u);
	return c != NULL ? inspect_new(c, o) : NULL;
}

void
sc_inspect_free(struct sc_inspect *a)
{
	if (a == NULL)
		return;
	sc_client_free(a->c);
	free(a->user_id);
	free(a);
}

const char *
sc_inspect_server(const struct sc_inspect *a)
{
	return a->server;
}

const char *
sc_inspect_user_id(const struct sc_inspect *a)
{
	return a->user_id;
}

/* -------------------------------------------------------------- calls */

/*
 * Put a server without the service in plain words: a Spark Connect
 * server (or anything else) answers UNIMPLEMENTED for every method here.
 */
static void
reword(struct sc_inspect *a, struct sc_error *e)
{
	if (e->rpc_code != SC_GRPC_UNIMPLEMENTED)
		return;
	sc_error_set(e, SC_ST_PROTOCOL,
	    "the server at '%s' has no sctk admin service (not sc-serve?)",
	    a->server);
	e->rpc_code = SC_GRPC_UNIMPLEMENTED;
}

/*
 * One unary call: pack req, send it, retry what Spark's clients retry
 * (not past deadline), unpack the answer as d into *resp.
 */
static int
call(struct sc_inspect *a, const char *method, ProtobufCMessage *req,
    const ProtobufCMessageDescriptor *d, void **resp,
    const struct timespec *deadline, struct sc_error *err)
{
	struct sc_error e;

	sc_error_init(&e);
	if (sc_client_call_raw(a->c, method, req, d, resp, ANSWER_MAX, deadline,
		&e) == -1) {
		reword(a, &e);
		if (err != NULL)
			*err = e;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------- conversions */

static void
filter_to_proto(const struct sc_inspect_filter *f,
    Sctk__Admin__V1__ExecutionFilter *pf, Sctk__Admin__V1__ExecutionState *st)
{
	size_t i;

	sctk__admin__v1__execution_filter__init(pf);
	if (f == NULL)
		return;
	if (f->session_id != NULL)
		pf->session_id = (char *)f->session_id;
	if (f->user_id != NULL)
		pf->user_id = (char *)f->user_id;
	if (f->tag != NULL)
		pf->tag = (char *)f->tag;
	for (i = 0; i < f->nstates; i++)
		st[i] = (Sctk__Admin__V1__ExecutionState)f->states[i];
	pf->n_states = f->nstates;
	pf->states = f->nstates > 0 ? st : NULL;
	pf->detached_for_ms = f->detached_for_ms > 0 ? f->detached_for_ms : 0;
	pf->older_than_ms = f->older_than_ms > 0 ? f->older_than_ms : 0;
}

static enum sc_inspect_state
state_from(int v)
{
	if (v <= 0 || v >= SC_INSPECT_NSTATES)
		return SC_INSPECT_STATE_UNKNOWN;
	return (enum sc_inspect_state)v;
}

static void
exec_from(struct sc_inspect_exec *x, const Sctk__Admin__V1__Execution *e)
{
	memset(x, 0, sizeof(*x));
	x->operation_id = e->operation_id;
	x->session_id = e->session_id;
	x->user_id = e->user_id;
	x->tags = (const char *const *)e->tags;
	x->ntags = e->n_tags;
	x->statement = e->statement;
	x->raw_state = (int)e->state;
	x->state = state_from((int)e->state);
	x->reattachable = e->reattachable;
	x->created_at_ms = e->created_at_ms;
	x->started_at_ms = e->started_at_ms;
	x->finished_at_ms = e->finished_at_ms;
	x->attached = e->attached;
	x->attached_since_at_ms = e->attached_since_at_ms;
	x->detached_since_at_ms = e->detached_since_at_ms;
	x->abandon_in_ms = e->abandon_in_ms;
	x->responses_produced = e->responses_produced;
	x->responses_sent = e->responses_sent;
	x->responses_released = e->responses_released;
	x->buffered_bytes = e->buffered_bytes;
	x->rows_sent = e->rows_sent;
	x->bytes_sent = e->bytes_sent;
	x->rotations = e->rotations;
	x->reattaches = e->reattaches;
	x->last_error_class = e->last_error_class;
	x->server_side_session_id = e->server_side_session_id;
}

/* An execution with every string "" (an event without one). */
static void
exec_empty(struct sc_inspect_exec *x)
{
	memset(x, 0, sizeof(*x));
	x->operation_id = x->session_id = x->user_id = x->statement = "";
	x->last_error_class = x->server_side_session_id = "";
	x->abandon_in_ms = -1;
}

static void
exec_list_fill(struct sc_inspect_exec_list *l,
    Sctk__Admin__V1__Execution *const *v, size_t n)
{
	size_t i, k = 0;

	l->v = sc_xcalloc(n > 0 ? n : 1, sizeof(*l->v));
	for (i = 0; i < n; i++)
		if (v[i] != NULL)
			exec_from(&l->v[k++], v[i]);
	l->n = k;
}

void
sc_inspect_exec_list_release(struct sc_inspect_exec_list *l)
{
	free(l->v);
	if (l->msg != NULL)
		protobuf_c_message_free_unpacked(l->msg, NULL);
	memset(l, 0, sizeof(*l));
}

void
sc_inspect_session_list_release(struct sc_inspect_session_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].artifacts);
	free(l->v);
	if (l->msg != NULL)
		protobuf_c_message_free_unpacked(l->msg, NULL);
	memset(l, 0, sizeof(*l));
}

void
sc_inspect_tomb_list_release(struct sc_inspect_tomb_list *l)
{
	free(l->v);
	if (l->msg != NULL)
		protobuf_c_message_free_unpacked(l->msg, NULL);
	memset(l, 0, sizeof(*l));
}

/* ---------------------------------------------------------- the RPCs */

int
sc_inspect_list(struct sc_inspect *a, const struct sc_inspect_filter *f,
    int limit, struct sc_inspect_exec_list *out,
    const struct timespec *deadline, struct sc_error *err)
{
	Sctk__Admin__V1__ListExecutionsRequest req =
	    SCTK__ADMIN__V1__LIST_EXECUTIONS_REQUEST__INIT;
	Sctk__Admin__V1__ListExecutionsResponse *r;
	Sctk__Admin__V1__Caller caller = SCTK__ADMIN__V1__CALLER__INIT;
	Sctk__Admin__V1__ExecutionFilter pf;
	Sctk__Admin__V1__ExecutionState *st;
	void *m;
	int rc;

	memset(out, 0, sizeof(*out));
	st = sc_xcalloc(f != NULL && f->nstates > 0 ? f->nstates : 1,
	    sizeof(*st));
	filter_to_proto(f, &pf, st);
	caller.user_id = a->user_id;
	req.caller = &caller;
	req.filter = &pf;
	req.limit = limit > 0 ? limit : 0;
	rc = call(a, M_LIST, &req.base,
	    &sctk__admin__v1__list_executions_response__descriptor, &m,
	    deadline, err);
	free(st);
	if (rc == -1)
		return -1;
	r = m;
	exec_list_fill(out, r->executions, r->n_executions);
	out->truncated = r->truncated;
	out->server_time_ms = r->server_time_ms;
	out->msg = r;
	return 0;
}

int
sc_inspect_get(struct sc_inspect *a, const char *operation_id,
    struct sc_inspect_exec_list *out, const struct timespec *deadline,
    struct sc_error *err)
{
	Sctk__Admin__V1__GetExecutionRequest req =
	    SCTK__ADMIN__V1__GET_EXECUTION_REQUEST__INIT;
	Sctk__Admin__V1__GetExecutionResponse *r;
	Sctk__Admin__V1__Caller caller = SCTK__ADMIN__V1__CALLER__INIT;
	struct sc_error e;
	void *m;

	memset(out, 0, sizeof(*out));
	caller.user_id = a->user_id;
	req.caller = &caller;
	req.operation_id = (char *)operation_id;
	sc_error_init(&e);
	if (call(a, M_GET, &req.base,
		&sctk__admin__v1__get_execution_response__descriptor, &m,
		deadline, &e) == -1) {
		if (e.rpc_code == SC_GRPC_NOT_FOUND && a->has_admin_token)
			snprintf(e.msg, sizeof(e.msg),
			    "no operation '%s' on the server", operation_id);
		else if (e.rpc_code == SC_GRPC_NOT_FOUND)
			snprintf(e.msg, sizeof(e.msg),
			    "no operation '%s' on the server for user '%s'",
			    operation_id, a->user_id);
		if (err != NULL)
			*err = e;
		return -1;
	}
	r = m;
	if (r->execution == NULL) {
		protobuf_c_message_free_unpacked(m, NULL);
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "the server answered GetExecution without an execution");
	}
	exec_list_fill(out, &r->execution, 1);
	out->server_time_ms = r->server_time_ms;
	out->msg = r;
	return 0;
}

int
sc_inspect_sessions(struct sc_inspect *a, const char *user_id,
    const char *session_id, struct sc_inspect_session_list *out,
    const struct timespec *deadline, struct sc_error *err)
{
	Sctk__Admin__V1__ListSessionsRequest req =
	    SCTK__ADMIN__V1__LIST_SESSIONS_REQUEST__INIT;
	Sctk__Admin__V1__ListSessionsResponse *r;
	Sctk__Admin__V1__Caller caller = SCTK__ADMIN__V1__CALLER__INIT;
	const Sctk__Admin__V1__Session *s;
	struct sc_inspect_session *x;
	size_t i, j;
	void *m;

	memset(out, 0, sizeof(*out));
	caller.user_id = a->user_id;
	req.caller = &caller;
	if (user_id != NULL)
		req.user_id = (char *)user_id;
	if (session_id != NULL)
		req.session_id = (char *)session_id;
	if (call(a, M_SESSIONS, &req.base,
		&sctk__admin__v1__list_sessions_response__descriptor, &m,
		deadline, err) == -1)
		return -1;
	r = m;
	out->v =
	    sc_xcalloc(r->n_sessions > 0 ? r->n_sessions : 1, sizeof(*out->v));
	for (i = 0; i < r->n_sessions; i++) {
		if ((s = r->sessions[i]) == NULL)
			continue;
		x = &out->v[out->n++];
		x->session_id = s->session_id;
		x->user_id = s->user_id;
		x->server_side_session_id = s->server_side_session_id;
		x->created_at_ms = s->created_at_ms;
		x->last_access_at_ms = s->last_access_at_ms;
		x->expires_in_ms = s->expires_in_ms;
		x->operations = s->operations;
		x->artifact_bytes = s->artifact_bytes;
		x->artifacts =
		    sc_xcalloc(s->n_artifacts > 0 ? s->n_artifacts : 1,
			sizeof(*x->artifacts));
		for (j = 0; j < s->n_artifacts; j++) {
			if (s->artifacts[j] == NULL)
				continue;
			x->artifacts[x->nartifacts].name =
			    s->artifacts[j]->name;
			x->artifacts[x->nartifacts].size =
			    s->artifacts[j]->size;
			x->artifacts[x->nartifacts].stored_at_ms =
			    s->artifacts[j]->stored_at_ms;
			x->nartifacts++;
		}
	}
	out->server_time_ms = r->server_time_ms;
	out->msg = r;
	return 0;
}

int
sc_inspect_tombstones(struct sc_inspect *a, const char *user_id,
    const char *session_id, struct sc_inspect_tomb_list *out,
    const struct timespec *deadline, struct sc_error *err)
{
	Sctk__Admin__V1__ListTombstonesRequest req =
	    SCTK__ADMIN__V1__LIST_TOMBSTONES_REQUEST__INIT;
	Sctk__Admin__V1__ListTombstonesResponse *r;
	Sctk__Admin__V1__Caller caller = SCTK__ADMIN__V1__CALLER__INIT;
	const Sctk__Admin__V1__Tombstone *t;
	struct sc_inspect_tomb *x;
	size_t i;
	void *m;

	memset(out, 0, sizeof(*out));
	caller.user_id = a->user_id;
	req.caller = &caller;
	if (user_id != NULL)
		req.user_id = (char *)user_id;
	if (session_id != NULL)
		req.session_id = (char *)session_id;
	if (call(a, M_TOMBSTONES, &req.base,
		&sctk__admin__v1__list_tombstones_response__descriptor, &m,
		deadline, err) == -1)
		return -1;
	r = m;
	out->v = sc_xcalloc(r->n_tombstones > 0 ? r->n_tombstones : 1,
	    sizeof(*out->v));
	for (i = 0; i < r->n_tombstones; i++) {
		if ((t = r->tombstones[i]) == NULL)
			continue;
		x = &out->v[out->n++];
		x->kind = t->kind ==
			SCTK__ADMIN__V1__TOMBSTONE__KIND__KIND_OPERATION
		    ? SC_INSPECT_TOMB_OPERATION
		    : t->kind == SCTK__ADMIN__V1__TOMBSTONE__KIND__KIND_SESSION
		    ? SC_INSPECT_TOMB_SESSION
		    : SC_INSPECT_TOMB_UNKNOWN;
		x->operation_id = t->operation_id;
		x->session_id = t->session_id;
		x->user_id = t->user_id;
		x->reason = t->reason;
		x->at_ms = t->at_ms;
	}
	out->server_time_ms = r->server_time_ms;
	out->msg = r;
	return 0;
}

/* Copy histogram h into out. */
static void
hist_from(const Sctk__Admin__V1__Histogram *h, struct sc_inspect_hist *out)
{
	size_t i, n;

	memset(out, 0, sizeof(*out));
	snprintf(out->method, sizeof(out->method), "%s",
	    h->method != NULL ? h->method : "");
	n = h->n_upper_bounds_seconds < h->n_cumulative_counts
	    ? h->n_upper_bounds_seconds
	    : h->n_cumulative_counts;
	if (n > SC_INSPECT_NBUCKETS)
		n = SC_INSPECT_NBUCKETS;
	for (i = 0; i < n; i++) {
		out->bounds[i] = h->upper_bounds_seconds[i];
		out->le[i] = h->cumulative_counts[i];
	}
	out->nbounds = n;
	out->count = h->count;
	out->sum_seconds = h->sum_seconds;
}

/* The figures of r into s (zeroed). */
static void
stats_from(const Sctk__Admin__V1__GetStatsResponse *r,
    struct sc_inspect_stats *s)
{
	const Sctk__Admin__V1__RpcCount *c;
	size_t i;

	snprintf(s->version, sizeof(s->version), "%s", r->version);
	s->started_at_ms = r->started_at_ms;
	s->uptime_ms = r->uptime_ms;
	for (i = 0; i < r->n_operations; i++)
		if (r->operations[i] != NULL)
			s->by_state[state_from((int)r->operations[i]->state)] +=
			    r->operations[i]->count;
	s->sessions = r->sessions;
	s->buffered_bytes = r->buffered_bytes;
	s->rss_bytes = r->rss_bytes;
	s->heap_in_use_bytes = r->heap_in_use_bytes;
	s->streams_open = r->streams_open;
	s->operations_started = r->operations_started;
	s->operations_finished = r->operations_finished;
	s->operations_failed = r->operations_failed;
	s->operations_canceled = r->operations_canceled;
	s->operations_abandoned = r->operations_abandoned;
	s->rows_sent = r->rows_sent;
	s->bytes_sent = r->bytes_sent;
	s->reattaches = r->reattaches;
	s->server_time_ms = r->server_time_ms;
	s->artifacts = r->artifacts;
	s->artifact_bytes = r->artifact_bytes;
	for (i = 0; i < r->n_rpcs && s->nrpcs < SC_NELEM(s->rpcs); i++) {
		if ((c = r->rpcs[i]) == NULL)
			continue;
		snprintf(s->rpcs[s->nrpcs].method,
		    sizeof(s->rpcs[s->nrpcs].method), "%s", c->method);
		snprintf(s->rpcs[s->nrpcs].code, sizeof(s->rpcs[s->nrpcs].code),
		    "%s", c->code);
		s->rpcs[s->nrpcs++].count = c->count;
	}
	for (i = 0;
	     i < r->n_rpc_durations && s->nrpc_hist < SC_NELEM(s->rpc_hist);
	     i++)
		if (r->rpc_durations[i] != NULL)
			hist_from(r->rpc_durations[i],
			    &s->rpc_hist[s->nrpc_hist++]);
	if (r->operation_durations != NULL) {
		hist_from(r->operation_durations, &s->op_hist);
		s->has_op_hist = true;
	}
}

int
sc_inspect_stats_unpack(const void *p, size_t len, struct sc_inspect_stats *out,
    struct sc_error *err)
{
	Sctk__Admin__V1__GetStatsResponse *r;
	void *m;

	if ((m = sc_proto_unpack(
		 &sctk__admin__v1__get_stats_response__descriptor, p, len,
		 err)) == NULL)
		return -1;
	r = m;
	memset(out, 0, sizeof(*out));
	stats_from(r, out);
	protobuf_c_message_free_unpacked(m, NULL);
	return 0;
}

int
sc_inspect_stats(struct sc_inspect *a, struct sc_inspect_stats *out,
    const struct timespec *deadline, struct sc_error *err)
{
	Sctk__Admin__V1__GetStatsRequest req =
	    SCTK__ADMIN__V1__GET_STATS_REQUEST__INIT;
	Sctk__Admin__V1__Caller caller = SCTK__ADMIN__V1__CALLER__INIT;
	void *m;

	caller.user_id = a->user_id;
	req.caller = &caller;
	if (call(a, M_STATS, &req.base,
		&sctk__admin__v1__get_stats_response__descriptor, &m, deadline,
		err) == -1)
		return -1;
	memset(out, 0, sizeof(*out));
	stats_from(m, out);
	protobuf_c_message_free_unpacked(m, NULL);
	return 0;
}

/* -------------------------------------------------------------- watch */

struct sc_inspect_watch *
sc_inspect_watch_open(struct sc_inspect *a, const struct sc_inspect_filter *f,
    bool snapshot, const struct timespec *deadline, struct sc_error *err)
{
	Sctk__Admin__V1__WatchRequest req =
	    SCTK__ADMIN__V1__WATCH_REQUEST__INIT;
	Sctk__Admin__V1__Caller caller = SCTK__ADMIN__V1__CALLER__INIT;
	Sctk__Admin__V1__ExecutionFilter pf;
	Sctk__Admin__V1__ExecutionState *st;
	struct sc_inspect_watch *w;
	struct sc_error e;
	uint8_t *p;
	size_t n;

	st = sc_xcalloc(f != NULL && f->nstates > 0 ? f->nstates : 1,
	    sizeof(*st));
	filter_to_proto(f, &pf, st);
	caller.user_id = a->user_id;
	req.caller = &caller;
	req.filter = &pf;
	req.initial_snapshot = snapshot;
	p = sc_proto_pack_alloc(&req.base, &n);
	free(st);
	w = sc_xcalloc(1, sizeof(*w));
	w->a = a;
	sc_buf_init(&w->msg, EVENT_MAX);
	sc_error_init(&e);
	w->stream = sc_client_stream_open(a->c, M_WATCH, p, n, deadline, &e);
	free(p);
	if (w->stream == NULL) {
		reword(a, &e);
		if (err != NULL)
			*err = e;
		sc_inspect_watch_free(w);
		return NULL;
	}
	return w;
}

int
sc_inspect_watch_next(struct sc_inspect_watch *w, struct sc_inspect_event *ev,
    const struct timespec *wait_until, struct sc_error *err)
{
	Sctk__Admin__V1__WatchEvent *m;
	struct sc_error e;
	int r;

	sc_error_init(&e);
	r = sc_client_stream_read(w->a->c, w->stream, &w->msg, wait_until, &e);
	if (r <= 0) {
		if (r == -1) {
			reword(w->a, &e);
			if (err != NULL)
				*err = e;
		}
		return r;
	}
	m = sc_proto_unpack(&sctk__admin__v1__watch_event__descriptor,
	    w->msg.data, w->msg.len, err);
	if (m == NULL)
		return -1;
	if (w->ev != NULL)
		protobuf_c_message_free_unpacked(&w->ev->base, NULL);
	w->ev = m;
	memset(ev, 0, sizeof(*ev));
	ev->raw_kind = (int)m->kind;
	ev->kind = (int)m->kind > 0 &&
		(int)m->kind <= (int)SC_INSPECT_EV_REMOVED
	    ? (enum sc_inspect_event_kind)m->kind
	    : SC_INSPECT_EV_UNKNOWN;
	ev->at_ms = m->at_ms;
	ev->dropped = m->dropped;
	ev->has_exec = m->execution != NULL;
	if (m->execution != NULL)
		exec_from(&ev->exec, m->execution);
	else
		exec_empty(&ev->exec);
	return 1;
}

void
sc_inspect_watch_cancel(struct sc_inspect_watch *w)
{
	if (w->stream != NULL)
		sc_client_stream_cancel(w->a->c, w->stream);
}

void
sc_inspect_watch_free(struct sc_inspect_watch *w)
{
	if (w == NULL)
		return;
	if (w->stream != NULL)
		sc_client_stream_free(w->a->c, w->stream);
	if (w->ev != NULL)
		protobuf_c_message_free_unpacked(&w->ev->base, NULL);
	sc_buf_release(&w->msg);
	free(w);
}

int
sc_inspect_watch(struct sc_inspect *a, const struct sc_inspect_filter *f,
    bool snapshot, sc_inspect_event_fn *fn, void *arg,
    const struct timespec *deadline, struct sc_error *err)
{
	struct sc_inspect_watch *w;
	struct sc_inspect_event ev;
	int r;

	if ((w = sc_inspect_watch_open(a, f, snapshot, deadline, err)) == NULL)
		return -1;
	while ((r = sc_inspect_watch_next(w, &ev, NULL, err)) == 1)
		if (fn(&ev, arg) != 0) {
			r = 0;
			break;
		}
	sc_inspect_watch_free(w);
	return r;
}
