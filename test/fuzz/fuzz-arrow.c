/* SPDX-License-Identifier: MIT */

/*
 * fuzz-arrow: the Arrow IPC reader (core/arrow): validation and decoding
 * of a stream, every value formatted as text and as JSON, the typed
 * getters, the schema reader and the joiner that re-frames streams.
 */

#include "fuzz.h"

#include <stdlib.h>

#include "core/arrow.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/banned.h"

/* Visit every value of a decoded batch. */
static int
each_value(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	struct sc_buf *out = arg;
	const uint8_t *p;
	uint64_t lo;
	int64_t i64, hi;
	double d;
	size_t col, row, len;
	int kind;

	for (row = 0; row < b->nrows; row++)
		for (col = 0; col < b->schema->nfields; col++) {
			sc_buf_reset(out);
			if (sc_arrow_format_value(b, col, row,
				SC_ARROW_FMT_TEXT, out, &kind, err) == -1 ||
			    sc_arrow_format_value(b, col, row,
				SC_ARROW_FMT_JSON, out, NULL, err) == -1)
				return -1;
			(void)sc_arrow_is_null(b, col, row);
			(void)sc_arrow_get_int64(b, col, row, &i64);
			(void)sc_arrow_get_double(b, col, row, &d);
			(void)sc_arrow_get_bytes(b, col, row, &p, &len);
			(void)sc_arrow_get_decimal128(b, col, row, &hi, &lo);
		}
	return 0;
}

static int
discard(void *arg, const void *p, size_t n, struct sc_error *err)
{
	(void)err;
	(void)p;
	*(size_t *)arg += n;
	return 0;
}

int
sc_fuzz_arrow(const uint8_t *data, size_t n)
{
	struct sc_arrow_schema s;
	struct sc_arrow_join j;
	struct sc_error err;
	struct sc_buf out;
	uint64_t rows;
	size_t written = 0;
	int valid;

	sc_buf_init(&out, 1 << 20);
	sc_error_init(&err);
	valid = sc_arrow_read_stream(data, n, each_value, &out, &err) == 0;
	if (!valid && err.msg[0] == '\0')
		abort(); /* every failure says why */
	sc_buf_release(&out);

	if (sc_arrow_read_schema(data, n, &s, NULL) == 0)
		sc_arrow_schema_release(&s);

	/* A valid stream joins with itself; an invalid one writes nothing. */
	sc_arrow_join_init(&j, discard, &written);
	if (sc_arrow_join_add(&j, data, n, &rows, NULL) == 0) {
		if (!valid || sc_arrow_join_add(&j, data, n, &rows, NULL) == -1)
			abort();
		(void)sc_arrow_join_finish(&j, NULL);
	} else if (written != 0)
		abort();
	sc_arrow_join_release(&j);
	return 0;
}

SC_FUZZ_MAIN_FOR(sc_fuzz_arrow)
