#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 33-sc-serve-values: a value's text is the same whichever side wrote
# it.  The server writes text for CAST(x AS STRING) and CAST(text AS
# DATE/TIMESTAMP/DECIMAL); sc-exec renders the typed columns it gets
# back.  Both must give Java's and Spark's text (4.9E-324, not 5.0E-324).

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

setup_file() {
	sc_server_start
}

teardown_file() {
	sc_server_stop
}

@test "the smallest double reads 4.9E-324 from the server and the client" {
	run -0 sc-exec --format csv "SELECT CAST(CAST(4.9E-324 AS DOUBLE) AS \
STRING) AS s, CAST(4.9E-324 AS DOUBLE) AS d"
	[ "$output" = "s,d
4.9E-324,4.9E-324" ]
}

@test "doubles: server text, client text and Java's agree" {
	# literal, then Java's Double.toString of the double it reads as
	local cases=(
		'9.9E-324 9.9E-324'
		'5.9604644775390625E-8 5.960464477539063E-8'
		'1.0E23 1.0E23'
		'0.1 0.1'
		'9999999.0 9999999.0'
		'1.0E7 1.0E7'
		'0.001 0.001'
		'1.0E-4 1.0E-4'
		'-1.5E300 -1.5E300'
		'1.7976931348623157E308 1.7976931348623157E308'
	)
	local c sql= want= v
	for c in "${cases[@]}"; do
		v=${c%% *}
		[ -z "$sql" ] || sql+=" UNION ALL "
		sql+="SELECT CAST(CAST($v AS DOUBLE) AS STRING) AS s, "
		sql+="CAST($v AS DOUBLE) AS d"
		want+="${c#* },${c#* }"$'\n'
	done
	run -0 sc-exec --format csv --no-header "$sql"
	[ "$output" = "${want%$'\n'}" ]
}

@test "dates, timestamps and decimals: server text equals client text" {
	# s holds the text the server's CAST wrote; d, t and n hold the same
	# value in a typed column, which sc-exec renders itself.
	run -0 sc-exec --format csv "
CREATE TABLE v(s STRING, d DATE, t TIMESTAMP, n DECIMAL(20,3));
INSERT INTO v SELECT CAST(x AS DATE), CAST(x AS DATE), NULL, NULL FROM
 (SELECT ' 2024-2-9 ' AS x UNION ALL SELECT '10000-01-01'
  UNION ALL SELECT '-0001-12-31' UNION ALL SELECT '0000-03-01T10:00');
INSERT INTO v SELECT CAST(x AS TIMESTAMP), NULL, CAST(x AS TIMESTAMP), NULL
 FROM (SELECT '2024-02-29 13:05:09.120' AS x
  UNION ALL SELECT '1969-12-31T23:59:59.999999'
  UNION ALL SELECT '2024-01-01 00:00:00+05:30'
  UNION ALL SELECT '9999-12-31 23:59:59.000001Z');
INSERT INTO v SELECT CAST(x AS DECIMAL(20,3)), NULL, NULL,
 CAST(x AS DECIMAL(20,3)) FROM (SELECT '12.3455' AS x
  UNION ALL SELECT '-0.0004' UNION ALL SELECT '1e5'
  UNION ALL SELECT ' -7.5E-2 ' UNION ALL SELECT '-12345678901.2345');
SELECT * FROM v"
	[ "$output" = "s,d,t,n
2024-02-09,2024-02-09,,
+10000-01-01,+10000-01-01,,
-0001-12-31,-0001-12-31,,
0000-03-01,0000-03-01,,
2024-02-29 13:05:09.12,,2024-02-29 13:05:09.12,
1969-12-31 23:59:59.999999,,1969-12-31 23:59:59.999999,
2023-12-31 18:30:00,,2023-12-31 18:30:00,
9999-12-31 23:59:59.000001,,9999-12-31 23:59:59.000001,
12.346,,,12.346
0.000,,,0.000
100000.000,,,100000.000
-0.075,,,-0.075
-12345678901.235,,,-12345678901.235" ]
}
