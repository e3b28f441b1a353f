/* SPDX-License-Identifier: MIT */

/*
 * tz.c: time zones as Spark names them (java.time.ZoneId, with its
 * short ids) and their rules: fixed offsets, and regions read from the
 * system's compiled tz database (TZif files, RFC 8536, versions 1 to 4,
 * with the footer's POSIX TZ string for the times past the table), each
 * read once and kept for the process's life.  Nothing here touches the
 * process-wide TZ or localtime(): each call names its zone.  sc-serve
 * computes in the session's zone; sc-exec shows a result's timestamps
 * in the zone its Arrow column carries.
 */

#include "core/tz.h"

#include <ctype.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/file.h"
#include "core/value.h"
#include "core/xmem.h"
#include "core/banned.h"

#define DAY 86400
#define ABBR_MAX 8 /* an abbreviation's bytes, with the NUL */

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
	char std_abbr[ABBR_MAX], dst_abbr[ABBR_MAX];
};

/* A region's rules. */
struct sc_tzdata {
	int64_t *when; /* transitions, UTC seconds, ascending */
	int32_t *off; /* the offset from when[i] on */
	char (*abbr)[ABBR_MAX]; /* and its abbreviation (PST, CEST, ...) */
	size_t n;
	int32_t off0; /* before the first transition */
	char abbr0[ABBR_MAX];
	bool has_posix; /* after the last one: footer */
	struct posix px;
};

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
posix_name(const char **sp, char *out)
{
	const char *s = *sp, *from;
	size_t k = 0;

	if (*s == '<') {
		for (from = ++s; *s != '\0' && *s != '>'; s++)
			k++;
		if (*s != '>' || k < 3)
			return -1;
		*sp = s + 1;
	} else {
		for (from = s; isalpha((unsigned char)*s); s++)
			k++;
		if (k < 3)
			return -1;
		*sp = s;
	}
	snprintf(out, ABBR_MAX, "%.*s", (int)k, from);
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
	if (posix_name(&s, p->std_abbr) == -1 || posix_time(&s, &t) == -1)
		return -1;
	p->std = -t;
	if (*s == '\0') {
		p->dst = p->std;
		return 0;
	}
	if (posix_name(&s, p->dst_abbr) == -1)
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

static int64_t
year_of_days(int64_t days)
{
	int64_t y;
	int m, d;

	sc_value_civil_from_days(days, &y, &m, &d);
	return y;
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
		return sc_value_days_from_civil(y, 1, 1) + r->a - 1 +
		    (leap(y) && r->a >= 60);
	if (r->kind == 'D')
		return sc_value_days_from_civil(y, 1, 1) + r->a;
	first = sc_value_days_from_civil(y, r->a, 1);
	wd = (int)(((first + 4) % 7 + 7) % 7); /* 1970-01-01: Thursday */
	d = first + ((r->c - wd + 7) % 7) + (int64_t)(r->b - 1) * 7;
	dim = mdays[r->a - 1] + (r->a == 2 && leap(y));
	while (d >= first + dim)
		d -= 7;
	return d;
}

static bool
posix_is_dst(const struct posix *p, int64_t t)
{
	int64_t y, start, end;

	if (!p->has_dst)
		return false;
	y = year_of_days(floordiv(t + p->std, DAY));
	/* Start is given in standard time, end in daylight time. */
	start = rule_day(&p->start, y) * DAY + p->start.secs - p->std;
	end = rule_day(&p->end, y) * DAY + p->end.secs - p->dst;
	if (start < end)
		return t >= start && t < end;
	return !(t >= end && t < start);
}

/* The abbreviation a local time type (6 bytes) names in chars[0..n). */
static void
abbr(const unsigned char *type, const unsigned char *chars, size_t n,
    char out[ABBR_MAX])
{
	size_t i = type[5], k;

	for (k = 0; i + k < n && chars[i + k] != '\0' && k + 1 < ABBR_MAX; k++)
		out[k] = (char)chars[i + k];
	out[k] = '\0';
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
	z->abbr = sc_xcalloc(cnt[3] ? cnt[3] : 1, sizeof(*z->abbr));
	z->n = cnt[3];
	for (i = 0; i < cnt[3]; i++) {
		if (idx[i] >= cnt[4])
			goto bad;
		z->when[i] = be(d + i * ts, (int)ts);
		z->off[i] = (int32_t)be(types + idx[i] * 6, 4);
		abbr(types + idx[i] * 6, types + cnt[4] * 6, cnt[5],
		    z->abbr[i]);
		if (i > 0 && z->when[i] <= z->when[i - 1])
			goto bad;
	}
	z->off0 = (int32_t)be(types, 4);
	abbr(types, types + cnt[4] * 6, cnt[5], z->abbr0);
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
	free(z->abbr);
	memset(z, 0, sizeof(*z));
	return -1;
}

struct sc_tzdata *
sc_tzif_new(const unsigned char *p, size_t len)
{
	struct sc_tzdata *z = sc_xmalloc(sizeof(*z));

	if (tzif_parse(p, len, z) == -1) {
		free(z);
		return NULL;
	}
	return z;
}

void
sc_tzif_free(struct sc_tzdata *z)
{
	if (z == NULL)
		return;
	free(z->when);
	free(z->off);
	free(z->abbr);
	free(z);
}

/*
 * The offset and abbreviation at t: the table, type 0 before it, the
 * footer after its last transition.
 */
static int32_t
lookup(const struct sc_tzdata *z, int64_t t, const char **ab)
{
	size_t lo = 0, hi = z->n;
	bool dst;

	if (z->has_posix && (z->n == 0 || t >= z->when[z->n - 1])) {
		dst = posix_is_dst(&z->px, t);
		*ab = dst ? z->px.dst_abbr : z->px.std_abbr;
		return dst ? z->px.dst : z->px.std;
	}
	if (z->n == 0 || t < z->when[0]) {
		*ab = z->abbr0;
		return z->off0;
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (z->when[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	*ab = z->abbr[lo];
	return z->off[lo];
}

int32_t
sc_tzdata_offset(const struct sc_tzdata *z, int64_t t)
{
	const char *ab;

	return lookup(z, t, &ab);
}

const char *
sc_tzdata_abbr(const struct sc_tzdata *z, int64_t t)
{
	const char *ab;

	lookup(z, t, &ab);
	return ab;
}

/* ------------------------------------------------ zone ids and rules */

#define TZIF_MAX (1 << 20) /* the largest TZif file read */

/* The regions read so far, kept for the process's life. */
struct cached {
	char *id;
	struct sc_tzdata *z;
	struct cached *next;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cached *cache;

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
		nz = sc_tzif_new(data.data, data.len);
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
	sc_tzif_free(nz);
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
sc_tz_resolve(const char *id, struct sc_tz *out)
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

const char *
sc_tz_abbr(const struct sc_tz *z, int64_t utc_secs)
{
	return z->data != NULL ? sc_tzdata_abbr(z->data, utc_secs) : z->id;
}

int32_t
sc_tz_offset(const struct sc_tz *z, int64_t utc_secs)
{
	return z->data != NULL ? sc_tzdata_offset(z->data, utc_secs) : z->fixed;
}

/*
 * us kept two days inside int64's range, so that a zone's offset added
 * or taken away cannot overflow (Spark supports years 1 to 9999).
 */
static int64_t
inside(int64_t us)
{
	const int64_t margin = 2 * (int64_t)DAY * 1000000;

	return us < INT64_MIN + margin ? INT64_MIN + margin
	    : us > INT64_MAX - margin  ? INT64_MAX - margin
				       : us;
}

int64_t
sc_tz_to_local(const struct sc_tz *z, int64_t us)
{
	us = inside(us);
	return us + (int64_t)sc_tz_offset(z, floordiv(us, 1000000)) * 1000000;
}

/*
 * As java.time resolves a local date-time: in a gap (clocks forward) the
 * time moves on by the gap's length, in an overlap the earlier offset
 * (the one before the change) is taken.
 */
int64_t
sc_tz_to_utc(const struct sc_tz *z, int64_t local_us)
{
	int64_t l, frac;
	int32_t before, after, off;
	bool ok_b, ok_a;

	local_us = inside(local_us);
	l = floordiv(local_us, 1000000);
	frac = local_us - l * 1000000;
	if (z->data == NULL)
		return local_us - (int64_t)z->fixed * 1000000;
	before = sc_tz_offset(z, l - 2 * DAY);
	after = sc_tz_offset(z, l + 2 * DAY);
	ok_b = sc_tz_offset(z, l - before) == before;
	ok_a = sc_tz_offset(z, l - after) == after;
	if (ok_b)
		off = before;
	else if (ok_a)
		off = after;
	else
		off = before; /* a gap */
	return (l - off) * 1000000 + frac;
}
