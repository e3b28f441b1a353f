/* SPDX-License-Identifier: MIT */

/*
 * codec.h: Parquet's page compression through Debian's libraries:
 * SNAPPY (libsnappy), GZIP (zlib), ZSTD (libzstd), or none.
 */

#ifndef SC_PQ_CODEC_H
#define SC_PQ_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_buf;
struct sc_error;

/* Whether this build reads and writes codec (enum sc_pq_codec). */
bool sc_pq_codec_supported(int codec);

/*
 * Decompress [p, p + n) into out, which must come to exactly want bytes
 * (the page header's uncompressed size); out grows only as the data
 * does, so a header claiming more than the data holds costs nothing.
 * -1 (SC_ST_PROTOCOL) on corrupt data or another size.
 */
int sc_pq_decompress(int codec, const uint8_t *p, size_t n, size_t want,
    struct sc_buf *out, struct sc_error *err);

/* Append the compressed form of [p, p + n) to out; -1 on failure. */
int sc_pq_compress(int codec, int level, const uint8_t *p, size_t n,
    struct sc_buf *out, struct sc_error *err);

#endif
