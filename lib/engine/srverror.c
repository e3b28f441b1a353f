/* SPDX-License-Identifier: MIT */

/*
 * srverror.c: Spark errors as values.  Filling a struct sc_error with an
 * error class, a SQLSTATE and Spark's message form, and what Spark would
 * report about a class (its Java exception chain, its one message
 * parameter).  Nothing here talks to a client: srverror_rpc.c sends such
 * an error as a call's status, so code that only raises errors (the
 * engine) links without the RPC layer or the session manager.
 */

#include "engine/srverror.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/banned.h"

#define TAIL "java.lang.Exception", "java.lang.Throwable", "java.lang.Object"
#define RTAIL "java.lang.RuntimeException", TAIL

static const char *const c_spark[] = { "org.apache.spark.SparkException", TAIL,
	NULL };
static const char *const c_sql[] = { "org.apache.spark.SparkSQLException",
	"java.sql.SQLException", TAIL, NULL };
static const char *const c_analysis[] = {
	"org.apache.spark.sql.AnalysisException", TAIL, NULL
};
/* What Spark's analyzer raises once it has a plan to attach. */
static const char *const c_extended[] = {
	"org.apache.spark.sql.catalyst.ExtendedAnalysisException",
	"org.apache.spark.sql.AnalysisException", TAIL, NULL
};
static const char *const c_parse[] = {
	"org.apache.spark.sql.catalyst.parser.ParseException",
	"org.apache.spark.sql.AnalysisException", TAIL, NULL
};
static const char *const c_nonamespace[] = {
	"org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException",
	"org.apache.spark.sql.catalyst.analysis.NoSuchDatabaseException",
	"org.apache.spark.sql.AnalysisException", TAIL, NULL
};
static const char *const c_dbexists[] = {
	"org.apache.spark.sql.catalyst.analysis.DatabaseAlreadyExistsException",
	"org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException",
	"org.apache.spark.sql.AnalysisException", TAIL, NULL
};
static const char *const c_tempexists[] = {
	"org.apache.spark.sql.catalyst.analysis.TempTableAlreadyExistsException",
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
/* Scala's require(): a plain IllegalArgumentException, no error class. */
static const char *const c_require[] = { "java.lang.IllegalArgumentException",
	RTAIL, NULL };
static const char *const c_numfmt[] = {
	"org.apache.spark.SparkNumberFormatException",
	"java.lang.NumberFormatException", "java.lang.IllegalArgumentException",
	RTAIL, NULL
};
static const char *const c_datetime[] = {
	"org.apache.spark.SparkDateTimeException",
	"java.time.DateTimeException", RTAIL, NULL
};
static const char *const c_arith[] = {
	"org.apache.spark.SparkArithmeticException",
	"java.lang.ArithmeticException", RTAIL, NULL
};
static const char *const c_index[] = {
	"org.apache.spark.SparkArrayIndexOutOfBoundsException",
	"java.lang.ArrayIndexOutOfBoundsException",
	"java.lang.IndexOutOfBoundsException", RTAIL, NULL
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

/*
 * Error class prefix -> the exception Spark 4 raises for it, as its
 * ErrorInfo "classes" show (PySpark picks its Python class from them:
 * AnalysisException, ArithmeticException, ...).  The longest matching
 * prefix wins; a class not listed is a SparkException.
 */
static const struct {
	const char *prefix;
	const char *const *classes;
} kinds[] = {
	{ "AMBIGUOUS_", c_analysis },
	{ "ARITHMETIC_OVERFLOW", c_arith },
	{ "ARTIFACT_ALREADY_EXISTS", c_runtime },
	{ "CANNOT_MODIFY_CONFIG", c_analysis },
	{ "CANNOT_PARSE_TIMESTAMP", c_datetime },
	{ "CAST_INVALID_INPUT", c_numfmt }, /* to a date or time: see below */
	{ "CAST_OVERFLOW", c_arith },
	{ "DATATYPE_MISMATCH", c_extended },
	{ "DATETIME_FIELD_OUT_OF_BOUNDS", c_datetime },
	{ "DISTINCT_WINDOW_FUNCTION_UNSUPPORTED", c_extended },
	{ "DIVIDE_BY_ZERO", c_arith },
	{ "DUPLICATED_MAP_KEY", c_runtime },
	{ "EXCEED_LIMIT_LENGTH", c_runtime },
	{ "FAILED_TO_PARSE_TOO_COMPLEX", c_parse },
	{ "FIELD_NOT_FOUND", c_analysis },
	{ "GROUP_BY_AGGREGATE", c_extended },
	{ "GROUP_BY_POS_OUT_OF_RANGE", c_analysis },
	{ "INCOMPATIBLE_COLUMN_TYPE", c_extended },
	{ "INCONSISTENT_COLUMN_TYPE", c_analysis },
	{ "INVALID_ARRAY_INDEX", c_index },
	{ "INVALID_ARTIFACT_PATH", c_runtime },
	{ "INVALID_ARTIFACT_STREAM", c_runtime },
	{ "INVALID_CONF_VALUE", c_illegal },
	{ "INVALID_CURSOR", c_sql },
	{ "INVALID_EXTRACT_", c_analysis },
	{ "INVALID_HANDLE", c_sql },
	{ "INVALID_LAMBDA_FUNCTION_CALL", c_analysis },
	{ "INVALID_PARAMETER_VALUE", c_illegal },
	{ "INVALID_PLAN_INPUT", c_illegal },
	{ "INVALID_SQL_SYNTAX", c_analysis },
	{ "INVALID_TYPED_LITERAL", c_parse },
	{ "MISSING_AGGREGATION", c_extended },
	{ "NULL_MAP_KEY", c_runtime },
	{ "NUM_COLUMNS_MISMATCH", c_extended },
	{ "ORDER_BY_POS_OUT_OF_RANGE", c_analysis },
	{ "PARSE_SYNTAX_ERROR", c_parse },
	{ "PATH_NOT_FOUND", c_analysis },
	{ "SCHEMA_ALREADY_EXISTS", c_dbexists },
	{ "SCHEMA_NOT_EMPTY", c_analysis },
	{ "SCHEMA_NOT_FOUND", c_nonamespace },
	{ "SQL_CONF_NOT_FOUND", c_nosuch },
	{ "TABLE_OR_VIEW_ALREADY_EXISTS", c_analysis },
	{ "TABLE_OR_VIEW_NOT_FOUND", c_extended },
	{ "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS", c_tempexists },
	{ "UNABLE_TO_ACQUIRE_MEMORY", c_oom },
	{ "UNBOUND_SQL_PARAMETER", c_extended },
	{ "UNAUTHENTICATED", c_security },
	{ "UNRESOLVED_", c_analysis },
	{ "UNRESOLVED_COLUMN", c_extended },
	{ "UNSUPPORTED_FEATURE", c_unsupported },
	{ "UNSUPPORTED_FEATURE.DROP_DATABASE", c_analysis },
	{ "UNSUPPORTED_GENERATOR", c_analysis },
	{ "UNSUPPORTED_GROUPING_EXPRESSION", c_extended },
	{ "USER_RAISED_EXCEPTION", c_runtime },
	{ "WRONG_NUM_ARGS", c_analysis },
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
	const char *extra; /* a further parameter Spark gives, or NULL */
} params[] = {
	{ "ARTIFACT_ALREADY_EXISTS", "normalizedRemoteRelativePath", '`', false,
	    NULL },
	{ "CANNOT_MODIFY_CONFIG", "key", '"', true, NULL },
	{ "INVALID_ARTIFACT_PATH", "name", '`', false, NULL },
	{ "INVALID_HANDLE", "handle", '`', false, NULL },
	{ "PARSE_SYNTAX_ERROR", "error", '\'', true, "hint" },
	{ "PATH_NOT_FOUND", "path", '`', false, NULL },
	{ "SCHEMA_NOT_FOUND", "schemaName", '`', true, NULL },
	{ "SQL_CONF_NOT_FOUND", "sqlConf", '"', true, NULL },
	{ "TABLE_OR_VIEW_NOT_FOUND", "relationName", '`', true, NULL },
	{ "UNRESOLVED_COLUMN", "objectName", '`', true, NULL },
};

static bool
has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

const char *const *
sc_srv_error_classes(const struct sc_error *err)
{
	const char *const *best = NULL;
	size_t i, best_i = 0;

	if (err->errclass[0] == '\0')
		return has_prefix(err->msg, SC_SRV_REQUIREMENT) ? c_require
								: c_spark;
	/* A bad date or time is Spark's DateTimeException, a number's not. */
	if (strcmp(err->errclass, "CAST_INVALID_INPUT") == 0 &&
	    (strstr(err->msg, "cast to \"DATE\"") != NULL ||
		strstr(err->msg, "cast to \"TIMESTAMP") != NULL))
		return c_datetime;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (has_prefix(err->errclass, kinds[i].prefix) &&
		    (best == NULL ||
			strlen(kinds[i].prefix) >
			    strlen(kinds[best_i].prefix))) {
			best = kinds[i].classes;
			best_i = i;
		}
	return best != NULL ? best : c_spark;
}

bool
sc_srv_error_param(const struct sc_error *err, const char **name, char *value,
    size_t valuesz)
{
	const char *p, *q;
	size_t i, n;

	if (err->errclass[0] == '\0')
		return false;
	/* Spark's error parameter at the end of the text is not quoted. */
	if (strcmp(err->errclass, "PARSE_SYNTAX_ERROR") == 0 &&
	    strstr(err->msg, "at or near end of input.") != NULL &&
	    valuesz > strlen("end of input")) {
		*name = "error";
		memcpy(value, "end of input", strlen("end of input") + 1);
		return true;
	}
	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		if (!has_prefix(err->errclass, params[i].prefix))
			continue;
		/* The text after "[CLASS] ". */
		if ((p = strstr(err->msg, "] ")) == NULL)
			return false;
		if ((p = strchr(p + 2, params[i].quote)) == NULL ||
		    (q = strchr(p + 1, params[i].quote)) == NULL)
			return false;
		/* A qualified name: `a`.`b` is one parameter. */
		while (params[i].quote == '`' && q[1] == '.' && q[2] == '`' &&
		    strchr(q + 3, '`') != NULL)
			q = strchr(q + 3, '`');
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

void
sc_srv_error_fit(char *text, size_t room)
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
	sc_srv_error_fit(text,
	    sizeof(err->msg) > fixed ? sizeof(err->msg) - fixed : 0);
	/* sc_srv_error_fit() made room, so this cannot truncate; checked anyway. */
	if (snprintf(err->msg, sizeof(err->msg), "%s%s%s", prefix, text,
		suffix) >= (int)sizeof(err->msg))
		err->msg[sizeof(err->msg) - 1] = '\0';
	return -1;
}

const char *
sc_srv_error_param_extra(const struct sc_error *err)
{
	size_t i;

	if (err->errclass[0] == '\0')
		return NULL;
	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++)
		if (has_prefix(err->errclass, params[i].prefix))
			return params[i].extra;
	return NULL;
}

void
sc_srv_error_context(struct sc_error *err, const char *text, size_t start,
    size_t stop)
{
	size_t len = strlen(text), line = 1, bol = 0, eol, i, n, at;
	char *s;

	if (err == NULL || start > stop || stop >= len || stop > INT32_MAX)
		return;
	for (i = 0; i < start; i++)
		if (text[i] == '\n') {
			line++;
			bol = i + 1;
		}
	for (eol = start; eol < len && text[eol] != '\n'; eol++)
		;
	err->ctx_start = (int)start;
	err->ctx_stop = (int)stop;
	n = stop - start + 1;
	if (n >= sizeof(err->ctx_fragment))
		n = sizeof(err->ctx_fragment) - 1;
	memcpy(err->ctx_fragment, text + start, n);
	err->ctx_fragment[n] = '\0';
	s = err->ctx_summary;
	at = (size_t)snprintf(s, sizeof(err->ctx_summary),
	    "== SQL (line %zu, position %zu) ==\n%.*s\n", line, start - bol + 1,
	    (int)(eol - bol), text + bol);
	if (at >= sizeof(err->ctx_summary))
		return; /* a line longer than the summary: cut, no carets */
	for (i = bol; i <= stop && i < eol && at + 2 < sizeof(err->ctx_summary);
	     i++)
		s[at++] = i < start ? ' ' : '^';
	if (at + 1 < sizeof(err->ctx_summary))
		s[at++] = '\n';
	s[at < sizeof(err->ctx_summary) ? at : sizeof(err->ctx_summary) - 1] =
	    '\0';
}
