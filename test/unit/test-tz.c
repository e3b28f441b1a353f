/* SPDX-License-Identifier: MIT */

/*
 * test-tz.c: the TZif reader and the zone ids of engine_tz.c.  Files
 * are built here byte by byte (RFC 8536's layout), so the expected
 * offsets are the ones written; the system's America/Los_Angeles and
 * Europe/Paris are checked against the published US and EU rules.
 */

#include "engine/engine_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

static void
put(struct sc_buf *b, uint64_t v, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--)
		sc_buf_addch(b, (int)(v >> (8 * i) & 0xff), NULL);
}

static void
header(struct sc_buf *b, char version, uint32_t timecnt, uint32_t typecnt,
    uint32_t charcnt)
{
	int i;

	sc_buf_add(b, "TZif", 4, NULL);
	sc_buf_addch(b, version, NULL);
	for (i = 0; i < 15; i++)
		sc_buf_addch(b, 0, NULL);
	put(b, 0, 4); /* isutcnt */
	put(b, 0, 4); /* isstdcnt */
	put(b, 0, 4); /* leapcnt */
	put(b, timecnt, 4);
	put(b, typecnt, 4);
	put(b, charcnt, 4);
}

struct ttype {
	int32_t off;
	int dst;
};

/*
 * A version 2 file with transitions when[i] to type idx[i] of types,
 * and footer (NULL: none); its version 1 block holds one type only.
 */
static void
tzif(struct sc_buf *b, const int64_t *when, const uint8_t *idx, size_t n,
    const struct ttype *types, size_t ntypes, const char *footer)
{
	size_t i;

	sc_buf_init(b, SC_BUF_UNLIMITED);
	header(b, '2', 0, 1, 4);
	put(b, 0, 4);
	put(b, 0, 1);
	put(b, 0, 1);
	sc_buf_add(b, "UTC", 4, NULL);
	header(b, '2', (uint32_t)n, (uint32_t)ntypes, 4);
	for (i = 0; i < n; i++)
		put(b, (uint64_t)when[i], 8);
	for (i = 0; i < n; i++)
		put(b, idx[i], 1);
	for (i = 0; i < ntypes; i++) {
		put(b, (uint32_t)types[i].off, 4);
		put(b, (uint64_t)types[i].dst, 1);
		put(b, 0, 1);
	}
	sc_buf_add(b, "LMT", 4, NULL);
	if (footer != NULL) {
		sc_buf_addch(b, '\n', NULL);
		sc_buf_addstr(b, footer, NULL);
		sc_buf_addch(b, '\n', NULL);
	}
}

/* Seconds since the epoch of a UTC date and time. */
static int64_t
utc(int y, int m, int d, int h, int mi)
{
	int64_t era, yoe, doy, doe, yy = y - (m <= 2);

	era = (yy >= 0 ? yy : yy - 399) / 400;
	yoe = yy - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (era * 146097 + doe - 719468) * 86400 + h * 3600 + mi * 60;
}

static void
test_table_and_footer(void)
{
	/* New York: EST -5, EDT -4, two changes in 2007, then the rule. */
	static const struct ttype types[] = { { -17762, 0 }, { -18000, 0 },
		{ -14400, 1 } };
	int64_t when[3];
	uint8_t idx[] = { 1, 2, 1 };
	struct sc_tzdata *z;
	struct sc_buf b;

	when[0] = utc(1883, 11, 18, 17, 0);
	when[1] = utc(2007, 3, 11, 7, 0);
	when[2] = utc(2007, 11, 4, 6, 0);
	tzif(&b, when, idx, 3, types, 3, "EST5EDT,M3.2.0,M11.1.0");
	z = sc_tzif_new(b.data, b.len);
	ok(z != NULL, "a version 2 file is read");
	is_int(sc_tzdata_offset(z, utc(1800, 1, 1, 0, 0)), -17762,
	    "before the first transition: type 0 (local mean time)");
	is_int(sc_tzdata_offset(z, utc(1990, 1, 1, 0, 0)), -18000,
	    "between transitions: the table");
	is_int(sc_tzdata_offset(z, when[1] - 1), -18000,
	    "one second before a transition");
	is_int(sc_tzdata_offset(z, when[1]), -14400,
	    "at a transition: the new offset");
	/* Past the table: the footer's rule, second Sunday of March. */
	is_int(sc_tzdata_offset(z, utc(2024, 3, 10, 6, 59)), -18000,
	    "footer: 2024-03-10 06:59Z is still EST");
	is_int(sc_tzdata_offset(z, utc(2024, 3, 10, 7, 0)), -14400,
	    "footer: 2024-03-10 07:00Z is EDT");
	is_int(sc_tzdata_offset(z, utc(2024, 11, 3, 5, 59)), -14400,
	    "footer: 2024-11-03 05:59Z is still EDT");
	is_int(sc_tzdata_offset(z, utc(2024, 11, 3, 6, 0)), -18000,
	    "footer: 2024-11-03 06:00Z is EST");
	/* 2100-03-14 is that March's second Sunday. */
	is_int(sc_tzdata_offset(z, utc(2100, 3, 14, 7, 0)), -14400,
	    "footer: far past the table");
	is_int(sc_tzdata_offset(z, utc(2100, 3, 14, 6, 0)), -18000,
	    "footer: the hour before, far past the table");
	is_str(sc_tzdata_abbr(z, utc(1990, 1, 1, 0, 0)), "LMT",
	    "the table's abbreviation");
	is_str(sc_tzdata_abbr(z, utc(2024, 7, 1, 0, 0)), "EDT",
	    "the footer's daylight abbreviation");
	is_str(sc_tzdata_abbr(z, utc(2024, 1, 1, 0, 0)), "EST",
	    "the footer's standard abbreviation");
	sc_tzif_free(z);
	sc_buf_release(&b);

	/* Southern hemisphere: Sydney, DST from October to April. */
	tzif(&b, NULL, NULL, 0, (const struct ttype[]){ { 36000, 0 } }, 1,
	    "AEST-10AEDT,M10.1.0,M4.1.0/3");
	z = sc_tzif_new(b.data, b.len);
	ok(z != NULL, "a file with no transitions, only a footer");
	is_int(sc_tzdata_offset(z, utc(2024, 1, 15, 0, 0)), 39600,
	    "southern footer: January is daylight time");
	is_int(sc_tzdata_offset(z, utc(2024, 7, 15, 0, 0)), 36000,
	    "southern footer: July is standard time");
	/* 2024-04-07 03:00 AEDT = 2024-04-06 16:00Z */
	is_int(sc_tzdata_offset(z, utc(2024, 4, 6, 15, 59)), 39600,
	    "southern footer: just before the April change");
	is_int(sc_tzdata_offset(z, utc(2024, 4, 6, 16, 0)), 36000,
	    "southern footer: at the April change");
	sc_tzif_free(z);
	sc_buf_release(&b);

	/* A quoted name and a fixed zone. */
	tzif(&b, NULL, NULL, 0, (const struct ttype[]){ { 19800, 0 } }, 1,
	    "<+0530>-5:30");
	z = sc_tzif_new(b.data, b.len);
	is_int(z != NULL ? sc_tzdata_offset(z, 0) : -1, 19800,
	    "footer with a <+0530> name and minutes");
	is_str(z != NULL ? sc_tzdata_abbr(z, 0) : NULL, "+0530",
	    "a quoted abbreviation");
	sc_tzif_free(z);
	sc_buf_release(&b);
}

static void
test_malformed(void)
{
	static const struct ttype types[] = { { 0, 0 }, { 3600, 0 } };
	int64_t when[] = { 100, 50 };
	uint8_t idx[] = { 1, 0 }, bad_idx[] = { 5 };
	struct sc_buf b;
	size_t cut;

	tzif(&b, when, idx, 2, types, 2, NULL);
	ok(sc_tzif_new(b.data, b.len) == NULL,
	    "transitions out of order are refused");
	sc_buf_release(&b);
	tzif(&b, when, bad_idx, 1, types, 2, NULL);
	ok(sc_tzif_new(b.data, b.len) == NULL,
	    "a type index past the types is refused");
	sc_buf_release(&b);
	tzif(&b, when + 1, idx, 1, types, 2, "CET-1");
	for (cut = 0; cut < b.len - 7; cut++) {
		/* Every cut short of the footer loses part of the data. */
		if (sc_tzif_new(b.data, cut) != NULL)
			break;
	}
	is_int(cut, b.len - 7, "every truncated file is refused");
	b.data[0] = 'X';
	ok(sc_tzif_new(b.data, b.len) == NULL, "a bad magic is refused");
	sc_buf_release(&b);
	ok(sc_tzif_new((const unsigned char *)"", 0) == NULL,
	    "an empty file is refused");
}

static void
test_ids(void)
{
	static const struct {
		const char *id;
		int ok;
		int32_t fixed; /* when a fixed offset */
	} ids[] = {
		{ "UTC", 1, 0 }, { "Z", 1, 0 }, { "GMT", 1, 0 },
		{ "+08:00", 1, 28800 }, { "-07:30", 1, -27000 },
		{ "+8", 1, 28800 },
		{ "+8:00", 1, 28800 }, /* Spark makes it +08:00 */
		{ "+08:3", 1, 28980 }, /* and this +08:03 */
		{ "-0530", 1, -19800 }, { "+18:00", 1, 64800 },
		{ "UTC+8", 1, 28800 }, { "GMT-05:00", 1, -18000 },
		{ "UT+01", 1, 3600 },
		{ "EST", 1, -18000 }, /* a short id: -05:00 */
		{ "+19:00", 0, 0 }, { "+08:60", 0, 0 }, { "+123", 0, 0 },
		{ "UTC+", 0, 0 }, { "", 0, 0 }, { "utc", 0, 0 },
		{ "Nowhere/City", 0, 0 }, { "../etc/passwd", 0, 0 },
		{ "/etc/passwd", 0, 0 },
		{ "America/../America/New_York", 0, 0 },
		{ "posix/Europe/Paris", 0, 0 }, { "localtime", 0, 0 },
		{ "America", 0, 0 }, /* a directory */
		{ "zone.tab", 0, 0 }, /* no TZif */
	};
	struct sc_tz z;
	size_t i;

	for (i = 0; i < SC_NELEM(ids); i++) {
		int rc = sc_tz_resolve(ids[i].id, &z);

		is_int(rc, ids[i].ok ? 0 : -1, "zone id '%s' %s", ids[i].id,
		    ids[i].ok ? "accepted" : "refused");
		if (rc == 0 && ids[i].ok)
			is_int(z.data == NULL ? z.fixed : -1, ids[i].fixed,
			    "zone id '%s': fixed offset", ids[i].id);
	}
}

static void
test_java_ids(void)
{
	static const struct {
		const char *id, *java;
	} ids[] = {
		{ "+8:00", "+08:00" },
		{ "+00:00", "Z" },
		{ "-0530", "-05:30" },
		{ "+01:02:03", "+01:02:03" },
		{ "UTC+8", "UTC+08:00" },
		{ "GMT+0", "GMT" },
		{ "UT-01:30", "UT-01:30" },
		{ "UTC", "UTC" },
		{ "EST", "-05:00" },
	};
	struct sc_tz z;
	size_t i;

	for (i = 0; i < SC_NELEM(ids); i++) {
		memset(&z, 0, sizeof(z));
		sc_tz_resolve(ids[i].id, &z);
		is_str(z.id, ids[i].java, "the id of '%s' as Java's",
		    ids[i].id);
	}
}

static void
test_system_zones(void)
{
	struct sc_tz la, paris, pst;
	int64_t l;

	if (access("/usr/share/zoneinfo/America/Los_Angeles", R_OK) != 0) {
		ok(1, "# SKIP no tz database");
		return;
	}
	ok(sc_tz_resolve("America/Los_Angeles", &la) == 0 && la.data != NULL,
	    "America/Los_Angeles is read from the tz database");
	ok(sc_tz_resolve("PST", &pst) == 0 && pst.data == la.data,
	    "PST is America/Los_Angeles, cached once");
	ok(sc_tz_resolve("Europe/Paris", &paris) == 0, "Europe/Paris is read");
	is_int(sc_tz_offset(&la, utc(2024, 1, 15, 12, 0)), -28800,
	    "Los Angeles in January: PST");
	is_int(sc_tz_offset(&la, utc(2024, 7, 15, 12, 0)), -25200,
	    "Los Angeles in July: PDT");
	is_int(sc_tz_offset(&la, utc(2060, 7, 15, 12, 0)), -25200,
	    "Los Angeles in July 2060 (the footer's rule)");
	is_int(sc_tz_offset(&paris, utc(2024, 3, 31, 0, 59)), 3600,
	    "Paris before the last Sunday of March 01:00Z");
	is_int(sc_tz_offset(&paris, utc(2024, 3, 31, 1, 0)), 7200,
	    "Paris from the last Sunday of March 01:00Z");
	/* The gap: 2024-03-10 02:30 does not exist; java.time: 03:30 PDT. */
	l = utc(2024, 3, 10, 2, 30) * 1000000;
	is_int(sc_tz_to_utc(&la, l), utc(2024, 3, 10, 10, 30) * 1000000,
	    "a time in the spring gap moves on by the gap");
	/* The overlap: 2024-11-03 01:30 twice; java.time: the earlier. */
	l = utc(2024, 11, 3, 1, 30) * 1000000 + 5;
	is_int(sc_tz_to_utc(&la, l), utc(2024, 11, 3, 8, 30) * 1000000 + 5,
	    "a time in the autumn overlap takes the earlier offset (PDT)");
	l = utc(2024, 10, 27, 2, 30) * 1000000;
	is_int(sc_tz_to_utc(&paris, l), utc(2024, 10, 27, 0, 30) * 1000000,
	    "Paris overlap: CEST, the earlier offset");
	l = utc(2024, 3, 31, 2, 30) * 1000000;
	is_int(sc_tz_to_utc(&paris, l), utc(2024, 3, 31, 1, 30) * 1000000,
	    "Paris gap: 02:30 is 03:30 CEST");
	is_str(pst.id, "America/Los_Angeles", "PST's id is the region's");
	is_str(sc_tz_abbr(&la, utc(2024, 7, 4, 19, 0)), "PDT",
	    "Los Angeles' abbreviation in July");
	is_str(sc_tz_abbr(&paris, utc(2024, 1, 4, 19, 0)), "CET",
	    "Paris' abbreviation in January");
	is_int(sc_tz_to_local(&la, utc(2024, 7, 4, 19, 0) * 1000000),
	    utc(2024, 7, 4, 12, 0) * 1000000, "an instant as wall clock");
}

int
main(void)
{
	test_table_and_footer();
	test_malformed();
	test_ids();
	test_java_ids();
	test_system_zones();
	return tap_done();
}
