/* SPDX-License-Identifier: MIT */

/*
 * sqlanalyze.c: the AnalyzePlan kinds that need no SQL run: DDL and
 * JSON schema strings, a plan's input files, its identity (same
 * semantics, semantic hash) and the storage levels of persisted plans.
 * A plan's identity is its serialized root with every plan id cleared,
 * the one thing that differs between two builds of the same DataFrame.
 */

#include "engine/engine_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/crc.h"
#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* ------------------------------------------------------------------ */
/* Walking every message of a plan                                     */
/* ------------------------------------------------------------------ */

typedef void walk_fn(ProtobufCMessage *m, void *arg);

/* Call fn on m and every message under it, parents first. */
static void
walk(ProtobufCMessage *m, walk_fn *fn, void *arg, int depth)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	const ProtobufCFieldDescriptor *f;
	ProtobufCMessage **v;
	size_t i, j, n;
	char *base = (char *)m;

	fn(m, arg);
	if (depth > 4 * SC_ENG_MAX_PLAN_DEPTH)
		return;
	for (i = 0; i < d->n_fields; i++) {
		f = &d->fields[i];
		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			n = *(size_t *)(base + f->quantifier_offset);
			v = *(ProtobufCMessage ***)(base + f->offset);
			for (j = 0; j < n; j++)
				if (v[j] != NULL)
					walk(v[j], fn, arg, depth + 1);
			continue;
		}
		if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) != 0 &&
		    *(uint32_t *)(base + f->quantifier_offset) != f->id)
			continue;
		v = (ProtobufCMessage **)(base + f->offset);
		if (*v != NULL)
			walk(*v, fn, arg, depth + 1);
	}
}

static void
clear_ids(ProtobufCMessage *m, void *arg)
{
	Spark__Connect__Relation *r;

	(void)arg;
	if (m->descriptor != &spark__connect__relation__descriptor)
		return;
	r = (Spark__Connect__Relation *)m;
	if (r->common != NULL) {
		protobuf_c_message_free_unpacked(&r->common->base, NULL);
		r->common = NULL;
	}
}

/*
 * The identity of root: root serialized with its plan ids (and source
 * information) cleared.  malloc'ed, *n bytes; NULL when root is not a
 * readable message.
 */
static uint8_t *
identity(const Spark__Connect__Relation *root, size_t *n)
{
	size_t len = protobuf_c_message_get_packed_size(&root->base);
	uint8_t *buf = sc_xmalloc(len > 0 ? len : 1), *out;
	Spark__Connect__Relation *copy;

	protobuf_c_message_pack(&root->base, buf);
	copy = spark__connect__relation__unpack(NULL, len, buf);
	free(buf);
	if (copy == NULL)
		return NULL;
	walk(&copy->base, clear_ids, NULL, 0);
	*n = protobuf_c_message_get_packed_size(&copy->base);
	out = sc_xmalloc(*n > 0 ? *n : 1);
	protobuf_c_message_pack(&copy->base, out);
	spark__connect__relation__free_unpacked(copy, NULL);
	return out;
}

static int
bad_plan(struct sc_error *err)
{
	return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
	    "The plan cannot be read.");
}

int
sc_engine_same_semantics(const Spark__Connect__Relation *a,
    const Spark__Connect__Relation *b, bool *same, struct sc_error *err)
{
	uint8_t *x, *y;
	size_t nx = 0, ny = 0;

	x = identity(a, &nx);
	y = identity(b, &ny);
	if (x == NULL || y == NULL) {
		free(x);
		free(y);
		return bad_plan(err);
	}
	*same = nx == ny && memcmp(x, y, nx) == 0;
	free(x);
	free(y);
	return 0;
}

int
sc_engine_semantic_hash(const Spark__Connect__Relation *root, int32_t *hash,
    struct sc_error *err)
{
	uint8_t *x;
	size_t n = 0;

	if ((x = identity(root, &n)) == NULL)
		return bad_plan(err);
	*hash = (int32_t)sc_crc32_update(0, x, n);
	free(x);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Input files                                                         */
/* ------------------------------------------------------------------ */

struct files {
	char **v;
	size_t n;
};

static void
add_file(struct files *f, const char *path)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (strcmp(f->v[i], path) == 0)
			return;
	f->v = sc_xreallocarray(f->v, f->n + 1, sizeof(*f->v));
	f->v[f->n++] = sc_xstrdup(path);
}

static void
collect_files(ProtobufCMessage *m, void *arg)
{
	const Spark__Connect__Read__DataSource *ds;
	size_t i;

	if (m->descriptor != &spark__connect__read__data_source__descriptor)
		return;
	ds = (const Spark__Connect__Read__DataSource *)m;
	for (i = 0; i < ds->n_paths; i++)
		add_file(arg, ds->paths[i]);
	for (i = 0; i < ds->n_options; i++)
		if (strcmp(ds->options[i]->key, "path") == 0)
			add_file(arg, ds->options[i]->value);
}

int
sc_engine_input_files(const Spark__Connect__Relation *root, char ***files,
    size_t *n, struct sc_error *err)
{
	struct files f = { NULL, 0 };

	(void)err;
	/* The walk writes nothing: clear_ids is the only writer. */
	walk((ProtobufCMessage *)&root->base, collect_files, &f, 0);
	*files = f.v;
	*n = f.n;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Schema strings                                                      */
/* ------------------------------------------------------------------ */

int
sc_engine_ddl_parse(const char *ddl, Spark__Connect__DataType **out,
    struct sc_error *err)
{
	Spark__Connect__DataType *dt;
	struct sc_ecol *cols = NULL, one;
	struct sc_etype t;
	size_t n = 0, len = strlen(ddl);

	/* As Spark: a bare type ("int", "decimal(10,2)") is that type. */
	while (len > 0 &&
	    (ddl[len - 1] == ' ' || ddl[len - 1] == '\t' ||
		ddl[len - 1] == '\n'))
		len--;
	while (len > 0 && (*ddl == ' ' || *ddl == '\t' || *ddl == '\n')) {
		ddl++;
		len--;
	}
	if (len > 0 && sc_eng_parse_type(ddl, len, false, &t) == 0) {
		memset(&one, 0, sizeof(one));
		one.name = (char *)"_";
		one.type = t;
		one.nullable = 1;
		dt = sc_eng_schema_new(&one, 1);
		*out = dt->struct_->fields[0]->data_type;
		dt->struct_->fields[0]->data_type = NULL;
		sc_engine_datatype_free(dt);
		return 0;
	}
	if (sc_eng_schema_string(ddl, &cols, &n, err) == -1)
		return -1;
	*out = sc_eng_schema_new(cols, n);
	sc_ecols_free(cols, n);
	return 0;
}

/* Whether Spark writes name without backquotes in DDL. */
static bool
plain_name(const char *s)
{
	bool digits = true;

	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			(*s >= '0' && *s <= '9') || *s == '_'))
			return false;
		if (*s < '0' || *s > '9')
			digits = false;
	}
	return !digits;
}

int
sc_engine_json_to_ddl(const char *json, char **ddl, struct sc_error *err)
{
	struct sc_ecol *cols = NULL;
	struct sc_buf b;
	const char *p;
	size_t n = 0, i;

	for (p = json; *p == ' ' || *p == '\t' || *p == '\n'; p++)
		;
	if (*p != '{')
		return sc_srv_error(err, "INVALID_JSON_SCHEMA", "42K0G",
		    "The input JSON string is not a schema.");
	if (sc_eng_schema_string(json, &cols, &n, err) == -1)
		return -1;
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	for (i = 0; i < n; i++) {
		if (i > 0)
			sc_buf_addch(&b, ',', NULL);
		if (plain_name(cols[i].name))
			sc_buf_addstr(&b, cols[i].name, NULL);
		else
			sc_eng_quote_ident(&b, cols[i].name);
		sc_buf_addch(&b, ' ', NULL);
		sc_eng_type_text(&cols[i].type, SC_VALUE_SQL, &b);
		if (cols[i].nullable == 0)
			sc_buf_addstr(&b, " NOT NULL", NULL);
	}
	sc_ecols_free(cols, n);
	*ddl = (char *)sc_buf_detach(&b, NULL);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Persisted plans                                                     */
/* ------------------------------------------------------------------ */

/*
 * sc-serve computes a persisted plan again each time (SQLite caches
 * pages, not results); what persist() keeps is the storage level
 * get_storage_level() answers, per connection and plan identity.
 */
struct persisted {
	const struct sc_engine_conn *c;
	uint8_t *id;
	size_t n;
	struct sc_engine_storage level;
	struct persisted *next;
};

static pthread_mutex_t persisted_lock = PTHREAD_MUTEX_INITIALIZER;
static struct persisted *persisted;

static struct persisted **
find(const struct sc_engine_conn *c, const uint8_t *id, size_t n)
{
	struct persisted **pp;

	for (pp = &persisted; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->c == c && (*pp)->n == n &&
		    memcmp((*pp)->id, id, n) == 0)
			return pp;
	return pp;
}

int
sc_engine_persist(struct sc_engine_conn *c,
    const Spark__Connect__Relation *root, const struct sc_engine_storage *level,
    struct sc_error *err)
{
	struct persisted **pp, *p;
	uint8_t *id;
	size_t n = 0;

	if ((id = identity(root, &n)) == NULL)
		return bad_plan(err);
	pthread_mutex_lock(&persisted_lock);
	pp = find(c, id, n);
	if (*pp == NULL) {
		/* As Spark: a plan already cached keeps its first level. */
		p = sc_xcalloc(1, sizeof(*p));
		p->c = c;
		p->id = id;
		p->n = n;
		p->level = *level;
		*pp = p;
		id = NULL;
	}
	pthread_mutex_unlock(&persisted_lock);
	free(id);
	return 0;
}

int
sc_engine_unpersist(struct sc_engine_conn *c,
    const Spark__Connect__Relation *root, struct sc_error *err)
{
	struct persisted **pp, *p = NULL;
	uint8_t *id;
	size_t n = 0;

	if ((id = identity(root, &n)) == NULL)
		return bad_plan(err);
	pthread_mutex_lock(&persisted_lock);
	pp = find(c, id, n);
	if (*pp != NULL) {
		p = *pp;
		*pp = p->next;
	}
	pthread_mutex_unlock(&persisted_lock);
	if (p != NULL)
		free(p->id);
	free(p);
	free(id);
	return 0;
}

int
sc_engine_storage_level(struct sc_engine_conn *c,
    const Spark__Connect__Relation *root, struct sc_engine_storage *level,
    struct sc_error *err)
{
	struct persisted **pp;
	uint8_t *id;
	size_t n = 0;

	if ((id = identity(root, &n)) == NULL)
		return bad_plan(err);
	/* StorageLevel.NONE. */
	memset(level, 0, sizeof(*level));
	level->replication = 1;
	pthread_mutex_lock(&persisted_lock);
	pp = find(c, id, n);
	if (*pp != NULL)
		*level = (*pp)->level;
	pthread_mutex_unlock(&persisted_lock);
	free(id);
	return 0;
}

void
sc_eng_persist_forget(const struct sc_engine_conn *c)
{
	struct persisted **pp, *p;

	pthread_mutex_lock(&persisted_lock);
	for (pp = &persisted; *pp != NULL;) {
		p = *pp;
		if (p->c != c) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		free(p->id);
		free(p);
	}
	pthread_mutex_unlock(&persisted_lock);
}
