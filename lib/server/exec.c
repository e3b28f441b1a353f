/* SPDX-License-Identifier: MIT */

/*
 * exec.c: operations and the execution manager: the operation's states
 * and transitions, ExecutePlan, ReattachExecute, ReleaseExecute and
 * Interrupt, session close, maintenance, and the manager's life.  The
 * rest is in the other exec_*.c files (see exec_int.h).
 */

#include "server/exec_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "server/exec_log.h"
#include "server/session.h"

#include "core/banned.h"

/* Recently completed operation ids remembered by default. */
#define COMPLETED_MAX 10000

static int64_t
default_clock(void *arg)
{
	(void)arg;
	return sc_mono_ms();
}

const char *
sc_exec_state_name(enum sc_exec_state st)
{
	switch (st) {
	case SC_EXEC_PENDING:
		return "PENDING";
	case SC_EXEC_RUNNING:
		return "RUNNING";
	case SC_EXEC_FINISHED:
		return "FINISHED";
	case SC_EXEC_FAILED:
		return "FAILED";
	case SC_EXEC_CANCELED:
		return "CANCELED";
	case SC_EXEC_CLOSED:
		return "CLOSED";
	}
	return "?";
}

bool
sc_exec_state_legal(enum sc_exec_state from, enum sc_exec_state to)
{
	switch (from) {
	case SC_EXEC_PENDING:
		return to == SC_EXEC_RUNNING || to == SC_EXEC_CANCELED;
	case SC_EXEC_RUNNING:
		return to == SC_EXEC_FINISHED || to == SC_EXEC_FAILED ||
		    to == SC_EXEC_CANCELED;
	case SC_EXEC_FINISHED:
	case SC_EXEC_FAILED:
	case SC_EXEC_CANCELED:
		return to == SC_EXEC_CLOSED;
	case SC_EXEC_CLOSED:
		return false;
	}
	return false;
}

void
sc_exec_set_state(struct sc_exec_op *op, enum sc_exec_state to)
{
	if (!sc_exec_state_legal(op->state, to))
		SC_BUG("operation %s: illegal transition %s -> %s", op->id,
		    sc_exec_state_name(op->state), sc_exec_state_name(to));
	op->state = to;
}

static int
handle_error(struct sc_error *err, const char *sub, const char *handle,
    const char *text)
{
	char cls[64];

	snprintf(cls, sizeof(cls), "INVALID_HANDLE.%s", sub);
	return sc_srv_error(err, cls, "HY000", "The handle `%s` is invalid. %s",
	    handle, text);
}

int
sc_exec_canceled_error(struct sc_error *err)
{
	return sc_srv_error(err, "OPERATION_CANCELED", "HY008",
	    "Operation has been canceled.");
}

static int
not_reattachable_error(struct sc_error *err)
{
	return sc_srv_error(err, "INVALID_CURSOR.NOT_REATTACHABLE", "HY109",
	    "The cursor is invalid. The cursor is not reattachable.");
}

/* A plain INTERNAL error without an error class (a Java exception). */
int
sc_exec_internal_error(struct sc_error *err, const char *msg)
{
	sc_error_set(err, SC_ST_FAILED, "%s", msg);
	if (err != NULL)
		err->rpc_code = SC_GRPC_INTERNAL;
	return -1;
}

/* -------------------------------------------------- op transitions */

/* PENDING or RUNNING -> CANCELED (op locked); true if it moved. */
static bool
cancel_locked(struct sc_exec_op *op)
{
	if (op->state != SC_EXEC_PENDING && op->state != SC_EXEC_RUNNING)
		return false;
	atomic_store(&op->cancel, 1);
	sc_exec_set_state(op, SC_EXEC_CANCELED);
	sc_exec_canceled_error(&op->error);
	op->has_error = true;
	sc_execbuf_finish(op->buf);
	pthread_cond_broadcast(&op->cond);
	sc_exec_room_wake(op->m, true);
	sc_exec_sched_cancel(op->m, op);
	op->finished_ms = sc_realtime_ms();
	atomic_fetch_add(&op->m->canceled, 1);
	sc_info("operation %s canceled", op->id);
	sc_exec_event(op, SC_EXEC_EV_CANCELED, sc_exec_now(op->m));
	return true;
}

/*
 * Remove op from the manager (manager and op locked): tombstone or
 * remember it first, cancel it if it still runs, drop its responses
 * and disconnect its sender.  The registry's reference goes to a.
 */
static void
close_locked(struct sc_execmgr *m, struct sc_exec_op *op, enum close_how how,
    int64_t now, struct acts *a, const char *why)
{
	struct kent *t;

	if (!op->registered)
		return;
	if (how == CLOSE_ABANDONED && m->conf.abandoned_tombstones > 0) {
		t = sc_exec_remember(&m->tombs, &op->kent, now,
		    (size_t)m->conf.abandoned_tombstones);
		if (t != NULL)
			t->why = why;
	} else if (how == CLOSE_COMPLETED)
		sc_exec_remember(&m->done, &op->kent, now, m->completed_max);
	ktab_remove(&m->ops, &op->kent);
	op->registered = false;
	sc_exec_log_end(op, how);
	cancel_locked(op);
	if (how == CLOSE_ABANDONED)
		sc_exec_event(op, SC_EXEC_EV_ABANDONED, now);
	sc_exec_set_state(op, SC_EXEC_CLOSED);
	sc_execbuf_release_all(op->buf);
	sc_exec_room_wake(m, true);
	if (op->sender != NULL) {
		op->sender->interrupted = true;
		sc_exec_pump(op, op->sender, now, a);
	}
	sc_exec_event(op, SC_EXEC_EV_REMOVED, now);
	pthread_cond_broadcast(&op->cond);
	sc_exec_acts_unref_later(a, op);
}

/* A non-reattachable operation whose stream ended goes away. */
void
sc_exec_remove_op(struct sc_execmgr *m, struct sc_exec_op *op)
{
	struct acts a;

	sc_exec_acts_init(&a);
	pthread_mutex_lock(&m->lock);
	pthread_mutex_lock(&op->lock);
	if (op->registered) {
		close_locked(m, op, CLOSE_COMPLETED, sc_exec_now(m), &a, NULL);
		sc_info("operation %s removed (not reattachable, stream "
			"ended)",
		    op->id);
	}
	pthread_mutex_unlock(&op->lock);
	pthread_mutex_unlock(&m->lock);
	sc_exec_acts_run(m, &a);
}

/* ---------------------------------------------------- the handlers */

static struct sc_exec_op *
op_new(struct sc_execmgr *m, struct sc_session *s, const char *id,
    bool reattachable)
{
	struct sc_exec_op *op;

	op = sc_xcalloc(1, sizeof(*op));
	atomic_init(&op->refs, 1);
	op->m = m;
	memcpy(op->id, id, SC_UUID_STRLEN);
	sc_session_ref(s);
	op->sess = s;
	op->reattachable = reattachable;
	op->created_ms = sc_realtime_ms();
	op->attach_change_ms = op->created_ms;
	op->kent.key =
	    sc_exec_key_make(s->user_id, s->session_id, id, &op->kent.klen);
	op->kent.val = op;
	pthread_mutex_init(&op->lock, NULL);
	pthread_cond_init(&op->cond, NULL);
	pthread_cond_init(&op->slot_cv, NULL);
	atomic_init(&op->cancel, 0);
	op->state = SC_EXEC_PENDING;
	op->buf = sc_execbuf_new(reattachable ? m->conf.retry_buffer_size : 0);
	sc_execbuf_set_total(op->buf, &m->buffered);
	op->detached_since = -1;
	return op;
}

static bool
wants_reattach(const Spark__Connect__ExecutePlanRequest *req)
{
	size_t i;
	const Spark__Connect__ExecutePlanRequest__RequestOption *o;

	for (i = 0; i < req->n_request_options; i++) {
		o = req->request_options[i];
		if (o != NULL &&
		    o->request_option_case ==
			SPARK__CONNECT__EXECUTE_PLAN_REQUEST__REQUEST_OPTION__REQUEST_OPTION_REATTACH_OPTIONS &&
		    o->reattach_options != NULL &&
		    o->reattach_options->reattachable)
			return true;
	}
	return false;
}

static int
check_tags(const Spark__Connect__ExecutePlanRequest *req, struct sc_error *err)
{
	size_t i;

	for (i = 0; i < req->n_tags; i++) {
		if (req->tags[i] == NULL || req->tags[i][0] == '\0')
			return sc_exec_internal_error(err,
			    "Spark Connect tag cannot be an empty string.");
		if (strchr(req->tags[i], ',') != NULL)
			return sc_exec_internal_error(err,
			    "Spark job tag cannot contain ','.");
	}
	return 0;
}

/*
 * Whether plan runs in constant time with a tiny result, so that the
 * RPC thread may run it itself instead of handing it to a runner (a
 * thread hop each way, most of a short query's latency): a SQL root
 * relation of at most 128 bytes, a SELECT without parameters, FROM,
 * WITH or parentheses (no table, no function call, no subquery).
 */
static bool
trivial_plan(const Spark__Connect__Plan *p)
{
	const Spark__Connect__SQL *q;
	const char *t;
	size_t i, n;
	char low[129];

	if (p == NULL ||
	    p->op_type_case != SPARK__CONNECT__PLAN__OP_TYPE_ROOT ||
	    p->root == NULL ||
	    p->root->rel_type_case != SPARK__CONNECT__RELATION__REL_TYPE_SQL ||
	    (q = p->root->sql) == NULL || q->query == NULL || q->n_args > 0 ||
	    q->n_pos_args > 0 || q->n_named_arguments > 0 ||
	    q->n_pos_arguments > 0)
		return false;
	t = q->query;
	if ((n = strlen(t)) > sizeof(low) - 1)
		return false;
	for (i = 0; i < n; i++) {
		if (t[i] == '(' || t[i] == ';' || (unsigned char)t[i] >= 0x80)
			return false;
		low[i] = (char)(t[i] >= 'A' && t[i] <= 'Z' ? t[i] + 32 : t[i]);
	}
	low[n] = '\0';
	t = low + strspn(low, " \t\r\n");
	return strncmp(t, "select", 6) == 0 && strstr(low, "from") == NULL &&
	    strstr(low, "with") == NULL;
}

static void
unavailable_status(struct act *x)
{
	x->kind = ACT_STATUS;
	x->code = SC_GRPC_UNAVAILABLE;
	x->msg = "sc-serve is shutting down";
}

void
sc_exec_execute(struct sc_execmgr *m, struct sc_session *s,
    struct sc_rpc_call *call, const Spark__Connect__ExecutePlanRequest *req)
{
	struct sc_exec_op *op;
	struct sender *snd;
	struct sc_error err;
	struct kent *e;
	struct acts a;
	struct act *x;
	char id[SC_UUID_STRLEN];
	bool reattachable, trivial, inl = false, began;
	int64_t now;
	size_t i;
	int rc;

	sc_error_init(&err);
	if (req->_operation_id_case ==
	    SPARK__CONNECT__EXECUTE_PLAN_REQUEST___OPERATION_ID_OPERATION_ID) {
		if (!sc_uuid_valid(req->operation_id)) {
			handle_error(&err, "FORMAT",
			    req->operation_id != NULL ? req->operation_id : "",
			    "Handle must be an UUID string of the format "
			    "'00112233-4455-6677-8899-aabbccddeeff'");
			m->tr.finish_error(call, s, &err);
			return;
		}
		memcpy(id, req->operation_id, SC_UUID_STRLEN);
		sc_uuid_lower(id);
	} else if (sc_uuid_v4(id, &err) == -1) {
		m->tr.finish_error(call, s, &err);
		return;
	}
	if (check_tags(req, &err) == -1) {
		m->tr.finish_error(call, s, &err);
		return;
	}
	reattachable = m->conf.reattachable_enabled && wants_reattach(req);
	op = op_new(m, s, id, reattachable);
	if (req->n_tags > 0) {
		op->tags = sc_xcalloc(req->n_tags, sizeof(*op->tags));
		for (i = 0; i < req->n_tags; i++)
			op->tags[i] = sc_xstrdup(req->tags[i]);
		op->ntags = req->n_tags;
	}
	if (req->plan != NULL)
		op->plan = sc_proto_pack_alloc(&req->plan->base, &op->planlen);
	sc_exec_plan_summary(req->plan, op->statement, sizeof(op->statement));
	sc_exec_log_digest(req->plan, op->plan, op->planlen, op->digest);
	snprintf(op->peer, sizeof(op->peer), "%s",
	    m->tr.peer != NULL ? m->tr.peer(call) : "unknown");
	trivial = trivial_plan(req->plan);

	snd = sc_exec_sender_new(op, call);
	sc_exec_sender_ref(snd);
	m->tr.on_close(call, sc_exec_close_cb, snd);

	sc_exec_acts_init(&a);
	rc = 0;
	if (sc_session_is_closed(s))
		rc = handle_error(&err, "SESSION_CLOSED", s->session_id,
		    "Session was closed.");
	pthread_mutex_lock(&m->lock);
	now = sc_exec_now(m);
	if (m->stopping)
		rc = -1;
	else if (rc == -1)
		;
	else if (ktab_find(&m->ops, op->kent.key, op->kent.klen) != NULL)
		rc = handle_error(&err, "OPERATION_ALREADY_EXISTS", id,
		    "Operation already exists.");
	else if (ktab_find(&m->tombs, op->kent.key, op->kent.klen) != NULL)
		rc = handle_error(&err, "OPERATION_ABANDONED", id,
		    "Operation was considered abandoned because of "
		    "inactivity and removed.");
	else if ((e = ktab_find(&m->done, op->kent.key, op->kent.klen)) !=
	    NULL) {
		if (now - e->t < m->conf.inactive_op_expiry_ms)
			rc = handle_error(&err, "OPERATION_ALREADY_EXISTS", id,
			    "Operation already exists.");
		else {
			ktab_remove(&m->done, e);
			free(e->key);
			free(e);
		}
	}
	if (rc == 0) {
		sc_exec_op_ref(op); /* the registry's */
		op->registered = true;
		ktab_insert(&m->ops, &op->kent);
		pthread_mutex_lock(&op->lock);
		sc_exec_sender_ref(snd); /* op->sender */
		op->sender = snd;
		sc_exec_event(op, SC_EXEC_EV_CREATED, now);
		pthread_mutex_unlock(&op->lock);
		m->started++;
		sc_exec_log_start(op);
		/* Queued once its sender is set: it may run at once. */
		began = false;
		if (!trivial || !(inl = sc_exec_sched_take(m, op, now)))
			began = sc_exec_sched_add(m, op, now);
		/* A wake per operation showed in the per-call cost. */
		if (began || snd->deadline < m->timer_at)
			pthread_cond_signal(&m->timer_cv);
	} else {
		pthread_mutex_lock(&op->lock);
		snd->done = true;
		x = sc_exec_acts_add(&a, snd, ACT_ERROR);
		if (m->stopping)
			unavailable_status(x);
		else
			x->err = err;
		pthread_mutex_unlock(&op->lock);
	}
	pthread_mutex_unlock(&m->lock);

	/* Closed meanwhile: sc_exec_session_closed() may have missed it. */
	if (rc == 0 && sc_session_is_closed(s)) {
		pthread_mutex_lock(&m->lock);
		pthread_mutex_lock(&op->lock);
		if (op->sender == snd) {
			x = sc_exec_end_sender(op, snd, now, ACT_ERROR, &a,
			    "session closed");
			x->remove = false;
			handle_error(&x->err, "SESSION_CLOSED", s->session_id,
			    "Session was closed.");
		}
		close_locked(m, op, CLOSE_FORGET, now, &a, NULL);
		pthread_mutex_unlock(&op->lock);
		pthread_mutex_unlock(&m->lock);
	}
	sc_exec_acts_run(m, &a);
	if (inl)
		sc_exec_sched_run_inline(m, op);
	sc_exec_sender_unref(snd);
	sc_exec_op_unref(op);
}

/* Find the registered op for key (manager locked); err when there is none. */
static struct sc_exec_op *
find_op(struct sc_execmgr *m, const char *key, size_t klen, const char *id,
    struct sc_error *err)
{
	struct kent *e;

	if ((e = ktab_find(&m->ops, key, klen)) != NULL)
		return e->val;
	if (ktab_find(&m->tombs, key, klen) != NULL)
		handle_error(err, "OPERATION_ABANDONED", id,
		    "Operation was considered abandoned because of "
		    "inactivity and removed.");
	else
		handle_error(err, "OPERATION_NOT_FOUND", id,
		    "Operation not found.");
	return NULL;
}

void
sc_exec_reattach(struct sc_execmgr *m, struct sc_session *s,
    struct sc_rpc_call *call, const Spark__Connect__ReattachExecuteRequest *req)
{
	struct sc_exec_op *op;
	struct sender *snd, *old;
	struct sc_error err;
	struct acts a;
	struct act *x;
	char *key;
	size_t klen;
	int64_t now, index, start;
	const char *id;
	int rc;

	id = req->operation_id != NULL ? req->operation_id : "";
	sc_error_init(&err);
	key = sc_exec_key_make(s->user_id, s->session_id, id, &klen);
	pthread_mutex_lock(&m->lock);
	op = find_op(m, key, klen, id, &err);
	if (op != NULL) {
		if (!op->reattachable) {
			not_reattachable_error(&err);
			op = NULL;
		} else
			sc_exec_op_ref(op);
	}
	pthread_mutex_unlock(&m->lock);
	if (op == NULL) {
		free(key);
		m->tr.finish_error(call, s, &err);
		return;
	}

	snd = sc_exec_sender_new(op, call);
	sc_exec_sender_ref(snd);
	m->tr.on_close(call, sc_exec_close_cb, snd);

	sc_exec_acts_init(&a);
	rc = 0;
	pthread_mutex_lock(&m->lock);
	pthread_mutex_lock(&op->lock);
	now = sc_exec_now(m);
	start = 1;
	if (m->stopping) {
		rc = -1;
	} else if (!op->registered) {
		rc = -1;
		find_op(m, key, klen, id, &err);
	} else if (req->_last_response_id_case ==
	    SPARK__CONNECT__REATTACH_EXECUTE_REQUEST___LAST_RESPONSE_ID_LAST_RESPONSE_ID) {
		rc = sc_execbuf_lookup(op->buf, req->last_response_id, &index,
		    &err);
		start = index + 1;
	}
	if (rc == 0) {
		/* One sender per operation: the old one is disconnected. */
		if ((old = op->sender) != NULL) {
			old->interrupted = true;
			sc_exec_pump(op, old, now, &a);
		}
		if (sc_execbuf_unavailable(op->buf, start, &err))
			rc = -1;
	}
	if (rc == 0) {
		snd->start = snd->next = start;
		sc_exec_sender_ref(snd);
		op->sender = snd;
		op->detached_since = -1;
		op->attach_change_ms = sc_realtime_ms();
		op->reattaches++;
		atomic_fetch_add(&m->reattached, 1);
		sc_exec_event(op, SC_EXEC_EV_ATTACHED, now);
		sc_info("operation %s attached: reattach %lld from index %lld",
		    op->id, (long long)op->reattaches, (long long)start);
		sc_exec_pump(op, snd, now, &a);
		if (snd->deadline < m->timer_at)
			pthread_cond_signal(&m->timer_cv);
	} else {
		snd->done = true;
		x = sc_exec_acts_add(&a, snd, ACT_ERROR);
		if (m->stopping)
			unavailable_status(x);
		else
			x->err = err;
	}
	pthread_mutex_unlock(&op->lock);
	pthread_mutex_unlock(&m->lock);
	free(key);
	sc_exec_acts_run(m, &a);
	sc_exec_sender_unref(snd);
	sc_exec_op_unref(op);
}

int
sc_exec_release(struct sc_execmgr *m, struct sc_session *s,
    const Spark__Connect__ReleaseExecuteRequest *req, bool *found,
    struct sc_error *err)
{
	struct sc_exec_op *op;
	struct kent *e;
	struct acts a;
	char *key;
	size_t klen;
	const char *id;
	int rc = 0;

	id = req->operation_id != NULL ? req->operation_id : "";
	key = sc_exec_key_make(s->user_id, s->session_id, id, &klen);
	sc_exec_acts_init(&a);
	pthread_mutex_lock(&m->lock);
	e = ktab_find(&m->ops, key, klen);
	free(key);
	if (e == NULL) {
		pthread_mutex_unlock(&m->lock);
		*found = false;
		return 0;
	}
	op = e->val;
	pthread_mutex_lock(&op->lock);
	if (!op->reattachable)
		rc = not_reattachable_error(err);
	else if (req->release_case ==
	    SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_RELEASE_ALL) {
		sc_info("operation %s released (%s)", op->id,
		    sc_exec_state_name(op->state));
		sc_exec_event(op, SC_EXEC_EV_RELEASED, sc_exec_now(m));
		close_locked(m, op, CLOSE_COMPLETED, sc_exec_now(m), &a, NULL);
	} else if (req->release_case ==
		SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_RELEASE_UNTIL &&
	    req->release_until != NULL) {
		rc = sc_execbuf_release_until(op->buf,
		    req->release_until->response_id, err);
		if (rc == 0 && op->waiters > 0)
			pthread_cond_broadcast(&op->cond);
		if (rc == 0)
			sc_exec_room_wake(m, false);
		sc_debug("operation %s released until %s", op->id,
		    req->release_until->response_id);
	} else
		rc =
		    sc_exec_internal_error(err, "Unknown ReleaseExecute type!");
	pthread_mutex_unlock(&op->lock);
	pthread_mutex_unlock(&m->lock);
	sc_exec_acts_run(m, &a);
	if (rc == 0)
		*found = true;
	return rc;
}

static bool
same_session(const struct sc_exec_op *op, const struct sc_session *s)
{
	return strcmp(op->sess->user_id, s->user_id) == 0 &&
	    strcmp(op->sess->session_id, s->session_id) == 0;
}

static bool
has_tag(const struct sc_exec_op *op, const char *tag)
{
	size_t i;

	for (i = 0; i < op->ntags; i++)
		if (strcmp(op->tags[i], tag) == 0)
			return true;
	return false;
}

int
sc_exec_interrupt(struct sc_execmgr *m, struct sc_session *s, int type,
    const char *arg, char ***ids, size_t *nids, struct sc_error *err)
{
	struct sc_exec_op *op;
	struct kent *e;
	struct acts a;
	char **v = NULL;
	size_t n = 0;
	bool match;

	if (type == 2 && (arg == NULL || arg[0] == '\0'))
		return sc_srv_error(err,
		    "INVALID_PARAMETER_VALUE.INTERRUPT_TYPE_TAG_REQUIRES_TAG",
		    "22023",
		    "The value of parameter(s) `operation_tag` in "
		    "`interrupt` is invalid. INTERRUPT_TYPE_TAG requested, but "
		    "no operation_tag provided.");
	if (type == 3 && (arg == NULL || arg[0] == '\0'))
		return sc_srv_error(err,
		    "INVALID_PARAMETER_VALUE.INTERRUPT_TYPE_OPERATION_ID_REQUIRES_ID",
		    "22023",
		    "The value of parameter(s) `operation_id` in "
		    "`interrupt` is invalid. INTERRUPT_TYPE_OPERATION_ID "
		    "requested, but no operation_id provided.");
	if (type < 1 || type > 3)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.INTERRUPT_TYPE",
		    "0A000",
		    "The feature is not supported: Unsupported "
		    "interrupt type: %d.",
		    type);
	sc_exec_acts_init(&a);
	pthread_mutex_lock(&m->lock);
	for (e = ktab_oldest(&m->ops); e != NULL; e = knext(&m->ops, e)) {
		op = e->val;
		if (!same_session(op, s))
			continue;
		match = type == 1 || (type == 2 && has_tag(op, arg)) ||
		    (type == 3 && strcmp(op->id, arg) == 0);
		if (!match)
			continue;
		pthread_mutex_lock(&op->lock);
		if (cancel_locked(op)) {
			v = sc_xreallocarray(v, n + 1, sizeof(*v));
			v[n++] = sc_xstrdup(op->id);
			if (op->sender != NULL)
				sc_exec_pump(op, op->sender, sc_exec_now(m),
				    &a);
		}
		pthread_mutex_unlock(&op->lock);
	}
	pthread_mutex_unlock(&m->lock);
	sc_exec_acts_run(m, &a);
	*ids = v;
	*nids = n;
	return 0;
}

void
sc_exec_session_closed(struct sc_execmgr *m, struct sc_session *s)
{
	struct sc_exec_op *op;
	struct kent *e, *next;
	struct acts a;
	int64_t now;

	sc_exec_acts_init(&a);
	pthread_mutex_lock(&m->lock);
	now = sc_exec_now(m);
	for (e = ktab_oldest(&m->ops); e != NULL; e = next) {
		next = knext(&m->ops, e);
		op = e->val;
		if (!same_session(op, s))
			continue;
		pthread_mutex_lock(&op->lock);
		sc_info("operation %s abandoned: session closed", op->id);
		close_locked(m, op, CLOSE_ABANDONED, now, &a, "session closed");
		m->abandoned++;
		pthread_mutex_unlock(&op->lock);
	}
	pthread_mutex_unlock(&m->lock);
	sc_exec_acts_run(m, &a);
}

void
sc_exec_session_closed_hook(struct sc_session *s, void *execmgr)
{
	sc_exec_session_closed(execmgr, s);
}

size_t
sc_execmgr_maintain(struct sc_execmgr *m, int64_t now)
{
	struct sc_exec_op *op;
	struct kent *e, *next;
	struct acts a;
	size_t n = 0;
	int64_t idle;

	sc_exec_acts_init(&a);
	pthread_mutex_lock(&m->lock);
	for (e = ktab_oldest(&m->ops); e != NULL; e = next) {
		next = knext(&m->ops, e);
		op = e->val;
		pthread_mutex_lock(&op->lock);
		if (op->sender == NULL && op->detached_since >= 0 &&
		    (idle = now - op->detached_since) >=
			m->conf.detached_timeout_ms) {
			sc_info("operation %s abandoned: detached for %lld ms",
			    op->id, (long long)idle);
			close_locked(m, op, CLOSE_ABANDONED, now, &a,
			    "detached too long");
			m->abandoned++;
			n++;
		}
		pthread_mutex_unlock(&op->lock);
	}
	while ((e = ktab_oldest(&m->done)) != NULL &&
	    now - e->t >= m->conf.inactive_op_expiry_ms) {
		ktab_remove(&m->done, e);
		free(e->key);
		free(e);
	}
	pthread_mutex_unlock(&m->lock);
	sc_exec_acts_run(m, &a);
	return n;
}

size_t
sc_execmgr_expire_streams(struct sc_execmgr *m, int64_t now)
{
	struct sc_exec_op *op;
	struct kent *e;
	struct acts a;
	size_t n = 0;

	sc_exec_acts_init(&a);
	pthread_mutex_lock(&m->lock);
	for (e = ktab_oldest(&m->ops); e != NULL; e = knext(&m->ops, e)) {
		op = e->val;
		pthread_mutex_lock(&op->lock);
		if (op->sender != NULL && now >= op->sender->deadline) {
			sc_exec_pump(op, op->sender, now, &a);
			n++;
		}
		pthread_mutex_unlock(&op->lock);
	}
	pthread_mutex_unlock(&m->lock);
	sc_exec_acts_run(m, &a);
	return n;
}

/* ----------------------------------------------------- the manager */

static int
tr_send(struct sc_rpc_call *call, const void *msg, size_t len,
    sc_rpc_sent_fn *sent, void *arg)
{
	return sc_rpc_call_send(call, msg, len, sent, arg);
}

static int
tr_finish(struct sc_rpc_call *call, int code, const char *msg)
{
	return sc_rpc_call_finish(call, code, msg, NULL, 0);
}

static const struct sc_exec_transport rpc_transport = {
	.send = tr_send,
	.send_ref = sc_rpc_call_send_ref,
	.reply_ref = sc_rpc_call_reply_ref,
	.finish = tr_finish,
	.finish_error = sc_srv_finish_error,
	.on_close = sc_rpc_call_on_close,
	.ref = sc_rpc_call_ref,
	.unref = sc_rpc_call_unref,
	.peer = sc_rpc_call_peer,
};

struct sc_execmgr *
sc_execmgr_new_opts(const struct sc_server_conf *conf,
    const struct sc_execmgr_opts *o, struct sc_error *err)
{
	struct sc_execmgr *m;

	m = sc_xcalloc(1, sizeof(*m));
	m->conf = *conf;
	m->clock = o != NULL && o->clock != NULL ? o->clock : default_clock;
	m->clock_arg = o != NULL ? o->clock_arg : NULL;
	m->run = o != NULL && o->run != NULL ? o->run : sc_exec_run_engine;
	m->run_arg = o != NULL ? o->run_arg : NULL;
	m->tr = o != NULL && o->transport != NULL ? *o->transport
						  : rpc_transport;
	m->completed_max = o != NULL && o->completed_max > 0 ? o->completed_max
							     : COMPLETED_MAX;
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->slock, NULL);
	pthread_mutex_init(&m->room_mu, NULL);
	pthread_cond_init(&m->room_cv, NULL);
	atomic_init(&m->buffered, 0);
	atomic_init(&m->room_waiters, 0);
	atomic_init(&m->stop_flag, false);
	sc_mono_cond_init(&m->timer_cv);
	m->timer_at = INT64_MIN;
	sc_mono_cond_init(&m->work_cv);
	pthread_cond_init(&m->threads_cv, NULL);
	sc_htab_init(&m->ops);
	sc_htab_init(&m->tombs);
	sc_htab_init(&m->done);
	sc_htab_init(&m->users);
	sc_htab_init(&m->squeues);
	/* Rows of large values: a quarter of SQLite's heap limit. */
	sc_execmem_budget_set(
	    m->conf.sql_heap_limit > 0 ? m->conf.sql_heap_limit / 4 : -1);
	m->workers = m->conf.workers > 0 ? m->conf.workers : 1;
	m->max_threads = m->conf.max_threads > m->workers ? m->conf.max_threads
							  : m->workers;
	m->user_max = m->conf.max_running_per_user > 0
	    ? m->conf.max_running_per_user
	    : m->max_threads;
	/*
	 * Paused queries keep their thread: one user's may take half of
	 * them (never fewer than its running cap), the rest stay for others.
	 */
	m->user_held_max = m->max_threads / 2 > m->user_max ? m->max_threads / 2
							    : m->user_max;
	m->stall_since = -1;
	m->spawn_retry_at = INT64_MIN;
	if (sc_exec_sched_start(m, o == NULL || !o->no_timer, err) == -1) {
		sc_execmgr_free(m);
		return NULL;
	}
	return m;
}

struct sc_execmgr *
sc_execmgr_new(const struct sc_server_conf *conf, struct sc_error *err)
{
	return sc_execmgr_new_opts(conf, NULL, err);
}

void
sc_execmgr_shutdown(struct sc_execmgr *m)
{
	struct sc_exec_op *op;
	struct kent *e, *next;
	struct acts a;
	struct act *x;
	int64_t now;

	sc_exec_acts_init(&a);
	pthread_mutex_lock(&m->lock);
	if (m->stopping) {
		pthread_mutex_unlock(&m->lock);
		return;
	}
	pthread_mutex_lock(&m->slock);
	m->stopping = true;
	atomic_store(&m->stop_flag, true);
	pthread_mutex_unlock(&m->slock);
	now = sc_exec_now(m);
	for (e = ktab_oldest(&m->ops); e != NULL; e = knext(&m->ops, e)) {
		op = e->val;
		pthread_mutex_lock(&op->lock);
		cancel_locked(op);
		if (op->sender != NULL) {
			x = sc_exec_end_sender(op, op->sender, now, ACT_STATUS,
			    &a, "server shutting down");
			x->remove = false;
			unavailable_status(x);
		}
		pthread_mutex_unlock(&op->lock);
	}
	pthread_cond_broadcast(&m->timer_cv);
	pthread_mutex_unlock(&m->lock);
	sc_exec_acts_run(m, &a);

	/* Canceled operations end; then every thread exits. */
	sc_exec_sched_stop(m);

	pthread_mutex_lock(&m->lock);
	for (e = ktab_oldest(&m->ops); e != NULL; e = next) {
		next = knext(&m->ops, e);
		op = e->val;
		pthread_mutex_lock(&op->lock);
		close_locked(m, op, CLOSE_FORGET, now, &a, NULL);
		pthread_mutex_unlock(&op->lock);
	}
	if (m->nring != 0 || m->nready != 0 || m->nqueued != 0)
		SC_BUG("operations still queued after shutdown");
	m->stopped = true;
	pthread_mutex_unlock(&m->lock);
	sc_exec_acts_run(m, &a);
}

void
sc_execmgr_free(struct sc_execmgr *m)
{
	if (m == NULL)
		return;
	sc_execmgr_shutdown(m);
	sc_exec_ktab_free_entries(&m->tombs);
	sc_exec_ktab_free_entries(&m->done);
	sc_htab_release(&m->ops);
	sc_htab_release(&m->users);
	sc_htab_release(&m->squeues);
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->slock);
	pthread_mutex_destroy(&m->room_mu);
	pthread_cond_destroy(&m->room_cv);
	pthread_cond_destroy(&m->work_cv);
	pthread_cond_destroy(&m->timer_cv);
	pthread_cond_destroy(&m->threads_cv);
	free(m);
	sc_execmem_pool_drain();
}
