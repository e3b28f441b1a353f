/* SPDX-License-Identifier: MIT */

/*
 * rpc_client.c: the client half of the gRPC module.  Each call waits on
 * a pluck queue of its own, taken from a small pool per channel; method
 * paths are registered once per channel.
 */

#include "core/rpc.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/rpc_int.h"
#include "core/uri.h"
#include "core/xmem.h"
#include "core/banned.h"

#ifndef SCTK_VERSION
#define SCTK_VERSION "0.0.0"
#endif

#define MAX_REGCALLS 64 /* registered methods per channel */
#define MAX_FREE_CQS 16 /* pooled pluck queues per channel */

/* An absolute CLOCK_MONOTONIC time as a gRPC deadline; NULL = none. */
static gpr_timespec
to_gpr(const struct timespec *ts)
{
	struct timespec now;
	int64_t sec, nsec;

	if (ts == NULL)
		return gpr_inf_future(GPR_CLOCK_MONOTONIC);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (ts->tv_sec > now.tv_sec + 100L * 365 * 86400)
		return gpr_inf_future(GPR_CLOCK_MONOTONIC);
	sec = (int64_t)ts->tv_sec - now.tv_sec;
	nsec = (int64_t)ts->tv_nsec - now.tv_nsec;
	if (sec < 0 || (sec == 0 && nsec <= 0))
		return gpr_now(GPR_CLOCK_MONOTONIC);
	return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
	    gpr_time_from_nanos(sec * 1000000000 + nsec, GPR_TIMESPAN));
}

static void
arg_str(grpc_arg *a, const char *key, const char *v)
{
	a->type = GRPC_ARG_STRING;
	a->key = (char *)key;
	a->value.string = (char *)v;
}

/* Append a received message to out: one copy. */
static int
bb_append(grpc_byte_buffer *bb, struct sc_buf *out, struct sc_error *err)
{
	grpc_byte_buffer_reader r;
	grpc_slice s;
	int rc = 0;

	if (!grpc_byte_buffer_reader_init(&r, bb))
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "cannot decompress a message from the server");
	if (bb->data.raw.compression == GRPC_COMPRESS_NONE &&
	    sc_buf_grow(out, grpc_byte_buffer_length(bb), err) == -1) {
		grpc_byte_buffer_reader_destroy(&r);
		return -1;
	}
	while (grpc_byte_buffer_reader_next(&r, &s)) {
		if (rc == 0)
			rc = sc_buf_add(out, GRPC_SLICE_START_PTR(s),
			    GRPC_SLICE_LENGTH(s), err);
		grpc_slice_unref(s);
	}
	grpc_byte_buffer_reader_destroy(&r);
	return rc;
}

struct regcall {
	char *method; /* must outlive the channel */
	void *handle;
};

struct sc_rpc {
	char target[300]; /* host:port, for messages */
	grpc_channel *ch;
	grpc_metadata *md; /* sent on every call */
	size_t nmd;
	pthread_mutex_t mu; /* regcalls and cqs */
	struct regcall regcalls[MAX_REGCALLS];
	size_t nregcalls;
	grpc_completion_queue *cqs[MAX_FREE_CQS];
	size_t ncqs;
};

/* Tags of one client call: each is a batch that may be outstanding. */
enum {
	CT_START = 0, /* send initial metadata (+ message, close) */
	CT_STATUS, /* receive status */
	CT_RECV, /* receive one message */
	CT_SEND, /* send one message */
	CT_FINISH, /* half-close and receive the reply */
	CT_MAX
};

struct ccall {
	struct sc_rpc *rpc;
	grpc_call *call;
	grpc_completion_queue *cq;
	unsigned pending; /* bit per outstanding tag */
	char tags[CT_MAX];
	grpc_metadata_array init_md;
	grpc_metadata_array trail_md;
	grpc_status_code status;
	grpc_slice details;
	const char *errstr;
	grpc_byte_buffer *send_bb;
	size_t sent_max; /* largest message sent on the call */
	grpc_byte_buffer *recv_bb;
	bool status_done;
	atomic_bool cancelled;
};

struct sc_rpc_stream {
	struct ccall c;
	bool ended; /* end of stream or failure seen */
};

struct sc_rpc_upload {
	struct ccall c;
	bool finished;
};

/*
 * Whether pem holds a certificate OpenSSL can read.  gRPC takes any
 * bytes as roots and only fails, much later and with "empty address
 * list", when it tries to connect.
 */
static bool
pem_has_cert(const char *pem)
{
	STACK_OF(X509_INFO) * infos;
	BIO *bio;
	int i, n = 0;

	if ((bio = BIO_new_mem_buf(pem, -1)) == NULL)
		return false;
	if ((infos = PEM_X509_INFO_read_bio(bio, NULL, NULL, NULL)) != NULL) {
		for (i = 0; i < sk_X509_INFO_num(infos); i++)
			if (sk_X509_INFO_value(infos, i)->x509 != NULL)
				n++;
		sk_X509_INFO_pop_free(infos, X509_INFO_free);
	}
	BIO_free(bio);
	ERR_clear_error();
	return n > 0;
}

static int
add_md(struct sc_rpc *rpc, const char *key, const char *value,
    struct sc_error *err)
{
	grpc_slice k, v;

	k = grpc_slice_from_copied_string(key);
	v = grpc_slice_from_copied_string(value);
	if (!grpc_header_key_is_legal(k) ||
	    (!grpc_is_binary_header(k) &&
		!grpc_header_nonbin_value_is_legal(v))) {
		grpc_slice_unref(k);
		grpc_slice_unref(v);
		return sc_error_set(err, SC_ST_USAGE,
		    "invalid metadata '%s' in the server address", key);
	}
	rpc->md[rpc->nmd].key = k;
	rpc->md[rpc->nmd].value = v;
	rpc->nmd++;
	return 0;
}

static grpc_channel_credentials *
client_creds(const struct sc_uri *u, const char *ca_file, struct sc_error *err)
{
	grpc_channel_credentials *creds;
	char *pem = NULL;

	/* Whether a token turns TLS on is core/client's decision. */
	if (!u->use_ssl && ca_file == NULL)
		return grpc_insecure_credentials_create();
	if (ca_file != NULL &&
	    (pem = sc_rpc_read_file(ca_file, "CA file", err)) == NULL)
		return NULL;
	if (pem != NULL && !pem_has_cert(pem)) {
		free(pem);
		sc_error_set(err, SC_ST_USAGE,
		    "CA file '%s' holds no PEM certificate", ca_file);
		return NULL;
	}
	creds = grpc_ssl_credentials_create(pem, NULL, NULL, NULL);
	free(pem);
	if (creds == NULL)
		sc_error_set(err, SC_ST_USAGE, "cannot set up TLS");
	return creds;
}

struct sc_rpc *
sc_rpc_new(const struct sc_uri *u, const char *ca_file, struct sc_error *err)
{
	grpc_channel_credentials *creds;
	struct sc_rpc *rpc;
	grpc_channel_args ca;
	grpc_arg args[9];
	char *auth;
	size_t i;
	int rc;

	sc_rpc_core_start();
	rpc = sc_xcalloc(1, sizeof(*rpc));
	if (u->is_ipv6)
		snprintf(rpc->target, sizeof(rpc->target), "[%s]:%d", u->host,
		    u->port);
	else
		snprintf(rpc->target, sizeof(rpc->target), "%s:%d", u->host,
		    u->port);

	pthread_mutex_init(&rpc->mu, NULL);
	rpc->md = sc_xcalloc(u->nparams + 1, sizeof(*rpc->md));
	if (u->has_token && u->token != NULL) {
		auth = sc_xasprintf("Bearer %s", u->token);
		rc = add_md(rpc, "authorization", auth, err);
		sc_rpc_free_secret(auth);
		if (rc == -1)
			goto fail;
	}
	for (i = 0; i < u->nparams; i++)
		if (add_md(rpc, u->params[i].key, u->params[i].value, err) ==
		    -1)
			goto fail;

	if ((creds = client_creds(u, ca_file, err)) == NULL)
		goto fail;
	sc_rpc_arg_int(&args[0], GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH,
	    sc_rpc_limit_arg(u->max_message_size));
	sc_rpc_arg_int(&args[1], GRPC_ARG_KEEPALIVE_TIME_MS, 60000);
	sc_rpc_arg_int(&args[2], GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20000);
	sc_rpc_arg_int(&args[3], GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
	sc_rpc_arg_int(&args[4], GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
	arg_str(&args[5], GRPC_ARG_PRIMARY_USER_AGENT_STRING,
	    "sctk/" SCTK_VERSION);
	sc_rpc_arg_int(&args[6], GRPC_ARG_MAX_SEND_MESSAGE_LENGTH, -1);
	/*
	 * A channel that failed tries to connect again within a second,
	 * not after gRPC's backoff of up to two minutes: our own retries
	 * (core/retry) pace the calls, and a server back after an outage
	 * is found by the next statement at a prompt.
	 */
	sc_rpc_arg_int(&args[7], GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
	sc_rpc_arg_int(&args[8], GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
	ca.num_args = SC_NELEM(args);
	ca.args = args;
	rpc->ch = grpc_channel_create(rpc->target, creds, &ca);
	grpc_channel_credentials_release(creds);
	if (rpc->ch == NULL) {
		sc_error_set(err, SC_ST_INTERNAL,
		    "cannot create a channel to '%s'", rpc->target);
		goto fail;
	}
	return rpc;
fail:
	sc_rpc_free(rpc);
	return NULL;
}

void
sc_rpc_free(struct sc_rpc *rpc)
{
	size_t i;

	if (rpc == NULL)
		return;
	if (rpc->ch != NULL)
		grpc_channel_destroy(rpc->ch);
	for (i = 0; i < rpc->nregcalls; i++)
		free(rpc->regcalls[i].method);
	for (i = 0; i < rpc->ncqs; i++) {
		grpc_completion_queue_shutdown(rpc->cqs[i]);
		(void)grpc_completion_queue_pluck(rpc->cqs[i], NULL,
		    gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
		grpc_completion_queue_destroy(rpc->cqs[i]);
	}
	for (i = 0; i < rpc->nmd; i++) {
		/* the token must not linger in freed memory */
		if (!GRPC_SLICE_IS_EMPTY(rpc->md[i].value) &&
		    grpc_slice_str_cmp(rpc->md[i].key, "authorization") == 0)
			explicit_bzero(GRPC_SLICE_START_PTR(rpc->md[i].value),
			    GRPC_SLICE_LENGTH(rpc->md[i].value));
		grpc_slice_unref(rpc->md[i].key);
		grpc_slice_unref(rpc->md[i].value);
	}
	free(rpc->md);
	pthread_mutex_destroy(&rpc->mu);
	free(rpc);
	sc_rpc_core_stop();
}

static grpc_completion_queue *
cq_get(struct sc_rpc *rpc)
{
	grpc_completion_queue *cq = NULL;

	pthread_mutex_lock(&rpc->mu);
	if (rpc->ncqs > 0)
		cq = rpc->cqs[--rpc->ncqs];
	pthread_mutex_unlock(&rpc->mu);
	if (cq == NULL)
		cq = grpc_completion_queue_create_for_pluck(NULL);
	return cq;
}

/* Every batch on cq has been dequeued. */
static void
cq_put(struct sc_rpc *rpc, grpc_completion_queue *cq)
{
	pthread_mutex_lock(&rpc->mu);
	if (rpc->ncqs < MAX_FREE_CQS) {
		rpc->cqs[rpc->ncqs++] = cq;
		cq = NULL;
	}
	pthread_mutex_unlock(&rpc->mu);
	if (cq != NULL) {
		grpc_completion_queue_shutdown(cq);
		(void)grpc_completion_queue_pluck(cq, NULL,
		    gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
		grpc_completion_queue_destroy(cq);
	}
}

/* The registered-call handle for method, or NULL when the table is full. */
static void *
regcall(struct sc_rpc *rpc, const char *method)
{
	void *h = NULL;
	size_t i;

	pthread_mutex_lock(&rpc->mu);
	for (i = 0; i < rpc->nregcalls; i++)
		if (strcmp(rpc->regcalls[i].method, method) == 0) {
			h = rpc->regcalls[i].handle;
			break;
		}
	if (h == NULL && rpc->nregcalls < MAX_REGCALLS) {
		rpc->regcalls[i].method = sc_xstrdup(method);
		h = grpc_channel_register_call(rpc->ch, rpc->regcalls[i].method,
		    NULL, NULL);
		rpc->regcalls[i].handle = h;
		rpc->nregcalls++;
	}
	pthread_mutex_unlock(&rpc->mu);
	return h;
}

static int
cc_open(struct ccall *c, struct sc_rpc *rpc, const char *method,
    const struct timespec *deadline, struct sc_error *err)
{
	gpr_timespec dl;
	grpc_slice path;
	void *h;

	memset(c, 0, sizeof(*c));
	c->rpc = rpc;
	grpc_metadata_array_init(&c->init_md);
	grpc_metadata_array_init(&c->trail_md);
	c->details = grpc_empty_slice();
	c->status = GRPC_STATUS_UNKNOWN;
	atomic_init(&c->cancelled, false);
	if (method[0] != '/')
		return sc_error_set(err, SC_ST_INTERNAL, "bad method name '%s'",
		    method);
	c->cq = cq_get(rpc);
	dl = to_gpr(deadline);
	if ((h = regcall(rpc, method)) != NULL)
		c->call = grpc_channel_create_registered_call(rpc->ch, NULL,
		    GRPC_PROPAGATE_DEFAULTS, c->cq, h, dl, NULL);
	else {
		path = grpc_slice_from_copied_string(method);
		c->call = grpc_channel_create_call(rpc->ch, NULL,
		    GRPC_PROPAGATE_DEFAULTS, c->cq, path, NULL, dl, NULL);
		grpc_slice_unref(path);
	}
	if (c->call == NULL)
		return sc_error_set(err, SC_ST_INTERNAL,
		    "cannot create a call to %s", method);
	return 0;
}

/*
 * Start a batch.  A refused batch poisons the call (pitfall 3), so the
 * call is cancelled and treated as failed.
 */
static int
cc_start(struct ccall *c, int tag, const grpc_op *ops, size_t n,
    struct sc_error *err)
{
	grpc_call_error rc;

	rc = grpc_call_start_batch(c->call, ops, n, &c->tags[tag], NULL);
	if (rc != GRPC_CALL_OK) {
		grpc_call_cancel(c->call, NULL);
		return sc_error_set(err, SC_ST_INTERNAL,
		    "gRPC refused an operation: %s",
		    grpc_call_error_to_string(rc));
	}
	c->pending |= 1U << tag;
	return 0;
}

/* Wait for tag: 1 succeeded, 0 failed, -1 until passed first. */
static int
cc_wait(struct ccall *c, int tag, gpr_timespec until)
{
	grpc_event ev;

	if (!(c->pending & (1U << tag)))
		return 0;
	ev = grpc_completion_queue_pluck(c->cq, &c->tags[tag], until, NULL);
	if (ev.type != GRPC_OP_COMPLETE)
		return -1;
	c->pending &= ~(1U << tag);
	if (tag == CT_STATUS)
		c->status_done = true;
	return ev.success ? 1 : 0;
}

static int
cc_wait_inf(struct ccall *c, int tag)
{
	return cc_wait(c, tag, gpr_inf_future(GPR_CLOCK_MONOTONIC));
}

static int
cc_start_status(struct ccall *c, struct sc_error *err)
{
	grpc_op op;

	memset(&op, 0, sizeof(op));
	op.op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	op.data.recv_status_on_client.trailing_metadata = &c->trail_md;
	op.data.recv_status_on_client.status = &c->status;
	op.data.recv_status_on_client.status_details = &c->details;
	op.data.recv_status_on_client.error_string = &c->errstr;
	return cc_start(c, CT_STATUS, &op, 1, err);
}

/*
 * gRPC refuses a received message over the channel's limit with
 * RESOURCE_EXHAUSTED "Received message larger than max (N vs. M)", which
 * would read as the server's refusal (exit 1).  When N is not the size
 * of a message we sent (a server says the same of a request too large
 * for it), the reply was too large for us: a reply we cannot take,
 * exit 7, with the knob that raises the limit.
 */
static void
too_large(const struct ccall *c, struct sc_error *err)
{
	unsigned long long got, max;

	if (c->status != GRPC_STATUS_RESOURCE_EXHAUSTED ||
	    sscanf(err->msg, "Received message larger than max (%llu vs. %llu)",
		&got, &max) != 2 ||
	    got == (unsigned long long)c->sent_max)
		return;
	err->status = SC_ST_PROTOCOL;
	snprintf(err->msg, sizeof(err->msg),
	    "'%s' sent a message of %llu bytes, more than the limit of %llu (grpc_max_message_size in the server address)",
	    c->rpc->target, got, max);
}

/* Turn the received status into err; always -1. */
static int
cc_status_error(struct ccall *c, struct sc_error *err)
{
	const void *details = NULL;
	size_t dlen = 0, i, n;
	char msg[1024];

	if (err == NULL)
		return -1;
	if (!c->status_done)
		return sc_error_set(err, SC_ST_INTERNAL,
		    "call failed without a status");
	n = GRPC_SLICE_LENGTH(c->details);
	if (n >= sizeof(msg))
		n = sizeof(msg) - 1;
	memcpy(msg, GRPC_SLICE_START_PTR(c->details), n);
	msg[n] = '\0';
	for (i = 0; i < c->trail_md.count; i++)
		if (grpc_slice_str_cmp(c->trail_md.metadata[i].key,
			SC_RPC_DETAILS_KEY) == 0) {
			details =
			    GRPC_SLICE_START_PTR(c->trail_md.metadata[i].value);
			dlen = GRPC_SLICE_LENGTH(c->trail_md.metadata[i].value);
			break;
		}
	sc_error_from_grpc(err, (int)c->status, msg, details, dlen);
	if (c->status == GRPC_STATUS_DEADLINE_EXCEEDED)
		err->status = SC_ST_TIMEOUT;
	sc_error_reword_transport(err, c->rpc->target);
	too_large(c, err);
	return -1;
}

/* Wait for the status (the call has ended) and report it: 0 if OK. */
static int
cc_result(struct ccall *c, struct sc_error *err)
{
	if (c->pending & (1U << CT_STATUS))
		(void)cc_wait_inf(c, CT_STATUS);
	if (c->status_done && c->status == GRPC_STATUS_OK)
		return 0;
	return cc_status_error(c, err);
}

/* Cancel unless ended, dequeue every outstanding batch, free. */
static void
cc_close(struct ccall *c)
{
	int t;

	if (c->call != NULL) {
		if (!c->status_done)
			grpc_call_cancel(c->call, NULL);
		for (t = 0; t < CT_MAX; t++)
			(void)cc_wait_inf(c, t);
		grpc_call_unref(c->call);
	}
	if (c->cq != NULL)
		cq_put(c->rpc, c->cq);
	grpc_metadata_array_destroy(&c->init_md);
	grpc_metadata_array_destroy(&c->trail_md);
	grpc_slice_unref(c->details);
	if (c->errstr != NULL)
		gpr_free((void *)c->errstr);
	if (c->send_bb != NULL)
		grpc_byte_buffer_destroy(c->send_bb);
	if (c->recv_bb != NULL)
		grpc_byte_buffer_destroy(c->recv_bb);
}

static void
op_send_md(grpc_op *op, struct sc_rpc *rpc)
{
	memset(op, 0, sizeof(*op));
	op->op = GRPC_OP_SEND_INITIAL_METADATA;
	op->data.send_initial_metadata.count = rpc->nmd;
	op->data.send_initial_metadata.metadata = rpc->md;
}

struct sc_rpc_unary {
	struct ccall c;
	const char *method; /* borrowed: a literal of the caller's */
};

struct sc_rpc_unary *
sc_rpc_unary_start(struct sc_rpc *rpc, const char *method, const void *req,
    size_t reqlen, const struct timespec *deadline, struct sc_error *err)
{
	struct sc_rpc_unary *u;
	grpc_op ops[6];

	u = sc_xcalloc(1, sizeof(*u));
	u->method = method;
	if (cc_open(&u->c, rpc, method, deadline, err) == -1)
		goto fail;
	u->c.send_bb = sc_rpc_make_bb(req, reqlen);
	u->c.sent_max = reqlen;
	op_send_md(&ops[0], rpc);
	sc_rpc_op(&ops[1], GRPC_OP_SEND_MESSAGE);
	ops[1].data.send_message.send_message = u->c.send_bb;
	sc_rpc_op(&ops[2], GRPC_OP_SEND_CLOSE_FROM_CLIENT);
	sc_rpc_op(&ops[3], GRPC_OP_RECV_INITIAL_METADATA);
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &u->c.init_md;
	sc_rpc_op(&ops[4], GRPC_OP_RECV_MESSAGE);
	ops[4].data.recv_message.recv_message = &u->c.recv_bb;
	sc_rpc_op(&ops[5], GRPC_OP_RECV_STATUS_ON_CLIENT);
	ops[5].data.recv_status_on_client.trailing_metadata = &u->c.trail_md;
	ops[5].data.recv_status_on_client.status = &u->c.status;
	ops[5].data.recv_status_on_client.status_details = &u->c.details;
	ops[5].data.recv_status_on_client.error_string = &u->c.errstr;
	if (cc_start(&u->c, CT_START, ops, SC_NELEM(ops), err) == -1)
		goto fail;
	return u;
fail:
	cc_close(&u->c);
	free(u);
	return NULL;
}

int
sc_rpc_unary_finish(struct sc_rpc_unary *u, const struct timespec *until,
    struct sc_buf *resp, struct sc_error *err)
{
	gpr_timespec t;
	int rc;

	t = until == NULL ? gpr_inf_future(GPR_CLOCK_MONOTONIC) : to_gpr(until);
	if (cc_wait(&u->c, CT_START, t) == -1 &&
	    (u->c.pending & (1U << CT_START)))
		return 0;
	u->c.status_done = true;
	if (u->c.status != GRPC_STATUS_OK)
		rc = cc_status_error(&u->c, err);
	else if (u->c.recv_bb == NULL)
		rc = sc_error_set(err, SC_ST_PROTOCOL,
		    "no reply message from %s", u->method);
	else
		rc = bb_append(u->c.recv_bb, resp, err);
	cc_close(&u->c);
	free(u);
	return rc == 0 ? 1 : -1;
}

void
sc_rpc_unary_cancel(struct sc_rpc_unary *u)
{
	if (u->c.call != NULL)
		grpc_call_cancel(u->c.call, NULL);
}

int
sc_rpc_unary(struct sc_rpc *rpc, const char *method, const void *req,
    size_t reqlen, struct sc_buf *resp, const struct timespec *deadline,
    struct sc_error *err)
{
	struct sc_rpc_unary *u;

	if ((u = sc_rpc_unary_start(rpc, method, req, reqlen, deadline, err)) ==
	    NULL)
		return -1;
	return sc_rpc_unary_finish(u, NULL, resp, err) == 1 ? 0 : -1;
}

struct sc_rpc_stream *
sc_rpc_stream_open(struct sc_rpc *rpc, const char *method, const void *req,
    size_t reqlen, const struct timespec *deadline, struct sc_error *err)
{
	struct sc_rpc_stream *s;
	grpc_op ops[4];

	s = sc_xcalloc(1, sizeof(*s));
	if (cc_open(&s->c, rpc, method, deadline, err) == -1)
		goto fail;
	s->c.send_bb = sc_rpc_make_bb(req, reqlen);
	s->c.sent_max = reqlen;
	op_send_md(&ops[0], rpc);
	sc_rpc_op(&ops[1], GRPC_OP_SEND_MESSAGE);
	ops[1].data.send_message.send_message = s->c.send_bb;
	sc_rpc_op(&ops[2], GRPC_OP_SEND_CLOSE_FROM_CLIENT);
	sc_rpc_op(&ops[3], GRPC_OP_RECV_INITIAL_METADATA);
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &s->c.init_md;
	if (cc_start(&s->c, CT_START, ops, SC_NELEM(ops), err) == -1 ||
	    cc_start_status(&s->c, err) == -1)
		goto fail;
	return s;
fail:
	sc_rpc_stream_free(s);
	return NULL;
}

int
sc_rpc_stream_read(struct sc_rpc_stream *s, struct sc_buf *msg,
    const struct timespec *wait_until, struct sc_error *err)
{
	struct ccall *c = &s->c;
	grpc_op op;
	int r;

	sc_buf_reset(msg);
	if (atomic_load(&c->cancelled))
		return sc_error_from_grpc(err, SC_GRPC_CANCELLED,
		    "call cancelled by the client", NULL, 0);
	if (s->ended)
		return cc_result(c, err);
	if (!(c->pending & (1U << CT_RECV))) {
		sc_rpc_op(&op, GRPC_OP_RECV_MESSAGE);
		op.data.recv_message.recv_message = &c->recv_bb;
		if (cc_start(c, CT_RECV, &op, 1, err) == -1) {
			s->ended = true;
			return -1;
		}
	}
	r = cc_wait(c, CT_RECV,
	    wait_until != NULL ? to_gpr(wait_until)
			       : gpr_inf_future(GPR_CLOCK_MONOTONIC));
	if (r == -1)
		return sc_error_set(err, SC_ST_TIMEOUT,
		    "no message from the server in time");
	if (r == 1 && c->recv_bb != NULL) {
		r = bb_append(c->recv_bb, msg, err);
		grpc_byte_buffer_destroy(c->recv_bb);
		c->recv_bb = NULL;
		return r == 0 ? 1 : -1;
	}
	s->ended = true;
	return cc_result(c, err);
}

void
sc_rpc_stream_cancel(struct sc_rpc_stream *s)
{
	atomic_store(&s->c.cancelled, true);
	grpc_call_cancel(s->c.call, NULL);
}

void
sc_rpc_stream_free(struct sc_rpc_stream *s)
{
	if (s == NULL)
		return;
	cc_close(&s->c);
	free(s);
}

struct sc_rpc_upload *
sc_rpc_upload_open(struct sc_rpc *rpc, const char *method,
    const struct timespec *deadline, struct sc_error *err)
{
	struct sc_rpc_upload *up;
	grpc_op ops[2];

	up = sc_xcalloc(1, sizeof(*up));
	if (cc_open(&up->c, rpc, method, deadline, err) == -1)
		goto fail;
	/*
	 * Ask for the initial metadata at once: in 1.51 a client call that
	 * has not started RECV_INITIAL_METADATA gets no status until its
	 * deadline when the server ends it while we are still sending.
	 */
	op_send_md(&ops[0], rpc);
	sc_rpc_op(&ops[1], GRPC_OP_RECV_INITIAL_METADATA);
	ops[1].data.recv_initial_metadata.recv_initial_metadata =
	    &up->c.init_md;
	if (cc_start(&up->c, CT_START, ops, SC_NELEM(ops), err) == -1 ||
	    cc_start_status(&up->c, err) == -1)
		goto fail;
	return up;
fail:
	sc_rpc_upload_free(up);
	return NULL;
}

/* The previous send must be done before the next; 0 ok, -1 call failed. */
static int
up_wait_send(struct sc_rpc_upload *up, struct sc_error *err)
{
	struct ccall *c = &up->c;
	int r;

	if (!(c->pending & (1U << CT_SEND)))
		return 0;
	r = cc_wait_inf(c, CT_SEND);
	grpc_byte_buffer_destroy(c->send_bb);
	c->send_bb = NULL;
	if (r == 1)
		return 0;
	up->finished = true;
	if (cc_result(c, err) == 0)
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "the server ended the upload early");
	return -1;
}

static int
up_check(struct sc_rpc_upload *up, struct sc_error *err)
{
	if (atomic_load(&up->c.cancelled))
		return sc_error_from_grpc(err, SC_GRPC_CANCELLED,
		    "call cancelled by the client", NULL, 0);
	if (up->finished)
		return sc_error_set(err, SC_ST_INTERNAL,
		    "upload already finished");
	return 0;
}

int
sc_rpc_upload_write(struct sc_rpc_upload *up, const void *msg, size_t len,
    struct sc_error *err)
{
	struct ccall *c = &up->c;
	grpc_op op;

	if (up_check(up, err) == -1 || up_wait_send(up, err) == -1)
		return -1;
	c->send_bb = sc_rpc_make_bb(msg, len);
	if (len > c->sent_max)
		c->sent_max = len;
	sc_rpc_op(&op, GRPC_OP_SEND_MESSAGE);
	op.data.send_message.send_message = c->send_bb;
	if (cc_start(c, CT_SEND, &op, 1, err) == -1) {
		up->finished = true;
		return -1;
	}
	return 0;
}

int
sc_rpc_upload_finish(struct sc_rpc_upload *up, struct sc_buf *resp,
    struct sc_error *err)
{
	struct ccall *c = &up->c;
	grpc_op ops[2];

	if (up_check(up, err) == -1 || up_wait_send(up, err) == -1)
		return -1;
	up->finished = true;
	sc_rpc_op(&ops[0], GRPC_OP_SEND_CLOSE_FROM_CLIENT);
	sc_rpc_op(&ops[1], GRPC_OP_RECV_MESSAGE);
	ops[1].data.recv_message.recv_message = &c->recv_bb;
	if (cc_start(c, CT_FINISH, ops, SC_NELEM(ops), err) == -1)
		return -1;
	(void)cc_wait_inf(c, CT_FINISH);
	if (cc_result(c, err) == -1)
		return -1;
	if (c->recv_bb == NULL)
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "no reply message to the upload");
	return bb_append(c->recv_bb, resp, err);
}

void
sc_rpc_upload_cancel(struct sc_rpc_upload *up)
{
	atomic_store(&up->c.cancelled, true);
	grpc_call_cancel(up->c.call, NULL);
}

void
sc_rpc_upload_free(struct sc_rpc_upload *up)
{
	if (up == NULL)
		return;
	cc_close(&up->c);
	free(up);
}
