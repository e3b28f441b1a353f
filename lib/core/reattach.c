/* SPDX-License-Identifier: MIT */

/*
 * reattach.c: the reattachable-execution loop.
 *
 * The operation's own state (operation id, last response id, counters)
 * lives in the iterator, never in a stream: a stream is disposable and
 * is dropped on every failure, so a retry never starts from the state of
 * a broken one.  All decisions are made in handle_failure(), one place,
 * so the unit test can pin each branch.
 */

#include "core/reattach.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/plan.h"
#include "core/result.h"
#include "core/client.h"
#include "core/timeutil.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "core/banned.h"

/* Largest single response accepted (the channel has its own limit too). */
#define MSG_MAX (1024UL * 1024 * 1024)

/*
 * Bytes of responses read between two ReleaseUntil requests (and one
 * goes out before every new stream).  The server bounds its retry
 * buffer by itself; a release only frees it sooner, so one per response
 * would cost a round trip per response on both sides, and for a short
 * result the ReleaseAll at its end follows at once anyway.
 */
#define RELEASE_EVERY (1024UL * 1024)

enum it_state { ST_RUNNING = 0, ST_DONE, ST_FAILED };

struct sc_reattach {
	struct sc_client *c;
	struct sc_reattach_opts o;
	uint8_t *exec; /* packed ExecutePlanRequest */
	size_t exec_len;
	char opid[SC_UUID_STRLEN];
	char *last_rid; /* last response returned */
	bool pending_release; /* last_rid not released */
	uint64_t unreleased; /* response bytes read since the last release */
	bool attach; /* no ExecutePlan of ours */
	bool need_execute; /* next stream: ExecutePlan */
	enum it_state state;
	struct sc_error final_err;
	uint64_t nresp;
	uint64_t nstreams;
	int resends;
	struct sc_retry_state rs;
	struct sc_buf msg;
	int64_t stream_start_ms;
	uint64_t stream_nresp;
	/* The last stream ended INVALID_CURSOR.DISCONNECTED (so the server
	 * held the operation), and no response came since. */
	bool disconnected;
	/* Hashes of every response id returned, to refuse a repeat. */
	uint64_t *seen;
	size_t nseen, seencap;

	pthread_mutex_t lock; /* stream, aborted, released */
	pthread_cond_t cond; /* wakes a backoff sleep */
	void *stream;
	bool aborted;
	bool released;
};

void
sc_reattach_opts_init(struct sc_reattach_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->reattachable = true;
	sc_retry_policy_default(&o->policy);
	o->segment_ms = 10 * 60 * 1000;
	o->watchdog_ms = 150 * 1000;
	o->min_rotation_ms = 1000;
}

static uint32_t
default_rnd(void)
{
	return (uint32_t)random();
}

static struct sc_reattach *
it_new(struct sc_client *c, const struct sc_reattach_opts *o)
{
	struct sc_reattach *it;

	it = sc_xcalloc(1, sizeof(*it));
	it->c = c;
	if (o != NULL)
		it->o = *o;
	else
		sc_reattach_opts_init(&it->o);
	if (it->o.rnd == NULL)
		it->o.rnd = default_rnd;
	sc_retry_state_init(&it->rs, &it->o.policy);
	sc_buf_init(&it->msg, MSG_MAX);
	pthread_mutex_init(&it->lock, NULL);
	sc_mono_cond_init(&it->cond);
	return it;
}

static bool note_id(struct sc_reattach *it, const char *rid);

static int
set_opid(struct sc_reattach *it, const char *id, struct sc_error *err)
{
	if (!sc_uuid_valid(id))
		return sc_error_set(err, SC_ST_USAGE,
		    "operation id '%s' is not a UUID", id);
	snprintf(it->opid, sizeof(it->opid), "%s", id);
	/* The server normalises ids to lower case but looks them up raw. */
	sc_uuid_lower(it->opid);
	return 0;
}

static void
it_free(struct sc_reattach *it)
{
	free(it->exec);
	free(it->last_rid);
	free(it->seen);
	sc_buf_release(&it->msg);
	pthread_cond_destroy(&it->cond);
	pthread_mutex_destroy(&it->lock);
	free(it);
}

struct sc_reattach *
sc_reattach_open(struct sc_client *c,
    const Spark__Connect__ExecutePlanRequest *req,
    const struct sc_reattach_opts *o, struct sc_error *err)
{
	Spark__Connect__ExecutePlanRequest r = *req;
	Spark__Connect__ExecutePlanRequest__RequestOption opt =
	    SPARK__CONNECT__EXECUTE_PLAN_REQUEST__REQUEST_OPTION__INIT;
	Spark__Connect__ReattachOptions ro =
	    SPARK__CONNECT__REATTACH_OPTIONS__INIT;
	Spark__Connect__ExecutePlanRequest__RequestOption **opts;
	struct sc_reattach *it;
	size_t i, n = 0;

	it = it_new(c, o);
	if (req->_operation_id_case ==
		SPARK__CONNECT__EXECUTE_PLAN_REQUEST___OPERATION_ID_OPERATION_ID &&
	    req->operation_id != NULL && req->operation_id[0] != '\0') {
		if (set_opid(it, req->operation_id, err) == -1) {
			it_free(it);
			return NULL;
		}
	} else if (sc_uuid_v4(it->opid, err) == -1) {
		it_free(it);
		return NULL;
	}

	sc_client_stamp(c, &r.base);
	r._operation_id_case =
	    SPARK__CONNECT__EXECUTE_PLAN_REQUEST___OPERATION_ID_OPERATION_ID;
	r.operation_id = it->opid;

	/* Our own reattach option replaces any the caller put in. */
	opts = sc_xcalloc(req->n_request_options + 1, sizeof(*opts));
	for (i = 0; i < req->n_request_options; i++)
		if (req->request_options[i]->request_option_case !=
		    SPARK__CONNECT__EXECUTE_PLAN_REQUEST__REQUEST_OPTION__REQUEST_OPTION_REATTACH_OPTIONS)
			opts[n++] = req->request_options[i];
	if (it->o.reattachable) {
		ro.reattachable = true;
		opt.request_option_case =
		    SPARK__CONNECT__EXECUTE_PLAN_REQUEST__REQUEST_OPTION__REQUEST_OPTION_REATTACH_OPTIONS;
		opt.reattach_options = &ro;
		opts[n++] = &opt;
	}
	r.request_options = opts;
	r.n_request_options = n;
	it->exec = sc_proto_pack_alloc(&r.base, &it->exec_len);
	free(opts);
	it->need_execute = true;
	return it;
}

struct sc_reattach *
sc_reattach_execute(struct sc_client *c, const struct sc_plan *p,
    const struct sc_reattach_exec *x, const struct sc_reattach_opts *o,
    struct sc_error *err)
{
	Spark__Connect__ExecutePlanRequest req =
	    SPARK__CONNECT__EXECUTE_PLAN_REQUEST__INIT;

	sc_plan_attach(p, &req.base);
	if (x != NULL) {
		req.n_tags = x->ntags;
		req.tags = (char **)x->tags;
		if (x->operation_id != NULL) {
			req._operation_id_case =
			    SPARK__CONNECT__EXECUTE_PLAN_REQUEST___OPERATION_ID_OPERATION_ID;
			req.operation_id = (char *)x->operation_id;
		}
	}
	return sc_reattach_open(c, &req, o, err);
}

struct sc_reattach *
sc_reattach_attach(struct sc_client *c, const char *operation_id,
    const char *after, const struct sc_reattach_opts *o, struct sc_error *err)
{
	struct sc_reattach *it;

	it = it_new(c, o);
	if (set_opid(it, operation_id, err) == -1) {
		it_free(it);
		return NULL;
	}
	/* Attaching is only meaningful for a reattachable operation. */
	it->o.reattachable = true;
	it->attach = true;
	if (after != NULL && after[0] != '\0') {
		it->last_rid = sc_xstrdup(after);
		(void)note_id(it,
		    after); /* the server must not send it again */
	}
	return it;
}

const char *
sc_reattach_operation_id(const struct sc_reattach *it)
{
	return it->opid;
}

uint64_t
sc_reattach_streams(const struct sc_reattach *it)
{
	return it->nstreams;
}

const char *
sc_reattach_last_response_id(const struct sc_reattach *it)
{
	return it->last_rid;
}

/* ------------------------------------------------------------ helpers */

/* FNV-1a of a response id; never 0, which marks a free slot. */
static uint64_t
id_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h != 0 ? h : 1;
}

/*
 * Record response id rid: false if it was seen before in this operation
 * (a server replaying responses the client has, which would repeat
 * rows), else true.  One 64-bit hash per response: 8 to 16 bytes each,
 * a few hundred kilobytes for the largest results.
 */
static bool
note_id(struct sc_reattach *it, const char *rid)
{
	uint64_t h = id_hash(rid), *old;
	size_t i, j, oldcap;

	if (it->nseen + 1 > it->seencap / 2) {
		old = it->seen;
		oldcap = it->seencap;
		it->seencap = oldcap == 0 ? 64 : oldcap * 2;
		it->seen = sc_xcalloc(it->seencap, sizeof(*it->seen));
		for (i = 0; i < oldcap; i++) {
			if (old[i] == 0)
				continue;
			for (j = old[i] & (it->seencap - 1); it->seen[j] != 0;
			     j = (j + 1) & (it->seencap - 1))
				;
			it->seen[j] = old[i];
		}
		free(old);
	}
	for (j = h & (it->seencap - 1); it->seen[j] != 0;
	     j = (j + 1) & (it->seencap - 1))
		if (it->seen[j] == h)
			return false;
	it->seen[j] = h;
	it->nseen++;
	return true;
}

static void emit(struct sc_reattach *it, enum sc_client_event_kind kind,
    const struct sc_error *e, enum sc_retry_reason why, int64_t delay,
    int attempt, int max, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

static void
emit(struct sc_reattach *it, enum sc_client_event_kind kind,
    const struct sc_error *e, enum sc_retry_reason why, int64_t delay,
    int attempt, int max, const char *fmt, ...)
{
	struct sc_client_event ev;
	char text[1400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.operation_id = it->opid;
	ev.response_id = it->last_rid;
	ev.reason = why;
	ev.delay_ms = delay;
	ev.attempt = attempt;
	ev.max_attempts = max;
	ev.err = e;
	ev.text = text;
	sc_client_emit(it->c, &ev);
}

/* Drop the current stream (cancelling it if still running). */
static void
close_stream(struct sc_reattach *it)
{
	void *st;

	pthread_mutex_lock(&it->lock);
	st = it->stream;
	it->stream = NULL;
	pthread_mutex_unlock(&it->lock);
	sc_client_stream_free(it->c, st);
}

/* Queue ReleaseAll once, if the server may hold the operation. */
static void
release_all_once(struct sc_reattach *it)
{
	bool go = false;

	pthread_mutex_lock(&it->lock);
	if (it->o.reattachable && !it->released &&
	    (it->attach || it->nstreams > 0)) {
		it->released = true;
		go = true;
	}
	pthread_mutex_unlock(&it->lock);
	if (go)
		sc_client_release_async(it->c, it->opid, NULL, it->o.deadline);
}

static bool
is_aborted(struct sc_reattach *it)
{
	bool a;

	pthread_mutex_lock(&it->lock);
	a = it->aborted;
	pthread_mutex_unlock(&it->lock);
	return a;
}

bool
sc_reattach_left(const struct sc_error *e)
{
	return e->status == SC_ST_NOTFOUND || e->status == SC_ST_UNAVAILABLE ||
	    e->status == SC_ST_TIMEOUT ||
	    strncmp(e->errclass, "INVALID_CURSOR.", 15) == 0;
}

static int
fail(struct sc_reattach *it, const struct sc_error *e, struct sc_error *err)
{
	close_stream(it);
	it->state = ST_FAILED;
	it->final_err = *e;
	if (e->status == SC_ST_DENIED || (it->attach && sc_reattach_left(e))) {
		/*
		 * Refused for who we are: a release would be refused too.
		 * Attached to someone's operation and the server is gone,
		 * slow or no longer has it, or our cursor is not valid (its
		 * responses went to another client, who is reading it): leave
		 * it where it is, so the next --attach (or its owner) still
		 * finds it.
		 */
		pthread_mutex_lock(&it->lock);
		it->released = true;
		pthread_mutex_unlock(&it->lock);
	}
	release_all_once(it);
	if (err != NULL)
		*err = *e;
	return -1;
}

static int
fail_interrupted(struct sc_reattach *it, struct sc_error *err)
{
	struct sc_error e;

	sc_error_init(&e);
	sc_error_set(&e, SC_ST_FAILED, "operation %s interrupted", it->opid);
	return fail(it, &e, err);
}

static bool
has_class(const struct sc_error *e, const char *cls)
{
	return strcmp(e->errclass, cls) == 0 || strstr(e->msg, cls) != NULL;
}

/* Sleep ms unless aborted first: 0, or -1 when aborted. */
static int
backoff_sleep(struct sc_reattach *it, int64_t ms)
{
	struct timespec until;
	int rc;

	if (it->o.sleep != NULL)
		return it->o.sleep(it->o.sleep_arg, ms) == 0 && !is_aborted(it)
		    ? 0
		    : -1;
	sc_deadline_in_ms(&until, ms);
	pthread_mutex_lock(&it->lock);
	while (!it->aborted)
		if (pthread_cond_timedwait(&it->cond, &it->lock, &until) ==
		    ETIMEDOUT)
			break;
	rc = it->aborted ? -1 : 0;
	pthread_mutex_unlock(&it->lock);
	return rc;
}

/* snprintf for messages, where cutting a long one short is fine. */
static void msgf(char *out, size_t outsz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
msgf(char *out, size_t outsz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, outsz, fmt, ap);
	va_end(ap);
}

/* The deadline came while a retry waited out e. */
static int
fail_deadline(struct sc_reattach *it, const struct sc_error *e,
    struct sc_error *err)
{
	struct sc_error f = *e;
	char what[64];

	snprintf(what, sizeof(what), "operation %s", it->opid);
	sc_client_timed_out(what, &f);
	return fail(it, &f, err);
}

/* The server did not answer for the client's unreachable limit. */
static int
fail_silent(struct sc_reattach *it, const struct sc_error *e,
    struct sc_error *err)
{
	struct sc_error f = *e;
	char secs[SC_CLIENT_SECS_STRLEN];
	const char *t = sc_client_target(it->c);

	sc_client_format_secs(sc_client_unreachable_ms(it->c), secs);
	msgf(f.msg, sizeof(f.msg),
	    "operation %s: %s (no answer from %s%s%s for %s, gave up after %d %s)",
	    it->opid, e->msg, t[0] != '\0' ? "'" : "",
	    t[0] != '\0' ? t : "the server", t[0] != '\0' ? "'" : "", secs,
	    it->rs.attempt, it->rs.attempt == 1 ? "retry" : "retries");
	return fail(it, &f, err);
}

/* Tell the user about the retry to come (-v and a progress line). */
static void
retry_event(struct sc_reattach *it, const struct sc_error *e,
    enum sc_retry_reason why, int64_t delay, int max)
{
	struct sc_client_event ev;
	char secs[SC_CLIENT_SECS_STRLEN], quiet[SC_CLIENT_SECS_STRLEN];
	char limit[SC_CLIENT_SECS_STRLEN], text[1400], status[400], more[96];
	const char *t = sc_client_target(it->c);
	const char *verb = it->need_execute ? "retrying" : "reattaching";

	memset(&ev, 0, sizeof(ev));
	ev.silent_ms = sc_client_silent_ms(it->c);
	ev.give_up_ms = sc_client_unreachable_ms(it->c);
	sc_client_format_secs(delay, secs);
	if (why == SC_RETRY_UNAVAILABLE && ev.silent_ms >= 0) {
		/* Nothing answers: say whom we call, and for how long. */
		more[0] = '\0';
		sc_client_format_secs(ev.silent_ms, quiet);
		sc_client_format_secs(ev.give_up_ms, limit);
		if (ev.silent_ms >= 1000 && ev.give_up_ms > 0)
			msgf(more, sizeof(more),
			    " (no answer for %s; giving up at %s)", quiet,
			    limit);
		else if (ev.silent_ms >= 1000)
			msgf(more, sizeof(more), " (no answer for %s)", quiet);
		msgf(text, sizeof(text),
		    "reconnecting%s%s%s, attempt %d of %d, %s in %s%s",
		    t[0] != '\0' ? " to '" : "", t, t[0] != '\0' ? "'" : "",
		    it->rs.attempt, max, verb, secs, more);
	} else
		msgf(text, sizeof(text), "%s, %s in %s (attempt %d of %d)",
		    sc_retry_reason_str(why), verb, secs, it->rs.attempt, max);
	sc_client_retry_status(it->c, why, it->rs.attempt, delay, ev.silent_ms,
	    status, sizeof(status));
	ev.kind = SC_CLIENT_EV_RETRY;
	ev.operation_id = it->opid;
	ev.response_id = it->last_rid;
	ev.reason = why;
	ev.delay_ms = delay;
	ev.attempt = it->rs.attempt;
	ev.max_attempts = max;
	ev.err = e;
	ev.text = text;
	ev.status = status;
	sc_client_emit(it->c, &ev);
}

/*
 * Spend one attempt of the current budget on e (reason why): wait the
 * backoff and return 0 so the caller opens a new stream, or fail.  The
 * wait is cut short so the next attempt comes by the deadline and by
 * the end of the time the server may stay silent (core/retry.h); when
 * either has come, fail with its error.
 */
static int
backoff(struct sc_reattach *it, const struct sc_error *e,
    enum sc_retry_reason why, struct sc_error *err)
{
	struct sc_retry_policy pol = it->o.policy;
	struct sc_error last = *e;
	int64_t delay, left, took;
	size_t n;

	pol.max_retries = sc_client_max_retries(it->c, &it->o.policy);
	delay =
	    sc_retry_next_delay(&pol, &it->rs, e->retry_delay_ms, it->o.rnd());
	if (delay < 0) {
		/*
		 * The streak's wall time: a hung peer makes each try slow.
		 * At least the waits (a test's sleeps take no time).
		 */
		took = sc_mono_ms() - it->rs.started_ms;
		if (took < it->rs.elapsed_ms)
			took = it->rs.elapsed_ms;
		took /= 1000;
		n = strlen(last.msg);
		if (it->rs.attempt > 0)
			snprintf(last.msg + n, sizeof(last.msg) - n,
			    " (gave up after %d %s in %llds)", it->rs.attempt,
			    it->rs.attempt == 1 ? "retry" : "retries",
			    (long long)took);
		return fail(it, &last, err);
	}
	if ((left = sc_client_silence_left(it->c)) == 0) {
		it->rs.attempt--; /* this one is not made */
		return fail_silent(it, &last, err);
	}
	delay = sc_retry_cap(delay, left);
	if (it->o.deadline != NULL) {
		if ((left = sc_ms_until(it->o.deadline)) <= 0)
			return fail_deadline(it, &last, err);
		delay = sc_retry_cap(delay, left);
	}
	retry_event(it, e, why, delay, pol.max_retries);
	if (backoff_sleep(it, delay) == -1)
		return fail_interrupted(it, err);
	if (it->o.deadline != NULL && sc_ms_until(it->o.deadline) <= 0)
		return fail_deadline(it, &last, err);
	return 0;
}

/*
 * Whether the caller's deadline has come.  A timeout that ends within a
 * few ms before it is the deadline's own (gRPC's deadline and our waits
 * may end a little early): e is taken as the deadline then, rather than
 * as a failure to retry for the last milliseconds.
 */
#define DEADLINE_SLACK_MS 10

static bool
deadline_came(const struct sc_reattach *it, const struct sc_error *e)
{
	int64_t left;

	if (it->o.deadline == NULL)
		return false;
	if ((left = sc_ms_until(it->o.deadline)) <= 0)
		return true;
	return left <= DEADLINE_SLACK_MS && e != NULL &&
	    (e->status == SC_ST_TIMEOUT ||
		e->rpc_code == SC_GRPC_DEADLINE_EXCEEDED);
}

/*
 * The session is there but the operation we were reading is not (e),
 * after it sent responses or detached our stream (so it held the
 * operation): the server ended it on purpose.  Spark 4 removes an
 * operation that an Interrupt reaches before it started (the stream
 * ends INVALID_CURSOR.DISCONNECTED) or as it finishes (the next
 * reattach finds nothing), and one another client released; what it
 * forgets by accident goes with its session (SESSION_NOT_FOUND).  So the
 * operation was canceled, not lost: no RESPONSE_ALREADY_RECEIVED, and
 * no ExecutePlan sent again (Spark would call it abandoned).
 */
static int
fail_ended(struct sc_reattach *it, const struct sc_error *e,
    struct sc_error *err)
{
	struct sc_error f;

	sc_error_init(&f);
	if (it->nresp == 0)
		sc_error_set(&f, SC_ST_FAILED,
		    "[OPERATION_CANCELED] the server ended operation %s (interrupted, or released by another client) before any response",
		    it->opid);
	else
		sc_error_set(&f, SC_ST_FAILED,
		    "[OPERATION_CANCELED] the server ended operation %s (interrupted, or released by another client) after %llu responses were received; the result is incomplete",
		    it->opid, (unsigned long long)it->nresp);
	f.rpc_code = e->rpc_code;
	snprintf(f.errclass, sizeof(f.errclass), "%s", "OPERATION_CANCELED");
	return fail(it, &f, err);
}

/*
 * A stream failed with e (or could not be opened).  Decide: 0 to open
 * another stream, -1 (err set) to give up.
 */
static int
handle_failure(struct sc_reattach *it, const struct sc_error *e,
    struct sc_error *err)
{
	struct sc_error f;
	enum sc_retry_reason why;
	bool watchdog, held = it->disconnected;

	it->disconnected = false;
	close_stream(it);
	if (is_aborted(it))
		return fail_interrupted(it, err);
	if (deadline_came(it, e)) {
		sc_error_init(&f);
		sc_error_set(&f, SC_ST_TIMEOUT, "operation %s timed out",
		    it->opid);
		return fail(it, &f, err);
	}
	watchdog = e->status == SC_ST_TIMEOUT && e->rpc_code == -1;

	if (!it->o.reattachable) {
		/* Without reattach only a request that produced nothing may
		 * be sent again (as Spark's clients do). */
		if (it->nresp == 0 && !watchdog && sc_retry_classify(e, &why)) {
			it->need_execute = true;
			return backoff(it, e, why, err);
		}
		return fail(it, e, err);
	}

	if (watchdog)
		return backoff(it, e, SC_RETRY_NO_PROGRESS, err);
	if (e->rpc_code == SC_GRPC_DEADLINE_EXCEEDED)
		return backoff(it, e, SC_RETRY_DEADLINE, err);

	if (it->nresp == 0 && it->attach &&
	    has_class(e, "INVALID_HANDLE.SESSION_CLOSED")) {
		/* The session, and every operation in it, is gone. */
		f = *e;
		f.status = SC_ST_NOTFOUND;
		return fail(it, &f, err);
	}
	if (has_class(e, "INVALID_HANDLE.OPERATION_NOT_FOUND") &&
	    (it->nresp > 0 || held))
		return fail_ended(it, e, err);
	if (has_class(e, "INVALID_HANDLE.OPERATION_NOT_FOUND") ||
	    has_class(e, "INVALID_HANDLE.SESSION_NOT_FOUND")) {
		if (it->nresp == 0 && it->attach) {
			f = *e;
			f.status = SC_ST_NOTFOUND;
			return fail(it, &f, err);
		}
		if (it->nresp == 0) {
			/* The ExecutePlan never reached the server: send the
			 * same request again, and read that stream (never
			 * also reattach: SPARK-44833). */
			if (it->resends >= it->o.policy.max_retries)
				return fail(it, e, err);
			it->resends++;
			it->need_execute = true;
			emit(it, SC_CLIENT_EV_RESEND, e, SC_RETRY_UNAVAILABLE,
			    0, it->resends, it->o.policy.max_retries,
			    "operation %s unknown to the server before any "
			    "response; sending ExecutePlan again (%d of %d)",
			    it->opid, it->resends, it->o.policy.max_retries);
			return 0;
		}
		sc_error_init(&f);
		sc_error_set(&f, SC_ST_FAILED,
		    "[RESPONSE_ALREADY_RECEIVED] "
		    "the server lost operation %s after %llu responses were "
		    "received (%s); the result is incomplete",
		    it->opid, (unsigned long long)it->nresp,
		    e->errclass[0] != '\0' ? e->errclass : e->msg);
		f.rpc_code = e->rpc_code;
		snprintf(f.errclass, sizeof(f.errclass), "%s",
		    "RESPONSE_ALREADY_RECEIVED");
		return fail(it, &f, err);
	}
	if (has_class(e, "INVALID_HANDLE.OPERATION_ABANDONED")) {
		f = *e;
		f.status = SC_ST_NOTFOUND;
		return fail(it, &f, err);
	}
	if (sc_retry_classify(e, &why)) {
		it->disconnected = why == SC_RETRY_DISCONNECTED;
		return backoff(it, e, why, err);
	}
	return fail(it, e, err);
}

/* Open the next stream: ExecutePlan, or ReattachExecute. */
static int
open_stream(struct sc_reattach *it, struct sc_error *e)
{
	Spark__Connect__ReattachExecuteRequest r =
	    SPARK__CONNECT__REATTACH_EXECUTE_REQUEST__INIT;
	struct timespec dl, *dlp = NULL;
	const char *method;
	uint8_t *bytes = NULL;
	const uint8_t *req;
	size_t len;
	void *st;

	if (it->o.segment_ms > 0) {
		sc_deadline_in_ms(&dl, it->o.segment_ms);
		dlp = &dl;
	}
	if (it->o.deadline != NULL &&
	    (dlp == NULL || sc_ms_until(it->o.deadline) < sc_ms_until(dlp))) {
		dl = *it->o.deadline;
		dlp = &dl;
	}
	if (it->need_execute) {
		method = SC_METHOD_EXECUTE_PLAN;
		req = it->exec;
		len = it->exec_len;
		if (it->nstreams == 0)
			emit(it, SC_CLIENT_EV_EXECUTE, NULL, 0, 0, 0, 0,
			    "executing operation %s", it->opid);
	} else {
		sc_client_stamp(it->c, &r.base);
		r.operation_id = it->opid;
		if (it->last_rid != NULL) {
			r._last_response_id_case =
			    SPARK__CONNECT__REATTACH_EXECUTE_REQUEST___LAST_RESPONSE_ID_LAST_RESPONSE_ID;
			r.last_response_id = it->last_rid;
		}
		bytes = sc_proto_pack_alloc(&r.base, &len);
		method = SC_METHOD_REATTACH_EXECUTE;
		req = bytes;
		if (it->last_rid != NULL)
			emit(it, SC_CLIENT_EV_REATTACH, NULL, 0, 0, 0, 0,
			    "attaching to operation %s after response %s",
			    it->opid, it->last_rid);
		else
			emit(it, SC_CLIENT_EV_REATTACH, NULL, 0, 0, 0, 0,
			    "attaching to operation %s from the start",
			    it->opid);
	}
	/*
	 * Counted before the request goes, under the lock sc_reattach_abort()
	 * takes: either the abort comes first and nothing is sent, or the
	 * server may hold the operation from here on (even if opening fails)
	 * and the abort releases it.
	 */
	pthread_mutex_lock(&it->lock);
	if (it->aborted) {
		pthread_mutex_unlock(&it->lock);
		free(bytes);
		return sc_error_set(e, SC_ST_FAILED, "operation %s interrupted",
		    it->opid);
	}
	it->nstreams++;
	pthread_mutex_unlock(&it->lock);
	st = sc_client_stream_open(it->c, method, req, len, dlp, e);
	free(bytes);
	pthread_mutex_lock(&it->lock);
	if (st != NULL && it->aborted) {
		pthread_mutex_unlock(&it->lock);
		sc_client_stream_free(it->c, st);
		sc_error_set(e, SC_ST_FAILED, "operation %s interrupted",
		    it->opid);
		return -1;
	}
	it->stream = st;
	pthread_mutex_unlock(&it->lock);
	/*
	 * Even a failed ExecutePlan may have reached the server: what
	 * follows is a reattach, and NOT_FOUND then brings the re-send.
	 */
	it->need_execute = false;
	if (st == NULL)
		return -1;
	it->stream_start_ms = sc_mono_ms();
	it->stream_nresp = 0;
	return 0;
}

int
sc_reattach_send(struct sc_reattach *it, struct sc_error *err)
{
	struct sc_error e;

	if (it->state == ST_FAILED) {
		if (err != NULL)
			*err = it->final_err;
		return -1;
	}
	if (it->state != ST_RUNNING || it->nstreams > 0)
		return 0;
	if (is_aborted(it))
		return fail_interrupted(it, err);
	sc_error_init(&e);
	/* As sc_reattach_next() would: a failure to open is handled alike. */
	if (open_stream(it, &e) == -1 && handle_failure(it, &e, err) == -1)
		return -1;
	return 0;
}

/* Queue ReleaseUntil of the last response returned, if not done yet. */
static void
release_pending(struct sc_reattach *it)
{
	bool rel;

	if (!it->pending_release)
		return;
	pthread_mutex_lock(&it->lock);
	rel = !it->released;
	pthread_mutex_unlock(&it->lock);
	if (rel)
		sc_client_release_async(it->c, it->opid, it->last_rid,
		    it->o.deadline);
	it->pending_release = false;
	it->unreleased = 0;
}

int
sc_reattach_next(struct sc_reattach *it,
    Spark__Connect__ExecutePlanResponse **resp, struct sc_error *err)
{
	Spark__Connect__ExecutePlanResponse *m;
	struct timespec wu, *wup;
	struct sc_error e;
	int r;

	if (it->state == ST_DONE)
		return 0;
	if (it->state == ST_FAILED) {
		if (err != NULL)
			*err = it->final_err;
		return -1;
	}
	if (is_aborted(it))
		return fail_interrupted(it, err);
	/* The caller is done with the previous response. */
	if (it->unreleased >= RELEASE_EVERY)
		release_pending(it);
	for (;;) {
		sc_error_init(&e);
		if (is_aborted(it))
			return fail_interrupted(it, err);
		/* A new stream: what was read is released first. */
		if (it->stream == NULL)
			release_pending(it);
		if (it->stream == NULL && open_stream(it, &e) == -1) {
			if (handle_failure(it, &e, err) == -1)
				return -1;
			continue;
		}
		wup = NULL;
		if (it->o.watchdog_ms > 0) {
			sc_deadline_in_ms(&wu, it->o.watchdog_ms);
			wup = &wu;
		}
		if (it->o.deadline != NULL &&
		    (wup == NULL ||
			sc_ms_until(it->o.deadline) < sc_ms_until(wup))) {
			wu = *it->o.deadline;
			wup = &wu;
		}
		r = sc_client_stream_read(it->c, it->stream, &it->msg, wup, &e);
		if (r == 1) {
			m = sc_proto_unpack(
			    &spark__connect__execute_plan_response__descriptor,
			    it->msg.data, it->msg.len, &e);
			if (m == NULL)
				return fail(it, &e, err);
			if (sc_client_check_response(it->c, &m->base, it->opid,
				it->o.reattachable, &e) == -1) {
				protobuf_c_message_free_unpacked(&m->base,
				    NULL);
				return fail(it, &e, err);
			}
			it->nresp++;
			it->stream_nresp++;
			it->disconnected = false;
			/* Progress: the next failure gets a fresh budget. */
			sc_retry_state_init(&it->rs, &it->o.policy);
			if (m->response_type_case ==
			    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_RESULT_COMPLETE) {
				protobuf_c_message_free_unpacked(&m->base,
				    NULL);
				close_stream(it);
				it->state = ST_DONE;
				emit(it, SC_CLIENT_EV_COMPLETE, NULL, 0, 0, 0,
				    0,
				    "operation %s complete after %llu "
				    "responses on %llu stream%s",
				    it->opid, (unsigned long long)it->nresp,
				    (unsigned long long)it->nstreams,
				    it->nstreams == 1 ? "" : "s");
				release_all_once(it);
				return 0;
			}
			if (m->response_id != NULL &&
			    m->response_id[0] != '\0' &&
			    !note_id(it, m->response_id)) {
				sc_error_set(&e, SC_ST_PROTOCOL,
				    "server sent response '%s' of operation %s a second time (on stream %llu, after '%s'); refusing to repeat its rows",
				    m->response_id, it->opid,
				    (unsigned long long)it->nstreams,
				    it->last_rid != NULL ? it->last_rid : "");
				protobuf_c_message_free_unpacked(&m->base,
				    NULL);
				return fail(it, &e, err);
			}
			if (m->response_id != NULL &&
			    m->response_id[0] != '\0') {
				free(it->last_rid);
				it->last_rid = sc_xstrdup(m->response_id);
				it->unreleased += it->msg.len;
				it->pending_release = it->o.reattachable;
			}
			*resp = m;
			return 1;
		}
		if (r == 0) {
			close_stream(it);
			if (!it->o.reattachable) {
				it->state = ST_DONE;
				return 0;
			}
			if (it->stream_nresp == 0 &&
			    sc_mono_ms() - it->stream_start_ms <
				it->o.min_rotation_ms) {
				sc_error_set(&e, SC_ST_PROTOCOL,
				    "the stream "
				    "of operation %s ended at once without a "
				    "response or ResultComplete",
				    it->opid);
				if (backoff(it, &e, SC_RETRY_STREAM_END, err) ==
				    -1)
					return -1;
				continue;
			}
			/* A normal rotation: the server is alive and well. */
			sc_retry_state_init(&it->rs, &it->o.policy);
			emit(it, SC_CLIENT_EV_ROTATION, NULL,
			    SC_RETRY_STREAM_END, 0, 0, 0,
			    "stream of "
			    "operation %s ended after %llu responses without "
			    "ResultComplete; reattaching",
			    it->opid, (unsigned long long)it->stream_nresp);
			continue;
		}
		if (handle_failure(it, &e, err) == -1)
			return -1;
	}
}

int
sc_reattach_next_result(struct sc_reattach *it, struct sc_result *r,
    struct sc_error *err)
{
	Spark__Connect__ExecutePlanResponse *m;
	int k;

	if ((k = sc_reattach_next(it, &m, err)) == 1)
		sc_result_init(r, m);
	return k;
}

void
sc_reattach_abort(struct sc_reattach *it)
{
	pthread_mutex_lock(&it->lock);
	it->aborted = true;
	if (it->stream != NULL)
		sc_client_stream_cancel(it->c, it->stream);
	pthread_cond_broadcast(&it->cond);
	pthread_mutex_unlock(&it->lock);
	/* A completed operation was released already (released is set). */
	release_all_once(it);
}

bool
sc_reattach_aborted(struct sc_reattach *it)
{
	return is_aborted(it);
}

void
sc_reattach_close(struct sc_reattach *it)
{
	if (it == NULL)
		return;
	close_stream(it);
	release_all_once(it);
	it_free(it);
}

void
sc_reattach_detach(struct sc_reattach *it)
{
	if (it == NULL)
		return;
	close_stream(it);
	it_free(it);
}
