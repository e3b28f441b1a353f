#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 01-arrow-interop: lib/core/arrow against an independent implementation
# (npm apache-arrow, test/conformance/arrow-interop.js), in both
# directions, compared as JSON lines byte for byte.

bats_require_minimum_version 1.7.0
load helpers/common

TOOL="$SCTK_BUILD/test/tools/arrow-tool"
PEER="$SCTK_TOP/test/conformance/arrow-interop.js"

teardown_file() {
	check_sanitizer_reports
}

@test "arrow-tool write | apache-arrow read == arrow-tool's own read" {
	need_node
	"$TOOL" write >"$BATS_TEST_TMPDIR/c.arrow"
	run -0 --separate-stderr "$TOOL" read <"$BATS_TEST_TMPDIR/c.arrow"
	[ -z "$stderr" ]
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/c.json"
	run -0 --separate-stderr node "$PEER" read <"$BATS_TEST_TMPDIR/c.arrow"
	[ -z "$stderr" ]
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/js.json"
	run -0 cmp "$BATS_TEST_TMPDIR/c.json" "$BATS_TEST_TMPDIR/js.json"
	# 4 batches of 5, 0, 7 and 4 rows; the checksum pins every value.
	run -0 wc -l <"$BATS_TEST_TMPDIR/c.json"
	[ "$output" -eq 16 ]
	run -0 cksum <"$BATS_TEST_TMPDIR/c.json"
	[ "$output" = "3251363339 4348" ]
}

@test "apache-arrow write | arrow-tool read == apache-arrow's own JSON" {
	need_node
	node "$PEER" write >"$BATS_TEST_TMPDIR/js.arrow"
	run -0 --separate-stderr "$TOOL" read <"$BATS_TEST_TMPDIR/js.arrow"
	[ -z "$stderr" ]
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/c.json"
	run -0 --separate-stderr node "$PEER" json
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/want.json"
	run -0 cmp "$BATS_TEST_TMPDIR/c.json" "$BATS_TEST_TMPDIR/want.json"
	# 4 batches of 4, 0, 9 and 3 rows with nested struct/list/map; the
	# America/Los_Angeles timestamps as that zone's wall clock.
	run -0 wc -l <"$BATS_TEST_TMPDIR/c.json"
	[ "$output" -eq 16 ]
	run -0 cksum <"$BATS_TEST_TMPDIR/c.json"
	[ "$output" = "2464744300 5270" ]
	# The peer agrees with itself on its own stream.
	run -0 --separate-stderr node "$PEER" read <"$BATS_TEST_TMPDIR/js.arrow"
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/js.json"
	run -0 cmp "$BATS_TEST_TMPDIR/js.json" "$BATS_TEST_TMPDIR/want.json"
}

@test "the example stream of arrow-tool reads in apache-arrow" {
	need_node
	"$TOOL" example >"$BATS_TEST_TMPDIR/ex.arrow"
	# cksum of arrow-tool's 312-byte example stream (int64 id: 1, null, 3).
	run -0 cksum <"$BATS_TEST_TMPDIR/ex.arrow"
	[ "$output" = "727868487 312" ]
	run -0 --separate-stderr node "$PEER" read <"$BATS_TEST_TMPDIR/ex.arrow"
	[ "$output" = $'{"id":1}\n{"id":null}\n{"id":3}' ]
}

@test "arrow-tool read: a truncated stream is a protocol error (exit 7)" {
	"$TOOL" write | head -c 1000 >"$BATS_TEST_TMPDIR/t.arrow"
	run -7 --separate-stderr "$TOOL" read <"$BATS_TEST_TMPDIR/t.arrow"
	[ "$output" = "" ]
	[ "$stderr" = "arrow-tool: truncated Arrow stream" ]
}
