#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 57-sc-serve-metrics: the server's figures as Prometheus text, from
# `sc-inspect stats --format prometheus` and from sc-serve
# --metrics-listen's /metrics: promtool accepts both, and the values
# are what the test did (N queries count N, a failed one under its
# status code, rows, artifacts and their bytes); /metrics is the same
# text, 404 elsewhere, 405 for other methods; the documented cron line
# writes its file atomically.  Each counting test has a server of its
# own, so its counts are exact.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

setup_file() {
	sc_server_start --metrics-listen 127.0.0.1:0
}

teardown_file() {
	sc_server_stop
}

setup() {
	sc_server_env
	OTHER_PID=
}

teardown() {
	if [ -n "$OTHER_PID" ]; then
		kill -TERM "$OTHER_PID" 2>/dev/null
		wait "$OTHER_PID" 2>/dev/null
	fi
	true
}

# metrics_port LOG: the port sc-serve logged for /metrics.
metrics_port() {
	sed -n 's|.* I metrics on http://127\.0\.0\.1:\([0-9][0-9]*\)/metrics$|\1|p' "$1"
}

# value FILE SERIES: the value of the sample named exactly SERIES.
value() {
	awk -v s="$2" '$1 == s { print $2; found = 1 } END { exit !found }' "$1"
}

# prom SERVER FILE: sc-inspect's Prometheus text of SERVER into FILE.
prom() {
	sc-inspect -s "$1" stats --format prometheus >"$2"
}

# ops_ended SERVER N: the server counted N operation ends.
ops_ended() {
	prom "$1" "$BATS_TEST_TMPDIR/p" &&
	    [ "$(value "$BATS_TEST_TMPDIR/p" sctk_operation_duration_seconds_count)" = "$2" ]
}

@test "after 3 queries and a failed one the counters say so; promtool accepts the text" {
	start_other --metrics-listen 127.0.0.1:0
	local f="$BATS_TEST_TMPDIR/p" i
	for i in 1 2 3; do
		run -0 --separate-stderr sc-exec -s "$OTHER" "SELECT id FROM range(0, 5)"
	done
	run -1 --separate-stderr sc-exec -s "$OTHER" "SELECT * FROM no_such_table"
	wait_for ops_ended "$OTHER" 4
	run -0 promtool check metrics <"$f"
	[ "$output" = "" ]
	[ "$(value "$f" 'sctk_rpcs_total{method="ExecutePlan",code="OK"}')" = 3 ]
	[ "$(value "$f" 'sctk_rpcs_total{method="ExecutePlan",code="INTERNAL"}')" = 1 ]
	[ "$(value "$f" 'sctk_rpc_duration_seconds_count{method="ExecutePlan"}')" = 4 ]
	[ "$(value "$f" 'sctk_rpc_duration_seconds_bucket{method="ExecutePlan",le="+Inf"}')" = 4 ]
	[ "$(value "$f" sctk_operations_started_total)" = 4 ]
	[ "$(value "$f" sctk_operations_finished_total)" = 3 ]
	[ "$(value "$f" sctk_operations_failed_total)" = 1 ]
	[ "$(value "$f" sctk_rows_sent_total)" = 15 ]
	[ "$(value "$f" sctk_sent_bytes_total)" -gt 0 ]
	[ "$(value "$f" 'sctk_operation_duration_seconds_bucket{le="300"}')" = 4 ]
	[ "$(value "$f" 'sctk_operations{state="running"}')" = 0 ]
	[ "$(value "$f" 'sctk_build_info{version="0.1.0"}')" = 1 ]
	# HELP and TYPE for every metric, all named sctk_.
	[ "$(grep -c '^# TYPE sctk_[a-z_]* \(gauge\|counter\|histogram\)$' "$f")" -eq "$(grep -c '^# HELP sctk_' "$f")" ]
	! grep -v '^#' "$f" | grep -qv '^sctk_'
}

@test "a refused token counts under UNAUTHENTICATED; only the admin sees the totals" {
	start_other --token bats-metrics --admin-token bats-admin
	local f="$BATS_TEST_TMPDIR/p"
	run -8 --separate-stderr sc-exec -s "$OTHER;token=wrong" "SELECT 1"
	run -0 --separate-stderr sc-exec -s "$OTHER;token=bats-metrics" "SELECT 1"
	wait_for eval 'SCTK_ADMIN_TOKEN=bats-admin prom "$OTHER" "$f" && [ "$(value "$f" sctk_operation_duration_seconds_count)" = 1 ]'
	[ "$(value "$f" 'sctk_rpcs_total{method="ExecutePlan",code="UNAUTHENTICATED"}')" = 1 ]
	[ "$(value "$f" 'sctk_rpcs_total{method="ExecutePlan",code="OK"}')" = 1 ]
	# A token holder who is not the admin gets the format, without totals.
	run -0 prom "$OTHER;token=bats-metrics" "$f"
	[ "$(value "$f" sctk_operations_started_total)" = 0 ]
	! grep -q '^sctk_rpcs_total' "$f"
}

@test "/metrics serves the same text over HTTP; other paths 404, other methods 405" {
	start_other --metrics-listen 127.0.0.1:0
	local port
	port=$(metrics_port "$BATS_TEST_TMPDIR/other.log")
	[[ "$port" =~ ^[0-9]+$ ]]
	run -0 --separate-stderr sc-exec -s "$OTHER" "SELECT id FROM range(0, 2)"
	wait_for ops_ended "$OTHER" 1
	run -0 curl -sS -D "$BATS_TEST_TMPDIR/h" -o "$BATS_TEST_TMPDIR/m" "http://127.0.0.1:$port/metrics"
	grep -qx $'HTTP/1.1 200 OK\r' "$BATS_TEST_TMPDIR/h"
	grep -qix $'Content-Type: text/plain; version=0.0.4; charset=utf-8\r' "$BATS_TEST_TMPDIR/h"
	run -0 promtool check metrics <"$BATS_TEST_TMPDIR/m"
	[ "$output" = "" ]
	[ "$(value "$BATS_TEST_TMPDIR/m" 'sctk_rpcs_total{method="ExecutePlan",code="OK"}')" = 1 ]
	[ "$(value "$BATS_TEST_TMPDIR/m" sctk_rows_sent_total)" = 2 ]
	# The same metrics, in the same order, as sc-inspect writes.
	diff <(grep '^# TYPE' "$BATS_TEST_TMPDIR/m") <(grep '^# TYPE' "$BATS_TEST_TMPDIR/p")
	run -0 curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/"
	[ "$output" = 404 ]
	run -0 curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics/x"
	[ "$output" = 404 ]
	run -0 curl -sS -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/metrics"
	[ "$output" = 405 ]
	# A malformed request: 400, a warning in the server's own format,
	# and the next request is answered.
	run -0 python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n")
print(s.recv(12).decode())' "$port"
	[ "$output" = "HTTP/1.1 400" ]
	wait_for grep -qE "^[0-9T:.-]+Z $OTHER_PID W metrics HTTP server: Failed to parse .Content-Length' header" "$BATS_TEST_TMPDIR/other.log"
	run -0 curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics"
	[ "$output" = 200 ]
}

@test "artifacts and their bytes are counted" {
	start_other --metrics-listen 127.0.0.1:0
	local sid f="$BATS_TEST_TMPDIR/p"
	sid=$(cat /proc/sys/kernel/random/uuid)
	head -c 1000 /dev/zero >"$BATS_TEST_TMPDIR/a.bin"
	head -c 234 /dev/zero >"$BATS_TEST_TMPDIR/b.bin"
	run -0 --separate-stderr sc-upload -s "$OTHER" --session-id "$sid" \
	    "$BATS_TEST_TMPDIR/a.bin" "$BATS_TEST_TMPDIR/b.bin"
	run -0 prom "$OTHER" "$f"
	[ "$(value "$f" sctk_artifacts)" = 2 ]
	[ "$(value "$f" sctk_artifact_store_bytes)" = 1234 ]
	[ "$(value "$f" sctk_sessions)" = 1 ]
	[ "$(value "$f" 'sctk_rpcs_total{method="AddArtifacts",code="OK"}')" = 1 ]
}

@test "the cron line writes the textfile atomically, and nothing on failure" {
	local dir="$BATS_TEST_TMPDIR/textfile"
	mkdir "$dir"
	# As sc-inspect(1) documents it, run as cron runs it; the collector
	# reads only *.prom, never the .tmp being written.
	run -0 env -i PATH="$PATH" SPARK_REMOTE="$SPARK_REMOTE" sh -c \
	    'sc-inspect stats --format prometheus >"$1/sctk.prom.tmp" && mv "$1/sctk.prom.tmp" "$1/sctk.prom"' sh "$dir"
	[ "$(ls "$dir")" = sctk.prom ]
	run -0 promtool check metrics <"$dir/sctk.prom"
	# A server that is not there: exit 4, the old file stays whole.
	cp "$dir/sctk.prom" "$BATS_TEST_TMPDIR/before"
	run -4 env -i PATH="$PATH" SPARK_REMOTE=sc://127.0.0.1:1 sh -c \
	    'sc-inspect stats --format prometheus >"$1/sctk.prom.tmp" && mv "$1/sctk.prom.tmp" "$1/sctk.prom"' sh "$dir"
	cmp "$dir/sctk.prom" "$BATS_TEST_TMPDIR/before"
	[ ! -s "$dir/sctk.prom.tmp" ]
}

@test "wrong uses: exit 2 with one message; a metrics port in use is exit 9" {
	run -2 --separate-stderr sc-inspect list --format prometheus
	[ "${stderr_lines[0]}" = "sc-inspect: --format prometheus needs stats" ]
	run -2 --separate-stderr sc-inspect stats --format prometheus --no-header
	[ "${stderr_lines[0]}" = "sc-inspect: cannot use --format prometheus with --fields or --no-header" ]
	run -2 --separate-stderr sc-inspect stats --format prom
	[ "${stderr_lines[0]}" = "sc-inspect: invalid format 'prom': expected table, tsv, csv, jsonl or prometheus" ]
	run -2 --separate-stderr sc-serve --metrics-listen 127.0.0.1
	[ "${stderr_lines[0]}" = "sc-serve: invalid metrics address '127.0.0.1': no port (host:port; port 0 takes a free one)" ]
	local port
	port=$(metrics_port "$BATS_FILE_TMPDIR/server.log")
	run -9 --separate-stderr sc-serve --listen 127.0.0.1:0 --metrics-listen "127.0.0.1:$port"
	[[ "${stderr_lines[-1]}" =~ " E cannot listen on '127.0.0.1:$port' for metrics: Address already in use"$ ]]
}
