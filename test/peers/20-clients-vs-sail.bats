#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 20-clients-vs-sail: sctk's clients against Sail, the Rust Spark
# Connect server, where Sail has the feature: sc-exec in every text
# format (byte-compared with sc-serve), large results, --detach and
# --attach, sc-release, sc-inspect's refusal.  What Sail lacks is
# asserted as such: artifacts (sc-upload), Spark's error classes.

bats_require_minimum_version 1.7.0
SCTK_TOP=${SCTK_TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
load ../helpers/common
load peers

Q="SELECT id, id * 2 AS twice, CAST(id AS STRING) AS s, id % 3 = 0 AS b, CAST(id AS DOUBLE) / 4 AS d, DATE'2024-01-01' + CAST(id AS INT) AS dt, IF(id = 2, NULL, 'x') AS n FROM range(7)"

setup_file() {
	PEERS_MISSING=
	if ! peer_env >"$BATS_FILE_TMPDIR/peers.missing"; then
		PEERS_MISSING=$(cat "$BATS_FILE_TMPDIR/peers.missing")
		export PEERS_MISSING
		return 0
	fi
	peer_sail_start "$BATS_FILE_TMPDIR/sail" "$(peer_free_port)"
	peer_serve_start "$BATS_FILE_TMPDIR/serve"
	SAIL_URL=$(cat "$BATS_FILE_TMPDIR/sail/remote")
	SERVE_URL=$(cat "$BATS_FILE_TMPDIR/serve/remote")
	export SAIL_URL SERVE_URL PEERS_MISSING
}

teardown_file() {
	[ -d "$BATS_FILE_TMPDIR/sail" ] && peer_stop "$BATS_FILE_TMPDIR/sail"
	[ -d "$BATS_FILE_TMPDIR/serve" ] && peer_stop "$BATS_FILE_TMPDIR/serve"
	true
}

setup() {
	[ -z "${PEERS_MISSING:-}" ] || skip "$PEERS_MISSING"
	export SPARK_REMOTE=$SAIL_URL
}

new_sid() {
	"$PEERS_PY" -c 'import uuid; print(uuid.uuid4())'
}

@test "sc-exec on Sail: every text format is byte-identical to sc-serve's" {
	local f
	for f in csv tsv jsonl table vertical; do
		sc-exec -s "$SAIL_URL" --format "$f" "$Q" >"$BATS_TEST_TMPDIR/sail.$f"
		sc-exec -s "$SERVE_URL" --format "$f" "$Q" \
		    >"$BATS_TEST_TMPDIR/serve.$f"
		cmp "$BATS_TEST_TMPDIR/sail.$f" "$BATS_TEST_TMPDIR/serve.$f"
	done
	run -0 head -2 "$BATS_TEST_TMPDIR/sail.csv"
	[ "$output" = "id,twice,s,b,d,dt,n
0,0,0,true,0.0,2024-01-01,x" ]
}

@test "sc-exec on Sail: a large result arrives whole" {
	run -0 --separate-stderr sc-exec --no-header --range 0:200000
	[ "${#lines[@]}" -eq 200000 ]
	[ "$output" = "$(seq 0 199999)" ]
}

@test "sc-exec on Sail: --detach then --attach" {
	local sid op
	sid=$(new_sid)
	run -0 --separate-stderr sc-exec --session-id "$sid" --detach \
	    "SELECT id FROM range(3)"
	op=$output
	[[ "$op" =~ ^[0-9a-f-]{36}$ ]]
	run --separate-stderr sc-exec --session-id "$sid" --no-header \
	    --attach "$op"
	# Sail 0.7 often drops an operation whose client went away; it says
	# so in more than one way (its task context, or the operation, is
	# not found, or the reattach finds the stream gone).
	echo "status $status: $stderr"
	if [ "$status" -ne 0 ] &&
	    [[ "$stderr" == *"not found"* || "$stderr" == *NOT_FOUND* ||
		"$stderr" == *"lost operation"* ||
		"$stderr" == *"ended operation"* ]]; then
		skip "Sail lacks it: a detached operation is gone (${stderr:0:120})"
	fi
	[ "$status" -eq 0 ]
	[ "$output" = "0
1
2" ]
}

@test "sc-release on Sail: an operation, interrupt --all, the session" {
	local sid op
	sid=$(new_sid)
	op=$(sc-exec --session-id "$sid" --detach "SELECT id FROM range(3)")
	run -0 --separate-stderr sc-release --session-id "$sid" "$op"
	[ "$output" = "$op	released" ]
	run -0 --separate-stderr sc-release --session-id "$sid" --interrupt --all
	[ "$stderr" = "sc-release: no operation of the session was running" ]
	run -0 --separate-stderr sc-release --session-id "$sid" --session
	[ "$output" = "$sid	session released" ]
}

@test "sc-exec on Sail: a query error is exit 1 (Sail sends no Spark error class)" {
	run -1 --separate-stderr sc-exec "SELECT nope"
	[[ "$stderr" == "sc-exec: "*"nope"* ]]
}

@test "sc-upload on Sail: Sail has no artifacts; sc-upload says so and exits 1" {
	printf 'a\n' >"$BATS_TEST_TMPDIR/x.csv"
	run -1 --separate-stderr sc-upload --session-id "$(new_sid)" \
	    "$BATS_TEST_TMPDIR/x.csv"
	[ "$stderr" = "sc-upload: handle add artifacts" ]
}

@test "sc-inspect on Sail: no admin service, exit 7" {
	run -7 --separate-stderr sc-inspect
	[ "$stderr" = "sc-inspect: the server at '$SAIL_URL' has no sctk admin service (not sc-serve?)" ]
}
