#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 40-sc-release: sc-release against a real sc-serve (with a token):
# releasing detached operations (then gone for sc-exec --attach),
# already-gone ids, invalid ids, ids from standard input, --until,
# --interrupt by tag, all and id, --session, --dry-run (nothing reaches
# the server), user isolation, and every exit code it gives.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

TOKEN=bats-release-token
LOOP='SELECT count(*) FROM range(1000000000000)'

setup_file() {
	sc_server_start --token "$TOKEN"
}

teardown_file() {
	sc_server_stop
}

# helpers/common unsets SPARK_REMOTE for every test: point it back at
# this file's server, with the token.  Every test has its own session.
setup() {
	SERVER=$(head -1 "$BATS_FILE_TMPDIR/server.ready")
	SPARK_REMOTE="$SERVER;token=$TOKEN"
	export SPARK_REMOTE
	SID=$(new_id)
	BG_PIDS=()
}

teardown() {
	local p
	kill -CONT "$SCTK_SERVER_PID" 2>/dev/null
	for p in "${BG_PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	if [ -n "${PROXY_PID:-}" ]; then
		kill -9 "$PROXY_PID" 2>/dev/null
		PROXY_PID=
	fi
	true
}

new_id() {
	local id
	read -r id </proc/sys/kernel/random/uuid # no process per id
	echo "$id"
}

# detach ARGS...: start a reattachable operation in $SID, detached (as
# user bats unless ARGS say otherwise); prints its id.
detach() {
	sc-exec --user-id bats --session-id "$SID" --detach "$@"
}

# endless USER TAG OPID [ARGS...]: run a query that never ends in $SID,
# in the background (its pid in BG_PIDS, last), and wait until it runs.
endless() {
	local user=$1 tag=$2 op=$3
	shift 3
	sc-exec --user-id "$user" --session-id "$SID" --operation-id "$op" \
	    --tag "$tag" "$@" "$LOOP" >"$BATS_TEST_TMPDIR/$op.out" \
	    2>"$BATS_TEST_TMPDIR/$op.err" 3>&- &
	BG_PIDS+=($!)
	wait_for server_log_has "operation $op started"
}

# ended PID STATUS: the background process PID ends (bounded) with
# exit status STATUS.
ended() {
	local i n=100 rc=0
	[ -n "${SCTK_SANITIZE:-}" ] && n=600
	for ((i = 0; i < n; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	wait "$1" || rc=$?
	[ "$rc" -eq "$2" ] || { echo "pid $1 exited $rc, not $2" >&2; return 1; }
}

# The server's words for a session that does not exist (for this user).
no_session() {
	printf 'error: INVALID_HANDLE.SESSION_NOT_FOUND: The handle `%s` is invalid. Session not found. SQLSTATE: HY000' "$1"
}

@test "usage errors: one message each, exit 2, nothing on stdout" {
	local op
	op=$(new_id)
	check() {
		local msg=$1
		shift
		run -2 --separate-stderr sc-release "$@"
		[ -z "$output" ]
		[ "${stderr_lines[0]}" = "sc-release: $msg" ]
		[ "${stderr_lines[-1]}" = "try 'sc-release --help'" ]
	}
	check "missing operation-id" --session-id "$SID"
	check "--all needs --interrupt" --session-id "$SID" --all
	check "--tag needs --interrupt" --session-id "$SID" --tag etl "$op"
	check "cannot use --all and --tag" --interrupt --all --tag etl
	check "--interrupt needs --all, --tag or operation ids" --interrupt
	check "--until needs exactly one operation id" --until "$op"
	check "--until needs exactly one operation id" --until "$op" "$op" "$op"
	check "--until needs exactly one operation id" --until "$op" -
	check "cannot use --until and --interrupt" --until "$op" --interrupt "$op"
	check "cannot use --until and --session" --until "$op" --session "$op"
	# N14: response ids are UUIDs, checked here as operation ids are.
	check "invalid response id '': not a UUID" --until '' "$op"
	check "invalid response id 'foo': not a UUID" --until foo "$op"
	check "'-' may be given only once" - -
	check "invalid format 'xml': expected text or jsonl" --format xml "$op"
	check "invalid tag 'a,b': must be non-empty without ','" --interrupt --tag a,b
	check "invalid session id 'nope': not a UUID" --session-id nope "$op"
	check "unknown option '--bogus'" --bogus
}

@test "the session id is required, and may come from the URI" {
	local op msg
	msg="no session id: Spark keeps operations per session; give the session's id with --session-id or session_id= in the URI, or session/operation pairs"
	op=$(detach --range 0:10)
	for args in "$op" "--session" "--interrupt --all"; do
		# shellcheck disable=SC2086
		run -2 --separate-stderr sc-release $args
		[ -z "$output" ]
		[ "${stderr_lines[0]}" = "sc-release: $msg" ]
	done
	SPARK_REMOTE="$SPARK_REMOTE;session_id=$SID;user_id=bats" \
	    run -0 --separate-stderr sc-release "$op"
	[ "$output" = "$op	released" ]
	[ -z "$stderr" ]
}

@test "a detached operation is released, and is gone for sc-exec --attach" {
	local op kept
	op=$(detach --range 0:1000)
	kept=$(detach --range 0:1000)
	run -0 --separate-stderr sc-release --user-id bats --session-id "$SID" "$op"
	[ "$output" = "$op	released" ]
	[ -z "$stderr" ]
	server_log_has "operation $op released \\(FINISHED\\)"
	run -3 --separate-stderr sc-exec --user-id bats --session-id "$SID" --attach "$op"
	[ -z "$output" ]
	[[ "$stderr" == "sc-exec: [INVALID_HANDLE.OPERATION_NOT_FOUND] The handle \`$op\` is invalid."* ]]
	# The one not released is still there, whole.
	run -0 --separate-stderr sc-exec --user-id bats --session-id "$SID" \
	    --no-header --attach "$kept"
	[ "${#lines[@]}" -eq 1000 ]
	[ "$(printf '%s\n' "${lines[@]}" | awk '{ s += $1 } END { print s }')" = 499500 ]
}

@test "a running detached operation is released and stops" {
	local op
	op=$(detach --range 0:1000000000)
	run -0 --separate-stderr sc-release --user-id bats --session-id "$SID" "$op"
	[ "$output" = "$op	released" ]
	server_log_has "operation $op released \\(RUNNING\\)"
	wait_for server_log_has "operation $op canceled"
	run -3 --separate-stderr sc-exec --user-id bats --session-id "$SID" --attach "$op"
}

@test "an operation already gone is success, reported as such" {
	local op other
	op=$(detach --range 0:10)
	other=$(new_id)
	run -0 --separate-stderr sc-release --user-id bats --session-id "$SID" "$op" "$op" "$other"
	[ "${lines[0]}" = "$op	released" ]
	[ "${lines[1]}" = "$op	already gone" ]
	[ "${lines[2]}" = "$other	already gone" ]
	[ "${#lines[@]}" -eq 3 ]
	[ -z "$stderr" ]
	run -0 --separate-stderr sc-release --user-id bats --format jsonl --session-id "$SID" "$op"
	[ "$output" = "{\"id\":\"$op\",\"action\":\"release\",\"result\":\"already_gone\",\"error_class\":null,\"message\":null}" ]
}

@test "an invalid id is reported and does not stop the others (exit 2)" {
	local a b
	a=$(detach --range 0:10)
	b=$(detach --range 0:10)
	run -2 --separate-stderr sc-release --user-id bats --session-id "$SID" "$a" not-a-uuid "$b"
	[ "${lines[0]}" = "$a	released" ]
	[ "${lines[1]}" = "not-a-uuid	error: not an operation id (a UUID)" ]
	[ "${lines[2]}" = "$b	released" ]
	[ "${#lines[@]}" -eq 3 ]
	[ "$stderr" = "sc-release: 1 of 3 failed: not an operation id (a UUID)" ]
	server_log_has "operation $a released"
	server_log_has "operation $b released"
	# -q: the error lines only.
	run -2 --separate-stderr sc-release -q --user-id bats --session-id "$SID" "$a" not-a-uuid "$b"
	[ "$output" = "not-a-uuid	error: not an operation id (a UUID)" ]
	[ "$stderr" = "sc-release: 1 of 3 failed: not an operation id (a UUID)" ]
	# Bytes that would break a line are escaped, as in TSV.
	run -2 --separate-stderr sc-release --user-id bats --session-id "$SID" "$(printf 'a\tb\\c')"
	[ "$output" = 'a\tb\\c	error: not an operation id (a UUID)' ]
}

@test "an unwritable standard output: exit 9" {
	local op
	op=$(detach --range 0:10)
	run -9 --separate-stderr sh -c 'exec sc-release "$@" >/dev/full' sh \
	    --user-id bats --session-id "$SID" "$op"
	[ "$stderr" = "sc-release: cannot write output: No space left on device" ]
}

@test "ids from standard input: trimmed, comments and blanks skipped, bad lines reported" {
	local a b c gone in="$BATS_TEST_TMPDIR/ids"
	a=$(detach --range 0:10)
	b=$(detach --range 0:10)
	c=$(detach --range 0:10)
	gone=$(new_id)
	printf '# stale operations\n%s\n\n   \n  %s\t \r\nnot an id\n#%s\n%s\n' \
	    "$b" "$c" "$gone" "$gone" >"$in"
	run -2 --separate-stderr sc-release --user-id bats --session-id "$SID" "$a" - <"$in"
	[ "${lines[0]}" = "$a	released" ]
	[ "${lines[1]}" = "$b	released" ]
	[ "${lines[2]}" = "$c	released" ]
	[ "${lines[3]}" = "not an id	error: line 6: not an operation id (a UUID)" ]
	[ "${lines[4]}" = "$gone	already gone" ]
	[ "${#lines[@]}" -eq 5 ]
	[ "$stderr" = "sc-release: 1 of 5 failed: line 6: not an operation id (a UUID)" ]
	# Empty input: nothing to do, nothing said.
	run -0 --separate-stderr sc-release --session-id "$SID" - </dev/null
	[ -z "$output" ]
	[ -z "$stderr" ]
}

@test "1,000 ids on standard input, two of them live, in one quick run" {
	local a b in="$BATS_TEST_TMPDIR/ids" i
	a=$(detach --range 0:10)
	b=$(detach --range 0:10)
	for ((i = 0; i < 998; i++)); do
		new_id
		[ "$i" -eq 300 ] && echo "$a"
		[ "$i" -eq 700 ] && echo "$b"
	done >"$in"
	[ "$(wc -l <"$in")" -eq 1000 ]
	SECONDS=0
	run -0 --separate-stderr timeout 60 sc-release --user-id bats --session-id "$SID" - <"$in"
	[ "$SECONDS" -lt 60 ]
	[ "${#lines[@]}" -eq 1000 ]
	[ "$(printf '%s\n' "${lines[@]}" | cut -f2 | sort | uniq -c | awk '{ $1 = $1; print }' | tr '\n' ,)" = "998 already gone,2 released," ]
	[ "${lines[301]}" = "$a	released" ]
	[ "${lines[702]}" = "$b	released" ]
	[ "$(printf '%s\n' "${lines[@]}" | cut -f1)" = "$(cat "$in")" ]
	# -q: only errors, so nothing now.
	run -0 --separate-stderr timeout 60 sc-release -q --user-id bats --session-id "$SID" - <"$in"
	[ -z "$output" ]
	[ -z "$stderr" ]
}

@test "--dry-run says what it would do and sends nothing" {
	local op stats="$BATS_TEST_TMPDIR/proxy.stats" port="$BATS_TEST_TMPDIR/proxy.port"
	op=$(detach --range 0:10)
	faultproxy -T 60 -o "$stats" "${SERVER##*:}" >"$port" \
	    2>"$BATS_TEST_TMPDIR/proxy.log" 3>&- &
	PROXY_PID=$!
	wait_for test -s "$port"
	run -0 --separate-stderr sc-release -n -s "sc://127.0.0.1:$(cat "$port")" \
	    --token "$TOKEN" --user-id bats --session-id "$SID" \
	    --interrupt --all "$op" --session
	[ "${lines[0]}" = "$SID	would interrupt and release every running operation" ]
	[ "${lines[1]}" = "$op	would interrupt and release" ]
	[ "${lines[2]}" = "$SID	would release the session" ]
	[ "${#lines[@]}" -eq 3 ]
	[ -z "$stderr" ]
	run -0 --separate-stderr sc-release --dry-run --format jsonl \
	    -s "sc://127.0.0.1:$(cat "$port")" --token "$TOKEN" \
	    --session-id "$SID" --until "$SID" "$op"
	[ "$output" = "{\"id\":\"$op\",\"action\":\"release-until\",\"result\":\"dry_run\",\"error_class\":null,\"message\":\"would release until $SID\"}" ]
	kill -TERM "$PROXY_PID"
	wait "$PROXY_PID"
	PROXY_PID=
	[ "$(head -1 "$stats")" = "connections 0" ]
	# Nor does it need a server at all.
	run -0 --separate-stderr sc-release -n -s sc://127.0.0.1:1 --session-id "$SID" "$op" --tag x --interrupt
	[ "${lines[0]}" = "$SID	would interrupt and release the operations tagged 'x'" ]
	[ "${lines[1]}" = "$op	would interrupt and release" ]
	# The operation is still there: only now is it released.
	run -0 --separate-stderr sc-release --user-id bats --session-id "$SID" "$op"
	[ "$output" = "$op	released" ]
}

@test "--dry-run check: without -n the same command goes through the proxy" {
	local op stats="$BATS_TEST_TMPDIR/proxy.stats" port="$BATS_TEST_TMPDIR/proxy.port"
	op=$(detach --range 0:10)
	faultproxy -T 60 -o "$stats" "${SERVER##*:}" >"$port" \
	    2>"$BATS_TEST_TMPDIR/proxy.log" 3>&- &
	PROXY_PID=$!
	wait_for test -s "$port"
	run -0 --separate-stderr sc-release -s "sc://127.0.0.1:$(cat "$port")" \
	    --token "$TOKEN" --user-id bats --session-id "$SID" "$op" --session
	[ "${lines[0]}" = "$op	released" ]
	[ "${lines[1]}" = "$SID	session released" ]
	kill -TERM "$PROXY_PID"
	wait "$PROXY_PID"
	PROXY_PID=
	[ "$(head -1 "$stats")" != "connections 0" ]
}

# A Node client: run NAME... (see the cases) against this file's server.
peer() {
	cat >"$BATS_TEST_TMPDIR/peer.js" <<'EOF'
'use strict';
const lib = require(`${process.env.SCTK_TOP}/test/conformance/lib.js`);
const [port, token, sid, user, cmd, op, after] = process.argv.slice(2);
const s = new lib.Session(lib.newClient(port), { sessionId: sid,
    userId: user, metadata: { authorization: `Bearer ${token}` } });
(async () => {
	if (cmd === 'run') {
		// Run to the end, keep the operation, print its response ids.
		const r = await s.execute(lib.sqlPlan(
		    'SELECT id FROM range(0, 50000)'), { operationId: op });
		if (r.status.code !== lib.code.OK)
			throw new Error(lib.statusText(r.status));
		for (const x of r.responses)
			console.log(x.response_id);
	} else {
		// Reattach after a response: "ok N" or the error class.
		const r = await s.reattach(op, after || undefined);
		if (r.status.code === lib.code.OK) {
			console.log(`ok ${r.count}`);
		} else {
			const m = /^\[([A-Z_.]+)\]/.exec(r.status.details);
			console.log(m ? m[1] : lib.statusText(r.status));
		}
	}
	process.exit(0);
})().catch((e) => {
	console.error(e);
	process.exit(1);
});
EOF
	node "$BATS_TEST_TMPDIR/peer.js" "${SERVER##*:}" "$TOKEN" "$SID" bats "$@"
}

@test "--until releases the responses up to one (ReleaseUntil)" {
	local op rids
	need_node
	op=$(new_id)
	peer run "$op" >"$BATS_TEST_TMPDIR/rids"
	mapfile -t rids <"$BATS_TEST_TMPDIR/rids"
	[ "${#rids[@]}" -ge 6 ]
	run -0 --separate-stderr sc-release --user-id bats --session-id "$SID" --until "${rids[3]}" "$op"
	[ "$output" = "$op	released until ${rids[3]}" ]
	[ -z "$stderr" ]
	# Responses up to it are gone, those after it are not.
	[ "$(peer reattach "$op" "${rids[1]}")" = INVALID_CURSOR.POSITION_NOT_AVAILABLE ]
	[ "$(peer reattach "$op" "${rids[3]}")" = "ok $((${#rids[@]} - 4))" ]
	run -0 --separate-stderr sc-release --user-id bats --format jsonl --session-id "$SID" --until "${rids[4]}" "$op"
	[ "$output" = "{\"id\":\"$op\",\"action\":\"release-until\",\"result\":\"released\",\"error_class\":null,\"message\":\"until ${rids[4]}\"}" ]
	# A response id the operation never sent is refused: exit 1.
	run -1 --separate-stderr sc-release --user-id bats --session-id "$SID" --until "$op" "$op"
	[ "$output" = "$op	error: INVALID_CURSOR.POSITION_NOT_FOUND: The cursor is invalid. The cursor position id $op is not found. SQLSTATE: HY109" ]
	[ "$stderr" = "sc-release: 1 of 1 failed: [INVALID_CURSOR.POSITION_NOT_FOUND] The cursor is invalid. The cursor position id $op is not found. SQLSTATE: HY109" ]
	run -0 sc-release --user-id bats --session-id "$SID" "$op"
	[ "$output" = "$op	released" ]
	[ "$(peer reattach "$op" "${rids[4]}")" = INVALID_HANDLE.OPERATION_NOT_FOUND ]
}

@test "--interrupt --tag interrupts a running endless query" {
	local op pid
	op=$(new_id)
	endless bats etl "$op"
	pid=${BG_PIDS[-1]}
	# Another tag matches nothing, and says so (not with -q).
	run -0 --separate-stderr sc-release --user-id bats --session-id "$SID" --interrupt --tag other
	[ -z "$output" ]
	[ "$stderr" = "sc-release: no operation tagged 'other' was running" ]
	run -0 --separate-stderr sc-release -q --user-id bats --session-id "$SID" --interrupt --tag other
	[ -z "$output" ]
	[ -z "$stderr" ]
	kill -0 "$pid"
	# Named by the tag and by its id: one line.
	run -0 --separate-stderr sc-release --user-id bats --session-id "$SID" --interrupt --tag etl "$op"
	[ "$output" = "$op	interrupted" ]
	[ -z "$stderr" ]
	ended "$pid" 1
	grep -q '^sc-exec: \[OPERATION_CANCELED\] ' "$BATS_TEST_TMPDIR/$op.err"
	server_log_has "operation $op canceled"
	run -0 sc-release --user-id bats --session-id "$SID" "$op"
	[ "$output" = "$op	already gone" ]
}

@test "--interrupt --all stops every running operation of the session" {
	local a b held
	# Detached huge ranges: running, paused until somebody reads.
	a=$(detach --range 0:1000000000000)
	b=$(detach --range 0:1000000000000)
	held=$(detach --range 0:10)
	run -0 --separate-stderr sc-release --user-id bats --session-id "$SID" --interrupt --all
	[ "$(printf '%s\n' "${lines[@]}" | sort)" = "$(printf '%s\tinterrupted\n' "$a" "$b" | sort)" ]
	[ -z "$stderr" ]
	server_log_has "operation $a released \\(CANCELED\\)"
	server_log_has "operation $b released \\(CANCELED\\)"
	# A finished operation is not running: not interrupted, still held.
	run -0 sc-release --user-id bats --session-id "$SID" "$held"
	[ "$output" = "$held	released" ]
}

@test "--interrupt with ids: running, finished and unknown operations" {
	local run held gone
	run=$(new_id)
	gone=$(new_id)
	held=$(detach --range 0:10)
	endless bats t "$run"
	run -0 --separate-stderr sc-release --user-id bats --session-id "$SID" --interrupt "$run" "$held" "$gone"
	[ "${lines[0]}" = "$run	interrupted" ]
	[ "${lines[1]}" = "$held	released" ]
	[ "${lines[2]}" = "$gone	already gone" ]
	[ "${#lines[@]}" -eq 3 ]
	ended "${BG_PIDS[0]}" 1
}

@test "a non-reattachable operation is refused (exit 1) until interrupted; the worst status wins" {
	local op pid
	op=$(new_id)
	endless bats t "$op" --no-reattach
	pid=${BG_PIDS[-1]}
	run -1 --separate-stderr sc-release --user-id bats --session-id "$SID" "$op"
	[ "$output" = "$op	error: INVALID_CURSOR.NOT_REATTACHABLE: The cursor is invalid. The cursor is not reattachable. SQLSTATE: HY109" ]
	[ "$stderr" = "sc-release: 1 of 1 failed: [INVALID_CURSOR.NOT_REATTACHABLE] The cursor is invalid. The cursor is not reattachable. SQLSTATE: HY109" ]
	# 1 for the refusal, 2 for the bad id: 2.
	run -2 --separate-stderr sc-release --user-id bats --session-id "$SID" "$op" bad
	[ "${#lines[@]}" -eq 2 ]
	[ "$stderr" = "sc-release: 2 of 2 failed: not an operation id (a UUID)" ]
	kill -0 "$pid"
	run -0 --separate-stderr sc-release --user-id bats --session-id "$SID" --interrupt "$op"
	[ "$output" = "$op	interrupted" ]
	ended "$pid" 1
}

@test "--session closes the session and everything in it" {
	local op
	op=$(detach --range 0:10)
	run -0 --separate-stderr sc-release --user-id bats --session-id "$SID" --session
	[ "$output" = "$SID	session released" ]
	[ -z "$stderr" ]
	server_log_has "session $SID released"
	run -3 --separate-stderr sc-exec --user-id bats --session-id "$SID" --attach "$op"
	[[ "${stderr_lines[-1]}" == "sc-exec: [INVALID_HANDLE.SESSION_CLOSED] "* ]]
	# Now there is no such session: exit 3, for the session and for ids.
	run -3 --separate-stderr sc-release --user-id bats --session-id "$SID" --session
	[ "$output" = "$SID	error: INVALID_HANDLE.SESSION_CLOSED: The handle \`$SID\` is invalid. Session was closed. SQLSTATE: HY000" ]
	run -3 --separate-stderr sc-release --user-id bats --session-id "$SID" "$op"
	[ "$output" = "$op	error: INVALID_HANDLE.SESSION_CLOSED: The handle \`$SID\` is invalid. Session was closed. SQLSTATE: HY000" ]
}

@test "a session that does not exist: exit 3, and Interrupt does not create it" {
	local a b
	a=$(new_id)
	b=$(new_id)
	run -3 --separate-stderr sc-release --user-id bats --session-id "$SID" "$a" "$b"
	[ "${lines[0]}" = "$a	$(no_session "$SID")" ]
	[ "${lines[1]}" = "$b	$(no_session "$SID")" ]
	[ "${#lines[@]}" -eq 2 ]
	[ "$stderr" = "sc-release: 2 of 2 failed: [INVALID_HANDLE.SESSION_NOT_FOUND] The handle \`$SID\` is invalid. Session not found. SQLSTATE: HY000" ]
	run -3 --separate-stderr sc-release --user-id bats --session-id "$SID" --interrupt --all "$a"
	[ "${lines[0]}" = "$SID	$(no_session "$SID")" ]
	[ "${lines[1]}" = "$a	$(no_session "$SID")" ]
	run -3 --separate-stderr sc-release --user-id bats --session-id "$SID" --interrupt --tag t
	[ "$output" = "$SID	$(no_session "$SID")" ]
	run -3 --separate-stderr sc-release --user-id bats --format jsonl --session-id "$SID" --session
	[ "$output" = "{\"id\":\"$SID\",\"action\":\"release-session\",\"result\":\"error\",\"error_class\":\"INVALID_HANDLE.SESSION_NOT_FOUND\",\"message\":\"The handle \`$SID\` is invalid. Session not found. SQLSTATE: HY000\"}" ]
	# Still no session: the Interrupts above did not make one.
	run -3 sc-release --user-id bats --session-id "$SID" "$a"
}

@test "user isolation: bob cannot release or interrupt alice's operations" {
	local held run pid unknown
	held=$(detach --range 0:10 --user-id alice)
	run=$(new_id)
	unknown=$(new_id)
	endless alice etl "$run"
	pid=${BG_PIDS[-1]}
	# bob has no session of that id: as for any unknown session.
	run -3 --separate-stderr sc-release --user-id bob --session-id "$SID" "$held"
	[ "$output" = "$held	$(no_session "$SID")" ]
	run -3 --separate-stderr sc-release --user-id bob --session-id "$SID" --interrupt --tag etl
	[ "$output" = "$SID	$(no_session "$SID")" ]
	run -3 --separate-stderr sc-release --user-id bob --session-id "$SID" --interrupt "$run"
	[ "$output" = "$run	$(no_session "$SID")" ]
	# bob's own session of the same id: alice's operations are unknown.
	sc-exec --user-id bob --session-id "$SID" 'SELECT 1' >/dev/null
	for id in "$held" "$run" "$unknown"; do
		run -0 --separate-stderr sc-release --user-id bob --session-id "$SID" "$id"
		[ "$output" = "$id	already gone" ]
		run -0 --separate-stderr sc-release --user-id bob --session-id "$SID" --interrupt "$id"
		[ "$output" = "$id	already gone" ]
	done
	run -0 --separate-stderr sc-release --user-id bob --session-id "$SID" --interrupt --all
	[ -z "$output" ]
	[ "$stderr" = "sc-release: no operation of the session was running" ]
	run -0 --separate-stderr sc-release --user-id bob --session-id "$SID" --interrupt --tag etl
	[ -z "$output" ]
	[ "$stderr" = "sc-release: no operation tagged 'etl' was running" ]
	run -0 sc-release --user-id bob --session-id "$SID" --session
	# alice's query still runs, and her held operation is still there.
	kill -0 "$pid"
	! server_log_has "operation $run canceled"
	run -0 sc-release --user-id alice --session-id "$SID" "$held"
	[ "$output" = "$held	released" ]
	run -0 sc-release --user-id alice --session-id "$SID" --interrupt --tag etl
	[ "$output" = "$run	interrupted" ]
	ended "$pid" 1
}

@test "server unreachable: exit 4, each id reported, retried once only" {
	local a b msg="cannot connect to '127.0.0.1:1': connection refused"
	a=$(new_id)
	b=$(new_id)
	run -4 --separate-stderr sc-release -v -s sc://127.0.0.1:1 --user-id bats --session-id "$SID" "$a" "$b"
	[ "${lines[0]}" = "$a	error: $msg" ]
	[ "${lines[1]}" = "$b	error: $msg" ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = "sc-release: server sc://127.0.0.1:1, session $SID, user 'bats'" ]
	[ "${stderr_lines[1]}" = "sc-release: server unavailable, retrying ReleaseExecute in 0.05s (attempt 1 of 3): $msg" ]
	[ "${stderr_lines[-1]}" = "sc-release: 2 of 2 failed: $msg" ]
	# The second id was not sent again to a server that is not there.
	[ "$(grep -c 'attempt 1 of 3' <<<"$stderr")" -eq 1 ]
}

@test "a wrong or missing token: exit 8" {
	local op
	op=$(detach --range 0:10)
	run -8 --separate-stderr sc-release --token wrong --user-id bats --session-id "$SID" "$op" --session
	[ "${lines[0]}" = "$op	error: UNAUTHENTICATED: Invalid authentication token" ]
	[ "${lines[1]}" = "$SID	error: UNAUTHENTICATED: Invalid authentication token" ]
	[ "$stderr" = "sc-release: 2 of 2 failed: Invalid authentication token [UNAUTHENTICATED]" ]
	SPARK_REMOTE=$SERVER run -8 --separate-stderr sc-release --user-id bats --session-id "$SID" "$op"
	[[ "$output" == "$op	error: "* ]]
	# Nothing was released.
	run -0 sc-release --user-id bats --session-id "$SID" "$op"
	[ "$output" = "$op	released" ]
}

@test "a server that does not answer: -t gives exit 5, SIGTERM kills" {
	local a pid
	a=$(new_id)
	kill -STOP "$SCTK_SERVER_PID"
	run -5 --separate-stderr sc-release -t 500ms --user-id bats --session-id "$SID" "$a" "$a"
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == "$a	error: "* ]]
	[ "${lines[1]}" = "${lines[0]}" ]
	sc-release --user-id bats --session-id "$SID" "$a" >"$BATS_TEST_TMPDIR/out" 2>&1 3>&- &
	pid=$!
	sleep 0.5
	kill -TERM "$pid"
	ended "$pid" 143
	kill -CONT "$SCTK_SERVER_PID"
	run -3 sc-release --user-id bats --session-id "$SID" "$a"
}
