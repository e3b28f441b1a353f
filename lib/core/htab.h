/* SPDX-License-Identifier: MIT */

/*
 * htab.h: an intrusive hash table of byte-string keys that also keeps
 * its entries in order: the order of insertion, where sc_htab_touch()
 * moves an entry to the end.  So one table serves as a map, as a map
 * walked in a stable order, and as a bounded LRU cache (evict
 * sc_htab_first() while the table is too large).
 *
 * The table owns neither the entries nor the keys: a struct
 * sc_htab_entry is embedded in the caller's structure (recover it with
 * SC_HTAB_ITEM()), and its key bytes must stay unchanged while it is in
 * the table.  Keys are compared as bytes, so composite keys are spelt
 * with a separator that cannot occur in their parts ("user\0session\0").
 * Not locked: the owner's lock protects it.  Every operation is O(1) on
 * average; the bucket array doubles when the table holds more entries
 * than it has buckets.
 */

#ifndef SC_HTAB_H
#define SC_HTAB_H

#include <stddef.h>
#include <stdint.h>

struct sc_htab_entry {
	struct sc_htab_entry *hnext; /* bucket chain */
	struct sc_htab_entry *prev, *next; /* the order */
	uint64_t hash;
	const void *key; /* borrowed from the owner */
	size_t klen;
};

struct sc_htab {
	struct sc_htab_entry **b; /* NULL until the first insert */
	size_t nb; /* buckets, 0 or a power of two */
	size_t n; /* entries */
	struct sc_htab_entry head; /* of the order; never a real entry */
};

/* The structure of type that holds the entry e as its member. */
#define SC_HTAB_ITEM(e, type, member) \
	((type *)(void *)((char *)(e)-offsetof(type, member)))

/* 64-bit FNV-1a of len bytes at key. */
uint64_t sc_htab_hash(const void *key, size_t len);

/*
 * Make t empty; allocates nothing.  t must not be moved or copied while
 * in use: its order list points into it.
 */
void sc_htab_init(struct sc_htab *t);
/*
 * Free the bucket array and leave t empty (as after sc_htab_init()).
 * The entries are the caller's: remove and free them first, or keep
 * them knowing the table forgot them.
 */
void sc_htab_release(struct sc_htab *t);

/* The entry with this key, or NULL. */
struct sc_htab_entry *sc_htab_find(const struct sc_htab *t, const void *key,
    size_t klen);
/*
 * Add e under key (klen bytes, borrowed for as long as e is in t) at the
 * end of the order.  The key must not be in t already (sc_htab_find()
 * first); e must not be in any table.
 */
void sc_htab_insert(struct sc_htab *t, struct sc_htab_entry *e, const void *key,
    size_t klen);
/* Take e (which is in t) out of t. */
void sc_htab_remove(struct sc_htab *t, struct sc_htab_entry *e);
/* Move e (which is in t) to the end of the order, as if just inserted. */
void sc_htab_touch(struct sc_htab *t, struct sc_htab_entry *e);

/*
 * The order: sc_htab_first() is the oldest entry (or NULL when t is
 * empty), sc_htab_next() the one after e (NULL after the newest).  To
 * remove entries while walking, take the next one before removing e.
 */
struct sc_htab_entry *sc_htab_first(const struct sc_htab *t);
struct sc_htab_entry *sc_htab_next(const struct sc_htab *t,
    const struct sc_htab_entry *e);

/* The number of entries. */
size_t sc_htab_count(const struct sc_htab *t);

#endif
