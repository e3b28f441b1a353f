/* SPDX-License-Identifier: MIT */

/*
 * digest.h: message digests (MD5, SHA-1, SHA-2) as lower-case hex,
 * base64 without line breaks, and the Murmur3 x86 32-bit hash in the
 * form Spark's hash() function computes it.
 */

#ifndef SC_DIGEST_H
#define SC_DIGEST_H

#include <stddef.h>
#include <stdint.h>

/* Hex digits of the longest digest (SHA-512) and a NUL. */
#define SC_DIGEST_HEX_MAX 129

/*
 * The digest of p[0..n) as lower-case hex into hex (SC_DIGEST_HEX_MAX
 * bytes), NUL-terminated.  alg is md5, sha1, sha224, sha256, sha384 or
 * sha512.  The number of hex digits, or -1 for another alg.
 */
int sc_digest_hex(const char *alg, const void *p, size_t n, char *hex);

/* Bytes base64 of n bytes takes, with padding, without the NUL. */
size_t sc_digest_base64_len(size_t n);

/* p[0..n) as base64 into out (sc_digest_base64_len(n) + 1 bytes). */
void sc_digest_base64(const void *p, size_t n, char *out);

/*
 * The bytes of base64 text s[0..n) into out (at least n bytes); their
 * number, or -1 if s is not base64 (padding optional, as Java's
 * decoder allows).
 */
long sc_digest_unbase64(const char *s, size_t n, unsigned char *out);

/*
 * Murmur3 x86 32-bit as Spark's hash() uses it: a 4-byte int, an 8-byte
 * long (low word first), and bytes, where a tail of 1..3 bytes is mixed
 * a byte at a time (each sign-extended), not as Murmur3's tail block.
 */
int32_t sc_murmur3_int(int32_t v, int32_t seed);
int32_t sc_murmur3_long(int64_t v, int32_t seed);
int32_t sc_murmur3_bytes(const void *p, size_t n, int32_t seed);

#endif
