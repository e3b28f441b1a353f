/* SPDX-License-Identifier: MIT */

/*
 * arrow_format.c: values of a decoded record batch, by type (the typed
 * getters) and as text or JSON (sc_arrow_format_value).  Numbers, dates
 * and times are spelled by core/value, as the server spells them.
 */

#include "core/arrow.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/arrow_int.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/tz.h"
#include "core/value.h"
#include "core/banned.h"

/* Output kinds, numerically equal to enum sc_out_kind (core/output.h). */
enum { K_NULL = 0, K_STRING = 1, K_NUMBER = 2, K_BOOL = 3, K_JSON = 4 };

/* ---- accessors ------------------------------------------------------ */

static bool
col_null(const struct sc_arrow_col *c, size_t i)
{
	if (c->allnull)
		return true;
	if (c->validity == NULL)
		return false;
	return !(c->validity[i / 8] >> (i % 8) & 1);
}

static const struct sc_arrow_col *
top_col(const struct sc_arrow_batch *b, size_t col, size_t row)
{
	if (b == NULL || col >= b->schema->nfields || row >= b->nrows)
		return NULL;
	return &b->cols[col];
}

bool
sc_arrow_is_null(const struct sc_arrow_batch *b, size_t col, size_t row)
{
	const struct sc_arrow_col *c = top_col(b, col, row);

	return c == NULL || col_null(c, row);
}

static int64_t
int_at(const struct sc_arrow_col *c, size_t i)
{
	const uint8_t *p = c->values;

	switch (c->f->type) {
	case SC_ARROW_BOOL:
		return p[i / 8] >> (i % 8) & 1;
	case SC_ARROW_INT8:
		return (int8_t)p[i];
	case SC_ARROW_INT16:
		return (int16_t)sc_arrow_rd16(p + 2 * i);
	case SC_ARROW_INT32:
	case SC_ARROW_DATE32:
	case SC_ARROW_INTERVAL_YM:
		return (int32_t)sc_arrow_rd32(p + 4 * i);
	default:
		return sc_arrow_rdi64(p + 8 * i);
	}
}

static double
double_at(const struct sc_arrow_col *c, size_t i)
{
	uint64_t u;
	uint32_t u32;
	double d;
	float f;

	if (c->f->type == SC_ARROW_FLOAT) {
		u32 = sc_arrow_rd32(c->values + 4 * i);
		memcpy(&f, &u32, 4);
		return f;
	}
	u = sc_arrow_rd64(c->values + 8 * i);
	memcpy(&d, &u, 8);
	return d;
}

static void
bytes_at(const struct sc_arrow_col *c, size_t i, const uint8_t **p, size_t *n)
{
	int64_t a, e;

	if (c->length == 0 || c->offsets == NULL) {
		*p = c->data;
		*n = 0;
		return;
	}
	if (c->f->type == SC_ARROW_UTF8 || c->f->type == SC_ARROW_BINARY) {
		a = (int32_t)sc_arrow_rd32(c->offsets + 4 * i);
		e = (int32_t)sc_arrow_rd32(c->offsets + 4 * i + 4);
	} else {
		a = sc_arrow_rdi64(c->offsets + 8 * i);
		e = sc_arrow_rdi64(c->offsets + 8 * i + 8);
	}
	*p = c->data + a;
	*n = (size_t)(e - a);
}

/* Child range [*a, *e) of list/map slot i. */
static void
range_at(const struct sc_arrow_col *c, size_t i, size_t *a, size_t *e)
{
	if (c->f->type == SC_ARROW_LARGE_LIST) {
		*a = (size_t)sc_arrow_rdi64(c->offsets + 8 * i);
		*e = (size_t)sc_arrow_rdi64(c->offsets + 8 * i + 8);
	} else {
		*a = (size_t)(int32_t)sc_arrow_rd32(c->offsets + 4 * i);
		*e = (size_t)(int32_t)sc_arrow_rd32(c->offsets + 4 * i + 4);
	}
}

int
sc_arrow_get_int64(const struct sc_arrow_batch *b, size_t col, size_t row,
    int64_t *out)
{
	const struct sc_arrow_col *c = top_col(b, col, row);

	if (c == NULL || col_null(c, row))
		return -1;
	switch (c->f->type) {
	case SC_ARROW_BOOL:
	case SC_ARROW_INT8:
	case SC_ARROW_INT16:
	case SC_ARROW_INT32:
	case SC_ARROW_INT64:
	case SC_ARROW_DATE32:
	case SC_ARROW_TIMESTAMP_US:
	case SC_ARROW_DURATION_US:
	case SC_ARROW_INTERVAL_YM:
		*out = int_at(c, row);
		return 0;
	default:
		return -1;
	}
}

int
sc_arrow_get_double(const struct sc_arrow_batch *b, size_t col, size_t row,
    double *out)
{
	const struct sc_arrow_col *c = top_col(b, col, row);

	if (c == NULL || col_null(c, row))
		return -1;
	switch (c->f->type) {
	case SC_ARROW_FLOAT:
	case SC_ARROW_DOUBLE:
		*out = double_at(c, row);
		return 0;
	case SC_ARROW_INT8:
	case SC_ARROW_INT16:
	case SC_ARROW_INT32:
	case SC_ARROW_INT64:
		*out = (double)int_at(c, row);
		return 0;
	default:
		return -1;
	}
}

int
sc_arrow_get_bytes(const struct sc_arrow_batch *b, size_t col, size_t row,
    const uint8_t **p, size_t *n)
{
	const struct sc_arrow_col *c = top_col(b, col, row);

	if (c == NULL || col_null(c, row))
		return -1;
	switch (c->f->type) {
	case SC_ARROW_UTF8:
	case SC_ARROW_LARGE_UTF8:
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_BINARY:
		bytes_at(c, row, p, n);
		return 0;
	default:
		return -1;
	}
}

int
sc_arrow_get_decimal128(const struct sc_arrow_batch *b, size_t col, size_t row,
    int64_t *hi, uint64_t *lo)
{
	const struct sc_arrow_col *c = top_col(b, col, row);

	if (c == NULL || col_null(c, row) || c->f->type != SC_ARROW_DECIMAL128)
		return -1;
	*lo = sc_arrow_rd64(c->values + 16 * row);
	*hi = sc_arrow_rdi64(c->values + 16 * row + 8);
	return 0;
}

/* ---- formatting ----------------------------------------------------- */

/*
 * The decimal text of v, written backwards to end[-1], end[-2], ...; the
 * start of the text.  20 bytes before end are enough for INT64_MIN.
 */
static char *
int_text(int64_t v, char *end)
{
	static const char pairs[] = "00010203040506070809"
				    "10111213141516171819"
				    "20212223242526272829"
				    "30313233343536373839"
				    "40414243444546474849"
				    "50515253545556575859"
				    "60616263646566676869"
				    "70717273747576777879"
				    "80818283848586878889"
				    "90919293949596979899";
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	char *p = end;
	unsigned int k;

	while (u >= 100) {
		k = (unsigned int)(u % 100) * 2;
		u /= 100;
		*--p = pairs[k + 1];
		*--p = pairs[k];
	}
	if (u >= 10) {
		k = (unsigned int)u * 2;
		*--p = pairs[k + 1];
		*--p = pairs[k];
	} else
		*--p = (char)('0' + u);
	if (v < 0)
		*--p = '-';
	return p;
}

/* Append v in decimal, as printf's "%lld" would. */
static int
fmt_int(int64_t v, struct sc_buf *out, struct sc_error *err)
{
	char txt[24], *s;

	s = int_text(v, txt + sizeof(txt));
	return sc_buf_add(out, s, (size_t)(txt + sizeof(txt) - s), err);
}

/*
 * Length of the valid UTF-8 sequence at p (at most n bytes), or 0 and in
 * *bad the length of the maximal invalid subpart to replace by U+FFFD (as
 * the WHATWG decoder and JavaScript's TextDecoder do).
 */
static size_t
utf8_seq(const uint8_t *p, size_t n, size_t *bad)
{
	uint8_t lo = 0x80, hi = 0xbf, c = p[0];
	size_t need, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		need = 1;
	else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		if (c == 0xe0)
			lo = 0xa0;
		if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		if (c == 0xf0)
			lo = 0x90;
		if (c == 0xf4)
			hi = 0x8f;
	} else {
		*bad = 1;
		return 0;
	}
	for (i = 1; i <= need; i++) {
		if (i >= n || p[i] < lo || p[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return need + 1;
}

/* Append text p[0..n), invalid UTF-8 replaced, JSON-escaped if json. */
static int
put_text(const uint8_t *p, size_t n, bool json, struct sc_buf *out,
    struct sc_error *err)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, start = 0, k, bad = 0;
	char esc[8];
	uint8_t c;

	if (json && sc_buf_addch(out, '"', err) == -1)
		return -1;
	while (i < n) {
		c = p[i];
		if (c >= 0x80) {
			if ((k = utf8_seq(p + i, n - i, &bad)) != 0) {
				i += k;
				continue;
			}
			if (sc_buf_add(out, p + start, i - start, err) == -1 ||
			    sc_buf_add(out, "\xef\xbf\xbd", 3, err) == -1)
				return -1;
			i += bad;
			start = i;
			continue;
		}
		if (!json || (c >= 0x20 && c != '"' && c != '\\')) {
			i++;
			continue;
		}
		esc[0] = '\\';
		esc[2] = '\0';
		switch (c) {
		case '"':
			esc[1] = '"';
			break;
		case '\\':
			esc[1] = '\\';
			break;
		case '\b':
			esc[1] = 'b';
			break;
		case '\f':
			esc[1] = 'f';
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		case '\t':
			esc[1] = 't';
			break;
		default:
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			esc[6] = '\0';
			break;
		}
		if (sc_buf_add(out, p + start, i - start, err) == -1 ||
		    sc_buf_addstr(out, esc, err) == -1)
			return -1;
		start = ++i;
	}
	if (sc_buf_add(out, p + start, i - start, err) == -1)
		return -1;
	return json ? sc_buf_addch(out, '"', err) : 0;
}

static int
put_hex(const uint8_t *p, size_t n, bool json, struct sc_buf *out,
    struct sc_error *err)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	if (sc_buf_grow(out, 2 * n + 2, err) == -1)
		return -1;
	if (json)
		(void)sc_buf_addch(out, '"', NULL); /* room reserved above */
	for (i = 0; i < n; i++) {
		out->data[out->len++] = (uint8_t)hex[p[i] >> 4];
		out->data[out->len++] = (uint8_t)hex[p[i] & 15];
	}
	out->data[out->len] = '\0';
	return json ? sc_buf_addch(out, '"', err) : 0;
}

/* Modes: 0 text, 1 JSON, 2 lossless JSON, 3 show (SC_ARROW_FMT_*). */
static int fmt_value(const struct sc_arrow_col *, size_t, int, struct sc_buf *,
    int *, struct sc_error *);

/*
 * A timestamp column's instant as the wall clock of the zone it carries
 * (Spark sends the session time zone), as Spark shows it; without a zone
 * (TIMESTAMP_NTZ), or one that cannot be read, as it is.  The thread
 * keeps the last zone it read.
 */
static int64_t
wall_clock(const char *zone, int64_t us)
{
	static _Thread_local char last[64];
	static _Thread_local struct sc_tz z;
	static _Thread_local bool ok;

	if (zone == NULL || zone[0] == '\0' || strcmp(zone, "UTC") == 0)
		return us;
	if (strcmp(zone, last) != 0) {
		ok = strlen(zone) < sizeof(last) &&
		    sc_tz_resolve(zone, &z) == 0;
		snprintf(last, sizeof(last), "%s", zone);
	}
	return ok ? sc_tz_to_local(&z, us) : us;
}

/* A string-kind value formatted as text, quoted when json. */
static int
quoted(const struct sc_arrow_col *c, size_t i, bool json, struct sc_buf *out,
    struct sc_error *err)
{
	char txt[SC_ARROW_INTERVAL_TEXT > SC_VALUE_TEXT_MAX
		? SC_ARROW_INTERVAL_TEXT
		: SC_VALUE_TEXT_MAX];
	size_t n;

	if (json && sc_buf_addch(out, '"', err) == -1)
		return -1;
	if (c->f->type == SC_ARROW_DATE32)
		n = sc_value_fmt_date(int_at(c, i), txt);
	else if (c->f->type == SC_ARROW_DURATION_US)
		n = sc_arrow_fmt_dt_interval(int_at(c, i), 0, 3, txt);
	else if (c->f->type == SC_ARROW_INTERVAL_YM)
		n = sc_arrow_fmt_ym_interval(int_at(c, i), 0, 1, txt);
	else
		n = sc_value_fmt_timestamp(wall_clock(c->f->tz, int_at(c, i)),
		    txt);
	if (sc_buf_add(out, txt, n, err) == -1)
		return -1;
	return json ? sc_buf_addch(out, '"', err) : 0;
}

/* A member of a nested value as show() prints it. */
static int
show_member(const struct sc_arrow_col *c, size_t i, struct sc_buf *out,
    struct sc_error *err)
{
	const uint8_t *p;
	size_t n, k;

	if (col_null(c, i))
		return sc_buf_addstr(out, "NULL", err);
	if (c->f->type == SC_ARROW_BINARY ||
	    c->f->type == SC_ARROW_LARGE_BINARY) {
		bytes_at(c, i, &p, &n);
		if (sc_buf_addch(out, '[', err) == -1)
			return -1;
		for (k = 0; k < n; k++)
			if (sc_buf_addf(out, err, "%s%02X", k > 0 ? " " : "",
				p[k]) == -1)
				return -1;
		return sc_buf_addch(out, ']', err);
	}
	return fmt_value(c, i, 3, out, NULL, err);
}

static int
show_nested(const struct sc_arrow_col *c, size_t i, struct sc_buf *out,
    struct sc_error *err)
{
	const struct sc_arrow_col *ent;
	size_t a, e, j;

	if (c->f->type == SC_ARROW_STRUCT) {
		if (sc_buf_addch(out, '{', err) == -1)
			return -1;
		for (j = 0; j < c->nchildren; j++)
			if ((j > 0 && sc_buf_addstr(out, ", ", err) == -1) ||
			    show_member(&c->children[j], i, out, err) == -1)
				return -1;
		return sc_buf_addch(out, '}', err);
	}
	range_at(c, i, &a, &e);
	if (c->f->type != SC_ARROW_MAP) {
		if (sc_buf_addch(out, '[', err) == -1)
			return -1;
		for (j = a; j < e; j++)
			if ((j > a && sc_buf_addstr(out, ", ", err) == -1) ||
			    show_member(&c->children[0], j, out, err) == -1)
				return -1;
		return sc_buf_addch(out, ']', err);
	}
	ent = &c->children[0];
	if (sc_buf_addch(out, '{', err) == -1)
		return -1;
	for (j = a; j < e; j++)
		if ((j > a && sc_buf_addstr(out, ", ", err) == -1) ||
		    show_member(&ent->children[0], j, out, err) == -1 ||
		    sc_buf_addstr(out, " -> ", err) == -1 ||
		    show_member(&ent->children[1], j, out, err) == -1)
			return -1;
	return sc_buf_addch(out, '}', err);
}

static int
fmt_nested(const struct sc_arrow_col *c, size_t i, int mode, struct sc_buf *out,
    struct sc_error *err)
{
	const struct sc_arrow_col *ent, *key, *val;
	size_t a, e, j;
	bool obj;

	if (mode == 3)
		return show_nested(c, i, out, err);
	switch (c->f->type) {
	case SC_ARROW_STRUCT:
		if (sc_buf_addch(out, mode == 2 ? '[' : '{', err) == -1)
			return -1;
		for (j = 0; j < c->nchildren; j++) {
			if (j && sc_buf_addch(out, ',', err) == -1)
				return -1;
			if (mode == 2) {
				if (fmt_value(&c->children[j], i, mode, out,
					NULL, err) == -1)
					return -1;
				continue;
			}
			if (put_text((const uint8_t *)c->children[j].f->name,
				strlen(c->children[j].f->name), true, out,
				err) == -1 ||
			    sc_buf_addch(out, ':', err) == -1 ||
			    fmt_value(&c->children[j], i, mode, out, NULL,
				err) == -1)
				return -1;
		}
		return sc_buf_addch(out, mode == 2 ? ']' : '}', err);
	case SC_ARROW_LIST:
	case SC_ARROW_LARGE_LIST:
		range_at(c, i, &a, &e);
		if (sc_buf_addch(out, '[', err) == -1)
			return -1;
		for (j = a; j < e; j++)
			if ((j > a && sc_buf_addch(out, ',', err) == -1) ||
			    fmt_value(&c->children[0], j, mode, out, NULL,
				err) == -1)
				return -1;
		return sc_buf_addch(out, ']', err);
	default:
		break;
	}
	ent = &c->children[0];
	key = &ent->children[0];
	val = &ent->children[1];
	obj = mode != 2 &&
	    (key->f->type == SC_ARROW_UTF8 ||
		key->f->type == SC_ARROW_LARGE_UTF8);
	range_at(c, i, &a, &e);
	if (sc_buf_addch(out, obj ? '{' : '[', err) == -1)
		return -1;
	for (j = a; j < e; j++) {
		if (j > a && sc_buf_addch(out, ',', err) == -1)
			return -1;
		if (obj) {
			if (col_null(key, j)) {
				if (sc_buf_addstr(out, "\"null\"", err) == -1)
					return -1;
			} else if (fmt_value(key, j, mode, out, NULL, err) ==
			    -1)
				return -1;
			if (sc_buf_addch(out, ':', err) == -1 ||
			    fmt_value(val, j, mode, out, NULL, err) == -1)
				return -1;
			continue;
		}
		if (mode == 2) {
			if (sc_buf_addch(out, '[', err) == -1 ||
			    fmt_value(key, j, mode, out, NULL, err) == -1 ||
			    sc_buf_addch(out, ',', err) == -1 ||
			    fmt_value(val, j, mode, out, NULL, err) == -1 ||
			    sc_buf_addch(out, ']', err) == -1)
				return -1;
			continue;
		}
		if (sc_buf_addstr(out, "{\"key\":", err) == -1 ||
		    fmt_value(key, j, mode, out, NULL, err) == -1 ||
		    sc_buf_addstr(out, ",\"value\":", err) == -1 ||
		    fmt_value(val, j, mode, out, NULL, err) == -1 ||
		    sc_buf_addch(out, '}', err) == -1)
			return -1;
	}
	return sc_buf_addch(out, obj ? '}' : ']', err);
}

static int
fmt_value(const struct sc_arrow_col *c, size_t i, int json, struct sc_buf *out,
    int *kind, struct sc_error *err)
{
	char txt[SC_VALUE_TEXT_MAX];
	const uint8_t *p;
	size_t n;
	double d;
	int k;

	if (col_null(c, i)) {
		k = K_NULL;
		if (json != 0 &&
		    sc_buf_addstr(out, json == 3 ? "NULL" : "null", err) == -1)
			return -1;
		goto done;
	}
	switch (c->f->type) {
	case SC_ARROW_NULL:
		k = K_NULL; /* not reached: Null columns are null */
		break;
	case SC_ARROW_BOOL:
		k = K_BOOL;
		if ((int_at(c, i) ? sc_buf_add(out, "true", 4, err)
				  : sc_buf_add(out, "false", 5, err)) == -1)
			return -1;
		break;
	case SC_ARROW_INT8:
	case SC_ARROW_INT16:
	case SC_ARROW_INT32:
	case SC_ARROW_INT64:
		k = K_NUMBER;
		if (fmt_int(int_at(c, i), out, err) == -1)
			return -1;
		break;
	case SC_ARROW_FLOAT:
	case SC_ARROW_DOUBLE:
		d = double_at(c, i);
		k = isfinite(d) ? K_NUMBER : K_STRING;
		if (k == K_STRING && (json == 1 || json == 2) &&
		    sc_buf_addch(out, '"', err) == -1)
			return -1;
		n = c->f->type == SC_ARROW_FLOAT
		    ? sc_value_fmt_float((float)d, txt)
		    : sc_value_fmt_double(d, txt);
		if (sc_buf_add(out, txt, n, err) == -1)
			return -1;
		if (k == K_STRING && (json == 1 || json == 2) &&
		    sc_buf_addch(out, '"', err) == -1)
			return -1;
		break;
	case SC_ARROW_DECIMAL128:
		k = K_NUMBER;
		n = sc_value_fmt_decimal(sc_arrow_rdi64(c->values + 16 * i + 8),
		    sc_arrow_rd64(c->values + 16 * i), c->f->scale, txt);
		if (json == 2 && sc_buf_addch(out, '"', err) == -1)
			return -1;
		if (sc_buf_add(out, txt, n, err) == -1)
			return -1;
		if (json == 2 && sc_buf_addch(out, '"', err) == -1)
			return -1;
		break;
	case SC_ARROW_UTF8:
	case SC_ARROW_LARGE_UTF8:
		k = K_STRING;
		bytes_at(c, i, &p, &n);
		if (put_text(p, n, json == 1 || json == 2, out, err) == -1)
			return -1;
		break;
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_BINARY:
		k = K_STRING;
		bytes_at(c, i, &p, &n);
		if (json == 3)
			return show_member(c, i, out, err);
		if (put_hex(p, n, json != 0, out, err) == -1)
			return -1;
		break;
	case SC_ARROW_DATE32:
	case SC_ARROW_TIMESTAMP_US:
	case SC_ARROW_DURATION_US:
	case SC_ARROW_INTERVAL_YM:
		k = K_STRING;
		if (quoted(c, i, json == 1 || json == 2, out, err) == -1)
			return -1;
		break;
	default:
		k = K_JSON;
		if (fmt_nested(c, i,
			json == 3	? 3
			    : json != 0 ? json
					: 1,
			out, err) == -1)
			return -1;
		break;
	}
done:
	if (kind)
		*kind = k;
	return 0;
}

int
sc_arrow_format_value(const struct sc_arrow_batch *b, size_t col, size_t row,
    enum sc_arrow_fmt fmt, struct sc_buf *out, int *kind_out,
    struct sc_error *err)
{
	const struct sc_arrow_col *c = top_col(b, col, row);

	if (c == NULL)
		return sc_error_set(err, SC_ST_INTERNAL,
		    "Arrow value (%zu, %zu) out of range", col, row);
	if (fmt != SC_ARROW_FMT_CELL)
		return fmt_value(c, row, (int)fmt, out, kind_out, err);
	switch (c->f->type) {
	case SC_ARROW_STRUCT:
	case SC_ARROW_LIST:
	case SC_ARROW_LARGE_LIST:
	case SC_ARROW_MAP:
		if (col_null(c, row))
			break;
		if (kind_out)
			*kind_out = K_STRING;
		return show_nested(c, row, out, err);
	default:
		break;
	}
	return fmt_value(c, row, SC_ARROW_FMT_TEXT, out, kind_out, err);
}

/* Seconds and microseconds r as "05" or "05.25", appended at *p. */
static size_t
fmt_seconds(uint64_t r, char *p, size_t room)
{
	uint64_t frac = r % 1000000;
	int n, digits = 6;

	n = snprintf(p, room, "%s%llu", r < 10000000 ? "0" : "",
	    (unsigned long long)(r / 1000000));
	if (frac == 0)
		return (size_t)n;
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	return (size_t)n +
	    (size_t)snprintf(p + n, room - (size_t)n, ".%0*llu", digits,
		(unsigned long long)frac);
}

size_t
sc_arrow_fmt_dt_interval(int64_t us, int start, int end, char *buf)
{
	static const char *const names[] = { "DAY", "HOUR", "MINUTE",
		"SECOND" };
	static const uint64_t unit[] = { 86400000000ULL, 3600000000ULL,
		60000000ULL };
	uint64_t r = us < 0 ? 0 - (uint64_t)us : (uint64_t)us;
	size_t n, room = SC_ARROW_INTERVAL_TEXT;

	if (start < 0 || start > 3)
		start = 0;
	if (end < start || end > 3)
		end = 3;
	n = (size_t)snprintf(buf, room, "INTERVAL '%s", us < 0 ? "-" : "");
	if (start == 3) {
		n += fmt_seconds(r, buf + n, room - n);
	} else {
		n += (size_t)snprintf(buf + n, room - n,
		    start == 0 ? "%llu" : "%02llu",
		    (unsigned long long)(r / unit[start]));
		r %= unit[start];
	}
	if (start < 1 && end >= 1) {
		n += (size_t)snprintf(buf + n, room - n, " %02llu",
		    (unsigned long long)(r / unit[1]));
		r %= unit[1];
	}
	if (start < 2 && end >= 2) {
		n += (size_t)snprintf(buf + n, room - n, ":%02llu",
		    (unsigned long long)(r / unit[2]));
		r %= unit[2];
	}
	if (start < 3 && end >= 3) {
		buf[n++] = ':';
		n += fmt_seconds(r, buf + n, room - n);
	}
	if (start == end)
		n += (size_t)snprintf(buf + n, room - n, "' %s", names[start]);
	else
		n += (size_t)snprintf(buf + n, room - n, "' %s TO %s",
		    names[start], names[end]);
	return n;
}

size_t
sc_arrow_fmt_ym_interval(int64_t months, int start, int end, char *buf)
{
	uint64_t r = months < 0 ? 0 - (uint64_t)months : (uint64_t)months;
	const char *sign = months < 0 ? "-" : "";
	int n;

	if (start == 1 && end != 0)
		n = snprintf(buf, SC_ARROW_INTERVAL_TEXT,
		    "INTERVAL '%lld' MONTH", (long long)months);
	else if (end == 0)
		n = snprintf(buf, SC_ARROW_INTERVAL_TEXT,
		    "INTERVAL '%s%llu' YEAR", sign,
		    (unsigned long long)(r / 12));
	else
		n = snprintf(buf, SC_ARROW_INTERVAL_TEXT,
		    "INTERVAL '%s%llu-%llu' YEAR TO MONTH", sign,
		    (unsigned long long)(r / 12), (unsigned long long)(r % 12));
	return (size_t)n;
}
