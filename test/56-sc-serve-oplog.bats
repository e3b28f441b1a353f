#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 56-sc-serve-oplog: logs that say who did what.  The file's server logs
# in JSON (--log-format json) with a token file: every operation's
# operation_start and operation_end lines carry the user, session,
# operation id, client address, statement digest and text, and the end
# line the rows, bytes, duration and outcome (finished, failed with its
# error class, canceled, released); every refused authentication is an
# auth_refused line with the client's address; every line of the log is
# one JSON object.  A second server checks the same lines in text.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

LOOP='SELECT count(*) FROM range(1000000000000)'

setup_file() {
	local f="$BATS_FILE_TMPDIR/tokens"
	printf 'tok-alice alice\ntok-mallory mallory\n' >"$f"
	chmod 600 "$f"
	sc_server_start --log-format json --token-file "$f"
}

teardown_file() {
	sc_server_stop
}

setup() {
	SERVER=$(head -1 "$BATS_FILE_TMPDIR/server.ready")
	unset SPARK_REMOTE
	SID=$(cat /proc/sys/kernel/random/uuid)
	OPID=$(cat /proc/sys/kernel/random/uuid)
	OTHER_PID=
}

teardown() {
	[ -z "$OTHER_PID" ] || stop_other
}

as() {
	echo "$SERVER;token=$1"
}

# jfield FILE EVENT KEY [MATCH-KEY MATCH-VALUE]: the value of KEY in the
# last JSON line of FILE whose event is EVENT (and MATCH-KEY is
# MATCH-VALUE); status 1 when there is none.
jfield() {
	python3 - "$@" <<'PY'
import json, sys
path, event, key = sys.argv[1:4]
mk, mv = (sys.argv[4], sys.argv[5]) if len(sys.argv) > 5 else (None, None)
found = None
for line in open(path, encoding="utf-8"):
    o = json.loads(line)
    if o.get("event") == event and (mk is None or o.get(mk) == mv):
        found = o
if found is None or key not in found:
    sys.exit(1)
v = found[key]
sys.stdout.write(v if isinstance(v, str) else json.dumps(v))
PY
}

# field EVENT KEY: jfield on this file's log, for this test's operation.
field() {
	jfield "$BATS_FILE_TMPDIR/server.log" "$1" "$2" operation_id "$OPID"
}

ended() {
	field operation_end outcome >/dev/null
}

digest_of() {
	printf '%s' "$1" | sha256sum | cut -c1-16
}

@test "a query's start and end lines carry who, from where, what, and how much" {
	local sql='SELECT id FROM range(0, 7)'
	run -0 --separate-stderr sc-exec -s "$(as tok-alice)" --user-id alice \
	    --session-id "$SID" --operation-id "$OPID" --format csv \
	    --no-header "$sql"
	[ "${#lines[@]}" -eq 7 ]
	wait_for ended
	for ev in operation_start operation_end; do
		[ "$(field $ev user_id)" = alice ]
		[ "$(field $ev session_id)" = "$SID" ]
		[[ "$(field $ev client)" =~ ^ipv4:127\.0\.0\.1:[0-9]+$ ]]
		[ "$(field $ev digest)" = "$(digest_of "$sql")" ]
		[ "$(field $ev statement)" = "$sql" ]
		[ "$(field $ev level)" = info ]
	done
	[ "$(field operation_start reattachable)" = 1 ]
	[ "$(field operation_start tags)" = 0 ]
	[ "$(field operation_end outcome)" = finished ]
	[ "$(field operation_end error_class)" = "" ]
	[ "$(field operation_end rows)" = 7 ]
	[ "$(field operation_end bytes)" -gt 0 ]
	[ "$(field operation_end duration_ms)" -ge 0 ]
	# The same client address from start to end.
	[ "$(field operation_start client)" = "$(field operation_end client)" ]
}

@test "a failing query ends failed with its Spark error class and no rows" {
	run -1 --separate-stderr sc-exec -s "$(as tok-alice)" --user-id alice \
	    --session-id "$SID" --operation-id "$OPID" "SELECT * FROM no_such_table"
	[[ "$stderr" == *"[TABLE_OR_VIEW_NOT_FOUND]"* ]]
	wait_for ended
	[ "$(field operation_end outcome)" = failed ]
	[ "$(field operation_end error_class)" = TABLE_OR_VIEW_NOT_FOUND ]
	[ "$(field operation_end rows)" = 0 ]
	[ "$(field operation_end bytes)" = 0 ]
	[ "$(field operation_end user_id)" = alice ]
}

@test "an interrupted query ends canceled; one released while it runs ends released" {
	run -0 --separate-stderr sc-exec -s "$(as tok-alice)" --user-id alice \
	    --session-id "$SID" --operation-id "$OPID" --detach "$LOOP"
	wait_for field operation_start statement
	run -0 --separate-stderr sc-release -s "$(as tok-alice)" --user-id alice \
	    --session-id "$SID" --interrupt "$OPID"
	run -0 --separate-stderr sc-release -s "$(as tok-alice)" --user-id alice \
	    --session-id "$SID" "$OPID"
	wait_for ended
	[ "$(field operation_end outcome)" = canceled ]
	[ "$(field operation_end statement)" = "$LOOP" ]

	OPID=$(cat /proc/sys/kernel/random/uuid)
	run -0 --separate-stderr sc-exec -s "$(as tok-alice)" --user-id alice \
	    --session-id "$SID" --operation-id "$OPID" --detach "$LOOP"
	wait_for field operation_start statement
	run -0 --separate-stderr sc-release -s "$(as tok-alice)" --user-id alice \
	    --session-id "$SID" "$OPID"
	wait_for ended
	[ "$(field operation_end outcome)" = released ]
	[ "$(field operation_end rows)" = 0 ]
}

@test "statement text is escaped as JSON requires" {
	local sql=$'SELECT \'tab\there "q" back\\\\slash\' AS s\n-- end'
	run -0 --separate-stderr sc-exec -s "$(as tok-alice)" --user-id alice \
	    --session-id "$SID" --operation-id "$OPID" "$sql"
	wait_for ended
	# The text is the listing's: each tab or newline one space.
	[ "$(field operation_end statement)" = "${sql//[$'\t\n']/ }" ]
	# The digest is of the text as sent.
	[ "$(field operation_end digest)" = "$(digest_of "$sql")" ]
	# A C1 control (U+0085, a line break for some readers) is \u0085
	# on the line and itself once decoded.  (sc-exec sends no text that
	# is not UTF-8; test-log.c covers those bytes.)
	OPID=$(cat /proc/sys/kernel/random/uuid)
	run -0 --separate-stderr sc-exec -s "$(as tok-alice)" --user-id alice \
	    --session-id "$SID" --operation-id "$OPID" $'SELECT \'\xc2\x85\' AS s'
	wait_for ended
	[ "$(field operation_end statement)" = $'SELECT \'\xc2\x85\' AS s' ]
	grep -qF '"statement":"SELECT '"'"'\u0085'"'"' AS s"' "$BATS_FILE_TMPDIR/server.log"
}

@test "refused authentications are logged with the client's address" {
	run -8 --separate-stderr sc-exec -s "$(as tok-wrong)" --user-id alice "SELECT 1"
	run -8 --separate-stderr sc-exec -s "$SERVER" --user-id alice "SELECT 1"
	run -8 --separate-stderr sc-exec -s "$(as tok-mallory)" --user-id alice \
	    --session-id "$SID" "SELECT 1"
	local log="$BATS_FILE_TMPDIR/server.log"
	wait_for jfield "$log" auth_refused reason reason "user mismatch"
	for r in "bad token" "missing token" "user mismatch"; do
		[[ "$(jfield "$log" auth_refused client reason "$r")" =~ ^ipv4:127\.0\.0\.1:[0-9]+$ ]]
		[ "$(jfield "$log" auth_refused level reason "$r")" = warn ]
	done
	[ "$(jfield "$log" auth_refused user_id reason "user mismatch")" = alice ]
	[ "$(jfield "$log" auth_refused token_user_id reason "user mismatch")" = mallory ]
	# The admin service logs its refusals the same way.
	run -8 --separate-stderr sc-inspect -s "$(as tok-wrong)" stats
	wait_for test "$(grep -c '"event":"auth_refused","client":"ipv4:127.0.0.1:[0-9]*","reason":"bad token"' "$log")" -ge 2
}

@test "every line of the JSON log is one object with time, pid, level and msg" {
	run -0 --separate-stderr sc-exec -s "$(as tok-alice)" --user-id alice "SELECT 1"
	python3 - "$BATS_FILE_TMPDIR/server.log" "$SCTK_SERVER_PID" <<'PY'
import json, re, sys
n = 0
for line in open(sys.argv[1], encoding="utf-8"):
    o = json.loads(line)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", o["time"]), o
    assert o["pid"] == int(sys.argv[2]), o
    assert o["level"] in ("error", "warn", "info", "debug"), o
    assert isinstance(o["msg"], str) and o["msg"], o
    n += 1
assert n >= 3, n
PY
	# The start-up line too.
	[ "$(head -1 "$BATS_FILE_TMPDIR/server.log" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["msg"])')" = \
	    "sc-serve 0.1.0 listening on 127.0.0.1:${SERVER##*:} (token required, users bound)" ]
}

@test "text format (the default): the same start and end lines in words" {
	start_other --log-level info
	local sql='SELECT id FROM range(0, 3)' d re
	d=$(digest_of "$sql")
	re='SELECT id FROM range\(0, 3\)'
	run -0 --separate-stderr sc-exec -s "$OTHER" --user-id bob \
	    --session-id "$SID" --operation-id "$OPID" "$sql"
	local log="$BATS_TEST_TMPDIR/other.log"
	wait_for grep -q "operation $OPID ended" "$log"
	grep -qE "^[0-9T:.-]+Z $OTHER_PID I operation $OPID started: session $SID user 'bob', reattachable, 0 tags, client ipv4:127\.0\.0\.1:[0-9]+, digest $d, statement '$re'\$" "$log"
	grep -qE "^[0-9T:.-]+Z $OTHER_PID I operation $OPID ended: finished, session $SID user 'bob', client ipv4:127\.0\.0\.1:[0-9]+, digest $d, 3 rows, [1-9][0-9]* bytes, [0-9]+\.[0-9]{3}s, statement '$re'\$" "$log"
	run -2 --separate-stderr sc-serve --log-format xml
	[ "${stderr_lines[0]}" = "sc-serve: invalid log format 'xml': expected text or json" ]
}
