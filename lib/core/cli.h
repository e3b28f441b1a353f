/* SPDX-License-Identifier: MIT */

/*
 * cli.h: the command-line layer shared by cmd/<tool>/main.c.
 *
 * Unlike the rest of lib/core, the functions marked "prints" or "exits"
 * here write to stdout/stderr and may end the process: they exist so
 * that every tool spells its common options, usage errors and error
 * reports identically.  Only main() and its option parsing may call
 * those.  The sc_parse_*() functions are ordinary library functions.
 *
 * A tool's usage text is one string: the synopsis line(s) ("usage: ..."),
 * then optionally a blank line and an option list, e.g.
 *
 *	static const char usage_text[] =
 *	    "usage: sc-release [-qv] [-s server] [-t timeout] operation-id...\n"
 *	    "\n"
 *	    "  -a, --all              release every operation\n"
 *	    SC_CONN_HELP SC_CLI_COMMON_HELP;
 *
 * -h prints all of it to stdout; usage errors print only the synopsis
 * (everything before the first blank line) to stderr.
 *
 * Every usage error has one voice, whoever finds it:
 *
 *	sc-release: unknown option '--bogus'
 *	usage: sc-release [-qv] [-s server] [-t timeout] operation-id...
 *	try 'sc-release --help'
 *
 * and exit status 2.  sc_cli_next() below parses a tool's own options
 * together with the common ones (-h -q -t -v -V) and the connection
 * options of core/conn.h, and speaks that voice for getopt's errors.
 */

#ifndef SC_CLI_H
#define SC_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct sc_conn_opts;
struct sc_error;

/* The option list lines for the common options, for usage texts. */
#define SC_CLI_COMMON_HELP                                                     \
	"  -h, --help             print this help and exit\n"                  \
	"  -q, --quiet            print errors only\n"                         \
	"  -t, --timeout time     give up after time (30, 250ms, 2m, 1h30m;\n" \
	"                         a bare number is seconds)\n"                 \
	"  -v, --verbose          more messages; twice for debug\n"            \
	"  -V, --version          print the version and exit\n"

/* The common options' short letters, and their table for getopt_long. */
#define SC_CLI_COMMON_OPTSTRING "hqt:Vv"
extern const struct option sc_cli_common_longopts[];

struct sc_cli_common {
	const char *progname; /* "sc-exec" (borrowed) */
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
 *	-t  timeout, sc_parse_cli_duration() syntax, must be > 0
 *	-v  verbosity: once info, twice debug (cancels -q)
 *	-V  print "<progname> <version>" to stdout, exit 0	(exits)
 * Returns 0 when handled, 1 when ch is not a common option, -1 for an
 * invalid value, after printing "<progname>: <message>" to stderr.
 * The log level follows -q/-v as they are seen.
 */
int sc_cli_common_opt(struct sc_cli_common *c, int ch, const char *optarg,
    const char *usage_text);

/*
 * The option parser of every program: its own options (optstring and
 * longopts, getopt_long's syntax; both borrowed for the parser's life),
 * plus the common options when common is not NULL and the connection
 * options (core/conn.h) when conn is not NULL, both handled inside.
 * A program numbers its long-only options from 256, below
 * SC_CONN_OPT_BASE.  Parsing starts over at argv[1] (optind is reset).
 */
#define SC_CLI_MAX_OPTS 96
struct sc_cli_parser {
	const char *usage_text;
	struct sc_cli_common *common;
	struct sc_conn_opts *conn;
	const struct option *own; /* the program's table */
	char optstring[160];
	struct option longopts[SC_CLI_MAX_OPTS + 1];
	/* Elements starting "--" that are text, not options (see below). */
	char *text[8];
	size_t ntext;
};

void sc_cli_parser_init(struct sc_cli_parser *p, const char *usage_text,
    const char *optstring, const struct option *longopts,
    struct sc_cli_common *common, struct sc_conn_opts *conn);

/*
 * The next option of the program's own (getopt's value: a letter or a
 * long-only number; the value in the global optarg), or -1 after the
 * last option, with optind at the first operand (operands may come
 * before options, as with getopt_long).  Common and connection options
 * are taken care of here.  An element that starts with "--" but whose
 * name (up to any '=') holds white space is no option: it is an operand,
 * such as SQL text that opens with a "-- comment" line.  A usage error prints and exits 2:
 *	"unknown option '--bogus'", "unknown option '-x'",
 *	"option '--server' needs a value", "option '--tls' takes no value",
 *	"option '--no' is ambiguous", or the message of a bad value.
 * (prints, exits)
 */
int sc_cli_next(struct sc_cli_parser *p, int argc, char *argv[]);

/*
 * A program's own options as a table, git's parse-options way: each row
 * names the option and where its value goes, and sc_cli_parse() does
 * the rest, with the messages every program shares.  Build the table in
 * the function that parses (it points into the program's variables)
 * with the SC_CLI_* macros, end it with SC_CLI_END:
 *
 *	struct sc_cli_opt opts[] = {
 *		SC_CLI_FLAG("all", 'a', &o->all),
 *		SC_CLI_UUID("operation-id", 0, &o->opid, "operation id"),
 *		SC_CLI_DURATION("wait", 0, &o->wait_ms),
 *		SC_CLI_END
 *	};
 *	optind = sc_cli_parse(opts, usage_text, &o->common, &o->conn,
 *	    argc, argv);
 */
enum sc_cli_kind {
	SC_CLI_KIND_END = 0,
	SC_CLI_KIND_FLAG, /* bool *: set to true */
	SC_CLI_KIND_SET, /* int *: set to the row's value */
	SC_CLI_KIND_STRING, /* const char **: the value (argv's) */
	SC_CLI_KIND_UINT, /* uint64_t *: a number in [min, max] */
	SC_CLI_KIND_DURATION, /* int64_t * (ms): sc_parse_cli_duration() */
	SC_CLI_KIND_UUID, /* const char **: a UUID (argv's) */
	SC_CLI_KIND_CALL /* fn(ptr, value, err) takes it */
};

/* 0, or -1 with err set to the whole message ("invalid tag 'x': ..."). */
typedef int sc_cli_opt_fn(void *ptr, const char *value, struct sc_error *err);

struct sc_cli_opt {
	const char *name; /* long name, without "--" */
	int letter; /* short option letter, or 0 */
	enum sc_cli_kind kind;
	void *ptr;
	int value; /* SET */
	uint64_t min, max; /* UINT */
	const char *what; /* UUID: "operation id" in "invalid ..." */
	sc_cli_opt_fn *fn; /* CALL */
};

#define SC_CLI_FLAG(name, letter, p)                                         \
	{                                                                    \
		(name), (letter), SC_CLI_KIND_FLAG, (p), 0, 0, 0, NULL, NULL \
	}
#define SC_CLI_SET(name, letter, p, v)                                        \
	{                                                                     \
		(name), (letter), SC_CLI_KIND_SET, (p), (v), 0, 0, NULL, NULL \
	}
#define SC_CLI_STRING(name, letter, p)                                         \
	{                                                                      \
		(name), (letter), SC_CLI_KIND_STRING, (p), 0, 0, 0, NULL, NULL \
	}
#define SC_CLI_UINT(name, letter, p, lo, hi)                                  \
	{                                                                     \
		(name), (letter), SC_CLI_KIND_UINT, (p), 0, (lo), (hi), NULL, \
		    NULL                                                      \
	}
#define SC_CLI_DURATION(name, letter, p)                                    \
	{                                                                   \
		(name), (letter), SC_CLI_KIND_DURATION, (p), 0, 0, 0, NULL, \
		    NULL                                                    \
	}
#define SC_CLI_UUID(name, letter, p, what)                                     \
	{                                                                      \
		(name), (letter), SC_CLI_KIND_UUID, (p), 0, 0, 0, (what), NULL \
	}
#define SC_CLI_CALL(name, letter, p, fn)                                     \
	{                                                                    \
		(name), (letter), SC_CLI_KIND_CALL, (p), 0, 0, 0, NULL, (fn) \
	}
#define SC_CLI_END                                                  \
	{                                                           \
		NULL, 0, SC_CLI_KIND_END, NULL, 0, 0, 0, NULL, NULL \
	}

/*
 * Parse argv: the options of table opts, the common options (common,
 * which sc_cli_init() prepared) and the connection options (conn, may
 * be NULL for a program without a server), then sc_cli_finish_common().
 * Returns the index of the first operand in argv.  A bad option or
 * value is a usage error (prints, exits 2), with these messages besides
 * sc_cli_next()'s: "invalid --<name>: <why>" (UINT, DURATION), "invalid
 * <what> '<value>': not a UUID" (UUID), the callback's (CALL).
 * (prints, exits)
 */
int sc_cli_parse(const struct sc_cli_opt *opts, const char *usage_text,
    struct sc_cli_common *common, struct sc_conn_opts *conn, int argc,
    char *argv[]);

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
 * Usage error with a reason: "<progname>: <message>" and the hint, as
 * curl does; the synopsis would bury the one line that matters.
 * usage_text is kept for the callers' symmetry.  (prints, exits)
 */
void sc_usage_msg(const char *usage_text, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

/*
 * Print "<progname>: <err->msg>" to stderr, followed by " [<errclass>]"
 * if err->errclass is set and not already part of msg; a msg of several
 * lines (Spark's "== SQL ==" context) has its first line so and each
 * further line as it is, escaped, without blank lines around; return
 * sc_exit_code(err).  A timeout (SC_ST_TIMEOUT) once -t's deadline has
 * passed adds " (the --timeout of 5s passed)" to the first line, so every
 * program names the limit the user set.  If err is a write error with EPIPE (status SC_ST_IO,
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
 * "'<s>' is not a duration", "'<s>' is too large".  This is Spark's
 * reading, for its settings (sc-serve's --conf) only: every option on
 * a command line, sc-serve's too, reads sc_parse_cli_duration()'s way.
 */
int sc_parse_duration_ms(const char *s, int64_t *out, struct sc_error *err);

/*
 * A duration on a command line, as curl -m and timeout(1) read one: a
 * bare number is seconds ("30", "1.5"), else one or more parts with a
 * unit each, as above ("250ms", "2m", "1h30m", "1m0.5s").  The result
 * is in milliseconds.  Errors as sc_parse_duration_ms()'s.
 */
int sc_parse_cli_duration(const char *s, int64_t *out, struct sc_error *err);

/*
 * Parse a byte size as Spark's byte strings do: a non-negative decimal
 * integer and an optional case-insensitive unit, every unit a power of
 * 1024: "b"; "k", "kb", "kib"; "m", "mb", "mib"; "g", "gb", "gib"; "t",
 * "tb", "tib"; "p", "pb", "pib" ("4096", "32k", "10m", "1g", "64KiB").
 * Errors (SC_ST_USAGE): "'<s>' is not a size", "'<s>' is too large".
 */
int sc_parse_size(const char *s, uint64_t *out, struct sc_error *err);

/*
 * v in bytes with a binary prefix, for progress lines and summaries:
 * "950 B", "79.6 KiB", "5.1 MiB/s" (unit "B" or "B/s"); one decimal once
 * scaled.  Binary, as sizes are read (sc_parse_size(): 32k is 32768) and
 * as sc-inspect writes them, so every program counts one way.
 */
void sc_format_bytes(double v, const char *unit, char *out, size_t outsz);

#endif
