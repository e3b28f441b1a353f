/* SPDX-License-Identifier: MIT */

/*
 * engine_tz.c: the session time zone (spark.sql.session.timeZone).  Zone
 * ids are read as Spark reads them (java.time.ZoneId with its short ids);
 * a region's rules come from the system's compiled tz database (TZif
 * files), read once per zone and kept, its POSIX TZ footer giving the
 * times past the file's table.  Nothing here touches the process-wide TZ
 * or localtime(): each call names its zone.
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

/* One rule of a POSIX TZ string: Jn, n or Mm.w.d, and a time. */
struct prule {
	char kind; /* 'J', 'D' (day of year from 0), 'M' */
	int a, b, c; /* J/D: a = day; M: month a, week b, weekday c */
	int32_t secs; /* local time of the change */
};

struct posix {
	int32_t std; /* offsets east of UTC, in seconds */
	int32_t dst;
	bool has_dst;
	struct prule start, end;
};

/* A region's rules, loaded once and kept for the process's life. */
struct sc_tzdata {
	char *id;
	int64_t *when; /* transitions, UTC seconds, ascending */
	int32_t *off; /* the offset from when[i] on */
	size_t n;
	int32_t off0; /* before the first transition */
	bool has_posix; /* after the last one: footer */
	struct posix px;
	struct sc_tzdata *next;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sc_tzdata *cache;

/* ---------------------------------------------------------- TZif */

static int64_t
be(const unsigned char *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	if (n == 4)
		return (int32_t)(uint32_t)v;
	return (int64_t)v;
}

/* [+-]hh[:mm[:ss]] at *sp, hours up to 167 (RFC 8536). */
static int
posix_time(const char **sp, int32_t *out)
{
	const char *s = *sp;
	int sign = 1, h = 0, m = 0, sec = 0, k;

	if (*s == '+' || *s == '-')
		sign = *s++ == '-' ? -1 : 1;
	for (k = 0; isdigit((unsigned char)*s) && k < 3; k++)
		h = h * 10 + (*s++ - '0');
	if (k == 0 || h > 167)
		return -1;
	if (*s == ':') {
		s++;
		if (!isdigit((unsigned char)s[0]) ||
		    !isdigit((unsigned char)s[1]))
			return -1;
		m = (s[0] - '0') * 10 + (s[1] - '0');
		s += 2;
		if (*s == ':') {
			s++;
			if (!isdigit((unsigned char)s[0]) ||
			    !isdigit((unsigned char)s[1]))
				return -1;
			sec = (s[0] - '0') * 10 + (s[1] - '0');
			s += 2;
		}
	}
	*out = sign * (h * 3600 + m * 60 + sec);
	*sp = s;
	return 0;
}

/* A zone abbreviation: letters, or <...> with signs and digits too. */
static int
posix_name(const char **sp)
{
	const char *s = *sp;
	size_t k = 0;

	if (*s == '<') {
		for (s++; *s != '\0' && *s != '>'; s++)
			k++;
		if (*s != '>' || k < 3)
			return -1;
		*sp = s + 1;
		return 0;
	}
	for (; isalpha((unsigned char)*s); s++)
		k++;
	if (k < 3)
		return -1;
	*sp = s;
	return 0;
}

static int
posix_rule(const char **sp, struct prule *r)
{
	const char *s = *sp;
	char *e;

	if (*s == 'M') {
		r->kind = 'M';
		r->a = (int)strtol(s + 1, &e, 10);
		if (*e != '.')
			return -1;
		r->b = (int)strtol(e + 1, &e, 10);
		if (*e != '.')
			return -1;
		r->c = (int)strtol(e + 1, &e, 10);
		if (r->a < 1 || r->a > 12 || r->b < 1 || r->b > 5 || r->c < 0 ||
		    r->c > 6)
			return -1;
	} else {
		r->kind = *s == 'J' ? 'J' : 'D';
		if (*s == 'J')
			s++;
		if (!isdigit((unsigned char)*s))
			return -1;
		r->a = (int)strtol(s, &e, 10);
		if (r->a > 365 || (r->kind == 'J' && r->a < 1))
			return -1;
	}
	s = e;
	r->secs = 7200;
	if (*s == '/') {
		s++;
		if (posix_time(&s, &r->secs) == -1)
			return -1;
	}
	*sp = s;
	return 0;
}

/* A TZ string such as "CET-1CEST,M3.5.0,M10.5.0/3". */
static int
posix_parse(const char *s, struct posix *p)
{
	int32_t t;

	memset(p, 0, sizeof(*p));
	if (posix_name(&s) == -1 || posix_time(&s, &t) == -1)
		return -1;
	p->std = -t;
	if (*s == '\0') {
		p->dst = p->std;
		return 0;
	}
	if (posix_name(&s) == -1)
		return -1;
	p->has_dst = true;
	p->dst = p->std + 3600;
	if (*s != ',' && *s != '\0') {
		if (posix_time(&s, &t) == -1)
			return -1;
		p->dst = -t;
	}
	/* No rules: US rules, as POSIX implementations default to. */
	if (*s == '\0') {
		p->start = (struct prule){ 'M', 3, 2, 0, 7200 };
		p->end = (struct prule){ 'M', 11, 1, 0, 7200 };
		return 0;
	}
	if (*s++ != ',' || posix_rule(&s, &p->start) == -1 || *s++ != ',' ||
	    posix_rule(&s, &p->end) == -1 || *s != '\0')
		return -1;
	return 0;
}

static bool
leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Days since 1970-01-01 of y-m-d, proleptic Gregorian. */
static int64_t
civil_days(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int64_t
year_of_days(int64_t days)
{
	int64_t z = days + 719468, era, doe, yoe, doy, mp, y;

	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	return y + (mp >= 10);
}

static int64_t
floordiv(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* The local date (days) a rule names in year y. */
static int64_t
rule_day(const struct prule *r, int64_t y)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30,
		31 };
	int64_t first, d;
	int dim, wd;

	if (r->kind == 'J')
		return civil_days(y, 1, 1) + r->a - 1 + (leap(y) && r->a >= 60);
	if (r->kind == 'D')
		return civil_days(y, 1, 1) + r->a;
	first = civil_days(y, r->a, 1);
	wd = (int)(((first + 4) % 7 + 7) % 7); /* 1970-01-01: Thursday */
	d = first + ((r->c - wd + 7) % 7) + (int64_t)(r->b - 1) * 7;
	dim = mdays[r->a - 1] + (r->a == 2 && leap(y));
	while (d >= first + dim)
		d -= 7;
	return d;
}

static int32_t
posix_offset(const struct posix *p, int64_t t)
{
	int64_t y, start, end;

	if (!p->has_dst)
		return p->std;
	y = year_of_days(floordiv(t + p->std, DAY));
	/* Start is given in standard time, end in daylight time. */
	start = rule_day(&p->start, y) * DAY + p->start.secs - p->std;
	end = rule_day(&p->end, y) * DAY + p->end.secs - p->dst;
	if (start < end)
		return t >= start && t < end ? p->dst : p->std;
	return t >= end && t < start ? p->std : p->dst;
}

/*
 * The version 2+ part of a TZif file (64-bit times) and its footer;
 * version 1 files (32-bit only) are read from their only block.
 */
static int
tzif_parse(const unsigned char *p, size_t len, struct sc_tzdata *z)
{
	size_t hdr = 44, cnt[6], i, need, ts;
	const unsigned char *d, *types, *idx, *end = p + len;
	int version;

	if (len < hdr || memcmp(p, "TZif", 4) != 0)
		return -1;
	version = p[4] == 0 ? 1 : p[4] - '0';
	for (i = 0; i < 6; i++)
		cnt[i] = (size_t)(uint32_t)be(p + 20 + 4 * i, 4);
	/* isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt */
	ts = 4;
	need = cnt[3] * 5 + cnt[4] * 6 + cnt[5] + cnt[2] * 8 + cnt[1] + cnt[0];
	if (version >= 2) {
		if (len - hdr < need + hdr)
			return -1;
		p += hdr + need;
		if (memcmp(p, "TZif", 4) != 0)
			return -1;
		for (i = 0; i < 6; i++)
			cnt[i] = (size_t)(uint32_t)be(p + 20 + 4 * i, 4);
		ts = 8;
		need = cnt[3] * 9 + cnt[4] * 6 + cnt[5] + cnt[2] * 12 + cnt[1] +
		    cnt[0];
	}
	if (cnt[4] == 0 || cnt[3] > 1000000 || cnt[4] > 256 ||
	    (size_t)(end - p) < hdr + need)
		return -1;
	d = p + hdr;
	idx = d + cnt[3] * ts;
	types = idx + cnt[3];
	memset(z, 0, sizeof(*z));
	z->when = sc_xcalloc(cnt[3] ? cnt[3] : 1, sizeof(*z->when));
	z->off = sc_xcalloc(cnt[3] ? cnt[3] : 1, sizeof(*z->off));
	z->n = cnt[3];
	for (i = 0; i < cnt[3]; i++) {
		if (idx[i] >= cnt[4])
			goto bad;
		z->when[i] = be(d + i * ts, (int)ts);
		z->off[i] = (int32_t)be(types + idx[i] * 6, 4);
		if (i > 0 && z->when[i] <= z->when[i - 1])
			goto bad;
	}
	z->off0 = (int32_t)be(types, 4);
	if (version >= 2) {
		const unsigned char *f = p + hdr + need, *nl;
		char tz[128];

		if (f < end && *f == '\n' &&
		    (nl = memchr(f + 1, '\n', (size_t)(end - f - 1))) != NULL &&
		    nl > f + 1 && (size_t)(nl - f - 1) < sizeof(tz)) {
			memcpy(tz, f + 1, (size_t)(nl - f - 1));
			tz[nl - f - 1] = '\0';
			z->has_posix = posix_parse(tz, &z->px) == 0;
		}
	}
	return 0;
bad:
	free(z->when);
	free(z->off);
	memset(z, 0, sizeof(*z));
	return -1;
}

struct sc_tzdata *
sc_eng_tzif_new(const unsigned char *p, size_t len)
{
	struct sc_tzdata *z = sc_xmalloc(sizeof(*z));

	if (tzif_parse(p, len, z) == -1) {
		free(z);
		return NULL;
	}
	return z;
}

void
sc_eng_tzif_free(struct sc_tzdata *z)
{
	if (z == NULL)
		return;
	free(z->when);
	free(z->off);
	free(z->id);
	free(z);
}

int32_t
sc_eng_tzdata_offset(const struct sc_tzdata *z, int64_t t)
{
	size_t lo = 0, hi = z->n;

	if (z->n == 0)
		return z->has_posix ? posix_offset(&z->px, t) : z->off0;
	if (t < z->when[0])
		return z->off0;
	if (t >= z->when[z->n - 1] && z->has_posix)
		return posix_offset(&z->px, t);
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (z->when[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return z->off[lo];
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
	struct sc_tzdata *z, *nz = NULL;
	struct sc_error e;
	struct sc_buf data;
	char path[512];
	int n, rc;

	pthread_mutex_lock(&cache_lock);
	for (z = cache; z != NULL; z = z->next)
		if (strcmp(z->id, id) == 0)
			break;
	pthread_mutex_unlock(&cache_lock);
	if (z != NULL)
		return z;
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
	pthread_mutex_lock(&cache_lock);
	for (z = cache; z != NULL; z = z->next)
		if (strcmp(z->id, id) == 0)
			break;
	if (z == NULL) {
		z = nz;
		z->id = sc_xstrdup(id);
		z->next = cache;
		cache = z;
	} else {
		sc_eng_tzif_free(nz);
	}
	pthread_mutex_unlock(&cache_lock);
	return z;
}

/*
 * Spark's DateTimeUtils.getZoneId: "+h:" becomes "+0h:" and a final
 * "+hh:m" becomes "+hh:0m" (both forms Spark 2 accepted), then
 * ZoneId.of() with the short ids.
 */
int
sc_eng_tz_resolve(const char *id, struct sc_tz *out)
{
	char b[80];
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
	out->data = NULL;
	out->fixed = 0;
	if (s[0] == '+' || s[0] == '-' || s[1] == '\0')
		return zone_offset(s, &out->fixed);
	if (strcmp(s, "UTC") == 0 || strcmp(s, "GMT") == 0 ||
	    strcmp(s, "UT") == 0)
		return 0;
	q = NULL;
	if (strncmp(s, "UTC", 3) == 0 || strncmp(s, "GMT", 3) == 0)
		q = s + 3;
	else if (strncmp(s, "UT", 2) == 0)
		q = s + 2;
	if (q != NULL && (*q == '+' || *q == '-'))
		return zone_offset(q, &out->fixed);
	if (!region_name_ok(s))
		return -1;
	out->data = region(s);
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
		if (sc_eng_tz_resolve(id, &cur_zone) == -1)
			memset(&cur_zone, 0, sizeof(cur_zone));
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

/*
 * from_utc_timestamp(ts, zone): ts's wall-clock time in zone, read as
 * UTC's; to_utc_timestamp(ts, zone): ts's wall-clock time in UTC read
 * as zone's.  A string ts is first read in the session zone.
 */
static void
shift_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s = (const char *)sqlite3_value_text(argv[0]);
	const char *id = (const char *)sqlite3_value_text(argv[1]);
	bool to_utc = sqlite3_user_data(ctx) != NULL;
	const struct sc_tz *cur = sc_eng_tz_current();
	char out[SC_VALUE_TEXT_MAX];
	struct sc_tz z;
	int64_t us;

	(void)argc;
	if (s == NULL || id == NULL)
		return;
	if (sc_eng_tz_resolve(id, &z) == -1) {
		sc_eng_func_fail(ctx,
		    "[INVALID_TIMEZONE] The timezone: %s is invalid. The "
		    "timezone must be either a region-based zone ID or a zone "
		    "offset. Region IDs must have the form 'area/city', such "
		    "as 'America/Los_Angeles'. Zone offsets must be in the "
		    "format '(+|-)HH', '(+|-)HH:mm' or '(+|-)HH:mm:ss', e.g "
		    "'-08', '+01:00' or '-13:33:33', and must be in the range "
		    "from -18:00 to +18:00. 'Z' and 'UTC' are accepted as "
		    "synonyms for '+00:00'. SQLSTATE: 22009",
		    id);
		return;
	}
	if (sc_eng_tz_parse(cur, s, (size_t)sqlite3_value_bytes(argv[0]),
		&us) == -1)
		return;
	/* As Spark's convertTz: the wall time in one zone read in the other. */
	us = to_utc ? sc_eng_tz_to_utc(&z, us) : sc_eng_tz_to_local(&z, us);
	sc_value_fmt_timestamp(us, out);
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
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
	return rc;
}

/* ------------------------------------- function calls (engine_fncall.c) */

/* Functions reading a TIMESTAMP's wall-clock fields (date, hour, ...). */
static const char *const wall_args[] = { "add_months", "date_add",
	"date_format", "date_sub", "date_trunc", "datediff", "day",
	"dayofmonth", "dayofweek", "dayofyear", "hour", "last_day", "minute",
	"month", "months_between", "quarter", "second", "to_date", "trunc",
	"weekofyear", "year" };

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
		for (i = 0; i < n; i++)
			if (is_ltz(&a[i].ei.type))
				wrap(&a[i].sql, 0, "sc_tz_local");
		return;
	}
	/* A string or a date is read in the session zone. */
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
