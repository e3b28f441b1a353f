#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 10-clients-vs-spark: sctk's clients against Apache Spark's own Spark
# Connect server (4.x, local mode), with sc-serve beside it for the
# answers both engines agree on: sc-exec in every output format,
# reattach through the cut proxy with Spark's streams rotated every
# 64 KiB, interrupt, --detach/--attach, error classes and exit codes;
# sc-release; sc-upload; sc-inspect's refusal.

bats_require_minimum_version 1.7.0
load spark-setup

# A query whose answer and types Spark and sc-serve agree on.
Q="SELECT id, id * 2 AS twice, CAST(id AS STRING) AS s, id % 3 = 0 AS b, CAST(id AS DOUBLE) / 4 AS d, DATE'2024-01-01' + CAST(id AS INT) AS dt, IF(id = 2, NULL, 'x') AS n FROM range(7)"

setup_file() {
	peers_spark_setup
	[ -n "$PEERS_MISSING" ] && return 0
	peer_serve_start "$BATS_FILE_TMPDIR/serve"
	SERVE_URL=$(cat "$BATS_FILE_TMPDIR/serve/remote")
	export SERVE_URL
}

teardown_file() {
	[ -d "$BATS_FILE_TMPDIR/serve" ] && peer_stop "$BATS_FILE_TMPDIR/serve"
	peers_spark_teardown
}

setup() {
	need_peers
	export SPARK_REMOTE=$SPARK_URL
}

teardown() {
	[ -n "${BG_PID:-}" ] && kill -9 "$BG_PID" 2>/dev/null
	[ -n "${PROXY_PID:-}" ] && kill -TERM "$PROXY_PID" 2>/dev/null
	[ -d "$BATS_TEST_TMPDIR/serve" ] && peer_stop "$BATS_TEST_TMPDIR/serve"
	BG_PID= PROXY_PID=
	true
}

@test "sc-exec: every text format is byte-identical on Spark and on sc-serve" {
	local f
	for f in csv tsv jsonl table vertical; do
		sc-exec -s "$SPARK_URL" --format "$f" "$Q" \
		    >"$BATS_TEST_TMPDIR/spark.$f"
		sc-exec -s "$SERVE_URL" --format "$f" "$Q" \
		    >"$BATS_TEST_TMPDIR/serve.$f"
		cmp "$BATS_TEST_TMPDIR/spark.$f" "$BATS_TEST_TMPDIR/serve.$f"
	done
	run -0 head -3 "$BATS_TEST_TMPDIR/spark.csv"
	[ "$output" = "id,twice,s,b,d,dt,n
0,0,0,true,0.0,2024-01-01,x
1,2,1,false,0.25,2024-01-02,x" ]
	run -0 sed -n 3p "$BATS_TEST_TMPDIR/spark.jsonl"
	[ "$output" = '{"id":2,"twice":4,"s":"2","b":false,"d":0.5,"dt":"2024-01-02","n":null}' ] ||
	[ "$output" = '{"id":2,"twice":4,"s":"2","b":false,"d":0.5,"dt":"2024-01-03","n":null}' ]
}

@test "sc-exec: --format arrow from Spark holds the same table as from sc-serve" {
	sc-exec -s "$SPARK_URL" --format arrow "$Q" >"$BATS_TEST_TMPDIR/a"
	sc-exec -s "$SERVE_URL" --format arrow "$Q" >"$BATS_TEST_TMPDIR/b"
	run -0 "$PEERS_PY" -c '
import sys, pyarrow.ipc as ipc
a = ipc.open_stream(open(sys.argv[1], "rb")).read_all()
b = ipc.open_stream(open(sys.argv[2], "rb")).read_all()
print(a.num_rows, a.schema.names)
print(a.equals(b), [str(t) for t in a.schema.types] == [str(t) for t in b.schema.types])
' "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	[ "$output" = "7 ['id', 'twice', 's', 'b', 'd', 'dt', 'n']
True True" ]
}

@test "sc-exec: several statements, --param and --arg on Spark" {
	run -0 --separate-stderr sc-exec --no-header \
	    --param lo=int:3 "SELECT 1 AS a; SELECT id FROM range(5) WHERE id >= :lo"
	[ "$output" = "1
3
4" ]
	run -0 --separate-stderr sc-exec --no-header --arg int:40 --arg two \
	    "SELECT ? + 2 AS a, ? AS b"
	[ "$output" = "42,two" ]
}

@test "sc-exec: --analyze prints Spark's schema without running" {
	run -0 --separate-stderr sc-exec --analyze "SELECT 1 AS a, 'x' AS b"
	[[ "$output" == *a*int* ]]
	[[ "$output" == *b*string* ]]
}

@test "sc-exec: reattach through the cut proxy, streams rotated by Spark, no row lost or repeated" {
	local port
	port=${SPARK_URL##*:}
	faultproxy -c 200000 -m 20 -T 300 "$port" >"$BATS_TEST_TMPDIR/pport" \
	    2>"$BATS_TEST_TMPDIR/proxy.err" &
	PROXY_PID=$!
	wait_for test -s "$BATS_TEST_TMPDIR/pport"
	run -0 --separate-stderr sc-exec -v --no-header \
	    -s "sc://127.0.0.1:$(cat "$BATS_TEST_TMPDIR/pport")" \
	    --range 0:300000
	[ "${#lines[@]}" -eq 300000 ]
	[ "$output" = "$(seq 0 299999)" ]
	# Spark rotated the stream (64 KiB) and the proxy cut it: both
	# were reattached.
	[[ "$stderr" == *"attaching to operation"* ]]
	kill -TERM "$PROXY_PID"
	wait "$PROXY_PID" || true
	PROXY_PID=
	grep -qE ' [1-9][0-9]* cuts,' "$BATS_TEST_TMPDIR/proxy.err"
}

@test "sc-exec: --detach then --attach from another process on Spark" {
	local sid op
	sid=$(new_sid)
	run -0 --separate-stderr sc-exec --session-id "$sid" --detach \
	    "SELECT id FROM range(4)"
	op=$output
	[[ "$op" =~ ^[0-9a-f-]{36}$ ]]
	run -0 --separate-stderr sc-exec --session-id "$sid" --no-header \
	    --attach "$op"
	[ "$output" = "0
1
2
3" ]
}

@test "sc-exec: an unknown operation or session to attach to is exit 3 with Spark's class" {
	local sid
	sid=$(new_sid)
	run -3 --separate-stderr sc-exec --session-id "$sid" \
	    --attach 00000000-0000-4000-8000-000000000001
	[[ "$stderr" == "sc-exec: [INVALID_HANDLE.SESSION_NOT_FOUND] "* ]]
	sc-exec --session-id "$sid" "SELECT 1" >/dev/null
	run -3 --separate-stderr sc-exec --session-id "$sid" \
	    --attach 00000000-0000-4000-8000-000000000001
	[[ "$stderr" == "sc-exec: [INVALID_HANDLE.OPERATION_NOT_FOUND] "* ]]
}

@test "sc-exec: Spark's error classes and exit 1" {
	run -1 --separate-stderr sc-exec "SELECT nope"
	[[ "$stderr" == "sc-exec: [UNRESOLVED_COLUMN.WITHOUT_SUGGESTION] "* ]]
	run -1 --separate-stderr sc-exec "SELECT * FROM no_such_table"
	[[ "$stderr" == "sc-exec: [TABLE_OR_VIEW_NOT_FOUND] "* ]]
	# Spark's parse errors start with a newline and end with the text
	# and carets under it, on lines of their own: printed as lines.
	run -1 --separate-stderr sc-exec "SELEC 1"
	[ "$stderr" = "sc-exec: [PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'. SQLSTATE: 42601 (line 1, pos 0)

== SQL ==
SELEC 1
^^^" ]
	run -1 --separate-stderr sc-exec "SELECT 1 / 0"
	[[ "${stderr_lines[0]}" == "sc-exec: [DIVIDE_BY_ZERO] "*" SQLSTATE: 22012" ]]
	[ "${stderr_lines[1]}" = "== SQL (line 1, position 8) ==" ]
	[ "${stderr_lines[2]}" = "SELECT 1 / 0" ]
	[ "${stderr_lines[3]}" = "       ^^^^^" ]
	[ "${#stderr_lines[@]}" -eq 4 ]
}

@test "sc-exec: a usage error is exit 2 before any call" {
	run -2 --separate-stderr sc-exec --format nope "SELECT 1"
}

@test "sc-exec: --conf sets Spark's session settings" {
	run -0 --separate-stderr sc-exec --no-header \
	    --conf spark.sql.session.timeZone=UTC \
	    "SELECT current_timezone()"
	[ "$output" = "UTC" ]
}

@test "sc-exec + sc-release: interrupting a tagged running query on Spark" {
	local sid
	sid=$(new_sid)
	# A query of a minute or so on a quiet machine (Spark counts about 2e9
	# rows a second here): long enough to interrupt, and bounded
	# if Spark loses it (below) but keeps its job running.
	sc-exec -v --session-id "$sid" --tag slow \
	    "SELECT count(*) FROM range(0, 100000000000)" \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	BG_PID=$!
	# Interrupting an operation Spark has only just started fails inside
	# Spark (SPARK_CONNECT_ILLEGAL_STATE ... status Started is not within
	# statuses Finished, Failed, Canceled) and loses the operation: wait
	# until it has run for a while, then interrupt by tag until found.
	local i ok=
	for ((i = 0; i < 600; i++)); do
		grep -q 'executing operation' "$BATS_TEST_TMPDIR/err" && break
		sleep 0.1
	done
	sleep 3
	for ((i = 0; i < 120; i++)); do
		sc-release --session-id "$sid" --interrupt --tag slow \
		    >"$BATS_TEST_TMPDIR/rel" 2>&1 || true
		cat "$BATS_TEST_TMPDIR/rel" >>"$BATS_TEST_TMPDIR/rel.all"
		if grep -q interrupted "$BATS_TEST_TMPDIR/rel"; then
			ok=1
			break
		fi
		kill -0 "$BG_PID" 2>/dev/null || break
		sleep 0.5
	done
	cat "$BATS_TEST_TMPDIR/rel" "$BATS_TEST_TMPDIR/err"
	# Spark 4.3.0 sometimes closes the operation while interrupting it
	# and answers the Interrupt with SPARK_CONNECT_ILLEGAL_STATE (status
	# ReadyForExecution ... for event Closed): the operation is ended
	# all the same, and sc-exec must say so below.
	if [ -z "$ok" ]; then
		grep -q 'SPARK_CONNECT_ILLEGAL_STATE' "$BATS_TEST_TMPDIR/rel.all"
	else
		grep -qE '^[0-9a-f-]{36}	interrupted$' "$BATS_TEST_TMPDIR/rel"
	fi
	# sc-exec ends once its reattach finds the operation canceled; wait
	# in this shell (a subshell of run cannot wait for it).
	local rc=0
	for ((i = 0; i < 1200; i++)); do
		kill -0 "$BG_PID" 2>/dev/null || break
		sleep 0.1
	done
	wait "$BG_PID" || rc=$?
	BG_PID=
	cat "$BATS_TEST_TMPDIR/err"
	[ "$rc" -eq 1 ]
	! grep -q 'RESPONSE_ALREADY_RECEIVED' "$BATS_TEST_TMPDIR/err"
	grep -q '^sc-exec: \[OPERATION_CANCELED\]' "$BATS_TEST_TMPDIR/err"
}

@test "sc-exec: an interrupt racing a query's start or end is OPERATION_CANCELED, never RESPONSE_ALREADY_RECEIVED" {
	# Spark 4.3 removes an operation an Interrupt reaches before it has
	# started (the stream ends INVALID_CURSOR.DISCONNECTED) or as it
	# finishes (SPARK_CONNECT_ILLEGAL_STATE in the Interrupt's answer);
	# sc-exec's reattach then finds no operation.  Interrupts at several
	# points of a short query: each run either answers whole or fails
	# canceled.
	local sid d rc i n=0
	for d in 0 0.1 0.2 0.3 0.4 0.5 0.7 1; do
		sid=$(new_sid)
		sc-exec -v --session-id "$sid" --tag race --no-header \
		    "SELECT id FROM range(2000000)" >"$BATS_TEST_TMPDIR/out" \
		    2>"$BATS_TEST_TMPDIR/err" &
		BG_PID=$!
		for ((i = 0; i < 600; i++)); do
			grep -q 'executing operation' "$BATS_TEST_TMPDIR/err" && break
			sleep 0.1
		done
		sleep "$d"
		sc-release --session-id "$sid" --interrupt --tag race \
		    >"$BATS_TEST_TMPDIR/rel" 2>&1 || true
		rc=0
		wait "$BG_PID" || rc=$?
		BG_PID=
		echo "delay $d: exit $rc, $(wc -l <"$BATS_TEST_TMPDIR/out") rows; $(cat "$BATS_TEST_TMPDIR/rel" "$BATS_TEST_TMPDIR/err")"
		! grep -q RESPONSE_ALREADY_RECEIVED "$BATS_TEST_TMPDIR/err"
		if [ "$rc" -eq 0 ]; then
			[ "$(wc -l <"$BATS_TEST_TMPDIR/out")" -eq 2000000 ]
		else
			[ "$rc" -eq 1 ]
			n=$((n + 1))
			tail -1 "$BATS_TEST_TMPDIR/err" |
			    grep -q '^sc-exec: \[OPERATION_CANCELED\] '
		fi
	done
	# The early interrupts did reach running operations.
	[ "$n" -ge 1 ]
}

@test "sc-release: --interrupt --all and by tag with nothing running" {
	local sid
	sid=$(new_sid)
	sc-exec --session-id "$sid" "SELECT 1" >/dev/null
	run -0 --separate-stderr sc-release --session-id "$sid" --interrupt --all
	[ "$stderr" = "sc-release: no operation of the session was running" ]
	run -0 --separate-stderr sc-release --session-id "$sid" --interrupt --tag t
	[ "$stderr" = "sc-release: no operation tagged 't' was running" ]
}

@test "sc-release: releasing a detached operation, --until, then the session" {
	local sid op
	sid=$(new_sid)
	op=$(sc-exec --session-id "$sid" --detach "SELECT id FROM range(100000)")
	# --until a response id Spark never sent: Spark's class, exit 1.
	run -1 --separate-stderr sc-release --session-id "$sid" \
	    --until 00000000-0000-4000-8000-000000000002 "$op"
	[[ "$output" == "$op	error: INVALID_CURSOR.POSITION_NOT_FOUND: "* ]]
	[[ "$stderr" == "sc-release: 1 of 1 failed: [INVALID_CURSOR.POSITION_NOT_FOUND] "* ]]
	run -0 --separate-stderr sc-release --session-id "$sid" "$op"
	[[ "$output" == "$op	"* ]]
	run -3 --separate-stderr sc-exec --session-id "$sid" --attach "$op"
	[[ "$stderr" == *"INVALID_HANDLE.OPERATION_NOT_FOUND"* ]]
	run -0 --separate-stderr sc-release --session-id "$sid" --session
	[ "$output" = "$sid	session released" ]
	run -3 --separate-stderr sc-release --session-id "$sid" --session
	[[ "$output" == "$sid	error: INVALID_HANDLE.SESSION_CLOSED: "* ]]
	run -1 --separate-stderr sc-exec --session-id "$sid" "SELECT 1"
	[[ "$stderr" == *"[INVALID_HANDLE.SESSION_CLOSED]"* ]]
}

@test "sc-upload: files, jars and pyfiles, batched, on Spark" {
	local sid d=$BATS_TEST_TMPDIR
	sid=$(new_sid)
	printf 'a,b\n1,2\n' >"$d/x.csv"
	printf 'print(1)\n' >"$d/m.py"
	head -c 5000 /dev/urandom >"$d/j.jar"
	run -0 --separate-stderr sc-upload --session-id "$sid" \
	    "$d/x.csv" "$d/m.py" "$d/j.jar"
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" == "files/x.csv	8	1	"*"	uploaded	$d/x.csv" ]]
	[[ "${lines[1]}" == "pyfiles/m.py	9	1	"*"	uploaded	$d/m.py" ]]
	[[ "${lines[2]}" == "jars/j.jar	5000	1	"*"	uploaded	$d/j.jar" ]]
}

@test "sc-upload: a chunked artifact, then --cache twice and --status on Spark" {
	local sid d=$BATS_TEST_TMPDIR sum
	sid=$(new_sid)
	head -c 300000 /dev/urandom >"$d/big.bin"
	sum=$(sha256sum "$d/big.bin" | cut -c1-64)
	run -0 --separate-stderr sc-upload --session-id "$sid" --chunk-size 16k \
	    --as files/big.bin "$d/big.bin"
	[[ "$output" == "files/big.bin	300000	19	"*"	uploaded	$d/big.bin" ]]
	run -0 --separate-stderr sc-upload --session-id "$sid" --cache "$d/big.bin"
	[[ "$output" == "cache/$sum	300000	"*"	uploaded	$d/big.bin" ]]
	run -0 --separate-stderr sc-upload --session-id "$sid" --cache "$d/big.bin"
	[[ "$output" == "cache/$sum	300000	0	"*"	cached	$d/big.bin" ]]
	# Spark's ArtifactStatus knows cache/ names only: it answers false
	# for files/big.bin, which it holds, so sc-upload does not ask.
	run -0 --separate-stderr "$PEERS_PY" -c '
import sys, grpc
import pyspark.sql.connect.proto as pb
from pyspark.sql.connect.proto import base_pb2_grpc
stub = base_pb2_grpc.SparkConnectServiceStub(grpc.insecure_channel(sys.argv[1]))
r = stub.ArtifactStatus(pb.ArtifactStatusesRequest(session_id=sys.argv[2],
    user_context=pb.UserContext(user_id=sys.argv[3]), names=sys.argv[4:]))
print(" ".join("%s=%s" % (n, r.statuses[n].exists) for n in sys.argv[4:]))
' "${SPARK_URL#sc://}" "$sid" "${USER:-${LOGNAME:-$(id -un)}}" files/big.bin "cache/$sum"
	[ "$output" = "files/big.bin=False cache/$sum=True" ]
	run -2 --separate-stderr sc-upload --session-id "$sid" --status files/big.bin
	[ "${stderr_lines[0]}" = "sc-upload: --status can only ask about cache/ names (servers answer false for any other): 'files/big.bin'" ]
	run -0 --separate-stderr sc-upload --session-id "$sid" --status "cache/$sum"
	[ "$output" = "cache/$sum	true" ]
	run -3 --separate-stderr sc-upload --session-id "$sid" --status \
	    "cache/$(printf x | sha256sum | cut -c1-64)"
	[[ "$output" == *"	false" ]]
}

@test "sc-upload: an upload through the cut proxy is re-sent and lands whole" {
	local sid d=$BATS_TEST_TMPDIR port
	sid=$(new_sid)
	head -c 2000000 /dev/urandom >"$d/big.bin"
	port=${SPARK_URL##*:}
	faultproxy -c 500000 -m 3 -T 300 "$port" >"$d/pport" 2>"$d/proxy.err" &
	PROXY_PID=$!
	wait_for test -s "$d/pport"
	run -0 --separate-stderr sc-upload --session-id "$sid" \
	    -s "sc://127.0.0.1:$(cat "$d/pport")" --cache "$d/big.bin"
	[[ "$output" == "cache/$(sha256sum "$d/big.bin" | cut -c1-64)	2000000	"*"	uploaded	$d/big.bin" ]]
}

# crc_proxy PORT [--flip N]: test/tools/crc-proxy.py in front of PORT,
# spoiling the Nth piece of artifact data once; CPORT is its port.
crc_proxy() {
	local port=$1
	shift
	rm -f "$BATS_TEST_TMPDIR/cport"
	"$PEERS_PY" "$SCTK_TOP/test/tools/crc-proxy.py" --timeout 300 "$@" \
	    "$port" >"$BATS_TEST_TMPDIR/cport" 2>"$BATS_TEST_TMPDIR/cproxy.err" 3>&- &
	PROXY_PID=$!
	wait_for test -s "$BATS_TEST_TMPDIR/cport"
	CPORT=$(cat "$BATS_TEST_TMPDIR/cport")
}

@test "sc-upload: a chunk spoiled by the proxy fails Spark's CRC check, is sent again and lands whole" {
	local sid d=$BATS_TEST_TMPDIR sum
	sid=$(new_sid)
	head -c 300000 /dev/urandom >"$d/big.bin"
	sum=$(sha256sum "$d/big.bin" | cut -c1-64)
	crc_proxy "${SPARK_URL##*:}" --flip 3
	run -0 --separate-stderr sc-upload -v -s "sc://127.0.0.1:$CPORT" \
	    --session-id "$sid" --chunk-size 64k --cache "$d/big.bin"
	[[ "$output" == "cache/$sum	300000	5	"*"	uploaded	$d/big.bin" ]]
	[ "$stderr" = "sc-upload: the server found a CRC mismatch in 'cache/$sum', sending it again (1 of 3)" ]
	[ "$(cat "$d/cproxy.err")" = "crc-proxy: flipped a byte of a later chunk" ]
	# Spark holds it, whole: asked directly, and a second --cache sends
	# nothing.
	run -0 --separate-stderr sc-upload --session-id "$sid" --status "cache/$sum"
	[ "$output" = "cache/$sum	true" ]
	run -0 --separate-stderr sc-upload --session-id "$sid" --cache "$d/big.bin"
	[[ "$output" == "cache/$sum	300000	0	"*"	cached	$d/big.bin" ]]
}

@test "sc-upload: a batched artifact spoiled by the proxy is sent again on Spark" {
	local sid d=$BATS_TEST_TMPDIR sum
	sid=$(new_sid)
	head -c 5000 /dev/urandom >"$d/small.bin"
	sum=$(sha256sum "$d/small.bin" | cut -c1-64)
	crc_proxy "${SPARK_URL##*:}"
	run -0 --separate-stderr sc-upload -v -s "sc://127.0.0.1:$CPORT" \
	    --session-id "$sid" --cache "$d/small.bin"
	[[ "$output" == "cache/$sum	5000	1	"*"	uploaded	$d/small.bin" ]]
	[ "$stderr" = "sc-upload: the server found a CRC mismatch in 'cache/$sum', sending it again (1 of 3)" ]
	[ "$(cat "$d/cproxy.err")" = "crc-proxy: flipped a byte of 'cache/$sum' (batched)" ]
	run -0 --separate-stderr sc-upload --session-id "$sid" --status "cache/$sum"
	[ "$output" = "cache/$sum	true" ]
}

@test "sc-upload: the same spoiled chunks on sc-serve: sent again, the stored bytes are the file's" {
	local sid d=$BATS_TEST_TMPDIR sum f
	sid=$(new_sid)
	peer_serve_start "$d/serve" --artifact-dir "$d/art"
	head -c 300000 /dev/urandom >"$d/big.bin"
	head -c 5000 /dev/urandom >"$d/small.bin"
	sum=$(sha256sum "$d/big.bin" | cut -c1-64)
	local n
	for n in 1 3; do
		crc_proxy "$(sed 's/.*://' "$d/serve/remote")" --flip "$n"
		run -0 --separate-stderr sc-upload -v -s "sc://127.0.0.1:$CPORT" \
		    --session-id "$sid" --chunk-size 64k --as "files/big$n.bin" \
		    "$d/big.bin"
		[[ "$output" == "files/big$n.bin	300000	5	"*"	uploaded	$d/big.bin" ]]
		[ "$stderr" = "sc-upload: the server found a CRC mismatch in 'files/big$n.bin', sending it again (1 of 3)" ]
		kill -TERM "$PROXY_PID"
		wait "$PROXY_PID" || true
		PROXY_PID=
		f=$(find "$d/art" -path "*/files/big$n.bin")
		cmp "$f" "$d/big.bin"
	done
	crc_proxy "$(sed 's/.*://' "$d/serve/remote")"
	run -0 --separate-stderr sc-upload -v -s "sc://127.0.0.1:$CPORT" \
	    --session-id "$sid" --cache "$d/big.bin" "$d/small.bin"
	[ "${lines[0]%%	*}" = "cache/$sum" ]
	[[ "$stderr" == "sc-upload: the server found a CRC mismatch in 'cache/$sum', sending it again (1 of 3)" ]]
	run -0 --separate-stderr sc-upload -s "$(cat "$d/serve/remote")" \
	    --session-id "$sid" --status "cache/$sum"
	[ "$output" = "cache/$sum	true" ]
	cmp "$(find "$d/art" -path "*/cache/$sum")" "$d/big.bin"
}

@test "sc-inspect: Spark has no admin service: a clear message and exit 7" {
	run -7 --separate-stderr sc-inspect -s "$SPARK_URL"
	[ "$stderr" = "sc-inspect: the server at '$SPARK_URL' has no sctk admin service (not sc-serve?)" ]
	run -7 --separate-stderr sc-inspect -s "$SPARK_URL" sessions
}
