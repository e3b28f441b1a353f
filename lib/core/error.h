/* SPDX-License-Identifier: MIT */

/*
 * error.h: classified errors, exit codes and Spark error decoding.
 *
 * Ownership rules for all of lib/core:
 *  1. Whoever allocates frees; a function returning memory names its free.
 *  2. const char * parameters are borrowed for the duration of the call.
 *  3. Out-parameters are written only on success.
 *  4. Buffers filled from the network use struct sc_buf with a maximum.
 *  5. Secrets are wiped with explicit_bzero() once sent.
 *
 * Functions that can fail return 0 on success and -1 on failure, and fill
 * the caller-owned struct sc_error (last parameter, may be NULL) only on
 * failure.  lib/ never prints and never exits.
 */

#ifndef SC_ERROR_H
#define SC_ERROR_H

#include <stddef.h>
#include <stdint.h>

/*
 * One value per exit code.  Add new values at the end; never renumber.
 * The numeric value of each SC_ST_* equals its exit code.
 */
enum sc_status {
	SC_ST_OK = 0, /* success */
	SC_ST_FAILED = 1, /* the server refused or failed the operation */
	SC_ST_USAGE = 2, /* bad option, operand or value */
	SC_ST_NOTFOUND = 3, /* no such operation, session or artifact */
	SC_ST_UNAVAILABLE = 4, /* server unreachable; retry later */
	SC_ST_TIMEOUT = 5, /* deadline passed; retry later */
	SC_ST_INTEGRITY = 6, /* CRC mismatch or DATA_LOSS */
	SC_ST_PROTOCOL = 7, /* malformed or unexpected reply */
	SC_ST_DENIED = 8, /* PERMISSION_DENIED or UNAUTHENTICATED */
	SC_ST_IO = 9, /* local I/O failure */
	SC_ST_INTERNAL = 10 /* bug or resource exhaustion in the tool */
};
#define SC_ST_MAX SC_ST_INTERNAL

/* Exit codes are the status values; these names are used by main(). */
#define SC_EXIT_OK SC_ST_OK
#define SC_EXIT_FAILED SC_ST_FAILED
#define SC_EXIT_USAGE SC_ST_USAGE
#define SC_EXIT_NOTFOUND SC_ST_NOTFOUND
#define SC_EXIT_UNAVAILABLE SC_ST_UNAVAILABLE
#define SC_EXIT_TIMEOUT SC_ST_TIMEOUT
#define SC_EXIT_INTEGRITY SC_ST_INTEGRITY
#define SC_EXIT_PROTOCOL SC_ST_PROTOCOL
#define SC_EXIT_DENIED SC_ST_DENIED
#define SC_EXIT_IO SC_ST_IO
#define SC_EXIT_INTERNAL SC_ST_INTERNAL

/* gRPC status codes, numerically identical to grpc_status_code. */
enum sc_grpc_code {
	SC_GRPC_OK = 0,
	SC_GRPC_CANCELLED = 1,
	SC_GRPC_UNKNOWN = 2,
	SC_GRPC_INVALID_ARGUMENT = 3,
	SC_GRPC_DEADLINE_EXCEEDED = 4,
	SC_GRPC_NOT_FOUND = 5,
	SC_GRPC_ALREADY_EXISTS = 6,
	SC_GRPC_PERMISSION_DENIED = 7,
	SC_GRPC_RESOURCE_EXHAUSTED = 8,
	SC_GRPC_FAILED_PRECONDITION = 9,
	SC_GRPC_ABORTED = 10,
	SC_GRPC_OUT_OF_RANGE = 11,
	SC_GRPC_UNIMPLEMENTED = 12,
	SC_GRPC_INTERNAL = 13,
	SC_GRPC_UNAVAILABLE = 14,
	SC_GRPC_DATA_LOSS = 15,
	SC_GRPC_UNAUTHENTICATED = 16
};

struct sc_error {
	enum sc_status status; /* classification, maps to an exit code */
	int rpc_code; /* gRPC status if one was received, else -1 */
	int sys_errno; /* errno if a system call failed, else 0 */
	int retry_delay_ms; /* RetryInfo delay, -1 if none was sent */
	char msg[1024]; /* complete sentence, no trailing newline */
	char errclass[128]; /* Spark error class, e.g. INVALID_HANDLE.FORMAT */
	char sqlstate[8]; /* SQLSTATE, or "" */
	char error_id[40]; /* errorId for FetchErrorDetails, or "" */
	/*
	 * Where in SQL text the error is (Spark's query context), for
	 * FetchErrorDetails: offsets of the fragment's first and last
	 * characters, or ctx_start -1; the fragment; the summary.
	 */
	int ctx_start;
	int ctx_stop;
	char ctx_fragment[128];
	char ctx_summary[512];
};

/* Set every field to "no error" (status SC_ST_OK, rpc_code -1). */
void sc_error_init(struct sc_error *err);

/*
 * Fill err (if not NULL) with status and a printf-formatted message;
 * rpc_code becomes -1, sys_errno 0, the Spark fields empty.
 * Always returns -1 so callers can write "return sc_error_set(...)".
 */
int sc_error_set(struct sc_error *err, enum sc_status status, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

/*
 * Put prefix (e.g. "a.sql:5: statement 2: ") before err's message, which
 * is cut at the end if the whole does not fit.  Nothing else changes.
 */
void sc_error_prefix(struct sc_error *err, const char *prefix);

/* As sc_error_set(), and records errno and appends ": strerror(errno)". */
int sc_error_set_errno(struct sc_error *err, enum sc_status status, int errnum,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * Fill err from a gRPC status: code, message and the raw bytes of the
 * grpc-status-details-bin trailer (may be NULL/0).  status is derived
 * with sc_status_from_grpc(); errclass comes from ErrorInfo metadata
 * "errorClass" or else from a leading "[CLASS.SUB]" in the message;
 * sqlstate and error_id from ErrorInfo metadata; retry_delay_ms from a
 * google.rpc.RetryInfo detail.  Malformed details are ignored (the
 * message still stands).  Returns -1.
 */
int sc_error_from_grpc(struct sc_error *err, int code, const char *msg,
    const void *details, size_t details_len);

/*
 * Put a transport failure in our words, and say whether waiting helps:
 * if err holds the gRPC core's own text for a call to target
 * ("host:port") that could not connect or lost its connection, replace
 * the message with "cannot connect to 'target': connection refused"
 * (or: timed out, name not resolved, network unreachable, TLS
 * certificate verify failed, TLS handshake failed, not a gRPC server,
 * connection closed by the server, ...), "lost the connection to
 * 'target': connection reset", or, for a bare "Deadline Exceeded",
 * "timed out waiting for 'target'".  Only UNAVAILABLE and
 * DEADLINE_EXCEEDED errors without a Spark error class are looked at;
 * any other message (the server's own) stays.
 *
 * This is the one place that tells a permanent misconfiguration from a
 * server that is not there: a failure to connect that waiting cannot
 * fix changes err->status from SC_ST_UNAVAILABLE (4, "retry later") to
 * SC_ST_DENIED (8: the certificate does not verify or names another
 * host) or SC_ST_PROTOCOL (7: TLS against plain text or the reverse, a
 * port that does not speak gRPC over HTTP/2).  rpc_code and the other
 * fields never change.
 */
void sc_error_reword_transport(struct sc_error *err, const char *target);

/*
 * gRPC status code -> enum sc_status: NOT_FOUND 3, UNAVAILABLE 4,
 * DEADLINE_EXCEEDED 5, DATA_LOSS 6, UNIMPLEMENTED 7, PERMISSION_DENIED
 * and UNAUTHENTICATED 8, OK 0, any other 1 (the table in sctk(7)).
 */
enum sc_status sc_status_from_grpc(int code);

/* The exit code for err (its status), for main(). */
int sc_exit_code(const struct sc_error *err);

/* The name of a gRPC code, e.g. "UNAVAILABLE"; "UNKNOWN_CODE" if out of range. */
const char *sc_grpc_code_name(int code);

/*
 * Copy the error class from a Spark status message of the form
 * "[CLASS.SUB] text" into out (size outsz).  Returns 0 when one was
 * found, -1 otherwise (out untouched).
 */
int sc_error_class_from_message(const char *msg, char *out, size_t outsz);

/*
 * A Spark error as the server sends it, input to sc_error_encode_details().
 * All strings borrowed; NULL means "absent".
 */
struct sc_spark_error {
	const char *errclass; /* "INVALID_HANDLE.FORMAT" */
	const char *sqlstate; /* "HY000" */
	const char *message; /* full status message */
	const char *reason; /* ErrorInfo.reason, Java-style class name */
	const char *classes_json; /* JSON array of class names */
	const char *params_json; /* JSON object messageParameters */
	const char *error_id; /* errorId UUID */
	int code; /* gRPC code, normally SC_GRPC_INTERNAL */
	int retry_delay_ms; /* >= 0 adds a RetryInfo detail */
};

/*
 * Serialize a google.rpc.Status with one ErrorInfo (domain
 * "org.apache.spark") for the grpc-status-details-bin trailer.  Returns a
 * malloc'ed buffer (caller frees with free()) and stores its length in
 * *lenp.
 */
uint8_t *sc_error_encode_details(const struct sc_spark_error *se, size_t *lenp);

/*
 * Decode grpc-status-details-bin bytes into err's Spark fields (errclass,
 * sqlstate, error_id, retry_delay_ms).  Returns 0 on success, -1 if the
 * bytes are not a well-formed google.rpc.Status (err untouched then).
 */
int sc_error_decode_details(struct sc_error *err, const void *p, size_t n);

#endif
