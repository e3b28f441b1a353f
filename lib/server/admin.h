/* SPDX-License-Identifier: MIT */

/*
 * admin.h: sctk.admin.v1.AdminService (proto/sctk/admin/v1/admin.proto),
 * sc-serve's own inspection service, served on the same RPC server as
 * spark.connect: executions (listed with filters, one in detail),
 * sessions with their artifacts, tombstones, statistics, and a
 * server-streaming watch of execution events.
 *
 * Access (checked on every call, in this order):
 *
 *  1. conf.admin_token set and presented ("x-sctk-admin-token: TOKEN" or
 *     "authorization: Bearer TOKEN"): an administrator, who sees
 *     everything, statements included.  A wrong x-sctk-admin-token is
 *     UNAUTHENTICATED.
 *  2. A token of the token file (auth.h): its user, proven; it sees what
 *     belongs to that user.  A non-empty Caller.user_id naming another
 *     user is PERMISSION_DENIED SCTK_AUTH.USER_MISMATCH.
 *  3. conf.token (or a token file) set: the caller must present the
 *     token (UNAUTHENTICATED otherwise).  Its Caller.user_id is only a
 *     claim, so it sees what belongs to that user within the session the
 *     request names (a filter's or request's session_id); nothing
 *     without one.  An empty user_id sees nothing.
 *  4. Only conf.admin_token set: any caller, scoped as in 3.
 *  5. No token at all: callers on a loopback address (127.0.0.0/8, ::1,
 *     ::ffff:127.x, unix sockets) see everything; any other caller gets
 *     PERMISSION_DENIED, class SCTK_ADMIN.LOOPBACK_ONLY.
 *
 * Only administrators (1 and 5) get an execution's statement; everybody
 * else an empty one.
 *
 * GetStats for a user-scoped caller counts only the executions,
 * buffered bytes and attached streams it may see (and, for 2, the
 * user's sessions); the process-wide figures (memory, totals since
 * start) are 0 for it.
 *
 * Watch: one send in flight per watcher; events wait in a queue of at
 * most SC_ADMIN_WATCH_QUEUE entries (plus the initial snapshot), the
 * oldest dropped when it is full (WatchEvent.dropped counts them).  Live
 * events pass the filter's session, user and tag conditions; states,
 * detached_for_ms and older_than_ms select the initial snapshot only
 * (an execution changes state as it goes).
 *
 * Threads: handlers run on completion-queue threads and hold the
 * execution and session manager locks only while copying; the event
 * callback runs under the execution manager's locks and only queues and
 * starts sends (which never block).
 */

#ifndef SC_ADMIN_H
#define SC_ADMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/exec.h"
#include "server/server.h"

struct sc_error;
struct sc_admin;

/* The method paths. */
#define SC_ADMIN_SERVICE "sctk.admin.v1.AdminService"
#define SC_ADMIN_LIST_EXECUTIONS "/sctk.admin.v1.AdminService/ListExecutions"
#define SC_ADMIN_GET_EXECUTION "/sctk.admin.v1.AdminService/GetExecution"
#define SC_ADMIN_LIST_SESSIONS "/sctk.admin.v1.AdminService/ListSessions"
#define SC_ADMIN_LIST_TOMBSTONES "/sctk.admin.v1.AdminService/ListTombstones"
#define SC_ADMIN_GET_STATS "/sctk.admin.v1.AdminService/GetStats"
#define SC_ADMIN_WATCH "/sctk.admin.v1.AdminService/Watch"

/* Most executions one ListExecutions answer holds (limit 0 means this). */
#define SC_ADMIN_LIST_MAX 100000
/* Live events a watcher may have queued before the oldest are dropped. */
#define SC_ADMIN_WATCH_QUEUE 1024

/*
 * The service for srv (borrowed: its managers, conf, artifacts and
 * started_ms are read on every call).  Free with sc_admin_free() after
 * sc_execmgr_free(): the execution manager calls into it until then.
 */
struct sc_admin *sc_admin_new(struct sc_server *srv);
/*
 * Register the six methods on srv->rpc (not yet started) and the event
 * callback on srv->execs (before the first operation).  0, or -1.
 */
int sc_admin_register(struct sc_admin *a, struct sc_error *err);
/*
 * End every watch with UNAVAILABLE "sc-serve is shutting down"; call it
 * before sc_rpc_server_shutdown().  Later watches are refused.
 */
void sc_admin_shutdown(struct sc_admin *a);
/*
 * GetStats as an administrator gets it, packed (a GetStatsResponse):
 * for sc-serve's /metrics.  Free with free(); the length in *lenp.
 */
uint8_t *sc_admin_stats_pack(struct sc_admin *a, size_t *lenp);
void sc_admin_free(struct sc_admin *a);

/* --------------------------------- the pure parts, exposed for tests */

/* An ExecutionFilter in plain C; empty strings and 0 mean "any". */
struct sc_admin_filter {
	const char *session_id;
	const char *user_id;
	const char *tag;
	unsigned states; /* bit (1 << sc_exec_state) per state wanted */
	bool any_state; /* no state condition */
	int64_t detached_for_ms;
	int64_t older_than_ms;
};

/*
 * Whether info (a live operation) passes every condition of f at now
 * (realtime milliseconds).  identity_only: only session, user and tag.
 */
bool sc_admin_filter_match(const struct sc_admin_filter *f,
    const struct sc_exec_info *info, int64_t now, bool identity_only);
/*
 * Whether a caller may see what belongs to owner: an administrator
 * sees everything, anybody else only a non-empty user id of its own.
 */
bool sc_admin_visible(bool admin, const char *caller_user, const char *owner);
/* Whether a gRPC peer string ("ipv4:127.0.0.1:5555") is on loopback. */
bool sc_admin_peer_is_loopback(const char *peer);

#endif
