/* SPDX-License-Identifier: MIT */

/*
 * file.h: reading a whole input file, or standard input, into memory
 * with a bound.
 */

#ifndef SC_FILE_H
#define SC_FILE_H

struct sc_buf;
struct sc_error;

/*
 * Append the contents of the file path ("-": standard input) to out,
 * which bounds them: no more than out->max bytes in all.  0, or -1 with
 * err set and out emptied: SC_ST_IO "cannot open 'f': <strerror>" or
 * "cannot read 'f': <strerror>", SC_ST_USAGE "'f' is larger than N
 * bytes" (f is "standard input" for "-").  Standard input is not closed.
 */
int sc_file_read(const char *path, struct sc_buf *out, struct sc_error *err);

#endif
