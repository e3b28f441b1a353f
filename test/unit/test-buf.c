/* SPDX-License-Identifier: MIT */

/*
 * test-buf.c: struct sc_buf invariants, the maximum size and its
 * self-freeing, sticky failure, and the sc_x* allocation helpers.
 */

#include "core/buf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

/* The strbuf invariants, checked after every operation. */
static void
invariants(const struct sc_buf *b, const char *name)
{
	ok(b->data != NULL && b->data[b->len] == '\0' && b->len <= b->max &&
		(b->cap == 0 ? b->len == 0 : b->len < b->cap),
	    "%s: data non-NULL, NUL-terminated, len <= max, len < cap", name);
}

static int
vaddf_helper(struct sc_buf *b, struct sc_error *err, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = sc_buf_vaddf(b, err, fmt, ap);
	va_end(ap);
	return rc;
}

static void
test_basic(void)
{
	struct sc_buf b;
	struct sc_error err;
	size_t i;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	invariants(&b, "init");
	is_int(b.len, 0, "init: empty");
	is_int(b.cap, 0, "init: nothing allocated");
	is_str((char *)b.data, "", "init: data is \"\"");

	is_int(sc_buf_addstr(&b, "hello", &err), 0, "addstr");
	is_int(sc_buf_addch(&b, ' ', &err), 0, "addch");
	is_int(sc_buf_add(&b, "world!!", 5, &err), 0, "add 5 of 7");
	is_int(sc_buf_addf(&b, &err, " %d-%s", 42, "x"), 0, "addf");
	is_int(vaddf_helper(&b, &err, "%c%c", 'y', 'z'), 0, "vaddf");
	invariants(&b, "appends");
	is_str((char *)b.data, "hello world 42-xyz", "contents");
	is_int(b.len, 18, "len 18");

	is_int(sc_buf_add(&b, "a\0b", 3, &err), 0, "add with a NUL");
	is_int(b.len, 21, "len counts the NUL byte");
	is_mem(b.data + 18, 3, "a\0b", 3, "embedded NUL kept");
	invariants(&b, "embedded NUL");

	is_int(sc_buf_add(&b, NULL, 0, &err), 0, "add nothing");
	is_int(b.len, 21, "add nothing: len unchanged");

	sc_buf_reset(&b);
	sc_buf_addstr(&b, "abcdef", &err);
	sc_buf_setlen(&b, 3);
	is_str((char *)b.data, "abc", "setlen shortens and terminates");
	invariants(&b, "setlen");
	is_int(sc_buf_grow(&b, 100, &err), 0, "grow 100");
	ok(b.cap >= 3 + 100 + 1, "grow: room for 100 more and the NUL");
	memcpy(b.data + 3, "XYZ", 3);
	sc_buf_setlen(&b, 6);
	is_str((char *)b.data, "abcXYZ", "setlen after grow");
	invariants(&b, "setlen after grow");

	sc_buf_reset(&b);
	is_int(b.len, 0, "reset: empty");
	ok(b.cap > 0, "reset keeps the allocation");
	invariants(&b, "reset");

	for (i = 0; i < 10000; i++)
		sc_buf_addch(&b, 'a' + (int)(i % 26), NULL);
	is_int(b.len, 10000, "10000 addch");
	ok(b.data[9999] == 'a' + 9999 % 26 && b.data[0] == 'a',
	    "10000 addch: contents");
	invariants(&b, "growth");
	sc_buf_release(&b);
	is_int(b.len, 0, "release: empty");
	is_int(b.cap, 0, "release: freed");
	invariants(&b, "release");
}

static void
test_max(void)
{
	struct sc_buf b;
	struct sc_error err;

	sc_buf_init(&b, 10);
	is_int(sc_buf_add(&b, "0123456789", 10, &err), 0,
	    "exactly max bytes fit");
	is_int(b.len, 10, "len == max");
	invariants(&b, "at max");
	sc_error_init(&err);
	is_int(sc_buf_addch(&b, 'x', &err), -1, "one byte more fails");
	is_int(err.status, SC_ST_PROTOCOL, "  status protocol");
	is_str(err.msg, "data exceeds the limit of 10 bytes", "  message");
	is_int(b.len, 0, "  buffer emptied");
	is_int(b.cap, 0, "  buffer freed");
	invariants(&b, "after overflow");

	is_int(b.max, 10, "  limit kept");
	sc_buf_reset(&b);

	is_int(sc_buf_addf(&b, &err, "%s", "12345678901"), -1,
	    "addf over the limit fails");
	is_int(b.len, 0, "  buffer emptied");
	invariants(&b, "addf overflow");
	sc_buf_reset(&b);

	is_int(sc_buf_add(&b, "abc", 3, &err), 0, "add 3");
	is_int(sc_buf_grow(&b, 8, &err), -1, "grow past max fails");
	is_int(b.len, 0, "  buffer emptied");
	is_int(b.cap, 0, "  buffer freed");
	sc_buf_reset(&b);

	is_int(sc_buf_add(&b, "x", (size_t)-1, NULL), -1,
	    "huge length fails without overflow (NULL err)");
	invariants(&b, "huge length");
	sc_buf_release(&b);

	sc_buf_init(&b, 0);
	is_int(sc_buf_add(&b, "", 0, &err), 0, "max 0: empty add ok");
	is_int(sc_buf_addch(&b, 'a', &err), -1, "max 0: any byte fails");
	invariants(&b, "max 0");
	sc_buf_release(&b);
}

/*
 * A failed append is sticky.  Before, the buffer was emptied and left
 * usable, so a builder that ignored one result (err NULL) went on to
 * hold only the text appended after the failure: a 5,000-byte
 * identifier read as its last 903 bytes.
 */
static void
test_sticky(void)
{
	struct sc_buf b;
	struct sc_error err;
	const char *name;
	size_t i;

	sc_buf_init(&b, 8);
	is_int(sc_buf_addstr(&b, "12345", NULL), 0, "sticky: 5 of 8 bytes");
	is_int(sc_buf_addstr(&b, "6789", NULL), -1, "sticky: 9 bytes fail");
	ok(b.failed, "  buffer marked failed");
	is_int(b.len, 0, "  buffer emptied");
	invariants(&b, "failed");

	sc_error_init(&err);
	is_int(sc_buf_addch(&b, 'x', &err), -1, "later addch fails");
	is_int(err.status, SC_ST_PROTOCOL, "  status protocol");
	is_str(err.msg, "data exceeds the limit of 8 bytes", "  message");
	is_int(sc_buf_addstr(&b, "y", NULL), -1, "later addstr fails");
	is_int(sc_buf_add(&b, "z", 1, NULL), -1, "later add fails");
	is_int(sc_buf_add(&b, NULL, 0, NULL), -1, "later empty add fails");
	is_int(sc_buf_addf(&b, NULL, "%d", 1), -1, "later addf fails");
	is_int(vaddf_helper(&b, NULL, "%d", 2), -1, "later vaddf fails");
	is_int(sc_buf_grow(&b, 1, NULL), -1, "later grow fails");
	is_int(b.len, 0, "  nothing was appended");
	is_str((char *)b.data, "", "  data is still \"\"");
	invariants(&b, "still failed");

	sc_buf_setlen(&b, 0);
	is_int(sc_buf_addch(&b, 'x', NULL), -1, "setlen keeps the failure");

	sc_buf_reset(&b);
	ok(!b.failed, "reset clears the failure");
	is_int(sc_buf_addstr(&b, "again", NULL), 0, "usable after reset");
	is_str((char *)b.data, "again", "  contents");
	is_int(b.max, 8, "  limit kept");
	invariants(&b, "after reset");

	is_int(sc_buf_addstr(&b, "_overflow", NULL), -1, "overflow again");
	sc_buf_release(&b);
	ok(!b.failed, "release clears the failure");
	sc_buf_init(&b, 8);
	is_int(sc_buf_addstr(&b, "_overflow", NULL), -1, "overflow once more");
	free(sc_buf_detach(&b, NULL));
	ok(!b.failed, "detach clears the failure");
	is_int(sc_buf_addstr(&b, "ok", NULL), 0, "usable after detach");
	sc_buf_release(&b);

	/*
	 * The reported case: a name built byte by byte into a 4096-byte
	 * buffer with every result ignored.  It must not end up as its
	 * tail (here the last 903 bytes, all 'b').
	 */
	sc_buf_init(&b, 4096);
	for (i = 0; i < 5000; i++)
		(void)sc_buf_addch(&b, i < 4097 ? 'a' : 'b', NULL);
	name = (const char *)b.data;
	is_int(b.len, 0, "5000-byte name in a 4096-byte buffer: no tail");
	ok(strchr(name, 'b') == NULL, "  none of the last 903 bytes kept");
	sc_buf_release(&b);
}

static void
test_detach(void)
{
	struct sc_buf b;
	uint8_t *p;
	size_t n = 99;

	sc_buf_init(&b, 100);
	p = sc_buf_detach(&b, &n);
	ok(p != NULL && p[0] == '\0', "detach empty: \"\" allocated");
	is_int(n, 0, "detach empty: length 0");
	free(p);

	sc_buf_addstr(&b, "abc", NULL);
	p = sc_buf_detach(&b, &n);
	is_str((char *)p, "abc", "detach: bytes");
	is_int(n, 3, "detach: length");
	is_int(b.len, 0, "detach: buffer empty");
	is_int(b.cap, 0, "detach: buffer owns nothing");
	invariants(&b, "detach");
	free(p);
	sc_buf_addstr(&b, "z", NULL);
	p = sc_buf_detach(&b, NULL);
	is_str((char *)p, "z", "detach with NULL lenp");
	free(p);
	sc_buf_release(&b);
}

static void
test_xmem(void)
{
	char *s;
	int *a;
	void *q;
	size_t i;
	int arr[7];

	s = sc_xstrdup("dup");
	is_str(s, "dup", "xstrdup");
	free(s);
	s = sc_xstrndup("abcdef", 3);
	is_str(s, "abc", "xstrndup cuts");
	free(s);
	s = sc_xstrndup("ab", 10);
	is_str(s, "ab", "xstrndup shorter string");
	free(s);
	q = sc_xmemdup("a\0b", 3);
	is_mem(q, 3, "a\0b", 3, "xmemdup");
	free(q);
	q = sc_xmemdup("", 0);
	ok(q != NULL, "xmemdup of 0 bytes is not NULL");
	free(q);
	s = sc_xasprintf("%s-%d", "x", 7);
	is_str(s, "x-7", "xasprintf");
	free(s);
	a = sc_xcalloc(4, sizeof(*a));
	ok(a[0] == 0 && a[3] == 0, "xcalloc zeroes");
	a = sc_xreallocarray(a, 1000, sizeof(*a));
	for (i = 0; i < 1000; i++)
		a[i] = (int)i;
	is_int(a[999], 999, "xreallocarray grows");
	SC_FREE(a);
	ok(a == NULL, "SC_FREE sets NULL");
	q = sc_xmalloc(0);
	ok(q != NULL, "xmalloc(0) is not NULL");
	free(q);
	is_int(SC_NELEM(arr), 7, "SC_NELEM");
}

int
main(void)
{
	test_basic();
	test_max();
	test_sticky();
	test_detach();
	test_xmem();
	return tap_done();
}
