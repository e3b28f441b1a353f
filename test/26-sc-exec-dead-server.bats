#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 26-sc-exec-dead-server: sc-serve is SIGKILLed in the middle of a long
# result.  sc-exec says what it is doing while it retries, gives up once
# nothing has answered for --unreachable-timeout (exit 4, naming the
# operation), and honours -t to the deadline (exit 5 at the deadline, not
# a backoff step before it or a release wait after it).  The output it
# wrote is a prefix of the result and never passes for the whole.

bats_require_minimum_version 1.7.0
load helpers/common

Q='SELECT id FROM range(200000000)'

teardown() {
	[ -n "${BG_PID:-}" ] && kill -9 "$BG_PID" 2>/dev/null
	[ -n "${VICTIM:-}" ] && kill -9 "$VICTIM" 2>/dev/null
	BG_PID= VICTIM=
	true
}

# start_victim: a private sc-serve to kill; sets VICTIM, ADDR and PORT.
start_victim() {
	local ready="$BATS_TEST_TMPDIR/victim.ready"
	rm -f "$ready"
	sc-serve --listen 127.0.0.1:0 --ready-file "$ready" \
	    >"$BATS_TEST_TMPDIR/victim.log" 2>&1 3>&- &
	VICTIM=$!
	wait_for test -s "$ready"
	ADDR=$(head -1 "$ready")
	PORT=${ADDR##*:}
}

# now_ms: the monotonic-enough wall clock in milliseconds.
now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# run_killed ARGS...: run sc-exec ARGS on $Q against the victim, kill
# the victim once rows flow, wait (bounded by timeout 30) and set RC,
# START (sc-exec's start), KILLED and END (ms), with the output in
# $BATS_TEST_TMPDIR/out and stderr in .../err.
run_killed() {
	local out="$BATS_TEST_TMPDIR/out" err="$BATS_TEST_TMPDIR/err"
	START=$(now_ms)
	timeout 30 sc-exec -s "$ADDR" --no-header --no-progress "$@" "$Q" \
	    >"$out" 2>"$err" 3>&- &
	BG_PID=$!
	wait_for test -s "$out"
	kill -9 "$VICTIM"
	KILLED=$(now_ms)
	VICTIM=
	RC=0
	wait "$BG_PID" || RC=$?
	END=$(now_ms)
	BG_PID=
}

# prefix_ok: the rows written are 0, 1, 2, ... with nothing missing.
prefix_ok() {
	local out="$BATS_TEST_TMPDIR/out" n
	n=$(wc -l <"$out")
	[ "$n" -ge 1 ] && [ "$n" -lt 200000000 ]
	# The last line may be cut short by the kill; the others must match.
	[ "$(head -n $((n - 1)) "$out" | md5sum)" = "$(seq 0 $((n - 2)) | md5sum)" ]
}

@test "nothing answers: exit 4 after --unreachable-timeout, naming the operation" {
	start_victim
	run_killed -v --unreachable-timeout 3s
	[ "$RC" -eq 4 ]
	local last
	last=$(tail -1 "$BATS_TEST_TMPDIR/err")
	[[ "$last" =~ ^sc-exec:\ operation\ [0-9a-f-]{36}:\ .*\(no\ answer\ from\ \'127\.0\.0\.1:$PORT\'\ for\ 3s,\ gave\ up\ after\ [0-9]+\ retries\)$ ]]
	# Given up 3 s after the last answer, not after Spark's ten minutes.
	local took=$((END - KILLED))
	echo "gave up ${took} ms after the kill"
	[ "$took" -ge 2900 ]
	[ "$took" -lt 60000 ]
	prefix_ok
}

@test "-v says whom it calls, which attempt and when the next one comes" {
	start_victim
	run_killed -v --unreachable-timeout 3s
	[ "$RC" -eq 4 ]
	grep -E "^sc-exec: reconnecting to '127\.0\.0\.1:$PORT', attempt 1 of 15, reattaching in 0\.05s" \
	    "$BATS_TEST_TMPDIR/err"
	grep -E "^sc-exec: reconnecting to '127\.0\.0\.1:$PORT', attempt [0-9]+ of 15, reattaching in [0-9.]+s \(no answer for [0-9.]+s; giving up at 3s\)$" \
	    "$BATS_TEST_TMPDIR/err"
}

@test "without -v one line: the error, no release noise" {
	start_victim
	run_killed --unreachable-timeout 2s
	[ "$RC" -eq 4 ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/err")" -eq 1 ]
	grep -q "^sc-exec: operation .*(no answer from '127.0.0.1:$PORT' for 2s, gave up after" \
	    "$BATS_TEST_TMPDIR/err"
}

@test "-t 3s: exit 5 at the deadline, not 4 a backoff step before it" {
	start_victim
	run_killed -t 3s
	[ "$RC" -eq 5 ]
	local took=$((END - START))
	echo "exited ${took} ms after the start"
	[ "$took" -ge 2900 ]
	[ "$took" -lt 60000 ]
	[[ "$(head -1 "$BATS_TEST_TMPDIR/err")" =~ ^sc-exec:\ operation\ [0-9a-f-]{36}\ timed\ out\;\ last\ error:\ .*127\.0\.0\.1:$PORT.*\ \(the\ --timeout\ of\ 3s\ passed\)$ ]]
	# The ReleaseAll gets one attempt past the deadline; a dead server
	# holds nothing, so that it got no answer is no failure.
	[ "$(wc -l <"$BATS_TEST_TMPDIR/err")" -eq 1 ]
	prefix_ok
}

@test "-t shorter than the unreachable timeout wins; the longer one does not" {
	start_victim
	run_killed -t 2s --unreachable-timeout 20s
	[ "$RC" -eq 5 ]
	[ $((END - START)) -lt 15000 ]
	start_victim
	run_killed -t 20s --unreachable-timeout 2s
	[ "$RC" -eq 4 ]
	[ $((END - KILLED)) -lt 15000 ]
}

@test "a server that never answered: still the quick connect budget" {
	local start
	start=$(now_ms)
	run -4 --separate-stderr sc-exec --unreachable-timeout 1m \
	    -s sc://127.0.0.1:1 'SELECT 1'
	[[ "$stderr" == "sc-exec: cannot connect to '127.0.0.1:1': connection refused (gave up after 3 retries in "[0-9]*"s)" ]]
	[ $(($(now_ms) - start)) -lt 5000 ]
}

@test "--unreachable-timeout takes a duration" {
	run -2 --separate-stderr sc-exec --unreachable-timeout soon -s sc://127.0.0.1:1 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: invalid --unreachable-timeout: 'soon' is not a duration" ]
}
