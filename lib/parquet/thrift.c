/* SPDX-License-Identifier: MIT */

/*
 * thrift.c: the Thrift compact protocol (varints, zigzag integers, field
 * headers as deltas, list headers), read within bounds and written into
 * a bounded buffer.
 */

#include "parquet/thrift.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "core/banned.h"

void
sc_thrift_rd_init(struct sc_thrift_rd *r, const void *p, size_t n,
    struct sc_error *err)
{
	r->p = p;
	r->end = r->p + n;
	r->depth = 0;
	r->failed = false;
	r->err = err;
}

int
sc_thrift_fail(struct sc_thrift_rd *r, const char *what)
{
	if (!r->failed)
		sc_error_set(r->err, SC_ST_PROTOCOL,
		    "malformed Parquet metadata: %s", what);
	r->failed = true;
	r->p = r->end;
	return -1;
}

int
sc_thrift_varint(struct sc_thrift_rd *r, uint64_t *v)
{
	uint64_t x = 0;
	int shift;

	for (shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end)
			return sc_thrift_fail(r, "truncated varint");
		x |= (uint64_t)(*r->p & 0x7f) << shift;
		if ((*r->p++ & 0x80) == 0) {
			*v = x;
			return 0;
		}
	}
	return sc_thrift_fail(r, "varint longer than 10 bytes");
}

int
sc_thrift_i64(struct sc_thrift_rd *r, int64_t *v)
{
	uint64_t u;

	if (sc_thrift_varint(r, &u) == -1)
		return -1;
	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return 0;
}

int
sc_thrift_int(struct sc_thrift_rd *r, int type, int32_t *v)
{
	int64_t x;

	if (type == SC_THRIFT_BYTE) {
		if (r->p >= r->end)
			return sc_thrift_fail(r, "truncated byte");
		*v = (int8_t)*r->p++;
		return 0;
	}
	if (type != SC_THRIFT_I16 && type != SC_THRIFT_I32)
		return sc_thrift_fail(r, "integer field of another type");
	if (sc_thrift_i64(r, &x) == -1)
		return -1;
	if (x < INT32_MIN || x > INT32_MAX)
		return sc_thrift_fail(r, "i32 out of range");
	*v = (int32_t)x;
	return 0;
}

int
sc_thrift_bool(struct sc_thrift_rd *r, int type, bool *v)
{
	if (type != SC_THRIFT_TRUE && type != SC_THRIFT_FALSE)
		return sc_thrift_fail(r, "bool field of another type");
	*v = type == SC_THRIFT_TRUE;
	return 0;
}

int
sc_thrift_binary(struct sc_thrift_rd *r, const uint8_t **p, size_t *n)
{
	uint64_t len;

	if (sc_thrift_varint(r, &len) == -1)
		return -1;
	if (len > (uint64_t)(r->end - r->p))
		return sc_thrift_fail(r, "binary longer than the bytes left");
	*p = r->p;
	*n = (size_t)len;
	r->p += len;
	return 0;
}

int
sc_thrift_string(struct sc_thrift_rd *r, char **s)
{
	const uint8_t *p;
	size_t n;

	if (sc_thrift_binary(r, &p, &n) == -1)
		return -1;
	if (memchr(p, '\0', n) != NULL)
		return sc_thrift_fail(r, "string holds a NUL byte");
	free(*s);
	*s = sc_xstrndup((const char *)p, n);
	return 0;
}

int
sc_thrift_field(struct sc_thrift_rd *r, int16_t *last, int *type, int16_t *id)
{
	int32_t v;
	uint8_t b;

	if (r->p >= r->end)
		return sc_thrift_fail(r, "truncated struct");
	b = *r->p++;
	*type = b & 0x0f;
	if (*type == SC_THRIFT_STOP) {
		*id = 0;
		return 0;
	}
	if (*type > SC_THRIFT_STRUCT)
		return sc_thrift_fail(r, "unknown field type");
	if (b >> 4 != 0)
		*id = (int16_t)(*last + (b >> 4));
	else {
		if (sc_thrift_int(r, SC_THRIFT_I16, &v) == -1)
			return -1;
		if (v < INT16_MIN || v > INT16_MAX)
			return sc_thrift_fail(r, "field id out of range");
		*id = (int16_t)v;
	}
	*last = *id;
	return 0;
}

int
sc_thrift_list(struct sc_thrift_rd *r, int *etype, uint32_t *n)
{
	uint64_t size;
	uint8_t b;

	if (r->p >= r->end)
		return sc_thrift_fail(r, "truncated list");
	b = *r->p++;
	*etype = b & 0x0f;
	size = b >> 4;
	if (size == 15 && sc_thrift_varint(r, &size) == -1)
		return -1;
	if (*etype == SC_THRIFT_STOP || *etype > SC_THRIFT_STRUCT)
		return sc_thrift_fail(r, "unknown list element type");
	if (size > (uint64_t)(r->end - r->p))
		return sc_thrift_fail(r, "list longer than the bytes left");
	*n = (uint32_t)size;
	return 0;
}

int
sc_thrift_enter(struct sc_thrift_rd *r)
{
	if (++r->depth > SC_THRIFT_MAX_DEPTH)
		return sc_thrift_fail(r, "structs nested too deep");
	return 0;
}

void
sc_thrift_leave(struct sc_thrift_rd *r)
{
	r->depth--;
}

int
sc_thrift_skip(struct sc_thrift_rd *r, int type)
{
	const uint8_t *p;
	uint64_t u, i;
	uint32_t n;
	int16_t last = 0, id;
	int et, kt, vt, ft;
	size_t len;

	switch (type) {
	case SC_THRIFT_TRUE:
	case SC_THRIFT_FALSE:
		return 0;
	case SC_THRIFT_BYTE:
		if (r->p >= r->end)
			return sc_thrift_fail(r, "truncated byte");
		r->p++;
		return 0;
	case SC_THRIFT_I16:
	case SC_THRIFT_I32:
	case SC_THRIFT_I64:
		return sc_thrift_varint(r, &u);
	case SC_THRIFT_DOUBLE:
		if (r->end - r->p < 8)
			return sc_thrift_fail(r, "truncated double");
		r->p += 8;
		return 0;
	case SC_THRIFT_BINARY:
		return sc_thrift_binary(r, &p, &len);
	case SC_THRIFT_LIST:
	case SC_THRIFT_SET:
		if (sc_thrift_list(r, &et, &n) == -1 ||
		    sc_thrift_enter(r) == -1)
			return -1;
		for (i = 0; i < n; i++) {
			/* A bool in a list is a whole byte. */
			if (et == SC_THRIFT_TRUE || et == SC_THRIFT_FALSE)
				et = SC_THRIFT_BYTE;
			if (sc_thrift_skip(r, et) == -1)
				return -1;
		}
		sc_thrift_leave(r);
		return 0;
	case SC_THRIFT_MAP:
		if (sc_thrift_varint(r, &u) == -1)
			return -1;
		if (u == 0)
			return 0;
		if (u > (uint64_t)(r->end - r->p))
			return sc_thrift_fail(r,
			    "map longer than the bytes left");
		if (r->p >= r->end)
			return sc_thrift_fail(r, "truncated map");
		kt = *r->p >> 4;
		vt = *r->p++ & 0x0f;
		if (kt == SC_THRIFT_TRUE || kt == SC_THRIFT_FALSE)
			kt = SC_THRIFT_BYTE;
		if (vt == SC_THRIFT_TRUE || vt == SC_THRIFT_FALSE)
			vt = SC_THRIFT_BYTE;
		if (kt == 0 || kt > SC_THRIFT_STRUCT || vt == 0 ||
		    vt > SC_THRIFT_STRUCT)
			return sc_thrift_fail(r, "unknown map element type");
		if (sc_thrift_enter(r) == -1)
			return -1;
		for (i = 0; i < u; i++)
			if (sc_thrift_skip(r, kt) == -1 ||
			    sc_thrift_skip(r, vt) == -1)
				return -1;
		sc_thrift_leave(r);
		return 0;
	case SC_THRIFT_STRUCT:
		if (sc_thrift_enter(r) == -1)
			return -1;
		for (;;) {
			if (sc_thrift_field(r, &last, &ft, &id) == -1)
				return -1;
			if (ft == SC_THRIFT_STOP)
				break;
			if (sc_thrift_skip(r, ft) == -1)
				return -1;
		}
		sc_thrift_leave(r);
		return 0;
	default:
		return sc_thrift_fail(r, "unknown field type");
	}
}

/* --- writer -------------------------------------------------------- */

void
sc_thrift_w_varint(struct sc_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v != 0)
			tmp[n] |= 0x80;
		n++;
	} while (v != 0);
	(void)sc_buf_add(b, tmp, n, NULL);
}

void
sc_thrift_w_zigzag(struct sc_buf *b, int64_t v)
{
	sc_thrift_w_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void
sc_thrift_w_field(struct sc_buf *b, int16_t *last, int type, int16_t id)
{
	int delta = id - *last;

	if (delta > 0 && delta <= 15)
		(void)sc_buf_addch(b, (delta << 4) | type, NULL);
	else {
		(void)sc_buf_addch(b, type, NULL);
		sc_thrift_w_zigzag(b, id);
	}
	*last = id;
}

void
sc_thrift_w_i32(struct sc_buf *b, int16_t *last, int16_t id, int32_t v)
{
	sc_thrift_w_field(b, last, SC_THRIFT_I32, id);
	sc_thrift_w_zigzag(b, v);
}

void
sc_thrift_w_i64(struct sc_buf *b, int16_t *last, int16_t id, int64_t v)
{
	sc_thrift_w_field(b, last, SC_THRIFT_I64, id);
	sc_thrift_w_zigzag(b, v);
}

void
sc_thrift_w_bool(struct sc_buf *b, int16_t *last, int16_t id, bool v)
{
	sc_thrift_w_field(b, last, v ? SC_THRIFT_TRUE : SC_THRIFT_FALSE, id);
}

void
sc_thrift_w_binary(struct sc_buf *b, int16_t *last, int16_t id, const void *p,
    size_t n)
{
	sc_thrift_w_field(b, last, SC_THRIFT_BINARY, id);
	sc_thrift_w_varint(b, n);
	(void)sc_buf_add(b, p, n, NULL);
}

void
sc_thrift_w_list(struct sc_buf *b, int16_t *last, int16_t id, int etype,
    uint32_t n)
{
	sc_thrift_w_field(b, last, SC_THRIFT_LIST, id);
	if (n < 15)
		(void)sc_buf_addch(b, (int)(n << 4) | etype, NULL);
	else {
		(void)sc_buf_addch(b, 0xf0 | etype, NULL);
		sc_thrift_w_varint(b, n);
	}
}

void
sc_thrift_w_stop(struct sc_buf *b)
{
	(void)sc_buf_addch(b, 0, NULL);
}
