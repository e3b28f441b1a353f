/* SPDX-License-Identifier: MIT */

/*
 * test-error.c: struct sc_error, the gRPC -> status -> exit code tables,
 * error classes in messages, grpc-status-details-bin encode/decode, and
 * transport failures in our words instead of the gRPC core's.
 */

#include "core/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/protocol.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

static void
test_grpc_table(void)
{
	static const struct {
		int code;
		const char *name;
		enum sc_status status;
	} t[] = {
		{ 0, "OK", SC_ST_OK },
		{ 1, "CANCELLED", SC_ST_FAILED },
		{ 2, "UNKNOWN", SC_ST_FAILED },
		{ 3, "INVALID_ARGUMENT", SC_ST_FAILED },
		{ 4, "DEADLINE_EXCEEDED", SC_ST_TIMEOUT },
		{ 5, "NOT_FOUND", SC_ST_NOTFOUND },
		{ 6, "ALREADY_EXISTS", SC_ST_FAILED },
		{ 7, "PERMISSION_DENIED", SC_ST_DENIED },
		{ 8, "RESOURCE_EXHAUSTED", SC_ST_FAILED },
		{ 9, "FAILED_PRECONDITION", SC_ST_FAILED },
		{ 10, "ABORTED", SC_ST_FAILED },
		{ 11, "OUT_OF_RANGE", SC_ST_FAILED },
		{ 12, "UNIMPLEMENTED", SC_ST_PROTOCOL },
		{ 13, "INTERNAL", SC_ST_FAILED },
		{ 14, "UNAVAILABLE", SC_ST_UNAVAILABLE },
		{ 15, "DATA_LOSS", SC_ST_INTEGRITY },
		{ 16, "UNAUTHENTICATED", SC_ST_DENIED },
	};
	struct sc_error err;
	size_t i;

	for (i = 0; i < SC_NELEM(t); i++) {
		is_int(sc_status_from_grpc(t[i].code), t[i].status,
		    "grpc %d -> status %d", t[i].code, (int)t[i].status);
		is_str(sc_grpc_code_name(t[i].code), t[i].name,
		    "grpc %d has its name", t[i].code);
		sc_error_from_grpc(&err, t[i].code, "m", NULL, 0);
		is_int(sc_exit_code(&err), (int)t[i].status, "grpc %d exits %d",
		    t[i].code, (int)t[i].status);
	}
	is_int(sc_status_from_grpc(17), SC_ST_FAILED, "grpc 17 -> failed");
	is_int(sc_status_from_grpc(-1), SC_ST_FAILED, "grpc -1 -> failed");
	is_str(sc_grpc_code_name(17), "UNKNOWN_CODE", "name of 17");
	is_str(sc_grpc_code_name(-1), "UNKNOWN_CODE", "name of -1");
}

static void
test_set(void)
{
	struct sc_error err;
	char big[3000];
	size_t i, n;
	int rc;

	sc_error_init(&err);
	is_int(err.status, SC_ST_OK, "init: status ok");
	is_int(err.rpc_code, -1, "init: rpc_code -1");
	is_int(err.retry_delay_ms, -1, "init: retry_delay_ms -1");
	is_str(err.msg, "", "init: empty msg");

	rc = sc_error_set(&err, SC_ST_NOTFOUND, "no such operation '%s'", "x");
	is_int(rc, -1, "sc_error_set returns -1");
	is_int(err.status, SC_ST_NOTFOUND, "set: status");
	is_str(err.msg, "no such operation 'x'", "set: msg");
	is_int(err.sys_errno, 0, "set: errno 0");
	is_int(sc_error_set(NULL, SC_ST_IO, "x"), -1, "NULL err still -1");

	/* Spark fields are cleared by a later set. */
	snprintf(err.errclass, sizeof(err.errclass), "A.B");
	err.retry_delay_ms = 5;
	sc_error_set(&err, SC_ST_IO, "x");
	is_str(err.errclass, "", "set clears errclass");
	is_int(err.retry_delay_ms, -1, "set clears retry_delay_ms");
	is_int(err.rpc_code, -1, "set clears rpc_code");

	rc =
	    sc_error_set_errno(&err, SC_ST_IO, ENOENT, "cannot open '%s'", "f");
	is_int(rc, -1, "set_errno returns -1");
	is_str(err.msg, "cannot open 'f': No such file or directory",
	    "set_errno appends strerror");
	is_int(err.sys_errno, ENOENT, "set_errno records errno");
	is_int(err.status, SC_ST_IO, "set_errno status");

	/* The message may be an argument (prefixing an earlier error). */
	sc_error_set(&err, SC_ST_IO, "inner");
	sc_error_set(&err, SC_ST_FAILED, "outer: %s", err.msg);
	is_str(err.msg, "outer: inner", "err->msg as an argument");

	/* A long message is cut at a character boundary. */
	for (i = 0; i + 2 < sizeof(big); i += 2) {
		big[i] = (char)0xc3; /* U+00E9 */
		big[i + 1] = (char)0xa9;
	}
	big[i] = '\0';
	sc_error_set(&err, SC_ST_FAILED, "xy%s", big);
	n = strlen(err.msg);
	is_int(n, 1022, "long msg truncated to whole characters");
	ok((unsigned char)err.msg[n - 1] == 0xa9, "ends with a complete char");
	sc_error_set_errno(&err, SC_ST_FAILED, EIO, "%s", big);
	n = strlen(err.msg);
	ok(n < sizeof(err.msg) &&
		((unsigned char)err.msg[n - 1] == 0xa9 ||
		    (unsigned char)err.msg[n - 1] < 0x80),
	    "long msg + errno cut cleanly");

	is_int(sc_exit_code(NULL), SC_EXIT_INTERNAL, "exit code of NULL");
	err.status = (enum sc_status)42;
	is_int(sc_exit_code(&err), SC_EXIT_INTERNAL, "exit code of garbage");
}

static void
test_class(void)
{
	static const struct {
		const char *msg;
		const char *want; /* NULL: -1 */
	} t[] = {
		{ "[INVALID_HANDLE.OPERATION_NOT_FOUND] The handle `x` is "
		  "invalid. Operation not found. SQLSTATE: HY000",
		    "INVALID_HANDLE.OPERATION_NOT_FOUND" },
		{ "[INVALID_CURSOR.DISCONNECTED] The cursor is invalid.",
		    "INVALID_CURSOR.DISCONNECTED" },
		{ "[OPERATION_CANCELED] x", "OPERATION_CANCELED" },
		{ "[_LEGACY_ERROR_TEMP_1234] x", "_LEGACY_ERROR_TEMP_1234" },
		{ "[A]", "A" },
		{ "[A1.B2_C]", "A1.B2_C" },
		{ "no bracket", NULL },
		{ "", NULL },
		{ "[]", NULL },
		{ "[] text", NULL },
		{ "[INVALID_HANDLE.FORMAT", NULL },
		{ "[INVALID_HANDLE", NULL },
		{ "[lower_case] x", NULL },
		{ "[Mixed] x", NULL },
		{ "[A B] x", NULL },
		{ "[.A] x", NULL },
		{ "[A.] x", NULL },
		{ "[A..B] x", NULL },
		{ "[1A] x", NULL },
		{ " [A] x", NULL },
		{ "x [A] y", NULL },
	};
	char out[128], small[5];
	size_t i;
	int rc;

	for (i = 0; i < SC_NELEM(t); i++) {
		snprintf(out, sizeof(out), "untouched");
		rc = sc_error_class_from_message(t[i].msg, out, sizeof(out));
		if (t[i].want == NULL) {
			is_int(rc, -1, "no class in '%s'", t[i].msg);
			is_str(out, "untouched", "out untouched for '%s'",
			    t[i].msg);
		} else {
			is_int(rc, 0, "class in '%s'", t[i].msg);
			is_str(out, t[i].want, "class %s", t[i].want);
		}
	}
	is_int(sc_error_class_from_message(NULL, out, sizeof(out)), -1,
	    "NULL message");
	is_int(sc_error_class_from_message("[ABCD] x", small, sizeof(small)), 0,
	    "class that just fits");
	is_str(small, "ABCD", "class that just fits: value");
	is_int(sc_error_class_from_message("[ABCDE] x", small, sizeof(small)),
	    -1, "class too long for out");
}

static void
test_from_grpc(void)
{
	struct sc_error err;
	int rc;

	rc = sc_error_from_grpc(&err, SC_GRPC_INTERNAL,
	    "[INVALID_HANDLE.OPERATION_NOT_FOUND] The handle `a` is invalid.",
	    NULL, 0);
	is_int(rc, -1, "from_grpc returns -1");
	is_int(err.status, SC_ST_FAILED, "INTERNAL -> failed");
	is_int(err.rpc_code, SC_GRPC_INTERNAL, "rpc_code kept");
	is_str(err.errclass, "INVALID_HANDLE.OPERATION_NOT_FOUND",
	    "class from the message");
	is_str(err.msg,
	    "[INVALID_HANDLE.OPERATION_NOT_FOUND] The handle `a` is invalid.",
	    "message kept");
	is_int(err.retry_delay_ms, -1, "no RetryInfo");
	is_int(err.sys_errno, 0, "no errno");

	sc_error_from_grpc(&err, SC_GRPC_UNAVAILABLE, "", NULL, 0);
	is_str(err.msg, "server returned UNAVAILABLE", "empty message");
	is_int(err.status, SC_ST_UNAVAILABLE, "UNAVAILABLE -> unavailable");
	sc_error_from_grpc(&err, SC_GRPC_UNAVAILABLE, NULL, NULL, 0);
	is_str(err.msg, "server returned UNAVAILABLE", "NULL message");

	/* Garbage details are ignored; the message stands. */
	sc_error_from_grpc(&err, SC_GRPC_INTERNAL, "[A.B] m", "\xff\xff\xff",
	    3);
	is_str(err.errclass, "A.B", "garbage details ignored");
	is_str(err.msg, "[A.B] m", "garbage details: message");
	is_int(sc_error_from_grpc(NULL, 2, "x", NULL, 0), -1, "NULL err");
}

static void
test_round_trip(void)
{
	struct sc_spark_error se = {
		.errclass = "INVALID_HANDLE.OPERATION_NOT_FOUND",
		.sqlstate = "HY000",
		.message =
		    "[INVALID_HANDLE.OPERATION_NOT_FOUND] The handle "
		    "`x` is invalid. Operation not found. SQLSTATE: HY000",
		.reason = "org.apache.spark.SparkSQLException",
		.classes_json = "[\"org.apache.spark.SparkSQLException\","
				"\"java.lang.Object\"]",
		.params_json = "{\"handle\":\"x\"}",
		.error_id = "0f1e2d3c-4b5a-4697-8877-665544332211",
		.code = SC_GRPC_INTERNAL,
		.retry_delay_ms = 2500,
	};
	Google__Rpc__Status *st;
	Google__Rpc__ErrorInfo *info;
	Google__Rpc__RetryInfo *ri;
	struct sc_error err;
	uint8_t *p;
	size_t n, i, nmeta_found = 0;

	p = sc_error_encode_details(&se, &n);
	ok(p != NULL && n > 0, "encode returns bytes");

	/* What is on the wire, field by field. */
	st = sc_proto_unpack(&google__rpc__status__descriptor, p, n, NULL);
	ok(st != NULL, "encoded bytes are a google.rpc.Status");
	if (st == NULL)
		return;
	is_int(st->code, SC_GRPC_INTERNAL, "Status.code");
	is_str(st->message, se.message, "Status.message");
	is_int(st->n_details, 2, "two details");
	is_str(st->details[0]->type_url,
	    "type.googleapis.com/google.rpc.ErrorInfo", "ErrorInfo type_url");
	is_str(st->details[1]->type_url,
	    "type.googleapis.com/google.rpc.RetryInfo", "RetryInfo type_url");
	info = sc_proto_any_unpack(st->details[0],
	    &google__rpc__error_info__descriptor, NULL);
	ok(info != NULL, "ErrorInfo unpacks");
	if (info != NULL) {
		is_str(info->reason, se.reason, "ErrorInfo.reason");
		is_str(info->domain, "org.apache.spark", "ErrorInfo.domain");
		for (i = 0; i < info->n_metadata; i++) {
			const char *k = info->metadata[i]->key;
			const char *v = info->metadata[i]->value;
			const char *want = NULL;

			if (strcmp(k, "errorClass") == 0)
				want = se.errclass;
			else if (strcmp(k, "sqlState") == 0)
				want = se.sqlstate;
			else if (strcmp(k, "messageParameters") == 0)
				want = se.params_json;
			else if (strcmp(k, "classes") == 0)
				want = se.classes_json;
			else if (strcmp(k, "errorId") == 0)
				want = se.error_id;
			ok(want != NULL, "metadata key %s expected", k);
			if (want != NULL) {
				is_str(v, want, "metadata %s", k);
				nmeta_found++;
			}
		}
		is_int(nmeta_found, 5, "five metadata entries");
		protobuf_c_message_free_unpacked(&info->base, NULL);
	}
	ri = sc_proto_any_unpack(st->details[1],
	    &google__rpc__retry_info__descriptor, NULL);
	ok(ri != NULL && ri->retry_delay != NULL, "RetryInfo unpacks");
	if (ri != NULL && ri->retry_delay != NULL) {
		is_int(ri->retry_delay->seconds, 2, "retry_delay.seconds");
		is_int(ri->retry_delay->nanos, 500000000, "retry_delay.nanos");
	}
	if (ri != NULL)
		protobuf_c_message_free_unpacked(&ri->base, NULL);
	protobuf_c_message_free_unpacked(&st->base, NULL);

	/* And back through our decoder. */
	sc_error_init(&err);
	is_int(sc_error_decode_details(&err, p, n), 0, "decode ok");
	is_str(err.errclass, se.errclass, "decoded errclass");
	is_str(err.sqlstate, "HY000", "decoded sqlstate");
	is_str(err.error_id, se.error_id, "decoded error_id");
	is_int(err.retry_delay_ms, 2500, "decoded retry_delay_ms");

	/* Through sc_error_from_grpc: metadata class wins over message. */
	sc_error_from_grpc(&err, SC_GRPC_INTERNAL, "[OTHER.CLASS] text", p, n);
	is_str(err.errclass, se.errclass, "ErrorInfo class beats message");
	is_str(err.msg, "[OTHER.CLASS] text", "from_grpc keeps grpc message");
	is_int(err.retry_delay_ms, 2500, "from_grpc retry delay");

	/* Every truncation is rejected (or decodes) without crashing. */
	for (i = 0; i < n; i++) {
		struct sc_error e2;
		uint8_t *cut = sc_xmemdup(p, i);
		int rc;

		sc_error_init(&e2);
		rc = sc_error_decode_details(&e2, cut, i);
		if (rc == -1)
			ok(e2.errclass[0] == '\0' && e2.retry_delay_ms == -1,
			    "truncated to %zu: -1, err untouched", i);
		else
			ok(rc == 0, "truncated to %zu: a shorter Status", i);
		free(cut);
	}
	sc_error_init(&err);
	is_int(sc_error_decode_details(&err, p, n - 1), -1,
	    "one byte short: -1");
	free(p);

	/* Minimal: no optional fields, no RetryInfo. */
	memset(&se, 0, sizeof(se));
	se.code = SC_GRPC_INTERNAL;
	se.retry_delay_ms = -1;
	p = sc_error_encode_details(&se, &n);
	sc_error_init(&err);
	is_int(sc_error_decode_details(&err, p, n), 0, "minimal decodes");
	is_str(err.errclass, "", "minimal: no class");
	is_int(err.retry_delay_ms, -1, "minimal: no retry delay");
	st = sc_proto_unpack(&google__rpc__status__descriptor, p, n, NULL);
	ok(st != NULL && st->n_details == 1, "minimal: one detail");
	if (st != NULL)
		protobuf_c_message_free_unpacked(&st->base, NULL);
	free(p);

	/* RetryInfo with delay 0 (Spark master sends no delay). */
	se.retry_delay_ms = 0;
	p = sc_error_encode_details(&se, &n);
	sc_error_init(&err);
	is_int(sc_error_decode_details(&err, p, n), 0, "zero delay decodes");
	is_int(err.retry_delay_ms, 0, "zero delay is 0, not absent");
	free(p);
}

/* A Status with one detail whose type_url and bytes we choose. */
static uint8_t *
status_with(const char *type_url, const void *val, size_t vlen, size_t *n)
{
	Google__Rpc__Status st = GOOGLE__RPC__STATUS__INIT;
	Google__Protobuf__Any any = GOOGLE__PROTOBUF__ANY__INIT;
	Google__Protobuf__Any *anyp = &any;

	any.type_url = (char *)type_url;
	any.value.data = (uint8_t *)val;
	any.value.len = vlen;
	st.code = 13;
	st.message = (char *)"m";
	st.n_details = 1;
	st.details = &anyp;
	return sc_proto_pack_alloc(&st.base, n);
}

static void
test_malformed(void)
{
	Google__Rpc__ErrorInfo info = GOOGLE__RPC__ERROR_INFO__INIT;
	Google__Rpc__ErrorInfo__MetadataEntry e =
	    GOOGLE__RPC__ERROR_INFO__METADATA_ENTRY__INIT;
	Google__Rpc__ErrorInfo__MetadataEntry *ep = &e;
	struct sc_error err;
	uint8_t *ib, *p;
	size_t ilen, n;
	static const uint8_t garbage[] = { 0xff, 0xff, 0xff, 0xff, 0x0f };

	info.reason = (char *)"org.apache.spark.SparkException";
	info.domain = (char *)"org.apache.spark";
	e.key = (char *)"errorClass";
	e.value = (char *)"A.B";
	info.n_metadata = 1;
	info.metadata = &ep;
	ib = sc_proto_pack_alloc(&info.base, &ilen);

	sc_error_init(&err);
	is_int(sc_error_decode_details(&err, garbage, sizeof(garbage)), -1,
	    "garbage: -1");
	is_str(err.errclass, "", "garbage: untouched");
	is_int(sc_error_decode_details(&err, "\x0a\x05", 2), -1,
	    "length past the end: -1");
	is_int(sc_error_decode_details(&err, NULL, 5), -1, "NULL with length");
	is_int(sc_error_decode_details(&err, NULL, 0), 0,
	    "empty is an empty Status");

	/* ErrorInfo bytes labelled RetryInfo: not a valid RetryInfo. */
	p = status_with("type.googleapis.com/google.rpc.RetryInfo", ib, ilen,
	    &n);
	sc_error_init(&err);
	is_int(sc_error_decode_details(&err, p, n), -1,
	    "wrong type_url for the bytes: -1");
	is_int(err.retry_delay_ms, -1, "wrong type_url: untouched");
	free(p);

	/* ErrorInfo under its own name: decodes. */
	p = status_with("type.googleapis.com/google.rpc.ErrorInfo", ib, ilen,
	    &n);
	sc_error_init(&err);
	is_int(sc_error_decode_details(&err, p, n), 0, "right type_url: 0");
	is_str(err.errclass, "A.B", "right type_url: class");
	free(p);

	/* An unknown detail type is skipped, not an error. */
	p = status_with("type.googleapis.com/google.rpc.DebugInfo", ib, ilen,
	    &n);
	sc_error_init(&err);
	is_int(sc_error_decode_details(&err, p, n), 0, "unknown type: 0");
	is_str(err.errclass, "", "unknown type: nothing taken");
	free(p);

	/* ErrorInfo with garbage bytes. */
	p = status_with("type.googleapis.com/google.rpc.ErrorInfo", garbage,
	    sizeof(garbage), &n);
	sc_error_init(&err);
	is_int(sc_error_decode_details(&err, p, n), -1,
	    "ErrorInfo with garbage bytes: -1");
	free(p);

	/* Oversized metadata values are dropped, never truncated. */
	{
		char big[300];

		memset(big, 'A', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		e.value = big;
		free(ib);
		ib = sc_proto_pack_alloc(&info.base, &ilen);
		p = status_with("type.googleapis.com/google.rpc.ErrorInfo", ib,
		    ilen, &n);
		sc_error_init(&err);
		is_int(sc_error_decode_details(&err, p, n), 0,
		    "oversized class: 0");
		is_str(err.errclass, "", "oversized class dropped");
		free(p);
	}
	free(ib);
}

/*
 * The gRPC core's messages (as 1.51 writes them: refused, DNS, TLS,
 * plaintext to TLS, HTTP/1, a dropped connection, a deadline) become
 * ours; anything else stays, and no status changes.
 */
static void
test_reword(void)
{
	static const struct {
		int code;
		const char *errclass; /* NULL: none */
		const char *in;
		const char *out;
		int status; /* -1: unchanged */
	} rows[] = {
		{ SC_GRPC_UNAVAILABLE, NULL,
		    "failed to connect to all addresses; last error: UNKNOWN: "
		    "ipv4:127.0.0.1:1: Failed to connect to remote host: "
		    "Connection refused",
		    "cannot connect to 'h:1': connection refused", -1 },
		{ SC_GRPC_UNAVAILABLE, NULL,
		    "failed to connect to all addresses; last error: UNKNOWN: "
		    "ipv4:192.0.2.1:15002: Failed to connect to remote host: "
		    "Connection timed out",
		    "cannot connect to 'h:1': timed out", -1 },
		{ SC_GRPC_UNAVAILABLE, NULL,
		    "failed to connect to all addresses; last error: UNKNOWN: "
		    "ipv4:192.0.2.1:15002: Failed to connect to remote host: "
		    "Timeout occurred: FD Shutdown",
		    "cannot connect to 'h:1': timed out", -1 },
		{ SC_GRPC_UNAVAILABLE, NULL,
		    "DNS resolution failed for no-such-host.invalid:15002: "
		    "C-ares status is not ARES_SUCCESS qtype=AAAA "
		    "name=no-such-host.invalid is_balancer=0: Domain name not "
		    "found",
		    "cannot connect to 'h:1': name not resolved", -1 },
		{ SC_GRPC_UNAVAILABLE, NULL,
		    "DNS resolution failed for x:1: C-ares status is not "
		    "ARES_SUCCESS qtype=A name=x is_balancer=0: Timeout while "
		    "contacting DNS servers",
		    "cannot connect to 'h:1': name not resolved", -1 },
		{ SC_GRPC_UNAVAILABLE, NULL,
		    "failed to connect to all addresses; last error: UNKNOWN: "
		    "ipv4:10.1.2.3:1: Failed to connect to remote host: Network "
		    "is unreachable",
		    "cannot connect to 'h:1': network unreachable", -1 },
		{ SC_GRPC_UNAVAILABLE, NULL,
		    "failed to connect to all addresses; last error: UNKNOWN: "
		    "ipv4:127.0.0.1:41509: Ssl handshake failed: SSL_ERROR_SSL: "
		    "error:0A000086:SSL routines::certificate verify failed",
		    "cannot connect to 'h:1': TLS certificate verify failed; "
		    "check --ca-file",
		    SC_ST_DENIED },
		{ SC_GRPC_UNAVAILABLE, NULL,
		    "failed to connect to all addresses; last error: UNKNOWN: "
		    "ipv4:127.0.0.1:36373: Peer name 127.0.0.1 is not in peer "
		    "certificate",
		    "cannot connect to 'h:1': TLS certificate is for another "
		    "host name",
		    SC_ST_DENIED },
		{ SC_GRPC_UNAVAILABLE, NULL,
		    "failed to connect to all addresses; last error: UNKNOWN: "
		    "ipv4:127.0.0.1:42159: Ssl handshake failed: SSL_ERROR_SSL: "
		    "error:0A00010B:SSL routines::wrong version number",
		    "cannot connect to 'h:1': TLS handshake failed: the server "
		    "does not speak TLS, so connect without --tls or use_ssl=true",
		    SC_ST_PROTOCOL },
		{ SC_GRPC_UNAVAILABLE, NULL,
		    "failed to connect to all addresses; last error: UNKNOWN: "
		    "ipv4:127.0.0.1:4: Ssl handshake failed: SSL_ERROR_SSL: "
		    "error:0A000410:SSL routines::sslv3 alert handshake failure",
		    "cannot connect to 'h:1': TLS handshake failed",
		    SC_ST_PROTOCOL },
		{ SC_GRPC_UNAVAILABLE, NULL,
		    "failed to connect to all addresses; last error: "
		    "UNAVAILABLE: ipv4:127.0.0.1:41041: Socket closed",
		    "cannot connect to 'h:1': the server closed the connection "
		    "at once; if it expects TLS, use --tls or use_ssl=true",
		    SC_ST_PROTOCOL },
		{ SC_GRPC_UNAVAILABLE, NULL,
		    "failed to connect to all addresses; last error: INTERNAL: "
		    "ipv4:127.0.0.1:35387: Trying to connect an http1.x server",
		    "cannot connect to 'h:1': not a gRPC server (it answered in "
		    "HTTP/1.x)",
		    SC_ST_PROTOCOL },
		/* N27: a hung peer, in our words rather than HTTP/2's. */
		{ SC_GRPC_UNAVAILABLE, NULL,
		    "failed to connect to all addresses; last error: UNKNOWN: "
		    "ipv4:127.0.0.1:4: connection attempt timed out before "
		    "receiving SETTINGS frame",
		    "cannot connect to 'h:1': the connection was accepted, but "
		    "the server sent nothing",
		    SC_ST_UNAVAILABLE },
		/* An unknown cause: the core's framing goes, the cause stays. */
		{ SC_GRPC_UNAVAILABLE, NULL,
		    "failed to connect to all addresses; last error: UNKNOWN: "
		    "ipv4:127.0.0.1:9: Something new went wrong",
		    "cannot connect to 'h:1': something new went wrong", -1 },
		{ SC_GRPC_UNAVAILABLE, NULL,
		    "failed to connect to all addresses; last error: UNKNOWN: "
		    "ipv4:127.0.0.1:9: ALPN negotiation failed",
		    "cannot connect to 'h:1': TLS handshake failed: the server "
		    "does not offer HTTP/2",
		    SC_ST_PROTOCOL },
		{ SC_GRPC_UNAVAILABLE, NULL,
		    "failed to connect to all addresses; last error: INTERNAL: "
		    "ipv4:127.0.0.1:33895: Failed parsing HTTP/2",
		    "cannot connect to 'h:1': not a gRPC server (it does not "
		    "speak HTTP/2)",
		    SC_ST_PROTOCOL },
		/* A connection that was up and went away: try again. */
		{ SC_GRPC_UNAVAILABLE, NULL, "recvmsg:Connection reset by peer",
		    "lost the connection to 'h:1': connection reset", -1 },
		{ SC_GRPC_UNAVAILABLE, NULL, "Socket closed",
		    "lost the connection to 'h:1': connection closed by the "
		    "server",
		    -1 },
		{ SC_GRPC_UNAVAILABLE, NULL, "sendmsg: Broken pipe",
		    "lost the connection to 'h:1': connection closed by the "
		    "server",
		    -1 },
		{ SC_GRPC_UNAVAILABLE, NULL, "GOAWAY received",
		    "lost the connection to 'h:1': the server is going away",
		    -1 },
		{ SC_GRPC_UNAVAILABLE, NULL, "keepalive watchdog timeout",
		    "lost the connection to 'h:1': no answer to keepalive "
		    "pings",
		    -1 },
		{ SC_GRPC_DEADLINE_EXCEEDED, NULL, "Deadline Exceeded",
		    "timed out waiting for 'h:1'", -1 },
		/* Not the core's words, or not a transport failure: kept. */
		{ SC_GRPC_UNAVAILABLE, NULL, "server is shutting down",
		    "server is shutting down", -1 },
		{ SC_GRPC_UNAVAILABLE, "SESSION_CLOSED",
		    "[SESSION_CLOSED] Connection refused by policy",
		    "[SESSION_CLOSED] Connection refused by policy", -1 },
		{ SC_GRPC_DEADLINE_EXCEEDED, NULL, "query took too long",
		    "query took too long", -1 },
		{ SC_GRPC_INTERNAL, NULL, "Socket closed", "Socket closed",
		    -1 },
		{ SC_GRPC_NOT_FOUND, NULL, "Connection refused",
		    "Connection refused", -1 },
	};
	struct sc_error err;
	enum sc_status st;
	size_t i;

	for (i = 0; i < SC_NELEM(rows); i++) {
		sc_error_from_grpc(&err, rows[i].code, rows[i].in, NULL, 0);
		if (rows[i].errclass != NULL)
			is_str(err.errclass, rows[i].errclass,
			    "rows[%zu]: class from the message", i);
		st = err.status;
		sc_error_reword_transport(&err, "h:1");
		is_str(err.msg, rows[i].out, "rows[%zu]: reworded", i);
		if (rows[i].status >= 0)
			st = (enum sc_status)rows[i].status;
		is_int(err.status, st, "  status %s",
		    rows[i].status >= 0 ? "classified" : "kept");
		is_int(err.rpc_code, rows[i].code, "  code kept");
	}
}

int
main(void)
{
	test_grpc_table();
	test_set();
	test_class();
	test_from_grpc();
	test_round_trip();
	test_malformed();
	test_reword();
	return tap_done();
}
