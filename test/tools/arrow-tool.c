/* SPDX-License-Identifier: MIT */

/*
 * arrow-tool: test driver for lib/core/arrow.
 *
 *   arrow-tool write    a fixed table of every writable type, with nulls,
 *                       in four record batches (5, 0, 7, 4 rows), as one
 *                       IPC stream on stdout
 *   arrow-tool read     an IPC stream from stdin, printed as JSON lines,
 *                       one object per row (the JSON formatter)
 *   arrow-tool example  the 312-byte reference stream of test-arrow.c
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/arrow.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "core/banned.h"

#define NROWS_MAX (256u << 20)

static int
die(const struct sc_error *err)
{
	fprintf(stderr, "arrow-tool: %s\n", err->msg);
	return err->status ? (int)err->status : 1;
}

static int
write_all(const void *p, size_t n)
{
	const char *s = p;
	ssize_t w;

	while (n) {
		if ((w = write(1, s, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

enum {
	C_B,
	C_I8,
	C_I16,
	C_I32,
	C_I64,
	C_F32,
	C_F64,
	C_DEC,
	C_DEC38,
	C_S,
	C_LS,
	C_BIN,
	C_LBIN,
	C_D,
	C_TS,
	C_TSNTZ,
	C_N,
	NCOLS
};

static void
make_schema(struct sc_arrow_schema *s)
{
	struct sc_arrow_field *f;

	sc_arrow_schema_init(s);
	sc_arrow_schema_add(s, "b", SC_ARROW_BOOL, true);
	sc_arrow_schema_add(s, "i8", SC_ARROW_INT8, true);
	sc_arrow_schema_add(s, "i16", SC_ARROW_INT16, true);
	sc_arrow_schema_add(s, "i32", SC_ARROW_INT32, false);
	sc_arrow_schema_add(s, "i64", SC_ARROW_INT64, true);
	sc_arrow_schema_add(s, "f32", SC_ARROW_FLOAT, true);
	sc_arrow_schema_add(s, "f64", SC_ARROW_DOUBLE, true);
	f = sc_arrow_schema_add(s, "dec", SC_ARROW_DECIMAL128, true);
	f->precision = 10;
	f->scale = 2;
	f = sc_arrow_schema_add(s, "dec38", SC_ARROW_DECIMAL128, true);
	f->precision = 38;
	f->scale = 6;
	sc_arrow_schema_add(s, "s", SC_ARROW_UTF8, true);
	sc_arrow_schema_add(s, "ls", SC_ARROW_LARGE_UTF8, true);
	sc_arrow_schema_add(s, "bin", SC_ARROW_BINARY, true);
	sc_arrow_schema_add(s, "lbin", SC_ARROW_LARGE_BINARY, true);
	sc_arrow_schema_add(s, "d", SC_ARROW_DATE32, true);
	f = sc_arrow_schema_add(s, "ts", SC_ARROW_TIMESTAMP_US, true);
	f->tz = sc_xstrdup("UTC");
	sc_arrow_schema_add(s, "tsntz", SC_ARROW_TIMESTAMP_US, true);
	sc_arrow_schema_add(s, "n", SC_ARROW_NULL, true);
}

static const int64_t i8v[] = { -128, 127, 0, -1, 42 };
static const int64_t i16v[] = { -32768, 32767, 0, 1234, -1 };
static const int64_t i32v[] = { INT32_MIN, INT32_MAX, 0, -7, 65536 };
static const int64_t i64v[] = { INT64_MIN, INT64_MAX, 0, -1234567890123LL,
	9007199254740993LL };
static const char *const decv[] = { "12.30", "-0.05", "99999999.99", "0",
	"-12345678.9", "0.005", "1.004" };
static const char *const dec38v[] = { "-12345678901234567890123456789012.345678",
	"99999999999999999999999999999999.999999", "0.000001", "-1", "7.5" };
static const char *const sv[] = { "", "hello", "quote \" backslash \\",
	"tab\tnl\n ctrl\x01\x1f del\x7f",
	"\xc3\xbcn\xc3\xaf"
	"c\xc3\xb8"
	"d"
	"\xc3\xa9 \xe2\x98\x83 \xf0\x9f\x98\x80",
	"a,b", "\xe2\x80\xa8" };
static const int64_t dv[] = { 0, -1, 19000, -719528, 2932896, 2932897, -719529,
	11016 };
static const int64_t tsv[] = { 0, 1, -1, 1700000000123456LL,
	-62135596800000000LL, 253402300799999999LL, 1000, 86399999999LL,
	-86400000001LL };

static double
f64_at(unsigned r)
{
	static const double v[] = { 0.1, -0.0, 1e7, 1e-4, 123456789.125, NAN,
		INFINITY, -INFINITY, 5e-324, 1.7976931348623157e308, 0.001,
		9999999.0, 1.0, -2.5e-3, 100.0, 1e21 };

	return v[r % SC_NELEM(v)];
}

static double
f32_at(unsigned r)
{
	static const float v[] = { 1.0f, 0.1f, -3.4e38f, 1e-45f, NAN,
		16777216.0f, 1e7f, 0.001f, 3.14159f, -INFINITY,
		1.17549435e-38f };

	return v[r % SC_NELEM(v)];
}

#define PICK(a, r) ((a)[(r) % SC_NELEM(a)])

static int
append_row(struct sc_arrow_writer *w, unsigned r, struct sc_error *err)
{
	static const uint8_t bytes[] = { 0x00, 0xff, 0x10, 0xab, 0x7f };
	const char *s;
	unsigned c;
	int rc = 0;

	for (c = 0; c < NCOLS && rc == 0; c++) {
		if (c == C_N || (c != C_I32 && (r + c) % 4 == 3)) {
			rc = sc_arrow_append_null(w, c, err);
			continue;
		}
		switch (c) {
		case C_B:
			rc = sc_arrow_append_bool(w, c, r % 3 == 0, err);
			break;
		case C_I8:
			rc = sc_arrow_append_int64(w, c, PICK(i8v, r), err);
			break;
		case C_I16:
			rc = sc_arrow_append_int64(w, c, PICK(i16v, r), err);
			break;
		case C_I32:
			rc = sc_arrow_append_int64(w, c, PICK(i32v, r), err);
			break;
		case C_I64:
			rc = sc_arrow_append_int64(w, c, PICK(i64v, r), err);
			break;
		case C_F32:
			rc = sc_arrow_append_double(w, c, f32_at(r), err);
			break;
		case C_F64:
			rc = sc_arrow_append_double(w, c, f64_at(r), err);
			break;
		case C_DEC:
			rc = sc_arrow_append_decimal_str(w, c, PICK(decv, r),
			    err);
			break;
		case C_DEC38:
			rc = sc_arrow_append_decimal_str(w, c, PICK(dec38v, r),
			    err);
			break;
		case C_S:
		case C_LS:
			s = PICK(sv, r + c);
			rc = sc_arrow_append_bytes(w, c, s, strlen(s), err);
			break;
		case C_BIN:
		case C_LBIN:
			rc = sc_arrow_append_bytes(w, c, bytes,
			    (r + c) % (sizeof(bytes) + 1), err);
			break;
		case C_D:
			rc = sc_arrow_append_int64(w, c, PICK(dv, r), err);
			break;
		case C_TS:
		case C_TSNTZ:
			rc = sc_arrow_append_int64(w, c, PICK(tsv, r + c), err);
			break;
		}
	}
	if (rc == 0)
		rc = sc_arrow_writer_end_row(w, err);
	return rc;
}

static int
cmd_write(void)
{
	static const unsigned sizes[] = { 5, 0, 7, 4 };
	struct sc_arrow_schema s;
	struct sc_arrow_writer *w;
	struct sc_error err;
	struct sc_buf out;
	unsigned b, i, r = 0;

	sc_error_init(&err);
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	make_schema(&s);
	if ((w = sc_arrow_writer_new(&s, &err)) == NULL)
		return die(&err);
	sc_arrow_schema_release(&s);
	if (sc_arrow_write_schema(sc_arrow_writer_schema(w), &out, &err) == -1)
		return die(&err);
	for (b = 0; b < SC_NELEM(sizes); b++) {
		for (i = 0; i < sizes[b]; i++)
			if (append_row(w, r++, &err) == -1)
				return die(&err);
		if (sc_arrow_writer_flush_batch(w, &out, &err) == -1)
			return die(&err);
	}
	if (sc_arrow_write_eos(&out, &err) == -1)
		return die(&err);
	sc_arrow_writer_free(w);
	if (write_all(out.data, out.len) == -1) {
		fprintf(stderr, "arrow-tool: write: %s\n", strerror(errno));
		return SC_EXIT_IO;
	}
	sc_buf_release(&out);
	return 0;
}

static int
cmd_example(void)
{
	struct sc_arrow_schema s;
	struct sc_arrow_writer *w;
	struct sc_error err;
	struct sc_buf out;

	sc_error_init(&err);
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	sc_arrow_schema_init(&s);
	sc_arrow_schema_add(&s, "id", SC_ARROW_INT64, true);
	if ((w = sc_arrow_writer_new(&s, &err)) == NULL ||
	    sc_arrow_append_int64(w, 0, 1, &err) == -1 ||
	    sc_arrow_writer_end_row(w, &err) == -1 ||
	    sc_arrow_append_null(w, 0, &err) == -1 ||
	    sc_arrow_writer_end_row(w, &err) == -1 ||
	    sc_arrow_append_int64(w, 0, 3, &err) == -1 ||
	    sc_arrow_writer_end_row(w, &err) == -1 ||
	    sc_arrow_writer_flush(w, &out, &err) == -1)
		return die(&err);
	sc_arrow_writer_free(w);
	sc_arrow_schema_release(&s);
	if (write_all(out.data, out.len) == -1)
		return SC_EXIT_IO;
	sc_buf_release(&out);
	return 0;
}

static int
print_batch(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	struct sc_buf *line = arg;
	size_t r, c;
	const char *name;

	for (r = 0; r < b->nrows; r++) {
		sc_buf_reset(line);
		if (sc_buf_addch(line, '{', err) == -1)
			return -1;
		for (c = 0; c < b->schema->nfields; c++) {
			name = b->schema->fields[c].name;
			if (c && sc_buf_addch(line, ',', err) == -1)
				return -1;
			/* Field names: simple ASCII in these tests. */
			if (sc_buf_addf(line, err, "\"%s\":", name) == -1 ||
			    sc_arrow_format_value(b, c, r, SC_ARROW_FMT_JSON,
				line, NULL, err) == -1)
				return -1;
		}
		if (sc_buf_addch(line, '}', err) == -1 ||
		    sc_buf_addch(line, '\n', err) == -1)
			return -1;
		if (write_all(line->data, line->len) == -1)
			return sc_error_set_errno(err, SC_ST_IO, errno,
			    "write");
	}
	return 0;
}

static int
cmd_read(void)
{
	struct sc_buf in, line;
	struct sc_error err;
	char tmp[65536];
	ssize_t n;
	int rc = 0;

	sc_error_init(&err);
	sc_buf_init(&in, NROWS_MAX);
	sc_buf_init(&line, SC_BUF_UNLIMITED);
	for (;;) {
		n = read(0, tmp, sizeof(tmp));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			fprintf(stderr, "arrow-tool: read: %s\n",
			    strerror(errno));
			return SC_EXIT_IO;
		}
		if (n == 0)
			break;
		if (sc_buf_add(&in, tmp, (size_t)n, &err) == -1)
			return die(&err);
	}
	if (sc_arrow_read_stream(in.data, in.len, print_batch, &line, &err) ==
	    -1)
		rc = die(&err);
	sc_buf_release(&in);
	sc_buf_release(&line);
	return rc;
}

int
main(int argc, char *argv[])
{
	if (argc == 2 && strcmp(argv[1], "write") == 0)
		return cmd_write();
	if (argc == 2 && strcmp(argv[1], "read") == 0)
		return cmd_read();
	if (argc == 2 && strcmp(argv[1], "example") == 0)
		return cmd_example();
	fprintf(stderr, "usage: arrow-tool write | read | example\n");
	return SC_EXIT_USAGE;
}
