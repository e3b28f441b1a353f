/* SPDX-License-Identifier: MIT */

/*
 * output.c: record writers (table, CSV, TSV, JSON lines).
 *
 * Records are built in memory and written whole, several at a time
 * (one fwrite per OUT_CHUNK bytes, or per record when flushing after
 * each), so a record is never half-escaped.  The table format holds back
 * the first records to size its columns; output.h states every escaping
 * rule.
 */

#include "core/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/width.h"
#include "core/xmem.h"
#include "core/banned.h"

/* The table format sizes its columns from this many records ... */
#define TABLE_ROWS 1000
/* ... or fewer, if holding them would take more memory than this. */
#define TABLE_BYTES ((size_t)16 << 20)
/* Whole records are collected up to this many bytes before a write. */
#define OUT_CHUNK ((size_t)64 << 10)

/* One rendered table cell inside o->tbuf. */
struct cell {
	size_t off; /* into tbuf */
	size_t len; /* bytes */
	size_t width; /* terminal columns */
	bool right; /* right-aligned (numbers) */
};

struct sc_output {
	FILE *fp;
	enum sc_out_format format;
	bool header;
	bool flush;
	char *null_text;
	size_t null_len;

	bool have_names;
	size_t ncols;
	char **names;
	char **keys; /* JSON lines: each name escaped, with its ':' */
	size_t *keylens;

	int write_errno; /* first write error, or 0 */
	struct sc_buf line; /* the record being built */

	/*
	 * Table: the records of one page are held until its widths are
	 * known.  Widths only grow; when a page needs more than the header
	 * was drawn with, the header is drawn again above it.
	 */
	size_t page_rows;
	size_t *widths;
	size_t *drawn; /* widths the header was last drawn with */
	bool header_drawn;
	struct sc_buf tbuf; /* rendered cell text */
	struct cell *cells; /* header row first, if any */
	size_t ncells;
	size_t capcells;
	size_t nrows; /* data rows held */

	/* Vertical: the names as shown, their widths, records so far. */
	char **vnames;
	size_t *vname_widths;
	size_t name_width;
	uint64_t record;
};

int
sc_out_format_parse(const char *s, enum sc_out_format *out)
{
	if (strcasecmp(s, "table") == 0)
		*out = SC_OUT_TABLE;
	else if (strcasecmp(s, "csv") == 0)
		*out = SC_OUT_CSV;
	else if (strcasecmp(s, "tsv") == 0)
		*out = SC_OUT_TSV;
	else if (strcasecmp(s, "jsonl") == 0 || strcasecmp(s, "json") == 0)
		*out = SC_OUT_JSONL;
	else if (strcasecmp(s, "vertical") == 0)
		*out = SC_OUT_VERTICAL;
	else
		return -1;
	return 0;
}

static bool
is_regular_file(FILE *fp)
{
	struct stat st;
	int fd;

	fd = fileno(fp);
	return fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

struct sc_output *
sc_output_new(FILE *fp, enum sc_out_format format,
    const struct sc_output_opts *opts)
{
	struct sc_output *o;
	const char *nt;
	int flush;

	o = sc_xcalloc(1, sizeof(*o));
	o->fp = fp;
	o->format = format;
	o->header = opts != NULL ? opts->header : true;
	nt = opts != NULL ? opts->null_text : NULL;
	if (nt == NULL)
		nt = format == SC_OUT_TABLE || format == SC_OUT_VERTICAL
		    ? "NULL"
		    : "";
	o->null_text = sc_xstrdup(nt);
	o->null_len = strlen(nt);
	o->page_rows = opts != NULL && opts->page_rows > 0 ? opts->page_rows
							   : TABLE_ROWS;
	flush = opts != NULL ? opts->flush : -1;
	o->flush = flush < 0 ? !is_regular_file(fp) : flush != 0;
	sc_buf_init(&o->line, SC_BUF_UNLIMITED);
	sc_buf_init(&o->tbuf, SC_BUF_UNLIMITED);
	return o;
}

void
sc_output_free(struct sc_output *o)
{
	size_t i;

	if (o == NULL)
		return;
	/* Records not yet written go out as they would have one by one. */
	if (o->write_errno == 0 && o->line.len > 0)
		(void)fwrite(o->line.data, 1, o->line.len, o->fp);
	for (i = 0; i < o->ncols; i++) {
		free(o->names[i]);
		if (o->keys != NULL)
			free(o->keys[i]);
		if (o->vnames != NULL)
			free(o->vnames[i]);
	}
	free(o->vnames);
	free(o->vname_widths);
	free(o->names);
	free(o->keys);
	free(o->keylens);
	free(o->widths);
	free(o->drawn);
	free(o->cells);
	free(o->null_text);
	sc_buf_release(&o->line);
	sc_buf_release(&o->tbuf);
	free(o);
}

static int
write_failed(struct sc_output *o, struct sc_error *err)
{
	return sc_error_set_errno(err, SC_ST_IO, o->write_errno,
	    "cannot write output");
}

/* Write n bytes; remember the first failure. */
static int
put(struct sc_output *o, const void *p, size_t n, struct sc_error *err)
{
	if (o->write_errno != 0)
		return write_failed(o, err);
	errno = 0;
	if ((n > 0 && fwrite(p, 1, n, o->fp) != n) || ferror(o->fp)) {
		o->write_errno = errno != 0 ? errno : EIO;
		return write_failed(o, err);
	}
	return 0;
}

/* Write all of o->line, then fflush if flush. */
static int
drain(struct sc_output *o, bool flush, struct sc_error *err)
{
	int rc;

	rc = put(o, o->line.data, o->line.len, err);
	sc_buf_reset(&o->line);
	if (rc == 0 && flush) {
		errno = 0;
		if (fflush(o->fp) == EOF) {
			o->write_errno = errno != 0 ? errno : EIO;
			return write_failed(o, err);
		}
	}
	return rc;
}

/* A record is complete in o->line: write it now or with later ones. */
static int
put_line(struct sc_output *o, struct sc_error *err)
{
	if (!o->flush && o->line.len < OUT_CHUNK)
		return 0;
	return drain(o, o->flush, err);
}

/* Length of the valid UTF-8 sequence at p, or 0 (core/width). */
static size_t
utf8_len(const unsigned char *p, size_t n)
{
	return sc_utf8_len(p, n, NULL);
}

static void
add(struct sc_output *o, const void *p, size_t n)
{
	struct sc_buf *b = &o->line;

	/* Room for n bytes and the NUL (cap is 0 before the first add). */
	if (n < b->cap - b->len) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
		b->data[b->len] = '\0';
		return;
	}
	/* The line buffer is unlimited: sc_buf_add() cannot fail here. */
	(void)sc_buf_add(b, p, n, NULL);
}

static void
addstr(struct sc_output *o, const char *s)
{
	add(o, s, strlen(s));
}

/* --- JSON lines --------------------------------------------------------- */

static void
json_string(struct sc_output *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	char esc[6];
	size_t i, start, len;

	addstr(o, "\"");
	for (i = 0, start = 0; i < n; i += len) {
		len = 1;
		if (p[i] >= 0x20 && p[i] != '"' && p[i] != '\\' && p[i] < 0x80)
			continue;
		if (p[i] >= 0x80 && (len = utf8_len(p + i, n - i)) > 0)
			continue;
		add(o, p + start, i - start);
		len = 1;
		switch (p[i]) {
		case '"':
			addstr(o, "\\\"");
			break;
		case '\\':
			addstr(o, "\\\\");
			break;
		case '\b':
			addstr(o, "\\b");
			break;
		case '\f':
			addstr(o, "\\f");
			break;
		case '\n':
			addstr(o, "\\n");
			break;
		case '\r':
			addstr(o, "\\r");
			break;
		case '\t':
			addstr(o, "\\t");
			break;
		default:
			if (p[i] < 0x20) {
				memcpy(esc, "\\u00", 4);
				esc[4] = hex[p[i] >> 4];
				esc[5] = hex[p[i] & 0xf];
				add(o, esc, 6);
			} else
				addstr(o, "\\ufffd"); /* invalid UTF-8 */
		}
		start = i + 1;
	}
	add(o, p + start, n - start);
	addstr(o, "\"");
}

/* RFC 8259 number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool
json_number_ok(const char *s, size_t n)
{
	size_t i = 0, d;

	if (i < n && s[i] == '-')
		i++;
	if (i < n && s[i] == '0')
		i++;
	else if (i < n && s[i] >= '1' && s[i] <= '9')
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	else
		return false;
	if (i < n && s[i] == '.') {
		for (i++, d = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			d++;
		if (d == 0)
			return false;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		for (d = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			d++;
		if (d == 0)
			return false;
	}
	return i == n;
}

static void
json_value(struct sc_output *o, const struct sc_out_value *v)
{
	size_t i, start;

	switch (v->kind) {
	case SC_OUT_NULL:
		addstr(o, "null");
		return;
	case SC_OUT_NUMBER:
		if (v->n > 0 && json_number_ok(v->p, v->n)) {
			add(o, v->p, v->n);
			return;
		}
		break;
	case SC_OUT_BOOL:
		if ((v->n == 4 && memcmp(v->p, "true", 4) == 0) ||
		    (v->n == 5 && memcmp(v->p, "false", 5) == 0)) {
			add(o, v->p, v->n);
			return;
		}
		break;
	case SC_OUT_JSON:
		if (v->n == 0) {
			addstr(o, "null");
			return;
		}
		/*
		 * Raw, but a line break (only ever whitespace outside
		 * strings in valid JSON) would split the record.
		 */
		for (i = 0, start = 0; i < v->n; i++)
			if (v->p[i] == '\n' || v->p[i] == '\r') {
				add(o, v->p + start, i - start);
				addstr(o, " ");
				start = i + 1;
			}
		add(o, v->p + start, v->n - start);
		return;
	case SC_OUT_STRING:
		break;
	}
	if (v->n == 0 && v->kind != SC_OUT_STRING)
		addstr(o, "null");
	else
		json_string(o, v->p, v->n);
}

static int
jsonl_row(struct sc_output *o, const struct sc_out_value *v,
    struct sc_error *err)
{
	size_t i;

	addstr(o, "{");
	for (i = 0; i < o->ncols; i++) {
		if (i > 0)
			addstr(o, ",");
		add(o, o->keys[i], o->keylens[i]);
		json_value(o, &v[i]);
	}
	addstr(o, "}\n");
	return put_line(o, err);
}

/* --- CSV and TSV ------------------------------------------------------- */

static void
csv_field(struct sc_output *o, enum sc_out_kind kind, const char *p, size_t n)
{
	size_t i, start;
	bool quote;

	if (kind == SC_OUT_NULL) {
		p = o->null_text;
		n = o->null_len;
	}
	quote = n > 0 &&
	    (p[0] == ' ' || p[0] == '\t' || p[n - 1] == ' ' ||
		p[n - 1] == '\t');
	for (i = 0; i < n && !quote; i++)
		if (p[i] == ',' || p[i] == '"' || p[i] == '\r' || p[i] == '\n')
			quote = true;
	/* A value that reads like the null text must not be mistaken. */
	if (kind != SC_OUT_NULL && n == o->null_len &&
	    (n == 0 || memcmp(p, o->null_text, n) == 0))
		quote = true;
	if (!quote) {
		add(o, p, n);
		return;
	}
	addstr(o, "\"");
	for (i = 0, start = 0; i < n; i++)
		if (p[i] == '"') {
			add(o, p + start, i + 1 - start);
			addstr(o, "\"");
			start = i + 1;
		}
	add(o, p + start, n - start);
	addstr(o, "\"");
}

static void
tsv_field(struct sc_output *o, enum sc_out_kind kind, const char *p, size_t n)
{
	const char *rep;
	size_t i, start;

	if (kind == SC_OUT_NULL) {
		add(o, o->null_text, o->null_len);
		return;
	}
	for (i = 0, start = 0; i < n; i++) {
		switch (p[i]) {
		case '\t':
			rep = "\\t";
			break;
		case '\n':
			rep = "\\n";
			break;
		case '\r':
			rep = "\\r";
			break;
		case '\\':
			rep = "\\\\";
			break;
		case '\0':
			rep = "\\0";
			break;
		default:
			continue;
		}
		add(o, p + start, i - start);
		addstr(o, rep);
		start = i + 1;
	}
	add(o, p + start, n - start);
}

static int
sv_row(struct sc_output *o, const struct sc_out_value *v, size_t n,
    struct sc_error *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i > 0)
			addstr(o, o->format == SC_OUT_CSV ? "," : "\t");
		if (o->format == SC_OUT_CSV)
			csv_field(o, v[i].kind, v[i].p, v[i].n);
		else
			tsv_field(o, v[i].kind, v[i].p, v[i].n);
	}
	addstr(o, "\n");
	return put_line(o, err);
}

/* --- table ----------------------------------------------------------- */

/*
 * Append the display form of n bytes at p to b and return its width in
 * terminal columns (core/width: 2 for wide characters, 0 for combining
 * marks): control characters and bytes of invalid UTF-8 become visible
 * escapes, so a cell is always one line.
 */
static size_t
render(struct sc_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	char esc[8];
	size_t i, len, w = 0, cp;
	uint32_t cpv;

	for (i = 0; i < n; i += len) {
		/* A run of printable ASCII is copied as it is. */
		for (len = 0;
		     i + len < n && p[i + len] >= 0x20 && p[i + len] < 0x7f;
		     len++)
			;
		if (len > 0) {
			(void)sc_buf_add(b, p + i, len, NULL);
			w += len;
			continue;
		}
		len = utf8_len(p + i, n - i);
		if (len == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0) {
			/* C1 control characters, U+0080-U+009F. */
			cp = p[i + 1];
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[cp >> 4];
			esc[5] = hex[cp & 0xf];
			(void)sc_buf_add(b, esc, 6, NULL);
			w += 6;
			continue;
		}
		if (len > 1) {
			(void)sc_utf8_len(p + i, n - i, &cpv);
			(void)sc_buf_add(b, p + i, len, NULL);
			w += (size_t)sc_width_cp(cpv);
			continue;
		}
		len = 1;
		if (p[i] == '\t')
			(void)sc_buf_add(b, "\\t", 2, NULL);
		else if (p[i] == '\n')
			(void)sc_buf_add(b, "\\n", 2, NULL);
		else if (p[i] == '\r')
			(void)sc_buf_add(b, "\\r", 2, NULL);
		else {
			memcpy(esc, "\\x", 2);
			esc[2] = hex[p[i] >> 4];
			esc[3] = hex[p[i] & 0xf];
			(void)sc_buf_add(b, esc, 4, NULL);
			w += 4;
			continue;
		}
		w += 2;
	}
	return w;
}

/* Render one cell into tbuf and record it. */
static void
hold_cell(struct sc_output *o, enum sc_out_kind kind, const char *p, size_t n)
{
	struct cell *c;

	if (o->ncells == o->capcells) {
		o->capcells = o->capcells ? o->capcells * 2 : 64;
		o->cells =
		    sc_xreallocarray(o->cells, o->capcells, sizeof(*o->cells));
	}
	c = &o->cells[o->ncells++];
	c->off = o->tbuf.len;
	if (kind == SC_OUT_NULL)
		c->width = render(&o->tbuf, o->null_text, o->null_len);
	else
		c->width = render(&o->tbuf, p, n);
	c->len = o->tbuf.len - c->off;
	c->right = kind == SC_OUT_NUMBER;
}

static void
spaces(struct sc_output *o, size_t n)
{
	static const char sp[] = "                                ";
	size_t k;

	while (n > 0) {
		k = n < sizeof(sp) - 1 ? n : sizeof(sp) - 1;
		add(o, sp, k);
		n -= k;
	}
}

/* Lay out one record of ncols cells (text in tb) into o->line. */
static void
table_line(struct sc_output *o, const struct cell *cells, const char *tb)
{
	size_t i, pad, start = o->line.len;

	for (i = 0; i < o->ncols; i++) {
		const struct cell *c = &cells[i];
		bool last = i + 1 == o->ncols;

		if (i > 0)
			addstr(o, "  ");
		pad = o->widths[i] > c->width ? o->widths[i] - c->width : 0;
		if (c->right)
			spaces(o, pad);
		add(o, tb + c->off, c->len);
		if (!c->right && !last)
			spaces(o, pad);
	}
	/* No trailing blanks, e.g. after padding before an empty cell. */
	while (o->line.len > start && o->line.data[o->line.len - 1] == ' ')
		sc_buf_setlen(&o->line, o->line.len - 1);
	addstr(o, "\n");
}

static void
table_rule(struct sc_output *o)
{
	size_t i, k;

	for (i = 0; i < o->ncols; i++) {
		if (i > 0)
			addstr(o, "  ");
		for (k = 0; k < o->widths[i]; k++)
			addstr(o, "-");
	}
	addstr(o, "\n");
}

/* Write o->line out once it is large: a page is written in pieces. */
static int
put_piece(struct sc_output *o, struct sc_error *err)
{
	int rc;

	if (o->line.len < 65536)
		return 0;
	rc = put(o, o->line.data, o->line.len, err);
	sc_buf_reset(&o->line);
	return rc;
}

/*
 * The page's widths are known: write the header if it was not drawn
 * yet or the columns grew since, then every held record.
 */
static int
table_release(struct sc_output *o, struct sc_error *err)
{
	size_t r, first = o->header ? 1 : 0;
	bool redraw = !o->header_drawn;

	if (o->drawn == NULL)
		o->drawn =
		    sc_xcalloc(o->ncols ? o->ncols : 1, sizeof(*o->drawn));
	for (r = 0; r < o->ncols; r++)
		if (o->widths[r] != o->drawn[r])
			redraw = true;
	if (o->header && o->ncols > 0 && redraw) {
		if (o->header_drawn)
			addstr(o, "\n");
		table_line(o, o->cells, (const char *)o->tbuf.data);
		table_rule(o);
	}
	o->header_drawn = true;
	memcpy(o->drawn, o->widths, o->ncols * sizeof(*o->drawn));
	for (r = 0; r < o->nrows; r++) {
		table_line(o, o->cells + (first + r) * o->ncols,
		    (const char *)o->tbuf.data);
		if (put_piece(o, err) == -1)
			return -1;
	}
	/* Keep the header's cells for the next page. */
	o->ncells = first * o->ncols;
	if (o->ncells > 0)
		sc_buf_setlen(&o->tbuf,
		    o->cells[o->ncells - 1].off + o->cells[o->ncells - 1].len);
	else
		sc_buf_reset(&o->tbuf);
	o->nrows = 0;
	return put_line(o, err);
}

static int
table_row(struct sc_output *o, const struct sc_out_value *v,
    struct sc_error *err)
{
	size_t i, base = o->ncells;

	for (i = 0; i < o->ncols; i++)
		hold_cell(o, v[i].kind, v[i].p, v[i].n);
	for (i = 0; i < o->ncols; i++)
		if (o->cells[base + i].width > o->widths[i])
			o->widths[i] = o->cells[base + i].width;
	o->nrows++;
	if (o->nrows >= o->page_rows ||
	    o->tbuf.len + o->ncells * sizeof(struct cell) > TABLE_BYTES)
		return table_release(o, err);
	return 0;
}

/* --- vertical --------------------------------------------------------- */

/*
 * One block per record, as psql's expanded mode: a "-[ RECORD n ]" line
 * (a blank line instead without the header), then "name | value" per
 * column, the names padded to one width.
 */
static int
vertical_row(struct sc_output *o, const struct sc_out_value *v,
    struct sc_error *err)
{
	const struct cell *c;
	size_t i, w, wmax = 0, start;
	char label[48];
	int n;

	o->record++;
	sc_buf_reset(&o->tbuf);
	o->ncells = 0;
	for (i = 0; i < o->ncols; i++) {
		hold_cell(o, v[i].kind, v[i].p, v[i].n);
		if (o->cells[i].width > wmax)
			wmax = o->cells[i].width;
	}
	if (o->header) {
		n = snprintf(label, sizeof(label), "-[ RECORD %llu ]",
		    (unsigned long long)o->record);
		addstr(o, label);
		for (w = (size_t)n; w < o->name_width + 3 + wmax; w++)
			addstr(o, "-");
		addstr(o, "\n");
	} else if (o->record > 1)
		addstr(o, "\n");
	for (i = 0; i < o->ncols; i++) {
		c = &o->cells[i];
		start = o->line.len;
		addstr(o, o->vnames[i]);
		spaces(o, o->name_width - o->vname_widths[i]);
		addstr(o, " | ");
		add(o, o->tbuf.data + c->off, c->len);
		while (
		    o->line.len > start && o->line.data[o->line.len - 1] == ' ')
			sc_buf_setlen(&o->line, o->line.len - 1);
		addstr(o, "\n");
	}
	o->ncells = 0;
	sc_buf_reset(&o->tbuf);
	return put_line(o, err);
}

/* --- public ------------------------------------------------------------- */

int
sc_output_header(struct sc_output *o, const char *const *names, size_t n,
    struct sc_error *err)
{
	size_t i;

	if (o->have_names)
		return sc_error_set(err, SC_ST_INTERNAL,
		    "output header written twice");
	o->have_names = true;
	o->ncols = n;
	o->names = sc_xcalloc(n ? n : 1, sizeof(*o->names));
	for (i = 0; i < n; i++)
		o->names[i] = sc_xstrdup(names[i]);
	if (o->header && (o->format == SC_OUT_CSV || o->format == SC_OUT_TSV)) {
		struct sc_out_value v;

		for (i = 0; i < n; i++) {
			v.kind = SC_OUT_STRING;
			v.p = names[i];
			v.n = strlen(names[i]);
			if (i > 0)
				addstr(o, o->format == SC_OUT_CSV ? "," : "\t");
			if (o->format == SC_OUT_CSV)
				csv_field(o, v.kind, v.p, v.n);
			else
				tsv_field(o, v.kind, v.p, v.n);
		}
		addstr(o, "\n");
		if (put_line(o, err) == -1)
			return -1;
	}
	if (o->format == SC_OUT_JSONL) {
		/* Escape the keys once; o->line holds no record yet. */
		o->keys = sc_xcalloc(n ? n : 1, sizeof(*o->keys));
		o->keylens = sc_xcalloc(n ? n : 1, sizeof(*o->keylens));
		for (i = 0; i < n; i++) {
			sc_buf_reset(&o->line);
			json_string(o, names[i], strlen(names[i]));
			addstr(o, ":");
			o->keys[i] = sc_xstrdup((const char *)o->line.data);
			o->keylens[i] = o->line.len;
		}
		sc_buf_reset(&o->line);
	}
	if (o->format == SC_OUT_VERTICAL) {
		o->vnames = sc_xcalloc(n ? n : 1, sizeof(*o->vnames));
		o->vname_widths =
		    sc_xcalloc(n ? n : 1, sizeof(*o->vname_widths));
		for (i = 0; i < n; i++) {
			sc_buf_reset(&o->tbuf);
			o->vname_widths[i] =
			    render(&o->tbuf, names[i], strlen(names[i]));
			o->vnames[i] = sc_xstrdup((const char *)o->tbuf.data);
			if (o->vname_widths[i] > o->name_width)
				o->name_width = o->vname_widths[i];
		}
		sc_buf_reset(&o->tbuf);
	}
	if (o->format == SC_OUT_TABLE) {
		o->widths = sc_xcalloc(n ? n : 1, sizeof(*o->widths));
		if (o->header)
			for (i = 0; i < n; i++) {
				hold_cell(o, SC_OUT_STRING, names[i],
				    strlen(names[i]));
				o->widths[i] = o->cells[i].width;
			}
	}
	return 0;
}

int
sc_output_row(struct sc_output *o, const struct sc_out_value *v, size_t n,
    struct sc_error *err)
{
	if (o->write_errno != 0)
		return write_failed(o, err);
	if (!o->have_names)
		return sc_error_set(err, SC_ST_INTERNAL,
		    "output record before the header");
	if (n != o->ncols)
		return sc_error_set(err, SC_ST_INTERNAL,
		    "output record has %zu values for %zu columns", n,
		    o->ncols);
	switch (o->format) {
	case SC_OUT_TABLE:
		return table_row(o, v, err);
	case SC_OUT_VERTICAL:
		return vertical_row(o, v, err);
	case SC_OUT_JSONL:
		return jsonl_row(o, v, err);
	case SC_OUT_CSV:
	case SC_OUT_TSV:
		break;
	}
	return sv_row(o, v, n, err);
}

int
sc_output_flush(struct sc_output *o, struct sc_error *err)
{
	if (o->write_errno != 0)
		return write_failed(o, err);
	return drain(o, true, err);
}

int
sc_output_finish(struct sc_output *o, struct sc_error *err)
{
	if (o->write_errno != 0)
		return write_failed(o, err);
	if (o->format == SC_OUT_TABLE && o->have_names &&
	    (o->nrows > 0 || !o->header_drawn) && table_release(o, err) == -1)
		return -1;
	if (o->line.len > 0 && drain(o, false, err) == -1)
		return -1;
	errno = 0;
	if (fflush(o->fp) == EOF || ferror(o->fp)) {
		o->write_errno = errno != 0 ? errno : EIO;
		return write_failed(o, err);
	}
	return 0;
}

/* ------------------------------------------------- atomic output files */

/* The directory part of path ("." if none), malloc'ed. */
static char *
dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return sc_xstrdup(".");
	if (slash == path)
		return sc_xstrdup("/");
	return sc_xstrndup(path, (size_t)(slash - path));
}

/* A temporary name beside path: "<dir>/.<base>.XXXXXX", malloc'ed. */
static char *
tmp_template(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return sc_xasprintf(".%s.XXXXXX", path);
	return sc_xasprintf("%.*s/.%s.XXXXXX", (int)(slash - path), path,
	    slash + 1);
}

/* The name an unnamed file gets before its rename (try number i). */
static char *
tmp_name(const char *path, int i)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return sc_xasprintf(".%s.%ld.%d", path, (long)getpid(), i);
	return sc_xasprintf("%.*s/.%s.%ld.%d", (int)(slash - path), path,
	    slash + 1, (long)getpid(), i);
}

static void
outfile_release(struct sc_outfile *f)
{
	SC_FREE(f->path);
	SC_FREE(f->tmp);
	f->fp = NULL;
	f->fd = -1;
}

int
sc_outfile_open(struct sc_outfile *f, const char *path, struct sc_error *err)
{
	struct stat st;
	char *dir;
	mode_t um;
	int fd = -1, e;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->path = sc_xstrdup(path);
	/* Not a file to replace: a device, a FIFO, a socket. */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
	    !S_ISDIR(st.st_mode)) {
		f->direct = true;
		if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1 ||
		    (f->fp = fdopen(fd, "w")) == NULL) {
			e = errno;
			if (fd != -1)
				close(fd);
			outfile_release(f);
			return sc_error_set_errno(err, SC_ST_IO, e,
			    "cannot write '%s'", path);
		}
		f->fd = fd;
		return 0;
	}
	/*
	 * An unnamed file (O_TMPFILE) vanishes with the process whatever
	 * kills it; linking it needs /proc.  Elsewhere, a hidden name.
	 */
#ifdef O_TMPFILE
	if (access("/proc/self/fd", X_OK) == 0) {
		dir = dir_of(path);
		fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
		free(dir);
	}
#endif
	if (fd == -1) {
		f->tmp = tmp_template(path);
		if ((fd = mkostemp(f->tmp, O_CLOEXEC)) == -1) {
			e = errno;
			outfile_release(f);
			return sc_error_set_errno(err, SC_ST_IO, e,
			    "cannot write '%s'", path);
		}
		um = umask(0);
		umask(um);
		(void)fchmod(fd, 0666 & ~um);
	}
	if ((f->fp = fdopen(fd, "w")) == NULL) {
		e = errno;
		close(fd);
		if (f->tmp != NULL)
			unlink(f->tmp);
		outfile_release(f);
		return sc_error_set_errno(err, SC_ST_IO, e, "cannot write '%s'",
		    path);
	}
	f->fd = fd;
	return 0;
}

int
sc_outfile_commit(struct sc_outfile *f, struct sc_error *err)
{
	char proc[64], *tmp = NULL;
	int e = 0, i;

	if (f->fp == NULL)
		return sc_error_set(err, SC_ST_INTERNAL, "output file closed");
	errno = 0;
	if (fflush(f->fp) == EOF || ferror(f->fp))
		e = errno != 0 ? errno : EIO;
	else if (!f->direct && fsync(f->fd) == -1 && errno != EINVAL &&
	    errno != EROFS)
		e = errno;
	if (f->direct) {
		if (fclose(f->fp) == EOF && e == 0)
			e = errno;
		f->fp = NULL;
		if (e != 0)
			sc_error_set_errno(err, SC_ST_IO, e,
			    "cannot write '%s'", f->path);
		outfile_release(f);
		return e != 0 ? -1 : 0;
	}
	if (e == 0 && f->tmp == NULL) {
		/* Name the unnamed file beside the target, then rename. */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
		for (i = 0; i < 100; i++) {
			tmp = tmp_name(f->path, i);
			if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp,
				AT_SYMLINK_FOLLOW) == 0)
				break;
			e = errno;
			SC_FREE(tmp);
			if (e != EEXIST)
				break;
		}
		if (tmp != NULL) {
			f->tmp = tmp;
			e = 0;
		} else if (e == 0)
			e = EEXIST;
	}
	if (fclose(f->fp) == EOF && e == 0)
		e = errno;
	f->fp = NULL;
	if (e == 0 && rename(f->tmp, f->path) == -1)
		e = errno;
	if (e != 0) {
		if (f->tmp != NULL)
			unlink(f->tmp);
		sc_error_set_errno(err, SC_ST_IO, e, "cannot write '%s'",
		    f->path);
		outfile_release(f);
		return -1;
	}
	outfile_release(f);
	return 0;
}

void
sc_outfile_abort(struct sc_outfile *f)
{
	if (f->fp == NULL)
		return;
	fclose(f->fp);
	if (f->tmp != NULL)
		unlink(f->tmp);
	outfile_release(f);
}
