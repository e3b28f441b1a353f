/* SPDX-License-Identifier: MIT */

/*
 * engine_tz.c: the session time zone (spark.sql.session.timeZone).  Zone
 * ids are read as Spark reads them (java.time.ZoneId with its short ids);
 * a region's rules come from the system's compiled tz database (TZif
 * files, engine_tzif.c), read once per zone and kept.  Nothing here
 * touches the process-wide TZ or localtime(): each call names its zone.
 */

#include "server/engine_int.h"
#include "server/engine_expr_int.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/file.h"
#include "core/value.h"
#include "core/xmem.h"
#include "server/srverror.h"
#include "core/banned.h"

#define TZIF_MAX (1 << 20) /* the largest TZif file read */
#define DAY 86400

/* The regions read so far, kept for the process's life. */
struct cached {
	char *id;
	struct sc_tzdata *z;
	struct cached *next;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cached *cache;

static int64_t
floordiv(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* ------------------------------------------------ zone ids (Java) */

/* java.time.ZoneId.SHORT_IDS, which Spark passes to ZoneId.of(). */
static const struct {
	const char *id, *is;
} short_ids[] = {
	{ "ACT", "Australia/Darwin" },
	{ "AET", "Australia/Sydney" },
	{ "AGT", "America/Argentina/Buenos_Aires" },
	{ "ART", "Africa/Cairo" },
	{ "AST", "America/Anchorage" },
	{ "BET", "America/Sao_Paulo" },
	{ "BST", "Asia/Dhaka" },
	{ "CAT", "Africa/Harare" },
	{ "CNT", "America/St_Johns" },
	{ "CST", "America/Chicago" },
	{ "CTT", "Asia/Shanghai" },
	{ "EAT", "Africa/Addis_Ababa" },
	{ "ECT", "Europe/Paris" },
	{ "EST", "-05:00" },
	{ "HST", "-10:00" },
	{ "IET", "America/Indiana/Indianapolis" },
	{ "IST", "Asia/Kolkata" },
	{ "JST", "Asia/Tokyo" },
	{ "MIT", "Pacific/Apia" },
	{ "MST", "-07:00" },
	{ "NET", "Asia/Yerevan" },
	{ "NST", "Pacific/Auckland" },
	{ "PLT", "Asia/Karachi" },
	{ "PNT", "America/Phoenix" },
	{ "PRT", "America/Puerto_Rico" },
	{ "PST", "America/Los_Angeles" },
	{ "SST", "Pacific/Guadalcanal" },
	{ "VST", "Asia/Ho_Chi_Minh" },
};

static int
two(const char *s)
{
	if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]))
		return -1;
	return (s[0] - '0') * 10 + (s[1] - '0');
}

/* ZoneOffset.of(): Z, +h, +hh, +hh:mm, +hhmm, +hh:mm:ss, +hhmmss. */
static int
zone_offset(const char *s, int32_t *out)
{
	size_t n = strlen(s);
	int h, m = 0, sec = 0, sign;

	if (strcmp(s, "Z") == 0) {
		*out = 0;
		return 0;
	}
	if (s[0] != '+' && s[0] != '-')
		return -1;
	sign = s[0] == '-' ? -1 : 1;
	switch (n) {
	case 2:
		if (!isdigit((unsigned char)s[1]))
			return -1;
		h = s[1] - '0';
		break;
	case 3:
		h = two(s + 1);
		break;
	case 5:
		h = two(s + 1);
		m = two(s + 3);
		break;
	case 6:
		h = two(s + 1);
		m = s[3] == ':' ? two(s + 4) : -1;
		break;
	case 7:
		h = two(s + 1);
		m = two(s + 3);
		sec = two(s + 5);
		break;
	case 9:
		h = two(s + 1);
		m = s[3] == ':' ? two(s + 4) : -1;
		sec = s[6] == ':' ? two(s + 7) : -1;
		break;
	default:
		return -1;
	}
	if (h < 0 || m < 0 || sec < 0 || h > 18 || m > 59 || sec > 59 ||
	    (h == 18 && (m > 0 || sec > 0)))
		return -1;
	*out = sign * (h * 3600 + m * 60 + sec);
	return 0;
}

/* Whether id may name a file of the tz database, as Java's checkName. */
static bool
region_name_ok(const char *id)
{
	static const char *const not_zones[] = { "localtime", "posixrules",
		"Factory" };
	size_t i;

	if (!isalpha((unsigned char)id[0]) || id[1] == '\0')
		return false;
	for (i = 1; id[i] != '\0'; i++)
		if (!isalnum((unsigned char)id[i]) &&
		    strchr("~/._+-", id[i]) == NULL)
			return false;
	if (strstr(id, "..") != NULL || strstr(id, "//") != NULL ||
	    id[i - 1] == '/' || strncmp(id, "posix/", 6) == 0 ||
	    strncmp(id, "right/", 6) == 0)
		return false;
	for (i = 0; i < SC_NELEM(not_zones); i++)
		if (strcmp(id, not_zones[i]) == 0)
			return false;
	return true;
}

static const char *
zoneinfo_dir(void)
{
	const char *d = getenv("TZDIR");

	return d != NULL && d[0] == '/' ? d : "/usr/share/zoneinfo";
}

/* The cached rules of a region, loading them on first use. */
static const struct sc_tzdata *
region(const char *id)
{
	struct cached *c;
	struct sc_tzdata *nz = NULL;
	const struct sc_tzdata *z = NULL;
	struct sc_error e;
	struct sc_buf data;
	char path[512];
	int n, rc;

	pthread_mutex_lock(&cache_lock);
	for (c = cache; c != NULL; c = c->next)
		if (strcmp(c->id, id) == 0)
			break;
	pthread_mutex_unlock(&cache_lock);
	if (c != NULL)
		return c->z;
	n = snprintf(path, sizeof(path), "%s/%s", zoneinfo_dir(), id);
	if (n < 0 || (size_t)n >= sizeof(path))
		return NULL;
	sc_buf_init(&data, TZIF_MAX);
	rc = sc_file_read(path, &data, &e);
	if (rc == 0)
		nz = sc_eng_tzif_new(data.data, data.len);
	sc_buf_release(&data);
	if (nz == NULL)
		return NULL;
	/* Another thread may have read it meanwhile: keep the first. */
	pthread_mutex_lock(&cache_lock);
	for (c = cache; c != NULL; c = c->next)
		if (strcmp(c->id, id) == 0)
			break;
	if (c == NULL) {
		c = sc_xmalloc(sizeof(*c));
		c->id = sc_xstrdup(id);
		c->z = nz;
		c->next = cache;
		cache = c;
		nz = NULL;
	}
	z = c->z;
	pthread_mutex_unlock(&cache_lock);
	sc_eng_tzif_free(nz);
	return z;
}

/*
 * Java's id of a fixed zone: Z, +hh:mm[:ss], or the prefix (UTC, GMT,
 * UT) alone for a zero offset and followed by the offset otherwise.
 */
static void
offset_id(char *out, size_t n, const char *prefix, int32_t off)
{
	int32_t a = off < 0 ? -off : off;

	if (off == 0) {
		snprintf(out, n, "%s", prefix[0] != '\0' ? prefix : "Z");
		return;
	}
	if (a % 60 != 0)
		snprintf(out, n, "%s%c%02d:%02d:%02d", prefix,
		    off < 0 ? '-' : '+', (int)(a / 3600), (int)(a / 60 % 60),
		    (int)(a % 60));
	else
		snprintf(out, n, "%s%c%02d:%02d", prefix, off < 0 ? '-' : '+',
		    (int)(a / 3600), (int)(a / 60 % 60));
}

/*
 * Spark's DateTimeUtils.getZoneId: "+h:" becomes "+0h:" and a final
 * "+hh:m" becomes "+hh:0m" (both forms Spark 2 accepted), then
 * ZoneId.of() with the short ids.
 */
int
sc_eng_tz_resolve(const char *id, struct sc_tz *out)
{
	char b[80], pre[4];
	const char *s, *q;
	size_t n = strlen(id), i;

	if (n == 0 || n + 2 >= sizeof(b))
		return -1;
	memcpy(b, id, n + 1);
	for (i = 0; i + 2 < n; i++)
		if ((b[i] == '+' || b[i] == '-') &&
		    isdigit((unsigned char)b[i + 1]) && b[i + 2] == ':') {
			memmove(b + i + 2, b + i + 1, n - i);
			b[i + 1] = '0';
			n++;
			break;
		}
	if (n >= 5 && (b[n - 5] == '+' || b[n - 5] == '-') &&
	    isdigit((unsigned char)b[n - 4]) &&
	    isdigit((unsigned char)b[n - 3]) && b[n - 2] == ':' &&
	    isdigit((unsigned char)b[n - 1])) {
		b[n + 1] = '\0';
		b[n] = b[n - 1];
		b[n - 1] = '0';
	}
	s = b;
	for (i = 0; i < SC_NELEM(short_ids); i++)
		if (strcmp(s, short_ids[i].id) == 0) {
			s = short_ids[i].is;
			break;
		}
	memset(out, 0, sizeof(*out));
	if (s[0] == '+' || s[0] == '-' || s[1] == '\0') {
		if (zone_offset(s, &out->fixed) == -1)
			return -1;
		offset_id(out->id, sizeof(out->id), "", out->fixed);
		return 0;
	}
	if (strcmp(s, "UTC") == 0 || strcmp(s, "GMT") == 0 ||
	    strcmp(s, "UT") == 0) {
		snprintf(out->id, sizeof(out->id), "%s", s);
		return 0;
	}
	q = NULL;
	if (strncmp(s, "UTC", 3) == 0 || strncmp(s, "GMT", 3) == 0)
		q = s + 3;
	else if (strncmp(s, "UT", 2) == 0)
		q = s + 2;
	if (q != NULL && (*q == '+' || *q == '-')) {
		if (zone_offset(q, &out->fixed) == -1)
			return -1;
		snprintf(pre, sizeof(pre), "%.*s", (int)(q - s), s);
		offset_id(out->id, sizeof(out->id), pre, out->fixed);
		return 0;
	}
	if (!region_name_ok(s))
		return -1;
	out->data = region(s);
	snprintf(out->id, sizeof(out->id), "%s", s);
	return out->data != NULL ? 0 : -1;
}

int
sc_engine_tz_check(const char *key, const char *value, struct sc_error *err)
{
	struct sc_tz z;

	if (sc_eng_tz_resolve(value, &z) == 0)
		return 0;
	return sc_srv_error(err, "INVALID_CONF_VALUE.TIME_ZONE", "22022",
	    "The value '%s' in the config \"%s\" is invalid. Cannot resolve "
	    "the given timezone.",
	    value, key);
}

/* --------------------------------------------------- conversions */

const char *
sc_eng_tz_abbr(const struct sc_tz *z, int64_t utc_secs)
{
	return z->data != NULL ? sc_eng_tzdata_abbr(z->data, utc_secs) : z->id;
}

int32_t
sc_eng_tz_offset(const struct sc_tz *z, int64_t utc_secs)
{
	return z->data != NULL ? sc_eng_tzdata_offset(z->data, utc_secs)
			       : z->fixed;
}

int64_t
sc_eng_tz_to_local(const struct sc_tz *z, int64_t us)
{
	return us +
	    (int64_t)sc_eng_tz_offset(z, floordiv(us, 1000000)) * 1000000;
}

/*
 * As java.time resolves a local date-time: in a gap (clocks forward) the
 * time moves on by the gap's length, in an overlap the earlier offset
 * (the one before the change) is taken.
 */
int64_t
sc_eng_tz_to_utc(const struct sc_tz *z, int64_t local_us)
{
	int64_t l = floordiv(local_us, 1000000), frac = local_us - l * 1000000;
	int32_t before, after, off;
	bool ok_b, ok_a;

	if (z->data == NULL)
		return local_us - (int64_t)z->fixed * 1000000;
	before = sc_eng_tz_offset(z, l - 2 * DAY);
	after = sc_eng_tz_offset(z, l + 2 * DAY);
	ok_b = sc_eng_tz_offset(z, l - before) == before;
	ok_a = sc_eng_tz_offset(z, l - after) == after;
	if (ok_b)
		off = before;
	else if (ok_a)
		off = after;
	else
		off = before; /* a gap */
	return (l - off) * 1000000 + frac;
}

/* The zone of the call the thread runs (UTC outside one). */
static _Thread_local char cur_id[sizeof(((struct sc_emode *)0)->tz)];
static _Thread_local struct sc_tz cur_zone;

const struct sc_tz *
sc_eng_tz_current(void)
{
	struct sc_erun *r = sc_eng_current_run();
	const char *id = r != NULL ? r->mode.tz : "UTC";

	if (strcmp(id, cur_id) != 0) {
		if (sc_eng_tz_resolve(id, &cur_zone) == -1) {
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
	*us = has_zone(s, n) ? v : sc_eng_tz_to_utc(z, v);
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
	sc_value_fmt_timestamp(sc_eng_tz_to_local(sc_eng_tz_current(), us),
	    out);
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
	if (sc_eng_tz_resolve(id, &z) == -1) {
		bad_zone(ctx, id);
		return;
	}
	if (sc_value_parse_timestamp(s, (size_t)sqlite3_value_bytes(argv[0]),
		&us) == -1)
		return;
	/* As Spark's convertTz: the wall time in one zone read in the other. */
	us = to_utc ? sc_eng_tz_to_utc(&z, us) : sc_eng_tz_to_local(&z, us);
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
	if (sc_eng_tz_resolve(id, &z) == -1) {
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

/* Functions reading a TIMESTAMP's wall-clock fields (date, hour, ...). */
static const char *const wall_args[] = { "add_months", "date_add",
	"date_format", "date_sub", "date_trunc", "datediff", "day",
	"dayofmonth", "dayofweek", "dayofyear", "hour", "last_day", "minute",
	"month", "months_between", "quarter", "second", "to_date", "trunc",
	"weekofyear", "year" };

/*
 * Those whose argument is a TIMESTAMP in Spark (bit i: argument i): a
 * string there is cast to one, so in the session zone (a time in a
 * spring gap moves on, a zone of its own counts), where the others
 * take a DATE, the string's date part.
 */
static const struct {
	const char *name;
	unsigned ts_args;
} ts_funcs[] = {
	{ "date_format", 1 },
	{ "date_trunc", 2 },
	{ "hour", 1 },
	{ "minute", 1 },
	{ "months_between", 3 },
	{ "second", 1 },
};

static const char *const cmp_ops[] = { "==", "=", "!=", "<>", "<", "<=", ">",
	">=", "<=>" };

static bool
listed(const char *const *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], name) == 0)
			return true;
	return false;
}

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
sc_eng_tz_args(const char *lname, struct sc_efarg *a, size_t n)
{
	size_t i;

	if (listed(wall_args, SC_NELEM(wall_args), lname)) {
		unsigned ts = 0;

		for (i = 0; i < SC_NELEM(ts_funcs); i++)
			if (strcmp(ts_funcs[i].name, lname) == 0)
				ts = ts_funcs[i].ts_args;
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
	if (listed(cmp_ops, SC_NELEM(cmp_ops), lname) && n == 2) {
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
