/* SPDX-License-Identifier: MIT */

/*
 * parquet-tool: test driver for lib/parquet.
 *
 *   parquet-tool dump FILE     the schema ({"schema":"a int, ..."}), then
 *                              each row as a JSON array (parquet.h's text)
 *   parquet-tool leaves FILE   each leaf column of each row group: path,
 *                              levels and value count, as JSON lines
 *   parquet-tool meta FILE     row groups, and each column chunk's codec,
 *                              encodings and statistics, as JSON lines
 *   parquet-tool write [-c codec] [-d dict-bytes] [-g group-bytes]
 *                      [-p page-bytes] [-D] [-2] FILE SCHEMA
 *                              rows (JSON arrays, one a line) from stdin
 *                              into FILE; -D: no dictionary, -2: data
 *                              page v2; codec none, snappy, gzip or zstd
 *
 * Errors go to stderr as "parquet-tool: message"; the exit code is the
 * error's status (core/error.h).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "parquet/encoding.h"
#include "parquet/meta.h"
#include "parquet/parquet.h"
#include "parquet/thrift.h"
#include "core/banned.h"

/* A row's text may be this long; the reader's limit is its default. */
#define LINE_MAX_BYTES (64u << 20)

static int
die(const struct sc_error *err)
{
	fprintf(stderr, "parquet-tool: %s\n", err->msg);
	return err->status ? (int)err->status : 1;
}

static int
usage(void)
{
	fprintf(stderr,
	    "usage: parquet-tool dump|leaves|meta FILE\n"
	    "       parquet-tool write [-2D] [-c codec] [-d dict-bytes] [-g group-bytes] [-p page-bytes] FILE SCHEMA\n");
	return 2;
}

static int
flush_out(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "parquet-tool: cannot write output: %s\n",
		    strerror(errno));
		return 9;
	}
	return 0;
}

static int
cmd_dump(const char *path)
{
	struct sc_parquet_reader *r;
	struct sc_error err;
	struct sc_buf b;
	int rc;

	sc_error_init(&err);
	if ((r = sc_parquet_reader_open(path, NULL, &err)) == NULL)
		return die(&err);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_parquet_type_ddl(sc_parquet_reader_schema(r), &b);
	printf("{\"schema\":\"%s\",\"rows\":%lld}\n", (const char *)b.data,
	    (long long)sc_parquet_reader_num_rows(r));
	while ((rc = sc_parquet_reader_next_group(r, &err)) == 1) {
		for (;;) {
			sc_buf_reset(&b);
			rc = sc_parquet_reader_row(r, &b, &err);
			if (rc != 1)
				break;
			fwrite(b.data, 1, b.len, stdout);
			putchar('\n');
		}
		if (rc == -1)
			break;
	}
	sc_buf_release(&b);
	sc_parquet_reader_free(r);
	if (rc == -1) {
		(void)flush_out();
		return die(&err);
	}
	return flush_out();
}

static int
cmd_leaves(const char *path)
{
	struct sc_parquet_reader *r;
	struct sc_parquet_leaf lf;
	struct sc_error err;
	size_t i, k;
	int rc, g = 0;

	sc_error_init(&err);
	if ((r = sc_parquet_reader_open(path, NULL, &err)) == NULL)
		return die(&err);
	while ((rc = sc_parquet_reader_next_group(r, &err)) == 1) {
		for (i = 0; i < sc_parquet_reader_num_leaves(r); i++) {
			(void)sc_parquet_reader_leaf(r, i, &lf);
			printf("{\"group\":%d,\"path\":\"%s\",\"type\":\"%s\","
			       "\"max_def\":%d,\"max_rep\":%d,\"values\":%zu,"
			       "\"def\":[",
			    g, lf.path, sc_pq_type_name(lf.physical),
			    lf.max_def, lf.max_rep, lf.vals->n);
			for (k = 0; k < lf.nlevels; k++)
				printf("%s%d", k ? "," : "",
				    lf.def ? lf.def[k] : 0);
			printf("],\"rep\":[");
			for (k = 0; k < lf.nlevels; k++)
				printf("%s%d", k ? "," : "",
				    lf.rep ? lf.rep[k] : 0);
			printf("]}\n");
		}
		g++;
	}
	sc_parquet_reader_free(r);
	if (rc == -1)
		return die(&err);
	return flush_out();
}

static void
print_stat(const char *name, const uint8_t *p, size_t n)
{
	size_t i;

	printf(",\"%s\":\"", name);
	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\"");
}

/* The footer as the library reads it (meta.h), one line per chunk. */
static int
cmd_meta(const char *path)
{
	struct sc_pq_filemeta fm;
	struct sc_thrift_rd rd;
	struct sc_error err;
	struct sc_buf b;
	uint32_t flen, g, c, e;
	FILE *fp;
	long size;

	sc_error_init(&err);
	if ((fp = fopen(path, "rb")) == NULL) {
		sc_error_set_errno(&err, SC_ST_IO, errno, "cannot open '%s'",
		    path);
		return die(&err);
	}
	if (fseek(fp, -8, SEEK_END) != 0 || fread(&flen, 4, 1, fp) != 1 ||
	    (size = ftell(fp)) < 0 || (long)flen > size - 4 ||
	    fseek(fp, -8 - (long)flen, SEEK_END) != 0) {
		fclose(fp);
		sc_error_set(&err, SC_ST_PROTOCOL, "'%s': no footer", path);
		return die(&err);
	}
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	if (sc_buf_grow(&b, flen + 1, &err) == -1 ||
	    fread(b.data, 1, flen, fp) != flen) {
		fclose(fp);
		sc_buf_release(&b);
		sc_error_set(&err, SC_ST_IO, "'%s': short read", path);
		return die(&err);
	}
	fclose(fp);
	sc_thrift_rd_init(&rd, b.data, flen, &err);
	if (sc_pq_filemeta_read(&rd, &fm) == -1) {
		sc_pq_filemeta_release(&fm);
		sc_buf_release(&b);
		return die(&err);
	}
	printf(
	    "{\"version\":%d,\"rows\":%lld,\"groups\":%u,\"created_by\":\"%s\",\"column_orders\":%u}\n",
	    fm.version, (long long)fm.num_rows, fm.nrowgroups,
	    fm.created_by ? fm.created_by : "", fm.ncolumn_orders);
	for (g = 0; g < fm.nrowgroups; g++)
		for (c = 0; c < fm.rowgroups[g].ncols; c++) {
			const struct sc_pq_colmeta *m =
			    &fm.rowgroups[g].cols[c].meta;

			printf("{\"group\":%u,\"rows\":%lld,\"column\":%u,"
			       "\"codec\":\"%s\",\"values\":%lld,"
			       "\"dictionary\":%s,\"encodings\":[",
			    g, (long long)fm.rowgroups[g].num_rows, c,
			    sc_pq_codec_name(m->codec),
			    (long long)m->num_values,
			    m->dictionary_page_offset >= 0 ? "true" : "false");
			for (e = 0; e < m->nencodings; e++)
				printf("%s\"%s\"", e ? "," : "",
				    sc_pq_encoding_name(m->encodings[e]));
			printf("]");
			if (m->stats.has_null_count)
				printf(",\"nulls\":%lld",
				    (long long)m->stats.null_count);
			if (m->stats.min != NULL)
				print_stat("min", m->stats.min,
				    m->stats.min_len);
			if (m->stats.max != NULL)
				print_stat("max", m->stats.max,
				    m->stats.max_len);
			printf("}\n");
		}
	sc_pq_filemeta_release(&fm);
	sc_buf_release(&b);
	return flush_out();
}

static int
parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v == 0 || v > (1ull << 40))
		return -1;
	*out = (size_t)v;
	return 0;
}

static int
cmd_write(int argc, char **argv)
{
	struct sc_parquet_write_opts o;
	struct sc_parquet_writer *w;
	struct sc_parquet_type *t;
	struct sc_error err;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long lineno = 0;
	int ch;

	memset(&o, 0, sizeof(o));
	o.codec = SC_PQ_SNAPPY;
	optind = 1;
	while ((ch = getopt(argc, argv, "2Dc:d:g:p:")) != -1) {
		switch (ch) {
		case '2':
			o.page_v2 = true;
			break;
		case 'D':
			o.no_dictionary = true;
			break;
		case 'c':
			if (strcmp(optarg, "none") == 0)
				o.codec = SC_PQ_UNCOMPRESSED;
			else if (strcmp(optarg, "snappy") == 0)
				o.codec = SC_PQ_SNAPPY;
			else if (strcmp(optarg, "gzip") == 0)
				o.codec = SC_PQ_GZIP;
			else if (strcmp(optarg, "zstd") == 0)
				o.codec = SC_PQ_ZSTD;
			else
				return usage();
			break;
		case 'd':
			if (parse_size(optarg, &o.dict_bytes) == -1)
				return usage();
			break;
		case 'g':
			if (parse_size(optarg, &o.group_bytes) == -1)
				return usage();
			break;
		case 'p':
			if (parse_size(optarg, &o.page_bytes) == -1)
				return usage();
			break;
		default:
			return usage();
		}
	}
	if (argc - optind != 2)
		return usage();
	sc_error_init(&err);
	if ((t = sc_parquet_type_parse(argv[optind + 1], &err)) == NULL)
		return die(&err);
	w = sc_parquet_writer_open(argv[optind], t, &o, &err);
	sc_parquet_type_free(t);
	if (w == NULL)
		return die(&err);
	while ((n = getline(&line, &cap, stdin)) > 0) {
		lineno++;
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (n == 0)
			continue;
		if ((size_t)n > LINE_MAX_BYTES) {
			sc_error_set(&err, SC_ST_USAGE, "line %ld: too long",
			    lineno);
			sc_parquet_writer_abort(w);
			free(line);
			return die(&err);
		}
		if (sc_parquet_writer_add_row(w, line, (size_t)n, &err) == -1) {
			char pre[64];

			snprintf(pre, sizeof(pre), "line %ld: ", lineno);
			sc_error_prefix(&err, pre);
			sc_parquet_writer_abort(w);
			free(line);
			return die(&err);
		}
	}
	free(line);
	if (sc_parquet_writer_close(w, &err) == -1)
		return die(&err);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (strcmp(argv[1], "write") == 0)
		return cmd_write(argc - 1, argv + 1);
	if (argc != 3)
		return usage();
	if (strcmp(argv[1], "dump") == 0)
		return cmd_dump(argv[2]);
	if (strcmp(argv[1], "leaves") == 0)
		return cmd_leaves(argv[2]);
	if (strcmp(argv[1], "meta") == 0)
		return cmd_meta(argv[2]);
	return usage();
}
