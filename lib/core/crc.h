/* SPDX-License-Identifier: MIT */

/*
 * crc.h: CRC-32 over buffers, file descriptors and files.
 *
 * The variant is the IEEE 802.3 CRC-32 (polynomial 0x04C11DB7, reflected
 * 0xEDB88320, initial value and final XOR 0xFFFFFFFF), as computed by
 * zlib's crc32() and java.util.zip.CRC32.  This is what Spark's
 * AddArtifacts expects in SingleChunkArtifact.crc / ArtifactChunk.crc.
 * Its check value, the CRC of the ASCII string "123456789", is 0xCBF43926;
 * the CRC of no bytes is 0.
 */

#ifndef SC_CRC_H
#define SC_CRC_H

#include <stddef.h>
#include <stdint.h>

struct sc_error;

/*
 * Continue a CRC over n more bytes at p (p may be NULL when n is 0).
 * Start with crc 0; the result of each call is the CRC of everything
 * fed so far, so a stream may be split at any point.  n may exceed
 * UINT_MAX.
 */
uint32_t sc_crc32_update(uint32_t crc, const void *p, size_t n);

/*
 * sc_crc32_update() handing zlib at most piece bytes at a time (piece
 * > 0, at most UINT_MAX); sc_crc32_update() is this with pieces of
 * 1 GiB.  Separate so that the splitting is tested on small buffers.
 */
uint32_t sc_crc32_update_pieces(uint32_t crc, const void *p, size_t n,
    size_t piece);

/*
 * CRC of everything readable from fd, from its current offset to end of
 * file (fd is left at end of file, not closed).  0 and *out set, or -1
 * with err set (SC_ST_IO, errno) on a read error.
 */
int sc_crc32_fd(int fd, uint32_t *out, struct sc_error *err);

/*
 * CRC of the whole file at path.  0 and *out set, or -1 with err set
 * (SC_ST_IO: "cannot open '<path>': ..." or "cannot read '<path>': ...").
 */
int sc_crc32_file(const char *path, uint32_t *out, struct sc_error *err);

#endif
