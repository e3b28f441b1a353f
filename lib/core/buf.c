/* SPDX-License-Identifier: MIT */

/*
 * buf.c: bounded growable byte buffer.
 */

#include "core/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/xmem.h"
#include "core/banned.h"

static uint8_t empty[1];

void
sc_buf_init(struct sc_buf *b, size_t max)
{
	b->data = empty;
	b->len = 0;
	b->cap = 0;
	b->max = max;
	b->failed = false;
}

void
sc_buf_release(struct sc_buf *b)
{
	if (b->cap)
		free(b->data);
	b->data = empty;
	b->len = b->cap = 0;
	b->failed = false;
}

void
sc_buf_reset(struct sc_buf *b)
{
	b->len = 0;
	if (b->cap)
		b->data[0] = '\0';
	b->failed = false;
}

/*
 * Free the contents and stay failed: a caller that ignores one result
 * must not go on to build text that lost its front.
 */
static void
fail(struct sc_buf *b)
{
	sc_buf_release(b);
	b->failed = true;
}

int
sc_buf_grow(struct sc_buf *b, size_t n, struct sc_error *err)
{
	size_t want, ncap;

	if (b->failed || n > b->max || b->len > b->max - n) {
		fail(b);
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "data exceeds the limit of %zu bytes", b->max);
	}
	want = b->len + n + 1;
	if (want <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : 64;
	while (ncap < want)
		ncap = ncap < SIZE_MAX / 2 ? ncap * 2 : want;
	if (b->cap == 0) {
		b->data = sc_xmalloc(ncap);
		b->data[0] = '\0';
	} else
		b->data = sc_xrealloc(b->data, ncap);
	b->cap = ncap;
	return 0;
}

int
sc_buf_add(struct sc_buf *b, const void *p, size_t n, struct sc_error *err)
{
	if (sc_buf_grow(b, n, err) == -1)
		return -1;
	if (n) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
	}
	if (b->cap)
		b->data[b->len] = '\0';
	return 0;
}

int
sc_buf_addstr(struct sc_buf *b, const char *s, struct sc_error *err)
{
	return sc_buf_add(b, s, strlen(s), err);
}

int
sc_buf_addch(struct sc_buf *b, int c, struct sc_error *err)
{
	uint8_t ch = (uint8_t)c;

	return sc_buf_add(b, &ch, 1, err);
}

int
sc_buf_vaddf(struct sc_buf *b, struct sc_error *err, const char *fmt,
    va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0) {
		fail(b);
		return sc_error_set(err, SC_ST_INTERNAL, "bad format string");
	}
	if (sc_buf_grow(b, (size_t)n, err) == -1)
		return -1;
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int
sc_buf_addf(struct sc_buf *b, struct sc_error *err, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = sc_buf_vaddf(b, err, fmt, ap);
	va_end(ap);
	return rc;
}

void
sc_buf_setlen(struct sc_buf *b, size_t n)
{
	if (b->cap == 0 ? n != 0 : n >= b->cap)
		SC_BUG("sc_buf_setlen beyond allocation");
	b->len = n;
	if (b->cap)
		b->data[n] = '\0';
}

uint8_t *
sc_buf_detach(struct sc_buf *b, size_t *lenp)
{
	uint8_t *p;

	if (b->cap == 0)
		p = sc_xcalloc(1, 1);
	else
		p = b->data;
	if (lenp)
		*lenp = b->len;
	b->data = empty;
	b->len = b->cap = 0;
	b->failed = false;
	return p;
}
