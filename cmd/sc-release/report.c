/* SPDX-License-Identifier: MIT */

/*
 * report.c: sc-release's output, one line per operation, as text
 * ("<id>\t<what happened>", TSV-escaped) or JSON lines with the fields
 * id, action, result, error_class and message; and the exit status,
 * the highest of all lines'.
 */

#include "sc-release.h"

#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "core/output.h"
#include "core/banned.h"

static const char *const action_names[] = {
	[ACTION_RELEASE] = "release",
	[ACTION_RELEASE_UNTIL] = "release-until",
	[ACTION_INTERRUPT] = "interrupt",
	[ACTION_RELEASE_SESSION] = "release-session",
};

static const char *const result_names[] = {
	[RESULT_RELEASED] = "released",
	[RESULT_ALREADY_GONE] = "already_gone",
	[RESULT_INTERRUPTED] = "interrupted",
	[RESULT_DRY_RUN] = "dry_run",
	[RESULT_ERROR] = "error",
};

static const char *const fields[] = { "id", "action", "result", "error_class",
	"message" };

void
report_init(struct report *r, enum format f, bool quiet)
{
	struct sc_output_opts oo = { false, NULL, -1, 0 };
	struct sc_error e;

	memset(r, 0, sizeof(r[0]));
	r->quiet = quiet;
	r->jsonl = f == FORMAT_JSONL;
	r->out = sc_output_new(stdout,
	    f == FORMAT_JSONL ? SC_OUT_JSONL : SC_OUT_TSV, &oo);
	if (f == FORMAT_JSONL)
		sc_output_header(r->out, fields, 5, &e); /* writes nothing */
	else
		sc_output_header(r->out, fields, 2, &e);
}

void
report_release(struct report *r)
{
	sc_output_free(r->out);
	r->out = NULL;
}

/*
 * The error's message without a leading "[CLASS] " (the class has a
 * field of its own).
 */
static const char *
bare_message(const struct sc_error *e)
{
	size_t n = strlen(e->errclass);

	if (n > 0 && e->msg[0] == '[' &&
	    strncmp(e->msg + 1, e->errclass, n) == 0 && e->msg[n + 1] == ']')
		return e->msg[n + 2] == ' ' ? e->msg + n + 3 : e->msg + n + 2;
	return e->msg;
}

/* What the text format says after the id. */
static void
text_result(struct sc_buf *b, enum action a, enum result res,
    const char *detail, const struct sc_error *e)
{
	switch (res) {
	case RESULT_RELEASED:
		if (a == ACTION_RELEASE_SESSION)
			sc_buf_addstr(b, "session released", NULL);
		else if (a == ACTION_RELEASE_UNTIL)
			sc_buf_addf(b, NULL, "released until %s", detail);
		else
			sc_buf_addstr(b, "released", NULL);
		break;
	case RESULT_ALREADY_GONE:
		sc_buf_addstr(b, "already gone", NULL);
		break;
	case RESULT_INTERRUPTED:
		sc_buf_addstr(b, "interrupted", NULL);
		break;
	case RESULT_DRY_RUN:
		sc_buf_addstr(b, detail, NULL);
		break;
	case RESULT_ERROR:
		if (e->errclass[0] != '\0')
			sc_buf_addf(b, NULL, "error: %s: %s", e->errclass,
			    bare_message(e));
		else
			sc_buf_addf(b, NULL, "error: %s", e->msg);
		break;
	}
}

static struct sc_out_value
str_value(const char *s)
{
	struct sc_out_value v = { SC_OUT_NULL, NULL, 0 };

	if (s != NULL && s[0] != '\0') {
		v.kind = SC_OUT_STRING;
		v.p = s;
		v.n = strlen(s);
	}
	return v;
}

int
report_line(struct report *r, const char *id, enum action a, enum result res,
    const char *detail, const struct sc_error *e, struct sc_error *err)
{
	struct sc_out_value v[5];
	struct sc_buf text;
	int rc;

	r->nlines++;
	if (res == RESULT_ERROR) {
		if (r->nfailed++ == 0 || (int)e->status > r->status)
			r->worst = *e;
		if ((int)e->status > r->status)
			r->status = (int)e->status;
	}
	if (r->quiet && res != RESULT_ERROR)
		return 0;
	v[0] = str_value(id);
	if (v[0].kind == SC_OUT_NULL) /* an id is never empty; be safe */
		v[0] = (struct sc_out_value){ SC_OUT_STRING, "", 0 };
	sc_buf_init(&text, SC_BUF_UNLIMITED);
	if (!r->jsonl) {
		text_result(&text, a, res, detail, e);
		v[1] = str_value((const char *)text.data);
		rc = sc_output_row(r->out, v, 2, err);
		sc_buf_release(&text);
		return rc;
	}
	v[1] = str_value(action_names[a]);
	v[2] = str_value(result_names[res]);
	v[3] = str_value(res == RESULT_ERROR ? e->errclass : NULL);
	v[4] = str_value(NULL);
	if (res == RESULT_ERROR)
		v[4] = str_value(bare_message(e));
	else if (res == RESULT_RELEASED && a == ACTION_RELEASE_UNTIL) {
		sc_buf_addf(&text, NULL, "until %s", detail);
		v[4] = str_value((const char *)text.data);
	} else if (res == RESULT_DRY_RUN)
		v[4] = str_value(detail);
	rc = sc_output_row(r->out, v, 5, err);
	sc_buf_release(&text);
	return rc;
}

int
report_finish(struct report *r, struct sc_error *err)
{
	return sc_output_finish(r->out, err);
}
