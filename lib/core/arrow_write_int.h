/* SPDX-License-Identifier: MIT */

/*
 * arrow_write_int.h: what the Arrow writer's two files share and nobody
 * else sees: the growable byte array, little-endian stores and the
 * front-to-back FlatBuffer builder of arrow_write_fb.c, which
 * arrow_write.c's record batches use.
 */

#ifndef SC_ARROW_WRITE_INT_H
#define SC_ARROW_WRITE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/error.h"

/* Message header tags (Message.fbs MessageHeader union). */
enum { H_SCHEMA = 1, H_RECORD_BATCH = 3 };

/* A growable byte array, kept across flushes. */
struct bytes {
	uint8_t *p;
	size_t len;
	size_t cap;
};

void sc_arrow_bytes_reserve(struct bytes *b, size_t n);
size_t sc_arrow_bytes_put(struct bytes *b, const void *p, size_t n);
void sc_arrow_bytes_free(struct bytes *b);
void sc_arrow_le32(uint8_t *p, uint32_t v);
void sc_arrow_le64(uint8_t *p, uint64_t v);

/* One table field: a scalar of size 1, 2, 4 or 8, or (size 0) a uoffset. */
struct fbf {
	uint8_t id;
	uint8_t size;
	uint64_t val;
};

/* Point the uoffset at slot to target. */
void sc_arrow_fb_patch(struct bytes *b, size_t slot, size_t target);
/*
 * Write vtable and table; store the slot positions of the uoffset fields,
 * in the order they appear in f[], into slots[].  Returns the table's
 * position.
 */
size_t sc_arrow_fb_table(struct bytes *b, const struct fbf *f, size_t n,
    size_t *slots);
/* A vector of n 16-byte structs of two int64 each. */
size_t sc_arrow_fb_pairvec(struct bytes *b, const uint64_t *pairs, size_t n);
/* Frame fb as one encapsulated message with room for body bytes after. */
int sc_arrow_frame_metadata(struct bytes *fb, struct sc_buf *out, size_t body,
    struct sc_error *err);
/* Message table with a header of type htype; returns the header slot. */
size_t sc_arrow_fb_message(struct bytes *b, uint8_t htype, bool with_body,
    uint64_t body);

#endif
