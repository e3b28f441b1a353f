#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 44-tls: TLS end to end with certificates this file makes with the
# openssl command: a CA, a server certificate it signed (localhost and
# nothing else), and another CA.  Every client (sc-exec, sc-release,
# sc-upload, sc-inspect) works with the right CA, and fails with exit 8
# and one clear line with the wrong one or the wrong host name.  A token
# sent to a host that is not loopback turns TLS on in every client: the
# first bytes a listener there receives are a TLS handshake.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

D="$BATS_FILE_TMPDIR"

setup_file() {
	command -v openssl >/dev/null || skip "no openssl command"
	(
		cd "$BATS_FILE_TMPDIR" || exit 1
		for ca in ca other; do
			openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
			    -keyout $ca.key -out $ca.pem -subj "/CN=sctk $ca" ||
			    exit 1
		done
		openssl req -newkey rsa:2048 -nodes -keyout srv.key \
		    -out srv.csr -subj /CN=localhost || exit 1
		printf 'subjectAltName=DNS:localhost\n' >ext
		openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key \
		    -CAcreateserial -out srv.pem -days 2 -extfile ext
	) >"$BATS_FILE_TMPDIR/openssl.log" 2>&1 || {
		cat "$BATS_FILE_TMPDIR/openssl.log" >&2
		return 1
	}
	sc_server_start --tls-cert "$D/srv.pem" --tls-key "$D/srv.key" \
	    --artifact-dir "$D/art"
	PORT=${SPARK_REMOTE##*:}
	PORT=${PORT%%/*}
	export PORT
	unset SPARK_REMOTE
}

teardown_file() {
	sc_server_stop
}

teardown() {
	[ -n "${LISTENER:-}" ] && kill "$LISTENER" 2>/dev/null
	LISTENER=
	true
}

uuid() {
	cat /proc/sys/kernel/random/uuid
}

# Each tool with its TLS options and one call that needs the server.
tool() {
	local ca=$1 host=${2:-localhost} prog=$3
	shift 3
	"$prog" -t 10 -s "sc://$host:$PORT" --tls --ca-file "$D/$ca" "$@"
}

@test "the right CA: every tool works over TLS" {
	local sid
	sid=$(uuid)
	run -0 tool ca.pem localhost sc-exec --no-header \
	    'SELECT count(*), sum(id) FROM range(1000)'
	[ "$output" = "1000,499500" ]
	echo hello >"$BATS_TEST_TMPDIR/a.txt"
	run -0 tool ca.pem localhost sc-upload --session-id "$sid" \
	    "$BATS_TEST_TMPDIR/a.txt"
	[ "$(cut -f1,2,5 <<<"$output")" = "files/a.txt	6	uploaded" ]
	run -0 tool ca.pem localhost sc-inspect --no-header sessions --ids
	[[ "$output" == *"$sid"* ]]
	run -0 tool ca.pem localhost sc-release --session-id "$sid" --session
	[ "$output" = "$sid	session released" ]
}

# wrong CA ARGS...: the tool fails with exit 8 and the one line.
wrong() {
	local host=$1
	shift
	run -8 --separate-stderr tool other.pem "$host" "$@"
	[ "$output" = "" ] || [[ "$output" == *"error: cannot connect"* ]]
	[[ "${stderr_lines[0]}" == *": cannot connect to '$host:$PORT': TLS certificate verify failed; check --ca-file"* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "the wrong CA: exit 8, 'TLS certificate verify failed', for every tool" {
	local sid
	sid=$(uuid)
	echo hello >"$BATS_TEST_TMPDIR/a.txt"
	wrong localhost sc-exec 'SELECT 1'
	# N27: refused for good, so not retried: no "gave up after" tail.
	[ "$stderr" = "sc-exec: cannot connect to 'localhost:$PORT': TLS certificate verify failed; check --ca-file" ]
	wrong localhost sc-upload --session-id "$sid" "$BATS_TEST_TMPDIR/a.txt"
	[ "$stderr" = "sc-upload: cannot connect to 'localhost:$PORT': TLS certificate verify failed; check --ca-file" ]
	wrong localhost sc-inspect stats
	[ "$stderr" = "sc-inspect: cannot connect to 'localhost:$PORT': TLS certificate verify failed; check --ca-file" ]
	wrong localhost sc-release --session-id "$sid" "$sid"
	[ "$stderr" = "sc-release: 1 of 1 failed: cannot connect to 'localhost:$PORT': TLS certificate verify failed; check --ca-file" ]
}

@test "a certificate for another host name: exit 8, said so" {
	run -8 --separate-stderr tool ca.pem 127.0.0.1 sc-exec 'SELECT 1'
	[[ "$stderr" == "sc-exec: cannot connect to '127.0.0.1:$PORT': TLS certificate is for another host name"* ]]
	run -8 --separate-stderr tool ca.pem 127.0.0.1 sc-inspect stats
	[ "$stderr" = "sc-inspect: cannot connect to '127.0.0.1:$PORT': TLS certificate is for another host name" ]
}

@test "plain text to the TLS server: exit 7, told to use TLS" {
	run -7 --separate-stderr sc-exec -t 10 -s "sc://localhost:$PORT" 'SELECT 1'
	[[ "$stderr" == "sc-exec: cannot connect to 'localhost:$PORT': the server closed the connection at once; if it expects TLS, use --tls or use_ssl=true"* ]]
}

# first_bytes PROG ARGS...: run PROG against a listener on this host's
# first address that is not loopback, with a token; print the first two
# bytes the listener received, in hex.
first_bytes() {
	local ip lport=$((20000 + RANDOM % 20000))
	ip=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -v '^127\.' |
	    grep -E '^[0-9.]+$' | head -1)
	[ -n "$ip" ] || skip "no address other than loopback"
	python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(4)
s.settimeout(10)
print("ready", flush=True)
d = b""
while not d:  # the first connection that says anything
    c, _ = s.accept()
    c.settimeout(5)
    d = c.recv(2)
open(sys.argv[3], "w").write(d.hex())
' "$ip" "$lport" "$BATS_TEST_TMPDIR/first" >"$BATS_TEST_TMPDIR/listener" &
	LISTENER=$!
	wait_for grep -q ready "$BATS_TEST_TMPDIR/listener"
	"$@" -t 3 -s "sc://$ip:$lport" --token secret-token \
	    >/dev/null 2>&1 || true
	wait "$LISTENER" || true
	LISTENER=
	cat "$BATS_TEST_TMPDIR/first"
}

@test "a token off loopback turns TLS on in every tool (a TLS record first)" {
	local sid
	sid=$(uuid)
	echo hello >"$BATS_TEST_TMPDIR/a.txt"
	[ "$(first_bytes sc-exec 'SELECT 1')" = 1603 ]
	[ "$(first_bytes sc-upload --session-id "$sid" "$BATS_TEST_TMPDIR/a.txt")" = 1603 ]
	[ "$(first_bytes sc-inspect stats)" = 1603 ]
	[ "$(first_bytes sc-release --session-id "$sid" "$sid")" = 1603 ]
}
