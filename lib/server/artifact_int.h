/* SPDX-License-Identifier: MIT */

/*
 * artifact_int.h: what artifact.c and artifact_name.c share.  Not for use
 * outside the artifact module.
 */

#ifndef SCTK_SERVER_ARTIFACT_INT_H
#define SCTK_SERVER_ARTIFACT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_error;

/* Bytes compared at a time when checking a duplicate. */
#define CMP_BLOCK (64 * 1024)
/* Bytes of a name shown in an error message. */
#define SHOW_MAX 256

/* Spark's name prefixes, and how each kind is stored. */
struct sc_artifact_prefix {
	const char *text;
	bool replace; /* a new upload replaces the stored artifact */
	bool archive; /* may end with "#fragment" */
	bool files; /* readable by the engine */
};
/* What check_name learns about a good name. */
struct parsed {
	const struct sc_artifact_prefix *pre;
	size_t store_len; /* the stored name is name[0..store_len) */
};

/* Check name[0..len); fill p.  -1 with INVALID_ARTIFACT_PATH. */
int sc_artifact_parse_name(const char *name, size_t len, struct parsed *p,
    struct sc_error *err);

/* name, made printable and cut to about SHOW_MAX bytes, into out. */
void sc_artifact_show_name(const char *name, size_t len, char *out,
    size_t outsz);

/* INVALID_ARTIFACT_PATH for name[0..len), the reason from fmt. */
int sc_artifact_bad_name(struct sc_error *err, const char *name, size_t len,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Remove name beneath at and everything in it, never following links. */
int sc_artifact_rm_tree(int at, const char *name, int depth);

/* Whether errno e means the file system is full. */
bool sc_artifact_is_full(int e);

/* An I/O error on name: ARTIFACT_STORE_FULL or a plain one. */
int sc_artifact_io_error(struct sc_error *err, const char *name,
    const char *what, int e);

/* The directory holding copy's last component, opened beneath at. */
int sc_artifact_open_parent(int at, char *copy, const char **base, bool create,
    const char *name, struct sc_error *err);

/* Whether two files beneath two directories hold the same bytes. */
int sc_artifact_same_content(int at_a, const char *a, int at_b, const char *b,
    const char *name, bool *same, struct sc_error *err);

#endif
