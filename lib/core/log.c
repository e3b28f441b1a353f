/* SPDX-License-Identifier: MIT */

/*
 * log.c: stderr messages for clients and the server.
 */

#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/banned.h"

enum sc_log_level sc_log_level = SC_LOG_WARN;
static const char *progname = "sc";
static enum sc_log_style style = SC_LOG_STYLE_CLIENT;

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
}

const char *
sc_log_progname(void)
{
	return progname;
}

int
sc_log_level_parse(const char *s, enum sc_log_level *out)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum sc_log_level)i;
			return 0;
		}
	return -1;
}

void
sc_log_write(enum sc_log_level level, const char *fmt, ...)
{
	static const char letters[] = "EWID";
	char line[4096];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	size_t n;
	int r;

	if (style == SC_LOG_STYLE_SERVER) {
		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		r = snprintf(line, sizeof(line),
		    "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %ld %c ",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		    tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000L, (long)getpid(),
		    letters[level]);
	} else
		r = snprintf(line, sizeof(line), "%s: ", progname);
	n = r < 0 ? 0 : (size_t)r;
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	va_start(ap, fmt);
	r = vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (r > 0)
		n += (size_t)r < sizeof(line) - n - 1 ? (size_t)r
						      : sizeof(line) - n - 2;
	line[n++] = '\n';
	/* One write per line keeps lines whole across threads. */
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}
