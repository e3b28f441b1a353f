/* SPDX-License-Identifier: MIT */

/*
 * sc-exec: run SQL, a range or a serialized plan on a Spark Connect
 * server and stream the result to stdout, with reattach, retries and
 * asynchronous release (core/reattach); or start an operation detached,
 * or attach to one.  Only the protocol is relied on, so it works the same
 * against sc-serve and Apache Spark 3.5 and 4.x.
 *
 * main() reads options, connects, runs and reports; the client, plans
 * and signal handling are lib/core's, rendering is render.c's.
 */

#include <sys/stat.h>

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/cli.h"
#include "core/client.h"
#include "core/conn.h"
#include "core/error.h"
#include "core/file.h"
#include "core/log.h"
#include "core/output.h"
#include "core/plan.h"
#include "core/reattach.h"
#include "core/result.h"
#include "core/signals.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "sc-exec.h"
#include "core/banned.h"
/* --------------------------------------------------------------- events */

/*
 * Release failures worth a warning wait until the run's own error (if
 * any) has been reported, so the cause comes first and once.
 */
#define DEFERRED_MAX 4
static pthread_mutex_t deferred_lock = PTHREAD_MUTEX_INITIALIZER;
static char *deferred[DEFERRED_MAX];
static size_t ndeferred;

/*
 * A release that failed because the server does not know the operation
 * or the session, or will not let us in, holds nothing we could free:
 * the run's own error already says why.
 */
static bool
release_moot(const struct sc_error *e)
{
	return e != NULL &&
	    (e->status == SC_ST_DENIED || e->status == SC_ST_NOTFOUND ||
		strncmp(e->errclass, "INVALID_HANDLE.", 15) == 0);
}

/* Client events (-v) between progress line redraws. */
void
on_event(const struct sc_client_event *ev, void *arg)
{
	enum sc_log_level level = sc_client_event_level(ev);

	/* Without -v too: a stream that stalls says it is reconnecting. */
	if (ev->kind == SC_CLIENT_EV_RETRY && ev->status != NULL)
		progress_note(ev->status);
	if (ev->kind == SC_CLIENT_EV_RELEASE_FAILED && level == SC_LOG_WARN) {
		/* A ReleaseAll of the operation follows a ReleaseUntil. */
		if (release_moot(ev->err) || ev->response_id != NULL)
			level = SC_LOG_INFO;
		else if (sc_log_level >= level) {
			pthread_mutex_lock(&deferred_lock);
			if (ndeferred < DEFERRED_MAX)
				deferred[ndeferred++] = sc_xstrdup(ev->text);
			pthread_mutex_unlock(&deferred_lock);
			return;
		}
	}
	if (sc_log_level < level)
		return;
	progress_lock();
	sc_log_write(level, "%s", ev->text);
	progress_unlock();
	(void)arg;
}

/* The release warnings held back, after everything else. */
static void
print_deferred(void)
{
	size_t i;

	pthread_mutex_lock(&deferred_lock);
	for (i = 0; i < ndeferred; i++) {
		sc_warn("%s", deferred[i]);
		SC_FREE(deferred[i]);
	}
	ndeferred = 0;
	pthread_mutex_unlock(&deferred_lock);
}

/* ------------------------------------------------------------ the story */

/*
 * Results into a pipe may well reach the terminal the progress line is
 * on (sc-exec | cat), where nothing can keep the two apart: no progress
 * by default then.
 */
static bool
stdout_is_pipe(void)
{
	struct stat st;

	return fstat(STDOUT_FILENO, &st) == 0 &&
	    (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

/* Whether the SQL comes from standard input, and that is a terminal. */
static bool
reads_terminal(const struct opts *o)
{
	size_t i;
	bool in = o->stdin_script ||
	    (o->sql != NULL && strcmp(o->sql, "-") == 0);

	for (i = 0; i < o->files.n; i++)
		if (strcmp(o->files.v[i], "-") == 0)
			in = true;
	return in && isatty(STDIN_FILENO);
}

/* Signals, the client, the reattach options and the renderer. */
static int
start(struct run *x, struct opts *o, struct sc_error *err)
{
	struct sc_signals_opts so = { INTERRUPT_WAIT_MS, progress_lock,
		progress_unlock, term_kill_pager };
	struct sc_client_opts co;
	bool pager, on;

	memset(x, 0, sizeof(*x));
	x->o = o;
	x->deadline = o->common.has_deadline ? &o->common.deadline : NULL;
	x->out = stdout;
	if (o->output != NULL) {
		if (sc_outfile_open(&x->of, o->output, err) == -1)
			return -1;
		x->out = x->of.fp;
	} else if (isatty(STDOUT_FILENO) && !o->arrow) {
		pager = !o->no_pager && !o->detach &&
		    (getenv("PAGER") == NULL || getenv("PAGER")[0] != '\0');
		x->out = term_open(pager);
		x->tty = true;
	}
	x->interactive = o->prompt;
	if (o->prompt ? prompt_signals_start(err) == -1
		      : sc_signals_start(&so, err) == -1)
		return -1;
	sc_retry_policy_default(&x->policy);
	if (o->max_retries != UINT64_MAX)
		x->policy.max_retries = (int)o->max_retries;
	memset(&co, 0, sizeof(co));
	co.policy = &x->policy;
	co.release_timeout_ms = RELEASE_WAIT_MS;
	co.on_event = on_event;
	if ((x->c = sc_client_connect(&o->conn, &co, err)) == NULL)
		return -1;
	sc_signals_set_client(x->c);
	if (o->attach != NULL && sc_client_session_is_new(x->c))
		sc_usage_msg(usage_text,
		    "--attach needs the operation's session id (--session-id or session_id= in the URI)");
	sc_debug("server %s, session %s, user '%s'", sc_client_server(x->c),
	    sc_client_session_id(x->c), sc_client_user_id(x->c));

	sc_reattach_opts_init(&x->ro);
	x->ro.reattachable = !o->no_reattach;
	x->ro.policy = x->policy;
	if (o->segment_ms >= 0)
		x->ro.segment_ms = o->segment_ms;
	if (o->watchdog_ms >= 0)
		x->ro.watchdog_ms = o->watchdog_ms;
	x->ro.deadline = x->deadline;

	run_make_render(x);
	on = o->progress == 1 ||
	    (o->progress < 0 && !o->common.quiet && !o->detach &&
		isatty(STDERR_FILENO) && !stdout_is_pipe());
	/* Not over the SQL being typed on the terminal (sc-exec -). */
	x->progress_later = on && reads_terminal(o);
	progress_enable(on && !x->progress_later);
	return 0;
}

/*
 * A session this run made up holds nothing anyone can reach again (its
 * id was never shown), unless an operation was left detached in it:
 * end it now, as Spark's clients do on stop(), instead of leaving it to
 * the server's idle timeout.  A server without ReleaseSession (Spark
 * 3.5) or one that is gone changes nothing for the run's result.
 */
static void
end_session(struct run *x, int rc, const struct sc_error *err)
{
	struct sc_error e;
	struct timespec dl;
	int64_t ms = RELEASE_WAIT_MS;

	if (x->o->detach || !sc_client_session_is_new(x->c))
		return;
	/* Nobody answered, or the time is up: do not wait for more. */
	if (rc == -1 &&
	    (err->status == SC_ST_UNAVAILABLE || err->status == SC_ST_TIMEOUT))
		return;
	if (x->deadline != NULL && sc_ms_until(x->deadline) < ms)
		ms = sc_ms_until(x->deadline);
	if (ms <= 0)
		return;
	sc_error_init(&e);
	sc_deadline_in_ms(&dl, ms);
	if (sc_client_release_session(x->c, false, &dl, &e) == -1)
		sc_debug("ReleaseSession of session %s: %s",
		    sc_client_session_id(x->c), e.msg);
	else
		sc_debug("released session %s", sc_client_session_id(x->c));
}

/* Output is done: give the releases a bounded chance, free, report. */
static int
finish(struct run *x, int rc, struct sc_error *err)
{
	struct sc_client_stats st;
	struct timespec dl;

	progress_clear();
	render_free(x->r);
	sc_deadline_in_ms(&dl, RELEASE_WAIT_MS);
	if (sc_client_release_wait(x->c, &dl) == -1)
		sc_info(
		    "some releases did not finish; the server drops them on its own after its detached timeout");
	end_session(x, rc, err);
	sc_client_get_stats(x->c, &st);
	sc_debug("releases: %llu sent, %llu given up, %llu coalesced",
	    (unsigned long long)st.releases_sent,
	    (unsigned long long)st.releases_failed,
	    (unsigned long long)st.releases_coalesced);
	sc_signals_drop_client(); /* after a signal: never returns */
	sc_client_free(x->c);
	if (x->tty) {
		if (rc == -1 && err->sys_errno == EPIPE && term_pager_quit())
			rc = 0; /* the user left the pager: that is all */
		term_close();
	}
	if (rc == 0 && x->o->output != NULL)
		rc = sc_outfile_commit(&x->of, err);
	sc_outfile_abort(&x->of);
	if (rc == -1) {
		rc = sc_report_error(err);
		if (x->after_error[0] != '\0')
			sc_err("%s", x->after_error);
	} else
		rc = sc_check_stdout();
	print_deferred();
	opts_release(x->o);
	return rc;
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct run x;
	struct sc_error err;

#ifdef __GLIBC__
	/*
	 * Each Arrow batch arrives as a fresh allocation of about its size
	 * (80 KB at Spark's 10,000 rows) that is freed before the next.
	 * With glibc's 128 KiB trim threshold every free gave the heap's
	 * top back and the next batch faulted it in again; keeping up to
	 * 8 MiB makes a 200 M-row stream about 1.18 times faster (7 paired
	 * runs) and stays bounded.
	 */
	mallopt(M_TRIM_THRESHOLD, 8 * 1024 * 1024);
#endif
	parse_args(&o, argc, argv);
	validate(&o);
	sc_error_init(&err);
	if (start(&x, &o, &err) == -1) {
		sc_client_free(x.c);
		sc_outfile_abort(&x.of);
		opts_release(&o);
		return sc_report_error(&err);
	}
	return finish(&x, run_all(&x, &err), &err);
}
