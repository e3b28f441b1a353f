/* SPDX-License-Identifier: MIT */

/*
 * test-crc.c: CRC-32 check value, chunking independence, fd and file
 * helpers.
 */

#include "core/crc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/error.h"
#include "tap.h"
#include "core/banned.h"

static void
test_values(void)
{
	is_int(sc_crc32_update(0, "123456789", 9), 0xCBF43926u,
	    "check value of \"123456789\" is 0xCBF43926");
	is_int(sc_crc32_update(0, "", 0), 0, "crc of nothing is 0");
	is_int(sc_crc32_update(0, NULL, 0), 0, "NULL with length 0 is 0");
	is_int(sc_crc32_update(0x12345678u, NULL, 0), 0x12345678u,
	    "no bytes leave the crc alone");
	is_int(sc_crc32_update(0, "a", 1), 0xE8B7BE43u, "crc of \"a\"");
	is_int(sc_crc32_update(0, "The quick brown fox jumps over the lazy dog",
		   43),
	    0x414FA339u, "crc of the quick brown fox");
}

static void
test_splits(void)
{
	unsigned char buf[1000];
	uint32_t whole, c;
	size_t i, bad = 0;

	srand(12345);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)rand();
	whole = sc_crc32_update(0, buf, sizeof(buf));
	for (i = 0; i <= sizeof(buf); i++) {
		c = sc_crc32_update(0, buf, i);
		c = sc_crc32_update(c, buf + i, sizeof(buf) - i);
		if (c != whole)
			bad++;
	}
	is_int(bad, 0, "every split point of 1000 bytes gives the same crc");
	c = 0;
	for (i = 0; i < sizeof(buf); i++)
		c = sc_crc32_update(c, buf + i, 1);
	is_int(c, whole, "byte by byte gives the same crc");
	c = sc_crc32_update(0, buf, 7);
	c = sc_crc32_update(c, buf + 7, 500);
	c = sc_crc32_update(c, buf + 507, 493);
	is_int(c, whole, "three pieces give the same crc");
}

/*
 * More than UINT_MAX bytes in one call: zlib takes a uInt length, so
 * sc_crc32_update() feeds it in pieces.  The splitting is tested with
 * small pieces over a small buffer (the real ones are 1 GiB), against
 * zlib's CRC of the whole buffer.
 */
static void
test_pieces(void)
{
	static const size_t pieces[] = { 1, 7, 64, 999, 1000, 1001 };
	unsigned char buf[1000];
	uint32_t want, c;
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	want = (uint32_t)crc32(0, buf, (uInt)sizeof(buf));
	is_int(sc_crc32_update(0, buf, sizeof(buf)), want,
	    "1000 bytes: zlib's crc");
	for (i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++)
		is_int(sc_crc32_update_pieces(0, buf, sizeof(buf), pieces[i]),
		    want, "in pieces of %zu bytes: the same crc", pieces[i]);
	c = sc_crc32_update_pieces(0, buf, 500, 7);
	is_int(sc_crc32_update_pieces(c, buf + 500, 500, 3), want,
	    "continued in other pieces: the same crc");
	is_int(sc_crc32_update_pieces(0x12345678u, buf, 0, 7), 0x12345678u,
	    "no bytes in pieces: crc unchanged");
}

static void
test_files(void)
{
	char path[64];
	struct sc_error err;
	unsigned char *big;
	uint32_t c = 0, want;
	size_t n = 200000, i;
	int fd, rc;

	big = malloc(n);
	for (i = 0; i < n; i++)
		big[i] = (unsigned char)(i * 7 + (i >> 8));
	want = sc_crc32_update(0, big, n);

	tap_template(path, sizeof(path), "test-crc.");
	fd = mkstemp(path);
	ok(fd >= 0, "temporary file");
	ok(write(fd, big, n) == (ssize_t)n, "write 200000 bytes");

	rc = sc_crc32_file(path, &c, &err);
	is_int(rc, 0, "crc32_file ok");
	is_int(c, want, "crc32_file matches the buffer (several reads)");

	lseek(fd, 0, SEEK_SET);
	c = 0;
	is_int(sc_crc32_fd(fd, &c, &err), 0, "crc32_fd ok");
	is_int(c, want, "crc32_fd matches the buffer");
	lseek(fd, (off_t)(n - 9), SEEK_SET);
	is_int(sc_crc32_fd(fd, &c, &err), 0, "crc32_fd from an offset");
	is_int(c, sc_crc32_update(0, big + n - 9, 9),
	    "crc32_fd reads from the current offset");
	is_int(sc_crc32_fd(fd, &c, &err), 0, "crc32_fd at end of file");
	is_int(c, 0, "crc32_fd at end of file is 0");
	close(fd);

	fd = open(path, O_WRONLY | O_TRUNC);
	close(fd);
	c = 1;
	is_int(sc_crc32_file(path, &c, &err), 0, "empty file ok");
	is_int(c, 0, "empty file crc is 0");
	unlink(path);

	c = 77;
	rc = sc_crc32_file("/nonexistent/x", &c, &err);
	is_int(rc, -1, "missing file fails");
	is_int(err.status, SC_ST_IO, "missing file: SC_ST_IO");
	is_int(err.sys_errno, ENOENT, "missing file: ENOENT");
	is_str(err.msg,
	    "cannot open '/nonexistent/x': No such file or directory",
	    "missing file: message");
	is_int(c, 77, "missing file: out untouched");

	rc = sc_crc32_file("/", &c, &err);
	is_int(rc, -1, "directory fails");
	is_str(err.msg, "cannot read '/': Is a directory",
	    "directory: message");

	rc = sc_crc32_fd(-1, &c, &err);
	is_int(rc, -1, "bad fd fails");
	is_str(err.msg, "cannot read file descriptor -1: Bad file descriptor",
	    "bad fd: message");
	free(big);
}

int
main(void)
{
	test_values();
	test_splits();
	test_pieces();
	test_files();
	return tap_done();
}
