#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 29-sc-exec-reattach: the reattach paths of sc-exec against a private
# sc-serve whose streams rotate every 4 KiB: forced rotation, detach and
# attach from another process, SIGINT releasing the operation, and a
# server that dies mid-stream.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

SID=6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d

setup_file() {
	sc_server_start \
	    --conf spark.connect.execute.reattachable.senderMaxStreamSize=4k
}

teardown_file() {
	sc_server_stop
}

# helpers/common unsets SPARK_REMOTE for every test: point it back at
# this file's server.
setup() {
	sc_server_env
}

teardown() {
	[ -n "${BG_PID:-}" ] && kill -9 "$BG_PID" 2>/dev/null
	[ -n "${SRV2_PID:-}" ] && kill -9 "$SRV2_PID" 2>/dev/null
	BG_PID= SRV2_PID=
	true
}

@test "streams rotated every 4 KiB are reattached with no row lost or repeated" {
	run -0 --separate-stderr sc-exec -v --no-header --range 0:100000
	[ "${#lines[@]}" -eq 100000 ]
	[ "$output" = "$(seq 0 99999)" ]
	# Every rotation is logged, then a reattach after the last response.
	local rot att
	rot=$(grep -c 'without ResultComplete; reattaching$' <<<"$stderr")
	att=$(grep -c 'attaching to operation .* after response ' <<<"$stderr")
	[ "$rot" -ge 5 ]
	[ "$att" -eq "$rot" ]
	[[ "$stderr" == *"complete after"*"on $((rot + 1)) streams"* ]]
}

@test "rotation with SQL, arrow output byte-identical to --no-reattach" {
	sc-exec --format arrow --no-reattach \
	    'SELECT id, id * 2 AS twice FROM range(30000)' >"$BATS_TEST_TMPDIR/a"
	sc-exec --format arrow \
	    'SELECT id, id * 2 AS twice FROM range(30000)' >"$BATS_TEST_TMPDIR/b"
	cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
}

@test "--detach prints the id; --attach from another process streams it all" {
	run -0 --separate-stderr sc-exec --session-id "$SID" --detach \
	    --range 0:50000
	[[ "$output" =~ ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$ ]]
	local op=$output
	[ -z "$stderr" ]
	run -0 --separate-stderr sc-exec --session-id "$SID" --no-header \
	    --attach "$op"
	[ "${#lines[@]}" -eq 50000 ]
	[ "$output" = "$(seq 0 49999)" ]
	# Attaching released it: it is gone now.
	run -3 --separate-stderr sc-exec --session-id "$SID" --attach "$op"
	[[ "$stderr" == *"INVALID_HANDLE.OPERATION_NOT_FOUND"* ]]
}

@test "-v counts the reattaches of a statement in its summary" {
	run -0 --separate-stderr sc-exec -v --no-header --range 0:30000
	local att n
	att=$(grep -c 'attaching to operation .* after response ' <<<"$stderr")
	[ "$att" -ge 2 ]
	n=$(sed -n 's/^sc-exec: range: 30000 rows, .*, \([0-9]*\) reattaches$/\1/p' <<<"$stderr")
	[ "$n" = "$att" ]
}

@test "--detach returns while the query still runs; --attach gets its result" {
	# A few seconds of work (more on a loaded machine, which slows the
	# query as much as the test) that sends nothing before its end.
	local q='SELECT count(*) AS n FROM range(100000000)'
	local op
	run -0 --separate-stderr sc-exec --session-id "$SID" --detach "$q"
	op=$output
	[[ "$op" =~ ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$ ]]
	# sc-exec returned before the end: the server holds the operation,
	# still running, with nobody attached.
	grep -q "operation $op started" "$BATS_FILE_TMPDIR/server.log"
	run -1 grep -q "operation $op finished" "$BATS_FILE_TMPDIR/server.log"
	run -0 --separate-stderr sc-exec --session-id "$SID" --format csv \
	    --attach "$op"
	[ "$output" = "$(printf 'n\n100000000')" ]
}

@test "--detach with a new session prints how to attach" {
	run -0 --separate-stderr sc-exec --detach 'SELECT 1 AS one'
	local op=${lines[0]}
	[[ "$stderr" =~ ^sc-exec:\ operation\ $op\ runs\ detached\ in\ new\ session\ ([0-9a-f-]{36})\;\ attach\ with\ --session-id\ ([0-9a-f-]{36})\ --attach\ $op$ ]]
	local sid=${BASH_REMATCH[1]}
	run -0 sc-exec --session-id "$sid" --attach "$op"
	[ "$output" = "$(printf 'one\n1')" ]
}

@test "--attach --after sends last_response_id (an unknown one is refused)" {
	local op
	op=$(sc-exec --session-id "$SID" --detach --range 0:10)
	run -1 --separate-stderr sc-exec --session-id "$SID" --attach "$op" \
	    --after 00000000-0000-4000-8000-000000000000
	[[ "$stderr" == "sc-exec: [INVALID_CURSOR.POSITION_NOT_FOUND]"* ]]
}

@test "--attach needs the same user id" {
	local op
	op=$(sc-exec --session-id "$SID" --user-id alice --detach --range 0:10)
	run -3 --separate-stderr sc-exec --session-id "$SID" --user-id mallory \
	    --attach "$op"
	run -0 sc-exec --session-id "$SID" --user-id alice --attach "$op"
	[ "${#lines[@]}" -eq 11 ]
}

@test "SIGINT prints the operation id, releases it and dies by SIGINT" {
	local err="$BATS_TEST_TMPDIR/err" op rc=0
	env --default-signal=INT sc-exec --session-id "$SID" -v \
	    'SELECT count(*) FROM range(1000000000000)' \
	    >/dev/null 2>"$err" 3>&- &
	BG_PID=$!
	# A query's SQL command is its one operation.
	wait_for grep -q 'executing operation' "$err"
	op=$(grep 'executing operation' "$err" | tail -1 | sed 's/.* //')
	# The server runs it (an interrupt before that would find nothing
	# to release).
	wait_for server_log_has "operation $op started"
	kill -INT "$BG_PID"
	wait "$BG_PID" || rc=$?
	BG_PID=
	[ "$rc" -eq 130 ]
	grep -q "^sc-exec: interrupted; operation $op\$" "$err"
	run -3 --separate-stderr sc-exec --session-id "$SID" --attach "$op"
}

@test "SIGTERM does the same" {
	local err="$BATS_TEST_TMPDIR/err" op=0d1e2f30-4152-4637-8849-5a6b7c8d9eaf
	local rc=0
	sc-exec --session-id "$SID" -v --operation-id "$op" \
	    'SELECT count(*) FROM range(1000000000000)' \
	    >/dev/null 2>"$err" 3>&- &
	BG_PID=$!
	wait_for server_log_has "operation $op started"
	kill -TERM "$BG_PID"
	wait "$BG_PID" || rc=$?
	BG_PID=
	[ "$rc" -eq 143 ]
	grep -q "^sc-exec: interrupted; operation $op\$" "$err"
	run -3 sc-exec --session-id "$SID" --attach "$op"
}

@test "a server that dies mid-stream: clear error, exit 4, not success" {
	local ready="$BATS_TEST_TMPDIR/ready2" out="$BATS_TEST_TMPDIR/out"
	local err="$BATS_TEST_TMPDIR/err" rc
	sc-serve --listen 127.0.0.1:0 --ready-file "$ready" \
	    >"$BATS_TEST_TMPDIR/srv2.log" 2>&1 3>&- &
	SRV2_PID=$!
	wait_for test -s "$ready"
	# A slow reader keeps the stream open while the server is killed.
	bash -c "sc-exec -s '$(cat "$ready")' --max-retries 2 --no-header \
	    --range 0:3000000 2>'$err' | (sleep 2; cat >'$out');
	    exit \${PIPESTATUS[0]}" 3>&- &
	BG_PID=$!
	wait_for grep -q ' started: ' "$BATS_TEST_TMPDIR/srv2.log"
	kill -9 "$SRV2_PID"
	SRV2_PID=
	rc=0
	wait "$BG_PID" || rc=$?
	BG_PID=
	[ "$rc" -eq 4 ]
	# The cause first; then, at most, that the operation was not
	# released (the server may still hold it).
	[[ "$(head -1 "$err")" == "sc-exec: "*"(gave up after 2 retries in "[0-9]*"s)" ]]
	run -1 grep -v '^sc-exec: ReleaseAll of operation .* failed: ' <(tail -n +2 "$err")
	[ "$(wc -l <"$out")" -lt 3000000 ]
}

# N8: a second client's --attach to an operation that another is reading
# failed (its responses were read and released already), then released
# the operation, and the first client's result died with it.  A failed
# attach now leaves the operation alone and says how to resume it.
@test "a failed --attach leaves the operation to the client reading it" {
	local T=$BATS_TEST_TMPDIR sid op
	sid=$(cat /proc/sys/kernel/random/uuid)
	op=$(cat /proc/sys/kernel/random/uuid)
	# A: reads one byte, then holds its pipe (the stream stops behind
	# it) until B is done, then counts every line.
	(
		sc-exec --session-id "$sid" --operation-id "$op" --no-header \
		    --range 0:300000 2>"$T/a.err" | {
			dd bs=1 count=1 of="$T/started" 2>/dev/null
			while [ ! -e "$T/go" ]; do sleep 0.1; done
			wc -l >"$T/count"
		}
		echo "${PIPESTATUS[0]}" >"$T/a.rc"
	) 3>&- &
	BG_PID=$!
	wait_for test -s "$T/started"
	run -1 --separate-stderr sc-exec --session-id "$sid" --attach "$op"
	[[ "$stderr" == *"[INVALID_CURSOR."* ]]
	[[ "$stderr" == *"sc-exec: operation $op is left on the server; resume with --session-id $sid --attach $op"* ]]
	touch "$T/go"
	wait_for test -s "$T/a.rc"
	[ "$(cat "$T/a.rc")" = 0 ]
	[ "$(cat "$T/count")" -eq 300000 ]
	[ ! -s "$T/a.err" ]
	BG_PID=
}
