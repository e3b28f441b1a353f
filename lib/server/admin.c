/* SPDX-License-Identifier: MIT */

/*
 * admin.c: sctk.admin.v1.AdminService, sc-serve's inspection service
 * (see admin.h for the access rules).  Handlers copy what they need from
 * the managers (sc_execmgr_snapshot(), sc_sessmgr_list()) and build the
 * answer outside their locks; Watch queues events from the execution
 * manager's callback and sends them one at a time.
 */

#include "server/admin.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "core/error.h"
#include "core/log.h"
#include "core/protocol.h"
#include "core/rpc_server.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "server/artifact.h"
#include "server/metrics.h"
#include "server/service.h"
#include "server/session.h"
/*
 * The generated code of admin.proto; protocol.h carries only the Spark
 * Connect messages.
 */
#include "server/service_int.h"
#include "core/banned.h"

#define STATE(st) ((Sctk__Admin__V1__ExecutionState)((int)(st) + 1))

/* One queued watch event: its kind, time and packed Execution. */
struct qitem {
	struct qitem *next;
	int kind;
	int64_t at_ms;
	uint8_t *exec; /* packed Execution */
	size_t len;
};

struct access {
	bool admin;
	bool bound; /* user is proven: the token file binds the token to it */
	char user[256]; /* the caller's user, when not admin */
	char session[128]; /* not bound: the session it named, or "" */
};

struct watcher {
	int refs; /* under a->lock: the list's, and one per send */
	struct sc_admin *a;
	struct sc_rpc_call *call; /* referenced */
	struct access acc;
	struct sc_admin_filter f;
	char *fsession, *fuser, *ftag; /* owned strings of f */
	struct qitem *head, *tail;
	size_t n, cap;
	int64_t dropped;
	bool in_flight;
	bool paused; /* taking the initial snapshot: queue, do not send */
	bool closed;
	struct watcher *next, *prev;
};

struct sc_admin {
	struct sc_server *srv;
	pthread_mutex_t lock;
	struct watcher *watchers;
	size_t nwatchers;
	bool stopping;
};

/* ------------------------------------------------------ pure parts */

static bool
empty(const char *s)
{
	return s == NULL || s[0] == '\0';
}

bool
sc_admin_filter_match(const struct sc_admin_filter *f,
    const struct sc_exec_info *info, int64_t now, bool identity_only)
{
	size_t i;
	bool tagged;

	if (!empty(f->session_id) &&
	    strcmp(f->session_id, info->session_id) != 0)
		return false;
	if (!empty(f->user_id) && strcmp(f->user_id, info->user_id) != 0)
		return false;
	if (!empty(f->tag)) {
		tagged = false;
		for (i = 0; i < info->ntags && !tagged; i++)
			tagged = strcmp(info->tags[i], f->tag) == 0;
		if (!tagged)
			return false;
	}
	if (identity_only)
		return true;
	if (!f->any_state && (f->states & (1u << info->state)) == 0)
		return false;
	if (f->detached_for_ms > 0 &&
	    (info->attached || info->tombstone ||
		now - info->attach_change_ms < f->detached_for_ms))
		return false;
	if (f->older_than_ms > 0 && now - info->created_ms < f->older_than_ms)
		return false;
	return true;
}

bool
sc_admin_visible(bool admin, const char *caller_user, const char *owner)
{
	if (admin)
		return true;
	return !empty(caller_user) && owner != NULL &&
	    strcmp(caller_user, owner) == 0;
}

bool
sc_admin_peer_is_loopback(const char *peer)
{
	static const char *const local[] = { "ipv4:127.",
		"ipv6:[::1]:", "ipv6:%5B::1%5D:", "ipv6:[::ffff:127.",
		"ipv6:%5B::ffff:127.", "unix:", "unix-abstract:" };
	size_t i;

	if (peer == NULL)
		return false;
	for (i = 0; i < SC_NELEM(local); i++)
		if (strncmp(peer, local[i], strlen(local[i])) == 0)
			return true;
	return false;
}

/* ---------------------------------------------------------- helpers */

/* Finish call with a Spark-style error carrying an ErrorInfo class. */
static void fail(struct sc_rpc_call *call, int code, const char *cls,
    const char *sqlstate, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void
fail(struct sc_rpc_call *call, int code, const char *cls, const char *sqlstate,
    const char *fmt, ...)
{
	struct sc_error err;
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	sc_srv_error(&err, cls, sqlstate, "%s", text);
	err.rpc_code = code;
	sc_srv_finish_error(call, NULL, &err);
}

/* "Bearer <token>" in got, for token; false when token is empty. */
static bool
bearer_is(const char *got, const char *token)
{
	char want[300];
	bool ok;

	if (token[0] == '\0')
		return false;
	snprintf(want, sizeof(want), "Bearer %s", token);
	ok = sc_auth_same_secret(got, want);
	explicit_bzero(want, sizeof(want));
	return ok;
}

/*
 * Decide what the caller may see (admin.h); session is the one the
 * request names (NULL: none).  On refusal the call is finished and -1
 * returned.
 */
static int
check_access(struct sc_admin *a, struct sc_rpc_call *call,
    const Sctk__Admin__V1__Caller *caller, const char *session,
    struct access *acc)
{
	const struct sc_server_conf *conf = &a->srv->conf;
	const char *peer, *cuser;
	char x[300], auth[300], bound[SC_AUTH_USER_MAX];
	bool has_x, has_auth, admin = false;
	struct sc_error err;
	enum sc_svc_who who;

	memset(acc, 0, sizeof(*acc));
	cuser = caller != NULL && caller->user_id != NULL ? caller->user_id
							  : "";
	has_x =
	    sc_rpc_call_metadata(call, "x-sctk-admin-token", x, sizeof(x)) == 0;
	has_auth = sc_rpc_call_metadata(call, "authorization", auth,
		       sizeof(auth)) == 0;
	if (conf->admin_token[0] != '\0') {
		if (has_x && !sc_auth_same_secret(x, conf->admin_token)) {
			explicit_bzero(x, sizeof(x));
			explicit_bzero(auth, sizeof(auth));
			sc_svc_log_refusal(call, "bad admin token", NULL, NULL);
			sc_rpc_call_finish(call, SC_GRPC_UNAUTHENTICATED,
			    "Invalid admin token", NULL, 0);
			return -1;
		}
		admin = has_x ||
		    (has_auth && bearer_is(auth, conf->admin_token));
	}
	explicit_bzero(x, sizeof(x));
	explicit_bzero(auth, sizeof(auth));
	if (admin) {
		acc->admin = true;
		return 0;
	}
	bound[0] = '\0';
	who = sc_svc_identify(a->srv, call, bound);
	switch (who) {
	case SC_SVC_MISSING:
	case SC_SVC_WRONG:
		sc_svc_log_refusal(call,
		    who == SC_SVC_WRONG ? "bad token" : "missing token", NULL,
		    NULL);
		sc_rpc_call_finish(call, SC_GRPC_UNAUTHENTICATED,
		    who == SC_SVC_WRONG ? "Invalid authentication token"
					: "No authentication token provided",
		    NULL, 0);
		return -1;
	case SC_SVC_OPEN:
		if (conf->admin_token[0] != '\0')
			break;
		peer = sc_rpc_call_peer(call);
		if (!sc_admin_peer_is_loopback(peer)) {
			fail(call, SC_GRPC_PERMISSION_DENIED,
			    "SCTK_ADMIN.LOOPBACK_ONLY", "42501",
			    "The admin service answers only loopback callers "
			    "when sc-serve has no token (--token, "
			    "--token-file, --admin-token); the caller is %s.",
			    peer != NULL ? peer : "unknown");
			return -1;
		}
		acc->admin = true;
		return 0;
	case SC_SVC_SHARED:
		break;
	case SC_SVC_BOUND:
		/* The caller's user is the token's; naming another is refused. */
		if (cuser[0] != '\0' &&
		    sc_svc_check_user(who, bound, cuser, &err) == -1) {
			if (err.rpc_code == SC_GRPC_PERMISSION_DENIED)
				sc_svc_log_refusal(call, "user mismatch", bound,
				    cuser);
			sc_srv_finish_error(call, NULL, &err);
			return -1;
		}
		acc->bound = true;
		snprintf(acc->user, sizeof(acc->user), "%s", bound);
		return 0;
	}
	/* Anybody may claim a user: only the session it names is shown. */
	snprintf(acc->user, sizeof(acc->user), "%s", cuser);
	if (session != NULL)
		snprintf(acc->session, sizeof(acc->session), "%s", session);
	return 0;
}

/* Whether the caller of acc may see what belongs to (user, session). */
static bool
can_see(const struct access *acc, const char *user, const char *session)
{
	if (acc->admin)
		return true;
	if (!sc_admin_visible(false, acc->user, user))
		return false;
	return acc->bound ||
	    (acc->session[0] != '\0' && session != NULL &&
		strcmp(acc->session, session) == 0);
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
		fail(call, SC_GRPC_INVALID_ARGUMENT, "INVALID_REQUEST", "22023",
		    "Malformed admin request: %s", err.msg);
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

/* The filter of a request (borrowing its strings); NULL: no conditions. */
static void
filter_from(const Sctk__Admin__V1__ExecutionFilter *pf,
    struct sc_admin_filter *f)
{
	size_t i;
	int v;

	memset(f, 0, sizeof(*f));
	f->any_state = true;
	if (pf == NULL)
		return;
	f->session_id = pf->session_id;
	f->user_id = pf->user_id;
	f->tag = pf->tag;
	f->detached_for_ms = pf->detached_for_ms;
	f->older_than_ms = pf->older_than_ms;
	if (pf->n_states > 0) {
		f->any_state = false;
		for (i = 0; i < pf->n_states; i++) {
			v = (int)pf->states[i] - 1;
			if (v >= 0 && v < SC_EXEC_NSTATES)
				f->states |= 1u << v;
		}
	}
}

/* Fill e from info, the statement only if asked; e borrows info's strings. */
static void
exec_from(Sctk__Admin__V1__Execution *e, const struct sc_exec_info *info,
    bool statement)
{
	sctk__admin__v1__execution__init(e);
	e->operation_id = (char *)info->op_id;
	e->session_id = (char *)info->session_id;
	e->user_id = (char *)info->user_id;
	e->n_tags = info->ntags;
	e->tags = (char **)info->tags;
	/* SQL text can hold secrets: only an administrator reads it. */
	e->statement = (char *)(statement && info->statement != NULL
		? info->statement
		: "");
	e->state = STATE(info->state);
	e->reattachable = info->reattachable;
	e->created_at_ms = info->created_ms;
	e->started_at_ms = info->started_ms;
	e->finished_at_ms = info->finished_ms;
	e->attached = info->attached;
	if (info->attached)
		e->attached_since_at_ms = info->attach_change_ms;
	else
		e->detached_since_at_ms = info->attach_change_ms;
	e->abandon_in_ms = info->abandon_in_ms;
	e->responses_produced = info->produced;
	e->responses_sent = info->responses_sent;
	e->responses_released = info->responses_released;
	e->buffered_bytes = info->buffered_bytes;
	e->rows_sent = info->rows_sent;
	e->bytes_sent = info->bytes_sent;
	e->rotations = info->rotations;
	e->reattaches = info->reattaches;
	e->last_error_class = (char *)info->last_error_class;
	e->server_side_session_id =
	    (char *)(info->server_side_session_id != NULL
		    ? info->server_side_session_id
		    : "");
}

/* ---------------------------------------------------- ListExecutions */

static void
h_list_executions(struct sc_rpc_call *call, void *arg)
{
	struct sc_admin *a = arg;
	Sctk__Admin__V1__ListExecutionsRequest *req;
	Sctk__Admin__V1__ListExecutionsResponse resp =
	    SCTK__ADMIN__V1__LIST_EXECUTIONS_RESPONSE__INIT;
	Sctk__Admin__V1__Execution *ev = NULL, **ep = NULL;
	struct sc_exec_snapshot snap;
	struct sc_admin_filter f;
	struct access acc;
	const struct sc_exec_info *info;
	size_t i, n = 0, limit;
	int64_t now;

	if ((req = decode(call,
		 &sctk__admin__v1__list_executions_request__descriptor)) ==
	    NULL)
		return;
	if (check_access(a, call, req->caller,
		req->filter != NULL ? req->filter->session_id : NULL,
		&acc) == -1)
		goto out;
	if (req->limit < 0) {
		fail(call, SC_GRPC_INVALID_ARGUMENT,
		    "INVALID_PARAMETER_VALUE.LIMIT", "22023",
		    "The value of parameter(s) `limit` in `ListExecutions` "
		    "is invalid. Expects a non-negative number, got %d.",
		    (int)req->limit);
		goto out;
	}
	limit = req->limit == 0 || req->limit > SC_ADMIN_LIST_MAX
	    ? SC_ADMIN_LIST_MAX
	    : (size_t)req->limit;
	filter_from(req->filter, &f);
	sc_execmgr_snapshot(a->srv->execs, false, &snap);
	now = sc_realtime_ms();
	if (snap.n > 0) {
		ev = sc_xcalloc(snap.n < limit ? snap.n : limit, sizeof(*ev));
		ep = sc_xcalloc(snap.n < limit ? snap.n : limit, sizeof(*ep));
	}
	/* Newest first: the snapshot is in creation order. */
	for (i = snap.n; i-- > 0;) {
		info = &snap.v[i];
		if (!can_see(&acc, info->user_id, info->session_id) ||
		    !sc_admin_filter_match(&f, info, now, false))
			continue;
		if (n == limit) {
			resp.truncated = true;
			break;
		}
		exec_from(&ev[n], info, acc.admin);
		ep[n] = &ev[n];
		n++;
	}
	resp.n_executions = n;
	resp.executions = ep;
	resp.server_time_ms = sc_realtime_ms();
	reply(call, &resp.base);
	free(ev);
	free(ep);
	sc_exec_snapshot_release(&snap);
out:
	free_msg(req);
}

/* ------------------------------------------------------ GetExecution */

static void
h_get_execution(struct sc_rpc_call *call, void *arg)
{
	struct sc_admin *a = arg;
	Sctk__Admin__V1__GetExecutionRequest *req;
	Sctk__Admin__V1__GetExecutionResponse resp =
	    SCTK__ADMIN__V1__GET_EXECUTION_RESPONSE__INIT;
	Sctk__Admin__V1__Execution e;
	struct sc_exec_snapshot snap;
	struct access acc;
	const struct sc_exec_info *info;
	const char *id;
	size_t i;

	if ((req = decode(call,
		 &sctk__admin__v1__get_execution_request__descriptor)) == NULL)
		return;
	if (check_access(a, call, req->caller, NULL, &acc) == -1)
		goto out;
	id = req->operation_id != NULL ? req->operation_id : "";
	sc_execmgr_snapshot(a->srv->execs, false, &snap);
	for (i = snap.n; i-- > 0;) {
		info = &snap.v[i];
		if (strcasecmp(info->op_id, id) == 0 &&
		    can_see(&acc, info->user_id, info->session_id))
			break;
	}
	if (i == (size_t)-1) {
		fail(call, SC_GRPC_NOT_FOUND,
		    "INVALID_HANDLE.OPERATION_NOT_FOUND", "HY000",
		    "The handle `%s` is invalid. Operation not found.", id);
	} else {
		exec_from(&e, &snap.v[i], acc.admin);
		resp.execution = &e;
		resp.server_time_ms = sc_realtime_ms();
		reply(call, &resp.base);
	}
	sc_exec_snapshot_release(&snap);
out:
	free_msg(req);
}

/* ------------------------------------------------------ ListSessions */

static int
cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The number of operations of (user, session) in the sorted keys. */
static int32_t
count_ops(char **keys, size_t n, const char *user, const char *session)
{
	char k[400];
	char *kp = k;
	char **hit;
	size_t lo, hi, mid;
	int32_t c = 0;

	if (n == 0)
		return 0;
	snprintf(k, sizeof(k), "%s%c%s", user, 1, session);
	/* Lower bound, then count the equal run. */
	lo = 0;
	hi = n;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (strcmp(keys[mid], kp) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (hit = keys + lo; hit < keys + n && strcmp(*hit, kp) == 0; hit++)
		c++;
	return c;
}

static void
h_list_sessions(struct sc_rpc_call *call, void *arg)
{
	struct sc_admin *a = arg;
	Sctk__Admin__V1__ListSessionsRequest *req;
	Sctk__Admin__V1__ListSessionsResponse resp =
	    SCTK__ADMIN__V1__LIST_SESSIONS_RESPONSE__INIT;
	Sctk__Admin__V1__Session *sv = NULL, **sp = NULL;
	Sctk__Admin__V1__Artifact **ap;
	struct sc_session_info *ss;
	struct sc_artifact_info **arts = NULL;
	size_t *narts = NULL;
	struct sc_exec_snapshot snap;
	struct access acc;
	char **keys = NULL;
	size_t i, j, n, nss, nkeys = 0;

	if ((req = decode(call,
		 &sctk__admin__v1__list_sessions_request__descriptor)) == NULL)
		return;
	if (check_access(a, call, req->caller, req->session_id, &acc) == -1)
		goto out;
	sc_execmgr_snapshot(a->srv->execs, false, &snap);
	if (snap.n > 0)
		keys = sc_xcalloc(snap.n, sizeof(*keys));
	for (i = 0; i < snap.n; i++) {
		size_t ul = strlen(snap.v[i].user_id);
		size_t sl = strlen(snap.v[i].session_id);

		keys[nkeys] = sc_xmalloc(ul + sl + 2);
		memcpy(keys[nkeys], snap.v[i].user_id, ul);
		keys[nkeys][ul] = 1;
		memcpy(keys[nkeys] + ul + 1, snap.v[i].session_id, sl + 1);
		nkeys++;
	}
	sc_exec_snapshot_release(&snap);
	if (nkeys > 0)
		qsort(keys, nkeys, sizeof(*keys), cmp_str);

	sc_sessmgr_list(a->srv->sessions, &ss, &nss);
	sv = sc_xcalloc(nss + 1, sizeof(*sv));
	sp = sc_xcalloc(nss + 1, sizeof(*sp));
	arts = sc_xcalloc(nss + 1, sizeof(*arts));
	narts = sc_xcalloc(nss + 1, sizeof(*narts));
	n = 0;
	for (i = 0; i < nss; i++) {
		Sctk__Admin__V1__Session *s = &sv[n];

		if (!can_see(&acc, ss[i].user_id, ss[i].session_id) ||
		    (!empty(req->user_id) &&
			strcmp(req->user_id, ss[i].user_id) != 0) ||
		    (!empty(req->session_id) &&
			strcmp(req->session_id, ss[i].session_id) != 0))
			continue;
		sctk__admin__v1__session__init(s);
		s->session_id = ss[i].session_id;
		s->user_id = ss[i].user_id;
		s->server_side_session_id = ss[i].server_side_id;
		s->created_at_ms = ss[i].created_ms;
		s->last_access_at_ms = ss[i].last_access_ms;
		s->expires_in_ms = ss[i].expires_in_ms;
		s->operations =
		    count_ops(keys, nkeys, ss[i].user_id, ss[i].session_id);
		if (a->srv->artifacts != NULL)
			sc_artifact_list(a->srv->artifacts,
			    ss[i].server_side_id, &arts[n], &narts[n]);
		if (narts[n] > 0) {
			ap = sc_xcalloc(narts[n], sizeof(*ap));
			for (j = 0; j < narts[n]; j++) {
				ap[j] = sc_xcalloc(1, sizeof(**ap));
				sctk__admin__v1__artifact__init(ap[j]);
				ap[j]->name = arts[n][j].name;
				ap[j]->size = arts[n][j].size;
				ap[j]->stored_at_ms = arts[n][j].stored_ms;
				s->artifact_bytes += arts[n][j].size;
			}
			s->artifacts = ap;
			s->n_artifacts = narts[n];
		}
		sp[n] = s;
		n++;
	}
	resp.n_sessions = n;
	resp.sessions = sp;
	resp.server_time_ms = sc_realtime_ms();
	reply(call, &resp.base);
	for (i = 0; i < n; i++) {
		for (j = 0; j < sv[i].n_artifacts; j++)
			free(sv[i].artifacts[j]);
		free(sv[i].artifacts);
		if (arts[i] != NULL)
			sc_artifact_list_free(arts[i], narts[i]);
	}
	for (i = 0; i < nkeys; i++)
		free(keys[i]);
	free(keys);
	free(arts);
	free(narts);
	free(sv);
	free(sp);
	free(ss);
out:
	free_msg(req);
}

/* ---------------------------------------------------- ListTombstones */

static int
cmp_tomb(const void *x, const void *y)
{
	const Sctk__Admin__V1__Tombstone *a = *(const void *const *)x;
	const Sctk__Admin__V1__Tombstone *b = *(const void *const *)y;

	/* Newest first. */
	return (a->at_ms < b->at_ms) - (a->at_ms > b->at_ms);
}

static void
h_list_tombstones(struct sc_rpc_call *call, void *arg)
{
	struct sc_admin *a = arg;
	Sctk__Admin__V1__ListTombstonesRequest *req;
	Sctk__Admin__V1__ListTombstonesResponse resp =
	    SCTK__ADMIN__V1__LIST_TOMBSTONES_RESPONSE__INIT;
	Sctk__Admin__V1__Tombstone *tv, **tp, *t;
	struct sc_exec_snapshot snap;
	struct sc_session_tomb *st;
	struct access acc;
	const char *user, *sess;
	size_t i, n = 0, nst;

	if ((req = decode(call,
		 &sctk__admin__v1__list_tombstones_request__descriptor)) ==
	    NULL)
		return;
	if (check_access(a, call, req->caller, req->session_id, &acc) == -1)
		goto out;
	sc_execmgr_snapshot(a->srv->execs, true, &snap);
	sc_sessmgr_tombstones(a->srv->sessions, &st, &nst);
	tv = sc_xcalloc(snap.n + nst + 1, sizeof(*tv));
	tp = sc_xcalloc(snap.n + nst + 1, sizeof(*tp));
	for (i = 0; i < snap.n + nst; i++) {
		if (i < snap.n && !snap.v[i].tombstone)
			continue;
		user = i < snap.n ? snap.v[i].user_id : st[i - snap.n].user_id;
		sess = i < snap.n ? snap.v[i].session_id
				  : st[i - snap.n].session_id;
		if (!can_see(&acc, user, sess) ||
		    (!empty(req->user_id) && strcmp(req->user_id, user) != 0) ||
		    (!empty(req->session_id) &&
			strcmp(req->session_id, sess) != 0))
			continue;
		t = &tv[n];
		sctk__admin__v1__tombstone__init(t);
		t->user_id = (char *)user;
		t->session_id = (char *)sess;
		if (i < snap.n) {
			t->kind =
			    SCTK__ADMIN__V1__TOMBSTONE__KIND__KIND_OPERATION;
			t->operation_id = (char *)snap.v[i].op_id;
			t->reason = (char *)snap.v[i].reason;
			t->at_ms = snap.v[i].closed_ms;
		} else {
			t->kind =
			    SCTK__ADMIN__V1__TOMBSTONE__KIND__KIND_SESSION;
			t->reason = (char *)st[i - snap.n].reason;
			t->at_ms = st[i - snap.n].at_ms;
		}
		tp[n++] = t;
	}
	if (n > 1)
		qsort(tp, n, sizeof(*tp), cmp_tomb);
	resp.n_tombstones = n;
	resp.tombstones = tp;
	resp.server_time_ms = sc_realtime_ms();
	reply(call, &resp.base);
	free(tv);
	free(tp);
	free(st);
	sc_exec_snapshot_release(&snap);
out:
	free_msg(req);
}

/* ----------------------------------------------------------- GetStats */

/* Resident set size in bytes from /proc/self/statm, or 0. */
static int64_t
rss_bytes(void)
{
	FILE *fp;
	long long size = 0, resident = 0;

	if ((fp = fopen("/proc/self/statm", "re")) == NULL)
		return 0;
	if (fscanf(fp, "%lld %lld", &size, &resident) != 2)
		resident = 0;
	fclose(fp);
	return (int64_t)resident * (int64_t)sysconf(_SC_PAGESIZE);
}

static int64_t
heap_bytes(void)
{
#ifdef __GLIBC__
	struct mallinfo2 mi = mallinfo2();

	return (int64_t)(mi.uordblks + mi.hblkhd);
#else
	return 0;
#endif
}

/* GetStatsResponse and everything it points to, in one allocation. */
struct stats_msg {
	Sctk__Admin__V1__GetStatsResponse resp;
	Sctk__Admin__V1__StateCount sc[SC_EXEC_NSTATES];
	Sctk__Admin__V1__StateCount *scp[SC_EXEC_NSTATES];
	char version[sizeof(SCTK_VERSION)];
	struct sc_metrics_snapshot snap;
	Sctk__Admin__V1__RpcCount rc[SC_METRICS_NMETHODS * SC_METRICS_NCODES];
	Sctk__Admin__V1__RpcCount *rcp[SC_METRICS_NMETHODS * SC_METRICS_NCODES];
	Sctk__Admin__V1__Histogram h[SC_METRICS_NMETHODS + 1];
	Sctk__Admin__V1__Histogram *hp[SC_METRICS_NMETHODS];
	double bounds[SC_METRICS_NBUCKETS];
	int64_t le[SC_METRICS_NMETHODS + 1][SC_METRICS_NBUCKETS];
};

/* Histogram message i of m from the snapshot's histogram hs. */
static Sctk__Admin__V1__Histogram *
hist_msg(struct stats_msg *m, size_t i, const struct sc_metrics_hist *hs,
    const char *method)
{
	Sctk__Admin__V1__Histogram *h = &m->h[i];
	size_t b;

	sctk__admin__v1__histogram__init(h);
	h->method = (char *)(uintptr_t)method;
	h->n_upper_bounds_seconds = SC_METRICS_NBUCKETS;
	h->upper_bounds_seconds = m->bounds;
	for (b = 0; b < SC_METRICS_NBUCKETS; b++)
		m->le[i][b] = (int64_t)hs->le[b];
	h->n_cumulative_counts = SC_METRICS_NBUCKETS;
	h->cumulative_counts = m->le[i];
	h->count = (int64_t)hs->count;
	h->sum_seconds = (double)hs->sum_us / 1e6;
	return h;
}

/* The process-wide figures only an administrator gets. */
static void
admin_stats(struct sc_admin *a, struct stats_msg *m)
{
	Sctk__Admin__V1__GetStatsResponse *r = &m->resp;
	struct sc_exec_counts counts;
	size_t i, c, n = 0;

	sc_execmgr_counts(a->srv->execs, &counts);
	r->sessions = (int64_t)sc_sessmgr_count(a->srv->sessions);
	r->rss_bytes = rss_bytes();
	r->heap_in_use_bytes = heap_bytes();
	pthread_mutex_lock(&a->lock);
	r->streams_open += (int64_t)a->nwatchers;
	pthread_mutex_unlock(&a->lock);
	r->operations_started = (int64_t)counts.started;
	r->operations_finished = (int64_t)counts.finished;
	r->operations_failed = (int64_t)counts.failed;
	r->operations_canceled = (int64_t)counts.canceled;
	r->operations_abandoned = (int64_t)counts.abandoned;
	r->rows_sent = counts.rows_sent;
	r->bytes_sent = counts.bytes_sent;
	r->reattaches = (int64_t)counts.reattaches;
	sc_artifact_store_totals(a->srv->artifacts, &r->artifacts,
	    &r->artifact_bytes);

	sc_metrics_snapshot(&m->snap);
	memcpy(m->bounds, sc_metrics_bounds, sizeof(m->bounds));
	for (i = 0; i < SC_METRICS_NMETHODS; i++) {
		for (c = 0; c < SC_METRICS_NCODES; c++) {
			if (m->snap.calls[i][c] == 0)
				continue;
			sctk__admin__v1__rpc_count__init(&m->rc[n]);
			m->rc[n].method =
			    (char *)(uintptr_t)sc_metrics_method_name(i);
			m->rc[n].code =
			    (char *)(uintptr_t)sc_metrics_code_name((int)c);
			m->rc[n].count = (int64_t)m->snap.calls[i][c];
			m->rcp[n] = &m->rc[n];
			n++;
		}
		m->hp[i] =
		    hist_msg(m, i, &m->snap.rpc[i], sc_metrics_method_name(i));
	}
	r->n_rpcs = n;
	r->rpcs = m->rcp;
	r->n_rpc_durations = SC_METRICS_NMETHODS;
	r->rpc_durations = m->hp;
	r->operation_durations =
	    hist_msg(m, SC_METRICS_NMETHODS, &m->snap.op, "");
}

/* Fill m for a caller with access acc. */
static void
fill_stats(struct sc_admin *a, const struct access *acc, struct stats_msg *m)
{
	Sctk__Admin__V1__GetStatsResponse *r = &m->resp;
	struct sc_exec_snapshot snap;
	int64_t by_state[SC_EXEC_NSTATES] = { 0 };
	size_t i;

	sctk__admin__v1__get_stats_response__init(r);
	sc_execmgr_snapshot(a->srv->execs, false, &snap);
	for (i = 0; i < snap.n; i++) {
		if (!can_see(acc, snap.v[i].user_id, snap.v[i].session_id))
			continue;
		by_state[snap.v[i].state]++;
		r->buffered_bytes += snap.v[i].buffered_bytes;
		if (snap.v[i].attached)
			r->streams_open++;
	}
	sc_exec_snapshot_release(&snap);
	for (i = 0; i < SC_EXEC_NSTATES; i++) {
		sctk__admin__v1__state_count__init(&m->sc[i]);
		m->sc[i].state = STATE(i);
		m->sc[i].count = by_state[i];
		m->scp[i] = &m->sc[i];
	}
	memcpy(m->version, SCTK_VERSION, sizeof(m->version));
	r->version = m->version;
	r->started_at_ms = a->srv->started_ms;
	r->server_time_ms = sc_realtime_ms();
	r->uptime_ms = r->server_time_ms - a->srv->started_ms;
	r->n_operations = SC_EXEC_NSTATES;
	r->operations = m->scp;
	if (acc->admin)
		admin_stats(a, m);
	else if (acc->bound)
		r->sessions =
		    (int64_t)sc_sessmgr_user_count(a->srv->sessions, acc->user);
}

static void
h_get_stats(struct sc_rpc_call *call, void *arg)
{
	struct sc_admin *a = arg;
	Sctk__Admin__V1__GetStatsRequest *req;
	struct stats_msg *m;
	struct access acc;

	if ((req = decode(call,
		 &sctk__admin__v1__get_stats_request__descriptor)) == NULL)
		return;
	if (check_access(a, call, req->caller, NULL, &acc) == -1)
		goto out;
	m = sc_xmalloc(sizeof(*m));
	fill_stats(a, &acc, m);
	reply(call, &m->resp.base);
	free(m);
out:
	free_msg(req);
}

uint8_t *
sc_admin_stats_pack(struct sc_admin *a, size_t *lenp)
{
	struct stats_msg *m;
	struct access acc;
	uint8_t *buf;

	memset(&acc, 0, sizeof(acc));
	acc.admin = true;
	m = sc_xmalloc(sizeof(*m));
	fill_stats(a, &acc, m);
	buf = sc_proto_pack_alloc(&m->resp.base, lenp);
	free(m);
	return buf;
}

/* -------------------------------------------------------------- Watch */

static void watch_sent(struct sc_rpc_call *call, bool ok, void *arg);

static void
qitem_free(struct qitem *q)
{
	free(q->exec);
	free(q);
}

/* Drop the queue (a->lock held). */
static void
queue_clear(struct watcher *w)
{
	struct qitem *q;

	while ((q = w->head) != NULL) {
		w->head = q->next;
		qitem_free(q);
	}
	w->tail = NULL;
	w->n = 0;
}

/* Free w; no lock of ours held. */
static void
watcher_free(struct watcher *w)
{
	queue_clear(w);
	sc_rpc_call_unref(w->call);
	free(w->fsession);
	free(w->fuser);
	free(w->ftag);
	free(w);
}

static void
queue_push(struct watcher *w, struct qitem *q)
{
	struct qitem *old;

	if (w->n >= w->cap && (old = w->head) != NULL) {
		w->head = old->next;
		if (w->head == NULL)
			w->tail = NULL;
		w->n--;
		w->dropped++;
		qitem_free(old);
	}
	q->next = NULL;
	if (w->tail != NULL)
		w->tail->next = q;
	else
		w->head = q;
	w->tail = q;
	w->n++;
}

/*
 * Send the next queued event if none is in flight (a->lock held): the
 * WatchEvent is written around the packed Execution: kind (1), at_ms
 * (2), execution (3), dropped (4).
 */
static void
pump(struct watcher *w)
{
	struct qitem *q;
	uint8_t *buf, *p;
	int rc;

	if (w->in_flight || w->paused || w->closed || (q = w->head) == NULL)
		return;
	w->head = q->next;
	if (w->head == NULL)
		w->tail = NULL;
	w->n--;
	buf = sc_xmalloc(q->len + 48);
	p = buf;
	*p++ = 0x08;
	p = sc_proto_put_varint(p, (uint64_t)q->kind);
	*p++ = 0x10;
	p = sc_proto_put_varint(p, (uint64_t)q->at_ms);
	*p++ = 0x1a;
	p = sc_proto_put_varint(p, q->len);
	memcpy(p, q->exec, q->len);
	p += q->len;
	if (w->dropped > 0) {
		*p++ = 0x20;
		p = sc_proto_put_varint(p, (uint64_t)w->dropped);
	}
	w->refs++;
	rc = sc_rpc_call_send(w->call, buf, (size_t)(p - buf), watch_sent, w);
	free(buf);
	qitem_free(q);
	if (rc == -1) {
		w->refs--; /* the list still holds one */
		w->closed = true;
		queue_clear(w);
		return;
	}
	w->in_flight = true;
}

static void
watch_sent(struct sc_rpc_call *call, bool ok, void *arg)
{
	struct watcher *w = arg;
	struct sc_admin *a = w->a;
	bool last;

	(void)call;
	pthread_mutex_lock(&a->lock);
	w->in_flight = false;
	if (!ok) {
		w->closed = true;
		queue_clear(w);
	} else
		pump(w);
	last = --w->refs == 0;
	pthread_mutex_unlock(&a->lock);
	if (last)
		watcher_free(w);
}

static void
watch_closed(struct sc_rpc_call *call, bool cancelled, void *arg)
{
	struct watcher *w = arg;
	struct sc_admin *a = w->a;
	bool last;

	(void)call;
	(void)cancelled;
	pthread_mutex_lock(&a->lock);
	w->closed = true;
	queue_clear(w);
	if (w->prev != NULL)
		w->prev->next = w->next;
	else
		a->watchers = w->next;
	if (w->next != NULL)
		w->next->prev = w->prev;
	a->nwatchers--;
	last = --w->refs == 0;
	pthread_mutex_unlock(&a->lock);
	if (last)
		watcher_free(w);
}

static struct qitem *
qitem_new(int kind, const struct sc_exec_info *info, int64_t at, bool statement)
{
	Sctk__Admin__V1__Execution e;
	struct qitem *q;

	q = sc_xcalloc(1, sizeof(*q));
	q->kind = kind;
	q->at_ms = at;
	exec_from(&e, info, statement);
	q->exec = sc_proto_pack_alloc(&e.base, &q->len);
	return q;
}

/* WatchEvent.Kind of an execution manager event. */
static int
event_kind(enum sc_exec_event ev)
{
	return (int)ev + SCTK__ADMIN__V1__WATCH_EVENT__KIND__KIND_CREATED;
}

/* The execution manager's event callback (its locks held). */
static void
on_event(enum sc_exec_event ev, const struct sc_exec_info *info, void *arg)
{
	struct sc_admin *a = arg;
	struct watcher *w;
	struct qitem *proto[2] = { NULL, NULL }, *q; /* without, with SQL */
	int k;
	int64_t now;

	pthread_mutex_lock(&a->lock);
	if (a->watchers == NULL) {
		pthread_mutex_unlock(&a->lock);
		return;
	}
	now = sc_realtime_ms();
	for (w = a->watchers; w != NULL; w = w->next) {
		if (w->closed ||
		    !can_see(&w->acc, info->user_id, info->session_id) ||
		    !sc_admin_filter_match(&w->f, info, now, true))
			continue;
		k = w->acc.admin ? 1 : 0;
		if (proto[k] == NULL)
			proto[k] =
			    qitem_new(event_kind(ev), info, now, w->acc.admin);
		q = sc_xmalloc(sizeof(*q));
		*q = *proto[k];
		q->exec = sc_xmemdup(proto[k]->exec, proto[k]->len);
		queue_push(w, q);
		pump(w);
	}
	pthread_mutex_unlock(&a->lock);
	for (k = 0; k < 2; k++)
		if (proto[k] != NULL)
			qitem_free(proto[k]);
}

static char *
dup_or_null(const char *s)
{
	return empty(s) ? NULL : sc_xstrdup(s);
}

static void
h_watch(struct sc_rpc_call *call, void *arg)
{
	struct sc_admin *a = arg;
	Sctk__Admin__V1__WatchRequest *req;
	struct sc_exec_snapshot snap;
	struct qitem *first = NULL, *last = NULL, *q;
	struct watcher *w;
	struct access acc;
	size_t i, nsnap = 0;
	int64_t now;

	if ((req = decode(call, &sctk__admin__v1__watch_request__descriptor)) ==
	    NULL)
		return;
	if (check_access(a, call, req->caller,
		req->filter != NULL ? req->filter->session_id : NULL,
		&acc) == -1)
		goto out;
	w = sc_xcalloc(1, sizeof(*w));
	w->a = a;
	sc_rpc_call_ref(call);
	w->call = call;
	w->acc = acc;
	filter_from(req->filter, &w->f);
	w->f.session_id = w->fsession = dup_or_null(w->f.session_id);
	w->f.user_id = w->fuser = dup_or_null(w->f.user_id);
	w->f.tag = w->ftag = dup_or_null(w->f.tag);
	w->cap = SC_ADMIN_WATCH_QUEUE;
	w->paused = req->initial_snapshot;
	w->refs = 1; /* the list's, dropped by watch_closed() */

	pthread_mutex_lock(&a->lock);
	if (a->stopping) {
		pthread_mutex_unlock(&a->lock);
		sc_rpc_call_finish(call, SC_GRPC_UNAVAILABLE,
		    "sc-serve is shutting down", NULL, 0);
		watcher_free(w);
		goto out;
	}
	w->next = a->watchers;
	if (a->watchers != NULL)
		a->watchers->prev = w;
	a->watchers = w;
	a->nwatchers++;
	pthread_mutex_unlock(&a->lock);
	sc_rpc_call_on_close(call, watch_closed, w);
	/*
	 * Headers now, so a client sees the stream open even before the
	 * first event.
	 */
	sc_debug("admin: watch from %s%s", sc_rpc_call_peer(call),
	    acc.admin ? " (admin)" : "");

	if (req->initial_snapshot) {
		/*
		 * Registered first, then the snapshot: no event is lost;
		 * those that came meanwhile wait behind the snapshot.
		 */
		sc_execmgr_snapshot(a->srv->execs, false, &snap);
		now = sc_realtime_ms();
		for (i = 0; i < snap.n; i++) {
			if (!can_see(&acc, snap.v[i].user_id,
				snap.v[i].session_id) ||
			    !sc_admin_filter_match(&w->f, &snap.v[i], now,
				false))
				continue;
			q = qitem_new(
			    SCTK__ADMIN__V1__WATCH_EVENT__KIND__KIND_SNAPSHOT,
			    &snap.v[i], now, acc.admin);
			if (last != NULL)
				last->next = q;
			else
				first = q;
			last = q;
			nsnap++;
		}
		sc_exec_snapshot_release(&snap);
		pthread_mutex_lock(&a->lock);
		if (last != NULL && !w->closed) {
			last->next = w->head;
			w->head = first;
			if (w->tail == NULL)
				w->tail = last;
			w->n += nsnap;
			w->cap += nsnap;
			first = NULL;
		}
		w->paused = false;
		pump(w);
		pthread_mutex_unlock(&a->lock);
		while ((q = first) != NULL) {
			first = q->next;
			qitem_free(q);
		}
	}
out:
	free_msg(req);
}

/* ---------------------------------------------------------- lifecycle */

struct sc_admin *
sc_admin_new(struct sc_server *srv)
{
	struct sc_admin *a;

	a = sc_xcalloc(1, sizeof(*a));
	a->srv = srv;
	pthread_mutex_init(&a->lock, NULL);
	return a;
}

int
sc_admin_register(struct sc_admin *a, struct sc_error *err)
{
	static const struct {
		const char *path;
		enum sc_rpc_kind kind;
		sc_rpc_handler_fn *fn;
	} methods[] = {
		{ SC_ADMIN_LIST_EXECUTIONS, SC_RPC_UNARY, h_list_executions },
		{ SC_ADMIN_GET_EXECUTION, SC_RPC_UNARY, h_get_execution },
		{ SC_ADMIN_LIST_SESSIONS, SC_RPC_UNARY, h_list_sessions },
		{ SC_ADMIN_LIST_TOMBSTONES, SC_RPC_UNARY, h_list_tombstones },
		{ SC_ADMIN_GET_STATS, SC_RPC_UNARY, h_get_stats },
		{ SC_ADMIN_WATCH, SC_RPC_SERVER_STREAM, h_watch },
	};
	size_t i;

	for (i = 0; i < SC_NELEM(methods); i++)
		if (sc_rpc_server_add_method(a->srv->rpc, methods[i].path,
			methods[i].kind, methods[i].fn, a, err) == -1)
			return -1;
	sc_execmgr_on_event(a->srv->execs, on_event, a);
	return 0;
}

void
sc_admin_shutdown(struct sc_admin *a)
{
	struct sc_rpc_call **calls = NULL;
	struct watcher *w;
	size_t i, n = 0;

	if (a == NULL)
		return;
	pthread_mutex_lock(&a->lock);
	a->stopping = true;
	if (a->nwatchers > 0)
		calls = sc_xcalloc(a->nwatchers, sizeof(*calls));
	for (w = a->watchers; w != NULL; w = w->next) {
		queue_clear(w);
		w->closed = true;
		sc_rpc_call_ref(w->call);
		calls[n++] = w->call;
	}
	pthread_mutex_unlock(&a->lock);
	for (i = 0; i < n; i++) {
		sc_rpc_call_finish(calls[i], SC_GRPC_UNAVAILABLE,
		    "sc-serve is shutting down", NULL, 0);
		sc_rpc_call_unref(calls[i]);
	}
	free(calls);
}

void
sc_admin_free(struct sc_admin *a)
{
	struct watcher *w;

	if (a == NULL)
		return;
	/* Every watch call was closed by sc_rpc_server_shutdown(). */
	while ((w = a->watchers) != NULL) {
		a->watchers = w->next;
		watcher_free(w);
	}
	pthread_mutex_destroy(&a->lock);
	free(a);
}
