/* SPDX-License-Identifier: MIT */

/*
 * crc.c: CRC-32 (IEEE 802.3, zlib's crc32()) over buffers and files.
 *
 * zlib's length parameter is a uInt, so larger buffers are fed in
 * pieces; the CRC is the same however the input is split.
 */

#include "core/crc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>
#include <zlib.h>

#include "core/error.h"
#include "core/banned.h"

/* Largest piece handed to zlib at once (fits in uInt). */
#define CRC_PIECE ((size_t)1 << 30)
_Static_assert(CRC_PIECE <= UINT_MAX, "a piece's length fits in uInt");

uint32_t
sc_crc32_update_pieces(uint32_t crc, const void *p, size_t n, size_t piece)
{
	const Bytef *b = p;
	uLong c = crc;
	size_t k;

	while (n > 0) {
		k = n < piece ? n : piece;
		c = crc32(c, b, (uInt)k);
		b += k;
		n -= k;
	}
	return (uint32_t)c;
}

uint32_t
sc_crc32_update(uint32_t crc, const void *p, size_t n)
{
	return sc_crc32_update_pieces(crc, p, n, CRC_PIECE);
}

/* Read fd to end of file; what == NULL means "descriptor". */
static int
crc_fd(int fd, const char *what, uint32_t *out, struct sc_error *err)
{
	unsigned char buf[65536];
	uint32_t crc = 0;
	ssize_t r;

	for (;;) {
		r = read(fd, buf, sizeof(buf));
		if (r == 0)
			break;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (what != NULL)
				return sc_error_set_errno(err, SC_ST_IO, errno,
				    "cannot read '%s'", what);
			return sc_error_set_errno(err, SC_ST_IO, errno,
			    "cannot read file descriptor %d", fd);
		}
		crc = sc_crc32_update(crc, buf, (size_t)r);
	}
	*out = crc;
	return 0;
}

int
sc_crc32_fd(int fd, uint32_t *out, struct sc_error *err)
{
	return crc_fd(fd, NULL, out, err);
}

int
sc_crc32_file(const char *path, uint32_t *out, struct sc_error *err)
{
	int fd, rc, saved;

	while ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		if (errno != EINTR)
			return sc_error_set_errno(err, SC_ST_IO, errno,
			    "cannot open '%s'", path);
	}
	rc = crc_fd(fd, path, out, err);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}
