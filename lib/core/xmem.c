/* SPDX-License-Identifier: MIT */

/*
 * xmem.c: allocation wrappers that abort on failure, and SC_BUG().
 */

#include "core/xmem.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/banned.h"

static void __attribute__((noreturn)) oom(size_t n)
{
	fprintf(stderr, "sc: out of memory (%zu bytes)\n", n);
	abort();
}

void *
sc_xmalloc(size_t n)
{
	void *p;

	if ((p = malloc(n ? n : 1)) == NULL)
		oom(n);
	return p;
}

void *
sc_xcalloc(size_t nmemb, size_t size)
{
	void *p;

	if ((p = calloc(nmemb ? nmemb : 1, size ? size : 1)) == NULL)
		oom(nmemb * size);
	return p;
}

void *
sc_xrealloc(void *p, size_t n)
{
	void *q;

	if ((q = realloc(p, n ? n : 1)) == NULL)
		oom(n);
	return q;
}

void *
sc_xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size != 0 && nmemb > SIZE_MAX / size)
		oom(SIZE_MAX);
	return sc_xrealloc(p, nmemb * size);
}

char *
sc_xstrdup(const char *s)
{
	return sc_xmemdup(s, strlen(s) + 1);
}

char *
sc_xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = sc_xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void *
sc_xmemdup(const void *p, size_t n)
{
	void *q = sc_xmalloc(n);

	if (n)
		memcpy(q, p, n);
	return q;
}

char *
sc_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(strlen(fmt));
	return s;
}

void
sc_bug_fl(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
