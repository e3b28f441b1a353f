/* SPDX-License-Identifier: MIT */

/*
 * engine_interval.c: Spark's datetime arithmetic, whose answers are
 * intervals or need them: date - date, timestamp - timestamp, date +
 * integer (date_add).  What sc-serve cannot answer as Spark does is
 * refused by name, never computed on the dates' text.
 */

#include "server/engine_expr_int.h"

#include <string.h>

#include "core/error.h"
#include "server/srverror.h"
#include "core/banned.h"

#define A(i) ((const char *)a[i].sql.data)
#define N(i) ((const char *)a[i].ei.name.data)

static bool
is_datetime(int t)
{
	return t == SC_ARROW_DATE32 || t == SC_ARROW_TIMESTAMP_US;
}

static bool
is_small_int(int t)
{
	return t == SC_ARROW_INT8 || t == SC_ARROW_INT16 || t == SC_ARROW_INT32;
}

/* date + n, n + date, date - n: Spark's date_add and date_sub. */
static void
date_add(struct sc_efarg *d, struct sc_efarg *k, bool sub, struct sc_buf *sql,
    struct sc_einfo *ei)
{
	sc_buf_addf(sql, NULL,
	    "CASE WHEN (%s) IS NULL THEN NULL ELSE date(%s, printf('%%+d "
	    "days', %s(%s))) END",
	    (const char *)k->sql.data, (const char *)d->sql.data,
	    sub ? "-" : "", (const char *)k->sql.data);
	sc_buf_reset(&ei->name);
	sc_buf_addf(&ei->name, NULL, "%s(%s, %s)",
	    sub ? "date_sub" : "date_add", (const char *)d->ei.name.data,
	    (const char *)k->ei.name.data);
	sc_eng_set_type(ei, SC_ARROW_DATE32);
}

int
sc_eng_interval_op(const char *lname, struct sc_efarg *a, size_t n,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	int t0, t1;
	bool add, sub;

	if (n != 2)
		return 0;
	add = strcmp(lname, "+") == 0;
	sub = strcmp(lname, "-") == 0;
	t0 = a[0].ei.type.t;
	t1 = a[1].ei.type.t;
	if (!is_datetime(t0) && !is_datetime(t1))
		return 0;
	if (!add && !sub && strcmp(lname, "*") != 0 &&
	    strcmp(lname, "/") != 0 && strcmp(lname, "%") != 0)
		return 0;
	if (t0 == SC_ARROW_DATE32 && is_small_int(t1) && (add || sub)) {
		date_add(&a[0], &a[1], sub, sql, ei);
		return 1;
	}
	if (t1 == SC_ARROW_DATE32 && is_small_int(t0) && add) {
		date_add(&a[1], &a[0], false, sql, ei);
		return 1;
	}
	sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
	    "(%s %s %s) is not supported by sc-serve: its answer is an "
	    "interval or needs one, and sc-serve has no interval types.",
	    N(0), lname, N(1));
	return -1;
}
