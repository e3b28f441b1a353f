/* SPDX-License-Identifier: MIT */

/*
 * exec_buffer.c: the response buffer of one operation, Spark's
 * ExecuteResponseObserver: packed
 * responses by index, the retry-buffer eviction rule, and the
 * response-id -> index map behind ReattachExecute and ReleaseExecute.
 *
 * Bounded id map.  Spark never prunes its id maps, so a very long stream
 * costs memory per response ever produced.  Here the ids of buffered
 * responses are always known, plus those of the last
 * SC_EXECBUF_EVICTED_IDS evicted ones (a ring: indices [base, first));
 * older ids are forgotten.  A known id behaves exactly as in Spark: a
 * reattach after it resumes at the next index, which fails with
 * POSITION_NOT_AVAILABLE if that one was evicted; release_until of it is
 * a no-op.  A forgotten id is answered as never produced,
 * POSITION_NOT_FOUND.  Clients only name ids they received recently, so
 * the difference shows only for a reattach or release that arrives after
 * thousands of later responses were already sent and evicted, when the
 * resume point is long gone anyway.
 */

#include "server/exec.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/uuid.h"
#include "core/xmem.h"
#include "core/banned.h"

/* Response bytes shared with the transport until it has sent them. */
struct sc_execmem {
	atomic_int refs;
	void *p; /* malloc'ed */
	size_t cap; /* bytes at p when it may go back to the pool, else 0 */
	int64_t charge; /* of the value budget, given back with p */
	struct sc_execacct *acct; /* whose */
};

/*
 * The block pool.  A streaming runner allocates one block per batch
 * (about 80 KB) and the transport frees one per send, from another
 * thread: the allocator hands the freed pages back to the kernel and
 * every new block page-faults them in again.  A few freed blocks kept
 * here (LIFO, at most POOL_BYTES in all, so idle memory does not grow
 * noticeably) are reused instead.
 */
#define POOL_MAX 32
#define POOL_BYTES (4u << 20)
#define POOL_BLOCK_MAX (512u << 10)

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	void *p;
	size_t cap;
} pool[POOL_MAX];
static size_t pool_n, pool_bytes;

void *
sc_execmem_block(size_t want, size_t *capp)
{
	void *p = NULL;
	size_t i;

	pthread_mutex_lock(&pool_mu);
	for (i = pool_n; i-- > 0;) {
		/* Not one much larger than asked for: that would waste it. */
		if (pool[i].cap >= want && pool[i].cap / 2 <= want) {
			p = pool[i].p;
			*capp = pool[i].cap;
			pool_bytes -= pool[i].cap;
			pool[i] = pool[--pool_n];
			break;
		}
	}
	pthread_mutex_unlock(&pool_mu);
	if (p == NULL) {
		p = sc_xmalloc(want);
		*capp = want;
	}
	return p;
}

void
sc_execmem_block_put(void *p, size_t cap)
{
	if (p == NULL)
		return;
	if (cap > 0 && cap <= POOL_BLOCK_MAX) {
		pthread_mutex_lock(&pool_mu);
		if (pool_n == POOL_MAX && pool_bytes + cap > POOL_BYTES) {
			/* Full: the oldest goes. */
			pool_bytes -= pool[0].cap;
			free(pool[0].p);
			pool[0] = pool[--pool_n];
		}
		if (pool_n < POOL_MAX && pool_bytes + cap <= POOL_BYTES) {
			pool[pool_n].p = p;
			pool[pool_n].cap = cap;
			pool_n++;
			pool_bytes += cap;
			p = NULL;
		}
		pthread_mutex_unlock(&pool_mu);
	}
	free(p);
}

void
sc_execmem_pool_drain(void)
{
	pthread_mutex_lock(&pool_mu);
	while (pool_n > 0)
		free(pool[--pool_n].p);
	pool_bytes = 0;
	pthread_mutex_unlock(&pool_mu);
}

/*
 * The value budget (exec.h).  Each user has an account of what it holds;
 * one user may hold at most half of the budget, so that a user whose
 * clients stopped reading cannot keep the others waiting.  Waiters queue
 * in arrival order; one that may take (its user's half allows it) goes
 * only when no such one arrived before it, so a large row is not passed
 * over forever by smaller ones.  A waiter looks at its cancel flag at
 * least every WAIT_POLL_MS.
 */
#define WAIT_POLL_MS 100

struct sc_execacct {
	struct sc_execacct *next;
	int64_t used;
	int nwait;
	char user[];
};

struct bwait {
	int64_t n;
	struct sc_execacct *a;
	struct bwait *next;
};

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int64_t cap; /* -1: no limit */
	int64_t used;
	struct sc_execacct *accts;
	struct bwait *head;
} bud = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, -1, 0, NULL,
	NULL };

void
sc_execmem_budget_set(int64_t cap)
{
	pthread_mutex_lock(&bud.mu);
	bud.cap = cap < 0 ? -1 : cap;
	pthread_cond_broadcast(&bud.cv);
	pthread_mutex_unlock(&bud.mu);
}

void
sc_execmem_budget(int64_t *capp, int64_t *usedp)
{
	pthread_mutex_lock(&bud.mu);
	if (capp != NULL)
		*capp = bud.cap;
	if (usedp != NULL)
		*usedp = bud.used;
	pthread_mutex_unlock(&bud.mu);
}

static struct sc_execacct *
acct_get(const char *user)
{
	struct sc_execacct *a;
	size_t len = strlen(user);

	for (a = bud.accts; a != NULL; a = a->next)
		if (strcmp(a->user, user) == 0)
			return a;
	a = sc_xmalloc(sizeof(*a) + len + 1);
	memcpy(a->user, user, len + 1);
	a->used = 0;
	a->nwait = 0;
	a->next = bud.accts;
	bud.accts = a;
	return a;
}

/* Forget an account that holds nothing and has no waiter. */
static void
acct_put(struct sc_execacct *a)
{
	struct sc_execacct **pp;

	if (a->used != 0 || a->nwait != 0)
		return;
	for (pp = &bud.accts; *pp != a; pp = &(*pp)->next)
		;
	*pp = a->next;
	free(a);
}

/* Whether a's user may take n now (bud.mu held). */
static bool
allowed(const struct sc_execacct *a, int64_t n)
{
	return bud.cap < 0 || a->used + n <= bud.cap / 2;
}

static bool
fits(const struct sc_execacct *a, int64_t n)
{
	return bud.cap < 0 || (bud.used + n <= bud.cap && allowed(a, n));
}

/* Whether w is the first waiter its user's share allows. */
static bool
first_allowed(const struct bwait *w)
{
	const struct bwait *o;

	for (o = bud.head; o != w; o = o->next)
		if (allowed(o->a, o->n))
			return false;
	return true;
}

struct sc_execacct *
sc_execmem_take_now(const char *user, int64_t n, bool force)
{
	struct sc_execacct *a;

	pthread_mutex_lock(&bud.mu);
	a = acct_get(user);
	if (force || (bud.head == NULL && fits(a, n))) {
		a->used += n;
		bud.used += n;
	} else {
		acct_put(a);
		a = NULL;
	}
	pthread_mutex_unlock(&bud.mu);
	return a;
}

struct sc_execacct *
sc_execmem_take(const char *user, int64_t n, const atomic_int *cancel)
{
	struct bwait w, **pp;
	struct timespec ts;
	struct sc_execacct *a;

	pthread_mutex_lock(&bud.mu);
	a = acct_get(user);
	a->nwait++;
	w.n = n;
	w.a = a;
	w.next = NULL;
	for (pp = &bud.head; *pp != NULL; pp = &(*pp)->next)
		;
	*pp = &w;
	while (!fits(a, n) || !first_allowed(&w)) {
		if (cancel != NULL && atomic_load(cancel) != 0) {
			a = NULL;
			break;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += WAIT_POLL_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&bud.cv, &bud.mu, &ts);
	}
	for (pp = &bud.head; *pp != &w; pp = &(*pp)->next)
		;
	*pp = w.next;
	w.a->nwait--;
	if (a != NULL) {
		a->used += n;
		bud.used += n;
	} else
		acct_put(w.a);
	/* The next one may fit too, or may now be first. */
	if (bud.head != NULL)
		pthread_cond_broadcast(&bud.cv);
	pthread_mutex_unlock(&bud.mu);
	return a;
}

void
sc_execmem_give(struct sc_execacct *a, int64_t n)
{
	if (a == NULL || n <= 0)
		return;
	pthread_mutex_lock(&bud.mu);
	if (n > a->used || n > bud.used)
		SC_BUG("value budget given back more than taken");
	a->used -= n;
	bud.used -= n;
	acct_put(a);
	if (bud.head != NULL)
		pthread_cond_broadcast(&bud.cv);
	pthread_mutex_unlock(&bud.mu);
}

struct entry {
	uint8_t id[16];
	struct sc_execmem *mem; /* NULL once dropped */
	uint8_t *data; /* inside mem->p */
	size_t len;
	int64_t rows;
};

struct slot {
	uint8_t id[16];
	int64_t index; /* 0: empty */
};

struct sc_execbuf {
	int64_t retry_size;
	struct entry *ring; /* indices [base, produced] */
	size_t cap; /* power of two */
	int64_t base; /* lowest known id */
	int64_t first; /* lowest buffered */
	int64_t produced;
	int64_t consumed;
	int64_t final;
	int64_t bytes;
	int64_t count;
	int64_t unconsumed;
	atomic_int_fast64_t *total; /* or NULL: unconsumed added there too */
	struct slot *tab; /* id -> index */
	size_t tabcap; /* power of two */
	size_t tabused;
};

/* Change the unconsumed byte count, and the shared total with it. */
static void
unconsumed_add(struct sc_execbuf *b, int64_t delta)
{
	b->unconsumed += delta;
	if (b->total != NULL && delta != 0)
		atomic_fetch_add(b->total, delta);
}

void
sc_execmem_unref(void *arg)
{
	struct sc_execmem *m = arg;

	if (m == NULL || atomic_fetch_sub(&m->refs, 1) != 1)
		return;
	sc_execmem_block_put(m->p, m->cap);
	sc_execmem_give(m->acct, m->charge);
	free(m);
}

static struct entry *
ent(struct sc_execbuf *b, int64_t index)
{
	return &b->ring[(size_t)index & (b->cap - 1)];
}

static void
format_id(const uint8_t id[16], char out[SC_UUID_STRLEN])
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o;

	for (i = 0, o = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[id[i] >> 4];
		out[o++] = hex[id[i] & 15];
	}
	out[o] = '\0';
}

static size_t
id_hash(const uint8_t id[16])
{
	uint64_t a, c;

	/* Our ids are random; a lookup key from a client only probes. */
	memcpy(&a, id, 8);
	memcpy(&c, id + 8, 8);
	a ^= c * 0x9e3779b97f4a7c15ULL;
	return (size_t)(a ^ (a >> 29));
}

static void
tab_put(struct slot *tab, size_t cap, const uint8_t id[16], int64_t index)
{
	size_t i;

	for (i = id_hash(id) & (cap - 1); tab[i].index != 0;
	     i = (i + 1) & (cap - 1))
		;
	memcpy(tab[i].id, id, 16);
	tab[i].index = index;
}

static void
tab_add(struct sc_execbuf *b, const uint8_t id[16], int64_t index)
{
	struct slot *nt;
	size_t i, ncap;

	if ((b->tabused + 1) * 2 > b->tabcap) {
		ncap = b->tabcap ? b->tabcap * 2 : 64;
		nt = sc_xcalloc(ncap, sizeof(*nt));
		for (i = 0; i < b->tabcap; i++)
			if (b->tab[i].index != 0)
				tab_put(nt, ncap, b->tab[i].id,
				    b->tab[i].index);
		free(b->tab);
		b->tab = nt;
		b->tabcap = ncap;
	}
	tab_put(b->tab, b->tabcap, id, index);
	b->tabused++;
}

static struct slot *
tab_find(struct sc_execbuf *b, const uint8_t id[16])
{
	size_t i;

	if (b->tabcap == 0)
		return NULL;
	for (i = id_hash(id) & (b->tabcap - 1); b->tab[i].index != 0;
	     i = (i + 1) & (b->tabcap - 1))
		if (memcmp(b->tab[i].id, id, 16) == 0)
			return &b->tab[i];
	return NULL;
}

/* Remove a slot, shifting later members of its cluster back. */
static void
tab_del(struct sc_execbuf *b, struct slot *sl)
{
	size_t mask = b->tabcap - 1, i, j, home;

	i = (size_t)(sl - b->tab);
	b->tab[i].index = 0;
	for (j = (i + 1) & mask; b->tab[j].index != 0; j = (j + 1) & mask) {
		home = id_hash(b->tab[j].id) & mask;
		/* Move j to the hole at i unless its home lies in (i, j]. */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && (home <= i && home > j))) {
			b->tab[i] = b->tab[j];
			b->tab[j].index = 0;
			i = j;
		}
	}
	b->tabused--;
}

struct sc_execbuf *
sc_execbuf_new(int64_t retry_size)
{
	struct sc_execbuf *b;

	b = sc_xcalloc(1, sizeof(*b));
	b->retry_size = retry_size < 0 ? 0 : retry_size;
	b->cap = 16;
	b->ring = sc_xcalloc(b->cap, sizeof(*b->ring));
	b->base = 1;
	b->first = 1;
	b->final = -1;
	return b;
}

void
sc_execbuf_set_total(struct sc_execbuf *b, atomic_int_fast64_t *total)
{
	if (b->total != NULL)
		atomic_fetch_sub(b->total, b->unconsumed);
	b->total = total;
	if (total != NULL)
		atomic_fetch_add(total, b->unconsumed);
}

void
sc_execbuf_free(struct sc_execbuf *b)
{
	int64_t i;

	if (b == NULL)
		return;
	/* Normally none left: sc_execbuf_release_all() came first. */
	if (b->total != NULL && b->unconsumed != 0)
		atomic_fetch_sub(b->total, b->unconsumed);
	for (i = b->first; i <= b->produced; i++)
		sc_execmem_unref(ent(b, i)->mem);
	free(b->ring);
	free(b->tab);
	free(b);
}

static void
ring_grow(struct sc_execbuf *b)
{
	struct entry *nr;
	size_t ncap = b->cap * 2;
	int64_t i;

	nr = sc_xcalloc(ncap, sizeof(*nr));
	for (i = b->base; i <= b->produced; i++)
		nr[(size_t)i & (ncap - 1)] = *ent(b, i);
	free(b->ring);
	b->ring = nr;
	b->cap = ncap;
}

int64_t
sc_execbuf_add(struct sc_execbuf *b, const char *id, uint8_t *data, size_t len,
    int64_t rows)
{
	return sc_execbuf_add_block(b, id, data, 0, data, len, rows);
}

int64_t
sc_execbuf_add_mem(struct sc_execbuf *b, const char *id, void *mem,
    uint8_t *data, size_t len, int64_t rows)
{
	return sc_execbuf_add_block(b, id, mem, 0, data, len, rows);
}

int64_t
sc_execbuf_add_block(struct sc_execbuf *b, const char *id, void *mem,
    size_t cap, uint8_t *data, size_t len, int64_t rows)
{
	struct entry *e;
	uint8_t bin[16];

	if (b->final >= 0)
		SC_BUG("response added after the final one");
	if (!sc_uuid_parse(id, bin))
		SC_BUG("response id '%s' is not a UUID", id);
	if ((uint64_t)(b->produced + 1 - b->base) >= b->cap)
		ring_grow(b);
	b->produced++;
	e = ent(b, b->produced);
	memcpy(e->id, bin, 16);
	e->mem = sc_xmalloc(sizeof(*e->mem));
	atomic_init(&e->mem->refs, 1);
	e->mem->p = mem;
	e->mem->cap = cap;
	e->mem->charge = 0;
	e->mem->acct = NULL;
	e->data = data;
	e->len = len;
	e->rows = rows;
	tab_add(b, bin, b->produced);
	b->bytes += (int64_t)len;
	b->count++;
	if (b->produced > b->consumed)
		unconsumed_add(b, (int64_t)len);
	return b->produced;
}

void
sc_execbuf_finish(struct sc_execbuf *b)
{
	if (b->final < 0)
		b->final = b->produced;
}

/* Forget the oldest evicted ids beyond the ring's size. */
static void
trim_ids(struct sc_execbuf *b)
{
	struct slot *sl;

	while (b->first - b->base > SC_EXECBUF_EVICTED_IDS) {
		sl = tab_find(b, ent(b, b->base)->id);
		if (sl != NULL)
			tab_del(b, sl);
		memset(ent(b, b->base), 0, sizeof(struct entry));
		b->base++;
	}
}

/* Drop buffered responses with index <= upto. */
static void
drop_until(struct sc_execbuf *b, int64_t upto)
{
	struct entry *e;

	if (upto > b->produced)
		upto = b->produced;
	for (; b->first <= upto; b->first++) {
		e = ent(b, b->first);
		b->bytes -= (int64_t)e->len;
		b->count--;
		if (b->first > b->consumed)
			unconsumed_add(b, -(int64_t)e->len);
		sc_execmem_unref(e->mem);
		e->mem = NULL;
		e->data = NULL;
	}
	trim_ids(b);
}

void
sc_execbuf_charge_last(struct sc_execbuf *b, struct sc_execacct *a, int64_t n)
{
	struct sc_execmem *m;

	if (b->produced < b->first || ent(b, b->produced)->mem == NULL)
		SC_BUG("no response to charge");
	m = ent(b, b->produced)->mem;
	if (m->charge > 0 && m->acct != a)
		SC_BUG("a response charged to two accounts");
	m->acct = a;
	m->charge += n;
}

int64_t
sc_execbuf_drop_consumed(struct sc_execbuf *b)
{
	int64_t before = b->first;

	drop_until(b, b->consumed);
	return b->first - before;
}

static int
not_available(struct sc_execbuf *b, int64_t index, struct sc_error *err)
{
	char id[SC_UUID_STRLEN];

	if (index >= b->base && index <= b->produced)
		format_id(ent(b, index)->id, id);
	else
		memcpy(id, "<UNKNOWN>", sizeof("<UNKNOWN>"));
	return sc_srv_error(err, "INVALID_CURSOR.POSITION_NOT_AVAILABLE",
	    "HY109",
	    "The cursor is invalid. The cursor position id %s is "
	    "no longer available at index %lld.",
	    id, (long long)index);
}

bool
sc_execbuf_unavailable(struct sc_execbuf *b, int64_t index,
    struct sc_error *err)
{
	if (index < b->first && index <= b->produced) {
		not_available(b, index, err);
		return true;
	}
	return false;
}

int
sc_execbuf_consume(struct sc_execbuf *b, int64_t index, const uint8_t **data,
    size_t *len, int64_t *rows, struct sc_error *err)
{
	struct entry *e;
	int64_t i, j, sum;

	if (index < 1)
		SC_BUG("response index %lld", (long long)index);
	if (b->final >= 0 && index > b->final)
		return 2;
	if (index > b->produced)
		return 0;
	if (index < b->first)
		return not_available(b, index, err);
	if (index > b->consumed) {
		sum = 0;
		for (j = b->consumed + 1; j <= index; j++)
			if (j >= b->first)
				sum += (int64_t)ent(b, j)->len;
		unconsumed_add(b, -sum);
		b->consumed = index;
	}
	/*
	 * Spark's rule: walk back from index - 1 while the sizes summed so
	 * far stay below the retry size; the walk stops at the response that
	 * reaches it (which is kept) or at one already gone, and everything
	 * at or below where it stopped goes.
	 */
	sum = 0;
	for (i = index - 1; i >= b->first && sum < b->retry_size; i--)
		sum += (int64_t)ent(b, i)->len;
	if (i >= b->first)
		drop_until(b, i);
	e = ent(b, index);
	*data = e->data;
	*len = e->len;
	if (rows != NULL)
		*rows = e->rows;
	return 1;
}

struct sc_execmem *
sc_execbuf_ref(struct sc_execbuf *b, int64_t index)
{
	struct sc_execmem *m;

	if (index < b->first || index > b->produced)
		SC_BUG("response index %lld is not buffered", (long long)index);
	m = ent(b, index)->mem;
	atomic_fetch_add(&m->refs, 1);
	return m;
}

int
sc_execbuf_lookup(struct sc_execbuf *b, const char *id, int64_t *index,
    struct sc_error *err)
{
	struct slot *sl;
	uint8_t bin[16];

	if (id == NULL || !sc_uuid_parse(id, bin) ||
	    (sl = tab_find(b, bin)) == NULL)
		return sc_srv_error(err, "INVALID_CURSOR.POSITION_NOT_FOUND",
		    "HY109",
		    "The cursor is invalid. The cursor position id "
		    "%s is not found.",
		    id != NULL ? id : "");
	*index = sl->index;
	return 0;
}

int
sc_execbuf_release_until(struct sc_execbuf *b, const char *id,
    struct sc_error *err)
{
	int64_t index;

	if (sc_execbuf_lookup(b, id, &index, err) == -1)
		return -1;
	drop_until(b, index);
	return 0;
}

void
sc_execbuf_release_all(struct sc_execbuf *b)
{
	drop_until(b, b->produced);
}

void
sc_execbuf_stats(const struct sc_execbuf *b, struct sc_execbuf_stats *st)
{
	st->produced = b->produced;
	st->consumed = b->consumed;
	st->final = b->final;
	st->first = b->first;
	st->bytes = b->bytes;
	st->count = b->count;
	st->unconsumed = b->unconsumed;
	st->known_ids = (int64_t)b->tabused;
}
