#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 54-parquet-tool: lib/parquet through test/tools/parquet-tool, with no
# peer needed: rows written under each codec and page kind come back as
# the same text, what the footer says (codec, encodings, statistics),
# and each failure's exit code and message.  pyarrow's judgement is in
# 55-parquet-pyarrow.bats.

bats_require_minimum_version 1.7.0
load helpers/common

TOOL="$SCTK_BUILD/test/tools/parquet-tool"
SCHEMA='id bigint not null, s string, d decimal(20,4), t timestamp, l array<struct<k:string,v:double>>, m map<int,boolean>'

teardown_file() {
	check_sanitizer_reports
}

rows() {
	cat <<'EOF_ROWS'
[1,"one","1.0000","2024-02-29 12:34:56.789",[["a",1.5],null,[null,"NaN"]],[[1,true],[2,null]]]
[2,null,null,null,null,null]
[3,"","-99999999999999.9999","1969-12-31 23:59:59.999999",[],[]]
[4,"x\ty\"z\\","0.0001","1970-01-01 00:00:00",[[null,null]],[[-2147483648,false]]]
EOF_ROWS
}

@test "rows written under each codec and page kind are dumped as written" {
	local o
	rows >"$BATS_TEST_TMPDIR/rows"
	for o in "-c none" "-c snappy" "-c gzip" "-c zstd" "-2" "-D -c gzip" "-g 1 -p 1"; do
		# shellcheck disable=SC2086
		run -0 --separate-stderr "$TOOL" write $o "$BATS_TEST_TMPDIR/f.parquet" "$SCHEMA" <"$BATS_TEST_TMPDIR/rows"
		[ -z "$output" ] && [ -z "$stderr" ]
		run -0 --separate-stderr "$TOOL" dump "$BATS_TEST_TMPDIR/f.parquet"
		[ -z "$stderr" ]
		[ "${lines[0]}" = '{"schema":"id bigint not null, s string, d decimal(20,4), t timestamp, l array<struct<k:string,v:double>>, m map<int,boolean>","rows":4}' ]
		printf '%s\n' "${lines[@]:1}" >"$BATS_TEST_TMPDIR/back"
		run -0 cmp "$BATS_TEST_TMPDIR/rows" "$BATS_TEST_TMPDIR/back"
	done
}

@test "the footer: Spark's codec by default, dictionaries, statistics, one group per row when asked" {
	rows | "$TOOL" write "$BATS_TEST_TMPDIR/f.parquet" "$SCHEMA"
	run -0 --separate-stderr "$TOOL" meta "$BATS_TEST_TMPDIR/f.parquet"
	[ "${lines[0]}" = '{"version":1,"rows":4,"groups":1,"created_by":"sctk version 0.1.0","column_orders":8}' ]
	# id: 1..4 little-endian, no nulls; s: "" to "x\ty..." in bytes.
	[ "${lines[1]}" = '{"group":0,"rows":4,"column":0,"codec":"SNAPPY","values":4,"dictionary":true,"encodings":["PLAIN_DICTIONARY","PLAIN","RLE"],"nulls":0,"min":"0100000000000000","max":"0400000000000000"}' ]
	[ "${lines[2]}" = '{"group":0,"rows":4,"column":1,"codec":"SNAPPY","values":4,"dictionary":true,"encodings":["PLAIN_DICTIONARY","PLAIN","RLE"],"nulls":1,"min":"","max":"780979227a5c"}' ]
	# d: decimal(20,4) in 9 bytes, big-endian two's complement:
	# -999999999999999999 and 10000.
	[ "${lines[3]}" = '{"group":0,"rows":4,"column":2,"codec":"SNAPPY","values":4,"dictionary":true,"encodings":["PLAIN_DICTIONARY","PLAIN","RLE"],"nulls":1,"min":"fff21f494c589c0001","max":"000000000000002710"}' ]
	[ "${#lines[@]}" -eq 9 ]
	rows | "$TOOL" write -g 1 -c none "$BATS_TEST_TMPDIR/g.parquet" "$SCHEMA"
	run -0 "$TOOL" meta "$BATS_TEST_TMPDIR/g.parquet"
	[ "${lines[0]}" = '{"version":1,"rows":4,"groups":4,"created_by":"sctk version 0.1.0","column_orders":8}' ]
	[ "${#lines[@]}" -eq 33 ]
}

@test "levels of a nested column, as Dremel gives them" {
	printf '%s\n' '[[[1,2],[3]]]' '[[]]' '[null]' '[[[]]]' '[[null]]' |
	    "$TOOL" write "$BATS_TEST_TMPDIR/f.parquet" 'a array<array<int>>'
	run -0 --separate-stderr "$TOOL" leaves "$BATS_TEST_TMPDIR/f.parquet"
	[ "$output" = '{"group":0,"path":"a.list.element.list.element","type":"INT32","max_def":5,"max_rep":2,"values":3,"def":[5,5,5,1,0,3,2],"rep":[0,2,1,0,0,0,0]}' ]
}

@test "a file that is not Parquet: exit 7, named" {
	printf 'PAR1 not really a Parquet file PAR1' >"$BATS_TEST_TMPDIR/x.parquet"
	run -7 --separate-stderr "$TOOL" dump "$BATS_TEST_TMPDIR/x.parquet"
	[ "$stderr" = "parquet-tool: '$BATS_TEST_TMPDIR/x.parquet': malformed Parquet file: footer length 543517801 past the file's 35 bytes" ]
	[ -z "$output" ]
	printf 'hello, world' >"$BATS_TEST_TMPDIR/y.parquet"
	run -7 --separate-stderr "$TOOL" dump "$BATS_TEST_TMPDIR/y.parquet"
	[ "$stderr" = "parquet-tool: '$BATS_TEST_TMPDIR/y.parquet': not a Parquet file (no PAR1 magic)" ]
}

@test "a missing file: exit 9; a directory: exit 2" {
	run -9 --separate-stderr "$TOOL" dump "$BATS_TEST_TMPDIR/none.parquet"
	[ "$stderr" = "parquet-tool: cannot open '$BATS_TEST_TMPDIR/none.parquet': No such file or directory" ]
	run -2 --separate-stderr "$TOOL" dump "$BATS_TEST_TMPDIR"
	[ "$stderr" = "parquet-tool: '$BATS_TEST_TMPDIR': not a regular file" ]
}

@test "write: a bad schema or row is exit 2 naming the line and column" {
	run -2 --separate-stderr "$TOOL" write "$BATS_TEST_TMPDIR/f.parquet" 'a int, b uuid' </dev/null
	[ "$stderr" = "parquet-tool: cannot parse schema 'a int, b uuid' at offset 9: unknown type" ]
	run -2 --separate-stderr "$TOOL" write "$BATS_TEST_TMPDIR/f.parquet" 'a int, b array<smallint>' <<'EOF_ROWS'
[1,[1,2]]
[2,[3,40000]]
EOF_ROWS
	[ "$stderr" = "parquet-tool: line 2: column 'b.list.element': integer out of its type's range" ]
	run -2 --separate-stderr "$TOOL" write "$BATS_TEST_TMPDIR/f.parquet" 'a int' <<<'[1] x'
	[ "$stderr" = "parquet-tool: line 1: malformed JSON at byte 4: text after the value" ]
	run -2 --separate-stderr "$TOOL" write -c lzo "$BATS_TEST_TMPDIR/f.parquet" 'a int' </dev/null
	[[ "$stderr" == "usage: parquet-tool dump|leaves|meta FILE"* ]]
	run -9 --separate-stderr "$TOOL" write "$BATS_TEST_TMPDIR/no/f.parquet" 'a int' </dev/null
	[ "$stderr" = "parquet-tool: cannot create '$BATS_TEST_TMPDIR/no/f.parquet': No such file or directory" ]
}

@test "lib/parquet stands on lib/core alone: links without gRPC, SQLite or lib/server" {
	local t="$BATS_TEST_TMPDIR" obj="$SCTK_BUILD/obj" core=() o
	[ -e "$obj/lib/parquet/reader.o" ] || skip "no lib/parquet objects in $obj"
	run -0 nm -u "$obj"/lib/parquet/*.o
	[[ "$output" == *" U sc_buf_add"* ]]
	run -1 grep -E ' (sc_srv_|sc_eng_|sc_sess|sc_exec|sc_rpc_|sqlite3_|grpc_)' <<<"$output"
	for o in "$obj"/lib/core/*.o; do
		case ${o##*/} in rpc*.o) continue ;; esac
		core+=("$o")
	done
	run -0 ar rcs "$t/core.a" "${core[@]}" $(find "$obj/gen" -name '*.o')
	printf 'int main(void) { return 0; }\n' >"$t/main.c"
	# Every lib/parquet object linked whole: what it calls is lib/core's.
	run -0 "${CC:-cc}" ${SANITIZE:+-fsanitize=$SANITIZE} -o "$t/pq" \
	    "$t/main.c" "$obj"/lib/parquet/*.o "$t/core.a" \
	    -lsnappy -lzstd -lprotobuf-c -lz -lcrypto -lpthread -lm
	run -0 nm "$t/pq"
	run -1 grep -E ' [TtDdBb] (sc_rpc_|grpc_|sqlite3_)' <<<"$output"
}
