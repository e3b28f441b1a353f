/* SPDX-License-Identifier: MIT */

/*
 * view.c: watch, a full-screen view of the executions (ncurses, like
 * top): a summary of the server, one line per execution, sortable by any
 * column, a detail pane for the selected one, and keys to release or
 * interrupt it after a confirmation.
 *
 * On a narrow screen the columns shrink as top's do: the statement takes
 * what is left, a cut value ends in '+', and the columns of least use go
 * first when even that is too narrow.  '/' searches the rows, '\' shows
 * only the rows that hold a text, '?' lists the keys.
 *
 * One thread does everything: it lists the executions every interval
 * (ListExecutions and GetStats, each bounded by the per-call deadline)
 * and waits for keys a tenth of a second at a time in between.  SIGINT,
 * SIGTERM and SIGHUP only set a flag, so the loop ends the view, gives
 * the terminal back, and then dies of the signal as a filter would.
 */

#include "sc-inspect.h"

#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/client.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "core/banned.h"

#define KEY_WAIT_MS 100
#define DEFAULT_INTERVAL_MS 2000
#define CTRL(c) ((c)&0x1f)

/* A column of the view: a field of the execution, and how to show it. */
struct col {
	const char *title;
	const char *field;
	int width; /* 0: the rest of the line */
	bool right;
};

static const struct col cols[] = {
	{ "OPERATION", "operation_id", 36, false },
	{ "USER", "user_id", 10, false },
	{ "STATE", "state", 8, false },
	{ "ATT", "attached", 3, false },
	{ "DETACHED", "detached_for", 8, true },
	{ "ABANDON", "abandon_in", 8, true },
	{ "ROWS", "rows_sent", 10, true },
	{ "SENT", "responses_sent", 6, true },
	{ "BUFFERED", "buffered_bytes", 9, true },
	{ "AGE", "created", 7, true },
	{ "STATEMENT", "statement", 0, false },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))
#define COL_AGE 9
#define COL_STATEMENT 10

/* The columns that go on a narrow screen, the least useful first. */
static const size_t drop_order[] = { 5, 7, 3, 4, 8, 6, 1, 9 };
/* The statement keeps at least this many columns while others can go. */
#define STATEMENT_MIN 16

enum action { ACT_NONE = 0, ACT_RELEASE, ACT_INTERRUPT };

struct view {
	const struct opts *o;
	struct sc_inspect *a;
	struct sc_inspect_filter filter;
	int64_t interval_ms;

	struct sc_inspect_exec_list list;
	struct sc_inspect_stats stats;
	bool has_stats;
	int64_t now_ms; /* the server's clock at the last listing */
	int field[NCOLS]; /* each column's field index */

	size_t sort; /* column */
	bool desc;
	size_t *vis; /* the rows shown (list indexes), nvis of them */
	size_t nvis;
	size_t sel; /* selected row, an index into vis */
	char sel_id[128]; /* its operation id, kept across listings */
	size_t top; /* first row shown */
	int width[NCOLS]; /* for this screen; -1: not shown */

	char msg[1200]; /* the message line */
	bool stale; /* the last listing failed: msg says so */
	int64_t listed_ms; /* wall clock of the last listing that worked */
	enum action confirm; /* waiting for y/n */
	char act_op[128], act_session[128], act_user[256];
	bool help; /* the key list fills the screen */
	int input; /* '/' or '\' while a text is typed, else 0 */
	char typed[128];
	char search[128]; /* the last '/' text */
	char only[128]; /* '\': rows holding this text only ("": all) */

	struct sc_buf line;
	struct sc_buf cell;
};

static volatile sig_atomic_t got_signal;

static void
on_signal(int sig)
{
	got_signal = sig;
}

static void
catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: the wait for a key ends at once. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* ----------------------------------------------------------- the data */

static struct view *sort_view; /* qsort's context */

static int
cmp_rows(const void *pa, const void *pb)
{
	const struct view *v = sort_view;
	int c = sc_inspect_field_cmp(SC_INSPECT_REC_EXEC, pa, pb,
	    (size_t)v->field[v->sort], v->now_ms);

	/* AGE runs against the creation time: an older one is older. */
	if (v->sort == COL_AGE)
		c = -c;
	return v->desc ? -c : c;
}

/* Whether execution x holds text (any case) in an id, its user, state or statement. */
static bool
holds(const struct sc_inspect_exec *x, const char *text)
{
	const char *f[] = { x->operation_id, x->session_id, x->user_id,
		x->statement, sc_inspect_state_name(x->state) };
	size_t i;

	for (i = 0; i < SC_NELEM(f); i++)
		if (f[i] != NULL && strcasestr(f[i], text) != NULL)
			return true;
	return false;
}

/* The execution in row i of those shown. */
static struct sc_inspect_exec *
row(const struct view *v, size_t i)
{
	return &v->list.v[v->vis[i]];
}

static void
sort_rows(struct view *v)
{
	size_t i;

	sort_view = v;
	if (v->list.n > 1)
		qsort(v->list.v, v->list.n, sizeof(v->list.v[0]), cmp_rows);
	sort_view = NULL;
	v->vis = sc_xreallocarray(v->vis, v->list.n > 0 ? v->list.n : 1,
	    sizeof(*v->vis));
	for (i = 0, v->nvis = 0; i < v->list.n; i++)
		if (v->only[0] == '\0' || holds(&v->list.v[i], v->only))
			v->vis[v->nvis++] = i;
	/* Keep the selection on the same operation. */
	for (i = 0; i < v->nvis; i++)
		if (strcmp(row(v, i)->operation_id, v->sel_id) == 0) {
			v->sel = i;
			break;
		}
	if (i == v->nvis && v->sel >= v->nvis)
		v->sel = v->nvis > 0 ? v->nvis - 1 : 0;
	if (v->nvis > 0)
		snprintf(v->sel_id, sizeof(v->sel_id), "%s",
		    row(v, v->sel)->operation_id);
	else
		v->sel_id[0] = '\0';
}

/*
 * List the executions and the statistics.  0, or -1 with err set (the
 * view keeps what it showed).
 */
static int
reload(struct view *v, struct sc_error *err)
{
	struct sc_inspect_exec_list l;
	struct sc_inspect_stats st;
	struct timespec dl;

	call_deadline(v->o, &dl);
	if (sc_inspect_list(v->a, &v->filter, 0, &l, &dl, err) == -1)
		return -1;
	sc_inspect_exec_list_release(&v->list);
	v->list = l;
	v->now_ms = l.server_time_ms > 0 ? l.server_time_ms : sc_realtime_ms();
	v->has_stats = sc_inspect_stats(v->a, &st, &dl, NULL) == 0;
	if (v->has_stats)
		v->stats = st;
	v->listed_ms = sc_realtime_ms();
	if (v->stale) {
		/* Back: the error no longer holds. */
		v->msg[0] = '\0';
		v->stale = false;
	}
	sort_rows(v);
	if (l.truncated)
		snprintf(v->msg, sizeof(v->msg),
		    "showing the first %zu executions (the server's limit)",
		    l.n);
	return 0;
}

/* ---------------------------------------------------------- the screen */

/* Put text at (y, x), at most width columns, padded when pad. */
static void
put(struct view *v, int y, int x, const char *s, int width, bool pad,
    bool right)
{
	if (width <= 0)
		return;
	sc_buf_reset(&v->line);
	text_fit(&v->line, s, (size_t)width, pad, right);
	mvaddnstr(y, x, (const char *)v->line.data, (int)v->line.len);
}

/*
 * The columns' widths on this screen: the operation id's first part
 * below 130 columns; then, while the statement would have fewer than
 * STATEMENT_MIN columns, the next of drop_order[] goes; the statement
 * takes the rest.
 */
static void
layout(struct view *v)
{
	size_t c, k;
	int used = 0;

	for (c = 0; c < NCOLS; c++)
		v->width[c] = cols[c].width;
	if (COLS < 130)
		v->width[0] = 9; /* the operation id's first part */
	for (c = 0; c < NCOLS; c++)
		if (c != COL_STATEMENT)
			used += v->width[c] + 1;
	for (k = 0; k < SC_NELEM(drop_order) && COLS - used < STATEMENT_MIN;
	     k++) {
		used -= v->width[drop_order[k]] + 1;
		v->width[drop_order[k]] = -1;
	}
	v->width[COL_STATEMENT] = COLS - used > 0 ? COLS - used : -1;
}

/*
 * Put text at (y, x) in width columns, padded; cut text ends in '+' (as
 * in top), but for the operation id, whose first part is its short form.
 */
static void
put_cell(struct view *v, int y, int x, const char *s, int width, size_t c)
{
	if (c != 0 && width > 1 && text_width(s) > (size_t)width) {
		sc_buf_reset(&v->line);
		text_fit(&v->line, s, (size_t)width - 1, true, false);
		(void)sc_buf_addch(&v->line, '+', NULL);
		mvaddnstr(y, x, (const char *)v->line.data, (int)v->line.len);
		return;
	}
	put(v, y, x, s, width, true, cols[c].right);
}

/* The text of column c for execution x. */
static const char *
cell(struct view *v, const struct sc_inspect_exec *x, size_t c)
{
	struct sc_inspect_render how = { true, false, v->now_ms };
	char d[SC_INSPECT_NUM_STRLEN];

	if (c == COL_AGE) {
		if (x->created_at_ms <= 0)
			return "-";
		sc_inspect_format_duration(v->now_ms - x->created_at_ms, true,
		    d);
		sc_buf_reset(&v->cell);
		(void)sc_buf_addstr(&v->cell, d, NULL);
		return (const char *)v->cell.data;
	}
	if (strcmp(cols[c].field, "attached") == 0)
		return x->attached ? "yes" : "no";
	if (sc_inspect_field_value(SC_INSPECT_REC_EXEC, x, (size_t)v->field[c],
		&how, &v->cell) == SC_OUT_NULL)
		return "-";
	return (const char *)v->cell.data;
}

/* One line of columns at y: the titles, or execution x. */
static void
draw_row(struct view *v, int y, const struct sc_inspect_exec *x)
{
	char title[64];
	size_t c;
	int xpos = 0, w;

	for (c = 0; c < NCOLS && xpos < COLS; c++) {
		if ((w = v->width[c]) < 0)
			continue;
		if (xpos + w > COLS)
			w = COLS - xpos;
		if (x == NULL) {
			snprintf(title, sizeof(title), "%s%s", cols[c].title,
			    c == v->sort ? (v->desc ? "v" : "^") : "");
			if (c == v->sort)
				attron(A_BOLD);
			put(v, y, xpos, title, w, true, cols[c].right);
			if (c == v->sort)
				attroff(A_BOLD);
		} else
			put_cell(v, y, xpos, cell(v, x, c), w, c);
		xpos += w;
		if (xpos < COLS) {
			mvaddch(y, xpos, ' ');
			xpos++;
		}
	}
}

/*
 * Line 0: the server, who asks, the time.  Line 1: the executions shown,
 * by state; then the server's own figures.
 */
static void
draw_summary(struct view *v)
{
	const struct sc_inspect_stats *s = &v->stats;
	char clock[SC_INSPECT_TIME_STRLEN], b1[SC_INSPECT_NUM_STRLEN],
	    b2[SC_INSPECT_NUM_STRLEN];
	size_t by[SC_INSPECT_NSTATES] = { 0 }, i;
	struct sc_buf t;
	int k;
	bool first = true;

	sc_buf_init(&t, 4096);
	sc_inspect_format_time(sc_realtime_ms(), true, clock);
	if (v->o->admin_token != NULL)
		(void)sc_buf_addf(&t, NULL, "sc-inspect  %s  admin  %s",
		    sc_inspect_server(v->a), clock);
	else
		(void)sc_buf_addf(&t, NULL, "sc-inspect  %s  user '%s'  %s",
		    sc_inspect_server(v->a), sc_inspect_user_id(v->a), clock);
	put(v, 0, 0, (const char *)t.data, COLS, true, false);
	sc_buf_reset(&t);
	for (i = 0; i < v->list.n; i++)
		by[v->list.v[i].state]++;
	(void)sc_buf_addf(&t, NULL, "executions %zu", v->list.n);
	if (v->only[0] != '\0')
		(void)sc_buf_addf(&t, NULL, " (%zu shown)", v->nvis);
	for (k = 1; k <= SC_INSPECT_NSTATES; k++)
		if (by[k % SC_INSPECT_NSTATES] > 0) {
			(void)sc_buf_addf(&t, NULL, "%s %s %zu",
			    first ? ":" : ",",
			    sc_inspect_state_name((enum sc_inspect_state)(
				k % SC_INSPECT_NSTATES)),
			    by[k % SC_INSPECT_NSTATES]);
			first = false;
		}
	if (v->has_stats) {
		sc_inspect_format_size(s->buffered_bytes, b1);
		sc_inspect_format_duration(s->uptime_ms, true, b2);
		(void)sc_buf_addf(&t, NULL,
		    "   server: sessions %lld, buffered %s, streams %lld, up %s",
		    (long long)s->sessions, b1, (long long)s->streams_open, b2);
	}
	put(v, 1, 0, (const char *)t.data, COLS, true, false);
	sc_buf_release(&t);
}

/*
 * The detail pane: a rule; the ids (fields 0-3) on one line; the other
 * fields but the statement in columns DETAIL_COL wide; the statement.
 */
#define DETAIL_COL 40
#define DETAIL_IDS 4

static int
detail_per_line(void)
{
	return COLS / DETAIL_COL > 0 ? COLS / DETAIL_COL : 1;
}

/* The lines the detail pane takes on this screen (0: none). */
static int
detail_lines(void)
{
	int per = detail_per_line();
	int nf = (int)sc_inspect_nfields(SC_INSPECT_REC_EXEC) - DETAIL_IDS - 1;
	int n = 3 + (nf + per - 1) / per; /* the rule, ids, statement */

	return LINES - 5 - n >= 3 ? n : 0;
}

/* "name: value" of field i of x, appended to t. */
static void
detail_field(struct view *v, const struct sc_inspect_exec *x, size_t i,
    struct sc_buf *t)
{
	struct sc_inspect_render how = { true, false, v->now_ms };

	if (sc_inspect_field_value(SC_INSPECT_REC_EXEC, x, i, &how, &v->cell) ==
	    SC_OUT_NULL)
		(void)sc_buf_addf(t, NULL, "%s: -",
		    sc_inspect_field_name(SC_INSPECT_REC_EXEC, i));
	else
		(void)sc_buf_addf(t, NULL, "%s: %s",
		    sc_inspect_field_name(SC_INSPECT_REC_EXEC, i),
		    (const char *)v->cell.data);
}

static void
draw_detail(struct view *v, int y0, int n)
{
	const struct sc_inspect_exec *x;
	size_t i, nf = sc_inspect_nfields(SC_INSPECT_REC_EXEC) - 1;
	int per = detail_per_line(), k;
	struct sc_buf t;

	mvhline(y0, 0, ACS_HLINE, COLS);
	if (v->nvis == 0 || n == 0)
		return;
	x = row(v, v->sel);
	sc_buf_init(&t, 1 << 20);
	for (i = 0; i < DETAIL_IDS; i++) {
		if (i > 0)
			(void)sc_buf_addstr(&t, "  ", NULL);
		detail_field(v, x, i, &t);
	}
	put(v, y0 + 1, 0, (const char *)t.data, COLS, true, false);
	for (i = DETAIL_IDS; i < nf; i++) {
		sc_buf_reset(&t);
		detail_field(v, x, i, &t);
		k = (int)(i - DETAIL_IDS);
		put(v, y0 + 2 + k / per, (k % per) * DETAIL_COL,
		    (const char *)t.data, DETAIL_COL - 1, true, false);
	}
	sc_buf_reset(&t);
	detail_field(v, x, nf, &t);
	put(v, y0 + n - 1, 0, (const char *)t.data, COLS, true, false);
	sc_buf_release(&t);
}

static const char help_line[] =
    "q quit  ? help  j/k move  / search  \\ filter  </> sort  r release  i interrupt";

/* The keys, one per line, for '?' (and h, F1). */
static const char *const help_text[] = {
	"sc-inspect watch: keys (any key goes back)",
	"",
	"  q            quit",
	"  j k, arrows  move the selection; PgUp PgDn, g G: page, first, last",
	"  < >          sort by the column to the left or right",
	"  o            reverse the order",
	"  /            search: select the next row holding a text (ids,",
	"               user, state, statement; any case); n: the next one",
	"  \\            filter: show only the rows holding a text; \\ Enter",
	"               on an empty text shows them all again",
	"  r            release the selected operation (asks y/n)",
	"  i            interrupt the selected operation (asks y/n)",
	"  space        list again now; ^L redraws the screen",
	"  ? h F1       this help",
};

static void
draw_help(struct view *v)
{
	size_t i;

	for (i = 0; i < SC_NELEM(help_text) && (int)i < LINES; i++)
		put(v, (int)i, 0, help_text[i], COLS, true, false);
}

/*
 * The message line: a text being typed after its key; a question that
 * always ends in "(y/n)", its text cut with '+' to fit; else the message.
 */
static void
draw_message(struct view *v)
{
	static const char yn[] = " (y/n)";
	int w = COLS - (int)(sizeof(yn) - 1);

	if (v->input != 0) {
		sc_buf_reset(&v->cell);
		(void)sc_buf_addf(&v->cell, NULL, "%c%s", v->input, v->typed);
		put(v, 2, 0, (const char *)v->cell.data, COLS, true, false);
		return;
	}
	if (v->confirm == ACT_NONE) {
		put(v, 2, 0, v->msg, COLS, true, false);
		return;
	}
	attron(A_BOLD);
	sc_buf_reset(&v->line);
	if (w > 1 && text_width(v->msg) > (size_t)w) {
		text_fit(&v->line, v->msg, (size_t)w - 1, false, false);
		(void)sc_buf_addch(&v->line, '+', NULL);
	} else
		text_fit(&v->line, v->msg, w > 0 ? (size_t)w : 0, false, false);
	(void)sc_buf_addstr(&v->line, yn, NULL);
	mvaddnstr(2, 0, (const char *)v->line.data, (int)v->line.len);
	attroff(A_BOLD);
}

static void
draw(struct view *v)
{
	int nd = detail_lines(), rows = LINES - 5 - nd, y;
	size_t i;

	erase();
	layout(v);
	if (v->help) {
		draw_help(v);
		refresh();
		return;
	}
	draw_summary(v);
	draw_message(v);
	attron(A_REVERSE);
	draw_row(v, 3, NULL);
	attroff(A_REVERSE);
	if (rows < 1)
		rows = 1;
	if (v->sel < v->top)
		v->top = v->sel;
	if (v->sel >= v->top + (size_t)rows)
		v->top = v->sel - (size_t)rows + 1;
	for (i = v->top, y = 4; i < v->nvis && y < 4 + rows; i++, y++) {
		if (i == v->sel)
			attron(A_REVERSE);
		/* Rows of a listing that failed since are dim. */
		if (v->stale)
			attron(A_DIM);
		draw_row(v, y, row(v, i));
		attroff(A_REVERSE | A_DIM);
	}
	if (nd > 0)
		draw_detail(v, LINES - 1 - nd, nd);
	put(v, LINES - 1, 0, help_line, COLS, false, false);
	refresh();
}

/* ------------------------------------------------------------- actions */

static void
ask(struct view *v, enum action a)
{
	const struct sc_inspect_exec *x;

	if (v->nvis == 0) {
		snprintf(v->msg, sizeof(v->msg), "no execution selected");
		return;
	}
	x = row(v, v->sel);
	snprintf(v->act_op, sizeof(v->act_op), "%s", x->operation_id);
	snprintf(v->act_session, sizeof(v->act_session), "%s", x->session_id);
	snprintf(v->act_user, sizeof(v->act_user), "%s", x->user_id);
	v->confirm = a;
	snprintf(v->msg, sizeof(v->msg),
	    "%s operation %s of session %s (user %s)?",
	    a == ACT_RELEASE ? "release" : "interrupt", v->act_op,
	    v->act_session, v->act_user);
}

/*
 * Release or interrupt the operation asked about, as its own user in its
 * own session, with the connection's other options (token, TLS, -H).
 */
static void
act(struct view *v)
{
	struct sc_client_strings ids = { NULL, 0 };
	struct sc_conn_opts co = v->o->conn;
	struct sc_client *c;
	struct timespec dl;
	struct sc_error err;
	bool found = false;
	int rc;

	sc_error_init(&err);
	co.session_id = v->act_session;
	co.user_id = v->act_user;
	call_deadline(v->o, &dl);
	if ((c = sc_client_connect(&co, NULL, &err)) == NULL)
		rc = -1;
	else if (v->confirm == ACT_RELEASE)
		rc = sc_client_release_execute(c, v->act_op, NULL, &found, &dl,
		    &err);
	else
		rc = sc_client_interrupt(c, SC_CLIENT_INTERRUPT_OPERATION,
		    v->act_op, &ids, &dl, &err);
	sc_client_free(c);
	if (rc == -1)
		snprintf(v->msg, sizeof(v->msg), "cannot %s operation %s: %s",
		    v->confirm == ACT_RELEASE ? "release" : "interrupt",
		    v->act_op, err.msg);
	else if (v->confirm == ACT_RELEASE)
		snprintf(v->msg, sizeof(v->msg),
		    found ? "released operation %s"
			  : "operation %s was already gone",
		    v->act_op);
	else
		snprintf(v->msg, sizeof(v->msg),
		    ids.n > 0 ? "interrupted operation %s"
			      : "operation %s was not running",
		    v->act_op);
	sc_client_strings_release(&ids);
	v->confirm = ACT_NONE;
}

static void
move_sel(struct view *v, long d)
{
	long s = (long)v->sel + d;

	if (v->nvis == 0)
		return;
	if (s < 0)
		s = 0;
	if (s >= (long)v->nvis)
		s = (long)v->nvis - 1;
	v->sel = (size_t)s;
	snprintf(v->sel_id, sizeof(v->sel_id), "%s",
	    row(v, v->sel)->operation_id);
}

/* Select the next row after the selection holding v->search, wrapping. */
static void
find_next(struct view *v)
{
	size_t i, k;

	if (v->search[0] == '\0')
		return;
	for (k = 1; k <= v->nvis; k++) {
		i = (v->sel + k) % v->nvis;
		if (holds(row(v, i), v->search)) {
			move_sel(v, (long)i - (long)v->sel);
			v->msg[0] = '\0';
			return;
		}
	}
	snprintf(v->msg, sizeof(v->msg), "no row holds '%s'", v->search);
}

/* A key while a text is typed after '/' or '\'. */
static void
typing(struct view *v, int ch)
{
	size_t n = strlen(v->typed);

	if (ch == '\r' || ch == '\n' || ch == KEY_ENTER) {
		if (v->input == '/') {
			snprintf(v->search, sizeof(v->search), "%s", v->typed);
			find_next(v);
		} else {
			snprintf(v->only, sizeof(v->only), "%s", v->typed);
			sort_rows(v);
			if (v->only[0] != '\0')
				snprintf(v->msg, sizeof(v->msg),
				    "showing the rows holding '%s'", v->only);
			else
				v->msg[0] = '\0';
		}
		v->input = 0;
	} else if (ch == 27 || ch == CTRL('g') || ch == CTRL('c'))
		v->input = 0;
	else if (ch == KEY_BACKSPACE || ch == 127 || ch == CTRL('h')) {
		if (n > 0)
			v->typed[n - 1] = '\0';
	} else if (ch >= 0x20 && ch < 0x7f && n + 1 < sizeof(v->typed)) {
		v->typed[n] = (char)ch;
		v->typed[n + 1] = '\0';
	}
}

/*
 * Handle key ch.  Returns 1 to quit, 2 to list again now, 0 otherwise.
 */
static int
key(struct view *v, int ch)
{
	int page = LINES - 5 - detail_lines();

	if (v->help) {
		v->help = false;
		return 0;
	}
	if (v->input != 0) {
		typing(v, ch);
		return 0;
	}
	if (v->confirm != ACT_NONE) {
		if (ch == 'y' || ch == 'Y') {
			act(v);
			return 2;
		}
		snprintf(v->msg, sizeof(v->msg), "nothing done");
		v->confirm = ACT_NONE;
		return 0;
	}
	switch (ch) {
	case 'q':
	case 'Q':
		return 1;
	case KEY_UP:
	case 'k':
		move_sel(v, -1);
		break;
	case KEY_DOWN:
	case 'j':
		move_sel(v, 1);
		break;
	case KEY_PPAGE:
		move_sel(v, -(long)(page > 1 ? page : 1));
		break;
	case KEY_NPAGE:
		move_sel(v, page > 1 ? page : 1);
		break;
	case KEY_HOME:
	case 'g':
		move_sel(v, -(long)v->list.n);
		break;
	case KEY_END:
	case 'G':
		move_sel(v, (long)v->list.n);
		break;
	case '<':
		do
			v->sort = v->sort > 0 ? v->sort - 1 : NCOLS - 1;
		while (v->width[v->sort] < 0);
		sort_rows(v);
		break;
	case '>':
		do
			v->sort = (v->sort + 1) % NCOLS;
		while (v->width[v->sort] < 0);
		sort_rows(v);
		break;
	case '?':
	case 'h':
	case KEY_F(1):
		v->help = true;
		break;
	case '/':
	case '\\':
		v->input = ch;
		v->typed[0] = '\0';
		break;
	case 'n':
		find_next(v);
		break;
	case 'o':
		v->desc = !v->desc;
		sort_rows(v);
		break;
	case 'r':
		ask(v, ACT_RELEASE);
		break;
	case 'i':
		ask(v, ACT_INTERRUPT);
		break;
	case ' ':
		return 2;
	case CTRL('l'):
		clearok(curscr, TRUE);
		return 2;
	default:
		break;
	}
	return 0;
}

/* ---------------------------------------------------------------- loop */

/* A listing failed: say why, and since when the rows have not changed. */
static void
stale(struct view *v, const struct sc_error *err)
{
	char t[SC_INSPECT_TIME_STRLEN];

	sc_inspect_format_time(v->listed_ms, true, t);
	snprintf(v->msg, sizeof(v->msg), "%s; the rows are as listed at %s",
	    err->msg, t);
	v->stale = true;
	v->confirm = ACT_NONE;
}

static void
view_release(struct view *v)
{
	sc_inspect_exec_list_release(&v->list);
	free(v->vis);
	sc_buf_release(&v->line);
	sc_buf_release(&v->cell);
}

int
run_view(const struct opts *o, struct sc_inspect *a)
{
	struct view v;
	struct sc_error err;
	int64_t next = 0;
	size_t c;
	int ch, k, sig;

	memset(&v, 0, sizeof(v));
	v.o = o;
	v.a = a;
	opts_filter(o, &v.filter);
	v.interval_ms = o->interval_ms > 0 ? o->interval_ms
					   : DEFAULT_INTERVAL_MS;
	for (c = 0; c < NCOLS; c++)
		v.field[c] =
		    sc_inspect_field_find(SC_INSPECT_REC_EXEC, cols[c].field);
	v.sort = COL_AGE; /* newest first */
	sc_buf_init(&v.line, 1 << 20);
	sc_buf_init(&v.cell, 1 << 20);
	sc_error_init(&err);

	/* A server that cannot answer is an error before the screen. */
	if (reload(&v, &err) == -1) {
		view_release(&v);
		return sc_report_error(&err);
	}
	next = sc_mono_ms() + v.interval_ms;
	/* Messages on stderr would land in the middle of the screen. */
	sc_log_level = SC_LOG_ERROR;
	catch_signals();
	initscr();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	timeout(KEY_WAIT_MS);
	draw(&v);
	while (!got_signal) {
		if (sc_mono_ms() >= next) {
			if (reload(&v, &err) == -1)
				stale(&v, &err);
			next = sc_mono_ms() + v.interval_ms;
			draw(&v);
		}
		if ((ch = getch()) == ERR)
			continue;
		if (ch == KEY_RESIZE) {
			draw(&v);
			continue;
		}
		if ((k = key(&v, ch)) == 1)
			break;
		if (k == 2)
			next = 0;
		draw(&v);
	}
	endwin();
	view_release(&v);
	if ((sig = got_signal) != 0) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	return SC_EXIT_OK;
}
