/* SPDX-License-Identifier: MIT */

/*
 * sc-release.h: the parts of sc-release shared between its files: the
 * options (main.c), the operation ids to act on (ids.c), the output
 * lines and the exit status (report.c) and the calls (run.c).
 */

#ifndef SC_RELEASE_H
#define SC_RELEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "core/cli.h"
#include "core/conn.h"
#include "core/error.h"

struct sc_client;
struct sc_output;

/* ---------------------------------------------------------- main.c */

enum format { FORMAT_TEXT = 0, FORMAT_JSONL };

struct tags {
	const char **v;
	size_t n;
};

/* The command line, as main.c parsed and checked it. */
struct opts {
	struct sc_cli_common common;
	struct sc_conn_opts conn;
	bool all, dry_run, interrupt, session;
	const char *until; /* --until, or NULL */
	int format; /* enum format */
	struct tags tags; /* --tag, in order */
	char **operands; /* operation ids and "-", argv's */
	size_t noperands;
};

/* ------------------------------------------------------------ ids.c */

/*
 * One operation id to act on, from an operand or a line of input: an
 * operation id, or "session/operation" (what sc-inspect list --ids
 * prints for operations of any session).
 */
struct target {
	const char *id; /* trimmed text (argv's or the input's), as shown */
	const char *op; /* the operation id: id, or what follows its '/' */
	char *session; /* the pair's session id (owned), or NULL */
	size_t line; /* line of standard input, 0 for an operand */
	bool valid; /* a UUID, or a pair of them */
};

struct targets {
	struct target *v;
	size_t n, cap;
	char *input; /* standard input's bytes, which ids point into */
};

/*
 * The ids of the operands, in order, with "-" replaced by the lines of
 * standard input: whitespace around each is trimmed, blank lines and
 * lines starting with '#' are skipped.  An id that is not a UUID is kept
 * with valid false (reported when its turn comes).  0, or -1 with err
 * set (cannot read standard input, or it is too large).  Free with
 * targets_release().
 */
int targets_read(struct targets *t, char *const *operands, size_t n,
    struct sc_error *err);
void targets_release(struct targets *t);

/* --------------------------------------------------------- report.c */

/* What happened to one operation (or to the session). */
enum result {
	RESULT_RELEASED = 0,
	RESULT_ALREADY_GONE,
	RESULT_INTERRUPTED,
	RESULT_DRY_RUN,
	RESULT_ERROR
};

/* What was asked, as the output names it. */
enum action {
	ACTION_RELEASE = 0, /* ReleaseExecute, ReleaseAll */
	ACTION_RELEASE_UNTIL, /* ReleaseExecute, ReleaseUntil */
	ACTION_INTERRUPT, /* Interrupt, then ReleaseAll */
	ACTION_RELEASE_SESSION /* ReleaseSession */
};

/* The output lines, and the exit status they add up to. */
struct report {
	struct sc_output *out;
	bool jsonl; /* else text */
	bool quiet; /* write error lines only */
	int status; /* the highest status of any line so far */
	struct sc_error worst; /* the first error with that status */
	size_t nlines, nfailed;
};

void report_init(struct report *r, enum format f, bool quiet);
void report_release(struct report *r);

/*
 * Write the line for id: the action, its result, and detail (for
 * RELEASED: the response id of a ReleaseUntil; for DRY_RUN: what would
 * be done, "would ..."; else NULL) or, for RESULT_ERROR, the error e.
 * 0, or -1 with err set when standard output cannot be written.
 */
int report_line(struct report *r, const char *id, enum action a,
    enum result res, const char *detail, const struct sc_error *e,
    struct sc_error *err);

/* Write what is buffered; 0, or -1 with err set. */
int report_finish(struct report *r, struct sc_error *err);

/* ------------------------------------------------------------ run.c */

/*
 * Do what the options ask on client c, a line per operation into r.
 * session NULL: the session-wide work (--interrupt --all/--tag,
 * --session) and the targets without a session of their own, plus every
 * target that is no id (reported, nothing sent); c is then the session
 * of --session-id, or NULL when none of that needs a call.  Else only
 * the valid pairs of that session, c being a client of it.  0
 * (r->status then holds the exit status), or -1 with err set when the
 * output failed.
 */
int run(const struct opts *o, const struct targets *t, struct sc_client *c,
    const char *session, struct report *r, struct sc_error *err);

/* Whether run(o, t, c, NULL, ...) makes calls, needing --session-id. */
bool run_needs_session(const struct opts *o, const struct targets *t);

#endif
