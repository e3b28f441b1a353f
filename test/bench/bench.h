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
