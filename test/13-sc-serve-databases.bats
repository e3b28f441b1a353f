#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 13-sc-serve-databases: Spark's databases besides default.  With
# --database FILE each is the file FILE.<name>.sqlite beside it, and it
# is there again, tables and rows, after a restart; DROP DATABASE
# removes the file.  SQLite attaches at most 10 databases: an eleventh
# is refused by name.  A database name never reaches a file name
# unchecked.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

teardown() {
	if [ -n "${SCTK_SERVER_PID:-}" ]; then
		kill -9 "$SCTK_SERVER_PID" 2>/dev/null
		SCTK_SERVER_PID=
	fi
	true
}

@test "a database survives a restart of sc-serve --database FILE" {
	DB="$BATS_TEST_TMPDIR/main.db"
	sc_server_start --database "$DB"
	run -0 sc-exec -t 30s "CREATE SCHEMA empty_db; CREATE DATABASE sales; CREATE TABLE sales.orders (id INT, amount DOUBLE); INSERT INTO sales.orders VALUES (1, 2.5), (2, 4.0); CREATE TABLE kept (a INT)"
	[ -f "$BATS_TEST_TMPDIR/main.db.sales.sqlite" ]
	sc_server_stop
	sc_server_start --database "$DB"
	run -0 --separate-stderr sc-exec -t 30s --no-header "SHOW DATABASES"
	[ "$output" = $'default\nempty_db\nsales' ]
	run -0 --separate-stderr sc-exec -t 30s --no-header "USE sales; SELECT count(*), sum(amount) FROM orders"
	[ "$output" = "2,6.5" ]
	run -0 --separate-stderr sc-exec -t 30s --no-header "SHOW TABLES IN sales"
	[ "$output" = "sales,orders,false" ]
	run -0 sc-exec -t 30s "DROP DATABASE sales CASCADE"
	[ ! -e "$BATS_TEST_TMPDIR/main.db.sales.sqlite" ]
	sc_server_stop
	sc_server_start --database "$DB"
	run -0 --separate-stderr sc-exec -t 30s --no-header "SHOW DATABASES"
	[ "$output" = $'default\nempty_db' ]
	sc_server_stop
}

@test "an eleventh database is refused; a name with a path is invalid" {
	sc_server_start
	for i in 1 2 3 4 5 6 7 8 9 10; do
		run -0 sc-exec -t 30s "CREATE DATABASE d$i"
	done
	run -1 --separate-stderr sc-exec -t 30s "CREATE DATABASE d11"
	[[ "$stderr" == *'[UNSUPPORTED_FEATURE.SQL_STATEMENT] The feature is not supported: more than 10 databases besides `default`'* ]]
	run -0 sc-exec -t 30s "DROP DATABASE d1; CREATE DATABASE d11; CREATE TABLE d11.t (a INT); INSERT INTO d11.t VALUES (5)"
	run -0 --separate-stderr sc-exec -t 30s --no-header "SELECT a FROM spark_catalog.d11.t"
	[ "$output" = "5" ]
	run -1 --separate-stderr sc-exec -t 30s 'CREATE DATABASE `../x`'
	[[ "$stderr" == *'[INVALID_SCHEMA_OR_RELATION_NAME]'*'SQLSTATE: 42602' ]]
	# The user's own ATTACH stays refused: no statement of Spark's.
	run -1 --separate-stderr sc-exec -t 30s "ATTACH DATABASE ':memory:' AS y"
	[[ "$stderr" == *"[PARSE_SYNTAX_ERROR] Syntax error at or near 'ATTACH'."* ]]
	sc_server_stop
}
