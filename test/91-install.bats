#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 91-install: make install puts every program and man page under
# DESTDIR/PREFIX, and make uninstall removes them again.

bats_require_minimum_version 1.7.0
load helpers/common

setup() {
	dest="$BATS_TEST_TMPDIR/root"
	build=${SCTK_BUILD#"$SCTK_TOP"/}
	# Test files run in parallel: make install must not relink programs
	# other files are running, so the tree must be built already.
	make -q -C "$SCTK_TOP" BUILD="$build" all || {
		echo "the programs in $build are not up to date: make all first" >&2
		return 1
	}
}

@test "make install DESTDIR PREFIX installs programs and man pages" {
	local d p n=0
	run -0 make -s -C "$SCTK_TOP" BUILD="$build" DESTDIR="$dest" \
	    PREFIX=/usr install
	for d in "$SCTK_TOP"/cmd/sc-*; do
		p=$(basename "$d")
		[ -x "$dest/usr/bin/$p" ]
		[ -f "$dest/usr/share/man/man1/$p.1" ]
		n=$((n + 1))
	done
	[ "$n" -ge 2 ]
	[ -f "$dest/usr/share/man/man7/sctk.7" ]
	run -0 "$dest/usr/bin/sc-exec" -V
	[ "$output" = "sc-exec 0.1.0" ]
}

@test "make uninstall removes what install put there" {
	run -0 make -s -C "$SCTK_TOP" BUILD="$build" DESTDIR="$dest" \
	    PREFIX=/usr install
	run -0 make -s -C "$SCTK_TOP" BUILD="$build" DESTDIR="$dest" \
	    PREFIX=/usr uninstall
	run -0 find "$dest" -type f
	[ -z "$output" ]
}
