/* SPDX-License-Identifier: MIT */

/*
 * sc-release: let a Spark Connect server drop operations (ReleaseExecute),
 * interrupt them first by id, tag or all (Interrupt), or end a session
 * (ReleaseSession).  Only protocol RPCs, so it works the same against
 * sc-serve and Apache Spark 3.5 and 4.x; made for cron:
 *
 *	sc-inspect list --detached-for 10m --ids | sc-release --session-id S -
 *
 * main() reads and checks the options, connects and reports; the ids
 * are ids.c's, the calls run.c's, the output lines report.c's.
 */

#include "sc-release.h"

#include <stdlib.h>
#include <string.h>

#include "core/client.h"
#include "core/log.h"
#include "core/signals.h"
#include "core/xmem.h"
#include "core/banned.h"

static const char usage_text[] =
    "usage: sc-release [-hnqVv] [--all] [--insecure] [--interrupt] [--session]\n"
    "                  [--tls] [-H key=value] [-s server] [-t timeout]\n"
    "                  [--ca-file file] [--format format]\n"
    "                  [--session-id uuid] [--tag tag] [--token token]\n"
    "                  [--unreachable-timeout time] [--until response-id]\n"
    "                  [--user-id id]\n"
    "                  [operation-id ... | -]\n"
    "\n"
    "  operation-id, -        the operations to release (- reads ids from\n"
    "                         standard input, one per line); an id may be\n"
    "                         session/operation, needing no --session-id\n"
    "      --until id         release only the responses up to id\n"
    "      --interrupt        interrupt the operations first\n"
    "      --all              with --interrupt: every operation running\n"
    "                         in the session\n"
    "      --tag tag          with --interrupt: the operations with this\n"
    "                         tag (repeatable)\n"
    "      --session          then release the session itself\n"
    "  -n, --dry-run          say what would be done, send nothing\n"
    "      --format fmt       text (default) or jsonl\n"
    "      --session-id uuid  the operations' session (default from the\n"
    "                         URI; not needed for session/operation ids)\n" SC_CONN_HELP
	SC_CLI_COMMON_HELP;

/* ------------------------------------------------------------- options */

static int
opt_format(void *p, const char *s, struct sc_error *err)
{
	int *f = p;

	if (strcmp(s, "text") == 0)
		*f = FORMAT_TEXT;
	else if (strcmp(s, "jsonl") == 0)
		*f = FORMAT_JSONL;
	else
		return sc_error_set(err, SC_ST_USAGE,
		    "invalid format '%s': expected text or jsonl", s);
	return 0;
}

/* Spark's rule for tags: not empty, no ','. */
static int
opt_tag(void *p, const char *s, struct sc_error *err)
{
	struct tags *t = p;

	if (s[0] == '\0' || strchr(s, ',') != NULL)
		return sc_error_set(err, SC_ST_USAGE,
		    "invalid tag '%s': must be non-empty without ','", s);
	t->v = sc_xreallocarray(t->v, t->n + 1, sizeof(*t->v));
	t->v[t->n++] = s;
	return 0;
}

static void
parse_args(struct opts *o, int argc, char **argv)
{
	const struct sc_cli_opt table[] = {
		SC_CLI_FLAG("all", 0, &o->all),
		SC_CLI_FLAG("dry-run", 'n', &o->dry_run),
		SC_CLI_CALL("format", 0, &o->format, opt_format),
		SC_CLI_FLAG("interrupt", 0, &o->interrupt),
		SC_CLI_FLAG("session", 0, &o->session),
		SC_CLI_CALL("tag", 0, &o->tags, opt_tag),
		SC_CLI_UUID("until", 0, &o->until, "response id"),
		SC_CLI_END,
	};
	int i;

	memset(o, 0, sizeof(*o));
	sc_cli_init(&o->common, "sc-release");
	sc_conn_opts_init(&o->conn);
	i = sc_cli_parse(table, usage_text, &o->common, &o->conn, argc, argv);
	o->operands = argv + i;
	o->noperands = (size_t)(argc - i);
}

/* Each forbidden combination, one line and one message each. */
static void
validate(const struct opts *o)
{
	size_t i, nstdin = 0;

	for (i = 0; i < o->noperands; i++)
		nstdin += strcmp(o->operands[i], "-") == 0;
	if (o->all && !o->interrupt)
		sc_usage_msg(usage_text, "--all needs --interrupt");
	if (o->tags.n > 0 && !o->interrupt)
		sc_usage_msg(usage_text, "--tag needs --interrupt");
	if (o->all && o->tags.n > 0)
		sc_usage_msg(usage_text, "cannot use --all and --tag");
	if (o->interrupt && !o->all && o->tags.n == 0 && o->noperands == 0)
		sc_usage_msg(usage_text,
		    "--interrupt needs --all, --tag or operation ids");
	if (o->until != NULL && (o->noperands != 1 || nstdin != 0))
		sc_usage_msg(usage_text,
		    "--until needs exactly one operation id");
	if (o->until != NULL && o->interrupt)
		sc_usage_msg(usage_text, "cannot use --until and --interrupt");
	if (o->until != NULL && o->session)
		sc_usage_msg(usage_text, "cannot use --until and --session");
	if (nstdin > 1)
		sc_usage_msg(usage_text, "'-' may be given only once");
	if (o->noperands == 0 && !o->session && !o->interrupt)
		sc_usage_msg(usage_text, "missing operation-id");
}

/* ---------------------------------------------------------------- main */

/*
 * After the lines: how many failed, and the worst error, in the words of
 * sc_report_error() (the class once).
 */
static void
summary(const struct report *r)
{
	const struct sc_error *e = &r->worst;
	bool cls = e->errclass[0] != '\0' &&
	    strstr(e->msg, e->errclass) == NULL;

	sc_err("%zu of %zu failed: %s%s%s%s", r->nfailed, r->nlines, e->msg,
	    cls ? " [" : "", cls ? e->errclass : "", cls ? "]" : "");
}

/*
 * The "session/operation" pairs, a client per session, in the order the
 * sessions first appear.  0, or -1 with err set (the output failed, or
 * a client could not be made: a usage error of the address).
 */
static int
run_pairs(const struct opts *o, const struct targets *t,
    const struct sc_client_opts *co, struct report *r, struct sc_error *err)
{
	struct sc_conn_opts conn = o->conn; /* borrowed: not released */
	struct sc_client *c;
	size_t i, j;
	int rc = 0;

	for (i = 0; rc == 0 && i < t->n; i++) {
		if (!t->v[i].valid || t->v[i].session == NULL)
			continue;
		for (j = 0; j < i; j++)
			if (t->v[j].valid && t->v[j].session != NULL &&
			    strcmp(t->v[j].session, t->v[i].session) == 0)
				break;
		if (j < i)
			continue; /* that session's run did it */
		conn.session_id = t->v[i].session;
		if ((c = sc_client_connect(&conn, co, err)) == NULL)
			return -1;
		sc_info("server %s, session %s, user '%s'", sc_client_server(c),
		    sc_client_session_id(c), sc_client_user_id(c));
		rc = run(o, t, c, t->v[i].session, r, err);
		sc_client_free(c);
	}
	return rc;
}

/* Free what main() holds; returns rc. */
static int
done(struct opts *o, struct targets *t, struct sc_client *c, int rc)
{
	sc_client_free(c);
	targets_release(t);
	sc_conn_opts_release(&o->conn);
	free(o->tags.v);
	return rc;
}

int
main(int argc, char **argv)
{
	struct sc_client_opts co;
	struct sc_client *c = NULL;
	struct report r;
	struct targets t;
	struct opts o;
	struct sc_error err;
	int rc;

	parse_args(&o, argc, argv);
	validate(&o);
	sc_error_init(&err);
	memset(&t, 0, sizeof(t));
	memset(&co, 0, sizeof(co));
	co.on_event = sc_client_log_event; /* retries, with -v */
	if (sc_signals_start(NULL, &err) == -1 ||
	    targets_read(&t, o.operands, o.noperands, &err) == -1)
		return done(&o, &t, c, sc_report_error(&err));
	if (run_needs_session(&o, &t)) {
		if ((c = sc_client_connect(&o.conn, &co, &err)) == NULL)
			return done(&o, &t, c, sc_report_error(&err));
		if (sc_client_session_is_new(c))
			sc_usage_msg(usage_text,
			    "no session id: Spark keeps operations per session; give the session's id with --session-id or session_id= in the URI, or session/operation pairs");
		sc_info("server %s, session %s, user '%s'", sc_client_server(c),
		    sc_client_session_id(c), sc_client_user_id(c));
	}

	report_init(&r, (enum format)o.format, o.common.quiet);
	rc = run(&o, &t, c, NULL, &r, &err);
	if (rc == 0)
		rc = run_pairs(&o, &t, &co, &r, &err);
	if (rc == 0)
		rc = report_finish(&r, &err);
	report_release(&r);
	if (rc == -1)
		return done(&o, &t, c, sc_report_error(&err));
	if (r.nfailed > 0)
		summary(&r);
	rc = sc_check_stdout();
	return done(&o, &t, c, rc != 0 ? rc : r.status);
}
