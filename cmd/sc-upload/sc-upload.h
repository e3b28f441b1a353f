/* SPDX-License-Identifier: MIT */

/*
 * sc-upload.h: what sc-upload's files share: the sources artifacts are
 * read from (source.c) and the progress line (progress.c).
 */

#ifndef SC_UPLOAD_CMD_H
#define SC_UPLOAD_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "core/upload.h"

struct sc_error;

/* ------------------------------------------------------------- source.c */

/*
 * One operand: a local path (a regular file is read in place, anything
 * else, such as a pipe, is copied to a temporary file first), "-"
 * (standard input, likewise), or an http://, https:// or file:// URL,
 * fetched with libcurl and streamed when the response says its length
 * (Content-Length), else copied to a temporary file first.  Temporary
 * files are made in $TMPDIR (else /tmp) and unlinked at once.
 */
struct source;

/* The sc_upload_source functions every source uses (arg: the source). */
extern const struct sc_upload_source source_ops;

/*
 * A source for operand path (borrowed; for a URL, without its
 * fragment).  spool: copy URLs and pipes to a temporary file on first
 * use (--cache, which reads everything twice).  deadline (borrowed, may
 * be NULL) bounds every fetch.
 */
struct source *source_new(const char *path, bool spool,
    const struct timespec *deadline);
void source_free(struct source *s);

/* Whether path names a URL source. */
bool source_is_url(const char *path);

/*
 * Before anything is sent: a path must name something readable that is
 * not a directory.  URLs and "-" are not checked.  0, or -1 with err
 * (SC_ST_IO).
 */
int source_check(const struct source *s, struct sc_error *err);

/* Its size if known before reading (a regular file), else -1. */
int64_t source_known_size(const struct source *s);

/* Read it all once: SHA-256, CRC-32 and size.  0, or -1 with err. */
int source_hash(struct source *s, uint8_t digest[32], uint32_t *crc,
    uint64_t *size, struct sc_error *err);

/* Once, before any URL source is used; and once at the end. */
int source_global_init(struct sc_error *err);
void source_global_cleanup(void);

/* ----------------------------------------------------------- progress.c */

/*
 * One self-overwriting line on stderr while an upload runs: bytes sent,
 * of how many (when known), rate, the artifact.  Drawn only after the
 * upload has taken PROGRESS_DELAY_MS, so small uploads never show it;
 * erased before anything else is printed.
 */
void progress_enable(bool on, uint64_t total);
void progress_update(uint64_t sent, const char *name);
void progress_clear(void);
/* Around other output on stderr: erase the line, hold it off. */
void progress_lock(void);
void progress_unlock(void);

#endif
