/* SPDX-License-Identifier: MIT */

/*
 * hex.h: reading hexadecimal digits, the one reader every parser uses
 * (percent-escapes in sc:// addresses and artifact names, UUIDs, X'..'
 * literals and \u escapes in SQL text, the engine's unhex()).
 */

#ifndef SC_HEX_H
#define SC_HEX_H

#include <stddef.h>
#include <stdint.h>

/* The value 0..15 of the hex digit c (either case), or -1 if c is none. */
int sc_hex_digit(int c);

/*
 * Decode the 2 * n hex digits at s into n bytes at out.  0, or -1 if
 * one of them is not a hex digit (out holds the bytes before it then).
 */
int sc_hex_decode(const char *s, size_t n, uint8_t *out);

#endif
