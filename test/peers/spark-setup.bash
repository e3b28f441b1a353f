# SPDX-License-Identifier: MIT
#
# spark-setup.bash: loaded by the bats files under test/peers/.  The
# real Spark server is slow to start (30 to 90 s, about 1 GB), so
# scripts/check-peers starts one and exports PEERS_SPARK_REMOTE; a bats
# file run alone starts its own in setup_file.  Without the peers
# (make peers) every test is skipped with one line saying what is
# missing.

SCTK_TOP=${SCTK_TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
load ../helpers/common
load peers

# The settings the shared Spark runs with: streams rotated every 64 KiB
# so that sctk's clients reattach, as test/20-sc-exec-reattach.bats does
# against sc-serve.
PEERS_SPARK_CONF=(
	--conf spark.connect.execute.reattachable.senderMaxStreamSize=65536
)

# peers_spark_setup: in setup_file; sets SPARK_URL or PEERS_MISSING.
peers_spark_setup() {
	PEERS_MISSING=
	if ! peer_env >"$BATS_FILE_TMPDIR/peers.missing"; then
		PEERS_MISSING=$(cat "$BATS_FILE_TMPDIR/peers.missing")
		export PEERS_MISSING
		return 0
	fi
	if [ -n "${PEERS_SPARK_REMOTE:-}" ]; then
		SPARK_URL=$PEERS_SPARK_REMOTE
	else
		peer_spark_start "$BATS_FILE_TMPDIR/spark" "$(peer_free_port)" \
		    "${PEERS_SPARK_CONF[@]}" || return 1
		SPARK_URL=$(cat "$BATS_FILE_TMPDIR/spark/remote")
	fi
	export SPARK_URL PEERS_MISSING
}

peers_spark_teardown() {
	[ -d "$BATS_FILE_TMPDIR/spark" ] && peer_stop "$BATS_FILE_TMPDIR/spark"
	true
}

# peers_serve_setup: in setup_file after peers_spark_setup; a private
# sc-serve from the build, its address in SERVE_URL.
peers_serve_setup() {
	[ -n "$PEERS_MISSING" ] && return 0
	peer_serve_start "$BATS_FILE_TMPDIR/serve" || return 1
	SERVE_URL=$(cat "$BATS_FILE_TMPDIR/serve/remote")
	export SERVE_URL
}

peers_serve_teardown() {
	[ -d "$BATS_FILE_TMPDIR/serve" ] && peer_stop "$BATS_FILE_TMPDIR/serve"
	true
}

# need_peers: in each test; skips when the peers are not installed.
need_peers() {
	[ -z "${PEERS_MISSING:-}" ] || skip "$PEERS_MISSING"
}

# new_sid: a fresh session id, so that tests never share state on the
# long-lived Spark.
new_sid() {
	"$PEERS_PY" -c 'import uuid; print(uuid.uuid4())'
}
