# SPDX-License-Identifier: MIT
#
# common.bash: loaded by every bats file (load helpers/common).
# Sets PATH to the build's programs and exports the locations the tests
# use: SCTK_BUILD (build dir), SCTK_TOP (source tree), SCTK_NODE_PATH.

SCTK_TOP=${SCTK_TOP:-$(cd "$BATS_TEST_DIRNAME/.." && pwd)}
SCTK_BUILD=${SCTK_BUILD:-$SCTK_TOP/build}
SCTK_NODE_DIR=${SCTK_NODE_DIR:-$SCTK_TOP/build/node}
SCTK_NODE_PATH=${SCTK_NODE_PATH:-$SCTK_NODE_DIR/node_modules}
export SCTK_TOP SCTK_BUILD SCTK_NODE_DIR SCTK_NODE_PATH
export PATH="$SCTK_BUILD/bin:$SCTK_BUILD/test/tools:$PATH"
export GRPC_VERBOSITY=${GRPC_VERBOSITY:-NONE}
# The tests must not pick up the caller's server or token; a file's own
# server (sc_server_start in setup_file) exports SCTK_SERVER_PID and
# SPARK_REMOTE, which this file is loaded again after, so keep those.
if [ -z "${SCTK_SERVER_PID:-}" ]; then
	unset SPARK_REMOTE
fi
unset SPARK_CONNECT_AUTHENTICATE_TOKEN

# Under a sanitizer build, every process writes its reports next to the
# file's temporary files; check_sanitizer_reports fails if any exist.
if [ -n "${SCTK_SANITIZE:-}" ] && [ -n "${BATS_FILE_TMPDIR:-}" ]; then
	export ASAN_OPTIONS="log_path=$BATS_FILE_TMPDIR/asan:${ASAN_OPTIONS:-}"
	export UBSAN_OPTIONS="log_path=$BATS_FILE_TMPDIR/ubsan:${UBSAN_OPTIONS:-}"
fi

check_sanitizer_reports() {
	local f found=0
	for f in "$BATS_FILE_TMPDIR"/asan.* "$BATS_FILE_TMPDIR"/ubsan.*; do
		[ -e "$f" ] || continue
		echo "sanitizer report $f:" >&2
		cat "$f" >&2
		found=1
	done
	return $found
}

# need_node: skip the test when the Node peer is unavailable.
need_node() {
	command -v node >/dev/null 2>&1 || skip "node is not installed"
	if [ ! -d "$SCTK_NODE_PATH/@grpc/grpc-js" ]; then
		"$SCTK_TOP/scripts/npm-deps" "$SCTK_NODE_DIR" >/dev/null 2>&1 ||
		    skip "npm packages could not be installed"
	fi
	export NODE_PATH="$SCTK_NODE_PATH"
}

# SCTK_WAIT_STEPS: how many 0.1 s steps a wait for a condition may take.
# The bound is generous (60 s, 240 s under sanitizers; SCTK_WAIT sets the
# former) because a loaded machine is slow; a condition that holds ends
# the wait at once, so the bound costs nothing when the test passes.
SCTK_WAIT_STEPS=${SCTK_WAIT:-600}
if [ -n "${SCTK_SANITIZE:-}" ]; then
	SCTK_WAIT_STEPS=$((SCTK_WAIT_STEPS * 4))
fi

# wait_for CMD...: poll a condition for up to SCTK_WAIT_STEPS steps of
# 0.1 s.
wait_for() {
	local i n=$SCTK_WAIT_STEPS
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
