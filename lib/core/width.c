/* SPDX-License-Identifier: MIT */

/*
 * width.c: UTF-8 sequences and terminal columns.  Widths come from
 * wcwidth() under a C.UTF-8 locale made once, so they do not depend on
 * the user's LANG (a table must line up in a C locale too); ASCII, the
 * common case, never gets that far.
 */

#include "core/width.h"

#include <locale.h>
#include <pthread.h>
#include <wchar.h>

#include "core/banned.h"

size_t
sc_utf8_len(const unsigned char *p, size_t n, uint32_t *cp)
{
	unsigned char lo = 0x80, hi = 0xbf;
	uint32_t v;
	size_t len, i;

	if (p[0] < 0x80) {
		if (cp != NULL)
			*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		v = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		v = p[0] & 0x0f;
		if (p[0] == 0xe0)
			lo = 0xa0;
		else if (p[0] == 0xed)
			hi = 0x9f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		v = p[0] & 0x07;
		if (p[0] == 0xf0)
			lo = 0x90;
		else if (p[0] == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (p[i] & 0x3f);
	}
	if (cp != NULL)
		*cp = v;
	return len;
}

size_t
sc_utf8_check(const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i = 0, len;

	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if ((len = sc_utf8_len(s + i, n - i, NULL)) == 0)
			return i;
		i += len;
	}
	return n;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static locale_t utf8_locale;

static void
make_locale(void)
{
	utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

int
sc_width_cp(uint32_t cp)
{
	locale_t old;
	int w;

	if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
		return 0;
	if (cp < 0x7f)
		return 1;
	pthread_once(&once, make_locale);
	if (utf8_locale == (locale_t)0)
		return 1;
	old = uselocale(utf8_locale);
	w = wcwidth((wchar_t)cp);
	uselocale(old);
	return w < 0 ? 1 : w;
}
