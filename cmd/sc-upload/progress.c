/* SPDX-License-Identifier: MIT */

/*
 * progress.c: sc-upload's progress line on stderr (a bar when the total
 * is known, bytes, rate, the artifact being sent).  It appears only once
 * an upload has run for PROGRESS_DELAY_MS, is redrawn at most every
 * REDRAW_MS, fits the terminal's width, and is erased before any other
 * output.
 */

#include "sc-upload.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/cli.h"
#include "core/timeutil.h"
#include "core/banned.h"

#define PROGRESS_DELAY_MS 500
#define REDRAW_MS 200
#define BAR_WIDTH 20

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool enabled, drawn;
static int64_t start_ms, last_ms;
static uint64_t total;

void
progress_enable(bool on, uint64_t all)
{
	pthread_mutex_lock(&lock);
	enabled = on;
	total = all;
	start_ms = sc_mono_ms();
	last_ms = 0;
	pthread_mutex_unlock(&lock);
}

static size_t
term_width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
		return ws.ws_col;
	return 80;
}

/* Lock held. */
static void
draw(uint64_t sent, const char *name, int64_t now)
{
	char line[512], b[32], t[32], rate[32], bar[BAR_WIDTH + 1];
	double secs = (double)(now - start_ms) / 1000;
	size_t width = term_width(), n, i, fill;
	int k;

	sc_format_bytes((double)sent, "B", b, sizeof(b));
	sc_format_bytes(secs > 0 ? (double)sent / secs : 0, "B/s", rate,
	    sizeof(rate));
	if (total > 0 && sent <= total) {
		fill = (size_t)((double)sent / (double)total * BAR_WIDTH);
		for (i = 0; i < BAR_WIDTH; i++)
			bar[i] = i < fill ? '#' : '.';
		bar[BAR_WIDTH] = '\0';
		sc_format_bytes((double)total, "B", t, sizeof(t));
		k = snprintf(line, sizeof(line),
		    "\r\033[K[%s] %3d%%  %s of %s  %s  ", bar,
		    (int)((double)sent * 100 / (double)total), b, t, rate);
	} else
		k = snprintf(line, sizeof(line), "\r\033[K%s sent  %s  ", b,
		    rate);
	if (k < 0 || (size_t)k >= sizeof(line))
		return;
	n = (size_t)k;
	/* The name, cut to the width left (4 bytes of escapes). */
	if (name != NULL && n - 4 + 1 < width) {
		k = snprintf(line + n, sizeof(line) - n, "%.*s",
		    (int)(width - (n - 4) - 1), name);
		if (k > 0)
			n += (size_t)k < sizeof(line) - n
			    ? (size_t)k
			    : sizeof(line) - n - 1;
	}
	(void)!write(STDERR_FILENO, line, n);
	drawn = true;
}

void
progress_update(uint64_t sent, const char *name)
{
	int64_t now;

	pthread_mutex_lock(&lock);
	now = sc_mono_ms();
	if (enabled && now - start_ms >= PROGRESS_DELAY_MS &&
	    now - last_ms >= REDRAW_MS) {
		last_ms = now;
		draw(sent, name, now);
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
	enabled = false;
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
