#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 45-disk-full: the disk fills up.  sc-serve's artifact store and
# --database on a small tmpfs this file mounts (skipped when it cannot
# mount one): the client gets a clear error class, nothing partial is
# kept, and the server goes on serving.  The clients writing to a full
# device (a private /dev/full node): exit 9 with the reason, never 0, and
# the node is still a device afterwards.

bats_require_minimum_version 1.7.0
load helpers/common

MNT="$BATS_FILE_TMPDIR/mnt"

setup_file() {
	mkdir -p "$MNT"
	if ! mount -t tmpfs -o size=8m,mode=0700 sctk-full "$MNT" 2>/dev/null; then
		export SCTK_NO_MOUNT=1
		return 0
	fi
}

teardown_file() {
	[ -n "${SCTK_NO_MOUNT:-}" ] || umount "$MNT" 2>/dev/null || true
}

setup() {
	[ -z "${SCTK_NO_MOUNT:-}" ] ||
	    skip "cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN)"
	rm -rf "${MNT:?}"/*
	mkdir -m 700 "$MNT/art"
	local ready="$BATS_TEST_TMPDIR/ready"
	sc-serve --listen 127.0.0.1:0 --ready-file "$ready" \
	    --artifact-dir "$MNT/art" --database "$MNT/db.sqlite" \
	    >"$BATS_TEST_TMPDIR/server.log" 2>&1 3>&- &
	SERVER=$!
	wait_for test -s "$ready"
	ADDR=$(cat "$ready")
}

teardown() {
	if [ -n "${SERVER:-}" ]; then
		kill -TERM "$SERVER" 2>/dev/null || true
		wait "$SERVER" 2>/dev/null || true
	fi
	SERVER=
}

uuid() {
	cat /proc/sys/kernel/random/uuid
}

@test "an artifact bigger than the free space: ARTIFACT_STORE_FULL, no staging file left, the next upload and query work" {
	local sid big="$BATS_TEST_TMPDIR/big.bin"
	sid=$(uuid)
	head -c $((20 * 1024 * 1024)) /dev/urandom >"$big"
	run -1 --separate-stderr sc-upload -s "$ADDR" --session-id "$sid" \
	    --as files/big.bin "$big"
	[ "$output" = "" ]
	[ "$stderr" = "sc-upload: [ARTIFACT_STORE_FULL] Cannot store artifact \`files/big.bin\`: the artifact store is out of space (No space left on device). SQLSTATE: 53100" ]
	# Nothing of it is kept: no staging file, no stored file, the
	# space is free again.
	[ "$(find "$MNT/art" -type f ! -name .lock)" = "" ]
	[ "$(du -sk "$MNT" | cut -f1)" -lt 1024 ]
	echo small >"$BATS_TEST_TMPDIR/small.txt"
	run -0 sc-upload -s "$ADDR" --session-id "$sid" "$BATS_TEST_TMPDIR/small.txt"
	[ "$(cut -f1,2,5 <<<"$output")" = "files/small.txt	6	uploaded" ]
	cmp "$BATS_TEST_TMPDIR/small.txt" "$MNT/art/"*/files/small.txt
	run -0 sc-exec -s "$ADDR" --no-header 'SELECT count(*) FROM range(1000)'
	[ "$output" = 1000 ]
}

@test "a table bigger than the free space: DATABASE_FULL, rolled back, the server goes on" {
	run -0 sc-exec -s "$ADDR" 'CREATE TABLE small AS SELECT id FROM range(10)'
	run -1 --separate-stderr sc-exec -s "$ADDR" \
	    'CREATE TABLE big AS SELECT id, id * 2 AS b FROM range(2000000)'
	[ "$output" = "" ]
	[ "$stderr" = "sc-exec: [DATABASE_FULL] The database is out of space (database or disk is full); the statement was rolled back. SQLSTATE: 53100" ]
	# Nothing of it is visible; what was there before is intact.
	run -1 --separate-stderr sc-exec -s "$ADDR" 'SELECT count(*) FROM big'
	[[ "$stderr" == "sc-exec: [TABLE_OR_VIEW_NOT_FOUND]"* ]]
	run -0 sc-exec -s "$ADDR" --no-header 'SELECT count(*), sum(id) FROM small'
	[ "$output" = "10,45" ]
	run -0 sc-exec -s "$ADDR" --no-header 'SELECT count(*) FROM range(1000)'
	[ "$output" = 1000 ]
}

# to_full CMD...: CMD with its standard output on the full device.
to_full() {
	"$@" >"$BATS_TEST_TMPDIR/full"
}

@test "a full device as output: exit 9 with the reason from every client; the node stays a device" {
	local full="$BATS_TEST_TMPDIR/full" sid
	mknod -m 666 "$full" c 1 7 2>/dev/null || skip "cannot make a device node"
	sid=$(uuid)
	run -9 --separate-stderr sc-exec -s "$ADDR" -o "$full" \
	    'SELECT id FROM range(100000)'
	[ "$stderr" = "sc-exec: cannot write output: No space left on device" ]
	[ -c "$full" ]
	run -9 --separate-stderr to_full sc-exec -s "$ADDR" \
	    'SELECT id FROM range(100000)'
	[ "$stderr" = "sc-exec: cannot write output: No space left on device" ]
	run -9 --separate-stderr to_full sc-inspect -s "$ADDR" stats
	[ "$stderr" = "sc-inspect: cannot write output: No space left on device" ]
	echo x >"$BATS_TEST_TMPDIR/x.txt"
	run -9 --separate-stderr to_full sc-upload -s "$ADDR" \
	    --session-id "$sid" "$BATS_TEST_TMPDIR/x.txt"
	[ "$stderr" = "sc-upload: cannot write output: No space left on device" ]
	run -9 --separate-stderr to_full sc-release -s "$ADDR" \
	    --session-id "$sid" --session
	[ "$stderr" = "sc-release: cannot write output: No space left on device" ]
	[ -c "$full" ]
}
