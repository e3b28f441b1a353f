#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 11-sc-serve-signals: SIGTERM and SIGINT stop sc-serve cleanly (exit 0,
# "stopped" logged) within 5 s, also while a client has a result stream
# open; the client then sees the stream end with UNAVAILABLE.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

teardown() {
	[ -n "${CLIENT_PID:-}" ] && kill -9 "$CLIENT_PID" 2>/dev/null
	CLIENT_PID=
	sc_server_stop
}

# stop_with SIGNAL: send it to the server and expect a clean exit (status
# 0: not the shutdown timeout's 10) within helpers/common's bound, with
# "shutting down" and a final "stopped".
stop_with() {
	local sig=$1 i n=$SCTK_WAIT_STEPS rc=0 log="$BATS_FILE_TMPDIR/server.log"
	kill -"$sig" "$SCTK_SERVER_PID"
	for ((i = 0; i < n; i++)); do
		kill -0 "$SCTK_SERVER_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$SCTK_SERVER_PID" 2>/dev/null; then
		echo "sc-serve still running after SIG$sig" >&2
		cat "$log" >&2
		return 1
	fi
	wait "$SCTK_SERVER_PID" || rc=$?
	SCTK_SERVER_PID=
	[ "$rc" -eq 0 ] || { echo "exit status $rc" >&2; cat "$log" >&2; return 1; }
	server_log_has " I shutting down \\(SIG$sig\\)\$"
	[[ "$(tail -1 "$log")" =~ ^[0-9T:.Z-]+\ [0-9]+\ I\ stopped$ ]]
	check_sanitizer_reports
}

# A client that opens an endless ExecutePlan stream, prints "streaming"
# at the first response and "status N" when the stream fails.
write_client() {
	cat >"$BATS_TEST_TMPDIR/client.js" <<'EOF'
'use strict';
const crypto = require('node:crypto');
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');
const [top, port] = process.argv.slice(2);
const def = loader.loadSync(['spark/connect/base.proto'], {
	includeDirs: [`${top}/proto`, '/usr/include'], keepCase: true,
	longs: String, enums: String, defaults: true, oneofs: true });
const Service = grpc.loadPackageDefinition(def).spark.connect
    .SparkConnectService;
const client = new Service(`127.0.0.1:${port}`,
    grpc.credentials.createInsecure());
const call = client.ExecutePlan({
	session_id: crypto.randomUUID(),
	user_context: { user_id: 'bats' },
	operation_id: crypto.randomUUID(),
	plan: { root: { range: { start: '0', end: '1000000000000',
	    step: '1' } } },
});
let n = 0;
call.on('data', () => {
	if (n++ === 0)
		console.log('streaming');
});
call.on('error', (e) => {
	console.log(`status ${e.code} ${e.details}`);
	process.exit(0);
});
call.on('end', () => {
	console.log('end');
	process.exit(0);
});
setTimeout(() => {
	console.log('timeout');
	process.exit(1);
}, 60000);
EOF
}

@test "SIGTERM stops the server with exit 0" {
	sc_server_start
	stop_with TERM
}

@test "SIGINT stops the server with exit 0" {
	sc_server_start
	stop_with INT
}

@test "the ready file is removed on shutdown" {
	sc_server_start
	[ -s "$BATS_FILE_TMPDIR/server.ready" ]
	stop_with TERM
	[ ! -e "$BATS_FILE_TMPDIR/server.ready" ]
}

client_test() {
	local sig=$1 out="$BATS_TEST_TMPDIR/client.out" i
	need_node
	write_client
	sc_server_start
	node "$BATS_TEST_TMPDIR/client.js" "$SCTK_TOP" "${SPARK_REMOTE##*:}" \
	    >"$out" 2>&1 3>&- &
	CLIENT_PID=$!
	wait_for grep -qx streaming "$out" || { cat "$out" >&2; return 1; }
	stop_with "$sig"
	for ((i = 0; i < SCTK_WAIT_STEPS; i++)); do
		kill -0 "$CLIENT_PID" 2>/dev/null || break
		sleep 0.1
	done
	wait "$CLIENT_PID"
	CLIENT_PID=
	# 14 is UNAVAILABLE: the stream ended with a status, not a hang.
	[[ "$(tail -1 "$out")" == "status 14 "* ]] || { cat "$out" >&2; return 1; }
}

@test "SIGTERM with an open result stream stops cleanly" {
	client_test TERM
}

@test "SIGINT with an open result stream stops cleanly" {
	client_test INT
}
