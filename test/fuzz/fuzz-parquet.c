/* SPDX-License-Identifier: MIT */

/*
 * fuzz-parquet: lib/parquet's reader on any bytes as a file (footer,
 * schema, every page kind, codec and encoding, record assembly), and
 * the same bytes straight into the footer and page header parsers and
 * the hybrid and delta decoders.  Whatever the input, the reader must
 * fail with a message or read rows whose text is valid for the writer
 * to take back.
 */

#include "fuzz.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "parquet/encoding.h"
#include "parquet/meta.h"
#include "parquet/parquet.h"
#include "parquet/thrift.h"
#include "core/banned.h"

/* What one input may cost the reader (libFuzzer's limit is 2 GiB). */
#define FUZZ_GROUP_BYTES ((size_t)64 << 20)

static void
read_file(const uint8_t *data, size_t n)
{
	struct sc_parquet_read_opts o = { FUZZ_GROUP_BYTES };
	struct sc_parquet_reader *r;
	struct sc_parquet_leaf lf;
	struct sc_error err;
	struct sc_buf b;
	size_t i;
	int fd, rc;

	if ((fd = memfd_create("fuzz-parquet", MFD_CLOEXEC)) == -1)
		return;
	if (n > 0 && write(fd, data, n) != (ssize_t)n) {
		close(fd);
		return;
	}
	sc_error_init(&err);
	if ((r = sc_parquet_reader_fdopen(fd, "fuzz", &o, &err)) == NULL) {
		if (err.msg[0] == '\0' || err.status == SC_ST_OK)
			abort();
		close(fd);
		return;
	}
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_parquet_type_ddl(sc_parquet_reader_schema(r), &b);
	/* A schema read from a file is one the DDL parser takes back. */
	if (b.len > 0) {
		struct sc_parquet_type *t =
		    sc_parquet_type_parse((const char *)b.data, NULL);

		sc_parquet_type_free(t);
	}
	while ((rc = sc_parquet_reader_next_group(r, &err)) == 1) {
		for (i = 0; i < sc_parquet_reader_num_leaves(r); i++)
			if (sc_parquet_reader_leaf(r, i, &lf) == -1)
				abort();
		do {
			sc_buf_reset(&b);
			rc = sc_parquet_reader_row(r, &b, &err);
		} while (rc == 1);
		if (rc == -1)
			break;
	}
	if (rc == -1 && err.msg[0] == '\0')
		abort();
	sc_buf_release(&b);
	sc_parquet_reader_free(r);
	close(fd);
}

static void
parse_parts(const uint8_t *data, size_t n)
{
	struct sc_pq_filemeta fm;
	struct sc_pq_pagehdr ph;
	struct sc_thrift_rd rd;
	struct sc_error err;
	int64_t *d;
	uint32_t *u;
	size_t used, count = n < 4096 ? n * 4 : 16384;

	sc_thrift_rd_init(&rd, data, n, &err);
	(void)sc_pq_filemeta_read(&rd, &fm);
	sc_pq_filemeta_release(&fm);
	sc_thrift_rd_init(&rd, data, n, &err);
	(void)sc_pq_pagehdr_read(&rd, &ph);
	sc_pq_pagehdr_release(&ph);
	if (n == 0)
		return;
	u = sc_xcalloc(count + 1, sizeof(*u));
	(void)sc_pq_dec_rle(data + 1, n - 1, data[0] % 34, u, count, &err);
	free(u);
	d = sc_xcalloc(count + 1, sizeof(*d));
	(void)sc_pq_dec_delta(data, n, n & 1, d, count, &used, &err);
	free(d);
}

int
sc_fuzz_parquet(const uint8_t *data, size_t n)
{
	read_file(data, n);
	parse_parts(data, n);
	return 0;
}

SC_FUZZ_MAIN_FOR(sc_fuzz_parquet)
