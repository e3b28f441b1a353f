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
 */

#ifndef SC_LOG_H
#define SC_LOG_H

#include <stddef.h>

enum sc_log_level {
	SC_LOG_ERROR = 0,
	SC_LOG_WARN = 1,
	SC_LOG_INFO = 2,
	SC_LOG_DEBUG = 3
};

enum sc_log_style { SC_LOG_STYLE_CLIENT = 0, SC_LOG_STYLE_SERVER = 1 };

extern enum sc_log_level sc_log_level;

/* progname is borrowed and must outlive logging (normally argv[0]'s base). */
void sc_log_init(const char *progname, enum sc_log_style style,
    enum sc_log_level level);
const char *sc_log_progname(void);
/* Parse "error", "warn", "info", "debug"; 0 or -1. */
int sc_log_level_parse(const char *s, enum sc_log_level *out);

void sc_log_write(enum sc_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

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
