#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 93-layers: lib/server's layers, checked on the built objects.  The
# SQLite engine (engine*.o, with its Spark SQL parser, sql*.o) and the
# Spark errors it raises (srverror.o) sit on lib/core alone: they call nothing of the RPC layer (rpc*.o), the
# session manager (session.o), the execution manager (exec*.o) or the
# service (service.o, srverror_rpc.o), and they link into a program with
# lib/core minus its RPC objects and without the gRPC libraries.

bats_require_minimum_version 1.7.0
load helpers/common

setup() {
	obj="$SCTK_BUILD/obj"
	engine=("$obj"/lib/server/engine*.o "$obj"/lib/server/sql*.o)
	[ -e "${engine[0]}" ] || skip "no engine objects in $obj"
	[ -e "$obj/lib/server/srverror.o" ]
}

@test "the engine and srverror.o name nothing of rpc, sessions, executions" {
	local o bad=
	for o in "${engine[@]}" "$obj/lib/server/srverror.o"; do
		run -0 nm -u "$o"
		bad+=$(printf '%s\n' "$output" | awk -v o="${o##*/}" '
		    $2 ~ /^(sc_rpc_|sc_sess|sc_exec|sc_service_|sc_srv_finish|grpc_|gpr_)/ {
			print o ": " $2
		    }')
	done
	[ -z "$bad" ] || { echo "$bad"; false; }
}

@test "the engine links with lib/core minus rpc and without gRPC" {
	local t="$BATS_TEST_TMPDIR" core=()
	local o
	for o in "$obj"/lib/core/*.o; do
		case ${o##*/} in rpc*.o) continue ;; esac
		core+=("$o")
	done
	[ "${#core[@]}" -gt 10 ]
	run -0 ar rcs "$t/core.a" "${core[@]}" \
	    $(find "$obj/gen" -name '*.o')
	printf 'int main(void) { return 0; }\n' >"$t/main.c"
	# Every object named here is linked whole: all that it calls must be
	# found in lib/core's archive (which pulls only what is needed).
	run -0 "${CC:-cc}" ${SANITIZE:+-fsanitize=$SANITIZE} -o "$t/layer" \
	    "$t/main.c" "${engine[@]}" "$obj/lib/server/srverror.o" \
	    "$obj/lib/server/conf.o" "$t/core.a" \
	    -lprotobuf-c -lsqlite3 -lz -lcrypto -lpthread -lm
	[ -x "$t/layer" ]
	# Nothing of the RPC layer came in through lib/core either.
	run -0 nm "$t/layer"
	run -1 grep -E ' [TtDdBb] (sc_rpc_|grpc_)' <<<"$output"
}

@test "without srverror.o the engine's error calls stay unresolved" {
	# The check above can fail: leave out the error module and the
	# link must name sc_srv_error.
	local t="$BATS_TEST_TMPDIR"
	printf 'int main(void) { return 0; }\n' >"$t/main.c"
	run ! "${CC:-cc}" ${SANITIZE:+-fsanitize=$SANITIZE} -o "$t/layer" \
	    "$t/main.c" "${engine[@]}" "$obj/lib/server/conf.o" \
	    "$SCTK_BUILD/lib/libsccore.a" \
	    -lgrpc -lgpr -lprotobuf-c -lsqlite3 -lz -lcrypto -lpthread -lm
	[[ "$output" == *"undefined reference to \`sc_srv_error'"* ]]
}

# part NAME: the part of lib/server a file NAME (without .c or .h)
# belongs to: the engine with its Spark SQL parser, srverror_rpc apart
# from srverror, else the name before its first '_' (exec_sched: exec).
part() {
	case $1 in
	engine* | sql*) echo engine ;;
	srverror_rpc) echo srverror_rpc ;;
	*) echo "${1%%_*}" ;;
	esac
}

# include_edges DIR: "from to" for every #include "server/x.h" between
# two parts of DIR's files.
include_edges() {
	local f m h t
	for f in "$1"/*.[ch]; do
		m=${f##*/}
		m=$(part "${m%.*}")
		sed -n 's|^#include "server/\([a-z0-9_]*\)\.h".*|\1|p' "$f" |
		    while read -r h; do
			t=$(part "$h")
			[ "$t" = "$m" ] || echo "$m $t"
		done
	done | sort -u
}

@test "lib/server's parts include each other without a cycle" {
	include_edges "$SCTK_TOP/lib/server" >"$BATS_TEST_TMPDIR/edges"
	[ -s "$BATS_TEST_TMPDIR/edges" ]
	run -0 tsort "$BATS_TEST_TMPDIR/edges"
}

@test "the cycle check can fail: a service that includes admin.h" {
	local t="$BATS_TEST_TMPDIR/server"
	mkdir "$t"
	cp "$SCTK_TOP"/lib/server/*.[ch] "$t/"
	printf '#include "server/admin.h"\n' >>"$t/service.c"
	include_edges "$t" >"$BATS_TEST_TMPDIR/edges"
	run -1 tsort "$BATS_TEST_TMPDIR/edges"
	[[ "$output" == *"input contains a loop"* ]]
}

@test "only sc-serve links SQLite and lib/server" {
	local p bin
	for p in sc-exec sc-inspect sc-release sc-upload sc-serve; do
		bin="$SCTK_BUILD/bin/$p"
		[ -x "$bin" ]
		run -0 nm "$bin"
		if [ "$p" = sc-serve ]; then
			# (The control: what the clients must not have.)
			grep -qE ' U sqlite3_prepare' <<<"$output"
			grep -qE ' [Tt] sc_engine_' <<<"$output"
			continue
		fi
		run -1 grep -E ' ([TtDdBb] (sc_eng|sc_srv|sc_sess|sc_execmgr|sc_svc|sc_admin_)|U sqlite3)' <<<"$output"
		run -0 readelf -d "$bin"
		run -1 grep 'NEEDED.*libsqlite3' <<<"$output"
	done
}

# source_names DIR...: the lines of C files under DIR whose string
# literals name a source file (x.c, x.h), #include and comments aside.
source_names() {
	grep -rnE --include='*.c' '"[^"]*\b[a-z0-9_]+\.[ch]\b[^"]*"' "$@" |
	    grep -vE '^[^:]+:[0-9]+:[[:space:]]*(#[[:space:]]*include|/?\*)'
}

@test "no message names a source file" {
	run -1 source_names "$SCTK_TOP/lib" "$SCTK_TOP/cmd"
	[ -z "$output" ]
}

@test "the source-file check can fail" {
	local t="$BATS_TEST_TMPDIR/lib"
	mkdir -p "$t"
	printf 'f(void) {\n\terr("see engine_expr.c for more");\n}\n' >"$t/x.c"
	run -0 source_names "$t"
	[[ "$output" == *'x.c:2:'*'engine_expr.c'* ]]
}
