/* SPDX-License-Identifier: MIT */

/*
 * service_artifact.c: the AddArtifacts and ArtifactStatus RPCs on the artifact
 * store (artifact.h).  An upload runs on a thread of its own, counted so
 * that shutdown waits for it.
 */

#include "server/service_int.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/log.h"
#include "core/protocol.h"
#include "core/rpc_server.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "server/artifact.h"
#include "engine/engine.h"
#include "server/exec.h"
#include "server/session.h"
#include "core/banned.h"

/* ------------------------------------------------------------ artifacts */

void
sc_svc_artifact_status(struct sc_rpc_call *call, void *arg)
{
	struct sc_server *srv = arg;
	Spark__Connect__ArtifactStatusesRequest *req;
	Spark__Connect__ArtifactStatusesResponse resp =
	    SPARK__CONNECT__ARTIFACT_STATUSES_RESPONSE__INIT;
	Spark__Connect__ArtifactStatusesResponse__ArtifactStatus no =
	    SPARK__CONNECT__ARTIFACT_STATUSES_RESPONSE__ARTIFACT_STATUS__INIT;
	Spark__Connect__ArtifactStatusesResponse__ArtifactStatus yes =
	    SPARK__CONNECT__ARTIFACT_STATUSES_RESPONSE__ARTIFACT_STATUS__INIT;
	Spark__Connect__ArtifactStatusesResponse__StatusesEntry *ents, **entp;
	struct sc_session *s;
	size_t i;

	if (!sc_svc_authorized(srv, call) ||
	    (req = sc_svc_decode(call,
		 &spark__connect__artifact_statuses_request__descriptor)) ==
		NULL)
		return;
	s = sc_svc_session(srv, call, USER(req), req->session_id, OBSERVED(req),
	    SC_SESS_GET_OR_CREATE);
	if (s == NULL) {
		sc_svc_free_msg(req);
		return;
	}
	/* As Spark: only cache/ names of this session can exist. */
	no.exists = 0;
	yes.exists = 1;
	ents = sc_xcalloc(req->n_names ? req->n_names : 1, sizeof(*ents));
	entp = sc_xcalloc(req->n_names ? req->n_names : 1, sizeof(*entp));
	for (i = 0; i < req->n_names; i++) {
		spark__connect__artifact_statuses_response__statuses_entry__init(
		    &ents[i]);
		ents[i].key = req->names[i];
		ents[i].value = srv->artifacts != NULL &&
			sc_artifact_cached(srv->artifacts, s->server_side_id,
			    req->names[i])
		    ? &yes
		    : &no;
		entp[i] = &ents[i];
	}
	resp.n_statuses = req->n_names;
	resp.statuses = entp;
	resp.session_id = req->session_id;
	resp.server_side_session_id = s->server_side_id;
	sc_svc_reply(call, &resp.base);
	free(ents);
	free(entp);
	sc_session_unref(s);
	sc_svc_free_msg(req);
}

/*
 * One AddArtifacts call.  Its messages are handled on a thread of its
 * own, since they go to disk.  Each message is read into a buffer of a
 * queue, and the read callback (on the call's completion-queue thread)
 * asks for the next one at once while the queue holds less than
 * QUEUE_BYTES, so the network never waits for the disk unless the disk
 * is behind by that much; the thread takes everything queued at each
 * wake-up.  At most QUEUE_BYTES plus one message are queued, and as
 * much again may be in the thread's hands, whatever the size of the
 * artifacts.  The callback does no I/O and never waits for the thread.
 */
enum upload_in { IN_MORE, IN_EOF, IN_DEAD };

struct upload_msg {
	uint8_t *buf;
	size_t len, cap;
};

/* Bytes queued before the callback stops asking for more. */
#define QUEUE_BYTES (1024 * 1024)
/* Messages queued at most (small messages), a power of two. */
#define QUEUE_MSGS 64
/*
 * Bytes queued before the thread is woken (or the stream ends, or the
 * queue is full), and how long it waits for them at most.
 */
#define WAKE_BYTES (256 * 1024)
#define WAKE_MS 20
/* Largest buffer kept for reuse. */
#define KEEP_CAP (256 * 1024)

struct upload_job {
	struct sc_server *srv;
	struct sc_rpc_call *call; /* a reference */
	struct sc_session *s; /* from the first message, or NULL */
	struct sc_artifact_upload *up;
	char *session_id; /* as the first message named it */
	enum sc_svc_who who; /* what the token says of the caller */
	char bound[SC_AUTH_USER_MAX]; /* its user, when who is BOUND */
	int64_t bytes; /* received in artifacts' data */
	int64_t touched_ms; /* when the session's idle timer was reset */
	struct upload_msg spare; /* the callback's next buffer */

	pthread_mutex_t mu; /* everything below */
	pthread_cond_t cv;
	int refs; /* the thread's, an outstanding read's */
	enum upload_in in; /* after the queued messages */
	bool stopped; /* the thread has ended: no more reads */
	bool stalled; /* the queue was full: no read outstanding */
	bool waiting; /* the thread sleeps on cv */
	bool idle; /* ... and nothing came for WAKE_MS before */
	struct upload_msg q[QUEUE_MSGS]; /* ring of received messages */
	size_t qhead, qn, qbytes;
	struct upload_msg freel[QUEUE_MSGS]; /* buffers for reuse */
	size_t nfree;
};

/* Stack of an upload thread. */
#define UPLOAD_STACK (256 * 1024)
/* How often a running upload resets its session's idle timer. */
#define UPLOAD_TOUCH_MS 1000

static void
job_unref(struct upload_job *j)
{
	bool last;
	size_t i;

	pthread_mutex_lock(&j->mu);
	last = --j->refs == 0;
	pthread_mutex_unlock(&j->mu);
	if (!last)
		return;
	pthread_cond_destroy(&j->cv);
	pthread_mutex_destroy(&j->mu);
	for (i = 0; i < j->qn; i++)
		free(j->q[(j->qhead + i) % QUEUE_MSGS].buf);
	for (i = 0; i < j->nfree; i++)
		free(j->freel[i].buf);
	free(j->spare.buf);
	free(j->session_id);
	sc_rpc_call_unref(j->call);
	free(j);
}

/* Whether the callback may ask for another message; j->mu held. */
static bool
queue_has_room(const struct upload_job *j)
{
	return j->qbytes < QUEUE_BYTES && j->qn < QUEUE_MSGS;
}

static void on_upload_read(struct sc_rpc_call *call, const void *msg,
    size_t len, bool ok, void *arg);
static void *upload_buf(size_t len, void *arg);

/*
 * Ask for the next message, for a reference taken under j->mu; on
 * failure (the call is gone) the thread is told.
 */
static void
upload_read(struct upload_job *j)
{
	if (sc_rpc_call_read_into(j->call, upload_buf, on_upload_read, j) == 0)
		return;
	pthread_mutex_lock(&j->mu);
	j->in = IN_DEAD;
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
	job_unref(j);
}

/*
 * Where a message is read to: the spare buffer, which only the read
 * callbacks use (one read is outstanding at a time).
 */
static void *
upload_buf(size_t len, void *arg)
{
	struct upload_job *j = arg;
	struct upload_msg *m = &j->spare;

	if (m->buf == NULL || len > m->cap) {
		free(m->buf);
		m->cap = len > 0 ? len : 1;
		m->buf = sc_xmalloc(m->cap);
	}
	return m->buf;
}

static void
on_upload_read(struct sc_rpc_call *call, const void *msg, size_t len, bool ok,
    void *arg)
{
	struct upload_job *j = arg;
	struct upload_msg *m = &j->spare;
	bool again = false;

	(void)call; /* msg is in j->spare, from upload_buf() */
	pthread_mutex_lock(&j->mu);
	if (!ok)
		j->in = IN_DEAD;
	else if (msg == NULL)
		j->in = IN_EOF;
	else {
		m->len = len;
		j->q[(j->qhead + j->qn) % QUEUE_MSGS] = *m;
		j->qn++;
		j->qbytes += len;
		if (j->nfree > 0)
			*m = j->freel[--j->nfree];
		else
			*m = (struct upload_msg){ .buf = NULL,
				.len = 0,
				.cap = 0 };
		if (!j->stopped && queue_has_room(j)) {
			again = true;
			j->refs++;
		} else if (!j->stopped)
			j->stalled = true;
	}
	/*
	 * The first message after an idle spell wakes the thread too,
	 * which then waits WAKE_MS at most for more.
	 */
	if (j->waiting &&
	    (j->in != IN_MORE || j->stalled || (j->idle && j->qn == 1) ||
		j->qbytes >= WAKE_BYTES))
		pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
	if (again)
		upload_read(j);
	job_unref(j);
}

/* Reset the idle timer of the upload's session, as any RPC does. */
static void
touch(struct upload_job *j)
{
	struct sc_session *s;
	struct sc_error err;

	s = sc_sessmgr_get(j->srv->sessions, j->s->user_id, j->s->session_id,
	    NULL, SC_SESS_GET_ONLY, &err);
	if (s != NULL)
		sc_session_unref(s);
	j->touched_ms = sc_mono_ms();
}

/* A varint of at most max bytes at *pp (below end); false if none. */
static bool
wire_varint(const uint8_t **pp, const uint8_t *end, unsigned max, uint64_t *v)
{
	const uint8_t *p = *pp;
	unsigned i;

	*v = 0;
	for (i = 0; i < max && p < end; i++, p++) {
		*v |= (uint64_t)(*p & 0x7f) << (7 * i);
		if ((*p & 0x80) == 0) {
			*pp = p + 1;
			return true;
		}
	}
	return false;
}

/* A length-delimited field's bytes at *pp; false if malformed. */
static bool
wire_bytes(const uint8_t **pp, const uint8_t *end, const uint8_t **b, size_t *n)
{
	uint64_t len;

	if (!wire_varint(pp, end, 4, &len) || len > (uint64_t)(end - *pp))
		return false;
	*b = *pp;
	*n = (size_t)len;
	*pp += len;
	return true;
}

/*
 * The message of a long upload, an ArtifactChunk after the first
 * message, read in place (the decoder would copy its data): true with
 * the chunk's data and crc for a message of session_id, user_context,
 * client_type, client_observed_server_side_session_id and one chunk of
 * at most one data and one crc, each with its usual tag.  Anything
 * else is false and left to the decoder, which decides what is valid;
 * the user_context is checked by the decoder here too.
 */
static bool
chunk_in_place(const uint8_t *msg, size_t len, const uint8_t **data,
    size_t *dlen, int64_t *crc)
{
	const uint8_t *p = msg, *end = msg + len, *b, *c = NULL, *cend = NULL;
	Spark__Connect__UserContext *uc;
	bool has_data = false, has_crc = false;
	uint64_t v;
	size_t n;

	while (p < end) {
		switch (*p++) {
		case 0x0a: /* session_id */
		case 0x32: /* client_type */
		case 0x3a: /* client_observed_server_side_session_id */
			if (!wire_bytes(&p, end, &b, &n))
				return false;
			break;
		case 0x12: /* user_context */
			if (!wire_bytes(&p, end, &b, &n) ||
			    (uc = sc_proto_unpack(
				 &spark__connect__user_context__descriptor, b,
				 n, NULL)) == NULL)
				return false;
			sc_svc_free_msg(uc);
			break;
		case 0x2a: /* chunk */
			if (c != NULL || !wire_bytes(&p, end, &c, &n))
				return false;
			cend = c + n;
			break;
		default:
			return false;
		}
	}
	if (c == NULL)
		return false;
	*data = NULL;
	*dlen = 0;
	*crc = 0;
	for (p = c; p < cend;) {
		switch (*p++) {
		case 0x0a: /* data */
			if (has_data || !wire_bytes(&p, cend, data, dlen))
				return false;
			has_data = true;
			break;
		case 0x10: /* crc */
			if (has_crc || !wire_varint(&p, cend, 10, &v))
				return false;
			*crc = (int64_t)v;
			has_crc = true;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* Handle one AddArtifactsRequest; -1 with err set ends the call. */
static int
upload_message(struct upload_job *j, const uint8_t *msg, size_t len,
    struct sc_error *err)
{
	Spark__Connect__AddArtifactsRequest *req;
	const Spark__Connect__AddArtifactsRequest__Batch *b;
	const Spark__Connect__AddArtifactsRequest__BeginChunkedArtifact *bc;
	const Spark__Connect__AddArtifactsRequest__ArtifactChunk *c;
	const uint8_t *data;
	size_t i, dlen;
	int64_t crc;
	int rc = 0;

	if (j->s != NULL && chunk_in_place(msg, len, &data, &dlen, &crc)) {
		if (sc_mono_ms() - j->touched_ms >= UPLOAD_TOUCH_MS)
			touch(j);
		j->bytes += (int64_t)dlen;
		return sc_artifact_upload_chunk(j->up, data, dlen, crc, err);
	}

	/* Names as sent: the decoded strings would end at a NUL byte. */
	if (sc_artifact_check_request(msg, len, err) == -1)
		return -1;
	req = sc_proto_unpack(
	    &spark__connect__add_artifacts_request__descriptor, msg, len, err);
	if (req == NULL) {
		err->rpc_code = SC_GRPC_INVALID_ARGUMENT;
		return -1;
	}
	if (j->s == NULL) {
		/* As Spark: the first message names the session. */
		if (sc_svc_check_user(j->who, j->bound, USER(req), err) == -1) {
			sc_svc_free_msg(req);
			return -1;
		}
		j->s = sc_sessmgr_get(j->srv->sessions, USER(req),
		    req->session_id, OBSERVED(req), SC_SESS_GET_OR_CREATE, err);
		if (j->s == NULL ||
		    (j->up = sc_artifact_upload_new(j->srv->artifacts, j->s,
			 err)) == NULL) {
			sc_svc_free_msg(req);
			return -1;
		}
		j->session_id = sc_xstrdup(req->session_id);
		j->touched_ms = sc_mono_ms();
	} else if (sc_mono_ms() - j->touched_ms >= UPLOAD_TOUCH_MS) {
		/* A long upload keeps its session from expiring under it. */
		touch(j);
	}
	switch (req->payload_case) {
	case SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_BATCH:
		b = req->batch;
		for (i = 0; i < b->n_artifacts && rc == 0; i++) {
			c = b->artifacts[i]->data;
			rc = sc_artifact_upload_single(j->up,
			    b->artifacts[i]->name, c ? c->data.data : NULL,
			    c ? c->data.len : 0, c ? c->crc : 0, err);
			j->bytes += c ? (int64_t)c->data.len : 0;
		}
		break;
	case SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_BEGIN_CHUNK:
		bc = req->begin_chunk;
		c = bc->initial_chunk;
		rc = sc_artifact_upload_begin(j->up, bc->name, bc->total_bytes,
		    bc->num_chunks, c ? c->data.data : NULL,
		    c ? c->data.len : 0, c ? c->crc : 0, err);
		j->bytes += c ? (int64_t)c->data.len : 0;
		break;
	case SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_CHUNK:
		c = req->chunk;
		rc = sc_artifact_upload_chunk(j->up, c->data.data, c->data.len,
		    c->crc, err);
		j->bytes += (int64_t)c->data.len;
		break;
	default:
		rc = sc_srv_error(err, "INVALID_ARTIFACT_STREAM.NO_PAYLOAD",
		    NULL,
		    "An AddArtifactsRequest carries no batch, begin_chunk "
		    "or chunk.");
		break;
	}
	sc_svc_free_msg(req);
	return rc;
}

/* Half-close: commit and answer with one summary per artifact. */
static void
upload_finish(struct upload_job *j)
{
	Spark__Connect__AddArtifactsResponse resp =
	    SPARK__CONNECT__ADD_ARTIFACTS_RESPONSE__INIT;
	Spark__Connect__AddArtifactsResponse__ArtifactSummary *sum = NULL;
	Spark__Connect__AddArtifactsResponse__ArtifactSummary **sump = NULL;
	const struct sc_artifact_summary *v = NULL;
	struct sc_error err;
	size_t i, n = 0, bad = 0;

	if (j->up != NULL &&
	    sc_artifact_upload_commit(j->up, &v, &n, &err) == -1) {
		sc_debug("AddArtifacts of session %s failed: %s", j->session_id,
		    err.msg);
		sc_artifact_upload_free(j->up);
		j->up = NULL;
		sc_srv_finish_error(j->call, j->s, &err);
		return;
	}
	sum = sc_xcalloc(n ? n : 1, sizeof(*sum));
	sump = sc_xcalloc(n ? n : 1, sizeof(*sump));
	for (i = 0; i < n; i++) {
		spark__connect__add_artifacts_response__artifact_summary__init(
		    &sum[i]);
		sum[i].name = (char *)(uintptr_t)v[i].name;
		sum[i].is_crc_successful = v[i].crc_ok;
		bad += !v[i].crc_ok;
		sump[i] = &sum[i];
	}
	resp.n_artifacts = n;
	resp.artifacts = sump;
	if (j->s != NULL) {
		resp.session_id = j->session_id;
		resp.server_side_session_id = j->s->server_side_id;
		if (bad == 0)
			sc_info("session %s: %zu artifact%s added (%" PRId64
				" bytes received)",
			    j->session_id, n, n == 1 ? "" : "s", j->bytes);
		else
			sc_info("session %s: %zu artifact%s added, %zu failed "
				"their CRC (%" PRId64 " bytes received)",
			    j->session_id, n - bad, n - bad == 1 ? "" : "s",
			    bad, j->bytes);
	}
	sc_svc_reply(j->call, &resp.base);
	free(sum);
	free(sump);
}

static void
upload_done(struct upload_job *j)
{
	sc_artifact_upload_free(j->up);
	if (j->s != NULL)
		sc_session_unref(j->s);
	job_unref(j);
	sc_svc_job_end();
}

/*
 * Wait for work and take it: every queued message into batch (*np of
 * them), the state after them into *in.  Restarts reading if the queue
 * was full.
 */
static void
upload_take(struct upload_job *j, struct upload_msg *batch, size_t *np,
    enum upload_in *in)
{
	struct timespec at;
	bool read;
	size_t i;

	pthread_mutex_lock(&j->mu);
	while (j->in == IN_MORE && !j->stalled && j->qbytes < WAKE_BYTES) {
		j->waiting = true;
		if (j->qn == 0 && j->idle)
			pthread_cond_wait(&j->cv, &j->mu);
		else {
			sc_deadline_in_ms(&at, WAKE_MS);
			if (pthread_cond_timedwait(&j->cv, &j->mu, &at) ==
				ETIMEDOUT &&
			    j->qn > 0) {
				/* A slow client: take what is there. */
				j->waiting = false;
				break;
			}
			/* Nothing for WAKE_MS: the next message wakes. */
			j->idle = j->qn == 0;
		}
		j->waiting = false;
	}
	j->idle = false;
	*in = j->in;
	for (i = 0; i < j->qn; i++)
		batch[i] = j->q[(j->qhead + i) % QUEUE_MSGS];
	*np = j->qn;
	j->qhead = (j->qhead + j->qn) % QUEUE_MSGS;
	j->qn = 0;
	j->qbytes = 0;
	read = j->stalled && j->in == IN_MORE;
	j->stalled = false;
	if (read)
		j->refs++;
	pthread_mutex_unlock(&j->mu);
	if (read)
		upload_read(j);
}

/* Give the buffers of a handled batch back for reuse. */
static void
upload_recycle(struct upload_job *j, struct upload_msg *batch, size_t n,
    bool stop)
{
	size_t i;

	pthread_mutex_lock(&j->mu);
	for (i = 0; i < n; i++) {
		if (batch[i].cap <= KEEP_CAP && j->nfree < QUEUE_MSGS)
			j->freel[j->nfree++] = batch[i];
		else
			free(batch[i].buf);
	}
	if (stop)
		j->stopped = true;
	pthread_mutex_unlock(&j->mu);
}

static void *
upload_main(void *arg)
{
	struct upload_job *j = arg;
	struct upload_msg batch[QUEUE_MSGS];
	struct sc_error err;
	enum upload_in in;
	size_t i, n;
	bool done = false;

	/* Named for top -H and perf: it would inherit "sc-rpc". */
	pthread_setname_np(pthread_self(), "sc-upload");
	pthread_mutex_lock(&j->mu);
	j->refs++;
	pthread_mutex_unlock(&j->mu);
	upload_read(j);
	while (!done) {
		upload_take(j, batch, &n, &in);
		if (in == IN_DEAD)
			done = true; /* cancelled: nothing to answer */
		for (i = 0; i < n && !done; i++) {
			if (upload_message(j, batch[i].buf, batch[i].len,
				&err) == -1) {
				sc_debug(
				    "AddArtifacts of session %s failed: %s",
				    j->session_id ? j->session_id : "?",
				    err.msg);
				/* Nothing is left once the client is told. */
				sc_artifact_upload_free(j->up);
				j->up = NULL;
				sc_srv_finish_error(j->call, j->s, &err);
				done = true;
			}
		}
		if (!done && in == IN_EOF) {
			upload_finish(j);
			done = true;
		}
		upload_recycle(j, batch, n, done);
	}
	upload_done(j);
	return NULL;
}

void
sc_svc_add_artifacts(struct sc_rpc_call *call, void *arg)
{
	struct sc_server *srv = arg;
	struct upload_job *j;
	struct sc_error err;
	pthread_attr_t attr;
	pthread_t tid;
	int rc;

	if (!sc_svc_authorized(srv, call))
		return;
	if (srv->artifacts == NULL) {
		sc_srv_error(&err, "UNSUPPORTED_FEATURE.ARTIFACTS", "0A000",
		    "The feature is not supported: this server keeps no "
		    "artifacts.");
		err.rpc_code = SC_GRPC_UNIMPLEMENTED;
		sc_srv_finish_error(call, NULL, &err);
		return;
	}
	j = sc_xcalloc(1, sizeof(*j));
	j->srv = srv;
	j->call = call;
	j->who = sc_svc_identify(srv, call, j->bound);
	sc_rpc_call_ref(call);
	pthread_mutex_init(&j->mu, NULL);
	sc_mono_cond_init(&j->cv);
	j->refs = 1;
	j->in = IN_MORE;
	sc_svc_job_begin();
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, UPLOAD_STACK);
	rc = pthread_create(&tid, &attr, upload_main, j);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		sc_srv_error(&err, "RESOURCE_EXHAUSTED", "53000",
		    "Cannot start an artifact upload now: %s.", strerror(rc));
		err.rpc_code = SC_GRPC_RESOURCE_EXHAUSTED;
		sc_srv_finish_error(call, NULL, &err);
		upload_done(j);
	}
}
