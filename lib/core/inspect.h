/* SPDX-License-Identifier: MIT */

/*
 * inspect.h: the client side of sctk.admin.v1, sc-serve's own inspection
 * service (proto/sctk/admin/v1/admin.proto), in plain C.  (The prefix is
 * sc_inspect_ because lib/server already uses sc_admin_ for the service
 * itself.)
 *
 *	a = sc_inspect_connect(&conn, &opts, &err);	(core/conn.h options)
 *	sc_inspect_list(a, &filter, 0, &list, deadline, &err);
 *	for (i = 0; i < list.n; i++) ... list.v[i].operation_id ...
 *	sc_inspect_exec_list_release(&list);
 *	sc_inspect_free(a);
 *
 * The service is not Spark's: a Spark Connect server answers
 * UNIMPLEMENTED, which every call here reports as SC_ST_PROTOCOL "the
 * server at 'sc://host:port' has no sctk admin service (not sc-serve?)".
 * Other errors are those of core/rpc.h; UNAVAILABLE is retried with
 * Spark's backoff, as core/client.h's calls are (only 3 times while the
 * server has never answered), never past the deadline.
 *
 * Who asks: every request names a Caller whose user_id is the
 * connection's user id (sc_conn_user_id(): --user-id, the URI's
 * user_id, $USER, $LOGNAME, the login name).  The
 * admin token, when given, goes as request header "x-sctk-admin-token";
 * the server then shows every user's data, else only the caller's.
 *
 * Answers are views: every string and array in a list or event points
 * into the answer's decoded message, kept by the list (or the watch) and
 * freed with it.  Strings are never NULL ("" when the server sent none).
 * Times named *_at_ms are Unix epoch milliseconds, 0 meaning never;
 * durations are milliseconds, -1 meaning "does not apply".
 *
 * The second half of this header (inspect_fields.c) names the fields of
 * each kind of record, as sc-inspect prints them: stable names, and the
 * text of each value for machines (CSV, TSV, JSON lines) or for people
 * (a table, a terminal view).
 *
 * Thread safety: one struct sc_inspect may be used from several threads
 * at once; a watch belongs to one thread, except sc_inspect_watch_cancel().
 */

#ifndef SC_INSPECT_H
#define SC_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/client.h"
#include "core/output.h"

struct sc_buf;

struct sc_buf;
struct sc_conn_opts;
struct sc_error;

/* The request header that carries the admin token. */
#define SC_INSPECT_TOKEN_HEADER "x-sctk-admin-token"

/* The service's name, and the environment variable sc-inspect reads. */
#define SC_INSPECT_SERVICE "sctk.admin.v1.AdminService"
#define SC_INSPECT_TOKEN_ENV "SCTK_ADMIN_TOKEN"

/* ------------------------------------------------------------- states */

/* An execution's state; numerically the protocol's ExecutionState. */
enum sc_inspect_state {
	SC_INSPECT_STATE_UNKNOWN = 0, /* unset, or a value this client lacks */
	SC_INSPECT_STATE_PENDING = 1,
	SC_INSPECT_STATE_RUNNING,
	SC_INSPECT_STATE_FINISHED,
	SC_INSPECT_STATE_FAILED,
	SC_INSPECT_STATE_CANCELED,
	SC_INSPECT_STATE_CLOSED
};
#define SC_INSPECT_NSTATES 7

/* "pending", "running", ... "closed"; "unknown" for anything else. */
const char *sc_inspect_state_name(enum sc_inspect_state s);
/* The state named s (as above, except "unknown"); 0, or -1. */
int sc_inspect_state_parse(const char *s, enum sc_inspect_state *out);

/* ------------------------------------------------------------ records */

/* Which executions: every condition that is set must hold. */
struct sc_inspect_filter {
	const char *session_id; /* NULL or "": any */
	const char *user_id; /* NULL or "": any (that the caller may see) */
	const char *tag; /* NULL or "": any */
	const enum sc_inspect_state *states; /* nstates states, any of them */
	size_t nstates;
	int64_t detached_for_ms; /* detached at least this long; 0: any */
	int64_t older_than_ms; /* created at least this long ago; 0: any */
};

/* One execution (ExecutionInfo), as the server last saw it. */
struct sc_inspect_exec {
	const char *operation_id;
	const char *session_id;
	const char *user_id;
	const char *const *tags; /* ntags */
	size_t ntags;
	const char *statement; /* abbreviated by the server */
	enum sc_inspect_state state;
	int raw_state; /* the number the server sent */
	bool reattachable;
	int64_t created_at_ms;
	int64_t started_at_ms;
	int64_t finished_at_ms;
	bool attached; /* a client is attached now */
	int64_t attached_since_at_ms; /* when attached */
	int64_t detached_since_at_ms; /* when detached */
	int64_t abandon_in_ms; /* -1: not subject to abandonment now */
	int64_t responses_produced;
	int64_t responses_sent;
	int64_t responses_released;
	int64_t buffered_bytes;
	int64_t rows_sent;
	int64_t bytes_sent;
	int64_t rotations;
	int64_t reattaches;
	const char *last_error_class;
	const char *server_side_session_id;
};

struct sc_inspect_exec_list {
	struct sc_inspect_exec *v; /* n, newest first */
	size_t n;
	bool truncated; /* the server left some out (its limit) */
	int64_t server_time_ms; /* the server's clock when it answered */
	void *msg; /* the decoded answer the views point into */
};
void sc_inspect_exec_list_release(struct sc_inspect_exec_list *l);

struct sc_inspect_artifact {
	const char *name; /* "jars/x.jar", "cache/<sha256>" */
	int64_t size;
	int64_t stored_at_ms;
};

struct sc_inspect_session {
	const char *session_id;
	const char *user_id;
	const char *server_side_session_id;
	int64_t created_at_ms;
	int64_t last_access_at_ms;
	int64_t expires_in_ms; /* idle timeout left; -1: none */
	int64_t operations; /* executions held now */
	struct sc_inspect_artifact *artifacts; /* nartifacts */
	size_t nartifacts;
	int64_t artifact_bytes;
};

struct sc_inspect_session_list {
	struct sc_inspect_session *v;
	size_t n;
	int64_t server_time_ms;
	void *msg;
};
void sc_inspect_session_list_release(struct sc_inspect_session_list *l);

enum sc_inspect_tomb_kind {
	SC_INSPECT_TOMB_UNKNOWN = 0,
	SC_INSPECT_TOMB_OPERATION = 1, /* an abandoned operation */
	SC_INSPECT_TOMB_SESSION = 2 /* a closed session */
};
/* "operation", "session", "unknown". */
const char *sc_inspect_tomb_kind_name(enum sc_inspect_tomb_kind k);

struct sc_inspect_tomb {
	enum sc_inspect_tomb_kind kind;
	const char *operation_id; /* "" for a session */
	const char *session_id;
	const char *user_id;
	const char *reason;
	int64_t at_ms;
};

struct sc_inspect_tomb_list {
	struct sc_inspect_tomb *v;
	size_t n;
	int64_t server_time_ms;
	void *msg;
};
void sc_inspect_tomb_list_release(struct sc_inspect_tomb_list *l);

/* Room in struct sc_inspect_stats for the server's methods and buckets. */
#define SC_INSPECT_NMETHODS 24
#define SC_INSPECT_NCODES 17
#define SC_INSPECT_NBUCKETS 24

/* RPCs of one method that ended with one status code. */
struct sc_inspect_rpc_count {
	char method[32]; /* "ExecutePlan" */
	char code[24]; /* "OK" */
	int64_t count;
};

/* A histogram of durations, as Prometheus has it. */
struct sc_inspect_hist {
	char method[32]; /* RPC durations: the method */
	size_t nbounds;
	double bounds[SC_INSPECT_NBUCKETS]; /* upper bounds, seconds */
	int64_t le[SC_INSPECT_NBUCKETS]; /* observations <= bounds[i] */
	int64_t count; /* all of them */
	double sum_seconds;
};

/* Server statistics; copied out, nothing to release. */
struct sc_inspect_stats {
	char version[64];
	int64_t started_at_ms;
	int64_t uptime_ms;
	int64_t by_state[SC_INSPECT_NSTATES]; /* executions held, per state */
	int64_t sessions;
	int64_t buffered_bytes;
	int64_t rss_bytes;
	int64_t heap_in_use_bytes;
	int64_t streams_open;
	int64_t operations_started; /* totals since the start */
	int64_t operations_finished;
	int64_t operations_failed;
	int64_t operations_canceled;
	int64_t operations_abandoned;
	int64_t rows_sent;
	int64_t bytes_sent;
	int64_t reattaches;
	int64_t server_time_ms;
	int64_t artifacts; /* stored, all sessions */
	int64_t artifact_bytes;
	/* RPCs by method and code (only those that happened). */
	struct sc_inspect_rpc_count
	    rpcs[SC_INSPECT_NMETHODS * SC_INSPECT_NCODES];
	size_t nrpcs;
	struct sc_inspect_hist rpc_hist[SC_INSPECT_NMETHODS];
	size_t nrpc_hist;
	struct sc_inspect_hist op_hist; /* operation durations */
	bool has_op_hist;
};

/*
 * Decode a packed GetStatsResponse (p, len) into *out.  0, or -1 with
 * err set (SC_ST_PROTOCOL).  What does not fit is left out.
 */
int sc_inspect_stats_unpack(const void *p, size_t len,
    struct sc_inspect_stats *out, struct sc_error *err);

/*
 * Append s to b as Prometheus' text exposition format (version 0.0.4):
 * HELP and TYPE lines, every name prefixed sctk_ (man/sc-inspect.1
 * lists them).  0, or -1 with err set when b is full.
 */
int sc_inspect_prometheus(const struct sc_inspect_stats *s, struct sc_buf *b,
    struct sc_error *err);

/* ------------------------------------------------------------- client */

struct sc_inspect;

struct sc_inspect_opts {
	/*
	 * The admin token (copied, wiped when freed), or NULL.  Like
	 * --token, it turns TLS on unless the host is a loopback name.
	 */
	const char *admin_token;
	/* Retries reported as SC_CLIENT_EV_RETRY events (client NULL). */
	sc_client_event_fn *on_event;
	void *event_arg;
	/*
	 * Unary calls' retry policy (NULL: Spark's default).  The watch
	 * view refreshes on its own clock, so it retries nothing: a call
	 * to a server that is away fails at once and the next refresh is
	 * the retry.
	 */
	const struct sc_retry_policy *policy;
};

/*
 * A client for the server the connection options co name (sc_conn_uri();
 * the token, TLS, CA file and -H headers as for a Spark client), with
 * the admin token of o (may be NULL) as header SC_INSPECT_TOKEN_HEADER.
 * Connecting is lazy.  NULL with err set: SC_ST_USAGE for a bad address,
 * a bad token or a -H header of the same name; what sc_rpc_new() says
 * otherwise.  Free with sc_inspect_free().
 */
struct sc_inspect *sc_inspect_connect(const struct sc_conn_opts *co,
    const struct sc_inspect_opts *o, struct sc_error *err);

/*
 * As sc_inspect_connect() over the transport t (core/client.h) with
 * context ctx, both borrowed until sc_inspect_free(), for tests.  server
 * names the server in messages ("sc://host:port"), user_id is the
 * Caller's (both copied).
 */
struct sc_inspect *sc_inspect_new_transport(const struct sc_transport *t,
    void *ctx, const char *server, const char *user_id,
    const struct sc_inspect_opts *o, struct sc_error *err);

void sc_inspect_free(struct sc_inspect *a);

/* "sc://host:port" and the Caller's user id (valid until freed). */
const char *sc_inspect_server(const struct sc_inspect *a);
const char *sc_inspect_user_id(const struct sc_inspect *a);

/*
 * ListExecutions: the executions f (may be NULL) selects, at most limit
 * (0: the server's own maximum), newest first, into *out (zeroed first).
 */
int sc_inspect_list(struct sc_inspect *a, const struct sc_inspect_filter *f,
    int limit, struct sc_inspect_exec_list *out,
    const struct timespec *deadline, struct sc_error *err);

/*
 * GetExecution: one execution, as a list of one.  SC_ST_NOTFOUND "no
 * operation '<id>' on the server (or not visible to user '<user>')" when
 * the server does not know it or the caller may not see it.
 */
int sc_inspect_get(struct sc_inspect *a, const char *operation_id,
    struct sc_inspect_exec_list *out, const struct timespec *deadline,
    struct sc_error *err);

/* ListSessions, filtered by user and session id (NULL or "": any). */
int sc_inspect_sessions(struct sc_inspect *a, const char *user_id,
    const char *session_id, struct sc_inspect_session_list *out,
    const struct timespec *deadline, struct sc_error *err);

/* ListTombstones, filtered by user and session id (NULL or "": any). */
int sc_inspect_tombstones(struct sc_inspect *a, const char *user_id,
    const char *session_id, struct sc_inspect_tomb_list *out,
    const struct timespec *deadline, struct sc_error *err);

/* GetStats. */
int sc_inspect_stats(struct sc_inspect *a, struct sc_inspect_stats *out,
    const struct timespec *deadline, struct sc_error *err);

/* -------------------------------------------------------------- watch */

/* What happened to an execution; numerically WatchEvent.Kind. */
enum sc_inspect_event_kind {
	SC_INSPECT_EV_UNKNOWN = 0,
	SC_INSPECT_EV_SNAPSHOT,
	SC_INSPECT_EV_CREATED,
	SC_INSPECT_EV_STARTED,
	SC_INSPECT_EV_ATTACHED,
	SC_INSPECT_EV_DETACHED,
	SC_INSPECT_EV_PROGRESS,
	SC_INSPECT_EV_FINISHED,
	SC_INSPECT_EV_FAILED,
	SC_INSPECT_EV_CANCELED,
	SC_INSPECT_EV_RELEASED,
	SC_INSPECT_EV_ABANDONED,
	SC_INSPECT_EV_REMOVED
};
/* "snapshot", "created", ... "removed"; "unknown" for anything else. */
const char *sc_inspect_event_name(enum sc_inspect_event_kind k);

struct sc_inspect_event {
	enum sc_inspect_event_kind kind;
	int raw_kind; /* the number the server sent */
	int64_t at_ms;
	/*
	 * Events the server dropped for this watch so far (cumulative): it
	 * keeps a bounded queue per watch and drops the oldest when a
	 * client reads too slowly.
	 */
	int64_t dropped;
	bool has_exec; /* the server sent the execution */
	struct sc_inspect_exec exec; /* zeroed strings "" without it */
};

struct sc_inspect_watch;

/*
 * Start Watch: events of the executions f (may be NULL) selects, from
 * now on, after one SNAPSHOT event per matching execution if snapshot.
 * deadline bounds the whole stream (NULL: none).  NULL with err set.
 * Free with sc_inspect_watch_free().
 */
struct sc_inspect_watch *sc_inspect_watch_open(struct sc_inspect *a,
    const struct sc_inspect_filter *f, bool snapshot,
    const struct timespec *deadline, struct sc_error *err);

/*
 * The next event into *ev, valid until the next call or the free.
 * 1 with an event, 0 when the server ended the stream, -1 with err set.
 * If wait_until (absolute, monotonic; NULL: no limit) passes first:
 * -1 with SC_ST_TIMEOUT and rpc_code -1, and the watch stays usable.
 */
int sc_inspect_watch_next(struct sc_inspect_watch *w,
    struct sc_inspect_event *ev, const struct timespec *wait_until,
    struct sc_error *err);

/* Cancel the stream; any thread; later reads fail. */
void sc_inspect_watch_cancel(struct sc_inspect_watch *w);
void sc_inspect_watch_free(struct sc_inspect_watch *w);

/*
 * The watch as one call: fn(ev, arg) per event until it returns non-zero
 * (then 0 is returned), the stream ends (0) or fails (-1, err set).
 */
typedef int sc_inspect_event_fn(const struct sc_inspect_event *ev, void *arg);
int sc_inspect_watch(struct sc_inspect *a, const struct sc_inspect_filter *f,
    bool snapshot, sc_inspect_event_fn *fn, void *arg,
    const struct timespec *deadline, struct sc_error *err);

/* ------------------------------------------------ fields (inspect_fields.c) */

/* The kinds of record, each with its own fields. */
enum sc_inspect_rec {
	SC_INSPECT_REC_EXEC = 0, /* struct sc_inspect_exec */
	SC_INSPECT_REC_SESSION, /* struct sc_inspect_session */
	SC_INSPECT_REC_ARTIFACT, /* struct sc_inspect_artifact_row */
	SC_INSPECT_REC_TOMB, /* struct sc_inspect_tomb */
	SC_INSPECT_REC_STATS, /* struct sc_inspect_stats */
	SC_INSPECT_REC_EVENT /* struct sc_inspect_event */
};

/* An artifact with the session that holds it, one row per artifact. */
struct sc_inspect_artifact_row {
	const struct sc_inspect_session *session;
	const struct sc_inspect_artifact *artifact;
};

/*
 * How values are written:
 *  machine: times as RFC 3339 UTC with milliseconds
 *	("2025-03-01T12:00:00.250Z"), durations as seconds with three
 *	decimals ("612.250"), sizes and counts as integers, booleans as
 *	true/false, tags joined with ',' (a JSON array in JSON), absent
 *	values (a time that never was, a duration that does not apply)
 *	as NULL;
 *  human: times in local time ("2025-03-01 13:00:00"), durations as
 *	"250ms", "12.3s", "10m12s", "2h03m", "3d04h", sizes with a binary
 *	unit ("512B", "1.5KiB", "20.0MiB"), absent values as NULL.
 * Relative values (an execution's detached_for, a session's idle time)
 * are computed against now_ms, the server's clock (server_time_ms of
 * the answer, or an event's at_ms), so a skewed local clock does not
 * change them.
 */
struct sc_inspect_render {
	bool human;
	bool json; /* machine only: tags as a JSON array, not a list */
	int64_t now_ms;
};

/* The number of fields of a kind of record, and the name of field i. */
size_t sc_inspect_nfields(enum sc_inspect_rec r);
const char *sc_inspect_field_name(enum sc_inspect_rec r, size_t i);
/* The index of the field named name, or -1. */
int sc_inspect_field_find(enum sc_inspect_rec r, const char *name);
/*
 * The columns field i takes for people: its name's, or a typical
 * value's when wider (19 for a time, 36 for an id, 8 for a duration).
 */
size_t sc_inspect_field_width(enum sc_inspect_rec r, size_t i);
/* Whether field i holds a number (right-aligned in a table). */
bool sc_inspect_field_numeric(enum sc_inspect_rec r, size_t i);

/*
 * The fields shown when none are asked for: every field for machines,
 * a selection that fits a terminal for people.  Indexes into *idx
 * (static storage), their number returned.
 */
size_t sc_inspect_default_fields(enum sc_inspect_rec r, bool human,
    const size_t **idx);

/*
 * Parse a comma-separated list of field names of kind r ("all" for
 * every field) into idx (up to max entries); the number, or -1 with err
 * set (SC_ST_USAGE): "unknown field 'x' (fields: a, b, ...)", "empty
 * field name in 'a,,b'", "too many fields".
 */
int sc_inspect_fields_parse(enum sc_inspect_rec r, const char *list,
    size_t *idx, size_t max, struct sc_error *err);

/*
 * Field i of record rec (of kind r) as text, written into b (reset
 * first; NUL-terminated), and the kind of value it is for core/output.
 * SC_OUT_NULL for an absent value (b is then empty).
 */
enum sc_out_kind sc_inspect_field_value(enum sc_inspect_rec r, const void *rec,
    size_t i, const struct sc_inspect_render *how, struct sc_buf *b);

/*
 * Order two records of kind r by field i: numbers as numbers (an absent
 * value first), text by bytes, then by the first field as a tie-break.
 * now_ms as in struct sc_inspect_render.  <0, 0 or >0.
 */
int sc_inspect_field_cmp(enum sc_inspect_rec r, const void *a, const void *b,
    size_t i, int64_t now_ms);

/*
 * Format helpers the values above use, for other displays.  A buffer of
 * SC_INSPECT_TIME_STRLEN bytes; human durations and sizes in
 * SC_INSPECT_NUM_STRLEN.  sc_inspect_format_time() writes "" for 0.
 */
#define SC_INSPECT_TIME_STRLEN 40
#define SC_INSPECT_NUM_STRLEN 32
void sc_inspect_format_time(int64_t at_ms, bool human, char *out);
void sc_inspect_format_duration(int64_t ms, bool human, char *out);
void sc_inspect_format_size(int64_t bytes, char *out);

#endif
