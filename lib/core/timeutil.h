/* SPDX-License-Identifier: MIT */

/*
 * timeutil.h: monotonic deadlines and wall-clock formatting.
 *
 * Deadlines are absolute CLOCK_MONOTONIC times (STYLE.md D.7), computed
 * once in main() and passed down to every blocking call.
 */

#ifndef SC_TIMEUTIL_H
#define SC_TIMEUTIL_H

#include <stdint.h>
#include <time.h>

/* Buffer size for sc_format_utc_ms(): "2026-08-22T10:00:00.123Z" + NUL. */
#define SC_UTC_MS_STRLEN 32

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

/* CLOCK_MONOTONIC in milliseconds (arbitrary origin). */
int64_t sc_mono_ms(void);

/* CLOCK_REALTIME in milliseconds since the Unix epoch. */
int64_t sc_realtime_ms(void);

/*
 * Format ms since the epoch as ISO 8601 UTC with milliseconds, e.g.
 * "2026-08-22T10:00:00.123Z" (negative times are before 1970).
 */
void sc_format_utc_ms(int64_t ms, char out[SC_UTC_MS_STRLEN]);

#endif
