/* SPDX-License-Identifier: MIT */

/*
 * test-arrow-join.c: the joiner that re-frames Spark's per-response IPC
 * streams into one: byte for byte against streams the writer builds, the
 * legacy framing and metadata padding, schema changes, bad input and
 * write errors (nothing of a bad stream goes out), empty results.
 */

#include "core/arrow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "tap.h"
#include "core/banned.h"

/* The joiner's output, collected; fail_after >= 0 fails that write. */
struct sink {
	struct sc_buf out;
	int writes;
	int fail_after;
};

static int
put(void *arg, const void *p, size_t n, struct sc_error *err)
{
	struct sink *k = arg;

	if (k->fail_after >= 0 && k->writes++ == k->fail_after)
		return sc_error_set(err, SC_ST_IO, "cannot write output");
	return sc_buf_add(&k->out, p, n, err);
}

static void
sink_init(struct sink *k)
{
	sc_buf_init(&k->out, SC_BUF_UNLIMITED);
	k->writes = 0;
	k->fail_after = -1;
}

/* A writer for (id bigint, name string); name NULL means no name column. */
static struct sc_arrow_writer *
writer(const char *name)
{
	struct sc_arrow_schema s;
	struct sc_arrow_writer *w;

	sc_arrow_schema_init(&s);
	sc_arrow_schema_add(&s, "id", SC_ARROW_INT64, false);
	if (name != NULL)
		sc_arrow_schema_add(&s, name, SC_ARROW_UTF8, true);
	w = sc_arrow_writer_new(&s, NULL);
	sc_arrow_schema_release(&s);
	return w;
}

static void
rows(struct sc_arrow_writer *w, int64_t from, int64_t n)
{
	int64_t i;

	for (i = from; i < from + n; i++) {
		sc_arrow_append_int64(w, 0, i, NULL);
		if (sc_arrow_writer_schema(w)->nfields > 1) {
			if (i % 3 == 0)
				sc_arrow_append_null(w, 1, NULL);
			else
				sc_arrow_append_bytes(w, 1, "abc",
				    (size_t)(i % 4), NULL);
		}
		sc_arrow_writer_end_row(w, NULL);
	}
}

/* Sum of ids and count of rows and batches, read back. */
struct tally {
	int64_t sum;
	size_t rows, batches;
};

static int
tally_fn(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	struct tally *t = arg;
	int64_t v;
	size_t r;

	(void)err;
	for (r = 0; r < b->nrows; r++)
		if (sc_arrow_get_int64(b, 0, r, &v) == 0)
			t->sum += v;
	t->rows += b->nrows;
	t->batches++;
	return 0;
}

static void
test_join(void)
{
	struct sc_arrow_writer *w = writer("name");
	struct sc_buf in, want;
	struct sc_arrow_join j;
	struct sc_error err;
	struct tally t = { 0, 0, 0 };
	struct sink k;
	uint64_t n;
	int i;

	sink_init(&k);
	sc_buf_init(&in, SC_BUF_UNLIMITED);
	sc_buf_init(&want, SC_BUF_UNLIMITED);
	sc_arrow_write_schema(sc_arrow_writer_schema(w), &want, NULL);
	sc_arrow_join_init(&j, put, &k);
	/* Three responses as Spark sends them: schema, batch, EOS each. */
	for (i = 0; i < 3; i++) {
		sc_buf_reset(&in);
		rows(w, i * 100, 10 + i);
		sc_arrow_writer_flush(w, &in, NULL);
		rows(w, i * 100, 10 + i);
		sc_arrow_writer_flush_batch(w, &want, NULL);
		n = 99;
		is_int(sc_arrow_join_add(&j, in.data, in.len, &n, &err), 0,
		    "stream %d joined", i);
		is_int(n, 10 + i, "  its row count");
	}
	is_int(sc_arrow_join_finish(&j, &err), 0, "finish");
	sc_arrow_write_eos(&want, NULL);
	is_mem(k.out.data, k.out.len, want.data, want.len,
	    "one schema, three batches, one EOS, byte for byte");
	is_int(sc_arrow_read_stream(k.out.data, k.out.len, tally_fn, &t, &err),
	    0, "the joined stream reads back");
	is_int(t.batches, 3, "  3 batches");
	is_int(t.rows, 33, "  33 rows");
	is_int(t.sum, (0 + 9) * 10 / 2 + (100 * 11 + 55) + (200 * 12 + 66),
	    "  the ids");
	sc_arrow_join_release(&j);
	sc_arrow_writer_free(w);
	sc_buf_release(&in);
	sc_buf_release(&want);
	sc_buf_release(&k.out);
}

/*
 * Append the single modern-framed message m (prefix, metadata, body) in
 * the legacy framing (4-byte length, no continuation marker), with its
 * metadata 4 zero bytes longer, so it is no longer a multiple of 8.
 */
static void
legacy(const struct sc_buf *m, struct sc_buf *out)
{
	uint32_t len = (uint32_t)m->data[4] | (uint32_t)m->data[5] << 8 |
	    (uint32_t)m->data[6] << 16 | (uint32_t)m->data[7] << 24;
	uint8_t le[4];
	int i;

	for (i = 0; i < 4; i++)
		le[i] = (uint8_t)((len + 4) >> (8 * i));
	sc_buf_add(out, le, 4, NULL);
	sc_buf_add(out, m->data + 8, len, NULL);
	sc_buf_add(out, "\0\0\0\0", 4, NULL);
	sc_buf_add(out, m->data + 8 + len, m->len - 8 - len, NULL);
}

static void
test_legacy(void)
{
	struct sc_arrow_writer *w = writer("name");
	struct sc_buf schema, batch, old, want;
	struct sc_arrow_join j;
	struct sc_error err;
	struct tally t = { 0, 0, 0 };
	struct sink k;

	sink_init(&k);
	sc_buf_init(&schema, SC_BUF_UNLIMITED);
	sc_buf_init(&batch, SC_BUF_UNLIMITED);
	sc_buf_init(&old, SC_BUF_UNLIMITED);
	sc_buf_init(&want, SC_BUF_UNLIMITED);
	sc_arrow_write_schema(sc_arrow_writer_schema(w), &schema, NULL);
	rows(w, 1, 5);
	sc_arrow_writer_flush_batch(w, &batch, NULL);
	legacy(&schema, &old);
	legacy(&batch, &old);
	sc_buf_add(&old, "\0\0\0\0", 4, NULL); /* legacy end-of-stream */
	is_int(sc_arrow_read_stream(old.data, old.len, tally_fn, &t, &err), 0,
	    "a legacy stream, metadata not padded to 8");
	is_int(t.rows, 5, "  5 rows");

	sc_arrow_join_init(&j, put, &k);
	is_int(sc_arrow_join_add(&j, old.data, old.len, NULL, &err), 0,
	    "legacy stream joined");
	is_int(sc_arrow_join_finish(&j, &err), 0, "finish");
	/* Modern framing; each metadata 8 bytes longer, zero-padded. */
	sc_buf_add(&want, "\xff\xff\xff\xff", 4, NULL);
	sc_buf_addch(&want, schema.data[4] + 8, NULL);
	sc_buf_add(&want, schema.data + 5, schema.len - 5, NULL);
	sc_buf_add(&want, "\0\0\0\0\0\0\0\0", 8, NULL);
	sc_buf_add(&want, "\xff\xff\xff\xff", 4, NULL);
	sc_buf_addch(&want, batch.data[4] + 8, NULL);
	sc_buf_add(&want, batch.data + 5, 3 + batch.data[4], NULL);
	sc_buf_add(&want, "\0\0\0\0\0\0\0\0", 8, NULL);
	sc_buf_add(&want, batch.data + 8 + batch.data[4],
	    batch.len - 8 - batch.data[4], NULL);
	sc_arrow_write_eos(&want, NULL);
	ok(schema.data[4] < 240 && batch.data[4] < 240 && schema.data[5] == 0 &&
		batch.data[5] == 0,
	    "(metadata lengths fit in one byte)");
	is_mem(k.out.data, k.out.len, want.data, want.len,
	    "re-framed: continuation markers, metadata padded to 8");
	t.rows = 0;
	t.sum = 0;
	is_int(sc_arrow_read_stream(k.out.data, k.out.len, tally_fn, &t, &err),
	    0, "  and it reads back");
	is_int(t.rows, 5, "  5 rows");
	is_int(t.sum, 15, "  the ids");
	sc_arrow_join_release(&j);
	sc_arrow_writer_free(w);
	sc_buf_release(&schema);
	sc_buf_release(&batch);
	sc_buf_release(&old);
	sc_buf_release(&want);
	sc_buf_release(&k.out);
}

static void
test_errors(void)
{
	struct sc_arrow_writer *w = writer("name"), *w2 = writer("other");
	struct sc_buf a, b;
	struct sc_arrow_join j;
	struct sc_error err;
	struct sink k;
	size_t len;

	sink_init(&k);
	sc_buf_init(&a, SC_BUF_UNLIMITED);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	rows(w, 0, 4);
	sc_arrow_writer_flush(w, &a, NULL);
	rows(w2, 0, 4);
	sc_arrow_writer_flush(w2, &b, NULL);

	sc_arrow_join_init(&j, put, &k);
	is_int(sc_arrow_join_add(&j, a.data, a.len, NULL, &err), 0,
	    "first stream");
	len = k.out.len;
	sc_error_init(&err);
	is_int(sc_arrow_join_add(&j, b.data, b.len, NULL, &err), -1,
	    "a stream with another schema fails");
	is_int(err.status, SC_ST_PROTOCOL, "  protocol error");
	is_str(err.msg, "the result schema changed between Arrow batches",
	    "  message");
	is_int(k.out.len, len, "  nothing of it written");

	sc_error_init(&err);
	is_int(sc_arrow_join_add(&j, a.data, a.len - 9, NULL, &err), -1,
	    "a truncated stream fails");
	is_str(err.msg, "truncated Arrow stream", "  message");
	is_int(k.out.len, len, "  nothing of it written");

	/* A write error stops the stream and is passed on. */
	k.fail_after = k.writes + 1;
	sc_error_init(&err);
	is_int(sc_arrow_join_add(&j, a.data, a.len, NULL, &err), -1,
	    "a write error fails the add");
	is_int(err.status, SC_ST_IO, "  with the writer's error");
	sc_arrow_join_release(&j);

	/* No stream at all: finish writes nothing. */
	sc_buf_release(&k.out);
	sink_init(&k);
	sc_arrow_join_init(&j, put, &k);
	is_int(sc_arrow_join_finish(&j, &err), 0, "finish with no stream");
	is_int(k.out.len, 0, "  writes nothing");
	sc_arrow_join_release(&j);

	sc_arrow_writer_free(w);
	sc_arrow_writer_free(w2);
	sc_buf_release(&a);
	sc_buf_release(&b);
	sc_buf_release(&k.out);
}

static void
test_empty(void)
{
	struct sc_arrow_writer *w = writer("name");
	struct sc_arrow_schema none;
	struct sc_buf a, b, want;
	struct sc_arrow_join j;
	struct sc_error err;
	struct sink k;
	uint64_t n;

	sc_buf_init(&a, SC_BUF_UNLIMITED);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_buf_init(&want, SC_BUF_UNLIMITED);

	/* A first response with a schema and no batch, then one with rows. */
	sc_arrow_write_schema(sc_arrow_writer_schema(w), &a, NULL);
	sc_arrow_write_eos(&a, NULL);
	rows(w, 7, 2);
	sc_arrow_writer_flush(w, &b, NULL);
	sc_arrow_write_schema(sc_arrow_writer_schema(w), &want, NULL);
	rows(w, 7, 2);
	sc_arrow_writer_flush_batch(w, &want, NULL);
	sc_arrow_write_eos(&want, NULL);
	sink_init(&k);
	sc_arrow_join_init(&j, put, &k);
	n = 99;
	is_int(sc_arrow_join_add(&j, a.data, a.len, &n, &err), 0,
	    "a stream without batches");
	is_int(n, 0, "  0 rows");
	is_int(sc_arrow_join_add(&j, b.data, b.len, &n, &err), 0,
	    "then one with rows");
	sc_arrow_join_finish(&j, &err);
	is_mem(k.out.data, k.out.len, want.data, want.len,
	    "  one schema, one batch, one EOS");
	sc_arrow_join_release(&j);
	sc_buf_release(&k.out);

	/* A result without columns writes nothing at all. */
	sc_arrow_schema_init(&none);
	sc_buf_reset(&a);
	sc_arrow_write_schema(&none, &a, NULL);
	sc_arrow_write_eos(&a, NULL);
	sink_init(&k);
	sc_arrow_join_init(&j, put, &k);
	is_int(sc_arrow_join_add(&j, a.data, a.len, NULL, &err), 0,
	    "a stream without columns");
	is_int(sc_arrow_join_finish(&j, &err), 0, "  finish");
	is_int(k.out.len, 0, "  nothing written");
	sc_arrow_join_release(&j);
	sc_buf_release(&k.out);

	sc_arrow_writer_free(w);
	sc_buf_release(&a);
	sc_buf_release(&b);
	sc_buf_release(&want);
}

int
main(void)
{
	test_join();
	test_legacy();
	test_errors();
	test_empty();
	return tap_done();
}
