/* SPDX-License-Identifier: MIT */

/*
 * retry.h: backoff policy for idempotent RPCs, as Spark Connect clients
 * do it: exponential backoff with jitter, honouring RetryInfo.
 *
 * sc_retry_next_delay() is pure (the random number is a parameter), so
 * the whole sequence can be unit-tested without a clock;
 * sc_retry_sleep_ms() is the only function that sleeps.
 *
 * Two limits come on top of Spark's policy, so a dead server cannot keep
 * a client waiting for the policy's ten minutes: a server that has not
 * answered anything for SC_RETRY_UNREACHABLE_MS is given up
 * (sc_retry_silence_left()), and no wait outlasts the caller's deadline
 * (sc_retry_cap()): the last attempt comes at the limit, not a backoff
 * step before it.
 */

#ifndef SC_RETRY_H
#define SC_RETRY_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct sc_error;

/*
 * How long a server may stay silent (no message, no status other than
 * UNAVAILABLE) before a retry loop gives up, unless the caller sets
 * another limit (sc_client_opts.unreachable_ms, --unreachable-timeout).
 */
#define SC_RETRY_UNREACHABLE_MS 60000

/* Spark's DefaultPolicy; sc_retry_policy_default() fills these values. */
struct sc_retry_policy {
	int max_retries; /* 15 */
	int64_t initial_ms; /* 50 */
	double multiplier; /* 4.0 */
	int64_t max_backoff_ms; /* 60000 */
	int64_t jitter_ms; /* 500: [0, jitter) added */
	int64_t min_jitter_threshold_ms; /* 2000: jitter only at or above */
	int64_t max_server_delay_ms; /* 600000: cap on RetryInfo delay */
	int64_t max_total_ms; /* 3600000: cap on the sum of waits */
};

/* Where one retry loop is; a fresh state per loop (per reattach). */
struct sc_retry_state {
	int attempt; /* retries granted so far */
	int64_t next_ms; /* backoff before server delay and jitter */
	int64_t elapsed_ms; /* sum of the waits granted so far */
	int64_t started_ms; /* monotonic clock when the streak began */
};

/* Why a retry happens, for the one message printed per attempt. */
enum sc_retry_reason {
	SC_RETRY_UNAVAILABLE = 0, /* gRPC UNAVAILABLE */
	SC_RETRY_DISCONNECTED, /* INVALID_CURSOR.DISCONNECTED */
	SC_RETRY_RETRY_INFO, /* google.rpc.RetryInfo was sent */
	SC_RETRY_DEADLINE, /* a per-segment deadline expired */
	SC_RETRY_NO_PROGRESS, /* the no-progress watchdog fired */
	SC_RETRY_STREAM_END /* stream ended before ResultComplete */
};

/* Fill p with Spark's defaults (the values in the struct comments). */
void sc_retry_policy_default(struct sc_retry_policy *p);

/* Start a retry loop: attempt 0, next_ms = p->initial_ms, elapsed 0. */
void sc_retry_state_init(struct sc_retry_state *st,
    const struct sc_retry_policy *p);

/*
 * The wait in milliseconds before the next retry, or -1 if the budget is
 * spent: st->attempt has reached p->max_retries, or the wait would take
 * st->elapsed_ms past p->max_total_ms.  Algorithm: current = next_ms;
 * next_ms = min(next_ms * multiplier, max_backoff_ms); if server_delay_ms
 * >= 0 (RetryInfo; -1 when none), current = max(current,
 * min(server_delay_ms, max_server_delay_ms)); if current >=
 * min_jitter_threshold_ms, current += rnd % jitter_ms.  On success
 * attempt and elapsed_ms advance; on -1 st is unchanged.
 */
int64_t sc_retry_next_delay(const struct sc_retry_policy *p,
    struct sc_retry_state *st, int64_t server_delay_ms, uint32_t rnd);

/*
 * Whether err is retryable under Spark's DefaultPolicy: rpc_code
 * UNAVAILABLE; INTERNAL with "INVALID_CURSOR.DISCONNECTED" in msg; or a
 * RetryInfo detail (retry_delay_ms >= 0).  If so and why is not NULL,
 * *why says which (the first that matches, in that order).
 */
bool sc_retry_classify(const struct sc_error *err, enum sc_retry_reason *why);

/* A short phrase for a reason, e.g. "server unavailable". */
const char *sc_retry_reason_str(enum sc_retry_reason why);

/*
 * How much longer a retry loop may wait for a server that has been
 * silent for silent_ms (-1: it answered last time) when it may stay
 * silent for limit_ms (0 or less: forever): -1 when no limit applies,
 * else limit_ms - silent_ms, at least 0 (0: give up now).
 */
int64_t sc_retry_silence_left(int64_t silent_ms, int64_t limit_ms);

/*
 * A backoff delay shortened to a limit: delay when left_ms is -1 (no
 * limit) or not smaller, else left_ms (at least 0).
 */
int64_t sc_retry_cap(int64_t delay, int64_t left_ms);

/*
 * Sleep ms milliseconds (restarting after signals).  If deadline is not
 * NULL and would pass before the sleep ends, return -1 at once without
 * sleeping; otherwise 0.
 */
int sc_retry_sleep_ms(int64_t ms, const struct timespec *deadline);

#endif
