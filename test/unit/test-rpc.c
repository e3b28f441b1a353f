/* SPDX-License-Identifier: MIT */

/*
 * test-rpc.c: the gRPC layer end to end on 127.0.0.1 port 0: unary,
 * server and client streaming, errors with details, metadata, unknown
 * methods, deadlines, read watchdogs, cancellation, backpressure, busy
 * ports, unreachable servers, concurrency, TLS and shutdown.
 */

#include "core/rpc.h"
#include "core/rpc_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/timeutil.h"
#include "core/uri.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

#define BIG (64 * 1024) /* message size of the endless stream */

static uint8_t bigmsg[BIG];

/* What the server saw; tests reset the fields they use. */
static atomic_int inf_sent; /* completed sends of /t.T/Infinite */
static atomic_int inf_done; /* its send chain stopped */
static atomic_int inf_closed; /* 1 closed, 2 closed cancelled */
static atomic_int hold_closed; /* same for /t.T/Hold */
static atomic_int slow_closed; /* same for /t.T/Slow */
static atomic_int slow_started; /* calls /t.T/Slow's handler got */
static atomic_int delayed_live; /* worker threads of /t.T/Delayed */
static atomic_int last_unrefs; /* reply_ref buffers released */

/* ------------------------------------------------------------ handlers */

static void
h_echo(struct sc_rpc_call *call, void *arg)
{
	const uint8_t *p;
	size_t n;

	(void)arg;
	p = sc_rpc_call_request(call, &n);
	if (sc_rpc_call_reply(call, p, n) == -1)
		fprintf(stderr, "# echo: reply failed\n");
}

struct count {
	int n, i;
	bool last; /* the last message with the status (reply_ref) */
	char msg[32];
};

static void
last_unref(void *p)
{
	free(p);
	atomic_fetch_add(&last_unrefs, 1);
}

static void count_sent(struct sc_rpc_call *, bool, void *);

/* Send message i of the counting stream, or finish. */
static void
count_next(struct sc_rpc_call *call, struct count *st)
{
	char *cp;
	int len;

	if (st->i == st->n) {
		(void)sc_rpc_call_finish(call, 0, NULL, NULL, 0);
		free(st);
		return;
	}
	len = snprintf(st->msg, sizeof(st->msg), "msg-%d", st->i++);
	if (st->last && st->i == st->n) {
		cp = sc_xstrdup(st->msg);
		(void)sc_rpc_call_reply_ref(call, cp, (size_t)len, last_unref,
		    cp);
		free(st);
		return;
	}
	if (sc_rpc_call_send(call, st->msg, (size_t)len, count_sent, st) == -1)
		free(st);
}

static void
count_sent(struct sc_rpc_call *call, bool ok, void *arg)
{
	if (!ok) {
		free(arg);
		return;
	}
	count_next(call, arg);
}

static void
h_count(struct sc_rpc_call *call, void *arg)
{
	struct count *st;
	const uint8_t *p;
	char tmp[16];
	size_t n;

	(void)arg;
	p = sc_rpc_call_request(call, &n);
	if (n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	st = sc_xcalloc(1, sizeof(*st));
	st->n = (int)strtol(tmp, NULL, 10);
	count_next(call, st);
}

/* As h_count, the last message going out with the status. */
static void
h_count_last(struct sc_rpc_call *call, void *arg)
{
	struct count *st;

	(void)arg;
	st = sc_xcalloc(1, sizeof(*st));
	st->n = 3;
	st->last = true;
	count_next(call, st);
}

static void
h_fail(struct sc_rpc_call *call, void *arg)
{
	struct sc_spark_error se;
	uint8_t *d;
	size_t dlen;

	(void)arg;
	memset(&se, 0, sizeof(se));
	se.errclass = "TEST_ERROR.SUB";
	se.sqlstate = "XX000";
	se.message = "[TEST_ERROR.SUB] it failed";
	se.reason = "org.example.TestException";
	se.error_id = "11111111-2222-3333-4444-555555555555";
	se.code = SC_GRPC_INTERNAL;
	se.retry_delay_ms = -1;
	d = sc_error_encode_details(&se, &dlen);
	(void)sc_rpc_call_finish(call, SC_GRPC_INTERNAL,
	    "[TEST_ERROR.SUB] it failed", d, dlen);
	free(d);
}

struct sum {
	long count, bytes;
};

static void
sum_read(struct sc_rpc_call *call, const void *msg, size_t len, bool ok,
    void *arg)
{
	struct sum *st = arg;
	char reply[64];
	int n;

	if (!ok) {
		free(st);
		return;
	}
	if (msg == NULL) {
		n = snprintf(reply, sizeof(reply), "%ld:%ld", st->count,
		    st->bytes);
		(void)sc_rpc_call_reply(call, reply, (size_t)n);
		free(st);
		return;
	}
	st->count++;
	st->bytes += (long)len;
	if (sc_rpc_call_read(call, sum_read, st) == -1)
		free(st);
}

static void
h_sum(struct sc_rpc_call *call, void *arg)
{
	struct sum *st;

	(void)arg;
	st = sc_xcalloc(1, sizeof(*st));
	if (sc_rpc_call_read(call, sum_read, st) == -1)
		free(st);
}

/* SumInto: as Sum, with sc_rpc_call_read_into() and a hash of the bytes. */
struct sum_into {
	long count, bytes;
	uint32_t hash;
	bool foreign; /* a message was not in our buffer */
	uint8_t *buf;
	size_t cap;
};

static uint32_t
fnv(uint32_t h, const uint8_t *p, size_t n)
{
	while (n-- > 0)
		h = (h ^ *p++) * 16777619u;
	return h;
}

static void *
into_buf(size_t len, void *arg)
{
	struct sum_into *st = arg;

	if (st->buf == NULL || len > st->cap) {
		free(st->buf);
		st->cap = len > 0 ? len : 1;
		st->buf = sc_xmalloc(st->cap);
	}
	return st->buf;
}

static void
into_free(struct sum_into *st)
{
	free(st->buf);
	free(st);
}

static void
into_read(struct sc_rpc_call *call, const void *msg, size_t len, bool ok,
    void *arg)
{
	struct sum_into *st = arg;
	char reply[64];
	int n;

	if (!ok) {
		into_free(st);
		return;
	}
	if (msg == NULL) {
		n = snprintf(reply, sizeof(reply), "%ld:%ld:%08x%s", st->count,
		    st->bytes, (unsigned)st->hash, st->foreign ? "!" : "");
		(void)sc_rpc_call_reply(call, reply, (size_t)n);
		into_free(st);
		return;
	}
	st->count++;
	st->bytes += (long)len;
	st->hash = fnv(st->hash, msg, len);
	if (msg != st->buf)
		st->foreign = true;
	if (sc_rpc_call_read_into(call, into_buf, into_read, st) == -1)
		into_free(st);
}

static void
h_sum_into(struct sc_rpc_call *call, void *arg)
{
	struct sum_into *st;

	(void)arg;
	st = sc_xcalloc(1, sizeof(*st));
	st->hash = 2166136261u;
	if (sc_rpc_call_read_into(call, into_buf, into_read, st) == -1)
		into_free(st);
}

static void
h_meta(struct sc_rpc_call *call, void *arg)
{
	char auth[128], foo[64], reply[300];
	const char *peer;
	int n;

	(void)arg;
	if (sc_rpc_call_metadata(call, "authorization", auth, sizeof(auth)) ==
	    -1)
		snprintf(auth, sizeof(auth), "-");
	if (sc_rpc_call_metadata(call, "x-foo", foo, sizeof(foo)) == -1)
		snprintf(foo, sizeof(foo), "-");
	peer = sc_rpc_call_peer(call);
	n = snprintf(reply, sizeof(reply), "%s|%s|%.14s", auth, foo,
	    peer ? peer : "?");
	(void)sc_rpc_call_reply(call, reply, (size_t)n);
}

static void
note_close(struct sc_rpc_call *call, bool cancelled, void *arg)
{
	(void)call;
	atomic_store((atomic_int *)arg, cancelled ? 2 : 1);
}

/* Never answers: the client's deadline ends it. */
static void
h_slow(struct sc_rpc_call *call, void *arg)
{
	(void)arg;
	sc_rpc_call_on_close(call, note_close, &slow_closed);
	atomic_fetch_add(&slow_started, 1);
}

/* Never sends or finishes; only a cancel (or shutdown) ends it. */
static void
h_hold(struct sc_rpc_call *call, void *arg)
{
	(void)arg;
	sc_rpc_call_on_close(call, note_close, &hold_closed);
}

static void
inf_sent_cb(struct sc_rpc_call *call, bool ok, void *arg)
{
	(void)arg;
	if (!ok) {
		atomic_store(&inf_done, 1);
		return;
	}
	atomic_fetch_add(&inf_sent, 1);
	if (sc_rpc_call_send(call, bigmsg, BIG, inf_sent_cb, NULL) == -1)
		atomic_store(&inf_done, 1);
}

static void
h_infinite(struct sc_rpc_call *call, void *arg)
{
	(void)arg;
	sc_rpc_call_on_close(call, note_close, &inf_closed);
	if (sc_rpc_call_send(call, bigmsg, BIG, inf_sent_cb, NULL) == -1)
		atomic_store(&inf_done, 1);
}

/* A worker thread answers 800 ms later: send, then finish at once. */
static void *
delayed_worker(void *arg)
{
	struct sc_rpc_call *call = arg;

	usleep(800 * 1000);
	(void)sc_rpc_call_send(call, "late", 4, NULL, NULL);
	(void)sc_rpc_call_finish(call, 0, NULL, NULL, 0);
	sc_rpc_call_unref(call);
	atomic_fetch_sub(&delayed_live, 1);
	return NULL;
}

static void
h_delayed(struct sc_rpc_call *call, void *arg)
{
	pthread_t t;

	(void)arg;
	sc_rpc_call_ref(call);
	atomic_fetch_add(&delayed_live, 1);
	if (pthread_create(&t, NULL, delayed_worker, call) != 0) {
		sc_rpc_call_unref(call);
		atomic_fetch_sub(&delayed_live, 1);
		return;
	}
	pthread_detach(t);
}

/* ------------------------------------------------------------ helpers */

static int64_t
elapsed_ms(int64_t t0)
{
	return sc_mono_ms() - t0;
}

/* Poll *v until it equals want or ms pass; returns the last value. */
static int
wait_for(atomic_int *v, int want, int ms)
{
	int64_t t0 = sc_mono_ms();

	while (atomic_load(v) != want && elapsed_ms(t0) < ms)
		usleep(5000);
	return atomic_load(v);
}

/* A channel to prefix PORT suffix, e.g. "sc://127.0.0.1:" 5555 "/;x=y". */
static struct sc_rpc *
client(const char *prefix, int port, const char *suffix)
{
	struct sc_error err;
	struct sc_uri u;
	struct sc_rpc *rpc;
	char spec[256];

	snprintf(spec, sizeof(spec), "%s%d%s", prefix, port, suffix);
	sc_uri_init(&u);
	if (sc_uri_parse(&u, spec, &err) == -1) {
		printf("# uri %s: %s\n", spec, err.msg);
		return NULL;
	}
	rpc = sc_rpc_new(&u, NULL, &err);
	if (rpc == NULL)
		printf("# sc_rpc_new: %s\n", err.msg);
	sc_uri_release(&u);
	return rpc;
}

static int
unary_str(struct sc_rpc *rpc, const char *method, const char *req,
    struct sc_buf *resp, int timeout_ms, struct sc_error *err)
{
	struct timespec dl;

	sc_deadline_in_ms(&dl, timeout_ms);
	sc_buf_reset(resp);
	sc_error_init(err);
	return sc_rpc_unary(rpc, method, req, strlen(req), resp, &dl, err);
}

static int
free_port(void)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd, port;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1) {
		close(fd);
		return -1;
	}
	port = ntohs(sin.sin_port);
	close(fd);
	return port;
}

static struct sc_rpc_server *
server(const char *listen, const char *cert, const char *key, int *portp,
    struct sc_error *err)
{
	static const struct {
		const char *path;
		enum sc_rpc_kind kind;
		sc_rpc_handler_fn *fn;
	} methods[] = {
		{ "/t.T/Echo", SC_RPC_UNARY, h_echo },
		{ "/t.T/Count", SC_RPC_SERVER_STREAM, h_count },
		{ "/t.T/CountLast", SC_RPC_SERVER_STREAM, h_count_last },
		{ "/t.T/Fail", SC_RPC_UNARY, h_fail },
		{ "/t.T/Sum", SC_RPC_CLIENT_STREAM, h_sum },
		{ "/t.T/SumInto", SC_RPC_CLIENT_STREAM, h_sum_into },
		{ "/t.T/Meta", SC_RPC_UNARY, h_meta },
		{ "/t.T/Slow", SC_RPC_UNARY, h_slow },
		{ "/t.T/Hold", SC_RPC_SERVER_STREAM, h_hold },
		{ "/t.T/Infinite", SC_RPC_SERVER_STREAM, h_infinite },
		{ "/t.T/Delayed", SC_RPC_SERVER_STREAM, h_delayed },
	};
	struct sc_rpc_server_opts o;
	struct sc_rpc_server *srv;
	size_t i;

	memset(&o, 0, sizeof(o));
	o.listen = listen;
	o.tls_cert_file = cert;
	o.tls_key_file = key;
	o.nthreads = 2;
	if ((srv = sc_rpc_server_new(&o, err)) == NULL)
		return NULL;
	for (i = 0; i < SC_NELEM(methods); i++)
		if (sc_rpc_server_add_method(srv, methods[i].path,
			methods[i].kind, methods[i].fn, NULL, err) == -1)
			goto fail;
	if (sc_rpc_server_start(srv, portp, err) == -1)
		goto fail;
	return srv;
fail:
	sc_rpc_server_free(srv);
	return NULL;
}

/* ------------------------------------------------------------ tests */

static void
test_unary(struct sc_rpc *rpc)
{
	struct sc_error err;
	struct sc_buf resp;
	struct timespec dl;
	uint8_t *big;
	size_t i, n = 3 * 1024 * 1024 + 17;

	sc_buf_init(&resp, SC_BUF_UNLIMITED);
	is_int(unary_str(rpc, "/t.T/Echo", "hello", &resp, 5000, &err), 0,
	    "unary echo succeeds");
	is_mem(resp.data, resp.len, "hello", 5,
	    "unary echo returns the "
	    "request");
	is_int(unary_str(rpc, "/t.T/Echo", "", &resp, 5000, &err), 0,
	    "unary echo of an empty message");
	is_int(resp.len, 0, "empty reply");

	big = sc_xmalloc(n);
	for (i = 0; i < n; i++)
		big[i] = (uint8_t)(i * 7 + i / 251);
	sc_buf_reset(&resp);
	sc_deadline_in_ms(&dl, 10000);
	is_int(sc_rpc_unary(rpc, "/t.T/Echo", big, n, &resp, &dl, &err), 0,
	    "unary echo of 3 MiB");
	is_mem(resp.data, resp.len, big, n, "3 MiB echoed byte for byte");
	free(big);
	sc_buf_release(&resp);
}

/* The two-step unary call: several on their way, looked at, cancelled. */
static void
test_unary_steps(struct sc_rpc *rpc)
{
	struct sc_rpc_unary *a, *b, *slow;
	struct sc_error err;
	struct sc_buf ra, rb;
	struct timespec dl, now;

	sc_buf_init(&ra, SC_BUF_UNLIMITED);
	sc_buf_init(&rb, SC_BUF_UNLIMITED);
	sc_error_init(&err);
	sc_deadline_in_ms(&dl, 60000);
	a = sc_rpc_unary_start(rpc, "/t.T/Echo", "first", 5, &dl, &err);
	b = sc_rpc_unary_start(rpc, "/t.T/Echo", "second", 6, &dl, &err);
	ok(a != NULL && b != NULL, "two unary calls start without waiting");
	if (a == NULL || b == NULL)
		return;
	/* The later one first: each reply reaches its own call. */
	is_int(sc_rpc_unary_finish(b, NULL, &rb, &err), 1,
	    "the second call finishes first");
	is_mem(rb.data, rb.len, "second", 6, "with its own reply");
	is_int(sc_rpc_unary_finish(a, NULL, &ra, &err), 1,
	    "the first call has finished meanwhile");
	is_mem(ra.data, ra.len, "first", 5, "with its own reply");

	/* A look at a call with no reply yet does not wait. */
	atomic_store(&slow_closed, 0);
	atomic_store(&slow_started, 0);
	slow = sc_rpc_unary_start(rpc, "/t.T/Slow", "x", 1, &dl, &err);
	ok(slow != NULL, "a call to a method that never answers starts");
	if (slow == NULL)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	sc_buf_reset(&ra);
	is_int(sc_rpc_unary_finish(slow, &now, &ra, &err), 0,
	    "a look at it says it still runs");
	is_int(sc_ms_until(&dl) > 30000, 1, "and returns before the deadline");
	/* A cancel that overtook the call would leave the server nothing
	 * to see: cancel once its handler has it. */
	is_int(wait_for(&slow_started, 1, 30000), 1, "the server has the call");
	sc_rpc_unary_cancel(slow);
	sc_error_init(&err);
	is_int(sc_rpc_unary_finish(slow, NULL, &ra, &err), -1,
	    "a cancelled call finishes with an error");
	is_int(err.rpc_code, 1, "CANCELLED");
	is_int(wait_for(&slow_closed, 2, 30000), 2,
	    "the server sees the cancel");

	/* Its deadline ends one that is never looked at before. */
	sc_deadline_in_ms(&dl, 200);
	slow = sc_rpc_unary_start(rpc, "/t.T/Slow", "x", 1, &dl, &err);
	sc_error_init(&err);
	is_int(slow != NULL ? sc_rpc_unary_finish(slow, NULL, &ra, &err) : 0,
	    -1, "a call past its deadline fails");
	is_int(err.status, SC_ST_TIMEOUT, "as a timeout");
	sc_buf_release(&ra);
	sc_buf_release(&rb);
}

static void
test_limit(int port)
{
	struct sc_error err;
	struct sc_buf resp;
	struct sc_rpc *rpc;
	char req[4097];

	rpc = client("sc://127.0.0.1:", port, "/;grpc_max_message_size=1024");
	ok(rpc != NULL, "client with a 1 KiB receive limit");
	if (rpc == NULL)
		return;
	memset(req, 'x', sizeof(req) - 1);
	req[sizeof(req) - 1] = '\0';
	sc_buf_init(&resp, SC_BUF_UNLIMITED);
	is_int(unary_str(rpc, "/t.T/Echo", req, &resp, 5000, &err), -1,
	    "a reply over the receive limit fails");
	is_int(err.rpc_code, SC_GRPC_RESOURCE_EXHAUSTED,
	    "... with RESOURCE_EXHAUSTED");
	is_int(unary_str(rpc, "/t.T/Echo", "small", &resp, 5000, &err), 0,
	    "a small reply still fits");
	sc_buf_release(&resp);
	sc_rpc_free(rpc);
}

static void
test_server_stream(struct sc_rpc *rpc)
{
	struct sc_rpc_stream *s;
	struct sc_error err;
	struct sc_buf msg;
	struct timespec dl;
	char want[32];
	int i, r, good = 0;

	sc_buf_init(&msg, SC_BUF_UNLIMITED);
	sc_deadline_in_ms(&dl, 10000);
	s = sc_rpc_stream_open(rpc, "/t.T/Count", "5", 1, &dl, &err);
	ok(s != NULL, "stream open");
	if (s == NULL)
		return;
	for (i = 0; i < 5; i++) {
		r = sc_rpc_stream_read(s, &msg, NULL, &err);
		snprintf(want, sizeof(want), "msg-%d", i);
		if (r == 1 && msg.len == strlen(want) &&
		    memcmp(msg.data, want, msg.len) == 0)
			good++;
	}
	is_int(good, 5, "five numbered messages in order");
	is_int(sc_rpc_stream_read(s, &msg, NULL, &err), 0,
	    "then the end of the stream");
	is_int(sc_rpc_stream_read(s, &msg, NULL, &err), 0,
	    "reading past the end still says end");
	sc_rpc_stream_free(s);

	s = sc_rpc_stream_open(rpc, "/t.T/Count", "0", 1, &dl, &err);
	is_int(sc_rpc_stream_read(s, &msg, NULL, &err), 0,
	    "empty stream ends at once");
	sc_rpc_stream_free(s);

	/* the last message and the status in one batch (reply_ref) */
	atomic_store(&last_unrefs, 0);
	s = sc_rpc_stream_open(rpc, "/t.T/CountLast", "", 0, &dl, &err);
	for (i = 0, good = 0; s != NULL && i < 3; i++) {
		r = sc_rpc_stream_read(s, &msg, NULL, &err);
		snprintf(want, sizeof(want), "msg-%d", i);
		if (r == 1 && msg.len == strlen(want) &&
		    memcmp(msg.data, want, msg.len) == 0)
			good++;
	}
	is_int(good, 3, "reply_ref: three messages, the last with the status");
	is_int(s != NULL ? sc_rpc_stream_read(s, &msg, NULL, &err) : -2, 0,
	    "reply_ref: then the end of the stream, OK");
	sc_rpc_stream_free(s);
	is_int(wait_for(&last_unrefs, 1, 30000), 1,
	    "reply_ref: the referenced bytes released once");

	/* freeing an unread stream cancels it */
	s = sc_rpc_stream_open(rpc, "/t.T/Count", "1000", 4, &dl, &err);
	is_int(sc_rpc_stream_read(s, &msg, NULL, &err), 1,
	    "first of 1000 messages");
	sc_rpc_stream_free(s);
	sc_buf_release(&msg);
}

static void
test_error(struct sc_rpc *rpc)
{
	struct sc_rpc_stream *s;
	struct sc_error err;
	struct sc_buf resp;
	struct timespec dl;

	sc_buf_init(&resp, SC_BUF_UNLIMITED);
	is_int(unary_str(rpc, "/t.T/Fail", "x", &resp, 5000, &err), -1,
	    "failing call returns -1");
	is_int(err.rpc_code, SC_GRPC_INTERNAL, "rpc_code is INTERNAL");
	is_int(err.status, sc_status_from_grpc(SC_GRPC_INTERNAL),
	    "status is derived from the code");
	is_str(err.msg, "[TEST_ERROR.SUB] it failed", "message");
	is_str(err.errclass, "TEST_ERROR.SUB", "error class from details");
	is_str(err.sqlstate, "XX000", "sqlstate from details");
	is_str(err.error_id, "11111111-2222-3333-4444-555555555555",
	    "error id from details");

	sc_deadline_in_ms(&dl, 5000);
	s = sc_rpc_stream_open(rpc, "/t.T/Fail", "x", 1, &dl, &err);
	sc_error_init(&err);
	is_int(sc_rpc_stream_read(s, &resp, NULL, &err), -1,
	    "error status on a stream read");
	is_str(err.errclass, "TEST_ERROR.SUB", "... with its error class");
	sc_rpc_stream_free(s);
	sc_buf_release(&resp);
}

/*
 * sc_rpc_call_read_into(): messages of several frames come whole, into
 * the handler's buffer, byte for byte.
 */
static void
test_read_into(struct sc_rpc *rpc)
{
	static const size_t sizes[] = { 10, 0, 30000, 100000, 70000, 1 };
	struct sc_rpc_upload *up;
	struct sc_error err;
	struct sc_buf resp;
	struct timespec dl;
	uint8_t *m;
	uint32_t h = 2166136261u;
	char want[64];
	size_t i, k, total = 0;
	int rc = 0;

	sc_buf_init(&resp, SC_BUF_UNLIMITED);
	sc_deadline_in_ms(&dl, 10000);
	up = sc_rpc_upload_open(rpc, "/t.T/SumInto", &dl, &err);
	ok(up != NULL, "read_into: upload open");
	if (up == NULL)
		return;
	m = sc_xmalloc(100000);
	for (i = 0; i < SC_NELEM(sizes); i++) {
		for (k = 0; k < sizes[i]; k++)
			m[k] = (uint8_t)(k * 7 + i);
		h = fnv(h, m, sizes[i]);
		total += sizes[i];
		rc |= sc_rpc_upload_write(up, m, sizes[i], &err);
	}
	is_int(rc, 0, "read_into: 6 writes succeed");
	is_int(sc_rpc_upload_finish(up, &resp, &err), 0,
	    "read_into: upload finish");
	snprintf(want, sizeof(want), "%zu:%zu:%08x", SC_NELEM(sizes), total,
	    (unsigned)h);
	is_str((char *)resp.data, want,
	    "read_into: every message whole, in the handler's buffer");
	sc_rpc_upload_free(up);
	sc_buf_release(&resp);
	free(m);
}

static void
test_upload(struct sc_rpc *rpc)
{
	struct sc_rpc_upload *up;
	struct sc_error err;
	struct sc_buf resp;
	struct timespec dl;
	char chunk[30000];
	int i, rc = 0;

	memset(chunk, 'a', sizeof(chunk));
	sc_buf_init(&resp, SC_BUF_UNLIMITED);
	sc_deadline_in_ms(&dl, 10000);
	up = sc_rpc_upload_open(rpc, "/t.T/Sum", &dl, &err);
	ok(up != NULL, "upload open");
	if (up == NULL)
		return;
	rc |= sc_rpc_upload_write(up, chunk, 10, &err);
	rc |= sc_rpc_upload_write(up, chunk, 20, &err);
	rc |= sc_rpc_upload_write(up, chunk, 30, &err);
	for (i = 0; i < 100; i++)
		rc |= sc_rpc_upload_write(up, chunk, sizeof(chunk), &err);
	rc |= sc_rpc_upload_write(up, chunk, 0, &err);
	is_int(rc, 0, "104 writes succeed");
	is_int(sc_rpc_upload_finish(up, &resp, &err), 0, "upload finish");
	is_str((char *)resp.data, "104:3000060",
	    "server counted messages "
	    "and bytes");
	sc_rpc_upload_free(up);

	up = sc_rpc_upload_open(rpc, "/t.T/Sum", &dl, &err);
	sc_buf_reset(&resp);
	is_int(sc_rpc_upload_finish(up, &resp, &err), 0,
	    "upload without messages");
	is_str((char *)resp.data, "0:0", "... counts nothing");
	sc_rpc_upload_free(up);

	/* an upload cancelled midway, then freed */
	up = sc_rpc_upload_open(rpc, "/t.T/Sum", &dl, &err);
	(void)sc_rpc_upload_write(up, chunk, 10, &err);
	sc_rpc_upload_cancel(up);
	is_int(sc_rpc_upload_finish(up, &resp, &err), -1,
	    "finish after cancel fails");
	is_int(err.rpc_code, SC_GRPC_CANCELLED, "... as CANCELLED");
	sc_rpc_upload_free(up);

	/* the server fails the call while the client is still writing */
	up = sc_rpc_upload_open(rpc, "/t.T/Fail", &dl, &err);
	sc_error_init(&err);
	for (i = 0; i < 1000; i++)
		if (sc_rpc_upload_write(up, chunk, sizeof(chunk), &err) == -1)
			break;
	if (i == 1000)
		(void)sc_rpc_upload_finish(up, &resp, &err);
	is_int(err.rpc_code, SC_GRPC_INTERNAL,
	    "upload failed by the server "
	    "early reports its status (after %d writes)",
	    i);
	is_str(err.errclass, "TEST_ERROR.SUB", "... and its error class");
	is_int(sc_rpc_upload_write(up, chunk, 10, &err), -1,
	    "writing after the failure fails");
	sc_rpc_upload_free(up);

	/* client streaming to an unknown method */
	up = sc_rpc_upload_open(rpc, "/t.T/Nope", &dl, &err);
	(void)sc_rpc_upload_write(up, chunk, 10, &err);
	sc_error_init(&err);
	is_int(sc_rpc_upload_finish(up, &resp, &err), -1,
	    "upload to an unknown method fails");
	is_int(err.rpc_code, SC_GRPC_UNIMPLEMENTED, "... UNIMPLEMENTED");
	sc_rpc_upload_free(up);
	sc_buf_release(&resp);
}

static void
test_metadata(int port)
{
	struct sc_error err;
	struct sc_buf resp;
	struct sc_rpc *rpc;

	sc_buf_init(&resp, SC_BUF_UNLIMITED);
	rpc = client("sc://127.0.0.1:", port, "/;token=s3cr%3Dt;x-foo=bar");
	ok(rpc != NULL, "client with token and x-foo");
	if (rpc == NULL)
		return;
	is_int(unary_str(rpc, "/t.T/Meta", "", &resp, 5000, &err), 0,
	    "metadata call");
	is_str((char *)resp.data, "Bearer s3cr=t|bar|ipv4:127.0.0.1",
	    "server saw authorization, x-foo and the peer");
	sc_rpc_free(rpc);

	rpc = client("127.0.0.1:", port, "");
	is_int(unary_str(rpc, "/t.T/Meta", "", &resp, 5000, &err), 0,
	    "metadata call without token");
	is_str((char *)resp.data, "-|-|ipv4:127.0.0.1", "no metadata sent");
	sc_rpc_free(rpc);
	sc_buf_release(&resp);
}

static void
test_unknown(struct sc_rpc *rpc)
{
	struct sc_rpc_stream *s;
	struct sc_error err;
	struct sc_buf resp;
	struct timespec dl;
	int64_t t0;

	sc_buf_init(&resp, SC_BUF_UNLIMITED);
	t0 = sc_mono_ms();
	is_int(unary_str(rpc, "/t.T/Nope", "x", &resp, 60000, &err), -1,
	    "unknown method fails");
	is_int(err.rpc_code, SC_GRPC_UNIMPLEMENTED, "... with UNIMPLEMENTED");
	ok(elapsed_ms(t0) < 30000, "... before the deadline (%lld ms)",
	    (long long)elapsed_ms(t0));
	ok(strstr(err.msg, "/t.T/Nope") != NULL,
	    "message names the method: "
	    "%s",
	    err.msg);

	sc_deadline_in_ms(&dl, 60000);
	t0 = sc_mono_ms();
	s = sc_rpc_stream_open(rpc, "/other.Svc/Stream", "x", 1, &dl, &err);
	is_int(sc_rpc_stream_read(s, &resp, NULL, &err), -1,
	    "unknown streaming method fails");
	is_int(err.rpc_code, SC_GRPC_UNIMPLEMENTED, "... with UNIMPLEMENTED");
	ok(elapsed_ms(t0) < 30000, "... before the deadline");
	sc_rpc_stream_free(s);
	sc_buf_release(&resp);
}

static void
test_deadline(struct sc_rpc *rpc)
{
	struct sc_error err;
	struct sc_buf resp;
	int64_t t0, ms;

	sc_buf_init(&resp, SC_BUF_UNLIMITED);
	atomic_store(&slow_closed, 0);
	t0 = sc_mono_ms();
	is_int(unary_str(rpc, "/t.T/Slow", "x", &resp, 300, &err), -1,
	    "call past its deadline fails");
	ms = elapsed_ms(t0);
	is_int(err.status, SC_ST_TIMEOUT, "... with SC_ST_TIMEOUT");
	is_int(err.rpc_code, SC_GRPC_DEADLINE_EXCEEDED,
	    "... rpc_code DEADLINE_EXCEEDED");
	is_int(sc_exit_code(&err), 5, "... exit code 5");
	ok(ms >= 250 && ms < 30000, "... after 300 ms or more (%lld)",
	    (long long)ms);
	is_int(wait_for(&slow_closed, 2, 30000), 2,
	    "server call closed as cancelled, never finished");
	sc_buf_release(&resp);
}

static void
test_watchdog(struct sc_rpc *rpc)
{
	struct sc_rpc_stream *s;
	struct sc_error err;
	struct sc_buf msg;
	struct timespec dl, wait;
	int64_t t0, ms;

	sc_buf_init(&msg, SC_BUF_UNLIMITED);
	sc_deadline_in_ms(&dl, 60000);
	s = sc_rpc_stream_open(rpc, "/t.T/Delayed", "", 0, &dl, &err);
	sc_deadline_in_ms(&wait, 100);
	t0 = sc_mono_ms();
	sc_error_init(&err);
	is_int(sc_rpc_stream_read(s, &msg, &wait, &err), -1,
	    "read watchdog expires");
	ms = elapsed_ms(t0);
	is_int(err.status, SC_ST_TIMEOUT, "... with SC_ST_TIMEOUT");
	is_int(err.rpc_code, -1, "... and no rpc code");
	ok(ms >= 90 && ms < 30000, "... after 100 ms, not the deadline (%lld)",
	    (long long)ms);
	sc_deadline_in_ms(&wait, 30000);
	is_int(sc_rpc_stream_read(s, &msg, &wait, &err), 1,
	    "the next read gets the late message");
	is_mem(msg.data, msg.len, "late", 4, "... 'late'");
	is_int(sc_rpc_stream_read(s, &msg, &wait, &err), 0,
	    "then the stream ends");
	sc_rpc_stream_free(s);
	sc_buf_release(&msg);
}

static void *
cancel_later(void *arg)
{
	usleep(200 * 1000);
	sc_rpc_stream_cancel(arg);
	return NULL;
}

static void
test_cancel(struct sc_rpc *rpc)
{
	struct sc_rpc_stream *s;
	struct sc_error err;
	struct sc_buf msg;
	struct timespec dl;
	pthread_t t;
	int64_t t0;
	int i, good = 0;

	sc_buf_init(&msg, SC_BUF_UNLIMITED);
	sc_deadline_in_ms(&dl, 60000);
	atomic_store(&inf_sent, 0);
	atomic_store(&inf_done, 0);
	atomic_store(&inf_closed, 0);
	s = sc_rpc_stream_open(rpc, "/t.T/Infinite", "", 0, &dl, &err);
	for (i = 0; i < 3; i++)
		if (sc_rpc_stream_read(s, &msg, NULL, &err) == 1 &&
		    msg.len == BIG)
			good++;
	is_int(good, 3, "three 64 KiB messages");
	sc_rpc_stream_cancel(s);
	sc_error_init(&err);
	is_int(sc_rpc_stream_read(s, &msg, NULL, &err), -1,
	    "read after cancel fails");
	is_int(err.rpc_code, SC_GRPC_CANCELLED, "... with CANCELLED");
	is_int(wait_for(&inf_closed, 2, 30000), 2,
	    "server close callback saw cancelled=true");
	is_int(wait_for(&inf_done, 1, 30000), 1,
	    "server send chain stopped (sent ok=false)");
	sc_rpc_stream_free(s);

	/* cancel from another thread while a read blocks */
	atomic_store(&hold_closed, 0);
	s = sc_rpc_stream_open(rpc, "/t.T/Hold", "", 0, &dl, &err);
	pthread_create(&t, NULL, cancel_later, s);
	t0 = sc_mono_ms();
	sc_error_init(&err);
	is_int(sc_rpc_stream_read(s, &msg, NULL, &err), -1,
	    "blocked read ends when another thread cancels");
	ok(elapsed_ms(t0) < 30000, "... before the deadline");
	pthread_join(t, NULL);
	is_int(wait_for(&hold_closed, 2, 30000), 2,
	    "server saw the cancel of a call it never finished");
	sc_rpc_stream_free(s);
	sc_buf_release(&msg);
}

static void
test_backpressure(int port)
{
	struct sc_rpc_stream *s;
	struct sc_error err;
	struct timespec dl;
	struct sc_rpc *rpc;
	int prev = -1, cur = 0, stable = 0, i;

	/* a fresh connection: flow-control windows grow with use */
	rpc = client("127.0.0.1:", port, "");
	sc_deadline_in_ms(&dl, 60000);
	atomic_store(&inf_sent, 0);
	atomic_store(&inf_done, 0);
	atomic_store(&inf_closed, 0);
	s = sc_rpc_stream_open(rpc, "/t.T/Infinite", "", 0, &dl, &err);
	for (i = 0; i < 600 && stable < 4; i++) {
		usleep(100 * 1000);
		cur = atomic_load(&inf_sent);
		stable = cur == prev && cur > 0 ? stable + 1 : 0;
		prev = cur;
	}
	is_int(stable, 4, "the server's send chain stalls (%d sends)", cur);
	/* Windows grow with the delays a loaded machine adds, so the
	 * bound is wide; without backpressure the chain never stalls. */
	ok(cur > 0 && cur <= 2048,
	    "... after a bounded number of 64 KiB "
	    "messages (%d)",
	    cur);
	is_int(atomic_load(&inf_done), 0, "... without failing");
	sc_rpc_stream_free(s);
	is_int(wait_for(&inf_closed, 2, 30000), 2,
	    "freeing the unread stream cancels it");
	is_int(wait_for(&inf_done, 1, 30000), 1, "... and stops the chain");
	sc_rpc_free(rpc);
}

static void
test_busy_port(int port)
{
	struct sc_rpc_server *srv;
	struct sc_error err;
	char listen[64], want[128];
	int p2 = 0;

	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	sc_error_init(&err);
	srv = server(listen, NULL, NULL, &p2, &err);
	ok(srv == NULL, "a second server on the same port fails");
	is_int(err.status, SC_ST_IO, "... with SC_ST_IO");
	snprintf(want, sizeof(want), "cannot listen on '%s'", listen);
	is_str(err.msg, want, "... and says where");
	sc_rpc_server_free(srv);
}

static void
test_unreachable(void)
{
	struct sc_error err;
	struct sc_buf resp;
	struct sc_rpc *rpc;
	int64_t t0;
	int port = free_port();

	ok(port > 0, "found a closed port");
	rpc = client("127.0.0.1:", port, "");
	sc_buf_init(&resp, SC_BUF_UNLIMITED);
	t0 = sc_mono_ms();
	is_int(unary_str(rpc, "/t.T/Echo", "x", &resp, 60000, &err), -1,
	    "call to a closed port fails");
	is_int(err.status, SC_ST_UNAVAILABLE, "... UNAVAILABLE");
	is_int(err.rpc_code, SC_GRPC_UNAVAILABLE, "... rpc_code 14");
	is_int(sc_exit_code(&err), 4, "... exit code 4");
	ok(elapsed_ms(t0) < 30000, "... without waiting for the deadline");
	sc_buf_release(&resp);
	sc_rpc_free(rpc);
}

struct conc {
	struct sc_rpc *rpc;
	int id;
	int good;
};

static void *
conc_main(void *arg)
{
	struct conc *c = arg;
	struct sc_error err;
	struct sc_buf resp;
	char req[64];
	int i;

	sc_buf_init(&resp, SC_BUF_UNLIMITED);
	for (i = 0; i < 200; i++) {
		snprintf(req, sizeof(req), "thread %d call %d", c->id, i);
		if (unary_str(c->rpc, "/t.T/Echo", req, &resp, 10000, &err) ==
			0 &&
		    strcmp((char *)resp.data, req) == 0)
			c->good++;
	}
	sc_buf_release(&resp);
	return NULL;
}

static void
test_concurrent(struct sc_rpc *rpc)
{
	struct conc c[4];
	pthread_t t[4];
	int i, good = 0;

	for (i = 0; i < 4; i++) {
		c[i].rpc = rpc;
		c[i].id = i;
		c[i].good = 0;
		pthread_create(&t[i], NULL, conc_main, &c[i]);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		good += c[i].good;
	}
	is_int(good, 800, "800 concurrent unary calls from 4 threads");
}

static void
test_tls(void)
{
	struct sc_rpc_server *srv;
	struct sc_error err;
	struct sc_buf resp;
	struct sc_uri u;
	struct sc_rpc *rpc;
	char dir[64], cmd[1024];
	char crt[128], key[128], spec[320];
	int port = 0;

	tap_template(dir, sizeof(dir), "test-rpc-");
	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(crt, sizeof(crt), "%s/server.crt", dir);
	snprintf(key, sizeof(key), "%s/server.key", dir);
	snprintf(cmd, sizeof(cmd),
	    "openssl req -x509 -newkey rsa:2048 "
	    "-nodes -keyout %s -out %s -days 2 -subj /CN=localhost "
	    "-addext subjectAltName=DNS:localhost,IP:127.0.0.1 "
	    ">/dev/null 2>&1",
	    key, crt);
	if (system(cmd) != 0) {
		printf("ok %d - TLS # skip no openssl\n", ++tap_n);
		rmdir(dir);
		return;
	}
	srv = server("127.0.0.1:0", crt, key, &port, &err);
	ok(srv != NULL, "TLS server starts");
	sc_buf_init(&resp, SC_BUF_UNLIMITED);
	if (srv != NULL) {
		snprintf(spec, sizeof(spec), "sc://localhost:%d/;use_ssl=true",
		    port);
		sc_uri_init(&u);
		(void)sc_uri_parse(&u, spec, &err);
		rpc = sc_rpc_new(&u, crt, &err);
		is_int(unary_str(rpc, "/t.T/Echo", "secure", &resp, 5000, &err),
		    0, "echo over TLS with the CA file");
		is_str((char *)resp.data, "secure", "... returns the request");
		sc_rpc_free(rpc);
		sc_uri_release(&u);

		rpc = client("127.0.0.1:", port, "");
		is_int(unary_str(rpc, "/t.T/Echo", "x", &resp, 5000, &err), -1,
		    "plaintext client on a TLS port fails");
		is_int(err.rpc_code, SC_GRPC_UNAVAILABLE, "... UNAVAILABLE");
		sc_rpc_free(rpc);
		sc_rpc_server_free(srv);
	}
	sc_error_init(&err);
	srv = server("127.0.0.1:0", crt, "/nonexistent/key", &port, &err);
	ok(srv == NULL && err.status == SC_ST_IO,
	    "a missing key file is SC_ST_IO: %s", err.msg);
	sc_buf_release(&resp);
	unlink(crt);
	unlink(key);
	rmdir(dir);
}

static void
test_shutdown(struct sc_rpc_server *srv, struct sc_rpc *rpc)
{
	struct sc_rpc_stream *hold, *inf;
	struct sc_error err;
	struct sc_buf msg;
	struct timespec dl;
	int64_t t0, ms;

	sc_buf_init(&msg, SC_BUF_UNLIMITED);
	sc_deadline_in_ms(&dl, 30000);
	atomic_store(&hold_closed, 0);
	atomic_store(&inf_closed, 0);
	atomic_store(&inf_done, 0);
	hold = sc_rpc_stream_open(rpc, "/t.T/Hold", "", 0, &dl, &err);
	inf = sc_rpc_stream_open(rpc, "/t.T/Infinite", "", 0, &dl, &err);
	is_int(sc_rpc_stream_read(inf, &msg, NULL, &err), 1,
	    "endless stream is live");
	t0 = sc_mono_ms();
	sc_rpc_server_shutdown(srv);
	ms = elapsed_ms(t0);
	ok(ms < 2000, "shutdown with live streams returns in %lld ms",
	    (long long)ms);
	is_int(atomic_load(&hold_closed), 2, "the held call was cancelled");
	is_int(atomic_load(&inf_closed), 2, "the endless call was cancelled");
	is_int(atomic_load(&inf_done), 1, "its send chain was told");
	sc_rpc_server_shutdown(srv);
	ok(1, "shutdown is idempotent");
	sc_error_init(&err);
	is_int(sc_rpc_stream_read(hold, &msg, NULL, &err), -1,
	    "the client's held stream fails");
	ok(err.rpc_code == SC_GRPC_UNAVAILABLE ||
		err.rpc_code == SC_GRPC_CANCELLED,
	    "... UNAVAILABLE or "
	    "CANCELLED (%d)",
	    err.rpc_code);
	while (sc_rpc_stream_read(inf, &msg, NULL, &err) == 1)
		;
	ok(err.rpc_code == SC_GRPC_UNAVAILABLE ||
		err.rpc_code == SC_GRPC_CANCELLED,
	    "the endless stream fails "
	    "too (%d)",
	    err.rpc_code);
	sc_rpc_stream_free(hold);
	sc_rpc_stream_free(inf);
	sc_buf_release(&msg);
}

int
main(void)
{
	struct sc_rpc_server *srv;
	struct sc_error err;
	struct sc_rpc *rpc;
	int port = 0;

	memset(bigmsg, 'b', sizeof(bigmsg));
	srv = server("127.0.0.1:0", NULL, NULL, &port, &err);
	ok(srv != NULL, "server starts on 127.0.0.1:0");
	if (srv == NULL) {
		printf("# %s\n", err.msg);
		return tap_done();
	}
	ok(port > 0, "bound port %d", port);
	rpc = client("127.0.0.1:", port, "");
	ok(rpc != NULL, "client channel");
	if (rpc == NULL)
		return tap_done();

	test_unary(rpc);
	test_unary_steps(rpc);
	test_limit(port);
	test_server_stream(rpc);
	test_error(rpc);
	test_upload(rpc);
	test_read_into(rpc);
	test_metadata(port);
	test_unknown(rpc);
	test_deadline(rpc);
	test_watchdog(rpc);
	test_cancel(rpc);
	test_backpressure(port);
	test_busy_port(port);
	test_unreachable();
	test_concurrent(rpc);
	test_tls();
	test_shutdown(srv, rpc);

	sc_rpc_free(rpc);
	sc_rpc_server_free(srv);
	is_int(wait_for(&delayed_live, 0, 30000), 0, "worker threads done");
	return tap_done();
}
