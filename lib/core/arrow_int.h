/* SPDX-License-Identifier: MIT */

/*
 * arrow_int.h: what the Arrow module's files share and nobody else sees:
 * little-endian readers (Arrow input has no alignment guarantee, so
 * scalars are assembled byte by byte) and the decoded column that
 * arrow_read.c builds and arrow_format.c reads.
 */

#ifndef SC_ARROW_INT_H
#define SC_ARROW_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/arrow.h"

static inline uint16_t
sc_arrow_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t
sc_arrow_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static inline uint64_t
sc_arrow_rd64(const uint8_t *p)
{
	return (uint64_t)sc_arrow_rd32(p) |
	    (uint64_t)sc_arrow_rd32(p + 4) << 32;
}

static inline int64_t
sc_arrow_rdi64(const uint8_t *p)
{
	uint64_t u = sc_arrow_rd64(p);
	int64_t v;

	memcpy(&v, &u, 8);
	return v;
}

/*
 * One decoded column of a record batch: pointers into the caller's
 * input, every range checked by arrow_read.c before a callback sees it.
 */
struct sc_arrow_col {
	const struct sc_arrow_field *f;
	int64_t length;
	int64_t null_count;
	bool allnull; /* Null type or no bitmap */
	const uint8_t *validity; /* NULL: see allnull */
	const uint8_t *values; /* fixed width, bool bits */
	const uint8_t *offsets; /* var-width, list, map */
	const uint8_t *data; /* var-width bytes */
	struct sc_arrow_col *children;
	size_t nchildren;
};

#endif
