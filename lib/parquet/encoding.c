/* SPDX-License-Identifier: MIT */

/*
 * encoding.c: Parquet's encodings (Encodings.md), each decoder checking
 * every length against the bytes it was given and every count against
 * the values it was asked for, so a malformed page is an error and never
 * a read past its end or an allocation beyond what the page can hold.
 */

#include "parquet/encoding.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "parquet/meta.h"
#include "core/banned.h"

#define BAD(err, what) \
	sc_error_set(err, SC_ST_PROTOCOL, "malformed Parquet page: %s", what)

size_t
sc_pq_type_width(int type, int32_t type_length)
{
	switch (type) {
	case SC_PQ_BOOLEAN:
		return 1;
	case SC_PQ_INT32:
	case SC_PQ_FLOAT:
		return 4;
	case SC_PQ_INT64:
	case SC_PQ_DOUBLE:
		return 8;
	case SC_PQ_INT96:
		return 12;
	case SC_PQ_FIXED:
		return type_length > 0 ? (size_t)type_length : 0;
	default:
		return 0;
	}
}

void
sc_pq_vals_init(struct sc_pq_vals *v, int type, size_t width)
{
	memset(v, 0, sizeof(*v));
	v->type = type;
	v->width = type == SC_PQ_BYTE_ARRAY ? 0 : width;
	/* Nothing is ever NULL, so no count of 0 offsets a NULL pointer. */
	v->data = sc_xmalloc(1);
	v->dcap = 1;
	if (type == SC_PQ_BYTE_ARRAY)
		v->off = sc_xcalloc(1, sizeof(*v->off));
	else {
		v->fix = sc_xmalloc(width ? width : 1);
		v->cap = 1;
	}
}

void
sc_pq_vals_release(struct sc_pq_vals *v)
{
	free(v->fix);
	free(v->off);
	free(v->data);
	memset(v, 0, sizeof(*v));
}

void
sc_pq_vals_reset(struct sc_pq_vals *v)
{
	v->n = 0;
	v->dlen = 0;
}

/* Room for more values (and, for BYTE_ARRAY, dmore data bytes). */
static void
reserve(struct sc_pq_vals *v, size_t more, size_t dmore)
{
	size_t want;

	if (more > SIZE_MAX / 2 - v->n || dmore > SIZE_MAX / 2 - v->dlen)
		SC_BUG("value count overflow");
	want = v->n + more;
	if (want > v->cap) {
		size_t cap = v->cap < 16 ? 16 : v->cap;

		while (cap < want)
			cap *= 2;
		if (v->type == SC_PQ_BYTE_ARRAY)
			v->off =
			    sc_xreallocarray(v->off, cap + 1, sizeof(*v->off));
		else if (v->width > 0)
			v->fix = sc_xreallocarray(v->fix, cap, v->width);
		v->cap = cap;
	}
	if (v->dlen + dmore > v->dcap) {
		size_t cap = v->dcap < 64 ? 64 : v->dcap;

		while (cap < v->dlen + dmore)
			cap *= 2;
		v->data = sc_xrealloc(v->data, cap);
		v->dcap = cap;
	}
}

void
sc_pq_vals_add(struct sc_pq_vals *v, const void *p, size_t len)
{
	if (v->type == SC_PQ_BYTE_ARRAY) {
		reserve(v, 1, len);
		if (len > 0)
			memcpy(v->data + v->dlen, p, len);
		v->dlen += len;
		v->n++;
		v->off[v->n] = v->dlen;
		return;
	}
	reserve(v, 1, 0);
	if (v->width > 0)
		memcpy(v->fix + v->n * v->width, p, v->width);
	v->n++;
}

const uint8_t *
sc_pq_vals_get(const struct sc_pq_vals *v, size_t i, size_t *len)
{
	if (v->type == SC_PQ_BYTE_ARRAY) {
		*len = (size_t)(v->off[i + 1] - v->off[i]);
		return v->data + v->off[i];
	}
	*len = v->width;
	return v->fix + i * v->width;
}

int
sc_pq_bit_width(uint64_t max)
{
	int w = 0;

	while (max != 0) {
		w++;
		max >>= 1;
	}
	return w;
}

/* bw bits (0..64) at bit position pos of p, least significant first. */
static uint64_t
get_bits(const uint8_t *p, uint64_t pos, int bw)
{
	uint64_t v = 0;
	int got = 0;

	while (got < bw) {
		int sh = (int)(pos & 7), take = 8 - sh;

		if (take > bw - got)
			take = bw - got;
		v |= (uint64_t)((p[pos >> 3] >> sh) & ((1u << take) - 1))
		    << got;
		got += take;
		pos += take;
	}
	return v;
}

/* OR the low bw bits of v into zeroed p at bit position pos. */
static void
put_bits(uint8_t *p, uint64_t pos, int bw, uint64_t v)
{
	int done = 0;

	while (done < bw) {
		int sh = (int)(pos & 7), take = 8 - sh;

		if (take > bw - done)
			take = bw - done;
		p[pos >> 3] |=
		    (uint8_t)(((v >> done) & ((1u << take) - 1)) << sh);
		done += take;
		pos += take;
	}
}

static int
uvarint(const uint8_t *p, size_t n, size_t *pos, uint64_t *v)
{
	uint64_t x = 0;
	int shift;

	for (shift = 0; shift < 64; shift += 7) {
		if (*pos >= n)
			return -1;
		x |= (uint64_t)(p[*pos] & 0x7f) << shift;
		if ((p[(*pos)++] & 0x80) == 0) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

int
sc_pq_dec_plain(struct sc_pq_vals *v, const uint8_t *p, size_t n, size_t count,
    size_t *used, struct sc_error *err)
{
	size_t i, pos = 0;
	uint32_t len;
	uint8_t bit;

	switch (v->type) {
	case SC_PQ_BOOLEAN:
		if (count > n * 8)
			return BAD(err, "booleans past the end of the page");
		reserve(v, count, 0);
		for (i = 0; i < count; i++) {
			bit = (p[i >> 3] >> (i & 7)) & 1;
			v->fix[v->n++] = bit;
		}
		pos = (count + 7) / 8;
		break;
	case SC_PQ_BYTE_ARRAY:
		/* Each value takes at least its 4-byte length. */
		if (count > n / 4)
			return BAD(err, "values past the end of the page");
		reserve(v, count, 0);
		for (i = 0; i < count; i++) {
			if (n - pos < 4)
				return BAD(err,
				    "values past the end of the page");
			memcpy(&len, p + pos, 4);
			pos += 4;
			if (len > n - pos)
				return BAD(err,
				    "a value past the end of the page");
			sc_pq_vals_add(v, p + pos, len);
			pos += len;
		}
		break;
	default:
		if (v->width == 0)
			return BAD(err, "values of no width");
		if (count > n / v->width)
			return BAD(err, "values past the end of the page");
		if (count == 0)
			break;
		reserve(v, count, 0);
		memcpy(v->fix + v->n * v->width, p, count * v->width);
		v->n += count;
		pos = count * v->width;
		break;
	}
	if (used != NULL)
		*used = pos;
	return 0;
}

int
sc_pq_dec_rle(const uint8_t *p, size_t n, int bw, uint32_t *out, size_t count,
    struct sc_error *err)
{
	size_t i = 0, pos = 0, vbytes = ((size_t)bw + 7) / 8, take, k;
	uint64_t header, groups, bits;
	uint32_t val;

	if (bw < 0 || bw > 32)
		return BAD(err, "bit width over 32");
	while (i < count) {
		if (uvarint(p, n, &pos, &header) == -1)
			return BAD(err, "run header past the end of the page");
		if (header & 1) {
			groups = header >> 1;
			if (groups > (SIZE_MAX / 8) / 64)
				return BAD(err, "bit-packed run too long");
			take = count - i;
			if (groups * 8 < take)
				take = (size_t)groups * 8;
			bits = (uint64_t)take * (uint64_t)bw;
			if ((bits + 7) / 8 > n - pos)
				return BAD(err,
				    "bit-packed run past the end of the page");
			for (k = 0; k < take; k++)
				out[i++] = (uint32_t)get_bits(p + pos,
				    (uint64_t)k * bw, bw);
			/* A short last run may end before its groups do. */
			if (groups * bw > n - pos)
				pos = n;
			else
				pos += (size_t)(groups * bw);
		} else {
			if (vbytes > n - pos)
				return BAD(err,
				    "run value past the end of the page");
			val = 0;
			for (k = 0; k < vbytes; k++)
				val |= (uint32_t)p[pos + k] << (8 * k);
			pos += vbytes;
			if (bw < 32 && val >> bw != 0)
				return BAD(err,
				    "run value wider than its bit width");
			take = count - i;
			if ((header >> 1) < take)
				take = (size_t)(header >> 1);
			for (k = 0; k < take; k++)
				out[i++] = val;
		}
	}
	return 0;
}

int
sc_pq_dec_dict(struct sc_pq_vals *v, const struct sc_pq_vals *dict,
    const uint8_t *p, size_t n, size_t count, struct sc_error *err)
{
	uint32_t *idx;
	const uint8_t *e;
	size_t i, len;

	if (n < 1)
		return BAD(err, "dictionary indices missing");
	idx = sc_xreallocarray(NULL, count ? count : 1, sizeof(*idx));
	if (sc_pq_dec_rle(p + 1, n - 1, p[0], idx, count, err) == -1) {
		free(idx);
		return -1;
	}
	for (i = 0; i < count; i++)
		if (idx[i] >= dict->n) {
			free(idx);
			return BAD(err, "dictionary index out of range");
		}
	reserve(v, count, 0);
	for (i = 0; i < count; i++) {
		e = sc_pq_vals_get(dict, idx[i], &len);
		sc_pq_vals_add(v, e, len);
	}
	free(idx);
	return 0;
}

int
sc_pq_dec_delta(const uint8_t *p, size_t n, bool bits32, int64_t *out,
    size_t count, size_t *used, struct sc_error *err)
{
	uint64_t block, nmini, total, u, mind, per, prev, d;
	size_t pos = 0, i, m, k, take, mpos;
	const uint8_t *widths;
	int64_t first, md;

	if (uvarint(p, n, &pos, &block) == -1 ||
	    uvarint(p, n, &pos, &nmini) == -1 ||
	    uvarint(p, n, &pos, &total) == -1 || uvarint(p, n, &pos, &u) == -1)
		return BAD(err, "delta header past the end of the page");
	first = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	if (block == 0 || block % 128 != 0 || block > 1u << 20 || nmini == 0 ||
	    block % nmini != 0 || (block / nmini) % 32 != 0)
		return BAD(err, "delta block sizes out of range");
	if (total != count)
		return BAD(err, "delta value count differs from the page's");
	per = block / nmini;
	i = 0;
	prev = (uint64_t)first;
	if (count > 0)
		out[i++] = bits32 ? (int32_t)(uint32_t)prev : (int64_t)prev;
	while (i < count) {
		if (uvarint(p, n, &pos, &mind) == -1)
			return BAD(err, "delta block past the end of the page");
		md = (int64_t)(mind >> 1) ^ -(int64_t)(mind & 1);
		if (nmini > n - pos)
			return BAD(err,
			    "delta bit widths past the end of the page");
		widths = p + pos;
		pos += (size_t)nmini;
		for (m = 0; m < nmini && i < count; m++) {
			if (widths[m] > 64)
				return BAD(err, "delta bit width over 64");
			take = count - i < per ? count - i : (size_t)per;
			if (((uint64_t)take * widths[m] + 7) / 8 > n - pos)
				return BAD(err,
				    "delta values past the end of the page");
			mpos = pos;
			for (k = 0; k < take; k++) {
				d = get_bits(p + mpos, (uint64_t)k * widths[m],
				    widths[m]);
				prev = prev + (uint64_t)md + d;
				if (bits32)
					prev = (uint32_t)prev;
				out[i++] = bits32 ? (int32_t)(uint32_t)prev
						  : (int64_t)prev;
			}
			if (per * widths[m] / 8 > n - pos)
				pos = n;
			else
				pos += (size_t)(per * widths[m] / 8);
		}
	}
	*used = pos;
	return 0;
}

/* Decoded int64s, bounded by count (which the caller has bounded). */
static int64_t *
delta_ints(const uint8_t *p, size_t n, bool bits32, size_t count, size_t *used,
    struct sc_error *err)
{
	int64_t *out;

	out = sc_xreallocarray(NULL, count ? count : 1, sizeof(*out));
	if (sc_pq_dec_delta(p, n, bits32, out, count, used, err) == -1) {
		free(out);
		return NULL;
	}
	return out;
}

int
sc_pq_dec_delta_vals(struct sc_pq_vals *v, const uint8_t *p, size_t n,
    size_t count, struct sc_error *err)
{
	int64_t *out;
	int32_t x;
	size_t i, used;

	if (v->type != SC_PQ_INT32 && v->type != SC_PQ_INT64)
		return BAD(err,
		    "DELTA_BINARY_PACKED for a type other than INT32 or INT64");
	if ((out = delta_ints(p, n, v->type == SC_PQ_INT32, count, &used,
		 err)) == NULL)
		return -1;
	reserve(v, count, 0);
	for (i = 0; i < count; i++) {
		if (v->type == SC_PQ_INT32) {
			x = (int32_t)out[i];
			memcpy(v->fix + v->n * 4, &x, 4);
		} else
			memcpy(v->fix + v->n * 8, &out[i], 8);
		v->n++;
	}
	free(out);
	return 0;
}

/* Lengths, then the bytes: the suffixes of DELTA_BYTE_ARRAY too. */
static int
delta_length(struct sc_pq_vals *v, const uint8_t *p, size_t n, size_t count,
    const int64_t *prefix, struct sc_error *err)
{
	int64_t *len;
	size_t i, used, pos, plen, prevlen = 0;
	uint64_t sum = 0;
	const uint8_t *prev;

	if ((len = delta_ints(p, n, true, count, &used, err)) == NULL)
		return -1;
	for (i = 0; i < count; i++) {
		if (len[i] < 0) {
			free(len);
			return BAD(err, "negative value length");
		}
		sum += (uint64_t)len[i];
	}
	if (sum > n - used) {
		free(len);
		return BAD(err, "values past the end of the page");
	}
	pos = used;
	reserve(v, count, 0);
	for (i = 0; i < count; i++) {
		if (prefix == NULL) {
			sc_pq_vals_add(v, p + pos, (size_t)len[i]);
			pos += (size_t)len[i];
			continue;
		}
		plen = (size_t)prefix[i];
		if (prefix[i] < 0 || plen > prevlen) {
			free(len);
			return BAD(err,
			    "prefix longer than the previous value");
		}
		reserve(v, 1, plen + (size_t)len[i]);
		/* The previous value is the last one of v. */
		prev = v->data + v->off[v->n - (i > 0 ? 1 : 0)];
		if (plen > 0)
			memmove(v->data + v->dlen, prev, plen);
		if (len[i] > 0)
			memcpy(v->data + v->dlen + plen, p + pos,
			    (size_t)len[i]);
		v->dlen += plen + (size_t)len[i];
		v->n++;
		v->off[v->n] = v->dlen;
		pos += (size_t)len[i];
		prevlen = plen + (size_t)len[i];
	}
	free(len);
	return 0;
}

int
sc_pq_dec_delta_length(struct sc_pq_vals *v, const uint8_t *p, size_t n,
    size_t count, struct sc_error *err)
{
	if (v->type != SC_PQ_BYTE_ARRAY)
		return BAD(err,
		    "DELTA_LENGTH_BYTE_ARRAY for a type other than BYTE_ARRAY");
	return delta_length(v, p, n, count, NULL, err);
}

int
sc_pq_dec_delta_bytes(struct sc_pq_vals *v, const uint8_t *p, size_t n,
    size_t count, struct sc_error *err)
{
	struct sc_pq_vals tmp;
	int64_t *prefix;
	const uint8_t *e;
	size_t used, i, len;
	int rc;

	if (v->type != SC_PQ_BYTE_ARRAY && v->type != SC_PQ_FIXED)
		return BAD(err,
		    "DELTA_BYTE_ARRAY for a type other than a byte array");
	if ((prefix = delta_ints(p, n, true, count, &used, err)) == NULL)
		return -1;
	sc_pq_vals_init(&tmp, SC_PQ_BYTE_ARRAY, 0);
	rc = delta_length(&tmp, p + used, n - used, count, prefix, err);
	free(prefix);
	for (i = 0; rc == 0 && i < count; i++) {
		e = sc_pq_vals_get(&tmp, i, &len);
		if (v->type == SC_PQ_FIXED && len != v->width)
			rc =
			    BAD(err, "value of another length than its type's");
		else
			sc_pq_vals_add(v, e, len);
	}
	sc_pq_vals_release(&tmp);
	return rc;
}

int
sc_pq_dec_byte_stream_split(struct sc_pq_vals *v, const uint8_t *p, size_t n,
    size_t count, struct sc_error *err)
{
	size_t i, k, w = v->width;
	uint8_t *dst;

	if (v->type == SC_PQ_BYTE_ARRAY || v->type == SC_PQ_BOOLEAN || w == 0)
		return BAD(err,
		    "BYTE_STREAM_SPLIT for a type of no fixed width");
	if (count > n / w)
		return BAD(err, "values past the end of the page");
	reserve(v, count, 0);
	dst = v->fix + v->n * w;
	for (i = 0; i < count; i++)
		for (k = 0; k < w; k++)
			dst[i * w + k] = p[k * count + i];
	v->n += count;
	return 0;
}

/* --- encoders ------------------------------------------------------ */

void
sc_pq_enc_plain(struct sc_buf *b, const struct sc_pq_vals *v, size_t from,
    size_t to)
{
	uint8_t byte = 0;
	uint32_t len;
	size_t i;

	switch (v->type) {
	case SC_PQ_BOOLEAN:
		for (i = from; i < to; i++) {
			if (v->fix[i])
				byte |= (uint8_t)(1u << ((i - from) & 7));
			if (((i - from) & 7) == 7 || i + 1 == to) {
				(void)sc_buf_addch(b, byte, NULL);
				byte = 0;
			}
		}
		break;
	case SC_PQ_BYTE_ARRAY:
		for (i = from; i < to; i++) {
			len = (uint32_t)(v->off[i + 1] - v->off[i]);
			(void)sc_buf_add(b, &len, 4, NULL);
			(void)sc_buf_add(b, v->data + v->off[i], len, NULL);
		}
		break;
	default:
		(void)sc_buf_add(b, v->fix + from * v->width,
		    (to - from) * v->width, NULL);
		break;
	}
}

static void
w_uvarint(struct sc_buf *b, uint64_t v)
{
	do {
		(void)sc_buf_addch(b, (int)(v & 0x7f) | (v > 0x7f ? 0x80 : 0),
		    NULL);
		v >>= 7;
	} while (v != 0);
}

/* Bit-pack vals[0..n) (n a multiple of 8 after padding) with width bw. */
static void
w_packed(struct sc_buf *b, const uint32_t *vals, size_t n, size_t groups,
    int bw)
{
	size_t bytes = groups * (size_t)bw, i;
	uint8_t *out;

	if (sc_buf_grow(b, bytes + 1, NULL) == -1)
		return;
	out = b->data + b->len;
	memset(out, 0, bytes);
	for (i = 0; i < n; i++)
		put_bits(out, (uint64_t)i * bw, bw, vals[i]);
	sc_buf_setlen(b, b->len + bytes);
}

void
sc_pq_enc_rle(struct sc_buf *b, const uint32_t *vals, size_t n, int bw)
{
	size_t i = 0, run, start, k;
	int vbytes = (bw + 7) / 8;

	while (i < n) {
		for (run = 1; i + run < n && vals[i + run] == vals[i]; run++)
			;
		if (run >= 8) {
			w_uvarint(b, (uint64_t)run << 1);
			for (k = 0; k < (size_t)vbytes; k++)
				(void)sc_buf_addch(b,
				    (vals[i] >> (8 * k)) & 0xff, NULL);
			i += run;
			continue;
		}
		/* Groups of eight until a long run starts a group. */
		start = i;
		do {
			i += 8;
			if (i >= n)
				break;
			for (run = 1; i + run < n && vals[i + run] == vals[i];
			     run++)
				;
		} while (run < 8);
		if (i > n)
			i = n;
		w_uvarint(b, ((uint64_t)((i - start + 7) / 8) << 1) | 1);
		w_packed(b, vals + start, i - start, (i - start + 7) / 8, bw);
	}
}

void
sc_pq_enc_delta(struct sc_buf *b, const int64_t *vals, size_t n)
{
	enum { BLOCK = 128, MINI = 4, PER = BLOCK / MINI };
	uint64_t adj[BLOCK], maxv;
	int64_t d[BLOCK], mind;
	size_t i, k, m, cnt, base;
	int bw[MINI];
	uint8_t *out;

	w_uvarint(b, BLOCK);
	w_uvarint(b, MINI);
	w_uvarint(b, n);
	w_uvarint(b,
	    n ? ((uint64_t)vals[0] << 1) ^ (uint64_t)(vals[0] >> 63) : 0);
	for (base = 1; base < n; base += BLOCK) {
		cnt = n - base < BLOCK ? n - base : BLOCK;
		mind = INT64_MAX;
		for (k = 0; k < cnt; k++) {
			d[k] = (int64_t)((uint64_t)vals[base + k] -
			    (uint64_t)vals[base + k - 1]);
			if (d[k] < mind)
				mind = d[k];
		}
		for (k = 0; k < BLOCK; k++)
			adj[k] = k < cnt ? (uint64_t)d[k] - (uint64_t)mind : 0;
		w_uvarint(b, ((uint64_t)mind << 1) ^ (uint64_t)(mind >> 63));
		for (m = 0; m < MINI; m++) {
			maxv = 0;
			for (k = m * PER; k < (m + 1) * PER; k++)
				if (adj[k] > maxv)
					maxv = adj[k];
			bw[m] = m * PER < cnt ? sc_pq_bit_width(maxv) : 0;
			(void)sc_buf_addch(b, bw[m], NULL);
		}
		for (m = 0; m < MINI && m * PER < cnt; m++) {
			if (sc_buf_grow(b, (size_t)PER * 8 + 1, NULL) == -1)
				return;
			out = b->data + b->len;
			memset(out, 0, (size_t)PER * bw[m] / 8);
			for (i = 0; i < PER; i++)
				put_bits(out, (uint64_t)i * bw[m], bw[m],
				    adj[m * PER + i]);
			sc_buf_setlen(b, b->len + (size_t)PER * bw[m] / 8);
		}
	}
}

void
sc_pq_enc_byte_stream_split(struct sc_buf *b, const struct sc_pq_vals *v)
{
	size_t i, k;

	for (k = 0; k < v->width; k++)
		for (i = 0; i < v->n; i++)
			(void)sc_buf_addch(b, v->fix[i * v->width + k], NULL);
}
