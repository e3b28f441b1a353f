/* SPDX-License-Identifier: MIT */

/*
 * bench.h: the few helpers every benchmark tool shares.  Include it
 * after defining BENCH_PROG (the program name) and usage_text.
 */

#ifndef SC_BENCH_H
#define SC_BENCH_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void __attribute__((noreturn, unused)) usage(void)
{
	fputs(usage_text, stderr);
	exit(2);
}

static void __attribute__((noreturn, format(printf, 1, 2), unused))
die(const char *fmt, ...)
{
	va_list ap;

	fputs(BENCH_PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* A decimal operand no larger than max, or die naming what it is. */
static uint64_t __attribute__((unused))
num_arg(const char *s, const char *what, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v > max)
		die("invalid %s '%s'", what, s);
	return v;
}

/* Monotonic seconds. */
static double __attribute__((unused)) now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wall-clock seconds (the clock clients started together agree on). */
static double __attribute__((unused)) real_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * A --start-at operand: milliseconds since the epoch, as seconds.
 * Clients a benchmark starts together each sleep until then
 * (wait_until()), once their channel is set up, so process start-up
 * does not count and they begin at one moment.
 */
static double __attribute__((unused)) start_at_arg(const char *s)
{
	return (double)num_arg(s, "start time", UINT32_MAX * 1000ULL) / 1000.0;
}

/* Sleep until wall-clock time t (seconds), if it is ahead; 0: now. */
static void __attribute__((unused)) wait_until(double t)
{
	struct timespec ts;
	double w;

	if (t <= 0 || (w = t - real_s()) <= 0)
		return;
	ts.tv_sec = (time_t)w;
	ts.tv_nsec = (long)((w - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/* qsort() comparison for doubles. */
static int __attribute__((unused)) cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The p-th percentile (0..100) of sorted v[0..n-1], nearest rank. */
static double __attribute__((unused))
percentile(const double *v, size_t n, double p)
{
	size_t k;

	k = (size_t)(p / 100.0 * (double)n + 0.999999);
	if (k == 0)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

#endif
