/* SPDX-License-Identifier: MIT */

/*
 * error.c: struct sc_error, the status and exit-code tables, and the
 * google.rpc.Status details Spark puts in grpc-status-details-bin.
 */

#include "core/error.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/protocol.h"
#include "core/xmem.h"
#include "core/banned.h"

#define SPARK_DOMAIN "org.apache.spark"

/*
 * Drop an incomplete UTF-8 sequence at the end of s, left there when a
 * longer text was cut to fit, so a truncated message stays valid text.
 */
static void
trim_partial_utf8(char *s)
{
	size_t i = strlen(s), k = 0, need;
	unsigned char c;

	while (i > 0 && k < 3 && ((unsigned char)s[i - 1] & 0xc0) == 0x80) {
		i--;
		k++;
	}
	if (i == 0)
		return;
	c = (unsigned char)s[i - 1];
	if (c < 0xc0)
		return; /* ASCII, or stray continuation bytes */
	need = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
	if (k < need)
		s[i - 1] = '\0';
}

/* Copy src into dst (size dstsz >= 1), cut to fit. */
static void
copy_text(char *dst, size_t dstsz, const char *src)
{
	size_t n = strlen(src);

	if (n < dstsz) {
		memmove(dst, src, n + 1);
		return;
	}
	memmove(dst, src, dstsz - 1);
	dst[dstsz - 1] = '\0';
	trim_partial_utf8(dst);
}

/* Copy src into dst only if it fits whole; returns whether it did. */
static bool
copy_whole(char *dst, size_t dstsz, const char *src)
{
	size_t n = strlen(src);

	if (n >= dstsz)
		return false;
	memcpy(dst, src, n + 1);
	return true;
}

void
sc_error_init(struct sc_error *err)
{
	memset(err, 0, sizeof(*err));
	err->status = SC_ST_OK;
	err->rpc_code = -1;
	err->sys_errno = 0;
	err->retry_delay_ms = -1;
	err->ctx_start = -1;
}

/*
 * Format into a local buffer first: callers may pass err->msg itself as
 * an argument ("cannot upload '%s': %s", name, err->msg).
 */
static void
set_v(struct sc_error *err, enum sc_status status, int errnum, const char *fmt,
    va_list ap)
{
	char text[sizeof(err->msg)];
	char ebuf[256];
	size_t n;
	int r;

	r = vsnprintf(text, sizeof(text), fmt, ap);
	if (r < 0)
		copy_text(text, sizeof(text), "unformattable error message");
	else if ((size_t)r >= sizeof(text))
		trim_partial_utf8(text);
	if (errnum != 0) {
		n = strlen(text);
		r = snprintf(text + n, sizeof(text) - n, ": %s",
		    strerror_r(errnum, ebuf, sizeof(ebuf)));
		if (r > 0 && (size_t)r >= sizeof(text) - n)
			trim_partial_utf8(text);
	}
	sc_error_init(err);
	err->status = status;
	err->sys_errno = errnum;
	memcpy(err->msg, text, strlen(text) + 1);
}

int
sc_error_set(struct sc_error *err, enum sc_status status, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	set_v(err, status, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int
sc_error_set_errno(struct sc_error *err, enum sc_status status, int errnum,
    const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	set_v(err, status, errnum, fmt, ap);
	va_end(ap);
	return -1;
}

void
sc_error_prefix(struct sc_error *err, const char *prefix)
{
	char text[sizeof(err->msg)];
	int r;

	if (err == NULL)
		return;
	r = snprintf(text, sizeof(text), "%s%s", prefix, err->msg);
	if (r > 0 && (size_t)r >= sizeof(text))
		trim_partial_utf8(text);
	memcpy(err->msg, text, strlen(text) + 1);
}

int
sc_error_from_grpc(struct sc_error *err, int code, const char *msg,
    const void *details, size_t details_len)
{
	if (err == NULL)
		return -1;
	sc_error_init(err);
	err->status = sc_status_from_grpc(code);
	err->rpc_code = code;
	if (msg != NULL && msg[0] != '\0')
		copy_text(err->msg, sizeof(err->msg), msg);
	else
		snprintf(err->msg, sizeof(err->msg), "server returned %s",
		    sc_grpc_code_name(code));
	if (details != NULL && details_len > 0)
		(void)sc_error_decode_details(err, details, details_len);
	if (err->errclass[0] == '\0' && msg != NULL)
		(void)sc_error_class_from_message(msg, err->errclass,
		    sizeof(err->errclass));
	return -1;
}

/*
 * gRPC's own words for a transport failure, ours, and what it means for
 * a caller who has to decide whether to try again later.  First match
 * wins, so the specific come before the general.
 *
 * Only failures to connect are classified: a connection that was up and
 * went away (a restart, a network blip) is always worth another try.
 * Of the failures to connect, those that no amount of waiting fixes are
 * the client's or the address's configuration: a certificate that does
 * not verify (8, as an authentication failure), TLS against plain text
 * or the other way round, and a port that speaks something other than
 * gRPC (7, the protocol is not the one expected).  A name that does not
 * resolve stays 4: DNS can be down for a while.
 */
enum cause_kind {
	TEMPORARY = 0, /* SC_ST_UNAVAILABLE: nobody answered (yet) */
	NOT_GRPC, /* SC_ST_PROTOCOL at connect */
	NOT_TRUSTED /* SC_ST_DENIED at connect */
};

static const struct {
	const char *grpc; /* a substring of the core's message */
	const char *ours;
	enum cause_kind kind;
} causes[] = {
	{ "Connection refused", "connection refused", TEMPORARY },
	{ "before receiving SETTINGS frame",
	    "the connection was accepted, but the server sent nothing",
	    TEMPORARY },
	{ "Connection timed out", "timed out", TEMPORARY },
	{ "Timeout occurred", "timed out", TEMPORARY },
	{ "Deadline Exceeded", "timed out", TEMPORARY },
	{ "Domain name not found", "name not resolved", TEMPORARY },
	{ "DNS resolution failed", "name not resolved", TEMPORARY },
	{ "Network is unreachable", "network unreachable", TEMPORARY },
	{ "No route to host", "no route to host", TEMPORARY },
	{ "certificate verify failed",
	    "TLS certificate verify failed; check --ca-file", NOT_TRUSTED },
	{ "is not in peer certificate",
	    "TLS certificate is for another host name", NOT_TRUSTED },
	{ "wrong version number",
	    "TLS handshake failed: the server does not speak TLS, so "
	    "connect without --tls or use_ssl=true",
	    NOT_GRPC },
	{ "andshake failed", "TLS handshake failed", NOT_GRPC },
	{ "http1.x server", "not a gRPC server (it answered in HTTP/1.x)",
	    NOT_GRPC },
	{ "arsing HTTP/2", "not a gRPC server (it does not speak HTTP/2)",
	    NOT_GRPC },
	{ "ALPN negotiation failed",
	    "TLS handshake failed: the server does not offer HTTP/2",
	    NOT_GRPC },
	/*
	 * A TLS server sent plain text closes the connection before a
	 * byte comes back; at connect time that is what "Socket closed"
	 * means (a server going away says GOAWAY, one not running
	 * refuses the connection).
	 */
	{ "Socket closed",
	    "the server closed the connection at once; if it expects TLS, "
	    "use --tls or use_ssl=true",
	    NOT_GRPC },
	{ "Connection reset by peer", "connection reset", TEMPORARY },
	{ "Broken pipe", "connection closed by the server", TEMPORARY },
	{ "GOAWAY received", "the server is going away", TEMPORARY },
	{ "keepalive watchdog timeout", "no answer to keepalive pings",
	    TEMPORARY },
};

/* Our words for a connection that was up and went away. */
static const struct {
	const char *grpc;
	const char *ours;
} lost[] = {
	{ "Socket closed", "connection closed by the server" },
};

/* The text after the last ": " of s, its first letter lowered. */
static void
last_cause(const char *s, char *out, size_t outsz)
{
	const char *p, *c = s;

	for (p = s; (p = strstr(p, ": ")) != NULL; p += 2)
		c = p + 2;
	copy_text(out, outsz, c);
	if (out[0] >= 'A' && out[0] <= 'Z' && !(out[1] >= 'A' && out[1] <= 'Z'))
		out[0] = (char)(out[0] - 'A' + 'a');
}

void
sc_error_reword_transport(struct sc_error *err, const char *target)
{
	char cause[256];
	const char *why = NULL, *how;
	enum cause_kind kind = TEMPORARY;
	bool connect;
	size_t i;

	if (err == NULL || err->errclass[0] != '\0')
		return;
	if (err->rpc_code == SC_GRPC_DEADLINE_EXCEEDED &&
	    strcmp(err->msg, "Deadline Exceeded") == 0) {
		snprintf(err->msg, sizeof(err->msg),
		    "timed out waiting for '%s'", target);
		return;
	}
	if (err->rpc_code != SC_GRPC_UNAVAILABLE)
		return;
	connect = strncmp(err->msg, "failed to connect to all addresses", 34) ==
		0 ||
	    strncmp(err->msg, "DNS resolution failed", 21) == 0;
	for (i = 0; !connect && i < SC_NELEM(lost) && why == NULL; i++)
		if (strstr(err->msg, lost[i].grpc) != NULL)
			why = lost[i].ours;
	for (i = 0; i < SC_NELEM(causes) && why == NULL; i++)
		if (strstr(err->msg, causes[i].grpc) != NULL) {
			why = causes[i].ours;
			kind = causes[i].kind;
		}
	if (why == NULL) {
		if (!connect)
			return; /* not the core's words: the server's own */
		last_cause(err->msg, cause, sizeof(cause));
		why = cause;
	}
	how = connect ? "cannot connect to" : "lost the connection to";
	snprintf(err->msg, sizeof(err->msg), "%s '%s': %s", how, target, why);
	trim_partial_utf8(err->msg);
	if (connect && kind == NOT_GRPC)
		err->status = SC_ST_PROTOCOL;
	else if (connect && kind == NOT_TRUSTED)
		err->status = SC_ST_DENIED;
}

enum sc_status
sc_status_from_grpc(int code)
{
	switch (code) {
	case SC_GRPC_OK:
		return SC_ST_OK;
	case SC_GRPC_NOT_FOUND:
		return SC_ST_NOTFOUND;
	case SC_GRPC_UNAVAILABLE:
		return SC_ST_UNAVAILABLE;
	case SC_GRPC_DEADLINE_EXCEEDED:
		return SC_ST_TIMEOUT;
	case SC_GRPC_DATA_LOSS:
		return SC_ST_INTEGRITY;
	case SC_GRPC_UNIMPLEMENTED:
		return SC_ST_PROTOCOL;
	case SC_GRPC_PERMISSION_DENIED:
	case SC_GRPC_UNAUTHENTICATED:
		return SC_ST_DENIED;
	default:
		return SC_ST_FAILED;
	}
}

int
sc_exit_code(const struct sc_error *err)
{
	if (err == NULL || (int)err->status < 0 || (int)err->status > SC_ST_MAX)
		return SC_EXIT_INTERNAL;
	return (int)err->status;
}

const char *
sc_grpc_code_name(int code)
{
	static const char *const names[] = { "OK", "CANCELLED", "UNKNOWN",
		"INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
		"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
		"FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
		"UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
		"UNAUTHENTICATED" };

	if (code < 0 || (size_t)code >= SC_NELEM(names))
		return "UNKNOWN_CODE";
	return names[code];
}

/*
 * Spark error classes are dot-separated parts of upper-case letters,
 * digits and '_', each part starting with a letter or '_'
 * ("INVALID_HANDLE.FORMAT", "_LEGACY_ERROR_TEMP_1234").
 */
int
sc_error_class_from_message(const char *msg, char *out, size_t outsz)
{
	const char *p, *start;
	size_t n;
	bool part_start = true;

	if (msg == NULL || msg[0] != '[')
		return -1;
	start = p = msg + 1;
	for (;; p++) {
		if (*p == ']')
			break;
		if (*p == '.') {
			if (part_start)
				return -1; /* empty part */
			part_start = true;
			continue;
		}
		if ((*p >= 'A' && *p <= 'Z') || *p == '_')
			part_start = false;
		else if (*p >= '0' && *p <= '9' && !part_start)
			continue;
		else
			return -1; /* lower case, space, NUL, ... */
	}
	if (part_start)
		return -1; /* "[]" or "[A.]" */
	n = (size_t)(p - start);
	if (n >= outsz)
		return -1;
	memcpy(out, start, n);
	out[n] = '\0';
	return 0;
}

static Google__Rpc__ErrorInfo__MetadataEntry *
new_entry(const char *key, const char *value)
{
	Google__Rpc__ErrorInfo__MetadataEntry *e;

	e = sc_xmalloc(sizeof(*e));
	google__rpc__error_info__metadata_entry__init(e);
	e->key = (char *)key;
	e->value = (char *)value;
	return e;
}

uint8_t *
sc_error_encode_details(const struct sc_spark_error *se, size_t *lenp)
{
	Google__Rpc__Status status = GOOGLE__RPC__STATUS__INIT;
	Google__Rpc__ErrorInfo info = GOOGLE__RPC__ERROR_INFO__INIT;
	Google__Rpc__RetryInfo retry = GOOGLE__RPC__RETRY_INFO__INIT;
	Google__Protobuf__Duration delay = GOOGLE__PROTOBUF__DURATION__INIT;
	Google__Protobuf__Any anys[2];
	Google__Protobuf__Any *anyp[2];
	Google__Rpc__ErrorInfo__MetadataEntry *meta[5];
	size_t i, nmeta = 0;
	uint8_t *out;

	/* protobuf-c only reads these strings; the casts drop const. */
	if (se->errclass != NULL)
		meta[nmeta++] = new_entry("errorClass", se->errclass);
	if (se->sqlstate != NULL)
		meta[nmeta++] = new_entry("sqlState", se->sqlstate);
	if (se->params_json != NULL)
		meta[nmeta++] = new_entry("messageParameters", se->params_json);
	if (se->classes_json != NULL)
		meta[nmeta++] = new_entry("classes", se->classes_json);
	if (se->error_id != NULL)
		meta[nmeta++] = new_entry("errorId", se->error_id);
	info.reason = (char *)(se->reason != NULL ? se->reason : "");
	info.domain = (char *)SPARK_DOMAIN;
	info.n_metadata = nmeta;
	info.metadata = nmeta ? meta : NULL;

	status.code = se->code;
	status.message = (char *)(se->message != NULL ? se->message : "");
	sc_proto_any_pack(&anys[0], &info.base);
	anyp[0] = &anys[0];
	status.n_details = 1;
	if (se->retry_delay_ms >= 0) {
		delay.seconds = se->retry_delay_ms / 1000;
		delay.nanos = (int32_t)(se->retry_delay_ms % 1000) * 1000000;
		retry.retry_delay = &delay;
		sc_proto_any_pack(&anys[1], &retry.base);
		anyp[1] = &anys[1];
		status.n_details = 2;
	}
	status.details = anyp;

	out = sc_proto_pack_alloc(&status.base, lenp);

	for (i = 0; i < status.n_details; i++)
		sc_proto_any_release(&anys[i]);
	for (i = 0; i < nmeta; i++)
		free(meta[i]);
	return out;
}

/* Milliseconds in a Duration, clamped to [0, INT_MAX]. */
static int
duration_ms(const Google__Protobuf__Duration *d)
{
	int64_t ms;

	if (d == NULL || d->seconds < 0 || d->nanos < 0)
		return 0;
	if (d->seconds > INT_MAX / 1000)
		return INT_MAX;
	ms = d->seconds * 1000 + d->nanos / 1000000;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

int
sc_error_decode_details(struct sc_error *err, const void *p, size_t n)
{
	Google__Rpc__Status *st;
	Google__Rpc__ErrorInfo *info = NULL;
	Google__Rpc__RetryInfo *retry = NULL;
	const char *key, *val;
	char errclass[sizeof(err->errclass)];
	char sqlstate[sizeof(err->sqlstate)];
	char error_id[sizeof(err->error_id)];
	int delay = -1, rc = -1;
	size_t i;

	st = sc_proto_unpack(&google__rpc__status__descriptor, p, n, NULL);
	if (st == NULL)
		return -1;
	for (i = 0; i < st->n_details; i++) {
		const Google__Protobuf__Any *any = st->details[i];

		if (info == NULL &&
		    sc_proto_any_is(any,
			&google__rpc__error_info__descriptor)) {
			info = sc_proto_any_unpack(any,
			    &google__rpc__error_info__descriptor, NULL);
			if (info == NULL)
				goto out;
		} else if (retry == NULL &&
		    sc_proto_any_is(any,
			&google__rpc__retry_info__descriptor)) {
			retry = sc_proto_any_unpack(any,
			    &google__rpc__retry_info__descriptor, NULL);
			if (retry == NULL)
				goto out;
		}
	}

	/* Decode everything before touching err, which stays as is on -1. */
	errclass[0] = sqlstate[0] = error_id[0] = '\0';
	for (i = 0; info != NULL && i < info->n_metadata; i++) {
		key = info->metadata[i]->key;
		val = info->metadata[i]->value;
		if (key == NULL || val == NULL)
			continue;
		/* Oversized values are dropped, never truncated. */
		if (strcmp(key, "errorClass") == 0)
			(void)copy_whole(errclass, sizeof(errclass), val);
		else if (strcmp(key, "sqlState") == 0)
			(void)copy_whole(sqlstate, sizeof(sqlstate), val);
		else if (strcmp(key, "errorId") == 0)
			(void)copy_whole(error_id, sizeof(error_id), val);
	}
	if (retry != NULL)
		delay = duration_ms(retry->retry_delay);

	if (err != NULL) {
		if (errclass[0] != '\0')
			copy_whole(err->errclass, sizeof(err->errclass),
			    errclass);
		if (sqlstate[0] != '\0')
			copy_whole(err->sqlstate, sizeof(err->sqlstate),
			    sqlstate);
		if (error_id[0] != '\0')
			copy_whole(err->error_id, sizeof(err->error_id),
			    error_id);
		if (delay >= 0)
			err->retry_delay_ms = delay;
	}
	rc = 0;
out:
	if (info != NULL)
		protobuf_c_message_free_unpacked(&info->base, NULL);
	if (retry != NULL)
		protobuf_c_message_free_unpacked(&retry->base, NULL);
	protobuf_c_message_free_unpacked(&st->base, NULL);
	return rc;
}
