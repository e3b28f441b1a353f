/* SPDX-License-Identifier: MIT */

/*
 * engine_hll.h: XXH64 and Spark's HyperLogLog++ (approx_count_distinct)
 * for the engine.
 */

#ifndef SC_ENGINE_HLL_H
#define SC_ENGINE_HLL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* XXH64 of p[0..n) with seed, as its specification defines it. */
uint64_t sc_eng_xxh64(const void *p, size_t n, uint64_t seed);
/* Spark's XxHash64 of a 4-byte int and an 8-byte long (little endian). */
uint64_t sc_eng_xxh64_int(int32_t v, uint64_t seed);
uint64_t sc_eng_xxh64_long(int64_t v, uint64_t seed);

/*
 * The precision HLL++ uses for relative standard deviation rsd:
 * ceil(2 log2(1.106 / rsd)), as Spark computes it (may be < 4).
 */
int sc_eng_hll_precision(double rsd);

/*
 * Spark's estimate from registers reg[0..2^p): 0, or -1 when the
 * estimate needs a bias correction table sc-serve does not hold.
 */
int sc_eng_hll_estimate(const uint8_t *reg, int p, int64_t *out);

/* Registers sc_hll(value, tag, p), the aggregate: SQLite's rc. */
int sc_eng_hll_register(sqlite3 *db);

#endif
