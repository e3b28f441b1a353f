/* SPDX-License-Identifier: MIT */

/*
 * prom.c: stats --format prometheus, the server's figures as
 * Prometheus text for node_exporter's textfile collector.  The whole
 * text is built before anything is written, so a failed call leaves
 * nothing half-written for the cron line's mv.
 */

#include "sc-inspect.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/buf.h"
#include "core/xmem.h"
#include "core/banned.h"

int
run_prometheus(const struct opts *o, struct sc_inspect *a)
{
	const struct timespec *dl = o->common.has_deadline ? &o->common.deadline
							   : NULL;
	struct sc_inspect_stats *st;
	struct sc_error err;
	struct sc_buf b;
	int rc = SC_EXIT_OK;

	sc_error_init(&err);
	sc_buf_init(&b, 16 * 1024 * 1024);
	st = sc_xmalloc(sizeof(*st));
	if (sc_inspect_stats(a, st, dl, &err) == -1 ||
	    sc_inspect_prometheus(st, &b, &err) == -1)
		rc = sc_report_error(&err);
	else if (fwrite(b.data, 1, b.len, stdout) != b.len)
		rc = SC_EXIT_IO; /* sc_check_stdout() says why */
	free(st);
	sc_buf_release(&b);
	if (rc != SC_EXIT_OK && rc != SC_EXIT_IO)
		return rc;
	return sc_check_stdout();
}
