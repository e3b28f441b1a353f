/* SPDX-License-Identifier: MIT */

/*
 * signals.c: the thread that turns SIGINT and SIGTERM into an abort, a
 * release and the same signal again.
 */

#include "core/signals.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/client.h"
#include "core/error.h"
#include "core/log.h"
#include "core/reattach.h"
#include "core/timeutil.h"
#include "core/uuid.h"
#include "core/banned.h"

#define DEFAULT_RELEASE_WAIT_MS 2000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct sc_client *cur_client; /* lock */
static struct sc_reattach *cur_it; /* lock */
static atomic_int caught; /* the signal, once one came */
static struct sc_signals_opts opts;
static sigset_t sigs;

static void say(enum sc_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
say(enum sc_log_level level, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (sc_log_level < level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (opts.stderr_lock != NULL)
		opts.stderr_lock();
	sc_log_write(level, "%s", msg);
	if (opts.stderr_unlock != NULL)
		opts.stderr_unlock();
}

static void *
signal_main(void *arg)
{
	char opid[SC_UUID_STRLEN] = "";
	struct sc_client *c;
	struct timespec dl;
	sigset_t one;
	int sig;

	(void)arg;
	if (sigwait(&sigs, &sig) != 0)
		return NULL;
	pthread_mutex_lock(&lock);
	atomic_store(&caught, sig);
	c = cur_client;
	if (cur_it != NULL) {
		snprintf(opid, sizeof(opid), "%s",
		    sc_reattach_operation_id(cur_it));
		sc_reattach_abort(cur_it);
	}
	pthread_mutex_unlock(&lock);
	if (opid[0] != '\0')
		say(SC_LOG_ERROR, "interrupted; operation %s", opid);
	else
		say(SC_LOG_ERROR, "interrupted");
	if (c != NULL) {
		sc_deadline_in_ms(&dl, opts.release_wait_ms);
		if (sc_client_release_wait(c, &dl) == -1 && opid[0] != '\0')
			say(SC_LOG_WARN,
			    "operation %s may still be on the server", opid);
	}
	if (opts.before_exit != NULL)
		opts.before_exit();
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	_exit(128 + sig);
}

int
sc_signals_start(const struct sc_signals_opts *o, struct sc_error *err)
{
	struct sigaction sa;
	pthread_t thr;
	int e;

	memset(&opts, 0, sizeof(opts));
	if (o != NULL)
		opts = *o;
	if (opts.release_wait_ms <= 0)
		opts.release_wait_ms = DEFAULT_RELEASE_WAIT_MS;
	sigemptyset(&sigs);
	if (sigaction(SIGINT, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
		sigaddset(&sigs, SIGINT);
	if (sigaction(SIGTERM, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
		sigaddset(&sigs, SIGTERM);
	if (!sigismember(&sigs, SIGINT) && !sigismember(&sigs, SIGTERM))
		return 0;
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	if ((e = pthread_create(&thr, NULL, signal_main, NULL)) != 0) {
		pthread_sigmask(SIG_UNBLOCK, &sigs, NULL);
		return sc_error_set_errno(err, SC_ST_INTERNAL, e,
		    "cannot start the signal thread");
	}
	pthread_detach(thr);
	return 0;
}

void
sc_signals_set_client(struct sc_client *c)
{
	pthread_mutex_lock(&lock);
	cur_client = c;
	pthread_mutex_unlock(&lock);
}

void
sc_signals_watch(struct sc_reattach *it)
{
	pthread_mutex_lock(&lock);
	cur_it = it;
	pthread_mutex_unlock(&lock);
}

bool
sc_signals_caught(void)
{
	return atomic_load(&caught) != 0;
}

void
sc_signals_drop_client(void)
{
	pthread_mutex_lock(&lock);
	if (atomic_load(&caught) != 0) {
		pthread_mutex_unlock(&lock);
		sc_signals_wait();
	}
	cur_client = NULL;
	pthread_mutex_unlock(&lock);
}

void
sc_signals_wait(void)
{
	for (;;)
		pause();
}
