#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 20-sc-exec-basic: sc-exec against a private sc-serve: what it runs (SQL
# operand, -f, stdin, several statements, --range, --plan, --analyze),
# every output option, the connection options, and every exit code.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

setup_file() {
	sc_server_start
}

teardown_file() {
	sc_server_stop
}

teardown() {
	[ -n "${OTHER_PID:-}" ] && kill -9 "$OTHER_PID" 2>/dev/null
	OTHER_PID=
	true
}

# helpers/common unsets SPARK_REMOTE for every test: point it back at
# this file's server.
setup() {
	sc_server_env
}

# ---------------------------------------------------------------- usage

@test "-h prints the usage on stdout and exits 0" {
	run -0 --separate-stderr sc-exec -h
	[[ "${lines[0]}" == "usage: sc-exec [-hqVv] [--analyze] [--detach]"* ]]
	[[ "$output" == *"--watchdog time"* ]]
	[ -z "$stderr" ]
}

@test "-V prints the version" {
	run -0 sc-exec -V
	[[ "$output" =~ ^sc-exec\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "usage errors exit 2 with the reason and a hint on stderr" {
	run -2 --separate-stderr sc-exec 'SELECT 1' --range 0:1
	[ "${stderr_lines[0]}" = "sc-exec: give only one of SQL, -f, --range, --plan and --attach" ]
	run -2 --separate-stderr sc-exec 'SELECT 1' 'SELECT 2'
	[ "${stderr_lines[0]}" = "sc-exec: too many operands (quote the SQL as one argument)" ]
	run -2 --separate-stderr sc-exec --range 5
	[ "${stderr_lines[0]}" = "sc-exec: invalid range '5': expected start:end[:step] with a non-zero step" ]
	run -2 --separate-stderr sc-exec --range 0:5:0
	[ "${stderr_lines[0]}" = "sc-exec: invalid range '0:5:0': expected start:end[:step] with a non-zero step" ]
	run -2 --separate-stderr sc-exec --range 0:99999999999999999999
	[ "${stderr_lines[0]}" = "sc-exec: invalid range '0:99999999999999999999': 99999999999999999999 is out of range (a 64-bit integer)" ]
	[ "${stderr_lines[1]}" = "try 'sc-exec --help'" ]
	run -2 --separate-stderr sc-exec --format xml 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: invalid format 'xml': expected table, vertical, csv, tsv, jsonl or arrow" ]
	run -2 --separate-stderr sc-exec --operation-id nope 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: invalid operation id 'nope': not a UUID" ]
	run -2 --separate-stderr sc-exec --session-id nope 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: invalid session id 'nope': not a UUID" ]
	run -2 --separate-stderr sc-exec --tag 'a,b' 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: invalid tag 'a,b': must be non-empty without ','" ]
	run -2 --separate-stderr sc-exec --max-rows 0 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: invalid --max-rows: '0' is too small" ]
	run -2 --separate-stderr sc-exec --watchdog soon 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: invalid --watchdog: 'soon' is not a duration" ]
	run -2 --separate-stderr sc-exec -H novalue 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: invalid header 'novalue': expected key=value" ]
	run -2 --separate-stderr sc-exec --after 00000000-0000-4000-8000-000000000000 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: --after needs --attach" ]
	run -2 --separate-stderr sc-exec --after x --attach 00000000-0000-4000-8000-000000000000
	[ "${stderr_lines[0]}" = "sc-exec: invalid response id 'x': not a UUID" ]
	# E12: --analyze prints no rows, so a row limit is a mistake.
	run -2 --separate-stderr sc-exec --analyze --max-rows 1 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: cannot use --analyze and --max-rows (--analyze prints the schema, no rows)" ]
	run -2 --separate-stderr sc-exec --detach --no-reattach 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: cannot use --detach and --no-reattach" ]
	run -2 --separate-stderr sc-exec --format arrow --max-rows 3 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: cannot use --max-rows and --format arrow" ]
	run -2 --separate-stderr sc-exec --attach 00000000-0000-4000-8000-000000000000
	[ "${stderr_lines[0]}" = "sc-exec: --attach needs the operation's session id (--session-id or session_id= in the URI)" ]
	run -2 --separate-stderr sc-exec --no-such-option
	[ "${stderr_lines[1]}" = "try 'sc-exec --help'" ]
}

@test "a bad server address is a usage error" {
	run -2 --separate-stderr sc-exec -s 'http://x' 'SELECT 1'
	[[ "$stderr" == "sc-exec: "* ]]
}

@test "empty SQL runs nothing and succeeds" {
	run -0 --separate-stderr sc-exec ' ; -- nothing ;'
	[ -z "$output$stderr" ]
}

# ---------------------------------------------------------------- input

@test "SQL operand, CSV by default when stdout is not a terminal" {
	run -0 --separate-stderr sc-exec "SELECT 1 AS a, 'x' AS b"
	[ "$output" = "$(printf 'a,b\n1,x')" ]
	[ -z "$stderr" ]
}

@test "several statements run in order in one session" {
	run -0 --separate-stderr sc-exec "CREATE TABLE t1 (a BIGINT);
	    INSERT INTO t1 VALUES (1), (2); -- a comment; not a split
	    SELECT a, 'x;y' AS s FROM t1 ORDER BY a /* ; */"
	[ "$output" = "$(printf 'a,s\n1,x;y\n2,x;y')" ]
	run -0 sc-exec 'SELECT 1 AS `a;b`; SELECT "c;d" AS e;;'
	[ "$output" = "$(printf 'a;b\n1\ne\nc;d')" ]
}

@test "a plain query is one operation; a command still runs as a command" {
	local sid log="$BATS_FILE_TMPDIR/server.log"
	sid=$(cat /proc/sys/kernel/random/uuid)
	run -0 --separate-stderr sc-exec --session-id "$sid" \
	    " -- q
	    /* q */ select 2 AS a UNION ALL SELECT 3 ORDER BY a"
	[ "$output" = "$(printf 'a\n2\n3')" ]
	[ "$(grep -c "started: session $sid " "$log")" -eq 1 ]
	sid=$(cat /proc/sys/kernel/random/uuid)
	run -0 --separate-stderr sc-exec --session-id "$sid" \
	    "CREATE TABLE t_one (a BIGINT); INSERT INTO t_one VALUES (7);
	    WITH w AS (SELECT a FROM t_one) SELECT a FROM w"
	[ "$output" = "$(printf 'a\n7')" ]
	# Two commands, and WITH as spark.sql() sends it: command, query.
	[ "$(grep -c "started: session $sid " "$log")" -eq 4 ]
}

@test "-f file, -f - and - read the SQL" {
	printf 'SELECT 7 AS n;\n' >"$BATS_TEST_TMPDIR/q.sql"
	run -0 sc-exec -f "$BATS_TEST_TMPDIR/q.sql"
	[ "$output" = "$(printf 'n\n7')" ]
	run -0 sc-exec -f - <"$BATS_TEST_TMPDIR/q.sql"
	[ "$output" = "$(printf 'n\n7')" ]
	run -0 sc-exec - <"$BATS_TEST_TMPDIR/q.sql"
	[ "$output" = "$(printf 'n\n7')" ]
	run -9 --separate-stderr sc-exec -f "$BATS_TEST_TMPDIR/missing.sql"
	[ "$stderr" = "sc-exec: cannot open '$BATS_TEST_TMPDIR/missing.sql': No such file or directory" ]
}

@test "--range streams a Range relation" {
	run -0 sc-exec --range 0:5
	[ "$output" = "$(printf 'id\n0\n1\n2\n3\n4')" ]
	run -0 sc-exec --no-header --range 10:0:-3
	[ "$output" = "$(printf '10\n7\n4\n1')" ]
}

@test "--range over several Arrow batches" {
	run -0 sc-exec --no-header --range 0:25000
	[ "${#lines[@]}" -eq 25000 ]
	[ "$output" = "$(seq 0 24999)" ]
}

@test "--plan runs a serialized spark.connect.Plan" {
	# Plan{root: Relation{range{end: 5, step: 1}}}
	printf '\x0a\x06\x7a\x04\x10\x05\x18\x01' >"$BATS_TEST_TMPDIR/p.bin"
	run -0 sc-exec --plan "$BATS_TEST_TMPDIR/p.bin"
	[ "$output" = "$(printf 'id\n0\n1\n2\n3\n4')" ]
	printf 'garbage' >"$BATS_TEST_TMPDIR/bad.bin"
	run -2 --separate-stderr sc-exec --plan "$BATS_TEST_TMPDIR/bad.bin"
	[ "$stderr" = "sc-exec: '$BATS_TEST_TMPDIR/bad.bin' is not a serialized spark.connect.Plan" ]
}

@test "--analyze prints the schema without running" {
	run -0 sc-exec --analyze --range 0:3
	[ "$output" = "$(printf 'name,type,nullable\nid,bigint,false')" ]
	run -0 sc-exec --analyze --format jsonl --range 0:3
	[ "$output" = '{"name":"id","type":"bigint","nullable":false}' ]
}

# --------------------------------------------------------------- output

@test "--format tsv, jsonl and table" {
	run -0 sc-exec --format tsv "SELECT 1 AS a, 'p q' AS b"
	[ "$output" = "$(printf 'a\tb\n1\tp q')" ]
	run -0 sc-exec --format jsonl "SELECT 1 AS a, 'p' AS b, NULL AS c"
	[ "$output" = '{"a":1,"b":"p","c":null}' ]
	run -0 sc-exec --format table --range 0:3
	[ "$output" = "$(printf 'id\n--\n 0\n 1\n 2')" ]
}

@test "typed columns in CSV, TSV and JSON lines" {
	local q="CREATE OR REPLACE TABLE ty (i INT, l BIGINT, d DOUBLE, dt DATE,
	    ts TIMESTAMP, dec DECIMAL(5,2), b BOOLEAN, bin BINARY, s STRING);
	    INSERT INTO ty VALUES (1, 9007199254740993, 0.1, '2024-01-02',
	    '2024-01-02 03:04:05.5', 12.3, 1, X'0aff', 'a,\"b'),
	    (NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, '');
	    SELECT * FROM ty"
	run -0 sc-exec --format jsonl "$q"
	[ "${lines[0]}" = '{"i":1,"l":9007199254740993,"d":0.1,"dt":"2024-01-02","ts":"2024-01-02 03:04:05.5","dec":12.30,"b":true,"bin":"0aff","s":"a,\"b"}' ]
	[ "${lines[1]}" = '{"i":null,"l":null,"d":null,"dt":null,"ts":null,"dec":null,"b":false,"bin":null,"s":""}' ]
	run -0 sc-exec --format csv "$q"
	[ "${lines[1]}" = '1,9007199254740993,0.1,2024-01-02,2024-01-02 03:04:05.5,12.30,true,0aff,"a,""b"' ]
	[ "${lines[2]}" = ',,,,,,false,,""' ]
	run -0 sc-exec --format=CSV --no-header 'SELECT 1 AS a, 2 AS b'
	[ "$output" = "1,2" ]
	run -0 sc-exec --format tsv --no-header "$q"
	[ "${lines[0]}" = "$(printf '1\t9007199254740993\t0.1\t2024-01-02\t2024-01-02 03:04:05.5\t12.30\ttrue\t0aff\ta,"b')" ]
}

@test "--analyze of SQL" {
	run -0 sc-exec --analyze "SELECT 'x' AS s, 1.5 AS d"
	[ "$output" = "$(printf 'name,type,nullable\ns,string,false\nd,"decimal(2,1)",false')" ]
}

@test "-q hides warnings; --no-progress wins over --progress" {
	# -q hides everything but errors, except where to attach a detached
	# operation: nothing else could tell.
	run -0 --separate-stderr sc-exec -q --detach 'SELECT 1'
	[[ "$stderr" == "sc-exec: operation $output runs detached in new session "* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run -0 --separate-stderr sc-exec --progress --no-progress --range 0:3
	[ -z "$stderr" ]
}

@test "--header, --no-header and --null" {
	run -0 sc-exec --no-header "SELECT 1 AS a"
	[ "$output" = "1" ]
	run -0 sc-exec --header --null NA "SELECT NULL AS a, 2 AS b"
	[ "$output" = "$(printf 'a,b\nNA,2')" ]
}

@test "--max-rows stops early, says so, and exits 0" {
	run -0 --separate-stderr sc-exec --no-header --max-rows 3 --range 0:100000
	[ "$output" = "$(printf '0\n1\n2')" ]
	[ "$stderr" = "sc-exec: range: output cut at 3 rows (--max-rows)" ]
	run -0 --separate-stderr sc-exec -q --no-header --max-rows 3 --range 0:100000
	[ "$output" = "$(printf '0\n1\n2')" ]
	[ -z "$stderr" ]
	# Exactly as many rows as the limit, over two batches: nothing cut.
	run -0 --separate-stderr sc-exec --no-header --max-rows 3 --range 0:3
	[ "$output" = "$(printf '0\n1\n2')" ]
	[ -z "$stderr" ]
	run -0 --separate-stderr sc-exec --no-header --max-rows 10000 --range 0:10000
	[ "${#lines[@]}" -eq 10000 ]
	[ -z "$stderr" ]
	run -0 --separate-stderr sc-exec --no-header --max-rows 10000 --range 0:10001
	[ "${#lines[@]}" -eq 10000 ]
	[ "$stderr" = "sc-exec: range: output cut at 10000 rows (--max-rows)" ]
}

@test "--format arrow writes one IPC stream: schema, batches, one EOS" {
	sc-exec --format arrow --range 0:25000 >"$BATS_TEST_TMPDIR/r.arrow"
	run -0 od -An -tx1 -N4 "$BATS_TEST_TMPDIR/r.arrow"
	[ "$(echo $output)" = "ff ff ff ff" ]
	run -0 bash -c "tail -c 8 '$BATS_TEST_TMPDIR/r.arrow' | od -An -tx1"
	[ "$(echo $output)" = "ff ff ff ff 00 00 00 00" ]
	# Exactly one end-of-stream marker and one schema.
	run -0 bash -c "od -An -v -tx1 -w8 '$BATS_TEST_TMPDIR/r.arrow' |
	    grep -c '^ ff ff ff ff 00 00 00 00$'"
	[ "$output" = 1 ]
	need_node
	run -0 --separate-stderr node "$SCTK_TOP/test/conformance/arrow-interop.js" read \
	    <"$BATS_TEST_TMPDIR/r.arrow"
	[ "${#lines[@]}" -eq 25000 ]
}

@test "--progress goes to stderr only; into a log, plain lines ending with the totals" {
	run -0 --separate-stderr sc-exec --progress --no-header --range 0:20000
	[ "${#lines[@]}" -eq 20000 ]
	[[ "$output" != *rows* ]]
	# Not a terminal: no escapes, and the last line has every row.
	[[ "$stderr" != *$'\e'* && "$stderr" != *$'\r'* ]]
	[[ "${stderr_lines[-1]}" =~ ^sc-exec:\ 20000\ rows\ \ [0-9.]+\ KiB\ \  ]]
}

@test "write errors exit 9" {
	run -9 bash -c 'sc-exec --range 0:100000 >/dev/full'
	[ "$output" = "sc-exec: cannot write output: No space left on device" ]
	run -9 bash -c 'sc-exec --format arrow --range 0:100000 >/dev/full'
	[ "$output" = "sc-exec: cannot write output: No space left on device" ]
	# An id that cannot be written is an operation nobody can attach
	# to: the reason is the disk's, and the operation is released.
	run -9 bash -c 'sc-exec -v --detach "SELECT 1" >/dev/full'
	[[ "$output" == *"released: ReleaseAll of operation "* ]]
	[ "${lines[-1]}" = "sc-exec: cannot write the operation id: No space left on device" ]
}

@test "a closed standard output is EBADF, never the next file opened" {
	run -9 bash -c 'sc-exec --range 0:3 >&-'
	[ "$output" = "sc-exec: cannot write output: Bad file descriptor" ]
	run -9 bash -c 'sc-exec --version >&-'
	[ "$output" = "sc-exec: cannot write standard output: Bad file descriptor" ]
	# A closed standard input reads as empty, not as gRPC's descriptors.
	run -0 bash -c 'sc-exec --no-header "SELECT 5 AS five" <&-'
	[ "$output" = 5 ]
}

@test "a closed pipe ends sc-exec quietly by SIGPIPE" {
	run -0 bash -c 'sc-exec --no-header --range 0:10000000 | head -1;
	    echo "status ${PIPESTATUS[0]}"'
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = "status 141" ]
}

# ------------------------------------------------------------ operations

@test "-v logs the operation, its completion and its release" {
	run -0 --separate-stderr sc-exec -v --range 0:3
	[[ "$stderr" =~ sc-exec:\ executing\ operation\ [0-9a-f-]{36} ]]
	[[ "$stderr" == *"complete after"* ]]
	[[ "$stderr" == *"released: ReleaseAll of operation "* ]]
}

@test "--operation-id is used, and a reused id is refused" {
	local id=5b0c1d2e-3f40-4a5b-8c6d-7e8f9a0b1c2d
	local sid=5b0c1d2e-3f40-4a5b-8c6d-000000000001
	run -0 --separate-stderr sc-exec -v --session-id "$sid" \
	    --operation-id "$id" --range 0:1
	[[ "$stderr" == *"executing operation $id"* ]]
	run -1 --separate-stderr sc-exec --session-id "$sid" \
	    --operation-id "$id" --range 0:1
	[[ "$stderr" == "sc-exec: [INVALID_HANDLE.OPERATION_ALREADY_EXISTS]"* ]]
	run -2 --separate-stderr sc-exec --operation-id "$id" 'SELECT 1; SELECT 2'
	[ "$stderr" = "sc-exec: --detach and --operation-id need a single statement, not 2" ]
}

@test "a session sc-exec made up ends with the run, unless detached into" {
	local before after sid
	before=$(sc-inspect --no-header --fields session_id sessions | sort)
	run -0 sc-exec 'CREATE TEMP VIEW v AS SELECT 1 AS a; SELECT a FROM v'
	[ "$output" = "$(printf 'a\n1')" ]
	after=$(sc-inspect --no-header --fields session_id sessions | sort)
	[ "$after" = "$before" ]
	# A session named by the user is the user's: it stays.
	sid=$(cat /proc/sys/kernel/random/uuid)
	run -0 sc-exec --session-id "$sid" 'SELECT 1'
	run -0 sc-inspect --no-header --fields session_id --session "$sid" sessions
	[ "$output" = "$sid" ]
	# --detach leaves its operation in the new session: it stays too.
	run -0 sc-exec -q --detach 'SELECT 2'
	after=$(sc-inspect --no-header --fields session_id sessions | sort)
	[ "$(comm -13 <(echo "$before") <(echo "$after") | wc -l)" -eq 2 ]
}

@test "--tag, -H, --user-id and --session-id are accepted" {
	run -0 sc-exec --tag nightly --tag etl -H x-trace=abc --user-id bob \
	    --session-id 0f0e0d0c-0b0a-4908-8706-050403020100 --range 0:2
	[ "$output" = "$(printf 'id\n0\n1')" ]
}

@test "--no-reattach runs without reattachable execution" {
	run -0 --separate-stderr sc-exec -v --no-reattach --no-header --range 0:20000
	[ "${#lines[@]}" -eq 20000 ]
	[[ "$stderr" != *"attaching"* ]]
	[[ "$stderr" != *"ReleaseAll"* ]]
}

# ------------------------------------------------------------ exit codes

@test "a server-reported error exits 1 with its class and message" {
	run -1 --separate-stderr sc-exec 'SELECT * FROM no_such_table'
	[[ "$stderr" == "sc-exec: [TABLE_OR_VIEW_NOT_FOUND] "* ]]
	[ -z "$output" ]
	run -1 --separate-stderr sc-exec 'SELEKT 1'
	[[ "$stderr" == "sc-exec: [PARSE_SYNTAX_ERROR] "* ]]
}

@test "a statement failing stops the script" {
	run -1 --separate-stderr sc-exec "SELECT 1 AS a; SELECT * FROM nope; SELECT 3 AS c"
	[ "$output" = "$(printf 'a\n1')" ]
	[[ "${stderr_lines[0]}" == "sc-exec: statement 2: [TABLE_OR_VIEW_NOT_FOUND] "* ]]
}

@test "an unknown operation exits 3" {
	run -3 --separate-stderr sc-exec --session-id 0f0e0d0c-0b0a-4908-8706-050403020101 \
	    --attach 11111111-2222-4333-8444-555555555555
	[[ "$stderr" == *"INVALID_HANDLE."* ]]
}

@test "an unreachable server exits 4, quickly" {
	local start=$SECONDS
	run -4 --separate-stderr sc-exec -s sc://127.0.0.1:1 'SELECT 1'
	[[ "$stderr" == "sc-exec: "*"(gave up after 3 retries in "[0-9]*"s)" ]]
	# Not Spark's ten minutes of retries.
	[ $((SECONDS - start)) -lt 60 ]
	run -4 --separate-stderr sc-exec --max-retries 0 -s sc://127.0.0.1:1 'SELECT 1'
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "the timeout exits 5 and the query is cancelled" {
	run -5 --separate-stderr sc-exec -t 1s \
	    'SELECT count(*) FROM range(1000000000000)'
	[[ "$stderr" == "sc-exec: operation "*" timed out (the --timeout of 1s passed)" ]]
}

@test "the watchdog reattaches, then gives up with exit 5" {
	run -5 --separate-stderr sc-exec -v --watchdog 300ms --max-retries 2 \
	    'SELECT count(*) FROM range(1000000000000)'
	[[ "$stderr" == *"sc-exec: no progress, reattaching in 0.05s (attempt 1 of 2)"* ]]
	[[ "$stderr" == *"sc-exec: no progress, reattaching in 0.2s (attempt 2 of 2)"* ]]
	[[ "$stderr" == *"attaching to operation "* ]]
}

@test "the segment timeout reattaches, then gives up with exit 5" {
	run -5 --separate-stderr sc-exec -v --segment-timeout 300ms --watchdog 0 --max-retries 1 \
	    'SELECT count(*) FROM range(1000000000000)'
	[[ "$stderr" == *"sc-exec: no response in time, reattaching in 0.05s (attempt 1 of 1)"* ]]
}

# --------------------------------------------------- token, TLS, CA file


@test "--token: accepted, missing or wrong exits 8" {
	start_other --token s3cret
	run -0 sc-exec -s "$OTHER" --token s3cret --range 0:2
	[ "$output" = "$(printf 'id\n0\n1')" ]
	run -0 sc-exec -s "$OTHER;token=s3cret" --range 0:1
	run -8 --separate-stderr sc-exec -s "$OTHER" --range 0:2
	[[ "$stderr" == "sc-exec: "* ]]
	run -8 --separate-stderr sc-exec -s "$OTHER" --token wrong --range 0:2
	stop_other
}

@test "--tls with --ca-file; an untrusted certificate exits 8, plain text 7" {
	command -v openssl >/dev/null || skip "openssl is not installed"
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
	    -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
	    -keyout "$BATS_TEST_TMPDIR/key.pem" -out "$BATS_TEST_TMPDIR/cert.pem" \
	    2>/dev/null
	start_other --tls-cert "$BATS_TEST_TMPDIR/cert.pem" \
	    --tls-key "$BATS_TEST_TMPDIR/key.pem"
	run -0 sc-exec -s "$OTHER" --tls --ca-file "$BATS_TEST_TMPDIR/cert.pem" \
	    --range 0:2
	[ "$output" = "$(printf 'id\n0\n1')" ]
	run -8 --separate-stderr sc-exec -s "$OTHER" --tls --range 0:2
	run -7 --separate-stderr sc-exec -s "${OTHER%/;use_ssl=true}" --range 0:2
	stop_other
}

# B12: SQL text that opens with a "--" comment line is the SQL operand,
# not an unknown option: no option name holds white space.
@test "SQL starting with a -- comment is SQL, wherever it stands among the options" {
	run -0 --separate-stderr sc-exec --format csv $'-- just a comment\nSELECT 1 AS a'
	[ "$output" = $'a\n1' ]
	run -0 --separate-stderr sc-exec $'--no space after the dashes\nSELECT 2 AS b' --format csv --no-header
	[ "$output" = 2 ]
	run -2 --separate-stderr sc-exec $'-- c\nSELECT 1' $'-- d\nSELECT 2'
	[ "${stderr_lines[0]}" = "sc-exec: too many operands (quote the SQL as one argument)" ]
	# Options themselves are unchanged, values with spaces included.
	run -2 --separate-stderr sc-exec --bogus 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: unknown option '--bogus'" ]
	run -0 --separate-stderr sc-exec --format csv --null='no value' 'SELECT NULL AS n'
	[ "$output" = $'n\nno value' ]
}

# N17: the rows a DML statement changed, as psql's command tags say them
# ("DELETE 60"): sc-serve counts them in a metric of its own (Spark sends
# none, so against Spark nothing is shown); on a terminal a line of its
# own, with -v in the statement's line, never in CSV output.
@test "DML statements say how many rows they changed: DELETE 60" {
	local sid
	sid=$(cat /proc/sys/kernel/random/uuid)
	run -0 --separate-stderr sc-exec -v --session-id "$sid" --format csv \
	    "CREATE TABLE dml17 AS SELECT id FROM range(160); DELETE FROM dml17 WHERE id < 60; /* c */ UPDATE dml17 SET id = id + 1000 WHERE id < 70; INSERT INTO dml17 VALUES (1), (2); DELETE FROM dml17 WHERE id < 0; SELECT count(*) AS n FROM dml17"
	[ "$output" = $'n\n102' ]
	grep -qxE 'sc-exec: statement 1: 0 rows, .*' <<<"$stderr"
	grep -qxE 'sc-exec: statement 2: DELETE 60, 0 rows, .*' <<<"$stderr"
	grep -qxE 'sc-exec: statement 3: UPDATE 10, 0 rows, .*' <<<"$stderr"
	grep -qxE 'sc-exec: statement 4: INSERT 2, 0 rows, .*' <<<"$stderr"
	grep -qxE 'sc-exec: statement 5: DELETE 0, 0 rows, .*' <<<"$stderr"
	grep -qxE 'sc-exec: statement 6: 1 row, .*' <<<"$stderr"
}
