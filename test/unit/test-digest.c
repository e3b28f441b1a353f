/* SPDX-License-Identifier: MIT */

/*
 * test-digest.c: digests, base64 and Spark's Murmur3 against the
 * values Spark's function reference documents.
 */

#include "core/digest.h"

#include <string.h>

#include "tap.h"
#include "core/banned.h"

static void
test_hex(void)
{
	char hex[SC_DIGEST_HEX_MAX];

	is_int(sc_digest_hex("md5", "Spark", 5, hex), 32, "md5: 32 digits");
	is_str(hex, "8cde774d6f7333752ed72cacddb05126", "md5('Spark')");
	is_int(sc_digest_hex("sha1", "Spark", 5, hex), 40, "sha1: 40 digits");
	is_str(hex, "85f5955f4b27a9a4c2aab6ffe5d7189fc298b92c",
	    "sha1('Spark')");
	is_int(sc_digest_hex("sha256", "Spark", 5, hex), 64,
	    "sha256: 64 digits");
	is_str(hex,
	    "529bc3b07127ecb7e53a4dcf1991d9152c24537d919178022b2c42657f79a26b",
	    "sha2('Spark', 256)");
	is_int(sc_digest_hex("sha512", "", 0, hex), 128, "sha512: 128 digits");
	is_int(sc_digest_hex("sha3", "x", 1, hex), -1, "an unknown alg fails");
}

static void
test_base64(void)
{
	char out[64];
	unsigned char raw[64];

	sc_digest_base64("Spark SQL", 9, out);
	is_str(out, "U3BhcmsgU1FM", "base64('Spark SQL')");
	is_int(sc_digest_base64_len(9), 12, "9 bytes are 12 characters");
	sc_digest_base64("ab", 2, out);
	is_str(out, "YWI=", "one pad character");
	sc_digest_base64("a", 1, out);
	is_str(out, "YQ==", "two pad characters");
	is_int(sc_digest_unbase64("U3BhcmsgU1FM", 12, raw), 9,
	    "unbase64: 9 bytes");
	ok(memcmp(raw, "Spark SQL", 9) == 0, "unbase64 gives the bytes back");
	is_int(sc_digest_unbase64("YQ", 2, raw), 1, "padding is optional");
	is_int(raw[0], 'a', "unpadded byte");
	is_int(sc_digest_unbase64("Y!==", 4, raw), -1, "a bad character");
	is_int(sc_digest_unbase64("Y", 1, raw), -1, "a lone character");
}

static void
test_murmur3(void)
{
	int32_t h;

	/* hash('Spark', array(123), 2): seed 42, each value seeds the next. */
	h = sc_murmur3_bytes("Spark", 5, 42);
	h = sc_murmur3_int(123, h);
	h = sc_murmur3_int(2, h);
	is_int(h, -1321691492, "hash('Spark', array(123), 2)");
	is_int(sc_murmur3_int(1, 42), -559580957, "hash(1)");
}

int
main(void)
{
	test_hex();
	test_base64();
	test_murmur3();
	return tap_done();
}
