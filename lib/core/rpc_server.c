/* SPDX-License-Identifier: MIT */

/*
 * rpc_server.c: the server half of the gRPC module.  One completion
 * queue per thread; each call is pinned to one queue and guarded by a
 * per-call mutex (the rules are in rpc_server.h).
 */

#include "core/rpc_server.h"

#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/log.h"
#include "core/rpc.h"
#include "core/rpc_int.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "core/banned.h"

#define ARMED 4 /* requests armed per method, queue */
#define DEFAULT_GRACE_MS 10000
#define DEFAULT_IDLE_MS (30L * 60 * 1000)
#define PROBE_MISSES 3 /* failed probes in a row that mean deaf */

/*
 * The whole message as one slice (a reference to the only slice when it
 * is uncompressed and contiguous, else one copy).  -1 if it cannot be
 * decompressed.
 */
static int
bb_flatten(grpc_byte_buffer *bb, grpc_slice *out)
{
	grpc_byte_buffer_reader r;

	if (bb->type == GRPC_BB_RAW &&
	    bb->data.raw.compression == GRPC_COMPRESS_NONE &&
	    bb->data.raw.slice_buffer.count == 1) {
		*out = grpc_slice_ref(bb->data.raw.slice_buffer.slices[0]);
		return 0;
	}
	if (!grpc_byte_buffer_reader_init(&r, bb))
		return -1;
	*out = grpc_byte_buffer_reader_readall(&r);
	grpc_byte_buffer_reader_destroy(&r);
	return 0;
}

enum tag_kind {
	TAG_NEW, /* a requested call arrived (or the request failed) */
	TAG_CLOSE, /* RECV_CLOSE_ON_SERVER */
	TAG_SEND, /* SEND_MESSAGE (+ initial metadata) */
	TAG_STATUS, /* SEND_STATUS (+ initial metadata, message) */
	TAG_READ, /* RECV_MESSAGE */
	TAG_SHUTDOWN /* grpc_server_shutdown_and_notify */
};

struct tag {
	enum tag_kind kind;
	struct sc_rpc_call *call;
};

struct method {
	char *path;
	enum sc_rpc_kind kind;
	sc_rpc_handler_fn *fn;
	void *arg;
	void *handle;
};

struct cqt {
	struct sc_rpc_server *srv;
	grpc_completion_queue *cq;
	pthread_t tid;
	bool running;
};

enum srv_state { SRV_NEW, SRV_RUNNING, SRV_STOPPING, SRV_STOPPED };

struct sc_rpc_server {
	grpc_server *gs;
	char *listen;
	char *cert_file;
	char *key_file;
	int nthreads;
	struct method **methods;
	size_t nmethods;
	struct cqt *cqts;
	size_t ncqts; /* created queues */
	atomic_bool stopping; /* no more re-arming */
	struct tag shutdown_tag;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	enum srv_state state; /* under mu */
	size_t ncalls; /* call objects alive (mu) */
	bool shutdown_done; /* under mu */
	sc_rpc_details_fn *details_fn; /* set before start, then read-only */
	sc_rpc_gate_fn *gate_fn; /* likewise */
	void *gate_arg;
	sc_rpc_done_fn *done_fn; /* likewise */
	void *done_arg;
	struct sc_rpc_listen_opts lopts;
	struct sc_rpc_listener *listener; /* plaintext: our accept loop */
	int port;
	int64_t grace_ms; /* TLS: handshake timeout, probe interval */
	sc_rpc_deaf_fn *on_deaf;
	void *deaf_arg;
	pthread_t probe_tid;
	bool probing; /* the TLS watchdog runs; stop under mu */
	bool probe_stop;
};

struct sc_rpc_call {
	struct sc_rpc_server *srv;
	struct method *m; /* NULL: catch-all */
	struct cqt *cqt;
	grpc_call *call;
	gpr_timespec deadline;
	grpc_metadata_array req_md;
	grpc_call_details cd; /* catch-all only */
	grpc_byte_buffer *req_bb;
	grpc_slice req; /* the request message */
	atomic_int refs;
	int close_cancelled; /* RECV_CLOSE_ON_SERVER out */
	int64_t arrived_us; /* monotonic, for sc_rpc_done_fn */
	struct tag t_new, t_close, t_send, t_status, t_read;

	pthread_mutex_t mu; /* everything below */
	char *peer;
	bool md_sent; /* initial metadata started */
	bool sending; /* a SEND_MESSAGE outstanding */
	bool deferred; /* status waits for the send */
	bool finished; /* finish or reply was called */
	bool closed; /* RECV_CLOSE completed */
	bool dead; /* a batch was refused */
	bool reading;
	grpc_byte_buffer *send_bb; /* message in flight */
	grpc_byte_buffer *recv_bb;
	sc_rpc_sent_fn *sent_fn;
	void *sent_arg;
	sc_rpc_read_fn *read_fn;
	sc_rpc_buf_fn *read_buf; /* sc_rpc_call_read_into() */
	void *read_arg;
	sc_rpc_close_fn *close_fn;
	void *close_arg;
	grpc_status_code st_code;
	grpc_slice st_msg;
	grpc_metadata st_md; /* grpc-status-details-bin */
	bool st_has_md;
};

static int64_t
mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void
call_free(struct sc_rpc_call *c)
{
	struct sc_rpc_server *srv = c->srv;

	if (c->call != NULL)
		grpc_call_unref(c->call);
	grpc_metadata_array_destroy(&c->req_md);
	grpc_call_details_destroy(&c->cd);
	if (c->req_bb != NULL)
		grpc_byte_buffer_destroy(c->req_bb);
	if (c->send_bb != NULL)
		grpc_byte_buffer_destroy(c->send_bb);
	if (c->recv_bb != NULL)
		grpc_byte_buffer_destroy(c->recv_bb);
	grpc_slice_unref(c->req);
	grpc_slice_unref(c->st_msg);
	if (c->st_has_md)
		grpc_slice_unref(c->st_md.value);
	free(c->peer);
	pthread_mutex_destroy(&c->mu);
	free(c);

	pthread_mutex_lock(&srv->mu);
	if (--srv->ncalls == 0)
		pthread_cond_broadcast(&srv->cv);
	pthread_mutex_unlock(&srv->mu);
}

void
sc_rpc_call_ref(struct sc_rpc_call *c)
{
	atomic_fetch_add(&c->refs, 1);
}

void
sc_rpc_call_unref(struct sc_rpc_call *c)
{
	if (c != NULL && atomic_fetch_sub(&c->refs, 1) == 1)
		call_free(c);
}

static struct sc_rpc_call *
call_new(struct sc_rpc_server *srv, struct method *m, struct cqt *t)
{
	struct sc_rpc_call *c;

	c = sc_xcalloc(1, sizeof(*c));
	c->srv = srv;
	c->m = m;
	c->cqt = t;
	atomic_init(&c->refs, 1);
	grpc_metadata_array_init(&c->req_md);
	grpc_call_details_init(&c->cd);
	c->req = grpc_empty_slice();
	c->st_msg = grpc_empty_slice();
	pthread_mutex_init(&c->mu, NULL);
	c->t_new.kind = TAG_NEW;
	c->t_close.kind = TAG_CLOSE;
	c->t_send.kind = TAG_SEND;
	c->t_status.kind = TAG_STATUS;
	c->t_read.kind = TAG_READ;
	c->t_new.call = c->t_close.call = c->t_send.call = c;
	c->t_status.call = c->t_read.call = c;
	pthread_mutex_lock(&srv->mu);
	srv->ncalls++;
	pthread_mutex_unlock(&srv->mu);
	return c;
}

/* Arm one request for m (NULL: the catch-all) on queue t. */
static void
arm(struct sc_rpc_server *srv, struct method *m, struct cqt *t)
{
	struct sc_rpc_call *c;
	grpc_call_error rc;

	c = call_new(srv, m, t);
	if (m != NULL)
		rc = grpc_server_request_registered_call(srv->gs, m->handle,
		    &c->call, &c->deadline, &c->req_md,
		    m->kind == SC_RPC_CLIENT_STREAM ? NULL : &c->req_bb, t->cq,
		    t->cq, &c->t_new);
	else
		rc = grpc_server_request_call(srv->gs, &c->call, &c->cd,
		    &c->req_md, t->cq, t->cq, &c->t_new);
	if (rc != GRPC_CALL_OK) {
		sc_debug("cannot request a call: %s",
		    grpc_call_error_to_string(rc));
		sc_rpc_call_unref(c);
	}
}

/*
 * Start a batch for c with c->mu held, holding a reference until its
 * completion has run (pitfall 5).  A refused batch poisons the call
 * (pitfall 3): it is cancelled and marked dead.
 */
static int
call_start(struct sc_rpc_call *c, const grpc_op *ops, size_t n, struct tag *t)
{
	grpc_call_error rc;

	sc_rpc_call_ref(c);
	rc = grpc_call_start_batch(c->call, ops, n, t, NULL);
	if (rc == GRPC_CALL_OK)
		return 0;
	sc_debug("batch refused: %s", grpc_call_error_to_string(rc));
	c->dead = true;
	grpc_call_cancel(c->call, NULL);
	/* the caller holds another reference: this never frees */
	atomic_fetch_sub(&c->refs, 1);
	return -1;
}

/* Add SEND_INITIAL_METADATA to ops if it has not gone out yet. */
static size_t
add_initial_md(struct sc_rpc_call *c, grpc_op *ops)
{
	if (c->md_sent)
		return 0;
	sc_rpc_op(&ops[0], GRPC_OP_SEND_INITIAL_METADATA);
	return 1;
}

/* With c->mu held: send the stored status (pitfall 1: with metadata). */
static int
start_status(struct sc_rpc_call *c)
{
	grpc_op ops[2];
	size_t n;

	n = add_initial_md(c, ops);
	sc_rpc_op(&ops[n], GRPC_OP_SEND_STATUS_FROM_SERVER);
	ops[n].data.send_status_from_server.status = c->st_code;
	ops[n].data.send_status_from_server.status_details = &c->st_msg;
	if (c->st_has_md) {
		ops[n].data.send_status_from_server.trailing_metadata =
		    &c->st_md;
		ops[n].data.send_status_from_server.trailing_metadata_count = 1;
	}
	n++;
	if (call_start(c, ops, n, &c->t_status) == -1)
		return -1;
	c->md_sent = true;
	return 0;
}

static bool
usable(const struct sc_rpc_call *c)
{
	return !c->finished && !c->closed && !c->dead;
}

/* The message, len: copied, or (unref not NULL) referenced in place. */
static grpc_byte_buffer *
msg_bb(const void *msg, size_t len, void (*unref)(void *), void *ref)
{
	grpc_byte_buffer *bb;
	grpc_slice sl;

	if (unref == NULL)
		return sc_rpc_make_bb(msg, len);
	sl = grpc_slice_new_with_user_data((void *)msg, len, unref, ref);
	bb = grpc_raw_byte_buffer_create(&sl, 1);
	grpc_slice_unref(sl);
	return bb;
}

/*
 * Send the message msg, len: copied, or (unref not NULL) referenced in
 * place and released with unref(ref) once gRPC is done with it.
 */
static int
call_send(struct sc_rpc_call *c, const void *msg, size_t len,
    void (*unref)(void *), void *ref, sc_rpc_sent_fn *sent, void *arg)
{
	grpc_op ops[2];
	size_t n;
	int rc = -1;

	sc_rpc_call_ref(c);
	pthread_mutex_lock(&c->mu);
	if (usable(c) && !c->sending) {
		n = add_initial_md(c, ops);
		c->send_bb = msg_bb(msg, len, unref, ref);
		unref = NULL;
		sc_rpc_op(&ops[n], GRPC_OP_SEND_MESSAGE);
		ops[n++].data.send_message.send_message = c->send_bb;
		c->sending = true;
		c->sent_fn = sent;
		c->sent_arg = arg;
		if (call_start(c, ops, n, &c->t_send) == 0) {
			c->md_sent = true;
			rc = 0;
		} else {
			c->sending = false;
			grpc_byte_buffer_destroy(c->send_bb);
			c->send_bb = NULL;
		}
	}
	pthread_mutex_unlock(&c->mu);
	sc_rpc_call_unref(c);
	if (unref != NULL)
		unref(ref);
	return rc;
}

int
sc_rpc_call_send(struct sc_rpc_call *c, const void *msg, size_t len,
    sc_rpc_sent_fn *sent, void *arg)
{
	return call_send(c, msg, len, NULL, NULL, sent, arg);
}

int
sc_rpc_call_send_ref(struct sc_rpc_call *c, const void *msg, size_t len,
    void (*unref)(void *), void *ref, sc_rpc_sent_fn *sent, void *arg)
{
	return call_send(c, msg, len, unref, ref, sent, arg);
}

static int
call_reply(struct sc_rpc_call *c, const void *msg, size_t len,
    void (*unref)(void *), void *ref)
{
	grpc_op ops[3];
	size_t n;
	int rc = -1;

	sc_rpc_call_ref(c);
	pthread_mutex_lock(&c->mu);
	if (usable(c) && !c->sending) {
		c->finished = true;
		n = add_initial_md(c, ops);
		c->send_bb = msg_bb(msg, len, unref, ref);
		unref = NULL;
		sc_rpc_op(&ops[n], GRPC_OP_SEND_MESSAGE);
		ops[n++].data.send_message.send_message = c->send_bb;
		sc_rpc_op(&ops[n], GRPC_OP_SEND_STATUS_FROM_SERVER);
		ops[n++].data.send_status_from_server.status = GRPC_STATUS_OK;
		if (call_start(c, ops, n, &c->t_status) == 0) {
			c->md_sent = true;
			rc = 0;
		}
	}
	pthread_mutex_unlock(&c->mu);
	sc_rpc_call_unref(c);
	if (unref != NULL)
		unref(ref);
	return rc;
}

int
sc_rpc_call_reply(struct sc_rpc_call *c, const void *msg, size_t len)
{
	return call_reply(c, msg, len, NULL, NULL);
}

int
sc_rpc_call_reply_ref(struct sc_rpc_call *c, const void *msg, size_t len,
    void (*unref)(void *), void *ref)
{
	return call_reply(c, msg, len, unref, ref);
}

int
sc_rpc_call_finish(struct sc_rpc_call *c, int code, const char *msg,
    const void *details, size_t details_len)
{
	uint8_t *made = NULL;
	int rc = -1;

	if ((details == NULL || details_len == 0) && code != SC_GRPC_OK &&
	    c->srv->details_fn != NULL &&
	    (made = c->srv->details_fn(code, msg ? msg : "", &details_len)) !=
		NULL)
		details = made;
	sc_rpc_call_ref(c);
	pthread_mutex_lock(&c->mu);
	if (usable(c)) {
		c->finished = true;
		if (code < 0 || code > SC_GRPC_UNAUTHENTICATED)
			code = SC_GRPC_UNKNOWN;
		c->st_code = (grpc_status_code)code;
		c->st_msg = grpc_slice_from_copied_string(msg ? msg : "");
		if (details != NULL && details_len > 0) {
			c->st_md.key =
			    grpc_slice_from_static_string(SC_RPC_DETAILS_KEY);
			c->st_md.value =
			    grpc_slice_from_copied_buffer(details, details_len);
			c->st_has_md = true;
		}
		if (c->sending) {
			c->deferred = true;
			rc = 0;
		} else
			rc = start_status(c);
	}
	pthread_mutex_unlock(&c->mu);
	sc_rpc_call_unref(c);
	free(made);
	return rc;
}

static int
start_read(struct sc_rpc_call *c, sc_rpc_buf_fn *buf, sc_rpc_read_fn *fn,
    void *arg)
{
	grpc_op op;
	int rc = -1;

	if (fn == NULL)
		return -1;
	sc_rpc_call_ref(c);
	pthread_mutex_lock(&c->mu);
	if (!c->closed && !c->dead && !c->reading) {
		sc_rpc_op(&op, GRPC_OP_RECV_MESSAGE);
		op.data.recv_message.recv_message = &c->recv_bb;
		c->reading = true;
		c->read_fn = fn;
		c->read_buf = buf;
		c->read_arg = arg;
		if (call_start(c, &op, 1, &c->t_read) == 0)
			rc = 0;
		else
			c->reading = false;
	}
	pthread_mutex_unlock(&c->mu);
	sc_rpc_call_unref(c);
	return rc;
}

int
sc_rpc_call_read(struct sc_rpc_call *c, sc_rpc_read_fn *fn, void *arg)
{
	return start_read(c, NULL, fn, arg);
}

int
sc_rpc_call_read_into(struct sc_rpc_call *c, sc_rpc_buf_fn *buf,
    sc_rpc_read_fn *fn, void *arg)
{
	if (buf == NULL)
		return -1;
	return start_read(c, buf, fn, arg);
}

void
sc_rpc_call_on_close(struct sc_rpc_call *c, sc_rpc_close_fn *fn, void *arg)
{
	pthread_mutex_lock(&c->mu);
	c->close_fn = fn;
	c->close_arg = arg;
	pthread_mutex_unlock(&c->mu);
}

const uint8_t *
sc_rpc_call_request(struct sc_rpc_call *c, size_t *lenp)
{
	*lenp = GRPC_SLICE_LENGTH(c->req);
	return GRPC_SLICE_START_PTR(c->req);
}

int
sc_rpc_call_metadata(struct sc_rpc_call *c, const char *key, char *out,
    size_t outsz)
{
	const grpc_metadata *md;
	size_t i, n;

	for (i = 0; i < c->req_md.count; i++) {
		md = &c->req_md.metadata[i];
		if (grpc_slice_str_cmp(md->key, key) != 0)
			continue;
		if (outsz == 0)
			return 0;
		n = GRPC_SLICE_LENGTH(md->value);
		if (n >= outsz)
			n = outsz - 1;
		memcpy(out, GRPC_SLICE_START_PTR(md->value), n);
		out[n] = '\0';
		return 0;
	}
	return -1;
}

/*
 * With c->mu held: the call's peer, once.  gRPC names a connection of
 * our accept loop "fd:N"; the loop knows its address.  It is asked when
 * the call arrives, while fd N is surely that connection.
 */
static void
find_peer(struct sc_rpc_call *c)
{
	char *g;

	if (c->peer != NULL)
		return;
	g = grpc_call_get_peer(c->call);
	if ((c->peer = sc_rpc_listener_peer(c->srv->listener, g)) == NULL)
		c->peer = sc_xstrdup(g != NULL ? g : "unknown");
	gpr_free(g);
}

const char *
sc_rpc_call_peer(struct sc_rpc_call *c)
{
	const char *p;

	pthread_mutex_lock(&c->mu);
	find_peer(c);
	p = c->peer;
	pthread_mutex_unlock(&c->mu);
	return p;
}

/* Unknown method: answer at once (pitfall 2). */
static void
on_unknown(struct sc_rpc_call *c)
{
	grpc_op ops[2];
	char msg[300];
	uint8_t *details;
	size_t len;

	snprintf(msg, sizeof(msg), "unknown method '%.*s'",
	    (int)GRPC_SLICE_LENGTH(c->cd.method) > 256
		? 256
		: (int)GRPC_SLICE_LENGTH(c->cd.method),
	    (const char *)GRPC_SLICE_START_PTR(c->cd.method));
	c->st_msg = grpc_slice_from_copied_string(msg);
	sc_rpc_op(&ops[0], GRPC_OP_SEND_INITIAL_METADATA);
	sc_rpc_op(&ops[1], GRPC_OP_SEND_STATUS_FROM_SERVER);
	ops[1].data.send_status_from_server.status = GRPC_STATUS_UNIMPLEMENTED;
	ops[1].data.send_status_from_server.status_details = &c->st_msg;
	if (c->srv->details_fn != NULL &&
	    (details = c->srv->details_fn(SC_GRPC_UNIMPLEMENTED, msg, &len)) !=
		NULL) {
		c->st_md.key =
		    grpc_slice_from_static_string(SC_RPC_DETAILS_KEY);
		c->st_md.value =
		    grpc_slice_from_copied_buffer((char *)details, len);
		c->st_has_md = true;
		free(details);
		ops[1].data.send_status_from_server.trailing_metadata =
		    &c->st_md;
		ops[1].data.send_status_from_server.trailing_metadata_count = 1;
	}
	pthread_mutex_lock(&c->mu);
	c->finished = true;
	c->st_code = GRPC_STATUS_UNIMPLEMENTED;
	(void)call_start(c, ops, SC_NELEM(ops), &c->t_status);
	pthread_mutex_unlock(&c->mu);
}

/*
 * A call to a method nobody registered.  Its end is watched as a known
 * method's is, so the gate may finish it as a handler would.
 */
static void
on_catch_all(struct sc_rpc_call *c)
{
	grpc_op op;
	int rc;

	sc_rpc_op(&op, GRPC_OP_RECV_CLOSE_ON_SERVER);
	op.data.recv_close_on_server.cancelled = &c->close_cancelled;
	pthread_mutex_lock(&c->mu);
	rc = call_start(c, &op, 1, &c->t_close);
	if (rc == -1)
		c->closed = true;
	pthread_mutex_unlock(&c->mu);
	if (rc == 0 &&
	    (c->srv->gate_fn == NULL || c->srv->gate_fn(c, c->srv->gate_arg)))
		on_unknown(c);
}

static void
on_new(struct sc_rpc_call *c, bool ok)
{
	struct method *m = c->m;
	grpc_op op;
	bool bad = false;
	int rc;

	if (!ok) { /* shutting down */
		sc_rpc_call_unref(c);
		return;
	}
	c->arrived_us = mono_us();
	if (!atomic_load(&c->srv->stopping))
		arm(c->srv, m, c->cqt);
	if (c->srv->listener != NULL) {
		pthread_mutex_lock(&c->mu);
		find_peer(c);
		pthread_mutex_unlock(&c->mu);
	}
	if (m == NULL) {
		on_catch_all(c);
		sc_rpc_call_unref(c);
		return;
	}
	if (m->kind != SC_RPC_CLIENT_STREAM &&
	    (c->req_bb == NULL || bb_flatten(c->req_bb, &c->req) == -1))
		bad = true;

	sc_rpc_op(&op, GRPC_OP_RECV_CLOSE_ON_SERVER);
	op.data.recv_close_on_server.cancelled = &c->close_cancelled;
	pthread_mutex_lock(&c->mu);
	rc = call_start(c, &op, 1, &c->t_close);
	if (rc == -1)
		c->closed = true;
	pthread_mutex_unlock(&c->mu);

	if (rc == 0 && bad)
		(void)sc_rpc_call_finish(c, SC_GRPC_INTERNAL,
		    c->req_bb == NULL ? "missing request message"
				      : "cannot decompress the request message",
		    NULL, 0);
	else if (rc == 0)
		m->fn(c, m->arg);
	sc_rpc_call_unref(c);
}

static void
on_send(struct sc_rpc_call *c, bool ok)
{
	grpc_byte_buffer *bb;
	sc_rpc_sent_fn *fn;
	void *arg;

	pthread_mutex_lock(&c->mu);
	c->sending = false;
	bb = c->send_bb;
	c->send_bb = NULL;
	fn = c->sent_fn;
	arg = c->sent_arg;
	c->sent_fn = NULL;
	if (c->deferred) {
		c->deferred = false;
		if (ok && !c->closed && !c->dead)
			(void)start_status(c);
	}
	pthread_mutex_unlock(&c->mu);
	grpc_byte_buffer_destroy(bb);
	if (fn != NULL)
		fn(c, ok, arg);
	sc_rpc_call_unref(c);
}

static void
on_status(struct sc_rpc_call *c)
{
	grpc_byte_buffer *bb;

	pthread_mutex_lock(&c->mu);
	bb = c->send_bb; /* a unary reply */
	c->send_bb = NULL;
	pthread_mutex_unlock(&c->mu);
	if (bb != NULL)
		grpc_byte_buffer_destroy(bb);
	sc_rpc_call_unref(c);
}

/*
 * Copy bb into a buffer from buf(len, arg), once: straight from the
 * received slices when bb is plain.  The buffer, or NULL.
 */
static void *
bb_copy(grpc_byte_buffer *bb, sc_rpc_buf_fn *buf, void *arg, size_t *lenp)
{
	const grpc_slice_buffer *sb;
	grpc_slice s;
	uint8_t *dst;
	size_t i, off = 0, n;

	if (bb->type != GRPC_BB_RAW ||
	    bb->data.raw.compression != GRPC_COMPRESS_NONE) {
		if (bb_flatten(bb, &s) == -1)
			return NULL;
		*lenp = GRPC_SLICE_LENGTH(s);
		if ((dst = buf(*lenp, arg)) != NULL && *lenp > 0)
			memcpy(dst, GRPC_SLICE_START_PTR(s), *lenp);
		grpc_slice_unref(s);
		return dst;
	}
	sb = &bb->data.raw.slice_buffer;
	*lenp = sb->length;
	if ((dst = buf(sb->length, arg)) == NULL)
		return NULL;
	for (i = 0; i < sb->count; i++) {
		n = GRPC_SLICE_LENGTH(sb->slices[i]);
		if (n > 0)
			memcpy(dst + off, GRPC_SLICE_START_PTR(sb->slices[i]),
			    n);
		off += n;
	}
	return dst;
}

static void
on_read(struct sc_rpc_call *c, bool ok)
{
	grpc_byte_buffer *bb;
	sc_rpc_read_fn *fn;
	sc_rpc_buf_fn *buf;
	grpc_slice s;
	void *arg, *dst;
	size_t len;

	pthread_mutex_lock(&c->mu);
	c->reading = false;
	bb = c->recv_bb;
	c->recv_bb = NULL;
	fn = c->read_fn;
	buf = c->read_buf;
	arg = c->read_arg;
	pthread_mutex_unlock(&c->mu);
	if (!ok)
		fn(c, NULL, 0, false, arg);
	else if (bb == NULL)
		fn(c, NULL, 0, true, arg);
	else if (buf != NULL) {
		if ((dst = bb_copy(bb, buf, arg, &len)) == NULL) {
			grpc_call_cancel(c->call, NULL);
			fn(c, NULL, 0, false, arg);
		} else
			fn(c, dst, len, true, arg);
	} else if (bb_flatten(bb, &s) == -1) {
		grpc_call_cancel(c->call, NULL);
		fn(c, NULL, 0, false, arg);
	} else {
		fn(c, GRPC_SLICE_START_PTR(s), GRPC_SLICE_LENGTH(s), true, arg);
		grpc_slice_unref(s);
	}
	if (bb != NULL)
		grpc_byte_buffer_destroy(bb);
	sc_rpc_call_unref(c);
}

/* The path of c's method: registered, or as the client named it. */
static void
call_path(const struct sc_rpc_call *c, char *out, size_t outsz)
{
	size_t n;

	if (c->m != NULL) {
		snprintf(out, outsz, "%s", c->m->path);
		return;
	}
	n = GRPC_SLICE_LENGTH(c->cd.method);
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, GRPC_SLICE_START_PTR(c->cd.method), n);
	out[n] = '\0';
}

static void
on_close(struct sc_rpc_call *c, bool ok)
{
	sc_rpc_close_fn *fn;
	void *arg;
	bool cancelled;
	char path[128];
	int code;

	pthread_mutex_lock(&c->mu);
	c->closed = true;
	cancelled = !ok || c->close_cancelled;
	fn = c->close_fn;
	arg = c->close_arg;
	c->close_fn = NULL;
	code = c->finished && !cancelled ? (int)c->st_code
					 : GRPC_STATUS_CANCELLED;
	pthread_mutex_unlock(&c->mu);
	if (fn != NULL)
		fn(c, cancelled, arg);
	if (c->srv->done_fn != NULL) {
		call_path(c, path, sizeof(path));
		c->srv->done_fn(path, code, mono_us() - c->arrived_us,
		    c->srv->done_arg);
	}
	sc_rpc_call_unref(c);
}

static void
dispatch(struct sc_rpc_server *srv, struct tag *t, bool ok)
{
	switch (t->kind) {
	case TAG_NEW:
		on_new(t->call, ok);
		break;
	case TAG_CLOSE:
		on_close(t->call, ok);
		break;
	case TAG_SEND:
		on_send(t->call, ok);
		break;
	case TAG_STATUS:
		on_status(t->call);
		break;
	case TAG_READ:
		on_read(t->call, ok);
		break;
	case TAG_SHUTDOWN:
		pthread_mutex_lock(&srv->mu);
		srv->shutdown_done = true;
		pthread_cond_broadcast(&srv->cv);
		pthread_mutex_unlock(&srv->mu);
		break;
	}
}

static void *
cq_main(void *arg)
{
	struct cqt *t = arg;
	grpc_event ev;

	pthread_setname_np(pthread_self(), "sc-rpc");
	for (;;) {
		ev = grpc_completion_queue_next(t->cq,
		    gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
		if (ev.type == GRPC_QUEUE_SHUTDOWN)
			break;
		if (ev.type == GRPC_OP_COMPLETE)
			dispatch(t->srv, ev.tag, ev.success != 0);
	}
	return NULL;
}

struct sc_rpc_server *
sc_rpc_server_new(const struct sc_rpc_server_opts *o, struct sc_error *err)
{
	struct sc_rpc_server *srv;
	grpc_channel_args ca;
	grpc_arg args[8];
	int64_t idle;
	long max;

	if (o->listen == NULL || o->listen[0] == '\0') {
		sc_error_set(err, SC_ST_USAGE, "no listen address");
		return NULL;
	}
	if ((o->tls_cert_file == NULL) != (o->tls_key_file == NULL)) {
		sc_error_set(err, SC_ST_USAGE,
		    "TLS needs both a certificate and a key file");
		return NULL;
	}
	sc_rpc_core_start();
	srv = sc_xcalloc(1, sizeof(*srv));
	srv->listen = sc_xstrdup(o->listen);
	if (o->tls_cert_file != NULL) {
		srv->cert_file = sc_xstrdup(o->tls_cert_file);
		srv->key_file = sc_xstrdup(o->tls_key_file);
	}
	srv->nthreads = o->nthreads > 0 ? o->nthreads : 2;
	atomic_init(&srv->stopping, false);
	srv->shutdown_tag.kind = TAG_SHUTDOWN;
	pthread_mutex_init(&srv->mu, NULL);
	pthread_cond_init(&srv->cv, NULL);
	srv->state = SRV_NEW;
	srv->lopts.max_conns = o->max_connections;
	srv->lopts.max_peer_conns = o->max_peer_connections;
	srv->lopts.grace_ms = o->grace_ms;
	srv->grace_ms = o->grace_ms != 0 ? o->grace_ms : DEFAULT_GRACE_MS;
	srv->on_deaf = o->on_deaf;
	srv->deaf_arg = o->deaf_arg;
	idle = o->idle_ms != 0 ? o->idle_ms : DEFAULT_IDLE_MS;

	max = o->max_message_size != 0 ? o->max_message_size
				       : SC_RPC_MAX_MESSAGE;
	sc_rpc_arg_int(&args[0], GRPC_ARG_ALLOW_REUSEPORT, 0);
	sc_rpc_arg_int(&args[1], GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH,
	    sc_rpc_limit_arg(max));
	sc_rpc_arg_int(&args[2],
	    GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 10000);
	sc_rpc_arg_int(&args[3], GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
	sc_rpc_arg_int(&args[4], GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
	sc_rpc_arg_int(&args[5], GRPC_ARG_MAX_SEND_MESSAGE_LENGTH, -1);
	ca.num_args = 6;
	/* Our accept loop does this itself for plaintext (rpc_listen.c). */
	if (o->tls_cert_file != NULL && srv->grace_ms > 0)
		sc_rpc_arg_int(&args[ca.num_args++],
		    GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS,
		    srv->grace_ms > INT_MAX ? INT_MAX : (int)srv->grace_ms);
	if (idle > 0)
		sc_rpc_arg_int(&args[ca.num_args++],
		    GRPC_ARG_MAX_CONNECTION_IDLE_MS,
		    idle > INT_MAX ? INT_MAX : (int)idle);
	ca.args = args;
	srv->gs = grpc_server_create(&ca, NULL);
	if (srv->gs == NULL) {
		sc_error_set(err, SC_ST_INTERNAL, "cannot create a server");
		sc_rpc_server_free(srv);
		return NULL;
	}
	return srv;
}

void
sc_rpc_server_set_details(struct sc_rpc_server *srv, sc_rpc_details_fn *fn)
{
	srv->details_fn = fn;
}

void
sc_rpc_server_set_done(struct sc_rpc_server *srv, sc_rpc_done_fn *fn, void *arg)
{
	srv->done_fn = fn;
	srv->done_arg = arg;
}

void
sc_rpc_server_set_unknown_gate(struct sc_rpc_server *srv, sc_rpc_gate_fn *fn,
    void *arg)
{
	srv->gate_fn = fn;
	srv->gate_arg = arg;
}

int
sc_rpc_server_add_method(struct sc_rpc_server *srv, const char *path,
    enum sc_rpc_kind kind, sc_rpc_handler_fn *fn, void *arg,
    struct sc_error *err)
{
	struct method *m;

	if (srv->state != SRV_NEW)
		return sc_error_set(err, SC_ST_INTERNAL,
		    "method %s added after the server started", path);
	if (path[0] != '/')
		return sc_error_set(err, SC_ST_INTERNAL, "bad method name '%s'",
		    path);
	m = sc_xcalloc(1, sizeof(*m));
	m->path = sc_xstrdup(path);
	m->kind = kind;
	m->fn = fn;
	m->arg = arg;
	m->handle = grpc_server_register_method(srv->gs, m->path, NULL,
	    kind == SC_RPC_CLIENT_STREAM
		? GRPC_SRM_PAYLOAD_NONE
		: GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER,
	    0);
	if (m->handle == NULL) {
		free(m->path);
		free(m);
		return sc_error_set(err, SC_ST_INTERNAL,
		    "cannot register method %s (twice?)", path);
	}
	srv->methods = sc_xreallocarray(srv->methods, srv->nmethods + 1,
	    sizeof(*srv->methods));
	srv->methods[srv->nmethods++] = m;
	return 0;
}

static grpc_server_credentials *
server_creds(struct sc_rpc_server *srv, struct sc_error *err)
{
	grpc_server_credentials *creds;
	grpc_ssl_pem_key_cert_pair pair;
	char *cert, *key;

	if (srv->cert_file == NULL)
		return grpc_insecure_server_credentials_create();
	if ((cert = sc_rpc_read_file(srv->cert_file, "certificate file",
		 err)) == NULL)
		return NULL;
	if ((key = sc_rpc_read_file(srv->key_file, "key file", err)) == NULL) {
		free(cert);
		return NULL;
	}
	pair.private_key = key;
	pair.cert_chain = cert;
	creds = grpc_ssl_server_credentials_create(NULL, &pair, 1, 0, NULL);
	sc_rpc_free_secret(key);
	free(cert);
	if (creds == NULL)
		sc_error_set(err, SC_ST_USAGE, "cannot set up TLS with '%s'",
		    srv->cert_file);
	return creds;
}

/* Shut down, drain and destroy the queues (threads already joined). */
static void
destroy_cqs(struct sc_rpc_server *srv)
{
	size_t i;

	for (i = 0; i < srv->ncqts; i++) {
		grpc_completion_queue_shutdown(srv->cqts[i].cq);
		if (srv->cqts[i].running)
			pthread_join(srv->cqts[i].tid, NULL);
		else
			while (grpc_completion_queue_next(srv->cqts[i].cq,
				   gpr_inf_future(GPR_CLOCK_REALTIME), NULL)
				   .type != GRPC_QUEUE_SHUTDOWN)
				;
		grpc_completion_queue_destroy(srv->cqts[i].cq);
	}
	free(srv->cqts);
	srv->cqts = NULL;
	srv->ncqts = 0;
}

/* ------------------------------------------------ the TLS watchdog */

/*
 * The address to probe: the listen address, or loopback for a
 * wildcard one.  0 or -1.
 */
static int
probe_addr(struct sc_rpc_server *srv, struct sockaddr_storage *ss,
    socklen_t *lenp)
{
	struct addrinfo hints, *res;
	struct sockaddr_in *s4 = (void *)ss;
	struct sockaddr_in6 *s6 = (void *)ss;
	char host[256], *colon;
	size_t n;

	snprintf(host, sizeof(host), "%s", srv->listen);
	if ((colon = strrchr(host, ':')) == NULL)
		return -1;
	*colon = '\0';
	n = strlen(host);
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
		memmove(host, host + 1, n - 2);
		host[n - 2] = '\0';
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, NULL, &hints, &res) != 0)
		return -1;
	if (res->ai_addrlen > sizeof(*ss)) {
		freeaddrinfo(res);
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*lenp = res->ai_addrlen;
	freeaddrinfo(res);
	if (ss->ss_family == AF_INET) {
		if (s4->sin_addr.s_addr == htonl(INADDR_ANY))
			s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		s4->sin_port = htons((uint16_t)srv->port);
	} else if (ss->ss_family == AF_INET6) {
		if (IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr))
			s6->sin6_addr = in6addr_loopback;
		s6->sin6_port = htons((uint16_t)srv->port);
	} else
		return -1;
	return 0;
}

/*
 * Connect to the listener and send it bytes that are no TLS: a
 * listener that accepts answers or closes the connection (at the
 * latest after its handshake timeout); a deaf one leaves it in the
 * kernel's queue.  1 answered, 0 no answer within timeout_ms, -1 could
 * not tell (no descriptor, say).
 */
static bool
probe_stopping(struct sc_rpc_server *srv)
{
	bool stop;

	pthread_mutex_lock(&srv->mu);
	stop = srv->probe_stop;
	pthread_mutex_unlock(&srv->mu);
	return stop;
}

static int
probe_once(struct sc_rpc_server *srv, const struct sockaddr_storage *ss,
    socklen_t len, int64_t timeout_ms)
{
	static const char junk[] = "sc-serve listener probe\r\n";
	struct pollfd pfd;
	int64_t end = sc_mono_ms() + timeout_ms, left;
	int fd, rc = 0, err = 0;
	socklen_t elen = sizeof(err);
	char b[64];

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (fd == -1)
		return -1;
	if (connect(fd, (const struct sockaddr *)ss, len) == -1 &&
	    errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	pfd.fd = fd;
	pfd.events = POLLOUT;
	left = end - sc_mono_ms();
	if (poll(&pfd, 1, left > 0 ? (int)left : 0) != 1 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) == -1 ||
	    err != 0) {
		close(fd);
		return -1; /* no connection at all is not deafness */
	}
	(void)send(fd, junk, sizeof(junk) - 1, MSG_NOSIGNAL);
	pfd.events = POLLIN;
	while ((left = end - sc_mono_ms()) > 0 && !probe_stopping(srv)) {
		pfd.revents = 0;
		if (poll(&pfd, 1, left > 200 ? 200 : (int)left) == 1) {
			if (recv(fd, b, sizeof(b), MSG_DONTWAIT) == -1 &&
			    (errno == EAGAIN || errno == EINTR))
				continue;
			rc = 1; /* bytes, end of stream or reset */
			break;
		}
	}
	close(fd);
	return rc;
}

static void *
probe_main(void *arg)
{
	struct sc_rpc_server *srv = arg;
	struct sockaddr_storage ss;
	struct timespec ts;
	socklen_t len = 0;
	int64_t every, timeout;
	int misses = 0, r;
	bool have = false, stop;

	pthread_setname_np(pthread_self(), "sc-probe");
	every = srv->grace_ms > 1000 ? srv->grace_ms : 1000;
	timeout = 2 * every > 2000 ? 2 * every : 2000;
	for (;;) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += (time_t)(every / 1000);
		ts.tv_nsec += (long)(every % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&srv->mu);
		while (!srv->probe_stop &&
		    pthread_cond_timedwait(&srv->cv, &srv->mu, &ts) == 0)
			;
		stop = srv->probe_stop;
		pthread_mutex_unlock(&srv->mu);
		if (stop)
			break;
		if (!have && probe_addr(srv, &ss, &len) == -1)
			continue;
		have = true;
		if ((r = probe_once(srv, &ss, len, timeout)) == 1)
			misses = 0;
		else if (r == 0 && !probe_stopping(srv) &&
		    ++misses == PROBE_MISSES) {
			sc_err(
			    "the TLS listener on '%s' stopped accepting connections (%d probes in a row got no answer); gRPC cannot recover it",
			    srv->listen, PROBE_MISSES);
			if (srv->on_deaf != NULL)
				srv->on_deaf(srv->deaf_arg);
		}
	}
	return NULL;
}

static int
probe_start(struct sc_rpc_server *srv, struct sc_error *err)
{
	int rc;

	if (srv->grace_ms < 0)
		return 0;
	srv->probe_stop = false;
	if ((rc = pthread_create(&srv->probe_tid, NULL, probe_main, srv)) != 0)
		return sc_error_set_errno(err, SC_ST_INTERNAL, rc,
		    "cannot start the listener watchdog");
	srv->probing = true;
	return 0;
}

static void
probe_stop(struct sc_rpc_server *srv)
{
	if (!srv->probing)
		return;
	pthread_mutex_lock(&srv->mu);
	srv->probe_stop = true;
	pthread_cond_broadcast(&srv->cv);
	pthread_mutex_unlock(&srv->mu);
	pthread_join(srv->probe_tid, NULL);
	srv->probing = false;
}

int
sc_rpc_server_start(struct sc_rpc_server *srv, int *portp, struct sc_error *err)
{
	grpc_server_credentials *creds;
	size_t i, j, k;
	int port;

	if (srv->state != SRV_NEW)
		return sc_error_set(err, SC_ST_INTERNAL,
		    "server started twice");
	if ((creds = server_creds(srv, err)) == NULL)
		return -1;
	srv->cqts = sc_xcalloc((size_t)srv->nthreads, sizeof(*srv->cqts));
	for (i = 0; i < (size_t)srv->nthreads; i++) {
		srv->cqts[i].srv = srv;
		srv->cqts[i].cq = grpc_completion_queue_create_for_next(NULL);
		grpc_server_register_completion_queue(srv->gs, srv->cqts[i].cq,
		    NULL);
		srv->ncqts++;
	}
	if (srv->cert_file == NULL) {
		/* Plaintext: our own accept loop, not gRPC's listener. */
		srv->listener =
		    sc_rpc_listener_new(srv->listen, &srv->lopts, &port, NULL);
		if (srv->listener == NULL)
			port = 0;
	} else
		port = grpc_server_add_http2_port(srv->gs, srv->listen, creds);
	grpc_server_credentials_release(creds);
	if (port == 0) {
		/* no listener was added: the server may be destroyed as is */
		grpc_server_destroy(srv->gs);
		srv->gs = NULL;
		destroy_cqs(srv);
		srv->state = SRV_STOPPED;
		return sc_error_set(err, SC_ST_IO, "cannot listen on '%s'",
		    srv->listen);
	}
	grpc_server_start(srv->gs);
	for (i = 0; i < srv->ncqts; i++) {
		for (j = 0; j < srv->nmethods; j++)
			for (k = 0; k < ARMED; k++)
				arm(srv, srv->methods[j], &srv->cqts[i]);
		arm(srv, NULL, &srv->cqts[i]);
	}
	for (i = 0; i < srv->ncqts; i++) {
		if (pthread_create(&srv->cqts[i].tid, NULL, cq_main,
			&srv->cqts[i]) != 0)
			SC_BUG("cannot create a completion-queue thread");
		srv->cqts[i].running = true;
	}
	srv->port = port;
	pthread_mutex_lock(&srv->mu);
	srv->state = SRV_RUNNING;
	pthread_mutex_unlock(&srv->mu);
	if (srv->listener != NULL &&
	    sc_rpc_listener_start(srv->listener, srv->gs, err) == -1) {
		sc_rpc_server_shutdown(srv);
		return -1;
	}
	if (srv->listener == NULL && probe_start(srv, err) == -1) {
		sc_rpc_server_shutdown(srv);
		return -1;
	}
	if (portp != NULL)
		*portp = port;
	return 0;
}

/*
 * The order matters: shutdown_and_notify, cancel every call, wait for the tag
 * and for every call object (armed requests fail with ok=0 and are
 * freed then), destroy the server, then shut the queues down and join
 * their threads.
 */
void
sc_rpc_server_shutdown(struct sc_rpc_server *srv)
{
	pthread_mutex_lock(&srv->mu);
	if (srv->state != SRV_RUNNING) {
		pthread_mutex_unlock(&srv->mu);
		return;
	}
	srv->state = SRV_STOPPING;
	pthread_mutex_unlock(&srv->mu);

	/* No connection is handed to gRPC once it shuts down. */
	sc_rpc_listener_stop(srv->listener);
	probe_stop(srv);
	atomic_store(&srv->stopping, true);
	grpc_server_shutdown_and_notify(srv->gs, srv->cqts[0].cq,
	    &srv->shutdown_tag);
	grpc_server_cancel_all_calls(srv->gs);
	pthread_mutex_lock(&srv->mu);
	while (!srv->shutdown_done || srv->ncalls > 0)
		pthread_cond_wait(&srv->cv, &srv->mu);
	pthread_mutex_unlock(&srv->mu);
	grpc_server_destroy(srv->gs);
	srv->gs = NULL;
	destroy_cqs(srv);
	pthread_mutex_lock(&srv->mu);
	srv->state = SRV_STOPPED;
	pthread_mutex_unlock(&srv->mu);
}

void
sc_rpc_server_free(struct sc_rpc_server *srv)
{
	size_t i;

	if (srv == NULL)
		return;
	sc_rpc_server_shutdown(srv);
	if (srv->gs != NULL) /* never started */
		grpc_server_destroy(srv->gs);
	if (srv->cqts != NULL)
		destroy_cqs(srv);
	for (i = 0; i < srv->nmethods; i++) {
		free(srv->methods[i]->path);
		free(srv->methods[i]);
	}
	free(srv->methods);
	sc_rpc_listener_free(srv->listener);
	free(srv->listen);
	free(srv->cert_file);
	free(srv->key_file);
	pthread_cond_destroy(&srv->cv);
	pthread_mutex_destroy(&srv->mu);
	free(srv);
	sc_rpc_core_stop();
}
