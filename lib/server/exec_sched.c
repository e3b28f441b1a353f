/* SPDX-License-Identifier: MIT */

/*
 * exec_sched.c: who computes when.  Slots (the right to compute) go to
 * waiting operations in fair order; runner threads start on demand and
 * run them (a trivial query may run on the RPC thread that received it:
 * sc_exec_sched_take); one timer thread ends streams at their deadline,
 * compensates stalls and calls the maintenance.
 */

#include "server/exec_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "server/session.h"

#include "core/banned.h"

/* An absolute CLOCK_MONOTONIC time from sc_mono_ms() milliseconds. */
static void
abs_mono(int64_t ms, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ms / 1000);
	ts->tv_nsec = (long)(ms % 1000) * 1000000L;
}

/*
 * Operations wait in per-session queues; sessions with waiting work form
 * a ring per user, and such users a ring in the manager.  A free slot
 * goes to the users in turn, within a user to its sessions in turn,
 * within a session first to an operation resuming after a pause, then to
 * the oldest new one.  So one user's hundred queued operations delay
 * another user's next one by at most one turn.
 *
 * A new operation needs a slot and a thread, and its user must run fewer
 * than conf.max_running_per_user operations.  A running operation that
 * waits for its reader gives its slot back (parks) and queues for one
 * again when the reader made room.  A parked operation no longer counts
 * as running for its user (so clients that stopped reading, or died,
 * cannot keep their user from running anything until the detached
 * timeout), but it still holds its thread, its SQLite statement being in
 * the middle of a step: a user's running and parked operations together
 * may hold at most m->user_held_max threads (half of conf.max_threads,
 * and never fewer than conf.max_running_per_user), so one user's parked
 * operations leave threads for the others.  When work has waited conf.compensation_delay_ms while every slot
 * stayed busy (long queries that do not pause), one more slot is added
 * (compensation); it goes away with the next slot released.  Threads are
 * started on demand up to conf.max_threads; those beyond conf.workers
 * exit after conf.thread_idle_ms without work.
 */

static void *worker_main(void *arg);
static void run_op(struct sc_execmgr *m, struct sc_exec_op *op);
static bool sched_end(struct sc_execmgr *m, struct sc_exec_op *op, int64_t now);
static void *timer_main(void *arg);

/* The user entry of op's user, created on first use. */
static struct uent *
user_get(struct sc_execmgr *m, const char *user)
{
	struct kent *e;
	struct uent *u;
	size_t klen = strlen(user) + 1;

	if ((e = ktab_find(&m->users, user, klen)) != NULL)
		return e->val;
	u = sc_xcalloc(1, sizeof(*u));
	u->kent.key = sc_xmemdup(user, klen);
	u->kent.klen = klen;
	u->kent.val = u;
	ktab_insert(&m->users, &u->kent);
	return u;
}

/* Forget u once it neither runs nor waits. */
static void
user_put(struct sc_execmgr *m, struct uent *u)
{
	if (u == NULL || u->running > 0 || u->paused > 0 || u->nsq > 0)
		return;
	ktab_remove(&m->users, &u->kent);
	free(u->kent.key);
	free(u);
}

static void
uring_add(struct sc_execmgr *m, struct uent *u)
{
	/* Just before the cursor: served at the end of this turn. */
	if (m->ucur == NULL) {
		u->rnext = u->rprev = u;
		m->ucur = u;
	} else {
		u->rnext = m->ucur;
		u->rprev = m->ucur->rprev;
		u->rprev->rnext = u;
		m->ucur->rprev = u;
	}
	m->nring++;
}

static void
uring_del(struct sc_execmgr *m, struct uent *u)
{
	if (u->rnext == u)
		m->ucur = NULL;
	else {
		u->rprev->rnext = u->rnext;
		u->rnext->rprev = u->rprev;
		if (m->ucur == u)
			m->ucur = u->rnext;
	}
	u->rnext = u->rprev = NULL;
	m->nring--;
}

/* The queue of op's session, created and put in its user's ring. */
static struct squeue *
squeue_get(struct sc_execmgr *m, struct sc_exec_op *op)
{
	struct uent *u = op->user;
	struct squeue *q;
	struct kent *e;
	char *key;
	size_t klen;

	key = sc_exec_key_make(op->sess->user_id, op->sess->session_id, "",
	    &klen);
	if ((e = ktab_find(&m->squeues, key, klen)) != NULL) {
		free(key);
		return e->val;
	}
	q = sc_xcalloc(1, sizeof(*q));
	q->kent.key = key;
	q->kent.klen = klen;
	q->kent.val = q;
	q->u = u;
	ktab_insert(&m->squeues, &q->kent);
	if (u->scur == NULL) {
		q->next = q->prev = q;
		u->scur = q;
		uring_add(m, u);
	} else {
		q->next = u->scur;
		q->prev = u->scur->prev;
		q->prev->next = q;
		u->scur->prev = q;
	}
	u->nsq++;
	return q;
}

static void
squeue_drop(struct sc_execmgr *m, struct squeue *q)
{
	struct uent *u = q->u;

	if (q->next == q)
		u->scur = NULL;
	else {
		q->prev->next = q->next;
		q->next->prev = q->prev;
		if (u->scur == q)
			u->scur = q->next;
	}
	u->nsq--;
	ktab_remove(&m->squeues, &q->kent);
	free(q->kent.key);
	free(q);
	if (u->nsq == 0)
		uring_del(m, u);
}

/* Append op (SCH_QUEUED or SCH_RESUME, op->user set) to its queue. */
static void
sq_push(struct sc_execmgr *m, struct sc_exec_op *op)
{
	struct squeue *q = squeue_get(m, op);
	struct sc_exec_op **head, **tail;

	if (op->sched == SCH_RESUME) {
		head = &q->rhead;
		tail = &q->rtail;
		op->user->nresume++;
		m->nresume++;
	} else {
		head = &q->nhead;
		tail = &q->ntail;
		op->user->nnew++;
		m->nqueued++;
	}
	op->sq = q;
	op->qnext = NULL;
	op->qprev = *tail;
	if (*tail != NULL)
		(*tail)->qnext = op;
	else
		*head = op;
	*tail = op;
}

/* Take op out of its queue; the queue goes once it is empty. */
static void
sq_unlink(struct sc_execmgr *m, struct sc_exec_op *op)
{
	struct squeue *q = op->sq;
	struct sc_exec_op **head, **tail;

	if (op->sched == SCH_RESUME) {
		head = &q->rhead;
		tail = &q->rtail;
		op->user->nresume--;
		m->nresume--;
	} else {
		head = &q->nhead;
		tail = &q->ntail;
		op->user->nnew--;
		m->nqueued--;
	}
	if (op->qprev != NULL)
		op->qprev->qnext = op->qnext;
	else
		*head = op->qnext;
	if (op->qnext != NULL)
		op->qnext->qprev = op->qprev;
	else
		*tail = op->qprev;
	op->qnext = op->qprev = NULL;
	op->sq = NULL;
	if (q->rhead == NULL && q->nhead == NULL)
		squeue_drop(m, q);
}

/*
 * The next waiting operation in fair order; new ones only if can_new and
 * their user is below its cap.  take: unlink it and move the turns on.
 */
static struct sc_exec_op *
sched_next(struct sc_execmgr *m, bool can_new, bool take)
{
	struct uent *u;
	struct squeue *q;
	struct sc_exec_op *op;
	size_t i, j;
	bool new_ok;

	for (i = 0, u = m->ucur; i < m->nring; i++, u = u->rnext) {
		new_ok = can_new && u->running < m->user_max &&
		    u->running + u->paused < m->user_held_max;
		if (u->nresume == 0 && (!new_ok || u->nnew == 0))
			continue;
		for (j = 0, q = u->scur; j < u->nsq; j++, q = q->next) {
			op = q->rhead != NULL ? q->rhead
			    : new_ok	      ? q->nhead
					      : NULL;
			if (op == NULL)
				continue;
			if (take) {
				u->scur = q->next;
				m->ucur = u->rnext;
				sq_unlink(m, op);
			}
			return op;
		}
	}
	return NULL;
}

/*
 * Start a runner thread, counted idle until it takes work.  0, or
 * pthread_create()'s error number.
 */
static int
spawn(struct sc_execmgr *m, int64_t now)
{
	struct thr *t;
	int rc;

	t = sc_xcalloc(1, sizeof(*t));
	t->m = m;
	if ((rc = pthread_create(&t->tid, NULL, worker_main, t)) != 0) {
		free(t);
		sc_warn("cannot start a runner thread (%d running): %s",
		    m->nthreads, strerror(rc));
		m->spawn_retry_at = now + 1000;
		return rc;
	}
	t->next = m->live;
	t->prev = NULL;
	if (m->live != NULL)
		m->live->prev = t;
	m->live = t;
	m->nthreads++;
	m->nidle++;
	return 0;
}

/* Whether a new operation could get a thread now. */
static bool
can_start(struct sc_execmgr *m, int64_t now)
{
	return !m->stopping &&
	    (m->nidle > (int)m->nready ||
		(m->nthreads < m->max_threads && now >= m->spawn_retry_at));
}

/*
 * op gives its slot back.  A slot added by compensation goes away when a
 * long holder (one that held its slot for the compensation delay) lets
 * go, or once fewer than conf.workers slots are busy; a short operation
 * that ran in the added slot leaves it to the next one.
 */
static void
slot_release(struct sc_execmgr *m, int64_t slot_since, int64_t now)
{
	m->nrunning--;
	if (m->extra > 0 && now - slot_since >= m->conf.compensation_delay_ms)
		m->extra--;
	if (m->nrunning < m->workers)
		m->extra = 0;
}

/*
 * Give free slots to waiting work, in fair order.  Returns true when a
 * stall began (work waits and every slot is busy), for the caller to
 * wake the timer, which compensates after conf.compensation_delay_ms.
 */
static bool
dispatch(struct sc_execmgr *m, int64_t now)
{
	struct sc_exec_op *op;
	struct job *j;
	bool can_new, granted = false, stalled, began;

	while (m->nrunning < m->workers + m->extra) {
		can_new = can_start(m, now);
		op = sched_next(m, can_new, false);
		/* Jobs and operations take turns at free slots. */
		if (can_new && m->jhead != NULL &&
		    (m->job_turn || op == NULL)) {
			if (m->nidle <= (int)m->nready && spawn(m, now) != 0)
				continue;
			j = m->jhead;
			if ((m->jhead = j->next) == NULL)
				m->jtail = NULL;
			m->njobs--;
			j->next = NULL;
			j->slot_since = now;
			if (m->jrtail != NULL)
				m->jrtail->next = j;
			else
				m->jrhead = j;
			m->jrtail = j;
			m->nready++;
			m->nrunning++;
			m->job_turn = false;
			granted = true;
			pthread_cond_signal(&m->work_cv);
			continue;
		}
		if (op == NULL)
			break;
		m->job_turn = m->jhead != NULL;
		if (op->sched == SCH_QUEUED && m->nidle <= (int)m->nready &&
		    spawn(m, now) != 0)
			continue;
		sched_next(m, can_new, true);
		m->nrunning++;
		op->slot_since = now;
		granted = true;
		if (op->sched == SCH_RESUME) {
			op->sched = SCH_SLOT;
			op->user->paused--;
			op->user->running++;
			pthread_cond_signal(&op->slot_cv);
			continue;
		}
		op->sched = SCH_READY;
		op->user->running++;
		op->qnext = NULL;
		if (m->rtail != NULL)
			m->rtail->qnext = op;
		else
			m->rhead = op;
		m->rtail = op;
		m->nready++;
		pthread_cond_signal(&m->work_cv);
	}
	if (m->nqueued > 0 && !m->stopping && m->nthreads >= m->max_threads &&
	    m->nidle <= (int)m->nready) {
		if (!m->cap_warned)
			sc_warn("all %d runner threads are busy "
				"(sctk.execute.maxThreads); queued "
				"operations wait: %zu",
			    m->nthreads, m->nqueued);
		m->cap_warned = true;
	} else if (m->nthreads < m->max_threads)
		m->cap_warned = false;
	stalled = m->nrunning >= m->workers + m->extra &&
	    (sched_next(m, can_start(m, now), false) != NULL ||
		(m->jhead != NULL && can_start(m, now)));
	began = stalled && m->stall_since < 0;
	if (!stalled)
		m->stall_since = -1;
	else if (granted || began)
		m->stall_since = now;
	return began;
}

/* Wake the timer (no lock of ours held). */
static void
timer_kick(struct sc_execmgr *m)
{
	pthread_mutex_lock(&m->lock);
	pthread_cond_signal(&m->timer_cv);
	pthread_mutex_unlock(&m->lock);
}

/*
 * Queue a new operation (manager locked, registered, its sender set).
 * Returns dispatch()'s stall flag.
 */
bool
sc_exec_sched_add(struct sc_execmgr *m, struct sc_exec_op *op, int64_t now)
{
	bool began;

	pthread_mutex_lock(&m->slock);
	sc_exec_op_ref(op); /* the queue's */
	op->user = user_get(m, op->sess->user_id);
	op->sched = SCH_QUEUED;
	sq_push(m, op);
	began = dispatch(m, now);
	pthread_mutex_unlock(&m->slock);
	return began;
}

bool
sc_exec_sched_take(struct sc_execmgr *m, struct sc_exec_op *op, int64_t now)
{
	bool ok;

	pthread_mutex_lock(&m->slock);
	ok = !m->stopping && m->nqueued == 0 && m->nresume == 0 &&
	    m->nready == 0 && m->njobs == 0 &&
	    m->nrunning < m->workers + m->extra;
	if (ok) {
		op->user = user_get(m, op->sess->user_id);
		/* Its session's connection may be busy: no waiting here. */
		if (op->user->running > 0 || op->user->paused > 0) {
			user_put(m, op->user);
			op->user = NULL;
			ok = false;
		}
	}
	if (ok) {
		sc_exec_op_ref(op); /* the queue's */
		op->user->running++;
		op->sched = SCH_SLOT;
		op->slot_since = now;
		op->inline_run = true;
		m->nrunning++;
		m->ninline++;
	}
	pthread_mutex_unlock(&m->slock);
	return ok;
}

void
sc_exec_sched_run_inline(struct sc_execmgr *m, struct sc_exec_op *op)
{
	bool began;

	run_op(m, op);
	pthread_mutex_lock(&m->slock);
	began = sched_end(m, op, sc_exec_now(m));
	m->ninline--;
	pthread_cond_broadcast(&m->threads_cv);
	pthread_mutex_unlock(&m->slock);
	if (began)
		timer_kick(m);
	sc_exec_op_unref(op); /* the queue's */
}

/*
 * op was canceled (op locked): drop it from the queue, or wake it if it
 * waits for a slot.  The queue's reference is never the last one: the
 * registry holds one while an operation can be canceled.
 */
void
sc_exec_sched_cancel(struct sc_execmgr *m, struct sc_exec_op *op)
{
	pthread_mutex_lock(&m->slock);
	if (op->sched == SCH_QUEUED) {
		sq_unlink(m, op);
		op->sched = SCH_NONE;
		user_put(m, op->user);
		op->user = NULL;
		sc_exec_op_unref_held(op);
	} else if (op->sched == SCH_RESUME) {
		sq_unlink(m, op);
		op->sched = SCH_NOSLOT;
		pthread_cond_signal(&op->slot_cv);
	}
	pthread_mutex_unlock(&m->slock);
}

/* op waits for its reader (op locked): give its slot back. */
bool
sc_exec_sched_park(struct sc_execmgr *m, struct sc_exec_op *op)
{
	bool parked = false;
	int64_t now;

	pthread_mutex_lock(&m->slock);
	if (op->sched == SCH_SLOT) {
		op->sched = SCH_PARKED;
		m->nparked++;
		op->user->running--;
		op->user->paused++;
		now = sc_exec_now(m);
		slot_release(m, op->slot_since, now);
		dispatch(m, now);
		parked = true;
	}
	pthread_mutex_unlock(&m->slock);
	return parked;
}

/*
 * A parked op can go on (no lock of ours held): wait in turn for a slot.
 * Returns with op holding a slot (SCH_SLOT), or canceled (SCH_NOSLOT).
 */
void
sc_exec_sched_resume(struct sc_execmgr *m, struct sc_exec_op *op)
{
	bool began = false;

	pthread_mutex_lock(&m->slock);
	if (op->sched == SCH_PARKED) {
		m->nparked--;
		if (atomic_load(&op->cancel) != 0)
			op->sched = SCH_NOSLOT;
		else {
			op->sched = SCH_RESUME;
			sq_push(m, op);
			began = dispatch(m, sc_exec_now(m));
		}
	}
	if (began) {
		pthread_mutex_unlock(&m->slock);
		timer_kick(m);
		pthread_mutex_lock(&m->slock);
	}
	while (op->sched == SCH_RESUME)
		pthread_cond_wait(&op->slot_cv, &m->slock);
	pthread_mutex_unlock(&m->slock);
}

/* The run of op ended (scheduler locked); dispatch()'s stall flag. */
static bool
sched_end(struct sc_execmgr *m, struct sc_exec_op *op, int64_t now)
{
	if (op->sched == SCH_SLOT) {
		slot_release(m, op->slot_since, now);
		op->user->running--;
	} else if (op->sched == SCH_PARKED) {
		m->nparked--;
		op->user->paused--;
	} else if (op->sched == SCH_NOSLOT)
		op->user->paused--; /* canceled while parked */
	else
		SC_BUG("operation %s ended in scheduler state %d", op->id,
		    (int)op->sched);
	op->sched = SCH_DONE;
	user_put(m, op->user);
	op->user = NULL;
	return dispatch(m, now);
}

size_t
sc_execmgr_compensate(struct sc_execmgr *m, int64_t now)
{
	size_t n = 0;
	int64_t waited;

	pthread_mutex_lock(&m->slock);
	if (!m->stopping && m->stall_since >= 0 &&
	    m->conf.compensation_delay_ms >= 0 &&
	    (waited = now - m->stall_since) >= m->conf.compensation_delay_ms &&
	    m->workers + m->extra < m->max_threads) {
		m->extra++;
		m->compensations++;
		n = 1;
		if (m->extra == 1)
			sc_info("all %d workers busy for %lld ms with "
				"operations waiting: running one more beside "
				"them (sctk.execute.compensationDelay)",
			    m->workers, (long long)waited);
		else
			sc_debug("compensation: %d extra slots, %d threads",
			    m->extra, m->nthreads);
	}
	/* Also retries a thread that could not be started. */
	if (!m->stopping)
		dispatch(m, now);
	pthread_mutex_unlock(&m->slock);
	return n;
}

/* When the timer should call sc_execmgr_compensate(), or NO_DEADLINE. */
static int64_t
compensate_at(struct sc_execmgr *m, int64_t now)
{
	int64_t t = NO_DEADLINE;

	pthread_mutex_lock(&m->slock);
	if (m->stall_since >= 0 && m->conf.compensation_delay_ms >= 0 &&
	    m->workers + m->extra < m->max_threads)
		t = m->stall_since + m->conf.compensation_delay_ms;
	if (m->nqueued > 0 && m->spawn_retry_at > now && m->spawn_retry_at < t)
		t = m->spawn_retry_at;
	pthread_mutex_unlock(&m->slock);
	return t;
}

/* Join threads that exited (no lock of ours held). */
static void
reap(struct sc_execmgr *m)
{
	struct thr *t, *next;

	pthread_mutex_lock(&m->slock);
	t = m->dead;
	m->dead = NULL;
	pthread_mutex_unlock(&m->slock);
	for (; t != NULL; t = next) {
		next = t->next;
		pthread_join(t->tid, NULL);
		free(t);
	}
}

/* ----------------------------------------------------- the runners */

static void
run_op(struct sc_execmgr *m, struct sc_exec_op *op)
{
	Spark__Connect__ExecutePlanResponse r =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
	Spark__Connect__ExecutePlanResponse__ResultComplete rc_msg =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESULT_COMPLETE__INIT;
	Spark__Connect__Plan *plan = NULL;
	struct sc_error err;
	struct acts a;
	uint8_t *done_bytes = NULL;
	size_t done_len = 0;
	char rid[SC_UUID_STRLEN];
	int rc;
	int64_t t0 = sc_mono_ms();
	struct sc_execbuf_stats st;

	sc_exec_acts_init(&a);
	sc_error_init(&err);
	pthread_mutex_lock(&op->lock);
	if (op->state != SC_EXEC_PENDING) {
		pthread_mutex_unlock(&op->lock);
		return;
	}
	sc_exec_set_state(op, SC_EXEC_RUNNING);
	op->started_ms = sc_realtime_ms();
	sc_exec_event(op, SC_EXEC_EV_STARTED, sc_exec_now(m));
	pthread_mutex_unlock(&op->lock);
	sc_debug("operation %s running", op->id);

	rc = 0;
	if (op->plan != NULL) {
		plan = sc_proto_unpack(&spark__connect__plan__descriptor,
		    op->plan, op->planlen, &err);
		if (plan == NULL)
			rc = -1;
	}
	if (rc == 0)
		rc = m->run(op, plan, m->run_arg, &err);
	if (plan != NULL)
		protobuf_c_message_free_unpacked(&plan->base, NULL);
	if (rc == 0 && op->reattachable) {
		r.response_type_case =
		    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_RESULT_COMPLETE;
		r.result_complete = &rc_msg;
		done_bytes =
		    sc_exec_pack_response(op, &r, rid, &done_len, &err);
		if (done_bytes == NULL)
			rc = -1;
	}

	pthread_mutex_lock(&op->lock);
	if (op->state == SC_EXEC_RUNNING) {
		if (rc == 0) {
			if (done_bytes != NULL) {
				sc_execbuf_add(op->buf, rid, done_bytes,
				    done_len, 0);
				done_bytes = NULL;
			}
			sc_execbuf_finish(op->buf);
			sc_exec_set_state(op, SC_EXEC_FINISHED);
			atomic_fetch_add(&m->finished, 1);
		} else {
			op->error = err;
			op->has_error = true;
			sc_execbuf_finish(op->buf);
			sc_exec_set_state(op, SC_EXEC_FAILED);
			atomic_fetch_add(&m->failed, 1);
		}
		op->finished_ms = sc_realtime_ms();
		sc_exec_event(op,
		    rc == 0 ? SC_EXEC_EV_FINISHED : SC_EXEC_EV_FAILED,
		    sc_exec_now(m));
		if (op->sender != NULL)
			sc_exec_pump(op, op->sender, sc_exec_now(m), &a);
		sc_execbuf_stats(op->buf, &st);
		if (rc == 0)
			sc_info("operation %s finished: %lld responses in "
				"%lld ms",
			    op->id, (long long)st.produced,
			    (long long)(sc_mono_ms() - t0));
		else
			sc_info("operation %s failed after %lld responses: %s",
			    op->id, (long long)st.produced, err.msg);
	}
	pthread_mutex_unlock(&op->lock);
	free(done_bytes);
	sc_exec_acts_run(m, &a);
}

/*
 * A runner thread: run ready operations; beyond conf.workers threads,
 * exit after conf.thread_idle_ms without work.
 */
static void *
worker_main(void *arg)
{
	struct thr *t = arg;
	struct sc_execmgr *m = t->m;
	struct sc_exec_op *op;
	struct job *j;
	struct timespec ts;
	int64_t idle_end = -1, now;
	bool began;

	/* Named for top -H and gdb: who is busy is then plain. */
	pthread_setname_np(pthread_self(), "sc-query");

	pthread_mutex_lock(&m->slock);
	for (;;) {
		if ((j = m->jrhead) != NULL) {
			if ((m->jrhead = j->next) == NULL)
				m->jrtail = NULL;
			m->nready--;
			m->nidle--;
			pthread_mutex_unlock(&m->slock);
			j->fn(j->arg, true);
			pthread_mutex_lock(&m->slock);
			now = sc_exec_now(m);
			slot_release(m, j->slot_since, now);
			began = dispatch(m, now);
			m->nidle++;
			pthread_mutex_unlock(&m->slock);
			free(j);
			if (began)
				timer_kick(m);
			idle_end = -1;
			pthread_mutex_lock(&m->slock);
			continue;
		}
		if ((op = m->rhead) != NULL) {
			if ((m->rhead = op->qnext) == NULL)
				m->rtail = NULL;
			op->qnext = NULL;
			m->nready--;
			m->nidle--;
			op->sched = SCH_SLOT;
			pthread_mutex_unlock(&m->slock);
			run_op(m, op);
			pthread_mutex_lock(&m->slock);
			began = sched_end(m, op, sc_exec_now(m));
			m->nidle++;
			pthread_mutex_unlock(&m->slock);
			if (began)
				timer_kick(m);
			sc_exec_op_unref(op); /* the queue's */
			idle_end = -1;
			pthread_mutex_lock(&m->slock);
			continue;
		}
		if (m->stopping)
			break;
		if (m->nthreads <= m->workers) {
			idle_end = -1;
			pthread_cond_wait(&m->work_cv, &m->slock);
			continue;
		}
		if (idle_end < 0)
			idle_end = sc_mono_ms() + m->conf.thread_idle_ms;
		else if (sc_mono_ms() >= idle_end)
			break;
		abs_mono(idle_end, &ts);
		pthread_cond_timedwait(&m->work_cv, &m->slock, &ts);
	}
	m->nthreads--;
	m->nidle--;
	if (t->prev != NULL)
		t->prev->next = t->next;
	else
		m->live = t->next;
	if (t->next != NULL)
		t->next->prev = t->prev;
	t->prev = NULL;
	t->next = m->dead;
	m->dead = t;
	if (!m->stopping)
		sc_debug("runner thread exits after %lld ms idle (%d left)",
		    (long long)m->conf.thread_idle_ms, m->nthreads);
	pthread_cond_broadcast(&m->threads_cv);
	pthread_mutex_unlock(&m->slock);
	return NULL;
}

/* ------------------------------------------------------- the timer */

static void *
timer_main(void *arg)
{
	struct sc_execmgr *m = arg;
	struct sc_exec_op *op;
	struct kent *e;
	struct timespec ts;
	int64_t now, wake, next_maint, interval, comp;

	pthread_setname_np(pthread_self(), "sc-timer");
	interval = m->conf.maintenance_interval_ms;
	if (interval < 10)
		interval = 10;
	pthread_mutex_lock(&m->lock);
	next_maint = sc_exec_now(m) + interval;
	while (!m->stopping) {
		now = sc_exec_now(m);
		wake = next_maint;
		for (e = ktab_oldest(&m->ops); e != NULL;
		     e = knext(&m->ops, e)) {
			op = e->val;
			pthread_mutex_lock(&op->lock);
			if (op->sender != NULL && op->sender->deadline < wake)
				wake = op->sender->deadline;
			pthread_mutex_unlock(&op->lock);
		}
		/* A stall that begins signals timer_cv under m->lock. */
		comp = compensate_at(m, now);
		if (comp < wake)
			wake = comp;
		if (now < wake) {
			abs_mono(wake, &ts);
			m->timer_at = wake;
			pthread_cond_timedwait(&m->timer_cv, &m->lock, &ts);
			m->timer_at = INT64_MIN;
			continue;
		}
		pthread_mutex_unlock(&m->lock);
		if (now >= comp)
			sc_execmgr_compensate(m, now);
		sc_execmgr_expire_streams(m, now);
		if (now >= next_maint) {
			struct timespec t0, t1;
			size_t nops;

			clock_gettime(CLOCK_MONOTONIC, &t0);
			sc_execmgr_maintain(m, now);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			pthread_mutex_lock(&m->lock);
			nops = sc_htab_count(&m->ops);
			pthread_mutex_unlock(&m->lock);
			/* For make stress: the sweep's cost with many ops. */
			sc_debug(
			    "maintenance: %zu operations, sweep took %lld us",
			    nops,
			    (long long)((t1.tv_sec - t0.tv_sec) * 1000000 +
				(t1.tv_nsec - t0.tv_nsec) / 1000));
			reap(m);
			next_maint = now + interval;
		}
		pthread_mutex_lock(&m->lock);
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

/* ----------------------------------------------------- start and stop */

int
sc_exec_sched_start(struct sc_execmgr *m, bool timer, struct sc_error *err)
{
	int64_t now = sc_exec_now(m);
	int i, rc = 0;

	pthread_mutex_lock(&m->slock);
	for (i = 0; i < m->workers && rc == 0; i++)
		rc = spawn(m, now);
	pthread_mutex_unlock(&m->slock);
	if (rc != 0)
		return sc_error_set(err, SC_ST_INTERNAL,
		    "cannot start the %d runner threads (started %d): %s",
		    m->workers, i - 1, strerror(rc));
	if (timer) {
		if ((rc = pthread_create(&m->timer, NULL, timer_main, m)) != 0)
			return sc_error_set(err, SC_ST_INTERNAL,
			    "cannot start the execution timer thread: %s",
			    strerror(rc));
		m->has_timer = true;
	}
	return 0;
}

int
sc_execmgr_submit(struct sc_execmgr *m, sc_exec_job_fn *fn, void *arg,
    struct sc_error *err)
{
	struct job *j;
	bool began;

	j = sc_xcalloc(1, sizeof(*j));
	j->fn = fn;
	j->arg = arg;
	pthread_mutex_lock(&m->slock);
	if (m->stopping) {
		pthread_mutex_unlock(&m->slock);
		free(j);
		return sc_error_set(err, SC_ST_INTERNAL,
		    "the server is shutting down");
	}
	if (m->jtail != NULL)
		m->jtail->next = j;
	else
		m->jhead = j;
	m->jtail = j;
	m->njobs++;
	began = dispatch(m, sc_exec_now(m));
	pthread_mutex_unlock(&m->slock);
	if (began)
		timer_kick(m);
	return 0;
}

bool
sc_execmgr_stopping(struct sc_execmgr *m)
{
	return atomic_load(&m->stop_flag);
}

void
sc_exec_sched_stop(struct sc_execmgr *m)
{
	struct job *waiting, *ready, *j;

	/* Jobs that have no thread yet are told they will not run. */
	pthread_mutex_lock(&m->slock);
	waiting = m->jhead;
	ready = m->jrhead;
	for (j = ready; j != NULL; j = j->next) {
		m->nready--;
		m->nrunning--;
	}
	m->jhead = m->jtail = m->jrhead = m->jrtail = NULL;
	m->njobs = 0;
	pthread_mutex_unlock(&m->slock);
	for (; waiting != NULL; waiting = j) {
		j = waiting->next;
		waiting->fn(waiting->arg, false);
		free(waiting);
	}
	for (; ready != NULL; ready = j) {
		j = ready->next;
		ready->fn(ready->arg, false);
		free(ready);
	}

	pthread_mutex_lock(&m->slock);
	pthread_cond_broadcast(&m->work_cv);
	while (m->nthreads > 0 || m->ninline > 0)
		pthread_cond_wait(&m->threads_cv, &m->slock);
	pthread_mutex_unlock(&m->slock);
	reap(m);
	if (m->has_timer)
		pthread_join(m->timer, NULL);
}
