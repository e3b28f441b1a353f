/* SPDX-License-Identifier: MIT */

/*
 * test-signals.c: the SIGINT/SIGTERM thread (core/signals), in child
 * processes: a signal during an operation aborts it, sends its
 * ReleaseAll, says so on stderr between the program's stderr locks, and
 * ends the process by the same signal; ignored signals stay ignored; a
 * thread that cannot start is an error (exit 10), not an abort.
 */

#include "core/signals.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/client.h"
#include "core/error.h"
#include "core/log.h"
#include "core/plan.h"
#include "core/protocol.h"
#include "core/reattach.h"
#include "core/result.h"
#include "core/xmem.h"
#include "child.h"
#include "tap.h"
#include "core/banned.h"

#define SID "00112233-4455-6677-8899-aabbccddeeff"
#define OPID "7b0c1d2e-3f40-4a5b-8c6d-7e8f9a0b1c2d"

/* ---------------------------------------------------- a fake server */

/*
 * Streams block until cancelled; unary calls are ReleaseExecute, each
 * written to stdout as "ReleaseAll <operation id>".  The child tells the
 * parent a stream is open by writing to child_ready_fd.
 */
static pthread_mutex_t fk_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fk_cond = PTHREAD_COND_INITIALIZER;
static bool fk_cancelled;

static void *
fk_open(void *ctx, const char *method, const void *req, size_t reqlen,
    const struct timespec *deadline, struct sc_error *err)
{
	(void)ctx;
	(void)method;
	(void)req;
	(void)reqlen;
	(void)deadline;
	(void)err;
	if (write(child_ready_fd, "o", 1) != 1)
		abort();
	return &fk_cancelled;
}

static int
fk_read(void *stream, struct sc_buf *msg, const struct timespec *wait_until,
    struct sc_error *err)
{
	(void)stream;
	(void)msg;
	(void)wait_until;
	pthread_mutex_lock(&fk_lock);
	while (!fk_cancelled)
		pthread_cond_wait(&fk_cond, &fk_lock);
	pthread_mutex_unlock(&fk_lock);
	return sc_error_from_grpc(err, SC_GRPC_CANCELLED, "cancelled", NULL, 0);
}

static void
fk_cancel(void *stream)
{
	(void)stream;
	pthread_mutex_lock(&fk_lock);
	fk_cancelled = true;
	pthread_cond_broadcast(&fk_cond);
	pthread_mutex_unlock(&fk_lock);
}

static void
fk_free(void *stream)
{
	(void)stream;
}

static int
fk_unary(void *ctx, const char *method, const void *req, size_t reqlen,
    struct sc_buf *resp, const struct timespec *deadline, struct sc_error *err)
{
	Spark__Connect__ReleaseExecuteRequest *r;
	Spark__Connect__ReleaseExecuteResponse out =
	    SPARK__CONNECT__RELEASE_EXECUTE_RESPONSE__INIT;

	(void)ctx;
	(void)deadline;
	(void)err;
	if (strcmp(method, SC_METHOD_RELEASE_EXECUTE) != 0)
		abort();
	r = sc_proto_unpack(
	    &spark__connect__release_execute_request__descriptor, req, reqlen,
	    NULL);
	printf("%s %s\n",
	    r->release_case == SC_RELEASE_(RELEASE_ALL) ? "ReleaseAll"
							: "ReleaseUntil",
	    r->operation_id);
	fflush(stdout);
	protobuf_c_message_free_unpacked(&r->base, NULL);
	out.session_id = (char *)SID;
	return sc_proto_pack(&out.base, resp, NULL);
}

static const struct sc_transport fake = { fk_open, fk_read, fk_cancel, fk_free,
	fk_unary, NULL, NULL, NULL };

static void
lock_marker(void)
{
	(void)!write(2, "<", 1);
}

static void
unlock_marker(void)
{
	(void)!write(2, ">", 1);
}

/* ------------------------------------------------------ the children */

/* Start an operation and wait in it for the signal. */
static void
child_operation(const void *arg)
{
	struct sc_signals_opts so = { 0, lock_marker, unlock_marker, NULL };
	struct sc_client_opts co;
	struct sc_reattach_exec ex = { OPID, NULL, 0 };
	struct sc_reattach *it;
	struct sc_result r;
	struct sc_plan *plan;
	struct sc_client *c;
	struct sc_error err;

	(void)arg;
	sc_log_init("sc-test", SC_LOG_STYLE_CLIENT, SC_LOG_WARN);
	if (sc_signals_start(&so, &err) == -1)
		exit(3);
	memset(&co, 0, sizeof(co));
	co.session_id = SID;
	if ((c = sc_client_new_transport(&fake, NULL, NULL, &co, &err)) == NULL)
		exit(4);
	sc_signals_set_client(c);
	plan = sc_plan_range(0, 10, 1);
	if ((it = sc_reattach_execute(c, plan, &ex, NULL, &err)) == NULL)
		exit(5);
	sc_signals_watch(it);
	if (sc_reattach_next_result(it, &r, &err) == -1 &&
	    sc_reattach_aborted(it))
		sc_signals_wait();
	exit(6);
}

/* No operation: wait for the signal. */
static void
child_idle(const void *arg)
{
	struct sc_error err;

	(void)arg;
	sc_log_init("sc-test", SC_LOG_STYLE_CLIENT, SC_LOG_WARN);
	if (sc_signals_start(NULL, &err) == -1)
		exit(3);
	if (write(child_ready_fd, "i", 1) != 1)
		exit(4);
	sleep(30);
	exit(6);
}

/* Both signals ignored by whoever started us: they stay ignored. */
static void
child_ignored(const void *arg)
{
	struct sc_error err;

	(void)arg;
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	if (sc_signals_start(NULL, &err) == -1)
		exit(3);
	raise(SIGTERM);
	raise(SIGINT);
	usleep(100000);
	exit(sc_signals_caught() ? 8 : 7);
}

/* No room for a thread's stack: sc_signals_start() fails cleanly. */
static void
child_no_thread(const void *arg)
{
	struct sc_error err;
	sigset_t cur;

	(void)arg;
	if (child_no_room_for_threads() == -1)
		exit(3);
	if (sc_signals_start(NULL, &err) != -1)
		exit(4);
	fprintf(stderr, "%d %s\n", (int)err.status, err.msg);
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	exit(sigismember(&cur, SIGTERM) || sigismember(&cur, SIGINT) ? 5 : 0);
}

static void
test_signals(void)
{
	struct child k;

	child_start(&k, child_operation, NULL, -1);
	child_signal(&k, SIGTERM);
	child_finish(&k);
	ok(WIFSIGNALED(k.status) && WTERMSIG(k.status) == SIGTERM,
	    "SIGTERM in an operation: the process dies of SIGTERM");
	is_str(k.errbuf, "<sc-test: interrupted; operation " OPID "\n>",
	    "  the message names the operation, inside the stderr lock");
	is_str(k.outbuf, "ReleaseAll " OPID "\n",
	    "  the operation was released before dying");

	child_start(&k, child_idle, NULL, -1);
	child_signal(&k, SIGINT);
	child_finish(&k);
	ok(WIFSIGNALED(k.status) && WTERMSIG(k.status) == SIGINT,
	    "SIGINT with nothing running: dies of SIGINT");
	is_str(k.errbuf, "sc-test: interrupted\n", "  message");

	child_run(&k, child_ignored, NULL, -1);
	ok(WIFEXITED(k.status) && WEXITSTATUS(k.status) == 7,
	    "signals ignored at start stay ignored");

	if (getenv("SCTK_SANITIZE") != NULL) {
		ok(1, "# SKIP address-space limits break the sanitizers");
		return;
	}
	child_run(&k, child_no_thread, NULL, -1);
	ok(WIFEXITED(k.status) && WEXITSTATUS(k.status) == 0,
	    "no thread: sc_signals_start fails and unblocks the signals");
	is_str(k.errbuf,
	    "10 cannot start the signal thread: Resource temporarily unavailable\n",
	    "  SC_ST_INTERNAL (exit 10), with the reason");
}

int
main(void)
{
	test_signals();
	return tap_done();
}
