/* SPDX-License-Identifier: MIT */

/*
 * engine_files.c: a session's uploaded files ("files/...") read as
 * relations: read.data_source (formats csv, json, text) and, in SQL,
 * csv.`files/x.csv`, json.`...`, text.`...` and sctk's read_files().
 * The engine knows no artifact store: it asks the resolver given to
 * sc_engine_set_files() for a descriptor of the name.  A file is streamed
 * line by line (twice when its schema is inferred) into a TEMP table of
 * the call, dropped when the call ends; only one line is held at a time.
 */

#include "server/engine_int.h"

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
#include "server/srverror.h"
#include "core/banned.h"

#define FILES_PREFIX "files/"
#define CORRUPT_COL "_corrupt_record"
#define SC_DS_FORMAT SPARK__CONNECT__READ__DATA_SOURCE___FORMAT_FORMAT
#define SC_DS_SCHEMA SPARK__CONNECT__READ__DATA_SOURCE___SCHEMA_SCHEMA

enum rfmt { RF_CSV = 0, RF_JSON, RF_TEXT };

struct ropts {
	enum rfmt fmt;
	bool header;
	bool infer;
	char sep, quote, esc;
	const char *nullv;
	const char *schema; /* DDL, or NULL */
};

/* Kinds a value may have, from narrowest; inference merges them. */
enum rkind {
	K_NONE = 0, /* only nulls so far */
	K_INT,
	K_LONG,
	K_DEC, /* json: an integer beyond bigint: decimal(38,0) */
	K_DOUBLE,
	K_BOOL,
	K_DATE,
	K_TS,
	K_STRING
};

struct rcol {
	char *name;
	enum rkind kind;
};

struct rcols {
	struct rcol *v;
	size_t n;
};

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

static int
opt_error(struct sc_error *err, const char *key, const char *val,
    const char *why)
{
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_SOURCE", "0A000",
	    "The data source option %s = '%s' is not supported by sc-serve: "
	    "%s.",
	    key, val, why);
}

static int
opt_bool(const char *key, const char *val, bool *out, struct sc_error *err)
{
	if (strcasecmp(val, "true") == 0)
		*out = true;
	else if (strcasecmp(val, "false") == 0)
		*out = false;
	else
		return opt_error(err, key, val, "it must be true or false");
	return 0;
}

static int
opt_char(const char *key, const char *val, char *out, bool empty_ok,
    struct sc_error *err)
{
	if (strcmp(val, "\\t") == 0)
		*out = '\t';
	else if (val[0] == '\0' && empty_ok)
		*out = '\0';
	else if (strlen(val) == 1 && (unsigned char)val[0] < 0x80 &&
	    val[0] != '\n' && val[0] != '\r')
		*out = val[0];
	else
		return opt_error(err, key, val,
		    "it must be one ASCII character other than a line end");
	return 0;
}

static int
opts_format(struct ropts *o, const char *fmt, struct sc_error *err)
{
	memset(o, 0, sizeof(*o));
	o->sep = ',';
	o->quote = '"';
	o->esc = '\\';
	o->nullv = "";
	if (strcasecmp(fmt, "csv") == 0)
		o->fmt = RF_CSV;
	else if (strcasecmp(fmt, "json") == 0)
		o->fmt = RF_JSON;
	else if (strcasecmp(fmt, "text") == 0)
		o->fmt = RF_TEXT;
	else
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_SOURCE",
		    "0A000",
		    "The data source format '%s' is not supported by "
		    "sc-serve (it reads csv, json and text).",
		    fmt);
	return 0;
}

/*
 * One option (keys are case-insensitive, as Spark's); unknown ones are
 * ignored, as Spark does.  *path receives a "path" option.
 */
static int
opts_set(struct ropts *o, const char *key, const char *val, const char **path,
    struct sc_error *err)
{
	bool b;

	if (strcasecmp(key, "header") == 0)
		return opt_bool(key, val, &o->header, err);
	if (strcasecmp(key, "inferSchema") == 0)
		return opt_bool(key, val, &o->infer, err);
	if (strcasecmp(key, "sep") == 0 || strcasecmp(key, "delimiter") == 0)
		return opt_char(key, val, &o->sep, false, err);
	if (strcasecmp(key, "quote") == 0)
		return opt_char(key, val, &o->quote, true, err);
	if (strcasecmp(key, "escape") == 0)
		return opt_char(key, val, &o->esc, true, err);
	if (strcasecmp(key, "nullValue") == 0) {
		o->nullv = val;
		return 0;
	}
	if (strcasecmp(key, "multiLine") == 0) {
		if (opt_bool(key, val, &b, err) == -1)
			return -1;
		return b ? opt_error(err, key, val,
			       "records spanning lines are not read")
			 : 0;
	}
	if (strcasecmp(key, "mode") == 0)
		return strcasecmp(val, "PERMISSIVE") == 0
		    ? 0
		    : opt_error(err, key, val, "only PERMISSIVE is");
	if (strcasecmp(key, "encoding") == 0 || strcasecmp(key, "charset") == 0)
		return strcasecmp(val, "UTF-8") == 0 ||
			strcasecmp(val, "UTF8") == 0
		    ? 0
		    : opt_error(err, key, val, "files are read as UTF-8");
	if (strcasecmp(key, "path") == 0) {
		*path = val;
		return 0;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Lines                                                               */
/* ------------------------------------------------------------------ */

struct lines {
	int fd;
	const char *name;
	uint8_t buf[65536];
	size_t pos, end;
	bool eof;
	struct sc_buf line;
	int64_t max; /* longest line */
	uint64_t no; /* lines read */
};

static void
lines_open(struct lines *l, int fd, const char *name, int64_t max)
{
	l->fd = fd;
	l->name = name;
	l->pos = l->end = 0;
	l->eof = false;
	l->max = max;
	l->no = 0;
	sc_buf_reset(&l->line);
}

/*
 * The next line into l->line, without its "\n" or "\r\n" (or a lone
 * "\r" at the end of the file): 1, 0 at the end, -1 (err set).
 */
static int
lines_next(struct lines *l, struct sc_error *err)
{
	uint8_t *nl;
	size_t k;
	ssize_t r;

	sc_buf_reset(&l->line);
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

static int
lines_rewind(struct lines *l, struct sc_error *err)
{
	if (lseek(l->fd, 0, SEEK_SET) == -1)
		return sc_srv_error(err, "FAILED_READ_FILE", "KD001",
		    "Cannot read %s again: %s.", l->name, strerror(errno));
	lines_open(l, l->fd, l->name, l->max);
	return 0;
}

/* ------------------------------------------------------------------ */
/* CSV                                                                 */
/* ------------------------------------------------------------------ */

struct field {
	size_t off, len; /* in fields.text */
	bool null;
};

struct fields {
	struct field *v;
	size_t n, cap;
	struct sc_buf text;
};

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

static const char *
field_text(const struct fields *f, size_t i)
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
static void
csv_split(const struct ropts *o, const char *s, size_t n, struct fields *f)
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
static enum rkind
csv_kind(const char *s)
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

static enum rkind
kind_merge(enum rkind a, enum rkind b)
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

struct jpair {
	size_t key; /* offset of the NUL-terminated key in jrec.text */
	size_t val; /* offset of the NUL-terminated text of the value */
	enum rkind kind; /* K_NONE: null */
};

struct jrec {
	struct jpair *v;
	size_t n, cap;
	struct sc_buf text;
};

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
static int
json_record(const char *s, size_t n, struct jrec *r, struct sc_error *err)
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

static const char *
jkey(const struct jrec *r, size_t i)
{
	return (const char *)r->text.data + r->v[i].key;
}

static const char *
jval(const struct jrec *r, size_t i)
{
	return (const char *)r->text.data + r->v[i].val;
}

/* ------------------------------------------------------------------ */
/* Reading files into a TEMP table                                     */
/* ------------------------------------------------------------------ */

struct reader {
	struct sc_ectx *x;
	const struct ropts *o;
	struct lines l;
	struct fields f;
	struct jrec j;
	struct rcols cols;
	struct sc_ecol *ecols; /* the final columns */
	size_t necols;
	bool corrupt; /* json: a _corrupt_record column */
	sqlite3_stmt *ins;
};

static void
reader_release(struct reader *r)
{
	size_t i;

	for (i = 0; i < r->cols.n; i++)
		free(r->cols.v[i].name);
	free(r->cols.v);
	free(r->f.v);
	sc_buf_release(&r->f.text);
	free(r->j.v);
	sc_buf_release(&r->j.text);
	sc_buf_release(&r->l.line);
	sc_ecols_free(r->ecols, r->necols);
	sqlite3_finalize(r->ins);
}

static size_t
col_add(struct rcols *c, const char *name)
{
	c->v = sc_xreallocarray(c->v, c->n + 1, sizeof(*c->v));
	c->v[c->n].name = sc_xstrdup(name);
	c->v[c->n].kind = K_NONE;
	return c->n++;
}

static int
canceled_check(struct reader *r, struct sc_error *err)
{
	if ((r->l.no & 1023) == 0 && sc_eng_is_canceled(r->x->run))
		return sc_eng_canceled(err);
	return 0;
}

/*
 * CSV column names: the header's fields (an empty or null one is
 * _c<i>; names equal but for case get their index appended, as Spark
 * does), or _c0, _c1, ... for the first record's width.
 */
static void
csv_names(struct reader *r, bool header)
{
	struct fields *f = &r->f;
	char name[32];
	size_t i, k;
	bool dup;

	for (i = 0; i < f->n; i++) {
		snprintf(name, sizeof(name), "_c%zu", i);
		if (!header || f->v[i].null || f->v[i].len == 0) {
			col_add(&r->cols, name);
			continue;
		}
		dup = false;
		for (k = 0; k < f->n && !dup; k++)
			dup = k != i && !f->v[k].null &&
			    strcasecmp(field_text(f, k), field_text(f, i)) == 0;
		if (dup) {
			struct sc_buf b;

			sc_buf_init(&b, SC_BUF_UNLIMITED);
			sc_buf_addf(&b, NULL, "%s%zu", field_text(f, i), i);
			col_add(&r->cols, (const char *)b.data);
			sc_buf_release(&b);
		} else {
			col_add(&r->cols, field_text(f, i));
		}
	}
}

/* The next record of CSV (empty lines are skipped): 1, 0, -1. */
static int
csv_next(struct reader *r, struct sc_error *err)
{
	int rc;

	while ((rc = lines_next(&r->l, err)) == 1) {
		if (canceled_check(r, err) == -1)
			return -1;
		if (r->l.line.len == 0)
			continue;
		csv_split(r->o, (const char *)r->l.line.data, r->l.line.len,
		    &r->f);
		return 1;
	}
	return rc;
}

/* The next record of JSON lines: 1 (*ok: parsed), 0 at the end, -1. */
static int
json_next(struct reader *r, bool *ok, struct sc_error *err)
{
	const uint8_t *s;
	size_t n, i;
	int rc;

	while ((rc = lines_next(&r->l, err)) == 1) {
		if (canceled_check(r, err) == -1)
			return -1;
		s = r->l.line.data;
		n = r->l.line.len;
		for (i = 0; i < n && isspace(s[i]); i++)
			;
		if (i == n)
			continue;
		if ((rc = json_record((const char *)s, n, &r->j, err)) == -1)
			return -1;
		*ok = rc == 1;
		return 1;
	}
	return rc;
}

/* Schema pass over one file: column names and, if asked, kinds. */
static int
scan_file(struct reader *r, bool first, struct sc_error *err)
{
	const struct ropts *o = r->o;
	size_t i, k;
	bool ok, header = o->header;
	int rc;

	if (o->fmt == RF_CSV) {
		while ((rc = csv_next(r, err)) == 1) {
			if (header) {
				header = false;
				if (first && r->cols.n == 0 &&
				    o->schema == NULL)
					csv_names(r, true);
				continue;
			}
			if (first && r->cols.n == 0 && o->schema == NULL)
				csv_names(r, false);
			if (!o->infer || o->schema != NULL)
				return 0;
			for (i = 0; i < r->f.n && i < r->cols.n; i++)
				if (!r->f.v[i].null)
					r->cols.v[i].kind =
					    kind_merge(r->cols.v[i].kind,
						csv_kind(field_text(&r->f, i)));
		}
		return rc;
	}
	while ((rc = json_next(r, &ok, err)) == 1) {
		if (!ok) {
			r->corrupt = true;
			continue;
		}
		for (i = 0; i < r->j.n; i++) {
			for (k = 0; k < r->cols.n; k++)
				if (strcmp(r->cols.v[k].name, jkey(&r->j, i)) ==
				    0)
					break;
			if (k == r->cols.n)
				k = col_add(&r->cols, jkey(&r->j, i));
			r->cols.v[k].kind =
			    kind_merge(r->cols.v[k].kind, r->j.v[i].kind);
		}
	}
	return rc;
}

static int
rcol_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rcol *)a)->name,
	    ((const struct rcol *)b)->name);
}

static void
kind_type(enum rkind k, struct sc_etype *t)
{
	memset(t, 0, sizeof(*t));
	switch (k) {
	case K_INT:
		t->t = SC_ARROW_INT32;
		break;
	case K_LONG:
		t->t = SC_ARROW_INT64;
		break;
	case K_DEC:
		t->t = SC_ARROW_DECIMAL128;
		t->prec = 38;
		break;
	case K_DOUBLE:
		t->t = SC_ARROW_DOUBLE;
		break;
	case K_BOOL:
		t->t = SC_ARROW_BOOL;
		break;
	case K_DATE:
		t->t = SC_ARROW_DATE32;
		break;
	case K_TS:
		t->t = SC_ARROW_TIMESTAMP_US;
		break;
	default:
		t->t = SC_ARROW_UTF8;
		break;
	}
}

/* The final columns from the scan (or the given schema). */
static int
make_columns(struct reader *r, struct sc_error *err)
{
	const struct ropts *o = r->o;
	size_t i, k;

	if (o->fmt == RF_TEXT && o->schema == NULL) {
		r->ecols = sc_xcalloc(1, sizeof(*r->ecols));
		r->necols = 1;
		r->ecols[0].name = sc_xstrdup("value");
		r->ecols[0].type.t = SC_ARROW_UTF8;
		r->ecols[0].nullable = 1;
		return 0;
	}
	if (o->schema != NULL) {
		if (sc_eng_schema_string(o->schema, &r->ecols, &r->necols,
			err) == -1)
			return -1;
		if (o->fmt == RF_TEXT &&
		    (r->necols != 1 || r->ecols[0].type.t != SC_ARROW_UTF8))
			return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
			    "The text data source has one string column; the "
			    "schema '%s' does not fit it.",
			    o->schema);
		for (i = 0; i < r->necols; i++) {
			r->ecols[i].nullable = 1;
			if (o->fmt == RF_JSON)
				col_add(&r->cols, r->ecols[i].name);
		}
		return 0;
	}
	if (o->fmt == RF_JSON) {
		if (r->corrupt) {
			k = col_add(&r->cols, CORRUPT_COL);
			r->cols.v[k].kind = K_STRING;
		}
		qsort(r->cols.v, r->cols.n, sizeof(*r->cols.v), rcol_cmp);
	}
	if (r->cols.n == 0)
		return sc_srv_error(err, "UNABLE_TO_INFER_SCHEMA", "42KD9",
		    "Unable to infer schema for %s. It must be specified "
		    "manually.",
		    o->fmt == RF_CSV ? "CSV" : "JSON");
	for (i = 0; i < r->cols.n; i++)
		for (k = i + 1; k < r->cols.n; k++)
			if (strcasecmp(r->cols.v[i].name, r->cols.v[k].name) ==
			    0)
				return sc_srv_error(err,
				    "COLUMN_ALREADY_EXISTS", "42711",
				    "The column `%s` already exists.",
				    r->cols.v[k].name);
	r->ecols = sc_xcalloc(r->cols.n, sizeof(*r->ecols));
	r->necols = r->cols.n;
	for (i = 0; i < r->cols.n; i++) {
		r->ecols[i].name = sc_xstrdup(r->cols.v[i].name);
		kind_type(o->fmt == RF_CSV && !o->infer ? K_STRING
							: r->cols.v[i].kind,
		    &r->ecols[i].type);
		r->ecols[i].nullable = 1;
	}
	return 0;
}

static int
create_table(struct reader *r, char *name, size_t namesz, struct sc_error *err)
{
	struct sc_buf sql;
	size_t i;
	bool text;
	int rc = -1;

	snprintf(name, namesz, "_sc_file_%u", sc_eng_next_tmp(r->x->c));
	sc_buf_init(&sql, SC_BUF_UNLIMITED);
	sc_buf_addstr(&sql, "CREATE TEMP TABLE ", NULL);
	sc_eng_quote_ident(&sql, name);
	sc_buf_addch(&sql, '(', NULL);
	for (i = 0; i < r->necols; i++) {
		if (i > 0)
			sc_buf_addstr(&sql, ", ", NULL);
		sc_eng_quote_ident(&sql, r->ecols[i].name);
		sc_buf_addch(&sql, ' ', NULL);
		sc_eng_type_decl(&r->ecols[i].type, &sql);
	}
	sc_buf_addch(&sql, ')', NULL);
	if (sc_eng_exec(r->x, (const char *)sql.data, err) == -1)
		goto out;
	sc_eng_add_tmp(r->x, name);
	/* Text goes in as it is; other types through Spark's cast (TRY). */
	sc_buf_reset(&sql);
	sc_buf_addstr(&sql, "INSERT INTO temp.", NULL);
	sc_eng_quote_ident(&sql, name);
	sc_buf_addstr(&sql, " VALUES (", NULL);
	for (i = 0; i < r->necols; i++) {
		if (i > 0)
			sc_buf_addstr(&sql, ", ", NULL);
		text = r->ecols[i].type.t == SC_ARROW_UTF8 ||
		    r->ecols[i].type.t == SC_ARROW_LARGE_UTF8;
		if (text) {
			sc_buf_addf(&sql, NULL, "?%zu", i + 1);
			continue;
		}
		sc_buf_addf(&sql, NULL, "sc_cast(?%zu, '", i + 1);
		sc_eng_type_text(&r->ecols[i].type, SC_VALUE_TYPENAME, &sql);
		sc_buf_addstr(&sql, "', 1)", NULL);
	}
	sc_buf_addch(&sql, ')', NULL);
	rc = sc_eng_prepare(r->x, (const char *)sql.data, sql.len, &r->ins,
	    NULL, err);
out:
	sc_buf_release(&sql);
	return rc;
}

static int
bind_text(struct reader *r, size_t col, const char *s, size_t n,
    struct sc_error *err)
{
	int rc = sqlite3_bind_text(r->ins, (int)col + 1, s, (int)n,
	    SQLITE_TRANSIENT);

	return rc == SQLITE_OK ? 0 : sc_eng_bind_error(r->ins, rc, err);
}

static int
insert_row(struct reader *r, struct sc_error *err)
{
	int rc = sc_eng_step(r->x, r->ins);

	sqlite3_reset(r->ins);
	sqlite3_clear_bindings(r->ins);
	return rc == SQLITE_DONE ? 0 : sc_eng_sqlite_error(r->x, rc, err);
}

static int
jcol_cmp(const void *key, const void *c)
{
	return strcmp(key, ((const struct rcol *)c)->name);
}

/* Load pass over one file. */
static int
load_file(struct reader *r, struct sc_error *err)
{
	const struct ropts *o = r->o;
	const struct rcol *c;
	bool header = o->header, ok;
	size_t i;
	int rc;

	if (o->fmt == RF_TEXT) {
		while ((rc = lines_next(&r->l, err)) == 1) {
			if (canceled_check(r, err) == -1 ||
			    bind_text(r, 0, (const char *)r->l.line.data,
				r->l.line.len, err) == -1 ||
			    insert_row(r, err) == -1)
				return -1;
		}
		return rc;
	}
	if (o->fmt == RF_CSV) {
		while ((rc = csv_next(r, err)) == 1) {
			if (header) {
				header = false;
				continue;
			}
			for (i = 0; i < r->f.n && i < r->necols; i++)
				if (!r->f.v[i].null &&
				    bind_text(r, i, field_text(&r->f, i),
					r->f.v[i].len, err) == -1)
					return -1;
			if (insert_row(r, err) == -1)
				return -1;
		}
		return rc;
	}
	while ((rc = json_next(r, &ok, err)) == 1) {
		if (!ok) {
			c = bsearch(CORRUPT_COL, r->cols.v, r->cols.n,
			    sizeof(*r->cols.v), jcol_cmp);
			if (c != NULL &&
			    bind_text(r, (size_t)(c - r->cols.v),
				(const char *)r->l.line.data, r->l.line.len,
				err) == -1)
				return -1;
		}
		for (i = 0; ok && i < r->j.n; i++) {
			if (r->j.v[i].kind == K_NONE)
				continue;
			if (o->schema != NULL) {
				size_t k;

				for (k = 0; k < r->cols.n; k++)
					if (strcmp(r->cols.v[k].name,
						jkey(&r->j, i)) == 0)
						break;
				c = k < r->cols.n ? &r->cols.v[k] : NULL;
			} else {
				c = bsearch(jkey(&r->j, i), r->cols.v,
				    r->cols.n, sizeof(*r->cols.v), jcol_cmp);
			}
			if (c != NULL &&
			    bind_text(r, (size_t)(c - r->cols.v),
				jval(&r->j, i), strlen(jval(&r->j, i)),
				err) == -1)
				return -1;
		}
		if (insert_row(r, err) == -1)
			return -1;
	}
	return rc;
}

/*
 * Open the session's file name: only "files/..." names are read; the
 * resolver (sc_engine_set_files()) checks the name and opens it.
 */
static int
files_open(struct sc_ectx *x, const char *name, int *fd, struct sc_error *err)
{
	struct sc_engine *e = x->c->e;

	if (strncmp(name, FILES_PREFIX, strlen(FILES_PREFIX)) != 0)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_SOURCE",
		    "0A000",
		    "sc-serve reads only files uploaded to the session "
		    "(artifacts named files/...), not '%s'.",
		    name);
	if (e->files == NULL)
		return sc_srv_error(err, "PATH_NOT_FOUND", "42K03",
		    "Path does not exist: %s.", name);
	return e->files(e->files_arg, x->c->owner, name, fd, err);
}

static int
load(struct sc_ectx *x, const struct ropts *o, const char *const *paths,
    size_t npaths, struct sc_eplan *out, struct sc_error *err)
{
	struct reader r;
	struct sc_buf t;
	char name[48];
	int *fds;
	size_t i;
	int rc = -1;

	if (npaths == 0)
		return sc_srv_error(err, "UNABLE_TO_INFER_SCHEMA", "42KD9",
		    "Unable to infer schema for %s: no path was given.",
		    o->fmt == RF_CSV	    ? "CSV"
			: o->fmt == RF_JSON ? "JSON"
					    : "Text");
	memset(&r, 0, sizeof(r));
	r.x = x;
	r.o = o;
	sc_buf_init(&r.f.text, SC_BUF_UNLIMITED);
	sc_buf_init(&r.j.text, SC_BUF_UNLIMITED);
	sc_buf_init(&r.l.line, SC_BUF_UNLIMITED);
	fds = sc_xcalloc(npaths, sizeof(*fds));
	for (i = 0; i < npaths; i++)
		fds[i] = -1;
	for (i = 0; i < npaths; i++)
		if (files_open(x, paths[i], &fds[i], err) == -1)
			goto out;
	/* Schema: every file when inferring, else the first record. */
	if (o->fmt != RF_TEXT && o->schema == NULL) {
		for (i = 0; i < npaths; i++) {
			lines_open(&r.l, fds[i], paths[i],
			    sqlite3_limit(x->c->db, SQLITE_LIMIT_LENGTH, -1));
			if (scan_file(&r, i == 0, err) == -1 ||
			    lines_rewind(&r.l, err) == -1)
				goto out;
			if (o->fmt == RF_CSV && !o->infer)
				break;
		}
	}
	if (make_columns(&r, err) == -1 ||
	    create_table(&r, name, sizeof(name), err) == -1)
		goto out;
	for (i = 0; i < npaths; i++) {
		lines_open(&r.l, fds[i], paths[i],
		    sqlite3_limit(x->c->db, SQLITE_LIMIT_LENGTH, -1));
		if (load_file(&r, err) == -1)
			goto out;
	}
	sc_buf_init(&t, SC_BUF_UNLIMITED);
	sc_buf_addstr(&t, "temp.", NULL);
	sc_eng_quote_ident(&t, name);
	out->table = (char *)sc_buf_detach(&t, NULL);
	sc_buf_addf(&out->sql, NULL, "SELECT * FROM %s", out->table);
	out->cols = r.ecols;
	out->ncols = r.necols;
	r.ecols = NULL;
	r.necols = 0;
	rc = 0;
out:
	for (i = 0; i < npaths; i++)
		if (fds[i] != -1)
			close(fds[i]);
	free(fds);
	reader_release(&r);
	return rc;
}

int
sc_eng_files_read(struct sc_ectx *x, const Spark__Connect__Read__DataSource *ds,
    struct sc_eplan *out, struct sc_error *err)
{
	struct ropts o;
	const char *path = NULL, *one[1];
	size_t i;

	if (ds->n_predicates > 0)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_SOURCE",
		    "0A000",
		    "Predicates (a JDBC read) are not supported by sc-serve.");
	/* Spark's default source (spark.sql.sources.default) is parquet. */
	if (opts_format(&o,
		ds->_format_case == SC_DS_FORMAT && ds->format != NULL
		    ? ds->format
		    : "parquet",
		err) == -1)
		return -1;
	for (i = 0; i < ds->n_options; i++)
		if (opts_set(&o,
			ds->options[i]->key != NULL ? ds->options[i]->key : "",
			ds->options[i]->value != NULL ? ds->options[i]->value
						      : "",
			&path, err) == -1)
			return -1;
	if (ds->_schema_case == SC_DS_SCHEMA && ds->schema != NULL &&
	    ds->schema[0] != '\0')
		o.schema = ds->schema;
	if (ds->n_paths > 0)
		return load(x, &o, (const char *const *)ds->paths, ds->n_paths,
		    out, err);
	one[0] = path;
	return load(x, &o, one, path != NULL ? 1 : 0, out, err);
}

int
sc_eng_files_table(struct sc_ectx *x, const char *format, const char *path,
    const char *const *kv, size_t nkv, struct sc_buf *table,
    struct sc_error *err)
{
	struct ropts o;
	struct sc_eplan p;
	const char *opath = NULL;
	size_t i;
	int rc;

	if (opts_format(&o, format, err) == -1)
		return -1;
	for (i = 0; i + 1 < nkv; i += 2)
		if (opts_set(&o, kv[i], kv[i + 1], &opath, err) == -1)
			return -1;
	sc_eplan_init(&p);
	rc = load(x, &o, &path, 1, &p, err);
	if (rc == 0)
		sc_buf_addstr(table, p.table, NULL);
	sc_eplan_release(&p);
	return rc;
}
