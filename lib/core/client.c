/* SPDX-License-Identifier: MIT */

/*
 * client.c: the client-side session context, the unary call pattern with
 * retries, and the release worker.
 *
 * Releases are fire-and-forget for the caller: they go into a small queue
 * that one worker thread per client drains, so a slow or dead server
 * never holds up output (a process-wide pool shared by every session, as
 * PySpark had, lets one slow server stall the others).  The synchronous
 * calls built on sc_client_call() are in client_calls.c.
 */

#include "core/client.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/conn.h"
#include "core/error.h"
#include "core/log.h"
#include "core/protocol.h"
#include "core/rpc.h"
#include "core/timeutil.h"
#include "core/uri.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "core/banned.h"

#define DEFAULT_QUEUE 64
#define DEFAULT_RELEASE_MS 10000
/* A release whose deadline passed gets one attempt of at most this. */
#define RELEASE_GRACE_MS 1000
#define DEFAULT_CONNECT_RETRIES 3
/* Largest request sent or reply accepted by a unary call. */
#define UNARY_MAX (256UL * 1024 * 1024)
/* An event line: a message, plus an sc_error's (1024) and some ids. */
#define EVENT_TEXT_MAX 1400

struct relreq {
	char *opid;
	char *rid; /* ReleaseUntil id; NULL for ReleaseAll */
	struct timespec dl; /* done by then, if has_dl */
	bool has_dl;
};

/*
 * A ReleaseAll sent by the thread that asked for it, without waiting:
 * handing every one to the worker cost two thread switches and a second
 * thread polling the channel, which doubled the time of a short query
 * on two cores.  Its reply is picked up later (collect()); a failure goes
 * to the worker, which retries it.
 */
#define MAX_FLIGHTS 8

struct flight {
	bool used;
	bool taken; /* a thread waits for it without the lock */
	void *call; /* NULL while being started */
	struct relreq r;
	struct sc_buf out;
};

struct sc_client {
	const struct sc_transport *tr;
	void *ctx;
	struct sc_rpc *rpc; /* owned, or NULL (fake transport) */

	char server[300]; /* sc://host:port, or "" */
	const char *target; /* host:port: server + 5, or "" */
	char session_id[64];
	bool new_session; /* session_id was generated */
	char *user_id;
	char *client_type;
	Spark__Connect__UserContext uc;

	struct sc_retry_policy policy;
	struct sc_retry_policy rel_policy;
	int connect_retries;
	int64_t unreachable_ms; /* -1: no limit */
	int64_t (*now_ms)(void);
	int64_t rel_timeout_ms;
	size_t qcap;
	sc_client_event_fn *on_event;
	void *event_arg;

	pthread_mutex_t lock;
	pthread_cond_t cond; /* queue grew, or stopping */
	pthread_cond_t idle; /* queue shrank or drained */
	char *ssid; /* first server-side id seen */
	bool reached;
	int64_t silent_since; /* now_ms() of the first UNAVAILABLE, or -1 */
	struct relreq *queue;
	size_t qlen;
	bool busy; /* worker sending one */
	bool stopping;
	pthread_t worker;
	struct flight flights[MAX_FLIGHTS];
	size_t nflights; /* used ones */
	struct sc_client_stats stats;
};

static void *worker_main(void *arg);
static void release_until(struct sc_client *c, const char *opid,
    const char *rid, const struct timespec *deadline);
static void release_all(struct sc_client *c, const char *opid,
    const struct timespec *deadline);
static void queue_all(struct sc_client *c, const char *opid,
    const struct timespec *deadline);
static void finish_flights(struct sc_client *c);

/* ------------------------------------------------------ rpc transport */

static void *
rpc_open(void *ctx, const char *method, const void *req, size_t reqlen,
    const struct timespec *deadline, struct sc_error *err)
{
	return sc_rpc_stream_open(ctx, method, req, reqlen, deadline, err);
}

static int
rpc_read(void *st, struct sc_buf *msg, const struct timespec *wait_until,
    struct sc_error *err)
{
	return sc_rpc_stream_read(st, msg, wait_until, err);
}

static void
rpc_cancel(void *st)
{
	sc_rpc_stream_cancel(st);
}

static void
rpc_sfree(void *st)
{
	sc_rpc_stream_free(st);
}

static int
rpc_unary(void *ctx, const char *method, const void *req, size_t reqlen,
    struct sc_buf *resp, const struct timespec *deadline, struct sc_error *err)
{
	return sc_rpc_unary(ctx, method, req, reqlen, resp, deadline, err);
}

static void *
rpc_ustart(void *ctx, const char *method, const void *req, size_t reqlen,
    const struct timespec *deadline, struct sc_error *err)
{
	return sc_rpc_unary_start(ctx, method, req, reqlen, deadline, err);
}

static int
rpc_ufinish(void *call, const struct timespec *until, struct sc_buf *resp,
    struct sc_error *err)
{
	return sc_rpc_unary_finish(call, until, resp, err);
}

static void
rpc_ucancel(void *call)
{
	sc_rpc_unary_cancel(call);
}

const struct sc_transport sc_client_rpc_transport = { rpc_open, rpc_read,
	rpc_cancel, rpc_sfree, rpc_unary, rpc_ustart, rpc_ufinish,
	rpc_ucancel };

/* ------------------------------------------------------------ helpers */

void
sc_client_format_secs(int64_t ms, char *out)
{
	long long t;

	if (ms < 0)
		ms = 0;
	if (ms % 1000 == 0)
		snprintf(out, SC_CLIENT_SECS_STRLEN, "%llds",
		    (long long)(ms / 1000));
	else if (ms < 100)
		snprintf(out, SC_CLIENT_SECS_STRLEN, "0.%02llds",
		    (long long)((ms + 5) / 10));
	else {
		t = (long long)((ms + 50) / 100); /* tenths */
		snprintf(out, SC_CLIENT_SECS_STRLEN, "%lld.%llds", t / 10,
		    t % 10);
	}
}

void
sc_client_emit(struct sc_client *c, const struct sc_client_event *ev)
{
	struct sc_client_event e;

	if (c->on_event == NULL)
		return;
	e = *ev;
	e.client = c;
	c->on_event(&e, c->event_arg);
}

bool
sc_client_release_unconfirmed(const struct sc_error *e)
{
	return e != NULL &&
	    (e->status == SC_ST_TIMEOUT || e->status == SC_ST_UNAVAILABLE);
}

enum sc_log_level
sc_client_event_level(const struct sc_client_event *ev)
{
	/*
	 * A failed release matters only if the server ever answered: one
	 * that was never reached holds nothing of ours.  Nor does it while
	 * the server has been silent past the limit: the error that ends
	 * the program says so once.  Nor when it merely got no answer in
	 * time (a busy or stalled server, a deadline that had passed) or
	 * the server went away: the server drops an operation nobody
	 * attaches to after its detached timeout anyway.  Only a refusal
	 * is worth a line.
	 */
	if (ev->kind == SC_CLIENT_EV_RELEASE_FAILED && ev->client != NULL &&
	    !sc_client_release_unconfirmed(ev->err) &&
	    sc_client_reached(ev->client) &&
	    sc_client_silence_left(ev->client) != 0)
		return SC_LOG_WARN;
	return SC_LOG_INFO;
}

void
sc_client_log_event(const struct sc_client_event *ev, void *arg)
{
	enum sc_log_level level = sc_client_event_level(ev);

	(void)arg;
	if (sc_log_level >= level)
		sc_log_write(level, "%s", ev->text);
}

/* ------------------------------------------------------- construction */

/* Start the release worker, which never handles signals. */
static int
start_worker(struct sc_client *c, struct sc_error *err)
{
	sigset_t all, old;
	int e;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&c->worker, NULL, worker_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0)
		return sc_error_set_errno(err, SC_ST_INTERNAL, e,
		    "cannot start the release worker thread");
	return 0;
}

static void
relreq_clear(struct relreq *r)
{
	SC_FREE(r->opid);
	SC_FREE(r->rid);
}

/* Free what construction allocated; the worker is not running. */
static void
client_destroy(struct sc_client *c)
{
	size_t i;

	for (i = 0; i < c->qlen; i++)
		relreq_clear(&c->queue[i]);
	free(c->queue);
	pthread_cond_destroy(&c->cond);
	pthread_cond_destroy(&c->idle);
	pthread_mutex_destroy(&c->lock);
	if (c->rpc != NULL)
		sc_rpc_free(c->rpc);
	free(c->ssid);
	free(c->user_id);
	free(c->client_type);
	free(c);
}

struct sc_client *
sc_client_new_transport(const struct sc_transport *t, void *ctx,
    const struct sc_uri *u, const struct sc_client_opts *o,
    struct sc_error *err)
{
	struct sc_client *c;
	const char *sid = NULL, *uid = NULL;
	char uidbuf[256];

	if (o != NULL && o->session_id != NULL)
		sid = o->session_id;
	else if (u != NULL && u->session_id[0] != '\0')
		sid = u->session_id;
	if (sid != NULL && !sc_uuid_valid(sid)) {
		sc_error_set(err, SC_ST_USAGE, "session id '%s' is not a UUID",
		    sid);
		return NULL;
	}

	c = sc_xcalloc(1, sizeof(*c));
	if (sid != NULL)
		snprintf(c->session_id, sizeof(c->session_id), "%s", sid);
	else if (sc_uuid_v4(c->session_id, err) == -1) {
		free(c);
		return NULL;
	} else
		c->new_session = true;
	c->tr = t;
	c->ctx = ctx;
	if (u != NULL && sc_uri_format(u, c->server, sizeof(c->server)) == -1)
		c->server[0] = '\0';
	c->target = strncmp(c->server, "sc://", 5) == 0 ? c->server + 5
							: c->server;

	/* The one rule of every program (cron has no USER: as PySpark). */
	if (o != NULL && o->user_id != NULL && o->user_id[0] != '\0')
		uid = o->user_id;
	else
		uid = sc_conn_user_id(NULL, u, uidbuf, sizeof(uidbuf));
	c->user_id = sc_xstrdup(uid);
	if (u != NULL && u->user_agent[0] != '\0')
		c->client_type =
		    sc_xasprintf("%s %s", u->user_agent, SC_CLIENT_TYPE);
	else
		c->client_type = sc_xstrdup(SC_CLIENT_TYPE);
	spark__connect__user_context__init(&c->uc);
	c->uc.user_id = c->user_id;

	if (o != NULL && o->policy != NULL)
		c->policy = *o->policy;
	else
		sc_retry_policy_default(&c->policy);
	if (o != NULL && o->release_policy != NULL)
		c->rel_policy = *o->release_policy;
	else
		c->rel_policy = c->policy;
	c->connect_retries = DEFAULT_CONNECT_RETRIES;
	if (o != NULL && o->connect_retries != 0)
		c->connect_retries = o->connect_retries;
	c->unreachable_ms = SC_RETRY_UNREACHABLE_MS;
	if (o != NULL && o->unreachable_ms != 0)
		c->unreachable_ms = o->unreachable_ms < 0 ? -1
							  : o->unreachable_ms;
	c->now_ms = o != NULL && o->now_ms != NULL ? o->now_ms : sc_mono_ms;
	c->silent_since = -1;
	c->rel_timeout_ms = o != NULL && o->release_timeout_ms > 0
	    ? o->release_timeout_ms
	    : DEFAULT_RELEASE_MS;
	c->qcap = o != NULL && o->release_queue > 0 ? o->release_queue
						    : DEFAULT_QUEUE;
	c->queue = sc_xcalloc(c->qcap, sizeof(*c->queue));
	if (o != NULL) {
		c->on_event = o->on_event;
		c->event_arg = o->event_arg;
	}
	pthread_mutex_init(&c->lock, NULL);
	sc_mono_cond_init(&c->cond);
	sc_mono_cond_init(&c->idle);
	/*
	 * The worker starts now, not on the first release: a process out
	 * of threads learns it here, as an error, before any operation
	 * that would need releasing exists.
	 */
	if (start_worker(c, err) == -1) {
		client_destroy(c);
		return NULL;
	}
	return c;
}

struct sc_client *
sc_client_new(const struct sc_uri *u, const struct sc_client_opts *o,
    struct sc_error *err)
{
	struct sc_client *c;

	/*
	 * The client (and its worker thread) first: a thread that cannot
	 * start is an error here, where gRPC's own would abort.
	 */
	struct sc_uri tls;

	if ((c = sc_client_new_transport(&sc_client_rpc_transport, NULL, u, o,
		 err)) == NULL)
		return NULL;
	/*
	 * A token goes to a host that is not loopback over TLS only, as
	 * Spark's clients have it, unless the caller chose otherwise.  A
	 * shallow copy: sc_rpc_new() only reads it.
	 */
	tls = *u;
	if (u->has_token && !u->use_ssl && !sc_conn_loopback(u->host) &&
	    (o == NULL || !o->insecure))
		tls.use_ssl = true;
	c->rpc = sc_rpc_new(&tls, o != NULL ? o->ca_file : NULL, err);
	if (c->rpc == NULL) {
		sc_client_free(c);
		return NULL;
	}
	c->ctx = c->rpc;
	return c;
}

int
sc_client_conn_opts(const struct sc_conn_opts *co,
    const struct sc_client_opts *o, struct sc_uri *u,
    struct sc_client_opts *opts, struct sc_error *err)
{
	sc_uri_init(u);
	if (sc_conn_uri(co, u, err) == -1) {
		sc_uri_release(u);
		return -1;
	}
	if (o != NULL)
		*opts = *o;
	else
		memset(opts, 0, sizeof(*opts));
	/* The URI carries the ids now (sc_conn_uri() put them there). */
	opts->session_id = NULL;
	opts->user_id = NULL;
	opts->ca_file = co->ca_file;
	opts->insecure = co->insecure;
	if (opts->unreachable_ms == 0 && co->unreachable_ms >= 0)
		opts->unreachable_ms = co->unreachable_ms > 0
		    ? co->unreachable_ms
		    : -1; /* --unreachable-timeout 0: never */
	return 0;
}

struct sc_client *
sc_client_connect(const struct sc_conn_opts *co, const struct sc_client_opts *o,
    struct sc_error *err)
{
	struct sc_client_opts opts;
	struct sc_client *c;
	struct sc_uri u;

	if (sc_client_conn_opts(co, o, &u, &opts, err) == -1)
		return NULL;
	c = sc_client_new(&u, &opts, err);
	sc_uri_release(&u);
	return c;
}

void
sc_client_free(struct sc_client *c)
{
	if (c == NULL)
		return;
	/* Before the channel goes: a release on its way is let finish. */
	finish_flights(c);
	pthread_mutex_lock(&c->lock);
	c->stopping = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->worker, NULL);
	client_destroy(c);
}

/* ---------------------------------------------------------- accessors */

const char *
sc_client_session_id(const struct sc_client *c)
{
	return c->session_id;
}

const char *
sc_client_user_id(const struct sc_client *c)
{
	return c->user_id;
}

const char *
sc_client_server(const struct sc_client *c)
{
	return c->server;
}

const char *
sc_client_target(const struct sc_client *c)
{
	return c->target;
}

bool
sc_client_session_is_new(const struct sc_client *c)
{
	return c->new_session;
}

const char *
sc_client_server_side_session_id(struct sc_client *c)
{
	const char *s;

	pthread_mutex_lock(&c->lock);
	s = c->ssid;
	pthread_mutex_unlock(&c->lock);
	return s;
}

bool
sc_client_reached(struct sc_client *c)
{
	bool r;

	pthread_mutex_lock(&c->lock);
	r = c->reached;
	pthread_mutex_unlock(&c->lock);
	return r;
}

static void
mark_reached(struct sc_client *c)
{
	pthread_mutex_lock(&c->lock);
	c->reached = true;
	c->silent_since = -1;
	pthread_mutex_unlock(&c->lock);
}

/* A call found nobody there: the server's silence starts, or goes on. */
static void
mark_silent(struct sc_client *c)
{
	pthread_mutex_lock(&c->lock);
	if (c->silent_since < 0)
		c->silent_since = c->now_ms();
	pthread_mutex_unlock(&c->lock);
}

int64_t
sc_client_silent_ms(struct sc_client *c)
{
	int64_t since;

	pthread_mutex_lock(&c->lock);
	since = c->silent_since;
	pthread_mutex_unlock(&c->lock);
	if (since < 0)
		return -1;
	since = c->now_ms() - since;
	return since < 0 ? 0 : since;
}

int64_t
sc_client_unreachable_ms(const struct sc_client *c)
{
	return c->unreachable_ms;
}

int64_t
sc_client_silence_left(struct sc_client *c)
{
	return sc_retry_silence_left(sc_client_silent_ms(c), c->unreachable_ms);
}

int
sc_client_max_retries(struct sc_client *c, const struct sc_retry_policy *p)
{
	int n = p->max_retries;

	if (!sc_client_reached(c) && c->connect_retries >= 0 &&
	    c->connect_retries < n)
		n = c->connect_retries;
	return n;
}

void
sc_client_get_stats(struct sc_client *c, struct sc_client_stats *st)
{
	pthread_mutex_lock(&c->lock);
	*st = c->stats;
	pthread_mutex_unlock(&c->lock);
}

/* ---------------------------------------------------------- envelopes */

void
sc_client_stamp(struct sc_client *c, ProtobufCMessage *m)
{
	struct sc_proto_ids ids;

	ids.session_id = c->session_id;
	ids.user_context = &c->uc;
	ids.client_type = c->client_type;
	ids.observed_ssid = sc_client_server_side_session_id(c);
	sc_proto_stamp(m, &ids);
}

int
sc_client_check_response(struct sc_client *c, const ProtobufCMessage *m,
    const char *operation_id, bool response_id, struct sc_error *err)
{
	struct sc_proto_expect x;
	const char *ssid;
	int rc;

	x.session_id = c->session_id;
	x.operation_id = operation_id;
	x.response_id = response_id;
	pthread_mutex_lock(&c->lock);
	x.ssid = c->ssid;
	rc = sc_proto_check_response(m, &x, err);
	if (rc == 0 && c->ssid == NULL) {
		sc_proto_response_ids(m, NULL, &ssid);
		if (ssid != NULL && ssid[0] != '\0')
			c->ssid = sc_xstrdup(ssid);
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

/* -------------------------------------------------------------- calls */

static void
note_status(struct sc_client *c, const struct sc_error *e)
{
	/*
	 * Any gRPC status other than UNAVAILABLE came from a server (or a
	 * proxy in front of one), and so did an UNAVAILABLE with a Spark
	 * error class or RetryInfo ("busy, come back in 10 s"); a bare
	 * UNAVAILABLE is what gRPC says when nobody answers.  A deadline
	 * may be gRPC's own, so it
	 * does not end a silence; our own watchdog timeout (rpc_code -1)
	 * says nothing either way.
	 */
	if (e->rpc_code == SC_GRPC_UNAVAILABLE && e->retry_delay_ms < 0 &&
	    e->errclass[0] == '\0')
		mark_silent(c);
	else if (e->rpc_code == SC_GRPC_DEADLINE_EXCEEDED) {
		/* Reached once, as before; silence neither starts nor ends. */
		pthread_mutex_lock(&c->lock);
		c->reached = true;
		pthread_mutex_unlock(&c->lock);
	} else if (e->rpc_code >= 0)
		mark_reached(c);
}

void
sc_client_note_status(struct sc_client *c, const struct sc_error *e)
{
	if (e == NULL)
		mark_reached(c);
	else
		note_status(c, e);
}

void *
sc_client_stream_open(struct sc_client *c, const char *method, const void *req,
    size_t reqlen, const struct timespec *deadline, struct sc_error *err)
{
	void *st;

	st = c->tr->stream_open(c->ctx, method, req, reqlen, deadline, err);
	if (st == NULL && err != NULL)
		note_status(c, err);
	return st;
}

int
sc_client_stream_read(struct sc_client *c, void *stream, struct sc_buf *msg,
    const struct timespec *wait_until, struct sc_error *err)
{
	int r;

	r = c->tr->stream_read(stream, msg, wait_until, err);
	if (r >= 0)
		mark_reached(c);
	else if (err != NULL)
		note_status(c, err);
	return r;
}

void
sc_client_stream_cancel(struct sc_client *c, void *stream)
{
	c->tr->stream_cancel(stream);
}

void
sc_client_stream_free(struct sc_client *c, void *stream)
{
	if (stream != NULL)
		c->tr->stream_free(stream);
}

static const char *
method_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

/*
 * How one unary call is retried: the program's calls share a deadline
 * and report retries as SC_CLIENT_EV_RETRY; the release worker gives
 * each attempt its own timeout, reports SC_CLIENT_EV_RELEASE_RETRY and
 * stops waiting when the client is freed.
 */
struct retrying {
	const struct sc_retry_policy *policy;
	const struct timespec *deadline; /* all attempts; NULL: none */
	int64_t attempt_ms; /* each attempt's own limit; 0: none */
	const struct relreq *rel; /* the release being sent, or NULL */
	bool raw; /* no Spark envelope: none stamped, none checked */
	size_t max; /* the largest answer; 0: UNARY_MAX */
};

static void release_event(struct sc_client *c, enum sc_client_event_kind kind,
    const struct relreq *r, const struct sc_error *e, int64_t delay,
    int attempt, int max);
static bool sleep_locked(struct sc_client *c, int64_t ms);

/* Fill an event and deliver it. */
static void
emit(struct sc_client *c, enum sc_client_event_kind kind,
    const struct relreq *r, enum sc_retry_reason why, const struct sc_error *e,
    int64_t delay, int attempt, int max, const char *text)
{
	struct sc_client_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.operation_id = r != NULL ? r->opid : NULL;
	ev.response_id = r != NULL ? r->rid : NULL;
	ev.reason = why;
	ev.delay_ms = delay;
	ev.attempt = attempt;
	ev.max_attempts = max;
	ev.err = e;
	ev.text = text;
	sc_client_emit(c, &ev);
}

static void
retry_event(struct sc_client *c, const char *method, const struct retrying *rt,
    const struct sc_error *e, enum sc_retry_reason why, int64_t delay,
    int attempt, int max)
{
	char secs[SC_CLIENT_SECS_STRLEN], text[EVENT_TEXT_MAX], status[400];
	struct sc_client_event ev;

	if (rt->rel != NULL) {
		release_event(c, SC_CLIENT_EV_RELEASE_RETRY, rt->rel, e, delay,
		    attempt, max);
		return;
	}
	sc_client_format_secs(delay, secs);
	snprintf(text, sizeof(text),
	    "%s, retrying %s in %s (attempt %d of %d): %s",
	    sc_retry_reason_str(why), method_name(method), secs, attempt, max,
	    e->msg);
	memset(&ev, 0, sizeof(ev));
	ev.silent_ms = sc_client_silent_ms(c);
	ev.give_up_ms = c->unreachable_ms;
	sc_client_retry_status(c, why, attempt, delay, ev.silent_ms, status,
	    sizeof(status));
	ev.kind = SC_CLIENT_EV_RETRY;
	ev.reason = why;
	ev.delay_ms = delay;
	ev.attempt = attempt;
	ev.max_attempts = max;
	ev.err = e;
	ev.text = text;
	ev.status = status;
	sc_client_emit(c, &ev);
}

void
sc_client_retry_status(const struct sc_client *c, enum sc_retry_reason why,
    int attempt, int64_t delay, int64_t silent_ms, char *out, size_t outsz)
{
	char secs[SC_CLIENT_SECS_STRLEN];

	sc_client_format_secs(delay, secs);
	if (why == SC_RETRY_UNAVAILABLE && silent_ms >= 0 &&
	    c->target[0] != '\0')
		snprintf(out, outsz,
		    "reconnecting to '%s', attempt %d, next in %s", c->target,
		    attempt, secs);
	else if (why == SC_RETRY_UNAVAILABLE && silent_ms >= 0)
		snprintf(out, outsz, "reconnecting, attempt %d, next in %s",
		    attempt, secs);
	else
		snprintf(out, outsz, "%s, attempt %d, next in %s",
		    sc_retry_reason_str(why), attempt, secs);
}

/*
 * Fit the next backoff into the two limits (core/retry.h): shorten
 * *delay so the next attempt comes by the caller's deadline and by the
 * end of the time the server may stay silent.  0, or -1 with *e turned
 * into the reason to stop: the server has been silent too long (its own
 * status, message extended), or the deadline has come (SC_ST_TIMEOUT).
 * what names the call in messages.
 */
static int
retry_limits(struct sc_client *c, const char *what,
    const struct timespec *deadline, struct sc_error *e, int64_t *delay)
{
	int64_t left, rem;

	left = sc_client_silence_left(c);
	if (left == 0) {
		sc_client_no_answer(c, e);
		return -1;
	}
	*delay = sc_retry_cap(*delay, left);
	if (deadline != NULL) {
		if ((rem = sc_ms_until(deadline)) <= 0) {
			sc_client_timed_out(what, e);
			return -1;
		}
		*delay = sc_retry_cap(*delay, rem);
	}
	return 0;
}

void
sc_client_no_answer(const struct sc_client *c, struct sc_error *e)
{
	char secs[SC_CLIENT_SECS_STRLEN];
	size_t n = strlen(e->msg);

	sc_client_format_secs(c->unreachable_ms, secs);
	if (c->target[0] != '\0')
		snprintf(e->msg + n, sizeof(e->msg) - n,
		    " (no answer from '%s' for %s)", c->target, secs);
	else
		snprintf(e->msg + n, sizeof(e->msg) - n, " (no answer for %s)",
		    secs);
}

void
sc_client_timed_out(const char *what, struct sc_error *e)
{
	struct sc_error t;

	sc_error_init(&t);
	sc_error_set(&t, SC_ST_TIMEOUT, "%s timed out; last error: %s", what,
	    e->msg);
	*e = t;
}

/* Wait a backoff: 0, or -1 to give up (deadline, or client stopping). */
static int
retry_wait(struct sc_client *c, const struct retrying *rt, int64_t delay)
{
	bool ok;

	if (rt->rel == NULL)
		return sc_retry_sleep_ms(delay, NULL); /* capped already */
	pthread_mutex_lock(&c->lock);
	ok = sleep_locked(c, delay);
	pthread_mutex_unlock(&c->lock);
	return ok ? 0 : -1;
}

static int
unary_retrying(struct sc_client *c, const char *method, ProtobufCMessage *req,
    const ProtobufCMessageDescriptor *d, void **resp, const struct retrying *rt,
    struct sc_error *err)
{
	struct sc_retry_policy pol = *rt->policy;
	struct sc_retry_state rs;
	struct sc_error e;
	enum sc_retry_reason why;
	struct timespec dl;
	const struct timespec *dlp;
	struct sc_buf in, out;
	int64_t delay;
	void *m = NULL;

	sc_error_init(&e);
	if (!rt->raw)
		sc_client_stamp(c, req);
	sc_buf_init(&in, UNARY_MAX);
	sc_buf_init(&out, rt->max > 0 ? rt->max : UNARY_MAX);
	if (sc_proto_pack(req, &in, &e) == -1)
		goto out;
	sc_retry_state_init(&rs, &pol);
	for (;;) {
		sc_error_init(&e);
		sc_buf_reset(&out);
		dlp = rt->deadline;
		if (rt->attempt_ms > 0) {
			sc_deadline_in_ms(&dl, rt->attempt_ms);
			if (dlp == NULL || sc_ms_until(&dl) < sc_ms_until(dlp))
				dlp = &dl;
		}
		if (c->tr->unary(c->ctx, method, in.data, in.len, &out, dlp,
			&e) == 0) {
			mark_reached(c);
			/* A wrong answer is not retried. */
			m = sc_proto_unpack(d, out.data, out.len, &e);
			if (m != NULL && !rt->raw &&
			    sc_client_check_response(c, m, NULL, false, &e) ==
				-1) {
				protobuf_c_message_free_unpacked(m, NULL);
				m = NULL;
			}
			break;
		}
		note_status(c, &e);
		pol.max_retries = sc_client_max_retries(c, rt->policy);
		if (!sc_retry_classify(&e, &why) ||
		    (delay = sc_retry_next_delay(&pol, &rs, e.retry_delay_ms,
			 (uint32_t)random())) < 0 ||
		    retry_limits(c, method_name(method), rt->deadline, &e,
			&delay) == -1)
			break;
		retry_event(c, method, rt, &e, why, delay, rs.attempt,
		    pol.max_retries);
		if (retry_wait(c, rt, delay) == -1)
			break;
		/* The wait ended at the deadline: say so, with the cause. */
		if (rt->deadline != NULL && sc_ms_until(rt->deadline) <= 0) {
			sc_client_timed_out(method_name(method), &e);
			break;
		}
	}
out:
	sc_buf_release(&in);
	sc_buf_release(&out);
	if (m == NULL) {
		if (err != NULL)
			*err = e;
		return -1;
	}
	*resp = m;
	return 0;
}

int
sc_client_call(struct sc_client *c, const char *method, ProtobufCMessage *req,
    const ProtobufCMessageDescriptor *resp_type, void **resp,
    const struct timespec *deadline, struct sc_error *err)
{
	struct retrying rt;

	memset(&rt, 0, sizeof(rt));
	rt.policy = &c->policy;
	rt.deadline = deadline;
	return unary_retrying(c, method, req, resp_type, resp, &rt, err);
}

int
sc_client_call_raw(struct sc_client *c, const char *method,
    ProtobufCMessage *req, const ProtobufCMessageDescriptor *resp_type,
    void **resp, size_t max, const struct timespec *deadline,
    struct sc_error *err)
{
	struct retrying rt;

	memset(&rt, 0, sizeof(rt));
	rt.policy = &c->policy;
	rt.deadline = deadline;
	rt.raw = true;
	rt.max = max;
	return unary_retrying(c, method, req, resp_type, resp, &rt, err);
}

/* ---------------------------------------------------- release worker */

/* Sleep ms unless the client is stopping; false if it is. Lock held. */
static bool
sleep_locked(struct sc_client *c, int64_t ms)
{
	struct timespec until;

	sc_deadline_in_ms(&until, ms);
	while (!c->stopping)
		if (pthread_cond_timedwait(&c->cond, &c->lock, &until) ==
		    ETIMEDOUT)
			break;
	return !c->stopping;
}

static void
release_event(struct sc_client *c, enum sc_client_event_kind kind,
    const struct relreq *r, const struct sc_error *e, int64_t delay,
    int attempt, int max)
{
	char text[EVENT_TEXT_MAX], secs[SC_CLIENT_SECS_STRLEN];
	char what[160];

	if (c->on_event == NULL)
		return;
	if (r->rid != NULL)
		snprintf(what, sizeof(what), "ReleaseUntil %s of operation %s",
		    r->rid, r->opid);
	else
		snprintf(what, sizeof(what), "ReleaseAll of operation %s",
		    r->opid);
	switch (kind) {
	case SC_CLIENT_EV_RELEASE:
		snprintf(text, sizeof(text), "released: %s", what);
		break;
	case SC_CLIENT_EV_RELEASE_RETRY:
		sc_client_format_secs(delay, secs);
		snprintf(text, sizeof(text),
		    "%s failed, retrying in %s (attempt %d of %d): %s", what,
		    secs, attempt, max, e->msg);
		break;
	default:
		if (sc_client_release_unconfirmed(e))
			snprintf(text, sizeof(text),
			    "%s not confirmed (the server drops the operation "
			    "after its detached timeout): %s",
			    what, e->msg);
		else
			snprintf(text, sizeof(text), "%s failed: %s", what,
			    e != NULL ? e->msg : "client stopped");
		break;
	}
	emit(c, kind, r, SC_RETRY_UNAVAILABLE, e, delay, attempt, max, text);
}

/*
 * Fill a ReleaseExecute request for operation opid: ReleaseUntil rid, or
 * ReleaseAll when rid is NULL.  all and until are the request's storage.
 */
static void
release_request(Spark__Connect__ReleaseExecuteRequest *req,
    Spark__Connect__ReleaseExecuteRequest__ReleaseAll *all,
    Spark__Connect__ReleaseExecuteRequest__ReleaseUntil *until,
    const char *opid, const char *rid)
{
	spark__connect__release_execute_request__init(req);
	spark__connect__release_execute_request__release_all__init(all);
	spark__connect__release_execute_request__release_until__init(until);
	req->operation_id = (char *)opid;
	if (rid != NULL) {
		until->response_id = (char *)rid;
		req->release_case = SC_RELEASE_(RELEASE_UNTIL);
		req->release_until = until;
	} else {
		req->release_case = SC_RELEASE_(RELEASE_ALL);
		req->release_all = all;
	}
}

int
sc_client_release_execute(struct sc_client *c, const char *operation_id,
    const char *until, bool *found, const struct timespec *deadline,
    struct sc_error *err)
{
	Spark__Connect__ReleaseExecuteRequest req;
	Spark__Connect__ReleaseExecuteRequest__ReleaseAll all;
	Spark__Connect__ReleaseExecuteRequest__ReleaseUntil u;
	Spark__Connect__ReleaseExecuteResponse *resp;

	release_request(&req, &all, &u, operation_id, until);
	if (sc_client_call(c, SC_METHOD_RELEASE_EXECUTE, &req.base,
		&spark__connect__release_execute_response__descriptor,
		(void **)&resp, deadline, err) == -1)
		return -1;
	/* Unset: not found.  Another id is an answer to someone else. */
	if (resp->_operation_id_case != 0 &&
	    strcmp(resp->operation_id, operation_id) != 0) {
		sc_error_set(err, SC_ST_PROTOCOL,
		    "server answered for operation '%s', expected '%s'",
		    resp->operation_id, operation_id);
		protobuf_c_message_free_unpacked(&resp->base, NULL);
		return -1;
	}
	if (found != NULL)
		*found = resp->_operation_id_case != 0;
	protobuf_c_message_free_unpacked(&resp->base, NULL);
	return 0;
}

/* One ReleaseExecute with retries.  Called without the lock. */
static void
send_release(struct sc_client *c, const struct relreq *r)
{
	Spark__Connect__ReleaseExecuteRequest req;
	Spark__Connect__ReleaseExecuteRequest__ReleaseAll all;
	Spark__Connect__ReleaseExecuteRequest__ReleaseUntil until;
	struct sc_retry_policy once;
	struct retrying rt;
	struct sc_error e;
	void *resp;
	int rc;

	sc_error_init(&e);
	release_request(&req, &all, &until, r->opid, r->rid);
	memset(&rt, 0, sizeof(rt));
	rt.policy = &c->rel_policy;
	rt.deadline = r->has_dl ? &r->dl : NULL;
	rt.attempt_ms = c->rel_timeout_ms;
	rt.rel = r;
	if (r->has_dl && sc_ms_until(&r->dl) <= 0) {
		/*
		 * Past its deadline a release gets one short attempt and no
		 * retry: a live server drops (and stops) the operation at
		 * once, a dead one costs nothing, a stalled one at most
		 * RELEASE_GRACE_MS past the deadline.
		 */
		once = c->rel_policy;
		once.max_retries = 0;
		rt.policy = &once;
		rt.deadline = NULL;
		if (rt.attempt_ms > RELEASE_GRACE_MS)
			rt.attempt_ms = RELEASE_GRACE_MS;
	}
	rc = unary_retrying(c, SC_METHOD_RELEASE_EXECUTE, &req.base,
	    &spark__connect__release_execute_response__descriptor, &resp, &rt,
	    &e);
	pthread_mutex_lock(&c->lock);
	if (rc == 0)
		c->stats.releases_sent++;
	else
		c->stats.releases_failed++;
	pthread_mutex_unlock(&c->lock);
	if (rc == 0) {
		protobuf_c_message_free_unpacked(resp, NULL);
		release_event(c, SC_CLIENT_EV_RELEASE, r, NULL, 0, 0, 0);
	} else
		release_event(c, SC_CLIENT_EV_RELEASE_FAILED, r, &e, 0, 0, 0);
}

/*
 * ReleaseUntil only lets the server drop consumed responses sooner than
 * its retry buffer would, yet one per response costs a round trip per
 * response on both sides (a 50 M-row stream sent over a thousand).  So
 * after a ReleaseUntil the worker waits up to RELEASE_UNTIL_GAP_MS while
 * newer ids coalesce into the queued request; a queued ReleaseAll or
 * stopping ends the wait at once.  Lock held.
 */
#define RELEASE_UNTIL_GAP_MS 50

static void
pace_locked(struct sc_client *c)
{
	struct timespec until;
	size_t i;

	sc_deadline_in_ms(&until, RELEASE_UNTIL_GAP_MS);
	while (!c->stopping) {
		for (i = 0; i < c->qlen; i++)
			if (c->queue[i].rid == NULL)
				return;
		if (pthread_cond_timedwait(&c->cond, &c->lock, &until) ==
		    ETIMEDOUT)
			return;
	}
}

static void *
worker_main(void *arg)
{
	struct sc_client *c = arg;
	struct relreq r;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (c->qlen == 0 && !c->stopping)
			pthread_cond_wait(&c->cond, &c->lock);
		if (c->stopping)
			break;
		r = c->queue[0];
		memmove(&c->queue[0], &c->queue[1],
		    (c->qlen - 1) * sizeof(c->queue[0]));
		c->qlen--;
		c->busy = true;
		pthread_cond_broadcast(&c->idle);
		pthread_mutex_unlock(&c->lock);

		send_release(c, &r);

		pthread_mutex_lock(&c->lock);
		c->busy = false;
		pthread_cond_broadcast(&c->idle);
		if (r.rid != NULL)
			pace_locked(c);
		relreq_clear(&r);
	}
	c->busy = false;
	pthread_cond_broadcast(&c->idle);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

static struct relreq *
find_pending(struct sc_client *c, const char *opid)
{
	size_t i;

	for (i = 0; i < c->qlen; i++)
		if (strcmp(c->queue[i].opid, opid) == 0)
			return &c->queue[i];
	return NULL;
}

/* The deadline of a queued release (NULL: none).  Lock held. */
static void
set_deadline(struct relreq *r, const struct timespec *deadline)
{
	r->has_dl = deadline != NULL;
	if (deadline != NULL)
		r->dl = *deadline;
}

void
sc_client_release_async(struct sc_client *c, const char *opid, const char *rid,
    const struct timespec *deadline)
{
	if (rid != NULL)
		release_until(c, opid, rid, deadline);
	else
		release_all(c, opid, deadline);
}

void
sc_client_release_until(struct sc_client *c, const char *opid, const char *rid)
{
	release_until(c, opid, rid, NULL);
}

void
sc_client_release_all(struct sc_client *c, const char *opid)
{
	release_all(c, opid, NULL);
}

static void
release_until(struct sc_client *c, const char *opid, const char *rid,
    const struct timespec *deadline)
{
	struct relreq *r;

	pthread_mutex_lock(&c->lock);
	if (c->stopping)
		goto out;
	if ((r = find_pending(c, opid)) != NULL) {
		/* A pending ReleaseAll covers it; else the newer id wins. */
		if (r->rid != NULL) {
			free(r->rid);
			r->rid = sc_xstrdup(rid);
			set_deadline(r, deadline);
		}
		c->stats.releases_coalesced++;
	} else if (c->qlen == c->qcap)
		c->stats.releases_coalesced++;
	else {
		r = &c->queue[c->qlen++];
		r->opid = sc_xstrdup(opid);
		r->rid = sc_xstrdup(rid);
		set_deadline(r, deadline);
		pthread_cond_broadcast(&c->cond);
	}
out:
	pthread_mutex_unlock(&c->lock);
}

/* ------------------------------------------- releases sent directly */

/* A finished flight, taken out of its slot to be reported unlocked. */
struct landed {
	struct relreq r;
	struct sc_buf out;
	struct sc_error e;
	int k; /* 1 reply in out, -1 failed (e) */
};

/* Empty slot f into l (lock held). */
static void
land_locked(struct sc_client *c, struct flight *f, int k,
    const struct sc_error *e, struct landed *l)
{
	l->r = f->r;
	l->out = f->out;
	l->e = *e;
	l->k = k;
	memset(f, 0, sizeof(*f));
	c->nflights--;
	pthread_cond_broadcast(&c->idle);
}

/*
 * Report a landed release (no lock held): a good reply counts as sent;
 * a failed call goes to the worker for its retries, unless the client
 * stops (retry false); a wrong answer is not retried.
 */
static void
report(struct sc_client *c, struct landed *l, bool retry)
{
	struct sc_error e;
	void *m = NULL;
	int rc = -1;

	sc_error_init(&e);
	if (l->k == 1) {
		m = sc_proto_unpack(
		    &spark__connect__release_execute_response__descriptor,
		    l->out.data, l->out.len, &e);
		if (m != NULL)
			rc = sc_client_check_response(c, m, NULL, false, &e);
		if (m != NULL)
			protobuf_c_message_free_unpacked(m, NULL);
	} else
		e = l->e;
	if (rc == 0) {
		mark_reached(c);
		pthread_mutex_lock(&c->lock);
		c->stats.releases_sent++;
		pthread_mutex_unlock(&c->lock);
		release_event(c, SC_CLIENT_EV_RELEASE, &l->r, NULL, 0, 0, 0);
	} else if (l->k == -1 && retry) {
		queue_all(c, l->r.opid, l->r.has_dl ? &l->r.dl : NULL);
	} else {
		pthread_mutex_lock(&c->lock);
		c->stats.releases_failed++;
		pthread_mutex_unlock(&c->lock);
		release_event(c, SC_CLIENT_EV_RELEASE_FAILED, &l->r, &e, 0, 0,
		    0);
	}
	relreq_clear(&l->r);
	sc_buf_release(&l->out);
}

/* Pick up the replies that came, without waiting. */
static void
collect(struct sc_client *c)
{
	struct landed l[MAX_FLIGHTS];
	struct timespec now;
	struct flight *f;
	struct sc_error e;
	size_t i, n = 0;
	int k;

	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < MAX_FLIGHTS && c->nflights > 0; i++) {
		f = &c->flights[i];
		if (!f->used || f->taken || f->call == NULL)
			continue;
		sc_error_init(&e);
		if ((k = c->tr->unary_finish(f->call, &now, &f->out, &e)) != 0)
			land_locked(c, f, k, &e, &l[n++]);
	}
	pthread_mutex_unlock(&c->lock);
	for (i = 0; i < n; i++)
		report(c, &l[i], true);
}

/*
 * Wait for the flights (until deadline, NULL: their own deadlines); -1
 * when one is still on its way at the deadline.  While the client stops,
 * a failure is not passed on.
 */
static int
wait_flights(struct sc_client *c, const struct timespec *deadline, bool retry)
{
	struct landed l;
	struct flight *f;
	struct sc_error e;
	size_t i;
	int k;

	for (;;) {
		pthread_mutex_lock(&c->lock);
		f = NULL;
		for (i = 0; i < MAX_FLIGHTS; i++)
			if (c->flights[i].used && !c->flights[i].taken &&
			    c->flights[i].call != NULL) {
				f = &c->flights[i];
				break;
			}
		if (f == NULL) {
			pthread_mutex_unlock(&c->lock);
			return 0;
		}
		f->taken = true;
		pthread_mutex_unlock(&c->lock);
		sc_error_init(&e);
		k = c->tr->unary_finish(f->call, deadline, &f->out, &e);
		pthread_mutex_lock(&c->lock);
		f->taken = false;
		if (k == 0) {
			pthread_mutex_unlock(&c->lock);
			return -1;
		}
		land_locked(c, f, k, &e, &l);
		pthread_mutex_unlock(&c->lock);
		report(c, &l, retry);
	}
}

static void
finish_flights(struct sc_client *c)
{
	if (c->tr->unary_start != NULL)
		(void)wait_flights(c, NULL, false);
}

/*
 * Send a ReleaseAll from this thread without waiting for its reply;
 * false when it must go through the worker instead: a transport without
 * the two-step call, a release of opid queued already, all slots taken,
 * a deadline past (the worker's single short attempt), or a call that
 * did not start.
 */
static bool
release_direct(struct sc_client *c, const char *opid,
    const struct timespec *deadline)
{
	Spark__Connect__ReleaseExecuteRequest req;
	Spark__Connect__ReleaseExecuteRequest__ReleaseAll all;
	Spark__Connect__ReleaseExecuteRequest__ReleaseUntil u;
	struct flight *f = NULL;
	struct timespec dl;
	struct sc_error e;
	struct sc_buf in;
	size_t i;
	void *call = NULL;

	if (c->tr->unary_start == NULL ||
	    (deadline != NULL && sc_ms_until(deadline) <= 0))
		return false;
	collect(c);
	pthread_mutex_lock(&c->lock);
	if (!c->stopping && find_pending(c, opid) == NULL)
		for (i = 0; i < MAX_FLIGHTS; i++)
			if (!c->flights[i].used) {
				f = &c->flights[i];
				f->used = true;
				f->r.opid = sc_xstrdup(opid);
				c->nflights++;
				break;
			}
	pthread_mutex_unlock(&c->lock);
	if (f == NULL)
		return false;
	sc_error_init(&e);
	release_request(&req, &all, &u, opid, NULL);
	sc_client_stamp(c, &req.base);
	sc_buf_init(&in, UNARY_MAX);
	sc_buf_init(&f->out, UNARY_MAX);
	sc_deadline_in_ms(&dl, c->rel_timeout_ms);
	if (deadline != NULL && sc_ms_until(deadline) < sc_ms_until(&dl))
		dl = *deadline;
	if (sc_proto_pack(&req.base, &in, &e) == 0)
		call = c->tr->unary_start(c->ctx, SC_METHOD_RELEASE_EXECUTE,
		    in.data, in.len, &dl, &e);
	sc_buf_release(&in);
	pthread_mutex_lock(&c->lock);
	if (call == NULL) {
		sc_buf_release(&f->out);
		relreq_clear(&f->r);
		memset(f, 0, sizeof(*f));
		c->nflights--;
		pthread_cond_broadcast(&c->idle);
	} else {
		f->call = call;
		set_deadline(&f->r, deadline);
	}
	pthread_mutex_unlock(&c->lock);
	return call != NULL;
}

static void
release_all(struct sc_client *c, const char *opid,
    const struct timespec *deadline)
{
	if (!release_direct(c, opid, deadline))
		queue_all(c, opid, deadline);
}

static void
queue_all(struct sc_client *c, const char *opid,
    const struct timespec *deadline)
{
	struct relreq *r;
	size_t i;

	pthread_mutex_lock(&c->lock);
	if (c->stopping)
		goto out;
	if ((r = find_pending(c, opid)) != NULL) {
		SC_FREE(r->rid);
		set_deadline(r, deadline);
		c->stats.releases_coalesced++;
		pthread_cond_broadcast(&c->cond); /* ends a pacing wait */
		goto out;
	}
	while (c->qlen == c->qcap && !c->stopping) {
		for (i = 0; i < c->qlen; i++)
			if (c->queue[i].rid != NULL)
				break;
		if (i < c->qlen) {
			relreq_clear(&c->queue[i]);
			memmove(&c->queue[i], &c->queue[i + 1],
			    (c->qlen - i - 1) * sizeof(c->queue[0]));
			c->qlen--;
			c->stats.releases_coalesced++;
			break;
		}
		pthread_cond_wait(&c->idle, &c->lock);
	}
	if (c->stopping)
		goto out;
	r = &c->queue[c->qlen++];
	r->opid = sc_xstrdup(opid);
	r->rid = NULL;
	set_deadline(r, deadline);
	pthread_cond_broadcast(&c->cond);
out:
	pthread_mutex_unlock(&c->lock);
}

int
sc_client_release_wait(struct sc_client *c, const struct timespec *deadline)
{
	int rc = 0;

	if (c->tr->unary_start != NULL && wait_flights(c, deadline, true) == -1)
		return -1;
	pthread_mutex_lock(&c->lock);
	while ((c->qlen > 0 || c->busy) && !c->stopping) {
		if (deadline == NULL)
			pthread_cond_wait(&c->idle, &c->lock);
		else if (pthread_cond_timedwait(&c->idle, &c->lock, deadline) ==
		    ETIMEDOUT) {
			rc = (c->qlen > 0 || c->busy) ? -1 : 0;
			break;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}
