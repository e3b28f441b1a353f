/* SPDX-License-Identifier: MIT */

/*
 * timeutil.c: monotonic deadlines and millisecond clocks.  All arithmetic
 * saturates, so "no timeout" can be spelled as a huge value safely.
 */

#include "core/timeutil.h"

#include <stdbool.h>
#include <stdio.h>

#include "core/banned.h"

#define NS_PER_MS 1000000L
#define NS_PER_S 1000000000L

void
sc_mono_now(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
}

void
sc_mono_cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &a);
	pthread_condattr_destroy(&a);
}

void
sc_deadline_in_ms(struct timespec *out, int64_t ms)
{
	struct timespec now;
	int64_t sec, ns;

	sc_mono_now(&now);
	sec = ms / 1000;
	ns = (ms % 1000) * NS_PER_MS + now.tv_nsec;
	if (ns >= NS_PER_S) {
		ns -= NS_PER_S;
		sec++;
	} else if (ns < 0) {
		ns += NS_PER_S;
		sec--;
	}
	/* time_t is 64 bits here; keep clear of its limits anyway. */
	if (sec > INT64_MAX / 4 - now.tv_sec)
		sec = INT64_MAX / 4 - now.tv_sec;
	else if (sec < INT64_MIN / 4 - now.tv_sec)
		sec = INT64_MIN / 4 - now.tv_sec;
	out->tv_sec = (time_t)(now.tv_sec + sec);
	out->tv_nsec = (long)ns;
}

int64_t
sc_ms_until(const struct timespec *deadline)
{
	struct timespec now;
	int64_t sec, ns;

	sc_mono_now(&now);
	sec = (int64_t)deadline->tv_sec - (int64_t)now.tv_sec;
	ns = (int64_t)deadline->tv_nsec - now.tv_nsec;
	if (sec > INT64_MAX / 1000 - 1)
		return INT64_MAX;
	if (sec < INT64_MIN / 1000 + 1)
		return INT64_MIN;
	/* Round up: a deadline 0.3 ms away is 1 ms away, not 0. */
	if (ns >= 0)
		return sec * 1000 + (ns + NS_PER_MS - 1) / NS_PER_MS;
	return sec * 1000 - (-ns) / NS_PER_MS;
}

int64_t
sc_mono_ms(void)
{
	struct timespec ts;

	sc_mono_now(&ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / NS_PER_MS;
}

int64_t
sc_realtime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / NS_PER_MS;
}

void
sc_duration_format(int64_t ms, char *buf)
{
	static const struct {
		char unit;
		int64_t ms;
	} parts[] = { { 'd', 86400000 }, { 'h', 3600000 }, { 'm', 60000 } };
	size_t n = 0, i;
	bool started = false;
	int64_t v;

	if (ms < 1000) {
		snprintf(buf, SC_DURATION_STRLEN, "%lldms",
		    (long long)(ms < 0 ? 0 : ms));
		return;
	}
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		v = ms / parts[i].ms;
		if (v == 0 && !started)
			continue;
		started = true;
		ms -= v * parts[i].ms;
		n += (size_t)snprintf(buf + n, SC_DURATION_STRLEN - n, "%lld%c",
		    (long long)v, parts[i].unit);
	}
	if (ms == 0 && started)
		return;
	if (ms % 1000 == 0)
		snprintf(buf + n, SC_DURATION_STRLEN - n, "%llds",
		    (long long)(ms / 1000));
	else if (ms % 100 == 0)
		snprintf(buf + n, SC_DURATION_STRLEN - n, "%lld.%llds",
		    (long long)(ms / 1000), (long long)(ms % 1000 / 100));
	else if (ms % 10 == 0)
		snprintf(buf + n, SC_DURATION_STRLEN - n, "%lld.%02llds",
		    (long long)(ms / 1000), (long long)(ms % 1000 / 10));
	else
		snprintf(buf + n, SC_DURATION_STRLEN - n, "%lld.%03llds",
		    (long long)(ms / 1000), (long long)(ms % 1000));
}
