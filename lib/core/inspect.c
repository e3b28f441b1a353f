/* SPDX-License-Identifier: MIT */

/*
 * inspect.c: the sctk.admin.v1 client: requests built from plain C
 * filters, answers turned into views of the decoded messages, the Watch
 * stream, and the one message for a server without the service.
 *
 * It has its own small unary loop rather than sc_client_call(): admin
 * messages carry no Spark envelope (session id, user context) to stamp
 * or check.  Retries follow the same policy and report the same events.
 */

#include "core/inspect.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/conn.h"
#include "core/error.h"
#include "core/protocol.h"
#include "core/retry.h"
#include "core/rpc.h"
#include "core/timeutil.h"
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
/* Retries while the server has never answered, as core/client's. */
#define CONNECT_RETRIES 3

struct sc_inspect {
	const struct sc_transport *tr;
	void *ctx;
	struct sc_rpc *rpc; /* owned, or NULL (a test's transport) */
	char server[300];
	char *user_id;
	bool has_admin_token;
	struct sc_retry_policy policy;
	sc_client_event_fn *on_event;
	void *event_arg;
	pthread_mutex_t lock;
	bool reached; /* the server answered something */
	int64_t unreachable_ms; /* give up after this much silence; -1 never */
	int64_t silent_since; /* sc_mono_ms() of the silence's start, or -1 */
	char target[300]; /* host:port, for messages */
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

static bool
is_loopback(const char *host)
{
	return strcasecmp(host, "localhost") == 0 ||
	    strncmp(host, "127.", 4) == 0 || strcmp(host, "::1") == 0 ||
	    strcasecmp(host, "ip6-localhost") == 0;
}

struct sc_inspect *
sc_inspect_new_transport(const struct sc_transport *t, void *ctx,
    const char *server, const char *user_id, const struct sc_inspect_opts *o,
    struct sc_error *err)
{
	struct sc_inspect *a;

	(void)err;
	a = sc_xcalloc(1, sizeof(*a));
	a->tr = t;
	a->ctx = ctx;
	snprintf(a->server, sizeof(a->server), "%s",
	    server != NULL ? server : "");
	a->user_id = sc_xstrdup(user_id != NULL ? user_id : "");
	sc_retry_policy_default(&a->policy);
	a->unreachable_ms = SC_RETRY_UNREACHABLE_MS;
	a->silent_since = -1;
	if (o != NULL) {
		a->has_admin_token = o->admin_token != NULL;
		a->on_event = o->on_event;
		a->event_arg = o->event_arg;
	}
	pthread_mutex_init(&a->lock, NULL);
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
	struct sc_inspect *a = NULL;
	struct sc_rpc *rpc;
	struct sc_uri u;
	struct sc_error e;
	const char *uid, *tok = o != NULL ? o->admin_token : NULL;
	char server[300], uidbuf[256];
	size_t i;

	sc_uri_init(&u);
	if (sc_conn_uri(co, &u, err) == -1)
		goto out;
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
	}
	/*
	 * A secret, the admin token or a --token, goes over TLS unless it
	 * stays on this host or --insecure says otherwise, as in
	 * sc_client_new(); the --token alone used to go in the clear.
	 */
	if ((tok != NULL || u.has_token) && !u.use_ssl &&
	    !is_loopback(u.host) && !co->insecure)
		u.use_ssl = true;
	if ((rpc = sc_rpc_new(&u, co->ca_file, err)) == NULL)
		goto out;
	if (sc_uri_format(&u, server, sizeof(server)) == -1)
		server[0] = '\0';
	uid = sc_conn_user_id(NULL, &u, uidbuf, sizeof(uidbuf));
	a = sc_inspect_new_transport(&sc_client_rpc_transport, rpc, server, uid,
	    o, err);
	a->rpc = rpc;
	if (co->unreachable_ms >= 0)
		a->unreachable_ms = co->unreachable_ms > 0 ? co->unreachable_ms
							   : -1;
	if (sc_uri_target(&u, a->target, sizeof(a->target)) == -1)
		snprintf(a->target, sizeof(a->target), "%s", u.host);
out:
	wipe_header(&u);
	sc_uri_release(&u);
	return a;
}

void
sc_inspect_free(struct sc_inspect *a)
{
	if (a == NULL)
		return;
	if (a->rpc != NULL)
		sc_rpc_free(a->rpc);
	pthread_mutex_destroy(&a->lock);
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

static const char *
method_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

static void
note_status(struct sc_inspect *a, const struct sc_error *e, bool ok)
{
	/* UNAVAILABLE, or our own timeout (-1), says nothing. */
	if (ok || (e->rpc_code >= 0 && e->rpc_code != SC_GRPC_UNAVAILABLE)) {
		pthread_mutex_lock(&a->lock);
		a->reached = true;
		a->silent_since = -1;
		pthread_mutex_unlock(&a->lock);
	} else if (e->rpc_code == SC_GRPC_UNAVAILABLE &&
	    e->retry_delay_ms < 0 && e->errclass[0] == '\0') {
		/* A bare UNAVAILABLE: nobody there; the silence goes on. */
		pthread_mutex_lock(&a->lock);
		if (a->silent_since < 0)
			a->silent_since = sc_mono_ms();
		pthread_mutex_unlock(&a->lock);
	}
}

/* How much longer the server may stay silent (sc_retry_silence_left()). */
static int64_t
silence_left(struct sc_inspect *a)
{
	int64_t since;

	pthread_mutex_lock(&a->lock);
	since = a->silent_since;
	pthread_mutex_unlock(&a->lock);
	if (since >= 0)
		since = sc_mono_ms() - since;
	return sc_retry_silence_left(since, a->unreachable_ms);
}

static bool
reached(struct sc_inspect *a)
{
	bool r;

	pthread_mutex_lock(&a->lock);
	r = a->reached;
	pthread_mutex_unlock(&a->lock);
	return r;
}

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

static void
retry_event(struct sc_inspect *a, const char *method, const struct sc_error *e,
    enum sc_retry_reason why, int64_t delay, int attempt, int max)
{
	char secs[SC_CLIENT_SECS_STRLEN], text[1400];
	struct sc_client_event ev;

	if (a->on_event == NULL)
		return;
	sc_client_format_secs(delay, secs);
	snprintf(text, sizeof(text),
	    "%s, retrying %s in %s (attempt %d of %d): %s",
	    sc_retry_reason_str(why), method_name(method), secs, attempt, max,
	    e->msg);
	memset(&ev, 0, sizeof(ev));
	ev.kind = SC_CLIENT_EV_RETRY;
	ev.reason = why;
	ev.delay_ms = delay;
	ev.attempt = attempt;
	ev.max_attempts = max;
	ev.err = e;
	ev.text = text;
	a->on_event(&ev, a->event_arg);
}

/*
 * One unary call: pack req, send it, retry what Spark's clients retry
 * (not past deadline), unpack the answer as d into *resp.
 */
static int
call(struct sc_inspect *a, const char *method, const ProtobufCMessage *req,
    const ProtobufCMessageDescriptor *d, void **resp,
    const struct timespec *deadline, struct sc_error *err)
{
	struct sc_retry_policy pol = a->policy;
	struct sc_retry_state rs;
	enum sc_retry_reason why;
	struct sc_buf in, out;
	struct sc_error e;
	int64_t delay, left;
	char secs[SC_CLIENT_SECS_STRLEN];
	size_t n;
	void *m = NULL;

	sc_error_init(&e);
	sc_buf_init(&in, ANSWER_MAX);
	sc_buf_init(&out, ANSWER_MAX);
	if (sc_proto_pack(req, &in, &e) == -1)
		goto out;
	sc_retry_state_init(&rs, &pol);
	for (;;) {
		sc_error_init(&e);
		sc_buf_reset(&out);
		if (a->tr->unary(a->ctx, method, in.data, in.len, &out,
			deadline, &e) == 0) {
			note_status(a, &e, true);
			m = sc_proto_unpack(d, out.data, out.len, &e);
			break;
		}
		note_status(a, &e, false);
		pol.max_retries = a->policy.max_retries;
		if (!reached(a) && CONNECT_RETRIES < pol.max_retries)
			pol.max_retries = CONNECT_RETRIES;
		if (!sc_retry_classify(&e, &why) ||
		    (delay = sc_retry_next_delay(&pol, &rs, e.retry_delay_ms,
			 (uint32_t)random())) < 0 ||
		    (deadline != NULL && sc_ms_until(deadline) < delay))
			break;
		/* As core/client's: a server silent this long is given up. */
		if ((left = silence_left(a)) == 0) {
			sc_client_format_secs(a->unreachable_ms, secs);
			n = strlen(e.msg);
			snprintf(e.msg + n, sizeof(e.msg) - n,
			    " (no answer from '%s' for %s)", a->target, secs);
			break;
		}
		delay = sc_retry_cap(delay, left);
		retry_event(a, method, &e, why, delay, rs.attempt,
		    pol.max_retries);
		if (sc_retry_sleep_ms(delay, deadline) == -1)
			break;
	}
out:
	sc_buf_release(&in);
	sc_buf_release(&out);
	if (m == NULL) {
		reword(a, &e);
		if (err != NULL)
			*err = e;
		return -1;
	}
	*resp = m;
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
	w->stream = a->tr->stream_open(a->ctx, M_WATCH, p, n, deadline, &e);
	free(p);
	if (w->stream == NULL) {
		note_status(a, &e, false);
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
	r = w->a->tr->stream_read(w->stream, &w->msg, wait_until, &e);
	if (r <= 0) {
		if (r == -1) {
			note_status(w->a, &e, false);
			reword(w->a, &e);
			if (err != NULL)
				*err = e;
		}
		return r;
	}
	note_status(w->a, &e, true);
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
		w->a->tr->stream_cancel(w->stream);
}

void
sc_inspect_watch_free(struct sc_inspect_watch *w)
{
	if (w == NULL)
		return;
	if (w->stream != NULL)
		w->a->tr->stream_free(w->stream);
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
