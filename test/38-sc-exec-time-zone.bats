#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 38-sc-exec-time-zone: sc-exec writes a timestamp as the wall clock of
# the zone its Arrow column carries (the session's
# spark.sql.session.timeZone), as Spark's show() does: 10:00 read in Los
# Angeles is written 10:00 in every text format, while the instant
# underneath is 18:00 UTC (unix_timestamp shows it); TIMESTAMP_NTZ is
# written as it is.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

LA=spark.sql.session.timeZone=America/Los_Angeles

setup_file() {
	sc_server_start
}

teardown_file() {
	sc_server_stop
}

setup() {
	sc_server_env
}

@test "CSV: a timestamp in the session's zone, its instant in UTC" {
	run -0 --separate-stderr sc-exec -t 30s --conf "$LA" \
	    "SELECT TIMESTAMP'2024-01-01 10:00' AS t, unix_timestamp(TIMESTAMP'2024-01-01 10:00') AS u, TIMESTAMP_NTZ'2024-01-01 10:00' AS n"
	[ "$stderr" = "" ]
	[ "${lines[0]}" = "t,u,n" ]
	# 10:00 at -08:00 is 18:00 UTC: 1704132000 seconds.
	[ "${lines[1]}" = "2024-01-01 10:00:00,1704132000,2024-01-01 10:00:00" ]
}

@test "JSON lines: top-level and nested timestamps alike, summer time" {
	run -0 --separate-stderr sc-exec -t 30s --conf "$LA" --format json \
	    "SELECT TIMESTAMP'2024-07-01 10:00' AS t, named_struct('x', TIMESTAMP'2024-07-01 10:00') AS s, unix_timestamp(TIMESTAMP'2024-07-01 10:00') AS u"
	[ "$stderr" = "" ]
	# 10:00 at -07:00 (daylight time) is 17:00 UTC: 1719853200.
	[ "$output" = '{"t":"2024-07-01 10:00:00","s":{"x":"2024-07-01 10:00:00"},"u":1719853200}' ]
}

@test "without a zone set the session is UTC; an offset zone is applied" {
	run -0 --separate-stderr sc-exec -t 30s \
	    "SELECT TIMESTAMP'2024-01-01 10:00' AS t, unix_timestamp(TIMESTAMP'2024-01-01 10:00') AS u"
	[ "${lines[1]}" = "2024-01-01 10:00:00,1704103200" ]
	run -0 --separate-stderr sc-exec -t 30s \
	    --conf spark.sql.session.timeZone=+08:00 \
	    "SELECT TIMESTAMP'2024-01-01 10:00' AS t, unix_timestamp(TIMESTAMP'2024-01-01 10:00') AS u"
	# 10:00 at +08:00 is 02:00 UTC: 1704074400.
	[ "${lines[1]}" = "2024-01-01 10:00:00,1704074400" ]
}
