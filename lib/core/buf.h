/* SPDX-License-Identifier: MIT */

/*
 * buf.h: bounded growable byte buffer.
 *
 * Invariants (as git's strbuf): after sc_buf_init() data is never NULL
 * and always NUL-terminated (the NUL is not counted in len); len <= max.
 * sc_buf_detach() is the only way to take ownership of the bytes.
 *
 * An append that would exceed max fails with -1 and frees the contents,
 * so input from a peer can never make it grow without bound (curl's
 * dynbuf).  The failure is sticky: every later append and grow fails
 * too, until sc_buf_reset(), sc_buf_release() or sc_buf_detach().  So a
 * builder that appends many pieces may check only some results (or only
 * the last) and still never hold text that silently lost its front.
 */

#ifndef SC_BUF_H
#define SC_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_error;

struct sc_buf {
	uint8_t *data; /* never NULL after init; NUL-terminated */
	size_t len; /* bytes used, excluding the NUL */
	size_t cap; /* bytes allocated (0 while data is the static empty) */
	size_t max; /* hard limit on len */
	bool failed; /* an append failed; cleared by reset/release/detach */
};

#define SC_BUF_UNLIMITED ((size_t)-1 / 2)

/* Make b empty with limit max; allocates nothing. */
void sc_buf_init(struct sc_buf *b, size_t max);
/* Free the contents; b must be re-initialised before reuse. */
void sc_buf_release(struct sc_buf *b);
/* Empty b, keeping its allocation and limit; clears a failure. */
void sc_buf_reset(struct sc_buf *b);
/*
 * Ensure room for n more bytes.  0, or -1 (SC_ST_PROTOCOL) if over max
 * or b has failed before (b emptied and failed).
 */
int sc_buf_grow(struct sc_buf *b, size_t n, struct sc_error *err);
/* Append n bytes.  0, or -1 as sc_buf_grow(). */
int sc_buf_add(struct sc_buf *b, const void *p, size_t n, struct sc_error *err);
int sc_buf_addstr(struct sc_buf *b, const char *s, struct sc_error *err);
int sc_buf_addch(struct sc_buf *b, int c, struct sc_error *err);
int sc_buf_addf(struct sc_buf *b, struct sc_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int sc_buf_vaddf(struct sc_buf *b, struct sc_error *err, const char *fmt,
    va_list ap) __attribute__((format(printf, 3, 0)));
/* Set len (n <= len, or n <= cap - 1 after sc_buf_grow), keep the NUL. */
void sc_buf_setlen(struct sc_buf *b, size_t n);
/*
 * Take the bytes: returns a malloc'ed NUL-terminated buffer (free()), and
 * stores its length in *lenp if lenp is not NULL; b becomes empty (and
 * no longer failed).
 */
uint8_t *sc_buf_detach(struct sc_buf *b, size_t *lenp);

#endif
