#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 33-sc-serve-artifacts: the artifact store on disk.  --artifact-dir is
# created 0700 with files 0600; the default store is private and gone
# after a clean stop; a directory others can read, or one another server
# uses, is refused at start-up; session directories a killed server left
# are removed; a full disk (a small tmpfs) gives ARTIFACT_STORE_FULL and
# leaves nothing behind; a symbolic link planted in the store is not
# followed.  Uploads go through the Node client (conformance/
# artifacts.js), which transfers as Spark's clients do.  (The protocol
# itself is covered by conformance/18-artifacts.test.js.)

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

LOG="$BATS_FILE_TMPDIR/server.log"
PEER="$SCTK_TOP/test/conformance/artifacts.js"
SID=00112233-4455-6677-8899-aabbccddeeff

teardown() {
	sc_server_stop
	if [ -n "${MNT:-}" ]; then
		umount "$MNT" 2>/dev/null || true
		MNT=
	fi
}

# upload NAME=FILE...: one AddArtifacts call for session $SID; the
# peer's JSON line is in $output.
upload() {
	run -0 node "$PEER" upload "$SPARK_REMOTE" "$SID" "$@"
	echo "$output" >&2
}

# field KEY: a field of the JSON line in $output.
field() {
	printf '%s\n' "$output" | jq -r "$1"
}

# mode PATH: the permission bits, as 700.
mode() {
	stat -c %a "$1"
}

@test "--artifact-dir is created 0700, with directories 0700 and files 0600" {
	need_node
	local art="$BATS_TEST_TMPDIR/art" ssid
	sc_server_start --artifact-dir "$art"
	[ "$(mode "$art")" = 700 ]
	head -c 100000 /dev/urandom >"$BATS_TEST_TMPDIR/big"
	printf 'x,y\n1,2\n' >"$BATS_TEST_TMPDIR/small.csv"
	upload "files/sub/data.csv=$BATS_TEST_TMPDIR/small.csv" \
	    "jars/big.jar=$BATS_TEST_TMPDIR/big"
	[ "$(field .code)" = 0 ]
	[ "$(field '.artifacts | map(.crc) | all')" = true ]
	ssid=$(field .ssid)
	[ "$(mode "$art/$ssid")" = 700 ]
	[ "$(mode "$art/$ssid/files")" = 700 ]
	[ "$(mode "$art/$ssid/files/sub")" = 700 ]
	[ "$(mode "$art/$ssid/files/sub/data.csv")" = 600 ]
	[ "$(mode "$art/$ssid/jars/big.jar")" = 600 ]
	cmp "$BATS_TEST_TMPDIR/big" "$art/$ssid/jars/big.jar"
	cmp "$BATS_TEST_TMPDIR/small.csv" "$art/$ssid/files/sub/data.csv"
	# Nothing else: no staging file, no other session.
	run -0 find "$art" -mindepth 1 -printf '%P\n'
	[ "$(printf '%s\n' "$output" | sort | tr '\n' ' ')" = \
	    ".lock $ssid $ssid/files $ssid/files/sub $ssid/files/sub/data.csv $ssid/jars $ssid/jars/big.jar " ]
	sc_server_stop
	# A given directory stays; the sessions' artifacts go.
	[ -d "$art" ]
	run -0 find "$art" -mindepth 1
	[ -z "$output" ]
}

@test "the default store is private to the server and removed at exit" {
	need_node
	local tmp="$BATS_TEST_TMPDIR/tmp" store ssid
	mkdir "$tmp"
	TMPDIR="$tmp" sc_server_start --log-level debug
	store=$(echo "$tmp"/sc-serve-artifacts-*)
	[ -d "$store" ]
	[ "$(mode "$store")" = 700 ]
	grep -qF "artifacts in '$store'" "$LOG"
	printf 'one' >"$BATS_TEST_TMPDIR/one"
	upload "cache/abc=$BATS_TEST_TMPDIR/one"
	ssid=$(field .ssid)
	[ "$(mode "$store/$ssid/cache/abc")" = 600 ]
	run -0 node "$PEER" status "$SPARK_REMOTE" "$SID" cache/abc files/x
	[ "$output" = '{"code":0,"statuses":{"cache/abc":true,"files/x":false}}' ]
	sc_server_stop
	[ ! -e "$store" ]
	run -0 find "$tmp" -mindepth 1
	[ -z "$output" ]
}

@test "a store others can read, or one in use, is refused at start-up" {
	local art="$BATS_TEST_TMPDIR/open"
	mkdir -m 755 "$art"
	run -9 --separate-stderr sc-serve --listen 127.0.0.1:0 \
	    --artifact-dir "$art"
	[[ "$stderr" =~ ^[0-9T:.-]+Z\ [0-9]+\ E\ "artifact directory '$art' must belong to this user and be private to it (it has mode 0755); chmod 700 it"$ ]]
	chmod 700 "$art"
	sc_server_start --artifact-dir "$art"
	run -9 --separate-stderr sc-serve --listen 127.0.0.1:0 \
	    --artifact-dir "$art"
	[[ "$stderr" =~ ^[0-9T:.-]+Z\ [0-9]+\ E\ "artifact directory '$art' is in use by another sc-serve"$ ]]
	touch "$BATS_TEST_TMPDIR/file"
	run -9 --separate-stderr sc-serve --listen 127.0.0.1:0 \
	    --artifact-dir "$BATS_TEST_TMPDIR/file/x"
	[[ "$stderr" == *" E cannot create artifact directory '$BATS_TEST_TMPDIR/file/x': "* ]]
	run -2 --separate-stderr sc-serve --max-artifact-size 1x
	[[ "$stderr" == "sc-serve: invalid value for 'max-artifact-size': "* ]]
}

@test "session directories a killed server left are removed at start-up" {
	local art="$BATS_TEST_TMPDIR/art" stale
	stale="$art/6f1d2c3b-0000-4000-8000-000000000002"
	mkdir -p -m 700 "$art" "$stale/files"
	echo left >"$stale/files/x"
	touch "$stale/.upload-0123456789abcdef"
	mkdir "$art/not-a-session"
	sc_server_start --artifact-dir "$art"
	[ ! -e "$stale" ]
	[ -d "$art/not-a-session" ]
	grep -qF "removed the artifacts of 1 session an earlier server left in '$art'" "$LOG"
}

@test "a full disk is ARTIFACT_STORE_FULL and leaves nothing behind" {
	need_node
	[ "$(id -u)" -eq 0 ] || skip "mounting a small tmpfs needs root"
	MNT="$BATS_TEST_TMPDIR/full"
	mkdir "$MNT"
	mount -t tmpfs -o size=1m,mode=700 tmpfs "$MNT" 2>/dev/null ||
	    { MNT=; skip "cannot mount a tmpfs here"; }
	sc_server_start --artifact-dir "$MNT"
	head -c 3000000 /dev/urandom >"$BATS_TEST_TMPDIR/big"
	printf 'small' >"$BATS_TEST_TMPDIR/small"
	upload "files/first=$BATS_TEST_TMPDIR/small" \
	    "files/big=$BATS_TEST_TMPDIR/big"
	[ "$(field .code)" = 8 ]	# RESOURCE_EXHAUSTED
	[ "$(field .errorClass)" = ARTIFACT_STORE_FULL ]
	[[ "$(field .message)" == "[ARTIFACT_STORE_FULL] Cannot store artifact \`files/big\`: the artifact store is out of space (No space left on device). SQLSTATE: 53100" ]]
	grep -qE " W artifact store: cannot write for 'files/big': No space left on device$" "$LOG"
	# Nothing of the call is left, and the space is free again.
	run -0 find "$MNT" -type f -printf '%P\n'
	[ "$output" = .lock ]
	upload "files/after=$BATS_TEST_TMPDIR/small"
	[ "$(field .code)" = 0 ]
	head -c 900000 /dev/urandom >"$BATS_TEST_TMPDIR/fits"
	upload "files/fits=$BATS_TEST_TMPDIR/fits"
	[ "$(field .code)" = 0 ]
}

@test "a symbolic link planted in the store is not followed" {
	need_node
	local art="$BATS_TEST_TMPDIR/art" out="$BATS_TEST_TMPDIR/outside" ssid
	mkdir -m 700 "$art" "$out"
	echo secret >"$out/secret"
	sc_server_start --artifact-dir "$art"
	printf 'j' >"$BATS_TEST_TMPDIR/j"
	upload "jars/a.jar=$BATS_TEST_TMPDIR/j"
	ssid=$(field .ssid)
	# A directory of the path, and a stored file, become links.
	ln -s "$out" "$art/$ssid/files"
	upload "files/x.csv=$BATS_TEST_TMPDIR/j"
	[ "$(field .errorClass)" = INVALID_ARTIFACT_PATH ]
	[ "$(field .message)" = "[INVALID_ARTIFACT_PATH] Artifact with name: \`files/x.csv\` is invalid: 'files' in the session's store is a symbolic link." ]
	[ ! -e "$out/x.csv" ]
	rm "$art/$ssid/jars/a.jar"
	ln -s "$out/secret" "$art/$ssid/jars/a.jar"
	upload "jars/a.jar=$BATS_TEST_TMPDIR/j"
	[ "$(field .errorClass)" = INVALID_ARTIFACT_PATH ]
	[ "$(cat "$out/secret")" = secret ]
	# The session's release removes the links, not their targets.
	sc_server_stop
	[ ! -e "$art/$ssid" ]
	[ "$(cat "$out/secret")" = secret ]
	[ "$(ls "$out")" = secret ]
}
