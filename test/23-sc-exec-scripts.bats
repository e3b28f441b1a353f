#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 23-sc-exec-scripts: SQL scripts as cron jobs run them: several -f in
# order, --max-rows that never skips a statement, errors that say where
# they happened, parameters bound as literals, -o written whole or not
# at all, empty scripts that succeed, and text a server would misread
# refused.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

setup_file() {
	sc_server_start
}

teardown_file() {
	sc_server_stop
}

setup() {
	sc_server_env
	T=$BATS_TEST_TMPDIR
}

# one_value SQL: the single value a query returns.
one_value() {
	sc-exec --format csv --no-header "$1"
}

# ------------------------------------------------------------ -f files

@test "-f a.sql -f b.sql runs both files, in order" {
	printf 'CREATE TABLE f_order (k INT, src STRING);\nINSERT INTO f_order VALUES (1, '"'a'"');\n' >"$T/a.sql"
	printf "INSERT INTO f_order VALUES (2, 'b');\nSELECT src AS s FROM f_order ORDER BY k;\n" >"$T/b.sql"
	run -0 --separate-stderr sc-exec --format csv -f "$T/a.sql" -f "$T/b.sql"
	[ "$output" = "$(printf 's\na\nb')" ]
	[ -z "$stderr" ]
}

@test "a missing -f file runs nothing at all" {
	printf 'CREATE TABLE f_missing (x INT);\n' >"$T/a.sql"
	run -9 --separate-stderr sc-exec -f "$T/a.sql" -f "$T/nope.sql"
	[ "$stderr" = "sc-exec: cannot open '$T/nope.sql': No such file or directory" ]
	run -1 --separate-stderr sc-exec 'SELECT * FROM f_missing'
	[[ "$stderr" == *TABLE_OR_VIEW_NOT_FOUND* ]]
}

# ------------------------------------------------------------ --max-rows

@test "--max-rows cuts each result and never skips a statement" {
	run -0 --separate-stderr sc-exec --format csv --max-rows 2 \
	    "CREATE TABLE mr (x INT); SELECT id FROM range(5); INSERT INTO mr VALUES (7); SELECT id * 10 AS t FROM range(5); SELECT count(*) AS n FROM mr"
	[ "$output" = "$(printf 'id\n0\n1\nt\n0\n10\nn\n1')" ]
	[ "$(one_value 'SELECT x FROM mr')" = 7 ]
	# Each cut result is named; the count of 1 row was not cut.
	[ "$stderr" = "$(printf 'sc-exec: statement 2: output cut at 2 rows (--max-rows)\nsc-exec: statement 4: output cut at 2 rows (--max-rows)')" ]
}

# ------------------------------------------------------------ --conf

@test "--conf sets session settings before the statements run" {
	run -0 --separate-stderr sc-exec --format csv --no-header \
	    --conf spark.sql.shuffle.partitions=7 \
	    --conf spark.sql.session.localRelationCacheThreshold=1024 \
	    "SET spark.sql.shuffle.partitions; SET spark.sql.session.localRelationCacheThreshold"
	[ "$output" = "$(printf 'spark.sql.shuffle.partitions,7\nspark.sql.session.localRelationCacheThreshold,1024')" ]
	# A setting the server refuses: its class, exit 1, nothing runs.
	run -1 --separate-stderr sc-exec --conf spark.sql.timestampType=TIMESTAMP_NTZ \
	    "CREATE TABLE conf_t (x INT)"
	[[ "$stderr" == "sc-exec: [UNSUPPORTED_FEATURE.SET_CONFIG] "* ]]
	run -1 --separate-stderr sc-exec "SELECT * FROM conf_t"
	[[ "$stderr" == "sc-exec: [TABLE_OR_VIEW_NOT_FOUND] "* ]]
	run -2 --separate-stderr sc-exec --conf nokey "SELECT 1"
	[ "$stderr" = "$(printf "sc-exec: invalid --conf 'nokey': expected key=value\ntry 'sc-exec --help'")" ]
}

# ------------------------------------------------------ where it failed

@test "an error names file, line and statement, and what ran" {
	printf 'SELECT 1 AS a;\n\n-- the next one is wrong\nSELECT\n  id\n  frm range(3);\nSELECT 3 AS c;\n' >"$T/err3.sql"
	run -1 --separate-stderr sc-exec --format csv -f "$T/err3.sql"
	[ "$output" = "$(printf 'a\n1')" ]
	[[ "${stderr_lines[0]}" == "sc-exec: $T/err3.sql:4: statement 2: [PARSE_SYNTAX_ERROR] "* ]]
	[ "${stderr_lines[1]}" = "sc-exec: 1 of 3 statements ran before it, 1 did not run" ]
	[ "${#stderr_lines[@]}" -eq 2 ]
}

@test "the location counts across files and reads <stdin> for standard input" {
	printf 'SELECT 1 AS a;\nSELECT 2 AS b;\n' >"$T/ok.sql"
	run -1 --separate-stderr sc-exec -f "$T/ok.sql" -f - \
	    <<<$'SELECT 3 AS c;\n\n  SELECT * FROM no_table;'
	[[ "${stderr_lines[0]}" == "sc-exec: <stdin>:3: statement 2: [TABLE_OR_VIEW_NOT_FOUND] "* ]]
	[ "${stderr_lines[1]}" = "sc-exec: 3 of 4 statements ran before it, 0 did not run" ]
}

@test "statements of the operand are numbered, but not the first" {
	run -1 --separate-stderr sc-exec 'SELECT 1 AS a; SELECT * FROM no_table; SELECT 2'
	[[ "${stderr_lines[0]}" == "sc-exec: statement 2: [TABLE_OR_VIEW_NOT_FOUND] "* ]]
	[ "${stderr_lines[1]}" = "sc-exec: 1 of 3 statements ran before it, 1 did not run" ]
	run -1 --separate-stderr sc-exec 'SELECT * FROM no_table'
	[[ "$stderr" == "sc-exec: [TABLE_OR_VIEW_NOT_FOUND] "* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	# Nor the first of several: nothing ran, and it reads as one.
	run -1 --separate-stderr sc-exec 'SELECT * FROM no_table; SELECT 2'
	[[ "$stderr" == "sc-exec: [TABLE_OR_VIEW_NOT_FOUND] "* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

# ----------------------------------------------------------- parameters

@test "--param binds named parameters as literals, never as SQL text" {
	run -0 sc-exec 'CREATE TABLE victims (x INT)'
	local evil="x'); DROP TABLE victims; --"
	run -0 --separate-stderr sc-exec --format csv --no-header \
	    --param "s=$evil" --param n=int:2 \
	    'SELECT :s AS s, id FROM range(5) WHERE id < :n'
	[ "$output" = "$(printf '%s\n' "$evil,0" "$evil,1")" ]
	run -0 sc-exec --format csv --no-header 'SELECT count(*) FROM victims'
	[ "$output" = 0 ]
}

@test "--param types: int, bigint, double, decimal, boolean, date, timestamp" {
	run -0 --separate-stderr sc-exec --format jsonl \
	    --param i=int:-7 --param l=bigint:9007199254740993 \
	    --param d=double:1.5 --param x=decimal:12.5 \
	    --param b=boolean:TRUE --param day=date:2024-02-29 \
	    --param t='timestamp:2024-01-01 10:00:00' --param s=string:int:5 \
	    'SELECT :i + 1 AS i, :l AS l, :d * 2 AS d, :x AS x, :b AS b, :day AS day, :t AS t, :s AS s'
	[ "$output" = '{"i":-6,"l":9007199254740993,"d":3.0,"x":12.5,"b":true,"day":"2024-02-29","t":"2024-01-01 10:00:00","s":"int:5"}' ]
}

@test "--arg binds positional parameters in order" {
	run -0 --separate-stderr sc-exec --format csv --no-header \
	    --arg first --arg int:3 'SELECT ? AS s, count(*) FROM range(10) WHERE id < ?'
	[ "$output" = "first,3" ]
}

@test "parameter mistakes are usage errors, before anything runs" {
	run -2 --separate-stderr sc-exec --param n=int:abc 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: invalid --param 'n=int:abc': 'abc' is not a valid int" ]
	run -2 --separate-stderr sc-exec --arg date:2024-13-01 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: invalid --arg 'date:2024-13-01': '2024-13-01' is not a valid date" ]
	run -2 --separate-stderr sc-exec --param 1x=2 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: invalid --param '1x=2': expected name=value, the name a SQL identifier" ]
	run -2 --separate-stderr sc-exec --param a=1 --arg 2 'SELECT 1'
	[ "${stderr_lines[0]}" = "sc-exec: cannot use --param and --arg together (Spark binds one kind)" ]
	run -2 --separate-stderr sc-exec --param a=1 --range 0:3
	[ "${stderr_lines[0]}" = "sc-exec: --param and --arg need SQL" ]
}

@test "a parameter the SQL uses but nobody gave is the server's error" {
	run -1 --separate-stderr sc-exec --param n=1 'SELECT :m AS m'
	[[ "$stderr" == "sc-exec: [UNBOUND_SQL_PARAMETER] "* ]]
}

# -------------------------------------------------------------- -o file

# only_files DIR NAME...: DIR holds exactly the files NAME (dot files too).
only_files() {
	local dir=$1
	shift
	[ "$(cd "$dir" && ls -A | sort | tr '\n' ' ')" = "$(printf '%s\n' "$@" | sort | tr '\n' ' ')" ]
}

@test "-o writes the whole result, then renames it into place" {
	mkdir "$T/out"
	run -0 --separate-stderr sc-exec -o "$T/out/r.csv" --range 0:3
	[ -z "$output" ]
	[ "$(cat "$T/out/r.csv")" = "$(printf 'id\n0\n1\n2')" ]
	only_files "$T/out" r.csv
	# The umask applies, as for a file the shell makes.
	(umask 027 && sc-exec -o "$T/out/m.csv" --range 0:1)
	[ "$(stat -c %a "$T/out/m.csv")" = 640 ]
}

@test "-o leaves the old file alone when the run fails" {
	mkdir "$T/out"
	echo old >"$T/out/r.csv"
	run -1 --separate-stderr sc-exec -o "$T/out/r.csv" --format csv \
	    'SELECT 1 AS a; SELECT * FROM no_table'
	[ "$(cat "$T/out/r.csv")" = old ]
	only_files "$T/out" r.csv
}

@test "-o leaves nothing behind when the process is killed" {
	mkdir "$T/out"
	echo old >"$T/out/r.csv"
	sc-exec -o "$T/out/r.csv" --range 0:2000000000 3>&- &
	local pid=$!
	sleep 1
	kill -9 "$pid"
	wait "$pid" || true
	[ "$(cat "$T/out/r.csv")" = old ]
	only_files "$T/out" r.csv
}

@test "-o into a directory that cannot be written exits 9 before running" {
	run -9 --separate-stderr sc-exec -o "$T/no/such/dir/r.csv" \
	    'CREATE TABLE o_never (x INT)'
	[ "$stderr" = "sc-exec: cannot write '$T/no/such/dir/r.csv': No such file or directory" ]
	run -1 sc-exec 'SELECT * FROM o_never'
}

# ---------------------------------------------- empty and refused text

@test "empty and comment-only scripts run nothing and succeed" {
	run -0 --separate-stderr sc-exec -f /dev/null
	[ -z "$output$stderr" ]
	run -0 --separate-stderr sc-exec '/* tonight: nothing */'
	[ -z "$output$stderr" ]
	run -0 --separate-stderr sc-exec - </dev/null
	[ -z "$output$stderr" ]
	printf -- '-- SELECT 1;\n-- SELECT 2;\n' >"$T/off.sql"
	run -0 --separate-stderr sc-exec -f "$T/off.sql"
	[ -z "$output$stderr" ]
}

@test "SQL on standard input needs no '-' when it is not a terminal" {
	run -0 --separate-stderr sc-exec --format csv <<<'SELECT 7 AS seven'
	[ "$output" = "$(printf 'seven\n7')" ]
}

@test "invalid UTF-8 in SQL is refused, not changed" {
	printf "SELECT 1;\nSELECT '\xff\xfe' AS bad" >"$T/bad.sql"
	run -2 --separate-stderr sc-exec -f "$T/bad.sql"
	[ "$stderr" = "sc-exec: $T/bad.sql:2: invalid UTF-8 in the SQL text (byte 0xff at offset 18)" ]
	[ -z "$output" ]
	run -2 --separate-stderr sc-exec "$(printf "SELECT '\xc3' AS x")"
	[ "$stderr" = "sc-exec: the SQL argument:1: invalid UTF-8 in the SQL text (byte 0xc3 at offset 8)" ]
	# Valid UTF-8 goes through unchanged.
	run -0 --separate-stderr sc-exec --format csv --no-header "SELECT 'café 日本' AS x"
	[ "$output" = "café 日本" ]
}

@test "a NUL byte in SQL is refused" {
	printf "SELECT 'a\0b' AS x" >"$T/nul.sql"
	run -2 --separate-stderr sc-exec -f "$T/nul.sql"
	[ "$stderr" = "sc-exec: $T/nul.sql:1: a NUL byte in the SQL text" ]
}

# ------------------------------------------------------------ -v summary

@test "-v sums up each statement: rows, bytes, time, reattaches" {
	printf 'SELECT 1 AS a;\nSELECT id FROM range(1000);\n' >"$T/v.sql"
	run -0 --separate-stderr sc-exec -v --max-rows 10 -f "$T/v.sql"
	grep -qxE "sc-exec: statement 1 \($T/v.sql:1\): 1 row, [0-9.]+ (Ki)?B, [0-9.]+m?s, 0 reattaches" <<<"$stderr"
	grep -qxE "sc-exec: statement 2 \($T/v.sql:2\): 10 rows \(cut at --max-rows\), [0-9.]+ (Ki)?B, [0-9.]+m?s, 0 reattaches" <<<"$stderr"
	run -1 --separate-stderr sc-exec -v 'SELECT 1; SELECT * FROM no_table'
	grep -qxE 'sc-exec: statement 2: 0 rows, 0 B, [0-9.]+m?s, 0 reattaches, failed' <<<"$stderr"
	# Not without -v.
	run -0 --separate-stderr sc-exec -f "$T/v.sql"
	[ -z "$stderr" ]
}
