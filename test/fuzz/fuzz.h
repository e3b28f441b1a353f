/* SPDX-License-Identifier: MIT */

/*
 * fuzz.h: the fuzz targets' entry points.  Each test/fuzz/fuzz-<name>.c
 * defines sc_fuzz_<name>(), which takes one input of any bytes and must
 * neither crash, leak, hang nor trip a sanitizer; it returns 0.  Built
 * with -DSC_FUZZ_MAIN (make fuzz) a file also defines libFuzzer's
 * LLVMFuzzerTestOneInput() calling it; built without (make check), the
 * entry points are linked into test/unit/test-fuzz-corpus.c, which
 * replays every committed corpus and reproducer file through them.
 */

#ifndef SC_FUZZ_H
#define SC_FUZZ_H

#include <stddef.h>
#include <stdint.h>

typedef int sc_fuzz_fn(const uint8_t *data, size_t n);

int sc_fuzz_uri(const uint8_t *data, size_t n);
int sc_fuzz_arrow(const uint8_t *data, size_t n);
int sc_fuzz_status(const uint8_t *data, size_t n);
int sc_fuzz_proto(const uint8_t *data, size_t n);
int sc_fuzz_path(const uint8_t *data, size_t n);
int sc_fuzz_sqlfunc(const uint8_t *data, size_t n);
int sc_fuzz_parquet(const uint8_t *data, size_t n);

/* Name ("uri": test/fuzz/corpus/uri/) and entry point of every target. */
struct sc_fuzz_target {
	const char *name;
	sc_fuzz_fn *fn;
};
extern const struct sc_fuzz_target sc_fuzz_targets[];

/*
 * Define libFuzzer's entry point for fn, in a -DSC_FUZZ_MAIN build only;
 * the unit test links every target into one program.
 */
#ifdef SC_FUZZ_MAIN
#define SC_FUZZ_MAIN_FOR(fn)                                       \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n); \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)  \
	{                                                          \
		return fn(data, n);                                \
	}
#else
#define SC_FUZZ_MAIN_FOR(fn)
#endif

#endif
