/* SPDX-License-Identifier: MIT */

/*
 * targets.c: the table of fuzz targets, for the corpus replay of
 * test/unit/test-fuzz-corpus.c.
 */

#include "fuzz.h"

#include <stddef.h>

#include "core/banned.h"

const struct sc_fuzz_target sc_fuzz_targets[] = {
	{ "arrow", sc_fuzz_arrow },
	{ "parquet", sc_fuzz_parquet },
	{ "path", sc_fuzz_path },
	{ "proto", sc_fuzz_proto },
	{ "sqlfunc", sc_fuzz_sqlfunc },
	{ "status", sc_fuzz_status },
	{ "uri", sc_fuzz_uri },
	{ NULL, NULL },
};
