#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 32-sc-serve-limits: what a client cannot do to sc-serve's log and
# lifetime.  A newline or bytes that are not UTF-8 in a user id are
# escaped, so the log keeps one line per event and the man page's error
# count stays 0; a worker stuck on a database lock cannot hold SIGTERM up
# beyond sctk.server.shutdownTimeout, and a second SIGTERM ends the
# process at once; the session cap reaches sc-exec as a clear error.
# (The Config, session flood and memory figures are in
# conformance/17-session-limits.test.js.)

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

LOG="$BATS_FILE_TMPDIR/server.log"

teardown() {
	[ -n "${CLIENT_PID:-}" ] && kill -9 "$CLIENT_PID" 2>/dev/null
	CLIENT_PID=
	release_lock
	sc_server_stop
}

# The man page's way to count warnings and errors in a log.
count_errors() {
	grep -cE '^[^ ]+ [0-9]+ [EW] ' "$LOG" || true
}

@test "a newline in user_id cannot forge a log line" {
	local forged='2026-01-01T00:00:00.000Z 1 E FORGED LOG LINE'
	sc_server_start
	# Refused at the door (a user id is UTF-8 without control
	# characters), the id shown escaped.
	run -1 sc-exec --no-header --user-id $'eve\n'"$forged" "SELECT 1 AS one"
	[[ "$output" == *"[INVALID_HANDLE.FORMAT]"* ]]
	[[ "$output" == *'eve\\x0a2026-01-01'* ]]
	[ "${#lines[@]}" -eq 1 ]
	sc_server_stop
	# Every line is one of the server's, and none is the forged one.
	run -1 grep -cvE "^[0-9-]{10}T[0-9:.]{12}Z [0-9]+ [EWID] " "$LOG"
	[ "$output" = "0" ]
	run -1 grep -c "^$forged" "$LOG"
	[ "$output" = "0" ]
	[ "$(count_errors)" = "0" ]
}

@test "bytes of user_id that are not UTF-8 are refused, never written raw" {
	sc_server_start
	run -1 sc-exec --no-header --user-id $'mallory\xff\xfe\x1b[2J' \
	    "SELECT 2 AS two"
	[[ "$output" == *"[INVALID_HANDLE.FORMAT]"* ]]
	run -1 env LC_ALL=C grep -c $'[\xff\xfe\x1b]' <<<"$output"
	sc_server_stop
	run -1 env LC_ALL=C grep -c $'[\xff\xfe\x1b]' "$LOG"
	[ "$output" = "0" ]
	[ "$(count_errors)" = "0" ]
}

# hold_lock DB: another process takes the write lock of DB and keeps it
# until release_lock.
hold_lock() {
	local fifo="$BATS_TEST_TMPDIR/lock.fifo"
	command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
	LOCK_DB=$1
	mkfifo "$fifo"
	sqlite3 "$LOCK_DB" <"$fifo" >/dev/null 2>&1 3>&- &
	LOCK_PID=$!
	exec 4>"$fifo"
	echo 'BEGIN IMMEDIATE;' >&4
	wait_for lock_held
}

lock_held() {
	! sqlite3 "$LOCK_DB" 'BEGIN IMMEDIATE; ROLLBACK;' 2>/dev/null
}

release_lock() {
	[ -n "${LOCK_PID:-}" ] || return 0
	exec 4>&-
	wait "$LOCK_PID" 2>/dev/null || true
	LOCK_PID=
}

# stuck_insert: an INSERT whose worker waits for the lock (SQLite's busy
# timeout is 30 s); returns once a worker sleeps in SQLite's busy handler.
stuck_insert() {
	sc-exec -t 120s "INSERT INTO t VALUES (1)" >/dev/null 2>&1 3>&- &
	CLIENT_PID=$!
	wait_for grep -q " I operation [0-9a-f-]* started: " "$LOG"
	wait_for worker_sleeps
}

# worker_sleeps: one of the server's sc-query threads is in nanosleep or
# clock_nanosleep (SQLite's busy handler between two tries of the lock;
# an idle worker waits on a futex instead).  Where /proc has no syscall
# file (or another architecture numbers them otherwise), half a second.
worker_sleeps() {
	local t nr
	if [ "$(uname -m)" != x86_64 ] ||
	    [ ! -r "/proc/$SCTK_SERVER_PID/task/$SCTK_SERVER_PID/syscall" ]; then
		sleep 0.5
		return 0
	fi
	for t in /proc/"$SCTK_SERVER_PID"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = sc-query ] || continue
		read -r nr _ 2>/dev/null <"$t/syscall" || continue
		case $nr in 35 | 230) return 0 ;; esac
	done
	return 1
}

# wait_exit MAX_MS: wait for the server to exit; sets ELAPSED (ms since
# the call) and STATUS, and forgets the server.
wait_exit() {
	local max=$1 start now
	start=$(date +%s%N)
	while kill -0 "$SCTK_SERVER_PID" 2>/dev/null; do
		now=$(date +%s%N)
		if (((now - start) / 1000000 > max)); then
			echo "sc-serve still running after $max ms" >&2
			cat "$LOG" >&2
			return 1
		fi
		sleep 0.05
	done
	ELAPSED=$((($(date +%s%N) - start) / 1000000))
	STATUS=0
	wait "$SCTK_SERVER_PID" || STATUS=$?
	SCTK_SERVER_PID=
}

@test "a worker stuck on a lock cannot hold SIGTERM beyond shutdownTimeout" {
	# The bound is far above the 2 s (a loaded machine is slow) and
	# below SQLite's 30 s busy timeout; status 10 and the log line say
	# the timeout ended it.
	local slack=20000
	sc_server_start --database "$BATS_TEST_TMPDIR/db" \
	    --conf sctk.server.shutdownTimeout=2s
	run -0 sc-exec "CREATE TABLE t(a INTEGER)"
	hold_lock "$BATS_TEST_TMPDIR/db"
	stuck_insert
	kill -TERM "$SCTK_SERVER_PID"
	wait_exit $((2000 + slack))
	echo "exit $STATUS after $ELAPSED ms" >&2
	[ "$STATUS" -eq 10 ]
	[ "$ELAPSED" -ge 1900 ]
	grep -qE "^[^ ]+ [0-9]+ E shutdown did not finish within 2s \\(sctk.server.shutdownTimeout\\); exiting now$" "$LOG"
	[ ! -e "$BATS_FILE_TMPDIR/server.ready" ]
	check_sanitizer_reports
}

@test "a second SIGTERM during a stuck shutdown ends it at once" {
	local slack=20000
	sc_server_start --database "$BATS_TEST_TMPDIR/db" \
	    --conf sctk.server.shutdownTimeout=60s
	run -0 sc-exec "CREATE TABLE t(a INTEGER)"
	hold_lock "$BATS_TEST_TMPDIR/db"
	stuck_insert
	kill -TERM "$SCTK_SERVER_PID"
	wait_for grep -q " I shutting down (SIGTERM)" "$LOG"
	sleep 0.5
	kill -0 "$SCTK_SERVER_PID"
	kill -TERM "$SCTK_SERVER_PID"
	wait_exit "$slack"
	[ "$STATUS" -eq 10 ]
	grep -qE "^[^ ]+ [0-9]+ E SIGTERM during shutdown; exiting now$" "$LOG"
	check_sanitizer_reports
}

@test "sc-exec past the per-user session cap fails with SESSION_LIMIT_EXCEEDED" {
	local u=capped
	sc_server_start --conf sctk.session.maxSessionsPerUser=2
	# Sessions that hold something (a temp view): an idle, empty one
	# would be closed to make room.
	run -0 sc-exec --user-id "$u" --session-id \
	    11111111-2222-4333-8444-000000000001 \
	    "CREATE TEMP VIEW v AS SELECT 1"
	run -0 sc-exec --user-id "$u" --session-id \
	    11111111-2222-4333-8444-000000000002 \
	    "CREATE TEMP VIEW v AS SELECT 1"
	run -1 --separate-stderr sc-exec --user-id "$u" --session-id \
	    11111111-2222-4333-8444-000000000003 "SELECT 1"
	[ "$output" = "" ]
	[[ "$stderr" == *"[SESSION_LIMIT_EXCEEDED.USER] Cannot create a new session: this user already has 2 sessions, the limit per user (sctk.session.maxSessionsPerUser)."*"SQLSTATE: 53300"* ]]
	# Another user and an existing session are not affected.
	run -0 sc-exec --no-header --user-id other --session-id \
	    11111111-2222-4333-8444-000000000003 "SELECT 3"
	[ "$output" = "3" ]
	run -0 sc-exec --no-header --user-id "$u" --session-id \
	    11111111-2222-4333-8444-000000000001 "SELECT 4"
	[ "$output" = "4" ]
	grep -qE " W new sessions refused: \\[SESSION_LIMIT_EXCEEDED.USER\\]" "$LOG"
}
