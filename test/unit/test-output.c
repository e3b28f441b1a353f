/* SPDX-License-Identifier: MIT */

/*
 * test-output.c: every escaping rule of the CSV, TSV, JSON lines and
 * table writers, byte for byte, plus flushing and write errors.
 */

#include "core/output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

/* A value from a string literal (sizeof keeps embedded NULs). */
#define S(lit)                                      \
	{                                           \
		SC_OUT_STRING, lit, sizeof(lit) - 1 \
	}
#define N(lit)                                      \
	{                                           \
		SC_OUT_NUMBER, lit, sizeof(lit) - 1 \
	}
#define BO(lit)                                   \
	{                                         \
		SC_OUT_BOOL, lit, sizeof(lit) - 1 \
	}
#define J(lit)                                    \
	{                                         \
		SC_OUT_JSON, lit, sizeof(lit) - 1 \
	}
#define NUL_V                        \
	{                            \
		SC_OUT_NULL, NULL, 0 \
	}

struct mem {
	FILE *fp;
	char *buf;
	size_t len;
};

static struct sc_output *
open_mem(struct mem *m, enum sc_out_format f, const struct sc_output_opts *o)
{
	m->buf = NULL;
	m->len = 0;
	m->fp = open_memstream(&m->buf, &m->len);
	if (m->fp == NULL)
		abort();
	return sc_output_new(m->fp, f, o);
}

/* Finish, close, and compare everything written with want (wlen bytes). */
static void
check_mem(struct mem *m, struct sc_output *o, const char *want, size_t wlen,
    const char *name)
{
	struct sc_error err;

	is_int(sc_output_finish(o, &err), 0, "%s: finish", name);
	sc_output_free(o);
	fclose(m->fp);
	is_mem(m->buf, m->len, want, wlen, "%s: exact bytes", name);
	if (m->len != wlen || memcmp(m->buf, want, wlen) != 0)
		printf("#   got '%.*s'\n", (int)m->len, m->buf);
	free(m->buf);
}

#define CHECK(m, o, lit, name) check_mem(m, o, lit, sizeof(lit) - 1, name)

static void
row(struct sc_output *o, const struct sc_out_value *v, size_t n)
{
	struct sc_error err;

	if (sc_output_row(o, v, n, &err) != 0)
		printf("#   row failed: %s\n", err.msg);
}

static void
test_parse(void)
{
	enum sc_out_format f = SC_OUT_TSV;

	ok(sc_out_format_parse("table", &f) == 0 && f == SC_OUT_TABLE,
	    "parse table");
	ok(sc_out_format_parse("csv", &f) == 0 && f == SC_OUT_CSV, "parse csv");
	ok(sc_out_format_parse("tsv", &f) == 0 && f == SC_OUT_TSV, "parse tsv");
	ok(sc_out_format_parse("jsonl", &f) == 0 && f == SC_OUT_JSONL,
	    "parse jsonl");
	f = SC_OUT_CSV;
	ok(sc_out_format_parse("json", &f) == 0 && f == SC_OUT_JSONL,
	    "parse json");
	ok(sc_out_format_parse("csvx", &f) == -1 && f == SC_OUT_JSONL,
	    "parse csvx fails, out untouched");
	ok(sc_out_format_parse("CSV", &f) == 0 && f == SC_OUT_CSV,
	    "parse CSV: any case, as --format=CSV is typed");
	ok(sc_out_format_parse("", &f) == -1, "parse '' fails");
}

static void
test_csv(void)
{
	static const char *const names[] = { "a", "b,c", "q\"x", " s" };
	static const struct sc_out_value r1[] = { S("plain"), S("has,comma"),
		S("quo\"te\""), S("line\nbreak") };
	static const struct sc_out_value r2[] = { S("cr\r"), S(" lead"),
		S("trail "), S("\ttab") };
	static const struct sc_out_value r3[] = { S(""), NUL_V, N("42"),
		BO("true") };
	static const struct sc_out_value r4[] = { J("{\"a\":1}"), S("a\0b"),
		S("in ner"), S("\xc3\xa9") };
	struct sc_output_opts opts = { true, "NULL", -1, 0 };
	struct sc_output *o;
	struct mem m;
	struct sc_error err;

	o = open_mem(&m, SC_OUT_CSV, NULL);
	is_int(sc_output_header(o, names, 4, &err), 0, "csv header");
	row(o, r1, 4);
	row(o, r2, 4);
	row(o, r3, 4);
	row(o, r4, 4);
	CHECK(&m, o,
	    "a,\"b,c\",\"q\"\"x\",\" s\"\n"
	    "plain,\"has,comma\",\"quo\"\"te\"\"\",\"line\nbreak\"\n"
	    "\"cr\r\",\" lead\",\"trail \",\"\ttab\"\n"
	    "\"\",,42,true\n"
	    "\"{\"\"a\"\":1}\",a\0b,in ner,\xc3\xa9\n",
	    "csv");

	/* null text "NULL": a NULL is bare, the string "NULL" quoted. */
	{
		static const struct sc_out_value v[] = { NUL_V, S("NULL"),
			S(""), S("NULLx") };

		o = open_mem(&m, SC_OUT_CSV, &opts);
		sc_output_header(o, names, 4, &err);
		row(o, v, 4);
		CHECK(&m, o,
		    "a,\"b,c\",\"q\"\"x\",\" s\"\n"
		    "NULL,\"NULL\",,NULLx\n",
		    "csv null text NULL");
	}
	/* A null text that itself needs quotes. */
	{
		static const struct sc_out_value v[] = { NUL_V, S("x") };
		static const char *const nm[] = { "a", "b" };
		struct sc_output_opts oo = { false, "n,a", 0, 0 };

		o = open_mem(&m, SC_OUT_CSV, &oo);
		sc_output_header(o, nm, 2, &err);
		row(o, v, 2);
		CHECK(&m, o, "\"n,a\",x\n", "csv quoted null text, no header");
	}
}

static void
test_tsv(void)
{
	static const char *const names[] = { "a\tb", "c\\d" };
	static const struct sc_out_value r1[] = { S("t\tt"), S("n\nn") };
	static const struct sc_out_value r2[] = { S("r\rr"), S("b\\b") };
	static const struct sc_out_value r3[] = { S("z\0z"), NUL_V };
	static const struct sc_out_value r4[] = { S(""), N("-1.5") };
	static const struct sc_out_value r5[] = { S("\\N"), S("\"q\", x") };
	struct sc_output_opts opts = { true, "\\N", -1, 0 };
	struct sc_output *o;
	struct mem m;
	struct sc_error err;

	o = open_mem(&m, SC_OUT_TSV, NULL);
	sc_output_header(o, names, 2, &err);
	row(o, r1, 2);
	row(o, r2, 2);
	row(o, r3, 2);
	row(o, r4, 2);
	row(o, r5, 2);
	CHECK(&m, o,
	    "a\\tb\tc\\\\d\n"
	    "t\\tt\tn\\nn\n"
	    "r\\rr\tb\\\\b\n"
	    "z\\0z\t\n"
	    "\t-1.5\n"
	    "\\\\N\t\"q\", x\n",
	    "tsv");

	o = open_mem(&m, SC_OUT_TSV, &opts);
	sc_output_header(o, names, 2, &err);
	row(o, r3, 2);
	row(o, r5, 2);
	CHECK(&m, o,
	    "a\\tb\tc\\\\d\n"
	    "z\\0z\t\\N\n"
	    "\\\\N\t\"q\", x\n",
	    "tsv with null text \\N");
}

static void
test_jsonl(void)
{
	static const char *const names[] = { "s", "n", "b", "j", "z" };
	static const struct sc_out_value r1[] = { S("x"), N("42"), BO("true"),
		J("{\"k\":[1,2]}"), NUL_V };
	static const struct sc_out_value r2[] = {
		S("\"\\\b\f\n\r\t\x01\x1f\x7f/"), N("-0.5e+10"), BO("false"),
		J("[1,\n 2]\r\n"), S("a\0b")
	};
	static const struct sc_out_value r3[] = {
		S("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), N("NaN"), BO("TRUE"),
		J(""), S("")
	};
	static const struct sc_out_value r4[] = { S("\xff"), N("01"), BO("1"),
		J("null"), S("\xc3") };
	static const struct sc_out_value r5[] = { S("\xc0\xaf"), N("1."),
		{ SC_OUT_BOOL, "", 0 }, { SC_OUT_NUMBER, "", 0 },
		S("\xed\xa0\x80") };
	static const struct sc_out_value r6[] = { S("\xf4\x90\x80\x80"),
		N("1e"), BO("false"), N("-0"), S("\xe2\x82x\xf4\x8f\xbf\xbf") };
	struct sc_output *o;
	struct mem m;
	struct sc_error err;

	o = open_mem(&m, SC_OUT_JSONL, NULL);
	sc_output_header(o, names, 5, &err);
	row(o, r1, 5);
	row(o, r2, 5);
	row(o, r3, 5);
	row(o, r4, 5);
	row(o, r5, 5);
	row(o, r6, 5);
	CHECK(&m, o,
	    "{\"s\":\"x\",\"n\":42,\"b\":true,\"j\":{\"k\":[1,2]},\"z\":null}\n"
	    "{\"s\":\"\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\x7f/\","
	    "\"n\":-0.5e+10,\"b\":false,\"j\":[1,  2]  ,"
	    "\"z\":\"a\\u0000b\"}\n"
	    "{\"s\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\",\"n\":\"NaN\","
	    "\"b\":\"TRUE\",\"j\":null,\"z\":\"\"}\n"
	    "{\"s\":\"\\ufffd\",\"n\":\"01\",\"b\":\"1\",\"j\":null,"
	    "\"z\":\"\\ufffd\"}\n"
	    "{\"s\":\"\\ufffd\\ufffd\",\"n\":\"1.\",\"b\":null,\"j\":null,"
	    "\"z\":\"\\ufffd\\ufffd\\ufffd\"}\n"
	    "{\"s\":\"\\ufffd\\ufffd\\ufffd\\ufffd\",\"n\":\"1e\","
	    "\"b\":false,\"j\":-0,\"z\":\"\\ufffd\\ufffdx\xf4\x8f\xbf\xbf\"}\n",
	    "jsonl");

	/* Column names are escaped; header=false changes nothing. */
	{
		static const char *const nm[] = { "a\"b", "\n" };
		static const struct sc_out_value v[] = { N("1"), N("2") };
		struct sc_output_opts oo = { false, NULL, 0, 0 };

		o = open_mem(&m, SC_OUT_JSONL, &oo);
		sc_output_header(o, nm, 2, &err);
		row(o, v, 2);
		CHECK(&m, o, "{\"a\\\"b\":1,\"\\n\":2}\n", "jsonl names");
	}
}

static void
test_table(void)
{
	static const char *const names[] = { "id", "name", "note" };
	static const struct sc_out_value r1[] = { N("1"), S("alice"), S("x") };
	static const struct sc_out_value r2[] = { N("22"), NUL_V, S("") };
	static const struct sc_out_value r3[] = { N("333"), S("\xc3\xa9 x"),
		S("last") };
	static const struct sc_out_value r4[] = { N("-4"),
		S("a\tb\nc\x01\xff\r"), S("\xc2\x85|\x7f") };
	struct sc_output *o;
	struct mem m;
	struct sc_error err;

	o = open_mem(&m, SC_OUT_TABLE, NULL);
	sc_output_header(o, names, 3, &err);
	row(o, r1, 3);
	row(o, r2, 3);
	row(o, r3, 3);
	is_int(m.len, 0, "table: nothing written before finish");
	CHECK(&m, o,
	    "id   name   note\n"
	    "---  -----  ----\n"
	    "  1  alice  x\n"
	    " 22  NULL\n"
	    "333  \xc3\xa9 x    last\n",
	    "table, widths in code points");

	o = open_mem(&m, SC_OUT_TABLE, NULL);
	sc_output_header(o, names, 3, &err);
	row(o, r4, 3);
	CHECK(&m, o,
	    "id  name               note\n"
	    "--  -----------------  -----------\n"
	    "-4  a\\tb\\nc\\x01\\xff\\r  \\u0085|\\x7f\n",
	    "table escapes control characters and bad UTF-8");

	/* No header: no rule either; header only: header and rule. */
	{
		struct sc_output_opts oo = { false, "-", 0, 0 };

		o = open_mem(&m, SC_OUT_TABLE, &oo);
		sc_output_header(o, names, 3, &err);
		row(o, r2, 3);
		row(o, r1, 3);
		CHECK(&m, o, "22  -\n 1  alice  x\n",
		    "table without header, null text '-'");
	}
	o = open_mem(&m, SC_OUT_TABLE, NULL);
	sc_output_header(o, names, 3, &err);
	CHECK(&m, o, "id  name  note\n--  ----  ----\n", "table, no rows");
}

/*
 * Pages: records are held until a page is full, each page aligned to the
 * widest cell so far; when the columns grow, the header comes again.
 */
static void
test_table_stream(void)
{
	static const char *const names[] = { "a", "b" };
	static const struct sc_out_value small[] = { S("x"), S("y") };
	static const struct sc_out_value wide[] = { S("wide"), S("z") };
	struct sc_output_opts three = { true, NULL, -1, 3 };
	struct sc_output *o;
	struct mem m;
	struct sc_error err;
	size_t i, len_after_1000;

	o = open_mem(&m, SC_OUT_TABLE, NULL);
	sc_output_header(o, names, 2, &err);
	for (i = 0; i < 999; i++)
		row(o, small, 2);
	is_int(m.len, 0, "999 rows held back (the default page)");
	row(o, small, 2);
	len_after_1000 = m.len;
	is_int(len_after_1000, 5 + 5 + 1000 * 5,
	    "the 1000th row releases header, rule and rows");
	row(o, small, 2);
	is_int(m.len, len_after_1000, "the next page is held again");
	sc_output_free(o);
	fclose(m.fp);
	free(m.buf);

	o = open_mem(&m, SC_OUT_TABLE, &three);
	sc_output_header(o, names, 2, &err);
	row(o, small, 2);
	row(o, small, 2);
	row(o, small, 2);
	is_int(m.len, 10 + 3 * 5, "a page of 3 is written at its third row");
	row(o, small, 2);
	row(o, small, 2);
	row(o, small, 2);
	row(o, wide, 2);
	row(o, small, 2);
	CHECK(&m, o,
	    "a  b\n-  -\nx  y\nx  y\nx  y\n"
	    "x  y\nx  y\nx  y\n"
	    "\n"
	    "a     b\n----  -\nwide  z\nx     y\n",
	    "table: a wider page brings the header again at the new widths");

	/* Without a header the later page is just realigned. */
	{
		struct sc_output_opts nh = { false, NULL, 0, 1 };

		o = open_mem(&m, SC_OUT_TABLE, &nh);
		sc_output_header(o, names, 2, &err);
		row(o, small, 2);
		row(o, wide, 2);
		row(o, small, 2);
		CHECK(&m, o, "x  y\nwide  z\nx     y\n",
		    "table without header: pages realigned, widths kept");
	}

	/* A huge first row ends the buffering at once (memory bound). */
	{
		size_t n = ((size_t)16 << 20) + 10;
		char *big = sc_xmalloc(n);
		struct sc_out_value v[2] = { { SC_OUT_STRING, big, n },
			S("q") };

		memset(big, 'b', n);
		o = open_mem(&m, SC_OUT_TABLE, NULL);
		sc_output_header(o, names, 2, &err);
		row(o, v, 2);
		ok(m.len > n, "a 16 MiB row is written without waiting");
		sc_output_free(o);
		fclose(m.fp);
		free(m.buf);
		free(big);
	}
}

static void
test_misuse(void)
{
	static const char *const names[] = { "a", "b" };
	static const struct sc_out_value v[] = { S("1"), S("2") };
	struct sc_output *o;
	struct mem m;
	struct sc_error err;

	o = open_mem(&m, SC_OUT_CSV, NULL);
	is_int(sc_output_row(o, v, 2, &err), -1, "row before header");
	is_int(err.status, SC_ST_INTERNAL, "  internal");
	is_str(err.msg, "output record before the header", "  message");
	sc_output_header(o, names, 2, &err);
	is_int(sc_output_header(o, names, 2, &err), -1, "header twice");
	is_str(err.msg, "output header written twice", "  message");
	is_int(sc_output_row(o, v, 1, &err), -1, "wrong value count");
	is_str(err.msg, "output record has 1 values for 2 columns",
	    "  message");
	row(o, v, 2);
	CHECK(&m, o, "a,b\n1,2\n", "misuse leaves the output intact");
	sc_output_free(NULL);
	ok(1, "sc_output_free(NULL) is a no-op");
}

static void
test_flush(void)
{
	static const char *const names[] = { "a" };
	static const struct sc_out_value v[] = { S("1") };
	struct sc_output_opts opts = { true, NULL, 1, 0 };
	struct sc_output *o;
	struct sc_error err;
	struct stat st;
	struct mem m;
	FILE *fp;

	/* A regular file: auto means no flush per record. */
	fp = tmpfile();
	o = sc_output_new(fp, SC_OUT_CSV, NULL);
	sc_output_header(o, names, 1, &err);
	row(o, v, 1);
	fstat(fileno(fp), &st);
	is_int(st.st_size, 0, "regular file: records stay buffered");
	is_int(sc_output_finish(o, &err), 0, "regular file: finish");
	fstat(fileno(fp), &st);
	is_int(st.st_size, 4, "regular file: finish flushes");
	sc_output_free(o);

	/* flush = 1 forces it even on a regular file. */
	rewind(fp);
	o = sc_output_new(fp, SC_OUT_CSV, &opts);
	sc_output_header(o, names, 1, &err);
	row(o, v, 1);
	row(o, v, 1);
	fstat(fileno(fp), &st);
	is_int(st.st_size, 6, "flush=1: each record written at once");
	sc_output_free(o);
	fclose(fp);

	/* Not a regular file (memstream): flushed per record. */
	o = open_mem(&m, SC_OUT_JSONL, NULL);
	sc_output_header(o, names, 1, &err);
	row(o, v, 1);
	is_int(m.len, 10, "memstream: record flushed at once");
	CHECK(&m, o, "{\"a\":\"1\"}\n", "memstream jsonl");
}

static void
test_write_error(void)
{
	static const char *const names[] = { "a" };
	static const struct sc_out_value v[] = { S("1") };
	struct sc_output_opts opts = { true, NULL, 0, 0 };
	struct sc_output *o;
	struct sc_error err;
	FILE *fp;

	fp = fopen("/dev/full", "w");
	ok(fp != NULL, "open /dev/full");
	if (fp == NULL)
		return;
	o = sc_output_new(fp, SC_OUT_CSV, NULL); /* auto: flushes */
	is_int(sc_output_header(o, names, 1, &err), -1,
	    "/dev/full: header fails");
	is_int(err.status, SC_ST_IO, "  SC_ST_IO");
	is_int(err.sys_errno, ENOSPC, "  ENOSPC");
	is_str(err.msg, "cannot write output: No space left on device",
	    "  message");
	sc_error_init(&err);
	is_int(sc_output_row(o, v, 1, &err), -1, "  later rows fail too");
	is_int(err.sys_errno, ENOSPC, "  with the same errno");
	sc_error_init(&err);
	is_int(sc_output_finish(o, &err), -1, "  and finish");
	is_int(err.status, SC_ST_IO, "  SC_ST_IO");
	sc_output_free(o);
	fclose(fp);

	/* Without per-record flushing the error shows at finish. */
	fp = fopen("/dev/full", "w");
	o = sc_output_new(fp, SC_OUT_TABLE, &opts);
	is_int(sc_output_header(o, names, 1, &err), 0, "buffered: header ok");
	is_int(sc_output_row(o, v, 1, &err), 0, "buffered: row ok");
	is_int(sc_output_finish(o, &err), -1, "buffered: finish fails");
	is_int(err.status, SC_ST_IO, "  SC_ST_IO");
	is_int(err.sys_errno, ENOSPC, "  ENOSPC");
	sc_output_free(o);
	fclose(fp);
}

/* Records are collected and written in large pieces, in order. */
static void
test_batching(void)
{
	static const char *const names[] = { "a", "b" };
	static const char *const jnames[] = { "k\"1", "t\t" };
	struct sc_out_value v[2];
	struct sc_output_opts opts = { true, NULL, 0, 0 };
	struct sc_output *o;
	struct sc_error err;
	struct stat st;
	struct mem m;
	char num[32], *want;
	size_t i, wlen = 0, cap = 1 << 21;
	FILE *fp;
	int n;

	/* 100000 CSV records (about 1.5 MB), every byte in order. */
	want = sc_xmalloc(cap);
	o = open_mem(&m, SC_OUT_CSV, &opts);
	sc_output_header(o, names, 2, &err);
	wlen += (size_t)snprintf(want + wlen, cap - wlen, "a,b\n");
	for (i = 0; i < 100000; i++) {
		n = snprintf(num, sizeof(num), "%zu", i * 7919);
		v[0].kind = SC_OUT_NUMBER;
		v[0].p = num;
		v[0].n = (size_t)n;
		v[1].kind = i % 3 == 0 ? SC_OUT_NULL : SC_OUT_STRING;
		v[1].p = i % 3 == 1 ? "x,y" : "";
		v[1].n = i % 3 == 1 ? 3 : 0;
		row(o, v, 2);
		wlen += (size_t)snprintf(want + wlen, cap - wlen, "%s,%s\n",
		    num,
		    i % 3 == 0	     ? ""
			: i % 3 == 1 ? "\"x,y\""
				     : "\"\"");
	}
	ok(m.len < wlen, "collected records are not all written yet");
	check_mem(&m, o, want, wlen, "100000 csv records");
	free(want);

	/* sc_output_flush() writes what is collected, and fflushes. */
	fp = tmpfile();
	o = sc_output_new(fp, SC_OUT_TSV, &opts);
	sc_output_header(o, names, 2, &err);
	v[0].kind = SC_OUT_STRING;
	v[0].p = "a\tb";
	v[0].n = 3;
	v[1].kind = SC_OUT_NULL;
	row(o, v, 2);
	fstat(fileno(fp), &st);
	is_int(st.st_size, 0, "flush: nothing written before");
	is_int(sc_output_flush(o, &err), 0, "flush: 0");
	fstat(fileno(fp), &st);
	is_int(st.st_size, 10, "flush: header and record written");
	is_int(sc_output_flush(o, &err), 0, "flush again: 0");
	fstat(fileno(fp), &st);
	is_int(st.st_size, 10, "flush again: nothing more");

	/* Freed without finish: collected records still go to fp. */
	row(o, v, 2);
	sc_output_free(o);
	fflush(fp);
	fstat(fileno(fp), &st);
	is_int(st.st_size, 16, "free writes the collected record");
	fclose(fp);

	/* JSON lines keys, escaped once, the same in every record. */
	o = open_mem(&m, SC_OUT_JSONL, &opts);
	sc_output_header(o, jnames, 2, &err);
	v[0].kind = SC_OUT_NUMBER;
	v[0].p = "-1";
	v[0].n = 2;
	v[1].kind = SC_OUT_NULL;
	row(o, v, 2);
	v[0].kind = SC_OUT_STRING;
	row(o, v, 2);
	CHECK(&m, o,
	    "{\"k\\\"1\":-1,\"t\\t\":null}\n"
	    "{\"k\\\"1\":\"-1\",\"t\\t\":null}\n",
	    "jsonl keys in every record");

	/* Flush on a full device reports the error. */
	fp = fopen("/dev/full", "w");
	ok(fp != NULL, "open /dev/full");
	if (fp == NULL)
		return;
	o = sc_output_new(fp, SC_OUT_CSV, &opts);
	is_int(sc_output_header(o, names, 2, &err), 0, "full: header ok");
	is_int(sc_output_flush(o, &err), -1, "full: flush fails");
	is_int(err.status, SC_ST_IO, "  SC_ST_IO");
	is_int(err.sys_errno, ENOSPC, "  ENOSPC");
	sc_error_init(&err);
	is_int(sc_output_flush(o, &err), -1, "full: flush fails again");
	is_int(err.sys_errno, ENOSPC, "  with the same errno");
	sc_output_free(o);
	fclose(fp);
}

/* Table cells: printable ASCII runs next to escapes and UTF-8. */
static void
test_table_runs(void)
{
	static const char *const names[] = { "c" };
	static const struct sc_out_value v1[] = { S("ab\x7f"
						    "cd\x01"
						    "e") };
	static const struct sc_out_value v2[] = { S("\xc3\xa9xy\xffz~") };
	struct sc_output *o;
	struct sc_error err;
	struct mem m;

	o = open_mem(&m, SC_OUT_TABLE, NULL);
	sc_output_header(o, names, 1, &err);
	row(o, v1, 1);
	row(o, v2, 1);
	CHECK(&m, o,
	    "c\n"
	    "-------------\n"
	    "ab\\x7fcd\\x01e\n"
	    "\xc3\xa9xy\\xffz~\n",
	    "table: runs, escapes, UTF-8");
}

/* Display width: wide characters take two columns, combining marks none. */
static void
test_table_width(void)
{
	static const char *const names[] = { "name", "n" };
	static const struct sc_out_value r1[] = { S("\xe6\x97\xa5\xe6\x9c"
						    "\xac\xe8\xaa\x9e"),
		N("2") };
	static const struct sc_out_value r2[] = { S("cafe\xcc\x81"), N("4") };
	static const struct sc_out_value r3[] = { S("\xf0\x9f\x99\x82"
						    "\xf0\x9f\x99\x82"),
		N("5") };
	struct sc_output *o;
	struct sc_error err;
	struct mem m;

	o = open_mem(&m, SC_OUT_TABLE, NULL);
	sc_output_header(o, names, 2, &err);
	row(o, r1, 2);
	row(o, r2, 2);
	row(o, r3, 2);
	CHECK(&m, o,
	    "name    n\n"
	    "------  -\n"
	    "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e  2\n"
	    "cafe\xcc\x81    4\n"
	    "\xf0\x9f\x99\x82\xf0\x9f\x99\x82    5\n",
	    "table: CJK and emoji count 2 columns, a combining mark 0");
}

/* psql's expanded mode. */
static void
test_vertical(void)
{
	static const char *const names[] = { "id", "long_name",
		"\xe5\x90\x8d" };
	static const struct sc_out_value r1[] = { N("1"), S("a\tb"), NUL_V };
	static const struct sc_out_value r2[] = { N("22"), S(""),
		S("\xe6\x97\xa5") };
	struct sc_output_opts nh = { false, "-", 0, 0 };
	struct sc_output *o;
	struct sc_error err;
	struct mem m;
	enum sc_out_format f = SC_OUT_CSV;

	ok(sc_out_format_parse("vertical", &f) == 0 && f == SC_OUT_VERTICAL,
	    "parse vertical");
	o = open_mem(&m, SC_OUT_VERTICAL, NULL);
	sc_output_header(o, names, 3, &err);
	row(o, r1, 3);
	row(o, r2, 3);
	CHECK(&m, o,
	    "-[ RECORD 1 ]---\n"
	    "id        | 1\n"
	    "long_name | a\\tb\n"
	    "\xe5\x90\x8d        | NULL\n"
	    "-[ RECORD 2 ]-\n"
	    "id        | 22\n"
	    "long_name |\n"
	    "\xe5\x90\x8d        | \xe6\x97\xa5\n",
	    "vertical: a block per record, names padded to one width");
	o = open_mem(&m, SC_OUT_VERTICAL, &nh);
	sc_output_header(o, names, 3, &err);
	row(o, r1, 3);
	row(o, r2, 3);
	CHECK(&m, o,
	    "id        | 1\n"
	    "long_name | a\\tb\n"
	    "\xe5\x90\x8d        | -\n"
	    "\n"
	    "id        | 22\n"
	    "long_name |\n"
	    "\xe5\x90\x8d        | \xe6\x97\xa5\n",
	    "vertical without header: blank lines between records");
}

int
main(void)
{
	test_parse();
	test_csv();
	test_tsv();
	test_jsonl();
	test_table();
	test_table_stream();
	test_misuse();
	test_flush();
	test_write_error();
	test_batching();
	test_table_runs();
	test_table_width();
	test_vertical();
	return tap_done();
}
