/* SPDX-License-Identifier: MIT */

/*
 * thrift.h: the Thrift compact protocol, as Parquet's footer and page
 * headers use it: a bounded reader over a byte range (every length and
 * count checked against the bytes left, nesting bounded) and a writer
 * into a struct sc_buf.
 */

#ifndef SC_THRIFT_H
#define SC_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_buf;
struct sc_error;

/* The compact protocol's type codes. */
enum sc_thrift_type {
	SC_THRIFT_STOP = 0,
	SC_THRIFT_TRUE = 1,
	SC_THRIFT_FALSE = 2,
	SC_THRIFT_BYTE = 3,
	SC_THRIFT_I16 = 4,
	SC_THRIFT_I32 = 5,
	SC_THRIFT_I64 = 6,
	SC_THRIFT_DOUBLE = 7,
	SC_THRIFT_BINARY = 8,
	SC_THRIFT_LIST = 9,
	SC_THRIFT_SET = 10,
	SC_THRIFT_MAP = 11,
	SC_THRIFT_STRUCT = 12
};

/* Structs nest at most this deep (Parquet's own need 4). */
#define SC_THRIFT_MAX_DEPTH 32

/*
 * A reader over [p, end).  Every function returns 0 or -1 with err set
 * (SC_ST_PROTOCOL, "malformed Parquet metadata: ..."); once one fails the
 * reader stays failed.
 */
struct sc_thrift_rd {
	const uint8_t *p, *end;
	int depth;
	bool failed;
	struct sc_error *err;
};

void sc_thrift_rd_init(struct sc_thrift_rd *r, const void *p, size_t n,
    struct sc_error *err);
/* -1 and the error "malformed Parquet metadata: <what>". */
int sc_thrift_fail(struct sc_thrift_rd *r, const char *what);
int sc_thrift_varint(struct sc_thrift_rd *r, uint64_t *v);
int sc_thrift_i64(struct sc_thrift_rd *r, int64_t *v);
/* An i32 (also i16 and a byte, by type). */
int sc_thrift_int(struct sc_thrift_rd *r, int type, int32_t *v);
int sc_thrift_bool(struct sc_thrift_rd *r, int type, bool *v);
/* A binary: *p points into the input, valid as long as it. */
int sc_thrift_binary(struct sc_thrift_rd *r, const uint8_t **p, size_t *n);
/* A binary as a new NUL-terminated string (free()); NULs refused. */
int sc_thrift_string(struct sc_thrift_rd *r, char **s);
/*
 * A struct's next field: *type SC_THRIFT_STOP at its end; *id the field
 * id.  *last is the previous id (0 at a struct's start), kept by the
 * caller.  Bools carry their value in *type (TRUE/FALSE).
 */
int sc_thrift_field(struct sc_thrift_rd *r, int16_t *last, int *type,
    int16_t *id);
/*
 * A list or set header: element type and count, the count bounded by the
 * bytes left (each element takes at least one byte).
 */
int sc_thrift_list(struct sc_thrift_rd *r, int *etype, uint32_t *n);
/* Skip a value of type (anything, bounded in depth). */
int sc_thrift_skip(struct sc_thrift_rd *r, int type);
/* Enter and leave a nested struct (depth bound). */
int sc_thrift_enter(struct sc_thrift_rd *r);
void sc_thrift_leave(struct sc_thrift_rd *r);

/*
 * The writer appends to b; a failed append is sticky in b (sc_buf), so
 * callers check once, at the end.  Field ids are written as deltas from
 * *last, which the caller keeps per struct (0 at its start).
 */
void sc_thrift_w_field(struct sc_buf *b, int16_t *last, int type, int16_t id);
void sc_thrift_w_varint(struct sc_buf *b, uint64_t v);
void sc_thrift_w_i32(struct sc_buf *b, int16_t *last, int16_t id, int32_t v);
void sc_thrift_w_i64(struct sc_buf *b, int16_t *last, int16_t id, int64_t v);
void sc_thrift_w_bool(struct sc_buf *b, int16_t *last, int16_t id, bool v);
void sc_thrift_w_binary(struct sc_buf *b, int16_t *last, int16_t id,
    const void *p, size_t n);
/* A list header (element type, count); elements follow. */
void sc_thrift_w_list(struct sc_buf *b, int16_t *last, int16_t id, int etype,
    uint32_t n);
/* A bare zigzag varint (a list's i32/i64 element). */
void sc_thrift_w_zigzag(struct sc_buf *b, int64_t v);
void sc_thrift_w_stop(struct sc_buf *b);

#endif
