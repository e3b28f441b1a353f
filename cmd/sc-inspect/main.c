/* SPDX-License-Identifier: MIT */

/*
 * sc-inspect: what an sc-serve server holds, from its admin service
 * (sctk.admin.v1): executions with their attach state and counters,
 * sessions and their artifacts, tombstones, statistics, and a live view.
 * Made for a terminal and for cron:
 *
 *	sc-inspect list --session S --detached-for 10m --ids |
 *	    sc-release --session-id S -
 *
 * main() reads and checks the options and connects; listings are
 * print.c's, watch --follow is follow.c's, the full-screen view view.c's.
 */

#include "sc-inspect.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/timeutil.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "core/banned.h"

static const char usage_text[] =
    "usage: sc-inspect [-hqVv] [--artifacts] [--follow] [--ids] [--insecure]\n"
    "                  [--no-header] [--tls] [-H key=value] [-s server]\n"
    "                  [-t timeout]\n"
    "                  [--admin-token token] [--ca-file file]\n"
    "                  [--detached-for duration] [--fields list]\n"
    "                  [--format format] [--interval duration]\n"
    "                  [--older-than duration] [--session uuid]\n"
    "                  [--state state] [--tag tag] [--token token]\n"
    "                  [--unreachable-timeout time] [--user id]\n"
    "                  [--user-id id]\n"
    "                  [list | show operation-id | sessions | tombstones |\n"
    "                  stats | watch]\n"
    "\n"
    "  list                   executions, newest first (the default)\n"
    "  show operation-id      one execution, every field\n"
    "  sessions               sessions (--artifacts: their artifacts)\n"
    "  tombstones             abandoned operations and closed sessions\n"
    "  stats                  server statistics\n"
    "  watch                  a live full-screen view (--follow: event\n"
    "                         lines)\n"
    "      --session uuid     only this session's\n"
    "      --user id          only this user's\n"
    "      --tag tag          only executions with this tag\n"
    "      --state state      only executions in this state (repeatable:\n"
    "                         pending running finished failed canceled\n"
    "                         closed)\n"
    "      --detached-for d   only executions detached at least d (10m)\n"
    "      --older-than d     only executions created at least d ago\n"
    "      --format fmt       table (default on a terminal), tsv (else),\n"
    "                         csv or jsonl; stats: also prometheus\n"
    "      --fields list      these fields, comma-separated, or all\n"
    "      --no-header        no header line\n"
    "      --ids              only the ids, one per line (list: session/op,\n"
    "                         bare ops with --session; sessions)\n"
    "      --artifacts        sessions: one line per artifact\n"
    "      --follow           watch: print events as lines\n"
    "      --interval d       watch: refresh every d (default 2s)\n"
    "      --admin-token tok  the server's admin token (default\n"
    "                         $SCTK_ADMIN_TOKEN): see every user's\n" SC_CONN_HELP
	SC_CLI_COMMON_HELP;

static const struct {
	const char *name;
	enum command cmd;
} commands[] = {
	{ "list", CMD_LIST },
	{ "show", CMD_SHOW },
	{ "sessions", CMD_SESSIONS },
	{ "tombstones", CMD_TOMBSTONES },
	{ "stats", CMD_STATS },
	{ "watch", CMD_WATCH },
};

/* ------------------------------------------------------------- options */

static int
opt_format(void *p, const char *s, struct sc_error *err)
{
	enum sc_out_format f;

	if (strcmp(s, "prometheus") == 0) {
		*(int *)p = FORMAT_PROMETHEUS;
		return 0;
	}
	if (strcmp(s, "json") == 0 || sc_out_format_parse(s, &f) == -1)
		return sc_error_set(err, SC_ST_USAGE,
		    "invalid format '%s': expected table, tsv, csv, jsonl or prometheus",
		    s);
	*(int *)p = (int)f;
	return 0;
}

/* One state, or several separated by ','. */
static int
opt_state(void *p, const char *s, struct sc_error *err)
{
	struct opts *o = p;
	enum sc_inspect_state st;
	const char *q = s, *e;
	char name[32];
	size_t len, i;

	for (;;) {
		e = strchr(q, ',');
		len = e != NULL ? (size_t)(e - q) : strlen(q);
		snprintf(name, sizeof(name), "%.*s", (int)len, q);
		if (len >= sizeof(name) ||
		    sc_inspect_state_parse(name, &st) == -1)
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid state '%.*s': expected pending, running, finished, failed, canceled or closed",
			    (int)len, q);
		for (i = 0; i < o->nstates && o->states[i] != st; i++)
			;
		if (i == o->nstates)
			o->states[o->nstates++] = st;
		if (e == NULL)
			return 0;
		q = e + 1;
	}
}

/* Spark's rule for tags: not empty, no ','. */
static int
opt_tag(void *p, const char *s, struct sc_error *err)
{
	if (s[0] == '\0' || strchr(s, ',') != NULL)
		return sc_error_set(err, SC_ST_USAGE,
		    "invalid tag '%s': must be non-empty without ','", s);
	*(const char **)p = s;
	return 0;
}

static int
opt_nonempty(void *p, const char *s, struct sc_error *err)
{
	if (s[0] == '\0')
		return sc_error_set(err, SC_ST_USAGE, "invalid value: empty");
	*(const char **)p = s;
	return 0;
}

static void
parse_args(struct opts *o, int argc, char **argv)
{
	const struct sc_cli_opt table[] = {
		SC_CLI_CALL("admin-token", 0, &o->admin_token, opt_nonempty),
		SC_CLI_FLAG("artifacts", 0, &o->artifacts),
		SC_CLI_DURATION("detached-for", 0, &o->detached_for_ms),
		SC_CLI_STRING("fields", 0, &o->fields),
		SC_CLI_FLAG("follow", 0, &o->follow),
		SC_CLI_CALL("format", 0, &o->format, opt_format),
		SC_CLI_FLAG("ids", 0, &o->ids),
		SC_CLI_DURATION("interval", 0, &o->interval_ms),
		SC_CLI_SET("no-header", 0, &o->header, 0),
		SC_CLI_DURATION("older-than", 0, &o->older_than_ms),
		SC_CLI_UUID("session", 0, &o->session, "session id"),
		SC_CLI_CALL("state", 0, o, opt_state),
		SC_CLI_CALL("tag", 0, &o->tag, opt_tag),
		SC_CLI_CALL("user", 0, &o->user, opt_nonempty),
		SC_CLI_END,
	};
	const char *env;
	size_t k;
	int i;

	memset(o, 0, sizeof(*o));
	o->format = -1;
	o->header = 1;
	o->detached_for_ms = o->older_than_ms = o->interval_ms = -1;
	sc_cli_init(&o->common, "sc-inspect");
	sc_conn_opts_init(&o->conn);
	i = sc_cli_parse(table, usage_text, &o->common, &o->conn, argc, argv);
	if (i < argc) {
		for (k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
			if (strcmp(argv[i], commands[k].name) == 0)
				break;
		if (k == sizeof(commands) / sizeof(commands[0]))
			sc_usage_msg(usage_text,
			    "unknown command '%s' (list, show, sessions, tombstones, stats, watch)",
			    argv[i]);
		o->cmd = commands[k].cmd;
		i++;
	}
	if (o->cmd == CMD_SHOW) {
		if (i == argc)
			sc_usage_msg(usage_text, "show needs an operation id");
		o->opid = argv[i++];
		if (!sc_uuid_valid(o->opid))
			sc_usage_msg(usage_text,
			    "invalid operation id '%s': not a UUID", o->opid);
	}
	if (i < argc)
		sc_usage_msg(usage_text, "too many operands, from '%s'",
		    argv[i]);
	if (o->admin_token == NULL &&
	    (env = getenv(SC_INSPECT_TOKEN_ENV)) != NULL && env[0] != '\0')
		o->admin_token = env;
}

static const char *
cmd_name(enum command c)
{
	return commands[c].name;
}

enum sc_inspect_rec
opts_rec(const struct opts *o)
{
	switch (o->cmd) {
	case CMD_SESSIONS:
		return o->artifacts ? SC_INSPECT_REC_ARTIFACT
				    : SC_INSPECT_REC_SESSION;
	case CMD_TOMBSTONES:
		return SC_INSPECT_REC_TOMB;
	case CMD_STATS:
		return SC_INSPECT_REC_STATS;
	case CMD_WATCH:
		return SC_INSPECT_REC_EVENT;
	default:
		return SC_INSPECT_REC_EXEC;
	}
}

/* Each forbidden combination, one line and one message each. */
static void
validate(const struct opts *o)
{
	size_t idx[MAX_FIELDS];
	struct sc_error e;
	bool execs = o->cmd == CMD_LIST || o->cmd == CMD_WATCH;
	bool view = o->cmd == CMD_WATCH && !o->follow;

	if (o->conn.session_id != NULL)
		sc_usage_msg(usage_text,
		    "--session-id names a Spark session to use, which sc-inspect does not: filter with --session");
	if (!execs &&
	    (o->tag != NULL || o->nstates > 0 || o->detached_for_ms >= 0 ||
		o->older_than_ms >= 0))
		sc_usage_msg(usage_text,
		    "--tag, --state, --detached-for and --older-than filter executions: use them with list or watch, not %s",
		    cmd_name(o->cmd));
	if ((o->cmd == CMD_SHOW || o->cmd == CMD_STATS) &&
	    (o->session != NULL || o->user != NULL))
		sc_usage_msg(usage_text, "%s takes no --session or --user",
		    cmd_name(o->cmd));
	if (o->ids && o->cmd != CMD_LIST && o->cmd != CMD_SESSIONS)
		sc_usage_msg(usage_text, "--ids needs list or sessions");
	if (o->ids && (o->fields != NULL || o->format >= 0 || o->artifacts))
		sc_usage_msg(usage_text,
		    "cannot use --ids with --fields, --format or --artifacts");
	if (o->format == FORMAT_PROMETHEUS && o->cmd != CMD_STATS)
		sc_usage_msg(usage_text, "--format prometheus needs stats");
	if (o->format == FORMAT_PROMETHEUS && (o->fields != NULL || !o->header))
		sc_usage_msg(usage_text,
		    "cannot use --format prometheus with --fields or --no-header");
	if (o->artifacts && o->cmd != CMD_SESSIONS)
		sc_usage_msg(usage_text, "--artifacts needs sessions");
	if (o->follow && o->cmd != CMD_WATCH)
		sc_usage_msg(usage_text, "--follow needs watch");
	if (o->interval_ms >= 0 && !view)
		sc_usage_msg(usage_text,
		    "--interval needs watch (without --follow)");
	if (o->interval_ms == 0)
		sc_usage_msg(usage_text,
		    "invalid --interval: must be more than 0");
	if (view && (o->fields != NULL || o->format >= 0 || !o->header))
		sc_usage_msg(usage_text,
		    "--fields, --format and --no-header are for listings and watch --follow, not the watch view");
	if (o->fields != NULL &&
	    sc_inspect_fields_parse(opts_rec(o), o->fields, idx, MAX_FIELDS,
		&e) == -1)
		sc_usage_msg(usage_text, "invalid --fields: %s", e.msg);
	if (view && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		sc_usage_msg(usage_text,
		    "watch needs a terminal; for event lines use watch --follow");
}

void
opts_filter(const struct opts *o, struct sc_inspect_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->session_id = o->session;
	f->user_id = o->user;
	f->tag = o->tag;
	f->states = o->states;
	f->nstates = o->nstates;
	f->detached_for_ms = o->detached_for_ms > 0 ? o->detached_for_ms : 0;
	f->older_than_ms = o->older_than_ms > 0 ? o->older_than_ms : 0;
}

void
call_deadline(const struct opts *o, struct timespec *dl)
{
	sc_deadline_in_ms(dl,
	    o->common.timeout_ms > 0 ? o->common.timeout_ms : 10000);
}

/* ---------------------------------------------------------------- main */

int
main(int argc, char **argv)
{
	struct sc_retry_policy once;
	struct sc_inspect_opts ao;
	struct sc_inspect *a;
	struct sc_error err;
	struct opts o;
	int rc;

	parse_args(&o, argc, argv);
	validate(&o);
	sc_error_init(&err);
	memset(&ao, 0, sizeof(ao));
	ao.admin_token = o.admin_token;
	ao.on_event = sc_client_log_event; /* retries, with -v */
	if (o.cmd == CMD_WATCH && !o.follow) {
		/* The view's next refresh is its retry. */
		sc_retry_policy_default(&once);
		once.max_retries = 0;
		ao.policy = &once;
	}
	if ((a = sc_inspect_connect(&o.conn, &ao, &err)) == NULL) {
		rc = sc_report_error(&err);
		sc_conn_opts_release(&o.conn);
		return rc;
	}
	sc_info("server %s, user '%s'%s", sc_inspect_server(a),
	    sc_inspect_user_id(a),
	    o.admin_token != NULL ? ", admin token" : "");
	if (o.cmd == CMD_WATCH && o.follow)
		rc = run_follow(&o, a);
	else if (o.cmd == CMD_WATCH)
		rc = run_view(&o, a);
	else if (o.format == FORMAT_PROMETHEUS)
		rc = run_prometheus(&o, a);
	else
		rc = run_print(&o, a);
	sc_inspect_free(a);
	sc_conn_opts_release(&o.conn);
	return rc;
}
