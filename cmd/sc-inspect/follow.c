/* SPDX-License-Identifier: MIT */

/*
 * follow.c: watch --follow, the admin service's Watch stream as lines:
 * first one "snapshot" line per execution there is, then one line per
 * event as it happens, until the server ends the stream, -t passes, a
 * signal comes or the reader of standard output goes away.
 *
 * For programs the lines are TSV, CSV or JSON lines (core/output, one
 * flush per line); on a terminal they are columns that widen as wider
 * values come, since a table cannot wait for its widest value here.
 */

#include "sc-inspect.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "core/banned.h"

/* How often to look for a reader that has gone, between events. */
#define POLL_MS 250

/* A terminal's lines: the widest value so far per column. */
struct lines {
	size_t widths[MAX_FIELDS];
	struct sc_buf line;
};

static int
put_line(struct sc_buf *b, struct sc_error *err)
{
	if (fwrite(b->data, 1, b->len, stdout) != b->len ||
	    fflush(stdout) == EOF)
		return sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot write standard output");
	return 0;
}

/* One line of cells (names for the header); the last one unpadded. */
static int
lines_put(struct lines *l, const struct printer *p, const char *const *cells,
    const bool *isnull, struct sc_error *err)
{
	size_t i, w;
	bool num;

	sc_buf_reset(&l->line);
	for (i = 0; i < p->n; i++) {
		const char *s = isnull != NULL && isnull[i] ? "-" : cells[i];

		w = text_width(s);
		if (w > l->widths[i])
			l->widths[i] = w;
		num = isnull != NULL &&
		    sc_inspect_field_numeric(p->rec, p->idx[i]);
		if (i > 0)
			(void)sc_buf_addstr(&l->line, "  ", NULL);
		text_fit(&l->line, s, i + 1 < p->n || num ? l->widths[i] : w,
		    i + 1 < p->n || num, num);
	}
	/* Trailing spaces of a short last column are not written. */
	while (l->line.len > 0 && l->line.data[l->line.len - 1] == ' ')
		l->line.len--;
	(void)sc_buf_addch(&l->line, '\n', NULL);
	return put_line(&l->line, err);
}

static int
lines_header(struct lines *l, const struct printer *p, struct sc_error *err)
{
	const char *names[MAX_FIELDS];
	size_t i;

	for (i = 0; i < p->n; i++)
		names[i] = sc_inspect_field_name(p->rec, p->idx[i]);
	return lines_put(l, p, names, NULL, err);
}

static int
lines_event(struct lines *l, struct printer *p,
    const struct sc_inspect_event *ev, struct sc_error *err)
{
	const char *cells[MAX_FIELDS];
	bool isnull[MAX_FIELDS];
	size_t i;

	for (i = 0; i < p->n; i++) {
		isnull[i] = sc_inspect_field_value(p->rec, ev, p->idx[i],
				&p->how, &p->cells[i]) == SC_OUT_NULL;
		cells[i] = (const char *)p->cells[i].data;
	}
	return lines_put(l, p, cells, isnull, err);
}

/* The header line, if any. */
static int
start(struct printer *p, struct lines *l, bool human, struct sc_error *err)
{
	if (human)
		return p->header ? lines_header(l, p, err) : 0;
	if (printer_start(p, err) == -1)
		return -1;
	return sc_output_flush(p->out, err);
}

/* The reader of our output has gone: end as any filter does. */
static void
die_of_sigpipe(void)
{
	signal(SIGPIPE, SIG_DFL);
	raise(SIGPIPE);
	exit(SC_EXIT_IO);
}

int
run_follow(const struct opts *o, struct sc_inspect *a)
{
	const struct timespec *dl = o->common.has_deadline ? &o->common.deadline
							   : NULL;
	struct sc_inspect_watch *w = NULL;
	struct sc_inspect_filter f;
	struct sc_inspect_event ev;
	struct sc_inspect_stats st;
	struct timespec wait;
	struct printer p;
	struct lines l;
	struct sc_error err;
	char d[SC_DURATION_STRLEN];
	bool human, quiet, started = false;
	int64_t dropped = 0;
	size_t i;
	int r;

	sc_error_init(&err);
	memset(&l, 0, sizeof(l));
	sc_buf_init(&l.line, SC_BUF_UNLIMITED);
	if (printer_init(&p, o, SC_INSPECT_REC_EVENT, false, &err) == -1)
		return sc_report_error(&err);
	human = p.format == SC_OUT_TABLE;
	for (i = 0; i < p.n; i++)
		l.widths[i] = sc_inspect_field_width(p.rec, p.idx[i]);
	opts_filter(o, &f);
	/*
	 * Bounded by -t, the watch's end is a success once the server has
	 * answered: a quick GetStats tells a live server from one that
	 * takes the call and never answers (a timeout, exit 5).
	 */
	if (dl != NULL && sc_inspect_stats(a, &st, dl, &err) == -1)
		goto fail;
	if ((w = sc_inspect_watch_open(a, &f, true, dl, &err)) == NULL)
		goto fail;
	/*
	 * The header waits until the server has accepted the watch (an
	 * event, or a quiet wait): one without the service writes nothing.
	 */
	for (;;) {
		if (stdout_gone())
			die_of_sigpipe();
		sc_deadline_in_ms(&wait, POLL_MS);
		r = sc_inspect_watch_next(w, &ev, &wait, &err);
		quiet = r == -1 && err.status == SC_ST_TIMEOUT &&
		    err.rpc_code == -1;
		/* -t bounds a watch that works: its end is no failure. */
		if (r == -1 && err.status == SC_ST_TIMEOUT && dl != NULL &&
		    sc_ms_until(dl) <= 0) {
			sc_duration_format(o->common.timeout_ms, d);
			sc_info("the watch ended: the --timeout of %s passed",
			    d);
			break;
		}
		if (r == -1 && !quiet)
			goto fail;
		if (!started && start(&p, &l, human, &err) == -1)
			goto fail;
		started = true;
		if (quiet)
			continue;
		if (r == 0)
			break;
		if (ev.dropped > dropped) {
			sc_warn(
			    "the server dropped %lld events of this watch so far: its output is read too slowly",
			    (long long)ev.dropped);
			dropped = ev.dropped;
		}
		p.how.now_ms = ev.at_ms > 0 ? ev.at_ms : sc_realtime_ms();
		if (human ? lines_event(&l, &p, &ev, &err) == -1
			  : printer_row(&p, &ev, &err) == -1 ||
			    sc_output_flush(p.out, &err) == -1)
			goto fail;
	}
	if (r == 0)
		sc_info("the server ended the watch");
	sc_inspect_watch_free(w);
	if (!human && printer_finish(&p, &err) == -1) {
		printer_release(&p);
		sc_buf_release(&l.line);
		return sc_report_error(&err);
	}
	printer_release(&p);
	sc_buf_release(&l.line);
	return sc_check_stdout();
fail:
	sc_inspect_watch_free(w);
	printer_release(&p);
	sc_buf_release(&l.line);
	return sc_report_error(&err);
}
