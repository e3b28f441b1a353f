/* SPDX-License-Identifier: MIT */

/*
 * encoding.h: Parquet's value and level encodings: PLAIN, the
 * RLE/bit-packed hybrid (levels, booleans, dictionary indices),
 * dictionaries, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
 * DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT; decoders bounded by their
 * input, and the encoders the writer (and the tests) need.
 *
 * Values are held as Parquet stores them on a little-endian machine:
 * fixed-width types side by side (BOOLEAN one byte each, INT96 twelve),
 * BYTE_ARRAY as offsets into one data block.
 */

#ifndef SC_PQ_ENCODING_H
#define SC_PQ_ENCODING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_buf;
struct sc_error;

/* A run of values of one physical type. */
struct sc_pq_vals {
	int type; /* enum sc_pq_type */
	size_t width; /* bytes per value; 0 for BYTE_ARRAY */
	size_t n, cap;
	uint8_t *fix; /* n * width bytes (fixed-width types) */
	uint64_t *off; /* BYTE_ARRAY: n + 1 offsets into data */
	uint8_t *data;
	size_t dlen, dcap;
};

/* Width of a physical type's values (type_length for FIXED); 0: bytes. */
size_t sc_pq_type_width(int type, int32_t type_length);
void sc_pq_vals_init(struct sc_pq_vals *v, int type, size_t width);
void sc_pq_vals_release(struct sc_pq_vals *v);
/* Empty v, keeping its allocation. */
void sc_pq_vals_reset(struct sc_pq_vals *v);
/* Append one value (fixed: width bytes; BYTE_ARRAY: len bytes). */
void sc_pq_vals_add(struct sc_pq_vals *v, const void *p, size_t len);
/* Value i: its bytes and length. */
const uint8_t *sc_pq_vals_get(const struct sc_pq_vals *v, size_t i,
    size_t *len);

/* Bits needed for values up to max (0 for 0). */
int sc_pq_bit_width(uint64_t max);

/*
 * Decoders.  Each reads count values from [p, p + n) and appends them to
 * v (or writes out[]), or fails with SC_ST_PROTOCOL ("... past the end
 * of the page", ...) without appending a partial value.
 */
int sc_pq_dec_plain(struct sc_pq_vals *v, const uint8_t *p, size_t n,
    size_t count, size_t *used, struct sc_error *err);
/* The hybrid with bit width bw (0..32), no length prefix. */
int sc_pq_dec_rle(const uint8_t *p, size_t n, int bw, uint32_t *out,
    size_t count, struct sc_error *err);
/* Dictionary indices (bit width byte, then the hybrid) into v. */
int sc_pq_dec_dict(struct sc_pq_vals *v, const struct sc_pq_vals *dict,
    const uint8_t *p, size_t n, size_t count, struct sc_error *err);
/*
 * DELTA_BINARY_PACKED: count values (int32 columns wrap at 32 bits when
 * bits32), *used the bytes taken.  The header's count must be >= count.
 */
int sc_pq_dec_delta(const uint8_t *p, size_t n, bool bits32, int64_t *out,
    size_t count, size_t *used, struct sc_error *err);
/* DELTA_BINARY_PACKED into INT32/INT64 values. */
int sc_pq_dec_delta_vals(struct sc_pq_vals *v, const uint8_t *p, size_t n,
    size_t count, struct sc_error *err);
int sc_pq_dec_delta_length(struct sc_pq_vals *v, const uint8_t *p, size_t n,
    size_t count, struct sc_error *err);
int sc_pq_dec_delta_bytes(struct sc_pq_vals *v, const uint8_t *p, size_t n,
    size_t count, struct sc_error *err);
int sc_pq_dec_byte_stream_split(struct sc_pq_vals *v, const uint8_t *p,
    size_t n, size_t count, struct sc_error *err);

/* Encoders (append to b; failure sticky in b). */
void sc_pq_enc_plain(struct sc_buf *b, const struct sc_pq_vals *v, size_t from,
    size_t to);
void sc_pq_enc_rle(struct sc_buf *b, const uint32_t *vals, size_t n, int bw);
void sc_pq_enc_delta(struct sc_buf *b, const int64_t *vals, size_t n);
void sc_pq_enc_byte_stream_split(struct sc_buf *b, const struct sc_pq_vals *v);

#endif
