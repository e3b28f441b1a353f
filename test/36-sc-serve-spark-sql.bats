#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 36-sc-serve-spark-sql: the table of Spark SQL statements and Spark's
# answers (test/sql/spark-sql.tsv) through sc-exec: each "ok" row's
# column names and rows as sc-exec renders them; each "error" row's
# class; "setup" rows must run.  "xfail" rows hold Spark's answer where
# sc-serve does not give it yet; they are counted, not run.
# test/conformance/23-spark-sql.test.js runs the same table through the
# Node client, with each query's schema through AnalyzePlan too (so it
# is not checked twice here).

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

TABLE="$BATS_TEST_DIRNAME/sql/spark-sql.tsv"

setup_file() {
	sc_server_start
}

teardown_file() {
	sc_server_stop
}

# The rows of a TSV result as row;row of value|value.
rows_of() {
	local IFS=$'\n' line out= first=1
	for line in $1; do
		[ "$first" = 1 ] || out+=';'
		first=0
		out+=${line//$'\t'/|}
	done
	printf '%s' "$out"
}

@test "the table has rows of every kind" {
	run -0 awk -F '\t' '!/^#/ { n[$1 ~ /^xfail/ ? "xfail" : $1 ~ /^error/ ? "error" : $1]++ }
	    END { print n["ok"] + 0, n["error"] + 0, n["setup"] + 0, n["xfail"] + 0 }' "$TABLE"
	read -r ok err setup xfail <<<"$output"
	[ "$ok" -ge 50 ]
	[ "$err" -ge 5 ]
	[ "$setup" -ge 3 ]
	echo "# $ok ok, $err error, $setup setup, $xfail xfail rows" >&3
}

@test "every row gives Spark's answer through sc-exec" {
	local expect query schema rows fails=0 n=0 names want_names
	# One session, as the Node run has: temp views last across rows.
	export SPARK_REMOTE="$SPARK_REMOTE/;session_id=$(cat /proc/sys/kernel/random/uuid)"
	while IFS=$'\t' read -r expect query schema rows; do
		case $expect in '#'* | '' | xfail*) continue ;; esac
		n=$((n + 1))
		case $expect in
		setup)
			run --separate-stderr sc-exec -t 60s "$query"
			if [ "$status" -ne 0 ]; then
				echo "setup failed: $query: $stderr"
				fails=$((fails + 1))
			fi
			;;
		error\ *)
			run --separate-stderr sc-exec -t 60s "$query"
			if [ "$status" -ne 1 ] ||
			    [[ "$stderr" != *"[${expect#error }]"* ]]; then
				echo "want ${expect#error }: $query: exit $status: $stderr"
				fails=$((fails + 1))
			fi
			;;
		ok)
			run --separate-stderr sc-exec -t 60s --format tsv --null NULL "$query"
			if [ "$status" -ne 0 ]; then
				echo "failed: $query: $stderr"
				fails=$((fails + 1))
				continue
			fi
			want_names=$(printf '%s' "$schema" | tr '|' '\n' |
			    sed 's/:[^:]*$//' | paste -sd '|')
			names=${lines[0]-}
			names=${names//$'\t'/|}
			if [ "$names" != "$want_names" ]; then
				echo "names: $query: got '$names', want '$want_names'"
				fails=$((fails + 1))
			fi
			if [ "$(rows_of "$(printf '%s\n' "${lines[@]:1}")")" != "$rows" ]; then
				echo "rows: $query: got '$(rows_of "$(printf '%s\n' "${lines[@]:1}")")', want '$rows'"
				fails=$((fails + 1))
			fi
			;;
		*)
			echo "bad row kind '$expect'"
			fails=$((fails + 1))
			;;
		esac
	done <"$TABLE"
	echo "# $n rows checked, $fails failures" >&3
	[ "$n" -ge 60 ]
	[ "$fails" -eq 0 ]
}

@test "string literals read \\u, \\U and octal escapes as Spark's parser does" {
	sc_server_env
	# U+00E9 two ways, a surrogate pair and its \U form, octal \101, an
	# escape of an ordinary letter, and \u without four hex digits.
	run -0 --separate-stderr sc-exec --format csv --no-header \
	    "SELECT 'caf\u00e9' AS a, 'cafe\u0301' AS b, '\uD83D\uDE42' AS c, '\U0001F642' AS d, '\101\q' AS e, '\u12' AS f, length('\u00e9') AS g"
	[ "$output" = "$(printf 'caf\xc3\xa9,cafe\xcc\x81,\xf0\x9f\x99\x82,\xf0\x9f\x99\x82,Aq,u12,1')" ]
	# A lone surrogate is '?', as Java writes it in UTF-8.
	run -0 --separate-stderr sc-exec --format csv --no-header "SELECT 'x\uD800y' AS s"
	[ "$output" = "x?y" ]
}

# wrong_args SQL WANT: sc-exec exits 1 with Spark's WRONG_NUM_ARGS text:
# the counts the function takes as Spark writes them (2, [1, 2], > 0).
wrong_args() {
	run -1 --separate-stderr sc-exec -t 30s "$1"
	[ "$stderr" = "sc-exec: [WRONG_NUM_ARGS.WITHOUT_SUGGESTION] $2 Please, refer to 'https://spark.apache.org/docs/latest/sql-ref-functions.html' for a fix. SQLSTATE: 42605" ]
	[ -z "$output" ]
}

@test "a wrong number of arguments: Spark's class and wording" {
	sc_server_env
	wrong_args "SELECT upper()" \
	    'The `upper` requires 1 parameters but the actual number is 0.'
	wrong_args "SELECT substr('abc')" \
	    'The `substr` requires [2, 3] parameters but the actual number is 1.'
	wrong_args "SELECT concat_ws()" \
	    'The `concat_ws` requires > 0 parameters but the actual number is 0.'
	# Functions that translate their own call are checked the same way.
	wrong_args "SELECT transform(array(1))" \
	    'The `transform` requires 2 parameters but the actual number is 1.'
	wrong_args "SELECT make_ym_interval(1, 2, 3)" \
	    'The `make_ym_interval` requires [0, 1, 2] parameters but the actual number is 3.'
}

@test "DISTINCT in a function that is no aggregate: Spark's class and words" {
	sc_server_env
	run -1 --separate-stderr sc-exec -t 30s "SELECT upper(DISTINCT 'a')"
	[ "$stderr" = 'sc-exec: [INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX] Invalid SQL syntax: The function `upper` does not support DISTINCT. SQLSTATE: 42000' ]
	[ -z "$output" ]
}

@test "an unknown function: UNRESOLVED_ROUTINE in Spark's words, no file named" {
	sc_server_env
	run -1 --separate-stderr sc-exec -t 30s "SELECT no_such_fn(1)"
	[ "$stderr" = 'sc-exec: [UNRESOLVED_ROUTINE] Cannot resolve routine `no_such_fn` on search path [`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`]. SQLSTATE: 42883' ]
	[ -z "$output" ]
}

@test "the search path names the session's current database, as Spark's does" {
	sc_server_env
	run -1 --separate-stderr sc-exec -t 30s --session-id "$(cat /proc/sys/kernel/random/uuid)" \
	    "CREATE DATABASE IF NOT EXISTS fn_db; USE fn_db; SELECT no_such_fn(1)"
	[[ "$stderr" == *'[UNRESOLVED_ROUTINE] Cannot resolve routine `no_such_fn` on search path [`system`.`builtin`, `system`.`session`, `spark_catalog`.`fn_db`]. SQLSTATE: 42883'* ]]
}
