/* SPDX-License-Identifier: MIT */

/*
 * test-hex.c: the one hex-digit reader (hex.h).
 */

#include "core/hex.h"

#include <string.h>

#include "tap.h"
#include "core/banned.h"

static void
test_digit(void)
{
	static const char digits[] = "0123456789abcdef";
	int c, want, bad = 0;

	for (c = -1; c < 256; c++) {
		const char *p = c > 0
		    ? strchr(digits, c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c)
		    : NULL;

		want = p != NULL ? (int)(p - digits) : -1;
		if (sc_hex_digit(c) != want)
			bad++;
	}
	is_int(bad, 0, "digit: every byte and EOF, either case");
	is_int(sc_hex_digit('F'), 15, "digit: F is 15");
	is_int(sc_hex_digit('g'), -1, "digit: g is none");
}

static void
test_decode(void)
{
	uint8_t out[4] = { 0 };

	is_int(sc_hex_decode("00aFff7e", 4, out), 0, "decode: 4 bytes");
	is_mem(out, 4, "\x00\xaf\xff\x7e", 4, "decode: the bytes");
	memset(out, 0, sizeof(out));
	is_int(sc_hex_decode("01x2", 2, out), -1, "decode: x refused");
	is_int(out[0], 1, "decode: the byte before the bad digit is kept");
	is_int(sc_hex_decode("", 0, out), 0, "decode: no bytes");
	is_int(sc_hex_decode("1\0", 1, out), -1, "decode: a NUL refused");
}

int
main(void)
{
	test_digit();
	test_decode();
	return tap_done();
}
