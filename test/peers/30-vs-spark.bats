#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 30-vs-spark: scripts/vs-spark, the oracle: the same answer is exit 0;
# a different one is exit 1 with the differing lines marked "*".

bats_require_minimum_version 1.7.0
load spark-setup

setup_file() {
	peers_spark_setup
}

teardown_file() {
	peers_spark_teardown
}

setup() {
	need_peers
}

@test "vs-spark: an answer both engines give is exit 0" {
	run -0 --separate-stderr "$SCTK_TOP/scripts/vs-spark" --spark "$SPARK_URL" \
	    "SELECT id, CAST(id AS STRING) AS s FROM range(2)"
	[ "${lines[-1]}" = "same answer" ]
	[[ "${lines[1]}" == "  schema: id bigint NOT NULL, s string NOT NULL"* ]]
}

@test "vs-spark: a PySpark snippet from standard input, differences marked, exit 1" {
	run -1 --separate-stderr "$SCTK_TOP/scripts/vs-spark" --spark "$SPARK_URL" \
	    --py - <<<"spark.sql(\"SELECT CAST('NaN' AS DOUBLE) = CAST('NaN' AS DOUBLE) AS e\")"
	[[ "${lines[1]}" == "  schema: e boolean"*"| schema: e boolean" ]]
	[[ "${lines[2]}" == "* row: (True,)"*"| row: (None,)" ]]
	[ "${lines[3]}" = "differ: values" ]
}

@test "vs-spark: a usage error is exit 2" {
	run -2 --separate-stderr "$SCTK_TOP/scripts/vs-spark" --nope
	[[ "$stderr" == "usage: vs-spark "* ]]
}
