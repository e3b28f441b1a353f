/* SPDX-License-Identifier: MIT */

/*
 * sc-exec.h: the parts of sc-exec shared between its files: the options
 * and the run (main.c), running operations (run.c), statement splitting
 * (sql.c), result rendering (render.c) and the progress line
 * (progress.c).
 */

#ifndef SC_EXEC_H
#define SC_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/client.h"
#include "core/cli.h"
#include "core/conn.h"
#include "core/output.h"
#include "core/plan.h"
#include "core/reattach.h"
#include "core/retry.h"

struct sc_buf;
struct sc_client;
struct sc_error;
struct sc_result_arrow;
struct sc_result_progress;
struct sc_result_schema;
struct render;

/* --------------------------------------------------- main.c and run.c */

/* Repeated option values, borrowed from argv. */
struct list {
	const char **v;
	size_t n;
};

/* The command line, as main.c parsed and checked it. */
struct opts {
	struct sc_cli_common common;
	struct sc_conn_opts conn;
	const char *sql, *plan_file, *attach, *after, *opid, *null_text;
	const char *output; /* -o, or NULL */
	struct list files; /* -f, in order */
	struct sc_plan_param *params; /* --param or --arg, in order */
	size_t nparams;
	bool named, positional; /* --param, --arg seen */
	bool stdin_script; /* no work given, standard input is not a tty */
	bool prompt; /* no work given, standard input is a terminal */
	bool analyze, detach, no_reattach, has_range, arrow, no_pager;
	int64_t range[3];
	int format, header, progress; /* -1: default */
	uint64_t max_retries, max_rows; /* UINT64_MAX, 0: default */
	int64_t segment_ms, watchdog_ms; /* -1: default */
	struct list tags;
	struct list confs; /* --conf key=value, in order */
};

/* What the run needs; one per process, set up by main.c. */
struct run {
	struct opts *o;
	struct sc_client *c;
	struct render *r;
	struct sc_retry_policy policy;
	struct sc_reattach_opts ro;
	const struct timespec *deadline;
	FILE *out; /* stdout, of.fp, or term.c's stream */
	bool tty; /* out is term.c's */
	struct sc_outfile of; /* -o */
	bool detached; /* --detach has printed the operation id */
	uint64_t reattaches; /* streams after each operation's first */
	bool interactive; /* at the prompt: ^C ends a statement only */
	bool detach_once; /* the prompt's \detach: this statement */
	bool own_session; /* x->c is a session of the statement's own */
	char after_error[256]; /* printed after the error, if not "" */
	bool progress_later; /* SQL typed on the terminal: once it is read */
	const char *tag; /* "DELETE" for the statement running, or NULL */
	int64_t affected; /* rows it changed, as the server said, or -1 */
};

/* --------------------------------------------------------------- main.c */

/* The client's events (sc_client_opts.on_event): -v lines, deferred warnings. */
void on_event(const struct sc_client_event *ev, void *arg);

/* ---------------------------------------------------------------- run.c */

/*
 * Do what the options ask: attach, or run the range, the plan or each
 * SQL statement, rendering the rows (or, with --analyze, the schema).
 * 0, or -1 with err set.  After a signal it waits for the signal thread
 * to end the process.
 */
int run_all(struct run *x, struct sc_error *err);

/*
 * Run SQL text typed at the prompt (name NULL) or read by its \i (name:
 * the file's, for "file:line:" in messages), statement by statement, as
 * a script.  0, or -1 with err set.
 */
int run_sql(struct run *x, const char *name, const char *text, size_t n,
    struct sc_error *err);

/* Make x->r anew for the options' format (the prompt's \format). */
void run_make_render(struct run *x);

/* ------------------------------------------------------------- prompt.c */

/*
 * Before any thread starts: SIGINT goes to a watcher thread that ends
 * the statement running (its operation is released, so the server
 * stops it), or, at the prompt, to the line editor.  0, or -1 with err
 * set.
 */
int prompt_signals_start(struct sc_error *err);
/* The operation ^C ends now (NULL: none). */
void prompt_watch(struct sc_reattach *it);
/*
 * Read statements at a prompt with line editing and history, until \q
 * or ^D, and run each as it is complete.  Errors are reported and the
 * prompt goes on; 0 at the end.
 */
int prompt_run(struct run *x, struct sc_error *err);

/* ---------------------------------------------------------------- sql.c */

struct sql_stmt {
	char *text; /* malloc'ed, trimmed */
	size_t line; /* line of its first character that is not a comment */
};

/*
 * Split SQL text into statements at ';' outside quotes ('...', "...",
 * `...`, with backslash escapes in the first two), line comments (--)
 * and nestable block comments.  Statements are trimmed; those holding
 * only blanks and comments are dropped.  Returns the count and stores a
 * malloc'ed array in *out (free with sql_free_statements()).
 */
size_t sql_split(const char *sql, size_t n, struct sql_stmt **out);
void sql_free_statements(struct sql_stmt *v, size_t n);

/*
 * The length of the longest prefix of sql that ends with a ';' of its
 * own (outside quotes and comments): the statements ready to run as a
 * prompt reads lines.  0 if there is none.
 */
size_t sql_complete(const char *sql, size_t n);

/*
 * Refuse SQL text that a server would read differently from the user:
 * a NUL byte (the text would end there) or bytes that are not UTF-8 (a
 * server replaces them).  0, or -1 with err set (SC_ST_USAGE,
 * "<name>:<line>: ...").
 */
int sql_check_text(const char *p, size_t n, const char *name,
    struct sc_error *err);

/* ------------------------------------------------------------ render.c */

enum render_mode {
	RENDER_TEXT = 0, /* table, CSV, TSV, JSON lines */
	RENDER_ARROW /* one raw Arrow IPC stream per result */
};

struct render_opts {
	enum render_mode mode;
	enum sc_out_format format; /* RENDER_TEXT */
	bool header;
	const char *null_text; /* NULL: the format's default */
	uint64_t max_rows; /* 0: no limit (text only) */
	size_t page_rows; /* table: records per page; 0: the default */
};

struct render;

struct render *render_new(FILE *fp, const struct render_opts *o);
void render_free(struct render *r);
/* Start a new result (one operation's rows). */
void render_begin(struct render *r);
/*
 * Write one ArrowBatch.  0 to go on, 1 when a row past --max-rows came (the
 * caller stops reading), -1 with err set: SC_ST_PROTOCOL for bad data or
 * row counts, SC_ST_IO for a write error.
 */
int render_batch(struct render *r, const struct sc_result_arrow *b,
    struct sc_error *err);
/*
 * Write the Arrow IPC stream of a LocalRelation (a command's output), as
 * render_batch() does, without the row count checks.
 */
int render_local(struct render *r, const void *p, size_t n,
    struct sc_error *err);
/* A result's schema, used for the header if no batch comes. */
void render_schema(struct render *r, const struct sc_result_schema *schema);
/* Finish the current result (flush the table, write end-of-stream). */
int render_end(struct render *r, struct sc_error *err);
/* Rows and Arrow bytes written so far, over all results. */
uint64_t render_rows(const struct render *r);
uint64_t render_bytes(const struct render *r);
/* Results --max-rows cut short so far. */
uint64_t render_cut(const struct render *r);

/* ----------------------------------------------------------- progress.c */

/* Turn the progress line on (it is drawn on stderr only), or off. */
void progress_enable(bool on);
bool progress_enabled(void);
/* Count rows, bytes and time from zero again (a new statement). */
void progress_restart(void);
/*
 * Results were written to the terminal the line shares (lock held:
 * between progress_lock() and progress_unlock()); whether they end at
 * the start of a line, where the progress line may be drawn.
 */
void progress_output(bool at_line_start);
/* Record rows/bytes so far and, at most every 200 ms, redraw. */
void progress_update(uint64_t rows, uint64_t bytes);
/* Record the execution's progress. */
void progress_stages(const struct sc_result_progress *p);
/* Erase the line (before other stderr output, and at the end). */
void progress_clear(void);
/*
 * A few words after the figures (a retry: "reconnecting to 'h:15002',
 * attempt 5, next in 12.8s") until rows or bytes come again.
 */
void progress_note(const char *text);
/* Lock around other stderr output so lines are not interleaved. */
void progress_lock(void);
void progress_unlock(void);

/* --------------------------------------------------------------- term.c */

/*
 * A stdio stream for results on the terminal standard output is: each
 * write erases the progress line first, and with pager, output taller
 * than the screen goes to $PAGER (default "less -S").  Returns stdout if
 * the stream cannot be made.
 */
FILE *term_open(bool pager);
/* The terminal's height in rows (24 if unknown). */
size_t term_rows(void);
/* A new piece of output (an interactive statement): decide afresh. */
void term_begin(void);
/*
 * The piece is done: write what was held, or close the pager and wait
 * for the user to leave it.  0, or -1 with errno.
 */
int term_end(void);
/* Whether the user quit the pager before the output ended. */
bool term_pager_quit(void);
/* From the signal thread: close the pager's pipe and wait for it. */
void term_kill_pager(void);
/* term_end() and close the stream. */
void term_close(void);

/* How long the end of the run, or an interrupt, waits for releases. */
#define RELEASE_WAIT_MS 5000
#define INTERRUPT_WAIT_MS 2000

/* options.c: the command line. */
extern const char usage_text[];
void parse_args(struct opts *o, int argc, char **argv);
void validate(const struct opts *o);
void opts_release(struct opts *o);

#endif
