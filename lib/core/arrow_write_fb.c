/* SPDX-License-Identifier: MIT */

/*
 * arrow_write_fb.c: the Arrow IPC writer's FlatBuffers: a growable byte
 * array, the builder, the schema message and the end of stream.
 *
 * FlatBuffers are laid out front to back: each vtable just before its
 * table, 8-byte fields first, then references, then smaller scalars, then
 * the referenced objects in field order.  test-arrow.c holds a 312-byte
 * reference stream this layout reproduces byte for byte.
 */

#include "core/arrow.h"

#include <limits.h>
#include <string.h>

#include "core/arrow_int.h"
#include "core/arrow_write_int.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "core/banned.h"

/* Arrow type tags (Schema.fbs Type union). */
enum {
	T_NULL = 1,
	T_INT = 2,
	T_FLOAT = 3,
	T_BINARY = 4,
	T_UTF8 = 5,
	T_BOOL = 6,
	T_DECIMAL = 7,
	T_DATE = 8,
	T_TIMESTAMP = 10,
	T_INTERVAL = 11,
	T_LIST = 12,
	T_STRUCT = 13,
	T_MAP = 17,
	T_DURATION = 18,
	T_LARGE_BINARY = 19,
	T_LARGE_UTF8 = 20,
	T_LARGE_LIST = 21
};
#define METADATA_V5 4

/* ---- a growable byte array, kept across flushes -------------------- */

void
sc_arrow_bytes_reserve(struct bytes *b, size_t n)
{
	size_t ncap;

	if (n <= b->cap - b->len)
		return;
	if (n > SIZE_MAX / 2 - b->len)
		SC_BUG("Arrow buffer size overflow");
	ncap = b->cap ? b->cap : 64;
	while (ncap - b->len < n)
		ncap *= 2;
	b->p = sc_xrealloc(b->p, ncap);
	b->cap = ncap;
}

size_t
sc_arrow_bytes_put(struct bytes *b, const void *p, size_t n)
{
	size_t pos = b->len;

	sc_arrow_bytes_reserve(b, n);
	if (p)
		memcpy(b->p + b->len, p, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
	return pos;
}

void
sc_arrow_bytes_free(struct bytes *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static void
le16(uint8_t *p, uint16_t v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

void
sc_arrow_le32(uint8_t *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (v >> (8 * i)) & 0xff;
}

void
sc_arrow_le64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (v >> (8 * i)) & 0xff;
}

/* ---- front-to-back FlatBuffer builder ------------------------------ */

/* Zero-pad until len % align == rem. */
static void
fb_pad(struct bytes *b, size_t align, size_t rem)
{
	while (b->len % align != rem)
		sc_arrow_bytes_put(b, NULL, 1);
}

void
sc_arrow_fb_patch(struct bytes *b, size_t slot, size_t target)
{
	sc_arrow_le32(b->p + slot, (uint32_t)(target - slot));
}

/*
 * Write vtable and table; store the slot positions of the uoffset fields,
 * in the order they appear in f[], into slots[].  Returns the table's
 * position.
 */
size_t
sc_arrow_fb_table(struct bytes *b, const struct fbf *f, size_t n, size_t *slots)
{
	static const uint8_t order[] = { 8, 0, 4, 2, 1 };
	uint8_t tmp[8];
	size_t vt, t, vs, pos, i, k, nslot = 0;
	unsigned maxid = 0;
	bool has8 = false;

	for (i = 0; i < n; i++) {
		if (f[i].id + 1u > maxid)
			maxid = f[i].id + 1u;
		if (f[i].size == 8)
			has8 = true;
	}
	vs = 4 + 2 * (size_t)maxid;
	fb_pad(b, 2, 0);
	vt = sc_arrow_bytes_put(b, NULL, vs);
	if (has8)
		fb_pad(b, 8, 4);
	else
		fb_pad(b, 4, 0);
	t = b->len;
	sc_arrow_le32(tmp, (uint32_t)(t - vt));
	sc_arrow_bytes_put(b, tmp, 4);
	for (k = 0; k < SC_NELEM(order); k++)
		for (i = 0; i < n; i++) {
			if (f[i].size != order[k])
				continue;
			switch (f[i].size) {
			case 8:
				sc_arrow_le64(tmp, f[i].val);
				break;
			case 4:
			case 0:
				sc_arrow_le32(tmp, (uint32_t)f[i].val);
				break;
			case 2:
				le16(tmp, (uint16_t)f[i].val);
				break;
			default:
				tmp[0] = (uint8_t)f[i].val;
				break;
			}
			pos = sc_arrow_bytes_put(b, tmp,
			    f[i].size ? f[i].size : 4);
			if (f[i].size == 0)
				slots[nslot++] = pos;
			le16(b->p + vt + 4 + 2 * f[i].id, (uint16_t)(pos - t));
		}
	fb_pad(b, 4, 0);
	le16(b->p + vt, (uint16_t)vs);
	le16(b->p + vt + 2, (uint16_t)(b->len - t));
	return t;
}

static size_t
fb_string(struct bytes *b, const char *s)
{
	uint8_t tmp[4];
	size_t n = strlen(s), pos;

	fb_pad(b, 4, 0);
	sc_arrow_le32(tmp, (uint32_t)n);
	pos = sc_arrow_bytes_put(b, tmp, 4);
	sc_arrow_bytes_put(b, s, n);
	sc_arrow_bytes_put(b, NULL, 1);
	return pos;
}

/* A vector of n uoffsets; returns its position (slot i at pos + 4 + 4i). */
static size_t
fb_offvec(struct bytes *b, size_t n)
{
	uint8_t tmp[4];
	size_t pos;

	fb_pad(b, 4, 0);
	sc_arrow_le32(tmp, (uint32_t)n);
	pos = sc_arrow_bytes_put(b, tmp, 4);
	sc_arrow_bytes_put(b, NULL, 4 * n);
	return pos;
}

/* A vector of n 16-byte structs of two int64 each. */
size_t
sc_arrow_fb_pairvec(struct bytes *b, const uint64_t *pairs, size_t n)
{
	uint8_t tmp[8];
	size_t pos, i;

	fb_pad(b, 8, 4);
	sc_arrow_le32(tmp, (uint32_t)n);
	pos = sc_arrow_bytes_put(b, tmp, 4);
	for (i = 0; i < 2 * n; i++) {
		sc_arrow_le64(tmp, pairs[i]);
		sc_arrow_bytes_put(b, tmp, 8);
	}
	return pos;
}

/* The Field.type_type tag for f's type. */
static uint8_t
type_tag(const struct sc_arrow_field *f)
{
	switch (f->type) {
	case SC_ARROW_NULL:
		return T_NULL;
	case SC_ARROW_BOOL:
		return T_BOOL;
	case SC_ARROW_INT8:
	case SC_ARROW_INT16:
	case SC_ARROW_INT32:
	case SC_ARROW_INT64:
		return T_INT;
	case SC_ARROW_FLOAT:
	case SC_ARROW_DOUBLE:
		return T_FLOAT;
	case SC_ARROW_DECIMAL128:
		return T_DECIMAL;
	case SC_ARROW_UTF8:
		return T_UTF8;
	case SC_ARROW_LARGE_UTF8:
		return T_LARGE_UTF8;
	case SC_ARROW_BINARY:
		return T_BINARY;
	case SC_ARROW_LARGE_BINARY:
		return T_LARGE_BINARY;
	case SC_ARROW_DATE32:
		return T_DATE;
	case SC_ARROW_TIMESTAMP_US:
		return T_TIMESTAMP;
	case SC_ARROW_DURATION_US:
		return T_DURATION;
	case SC_ARROW_INTERVAL_YM:
		return T_INTERVAL;
	case SC_ARROW_STRUCT:
		return T_STRUCT;
	case SC_ARROW_LIST:
		return T_LIST;
	case SC_ARROW_LARGE_LIST:
		return T_LARGE_LIST;
	case SC_ARROW_MAP:
		return T_MAP;
	}
	SC_BUG("unknown Arrow type %d", (int)f->type);
}

/* Writes the Field.type table; returns its position. */
static size_t
fb_type(struct bytes *b, const struct sc_arrow_field *f)
{
	struct fbf v[3];
	size_t n = 0, slot, t;

	switch (f->type) {
	case SC_ARROW_INT8:
	case SC_ARROW_INT16:
	case SC_ARROW_INT32:
	case SC_ARROW_INT64:
		v[n++] = (struct fbf){ 0, 4,
			f->type == SC_ARROW_INT8	? 8
			    : f->type == SC_ARROW_INT16 ? 16
			    : f->type == SC_ARROW_INT32 ? 32
							: 64 };
		v[n++] = (struct fbf){ 1, 1, 1 }; /* is_signed */
		break;
	case SC_ARROW_FLOAT:
	case SC_ARROW_DOUBLE:
		v[n++] =
		    (struct fbf){ 0, 2, f->type == SC_ARROW_FLOAT ? 1 : 2 };
		break;
	case SC_ARROW_DECIMAL128:
		v[n++] = (struct fbf){ 0, 4, (uint32_t)f->precision };
		v[n++] = (struct fbf){ 1, 4, (uint32_t)f->scale };
		v[n++] = (struct fbf){ 2, 4, 128 };
		break;
	case SC_ARROW_DATE32:
		v[n++] = (struct fbf){ 0, 2, 0 }; /* DAY: not default */
		break;
	case SC_ARROW_TIMESTAMP_US:
		v[n++] = (struct fbf){ 0, 2, 2 }; /* MICROSECOND */
		if (f->tz) {
			v[n++] = (struct fbf){ 1, 0, 0 };
			t = sc_arrow_fb_table(b, v, n, &slot);
			sc_arrow_fb_patch(b, slot, fb_string(b, f->tz));
			return t;
		}
		break;
	case SC_ARROW_DURATION_US:
		v[n++] = (struct fbf){ 0, 2, 2 }; /* MICROSECOND */
		break;
	case SC_ARROW_INTERVAL_YM:
		v[n++] = (struct fbf){ 0, 2, 0 }; /* YEAR_MONTH */
		break;
	default: /* empty type tables */
		break;
	}
	return sc_arrow_fb_table(b, v, n, &slot);
}

static void
fb_field(struct bytes *b, const struct sc_arrow_field *f, size_t at)
{
	struct fbf v[5];
	size_t slots[3], t, vec, i, n = 0;

	v[n++] = (struct fbf){ 0, 0, 0 }; /* name */
	if (f->nullable) /* default false */
		v[n++] = (struct fbf){ 1, 1, 1 };
	v[n++] = (struct fbf){ 2, 1, type_tag(f) }; /* type_type */
	v[n++] = (struct fbf){ 3, 0, 0 }; /* type */
	v[n++] = (struct fbf){ 5, 0, 0 }; /* children */
	t = sc_arrow_fb_table(b, v, n, slots);
	sc_arrow_fb_patch(b, at, t);
	sc_arrow_fb_patch(b, slots[0], fb_string(b, f->name ? f->name : ""));
	sc_arrow_fb_patch(b, slots[1], fb_type(b, f));
	vec = fb_offvec(b, f->nchildren);
	sc_arrow_fb_patch(b, slots[2], vec);
	for (i = 0; i < f->nchildren; i++)
		fb_field(b, &f->children[i], vec + 4 + 4 * i);
}

/*
 * Frame the FlatBuffer fb as one encapsulated message (continuation, M,
 * metadata padded to 8) followed by body bytes from the writer's columns
 * (appended by the caller).
 */
int
sc_arrow_frame_metadata(struct bytes *fb, struct sc_buf *out, size_t body,
    struct sc_error *err)
{
	uint8_t pre[8];

	fb_pad(fb, 8, 0);
	if (fb->len > INT32_MAX)
		return sc_error_set(err, SC_ST_INTERNAL,
		    "Arrow metadata too large");
	sc_arrow_le32(pre, 0xffffffffu);
	sc_arrow_le32(pre + 4, (uint32_t)fb->len);
	/* Room for the body too: add_body() and add_seq() cannot fail. */
	if (sc_buf_grow(out, 8 + fb->len + body, err) == -1)
		return -1;
	(void)sc_buf_add(out, pre, 8, NULL);
	(void)sc_buf_add(out, fb->p, fb->len, NULL);
	return 0;
}

/* Message table with a header of type htype; returns the header slot. */
size_t
sc_arrow_fb_message(struct bytes *b, uint8_t htype, bool with_body,
    uint64_t body)
{
	struct fbf v[4];
	size_t n = 0, slot, t;

	b->len = 0;
	sc_arrow_bytes_put(b, NULL, 4); /* root uoffset */
	v[n++] = (struct fbf){ 0, 2, METADATA_V5 };
	v[n++] = (struct fbf){ 1, 1, htype };
	v[n++] = (struct fbf){ 2, 0, 0 };
	if (with_body)
		v[n++] = (struct fbf){ 3, 8, body };
	t = sc_arrow_fb_table(b, v, n, &slot);
	sc_arrow_fb_patch(b, 0, t);
	return slot;
}

static void
build_schema(struct bytes *b, const struct sc_arrow_schema *s)
{
	struct fbf v[1] = { { 1, 0, 0 } };
	size_t hslot, slot, t, vec, i;

	hslot = sc_arrow_fb_message(b, H_SCHEMA, false, 0);
	t = sc_arrow_fb_table(b, v, 1, &slot);
	sc_arrow_fb_patch(b, hslot, t);
	vec = fb_offvec(b, s->nfields);
	sc_arrow_fb_patch(b, slot, vec);
	for (i = 0; i < s->nfields; i++)
		fb_field(b, &s->fields[i], vec + 4 + 4 * i);
}

int
sc_arrow_write_schema(const struct sc_arrow_schema *s, struct sc_buf *out,
    struct sc_error *err)
{
	struct bytes b = { 0 };
	int rc;

	build_schema(&b, s);
	rc = sc_arrow_frame_metadata(&b, out, 0, err);
	sc_arrow_bytes_free(&b);
	return rc;
}

int
sc_arrow_write_eos(struct sc_buf *out, struct sc_error *err)
{
	static const uint8_t eos[8] = { 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0 };

	return sc_buf_add(out, eos, sizeof(eos), err);
}
