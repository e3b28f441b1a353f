/* SPDX-License-Identifier: MIT */

/*
 * run.c: sc-release's calls, in the order the man page gives: Interrupt
 * (--all, --tag, operation ids) and the release of what it stopped,
 * ReleaseExecute for each operation id, ReleaseSession last.  Only
 * protocol RPCs, through the client API.
 *
 * An operation the server does not know is "already gone", as Spark's
 * own clients treat it.  An error that concerns the connection or the
 * session rather than one operation (server unreachable, deadline,
 * authentication, no such session) is not sent again for every id that
 * follows: the rest are reported with the same error.
 */

#include "sc-release.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/client.h"
#include "core/log.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "core/banned.h"

struct work {
	const struct opts *o;
	struct sc_client *c;
	struct report *r;
	const struct timespec *dl;
	const char *sid; /* the session */
	struct sc_error fatal; /* set: every later call fails so */
	bool has_fatal;
	bool session_seen; /* a ReleaseExecute found the session */
	struct sc_client_strings stopped; /* interrupted by --all/--tag */
};

static bool
has_class(const struct sc_error *e, const char *cls)
{
	return strcmp(e->errclass, cls) == 0;
}

/*
 * After a failed call: a missing session is "no such session" (Spark
 * sends it as INTERNAL); errors that every later call would meet too
 * stop the calls.
 */
static void
classify(struct work *w, struct sc_error *e)
{
	bool session = has_class(e, "INVALID_HANDLE.SESSION_NOT_FOUND") ||
	    has_class(e, "INVALID_HANDLE.SESSION_CLOSED");

	if (session)
		e->status = SC_ST_NOTFOUND;
	if (session || e->status == SC_ST_UNAVAILABLE ||
	    e->status == SC_ST_TIMEOUT || e->status == SC_ST_DENIED) {
		w->fatal = *e;
		w->has_fatal = true;
		sc_debug("not sending any more calls: %s", e->msg);
	}
}

/* ReleaseExecute: 0 with *found, or -1 with e set. */
static int
release(struct work *w, const char *id, const char *until, bool *found,
    struct sc_error *e)
{
	if (w->has_fatal) {
		*e = w->fatal;
		return -1;
	}
	sc_error_init(e);
	if (sc_client_release_execute(w->c, id, until, found, w->dl, e) == -1) {
		classify(w, e);
		return -1;
	}
	w->session_seen = true;
	sc_debug("ReleaseExecute %s: %s", id, *found ? "found" : "not found");
	return 0;
}

static int
interrupt(struct work *w, enum sc_client_interrupt what, const char *target,
    struct sc_client_strings *ids, struct sc_error *e)
{
	if (w->has_fatal) {
		*e = w->fatal;
		return -1;
	}
	sc_error_init(e);
	if (sc_client_interrupt(w->c, what, target, ids, w->dl, e) == -1) {
		classify(w, e);
		return -1;
	}
	sc_debug("Interrupt %s: %zu interrupted",
	    target != NULL ? target : "all", ids->n);
	return 0;
}

/*
 * Make sure the session exists before a call that would create it
 * (Interrupt) or that does not say whether it existed (ReleaseSession):
 * a ReleaseExecute of an operation id nobody uses does nothing, and
 * fails with INVALID_HANDLE.SESSION_NOT_FOUND on Spark 3.5 and 4.x when
 * there is no such session.
 */
static int
check_session(struct work *w, struct sc_error *e)
{
	char probe[SC_UUID_STRLEN];
	bool found;

	if (w->session_seen && !w->has_fatal)
		return 0;
	if (!w->has_fatal && sc_uuid_v4(probe, e) == -1)
		return -1;
	sc_debug("checking that session %s exists", w->sid);
	return release(w, probe, NULL, &found, e);
}

static bool
contains(const struct sc_client_strings *s, const char *id)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i], id) == 0)
			return true;
	return false;
}

/* Remember the ids an Interrupt stopped, once each. */
static void
add_stopped(struct work *w, const struct sc_client_strings *ids)
{
	size_t i;

	for (i = 0; i < ids->n; i++) {
		if (contains(&w->stopped, ids->v[i]))
			continue;
		w->stopped.v = sc_xreallocarray(w->stopped.v, w->stopped.n + 1,
		    sizeof(*w->stopped.v));
		w->stopped.v[w->stopped.n++] = sc_xstrdup(ids->v[i]);
	}
}

/*
 * Release an operation Interrupt has stopped: "interrupted".  A
 * non-reattachable operation cannot be released (Spark refuses with
 * INVALID_CURSOR.NOT_REATTACHABLE) but goes away once interrupted, so
 * that refusal is no failure here.
 */
static int
release_stopped(struct work *w, const char *id, const char *shown,
    struct sc_error *err)
{
	struct sc_error e;
	bool found;

	if (release(w, id, NULL, &found, &e) == -1 &&
	    !has_class(&e, "INVALID_CURSOR.NOT_REATTACHABLE"))
		return report_line(w->r, shown, ACTION_INTERRUPT, RESULT_ERROR,
		    NULL, &e, err);
	return report_line(w->r, shown, ACTION_INTERRUPT, RESULT_INTERRUPTED,
	    NULL, NULL, err);
}

/* --interrupt with --all or --tag: stop, then release what stopped. */
static int
interrupt_where(struct work *w, enum sc_client_interrupt what, const char *tag,
    struct sc_error *err)
{
	struct sc_client_strings ids = { NULL, 0 };
	struct sc_error e;
	struct sc_buf what_text;
	size_t i, before = w->stopped.n;
	int rc = 0;

	if (w->o->dry_run) {
		sc_buf_init(&what_text, SC_BUF_UNLIMITED);
		if (tag == NULL)
			sc_buf_addstr(&what_text,
			    "would interrupt and release every running operation",
			    NULL);
		else
			sc_buf_addf(&what_text, NULL,
			    "would interrupt and release the operations tagged '%s'",
			    tag);
		rc = report_line(w->r, w->sid, ACTION_INTERRUPT, RESULT_DRY_RUN,
		    (const char *)what_text.data, NULL, err);
		sc_buf_release(&what_text);
		return rc;
	}
	if (check_session(w, &e) == -1 ||
	    interrupt(w, what, tag, &ids, &e) == -1)
		return report_line(w->r, w->sid, ACTION_INTERRUPT, RESULT_ERROR,
		    NULL, &e, err);
	add_stopped(w, &ids);
	if (ids.n == 0 && tag != NULL)
		sc_warn("no operation tagged '%s' was running", tag);
	else if (ids.n == 0)
		sc_warn("no operation of the session was running");
	sc_client_strings_release(&ids);
	for (i = before; rc == 0 && i < w->stopped.n; i++)
		rc = release_stopped(w, w->stopped.v[i], w->stopped.v[i], err);
	return rc;
}

/* An operation id: interrupt it (--interrupt), then release it. */
static int
one(struct work *w, const struct target *t, struct sc_error *err)
{
	const struct opts *o = w->o;
	enum action a = o->interrupt ? ACTION_INTERRUPT
	    : o->until != NULL	     ? ACTION_RELEASE_UNTIL
				     : ACTION_RELEASE;
	struct sc_client_strings ids = { NULL, 0 };
	struct sc_buf text;
	struct sc_error e;
	bool found, stopped;
	int rc;

	if (!t->valid) {
		sc_error_init(&e);
		if (t->line > 0)
			sc_error_set(&e, SC_ST_USAGE,
			    "line %zu: not an operation id (a UUID)", t->line);
		else
			sc_error_set(&e, SC_ST_USAGE,
			    "not an operation id (a UUID)");
		return report_line(w->r, t->id, a, RESULT_ERROR, NULL, &e, err);
	}
	if (o->dry_run) {
		sc_buf_init(&text, SC_BUF_UNLIMITED);
		if (a == ACTION_INTERRUPT)
			sc_buf_addstr(&text, "would interrupt and release",
			    NULL);
		else if (a == ACTION_RELEASE_UNTIL)
			sc_buf_addf(&text, NULL, "would release until %s",
			    o->until);
		else
			sc_buf_addstr(&text, "would release", NULL);
		rc = report_line(w->r, t->id, a, RESULT_DRY_RUN,
		    (const char *)text.data, NULL, err);
		sc_buf_release(&text);
		return rc;
	}
	if (a == ACTION_INTERRUPT) {
		if (contains(&w->stopped, t->op))
			return 0; /* --all or --tag did, and said so */
		if (check_session(w, &e) == -1 ||
		    interrupt(w, SC_CLIENT_INTERRUPT_OPERATION, t->op, &ids,
			&e) == -1)
			return report_line(w->r, t->id, a, RESULT_ERROR, NULL,
			    &e, err);
		stopped = contains(&ids, t->op);
		sc_client_strings_release(&ids);
		if (stopped)
			return release_stopped(w, t->op, t->id, err);
	}
	if (release(w, t->op, o->until, &found, &e) == -1)
		return report_line(w->r, t->id, a, RESULT_ERROR, NULL, &e, err);
	return report_line(w->r, t->id, a,
	    found ? RESULT_RELEASED : RESULT_ALREADY_GONE, o->until, NULL, err);
}

/* --session: ReleaseSession, after checking that there is one. */
static int
session_release(struct work *w, struct sc_error *err)
{
	struct sc_error e;

	if (w->o->dry_run)
		return report_line(w->r, w->sid, ACTION_RELEASE_SESSION,
		    RESULT_DRY_RUN, "would release the session", NULL, err);
	if (check_session(w, &e) == -1)
		return report_line(w->r, w->sid, ACTION_RELEASE_SESSION,
		    RESULT_ERROR, NULL, &e, err);
	sc_error_init(&e);
	if (sc_client_release_session(w->c, false, w->dl, &e) == -1) {
		classify(w, &e);
		return report_line(w->r, w->sid, ACTION_RELEASE_SESSION,
		    RESULT_ERROR, NULL, &e, err);
	}
	return report_line(w->r, w->sid, ACTION_RELEASE_SESSION,
	    RESULT_RELEASED, NULL, NULL, err);
}

bool
run_needs_session(const struct opts *o, const struct targets *t)
{
	size_t i;

	if (o->session || (o->interrupt && (o->all || o->tags.n > 0)))
		return true;
	for (i = 0; i < t->n; i++)
		if (t->v[i].session == NULL && t->v[i].valid)
			return true;
	return false;
}

/* Whether target x belongs to the run for session (see run()). */
static bool
in_run(const struct target *x, const char *session)
{
	if (session == NULL)
		return x->session == NULL || !x->valid;
	return x->valid && x->session != NULL &&
	    strcmp(x->session, session) == 0;
}

int
run(const struct opts *o, const struct targets *t, struct sc_client *c,
    const char *session, struct report *r, struct sc_error *err)
{
	struct work w;
	size_t i;
	int rc = 0;

	memset(&w, 0, sizeof(w));
	w.o = o;
	w.c = c;
	w.r = r;
	w.dl = o->common.has_deadline ? &o->common.deadline : NULL;
	w.sid = c != NULL ? sc_client_session_id(c) : "";
	sc_error_init(&w.fatal);
	if (session == NULL && o->interrupt && o->all)
		rc = interrupt_where(&w, SC_CLIENT_INTERRUPT_ALL, NULL, err);
	for (i = 0; session == NULL && rc == 0 && o->interrupt && i < o->tags.n;
	     i++)
		rc = interrupt_where(&w, SC_CLIENT_INTERRUPT_TAG, o->tags.v[i],
		    err);
	for (i = 0; rc == 0 && i < t->n; i++)
		if (in_run(&t->v[i], session))
			rc = one(&w, &t->v[i], err);
	if (session == NULL && rc == 0 && o->session)
		rc = session_release(&w, err);
	sc_client_strings_release(&w.stopped);
	return rc;
}
