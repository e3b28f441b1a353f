/* SPDX-License-Identifier: MIT */

/*
 * timeutil.c: monotonic deadlines and millisecond clocks.  All arithmetic
 * saturates, so "no timeout" can be spelled as a huge value safely.
 */

#include "core/timeutil.h"

#include "core/banned.h"

#define NS_PER_MS 1000000L
#define NS_PER_S 1000000000L

void
sc_mono_now(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
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
