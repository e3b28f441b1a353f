/* SPDX-License-Identifier: MIT */

/*
 * srverror.h: Spark errors as values (srverror.c).  Building one needs
 * only lib/core; sending one to a client is sc_srv_finish_error()
 * (server.h, in srverror_rpc.c).
 */

#ifndef SC_SRVERROR_H
#define SC_SRVERROR_H

#include <stdbool.h>
#include <stddef.h>

struct sc_error;

/*
 * Fill err with a Spark error: status SC_ST_FAILED, rpc_code INTERNAL,
 * errclass and sqlstate set, msg "[CLASS] text SQLSTATE: xxxxx" with
 * text cut (see sc_srv_error_fit()) so that the whole fits err->msg.
 * errclass and sqlstate may be NULL (none).  Returns -1.
 */
int sc_srv_error(struct sc_error *err, const char *errclass,
    const char *sqlstate, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * How a failed Scala require() (a java.lang.IllegalArgumentException
 * without an error class) begins its message; an error made with
 * sc_srv_error(err, NULL, NULL, SC_SRV_REQUIREMENT "...") is reported
 * with that exception's class hierarchy.
 */
#define SC_SRV_REQUIREMENT "requirement failed: "

/*
 * The Java class hierarchy Spark would report for err, most specific
 * first and ending with "java.lang.Object" (NULL-terminated, static).
 * [0] is ErrorInfo.reason, e.g. "org.apache.spark.SparkSQLException" for
 * INVALID_HANDLE and INVALID_CURSOR errors.
 */
const char *const *sc_srv_error_classes(const struct sc_error *err);

/*
 * The message parameter of err, if its class has one sctk can recover
 * from the message (INVALID_HANDLE.* -> handle, SQL_CONF_NOT_FOUND ->
 * sqlConf, ...): true with *name (static) and the value in value.
 */
bool sc_srv_error_param(const struct sc_error *err, const char **name,
    char *value, size_t valuesz);
/*
 * The name of a further message parameter err's class has in Spark, whose
 * value sctk gives as "" (PARSE_SYNTAX_ERROR's hint), or NULL.
 */
const char *sc_srv_error_param_extra(const struct sc_error *err);

/*
 * Give err Spark's query context: the fragment text[start..stop] (the
 * offsets of its first and last characters) of the SQL text, and the
 * summary Spark writes ("== SQL (line L, position P) ==", the line, a
 * caret under each character of the fragment on it).  Nothing when
 * stop is not within text.
 */
void sc_srv_error_context(struct sc_error *err, const char *text, size_t start,
    size_t stop);

/*
 * Cut the NUL-terminated text to at most room bytes as Spark does
 * (commons-lang's abbreviate): a cut text ends with "...", and never in
 * the middle of a UTF-8 sequence.
 */
void sc_srv_error_fit(char *text, size_t room);

#endif
