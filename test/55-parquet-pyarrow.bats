#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 55-parquet-pyarrow: lib/parquet against an independent implementation,
# pyarrow (installed in build/peers/venv by make peers; skipped without
# it), in both directions: files pyarrow writes (every type Spark maps,
# each codec and encoding, v1 and v2 pages, INT96, legacy lists) are
# dumped by parquet-tool and compared value by value with what pyarrow
# reads; files parquet-tool writes are read by pyarrow and compared with
# the rows given, and pyarrow's view of their statistics with the values.
# test/helpers/parquet_peer.py does the comparing.

bats_require_minimum_version 1.7.0
load helpers/common

TOOL="$SCTK_BUILD/test/tools/parquet-tool"
PEER="$SCTK_TOP/test/helpers/parquet_peer.py"
PY="$SCTK_BUILD/peers/venv/bin/python"

setup_file() {
	if [ -x "$PY" ] && "$PY" -c 'import pyarrow' 2>/dev/null; then
		mkdir -p "$BATS_FILE_TMPDIR/py"
		"$PY" "$PEER" gen "$BATS_FILE_TMPDIR/py" >"$BATS_FILE_TMPDIR/cases"
		"$PY" "$PEER" rows 2500 7 >"$BATS_FILE_TMPDIR/rows.jsonl"
		"$PY" "$PEER" schema >"$BATS_FILE_TMPDIR/schema"
	fi
}

teardown_file() {
	check_sanitizer_reports
}

setup() {
	[ -s "$BATS_FILE_TMPDIR/cases" ] ||
	    skip "no pyarrow in build/peers/venv (make peers)"
}

# read_case NAME ROWS COLUMNS: parquet-tool dumps pyarrow's file NAME,
# and every value equals pyarrow's.
read_case() {
	local f="$BATS_FILE_TMPDIR/py/$1.parquet"
	run -0 --separate-stderr "$TOOL" dump "$f"
	[ -z "$stderr" ]
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/$1.dump"
	run -0 --separate-stderr "$PY" "$PEER" check "$f" "$BATS_TEST_TMPDIR/$1.dump"
	[ "$output" = "$f: $2 rows, $3 columns equal" ]
}

@test "pyarrow's files of every codec: every value read as pyarrow reads it" {
	read_case codec-none 3000 27
	read_case codec-snappy 3000 27
	read_case codec-gzip 3000 27
	read_case codec-zstd 3000 27
}

@test "pyarrow's dictionary, plain and fallback pages, many groups and pages" {
	read_case plain 3000 27
	read_case dict-fallback 3000 27
	read_case groups-pages 3000 27
	# pyarrow made several row groups of 700 rows.
	run -0 "$TOOL" meta "$BATS_FILE_TMPDIR/py/groups-pages.parquet"
	[ "${lines[0]}" = '{"version":2,"rows":3000,"groups":5,"created_by":"'"$("$PY" -c 'import pyarrow; print("parquet-cpp-arrow version " + pyarrow.__version__)')"'","column_orders":30}' ]
}

@test "pyarrow's data page v2, compressed and not" {
	read_case pages-v2 3000 27
	read_case pages-v2-none 3000 27
}

@test "pyarrow's DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT and RLE booleans" {
	read_case delta-v1 3000 19
	read_case delta-v2 3000 19
	run -0 "$TOOL" meta "$BATS_FILE_TMPDIR/py/delta-v2.parquet"
	[[ "$output" == *'"encodings":["RLE","DELTA_BINARY_PACKED"]'* ]]
	[[ "$output" == *'DELTA_BYTE_ARRAY'* ]]
	[[ "$output" == *'DELTA_LENGTH_BYTE_ARRAY'* ]]
	[[ "$output" == *'BYTE_STREAM_SPLIT'* ]]
	grep -qx bss-ints "$BATS_FILE_TMPDIR/cases" ||
	    skip "this pyarrow cannot store decimals as integers"
	read_case bss-ints 200 7
	read_case decimal-ints 3000 4
}

@test "pyarrow's INT96 timestamps, legacy list names, empty and all-null files" {
	read_case int96 3000 3
	read_case legacy-lists 3000 5
	read_case empty 0 27
	read_case all-null 50 2
}

@test "pyarrow's TIMESTAMP(NANOS) is refused by name, as Spark does" {
	"$PY" -c 'import pyarrow as pa, pyarrow.parquet as pq, sys
pq.write_table(pa.table({"t": pa.array([1], pa.timestamp("ns"))}), sys.argv[1])' \
	    "$BATS_TEST_TMPDIR/ns.parquet"
	run -2 --separate-stderr "$TOOL" dump "$BATS_TEST_TMPDIR/ns.parquet"
	[ "$stderr" = "parquet-tool: '$BATS_TEST_TMPDIR/ns.parquet': column 't': Parquet type INT64 (TIMESTAMP(NANOS)) is not supported" ]
	[ -z "$output" ]
}

# write_case OPTIONS...: parquet-tool writes the rows; pyarrow reads
# them back equal, and so does parquet-tool; pyarrow's statistics of
# each primitive column equal the values'.
write_case() {
	local f="$BATS_TEST_TMPDIR/w.parquet"
	run -0 --separate-stderr "$TOOL" write "$@" "$f" \
	    "$(cat "$BATS_FILE_TMPDIR/schema")" <"$BATS_FILE_TMPDIR/rows.jsonl"
	[ -z "$stderr" ]
	run -0 --separate-stderr "$PY" "$PEER" check "$f" "$BATS_FILE_TMPDIR/rows.jsonl"
	[ "$output" = "$f: 2500 rows, 21 columns equal" ]
	"$TOOL" dump "$f" >"$BATS_TEST_TMPDIR/w.dump"
	run -0 --separate-stderr "$PY" "$PEER" check "$f" "$BATS_TEST_TMPDIR/w.dump"
	[ "$output" = "$f: 2500 rows, 21 columns equal" ]
	run -0 --separate-stderr "$PY" "$PEER" stats "$f"
	[[ "$output" == "$f: "*" statistics equal" ]]
	[[ "$output" != "$f: 0 statistics equal" ]]
}

@test "our files of every codec read by pyarrow as written, statistics too" {
	write_case -c none
	write_case -c snappy
	write_case -c gzip
	write_case -c zstd
}

@test "our data page v2, PLAIN only, small groups and pages, dictionary fallback" {
	write_case -2 -c zstd
	write_case -D -c none
	write_case -g 20000 -p 300 -d 200
	run -0 "$TOOL" meta "$BATS_TEST_TMPDIR/w.parquet"
	# Several row groups, and a string column whose dictionary outgrew
	# 200 bytes: dictionary pages first, then PLAIN.
	[[ "${lines[0]}" == '{"version":1,"rows":2500,"groups":'* ]]
	[[ "${lines[0]}" != *'"groups":1,'* ]]
	[[ "$output" == *'"column":10,"codec":"SNAPPY","values":'*'"dictionary":true,"encodings":["PLAIN_DICTIONARY","PLAIN","RLE"]'* ]]
}

@test "Spark's physical types and annotations, as pyarrow sees them" {
	local f="$BATS_TEST_TMPDIR/t.parquet"
	echo '[1,2,3,4,"1.5","2.5","3.5","2024-01-01","2024-01-01 00:00:00","2024-01-01 00:00:00","x","00",1.5,2.5,true]' |
	    "$TOOL" write "$f" 'a tinyint, b smallint, c int, d bigint, e decimal(9,1), f decimal(18,1), g decimal(19,1), h date, i timestamp, j timestamp_ntz, k string, l binary, m float, n double, o boolean'
	run -0 "$PY" -c 'import pyarrow.parquet as pq, sys
s = pq.ParquetFile(sys.argv[1]).schema
for i in range(len(s)):
    c = s.column(i)
    print(c.name, c.physical_type, c.logical_type, c.converted_type, c.length if c.physical_type == "FIXED_LEN_BYTE_ARRAY" else "")' "$f"
	[ "${lines[0]}" = "a INT32 Int(bitWidth=8, isSigned=true) INT_8 " ]
	[ "${lines[1]}" = "b INT32 Int(bitWidth=16, isSigned=true) INT_16 " ]
	[ "${lines[2]}" = "c INT32 None NONE " ]
	[ "${lines[3]}" = "d INT64 None NONE " ]
	[ "${lines[4]}" = "e INT32 Decimal(precision=9, scale=1) DECIMAL " ]
	[ "${lines[5]}" = "f INT64 Decimal(precision=18, scale=1) DECIMAL " ]
	[ "${lines[6]}" = "g FIXED_LEN_BYTE_ARRAY Decimal(precision=19, scale=1) DECIMAL 9" ]
	[ "${lines[7]}" = "h INT32 Date DATE " ]
	[ "${lines[8]}" = "i INT64 Timestamp(isAdjustedToUTC=true, timeUnit=microseconds, is_from_converted_type=false, force_set_converted_type=false) TIMESTAMP_MICROS " ]
	[ "${lines[9]}" = "j INT64 Timestamp(isAdjustedToUTC=false, timeUnit=microseconds, is_from_converted_type=false, force_set_converted_type=false) NONE " ]
	[ "${lines[10]}" = "k BYTE_ARRAY String UTF8 " ]
	[ "${lines[11]}" = "l BYTE_ARRAY None NONE " ]
	[ "${lines[12]}" = "m FLOAT None NONE " ]
	[ "${lines[13]}" = "n DOUBLE None NONE " ]
	[ "${lines[14]}" = "o BOOLEAN None NONE " ]
	[ "${#lines[@]}" -eq 15 ]
}
