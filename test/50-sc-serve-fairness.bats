#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 50-sc-serve-fairness: one user's stopped or dead clients do not keep
# that user from running queries.  Operations paused because their
# client does not read give up their place among the user's running
# ones (sctk.execute.maxRunningPerUser), so the user's next query runs.
# The artifacts of all sessions together are bounded
# (--max-artifact-store).

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

BIG="SELECT id, repeat('x', 1000) AS b FROM range(10000000)"

setup_file() {
	# Shutdown cancels the stopped clients' operations; on a loaded
	# machine that can pass the default 10 s bound, which this file
	# does not test.
	sc_server_start --conf sctk.execute.maxRunningPerUser=3 \
	    --conf sctk.server.shutdownTimeout=60s --max-artifact-store 1m
}

teardown_file() {
	local p
	for p in ${BAD_PIDS:-}; do
		kill -9 "$p" 2>/dev/null || true
	done
	sc_server_stop
}

# session_started SID: an operation of session SID has started.
session_started() {
	grep -q " started: session $1 " "$BATS_FILE_TMPDIR/server.log"
}

@test "a user's stopped and killed clients do not block that user's next query" {
	local i sid pids=() killed

	# 3 clients of user svc (its cap) reading a large result: two are
	# stopped, one is killed.  Their operations fill their buffers and
	# wait for a reader that never comes (5 min, the detached timeout).
	for i in 1 2 3; do
		sid=$(cat /proc/sys/kernel/random/uuid)
		sc-exec --user-id svc --session-id "$sid" --format arrow "$BIG" \
		    >/dev/null 2>&1 3>&- &
		pids+=($!)
		wait_for session_started "$sid"
	done
	killed=${pids[2]}
	kill -STOP "${pids[0]}" "${pids[1]}"
	BAD_PIDS="${pids[0]} ${pids[1]}"
	export BAD_PIDS
	kill -9 "$killed"
	{ wait "$killed"; } 2>/dev/null || true

	# The same user's next query runs.
	run --separate-stderr -0 sc-exec --user-id svc -t 30s --no-header \
	    "SELECT 1"
	[ "$output" = "1" ]
	[ -z "$stderr" ]

	# The three are still there, paused.
	run --separate-stderr -0 sc-inspect --user svc --state running --ids
	[ "${#lines[@]}" -eq 3 ]
}

@test "--max-artifact-store bounds the artifacts of all sessions together" {
	local a b
	a=$(cat /proc/sys/kernel/random/uuid)
	b=$(cat /proc/sys/kernel/random/uuid)
	head -c 600000 /dev/zero >"$BATS_TEST_TMPDIR/big"
	run -0 --separate-stderr sc-upload -q --session-id "$a" \
	    --as files/one "$BATS_TEST_TMPDIR/big"
	# Another session: 600,000 more bytes would pass 1 MiB in all.
	run -1 --separate-stderr sc-upload -q --session-id "$b" \
	    --as files/two "$BATS_TEST_TMPDIR/big"
	[[ "$stderr" == *"[ARTIFACT_STORE_FULL] Cannot store artifact \`files/two\` of 600000 bytes: the artifacts of all sessions would pass the store's limit of 1048576 bytes (sctk.artifact.maxStoreBytes)."*"SQLSTATE: 53100"* ]]
	# A released session gives its room back.
	run -0 sc-release -q --session-id "$a" --session
	run -0 --separate-stderr sc-upload -q --session-id "$b" \
	    --as files/two "$BATS_TEST_TMPDIR/big"
}
