/* SPDX-License-Identifier: MIT */

/*
 * sc-inspect.h: the parts of sc-inspect shared between its files: the
 * options (main.c), the listings (print.c), the event lines of watch
 * --follow (follow.c), the full-screen view (view.c) and terminal text
 * (text.c).
 */

#ifndef SC_INSPECT_CMD_H
#define SC_INSPECT_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/inspect.h"
#include "core/cli.h"
#include "core/conn.h"
#include "core/error.h"
#include "core/output.h"

/* ---------------------------------------------------------- main.c */

enum command {
	CMD_LIST = 0,
	CMD_SHOW,
	CMD_SESSIONS,
	CMD_TOMBSTONES,
	CMD_STATS,
	CMD_WATCH
};

#define MAX_FIELDS 32
/* --format prometheus (stats only): not an enum sc_out_format. */
#define FORMAT_PROMETHEUS 1000

/* The command line, as main.c parsed and checked it. */
struct opts {
	struct sc_cli_common common;
	struct sc_conn_opts conn;
	enum command cmd;
	const char *opid; /* show */
	const char *admin_token; /* --admin-token or $SCTK_ADMIN_TOKEN */
	/* Filters. */
	const char *session, *user, *tag;
	enum sc_inspect_state states[SC_INSPECT_NSTATES];
	size_t nstates;
	int64_t detached_for_ms, older_than_ms; /* -1: not given */
	/* Output. */
	int format; /* enum sc_out_format, FORMAT_PROMETHEUS, or -1 */
	int header; /* 1; --no-header: 0 */
	bool ids, artifacts, follow;
	const char *fields; /* --fields, or NULL */
	int64_t interval_ms; /* watch view refresh */
};

/* The kind of record the command writes. */
enum sc_inspect_rec opts_rec(const struct opts *o);

/* The filter the options make (pointers into o). */
void opts_filter(const struct opts *o, struct sc_inspect_filter *f);

/* The per-call deadline of a long-running mode: -t, else 10 s. */
void call_deadline(const struct opts *o, struct timespec *dl);

/* --------------------------------------------------------- print.c */

/* How records are written: a format and the fields, in order. */
struct printer {
	enum sc_inspect_rec rec;
	enum sc_out_format format;
	bool vertical; /* table of one record: one line per field */
	bool header;
	bool pairs; /* --ids of operations in any session: "session/op" */
	size_t fit_cols; /* a terminal's width for the default fields, or 0 */
	size_t cut_width; /* the last field cut to this width ('+'), or 0 */
	size_t idx[MAX_FIELDS];
	size_t n;
	struct sc_inspect_render how;
	struct sc_output *out;
	struct sc_buf *cells; /* n buffers */
};

/*
 * Set p up for records of kind rec as the options ask (format, fields,
 * --ids, --no-header); vertical for a table of one record.  0, or -1
 * with err set (a bad --fields).
 */
int printer_init(struct printer *p, const struct opts *o,
    enum sc_inspect_rec rec, bool vertical, struct sc_error *err);
/*
 * On a terminal, with the default fields: make the n records of size
 * bytes at recs fit p->fit_cols, as top does: the statement (a last field
 * of free text) is cut to what is left, and the widest fields go (all
 * but the first) until the rest fits.
 */
void printer_fit(struct printer *p, const void *recs, size_t n, size_t size);
/* Write the header (if any); then printer_row() per record. */
int printer_start(struct printer *p, struct sc_error *err);
int printer_row(struct printer *p, const void *rec, struct sc_error *err);
int printer_finish(struct printer *p, struct sc_error *err);
void printer_release(struct printer *p);

/* list, show, sessions, tombstones, stats: the exit status. */
int run_print(const struct opts *o, struct sc_inspect *a);

/* ---------------------------------------------------------- prom.c */

/* stats --format prometheus: the exit status. */
int run_prometheus(const struct opts *o, struct sc_inspect *a);

/* -------------------------------------------------------- follow.c */

/* watch --follow: the exit status. */
int run_follow(const struct opts *o, struct sc_inspect *a);

/* ---------------------------------------------------------- view.c */

/* watch: the full-screen view; the exit status. */
int run_view(const struct opts *o, struct sc_inspect *a);

/* ---------------------------------------------------------- text.c */

/*
 * The columns text takes on a terminal, in the current locale: control
 * characters and bytes that are not valid there count as 1 (they are
 * shown as one '?', see text_fit()).
 */
size_t text_width(const char *s);

/*
 * Append to b at most width columns of s, control characters and
 * invalid bytes as '?', then spaces up to width when pad (on the left
 * when right).  NUL-terminated.
 */
void text_fit(struct sc_buf *b, const char *s, size_t width, bool pad,
    bool right);

/* Whether standard output is a pipe whose reader has gone. */
bool stdout_gone(void);

#endif
