#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 48-sc-serve-no-passthrough: a client's SQL text never reaches
# sc-serve's internal functions (sc_*) or what SQLite keeps about itself
# (dbstat, pragma_* table-valued functions, sqlite_master): not through
# text the Spark SQL parser does not take, the query of INSERT, a view
# body or CREATE TABLE ... AS (parsed and translated when the parser
# takes them), nor the statements still given to SQLite (UPDATE,
# DELETE), however the name is quoted or cased.  A function only SQLite
# has is not Spark's, nor is WITH RECURSIVE (Spark 4.1's).  DDL and DML
# still give the right rows.

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
	[ "$stderr" = "sc-exec: [UNRESOLVED_ROUTINE] Cannot resolve routine \`$1\` on search path [\`system\`.\`builtin\`, \`system\`.\`session\`, \`main\`]. SQLSTATE: 42883" ]
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
	refused_routine SC_OVERLAY "$REC SELECT SC_OVERLAY('abc') FROM c"
	refused_routine sc_overlay "$REC SELECT \"sc_overlay\"('abc') FROM c"
	refused_routine Sc_Overlay "$REC SELECT \`Sc_Overlay\`('abc') FROM c"
	refused_routine sc_overlay "$REC SELECT [sc_overlay]('abc') FROM c"
	refused_routine sc_overlay "$REC SELECT sc_overlay /* x */ ('abc') FROM c"
	refused_routine sc_cast "$REC SELECT sc_cast('1', 'int', 0) FROM c"
	# SQLite has no schema-qualified function: still not a call.
	run -1 --separate-stderr sc-exec -t 30s "$REC SELECT main.sc_overlay('abc') FROM c"
	[[ "$stderr" == 'sc-exec: ['* ]]
	[[ "$stderr" != *'[INTERNAL'* ]]
	sc_server_alive
}

@test "dbstat, sqlite_dbpage, sqlite_master and pragma_* are refused" {
	refused_table dbstat "$REC SELECT * FROM dbstat"
	refused_table pragma_function_list "$REC SELECT name FROM pragma_function_list"
	refused_table PRAGMA_FUNCTION_LIST "$REC SELECT name FROM \"PRAGMA_FUNCTION_LIST\""
	refused_table pragma_table_info "$REC SELECT * FROM pragma_table_info('x')"
	refused_table sqlite_master "$REC SELECT name, sql FROM sqlite_master"
	refused_table sqlite_schema "$REC SELECT name FROM main.sqlite_schema"
	refused_table sqlite_temp_master "$REC SELECT name FROM sqlite_temp_master"
	refused_table sqlite_dbpage "$REC SELECT * FROM sqlite_dbpage"
	refused_table sqlite_master 'SELECT name FROM sqlite_master'
	refused_table sqlite_temp_master 'SELECT * FROM temp.sqlite_temp_master'
}

@test "statements SQLite still runs cannot reach them either" {
	run -0 sc-exec -t 30s 'CREATE TABLE up1 (a INT)'
	run -0 sc-exec -t 30s 'INSERT INTO up1 VALUES (1)'
	# A string names a table in SQLite's FROM: the authorizer refuses.
	refused_table dbstat \
	    "UPDATE up1 SET a = (SELECT count(*) FROM 'dbstat')"
	refused_table sqlite_master \
	    "DELETE FROM up1 WHERE a IN (SELECT rootpage FROM 'sqlite_master')"
	refused_table pragma_function_list \
	    "UPDATE up1 SET a = (SELECT count(*) FROM 'pragma_function_list')"
	refused_routine sc_overlay "UPDATE up1 SET a = \"sc_overlay\"('abc')"
	refused_routine SC_TS_FROM "DELETE FROM up1 WHERE SC_TS_FROM(1, 0) > 0"
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    'SELECT a FROM up1'
	[ "$output" = 1 ]
	# SQLite's own reads of its schema for DROP and ALTER still run.
	run -0 sc-exec -t 30s 'ALTER TABLE up1 ADD COLUMN b INT'
	run -0 sc-exec -t 30s 'ALTER TABLE up1 RENAME TO up2'
	run -0 sc-exec -t 30s 'DROP TABLE up2'
}

@test "PRAGMA function_list and module_list are refused" {
	run -1 --separate-stderr sc-exec -t 30s 'PRAGMA function_list'
	[ "$stderr" = 'sc-exec: [UNSUPPORTED_FEATURE.PRAGMA] The feature is not supported: PRAGMA function_list. sc-serve only reads the pragmas listed in sc-serve(1). SQLSTATE: 0A000' ]
	run -1 --separate-stderr sc-exec -t 30s 'PRAGMA module_list'
	[ "$stderr" = 'sc-exec: [UNSUPPORTED_FEATURE.PRAGMA] The feature is not supported: PRAGMA module_list. sc-serve only reads the pragmas listed in sc-serve(1). SQLSTATE: 0A000' ]
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
	refused_syntax 'WITH RECURSIVE' \
	    'SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1) SELECT x FROM c)'
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
