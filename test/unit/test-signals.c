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
#include <sys/resource.h>
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
#include "tap.h"
#include "core/banned.h"

#define SID "00112233-4455-6677-8899-aabbccddeeff"
#define OPID "7b0c1d2e-3f40-4a5b-8c6d-7e8f9a0b1c2d"

/* ---------------------------------------------------- a fake server */

/*
 * Streams block until cancelled; unary calls are ReleaseExecute, each
 * written to stdout as "ReleaseAll <operation id>".  The child tells the
 * parent a stream is open by writing to fd sync_fd.
 */
static pthread_mutex_t fk_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fk_cond = PTHREAD_COND_INITIALIZER;
static bool fk_cancelled;
static int sync_fd = -1;

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
	if (write(sync_fd, "o", 1) != 1)
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
	fk_unary };

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
child_operation(void)
{
	struct sc_signals_opts so = { 0, lock_marker, unlock_marker };
	struct sc_client_opts co;
	struct sc_reattach_exec ex = { OPID, NULL, 0 };
	struct sc_reattach *it;
	struct sc_result r;
	struct sc_plan *plan;
	struct sc_client *c;
	struct sc_error err;

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
child_idle(void)
{
	struct sc_error err;

	if (sc_signals_start(NULL, &err) == -1)
		exit(3);
	if (write(sync_fd, "i", 1) != 1)
		exit(4);
	sleep(30);
	exit(6);
}

/* Both signals ignored by whoever started us: they stay ignored. */
static void
child_ignored(void)
{
	struct sc_error err;

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	if (sc_signals_start(NULL, &err) == -1)
		exit(3);
	raise(SIGTERM);
	raise(SIGINT);
	usleep(100000);
	exit(sc_signals_caught() ? 8 : 7);
}

/* The address space this process uses now, from /proc. */
static unsigned long
vm_size(void)
{
	char line[256];
	unsigned long kb = 0;
	FILE *fp;

	if ((fp = fopen("/proc/self/status", "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "VmSize: %lu kB", &kb) == 1)
			break;
	fclose(fp);
	return kb * 1024;
}

/* No room for a thread's stack: sc_signals_start() fails cleanly. */
static void
child_no_thread(void)
{
	struct rlimit rl;
	struct sc_error err;
	sigset_t cur;

	if (getrlimit(RLIMIT_AS, &rl) == -1)
		exit(3);
	rl.rlim_cur = vm_size() + (1UL << 20);
	if (setrlimit(RLIMIT_AS, &rl) == -1)
		exit(3);
	if (sc_signals_start(NULL, &err) != -1)
		exit(4);
	fprintf(stderr, "%d %s\n", (int)err.status, err.msg);
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	exit(sigismember(&cur, SIGTERM) || sigismember(&cur, SIGINT) ? 5 : 0);
}

/* ------------------------------------------------------------ driver */

struct child {
	pid_t pid;
	int out, err, sync;
};

static void
start_child(struct child *k, void (*fn)(void))
{
	int po[2], pe[2], ps[2];

	if (pipe(po) == -1 || pipe(pe) == -1 || pipe(ps) == -1)
		abort();
	fflush(stdout);
	if ((k->pid = fork()) == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		close(ps[0]);
		sync_fd = ps[1];
		sc_log_init("sc-test", SC_LOG_STYLE_CLIENT, SC_LOG_WARN);
		fn();
		_exit(99);
	}
	close(po[1]);
	close(pe[1]);
	close(ps[1]);
	k->out = po[0];
	k->err = pe[0];
	k->sync = ps[0];
}

static void
slurp(int fd, char *buf, size_t bufsz)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < bufsz && (r = read(fd, buf + n, bufsz - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	close(fd);
}

/* Wait for the child's sync byte, send sig, collect everything. */
static int
signal_child(struct child *k, int sig, char *out, char *errs, size_t n)
{
	char c;
	int status = 0;

	if (sig != 0 && read(k->sync, &c, 1) == 1)
		kill(k->pid, sig);
	slurp(k->out, out, n);
	slurp(k->err, errs, n);
	close(k->sync);
	waitpid(k->pid, &status, 0);
	return status;
}

static void
test_signals(void)
{
	struct child k;
	char out[1024], errs[1024];
	int st;

	start_child(&k, child_operation);
	st = signal_child(&k, SIGTERM, out, errs, sizeof(errs));
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
	    "SIGTERM in an operation: the process dies of SIGTERM");
	is_str(errs, "<sc-test: interrupted; operation " OPID "\n>",
	    "  the message names the operation, inside the stderr lock");
	is_str(out, "ReleaseAll " OPID "\n",
	    "  the operation was released before dying");

	start_child(&k, child_idle);
	st = signal_child(&k, SIGINT, out, errs, sizeof(errs));
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT,
	    "SIGINT with nothing running: dies of SIGINT");
	is_str(errs, "sc-test: interrupted\n", "  message");

	start_child(&k, child_ignored);
	st = signal_child(&k, 0, out, errs, sizeof(errs));
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 7,
	    "signals ignored at start stay ignored");

	if (getenv("SCTK_SANITIZE") != NULL) {
		ok(1, "# SKIP address-space limits break the sanitizers");
		return;
	}
	start_child(&k, child_no_thread);
	st = signal_child(&k, 0, out, errs, sizeof(errs));
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "no thread: sc_signals_start fails and unblocks the signals");
	is_str(errs,
	    "10 cannot start the signal thread: Resource temporarily unavailable\n",
	    "  SC_ST_INTERNAL (exit 10), with the reason");
}

int
main(void)
{
	test_signals();
	return tap_done();
}
