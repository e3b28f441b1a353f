/* SPDX-License-Identifier: MIT */

/*
 * progress.c: one self-overwriting status line on stderr (rows, bytes,
 * rate, elapsed time, execution stages).  Never on stdout.  Redraws are
 * rate-limited so a fast stream does not spend its time on the
 * terminal, and a ticker redraws it while nothing arrives, so a slow
 * query does not look like a hung one.
 *
 * When results go to the same terminal (term.c), every write of theirs
 * erases the line first, and the line is drawn again only at the start
 * of a line of output, never in the middle of one.  On a stderr that is
 * not a terminal (--progress into a log), it is a plain line every few
 * seconds instead, without escapes.
 */

#include "sc-exec.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/cli.h"
#include "core/result.h"
#include "core/timeutil.h"
#include "core/banned.h"

#define REDRAW_MS 200
#define TICK_MS 1000
#define LOG_EVERY_MS 5000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool enabled, drawn, plain, ticking;
static bool line_start = true; /* the results end with a full line */
static int64_t start_ms, last_ms;
static uint64_t nrows, nbytes, logged_rows = UINT64_MAX;
static int64_t stages, stages_done, tasks, tasks_done, inflight;
static char note[160]; /* a retry's status, until data comes again */

static void draw(void);
static void clear_locked(void);

/* Redraw now and then while nothing else does. */
static void *
ticker(void *arg)
{
	int64_t now;

	(void)arg;
	for (;;) {
		usleep(TICK_MS * 1000 / 2);
		pthread_mutex_lock(&lock);
		now = sc_mono_ms();
		/* Into a log too: a slow query is not a hung one. */
		if (enabled &&
		    now - last_ms >= (plain ? LOG_EVERY_MS : TICK_MS)) {
			last_ms = now;
			draw();
		}
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

void
progress_enable(bool on)
{
	sigset_t all, old;
	pthread_t t;

	pthread_mutex_lock(&lock);
	if (!on)
		clear_locked();
	if (on && !enabled)
		start_ms = sc_mono_ms();
	enabled = on;
	plain = !isatty(STDERR_FILENO);
	if (on && !ticking) {
		/* The ticker never takes a signal. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		if (pthread_create(&t, NULL, ticker, NULL) == 0) {
			pthread_detach(t);
			ticking = true;
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_mutex_unlock(&lock);
}

bool
progress_enabled(void)
{
	bool on;

	pthread_mutex_lock(&lock);
	on = enabled;
	pthread_mutex_unlock(&lock);
	return on;
}

void
progress_restart(void)
{
	pthread_mutex_lock(&lock);
	start_ms = sc_mono_ms();
	nrows = nbytes = 0;
	stages = 0;
	note[0] = '\0';
	pthread_mutex_unlock(&lock);
}

void
progress_output(bool at_line_start)
{
	/* Lock held (progress_lock()). */
	line_start = at_line_start;
}

/* Lock held. */
static void
draw(void)
{
	char line[256], b[32], rate[32];
	double secs;
	size_t len;
	int n;

	/* Never in the middle of a line of results. */
	if (!line_start && !plain)
		return;
	secs = (double)(sc_mono_ms() - start_ms) / 1000;
	sc_format_bytes((double)nbytes, "B", b, sizeof(b));
	sc_format_bytes(secs > 0 ? (double)nbytes / secs : 0, "B/s", rate,
	    sizeof(rate));
	n = snprintf(line, sizeof(line), "%s%llu %s  %s  %s  %.0fs",
	    plain ? "sc-exec: " : "\r\033[K", (unsigned long long)nrows,
	    nrows == 1 ? "row" : "rows", b, rate, secs);
	if (stages > 0 && n > 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n,
		    "  stages %lld/%lld  tasks %lld/%lld (%lld running)",
		    (long long)stages_done, (long long)stages,
		    (long long)tasks_done, (long long)tasks,
		    (long long)inflight);
	len = strlen(line);
	if (note[0] != '\0' && len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, "  %s", note);
	len = strlen(line);
	if (plain && len + 1 < sizeof(line)) {
		line[len++] = '\n';
		line[len] = '\0';
	}
	(void)!write(STDERR_FILENO, line, len);
	drawn = !plain;
	if (plain)
		logged_rows = nrows;
}

void
progress_update(uint64_t rows, uint64_t bytes)
{
	int64_t now;

	pthread_mutex_lock(&lock);
	if (rows != nrows || bytes != nbytes)
		note[0] = '\0'; /* data again: the retry worked */
	nrows = rows;
	nbytes = bytes;
	now = sc_mono_ms();
	if (enabled && now - last_ms >= (plain ? LOG_EVERY_MS : REDRAW_MS)) {
		last_ms = now;
		draw();
	}
	pthread_mutex_unlock(&lock);
}

void
progress_stages(const struct sc_result_progress *p)
{
	pthread_mutex_lock(&lock);
	stages = p->stages;
	stages_done = p->stages_done;
	tasks = p->tasks;
	tasks_done = p->tasks_done;
	inflight = p->inflight;
	if (enabled && !plain) {
		last_ms = sc_mono_ms();
		draw();
	}
	pthread_mutex_unlock(&lock);
}

void
progress_note(const char *text)
{
	pthread_mutex_lock(&lock);
	snprintf(note, sizeof(note), "%s", text != NULL ? text : "");
	if (enabled && !plain) {
		last_ms = sc_mono_ms();
		draw();
	}
	pthread_mutex_unlock(&lock);
}

static void
clear_locked(void)
{
	static const char erase[] = "\r\033[K";

	if (drawn)
		(void)!write(STDERR_FILENO, erase, sizeof(erase) - 1);
	drawn = false;
}

void
progress_clear(void)
{
	pthread_mutex_lock(&lock);
	/* A log ends with the totals, not with a line from seconds ago. */
	if (enabled && plain && nrows > 0 && nrows != logged_rows)
		draw();
	clear_locked();
	pthread_mutex_unlock(&lock);
}

void
progress_lock(void)
{
	pthread_mutex_lock(&lock);
	clear_locked();
}

void
progress_unlock(void)
{
	pthread_mutex_unlock(&lock);
}
