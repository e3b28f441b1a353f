#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 31-sc-serve-starvation: a few bad clients do not make sc-serve
# unavailable.  With default settings (4 workers), 4 clients stopped
# with SIGSTOP while reading a large result, and 4 clients killed with
# SIGKILL while an endless query of theirs runs, leave no
# worker free under the old scheduler (where SELECT 1 waited for ever);
# SELECT 1 from another session must still answer, each time.  How fast
# it answers is a benchmark's question, not this file's: a loaded machine
# may take seconds, so the bound is the client's own deadline, far above.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

BIG="SELECT id, repeat('x', 1000) AS b FROM range(10000000)"
ENDLESS="SELECT count(*)
FROM range(1000000000000)"

setup_file() {
	# Shutdown cancels 8 live operations here; on a loaded machine
	# (sanitizers, other jobs) that can pass the default 10 s bound,
	# which this file does not test (32-sc-serve-limits does).
	sc_server_start --conf sctk.server.shutdownTimeout=60s
}

# The stopped clients go with their test (a test's variables do not
# reach teardown_file): while they hold their streams, shutdown waits.
teardown() {
	local p
	for p in ${BAD_PIDS:-}; do
		kill -9 "$p" 2>/dev/null || true
	done
}

teardown_file() {
	sc_server_stop
}

# live_ops: the number of operations the server log shows started and
# not ended (sc-exec runs a SELECT as one operation).
live_ops() {
	awk '$4 == "operation" && $6 == "started:" { live[$5] = 1 }
	    $4 == "operation" && $6 ~ /^(finished|failed|canceled|released|removed)/ {
		delete live[$5] }
	    END { n = 0; for (k in live) n++; print n }' \
	    "$BATS_FILE_TMPDIR/server.log"
}

# session_started SID N: N operations of session SID have started.
session_started() {
	[ "$(grep -c " started: session $1 " \
	    "$BATS_FILE_TMPDIR/server.log")" -ge "$2" ]
}

# live_ops_are N: the server log shows exactly N live operations.
live_ops_are() {
	[ "$(live_ops)" -eq "$1" ]
}

@test "SELECT 1 answers beside 4 stalled and 4 killed clients" {
	local i p sid probe pids=()

	# 4 clients reading a large result, then stopped: their operations
	# fill their buffers and wait for a reader that never comes.
	for i in 1 2 3 4; do
		sid=$(cat /proc/sys/kernel/random/uuid)
		sc-exec --session-id "$sid" --format arrow "$BIG" \
		    >/dev/null 2>&1 3>&- &
		pids+=($!)
		wait_for session_started "$sid" 1
	done
	sleep 0.5
	kill -STOP "${pids[@]}"
	BAD_PIDS="${pids[*]}"
	export BAD_PIDS

	# 4 clients killed while their endless query runs: reattachable
	# operations outlive their client until the detached timeout (5 min).
	for i in 1 2 3 4; do
		sid=$(cat /proc/sys/kernel/random/uuid)
		sc-exec --session-id "$sid" "$ENDLESS" >/dev/null 2>&1 3>&- &
		p=$!
		wait_for session_started "$sid" 1
		sleep 0.2
		kill -9 "$p"
		{ wait "$p"; } 2>/dev/null || true
	done
	wait_for live_ops_are 8 || {
		echo "expected 8 live operations, found $(live_ops):" >&2
		cat "$BATS_FILE_TMPDIR/server.log" >&2
		return 1
	}

	for probe in 1 2 3 4 5; do
		run --separate-stderr -0 sc-exec -t 60s --no-header "SELECT 1"
		[ "$output" = "1" ]
		[ -z "$stderr" ]
	done

	# The bad clients' 8 operations are all still there.
	[ "$(live_ops)" -eq 8 ]
}
