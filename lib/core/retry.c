/* SPDX-License-Identifier: MIT */

/*
 * retry.c: backoff policy for idempotent RPCs.
 *
 * The policy is pure (sc_retry_next_delay) so it can be unit-tested
 * without a clock; sc_retry_sleep_ms() is the only function that sleeps.
 * The numbers and the order of the steps follow Spark's DefaultPolicy.
 */

#include "core/retry.h"

#include <errno.h>
#include <string.h>

#include "core/error.h"
#include "core/timeutil.h"
#include "core/banned.h"

void
sc_retry_policy_default(struct sc_retry_policy *p)
{
	p->max_retries = 15;
	p->initial_ms = 50;
	p->multiplier = 4.0;
	p->max_backoff_ms = 60000;
	p->jitter_ms = 500;
	p->min_jitter_threshold_ms = 2000;
	p->max_server_delay_ms = 600000;
	p->max_total_ms = 3600000;
}

void
sc_retry_state_init(struct sc_retry_state *st, const struct sc_retry_policy *p)
{
	st->attempt = 0;
	st->next_ms = p->initial_ms;
	st->elapsed_ms = 0;
	st->started_ms = sc_mono_ms();
}

int64_t
sc_retry_next_delay(const struct sc_retry_policy *p, struct sc_retry_state *st,
    int64_t server_delay_ms, uint32_t rnd)
{
	int64_t current, next, server;
	double grown;

	if (st->attempt >= p->max_retries)
		return -1;
	current = st->next_ms < 0 ? 0 : st->next_ms;

	/* Compare in double: current * multiplier may not fit an int64_t. */
	grown = (double)current * p->multiplier;
	if (grown >= (double)p->max_backoff_ms)
		next = p->max_backoff_ms;
	else
		next = grown > 0 ? (int64_t)grown : 0;

	if (server_delay_ms >= 0) {
		server = server_delay_ms < p->max_server_delay_ms
		    ? server_delay_ms
		    : p->max_server_delay_ms;
		if (server > current)
			current = server;
	}
	if (current >= p->min_jitter_threshold_ms && p->jitter_ms > 0)
		current += (int64_t)(rnd % (uint64_t)p->jitter_ms);

	if (p->max_total_ms >= 0 &&
	    (current > p->max_total_ms ||
		st->elapsed_ms > p->max_total_ms - current))
		return -1;

	st->attempt++;
	st->next_ms = next;
	st->elapsed_ms += current;
	return current;
}

bool
sc_retry_classify(const struct sc_error *err, enum sc_retry_reason *why)
{
	enum sc_retry_reason r;

	if (err == NULL)
		return false;
	/*
	 * A connection refused for who the server is (an untrusted
	 * certificate, core/error.c's SC_ST_DENIED) is refused again.
	 */
	if (err->rpc_code == SC_GRPC_UNAVAILABLE && err->status == SC_ST_DENIED)
		return false;
	if (err->rpc_code == SC_GRPC_UNAVAILABLE)
		r = SC_RETRY_UNAVAILABLE;
	else if (err->rpc_code == SC_GRPC_INTERNAL &&
	    (strstr(err->msg, "INVALID_CURSOR.DISCONNECTED") != NULL ||
		strcmp(err->errclass, "INVALID_CURSOR.DISCONNECTED") == 0))
		r = SC_RETRY_DISCONNECTED;
	else if (err->retry_delay_ms >= 0)
		r = SC_RETRY_RETRY_INFO;
	else
		return false;
	if (why != NULL)
		*why = r;
	return true;
}

const char *
sc_retry_reason_str(enum sc_retry_reason why)
{
	switch (why) {
	case SC_RETRY_UNAVAILABLE:
		return "server unavailable";
	case SC_RETRY_DISCONNECTED:
		return "disconnected by the server";
	case SC_RETRY_RETRY_INFO:
		return "server asked for a retry";
	case SC_RETRY_DEADLINE:
		return "no response in time";
	case SC_RETRY_NO_PROGRESS:
		return "no progress";
	case SC_RETRY_STREAM_END:
		return "stream ended early";
	}
	return "unknown reason";
}

int64_t
sc_retry_silence_left(int64_t silent_ms, int64_t limit_ms)
{
	if (limit_ms <= 0 || silent_ms < 0)
		return -1;
	return silent_ms >= limit_ms ? 0 : limit_ms - silent_ms;
}

int64_t
sc_retry_cap(int64_t delay, int64_t left_ms)
{
	if (left_ms < 0 || delay <= left_ms)
		return delay;
	return left_ms;
}

int
sc_retry_sleep_ms(int64_t ms, const struct timespec *deadline)
{
	struct timespec until;
	int r;

	if (deadline != NULL && sc_ms_until(deadline) < ms)
		return -1;
	if (ms <= 0)
		return 0;
	sc_deadline_in_ms(&until, ms);
	/* Absolute time, so a signal does not stretch the total sleep. */
	while ((r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until,
		    NULL)) == EINTR)
		;
	return r == 0 ? 0 : -1;
}
