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
#include "exec-fake.h"
#include "tap.h"
#include "core/banned.h"

/* ------------------------------------------------------ fixtures */

/* Close and free a call; its references must all be gone. */
static int leaks, violations;

static void
done(struct sc_rpc_call *c, const char *what)
{
	int v;

	(void)what;
	if (xf_call_retire(c, &v) != 1)
		leaks++;
	violations += v;
}

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
			xf_ack(ack_calls[i], true);
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

/*
 * A short random delay (up to a millisecond or two) to vary
 * the interleaving: a busy loop, not sched_yield(), which on a loaded
 * machine gives the processor away for a whole time slice per call (200
 * of them per run made the 300-run races take over ten minutes).
 */
static void
random_pause(unsigned *seed)
{
	volatile unsigned sink = 0;
	int k = (int)(rand_r(seed) % 200) * 5000, i;

	for (i = 0; i < k; i++)
		sink += (unsigned)i;
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
	int k, w, nw = xf_conf.workers, before, good = 0;
	bool found, fine;

	for (k = 0; k < 50; k++) {
		xf_gate_set(false);
		before = atomic_load(&xf_runs);
		for (w = 0; w < nw; w++) {
			opid(a[w], 1, 8 * k + w);
			ca[w] = xf_execute(s, a[w], "gate", true, NULL);
			xf_wait_state(a[w], SC_EXEC_RUNNING);
			acked(ca[w]);
		}
		opid(b, 1, 8 * k + 7);
		cb = xf_execute(s, b, "batch:1:1", true, NULL);
		acked(cb);
		fine = xf_wait_state(b, SC_EXEC_PENDING);
		sc_exec_interrupt(xf_mgr, s, 3, b, &ids, &n, &err);
		xf_gate_set(true);
		for (w = 0; w < nw; w++) {
			settle(ca[w]);
			if (ca[w]->code != SC_GRPC_OK)
				fine = false;
		}
		settle(cb);
		if (fine && n == 1 && strcmp(ids[0], b) == 0 &&
		    strcmp(cb->errclass, "OPERATION_CANCELED") == 0 &&
		    cb->nmsgs == 0 && atomic_load(&xf_runs) - before == nw &&
		    xf_wait_state(b, SC_EXEC_CANCELED))
			good++;
		for (i = 0; i < n; i++)
			free(ids[i]);
		free(ids);
		for (w = 0; w < nw; w++) {
			unacked(ca[w]);
			xf_release(s, a[w], 0, NULL, &found, &err);
			done(ca[w], "pending a");
		}
		unacked(cb);
		xf_release(s, b, 0, NULL, &found, &err);
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
	r->rc = sc_exec_interrupt(xf_mgr, r->s, 3, r->id, &r->ids, &r->n, &err);
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
	struct xf_find f;

	for (k = 0; k < 300; k++) {
		opid(id, 2, k);
		memset(&r, 0, sizeof(r));
		r.s = s;
		r.id = id;
		r.seed = (unsigned)k;
		atomic_store(&go, false);
		pthread_create(&t, NULL, interrupter, &r);
		atomic_store(&go, true);
		c = xf_execute(s, id, "batch:1:10 sleep:300 batch:2:10", true,
		    NULL);
		acked(c);
		pthread_join(t, NULL);
		if (!settle(c))
			bad++;
		f = xf_find(id);
		if (r.rc == 0 && r.n == 1) {
			if (strcmp(c->errclass, "OPERATION_CANCELED") == 0 &&
			    f.info.state == SC_EXEC_CANCELED &&
			    (c->nmsgs == 0 ||
				!xf_has_complete(c->msgs[c->nmsgs - 1])))
				canceled++;
			else
				bad++;
		} else if (r.rc == 0 && r.n == 0) {
			if (c->code == SC_GRPC_OK && c->nmsgs == 4 &&
			    xf_has_complete(c->msgs[3]) &&
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
		xf_release(s, id, 0, NULL, &found, &err);
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
	r->rc = xf_release(r->s, r->id, 0, NULL, &found, &err);
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
		c = xf_execute(s, id, "batch:20:100", true, NULL);
		acked(c);
		atomic_store(&go, true);
		pthread_join(t, NULL);
		if (!settle(c) || r.rc != 0 || r.n != 1 || xf_find(id).found)
			bad++;
		else if (strcmp(c->errclass, "INVALID_CURSOR.DISCONNECTED") ==
		    0)
			disc++;
		else if (c->code == SC_GRPC_OK && c->nmsgs == 21 &&
		    xf_has_complete(c->msgs[20]))
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
		c = xf_execute(s, id, "batch:5:10 sleep:200 batch:5:10", true,
		    NULL);
		acked(c);
		random_pause(&seed);
		pthread_mutex_lock(&c->mu);
		seen = (int64_t)c->nmsgs;
		if (seen > 0)
			snprintf(last, sizeof(last), "%s",
			    c->msgs[seen - 1]->response_id);
		pthread_mutex_unlock(&c->mu);
		c2 = xf_reattach(s, id, seen > 0 ? last : NULL);
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
			    (!xf_is_batch(c2->msgs[i]) ||
				c2->msgs[i]->arrow_batch->start_offset !=
				    index - 1))
				bad++;
			if (index == 11 && !xf_has_complete(c2->msgs[i]))
				bad++;
		}
next:
		unacked(c);
		unacked(c2);
		xf_release(s, id, 0, NULL, &found, &err);
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
	struct xf_find f;

	for (k = 0; k < 200; k++) {
		snprintf(sid, sizeof(sid), "00112233-4455-6677-8899-%012d", k);
		s = xf_session_new("carol", sid);
		opid(id, 5, k);
		c = xf_execute(s, id, "batch:50:10", true, NULL);
		acked(c);
		random_pause(&seed);
		pthread_mutex_lock(&s->lock);
		s->closed = true;
		pthread_mutex_unlock(&s->lock);
		sc_exec_session_closed(xf_mgr, s);
		if (!settle(c))
			bad++;
		else if (strcmp(c->errclass, "INVALID_CURSOR.DISCONNECTED") !=
			0 &&
		    !(c->code == SC_GRPC_OK && c->nmsgs == 51))
			bad++;
		f = xf_find(id);
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

	d->c = xf_execute(d->s, d->id, "batch:2:10", true, NULL);
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
		xf_release(s, id, 0, NULL, &found, &err);
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
	xf_conf_reset();
	xf_conf.workers = 4;
	xf_mgr_start(0);
	pthread_create(&ack_thr, NULL, acker, NULL);
	s = xf_session_new("alice", SID);
	test_interrupt_pending(s);
	test_interrupt_race(s);
	test_release_race(s);
	test_reattach_race(s);
	test_session_close_race();
	test_duplicate_race(s);
	atomic_store(&ack_stop, true);
	pthread_join(ack_thr, NULL);
	xf_mgr_stop();
	is_int(violations, 0, "flow control: never two sends in flight");
	is_int(leaks, 0, "every call reference released");
	is_int(s->refs, 1000, "session references all released");
	pthread_mutex_destroy(&s->lock);
	free(s);
	return tap_done();
}
