#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 90-docs: man pages, usage strings and the exit-code table stay in sync.

bats_require_minimum_version 1.7.0
load helpers/common

@test "sctk.7 lints clean" {
	run -0 mandoc -Tlint -W warning "$SCTK_TOP/man/sctk.7"
	[ -z "$output" ]
}

@test "--help equals the man page SYNOPSIS for every program" {
	run -0 "$SCTK_TOP/scripts/check-usage" "$SCTK_BUILD"
}

@test "exit codes in error.h match sctk.7 and every page" {
	run -0 "$SCTK_TOP/scripts/check-exit-codes"
}

@test "check-exit-codes notices a missing code" {
	local t="$BATS_TEST_TMPDIR/tree"
	mkdir -p "$t/scripts" "$t/lib/core" "$t/man"
	cp "$SCTK_TOP/scripts/check-exit-codes" "$t/scripts/"
	cp "$SCTK_TOP/lib/core/error.h" "$t/lib/core/"
	sed '/^\.It 6$/,+1d' "$SCTK_TOP/man/sctk.7" >"$t/man/sctk.7"
	run -1 "$t/scripts/check-exit-codes"
	[[ "$output" == *"sctk.7 lists"* ]]
}

@test "the README names both set-up commands" {
	grep -q '^    make demo ' "$SCTK_TOP/README.md"
	grep -q '^    make check ' "$SCTK_TOP/README.md"
}

@test "no new message split over lines (check-messages)" {
	run -0 "$SCTK_TOP/scripts/check-messages"
}

@test "check-messages notices a new split message" {
	local t="$BATS_TEST_TMPDIR/tree"
	mkdir -p "$t/scripts"
	cp "$SCTK_TOP/scripts/check-messages" \
	    "$SCTK_TOP/scripts/check-messages.allow" "$t/scripts/"
	cp -r "$SCTK_TOP/lib" "$SCTK_TOP/cmd" "$t/"
	printf 'static void f(struct sc_error *e)\n{\n\tsc_error_set(e, 1, "one "\n\t    "message");\n}\n' >>"$t/lib/core/uuid.c"
	run -1 "$t/scripts/check-messages"
	[[ "$output" == "check-messages: lib/core/uuid.c splits 1 messages over lines (allowed: 0); keep a message on one line:"* ]]
}

# N10: sctk(7)'s first example read the ready file before the server had
# written it.  Run it as written (its sc-serve is the build's), then stop
# the server it started.
@test "sctk.7's first example runs as written: it waits for the ready file" {
	local ex
	ex=$(sed -n '/^\.Sh EXAMPLES/,$p' "$SCTK_TOP/man/sctk.7" |
	    sed -n '/^\.Bd -literal/,/^\.Ed/{/^\.Bd/d;/^\.Ed/q;p}' |
	    sed 's/\\e/\\/g')
	[[ "$ex" == *"--ready-file"* ]]
	cd "$BATS_TEST_TMPDIR"
	run --separate-stderr -0 env PATH="$SCTK_BUILD/bin:$PATH" bash -c \
	    "$ex"'
	rc=$?; kill -TERM $! && wait $!; exit $rc' 3>&-
	[ "$output" = "$(printf 'id,sq\n0,0\n1,1\n2,4\n3,9\n4,16')" ]
}

# N20: the connection options' help said "--session-id: default from the
# URI, else new" for sc-inspect (which refuses it) and sc-release (which
# needs one unless the ids carry it); no synopsis showed --insecure or
# --unreachable-timeout; sc-upload split one sentence over two options.
@test "--help describes --session-id as each program uses it, and every connection option" {
	local p
	run -0 "$SCTK_BUILD/bin/sc-inspect" --help
	[[ "$output" != *"--session-id"* ]]
	run -0 "$SCTK_BUILD/bin/sc-release" --help
	[[ "$output" == *"--session-id uuid  the operations' session (default from the"* ]]
	[[ "$output" != *"else new"* ]]
	for p in sc-exec sc-upload; do
		run -0 "$SCTK_BUILD/bin/$p" --help
		[[ "$output" == *"--session-id uuid  session id (default from the URI, else new)"* ]]
	done
	for p in sc-exec sc-release sc-upload sc-inspect; do
		run -0 "$SCTK_BUILD/bin/$p" --help
		[[ "$(sed '/^$/q' <<<"$output")" == *"[--insecure]"* ]]
		[[ "$(sed '/^$/q' <<<"$output")" == *"[--unreachable-timeout time]"* ]]
	done
	run -0 "$SCTK_BUILD/bin/sc-upload" --help
	[[ "$output" == *"--no-progress      do not (default: show it on a terminal)"* ]]
}
