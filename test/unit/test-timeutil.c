/* SPDX-License-Identifier: MIT */

/*
 * test-timeutil.c: deadlines and millisecond clocks.
 */

#include "core/timeutil.h"

#include <string.h>

#include "core/cli.h"
#include "core/xmem.h"

#include "tap.h"
#include "core/banned.h"

static void
test_clocks(void)
{
	struct timespec a, dl;
	int64_t m0, m1, r, left;

	sc_mono_now(&a);
	ok(a.tv_nsec >= 0 && a.tv_nsec < 1000000000L, "mono_now nsec range");
	m0 = sc_mono_ms();
	m1 = sc_mono_ms();
	ok(m1 >= m0, "mono_ms does not go back");
	r = sc_realtime_ms();
	ok(r > 1577836800000LL, "realtime_ms after 2020 (%lld)", (long long)r);

	sc_deadline_in_ms(&dl, 5000);
	ok(dl.tv_nsec >= 0 && dl.tv_nsec < 1000000000L,
	    "deadline nsec normalised");
	left = sc_ms_until(&dl);
	ok(left > 4900 && left <= 5000, "5 s deadline: %lld ms left",
	    (long long)left);

	sc_deadline_in_ms(&dl, 1);
	left = sc_ms_until(&dl);
	ok(left == 1 || left == 0, "1 ms deadline rounds up (%lld)",
	    (long long)left);

	sc_deadline_in_ms(&dl, -3000);
	left = sc_ms_until(&dl);
	ok(left <= -3000 && left > -3100, "past deadline negative (%lld)",
	    (long long)left);
	ok(dl.tv_nsec >= 0 && dl.tv_nsec < 1000000000L,
	    "past deadline nsec normalised");

	sc_deadline_in_ms(&dl, 999);
	ok(dl.tv_nsec >= 0 && dl.tv_nsec < 1000000000L,
	    "999 ms deadline nsec normalised");
	sc_deadline_in_ms(&dl, -1);
	ok(dl.tv_nsec >= 0 && dl.tv_nsec < 1000000000L,
	    "-1 ms deadline nsec normalised");

	sc_deadline_in_ms(&dl, INT64_MAX);
	left = sc_ms_until(&dl);
	ok(left > (int64_t)1 << 50, "INT64_MAX deadline saturates far ahead");
	sc_deadline_in_ms(&dl, INT64_MIN);
	left = sc_ms_until(&dl);
	ok(left < -((int64_t)1 << 50), "INT64_MIN deadline far behind");

	/* A deadline built by hand from sc_mono_now(). */
	sc_mono_now(&dl);
	dl.tv_sec += 10;
	left = sc_ms_until(&dl);
	ok(left > 9900 && left <= 10000, "10 s ahead: %lld", (long long)left);
}

/* Durations written as a command line reads them back. */
static void
test_format(void)
{
	static const struct {
		int64_t ms;
		const char *text;
	} t[] = {
		{ -5, "0ms" },
		{ 0, "0ms" },
		{ 250, "250ms" },
		{ 999, "999ms" },
		{ 1000, "1s" },
		{ 1500, "1.5s" },
		{ 1250, "1.25s" },
		{ 1001, "1.001s" },
		{ 30000, "30s" },
		{ 60000, "1m" },
		{ 90000, "1m30s" },
		{ 5400000, "1h30m" },
		{ 3600500, "1h0m0.5s" },
		{ 93784005, "1d2h3m4.005s" },
		{ INT64_MAX, "106751991167d7h12m55.807s" },
	};
	char buf[SC_DURATION_STRLEN];
	int64_t back;
	size_t i;

	for (i = 0; i < SC_NELEM(t); i++) {
		sc_duration_format(t[i].ms, buf);
		is_str(buf, t[i].text, "%lld ms", (long long)t[i].ms);
		if (t[i].ms >= 0)
			ok(sc_parse_cli_duration(buf, &back, NULL) == 0 &&
				back == t[i].ms,
			    "  reads back");
	}
}

int
main(void)
{
	test_format();
	test_clocks();
	return tap_done();
}
