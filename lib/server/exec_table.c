/* SPDX-License-Identifier: MIT */

/*
 * exec_table.c: the manager's keyed tables (core/htab): keys, the bounded
 * caches of abandoned (tombstones) and recently completed operation ids,
 * and the inspection of the live operations and tombstones.
 */

#include "server/exec_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/timeutil.h"
#include "core/xmem.h"
#include "server/session.h"

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
struct kent *
sc_exec_remember(struct sc_htab *t, const struct kent *src, int64_t now,
    size_t max)
{
	struct kent *e, *added;

	if (max == 0)
		return NULL;
	if ((e = ktab_find(t, src->key, src->klen)) != NULL)
		sc_htab_touch(t, &e->h);
	else {
		e = sc_xcalloc(1, sizeof(*e));
		e->key = sc_xmemdup(src->key, src->klen);
		e->klen = src->klen;
		ktab_insert(t, e);
	}
	e->t = now;
	e->rt = sc_realtime_ms();
	added = e;
	while (sc_htab_count(t) > max) {
		e = ktab_oldest(t);
		ktab_remove(t, e);
		free(e->key);
		free(e);
	}
	return added;
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
	c->finished = atomic_load(&m->finished);
	c->failed = atomic_load(&m->failed);
	c->canceled = atomic_load(&m->canceled);
	c->reattaches = atomic_load(&m->reattached);
	c->rows_sent = atomic_load(&m->rows_total);
	c->bytes_sent = atomic_load(&m->bytes_total);
	c->buffered = atomic_load(&m->buffered);
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
sc_exec_op_info(struct sc_exec_op *op, int64_t now, struct sc_exec_info *info)
{
	struct sc_execbuf_stats st;

	memset(info, 0, sizeof(*info));
	key_split(op->kent.key, &info->user_id, &info->session_id,
	    &info->op_id);
	info->server_side_session_id = op->sess->server_side_id;
	sc_execbuf_stats(op->buf, &st);
	info->state = op->state;
	info->reattachable = op->reattachable;
	info->attached = op->sender != NULL;
	info->created_ms = op->created_ms;
	info->started_ms = op->started_ms;
	info->finished_ms = op->finished_ms;
	info->detached_since_ms = op->sender != NULL ? -1 : op->detached_since;
	info->attach_change_ms = op->attach_change_ms;
	info->abandon_in_ms = -1;
	if (op->sender == NULL && op->detached_since >= 0 && op->reattachable &&
	    op->registered) {
		info->abandon_in_ms = op->m->conf.detached_timeout_ms -
		    (now - op->detached_since);
		if (info->abandon_in_ms < 0)
			info->abandon_in_ms = 0;
	}
	info->buffered_bytes = st.bytes;
	info->buffered_responses = st.count;
	info->produced = st.produced;
	info->consumed = st.consumed;
	info->responses_sent = op->responses_sent;
	info->responses_released = st.produced - st.count;
	info->rows_sent = op->rows_sent;
	info->bytes_sent = op->bytes_sent;
	info->rotations = op->rotations;
	info->reattaches = op->reattaches;
	info->statement = op->statement;
	if (op->has_error)
		snprintf(info->last_error_class, sizeof(info->last_error_class),
		    "%s", op->error.errclass);
	info->ntags = op->ntags;
	info->tags = op->tags;
}

void
sc_exec_event(struct sc_exec_op *op, enum sc_exec_event ev, int64_t now)
{
	struct sc_execmgr *m = op->m;
	struct sc_exec_info info;

	if (m->event_fn == NULL)
		return;
	if (ev == SC_EXEC_EV_PROGRESS) {
		if (op->progress_at != 0 &&
		    now - op->progress_at < SC_EXEC_PROGRESS_MS)
			return;
		op->progress_at = now;
	}
	sc_exec_op_info(op, now, &info);
	m->event_fn(ev, &info, m->event_arg);
}

void
sc_execmgr_on_event(struct sc_execmgr *m, sc_exec_event_fn *fn, void *arg)
{
	pthread_mutex_lock(&m->lock);
	m->event_fn = fn;
	m->event_arg = arg;
	pthread_mutex_unlock(&m->lock);
}

const struct sc_server_conf *
sc_execmgr_conf(const struct sc_execmgr *m)
{
	return &m->conf;
}

static void
tomb_info(const struct kent *e, struct sc_exec_info *info)
{
	memset(info, 0, sizeof(*info));
	key_split(e->key, &info->user_id, &info->session_id, &info->op_id);
	info->server_side_session_id = "";
	info->statement = "";
	info->tombstone = true;
	info->state = SC_EXEC_CLOSED;
	info->detached_since_ms = -1;
	info->abandon_in_ms = -1;
	info->closed_ms = e->rt;
	info->reason = e->why != NULL ? e->why : "abandoned";
}

void
sc_execmgr_each(struct sc_execmgr *m,
    void (*fn)(const struct sc_exec_info *info, void *arg), void *arg)
{
	struct sc_exec_info info;
	struct sc_exec_op *op;
	struct kent *e;
	int64_t now;

	pthread_mutex_lock(&m->lock);
	now = sc_exec_now(m);
	for (e = ktab_oldest(&m->ops); e != NULL; e = knext(&m->ops, e)) {
		op = e->val;
		pthread_mutex_lock(&op->lock);
		sc_exec_op_info(op, now, &info);
		pthread_mutex_unlock(&op->lock);
		fn(&info, arg);
	}
	for (e = ktab_oldest(&m->tombs); e != NULL; e = knext(&m->tombs, e)) {
		tomb_info(e, &info);
		fn(&info, arg);
	}
	pthread_mutex_unlock(&m->lock);
}

void
sc_execmgr_snapshot(struct sc_execmgr *m, bool tombstones,
    struct sc_exec_snapshot *out)
{
	struct sc_exec_op *op;
	struct kent *e;
	size_t n, i = 0, k = 0;
	int64_t now;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&m->lock);
	now = sc_exec_now(m);
	n = sc_htab_count(&m->ops) +
	    (tombstones ? sc_htab_count(&m->tombs) : 0);
	if (n == 0) {
		pthread_mutex_unlock(&m->lock);
		return;
	}
	out->v = sc_xcalloc(n, sizeof(*out->v));
	out->ops = sc_xcalloc(sc_htab_count(&m->ops) + 1, sizeof(*out->ops));
	if (tombstones)
		out->keys = sc_xcalloc(sc_htab_count(&m->tombs) + 1,
		    sizeof(*out->keys));
	for (e = ktab_oldest(&m->ops); e != NULL; e = knext(&m->ops, e)) {
		op = e->val;
		sc_exec_op_ref(op);
		out->ops[out->n_ops++] = op;
		pthread_mutex_lock(&op->lock);
		sc_exec_op_info(op, now, &out->v[i++]);
		pthread_mutex_unlock(&op->lock);
	}
	for (e = tombstones ? ktab_oldest(&m->tombs) : NULL; e != NULL;
	     e = knext(&m->tombs, e)) {
		struct kent copy = *e;

		copy.key = out->keys[k++] = sc_xmemdup(e->key, e->klen);
		tomb_info(&copy, &out->v[i++]);
	}
	out->n_keys = k;
	out->n = i;
	pthread_mutex_unlock(&m->lock);
}

void
sc_exec_snapshot_release(struct sc_exec_snapshot *s)
{
	size_t i;

	for (i = 0; i < s->n_ops; i++)
		sc_exec_op_unref(s->ops[i]);
	for (i = 0; i < s->n_keys; i++)
		free(s->keys[i]);
	free(s->ops);
	free(s->keys);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* -------------------------------------------------- statement text */

struct text {
	char *p;
	size_t len, cap; /* cap: room for text, plus a NUL */
	bool full;
};

/* Append s, spaces for runs of white space; stop when full. */
static void
text_add(struct text *t, const char *s)
{
	bool space = t->len > 0 && t->p[t->len - 1] == ' ';

	for (; *s != '\0' && !t->full; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
			if (space || t->len == 0)
				continue;
			space = true;
		} else
			space = false;
		if (t->len + 1 >= t->cap) {
			t->full = true;
			break;
		}
		t->p[t->len++] = space ? ' ' : *s;
	}
	t->p[t->len] = '\0';
}

static void relation_text(struct text *t, const Spark__Connect__Relation *r,
    int depth);

/* The input relation of a plan node (its field "input"), or NULL. */
static const Spark__Connect__Relation *
node_input(const ProtobufCMessage *node)
{
	const ProtobufCFieldDescriptor *f;

	if (node == NULL)
		return NULL;
	f = protobuf_c_message_descriptor_get_field_by_name(node->descriptor,
	    "input");
	if (f == NULL || f->type != PROTOBUF_C_TYPE_MESSAGE ||
	    f->label == PROTOBUF_C_LABEL_REPEATED ||
	    f->descriptor != &spark__connect__relation__descriptor)
		return NULL;
	return *(Spark__Connect__Relation *const *)(const void *)((const char *)
								      node +
	    f->offset);
}

static void
relation_text(struct text *t, const Spark__Connect__Relation *r, int depth)
{
	const ProtobufCFieldDescriptor *f;
	const ProtobufCMessage *node;
	const Spark__Connect__Range *rg;
	char num[96];

	if (r == NULL || depth > 8) {
		text_add(t, "?");
		return;
	}
	switch (r->rel_type_case) {
	case SPARK__CONNECT__RELATION__REL_TYPE_SQL:
		text_add(t,
		    r->sql != NULL && r->sql->query != NULL ? r->sql->query
							    : "");
		return;
	case SPARK__CONNECT__RELATION__REL_TYPE_RANGE:
		rg = r->range;
		if (rg == NULL)
			break;
		if (rg->step != 0 && rg->step != 1)
			snprintf(num, sizeof(num), "range(%lld, %lld, %lld)",
			    (long long)rg->start, (long long)rg->end,
			    (long long)rg->step);
		else
			snprintf(num, sizeof(num), "range(%lld, %lld)",
			    (long long)rg->start, (long long)rg->end);
		text_add(t, num);
		return;
	case SPARK__CONNECT__RELATION__REL_TYPE__NOT_SET:
		text_add(t, "(empty relation)");
		return;
	default:
		break;
	}
	f = protobuf_c_message_descriptor_get_field(r->base.descriptor,
	    (unsigned)r->rel_type_case);
	if (f == NULL) {
		text_add(t, "?");
		return;
	}
	text_add(t, f->name);
	node = f->type == PROTOBUF_C_TYPE_MESSAGE
	    ? *(ProtobufCMessage *const *)(const void *)((const char *)r +
		  f->offset)
	    : NULL;
	if (node_input(node) != NULL) {
		text_add(t, "(");
		relation_text(t, node_input(node), depth + 1);
		text_add(t, ")");
	}
}

void
sc_exec_plan_summary(const Spark__Connect__Plan *plan, char *out, size_t outsz)
{
	const Spark__Connect__Command *c;
	struct text t;
	size_t cut;

	if (outsz < 8) {
		if (outsz > 0)
			out[0] = '\0';
		return;
	}
	t.p = out;
	t.len = 0;
	t.cap = outsz - 3; /* room for "..." */
	t.full = false;
	out[0] = '\0';
	if (plan == NULL)
		text_add(&t, "(no plan)");
	else if (plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_ROOT)
		relation_text(&t, plan->root, 0);
	else if (plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_COMMAND &&
	    (c = plan->command) != NULL) {
		if (c->command_type_case ==
			SPARK__CONNECT__COMMAND__COMMAND_TYPE_SQL_COMMAND &&
		    c->sql_command != NULL) {
			if (c->sql_command->sql != NULL &&
			    c->sql_command->sql[0] != '\0')
				text_add(&t, c->sql_command->sql);
			else
				relation_text(&t, c->sql_command->input, 0);
		} else
			text_add(&t, "(command)");
	} else
		text_add(&t, "(no plan)");
	if (t.full) {
		/* Cut at a character boundary, then mark the cut. */
		cut = t.len;
		if (cut > 0) {
			size_t i = cut - 1, need = 1;
			unsigned char lead;

			while (i > 0 && ((unsigned char)out[i] & 0xc0) == 0x80)
				i--;
			lead = (unsigned char)out[i];
			if (lead >= 0xf0)
				need = 4;
			else if (lead >= 0xe0)
				need = 3;
			else if (lead >= 0xc0)
				need = 2;
			if (i + need > cut)
				cut = i;
		}
		memcpy(out + cut, "...", 4);
	}
}
