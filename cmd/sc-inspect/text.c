/* SPDX-License-Identifier: MIT */

/*
 * text.c: text on a terminal, by columns rather than bytes, in the
 * locale the terminal uses (wide characters take two columns, combining
 * marks none), and whether the reader of standard output has gone.
 */

#include "sc-inspect.h"

#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "core/buf.h"
#include "core/banned.h"

/*
 * The next character of s (n bytes): its length in bytes and its width
 * in columns; a control character or an invalid byte is one byte shown
 * as '?' (*bad set).
 */
static size_t
next_char(const char *s, size_t n, int *width, bool *bad)
{
	mbstate_t st;
	wchar_t wc;
	size_t len;
	int w;

	*bad = false;
	if ((unsigned char)s[0] >= 0x20 && (unsigned char)s[0] < 0x7f) {
		*width = 1;
		return 1;
	}
	memset(&st, 0, sizeof(st));
	len = mbrtowc(&wc, s, n, &st);
	if (len == (size_t)-1 || len == (size_t)-2 || len == 0 ||
	    (w = wcwidth(wc)) < 0) {
		*bad = true;
		*width = 1;
		return 1;
	}
	*width = w;
	return len;
}

size_t
text_width(const char *s)
{
	size_t n = strlen(s), i, len, w = 0;
	int cw;
	bool bad;

	for (i = 0; i < n; i += len) {
		len = next_char(s + i, n - i, &cw, &bad);
		w += (size_t)cw;
	}
	return w;
}

void
text_fit(struct sc_buf *b, const char *s, size_t width, bool pad, bool right)
{
	size_t n = strlen(s), i, len, w = 0, start = b->len, k;
	int cw;
	bool bad;

	for (i = 0; i < n; i += len) {
		len = next_char(s + i, n - i, &cw, &bad);
		if (w + (size_t)cw > width)
			break;
		if (bad)
			(void)sc_buf_addch(b, '?', NULL);
		else
			(void)sc_buf_add(b, s + i, len, NULL);
		w += (size_t)cw;
	}
	if (!pad || w >= width)
		return;
	if (!right) {
		for (k = w; k < width; k++)
			(void)sc_buf_addch(b, ' ', NULL);
		return;
	}
	/* Move the text right: pad at the front. */
	len = b->len - start;
	for (k = w; k < width; k++)
		(void)sc_buf_addch(b, ' ', NULL);
	if (b->failed)
		return;
	memmove(b->data + start + (width - w), b->data + start, len);
	memset(b->data + start, ' ', width - w);
}

bool
stdout_gone(void)
{
	struct pollfd p;

	p.fd = STDOUT_FILENO;
	p.events = 0;
	p.revents = 0;
	/* A pipe whose reader closed reports POLLERR on its write end. */
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}
