/* SPDX-License-Identifier: MIT */

/*
 * test-reattach.c: the reattach loop and the release worker against a
 * scripted fake transport.  Each script is a list of streams; each stream
 * a list of steps (a response, ResultComplete, a clean end, an error, a
 * stall).  The fake records every request, cancellation and release, and
 * the sleep hook records backoff delays instead of sleeping.
 */

#include "core/reattach.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/client.h"
#include "core/timeutil.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

#define SID "00112233-4455-6677-8899-aabbccddeeff"
#define NF_MSG                                                    \
	"[INVALID_HANDLE.OPERATION_NOT_FOUND] The handle `x` is " \
	"invalid. Operation not found. SQLSTATE: HY000"

enum step_kind {
	S_NONE = 0, /* end of the step list: behaves as S_END */
	S_RESP, /* a response with id rid */
	S_COMPLETE, /* ResultComplete */
	S_END, /* stream ends with OK */
	S_ERR, /* stream fails with gRPC code and msg */
	S_OPEN_FAIL, /* (first step only) opening fails */
	S_STALL /* nothing arrives before wait_until */
};

struct step {
	enum step_kind kind;
	const char *rid; /* S_RESP */
	int code; /* S_ERR, S_OPEN_FAIL */
	const char *msg;
	const char *sid; /* override session id */
	const char *ssid; /* server-side session id */
};

#define MAXSTEPS 8
#define MAXSEGS 16
#define MAXLOG 64

struct seg {
	struct step steps[MAXSTEPS];
};

struct opened {
	char method[16]; /* "execute" or "reattach" */
	char opid[64];
	char last[64]; /* "" if none */
	char observed[64]; /* client_observed_ssid or "" */
	bool reattachable; /* ExecutePlan: option present */
	uint8_t *bytes;
	size_t len;
	bool had_deadline;
};

struct rel {
	char opid[64];
	char rid[64]; /* "" for ReleaseAll */
};

struct fake {
	struct seg segs[MAXSEGS];
	int nsegs, cur;
	struct opened opens[MAXSEGS];
	int nopens;
	int cancels, frees, stalls_with_wait;
	int64_t sleeps[MAXLOG];
	int nsleeps;
	int64_t now; /* the client's clock: f_sleep and f_unary move it */
	int64_t unary_ms; /* each ReleaseExecute takes this long */
	int unary_code; /* gRPC code of the failures rel_fail makes */

	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct rel rels[MAXLOG];
	int nrels;
	int rel_fail; /* fail this many releases (UNAVAILABLE) */
	bool gate_closed; /* block releases until opened */
	int in_unary;
	int nstarts; /* two-step calls started */
	bool hold; /* two-step replies not there for a look */
	/* Abort this iterator while its stream is being opened (a signal
	   arriving mid-ExecutePlan); releases seen right after the abort. */
	struct sc_reattach *abort_it;
	struct sc_client *abort_c;
	int rels_at_abort;
};

struct fstream {
	struct fake *f;
	int seg, pos;
	char opid[64];
};

static struct fake F;

static void
fake_reset(void)
{
	int i;

	for (i = 0; i < F.nopens; i++)
		free(F.opens[i].bytes);
	pthread_mutex_destroy(&F.lock);
	pthread_cond_destroy(&F.cond);
	memset(&F, 0, sizeof(F));
	pthread_mutex_init(&F.lock, NULL);
	pthread_cond_init(&F.cond, NULL);
}

static void *
f_open(void *ctx, const char *method, const void *req, size_t reqlen,
    const struct timespec *deadline, struct sc_error *err)
{
	struct fake *f = ctx;
	struct opened *o;
	struct fstream *s;
	struct seg *sg;
	size_t i;

	if (f->abort_it != NULL) {
		struct timespec dl;

		sc_reattach_abort(f->abort_it);
		f->abort_it = NULL;
		sc_deadline_in_ms(&dl, 5000);
		sc_client_release_wait(f->abort_c, &dl);
		pthread_mutex_lock(&f->lock);
		f->rels_at_abort = f->nrels;
		pthread_mutex_unlock(&f->lock);
	}
	if (f->nopens >= MAXSEGS || f->cur >= f->nsegs) {
		sc_error_from_grpc(err, SC_GRPC_FAILED_PRECONDITION,
		    "script exhausted", NULL, 0);
		return NULL;
	}
	o = &f->opens[f->nopens++];
	o->bytes = sc_xmemdup(req, reqlen);
	o->len = reqlen;
	o->had_deadline = deadline != NULL;
	if (strcmp(method, SC_METHOD_EXECUTE_PLAN) == 0) {
		Spark__Connect__ExecutePlanRequest *r = sc_proto_unpack(
		    &spark__connect__execute_plan_request__descriptor, req,
		    reqlen, NULL);
		snprintf(o->method, sizeof(o->method), "execute");
		snprintf(o->opid, sizeof(o->opid), "%s", r->operation_id);
		for (i = 0; i < r->n_request_options; i++)
			if (r->request_options[i]->request_option_case ==
				SPARK__CONNECT__EXECUTE_PLAN_REQUEST__REQUEST_OPTION__REQUEST_OPTION_REATTACH_OPTIONS &&
			    r->request_options[i]
				->reattach_options->reattachable)
				o->reattachable = true;
		if (r->_client_observed_server_side_session_id_case != 0)
			snprintf(o->observed, sizeof(o->observed), "%s",
			    r->client_observed_server_side_session_id);
		protobuf_c_message_free_unpacked(&r->base, NULL);
	} else {
		Spark__Connect__ReattachExecuteRequest *r = sc_proto_unpack(
		    &spark__connect__reattach_execute_request__descriptor, req,
		    reqlen, NULL);
		snprintf(o->method, sizeof(o->method), "reattach");
		snprintf(o->opid, sizeof(o->opid), "%s", r->operation_id);
		if (r->_last_response_id_case != 0)
			snprintf(o->last, sizeof(o->last), "%s",
			    r->last_response_id);
		if (r->_client_observed_server_side_session_id_case != 0)
			snprintf(o->observed, sizeof(o->observed), "%s",
			    r->client_observed_server_side_session_id);
		protobuf_c_message_free_unpacked(&r->base, NULL);
	}
	sg = &f->segs[f->cur++];
	if (sg->steps[0].kind == S_OPEN_FAIL) {
		sc_error_from_grpc(err, sg->steps[0].code, sg->steps[0].msg,
		    NULL, 0);
		return NULL;
	}
	s = sc_xcalloc(1, sizeof(*s));
	s->f = f;
	s->seg = f->cur - 1;
	snprintf(s->opid, sizeof(s->opid), "%s", o->opid);
	return s;
}

static int
f_read(void *stream, struct sc_buf *msg, const struct timespec *wait_until,
    struct sc_error *err)
{
	struct fstream *s = stream;
	Spark__Connect__ExecutePlanResponse r =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
	Spark__Connect__ExecutePlanResponse__ResultComplete rc =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESULT_COMPLETE__INIT;
	const struct step *st;

	if (s->pos >= MAXSTEPS)
		return 0;
	st = &s->f->segs[s->seg].steps[s->pos++];
	switch (st->kind) {
	case S_NONE:
	case S_END:
	case S_OPEN_FAIL:
		return 0;
	case S_ERR:
		return sc_error_from_grpc(err, st->code, st->msg, NULL, 0);
	case S_STALL:
		if (wait_until != NULL)
			s->f->stalls_with_wait++;
		sc_error_set(err, SC_ST_TIMEOUT, "no message in time");
		return -1;
	case S_RESP:
	case S_COMPLETE:
		break;
	}
	r.session_id = (char *)(st->sid != NULL ? st->sid : SID);
	r.server_side_session_id = (char *)(st->ssid != NULL ? st->ssid : "");
	r.operation_id = s->opid;
	r.response_id = (char *)(st->rid != NULL ? st->rid : "rc");
	if (st->kind == S_COMPLETE) {
		r.response_type_case =
		    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_RESULT_COMPLETE;
		r.result_complete = &rc;
	}
	sc_buf_reset(msg);
	sc_proto_pack(&r.base, msg, NULL);
	return 1;
}

static void
f_cancel(void *stream)
{
	((struct fstream *)stream)->f->cancels++;
}

static void
f_sfree(void *stream)
{
	((struct fstream *)stream)->f->frees++;
	free(stream);
}

static int
f_unary(void *ctx, const char *method, const void *req, size_t reqlen,
    struct sc_buf *resp, const struct timespec *deadline, struct sc_error *err)
{
	struct fake *f = ctx;
	Spark__Connect__ReleaseExecuteRequest *r;
	Spark__Connect__ReleaseExecuteResponse out =
	    SPARK__CONNECT__RELEASE_EXECUTE_RESPONSE__INIT;
	struct rel *l;
	int rc = 0;

	(void)deadline;
	if (strcmp(method, SC_METHOD_RELEASE_EXECUTE) != 0)
		return sc_error_from_grpc(err, SC_GRPC_UNIMPLEMENTED,
		    "unexpected method", NULL, 0);
	r = sc_proto_unpack(
	    &spark__connect__release_execute_request__descriptor, req, reqlen,
	    NULL);
	pthread_mutex_lock(&f->lock);
	f->in_unary++;
	f->now += f->unary_ms;
	pthread_cond_broadcast(&f->cond);
	while (f->gate_closed)
		pthread_cond_wait(&f->cond, &f->lock);
	if (f->rel_fail > 0) {
		f->rel_fail--;
		rc = sc_error_from_grpc(err,
		    f->unary_code != 0 ? f->unary_code : SC_GRPC_UNAVAILABLE,
		    "connection reset", NULL, 0);
	} else if (f->nrels < MAXLOG) {
		l = &f->rels[f->nrels++];
		snprintf(l->opid, sizeof(l->opid), "%s", r->operation_id);
		if (r->release_case ==
		    SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_RELEASE_UNTIL)
			snprintf(l->rid, sizeof(l->rid), "%s",
			    r->release_until->response_id);
	}
	pthread_mutex_unlock(&f->lock);
	if (rc == 0) {
		out.session_id = (char *)SID;
		sc_proto_pack(&out.base, resp, NULL);
	}
	protobuf_c_message_free_unpacked(&r->base, NULL);
	return rc;
}

static const struct sc_transport fake_transport = { f_open, f_read, f_cancel,
	f_sfree, f_unary, NULL, NULL, NULL };

/* The two-step form: the call is answered as it starts, and kept. */
struct ucall {
	int rc;
	struct sc_buf out;
	struct sc_error e;
};

static void *
f_ustart(void *ctx, const char *method, const void *req, size_t reqlen,
    const struct timespec *deadline, struct sc_error *err)
{
	struct ucall *u = sc_xcalloc(1, sizeof(*u));

	(void)err;
	sc_buf_init(&u->out, SC_BUF_UNLIMITED);
	sc_error_init(&u->e);
	u->rc = f_unary(ctx, method, req, reqlen, &u->out, deadline, &u->e);
	pthread_mutex_lock(&F.lock);
	F.nstarts++;
	pthread_mutex_unlock(&F.lock);
	return u;
}

static int
f_ufinish(void *call, const struct timespec *until, struct sc_buf *resp,
    struct sc_error *err)
{
	struct ucall *u = call;
	int rc;

	pthread_mutex_lock(&F.lock);
	if (F.hold && until != NULL) {
		pthread_mutex_unlock(&F.lock);
		return 0;
	}
	pthread_mutex_unlock(&F.lock);
	if (u->rc == 0)
		rc = sc_buf_add(resp, u->out.data, u->out.len, err) == 0 ? 1
									 : -1;
	else {
		*err = u->e;
		rc = -1;
	}
	sc_buf_release(&u->out);
	free(u);
	return rc;
}

static void
f_ucancel(void *call)
{
	(void)call;
}

static const struct sc_transport steps_transport = { f_open, f_read, f_cancel,
	f_sfree, f_unary, f_ustart, f_ufinish, f_ucancel };

static int
f_sleep(void *arg, int64_t ms)
{
	(void)arg;
	if (F.nsleeps < MAXLOG)
		F.sleeps[F.nsleeps++] = ms;
	pthread_mutex_lock(&F.lock);
	F.now += ms;
	pthread_mutex_unlock(&F.lock);
	return 0;
}

static int64_t
f_now(void)
{
	int64_t t;

	pthread_mutex_lock(&F.lock);
	t = F.now;
	pthread_mutex_unlock(&F.lock);
	return t;
}

static uint32_t
zero_rnd(void)
{
	return 0;
}

/* ------------------------------------------------------------- events */

static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static char ev_text[MAXLOG][256];
static char ev_status[MAXLOG][128];
static enum sc_client_event_kind ev_kind[MAXLOG];
static enum sc_retry_reason ev_reason[MAXLOG];
static int64_t ev_silent[MAXLOG];
static int nev;

static void
on_event(const struct sc_client_event *ev, void *arg)
{
	(void)arg;
	pthread_mutex_lock(&ev_lock);
	if (nev < MAXLOG) {
		snprintf(ev_text[nev], sizeof(ev_text[nev]), "%s", ev->text);
		snprintf(ev_status[nev], sizeof(ev_status[nev]), "%s",
		    ev->status != NULL ? ev->status : "");
		ev_silent[nev] = ev->silent_ms;
		ev_kind[nev] = ev->kind;
		ev_reason[nev] = ev->reason;
		nev++;
	}
	pthread_mutex_unlock(&ev_lock);
}

static int
find_event(enum sc_client_event_kind k, int from)
{
	int i;

	for (i = from; i < nev; i++)
		if (ev_kind[i] == k)
			return i;
	return -1;
}

/* ------------------------------------------------------------ helpers */

static struct sc_client *
client_over(const struct sc_transport *t, int connect_retries,
    int64_t unreachable_ms)
{
	struct sc_client_opts o;
	struct sc_retry_policy rp;
	struct sc_client *c;

	sc_retry_policy_default(&rp);
	rp.initial_ms = 1;
	rp.multiplier = 1;
	rp.max_retries = 3;
	memset(&o, 0, sizeof(o));
	o.session_id = SID;
	o.user_id = "tester";
	o.connect_retries = connect_retries;
	o.release_policy = &rp;
	o.unreachable_ms = unreachable_ms;
	o.now_ms = f_now;
	o.on_event = on_event;
	c = sc_client_new_transport(t, &F, NULL, &o, NULL);
	nev = 0;
	return c;
}

static struct sc_client *
client_limit(int connect_retries, int64_t unreachable_ms)
{
	return client_over(&fake_transport, connect_retries, unreachable_ms);
}

static struct sc_client *
client(int connect_retries)
{
	return client_limit(connect_retries, 0);
}

static void
opts(struct sc_reattach_opts *o, int max_retries)
{
	sc_reattach_opts_init(o);
	o->policy.max_retries = max_retries;
	o->policy.jitter_ms = 0;
	o->sleep = f_sleep;
	o->rnd = zero_rnd;
	o->min_rotation_ms = 1000;
}

static Spark__Connect__Plan plan = SPARK__CONNECT__PLAN__INIT;

static struct sc_reattach *
start(struct sc_client *c, const struct sc_reattach_opts *o)
{
	Spark__Connect__ExecutePlanRequest req =
	    SPARK__CONNECT__EXECUTE_PLAN_REQUEST__INIT;

	req.plan = &plan;
	return sc_reattach_open(c, &req, o, NULL);
}

/* Drain the iterator; returns the last sc_reattach_next() result and
 * writes the response ids seen, space-separated, into ids. */
static int
drain(struct sc_reattach *it, char *ids, size_t idsz, struct sc_error *err)
{
	Spark__Connect__ExecutePlanResponse *m;
	size_t n = 0;
	int r;

	ids[0] = '\0';
	while ((r = sc_reattach_next(it, &m, err)) == 1) {
		n += (size_t)snprintf(ids + n, idsz - n, "%s%s", n ? " " : "",
		    m->response_id);
		protobuf_c_message_free_unpacked(&m->base, NULL);
	}
	return r;
}

static void
wait_releases(struct sc_client *c)
{
	struct timespec dl;

	sc_deadline_in_ms(&dl, 5000);
	sc_client_release_wait(c, &dl);
}

#define RESP(id)                                \
	{                                       \
		S_RESP, id, 0, NULL, NULL, NULL \
	}
#define COMPLETE                                      \
	{                                             \
		S_COMPLETE, "rc", 0, NULL, NULL, NULL \
	}
#define END                                      \
	{                                        \
		S_END, NULL, 0, NULL, NULL, NULL \
	}
#define ERR(c, m)                             \
	{                                     \
		S_ERR, NULL, c, m, NULL, NULL \
	}
#define OPENFAIL(c, m)                              \
	{                                           \
		S_OPEN_FAIL, NULL, c, m, NULL, NULL \
	}
#define STALL                                      \
	{                                          \
		S_STALL, NULL, 0, NULL, NULL, NULL \
	}

static void
script(const struct seg *segs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		F.segs[i] = segs[i];
	F.nsegs = n;
}

/* -------------------------------------------------------------- tests */

static void
test_happy(void)
{
	static const struct seg s[] = {
		{ { RESP("r1"), RESP("r2"), COMPLETE } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[256], opid[SC_UUID_STRLEN];
	int r;

	fake_reset();
	script(s, 1);
	c = client(-1);
	opts(&o, 3);
	it = start(c, &o);
	ok(it != NULL && sc_uuid_valid(sc_reattach_operation_id(it)),
	    "happy: operation id generated before the first send");
	snprintf(opid, sizeof(opid), "%s", sc_reattach_operation_id(it));
	is_int(F.nopens, 0, "happy: nothing sent by open");
	r = drain(it, ids, sizeof(ids), &err);
	is_int(r, 0, "happy: ends with 0");
	is_str(ids, "r1 r2",
	    "happy: responses in order, ResultComplete "
	    "not returned");
	is_int(F.nopens, 1, "happy: one stream");
	is_str(F.opens[0].method, "execute", "happy: ExecutePlan sent");
	is_str(F.opens[0].opid, opid, "happy: request carries the id");
	ok(F.opens[0].reattachable, "happy: reattachable option set");
	ok(F.opens[0].had_deadline, "happy: segment deadline set");
	is_int(sc_reattach_next(it, NULL, &err), 0, "happy: 0 again");
	sc_reattach_close(it);
	wait_releases(c);
	ok(F.nrels >= 1 && strcmp(F.rels[F.nrels - 1].rid, "") == 0 &&
		strcmp(F.rels[F.nrels - 1].opid, opid) == 0,
	    "happy: ReleaseAll sent last");
	/*
	 * Before it, ReleaseUntil r1 and r2 as far as the worker got to
	 * them: a pending one is coalesced into a newer one, and the
	 * ReleaseAll replaces one still pending, so any of "", "r1", "r2"
	 * and "r1 r2" may come first, never out of order.
	 */
	ids[0] = '\0';
	for (r = 0; r + 1 < F.nrels; r++)
		snprintf(ids + strlen(ids), sizeof(ids) - strlen(ids), "%s%s",
		    r > 0 ? " " : "", F.rels[r].rid);
	ok(strcmp(ids, "") == 0 || strcmp(ids, "r1") == 0 ||
		strcmp(ids, "r2") == 0 || strcmp(ids, "r1 r2") == 0,
	    "happy: ReleaseUntil in order before it, or coalesced ('%s')", ids);
	is_int(F.frees, 1, "happy: stream freed");
	sc_client_free(c);
}

static void
test_rotation(void)
{
	static const struct seg s[] = {
		{ { RESP("r1"), RESP("r2"), END } },
		{ { RESP("r3"), END } },
		{ { RESP("r4"), COMPLETE } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[256];
	int i;

	fake_reset();
	script(s, 3);
	c = client(-1);
	opts(&o, 3);
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), 0, "rotation: completes");
	is_str(ids, "r1 r2 r3 r4", "rotation: every response once");
	is_int(F.nopens, 3, "rotation: three streams");
	is_str(F.opens[1].method, "reattach", "rotation: ReattachExecute");
	is_str(F.opens[1].last, "r2", "rotation: last_response_id r2");
	is_str(F.opens[2].last, "r3", "rotation: then r3");
	is_str(F.opens[1].opid, F.opens[0].opid, "rotation: same operation");
	is_int(F.nsleeps, 0, "rotation: no backoff for a rotation");
	is_int(sc_reattach_streams(it), 3, "rotation: streams counted");
	i = find_event(SC_CLIENT_EV_ROTATION, 0);
	ok(i >= 0 &&
		strstr(ev_text[i],
		    "ended after 2 responses without "
		    "ResultComplete") != NULL,
	    "rotation: event logged");
	sc_reattach_close(it);
	sc_client_free(c);
}

static void
test_notfound_before(void)
{
	static const struct seg s[] = {
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "connection refused") } },
		{ { ERR(SC_GRPC_INTERNAL, NF_MSG) } },
		{ { RESP("r1"), COMPLETE } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[256];

	fake_reset();
	script(s, 3);
	c = client(-1);
	opts(&o, 3);
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), 0,
	    "notfound-before: completes");
	is_str(ids, "r1", "notfound-before: result from the re-sent plan");
	is_int(F.nopens, 3, "notfound-before: three calls");
	is_str(F.opens[1].method, "reattach",
	    "notfound-before: reattach "
	    "after UNAVAILABLE");
	is_str(F.opens[1].last, "", "notfound-before: no last_response_id");
	is_str(F.opens[2].method, "execute",
	    "notfound-before: ExecutePlan "
	    "re-sent");
	ok(F.opens[2].len == F.opens[0].len &&
		memcmp(F.opens[2].bytes, F.opens[0].bytes, F.opens[0].len) == 0,
	    "notfound-before: the same ExecutePlan bytes");
	is_int(F.nsleeps, 1, "notfound-before: one backoff (UNAVAILABLE)");
	is_int(F.sleeps[0], 50, "notfound-before: 50 ms");
	ok(find_event(SC_CLIENT_EV_RESEND, 0) >= 0,
	    "notfound-before: re-send logged");
	sc_reattach_close(it);
	sc_client_free(c);
}

/*
 * Spark 4 removes an operation an Interrupt reaches before it started
 * (the stream ends INVALID_CURSOR.DISCONNECTED) or as it ends (the next
 * reattach finds nothing): with the session there, an operation not
 * found was ended on purpose, canceled, not lost.
 */
static void
test_notfound_after_interrupt(void)
{
	static const struct seg s[] = {
		{ { RESP("r1"),
		    ERR(SC_GRPC_INTERNAL,
			"[INVALID_CURSOR.DISCONNECTED] The cursor is invalid.") } },
		{ { ERR(SC_GRPC_INTERNAL, NF_MSG) } },
	};
	static const struct seg s2[] = {
		{ { RESP("r1"), END } },
		{ { RESP("r2"), END } },
		{ { ERR(SC_GRPC_INTERNAL, NF_MSG) } },
	};
	static const struct seg s3[] = {
		{ { ERR(SC_GRPC_INTERNAL,
		    "[INVALID_CURSOR.DISCONNECTED] The cursor is invalid.") } },
		{ { ERR(SC_GRPC_INTERNAL, NF_MSG) } },
		{ { RESP("r1"), COMPLETE } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[256], want[300];

	fake_reset();
	script(s, 2);
	c = client(-1);
	opts(&o, 3);
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1,
	    "ended-after-disconnect: fails");
	is_str(ids, "r1", "ended-after-disconnect: r1 was delivered");
	is_str(err.errclass, "OPERATION_CANCELED",
	    "ended-after-disconnect: OPERATION_CANCELED");
	is_int(err.status, SC_ST_FAILED, "ended-after-disconnect: exit 1");
	snprintf(want, sizeof(want),
	    "[OPERATION_CANCELED] the server ended operation %s (interrupted, "
	    "or released by another client) after 1 responses were received; "
	    "the result is incomplete",
	    sc_reattach_operation_id(it));
	is_str(err.msg, want, "ended-after-disconnect: the message");
	is_int(F.nopens, 2, "ended-after-disconnect: one reattach");
	sc_reattach_close(it);
	sc_client_free(c);

	fake_reset();
	script(s2, 3);
	c = client(-1);
	opts(&o, 3);
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1,
	    "ended-at-the-end: fails");
	is_str(ids, "r1 r2", "ended-at-the-end: r1 and r2 delivered");
	is_str(err.errclass, "OPERATION_CANCELED",
	    "ended-at-the-end: OPERATION_CANCELED");
	sc_reattach_close(it);
	sc_client_free(c);

	/* Before any response: the DISCONNECTED says the server held it. */
	fake_reset();
	script(s3, 3);
	c = client(-1);
	opts(&o, 3);
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1,
	    "ended-before-any: fails");
	is_str(err.errclass, "OPERATION_CANCELED",
	    "ended-before-any: OPERATION_CANCELED");
	snprintf(want, sizeof(want),
	    "[OPERATION_CANCELED] the server ended operation %s (interrupted, "
	    "or released by another client) before any response",
	    sc_reattach_operation_id(it));
	is_str(err.msg, want, "ended-before-any: the message");
	is_int(F.nopens, 2, "ended-before-any: no ExecutePlan sent again");
	sc_reattach_close(it);
	sc_client_free(c);
}

/* A restarted server: the session, and our operation with it, is gone. */
static void
test_notfound_after(void)
{
	static const struct seg s[] = {
		{ { RESP("r1"), ERR(SC_GRPC_UNAVAILABLE, "reset") } },
		{ { ERR(SC_GRPC_INTERNAL,
		    "[INVALID_HANDLE.SESSION_NOT_FOUND] The handle `x` is "
		    "invalid. Session not found. SQLSTATE: HY000") } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[256], opid[SC_UUID_STRLEN];

	fake_reset();
	script(s, 2);
	c = client(-1);
	opts(&o, 3);
	it = start(c, &o);
	snprintf(opid, sizeof(opid), "%s", sc_reattach_operation_id(it));
	is_int(drain(it, ids, sizeof(ids), &err), -1, "notfound-after: fails");
	is_str(ids, "r1", "notfound-after: r1 was delivered");
	is_str(err.errclass, "RESPONSE_ALREADY_RECEIVED",
	    "notfound-after: RESPONSE_ALREADY_RECEIVED");
	is_int(err.status, SC_ST_FAILED, "notfound-after: status FAILED");
	ok(strstr(err.msg,
	       "after 1 responses were received "
	       "(INVALID_HANDLE.SESSION_NOT_FOUND)") != NULL,
	    "notfound-after: message names the cause");
	is_int(F.nopens, 2, "notfound-after: no re-send");
	is_str(F.opens[1].last, "r1", "notfound-after: reattach after r1");
	is_int(sc_reattach_next(it, NULL, &err), -1,
	    "notfound-after: -1 again");
	is_str(err.errclass, "RESPONSE_ALREADY_RECEIVED",
	    "notfound-after: same error again");
	wait_releases(c);
	ok(F.nrels >= 1 && strcmp(F.rels[F.nrels - 1].rid, "") == 0 &&
		strcmp(F.rels[F.nrels - 1].opid, opid) == 0,
	    "notfound-after: ReleaseAll on the error");
	sc_reattach_close(it);
	sc_client_free(c);
}

static void
test_fresh_budget(void)
{
	static const struct seg s[] = {
		{ { RESP("r1"), ERR(SC_GRPC_UNAVAILABLE, "reset") } },
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
		{ { ERR(SC_GRPC_UNAVAILABLE, "reset") } },
		{ { RESP("r2"), ERR(SC_GRPC_UNAVAILABLE, "reset") } },
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
		{ { RESP("r3"), COMPLETE } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[256];
	int i;

	fake_reset();
	script(s, 6);
	c = client(-1);
	opts(&o, 3);
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), 0, "budget: completes");
	is_str(ids, "r1 r2 r3", "budget: all responses once");
	is_int(F.nsleeps, 5, "budget: five backoffs");
	is_int(F.sleeps[0], 50, "budget: 50 ms");
	is_int(F.sleeps[1], 200, "budget: 200 ms");
	is_int(F.sleeps[2], 800, "budget: 800 ms (third of three)");
	is_int(F.sleeps[3], 50, "budget: fresh budget after r2: 50 ms");
	is_int(F.sleeps[4], 200, "budget: then 200 ms");
	is_str(F.opens[1].last, "r1", "budget: reattach after r1");
	is_str(F.opens[3].last, "r1", "budget: still after r1");
	is_str(F.opens[4].last, "r2", "budget: then after r2");
	i = find_event(SC_CLIENT_EV_RETRY, 0);
	is_str(i >= 0 ? ev_text[i] : "",
	    "reconnecting, attempt 1 of 3, reattaching in 0.05s",
	    "budget: retry message");
	i = find_event(SC_CLIENT_EV_RETRY, i + 1);
	i = find_event(SC_CLIENT_EV_RETRY, i + 1);
	is_str(i >= 0 ? ev_text[i] : "",
	    "reconnecting, attempt 3 of 3, reattaching in 0.8s",
	    "budget: third retry message");
	sc_reattach_close(it);
	sc_client_free(c);
}

static void
test_exhausted(void)
{
	static const struct seg s[] = {
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "connection refused") } },
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "connection refused") } },
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "connection refused") } },
		{ { RESP("never") } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[256];

	fake_reset();
	script(s, 4);
	c = client(-1);
	opts(&o, 2);
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1, "exhausted: fails");
	is_int(err.status, SC_ST_UNAVAILABLE, "exhausted: UNAVAILABLE (4)");
	is_str(err.msg, "connection refused (gave up after 2 retries in 0s)",
	    "exhausted: the real error, with the count");
	is_int(F.nopens, 3, "exhausted: 1 + 2 attempts");
	is_int(F.nsleeps, 2, "exhausted: two waits");
	sc_reattach_close(it);
	sc_client_free(c);

	/* A server never reached gets only connect_retries. */
	fake_reset();
	script(s, 4);
	c = client(1);
	opts(&o, 15);
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1, "connect budget: fails");
	is_int(F.nopens, 2, "connect budget: one retry only");
	is_int(err.status, SC_ST_UNAVAILABLE, "connect budget: UNAVAILABLE");
	sc_reattach_close(it);
	sc_client_free(c);
}

static void
test_total_cap(void)
{
	static const struct seg s[] = {
		{ { RESP("r1"), ERR(SC_GRPC_UNAVAILABLE, "reset") } },
		{ { ERR(SC_GRPC_UNAVAILABLE, "reset") } },
		{ { ERR(SC_GRPC_UNAVAILABLE, "reset") } },
		{ { ERR(SC_GRPC_UNAVAILABLE, "reset") } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[256];

	fake_reset();
	script(s, 4);
	c = client(-1);
	opts(&o, 15);
	o.policy.max_total_ms = 300;
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1, "total cap: fails");
	is_int(F.nsleeps, 2, "total cap: 50 + 200, then 800 exceeds 300");
	is_int(err.status, SC_ST_UNAVAILABLE, "total cap: last error");
	ok(strstr(err.msg, "gave up after 2 retries") != NULL,
	    "total cap: says so");
	sc_reattach_close(it);
	sc_client_free(c);
}

static void
test_session_checks(void)
{
	static const struct seg s1[] = {
		{ { { S_RESP, "r1", 0, NULL,
		    "99999999-4455-6677-8899-aabbccddeeff", NULL } } },
	};
	static const struct seg s2[] = {
		{ { { S_RESP, "r1", 0, NULL, NULL, "ssid-a" },
		    ERR(SC_GRPC_UNAVAILABLE, "reset") } },
		{ { { S_RESP, "r2", 0, NULL, NULL, "ssid-b" } } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[256];

	fake_reset();
	script(s1, 1);
	c = client(-1);
	opts(&o, 3);
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1,
	    "session: mismatch "
	    "fails");
	is_int(err.status, SC_ST_PROTOCOL, "session: PROTOCOL");
	is_str(err.msg,
	    "server answered for session "
	    "'99999999-4455-6677-8899-aabbccddeeff', expected '" SID "'",
	    "session: message");
	is_str(ids, "", "session: nothing returned");
	sc_reattach_close(it);
	sc_client_free(c);

	fake_reset();
	script(s2, 2);
	c = client(-1);
	opts(&o, 3);
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1, "ssid: change fails");
	is_str(ids, "r1", "ssid: first response returned");
	is_str(F.opens[1].observed, "ssid-a",
	    "ssid: reattach sends the observed server-side id");
	is_str(err.msg,
	    "server-side session changed from 'ssid-a' to "
	    "'ssid-b' (the server restarted or the session was re-created)",
	    "ssid: message");
	is_str(sc_client_server_side_session_id(c), "ssid-a",
	    "ssid: first one kept");
	sc_reattach_close(it);
	sc_client_free(c);
}

static void
test_watchdog(void)
{
	static const struct seg s[] = {
		{ { RESP("r1"), STALL } },
		{ { RESP("r2"),
		    ERR(SC_GRPC_DEADLINE_EXCEEDED,
			"Deadline "
			"Exceeded") } },
		{ { COMPLETE } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[256];
	int i;

	fake_reset();
	script(s, 3);
	c = client(-1);
	opts(&o, 3);
	o.watchdog_ms = 1000;
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), 0, "watchdog: completes");
	is_str(ids, "r1 r2", "watchdog: no duplicate");
	is_int(F.stalls_with_wait, 1, "watchdog: read had a wait_until");
	is_int(F.nopens, 3, "watchdog: reattached twice");
	is_str(F.opens[1].last, "r1", "watchdog: after r1");
	is_str(F.opens[2].last, "r2", "deadline: after r2");
	is_int(F.frees, 3, "watchdog: every stream freed");
	i = find_event(SC_CLIENT_EV_RETRY, 0);
	ok(i >= 0 && ev_reason[i] == SC_RETRY_NO_PROGRESS,
	    "watchdog: reason no progress");
	is_str(i >= 0 ? ev_text[i] : "",
	    "no progress, reattaching in "
	    "0.05s (attempt 1 of 3)",
	    "watchdog: message");
	i = find_event(SC_CLIENT_EV_RETRY, i + 1);
	ok(i >= 0 && ev_reason[i] == SC_RETRY_DEADLINE,
	    "deadline: reason deadline");
	sc_reattach_close(it);
	sc_client_free(c);
}

static void
test_server_error(void)
{
	static const struct seg s[] = {
		{ { RESP("r1"),
		    ERR(SC_GRPC_INTERNAL,
			"[TABLE_OR_VIEW_NOT_FOUND] "
			"The table or view `t` cannot be found. SQLSTATE: 42P01") } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[256], opid[SC_UUID_STRLEN];

	fake_reset();
	script(s, 1);
	c = client(-1);
	opts(&o, 3);
	it = start(c, &o);
	snprintf(opid, sizeof(opid), "%s", sc_reattach_operation_id(it));
	is_int(drain(it, ids, sizeof(ids), &err), -1, "error: fails");
	is_int(err.status, SC_ST_FAILED, "error: FAILED (1)");
	is_str(err.errclass, "TABLE_OR_VIEW_NOT_FOUND", "error: class");
	is_int(F.nsleeps, 0, "error: not retried");
	wait_releases(c);
	ok(F.nrels >= 1 && strcmp(F.rels[F.nrels - 1].rid, "") == 0 &&
		strcmp(F.rels[F.nrels - 1].opid, opid) == 0,
	    "error: ReleaseAll");
	sc_reattach_close(it);
	wait_releases(c);
	is_int(F.rels[F.nrels - 1].rid[0], 0, "error: close adds nothing");
	sc_client_free(c);
}

static void
test_attach(void)
{
	static const struct seg s1[] = {
		{ { ERR(SC_GRPC_INTERNAL, NF_MSG) } },
	};
	static const struct seg s2[] = {
		{ { RESP("r6"), COMPLETE } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[256];

	fake_reset();
	script(s1, 1);
	c = client(-1);
	opts(&o, 3);
	it = sc_reattach_attach(c, "0A0B0C0D-0000-4000-8000-000000000001", NULL,
	    &o, &err);
	is_str(sc_reattach_operation_id(it),
	    "0a0b0c0d-0000-4000-8000-000000000001", "attach: id lower-cased");
	is_int(drain(it, ids, sizeof(ids), &err), -1, "attach: unknown");
	is_int(err.status, SC_ST_NOTFOUND, "attach: NOTFOUND (3)");
	is_str(F.opens[0].method, "reattach", "attach: no ExecutePlan");
	is_int(F.nopens, 1, "attach: no re-send");
	sc_reattach_close(it);
	sc_client_free(c);

	fake_reset();
	script(s2, 1);
	c = client(-1);
	it = sc_reattach_attach(c, "0a0b0c0d-0000-4000-8000-000000000001", "r5",
	    &o, &err);
	is_int(drain(it, ids, sizeof(ids), &err), 0, "attach --after: ok");
	is_str(F.opens[0].last, "r5", "attach --after: last_response_id");
	is_str(ids, "r6", "attach --after: the rest");
	sc_reattach_close(it);
	sc_client_free(c);

	/* The response attached after is not taken again. */
	{
		static const struct seg s3[] = {
			{ { RESP("r5"), RESP("r6"), COMPLETE } },
		};

		fake_reset();
		script(s3, 1);
		c = client(-1);
		it = sc_reattach_attach(c,
		    "0a0b0c0d-0000-4000-8000-000000000001", "r5", &o, &err);
		is_int(drain(it, ids, sizeof(ids), &err), -1,
		    "attach --after r5, r5 again: refused");
		is_int(err.status, SC_ST_PROTOCOL, "  exit 7");
		sc_reattach_close(it);
		sc_client_free(c);
	}

	/* A closed session holds no operation any more: exit 3 too. */
	{
		static const struct seg s4[] = {
			{ { ERR(SC_GRPC_INTERNAL,
			    "[INVALID_HANDLE.SESSION_CLOSED] The handle `x` "
			    "is invalid. Session was closed. SQLSTATE: "
			    "HY000") } },
		};

		fake_reset();
		script(s4, 1);
		c = client(-1);
		it = sc_reattach_attach(c,
		    "0a0b0c0d-0000-4000-8000-000000000001", NULL, &o, &err);
		is_int(drain(it, ids, sizeof(ids), &err), -1,
		    "attach, session closed: fails");
		is_int(err.status, SC_ST_NOTFOUND,
		    "attach, session closed: NOTFOUND (3)");
		is_int(F.nopens, 1, "attach, session closed: no retry");
		sc_reattach_close(it);
		wait_releases(c);
		sc_client_free(c);
		is_int(F.nrels, 0, "attach, session closed: nothing released");
	}

	/*
	 * A server that stops answering while attached: the operation is
	 * someone else's and may still be there; it is not released.
	 */
	{
		static const struct seg s5[] = {
			{ { RESP("r1"), ERR(SC_GRPC_UNAVAILABLE, "reset") } },
			{ { OPENFAIL(SC_GRPC_UNAVAILABLE,
			    "connection refused") } },
			{ { OPENFAIL(SC_GRPC_UNAVAILABLE,
			    "connection refused") } },
			{ { OPENFAIL(SC_GRPC_UNAVAILABLE,
			    "connection refused") } },
		};

		fake_reset();
		script(s5, 4);
		c = client(-1);
		opts(&o, 2);
		it = sc_reattach_attach(c,
		    "0a0b0c0d-0000-4000-8000-000000000001", NULL, &o, &err);
		is_int(drain(it, ids, sizeof(ids), &err), -1,
		    "attach, server gone: fails");
		is_int(err.status, SC_ST_UNAVAILABLE,
		    "attach, server gone: UNAVAILABLE (4)");
		sc_reattach_close(it);
		wait_releases(c);
		sc_client_free(c);
		/* ReleaseUntil r1 may go out: r1 was read. */
		ok(F.nrels == 0 || strcmp(F.rels[F.nrels - 1].rid, "r1") == 0,
		    "attach, server gone: not released");
	}

	/* Read to its end, an attached operation is released as usual. */
	fake_reset();
	script(s2, 1);
	c = client(-1);
	opts(&o, 3);
	it = sc_reattach_attach(c, "0a0b0c0d-0000-4000-8000-000000000001", "r5",
	    &o, &err);
	is_int(drain(it, ids, sizeof(ids), &err), 0, "attach to the end: ok");
	sc_reattach_close(it);
	wait_releases(c);
	sc_client_free(c);
	ok(F.nrels >= 1 && strcmp(F.rels[F.nrels - 1].rid, "") == 0,
	    "attach to the end: released");

	ok(sc_reattach_attach(c = client(-1), "nope", NULL, &o, &err) == NULL &&
		err.status == SC_ST_USAGE,
	    "attach: bad id is a usage error");
	sc_client_free(c);
}

static void
test_instant_end(void)
{
	static const struct seg s[] = {
		{ { END } },
		{ { RESP("r1"), COMPLETE } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[256];
	int i;

	fake_reset();
	script(s, 2);
	c = client(-1);
	opts(&o, 3);
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), 0, "instant end: ok");
	is_int(F.nsleeps, 1, "instant end: empty stream costs a backoff");
	i = find_event(SC_CLIENT_EV_RETRY, 0);
	ok(i >= 0 && ev_reason[i] == SC_RETRY_STREAM_END,
	    "instant end: reason stream end");
	sc_reattach_close(it);
	sc_client_free(c);
}

static void
test_not_reattachable(void)
{
	static const struct seg s[] = {
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
		{ { RESP("r1"), RESP("r2"), END } },
	};
	static const struct seg s2[] = {
		{ { RESP("r1"), ERR(SC_GRPC_UNAVAILABLE, "reset") } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_client_stats st;
	struct sc_error err;
	char ids[256];

	fake_reset();
	script(s, 2);
	c = client(-1);
	opts(&o, 3);
	o.reattachable = false;
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), 0, "no-reattach: ok");
	is_str(ids, "r1 r2", "no-reattach: stream end is the end");
	ok(!F.opens[0].reattachable, "no-reattach: no reattach option");
	is_str(F.opens[1].method, "execute",
	    "no-reattach: re-sent before "
	    "any response");
	sc_reattach_close(it);
	wait_releases(c);
	sc_client_get_stats(c, &st);
	is_int(F.nrels, 0, "no-reattach: nothing released");
	sc_client_free(c);

	fake_reset();
	script(s2, 1);
	c = client(-1);
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1,
	    "no-reattach: a "
	    "failure after a response is final");
	is_int(err.status, SC_ST_UNAVAILABLE, "no-reattach: UNAVAILABLE");
	sc_reattach_close(it);
	sc_client_free(c);
}

static void
test_abort(void)
{
	static const struct seg s[] = {
		{ { RESP("r1"), RESP("r2"), COMPLETE } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	Spark__Connect__ExecutePlanResponse *m;
	struct sc_error err;
	char opid[SC_UUID_STRLEN];

	fake_reset();
	script(s, 1);
	c = client(-1);
	opts(&o, 3);
	it = start(c, &o);
	snprintf(opid, sizeof(opid), "%s", sc_reattach_operation_id(it));
	is_int(sc_reattach_next(it, &m, &err), 1, "abort: first response");
	protobuf_c_message_free_unpacked(&m->base, NULL);
	sc_reattach_abort(it);
	ok(sc_reattach_aborted(it), "abort: flagged");
	is_int(F.cancels, 1, "abort: stream cancelled");
	is_int(sc_reattach_next(it, &m, &err), -1, "abort: next fails");
	ok(strstr(err.msg, "interrupted") != NULL, "abort: interrupted");
	wait_releases(c);
	ok(F.nrels >= 1 && strcmp(F.rels[F.nrels - 1].rid, "") == 0 &&
		strcmp(F.rels[F.nrels - 1].opid, opid) == 0,
	    "abort: ReleaseAll");
	sc_reattach_close(it);
	sc_client_free(c);
}

/*
 * The abort (a signal) comes while ExecutePlan is being sent: the server
 * may start the operation, so the abort itself must queue its ReleaseAll
 * (the signal thread waits for the queue, then ends the process; a
 * ReleaseAll queued later, by the interrupted call, would be lost).
 */
static void
test_abort_while_opening(void)
{
	static const struct seg s[] = {
		{ { RESP("r1"), COMPLETE } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	Spark__Connect__ExecutePlanResponse *m;
	struct sc_error err;
	char opid[SC_UUID_STRLEN];

	fake_reset();
	script(s, 1);
	c = client(-1);
	opts(&o, 3);
	it = start(c, &o);
	snprintf(opid, sizeof(opid), "%s", sc_reattach_operation_id(it));
	F.abort_it = it;
	F.abort_c = c;
	is_int(sc_reattach_next(it, &m, &err), -1,
	    "abort while opening: next fails");
	is_int(F.rels_at_abort, 1,
	    "abort while opening: the abort queued the ReleaseAll itself");
	ok(F.nrels >= 1 && strcmp(F.rels[0].rid, "") == 0 &&
		strcmp(F.rels[0].opid, opid) == 0,
	    "abort while opening: ReleaseAll of the operation");
	is_int(F.frees, 1, "abort while opening: the stream was freed");
	sc_reattach_close(it);
	wait_releases(c);
	is_int(F.nrels, 1, "abort while opening: released once");
	sc_client_free(c);
}

static void
test_detach(void)
{
	static const struct seg s[] = {
		{ { RESP("r1"), RESP("r2"), COMPLETE } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	Spark__Connect__ExecutePlanResponse *m;
	struct sc_error err;

	fake_reset();
	script(s, 1);
	c = client(-1);
	opts(&o, 3);
	it = start(c, &o);
	is_int(sc_reattach_next(it, &m, &err), 1, "detach: first response");
	protobuf_c_message_free_unpacked(&m->base, NULL);
	sc_reattach_detach(it);
	wait_releases(c);
	is_int(F.nrels, 0, "detach: nothing released");
	sc_client_free(c);
}

static void
test_user_opid(void)
{
	static const struct seg s[] = {
		{ { COMPLETE } },
	};
	Spark__Connect__ExecutePlanRequest req =
	    SPARK__CONNECT__EXECUTE_PLAN_REQUEST__INIT;
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[64];

	fake_reset();
	script(s, 1);
	c = client(-1);
	opts(&o, 3);
	req.plan = &plan;
	req._operation_id_case =
	    SPARK__CONNECT__EXECUTE_PLAN_REQUEST___OPERATION_ID_OPERATION_ID;
	req.operation_id = (char *)"ABCDEF00-0000-4000-8000-000000000002";
	it = sc_reattach_open(c, &req, &o, &err);
	is_int(drain(it, ids, sizeof(ids), &err), 0, "user id: ok");
	is_str(F.opens[0].opid, "abcdef00-0000-4000-8000-000000000002",
	    "user id: sent lower-cased");
	sc_reattach_close(it);
	req.operation_id = (char *)"not-a-uuid";
	ok(sc_reattach_open(c, &req, &o, &err) == NULL &&
		err.status == SC_ST_USAGE,
	    "user id: rejected if not a UUID");
	sc_client_free(c);
}

/*
 * A ReleaseAll goes out from the thread that asks, without the worker,
 * when the transport can start a call without waiting; its reply is
 * picked up later, and a failure is retried by the worker.
 */
static void
test_release_direct(void)
{
	struct sc_client_stats st;
	struct sc_client *c;
	struct timespec dl;
	char id[16];
	int i;

	fake_reset();
	c = client_over(&steps_transport, -1, 0);
	sc_client_release_all(c, "op-d1");
	pthread_mutex_lock(&F.lock);
	is_int(F.nstarts, 1, "direct: started by the caller");
	is_int(F.nrels, 1, "direct: the server has it on return");
	pthread_mutex_unlock(&F.lock);
	wait_releases(c);
	sc_client_get_stats(c, &st);
	is_int(st.releases_sent, 1, "direct: its reply counted as sent");
	is_int(F.in_unary, 1, "direct: one call, none by the worker");
	ok(find_event(SC_CLIENT_EV_RELEASE, 0) >= 0, "direct: success logged");
	sc_client_free(c);

	/* A failed one is the worker's to retry. */
	fake_reset();
	c = client_over(&steps_transport, -1, 0);
	F.rel_fail = 1;
	sc_client_release_all(c, "op-d2");
	wait_releases(c);
	is_int(F.nrels, 1, "direct: released by the worker after a failure");
	is_str(F.rels[0].opid, "op-d2", "direct: the same operation");
	is_int(F.nstarts, 1, "direct: not started a second time");
	is_int(F.in_unary, 2, "direct: two calls in all");
	sc_client_get_stats(c, &st);
	is_int(st.releases_sent, 1, "direct: sent once");
	is_int(st.releases_failed, 0, "direct: nothing failed");
	sc_client_free(c);

	/* A reply not yet there: the wait says so; past the slots, the worker. */
	fake_reset();
	c = client_over(&steps_transport, -1, 0);
	F.hold = true;
	for (i = 0; i < 10; i++) {
		snprintf(id, sizeof(id), "op-h%d", i);
		sc_client_release_all(c, id);
	}
	sc_deadline_in_ms(&dl, 50);
	is_int(sc_client_release_wait(c, &dl), -1,
	    "direct: wait times out while replies are missing");
	pthread_mutex_lock(&F.lock);
	is_int(F.nstarts, 8, "direct: eight on their way at most");
	F.hold = false;
	pthread_mutex_unlock(&F.lock);
	wait_releases(c);
	is_int(F.nrels, 10, "direct: all ten released");
	sc_client_get_stats(c, &st);
	is_int(st.releases_sent, 10, "direct: ten counted");
	sc_client_free(c);

	/* Freed with one on its way: it is finished first. */
	fake_reset();
	c = client_over(&steps_transport, -1, 0);
	F.hold = true;
	sc_client_release_all(c, "op-d3");
	sc_client_free(c);
	is_int(F.nrels, 1, "direct: one on its way when freed was sent");
}

static void
test_release_worker(void)
{
	struct sc_client_stats st;
	struct sc_client *c;
	struct timespec dl;
	int i;

	/* Coalescing: one release in flight, more queued behind it. */
	fake_reset();
	c = client(-1);
	pthread_mutex_lock(&F.lock);
	F.gate_closed = true;
	pthread_mutex_unlock(&F.lock);
	sc_client_release_until(c, "op-1", "a");
	pthread_mutex_lock(&F.lock);
	while (F.in_unary == 0)
		pthread_cond_wait(&F.cond, &F.lock);
	pthread_mutex_unlock(&F.lock);
	sc_client_release_until(c, "op-1", "b");
	sc_client_release_until(c, "op-1", "c");
	sc_client_release_until(c, "op-2", "x");
	sc_client_release_all(c, "op-1");
	sc_client_release_until(c, "op-1", "d");
	sc_deadline_in_ms(&dl, 50);
	is_int(sc_client_release_wait(c, &dl), -1,
	    "worker: wait times out while blocked");
	pthread_mutex_lock(&F.lock);
	F.gate_closed = false;
	pthread_cond_broadcast(&F.cond);
	pthread_mutex_unlock(&F.lock);
	wait_releases(c);
	is_int(F.nrels, 3, "worker: three requests sent");
	is_str(F.rels[0].rid, "a", "worker: the first as sent");
	is_str(F.rels[1].opid, "op-1", "worker: op-1 next (queue order)");
	is_str(F.rels[1].rid, "", "worker: coalesced into ReleaseAll");
	is_str(F.rels[2].rid, "x", "worker: op-2 untouched");
	sc_client_get_stats(c, &st);
	is_int(st.releases_coalesced, 3, "worker: b, c->all, d coalesced");
	is_int(st.releases_sent, 3, "worker: sent counted");
	sc_client_free(c);

	/* Retry then success; then a bounded queue. */
	fake_reset();
	c = client(-1);
	F.rel_fail = 2;
	sc_client_release_all(c, "op-3");
	wait_releases(c);
	is_int(F.nrels, 1, "worker: released after two failures");
	i = find_event(SC_CLIENT_EV_RELEASE_RETRY, 0);
	ok(i >= 0 &&
		strstr(ev_text[i],
		    "ReleaseAll of operation op-3 "
		    "failed, retrying in") != NULL,
	    "worker: retry logged");
	ok(find_event(SC_CLIENT_EV_RELEASE, 0) >= 0, "worker: success logged");
	sc_client_free(c);

	fake_reset();
	c = client(-1);
	F.rel_fail = 10;
	sc_client_release_all(c, "op-4");
	wait_releases(c);
	i = find_event(SC_CLIENT_EV_RELEASE_FAILED, 0);
	ok(i >= 0 &&
		strstr(ev_text[i],
		    "ReleaseAll of operation op-4 not confirmed (the server "
		    "drops the operation after its detached timeout): "
		    "connection reset") != NULL,
	    "worker: give-up logged");
	sc_client_get_stats(c, &st);
	is_int(st.releases_failed, 1, "worker: failure counted");
	sc_client_free(c);

	/*
	 * Pacing: 200 ReleaseUntil in a burst become a handful of RPCs,
	 * the last carrying the newest id, and a ReleaseAll queued behind
	 * them takes over the pending request and goes out last.
	 */
	fake_reset();
	c = client(-1);
	{
		char rid[16];

		for (i = 0; i < 200; i++) {
			snprintf(rid, sizeof(rid), "r%d", i);
			sc_client_release_until(c, "op-5", rid);
		}
		wait_releases(c);
		ok(F.nrels >= 1 && F.nrels <= 3,
		    "pacing: 200 ReleaseUntil sent as %d RPCs", F.nrels);
		is_str(F.rels[F.nrels - 1].rid, "r199",
		    "pacing: the newest id is released");
		sc_client_release_until(c, "op-5", "r200");
		sc_client_release_all(c, "op-5");
		wait_releases(c);
		is_str(F.rels[F.nrels - 1].rid, "",
		    "pacing: ReleaseAll sent last");
	}
	sc_client_free(c);
}

/*
 * A server that stops answering is given up after the client's
 * unreachable limit (10 s here), not after the policy's 15 retries: the
 * backoff climbs as usual, the last wait is cut short so the final
 * attempt comes at the limit, and the error names the operation.
 */
static void
test_silence(void)
{
	static const struct seg s[] = {
		{ { RESP("r1"),
		    ERR(SC_GRPC_UNAVAILABLE, "connection reset") } },
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
		{ { RESP("never") } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[256], want[300];
	int i;

	fake_reset();
	script(s, 8);
	/*
	 * The server is gone for releases too: a ReleaseUntil r1 that got
	 * through would be an answer and start the silence again, at
	 * whatever moment the release worker sent it.
	 */
	F.rel_fail = 100;
	c = client_limit(-1, 10000);
	is_int(sc_client_unreachable_ms(c), 10000, "silence: the limit");
	opts(&o, 15);
	o.policy.initial_ms = 50;
	o.policy.multiplier = 4;
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1, "silence: fails");
	is_str(ids, "r1", "silence: the response before");
	is_int(F.nsleeps, 5, "silence: five waits, not fifteen");
	is_int(F.sleeps[3], 3200, "silence: the fourth as usual");
	is_int(F.sleeps[4], 10000 - 50 - 200 - 800 - 3200,
	    "silence: the fifth cut to end at the limit");
	is_int(F.nopens, 6, "silence: 1 + 5 attempts, the last at 10 s");
	is_int(err.status, SC_ST_UNAVAILABLE, "silence: exit 4");
	snprintf(want, sizeof(want),
	    "operation %s: refused (no answer from the server for 10s, gave up after 5 retries)",
	    sc_reattach_operation_id(it));
	is_str(err.msg, want, "silence: the message names the operation");
	i = find_event(SC_CLIENT_EV_RETRY, 0);
	is_int(i >= 0 ? ev_silent[i] : -2, 0, "silence: starts at the reset");
	is_str(i >= 0 ? ev_status[i] : "",
	    "reconnecting, attempt 1, next in 0.05s",
	    "silence: the status for a progress line");
	for (i = find_event(SC_CLIENT_EV_RETRY, i + 1);
	     i >= 0 && find_event(SC_CLIENT_EV_RETRY, i + 1) >= 0;
	     i = find_event(SC_CLIENT_EV_RETRY, i + 1))
		;
	is_str(i >= 0 ? ev_text[i] : "",
	    "reconnecting, attempt 5 of 15, reattaching in 5.8s (no answer for 4.3s; giving up at 10s)",
	    "silence: the -v line says how long and until when");
	is_int(i >= 0 ? ev_silent[i] : -2, 4250, "silence: silent_ms");
	sc_reattach_close(it);
	sc_client_free(c);

	/* An answer in between starts the clock again. */
	{
		static const struct seg t[] = {
			{ { RESP("r1"), ERR(SC_GRPC_UNAVAILABLE, "reset") } },
			{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
			{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
			{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
			{ { RESP("r2"), ERR(SC_GRPC_UNAVAILABLE, "reset") } },
			{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
			{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
			{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
			{ { RESP("r3"), COMPLETE } },
		};

		fake_reset();
		script(t, 9);
		c = client_limit(-1, 1000);
		opts(&o, 15);
		o.policy.initial_ms = 300;
		o.policy.multiplier = 1;
		it = start(c, &o);
		is_int(drain(it, ids, sizeof(ids), &err), 0,
		    "silence: 900 ms, an answer, 900 ms: completes");
		is_str(ids, "r1 r2 r3", "silence: every response");
		sc_reattach_close(it);
		sc_client_free(c);
	}

	/* -1: no limit; the policy's count alone ends it. */
	fake_reset();
	script(s, 8);
	c = client_limit(-1, -1);
	is_int(sc_client_unreachable_ms(c), -1, "no limit: -1");
	opts(&o, 3);
	o.policy.initial_ms = 100000;
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1, "no limit: fails");
	is_int(F.nsleeps, 3, "no limit: all three retries");
	ok(strstr(err.msg, "(gave up after 3 retries in 220s)") != NULL,
	    "no limit: the count's message (%s)", err.msg);
	sc_reattach_close(it);
	sc_client_free(c);
}

/*
 * -t: the deadline cuts the backoff short, the failure is a timeout
 * (exit 5) at the deadline, naming the operation and the cause, and the
 * ReleaseAll it leaves is not waited for past the deadline.
 */
static void
test_deadline_caps(void)
{
	static const struct seg s[] = {
		{ { RESP("r1"),
		    ERR(SC_GRPC_UNAVAILABLE, "connection reset") } },
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
		{ { OPENFAIL(SC_GRPC_UNAVAILABLE, "refused") } },
		{ { RESP("never") } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	struct timespec dl, wait;
	char ids[256], want[300];
	int64_t t0, took;

	fake_reset();
	script(s, 6);
	c = client(-1);
	opts(&o, 15);
	o.sleep = NULL; /* real waits */
	o.policy.initial_ms = 100;
	o.policy.multiplier = 4;
	sc_deadline_in_ms(&dl, 400);
	o.deadline = &dl;
	t0 = sc_mono_ms();
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1, "deadline: fails");
	took = sc_mono_ms() - t0;
	/* Past the deadline, the backoffs would end at 2100 ms at least. */
	ok(took >= 390 && took < 2000, "deadline: at the deadline (%lld ms)",
	    (long long)took);
	is_int(err.status, SC_ST_TIMEOUT, "deadline: exit 5, not 4");
	snprintf(want, sizeof(want),
	    "operation %s timed out; last error: refused",
	    sc_reattach_operation_id(it));
	is_str(err.msg, want, "deadline: names the operation and the cause");
	is_int(F.nopens, 2, "deadline: 100 ms, an attempt, the rest of 400 ms");
	/* The ReleaseAll past the deadline: one attempt, no retry. */
	sc_deadline_in_ms(&wait, 2000);
	t0 = sc_mono_ms();
	is_int(sc_client_release_wait(c, &wait), 0, "deadline: queue drains");
	ok(sc_mono_ms() - t0 < 500, "deadline: without waiting");
	is_int(F.nrels, 2, "deadline: ReleaseUntil r1, then ReleaseAll");
	is_str(F.rels[1].rid, "", "deadline: the ReleaseAll, sent once");
	sc_reattach_close(it);
	sc_client_free(c);

	/* A server that fails it: given up after that one attempt. */
	fake_reset();
	script(s, 6);
	c = client(-1);
	sc_deadline_in_ms(&dl, 200);
	/* Before the start: the worker may send the release at once. */
	pthread_mutex_lock(&F.lock);
	F.rel_fail = 100;
	pthread_mutex_unlock(&F.lock);
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1, "deadline 2: fails");
	wait_releases(c);
	{
		int i = find_event(SC_CLIENT_EV_RELEASE_FAILED, 0);
		char want_rel[200];

		/* (A ReleaseUntil may have failed the same way first.) */
		while (i >= 0 && strncmp(ev_text[i], "ReleaseAll", 10) != 0)
			i = find_event(SC_CLIENT_EV_RELEASE_FAILED, i + 1);
		snprintf(want_rel, sizeof(want_rel),
		    "ReleaseAll of operation %s not confirmed (the server "
		    "drops the operation after its detached timeout): "
		    "connection reset",
		    sc_reattach_operation_id(it));
		is_str(i >= 0 ? ev_text[i] : "", want_rel,
		    "deadline 2: the release given up, as an event");
		/* (The ReleaseUntil, sent in time, may be retried.) */
		i = find_event(SC_CLIENT_EV_RELEASE_RETRY, 0);
		while (i >= 0 && strncmp(ev_text[i], "ReleaseAll", 10) != 0)
			i = find_event(SC_CLIENT_EV_RELEASE_RETRY, i + 1);
		ok(i == -1, "deadline 2: not retried");
	}
	sc_reattach_close(it);
	sc_client_free(c);
}

/*
 * A wait that ends a few ms before the deadline it was cut to is the
 * deadline's: "timed out" at once, not a retry for the last ms.
 */
static void
test_deadline_slack(void)
{
	static const struct seg s[] = {
		{ { RESP("r1"), STALL } },
		{ { RESP("never") } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	struct timespec dl;
	char ids[256], want[200];

	fake_reset();
	script(s, 2);
	c = client(-1);
	opts(&o, 3);
	sc_deadline_in_ms(&dl, 5);
	o.deadline = &dl;
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1, "slack: fails");
	is_int(err.status, SC_ST_TIMEOUT, "slack: exit 5");
	snprintf(want, sizeof(want), "operation %s timed out",
	    sc_reattach_operation_id(it));
	is_str(err.msg, want, "slack: the deadline's message");
	is_int(F.nsleeps, 0, "slack: no retry for the last ms");
	is_int(F.nopens, 1, "slack: one stream");
	sc_reattach_close(it);
	sc_client_free(c);
}

/*
 * Unary calls follow the same limits: a deadline ends the waits at the
 * deadline with a timeout; a server silent past the limit is given up.
 */
static void
test_unary_limits(void)
{
	struct sc_client *c;
	struct sc_error err;
	struct timespec dl;
	int64_t t0, took;

	fake_reset();
	c = client(-1);
	F.rel_fail = 1000;
	sc_deadline_in_ms(&dl, 300);
	t0 = sc_mono_ms();
	is_int(sc_client_release_execute(c, "op-1", NULL, NULL, &dl, &err), -1,
	    "unary deadline: fails");
	took = sc_mono_ms() - t0;
	ok(took >= 290 && took < 2000, "unary deadline: at it (%lld ms)",
	    (long long)took);
	is_int(err.status, SC_ST_TIMEOUT, "unary deadline: exit 5");
	is_str(err.msg,
	    "ReleaseExecute timed out; last error: connection reset",
	    "unary deadline: message");
	sc_client_free(c);

	fake_reset();
	c = client_limit(-1, 2500);
	F.rel_fail = 1000;
	F.unary_ms = 1000;
	is_int(sc_client_release_execute(c, "op-1", NULL, NULL, NULL, &err), -1,
	    "unary silence: fails");
	is_int(err.status, SC_ST_UNAVAILABLE, "unary silence: exit 4");
	is_str(err.msg, "connection reset (no answer for 2.5s)",
	    "unary silence: message");
	is_int(F.in_unary, 4, "unary silence: the last attempt at the limit");
	is_int(sc_client_silent_ms(c), 3000, "unary silence: silent_ms");
	sc_client_free(c);

	/* Any other status is an answer: the silence ends. */
	fake_reset();
	c = client_limit(-1, 2500);
	F.rel_fail = 1;
	F.unary_code = SC_GRPC_UNAVAILABLE;
	F.unary_ms = 1000;
	is_int(sc_client_release_execute(c, "op-1", NULL, NULL, NULL, &err), 0,
	    "answer: succeeds after one failure");
	is_int(sc_client_silent_ms(c), -1, "answer: not silent");
	F.rel_fail = 1;
	F.unary_code = SC_GRPC_INTERNAL;
	sc_client_release_execute(c, "op-1", NULL, NULL, NULL, &err);
	is_int(sc_client_silent_ms(c), -1, "an INTERNAL error: not silent");
	sc_client_free(c);
}

/*
 * A server that refuses who we are (a wrong token) refuses the release
 * too: no ReleaseAll is sent, so no second error line follows the first.
 */
static void
test_denied(void)
{
	static const struct seg s[] = {
		{ { OPENFAIL(SC_GRPC_UNAUTHENTICATED,
		    "Invalid authentication token") } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[256];

	fake_reset();
	script(s, 1);
	c = client(-1);
	opts(&o, 3);
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1, "denied: fails");
	is_int(err.status, SC_ST_DENIED, "denied: exit 8");
	sc_reattach_close(it);
	wait_releases(c);
	is_int(F.nrels, 0, "denied: no ReleaseAll");
	is_int(F.in_unary, 0, "denied: not even tried");
	sc_client_free(c);
}

/*
 * A server that sends a response again after a reattach would repeat
 * its rows: refused (exit 7), the duplicate never handed out.
 */
static void
test_replay(void)
{
	static const struct seg s[] = {
		{ { RESP("r1"), RESP("r2"), END } },
		{ { RESP("r1"), RESP("r2"), RESP("r3"), COMPLETE } },
	};
	static const struct seg t[] = {
		{ { RESP("r1"), RESP("r2"), END } },
		{ { RESP("r3"), RESP("r3"), COMPLETE } },
	};
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	char ids[256], want[300];

	fake_reset();
	script(s, 2);
	c = client(-1);
	opts(&o, 3);
	o.min_rotation_ms = 0;
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1, "replay: fails");
	is_str(ids, "r1 r2", "replay: r1 is not handed out twice");
	is_int(err.status, SC_ST_PROTOCOL, "replay: exit 7");
	snprintf(want, sizeof(want),
	    "server sent response 'r1' of operation %s a second time (on stream 2, after 'r2'); refusing to repeat its rows",
	    sc_reattach_operation_id(it));
	is_str(err.msg, want, "replay: message");
	sc_reattach_close(it);
	sc_client_free(c);

	fake_reset();
	script(t, 2);
	c = client(-1);
	opts(&o, 3);
	o.min_rotation_ms = 0;
	it = start(c, &o);
	is_int(drain(it, ids, sizeof(ids), &err), -1,
	    "repeat in a stream: "
	    "fails");
	is_str(ids, "r1 r2 r3", "repeat in a stream: once");
	sc_reattach_close(it);
	sc_client_free(c);
}

/* Many responses: the id set grows and still tells them apart. */
static void
test_many_ids(void)
{
	struct sc_reattach_opts o;
	struct sc_client *c;
	struct sc_reattach *it;
	struct sc_error err;
	static char rids[MAXSEGS][MAXSTEPS][32];
	Spark__Connect__ExecutePlanResponse *m;
	int i, j, n = 0, r;

	fake_reset();
	for (i = 0; i < MAXSEGS; i++) {
		for (j = 0; j < MAXSTEPS - 1; j++) {
			snprintf(rids[i][j], sizeof(rids[i][j]), "id-%d-%d", i,
			    j);
			F.segs[i].steps[j].kind = S_RESP;
			F.segs[i].steps[j].rid = rids[i][j];
		}
		F.segs[i].steps[j].kind = i == MAXSEGS - 1 ? S_COMPLETE : S_END;
	}
	F.nsegs = MAXSEGS;
	c = client(-1);
	opts(&o, 3);
	o.min_rotation_ms = 0;
	it = start(c, &o);
	while ((r = sc_reattach_next(it, &m, &err)) == 1) {
		n++;
		protobuf_c_message_free_unpacked(&m->base, NULL);
	}
	is_int(r, 0, "many ids: completes");
	is_int(n, MAXSEGS * (MAXSTEPS - 1), "many ids: every response once");
	sc_reattach_close(it);
	sc_client_free(c);
}

static void
test_format_secs(void)
{
	char b[SC_CLIENT_SECS_STRLEN];

	sc_client_format_secs(50, b);
	is_str(b, "0.05s", "secs: 50 ms");
	sc_client_format_secs(400, b);
	is_str(b, "0.4s", "secs: 400 ms");
	sc_client_format_secs(3417, b);
	is_str(b, "3.4s", "secs: 3417 ms");
	sc_client_format_secs(60000, b);
	is_str(b, "60s", "secs: 60 s");
	sc_client_format_secs(999, b);
	is_str(b, "1.0s", "secs: 999 ms");
}

int
main(void)
{
	pthread_mutex_init(&F.lock, NULL);
	pthread_cond_init(&F.cond, NULL);
	test_happy();
	test_rotation();
	test_notfound_before();
	test_notfound_after();
	test_notfound_after_interrupt();
	test_fresh_budget();
	test_exhausted();
	test_total_cap();
	test_session_checks();
	test_watchdog();
	test_server_error();
	test_attach();
	test_instant_end();
	test_not_reattachable();
	test_abort();
	test_abort_while_opening();
	test_detach();
	test_user_opid();
	test_release_worker();
	test_release_direct();
	test_silence();
	test_deadline_caps();
	test_deadline_slack();
	test_unary_limits();
	test_denied();
	test_replay();
	test_many_ids();
	test_format_secs();
	fake_reset();
	return tap_done();
}
