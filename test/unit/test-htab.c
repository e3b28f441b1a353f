/* SPDX-License-Identifier: MIT */

/*
 * test-htab.c: the ordered hash table of lib/core/htab.c: find, insert
 * and remove against a reference model over many keys (growth across
 * several doublings), keys that differ only past a NUL byte, the order
 * with touch (an LRU), removal while walking, the FNV-1a hash values,
 * and release.
 */

#include "core/htab.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

struct item {
	struct sc_htab_entry e;
	char key[32];
	size_t klen;
	int value;
	bool in; /* the model: whether it should be in the table */
};

#define NITEMS 5000

static struct item *
item_of(struct sc_htab_entry *e)
{
	return e != NULL ? SC_HTAB_ITEM(e, struct item, e) : NULL;
}

/* Walk the order and check it against want[0..n-1] (values). */
static bool
order_is(const struct sc_htab *t, const int *want, size_t n)
{
	struct sc_htab_entry *e;
	size_t i = 0;

	for (e = sc_htab_first(t); e != NULL; e = sc_htab_next(t, e), i++)
		if (i >= n || item_of(e)->value != want[i])
			return false;
	return i == n && sc_htab_count(t) == n;
}

static void
test_hash(void)
{
	/* Published FNV-1a 64 test vectors. */
	ok(sc_htab_hash("", 0) == 0xcbf29ce484222325ULL,
	    "hash of nothing is the offset basis");
	ok(sc_htab_hash("a", 1) == 0xaf63dc4c8601ec8cULL, "hash of 'a'");
	ok(sc_htab_hash("foobar", 6) == 0x85944171f73967e8ULL,
	    "hash of 'foobar'");
}

static void
test_empty(void)
{
	struct sc_htab t;

	sc_htab_init(&t);
	ok(sc_htab_find(&t, "x", 1) == NULL, "an empty table finds nothing");
	ok(sc_htab_first(&t) == NULL, "an empty table has no first entry");
	is_int(sc_htab_count(&t), 0, "an empty table counts 0");
	ok(t.b == NULL, "an empty table allocated nothing");
	sc_htab_release(&t);
	ok(t.b == NULL && t.n == 0, "release of an empty table");
}

/* Many keys against the model: insert all, remove every third, find. */
static void
test_model(void)
{
	struct item *v = sc_xcalloc(NITEMS, sizeof(*v));
	struct sc_htab t;
	size_t i, n, bad = 0, count = 0;
	struct sc_htab_entry *e;

	sc_htab_init(&t);
	for (i = 0; i < NITEMS; i++) {
		n = (size_t)snprintf(v[i].key, sizeof(v[i].key), "key-%zu", i);
		v[i].klen = n;
		v[i].value = (int)i;
		sc_htab_insert(&t, &v[i].e, v[i].key, v[i].klen);
		v[i].in = true;
	}
	is_int(sc_htab_count(&t), NITEMS, "every key inserted");
	ok(t.nb >= NITEMS && (t.nb & (t.nb - 1)) == 0,
	    "buckets grew to a power of two at least the count (%zu)", t.nb);
	for (i = 0; i < NITEMS; i += 3) {
		sc_htab_remove(&t, &v[i].e);
		v[i].in = false;
	}
	for (i = 0; i < NITEMS; i++) {
		e = sc_htab_find(&t, v[i].key, v[i].klen);
		if (v[i].in ? e != &v[i].e : e != NULL)
			bad++;
		if (v[i].in)
			count++;
	}
	is_int(bad, 0, "find agrees with the model for every key");
	is_int(sc_htab_count(&t), count, "count agrees with the model");
	ok(sc_htab_find(&t, "key-1", 4) == NULL,
	    "a prefix of a key is another key");
	ok(sc_htab_find(&t, "key-10000", 9) == NULL, "an unknown key");
	/* The order is insertion order, with the removed ones gone. */
	for (e = sc_htab_first(&t), i = 0, bad = 0; e != NULL;
	     e = sc_htab_next(&t, e)) {
		while (i < NITEMS && !v[i].in)
			i++;
		if (i >= NITEMS || item_of(e) != &v[i])
			bad++;
		i++;
	}
	is_int(bad, 0, "the walk is in insertion order");
	/* Removed entries can go in again, at the end. */
	sc_htab_insert(&t, &v[0].e, v[0].key, v[0].klen);
	ok(sc_htab_find(&t, "key-0", 5) == &v[0].e,
	    "a removed key re-inserted");
	ok(item_of(t.head.prev) == &v[0], "a re-inserted key comes last");
	sc_htab_release(&t);
	ok(t.b == NULL && sc_htab_count(&t) == 0 && sc_htab_first(&t) == NULL,
	    "release empties the table");
	free(v);
}

/* Composite keys with NUL separators: "a\0bc\0" is not "ab\0c\0". */
static void
test_nul_keys(void)
{
	struct item a, b;
	struct sc_htab t;

	sc_htab_init(&t);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memcpy(a.key, "a\0bc\0", 5);
	memcpy(b.key, "ab\0c\0", 5);
	a.value = 1;
	b.value = 2;
	sc_htab_insert(&t, &a.e, a.key, 5);
	ok(sc_htab_find(&t, "ab\0c\0", 5) == NULL,
	    "keys differing only around a NUL are different");
	sc_htab_insert(&t, &b.e, b.key, 5);
	ok(sc_htab_find(&t, "a\0bc\0", 5) == &a.e, "first composite key");
	ok(sc_htab_find(&t, "ab\0c\0", 5) == &b.e, "second composite key");
	ok(sc_htab_find(&t, "a", 1) == NULL, "the first part alone is not it");
	sc_htab_release(&t);
}

/* touch moves to the end: an LRU that evicts first(). */
static void
test_lru(void)
{
	struct item v[5];
	struct sc_htab t;
	struct sc_htab_entry *e, *next;
	int i;
	static const int o1[] = { 0, 1, 2, 3, 4 };
	static const int o2[] = { 1, 3, 4, 0, 2 };
	static const int o3[] = { 4, 0, 2 };
	static const int o4[] = { 4 };

	sc_htab_init(&t);
	memset(v, 0, sizeof(v));
	for (i = 0; i < 5; i++) {
		snprintf(v[i].key, sizeof(v[i].key), "%d", i);
		v[i].value = i;
		sc_htab_insert(&t, &v[i].e, v[i].key, 1);
	}
	ok(order_is(&t, o1, 5), "insertion order");
	sc_htab_touch(&t, &v[0].e);
	sc_htab_touch(&t, &v[2].e);
	ok(order_is(&t, o2, 5), "touched entries move to the end");
	sc_htab_touch(&t, &v[2].e);
	ok(order_is(&t, o2, 5), "touching the newest changes nothing");
	ok(sc_htab_find(&t, "0", 1) == &v[0].e,
	    "a touched entry is still found");
	/* Evict the oldest while more than three. */
	while (sc_htab_count(&t) > 3)
		sc_htab_remove(&t, sc_htab_first(&t));
	ok(order_is(&t, o3, 3), "evicting first() drops the least recent");
	ok(sc_htab_find(&t, "1", 1) == NULL && sc_htab_find(&t, "3", 1) == NULL,
	    "evicted keys are gone");
	/* Remove while walking, taking next first. */
	for (e = sc_htab_first(&t); e != NULL; e = next) {
		next = sc_htab_next(&t, e);
		if (item_of(e)->value != 4)
			sc_htab_remove(&t, e);
	}
	ok(order_is(&t, o4, 1), "removal while walking");
	sc_htab_remove(&t, &v[4].e);
	ok(sc_htab_first(&t) == NULL && sc_htab_count(&t) == 0,
	    "the last entry removed");
	ok(sc_htab_find(&t, "4", 1) == NULL, "an emptied table finds nothing");
	sc_htab_release(&t);
}

int
main(void)
{
	test_hash();
	test_empty();
	test_model();
	test_nul_keys();
	test_lru();
	return tap_done();
}
