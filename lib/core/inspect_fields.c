/* SPDX-License-Identifier: MIT */

/*
 * inspect_fields.c: the fields of the admin service's records, by stable
 * name, as text for machines or for people (see core/inspect.h).
 *
 * Each kind of record has a table of field names and types; a switch
 * per kind reads field i into a typed value, and one renderer and one
 * comparator work on typed values, so a name, its type and its value
 * are written down once.
 */

#include "core/inspect.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/banned.h"

enum vt {
	VT_STR = 0, /* text, "" stays "" */
	VT_OPT, /* text, "" is absent */
	VT_LIST, /* a list of strings */
	VT_BOOL,
	VT_TIME, /* epoch ms, 0 is absent */
	VT_DUR, /* ms, absent when !present */
	VT_INT,
	VT_SIZE /* bytes */
};

struct field {
	const char *name;
	enum vt type;
	int width; /* a typical value's, for people; 0: the name's */
};

struct val {
	enum vt type;
	bool present; /* VT_DUR; the others set it too */
	int64_t n; /* BOOL, TIME, DUR, INT, SIZE */
	const char *s; /* STR, OPT */
	const char *const *list; /* LIST */
	size_t nlist;
};

/* ------------------------------------------------------------- tables */

static const struct field exec_fields[] = {
	{ "operation_id", VT_STR, 36 },
	{ "session_id", VT_STR, 36 },
	{ "user_id", VT_STR, 8 },
	{ "tags", VT_LIST, 0 },
	{ "state", VT_STR, 8 },
	{ "reattachable", VT_BOOL, 5 },
	{ "created", VT_TIME, 19 },
	{ "started", VT_TIME, 19 },
	{ "finished", VT_TIME, 19 },
	{ "attached", VT_BOOL, 5 },
	{ "detached_for", VT_DUR, 8 },
	{ "abandon_in", VT_DUR, 8 },
	{ "responses_produced", VT_INT, 8 },
	{ "responses_sent", VT_INT, 8 },
	{ "responses_released", VT_INT, 8 },
	{ "buffered_bytes", VT_SIZE, 9 },
	{ "rows_sent", VT_INT, 8 },
	{ "bytes_sent", VT_SIZE, 9 },
	{ "rotations", VT_INT, 8 },
	{ "reattaches", VT_INT, 8 },
	{ "last_error_class", VT_OPT, 0 },
	{ "statement", VT_STR, 0 },
};
#define NEXEC (sizeof(exec_fields) / sizeof(exec_fields[0]))

static const struct field session_fields[] = {
	{ "session_id", VT_STR, 36 },
	{ "user_id", VT_STR, 8 },
	{ "server_side_session_id", VT_STR, 36 },
	{ "created", VT_TIME, 19 },
	{ "last_access", VT_TIME, 19 },
	{ "idle_for", VT_DUR, 8 },
	{ "expires_in", VT_DUR, 8 },
	{ "operations", VT_INT, 8 },
	{ "artifacts", VT_INT, 8 },
	{ "artifact_bytes", VT_SIZE, 9 },
};

static const struct field artifact_fields[] = {
	{ "session_id", VT_STR, 36 },
	{ "user_id", VT_STR, 8 },
	{ "name", VT_STR, 0 },
	{ "size", VT_SIZE, 9 },
	{ "stored", VT_TIME, 19 },
};

static const struct field tomb_fields[] = {
	{ "kind", VT_STR, 9 },
	{ "operation_id", VT_OPT, 36 },
	{ "session_id", VT_STR, 36 },
	{ "user_id", VT_STR, 8 },
	{ "reason", VT_STR, 0 },
	{ "at", VT_TIME, 19 },
};

static const struct field stats_fields[] = {
	{ "version", VT_STR, 0 },
	{ "started", VT_TIME, 19 },
	{ "uptime", VT_DUR, 8 },
	{ "sessions", VT_INT, 8 },
	{ "operations", VT_INT, 8 },
	{ "pending", VT_INT, 8 },
	{ "running", VT_INT, 8 },
	{ "finished", VT_INT, 8 },
	{ "failed", VT_INT, 8 },
	{ "canceled", VT_INT, 8 },
	{ "closed", VT_INT, 8 },
	{ "buffered_bytes", VT_SIZE, 9 },
	{ "rss_bytes", VT_SIZE, 9 },
	{ "heap_in_use_bytes", VT_SIZE, 9 },
	{ "streams_open", VT_INT, 8 },
	{ "operations_started", VT_INT, 8 },
	{ "operations_finished", VT_INT, 8 },
	{ "operations_failed", VT_INT, 8 },
	{ "operations_canceled", VT_INT, 8 },
	{ "operations_abandoned", VT_INT, 8 },
	{ "rows_sent", VT_INT, 8 },
	{ "bytes_sent", VT_SIZE, 9 },
	{ "reattaches", VT_INT, 8 },
};

/* An event: "at" and "event", then the execution's fields. */
static const struct field event_head[] = {
	{ "at", VT_TIME, 19 },
	{ "event", VT_STR, 9 },
};
#define NHEAD (sizeof(event_head) / sizeof(event_head[0]))

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct field *
field_at(enum sc_inspect_rec r, size_t i)
{
	switch (r) {
	case SC_INSPECT_REC_EXEC:
		return i < NEXEC ? &exec_fields[i] : NULL;
	case SC_INSPECT_REC_SESSION:
		return i < N(session_fields) ? &session_fields[i] : NULL;
	case SC_INSPECT_REC_ARTIFACT:
		return i < N(artifact_fields) ? &artifact_fields[i] : NULL;
	case SC_INSPECT_REC_TOMB:
		return i < N(tomb_fields) ? &tomb_fields[i] : NULL;
	case SC_INSPECT_REC_STATS:
		return i < N(stats_fields) ? &stats_fields[i] : NULL;
	case SC_INSPECT_REC_EVENT:
		if (i < NHEAD)
			return &event_head[i];
		return i - NHEAD < NEXEC ? &exec_fields[i - NHEAD] : NULL;
	}
	return NULL;
}

size_t
sc_inspect_nfields(enum sc_inspect_rec r)
{
	switch (r) {
	case SC_INSPECT_REC_EXEC:
		return NEXEC;
	case SC_INSPECT_REC_SESSION:
		return N(session_fields);
	case SC_INSPECT_REC_ARTIFACT:
		return N(artifact_fields);
	case SC_INSPECT_REC_TOMB:
		return N(tomb_fields);
	case SC_INSPECT_REC_STATS:
		return N(stats_fields);
	case SC_INSPECT_REC_EVENT:
		return NHEAD + NEXEC;
	}
	return 0;
}

const char *
sc_inspect_field_name(enum sc_inspect_rec r, size_t i)
{
	const struct field *f = field_at(r, i);

	return f != NULL ? f->name : NULL;
}

int
sc_inspect_field_find(enum sc_inspect_rec r, const char *name)
{
	size_t i, n = sc_inspect_nfields(r);

	for (i = 0; i < n; i++)
		if (strcmp(field_at(r, i)->name, name) == 0)
			return (int)i;
	return -1;
}

size_t
sc_inspect_field_width(enum sc_inspect_rec r, size_t i)
{
	const struct field *f = field_at(r, i);
	size_t n;

	if (f == NULL)
		return 0;
	n = strlen(f->name);
	return (size_t)f->width > n ? (size_t)f->width : n;
}

bool
sc_inspect_field_numeric(enum sc_inspect_rec r, size_t i)
{
	const struct field *f = field_at(r, i);

	return f != NULL &&
	    (f->type == VT_DUR || f->type == VT_INT || f->type == VT_SIZE);
}

/* Default selections for people; machines get every field. */
static const size_t exec_human[] = { 0, 1, 2, 4, 9, 10, 11, 16, 15, 21 };
static const size_t session_human[] = { 0, 1, 3, 5, 6, 7, 8, 9 };
static const size_t event_human[] = { 0, 1, NHEAD + 0, NHEAD + 1, NHEAD + 2,
	NHEAD + 4, NHEAD + 16, NHEAD + 15, NHEAD + 21 };
#define ALL_MAX 32
static const size_t all_idx[ALL_MAX] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
	12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
	30, 31 };

size_t
sc_inspect_default_fields(enum sc_inspect_rec r, bool human, const size_t **idx)
{
	if (human && r == SC_INSPECT_REC_EXEC) {
		*idx = exec_human;
		return N(exec_human);
	}
	if (human && r == SC_INSPECT_REC_SESSION) {
		*idx = session_human;
		return N(session_human);
	}
	if (human && r == SC_INSPECT_REC_EVENT) {
		*idx = event_human;
		return N(event_human);
	}
	*idx = all_idx;
	return sc_inspect_nfields(r);
}

int
sc_inspect_fields_parse(enum sc_inspect_rec r, const char *list, size_t *idx,
    size_t max, struct sc_error *err)
{
	const char *p = list, *e;
	char name[64];
	struct sc_buf all;
	size_t n = 0, i, len;
	int k;

	if (strcmp(list, "all") == 0) {
		if (sc_inspect_nfields(r) > max)
			return sc_error_set(err, SC_ST_USAGE,
			    "too many fields");
		for (i = 0; i < sc_inspect_nfields(r); i++)
			idx[i] = i;
		return (int)i;
	}
	for (;;) {
		e = strchr(p, ',');
		len = e != NULL ? (size_t)(e - p) : strlen(p);
		if (len == 0)
			return sc_error_set(err, SC_ST_USAGE,
			    "empty field name in '%s'", list);
		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		k = len < sizeof(name) ? sc_inspect_field_find(r, name) : -1;
		if (k < 0) {
			sc_buf_init(&all, 4096);
			for (i = 0; i < sc_inspect_nfields(r); i++)
				(void)sc_buf_addf(&all, NULL, "%s%s",
				    i > 0 ? ", " : "", field_at(r, i)->name);
			sc_error_set(err, SC_ST_USAGE,
			    "unknown field '%.*s' (fields: %s)", (int)len, p,
			    (const char *)all.data);
			sc_buf_release(&all);
			return -1;
		}
		if (n == max)
			return sc_error_set(err, SC_ST_USAGE,
			    "too many fields");
		idx[n++] = (size_t)k;
		if (e == NULL)
			break;
		p = e + 1;
	}
	return (int)n;
}

/* ------------------------------------------------------------- values */

static void
v_str(struct val *v, const char *s)
{
	v->s = s != NULL ? s : "";
	v->present = v->type != VT_OPT || v->s[0] != '\0';
}

static void
v_num(struct val *v, int64_t n)
{
	v->n = n;
	v->present = v->type != VT_TIME || n > 0;
}

static void
v_dur(struct val *v, bool present, int64_t ms)
{
	v->present = present;
	v->n = ms < 0 ? 0 : ms;
}

static void
exec_val(const struct sc_inspect_exec *x, size_t i, int64_t now, struct val *v)
{
	switch (i) {
	case 0:
		v_str(v, x->operation_id);
		break;
	case 1:
		v_str(v, x->session_id);
		break;
	case 2:
		v_str(v, x->user_id);
		break;
	case 3:
		v->list = x->tags;
		v->nlist = x->ntags;
		v->present = true;
		break;
	case 4:
		v_str(v, sc_inspect_state_name(x->state));
		break;
	case 5:
		v_num(v, x->reattachable);
		break;
	case 6:
		v_num(v, x->created_at_ms);
		break;
	case 7:
		v_num(v, x->started_at_ms);
		break;
	case 8:
		v_num(v, x->finished_at_ms);
		break;
	case 9:
		v_num(v, x->attached);
		break;
	case 10:
		v_dur(v, !x->attached && x->detached_since_at_ms > 0,
		    now - x->detached_since_at_ms);
		break;
	case 11:
		v_dur(v, x->abandon_in_ms >= 0, x->abandon_in_ms);
		break;
	case 12:
		v_num(v, x->responses_produced);
		break;
	case 13:
		v_num(v, x->responses_sent);
		break;
	case 14:
		v_num(v, x->responses_released);
		break;
	case 15:
		v_num(v, x->buffered_bytes);
		break;
	case 16:
		v_num(v, x->rows_sent);
		break;
	case 17:
		v_num(v, x->bytes_sent);
		break;
	case 18:
		v_num(v, x->rotations);
		break;
	case 19:
		v_num(v, x->reattaches);
		break;
	case 20:
		v_str(v, x->last_error_class);
		break;
	default:
		v_str(v, x->statement);
		break;
	}
}

static void
session_val(const struct sc_inspect_session *s, size_t i, int64_t now,
    struct val *v)
{
	switch (i) {
	case 0:
		v_str(v, s->session_id);
		break;
	case 1:
		v_str(v, s->user_id);
		break;
	case 2:
		v_str(v, s->server_side_session_id);
		break;
	case 3:
		v_num(v, s->created_at_ms);
		break;
	case 4:
		v_num(v, s->last_access_at_ms);
		break;
	case 5:
		v_dur(v, s->last_access_at_ms > 0, now - s->last_access_at_ms);
		break;
	case 6:
		v_dur(v, s->expires_in_ms >= 0, s->expires_in_ms);
		break;
	case 7:
		v_num(v, s->operations);
		break;
	case 8:
		v_num(v, (int64_t)s->nartifacts);
		break;
	default:
		v_num(v, s->artifact_bytes);
		break;
	}
}

static void
artifact_val(const struct sc_inspect_artifact_row *a, size_t i, struct val *v)
{
	switch (i) {
	case 0:
		v_str(v, a->session->session_id);
		break;
	case 1:
		v_str(v, a->session->user_id);
		break;
	case 2:
		v_str(v, a->artifact->name);
		break;
	case 3:
		v_num(v, a->artifact->size);
		break;
	default:
		v_num(v, a->artifact->stored_at_ms);
		break;
	}
}

static void
tomb_val(const struct sc_inspect_tomb *t, size_t i, struct val *v)
{
	switch (i) {
	case 0:
		v_str(v, sc_inspect_tomb_kind_name(t->kind));
		break;
	case 1:
		v_str(v, t->operation_id);
		break;
	case 2:
		v_str(v, t->session_id);
		break;
	case 3:
		v_str(v, t->user_id);
		break;
	case 4:
		v_str(v, t->reason);
		break;
	default:
		v_num(v, t->at_ms);
		break;
	}
}

static void
stats_val(const struct sc_inspect_stats *s, size_t i, struct val *v)
{
	int64_t total = 0;
	int k;

	if (i >= 5 && i <= 10) {
		v_num(v, s->by_state[i - 4]);
		return;
	}
	switch (i) {
	case 0:
		v_str(v, s->version);
		break;
	case 1:
		v_num(v, s->started_at_ms);
		break;
	case 2:
		v_dur(v, s->uptime_ms >= 0, s->uptime_ms);
		break;
	case 3:
		v_num(v, s->sessions);
		break;
	case 4:
		for (k = 0; k < SC_INSPECT_NSTATES; k++)
			total += s->by_state[k];
		v_num(v, total);
		break;
	case 11:
		v_num(v, s->buffered_bytes);
		break;
	case 12:
		v_num(v, s->rss_bytes);
		break;
	case 13:
		v_num(v, s->heap_in_use_bytes);
		break;
	case 14:
		v_num(v, s->streams_open);
		break;
	case 15:
		v_num(v, s->operations_started);
		break;
	case 16:
		v_num(v, s->operations_finished);
		break;
	case 17:
		v_num(v, s->operations_failed);
		break;
	case 18:
		v_num(v, s->operations_canceled);
		break;
	case 19:
		v_num(v, s->operations_abandoned);
		break;
	case 20:
		v_num(v, s->rows_sent);
		break;
	case 21:
		v_num(v, s->bytes_sent);
		break;
	default:
		v_num(v, s->reattaches);
		break;
	}
}

static void
event_val(const struct sc_inspect_event *e, size_t i, int64_t now,
    struct val *v)
{
	if (i == 0)
		v_num(v, e->at_ms);
	else if (i == 1)
		v_str(v, sc_inspect_event_name(e->kind));
	else
		exec_val(&e->exec, i - NHEAD, now, v);
}

/* Field i of rec as a typed value; false for a field that is not. */
static bool
get_val(enum sc_inspect_rec r, const void *rec, size_t i, int64_t now,
    struct val *v)
{
	const struct field *f = field_at(r, i);

	memset(v, 0, sizeof(*v));
	if (f == NULL)
		return false;
	v->type = f->type;
	v->present = true;
	switch (r) {
	case SC_INSPECT_REC_EXEC:
		exec_val(rec, i, now, v);
		break;
	case SC_INSPECT_REC_SESSION:
		session_val(rec, i, now, v);
		break;
	case SC_INSPECT_REC_ARTIFACT:
		artifact_val(rec, i, v);
		break;
	case SC_INSPECT_REC_TOMB:
		tomb_val(rec, i, v);
		break;
	case SC_INSPECT_REC_STATS:
		stats_val(rec, i, v);
		break;
	case SC_INSPECT_REC_EVENT:
		event_val(rec, i, now, v);
		break;
	}
	return true;
}

/* ------------------------------------------------------------ writing */

void
sc_inspect_format_time(int64_t at_ms, bool human, char *out)
{
	struct tm tm;
	time_t t;
	size_t n;

	out[0] = '\0';
	if (at_ms <= 0)
		return;
	t = (time_t)(at_ms / 1000);
	if (human) {
		if (localtime_r(&t, &tm) == NULL)
			return;
		strftime(out, SC_INSPECT_TIME_STRLEN, "%Y-%m-%d %H:%M:%S", &tm);
		return;
	}
	if (gmtime_r(&t, &tm) == NULL)
		return;
	n = strftime(out, SC_INSPECT_TIME_STRLEN, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, SC_INSPECT_TIME_STRLEN - n, ".%03dZ",
	    (int)(at_ms % 1000));
}

void
sc_inspect_format_duration(int64_t ms, bool human, char *out)
{
	int64_t s;

	if (ms < 0)
		ms = 0;
	if (!human) {
		snprintf(out, SC_INSPECT_NUM_STRLEN, "%" PRId64 ".%03d",
		    ms / 1000, (int)(ms % 1000));
		return;
	}
	s = ms / 1000;
	if (ms < 1000)
		snprintf(out, SC_INSPECT_NUM_STRLEN, "%dms", (int)ms);
	else if (ms < 60000)
		snprintf(out, SC_INSPECT_NUM_STRLEN, "%d.%ds", (int)(ms / 1000),
		    (int)(ms % 1000 / 100));
	else if (s < 3600)
		snprintf(out, SC_INSPECT_NUM_STRLEN, "%dm%02ds", (int)(s / 60),
		    (int)(s % 60));
	else if (s < 86400)
		snprintf(out, SC_INSPECT_NUM_STRLEN, "%dh%02dm",
		    (int)(s / 3600), (int)(s % 3600 / 60));
	else
		snprintf(out, SC_INSPECT_NUM_STRLEN, "%" PRId64 "d%02dh",
		    s / 86400, (int)(s % 86400 / 3600));
}

void
sc_inspect_format_size(int64_t bytes, char *out)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v;
	int u = 0;

	if (bytes < 1024) {
		snprintf(out, SC_INSPECT_NUM_STRLEN, "%" PRId64 "B",
		    bytes < 0 ? 0 : bytes);
		return;
	}
	v = (double)bytes / 1024;
	while (v >= 1023.95 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(out, SC_INSPECT_NUM_STRLEN, "%.1f%s", v, unit[u]);
}

/* Whether p[0..n) begins with a valid UTF-8 sequence; its length or 0. */
static size_t
utf8_seq(const unsigned char *p, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/* s as a JSON string, appended to b (invalid UTF-8 becomes U+FFFD). */
static void
json_str(struct sc_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i, len;

	(void)sc_buf_addch(b, '"', NULL);
	for (i = 0; i < n; i += len) {
		len = utf8_seq(p + i, n - i);
		if (len == 0) {
			(void)sc_buf_addstr(b, "\\ufffd", NULL);
			len = 1;
		} else if (p[i] == '"' || p[i] == '\\') {
			(void)sc_buf_addch(b, '\\', NULL);
			(void)sc_buf_addch(b, p[i], NULL);
		} else if (p[i] < 0x20)
			(void)sc_buf_addf(b, NULL, "\\u%04x", p[i]);
		else
			(void)sc_buf_add(b, p + i, len, NULL);
	}
	(void)sc_buf_addch(b, '"', NULL);
}

enum sc_out_kind
sc_inspect_field_value(enum sc_inspect_rec r, const void *rec, size_t i,
    const struct sc_inspect_render *how, struct sc_buf *b)
{
	char tmp[SC_INSPECT_TIME_STRLEN];
	struct val v;
	size_t k;

	sc_buf_reset(b);
	if (!get_val(r, rec, i, how->now_ms, &v) || !v.present)
		return SC_OUT_NULL;
	switch (v.type) {
	case VT_STR:
	case VT_OPT:
		(void)sc_buf_addstr(b, v.s, NULL);
		return SC_OUT_STRING;
	case VT_LIST:
		if (how->json && !how->human) {
			(void)sc_buf_addch(b, '[', NULL);
			for (k = 0; k < v.nlist; k++) {
				if (k > 0)
					(void)sc_buf_addch(b, ',', NULL);
				json_str(b, v.list[k] != NULL ? v.list[k] : "");
			}
			(void)sc_buf_addch(b, ']', NULL);
			return SC_OUT_JSON;
		}
		for (k = 0; k < v.nlist; k++)
			(void)sc_buf_addf(b, NULL, "%s%s", k > 0 ? "," : "",
			    v.list[k] != NULL ? v.list[k] : "");
		return SC_OUT_STRING;
	case VT_BOOL:
		(void)sc_buf_addstr(b, v.n ? "true" : "false", NULL);
		return SC_OUT_BOOL;
	case VT_TIME:
		sc_inspect_format_time(v.n, how->human, tmp);
		(void)sc_buf_addstr(b, tmp, NULL);
		return SC_OUT_STRING;
	case VT_DUR:
		sc_inspect_format_duration(v.n, how->human, tmp);
		(void)sc_buf_addstr(b, tmp, NULL);
		return SC_OUT_NUMBER;
	case VT_SIZE:
		if (how->human) {
			sc_inspect_format_size(v.n, tmp);
			(void)sc_buf_addstr(b, tmp, NULL);
			return SC_OUT_NUMBER;
		}
		/* FALLTHROUGH */
	case VT_INT:
		(void)sc_buf_addf(b, NULL, "%" PRId64, v.n);
		return SC_OUT_NUMBER;
	}
	return SC_OUT_NULL;
}

/* ---------------------------------------------------------- ordering */

static int
cmp_val(const struct val *a, const struct val *b)
{
	size_t k;
	int c;

	if (a->present != b->present)
		return a->present ? 1 : -1;
	if (!a->present)
		return 0;
	switch (a->type) {
	case VT_STR:
	case VT_OPT:
		return strcmp(a->s, b->s);
	case VT_LIST:
		for (k = 0; k < a->nlist && k < b->nlist; k++)
			if ((c = strcmp(a->list[k] != NULL ? a->list[k] : "",
				 b->list[k] != NULL ? b->list[k] : "")) != 0)
				return c;
		return a->nlist < b->nlist ? -1 : a->nlist > b->nlist;
	default:
		return a->n < b->n ? -1 : a->n > b->n;
	}
}

int
sc_inspect_field_cmp(enum sc_inspect_rec r, const void *a, const void *b,
    size_t i, int64_t now_ms)
{
	struct val va, vb;
	int c;

	get_val(r, a, i, now_ms, &va);
	get_val(r, b, i, now_ms, &vb);
	if ((c = cmp_val(&va, &vb)) != 0 || i == 0)
		return c;
	get_val(r, a, 0, now_ms, &va);
	get_val(r, b, 0, now_ms, &vb);
	return cmp_val(&va, &vb);
}
