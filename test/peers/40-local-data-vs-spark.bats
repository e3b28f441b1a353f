#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 40-local-data-vs-spark: PySpark's createDataFrame against Apache Spark
# and against sc-serve: the settings it reads first, a million pandas
# rows sent as chunked cached artifacts (same count and checksums, and
# sc-serve's peak memory bounded), a column named in Chinese.

bats_require_minimum_version 1.7.0
load spark-setup

setup_file() {
	peers_spark_setup && peers_serve_setup
}

teardown_file() {
	peers_serve_teardown
	peers_spark_teardown
}

setup() {
	need_peers
}

# on_both SNIPPET: runs SNIPPET (spark, pd and F in scope, printing its
# answer) on Spark, then on sc-serve; each answer's lines prefixed
# "spark: " and "serve: ".
on_both() {
	"$PEERS_PY" -c '
import sys, warnings
warnings.filterwarnings("ignore")
import pandas as pd
from pyspark.sql import SparkSession, functions as F
for tag, url in (("spark", sys.argv[1]), ("serve", sys.argv[2])):
    spark = SparkSession.builder.remote(url).create()
    def out(*a):
        print(tag + ":", *a)
    exec(sys.argv[3])
    spark.stop()
' "$SPARK_URL" "$SERVE_URL" "$1" 2>&1
}

@test "createDataFrame: the localRelation settings answer with Spark's defaults" {
	run -0 on_both '
for k in ("SizeLimit", "ChunkSizeRows", "ChunkSizeBytes",
          "BatchOfChunksSizeBytes", "CacheThreshold"):
    out(k, spark.conf.get("spark.sql.session.localRelation" + k))'
	[ "${#lines[@]}" -eq 10 ]
	[ "${lines[0]}" = "spark: SizeLimit 3221225472" ]
	[ "${lines[4]}" = "spark: CacheThreshold 1048576" ]
	local i
	for i in 0 1 2 3 4; do
		[ "${lines[i + 5]}" = "serve: ${lines[i]#spark: }" ]
	done
}

@test "createDataFrame: 1 million pandas rows, chunked, same checksums, bounded server memory" {
	run -0 on_both '
n = 1000000
pdf = pd.DataFrame({"i": range(n), "s": ["v%07d" % i for i in range(n)],
                    "d": [i * 0.25 for i in range(n)]})
df = spark.createDataFrame(pdf)
r = df.agg(F.count("*").alias("n"), F.sum("i").alias("si"),
           F.sum(F.crc32("s")).alias("cs"), F.sum("d").alias("sd"),
           F.max("s").alias("ms")).collect()[0]
leaf = df._plan
while getattr(leaf, "_child", None) is not None:
    leaf = leaf._child
out(type(leaf).__name__, r.n, r.si, r.cs, r.sd, r.ms)'
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "spark: ChunkedCachedLocalRelation 1000000 499999500000 2147483647496160 124999875000.0 v0999999" ]
	[ "${lines[1]}" = "serve: ${lines[0]#spark: }" ]
	# About 36 MB of Arrow data: sc-serve holds one 16 MiB chunk at a
	# time besides the table, never the whole upload twice over.
	local hwm
	hwm=$(awk '/^VmHWM:/ { print $2 }' \
	    "/proc/$(cat "$BATS_FILE_TMPDIR/serve/pid")/status")
	echo "sc-serve VmHWM: $hwm kB"
	[ "$hwm" -gt 0 ]
	[ "$hwm" -lt 200000 ]
}

@test "createDataFrame: a column named 数量 keeps its name, as Spark keeps it" {
	run -0 on_both '
# PySpark sends the schema as JSON with every non-ASCII character
# escaped (\u6570\u91cf).
df = spark.createDataFrame([(3, "a"), (4, "b")], ["数量", "x😀"])
out(df.columns, df.schema.simpleString(), sorted(df.collect()))'
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "spark: ['数量', 'x😀'] struct<数量:bigint,x😀:string> [Row(数量=3, x😀='a'), Row(数量=4, x😀='b')]" ]
	[ "${lines[1]}" = "serve: ${lines[0]#spark: }" ]
}
