/* SPDX-License-Identifier: MIT */

/* hex.c: hexadecimal digits (hex.h). */

#include "core/hex.h"

#include "core/banned.h"

int
sc_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
sc_hex_decode(const char *s, size_t n, uint8_t *out)
{
	size_t i;
	int hi, lo;

	for (i = 0; i < n; i++) {
		hi = sc_hex_digit((unsigned char)s[2 * i]);
		lo = sc_hex_digit((unsigned char)s[2 * i + 1]);
		if (hi == -1 || lo == -1)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}
