/* SPDX-License-Identifier: MIT */

/*
 * xmem.h: allocation that cannot fail.
 *
 * On allocation failure these print "sc: out of memory (N bytes)" to
 * stderr and abort; this is the one exception to "lib/ never prints".
 * Everything they return is freed with free().
 */

#ifndef SC_XMEM_H
#define SC_XMEM_H

#include <stddef.h>
#include <stdlib.h>

void *sc_xmalloc(size_t n);
void *sc_xcalloc(size_t nmemb, size_t size);
void *sc_xrealloc(void *p, size_t n);
void *sc_xreallocarray(void *p, size_t nmemb, size_t size);
char *sc_xstrdup(const char *s);
char *sc_xstrndup(const char *s, size_t n);
void *sc_xmemdup(const void *p, size_t n);
char *sc_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Free and set to NULL. */
#define SC_FREE(p)          \
	do {                \
		free(p);    \
		(p) = NULL; \
	} while (0)

/* Internal invariant broken: print file:line and the message, abort. */
#define SC_BUG(...) sc_bug_fl(__FILE__, __LINE__, __VA_ARGS__)
void sc_bug_fl(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

#define SC_NELEM(a) (sizeof(a) / sizeof((a)[0]))

#endif
