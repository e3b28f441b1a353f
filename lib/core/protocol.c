/* SPDX-License-Identifier: MIT */

/*
 * protocol.c: packing and unpacking Spark Connect messages.
 *
 * protobuf-c does the encoding; this file adds what input from a peer
 * needs on top: a bounded output buffer, a nesting-depth check before
 * parsing (protobuf-c recurses once per nested message), allocation that
 * aborts on exhaustion so NULL always means malformed input, and
 * google.protobuf.Any helpers for error details.
 */

#include "core/protocol.h"

#include <stddef.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "core/banned.h"

/* Wire types (protobuf encoding). */
#define WT_VARINT 0
#define WT_I64 1
#define WT_LEN 2
#define WT_I32 5

static void *
xalloc(void *data, size_t size)
{
	(void)data;
	return sc_xmalloc(size);
}

static void
xfree(void *data, void *p)
{
	(void)data;
	free(p);
}

/*
 * Memory from this allocator is plain malloc(), so callers free messages
 * with protobuf_c_message_free_unpacked(m, NULL).
 */
static ProtobufCAllocator xallocator = { xalloc, xfree, NULL };

static int
read_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t x = 0;
	unsigned int shift;

	for (shift = 0; shift < 64; shift += 7) {
		if (p == end)
			return -1;
		x |= (uint64_t)(*p & 0x7f) << shift;
		if ((*p++ & 0x80) == 0) {
			*pp = p;
			*v = x;
			return 0;
		}
	}
	return -1; /* more than ten bytes */
}

/*
 * Walk the encoding of a message of type d and fail if it is not
 * well-framed (-1) or nests messages deeper than SC_PROTO_MAX_DEPTH
 * (-2).  Field contents are left to protobuf-c; only length-delimited
 * fields that d declares as messages (map entries included) are
 * descended into.  The recursion is bounded by the depth limit.
 */
static int
check_nesting(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n,
    unsigned int depth)
{
	const ProtobufCFieldDescriptor *f;
	const uint8_t *end = p + n;
	uint64_t key, v;
	int rc;

	if (depth > SC_PROTO_MAX_DEPTH)
		return -2;
	while (p < end) {
		if (read_varint(&p, end, &key) == -1 || (key >> 3) == 0 ||
		    (key >> 3) > 0x1fffffff)
			return -1;
		switch (key & 7) {
		case WT_VARINT:
			if (read_varint(&p, end, &v) == -1)
				return -1;
			break;
		case WT_I64:
			if (end - p < 8)
				return -1;
			p += 8;
			break;
		case WT_I32:
			if (end - p < 4)
				return -1;
			p += 4;
			break;
		case WT_LEN:
			if (read_varint(&p, end, &v) == -1 ||
			    v > (uint64_t)(end - p))
				return -1;
			f = protobuf_c_message_descriptor_get_field(d,
			    (unsigned int)(key >> 3));
			if (f != NULL && f->type == PROTOBUF_C_TYPE_MESSAGE &&
			    (rc = check_nesting(f->descriptor, p, (size_t)v,
				 depth + 1)) < 0)
				return rc;
			p += v;
			break;
		default:
			return -1; /* groups: not valid in proto3 */
		}
	}
	return 0;
}

int
sc_proto_pack(const ProtobufCMessage *m, struct sc_buf *out,
    struct sc_error *err)
{
	size_t size;

	size = protobuf_c_message_get_packed_size(m);
	if (size > out->max || out->len > out->max - size)
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "%s message of %zu bytes exceeds the limit of %zu bytes",
		    m->descriptor->short_name, size, out->max);
	if (sc_buf_grow(out, size, err) == -1)
		return -1;
	protobuf_c_message_pack(m, out->data + out->len);
	sc_buf_setlen(out, out->len + size);
	return 0;
}

uint8_t *
sc_proto_pack_alloc(const ProtobufCMessage *m, size_t *lenp)
{
	uint8_t *p;
	size_t size;

	size = protobuf_c_message_get_packed_size(m);
	p = sc_xmalloc(size);
	*lenp = protobuf_c_message_pack(m, p);
	return p;
}

void *
sc_proto_unpack(const ProtobufCMessageDescriptor *d, const void *p, size_t n,
    struct sc_error *err)
{
	static const uint8_t empty[1];
	ProtobufCMessage *m;

	if (p == NULL) {
		if (n != 0)
			goto bad;
		p = empty;
	}
	switch (check_nesting(d, p, n, 0)) {
	case 0:
		break;
	case -2:
		sc_error_set(err, SC_ST_PROTOCOL,
		    "%s message nested too deeply: messages within messages "
		    "deeper than the limit of %d levels (about %d chained "
		    "relations or nested expressions)",
		    d->short_name, SC_PROTO_MAX_DEPTH,
		    SC_PROTO_MAX_DEPTH / 2 - 3);
		return NULL;
	default:
		goto bad;
	}
	if ((m = protobuf_c_message_unpack(d, &xallocator, n, p)) == NULL)
		goto bad;
	return m;
bad:
	sc_error_set(err, SC_ST_PROTOCOL, "malformed %s message",
	    d->short_name);
	return NULL;
}

void
sc_proto_any_pack(Google__Protobuf__Any *any, const ProtobufCMessage *m)
{
	google__protobuf__any__init(any);
	any->type_url =
	    sc_xasprintf("%s%s", SC_TYPE_URL_PREFIX, m->descriptor->name);
	any->value.data = sc_proto_pack_alloc(m, &any->value.len);
}

void
sc_proto_any_release(Google__Protobuf__Any *any)
{
	/* After __init() type_url points at protobuf-c's static "". */
	if (any->type_url != protobuf_c_empty_string)
		free(any->type_url);
	free(any->value.data);
	google__protobuf__any__init(any);
}

bool
sc_proto_any_is(const Google__Protobuf__Any *any,
    const ProtobufCMessageDescriptor *d)
{
	const char *slash;

	if (any->type_url == NULL ||
	    (slash = strrchr(any->type_url, '/')) == NULL)
		return false;
	return strcmp(slash + 1, d->name) == 0;
}

void *
sc_proto_any_unpack(const Google__Protobuf__Any *any,
    const ProtobufCMessageDescriptor *d, struct sc_error *err)
{
	if (!sc_proto_any_is(any, d)) {
		sc_error_set(err, SC_ST_PROTOCOL,
		    "expected a %s in google.protobuf.Any, got '%s'", d->name,
		    any->type_url != NULL ? any->type_url : "");
		return NULL;
	}
	return sc_proto_unpack(d, any->value.data, any->value.len, err);
}

/* --------------------------------------------------- request envelopes */

/*
 * Every request message spells the envelope with the same field names,
 * so one function stamps them all, through the descriptor.
 */
static const ProtobufCFieldDescriptor *
field_of(const ProtobufCMessage *m, const char *name, ProtobufCType type)
{
	const ProtobufCFieldDescriptor *f;

	f = protobuf_c_message_descriptor_get_field_by_name(m->descriptor,
	    name);
	if (f == NULL)
		return NULL;
	if (f->type != type || f->label == PROTOBUF_C_LABEL_REPEATED)
		SC_BUG("%s.%s has an unexpected type", m->descriptor->name,
		    name);
	return f;
}

/* Store the pointer v in field f of m, and mark a oneof member present. */
static void
set_ptr(ProtobufCMessage *m, const ProtobufCFieldDescriptor *f, const void *v)
{
	uint32_t id = f->id;

	memcpy((char *)m + f->offset, &v, sizeof(v));
	if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
		memcpy((char *)m + f->quantifier_offset, &id, sizeof(id));
}

/* The string in field name of m, or NULL if absent or not set. */
static const char *
get_str(const ProtobufCMessage *m, const char *name)
{
	const ProtobufCFieldDescriptor *f;
	const char *v;
	uint32_t id;

	f = field_of(m, name, PROTOBUF_C_TYPE_STRING);
	if (f == NULL)
		return NULL;
	if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
		memcpy(&id, (const char *)m + f->quantifier_offset, sizeof(id));
		if (id != f->id)
			return NULL;
	}
	memcpy(&v, (const char *)m + f->offset, sizeof(v));
	return v;
}

void
sc_proto_stamp(ProtobufCMessage *m, const struct sc_proto_ids *ids)
{
	static const struct {
		const char *name;
		ProtobufCType type;
		size_t off;
	} fields[] = {
		{ "session_id", PROTOBUF_C_TYPE_STRING,
		    offsetof(struct sc_proto_ids, session_id) },
		{ "user_context", PROTOBUF_C_TYPE_MESSAGE,
		    offsetof(struct sc_proto_ids, user_context) },
		{ "client_type", PROTOBUF_C_TYPE_STRING,
		    offsetof(struct sc_proto_ids, client_type) },
		{ "client_observed_server_side_session_id",
		    PROTOBUF_C_TYPE_STRING,
		    offsetof(struct sc_proto_ids, observed_ssid) },
	};
	const ProtobufCFieldDescriptor *f;
	const void *v;
	size_t i;

	for (i = 0; i < SC_NELEM(fields); i++) {
		memcpy(&v, (const char *)ids + fields[i].off, sizeof(v));
		f = field_of(m, fields[i].name, fields[i].type);
		if (f != NULL && v != NULL)
			set_ptr(m, f, v);
	}
}

void
sc_proto_set_message(ProtobufCMessage *m, const char *name,
    const ProtobufCMessage *v)
{
	const ProtobufCFieldDescriptor *f;

	f = field_of(m, name, PROTOBUF_C_TYPE_MESSAGE);
	if (f == NULL || f->descriptor != v->descriptor)
		SC_BUG("%s has no %s field of type %s", m->descriptor->name,
		    name, v->descriptor->name);
	set_ptr(m, f, v);
}

void
sc_proto_response_ids(const ProtobufCMessage *m, const char **session_id,
    const char **ssid)
{
	if (session_id != NULL)
		*session_id = get_str(m, "session_id");
	if (ssid != NULL)
		*ssid = get_str(m, "server_side_session_id");
}

int
sc_proto_check_response(const ProtobufCMessage *m,
    const struct sc_proto_expect *x, struct sc_error *err)
{
	const char *sid, *ssid, *op, *rid;

	sc_proto_response_ids(m, &sid, &ssid);
	if (sid == NULL)
		sid = "";
	if (strcmp(sid, x->session_id) != 0 &&
	    !(sid[0] == '\0' &&
		m->descriptor ==
		    &spark__connect__artifact_statuses_response__descriptor))
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "server answered for session '%s', expected '%s'", sid,
		    x->session_id);
	if (x->ssid != NULL && ssid != NULL && ssid[0] != '\0' &&
	    strcmp(ssid, x->ssid) != 0)
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "server-side session changed from '%s' to '%s' (the server restarted or the session was re-created)",
		    x->ssid, ssid);
	op = get_str(m, "operation_id");
	if (x->operation_id != NULL && op != NULL && op[0] != '\0' &&
	    strcmp(op, x->operation_id) != 0)
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "server answered for operation '%s', expected '%s'", op,
		    x->operation_id);
	rid = get_str(m, "response_id");
	if (x->response_id && (rid == NULL || rid[0] == '\0'))
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "server sent a response without a response id for reattachable operation %s",
		    x->operation_id != NULL ? x->operation_id : "");
	return 0;
}

/* ------------------------------------- the ArrowBatch envelope by hand */

static size_t
varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

uint8_t *
sc_proto_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Length of string field s (tag of one byte); 0 when it is not sent. */
static size_t
str_field_len(const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	return n == 0 ? 0 : 1 + varint_len(n) + n;
}

static uint8_t *
put_str_field(uint8_t *p, uint8_t tag, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	if (n == 0)
		return p;
	*p++ = tag;
	p = sc_proto_put_varint(p, n);
	memcpy(p, s, n);
	return p + n;
}

/*
 * Wire tags (field << 3 | wire type) of the envelope; test-proto checks
 * the field numbers against the generated descriptors.
 */
#define TAG_SESSION_ID 0x0a /* 1, bytes */
#define TAG_ARROW_BATCH 0x12 /* 2, bytes */
#define TAG_OPERATION_ID 0x62 /* 12, bytes */
#define TAG_RESPONSE_ID 0x6a /* 13, bytes */
#define TAG_SERVER_SIDE_ID 0x7a /* 15, bytes */
#define TAG_AB_ROW_COUNT 0x08 /* ArrowBatch 1, varint */
#define TAG_AB_DATA 0x12 /* ArrowBatch 2, bytes */
#define TAG_AB_START_OFFSET 0x18 /* ArrowBatch 3, varint */

size_t
sc_proto_arrow_envelope(uint8_t *out, size_t room, const char *session_id,
    const char *server_side_session_id, const char *operation_id,
    const char *response_id, int64_t rows, int64_t start_offset, size_t ipclen)
{
	size_t ab, n;
	uint8_t *p;

	ab = 1 + varint_len((uint64_t)rows) + 1 +
	    varint_len((uint64_t)start_offset) + 1 + varint_len(ipclen) +
	    ipclen;
	n = str_field_len(session_id) + str_field_len(operation_id) +
	    str_field_len(response_id) + str_field_len(server_side_session_id) +
	    1 + varint_len(ab) + (ab - ipclen);
	if (n > room)
		return 0;
	p = out + room - n;
	p = put_str_field(p, TAG_SESSION_ID, session_id);
	p = put_str_field(p, TAG_OPERATION_ID, operation_id);
	p = put_str_field(p, TAG_RESPONSE_ID, response_id);
	p = put_str_field(p, TAG_SERVER_SIDE_ID, server_side_session_id);
	*p++ = TAG_ARROW_BATCH;
	p = sc_proto_put_varint(p, ab);
	*p++ = TAG_AB_ROW_COUNT;
	p = sc_proto_put_varint(p, (uint64_t)rows);
	*p++ = TAG_AB_START_OFFSET;
	p = sc_proto_put_varint(p, (uint64_t)start_offset);
	*p++ = TAG_AB_DATA;
	sc_proto_put_varint(p, ipclen);
	return n;
}
