#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 42-sc-inspect: sc-inspect against a real sc-serve (with a Spark token
# and an admin token): every command, filter and format, --ids, the cron
# pipeline into sc-release against detached queries, user isolation
# (without the admin token a caller sees only its own user's, in the
# sessions it names, and no SQL text; test/51-sc-serve-isolation.bats
# has the bound tokens of --token-file), watch
# --follow, the watch view driven in tmux (an execution appears,
# progresses, is released or interrupted from the view after a
# confirmation, and vanishes; q and Ctrl-C give the terminal back), and
# every exit code; then against the Node fake admin server
# (test/conformance/admin-fake-server.js): what the requests carry, and a
# server without the admin service (exit 7).

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

TOKEN=bats-inspect-token
ADMIN=bats-inspect-admin
LOOP='SELECT count(*) FROM range(1000000000000)'
FIELDS='operation_id	session_id	user_id	tags	state	reattachable	created	started	finished	attached	detached_for	abandon_in	responses_produced	responses_sent	responses_released	buffered_bytes	rows_sent	bytes_sent	rotations	reattaches	last_error_class	statement'
NO_ADMIN="has no sctk admin service (not sc-serve?)"

setup_file() {
	sc_server_start --token "$TOKEN" --admin-token "$ADMIN"
}

teardown_file() {
	sc_server_stop
}

# Every test has its own session and users, so tests sharing the server
# never see each other's executions through their filters.
setup() {
	SERVER=$(head -1 "$BATS_FILE_TMPDIR/server.ready")
	SPARK_REMOTE="$SERVER;token=$TOKEN"
	export SPARK_REMOTE
	unset SCTK_ADMIN_TOKEN
	SID=$(new_id)
	U="u$BATS_TEST_NUMBER"
	BG_PIDS=()
	TMUX_SOCK="sctk-inspect-$$-$BATS_TEST_NUMBER"
	FAKE_PID=
}

teardown() {
	local p
	kill -CONT "$SCTK_SERVER_PID" 2>/dev/null
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null
	for p in "${BG_PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	if [ -n "$FAKE_PID" ]; then
		kill "$FAKE_PID" 2>/dev/null
		wait "$FAKE_PID" 2>/dev/null
	fi
	true
}

new_id() {
	local id
	read -r id </proc/sys/kernel/random/uuid # no process per id
	echo "$id"
}

# detach USER ARGS...: start a reattachable operation in $SID as USER,
# detached, and wait until it has finished (sc-exec returns after its
# first response); prints its id.
detach() {
	local user=$1 op
	shift
	op=$(sc-exec --user-id "$user" --session-id "$SID" --detach "$@") ||
	    return 1
	wait_for is_finished "$op" || return 1
	echo "$op"
}

is_finished() {
	[ "$(sc-inspect --admin-token "$ADMIN" show "$1" --fields state --no-header)" = finished ]
}

# col NAME: the values of column NAME of the TSV (with a header) on stdin.
col() {
	awk -F'\t' -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { print $c }'
}

# endless USER OPID: a query that never ends, attached, in the
# background (its pid in BG_PIDS); returns once it runs.
endless() {
	sc-exec --user-id "$1" --session-id "$SID" --operation-id "$2" "$LOOP" \
	    >"$BATS_TEST_TMPDIR/$2.out" 2>"$BATS_TEST_TMPDIR/$2.err" 3>&- &
	BG_PIDS+=($!)
	wait_for server_log_has "operation $2 started"
}

# ------------------------------------------------------------- tmux

need_tmux() {
	command -v tmux >/dev/null 2>&1 || skip "tmux is not installed"
}

tm() {
	tmux -L "$TMUX_SOCK" "$@"
}

# view ARGS...: sc-inspect ARGS... in a 200x40 tmux window (VIEW_SIZE
# "80 24" for another size); after it
# ends the window shows EXIT=<status> and TTY:<the terminal's line
# modes>.  The shell there survives a Ctrl-C of sc-inspect (its trap).
view() {
	local script="$BATS_TEST_TMPDIR/view.sh"
	{
		echo 'trap "echo INT" INT'
		printf 'LANG=C.UTF-8 sc-inspect'
		printf ' %q' "$@"
		echo
		echo 'echo "EXIT=$?"'
		echo 'echo "TTY:$(stty -a | tr " ;" "\n\n" | grep -x -e -icanon -e icanon -e -echo -e echo | tr "\n" " ")"'
		echo 'sleep 600'
	} >"$script"
	local size=(${VIEW_SIZE:-200 40})
	tm new-session -d -x "${size[0]}" -y "${size[1]}" -s v "bash $script" 3>&-
}

screen() {
	tm capture-pane -p -t v
}

# on_screen PATTERN: the window shows a line matching PATTERN (ERE)
# within helpers/common's bound (60 s; 240 s under sanitizers).
on_screen() {
	local i n=$SCTK_WAIT_STEPS
	for ((i = 0; i < n; i++)); do
		screen | grep -qE -- "$1" && return 0
		sleep 0.1
	done
	echo "not on the screen: $1" >&2
	screen >&2
	return 1
}

# shown: the operation ids the view lists, in order.
shown() {
	screen | awk 'length($1) == 36 && $1 ~ /^[0-9a-f-]+$/ { print $1 }' | tr '\n' ' '
}

# rows_of OP: the ROWS column of OP's line in the view.
rows_of() {
	screen | awk -v op="$1" '$1 == op { print $7 }'
}

# split LINE: the tab-separated fields of LINE into the array f, empty
# ones kept (a tab in IFS would merge them).
split() {
	IFS=$'\x1f' read -r -a f <<<"${1//$'\t'/$'\x1f'}"
}

# -------------------------------------------------------------- usage

@test "usage errors exit 2 with one message each" {
	run --separate-stderr -2 sc-inspect bogus
	[ "${stderr_lines[0]}" = "sc-inspect: unknown command 'bogus' (list, show, sessions, tombstones, stats, watch)" ]
	[ "${stderr_lines[-1]}" = "try 'sc-inspect --help'" ]
	run --separate-stderr -2 sc-inspect show
	[ "${stderr_lines[0]}" = "sc-inspect: show needs an operation id" ]
	run --separate-stderr -2 sc-inspect list extra
	[ "${stderr_lines[0]}" = "sc-inspect: too many operands, from 'extra'" ]
	run --separate-stderr -2 sc-inspect --state sleeping
	[ "${stderr_lines[0]}" = "sc-inspect: invalid state 'sleeping': expected pending, running, finished, failed, canceled or closed" ]
	run --separate-stderr -2 sc-inspect --fields operation_id,nope
	[ "${stderr_lines[0]}" = "sc-inspect: invalid --fields: unknown field 'nope' (fields: ${FIELDS//	/, })" ]
	run --separate-stderr -2 sc-inspect --format xml
	[ "${stderr_lines[0]}" = "sc-inspect: invalid format 'xml': expected table, tsv, csv, jsonl or prometheus" ]
	run --separate-stderr -2 sc-inspect --detached-for soon
	[ "${stderr_lines[0]}" = "sc-inspect: invalid --detached-for: 'soon' is not a duration" ]
	run --separate-stderr -2 sc-inspect --session not-a-uuid
	[ "${stderr_lines[0]}" = "sc-inspect: invalid session id 'not-a-uuid': not a UUID" ]
	run --separate-stderr -2 sc-inspect sessions --tag etl
	[ "${stderr_lines[0]}" = "sc-inspect: --tag, --state, --detached-for and --older-than filter executions: use them with list or watch, not sessions" ]
	run --separate-stderr -2 sc-inspect stats --user x
	[ "${stderr_lines[0]}" = "sc-inspect: stats takes no --session or --user" ]
	run --separate-stderr -2 sc-inspect tombstones --ids
	[ "${stderr_lines[0]}" = "sc-inspect: --ids needs list or sessions" ]
	run --separate-stderr -2 sc-inspect --ids --format csv
	[ "${stderr_lines[0]}" = "sc-inspect: cannot use --ids with --fields, --format or --artifacts" ]
	run --separate-stderr -2 sc-inspect list --artifacts
	[ "${stderr_lines[0]}" = "sc-inspect: --artifacts needs sessions" ]
	run --separate-stderr -2 sc-inspect list --follow
	[ "${stderr_lines[0]}" = "sc-inspect: --follow needs watch" ]
	run --separate-stderr -2 sc-inspect list --interval 1s
	[ "${stderr_lines[0]}" = "sc-inspect: --interval needs watch (without --follow)" ]
	run --separate-stderr -2 sc-inspect watch --format csv
	[ "${stderr_lines[0]}" = "sc-inspect: --fields, --format and --no-header are for listings and watch --follow, not the watch view" ]
	run --separate-stderr -2 sc-inspect watch
	[ "${stderr_lines[0]}" = "sc-inspect: watch needs a terminal; for event lines use watch --follow" ]
	run --separate-stderr -2 sc-inspect --session-id "$SID"
	[ "${stderr_lines[0]}" = "sc-inspect: --session-id names a Spark session to use, which sc-inspect does not: filter with --session" ]
	run --separate-stderr -2 sc-inspect --admin-token ''
	[ "${stderr_lines[0]}" = "sc-inspect: invalid value: empty" ]
}

# -------------------------------------------------------------- list

@test "list: a detached operation, every field as TSV by default" {
	local op
	op=$(detach "$U" "SELECT * FROM range(10)")
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" list --session "$SID"
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "$FIELDS" ]
	split "${lines[1]}"
	[ "${#f[@]}" -eq 22 ]
	[ "${f[0]}" = "$op" ]
	[ "${f[1]}" = "$SID" ]
	[ "${f[2]}" = "$U" ]
	[ "${f[3]}" = "" ] # no tags
	[ "${f[4]}" = finished ]
	[ "${f[5]}" = true ] # reattachable
	[[ "${f[6]}" =~ ^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-9:]{8}\.[0-9]{3}Z$ ]]
	[[ "${f[8]}" =~ Z$ ]] # finished
	[ "${f[9]}" = false ] # attached
	[[ "${f[10]}" =~ ^[0-9]+\.[0-9]{3}$ ]] # detached_for, seconds
	[[ "${f[11]}" =~ ^(29[0-9]|300)\.[0-9]{3}$ ]] # abandon_in: the 5m timeout
	[[ "${f[12]}" =~ ^[1-9][0-9]*$ ]] # responses_produced
	[ "${f[20]}" = "" ] # no error class
	[ "${f[21]}" = "SELECT * FROM range(10)" ]
	# SQL text is for the admin token only.
	run --separate-stderr -0 sc-inspect --user-id "$U" list --session "$SID" --no-header --fields operation_id,statement
	[ "$output" = "$op	" ]
}

@test "show: one execution, every field; a table has a line per field" {
	local op
	op=$(detach "$U" --tag nightly "SELECT * FROM range(3)")
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" show "$op" --format table
	[ "${#lines[@]}" -eq 22 ]
	[[ "${lines[0]}" =~ ^operation_id\ +$op$ ]]
	[[ "${lines[3]}" =~ ^tags\ +nightly$ ]]
	[[ "${lines[4]}" =~ ^state\ +finished$ ]]
	[[ "${lines[9]}" =~ ^attached\ +false$ ]]
	[[ "${lines[11]}" =~ ^abandon_in\ +4m5[0-9]s$ ]]
	[[ "${lines[16]}" =~ ^rows_sent\ +[0-3]$ ]]
	[[ "${lines[20]}" =~ ^last_error_class\ +-$ ]]
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" show "$op" --format jsonl
	[ "${#lines[@]}" -eq 1 ]
	[ "$(jq -r .operation_id <<<"$output")" = "$op" ]
	[ "$(jq -c .tags <<<"$output")" = '["nightly"]' ]
	[ "$(jq -r '.rows_sent | type' <<<"$output")" = number ]
	[ "$(jq -r '.finished | type' <<<"$output")" = string ]
	[ "$(jq -r '.last_error_class' <<<"$output")" = null ]
	[ "$(jq -r '.detached_for | type' <<<"$output")" = number ]
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" show "$op" --fields state
	[ "$output" = $'state\nfinished' ]
	# Without the admin token, whoever names the user may not be it:
	# an operation id alone shows nothing.
	run --separate-stderr -3 sc-inspect --user-id "$U" show "$op"
}

@test "show: an operation that does not exist exits 3" {
	local op
	op=$(new_id)
	run --separate-stderr -3 sc-inspect --user-id "$U" show "$op"
	[ -z "$output" ]
	[ "$stderr" = "sc-inspect: no operation '$op' on the server for user '$U' [INVALID_HANDLE.OPERATION_NOT_FOUND]" ]
	run --separate-stderr -3 sc-inspect --admin-token "$ADMIN" show "$op"
	[ "$stderr" = "sc-inspect: no operation '$op' on the server [INVALID_HANDLE.OPERATION_NOT_FOUND]" ]
	# N24: not an id at all is a usage error, as sc-release says it.
	run --separate-stderr -2 sc-inspect --admin-token "$ADMIN" show nope
	[ "${stderr_lines[0]}" = "sc-inspect: invalid operation id 'nope': not a UUID" ]
}

@test "user isolation: without the admin token a caller sees only its own user's, in the session it names" {
	local a b sid_a
	a=$(detach "$U-a" "SELECT 1")
	sid_a=$SID
	SID=$(new_id)
	b=$(detach "$U-b" "SELECT 2")
	# Any token holder may claim to be user a: without a's session id
	# (the secret part of a handle) nothing of a's is shown.
	run --separate-stderr -0 sc-inspect --user-id "$U-a" list --ids
	[ "$output" = "" ]
	run --separate-stderr -0 sc-inspect --user-id "$U-a" sessions --ids
	[ "$output" = "" ]
	run --separate-stderr -0 sc-inspect --user-id "$U-a" stats --fields operations,sessions --no-header
	[ "$output" = $'0\t0' ]
	run --separate-stderr -3 sc-inspect --user-id "$U-a" show "$a"
	[ "$stderr" = "sc-inspect: no operation '$a' on the server for user '$U-a' [INVALID_HANDLE.OPERATION_NOT_FOUND]" ]
	# Naming the session: a's operation and session only, whatever the filter.
	run --separate-stderr -0 sc-inspect --user-id "$U-a" list --ids --session "$sid_a"
	[ "$output" = "$a" ]
	run --separate-stderr -0 sc-inspect --user-id "$U-a" list --ids --session "$SID"
	[ "$output" = "" ]
	run --separate-stderr -0 sc-inspect --user-id "$U-a" list --ids --session "$sid_a" --user "$U-b"
	[ "$output" = "" ]
	run --separate-stderr -0 sc-inspect --user-id "$U-a" sessions --ids --session "$sid_a"
	[ "$output" = "$sid_a" ]
	run --separate-stderr -3 sc-inspect --user-id "$U-a" show "$b"
	[ "$stderr" = "sc-inspect: no operation '$b' on the server for user '$U-a' [INVALID_HANDLE.OPERATION_NOT_FOUND]" ]
	# Nor through the protocol: for b, a's session does not exist.
	run --separate-stderr -3 sc-release --user-id "$U-b" --session-id "$sid_a" "$a"
	[[ "$output" == "$a	error: INVALID_HANDLE.SESSION_NOT_FOUND: "* ]]
	run --separate-stderr -0 sc-inspect --user-id "$U-a" list --ids --session "$sid_a"
	[ "$output" = "$a" ]
	# With the admin token (option or environment): both.
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" list --ids --user "$U-b"
	[ "$output" = "$SID/$b" ]
	SCTK_ADMIN_TOKEN=$ADMIN run --separate-stderr -0 sc-inspect list --ids
	[[ "$output" == *"$a"* && "$output" == *"$b"* ]]
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" show "$b" --fields user_id
	[ "${lines[1]}" = "$U-b" ]
}

@test "filters: --session, --user, --tag, --state, --detached-for, --older-than" {
	local op1 op2 op3 run_op
	op1=$(detach "$U" --tag etl "SELECT * FROM range(1)")
	op2=$(detach "$U" "SELECT * FROM range(2)")
	run --separate-stderr -0 sc-inspect --user-id "$U" list --session "$SID" --tag etl --ids
	[ "$output" = "$op1" ]
	run --separate-stderr -0 sc-inspect --user-id "$U" list --session "$SID" --ids
	[ "$output" = "$op2"$'\n'"$op1" ] # newest first
	run --separate-stderr -0 sc-inspect --user-id "$U" list --session "$SID" --state running --ids
	[ "$output" = "" ]
	run --separate-stderr -0 sc-inspect --user-id "$U" list --session "$SID" --state running,finished --ids
	[ "${#lines[@]}" -eq 2 ]
	run --separate-stderr -0 sc-inspect --user-id "$U" list --session "$SID" --state pending --state finished --ids
	[ "${#lines[@]}" -eq 2 ]
	run --separate-stderr -0 sc-inspect --user-id "$U" list --session "$SID" --detached-for 10m --ids
	[ "$output" = "" ]
	run --separate-stderr -0 sc-inspect --user-id "$U" list --session "$SID" --older-than 1h --ids
	[ "$output" = "" ]
	sleep 1.2
	run --separate-stderr -0 sc-inspect --user-id "$U" list --session "$SID" --detached-for 1s --ids
	[ "${#lines[@]}" -eq 2 ]
	run --separate-stderr -0 sc-inspect --user-id "$U" list --session "$SID" --older-than 1s --tag etl --ids
	[ "$output" = "$op1" ]
	# A running, attached one: in --state running, not detached.
	run_op=$(new_id)
	endless "$U" "$run_op"
	run --separate-stderr -0 sc-inspect --user-id "$U" list --session "$SID" --state running --fields operation_id,state,attached --no-header
	[ "$output" = "$run_op	running	true" ]
	run --separate-stderr -0 sc-inspect --user-id "$U" list --session "$SID" --detached-for 1s --ids
	[ "${#lines[@]}" -eq 2 ]
	# --user with the admin token; another session.
	local sid3
	sid3=$(new_id)
	op3=$(SID=$sid3 detach "$U-other" "SELECT 3")
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" list --user "$U-other" --ids
	[ "$output" = "$sid3/$op3" ]
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" list --user "$U-other" --session "$SID" --ids
	[ "$output" = "" ]
}

@test "formats: csv, jsonl, table, --fields, --no-header" {
	local op
	op=$(detach "$U" --tag a --tag b "SELECT 1, 'x' AS y")
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" list --session "$SID" --format csv --fields operation_id,tags,statement
	[ "${lines[0]}" = "operation_id,tags,statement" ]
	[ "${lines[1]}" = "$op,\"a,b\",\"SELECT 1, 'x' AS y\"" ]
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" list --session "$SID" --format csv --no-header --fields state,reattachable
	[ "$output" = "finished,true" ]
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" list --session "$SID" --format jsonl
	[ "${#lines[@]}" -eq 1 ]
	[ "$(jq -r 'keys_unsorted | join(" ")' <<<"$output")" = "${FIELDS//	/ }" ]
	[ "$(jq -c '[.operation_id, .tags, .attached, .reattachable, .finished != null, .abandon_in > 0]' <<<"$output")" = "[\"$op\",[\"a\",\"b\"],false,true,true,true]" ]
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" list --session "$SID" --format jsonl --fields state,operation_id
	[ "$output" = "{\"state\":\"finished\",\"operation_id\":\"$op\"}" ]
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" list --session "$SID" --fields all --no-header
	split "$output"
	[ "${#f[@]}" -eq 22 ]
	# A table: the terminal's choice of fields, aligned under the header.
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" list --session "$SID" --format table
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" =~ ^operation_id\ +session_id\ +user_id\ +state\ +attached\ +detached_for\ +abandon_in\ +rows_sent\ +buffered_bytes\ +statement$ ]]
	[[ "${lines[1]}" =~ ^-+(\ \ -+){9}$ ]]
	[[ "${lines[2]}" =~ ^$op\ \ $SID\ \ $U\ +finished\ +false\ +[0-9.]+(ms|s)\ +4m[0-5][0-9]s\ +[01]\ +[0-9.]+(B|KiB)\ \ SELECT\ 1,\ \'x\'\ AS\ y$ ]]
	# The columns line up: "state" starts where "finished" does.
	local h=${lines[0]%%state*} r=${lines[2]%%finished*}
	[ "${#h}" -eq "${#r}" ]
}

@test "--ids: only the ids, one per line, for list and sessions" {
	local op1 op2
	op1=$(detach "$U" "SELECT 1")
	op2=$(detach "$U" "SELECT 2")
	run --separate-stderr -0 sc-inspect --user-id "$U" list --session "$SID" --ids
	[ "$output" = "$op2"$'\n'"$op1" ]
	run --separate-stderr -0 sc-inspect --user-id "$U" sessions --ids --session "$SID"
	[ "$output" = "$SID" ]
}

@test "the cron pipeline: sc-inspect --ids | sc-release - releases the detached operations" {
	local op1 op2
	op1=$(detach bats "SELECT * FROM range(5)")
	op2=$(detach bats "SELECT * FROM range(6)")
	# Detached for less than 10 minutes: nothing to release yet.
	run --separate-stderr -0 bash -c "sc-inspect --user-id bats list --session $SID --detached-for 10m --ids | sc-release --user-id bats --session-id $SID -"
	[ "$output" = "" ]
	sleep 1.1
	run --separate-stderr -0 bash -c "sc-inspect --user-id bats list --session $SID --detached-for 1s --ids | sc-release --user-id bats --session-id $SID -"
	[ "$output" = "$op2	released"$'\n'"$op1	released" ]
	run --separate-stderr -0 sc-inspect --user-id bats list --session "$SID" --ids
	[ "$output" = "" ]
	run --separate-stderr -3 sc-exec --user-id bats --session-id "$SID" --attach "$op1"
	# The example of the man page, across sessions, with the admin token.
	SID=$(new_id)
	op1=$(detach "$U" "SELECT 7")
	sleep 1.1
	run --separate-stderr -0 bash -c "sc-inspect --admin-token $ADMIN list --user $U --detached-for 1s --no-header --format tsv --fields user_id,session_id,operation_id |
	    while IFS=\$(printf '\\t') read -r user sid op; do sc-release --user-id \"\$user\" --session-id \"\$sid\" \"\$op\"; done"
	[ "$output" = "$op1	released" ]
}

@test "sessions: operations held; tombstones of a released session" {
	local op
	op=$(detach "$U" "SELECT 1")
	run --separate-stderr -0 sc-inspect --user-id "$U" sessions --session "$SID" --fields session_id,user_id,operations,artifacts,artifact_bytes
	[ "$output" = "session_id	user_id	operations	artifacts	artifact_bytes"$'\n'"$SID	$U	1	0	0" ]
	run --separate-stderr -0 sc-inspect --user-id "$U" sessions --session "$SID" --format jsonl
	[ "$(jq -r '[.session_id, (.idle_for | type), (.expires_in > 0), (.server_side_session_id | length > 0)] | @tsv' <<<"$output")" = "$SID	number	true	true" ]
	run --separate-stderr -0 sc-inspect --user-id "$U" sessions --session "$SID" --artifacts
	[ "$output" = "session_id	user_id	name	size	stored" ]
	run --separate-stderr -0 sc-inspect --user-id "$U" tombstones --session "$SID"
	[ "$output" = "kind	operation_id	session_id	user_id	reason	at" ]
	run -0 sc-release --user-id "$U" --session-id "$SID" --session
	run --separate-stderr -0 sc-inspect --user-id "$U" tombstones --session "$SID" --fields kind,operation_id,session_id,user_id,reason
	[ "${#lines[@]}" -eq 3 ]
	[[ "$output" == *"operation	$op	$SID	$U	session closed"* ]]
	[[ "$output" == *"session		$SID	$U	released"* ]]
	run --separate-stderr -0 sc-inspect --user-id "$U" sessions --session "$SID" --ids
	[ "$output" = "" ]
	run --separate-stderr -0 sc-inspect --user-id "$U-nobody" tombstones --no-header
	[ "$output" = "" ]
}

@test "tombstones: an operation abandoned after the detached timeout" {
	local ready="$BATS_TEST_TMPDIR/ready" srv pid op
	sc-serve --listen 127.0.0.1:0 --ready-file "$ready" --detached-timeout 1s \
	    --maintenance-interval 100ms >"$BATS_TEST_TMPDIR/log" 2>&1 3>&- &
	pid=$!
	BG_PIDS+=($pid)
	wait_for test -s "$ready"
	srv=$(cat "$ready")
	op=$(sc-exec -s "$srv" --user-id "$U" --session-id "$SID" --detach "SELECT 1")
	wait_for eval "sc-inspect -s $srv --user-id $U tombstones --no-header | grep -q '^operation	$op'"
	run --separate-stderr -0 sc-inspect -s "$srv" --user-id "$U" tombstones --fields kind,operation_id,session_id,user_id,reason --no-header
	[ "$output" = "operation	$op	$SID	$U	detached too long" ]
	run --separate-stderr -0 sc-inspect -s "$srv" stats --fields operations_abandoned,operations --no-header
	[ "$output" = $'1\t0' ]
	kill -TERM "$pid"
	wait "$pid"
}

@test "stats: a line per field in a table, one record otherwise" {
	detach "$U" "SELECT 1" >/dev/null
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" stats --format table
	[ "${#lines[@]}" -eq 23 ]
	[[ "${lines[0]}" =~ ^version\ +0\.1\.0$ ]]
	[[ "${lines[2]}" =~ ^uptime\ +[0-9] ]]
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" stats --format jsonl
	[ "$(jq -r '.operations == .pending + .running + .finished + .failed + .canceled + .closed' <<<"$output")" = true ]
	[ "$(jq -r '.sessions >= 1 and .rss_bytes > 0 and .operations_started >= 1' <<<"$output")" = true ]
	run --separate-stderr -0 sc-inspect --admin-token "$ADMIN" stats --fields version --no-header
	[ "$output" = "0.1.0" ]
}

# ------------------------------------------------------------- follow

@test "watch --follow: a snapshot, then each event as it happens" {
	local old op out="$BATS_TEST_TMPDIR/events" pid
	old=$(detach "$U" "SELECT 1")
	op=$(new_id)
	sc-inspect --user-id "$U" watch --follow --session "$SID" \
	    --fields event,operation_id,state >"$out" 2>"$out.err" 3>&- &
	pid=$!
	BG_PIDS+=($pid)
	wait_for grep -q "^snapshot	$old	finished$" "$out"
	sc-exec --user-id "$U" --session-id "$SID" --operation-id "$op" "SELECT 2" >/dev/null
	wait_for grep -q "^removed	$op	closed$" "$out"
	kill -TERM "$pid"
	wait "$pid" || true
	[ "$(head -1 "$out")" = "event	operation_id	state" ]
	[ "$(sed -n 2p "$out")" = "snapshot	$old	finished" ]
	grep -q "^created	$op	pending$" "$out"
	grep -q "^started	$op	running$" "$out"
	grep -q "^finished	$op	finished$" "$out"
	grep -q "^released	$op	" "$out"
	# In order.
	[ "$(grep "	$op	" "$out" | cut -f1 | grep -E '^(created|started|finished|removed)$' | tr '\n' ' ')" = "created started finished removed " ]
	[ ! -s "$out.err" ]
}

# N12: -t bounds a watch that works (a log collector from cron): its end
# is a success, said with -v; and a log appended to keeps one header.
@test "watch --follow: JSON lines; -t ends it with exit 0" {
	local old
	old=$(detach "$U" "SELECT 1")
	run --separate-stderr -0 sc-inspect -t 1s --user-id "$U" watch --follow --session "$SID" --format jsonl
	[ "${#lines[@]}" -eq 1 ]
	[ "$(jq -r '[.event, .operation_id, .state] | @tsv' <<<"${lines[0]}")" = "snapshot	$old	finished" ]
	[ -z "$stderr" ]
	run --separate-stderr -0 sc-inspect -v -t 1s --user-id "$U" watch --follow --session "$SID" --fields event
	[ "$output" = $'event\nsnapshot' ]
	[ "${stderr_lines[-1]}" = "sc-inspect: the watch ended: the --timeout of 1s passed" ]
}

@test "watch --follow and list appended to a file write their header once" {
	local log="$BATS_TEST_TMPDIR/log.tsv"
	detach "$U" "SELECT 1" >/dev/null
	sc-inspect -t 1s --user-id "$U" watch --follow --session "$SID" --fields event >>"$log"
	sc-inspect -t 1s --user-id "$U" watch --follow --session "$SID" --fields event >>"$log"
	[ "$(cat "$log")" = $'event\nsnapshot\nsnapshot' ]
	sc-inspect --user-id "$U" list --session "$SID" --format csv --fields state >>"$log.csv"
	sc-inspect --user-id "$U" list --session "$SID" --format csv --fields state >>"$log.csv"
	[ "$(cat "$log.csv")" = $'state\nfinished\nfinished' ]
	# Written over (not appended), the header is there each time.
	sc-inspect --user-id "$U" list --session "$SID" --format csv --fields state >"$log.csv"
	[ "$(cat "$log.csv")" = $'state\nfinished' ]
}

@test "watch --follow ends when the reader of its output goes away" {
	local st
	detach "$U" "SELECT 1" >/dev/null
	# head takes the header and goes; no event comes after the snapshot.
	run -0 timeout 10 bash -c "sc-inspect --user-id $U watch --follow --session $SID | head -1; echo \"status \${PIPESTATUS[0]}\""
	[ "${lines[0]}" = "at	event	operation_id	session_id	user_id	tags	state	reattachable	created	started	finished	attached	detached_for	abandon_in	responses_produced	responses_sent	responses_released	buffered_bytes	rows_sent	bytes_sent	rotations	reattaches	last_error_class	statement" ]
	[ "${lines[1]}" = "status 141" ] # SIGPIPE, as any filter
	[ "${#lines[@]}" -eq 2 ]
}

@test "sc-inspect | head -1: no message, SIGPIPE" {
	local i
	for i in 1 2 3; do detach "$U" "SELECT $i" >/dev/null; done
	run -0 bash -c "sc-inspect --user-id $U list 2>&1 | head -1"
	[ "$output" = "$FIELDS" ]
}

# --------------------------------------------------------------- view

@test "the watch view: an execution appears, progresses, is released with r then y, and vanishes; q gives the terminal back" {
	need_tmux
	local op fifo="$BATS_TEST_TMPDIR/rows" r1 r2
	op=$(new_id)
	mkfifo "$fifo"
	# A query streaming rows to a slow reader: it runs and progresses.
	# Two columns: a bare range streams so fast that the rows in flight
	# take the reader longer than wait_for to drain.
	sc-exec --user-id "$U" --session-id "$SID" --operation-id "$op" \
	    "SELECT id, id AS j FROM range(100000000)" >"$fifo" 2>/dev/null 3>&- &
	BG_PIDS+=($!)
	awk 'NR % 2000 == 0 { system("sleep 0.1") }' <"$fifo" 3>&- &
	BG_PIDS+=($!)
	view --admin-token "$ADMIN" --interval 300ms watch --session "$SID"
	on_screen "^$op +$U +running +yes "
	screen | grep -q "^sc-inspect  sc://127.0.0.1:[0-9]*  admin  "
	screen | grep -qE "^executions 1: running 1   server: sessions [0-9]+, buffered "
	screen | grep -qE "^OPERATION +USER +STATE +ATT +DETACHED +ABANDON +ROWS +SENT +BUFFERED +AGE\^ STATEMENT"
	screen | grep -qE "^operation_id: $op  session_id: $SID  user_id: $U"
	screen | grep -qE "^statement: SELECT id, id AS j FROM range\(100000000\)"
	r1=$(rows_of "$op")
	rows_moved() { [ "$(rows_of "$op")" != "$r1" ]; }
	wait_for rows_moved
	r2=$(rows_of "$op")
	[ "$r2" -gt "$r1" ]
	tm send-keys -t v r
	on_screen "^release operation $op of session $SID \(user $U\)\? \(y/n\)"
	tm send-keys -t v y
	on_screen "^released operation $op$"
	on_screen "^executions 0 "
	! screen | grep -q "^$op"
	server_log_has "operation $op released"
	tm send-keys -t v q
	on_screen "^EXIT=0$"
	on_screen "^TTY:icanon echo *$"
}

@test "the watch view: n does nothing, i then y interrupts, sort keys; Ctrl-C exits 130 and restores the terminal" {
	need_tmux
	local op a b
	a=$(detach "$U" "SELECT * FROM range(10)")
	b=$(detach "$U" "SELECT * FROM range(20)")
	op=$(new_id)
	endless "$U" "$op"
	# The admin token: sorting by statement needs the SQL text.
	view --admin-token "$ADMIN" --interval 300ms watch --session "$SID"
	on_screen "^$op +$U +running +yes "
	screen | grep -q "^sc-inspect  sc://127.0.0.1:[0-9]*  admin  "
	# Newest first: op, b, a.  Sorted by statement: a, b, op; reversed.
	[ "$(shown)" = "$op $b $a " ]
	tm send-keys -t v '>'
	on_screen "STATEMENT\^"
	[ "$(shown)" = "$a $b $op " ]
	tm send-keys -t v '<' '<'
	on_screen "BUFFERED\^"
	tm send-keys -t v '>' o
	on_screen "AGEv"
	[ "$(shown)" = "$a $b $op " ]
	# Select the running one (last now), refuse, then interrupt it.
	tm send-keys -t v G r
	on_screen "^release operation $op "
	tm send-keys -t v n
	on_screen "^nothing done$"
	screen | grep -q "^$op "
	tm send-keys -t v i
	on_screen "^interrupt operation $op of session $SID \(user $U\)\? \(y/n\)"
	tm send-keys -t v y
	on_screen "^interrupted operation $op$"
	server_log_has "operation $op canceled"
	ended_with_cancel() { grep -q OPERATION_CANCELED "$BATS_TEST_TMPDIR/$op.err"; }
	wait_for ended_with_cancel
	tm send-keys -t v C-c
	on_screen "^EXIT=130$"
	on_screen "^TTY:icanon echo *$"
}

# N5: at 80x24 the columns shrink as top's do: the statement stays, cut
# with '+'; columns of least use go; the question always ends in (y/n).
@test "the watch view at 80x24: the statement stays, cut with +, and the question shows (y/n)" {
	need_tmux
	local a
	a=$(detach "$U" "SELECT 'a statement long enough to be cut at eighty columns' AS s")
	VIEW_SIZE="80 24" view --admin-token "$ADMIN" --interval 300ms watch --session "$SID"
	on_screen "^${a:0:9} +$U +finished "
	screen | grep -qE "^OPERATION +USER +STATE +ROWS +BUFFERED +AGE\^ STATEMENT$"
	screen | grep -qE "^${a:0:9} +$U +finished +1 .* SELECT 'a stat[a-z ]*\+$"
	[ "$(screen | grep -v '^\(─\|q\)*$' | awk 'length > 80' | wc -l)" -eq 0 ]
	tm send-keys -t v r
	on_screen "^release operation $a of session .*\+ \(y/n\)$"
	tm send-keys -t v y
	on_screen "^released operation $a$"
	tm send-keys -t v q
	on_screen "^EXIT=0$"
}

# N6: a listing on an 80-column terminal fits it, as top's columns do:
# the widest fields go (ids last), the statement is cut with '+'.
@test "list and sessions on an 80-column terminal: one line per row" {
	need_tmux
	local a
	a=$(detach "$U" "SELECT 'a statement long enough to be cut at eighty columns' AS s")
	VIEW_SIZE="80 24" view --admin-token "$ADMIN" list --session "$SID"
	on_screen "^EXIT=0$"
	screen | grep -qxE "operation_id +user_id +state +statement"
	screen | grep -qxE "$a +$U +finished +SELECT 'a stat[a-z ]*\+"
	[ "$(screen | awk 'length > 80' | wc -l)" -eq 0 ]
	tm kill-server
	VIEW_SIZE="80 24" view --admin-token "$ADMIN" sessions --session "$SID"
	on_screen "^EXIT=0$"
	screen | grep -qE "^session_id +user_id +"
	screen | grep -qE "^$SID +$U +"
	[ "$(screen | awk 'length > 80' | wc -l)" -eq 0 ]
	# Not a terminal: every default field, nothing cut.
	run -0 sc-inspect --admin-token "$ADMIN" list --session "$SID" --format table
	[[ "${lines[0]}" == "operation_id  "*"  session_id  "* ]]
	[[ "$output" == *"SELECT 'a statement long enough to be cut at eighty columns' AS s"* ]]
}

# N24: ? lists the keys; / selects the next row holding a text, n the one
# after; \ shows only the rows holding a text, \ Enter all again.
@test "the watch view: ? help, / search, \\ filter" {
	need_tmux
	local a b c
	a=$(detach "$U" "SELECT 'apple' AS fruit")
	b=$(detach "$U" "SELECT 'banana' AS fruit")
	c=$(detach "$U" "SELECT 'cherry' AS fruit")
	view --admin-token "$ADMIN" --interval 300ms watch --session "$SID"
	on_screen "^$a "
	[ "$(shown)" = "$c $b $a " ]
	tm send-keys -t v '?'
	on_screen "^sc-inspect watch: keys \(any key goes back\)$"
	screen | grep -qE "^  / +search: select the next row holding a text"
	tm send-keys -t v x
	on_screen "^OPERATION "
	tm send-keys -t v / A P P L E Enter
	on_screen "^operation_id: $a "
	tm send-keys -t v / n o n e Enter
	on_screen "^no row holds 'none'$"
	tm send-keys -t v '\' b a n Enter
	on_screen "^showing the rows holding 'ban'$"
	[ "$(shown)" = "$b " ]
	screen | grep -qE "^executions 3 \(1 shown\): finished 3"
	tm send-keys -t v '\' Enter
	on_screen "^executions 3: finished 3"
	[ "$(shown)" = "$c $b $a " ]
	tm send-keys -t v q
	on_screen "^EXIT=0$"
}

# N7: a listing that fails says since when the rows are old, and once
# the server is back the message goes.
@test "the watch view: rows marked stale while the server is away, the error gone when it is back" {
	need_tmux
	local port op
	start_other
	BG_PIDS+=("$OTHER_PID")
	port=${OTHER##*:}
	op=$(sc-exec -s "$OTHER" --user-id "$U" --session-id "$SID" --detach "SELECT 1 AS one")
	SPARK_REMOTE=$OTHER view --user-id "$U" --interval 300ms watch
	on_screen "^$op +$U "
	kill -9 "$OTHER_PID"
	wait "$OTHER_PID" 2>/dev/null || true
	on_screen "^cannot connect to '127.0.0.1:$port': connection refused; the rows are as listed at [0-9-]+ [0-9:]+$"
	screen | grep -q "^$op "
	sc-serve --listen "127.0.0.1:$port" >"$BATS_TEST_TMPDIR/again.log" 2>&1 3>&- &
	OTHER_PID=$!
	BG_PIDS+=("$OTHER_PID")
	on_screen "^executions 0"
	! screen | grep -q "cannot connect"
	! screen | grep -q "^$op "
	tm send-keys -t v q
	on_screen "^EXIT=0$"
	stop_other
}

# ------------------------------------------------------- exit codes

@test "exit 4 for an unreachable server, 8 for a refused token, 5 for a timeout" {
	run --separate-stderr -4 sc-inspect -s sc://127.0.0.1:1 list
	[ "$stderr" = "sc-inspect: cannot connect to '127.0.0.1:1': connection refused" ]
	run --separate-stderr -8 sc-inspect --admin-token wrong list
	[[ "$stderr" == "sc-inspect: "* ]]
	SPARK_REMOTE=$SERVER run --separate-stderr -8 sc-inspect --user-id "$U" list
	[[ "$stderr" == "sc-inspect: "* ]]
	kill -STOP "$SCTK_SERVER_PID"
	run --separate-stderr -5 sc-inspect -t 1s --user-id "$U" list
	kill -CONT "$SCTK_SERVER_PID"
	[[ "$stderr" == "sc-inspect: "*" (the --timeout of 1s passed)" ]]
	# A watch the server never took is a timeout too, not a bounded watch.
	kill -STOP "$SCTK_SERVER_PID"
	run --separate-stderr -5 sc-inspect -t 1s --user-id "$U" watch --follow
	kill -CONT "$SCTK_SERVER_PID"
	[ -z "$output" ]
	[[ "$stderr" == "sc-inspect: "*" (the --timeout of 1s passed)" ]]
}

# --------------------------------------------- the Node fake server

# fake ARGS...: start test/conformance/admin-fake-server.js; FAKE is its
# address, FAKE_LOG the requests it saw (JSON lines).
fake() {
	need_node
	local ready="$BATS_TEST_TMPDIR/fake.ready"
	FAKE_LOG="$BATS_TEST_TMPDIR/fake.log"
	node "$SCTK_TOP/test/conformance/admin-fake-server.js" --ready-file "$ready" \
	    --log "$FAKE_LOG" "$@" >"$BATS_TEST_TMPDIR/fake.out" 2>&1 3>&- &
	FAKE_PID=$!
	wait_for test -s "$ready"
	FAKE=$(cat "$ready")
}

fixture() {
	cat >"$BATS_TEST_TMPDIR/fixture.json" <<'EOF'
{"executions": [
 {"operation_id": "11111111-1111-4111-8111-111111111111",
  "session_id": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "user_id": "alice",
  "tags": ["etl"], "statement": "SELECT 1", "state": "EXECUTION_STATE_RUNNING",
  "created_at_ms": "-20m", "detached_since_at_ms": "-15m", "abandon_in_ms": 60000},
 {"operation_id": "22222222-2222-4222-8222-222222222222",
  "session_id": "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb", "user_id": "bob",
  "statement": "SELECT 2", "state": 42, "created_at_ms": "-1m", "attached": true}],
 "sessions": [
 {"session_id": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "user_id": "alice",
  "artifacts": [{"name": "jars/a.jar", "size": 1024, "stored_at_ms": 1700000000250},
   {"name": "cache/abc", "size": 10, "stored_at_ms": 1700000001000}],
  "artifact_bytes": 1034, "expires_in_ms": -1}],
 "tombstones": [
 {"kind": "KIND_SESSION", "session_id": "cccccccc-cccc-4ccc-8ccc-cccccccccccc",
  "user_id": "alice", "reason": "released", "at_ms": 1700000000000}]}
EOF
	echo "$BATS_TEST_TMPDIR/fixture.json"
}

@test "fake server: the caller, the admin token header, the filter on the wire" {
	fake --admin-token sekrit --fixture "$(fixture)"
	run --separate-stderr -0 sc-inspect -s "$FAKE" --user-id alice list --ids
	[ "$output" = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa/11111111-1111-4111-8111-111111111111" ]
	[ "$(jq -r 'select(.method == "ListExecutions") | [.caller, .admin_token] | @tsv' "$FAKE_LOG")" = "alice	" ]
	: >"$FAKE_LOG"
	run --separate-stderr -0 sc-inspect -s "$FAKE" --user-id alice --admin-token sekrit list --ids --tag etl --state running,closed --detached-for 10m --older-than 90s
	[ "$output" = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa/11111111-1111-4111-8111-111111111111" ]
	[ "$(jq -c '[.caller, .admin_token, .request.filter.tag, .request.filter.states, .request.filter.detached_for_ms, .request.filter.older_than_ms, .request.limit]' "$FAKE_LOG")" = '["alice","sekrit","etl",["EXECUTION_STATE_RUNNING","EXECUTION_STATE_CLOSED"],600000,90000,0]' ]
	: >"$FAKE_LOG"
	SCTK_ADMIN_TOKEN=sekrit run --separate-stderr -0 sc-inspect -s "$FAKE" --user-id x stats --fields operations --no-header
	[ "$output" = 2 ]
	[ "$(jq -r .admin_token "$FAKE_LOG")" = sekrit ]
	# A state newer than this client: "unknown", not an error.
	run --separate-stderr -0 sc-inspect -s "$FAKE" --admin-token sekrit show 22222222-2222-4222-8222-222222222222 --fields state,attached --no-header
	[ "$output" = $'unknown\ttrue' ]
}

@test "fake server: a truncated listing warns; sessions --artifacts; tombstones" {
	fake --admin-token sekrit --fixture "$(fixture)" --list-max 1
	run --separate-stderr -0 sc-inspect -s "$FAKE" --admin-token sekrit list --ids
	[ "$output" = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb/22222222-2222-4222-8222-222222222222" ]
	[ "$stderr" = "sc-inspect: the server listed only 1 executions, its limit; narrow the filter to see the others" ]
	run --separate-stderr -0 sc-inspect -s "$FAKE" --admin-token sekrit sessions --artifacts
	[ "$output" = "session_id	user_id	name	size	stored
aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa	alice	jars/a.jar	1024	2023-11-14T22:13:20.250Z
aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa	alice	cache/abc	10	2023-11-14T22:13:21.000Z" ]
	run --separate-stderr -0 sc-inspect -s "$FAKE" --admin-token sekrit sessions --fields session_id,expires_in,artifacts,artifact_bytes --format jsonl
	[ "$output" = '{"session_id":"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa","expires_in":null,"artifacts":2,"artifact_bytes":1034}' ]
	run --separate-stderr -0 sc-inspect -s "$FAKE" --admin-token sekrit tombstones --format jsonl
	[ "$output" = '{"kind":"session","operation_id":null,"session_id":"cccccccc-cccc-4ccc-8ccc-cccccccccccc","user_id":"alice","reason":"released","at":"2023-11-14T22:13:20.000Z"}' ]
}

@test "fake server: watch --follow until the server ends the stream" {
	fake --admin-token sekrit --fixture "$(fixture)" --watch-events 3 --watch-interval 50
	run --separate-stderr -0 sc-inspect -s "$FAKE" --admin-token sekrit watch --follow --tag etl --fields event,rows_sent --no-header
	[ "$output" = $'snapshot\t0\nprogress\t10\nprogress\t20\nprogress\t30' ]
	[ "$(jq -c '[.request.initial_snapshot, .request.filter.tag]' "$FAKE_LOG")" = '[true,"etl"]' ]
}

@test "a server without the admin service: exit 7 for every command" {
	fake --no-admin
	local c msg="sc-inspect: the server at '$FAKE' $NO_ADMIN"
	for c in list sessions tombstones stats "show $(new_id)" "watch --follow"; do
		# shellcheck disable=SC2086
		run --separate-stderr -7 sc-inspect -s "$FAKE" $c
		[ "$stderr" = "$msg" ]
		[ -z "$output" ]
	done
	# The view says so before it takes the screen.
	need_tmux
	view -s "$FAKE" watch
	on_screen "^EXIT=7$"
	screen | grep -qF "$msg"
}
