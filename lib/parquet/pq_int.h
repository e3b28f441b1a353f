/* SPDX-License-Identifier: MIT */

/*
 * pq_int.h: what the reader, the writer and the type mapping share: a
 * file's schema as a tree with each node's definition and repetition
 * levels, and the Spark view of it that rows are assembled from (and
 * shredded into).  Not for use outside lib/parquet.
 */

#ifndef SC_PQ_INT_H
#define SC_PQ_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parquet/encoding.h"
#include "parquet/meta.h"
#include "parquet/parquet.h"

struct sc_buf;
struct sc_error;

/* How a leaf's stored values become Spark's. */
enum pq_conv {
	PQ_CONV_PLAIN, /* as stored: boolean, ints, floats, bytes */
	PQ_CONV_UNSIGNED, /* INT32/INT64 read as unsigned */
	PQ_CONV_DECIMAL, /* unscaled, any physical type */
	PQ_CONV_DATE,
	PQ_CONV_MILLIS, /* INT64 timestamps in milliseconds */
	PQ_CONV_MICROS,
	PQ_CONV_INT96
};

/*
 * A node of the Spark view.  An entry of a leaf beneath it with a
 * definition level below def means this value is null (or, for an
 * element, that its list is empty: def_ne).  Lists and maps repeat at
 * rep; their child[0] is the element (list) or key and child[1] the
 * value (map).  Leaves first_leaf .. first_leaf + nleaves - 1 lie
 * beneath.
 */
struct pq_lnode {
	const struct sc_parquet_type *type;
	int def;
	int def_ne, rep; /* ARRAY and MAP */
	size_t first_leaf, nleaves;
	struct pq_lnode *child;
	size_t nchild;
	/* leaves */
	int physical;
	size_t width;
	int conv; /* enum pq_conv */
};

/* A leaf column of the file: its place and its levels. */
struct pq_leaf {
	char *path; /* dotted */
	const struct sc_pq_schema_el *el;
	/* The names from the root's child down to the leaf. */
	const char **parts;
	size_t nparts;
	int max_def, max_rep;
	int physical;
	size_t width;
};

/* A schema (reader's or writer's): the Spark view and its leaves. */
struct pq_schema {
	struct sc_parquet_type *type; /* STRUCT of the columns */
	struct pq_lnode root;
	struct pq_leaf *leaf;
	size_t nleaves;
};

/*
 * The Spark view of a file's schema elements (fm->schema, depth-first).
 * -1: malformed (SC_ST_PROTOCOL) or a type Spark cannot read
 * (SC_ST_USAGE).  name is the file's name for messages.
 */
int pq_schema_from_file(struct pq_schema *s, const struct sc_pq_schema_el *els,
    uint32_t nels, const char *name, struct sc_error *err);
/*
 * Schema elements for a Spark STRUCT as Spark writes them (caller frees
 * the names and the array), and the view over them.
 */
int pq_schema_for_write(struct pq_schema *s, const struct sc_parquet_type *t,
    struct sc_pq_schema_el **els, uint32_t *nels, struct sc_error *err);
void pq_schema_release(struct pq_schema *s);

/* Types. */
struct sc_parquet_type *pq_type_new(int kind);
struct sc_parquet_type *pq_type_copy(const struct sc_parquet_type *t);
void pq_type_add(struct sc_parquet_type *parent, struct sc_parquet_type *c);
/* Bytes of a FIXED_LEN_BYTE_ARRAY for decimals of precision p. */
int pq_decimal_bytes(int precision);

#endif
