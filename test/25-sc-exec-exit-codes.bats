#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 25-sc-exec-exit-codes: the exit codes a cron wrapper decides on.  4
# and 5 ("retry later") only for a server that did not answer or a
# timeout that passed; a misconfiguration that waiting cannot fix (a
# certificate that does not verify, TLS on one side only, a port that
# is not gRPC, a bad token) exits 7 or 8 and says why; the cause is
# reported once; -t counts seconds; and the crontab line of sc-exec(1)
# works as written.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

LONG='SELECT count(*) FROM range(1000000000000)'

setup_file() {
	sc_server_start
}

teardown_file() {
	sc_server_stop
}

setup() {
	sc_server_env
}

teardown() {
	[ -n "${OTHER_PID:-}" ] && kill -9 "$OTHER_PID" 2>/dev/null
	[ -n "${HTTP_PID:-}" ] && kill -9 "$HTTP_PID" 2>/dev/null
	[ -n "${BG_PID:-}" ] && kill -9 "$BG_PID" 2>/dev/null
	OTHER_PID= HTTP_PID= BG_PID=
	true
}


make_cert() {
	command -v openssl >/dev/null || skip "openssl is not installed"
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=$1" \
	    -addext "subjectAltName=DNS:$1" \
	    -keyout "$BATS_TEST_TMPDIR/$1.key" -out "$BATS_TEST_TMPDIR/$1.pem" \
	    2>/dev/null
}

# ------------------------------------------------------------ timeouts

# logged_error MESSAGE: stderr is one sc-serve log line "UTC-time pid E
# MESSAGE" (start-up errors are logged like every other line).
logged_error() {
	[[ "$stderr" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z\ [0-9]+\ E\ (.*)$ ]] &&
	    [ "${BASH_REMATCH[1]}" = "$1" ]
}

@test "-t 2 means two seconds, and the message names the timeout" {
	local start
	# A count over a million rows takes far longer than 30 ms (and, on
	# a loaded machine, may take more than 2 s).
	run -0 sc-exec -t 30 --format csv --no-header \
	    'SELECT count(*) FROM range(1000000)'
	[ "$output" = 1000000 ]
	start=$SECONDS
	run -5 --separate-stderr sc-exec -t 2 "$LONG"
	[[ "$stderr" =~ ^sc-exec:\ operation\ [0-9a-f-]{36}\ timed\ out\ \(the\ --timeout\ of\ 2s\ passed\)$ ]]
	[ $((SECONDS - start)) -ge 2 ]
	run -5 --separate-stderr sc-exec -t 1m30s -t 1.5 "$LONG"
	[[ "$stderr" == *"(the --timeout of 1.5s passed)" ]]
}

# ------------------------------------------- permanent misconfigurations

@test "a certificate that does not verify exits 8 and says so" {
	make_cert localhost
	make_cert other
	start_other --tls-cert "$BATS_TEST_TMPDIR/localhost.pem" \
	    --tls-key "$BATS_TEST_TMPDIR/localhost.key"
	local port
	port=$(sed 's/^sc:\/\/[^:]*:\([0-9]*\).*/\1/' <<<"$OTHER")
	run -0 sc-exec -s "sc://localhost:$port;use_ssl=true" \
	    --ca-file "$BATS_TEST_TMPDIR/localhost.pem" --range 0:2
	[ "$output" = "$(printf 'id\n0\n1')" ]
	run -8 --separate-stderr sc-exec -s "sc://localhost:$port;use_ssl=true" \
	    --ca-file "$BATS_TEST_TMPDIR/other.pem" --range 0:2
	[[ "$stderr" == "sc-exec: cannot connect to 'localhost:$port': TLS certificate verify failed; check --ca-file"* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	stop_other
}

@test "plain text against a TLS server exits 7 and points at TLS" {
	make_cert localhost
	start_other --tls-cert "$BATS_TEST_TMPDIR/localhost.pem" \
	    --tls-key "$BATS_TEST_TMPDIR/localhost.key"
	local plain=${OTHER%/;use_ssl=true}
	run -7 --separate-stderr sc-exec -s "$plain" --range 0:2
	[[ "$stderr" == "sc-exec: cannot connect to '${plain#sc://}': the server closed the connection at once; if it expects TLS, use --tls or use_ssl=true"* ]]
	stop_other
}

@test "TLS against a plain server exits 7 and says it does not speak TLS" {
	make_cert localhost
	run -7 --separate-stderr sc-exec -s "$SPARK_REMOTE;use_ssl=true" \
	    --ca-file "$BATS_TEST_TMPDIR/localhost.pem" --range 0:2
	[[ "$stderr" == "sc-exec: cannot connect to '${SPARK_REMOTE#sc://}': TLS handshake failed: the server does not speak TLS, so connect without --tls or use_ssl=true"* ]]
}

@test "a port that speaks HTTP/1, not gRPC, exits 7" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	python3 -u -m http.server 0 --bind 127.0.0.1 \
	    >"$BATS_TEST_TMPDIR/http.log" 2>&1 3>&- &
	HTTP_PID=$!
	wait_for grep -q 'port [0-9]' "$BATS_TEST_TMPDIR/http.log"
	local port
	port=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$BATS_TEST_TMPDIR/http.log")
	run -7 --separate-stderr sc-exec -s "sc://127.0.0.1:$port" 'SELECT 1'
	[[ "$stderr" == "sc-exec: cannot connect to '127.0.0.1:$port': not a gRPC server"* ]]
}

@test "a missing or wrong token exits 8, reported once" {
	start_other --token s3cret
	run -8 --separate-stderr sc-exec -s "$OTHER" 'SELECT 1'
	[ "$stderr" = "sc-exec: No authentication token provided [UNAUTHENTICATED]" ]
	run -8 --separate-stderr sc-exec -s "$OTHER;token=wrong" 'SELECT 1'
	[ "$stderr" = "sc-exec: Invalid authentication token [UNAUTHENTICATED]" ]
	stop_other
}

@test "nobody listening stays exit 4" {
	run -4 --separate-stderr sc-exec -s sc://127.0.0.1:1 'SELECT 1'
	[[ "$stderr" == "sc-exec: cannot connect to '127.0.0.1:1': connection refused"* ]]
}

# ------------------------------------------------------ the cause, once

@test "an attach as the wrong user reports SESSION_NOT_FOUND only" {
	local sid op
	sid=$(cat /proc/sys/kernel/random/uuid)
	op=$(sc-exec -q -s "$SPARK_REMOTE;session_id=$sid;user_id=alice" \
	    --detach 'SELECT id FROM range(5)')
	run -3 --separate-stderr sc-exec \
	    -s "$SPARK_REMOTE;session_id=$sid;user_id=bob" --attach "$op"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "sc-exec: [INVALID_HANDLE.SESSION_NOT_FOUND] "* ]]
	# The operation is still there for its owner.
	run -0 sc-exec --format csv --no-header \
	    -s "$SPARK_REMOTE;session_id=$sid;user_id=alice" --attach "$op"
	[ "$output" = "$(printf '0\n1\n2\n3\n4')" ]
}

@test "an attach to a session that was released exits 3" {
	local sid op
	sid=$(cat /proc/sys/kernel/random/uuid)
	op=$(sc-exec -q -s "$SPARK_REMOTE;session_id=$sid" --detach \
	    'SELECT id FROM range(5)')
	run -0 sc-release -q -s "$SPARK_REMOTE;session_id=$sid" --session
	run -3 --separate-stderr sc-exec -s "$SPARK_REMOTE;session_id=$sid" \
	    --attach "$op"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "sc-exec: [INVALID_HANDLE.SESSION_CLOSED] "* ]]
}

@test "an attach that times out leaves the operation where it is" {
	local sid op
	sid=$(cat /proc/sys/kernel/random/uuid)
	op=$(sc-exec -q -s "$SPARK_REMOTE;session_id=$sid" --detach "$LONG")
	run -5 --separate-stderr sc-exec -s "$SPARK_REMOTE;session_id=$sid" \
	    -t 2 --attach "$op"
	[[ "${stderr_lines[0]}" == "sc-exec: operation $op timed out"* ]]
	# Still running, detached: no ReleaseExecute went out for it.
	sleep 1
	run -0 sc-inspect --no-header --fields operation_id,state,attached \
	    show "$op"
	[ "$output" = "$(printf '%s\trunning\tfalse' "$op")" ]
	run -0 sc-release -q -s "$SPARK_REMOTE;session_id=$sid" --interrupt "$op"
}

# stalled_run ARGS...: sc-exec ARGS against the other server, stopped
# (SIGSTOP) once the query runs there, not after a guessed second: a
# stop before it ran would time out another step.  Sets status and
# stderr_lines as run does.
stalled_run() {
	local sid err="$BATS_TEST_TMPDIR/stalled.err"
	sid=$(cat /proc/sys/kernel/random/uuid)
	sc-exec -s "$OTHER" --session-id "$sid" "$@" >/dev/null 2>"$err" 3>&- &
	BG_PID=$!
	wait_for running_on_other "$sid"
	kill -STOP "$OTHER_PID"
	status=0
	wait "$BG_PID" || status=$?
	BG_PID=
	kill -CONT "$OTHER_PID"
	mapfile -t stderr_lines <"$err"
}

# running_on_other SID: an operation of session SID runs on the other
# server.
running_on_other() {
	[ -n "$(sc-inspect -s "$OTHER" list --session "$1" --state running \
	    --ids 2>/dev/null)" ]
}

@test "a release a stalled server does not answer in time is no failure" {
	start_other
	# -t 5: time enough to start the query on a loaded machine.
	stalled_run -t 5 "$LONG"
	[ "$status" -eq 5 ]
	# The server drops the operation after its detached timeout: only
	# the timeout is reported.
	[[ "${stderr_lines[0]}" == "sc-exec: operation "*" timed out (the --timeout of 5s passed)" ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	# -v says what became of the release.
	stalled_run -v -t 5 "$LONG"
	[ "$status" -eq 5 ]
	printf '%s\n' "${stderr_lines[@]}" >"$BATS_TEST_TMPDIR/err"
	run -0 grep -c "^sc-exec: ReleaseAll of operation .* not confirmed (the server drops the operation after its detached timeout): " "$BATS_TEST_TMPDIR/err"
	[ "$output" = 1 ]
	run -1 grep "ReleaseAll of operation .* failed: " "$BATS_TEST_TMPDIR/err"
	stop_other
}

# ------------------------------------------------ the crontab recipe

# cron_line: the crontab line of sc-exec(1)'s EXAMPLES, as printed.
cron_line() {
	mandoc -T ascii "$SCTK_TOP/man/sc-exec.1" | col -b |
	    grep -E '^[[:space:]]+15 2 \* \* \* ' | sed 's/^[[:space:]]*15 2 \* \* \* //'
}

# run_cron_job LOG SQL: run the crontab command as cron would (sh -c,
# output captured as cron mails it), against this file's server, with
# the paths moved into the test's directory.
run_cron_job() {
	local cmd
	cmd=$(cron_line)
	[ -n "$cmd" ]
	cmd=${cmd//sc:\/\/spark:15002/$SPARK_REMOTE}
	cmd=${cmd//\/etc\/etl\/refresh.sql/$2}
	cmd=${cmd//\/var\/log\/refresh.log/$1}
	run sh -c "$cmd"
}

@test "the crontab line of sc-exec(1) mails failures and only failures" {
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	local log=$BATS_TEST_TMPDIR/refresh.log sql=$BATS_TEST_TMPDIR/refresh.sql
	printf 'CREATE TABLE IF NOT EXISTS cron_t (x INT);\nINSERT INTO cron_t VALUES (1);\nSELECT count(*) AS n FROM cron_t;\n' >"$sql"
	run_cron_job "$log" "$sql"
	[ "$status" -eq 0 ]
	[ -z "$output" ] # nothing to mail
	[ "$(tail -1 "$log")" = 1 ]
	# The server is down: the job prints the cause, so cron mails it.
	SPARK_REMOTE=sc://127.0.0.1:1
	run_cron_job "$log" "$sql"
	[ "$status" -eq 4 ]
	[[ "$output" == "sc-exec: cannot connect to '127.0.0.1:1': connection refused"* ]]
	# A bad statement is mailed too, with a code that is not "retry".
	SPARK_REMOTE=$(head -1 "$BATS_FILE_TMPDIR/server.ready")
	printf 'SELECT * FROM no_such_table;\n' >"$sql"
	run_cron_job "$log" "$sql"
	[ "$status" -eq 1 ]
	[[ "$output" == *"TABLE_OR_VIEW_NOT_FOUND"* ]]
}

# ------------------------------------------------------- the user id

@test "with USER unset or empty the user id is the login name, not ''" {
	local me sid op
	me=$(id -un)
	run -0 --separate-stderr env -u USER sc-exec -vv 'SELECT 1'
	[[ "$stderr" == *"session "*", user '$me'"* ]]
	run -0 --separate-stderr env USER= sc-exec -vv 'SELECT 1'
	[[ "$stderr" == *", user '$me'"* ]]
	# Detached from cron, attached from a login shell.
	sid=$(cat /proc/sys/kernel/random/uuid)
	op=$(env -u USER sc-exec -q --session-id "$sid" --detach 'SELECT 42 AS x')
	run -0 env USER="$me" sc-exec --session-id "$sid" --format csv --attach "$op"
	[ "$output" = "$(printf 'x\n42')" ]
}

@test "a user with no name at all is its numeric uid" {
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	[ "$(id -u)" -eq 0 ] || skip "needs root to take a uid without a name"
	getent passwd 54321 >/dev/null && skip "uid 54321 has a name here"
	# A copy in a folder anyone may enter: the checkout may sit in a
	# 0700 folder, where uid 54321 would get exit 126.
	local d
	d=$(mktemp -d /tmp/sctk-noname.XXXXXX)
	chmod 755 "$d"
	cp "$SCTK_BUILD/bin/sc-exec" "$d/"
	run -0 --separate-stderr setpriv --reuid=54321 --regid=54321 \
	    --clear-groups env -u USER "$d/sc-exec" -vv 'SELECT 1'
	rm -rf "$d"
	[[ "$stderr" == *", user '54321'"* ]]
}

# ------------------------------------------------------------- sc-serve

@test "sc-serve names a missing or unreadable TLS file (exit 9)" {
	run -9 --separate-stderr timeout 10 sc-serve --listen 127.0.0.1:0 \
	    --tls-cert /nonexistent/cert.pem --tls-key /nonexistent/key.pem
	logged_error "cannot read TLS certificate '/nonexistent/cert.pem': No such file or directory"
	make_cert localhost
	run -9 --separate-stderr timeout 10 sc-serve --listen 127.0.0.1:0 \
	    --tls-cert "$BATS_TEST_TMPDIR/localhost.pem" --tls-key /nonexistent/key.pem
	logged_error "cannot read TLS key '/nonexistent/key.pem': No such file or directory"
}

@test "sc-serve says what is wrong with a TLS file (exit 2)" {
	make_cert localhost
	make_cert other
	local c=$BATS_TEST_TMPDIR/localhost.pem k=$BATS_TEST_TMPDIR/localhost.key
	echo 'not a certificate' >"$BATS_TEST_TMPDIR/junk"
	run -2 --separate-stderr timeout 10 sc-serve --listen 127.0.0.1:0 \
	    --tls-cert "$BATS_TEST_TMPDIR/junk" --tls-key "$k"
	logged_error "TLS certificate '$BATS_TEST_TMPDIR/junk' is not a PEM certificate"
	run -2 --separate-stderr timeout 10 sc-serve --listen 127.0.0.1:0 \
	    --tls-cert "$c" --tls-key "$c"
	logged_error "TLS key '$c' is not a PEM private key (or it is encrypted)"
	run -2 --separate-stderr timeout 10 sc-serve --listen 127.0.0.1:0 \
	    --tls-cert "$c" --tls-key "$BATS_TEST_TMPDIR/other.key"
	logged_error "TLS key '$BATS_TEST_TMPDIR/other.key' does not belong to certificate '$c'"
}

@test "a TLS sc-serve's ready file says use_ssl=true, and works as written" {
	make_cert localhost
	start_other --listen localhost:0 --tls-cert "$BATS_TEST_TMPDIR/localhost.pem" \
	    --tls-key "$BATS_TEST_TMPDIR/localhost.key"
	[[ "$OTHER" =~ ^sc://localhost:[0-9]+/\;use_ssl=true$ ]]
	SPARK_REMOTE=$OTHER run -0 sc-exec \
	    --ca-file "$BATS_TEST_TMPDIR/localhost.pem" --range 0:2
	[ "$output" = "$(printf 'id\n0\n1')" ]
	stop_other
}

@test "SIGHUP does not stop sc-serve" {
	start_other
	kill -HUP "$OTHER_PID"
	sleep 0.3
	kill -0 "$OTHER_PID"
	run -0 sc-exec -s "$OTHER" --format csv --no-header 'SELECT 1'
	[ "$output" = 1 ]
	[ -s "$BATS_TEST_TMPDIR/other.ready" ]
	stop_other
	grep -q ' stopped$' "$BATS_TEST_TMPDIR/other.log"
}
