/* SPDX-License-Identifier: MIT */

/*
 * test-timeutil.c: deadlines and millisecond clocks.
 */

#include "core/timeutil.h"

#include <string.h>

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

int
main(void)
{
	test_clocks();
	return tap_done();
}
