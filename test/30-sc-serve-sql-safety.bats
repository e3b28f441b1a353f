#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 30-sc-serve-sql-safety: SQL must not crash sc-serve, reach its file
# system, corrupt the shared schema or grow without bound: the
# fts3_tokenizer crash, ATTACH and VACUUM INTO (with and without
# --database), writable_schema (and a restart afterwards), pragmas and
# other statements Spark SQL lacks, a 900 MB value, a count of distinct
# values over range(), and SQL nested too deeply for SQLite's parser.

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
	DIR=$BATS_TEST_TMPDIR/fs
	mkdir -p "$DIR"
}

teardown() {
	if [ -n "${DB_PID:-}" ]; then
		kill -9 "$DB_PID" 2>/dev/null
		DB_PID=
	fi
	true
}

# db_start FILE: a second sc-serve on the database FILE (DB_PID,
# DB_REMOTE), as the file's own server is started.
db_start() {
	local ready="$BATS_TEST_TMPDIR/db.ready" i n=50
	[ -n "${SCTK_SANITIZE:-}" ] && n=500
	rm -f "$ready"
	sc-serve --listen 127.0.0.1:0 --ready-file "$ready" --database "$1" \
	    >>"$BATS_TEST_TMPDIR/db.log" 2>&1 3>&- &
	DB_PID=$!
	for ((i = 0; i < n; i++)); do
		[ -s "$ready" ] && break
		kill -0 "$DB_PID" 2>/dev/null || break
		sleep 0.1
	done
	if [ ! -s "$ready" ]; then
		cat "$BATS_TEST_TMPDIR/db.log" >&2
		return 1
	fi
	DB_REMOTE=$(cat "$ready")
}

# db_stop: SIGTERM, and the server must exit 0.
db_stop() {
	local i n=100 rc
	[ -n "${SCTK_SANITIZE:-}" ] && n=600
	kill -TERM "$DB_PID"
	for ((i = 0; i < n; i++)); do
		kill -0 "$DB_PID" 2>/dev/null || break
		sleep 0.1
	done
	wait "$DB_PID"
	rc=$?
	DB_PID=
	[ "$rc" -eq 0 ]
}

# The files under $DIR with their checksums, one per line.
fs_state() {
	(cd "$DIR" && find . -type f | LC_ALL=C sort | xargs -r cksum)
}

# The names of the files under $DIR (a live database's WAL and shared
# memory files change with every access).
fs_names() {
	(cd "$DIR" && find . -type f | LC_ALL=C sort)
}

# Peak resident memory of the file's server since the last reset, in KiB.
peak_reset() {
	echo 5 >"/proc/$SCTK_SERVER_PID/clear_refs"
}

peak_kib() {
	awk '/^VmHWM:/ { print $2 }' "/proc/$SCTK_SERVER_PID/status"
}

# ------------------------------------------------------ fts3_tokenizer

@test "fts3_tokenizer cannot install a pointer: the server survives" {
	run -1 --separate-stderr sc-exec -t 30s \
	    "SELECT fts3_tokenizer('evil', x'4141414141414141'); CREATE VIRTUAL TABLE tk USING fts3(content, tokenize=evil)"
	[[ "$stderr" == 'sc-exec: [UNRESOLVED_ROUTINE] Cannot resolve routine `fts3_tokenizer` on search path [`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`]'*'. SQLSTATE: 42883' ]]
	[ -z "$output" ]
	sc_server_alive
}

@test "fts3_tokenizer does not reveal an address" {
	run -1 --separate-stderr sc-exec -t 30s \
	    "SELECT hex(fts3_tokenizer('simple'))"
	# The translator refuses the first name it cannot resolve (hex is
	# not among its functions yet); SQLite never sees the text.
	[[ "$stderr" == 'sc-exec: [UNRESOLVED_ROUTINE] Cannot resolve routine `'* ]]
	[ -z "$output" ]
	run -1 --separate-stderr sc-exec -t 30s \
	    "SELECT length(fts3_tokenizer('simple'))"
	[[ "$stderr" == 'sc-exec: [UNRESOLVED_ROUTINE] Cannot resolve routine `fts3_tokenizer`'* ]]
	[ -z "$output" ]
}

@test "virtual tables cannot be created, so no tokenizer is reached" {
	run -1 --separate-stderr sc-exec -t 30s \
	    'CREATE VIRTUAL TABLE tk USING fts3(content)'
	[ "$stderr" = "sc-exec: [PARSE_SYNTAX_ERROR] Syntax error at or near 'VIRTUAL'. SQLSTATE: 42601" ]
	run -1 --separate-stderr sc-exec -t 30s \
	    "SELECT load_extension('/lib/x86_64-linux-gnu/libm.so.6')"
	[[ "$stderr" == 'sc-exec: [UNRESOLVED_ROUTINE] Cannot resolve routine `load_extension`'* ]]
}

# ---------------------------------------------------------- file system

@test "ATTACH of a URI file name creates no file (in-memory database)" {
	local before
	before=$(fs_state)
	run -1 --separate-stderr sc-exec -t 30s \
	    "ATTACH DATABASE 'file:$DIR/evil.sh?vfs=unix' AS y; CREATE TABLE y.t(a); INSERT INTO y.t VALUES ('echo PWNED')"
	[ "$stderr" = "sc-exec: [PARSE_SYNTAX_ERROR] Syntax error at or near 'ATTACH'. SQLSTATE: 42601" ]
	[ ! -e "$DIR/evil.sh" ]
	[ "$(fs_state)" = "$before" ]
	run -1 --separate-stderr sc-exec -t 30s 'DETACH DATABASE main'
	[[ "$stderr" == *"[PARSE_SYNTAX_ERROR] Syntax error at or near 'DETACH'."* ]]
}

@test "ATTACH cannot read or change another SQLite file" {
	local before
	db_start "$DIR/victim.db"
	run -0 sc-exec -s "$DB_REMOTE" \
	    "CREATE TABLE creds(u STRING, p STRING); INSERT INTO creds VALUES ('admin', 'hunter2')"
	db_stop
	before=$(fs_state)
	[[ "$before" == *victim.db* ]]
	run -1 --separate-stderr sc-exec -t 30s \
	    "ATTACH 'file:$DIR/victim.db?vfs=unix' AS v; UPDATE v.creds SET p = 'owned'"
	[[ "$stderr" == *"[PARSE_SYNTAX_ERROR] Syntax error at or near 'ATTACH'."* ]]
	run -1 --separate-stderr sc-exec -t 30s --format csv \
	    "ATTACH 'file:$DIR/victim.db?vfs=unix&mode=ro' AS v"
	[[ "$stderr" == *'[PARSE_SYNTAX_ERROR]'* ]]
	[ "$(fs_state)" = "$before" ]
	db_start "$DIR/victim.db"
	run -0 sc-exec -s "$DB_REMOTE" --format csv --no-header \
	    'SELECT u, p FROM creds'
	[ "$output" = admin,hunter2 ]
	db_stop
}

@test "VACUUM INTO writes no file (in-memory database)" {
	local before
	run -0 sc-exec 'CREATE TABLE secret(v STRING); INSERT INTO secret VALUES ('"'other-users-data'"')'
	before=$(fs_state)
	run -1 --separate-stderr sc-exec -t 30s \
	    "VACUUM INTO 'file:$DIR/dump.db?vfs=unix'"
	[ "$stderr" = "sc-exec: [PARSE_SYNTAX_ERROR] Syntax error at or near 'VACUUM'. SQLSTATE: 42601" ]
	run -1 --separate-stderr sc-exec -t 30s "VACUUM INTO '$DIR/dump2.db'"
	[[ "$stderr" == *"[PARSE_SYNTAX_ERROR] Syntax error at or near 'VACUUM'."* ]]
	run -1 --separate-stderr sc-exec -t 30s 'VACUUM'
	[[ "$stderr" == *"[PARSE_SYNTAX_ERROR] Syntax error at or near 'VACUUM'."* ]]
	[ ! -e "$DIR/dump.db" ] && [ ! -e "$DIR/dump2.db" ]
	[ "$(fs_state)" = "$before" ]
	run -0 sc-exec 'DROP TABLE secret'
}

@test "with --database, plain paths reach no file through ATTACH or VACUUM INTO" {
	local before
	db_start "$DIR/main.db"
	run -0 sc-exec -s "$DB_REMOTE" \
	    "CREATE TABLE secret(v STRING); INSERT INTO secret VALUES ('other-users-data')"
	before=$(fs_names)
	run -1 --separate-stderr sc-exec -s "$DB_REMOTE" -t 30s \
	    "ATTACH DATABASE '$DIR/evil.db' AS y; CREATE TABLE y.t(a)"
	[[ "$stderr" == *"[PARSE_SYNTAX_ERROR] Syntax error at or near 'ATTACH'."* ]]
	run -1 --separate-stderr sc-exec -s "$DB_REMOTE" -t 30s \
	    "ATTACH DATABASE 'file:$DIR/evil2.db?vfs=unix' AS y"
	[[ "$stderr" == *"[PARSE_SYNTAX_ERROR] Syntax error at or near 'ATTACH'."* ]]
	run -1 --separate-stderr sc-exec -s "$DB_REMOTE" -t 30s \
	    "VACUUM INTO '$DIR/dump.db'"
	[[ "$stderr" == *"[PARSE_SYNTAX_ERROR] Syntax error at or near 'VACUUM'."* ]]
	[ ! -e "$DIR/evil.db" ] && [ ! -e "$DIR/evil2.db" ] &&
	    [ ! -e "$DIR/dump.db" ]
	# Only the server's own database files.
	[ "$(fs_names)" = "$before" ]
	run -0 sc-exec -s "$DB_REMOTE" --format csv --no-header \
	    'SELECT v FROM secret'
	[ "$output" = other-users-data ]
	db_stop
}

# ------------------------------------------------------ schema and pragmas

@test "writable_schema is refused; the schema stays intact and --database restarts" {
	db_start "$DIR/main.db"
	run -0 sc-exec -s "$DB_REMOTE" \
	    'CREATE TABLE t(a INT); INSERT INTO t VALUES (1), (2), (3)'
	run -1 --separate-stderr sc-exec -s "$DB_REMOTE" -t 30s \
	    'PRAGMA writable_schema=ON'
	[ "$stderr" = "sc-exec: [PARSE_SYNTAX_ERROR] Syntax error at or near 'PRAGMA'. SQLSTATE: 42601" ]
	run -1 --separate-stderr sc-exec -s "$DB_REMOTE" -t 30s \
	    "PRAGMA writable_schema=ON; UPDATE sqlite_master SET sql='CREATE TABLE t(' WHERE name='t'"
	[[ "$stderr" == *'[PARSE_SYNTAX_ERROR]'* ]]
	# The schema table is no table of a client's (and defensive mode
	# keeps it read-only besides).
	run -1 --separate-stderr sc-exec -s "$DB_REMOTE" -t 30s \
	    "UPDATE sqlite_master SET sql='CREATE TABLE t(' WHERE name='t'"
	[ "$stderr" = 'sc-exec: [TABLE_OR_VIEW_NOT_FOUND] The table or view `sqlite_master` cannot be found. Verify the spelling and correctness of the schema and catalog. SQLSTATE: 42P01' ]
	run -1 --separate-stderr sc-exec -s "$DB_REMOTE" -t 30s \
	    'SELECT * FROM pragma_writable_schema'
	[[ "$stderr" == *'[TABLE_OR_VIEW_NOT_FOUND] The table or view `pragma_writable_schema` cannot be found.'* ]]
	run -0 sc-exec -s "$DB_REMOTE" --format csv --no-header \
	    'SELECT sum(a) FROM t'
	[ "$output" = 6 ]
	db_stop
	db_start "$DIR/main.db"
	run -0 sc-exec -s "$DB_REMOTE" --format csv --no-header \
	    'SELECT count(*), sum(a) FROM t'
	[ "$output" = 3,6 ]
	db_stop
}

@test "no pragma runs: PRAGMA is no statement of Spark's" {
	run -1 --separate-stderr sc-exec --format csv --no-header \
	    'CREATE TABLE pt(a INT, b STRING); PRAGMA table_info(pt)'
	[[ "$stderr" == *"[PARSE_SYNTAX_ERROR] Syntax error at or near 'PRAGMA'."* ]]
	# A table-valued function the parser lacks: not taken.
	run -1 --separate-stderr sc-exec -t 30s \
	    "SELECT group_concat(name, '|') FROM pragma_table_info('pt')"
	[[ "$stderr" == *"[UNSUPPORTED_FEATURE.SQL_SYNTAX] The feature is not supported: the SQL text at or near 'pragma_table_info'"* ]]
	run -1 --separate-stderr sc-exec --format csv --no-header 'PRAGMA journal_mode'
	[[ "$stderr" == *"[PARSE_SYNTAX_ERROR] Syntax error at or near 'PRAGMA'."* ]]
	local p
	for p in 'journal_mode=OFF' 'hard_heap_limit=1' 'soft_heap_limit=1' \
	    'locking_mode=EXCLUSIVE' 'max_page_count=1' 'case_sensitive_like=OFF' \
	    'user_version=7' 'temp_store_directory='"'$DIR'"; do
		run -1 --separate-stderr sc-exec -t 30s "PRAGMA $p"
		[[ "$stderr" == *"[PARSE_SYNTAX_ERROR] Syntax error at or near 'PRAGMA'."* ]]
	done
	for p in database_list compile_options shrink_memory optimize; do
		run -1 --separate-stderr sc-exec -t 30s "PRAGMA $p"
		[[ "$stderr" == *"[PARSE_SYNTAX_ERROR] Syntax error at or near 'PRAGMA'."* ]]
	done
	# LIKE stayed case-sensitive.
	run -0 sc-exec --format csv --no-header "SELECT 'a' LIKE 'A'"
	[ "$output" = false ]
	run -0 sc-exec 'DROP TABLE pt'
	[ -z "$(ls -A "$DIR")" ]
}

@test "transactions and triggers are refused" {
	run -1 --separate-stderr sc-exec -t 30s 'BEGIN EXCLUSIVE'
	[ "$stderr" = "sc-exec: [PARSE_SYNTAX_ERROR] Syntax error at or near 'BEGIN'. SQLSTATE: 42601" ]
	run -1 --separate-stderr sc-exec -t 30s 'SAVEPOINT s'
	[[ "$stderr" == *"[PARSE_SYNTAX_ERROR] Syntax error at or near 'SAVEPOINT'."* ]]
	run -1 --separate-stderr sc-exec -t 30s \
	    'CREATE TABLE tt(a INT); CREATE TRIGGER tr AFTER INSERT ON tt BEGIN DELETE FROM tt; END'
	[[ "$stderr" == *"[PARSE_SYNTAX_ERROR] Syntax error at or near 'TRIGGER'."* ]]
	run -0 sc-exec --format csv --no-header \
	    'INSERT INTO tt VALUES (1); SELECT count(*) FROM tt'
	[ "$output" = 1 ]
	run -0 sc-exec 'DROP TABLE tt'
}

# --------------------------------------------------------------- limits

@test "a 900 MB value ends with EXCEED_LIMIT_LENGTH; the server stays small" {
	local peak
	peak_reset
	# (zeroblob() is SQLite's, not Spark's: repeat() makes the value.)
	run -1 --separate-stderr sc-exec -t 60s "SELECT repeat('x', 943718400)"
	[ "$stderr" = 'sc-exec: [EXCEED_LIMIT_LENGTH] A string or binary value (or a row holding it) exceeds the limit of 67108864 bytes (sctk.sql.maxValueSize). SQLSTATE: 54006' ]
	[ -z "$output" ]
	peak=$(peak_kib)
	echo "# repeat('x', 943718400): server peak RSS ${peak} KiB" >&3
	[ "$peak" -lt $((512 * 1024)) ]
	# Under the limit a value still goes through.
	run -0 sc-exec --format csv --no-header \
	    "SELECT length(repeat('x', 20000000))"
	[ "$output" = 20000000 ]
	sc_server_alive
}

@test "repeat() past the value limit is EXCEED_LIMIT_LENGTH, never a NULL" {
	run -1 --separate-stderr sc-exec 'SELECT length(repeat('"'x'"', 150000000)) AS n'
	[ "$stderr" = 'sc-exec: [EXCEED_LIMIT_LENGTH] A string or binary value (or a row holding it) exceeds the limit of 67108864 bytes (sctk.sql.maxValueSize). SQLSTATE: 54006' ]
	[ -z "$output" ]
	run -0 sc-exec --format csv --no-header \
	    "SELECT length(repeat('xy', 10000000)), repeat('ab', 3), repeat('a', 0) = '', repeat('a', NULL) IS NULL"
	[ "$output" = "20000000,ababab,true,true" ]
	sc_server_alive
}

@test "a row too big for one response message is refused" {
	run -1 --separate-stderr sc-exec -t 60s \
	    "SELECT repeat('a', 60000000) AS a, repeat('b', 60000000) AS b, repeat('c', 6000000) AS c"
	[[ "$stderr" == 'sc-exec: [EXCEED_LIMIT_LENGTH] A result row makes an Arrow batch of '*' bytes, more than the 125829120 bytes one response message may hold. SQLSTATE: 54006' ]]
	sc_server_alive
}

@test "a count of distinct values stops at the operation memory limit" {
	local peak t0 t1
	peak_reset
	t0=$(date +%s%N)
	run -1 --separate-stderr sc-exec -t 1800s \
	    'SELECT count(DISTINCT id) FROM range(1000000000000)'
	t1=$(date +%s%N)
	[ "$stderr" = 'sc-exec: [UNABLE_TO_ACQUIRE_MEMORY] Unable to acquire memory: the operation holds more than the 268435456 bytes of SQLite memory one operation may use (sctk.sql.operationMemory). SQLSTATE: 53200' ]
	peak=$(peak_kib)
	echo "# count(DISTINCT): stopped after $(((t1 - t0) / 1000000)) ms, server peak RSS ${peak} KiB" >&3
	[ "$peak" -lt $((1536 * 1024)) ]
	sc_server_alive
}

@test "SQL nested too deeply for the parser fails with FAILED_TO_PARSE_TOO_COMPLEX" {
	local open close
	open=$(printf '(%.0s' {1..300})
	close=$(printf ')%.0s' {1..300})
	run -1 --separate-stderr sc-exec -t 30s "SELECT ${open}1${close}"
	[ "$stderr" = 'sc-exec: [FAILED_TO_PARSE_TOO_COMPLEX] The statement is too complex to parse: it nests expressions, subqueries or chained operators more than 200 levels deep. Divide it into simpler statements. SQLSTATE: 54001' ]
	sc_server_alive
}

@test "range() keeps its rows under more than 16 conditions" {
	run -0 sc-exec --format csv --no-header \
	    'SELECT count(*), sum(id) FROM range(100) WHERE id >= 0 AND id >= 1 AND id >= 2 AND id >= 3 AND id >= 4 AND id >= 5 AND id >= 6 AND id >= 7 AND id >= 8 AND id >= 9 AND id >= 10 AND id >= 11 AND id >= 12 AND id >= 13 AND id >= 14 AND id >= 15 AND id >= 16 AND id >= 17'
	[ "$output" = 83,4814 ]
}

@test "a '.' before a digit and letters is a name, not a hang of the lexer" {
	# x.0SR once sent the Spark SQL lexer round in place for ever, one
	# thread per request (found by make fuzz).
	run -1 --separate-stderr sc-exec -t 20s 'SELECT x.0SR FROM range(1) x'
	[ "$stderr" = 'sc-exec: [UNRESOLVED_COLUMN.WITHOUT_SUGGESTION] A column, variable, or function parameter with name `x`.`0SR` cannot be resolved. SQLSTATE: 42703' ]
	sc_server_alive
}
