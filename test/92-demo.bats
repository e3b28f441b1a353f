#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 92-demo: the README's "make demo" runs a query through the protocol on
# a private server and prints the right answers.

bats_require_minimum_version 1.7.0
load helpers/common

@test "scripts/demo prints the query results and stops its server" {
	run --separate-stderr -0 env BUILD="${SCTK_BUILD#"$SCTK_TOP"/}" \
	    "$SCTK_TOP/scripts/demo"
	[[ "${lines[0]}" =~ ^sc-serve\ is\ listening\ on\ sc://127\.0\.0\.1:[0-9]+$ ]]
	[[ "$output" == *$'\n 5      25  row 5\n'* ]]
	[[ "$output" == *$'\nid\n0\n2\n4\n'* ]]
	[[ "$output" == *$'\n1000000,499999500000\n'* ]]
	[[ "$output" == *'{"tool":"sctk","spark":3.5,"missing":null}'* ]]
	[ "${lines[-1]}" = "stopping sc-serve" ]
}
