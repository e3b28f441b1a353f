#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 51-sc-serve-isolation: users kept apart.  The file's server runs with
# --token-file (each token bound to one user) and --admin-token: a token
# used for another user's id is refused with PERMISSION_DENIED
# [SCTK_AUTH.USER_MISMATCH] on every RPC (ExecutePlan, ReattachExecute,
# Interrupt, ReleaseSession, Config, AddArtifacts) and on the admin
# service; a bound token sees only its own user in the admin service,
# without SQL text; SIGHUP re-reads the file, and a bad file keeps the
# old table; a token file others may read is refused at start.  A second
# server with a shared --token: a token holder naming another user sees
# none of that user's sessions, operations or SQL through sc-inspect
# unless it names the session; the admin token sees everything.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

ADMIN=bats-isolation-admin
SHARED=bats-isolation-shared
LOOP='SELECT count(*) FROM range(1000000000000)'
MISMATCH='[SCTK_AUTH.USER_MISMATCH] The token is bound to the user `mallory`; this request names the user `alice`. SQLSTATE: 42501'

setup_file() {
	local f="$BATS_FILE_TMPDIR/tokens"
	printf '# token user_id\ntok-alice alice\n\n  tok-mallory\tmallory  \n' >"$f"
	chmod 600 "$f"
	sc_server_start --token-file "$f" --admin-token "$ADMIN"
}

teardown_file() {
	sc_server_stop
}

setup() {
	SERVER=$(head -1 "$BATS_FILE_TMPDIR/server.ready")
	unset SPARK_REMOTE SCTK_ADMIN_TOKEN
	SID=$(new_id)
	BG_PIDS=()
	OTHER_PID=
}

teardown() {
	local p
	for p in "${BG_PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	if [ -n "$OTHER_PID" ]; then
		kill -TERM "$OTHER_PID" 2>/dev/null
		wait "$OTHER_PID" 2>/dev/null
	fi
	true
}

new_id() {
	cat /proc/sys/kernel/random/uuid
}

# as TOKEN: the address with that token.
as() {
	echo "$SERVER;token=$1"
}

# endless TOKEN USER OPID: a query that never ends, attached, in the
# background; returns once it runs.
endless() {
	sc-exec -s "$(as "$1")" --user-id "$2" --session-id "$SID" \
	    --operation-id "$3" "$LOOP" >/dev/null 2>&1 3>&- &
	BG_PIDS+=($!)
	wait_for server_log_has "operation $3 started"
}

# start_other ARGS...: a second server (its own log and ready file).
start_other() {
	local i
	rm -f "$BATS_TEST_TMPDIR/other.ready"
	sc-serve --listen 127.0.0.1:0 --ready-file "$BATS_TEST_TMPDIR/other.ready" \
	    "$@" >"$BATS_TEST_TMPDIR/other.log" 2>&1 3>&- &
	OTHER_PID=$!
	for ((i = 0; i < 100; i++)); do
		[ -s "$BATS_TEST_TMPDIR/other.ready" ] && break
		sleep 0.1
	done
	[ -s "$BATS_TEST_TMPDIR/other.ready" ]
	OTHER=$(head -1 "$BATS_TEST_TMPDIR/other.ready")
}

@test "a bound token works for its own user" {
	run --separate-stderr -0 sc-exec -s "$(as tok-alice)" --user-id alice --session-id "$SID" "CREATE TEMP VIEW v AS SELECT 'alice-only' AS s"
	run --separate-stderr -0 sc-exec -s "$(as tok-alice)" --user-id alice --session-id "$SID" --no-header "SELECT * FROM v"
	[ "$output" = alice-only ]
}

@test "mallory's token with alice's id: ExecutePlan, Config, AddArtifacts are PERMISSION_DENIED" {
	sc-exec -s "$(as tok-alice)" --user-id alice --session-id "$SID" "CREATE TEMP VIEW v AS SELECT 'alice-only' AS s"
	run --separate-stderr -8 sc-exec -s "$(as tok-mallory)" --user-id alice --session-id "$SID" "SELECT * FROM v"
	[ "$output" = "" ]
	[ "$stderr" = "sc-exec: $MISMATCH" ]
	# Config (--conf sets a session setting before the statement).
	run --separate-stderr -8 sc-exec -s "$(as tok-mallory)" --user-id alice --session-id "$SID" --conf spark.sql.ansi.enabled=false "SELECT 1"
	[ "$stderr" = "sc-exec: $MISMATCH" ]
	echo data >"$BATS_TEST_TMPDIR/f.txt"
	run --separate-stderr -8 sc-upload -s "$(as tok-mallory)" --user-id alice --session-id "$SID" "$BATS_TEST_TMPDIR/f.txt"
	[ "$stderr" = "sc-upload: $MISMATCH" ]
	run --separate-stderr -8 sc-upload -s "$(as tok-mallory)" --user-id alice --session-id "$SID" --status cache/f
	[ "$stderr" = "sc-upload: $MISMATCH" ]
	server_log_has "refused a request from .*: user mismatch: its token is bound to user 'mallory', it names user 'alice'"
	# Her view is still hers.
	run --separate-stderr -0 sc-exec -s "$(as tok-alice)" --user-id alice --session-id "$SID" --no-header "SELECT * FROM v"
	[ "$output" = alice-only ]
}

@test "mallory's token with alice's id: Reattach, Interrupt, ReleaseExecute, ReleaseSession are PERMISSION_DENIED" {
	local op
	op=$(new_id)
	endless tok-alice alice "$op"
	run --separate-stderr -8 sc-exec -s "$(as tok-mallory)" --user-id alice --session-id "$SID" --attach "$op"
	[ "$stderr" = "sc-exec: $MISMATCH" ]
	run --separate-stderr -8 sc-release -s "$(as tok-mallory)" --user-id alice --session-id "$SID" --interrupt "$op"
	[ "$stderr" = "sc-release: 1 of 1 failed: $MISMATCH" ]
	run --separate-stderr -8 sc-release -s "$(as tok-mallory)" --user-id alice --session-id "$SID" "$op"
	[ "$stderr" = "sc-release: 1 of 1 failed: $MISMATCH" ]
	run --separate-stderr -8 sc-release -s "$(as tok-mallory)" --user-id alice --session-id "$SID" --session
	[ "$stderr" = "sc-release: 1 of 1 failed: $MISMATCH" ]
	# Her operation still runs; she stops it herself.
	run --separate-stderr -0 sc-inspect -s "$(as tok-alice)" --user-id alice show "$op" --fields state --no-header
	[ "$output" = running ]
	run --separate-stderr -0 sc-release -s "$(as tok-alice)" --user-id alice --session-id "$SID" --interrupt "$op"
}

@test "the admin service: a bound token sees its own user only, without SQL; another user id is PERMISSION_DENIED" {
	local op
	op=$(new_id)
	endless tok-alice alice "$op"
	run --separate-stderr -8 sc-inspect -s "$(as tok-mallory)" --user-id alice sessions
	[ "$output" = "" ]
	[ "$stderr" = "sc-inspect: $MISMATCH" ]
	run --separate-stderr -8 sc-inspect -s "$(as tok-mallory)" --user-id alice list
	[ "$stderr" = "sc-inspect: $MISMATCH" ]
	# Under her own id mallory sees nothing of alice's.
	run --separate-stderr -0 sc-inspect -s "$(as tok-mallory)" --user-id mallory sessions --ids
	[ "$output" = "" ]
	run --separate-stderr -0 sc-inspect -s "$(as tok-mallory)" --user-id mallory list --ids --user alice
	[ "$output" = "" ]
	run --separate-stderr -3 sc-inspect -s "$(as tok-mallory)" --user-id mallory show "$op"
	# Alice sees her sessions (other tests' too) and her operation
	# without naming them, but not the SQL text.
	run --separate-stderr -0 sc-inspect -s "$(as tok-alice)" --user-id alice sessions --ids
	[[ $'\n'"$output"$'\n' == *$'\n'"$SID"$'\n'* ]]
	run --separate-stderr -0 sc-inspect -s "$(as tok-alice)" --user-id alice list --state running --no-header --fields operation_id,user_id,statement
	[ "$output" = "$op	alice	" ]
	# Her user id from USER, as every sctk program takes it.
	USER=alice run --separate-stderr -0 sc-inspect -s "$(as tok-alice)" list --state running --ids
	[ "$output" = "$SID/$op" ]
	# Without USER the login name is the user id: not hers.
	USER='' LOGNAME='' run --separate-stderr -8 sc-inspect -s "$(as tok-alice)" list --state running --ids
	[[ "$stderr" == *"[SCTK_AUTH.USER_MISMATCH]"* ]]
	# The admin token sees everything, SQL too.
	run --separate-stderr -0 sc-inspect -s "$SERVER" --admin-token "$ADMIN" list --session "$SID" --no-header --fields user_id,statement
	[ "$output" = "alice	$LOOP" ]
	sc-release -s "$(as tok-alice)" --user-id alice --session-id "$SID" --interrupt "$op"
}

@test "no token, or one not in the file: UNAUTHENTICATED" {
	run --separate-stderr -8 sc-exec -s "$SERVER" --user-id alice "SELECT 1"
	[ "$stderr" = "sc-exec: No authentication token provided [UNAUTHENTICATED]" ]
	run --separate-stderr -8 sc-exec -s "$(as tok-nobody)" --user-id alice "SELECT 1"
	[ "$stderr" = "sc-exec: Invalid authentication token [UNAUTHENTICATED]" ]
	run --separate-stderr -8 sc-inspect -s "$(as tok-nobody)" --user-id alice sessions
	[ "$stderr" = "sc-inspect: Invalid authentication token [UNAUTHENTICATED]" ]
}

@test "SIGHUP re-reads the token file; a bad file keeps the old table" {
	local f="$BATS_FILE_TMPDIR/tokens"
	run --separate-stderr -8 sc-exec -s "$(as tok-carol)" --user-id carol "SELECT 1"
	echo 'tok-carol carol' >>"$f"
	kill -HUP "$SCTK_SERVER_PID"
	wait_for server_log_has "SIGHUP: token file '.*tokens' read again: 3 tokens"
	run --separate-stderr -0 sc-exec -s "$(as tok-carol)" --user-id carol --no-header "SELECT 7"
	[ "$output" = 7 ]
	cp "$f" "$BATS_TEST_TMPDIR/good"
	echo 'tok-dave dave extra' >>"$f"
	kill -HUP "$SCTK_SERVER_PID"
	wait_for server_log_has "W SIGHUP: token file '.*tokens' line 6: expected 'token user_id'; the 3 tokens read before stay in force"
	run --separate-stderr -0 sc-exec -s "$(as tok-carol)" --user-id carol --no-header "SELECT 8"
	[ "$output" = 8 ]
	run --separate-stderr -8 sc-exec -s "$(as tok-dave)" --user-id dave "SELECT 1"
	# A file that became readable by others is refused too.
	cp "$BATS_TEST_TMPDIR/good" "$f"
	echo 'tok-dave dave' >>"$f"
	chmod 644 "$f"
	kill -HUP "$SCTK_SERVER_PID"
	wait_for server_log_has "W SIGHUP: permissions 0644 for token file '.*tokens' are too open"
	run --separate-stderr -8 sc-exec -s "$(as tok-dave)" --user-id dave "SELECT 1"
	chmod 600 "$f"
	kill -HUP "$SCTK_SERVER_PID"
	wait_for server_log_has "read again: 4 tokens"
	run --separate-stderr -0 sc-exec -s "$(as tok-dave)" --user-id dave --no-header "SELECT 9"
	[ "$output" = 9 ]
	# Removing a user takes effect at once.
	cp "$BATS_TEST_TMPDIR/good" "$f"
	kill -HUP "$SCTK_SERVER_PID"
	wait_for server_log_has "read again: 3 tokens"
	run --separate-stderr -8 sc-exec -s "$(as tok-dave)" --user-id dave "SELECT 1"
	[ "$stderr" = "sc-exec: Invalid authentication token [UNAUTHENTICATED]" ]
}

@test "a token file others may read, or a bad one, is refused at start (exit 2)" {
	local f="$BATS_TEST_TMPDIR/t"
	echo 'tok-x x' >"$f"
	chmod 644 "$f"
	run --separate-stderr -2 sc-serve --listen 127.0.0.1:0 --token-file "$f"
	[[ "$stderr" == *" E permissions 0644 for token file '$f' are too open: others may read it; make it readable by its owner only (chmod 600)" ]]
	chmod 640 "$f"
	run --separate-stderr -2 sc-serve --listen 127.0.0.1:0 --token-file "$f"
	[[ "$stderr" == *" E permissions 0640 for token file '$f' are too open"* ]]
	chmod 600 "$f"
	printf 'tok-x x\ntok-x y\n' >"$f"
	run --separate-stderr -2 sc-serve --listen 127.0.0.1:0 --token-file "$f"
	[[ "$stderr" == *" E token file '$f' line 2: the token is on an earlier line too" ]]
	printf 'adm x\n' >"$f"
	run --separate-stderr -2 sc-serve --listen 127.0.0.1:0 --admin-token adm --token-file "$f"
	[[ "$stderr" == *" E token file '$f' line 1: the token is also the --token or the --admin-token" ]]
	printf 'tok-x \xff\n' >"$f"
	run --separate-stderr -2 sc-serve --listen 127.0.0.1:0 --token-file "$f"
	[[ "$stderr" == *" E token file '$f' line 1: the user id is not valid UTF-8 of at most 255 bytes without control characters" ]]
	run --separate-stderr -9 sc-serve --listen 127.0.0.1:0 --token-file "$BATS_TEST_TMPDIR/none"
	[[ "$stderr" == *" E cannot open token file '$BATS_TEST_TMPDIR/none': No such file or directory" ]]
}

@test "shared --token: naming another user shows none of its sessions, operations or SQL" {
	local op
	start_other --token "$SHARED" --admin-token "$ADMIN"
	SERVER=$OTHER
	op=$(new_id)
	sc-exec -s "$(as "$SHARED")" --user-id alice --session-id "$SID" "CREATE TEMP VIEW v AS SELECT 'password=hunter2' AS s"
	sc-exec -s "$(as "$SHARED")" --user-id alice --session-id "$SID" --operation-id "$op" "$LOOP" >/dev/null 2>&1 3>&- &
	BG_PIDS+=($!)
	wait_for grep -q "operation $op started" "$BATS_TEST_TMPDIR/other.log"
	# Mallory, with the shared token, claims to be alice.
	run --separate-stderr -0 sc-inspect -s "$(as "$SHARED")" --user-id alice sessions
	[ "$output" = "session_id	user_id	server_side_session_id	created	last_access	idle_for	expires_in	operations	artifacts	artifact_bytes" ]
	run --separate-stderr -0 sc-inspect -s "$(as "$SHARED")" --user-id alice list --ids
	[ "$output" = "" ]
	run --separate-stderr -0 sc-inspect -s "$(as "$SHARED")" --user-id alice tombstones --no-header
	[ "$output" = "" ]
	run --separate-stderr -3 sc-inspect -s "$(as "$SHARED")" --user-id alice show "$op"
	run --separate-stderr -0 sc-inspect -s "$(as "$SHARED")" --user-id alice stats --fields operations,sessions --no-header
	[ "$output" = "0	0" ]
	# Who knows the session id (alice) sees it, still without the SQL.
	run --separate-stderr -0 sc-inspect -s "$(as "$SHARED")" --user-id alice sessions --session "$SID" --ids
	[ "$output" = "$SID" ]
	run --separate-stderr -0 sc-inspect -s "$(as "$SHARED")" --user-id alice list --session "$SID" --no-header --fields operation_id,state,statement
	[ "$output" = "$op	running	" ]
	# The admin token sees everything.
	run --separate-stderr -0 sc-inspect -s "$(as "$SHARED")" --admin-token "$ADMIN" sessions --ids
	[ "$output" = "$SID" ]
	run --separate-stderr -0 sc-inspect -s "$(as "$SHARED")" --admin-token "$ADMIN" show "$op" --fields user_id,statement --no-header
	[ "$output" = "alice	$LOOP" ]
	sc-release -s "$(as "$SHARED")" --user-id alice --session-id "$SID" --interrupt "$op"
}
