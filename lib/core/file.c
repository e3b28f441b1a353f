/* SPDX-License-Identifier: MIT */

/*
 * file.c: whole files into bounded buffers.
 */

#include "core/file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/banned.h"

int
sc_file_read(const char *path, struct sc_buf *out, struct sc_error *err)
{
	bool is_stdin = strcmp(path, "-") == 0;
	const char *name = is_stdin ? "standard input" : path;
	char chunk[65536];
	FILE *fp;
	size_t n;
	int rc = 0;

	fp = is_stdin ? stdin : fopen(path, "rb");
	if (fp == NULL)
		return sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot open '%s'", name);
	while (rc == 0 && (n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		if (sc_buf_add(out, chunk, n, NULL) == -1)
			rc = sc_error_set(err, SC_ST_USAGE,
			    "'%s' is larger than %zu bytes", name, out->max);
	if (rc == 0 && ferror(fp))
		rc = sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot read '%s'", name);
	if (!is_stdin)
		fclose(fp);
	if (rc == -1)
		sc_buf_reset(out);
	return rc;
}
