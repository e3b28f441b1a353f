/* SPDX-License-Identifier: MIT */

/*
 * width.h: UTF-8 sequences and how many terminal columns text takes.
 *
 * UTF-8 is checked as RFC 3629 defines it: no overlong forms, no
 * surrogates, nothing above U+10FFFF.  Widths are those of the C
 * library's wcwidth() in the C.UTF-8 locale, whatever the process's
 * locale: 2 for East Asian wide and full-width characters and most
 * emoji, 0 for combining marks and other zero-width characters, 1 for
 * the rest.  Control characters have no width of their own: callers
 * escape them first.
 */

#ifndef SC_WIDTH_H
#define SC_WIDTH_H

#include <stddef.h>
#include <stdint.h>

/*
 * Length of the valid UTF-8 sequence at p (n bytes available, n > 0),
 * or 0 if the byte at p does not begin one.  If cp is not NULL, the
 * code point goes there.
 */
size_t sc_utf8_len(const unsigned char *p, size_t n, uint32_t *cp);

/*
 * The offset of the first byte of p[0..n) that is not part of a valid
 * UTF-8 sequence, or n when all of it is valid.
 */
size_t sc_utf8_check(const void *p, size_t n);

/* Columns code point cp takes: 0, 1 or 2 (a control: 0). */
int sc_width_cp(uint32_t cp);

#endif
