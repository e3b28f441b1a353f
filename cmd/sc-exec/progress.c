/* SPDX-License-Identifier: MIT */

/*
 * progress.c: one self-overwriting status line on stderr (rows, bytes,
 * rate, execution stages).  Never on stdout.  Redraws are rate-limited so
 * a fast stream does not spend its time on the terminal.
 */

#include "sc-exec.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/result.h"
#include "core/timeutil.h"
#include "core/banned.h"

#define REDRAW_MS 200

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool enabled, drawn;
static int64_t start_ms, last_ms;
static uint64_t nrows, nbytes;
static int64_t stages, stages_done, tasks, tasks_done, inflight;

void
progress_enable(bool on)
{
	pthread_mutex_lock(&lock);
	enabled = on;
	start_ms = sc_mono_ms();
	pthread_mutex_unlock(&lock);
}

static void
human(double v, const char *unit, char *out, size_t outsz)
{
	static const char *const pfx[] = { "", "k", "M", "G", "T", "P" };
	size_t i = 0;

	while (v >= 1000 && i + 1 < sizeof(pfx) / sizeof(pfx[0])) {
		v /= 1000;
		i++;
	}
	if (i == 0)
		snprintf(out, outsz, "%.0f %s", v, unit);
	else
		snprintf(out, outsz, "%.1f %s%s", v, pfx[i], unit);
}

/* Lock held. */
static void
draw(void)
{
	char line[256], b[32], rate[32];
	double secs;
	int n;

	secs = (double)(sc_mono_ms() - start_ms) / 1000;
	human((double)nbytes, "B", b, sizeof(b));
	human(secs > 0 ? (double)nbytes / secs : 0, "B/s", rate, sizeof(rate));
	n = snprintf(line, sizeof(line), "\r\033[K%llu rows  %s  %s",
	    (unsigned long long)nrows, b, rate);
	if (stages > 0 && n > 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n,
		    "  stages %lld/%lld  tasks %lld/%lld (%lld running)",
		    (long long)stages_done, (long long)stages,
		    (long long)tasks_done, (long long)tasks,
		    (long long)inflight);
	(void)!write(STDERR_FILENO, line, strlen(line));
	drawn = true;
}

void
progress_update(uint64_t rows, uint64_t bytes)
{
	int64_t now;

	pthread_mutex_lock(&lock);
	nrows = rows;
	nbytes = bytes;
	now = sc_mono_ms();
	if (enabled && now - last_ms >= REDRAW_MS) {
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
	if (enabled) {
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
