/* SPDX-License-Identifier: MIT */

/*
 * run.c: running what the options ask for.  Each SQL statement goes as
 * spark.sql() sends it (a SqlCommand, then the relation it answers
 * with), or, when it is plainly a query, as that relation directly;
 * every operation is read to its end through core/reattach and its rows
 * go to render.c.
 */

#include "sc-exec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/cli.h"
#include "core/client.h"
#include "core/error.h"
#include "core/file.h"
#include "core/log.h"
#include "core/output.h"
#include "core/plan.h"
#include "core/reattach.h"
#include "core/result.h"
#include "core/retry.h"
#include "core/signals.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "core/banned.h"

/* Largest SQL script or plan file read. */
#define INPUT_MAX (64UL * 1024 * 1024)
/* Longest type name --analyze prints. */
#define TYPE_NAME_MAX (1024 * 1024)
/*
 * --detach asks whether the server holds the operation every 10 ms at
 * first, then less often, for up to 2 s; then it waits for the stream.
 */
#define DETACH_POLL_MS 10
#define DETACH_PROBE_MS 2000

static int run_plan(struct run *x, const struct sc_plan *plan, bool final,
    struct sc_error *err);

/* Whether the statement's operation is to be left running. */
static bool
detaching(const struct run *x)
{
	return x->o->detach || x->detach_once;
}

/*
 * The operation a signal aborts: the signal thread's (sc-exec exits),
 * or at the prompt its ^C watcher's (the statement ends, the prompt
 * stays).
 */
static void
watch(struct run *x, struct sc_reattach *it)
{
	if (x->interactive)
		prompt_watch(it);
	else
		sc_signals_watch(it);
}

static int
print_detached(struct run *x, const char *opid, struct sc_error *err)
{
	const char *sid = sc_client_session_id(x->c);

	errno = 0;
	if (fprintf(x->out, "%s\n", opid) < 0 || fflush(x->out) == EOF)
		return sc_error_set_errno(err, SC_ST_IO,
		    errno != 0 ? errno : EIO, "cannot write the operation id");
	/* Even with -q: nowhere else says which session to attach to. */
	if (sc_client_session_is_new(x->c) || x->own_session)
		sc_log_write(SC_LOG_ERROR,
		    "operation %s runs detached in new session %s; attach with --session-id %s --attach %s",
		    opid, sid, sid, opid);
	else
		sc_info("operation %s runs detached in session %s", opid, sid);
	return 0;
}

/*
 * A SQL command answers with a relation to run next (spark.sql()): a
 * query's plan, or a command's output rows, printed as they are.
 */
static int
run_next(struct run *x, struct sc_plan *next, struct sc_error *err)
{
	const void *rows;
	size_t len;
	int rc;

	if (detaching(x) || !sc_plan_local_rows(next, &rows, &len))
		return run_plan(x, next, true, err);
	render_begin(x->r);
	rc = render_local(x->r, rows, len, err);
	if (rc >= 0 && render_end(x->r, err) == -1)
		rc = -1;
	return rc == -1 ? -1 : 0;
}

/* Reattaches: streams after an operation's first. */
static void
count_streams(struct run *x, struct sc_reattach *it)
{
	uint64_t n = sc_reattach_streams(it);

	if (n > 1)
		x->reattaches += n - 1;
}

/*
 * Whether the server holds operation opid: 1 yes, 0 not (yet), -1 could
 * not tell.  A ReleaseUntil of a response that cannot exist (the
 * operation id is never a response id) answers without touching
 * anything: Spark, and sc-serve alike, say INVALID_CURSOR for an
 * operation they hold and nothing for one they do not know.
 */
static int
server_holds(struct run *x, const char *opid)
{
	struct sc_error e;
	bool found = false;

	sc_error_init(&e);
	if (sc_client_release_execute(x->c, opid, opid, &found, x->deadline,
		&e) == 0)
		return found ? 1 : 0;
	if (strncmp(e.errclass, "INVALID_CURSOR.", 15) == 0)
		return 1;
	/*
	 * The session too is not there yet when this statement is the
	 * session's first operation and its ExecutePlan has not arrived.
	 */
	if (strcmp(e.errclass, "INVALID_HANDLE.OPERATION_NOT_FOUND") == 0 ||
	    strcmp(e.errclass, "INVALID_HANDLE.SESSION_NOT_FOUND") == 0)
		return 0;
	return -1;
}

/*
 * --detach: send the request, and as soon as the server holds the
 * operation (or answers, whichever comes first) print its id and leave
 * it running.  A query whose first rows come at its end (an aggregate)
 * must not hold the terminal or the cron job that long.
 */
static int
detach(struct run *x, struct sc_reattach *it, struct sc_error *err)
{
	const char *opid = sc_reattach_operation_id(it);
	struct sc_result r;
	int64_t wait = DETACH_POLL_MS, start = sc_mono_ms();
	int held = 0, k = 1;

	watch(x, it);
	if (sc_reattach_send(it, err) == -1)
		k = -1;
	while (k == 1 && held == 0 && sc_mono_ms() - start < DETACH_PROBE_MS) {
		if ((held = server_holds(x, opid)) != 0)
			break;
		if (sc_retry_sleep_ms(wait, x->deadline) == -1)
			break;
		wait = wait * 2 > 200 ? 200 : wait * 2;
	}
	/* Not seen (yet): wait for its first answer, as the stream says. */
	if (k == 1 && held != 1) {
		if ((k = sc_reattach_next_result(it, &r, err)) == 1)
			sc_result_release(&r);
	}
	if (k == -1) {
		if (sc_signals_caught() ||
		    (sc_reattach_aborted(it) && !x->interactive))
			sc_signals_wait();
		watch(x, NULL);
		count_streams(x, it);
		sc_reattach_close(it);
		return -1;
	}
	watch(x, NULL);
	/* An id nobody can read would leave the operation to time out. */
	if (print_detached(x, opid, err) == -1) {
		count_streams(x, it);
		sc_reattach_close(it);
		return -1;
	}
	count_streams(x, it);
	sc_reattach_detach(it);
	x->detached = true;
	return 0;
}

/*
 * A failed --attach leaves the operation as it found it (another client
 * may be reading it): say how the next --attach resumes after the last
 * response this one printed.
 */
static void
resume_hint(struct run *x, struct sc_reattach *it)
{
	const char *rid = sc_reattach_last_response_id(it);
	const char *opid = sc_reattach_operation_id(it);

	snprintf(x->after_error, sizeof(x->after_error),
	    "operation %s is left on the server; resume with --session-id %s --attach %s%s%s",
	    opid, sc_client_session_id(x->c), opid,
	    rid != NULL ? " --after " : "", rid != NULL ? rid : "");
}

/*
 * Read an operation to its end, rendering its rows, then run the
 * relation a SQL command answered with.
 */
static int
consume(struct run *x, struct sc_reattach *it, struct sc_error *err)
{
	struct sc_plan *next = NULL;
	struct sc_result r;
	int k = 0, rc = 0;

	watch(x, it);
	render_begin(x->r);
	while (rc == 0 && (k = sc_reattach_next_result(it, &r, err)) == 1) {
		if (r.kind == SC_RESULT_ARROW) {
			rc = render_batch(x->r, &r.arrow, err);
			progress_update(render_rows(x->r), render_bytes(x->r));
		} else if (r.kind == SC_RESULT_SQL) {
			sc_plan_free(next);
			next = sc_result_take_relation(&r);
		} else if (r.kind == SC_RESULT_PROGRESS)
			progress_stages(&r.progress);
		else if (r.affected >= 0)
			x->affected = r.affected;
		else if (r.kind == SC_RESULT_SCHEMA)
			render_schema(x->r, r.schema);
		sc_result_release(&r);
	}
	if (rc == 0 && k == -1) {
		if (sc_signals_caught() ||
		    (sc_reattach_aborted(it) && !x->interactive))
			sc_signals_wait();
		rc = -1;
	}
	watch(x, NULL);
	count_streams(x, it);
	if (k == -1 && x->o->attach != NULL && !sc_reattach_aborted(it) &&
	    err->status != SC_ST_NOTFOUND && sc_reattach_left(err))
		resume_hint(x, it);
	sc_reattach_close(it); /* ReleaseAll, unless done already or left */
	if (rc == -1)
		render_begin(x->r); /* drop what the failed result left */
	else if ((rc = render_end(x->r, err)) == 0 && next != NULL)
		rc = run_next(x, next, err);
	sc_plan_free(next);
	return rc;
}

/*
 * Run one plan.  final: it is the operation the user's --operation-id
 * and --detach apply to (a SQL command is followed by the final one).
 */
static int
run_plan(struct run *x, const struct sc_plan *plan, bool final,
    struct sc_error *err)
{
	struct sc_reattach_exec ex = { NULL, x->o->tags.v, x->o->tags.n };
	struct sc_reattach *it;
	bool last = final && !sc_plan_is_sql_command(plan);

	if (last)
		ex.operation_id = x->o->opid;
	if ((it = sc_reattach_execute(x->c, plan, &ex, &x->ro, err)) == NULL)
		return -1;
	if (last && detaching(x))
		return detach(x, it, err);
	return consume(x, it, err);
}

/* --analyze: AnalyzePlan(schema) and one record per column. */
static int
analyze(struct run *x, const struct sc_plan *plan, struct sc_error *err)
{
	static const char *const names[] = { "name", "type", "nullable" };
	struct sc_result_schema *s;
	struct sc_output_opts oo;
	struct sc_output *out;
	struct sc_out_value v[3];
	struct sc_buf tn;
	size_t i;
	int rc;

	if (sc_client_analyze_schema(x->c, plan, &s, x->deadline, err) == -1)
		return -1;
	memset(&oo, 0, sizeof(oo));
	oo.header = x->o->header != 0;
	oo.null_text = x->o->null_text;
	oo.flush = -1;
	out = sc_output_new(x->out, (enum sc_out_format)x->o->format, &oo);
	sc_buf_init(&tn, TYPE_NAME_MAX);
	rc = sc_output_header(out, names, 3, err);
	for (i = 0; rc == 0 && i < sc_result_schema_ncols(s); i++) {
		sc_buf_reset(&tn);
		if ((rc = sc_result_schema_type_name(s, i, &tn, err)) == -1)
			break;
		v[0].kind = v[1].kind = SC_OUT_STRING;
		v[0].p = sc_result_schema_name(s, i);
		v[0].n = strlen(v[0].p);
		v[1].p = (const char *)tn.data;
		v[1].n = tn.len;
		v[2].kind = SC_OUT_BOOL;
		v[2].p = sc_result_schema_nullable(s, i) ? "true" : "false";
		v[2].n = strlen(v[2].p);
		rc = sc_output_row(out, v, 3, err);
	}
	if (rc == 0)
		rc = sc_output_finish(out, err);
	sc_output_free(out);
	sc_buf_release(&tn);
	sc_result_schema_free(s);
	return rc;
}

/*
 * One plan, analyzed or run; the plan is freed.  With -v, a line says
 * what it took: "sc-exec: statement 2 (a.sql:5): 1000 rows, 8.7 KiB,
 * 42ms, 0 reattaches" (what is the label).
 */
static int
run_one(struct run *x, struct sc_plan *plan, const char *what,
    struct sc_error *err)
{
	uint64_t rows = render_rows(x->r), bytes = render_bytes(x->r);
	uint64_t cut = render_cut(x->r), reat = x->reattaches;
	int64_t t0 = sc_mono_ms();
	char b[32], d[SC_DURATION_STRLEN], tag[48] = "";
	int rc;

	x->affected = -1;
	rc = x->o->analyze ? analyze(x, plan, err)
			   : run_plan(x, plan, true, err);
	sc_plan_free(plan);
	/*
	 * A statement that changed rows, when the server counted them
	 * (sc-serve does, Spark does not): "DELETE 60", on a terminal as
	 * psql prints it, and in the -v line.
	 */
	if (rc == 0 && x->tag != NULL && x->affected >= 0 && !x->detached) {
		snprintf(tag, sizeof(tag), "%s %lld, ", x->tag,
		    (long long)x->affected);
		if (x->tty || x->interactive) {
			progress_lock();
			fprintf(x->out, "%.*s\n", (int)strlen(tag) - 2, tag);
			fflush(x->out);
			progress_unlock();
		}
	}
	/* A cut result says so, unless -q: a short CSV must not pass as whole. */
	if (render_cut(x->r) > cut && sc_log_level < SC_LOG_INFO) {
		progress_lock();
		sc_warn("%s: output cut at %llu %s (--max-rows)", what,
		    (unsigned long long)x->o->max_rows,
		    x->o->max_rows == 1 ? "row" : "rows");
		progress_unlock();
	}
	if (sc_log_level < SC_LOG_INFO || x->o->analyze)
		return rc;
	rows = render_rows(x->r) - rows;
	sc_format_bytes((double)(render_bytes(x->r) - bytes), "B", b,
	    sizeof(b));
	sc_duration_format(sc_mono_ms() - t0, d);
	reat = x->reattaches - reat;
	progress_lock();
	sc_info("%s: %s%s%llu %s%s, %s, %s, %llu %s%s", what, tag,
	    x->detached ? "detached, " : "", (unsigned long long)rows,
	    rows == 1 ? "row" : "rows",
	    render_cut(x->r) > cut ? " (cut at --max-rows)" : "", b, d,
	    (unsigned long long)reat, reat == 1 ? "reattach" : "reattaches",
	    rc == -1 ? ", failed" : "");
	progress_unlock();
	return rc;
}

/* ------------------------------------------------------------ scripts */

/*
 * The command tag of a statement that changes rows, as psql prints it
 * ("DELETE 60"): its first word (after comments) if it is INSERT,
 * UPDATE, DELETE or MERGE, else NULL.
 */
static const char *
dml_tag(const char *s)
{
	static const char *const tags[] = { "INSERT", "UPDATE", "DELETE",
		"MERGE" };
	const char *e;
	size_t i, n;

	for (;;) {
		s += strspn(s, " \t\r\n\f\v");
		if (strncmp(s, "--", 2) == 0)
			s += strcspn(s, "\n");
		else if (strncmp(s, "/*", 2) == 0 && (e = strstr(s + 2, "*/")))
			s = e + 2;
		else
			break;
	}
	n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
	for (i = 0; i < SC_NELEM(tags); i++)
		if (n == strlen(tags[i]) && strncasecmp(s, tags[i], n) == 0)
			return tags[i];
	return NULL;
}

/* One piece of SQL text: the operand, a -f file or standard input. */
struct source {
	const char *name; /* for messages; NULL: the operand */
	struct sql_stmt *stmts;
	size_t n;
};

/*
 * Standard input to its end.  read(2), not stdio: on a terminal the
 * first ^D ends it (fread would wait for a second one).
 */
static int
read_stdin(struct sc_buf *in, struct sc_error *err)
{
	char chunk[65536];
	ssize_t n;

	if (isatty(STDIN_FILENO) && isatty(STDERR_FILENO) &&
	    sc_log_level >= SC_LOG_WARN)
		fprintf(stderr,
		    "sc-exec: reading SQL from the terminal; end "
		    "it with ^D on a line of its own\n");
	for (;;) {
		n = read(STDIN_FILENO, chunk, sizeof(chunk));
		if (n == 0)
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sc_error_set_errno(err, SC_ST_IO, errno,
			    "cannot read 'standard input'");
		if (sc_buf_add(in, chunk, (size_t)n, NULL) == -1)
			return sc_error_set(err, SC_ST_USAGE,
			    "'standard input' is larger than %zu bytes",
			    in->max);
	}
}

/* The operand's text, checked and split. */
static int
load_text(struct source *s, const char *text, struct sc_error *err)
{
	size_t n = strlen(text);

	memset(s, 0, sizeof(*s));
	if (sql_check_text(text, n, "the SQL argument", err) == -1)
		return -1;
	s->n = sql_split(text, n, &s->stmts);
	return 0;
}

/* A file ("-": standard input), read, checked and split. */
static int
load_file(struct source *s, const char *path, struct sc_error *err)
{
	struct sc_buf in;
	int rc;

	memset(s, 0, sizeof(*s));
	sc_buf_init(&in, INPUT_MAX);
	s->name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	if (strcmp(path, "-") == 0)
		rc = read_stdin(&in, err);
	else
		rc = sc_file_read(path, &in, err);
	if (rc == 0)
		rc =
		    sql_check_text((const char *)in.data, in.len, s->name, err);
	if (rc == 0)
		s->n = sql_split((const char *)in.data, in.len, &s->stmts);
	sc_buf_release(&in);
	return rc;
}

/*
 * Say where the failed statement k of s is, and (after the error) how
 * many statements ran before it and how many did not run.
 */
static void
locate(struct run *x, const struct source *s, size_t k, size_t done,
    size_t total, struct sc_error *err)
{
	char where[512];

	/* Nothing ran yet and the server was not reached: not the SQL. */
	if (done == 0 && err->errclass[0] == '\0' &&
	    (err->status == SC_ST_UNAVAILABLE || err->status == SC_ST_DENIED ||
		err->status == SC_ST_PROTOCOL))
		return;
	/*
	 * A file's statement is always located; the operand's first one
	 * needs no number (the message reads as for a single statement).
	 */
	if (s->name != NULL)
		snprintf(where, sizeof(where),
		    "%s:%zu: statement %zu: ", s->name, s->stmts[k].line,
		    k + 1);
	else if (total > 1 && done > 0)
		snprintf(where, sizeof(where), "statement %zu: ", k + 1);
	else
		where[0] = '\0';
	if (where[0] != '\0')
		sc_error_prefix(err, where);
	if (total > 1 && (s->name != NULL || done > 0))
		snprintf(x->after_error, sizeof(x->after_error),
		    "%zu of %zu statements ran before it, %zu did not run",
		    done, total, total - done - 1);
}

/*
 * Whether stmt is plainly a query (it starts with SELECT or VALUES,
 * after comments and opening parentheses).  spark.sql() of a query
 * answers with the query itself as the relation to run, so sending
 * Relation{sql} as the root gives the same rows in one operation instead
 * of two.  Anything else (WITH may lead to an INSERT) goes as a
 * SqlCommand.
 */
static bool
plain_query(const char *p)
{
	static const char *const kw[] = { "select", "values" };
	size_t i, n;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' ||
		    *p == '\f' || *p == '(')
			p++;
		if (p[0] == '-' && p[1] == '-') {
			p += strcspn(p, "\n");
			continue;
		}
		if (p[0] == '/' && p[1] == '*') {
			if ((p = strstr(p + 2, "*/")) == NULL)
				return false;
			p += 2;
			continue;
		}
		break;
	}
	for (i = 0; i < sizeof(kw) / sizeof(kw[0]); i++) {
		n = strlen(kw[i]);
		if (strncasecmp(p, kw[i], n) == 0 &&
		    !(p[n] == '_' || (p[n] >= '0' && p[n] <= '9') ||
			((p[n] | 0x20) >= 'a' && (p[n] | 0x20) <= 'z') ||
			(unsigned char)p[n] >= 0x80))
			return true;
	}
	return false;
}

/* The plan of one statement: a root relation or a SqlCommand. */
static struct sc_plan *
statement_plan(const struct opts *o, const char *text)
{
	if (o->analyze || plain_query(text))
		return sc_plan_sql_params(text, o->params, o->nparams);
	return sc_plan_sql_command_params(text, o->params, o->nparams);
}

/* Every statement of every source, in order; stop at the first error. */
static int
run_sources(struct run *x, struct source *src, size_t nsrc,
    struct sc_error *err)
{
	const struct opts *o = x->o;
	size_t i, k, total = 0, done = 0;
	char what[PATH_MAX + 64];
	int rc = 0;

	for (i = 0; i < nsrc; i++)
		total += src[i].n;
	if (total > 1 && (detaching(x) || o->opid != NULL))
		return sc_error_set(err, SC_ST_USAGE,
		    "--detach and --operation-id need a single statement, not %zu",
		    total);
	if (total == 0 && detaching(x))
		return sc_error_set(err, SC_ST_USAGE,
		    "--detach needs a statement, and the SQL has none");
	for (i = 0; i < nsrc; i++)
		for (k = 0; k < src[i].n; k++, done++) {
			if (src[i].name != NULL)
				snprintf(what, sizeof(what),
				    "statement %zu (%s:%zu)", done + 1,
				    src[i].name, src[i].stmts[k].line);
			else
				snprintf(what, sizeof(what), "statement %zu",
				    done + 1);
			if (sc_plan_check_sql(src[i].stmts[k].text,
				strlen(src[i].stmts[k].text), err) == -1)
				rc = -1;
			else {
				x->tag = dml_tag(src[i].stmts[k].text);
				rc = run_one(x,
				    statement_plan(o, src[i].stmts[k].text),
				    what, err);
				x->tag = NULL;
			}
			if (rc == -1) {
				locate(x, &src[i], k, done, total, err);
				return -1;
			}
			if (x->detached)
				return 0;
		}
	return 0;
}

void
run_make_render(struct run *x)
{
	const struct opts *o = x->o;
	struct render_opts rop;

	render_free(x->r);
	memset(&rop, 0, sizeof(rop));
	rop.mode = o->arrow ? RENDER_ARROW : RENDER_TEXT;
	rop.format = (enum sc_out_format)o->format;
	rop.header = o->header != 0;
	rop.null_text = o->null_text;
	rop.max_rows = o->max_rows;
	/* A page on a terminal: what fits the screen. */
	rop.page_rows = x->tty && term_rows() > 4 ? term_rows() - 3 : 0;
	x->r = render_new(x->out, &rop);
}

int
run_sql(struct run *x, const char *name, const char *text, size_t n,
    struct sc_error *err)
{
	struct source src;
	int rc;

	memset(&src, 0, sizeof(src));
	src.name = name;
	if (sql_check_text(text, n, name != NULL ? name : "the prompt", err) ==
	    -1)
		return -1;
	src.n = sql_split(text, n, &src.stmts);
	rc = run_sources(x, &src, 1, err);
	sql_free_statements(src.stmts, src.n);
	return rc;
}

/* The SQL of the operand, the -f files or standard input. */
static int
run_script(struct run *x, struct sc_error *err)
{
	const struct opts *o = x->o;
	struct source *src;
	size_t nsrc, i;
	int rc = 0;

	nsrc = o->files.n > 0 ? o->files.n : 1;
	src = sc_xcalloc(nsrc, sizeof(*src));
	/* Read every file first: a missing one runs nothing. */
	for (i = 0; rc == 0 && i < nsrc; i++)
		if (o->files.n > 0)
			rc = load_file(&src[i], o->files.v[i], err);
		else if (o->sql == NULL || strcmp(o->sql, "-") == 0)
			rc = load_file(&src[i], "-", err);
		else
			rc = load_text(&src[i], o->sql, err);
	if (x->progress_later)
		progress_enable(true);
	if (rc == 0)
		rc = run_sources(x, src, nsrc, err);
	for (i = 0; i < nsrc; i++)
		sql_free_statements(src[i].stmts, src[i].n);
	free(src);
	return rc;
}

/*
 * --conf key=value: the session's settings, set before anything runs,
 * as spark-sql --conf does.  A setting the server refuses ends the run
 * with its class (CANNOT_MODIFY_CONFIG, UNSUPPORTED_FEATURE.SET_CONFIG).
 */
static int
set_conf(struct run *x, struct sc_error *err)
{
	const struct list *l = &x->o->confs;
	struct sc_client_conf_req rq;
	struct sc_client_conf out;
	const char **keys, **values;
	size_t i;
	int rc;

	keys = sc_xcalloc(l->n, sizeof(*keys));
	values = sc_xcalloc(l->n, sizeof(*values));
	for (i = 0; i < l->n; i++) {
		const char *eq = strchr(l->v[i], '=');

		keys[i] = sc_xstrndup(l->v[i], (size_t)(eq - l->v[i]));
		values[i] = eq + 1;
	}
	memset(&rq, 0, sizeof(rq));
	rq.op = SC_CLIENT_CONF_SET;
	rq.keys = keys;
	rq.values = values;
	rq.n = l->n;
	rc = sc_client_config(x->c, &rq, &out, x->deadline, err);
	if (rc == 0) {
		for (i = 0; i < out.nwarnings; i++)
			sc_warn("%s", out.warnings[i]);
		sc_client_conf_release(&out);
	}
	for (i = 0; i < l->n; i++)
		free((char *)keys[i]);
	free(keys);
	free(values);
	return rc;
}

int
run_all(struct run *x, struct sc_error *err)
{
	const struct opts *o = x->o;
	struct sc_reattach *it;
	struct sc_plan *plan;
	struct sc_buf in;
	int rc;

	if (o->confs.n > 0 && set_conf(x, err) == -1)
		return -1;
	if (o->attach != NULL) {
		it = sc_reattach_attach(x->c, o->attach, o->after, &x->ro, err);
		return it != NULL ? consume(x, it, err) : -1;
	}
	if (o->has_range)
		return run_one(x,
		    sc_plan_range(o->range[0], o->range[1], o->range[2]),
		    "range", err);
	if (o->prompt)
		return prompt_run(x, err);
	if (o->plan_file == NULL)
		return run_script(x, err);
	sc_buf_init(&in, INPUT_MAX);
	if ((rc = sc_file_read(o->plan_file, &in, err)) == 0) {
		if ((plan = sc_plan_parse(in.data, in.len, o->plan_file,
			 err)) == NULL)
			rc = -1;
		else
			rc = run_one(x, plan, "plan", err);
	}
	sc_buf_release(&in);
	return rc;
}
