/* SPDX-License-Identifier: MIT */

/*
 * srverror.c: Spark-style error replies.  A Spark error goes out as
 * INTERNAL with "[CLASS] text SQLSTATE: xxxxx" as the status message and
 * a google.rpc.Status with one ErrorInfo in grpc-status-details-bin, as
 * Spark's ErrorUtils does (spark-connect-protocol.md 3).
 */

#include "server/service.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/rpc_server.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "server/session.h"
#include "core/banned.h"

/* Spark cuts status messages to this many bytes (commons abbreviate). */
#define MAX_STATUS_MSG 2048

static int64_t max_metadata = 1024;

#define TAIL "java.lang.Exception", "java.lang.Throwable", "java.lang.Object"
#define RTAIL "java.lang.RuntimeException", TAIL

static const char *const c_spark[] = { "org.apache.spark.SparkException", TAIL,
	NULL };
static const char *const c_sql[] = { "org.apache.spark.SparkSQLException",
	"java.sql.SQLException", TAIL, NULL };
static const char *const c_analysis[] = {
	"org.apache.spark.sql.AnalysisException", TAIL, NULL
};
static const char *const c_parse[] = {
	"org.apache.spark.sql.catalyst.parser.ParseException",
	"org.apache.spark.sql.AnalysisException", TAIL, NULL
};
static const char *const c_nosuch[] = {
	"org.apache.spark.SparkNoSuchElementException",
	"java.util.NoSuchElementException", RTAIL, NULL
};
static const char *const c_unsupported[] = {
	"org.apache.spark.SparkUnsupportedOperationException",
	"java.lang.UnsupportedOperationException", RTAIL, NULL
};
static const char *const c_illegal[] = {
	"org.apache.spark.SparkIllegalArgumentException",
	"java.lang.IllegalArgumentException", RTAIL, NULL
};
static const char *const c_numfmt[] = {
	"org.apache.spark.SparkNumberFormatException",
	"java.lang.NumberFormatException", "java.lang.IllegalArgumentException",
	RTAIL, NULL
};
static const char *const c_arith[] = {
	"org.apache.spark.SparkArithmeticException",
	"java.lang.ArithmeticException", RTAIL, NULL
};
static const char *const c_runtime[] = {
	"org.apache.spark.SparkRuntimeException", RTAIL, NULL
};
static const char *const c_security[] = {
	"org.apache.spark.SparkSecurityException",
	"java.lang.SecurityException", RTAIL, NULL
};
static const char *const c_oom[] = {
	"org.apache.spark.memory.SparkOutOfMemoryError",
	"java.lang.OutOfMemoryError", "java.lang.VirtualMachineError",
	"java.lang.Error", TAIL, NULL
};

/* Error class prefix -> the exception Spark raises for it. */
static const struct {
	const char *prefix;
	const char *const *classes;
} kinds[] = {
	{ "ARTIFACT_ALREADY_EXISTS", c_runtime },
	{ "CANNOT_MODIFY_CONFIG", c_analysis },
	{ "CAST_INVALID_INPUT", c_numfmt },
	{ "CAST_OVERFLOW", c_arith },
	{ "EXCEED_LIMIT_LENGTH", c_runtime },
	{ "FAILED_TO_PARSE_TOO_COMPLEX", c_parse },
	{ "INCONSISTENT_COLUMN_TYPE", c_analysis },
	{ "INVALID_ARTIFACT_PATH", c_runtime },
	{ "INVALID_ARTIFACT_STREAM", c_runtime },
	{ "INVALID_CURSOR", c_sql },
	{ "INVALID_HANDLE", c_sql },
	{ "INVALID_PARAMETER_VALUE", c_illegal },
	{ "INVALID_PLAN_INPUT", c_illegal },
	{ "PARSE_SYNTAX_ERROR", c_parse },
	{ "PATH_NOT_FOUND", c_analysis },
	{ "SQL_CONF_NOT_FOUND", c_nosuch },
	{ "TABLE_OR_VIEW_ALREADY_EXISTS", c_analysis },
	{ "TABLE_OR_VIEW_NOT_FOUND", c_analysis },
	{ "UNABLE_TO_ACQUIRE_MEMORY", c_oom },
	{ "UNBOUND_SQL_PARAMETER", c_analysis },
	{ "UNAUTHENTICATED", c_security },
	{ "UNRESOLVED_", c_analysis },
	{ "UNSUPPORTED_FEATURE", c_unsupported },
};

/*
 * Error class prefix -> its one message parameter and how the message
 * quotes it: a backquoted value is the raw parameter, a double-quoted
 * one keeps its quotes (Spark renders config names that way).
 */
static const struct {
	const char *prefix;
	const char *name;
	char quote;
	bool keep;
} params[] = {
	{ "ARTIFACT_ALREADY_EXISTS", "normalizedRemoteRelativePath", '`',
	    false },
	{ "CANNOT_MODIFY_CONFIG", "key", '"', true },
	{ "INVALID_ARTIFACT_PATH", "name", '`', false },
	{ "INVALID_HANDLE", "handle", '`', false },
	{ "PATH_NOT_FOUND", "path", '`', false },
	{ "SQL_CONF_NOT_FOUND", "sqlConf", '"', true },
};

void
sc_srv_error_set_max_metadata(int64_t bytes)
{
	max_metadata = bytes;
}

static bool
has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

const char *const *
sc_srv_error_classes(const struct sc_error *err)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (has_prefix(err->errclass, kinds[i].prefix))
			return kinds[i].classes;
	return c_spark;
}

bool
sc_srv_error_param(const struct sc_error *err, const char **name, char *value,
    size_t valuesz)
{
	const char *p, *q;
	size_t i, n;

	if (err->errclass[0] == '\0')
		return false;
	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		if (!has_prefix(err->errclass, params[i].prefix))
			continue;
		/* The text after "[CLASS] ". */
		if ((p = strstr(err->msg, "] ")) == NULL)
			return false;
		if ((p = strchr(p + 2, params[i].quote)) == NULL ||
		    (q = strchr(p + 1, params[i].quote)) == NULL)
			return false;
		if (params[i].keep)
			q++;
		else
			p++;
		n = (size_t)(q - p);
		if (n >= valuesz)
			return false;
		memcpy(value, p, n);
		value[n] = '\0';
		*name = params[i].name;
		return true;
	}
	return false;
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

/*
 * Cut text to at most room bytes, ending a cut text with "..." on a
 * UTF-8 character boundary (commons-lang abbreviate, as Spark does).
 */
static void
fit_text(char *text, size_t room)
{
	size_t n = strlen(text);

	if (n <= room)
		return;
	if (room < 3) {
		text[0] = '\0';
		return;
	}
	n = room - 3;
	while (n > 0 && ((unsigned char)text[n] & 0xc0) == 0x80)
		n--; /* do not split a UTF-8 sequence */
	memcpy(text + n, "...", 4);
}

int
sc_srv_error(struct sc_error *err, const char *errclass, const char *sqlstate,
    const char *fmt, ...)
{
	/* sizeof does not dereference; err may be NULL (checked below). */
	/* cppcheck-suppress ctunullpointer */
	char text[sizeof(err->msg)];
	char prefix[sizeof(err->errclass) + 3];
	char suffix[sizeof(err->sqlstate) + 12];
	va_list ap;
	size_t fixed;

	if (err == NULL)
		return -1;
	if (errclass == NULL)
		errclass = "";
	if (sqlstate == NULL)
		sqlstate = "";
	va_start(ap, fmt);
	if (vsnprintf(text, sizeof(text), fmt, ap) < 0)
		snprintf(text, sizeof(text), "unformattable error message");
	va_end(ap);

	sc_error_init(err);
	err->status = SC_ST_FAILED;
	err->rpc_code = SC_GRPC_INTERNAL;
	snprintf(err->errclass, sizeof(err->errclass), "%s", errclass);
	snprintf(err->sqlstate, sizeof(err->sqlstate), "%s", sqlstate);
	prefix[0] = suffix[0] = '\0';
	if (err->errclass[0] != '\0')
		snprintf(prefix, sizeof(prefix), "[%s] ", err->errclass);
	if (err->sqlstate[0] != '\0')
		snprintf(suffix, sizeof(suffix), " SQLSTATE: %s",
		    err->sqlstate);
	fixed = strlen(prefix) + strlen(suffix) + 1;
	fit_text(text, sizeof(err->msg) > fixed ? sizeof(err->msg) - fixed : 0);
	/* fit_text() made room, so this cannot truncate; checked anyway. */
	if (snprintf(err->msg, sizeof(err->msg), "%s%s%s", prefix, text,
		suffix) >= (int)sizeof(err->msg))
		err->msg[sizeof(err->msg) - 1] = '\0';
	return -1;
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
	sc_buf_addch(&cj, '[', NULL);
	for (i = 0; classes[i] != NULL; i++) {
		if (i > 0)
			sc_buf_addch(&cj, ',', NULL);
		json_str(&cj, classes[i]);
	}
	sc_buf_addch(&cj, ']', NULL);
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
	size_t len, i;
	int code;

	code = err->rpc_code == -1 ? SC_GRPC_INTERNAL : err->rpc_code;
	snprintf(msg, sizeof(msg), "%s", err->msg);
	fit_text(msg, MAX_STATUS_MSG);
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
	sc_buf_addch(&cj, '[', NULL);
	for (i = 0; classes[i] != NULL; i++) {
		if (i > 0)
			sc_buf_addch(&cj, ',', NULL);
		json_str(&cj, classes[i]);
	}
	sc_buf_addch(&cj, ']', NULL);
	se.classes_json = (const char *)cj.data;

	sc_buf_init(&pj, SC_BUF_UNLIMITED);
	if (err->errclass[0] != '\0') {
		sc_buf_addch(&pj, '{', NULL);
		if (sc_srv_error_param(err, &pname, pvalue, sizeof(pvalue))) {
			json_str(&pj, pname);
			sc_buf_addch(&pj, ':', NULL);
			json_str(&pj, pvalue);
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
