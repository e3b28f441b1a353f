/* SPDX-License-Identifier: MIT */

/*
 * server.h: the pieces of sc-serve and the interfaces between them.
 *
 *   conf.c      server settings under their Spark names (--conf)
 *   session.c   session manager: (user_id, session_id) -> struct sc_session,
 *               idle timeout (its own maintenance thread), closed-session
 *               tombstones, per-session conf, close hooks
 *   service.c   RPC handlers: decode requests, check sessions, reply,
 *               Spark-style errors; Config, AnalyzePlan, ReleaseSession,
 *               FetchErrorDetails, ArtifactStatus, AddArtifacts
 *   exec*.c     operations: response buffer, senders (stream rotation,
 *               flow control), ExecutePlan, ReattachExecute,
 *               ReleaseExecute, Interrupt, the execution manager
 *   engine*.c   the embedded SQLite engine (engine.h)
 *   artifact.c  per-session artifact store (artifact.h)
 *
 * Layers: the session manager depends on no other manager; whoever must
 * hear of a closed session (the execution manager, wired by sc-serve's
 * main()) registers a close hook with sc_sessmgr_on_close().  exec*.c
 * use sessions; service.c uses everything.  Each manager gets the
 * settings (and the engine) it needs, not the whole struct sc_server.
 * lib/server logs events (core/log.h) but never prints otherwise or
 * exits.
 *
 * Locking: the session manager lock is taken before any session lock,
 * a session lock before any operation lock; nothing calls into rpc.c
 * with a session or manager lock held except sc_rpc_call_send/finish,
 * which never block.
 */

#ifndef SC_SERVER_H
#define SC_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"

struct sc_admin;
struct sc_auth;
struct sc_engine;
struct sc_engine_conn;
struct sc_artifact_store;
struct sc_execmgr;
struct sc_rpc_call;
struct sc_rpc_server;
struct sc_session;
struct sc_sessmgr;

/* Server settings; defaults are Spark's (its spark.connect.* settings). */
struct sc_server_conf {
	int64_t retry_buffer_size; /* observerRetryBufferSize, 10 MiB */
	int64_t max_stream_duration_ms; /* senderMaxStreamDuration, 2 min */
	int64_t max_stream_size; /* senderMaxStreamSize, 1 GiB */
	bool reattachable_enabled; /* reattachable.enabled, true */
	int64_t detached_timeout_ms; /* manager.detachedTimeout, 5 min */
	int64_t maintenance_interval_ms; /* manager.maintenanceInterval, 30 s */
	int64_t abandoned_tombstones; /* manager.abandonedTombstonesSize, 10000 */
	int64_t
	    inactive_op_expiry_ms; /* inactiveOperations.cacheExpiration, 30 min */
	int64_t
	    session_timeout_ms; /* session.manager.defaultSessionTimeout, 60 min; -1 never */
	int64_t
	    session_maintenance_ms; /* session.manager.maintenanceInterval, 30 s */
	int64_t
	    closed_session_tombstones; /* closedSessionsTombstonesSize, 1000 */
	int64_t
	    batch_max_rows; /* spark.sql.execution.arrow.maxRecordsPerBatch, 10000 */
	int64_t
	    batch_max_bytes; /* spark.connect.grpc.arrow.maxBatchSize, 4 MiB */
	int64_t
	    high_water_bytes; /* engine pauses above this many unconsumed bytes */
	int64_t
	    max_buffered_bytes; /* unconsumed bytes of all operations; -1 none */
	int64_t
	    progress_interval_ms; /* spark.connect.progress.reportInterval, 2 s */
	int64_t max_message_size; /* grpc.maxInboundMessageSize, 128 MiB */
	int64_t max_metadata_size; /* grpc.maxMetadataSize, 1024 */
	int max_threads; /* sctk.execute.maxThreads: runner thread cap, 64 */
	int max_running_per_user; /* sctk.execute.maxRunningPerUser, 16 */
	int64_t
	    compensation_delay_ms; /* sctk.execute.compensationDelay, 200 ms; -1 never */
	int64_t thread_idle_ms; /* sctk.execute.threadIdleTimeout, 60 s */
	int workers; /* execution worker threads, 4 */
	char token[256]; /* authenticate.token, "" = none */
	char admin_token[256]; /* sctk.admin.token, "" = none */
	/* Limits on sessions, their conf, shutdown and memory (sctk.*). */
	int64_t max_sessions; /* sctk.session.maxSessions, 10000 */
	int64_t max_user_sessions; /* sctk.session.maxSessionsPerUser, 1000 */
	int64_t conf_max_keys; /* sctk.session.maxConfKeys, 10000 */
	int64_t conf_max_key_size; /* sctk.session.maxConfKeySize, 1 KiB */
	int64_t conf_max_value_size; /* sctk.session.maxConfValueSize, 64 KiB */
	int64_t conf_max_bytes; /* sctk.session.maxConfBytes, 1 MiB */
	int64_t shutdown_timeout_ms; /* sctk.server.shutdownTimeout, 10 s */
	int malloc_arenas; /* sctk.server.mallocArenas, 2; 0: glibc's */
	int64_t trim_threshold; /* sctk.server.trimThreshold, 16 MiB; 0 off */
	/* Artifacts (sctk.artifact.*); -1: no limit. */
	int64_t artifact_max_size; /* maxSize, 2 GiB */
	int64_t artifact_session_bytes; /* maxSessionBytes, 10 GiB */
	int64_t artifact_session_files; /* maxSessionFiles, 10000 */
	int64_t artifact_store_bytes; /* maxStoreBytes, 10 GiB */
	/* The SQL engine's limits (engine.h); 0 means none. */
	int64_t sql_op_memory; /* sctk.sql.operationMemory, 256 MiB */
	int64_t sql_max_value; /* sctk.sql.maxValueSize, 64 MiB */
	int64_t sql_heap_limit; /* sctk.sql.heapLimit, 4 GiB */
};

/* Fill conf with the defaults. */
void sc_server_conf_default(struct sc_server_conf *conf);
/* The engine's limits (sctk.sql.*) in conf. */
struct sc_engine_config;
void sc_server_conf_engine(const struct sc_server_conf *conf,
    struct sc_engine_config *lim);
/*
 * Set one setting by its Spark name (or its short sctk alias) from a
 * string as Spark accepts it ("5m", "10m" bytes, "true").  0, or -1 with
 * SC_ST_USAGE for an unknown key or a bad value.
 */
int sc_server_conf_set(struct sc_server_conf *conf, const char *key,
    const char *value, struct sc_error *err);
/*
 * Format the current value of a Spark-named server setting into out;
 * 0, or -1 if key is not a server setting.
 */
int sc_server_conf_get(const struct sc_server_conf *conf, const char *key,
    char *out, size_t outsz);
/* Call fn for every server setting (Spark name, formatted value). */
void sc_server_conf_each(const struct sc_server_conf *conf,
    void (*fn)(const char *key, const char *value, void *arg), void *arg);

/*
 * The whole server, as sc-serve's main() assembles it: it creates each
 * part, gives each manager only what it needs (the settings, the engine,
 * callbacks) and hands the whole to the RPC handlers (service.c).  No
 * manager keeps a pointer to it.
 */
struct sc_server {
	struct sc_server_conf conf;
	struct sc_engine *engine;
	struct sc_sessmgr *sessions;
	struct sc_execmgr *execs;
	struct sc_rpc_server *rpc;
	struct sc_artifact_store *artifacts; /* or NULL: none are kept */
	struct sc_admin *admin; /* sctk.admin.v1 (admin.h), or NULL: none */
	struct sc_auth *auth; /* --token-file (auth.h), or NULL: none */
	int64_t started_ms; /* realtime */
};

/*
 * Error replies.  sc_srv_error() fills err with a Spark error: status
 * SC_ST_FAILED, rpc_code INTERNAL, errclass and sqlstate set, msg
 * "[CLASS] text SQLSTATE: xxxxx".  Returns -1.
 */
int sc_srv_error(struct sc_error *err, const char *errclass,
    const char *sqlstate, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/*
 * Finish call with err as Spark does: gRPC status err->rpc_code (INTERNAL
 * when -1), the message truncated to 2048 bytes, and
 * grpc-status-details-bin with ErrorInfo (errorClass, sqlState,
 * messageParameters, classes, errorId when session is not NULL, in which
 * case the full error is kept for FetchErrorDetails).
 */
void sc_srv_finish_error(struct sc_rpc_call *call, struct sc_session *s,
    const struct sc_error *err);

#endif
