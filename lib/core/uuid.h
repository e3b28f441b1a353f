/* SPDX-License-Identifier: MIT */

/*
 * uuid.h: random (version 4) UUIDs and their textual form.
 *
 * The canonical form is 36 characters, 8-4-4-4-12 hexadecimal digits
 * separated by '-'; sctk writes lower case and accepts either case.
 */

#ifndef SC_UUID_H
#define SC_UUID_H

#include <stdbool.h>
#include <stdint.h>

struct sc_error;

/* Buffer size for a UUID string including its NUL. */
#define SC_UUID_STRLEN 37

/*
 * Write a new random UUID (version 4, RFC 4122 variant) in lower case
 * into out, from the kernel CSPRNG (getrandom(2)).  0, or -1 with err
 * set (SC_ST_INTERNAL and errno) if no random bytes could be read; out is
 * untouched then.
 */
int sc_uuid_v4(char out[SC_UUID_STRLEN], struct sc_error *err);

/*
 * Whether s is exactly 36 characters in canonical 8-4-4-4-12 form (hex
 * digits of either case).  Any version and variant are accepted.
 * s may be NULL (false).
 */
bool sc_uuid_valid(const char *s);

/*
 * The 16 bytes of the canonical UUID s (as sc_uuid_valid() checks it)
 * into out: true, or false if s is not one (out is undefined then).
 */
bool sc_uuid_parse(const char *s, uint8_t out[16]);

/* Lower-case the hex digits of s in place (s is NUL-terminated). */
void sc_uuid_lower(char *s);

#endif
