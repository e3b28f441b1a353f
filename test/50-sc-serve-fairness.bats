#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 50-sc-serve-fairness: one user's stopped or dead clients do not keep
# that user from running queries.  Operations paused because their
# client does not read give up their place among the user's running
# ones (sctk.execute.maxRunningPerUser), so the user's next query runs.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

BIG="SELECT id, randomblob(1000) AS b FROM range(10000000)"

setup_file() {
	# Shutdown cancels the stopped clients' operations; on a loaded
	# machine that can pass the default 10 s bound, which this file
	# does not test.
	sc_server_start --conf sctk.execute.maxRunningPerUser=3 \
	    --conf sctk.server.shutdownTimeout=60s
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
