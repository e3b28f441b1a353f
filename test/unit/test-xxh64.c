/* SPDX-License-Identifier: MIT */

/*
 * test-xxh64.c: XXH64 against its known answers, Spark's xxhash64
 * chaining of its documented example, and HyperLogLog++ estimates in
 * the linear counting range.
 */

#include "engine/func/engine_hll.h"

#include <string.h>

#include "tap.h"
#include "core/banned.h"

static void
test_known(void)
{
	const char *s = "Nobody inspects the spammish repetition";

	ok(sc_eng_xxh64("", 0, 0) == UINT64_C(0xEF46DB3751D8E999),
	    "XXH64 of nothing, seed 0");
	ok(sc_eng_xxh64("a", 1, 0) == UINT64_C(0xD24EC4F1A98C6E5B),
	    "XXH64('a')");
	ok(sc_eng_xxh64("abc", 3, 0) == UINT64_C(0x44BC2CF5AD770999),
	    "XXH64('abc')");
	ok(sc_eng_xxh64(s, strlen(s), 0) == UINT64_C(0xFBCEA83C8A378BF1),
	    "XXH64 of 39 bytes (the 32-byte stripes)");
}

static void
test_spark(void)
{
	/* xxhash64('Spark', array(123), 2) = 5602566077635097486 */
	uint64_t h = sc_eng_xxh64("Spark", 5, 42);

	h = sc_eng_xxh64_int(123, h);
	h = sc_eng_xxh64_int(2, h);
	ok((int64_t)h == INT64_C(5602566077635097486),
	    "Spark's documented xxhash64 example");
}

static void
test_hll(void)
{
	uint8_t reg[512];
	int64_t est = -1;

	is_int(sc_eng_hll_precision(0.05), 9, "rsd 0.05: p 9");
	is_int(sc_eng_hll_precision(0.01), 14, "rsd 0.01: p 14");
	is_int(sc_eng_hll_precision(0.4), 3, "rsd 0.4: p 3");
	memset(reg, 0, sizeof(reg));
	is_int(sc_eng_hll_estimate(reg, 9, &est), 0, "empty registers");
	is_int((int)est, 0, "no values: 0");
	reg[7] = 1;
	reg[300] = 2;
	is_int(sc_eng_hll_estimate(reg, 9, &est), 0, "two registers");
	/* 512 ln(512/510) = 2.0039 */
	is_int((int)est, 2, "linear counting: 2");
	memset(reg, 1, sizeof(reg));
	is_int(sc_eng_hll_estimate(reg, 9, &est), 0, "every register 1");
	/* E = alpha m^2 / (m/2) = 737.058; its bias 137.3334 (the mean of
	 * six neighbours in Spark's table): 599.72 rounds to 600 */
	is_int((int)est, 600, "bias-corrected estimate: 600");
}

int
main(void)
{
	test_known();
	test_spark();
	test_hll();
	return tap_done();
}
