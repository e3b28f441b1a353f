/* SPDX-License-Identifier: MIT */

/*
 * exec_table.c: the manager's keyed tables (core/htab): keys, the bounded
 * caches of abandoned (tombstones) and recently completed operation ids,
 * and the inspection of the live operations and tombstones.
 */

#include "server/exec_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/xmem.h"

#include "core/banned.h"

char *
sc_exec_key_make(const char *user, const char *session, const char *op,
    size_t *lenp)
{
	size_t ul = strlen(user), sl = strlen(session), ol = strlen(op);
	char *k;

	k = sc_xmalloc(ul + sl + ol + 3);
	memcpy(k, user, ul + 1);
	memcpy(k + ul + 1, session, sl + 1);
	memcpy(k + ul + sl + 2, op, ol + 1);
	*lenp = ul + sl + ol + 3;
	return k;
}

/* The three parts of a key. */
static void
key_split(const char *k, const char **user, const char **session,
    const char **op)
{
	*user = k;
	*session = k + strlen(k) + 1;
	*op = *session + strlen(*session) + 1;
}

/*
 * Remember src's key in t (the tombstones or the completed ids) as of
 * now, as its newest entry, keeping at most max: an LRU of ids.
 */
void
sc_exec_remember(struct sc_htab *t, const struct kent *src, int64_t now,
    size_t max)
{
	struct kent *e;

	if (max == 0)
		return;
	if ((e = ktab_find(t, src->key, src->klen)) != NULL)
		sc_htab_touch(t, &e->h);
	else {
		e = sc_xcalloc(1, sizeof(*e));
		e->key = sc_xmemdup(src->key, src->klen);
		e->klen = src->klen;
		ktab_insert(t, e);
	}
	e->t = now;
	while (sc_htab_count(t) > max) {
		e = ktab_oldest(t);
		ktab_remove(t, e);
		free(e->key);
		free(e);
	}
}

void
sc_exec_ktab_free_entries(struct sc_htab *t)
{
	struct kent *e;

	while ((e = ktab_oldest(t)) != NULL) {
		ktab_remove(t, e);
		free(e->key);
		free(e);
	}
	sc_htab_release(t);
}

/* -------------------------------------------------- inspection */

void
sc_execmgr_counts(struct sc_execmgr *m, struct sc_exec_counts *c)
{
	struct sc_exec_op *op;
	struct kent *e;

	memset(c, 0, sizeof(*c));
	pthread_mutex_lock(&m->lock);
	for (e = ktab_oldest(&m->ops); e != NULL; e = knext(&m->ops, e)) {
		op = e->val;
		pthread_mutex_lock(&op->lock);
		c->by_state[op->state]++;
		if (op->sender != NULL)
			c->attached++;
		pthread_mutex_unlock(&op->lock);
	}
	c->live = sc_htab_count(&m->ops);
	c->tombstones = sc_htab_count(&m->tombs);
	c->completed = sc_htab_count(&m->done);
	c->started = m->started;
	c->abandoned = m->abandoned;
	pthread_mutex_lock(&m->slock);
	c->queued = m->nqueued;
	c->resuming = m->nresume;
	c->parked = m->nparked;
	c->slots = (size_t)m->workers;
	c->slots_busy = (size_t)m->nrunning;
	c->extra_slots = (size_t)m->extra;
	c->threads = (size_t)m->nthreads;
	c->idle_threads = (size_t)m->nidle;
	c->compensations = m->compensations;
	pthread_mutex_unlock(&m->slock);
	pthread_mutex_unlock(&m->lock);
}

void
sc_execmgr_each(struct sc_execmgr *m,
    void (*fn)(const struct sc_exec_info *info, void *arg), void *arg)
{
	struct sc_exec_info info;
	struct sc_execbuf_stats st;
	struct sc_exec_op *op;
	struct kent *e;

	pthread_mutex_lock(&m->lock);
	for (e = ktab_oldest(&m->ops); e != NULL; e = knext(&m->ops, e)) {
		op = e->val;
		memset(&info, 0, sizeof(info));
		key_split(e->key, &info.user_id, &info.session_id, &info.op_id);
		pthread_mutex_lock(&op->lock);
		sc_execbuf_stats(op->buf, &st);
		info.state = op->state;
		info.reattachable = op->reattachable;
		info.attached = op->sender != NULL;
		info.created_ms = op->created_ms;
		info.detached_since_ms =
		    op->sender != NULL ? -1 : op->detached_since;
		info.buffered_bytes = st.bytes;
		info.buffered_responses = st.count;
		info.produced = st.produced;
		info.consumed = st.consumed;
		info.rows_sent = op->rows_sent;
		info.bytes_sent = op->bytes_sent;
		info.rotations = op->rotations;
		info.reattaches = op->reattaches;
		info.ntags = op->ntags;
		info.tags = op->tags;
		pthread_mutex_unlock(&op->lock);
		fn(&info, arg);
	}
	for (e = ktab_oldest(&m->tombs); e != NULL; e = knext(&m->tombs, e)) {
		memset(&info, 0, sizeof(info));
		key_split(e->key, &info.user_id, &info.session_id, &info.op_id);
		info.tombstone = true;
		info.state = SC_EXEC_CLOSED;
		info.detached_since_ms = -1;
		fn(&info, arg);
	}
	pthread_mutex_unlock(&m->lock);
}
