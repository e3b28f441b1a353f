#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 53-ux-majors: the majors of the second user trial.  One user id rule for
# every program (no USER under cron is the login name, not ''); a bare
# number is seconds for sc-serve's duration options too; \detach at the
# prompt comes back at once and the operation outlives the prompt; and
# the cron pipeline over every session, sc-inspect list --ids (pairs)
# into sc-release -, run as cron runs it.  The file's server binds its
# token to the login user (--token-file, the way to run a shared server),
# so a wrong user id is refused and the admin service shows that user's
# sessions.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

TOK=tok53

setup_file() {
	local f="$BATS_FILE_TMPDIR/tokens"
	printf '%s %s\n' "$TOK" "$(id -un)" >"$f"
	chmod 600 "$f"
	sc_server_start --token-file "$f"
	export SPARK_REMOTE="$SPARK_REMOTE/;token=$TOK"
}

teardown_file() {
	sc_server_stop
}

setup() {
	T=$BATS_TEST_TMPDIR
	ME=$(id -un)
	BG_PIDS=()
}

teardown() {
	local p
	for p in "${BG_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	[ -n "${TMUX_SOCK:-}" ] && tmux -S "$TMUX_SOCK" kill-server 2>/dev/null
	true
}

new_id() {
	cat /proc/sys/kernel/random/uuid
}

# cron_env CMD...: CMD as cron runs a job: no USER, LOGNAME or terminal,
# only SHELL, HOME, PATH and (as a crontab line sets it) SPARK_REMOTE.
cron_env() {
	env -i SHELL=/bin/sh HOME="$T" PATH="$SCTK_BUILD/bin:/usr/bin:/bin" \
	    SPARK_REMOTE="$SPARK_REMOTE" "$@" </dev/null
}

# ------------------------------------------------------------------ N2

@test "N2: without USER or LOGNAME every program is the login user" {
	local sid op
	sid=$(new_id)
	run --separate-stderr -0 cron_env sc-exec -vv --session-id "$sid" --detach "SELECT 1 AS one"
	op=$output
	[[ "$stderr" == *"session $sid, user '$ME'"* ]]
	run --separate-stderr -0 cron_env sc-inspect -v list --ids
	[[ "$stderr" == *"user '$ME'"* ]]
	[[ "$output" == *"$sid/$op"* ]]
	run --separate-stderr -3 cron_env sc-upload -vv --session-id "$sid" --status cache/none
	[[ "$stderr" == *"user '$ME'"* ]]
	run --separate-stderr -0 cron_env sc-release -v --session-id "$sid" "$op"
	[[ "$stderr" == *"user '$ME'"* ]]
	[ "$output" = "$op	released" ]
}

@test "N2: USER, else LOGNAME, else the login name; the URI and --user-id first" {
	# Only the login user's id matches the token (exit 8 for the others),
	# and -v shows the id each one sent.
	run --separate-stderr -8 cron_env LOGNAME=logname53 sc-inspect -v list --ids
	[[ "$stderr" == *"user 'logname53'"* ]]
	run --separate-stderr -8 cron_env LOGNAME=logname53 USER=user53 sc-inspect -v list --ids
	[[ "$stderr" == *"user 'user53'"* ]]
	run --separate-stderr -0 cron_env USER= LOGNAME= sc-inspect -v list --ids
	[[ "$stderr" == *"user '$ME'"* ]]
	run --separate-stderr -8 cron_env USER=user53 sc-inspect -v -s "$SPARK_REMOTE;user_id=uri53" list --ids
	[[ "$stderr" == *"user 'uri53'"* ]]
	run --separate-stderr -8 cron_env USER=user53 sc-inspect -v -s "$SPARK_REMOTE;user_id=uri53" --user-id opt53 list --ids
	[[ "$stderr" == *"user 'opt53'"* ]]
	run --separate-stderr -8 cron_env LOGNAME=logname53 sc-exec -vv "SELECT 1 AS one"
	[[ "$stderr" == *"user 'logname53'"* ]]
}

# ------------------------------------------------------------------ N4

# serve53 ARGS...: a second server of the test's own; sets SRV.
serve53() {
	local ready="$T/ready53"
	sc-serve --listen 127.0.0.1:0 --ready-file "$ready" "$@" \
	    >"$T/serve53.log" 2>&1 3>&- &
	BG_PIDS+=($!)
	wait_for test -s "$ready"
	SRV=$(cat "$ready")
}

# abandon_in_s OP: the server's abandon_in of OP, whole seconds.
abandon_in_s() {
	sc-inspect -s "$SRV" show "$1" --fields abandon_in --no-header | cut -d. -f1
}

@test "N4: --detached-timeout 300 is five minutes, as -t 300 is for clients" {
	local op n
	serve53 --detached-timeout 300 --maintenance-interval 0.2
	op=$(sc-exec -s "$SRV" --session-id "$(new_id)" --detach "SELECT 1 AS one")
	sleep 1 # longer than 300 ms, the old reading
	n=$(abandon_in_s "$op")
	[ "$n" -gt 200 ] && [ "$n" -le 300 ]
	run -0 sc-exec -s "$SRV" --session-id "$(sc-inspect -s "$SRV" show "$op" --fields session_id --no-header)" --attach "$op"
	[ "$output" = "$(printf 'one\n---\n  1')" ] || [ "$output" = "$(printf 'one\n1')" ]
}

@test "N4: units everywhere; --conf keeps Spark's milliseconds" {
	local op n
	serve53 --conf spark.connect.execute.manager.detachedTimeout=300000 --session-timeout 1h30m
	op=$(sc-exec -s "$SRV" --session-id "$(new_id)" --detach "SELECT 1 AS one")
	n=$(abandon_in_s "$op")
	[ "$n" -gt 200 ] && [ "$n" -le 300 ]
	run --separate-stderr -2 sc-serve --detached-timeout 1h30
	[ "${stderr_lines[0]}" = "sc-serve: invalid --detached-timeout: '1h30' is not a duration" ]
	run --separate-stderr -2 sc-serve --max-stream-duration soon
	[ "${stderr_lines[0]}" = "sc-serve: invalid --max-stream-duration: 'soon' is not a duration" ]
	run --separate-stderr -2 sc-exec --unreachable-timeout 1h30 "SELECT 1"
	[ "${stderr_lines[0]}" = "sc-exec: invalid --unreachable-timeout: '1h30' is not a duration" ]
	run -0 sc-serve --help
	[[ "$output" == *"A duration d is a number of seconds"* ]]
}

@test "N4: --detached-timeout 1 abandons after a second, not a millisecond" {
	local op
	serve53 --detached-timeout 1 --maintenance-interval 100ms
	op=$(sc-exec -s "$SRV" --session-id "$(new_id)" --detach "SELECT 1 AS one")
	wait_for grep -q "operation $op abandoned: detached for" "$T/serve53.log"
	run -0 grep -oE "operation $op abandoned: detached for [0-9]+ ms" "$T/serve53.log"
	[ "$(grep -oE '[0-9]+ ms' <<<"$output" | cut -d' ' -f1)" -ge 1000 ]
}

# ------------------------------------------------------------------ N3

# The screen with wrapped lines joined.
screen53() {
	tmux -S "$TMUX_SOCK" capture-pane -p -J -S - -E - | sed 's/ *$//'
}

# wait53 [-x] TEXT: until TEXT is on the screen (a line, with -x).
wait53() {
	local i n=200 x=
	[ "$1" = -x ] && x=x && shift
	[ -n "${SCTK_SANITIZE:-}" ] && n=2000
	for ((i = 0; i < n; i++)); do
		screen53 | grep -q${x}F -- "$1" && return 0
		sleep 0.1
	done
	echo "timed out waiting for '$1'; the screen:" >&2
	screen53 >&2
	return 1
}

type53() {
	if [ "${1%;}" != "$1" ]; then
		tmux -S "$TMUX_SOCK" send-keys -l "${1%;}"
		tmux -S "$TMUX_SOCK" send-keys '\;'
	else
		tmux -S "$TMUX_SOCK" send-keys -l "$1"
	fi
	tmux -S "$TMUX_SOCK" send-keys Enter
}

# hint53 N: "SESSION OPERATION" of the N-th "attach with" hint.
hint53() {
	screen53 | grep -oE 'attach with --session-id [0-9a-f-]{36} --attach [0-9a-f-]{36}' |
	    sed -n "${1}p" | awk '{ print $4, $6 }'
}

@test "N3: \\detach comes back at once, and the operation outlives the prompt (^D)" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	local s1 o1 s2 o2 prompt_sid
	TMUX_SOCK=$T/tmux.sock
	prompt_sid=$(new_id)
	tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -x 100 -y 40 \
	    "env -i PATH='$PATH' HOME='$T' TERM=xterm-256color LANG=C.UTF-8 SPARK_REMOTE='$SPARK_REMOTE' PS1='$ ' bash --norc --noprofile" 3>&-
	wait53 -x '$'
	type53 "clear; sc-exec --no-pager --format csv --session-id $prompt_sid; echo rc=\$?"
	wait53 -x 'sc-exec>'
	type53 '\detach'
	wait53 -x 'the next statement runs detached, in a session of its own'
	# Runs for minutes: the prompt must not wait for it.
	type53 'SELECT count(*) AS n FROM range(3000000000);'
	wait53 'attach with --session-id'
	read -r s1 o1 < <(hint53 1)
	[ -n "$o1" ] && [ "$s1" != "$prompt_sid" ]
	type53 'SELECT 1 AS quick;'
	wait53 -x 'quick'
	wait53 -x '1'
	type53 '\detach'
	type53 'SELECT 42 AS answer;'
	wait_for eval '[ -n "$(hint53 2)" ]'
	read -r s2 o2 < <(hint53 2)
	[ -n "$o2" ]
	# A statement that fails before it is detached leaves no session.
	local nsess
	nsess=$(sc-inspect sessions --ids | wc -l)
	type53 '\detach'
	type53 'SELEC 53;'
	wait53 'PARSE_SYNTAX_ERROR'
	wait_for eval '[ "$(sc-inspect sessions --ids | wc -l)" -eq "$nsess" ]' || {
		echo "sessions: $nsess before, now:" >&2
		sc-inspect sessions >&2
		false
	}
	tmux -S "$TMUX_SOCK" send-keys C-d
	wait53 -x 'rc=0'
	# Both still there after the prompt left; the long one still runs.
	run --separate-stderr -0 sc-inspect show "$o1" --fields state,session_id --no-header
	[ "$output" = "running	$s1" ]
	run --separate-stderr -0 sc-exec --format csv --session-id "$s2" --attach "$o2"
	[ "$output" = "$(printf 'answer\n42')" ]
	run --separate-stderr -0 sc-release --interrupt "$s1/$o1"
	[ "$output" = "$s1/$o1	interrupted" ]
	run -1 grep -q "operation $o1 abandoned" "$BATS_FILE_TMPDIR/server.log"
}

# ------------------------------------------------------- the cron pipeline

@test "list --ids: session/operation pairs, bare ids with --session" {
	local s1 s2 o1 o2
	s1=$(new_id) s2=$(new_id)
	o1=$(sc-exec --session-id "$s1" --detach "SELECT 1 AS one")
	o2=$(sc-exec --session-id "$s2" --detach "SELECT 2 AS two")
	run --separate-stderr -0 sc-inspect list --ids --session "$s1"
	[ "$output" = "$o1" ]
	run --separate-stderr -0 sc-inspect list --ids
	[[ "$output" == *"$s1/$o1"* && "$output" == *"$s2/$o2"* ]]
	run --separate-stderr -0 sc-inspect sessions --ids
	[[ "$output" == *"$s1"* && "$output" != *"/"* ]]
	# Pairs on the command line and on standard input, mixed with a
	# bare id of --session-id, and a bad pair reported by its line.
	run --separate-stderr -0 sc-release -n "$s1/$o1"
	[ "$output" = "$s1/$o1	would release" ]
	run --separate-stderr -2 sc-release - <<<"$s1/nope"
	[ "$output" = "$s1/nope	error: line 1: not an operation id (a UUID)" ]
	run --separate-stderr -0 sc-release --session-id "$s1" "$o1" "$s2/$o2"
	[ "$output" = "$(printf '%s\treleased\n%s\treleased' "$o1" "$s2/$o2")" ]
	# No --session-id and a bare id: still a usage error.
	run --separate-stderr -2 sc-release "$o1"
	[[ "$stderr" == "sc-release: no session id: "* ]]
}

@test "the crontab line over every session, as cron runs it (env -i, no TTY)" {
	local s1 s2 o1 o2 line
	s1=$(new_id) s2=$(new_id)
	o1=$(sc-exec --session-id "$s1" --detach "SELECT 1 AS one")
	o2=$(sc-exec --session-id "$s2" --detach "SELECT count(*) AS n FROM range(3000000000)")
	# As man/sc-inspect.1 and man/sc-release.1 write it, 10m made 1s.
	line='sc-inspect list --detached-for 1s --ids | sc-release -q -'
	wait_for eval "sc-inspect list --detached-for 1s --ids | grep -qx '$s1/$o1'"
	wait_for eval "sc-inspect list --detached-for 1s --ids | grep -qx '$s2/$o2'"
	run --separate-stderr -0 cron_env sh -c "$line"
	[ "$output" = "" ]
	[ "$stderr" = "" ]
	run --separate-stderr -0 sc-inspect list --ids
	[[ "$output" != *"$o1"* && "$output" != *"$o2"* ]]
	run --separate-stderr -3 sc-inspect show "$o1"
	run --separate-stderr -3 sc-inspect show "$o2"
	# Nothing to do: silent too.
	run --separate-stderr -0 cron_env sh -c "$line"
	[ "$output" = "" ]
	[ "$stderr" = "" ]
}
