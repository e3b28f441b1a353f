#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 93-layers: the libraries' layers, checked on the built objects and the
# sources.  The SQLite engine (lib/engine: its Spark SQL parser, plans,
# functions, types, SQLite glue, and the Spark errors it raises,
# srverror.o) sits on lib/core alone: it calls nothing of lib/server
# (RPC, sessions, executions, the service), links into a program with
# lib/core minus its RPC objects and without the gRPC libraries, and
# includes no header of lib/server.  Its folders include each other
# without a cycle.

bats_require_minimum_version 1.7.0
load helpers/common

setup() {
	obj="$SCTK_BUILD/obj"
	engine=()
	local o
	for o in $(cd "$SCTK_TOP" && find lib/engine -name '*.c' | sort); do
		engine+=("$obj/${o%.c}.o")
	done
	[ -e "${engine[0]}" ] || skip "no engine objects in $obj"
	[ -e "$obj/lib/engine/srverror.o" ]
}

@test "the engine names nothing of rpc, sessions, executions" {
	local o bad=
	for o in "${engine[@]}"; do
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
	    "$t/main.c" "${engine[@]}" "$t/core.a" \
	    -lprotobuf-c -lsqlite3 -lz -lcrypto -lpthread -lm
	[ -x "$t/layer" ]
	# Nothing of the RPC layer came in through lib/core either.
	run -0 nm "$t/layer"
	run -1 grep -E ' [TtDdBb] (sc_rpc_|grpc_)' <<<"$output"
}

@test "without srverror.o the engine's error calls stay unresolved" {
	# The check above can fail: leave out the error module and the
	# link must name sc_srv_error.
	local t="$BATS_TEST_TMPDIR" o rest=()
	for o in "${engine[@]}"; do
		[ "${o##*/}" = srverror.o ] || rest+=("$o")
	done
	printf 'int main(void) { return 0; }\n' >"$t/main.c"
	run ! "${CC:-cc}" ${SANITIZE:+-fsanitize=$SANITIZE} -o "$t/layer" \
	    "$t/main.c" "${rest[@]}" \
	    "$SCTK_BUILD/lib/libsccore.a" \
	    -lgrpc -lgpr -lprotobuf-c -lsqlite3 -lz -lcrypto -lpthread -lm
	[[ "$output" == *"undefined reference to \`sc_srv_error'"* ]]
}

# part NAME: the part of lib/server a file NAME (without .c or .h)
# belongs to: srverror_rpc apart, else the name before its first '_'
# (exec_sched: exec).
part() {
	case $1 in
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

# folder_edges DIR: "from to" for every #include "engine/..." between two
# folders of the engine tree DIR.  A header at the top (engine.h,
# engine_int.h, srverror.h) is the base every folder may include, and
# includes no folder's header; engine.c, the public calls, may include
# any folder's: so the top counts as a folder of its own, "top".
folder_edges() {
	local f d m h t
	find "$1" -name '*.[ch]' | while read -r f; do
		d=${f#"$1"/}
		case $d in */*) m=${d%%/*} ;; *.h) m=top ;; *) continue ;; esac
		sed -n 's|^#include "engine/\([^"]*\)".*|\1|p' "$f" |
		    while read -r h; do
			case $h in */*) t=${h%%/*} ;; *) t=top ;; esac
			[ "$t" = "$m" ] || echo "$m $t"
		done
	done | sort -u
}

@test "the engine includes no header of lib/server" {
	run -1 grep -rn '^#include "server/' "$SCTK_TOP/lib/engine"
	[ -z "$output" ]
}

@test "lib/engine's folders include each other without a cycle" {
	folder_edges "$SCTK_TOP/lib/engine" >"$BATS_TEST_TMPDIR/edges"
	# sql/, plan/ and func/ include each other's headers.
	grep -qx 'plan sql' "$BATS_TEST_TMPDIR/edges"
	grep -qx 'func plan' "$BATS_TEST_TMPDIR/edges"
	run -0 tsort "$BATS_TEST_TMPDIR/edges"
	# The top's headers include no folder.
	run -1 grep '^top ' "$BATS_TEST_TMPDIR/edges"
}

@test "the folder check can fail: a parser that includes plan/" {
	local t="$BATS_TEST_TMPDIR/engine"
	cp -r "$SCTK_TOP/lib/engine" "$t"
	printf '#include "engine/plan/engine_expr_int.h"\n' >>"$t/sql/sqllex.c"
	folder_edges "$t" >"$BATS_TEST_TMPDIR/edges"
	run -1 tsort "$BATS_TEST_TMPDIR/edges"
	[[ "$output" == *"input contains a loop"* ]]
}
