/* SPDX-License-Identifier: MIT */

/*
 * tap.h: minimal TAP output for the C unit tests.
 *
 * ok(cond, "name") prints "ok N - name" or "not ok N - name" with the
 * location; is_int/is_str/is_mem compare and show both values on failure.
 * End main() with "return tap_done();", which prints the plan and returns
 * non-zero if any test failed.
 */

#ifndef SC_TAP_H
#define SC_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static void __attribute__((format(printf, 4, 5)))
tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass)
		printf("#   failed at %s:%d\n", file, line);
	fflush(stdout);
}

#define is_int(got, want, ...)                                           \
	do {                                                             \
		long long g_ = (long long)(got), w_ = (long long)(want); \
		ok(g_ == w_, __VA_ARGS__);                               \
		if (g_ != w_)                                            \
			printf("#   got %lld, want %lld\n", g_, w_);     \
	} while (0)

#define is_str(got, want, ...)                                         \
	do {                                                           \
		const char *g_ = (got), *w_ = (want);                  \
		int eq_ = (g_ == NULL && w_ == NULL) ||                \
		    (g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0); \
		ok(eq_, __VA_ARGS__);                                  \
		if (!eq_)                                              \
			printf("#   got '%s', want '%s'\n",            \
			    g_ ? g_ : "(null)", w_ ? w_ : "(null)");   \
	} while (0)

#define is_mem(got, gotlen, want, wantlen, ...)                         \
	do {                                                            \
		size_t gl_ = (gotlen), wl_ = (wantlen);                 \
		ok(gl_ == wl_ && memcmp((got), (want), gl_) == 0,       \
		    __VA_ARGS__);                                       \
		if (gl_ != wl_)                                         \
			printf("#   length %zu, want %zu\n", gl_, wl_); \
	} while (0)

/*
 * A template for mkstemp()/mkdtemp(): "/tmp/<prefix>" and the six
 * placeholder characters they replace.
 */
static inline void
tap_template(char *buf, size_t n, const char *prefix)
{
	size_t len, i;

	snprintf(buf, n, "/tmp/%s", prefix);
	len = strlen(buf);
	for (i = 0; i < 6 && len + 1 < n; i++)
		buf[len++] = 'X';
	buf[len] = '\0';
}

static int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
