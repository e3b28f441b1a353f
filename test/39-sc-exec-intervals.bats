#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 39-sc-exec-intervals: sc-exec prints interval columns as Spark's
# CAST(interval AS STRING) does, with the fields of the result's schema
# (INTERVAL '1' DAY, not the DAY TO SECOND an Arrow Duration alone
# would suggest), in TSV and JSON lines.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

Q="SELECT date'2024-01-02' - date'2024-01-01' AS d, timestamp'2024-01-01 00:00' - timestamp'2023-12-31 00:30' AS t, INTERVAL '01:30' HOUR TO MINUTE AS h, INTERVAL 1 YEAR AS y, INTERVAL '-1-2' YEAR TO MONTH AS ym, CAST(NULL AS INTERVAL DAY) AS n"

setup_file() {
	sc_server_start
}

teardown_file() {
	sc_server_stop
}

setup() {
	sc_server_env
}

@test "TSV: intervals as Spark's strings of their fields" {
	run -0 --separate-stderr sc-exec -t 30s --format tsv --null NULL "$Q"
	[ "$stderr" = "" ]
	[ "${lines[0]}" = $'d\tt\th\ty\tym\tn' ]
	[ "${lines[1]}" = $'INTERVAL \'1\' DAY\tINTERVAL \'0 23:30:00\' DAY TO SECOND\tINTERVAL \'01:30\' HOUR TO MINUTE\tINTERVAL \'1\' YEAR\tINTERVAL \'-1-2\' YEAR TO MONTH\tNULL' ]
}

@test "JSON lines: intervals as strings, NULL as null" {
	run -0 --separate-stderr sc-exec -t 30s --format json "$Q"
	[ "$stderr" = "" ]
	[ "$output" = "{\"d\":\"INTERVAL '1' DAY\",\"t\":\"INTERVAL '0 23:30:00' DAY TO SECOND\",\"h\":\"INTERVAL '01:30' HOUR TO MINUTE\",\"y\":\"INTERVAL '1' YEAR\",\"ym\":\"INTERVAL '-1-2' YEAR TO MONTH\",\"n\":null}" ]
}
