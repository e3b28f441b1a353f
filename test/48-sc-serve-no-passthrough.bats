#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 48-sc-serve-no-passthrough: no client text reaches SQLite as written.
# Every query goes through the Spark SQL parser and the translator, every
# statement through sc-serve's statement parser (CREATE TABLE and VIEW,
# INSERT, UPDATE, DELETE, ALTER TABLE, DROP, ...), whose SQL the engine
# writes; so sc-serve's internal functions (sc_*) and what SQLite keeps
# about itself (dbstat, pragma_*, sqlite_master) are out of reach however
# they are quoted or cased.  What only SQLite has (PRAGMA, VACUUM,
# ATTACH, INSERT OR REPLACE, WITHOUT ROWID, [names], two statements in
# one text) is Spark's PARSE_SYNTAX_ERROR; WITH RECURSIVE is Spark 4.1's.
# DDL and DML give the same rows as before, with Spark's semantics.

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
}

# refused_routine NAME SQL: sc-exec exits 1 with UNRESOLVED_ROUTINE of
# NAME, prints no rows, and the server is still up.
refused_routine() {
	run -1 --separate-stderr sc-exec -t 30s "$2"
	[[ "$stderr" == "sc-exec: [UNRESOLVED_ROUTINE] Cannot resolve routine \`$1\` on search path [\`system\`.\`builtin\`, \`system\`.\`session\`, \`spark_catalog\`.\`default\`]"*". SQLSTATE: 42883" ]]
	[ -z "$output" ]
	sc_server_alive
}

# refused_parse TOKEN SQL: Spark's PARSE_SYNTAX_ERROR at TOKEN.
refused_parse() {
	run -1 --separate-stderr sc-exec -t 30s "$2"
	[ "$stderr" = "sc-exec: [PARSE_SYNTAX_ERROR] Syntax error at or near '$1'. SQLSTATE: 42601" ]
	[ -z "$output" ]
	sc_server_alive
}

# refused_table NAME SQL: the same with TABLE_OR_VIEW_NOT_FOUND.
refused_table() {
	run -1 --separate-stderr sc-exec -t 30s "$2"
	[ "$stderr" = "sc-exec: [TABLE_OR_VIEW_NOT_FOUND] The table or view \`$1\` cannot be found. Verify the spelling and correctness of the schema and catalog. SQLSTATE: 42P01" ]
	[ -z "$output" ]
	sc_server_alive
}

REC='WITH c(x) AS (SELECT 1)'

# ------------------------------------------------ the findings (C3, m7)

@test "internal functions through WITH: UNRESOLVED_ROUTINE, no crash" {
	refused_routine sc_make_interval "$REC SELECT sc_make_interval() FROM c"
	refused_routine sc_levenshtein "$REC SELECT sc_levenshtein('abc') FROM c"
	refused_routine sc_overlay "$REC SELECT sc_overlay('abc') FROM c"
	refused_routine sc_ts_from "$REC SELECT sc_ts_from(1, 0) FROM c"
}

@test "internal functions in Spark SQL text: UNRESOLVED_ROUTINE" {
	run -1 --separate-stderr sc-exec -t 30s "SELECT sc_overlay('abc')"
	[[ "$stderr" == 'sc-exec: [UNRESOLVED_ROUTINE] Cannot resolve routine `sc_overlay` on search path'* ]]
	run -1 --separate-stderr sc-exec -t 30s "SELECT sc_cast('1', 'int', 0)"
	[[ "$stderr" == 'sc-exec: [UNRESOLVED_ROUTINE] Cannot resolve routine `sc_cast` on search path'* ]]
	[ -z "$output" ]
	sc_server_alive
}

@test "quoting and case do not get around the refusal" {
	refused_routine sc_overlay "$REC SELECT SC_OVERLAY('abc') FROM c"
	refused_routine sc_overlay "$REC SELECT \`Sc_Overlay\`('abc') FROM c"
	refused_routine sc_overlay "$REC SELECT sc_overlay /* x */ ('abc') FROM c"
	refused_routine sc_cast "$REC SELECT sc_cast('1', 'int', 0) FROM c"
	# "x" is a string in Spark, and [x] no name at all.
	run -1 --separate-stderr sc-exec -t 30s "$REC SELECT \"sc_overlay\"('abc') FROM c"
	[[ "$stderr" == "sc-exec: [PARSE_SYNTAX_ERROR] Syntax error at or near '('"* ]]
	refused_parse '[' "$REC SELECT [sc_overlay]('abc') FROM c"
	# A qualified function name: still no call of an internal one.
	run -1 --separate-stderr sc-exec -t 30s "$REC SELECT main.sc_overlay('abc') FROM c"
	[[ "$stderr" == 'sc-exec: ['* ]]
	[[ "$stderr" != *'[INTERNAL'* ]]
	sc_server_alive
}

@test "dbstat, sqlite_dbpage, sqlite_master and pragma_* are refused" {
	refused_table dbstat "$REC SELECT * FROM dbstat"
	refused_table pragma_function_list "$REC SELECT name FROM pragma_function_list"
	refused_table PRAGMA_FUNCTION_LIST "$REC SELECT name FROM \`PRAGMA_FUNCTION_LIST\`"
	# A table-valued function other than Spark's is not taken.
	run -1 --separate-stderr sc-exec -t 30s "$REC SELECT * FROM pragma_table_info('x')"
	[[ "$stderr" == "sc-exec: [UNSUPPORTED_FEATURE.SQL_SYNTAX] The feature is not supported: the SQL text at or near 'pragma_table_info'"* ]]
	refused_table sqlite_master "$REC SELECT name, sql FROM sqlite_master"
	refused_table sqlite_schema "$REC SELECT name FROM main.sqlite_schema"
	refused_table sqlite_temp_master "$REC SELECT name FROM sqlite_temp_master"
	refused_table sqlite_dbpage "$REC SELECT * FROM sqlite_dbpage"
	refused_table sqlite_master 'SELECT name FROM sqlite_master'
	refused_table sqlite_temp_master 'SELECT * FROM temp.sqlite_temp_master'
}

@test "UPDATE, DELETE, ALTER and DROP cannot reach them either" {
	run -0 sc-exec -t 30s 'CREATE TABLE up1 (a INT)'
	run -0 sc-exec -t 30s 'INSERT INTO up1 VALUES (1)'
	# A string where SQLite reads a table name is Spark's syntax error.
	run -1 --separate-stderr sc-exec -t 30s \
	    "UPDATE up1 SET a = 1 FROM 'dbstat'"
	[[ "$stderr" == "sc-exec: [PARSE_SYNTAX_ERROR] Syntax error at or near 'FROM'"* ]]
	refused_routine sc_overlay "UPDATE up1 SET a = sc_overlay('abc')"
	refused_routine sc_ts_from "DELETE FROM up1 WHERE SC_TS_FROM(1, 0) > 0"
	refused_table sqlite_master "UPDATE sqlite_master SET sql = 'x'"
	refused_table dbstat 'DELETE FROM dbstat'
	refused_table sqlite_schema 'DROP TABLE main.sqlite_schema'
	refused_table pragma_function_list \
	    'ALTER TABLE pragma_function_list RENAME TO x'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT a FROM up1'
	[ "$output" = 1 ]
	run -0 sc-exec -t 30s 'ALTER TABLE up1 ADD COLUMN b INT'
	run -0 sc-exec -t 30s 'ALTER TABLE up1 RENAME TO up2'
	run -0 sc-exec -t 30s 'DROP TABLE up2'
}

@test "PRAGMA is no statement of Spark's: PARSE_SYNTAX_ERROR" {
	refused_parse PRAGMA 'PRAGMA function_list'
	refused_parse PRAGMA 'PRAGMA module_list'
	refused_parse pragma 'pragma journal_mode'
	refused_parse PRAGMA 'PRAGMA writable_schema = ON'
}

# ------------------------------------ statements that hold a query

@test "a view body, CTAS and INSERT ... SELECT cannot name an internal function" {
	refused_routine sc_overlay \
	    "CREATE TEMP VIEW v1 AS $REC SELECT sc_overlay('abc') AS o FROM c"
	refused_routine sc_overlay \
	    "CREATE OR REPLACE TEMP VIEW v1 AS SELECT sc_overlay('abc') AS o"
	refused_routine sc_levenshtein \
	    "CREATE TABLE ct1 AS SELECT sc_levenshtein('abc') AS l"
	refused_routine sc_levenshtein \
	    "CREATE TABLE ct2 AS $REC SELECT sc_levenshtein('abc') AS l FROM c"
	run -0 sc-exec -t 30s 'CREATE TABLE ins1 (a INT)'
	refused_routine sc_ts_from "INSERT INTO ins1 SELECT sc_ts_from(1, 0)"
	refused_table dbstat "INSERT INTO ins1 SELECT pgsize FROM dbstat"
	refused_table sqlite_master \
	    "CREATE TEMP VIEW v2 AS $REC SELECT name FROM sqlite_master, c"
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT count(*) FROM ins1'
	[ "$output" = 0 ]
	run -1 --separate-stderr sc-exec -t 30s 'SELECT * FROM v1'
	[[ "$stderr" == 'sc-exec: [TABLE_OR_VIEW_NOT_FOUND]'*'`v1`'* ]]
}

# ------------------------------------------- DDL and DML still work

@test "CREATE TABLE, INSERT ... VALUES with CAST and typed literals" {
	run -0 sc-exec -t 30s 'CREATE TABLE d1 (a INT, s STRING, d DATE)'
	run -0 sc-exec -t 30s \
	    "INSERT INTO d1 VALUES (1, '007', DATE '2024-01-02'), (CAST('2' AS INT), 'x', NULL)"
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT a, s, d FROM d1 ORDER BY a'
	[ "$output" = $'1,007,2024-01-02\n2,x,' ]
}

@test "CTAS and a temp view keep Spark's functions (the engine's own SQL)" {
	run -0 sc-exec -t 30s \
	    "CREATE TABLE d2 AS SELECT levenshtein('kitten', 'sitting') AS l, upper('a') AS u"
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT l, u FROM d2'
	[ "$output" = '3,A' ]
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    "CREATE OR REPLACE TEMP VIEW d2v AS SELECT levenshtein('ab', 'b') AS l; SELECT l FROM d2v"
	[ "$output" = 1 ]
}

@test "INSERT INTO ... SELECT, INSERT OVERWRITE, UPDATE, DELETE, DROP" {
	run -0 sc-exec -t 30s 'CREATE TABLE d3 (a INT, b STRING)'
	run -0 sc-exec -t 30s "INSERT INTO d3 SELECT id, 'r' FROM range(3)"
	run -0 sc-exec -t 30s "INSERT INTO TABLE d3 VALUES (10, 'ten')"
	run -0 sc-exec -t 30s "UPDATE d3 SET b = 'one' WHERE a = 1"
	run -0 sc-exec -t 30s 'DELETE FROM d3 WHERE a = 0'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT a, b FROM d3 ORDER BY a'
	[ "$output" = $'1,one\n2,r\n10,ten' ]
	run -0 sc-exec -t 30s "INSERT OVERWRITE d3 VALUES (5, 'five')"
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT a, b FROM d3'
	[ "$output" = '5,five' ]
	run -0 sc-exec -t 30s 'DROP TABLE d3'
	run -1 --separate-stderr sc-exec -t 30s 'SELECT * FROM d3'
	[[ "$stderr" == 'sc-exec: [TABLE_OR_VIEW_NOT_FOUND]'* ]]
}

@test "functions only SQLite has are refused" {
	run -1 --separate-stderr sc-exec -t 30s 'SELECT zeroblob(2)'
	[[ "$stderr" == 'sc-exec: [UNRESOLVED_ROUTINE] Cannot resolve routine `zeroblob`'* ]]
	[ -z "$output" ]
	run -0 sc-exec -t 30s 'CREATE TABLE q1 (a INT)'
	run -1 --separate-stderr sc-exec -t 30s 'INSERT INTO q1 SELECT unicode(1)'
	[[ "$stderr" == 'sc-exec: [UNRESOLVED_ROUTINE] Cannot resolve routine `unicode`'* ]]
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT count(*) FROM q1'
	[ "$output" = 0 ]
	sc_server_alive
}

# refused_syntax WHAT SQL: sc-exec exits 1 with UNSUPPORTED_FEATURE of
# the SQL syntax WHAT, prints no rows, and the server is still up.
refused_syntax() {
	run -1 --separate-stderr sc-exec -t 30s "$2"
	[ "$stderr" = "sc-exec: [UNSUPPORTED_FEATURE.SQL_SYNTAX] The feature is not supported: $1 in SQL text. SQLSTATE: 0A000" ]
	[ -z "$output" ]
	sc_server_alive
}

@test "WITH RECURSIVE is refused wherever it is (Spark 4.0 has none)" {
	refused_syntax 'WITH RECURSIVE' \
	    'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT x FROM c'
	refused_syntax 'WITH RECURSIVE' \
	    'with  /* c */ Recursive c AS (SELECT 1 AS x) SELECT x FROM c'
	# A subquery that begins with WITH is not taken: refused at it.
	run -1 --separate-stderr sc-exec -t 30s \
	    'SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1) SELECT x FROM c)'
	[[ "$stderr" == 'sc-exec: [UNSUPPORTED_FEATURE.SQL_SYNTAX] '*"'WITH'"* ]]
	refused_syntax 'WITH RECURSIVE' \
	    'CREATE TEMP VIEW r1 AS WITH RECURSIVE c(x) AS (SELECT 1) SELECT x FROM c'
	refused_syntax 'WITH RECURSIVE' \
	    'CREATE TABLE r2 AS WITH RECURSIVE c(x) AS (SELECT 1) SELECT x FROM c'
	run -0 sc-exec -t 30s 'CREATE TABLE r3 (x INT)'
	refused_syntax 'WITH RECURSIVE' \
	    'INSERT INTO r3 WITH RECURSIVE c(x) AS (SELECT 1) SELECT x FROM c'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT count(*) FROM r3'
	[ "$output" = 0 ]
	run -1 --separate-stderr sc-exec -t 30s 'SELECT * FROM r1'
	[[ "$stderr" == 'sc-exec: [TABLE_OR_VIEW_NOT_FOUND] The table or view `r1` cannot be found.'* ]]
	# A CTE named "recursive" is Spark 4.0's.
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'WITH recursive AS (SELECT 7 AS x) SELECT x FROM recursive'
	[ "$output" = 7 ]
}

@test "INSERT with a column list, OVERWRITE and a range query" {
	run -0 sc-exec -t 30s 'CREATE TABLE c1 (a INT, b STRING)'
	run -0 sc-exec -t 30s "INSERT INTO c1 (b, a) VALUES ('y', 2)"
	run -0 sc-exec -t 30s 'INSERT INTO c1 SELECT id, NULL FROM range(2)'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT a, b FROM c1 ORDER BY a'
	[ "$output" = $'0,\n1,\n2,y' ]
	run -0 sc-exec -t 30s 'INSERT OVERWRITE TABLE c1 (a) VALUES (7)'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT a, b FROM c1'
	[ "$output" = '7,' ]
	run -0 sc-exec -t 30s 'CREATE TABLE c2 AS SELECT * FROM range(3)'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT sum(id) FROM c2'
	[ "$output" = 3 ]
}

@test "X'..' binary literals are Spark's; other hex digits are refused" {
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    "SELECT X'abc' AS o, x'' AS z, x'00fF' AS h, length(x'0102') AS n"
	[ "$output" = '0abc,"",00ff,2' ]
	run -1 --separate-stderr sc-exec -t 30s "SELECT x'0g' AS b"
	[ "$stderr" = "sc-exec: [INVALID_TYPED_LITERAL] The value of the typed literal \"X\" is invalid: '0g'. SQLSTATE: 42604" ]
	[ -z "$output" ]
	sc_server_alive
}

@test "SELECT ... WHERE without FROM is parsed: Spark's answers" {
	# 7 / 2 is 3.5 in Spark, 3 in SQLite: the text went through the
	# Spark SQL parser.
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT 7 / 2 AS q, 1 AS x WHERE 1 = 1'
	[ "$output" = '3.5,1' ]
	run -0 --separate-stderr sc-exec -t 30s --format csv \
	    'SELECT 7 / 2 AS q WHERE false'
	[ "$output" = q ]
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT count(*) AS n WHERE false'
	[ "$output" = 0 ]
	run -1 --separate-stderr sc-exec -t 30s \
	    "SELECT sc_overlay('abc') AS o WHERE true"
	[[ "$stderr" == 'sc-exec: [UNRESOLVED_ROUTINE] Cannot resolve routine `sc_overlay` on search path'* ]]
	[ -z "$output" ]
	sc_server_alive
}

# ------------------------------- what only SQLite has: Spark's refusals

@test "VACUUM, ATTACH, DETACH, BEGIN and REINDEX: PARSE_SYNTAX_ERROR" {
	refused_parse VACUUM 'VACUUM'
	refused_parse VACUUM "VACUUM INTO '/tmp/x.db'"
	refused_parse ATTACH "ATTACH DATABASE 'file:x?vfs=unix' AS y"
	refused_parse DETACH 'DETACH DATABASE main'
	refused_parse REINDEX 'REINDEX'
	refused_parse BEGIN 'BEGIN'
	refused_parse SAVEPOINT 'SAVEPOINT s'
	refused_parse TRIGGER 'CREATE TRIGGER tr AFTER INSERT ON t BEGIN DELETE FROM t; END'
	refused_parse VIRTUAL 'CREATE VIRTUAL TABLE tk USING fts3(content)'
}

@test "INSERT OR REPLACE and REPLACE INTO: PARSE_SYNTAX_ERROR" {
	run -0 sc-exec -t 30s 'CREATE TABLE ir1 (a INT)'
	refused_parse OR 'INSERT OR REPLACE INTO ir1 VALUES (1)'
	refused_parse OR 'INSERT OR IGNORE INTO ir1 VALUES (1)'
	refused_parse REPLACE 'REPLACE INTO ir1 VALUES (1)'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT count(*) FROM ir1'
	[ "$output" = 0 ]
}

@test "WITHOUT ROWID, constraints, TEMP TABLE and SQLite's types are Spark's refusals" {
	refused_parse WITHOUT 'CREATE TABLE wr1 (a INT) WITHOUT ROWID'
	run -1 --separate-stderr sc-exec -t 30s 'CREATE TABLE wr2 (a INT PRIMARY KEY)'
	[[ "$stderr" == 'sc-exec: [UNSUPPORTED_FEATURE.TABLE_OPERATION] The feature is not supported: Table `wr2` does not support CONSTRAINT.'* ]]
	run -1 --separate-stderr sc-exec -t 30s 'CREATE TABLE wr3 (a TEXT)'
	[ "$stderr" = 'sc-exec: [UNSUPPORTED_DATATYPE] Unsupported data type "TEXT". SQLSTATE: 0A000' ]
	run -1 --separate-stderr sc-exec -t 30s 'CREATE TEMP TABLE wr4 (a INT)'
	[ "$stderr" = 'sc-exec: [PARSE_SYNTAX_ERROR] CREATE TEMPORARY TABLE without a provider is not allowed. SQLSTATE: 42601' ]
	run -1 --separate-stderr sc-exec -t 30s 'SELECT * FROM wr1'
	[[ "$stderr" == 'sc-exec: [TABLE_OR_VIEW_NOT_FOUND]'* ]]
	sc_server_alive
}

@test "bracket-quoted names, GLOB and @markers: PARSE_SYNTAX_ERROR" {
	refused_parse '[' 'SELECT [a] FROM (SELECT 1 AS a)'
	refused_parse '[' 'CREATE TABLE [br1] (a INT)'
	refused_parse '@x' 'SELECT @x'
	run -1 --separate-stderr sc-exec -t 30s "SELECT a FROM (SELECT 'a' AS a) WHERE a GLOB 'a'"
	[[ "$stderr" == "sc-exec: [PARSE_SYNTAX_ERROR] Syntax error at or near 'GLOB'"* ]]
}

@test "two statements in one spark.sql() text: PARSE_SYNTAX_ERROR" {
	# Plan{root: Relation{sql{query: "SELECT 1; SELECT 2"}}}; sc-exec
	# itself splits a script, so the plan is written by hand.
	printf '\x0a\x16\x52\x14\x0a\x12SELECT 1; SELECT 2' >"$BATS_TEST_TMPDIR/two.bin"
	run -1 --separate-stderr sc-exec -t 30s --plan "$BATS_TEST_TMPDIR/two.bin"
	[ "$stderr" = "sc-exec: [PARSE_SYNTAX_ERROR] Syntax error at or near 'SELECT': extra input 'SELECT'. SQLSTATE: 42601" ]
	[ -z "$output" ]
	# One statement and a ';' is one statement.
	printf '\x0a\x0d\x52\x0b\x0a\x09SELECT 1;' >"$BATS_TEST_TMPDIR/one.bin"
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    --plan "$BATS_TEST_TMPDIR/one.bin"
	[ "$output" = 1 ]
}

@test "text that reached SQLite verbatim now has Spark's semantics" {
	# 7 / 2 is 3 in SQLite and 3.5 in Spark: the rows of INSERT ...
	# VALUES and UPDATE's values were SQLite's text before.
	run -0 sc-exec -t 30s 'CREATE TABLE sem1 (x DOUBLE, s STRING)'
	run -0 sc-exec -t 30s "INSERT INTO sem1 VALUES (7 / 2, 'a' || 1)"
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT x, s FROM sem1'
	[ "$output" = '3.5,a1' ]
	run -0 sc-exec -t 30s 'UPDATE sem1 SET x = 9 / 2 WHERE x = 7 / 2'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT x FROM sem1'
	[ "$output" = 4.5 ]
	# SQLite's || of a number and NULL, its LIKE, its functions: Spark's.
	run -1 --separate-stderr sc-exec -t 30s \
	    "INSERT INTO sem1 VALUES (1, printf('%d', 1) || zeroblob(1))"
	[[ "$stderr" == 'sc-exec: [UNRESOLVED_ROUTINE] Cannot resolve routine `zeroblob`'* ]]
	run -0 sc-exec -t 30s 'DELETE FROM sem1 WHERE x = 9 / 2'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT count(*) FROM sem1'
	[ "$output" = 0 ]
}

# ---------------------------------- every statement kind, through the parser

@test "CREATE TABLE: Spark's types, IF NOT EXISTS, OR REPLACE, USING and its clauses" {
	run -0 sc-exec -t 30s \
	    "CREATE TABLE k1 (a INT NOT NULL, b BIGINT COMMENT 'b', c DECIMAL(10,2), d DATE, e TIMESTAMP, f STRING, g BOOLEAN, h DOUBLE) USING parquet OPTIONS (compression 'none') PARTITIONED BY (g) COMMENT 'k' TBLPROPERTIES ('x' = 'y') LOCATION '/nowhere'"
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'DESCRIBE k1'
	[ "$output" = $'a,int,\nb,bigint,\nc,"decimal(10,2)",\nd,date,\ne,timestamp,\nf,string,\ng,boolean,\nh,double,' ]
	run -0 sc-exec -t 30s "CREATE TABLE IF NOT EXISTS k1 (z INT)"
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    "SELECT count(*) FROM k1"
	[ "$output" = 0 ]
	run -1 --separate-stderr sc-exec -t 30s "CREATE TABLE k1 (z INT)"
	[[ "$stderr" == 'sc-exec: [TABLE_OR_VIEW_ALREADY_EXISTS]'* ]]
	run -0 sc-exec -t 30s "CREATE OR REPLACE TABLE k1 (z INT)"
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'DESCRIBE k1'
	[ "$output" = 'z,int,' ]
	# NOT NULL holds.
	run -0 sc-exec -t 30s 'CREATE TABLE k2 (a INT NOT NULL)'
	run -1 --separate-stderr sc-exec -t 30s 'INSERT INTO k2 VALUES (NULL)'
	[[ "$stderr" == 'sc-exec: [CONSTRAINT_VIOLATION]'* ]]
}

@test "CREATE TABLE AS: the query's types; IF NOT EXISTS keeps the rows" {
	run -0 sc-exec -t 30s \
	    "CREATE TABLE k3 USING parquet AS SELECT id, CAST(id AS STRING) AS s, id / 2 AS h FROM range(4)"
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'DESCRIBE k3'
	[ "$output" = $'id,bigint,\ns,string,\nh,double,' ]
	run -0 sc-exec -t 30s 'CREATE TABLE IF NOT EXISTS k3 AS SELECT 1 AS id'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT count(*), sum(h) FROM k3'
	[ "$output" = '4,3.0' ]
	run -0 sc-exec -t 30s 'CREATE OR REPLACE TABLE k3 AS SELECT 1 AS one'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT * FROM k3'
	[ "$output" = 1 ]
	refused_parse AS 'CREATE TABLE k4 (a INT) AS SELECT 1 AS a'
}

@test "INSERT: VALUES of expressions, a column list, a query, OVERWRITE, TABLE" {
	run -0 sc-exec -t 30s 'CREATE TABLE k5 (a INT, b STRING)'
	run -0 sc-exec -t 30s \
	    "INSERT INTO k5 (b, a) VALUES ('x', 1); INSERT INTO k5 VALUES (1 + 1, upper('y')), (3, NULL); INSERT INTO TABLE k5 SELECT a + 10, b FROM k5 WHERE a < 3; INSERT INTO k5 TABLE k5"
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT a, b, count(*) FROM k5 GROUP BY 1, 2 ORDER BY 1'
	[ "$output" = $'1,x,2\n2,Y,2\n3,,2\n11,x,2\n12,Y,2' ]
	run -1 --separate-stderr sc-exec -t 30s 'INSERT INTO k5 (zz) VALUES (1)'
	[[ "$stderr" == 'sc-exec: ['* ]]
	run -0 sc-exec -t 30s "INSERT OVERWRITE k5 VALUES (9, 'z')"
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT * FROM k5'
	[ "$output" = '9,z' ]
}

@test "UPDATE and DELETE (sctk's extension) with Spark's expressions; TRUNCATE TABLE" {
	run -0 sc-exec -t 30s \
	    "CREATE TABLE k6 AS SELECT id AS a, concat('r', id) AS b FROM range(5)"
	run -0 sc-exec -t 30s \
	    "UPDATE k6 SET b = upper(b) || '!', a = a * 10 WHERE a % 2 = 1"
	run -0 sc-exec -t 30s 'DELETE FROM k6 WHERE a IN (0, 4) OR b IS NULL'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT a, b FROM k6 ORDER BY a'
	[ "$output" = $'2,r2\n10,R1!\n30,R3!' ]
	run -0 sc-exec -t 30s 'DELETE FROM k6'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT count(*) FROM k6'
	[ "$output" = 0 ]
	run -0 sc-exec -t 30s 'INSERT INTO k6 VALUES (1, NULL); TRUNCATE TABLE k6'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT count(*) FROM k6'
	[ "$output" = 0 ]
	run -1 --separate-stderr sc-exec -t 30s 'UPDATE k6 SET nope = 1'
	[[ "$stderr" == 'sc-exec: ['* ]]
	run -1 --separate-stderr sc-exec -t 30s 'UPDATE nosuch SET a = 1'
	[[ "$stderr" == 'sc-exec: [TABLE_OR_VIEW_NOT_FOUND]'*'`nosuch`'* ]]
}

@test "ALTER TABLE ADD COLUMNS and RENAME TO; RENAME and DROP COLUMN as Spark refuses them" {
	run -0 sc-exec -t 30s 'CREATE TABLE k7 (a INT)'
	run -0 sc-exec -t 30s 'ALTER TABLE k7 ADD COLUMNS (b STRING, c DOUBLE)'
	run -0 sc-exec -t 30s 'ALTER TABLE k7 ADD COLUMN d DATE'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'DESCRIBE k7'
	[ "$output" = $'a,int,\nb,string,\nc,double,\nd,date,' ]
	run -1 --separate-stderr sc-exec -t 30s 'ALTER TABLE k7 DROP COLUMN b'
	[[ "$stderr" == 'sc-exec: [UNSUPPORTED_FEATURE.TABLE_OPERATION] The feature is not supported: Table `k7` does not support DROP COLUMN.'* ]]
	run -1 --separate-stderr sc-exec -t 30s 'ALTER TABLE k7 RENAME COLUMN b TO bb'
	[[ "$stderr" == 'sc-exec: [UNSUPPORTED_FEATURE.TABLE_OPERATION] The feature is not supported: Table `k7` does not support RENAME COLUMN.'* ]]
	run -0 sc-exec -t 30s 'ALTER TABLE k7 RENAME TO k8'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT count(*) FROM k8'
	[ "$output" = 0 ]
}

@test "DROP TABLE and VIEW, IF EXISTS; views temporary and not" {
	run -0 sc-exec -t 30s 'CREATE TABLE k9 (a INT); CREATE VIEW k9v AS SELECT a + 1 AS b FROM k9'
	run -0 sc-exec -t 30s 'INSERT INTO k9 VALUES (1)'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT b FROM k9v'
	[ "$output" = 2 ]
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    "CREATE TEMPORARY VIEW k9t AS SELECT b * 2 AS c FROM k9v; SELECT c FROM k9t; DROP VIEW k9t"
	[ "$output" = 4 ]
	refused_parse VIEW 'DROP TEMPORARY VIEW k9t'
	run -0 sc-exec -t 30s 'DROP VIEW k9v; DROP TABLE k9; DROP TABLE IF EXISTS k9; DROP VIEW IF EXISTS k9v'
	run -1 --separate-stderr sc-exec -t 30s 'DROP TABLE k9'
	[[ "$stderr" == 'sc-exec: [TABLE_OR_VIEW_NOT_FOUND]'* ]]
}

@test "names: spark_catalog, databases besides default, quoting" {
	run -0 sc-exec -t 30s \
	    'CREATE DATABASE kdb; CREATE TABLE kdb.`we ird` (x INT); INSERT INTO spark_catalog.kdb.`we ird` VALUES (5); UPDATE kdb.`we ird` SET x = x * 2'
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'USE kdb; INSERT INTO `we ird` VALUES (1); DELETE FROM `we ird` WHERE x = 1; SELECT x FROM kdb.`we ird`'
	[ "$output" = 10 ]
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SHOW TABLES IN kdb'
	[ "$output" = 'kdb,we ird,false' ]
	run -1 --separate-stderr sc-exec -t 30s 'CREATE TABLE nodb.t (x INT)'
	[[ "$stderr" == 'sc-exec: [SCHEMA_NOT_FOUND]'* ]]
	run -0 sc-exec -t 30s 'DROP TABLE spark_catalog.kdb.`we ird`; DROP DATABASE kdb'
}

@test "GROUP BY ordinals and ALL, ORDER BY ordinals: Spark's names and answers" {
	local q='(SELECT 1 AS a, 2 AS b UNION ALL SELECT 1, 3 UNION ALL SELECT 2, 4)'
	run -0 --separate-stderr sc-exec -t 30s --format csv \
	    "SELECT a, count(*) FROM $q GROUP BY 1 ORDER BY 1"
	[ "$output" = $'a,count(1)\n1,2\n2,1' ]
	run -0 --separate-stderr sc-exec -t 30s --format csv \
	    "SELECT a * 0 + 1, count(*) FROM $q GROUP BY 1"
	[ "$output" = $'((a * 0) + 1),count(1)\n1,3' ]
	run -0 --separate-stderr sc-exec -t 30s --format csv \
	    "SELECT count(*), a FROM $q GROUP BY ALL ORDER BY 2 DESC"
	[ "$output" = $'count(1),a\n1,2\n2,1' ]
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    "SELECT sum(b) FROM $q GROUP BY ALL"
	[ "$output" = 9 ]
	run -1 --separate-stderr sc-exec -t 30s "SELECT a, sum(b) FROM $q GROUP BY 3"
	[ "$stderr" = 'sc-exec: [GROUP_BY_POS_OUT_OF_RANGE] GROUP BY position 3 is not in select list (valid range is [1, 2]). SQLSTATE: 42805' ]
	run -1 --separate-stderr sc-exec -t 30s "SELECT a, sum(b) FROM $q GROUP BY 1, 2"
	[[ "$stderr" == 'sc-exec: [GROUP_BY_POS_AGGREGATE] GROUP BY 2 refers to'* ]]
	run -1 --separate-stderr sc-exec -t 30s "SELECT * FROM $q GROUP BY 1"
	[[ "$stderr" == 'sc-exec: [STAR_GROUP_BY_POS]'* ]]
	run -1 --separate-stderr sc-exec -t 30s "SELECT a FROM $q ORDER BY 0"
	[ "$stderr" = 'sc-exec: [ORDER_BY_POS_OUT_OF_RANGE] ORDER BY position 0 is not in select list (valid range is [1, 1]). SQLSTATE: 42805' ]
}

@test "SELECT * without FROM: * stands for no column, as in Spark" {
	run -0 --separate-stderr sc-exec -t 30s --format csv \
	    'SELECT *, 1 AS x'
	[ "$output" = $'x\n1' ]
	run -0 --separate-stderr sc-exec -t 30s --format csv \
	    'SELECT *, 7 / 2 AS q WHERE true'
	[ "$output" = $'q\n3.5' ]
	# Spark's answer has no column at all, which sc-serve does not make.
	run -1 --separate-stderr sc-exec -t 30s 'SELECT *'
	[[ "$stderr" == 'sc-exec: [UNSUPPORTED_FEATURE.SQL_SYNTAX]'* ]]
}
