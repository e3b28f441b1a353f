/* SPDX-License-Identifier: MIT */

/*
 * codec.c: SNAPPY, GZIP and ZSTD pages.  Decompression never trusts the
 * size a page header claims: zlib and zstd stream into a buffer that
 * grows with what they produce, and snappy's own length must agree.
 */

#include "parquet/codec.h"

#include <limits.h>
#include <snappy-c.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "core/buf.h"
#include "core/error.h"
#include "parquet/meta.h"
#include "core/banned.h"

bool
sc_pq_codec_supported(int codec)
{
	return codec == SC_PQ_UNCOMPRESSED || codec == SC_PQ_SNAPPY ||
	    codec == SC_PQ_GZIP || codec == SC_PQ_ZSTD;
}

static int
bad(struct sc_error *err, int codec, const char *what)
{
	return sc_error_set(err, SC_ST_PROTOCOL,
	    "malformed Parquet page: %s data %s", sc_pq_codec_name(codec),
	    what);
}

/* Room for the next piece of output: at most want bytes in all. */
static int
grow_to(struct sc_buf *out, size_t base, size_t want, size_t *room,
    struct sc_error *err)
{
	size_t have = out->len - base, step;

	step = have < 65536 ? 65536 : have;
	if (step > want - have)
		step = want - have;
	if (sc_buf_grow(out, step + 1, err) == -1)
		return -1;
	*room = step;
	return 0;
}

static int
gunzip(const uint8_t *p, size_t n, size_t want, struct sc_buf *out,
    struct sc_error *err)
{
	size_t base = out->len, room;
	z_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	/* 15 + 32: a gzip or zlib header, whichever it is. */
	if (inflateInit2(&z, 15 + 32) != Z_OK)
		return sc_error_set(err, SC_ST_INTERNAL, "cannot start zlib");
	if (n > UINT_MAX) {
		inflateEnd(&z);
		return bad(err, SC_PQ_GZIP, "too long");
	}
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)n;
	for (;;) {
		if (out->len - base == want) {
			/* Only the end of the stream may follow. */
			uint8_t tmp[1];

			z.next_out = tmp;
			z.avail_out = 1;
			rc = inflate(&z, Z_NO_FLUSH);
			if (rc == Z_STREAM_END && z.avail_out == 1)
				break;
			inflateEnd(&z);
			return bad(err, SC_PQ_GZIP,
			    "longer than the page's size");
		}
		if (grow_to(out, base, want, &room, err) == -1) {
			inflateEnd(&z);
			return -1;
		}
		z.next_out = out->data + out->len;
		z.avail_out = (uInt)(room > UINT_MAX ? UINT_MAX : room);
		rc = inflate(&z, Z_NO_FLUSH);
		sc_buf_setlen(out, (size_t)((uint8_t *)z.next_out - out->data));
		if (rc == Z_STREAM_END) {
			/* Concatenated members: start the next one. */
			if (z.avail_in > 0 && out->len - base < want &&
			    inflateReset(&z) == Z_OK)
				continue;
			break;
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			inflateEnd(&z);
			return bad(err, SC_PQ_GZIP, "corrupt");
		}
		if (rc == Z_BUF_ERROR && z.avail_in == 0) {
			inflateEnd(&z);
			return bad(err, SC_PQ_GZIP, "truncated");
		}
	}
	inflateEnd(&z);
	if (out->len - base != want)
		return bad(err, SC_PQ_GZIP, "of another size than the page's");
	return 0;
}

static int
unzstd(const uint8_t *p, size_t n, size_t want, struct sc_buf *out,
    struct sc_error *err)
{
	ZSTD_inBuffer in = { p, n, 0 };
	ZSTD_outBuffer ob;
	size_t base = out->len, room, rc;
	ZSTD_DCtx *dc;

	if ((dc = ZSTD_createDCtx()) == NULL)
		return sc_error_set(err, SC_ST_INTERNAL, "cannot start zstd");
	for (;;) {
		if (out->len - base == want) {
			uint8_t tmp[1];

			ob.dst = tmp;
			ob.size = 1;
			ob.pos = 0;
			rc = in.pos < in.size
			    ? ZSTD_decompressStream(dc, &ob, &in)
			    : 0;
			if (ZSTD_isError(rc) || ob.pos != 0 || rc != 0) {
				ZSTD_freeDCtx(dc);
				return bad(err, SC_PQ_ZSTD,
				    ZSTD_isError(rc)
					? "corrupt"
					: "longer than the page's size");
			}
			break;
		}
		if (grow_to(out, base, want, &room, err) == -1) {
			ZSTD_freeDCtx(dc);
			return -1;
		}
		ob.dst = out->data + out->len;
		ob.size = room;
		ob.pos = 0;
		rc = ZSTD_decompressStream(dc, &ob, &in);
		sc_buf_setlen(out, out->len + ob.pos);
		if (ZSTD_isError(rc)) {
			ZSTD_freeDCtx(dc);
			return bad(err, SC_PQ_ZSTD, "corrupt");
		}
		if (ob.pos == 0 && in.pos == in.size) {
			ZSTD_freeDCtx(dc);
			return bad(err, SC_PQ_ZSTD, "truncated");
		}
	}
	ZSTD_freeDCtx(dc);
	return 0;
}

int
sc_pq_decompress(int codec, const uint8_t *p, size_t n, size_t want,
    struct sc_buf *out, struct sc_error *err)
{
	size_t len;

	switch (codec) {
	case SC_PQ_UNCOMPRESSED:
		if (n != want)
			return sc_error_set(err, SC_ST_PROTOCOL,
			    "malformed Parquet page: sizes differ in an uncompressed page");
		return sc_buf_add(out, p, n, err);
	case SC_PQ_SNAPPY:
		/* No snappy element expands more than 22 times. */
		if (want / 32 > n)
			return bad(err, codec, "shorter than the page's size");
		if (snappy_uncompressed_length((const char *)p, n, &len) !=
			SNAPPY_OK ||
		    len != want)
			return bad(err, codec,
			    "of another size than the page's");
		if (sc_buf_grow(out, len + 1, err) == -1)
			return -1;
		if (snappy_uncompress((const char *)p, n,
			(char *)out->data + out->len, &len) != SNAPPY_OK ||
		    len != want)
			return bad(err, codec, "corrupt");
		sc_buf_setlen(out, out->len + len);
		return 0;
	case SC_PQ_GZIP:
		return gunzip(p, n, want, out, err);
	case SC_PQ_ZSTD:
		return unzstd(p, n, want, out, err);
	default:
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "unsupported Parquet codec %s", sc_pq_codec_name(codec));
	}
}

int
sc_pq_compress(int codec, int level, const uint8_t *p, size_t n,
    struct sc_buf *out, struct sc_error *err)
{
	size_t len;
	z_stream z;
	int rc;

	switch (codec) {
	case SC_PQ_UNCOMPRESSED:
		return sc_buf_add(out, p, n, err);
	case SC_PQ_SNAPPY:
		len = snappy_max_compressed_length(n);
		if (sc_buf_grow(out, len + 1, err) == -1)
			return -1;
		if (snappy_compress((const char *)p, n,
			(char *)out->data + out->len, &len) != SNAPPY_OK)
			return sc_error_set(err, SC_ST_INTERNAL,
			    "snappy compression failed");
		sc_buf_setlen(out, out->len + len);
		return 0;
	case SC_PQ_GZIP:
		memset(&z, 0, sizeof(z));
		if (deflateInit2(&z, level > 0 ? level : 6, Z_DEFLATED, 15 + 16,
			8, Z_DEFAULT_STRATEGY) != Z_OK)
			return sc_error_set(err, SC_ST_INTERNAL,
			    "cannot start zlib");
		len = deflateBound(&z, (uLong)n) + 32;
		if (sc_buf_grow(out, len + 1, err) == -1) {
			deflateEnd(&z);
			return -1;
		}
		z.next_in = (Bytef *)(uintptr_t)p;
		z.avail_in = (uInt)n;
		z.next_out = out->data + out->len;
		z.avail_out = (uInt)len;
		rc = deflate(&z, Z_FINISH);
		deflateEnd(&z);
		if (rc != Z_STREAM_END)
			return sc_error_set(err, SC_ST_INTERNAL,
			    "gzip compression failed");
		sc_buf_setlen(out, out->len + (len - z.avail_out));
		return 0;
	case SC_PQ_ZSTD:
		len = ZSTD_compressBound(n);
		if (sc_buf_grow(out, len + 1, err) == -1)
			return -1;
		len = ZSTD_compress(out->data + out->len, len, p, n,
		    level > 0 ? level : 3);
		if (ZSTD_isError(len))
			return sc_error_set(err, SC_ST_INTERNAL,
			    "zstd compression failed");
		sc_buf_setlen(out, out->len + len);
		return 0;
	default:
		return sc_error_set(err, SC_ST_USAGE,
		    "unsupported Parquet codec %s", sc_pq_codec_name(codec));
	}
}
