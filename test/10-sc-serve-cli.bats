#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 10-sc-serve-cli: sc-serve's command line: help and version, usage
# errors with exact messages (exit 2), start-up errors in the log's
# format (a busy port, an unwritable ready file: exit 9), the ready
# file, the log line format, and --session-timeout at work.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

setup_file() {
	sc_server_start
}

teardown_file() {
	sc_server_stop
}

# stderr_logged LEVEL MESSAGE: the captured stderr has a log line
# "UTC-time pid LEVEL MESSAGE" of this process (MESSAGE: an ERE).
stderr_logged() {
	printf '%s\n' "$stderr" | grep -qxE -- \
	    "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z [0-9]+ $1 $2"
}

# The address and port of the file's server, from its ready file
# (helpers/common unsets SPARK_REMOTE in every test).
server_url() {
	head -1 "$BATS_FILE_TMPDIR/server.ready"
}

server_port() {
	local url
	url=$(server_url)
	echo "${url##*:}"
}

@test "-h prints the usage on stdout and exits 0" {
	run --separate-stderr -0 sc-serve -h
	[ "${lines[0]}" = "usage: sc-serve [-hV] [--artifact-dir dir] [--conf key=value]" ]
	[[ "$output" == *"  --ready-file file "* ]]
	[[ "$output" == *"  -V, --version "* ]]
	[ -z "$stderr" ]
	run --separate-stderr -0 sc-serve --help
	[ "${lines[0]}" = "usage: sc-serve [-hV] [--artifact-dir dir] [--conf key=value]" ]
}

@test "-V prints the version" {
	run --separate-stderr -0 sc-serve -V
	[ "$output" = "sc-serve 0.1.0" ]
	[ -z "$stderr" ]
	run --separate-stderr -0 sc-serve --version
	[ "$output" = "sc-serve 0.1.0" ]
}

@test "an unknown option exits 2 with the reason and a hint on stderr" {
	run --separate-stderr -2 timeout 10 sc-serve --no-such-option
	[ -z "$output" ]
	[ "${stderr_lines[0]}" = "sc-serve: unknown option '--no-such-option'" ]
	[ "${stderr_lines[1]}" = "try 'sc-serve --help'" ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	run --separate-stderr -2 timeout 10 sc-serve -x
	[ "${stderr_lines[0]}" = "sc-serve: unknown option '-x'" ]
}

@test "a missing option value and an operand are usage errors" {
	run --separate-stderr -2 timeout 10 sc-serve --listen
	[ "${stderr_lines[0]}" = "sc-serve: option '--listen' needs a value" ]
	run --separate-stderr -2 timeout 10 sc-serve extra
	[ "${stderr_lines[0]}" = "sc-serve: unexpected operand 'extra'" ]
}

@test "an unknown --conf key exits 2 with its name" {
	run --separate-stderr -2 timeout 10 sc-serve --conf spark.no.such=1
	[ -z "$output" ]
	[ "${stderr_lines[0]}" = "sc-serve: unknown setting 'spark.no.such'" ]
	[ "${stderr_lines[-1]}" = "try 'sc-serve --help'" ]
}

@test "a bad --conf value exits 2 with the reason" {
	run --separate-stderr -2 timeout 10 sc-serve \
	    --conf spark.connect.execute.manager.detachedTimeout=abc
	[ "${stderr_lines[0]}" = "sc-serve: invalid value for 'spark.connect.execute.manager.detachedTimeout': 'abc' is not a duration" ]
	run --separate-stderr -2 timeout 10 sc-serve \
	    --conf spark.connect.execute.reattachable.observerRetryBufferSize=10x
	[ "${stderr_lines[0]}" = "sc-serve: invalid value for 'spark.connect.execute.reattachable.observerRetryBufferSize': '10x' is not a size" ]
	run --separate-stderr -2 timeout 10 sc-serve \
	    --conf spark.connect.execute.reattachable.enabled=maybe
	[ "${stderr_lines[0]}" = "sc-serve: invalid value for 'spark.connect.execute.reattachable.enabled': 'maybe' is not a boolean" ]
	run --separate-stderr -2 timeout 10 sc-serve --conf novalue
	[ "${stderr_lines[0]}" = "sc-serve: --conf needs key=value, not 'novalue'" ]
}

@test "bad values of the setting options exit 2" {
	run --separate-stderr -2 timeout 10 sc-serve --session-timeout soon
	[ "${stderr_lines[0]}" = "sc-serve: invalid --session-timeout: 'soon' is not a duration" ]
	run --separate-stderr -2 timeout 10 sc-serve --detached-timeout 0
	[ "${stderr_lines[0]}" = "sc-serve: invalid --detached-timeout: '0' is too small" ]
	run --separate-stderr -2 timeout 10 sc-serve --retry-buffer lots
	[ "${stderr_lines[0]}" = "sc-serve: invalid value for 'retry-buffer': 'lots' is not a size" ]
	run --separate-stderr -2 timeout 10 sc-serve --log-level loud
	[ "${stderr_lines[0]}" = "sc-serve: invalid log level 'loud'" ]
	run --separate-stderr -2 timeout 10 sc-serve --listen nowhere
	[ "${stderr_lines[0]}" = "sc-serve: invalid listen address 'nowhere': no port (host:port; port 0 takes a free one)" ]
	run --separate-stderr -2 timeout 10 sc-serve --listen ::1:0
	[ "${stderr_lines[0]}" = "sc-serve: invalid listen address '::1:0': write an IPv6 address as '[addr]:port'" ]
	run --separate-stderr -2 timeout 10 sc-serve --listen 127.0.0.1:99999
	[ "${stderr_lines[0]}" = "sc-serve: invalid listen address '127.0.0.1:99999': '99999' is too large" ]
	run --separate-stderr -2 timeout 10 sc-serve --tls-cert /dev/null
	[ "${stderr_lines[0]}" = "sc-serve: --tls-cert and --tls-key must be given together" ]
}

@test "a port in use exits 9" {
	local port
	port=$(server_port)
	run --separate-stderr -9 timeout 10 sc-serve --listen "127.0.0.1:$port" \
	    --ready-file "$BATS_TEST_TMPDIR/ready"
	[ -z "$output" ]
	stderr_logged E "cannot listen on '127\.0\.0\.1:$port': address already in use"
	[ ! -e "$BATS_TEST_TMPDIR/ready" ]
}

@test "an unwritable ready file exits 9, named, before listening" {
	run --separate-stderr -9 timeout 10 sc-serve --listen 127.0.0.1:0 \
	    --ready-file "$BATS_TEST_TMPDIR/no/such/dir/ready"
	stderr_logged E "cannot write the ready file '$BATS_TEST_TMPDIR/no/such/dir/ready': No such file or directory"
	[[ "$stderr" != *"listening on"* ]]
}

@test "a database that is a directory exits 9 and says so" {
	run --separate-stderr -9 timeout 10 sc-serve --listen 127.0.0.1:0 \
	    --database "$BATS_TEST_TMPDIR"
	stderr_logged E "cannot open database '$BATS_TEST_TMPDIR': Is a directory"
	[[ "$stderr" != *"listening on"* ]]
}

@test "the ready file holds sc://127.0.0.1:port and a newline" {
	local ready="$BATS_FILE_TMPDIR/server.ready" port
	[[ "$(server_url)" =~ ^sc://127\.0\.0\.1:[0-9]+$ ]]
	port=$(server_port)
	[ "$port" -gt 0 ] && [ "$port" -lt 65536 ]
	[ "$(od -An -c "$ready" | tr -d ' \n')" = "sc://127.0.0.1:$port\\n" ]
	# No temporary file is left next to it.
	run -0 find "$BATS_FILE_TMPDIR" -name 'server.ready.*'
	[ -z "$output" ]
}

@test "log lines are 'UTC-time pid level message'" {
	local port
	port=$(server_port)
	server_log_has "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z $SCTK_SERVER_PID I sc-serve 0\.1\.0 listening on 127\.0\.0\.1:$port\$"
	run -1 grep -vE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{3}Z [0-9]+ [EWID] ' \
	    "$BATS_FILE_TMPDIR/server.log"
}

@test "--log-level warn hides info lines" {
	local ready="$BATS_TEST_TMPDIR/ready" log="$BATS_TEST_TMPDIR/log" pid
	sc-serve --listen 127.0.0.1:0 --ready-file "$ready" --log-level warn \
	    2>"$log" 3>&- &
	pid=$!
	wait_for test -s "$ready"
	kill -TERM "$pid"
	wait "$pid"
	[ ! -s "$log" ]
}

@test "the token comes from SPARK_CONNECT_AUTHENTICATE_TOKEN" {
	local ready="$BATS_TEST_TMPDIR/ready" log="$BATS_TEST_TMPDIR/log" pid
	SPARK_CONNECT_AUTHENTICATE_TOKEN=t0ken sc-serve --listen 127.0.0.1:0 \
	    --ready-file "$ready" 2>"$log" 3>&- &
	pid=$!
	wait_for test -s "$ready"
	kill -TERM "$pid"
	wait "$pid"
	grep -q 'listening on 127\.0\.0\.1:[0-9]* (token required)$' "$log"
	run -1 grep -q t0ken "$log"
	[ ! -e "$ready" ]
}

@test "--session-timeout: the session manager closes idle sessions by itself" {
	local ready="$BATS_TEST_TMPDIR/ready" log="$BATS_TEST_TMPDIR/log" pid
	local sid=6f1d2c3b-0000-4000-8000-0000000000aa
	sc-serve --listen 127.0.0.1:0 --ready-file "$ready" \
	    --session-timeout 1s \
	    --conf spark.connect.session.manager.maintenanceInterval=100ms \
	    2>"$log" 3>&- &
	pid=$!
	wait_for test -s "$ready"
	run --separate-stderr -0 sc-exec -s "$(cat "$ready")" \
	    --session-id "$sid" "SELECT 1 AS one"
	[ "$output" = "$(printf 'one\n1')" ]
	wait_for grep -q ' I closed 1 idle session$' "$log"
	run --separate-stderr -1 sc-exec -s "$(cat "$ready")" \
	    --session-id "$sid" "SELECT 1 AS one"
	[ "${stderr_lines[-1]}" = "sc-exec: [INVALID_HANDLE.SESSION_CLOSED] The handle \`$sid\` is invalid. Session was closed. SQLSTATE: HY000" ]
	kill -TERM "$pid"
	wait "$pid"
}

@test "a thread that cannot be started exits 10 with a log line, not an abort" {
	local oc
	oc=$(cat /proc/sys/vm/overcommit_memory 2>/dev/null) ||
	    skip "no /proc/sys/vm/overcommit_memory"
	[ "$oc" != 1 ] || skip "overcommit always on: thread stacks never fail"
	[ -z "${SCTK_SANITIZE:-}" ] || skip "the sanitizers map memory of their own"
	# A default thread stack of 95 GiB cannot be mapped, so the first
	# pthread_create() fails (EAGAIN), as when threads run out.
	run --separate-stderr -10 bash -c \
	    'ulimit -s 100000000 && exec timeout 10 sc-serve --listen 127.0.0.1:0'
	[ -z "$output" ]
	stderr_logged E "cannot start the 4 runner threads \(started 0\): Resource temporarily unavailable"
}
