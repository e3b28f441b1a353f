/* SPDX-License-Identifier: MIT */

/*
 * engine_files_text.c: the text formats of engine_files.c's uploaded
 * files: a file read line by line (only one line held at a time), a CSV
 * line split into fields and a value's narrowest kind, a JSON line
 * parsed into its keys and values.
 */

#include "engine/engine_int.h"
#include "engine/store/engine_files_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* ------------------------------------------------------------------ */
/* Lines                                                               */
/* ------------------------------------------------------------------ */

void
sc_eng_lines_open(struct lines *l, int fd, const char *name, int64_t max)
{
	l->fd = fd;
	l->st = NULL;
	l->x = NULL;
	l->name = name;
	l->pos = l->end = 0;
	l->eof = false;
	l->max = max;
	l->no = 0;
	sc_buf_reset(&l->line);
}

void
sc_eng_lines_open_rows(struct lines *l, struct sc_ectx *x,
    struct sqlite3_stmt *st, const char *name, int64_t max)
{
	sc_eng_lines_open(l, -1, name, max);
	l->st = st;
	l->x = x;
}

/*
 * The next row of l->st into l->line, whole: 1, 0, -1.  Null rows and
 * rows of nothing but spaces and control characters are skipped, as
 * Spark skips those whose trim() is empty.
 */
static int
row_next(struct lines *l, struct sc_error *err)
{
	const unsigned char *s;
	size_t n, i;
	int rc;

	while ((rc = sc_eng_step(l->x, l->st)) == SQLITE_ROW) {
		s = sqlite3_column_text(l->st, 0);
		n = (size_t)sqlite3_column_bytes(l->st, 0);
		for (i = 0; s != NULL && i < n && s[i] <= ' '; i++)
			;
		if (s == NULL || i == n)
			continue;
		sc_buf_add(&l->line, s, n, NULL);
		l->no++;
		return 1;
	}
	return rc == SQLITE_DONE ? 0 : sc_eng_sqlite_error(l->x, rc, err);
}

/*
 * The next line into l->line, without its "\n" or "\r\n" (or a lone
 * "\r" at the end of the file): 1, 0 at the end, -1 (err set).
 */
int
sc_eng_lines_next(struct lines *l, struct sc_error *err)
{
	uint8_t *nl;
	size_t k;
	ssize_t r;

	sc_buf_reset(&l->line);
	if (l->st != NULL)
		return row_next(l, err);
	for (;;) {
		if (l->pos == l->end) {
			if (l->eof)
				break;
			do
				r = read(l->fd, l->buf, sizeof(l->buf));
			while (r == -1 && errno == EINTR);
			if (r == -1)
				return sc_srv_error(err, "FAILED_READ_FILE",
				    "KD001", "Cannot read %s: %s.", l->name,
				    strerror(errno));
			l->pos = 0;
			l->end = (size_t)r;
			if (r == 0) {
				l->eof = true;
				break;
			}
		}
		nl = memchr(l->buf + l->pos, '\n', l->end - l->pos);
		k = nl != NULL ? (size_t)(nl - (l->buf + l->pos))
			       : l->end - l->pos;
		if ((int64_t)(l->line.len + k) > l->max)
			return sc_eng_too_big(err, l->max, "A line of a file");
		sc_buf_add(&l->line, l->buf + l->pos, k, NULL);
		l->pos += k;
		if (nl != NULL) {
			l->pos++;
			goto got;
		}
	}
	if (l->line.len == 0)
		return 0;
got:
	if (l->line.len > 0 && l->line.data[l->line.len - 1] == '\r')
		sc_buf_setlen(&l->line, l->line.len - 1);
	l->no++;
	return 1;
}

int
sc_eng_lines_rewind(struct lines *l, struct sc_error *err)
{
	if (l->st != NULL) {
		sqlite3_reset(l->st);
		sc_eng_lines_open_rows(l, l->x, l->st, l->name, l->max);
		return 0;
	}
	if (lseek(l->fd, 0, SEEK_SET) == -1)
		return sc_srv_error(err, "FAILED_READ_FILE", "KD001",
		    "Cannot read %s again: %s.", l->name, strerror(errno));
	sc_eng_lines_open(l, l->fd, l->name, l->max);
	return 0;
}

/* ------------------------------------------------------------------ */
/* CSV                                                                 */
/* ------------------------------------------------------------------ */

static void
fields_push(struct fields *f, size_t off, size_t len, bool null)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 16;
		f->v = sc_xreallocarray(f->v, f->cap, sizeof(*f->v));
	}
	f->v[f->n].off = off;
	f->v[f->n].len = len;
	f->v[f->n++].null = null;
}

const char *
sc_eng_field_text(const struct fields *f, size_t i)
{
	return (const char *)f->text.data + f->v[i].off;
}

/*
 * Split one line of CSV into fields.  A field starting with the quote
 * character is quoted: inside it the separator is data, escape+quote and
 * a doubled quote are one quote, escape+escape before a quote is one
 * escape; what follows the closing quote up to the separator is kept.
 * A field is null when it is empty and not quoted, or equals nullValue
 * (quoted or not, as Spark compares after parsing).  Every field is
 * NUL-terminated in f->text.
 */
void
sc_eng_csv_split(const struct ropts *o, const char *s, size_t n,
    struct fields *f)
{
	size_t i = 0, off, nl = strlen(o->nullv);
	bool quoted;
	char c;

	f->n = 0;
	sc_buf_reset(&f->text);
	for (;;) {
		off = f->text.len;
		quoted = false;
		if (i < n && o->quote != '\0' && s[i] == o->quote) {
			quoted = true;
			for (i++; i < n; i++) {
				c = s[i];
				if (o->esc != '\0' && c == o->esc &&
				    o->esc != o->quote && i + 1 < n &&
				    s[i + 1] == o->quote) {
					sc_buf_addch(&f->text, o->quote, NULL);
					i++;
				} else if (o->esc != '\0' && c == o->esc &&
				    o->esc != o->quote && i + 2 < n &&
				    s[i + 1] == o->esc &&
				    s[i + 2] == o->quote) {
					sc_buf_addch(&f->text, o->esc, NULL);
					i++;
				} else if (c == o->quote && i + 1 < n &&
				    s[i + 1] == o->quote) {
					sc_buf_addch(&f->text, o->quote, NULL);
					i++;
				} else if (c == o->quote) {
					i++;
					break;
				} else {
					sc_buf_addch(&f->text, c, NULL);
				}
			}
		}
		while (i < n && s[i] != o->sep)
			sc_buf_addch(&f->text, s[i++], NULL);
		fields_push(f, off, f->text.len - off,
		    (!quoted && f->text.len == off) ||
			(f->text.len - off == nl &&
			    memcmp(f->text.data + off, o->nullv, nl) == 0));
		sc_buf_addch(&f->text, '\0', NULL);
		if (i >= n)
			break;
		i++; /* the separator */
	}
}

static bool
all_digits(const char *s, size_t *nd)
{
	size_t i = 0;

	if (*s == '+' || *s == '-')
		s++;
	while (isdigit((unsigned char)s[i]))
		i++;
	*nd = i;
	return i > 0 && s[i] == '\0';
}

static bool
digits(const char *s, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* yyyy-MM-dd */
static bool
is_date(const char *s)
{
	int m, d;

	if (!digits(s, 4) || s[4] != '-' || !digits(s + 5, 2) || s[7] != '-' ||
	    !digits(s + 8, 2))
		return false;
	m = (s[5] - '0') * 10 + s[6] - '0';
	d = (s[8] - '0') * 10 + s[9] - '0';
	return m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

/* yyyy-MM-dd[T ]HH:mm[:ss[.f{1,6}]][Z|+hh:mm|-hh:mm] */
static bool
is_timestamp(const char *s)
{
	size_t i;

	if (!is_date(s) || (s[10] != ' ' && s[10] != 'T') ||
	    !digits(s + 11, 2) || s[13] != ':' || !digits(s + 14, 2))
		return false;
	if (s[11] > '2' || (s[11] == '2' && s[12] > '3') || s[14] > '5')
		return false;
	i = 16;
	if (s[i] == ':') {
		if (!digits(s + i + 1, 2) || s[i + 1] > '5')
			return false;
		i += 3;
		if (s[i] == '.') {
			size_t k = 0;

			for (i++; isdigit((unsigned char)s[i]); i++)
				k++;
			if (k < 1 || k > 6)
				return false;
		}
	}
	if (s[i] == 'Z')
		i++;
	else if (s[i] == '+' || s[i] == '-') {
		if (!digits(s + i + 1, 2) || s[i + 3] != ':' ||
		    !digits(s + i + 4, 2))
			return false;
		i += 6;
	}
	return s[i] == '\0';
}

static bool
is_double(const char *s)
{
	char *end;
	const char *p = s;

	if (strcmp(s, "NaN") == 0 || strcmp(s, "Infinity") == 0 ||
	    strcmp(s, "+Infinity") == 0 || strcmp(s, "-Infinity") == 0)
		return true;
	if (*p == '+' || *p == '-')
		p++;
	/* Decimal digits only (strtod would also take hex, inf, nan). */
	if (!isdigit((unsigned char)*p) && *p != '.')
		return false;
	for (; *p != '\0'; p++)
		if (!isdigit((unsigned char)*p) && *p != '.' && *p != 'e' &&
		    *p != 'E' && *p != '+' && *p != '-')
			return false;
	errno = 0;
	(void)strtod(s, &end);
	return end != s && *end == '\0';
}

/* The narrowest kind of one CSV value, in Spark's order of tries. */
enum rkind
sc_eng_csv_kind(const char *s)
{
	size_t nd;
	char *end;
	long long v;

	if (all_digits(s, &nd) && nd <= 19) {
		errno = 0;
		v = strtoll(s, &end, 10);
		if (errno == 0 && *end == '\0')
			return v >= INT32_MIN && v <= INT32_MAX ? K_INT
								: K_LONG;
	}
	if (is_double(s))
		return K_DOUBLE;
	if (is_date(s) && s[10] == '\0')
		return K_DATE;
	if (is_timestamp(s))
		return K_TS;
	if (strcasecmp(s, "true") == 0 || strcasecmp(s, "false") == 0)
		return K_BOOL;
	return K_STRING;
}

enum rkind
sc_eng_kind_merge(enum rkind a, enum rkind b)
{
	bool na = a >= K_INT && a <= K_DOUBLE, nb = b >= K_INT && b <= K_DOUBLE;

	if (a == K_NONE || a == b)
		return b;
	if (b == K_NONE)
		return a;
	if (na && nb) {
		if ((a == K_DEC && b == K_DOUBLE) ||
		    (a == K_DOUBLE && b == K_DEC))
			return K_DOUBLE;
		return a > b ? a : b;
	}
	if ((a == K_DATE && b == K_TS) || (a == K_TS && b == K_DATE))
		return K_TS;
	return K_STRING;
}

/* ------------------------------------------------------------------ */
/* JSON lines                                                          */
/* ------------------------------------------------------------------ */

struct jp {
	const char *s;
	size_t n, i;
};

static void
jws(struct jp *p)
{
	while (p->i < p->n &&
	    (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\r' ||
		p->s[p->i] == '\n'))
		p->i++;
}

static int
jhex4(struct jp *p, unsigned *out)
{
	unsigned v = 0;
	int k;
	char c;

	if (p->i + 4 > p->n)
		return -1;
	for (k = 0; k < 4; k++) {
		c = p->s[p->i++];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static void
put_utf8(struct sc_buf *b, unsigned cp)
{
	if (cp < 0x80) {
		sc_buf_addch(b, (int)cp, NULL);
	} else if (cp < 0x800) {
		sc_buf_addch(b, (int)(0xc0 | (cp >> 6)), NULL);
		sc_buf_addch(b, (int)(0x80 | (cp & 0x3f)), NULL);
	} else if (cp < 0x10000) {
		sc_buf_addch(b, (int)(0xe0 | (cp >> 12)), NULL);
		sc_buf_addch(b, (int)(0x80 | ((cp >> 6) & 0x3f)), NULL);
		sc_buf_addch(b, (int)(0x80 | (cp & 0x3f)), NULL);
	} else {
		sc_buf_addch(b, (int)(0xf0 | (cp >> 18)), NULL);
		sc_buf_addch(b, (int)(0x80 | ((cp >> 12) & 0x3f)), NULL);
		sc_buf_addch(b, (int)(0x80 | ((cp >> 6) & 0x3f)), NULL);
		sc_buf_addch(b, (int)(0x80 | (cp & 0x3f)), NULL);
	}
}

/* A string at p->i (after its '"'), unescaped into b; 0 or -1. */
static int
jstring(struct jp *p, struct sc_buf *b)
{
	unsigned cp, lo;
	char c;

	while (p->i < p->n) {
		c = p->s[p->i++];
		if (c == '"')
			return 0;
		if ((unsigned char)c < 0x20)
			return -1;
		if (c != '\\') {
			sc_buf_addch(b, c, NULL);
			continue;
		}
		if (p->i >= p->n)
			return -1;
		switch (c = p->s[p->i++]) {
		case '"':
		case '\\':
		case '/':
			sc_buf_addch(b, c, NULL);
			break;
		case 'b':
			sc_buf_addch(b, '\b', NULL);
			break;
		case 'f':
			sc_buf_addch(b, '\f', NULL);
			break;
		case 'n':
			sc_buf_addch(b, '\n', NULL);
			break;
		case 'r':
			sc_buf_addch(b, '\r', NULL);
			break;
		case 't':
			sc_buf_addch(b, '\t', NULL);
			break;
		case 'u':
			if (jhex4(p, &cp) == -1)
				return -1;
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (p->i + 6 > p->n || p->s[p->i] != '\\' ||
				    p->s[p->i + 1] != 'u')
					return -1;
				p->i += 2;
				if (jhex4(p, &lo) == -1 || lo < 0xdc00 ||
				    lo > 0xdfff)
					return -1;
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				    (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				return -1;
			}
			put_utf8(b, cp);
			break;
		default:
			return -1;
		}
	}
	return -1;
}

/* A number at p->i (JSON grammar); its kind, its text into b. */
static int
jnumber(struct jp *p, struct sc_buf *b, enum rkind *kind)
{
	size_t st = p->i, nd = 0;
	bool frac = false;

	if (p->i < p->n && p->s[p->i] == '-')
		p->i++;
	if (p->i < p->n && p->s[p->i] == '0') {
		p->i++;
		nd = 1;
	} else {
		while (p->i < p->n && isdigit((unsigned char)p->s[p->i])) {
			p->i++;
			nd++;
		}
	}
	if (nd == 0)
		return -1;
	if (p->i < p->n && p->s[p->i] == '.') {
		frac = true;
		p->i++;
		if (p->i >= p->n || !isdigit((unsigned char)p->s[p->i]))
			return -1;
		while (p->i < p->n && isdigit((unsigned char)p->s[p->i]))
			p->i++;
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		frac = true;
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (p->i >= p->n || !isdigit((unsigned char)p->s[p->i]))
			return -1;
		while (p->i < p->n && isdigit((unsigned char)p->s[p->i]))
			p->i++;
	}
	sc_buf_add(b, p->s + st, p->i - st, NULL);
	if (frac)
		*kind = K_DOUBLE;
	else if (nd < 19)
		*kind = K_LONG;
	else {
		char *end;

		errno = 0;
		(void)strtoll((const char *)b->data + b->len - (p->i - st),
		    &end, 10);
		*kind = errno == 0 ? K_LONG : nd <= 38 ? K_DEC : K_DOUBLE;
	}
	return 0;
}

static bool
jword(struct jp *p, const char *w)
{
	size_t k = strlen(w);

	if (p->n - p->i < k || memcmp(p->s + p->i, w, k) != 0)
		return false;
	p->i += k;
	return true;
}

/*
 * Parse one line holding a JSON object into r: 1, 0 when the line is
 * not one (a corrupt record), -1 (err set) for a nested value, which
 * sc-serve does not read.
 */
int
sc_eng_json_record(const char *s, size_t n, struct jrec *r,
    struct sc_error *err)
{
	struct jp p = { s, n, 0 };
	struct jpair *kv;
	char c;

	r->n = 0;
	sc_buf_reset(&r->text);
	jws(&p);
	if (p.i >= n || s[p.i++] != '{')
		return 0;
	jws(&p);
	if (p.i < n && s[p.i] == '}') {
		p.i++;
		goto end;
	}
	for (;;) {
		if (r->n == r->cap) {
			r->cap = r->cap ? 2 * r->cap : 16;
			r->v = sc_xreallocarray(r->v, r->cap, sizeof(*r->v));
		}
		kv = &r->v[r->n];
		jws(&p);
		if (p.i >= n || s[p.i++] != '"')
			return 0;
		kv->key = r->text.len;
		if (jstring(&p, &r->text) == -1)
			return 0;
		sc_buf_addch(&r->text, '\0', NULL);
		jws(&p);
		if (p.i >= n || s[p.i++] != ':')
			return 0;
		jws(&p);
		if (p.i >= n)
			return 0;
		kv->val = r->text.len;
		c = s[p.i];
		if (c == '"') {
			p.i++;
			if (jstring(&p, &r->text) == -1)
				return 0;
			kv->kind = K_STRING;
		} else if (c == '-' || isdigit((unsigned char)c)) {
			if (jnumber(&p, &r->text, &kv->kind) == -1)
				return 0;
		} else if (jword(&p, "true")) {
			sc_buf_addstr(&r->text, "true", NULL);
			kv->kind = K_BOOL;
		} else if (jword(&p, "false")) {
			sc_buf_addstr(&r->text, "false", NULL);
			kv->kind = K_BOOL;
		} else if (jword(&p, "null")) {
			kv->kind = K_NONE;
		} else if (c == '{' || c == '[') {
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.DATA_TYPE", "0A000",
			    "The JSON field `%s` holds a nested value (an "
			    "object or an array), which sc-serve does not "
			    "read.",
			    (const char *)r->text.data + kv->key);
		} else {
			return 0;
		}
		sc_buf_addch(&r->text, '\0', NULL);
		r->n++;
		jws(&p);
		if (p.i < n && s[p.i] == ',') {
			p.i++;
			continue;
		}
		if (p.i < n && s[p.i] == '}') {
			p.i++;
			break;
		}
		return 0;
	}
end:
	jws(&p);
	return p.i == n ? 1 : 0;
}

const char *
sc_eng_jkey(const struct jrec *r, size_t i)
{
	return (const char *)r->text.data + r->v[i].key;
}

const char *
sc_eng_jval(const struct jrec *r, size_t i)
{
	return (const char *)r->text.data + r->v[i].val;
}
