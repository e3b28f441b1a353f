/* SPDX-License-Identifier: MIT */

/*
 * auth.h: who a caller is.  The token file (sc-serve --token-file) binds
 * each token to one user id; a request presenting such a token may only
 * name that user.  Also the check every client-given id passes (user
 * ids, tags): valid UTF-8 without control characters, so that what
 * the admin service's proto3 string fields carry decodes everywhere.
 *
 * The token file: one "token user_id" per line, separated by blanks;
 * blank lines and lines whose first non-blank character is '#' are
 * skipped.  A token has no blanks and at most SC_AUTH_TOKEN_MAX bytes; a
 * user id passes sc_auth_id_valid() and has fewer than SC_AUTH_USER_MAX
 * bytes.  A token may appear once, and never equal the --token or the
 * --admin-token.  The file must be a regular file that neither group nor
 * others may read or write (mode 0600 or 0400), as ssh asks of a key.
 *
 * Threads: sc_auth_lookup() may run on any thread while sc_auth_reload()
 * swaps the table on another; a lookup sees the old table or the new.
 */

#ifndef SC_AUTH_H
#define SC_AUTH_H

#include <stdbool.h>
#include <stddef.h>

struct sc_error;
struct sc_server_conf;
struct sc_auth;

/* Longest token, as the --token setting allows. */
#define SC_AUTH_TOKEN_MAX 255
/* A user id's buffer size (struct sc_session's user_id). */
#define SC_AUTH_USER_MAX 256
/* Largest token file read. */
#define SC_AUTH_FILE_MAX (1024 * 1024)

/*
 * Read the token file path; conf gives the tokens no line may repeat
 * (borrowed for the call).  NULL with err set: SC_ST_IO when the file
 * cannot be opened or read, SC_ST_USAGE when it is too open, not a
 * regular file, too large or has a bad line ("'f' line 3: ...").
 * Free with sc_auth_free().
 */
struct sc_auth *sc_auth_new(const char *path, const struct sc_server_conf *conf,
    struct sc_error *err);
/*
 * Read the file again (SIGHUP).  On success the new table replaces the
 * old and *ntokens is its size; on failure (errors as sc_auth_new())
 * the old table stays.  0, or -1.
 */
int sc_auth_reload(struct sc_auth *a, const struct sc_server_conf *conf,
    size_t *ntokens, struct sc_error *err);
/* The number of tokens in the table now. */
size_t sc_auth_count(struct sc_auth *a);
/* The file's path, as given. */
const char *sc_auth_path(const struct sc_auth *a);
/* Wipes every token before freeing it.  NULL does nothing. */
void sc_auth_free(struct sc_auth *a);
/*
 * Whether two secrets are equal, in time that does not depend on where
 * they differ.
 */
bool sc_auth_same_secret(const char *a, const char *b);

/*
 * The user token is bound to, copied into user (SC_AUTH_USER_MAX
 * bytes): true, or false when a is NULL or token is not in the table.
 * The table holds the tokens' SHA-256 only, sorted: a lookup costs a
 * hash and a binary search, and its timing depends on the presented
 * token's digest, never on where it differs from a stored token.
 */
bool sc_auth_lookup(struct sc_auth *a, const char *token,
    char user[SC_AUTH_USER_MAX]);

/*
 * Whether s (NUL-terminated) is valid UTF-8 (no overlong forms, no
 * surrogates, nothing above U+10FFFF) without control characters (C0,
 * DEL, C1).
 */
bool sc_auth_id_valid(const char *s);
/*
 * s as printable text for a message: what sc_auth_id_valid() accepts
 * is copied, any other byte becomes \xNN; cut to fit outsz (with "...").
 */
void sc_auth_id_escape(const char *s, char *out, size_t outsz);

#endif
