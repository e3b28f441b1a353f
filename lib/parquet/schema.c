/* SPDX-License-Identifier: MIT */

/*
 * schema.c: a Parquet schema and Spark's view of it, both ways.
 *
 * Reading follows Spark's ParquetToSparkSchemaConverter and the
 * backward-compatibility rules of LogicalTypes.md: a LIST group's
 * repeated child is the element when it is a primitive, a group of
 * several fields, or named "array" or "<list>_tuple", else its one
 * field is; a repeated field outside a LIST is a list of required
 * elements; MAP and MAP_KEY_VALUE groups hold key_value pairs.  Writing
 * makes the elements Spark makes (see parquet.h).
 */

#include "parquet/pq_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "core/banned.h"

/* The elements as a tree, with levels and leaves. */
struct pnode {
	const struct sc_pq_schema_el *el;
	struct pnode *c;
	size_t n;
	int def, rep;
	size_t first_leaf, nleaves;
};

struct build {
	const struct sc_pq_schema_el *els;
	uint32_t nels, next;
	const char *name;
	struct sc_error *err;
	struct pq_schema *s;
	struct sc_buf path;
	const char *stack[SC_PARQUET_MAX_DEPTH + 2];
};

static int
bad_schema(struct build *b, const char *what)
{
	return sc_error_set(b->err, SC_ST_PROTOCOL,
	    "'%s': malformed Parquet schema: %s", b->name, what);
}

static void
pnode_release(struct pnode *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		pnode_release(&p->c[i]);
	free(p->c);
}

static int
build_tree(struct build *b, struct pnode *p, int depth, int def, int rep)
{
	const struct sc_pq_schema_el *el;
	size_t plen = b->path.len, i;
	struct pq_leaf *lf;

	if (b->next >= b->nels)
		return bad_schema(b, "fewer elements than the groups claim");
	if (depth > SC_PARQUET_MAX_DEPTH)
		return bad_schema(b, "nested too deep");
	el = p->el = &b->els[b->next++];
	if (depth > 0) {
		if (el->repetition < 0 || el->repetition > SC_PQ_REPEATED)
			return bad_schema(b, "a field without repetition");
		if (el->repetition != SC_PQ_REQUIRED)
			def++;
		if (el->repetition == SC_PQ_REPEATED)
			rep++;
		if (b->path.len > 0)
			(void)sc_buf_addch(&b->path, '.', NULL);
		(void)sc_buf_addstr(&b->path, el->name, NULL);
		b->stack[depth - 1] = el->name;
	}
	p->def = def;
	p->rep = rep;
	p->first_leaf = b->s->nleaves;
	if (el->num_children < 0 ||
	    (uint32_t)el->num_children > b->nels - b->next)
		return bad_schema(b, "more children than elements");
	if (el->num_children == 0 && depth == 0)
		return bad_schema(b, "no columns");
	if (el->num_children == 0) {
		if (el->type < SC_PQ_BOOLEAN || el->type > SC_PQ_FIXED)
			return bad_schema(b, "a field of no known type");
		if (el->type == SC_PQ_FIXED &&
		    (el->type_length <= 0 || el->type_length > (1 << 20)))
			return bad_schema(b,
			    "a fixed-length type of no length");
		b->s->leaf = sc_xreallocarray(b->s->leaf, b->s->nleaves + 1,
		    sizeof(*b->s->leaf));
		lf = &b->s->leaf[b->s->nleaves++];
		memset(lf, 0, sizeof(*lf));
		lf->path = sc_xstrdup((const char *)b->path.data);
		lf->el = el;
		lf->nparts = (size_t)depth;
		lf->parts = sc_xcalloc((size_t)depth + 1, sizeof(*lf->parts));
		memcpy(lf->parts, b->stack, (size_t)depth * sizeof(*lf->parts));
		lf->max_def = def;
		lf->max_rep = rep;
		lf->physical = el->type;
		lf->width = sc_pq_type_width(el->type, el->type_length);
	} else {
		p->c = sc_xcalloc((size_t)el->num_children, sizeof(*p->c));
		for (i = 0; i < (size_t)el->num_children; i++) {
			p->n++;
			if (build_tree(b, &p->c[i], depth + 1, def, rep) == -1)
				return -1;
		}
	}
	p->nleaves = b->s->nleaves - p->first_leaf;
	sc_buf_setlen(&b->path, plen);
	return 0;
}

/* An element's logical type, from its converted type when it has none. */
static struct sc_pq_logical
logical_of(const struct sc_pq_schema_el *el)
{
	struct sc_pq_logical lt = el->logical;

	if (lt.kind != SC_PQ_LT_NONE || el->converted < 0)
		return lt;
	switch (el->converted) {
	case SC_PQ_CT_UTF8:
		lt.kind = SC_PQ_LT_STRING;
		break;
	case SC_PQ_CT_MAP:
	case SC_PQ_CT_MAP_KEY_VALUE:
		lt.kind = SC_PQ_LT_MAP;
		break;
	case SC_PQ_CT_LIST:
		lt.kind = SC_PQ_LT_LIST;
		break;
	case SC_PQ_CT_ENUM:
		lt.kind = SC_PQ_LT_ENUM;
		break;
	case SC_PQ_CT_DECIMAL:
		lt.kind = SC_PQ_LT_DECIMAL;
		lt.precision = el->precision;
		lt.scale = el->scale < 0 ? 0 : el->scale;
		break;
	case SC_PQ_CT_DATE:
		lt.kind = SC_PQ_LT_DATE;
		break;
	case SC_PQ_CT_TIME_MILLIS:
	case SC_PQ_CT_TIME_MICROS:
		lt.kind = SC_PQ_LT_TIME;
		break;
	case SC_PQ_CT_TIMESTAMP_MILLIS:
	case SC_PQ_CT_TIMESTAMP_MICROS:
		lt.kind = SC_PQ_LT_TIMESTAMP;
		lt.utc = true;
		lt.unit = el->converted == SC_PQ_CT_TIMESTAMP_MILLIS
		    ? SC_PQ_MILLIS
		    : SC_PQ_MICROS;
		break;
	case SC_PQ_CT_UINT_8:
	case SC_PQ_CT_UINT_16:
	case SC_PQ_CT_UINT_32:
	case SC_PQ_CT_UINT_64:
	case SC_PQ_CT_INT_8:
	case SC_PQ_CT_INT_16:
	case SC_PQ_CT_INT_32:
	case SC_PQ_CT_INT_64:
		lt.kind = SC_PQ_LT_INTEGER;
		lt.is_signed = el->converted >= SC_PQ_CT_INT_8;
		lt.bit_width = 8 << ((el->converted - SC_PQ_CT_UINT_8) % 4);
		break;
	case SC_PQ_CT_JSON:
		lt.kind = SC_PQ_LT_JSON;
		break;
	case SC_PQ_CT_BSON:
		lt.kind = SC_PQ_LT_BSON;
		break;
	default:
		lt.kind = -1; /* INTERVAL */
		break;
	}
	return lt;
}

static int
unsupported(struct build *b, const struct sc_pq_schema_el *el, const char *what)
{
	return sc_error_set(b->err, SC_ST_USAGE,
	    "'%s': column '%s': Parquet type %s%s%s is not supported", b->name,
	    el->name, sc_pq_type_name(el->type), *what ? " " : "", what);
}

/* A primitive's Spark type and conversion. */
static int
map_leaf(struct build *b, const struct pnode *p, struct pq_lnode *ln,
    struct sc_parquet_type *t)
{
	const struct sc_pq_schema_el *el = p->el;
	struct sc_pq_logical lt = logical_of(el);

	ln->physical = el->type;
	ln->width = sc_pq_type_width(el->type, el->type_length);
	ln->conv = PQ_CONV_PLAIN;
	if (lt.kind == SC_PQ_LT_DECIMAL) {
		if (lt.precision < 1 || lt.precision > 38 || lt.scale < 0 ||
		    lt.scale > lt.precision)
			return unsupported(b, el,
			    "DECIMAL beyond precision 38");
		if (el->type != SC_PQ_INT32 && el->type != SC_PQ_INT64 &&
		    el->type != SC_PQ_FIXED && el->type != SC_PQ_BYTE_ARRAY)
			return unsupported(b, el, "(DECIMAL)");
		if (el->type == SC_PQ_FIXED && el->type_length > 16)
			return unsupported(b, el, "(DECIMAL) over 16 bytes");
		t->kind = SC_VALUE_DECIMAL;
		t->precision = lt.precision;
		t->scale = lt.scale;
		ln->conv = PQ_CONV_DECIMAL;
		return 0;
	}
	switch (el->type) {
	case SC_PQ_BOOLEAN:
		if (lt.kind != SC_PQ_LT_NONE)
			return unsupported(b, el, "with an annotation");
		t->kind = SC_VALUE_BOOLEAN;
		return 0;
	case SC_PQ_INT32:
		if (lt.kind == SC_PQ_LT_NONE) {
			t->kind = SC_VALUE_INT;
			return 0;
		}
		if (lt.kind == SC_PQ_LT_DATE) {
			t->kind = SC_VALUE_DATE;
			ln->conv = PQ_CONV_DATE;
			return 0;
		}
		if (lt.kind != SC_PQ_LT_INTEGER || lt.bit_width > 32)
			return unsupported(b, el,
			    lt.kind == SC_PQ_LT_TIME ? "(TIME)"
						     : "with this annotation");
		if (lt.is_signed)
			t->kind = lt.bit_width == 8 ? SC_VALUE_BYTE
			    : lt.bit_width == 16    ? SC_VALUE_SHORT
						    : SC_VALUE_INT;
		else {
			t->kind = lt.bit_width == 8 ? SC_VALUE_SHORT
			    : lt.bit_width == 16    ? SC_VALUE_INT
						    : SC_VALUE_LONG;
			ln->conv = PQ_CONV_UNSIGNED;
		}
		return 0;
	case SC_PQ_INT64:
		if (lt.kind == SC_PQ_LT_NONE ||
		    (lt.kind == SC_PQ_LT_INTEGER && lt.is_signed &&
			lt.bit_width == 64)) {
			t->kind = SC_VALUE_LONG;
			return 0;
		}
		if (lt.kind == SC_PQ_LT_INTEGER && !lt.is_signed &&
		    lt.bit_width == 64) {
			t->kind = SC_VALUE_DECIMAL;
			t->precision = 20;
			t->scale = 0;
			ln->conv = PQ_CONV_UNSIGNED;
			return 0;
		}
		if (lt.kind == SC_PQ_LT_TIMESTAMP &&
		    (lt.unit == SC_PQ_MILLIS || lt.unit == SC_PQ_MICROS)) {
			t->kind = lt.utc ? SC_VALUE_TIMESTAMP
					 : SC_VALUE_TIMESTAMP_NTZ;
			ln->conv = lt.unit == SC_PQ_MILLIS ? PQ_CONV_MILLIS
							   : PQ_CONV_MICROS;
			return 0;
		}
		return unsupported(b, el,
		    lt.kind == SC_PQ_LT_TIMESTAMP  ? "(TIMESTAMP(NANOS))"
			: lt.kind == SC_PQ_LT_TIME ? "(TIME)"
						   : "with this annotation");
	case SC_PQ_INT96:
		t->kind = SC_VALUE_TIMESTAMP;
		ln->conv = PQ_CONV_INT96;
		return 0;
	case SC_PQ_FLOAT:
	case SC_PQ_DOUBLE:
		if (lt.kind != SC_PQ_LT_NONE)
			return unsupported(b, el, "with an annotation");
		t->kind = el->type == SC_PQ_FLOAT ? SC_VALUE_FLOAT
						  : SC_VALUE_DOUBLE;
		return 0;
	case SC_PQ_BYTE_ARRAY:
		if (lt.kind == SC_PQ_LT_STRING || lt.kind == SC_PQ_LT_ENUM ||
		    lt.kind == SC_PQ_LT_JSON) {
			t->kind = SC_VALUE_STRING;
			return 0;
		}
		if (lt.kind == SC_PQ_LT_NONE || lt.kind == SC_PQ_LT_BSON) {
			t->kind = SC_VALUE_BINARY;
			return 0;
		}
		return unsupported(b, el, "with this annotation");
	case SC_PQ_FIXED:
		if (lt.kind == SC_PQ_LT_NONE) {
			t->kind = SC_VALUE_BINARY;
			return 0;
		}
		return unsupported(b, el,
		    lt.kind == SC_PQ_LT_UUID	      ? "(UUID)"
			: lt.kind == SC_PQ_LT_FLOAT16 ? "(FLOAT16)"
						      : "with this annotation");
	}
	return unsupported(b, el, "");
}

static int map_value(struct build *b, const struct pnode *p,
    struct pq_lnode *ln, struct sc_parquet_type *t);

static void
lnode_alloc(struct pq_lnode *ln, size_t n)
{
	ln->child = sc_xcalloc(n ? n : 1, sizeof(*ln->child));
	ln->nchild = n;
}

/* A field of a struct: a repeated one is a list of required elements. */
static int
map_field(struct build *b, const struct pnode *p, struct pq_lnode *ln,
    struct sc_parquet_type *t)
{
	struct sc_parquet_type *e;

	t->name = sc_xstrdup(p->el->name);
	if (p->el->repetition != SC_PQ_REPEATED)
		return map_value(b, p, ln, t);
	t->kind = SC_VALUE_ARRAY;
	t->nullable = false;
	ln->type = t;
	ln->def = p->def - 1;
	ln->def_ne = p->def;
	ln->rep = p->rep;
	ln->first_leaf = p->first_leaf;
	ln->nleaves = p->nleaves;
	lnode_alloc(ln, 1);
	e = pq_type_new(SC_VALUE_VOID);
	pq_type_add(t, e);
	return map_value(b, p, &ln->child[0], e);
}

static bool
is_element_group(const struct pnode *list, const struct pnode *rpt)
{
	size_t n = strlen(list->el->name);

	if (rpt->n != 1)
		return true;
	if (strcmp(rpt->el->name, "array") == 0)
		return true;
	return strncmp(rpt->el->name, list->el->name, n) == 0 &&
	    strcmp(rpt->el->name + n, "_tuple") == 0;
}

/* The value of node p, nullable when p is optional. */
static int
map_value(struct build *b, const struct pnode *p, struct pq_lnode *ln,
    struct sc_parquet_type *t)
{
	const struct pnode *rpt, *elem;
	struct sc_pq_logical lt = logical_of(p->el);
	struct sc_parquet_type *c;
	size_t i;

	ln->type = t;
	ln->def = p->def;
	ln->first_leaf = p->first_leaf;
	ln->nleaves = p->nleaves;
	t->nullable = p->el->repetition == SC_PQ_OPTIONAL;
	if (p->n == 0)
		return map_leaf(b, p, ln, t);
	if (lt.kind == SC_PQ_LT_LIST) {
		if (p->n != 1 || p->c[0].el->repetition != SC_PQ_REPEATED)
			return bad_schema(b,
			    "a LIST group without one repeated field");
		rpt = &p->c[0];
		t->kind = SC_VALUE_ARRAY;
		ln->def_ne = rpt->def;
		ln->rep = rpt->rep;
		lnode_alloc(ln, 1);
		c = pq_type_new(SC_VALUE_VOID);
		pq_type_add(t, c);
		if (rpt->n == 0 || is_element_group(p, rpt)) {
			/* The repeated field is the element, never null. */
			if (map_value(b, rpt, &ln->child[0], c) == -1)
				return -1;
			c->nullable = false;
			return 0;
		}
		elem = &rpt->c[0];
		if (elem->el->repetition == SC_PQ_REPEATED)
			return bad_schema(b, "a LIST element that repeats");
		return map_value(b, elem, &ln->child[0], c);
	}
	if (lt.kind == SC_PQ_LT_MAP) {
		if (p->n != 1 || p->c[0].el->repetition != SC_PQ_REPEATED ||
		    p->c[0].n != 2)
			return bad_schema(b,
			    "a MAP group without a repeated group of key and value");
		rpt = &p->c[0];
		if (rpt->c[0].el->repetition == SC_PQ_REPEATED ||
		    rpt->c[1].el->repetition == SC_PQ_REPEATED)
			return bad_schema(b, "a MAP key or value that repeats");
		t->kind = SC_VALUE_MAP;
		ln->def_ne = rpt->def;
		ln->rep = rpt->rep;
		lnode_alloc(ln, 2);
		for (i = 0; i < 2; i++) {
			c = pq_type_new(SC_VALUE_VOID);
			pq_type_add(t, c);
			if (map_value(b, &rpt->c[i], &ln->child[i], c) == -1)
				return -1;
		}
		return 0;
	}
	if (lt.kind != SC_PQ_LT_NONE)
		return unsupported(b, p->el, "(a group with this annotation)");
	t->kind = SC_VALUE_STRUCT;
	lnode_alloc(ln, p->n);
	for (i = 0; i < p->n; i++) {
		c = pq_type_new(SC_VALUE_VOID);
		pq_type_add(t, c);
		if (map_field(b, &p->c[i], &ln->child[i], c) == -1)
			return -1;
	}
	return 0;
}

static void
lnode_release(struct pq_lnode *ln)
{
	size_t i;

	for (i = 0; i < ln->nchild; i++)
		lnode_release(&ln->child[i]);
	free(ln->child);
}

void
pq_schema_release(struct pq_schema *s)
{
	size_t i;

	for (i = 0; i < s->nleaves; i++) {
		free(s->leaf[i].path);
		free(s->leaf[i].parts);
	}
	free(s->leaf);
	lnode_release(&s->root);
	sc_parquet_type_free(s->type);
	memset(s, 0, sizeof(*s));
}

int
pq_schema_from_file(struct pq_schema *s, const struct sc_pq_schema_el *els,
    uint32_t nels, const char *name, struct sc_error *err)
{
	struct build b;
	struct pnode root;
	size_t i;
	int rc;

	memset(&b, 0, sizeof(b));
	b.els = els;
	b.nels = nels;
	b.name = name;
	b.err = err;
	b.s = s;
	memset(s, 0, sizeof(*s));
	memset(&root, 0, sizeof(root));
	sc_buf_init(&b.path, SC_BUF_UNLIMITED);
	rc = build_tree(&b, &root, 0, 0, 0);
	if (rc == 0 && b.next != nels)
		rc = bad_schema(&b, "elements outside the root");
	if (rc == 0) {
		s->type = pq_type_new(SC_VALUE_STRUCT);
		s->type->nullable = false;
		s->root.type = s->type;
		s->root.nleaves = s->nleaves;
		lnode_alloc(&s->root, root.n);
		for (i = 0; i < root.n && rc == 0; i++) {
			struct sc_parquet_type *c = pq_type_new(SC_VALUE_VOID);

			pq_type_add(s->type, c);
			rc = map_field(&b, &root.c[i], &s->root.child[i], c);
		}
	}
	pnode_release(&root);
	sc_buf_release(&b.path);
	if (rc == -1)
		pq_schema_release(s);
	return rc;
}

/* --- writing: Spark's elements --------------------------------------- */

struct wbuild {
	struct sc_pq_schema_el *els;
	uint32_t n;
	struct sc_error *err;
};

static struct sc_pq_schema_el *
new_el(struct wbuild *w, const char *name, int repetition)
{
	struct sc_pq_schema_el *el;

	w->els = sc_xreallocarray(w->els, w->n + 1, sizeof(*w->els));
	el = &w->els[w->n++];
	memset(el, 0, sizeof(*el));
	el->name = sc_xstrdup(name);
	el->type = -1;
	el->repetition = repetition;
	el->converted = -1;
	el->scale = el->precision = el->field_id = -1;
	return el;
}

static int
write_el(struct wbuild *w, const struct sc_parquet_type *t, const char *name,
    int rep, int depth)
{
	struct sc_pq_schema_el *el;
	uint32_t at;
	size_t i;

	if (depth > SC_PARQUET_MAX_DEPTH)
		return sc_error_set(w->err, SC_ST_USAGE,
		    "types nested too deep for Parquet");
	at = w->n;
	el = new_el(w, name, rep);
	switch (t->kind) {
	case SC_VALUE_BOOLEAN:
		el->type = SC_PQ_BOOLEAN;
		break;
	case SC_VALUE_BYTE:
	case SC_VALUE_SHORT:
		el->type = SC_PQ_INT32;
		el->converted = t->kind == SC_VALUE_BYTE ? SC_PQ_CT_INT_8
							 : SC_PQ_CT_INT_16;
		el->logical.kind = SC_PQ_LT_INTEGER;
		el->logical.bit_width = t->kind == SC_VALUE_BYTE ? 8 : 16;
		el->logical.is_signed = true;
		break;
	case SC_VALUE_INT:
		el->type = SC_PQ_INT32;
		break;
	case SC_VALUE_LONG:
		el->type = SC_PQ_INT64;
		break;
	case SC_VALUE_FLOAT:
		el->type = SC_PQ_FLOAT;
		break;
	case SC_VALUE_DOUBLE:
		el->type = SC_PQ_DOUBLE;
		break;
	case SC_VALUE_DECIMAL:
		if (t->precision <= 9)
			el->type = SC_PQ_INT32;
		else if (t->precision <= 18)
			el->type = SC_PQ_INT64;
		else {
			el->type = SC_PQ_FIXED;
			el->type_length = pq_decimal_bytes(t->precision);
		}
		el->converted = SC_PQ_CT_DECIMAL;
		el->scale = t->scale;
		el->precision = t->precision;
		el->logical.kind = SC_PQ_LT_DECIMAL;
		el->logical.scale = t->scale;
		el->logical.precision = t->precision;
		break;
	case SC_VALUE_STRING:
		el->type = SC_PQ_BYTE_ARRAY;
		el->converted = SC_PQ_CT_UTF8;
		el->logical.kind = SC_PQ_LT_STRING;
		break;
	case SC_VALUE_BINARY:
		el->type = SC_PQ_BYTE_ARRAY;
		break;
	case SC_VALUE_DATE:
		el->type = SC_PQ_INT32;
		el->converted = SC_PQ_CT_DATE;
		el->logical.kind = SC_PQ_LT_DATE;
		break;
	case SC_VALUE_TIMESTAMP:
	case SC_VALUE_TIMESTAMP_NTZ:
		el->type = SC_PQ_INT64;
		if (t->kind == SC_VALUE_TIMESTAMP)
			el->converted = SC_PQ_CT_TIMESTAMP_MICROS;
		el->logical.kind = SC_PQ_LT_TIMESTAMP;
		el->logical.utc = t->kind == SC_VALUE_TIMESTAMP;
		el->logical.unit = SC_PQ_MICROS;
		break;
	case SC_VALUE_ARRAY:
		el->converted = SC_PQ_CT_LIST;
		el->logical.kind = SC_PQ_LT_LIST;
		el->num_children = 1;
		el = new_el(w, "list", SC_PQ_REPEATED);
		el->num_children = 1;
		return write_el(w, t->child[0], "element",
		    t->child[0]->nullable ? SC_PQ_OPTIONAL : SC_PQ_REQUIRED,
		    depth + 1);
	case SC_VALUE_MAP:
		el->converted = SC_PQ_CT_MAP;
		el->logical.kind = SC_PQ_LT_MAP;
		el->num_children = 1;
		el = new_el(w, "key_value", SC_PQ_REPEATED);
		el->num_children = 2;
		if (write_el(w, t->child[0], "key", SC_PQ_REQUIRED,
			depth + 1) == -1)
			return -1;
		return write_el(w, t->child[1], "value",
		    t->child[1]->nullable ? SC_PQ_OPTIONAL : SC_PQ_REQUIRED,
		    depth + 1);
	case SC_VALUE_STRUCT:
		if (t->nchild == 0)
			return sc_error_set(w->err, SC_ST_USAGE,
			    "column '%s': Parquet cannot hold a struct with no fields",
			    name);
		el->num_children = (int32_t)t->nchild;
		for (i = 0; i < t->nchild; i++)
			if (write_el(w, t->child[i], t->child[i]->name,
				t->child[i]->nullable ? SC_PQ_OPTIONAL
						      : SC_PQ_REQUIRED,
				depth + 1) == -1)
				return -1;
		break;
	default:
		return sc_error_set(w->err, SC_ST_USAGE,
		    "column '%s': Parquet cannot hold this type", name);
	}
	(void)at;
	return 0;
}

int
pq_schema_for_write(struct pq_schema *s, const struct sc_parquet_type *t,
    struct sc_pq_schema_el **els, uint32_t *nels, struct sc_error *err)
{
	struct wbuild w = { NULL, 0, err };
	struct sc_pq_schema_el *root;
	uint32_t i;
	size_t k;

	if (t->kind != SC_VALUE_STRUCT || t->nchild == 0)
		return sc_error_set(err, SC_ST_USAGE,
		    "a Parquet file needs at least one column");
	root = new_el(&w, "spark_schema", -1);
	root->num_children = (int32_t)t->nchild;
	for (k = 0; k < t->nchild; k++)
		if (write_el(&w, t->child[k], t->child[k]->name,
			t->child[k]->nullable ? SC_PQ_OPTIONAL : SC_PQ_REQUIRED,
			1) == -1)
			goto fail;
	if (pq_schema_from_file(s, w.els, w.n, "(writer)", err) == -1)
		goto fail;
	*els = w.els;
	*nels = w.n;
	return 0;
fail:
	for (i = 0; i < w.n; i++)
		free(w.els[i].name);
	free(w.els);
	return -1;
}
