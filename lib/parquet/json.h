/* SPDX-License-Identifier: MIT */

/*
 * json.h: a small JSON reader for the writer's rows: values as a tree,
 * nesting bounded, strings decoded to UTF-8 (a \u0000 is kept, lengths
 * are explicit), numbers kept as their text.
 */

#ifndef SC_PQ_JSON_H
#define SC_PQ_JSON_H

#include <stddef.h>

struct sc_error;

enum sc_pq_json_kind {
	SC_PQ_JSON_NULL,
	SC_PQ_JSON_TRUE,
	SC_PQ_JSON_FALSE,
	SC_PQ_JSON_NUMBER,
	SC_PQ_JSON_STRING,
	SC_PQ_JSON_ARRAY,
	SC_PQ_JSON_OBJECT
};

struct sc_pq_json {
	enum sc_pq_json_kind kind;
	char *s; /* NUMBER: its text; STRING: its bytes; NUL-terminated */
	size_t len;
	struct sc_pq_json *item; /* ARRAY and OBJECT members */
	char **key; /* OBJECT: member names */
	size_t n;
};

/*
 * Parse text[0..n) as one JSON value (spaces around allowed).  NULL and
 * SC_ST_USAGE ("malformed JSON at byte N: ...") if it is not.  Free with
 * sc_pq_json_free().
 */
struct sc_pq_json *sc_pq_json_parse(const char *text, size_t n,
    struct sc_error *err);
void sc_pq_json_free(struct sc_pq_json *j);

#endif
