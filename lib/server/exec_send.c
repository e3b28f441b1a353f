/* SPDX-License-Identifier: MIT */

/*
 * exec_send.c: references and deferred actions, the senders of an
 * operation's responses (sc_exec_pump, stream rotation at the stream limits,
 * flow control with the transport's sent() callback), and what runners
 * call: sc_exec_emit() and its zero-copy Arrow form, which wait for room
 * below conf.high_water_bytes.
 */

#include "server/exec_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "server/session.h"

#include "core/banned.h"

/* Wake a waiting producer only once this much room is free again. */
#define LOW_WATER_GAP (1 << 20)

static void sent_cb(struct sc_rpc_call *call, bool ok, void *arg);

void
sc_exec_op_ref(struct sc_exec_op *op)
{
	atomic_fetch_add(&op->refs, 1);
}

/* Drop a reference; never with a lock of ours held. */
void
sc_exec_op_unref(struct sc_exec_op *op)
{
	size_t i;

	if (op == NULL || atomic_fetch_sub(&op->refs, 1) != 1)
		return;
	sc_execbuf_free(op->buf);
	for (i = 0; i < op->ntags; i++)
		free(op->tags[i]);
	free(op->tags);
	free(op->plan);
	free(op->kent.key);
	pthread_mutex_destroy(&op->lock);
	pthread_cond_destroy(&op->cond);
	pthread_cond_destroy(&op->slot_cv);
	sc_session_unref(op->sess);
	free(op);
}

void
sc_exec_op_unref_held(struct sc_exec_op *op)
{
	if (atomic_fetch_sub(&op->refs, 1) == 1)
		SC_BUG("last operation reference dropped under a lock");
}

void
sc_exec_sender_ref(struct sender *s)
{
	atomic_fetch_add(&s->refs, 1);
}

/* Drop a reference that is known not to be the last (locks may be held). */
static void
sender_unref_held(struct sender *s)
{
	if (atomic_fetch_sub(&s->refs, 1) == 1)
		SC_BUG("last sender reference dropped under a lock");
}

/* Drop a reference; never with a lock of ours held. */
void
sc_exec_sender_unref(struct sender *s)
{
	struct sc_exec_op *op;

	if (s == NULL || atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	op = s->op;
	op->m->tr.unref(s->call);
	free(s);
	sc_exec_op_unref(op);
}

void
sc_exec_acts_init(struct acts *a)
{
	memset(a, 0, sizeof(*a));
}

struct act *
sc_exec_acts_add(struct acts *a, struct sender *s, enum act_kind kind)
{
	struct act *x;

	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 4;
		a->v = sc_xreallocarray(a->v, a->cap, sizeof(*a->v));
	}
	x = &a->v[a->n++];
	memset(x, 0, sizeof(*x));
	sc_exec_sender_ref(s);
	x->s = s;
	x->kind = kind;
	return x;
}

void
sc_exec_acts_unref_later(struct acts *a, struct sc_exec_op *op)
{
	if (a->nunref == a->capunref) {
		a->capunref = a->capunref ? a->capunref * 2 : 4;
		a->unref =
		    sc_xreallocarray(a->unref, a->capunref, sizeof(*a->unref));
	}
	a->unref[a->nunref++] = op;
}

/*
 * Hand one decided response to the transport (no lock of ours held).
 * Starting a send may write to the socket in this thread: doing it
 * under the operation lock would keep the runner and the other senders
 * waiting for the system call.  At most one send per sender is decided
 * at a time (in_flight), so the order stays.
 */
static void
start_send(struct sc_execmgr *m, struct asend *d)
{
	struct sender *s = d->s;
	struct sc_exec_op *op = s->op;
	struct acts a;
	struct act *x;
	int rc;

	if (d->last) {
		/* The sender already ended: nothing waits for this one. */
		(void)m->tr.reply_ref(s->call, d->data, d->len,
		    sc_execmem_unref, d->mem);
		sc_exec_sender_unref(s);
		return;
	}
	if (m->tr.send_ref != NULL)
		rc = m->tr.send_ref(s->call, d->data, d->len, sc_execmem_unref,
		    d->mem, sent_cb, s);
	else {
		rc = m->tr.send(s->call, d->data, d->len, sent_cb, s);
		sc_execmem_unref(d->mem);
	}
	if (rc == 0)
		return;
	/* The call ended meanwhile: sent_cb() will not run. */
	sc_exec_acts_init(&a);
	pthread_mutex_lock(&op->lock);
	s->in_flight = false;
	if (!s->done) {
		x = sc_exec_end_sender(op, s, sc_exec_now(m), ACT_STATUS, &a,
		    "call ended");
		x->code = SC_GRPC_CANCELLED;
		x->msg = "call ended";
	}
	pthread_mutex_unlock(&op->lock);
	sc_exec_acts_run(m, &a);
	sc_exec_sender_unref(s);
}

/* Start sends, finish calls, then drop references; no lock of ours held. */
void
sc_exec_acts_run(struct sc_execmgr *m, struct acts *a)
{
	struct act *x;
	size_t i;

	for (i = 0; i < a->nsends; i++)
		start_send(m, &a->sends[i]);
	for (i = 0; i < a->n; i++) {
		x = &a->v[i];
		switch (x->kind) {
		case ACT_OK:
			m->tr.finish(x->s->call, SC_GRPC_OK, "");
			break;
		case ACT_ERROR:
			m->tr.finish_error(x->s->call, x->s->op->sess, &x->err);
			break;
		case ACT_STATUS:
			m->tr.finish(x->s->call, x->code, x->msg);
			break;
		case ACT_NONE:
			break;
		}
		if (x->remove)
			sc_exec_remove_op(m, x->s->op);
		sc_exec_sender_unref(x->s);
	}
	for (i = 0; i < a->nunref; i++)
		sc_exec_op_unref(a->unref[i]);
	free(a->v);
	free(a->unref);
	free(a->sends);
	sc_exec_acts_init(a);
}

/* ------------------------------------------------------- senders */

struct sender *
sc_exec_sender_new(struct sc_exec_op *op, struct sc_rpc_call *call)
{
	struct sc_execmgr *m = op->m;
	struct sender *s;

	s = sc_xcalloc(1, sizeof(*s));
	atomic_init(&s->refs, 1);
	sc_exec_op_ref(op);
	s->op = op;
	m->tr.ref(call);
	s->call = call;
	s->start = s->next = 1;
	s->deadline = NO_DEADLINE;
	if (op->reattachable) {
		if (m->conf.max_stream_duration_ms > 0)
			s->deadline =
			    sc_exec_now(m) + m->conf.max_stream_duration_ms;
		s->max_size =
		    m->conf.max_stream_size > 0 ? m->conf.max_stream_size : 0;
	}
	return s;
}

/*
 * Decide the end of sender s (op locked): detach it from op and queue
 * the finish.  Non-reattachable operations go with their stream.
 */
struct act *
sc_exec_end_sender(struct sc_exec_op *op, struct sender *s, int64_t now,
    enum act_kind kind, struct acts *a, const char *why)
{
	struct act *x;

	s->done = true;
	x = sc_exec_acts_add(a, s, kind);
	if (op->sender == s) {
		op->sender = NULL;
		op->detached_since = now;
		op->attach_change_ms = sc_realtime_ms();
		sender_unref_held(s);
		/*
		 * Every stream that ends with its last response does so, and
		 * the "finished" line said it: a line per call at info level
		 * was a share of the cost of a short query.
		 */
		if (strcmp(why, "complete") == 0)
			sc_debug(
			    "operation %s detached: %s (%lld bytes in this "
			    "stream)",
			    op->id, why, (long long)s->sent_bytes);
		else
			sc_info("operation %s detached: %s (%lld bytes in this "
				"stream)",
			    op->id, why, (long long)s->sent_bytes);
		sc_exec_event(op, SC_EXEC_EV_DETACHED, now);
	}
	if (!op->reattachable && op->registered)
		x->remove = true;
	return x;
}

/* Whether a stream limit ends s now (graceful end, client reattaches). */
static bool
limit_reached(const struct sender *s, int64_t now)
{
	return now >= s->deadline ||
	    (s->max_size > 0 && s->sent_bytes > s->max_size);
}

static void
rotate(struct sc_exec_op *op, struct sender *s, int64_t now, struct acts *a)
{
	op->rotations++;
	sc_exec_end_sender(op, s, now, ACT_OK, a,
	    now >= s->deadline ? "stream rotated at senderMaxStreamDuration"
			       : "stream rotated at senderMaxStreamSize");
}

static int
disconnected_error(struct sc_error *err)
{
	return sc_srv_error(err, "INVALID_CURSOR.DISCONNECTED", "HY109",
	    "The cursor is invalid. The cursor has been disconnected by the "
	    "server.");
}

/*
 * Move sender s on (op locked): end it, send the next response, or
 * wait.  At most one send is in flight; sent_cb() calls pump again.
 */
void
sc_exec_pump(struct sc_exec_op *op, struct sender *s, int64_t now,
    struct acts *a)
{
	struct sc_execmgr *m = op->m;
	struct sc_execbuf_stats st;
	struct sc_error e;
	const uint8_t *data;
	size_t len;
	int64_t rows, gap;
	struct act *x;
	int rc;

	if (s->done)
		return;
	if (s->interrupted) {
		x = sc_exec_end_sender(op, s, now, ACT_ERROR, a,
		    "disconnected");
		disconnected_error(&x->err);
		return;
	}
	if (s->in_flight) {
		if (now >= s->deadline)
			rotate(op, s, now, a);
		return;
	}
	sc_execbuf_stats(op->buf, &st);
	if (st.final >= 0 && s->next > st.final) {
		if (op->has_error) {
			x = sc_exec_end_sender(op, s, now, ACT_ERROR, a,
			    op->error.msg);
			x->err = op->error;
		} else
			sc_exec_end_sender(op, s, now, ACT_OK, a, "complete");
		return;
	}
	if (limit_reached(s, now)) {
		rotate(op, s, now, a);
		return;
	}
	rc = sc_execbuf_consume(op->buf, s->next, &data, &len, &rows, &e);
	if (rc == 0)
		return;
	if (rc != 1) {
		x = sc_exec_end_sender(op, s, now, ACT_ERROR, a,
		    "position evicted");
		if (rc == -1)
			x->err = e;
		else
			sc_exec_internal_error(&x->err,
			    "response stream ended early");
		return;
	}
	/*
	 * Wake a producer waiting for room only once LOW_WATER_GAP bytes
	 * (or half the high water) are free again, so that it produces in
	 * short runs instead of one response per wakeup; short enough for
	 * the allocator to reuse the blocks just freed.
	 */
	if (op->waiters > 0) {
		sc_execbuf_stats(op->buf, &st);
		gap = m->conf.high_water_bytes / 2;
		if (gap > LOW_WATER_GAP)
			gap = LOW_WATER_GAP;
		if (st.unconsumed <= m->conf.high_water_bytes - gap)
			pthread_cond_broadcast(&op->cond);
	}
	if (atomic_load(&m->room_waiters) > 0) {
		sc_execbuf_stats(op->buf, &st);
		sc_exec_room_wake(m, st.unconsumed == 0);
	}
	if (a->nsends == a->capsends) {
		a->capsends = a->capsends ? a->capsends * 2 : 2;
		a->sends =
		    sc_xreallocarray(a->sends, a->capsends, sizeof(*a->sends));
	}
	sc_exec_sender_ref(s); /* for sent_cb() */
	a->sends[a->nsends].s = s;
	a->sends[a->nsends].data = data;
	a->sends[a->nsends].len = len;
	a->sends[a->nsends].mem = sc_execbuf_ref(op->buf, s->next);
	/*
	 * The final response of a run that succeeded goes with the status:
	 * one batch and one write instead of a send, its completion, then
	 * the status.
	 */
	a->sends[a->nsends].last = m->tr.reply_ref != NULL &&
	    st.final == s->next && !op->has_error;
	a->nsends++;
	s->in_flight = !a->sends[a->nsends - 1].last;
	s->next++;
	s->sent_bytes += (int64_t)len;
	op->bytes_sent += (int64_t)len;
	op->rows_sent += rows;
	op->responses_sent++;
	atomic_fetch_add(&m->bytes_total, (int64_t)len);
	atomic_fetch_add(&m->rows_total, rows);
	sc_exec_event(op, SC_EXEC_EV_PROGRESS, now);
	if (!s->in_flight)
		sc_exec_end_sender(op, s, now, ACT_NONE, a, "complete");
}

void
sc_exec_room_wake(struct sc_execmgr *m, bool force)
{
	int64_t cap = m->conf.max_buffered_bytes, gap;

	if (cap < 0 || atomic_load(&m->room_waiters) == 0)
		return;
	if (!force) {
		/* As for one operation: wake them for a short run. */
		gap = cap / 2;
		if (gap > LOW_WATER_GAP)
			gap = LOW_WATER_GAP;
		if (atomic_load(&m->buffered) > cap - gap)
			return;
	}
	pthread_mutex_lock(&m->room_mu);
	pthread_cond_broadcast(&m->room_cv);
	pthread_mutex_unlock(&m->room_mu);
}

/*
 * Whether op's runner must wait for room under conf.max_buffered_bytes
 * (op locked): the total reached it and op has unconsumed bytes of its
 * own, so that its own reader, at least, will make room.  One with
 * none may always add a response: every operation makes progress.
 */
static bool
over_total(struct sc_exec_op *op, const struct sc_execbuf_stats *st)
{
	struct sc_execmgr *m = op->m;

	return m->conf.max_buffered_bytes >= 0 && st->unconsumed > 0 &&
	    atomic_load(&m->buffered) >= m->conf.max_buffered_bytes;
}

/*
 * Wait on room_cv for a change of the total (op locked, and locked
 * again on return).  room_mu is taken before op's lock is dropped: a
 * cancel (under op's lock) or a consumer (changing the total, then
 * reading room_waiters) wakes this wait, it cannot slip in before.
 */
static void
wait_total(struct sc_exec_op *op)
{
	struct sc_execmgr *m = op->m;
	struct sc_execbuf_stats st;

	pthread_mutex_lock(&m->room_mu);
	atomic_fetch_add(&m->room_waiters, 1);
	sc_execbuf_stats(op->buf, &st);
	if (over_total(op, &st)) {
		pthread_mutex_unlock(&op->lock);
		pthread_cond_wait(&m->room_cv, &m->room_mu);
		atomic_fetch_sub(&m->room_waiters, 1);
		pthread_mutex_unlock(&m->room_mu);
		pthread_mutex_lock(&op->lock);
		return;
	}
	atomic_fetch_sub(&m->room_waiters, 1);
	pthread_mutex_unlock(&m->room_mu);
}

static void
sent_cb(struct sc_rpc_call *call, bool ok, void *arg)
{
	struct sender *s = arg;
	struct sc_exec_op *op = s->op;
	struct sc_execmgr *m = op->m;
	struct acts a;
	struct act *x;
	int64_t now = sc_exec_now(m);

	(void)call;
	sc_exec_acts_init(&a);
	pthread_mutex_lock(&op->lock);
	s->in_flight = false;
	if (!ok) {
		if (!s->done) {
			x = sc_exec_end_sender(op, s, now, ACT_STATUS, &a,
			    "client went away");
			x->code = SC_GRPC_CANCELLED;
			x->msg = "call ended";
		}
	} else
		sc_exec_pump(op, s, now, &a);
	pthread_mutex_unlock(&op->lock);
	sc_exec_acts_run(m, &a);
	sc_exec_sender_unref(s);
}

void
sc_exec_close_cb(struct sc_rpc_call *call, bool cancelled, void *arg)
{
	struct sender *s = arg;
	struct sc_exec_op *op = s->op;
	struct sc_execmgr *m = op->m;
	struct acts a;
	struct act *x;

	(void)call;
	sc_exec_acts_init(&a);
	pthread_mutex_lock(&op->lock);
	if (!s->done) {
		x = sc_exec_end_sender(op, s, sc_exec_now(m), ACT_STATUS, &a,
		    cancelled ? "client cancelled the call" : "call closed");
		x->code = SC_GRPC_CANCELLED;
		x->msg = "call ended";
	}
	pthread_mutex_unlock(&op->lock);
	sc_exec_acts_run(m, &a);
	sc_exec_sender_unref(s);
}

/* --------------------------------------------------- runner helpers */

/* Build and pack a response with op's ids; returns the bytes. */
uint8_t *
sc_exec_pack_response(struct sc_exec_op *op,
    Spark__Connect__ExecutePlanResponse *r, char rid[SC_UUID_STRLEN],
    size_t *lenp, struct sc_error *err)
{
	char *o1, *o2, *o3, *o4;
	uint8_t *data;

	if (sc_uuid_v4(rid, err) == -1)
		return NULL;
	o1 = r->session_id;
	o2 = r->server_side_session_id;
	o3 = r->operation_id;
	o4 = r->response_id;
	r->session_id = op->sess->session_id;
	r->server_side_session_id = op->sess->server_side_id;
	r->operation_id = op->id;
	r->response_id = rid;
	data = sc_proto_pack_alloc(&r->base, lenp);
	r->session_id = o1;
	r->server_side_session_id = o2;
	r->operation_id = o3;
	r->response_id = o4;
	return data;
}

/*
 * Buffer response rid (the bytes data, len inside the malloc'ed mem,
 * ownership taken), waiting for room, and wake the sender.
 */
static int
emit_bytes(struct sc_exec_op *op, const char *rid, void *mem, size_t cap,
    uint8_t *data, size_t len, int64_t rows, struct sc_error *err)
{
	struct sc_execmgr *m = op->m;
	struct sc_execbuf_stats st;
	struct acts a;
	bool parked = false;

	sc_exec_acts_init(&a);
	pthread_mutex_lock(&op->lock);
	for (;;) {
		if (op->state != SC_EXEC_RUNNING)
			break;
		sc_execbuf_stats(op->buf, &st);
		/*
		 * A run on an RPC thread must not wait for its own reader
		 * (whose completions that thread delivers); only short runs
		 * with small results go there.
		 */
		if (op->inline_run)
			break;
		if (m->conf.high_water_bytes >= 0 &&
		    st.unconsumed > m->conf.high_water_bytes) {
			/* Waiting for the reader: the slot is for others. */
			if (!parked)
				parked = sc_exec_sched_park(m, op);
			op->waiters++;
			pthread_cond_wait(&op->cond, &op->lock);
			op->waiters--;
		} else if (over_total(op, &st)) {
			/* Waiting for the readers of all. */
			if (!parked)
				parked = sc_exec_sched_park(m, op);
			wait_total(op);
		} else
			break;
	}
	if (parked && op->state == SC_EXEC_RUNNING) {
		/* Room again: compute on only with a slot, in turn. */
		pthread_mutex_unlock(&op->lock);
		sc_exec_sched_resume(m, op);
		pthread_mutex_lock(&op->lock);
	}
	if (op->state != SC_EXEC_RUNNING) {
		pthread_mutex_unlock(&op->lock);
		sc_execmem_block_put(mem, cap);
		sc_execmem_give(op->charge_acct, op->charge);
		op->charge = 0;
		return sc_exec_canceled_error(err);
	}
	sc_execbuf_add_block(op->buf, rid, mem, cap, data, len, rows);
	if (op->charge > 0) {
		sc_execbuf_charge_last(op->buf, op->charge_acct, op->charge);
		op->charge = 0;
	}
	if (op->sender != NULL)
		sc_exec_pump(op, op->sender, sc_exec_now(m), &a);
	else
		sc_exec_event(op, SC_EXEC_EV_PROGRESS, sc_exec_now(m));
	pthread_mutex_unlock(&op->lock);
	sc_exec_acts_run(m, &a);
	return 0;
}

int
sc_exec_reserve(struct sc_exec_op *op, int64_t n, struct sc_execacct **acct,
    struct sc_error *err)
{
	struct sc_execmgr *m = op->m;
	const char *user = op->sess->user_id;
	struct sc_execacct *a;
	bool parked;

	if ((a = sc_execmem_take_now(user, n, op->inline_run)) != NULL) {
		*acct = a;
		return 0;
	}
	pthread_mutex_lock(&op->lock);
	if (op->state != SC_EXEC_RUNNING) {
		pthread_mutex_unlock(&op->lock);
		return sc_exec_canceled_error(err);
	}
	/* Its own sent responses must not keep it waiting. */
	if (sc_execbuf_drop_consumed(op->buf) > 0)
		sc_exec_room_wake(m, false);
	parked = sc_exec_sched_park(m, op);
	pthread_mutex_unlock(&op->lock);
	sc_debug("operation %s waits for %lld bytes of the value budget",
	    op->id, (long long)n);
	a = sc_execmem_take(user, n, &op->cancel);
	pthread_mutex_lock(&op->lock);
	if (parked && op->state == SC_EXEC_RUNNING) {
		pthread_mutex_unlock(&op->lock);
		sc_exec_sched_resume(m, op);
		pthread_mutex_lock(&op->lock);
	}
	if (op->state != SC_EXEC_RUNNING || a == NULL) {
		pthread_mutex_unlock(&op->lock);
		sc_execmem_give(a, n);
		return sc_exec_canceled_error(err);
	}
	pthread_mutex_unlock(&op->lock);
	*acct = a;
	return 0;
}

void
sc_exec_charge_next(struct sc_exec_op *op, struct sc_execacct *a, int64_t n)
{
	if (op->charge > 0 && op->charge_acct != a)
		SC_BUG("a response charged to two accounts");
	op->charge_acct = a;
	op->charge += n;
}

int
sc_exec_emit(struct sc_exec_op *op, Spark__Connect__ExecutePlanResponse *resp,
    struct sc_error *err)
{
	uint8_t *data;
	size_t len;
	int64_t rows = 0;
	char rid[SC_UUID_STRLEN];

	if ((data = sc_exec_pack_response(op, resp, rid, &len, err)) == NULL)
		return -1;
	if (resp->response_type_case ==
		SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH &&
	    resp->arrow_batch != NULL)
		rows = resp->arrow_batch->row_count;
	return emit_bytes(op, rid, data, 0, data, len, rows, err);
}

int
sc_exec_emit_arrow(struct sc_exec_op *op, uint8_t *mem, size_t ipclen,
    int64_t rows, int64_t start_offset, struct sc_error *err)
{
	return sc_exec_emit_arrow_block(op, mem, 0, ipclen, rows, start_offset,
	    err);
}

int
sc_exec_emit_arrow_block(struct sc_exec_op *op, uint8_t *mem, size_t cap,
    size_t ipclen, int64_t rows, int64_t start_offset, struct sc_error *err)
{
	Spark__Connect__ExecutePlanResponse resp =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
	Spark__Connect__ExecutePlanResponse__ArrowBatch ab =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH__INIT;
	char rid[SC_UUID_STRLEN];
	size_t n;
	int rc;

	if (sc_uuid_v4(rid, err) == -1) {
		sc_execmem_block_put(mem, cap);
		sc_execmem_give(op->charge_acct, op->charge);
		op->charge = 0;
		return -1;
	}
	n = sc_proto_arrow_envelope(mem, SC_EXEC_ARROW_HEADROOM,
	    op->sess->session_id, op->sess->server_side_id, op->id, rid, rows,
	    start_offset, ipclen);
	if (n > 0)
		return emit_bytes(op, rid, mem, cap,
		    mem + SC_EXEC_ARROW_HEADROOM - n, n + ipclen, rows, err);
	/* Ids too long for the headroom: pack a copy. */
	ab.row_count = rows;
	ab.data.data = mem + SC_EXEC_ARROW_HEADROOM;
	ab.data.len = ipclen;
	ab._start_offset_case =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH___START_OFFSET_START_OFFSET;
	ab.start_offset = start_offset;
	resp.response_type_case =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH;
	resp.arrow_batch = &ab;
	rc = sc_exec_emit(op, &resp, err);
	sc_execmem_block_put(mem, cap);
	return rc;
}

bool
sc_exec_op_canceled(struct sc_exec_op *op)
{
	bool r;

	pthread_mutex_lock(&op->lock);
	r = op->state == SC_EXEC_CANCELED || op->state == SC_EXEC_CLOSED;
	pthread_mutex_unlock(&op->lock);
	return r;
}

const char *
sc_exec_op_id(const struct sc_exec_op *op)
{
	return op->id;
}

struct sc_session *
sc_exec_op_session(const struct sc_exec_op *op)
{
	return op->sess;
}

const struct sc_server_conf *
sc_exec_op_conf(const struct sc_exec_op *op)
{
	return &op->m->conf;
}

enum sc_exec_state
sc_exec_op_state(struct sc_exec_op *op)
{
	enum sc_exec_state st;

	pthread_mutex_lock(&op->lock);
	st = op->state;
	pthread_mutex_unlock(&op->lock);
	return st;
}

const atomic_int *
sc_exec_op_cancel_flag(const struct sc_exec_op *op)
{
	return &op->cancel;
}
