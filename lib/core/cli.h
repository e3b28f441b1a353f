/* SPDX-License-Identifier: MIT */

/*
 * cli.h: the command-line layer shared by cmd/<tool>/main.c.
 *
 * Unlike the rest of lib/core, the functions marked "prints" or "exits"
 * here write to stdout/stderr and may end the process: they exist so
 * that every tool spells its common options, usage errors and error
 * reports identically (STYLE.md F and H).  Only main() may call those.
 * The sc_parse_*() functions are ordinary library functions.
 *
 * A tool's usage text is one string: the synopsis line(s) ("usage: ..."),
 * then optionally a blank line and an option list, e.g.
 *
 *	static const char usage_text[] =
 *	    "usage: sc-release [-qv] [-s server] [-t timeout] operation-id...\n"
 *	    "\n"
 *	    "  -a, --all              release every operation\n"
 *	    SC_CLI_COMMON_HELP;
 *
 * -h prints all of it to stdout; usage errors print only the synopsis
 * (everything before the first blank line) to stderr.
 */

#ifndef SC_CLI_H
#define SC_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct sc_error;

/* The option list lines for the common options, for usage texts. */
#define SC_CLI_COMMON_HELP                                                  \
	"  -h, --help             print this help and exit\n"               \
	"  -q, --quiet            print errors only\n"                      \
	"  -s, --server uri       server address (default $SPARK_REMOTE,\n" \
	"                         else sc://localhost:15002)\n"             \
	"  -t, --timeout time     give up after time (250ms, 2s, 5m, 1h;\n" \
	"                         a bare number is milliseconds)\n"         \
	"  -v, --verbose          more messages; twice for debug\n"         \
	"  -V, --version          print the version and exit\n"

struct sc_cli_common {
	const char *progname; /* "sc-exec" (borrowed) */
	const char *server; /* -s argument (borrowed), or NULL */
	int64_t timeout_ms; /* -t in ms, -1 = none */
	struct timespec deadline; /* CLOCK_MONOTONIC, if has_deadline */
	bool has_deadline; /* set by sc_cli_finish_common() */
	int verbosity; /* number of -v */
	bool quiet; /* -q */
};

/*
 * First thing in main(): fill c with defaults (no server, no timeout),
 * sc_log_init(progname, SC_LOG_STYLE_CLIENT, SC_LOG_WARN), ignore
 * SIGPIPE (write errors become EPIPE), setlocale(LC_CTYPE, "").
 * progname is borrowed and must live as long as the process.
 */
void sc_cli_init(struct sc_cli_common *c, const char *progname);

/*
 * Handle one getopt character if it is a common option:
 *	-h  print usage_text to stdout, exit 0	(exits)
 *	-q  quiet: errors only (cancels -v)
 *	-s  server address (stored, parsed later by the tool)
 *	-t  timeout, sc_parse_duration_ms() syntax, must be > 0
 *	-v  verbosity: once info, twice debug (cancels -q)
 *	-V  print "<progname> <version>" to stdout, exit 0	(exits)
 * Returns 0 when handled, 1 when ch is not a common option, -1 for an
 * invalid value, after printing "<progname>: <message>" to stderr.
 * The log level follows -q/-v as they are seen.
 */
int sc_cli_common_opt(struct sc_cli_common *c, int ch, const char *optarg,
    const char *usage_text);

/*
 * After option parsing: compute c->deadline from c->timeout_ms (once, so
 * retries and every call share it) and set the final log level.
 */
void sc_cli_finish_common(struct sc_cli_common *c);

/*
 * Usage error: print the synopsis part of usage_text and
 * "try '<progname> --help'" to stderr, exit 2.  (prints, exits)
 */
void sc_usage(const char *usage_text) __attribute__((noreturn));

/*
 * As sc_usage(), preceded by "<progname>: <message>".  (prints, exits)
 */
void sc_usage_msg(const char *usage_text, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

/*
 * Print "<progname>: <err->msg>" to stderr, followed by " [<errclass>]"
 * if err->errclass is set and not already part of msg; return
 * sc_exit_code(err).  If err is a write error with EPIPE (status SC_ST_IO,
 * sys_errno EPIPE), print nothing, restore the default SIGPIPE action
 * and raise it instead, so "sc-inspect | head" ends like any filter.
 * (prints)
 */
int sc_report_error(const struct sc_error *err);

/*
 * End of main() for tools that wrote to stdout: fflush, ferror and
 * fclose stdout.  0 if all is well.  On EPIPE restore the default
 * SIGPIPE action and raise it; on any other error print
 * "<progname>: cannot write standard output: <strerror>" and return
 * SC_EXIT_IO.  (prints)
 */
int sc_check_stdout(void);

/*
 * Parse a decimal unsigned integer in [min, max] into *out, like
 * OpenBSD's strtonum.  No sign, no leading or trailing space.  Errors
 * (SC_ST_USAGE): "'<s>' is not a number", "'<s>' is too small",
 * "'<s>' is too large".
 */
int sc_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out,
    struct sc_error *err);

/*
 * Parse a duration into milliseconds: a non-negative decimal number,
 * optionally with a fraction, and a unit "ms", "s", "m", "h" or "d"; no
 * unit means milliseconds ("250", "250ms", "2s", "1.5s", "5m", "1h").
 * A result is rounded to the nearest millisecond.  Errors (SC_ST_USAGE):
 * "'<s>' is not a duration", "'<s>' is too large".
 */
int sc_parse_duration_ms(const char *s, int64_t *out, struct sc_error *err);

/*
 * Parse a byte size as Spark's byte strings do: a non-negative decimal
 * integer and an optional case-insensitive unit, every unit a power of
 * 1024: "b"; "k", "kb", "kib"; "m", "mb", "mib"; "g", "gb", "gib"; "t",
 * "tb", "tib"; "p", "pb", "pib" ("4096", "32k", "10m", "1g", "64KiB").
 * Errors (SC_ST_USAGE): "'<s>' is not a size", "'<s>' is too large".
 */
int sc_parse_size(const char *s, uint64_t *out, struct sc_error *err);

#endif
