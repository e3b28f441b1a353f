# SPDX-License-Identifier: MIT
#
# server.bash: one private sc-serve per bats file, on 127.0.0.1 port 0.
#
#   setup_file()    { sc_server_start [sc-serve options...]; }
#   teardown_file() { sc_server_stop; }
#   setup()         { sc_server_env; }      # when a test changes SPARK_REMOTE
#
#   start_other [sc-serve options...]       # a second server for one test
#   stop_other                              # (OTHER, OTHER_PID)
#
# sc_server_start writes the server log to $BATS_FILE_TMPDIR/server.log,
# waits (bounded) for the ready file, and exports SPARK_REMOTE and
# SCTK_SERVER_PID.  sc_server_stop sends SIGTERM, waits for a clean exit
# (status 0 and a final "stopped" log line) and fails otherwise; a
# SIGKILL is always a failure.

sc_server_start() {
	local ready="$BATS_FILE_TMPDIR/server.ready" i n=$SCTK_WAIT_STEPS
	rm -f "$ready"
	sc-serve --listen 127.0.0.1:0 --ready-file "$ready" "$@" \
	    >"$BATS_FILE_TMPDIR/server.log" 2>&1 3>&- &
	SCTK_SERVER_PID=$!
	for ((i = 0; i < n; i++)); do
		[ -s "$ready" ] && break
		if ! kill -0 "$SCTK_SERVER_PID" 2>/dev/null; then
			echo "sc-serve exited early:" >&2
			cat "$BATS_FILE_TMPDIR/server.log" >&2
			return 1
		fi
		sleep 0.1
	done
	if [ ! -s "$ready" ]; then
		echo "sc-serve did not become ready:" >&2
		cat "$BATS_FILE_TMPDIR/server.log" >&2
		kill -9 "$SCTK_SERVER_PID" 2>/dev/null
		return 1
	fi
	SPARK_REMOTE=$(cat "$ready")
	export SPARK_REMOTE SCTK_SERVER_PID
}

sc_server_stop() {
	local i n=$SCTK_WAIT_STEPS rc
	[ -n "${SCTK_SERVER_PID:-}" ] || return 0
	kill -TERM "$SCTK_SERVER_PID" 2>/dev/null || true
	for ((i = 0; i < n; i++)); do
		kill -0 "$SCTK_SERVER_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$SCTK_SERVER_PID" 2>/dev/null; then
		kill -9 "$SCTK_SERVER_PID" 2>/dev/null
		echo "sc-serve did not stop on SIGTERM; killed" >&2
		cat "$BATS_FILE_TMPDIR/server.log" >&2
		return 1
	fi
	wait "$SCTK_SERVER_PID"
	rc=$?
	SCTK_SERVER_PID=
	if [ "$rc" -ne 0 ]; then
		echo "sc-serve exited with status $rc" >&2
		tail -20 "$BATS_FILE_TMPDIR/server.log" >&2
		return 1
	fi
	check_sanitizer_reports
}

# sc_server_env: point SPARK_REMOTE at this file's server again (for a
# setup() when tests set it to something else).
sc_server_env() {
	SPARK_REMOTE=$(head -1 "$BATS_FILE_TMPDIR/server.ready")
	export SPARK_REMOTE
}

# sc_server_alive: this file's server still runs and answers a query.
sc_server_alive() {
	kill -0 "$SCTK_SERVER_PID"
	run -0 --separate-stderr sc-exec -t 60s --format csv --no-header \
	    'SELECT 41 + 1'
	[ "$output" = 42 ]
}

# start_other ARGS...: a second sc-serve for one test, on port 0, its log
# in $BATS_TEST_TMPDIR/other.log; sets OTHER (its address) and OTHER_PID.
# A teardown() should kill -9 "$OTHER_PID" in case the test failed.
start_other() {
	local ready="$BATS_TEST_TMPDIR/other.ready"
	rm -f "$ready"
	sc-serve --listen 127.0.0.1:0 --ready-file "$ready" "$@" \
	    >"$BATS_TEST_TMPDIR/other.log" 2>&1 3>&- &
	OTHER_PID=$!
	wait_for test -s "$ready" || {
		echo "the second sc-serve did not become ready:" >&2
		cat "$BATS_TEST_TMPDIR/other.log" >&2
		return 1
	}
	OTHER=$(head -1 "$ready")
}

# stop_other: SIGTERM the second server and wait for its clean exit.
stop_other() {
	kill -TERM "$OTHER_PID"
	wait "$OTHER_PID"
	OTHER_PID=
}

# server_log_has PATTERN: the server log contains a line matching PATTERN.
server_log_has() {
	grep -qE "$1" "$BATS_FILE_TMPDIR/server.log"
}
