/* SPDX-License-Identifier: MIT */

/*
 * test-retry.c: Spark's default backoff sequence, server delays, the
 * count and total-time budgets, classification, the sleeper, and the
 * unreachable and deadline limits.
 */

#include "core/retry.h"

#include <string.h>

#include "core/error.h"
#include "core/timeutil.h"
#include "tap.h"
#include "core/banned.h"

static void
test_defaults(void)
{
	int64_t t0;
	struct sc_retry_policy p;
	struct sc_retry_state st;

	memset(&p, 0xff, sizeof(p));
	sc_retry_policy_default(&p);
	is_int(p.max_retries, 15, "max_retries 15");
	is_int(p.initial_ms, 50, "initial 50 ms");
	ok(p.multiplier == 4.0, "multiplier 4.0");
	is_int(p.max_backoff_ms, 60000, "max backoff 60 s");
	is_int(p.jitter_ms, 500, "jitter 500 ms");
	is_int(p.min_jitter_threshold_ms, 2000, "jitter threshold 2 s");
	is_int(p.max_server_delay_ms, 600000, "max server delay 10 min");
	is_int(p.max_total_ms, 3600000, "max total 1 h");
	t0 = sc_mono_ms();
	sc_retry_state_init(&st, &p);
	is_int(st.attempt, 0, "state: attempt 0");
	is_int(st.next_ms, 50, "state: next 50");
	is_int(st.elapsed_ms, 0, "state: elapsed 0");
	/* The streak's start, for "gave up after 3 retries in 22s". */
	ok(st.started_ms >= t0 && st.started_ms <= sc_mono_ms(),
	    "state: started now, on the monotonic clock");
}

static void
test_sequence(void)
{
	static const int64_t base[15] = { 50, 200, 800, 3200, 12800, 51200,
		60000, 60000, 60000, 60000, 60000, 60000, 60000, 60000, 60000 };
	struct sc_retry_policy p;
	struct sc_retry_state st;
	int64_t d, want, total = 0;
	uint32_t rnd;
	int i;

	sc_retry_policy_default(&p);
	sc_retry_state_init(&st, &p);
	for (i = 0; i < 15; i++) {
		rnd = 977u * (uint32_t)i + 123u; /* varied jitter */
		want = base[i];
		if (want >= 2000)
			want += rnd % 500;
		d = sc_retry_next_delay(&p, &st, -1, rnd);
		is_int(d, want, "retry %d waits %lld ms", i + 1,
		    (long long)want);
		total += want;
		is_int(st.attempt, i + 1, "attempt counter %d", i + 1);
	}
	is_int(st.elapsed_ms, total, "elapsed is the sum of the waits");
	d = sc_retry_next_delay(&p, &st, -1, 0);
	is_int(d, -1, "16th retry refused");
	is_int(st.attempt, 15, "refusal leaves attempt alone");
	is_int(st.elapsed_ms, total, "refusal leaves elapsed alone");
	d = sc_retry_next_delay(&p, &st, 1000, 0);
	is_int(d, -1, "still refused with a server delay");

	/* Jitter is in [0, 500): rnd 499 and 500 give 499 and 0. */
	sc_retry_state_init(&st, &p);
	st.next_ms = 3200;
	is_int(sc_retry_next_delay(&p, &st, -1, 499), 3699, "jitter 499");
	st.next_ms = 3200;
	is_int(sc_retry_next_delay(&p, &st, -1, 500), 3200,
	    "jitter wraps to 0");
	st.next_ms = 1999;
	is_int(sc_retry_next_delay(&p, &st, -1, 499), 1999,
	    "no jitter below 2000 ms");
	st.next_ms = 2000;
	is_int(sc_retry_next_delay(&p, &st, -1, 7), 2007,
	    "jitter at exactly 2000 ms");
	st.next_ms = 60000;
	is_int(sc_retry_next_delay(&p, &st, -1, UINT32_MAX), 60000 + 295,
	    "largest rnd: 4294967295 %% 500 = 295");
}

static void
test_server_delay(void)
{
	struct sc_retry_policy p;
	struct sc_retry_state st;

	sc_retry_policy_default(&p);
	sc_retry_state_init(&st, &p);
	is_int(sc_retry_next_delay(&p, &st, 5000, 42), 5042,
	    "server delay 5 s beats backoff 50 ms, jitter added");
	is_int(st.next_ms, 200, "server delay does not change the backoff");
	is_int(sc_retry_next_delay(&p, &st, 10, 42), 200,
	    "server delay shorter than backoff: backoff");
	is_int(sc_retry_next_delay(&p, &st, 0, 42), 800,
	    "server delay 0: backoff");
	is_int(sc_retry_next_delay(&p, &st, 20 * 60000, 0), 600000,
	    "server delay 20 min capped at 10 min");
	is_int(sc_retry_next_delay(&p, &st, INT64_MAX, 1), 600001,
	    "huge server delay capped at 10 min, jitter added");
	is_int(sc_retry_next_delay(&p, &st, 1500, 9), 51209,
	    "server delay 1.5 s below the backoff");

	sc_retry_state_init(&st, &p);
	is_int(sc_retry_next_delay(&p, &st, 1500, 9), 1500,
	    "server delay 1.5 s: under the jitter threshold");
}

static void
test_total_cap(void)
{
	struct sc_retry_policy p;
	struct sc_retry_state st;
	int i;

	sc_retry_policy_default(&p);
	p.max_total_ms = 1000;
	sc_retry_state_init(&st, &p);
	is_int(sc_retry_next_delay(&p, &st, -1, 0), 50, "cap 1 s: 50");
	is_int(sc_retry_next_delay(&p, &st, -1, 0), 200, "cap 1 s: 200");
	is_int(sc_retry_next_delay(&p, &st, -1, 0), -1,
	    "cap 1 s: 800 more would make 1050");
	is_int(st.attempt, 2, "refused: attempt unchanged");
	is_int(st.elapsed_ms, 250, "refused: elapsed unchanged");
	is_int(st.next_ms, 800, "refused: next unchanged");

	/* Ten-minute server delays reach the one-hour cap at six. */
	sc_retry_policy_default(&p);
	sc_retry_state_init(&st, &p);
	for (i = 0; i < 6; i++)
		is_int(sc_retry_next_delay(&p, &st, 600000, 0), 600000,
		    "10 min server delay %d of 6", i + 1);
	is_int(st.elapsed_ms, 3600000, "exactly one hour spent");
	is_int(sc_retry_next_delay(&p, &st, 600000, 0), -1,
	    "seventh 10 min wait exceeds the hour");
	is_int(sc_retry_next_delay(&p, &st, -1, 0), -1,
	    "even a short wait: the hour is spent");

	/* The caller may count time spent in RPCs too. */
	sc_retry_state_init(&st, &p);
	st.elapsed_ms = 3600000 - 49;
	is_int(sc_retry_next_delay(&p, &st, -1, 0), -1,
	    "49 ms left, 50 ms needed");
	st.elapsed_ms = 3600000 - 50;
	is_int(sc_retry_next_delay(&p, &st, -1, 0), 50,
	    "50 ms left, 50 ms needed");

	p.max_total_ms = -1;
	p.max_retries = 100;
	sc_retry_state_init(&st, &p);
	for (i = 0; i < 100; i++)
		if (sc_retry_next_delay(&p, &st, 600000, 0) != 600000)
			break;
	is_int(i, 100, "max_total_ms -1: no time cap");
}

static void
test_classify(void)
{
	struct sc_error err;
	enum sc_retry_reason why;

	sc_error_from_grpc(&err, SC_GRPC_UNAVAILABLE, "connection refused",
	    NULL, 0);
	why = SC_RETRY_STREAM_END;
	ok(sc_retry_classify(&err, &why), "UNAVAILABLE is retryable");
	is_int(why, SC_RETRY_UNAVAILABLE, "reason UNAVAILABLE");

	/* N27: an untrusted certificate is refused again: no retries. */
	sc_error_from_grpc(&err, SC_GRPC_UNAVAILABLE,
	    "failed to connect to all addresses; last error: UNKNOWN: "
	    "ipv4:127.0.0.1:4: Ssl handshake failed: SSL_ERROR_SSL: "
	    "error:0A000086:SSL routines::certificate verify failed",
	    NULL, 0);
	sc_error_reword_transport(&err, "h:1");
	is_int(err.status, SC_ST_DENIED, "an untrusted certificate is DENIED");
	ok(!sc_retry_classify(&err, &why), "and not retryable");

	sc_error_from_grpc(&err, SC_GRPC_INTERNAL,
	    "[INVALID_CURSOR.DISCONNECTED] The cursor is invalid.", NULL, 0);
	ok(sc_retry_classify(&err, &why), "DISCONNECTED is retryable");
	is_int(why, SC_RETRY_DISCONNECTED, "reason DISCONNECTED");

	sc_error_from_grpc(&err, SC_GRPC_INTERNAL,
	    "wrapped: INVALID_CURSOR.DISCONNECTED somewhere", NULL, 0);
	ok(sc_retry_classify(&err, NULL),
	    "DISCONNECTED anywhere in the message (why may be NULL)");

	sc_error_from_grpc(&err, SC_GRPC_UNKNOWN,
	    "[INVALID_CURSOR.DISCONNECTED] x", NULL, 0);
	ok(!sc_retry_classify(&err, &why), "DISCONNECTED needs INTERNAL");

	sc_error_from_grpc(&err, SC_GRPC_INTERNAL,
	    "[INVALID_CURSOR.POSITION_NOT_FOUND] x", NULL, 0);
	ok(!sc_retry_classify(&err, &why), "other INTERNAL not retryable");

	sc_error_from_grpc(&err, SC_GRPC_RESOURCE_EXHAUSTED, "x", NULL, 0);
	err.retry_delay_ms = 0;
	ok(sc_retry_classify(&err, &why), "RetryInfo makes it retryable");
	is_int(why, SC_RETRY_RETRY_INFO, "reason RETRY_INFO");

	sc_error_from_grpc(&err, SC_GRPC_UNAVAILABLE, "x", NULL, 0);
	err.retry_delay_ms = 100;
	why = SC_RETRY_STREAM_END;
	ok(sc_retry_classify(&err, &why) && why == SC_RETRY_UNAVAILABLE,
	    "UNAVAILABLE wins over RetryInfo");

	sc_error_from_grpc(&err, SC_GRPC_NOT_FOUND, "x", NULL, 0);
	why = SC_RETRY_STREAM_END;
	ok(!sc_retry_classify(&err, &why), "NOT_FOUND not retryable");
	is_int(why, SC_RETRY_STREAM_END, "why untouched when not retryable");
	sc_error_from_grpc(&err, SC_GRPC_DEADLINE_EXCEEDED, "x", NULL, 0);
	ok(!sc_retry_classify(&err, &why), "DEADLINE_EXCEEDED not retryable");
	sc_error_set(&err, SC_ST_UNAVAILABLE, "cannot connect");
	ok(!sc_retry_classify(&err, &why),
	    "a local error (no rpc_code) is not retryable");
	ok(!sc_retry_classify(NULL, &why), "NULL not retryable");

	is_str(sc_retry_reason_str(SC_RETRY_UNAVAILABLE), "server unavailable",
	    "reason string UNAVAILABLE");
	is_str(sc_retry_reason_str(SC_RETRY_DISCONNECTED),
	    "disconnected by the server", "reason string DISCONNECTED");
	is_str(sc_retry_reason_str(SC_RETRY_RETRY_INFO),
	    "server asked for a retry", "reason string RETRY_INFO");
	is_str(sc_retry_reason_str(SC_RETRY_DEADLINE), "no response in time",
	    "reason string DEADLINE");
	is_str(sc_retry_reason_str(SC_RETRY_NO_PROGRESS), "no progress",
	    "reason string NO_PROGRESS");
	is_str(sc_retry_reason_str(SC_RETRY_STREAM_END), "stream ended early",
	    "reason string STREAM_END");
	is_str(sc_retry_reason_str((enum sc_retry_reason)99), "unknown reason",
	    "reason string out of range");
}

static void
test_sleep(void)
{
	struct timespec dl;
	int64_t t0, t;

	t0 = sc_mono_ms();
	is_int(sc_retry_sleep_ms(30, NULL), 0, "sleep 30 ms");
	t = sc_mono_ms() - t0;
	ok(t >= 30 && t < 30000, "slept at least 30 ms (%lld)", (long long)t);

	sc_deadline_in_ms(&dl, 60000);
	t0 = sc_mono_ms();
	is_int(sc_retry_sleep_ms(120000, &dl), -1,
	    "sleep past the deadline refused");
	t = sc_mono_ms() - t0;
	ok(t < 30000, "refused, not slept to the deadline (%lld ms)",
	    (long long)t);
	is_int(sc_retry_sleep_ms(20, &dl), 0, "sleep inside the deadline");

	sc_deadline_in_ms(&dl, -10);
	is_int(sc_retry_sleep_ms(0, &dl), -1, "deadline passed: -1 even for 0");
	is_int(sc_retry_sleep_ms(0, NULL), 0, "0 ms, no deadline");
	is_int(sc_retry_sleep_ms(-5, NULL), 0, "negative ms, no deadline");
}

/*
 * The two limits on top of the policy: the time a server may stay silent
 * and the caller's deadline.  With Spark's defaults a dead server costs
 * 50 + 200 + 800 + 3200 + 12800 + 51200 ms of waits before the seventh
 * attempt; with the 60 s limit the sixth wait is cut to end at 60 s.
 */
static void
test_limits(void)
{
	struct sc_retry_policy p;
	struct sc_retry_state st;
	int64_t silent = 0, d = -1, left;
	int n = 0;

	is_int(SC_RETRY_UNREACHABLE_MS, 60000, "unreachable limit 60 s");
	is_int(sc_retry_silence_left(-1, 60000), -1, "answered: no limit");
	is_int(sc_retry_silence_left(0, 60000), 60000, "silent 0: all of it");
	is_int(sc_retry_silence_left(59999, 60000), 1, "1 ms left");
	is_int(sc_retry_silence_left(60000, 60000), 0, "at the limit: 0");
	is_int(sc_retry_silence_left(90000, 60000), 0, "past it: 0");
	is_int(sc_retry_silence_left(5000, 0), -1, "limit 0: none");
	is_int(sc_retry_silence_left(5000, -1), -1, "limit -1: none");

	is_int(sc_retry_cap(800, -1), 800, "cap: no limit");
	is_int(sc_retry_cap(800, 800), 800, "cap: equal");
	is_int(sc_retry_cap(800, 300), 300, "cap: shortened");
	is_int(sc_retry_cap(800, 0), 0, "cap: nothing left");

	/* The dead server's sequence under the default limit. */
	sc_retry_policy_default(&p);
	p.jitter_ms = 0;
	sc_retry_state_init(&st, &p);
	for (;;) {
		if ((left = sc_retry_silence_left(silent, 60000)) == 0)
			break;
		d = sc_retry_cap(sc_retry_next_delay(&p, &st, -1, 0), left);
		silent += d;
		n++;
	}
	is_int(n, 6, "dead server: six waits");
	is_int(silent, 60000, "dead server: given up at exactly 60 s");
	is_int(d, 60000 - 50 - 200 - 800 - 3200 - 12800, "the last one cut");
}

int
main(void)
{
	test_defaults();
	test_sequence();
	test_server_delay();
	test_total_cap();
	test_classify();
	test_sleep();
	test_limits();
	return tap_done();
}
