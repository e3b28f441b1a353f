/* SPDX-License-Identifier: MIT */

/*
 * engine_tz.c: the session time zone (spark.sql.session.timeZone) in the
 * engine: checking a value, the zone of the running call, and the SQL
 * functions and rewrites that read or write wall-clock time in it.  The
 * zones themselves (ids and rules) are lib/core/tz.c's.
 */

#include "engine/engine_int.h"
#include "engine/plan/engine_expr_int.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/value.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

int
sc_engine_tz_check(const char *key, const char *value, struct sc_error *err)
{
	struct sc_tz z;

	if (sc_tz_resolve(value, &z) == 0)
		return 0;
	return sc_srv_error(err, "INVALID_CONF_VALUE.TIME_ZONE", "22022",
	    "The value '%s' in the config \"%s\" is invalid. Cannot resolve "
	    "the given timezone.",
	    value, key);
}

/* --------------------------------------------------- conversions */

/* The zone of the call the thread runs (UTC outside one). */
static _Thread_local char cur_id[sizeof(((struct sc_emode *)0)->tz)];
static _Thread_local struct sc_tz cur_zone;

const struct sc_tz *
sc_eng_tz_current(void)
{
	struct sc_erun *r = sc_eng_current_run();
	const char *id = r != NULL ? r->mode.tz : "UTC";

	if (strcmp(id, cur_id) != 0) {
		if (sc_tz_resolve(id, &cur_zone) == -1) {
			memset(&cur_zone, 0, sizeof(cur_zone));
			snprintf(cur_zone.id, sizeof(cur_zone.id), "UTC");
		}
		snprintf(cur_id, sizeof(cur_id), "%s", id);
	}
	return &cur_zone;
}

/* Whether a timestamp text ends with a zone of its own. */
static bool
has_zone(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && isspace((unsigned char)s[i]))
		i++;
	while (n > i && isspace((unsigned char)s[n - 1]))
		n--;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	while (i < n && (isdigit((unsigned char)s[i]) || s[i] == '-'))
		i++;
	if (i < n && (s[i] == ' ' || s[i] == 'T') && i + 1 < n &&
	    isdigit((unsigned char)s[i + 1])) {
		i++;
		while (i < n &&
		    (isdigit((unsigned char)s[i]) || s[i] == ':' ||
			s[i] == '.'))
			i++;
	}
	return i < n;
}

int
sc_eng_tz_parse(const struct sc_tz *z, const char *s, size_t n, int64_t *us)
{
	int64_t v;

	if (sc_value_parse_timestamp(s, n, &v) == -1)
		return -1;
	*us = has_zone(s, n) ? v : sc_tz_to_utc(z, v);
	return 0;
}

/* ---------------------------------------------- SQLite functions */

/* sc_tz_local(ts): the instant's wall-clock text in the session zone. */
static void
local_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s = (const char *)sqlite3_value_text(argv[0]);
	char out[SC_VALUE_TEXT_MAX];
	int64_t us;

	(void)argc;
	if (s == NULL)
		return;
	if (sc_value_parse_timestamp(s, (size_t)sqlite3_value_bytes(argv[0]),
		&us) == -1) {
		sqlite3_result_value(ctx, argv[0]);
		return;
	}
	sc_value_fmt_timestamp(sc_tz_to_local(sc_eng_tz_current(), us), out);
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/* sc_tz_utc(text): a wall-clock time of the session zone as an instant. */
static void
utc_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s = (const char *)sqlite3_value_text(argv[0]);
	char out[SC_VALUE_TEXT_MAX];
	int64_t us;

	(void)argc;
	if (s == NULL)
		return;
	if (sc_eng_tz_parse(sc_eng_tz_current(), s,
		(size_t)sqlite3_value_bytes(argv[0]), &us) == -1) {
		sqlite3_result_value(ctx, argv[0]);
		return;
	}
	sc_value_fmt_timestamp(us, out);
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/* Spark's error for a zone argument getZoneId() cannot read. */
static void
bad_zone(sqlite3_context *ctx, const char *id)
{
	sc_eng_func_fail(ctx,
	    "[INVALID_TIMEZONE] The timezone: %s is invalid. The "
	    "timezone must be either a region-based zone ID or a zone "
	    "offset. Region IDs must have the form 'area/city', such "
	    "as 'America/Los_Angeles'. Zone offsets must be in the "
	    "format '(+|-)HH', '(+|-)HH:mm\u2019 or '(+|-)HH:mm:ss', "
	    "e.g '-08' , '+01:00' or '-13:33:33', and must be in the "
	    "range from -18:00 to +18:00. 'Z' and 'UTC' are accepted "
	    "as synonyms for '+00:00'. SQLSTATE: 22009",
	    id);
}

/*
 * from_utc_timestamp(ts, zone): ts's wall-clock time in zone, read as
 * UTC's; to_utc_timestamp(ts, zone): ts's wall-clock time in UTC read
 * as zone's.  A string ts is read in the session zone before
 * (sc_eng_tz_args()).
 */
static void
shift_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s = (const char *)sqlite3_value_text(argv[0]);
	const char *id = (const char *)sqlite3_value_text(argv[1]);
	bool to_utc = sqlite3_user_data(ctx) != NULL;
	char out[SC_VALUE_TEXT_MAX];
	struct sc_tz z;
	int64_t us;

	(void)argc;
	if (s == NULL || id == NULL)
		return;
	if (sc_tz_resolve(id, &z) == -1) {
		bad_zone(ctx, id);
		return;
	}
	if (sc_value_parse_timestamp(s, (size_t)sqlite3_value_bytes(argv[0]),
		&us) == -1)
		return;
	/* As Spark's convertTz: the wall time in one zone read in the other. */
	us = to_utc ? sc_tz_to_utc(&z, us) : sc_tz_to_local(&z, us);
	sc_value_fmt_timestamp(us, out);
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/*
 * sc_tz_utc_in(wall, zone): a wall-clock time of zone as an instant
 * (make_timestamp with a time zone).
 */
static void
utc_in_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s = (const char *)sqlite3_value_text(argv[0]);
	const char *id = (const char *)sqlite3_value_text(argv[1]);
	char out[SC_VALUE_TEXT_MAX];
	struct sc_tz z;
	int64_t us;

	(void)argc;
	if (s == NULL || id == NULL)
		return;
	if (sc_tz_resolve(id, &z) == -1) {
		bad_zone(ctx, id);
		return;
	}
	if (sc_eng_tz_parse(&z, s, (size_t)sqlite3_value_bytes(argv[0]), &us) ==
	    -1) {
		sqlite3_result_value(ctx, argv[0]);
		return;
	}
	sc_value_fmt_timestamp(us, out);
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/* current_timezone(): the session's setting as set. */
static void
current_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct sc_erun *r = sc_eng_current_run();

	(void)argc;
	(void)argv;
	sqlite3_result_text(ctx, r != NULL ? r->mode.tz : "UTC", -1,
	    SQLITE_TRANSIENT);
}

int
sc_eng_tz_register(sqlite3 *db)
{
	static int to_utc = 1;
	int rc, flags = SQLITE_UTF8;

	rc = sqlite3_create_function_v2(db, "sc_tz_local", 1, flags, NULL,
	    local_fn, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_tz_utc", 1, flags, NULL,
		    utc_fn, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_from_utc_timestamp", 2,
		    flags, NULL, shift_fn, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_to_utc_timestamp", 2,
		    flags, &to_utc, shift_fn, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_tz_utc_in", 2, flags,
		    NULL, utc_in_fn, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sc_current_timezone", 0,
		    flags, NULL, current_fn, NULL, NULL, NULL);
	return rc;
}

/* ------------------------------------- function calls (engine_fncall.c) */

/*
 * The functions reading a TIMESTAMP's wall-clock fields (date, hour,
 * ...) are flagged SC_EF_WALL in the registry.  Those whose argument is
 * a TIMESTAMP in Spark say which in ts_args (bit i: argument i): a
 * string there is cast to one, so in the session zone (a time in a
 * spring gap moves on, a zone of its own counts), where the others
 * take a DATE, the string's date part.
 */

static bool
is_ltz(const struct sc_etype *t)
{
	return t->t == SC_ARROW_TIMESTAMP_US && !t->ntz;
}

static void
wrap(struct sc_buf *b, size_t from, const char *fn)
{
	char *inner = sc_xstrdup((const char *)b->data + from);

	sc_buf_setlen(b, from);
	sc_buf_addf(b, NULL, "%s(%s)", fn, inner);
	free(inner);
}

void
sc_eng_tz_args(const struct sc_efdef *fd, const char *lname, struct sc_efarg *a,
    size_t n)
{
	size_t i;

	if (fd->flags & SC_EF_WALL) {
		unsigned ts = fd->ts_args;

		for (i = 0; i < n; i++)
			if (is_ltz(&a[i].ei.type))
				wrap(&a[i].sql, 0, "sc_tz_local");
			else if (i < 8 && (ts >> i & 1) &&
			    a[i].ei.type.t == SC_ARROW_UTF8) {
				wrap(&a[i].sql, 0, "sc_tz_utc");
				wrap(&a[i].sql, 0, "sc_tz_local");
			}
		return;
	}
	/*
	 * A TIMESTAMP compared with a string or a DATE: that side is cast
	 * to TIMESTAMP, the session zone's wall clock, as Spark does.
	 */
	if ((fd->k == F_CMP || fd->k == F_NE || fd->k == F_NULLSAFE) &&
	    n == 2) {
		for (i = 0; i < 2; i++)
			if (is_ltz(&a[1 - i].ei.type) &&
			    (a[i].ei.type.t == SC_ARROW_UTF8 ||
				a[i].ei.type.t == SC_ARROW_DATE32))
				wrap(&a[i].sql, 0, "sc_tz_utc");
		return;
	}
	/* A string or a date is read in the session zone. */
	if ((strcmp(lname, "from_utc_timestamp") == 0 ||
		strcmp(lname, "to_utc_timestamp") == 0) &&
	    n == 2 &&
	    (a[0].ei.type.t == SC_ARROW_UTF8 ||
		a[0].ei.type.t == SC_ARROW_DATE32))
		wrap(&a[0].sql, 0, "sc_tz_utc");
	/*
	 * unix_seconds() and its kin take an instant: a DATE is its day's
	 * start in the session zone; a string or TIMESTAMP_NTZ, cast with
	 * Spark's ANSI rules, is refused by sc_unix_refuse().
	 */
	if (strncmp(lname, "unix_", 5) == 0 &&
	    strcmp(lname, "unix_date") != 0 &&
	    strcmp(lname, "unix_timestamp") != 0 && n == 1 &&
	    !is_ltz(&a[0].ei.type))
		wrap(&a[0].sql, 0,
		    a[0].ei.type.t == SC_ARROW_DATE32 ? "sc_tz_utc"
						      : "sc_unix_refuse");
	if (strcmp(lname, "unix_timestamp") == 0 && n == 1 &&
	    (a[0].ei.type.t == SC_ARROW_UTF8 ||
		a[0].ei.type.t == SC_ARROW_DATE32))
		wrap(&a[0].sql, 0, "sc_tz_utc");
}

void
sc_eng_tz_result(const char *lname, const struct sc_efarg *a, size_t n,
    struct sc_buf *sql, size_t from)
{
	if (strcmp(lname, "date_trunc") == 0 ||
	    (strcmp(lname, "make_timestamp") == 0 && n == 6) ||
	    (strcmp(lname, "to_timestamp") == 0 && n == 2)) {
		wrap(sql, from, "sc_tz_utc");
	} else if (strcmp(lname, "from_unixtime") == 0) {
		wrap(sql, from, "sc_tz_local");
	} else if (strcmp(lname, "to_timestamp") == 0 && n == 1 &&
	    is_ltz(&a[0].ei.type)) {
		/* Already an instant: no round trip through the wall clock. */
		sc_buf_setlen(sql, from);
		sc_buf_addf(sql, NULL, "(%s)", (const char *)a[0].sql.data);
	} else if (strcmp(lname, "current_date") == 0 ||
	    strcmp(lname, "curdate") == 0) {
		sc_buf_setlen(sql, from);
		sc_buf_addstr(sql,
		    "date(sc_tz_local(strftime('%Y-%m-%d %H:%M:%f', 'now')))",
		    NULL);
	}
}
