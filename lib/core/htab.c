/* SPDX-License-Identifier: MIT */

/*
 * htab.c: the ordered intrusive hash table.  Chained buckets, a power of
 * two of them so a bucket is the low bits of the hash, and a circular
 * doubly linked list through a sentinel for the order.
 */

#include "core/htab.h"

#include <stdlib.h>
#include <string.h>

#include "core/xmem.h"
#include "core/banned.h"

/* Buckets of the first allocation. */
#define FIRST_BUCKETS 16

uint64_t
sc_htab_hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void
sc_htab_init(struct sc_htab *t)
{
	t->b = NULL;
	t->nb = 0;
	t->n = 0;
	t->head.hnext = NULL;
	t->head.prev = t->head.next = &t->head;
	t->head.hash = 0;
	t->head.key = NULL;
	t->head.klen = 0;
}

void
sc_htab_release(struct sc_htab *t)
{
	free(t->b);
	sc_htab_init(t);
}

struct sc_htab_entry *
sc_htab_find(const struct sc_htab *t, const void *key, size_t klen)
{
	struct sc_htab_entry *e;
	uint64_t h;

	if (t->nb == 0)
		return NULL;
	h = sc_htab_hash(key, klen);
	for (e = t->b[h & (t->nb - 1)]; e != NULL; e = e->hnext)
		if (e->hash == h && e->klen == klen &&
		    memcmp(e->key, key, klen) == 0)
			return e;
	return NULL;
}

/* Double the buckets (or make the first ones) and rehash. */
static void
grow(struct sc_htab *t)
{
	struct sc_htab_entry **nb, *e, *next;
	size_t i, n;

	n = t->nb != 0 ? t->nb * 2 : FIRST_BUCKETS;
	nb = sc_xcalloc(n, sizeof(*nb));
	for (i = 0; i < t->nb; i++)
		for (e = t->b[i]; e != NULL; e = next) {
			next = e->hnext;
			e->hnext = nb[e->hash & (n - 1)];
			nb[e->hash & (n - 1)] = e;
		}
	free(t->b);
	t->b = nb;
	t->nb = n;
}

static void
order_append(struct sc_htab *t, struct sc_htab_entry *e)
{
	e->prev = t->head.prev;
	e->next = &t->head;
	t->head.prev->next = e;
	t->head.prev = e;
}

static void
order_unlink(struct sc_htab_entry *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	e->prev = e->next = NULL;
}

void
sc_htab_insert(struct sc_htab *t, struct sc_htab_entry *e, const void *key,
    size_t klen)
{
	size_t i;

	if (t->n + 1 > t->nb)
		grow(t);
	e->key = key;
	e->klen = klen;
	e->hash = sc_htab_hash(key, klen);
	i = e->hash & (t->nb - 1);
	e->hnext = t->b[i];
	t->b[i] = e;
	order_append(t, e);
	t->n++;
}

void
sc_htab_remove(struct sc_htab *t, struct sc_htab_entry *e)
{
	struct sc_htab_entry **pp;

	if (t->nb == 0)
		SC_BUG("sc_htab_remove: entry not in the table");
	for (pp = &t->b[e->hash & (t->nb - 1)]; *pp != e; pp = &(*pp)->hnext)
		if (*pp == NULL)
			SC_BUG("sc_htab_remove: entry not in the table");
	*pp = e->hnext;
	e->hnext = NULL;
	order_unlink(e);
	t->n--;
}

void
sc_htab_touch(struct sc_htab *t, struct sc_htab_entry *e)
{
	order_unlink(e);
	order_append(t, e);
}

struct sc_htab_entry *
sc_htab_first(const struct sc_htab *t)
{
	return t->head.next == &t->head ? NULL : t->head.next;
}

struct sc_htab_entry *
sc_htab_next(const struct sc_htab *t, const struct sc_htab_entry *e)
{
	return e->next == &t->head ? NULL : e->next;
}

size_t
sc_htab_count(const struct sc_htab *t)
{
	return t->n;
}
