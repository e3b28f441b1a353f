#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 27-hostile-server: sc-exec, sc-release, sc-upload and sc-inspect
# against a server that misbehaves on purpose (test/tools/hostile-server.c,
# one mode per way of misbehaving).  Every
# run ends with a clear message and a documented exit code: 7 for a
# malformed or unexpected reply, 5 for the deadline of -t, 1 for an
# error the server reported, never a crash, a hang (each run is under -t
# or a retry limit, and under timeout) or rows passed off as a complete
# result.  The honest result is rows 0..999 of one column "id".

bats_require_minimum_version 1.7.0
load helpers/common

teardown() {
	[ -n "${HPID:-}" ] && kill "$HPID" 2>/dev/null && wait "$HPID"
	HPID=
	true
}

# start_hostile MODE: a private hostile-server; sets HPID and ADDR.
start_hostile() {
	local ready="$BATS_TEST_TMPDIR/hostile.ready"
	rm -f "$ready"
	hostile-server -m "$1" -r "$ready" -T 120 \
	    2>"$BATS_TEST_TMPDIR/hostile.log" 3>&- &
	HPID=$!
	wait_for test -s "$ready"
	ADDR=$(head -1 "$ready")
}

# hx ARGS...: sc-exec against the hostile server, bounded by timeout
# (124 would mean a hang), with stdout in $output and stderr in $stderr.
hx() {
	run --separate-stderr timeout 60 sc-exec -s "$ADDR" --no-header \
	    --no-progress "$@"
	echo "exit $status, stderr: $stderr" # shown when a test fails
}

# rows_are N: stdout is exactly rows 0..N-1, nothing repeated or lost.
rows_are() {
	if [ "$1" -eq 0 ]; then
		[ -z "$output" ]
	else
		[ "$output" = "$(seq 0 $(($1 - 1)))" ]
	fi
}

@test "hostile-server lists its modes, and every mode is tested here" {
	run -0 hostile-server -l
	local m
	for m in $(awk '{ print $1 }' <<<"$output"); do
		grep -q "start_hostile $m\$" "$BATS_TEST_FILENAME" ||
		    { echo "mode $m has no test"; return 1; }
	done
	run -2 hostile-server -m no-such-mode
	[ "$output" = "hostile-server: unknown mode 'no-such-mode' (-l lists them)" ]
}

@test "normal: the honest result, exit 0 (the control)" {
	start_hostile normal
	hx --range 0:1000
	[ "$status" -eq 0 ]
	rows_are 1000
	[ -z "$stderr" ]
}

@test "truncated-arrow: exit 7, only the rows before the cut" {
	start_hostile truncated-arrow
	hx --range 0:1000
	[ "$status" -eq 7 ]
	[ "$stderr" = "sc-exec: truncated Arrow stream" ]
	rows_are 100
}

@test "garbage-arrow: exit 7, no rows" {
	start_hostile garbage-arrow
	hx --range 0:1000
	[ "$status" -eq 7 ]
	[[ "$stderr" == "sc-exec: "*Arrow* ]]
	rows_are 0
	run --separate-stderr timeout 60 sc-exec -s "$ADDR" --format arrow \
	    --range 0:1000
	[ "$status" -eq 7 ]
	[[ "$stderr" == "sc-exec: "*Arrow* ]]
	[ -z "$output" ]
}

@test "schema-change: exit 7 in Arrow output, not a stream of two schemas" {
	start_hostile schema-change
	run --separate-stderr timeout 60 sc-exec -s "$ADDR" --format arrow \
	    --range 0:1000
	[ "$status" -eq 7 ]
	[ "$stderr" = "sc-exec: the result schema changed between Arrow batches" ]
}

@test "schema-change: exit 7 in text output too" {
	start_hostile schema-change
	hx --range 0:1000
	[ "$status" -eq 7 ]
	[ "$stderr" = "sc-exec: the result schema changed between Arrow batches" ]
	# Only the first batch, under its own header.
	rows_are 100
}

@test "row-count: exit 7, the batch that lies is not printed" {
	start_hostile row-count
	hx --range 0:1000
	[ "$status" -eq 7 ]
	[ "$stderr" = "sc-exec: Arrow batch says 150 rows but holds 100" ]
}

@test "oversized: exit 7 naming the limit, not 1 as if the server refused" {
	start_hostile oversized
	run --separate-stderr timeout 60 sc-exec --no-header \
	    -s "$ADDR/;grpc_max_message_size=1048576" --range 0:1000
	[ "$status" -eq 7 ]
	[[ "$stderr" =~ ^sc-exec:\ \'127\.0\.0\.1:[0-9]+\'\ sent\ a\ message\ of\ [0-9]+\ bytes,\ more\ than\ the\ limit\ of\ 1048576\ \(grpc_max_message_size\ in\ the\ server\ address\)$ ]]
	rows_are 0
}

@test "wrong-operation: exit 7, the stranger's rows not printed" {
	start_hostile wrong-operation
	hx --range 0:1000
	[ "$status" -eq 7 ]
	[[ "$stderr" =~ ^sc-exec:\ server\ answered\ for\ operation\ \'00000000-0000-4000-8000-000000000bad\',\ expected\ \'[0-9a-f-]{36}\'$ ]]
	rows_are 100
}

@test "wrong-session: exit 7" {
	start_hostile wrong-session
	hx --range 0:1000
	[ "$status" -eq 7 ]
	[[ "$stderr" =~ ^sc-exec:\ server\ answered\ for\ session\ \'00000000-0000-4000-8000-000000000bad\',\ expected\ \'[0-9a-f-]{36}\'$ ]]
	rows_are 100
}

@test "no-response-id: exit 7 (it could not be reattached after)" {
	start_hostile no-response-id
	hx --range 0:1000
	[ "$status" -eq 7 ]
	[[ "$stderr" == "sc-exec: server sent a response without a response id for reattachable operation "* ]]
}

@test "endless: -t 2s ends it with exit 5 at the deadline" {
	start_hostile endless
	local start=$SECONDS
	hx -t 2s --range 0:1000
	[ "$status" -eq 5 ]
	[[ "${stderr_lines[0]}" =~ ^sc-exec:\ operation\ [0-9a-f-]{36}\ timed\ out\ \(the\ --timeout\ of\ 2s\ passed\)$ ]]
	[ "${#lines[@]}" -gt 0 ]
	# At the deadline, not at the server's end (-T 120).
	[ $((SECONDS - start)) -lt 60 ]
}

@test "stall: -t ends it (exit 5); so does the watchdog's retry limit" {
	start_hostile stall
	hx -t 2s --range 0:1000
	[ "$status" -eq 5 ]
	[[ "${stderr_lines[0]}" =~ ^sc-exec:\ operation\ [0-9a-f-]{36}\ timed\ out\ \(the\ --timeout\ of\ 2s\ passed\)$ ]]
	rows_are 100
	hx --watchdog 300ms --max-retries 2 --range 0:1000
	[ "$status" -eq 5 ]
	[[ "$stderr" == "sc-exec: no message from the server in time (gave up after 2 retries in "[0-9]*"s)" ]]
	rows_are 100
}

@test "no-complete: never passed off as the whole result (7, or 5 with -t)" {
	start_hostile no-complete
	hx --max-retries 2 --range 0:1000
	[ "$status" -eq 7 ]
	[[ "$stderr" =~ ^sc-exec:\ the\ stream\ of\ operation\ [0-9a-f-]{36}\ ended\ at\ once\ without\ a\ response\ or\ ResultComplete\ \(gave\ up\ after\ 2\ retries\ in\ 0s\)$ ]]
	rows_are 300
	hx -t 3s --range 0:1000
	[ "$status" -eq 5 ]
	[[ "${stderr_lines[0]}" == *" timed out; last error: the stream of operation "*" ended at once without a response or ResultComplete (the --timeout of 3s passed)" ]]
	rows_are 300
}

@test "reattach-replay: exit 7, no row printed twice" {
	start_hostile reattach-replay
	hx --range 0:1000
	[ "$status" -eq 7 ]
	[[ "$stderr" =~ ^sc-exec:\ server\ sent\ response\ \'r-1\'\ of\ operation\ [0-9a-f-]{36}\ a\ second\ time\ \(on\ stream\ 2,\ after\ \'r-2\'\)\;\ refusing\ to\ repeat\ its\ rows$ ]]
	rows_are 300
}

@test "lost-operation: exit 1, the result said to be incomplete" {
	start_hostile lost-operation
	hx --range 0:1000
	[ "$status" -eq 1 ]
	# The session is there, the operation is not: ended on purpose.
	[[ "$stderr" == "sc-exec: [OPERATION_CANCELED] the server ended operation "*" (interrupted, or released by another client) after 2 responses were received; the result is incomplete" ]]
	rows_are 200
}

@test "garbage-status: exit 1 with the status message; the junk details ignored" {
	start_hostile garbage-status
	hx --range 0:1000
	[ "$status" -eq 1 ]
	[ "$stderr" = "sc-exec: hostile server: boom" ]
	rows_are 100
}

@test "retry-forever: an hour's RetryInfo does not outlast -t 2s (exit 5)" {
	start_hostile retry-forever
	local start=$SECONDS
	hx -t 2s --range 0:1000
	[ "$status" -eq 5 ]
	[[ "${stderr_lines[0]}" =~ ^sc-exec:\ operation\ [0-9a-f-]{36}\ timed\ out\;\ last\ error:\ hostile\ server:\ busy,\ come\ back\ in\ an\ hour\ \(the\ --timeout\ of\ 2s\ passed\)$ ]]
	# Not the hour the server asked for.
	[ $((SECONDS - start)) -lt 60 ]
	# A server that sends RetryInfo is answering: not "unreachable".
	hx -t 3s --unreachable-timeout 1s --range 0:1000
	[ "$status" -eq 5 ]
}

@test "unary-garbage: --analyze gets a reply that is no message: exit 7" {
	start_hostile unary-garbage
	hx --analyze 'SELECT 1'
	[ "$status" -eq 7 ]
	[ "$stderr" = "sc-exec: malformed AnalyzePlanResponse message" ]
	[ -z "$output" ]
}

@test "unary-wrong-session: --analyze answered for another session: exit 7" {
	start_hostile unary-wrong-session
	hx --analyze 'SELECT 1'
	[ "$status" -eq 7 ]
	[[ "$stderr" == "sc-exec: server answered for session '00000000-0000-4000-8000-000000000bad', expected "* ]]
	[ -z "$output" ]
}

@test "unary-stall: --analyze never answered, -t 10s: exit 5" {
	# 10 s, not 2: on a loaded machine the connection alone can take
	# seconds, and the message is then another one.
	start_hostile unary-stall
	hx -t 10s --analyze 'SELECT 1'
	[ "$status" -eq 5 ]
	[[ "$stderr" =~ ^sc-exec:\ timed\ out\ waiting\ for\ \'127\.0\.0\.1:[0-9]+\'\ \(the\ --timeout\ of\ 10s\ passed\)$ ]]
}

@test "normal --analyze: the control for the unary modes" {
	start_hostile normal
	hx --analyze 'SELECT 1'
	[ "$status" -eq 0 ]
	[ "$output" = "id,bigint,false" ]
}

# The other clients.  hc PROG ARGS...: PROG against the hostile server
# under -t 3s and timeout, stdout in $output and stderr in $stderr.
hc() {
	local prog=$1
	shift
	run --separate-stderr timeout 60 "$prog" -t 3s -s "$ADDR" "$@"
	echo "exit $status, stdout: $output, stderr: $stderr"
}

SID=11111111-2222-4333-8444-555555555555
OP=66666666-7777-4888-8999-aaaaaaaaaaaa

@test "unary-garbage: sc-release, sc-inspect and sc-upload --status: exit 7" {
	start_hostile unary-garbage
	hc sc-release --session-id "$SID" "$OP"
	[ "$status" -eq 7 ]
	[ "$stderr" = "sc-release: 1 of 1 failed: malformed ReleaseExecuteResponse message" ]
	hc sc-release --session-id "$SID" --session
	[ "$status" -eq 7 ]
	hc sc-inspect stats
	[ "$status" -eq 7 ]
	[ "$stderr" = "sc-inspect: malformed GetStatsResponse message" ]
	hc sc-inspect list
	[ "$status" -eq 7 ]
	[ "$stderr" = "sc-inspect: malformed ListExecutionsResponse message" ]
	hc sc-upload --status --session-id "$SID" cache/a
	[ "$status" -eq 7 ]
	[ "$stderr" = "sc-upload: malformed ArtifactStatusesResponse message" ]
}

@test "unary-wrong-session: sc-release and sc-upload --status refuse it: exit 7" {
	start_hostile unary-wrong-session
	hc sc-release --session-id "$SID" --interrupt "$OP"
	[ "$status" -eq 7 ]
	[ "$stderr" = "sc-release: 1 of 1 failed: server answered for session '00000000-0000-4000-8000-000000000bad', expected '$SID'" ]
	hc sc-upload --status --session-id "$SID" cache/a
	[ "$status" -eq 7 ]
	[ "$stderr" = "sc-upload: server answered for session '00000000-0000-4000-8000-000000000bad', expected '$SID'" ]
}

@test "unary-stall: sc-release, sc-inspect and sc-upload --status: exit 5 at -t" {
	start_hostile unary-stall
	hc sc-release --session-id "$SID" "$OP"
	[ "$status" -eq 5 ]
	[[ "$stderr" =~ ^sc-release:\ 1\ of\ 1\ failed:\ timed\ out\ waiting\ for\ \'127\.0\.0\.1:[0-9]+\'$ ]]
	hc sc-inspect stats
	[ "$status" -eq 5 ]
	[[ "$stderr" =~ ^sc-inspect:\ timed\ out\ waiting\ for\ \'127\.0\.0\.1:[0-9]+\'\ \(the\ --timeout\ of\ 3s\ passed\)$ ]]
	hc sc-upload --status --session-id "$SID" cache/a
	[ "$status" -eq 5 ]
}

@test "unary-oversized: 5 MiB replies: no crash; an answer without the session is refused" {
	start_hostile unary-oversized
	hc sc-release --session-id "$SID" "$OP"
	[ "$status" -eq 7 ]
	[ "$stderr" = "sc-release: 1 of 1 failed: server answered for session '', expected '$SID'" ]
	# The admin replies carry no session: an empty, valid message.
	hc sc-inspect stats --format jsonl
	[ "$status" -eq 0 ]
	[[ "$output" == '{"version":"",'* ]]
}

@test "unary-wrong-operation: sc-release refuses an answer for another operation: exit 7" {
	start_hostile unary-wrong-operation
	hc sc-release --session-id "$SID" "$OP"
	[ "$status" -eq 7 ]
	[ "$output" = "$OP	error: server answered for operation '00000000-0000-4000-8000-000000000bad', expected '$OP'" ]
}

@test "interrupt-wrong-operation: sc-release --interrupt refuses it: exit 7" {
	start_hostile interrupt-wrong-operation
	hc sc-release --session-id "$SID" --interrupt "$OP"
	[ "$status" -eq 7 ]
	[ "$stderr" = "sc-release: 1 of 1 failed: server says it interrupted operation '00000000-0000-4000-8000-000000000bad' when asked to interrupt '$OP'" ]
}

@test "upload-garbage: exit 7" {
	start_hostile upload-garbage
	echo hi >"$BATS_TEST_TMPDIR/a.txt"
	hc sc-upload --session-id "$SID" "$BATS_TEST_TMPDIR/a.txt"
	[ "$status" -eq 7 ]
	[ "$stderr" = "sc-upload: malformed AddArtifactsResponse message" ]
	[ -z "$output" ]
}

@test "upload-stall: exit 5 at -t, nothing said to be uploaded" {
	start_hostile upload-stall
	echo hi >"$BATS_TEST_TMPDIR/a.txt"
	hc sc-upload --session-id "$SID" "$BATS_TEST_TMPDIR/a.txt"
	[ "$status" -eq 5 ]
	[[ "$stderr" =~ ^sc-upload:\ timed\ out\ waiting\ for\ \'127\.0\.0\.1:[0-9]+\'\ \(the\ --timeout\ of\ 3s\ passed\)$ ]]
	[ -z "$output" ]
}

@test "upload-oversized: a 5 MiB reply without the session: exit 7" {
	start_hostile upload-oversized
	echo hi >"$BATS_TEST_TMPDIR/a.txt"
	hc sc-upload --session-id "$SID" "$BATS_TEST_TMPDIR/a.txt"
	[ "$status" -eq 7 ]
	[ "$stderr" = "sc-upload: server answered for session '', expected '$SID'" ]
}

@test "upload-wrong-name: an answer for another artifact: exit 7" {
	start_hostile upload-wrong-name
	echo hi >"$BATS_TEST_TMPDIR/a.txt"
	hc sc-upload --session-id "$SID" "$BATS_TEST_TMPDIR/a.txt"
	[ "$status" -eq 7 ]
	[ "$stderr" = "sc-upload: AddArtifacts answer names 'files/not-what-you-sent' where 'files/a.txt' was sent" ]
	[ -z "$output" ]
}
