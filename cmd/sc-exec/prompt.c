/* SPDX-License-Identifier: MIT */

/*
 * prompt.c: sc-exec with no SQL on a terminal.  Lines are read with
 * libedit (editing, and history in ~/.sc_exec_history); statements end
 * at a ';' of their own, across lines, and run as they are complete.
 * ^C while one runs ends it (its operation is released, which stops it
 * on the server) and the prompt stays; ^C while typing drops the line.
 * Lines that start with a backslash are commands of the prompt's own.
 */

#include "sc-exec.h"

#include <editline/readline.h>

#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/client.h"
#include "core/error.h"
#include "core/file.h"
#include "core/log.h"
#include "core/reattach.h"
#include "core/timeutil.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "core/banned.h"

#define HISTORY_FILE ".sc_exec_history"
#define HISTORY_MAX 1000
/* Largest statement typed at the prompt. */
#define TYPED_MAX (16UL * 1024 * 1024)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct sc_reattach *cur_it; /* lock */
static atomic_int interrupted; /* ^C while typing */
static sigset_t intset;
static pthread_t reader; /* the thread reading lines */
static struct termios saved_tio; /* the terminal's modes, while echo_off() */
static volatile sig_atomic_t tio_saved;

/* ------------------------------------------------------------ signals */

/* SIGTERM, SIGHUP: the terminal as it was, then the default death. */
static void
on_fatal(int sig)
{
	if (tio_saved)
		(void)tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* ^C at the prompt: libedit's read returns, the line is dropped. */
static void
on_sigint(int sig)
{
	(void)sig;
	atomic_store(&interrupted, 1);
}

/* ^C while a statement runs (SIGINT blocked in every thread then). */
static void *
watcher(void *arg)
{
	int sig;

	(void)arg;
	for (;;) {
		if (sigwait(&intset, &sig) != 0)
			continue;
		pthread_mutex_lock(&lock);
		if (cur_it != NULL)
			sc_reattach_abort(cur_it);
		else
			/* Typing: the line reader's, whichever thread got it. */
			pthread_kill(reader, SIGINT);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int
prompt_signals_start(struct sc_error *err)
{
	struct sigaction sa;
	pthread_t t;
	int e;

	reader = pthread_self();
	sigemptyset(&intset);
	sigaddset(&intset, SIGINT);
	/* Blocked here and in every thread started from now on. */
	pthread_sigmask(SIG_BLOCK, &intset, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint; /* no SA_RESTART: the read returns */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_fatal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if ((e = pthread_create(&t, NULL, watcher, NULL)) != 0)
		return sc_error_set_errno(err, SC_ST_INTERNAL, e,
		    "cannot start the signal thread");
	pthread_detach(t);
	return 0;
}

void
prompt_watch(struct sc_reattach *it)
{
	pthread_mutex_lock(&lock);
	cur_it = it;
	pthread_mutex_unlock(&lock);
}

/* ------------------------------------------------------------ history */

static char *
history_path(void)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if (home == NULL || home[0] == '\0') {
		pw = getpwuid(getuid());
		home = pw != NULL ? pw->pw_dir : NULL;
	}
	if (home == NULL)
		return NULL;
	return sc_xasprintf("%s/%s", home, HISTORY_FILE);
}

/* --------------------------------------------------------- one line */

/*
 * A line with the terminal's ^C handled by us: SIGINT reaches this
 * thread only while it waits for the line.  NULL at the end (^D);
 * *dropped when ^C cancelled the line.
 */
static char *
read_line(const char *prompt, bool *dropped)
{
	char *line;

	atomic_store(&interrupted, 0);
	pthread_sigmask(SIG_UNBLOCK, &intset, NULL);
	/* A ^C that came between two lines drops the next, empty one. */
	line = atomic_load(&interrupted) ? NULL : readline(prompt);
	pthread_sigmask(SIG_BLOCK, &intset, NULL);
	*dropped = atomic_load(&interrupted) != 0;
	if (*dropped) {
		free(line);
		line = NULL;
	}
	return line;
}

/* --------------------------------------------------------- completion */

/*
 * Tab completes the keywords of Spark SQL and the prompt's commands, in
 * the case the word was begun in (file names are not what is typed
 * here).  Table names would need a call to the server: not done.
 */
static const char *const keywords[] = { "ALL", "ALTER", "AND", "AS", "ASC",
	"BETWEEN", "BY", "CACHE", "CASE", "CAST", "CREATE", "CROSS", "DATABASE",
	"DATABASES", "DELETE", "DESC", "DESCRIBE", "DISTINCT", "DROP", "ELSE",
	"END", "EXCEPT", "EXISTS", "EXPLAIN", "FALSE", "FIRST", "FROM", "FULL",
	"FUNCTIONS", "GROUP", "HAVING", "IF", "IN", "INNER", "INSERT",
	"INTERSECT", "INTERVAL", "INTO", "IS", "JOIN", "LAST", "LEFT", "LIKE",
	"LIMIT", "MERGE", "NOT", "NULL", "NULLS", "ON", "OR", "ORDER", "OUTER",
	"OVER", "PARTITION", "RANGE", "REPLACE", "RIGHT", "ROWS", "SELECT",
	"SET", "SHOW", "TABLE", "TABLES", "TEMPORARY", "THEN", "TRUE", "UNION",
	"UPDATE", "USE", "USING", "VALUES", "VIEW", "WHEN", "WHERE", "WINDOW",
	"WITH" };
static const char *const commands[] = { "\\?", "\\conninfo", "\\d", "\\detach",
	"\\dn", "\\dt", "\\format", "\\i", "\\l", "\\null", "\\q", "\\timing",
	"\\x" };

/* The next completion of text (state 0: the first); malloc'ed, or NULL. */
static char *
complete_word(const char *text, int state)
{
	static size_t next;
	size_t n = strlen(text), k;
	const char *const *v = text[0] == '\\' ? commands : keywords;
	size_t nv = text[0] == '\\' ? SC_NELEM(commands) : SC_NELEM(keywords);
	bool lower = n > 0 && text[0] >= 'a' && text[0] <= 'z';
	char *w;

	if (state == 0)
		next = 0;
	for (; next < nv; next++)
		if (strncasecmp(v[next], text, n) == 0) {
			w = sc_xstrdup(v[next++]);
			for (k = 0; lower && w[k] != '\0'; k++)
				if (w[k] >= 'A' && w[k] <= 'Z')
					w[k] = (char)(w[k] - 'A' + 'a');
			return w;
		}
	return NULL;
}

static char **
complete(const char *text, int start, int end)
{
	(void)start;
	(void)end;
	rl_attempted_completion_over = 1; /* no file names */
	return rl_completion_matches(text, complete_word);
}

/* ----------------------------------------------------- meta-commands */

/*
 * A message about what was typed.  Not through core/log, which shows a
 * backslash as two: the user's own backslash commands read as typed.
 */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
say(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("sc-exec: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const char meta_help[] =
    "Statements end with ';' and may span lines.  ^C ends the statement\n"
    "running, or drops the line being typed; ^D or \\q leaves.\n"
    "  \\format [fmt]   show or set the format: table, vertical, csv,\n"
    "                  tsv or jsonl\n"
    "  \\x              toggle vertical and table\n"
    "  \\timing [on|off] show the time each statement took\n"
    "  \\conninfo       the server, session and user\n"
    "  \\null [text]    show NULL as text (as --null; none: the default)\n"
    "  \\dt [pattern]   the tables (SHOW TABLES [LIKE pattern])\n"
    "  \\d [name]       a table's columns (DESCRIBE name); without a\n"
    "                  name, the tables\n"
    "  \\dn             the databases (SHOW DATABASES)\n"
    "  \\i file         run the statements of a file\n"
    "  \\detach         run the statement typed so far (or the next one)\n"
    "                  detached, in a session of its own: print its\n"
    "                  operation id and return at once\n"
    "  \\q              quit\n"
    "  \\?              this help\n";

struct prompt {
	struct run *x;
	bool timing;
	bool detach_next;
	bool progress; /* while a statement runs */
	struct sc_buf sql; /* the statement being typed */
};

static const char *
name_of(enum sc_out_format f)
{
	static const char *const names[] = { "table", "csv", "tsv", "jsonl",
		"vertical" };

	return names[f];
}

static void
set_format(struct prompt *p, const char *name)
{
	enum sc_out_format f;

	if (name == NULL) {
		printf("format %s\n",
		    name_of((enum sc_out_format)p->x->o->format));
		return;
	}
	if (sc_out_format_parse(name, &f) == -1) {
		say("unknown format '%s': expected table, vertical, csv, tsv "
		    "or jsonl",
		    name);
		return;
	}
	p->x->o->format = (int)f;
	run_make_render(p->x);
	printf("format %s\n", name_of(f));
}

/* \null: how NULL looks, so a 'NULL' string and a NULL differ (--null). */
static void
set_null(struct prompt *p, const char *text)
{
	static char buf[64];

	if (text != NULL && strlen(text) >= sizeof(buf)) {
		say("\\null takes at most %zu bytes", sizeof(buf) - 1);
		return;
	}
	if (text != NULL)
		snprintf(buf, sizeof(buf), "%s", text);
	p->x->o->null_text = text != NULL ? buf : NULL;
	run_make_render(p->x);
	printf("null shown as %s\n", text != NULL ? text : "the default");
}

static void
conninfo(struct prompt *p)
{
	struct sc_client *c = p->x->c;
	const char *sss = sc_client_server_side_session_id(c);

	printf("server %s, session %s, user '%s'%s%s\n", sc_client_server(c),
	    sc_client_session_id(c), sc_client_user_id(c),
	    sss != NULL ? ", server-side session " : "",
	    sss != NULL ? sss : "");
}

static void run_typed(struct prompt *p, const char *name, const char *text,
    size_t n);

/*
 * Spark SQL for what psql users type: it runs on the server, so a real
 * Spark answers it the same way.  The statement is head, then arg.
 */
static void
run_shown(struct prompt *p, const char *head, const char *arg, const char *tail)
{
	char sql[600];
	int n;

	n = snprintf(sql, sizeof(sql), "%s%s%s", head, arg, tail);
	if (n < 0 || (size_t)n >= sizeof(sql)) {
		say("name too long");
		return;
	}
	run_typed(p, NULL, sql, (size_t)n);
}

/* \i: a file's statements, as -f runs them. */
static void
run_file(struct prompt *p, const char *path)
{
	struct sc_error err;
	struct sc_buf b;

	sc_error_init(&err);
	sc_buf_init(&b, TYPED_MAX);
	if (sc_file_read(path, &b, &err) == -1)
		say("%s", err.msg);
	else if (b.len > 0)
		run_typed(p, path, (const char *)b.data, b.len);
	sc_buf_release(&b);
}

/* One backslash command; false to leave the prompt. */
static bool
meta(struct prompt *p, char *line)
{
	char *cmd, *arg, *save = NULL;

	cmd = strtok_r(line, " \t", &save);
	arg = strtok_r(NULL, " \t", &save);
	if (strcmp(cmd, "\\q") == 0 || strcmp(cmd, "\\quit") == 0)
		return false;
	if (strcmp(cmd, "\\?") == 0 || strcmp(cmd, "\\help") == 0)
		fputs(meta_help, stdout);
	else if (strcmp(cmd, "\\format") == 0)
		set_format(p, arg);
	else if (strcmp(cmd, "\\x") == 0)
		set_format(p,
		    p->x->o->format == SC_OUT_VERTICAL ? "table" : "vertical");
	else if (strcmp(cmd, "\\timing") == 0) {
		if (arg == NULL)
			p->timing = !p->timing;
		else if (strcmp(arg, "on") == 0 || strcmp(arg, "off") == 0)
			p->timing = strcmp(arg, "on") == 0;
		else
			say("\\timing takes on or off, not '%s'", arg);
		printf("timing %s\n", p->timing ? "on" : "off");
	} else if (strcmp(cmd, "\\conninfo") == 0)
		conninfo(p);
	else if (strcmp(cmd, "\\null") == 0)
		set_null(p, arg);
	else if (strcmp(cmd, "\\dt") == 0) {
		if (arg == NULL)
			run_shown(p, "SHOW TABLES", "", "");
		else if (strpbrk(arg, "'\\") != NULL)
			say("\\dt takes a pattern without quotes or backslashes");
		else
			run_shown(p, "SHOW TABLES LIKE '", arg, "'");
	} else if (strcmp(cmd, "\\d") == 0) {
		if (arg == NULL) /* psql lists the relations */
			run_shown(p, "SHOW TABLES", "", "");
		else
			run_shown(p, "DESCRIBE ", arg, "");
	} else if (strcmp(cmd, "\\dn") == 0 || strcmp(cmd, "\\l") == 0)
		run_shown(p, "SHOW DATABASES", "", "");
	else if (strcmp(cmd, "\\i") == 0) {
		if (arg == NULL)
			say("\\i needs a file name");
		else
			run_file(p, arg);
	} else if (strcmp(cmd, "\\detach") == 0) {
		p->detach_next = true;
		if (p->sql.len == 0)
			printf(
			    "the next statement runs detached, in a session of its own\n");
	} else
		say("unknown command '%s'; \\? lists them", cmd);
	fflush(stdout);
	return true;
}

/* ----------------------------------------------------------- running */

/* Whether s is the newest history entry already (Up, Enter). */
static bool
is_last(const char *s)
{
	HIST_ENTRY *h = history_length > 0
	    ? history_get(history_base + history_length - 1)
	    : NULL;

	return h != NULL && h->line != NULL && strcmp(h->line, s) == 0;
}

/*
 * History: a statement is one entry, its lines as typed, as psql and
 * sqlite3 recall it (the first n bytes of p->sql, ending with its ';').
 */
static void
remember(struct prompt *p, size_t n)
{
	char *s, *e;

	s = sc_xstrndup((const char *)p->sql.data, n);
	while (*s != '\0' && (e = s + strlen(s) - 1) >= s &&
	    (*e == '\n' || *e == ' ' || *e == '\t'))
		*e = '\0';
	if (strspn(s, " \t\n") < strlen(s) && !is_last(s))
		add_history(s);
	free(s);
}

/* Whether p->sql holds more than white space. */
static bool
unfinished(const struct prompt *p)
{
	size_t i;

	for (i = 0; i < p->sql.len; i++)
		if (strchr(" \t\n", p->sql.data[i]) == NULL)
			return true;
	return false;
}

/*
 * While a statement runs, keys typed ahead are not echoed: the terminal
 * would put them in the progress line.  The line editor shows them when
 * it reads them, at the next prompt.  A SIGTERM or SIGHUP meanwhile
 * gives the terminal back first (on_fatal()).
 */
static void
echo_off(void)
{
	struct termios t;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_tio) == -1)
		return;
	t = saved_tio;
	t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
	tio_saved = 1;
	(void)tcsetattr(STDIN_FILENO, TCSANOW, &t);
}

static void
echo_on(void)
{
	if (!tio_saved)
		return;
	tio_saved = 0;
	(void)tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
}

/*
 * \detach: a client of the statement's own, in a new session.  sc-serve
 * runs a session's statements one after another, so in the prompt's
 * session the next statement would wait for the detached one; and the
 * prompt's session ends with the prompt (^D), which would end the
 * operation too.  A session of its own returns at once and outlives the
 * prompt, as `sc-exec --detach` from a shell does.
 */
static struct sc_client *
detach_client(struct run *x, char sid[SC_UUID_STRLEN], struct sc_error *err)
{
	struct sc_conn_opts co = x->o->conn; /* borrowed: not released */
	struct sc_client_opts opts;

	if (sc_uuid_v4(sid, err) == -1)
		return NULL;
	co.session_id = sid;
	memset(&opts, 0, sizeof(opts));
	opts.policy = &x->policy;
	opts.release_timeout_ms = RELEASE_WAIT_MS;
	return sc_client_connect(&co, &opts, err);
}

/*
 * The server restarted (INVALID_HANDLE.SESSION_CHANGED): its sessions are
 * gone, and every statement of this one would fail the same way.  Go on
 * in a new session, as psql resets a lost connection, and say so.
 */
static void
new_session(struct run *x)
{
	struct sc_conn_opts co = x->o->conn; /* borrowed: not released */
	struct sc_client_opts opts;
	struct sc_client *c;
	struct sc_error err;
	char sid[SC_UUID_STRLEN];

	sc_error_init(&err);
	if (co.session_id == NULL) {
		if (sc_uuid_v4(sid, &err) == -1) {
			(void)sc_report_error(&err);
			return;
		}
		co.session_id = sid;
	}
	memset(&opts, 0, sizeof(opts));
	opts.policy = &x->policy;
	opts.release_timeout_ms = RELEASE_WAIT_MS;
	opts.on_event = on_event;
	if ((c = sc_client_connect(&co, &opts, &err)) == NULL) {
		(void)sc_report_error(&err);
		return;
	}
	sc_client_free(x->c);
	x->c = c;
	say("the server restarted: statements now run in session %s (the settings and temporary views of the old one are gone)",
	    sc_client_session_id(c));
}

/* Run text (complete statements), report, and go on either way. */
static void
run_typed(struct prompt *p, const char *name, const char *text, size_t n)
{
	struct run *x = p->x;
	struct sc_client *own = NULL, *prompt_c = x->c;
	struct sc_error err, e;
	struct timespec dl;
	int64_t t0 = sc_mono_ms();
	char d[SC_DURATION_STRLEN], sid[SC_UUID_STRLEN];
	int rc;

	sc_error_init(&err);
	if (p->detach_next) {
		p->detach_next = false;
		if ((own = detach_client(x, sid, &err)) == NULL) {
			(void)sc_report_error(&err);
			return;
		}
		x->c = own;
		x->own_session = true;
		x->detach_once = true;
	}
	x->detached = false;
	x->after_error[0] = '\0';
	term_begin();
	run_make_render(x); /* a fresh start: no blank line before */
	progress_restart();
	progress_enable(p->progress);
	echo_off();
	rc = run_sql(x, name, text, n, &err);
	echo_on();
	fflush(x->out);
	progress_enable(false);
	(void)term_end();
	x->detach_once = false;
	if (own != NULL) {
		/*
		 * Once detached, the session stays with the operation.  A
		 * statement that failed first leaves nothing anyone could
		 * attach to: end its session, unless the server is gone.
		 */
		if (!x->detached &&
		    !(rc == -1 &&
			(err.status == SC_ST_UNAVAILABLE ||
			    err.status == SC_ST_TIMEOUT))) {
			sc_error_init(&e);
			sc_deadline_in_ms(&dl, RELEASE_WAIT_MS);
			if (sc_client_release_session(own, false, &dl, &e) ==
			    -1)
				sc_debug("ReleaseSession of session %s: %s",
				    sid, e.msg);
		}
		sc_client_free(own);
		x->c = prompt_c;
		x->own_session = false;
	}
	if (rc == -1) {
		if (err.status == SC_ST_IO && err.sys_errno == EPIPE &&
		    term_pager_quit())
			; /* the user left the pager */
		else {
			(void)sc_report_error(&err);
			if (x->after_error[0] != '\0')
				sc_err("%s", x->after_error);
		}
		if (own == NULL &&
		    strcmp(err.errclass, "INVALID_HANDLE.SESSION_CHANGED") == 0)
			new_session(x);
	}
	if (p->timing) {
		sc_duration_format(sc_mono_ms() - t0, d);
		fprintf(stderr, "time: %s\n", d);
	}
}

/*
 * As psql does, the prompt starts only with a server that answers: a
 * Config call (which opens the session) first, so an address that is
 * wrong or down is said at once, with its exit status.
 */
static int
probe(struct run *x, struct sc_error *err)
{
	static const char *const keys[] = { "spark.sql.session.timeZone" };
	struct sc_client_conf_req rq;
	struct sc_client_conf out;

	memset(&rq, 0, sizeof(rq));
	rq.op = SC_CLIENT_CONF_GET_OPTION;
	rq.keys = keys;
	rq.n = 1;
	if (sc_client_config(x->c, &rq, &out, x->deadline, err) == -1)
		return -1;
	sc_client_conf_release(&out);
	return 0;
}

int
prompt_run(struct run *x, struct sc_error *err)
{
	struct prompt p;
	char *hist, *line, *s;
	size_t done;
	bool dropped, go = true;

	if (probe(x, err) == -1)
		return -1;
	memset(&p, 0, sizeof(p));
	p.x = x;
	/* The progress line only while a statement runs. */
	p.progress = progress_enabled();
	progress_enable(false);
	sc_buf_init(&p.sql, TYPED_MAX);
	rl_readline_name = "sc-exec";
	/*
	 * Our SIGINT handler, not libedit's, which sends the signal again
	 * to the process group, where the watcher thread would take it.
	 */
	rl_catch_signals = 0;
	rl_attempted_completion_function = complete;
	/* A backslash begins a command's name: it breaks no word. */
	rl_basic_word_break_characters = " \t\n\"'`@$><=;|&{(,)";
	using_history();
	stifle_history(HISTORY_MAX);
	hist = history_path();
	if (hist != NULL)
		(void)read_history(hist);
	if (isatty(STDERR_FILENO) && sc_log_level >= SC_LOG_WARN)
		fprintf(stderr,
		    "sc-exec %s on %s; statements end with ';', \\? for help, "
		    "^D to leave\n",
		    SCTK_VERSION, sc_client_server(x->c));
	while (go) {
		line = read_line(p.sql.len == 0 ? "sc-exec> " : "     ... ",
		    &dropped);
		if (dropped) {
			/* ^C: the line, and the statement typed so far. */
			fputs("\n", stdout);
			fflush(stdout);
			sc_buf_reset(&p.sql);
			p.detach_next = false;
			continue;
		}
		if (line == NULL) {
			fputc('\n', stdout);
			if (unfinished(&p))
				say("the statement typed last has no ';' at its end: not run");
			break;
		}
		for (s = line; *s == ' ' || *s == '\t'; s++)
			;
		if (*s == '\\') {
			if (!is_last(line))
				add_history(line);
			go = meta(&p, s);
			/* \detach ends the statement typed so far. */
			if (go && p.detach_next && p.sql.len > 0 &&
			    sc_buf_add(&p.sql, ";", 1, NULL) == 0) {
				run_typed(&p, NULL, (const char *)p.sql.data,
				    p.sql.len);
				sc_buf_reset(&p.sql);
			}
			free(line);
			continue;
		}
		if (sc_buf_add(&p.sql, line, strlen(line), NULL) == -1 ||
		    sc_buf_add(&p.sql, "\n", 1, NULL) == -1) {
			say("statement longer than %lu bytes; dropped",
			    (unsigned long)TYPED_MAX);
			sc_buf_reset(&p.sql);
		}
		free(line);
		done = sql_complete((const char *)p.sql.data, p.sql.len);
		if (done == 0)
			continue;
		remember(&p, done);
		run_typed(&p, NULL, (const char *)p.sql.data, done);
		memmove(p.sql.data, p.sql.data + done, p.sql.len - done);
		sc_buf_setlen(&p.sql, p.sql.len - done);
		/* What follows the last ';' waits for more, unless blank. */
		for (s = (char *)p.sql.data; *s == ' ' || *s == '\n'; s++)
			;
		if (*s == '\0')
			sc_buf_reset(&p.sql);
	}
	if (hist != NULL) {
		(void)write_history(hist);
		free(hist);
	}
	sc_buf_release(&p.sql);
	return 0;
}
