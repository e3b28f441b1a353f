/* SPDX-License-Identifier: MIT */

/*
 * protocol.h: the Spark Connect wire protocol.  This is the only header
 * that includes the protoc-c code generated from proto/ (see proto/README
 * for the Spark releases tracked and what was left out); everything else
 * includes this file.  It names the service and its methods and packs and
 * unpacks messages with limits suited to input from the network.
 */

#ifndef SC_PROTOCOL_H
#define SC_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "google/protobuf/any.pb-c.h"
#include "google/protobuf/duration.pb-c.h"
#include "google/rpc/error_details.pb-c.h"
#include "google/rpc/status.pb-c.h"
#include "spark/connect/base.pb-c.h"
#include "spark/connect/commands.pb-c.h"
#include "spark/connect/common.pb-c.h"
#include "spark/connect/expressions.pb-c.h"
#include "spark/connect/relations.pb-c.h"
#include "spark/connect/types.pb-c.h"
#include "sctk/admin/v1/admin.pb-c.h"

struct sc_buf;
struct sc_error;

/*
 * Protocol version.  Bump SC_PROTOCOL_VERSION if any of these change: a
 * message, field number, field type or oneof in proto/, the service or
 * method names below, or the meaning of a field as sctk uses it.  Never
 * renumber a field; an omitted oneof member keeps its number free.
 */
#define SC_PROTOCOL_VERSION 4

/* The Spark releases whose protocol proto/ follows (see proto/README). */
#define SC_PROTOCOL_SPARK "3.5 4.0"

/* The service and the gRPC path of each method. */
#define SC_SERVICE "spark.connect.SparkConnectService"
#define SC_METHOD_EXECUTE_PLAN "/spark.connect.SparkConnectService/ExecutePlan"
#define SC_METHOD_ANALYZE_PLAN "/spark.connect.SparkConnectService/AnalyzePlan"
#define SC_METHOD_CONFIG "/spark.connect.SparkConnectService/Config"
#define SC_METHOD_ADD_ARTIFACTS \
	"/spark.connect.SparkConnectService/AddArtifacts"
#define SC_METHOD_ARTIFACT_STATUS \
	"/spark.connect.SparkConnectService/ArtifactStatus"
#define SC_METHOD_INTERRUPT "/spark.connect.SparkConnectService/Interrupt"
#define SC_METHOD_REATTACH_EXECUTE \
	"/spark.connect.SparkConnectService/ReattachExecute"
#define SC_METHOD_RELEASE_EXECUTE \
	"/spark.connect.SparkConnectService/ReleaseExecute"
#define SC_METHOD_RELEASE_SESSION \
	"/spark.connect.SparkConnectService/ReleaseSession"
#define SC_METHOD_FETCH_ERROR_DETAILS \
	"/spark.connect.SparkConnectService/FetchErrorDetails"

/* google.protobuf.Any type URLs are this prefix plus the full name. */
#define SC_TYPE_URL_PREFIX "type.googleapis.com/"

/*
 * Deepest nesting of messages sc_proto_unpack() accepts (the top-level
 * message is depth 0).  Deeper input is rejected before protobuf-c, whose
 * parser recurses once per level, ever sees it.
 */
#define SC_PROTO_MAX_DEPTH 100

/*
 * A note on proto3 "optional": protoc-c 1.4.1 rejects the keyword, so
 * proto/ spells each optional field as a one-member oneof named
 * "_<field>".  Presence is the oneof case, e.g.
 *
 *	r.start = 5;
 *	r._start_case = SPARK__CONNECT__RANGE___START_START;
 *	if (r._start_case == SPARK__CONNECT__RANGE___START__NOT_SET) ...
 *
 * A string or message optional must point to a value when its case is
 * set (NULL is skipped when packing, losing the presence).
 *
 * Initialise Spark__Connect__LocalRelation with
 * spark__connect__local_relation__init(), not its __INIT macro: the
 * macro's initializer trips -Wmissing-braces (a bytes member in a oneof).
 */

/*
 * Serialize m and append the bytes to out.  0, or -1 with err filled
 * (SC_ST_PROTOCOL) if they would take out->len past out->max; out is
 * left untouched then.  m must be a well-formed message: every set
 * string, bytes and message pointer valid.
 */
int sc_proto_pack(const ProtobufCMessage *m, struct sc_buf *out,
    struct sc_error *err);

/*
 * Serialize m into a new malloc'ed buffer (free() it) and store its
 * length in *lenp.  Never fails (out of memory aborts).  An empty
 * message yields a valid one-byte allocation and *lenp == 0.
 */
uint8_t *sc_proto_pack_alloc(const ProtobufCMessage *m, size_t *lenp);

/*
 * Parse n bytes at p as a message of type d.  Returns the message (free
 * with protobuf_c_message_free_unpacked(m, NULL)), or NULL with err set
 * to SC_ST_PROTOCOL "malformed <short name> message", e.g. "malformed
 * ExecutePlanResponse message", when the bytes are not a valid encoding,
 * or "<short name> message nested too deeply: ..." naming the limit when
 * they nest messages deeper than SC_PROTO_MAX_DEPTH.  Unknown fields are
 * kept and ignored.  p may be NULL when n is 0.
 */
void *sc_proto_unpack(const ProtobufCMessageDescriptor *d, const void *p,
    size_t n, struct sc_error *err);

/*
 * Fill any (whose previous contents are not freed) with m packed and
 * type URL SC_TYPE_URL_PREFIX + full name of m's type.  Both allocations
 * belong to any; free them with sc_proto_any_release().
 */
void sc_proto_any_pack(Google__Protobuf__Any *any, const ProtobufCMessage *m);

/* Free what sc_proto_any_pack() allocated and re-initialise any. */
void sc_proto_any_release(Google__Protobuf__Any *any);

/*
 * Whether any holds a message of type d: its type URL's last path
 * segment equals d's full name (the host part is not checked).
 */
bool sc_proto_any_is(const Google__Protobuf__Any *any,
    const ProtobufCMessageDescriptor *d);

/*
 * Unpack the message inside any as type d.  NULL with err set
 * (SC_ST_PROTOCOL) when any holds another type or malformed bytes.  Free
 * with protobuf_c_message_free_unpacked(m, NULL).
 */
void *sc_proto_any_unpack(const Google__Protobuf__Any *any,
    const ProtobufCMessageDescriptor *d, struct sc_error *err);

/*
 * Short names for the generated oneof-case and enum constants, so code
 * that switches on them stays readable, e.g. SC_REL_(RANGE) for
 * SPARK__CONNECT__RELATION__REL_TYPE_RANGE.
 */
#define SC_PLAN_(x) SPARK__CONNECT__PLAN__OP_TYPE_##x
#define SC_REL_(x) SPARK__CONNECT__RELATION__REL_TYPE_##x
#define SC_CMD_(x) SPARK__CONNECT__COMMAND__COMMAND_TYPE_##x
#define SC_EXPR_(x) SPARK__CONNECT__EXPRESSION__EXPR_TYPE_##x
#define SC_LIT_(x) SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_##x
#define SC_DT_(x) SPARK__CONNECT__DATA_TYPE__KIND_##x
#define SC_REQ_OPT_(x) \
	SPARK__CONNECT__EXECUTE_PLAN_REQUEST__REQUEST_OPTION__REQUEST_OPTION_##x
#define SC_EXEC_RESP_(x) \
	SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_##x
#define SC_ANALYZE_(x) SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_##x
#define SC_ANALYZE_RESP_(x) SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_##x
#define SC_CONF_OP_(x) SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_##x
#define SC_RELEASE_(x) SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_##x
#define SC_INTERRUPT_(x) SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_##x
#define SC_INTERRUPT_TYPE_(x) \
	SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_TYPE__INTERRUPT_TYPE_##x

/* --------------------------------------------------- request envelopes */

/*
 * What every request names.  The pointers are borrowed: a stamped
 * message points at them, so they must outlive it, and a message that
 * was unpacked must have these fields cleared before it is freed.
 */
struct sc_proto_ids {
	const char *session_id;
	Spark__Connect__UserContext *user_context;
	const char *client_type; /* NULL: not sent */
	const char *observed_ssid; /* server-side session id seen, or NULL */
};

/*
 * Set session_id, user_context, client_type and, when observed_ssid is
 * not NULL, client_observed_server_side_session_id on m, any Spark
 * Connect request (fields are found by name; one a message does not
 * have, such as the observed id of ReleaseSessionRequest, is skipped).
 */
void sc_proto_stamp(ProtobufCMessage *m, const struct sc_proto_ids *ids);

/*
 * Write v as a protobuf varint at p (at most 10 bytes); returns the byte
 * after it.  For the messages a server writes around bytes it does not
 * copy (below; the admin service's WatchEvent).
 */
uint8_t *sc_proto_put_varint(uint8_t *p, uint64_t v);

/*
 * The ExecutePlanResponse{ids, arrow_batch{row_count, start_offset,
 * data}} wire bytes that precede a data field of ipclen bytes, written
 * to end at out + room, so a server sends a large Arrow stream without
 * copying it into a packed message.  Returns their length, or 0 if
 * more than room bytes would be needed.  Empty or NULL strings are left
 * out, as protobuf-c does.
 */
size_t sc_proto_arrow_envelope(uint8_t *out, size_t room,
    const char *session_id, const char *server_side_session_id,
    const char *operation_id, const char *response_id, int64_t rows,
    int64_t start_offset, size_t ipclen);

/*
 * Point the message field name of m at v (borrowed: m must not be freed
 * as an unpacked message while it holds v), marking a oneof member
 * present, e.g. sc_proto_set_message(&req.base, "plan", &plan.base).
 * A message without that field is a bug (SC_BUG).
 */
void sc_proto_set_message(ProtobufCMessage *m, const char *name,
    const ProtobufCMessage *v);

/*
 * A response's session_id and server_side_session_id (borrowed from m),
 * or NULL for one the message does not carry.  Either pointer may be
 * NULL.
 */
void sc_proto_response_ids(const ProtobufCMessage *m, const char **session_id,
    const char **ssid);

/* What a response must say about whom it answers. */
struct sc_proto_expect {
	const char *session_id; /* must be equal */
	const char *ssid; /* server-side session id seen before, or NULL */
	const char *operation_id; /* NULL: not checked */
	bool response_id; /* a non-empty response_id is required */
};

/*
 * Check the ids of response m.  Its session_id must equal x->session_id
 * (ArtifactStatusesResponse may leave it empty: Spark 3.5 does not send
 * it); a non-empty server_side_session_id must equal x->ssid when that
 * is set; a non-empty operation_id must equal x->operation_id when that
 * is set; and with x->response_id, response_id must be non-empty.
 * 0, or -1 with err set (SC_ST_PROTOCOL): "server answered for session
 * 'X', expected 'Y'", "server-side session changed from 'X' to 'Y' (the
 * server restarted or the session was re-created)", "server answered for
 * operation 'X', expected 'Y'", "server sent a response without a
 * response id for reattachable operation X".
 */
int sc_proto_check_response(const ProtobufCMessage *m,
    const struct sc_proto_expect *x, struct sc_error *err);

#endif
