#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 43-kill: SIGKILL in the middle of things.  sc-serve killed while
# sc-exec reads a large result and started again on the same port with
# the same --database and --artifact-dir: the client never takes the new
# server's answers for the old operation's (SESSION_NOT_FOUND,
# SESSION_CHANGED or OPERATION_NOT_FOUND, never rows), the database keeps
# what was committed, and the artifact store keeps nothing half-written;
# an upload cut by the kill goes on to the new server and stores the
# whole file.  A client killed mid-stream: its operation is abandoned
# after the detached timeout and the server's memory comes back.

bats_require_minimum_version 1.7.0
load helpers/common

Q='SELECT id FROM range(200000000)'

teardown() {
	local p
	for p in ${BG_PID:-} ${VICTIM:-}; do
		kill -9 "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	BG_PID= VICTIM=
}

uuid() {
	cat /proc/sys/kernel/random/uuid
}

# start_victim [PORT] [sc-serve options...]: a private sc-serve to kill,
# on PORT (0: a free one) with the test's database and artifact store;
# sets VICTIM, ADDR and PORT.
start_victim() {
	local ready="$BATS_TEST_TMPDIR/victim.ready" port=${1:-0}
	shift || true
	rm -f "$ready"
	mkdir -p -m 700 "$BATS_TEST_TMPDIR/art"
	sc-serve --listen "127.0.0.1:$port" --ready-file "$ready" \
	    --database "$BATS_TEST_TMPDIR/db.sqlite" \
	    --artifact-dir "$BATS_TEST_TMPDIR/art" "$@" \
	    >>"$BATS_TEST_TMPDIR/victim.log" 2>&1 3>&- &
	VICTIM=$!
	wait_for test -s "$ready" || {
		cat "$BATS_TEST_TMPDIR/victim.log" >&2
		return 1
	}
	ADDR=$(head -1 "$ready")
	PORT=${ADDR##*:}
}

# kill_victim: SIGKILL, and reap it.
kill_victim() {
	kill -9 "$VICTIM"
	wait "$VICTIM" 2>/dev/null || true
	VICTIM=
}

# restart_victim [options...]: the same port again (bounded retries: the
# port may take a moment to be free).
restart_victim() {
	local i
	for ((i = 0; i < 20; i++)); do
		start_victim "$PORT" "$@" 2>/dev/null && return 0
		sleep 0.2
	done
	cat "$BATS_TEST_TMPDIR/victim.log" >&2
	return 1
}

# stat_field NAME: a number from the victim's sc-inspect stats.
stat_field() {
	sc-inspect -s "$ADDR" stats --format jsonl |
	    python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}

# staging: a staging file of more than 1 MiB is in the store.
staging() {
	[ -n "$(find "$BATS_TEST_TMPDIR/art" -name '.upload-*' -size +1M)" ]
}

# buffering: the victim holds more than 1 MB of responses.
buffering() {
	[ "$(stat_field buffered_bytes)" -gt 1000000 ]
}

# peer SSID-FILE CMD ARGS...: the Node client against the victim (see
# the cases in the script).
peer() {
	cat >"$BATS_TEST_TMPDIR/peer.js" <<'EOF'
'use strict';
const fs = require('node:fs');
const lib = require(`${process.env.SCTK_TOP}/test/conformance/lib.js`);
const [port, sid, file, cmd, op] = process.argv.slice(2);
const s = new lib.Session(lib.newClient(port), { sessionId: sid,
    userId: 'bats', observe: true });
function cls(st) {
	const m = /^\[([A-Z_.]+)\]/.exec(st.details || '');
	return m ? m[1] : lib.statusText(st);
}
(async () => {
	if (cmd === 'start') {
		// A few responses of a long operation; keep what a client
		// would to come back: the server-side id and the last response.
		let last = null;
		const r = await lib.collect(s.startExecute(lib.sqlPlan(
		    'SELECT id FROM range(200000000)'), { operationId: op }),
		    { stopAfter: 3, onResponse: (x) => { last = x.response_id; } },
		    s);
		fs.writeFileSync(file, JSON.stringify(
		    { ssid: s.serverSideId, last }));
		console.log(r.count >= 3 ? 'started' : lib.statusText(r.status));
	} else {
		const saved = JSON.parse(fs.readFileSync(file));
		s.serverSideId = saved.ssid;
		if (cmd === 'plain') // a call that makes the session again
			s.observe = false;
		if (cmd === 'plain')
			await s.config({ get: { keys: ['spark.sql.ansi.enabled'] } })
			    .catch(() => {});
		s.observe = true;
		const r = await s.reattach(op, saved.last, { timeoutMs: 10000 });
		console.log(r.status.code === lib.code.OK ?
		    `rows ${r.count}` : cls(r.status));
	}
	process.exit(0);
})().catch((e) => {
	console.error(e);
	process.exit(1);
});
EOF
	node "$BATS_TEST_TMPDIR/peer.js" "$PORT" "$SID" \
	    "$BATS_TEST_TMPDIR/peer.state" "$@"
}

@test "sc-serve killed and restarted mid-stream: exit 1 naming the operation; never the new server's rows" {
	local out="$BATS_TEST_TMPDIR/out" err="$BATS_TEST_TMPDIR/err" n rc=0
	start_victim
	SID=$(uuid)
	sc-exec -t 60 -s "$ADDR" --session-id "$SID" --no-header \
	    --no-progress "$Q" >"$out" 2>"$err" 3>&- &
	BG_PID=$!
	wait_for test -s "$out"
	kill_victim
	restart_victim
	wait "$BG_PID" || rc=$?
	BG_PID=
	cat "$err"
	[ "$rc" -eq 1 ]
	[ "$(wc -l <"$err")" -eq 1 ]
	[[ "$(cat "$err")" =~ ^sc-exec:\ \[RESPONSE_ALREADY_RECEIVED\]\ the\ server\ lost\ operation\ [0-9a-f-]{36}\ after\ [0-9]+\ responses\ were\ received\ \(INVALID_HANDLE\.SESSION_NOT_FOUND\)\;\ the\ result\ is\ incomplete$ ]]
	# What was printed is 0, 1, 2, ... with nothing from the new
	# server (a complete last line: the rows came whole).
	n=$(wc -l <"$out")
	[ "$n" -ge 1 ] && [ "$n" -lt 200000000 ]
	[ "$(md5sum <"$out")" = "$(seq 0 $((n - 1)) | md5sum)" ]
}

@test "--attach after the restart: SESSION_NOT_FOUND, then OPERATION_NOT_FOUND, exit 3 and no rows" {
	local op
	start_victim
	SID=$(uuid)
	op=$(sc-exec -s "$ADDR" --session-id "$SID" --detach "$Q")
	[[ "$op" =~ ^[0-9a-f-]{36}$ ]]
	# It runs, and is reattachable before the kill.
	run -0 timeout 20 sc-exec -s "$ADDR" --session-id "$SID" --no-header \
	    --max-rows 3 --attach "$op"
	kill_victim
	restart_victim
	run -3 --separate-stderr timeout 20 sc-exec -s "$ADDR" \
	    --session-id "$SID" --attach "$op"
	[ "$output" = "" ]
	[ "$stderr" = "sc-exec: [INVALID_HANDLE.SESSION_NOT_FOUND] The handle \`$SID\` is invalid. Session not found. SQLSTATE: HY000" ]
	# Once the session exists again, the old operation is unknown in it.
	run -0 sc-exec -s "$ADDR" --session-id "$SID" --no-header 'SELECT 7'
	[ "$output" = 7 ]
	run -3 --separate-stderr timeout 20 sc-exec -s "$ADDR" \
	    --session-id "$SID" --attach "$op"
	[ "$output" = "" ]
	[ "$stderr" = "sc-exec: [INVALID_HANDLE.OPERATION_NOT_FOUND] The handle \`$op\` is invalid. Operation not found. SQLSTATE: HY000" ]
}

@test "a client that saw the old server: SESSION_CHANGED on reattach, never rows" {
	local op
	need_node
	start_victim
	SID=$(uuid)
	op=$(uuid)
	[ "$(peer start "$op")" = started ]
	kill_victim
	restart_victim
	# No session yet on the new server.
	[ "$(peer reattach "$op")" = INVALID_HANDLE.SESSION_NOT_FOUND ]
	# The session made again by another call: a different server-side
	# session, which the client's observed id gives away.
	[ "$(peer plain "$op")" = INVALID_HANDLE.SESSION_CHANGED ]
}

@test "--database keeps what was committed before the kill, and only that" {
	start_victim
	SID=$(uuid)
	run -0 sc-exec -s "$ADDR" 'CREATE TABLE t AS SELECT id FROM range(1000)'
	sc-exec -s "$ADDR" --no-header --no-progress \
	    'CREATE TABLE u AS SELECT id FROM range(200000000)' \
	    >/dev/null 2>&1 3>&- &
	BG_PID=$!
	sleep 1
	kill_victim
	kill -9 "$BG_PID"
	wait "$BG_PID" 2>/dev/null || true
	BG_PID=
	restart_victim
	run -0 sc-exec -s "$ADDR" --no-header 'SELECT count(*), sum(id) FROM t'
	[ "$output" = "1000,499500" ]
	# The statement the kill cut short left no table behind.
	run -1 --separate-stderr sc-exec -s "$ADDR" 'SELECT count(*) FROM u'
	[[ "$stderr" == "sc-exec: [TABLE_OR_VIEW_NOT_FOUND]"* ]]
}

@test "sc-serve killed mid-upload: no partial file after the restart; the upload goes on and stores the whole file" {
	local big="$BATS_TEST_TMPDIR/big.bin" rc=0 f
	head -c $((96 * 1024 * 1024)) /dev/urandom >"$big"
	start_victim
	SID=$(uuid)
	sc-upload -v -t 120 -s "$ADDR" --session-id "$SID" \
	    --chunk-size 4k --as files/big.bin "$big" \
	    >"$BATS_TEST_TMPDIR/up.out" 2>"$BATS_TEST_TMPDIR/up.err" 3>&- &
	BG_PID=$!
	# Kill while a staging file is being written.
	wait_for staging
	kill_victim
	[ -n "$(find "$BATS_TEST_TMPDIR/art" -name '.upload-*')" ]
	sleep 1
	restart_victim
	# The new server cleared what the old one left: no staging file,
	# no session directory.
	[ "$(cd "$BATS_TEST_TMPDIR/art" && find . -mindepth 1 ! -name .lock)" = "" ]
	grep -q "removed the artifacts of 1 session an earlier server left" \
	    "$BATS_TEST_TMPDIR/victim.log"
	wait "$BG_PID" || rc=$?
	BG_PID=
	cat "$BATS_TEST_TMPDIR/up.err"
	[ "$rc" -eq 0 ]
	grep -q "retrying AddArtifacts" "$BATS_TEST_TMPDIR/up.err"
	[ "$(cut -f1,2,5 "$BATS_TEST_TMPDIR/up.out")" = "files/big.bin	$((96 * 1024 * 1024))	uploaded" ]
	f=$(find "$BATS_TEST_TMPDIR/art" -path '*/files/big.bin')
	cmp "$big" "$f"
	[ "$(find "$BATS_TEST_TMPDIR/art" -name '.upload-*')" = "" ]
}

@test "sc-serve killed mid-upload for good: exit 4 after --unreachable-timeout" {
	local big="$BATS_TEST_TMPDIR/big.bin" rc=0 t0 t1
	head -c $((96 * 1024 * 1024)) /dev/urandom >"$big"
	start_victim
	SID=$(uuid)
	sc-upload -t 60 -s "$ADDR" --session-id "$SID" --chunk-size 4k \
	    --unreachable-timeout 3s --as files/big.bin "$big" \
	    >"$BATS_TEST_TMPDIR/up.out" 2>"$BATS_TEST_TMPDIR/up.err" 3>&- &
	BG_PID=$!
	wait_for staging
	kill_victim
	t0=$(date +%s%N)
	wait "$BG_PID" || rc=$?
	t1=$(date +%s%N)
	BG_PID=
	cat "$BATS_TEST_TMPDIR/up.err"
	[ "$rc" -eq 4 ]
	[[ "$(tail -1 "$BATS_TEST_TMPDIR/up.err")" == *"(no answer from '127.0.0.1:$PORT' for 3s)" ]]
	# Not the one-second budget of a server never reached, and not
	# the minutes of fifteen backoffs either.
	echo "gave up $(((t1 - t0) / 1000000)) ms after the kill"
	[ $(((t1 - t0) / 1000000)) -ge 2500 ]
	[ $(((t1 - t0) / 1000000)) -lt 60000 ]
	[ ! -s "$BATS_TEST_TMPDIR/up.out" ]
}

@test "a client killed mid-stream: its operation abandoned after the detached timeout, memory back" {
	local idle rss op i
	start_victim 0 --detached-timeout 2s --maintenance-interval 200ms
	SID=$(uuid)
	# Warm up (the first query's allocations stay in the allocator),
	# then take the idle figure.
	run -0 sc-exec -s "$ADDR" --session-id "$SID" --no-header \
	    'SELECT count(*) FROM range(100000)'
	idle=$(stat_field rss_bytes)
	sc-exec -t 60 -s "$ADDR" --session-id "$SID" --no-header \
	    --no-progress "SELECT id, 'abcdefghijklmnopqrstuvwxyz0123456789' AS s FROM range(200000000)" \
	    >"$BATS_TEST_TMPDIR/out" 2>/dev/null 3>&- &
	BG_PID=$!
	wait_for test -s "$BATS_TEST_TMPDIR/out"
	# A reader that stops: the server fills its retry buffer.
	kill -STOP "$BG_PID"
	wait_for buffering
	op=$(sc-inspect -s "$ADDR" list --session "$SID" --ids --state running)
	[[ "$op" =~ ^[0-9a-f-]{36}$ ]]
	kill -9 "$BG_PID"
	wait "$BG_PID" 2>/dev/null || true
	BG_PID=
	# Detached, then abandoned (bounded: 2 s timeout, 200 ms sweeps).
	for ((i = 0; i < SCTK_WAIT_STEPS; i++)); do
		[ "$(stat_field operations_abandoned)" = 1 ] && break
		sleep 0.1
	done
	[ "$(stat_field operations_abandoned)" = 1 ]
	[ "$(stat_field operations)" = 0 ]
	[ "$(stat_field buffered_bytes)" = 0 ]
	run -0 sc-inspect -s "$ADDR" tombstones --no-header
	[[ "$output" == "operation	$op	$SID	"*"	detached too long	"* ]]
	# Its memory went back (a generous bound: allocator slack).  Not
	# under ASan, whose quarantine keeps freed memory on purpose.
	rss=$(stat_field rss_bytes)
	echo "rss idle $idle, after $rss"
	[ -n "${SCTK_SANITIZE:-}" ] || [ "$rss" -lt $((idle + 16 * 1024 * 1024)) ]
	# And the server goes on serving.
	run -0 sc-exec -s "$ADDR" --no-header 'SELECT count(*) FROM range(1000)'
	[ "$output" = 1000 ]
}
