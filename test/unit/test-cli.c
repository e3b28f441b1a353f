/* SPDX-License-Identifier: MIT */

/*
 * test-cli.c: number, duration and size parsing, the common options, the
 * option parser (sc_cli_parse: every kind of table row, operands, the
 * common and connection options) and, in child processes, the functions
 * that print and exit, among them every usage error's one voice.
 */

#include "core/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/conn.h"
#include "core/error.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "core/uri.h"
#include "core/xmem.h"
#include "child.h"
#include "tap.h"
#include "core/banned.h"

#define S(s) ((char *)(s))

static void
test_uint(void)
{
	static const struct {
		const char *s;
		uint64_t min, max;
		uint64_t want;
		const char *msg; /* NULL: success */
	} t[] = {
		{ "0", 0, 10, 0, NULL },
		{ "10", 0, 10, 10, NULL },
		{ "007", 0, 10, 7, NULL },
		{ "5", 5, 5, 5, NULL },
		{ "18446744073709551615", 0, UINT64_MAX, UINT64_MAX, NULL },
		{ "11", 0, 10, 0, "'11' is too large" },
		{ "4", 5, 10, 0, "'4' is too small" },
		{ "18446744073709551616", 0, UINT64_MAX, 0,
		    "'18446744073709551616' is too large" },
		{ "99999999999999999999999", 0, UINT64_MAX, 0,
		    "'99999999999999999999999' is too large" },
		{ "", 0, 10, 0, "'' is not a number" },
		{ "abc", 0, 10, 0, "'abc' is not a number" },
		{ "1a", 0, 10, 0, "'1a' is not a number" },
		{ "-1", 0, 10, 0, "'-1' is not a number" },
		{ "+1", 0, 10, 0, "'+1' is not a number" },
		{ " 1", 0, 10, 0, "' 1' is not a number" },
		{ "1 ", 0, 10, 0, "'1 ' is not a number" },
		{ "0x10", 0, 100, 0, "'0x10' is not a number" },
		{ "1.0", 0, 10, 0, "'1.0' is not a number" },
	};
	struct sc_error err;
	uint64_t v;
	size_t i;
	int rc;

	for (i = 0; i < SC_NELEM(t); i++) {
		v = 12345;
		rc = sc_parse_uint(t[i].s, t[i].min, t[i].max, &v, &err);
		if (t[i].msg == NULL) {
			is_int(rc, 0, "uint '%s' [%llu, %llu]", t[i].s,
			    (unsigned long long)t[i].min,
			    (unsigned long long)t[i].max);
			ok(v == t[i].want, "  = %llu",
			    (unsigned long long)t[i].want);
		} else {
			is_int(rc, -1, "uint '%s' [%llu, %llu] rejected",
			    t[i].s, (unsigned long long)t[i].min,
			    (unsigned long long)t[i].max);
			is_str(err.msg, t[i].msg, "  message");
			is_int(err.status, SC_ST_USAGE, "  status usage");
			ok(v == 12345, "  out untouched");
		}
	}
	is_int(sc_parse_uint(NULL, 0, 1, &v, &err), -1, "uint NULL");
	is_str(err.msg, "'' is not a number", "  message");
}

static void
test_duration(void)
{
	static const struct {
		const char *s;
		int64_t want;
		const char *msg;
	} t[] = {
		{ "0", 0, NULL },
		{ "250", 250, NULL },
		{ "250ms", 250, NULL },
		{ "2s", 2000, NULL },
		{ "1.5s", 1500, NULL },
		{ "0.25s", 250, NULL },
		{ "0.0005s", 1, NULL }, /* 0.5 ms rounds to nearest */
		{ "0.0004s", 0, NULL },
		{ "1.5", 2, NULL },
		{ "5m", 300000, NULL },
		{ "1h", 3600000, NULL },
		{ "1.5h", 5400000, NULL },
		{ "2d", 172800000, NULL },
		{ "1.1234567891s", 1123, NULL },
		{ "9223372036854775807", INT64_MAX, NULL },
		{ "9223372036854775807ms", INT64_MAX, NULL },
		{ "9223372036854775808", 0,
		    "'9223372036854775808' is too large" },
		{ "9223372036854775807s", 0,
		    "'9223372036854775807s' is too large" },
		{ "99999999999999999999999", 0,
		    "'99999999999999999999999' is too large" },
		{ "", 0, "'' is not a duration" },
		{ "s", 0, "'s' is not a duration" },
		{ "1x", 0, "'1x' is not a duration" },
		{ "1S", 0, "'1S' is not a duration" },
		{ "-1s", 0, "'-1s' is not a duration" },
		{ "+1s", 0, "'+1s' is not a duration" },
		{ ".5s", 0, "'.5s' is not a duration" },
		{ "1.s", 0, "'1.s' is not a duration" },
		{ "1.", 0, "'1.' is not a duration" },
		{ "1 s", 0, "'1 s' is not a duration" },
		{ "1s ", 0, "'1s ' is not a duration" },
		{ "1m30s", 0, "'1m30s' is not a duration" },
		{ "1.2.3s", 0, "'1.2.3s' is not a duration" },
	};
	struct sc_error err;
	int64_t v;
	size_t i;
	int rc;

	for (i = 0; i < SC_NELEM(t); i++) {
		v = -7;
		rc = sc_parse_duration_ms(t[i].s, &v, &err);
		if (t[i].msg == NULL) {
			is_int(rc, 0, "duration '%s'", t[i].s);
			is_int(v, t[i].want, "  = %lld ms",
			    (long long)t[i].want);
		} else {
			is_int(rc, -1, "duration '%s' rejected", t[i].s);
			is_str(err.msg, t[i].msg, "  message");
			is_int(err.status, SC_ST_USAGE, "  status usage");
			is_int(v, -7, "  out untouched");
		}
	}
}

/* Command-line durations: a bare number is seconds; parts compound. */
static void
test_cli_duration(void)
{
	static const struct {
		const char *s;
		int64_t want;
		const char *msg;
	} t[] = {
		{ "30", 30000, NULL },
		{ "1.5", 1500, NULL },
		{ "0", 0, NULL },
		{ "250ms", 250, NULL },
		{ "2m", 120000, NULL },
		{ "1h30m", 5400000, NULL },
		{ "1m0.5s", 60500, NULL },
		{ "1d2h3m4s5ms", 93784005, NULL },
		{ "9223372036854775", 9223372036854775000, NULL },
		{ "9223372036854776", 0, "'9223372036854776' is too large" },
		{ "9223372036854775s1s", 0,
		    "'9223372036854775s1s' is too large" },
		{ "1h30", 0, "'1h30' is not a duration" },
		{ "30 s", 0, "'30 s' is not a duration" },
		{ "1hm", 0, "'1hm' is not a duration" },
		{ "", 0, "'' is not a duration" },
		{ "-1", 0, "'-1' is not a duration" },
	};
	struct sc_error err;
	int64_t v;
	size_t i;
	int rc;

	for (i = 0; i < SC_NELEM(t); i++) {
		v = -7;
		rc = sc_parse_cli_duration(t[i].s, &v, &err);
		if (t[i].msg == NULL) {
			is_int(rc, 0, "cli duration '%s'", t[i].s);
			is_int(v, t[i].want, "  = %lld ms",
			    (long long)t[i].want);
		} else {
			is_int(rc, -1, "cli duration '%s' rejected", t[i].s);
			is_str(err.msg, t[i].msg, "  message");
			is_int(v, -7, "  out untouched");
		}
	}
}

static void
test_size(void)
{
	static const struct {
		const char *s;
		uint64_t want;
		const char *msg;
	} t[] = {
		{ "0", 0, NULL },
		{ "4096", 4096, NULL },
		{ "4096b", 4096, NULL },
		{ "32k", 32768, NULL },
		{ "32K", 32768, NULL },
		{ "32kb", 32768, NULL },
		{ "32KiB", 32768, NULL },
		{ "10m", 10485760, NULL },
		{ "10MB", 10485760, NULL },
		{ "10MiB", 10485760, NULL },
		{ "1g", 1073741824, NULL },
		{ "1GiB", 1073741824, NULL },
		{ "1gb", 1073741824, NULL },
		{ "2t", 2199023255552ULL, NULL },
		{ "1p", 1125899906842624ULL, NULL },
		{ "1PiB", 1125899906842624ULL, NULL },
		{ "16383p", 16383ULL << 50, NULL },
		{ "16384p", 0, "'16384p' is too large" },
		{ "18446744073709551615", UINT64_MAX, NULL },
		{ "18446744073709551616", 0,
		    "'18446744073709551616' is too large" },
		{ "17179869184g", 0, "'17179869184g' is too large" },
		{ "", 0, "'' is not a size" },
		{ "k", 0, "'k' is not a size" },
		{ "1x", 0, "'1x' is not a size" },
		{ "1kk", 0, "'1kk' is not a size" },
		{ "1ki", 0, "'1ki' is not a size" },
		{ "1.5m", 0, "'1.5m' is not a size" },
		{ "-1", 0, "'-1' is not a size" },
		{ " 1", 0, "' 1' is not a size" },
		{ "1 k", 0, "'1 k' is not a size" },
		{ "1e", 0, "'1e' is not a size" },
	};
	struct sc_error err;
	uint64_t v;
	size_t i;
	int rc;

	for (i = 0; i < SC_NELEM(t); i++) {
		v = 7;
		rc = sc_parse_size(t[i].s, &v, &err);
		if (t[i].msg == NULL) {
			is_int(rc, 0, "size '%s'", t[i].s);
			ok(v == t[i].want, "  = %llu",
			    (unsigned long long)t[i].want);
		} else {
			is_int(rc, -1, "size '%s' rejected", t[i].s);
			is_str(err.msg, t[i].msg, "  message");
			is_int(err.status, SC_ST_USAGE, "  status usage");
			ok(v == 7, "  out untouched");
		}
	}
}

/* --- child processes for what prints and exits ------------------------ */

static const char usage_text[] =
    "usage: sc-test [-qv] [-s server] [-t timeout] thing...\n"
    "\n"
    "  -x                     an option of its own\n" SC_CLI_COMMON_HELP;

static void
child_opt(const void *arg)
{
	struct sc_cli_common c;

	sc_cli_init(&c, "sc-test");
	sc_cli_common_opt(&c, *(const int *)arg, NULL, usage_text);
}

static void
child_usage(const void *arg)
{
	(void)arg;
	sc_log_init("sc-test", SC_LOG_STYLE_CLIENT, SC_LOG_WARN);
	sc_usage(usage_text);
}

static void
child_usage_msg(const void *arg)
{
	(void)arg;
	sc_log_init("sc-test", SC_LOG_STYLE_CLIENT, SC_LOG_WARN);
	sc_usage_msg(usage_text, "missing %s", "thing");
}

static void
child_report(const void *arg)
{
	sc_log_init("sc-test", SC_LOG_STYLE_CLIENT, SC_LOG_WARN);
	exit(sc_report_error(arg));
}

static void
child_write_stdout(const void *arg)
{
	struct sc_cli_common c;

	sc_cli_init(&c, "sc-test");
	fputs(arg, stdout);
	exit(sc_check_stdout());
}

static void
test_exiting(void)
{
	struct sc_error err;
	struct child r;
	int ch, p[2], fd;
	char *want;

	ch = 'h';
	child_run(&r, child_opt, &ch, -1);
	ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "-h exits 0");
	is_str(r.outbuf, usage_text, "-h prints the whole usage to stdout");
	is_str(r.errbuf, "", "-h: nothing on stderr");

	ch = 'V';
	child_run(&r, child_opt, &ch, -1);
	ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "-V exits 0");
	want = sc_xasprintf("sc-test %s\n", SCTK_VERSION);
	is_str(r.outbuf, want, "-V prints the version");
	is_str(r.outbuf, "sc-test 0.1.0\n", "-V: sc-test 0.1.0");
	free(want);

	child_run(&r, child_usage, NULL, -1);
	ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2,
	    "sc_usage exits 2");
	is_str(r.outbuf, "", "sc_usage: nothing on stdout");
	is_str(r.errbuf,
	    "usage: sc-test [-qv] [-s server] [-t timeout] thing...\n"
	    "try 'sc-test --help'\n",
	    "sc_usage: synopsis and hint on stderr");

	child_run(&r, child_usage_msg, NULL, -1);
	ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2,
	    "sc_usage_msg exits 2");
	is_str(r.errbuf,
	    "sc-test: missing thing\n"
	    "try 'sc-test --help'\n",
	    "sc_usage_msg: message and hint, no synopsis");

	sc_error_from_grpc(&err, SC_GRPC_NOT_FOUND, "no such operation", NULL,
	    0);
	child_run(&r, child_report, &err, -1);
	ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3,
	    "report NOT_FOUND returns 3");
	is_str(r.errbuf, "sc-test: no such operation\n", "report: message");

	snprintf(err.errclass, sizeof(err.errclass), "INVALID_HANDLE.FORMAT");
	child_run(&r, child_report, &err, -1);
	is_str(r.errbuf, "sc-test: no such operation [INVALID_HANDLE.FORMAT]\n",
	    "report: class appended");

	sc_error_from_grpc(&err, SC_GRPC_INTERNAL,
	    "[INVALID_HANDLE.FORMAT] bad handle", NULL, 0);
	child_run(&r, child_report, &err, -1);
	ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1,
	    "report INTERNAL returns 1");
	is_str(r.errbuf, "sc-test: [INVALID_HANDLE.FORMAT] bad handle\n",
	    "report: class already in the message");

	/* Spark's parse error: lines of its own, a newline first. */
	sc_error_from_grpc(&err, SC_GRPC_INTERNAL,
	    "\n[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'. "
	    "SQLSTATE: 42601 (line 1, pos 0)\n\n== SQL ==\nSELEC 1\n^^^\n",
	    NULL, 0);
	snprintf(err.errclass, sizeof(err.errclass), "PARSE_SYNTAX_ERROR");
	child_run(&r, child_report, &err, -1);
	ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1,
	    "report of a parse error returns 1");
	is_str(r.errbuf,
	    "sc-test: [PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'. "
	    "SQLSTATE: 42601 (line 1, pos 0)\n\n== SQL ==\nSELEC 1\n^^^\n",
	    "report: a message's own lines, the carets under the text");
	snprintf(err.errclass, sizeof(err.errclass), "OTHER");
	snprintf(err.msg, sizeof(err.msg), "a\tb\nc\033[2Jd\n\n");
	child_run(&r, child_report, &err, -1);
	is_str(r.errbuf, "sc-test: a\\tb [OTHER]\nc\\x1b[2Jd\n",
	    "report: the class on the first line, each line escaped");

	sc_error_set_errno(&err, SC_ST_IO, EPIPE, "cannot write output");
	child_run(&r, child_report, &err, -1);
	ok(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGPIPE,
	    "report of EPIPE dies of SIGPIPE");
	is_str(r.errbuf, "", "report of EPIPE: silent");

	/* sc_check_stdout: fine, EPIPE, and a full disk. */
	child_run(&r, child_write_stdout, "hello\n", -1);
	ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
	    "check_stdout ok: 0");
	is_str(r.outbuf, "hello\n", "check_stdout ok: output");

	if (pipe(p) == -1)
		abort();
	close(p[0]);
	child_run(&r, child_write_stdout, "hello\n", p[1]);
	close(p[1]);
	ok(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGPIPE,
	    "check_stdout on a closed pipe dies of SIGPIPE");
	is_str(r.errbuf, "", "check_stdout EPIPE: silent");

	fd = open("/dev/full", O_WRONLY);
	ok(fd >= 0, "open /dev/full");
	child_run(&r, child_write_stdout, "hello\n", fd);
	close(fd);
	ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == SC_EXIT_IO,
	    "check_stdout on /dev/full exits 9");
	is_str(r.errbuf,
	    "sc-test: cannot write standard output: No space left on device\n",
	    "check_stdout /dev/full: message");
}

/* Common options that neither print nor exit, in this process. */
static void
test_common_opts(void)
{
	struct sc_cli_common c;
	struct timespec before;
	int64_t left;
	int saved, p[2];

	sc_cli_init(&c, "sc-test");
	is_str(c.progname, "sc-test", "init: progname");
	is_int(c.timeout_ms, -1, "init: no timeout");
	ok(!c.has_deadline && !c.quiet && c.verbosity == 0, "init: defaults");
	is_int(sc_log_level, SC_LOG_WARN, "init: log level warn");
	is_str(sc_log_progname(), "sc-test", "init: log progname");
	ok(signal(SIGPIPE, SIG_IGN) == SIG_IGN, "init: SIGPIPE ignored");

	is_int(sc_cli_common_opt(&c, 's', "sc://h:1", usage_text), 1,
	    "-s is a connection option, not a common one");
	is_int(sc_cli_common_opt(&c, 'v', NULL, usage_text), 0, "-v");
	is_int(sc_log_level, SC_LOG_INFO, "  info");
	is_int(sc_cli_common_opt(&c, 'v', NULL, usage_text), 0, "-vv");
	is_int(sc_log_level, SC_LOG_DEBUG, "  debug");
	is_int(c.verbosity, 2, "  verbosity 2");
	is_int(sc_cli_common_opt(&c, 'q', NULL, usage_text), 0, "-q");
	is_int(sc_log_level, SC_LOG_ERROR, "  errors only");
	ok(c.quiet && c.verbosity == 0, "  -q cancels -v");
	is_int(sc_cli_common_opt(&c, 'v', NULL, usage_text), 0, "-v after -q");
	ok(!c.quiet && sc_log_level == SC_LOG_INFO, "  -v cancels -q");
	is_int(sc_cli_common_opt(&c, 'x', NULL, usage_text), 1,
	    "-x is not common");
	is_int(sc_cli_common_opt(&c, '?', NULL, usage_text), 1,
	    "'?' is not common");

	is_int(sc_cli_common_opt(&c, 't', "1.5s", usage_text), 0, "-t 1.5s");
	is_int(c.timeout_ms, 1500, "  1500 ms");
	is_int(sc_cli_common_opt(&c, 't', "30", usage_text), 0, "-t 30");
	is_int(c.timeout_ms, 30000, "  a bare number is seconds");
	is_int(sc_cli_common_opt(&c, 't', "1.5s", usage_text), 0, "-t 1.5s");

	/* Invalid -t values: -1 and a message on stderr. */
	fflush(stderr);
	saved = dup(2);
	if (pipe(p) == -1)
		abort();
	dup2(p[1], 2);
	close(p[1]);
	is_int(sc_cli_common_opt(&c, 't', "soon", usage_text), -1, "-t soon");
	is_int(sc_cli_common_opt(&c, 't', "0", usage_text), -1, "-t 0");
	is_int(c.timeout_ms, 1500, "  timeout unchanged");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	{
		char buf[512];

		child_slurp(p[0], buf, sizeof(buf));
		is_str(buf,
		    "sc-test: invalid timeout: 'soon' is not a "
		    "duration\nsc-test: invalid timeout: '0' is not greater "
		    "than zero\n",
		    "  messages on stderr");
	}

	sc_mono_now(&before);
	sc_cli_finish_common(&c);
	ok(c.has_deadline, "finish: deadline set");
	left = sc_ms_until(&c.deadline);
	ok(left > 1400 && left <= 1500, "finish: deadline 1.5 s away (%lld)",
	    (long long)left);
	is_int(sc_log_level, SC_LOG_INFO, "finish: log level kept");

	sc_cli_init(&c, "sc-test");
	sc_cli_finish_common(&c);
	ok(!c.has_deadline, "finish without -t: no deadline");
	is_int(sc_log_level, SC_LOG_WARN, "finish: warn by default");
	sc_log_level = SC_LOG_WARN;
}

/* --- the option parser ---------------------------------------------- */

static const char parse_usage[] =
    "usage: sc-test [-fv] [--name text] thing...\n"
    "\n"
    "  -f, --flag  a flag\n";

struct popts {
	struct sc_cli_common common;
	struct sc_conn_opts conn;
	bool flag;
	int mode;
	const char *name, *id;
	uint64_t count;
	int64_t wait_ms;
	int calls;
	const char *last;
};

static int
count_call(void *p, const char *value, struct sc_error *err)
{
	struct popts *o = p;

	if (strcmp(value, "bad") == 0)
		return sc_error_set(err, SC_ST_USAGE, "invalid pick '%s': bad",
		    value);
	o->calls++;
	o->last = value;
	return 0;
}

/* Parse argv (NULL-terminated) into o; the index of the first operand. */
static int
parse(struct popts *o, char **argv)
{
	const struct sc_cli_opt table[] = {
		SC_CLI_UINT("count", 'n', &o->count, 1, 10),
		SC_CLI_FLAG("flag", 'f', &o->flag),
		SC_CLI_UUID("id", 0, &o->id, "thing id"),
		SC_CLI_SET("loud", 0, &o->mode, 2),
		SC_CLI_STRING("name", 0, &o->name),
		SC_CLI_CALL("pick", 'p', o, count_call),
		SC_CLI_SET("quietly", 0, &o->mode, 1),
		SC_CLI_DURATION("wait", 0, &o->wait_ms),
		SC_CLI_END,
	};
	int argc = 0;

	while (argv[argc] != NULL)
		argc++;
	memset(o, 0, sizeof(*o));
	sc_cli_init(&o->common, "sc-test");
	sc_conn_opts_init(&o->conn);
	return sc_cli_parse(table, parse_usage, &o->common, &o->conn, argc,
	    argv);
}

static void
test_parse(void)
{
	char *a1[] = { S("sc-test"), S("op1"), S("-f"), S("--name"), S("x"),
		S("--count=7"), S("-p"), S("a"), S("--pick"), S("b"),
		S("--loud"), S("--wait"), S("1.5s"), S("--id"),
		S("0F0E0D0C-0B0A-4908-8706-050403020100"), S("-t"), S("2s"),
		S("-s"), S("sc://h:1"), S("-H"), S("x-a=1"), S("--tls"),
		S("--session-id"), S("0f0e0d0c-0b0a-4908-8706-050403020100"),
		S("op2"), NULL };
	char *a2[] = { S("sc-test"), S("-fn3"), S("--quietly"), S("-v"),
		S("--"), S("-f"), NULL };
	struct popts o;
	int i;

	i = parse(&o, a1);
	is_int(i, 23, "operands after the options (getopt permutes)");
	is_str(a1[i], "op1", "  first operand");
	is_str(a1[i + 1], "op2", "  second operand");
	ok(o.flag, "FLAG -f");
	is_str(o.name, "x", "STRING --name x");
	is_int(o.count, 7, "UINT --count=7");
	ok(o.calls == 2 && strcmp(o.last, "b") == 0, "CALL -p a --pick b");
	is_int(o.mode, 2, "SET --loud");
	is_int(o.wait_ms, 1500, "DURATION --wait 1.5s");
	is_str(o.id, "0F0E0D0C-0B0A-4908-8706-050403020100", "UUID --id");
	ok(o.common.has_deadline && o.common.timeout_ms == 2000,
	    "common -t 2s, deadline computed");
	is_str(o.conn.server, "sc://h:1", "connection -s");
	ok(o.conn.nheaders == 1 && strcmp(o.conn.headers[0].key, "x-a") == 0,
	    "connection -H");
	ok(o.conn.tls && o.conn.session_id != NULL,
	    "connection --tls and --session-id");
	sc_conn_opts_release(&o.conn);

	i = parse(&o, a2);
	ok(o.flag && o.count == 3, "bundled -fn3");
	is_int(o.mode, 1, "SET --quietly");
	is_int(sc_log_level, SC_LOG_INFO, "common -v");
	is_str(a2[i], "-f", "after --, -f is an operand");
	sc_conn_opts_release(&o.conn);
	sc_log_level = SC_LOG_WARN;
}

static void
child_parse(const void *arg)
{
	char *argv[8] = { S("sc-test") };
	const char *const *args = arg;
	struct popts o;
	int i;

	for (i = 0; args[i] != NULL && i < 6; i++)
		argv[i + 1] = (char *)args[i];
	sc_log_init("sc-test", SC_LOG_STYLE_CLIENT, SC_LOG_WARN);
	parse(&o, argv);
	exit(0);
}

/*
 * Every usage error, from getopt or from a value, in the same voice:
 * "sc-test: <message>", the synopsis, the hint, exit 2.
 */
static void
test_usage_voice(void)
{
	static const struct {
		const char *args[4];
		const char *msg;
	} t[] = {
		{ { "--bogus" }, "unknown option '--bogus'" },
		{ { "--bogus=1" }, "unknown option '--bogus'" },
		{ { "-x" }, "unknown option '-x'" },
		{ { "-fx" }, "unknown option '-x'" },
		{ { "-xf" }, "unknown option '-x'" },
		{ { "--tls", "-xf" }, "unknown option '-x'" },
		{ { "--name" }, "option '--name' needs a value" },
		{ { "-n" }, "option '-n' needs a value" },
		{ { "-fn" }, "option '-n' needs a value" },
		{ { "-H" }, "option '-H' needs a value" },
		{ { "--server" }, "option '--server' needs a value" },
		{ { "--flag=yes" }, "option '--flag' takes no value" },
		{ { "--tls=1" }, "option '--tls' takes no value" },
		{ { "--help=1" }, "option '--help' takes no value" },
		{ { "--qu" }, "option '--qu' is ambiguous" },
		{ { "--count", "0" }, "invalid --count: '0' is too small" },
		{ { "--count", "x" }, "invalid --count: 'x' is not a number" },
		{ { "--wait", "soon" },
		    "invalid --wait: 'soon' is not a duration" },
		{ { "--id", "nope" }, "invalid thing id 'nope': not a UUID" },
		{ { "--pick", "bad" }, "invalid pick 'bad': bad" },
		{ { "-t", "0" },
		    "invalid timeout: '0' is not greater than zero" },
		{ { "-H", "grpc-timeout=1S" },
		    "invalid header 'grpc-timeout=1S': 'grpc-timeout' is reserved for gRPC" },
		{ { "-H", "x-a=1", "-H", "X-A=2" },
		    "invalid header 'X-A=2': duplicate header 'x-a'" },
		{ { "--session-id", "nope" },
		    "invalid session id 'nope': not a UUID" },
	};
	struct child r;
	char want[512];
	size_t i;

	for (i = 0; i < SC_NELEM(t); i++) {
		child_run(&r, child_parse, t[i].args, -1);
		ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2,
		    "%s %s: exit 2", t[i].args[0],
		    t[i].args[1] != NULL ? t[i].args[1] : "");
		snprintf(want, sizeof(want),
		    "sc-test: %s\n"
		    "try 'sc-test --help'\n",
		    t[i].msg);
		is_str(r.errbuf, want, "  message and hint");
		is_str(r.outbuf, "", "  nothing on stdout");
	}
	/* -h and --help: the whole usage on stdout, exit 0. */
	{
		static const char *const h[] = { "--help", NULL };

		child_run(&r, child_parse, h, -1);
		ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		    "--help exits 0");
		is_str(r.outbuf, parse_usage, "  prints the usage text");
	}
}

static void
test_format_bytes(void)
{
	static const struct {
		double v;
		const char *unit, *want;
	} t[] = {
		{ 0, "B", "0 B" },
		{ 999, "B", "999 B" },
		{ 1000, "B", "1000 B" },
		{ 1024, "B", "1.0 KiB" },
		{ 81530, "B", "79.6 KiB" },
		{ 5.4e6, "B/s", "5.1 MiB/s" },
		{ 1048575, "B", "1.0 MiB" },
		{ 1.6e9, "B", "1.5 GiB" },
		{ 2.5e18, "B", "2220.4 PiB" },
	};
	char out[32];
	size_t i;

	for (i = 0; i < SC_NELEM(t); i++) {
		sc_format_bytes(t[i].v, t[i].unit, out, sizeof(out));
		is_str(out, t[i].want, "sc_format_bytes %g %s", t[i].v,
		    t[i].unit);
	}
}

int
main(void)
{
	test_uint();
	test_duration();
	test_cli_duration();
	test_size();
	test_format_bytes();
	test_common_opts();
	test_exiting();
	test_parse();
	test_usage_voice();
	return tap_done();
}
