/* SPDX-License-Identifier: MIT */

/*
 * log.h: messages on stderr.
 *
 * Clients (sc_log_init with SC_LOG_STYLE_CLIENT) print
 * "progname: message"; the server (SC_LOG_STYLE_SERVER) prints
 * "2026-08-22T10:00:00.123Z 12345 I message".  The level test happens
 * before the arguments are evaluated.  Thread-safe: one line is written
 * with one write(2).
 */

#ifndef SC_LOG_H
#define SC_LOG_H

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
