/* SPDX-License-Identifier: MIT */

/*
 * options.c: sc-exec's command line: the usage text, its own options
 * (beside the common and connection ones of lib/core), and the checks of
 * what may be combined.
 */

#include "sc-exec.h"

#include <sys/stat.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/cli.h"
#include "core/client.h"
#include "core/conn.h"
#include "core/error.h"
#include "core/file.h"
#include "core/log.h"
#include "core/output.h"
#include "core/plan.h"
#include "core/reattach.h"
#include "core/result.h"
#include "core/signals.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "core/banned.h"

const char usage_text[] =
    "usage: sc-exec [-hqVv] [--analyze] [--detach] [--header | --no-header]\n"
    "               [--insecure] [--no-pager] [--no-reattach]\n"
    "               [--progress | --no-progress] [--tls]\n"
    "               [-f file] [-H key=value] [-o file] [-s server]\n"
    "               [-t timeout] [--after response-id] [--arg value]\n"
    "               [--attach operation-id] [--ca-file file]\n"
    "               [--conf key=value] [--format format]\n"
    "               [--max-retries n] [--max-rows n]\n"
    "               [--null text] [--operation-id uuid]\n"
    "               [--param name=value] [--plan file]\n"
    "               [--range start:end[:step]] [--segment-timeout time]\n"
    "               [--session-id uuid] [--tag tag] [--token token]\n"
    "               [--unreachable-timeout time] [--user-id id]\n"
    "               [--watchdog time] [sql | -]\n"
    "\n"
    "  sql                    SQL statements separated by ';' (- reads\n"
    "                         standard input, as does no SQL when it is\n"
    "                         not a terminal)\n"
    "  -f, --file file        SQL from file (- for standard input);\n"
    "                         several -f run in order\n"
    "      --param name=value bind :name in the SQL to value, sent as a\n"
    "                         literal: [type:]text, type string (the\n"
    "                         default), int, bigint, double, decimal,\n"
    "                         boolean, date or timestamp\n"
    "      --arg value        bind the next ? in the SQL the same way\n"
    "      --range s:e[:step] run spark.range(s, e, step)\n"
    "      --plan file        run a serialized spark.connect.Plan\n"
    "      --analyze          print the result schema without running\n"
    "      --detach           start the operation, print its id, exit\n"
    "      --attach id        stream the rest of an existing operation\n"
    "      --after id         with --attach: resume after this response\n"
    "      --operation-id id  the operation id to use (a UUID)\n"
    "      --tag tag          tag the operations (repeatable)\n"
    "      --conf key=value   set a session setting first (repeatable)\n"
    "  -o, --output file      write the result to file, whole or not at\n"
    "                         all (a temporary file renamed at the end)\n"
    "      --format fmt       table, vertical, csv, tsv, jsonl or arrow\n"
    "                         (default table on a terminal, else csv)\n"
    "      --no-pager         never page output taller than the screen\n"
    "                         (default on a terminal: $PAGER, else less -S)\n"
    "      --header           write a header line (default)\n"
    "      --no-header        do not write a header line\n"
    "      --null text        text for NULL values\n"
    "      --max-rows n       print at most n rows of each result\n"
    "      --progress         show progress on standard error\n"
    "      --no-progress      do not (default: show it on a terminal)\n"
    "      --no-reattach      do not ask for reattachable execution\n"
    "      --max-retries n    retries per failure streak (default 15)\n"
    "      --segment-timeout time  deadline of each stream (default 10m;\n"
    "                         0 for none)\n"
    "      --watchdog time    reattach after this long without a message\n"
    "                         (default 150s; 0 for none)\n" SC_CONN_HELP_SESSION
	SC_CONN_HELP SC_CLI_COMMON_HELP;

/* ------------------------------------------------------------- options */

static int
opt_range(void *p, const char *s, struct sc_error *err)
{
	struct opts *o = p;
	int64_t *rg = o->range;
	const char *v = s;
	char *end;
	int i;

	rg[2] = 1;
	for (i = 0; i < 3; i++, v = end + 1) {
		errno = 0;
		rg[i] = strtoll(v, &end, 10);
		if (errno == ERANGE)
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid range '%s': %.*s is out of range "
			    "(a 64-bit integer)",
			    s, (int)(end - v), v);
		if (end == v || errno != 0 || (*end != ':' && *end != '\0'))
			break;
		if (*end == '\0' && i >= 1 && rg[2] != 0) {
			o->has_range = true;
			return 0;
		}
		if (*end == '\0')
			break;
	}
	return sc_error_set(err, SC_ST_USAGE,
	    "invalid range '%s': expected start:end[:step] with a non-zero step",
	    s);
}

static int
opt_format(void *p, const char *s, struct sc_error *err)
{
	struct opts *o = p;
	enum sc_out_format f;

	o->arrow = strcasecmp(s, "arrow") == 0;
	if (!o->arrow && sc_out_format_parse(s, &f) == -1)
		return sc_error_set(err, SC_ST_USAGE,
		    "invalid format '%s': expected table, vertical, csv, tsv, jsonl or arrow",
		    s);
	if (!o->arrow)
		o->format = (int)f;
	return 0;
}

static void
list_add(struct list *l, const char *s)
{
	l->v = sc_xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = s;
}

static int
opt_tag(void *p, const char *s, struct sc_error *err)
{
	if (s[0] == '\0' || strchr(s, ',') != NULL)
		return sc_error_set(err, SC_ST_USAGE,
		    "invalid tag '%s': must be non-empty without ','", s);
	list_add(p, s);
	return 0;
}

static int
opt_conf(void *p, const char *s, struct sc_error *err)
{
	const char *eq = strchr(s, '=');

	if (eq == NULL || eq == s)
		return sc_error_set(err, SC_ST_USAGE,
		    "invalid --conf '%s': expected key=value", s);
	list_add(p, s);
	return 0;
}

static int
opt_file(void *p, const char *s, struct sc_error *err)
{
	(void)err;
	list_add(p, s);
	return 0;
}

/* "[type:]value": the type word, if it is one, and the value. */
static void
typed_value(const char *s, struct sc_plan_param *p)
{
	static const struct {
		const char *word;
		enum sc_value_type type;
	} types[] = { { "bigint", SC_VALUE_LONG },
		{ "boolean", SC_VALUE_BOOLEAN }, { "date", SC_VALUE_DATE },
		{ "decimal", SC_VALUE_DECIMAL }, { "double", SC_VALUE_DOUBLE },
		{ "int", SC_VALUE_INT }, { "string", SC_VALUE_STRING },
		{ "timestamp", SC_VALUE_TIMESTAMP } };
	const char *colon = strchr(s, ':');
	size_t i;

	p->type = SC_VALUE_STRING;
	p->text = s;
	if (colon == NULL)
		return;
	for (i = 0; i < SC_NELEM(types); i++)
		if (strlen(types[i].word) == (size_t)(colon - s) &&
		    strncmp(s, types[i].word, (size_t)(colon - s)) == 0) {
			p->type = types[i].type;
			p->text = colon + 1;
			return;
		}
}

static int
add_param(struct opts *o, const char *opt, const char *s, bool named,
    struct sc_error *err)
{
	struct sc_plan_param p;
	struct sc_error e;
	const char *eq = NULL;
	size_t i;

	memset(&p, 0, sizeof(p));
	if (named) {
		eq = strchr(s, '=');
		for (i = 0; eq != NULL && s + i < eq; i++)
			if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') ||
				(s[i] >= 'A' && s[i] <= 'Z') ||
				(i > 0 && s[i] >= '0' && s[i] <= '9')))
				break;
		if (eq == NULL || eq == s || s + i != eq)
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid --param '%s': expected name=value, the "
			    "name a SQL identifier",
			    s);
		p.name = sc_xstrndup(s, (size_t)(eq - s));
		typed_value(eq + 1, &p);
	} else
		typed_value(s, &p);
	if (sc_plan_param_check(&p, &e) == -1) {
		free((char *)p.name);
		return sc_error_set(err, SC_ST_USAGE, "invalid --%s '%s': %s",
		    opt, s, e.msg);
	}
	o->params =
	    sc_xreallocarray(o->params, o->nparams + 1, sizeof(*o->params));
	o->params[o->nparams++] = p;
	if (named)
		o->named = true;
	else
		o->positional = true;
	return 0;
}

static int
opt_param(void *p, const char *s, struct sc_error *err)
{
	return add_param(p, "param", s, true, err);
}

static int
opt_arg(void *p, const char *s, struct sc_error *err)
{
	return add_param(p, "arg", s, false, err);
}

void
opts_release(struct opts *o)
{
	size_t i;

	for (i = 0; i < o->nparams; i++)
		free((char *)o->params[i].name);
	free(o->params);
	sc_conn_opts_release(&o->conn);
	free(o->tags.v);
	free(o->files.v);
	free(o->confs.v);
}

void
parse_args(struct opts *o, int argc, char **argv)
{
	const struct sc_cli_opt table[] = {
		SC_CLI_UUID("after", 0, &o->after, "response id"),
		SC_CLI_FLAG("analyze", 0, &o->analyze),
		SC_CLI_CALL("arg", 0, o, opt_arg),
		SC_CLI_UUID("attach", 0, &o->attach, "operation id"),
		SC_CLI_CALL("conf", 0, &o->confs, opt_conf),
		SC_CLI_FLAG("detach", 0, &o->detach),
		SC_CLI_CALL("file", 'f', &o->files, opt_file),
		SC_CLI_CALL("format", 0, o, opt_format),
		SC_CLI_SET("header", 0, &o->header, 1),
		SC_CLI_UINT("max-retries", 0, &o->max_retries, 0, 1000),
		SC_CLI_UINT("max-rows", 0, &o->max_rows, 1, UINT64_MAX / 2),
		SC_CLI_SET("no-header", 0, &o->header, 0),
		SC_CLI_FLAG("no-pager", 0, &o->no_pager),
		SC_CLI_SET("no-progress", 0, &o->progress, 0),
		SC_CLI_FLAG("no-reattach", 0, &o->no_reattach),
		SC_CLI_STRING("null", 0, &o->null_text),
		SC_CLI_UUID("operation-id", 0, &o->opid, "operation id"),
		SC_CLI_STRING("output", 'o', &o->output),
		SC_CLI_CALL("param", 0, o, opt_param),
		SC_CLI_STRING("plan", 0, &o->plan_file),
		SC_CLI_SET("progress", 0, &o->progress, 1),
		SC_CLI_CALL("range", 0, o, opt_range),
		SC_CLI_DURATION("segment-timeout", 0, &o->segment_ms),
		SC_CLI_CALL("tag", 0, &o->tags, opt_tag),
		SC_CLI_DURATION("watchdog", 0, &o->watchdog_ms),
		SC_CLI_END,
	};
	int i;

	memset(o, 0, sizeof(*o));
	o->format = o->header = o->progress = -1;
	o->segment_ms = o->watchdog_ms = -1;
	o->max_retries = UINT64_MAX;
	sc_cli_init(&o->common, "sc-exec");
	sc_conn_opts_init(&o->conn);
	i = sc_cli_parse(table, usage_text, &o->common, &o->conn, argc, argv);
	if (argc - i > 1)
		sc_usage_msg(usage_text,
		    "too many operands (quote the SQL as one argument)");
	o->sql = argc - i == 1 ? argv[i] : NULL;
	if (o->output != NULL && strcmp(o->output, "-") == 0)
		o->output = NULL;
	/*
	 * No work given: a script on standard input, as psql reads one, or
	 * a prompt on a terminal.
	 */
	o->stdin_script = argc - i == 0 && o->files.n == 0 && !o->has_range &&
	    o->plan_file == NULL && o->attach == NULL;
	o->prompt = o->stdin_script && isatty(STDIN_FILENO);
	if (o->prompt)
		o->stdin_script = false;
	if (o->format < 0)
		o->format = o->output == NULL && isatty(STDOUT_FILENO)
		    ? SC_OUT_TABLE
		    : SC_OUT_CSV;
}

/* Each forbidden combination, one line and one message each. */
void
validate(const struct opts *o)
{
	int nsrc = (o->sql != NULL) + (o->files.n > 0) + o->has_range +
	    (o->plan_file != NULL) + (o->attach != NULL);

	if (o->prompt && (o->detach || o->opid != NULL || o->analyze))
		sc_usage_msg(usage_text,
		    "--detach, --operation-id and --analyze need the SQL to run (a prompt starts without it)");
	if (nsrc > 1)
		sc_usage_msg(usage_text,
		    "give only one of SQL, -f, --range, --plan and --attach");
	if (o->named && o->positional)
		sc_usage_msg(usage_text,
		    "cannot use --param and --arg together (Spark binds one kind)");
	if (o->nparams > 0 &&
	    (o->has_range || o->plan_file != NULL || o->attach != NULL))
		sc_usage_msg(usage_text, "--param and --arg need SQL");
	if (o->after != NULL && o->attach == NULL)
		sc_usage_msg(usage_text, "--after needs --attach");
	if (o->attach != NULL && o->detach)
		sc_usage_msg(usage_text, "cannot use --attach and --detach");
	if (o->attach != NULL && o->analyze)
		sc_usage_msg(usage_text, "cannot use --attach and --analyze");
	if (o->attach != NULL && o->opid != NULL)
		sc_usage_msg(usage_text,
		    "cannot use --attach and --operation-id");
	if (o->attach != NULL && o->no_reattach)
		sc_usage_msg(usage_text,
		    "cannot use --attach and --no-reattach");
	if (o->detach && o->no_reattach)
		sc_usage_msg(usage_text,
		    "cannot use --detach and --no-reattach");
	if (o->detach && o->analyze)
		sc_usage_msg(usage_text, "cannot use --detach and --analyze");
	if (o->analyze && o->max_rows > 0)
		sc_usage_msg(usage_text,
		    "cannot use --analyze and --max-rows (--analyze prints the schema, no rows)");
	if (o->analyze && o->arrow)
		sc_usage_msg(usage_text,
		    "cannot use --analyze and --format arrow");
	if (o->arrow && o->max_rows > 0)
		sc_usage_msg(usage_text,
		    "cannot use --max-rows and --format arrow");
	if (o->arrow && o->output == NULL && isatty(STDOUT_FILENO))
		sc_usage_msg(usage_text,
		    "not writing Arrow data to a terminal: redirect it or use -o");
	if (o->arrow && (o->header >= 0 || o->null_text != NULL))
		sc_usage_msg(usage_text,
		    "--header, --no-header and --null do not apply to --format arrow");
}
