/* SPDX-License-Identifier: MIT */

/*
 * artifact.h: sc-serve's artifact store (AddArtifacts, ArtifactStatus).
 *
 * The store is one directory (mode 0700).  Each session's artifacts live
 * in a subdirectory named by its server-side session id, at their
 * relative names ("files/data.csv"), as files of mode 0600.  An
 * AddArtifacts call (struct sc_artifact_upload) stages every artifact in
 * a temporary file ".upload-*" of that directory while the stream runs;
 * at half-close each complete artifact with a good CRC is renamed into
 * place, atomically, one by one in arrival order.  Every file and
 * directory is opened beneath a directory handle with O_NOFOLLOW, so a
 * symbolic link planted in the store is never followed.  Memory does not
 * depend on artifact sizes: data goes to disk as it arrives.
 *
 * Errors are Spark-style (sc_srv_error()): INVALID_ARTIFACT_PATH,
 * ARTIFACT_ALREADY_EXISTS (SQLSTATE 42713) as Spark has them, and
 * sctk's own INVALID_ARTIFACT_STREAM.* (protocol errors),
 * ARTIFACT_LIMIT_EXCEEDED.* (SQLSTATE 54000) and ARTIFACT_STORE_FULL
 * (SQLSTATE 53100: the disk is full, or the artifacts of all sessions
 * would pass limits.store_bytes), the last two with rpc_code
 * RESOURCE_EXHAUSTED.
 *
 * Thread safety: every function may be called from any thread; one
 * upload is used by one thread at a time.
 */

#ifndef SC_SERVER_ARTIFACT_H
#define SC_SERVER_ARTIFACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_error;
struct sc_session;
struct sc_artifact_store;
struct sc_artifact_upload;

/* Longest name in bytes, most components, longest component. */
#define SC_ARTIFACT_NAME_MAX 1024
#define SC_ARTIFACT_DEPTH_MAX 32
#define SC_ARTIFACT_COMPONENT_MAX 255

/* Limits; a negative value means none. */
struct sc_artifact_limits {
	int64_t max_size; /* one artifact (sctk.artifact.maxSize) */
	int64_t session_bytes; /* a session (sctk.artifact.maxSessionBytes) */
	int64_t session_files; /* a session (sctk.artifact.maxSessionFiles) */
	int64_t store_bytes; /* all sessions (sctk.artifact.maxStoreBytes) */
};

/*
 * Open the store.  dir NULL: create a private directory
 * "sc-serve-artifacts-XXXXXX" under $TMPDIR (or /tmp), removed with
 * everything in it by sc_artifact_store_free().  dir given: use it,
 * creating it (0700) if missing; it must be a directory of this user
 * that no other user can read, write or search, and it is kept at exit.
 * Session directories (named by a UUID) left in it by an earlier server
 * that did not stop cleanly are removed.  A lock file ".lock" in the
 * directory keeps a second server from using it at the same time.
 * limits is copied.  NULL with err set (SC_ST_IO) on failure.
 */
struct sc_artifact_store *sc_artifact_store_new(const char *dir,
    const struct sc_artifact_limits *limits, struct sc_error *err);
/*
 * Remove every session directory still there and, for a private store,
 * the store itself; free st.  Uploads must be freed first.  NULL is a
 * no-op.
 */
void sc_artifact_store_free(struct sc_artifact_store *st);
/* The store's directory (absolute for a private store); borrowed. */
const char *sc_artifact_store_dir(const struct sc_artifact_store *st);

/*
 * Check an artifact name of len bytes (which may hold NUL bytes): not
 * empty, at most SC_ARTIFACT_NAME_MAX bytes, UTF-8 without control
 * characters, NUL bytes or backslashes, relative, no empty, "." or ".."
 * component, at most SC_ARTIFACT_DEPTH_MAX components of at most
 * SC_ARTIFACT_COMPONENT_MAX bytes, and one of Spark's prefixes (jars/,
 * pyfiles/, files/, archives/, classes/, cache/) followed by something.
 * An "archives/" name may end with one "#fragment", which is not part of
 * the stored file's name.  0, or -1 with err INVALID_ARTIFACT_PATH.
 */
int sc_artifact_check_name(const char *name, size_t len, struct sc_error *err);

/*
 * Check every artifact name of a serialized AddArtifactsRequest (msg,
 * len) as sc_artifact_check_name() does, on the bytes of the wire (the
 * decoded strings end at a NUL byte).  A message that is not well-formed
 * protobuf is left to the decoder: 0.  0, or -1 with err set.
 */
int sc_artifact_check_request(const void *msg, size_t len,
    struct sc_error *err);

/*
 * Start an AddArtifacts call for session s (borrowed; its server-side id
 * names the directory).  NULL with err INVALID_HANDLE.SESSION_CLOSED if
 * s is closed, or an I/O error.  Free with sc_artifact_upload_free().
 */
struct sc_artifact_upload *sc_artifact_upload_new(struct sc_artifact_store *st,
    struct sc_session *s, struct sc_error *err);

/*
 * The payloads of the stream, in arrival order.  single: one artifact of
 * a batch (data may be NULL when len is 0).  begin: the first message
 * of a chunked artifact of total_bytes bytes in num_chunks chunks, with
 * its first chunk.  chunk: the next chunk of the open chunked artifact.
 * crc is the client's CRC-32 of this chunk's data; a mismatch marks the
 * artifact as failed (it is reported, not stored), it is no error.
 * Each returns 0, or -1 with err set; after an error the upload accepts
 * nothing more and sc_artifact_upload_free() must follow.
 */
int sc_artifact_upload_single(struct sc_artifact_upload *up, const char *name,
    const void *data, size_t len, int64_t crc, struct sc_error *err);
int sc_artifact_upload_begin(struct sc_artifact_upload *up, const char *name,
    int64_t total_bytes, int64_t num_chunks, const void *data, size_t len,
    int64_t crc, struct sc_error *err);
int sc_artifact_upload_chunk(struct sc_artifact_upload *up, const void *data,
    size_t len, int64_t crc, struct sc_error *err);

/* One line of the AddArtifacts response. */
struct sc_artifact_summary {
	const char *name; /* as the client sent it */
	bool crc_ok;
};

/*
 * Half-close: commit every artifact with a good CRC, in order (atomic
 * rename; classes/ and cache/ names replace a stored artifact, any other
 * name is accepted again only with the same bytes), and drop the others.
 * On success *v (owned by up, valid until sc_artifact_upload_free()) and
 * *n list every artifact of the call in arrival order.  -1 with err set:
 * INVALID_ARTIFACT_STREAM.UNFINISHED (a chunked artifact is open: nothing
 * is committed), ARTIFACT_ALREADY_EXISTS (after committing the others, as
 * Spark does), INVALID_HANDLE.SESSION_CLOSED, or an I/O error (earlier
 * artifacts of the call stay committed).
 */
int sc_artifact_upload_commit(struct sc_artifact_upload *up,
    const struct sc_artifact_summary **v, size_t *n, struct sc_error *err);

/*
 * End the call: remove every staged file not committed and release the
 * upload's share of the session's quota.  NULL is a no-op.
 */
void sc_artifact_upload_free(struct sc_artifact_upload *up);

/*
 * The session with this server-side id was released or expired: remove
 * its directory and everything in it.  Uploads still running for it fail
 * with INVALID_HANDLE.SESSION_CLOSED at their next message.
 */
void sc_artifact_session_closed(struct sc_artifact_store *st,
    const char *server_side_id);

/*
 * ArtifactStatus as Spark answers it: true only for a "cache/..." name
 * stored in this session; any other name is false.
 */
bool sc_artifact_cached(struct sc_artifact_store *st,
    const char *server_side_id, const char *name);

/*
 * Whether the session with this server-side id has artifacts stored, or
 * an upload running.
 */
bool sc_artifact_session_used(struct sc_artifact_store *st,
    const char *server_side_id);

/*
 * The artifacts committed in all sessions: how many, and their bytes
 * (both 0 for a NULL store).
 */
void sc_artifact_store_totals(struct sc_artifact_store *st, int64_t *files,
    int64_t *bytes);

/* A stored artifact, for listings. */
struct sc_artifact_info {
	char *name; /* relative name, without an archive's #fragment */
	int64_t size; /* bytes */
	int64_t stored_ms; /* when committed, realtime milliseconds */
};

/*
 * The artifacts stored for a session, sorted by name: *v (free with
 * sc_artifact_list_free()) and *n, both 0/NULL when there are none.
 */
void sc_artifact_list(struct sc_artifact_store *st, const char *server_side_id,
    struct sc_artifact_info **v, size_t *n);
void sc_artifact_list_free(struct sc_artifact_info *v, size_t n);

/*
 * For the engine: resolve a "files/..." or "cache/..." artifact of
 * session s.  fdp (if not NULL) receives a new read-only descriptor of
 * the file (O_CLOEXEC; the caller closes it; it stays readable even if
 * the session is released meanwhile), opened beneath the session's
 * directory without following symbolic links.  path (if not NULL)
 * receives its absolute path, for code that can only open names.  0, or
 * -1 with err set: INVALID_ARTIFACT_PATH (a bad name, or neither a
 * files/ nor a cache/ name), PATH_NOT_FOUND (SQLSTATE 42K03: no such
 * artifact in this session), or an I/O error.
 */
int sc_artifact_path(struct sc_artifact_store *st, struct sc_session *s,
    const char *name, int *fdp, char *path, size_t pathsz,
    struct sc_error *err);

#endif
