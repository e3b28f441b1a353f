#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 00-basics: every program is built, answers -V and -h, and rejects a
# bad option with exit 2 and a usage hint on stderr.

bats_require_minimum_version 1.7.0
load helpers/common

programs() {
	local d
	for d in "$SCTK_TOP"/cmd/sc-*; do
		basename "$d"
	done
}

@test "every program in cmd/ is built" {
	local p n=0
	for p in $(programs); do
		[ -x "$SCTK_BUILD/bin/$p" ]
		n=$((n + 1))
	done
	[ "$n" -ge 2 ]
}

@test "-V prints the name and version on stdout" {
	local p
	for p in $(programs); do
		run --separate-stderr -0 "$p" -V
		[ "$output" = "$p 0.1.0" ]
		[ -z "$stderr" ]
	done
}

@test "-h prints usage on stdout and exits 0" {
	local p
	for p in $(programs); do
		run --separate-stderr -0 "$p" -h
		[[ "${lines[0]}" == "usage: $p "* ]]
		[ -z "$stderr" ]
	done
}

@test "an unknown option exits 2 with a hint on stderr" {
	local p
	for p in $(programs); do
		run --separate-stderr -2 "$p" --no-such-option
		[ -z "$output" ]
		[[ "$stderr" == *"try '$p --help'"* ]]
	done
}

@test "every program has a man page that lints clean" {
	local p
	for p in $(programs); do
		[ -f "$SCTK_TOP/man/$p.1" ]
		run -0 mandoc -Tlint -W warning "$SCTK_TOP/man/$p.1"
		[ -z "$output" ]
	done
}
