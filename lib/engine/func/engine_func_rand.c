/* SPDX-License-Identifier: MIT */

/*
 * engine_func_rand.c: rand(seed) and randn(seed) with Spark's numbers.
 *
 * Spark draws them from an XORShiftRandom per partition, seeded with
 * seed + the partition's index; sc-serve computes a result as one
 * partition (index 0), so its numbers are those Spark gives for a
 * one-partition plan (spark.range(0, n, 1, 1)), in input order.
 *
 * The generator: the 64-bit seed is first spread by MurmurHash3 (the
 * 32-bit x86 variant over the seed's 8 big-endian bytes, once with the
 * seed 0x3c074a61 for the low word and once with that result for the
 * high word); each step is x ^= x << 21; x ^= x >>> 35; x ^= x << 4, and
 * next(bits) is the step's low bits.  A double is (next(26) << 27 +
 * next(27)) / 2^53, and a Gaussian is Marsaglia's polar method over two
 * doubles, the second value of each pair kept for the next call, as
 * java.util.Random does.
 */

#include "engine/engine_int.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/banned.h"

struct xorshift {
	uint64_t x;
	bool have_next; /* randn: the second value of a pair */
	double next_gaussian;
};

static uint32_t
rotl32(uint32_t v, int r)
{
	return (v << r) | (v >> (32 - r));
}

static uint32_t
mm3_k(uint32_t k)
{
	k *= 0xcc9e2d51u;
	k = rotl32(k, 15);
	return k * 0x1b873593u;
}

/* MurmurHash3 x86 32 of 8 bytes (two whole blocks, no tail). */
static uint32_t
mm3_8(const uint8_t b[8], uint32_t h)
{
	int i;

	for (i = 0; i < 8; i += 4) {
		uint32_t k = (uint32_t)b[i] | (uint32_t)b[i + 1] << 8 |
		    (uint32_t)b[i + 2] << 16 | (uint32_t)b[i + 3] << 24;

		h ^= mm3_k(k);
		h = rotl32(h, 13);
		h = h * 5 + 0xe6546b64u;
	}
	h ^= 8;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static void
xs_init(struct xorshift *r, int64_t seed)
{
	uint8_t b[8];
	uint32_t lo, hi;
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)((uint64_t)seed >> (56 - 8 * i));
	lo = mm3_8(b, 0x3c074a61u);
	hi = mm3_8(b, lo);
	r->x = (uint64_t)hi << 32 | lo;
	r->have_next = false;
}

static uint64_t
xs_next(struct xorshift *r, int bits)
{
	uint64_t x = r->x;

	x ^= x << 21;
	x ^= x >> 35;
	x ^= x << 4;
	r->x = x;
	return x & ((UINT64_C(1) << bits) - 1);
}

static double
xs_double(struct xorshift *r)
{
	uint64_t hi = xs_next(r, 26);

	return (double)((hi << 27) + xs_next(r, 27)) * 0x1.0p-53;
}

static double
xs_gaussian(struct xorshift *r)
{
	double v1, v2, s, m;

	if (r->have_next) {
		r->have_next = false;
		return r->next_gaussian;
	}
	do {
		v1 = 2 * xs_double(r) - 1;
		v2 = 2 * xs_double(r) - 1;
		s = v1 * v1 + v2 * v2;
	} while (s >= 1 || s == 0);
	m = sqrt(-2 * log(s) / s);
	r->next_gaussian = v2 * m;
	r->have_next = true;
	return v1 * m;
}

/*
 * sc_rand(seed, gaussian): the next number of this call site's
 * generator (its state lives as long as the statement runs); a NULL
 * seed is 0, as in Spark.
 */
static void
rand_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct xorshift *r = sqlite3_get_auxdata(ctx, 0);

	(void)argc;
	if (r == NULL) {
		if ((r = sqlite3_malloc(sizeof(*r))) == NULL) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
		xs_init(r, sqlite3_value_int64(argv[0]));
		sqlite3_set_auxdata(ctx, 0, r, sqlite3_free);
		if ((r = sqlite3_get_auxdata(ctx, 0)) == NULL) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
	}
	sqlite3_result_double(ctx,
	    sqlite3_value_int(argv[1]) != 0 ? xs_gaussian(r) : xs_double(r));
}

int
sc_eng_func_rand_register(sqlite3 *db)
{
	/* Not deterministic: SQLite must call it once a row. */
	return sqlite3_create_function_v2(db, "sc_rand", 2, SQLITE_UTF8, NULL,
	    rand_fn, NULL, NULL, NULL);
}
