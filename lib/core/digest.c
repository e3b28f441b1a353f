/* SPDX-License-Identifier: MIT */

/*
 * digest.c: digests through libcrypto's EVP interface, base64, and
 * Spark's Murmur3 (see digest.h).
 */

#include "core/digest.h"

#include <string.h>

#include <openssl/evp.h>

#include "core/banned.h"

int
sc_digest_hex(const char *alg, const void *p, size_t n, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0, i;
	const EVP_MD *type;

	if (strcmp(alg, "md5") == 0)
		type = EVP_md5();
	else if (strcmp(alg, "sha1") == 0)
		type = EVP_sha1();
	else if (strcmp(alg, "sha224") == 0)
		type = EVP_sha224();
	else if (strcmp(alg, "sha256") == 0)
		type = EVP_sha256();
	else if (strcmp(alg, "sha384") == 0)
		type = EVP_sha384();
	else if (strcmp(alg, "sha512") == 0)
		type = EVP_sha512();
	else
		return -1;
	if (EVP_Digest(p, n, md, &len, type, NULL) != 1)
		return -1;
	for (i = 0; i < len; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[2 * len] = '\0';
	return (int)(2 * len);
}

size_t
sc_digest_base64_len(size_t n)
{
	return (n + 2) / 3 * 4;
}

void
sc_digest_base64(const void *p, size_t n, char *out)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *s = p;
	size_t i, k = 0;
	uint32_t v;

	for (i = 0; i + 2 < n; i += 3) {
		v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
		out[k++] = tab[v >> 18];
		out[k++] = tab[v >> 12 & 63];
		out[k++] = tab[v >> 6 & 63];
		out[k++] = tab[v & 63];
	}
	if (i < n) {
		v = (uint32_t)s[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)s[i + 1] << 8;
		out[k++] = tab[v >> 18];
		out[k++] = tab[v >> 12 & 63];
		out[k++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
		out[k++] = '=';
	}
	out[k] = '\0';
}

static int
b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

long
sc_digest_unbase64(const char *s, size_t n, unsigned char *out)
{
	uint32_t acc = 0;
	size_t i, bits = 0, k = 0, pad = 0;
	int v;

	while (n > 0 && s[n - 1] == '=' && pad < 2) {
		n--;
		pad++;
	}
	if (n % 4 == 1 || (pad > 0 && (n + pad) % 4 != 0))
		return -1;
	for (i = 0; i < n; i++) {
		v = b64val((unsigned char)s[i]);
		if (v < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[k++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	return (long)k;
}

/* ---- Murmur3 x86 32 ------------------------------------------------ */

static uint32_t
rotl(uint32_t x, int r)
{
	return x << r | x >> (32 - r);
}

static uint32_t
mix_k1(uint32_t k1)
{
	k1 *= 0xcc9e2d51u;
	k1 = rotl(k1, 15);
	return k1 * 0x1b873593u;
}

static uint32_t
mix_h1(uint32_t h1, uint32_t k1)
{
	h1 ^= k1;
	h1 = rotl(h1, 13);
	return h1 * 5 + 0xe6546b64u;
}

static int32_t
fmix(uint32_t h1, uint32_t len)
{
	h1 ^= len;
	h1 ^= h1 >> 16;
	h1 *= 0x85ebca6bu;
	h1 ^= h1 >> 13;
	h1 *= 0xc2b2ae35u;
	h1 ^= h1 >> 16;
	return (int32_t)h1;
}

int32_t
sc_murmur3_int(int32_t v, int32_t seed)
{
	return fmix(mix_h1((uint32_t)seed, mix_k1((uint32_t)v)), 4);
}

int32_t
sc_murmur3_long(int64_t v, int32_t seed)
{
	uint64_t u = (uint64_t)v;
	uint32_t h1;

	h1 = mix_h1((uint32_t)seed, mix_k1((uint32_t)u));
	h1 = mix_h1(h1, mix_k1((uint32_t)(u >> 32)));
	return fmix(h1, 8);
}

int32_t
sc_murmur3_bytes(const void *p, size_t n, int32_t seed)
{
	const unsigned char *s = p;
	uint32_t h1 = (uint32_t)seed, w;
	size_t i, aligned = n - n % 4;

	for (i = 0; i < aligned; i += 4) {
		w = (uint32_t)s[i] | (uint32_t)s[i + 1] << 8 |
		    (uint32_t)s[i + 2] << 16 | (uint32_t)s[i + 3] << 24;
		h1 = mix_h1(h1, mix_k1(w));
	}
	for (; i < n; i++)
		h1 = mix_h1(h1, mix_k1((uint32_t)(int32_t)(signed char)s[i]));
	return fmix(h1, (uint32_t)n);
}
