/* SPDX-License-Identifier: MIT */

/*
 * test-file.c: whole files and standard input into bounded buffers
 * (core/file), with the messages that name the file and the bound.
 */

#include "core/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

/* A temporary file holding n bytes of pattern; its path (free it). */
static char *
temp_file(size_t n)
{
	char *path = sc_xmalloc(64);
	size_t i;
	int fd;

	tap_template(path, 64, "sc-test-file");
	if ((fd = mkstemp(path)) == -1)
		abort();
	for (i = 0; i < n; i++)
		if (write(fd, &"0123456789"[i % 10], 1) != 1)
			abort();
	close(fd);
	return path;
}

static void
test_files(void)
{
	struct sc_error err;
	struct sc_buf b;
	char *path, *dir, want[256];
	size_t i;
	bool same = true;

	/* 100 000 bytes: more than one read of the chunk size. */
	path = temp_file(100000);
	sc_buf_init(&b, 100000);
	is_int(sc_file_read(path, &b, &err), 0, "a file of exactly the bound");
	is_int(b.len, 100000, "  every byte");
	for (i = 0; i < b.len; i++)
		same = same && b.data[i] == "0123456789"[i % 10];
	ok(same, "  in order");
	sc_buf_release(&b);

	sc_buf_init(&b, 99999);
	is_int(sc_file_read(path, &b, &err), -1, "one byte over the bound");
	snprintf(want, sizeof(want), "'%s' is larger than 99999 bytes", path);
	is_str(err.msg, want, "  message names the file and the bound");
	is_int(err.status, SC_ST_USAGE, "  status usage");
	is_int(b.len, 0, "  buffer left empty");
	sc_buf_release(&b);

	/* Appends to what the buffer holds. */
	sc_buf_init(&b, 100005);
	sc_buf_addstr(&b, "head:", NULL);
	is_int(sc_file_read(path, &b, &err), 0, "appending to a buffer");
	ok(b.len == 100005 && memcmp(b.data, "head:0123", 9) == 0,
	    "  after what was there");
	sc_buf_release(&b);
	unlink(path);

	sc_buf_init(&b, 10);
	is_int(sc_file_read(path, &b, &err), -1, "a missing file");
	snprintf(want, sizeof(want),
	    "cannot open '%s': No such file or directory", path);
	is_str(err.msg, want, "  message");
	ok(err.status == SC_ST_IO && err.sys_errno == ENOENT,
	    "  status I/O, errno ENOENT");
	free(path);

	dir = sc_xmalloc(64);
	tap_template(dir, 64, "sc-test-dir");
	if (mkdtemp(dir) == NULL)
		abort();
	is_int(sc_file_read(dir, &b, &err), -1, "a directory");
	snprintf(want, sizeof(want), "cannot read '%s': Is a directory", dir);
	is_str(err.msg, want, "  message");
	is_int(err.status, SC_ST_IO, "  status I/O");
	rmdir(dir);
	free(dir);
	sc_buf_release(&b);
}

/* "-" is standard input, and it is left open. */
static void
test_stdin(void)
{
	struct sc_error err;
	struct sc_buf b;
	int p[2], saved;

	if (pipe(p) == -1 || write(p[1], "SELECT 1;", 9) != 9)
		abort();
	close(p[1]);
	saved = dup(0);
	dup2(p[0], 0);
	close(p[0]);
	clearerr(stdin);
	sc_buf_init(&b, 8);
	is_int(sc_file_read("-", &b, &err), -1,
	    "standard input over the bound");
	is_str(err.msg, "'standard input' is larger than 8 bytes",
	    "  message names standard input");
	sc_buf_release(&b);
	dup2(saved, 0);
	close(saved);
	clearerr(stdin);

	if (pipe(p) == -1 || write(p[1], "SELECT 1;", 9) != 9)
		abort();
	close(p[1]);
	saved = dup(0);
	dup2(p[0], 0);
	close(p[0]);
	sc_buf_init(&b, 64);
	is_int(sc_file_read("-", &b, &err), 0, "standard input");
	is_mem(b.data, b.len, "SELECT 1;", 9, "  its bytes");
	ok(fcntl(0, F_GETFD) != -1 && !ferror(stdin),
	    "  standard input is still open");
	sc_buf_release(&b);
	dup2(saved, 0);
	close(saved);
	clearerr(stdin);
}

int
main(void)
{
	test_files();
	test_stdin();
	return tap_done();
}
