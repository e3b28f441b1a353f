#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 37-sc-exec-nested: sc-exec prints struct, array and map columns as
# Spark's show() does ({1, x}, [1, 2], {k -> 1}, NULL members) in its
# table, CSV and TSV output, and as nested JSON in JSON lines; a JSON
# schema's \u escapes name their characters.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

Q="SELECT named_struct('a', 1, 'b', 'x') AS s, array(1, 2) AS a, map('k', 1) AS m, array(named_struct('a', 1, 'b', 'y')) AS l, array(NULL, 3) AS n, array('a b', 'c') AS t, if(false, array(1), NULL) AS z"

setup_file() {
	sc_server_start
}

teardown_file() {
	sc_server_stop
}

setup() {
	sc_server_env
}

@test "TSV: nested values as show() prints them" {
	run -0 --separate-stderr sc-exec -t 30s --format tsv --null NULL "$Q"
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = $'s\ta\tm\tl\tn\tt\tz' ]
	[ "${lines[1]}" = $'{1, x}\t[1, 2]\t{k -> 1}\t[{1, y}]\t[NULL, 3]\t[a b, c]\tNULL' ]
}

@test "CSV: nested values quoted where they hold a comma" {
	run -0 --separate-stderr sc-exec -t 30s --format csv "$Q"
	[ "$stderr" = "" ]
	[ "${lines[1]}" = '"{1, x}","[1, 2]",{k -> 1},"[{1, y}]","[NULL, 3]","[a b, c]",' ]
}

@test "table: nested values as show() prints them" {
	run -0 --separate-stderr sc-exec -t 30s --format table "$Q"
	[ "$stderr" = "" ]
	[ "${lines[2]}" = '{1, x}  [1, 2]  {k -> 1}  [{1, y}]  [NULL, 3]  [a b, c]  NULL' ]
}

@test "JSON lines: nested values stay nested JSON" {
	run -0 --separate-stderr sc-exec -t 30s --format jsonl "$Q"
	[ "$stderr" = "" ]
	[ "$output" = '{"s":{"a":1,"b":"x"},"a":[1,2],"m":{"k":1},"l":[{"a":1,"b":"y"}],"n":[null,3],"t":["a b","c"],"z":null}' ]
}

@test "a JSON schema's \\u escapes are the characters they name (数量, a surrogate pair)" {
	local schema='{"type":"struct","fields":[{"name":"\\u6570\\u91cf","type":"integer","nullable":true,"metadata":{}},{"name":"x\\ud83d\\ude00","type":"string","nullable":true,"metadata":{}}]}'
	local q="SELECT from_json('{\"数量\": 7, \"x😀\": \"y\"}', '$schema') AS r"
	run -0 --separate-stderr sc-exec -t 30s --analyze "$q"
	[ "$stderr" = "" ]
	[ "${lines[1]}" = 'r,"struct<数量:int,x😀:string>",true' ]
	run -0 --separate-stderr sc-exec -t 30s --format jsonl "$q"
	[ "$stderr" = "" ]
	[ "$output" = '{"r":{"数量":7,"x😀":"y"}}' ]
}
