/* SPDX-License-Identifier: MIT */

/*
 * test-exec-manager.c: the execution manager without gRPC: fake calls
 * (flow control by hand), a fake runner driven by the plan's SQL text,
 * and a fake clock.  Response ids and order, ExecutePlan /
 * ReattachExecute / ReleaseExecute / Interrupt answers, stream rotation,
 * error replay, backpressure, abandonment with tombstones, the tombstone
 * LRU, the recently-completed cache, and the scheduler: slots given back
 * while paused, compensation and its bound, the per-user cap and the
 * fair order, and jobs (AnalyzePlan) on the same runner threads.
 */

#include "server/exec.h"

#include <pthread.h>
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

/* Ack sends until the call is finished (5 s at most); true if it was. */
static bool
drive(struct sc_rpc_call *c)
{
	struct timespec ts;
	int64_t end = sc_mono_ms() + 5000;
	bool fin;

	for (;;) {
		while (xf_ack(c, true))
			;
		pthread_mutex_lock(&c->mu);
		if (!c->finished && !c->in_flight) {
			xf_deadline_in(&ts, 2);
			pthread_cond_timedwait(&c->cv, &c->mu, &ts);
		}
		fin = c->finished && !c->in_flight;
		pthread_mutex_unlock(&c->mu);
		if (fin)
			return true;
		if (sc_mono_ms() > end)
			return false;
	}
}

/*
 * The operation id leaves the table within 5 s: the status is sent before
 * the worker drops the operation, so a test that has seen the status may
 * look a moment too early.
 */
static bool
gone_soon(const char *id)
{
	int64_t end = sc_mono_ms() + 5000;

	while (xf_find(id).found) {
		if (sc_mono_ms() > end)
			return false;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	return true;
}

/* Wait until the call has n messages (acking nothing); 5 s at most. */
static bool
wait_msgs(struct sc_rpc_call *c, size_t n)
{
	struct timespec ts;
	bool r;

	xf_deadline_in(&ts, 5000);
	pthread_mutex_lock(&c->mu);
	while (c->nmsgs < n && !c->finished)
		if (pthread_cond_timedwait(&c->cv, &c->mu, &ts) != 0)
			break;
	r = c->nmsgs >= n;
	pthread_mutex_unlock(&c->mu);
	return r;
}

/* Wait until the call is finished, acking nothing. */
static bool
wait_finished(struct sc_rpc_call *c)
{
	struct timespec ts;
	bool r;

	xf_deadline_in(&ts, 5000);
	pthread_mutex_lock(&c->mu);
	while (!c->finished)
		if (pthread_cond_timedwait(&c->cv, &c->mu, &ts) != 0)
			break;
	r = c->finished;
	pthread_mutex_unlock(&c->mu);
	return r;
}

/* Close and free a call; its references must all be gone. */
static void
done(struct sc_rpc_call *c, const char *what)
{
	int v, refs;

	refs = xf_call_retire(c, &v);
	is_int(v, 0, "%s: never two sends in flight", what);
	is_int(refs, 1, "%s: call references released", what);
}

/* ---------------------------------------------------------- tests */

static void
test_basic(struct sc_session *s)
{
	struct sc_rpc_call *c;
	struct xf_find f;
	size_t i, j;
	bool ids_ok = true, uniq = true;

	c = xf_execute(s, OP1, "schema batch:3:10 metrics", true, "t1");
	ok(drive(c), "basic: stream finished");
	is_int(c->code, SC_GRPC_OK, "basic: status OK");
	is_int(c->nmsgs, 6, "basic: schema, 3 batches, metrics, complete");
	ok(c->nmsgs == 6 && c->msgs[0]->schema != NULL &&
		c->msgs[0]->response_type_case ==
		    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE__NOT_SET,
	    "basic: schema-only response first");
	ok(c->nmsgs == 6 && xf_is_batch(c->msgs[1]) &&
		xf_is_batch(c->msgs[3]) &&
		c->msgs[3]->arrow_batch->start_offset == 2,
	    "basic: batches in order with start_offset");
	ok(c->nmsgs == 6 && c->msgs[4]->metrics != NULL,
	    "basic: metrics-only response");
	ok(c->nmsgs == 6 && xf_has_complete(c->msgs[5]),
	    "basic: ResultComplete last");
	for (i = 0; i < c->nmsgs; i++) {
		if (strcmp(c->msgs[i]->session_id, SID) != 0 ||
		    strcmp(c->msgs[i]->server_side_session_id,
			s->server_side_id) != 0 ||
		    strcmp(c->msgs[i]->operation_id, OP1) != 0 ||
		    !sc_uuid_valid(c->msgs[i]->response_id))
			ids_ok = false;
		for (j = 0; j < i; j++)
			if (strcmp(c->msgs[i]->response_id,
				c->msgs[j]->response_id) == 0)
				uniq = false;
	}
	ok(ids_ok,
	    "basic: every response carries the session, server-side "
	    "session and operation ids and a UUID response id");
	ok(uniq, "basic: response ids are distinct");
	f = xf_find(OP1);
	ok(f.found && f.info.state == SC_EXEC_FINISHED,
	    "basic: reattachable op stays registered, FINISHED");
	ok(!f.info.attached, "basic: detached after the stream");
	is_int(f.info.detached_since_ms, xf_now, "basic: detached now");
	is_int(f.info.rows_sent, 3, "basic: 3 rows sent");
	is_int(f.info.produced, 6, "basic: 6 produced");
	is_int(f.info.consumed, 6, "basic: 6 consumed");
	ok(f.info.ntags == 1 && strcmp(f.info.tags[0], "t1") == 0,
	    "basic: tag kept");
	done(c, "basic");
}

static void
test_non_reattachable(struct sc_session *s)
{
	struct sc_rpc_call *c;
	struct sc_exec_counts n;

	c = xf_execute(s, OP2, "batch:2:10", false, NULL);
	ok(drive(c), "non-reattachable: finished");
	is_int(c->code, SC_GRPC_OK, "non-reattachable: OK");
	is_int(c->nmsgs, 2, "non-reattachable: no ResultComplete");
	ok(gone_soon(OP2), "non-reattachable: removed at stream end");
	done(c, "non-reattachable");

	c = xf_execute(s, OP2, "batch:1:1", true, NULL);
	ok(wait_finished(c), "recently completed: refused at once");
	is_str(c->errclass, "INVALID_HANDLE.OPERATION_ALREADY_EXISTS",
	    "recently completed id: OPERATION_ALREADY_EXISTS");
	is_str(c->status,
	    "[INVALID_HANDLE.OPERATION_ALREADY_EXISTS] The "
	    "handle `" OP2 "` is invalid. Operation already exists. "
	    "SQLSTATE: HY000",
	    "OPERATION_ALREADY_EXISTS message");
	is_int(c->code, SC_GRPC_INTERNAL, "as INTERNAL");
	done(c, "already exists");
	sc_execmgr_counts(xf_mgr, &n);
	ok(n.completed >= 1, "completed cache holds it");
}

static void
test_ids_and_tags(struct sc_session *s)
{
	struct sc_rpc_call *c;

	c = xf_execute(s, "not-a-uuid", "batch:1:1", true, NULL);
	ok(wait_finished(c), "bad id: refused");
	is_str(c->status,
	    "[INVALID_HANDLE.FORMAT] The handle `not-a-uuid` "
	    "is invalid. Handle must be an UUID string of the format "
	    "'00112233-4455-6677-8899-aabbccddeeff' SQLSTATE: HY000",
	    "bad id: INVALID_HANDLE.FORMAT message");
	is_int(c->nmsgs, 0, "bad id: no responses");
	done(c, "bad id");

	c = xf_execute(s, "6A0B3C1E-1111-4AAA-8BBB-0000000000AA", "batch:1:1",
	    false, NULL);
	ok(drive(c), "upper-case id runs");
	ok(c->nmsgs == 1 &&
		strcmp(c->msgs[0]->operation_id,
		    "6a0b3c1e-1111-4aaa-8bbb-0000000000aa") == 0,
	    "operation id normalized to lower case");
	done(c, "upper-case id");

	c = xf_execute(s, NULL, "batch:1:1", false, NULL);
	ok(drive(c), "no id: runs");
	ok(c->nmsgs == 1 && sc_uuid_valid(c->msgs[0]->operation_id),
	    "no id: a generated UUID");
	done(c, "generated id");

	c = xf_execute(s, NULL, "batch:1:1", true, "");
	ok(wait_finished(c), "empty tag refused");
	is_str(c->status, "Spark Connect tag cannot be an empty string.",
	    "empty tag message");
	is_str(c->errclass, "", "empty tag: no error class (as Spark)");
	is_int(c->code, SC_GRPC_INTERNAL, "empty tag: INTERNAL");
	done(c, "empty tag");
	c = xf_execute(s, NULL, "batch:1:1", true, "a,b");
	ok(wait_finished(c), "tag with ',' refused");
	is_str(c->status, "Spark job tag cannot contain ','.",
	    "tag with ',' message");
	done(c, "comma tag");
}

static void
test_reattach(struct sc_session *s)
{
	struct sc_rpc_call *c, *c2, *c3;
	char id2[SC_UUID_STRLEN];
	struct xf_find f;

	c = xf_reattach(s, OP3, NULL);
	ok(wait_finished(c), "unknown op: refused");
	is_str(c->status,
	    "[INVALID_HANDLE.OPERATION_NOT_FOUND] The handle `" OP3
	    "` is invalid. Operation not found. SQLSTATE: HY000",
	    "unknown op: OPERATION_NOT_FOUND");
	done(c, "reattach unknown");

	xf_gate_set(false);
	c = xf_execute(s, OP3, "batch:3:10 gate batch:2:10", true, NULL);
	ok(wait_msgs(c, 1), "reattach: first response sent");
	xf_ack(c, true);
	ok(wait_msgs(c, 2), "reattach: second response sent");
	xf_ack(c, true);
	ok(wait_msgs(c, 3), "reattach: third response sent");
	snprintf(id2, sizeof(id2), "%s", c->msgs[1]->response_id);

	c2 = xf_reattach(s, OP3, "6a0b3c1e-0000-4000-8000-00000000dead");
	ok(wait_finished(c2), "unknown last_response_id refused");
	is_str(c2->errclass, "INVALID_CURSOR.POSITION_NOT_FOUND",
	    "unknown last_response_id: POSITION_NOT_FOUND");
	ok(!c->finished, "the attached sender is left alone");
	done(c2, "position not found");

	c2 = xf_reattach(s, OP3, id2);
	ok(wait_finished(c), "old sender ended");
	is_str(c->errclass, "INVALID_CURSOR.DISCONNECTED",
	    "old sender: INVALID_CURSOR.DISCONNECTED");
	is_str(c->status,
	    "[INVALID_CURSOR.DISCONNECTED] The cursor is "
	    "invalid. The cursor has been disconnected by the server. "
	    "SQLSTATE: HY109",
	    "DISCONNECTED message");
	is_int(c->code, SC_GRPC_INTERNAL, "DISCONNECTED as INTERNAL");
	ok(wait_msgs(c2, 1), "new sender resumes");
	ok(c2->nmsgs >= 1 && c2->msgs[0]->arrow_batch != NULL &&
		c2->msgs[0]->arrow_batch->start_offset == 2,
	    "resumes right after last_response_id (third batch)");
	xf_gate_set(true);
	ok(drive(c2), "reattached stream finished");
	is_int(c2->nmsgs, 4, "third batch, 2 more, ResultComplete");
	ok(c2->nmsgs == 4 && xf_has_complete(c2->msgs[3]), "ends complete");
	f = xf_find(OP3);
	is_int(f.info.reattaches, 1, "one reattach counted");
	done(c, "disconnected sender");

	/* Reattach after completion with the last id: OK, nothing sent. */
	c3 = xf_reattach(s, OP3, c2->msgs[3]->response_id);
	ok(drive(c3), "reattach after the end");
	is_int(c3->nmsgs, 0, "nothing left to send");
	is_int(c3->code, SC_GRPC_OK, "and OK");
	done(c3, "reattach at end");
	done(c2, "reattached");

	xf_gate_set(false);
	c = xf_execute(s, OP4, "gate", false, NULL);
	ok(xf_wait_state(OP4, SC_EXEC_RUNNING), "non-reattachable running");
	c2 = xf_reattach(s, OP4, NULL);
	ok(wait_finished(c2), "reattach to non-reattachable refused");
	is_str(c2->status,
	    "[INVALID_CURSOR.NOT_REATTACHABLE] The cursor is "
	    "invalid. The cursor is not reattachable. SQLSTATE: HY109",
	    "NOT_REATTACHABLE");
	done(c2, "not reattachable");
	xf_gate_set(true);
	ok(drive(c), "non-reattachable finished");
	done(c, "non-reattachable gate");
}

static void
test_release(struct sc_session *s)
{
	struct sc_rpc_call *c, *c2;
	struct sc_error err;
	struct xf_find f;
	bool found = true;

	is_int(xf_release(s, OP5, 0, NULL, &found, &err), 0,
	    "release unknown op: success");
	ok(!found, "release unknown op: found=false");

	c = xf_execute(s, OP5, "batch:4:10", true, NULL);
	ok(drive(c), "release: stream done");
	is_int(xf_release(s, OP5, 1, c->msgs[1]->response_id, &found, &err), 0,
	    "release_until");
	ok(found, "release_until: found");
	f = xf_find(OP5);
	is_int(f.info.buffered_responses, 3,
	    "release_until dropped 2 "
	    "(inclusive)");
	is_int(xf_release(s, OP5, 1, "6a0b3c1e-0000-4000-8000-00000000beef",
		   &found, &err),
	    -1, "release_until unknown id fails");
	is_str(err.errclass, "INVALID_CURSOR.POSITION_NOT_FOUND",
	    "with POSITION_NOT_FOUND");
	is_int(xf_release(s, OP5, 2, NULL, &found, &err), -1,
	    "release with neither fails");
	is_str(err.msg, "Unknown ReleaseExecute type!", "its message");
	is_int(err.rpc_code, SC_GRPC_INTERNAL, "as INTERNAL");

	/* Reattach from the start: 1 and 2 were released. */
	c2 = xf_reattach(s, OP5, NULL);
	ok(wait_finished(c2), "reattach to a released position");
	is_str(c2->errclass, "INVALID_CURSOR.POSITION_NOT_AVAILABLE",
	    "POSITION_NOT_AVAILABLE");
	done(c2, "position not available");

	is_int(xf_release(s, OP5, 0, NULL, &found, &err), 0, "release_all");
	ok(found, "release_all: found");
	ok(!xf_find(OP5).found, "release_all: removed");
	is_int(xf_release(s, OP5, 0, NULL, &found, &err), 0,
	    "second release_all: success");
	ok(!found, "second release_all: found=false");
	c2 = xf_reattach(s, OP5, NULL);
	ok(wait_finished(c2), "reattach after release_all");
	is_str(c2->errclass, "INVALID_HANDLE.OPERATION_NOT_FOUND",
	    "released (not tombstoned): OPERATION_NOT_FOUND");
	done(c2, "reattach released");
	done(c, "release");

	/* release_all while running and attached. */
	xf_gate_set(false);
	c = xf_execute(s, OP5 "x", "gate", true, NULL);
	ok(wait_finished(c), "bad op id refused");
	done(c, "bad op id 2");
	c = xf_execute(s, "6a0b3c1e-1111-4aaa-8bbb-000000000015", "gate", true,
	    NULL);
	ok(xf_wait_state("6a0b3c1e-1111-4aaa-8bbb-000000000015",
	       SC_EXEC_RUNNING),
	    "running");
	is_int(xf_release(s, "6a0b3c1e-1111-4aaa-8bbb-000000000015", 0, NULL,
		   &found, &err),
	    0, "release_all while running");
	ok(wait_finished(c), "attached sender ended");
	is_str(c->errclass, "INVALID_CURSOR.DISCONNECTED",
	    "release_all: sender DISCONNECTED");
	done(c, "release running");

	c = xf_execute(s, "6a0b3c1e-1111-4aaa-8bbb-000000000016", "gate", false,
	    NULL);
	ok(xf_wait_state("6a0b3c1e-1111-4aaa-8bbb-000000000016",
	       SC_EXEC_RUNNING),
	    "non-reattachable running");
	is_int(xf_release(s, "6a0b3c1e-1111-4aaa-8bbb-000000000016", 0, NULL,
		   &found, &err),
	    -1, "release non-reattachable fails");
	is_str(err.errclass, "INVALID_CURSOR.NOT_REATTACHABLE",
	    "with NOT_REATTACHABLE");
	xf_gate_set(true);
	ok(drive(c), "non-reattachable finishes");
	done(c, "release non-reattachable");
}

/* Every stream carries one response: reattach until ResultComplete. */
static void
test_rotation_size(struct sc_session *s)
{
	struct sc_rpc_call *c;
	char last[SC_UUID_STRLEN];
	int streams = 0, total = 0;
	bool complete = false, each_one = true, graceful = true;
	struct xf_find f;
	bool found;
	struct sc_error err;
	const char *id = "6a0b3c1e-1111-4aaa-8bbb-000000000020";

	xf_conf.max_stream_size = 1;
	xf_mgr_stop();
	xf_mgr_start(0);
	c = xf_execute(s, id, "batch:4:10", true, NULL);
	last[0] = '\0';
	while (!complete && streams < 20) {
		if (!drive(c))
			break;
		streams++;
		total += (int)c->nmsgs;
		if (c->nmsgs != 1)
			each_one = false;
		if (c->nmsgs > 0) {
			snprintf(last, sizeof(last), "%s",
			    c->msgs[c->nmsgs - 1]->response_id);
			complete = xf_has_complete(c->msgs[c->nmsgs - 1]);
		}
		if (!complete && (c->code != SC_GRPC_OK || c->errclass[0]))
			graceful = false;
		done(c, "rotation stream");
		c = complete ? NULL : xf_reattach(s, id, last[0] ? last : NULL);
	}
	ok(complete, "rotation: ResultComplete reached");
	is_int(streams, 5, "rotation: 5 streams for 5 responses");
	is_int(total, 5, "rotation: every response once");
	ok(each_one, "rotation: the response crossing the size is still sent");
	ok(graceful,
	    "rotation: intermediate streams end OK without "
	    "ResultComplete");
	f = xf_find(id);
	is_int(f.info.rotations, 4, "rotation: 4 rotations counted");
	is_int(f.info.reattaches, 4, "rotation: 4 reattaches");
	xf_release(s, id, 0, NULL, &found, &err);
	xf_conf.max_stream_size = 1 << 30;
	xf_mgr_stop();
	xf_mgr_start(0);
}

static void
test_rotation_time(struct sc_session *s)
{
	struct sc_rpc_call *c, *c2;
	const char *id = "6a0b3c1e-1111-4aaa-8bbb-000000000021";
	bool found;
	struct sc_error err;

	xf_gate_set(false);
	c = xf_execute(s, id, "schema gate batch:1:5", true, NULL);
	ok(wait_msgs(c, 1), "duration: schema sent");
	xf_ack(c, true);
	is_int(sc_execmgr_expire_streams(xf_mgr, xf_now + 119999), 0,
	    "duration: nothing expires before 2 min");
	ok(!c->finished, "duration: still attached");
	atomic_fetch_add(&xf_now, 120000);
	is_int(sc_execmgr_expire_streams(xf_mgr, xf_now), 1,
	    "duration: expired at 2 min");
	ok(c->finished, "duration: stream ended");
	is_int(c->code, SC_GRPC_OK, "duration: graceful OK");
	is_int(c->nmsgs, 1, "duration: no ResultComplete");
	c2 = xf_reattach(s, id, c->msgs[0]->response_id);
	xf_gate_set(true);
	ok(drive(c2), "duration: reattached stream finished");
	is_int(c2->nmsgs, 2, "duration: batch and ResultComplete");
	ok(c2->nmsgs == 2 && xf_has_complete(c2->msgs[1]),
	    "duration: complete on the second stream");
	xf_release(s, id, 0, NULL, &found, &err);
	done(c, "duration 1");
	done(c2, "duration 2");
}

static void
test_error_replay(struct sc_session *s)
{
	struct sc_rpc_call *c, *c2, *c3;
	const char *id = "6a0b3c1e-1111-4aaa-8bbb-000000000022";
	bool found;
	struct sc_error err;

	c = xf_execute(s, id, "batch:2:10 fail", true, NULL);
	ok(drive(c), "error: stream ended");
	is_int(c->nmsgs, 2, "error: responses before the error went out");
	is_str(c->status,
	    "[DIVIDE_BY_ZERO] Division by zero. SQLSTATE: "
	    "22012",
	    "error: then the error status");
	ok(xf_wait_state(id, SC_EXEC_FAILED), "error: FAILED");
	c2 = xf_reattach(s, id, c->msgs[1]->response_id);
	ok(drive(c2), "error: reattach after the last response");
	is_int(c2->nmsgs, 0, "error: nothing more");
	is_str(c2->errclass, "DIVIDE_BY_ZERO", "error: replayed on reattach");
	c3 = xf_reattach(s, id, NULL);
	ok(drive(c3), "error: reattach from the start");
	is_int(c3->nmsgs, 2, "error: both responses again (retry buffer)");
	is_str(c3->errclass, "DIVIDE_BY_ZERO", "error: and the error again");
	xf_release(s, id, 0, NULL, &found, &err);
	done(c, "error 1");
	done(c2, "error 2");
	done(c3, "error 3");
}

static void
test_interrupt(struct sc_session *s)
{
	struct sc_rpc_call *c, *c2, *c3;
	struct sc_error err;
	char **ids;
	size_t n, i;
	int before;
	const char *a3 = "6a0b3c1e-1111-4aaa-8bbb-000000000033";
	const char *a = "6a0b3c1e-1111-4aaa-8bbb-000000000030";
	const char *b = "6a0b3c1e-1111-4aaa-8bbb-000000000031";
	bool found;

	is_int(sc_exec_interrupt(xf_mgr, s, 2, "", &ids, &n, &err), -1,
	    "TAG without a tag fails");
	is_str(err.errclass,
	    "INVALID_PARAMETER_VALUE.INTERRUPT_TYPE_TAG_REQUIRES_TAG",
	    "TAG_REQUIRES_TAG");
	is_int(sc_exec_interrupt(xf_mgr, s, 3, NULL, &ids, &n, &err), -1,
	    "OPERATION_ID without an id fails");
	is_str(err.errclass,
	    "INVALID_PARAMETER_VALUE.INTERRUPT_TYPE_OPERATION_ID_REQUIRES_ID",
	    "OPERATION_ID_REQUIRES_ID");
	is_int(sc_exec_interrupt(xf_mgr, s, 0, NULL, &ids, &n, &err), -1,
	    "UNSPECIFIED fails");
	is_str(err.errclass, "UNSUPPORTED_FEATURE.INTERRUPT_TYPE",
	    "UNSUPPORTED_FEATURE.INTERRUPT_TYPE");

	xf_gate_set(false);
	before = atomic_load(&xf_runs);
	c = xf_execute(s, a, "gate batch:1:1", true, "ta");
	ok(xf_wait_state(a, SC_EXEC_RUNNING), "interrupt: a running");
	c3 = xf_execute(s, a3, "gate", true, NULL);
	ok(xf_wait_state(a3, SC_EXEC_RUNNING),
	    "interrupt: a3 running too "
	    "(same session)");
	/* Both workers are busy: b waits PENDING. */
	c2 = xf_execute(s, b, "batch:1:1", true, "tb");
	ok(xf_wait_state(b, SC_EXEC_PENDING), "interrupt: b pending");
	is_int(sc_exec_interrupt(xf_mgr, s, 3, b, &ids, &n, &err), 0,
	    "interrupt b by id");
	ok(n == 1 && strcmp(ids[0], b) == 0, "interrupted_ids = [b]");
	for (i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	ok(drive(c2), "b's stream ended");
	is_str(c2->status,
	    "[OPERATION_CANCELED] Operation has been canceled. "
	    "SQLSTATE: HY008",
	    "b: OPERATION_CANCELED");
	is_int(c2->nmsgs, 0, "b: nothing produced");
	ok(xf_wait_state(b, SC_EXEC_CANCELED), "b CANCELED");
	is_int(sc_exec_interrupt(xf_mgr, s, 3, b, &ids, &n, &err), 0,
	    "interrupt b again");
	is_int(n, 0, "already canceled: not listed");
	free(ids);

	is_int(sc_exec_interrupt(xf_mgr, s, 2, "ta", &ids, &n, &err), 0,
	    "interrupt by tag");
	ok(n == 1 && strcmp(ids[0], a) == 0, "tag ta -> a");
	for (i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	ok(drive(c), "a's stream ended");
	is_str(c->errclass, "OPERATION_CANCELED", "a: OPERATION_CANCELED");
	ok(xf_wait_state(a, SC_EXEC_CANCELED), "a CANCELED");
	is_int(sc_exec_interrupt(xf_mgr, s, 3, a3, &ids, &n, &err), 0,
	    "interrupt a3");
	is_int(n, 1, "a3 listed");
	for (i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	ok(drive(c3), "a3's stream ended");
	is_int(atomic_load(&xf_runs) - before, 2, "b never ran");
	xf_release(s, a, 0, NULL, &found, &err);
	xf_release(s, b, 0, NULL, &found, &err);
	xf_release(s, a3, 0, NULL, &found, &err);
	done(c, "interrupt a");
	done(c2, "interrupt b");
	done(c3, "interrupt a3");

	c = xf_execute(s, a, "batch:1:1", true, NULL);
	ok(wait_finished(c), "released id reused within expiry");
	is_str(c->errclass, "INVALID_HANDLE.OPERATION_ALREADY_EXISTS",
	    "released id: OPERATION_ALREADY_EXISTS");
	done(c, "reuse");

	/* ALL: only this session's running operations. */
	c = xf_execute(s, "6a0b3c1e-1111-4aaa-8bbb-000000000032", "gate", false,
	    NULL);
	ok(xf_wait_state("6a0b3c1e-1111-4aaa-8bbb-000000000032",
	       SC_EXEC_RUNNING),
	    "all: running");
	is_int(sc_exec_interrupt(xf_mgr, s, 1, NULL, &ids, &n, &err), 0,
	    "interrupt all");
	is_int(n, 1, "all: one operation");
	for (i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	ok(drive(c), "all: stream ended");
	is_str(c->errclass, "OPERATION_CANCELED", "all: OPERATION_CANCELED");
	done(c, "interrupt all");
	xf_gate_set(true);
}

static void
test_backpressure(struct sc_session *s)
{
	struct sc_rpc_call *c;
	struct xf_find f;
	const char *id = "6a0b3c1e-1111-4aaa-8bbb-000000000040";
	bool found;
	struct sc_error err;
	int fails;

	xf_conf.high_water_bytes = 0;
	xf_mgr_stop();
	xf_mgr_start(0);
	c = xf_execute(s, id, "batch:50:1000", true, NULL);
	ok(wait_msgs(c, 1), "backpressure: first batch sent");
	nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
	f = xf_find(id);
	ok(f.info.produced <= 2,
	    "backpressure: producer paused (%lld "
	    "produced)",
	    (long long)f.info.produced);
	ok(f.info.state == SC_EXEC_RUNNING, "backpressure: still running");
	ok(drive(c), "backpressure: all sent once the client reads");
	is_int(c->nmsgs, 51, "backpressure: 50 batches and ResultComplete");
	xf_release(s, id, 0, NULL, &found, &err);
	done(c, "backpressure");

	/* A client that never reads: release_all frees the worker. */
	fails = atomic_load(&xf_emit_failures);
	c = xf_execute(s, "6a0b3c1e-1111-4aaa-8bbb-000000000041",
	    "batch:50:1000", true, NULL);
	ok(wait_msgs(c, 1), "stalled: first batch");
	xf_call_close(c, true);
	nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
	f = xf_find("6a0b3c1e-1111-4aaa-8bbb-000000000041");
	ok(f.info.state == SC_EXEC_RUNNING && f.info.produced <= 2,
	    "stalled: paused, bounded");
	ok(!f.info.attached, "stalled: detached after the client left");
	xf_release(s, "6a0b3c1e-1111-4aaa-8bbb-000000000041", 0, NULL, &found,
	    &err);
	{
		int64_t end = sc_mono_ms() + 5000;

		while (atomic_load(&xf_emit_failures) == fails &&
		    sc_mono_ms() < end)
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	is_int(atomic_load(&xf_emit_failures) - fails, 1,
	    "stalled: the blocked producer woke up canceled");
	done(c, "stalled");
	xf_conf.high_water_bytes = 16 << 20;
	xf_mgr_stop();
	xf_mgr_start(0);
}

static void
test_abandon(struct sc_session *s)
{
	struct sc_rpc_call *c;
	struct sc_exec_counts n;
	const char *id = "6a0b3c1e-1111-4aaa-8bbb-000000000050";
	int64_t t;
	bool found;
	struct sc_error err;
	struct xf_find f;

	c = xf_execute(s, id, "batch:1:1", true, NULL);
	ok(drive(c), "abandon: stream done");
	t = xf_now;
	done(c, "abandon");
	is_int(sc_execmgr_maintain(xf_mgr, t + 5 * 60 * 1000 - 1), 0,
	    "abandon: not before detachedTimeout");
	ok(xf_find(id).found, "abandon: still there");
	is_int(sc_execmgr_maintain(xf_mgr, t + 5 * 60 * 1000), 1,
	    "abandon: removed at detachedTimeout");
	f = xf_find(id);
	ok(f.found && f.tombstone, "abandon: tombstoned");
	sc_execmgr_counts(xf_mgr, &n);
	is_int(n.abandoned, 1, "abandon: counted");
	c = xf_reattach(s, id, NULL);
	ok(wait_finished(c), "abandon: reattach refused");
	is_str(c->status,
	    "[INVALID_HANDLE.OPERATION_ABANDONED] The handle `"
	    "6a0b3c1e-1111-4aaa-8bbb-000000000050` is invalid. Operation was "
	    "considered abandoned because of inactivity and removed. "
	    "SQLSTATE: HY000",
	    "abandon: OPERATION_ABANDONED on reattach");
	done(c, "abandoned reattach");
	c = xf_execute(s, id, "batch:1:1", true, NULL);
	ok(wait_finished(c), "abandon: re-execute refused");
	is_str(c->errclass, "INVALID_HANDLE.OPERATION_ABANDONED",
	    "abandon: OPERATION_ABANDONED on ExecutePlan");
	done(c, "abandoned execute");
	is_int(xf_release(s, id, 0, NULL, &found, &err), 0, "abandon: release");
	ok(!found, "abandon: release finds nothing");

	/* An attached operation is never abandoned. */
	xf_gate_set(false);
	c = xf_execute(s, "6a0b3c1e-1111-4aaa-8bbb-000000000051", "gate", true,
	    NULL);
	ok(xf_wait_state("6a0b3c1e-1111-4aaa-8bbb-000000000051",
	       SC_EXEC_RUNNING),
	    "attached: running");
	is_int(sc_execmgr_maintain(xf_mgr, xf_now + 3600 * 1000), 0,
	    "attached: not abandoned");
	/* Detached while running: abandoned and canceled. */
	xf_call_close(c, true);
	t = xf_now;
	is_int(sc_execmgr_maintain(xf_mgr, t + 5 * 60 * 1000), 1,
	    "detached while running: abandoned");
	ok(xf_find("6a0b3c1e-1111-4aaa-8bbb-000000000051").tombstone,
	    "detached while running: tombstoned");
	done(c, "abandoned running");
	xf_gate_set(true);
}

static void
test_tombstone_lru(struct sc_session *s)
{
	struct sc_rpc_call *c;
	struct sc_exec_counts n;
	char id[SC_UUID_STRLEN];
	int i;

	xf_conf.abandoned_tombstones = 3;
	xf_mgr_stop();
	xf_mgr_start(0);
	for (i = 0; i < 5; i++) {
		snprintf(id, sizeof(id), "6a0b3c1e-2222-4aaa-8bbb-%012d", i);
		c = xf_execute(s, id, "batch:1:1", true, NULL);
		drive(c);
		done(c, "lru op");
		atomic_fetch_add(&xf_now, 10);
	}
	is_int(sc_execmgr_maintain(xf_mgr, xf_now + 5 * 60 * 1000), 5,
	    "lru: 5 abandoned");
	sc_execmgr_counts(xf_mgr, &n);
	is_int(n.tombstones, 3, "lru: 3 tombstones kept");
	is_int(n.live, 0, "lru: none live");
	c = xf_reattach(s, "6a0b3c1e-2222-4aaa-8bbb-000000000000", NULL);
	wait_finished(c);
	is_str(c->errclass, "INVALID_HANDLE.OPERATION_NOT_FOUND",
	    "lru: the oldest tombstone was evicted");
	done(c, "lru old");
	c = xf_reattach(s, "6a0b3c1e-2222-4aaa-8bbb-000000000004", NULL);
	wait_finished(c);
	is_str(c->errclass, "INVALID_HANDLE.OPERATION_ABANDONED",
	    "lru: the newest is remembered");
	done(c, "lru new");
	xf_conf.abandoned_tombstones = 10000;
	xf_mgr_stop();
	xf_mgr_start(0);
}

static void
test_completed_cache(struct sc_session *s)
{
	struct sc_rpc_call *c;
	struct sc_exec_counts n;
	struct sc_error err;
	bool found;
	char id[SC_UUID_STRLEN];
	int i;
	int64_t t;

	xf_conf.inactive_op_expiry_ms = 1000;
	xf_mgr_stop();
	xf_mgr_start(2);
	for (i = 0; i < 3; i++) {
		snprintf(id, sizeof(id), "6a0b3c1e-3333-4aaa-8bbb-%012d", i);
		c = xf_execute(s, id, "batch:1:1", true, NULL);
		drive(c);
		done(c, "completed op");
		xf_release(s, id, 0, NULL, &found, &err);
	}
	sc_execmgr_counts(xf_mgr, &n);
	is_int(n.completed, 2, "completed cache bounded to 2");
	c = xf_execute(s, "6a0b3c1e-3333-4aaa-8bbb-000000000000", "batch:1:1",
	    true, NULL);
	ok(drive(c), "evicted completed id may run again");
	is_int(c->code, SC_GRPC_OK, "and runs");
	done(c, "rerun");
	t = xf_now;
	c = xf_execute(s, "6a0b3c1e-3333-4aaa-8bbb-000000000002", "batch:1:1",
	    true, NULL);
	wait_finished(c);
	is_str(c->errclass, "INVALID_HANDLE.OPERATION_ALREADY_EXISTS",
	    "completed within expiry: ALREADY_EXISTS");
	done(c, "within expiry");
	atomic_store(&xf_now, t + 1000);
	c = xf_execute(s, "6a0b3c1e-3333-4aaa-8bbb-000000000002", "batch:1:1",
	    true, NULL);
	ok(drive(c), "after expiry: runs");
	is_int(c->code, SC_GRPC_OK, "after expiry: OK");
	done(c, "after expiry");
	sc_execmgr_maintain(xf_mgr, xf_now + 1000);
	sc_execmgr_counts(xf_mgr, &n);
	is_int(n.completed, 0, "maintenance drops expired entries");
	xf_conf.inactive_op_expiry_ms = 30 * 60 * 1000;
	xf_mgr_stop();
	xf_mgr_start(0);
}

/* ------------------------------------------------------ scheduling */

static struct sc_exec_counts
counts(void)
{
	struct sc_exec_counts n;

	sc_execmgr_counts(xf_mgr, &n);
	return n;
}

/* Wait (5 s) until fn(counts) holds. */
static bool
wait_counts(bool (*fn)(const struct sc_exec_counts *n, size_t v), size_t v)
{
	int64_t end = sc_mono_ms() + 5000;
	struct sc_exec_counts n;

	do {
		sc_execmgr_counts(xf_mgr, &n);
		if (fn(&n, v))
			return true;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	} while (sc_mono_ms() < end);
	return false;
}

static bool
parked_is(const struct sc_exec_counts *n, size_t v)
{
	return n->parked == v;
}

static bool
threads_is(const struct sc_exec_counts *n, size_t v)
{
	return n->threads == v;
}

/* No slot busy, nothing parked or waiting to resume. */
static bool
quiet(const struct sc_exec_counts *n, size_t v)
{
	(void)v;
	return n->slots_busy == 0 && n->parked == 0 && n->resuming == 0;
}

/* A fresh manager with these scheduler settings. */
static void
sched_restart(int workers, int max_threads, int per_user, int64_t idle_ms)
{
	xf_mgr_stop();
	xf_conf.workers = workers;
	xf_conf.max_threads = max_threads;
	xf_conf.max_running_per_user = per_user;
	xf_conf.thread_idle_ms = idle_ms;
	xf_mgr_start(0);
}

static void
sched_id(char id[SC_UUID_STRLEN], int n)
{
	snprintf(id, SC_UUID_STRLEN, "6a0b3c1e-5555-4aaa-8bbb-%012d", n);
}

static bool
is_pending(const char *id)
{
	struct xf_find f = xf_find(id);

	return f.found && f.info.state == SC_EXEC_PENDING;
}

/*
 * An operation paused for its reader gives its slot back: with one
 * slot, another operation runs to its end meanwhile.
 */
static void
test_sched_park(void)
{
	struct sc_session *s1 = xf_session_new("alice", SID);
	struct sc_session *s2 = xf_session_new("bob", SID2);
	struct sc_rpc_call *c1, *c2;
	struct sc_exec_counts n;
	struct sc_error err;
	struct xf_find f;
	char big[SC_UUID_STRLEN], small[SC_UUID_STRLEN];
	bool found;

	sched_id(big, 1);
	sched_id(small, 2);
	xf_conf.high_water_bytes = 0;
	sched_restart(1, 64, 16, 60000);
	c1 = xf_execute(s1, big, "batch:50:1000", true, NULL);
	ok(wait_msgs(c1, 1), "park: first batch sent");
	ok(wait_counts(parked_is, 1), "park: the unread operation parked");
	n = counts();
	is_int(n.slots_busy, 0, "park: it holds no slot");
	is_int(n.threads, 1, "park: it keeps its thread");
	c2 = xf_execute(s2, small, "batch:3:10", true, NULL);
	ok(drive(c2), "park: another operation runs on the only slot");
	is_int(c2->code, SC_GRPC_OK, "park: and ends OK");
	is_int(c2->nmsgs, 4, "park: 3 batches and ResultComplete");
	f = xf_find(big);
	ok(f.info.state == SC_EXEC_RUNNING && f.info.produced <= 2,
	    "park: the unread one is still paused (%lld produced)",
	    (long long)f.info.produced);
	n = counts();
	is_int(n.threads, 2, "park: a second thread ran the other");
	is_int(n.parked, 1, "park: still parked");
	ok(drive(c1), "park: it resumes once its client reads");
	is_int(c1->nmsgs, 51, "park: 50 batches and ResultComplete");
	ok(xf_wait_state(big, SC_EXEC_FINISHED), "park: finished");
	ok(wait_counts(quiet, 0),
	    "park: no slot held, none parked or resuming");
	xf_release(s1, big, 0, NULL, &found, &err);
	xf_release(s2, small, 0, NULL, &found, &err);
	done(c1, "park big");
	done(c2, "park small");

	/* Canceled while parked: the thread and the counts come back. */
	sched_id(big, 3);
	c1 = xf_execute(s1, big, "batch:50:1000", true, NULL);
	ok(wait_counts(parked_is, 1), "park: parked again");
	xf_release(s1, big, 0, NULL, &found, &err);
	ok(wait_counts(parked_is, 0), "park: release wakes it");
	ok(wait_counts(quiet, 0), "park: no slot after the cancel");
	done(c1, "park canceled");

	xf_conf.high_water_bytes = 16 << 20;
	xf_mgr_stop();
	is_int(s1->refs + s2->refs, 2000, "park: session references released");
	pthread_mutex_destroy(&s1->lock);
	pthread_mutex_destroy(&s2->lock);
	free(s1);
	free(s2);
	xf_mgr_start(0);
}

/*
 * conf.max_buffered_bytes caps the unconsumed bytes of all operations:
 * four readers that read nothing stop the producers near the cap; read
 * one response at a time in turns, every stream completes and the total
 * stays under the cap (plus one response per operation that may pass
 * the check at the same time); producers waiting for room wake when
 * interrupted.
 */
#define CAP_OPS 4

static void
test_buffered_cap(void)
{
	struct sc_server_conf saved = xf_conf;
	struct sc_session *s = xf_session_new("erin", SID);
	struct sc_rpc_call *c[CAP_OPS];
	char id[CAP_OPS][SC_UUID_STRLEN];
	struct sc_exec_counts n;
	struct sc_error err;
	struct xf_find f;
	const int64_t cap = 8000, slack = CAP_OPS * 1500;
	int64_t produced = 0, max = 0, end;
	char **ids;
	size_t nids;
	bool found, all;
	int i, fails;

	xf_conf.max_buffered_bytes = cap;
	sched_restart(CAP_OPS, 64, 16, 60000);
	for (i = 0; i < CAP_OPS; i++) {
		sched_id(id[i], 20 + i);
		c[i] = xf_execute(s, id[i], "batch:30:1000", true, NULL);
	}
	for (i = 0; i < CAP_OPS; i++)
		ok(wait_msgs(c[i], 1), "cap: stream %d started", i);
	ok(wait_counts(parked_is, CAP_OPS), "cap: every producer waits");
	n = counts();
	ok(n.buffered > 0 && n.buffered <= cap + slack,
	    "cap: %lld bytes buffered, cap %lld", (long long)n.buffered,
	    (long long)cap);
	for (i = 0; i < CAP_OPS; i++) {
		f = xf_find(id[i]);
		ok(f.info.state == SC_EXEC_RUNNING, "cap: %d still running", i);
		produced += f.info.produced;
	}
	ok(produced <= CAP_OPS + (cap + slack) / 1000,
	    "cap: %lld of %d responses produced", (long long)produced,
	    CAP_OPS * 31);

	/* Slow readers, one response each in turn. */
	end = sc_mono_ms() + 10000;
	do {
		all = true;
		for (i = 0; i < CAP_OPS; i++) {
			xf_ack(c[i], true);
			n = counts();
			if (n.buffered > max)
				max = n.buffered;
			pthread_mutex_lock(&c[i]->mu);
			all = all && c[i]->finished && !c[i]->in_flight;
			pthread_mutex_unlock(&c[i]->mu);
		}
		nanosleep(&(struct timespec){ 0, 200000 }, NULL);
	} while (!all && sc_mono_ms() < end);
	ok(all, "cap: every stream completed");
	ok(max <= cap + slack, "cap: at most %lld bytes buffered",
	    (long long)max);
	for (i = 0; i < CAP_OPS; i++) {
		is_int(c[i]->code, SC_GRPC_OK, "cap: stream %d OK", i);
		is_int(c[i]->nmsgs, 31, "cap: stream %d: 30 batches, done", i);
		xf_release(s, id[i], 0, NULL, &found, &err);
		done(c[i], "cap");
	}
	is_int(counts().buffered, 0, "cap: nothing buffered after release");

	/* Interrupted while waiting for room: they wake canceled. */
	fails = atomic_load(&xf_emit_failures);
	for (i = 0; i < 2; i++) {
		sched_id(id[i], 30 + i);
		c[i] = xf_execute(s, id[i], "batch:30:1000", true, NULL);
		ok(wait_msgs(c[i], 1), "cap interrupt: stream %d started", i);
	}
	ok(wait_counts(parked_is, 2), "cap interrupt: both wait");
	is_int(sc_exec_interrupt(xf_mgr, s, 1, NULL, &ids, &nids, &err), 0,
	    "cap interrupt: interrupt all");
	is_int(nids, 2, "cap interrupt: two operations");
	for (i = 0; i < (int)nids; i++)
		free(ids[i]);
	free(ids);
	end = sc_mono_ms() + 5000;
	while (atomic_load(&xf_emit_failures) - fails < 2 && sc_mono_ms() < end)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	is_int(atomic_load(&xf_emit_failures) - fails, 2,
	    "cap interrupt: both producers woke canceled");
	for (i = 0; i < 2; i++) {
		ok(drive(c[i]), "cap interrupt: stream %d ended", i);
		is_str(c[i]->errclass, "OPERATION_CANCELED",
		    "cap interrupt: OPERATION_CANCELED");
		xf_release(s, id[i], 0, NULL, &found, &err);
		done(c[i], "cap interrupt");
	}
	ok(wait_counts(quiet, 0), "cap: no slot held, none parked");
	is_int(counts().buffered, 0, "cap: nothing buffered at the end");

	xf_mgr_stop();
	xf_conf = saved;
	is_int(s->refs, 1000, "cap: session references released");
	pthread_mutex_destroy(&s->lock);
	free(s);
	xf_mgr_start(0);
}

/*
 * Runaways hold every slot: after the compensation delay one more slot
 * runs waiting work, up to conf.max_threads threads; idle extra threads
 * exit.
 */
static void
test_sched_compensation(struct sc_session *s)
{
	struct sc_rpc_call *c[6];
	struct sc_exec_counts n;
	char id[6][SC_UUID_STRLEN];
	int64_t t;
	int i;

	for (i = 0; i < 6; i++)
		sched_id(id[i], 10 + i);
	sched_restart(1, 3, 16, 50);
	xf_gate_set(false);
	c[0] = xf_execute(s, id[0], "gate", true, NULL);
	ok(xf_wait_state(id[0], SC_EXEC_RUNNING), "compensation: runaway 1");
	t = xf_now;
	c[1] = xf_execute(s, id[1], "batch:1:1", true, NULL);
	is_int(sc_execmgr_compensate(xf_mgr, t + 199), 0,
	    "compensation: not before the delay");
	ok(is_pending(id[1]), "compensation: the short one waits");
	is_int(sc_execmgr_compensate(xf_mgr, t + 200), 1,
	    "compensation: one slot added after 200 ms");
	ok(xf_wait_state(id[1], SC_EXEC_FINISHED),
	    "compensation: the short one ran beside the runaway");
	n = counts();
	is_int(n.extra_slots, 1,
	    "compensation: the slot stays while the runaway holds its own");
	c[2] = xf_execute(s, id[2], "batch:1:1", true, NULL);
	ok(xf_wait_state(id[2], SC_EXEC_FINISHED),
	    "compensation: the next short one runs at once");

	/* More runaways: slots and threads stop at max_threads (3). */
	c[3] = xf_execute(s, id[3], "gate", true, NULL);
	ok(xf_wait_state(id[3], SC_EXEC_RUNNING),
	    "compensation: runaway 2 in the added slot");
	c[4] = xf_execute(s, id[4], "gate", true, NULL);
	t = xf_now;
	ok(is_pending(id[4]), "compensation: runaway 3 waits");
	is_int(sc_execmgr_compensate(xf_mgr, t + 200), 1,
	    "compensation: a second slot");
	ok(xf_wait_state(id[4], SC_EXEC_RUNNING),
	    "compensation: runaway 3 runs");
	c[5] = xf_execute(s, id[5], "gate", true, NULL);
	is_int(sc_execmgr_compensate(xf_mgr, t + 10000), 0,
	    "compensation: none beyond max_threads");
	ok(is_pending(id[5]), "compensation: runaway 4 waits");
	n = counts();
	is_int(n.threads, 3, "compensation: 3 threads");
	is_int(n.slots_busy, 3, "compensation: 3 slots busy");
	is_int(n.extra_slots, 2, "compensation: 2 of them added");
	is_int(n.queued, 1, "compensation: 1 queued");
	is_int(n.compensations, 2, "compensation: counted");

	xf_gate_set(true);
	for (i = 0; i < 6; i++)
		ok(xf_wait_state(id[i], SC_EXEC_FINISHED),
		    "compensation: op %d finished", i);
	ok(wait_counts(quiet, 0), "compensation: no slot busy");
	n = counts();
	ok(n.threads <= 3, "compensation: never more than 3 threads (%zu)",
	    n.threads);
	is_int(n.extra_slots, 0, "compensation: added slots gone");
	ok(wait_counts(threads_is, 1),
	    "compensation: idle extra threads exit, 1 left");
	for (i = 0; i < 6; i++)
		done(c[i], "compensation");
	xf_conf_reset();
	xf_mgr_stop();
	xf_mgr_start(0);
}

/*
 * At most max_running_per_user operations of one user run, paused ones
 * not counted; the rest wait, while other users' run.
 */
static void
test_sched_user_cap(void)
{
	struct sc_session *a = xf_session_new("alice", SID);
	struct sc_session *b = xf_session_new("bob", SID2);
	struct sc_rpc_call *c[5];
	struct sc_exec_counts n;
	char id[5][SC_UUID_STRLEN];
	int i;

	for (i = 0; i < 5; i++)
		sched_id(id[i], 20 + i);
	sched_restart(4, 64, 2, 60000);
	xf_gate_set(false);
	c[0] = xf_execute(a, id[0], "gate", true, NULL);
	c[1] = xf_execute(a, id[1], "gate", true, NULL);
	c[2] = xf_execute(a, id[2], "gate", true, NULL);
	c[3] = xf_execute(b, id[3], "gate", true, NULL);
	ok(xf_wait_state(id[0], SC_EXEC_RUNNING) &&
		xf_wait_state(id[1], SC_EXEC_RUNNING),
	    "user cap: alice runs 2");
	ok(xf_wait_state(id[3], SC_EXEC_RUNNING),
	    "user cap: bob, who came later, runs");
	ok(is_pending(id[2]), "user cap: alice's third waits");
	n = counts();
	is_int(n.slots_busy, 3, "user cap: a slot is free");
	is_int(n.queued, 1, "user cap: one queued");
	is_int(sc_execmgr_compensate(xf_mgr, xf_now + 10000), 0,
	    "user cap: no compensation for a capped user");
	ok(is_pending(id[2]), "user cap: still waits");
	xf_gate_set(true);
	ok(xf_wait_state(id[2], SC_EXEC_FINISHED),
	    "user cap: it runs once the others end");
	for (i = 0; i < 4; i++)
		done(c[i], "user cap");

	/*
	 * A parked operation does not count as running (its client stopped
	 * reading, or died): the user's next one runs.  It still holds a
	 * thread: with 4 threads a user holds at most 2, paused included.
	 */
	xf_conf.high_water_bytes = 0;
	sched_restart(4, 4, 1, 60000);
	c[0] = xf_execute(a, id[4], "batch:50:1000", true, NULL);
	ok(wait_counts(parked_is, 1), "user cap: alice's operation parked");
	c[1] = xf_execute(a, "6a0b3c1e-5555-4aaa-8bbb-000000000099",
	    "batch:1:1", true, NULL);
	ok(xf_wait_state("6a0b3c1e-5555-4aaa-8bbb-000000000099",
	       SC_EXEC_FINISHED),
	    "user cap: alice's second runs beside her parked one");
	c[2] = xf_execute(a, "6a0b3c1e-5555-4aaa-8bbb-000000000097",
	    "batch:50:1000", true, NULL);
	ok(wait_counts(parked_is, 2), "user cap: alice's third parked too");
	c[3] = xf_execute(a, "6a0b3c1e-5555-4aaa-8bbb-000000000096",
	    "batch:1:1", true, NULL);
	c[4] = xf_execute(b, "6a0b3c1e-5555-4aaa-8bbb-000000000098",
	    "batch:1:1", true, NULL);
	ok(xf_wait_state("6a0b3c1e-5555-4aaa-8bbb-000000000098",
	       SC_EXEC_FINISHED),
	    "user cap: bob's runs on a thread alice's cannot take");
	ok(is_pending("6a0b3c1e-5555-4aaa-8bbb-000000000096"),
	    "user cap: alice's fourth waits: she holds 2 of 4 threads");
	n = counts();
	is_int(n.parked, 2, "user cap: her 2 stay parked");
	ok(drive(c[0]), "user cap: a parked one completes when read");
	ok(xf_wait_state("6a0b3c1e-5555-4aaa-8bbb-000000000096",
	       SC_EXEC_FINISHED),
	    "user cap: then alice's fourth runs");
	ok(drive(c[2]), "user cap: the other parked one completes");
	ok(wait_counts(quiet, 0), "user cap: nothing parked at the end");
	for (i = 0; i < 5; i++)
		done(c[i], "user cap parked");
	xf_conf_reset();
	xf_mgr_stop();
	pthread_mutex_destroy(&a->lock);
	pthread_mutex_destroy(&b->lock);
	free(a);
	free(b);
	xf_mgr_start(0);
}

/*
 * Fair order: users in turn, a user's sessions in turn, a session's
 * operations in order; one user's queue does not delay another's.
 */
static void
test_sched_fair(void)
{
	static const char *const name[] = { "a1", "a2", "a3", "a4", "a5", "b1",
		"a6", "a7" };
	static const char *const want = "a1 b1 a6 a2 a7 a3 a4 a5";
	struct sc_session *a1 = xf_session_new("alice", SID);
	struct sc_session *a2 = xf_session_new("alice", SID2);
	struct sc_session *b = xf_session_new("bob", SID);
	struct sc_session *cs = xf_session_new("carol", SID);
	struct sc_rpc_call *blk, *c[8];
	char ids[8][SC_UUID_STRLEN], got[XF_STARTS_MAX][SC_UUID_STRLEN];
	char order[128];
	size_t n, i, j;

	sched_restart(1, 64, 16, 60000);
	xf_gate_set(false);
	blk = xf_execute(cs, "6a0b3c1e-5555-4aaa-8bbb-000000000030", "gate",
	    true, NULL);
	ok(xf_wait_state("6a0b3c1e-5555-4aaa-8bbb-000000000030",
	       SC_EXEC_RUNNING),
	    "fair: carol's runaway holds the only slot");
	/* a1..a5 in alice's first session, then b1, then a6, a7. */
	for (i = 0; i < 8; i++)
		sched_id(ids[i], 31 + (int)i);
	for (i = 0; i < 5; i++)
		c[i] = xf_execute(a1, ids[i], "batch:1:1", true, NULL);
	c[5] = xf_execute(b, ids[5], "batch:1:1", true, NULL);
	c[6] = xf_execute(a2, ids[6], "batch:1:1", true, NULL);
	c[7] = xf_execute(a2, ids[7], "batch:1:1", true, NULL);
	is_int(counts().queued, 8, "fair: 8 queued");
	xf_starts_reset();
	xf_gate_set(true);
	for (i = 0; i < 8; i++)
		xf_wait_state(ids[i], SC_EXEC_FINISHED);
	n = xf_starts(got, XF_STARTS_MAX);
	is_int(n, 8, "fair: 8 started");
	order[0] = '\0';
	for (i = 0; i < n; i++)
		for (j = 0; j < 8; j++)
			if (strcmp(got[i], ids[j]) == 0)
				snprintf(order + strlen(order),
				    sizeof(order) - strlen(order), "%s%s",
				    i > 0 ? " " : "", name[j]);
	is_str(order, want,
	    "fair: bob's one operation second, alice's sessions alternate");
	done(blk, "fair blocker");
	for (i = 0; i < 8; i++)
		done(c[i], "fair");
	xf_mgr_stop();
	pthread_mutex_destroy(&a1->lock);
	pthread_mutex_destroy(&a2->lock);
	pthread_mutex_destroy(&b->lock);
	pthread_mutex_destroy(&cs->lock);
	free(a1);
	free(a2);
	free(b);
	free(cs);
	xf_conf_reset();
	xf_mgr_start(0);
}

/*
 * With a transport that can send a message and the status in one batch,
 * the final response of a successful run goes that way: no send, wait
 * for its completion, then a separate status.
 */
static void
test_last_with_status(void)
{
	struct sc_session *s = xf_session_new("carol", SID2);
	struct sc_rpc_call *c;
	const char *id = "6a0b3c1e-1111-4aaa-8bbb-000000000070";
	const char *id2 = "6a0b3c1e-1111-4aaa-8bbb-000000000071";
	const char *id3 = "6a0b3c1e-1111-4aaa-8bbb-000000000072";

	xf_mgr_stop();
	xf_reply_ref = true;
	xf_mgr_start(0);
	/* The first send stays unacked until the run has ended. */
	c = xf_execute(s, id, "schema batch:2:10 metrics", true, NULL);
	ok(xf_wait_state(id, SC_EXEC_FINISHED), "last with status: run ended");
	ok(drive(c), "last with status: finished");
	is_int(c->code, SC_GRPC_OK, "last with status: OK");
	is_int(c->nmsgs, 5, "last with status: every response sent");
	is_int(c->replies, 1, "last with status: the last one with the status");
	ok(c->nmsgs == 5 && xf_has_complete(c->msgs[4]),
	    "last with status: ResultComplete is that one");
	ok(xf_find(id).found && !xf_find(id).info.attached,
	    "last with status: reattachable op detached, kept");
	done(c, "last with status");

	c = xf_execute(s, id2, "schema batch:1:10", false, NULL);
	ok(xf_wait_state(id2, SC_EXEC_FINISHED),
	    "not reattachable: run ended, schema unacked");
	ok(drive(c), "last with status, not reattachable: finished");
	is_int(c->code, SC_GRPC_OK, "not reattachable: OK");
	is_int(c->nmsgs, 2, "not reattachable: two responses");
	is_int(c->replies, 1, "not reattachable: the batch with the status");
	ok(gone_soon(id2), "not reattachable: removed at stream end");
	done(c, "last with status, not reattachable");

	c = xf_execute(s, id3, "batch:1:10 fail", true, NULL);
	ok(drive(c), "failed run: finished");
	is_int(c->replies, 0, "failed run: no OK with the last response");
	is_str(c->errclass, "DIVIDE_BY_ZERO", "failed run: its error");
	done(c, "last with status, failed");

	xf_mgr_stop();
	xf_reply_ref = false;
	is_int(s->refs, 1000, "last with status: session references released");
	pthread_mutex_destroy(&s->lock);
	free(s);
	xf_mgr_start(0);
}

/*
 * A trivial root SQL query (SELECT without FROM, WITH or parentheses)
 * runs on the thread that received it when a slot is free and its user
 * runs nothing else; anything else goes to a runner thread.
 */
static void
test_inline(void)
{
	struct sc_session *s = xf_session_new("dave", SID2);
	struct sc_rpc_call *c, *g;
	const char *id = "6a0b3c1e-1111-4aaa-8bbb-000000000080";
	const char *id2 = "6a0b3c1e-1111-4aaa-8bbb-000000000081";
	const char *id3 = "6a0b3c1e-1111-4aaa-8bbb-000000000082";
	const char *id4 = "6a0b3c1e-1111-4aaa-8bbb-000000000083";
	bool here;

	c = xf_execute(s, id, "SELECT schema batch:1:10 metrics", false, NULL);
	here = xf_last_run_here();
	ok(here, "inline: a trivial SELECT ran on the receiving thread");
	ok(drive(c), "inline: finished");
	is_int(c->code, SC_GRPC_OK, "inline: OK");
	is_int(c->nmsgs, 3, "inline: schema, batch, metrics");
	done(c, "inline");

	c = xf_execute(s, id2, "schema batch:1:10", false, NULL);
	ok(drive(c), "command: finished");
	ok(!xf_last_run_here(), "command: ran on a runner thread");
	done(c, "command");

	/* Its user runs something: the session may be busy. */
	xf_gate_set(false);
	g = xf_execute(s, id3, "gate", true, NULL);
	ok(xf_wait_state(id3, SC_EXEC_RUNNING), "inline: the gate runs");
	c = xf_execute(s, id4, "SELECT batch:1:10", false, NULL);
	ok(drive(c), "busy user: finished");
	ok(!xf_last_run_here(), "busy user: ran on a runner thread");
	xf_gate_set(true);
	ok(drive(g), "gate: finished");
	done(c, "busy user");
	done(g, "gate");
	xf_mgr_stop();
	is_int(s->refs, 1000, "inline: session references released");
	pthread_mutex_destroy(&s->lock);
	free(s);
	xf_mgr_start(0);
}

static void
test_session_closed(void)
{
	struct sc_session *s = xf_session_new("bob", SID2);
	struct sc_rpc_call *c, *c2;
	const char *id = "6a0b3c1e-1111-4aaa-8bbb-000000000060";

	xf_gate_set(false);
	c = xf_execute(s, id, "gate", true, NULL);
	ok(xf_wait_state(id, SC_EXEC_RUNNING), "session close: running");
	pthread_mutex_lock(&s->lock);
	s->closed = true;
	pthread_mutex_unlock(&s->lock);
	sc_exec_session_closed(xf_mgr, s);
	ok(wait_finished(c), "session close: stream ended");
	is_str(c->errclass, "INVALID_CURSOR.DISCONNECTED",
	    "session close: DISCONNECTED");
	ok(xf_find(id).tombstone, "session close: removed as abandoned");
	c2 = xf_execute(s, "6a0b3c1e-1111-4aaa-8bbb-000000000061", "batch:1:1",
	    true, NULL);
	ok(wait_finished(c2), "closed session: ExecutePlan refused");
	is_str(c2->errclass, "INVALID_HANDLE.SESSION_CLOSED",
	    "closed session: SESSION_CLOSED");
	ok(!xf_find("6a0b3c1e-1111-4aaa-8bbb-000000000061").found,
	    "closed session: nothing registered");
	xf_gate_set(true);
	done(c, "session close");
	done(c2, "closed session");
	xf_mgr_stop();
	is_int(s->refs, 1000, "session close: session references released");
	pthread_mutex_destroy(&s->lock);
	free(s);
	xf_mgr_start(0);
}

static void
test_shutdown(struct sc_session *s)
{
	struct sc_rpc_call *c;

	xf_gate_set(false);
	c = xf_execute(s, "6a0b3c1e-1111-4aaa-8bbb-000000000070", "gate", true,
	    NULL);
	ok(xf_wait_state("6a0b3c1e-1111-4aaa-8bbb-000000000070",
	       SC_EXEC_RUNNING),
	    "shutdown: running");
	sc_execmgr_shutdown(xf_mgr);
	ok(c->finished, "shutdown: stream ended");
	is_int(c->code, SC_GRPC_UNAVAILABLE, "shutdown: UNAVAILABLE");
	done(c, "shutdown");
	c = xf_execute(s, "6a0b3c1e-1111-4aaa-8bbb-000000000071", "gate", true,
	    NULL);
	ok(c->finished && c->code == SC_GRPC_UNAVAILABLE,
	    "after shutdown: refused UNAVAILABLE");
	done(c, "after shutdown");
	xf_mgr_stop();
	xf_gate_set(true);
}

/* A job of test_jobs: waits until *gate, then counts how it was called. */
struct tjob {
	atomic_int *gate;
	atomic_int ran, dropped;
};

static atomic_int tjob_started;

static void
tjob_fn(void *arg, bool run)
{
	struct tjob *t = arg;

	if (!run) {
		atomic_fetch_add(&t->dropped, 1);
		return;
	}
	atomic_fetch_add(&tjob_started, 1);
	while (atomic_load(t->gate) == 0 && !sc_execmgr_stopping(xf_mgr))
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	atomic_fetch_add(&t->ran, 1);
}

static bool
slots_is(const struct sc_exec_counts *n, size_t v)
{
	return n->slots_busy == v;
}

/*
 * Jobs (AnalyzePlan) run on the runner threads: with one worker and two
 * threads, two blocked jobs hold both, a third waits; an operation
 * takes its turn beside queued jobs; a job still queued at shutdown is
 * told it will not run, a running one sees sc_execmgr_stopping().
 */
static void
test_jobs(struct sc_session *s)
{
	struct tjob t[3];
	atomic_int gate;
	struct sc_rpc_call *c;
	struct sc_error err;
	struct sc_exec_counts n;
	char id[SC_UUID_STRLEN];
	int i;

	atomic_init(&gate, 0);
	sched_restart(1, 2, 16, 60000);
	xf_conf.compensation_delay_ms = -1;
	for (i = 0; i < 3; i++) {
		t[i].gate = &gate;
		atomic_init(&t[i].ran, 0);
		atomic_init(&t[i].dropped, 0);
		is_int(sc_execmgr_submit(xf_mgr, tjob_fn, &t[i], &err), 0,
		    "jobs: job %d submitted", i);
	}
	ok(wait_counts(slots_is, 1), "jobs: one holds the only slot");
	n = counts();
	ok(n.threads <= 2, "jobs: within maxThreads (%d threads)",
	    (int)n.threads);
	atomic_store(&gate, 1);
	for (i = 0; i < 3; i++) {
		int64_t end = sc_mono_ms() + 5000;

		while (atomic_load(&t[i].ran) == 0 && sc_mono_ms() < end)
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		is_int(atomic_load(&t[i].ran), 1, "jobs: job %d ran", i);
	}
	ok(wait_counts(quiet, 0), "jobs: the slot is free again");

	/* An operation between jobs, and jobs dropped at shutdown. */
	atomic_store(&gate, 0);
	for (i = 0; i < 3; i++) {
		atomic_store(&t[i].ran, 0);
		is_int(sc_execmgr_submit(xf_mgr, tjob_fn, &t[i], &err), 0,
		    "jobs: job %d submitted again", i);
	}
	ok(wait_counts(slots_is, 1), "jobs: one runs");
	sched_id(id, 90);
	c = xf_execute(s, id, "batch:1:1", true, NULL);
	atomic_store(&gate, 1);
	ok(xf_wait_state(id, SC_EXEC_FINISHED), "jobs: the operation ran");
	ok(drive(c), "jobs: its stream ends");
	done(c, "jobs");
	ok(wait_counts(quiet, 0), "jobs: all ran");
	atomic_store(&gate, 0);
	for (i = 0; i < 3; i++)
		atomic_store(&t[i].ran, 0);
	atomic_store(&tjob_started, 0);
	for (i = 0; i < 3; i++)
		sc_execmgr_submit(xf_mgr, tjob_fn, &t[i], &err);
	for (i = 0; i < 5000 && atomic_load(&tjob_started) == 0; i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	is_int(atomic_load(&tjob_started), 1, "jobs: one blocks the slot");
	sc_execmgr_shutdown(xf_mgr);
	is_int(atomic_load(&t[0].ran) + atomic_load(&t[1].ran) +
		atomic_load(&t[2].ran),
	    1, "jobs: the running one stopped at shutdown");
	is_int(atomic_load(&t[0].dropped) + atomic_load(&t[1].dropped) +
		atomic_load(&t[2].dropped),
	    2, "jobs: the two queued ones were dropped");
	is_int(sc_execmgr_submit(xf_mgr, tjob_fn, &t[0], &err), -1,
	    "jobs: refused after shutdown");
	xf_conf_reset();
	xf_mgr_stop();
	xf_mgr_start(0);
}

int
main(void)
{
	struct sc_session *s;

	xf_conf_reset();
	xf_mgr_start(0);
	s = xf_session_new("alice", SID);
	test_basic(s);
	test_non_reattachable(s);
	test_ids_and_tags(s);
	test_reattach(s);
	test_release(s);
	test_rotation_size(s);
	test_rotation_time(s);
	test_error_replay(s);
	test_interrupt(s);
	test_backpressure(s);
	test_abandon(s);
	test_tombstone_lru(s);
	test_completed_cache(s);
	test_sched_park();
	test_buffered_cap();
	test_sched_compensation(s);
	test_sched_user_cap();
	test_sched_fair();
	test_session_closed();
	test_last_with_status();
	test_inline();
	test_jobs(s);
	test_shutdown(s);
	is_int(s->refs, 1000, "session references all released");
	pthread_mutex_destroy(&s->lock);
	free(s);
	return tap_done();
}
