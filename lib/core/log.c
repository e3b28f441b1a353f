/* SPDX-License-Identifier: MIT */

/*
 * log.c: stderr messages for clients and the server.  Each message is
 * formatted, then escaped (sc_log_escape), then written as one line.
 */

#include "core/log.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/banned.h"

enum sc_log_level sc_log_level = SC_LOG_WARN;
static const char *progname = "sc";
static enum sc_log_style style = SC_LOG_STYLE_CLIENT;
static enum sc_log_format format = SC_LOG_FORMAT_TEXT;
static const char *const level_names[] = { "error", "warn", "info", "debug" };
/* The process id for server lines: a system call per line otherwise. */
static long logpid;
static pthread_once_t pid_once = PTHREAD_ONCE_INIT;

static void
pid_refresh(void)
{
	logpid = (long)getpid();
}

static void
pid_init(void)
{
	pid_refresh();
	pthread_atfork(NULL, NULL, pid_refresh);
}

void
sc_log_init(const char *name, enum sc_log_style st, enum sc_log_level level)
{
	const char *slash;

	if (name != NULL) {
		slash = strrchr(name, '/');
		progname = slash ? slash + 1 : name;
	}
	style = st;
	sc_log_level = level;
	pthread_once(&pid_once, pid_init);
}

const char *
sc_log_progname(void)
{
	return progname;
}

int
sc_log_level_parse(const char *s, enum sc_log_level *out)
{
	size_t i;

	for (i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (strcmp(s, level_names[i]) == 0) {
			*out = (enum sc_log_level)i;
			return 0;
		}
	return -1;
}

void
sc_log_set_format(enum sc_log_format f)
{
	format = f;
}

int
sc_log_format_parse(const char *s, enum sc_log_format *out)
{
	if (strcmp(s, "text") == 0)
		*out = SC_LOG_FORMAT_TEXT;
	else if (strcmp(s, "json") == 0)
		*out = SC_LOG_FORMAT_JSON;
	else
		return -1;
	return 0;
}

/*
 * The length of the valid UTF-8 sequence of two to four bytes at p (n
 * bytes left), or 0 when p does not start one (an overlong form, a
 * surrogate, a value above U+10FFFF, a stray or missing continuation).
 */
static size_t
utf8_len(const unsigned char *p, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0; /* overlong */
	else if (p[0] == 0xed)
		hi = 0x9f; /* surrogates */
	else if (p[0] == 0xf0)
		lo = 0x90; /* overlong */
	else if (p[0] == 0xf4)
		hi = 0x8f; /* above U+10FFFF */
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* The code point of the valid sequence of len bytes at p. */
static uint32_t
utf8_decode(const unsigned char *p, size_t len)
{
	uint32_t cp = p[0] & (0xff >> (len + 1));
	size_t i;

	for (i = 1; i < len; i++)
		cp = cp << 6 | (p[i] & 0x3f);
	return cp;
}

/* Write \uNNNN for cp into e; its length. */
static size_t
put_u(char *e, uint32_t cp)
{
	static const char hex[] = "0123456789abcdef";

	e[0] = '\\';
	e[1] = 'u';
	e[2] = hex[cp >> 12 & 0xf];
	e[3] = hex[cp >> 8 & 0xf];
	e[4] = hex[cp >> 4 & 0xf];
	e[5] = hex[cp & 0xf];
	return 6;
}

/*
 * The escape of the character at p (n bytes left) into e (8 bytes), and
 * in *used the bytes it stands for; its length.  json: as a JSON string
 * wants it (a control byte \u00NN, a byte that is not UTF-8 U+FFFD),
 * else as sc_log_escape() (both \xNN).
 */
static size_t
escape_one(const unsigned char *p, size_t n, bool json, char *e, size_t *used)
{
	static const char hex[] = "0123456789abcdef";
	uint32_t cp;
	size_t len;

	*used = 1;
	if (*p == '\\' || (json && *p == '"')) {
		e[0] = '\\';
		e[1] = (char)*p;
		return 2;
	}
	if (*p == '\n' || *p == '\r' || *p == '\t') {
		e[0] = '\\';
		e[1] = *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't';
		return 2;
	}
	if (*p >= 0x20 && *p < 0x7f) {
		e[0] = (char)*p;
		return 1;
	}
	if (*p < 0x80 || (len = utf8_len(p, n)) == 0) {
		if (json)
			return put_u(e, *p < 0x80 ? *p : 0xfffd);
		e[0] = '\\';
		e[1] = 'x';
		e[2] = hex[*p >> 4];
		e[3] = hex[*p & 0xf];
		return 4;
	}
	*used = len;
	if ((cp = utf8_decode(p, len)) <= 0x9f || cp == 0x2028 || cp == 0x2029)
		return put_u(e, cp);
	memcpy(e, p, len);
	return len;
}

/* sc_log_escape() and sc_log_json_escape(): json tells which. */
static size_t
escape(char *out, size_t outsz, const char *in, size_t len, bool json)
{
	const unsigned char *p = (const unsigned char *)in;
	char esc[8];
	size_t i = 0, o = 0, n, w;

	if (outsz == 0)
		return 0;
	while (i < len) {
		/* A run of plain printable ASCII, the usual case, in one copy. */
		for (n = 0;
		     i + n < len && p[i + n] >= 0x20 && p[i + n] < 0x7f &&
		     p[i + n] != '\\' && !(json && p[i + n] == '"');
		     n++)
			;
		if (n > 0) {
			if (n > outsz - 1 - o)
				n = outsz - 1 - o;
			memcpy(out + o, p + i, n);
			o += n;
			i += n;
			if (o + 1 >= outsz)
				break;
			continue;
		}
		w = escape_one(p + i, len - i, json, esc, &n);
		if (o + w >= outsz)
			break;
		memcpy(out + o, esc, w);
		o += w;
		i += n;
	}
	out[o] = '\0';
	return i;
}

size_t
sc_log_escape(char *out, size_t outsz, const char *in, size_t len)
{
	return escape(out, outsz, in, len, false);
}

size_t
sc_log_json_escape(char *out, size_t outsz, const char *in, size_t len)
{
	return escape(out, outsz, in, len, true);
}

/* The prefix of a text line: time, pid and level, or the program name. */
static size_t
text_prefix(char *line, size_t size, enum sc_log_level level,
    const struct timespec *ts)
{
	static const char letters[] = "EWID";
	struct tm tm;
	int r;

	if (style == SC_LOG_STYLE_SERVER) {
		gmtime_r(&ts->tv_sec, &tm);
		r = snprintf(line, size,
		    "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %ld %c ",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		    tm.tm_min, tm.tm_sec, ts->tv_nsec / 1000000L, logpid,
		    letters[level]);
	} else
		r = snprintf(line, size, "%s: ", progname);
	if (r < 0)
		return 0;
	return (size_t)r < size ? (size_t)r : size - 1;
}

/* Append the literal s to line (n bytes used of size); the new n. */
static size_t
append(char *line, size_t size, size_t n, const char *s)
{
	size_t len = strlen(s);

	if (n + len >= size)
		len = size - 1 - n;
	memcpy(line + n, s, len);
	line[n + len] = '\0';
	return n + len;
}

/*
 * Append "key":"value" (JSON-escaped, at most max bytes of it) after a
 * comma.  The caller keeps room for the closing quote and brace.
 */
static size_t
append_json_str(char *line, size_t size, size_t n, const char *key,
    const char *v, size_t vlen, size_t max)
{
	n = append(line, size, n, ",\"");
	n = append(line, size, n, key);
	n = append(line, size, n, "\":\"");
	if (max > size - n)
		max = size - n;
	sc_log_json_escape(line + n, max, v, vlen);
	n += strlen(line + n);
	return append(line, size, n, "\"");
}

/*
 * One JSON object: time, pid, level, then event and its fields (when
 * event is not NULL), then msg.  A string field takes at most
 * FIELD_MAX bytes and a number at most 64, so with at most MAX_FIELDS
 * of them the object always closes: msg gets what is left.
 */
#define FIELD_MAX 512
#define MAX_FIELDS 16
static size_t
json_line(char *line, size_t size, enum sc_log_level level,
    const struct timespec *ts, const char *event, const struct sc_log_field *f,
    size_t nf, const char *msg, size_t mlen)
{
	struct tm tm;
	char num[64];
	size_t n, i;
	int r;

	gmtime_r(&ts->tv_sec, &tm);
	r = snprintf(line, size,
	    "{\"time\":\"%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ\",\"pid\":%ld,"
	    "\"level\":\"%s\"",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
	    tm.tm_sec, ts->tv_nsec / 1000000L, logpid, level_names[level]);
	n = r < 0 ? 0 : (size_t)r < size ? (size_t)r : size - 1;
	if (event != NULL) {
		n = append_json_str(line, size, n, "event", event,
		    strlen(event), FIELD_MAX);
		for (i = 0; i < nf && i < MAX_FIELDS; i++) {
			if (f[i].str != NULL) {
				n = append_json_str(line, size, n, f[i].key,
				    f[i].str, f[i].slen, FIELD_MAX);
				continue;
			}
			snprintf(num, sizeof(num), ",\"%s\":%lld", f[i].key,
			    f[i].num);
			n = append(line, size, n, num);
		}
	}
	n = append_json_str(line, size, n, "msg", msg, mlen,
	    size - n > 16 ? size - n - 16 : 0);
	return append(line, size, n, "}");
}

static void
emit(enum sc_log_level level, const char *event, const struct sc_log_field *f,
    size_t nf, const char *fmt, va_list ap)
{
	char msg[4096], line[16384];
	struct timespec ts;
	size_t n, len;
	int r;

	pthread_once(&pid_once, pid_init);
	clock_gettime(CLOCK_REALTIME, &ts);
	r = vsnprintf(msg, sizeof(msg), fmt, ap);
	len = r < 0 ? 0 : (size_t)r < sizeof(msg) ? (size_t)r : sizeof(msg) - 1;
	if (style == SC_LOG_STYLE_SERVER && format == SC_LOG_FORMAT_JSON)
		/* Leave room for the newline. */
		n = json_line(line, sizeof(line) - 1, level, &ts, event, f, nf,
		    msg, len);
	else {
		n = text_prefix(line, sizeof(line), level, &ts);
		sc_log_escape(line + n, sizeof(line) - n - 1, msg, len);
		n += strlen(line + n);
	}
	line[n++] = '\n';
	/* One write per line keeps lines whole across threads. */
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}

void
sc_log_write(enum sc_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(level, NULL, NULL, 0, fmt, ap);
	va_end(ap);
}

void
sc_log_event(enum sc_log_level level, const char *event,
    const struct sc_log_field *f, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (sc_log_level < level)
		return;
	va_start(ap, fmt);
	emit(level, event, f, n, fmt, ap);
	va_end(ap);
}
