/* SPDX-License-Identifier: MIT */

/*
 * tz.h: time zones as Spark names them, and their rules (tz.c).
 */

#ifndef SCTK_CORE_TZ_H
#define SCTK_CORE_TZ_H

#include <stddef.h>
#include <stdint.h>

/*
 * A zone as Spark's ZoneId: a region's rules (data, loaded once from the
 * tz database and kept for the process's life) or, when data is NULL, a
 * fixed offset east of UTC in seconds.
 */
struct sc_tzdata;
struct sc_tz {
	const struct sc_tzdata *data;
	int32_t fixed;
	char id[48]; /* Java's ZoneId.getId(): the region, or +08:00, ... */
};

/*
 * The zone id names as Spark reads it (java.time.ZoneId.of() with its
 * short ids, after Spark's fixes of "+h:mm" and "+hh:m"): 0, or -1.
 * Regions are read from $TZDIR or /usr/share/zoneinfo.  Thread-safe.
 */
int sc_tz_resolve(const char *id, struct sc_tz *out);
/* The abbreviation at an instant (PST, CEST; a fixed zone's id). */
const char *sc_tz_abbr(const struct sc_tz *z, int64_t utc_secs);
/* The offset east of UTC, in seconds, at an instant. */
int32_t sc_tz_offset(const struct sc_tz *z, int64_t utc_secs);
/* An instant (microseconds) as the zone's wall-clock microseconds. */
int64_t sc_tz_to_local(const struct sc_tz *z, int64_t us);
/*
 * Wall-clock microseconds of the zone as an instant, as java.time does:
 * a time in a gap moves on by the gap, one in an overlap takes the
 * earlier offset.
 */
int64_t sc_tz_to_utc(const struct sc_tz *z, int64_t local_us);

/*
 * A TZif file's rules (version 1 to 4; the footer's POSIX TZ string
 * past the last transition), or NULL when malformed; free with
 * sc_tzif_free().  The offset east of UTC at an instant.
 */
struct sc_tzdata *sc_tzif_new(const unsigned char *p, size_t len);
void sc_tzif_free(struct sc_tzdata *z);
int32_t sc_tzdata_offset(const struct sc_tzdata *z, int64_t utc_secs);
/* The abbreviation in use at an instant ("PST", "CEST", "+0530"). */
const char *sc_tzdata_abbr(const struct sc_tzdata *z, int64_t utc_secs);

#endif
