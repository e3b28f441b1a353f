/* SPDX-License-Identifier: MIT */

/*
 * srverror_rpc.c: finishing a call with a Spark error, as Spark's
 * ErrorUtils does: status INTERNAL with "[CLASS] text SQLSTATE: xxxxx"
 * as the status message, and a google.rpc.Status with one ErrorInfo
 * (reason, errorClass, sqlState, messageParameters, classes, errorId) in
 * grpc-status-details-bin; a status without a class of its own gets one
 * by its code.  The errors themselves are built by srverror.c.
 */

#include "server/service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/rpc_server.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "server/session.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* Spark cuts status messages to this many bytes (commons abbreviate). */
#define MAX_STATUS_MSG 2048

static int64_t max_metadata = 1024;

void
sc_srv_error_set_max_metadata(int64_t bytes)
{
	max_metadata = bytes;
}

/* Append s as a JSON string. */
static void
json_str(struct sc_buf *b, const char *s)
{
	unsigned char c;

	sc_buf_addch(b, '"', NULL);
	for (; (c = (unsigned char)*s) != '\0'; s++)
		if (c == '"' || c == '\\')
			sc_buf_addf(b, NULL, "\\%c", c);
		else if (c < 0x20)
			sc_buf_addf(b, NULL, "\\u%04x", c);
		else
			sc_buf_addch(b, c, NULL);
	sc_buf_addch(b, '"', NULL);
}

/* The class names as a JSON array, as ErrorInfo's "classes". */
static void
classes_json(struct sc_buf *b, const char *const *classes)
{
	size_t i;

	sc_buf_addch(b, '[', NULL);
	for (i = 0; classes[i] != NULL; i++) {
		if (i > 0)
			sc_buf_addch(b, ',', NULL);
		json_str(b, classes[i]);
	}
	sc_buf_addch(b, ']', NULL);
}

/*
 * The error class of a status that carries none of its own, by gRPC
 * code: Spark's where it has one (OPERATION_CANCELED, INTERNAL_ERROR),
 * else sctk's.
 */
static const struct {
	int code;
	const char *errclass;
	const char *sqlstate;
} by_code[] = {
	{ SC_GRPC_CANCELLED, "OPERATION_CANCELED", "HY008" },
	{ SC_GRPC_INVALID_ARGUMENT, "INVALID_REQUEST", "22023" },
	{ SC_GRPC_DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED", "57014" },
	{ SC_GRPC_NOT_FOUND, "NOT_FOUND", "42704" },
	{ SC_GRPC_PERMISSION_DENIED, "PERMISSION_DENIED", "42501" },
	{ SC_GRPC_RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED", "53000" },
	{ SC_GRPC_UNIMPLEMENTED, "UNSUPPORTED_FEATURE.RPC", "0A000" },
	{ SC_GRPC_UNAVAILABLE, "SERVER_UNAVAILABLE", "08006" },
	{ SC_GRPC_UNAUTHENTICATED, "UNAUTHENTICATED", "28000" },
};

uint8_t *
sc_srv_error_details(int code, const char *msg, size_t *lenp)
{
	struct sc_spark_error se;
	struct sc_error err;
	struct sc_buf cj;
	const char *const *classes;
	uint8_t *details;
	size_t i;

	sc_error_init(&err);
	snprintf(err.errclass, sizeof(err.errclass), "INTERNAL_ERROR");
	snprintf(err.sqlstate, sizeof(err.sqlstate), "XX000");
	for (i = 0; i < SC_NELEM(by_code); i++)
		if (by_code[i].code == code) {
			snprintf(err.errclass, sizeof(err.errclass), "%s",
			    by_code[i].errclass);
			snprintf(err.sqlstate, sizeof(err.sqlstate), "%s",
			    by_code[i].sqlstate);
		}
	memset(&se, 0, sizeof(se));
	se.code = code;
	se.message = msg;
	se.retry_delay_ms = -1;
	se.errclass = err.errclass;
	se.sqlstate = err.sqlstate;
	se.params_json = "{}";
	classes = sc_srv_error_classes(&err);
	se.reason = classes[0];
	sc_buf_init(&cj, SC_BUF_UNLIMITED);
	classes_json(&cj, classes);
	se.classes_json = (const char *)cj.data;
	details = sc_error_encode_details(&se, lenp);
	sc_buf_release(&cj);
	return details;
}

void
sc_srv_finish_error(struct sc_rpc_call *call, struct sc_session *s,
    const struct sc_error *err)
{
	struct sc_spark_error se;
	const char *const *classes;
	const char *pname;
	struct sc_buf cj, pj;
	char msg[MAX_STATUS_MSG + 1];
	char pvalue[sizeof(err->msg)];
	char id[SC_UUID_STRLEN];
	uint8_t *details;
	size_t len;
	int code;

	code = err->rpc_code == -1 ? SC_GRPC_INTERNAL : err->rpc_code;
	snprintf(msg, sizeof(msg), "%s", err->msg);
	sc_srv_error_fit(msg, MAX_STATUS_MSG);
	if (err->errclass[0] == '\0' && code != SC_GRPC_INTERNAL) {
		/*
		 * Not a Spark error (UNAUTHENTICATED, INVALID_ARGUMENT, ...):
		 * an error class by code, as for every bare status.
		 */
		details = sc_srv_error_details(code, msg, &len);
		sc_rpc_call_finish(call, code, msg, details, len);
		free(details);
		return;
	}

	memset(&se, 0, sizeof(se));
	se.code = code;
	se.message = msg;
	se.retry_delay_ms = -1;
	classes = sc_srv_error_classes(err);
	se.reason = classes[0];
	sc_buf_init(&cj, SC_BUF_UNLIMITED);
	classes_json(&cj, classes);
	se.classes_json = (const char *)cj.data;

	sc_buf_init(&pj, SC_BUF_UNLIMITED);
	if (err->errclass[0] != '\0') {
		sc_buf_addch(&pj, '{', NULL);
		if (sc_srv_error_param(err, &pname, pvalue, sizeof(pvalue))) {
			json_str(&pj, pname);
			sc_buf_addch(&pj, ':', NULL);
			json_str(&pj, pvalue);
			if ((pname = sc_srv_error_param_extra(err)) != NULL) {
				sc_buf_addch(&pj, ',', NULL);
				json_str(&pj, pname);
				sc_buf_addstr(&pj, ":\"\"", NULL);
			}
		}
		sc_buf_addch(&pj, '}', NULL);
		/* As Spark: class and parameters only when they fit. */
		if ((int64_t)pj.len <= max_metadata) {
			se.errclass = err->errclass;
			se.params_json = (const char *)pj.data;
		}
	}
	if (err->sqlstate[0] != '\0')
		se.sqlstate = err->sqlstate;
	if (s != NULL && sc_session_error_put(s, err, id) == 0)
		se.error_id = id;

	details = sc_error_encode_details(&se, &len);
	sc_rpc_call_finish(call, code, msg, details, len);
	free(details);
	sc_buf_release(&cj);
	sc_buf_release(&pj);
}
