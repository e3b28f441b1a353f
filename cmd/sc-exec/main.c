/* SPDX-License-Identifier: MIT */

/*
 * sc-exec: run SQL, a range or a serialized plan on a Spark Connect
 * server and stream the result to stdout, with reattach, retries and
 * asynchronous release (core/reattach); or start an operation detached,
 * or attach to one.  Only the protocol is relied on, so it works the same
 * against sc-serve and Apache Spark 3.5 and 4.x.
 */

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/cli.h"
#include "core/error.h"
#include "core/log.h"
#include "core/output.h"
#include "core/protocol.h"
#include "core/reattach.h"
#include "core/retry.h"
#include "core/client.h"
#include "core/timeutil.h"
#include "core/uri.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "sc-exec.h"
#include "core/banned.h"

static const char usage_text[] =
    "usage: sc-exec [-hqVv] [--analyze] [--detach] [--header | --no-header]\n"
    "               [--no-reattach] [--progress | --no-progress] [--tls]\n"
    "               [-f file] [-H key=value] [-s server] [-t timeout]\n"
    "               [--after response-id] [--attach operation-id]\n"
    "               [--ca-file file] [--format format] [--max-retries n]\n"
    "               [--max-rows n] [--null text] [--operation-id uuid]\n"
    "               [--plan file] [--range start:end[:step]]\n"
    "               [--segment-timeout time] [--session-id uuid]\n"
    "               [--tag tag] [--token token] [--user-id id]\n"
    "               [--watchdog time] [sql | -]\n"
    "\n"
    "  sql, -f file           SQL statements separated by ';' (- or\n"
    "                         -f - reads standard input)\n"
    "      --range s:e[:step] run spark.range(s, e, step)\n"
    "      --plan file        run a serialized spark.connect.Plan\n"
    "      --analyze          print the result schema without running\n"
    "      --detach           start the operation, print its id, exit\n"
    "      --attach id        stream the rest of an existing operation\n"
    "      --after id         with --attach: resume after this response\n"
    "      --operation-id id  the operation id to use (a UUID)\n"
    "      --tag tag          tag the operations (repeatable)\n"
    "      --format fmt       table, csv, tsv, jsonl or arrow (default\n"
    "                         table on a terminal, else csv)\n"
    "      --header           write a header line (default)\n"
    "      --no-header        do not write a header line\n"
    "      --null text        text for NULL values\n"
    "      --max-rows n       stop after n rows\n"
    "      --progress         show progress on standard error (default\n"
    "      --no-progress      when it is a terminal)\n"
    "      --no-reattach      do not ask for reattachable execution\n"
    "      --max-retries n    retries per failure streak (default 15)\n"
    "      --segment-timeout time  deadline of each stream (default 10m;\n"
    "                         0 for none)\n"
    "      --watchdog time    reattach after this long without a message\n"
    "                         (default 150s; 0 for none)\n"
    "  -H, --metadata k=v     send this gRPC header (repeatable)\n"
    "      --session-id uuid  session id (default from the URI, else new)\n"
    "      --user-id id       user id (default from the URI, else $USER)\n"
    "      --token token      bearer token (enables TLS off localhost)\n"
    "      --tls              use TLS\n"
    "      --ca-file file     PEM roots for TLS\n" SC_CLI_COMMON_HELP;

enum {
	OPT_AFTER = 256,
	OPT_ANALYZE,
	OPT_ATTACH,
	OPT_CA_FILE,
	OPT_DETACH,
	OPT_FORMAT,
	OPT_HEADER,
	OPT_MAX_RETRIES,
	OPT_MAX_ROWS,
	OPT_NO_HEADER,
	OPT_NO_PROGRESS,
	OPT_NO_REATTACH,
	OPT_NULL,
	OPT_OPERATION_ID,
	OPT_PLAN,
	OPT_PROGRESS,
	OPT_RANGE,
	OPT_SEGMENT_TIMEOUT,
	OPT_SESSION_ID,
	OPT_TAG,
	OPT_TLS,
	OPT_TOKEN,
	OPT_USER_ID,
	OPT_WATCHDOG
};

static const struct option longopts[] = { { "after", required_argument, NULL,
					      OPT_AFTER },
	{ "analyze", no_argument, NULL, OPT_ANALYZE },
	{ "attach", required_argument, NULL, OPT_ATTACH },
	{ "ca-file", required_argument, NULL, OPT_CA_FILE },
	{ "detach", no_argument, NULL, OPT_DETACH },
	{ "file", required_argument, NULL, 'f' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "header", no_argument, NULL, OPT_HEADER },
	{ "help", no_argument, NULL, 'h' },
	{ "max-retries", required_argument, NULL, OPT_MAX_RETRIES },
	{ "max-rows", required_argument, NULL, OPT_MAX_ROWS },
	{ "metadata", required_argument, NULL, 'H' },
	{ "no-header", no_argument, NULL, OPT_NO_HEADER },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "no-reattach", no_argument, NULL, OPT_NO_REATTACH },
	{ "null", required_argument, NULL, OPT_NULL },
	{ "operation-id", required_argument, NULL, OPT_OPERATION_ID },
	{ "plan", required_argument, NULL, OPT_PLAN },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "range", required_argument, NULL, OPT_RANGE },
	{ "segment-timeout", required_argument, NULL, OPT_SEGMENT_TIMEOUT },
	{ "server", required_argument, NULL, 's' },
	{ "session-id", required_argument, NULL, OPT_SESSION_ID },
	{ "tag", required_argument, NULL, OPT_TAG },
	{ "timeout", required_argument, NULL, 't' },
	{ "tls", no_argument, NULL, OPT_TLS },
	{ "token", required_argument, NULL, OPT_TOKEN },
	{ "user-id", required_argument, NULL, OPT_USER_ID },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "watchdog", required_argument, NULL, OPT_WATCHDOG },
	{ NULL, 0, NULL, 0 } };

/* Largest SQL script or plan file read. */
#define INPUT_MAX (64UL * 1024 * 1024)
/* How long the end of the run, or an interrupt, waits for releases. */
#define RELEASE_WAIT_MS 5000
#define INTERRUPT_WAIT_MS 2000

struct opts {
	struct sc_cli_common common;
	const char *after;
	bool analyze;
	const char *attach;
	const char *ca_file;
	bool detach;
	const char *file;
	int format; /* -1: default */
	bool arrow;
	int header; /* -1: default */
	int max_retries; /* -1: default */
	uint64_t max_rows;
	char **meta;
	size_t nmeta;
	const char *null_text;
	char opid[SC_UUID_STRLEN];
	const char *plan_file;
	int progress; /* -1: default */
	bool reattach;
	bool has_range;
	int64_t range[3];
	int64_t segment_ms; /* -1: default */
	const char *session_id;
	const char **tags;
	size_t ntags;
	const char *token;
	bool tls;
	const char *user_id;
	int64_t watchdog_ms; /* -1: default */
	const char *sql; /* operand */
};

/* What the run needs; one per process. */
struct run {
	struct opts *o;
	struct sc_client *c;
	struct render *r;
	struct sc_reattach_opts ro;
	const struct timespec *deadline;
	bool detached;
	bool generated_session;
};

/* The operation in progress, for the signal thread. */
static pthread_mutex_t cur_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sc_reattach *cur_it;
static struct sc_client *cur_client;
static volatile int interrupted;
/* The client, for the event callback (set before any event can fire). */
static struct sc_client *ev_client;

/* -------------------------------------------------------------- signals */

static void *
signal_main(void *arg)
{
	sigset_t *set = arg, one;
	struct timespec dl;
	char opid[SC_UUID_STRLEN] = "";
	struct sc_client *c;
	int sig;

	if (sigwait(set, &sig) != 0)
		return NULL;
	pthread_mutex_lock(&cur_lock);
	interrupted = sig;
	c = cur_client;
	if (cur_it != NULL) {
		snprintf(opid, sizeof(opid), "%s",
		    sc_reattach_operation_id(cur_it));
		sc_reattach_abort(cur_it);
	}
	pthread_mutex_unlock(&cur_lock);
	progress_lock();
	if (opid[0] != '\0')
		sc_err("interrupted; operation %s", opid);
	else
		sc_err("interrupted");
	progress_unlock();
	if (c != NULL) {
		sc_deadline_in_ms(&dl, INTERRUPT_WAIT_MS);
		if (sc_client_release_wait(c, &dl) == -1 && opid[0] != '\0')
			sc_warn("operation %s may still be on the server",
			    opid);
	}
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	_exit(128 + sig);
}

/* The main thread after an interrupt: wait to be killed. */
static void __attribute__((noreturn)) wait_for_death(void)
{
	for (;;)
		pause();
}

static void
set_current(struct sc_reattach *it)
{
	pthread_mutex_lock(&cur_lock);
	cur_it = it;
	pthread_mutex_unlock(&cur_lock);
}

/* --------------------------------------------------------------- events */

static void
on_event(const struct sc_client_event *ev, void *arg)
{
	enum sc_log_level level = SC_LOG_INFO;

	(void)arg;
	/*
	 * A failed release matters only if the server ever answered: one
	 * that was never reached holds nothing of ours.
	 */
	if (ev->kind == SC_CLIENT_EV_RELEASE_FAILED && ev_client != NULL &&
	    sc_client_reached(ev_client))
		level = SC_LOG_WARN;
	if (sc_log_level < level)
		return;
	progress_lock();
	sc_log_write(level, "%s", ev->text);
	progress_unlock();
}

/* ---------------------------------------------------------- option help */

static int
parse_range(const char *s, int64_t out[3])
{
	char *end;
	int i;

	out[2] = 1;
	for (i = 0; i < 3; i++) {
		errno = 0;
		out[i] = strtoll(s, &end, 10);
		if (end == s || errno != 0)
			return -1;
		if (*end == '\0')
			return i >= 1 && out[2] != 0 ? 0 : -1;
		if (*end != ':')
			return -1;
		s = end + 1;
	}
	return -1;
}

static int64_t
parse_ms(const char *what, const char *s)
{
	struct sc_error err;
	int64_t ms;

	if (sc_parse_duration_ms(s, &ms, &err) == -1)
		sc_usage_msg(usage_text, "invalid %s: %s", what, err.msg);
	return ms;
}

static void
parse_args(struct opts *o, int argc, char **argv)
{
	struct sc_error err;
	uint64_t n;
	enum sc_out_format f;
	int ch, r, nsrc;

	while ((ch = getopt_long(argc, argv, "f:H:hqs:t:Vv", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'f':
			o->file = optarg;
			break;
		case 'H':
			if (strchr(optarg, '=') == NULL || optarg[0] == '=')
				sc_usage_msg(usage_text,
				    "invalid header '%s': "
				    "expected key=value",
				    optarg);
			o->meta = sc_xreallocarray(o->meta, o->nmeta + 1,
			    sizeof(*o->meta));
			o->meta[o->nmeta++] = optarg;
			break;
		case OPT_AFTER:
			o->after = optarg;
			break;
		case OPT_ANALYZE:
			o->analyze = true;
			break;
		case OPT_ATTACH:
			if (!sc_uuid_valid(optarg))
				sc_usage_msg(usage_text,
				    "invalid operation id "
				    "'%s': not a UUID",
				    optarg);
			o->attach = optarg;
			break;
		case OPT_CA_FILE:
			o->ca_file = optarg;
			break;
		case OPT_DETACH:
			o->detach = true;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "arrow") == 0)
				o->arrow = true;
			else if (sc_out_format_parse(optarg, &f) == 0) {
				o->arrow = false;
				o->format = (int)f;
			} else
				sc_usage_msg(usage_text,
				    "invalid format '%s': "
				    "expected table, csv, tsv, jsonl or arrow",
				    optarg);
			break;
		case OPT_HEADER:
			o->header = 1;
			break;
		case OPT_MAX_RETRIES:
			if (sc_parse_uint(optarg, 0, 1000, &n, &err) == -1)
				sc_usage_msg(usage_text,
				    "invalid --max-retries: "
				    "%s",
				    err.msg);
			o->max_retries = (int)n;
			break;
		case OPT_MAX_ROWS:
			if (sc_parse_uint(optarg, 1, UINT64_MAX / 2, &n,
				&err) == -1)
				sc_usage_msg(usage_text,
				    "invalid --max-rows: %s", err.msg);
			o->max_rows = n;
			break;
		case OPT_NO_HEADER:
			o->header = 0;
			break;
		case OPT_NO_PROGRESS:
			o->progress = 0;
			break;
		case OPT_NO_REATTACH:
			o->reattach = false;
			break;
		case OPT_NULL:
			o->null_text = optarg;
			break;
		case OPT_OPERATION_ID:
			if (!sc_uuid_valid(optarg))
				sc_usage_msg(usage_text,
				    "invalid operation id "
				    "'%s': not a UUID",
				    optarg);
			snprintf(o->opid, sizeof(o->opid), "%s", optarg);
			sc_uuid_lower(o->opid);
			break;
		case OPT_PLAN:
			o->plan_file = optarg;
			break;
		case OPT_PROGRESS:
			o->progress = 1;
			break;
		case OPT_RANGE:
			if (parse_range(optarg, o->range) == -1)
				sc_usage_msg(usage_text,
				    "invalid range '%s': "
				    "expected start:end[:step] with a non-zero "
				    "step",
				    optarg);
			o->has_range = true;
			break;
		case OPT_SEGMENT_TIMEOUT:
			o->segment_ms = parse_ms("--segment-timeout", optarg);
			break;
		case OPT_SESSION_ID:
			if (!sc_uuid_valid(optarg))
				sc_usage_msg(usage_text,
				    "invalid session id "
				    "'%s': not a UUID",
				    optarg);
			o->session_id = optarg;
			break;
		case OPT_TAG:
			if (optarg[0] == '\0' || strchr(optarg, ',') != NULL)
				sc_usage_msg(usage_text,
				    "invalid tag '%s': "
				    "must be non-empty without ','",
				    optarg);
			o->tags = sc_xreallocarray(o->tags, o->ntags + 1,
			    sizeof(*o->tags));
			o->tags[o->ntags++] = optarg;
			break;
		case OPT_TLS:
			o->tls = true;
			break;
		case OPT_TOKEN:
			o->token = optarg;
			break;
		case OPT_USER_ID:
			o->user_id = optarg;
			break;
		case OPT_WATCHDOG:
			o->watchdog_ms = parse_ms("--watchdog", optarg);
			break;
		default:
			r = sc_cli_common_opt(&o->common, ch, optarg,
			    usage_text);
			if (r == -1)
				sc_usage(usage_text);
			if (r == 1)
				sc_usage(usage_text);
			break;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		sc_usage_msg(usage_text,
		    "too many operands (quote the SQL as "
		    "one argument)");
	if (argc == 1)
		o->sql = argv[0];

	nsrc = (o->sql != NULL) + (o->file != NULL) + o->has_range +
	    (o->plan_file != NULL) + (o->attach != NULL);
	if (nsrc == 0)
		sc_usage_msg(usage_text,
		    "nothing to run: give SQL, -f, "
		    "--range, --plan or --attach");
	if (nsrc > 1)
		sc_usage_msg(usage_text,
		    "give only one of SQL, -f, --range, "
		    "--plan and --attach");
	if (o->after != NULL && o->attach == NULL)
		sc_usage_msg(usage_text, "--after needs --attach");
	if (o->attach != NULL && o->detach)
		sc_usage_msg(usage_text, "cannot use --attach and --detach");
	if (o->attach != NULL && o->analyze)
		sc_usage_msg(usage_text, "cannot use --attach and --analyze");
	if (o->attach != NULL && o->opid[0] != '\0')
		sc_usage_msg(usage_text,
		    "cannot use --attach and "
		    "--operation-id");
	if (o->attach != NULL && !o->reattach)
		sc_usage_msg(usage_text,
		    "cannot use --attach and "
		    "--no-reattach");
	if (o->detach && !o->reattach)
		sc_usage_msg(usage_text,
		    "cannot use --detach and "
		    "--no-reattach");
	if (o->detach && o->analyze)
		sc_usage_msg(usage_text, "cannot use --detach and --analyze");
	if (o->analyze && o->arrow)
		sc_usage_msg(usage_text,
		    "cannot use --analyze and --format "
		    "arrow");
	if (o->arrow && o->max_rows > 0)
		sc_usage_msg(usage_text,
		    "cannot use --max-rows and --format "
		    "arrow");
	if (o->arrow && (o->header >= 0 || o->null_text != NULL))
		sc_usage_msg(usage_text,
		    "--header, --no-header and --null "
		    "do not apply to --format arrow");
}

/* ---------------------------------------------------------------- input */

static int
read_all(const char *path, struct sc_buf *b, struct sc_error *err)
{
	FILE *fp;
	char chunk[65536];
	size_t n;
	bool is_stdin = strcmp(path, "-") == 0;

	fp = is_stdin ? stdin : fopen(path, "rb");
	if (fp == NULL)
		return sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot open '%s'", path);
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		if (sc_buf_add(b, chunk, n, err) == -1) {
			if (!is_stdin)
				fclose(fp);
			return sc_error_set(err, SC_ST_USAGE,
			    "'%s' is larger than %lu bytes",
			    is_stdin ? "standard input" : path, INPUT_MAX);
		}
	if (ferror(fp)) {
		sc_error_set_errno(err, SC_ST_IO, errno, "cannot read '%s'",
		    is_stdin ? "standard input" : path);
		if (!is_stdin)
			fclose(fp);
		return -1;
	}
	if (!is_stdin)
		fclose(fp);
	return 0;
}

/* ------------------------------------------------------------ execution */

static int run_plan(struct run *x, const Spark__Connect__Plan *plan, bool final,
    struct sc_error *err);

static bool
is_sql_command(const Spark__Connect__Plan *plan)
{
	return plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_COMMAND &&
	    plan->command != NULL &&
	    plan->command->command_type_case ==
	    SPARK__CONNECT__COMMAND__COMMAND_TYPE_SQL_COMMAND;
}

/*
 * A relation that is just rows: a LocalRelation with Arrow data and
 * nothing else, as Spark returns for a command (DDL, DML, SHOW ...).
 */
static bool
is_local_data(const Spark__Connect__Relation *rel)
{
	return rel->rel_type_case ==
	    SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION &&
	    rel->local_relation->_data_case ==
	    SPARK__CONNECT__LOCAL_RELATION___DATA_DATA &&
	    rel->local_relation->data.len > 0;
}

static void
print_detached(struct run *x, const char *opid)
{
	printf("%s\n", opid);
	fflush(stdout);
	if (x->generated_session)
		sc_warn("operation %s runs detached in new session %s; attach "
			"with --session-id %s --attach %s",
		    opid, sc_client_session_id(x->c),
		    sc_client_session_id(x->c), opid);
	else
		sc_info("operation %s runs detached in session %s", opid,
		    sc_client_session_id(x->c));
}

/*
 * Read an operation to its end, rendering its rows; a SQL command's
 * result relation is then run as the next operation (spark.sql()).
 * With detach, stop after the first response and leave it running.
 */
static int
consume(struct run *x, struct sc_reattach *it, bool detach,
    struct sc_error *err)
{
	Spark__Connect__ExecutePlanResponse *m, *held = NULL;
	Spark__Connect__Plan next = SPARK__CONNECT__PLAN__INIT;
	Spark__Connect__Relation *rel;
	int k = 0, rc = 0;
	bool keep, stop = false;

	set_current(it);
	render_begin(x->r);
	while (!stop && (k = sc_reattach_next(it, &m, err)) == 1) {
		if (detach) {
			protobuf_c_message_free_unpacked(&m->base, NULL);
			set_current(NULL);
			print_detached(x, sc_reattach_operation_id(it));
			sc_reattach_detach(it);
			x->detached = true;
			return 0;
		}
		keep = false;
		switch (m->response_type_case) {
		case SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH:
			rc = render_batch(x->r, m->arrow_batch, err);
			progress_update(render_rows(x->r), render_bytes(x->r));
			if (rc != 0)
				stop = true;
			break;
		case SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_SQL_COMMAND_RESULT:
			if (held != NULL)
				protobuf_c_message_free_unpacked(&held->base,
				    NULL);
			held = m;
			keep = true;
			break;
		case SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_EXECUTION_PROGRESS:
			progress_stages(m->execution_progress);
			break;
		default:
			if (m->schema != NULL)
				render_schema(x->r, m->schema);
			break;
		}
		if (!keep)
			protobuf_c_message_free_unpacked(&m->base, NULL);
	}
	if (!stop && k == -1) {
		if (sc_reattach_aborted(it) || interrupted)
			wait_for_death();
		rc = -1;
	}
	set_current(NULL);
	if (rc == -1) {
		/* sc_reattach_close() sends ReleaseAll; nothing more to show. */
		sc_reattach_close(it);
		render_begin(x->r);
		goto out;
	}
	sc_reattach_close(it);
	if (render_end(x->r, err) == -1) {
		rc = -1;
		goto out;
	}
	rc = 0;
	rel = held != NULL ? held->sql_command_result->relation : NULL;
	if (rel != NULL && !render_limit_reached(x->r)) {
		if (is_local_data(rel) && !x->o->detach) {
			/* A command's output: the rows are here already. */
			render_begin(x->r);
			rc = render_local(x->r, rel->local_relation->data.data,
			    rel->local_relation->data.len, err);
			if (rc >= 0 && render_end(x->r, err) == -1)
				rc = -1;
			rc = rc == -1 ? -1 : 0;
		} else {
			next.op_type_case = SPARK__CONNECT__PLAN__OP_TYPE_ROOT;
			next.root = rel;
			rc = run_plan(x, &next, true, err);
		}
	}
out:
	if (held != NULL)
		protobuf_c_message_free_unpacked(&held->base, NULL);
	return rc;
}

/*
 * Run one plan.  final: it is the operation the user's --operation-id
 * and --detach apply to (a SQL command is followed by the final one).
 */
static int
run_plan(struct run *x, const Spark__Connect__Plan *plan, bool final,
    struct sc_error *err)
{
	Spark__Connect__ExecutePlanRequest req =
	    SPARK__CONNECT__EXECUTE_PLAN_REQUEST__INIT;
	struct sc_reattach *it;
	bool last = final && !is_sql_command(plan);

	req.plan = (Spark__Connect__Plan *)plan;
	req.n_tags = x->o->ntags;
	req.tags = (char **)x->o->tags;
	if (last && x->o->opid[0] != '\0') {
		req._operation_id_case =
		    SPARK__CONNECT__EXECUTE_PLAN_REQUEST___OPERATION_ID_OPERATION_ID;
		req.operation_id = x->o->opid;
	}
	it = sc_reattach_open(x->c, &req, &x->ro, err);
	if (it == NULL)
		return -1;
	return consume(x, it, last && x->o->detach, err);
}

/* spark.sql(stmt): a sql_command with both the 3.5 and the 4.x form. */
static int
run_sql(struct run *x, const char *stmt, struct sc_error *err)
{
	Spark__Connect__SQL sq = SPARK__CONNECT__SQL__INIT;
	Spark__Connect__Relation in = SPARK__CONNECT__RELATION__INIT;
	Spark__Connect__SqlCommand sc = SPARK__CONNECT__SQL_COMMAND__INIT;
	Spark__Connect__Command cmd = SPARK__CONNECT__COMMAND__INIT;
	Spark__Connect__Plan plan = SPARK__CONNECT__PLAN__INIT;

	sq.query = (char *)stmt;
	in.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SQL;
	in.sql = &sq;
	sc.sql = (char *)stmt;
	sc.input = &in;
	cmd.command_type_case =
	    SPARK__CONNECT__COMMAND__COMMAND_TYPE_SQL_COMMAND;
	cmd.sql_command = &sc;
	plan.op_type_case = SPARK__CONNECT__PLAN__OP_TYPE_COMMAND;
	plan.command = &cmd;
	return run_plan(x, &plan, true, err);
}

static void
range_relation(const int64_t rg[3], Spark__Connect__Range *r,
    Spark__Connect__Relation *rel)
{
	r->_start_case = SPARK__CONNECT__RANGE___START_START;
	r->start = rg[0];
	r->end = rg[1];
	r->step = rg[2];
	rel->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_RANGE;
	rel->range = r;
}

/* --analyze: AnalyzePlan(schema) and one record per column. */
static int
analyze(struct run *x, const Spark__Connect__Plan *plan, struct sc_error *err)
{
	Spark__Connect__AnalyzePlanRequest req =
	    SPARK__CONNECT__ANALYZE_PLAN_REQUEST__INIT;
	Spark__Connect__AnalyzePlanRequest__Schema sch =
	    SPARK__CONNECT__ANALYZE_PLAN_REQUEST__SCHEMA__INIT;
	Spark__Connect__AnalyzePlanResponse *resp;
	const Spark__Connect__DataType *dt;
	static const char *const names[] = { "name", "type", "nullable" };
	struct sc_output_opts oo;
	struct sc_output *out;
	struct sc_out_value v[3];
	struct sc_buf tn;
	size_t i, n;
	int rc = 0;

	sc_client_stamp_analyze(x->c, &req);
	sch.plan = (Spark__Connect__Plan *)plan;
	req.analyze_case = SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_SCHEMA;
	req.schema = &sch;
	if (sc_client_unary(x->c, SC_METHOD_ANALYZE_PLAN, &req.base,
		&spark__connect__analyze_plan_response__descriptor,
		(void **)&resp, x->deadline, err) == -1)
		return -1;
	if (sc_client_check_response(x->c, resp->session_id,
		resp->server_side_session_id, err) == -1) {
		protobuf_c_message_free_unpacked(&resp->base, NULL);
		return -1;
	}
	if (resp->result_case !=
		SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_SCHEMA ||
	    resp->schema->schema == NULL) {
		protobuf_c_message_free_unpacked(&resp->base, NULL);
		return sc_error_set(err, SC_ST_PROTOCOL,
		    "AnalyzePlan answered without a schema");
	}
	dt = resp->schema->schema;
	memset(&oo, 0, sizeof(oo));
	oo.header = x->o->header != 0;
	oo.null_text = x->o->null_text;
	oo.flush = -1;
	out = sc_output_new(stdout, (enum sc_out_format)x->o->format, &oo);
	sc_buf_init(&tn, 1024 * 1024);
	rc = sc_output_header(out, names, 3, err);
	n = dt->kind_case == SPARK__CONNECT__DATA_TYPE__KIND_STRUCT
	    ? dt->struct_->n_fields
	    : 1;
	for (i = 0; rc == 0 && i < n; i++) {
		const Spark__Connect__DataType__StructField *f = NULL;

		if (dt->kind_case == SPARK__CONNECT__DATA_TYPE__KIND_STRUCT)
			f = dt->struct_->fields[i];
		sc_buf_reset(&tn);
		if (type_name(f != NULL ? f->data_type : dt, &tn, err) == -1) {
			rc = -1;
			break;
		}
		v[0].kind = SC_OUT_STRING;
		v[0].p = f != NULL ? f->name : "value";
		v[0].n = strlen(v[0].p);
		v[1].kind = SC_OUT_STRING;
		v[1].p = (const char *)tn.data;
		v[1].n = tn.len;
		v[2].kind = SC_OUT_BOOL;
		v[2].p = f == NULL || f->nullable ? "true" : "false";
		v[2].n = strlen(v[2].p);
		rc = sc_output_row(out, v, 3, err);
	}
	if (rc == 0)
		rc = sc_output_finish(out, err);
	sc_output_free(out);
	sc_buf_release(&tn);
	protobuf_c_message_free_unpacked(&resp->base, NULL);
	return rc;
}

static void
sql_plan(const char *stmt, Spark__Connect__SQL *sq,
    Spark__Connect__Relation *rel, Spark__Connect__Plan *plan)
{
	sq->query = (char *)stmt;
	rel->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SQL;
	rel->sql = sq;
	plan->op_type_case = SPARK__CONNECT__PLAN__OP_TYPE_ROOT;
	plan->root = rel;
}

/* ------------------------------------------------------------ connection */

static int
make_uri(struct opts *o, struct sc_uri *u, struct sc_error *err)
{
	size_t i, k;
	char *eq;

	if (sc_uri_parse_default(u, o->common.server, err) == -1)
		return -1;
	if (o->token != NULL) {
		free(u->token);
		u->token = sc_xstrdup(o->token);
		u->has_token = true;
	}
	if (o->tls)
		u->use_ssl = true;
	if (o->user_id != NULL) {
		if (strlen(o->user_id) >= sizeof(u->user_id))
			return sc_error_set(err, SC_ST_USAGE,
			    "user id is too long");
		snprintf(u->user_id, sizeof(u->user_id), "%s", o->user_id);
	}
	if (o->session_id != NULL)
		snprintf(u->session_id, sizeof(u->session_id), "%s",
		    o->session_id);
	for (i = 0; i < o->nmeta; i++) {
		eq = strchr(o->meta[i], '=');
		u->params = sc_xreallocarray(u->params, u->nparams + 1,
		    sizeof(*u->params));
		u->params[u->nparams].key =
		    sc_xstrndup(o->meta[i], (size_t)(eq - o->meta[i]));
		u->params[u->nparams].value = sc_xstrdup(eq + 1);
		for (k = 0; u->params[u->nparams].key[k] != '\0'; k++)
			if (u->params[u->nparams].key[k] >= 'A' &&
			    u->params[u->nparams].key[k] <= 'Z')
				u->params[u->nparams].key[k] += 'a' - 'A';
		u->nparams++;
	}
	return 0;
}

static int
run_all(struct run *x, struct sc_error *err)
{
	struct opts *o = x->o;
	struct sc_buf in;
	Spark__Connect__Plan *pf = NULL;
	Spark__Connect__Plan plan = SPARK__CONNECT__PLAN__INIT;
	Spark__Connect__Relation rel = SPARK__CONNECT__RELATION__INIT;
	Spark__Connect__Range rg = SPARK__CONNECT__RANGE__INIT;
	Spark__Connect__SQL sq = SPARK__CONNECT__SQL__INIT;
	struct sc_reattach *it;
	char **stmts = NULL;
	size_t n = 0, i;
	int rc = 0;

	if (o->attach != NULL) {
		it = sc_reattach_attach(x->c, o->attach, o->after, &x->ro, err);
		if (it == NULL)
			return -1;
		return consume(x, it, false, err);
	}
	if (o->has_range) {
		range_relation(o->range, &rg, &rel);
		plan.op_type_case = SPARK__CONNECT__PLAN__OP_TYPE_ROOT;
		plan.root = &rel;
		return o->analyze ? analyze(x, &plan, err)
				  : run_plan(x, &plan, true, err);
	}

	sc_buf_init(&in, INPUT_MAX);
	if (o->plan_file != NULL) {
		if (read_all(o->plan_file, &in, err) == -1) {
			sc_buf_release(&in);
			return -1;
		}
		pf = sc_proto_unpack(&spark__connect__plan__descriptor, in.data,
		    in.len, NULL);
		sc_buf_release(&in);
		if (pf == NULL ||
		    pf->op_type_case ==
			SPARK__CONNECT__PLAN__OP_TYPE__NOT_SET) {
			if (pf != NULL)
				protobuf_c_message_free_unpacked(&pf->base,
				    NULL);
			return sc_error_set(err, SC_ST_USAGE,
			    "'%s' is not a "
			    "serialized spark.connect.Plan",
			    o->plan_file);
		}
		rc = o->analyze ? analyze(x, pf, err)
				: run_plan(x, pf, true, err);
		protobuf_c_message_free_unpacked(&pf->base, NULL);
		return rc;
	}

	if (o->file != NULL) {
		if (read_all(o->file, &in, err) == -1) {
			sc_buf_release(&in);
			return -1;
		}
	} else if (strcmp(o->sql, "-") == 0) {
		if (read_all("-", &in, err) == -1) {
			sc_buf_release(&in);
			return -1;
		}
	} else
		sc_buf_addstr(&in, o->sql, NULL);
	n = sql_split((const char *)in.data, in.len, &stmts);
	sc_buf_release(&in);
	if (n == 0)
		rc = sc_error_set(err, SC_ST_USAGE, "no SQL statement given");
	else if (n > 1 && (o->detach || o->opid[0] != '\0'))
		rc = sc_error_set(err, SC_ST_USAGE,
		    "--detach and "
		    "--operation-id need a single statement, not %zu",
		    n);
	for (i = 0; rc == 0 && i < n; i++) {
		if (o->analyze) {
			sql_plan(stmts[i], &sq, &rel, &plan);
			rc = analyze(x, &plan, err);
		} else
			rc = run_sql(x, stmts[i], err);
		if (x->detached || render_limit_reached(x->r))
			break;
	}
	sql_free_statements(stmts, n);
	return rc;
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct run x;
	struct sc_client_opts co;
	struct sc_retry_policy pol;
	struct render_opts rop;
	struct sc_error err;
	struct sc_uri u;
	struct timespec dl;
	pthread_t sigthr;
	struct sigaction sa;
	static sigset_t sigs;
	int rc = 0;

	memset(&o, 0, sizeof(o));
	sc_cli_init(&o.common, "sc-exec");
	o.format = -1;
	o.header = -1;
	o.max_retries = -1;
	o.progress = -1;
	o.reattach = true;
	o.segment_ms = -1;
	o.watchdog_ms = -1;
	parse_args(&o, argc, argv);
	sc_cli_finish_common(&o.common);
	if (o.format < 0)
		o.format = isatty(STDOUT_FILENO) ? SC_OUT_TABLE : SC_OUT_CSV;

	sc_error_init(&err);
	sc_uri_init(&u);
	if (make_uri(&o, &u, &err) == -1) {
		sc_uri_release(&u);
		return sc_report_error(&err);
	}
	if (o.attach != NULL && u.session_id[0] == '\0') {
		sc_uri_release(&u);
		sc_usage_msg(usage_text,
		    "--attach needs the operation's "
		    "session id (--session-id or session_id= in the URI)");
	}

	/*
	 * Signals go to one thread, which releases the operation.  A signal
	 * ignored by whoever started us (a background job's SIGINT) stays
	 * ignored.
	 */
	sigemptyset(&sigs);
	if (sigaction(SIGINT, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
		sigaddset(&sigs, SIGINT);
	if (sigaction(SIGTERM, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
		sigaddset(&sigs, SIGTERM);
	if (sigismember(&sigs, SIGINT) || sigismember(&sigs, SIGTERM)) {
		pthread_sigmask(SIG_BLOCK, &sigs, NULL);
		if (pthread_create(&sigthr, NULL, signal_main, &sigs) != 0)
			SC_BUG("cannot start the signal thread");
		pthread_detach(sigthr);
	}

	memset(&x, 0, sizeof(x));
	x.o = &o;
	x.deadline = o.common.has_deadline ? &o.common.deadline : NULL;
	x.generated_session = u.session_id[0] == '\0';
	sc_retry_policy_default(&pol);
	if (o.max_retries >= 0)
		pol.max_retries = o.max_retries;
	memset(&co, 0, sizeof(co));
	co.ca_file = o.ca_file;
	co.policy = &pol;
	co.release_timeout_ms = RELEASE_WAIT_MS;
	co.on_event = on_event;
	x.c = sc_client_new(&u, &co, &err);
	sc_uri_release(&u);
	if (x.c == NULL)
		return sc_report_error(&err);
	ev_client = x.c;
	pthread_mutex_lock(&cur_lock);
	cur_client = x.c;
	pthread_mutex_unlock(&cur_lock);
	sc_debug("session %s, user '%s'", sc_client_session_id(x.c),
	    sc_client_user_id(x.c));

	sc_reattach_opts_init(&x.ro);
	x.ro.reattachable = o.reattach;
	x.ro.policy = pol;
	if (o.segment_ms >= 0)
		x.ro.segment_ms = o.segment_ms;
	if (o.watchdog_ms >= 0)
		x.ro.watchdog_ms = o.watchdog_ms;
	x.ro.deadline = x.deadline;

	memset(&rop, 0, sizeof(rop));
	rop.mode = o.arrow ? RENDER_ARROW : RENDER_TEXT;
	rop.format = (enum sc_out_format)o.format;
	rop.header = o.header != 0;
	rop.null_text = o.null_text;
	rop.max_rows = o.max_rows;
	x.r = render_new(stdout, &rop);
	progress_enable(o.progress == 1 ||
	    (o.progress < 0 && !o.common.quiet && !o.detach &&
		isatty(STDERR_FILENO)));

	if (run_all(&x, &err) == -1)
		rc = -1;
	progress_clear();
	render_free(x.r);

	/* Output is done; now give the releases a bounded chance. */
	sc_deadline_in_ms(&dl, RELEASE_WAIT_MS);
	if (sc_client_release_wait(x.c, &dl) == -1)
		sc_info("some releases did not finish; the server drops "
			"them on its own after its detached timeout");
	pthread_mutex_lock(&cur_lock);
	if (interrupted) {
		/* The signal thread uses the client and ends the process. */
		pthread_mutex_unlock(&cur_lock);
		wait_for_death();
	}
	cur_client = NULL;
	pthread_mutex_unlock(&cur_lock);
	sc_client_free(x.c);
	free(o.meta);
	free(o.tags);
	if (rc == -1)
		return sc_report_error(&err);
	return sc_check_stdout();
}
