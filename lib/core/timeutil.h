/* SPDX-License-Identifier: MIT */

/*
 * timeutil.h: monotonic deadlines and millisecond clocks.
 *
 * Deadlines are absolute CLOCK_MONOTONIC times, computed
 * once in main() and passed down to every blocking call.
 */

#ifndef SC_TIMEUTIL_H
#define SC_TIMEUTIL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* The current CLOCK_MONOTONIC time. */
void sc_mono_now(struct timespec *ts);

/*
 * The CLOCK_MONOTONIC time ms milliseconds from now (ms < 0 gives a
 * time in the past; huge values saturate instead of overflowing).
 */
void sc_deadline_in_ms(struct timespec *out, int64_t ms);

/*
 * Milliseconds from now until deadline, a partial millisecond rounded
 * up (so a deadline still ahead never gives 0 or less); 0 when it is
 * now or passed less than a millisecond ago; negative after that.
 */
int64_t sc_ms_until(const struct timespec *deadline);

/*
 * Initialise cv to measure pthread_cond_timedwait()'s absolute times on
 * CLOCK_MONOTONIC, the clock of every deadline here (the default,
 * CLOCK_REALTIME, would jump with the wall clock).
 */
void sc_mono_cond_init(pthread_cond_t *cv);

/* CLOCK_MONOTONIC in milliseconds (arbitrary origin). */
int64_t sc_mono_ms(void);

/* CLOCK_REALTIME in milliseconds since the Unix epoch. */
int64_t sc_realtime_ms(void);

/* Room for any text sc_duration_format() writes, NUL included. */
#define SC_DURATION_STRLEN 40

/*
 * Write ms (>= 0) as a duration sc_parse_cli_duration() reads back:
 * "250ms", "30s", "1.5s", "1h30m", "2d3h0m4s".  Negative values are
 * written as 0ms.  buf holds SC_DURATION_STRLEN bytes.
 */
void sc_duration_format(int64_t ms, char *buf);

#endif
