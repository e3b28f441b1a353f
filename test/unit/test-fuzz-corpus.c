/* SPDX-License-Identifier: MIT */

/*
 * test-fuzz-corpus.c: every file of every fuzz target's committed seed
 * corpus (test/fuzz/corpus/<target>/) and reproducers of what fuzzing
 * found (test/fuzz/regress/<target>/) goes through the target's entry
 * point in the normal build, so make check (and its sanitizer and
 * valgrind runs) keeps them fixed.  One TAP line per file; a crash is a
 * failed run.
 */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/file.h"
#include "core/xmem.h"
#include "../fuzz/fuzz.h"
#include "tap.h"
#include "core/banned.h"

/* A fuzz input is small; libFuzzer's -max_len in test/fuzz/run. */
#define INPUT_MAX (1024 * 1024)

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replay every file of dir through fn; the number of files, or -1. */
static int
replay(const struct sc_fuzz_target *t, const char *top, const char *kind)
{
	char dir[4096], path[4096 + 256];
	struct dirent *de;
	struct sc_error err;
	struct sc_buf b;
	char **names = NULL;
	size_t n = 0, i;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/test/fuzz/%s/%s", top, kind, t->name);
	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		names = sc_xreallocarray(names, n + 1, sizeof(*names));
		names[n++] = sc_xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		sc_buf_init(&b, INPUT_MAX);
		sc_error_init(&err);
		if (sc_file_read(path, &b, &err) == -1)
			ok(0, "fuzz-%s %s/%s: %s", t->name, kind, names[i],
			    err.msg);
		else
			is_int(t->fn(b.data, b.len), 0, "fuzz-%s %s/%s",
			    t->name, kind, names[i]);
		sc_buf_release(&b);
		free(names[i]);
	}
	free(names);
	return (int)n;
}

int
main(void)
{
	const struct sc_fuzz_target *t;
	const char *top = getenv("SCTK_TOP");

	if (top == NULL)
		top = ".";
	for (t = sc_fuzz_targets; t->name != NULL; t++) {
		ok(replay(t, top, "corpus") >= 3,
		    "fuzz-%s: a seed corpus of at least 3 files", t->name);
		/* Reproducers exist once fuzzing found something. */
		(void)replay(t, top, "regress");
	}
	/* The empty input, which libFuzzer always tries first. */
	for (t = sc_fuzz_targets; t->name != NULL; t++)
		is_int(t->fn((const uint8_t *)"", 0), 0, "fuzz-%s: empty input",
		    t->name);
	return tap_done();
}
