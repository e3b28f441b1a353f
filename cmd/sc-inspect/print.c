/* SPDX-License-Identifier: MIT */

/*
 * print.c: the listings (list, show, sessions, tombstones, stats)
 * through core/output: a table for people (one line per field for a
 * single record), TSV, CSV or JSON lines for programs, or just the ids.
 */

#include "sc-inspect.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "core/banned.h"

/* A cell's largest text (a statement is abbreviated by the server). */
#define CELL_MAX (1024 * 1024)

/* Whether standard output is a non-empty regular file opened to append. */
static bool
appending(void)
{
	struct stat st;
	int fl = fcntl(STDOUT_FILENO, F_GETFL);

	return fl != -1 && (fl & O_APPEND) != 0 &&
	    fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size > 0;
}

/* The terminal's width on standard output, or 0. */
static size_t
term_cols(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) &&
	    ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 0;
}

/* A statement keeps at least this many columns while other fields can go. */
#define STATEMENT_MIN 20

/* Whether field f of p is an id (kept while other fields can go). */
static bool
is_id(const struct printer *p, size_t f)
{
	const char *name = sc_inspect_field_name(p->rec, p->idx[f]);
	size_t n = strlen(name);

	return n > 3 && strcmp(name + n - 3, "_id") == 0;
}

void
printer_fit(struct printer *p, const void *recs, size_t n, size_t size)
{
	size_t w[MAX_FIELDS], i, k, total = 0, last = p->n - 1, room, m;
	bool keep[MAX_FIELDS], text;
	int pass;

	if (p->fit_cols == 0 || p->n < 2)
		return;
	for (i = 0; i < p->n; i++) {
		w[i] = text_width(sc_inspect_field_name(p->rec, p->idx[i]));
		for (k = 0; k < n; k++) {
			if (sc_inspect_field_value(p->rec,
				(const char *)recs + k * size, p->idx[i],
				&p->how, &p->cells[i]) == SC_OUT_NULL)
				continue;
			if (text_width((const char *)p->cells[i].data) > w[i])
				w[i] =
				    text_width((const char *)p->cells[i].data);
		}
		keep[i] = true;
		total += w[i] + (i > 0 ? 2 : 0);
	}
	text = strcmp(sc_inspect_field_name(p->rec, p->idx[last]),
		   "statement") == 0;
	/* What the fields but the statement may take. */
	room = text
	    ? (p->fit_cols > STATEMENT_MIN + 2 ? p->fit_cols - STATEMENT_MIN - 2
					       : 0)
	    : p->fit_cols;
	if (text)
		total -= w[last] + 2;
	/*
	 * The widest field goes (the rightmost of equals), ids only when no
	 * other is left, never the first, until the rest fits; then those
	 * that fit again come back, left to right.
	 */
	for (pass = 0; pass < 2 && total > room; pass++)
		for (;;) {
			for (i = 0, k = 1; k < (text ? last : p->n); k++)
				if (keep[k] && is_id(p, k) == (pass == 1) &&
				    (i == 0 || w[k] >= w[i]))
					i = k;
			if (i == 0 || total <= room)
				break;
			keep[i] = false;
			total -= w[i] + 2;
		}
	for (k = 1; k < (text ? last : p->n); k++)
		if (!keep[k] && total + w[k] + 2 <= room) {
			keep[k] = true;
			total += w[k] + 2;
		}
	for (i = m = 0; i < p->n; i++)
		if (keep[i]) {
			p->idx[m] = p->idx[i];
			w[m++] = w[i];
		}
	p->n = m;
	last = m - 1;
	if (text && total + 2 + w[last] > p->fit_cols &&
	    total + 3 < p->fit_cols)
		p->cut_width = p->fit_cols - total - 2;
}

int
printer_init(struct printer *p, const struct opts *o, enum sc_inspect_rec rec,
    bool vertical, struct sc_error *err)
{
	struct sc_output_opts oo;
	const size_t *def;
	size_t i;
	int n;

	memset(p, 0, sizeof(*p));
	p->rec = rec;
	p->header = o->header != 0;
	if (o->ids && rec != SC_INSPECT_REC_SESSION && o->session == NULL) {
		/*
		 * Operations of any session: each with its session, as
		 * "session/operation", which sc-release takes as it is.
		 */
		p->format = SC_OUT_TSV;
		p->header = false;
		p->pairs = true;
		p->idx[0] = (size_t)sc_inspect_field_find(rec, "session_id");
		p->idx[1] = (size_t)sc_inspect_field_find(rec, "operation_id");
		p->n = 2;
	} else if (o->ids) {
		p->format = SC_OUT_TSV;
		p->header = false;
		p->idx[0] = (size_t)sc_inspect_field_find(rec,
		    rec == SC_INSPECT_REC_SESSION ? "session_id"
						  : "operation_id");
		p->n = 1;
	} else {
		p->format = o->format >= 0  ? (enum sc_out_format)o->format
		    : isatty(STDOUT_FILENO) ? SC_OUT_TABLE
					    : SC_OUT_TSV;
		p->how.human = p->format == SC_OUT_TABLE;
		/* Appended to a log that has lines: its header is there. */
		if (p->format == SC_OUT_TSV || p->format == SC_OUT_CSV)
			p->header = p->header && !appending();
		if (o->fields != NULL) {
			if ((n = sc_inspect_fields_parse(rec, o->fields, p->idx,
				 MAX_FIELDS, err)) == -1)
				return -1;
			p->n = (size_t)n;
		} else {
			/* One record on its own: every field. */
			p->n = sc_inspect_default_fields(rec,
			    p->how.human && !vertical, &def);
			for (i = 0; i < p->n; i++)
				p->idx[i] = def[i];
			if (p->how.human && !vertical)
				p->fit_cols = term_cols();
		}
	}
	p->vertical = vertical && p->format == SC_OUT_TABLE;
	p->how.json = p->format == SC_OUT_JSONL;
	memset(&oo, 0, sizeof(oo));
	oo.header = p->header && !p->vertical;
	oo.null_text = p->format == SC_OUT_TABLE ? "-" : NULL;
	oo.flush = -1;
	p->out = sc_output_new(stdout, p->format, &oo);
	/* One more than the fields: the cut last one is made there. */
	p->cells = sc_xcalloc(MAX_FIELDS, sizeof(*p->cells));
	for (i = 0; i < MAX_FIELDS; i++)
		sc_buf_init(&p->cells[i], CELL_MAX);
	return 0;
}

int
printer_start(struct printer *p, struct sc_error *err)
{
	static const char *const kv[] = { "field", "value" };
	const char *names[MAX_FIELDS];
	size_t i;

	if (p->vertical)
		return sc_output_header(p->out, kv, 2, err);
	for (i = 0; i < p->n; i++)
		names[i] = sc_inspect_field_name(p->rec, p->idx[i]);
	return sc_output_header(p->out, names, p->pairs ? 1 : p->n, err);
}

int
printer_row(struct printer *p, const void *rec, struct sc_error *err)
{
	struct sc_out_value v[MAX_FIELDS], kv[2];
	size_t i;

	for (i = 0; i < p->n; i++) {
		v[i].kind = sc_inspect_field_value(p->rec, rec, p->idx[i],
		    &p->how, &p->cells[i]);
		v[i].p = (const char *)p->cells[i].data;
		v[i].n = p->cells[i].len;
	}
	i = p->n > 0 ? p->n - 1 : 0;
	if (p->n > 0 && p->cut_width > 1 && v[i].kind != SC_OUT_NULL &&
	    text_width(v[i].p) > p->cut_width) {
		sc_buf_reset(&p->cells[MAX_FIELDS - 1]);
		text_fit(&p->cells[MAX_FIELDS - 1], v[i].p, p->cut_width - 1,
		    false, false);
		(void)sc_buf_addch(&p->cells[MAX_FIELDS - 1], '+', NULL);
		v[i].p = (const char *)p->cells[MAX_FIELDS - 1].data;
		v[i].n = p->cells[MAX_FIELDS - 1].len;
	}
	if (p->pairs) {
		if (sc_buf_add(&p->cells[0], "/", 1, err) == -1 ||
		    sc_buf_add(&p->cells[0], p->cells[1].data, p->cells[1].len,
			err) == -1)
			return -1;
		v[0].kind = SC_OUT_STRING;
		v[0].p = (const char *)p->cells[0].data;
		v[0].n = p->cells[0].len;
		return sc_output_row(p->out, v, 1, err);
	}
	if (!p->vertical)
		return sc_output_row(p->out, v, p->n, err);
	for (i = 0; i < p->n; i++) {
		kv[0].kind = SC_OUT_STRING;
		kv[0].p = sc_inspect_field_name(p->rec, p->idx[i]);
		kv[0].n = strlen(kv[0].p);
		kv[1] = v[i];
		if (kv[1].kind != SC_OUT_NULL)
			kv[1].kind = SC_OUT_STRING; /* left-aligned */
		if (sc_output_row(p->out, kv, 2, err) == -1)
			return -1;
	}
	return 0;
}

int
printer_finish(struct printer *p, struct sc_error *err)
{
	return sc_output_finish(p->out, err);
}

void
printer_release(struct printer *p)
{
	size_t i;

	for (i = 0; p->cells != NULL && i < MAX_FIELDS; i++)
		sc_buf_release(&p->cells[i]);
	free(p->cells);
	sc_output_free(p->out);
	memset(p, 0, sizeof(*p));
}

/* ------------------------------------------------------------ commands */

static int64_t
now_or(int64_t server_ms)
{
	return server_ms > 0 ? server_ms : sc_realtime_ms();
}

static int
print_execs(struct printer *p, const struct sc_inspect_exec_list *l,
    struct sc_error *err)
{
	size_t i;

	p->how.now_ms = now_or(l->server_time_ms);
	printer_fit(p, l->v, l->n, sizeof(l->v[0]));
	if (printer_start(p, err) == -1)
		return -1;
	for (i = 0; i < l->n; i++)
		if (printer_row(p, &l->v[i], err) == -1)
			return -1;
	return printer_finish(p, err);
}

static int
print_sessions(struct printer *p, const struct sc_inspect_session_list *l,
    bool artifacts, struct sc_error *err)
{
	struct sc_inspect_artifact_row row;
	size_t i, j;

	p->how.now_ms = now_or(l->server_time_ms);
	if (!artifacts)
		printer_fit(p, l->v, l->n, sizeof(l->v[0]));
	if (printer_start(p, err) == -1)
		return -1;
	for (i = 0; i < l->n; i++) {
		if (!artifacts) {
			if (printer_row(p, &l->v[i], err) == -1)
				return -1;
			continue;
		}
		row.session = &l->v[i];
		for (j = 0; j < l->v[i].nartifacts; j++) {
			row.artifact = &l->v[i].artifacts[j];
			if (printer_row(p, &row, err) == -1)
				return -1;
		}
	}
	return printer_finish(p, err);
}

static int
print_tombs(struct printer *p, const struct sc_inspect_tomb_list *l,
    struct sc_error *err)
{
	size_t i;

	p->how.now_ms = now_or(l->server_time_ms);
	printer_fit(p, l->v, l->n, sizeof(l->v[0]));
	if (printer_start(p, err) == -1)
		return -1;
	for (i = 0; i < l->n; i++)
		if (printer_row(p, &l->v[i], err) == -1)
			return -1;
	return printer_finish(p, err);
}

static int
print_stats(struct printer *p, const struct sc_inspect_stats *s,
    struct sc_error *err)
{
	p->how.now_ms = now_or(s->server_time_ms);
	if (printer_start(p, err) == -1 || printer_row(p, s, err) == -1)
		return -1;
	return printer_finish(p, err);
}

int
run_print(const struct opts *o, struct sc_inspect *a)
{
	const struct timespec *dl = o->common.has_deadline ? &o->common.deadline
							   : NULL;
	struct sc_inspect_session_list sl;
	struct sc_inspect_tomb_list tl;
	struct sc_inspect_exec_list el;
	struct sc_inspect_filter f;
	struct sc_inspect_stats st;
	struct printer p;
	struct sc_error err;
	int rc = -1;

	sc_error_init(&err);
	memset(&sl, 0, sizeof(sl));
	memset(&tl, 0, sizeof(tl));
	memset(&el, 0, sizeof(el));
	if (printer_init(&p, o, opts_rec(o),
		o->cmd == CMD_SHOW || o->cmd == CMD_STATS, &err) == -1)
		return sc_report_error(&err);
	opts_filter(o, &f);
	switch (o->cmd) {
	case CMD_LIST:
		if (sc_inspect_list(a, &f, 0, &el, dl, &err) == 0 &&
		    (rc = print_execs(&p, &el, &err)) == 0 && el.truncated)
			sc_warn(
			    "the server listed only %zu executions, its limit; narrow the filter to see the others",
			    el.n);
		break;
	case CMD_SHOW:
		if (sc_inspect_get(a, o->opid, &el, dl, &err) == 0)
			rc = print_execs(&p, &el, &err);
		break;
	case CMD_SESSIONS:
		if (sc_inspect_sessions(a, o->user, o->session, &sl, dl,
			&err) == 0)
			rc = print_sessions(&p, &sl, o->artifacts, &err);
		break;
	case CMD_TOMBSTONES:
		if (sc_inspect_tombstones(a, o->user, o->session, &tl, dl,
			&err) == 0)
			rc = print_tombs(&p, &tl, &err);
		break;
	case CMD_STATS:
		if (sc_inspect_stats(a, &st, dl, &err) == 0)
			rc = print_stats(&p, &st, &err);
		break;
	case CMD_WATCH:
		break;
	}
	printer_release(&p);
	sc_inspect_exec_list_release(&el);
	sc_inspect_session_list_release(&sl);
	sc_inspect_tomb_list_release(&tl);
	if (rc == -1)
		return sc_report_error(&err);
	return sc_check_stdout();
}
