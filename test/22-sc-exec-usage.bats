#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 22-sc-exec-usage: every usage error in one voice ("sc-exec: <message>",
# then "try 'sc-exec --help'", exit 2), -H checked as the
# address's own headers are, and a process out of threads reporting it
# (exit 10) instead of aborting.  No server is needed: each run stops
# before connecting, or finds nobody at 127.0.0.1:1.

bats_require_minimum_version 1.7.0
load helpers/common

NOBODY=sc://127.0.0.1:1

# usage_error MESSAGE ARGS...: sc-exec ARGS exits 2 with exactly MESSAGE,
# then the hint and nothing else, on stderr, and nothing on stdout.
usage_error() {
	local msg=$1
	shift
	run -2 --separate-stderr sc-exec "$@"
	[ -z "$output" ]
	[ "${stderr_lines[0]}" = "sc-exec: $msg" ]
	[ "${stderr_lines[1]}" = "try 'sc-exec --help'" ]
	[ "${#stderr_lines[@]}" -eq 2 ]
}

@test "getopt's errors speak in sc-exec's voice, without the build path" {
	usage_error "unknown option '--bogus'" --bogus 'SELECT 1'
	usage_error "unknown option '--bogus'" --bogus=1 'SELECT 1'
	usage_error "unknown option '-x'" -x 'SELECT 1'
	usage_error "unknown option '-x'" -qx 'SELECT 1'
	usage_error "option '--format' needs a value" 'SELECT 1' --format
	usage_error "option '-f' needs a value" -f
	usage_error "option '-H' needs a value" -H
	usage_error "option '--server' needs a value" --server
	usage_error "option '--tls' takes no value" --tls=yes 'SELECT 1'
	usage_error "option '--detach' takes no value" --detach=1 'SELECT 1'
	usage_error "option '--no' is ambiguous" --no 'SELECT 1'
	[[ "$stderr" != *"$SCTK_BUILD"* ]]
	[[ "$stderr" != *"unrecognized"* ]]
}

@test "bad values of common and connection options are usage errors" {
	usage_error "invalid timeout: 'soon' is not a duration" -t soon 'SELECT 1'
	usage_error "invalid timeout: '0' is not greater than zero" -t 0 'SELECT 1'
	usage_error "invalid session id 'x': not a UUID" --session-id x 'SELECT 1'
	usage_error "invalid user id: longer than 255 bytes" \
	    --user-id "$(printf 'u%.0s' {1..256})" 'SELECT 1'
}

@test "-H refuses what the address refuses: gRPC keys, bad keys, duplicates" {
	usage_error "invalid header 'grpc-timeout=1S': 'grpc-timeout' is reserved for gRPC" \
	    -s "$NOBODY" -H grpc-timeout=1S 'SELECT 1'
	usage_error "invalid header 'Grpc-Encoding=gzip': 'grpc-encoding' is reserved for gRPC" \
	    -s "$NOBODY" -H Grpc-Encoding=gzip 'SELECT 1'
	usage_error "invalid header 'x-a=2': duplicate header 'x-a'" \
	    -s "$NOBODY" -H x-a=1 -H x-a=2 'SELECT 1'
	usage_error "invalid header 'X-A=2': duplicate header 'x-a'" \
	    -s "$NOBODY" -H x-a=1 -H X-A=2 'SELECT 1'
	usage_error "invalid header 'Bad Key=x': 'Bad Key' is not a valid metadata key" \
	    -s "$NOBODY" -H 'Bad Key=x' 'SELECT 1'
	usage_error "invalid header 'token=x': 'token' is a server address parameter, not a header" \
	    -s "$NOBODY" -H token=x 'SELECT 1'
	# The address and -H together: the address's check, then exit 2.
	run -2 --separate-stderr sc-exec -s "$NOBODY;x-a=1" -H x-a=2 'SELECT 1'
	[ "$stderr" = "sc-exec: invalid header 'x-a=2': duplicate header 'x-a' (the server address sets it too)" ]
	run -2 --separate-stderr sc-exec -s "$NOBODY;grpc-timeout=1S" 'SELECT 1'
	[ "$stderr" = "sc-exec: invalid server address: 'grpc-timeout' is reserved for gRPC" ]
}

@test "good headers still go: nobody listening is exit 4, not 2" {
	run -4 --separate-stderr sc-exec --max-retries 0 -s "$NOBODY" \
	    -H x-a=1 -H X-B=2 -H trace-bin=AAEC 'SELECT 1'
	[[ "$stderr" == "sc-exec: "* ]]
}

# out_of_threads SETUP ARGS...: run the shell commands SETUP, then
# sc-exec ARGS with 4 GiB thread stacks in a 2 GiB address space, so its
# first pthread_create() fails (EAGAIN).
out_of_threads() {
	local setup=$1
	shift
	[ -z "${SCTK_SANITIZE:-}" ] ||
	    skip "address-space limits break the sanitizers"
	run -10 --separate-stderr bash -c \
	    "$setup ulimit -s 4194304 && ulimit -v 2097152 && exec \"\$@\"" \
	    sh sc-exec "$@"
}

@test "no thread for the signals: exit 10 and why, not an abort" {
	out_of_threads "" -s "$NOBODY" --range 0:1
	[ "$stderr" = "sc-exec: cannot start the signal thread: Resource temporarily unavailable" ]
}

@test "no thread for the releases: exit 10 and why, not an abort" {
	# With SIGINT and SIGTERM ignored there is no signal thread, so the
	# release worker is the first thread.
	out_of_threads 'trap "" INT TERM;' -s "$NOBODY" --range 0:1
	[ "$stderr" = "sc-exec: cannot start the release worker thread: Resource temporarily unavailable" ]
}

@test "cmd/ reads results through lib/core's plain views, no generated types" {
	run -1 grep -rln 'Spark__Connect__\|SPARK__CONNECT__' "$SCTK_TOP/cmd"
	[ -z "$output" ]
}
