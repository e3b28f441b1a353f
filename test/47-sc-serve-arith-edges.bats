#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 47-sc-serve-arith-edges: integer and interval arithmetic at the edges
# fails as Spark does and never takes sc-serve down.  The smallest
# day-time or year-month interval divided by -1 is ARITHMETIC_OVERFLOW
# (it was SIGFPE); the smallest long div -1 is ARITHMETIC_OVERFLOW with
# ANSI on and the smallest long without; %, pmod and / of the same
# operands give Spark's values.  The engine's internal functions, which
# SQL text run by SQLite as written can reach, fail cleanly on
# arguments they were never meant to get.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

DIV_OVERFLOW="sc-exec: [ARITHMETIC_OVERFLOW] Overflow in integral divide. Use 'try_divide' to tolerate overflow and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error. SQLSTATE: 22003"
# The smallest day-time interval Spark's SQL text takes, one microsecond
# above Long.MinValue, less one microsecond.
DT_MIN="(INTERVAL '-106751991 04:00:54.775807' DAY TO SECOND - INTERVAL '0.000001' SECOND)"
LONG_MIN="CAST(-9223372036854775808 AS BIGINT)"

setup_file() {
	sc_server_start
}

teardown_file() {
	sc_server_stop
}

setup() {
	sc_server_env
}

@test "the smallest day-time interval / -1 is ARITHMETIC_OVERFLOW" {
	run -1 --separate-stderr sc-exec -t 30s "SELECT $DT_MIN / -1 AS r"
	[ "$output" = "" ]
	[ "$stderr" = "$DIV_OVERFLOW" ]
	sc_server_alive
}

@test "the same without ANSI mode: intervals always check" {
	run -1 --separate-stderr sc-exec -t 30s \
	    --conf spark.sql.ansi.enabled=false "SELECT $DT_MIN / -1 AS r"
	[ "$stderr" = "$DIV_OVERFLOW" ]
	sc_server_alive
}

@test "the smallest year-month interval / -1 is ARITHMETIC_OVERFLOW" {
	run -1 --separate-stderr sc-exec -t 30s \
	    "SELECT INTERVAL '-178956970-8' YEAR TO MONTH / -1 AS r"
	[ "$stderr" = "$DIV_OVERFLOW" ]
	sc_server_alive
}

@test "one above the smallest interval divides; by zero is INTERVAL_DIVIDED_BY_ZERO" {
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    "SELECT CAST(INTERVAL '-106751991 04:00:54.775807' DAY TO SECOND / -1 AS STRING) AS r"
	[ "$output" = "INTERVAL '106751991 04:00:54.775807' DAY TO SECOND" ]
	run -1 --separate-stderr sc-exec -t 30s "SELECT INTERVAL '1' DAY / 0 AS r"
	[ "$stderr" = "sc-exec: [INTERVAL_DIVIDED_BY_ZERO] Division by zero. Use \`try_divide\` to tolerate divisor being 0 and return NULL instead. SQLSTATE: 22012" ]
	sc_server_alive
}

@test "the smallest long div -1: ARITHMETIC_OVERFLOW under ANSI, itself without" {
	run -1 --separate-stderr sc-exec -t 30s "SELECT $LONG_MIN div -1 AS r"
	[ "$stderr" = "$DIV_OVERFLOW" ]
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    --conf spark.sql.ansi.enabled=false "SELECT $LONG_MIN div -1 AS r"
	[ "$output" = "-9223372036854775808" ]
	# The same from a literal argument (a plan's Literal, not SQL text).
	run -1 --separate-stderr sc-exec -t 30s \
	    --arg bigint:-9223372036854775808 "SELECT ? div -1 AS r"
	[ "$stderr" = "$DIV_OVERFLOW" ]
	sc_server_alive
}

@test "div of ints is of longs; by zero DIVIDE_BY_ZERO, or NULL without ANSI" {
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    "SELECT CAST(-2147483648 AS INT) div -1 AS a, -7 div 2 AS b, 7.9 div 2 AS c"
	[ "$output" = "2147483648,-3,3" ]
	run -1 --separate-stderr sc-exec -t 30s "SELECT 1 div 0 AS r"
	[ "$stderr" = "sc-exec: [DIVIDE_BY_ZERO] Division by zero. Use \`try_divide\` to tolerate divisor being 0 and return NULL instead. SQLSTATE: 22012" ]
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    --null NULL --conf spark.sql.ansi.enabled=false "SELECT 1 div 0 AS r"
	[ "$output" = "NULL" ]
}

@test "%, pmod and / of the smallest long and int by -1 are Spark's values" {
	local q="SELECT $LONG_MIN % -1 AS a, pmod($LONG_MIN, -1) AS b, CAST(-2147483648 AS INT) % -1 AS c, pmod(CAST(-2147483648 AS INT), -1) AS d, $LONG_MIN / -1 AS e"
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header "$q"
	[ "$output" = "0,0,0,0,9.223372036854776E18" ]
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    --conf spark.sql.ansi.enabled=false "$q"
	[ "$output" = "0,0,0,0,9.223372036854776E18" ]
}

@test "pmod is Spark's: r = a % n, then (r + n) % n when r < 0, exact for longs" {
	run -0 --separate-stderr sc-exec -t 30s --format csv --no-header \
	    "SELECT pmod(7, -3) AS a, pmod(-7, -3) AS b, pmod(-7, 3) AS c, pmod(7.5, -2) AS d, pmod(9007199254740993, 10) AS e, pmod(-7.5, 2) AS f"
	[ "$output" = "1,-1,2,1.5,3,0.5" ]
	run -1 --separate-stderr sc-exec -t 30s "SELECT pmod(1, 0) AS r"
	[ "$stderr" = "sc-exec: [DIVIDE_BY_ZERO] Division by zero. Use \`try_divide\` to tolerate divisor being 0 and return NULL instead. SQLSTATE: 22012" ]
}

@test "internal functions given arguments they never get fail; the server stays up" {
	local call
	for call in "sc_levenshtein('abc')" "sc_overlay('abc')" \
	    "sc_ts_from(1, 0)" "sc_make_interval()" "sc_concat_ws()" \
	    "sc_hash()" "sc_format('%s')" \
	    "sc_ival_muldiv(-9223372036854775807 - 1, -1, '/', 64)" \
	    "sc_ival_muldiv(1, 0, '+', 64)" \
	    "sc_ival_parse('1', 0, -1, 99, 0)" "sc_intop(1, '+', 2, -1)" \
	    "sc_intop(1, '+', 2, -2147483648)"; do
		run -1 --separate-stderr sc-exec -t 30s \
		    "WITH RECURSIVE c(x) AS (SELECT 1) SELECT $call FROM c"
		[ "$output" = "" ]
		[[ "$stderr" == "sc-exec: ["*"] "*" SQLSTATE: "????? ]]
	done
	sc_server_alive
}
