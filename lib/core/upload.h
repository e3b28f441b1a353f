/* SPDX-License-Identifier: MIT */

/*
 * upload.h: uploading artifacts to a Spark Connect session, the way
 * Spark's Scala and Python clients do (AddArtifacts), and choosing their
 * names.
 *
 * Names.  An artifact's name says what the server does with it, by its
 * first component: jars/ (class path), pyfiles/ (Python path), files/
 * (plain files), archives/ (unpacked; "NAME#fragment" names the
 * directory), classes/ (REPL class files) and cache/<sha256 hex>
 * (cached blobs).  sc_upload_name() picks one from a path or URL and an
 * optional kind and name, as PySpark's addArtifacts() would.
 *
 * Transfer.  sc_upload_send() sends a list of artifacts on one
 * client-streaming AddArtifacts call, planned as Spark's clients plan
 * it (sc_upload_plan_next()): an artifact of at most
 * SC_UPLOAD_CHUNK_SIZE bytes goes into a batch of at most that many
 * bytes, flushed first when the artifact would not fit; a larger one
 * flushes the pending batch and goes alone as a BeginChunkedArtifact
 * (num_chunks counts its initial chunk) followed by ArtifactChunk
 * messages, each with the CRC-32 of its own bytes (core/crc.h).  Data
 * is read from each artifact's source as it is sent, so memory does not
 * grow with artifact size: one batch, one chunk, one packed message.
 * Unlike Spark's clients, it acts on the answer: an artifact the server
 * reports with is_crc_successful=false is sent again, alone with the
 * others that failed, on a new call, up to a bounded number of times;
 * and a call that fails with a retryable error (core/retry.h) is made
 * again from the start, as uploads are idempotent.
 *
 * The client (core/client.h) supplies the request envelope, the
 * response checks and the retry events; the stream is a transport of
 * four functions (core/rpc.h's sc_rpc_upload_* by default), so the unit
 * tests can drive the whole thing against a fake.
 */

#ifndef SC_UPLOAD_H
#define SC_UPLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct sc_buf;
struct sc_client;
struct sc_client_opts;
struct sc_conn_opts;
struct sc_error;
struct sc_retry_policy;

/* Spark's CHUNK_SIZE: the batch limit and the default chunk size. */
#define SC_UPLOAD_CHUNK_SIZE 32768
/* Re-sends of an artifact whose CRC the server found wrong, by default. */
#define SC_UPLOAD_CRC_RETRIES 3
/* Smallest chunk size accepted. */
#define SC_UPLOAD_MIN_CHUNK 1024
/* Room kept in a message for everything but a chunk's data. */
#define SC_UPLOAD_MSG_ROOM 65536
/* "cache/" + 64 hex digits + NUL. */
#define SC_UPLOAD_CACHE_NAME_LEN 71

/* ---------------------------------------------------------------- names */

enum sc_upload_kind {
	SC_UPLOAD_AUTO = 0, /* from the name's prefix or extension */
	SC_UPLOAD_JAR, /* jars/, name ends .jar */
	SC_UPLOAD_PYFILE, /* pyfiles/, .py .zip .egg .jar */
	SC_UPLOAD_FILE, /* files/, anything */
	SC_UPLOAD_ARCHIVE, /* archives/, .zip .jar .tar.gz .tgz .tar */
	SC_UPLOAD_CLASS, /* classes/, .class */
	SC_UPLOAD_CACHE /* cache/<sha256 hex>: sc_upload_cache_name() */
};

/*
 * Parse "jar", "pyfile", "file", "archive" or "class"; 0, or -1 with
 * err set (SC_ST_USAGE: "invalid kind 'x': expected jar, pyfile, file,
 * archive or class").
 */
int sc_upload_kind_parse(const char *s, enum sc_upload_kind *out,
    struct sc_error *err);

/* The name prefix of a kind, "jars/" ...; "" for SC_UPLOAD_AUTO. */
const char *sc_upload_kind_prefix(enum sc_upload_kind kind);

/* What sc_upload_name() chose: free with sc_upload_naming_release(). */
struct sc_upload_naming {
	char *name; /* the artifact name, "jars/x.jar" */
	char *source; /* the source without an archive's #fragment */
	enum sc_upload_kind kind; /* never AUTO */
};

/*
 * Name the artifact read from source (a path, "-" for standard input,
 * or an http://, https:// or file:// URL):
 *
 *  - as (may be NULL) is the name wanted.  One that starts with a
 *    prefix above is used as it is (kind, if given, must agree); any
 *    other gets the kind's prefix.  Without it the name is the last
 *    component of source (of a URL's path, percent-decoded, without
 *    query or fragment); "-" needs one.
 *  - The kind, when AUTO, comes from the name's extension, compared
 *    without regard to case: .jar jar; .py .zip .egg pyfile; .tar.gz
 *    .tgz .tar archive; .class class; anything else file.  A given kind
 *    must suit the extension as Spark's clients require (jar: .jar;
 *    pyfile: .py .zip .egg .jar; archive: .zip .jar .tar.gz .tgz .tar;
 *    class: .class).
 *  - An archive may carry "#fragment" (the directory Spark unpacks it
 *    into): at the end of as, or else at the end of source, which is
 *    then read without it.  Only archives are split so, and only at
 *    one '#': elsewhere a '#' is part of the name.
 *
 * The result must pass sc_upload_name_check().  0, or -1 with err set
 * (SC_ST_USAGE), e.g. "standard input needs a name (--as)", "'x.txt'
 * cannot be a jar: its name must end in .jar".
 */
int sc_upload_name(enum sc_upload_kind kind, const char *source, const char *as,
    struct sc_upload_naming *out, struct sc_error *err);
void sc_upload_naming_release(struct sc_upload_naming *n);

/*
 * Whether name is safe to send: relative, with a component after the
 * prefix, no empty, "." or ".." component, no backslash and no control
 * character.  (A server decides the rest, such as length limits.)  0,
 * or -1 with err set (SC_ST_USAGE: "invalid artifact name 'x': ...").
 */
int sc_upload_name_check(const char *name, struct sc_error *err);

/* "cache/" and the lowercase hex of a SHA-256 digest. */
void sc_upload_cache_name(const uint8_t digest[32],
    char out[SC_UPLOAD_CACHE_NAME_LEN]);

/* ------------------------------------------------------------- planning */

/* Where the batch stands; zero it (or sc_upload_planner_init()) first. */
struct sc_upload_planner {
	uint64_t batch_bytes; /* data bytes in the pending batch */
	size_t batch_len; /* artifacts in the pending batch */
};

enum sc_upload_step {
	SC_UPLOAD_STEP_BATCH = 0, /* append the artifact to the batch */
	SC_UPLOAD_STEP_CHUNKED /* send it alone, chunked */
};

void sc_upload_planner_init(struct sc_upload_planner *p);

/*
 * The next artifact has size bytes: what to do with it.  *flush is set
 * to whether the pending batch must be sent first (it is then counted
 * as sent).  An artifact larger than SC_UPLOAD_CHUNK_SIZE is CHUNKED
 * (flushing a non-empty batch); any other is appended to the batch,
 * flushing it first when the two together would exceed
 * SC_UPLOAD_CHUNK_SIZE.  Exactly Spark's algorithm, whatever the chunk
 * size.
 */
enum sc_upload_step sc_upload_plan_next(struct sc_upload_planner *p,
    uint64_t size, bool *flush);

/* At the end: whether a batch is pending (to be sent); resets p. */
bool sc_upload_plan_end(struct sc_upload_planner *p);

/* The chunks of a chunked artifact: ceil(size / chunk_size), at least 1. */
uint64_t sc_upload_num_chunks(uint64_t size, uint64_t chunk_size);

/* One request of a plan, for sc_upload_plan(). */
struct sc_upload_msg {
	bool chunked; /* begin_chunk (index 0) or chunk */
	size_t first; /* batch: first artifact; chunked: the artifact */
	size_t count; /* batch: artifacts in it; chunked: 1 */
	uint64_t index; /* chunked: the chunk, from 0 */
};

/*
 * The whole plan for artifacts of sizes[0..n): the requests in order,
 * written to out (room for max entries).  Returns the number of
 * requests, which may exceed max (then only max were written).
 */
size_t sc_upload_plan(const uint64_t *sizes, size_t n, uint64_t chunk_size,
    struct sc_upload_msg *out, size_t max);

/* ---------------------------------------------------------------- sources */

/*
 * Where an artifact's bytes come from.  open() starts at the first byte
 * (again, for a re-send) and tells the size; read() returns up to n
 * bytes (the count, 0 at the end, -1 with err set); close() ends the
 * pass.  sc_upload_send() reads exactly the size, then once more to
 * check the end is there (a source that grew or shrank is an error,
 * SC_ST_IO), and calls close() after every successful open().
 */
struct sc_upload_source {
	int (*open)(void *arg, uint64_t *size, struct sc_error *err);
	ssize_t (*read)(void *arg, void *buf, size_t n, struct sc_error *err);
	void (*close)(void *arg);
};

enum sc_upload_result {
	SC_UPLOAD_PENDING = 0, /* not (yet) confirmed by the server */
	SC_UPLOAD_STORED, /* the server stored it, CRC good */
	SC_UPLOAD_CRC_MISMATCH /* the CRC failed on every send */
};

/* The result's word for output: "pending", "uploaded", "crc-mismatch". */
const char *sc_upload_result_str(enum sc_upload_result r);

struct sc_upload_item {
	const char *name; /* artifact name (borrowed) */
	const char *label; /* for messages: the source; NULL: name */
	const struct sc_upload_source *src;
	void *arg; /* src's argument */
	/* Filled by sc_upload_send(): */
	enum sc_upload_result result;
	uint64_t bytes; /* size at the last send */
	uint64_t chunks; /* data messages: 1 in a batch, else num_chunks */
	uint32_t crc; /* CRC-32 of all its bytes */
	int sends; /* calls it was sent on */
};

/* ------------------------------------------------------------- transport */

/*
 * A client-streaming call, with core/rpc.h's sc_rpc_upload_* meaning:
 * open a call to method, write messages, half-close and read the one
 * reply (appended to resp), free (cancelling a call still running).
 */
struct sc_upload_transport {
	void *(*open)(void *ctx, const char *method,
	    const struct timespec *deadline, struct sc_error *err);
	int (*write)(void *call, const void *msg, size_t len,
	    struct sc_error *err);
	int (*finish)(void *call, struct sc_buf *resp, struct sc_error *err);
	void (*free)(void *call);
};

struct sc_upload;

/*
 * Connect (lazily) as sc_client_connect() does, with options o (may be
 * NULL), and upload on the same channel.  NULL with err set, as
 * sc_client_connect().  Free with sc_upload_free().
 */
struct sc_upload *sc_upload_connect(const struct sc_conn_opts *co,
    const struct sc_client_opts *o, struct sc_error *err);

/*
 * Upload with client c (borrowed, must outlive the result) over
 * transport t with context ctx (borrowed).  Free with sc_upload_free().
 */
struct sc_upload *sc_upload_new(struct sc_client *c,
    const struct sc_upload_transport *t, void *ctx);

/* The client (owned by u when sc_upload_connect() made it). */
struct sc_client *sc_upload_client(struct sc_upload *u);

/*
 * The largest message the address allows (its grpc_max_message_size;
 * 128 MiB by default), which bounds the chunk size.
 */
long sc_upload_max_message(const struct sc_upload *u);

/* Free u and what it owns.  NULL is a no-op. */
void sc_upload_free(struct sc_upload *u);

/* --------------------------------------------------------------- sending */

/*
 * Progress: bytes of artifact data handed to the transport so far, over
 * every call of this sc_upload_send() (a re-sent artifact counts
 * again), and the artifact being sent.  Called after each message.
 */
typedef void sc_upload_progress_fn(void *arg, uint64_t sent,
    const struct sc_upload_item *it);

struct sc_upload_opts {
	uint64_t chunk_size; /* 0: SC_UPLOAD_CHUNK_SIZE */
	int crc_retries; /* re-sends after a CRC failure; < 0: default */
	const struct sc_retry_policy *policy; /* NULL: Spark's default */
	const struct timespec *deadline; /* every call; NULL: none */
	sc_upload_progress_fn *progress; /* NULL: none */
	void *progress_arg;
};

/*
 * Upload items[0..n) in one AddArtifacts call, then re-send those the
 * server reports with a failed CRC (a call each round, at most
 * crc_retries rounds).  A call failing with a retryable error is made
 * again with the policy's backoff (a SC_CLIENT_EV_RETRY event each
 * time, through the client), never past the deadline.  Every answer is
 * checked: it must be for this session and name the artifacts sent, in
 * order (else SC_ST_PROTOCOL).
 *
 * Returns 0 when every item is STORED.  -1 with err set otherwise:
 * SC_ST_INTEGRITY "CRC mismatch on every send of 'a', 'b' (4 sends
 * each)" when CRC failures persisted (those items CRC_MISMATCH, the
 * others STORED); else the error of the call that failed, whose items
 * stay PENDING (the server stores nothing of a failed call, except
 * what it says it does, such as Spark's ARTIFACT_ALREADY_EXISTS after
 * the others), items of earlier rounds keeping their results.  The
 * messages of a failed call already carry their Spark error class.
 */
int sc_upload_send(struct sc_upload *u, struct sc_upload_item *items, size_t n,
    const struct sc_upload_opts *o, struct sc_error *err);

#endif
