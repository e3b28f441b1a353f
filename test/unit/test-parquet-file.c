/* SPDX-License-Identifier: MIT */

/*
 * test-parquet-file.c: lib/parquet's files: Spark DDL both ways; rows
 * written and read back as the same text (nested lists, maps and
 * structs, nulls at each level, every type's edges); the levels Dremel
 * gives for nested lists; the writer's refusals (each with its message,
 * the row taken back); and malformed files: bad magic, short files,
 * every truncation, a footer length past the end, column chunks past
 * the end, huge counts, rows that disagree, the memory limit.
 */

#include "parquet/parquet.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "parquet/encoding.h"
#include "parquet/meta.h"
#include "parquet/thrift.h"
#include "tap.h"
#include "core/banned.h"

static char dir[64];
static char path[128];

static struct sc_parquet_type *
ddl(const char *s)
{
	struct sc_error err;
	struct sc_parquet_type *t = sc_parquet_type_parse(s, &err);

	if (t == NULL)
		printf("# %s\n", err.msg);
	return t;
}

/* Write rows (one text each) to path with schema s; 0 or -1. */
static int
write_rows(const char *s, const char *const *rows, size_t n,
    const struct sc_parquet_write_opts *o, struct sc_error *err)
{
	struct sc_parquet_type *t = ddl(s);
	struct sc_parquet_writer *w;
	size_t i;

	if (t == NULL)
		return -1;
	w = sc_parquet_writer_open(path, t, o, err);
	sc_parquet_type_free(t);
	if (w == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (sc_parquet_writer_add_row(w, rows[i], strlen(rows[i]),
			err) == -1) {
			sc_parquet_writer_abort(w);
			return -1;
		}
	return sc_parquet_writer_close(w, err);
}

/* Every row of path as text lines ("\n" after each) into out; 0 or -1. */
static int
read_all(const struct sc_parquet_read_opts *o, struct sc_buf *out,
    struct sc_error *err)
{
	struct sc_parquet_reader *r;
	int rc;

	if ((r = sc_parquet_reader_open(path, o, err)) == NULL)
		return -1;
	while ((rc = sc_parquet_reader_next_group(r, err)) == 1)
		while ((rc = sc_parquet_reader_row(r, out, err)) == 1)
			(void)sc_buf_addch(out, '\n', NULL);
	sc_parquet_reader_free(r);
	return rc;
}

static void
test_ddl(void)
{
	struct sc_parquet_type *t;
	struct sc_error err;
	struct sc_buf b;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	t = ddl(
	    "a INT, `b c` array<string> NOT NULL, d struct<x: decimal(10,2), y:map<string,array<date>>>, e timestamp_ntz, f tinyint, g dec, h varchar(3)");
	ok(t != NULL, "DDL parsed");
	sc_parquet_type_ddl(t, &b);
	is_str((char *)b.data,
	    "a int, `b c` array<string> not null, d struct<x:decimal(10,2),y:map<string,array<date>>>, e timestamp_ntz, f tinyint, g decimal(10,0), h string",
	    "and written back as Spark spells it");
	sc_parquet_type_free(t);

	ok(sc_parquet_type_parse("a int,", &err) == NULL, "a trailing comma");
	is_str(err.msg,
	    "cannot parse schema 'a int,' at offset 6: expected a name",
	    "its message");
	ok(sc_parquet_type_parse("a integr", &err) == NULL, "an unknown type");
	is_str(err.msg,
	    "cannot parse schema 'a integr' at offset 2: unknown type",
	    "its message");
	ok(sc_parquet_type_parse("a decimal(39,1)", &err) == NULL,
	    "precision 39");
	is_str(err.msg,
	    "cannot parse schema 'a decimal(39,1)' at offset 15: decimal precision must be 1 to 38 and its scale at most the precision",
	    "its message");
	ok(sc_parquet_type_parse("a array<int", &err) == NULL, "unclosed <");
	is_str(err.msg,
	    "cannot parse schema 'a array<int' at offset 11: expected '>'",
	    "its message");
	{
		/* Nesting past the bound is refused, not recursed into. */
		struct sc_buf deep;
		int i;

		sc_buf_init(&deep, SC_BUF_UNLIMITED);
		(void)sc_buf_addstr(&deep, "a ", NULL);
		for (i = 0; i < 40; i++)
			(void)sc_buf_addstr(&deep, "array<", NULL);
		(void)sc_buf_addstr(&deep, "int", NULL);
		for (i = 0; i < 40; i++)
			(void)sc_buf_addch(&deep, '>', NULL);
		ok(sc_parquet_type_parse((char *)deep.data, &err) == NULL,
		    "arrays 40 deep");
		ok(strstr(err.msg, "types nested too deep") != NULL,
		    "its message");
		sc_buf_release(&deep);
	}
	sc_buf_release(&b);
}

static void
test_round_trip(void)
{
	static const char *const schema =
	    "id int not null, s string, l array<int>, "
	    "ll array<array<string>>, m map<string,array<int>>, "
	    "st struct<a:bigint,b:array<struct<c:string,d:double>>,e:struct<f:boolean>>, "
	    "ne array<int>";
	static const char *const rows[] = {
		"[1,\"x\",[1,null,3],[[\"a\",null],[],null],[[\"k\",[1,2]],[\"z\",null]],[5,[[\"c\",1.5],null,[null,null]],[true]],[1,2]]",
		"[2,null,null,null,null,null,null]",
		"[3,\"\",[],[],[],[null,[],null],[]]",
		"[4,\"\\u00e9\\n\\\"q\\\"\",[null],[null,[null]],[[\"\",[]]],[null,null,[null]],null]",
		"[5,\"last\",[7],[[\"only\"]],[[\"a\",[0]]],[-9223372036854775808,[[\"x\",-0.0]],[false]],[0]]",
	};
	static const char *const want =
	    "[1,\"x\",[1,null,3],[[\"a\",null],[],null],[[\"k\",[1,2]],[\"z\",null]],[5,[[\"c\",1.5],null,[null,null]],[true]],[1,2]]\n"
	    "[2,null,null,null,null,null,null]\n"
	    "[3,\"\",[],[],[],[null,[],null],[]]\n"
	    "[4,\"\xc3\xa9\\n\\\"q\\\"\",[null],[null,[null]],[[\"\",[]]],[null,null,[null]],null]\n"
	    "[5,\"last\",[7],[[\"only\"]],[[\"a\",[0]]],[-9223372036854775808,[[\"x\",-0.0]],[false]],[0]]\n";
	static const struct {
		const char *name;
		struct sc_parquet_write_opts o;
	} opts[] = {
		{ "snappy", { SC_PQ_SNAPPY, 0, 0, 0, 0, false, false } },
		{ "gzip, v2 pages", { SC_PQ_GZIP, 0, 0, 0, 0, false, true } },
		{ "zstd, plain", { SC_PQ_ZSTD, 0, 0, 0, 0, true, false } },
		{ "none, a group per row, tiny pages",
		    { SC_PQ_UNCOMPRESSED, 0, 1, 1, 1, false, false } },
	};
	struct sc_error err;
	struct sc_buf b;
	size_t i;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	for (i = 0; i < SC_NELEM(opts); i++) {
		sc_buf_reset(&b);
		is_int(write_rows(schema, rows, SC_NELEM(rows), &opts[i].o,
			   &err),
		    0, "%s: nested rows written", opts[i].name);
		is_int(read_all(NULL, &b, &err), 0, "%s: read back",
		    opts[i].name);
		is_str((char *)b.data, want, "%s: the same rows", opts[i].name);
	}

	/* A row per group: five groups. */
	{
		struct sc_parquet_reader *r =
		    sc_parquet_reader_open(path, NULL, &err);

		ok(r != NULL && sc_parquet_reader_num_groups(r) == 5 &&
			sc_parquet_reader_num_rows(r) == 5,
		    "five row groups of one row");
		sc_parquet_reader_free(r);
	}
	sc_buf_release(&b);
}

static void
test_types(void)
{
	static const char *const schema =
	    "b boolean, i8 tinyint, i16 smallint, i32 int, i64 bigint, "
	    "f float, d double, d1 decimal(1,0), d9 decimal(9,9), "
	    "d18 decimal(18,2), d19 decimal(19,0), d38 decimal(38,38), "
	    "s string, bin binary, dt date, ts timestamp, ntz timestamp_ntz";
	static const char *const rows[] = {
		"[true,-128,-32768,-2147483648,-9223372036854775808,-3.4028235E38,-1.7976931348623157E308,\"-9\",\"-0.999999999\",\"-9999999999999999.99\",\"-9999999999999999999\",\"-0.99999999999999999999999999999999999999\",\"\",\"\",\"0001-01-01\",\"0001-01-01 00:00:00\",\"1900-01-01 00:00:00.000001\"]",
		"[false,127,32767,2147483647,9223372036854775807,1.4E-45,4.9E-324,\"9\",\"0.000000001\",\"0.01\",\"9999999999999999999\",\"0.00000000000000000000000000000000000001\",\"\xf0\x9f\x98\x80\",\"00ff10\",\"9999-12-31\",\"9999-12-31 23:59:59.999999\",\"2024-02-29 12:00:00\"]",
		"[null,0,0,0,0,\"NaN\",\"-Infinity\",\"0\",\"0.000000000\",\"0.00\",\"0\",\"0E-38\",\"a\\u0000b\",\"ABCDEF\",\"1970-01-01\",\"1969-12-31 23:59:59.5\",\"1970-01-01 00:00:00\"]",
	};
	static const char *const want =
	    "[true,-128,-32768,-2147483648,-9223372036854775808,-3.4028235E38,-1.7976931348623157E308,\"-9\",\"-0.999999999\",\"-9999999999999999.99\",\"-9999999999999999999\",\"-0.99999999999999999999999999999999999999\",\"\",\"\",\"0001-01-01\",\"0001-01-01 00:00:00\",\"1900-01-01 00:00:00.000001\"]\n"
	    "[false,127,32767,2147483647,9223372036854775807,1.4E-45,4.9E-324,\"9\",\"0.000000001\",\"0.01\",\"9999999999999999999\",\"0.00000000000000000000000000000000000001\",\"\xf0\x9f\x98\x80\",\"00ff10\",\"9999-12-31\",\"9999-12-31 23:59:59.999999\",\"2024-02-29 12:00:00\"]\n"
	    "[null,0,0,0,0,\"NaN\",\"-Infinity\",\"0\",\"0.000000000\",\"0.00\",\"0\",\"0.00000000000000000000000000000000000000\",\"a\\u0000b\",\"abcdef\",\"1970-01-01\",\"1969-12-31 23:59:59.5\",\"1970-01-01 00:00:00\"]\n";
	struct sc_error err;
	struct sc_buf b;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	is_int(write_rows(schema, rows, SC_NELEM(rows), NULL, &err), 0,
	    "every type's edges written");
	is_int(read_all(NULL, &b, &err), 0, "read back");
	is_str((char *)b.data, want, "as the same text");
	sc_buf_release(&b);
}

static void
test_levels(void)
{
	/* Dremel's levels for array<array<int>>: max def 5, max rep 2. */
	static const char *const rows[] = { "[[[1,2],[3]]]", "[[]]", "[null]",
		"[[[]]]", "[[null]]", "[[[null]]]" };
	struct sc_parquet_reader *r;
	struct sc_parquet_leaf lf;
	struct sc_error err;
	struct sc_buf b;
	size_t i;

	is_int(write_rows("a array<array<int>>", rows, SC_NELEM(rows), NULL,
		   &err),
	    0, "nested lists written");
	r = sc_parquet_reader_open(path, NULL, &err);
	ok(r != NULL && sc_parquet_reader_next_group(r, &err) == 1,
	    "a group read");
	is_int(sc_parquet_reader_leaf(r, 0, &lf), 0, "its one leaf");
	is_str(lf.path, "a.list.element.list.element", "path");
	ok(lf.max_def == 5 && lf.max_rep == 2, "max def 5, max rep 2");
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	for (i = 0; i < lf.nlevels; i++)
		(void)sc_buf_addf(&b, NULL, "%d/%d ", lf.rep[i], lf.def[i]);
	is_str((char *)b.data, "0/5 2/5 1/5 0/1 0/0 0/3 0/2 0/4 ",
	    "rep/def per entry as Dremel gives them");
	is_int(lf.vals->n, 3, "three values");
	sc_buf_release(&b);
	sc_parquet_reader_free(r);
}

static void
test_writer_refusals(void)
{
	static const struct {
		const char *schema, *row, *msg;
	} cases[] = {
		{ "a int", "[1,2]", "a row must be a JSON array of 1 values" },
		{ "a int", "{\"a\":1}",
		    "a row must be a JSON array of 1 values" },
		{ "a int", "[1",
		    "malformed JSON at byte 2: expected ',' or ']'" },
		{ "a tinyint", "[128]",
		    "column 'a': integer out of its type's range" },
		{ "a int", "[1.5]", "column 'a': expected an integer" },
		{ "a int not null", "[null]",
		    "column 'a': null in a field that cannot be null" },
		{ "a decimal(3,1)", "[\"100.0\"]",
		    "column 'a': decimal needs more digits than its precision" },
		{ "a date", "[\"yesterday\"]", "column 'a': expected a date" },
		{ "a binary", "[\"0g\"]",
		    "column 'a': expected hex digits in a string" },
		{ "a map<string,int>", "[[[null,1]]]",
		    "column 'a.key_value.key': a map key cannot be null" },
		{ "a struct<x:int not null>", "[[null]]",
		    "column 'a.x': null in a field that cannot be null" },
		{ "a struct<x:int,y:int>", "[[1]]",
		    "column 'a.x': expected a struct as an array of its field values" },
		{ "a boolean", "[1]", "column 'a': expected true or false" },
	};
	struct sc_parquet_type *t;
	struct sc_parquet_writer *w;
	struct sc_error err;
	struct sc_buf b;
	size_t i;

	for (i = 0; i < SC_NELEM(cases); i++) {
		t = ddl(cases[i].schema);
		w = sc_parquet_writer_open(path, t, NULL, &err);
		sc_parquet_type_free(t);
		is_int(sc_parquet_writer_add_row(w, cases[i].row,
			   strlen(cases[i].row), &err),
		    -1, "%s: %s refused", cases[i].schema, cases[i].row);
		is_str(err.msg, cases[i].msg, "its message");
		sc_parquet_writer_abort(w);
	}

	/* A refused row is taken back out of every column. */
	t = ddl("a int, b array<string>, c string");
	w = sc_parquet_writer_open(path, t, NULL, &err);
	sc_parquet_type_free(t);
	ok(sc_parquet_writer_add_row(w, "[1,[\"x\"],\"ok\"]", 14, &err) == 0 &&
		sc_parquet_writer_add_row(w, "[2,[\"y\",\"z\"],3]", 15, &err) ==
		    -1 &&
		sc_parquet_writer_add_row(w, "[3,null,\"ok\"]", 13, &err) ==
		    0 &&
		sc_parquet_writer_close(w, &err) == 0,
	    "good, bad, good rows; closed");
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	is_int(read_all(NULL, &b, &err), 0, "read back");
	is_str((char *)b.data, "[1,[\"x\"],\"ok\"]\n[3,null,\"ok\"]\n",
	    "without a trace of the bad row");
	sc_buf_release(&b);

	ok(sc_parquet_writer_open("/nonexistent/x.parquet", t = ddl("a int"),
	       NULL, &err) == NULL,
	    "a file that cannot be created");
	sc_parquet_type_free(t);
	is_str(err.msg,
	    "cannot create '/nonexistent/x.parquet': No such file or directory",
	    "its message");
	is_int(err.status, SC_ST_IO, "status IO");
}

/* --- malformed files ------------------------------------------------- */

static uint8_t *
slurp(size_t *n)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *p;
	long len;

	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	p = sc_xmalloc((size_t)len + 1);
	if (fread(p, 1, (size_t)len, fp) != (size_t)len)
		len = 0;
	fclose(fp);
	*n = (size_t)len;
	return p;
}

static void
spit(const void *p, size_t n)
{
	FILE *fp = fopen(path, "wb");

	fwrite(p, 1, n, fp);
	fclose(fp);
}

/* Open and read path whole: 0, or -1 with err. */
static int
try_read(size_t limit, struct sc_error *err)
{
	struct sc_parquet_read_opts o = { limit };
	struct sc_buf b;
	int rc;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	rc = read_all(&o, &b, err);
	sc_buf_release(&b);
	return rc;
}

/* The file of one required int column, rows 1..n, PLAIN, uncompressed. */
static void
small_file(int n)
{
	struct sc_parquet_write_opts o = { SC_PQ_UNCOMPRESSED, 0, 0, 0, 0, true,
		false };
	char row[32];
	const char *rows[64];
	char text[64][32];
	struct sc_error err;
	int i;

	for (i = 0; i < n; i++) {
		snprintf(row, sizeof(row), "[%d]", i + 1);
		memcpy(text[i], row, sizeof(row));
		rows[i] = text[i];
	}
	(void)write_rows("a int not null", rows, (size_t)n, &o, &err);
}

/*
 * Rebuild the small file with its one page header changed by fn and
 * its footer by gn (either may be NULL), offsets kept right.
 */
static void
rebuild(void (*fn)(struct sc_pq_pagehdr *), void (*gn)(struct sc_pq_filemeta *))
{
	struct sc_pq_filemeta fm;
	struct sc_pq_pagehdr ph;
	struct sc_thrift_rd rd;
	struct sc_error err;
	struct sc_buf out, foot;
	uint8_t *f;
	size_t n, hl;
	uint32_t flen;

	f = slurp(&n);
	memcpy(&flen, f + n - 8, 4);
	sc_thrift_rd_init(&rd, f + n - 8 - flen, flen, &err);
	(void)sc_pq_filemeta_read(&rd, &fm);
	sc_thrift_rd_init(&rd, f + 4, n - 4, &err);
	(void)sc_pq_pagehdr_read(&rd, &ph);
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	(void)sc_buf_add(&out, "PAR1", 4, NULL);
	hl = (size_t)ph.compressed_size;
	if (fn != NULL)
		fn(&ph);
	sc_pq_pagehdr_write(&out, &ph);
	(void)sc_buf_add(&out, rd.p, hl, NULL);
	fm.rowgroups[0].cols[0].meta.total_compressed = (int64_t)out.len - 4;
	if (gn != NULL)
		gn(&fm);
	sc_buf_init(&foot, SC_BUF_UNLIMITED);
	sc_pq_filemeta_write(&foot, &fm);
	(void)sc_buf_add(&out, foot.data, foot.len, NULL);
	flen = (uint32_t)foot.len;
	(void)sc_buf_add(&out, &flen, 4, NULL);
	(void)sc_buf_add(&out, "PAR1", 4, NULL);
	spit(out.data, out.len);
	sc_pq_pagehdr_release(&ph);
	sc_pq_filemeta_release(&fm);
	sc_buf_release(&out);
	sc_buf_release(&foot);
	free(f);
}

static void
huge_values(struct sc_pq_pagehdr *ph)
{
	ph->num_values = INT32_MAX;
}

static void
negative_size(struct sc_pq_pagehdr *ph)
{
	ph->compressed_size = 1 << 30;
}

static void
v2_levels_past(struct sc_pq_pagehdr *ph)
{
	ph->type = SC_PQ_DATA_PAGE_V2;
	ph->def_len = 1000;
}

static void
more_rows(struct sc_pq_filemeta *fm)
{
	fm->rowgroups[0].num_rows = 11;
	fm->rowgroups[0].cols[0].meta.num_values = 11;
}

static void
chunk_past_end(struct sc_pq_filemeta *fm)
{
	fm->rowgroups[0].cols[0].meta.data_page_offset = 1 << 30;
}

static void
chunk_longer(struct sc_pq_filemeta *fm)
{
	fm->rowgroups[0].cols[0].meta.total_compressed = 1 << 20;
}

static void
children_past(struct sc_pq_filemeta *fm)
{
	fm->schema[0].num_children = 1000;
}

static void
lz4(struct sc_pq_filemeta *fm)
{
	fm->rowgroups[0].cols[0].meta.codec = SC_PQ_LZ4;
}

static void
other_type(struct sc_pq_filemeta *fm)
{
	fm->rowgroups[0].cols[0].meta.type = SC_PQ_DOUBLE;
}

static void
test_malformed(void)
{
	static const struct {
		const char *name;
		void (*fn)(struct sc_pq_pagehdr *);
		void (*gn)(struct sc_pq_filemeta *);
		int status;
		const char *msg; /* after "'<path>': " */
	} cases[] = {
		{ "a page of 2^31-1 values", huge_values, NULL, SC_ST_INTERNAL,
		    "column 'a': a row group needs more memory than the reader's limit (1073741824 bytes)" },
		{ "a page longer than its chunk", negative_size, NULL,
		    SC_ST_PROTOCOL,
		    "column 'a': malformed Parquet page: a page past the end of its column chunk" },
		{ "v2 levels past the page", v2_levels_past, NULL,
		    SC_ST_PROTOCOL,
		    "column 'a': malformed Parquet page: levels past the end of the page" },
		{ "rows the page does not hold", NULL, more_rows,
		    SC_ST_PROTOCOL,
		    "column 'a': malformed Parquet page: fewer values than the column chunk claims" },
		{ "a chunk past the end", NULL, chunk_past_end, SC_ST_PROTOCOL,
		    "column 'a': malformed Parquet page: a column chunk past the end of the file" },
		{ "a chunk longer than the file", NULL, chunk_longer,
		    SC_ST_PROTOCOL,
		    "column 'a': malformed Parquet page: a column chunk past the end of the file" },
		{ "more children than elements", NULL, children_past,
		    SC_ST_PROTOCOL,
		    "malformed Parquet schema: more children than elements" },
		{ "an LZ4 chunk", NULL, lz4, SC_ST_USAGE,
		    "column 'a': Parquet codec LZ4 is not supported" },
		{ "a chunk of another type", NULL, other_type, SC_ST_PROTOCOL,
		    "column 'a': malformed Parquet page: a column chunk of another type than its schema's" },
	};
	struct sc_error err;
	char want[512];
	uint8_t *f;
	size_t n, i, cut, failed = 0, crashed = 0;

	small_file(10);
	is_int(try_read(0, &err), 0, "the small file reads");
	for (i = 0; i < SC_NELEM(cases); i++) {
		small_file(10);
		rebuild(cases[i].fn, cases[i].gn);
		is_int(try_read(0, &err), -1, "%s: refused", cases[i].name);
		snprintf(want, sizeof(want), "'%s': %s", path, cases[i].msg);
		is_str(err.msg, want, "%s: its message", cases[i].name);
		is_int(err.status, cases[i].status, "%s: its status",
		    cases[i].name);
	}

	/* The reader's limit. */
	small_file(10);
	is_int(try_read(100, &err), -1, "a limit of 100 bytes");
	snprintf(want, sizeof(want),
	    "'%s': column 'a': a row group needs more memory than the reader's limit (100 bytes)",
	    path);
	is_str(err.msg, want, "its message");

	/* Magic, size and footer length. */
	small_file(10);
	f = slurp(&n);
	f[0] = 'X';
	spit(f, n);
	is_int(try_read(0, &err), -1, "bad leading magic");
	snprintf(want, sizeof(want), "'%s': not a Parquet file (no PAR1 magic)",
	    path);
	is_str(err.msg, want, "its message");
	f[0] = 'P';
	spit(f, 11);
	is_int(try_read(0, &err), -1, "an 11-byte file");
	snprintf(want, sizeof(want),
	    "'%s': not a Parquet file (11 bytes, fewer than 12)", path);
	is_str(err.msg, want, "its message");
	{
		uint32_t big = 0x7fffffff;
		uint8_t *g = sc_xmemdup(f, n);

		memcpy(g + n - 8, &big, 4);
		spit(g, n);
		is_int(try_read(0, &err), -1, "a footer length past the start");
		snprintf(want, sizeof(want),
		    "'%s': malformed Parquet file: footer length 2147483647 past the file's %zu bytes",
		    path, n);
		is_str(err.msg, want, "its message");
		is_int(err.status, SC_ST_PROTOCOL, "status PROTOCOL");
		free(g);
	}
	memcpy(f + n - 4, "PARE", 4);
	spit(f, n);
	is_int(try_read(0, &err), -1, "an encrypted footer");
	snprintf(want, sizeof(want),
	    "'%s': encrypted Parquet files are not supported", path);
	is_str(err.msg, want, "its message");
	memcpy(f + n - 4, "PAR1", 4);

	/* Every truncation that keeps the magic at both ends. */
	for (cut = 12; cut < n; cut++) {
		uint8_t *g = sc_xmalloc(cut);

		memcpy(g, f, cut - 4);
		memcpy(g + cut - 4, "PAR1", 4);
		memcpy(g + cut - 8, f + n - 8, 4);
		spit(g, cut);
		if (try_read(0, &err) == -1)
			failed++;
		else
			crashed++;
		free(g);
	}
	is_int(crashed, 0, "no truncation of %zu reads as a file", n - 12);
	is_int(failed, n - 12, "each is refused");

	/* Every byte flipped: an error or a file, never a crash. */
	for (i = 4; i < n - 4; i++) {
		f[i] ^= 0x5a;
		spit(f, n);
		(void)try_read(1 << 20, &err);
		f[i] ^= 0x5a;
	}
	ok(1, "%zu single-byte corruptions read without a crash", n - 8);
	free(f);

	is_int(sc_parquet_reader_open("/nonexistent.parquet", NULL, &err) ==
		NULL,
	    1, "a missing file");
	is_str(err.msg,
	    "cannot open '/nonexistent.parquet': No such file or directory",
	    "its message");
	is_int(err.status, SC_ST_IO, "status IO");
}

/* --- files of other writers' shapes, made by hand ------------------- */

struct hleaf {
	int max_def, max_rep;
	size_t n; /* entries */
	const uint16_t *def, *rep;
	const int32_t *vals; /* the non-null values */
	size_t nvals;
};

static void
enc_lev(struct sc_buf *b, const uint16_t *lev, size_t n, int mx)
{
	uint32_t tmp[64];
	size_t at = b->len, i;
	uint32_t len;

	for (i = 0; i < n; i++)
		tmp[i] = lev[i];
	(void)sc_buf_add(b, "\0\0\0\0", 4, NULL);
	sc_pq_enc_rle(b, tmp, n, sc_pq_bit_width((uint64_t)mx));
	len = (uint32_t)(b->len - at - 4);
	memcpy(b->data + at, &len, 4);
}

/*
 * A file of INT32 leaves with schema els, one uncompressed v1 page of
 * levels and PLAIN values per leaf, rows in one group.
 */
static void
hand_file(struct sc_pq_schema_el *els, uint32_t nels, const struct hleaf *lv,
    size_t nleaves, int64_t rows)
{
	struct sc_pq_colchunk cols[8];
	struct sc_pq_rowgroup g;
	struct sc_pq_filemeta fm;
	struct sc_pq_pagehdr ph;
	struct sc_buf out, body, foot;
	int32_t enc[2] = { SC_PQ_PLAIN, SC_PQ_RLE };
	char *names[1] = { (char *)"x" };
	uint32_t flen;
	size_t i, start;

	sc_buf_init(&out, SC_BUF_UNLIMITED);
	sc_buf_init(&body, SC_BUF_UNLIMITED);
	sc_buf_init(&foot, SC_BUF_UNLIMITED);
	(void)sc_buf_add(&out, "PAR1", 4, NULL);
	memset(cols, 0, sizeof(cols));
	for (i = 0; i < nleaves; i++) {
		sc_buf_reset(&body);
		if (lv[i].max_rep > 0)
			enc_lev(&body, lv[i].rep, lv[i].n, lv[i].max_rep);
		if (lv[i].max_def > 0)
			enc_lev(&body, lv[i].def, lv[i].n, lv[i].max_def);
		(void)sc_buf_add(&body, lv[i].vals, lv[i].nvals * 4, NULL);
		memset(&ph, 0, sizeof(ph));
		ph.type = SC_PQ_DATA_PAGE;
		ph.uncompressed_size = ph.compressed_size = (int32_t)body.len;
		ph.num_values = (int32_t)lv[i].n;
		ph.encoding = SC_PQ_PLAIN;
		ph.def_encoding = ph.rep_encoding = SC_PQ_RLE;
		start = out.len;
		sc_pq_pagehdr_write(&out, &ph);
		(void)sc_buf_add(&out, body.data, body.len, NULL);
		cols[i].has_meta = true;
		cols[i].file_offset = (int64_t)start;
		cols[i].meta.type = SC_PQ_INT32;
		cols[i].meta.encodings = enc;
		cols[i].meta.nencodings = 2;
		cols[i].meta.path = names;
		cols[i].meta.npath = 1;
		cols[i].meta.codec = SC_PQ_UNCOMPRESSED;
		cols[i].meta.num_values = (int64_t)lv[i].n;
		cols[i].meta.total_compressed = (int64_t)(out.len - start);
		cols[i].meta.total_uncompressed = (int64_t)(out.len - start);
		cols[i].meta.data_page_offset = (int64_t)start;
		cols[i].meta.dictionary_page_offset = -1;
	}
	memset(&g, 0, sizeof(g));
	g.cols = cols;
	g.ncols = (uint32_t)nleaves;
	g.num_rows = rows;
	memset(&fm, 0, sizeof(fm));
	fm.version = 1;
	fm.schema = els;
	fm.nschema = nels;
	fm.num_rows = rows;
	fm.rowgroups = &g;
	fm.nrowgroups = 1;
	sc_pq_filemeta_write(&foot, &fm);
	(void)sc_buf_add(&out, foot.data, foot.len, NULL);
	flen = (uint32_t)foot.len;
	(void)sc_buf_add(&out, &flen, 4, NULL);
	(void)sc_buf_add(&out, "PAR1", 4, NULL);
	spit(out.data, out.len);
	sc_buf_release(&out);
	sc_buf_release(&body);
	sc_buf_release(&foot);
}

static struct sc_pq_schema_el
el(const char *name, int type, int rep, int nchild, int converted)
{
	struct sc_pq_schema_el e;

	memset(&e, 0, sizeof(e));
	e.name = (char *)name;
	e.type = type;
	e.repetition = rep;
	e.num_children = nchild;
	e.converted = converted;
	e.scale = e.precision = e.field_id = -1;
	return e;
}

static void
test_legacy_shapes(void)
{
	/*
	 * message m {
	 *   repeated int32 bare;                    -- a list, elements required
	 *   optional group two (LIST) {
	 *     repeated int32 two;                    -- 2-level: the element
	 *   }
	 *   optional group tup (LIST) {
	 *     repeated group tup_tuple { required int32 x; }  -- struct element
	 *   }
	 * }
	 */
	struct sc_pq_schema_el els[8];
	static const uint16_t bare_rep[] = { 0, 1, 1, 0, 0 },
			      bare_def[] = { 1, 1, 1, 0, 1 };
	static const int32_t bare_v[] = { 1, 2, 3, 4 };
	static const uint16_t two_rep[] = { 0, 1, 0, 0 },
			      two_def[] = { 2, 2, 0, 1 };
	static const int32_t two_v[] = { 5, 6 };
	static const uint16_t tup_rep[] = { 0, 1, 0, 0 },
			      tup_def[] = { 2, 2, 0, 1 };
	static const int32_t tup_v[] = { 7, 8 };
	const struct hleaf lv[3] = {
		{ 1, 1, 5, bare_def, bare_rep, bare_v, 4 },
		{ 2, 1, 4, two_def, two_rep, two_v, 2 },
		{ 2, 1, 4, tup_def, tup_rep, tup_v, 2 },
	};
	struct sc_parquet_reader *r;
	struct sc_buf b, vals[3];
	struct sc_error err;
	size_t i;

	els[0] = el("m", -1, -1, 3, -1);
	els[1] = el("bare", SC_PQ_INT32, SC_PQ_REPEATED, 0, -1);
	els[2] = el("two", -1, SC_PQ_OPTIONAL, 1, SC_PQ_CT_LIST);
	els[3] = el("two", SC_PQ_INT32, SC_PQ_REPEATED, 0, -1);
	els[4] = el("tup", -1, SC_PQ_OPTIONAL, 1, SC_PQ_CT_LIST);
	els[5] = el("tup_tuple", -1, SC_PQ_REPEATED, 1, -1);
	els[6] = el("x", SC_PQ_INT32, SC_PQ_REQUIRED, 0, -1);
	hand_file(els, 7, lv, 3, 3);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	r = sc_parquet_reader_open(path, NULL, &err);
	ok(r != NULL, "a file of legacy list shapes opens");
	if (r == NULL) {
		printf("# %s\n", err.msg);
		return;
	}
	sc_parquet_type_ddl(sc_parquet_reader_schema(r), &b);
	is_str((char *)b.data,
	    "bare array<int> not null, two array<int>, tup array<struct<x:int>>",
	    "as Spark types: a bare repeated field, a 2-level list, a _tuple list");
	for (i = 0; i < 3; i++)
		sc_buf_init(&vals[i], SC_BUF_UNLIMITED);
	sc_buf_reset(&b);
	ok(sc_parquet_reader_next_group(r, &err) == 1, "its group");
	while (sc_parquet_reader_row_values(r, vals, &err) == 1) {
		for (i = 0; i < 3; i++) {
			(void)sc_buf_add(&b, vals[i].data, vals[i].len, NULL);
			(void)sc_buf_addch(&b, i < 2 ? ' ' : '\n', NULL);
			sc_buf_reset(&vals[i]);
		}
	}
	is_str((char *)b.data,
	    "[1,2,3] [5,6] [[7],[8]]\n[] null null\n[4] [] []\n",
	    "its rows, one value per column");
	is_str(sc_parquet_reader_created_by(r), NULL, "no created_by");
	for (i = 0; i < 3; i++)
		sc_buf_release(&vals[i]);
	sc_buf_release(&b);
	sc_parquet_reader_free(r);

	/* A column whose first entry continues a row that never began. */
	{
		static const uint16_t bad_rep[] = { 1, 1, 1, 0, 0 };
		struct hleaf bad[3];
		char want[512];

		memcpy(bad, lv, sizeof(bad));
		bad[0].rep = bad_rep;
		hand_file(els, 7, bad, 3, 3);
		is_int(try_read(0, &err), -1,
		    "a first entry of repetition level 1");
		snprintf(want, sizeof(want),
		    "'%s': column 'bare': malformed Parquet file: 2 rows in a row group of 3",
		    path);
		is_str(err.msg, want, "its message");
	}
}

int
main(void)
{
	tap_template(dir, sizeof(dir), "test-parquet.");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/t.parquet", dir);
	test_ddl();
	test_round_trip();
	test_types();
	test_levels();
	test_writer_refusals();
	test_malformed();
	test_legacy_shapes();
	unlink(path);
	rmdir(dir);
	return tap_done();
}
