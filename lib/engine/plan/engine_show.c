/* SPDX-License-Identifier: MIT */

/*
 * engine_show.c: the ShowString relation, Dataset.show()'s text.  The
 * input runs with a limit of num_rows + 1 into one Arrow stream, which is
 * read back and laid out exactly as Spark's Dataset.showString does:
 * +---+ borders, cells right-aligned when truncating (truncate > 0
 * characters, "..." when it is 4 or more), NULL for nulls, wide (East
 * Asian) characters counted twice, "only showing top N rows", and the
 * vertical "-RECORD i---" form.
 */

#include "engine/engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

#define MIN_COL_WIDTH 3

struct cells {
	char **v;
	size_t n;
	size_t ncols;
	int32_t truncate;
	const struct sc_ecol *cols; /* the plan's, for intervals' fields */
	size_t ntyped;
};

static void
cells_add(struct cells *c, char *s)
{
	c->v = sc_xreallocarray(c->v, c->n + 1, sizeof(*c->v));
	c->v[c->n++] = s;
}

/* Decode one UTF-8 sequence; returns its length (1 for a bad byte). */
static size_t
utf8_next(const unsigned char *s, uint32_t *cp)
{
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0 && (s[1] & 0xc0) == 0x80) {
		*cp = (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
		return 2;
	}
	if ((s[0] & 0xf0) == 0xe0 && (s[1] & 0xc0) == 0x80 &&
	    (s[2] & 0xc0) == 0x80) {
		*cp = (uint32_t)(s[0] & 0x0f) << 12 |
		    (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
		return 3;
	}
	if ((s[0] & 0xf8) == 0xf0 && (s[1] & 0xc0) == 0x80 &&
	    (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80) {
		*cp = (uint32_t)(s[0] & 0x07) << 18 |
		    (uint32_t)(s[1] & 0x3f) << 12 |
		    (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
		return 4;
	}
	*cp = s[0];
	return 1;
}

/* Spark's Utils.stringHalfWidth: full-width characters count twice. */
static bool
full_width(uint32_t c)
{
	return (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) ||
	    (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
	    (c >= 0xfe10 && c <= 0xfe19) || (c >= 0xfe30 && c <= 0xfe6f) ||
	    (c >= 0xff00 && c <= 0xff60) || (c >= 0xffe0 && c <= 0xffe6);
}

/* Characters as Java counts them (UTF-16 units). */
static size_t
length(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t n = 0;

	while (*p != '\0') {
		p += utf8_next(p, &cp);
		n += cp > 0xffff ? 2 : 1;
	}
	return n;
}

static size_t
half_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t n = 0;

	while (*p != '\0') {
		p += utf8_next(p, &cp);
		n += cp > 0xffff ? 2 : 1;
		if (full_width(cp))
			n++;
	}
	return n;
}

/* The first n characters (UTF-16 units, not splitting a character). */
static size_t
prefix_bytes(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t k = 0, l;

	while (*p != '\0') {
		l = utf8_next(p, &cp);
		if (k + (cp > 0xffff ? 2 : 1) > n)
			break;
		k += cp > 0xffff ? 2 : 1;
		p += l;
	}
	return (size_t)(p - (const unsigned char *)s);
}

/* SchemaUtils.escapeMetaCharacters. */
static void
escape_meta(struct sc_buf *out, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		switch (p[i]) {
		case '\n':
			sc_buf_addstr(out, "\\n", NULL);
			break;
		case '\r':
			sc_buf_addstr(out, "\\r", NULL);
			break;
		case '\t':
			sc_buf_addstr(out, "\\t", NULL);
			break;
		case '\f':
			sc_buf_addstr(out, "\\f", NULL);
			break;
		case '\b':
			sc_buf_addstr(out, "\\b", NULL);
			break;
		case 0x0b:
			sc_buf_addstr(out, "\\v", NULL);
			break;
		case 0x07:
			sc_buf_addstr(out, "\\a", NULL);
			break;
		default:
			sc_buf_addch(out, p[i], NULL);
			break;
		}
	}
}

static int
show_batch(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	struct cells *c = arg;
	struct sc_buf v, e;
	size_t r, i, k, len;
	const uint8_t *p;
	int64_t us;
	char ts[SC_VALUE_TEXT_MAX];
	int rc = 0;

	sc_buf_init(&v, SC_BUF_UNLIMITED);
	sc_buf_init(&e, SC_BUF_UNLIMITED);
	for (r = 0; r < b->nrows && rc == 0; r++) {
		for (i = 0; i < b->schema->nfields; i++) {
			enum sc_arrow_type t = b->schema->fields[i].type;

			sc_buf_reset(&v);
			sc_buf_reset(&e);
			if (sc_arrow_is_null(b, i, r)) {
				sc_buf_addstr(&v, "NULL", NULL);
			} else if (t == SC_ARROW_BINARY ||
			    t == SC_ARROW_LARGE_BINARY) {
				sc_arrow_get_bytes(b, i, r, &p, &len);
				sc_buf_addch(&v, '[', NULL);
				for (k = 0; k < len; k++)
					sc_buf_addf(&v, NULL, "%s%02X",
					    k > 0 ? " " : "", p[k]);
				sc_buf_addch(&v, ']', NULL);
			} else if (i < c->ntyped &&
			    sc_eng_interval_cell(&c->cols[i].type, b, i, r,
				&v)) {
				/* Spark's text of its fields: INTERVAL '1' DAY */
			} else if (t == SC_ARROW_TIMESTAMP_US &&
			    b->schema->fields[i].tz != NULL &&
			    sc_arrow_get_int64(b, i, r, &us) == 0) {
				/* A TIMESTAMP shows in the session zone. */
				sc_value_fmt_timestamp(
				    sc_tz_to_local(sc_eng_tz_current(), us),
				    ts);
				sc_buf_addstr(&v, ts, NULL);
			} else if (sc_arrow_format_value(b, i, r,
				       SC_ARROW_FMT_SHOW, &v, NULL,
				       err) == -1) {
				rc = -1;
				break;
			}
			escape_meta(&e, v.data, v.len);
			len = length((const char *)e.data);
			if (c->truncate > 0 && len > (size_t)c->truncate) {
				if (c->truncate < 4) {
					sc_buf_setlen(&e,
					    prefix_bytes((const char *)e.data,
						(size_t)c->truncate));
				} else {
					sc_buf_setlen(&e,
					    prefix_bytes((const char *)e.data,
						(size_t)c->truncate - 3));
					sc_buf_addstr(&e, "...", NULL);
				}
			}
			cells_add(c, sc_xstrdup((const char *)e.data));
		}
	}
	sc_buf_release(&v);
	sc_buf_release(&e);
	return rc;
}

static void
pad(struct sc_buf *b, size_t n, char ch)
{
	while (n-- > 0)
		sc_buf_addch(b, ch, NULL);
}

/* "+---+--+\n" as Spark's addString("+", "+", "+\n"). */
static void
separator(struct sc_buf *out, const size_t *cw, size_t nc)
{
	size_t j;

	sc_buf_addch(out, '+', NULL);
	for (j = 0; j < nc; j++) {
		if (j > 0)
			sc_buf_addch(out, '+', NULL);
		pad(out, cw[j], '-');
	}
	sc_buf_addstr(out, "+\n", NULL);
}

static void
layout(const struct cells *c, size_t nrows, bool more, int32_t num_rows,
    bool vertical, struct sc_buf *out)
{
	size_t nc = c->ncols, i, j, w, *cw;
	size_t namew = MIN_COL_WIDTH, dataw = MIN_COL_WIDTH;
	char hdr[48];

	if (!vertical) {
		cw = sc_xcalloc(nc + 1, sizeof(*cw));
		for (j = 0; j < nc; j++)
			cw[j] = MIN_COL_WIDTH;
		for (i = 0; i <= nrows; i++)
			for (j = 0; j < nc; j++) {
				w = half_width(c->v[i * nc + j]);
				if (w > cw[j])
					cw[j] = w;
			}
		separator(out, cw, nc);
		for (i = 0; i <= nrows; i++) {
			sc_buf_addch(out, '|', NULL);
			for (j = 0; j < nc; j++) {
				const char *s = c->v[i * nc + j];

				if (j > 0)
					sc_buf_addch(out, '|', NULL);
				w = cw[j] - half_width(s);
				if (c->truncate > 0)
					pad(out, w, ' ');
				sc_buf_addstr(out, s, NULL);
				if (c->truncate <= 0)
					pad(out, w, ' ');
			}
			sc_buf_addstr(out, "|\n", NULL);
			if (i == 0)
				separator(out, cw, nc);
		}
		separator(out, cw, nc);
		free(cw);
	} else {
		for (j = 0; j < nc; j++) {
			w = half_width(c->v[j]);
			if (w > namew)
				namew = w;
		}
		for (i = 1; i <= nrows; i++)
			for (j = 0; j < nc; j++) {
				w = half_width(c->v[i * nc + j]);
				if (w > dataw)
					dataw = w;
			}
		for (i = 1; i <= nrows; i++) {
			snprintf(hdr, sizeof(hdr), "-RECORD %zu", i - 1);
			sc_buf_addstr(out, hdr, NULL);
			w = strlen(hdr);
			if (namew + dataw + 5 > w)
				pad(out, namew + dataw + 5 - w, '-');
			sc_buf_addch(out, '\n', NULL);
			for (j = 0; j < nc; j++) {
				const char *name = c->v[j];
				const char *s = c->v[i * nc + j];

				sc_buf_addch(out, ' ', NULL);
				sc_buf_addstr(out, name, NULL);
				pad(out, namew - half_width(name), ' ');
				sc_buf_addstr(out, " | ", NULL);
				sc_buf_addstr(out, s, NULL);
				pad(out, dataw - half_width(s), ' ');
				sc_buf_addstr(out, " \n", NULL);
			}
		}
	}
	if (vertical && nrows == 0)
		sc_buf_addstr(out, "(0 rows)\n", NULL);
	else if (more)
		sc_buf_addf(out, NULL, "only showing top %d %s\n",
		    (int)num_rows, num_rows == 1 ? "row" : "rows");
}

static int
capture(void *arg, const uint8_t *ipc, size_t len, int64_t rows,
    int64_t start_offset)
{
	(void)rows;
	(void)start_offset;
	return sc_buf_add(arg, ipc, len, NULL);
}

int
sc_eng_show(struct sc_ectx *x, const Spark__Connect__ShowString *s,
    struct sc_buf *text, struct sc_error *err)
{
	struct sc_ectx sub;
	struct sc_eplan p;
	struct sc_engine_sink sink;
	struct sc_arrow_schema as;
	struct sc_buf ipc, e;
	struct cells c;
	int32_t num_rows = s->num_rows < 0 ? 0 : s->num_rows;
	size_t i, nrows;
	bool more;
	int rc = -1;

	if (num_rows > INT32_MAX - 16)
		num_rows = INT32_MAX - 16;
	memset(&sub, 0, sizeof(sub));
	sub.c = x->c;
	sub.run = x->run;
	sub.seq = x->seq;
	sub.depth = x->depth;
	memset(&c, 0, sizeof(c));
	c.truncate = s->truncate;
	sc_eplan_init(&p);
	sc_buf_init(&ipc, SC_BUF_UNLIMITED);
	sc_buf_init(&e, SC_BUF_UNLIMITED);
	sc_arrow_schema_init(&as);
	if (sc_eng_translate(&sub, s->input, &p, err) == -1 ||
	    sc_eng_plan_limit(&sub, &p, (uint64_t)num_rows + 1, err) == -1)
		goto out;
	memset(&sink, 0, sizeof(sink));
	sink.batch = capture;
	sink.arg = &ipc;
	if (sc_eng_exec_plan(&sub, &p, NULL, &sink, false, NULL, NULL, err) ==
	    -1)
		goto out;
	if (sc_arrow_read_schema(ipc.data, ipc.len, &as, err) == -1)
		goto out;
	c.ncols = as.nfields;
	if (p.cols != NULL && p.ncols == as.nfields) {
		c.cols = p.cols;
		c.ntyped = p.ncols;
	}
	for (i = 0; i < as.nfields; i++) {
		sc_buf_reset(&e);
		escape_meta(&e, (const uint8_t *)as.fields[i].name,
		    strlen(as.fields[i].name));
		cells_add(&c, sc_xstrdup((const char *)e.data));
	}
	if (sc_arrow_read_stream(ipc.data, ipc.len, show_batch, &c, err) == -1)
		goto out;
	nrows = c.ncols > 0 ? c.n / c.ncols - 1 : 0;
	more = nrows > (size_t)num_rows;
	if (more)
		nrows = (size_t)num_rows;
	layout(&c, nrows, more, num_rows, s->vertical, text);
	rc = 0;
out:
	x->seq = sub.seq;
	for (i = 0; i < c.n; i++)
		free(c.v[i]);
	free(c.v);
	free(sub.params.v);
	sc_arrow_schema_release(&as);
	sc_buf_release(&ipc);
	sc_buf_release(&e);
	sc_eplan_release(&p);
	return rc;
}
