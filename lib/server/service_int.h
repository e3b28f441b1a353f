/* SPDX-License-Identifier: MIT */

/*
 * service_int.h: what the files of the service module share: the steps
 * every handler takes (token, decode, session, reply) and the handlers
 * that live outside service.c.  Not for use outside lib/server/service*.c.
 */

#ifndef SCTK_SERVER_SERVICE_INT_H
#define SCTK_SERVER_SERVICE_INT_H

#include <stdbool.h>

#include "core/protocol.h"
#include "server/auth.h"
#include "server/server.h"
#include "server/service.h"
#include "server/session.h"

struct sc_rpc_call;

/* The request's optional fields, NULL when absent. */
#define OBSERVED(r)                                             \
	((r)->_client_observed_server_side_session_id_case != 0 \
		? (r)->client_observed_server_side_session_id   \
		: NULL)
#define USER(r) ((r)->user_context != NULL ? (r)->user_context->user_id : "")

bool sc_svc_has_prefix(const char *s, const char *prefix);

/*
 * Who the call's "authorization: Bearer T" says the caller is.  OPEN:
 * no token is required (no --token, no --token-file); SHARED: T is the
 * --token, the caller names any user; BOUND: T is in the token file,
 * user is set to the one user it may name; MISSING, WRONG: refused.
 */
enum sc_svc_who {
	SC_SVC_OPEN,
	SC_SVC_SHARED,
	SC_SVC_BOUND,
	SC_SVC_MISSING,
	SC_SVC_WRONG
};
enum sc_svc_who sc_svc_identify(struct sc_server *srv, struct sc_rpc_call *call,
    char user[SC_AUTH_USER_MAX]);

/* Check the bearer token; on failure the call is finished. */
bool sc_svc_authorized(struct sc_server *srv, struct sc_rpc_call *call);

/*
 * Log a refused authentication of call (an "auth_refused" event, at
 * warn) with the client's address: reason is "missing token", "bad
 * token", "bad admin token" or "user mismatch"; for a mismatch, bound
 * is the token's user and claimed the one the request names (else
 * both NULL).
 */
void sc_svc_log_refusal(struct sc_rpc_call *call, const char *reason,
    const char *bound, const char *claimed);

/* The class of a request naming another user than its token's. */
#define SC_SVC_USER_MISMATCH "SCTK_AUTH.USER_MISMATCH"

/*
 * Whether a caller identified as who (bound: its user, when BOUND) may
 * act for user.  0, or -1 with err set: INVALID_ARGUMENT
 * INVALID_HANDLE.FORMAT when user is not valid UTF-8 or has a control
 * character; PERMISSION_DENIED SC_SVC_USER_MISMATCH (SQLSTATE 42501)
 * when a bound token names another user; UNAUTHENTICATED (no class)
 * for MISSING and WRONG.
 */
int sc_svc_check_user(enum sc_svc_who who, const char *bound, const char *user,
    struct sc_error *err);
/*
 * INVALID_HANDLE.FORMAT (INVALID_ARGUMENT) for an id (what: "user id",
 * "tag", ...) that is not valid UTF-8 or has control characters.  -1.
 */
int sc_svc_bad_id(struct sc_error *err, const char *what, const char *id);
/* INVALID_HANDLE.FORMAT (INTERNAL, as Spark) for an id not a UUID.  -1. */
int sc_svc_bad_uuid(struct sc_error *err, const char *id);

/* Unpack the request; on failure the call is finished INVALID_ARGUMENT. */
void *sc_svc_decode(struct sc_rpc_call *call,
    const ProtobufCMessageDescriptor *d);

/* Pack m and send it as the unary reply. */
void sc_svc_reply(struct sc_rpc_call *call, const ProtobufCMessage *m);

/* Free an unpacked request; NULL is fine. */
void sc_svc_free_msg(void *m);

/* Look the session up; on failure the call is finished. */
struct sc_session *sc_svc_session(struct sc_server *srv,
    struct sc_rpc_call *call, const char *user, const char *sid,
    const char *observed, enum sc_sess_lookup how);

/* An INTERNAL error without an error class (Spark's plain exceptions). */
int sc_svc_plain_error(struct sc_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A thread of the service starts or ends; sc_service_drain() waits. */
void sc_svc_job_begin(void);
void sc_svc_job_end(void);

/* Handlers outside service.c (arg: the struct sc_server). */
void sc_svc_config(struct sc_rpc_call *call, void *arg);
/* The session settings SQL's SET works on (sc_engine_set_conf()). */
extern const struct sc_engine_conf_ops sc_svc_sql_conf;
void sc_svc_artifact_status(struct sc_rpc_call *call, void *arg);
void sc_svc_add_artifacts(struct sc_rpc_call *call, void *arg);

#endif
