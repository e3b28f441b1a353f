#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 35-sc-serve-read-files: a file uploaded to a session (through the Node
# client, conformance/artifacts.js, as Spark's clients upload) is read
# by SQL of the same session with sc-exec: Spark SQL's csv.`files/...`
# and sctk's read_files(); another session does not find it, and a path
# outside files/ is refused.  (The DataFrame read and the parsing rules
# are covered by conformance/21-read-files.test.js and test-engine.)

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

PEER="$SCTK_TOP/test/conformance/artifacts.js"
SID=00112233-4455-6677-8899-aabbccddeeff
OTHER=ffeeddcc-bbaa-9988-7766-554433221100

teardown() {
	sc_server_stop
}

# sx ARGS...: sc-exec as the user the Node client uploads as.
sx() {
	SPARK_REMOTE="$SPARK_REMOTE/;user_id=conformance" sc-exec "$@"
}

# upload NAME=FILE...: one AddArtifacts call for session $SID.
upload() {
	run -0 node "$PEER" upload "$SPARK_REMOTE" "$SID" "$@"
	echo "$output" >&2
	[ "$(printf '%s\n' "$output" | jq -r .code)" = 0 ]
}

@test "sc-exec reads an uploaded CSV with csv.\`files/...\` and read_files()" {
	need_node
	local f="$BATS_TEST_TMPDIR/data.csv" i
	sc_server_start
	# 1000 rows: x = 1..1000, y = x * 2, so sum(x) = 500500.
	for ((i = 1; i <= 1000; i++)); do
		printf '%d,%d\r\n' "$i" $((i * 2))
	done >"$f"
	upload "files/data.csv=$f"
	run -0 sx --session-id "$SID" --format csv --no-header \
	    'SELECT count(*), sum(_c0) FROM csv.`files/data.csv`'
	[ "$output" = "1000,500500" ]
	printf 'x,y\n' | cat - "$f" >"$BATS_TEST_TMPDIR/head.csv"
	upload "files/head.csv=$BATS_TEST_TMPDIR/head.csv"
	run -0 sx --session-id "$SID" --format csv --no-header \
	    "SELECT count(*), sum(x), max(y) FROM read_files('files/head.csv', format => 'csv', header => true, inferSchema => true)"
	[ "$output" = "1000,500500,2000" ]
}

@test "another session does not find the file; other paths are refused" {
	need_node
	local f="$BATS_TEST_TMPDIR/data.csv"
	sc_server_start
	printf '1\n2\n' >"$f"
	upload "files/data.csv=$f"
	run -0 sx --session-id "$SID" --format csv --no-header \
	    'SELECT sum(_c0) FROM csv.`files/data.csv`'
	[ "$output" = 3 ]
	run -1 sx --session-id "$OTHER" \
	    'SELECT sum(_c0) FROM csv.`files/data.csv`'
	[[ "$output" == *"[PATH_NOT_FOUND]"*"SQLSTATE: 42K03"* ]]
	run -1 sx --session-id "$SID" 'SELECT * FROM csv.`/etc/passwd`'
	[[ "$output" == *"[UNSUPPORTED_FEATURE.DATA_SOURCE]"* ]]
	[[ "$output" != *root:* ]]
}
