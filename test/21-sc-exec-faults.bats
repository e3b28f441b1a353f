#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 21-sc-exec-faults: sc-exec through test/tools/faultproxy, which resets
# the TCP connection every few megabytes (seeded, so a failure can be
# replayed): ten million rows must come out byte-identical to a run
# without the proxy, after at least 30 cuts.  A reset also discards what
# sat unread in the client's socket buffer, and the server sends again
# what was not yet acknowledged, so more bytes cross the proxy than the
# result holds (about 165 MB for 10 M rows).

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

Q='SELECT id, id % 7 AS m FROM range(10000000)'

setup_file() {
	sc_server_start
}

teardown_file() {
	sc_server_stop
}

# helpers/common unsets SPARK_REMOTE for every test: point it back at
# this file's server.
setup() {
	sc_server_env
}

teardown() {
	if [ -n "${PROXY_PID:-}" ]; then
		kill -TERM "$PROXY_PID" 2>/dev/null
		wait "$PROXY_PID" 2>/dev/null
	fi
	PROXY_PID=
	true
}

# start_proxy ARGS...: start faultproxy towards the server; sets PROXY
# (sc://127.0.0.1:port) and PROXY_PID.
start_proxy() {
	local port="$BATS_TEST_TMPDIR/proxy.port"
	faultproxy "$@" -o "$BATS_TEST_TMPDIR/proxy.stats" \
	    "${SPARK_REMOTE##*:}" >"$port" 2>"$BATS_TEST_TMPDIR/proxy.log" 3>&- &
	PROXY_PID=$!
	wait_for test -s "$port"
	PROXY="sc://127.0.0.1:$(cat "$port")"
}

cuts() {
	sed -n 's/^cuts //p' "$BATS_TEST_TMPDIR/proxy.stats"
}

@test "faultproxy refuses bad usage" {
	run -2 faultproxy
	[ "$output" = "usage: faultproxy [-c bytes] [-D stall-ms] [-m max-cuts] [-o statsfile] [-S max-stalls] [-s seed] [-T seconds] port" ]
	run -2 faultproxy -c lots 1
	[ "$output" = "faultproxy: invalid byte count 'lots'" ]
}

@test "faultproxy passes traffic through untouched without -c" {
	start_proxy -T 60
	run -0 sc-exec -s "$PROXY" --no-header --range 0:1000
	[ "$output" = "$(seq 0 999)" ]
	[ "$(cuts)" = 0 ]
}

@test "10M rows through a proxy cutting every ~4 MB: identical output" {
	local direct="$BATS_TEST_TMPDIR/direct.csv" cut="$BATS_TEST_TMPDIR/cut.csv"
	local err="$BATS_TEST_TMPDIR/err" kb
	/usr/bin/time -o "$BATS_TEST_TMPDIR/rss" -f %M \
	    sc-exec --format csv "$Q" >"$direct"
	# Streaming: memory stays flat however large the result (~100 MB).
	kb=$(tail -1 "$BATS_TEST_TMPDIR/rss")
	[ -n "${SCTK_SANITIZE:-}" ] || [ "$kb" -lt 65536 ]
	start_proxy -c 4000000 -s 42 -T 600
	sc-exec -v -s "$PROXY" --format csv "$Q" >"$cut" 2>"$err"
	[ "$(wc -l <"$cut")" -eq 10000001 ]
	[ "$(sha256sum <"$cut")" = "$(sha256sum <"$direct")" ]
	# About 150 MB cross the proxy, a cut every ~4 MB, plus what is sent
	# again after each cut (up to highWaterBytes).
	[ "$(cuts)" -ge 30 ]
	# The cuts were seen as retryable failures and reattached.
	[ "$(grep -c 'reattaching in' "$err")" -ge 30 ]
}

@test "the same with arrow output and random cuts, no watchdog" {
	local direct="$BATS_TEST_TMPDIR/direct.arrow" cut="$BATS_TEST_TMPDIR/cut.arrow"
	sc-exec --format arrow --range 0:2000000 >"$direct"
	start_proxy -c 200000 -s 7 -T 600
	sc-exec --watchdog 0 -s "$PROXY" --format arrow --range 0:2000000 \
	    >"$cut"
	cmp "$direct" "$cut"
	[ "$(cuts)" -ge 50 ]
}

@test "a proxy that never stops cutting ends in exit 4, not a hang" {
	start_proxy -c 100 -T 60
	run -4 --separate-stderr sc-exec -s "$PROXY" --max-retries 3 \
	    --no-header --range 0:1000000
	[[ "${stderr_lines[-1]}" == "sc-exec: "*"(gave up after 3 retries in "[0-9]*"s)" ]]
}
