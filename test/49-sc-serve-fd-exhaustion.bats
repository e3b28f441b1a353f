#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 49-sc-serve-fd-exhaustion: a flood of idle connections cannot make
# sc-serve deaf.  gRPC 1.51's own listener stops accepting for good once
# it has run out of file descriptors, so sc-serve accepts plaintext
# connections itself: over --max-connections (by default a quarter
# below the fd limit) or --max-peer-connections it accepts and closes
# them, logging that, and it closes connections that send nothing
# within --connection-grace.  A TLS listener stays gRPC's; a watchdog
# notices when it goes deaf and the server exits 10.  The fd limit is
# made small (ulimit -n 256 in a wrapper) so the floods stay cheap.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

D="$BATS_FILE_TMPDIR"
FLOOD="$SCTK_TOP/test/tools/connflood.py"

setup_file() {
	command -v python3 >/dev/null || skip "no python3"
	mkdir -p "$D/bin"
	# sc-serve with a small descriptor limit, soft and hard.
	cat >"$D/bin/sc-serve" <<-EOF
		#!/bin/sh
		ulimit -n "\${NOFILE:-256}" || exit 1
		exec "$SCTK_BUILD/bin/sc-serve" "\$@"
	EOF
	chmod +x "$D/bin/sc-serve"
}

teardown() {
	flood_stop
	if [ -n "${SCTK_SERVER_PID:-}" ]; then
		kill -9 "$SCTK_SERVER_PID" 2>/dev/null
		SCTK_SERVER_PID=
	fi
	true
}

# Start the wrapped sc-serve (fd limit $NOFILE, 256 by default).
small_server() {
	PATH="$D/bin:$PATH" sc_server_start "$@"
	ADDR=${SPARK_REMOTE#sc://}
	ADDR=${ADDR%%/*}
}

# flood_start [connflood options...] COUNT: hold COUNT connections to
# the server until flood_stop; waits until they are opened.
flood_start() {
	local n=${*: -1} i
	rm -f "$D/flood.state" "$D/flood.ctl"
	mkfifo "$D/flood.ctl"
	python3 "$FLOOD" "${@:1:$#-1}" "$ADDR" "$n" "$D/flood.state" \
	    <"$D/flood.ctl" 3>&- &
	FLOOD_PID=$!
	exec {FLOOD_FD}>"$D/flood.ctl"
	for ((i = 0; i < 300; i++)); do
		[ -s "$D/flood.state" ] && return 0
		sleep 0.1
	done
	echo "the flood did not start" >&2
	return 1
}

# Close the flood's connections and wait for it to report.
flood_stop() {
	[ -n "${FLOOD_PID:-}" ] || return 0
	exec {FLOOD_FD}>&-
	wait "$FLOOD_PID"
	FLOOD_PID=
}

# held: how many of the flood's connections the server kept (opened and
# not closed by the server), once flood_stop has run.
held() {
	local opened closed
	opened=$(sed -n 's/^opened \([0-9]*\) .*/\1/p' "$D/flood.state")
	closed=$(sed -n 's/^closed-by-peer \([0-9]*\)$/\1/p' "$D/flood.state")
	echo $((opened - closed))
}

# fds_at_least N: the server has N descriptors open.
fds_at_least() {
	[ "$(ls "/proc/$SCTK_SERVER_PID/fd" | wc -l)" -ge "$1" ]
}

# wait_long CMD...: poll a condition for up to 30 s (300 s under sanitizers).
wait_long() {
	local i n=300
	[ -n "${SCTK_SANITIZE:-}" ] && n=3000
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

select_answers() {
	run -0 --separate-stderr sc-exec -t 20s "SELECT 42 AS answer"
	[ "$output" = "$(printf 'answer\n42')" ]
}

@test "a flood past the fd limit is refused and logged, and the server answers once it ends" {
	small_server
	# 300 connections that send the HTTP/2 preface and then nothing:
	# more than the 256 descriptors the server may have.
	flood_start --send-preface 300
	cat "$D/flood.state"
	wait_long server_log_has 'W refused [0-9]+ connection\(s\): the server holds 192 connections, its limit \(--max-connections\)$'
	# Meanwhile a new client is refused at once, with a clear message.
	run -4 --separate-stderr sc-exec -t 20s "SELECT 1"
	[[ "$stderr" == *"sc-exec: cannot connect to '$ADDR'"* ]]
	flood_stop
	# Without the fix gRPC's listener stays deaf here for good.
	select_answers
	sc_server_stop
}

@test "with --max-connections past the fd limit, EMFILE is shed through the reserve descriptor and logged" {
	small_server --max-connections 1000
	flood_start --send-preface 300
	wait_long server_log_has 'W refused [0-9]+ connection\(s\): out of file descriptors \(limit 256; raise it with ulimit -n, or lower --max-connections\)$'
	# The queue keeps draining: a client is refused, not left waiting.
	run -4 --separate-stderr sc-exec -t 20s "SELECT 1"
	flood_stop
	select_answers
	sc_server_stop
}

@test "connections from one address beyond --max-peer-connections are refused; other addresses still get in" {
	small_server --max-peer-connections 20
	flood_start --send-preface --source 127.0.0.2 30
	wait_long server_log_has 'W refused [0-9]+ connection\(s\) over the limit per peer address: 127\.0\.0\.2 holds 20 connections \(--max-peer-connections\)$'
	# 127.0.0.1 is another address: it is not refused.
	select_answers
	flood_stop
	[ "$(held)" -eq 20 ]
	# Once they are closed, the address gets its 20 places back
	# (within a second or so: the server has to notice).
	local i
	for ((i = 0; i < 20; i++)); do
		flood_start --send-preface --source 127.0.0.2 20
		flood_stop
		[ "$(held)" -eq 20 ] && break
		sleep 0.5
	done
	[ "$(held)" -eq 20 ]
	sc_server_stop
}

@test "a connection that sends nothing is closed after --connection-grace" {
	small_server --connection-grace 1s
	flood_start 5
	wait_long server_log_has 'I closed [0-9]+ connection\(s\) that sent nothing within 1000 ms \(--connection-grace\)$'
	sleep 0.5
	flood_stop
	[ "$(held)" -eq 0 ]
	# One that sends its preface is kept, and the server still answers.
	flood_start --send-preface 3
	sleep 2
	flood_stop
	[ "$(held)" -eq 3 ]
	select_answers
	sc_server_stop
}

@test "an idle flood ends after the grace time even while its sockets stay open" {
	small_server --connection-grace 2s
	flood_start 300
	# No byte from any of them: all closed after 2 s, so the server
	# answers while the flood still holds its sockets.
	wait_long server_log_has 'I closed [0-9]+ connection\(s\) that sent nothing'
	select_answers
	flood_stop
	sc_server_stop
}

@test "a TLS listener that went deaf is noticed: sc-serve exits 10" {
	command -v openssl >/dev/null || skip "no openssl command"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -keyout "$D/k.pem" \
	    -out "$D/c.pem" -subj /CN=localhost \
	    -addext subjectAltName=DNS:localhost >"$D/openssl.log" 2>&1
	small_server --tls-cert "$D/c.pem" --tls-key "$D/k.pem" \
	    --connection-grace 1s
	# gRPC's own listener meets EMFILE and never accepts again: hold
	# the flood until the server has used up its descriptors.
	flood_start 300
	wait_long fds_at_least 250
	flood_stop
	wait_long server_log_has "E the TLS listener on '127\.0\.0\.1:0' stopped accepting connections" ||
	    { cat "$D/server.log" >&2; false; }
	local i
	for ((i = 0; i < 300; i++)); do
		kill -0 "$SCTK_SERVER_PID" 2>/dev/null || break
		sleep 0.1
	done
	run -10 wait "$SCTK_SERVER_PID"
	SCTK_SERVER_PID=
	server_log_has 'I stopped \(the listener was deaf\)$'
	check_sanitizer_reports
}

@test "a connection without calls is closed after --connection-idle" {
	small_server --connection-idle 2s
	local base
	base=$(ls "/proc/$SCTK_SERVER_PID/fd" | wc -l)
	flood_start --send-preface 3
	wait_long fds_at_least $((base + 3))
	# gRPC sends GOAWAY and closes them: the descriptors go again.
	wait_long eval '! fds_at_least $((base + 1))'
	flood_stop
	[ "$(held)" -eq 0 ]
	select_answers
	sc_server_stop
}

@test "the connection options refuse bad values with exit 2" {
	run -2 --separate-stderr sc-serve --max-connections 0
	[ "${stderr_lines[0]}" = "sc-serve: invalid --max-connections: '0' is too small" ]
	run -2 --separate-stderr sc-serve --max-peer-connections x
	[ "${stderr_lines[0]}" = "sc-serve: invalid --max-peer-connections: 'x' is not a number" ]
	run -2 --separate-stderr sc-serve --connection-grace 0
	[ "${stderr_lines[0]}" = "sc-serve: invalid --connection-grace: '0' is too small" ]
	run -2 --separate-stderr sc-serve --connection-idle soon
	[ "${stderr_lines[0]}" = "sc-serve: invalid --connection-idle: 'soon' is not a duration" ]
}
