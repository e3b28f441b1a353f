/* SPDX-License-Identifier: MIT */

/*
 * log.h: messages on stderr.
 *
 * Clients (sc_log_init with SC_LOG_STYLE_CLIENT) print
 * "progname: message"; the server (SC_LOG_STYLE_SERVER) prints
 * "2026-08-22T10:00:00.123Z 12345 I message".  The level test happens
 * before the arguments are evaluated.  Thread-safe: one line is written
 * with one write(2).
 *
 * Every message goes through sc_log_escape() after it is formatted, so a
 * value from the network (a user id, a session id, an error text) cannot
 * start a line of its own or put raw bytes into the log: one message is
 * always exactly one line of printable UTF-8.
 *
 * The server may log in JSON instead (sc_log_set_format): one object per
 * line, {"time":..., "pid":..., "level":..., "msg":...}, plus "event"
 * and its fields for a line written with sc_log_event().  Strings there
 * are escaped by sc_log_json_escape(), so a line is always valid JSON
 * in UTF-8.  man/sc-serve.1 (LOGGING) lists the field names; they are
 * stable.
 */

#ifndef SC_LOG_H
#define SC_LOG_H

#include <stddef.h>
#include <string.h>

enum sc_log_level {
	SC_LOG_ERROR = 0,
	SC_LOG_WARN = 1,
	SC_LOG_INFO = 2,
	SC_LOG_DEBUG = 3
};

enum sc_log_style { SC_LOG_STYLE_CLIENT = 0, SC_LOG_STYLE_SERVER = 1 };

/* How server lines are written: the text above, or JSON objects. */
enum sc_log_format { SC_LOG_FORMAT_TEXT = 0, SC_LOG_FORMAT_JSON = 1 };

/*
 * One field of an event line: a string (str, slen bytes: it may hold
 * any bytes) or, when str is NULL, the number num (a JSON number).
 */
struct sc_log_field {
	const char *key; /* a literal: [a-z_]+ */
	const char *str;
	size_t slen;
	long long num;
};

#define SC_LOG_STR(k, s)               \
	{                              \
		(k), (s), strlen(s), 0 \
	}
#define SC_LOG_NUM(k, n)                     \
	{                                    \
		(k), NULL, 0, (long long)(n) \
	}

extern enum sc_log_level sc_log_level;

/* progname is borrowed and must outlive logging (normally argv[0]'s base). */
void sc_log_init(const char *progname, enum sc_log_style style,
    enum sc_log_level level);
const char *sc_log_progname(void);
/* Parse "error", "warn", "info", "debug"; 0 or -1. */
int sc_log_level_parse(const char *s, enum sc_log_level *out);
/* Server lines from now on in this format (before any thread logs). */
void sc_log_set_format(enum sc_log_format f);
/* Parse "text" or "json"; 0 or -1. */
int sc_log_format_parse(const char *s, enum sc_log_format *out);

void sc_log_write(enum sc_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * An event line: in text, the formatted message only (it should carry
 * the fields' values in words); in JSON, the message as "msg" plus
 * "event": event and each of the n fields.  Written when level passes
 * the threshold.
 */
void sc_log_event(enum sc_log_level level, const char *event,
    const struct sc_log_field *f, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/*
 * Copy the len bytes at in to out (outsz bytes, always NUL-terminated)
 * as the inside of a JSON string: '"' and backslash escaped, control
 * bytes as \n, \r, \t or \u00NN, DEL, the C1 controls and U+2028,
 * U+2029 as \uNNNN, and each byte that is not part of a valid UTF-8
 * sequence as \ufffd (the replacement character).  Other UTF-8 passes
 * through.  An escape or a character that does not fit whole is left
 * out, and so is everything after it.  Returns the number of bytes of in
 * that were copied or escaped.
 */
size_t sc_log_json_escape(char *out, size_t outsz, const char *in, size_t len);

/*
 * Copy the len bytes at in to out (outsz bytes, always NUL-terminated)
 * with these escaped: backslash as \\, tab, newline and carriage return
 * as \t, \n, \r, other control bytes, DEL and every byte that is not
 * part of a valid UTF-8 sequence as \xNN, and the C1 controls and the
 * line and paragraph separators (U+0080-U+009F, U+2028, U+2029) as
 * \uNNNN.  Other UTF-8 passes through.  An escape or a character that
 * does not fit whole is left out, and so is everything after it.
 * Returns the number of bytes of in that were copied or escaped.
 */
size_t sc_log_escape(char *out, size_t outsz, const char *in, size_t len);

#define sc_err(...) sc_log_write(SC_LOG_ERROR, __VA_ARGS__)
#define sc_warn(...)                                            \
	do {                                                    \
		if (sc_log_level >= SC_LOG_WARN)                \
			sc_log_write(SC_LOG_WARN, __VA_ARGS__); \
	} while (0)
#define sc_info(...)                                            \
	do {                                                    \
		if (sc_log_level >= SC_LOG_INFO)                \
			sc_log_write(SC_LOG_INFO, __VA_ARGS__); \
	} while (0)
#define sc_debug(fmt, ...)                                               \
	do {                                                             \
		if (sc_log_level >= SC_LOG_DEBUG)                        \
			sc_log_write(SC_LOG_DEBUG, "%s: " fmt, __func__, \
			    ##__VA_ARGS__);                              \
	} while (0)

#endif
