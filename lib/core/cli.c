/* SPDX-License-Identifier: MIT */

/*
 * cli.c: common options, usage errors and error reports for the sc-*
 * programs, plus strtonum-style number, duration and size parsing.
 *
 * This is the one lib/core file that prints and exits, and only in the
 * functions cli.h marks so; they are meant to be called from main().
 */

#include "core/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/conn.h"
#include "core/error.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "core/banned.h"

#ifndef SCTK_VERSION
#define SCTK_VERSION "0.0.0"
#endif

const struct option sc_cli_common_longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "timeout", required_argument, NULL, 't' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/*
 * A standard descriptor the caller closed (">&-") would be the next one
 * open() returns, and output would go into a socket or an eventfd of
 * gRPC's.  Hold each closed one with /dev/null opened the other way, so
 * using it fails with EBADF as it would have.
 */
static void
hold_std_fds(void)
{
	int fd, got;

	for (fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		/* The lowest free descriptor is fd; no /dev/null: left so. */
		got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
		if (got != -1 && got != fd)
			close(got);
	}
}

void
sc_cli_init(struct sc_cli_common *c, const char *progname)
{
	hold_std_fds();
	memset(c, 0, sizeof(*c));
	c->progname = progname;
	c->timeout_ms = -1;
	c->has_deadline = false;
	c->verbosity = 0;
	c->quiet = false;
	sc_log_init(progname, SC_LOG_STYLE_CLIENT, SC_LOG_WARN);
	/* A dead peer or pipe must be an EPIPE error, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	setlocale(LC_CTYPE, "");
}

static void
apply_level(const struct sc_cli_common *c)
{
	if (c->quiet)
		sc_log_level = SC_LOG_ERROR;
	else if (c->verbosity >= 2)
		sc_log_level = SC_LOG_DEBUG;
	else if (c->verbosity == 1)
		sc_log_level = SC_LOG_INFO;
	else
		sc_log_level = SC_LOG_WARN;
}

/* sc_cli_common_opt() with the message in err instead of printed. */
static int
common_opt(struct sc_cli_common *c, int ch, const char *optarg,
    const char *usage_text, struct sc_error *err)
{
	struct sc_error e;
	int64_t ms;

	switch (ch) {
	case 'h':
		fputs(usage_text, stdout);
		exit(sc_check_stdout());
	case 'q':
		c->quiet = true;
		c->verbosity = 0;
		break;
	case 't':
		if (sc_parse_cli_duration(optarg, &ms, &e) == -1)
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid timeout: %s", e.msg);
		if (ms == 0)
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid timeout: '%s' is not greater than zero",
			    optarg);
		c->timeout_ms = ms;
		break;
	case 'v':
		c->verbosity++;
		c->quiet = false;
		break;
	case 'V':
		printf("%s %s\n", c->progname, SCTK_VERSION);
		exit(sc_check_stdout());
	default:
		return 1;
	}
	apply_level(c);
	return 0;
}

int
sc_cli_common_opt(struct sc_cli_common *c, int ch, const char *optarg,
    const char *usage_text)
{
	struct sc_error err;
	int r;

	if ((r = common_opt(c, ch, optarg, usage_text, &err)) == -1)
		sc_err("%s", err.msg);
	return r;
}

/* ------------------------------------------------------ option parser */

/* An sc_cli_opt's value, or -1 with the message in err. */
static int
table_opt(const struct sc_cli_opt *o, const char *value, struct sc_error *err)
{
	struct sc_error e;

	switch (o->kind) {
	case SC_CLI_KIND_FLAG:
		*(bool *)o->ptr = true;
		return 0;
	case SC_CLI_KIND_SET:
		*(int *)o->ptr = o->value;
		return 0;
	case SC_CLI_KIND_STRING:
		*(const char **)o->ptr = value;
		return 0;
	case SC_CLI_KIND_UINT:
		if (sc_parse_uint(value, o->min, o->max, o->ptr, &e) == -1)
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid --%s: %s", o->name, e.msg);
		return 0;
	case SC_CLI_KIND_DURATION:
		if (sc_parse_cli_duration(value, o->ptr, &e) == -1)
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid --%s: %s", o->name, e.msg);
		return 0;
	case SC_CLI_KIND_UUID:
		if (!sc_uuid_valid(value))
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid %s '%s': not a UUID", o->what, value);
		*(const char **)o->ptr = value;
		return 0;
	case SC_CLI_KIND_CALL:
		return o->fn(o->ptr, value, err);
	case SC_CLI_KIND_END:
		break;
	}
	SC_BUG("option --%s of kind %d", o->name, (int)o->kind);
}

int
sc_cli_parse(const struct sc_cli_opt *opts, const char *usage_text,
    struct sc_cli_common *common, struct sc_conn_opts *conn, int argc,
    char *argv[])
{
	struct option longopts[SC_CLI_MAX_OPTS + 1];
	struct sc_cli_parser p;
	struct sc_error err;
	char optstring[SC_CLI_MAX_OPTS * 2 + 1];
	size_t i, n = 0;
	int ch;

	/* Long options report their row's index + 256; letters themselves. */
	memset(longopts, 0, sizeof(longopts));
	for (i = 0; opts[i].kind != SC_CLI_KIND_END; i++) {
		if (i >= SC_CLI_MAX_OPTS || opts[i].letter >= 256)
			SC_BUG("option table too large");
		longopts[i].name = opts[i].name;
		longopts[i].has_arg = opts[i].kind == SC_CLI_KIND_FLAG ||
			opts[i].kind == SC_CLI_KIND_SET
		    ? no_argument
		    : required_argument;
		longopts[i].val = (int)i + 256;
		if (opts[i].letter != 0) {
			optstring[n++] = (char)opts[i].letter;
			if (longopts[i].has_arg == required_argument)
				optstring[n++] = ':';
		}
	}
	optstring[n] = '\0';
	sc_cli_parser_init(&p, usage_text, optstring, longopts, common, conn);
	while ((ch = sc_cli_next(&p, argc, argv)) != -1) {
		if (ch < 256)
			for (i = 0; opts[i].kind != SC_CLI_KIND_END &&
			     opts[i].letter != ch;
			     i++)
				;
		else
			i = (size_t)ch - 256;
		sc_error_init(&err);
		if (table_opt(&opts[i], optarg, &err) == -1)
			sc_usage_msg(usage_text, "%s", err.msg);
	}
	if (common != NULL)
		sc_cli_finish_common(common);
	return optind;
}

static void
add_opts(struct sc_cli_parser *p, size_t *n, const char *optstring,
    const struct option *longopts)
{
	size_t len = strlen(p->optstring);

	if (len + strlen(optstring) >= sizeof(p->optstring))
		SC_BUG("option string too long");
	memcpy(p->optstring + len, optstring, strlen(optstring) + 1);
	for (; longopts != NULL && longopts->name != NULL; longopts++) {
		if (*n >= SC_CLI_MAX_OPTS)
			SC_BUG("more than %d options", SC_CLI_MAX_OPTS);
		p->longopts[(*n)++] = *longopts;
	}
}

void
sc_cli_parser_init(struct sc_cli_parser *p, const char *usage_text,
    const char *optstring, const struct option *longopts,
    struct sc_cli_common *common, struct sc_conn_opts *conn)
{
	size_t n = 0;

	memset(p, 0, sizeof(*p));
	p->usage_text = usage_text;
	p->common = common;
	p->conn = conn;
	p->own = longopts;
	/* ':' first: a missing value is reported apart from an unknown option. */
	p->optstring[0] = ':';
	add_opts(p, &n, optstring, longopts);
	if (common != NULL)
		add_opts(p, &n, SC_CLI_COMMON_OPTSTRING,
		    sc_cli_common_longopts);
	if (conn != NULL)
		add_opts(p, &n, SC_CONN_OPTSTRING, sc_conn_longopts);
	memset(&p->longopts[n], 0, sizeof(p->longopts[n]));
	optind = 0; /* glibc: start over at argv[1] */
}

/* Whether ch is one of the short options of p. */
static bool
is_short(const struct sc_cli_parser *p, int ch)
{
	return ch > 0 && ch < 256 && ch != ':' &&
	    strchr(p->optstring, ch) != NULL;
}

/* getopt's '?' or ':' for the element arg, in our words.  (exits) */
static void __attribute__((noreturn))
bad_option(const struct sc_cli_parser *p, int ch, const char *arg)
{
	const struct option *o;
	size_t len;
	int matches = 0;

	/*
	 * getopt leaves the offending element at argv[optind - 1] for long
	 * options and missing values; an unknown letter is in optopt.
	 */
	if (ch == ':') {
		if (strncmp(arg, "--", 2) == 0)
			sc_usage_msg(p->usage_text,
			    "option '%.*s' needs a value",
			    (int)strcspn(arg, "="), arg);
		sc_usage_msg(p->usage_text, "option '-%c' needs a value",
		    optopt);
	}
	if (optopt != 0 && !is_short(p, optopt) && optopt < 256)
		sc_usage_msg(p->usage_text, "unknown option '-%c'", optopt);
	len = strcspn(arg, "=");
	if (optopt != 0 && arg[len] == '=')
		sc_usage_msg(p->usage_text, "option '%.*s' takes no value",
		    (int)len, arg);
	if (strncmp(arg, "--", 2) == 0)
		for (o = p->longopts; o->name != NULL; o++)
			if (strncmp(o->name, arg + 2, len - 2) == 0)
				matches++;
	if (matches > 1)
		sc_usage_msg(p->usage_text, "option '%.*s' is ambiguous",
		    (int)len, arg);
	sc_usage_msg(p->usage_text, "unknown option '%.*s'", (int)len, arg);
}

/*
 * Whether arg, taken for a long option, is text: no option name holds
 * white space ("-- a comment\nSELECT 1").
 */
static bool
is_text(const char *arg)
{
	size_t len = strcspn(arg, "=");

	return strncmp(arg, "--", 2) == 0 && len > 2 &&
	    strcspn(arg + 2, " \t\n\r\f\v") < len - 2;
}

/*
 * Put the text elements p->text[] (in argv[0..optind), where getopt left
 * them) just before argv[optind], in order, and make them operands.
 */
static void
text_to_operands(struct sc_cli_parser *p, char *argv[])
{
	size_t k;
	int i, j;

	for (k = p->ntext; k-- > 0;) {
		for (i = optind - 1; i > 0 && argv[i] != p->text[k]; i--)
			;
		if (i <= 0)
			SC_BUG("an operand went missing");
		for (j = i; j < optind - 1; j++)
			argv[j] = argv[j + 1];
		argv[optind - 1] = p->text[k];
		optind--;
	}
	p->ntext = 0;
}

int
sc_cli_next(struct sc_cli_parser *p, int argc, char *argv[])
{
	struct sc_error err;
	const char *arg;
	int ch, r;

	for (;;) {
		opterr = 0;
		optopt = 0;
		ch = getopt_long(argc, argv, p->optstring, p->longopts, NULL);
		if (ch == -1) {
			text_to_operands(p, argv);
			return -1;
		}
		arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
		if (ch == '?' && is_text(arg) && p->ntext < SC_NELEM(p->text)) {
			p->text[p->ntext++] = argv[optind - 1];
			continue;
		}
		if (ch == '?' || ch == ':')
			bad_option(p, ch, arg);
		sc_error_init(&err);
		r = 1;
		if (p->common != NULL)
			r = common_opt(p->common, ch, optarg, p->usage_text,
			    &err);
		if (r == 1 && p->conn != NULL)
			r = sc_conn_opt(p->conn, ch, optarg, &err);
		if (r == -1)
			sc_usage_msg(p->usage_text, "%s", err.msg);
		if (r == 1)
			return ch;
	}
}

/* -t, for sc_report_error() to name (the program's one deadline). */
static const struct sc_cli_common *timeout_of;

void
sc_cli_finish_common(struct sc_cli_common *c)
{
	if (c->timeout_ms >= 0) {
		sc_deadline_in_ms(&c->deadline, c->timeout_ms);
		c->has_deadline = true;
	} else
		c->has_deadline = false;
	timeout_of = c;
	apply_level(c);
}

/* The synopsis: usage_text up to its first blank line. */
static void
print_synopsis(const char *usage_text)
{
	const char *blank;

	blank = strstr(usage_text, "\n\n");
	if (blank != NULL)
		fwrite(usage_text, 1, (size_t)(blank - usage_text) + 1, stderr);
	else {
		fputs(usage_text, stderr);
		if (usage_text[0] != '\0' &&
		    usage_text[strlen(usage_text) - 1] != '\n')
			fputc('\n', stderr);
	}
}

void
sc_usage(const char *usage_text)
{
	print_synopsis(usage_text);
	fprintf(stderr, "try '%s --help'\n", sc_log_progname());
	exit(SC_EXIT_USAGE);
}

void
sc_usage_msg(const char *usage_text, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	(void)usage_text;
	sc_err("%s", msg);
	fprintf(stderr, "try '%s --help'\n", sc_log_progname());
	exit(SC_EXIT_USAGE);
}

static void __attribute__((noreturn)) die_of_sigpipe(void)
{
	fflush(stderr);
	signal(SIGPIPE, SIG_DFL);
	raise(SIGPIPE);
	/* SIGPIPE blocked by our parent: end as a write error would. */
	_exit(SC_EXIT_IO);
}

/*
 * Spark's messages have lines of their own (a parse error's "== SQL =="
 * block with carets under the text): the first line goes out as any
 * message, each further one as it is, escaped but without the program's
 * name, so the carets stay under the text.  Blank lines before and after
 * are dropped.
 */
int
sc_report_error(const struct sc_error *err)
{
	const char *p = err->msg, *end, *nl;
	char line[sizeof(err->msg) * 4 + 1];
	char d[SC_DURATION_STRLEN], why[SC_DURATION_STRLEN + 32] = "";

	if (err->status == SC_ST_IO && err->sys_errno == EPIPE)
		die_of_sigpipe();
	/* The user's own limit, when it is what passed, says so. */
	if (err->status == SC_ST_TIMEOUT && timeout_of != NULL &&
	    timeout_of->has_deadline &&
	    sc_ms_until(&timeout_of->deadline) <= 0 &&
	    strstr(err->msg, "--timeout") == NULL) {
		sc_duration_format(timeout_of->timeout_ms, d);
		snprintf(why, sizeof(why), " (the --timeout of %s passed)", d);
	}
	while (*p == '\n')
		p++;
	end = p + strlen(p);
	while (end > p && end[-1] == '\n')
		end--;
	if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
		nl = end;
	if (err->errclass[0] != '\0' && strstr(err->msg, err->errclass) == NULL)
		sc_err("%.*s%s [%s]", (int)(nl - p), p, why, err->errclass);
	else
		sc_err("%.*s%s", (int)(nl - p), p, why);
	while (nl < end) {
		p = nl + 1;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		sc_log_escape(line, sizeof(line), p, (size_t)(nl - p));
		fprintf(stderr, "%s\n", line);
	}
	return sc_exit_code(err);
}

int
sc_check_stdout(void)
{
	int e = 0;

	errno = 0;
	if (fflush(stdout) == EOF)
		e = errno;
	if (ferror(stdout) && e == 0)
		e = errno != 0 ? errno : EIO;
	errno = 0;
	if (fclose(stdout) == EOF && e == 0)
		e = errno != 0 ? errno : EIO;
	if (e == 0)
		return SC_EXIT_OK;
	if (e == EPIPE)
		die_of_sigpipe();
	sc_err("cannot write standard output: %s", strerror(e));
	return SC_EXIT_IO;
}

int
sc_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out,
    struct sc_error *err)
{
	unsigned long long v;
	char *end;

	if (s == NULL || s[0] < '0' || s[0] > '9')
		return sc_error_set(err, SC_ST_USAGE, "'%s' is not a number",
		    s != NULL ? s : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		return sc_error_set(err, SC_ST_USAGE, "'%s' is not a number",
		    s);
	if (errno == ERANGE || v > max)
		return sc_error_set(err, SC_ST_USAGE, "'%s' is too large", s);
	if (v < min)
		return sc_error_set(err, SC_ST_USAGE, "'%s' is too small", s);
	*out = v;
	return 0;
}

/*
 * Leading decimal digits of s into *v, with the count in *ndig; -1 if the
 * value exceeds limit.
 */
static int
digits(const char **sp, uint64_t limit, uint64_t *v, size_t *ndig)
{
	const char *s = *sp;
	uint64_t x = 0;
	unsigned int d;

	*ndig = 0;
	for (; *s >= '0' && *s <= '9'; s++, (*ndig)++) {
		d = (unsigned int)(*s - '0');
		if (x > (limit - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*sp = s;
	*v = x;
	return 0;
}

/*
 * One number with an optional fraction and a unit ("1.5s", "250") at
 * *sp, in milliseconds (a bare number is bare_ms each).  0 and *sp past
 * it; -1 if it is not a duration; -2 if it is too large.
 */
static int
duration_part(const char **sp, int64_t bare_ms, uint64_t *ms)
{
	static const struct {
		const char *name;
		uint64_t ms;
	} units[] = { { "ms", 1 }, { "s", 1000 }, { "m", 60000 },
		{ "h", 3600000 }, { "d", 86400000 } };
	const char *p = *sp;
	uint64_t whole, frac = 0, scale = 1, mult = 0, total;
	size_t nd, i, len, best = 0;

	if (digits(&p, UINT64_MAX, &whole, &nd) == -1)
		return -2;
	if (nd == 0)
		return -1;
	if (*p == '.') {
		p++;
		/* Up to nine fraction digits count; more are ignored. */
		for (nd = 0; *p >= '0' && *p <= '9'; p++, nd++)
			if (nd < 9) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
		if (nd == 0)
			return -1;
	}
	/* The longest unit that matches: "ms" before "m". */
	for (i = 0; i < SC_NELEM(units); i++) {
		len = strlen(units[i].name);
		if (len > best && strncmp(p, units[i].name, len) == 0) {
			best = len;
			mult = units[i].ms;
		}
	}
	if (best == 0)
		mult = (uint64_t)bare_ms;
	p += best;
	if (whole > (uint64_t)INT64_MAX / mult)
		return -2;
	/* frac < 1e9 and mult <= 8.64e7: the product fits in 64 bits. */
	total = whole * mult + (frac * mult + scale / 2) / scale;
	if (total > (uint64_t)INT64_MAX)
		return -2;
	*sp = p;
	*ms = total;
	return 0;
}

/* A duration of one part, or (compound) of several with units. */
static int
parse_duration(const char *s, int64_t bare_ms, bool compound, int64_t *out,
    struct sc_error *err)
{
	const char *p = s, *before;
	uint64_t total = 0, ms;
	int parts = 0, r;

	if (s == NULL)
		return sc_error_set(err, SC_ST_USAGE, "'' is not a duration");
	do {
		before = p;
		if ((r = duration_part(&p, bare_ms, &ms)) == -2)
			return sc_error_set(err, SC_ST_USAGE,
			    "'%s' is too large", s);
		if (r == -1)
			goto bad;
		/* A bare number stands alone: "1h30" is not a duration. */
		if ((parts > 0 || *p != '\0') &&
		    (p == before || (p[-1] >= '0' && p[-1] <= '9')))
			goto bad;
		if (ms > (uint64_t)INT64_MAX - total)
			return sc_error_set(err, SC_ST_USAGE,
			    "'%s' is too large", s);
		total += ms;
		parts++;
	} while (compound && *p != '\0');
	if (*p != '\0')
		goto bad;
	*out = (int64_t)total;
	return 0;
bad:
	return sc_error_set(err, SC_ST_USAGE, "'%s' is not a duration", s);
}

int
sc_parse_duration_ms(const char *s, int64_t *out, struct sc_error *err)
{
	return parse_duration(s, 1, false, out, err);
}

int
sc_parse_cli_duration(const char *s, int64_t *out, struct sc_error *err)
{
	return parse_duration(s, 1000, true, out, err);
}

int
sc_parse_size(const char *s, uint64_t *out, struct sc_error *err)
{
	static const struct {
		const char *name;
		unsigned int shift;
	} units[] = { { "", 0 }, { "b", 0 }, { "k", 10 }, { "kb", 10 },
		{ "kib", 10 }, { "m", 20 }, { "mb", 20 }, { "mib", 20 },
		{ "g", 30 }, { "gb", 30 }, { "gib", 30 }, { "t", 40 },
		{ "tb", 40 }, { "tib", 40 }, { "p", 50 }, { "pb", 50 },
		{ "pib", 50 } };
	const char *p = s;
	uint64_t v;
	size_t nd, i;

	if (s == NULL)
		return sc_error_set(err, SC_ST_USAGE, "'' is not a size");
	if (digits(&p, UINT64_MAX, &v, &nd) == -1)
		return sc_error_set(err, SC_ST_USAGE, "'%s' is too large", s);
	if (nd == 0)
		goto bad;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcasecmp(p, units[i].name) == 0)
			break;
	if (i == sizeof(units) / sizeof(units[0]))
		goto bad;
	if (units[i].shift > 0 && v > (UINT64_MAX >> units[i].shift))
		return sc_error_set(err, SC_ST_USAGE, "'%s' is too large", s);
	*out = v << units[i].shift;
	return 0;
bad:
	return sc_error_set(err, SC_ST_USAGE, "'%s' is not a size", s);
}

void
sc_format_bytes(double v, const char *unit, char *out, size_t outsz)
{
	static const char *const pfx[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi" };
	size_t i = 0;

	while (v >= 1023.95 && i + 1 < SC_NELEM(pfx)) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(out, outsz, "%.0f %s", v, unit);
	else
		snprintf(out, outsz, "%.1f %s%s", v, pfx[i], unit);
}
