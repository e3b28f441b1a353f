# SPDX-License-Identifier: MIT
"""The differential programs: small PySpark programs, each a function
(spark, ctx) returning a DataFrame (collected and compared with its
schema), a pandas DataFrame, or a plain value.  diffrun.py runs each on
real Spark and on sc-serve.  Rows are compared as a multiset unless the
program is marked ordered (it sorts, or order is what it tests).

Most programs build their input with SQL (people(), orders()); the
createDataFrame programs test the client's own ways of sending data.
"""

import datetime
import decimal

from pyspark.sql import Row, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

ALL = []
BY_NAME = {}


class Program:
    def __init__(self, name, fn, ordered):
        self.name, self.fn, self.ordered = name, fn, ordered


def add(name, fn, ordered=False):
    if name in BY_NAME:
        raise ValueError("two programs named " + name)
    p = Program(name, fn, ordered)
    ALL.append(p)
    BY_NAME[name] = p


def prog(ordered=False):
    def wrap(fn):
        add(fn.__name__, fn, ordered)
        return fn
    return wrap


def people(spark):
    return spark.sql(
        "SELECT * FROM VALUES "
        "('Alice', 34, 'Paris', 3000.0), ('Bob', 45, 'Berlin', 4000.0), "
        "('Carol', 29, 'Paris', 3500.0), ('Dan', NULL, 'Rome', NULL), "
        "('Eve', 52, 'Berlin', 5000.0), ('Fay', 29, NULL, 2500.0) "
        "AS t(name, age, city, salary)")


def orders(spark):
    return spark.sql(
        "SELECT * FROM VALUES (1, 'Alice', 10), (2, 'Bob', 20), "
        "(3, 'Alice', 5), (4, 'Zed', 7), (5, NULL, 1) "
        "AS t(oid, name, amount)")


def sales(spark):
    return spark.sql(
        "SELECT * FROM VALUES "
        "('2024', 'north', 'a', 10), ('2024', 'south', 'a', 20), "
        "('2024', 'north', 'b', 5), ('2025', 'north', 'a', 7), "
        "('2025', 'south', 'b', 3), ('2025', 'south', 'b', 9) "
        "AS t(year, region, product, qty)")


# --- createDataFrame ------------------------------------------------------

@prog()
def cdf_tuples(spark, ctx):
    return spark.createDataFrame([(1, "a"), (2, "b")], ["x", "y"])


@prog()
def cdf_tuples_nulls(spark, ctx):
    return spark.createDataFrame([(1, None), (None, "b")], ["x", "y"])


@prog()
def cdf_ddl_schema(spark, ctx):
    return spark.createDataFrame([(1, "a", 1.5)], "x INT, y STRING, z DOUBLE")


@prog()
def cdf_struct_schema(spark, ctx):
    s = T.StructType([T.StructField("x", T.IntegerType(), False),
                      T.StructField("y", T.StringType(), True)])
    return spark.createDataFrame([(1, "a"), (2, None)], s)


@prog()
def cdf_rows(spark, ctx):
    return spark.createDataFrame([Row(a=1, b="x"), Row(a=2, b="y")])


@prog()
def cdf_dicts(spark, ctx):
    return spark.createDataFrame([{"a": 1, "b": "x"}, {"a": 2, "b": "y"}])


@prog()
def cdf_pandas(spark, ctx):
    import pandas as pd
    return spark.createDataFrame(pd.DataFrame({"a": [1, 2, 3],
                                               "b": ["x", "y", None]}))


@prog()
def cdf_pandas_schema(spark, ctx):
    import pandas as pd
    return spark.createDataFrame(pd.DataFrame({"a": [1, 2], "b": [0.5, 1.5]}),
                                 "a LONG, b DOUBLE")


@prog()
def cdf_types(spark, ctx):
    return spark.createDataFrame(
        [(True, 1.25, datetime.date(2024, 2, 29), decimal.Decimal("1.10"),
          b"\x00\x01")],
        "b BOOLEAN, d DOUBLE, dt DATE, dec DECIMAL(5,2), bin BINARY")


@prog()
def cdf_timestamp(spark, ctx):
    return spark.createDataFrame(
        [(datetime.datetime(2024, 1, 2, 3, 4, 5),)], "ts TIMESTAMP_NTZ")


@prog()
def cdf_nested(spark, ctx):
    return spark.createDataFrame(
        [(1, [1, 2], {"k": 1}, Row(p=1, q="z"))],
        "id INT, arr ARRAY<INT>, m MAP<STRING,INT>, s STRUCT<p: INT, q: STRING>")


@prog()
def cdf_empty_schema(spark, ctx):
    return spark.createDataFrame([], "a INT, b STRING")


@prog()
def cdf_large_chunked(spark, ctx):
    # Past 1 MB the client sends the rows as a cached artifact, in
    # chunks of 10000 rows (ChunkedCachedLocalRelation).
    spark.conf.set("spark.sql.session.localRelationCacheThreshold", "1048576")
    spark.conf.set("spark.sql.session.localRelationChunkSizeRows", "10000")
    rows = [(i, "row%06d" % i, i * 0.5) for i in range(60000)]
    df = spark.createDataFrame(rows, "i LONG, s STRING, d DOUBLE")
    return df.agg(F.count("*").alias("n"), F.sum("i").alias("si"),
                  F.max("s").alias("ms"), F.sum("d").alias("sd"))


@prog()
def cdf_large_pandas(spark, ctx):
    import pandas as pd
    pdf = pd.DataFrame({"i": range(100000), "s": ["v%d" % (i % 97)
                                                  for i in range(100000)]})
    df = spark.createDataFrame(pdf)
    return df.groupBy("s").count().orderBy("s").limit(5)


@prog()
def cdf_then_filter(spark, ctx):
    df = spark.createDataFrame([(i, i % 3) for i in range(20)], ["a", "b"])
    return df.filter(df.b == 1).select("a")


# --- actions ----------------------------------------------------------------

@prog(ordered=True)
def act_collect(spark, ctx):
    return people(spark).orderBy("name").collect()


@prog()
def act_count(spark, ctx):
    return people(spark).count()


@prog(ordered=True)
def act_take(spark, ctx):
    return people(spark).orderBy("name").take(2)


@prog(ordered=True)
def act_head(spark, ctx):
    return people(spark).orderBy("name").head()


@prog()
def act_first(spark, ctx):
    return people(spark).orderBy(F.desc("name")).first()


@prog()
def act_is_empty(spark, ctx):
    return (people(spark).filter("age > 100").isEmpty(),
            people(spark).isEmpty())


@prog()
def act_columns(spark, ctx):
    return people(spark).columns


@prog()
def act_dtypes(spark, ctx):
    return people(spark).dtypes


@prog()
def act_schema_json(spark, ctx):
    return people(spark).schema.json()


@prog()
def act_to_pandas(spark, ctx):
    return people(spark).orderBy("name").toPandas()


@prog()
def act_to_pandas_empty(spark, ctx):
    return people(spark).filter("age > 100").toPandas()


def _show(df, n=20, truncate=True, vertical=False):
    """What df.show() prints (without printing: the runner's threads
    share standard output)."""
    return df._show_string(n, truncate, vertical)


@prog()
def act_show(spark, ctx):
    return _show(people(spark).orderBy("name"))


@prog()
def act_show_truncate(spark, ctx):
    return _show(spark.sql("SELECT repeat('x', 40) AS long, 1 AS n"), 5, 10)


@prog()
def act_show_vertical(spark, ctx):
    return _show(people(spark).orderBy("name"), 2, vertical=True)


@prog()
def act_tail(spark, ctx):
    return spark.range(10).tail(3)


@prog()
def act_to_local_iterator(spark, ctx):
    return [r.id for r in spark.range(5).toLocalIterator()]


@prog()
def act_range_step(spark, ctx):
    return spark.range(0, 20, 3)


@prog()
def act_range_parts(spark, ctx):
    return spark.range(-5, 5, 2, 3)


@prog()
def act_explain_none(spark, ctx):
    return people(spark).select("name").schema.simpleString()


# --- select, filter, withColumn, drop, rename -----------------------------

@prog()
def sel_cols(spark, ctx):
    return people(spark).select("name", "age")


@prog()
def sel_exprs(spark, ctx):
    return people(spark).selectExpr("name", "age + 1 AS next", "upper(city) c")


@prog()
def sel_col_ops(spark, ctx):
    df = people(spark)
    return df.select((df.age * 2).alias("a2"), (df.salary / 4).alias("q"),
                     (df.age % 5).alias("m"), (-df.age).alias("neg"))


@prog()
def sel_star(spark, ctx):
    return people(spark).select("*")


@prog()
def sel_cast(spark, ctx):
    df = people(spark)
    return df.select(df.age.cast("string").alias("s"),
                     df.salary.cast("int").alias("i"),
                     df.age.cast("double").alias("d"))


@prog()
def sel_when(spark, ctx):
    df = people(spark)
    return df.select("name", F.when(df.age > 40, "old")
                     .when(df.age > 30, "mid").otherwise("young").alias("g"))


@prog()
def sel_lit(spark, ctx):
    return people(spark).select(F.lit(1).alias("one"), F.lit("s").alias("s"),
                                F.lit(None).alias("n"), F.lit(2.5).alias("d"))


@prog()
def flt_simple(spark, ctx):
    return people(spark).filter("age > 30")


@prog()
def flt_col(spark, ctx):
    df = people(spark)
    return df.filter((df.city == "Paris") | (df.age.isNull()))


@prog()
def flt_isin(spark, ctx):
    df = people(spark)
    return df.where(df.name.isin("Bob", "Eve", "Nobody"))


@prog()
def flt_like(spark, ctx):
    df = people(spark)
    return df.filter(df.name.like("%a%") | df.name.startswith("E"))


@prog()
def flt_between(spark, ctx):
    return people(spark).filter(F.col("age").between(29, 40))


@prog()
def flt_isnotnull(spark, ctx):
    return people(spark).filter(F.col("city").isNotNull()).select("name")


@prog()
def wc_add(spark, ctx):
    return people(spark).withColumn("double_age", F.col("age") * 2)


@prog()
def wc_replace(spark, ctx):
    return people(spark).withColumn("age", F.col("age") + 100)


@prog()
def wc_many(spark, ctx):
    return people(spark).withColumns({"a": F.lit(1), "b": F.col("age") - 1})


@prog()
def drop_one(spark, ctx):
    return people(spark).drop("salary")


@prog()
def drop_many(spark, ctx):
    return people(spark).drop("salary", "city", "nope")


@prog()
def rename_one(spark, ctx):
    return people(spark).withColumnRenamed("name", "who")


@prog()
def rename_many(spark, ctx):
    return people(spark).withColumnsRenamed({"name": "n", "age": "a"})


@prog()
def to_df(spark, ctx):
    return people(spark).toDF("a", "b", "c", "d")


@prog()
def alias_cols(spark, ctx):
    df = people(spark).alias("p")
    return df.select(F.col("p.name"), F.col("p.age").alias("years"))


@prog()
def sel_string_funcs(spark, ctx):
    df = people(spark)
    return df.select(F.lower("name"), F.length("name"), F.substring("name", 1, 2),
                     F.concat_ws("-", "name", "city"), F.lpad("name", 7, "*"))


@prog()
def sel_math_funcs(spark, ctx):
    df = people(spark)
    return df.select(F.round(F.col("salary") / 7, 2).alias("r"),
                     F.sqrt("age").alias("s"), F.abs(-F.col("age")).alias("a"),
                     F.pow("age", 2).alias("p"))


# --- joins ----------------------------------------------------------------

def _join(how):
    def fn(spark, ctx):
        p, o = people(spark), orders(spark)
        return p.join(o, p.name == o.name, how)
    return fn


for _how in ("inner", "left", "right", "full", "left_semi", "left_anti",
             "outer", "left_outer", "right_outer", "semi", "anti"):
    add("join_" + _how, _join(_how))


@prog()
def join_using(spark, ctx):
    return people(spark).join(orders(spark), "name")


@prog()
def join_using_outer(spark, ctx):
    return people(spark).join(orders(spark), ["name"], "full")


@prog()
def join_cross(spark, ctx):
    return people(spark).select("name").crossJoin(orders(spark).select("oid"))


@prog()
def join_multi_cond(spark, ctx):
    p, o = people(spark), orders(spark)
    return p.join(o, (p.name == o.name) & (o.amount > 6), "inner") \
        .select(p.name, o.amount)


@prog()
def join_self(spark, ctx):
    a = people(spark).alias("a")
    b = people(spark).alias("b")
    return a.join(b, F.col("a.city") == F.col("b.city")) \
        .select(F.col("a.name").alias("x"), F.col("b.name").alias("y"))


# --- groupBy, agg, pivot, rollup, cube ----------------------------------------

@prog()
def grp_count(spark, ctx):
    return people(spark).groupBy("city").count()


@prog()
def grp_agg_dict(spark, ctx):
    return people(spark).groupBy("city").agg({"age": "max", "salary": "sum"})


@prog()
def grp_agg_funcs(spark, ctx):
    return people(spark).groupBy("city").agg(
        F.min("age").alias("mn"), F.max("age").alias("mx"),
        F.avg("salary").alias("av"), F.count("age").alias("n"))


@prog()
def grp_sum_long(spark, ctx):
    return orders(spark).groupBy("name").sum("amount")


@prog()
def grp_no_keys(spark, ctx):
    return people(spark).agg(F.sum("age"), F.countDistinct("city"))


@prog()
def grp_collect(spark, ctx):
    return people(spark).groupBy("city").agg(
        F.sort_array(F.collect_list("name")).alias("names"),
        F.size(F.collect_set("age")).alias("ages"))


@prog()
def grp_stddev(spark, ctx):
    return people(spark).agg(F.stddev("age"), F.variance("age"))


@prog()
def grp_first_last(spark, ctx):
    return people(spark).orderBy("name").agg(
        F.first("name"), F.last("name"), F.first("age", ignorenulls=True))


@prog()
def grp_two_keys(spark, ctx):
    return sales(spark).groupBy("year", "region").agg(F.sum("qty").alias("q"))


@prog()
def grp_having(spark, ctx):
    return sales(spark).groupBy("region").agg(F.sum("qty").alias("q")) \
        .filter("q > 25")


@prog()
def pivot_values(spark, ctx):
    return sales(spark).groupBy("year").pivot("region", ["north", "south"]) \
        .sum("qty")


@prog()
def pivot_infer(spark, ctx):
    return sales(spark).groupBy("year").pivot("product").sum("qty")


@prog()
def pivot_multi_agg(spark, ctx):
    return sales(spark).groupBy("region").pivot("year", ["2024", "2025"]) \
        .agg(F.sum("qty").alias("s"), F.count("qty").alias("c"))


@prog()
def rollup_sum(spark, ctx):
    return sales(spark).rollup("year", "region").agg(F.sum("qty").alias("q"))


@prog()
def cube_sum(spark, ctx):
    return sales(spark).cube("year", "product").agg(F.sum("qty").alias("q"))


@prog()
def cube_grouping(spark, ctx):
    return sales(spark).cube("region").agg(
        F.grouping("region").alias("g"), F.sum("qty").alias("q"))


@prog()
def grp_sql_grouping_sets(spark, ctx):
    sales(spark).createOrReplaceTempView("gs_sales")
    return spark.sql("SELECT year, region, sum(qty) q FROM gs_sales "
                     "GROUP BY GROUPING SETS ((year), (region), ())")


@prog()
def grp_approx(spark, ctx):
    return sales(spark).agg(F.approx_count_distinct("product").alias("n"))


@prog()
def grp_count_if(spark, ctx):
    return people(spark).agg(F.count_if(F.col("age") > 30).alias("n"))


@prog()
def grp_sum_distinct(spark, ctx):
    return people(spark).agg(F.sum_distinct("age").alias("s"))


# --- windows ----------------------------------------------------------------

def _w():
    return Window.partitionBy("city").orderBy("age", "name")


@prog()
def win_row_number(spark, ctx):
    return people(spark).withColumn("rn", F.row_number().over(_w()))


@prog()
def win_rank(spark, ctx):
    return people(spark).withColumn("r", F.rank().over(_w())) \
        .withColumn("dr", F.dense_rank().over(_w()))


@prog()
def win_lag_lead(spark, ctx):
    return people(spark).withColumn("prev", F.lag("age").over(_w())) \
        .withColumn("next", F.lead("age", 1, -1).over(_w()))


@prog()
def win_running_sum(spark, ctx):
    w = Window.partitionBy("region").orderBy("year", "product", "qty") \
        .rowsBetween(Window.unboundedPreceding, Window.currentRow)
    return sales(spark).withColumn("run", F.sum("qty").over(w))


@prog()
def win_partition_total(spark, ctx):
    return sales(spark).withColumn(
        "tot", F.sum("qty").over(Window.partitionBy("year")))


@prog()
def win_range_frame(spark, ctx):
    w = Window.orderBy("qty").rangeBetween(-5, 0)
    return sales(spark).withColumn("c", F.count("*").over(w))


@prog()
def win_ntile(spark, ctx):
    return sales(spark).withColumn("t", F.ntile(2).over(
        Window.orderBy("qty", "region")))


@prog()
def win_percent_rank(spark, ctx):
    return sales(spark).withColumn("p", F.percent_rank().over(
        Window.orderBy("qty"))).withColumn("cd", F.cume_dist().over(
            Window.orderBy("qty")))


@prog()
def win_first_value(spark, ctx):
    w = Window.partitionBy("region").orderBy("qty")
    return sales(spark).withColumn("f", F.first("qty").over(w))


@prog()
def win_avg_moving(spark, ctx):
    w = Window.orderBy("qty").rowsBetween(-1, 1)
    return sales(spark).withColumn("m", F.avg("qty").over(w))


@prog()
def win_sql(spark, ctx):
    sales(spark).createOrReplaceTempView("w_sales")
    return spark.sql("SELECT region, qty, max(qty) OVER (PARTITION BY region)"
                     " AS mx FROM w_sales")


# --- set operations ---------------------------------------------------------

def _nums(spark, lo, hi):
    return spark.range(lo, hi).select(F.col("id").alias("n"))


@prog()
def set_union(spark, ctx):
    return _nums(spark, 0, 5).union(_nums(spark, 3, 8))


@prog()
def set_union_all_distinct(spark, ctx):
    return _nums(spark, 0, 5).union(_nums(spark, 3, 8)).distinct()


@prog()
def set_intersect(spark, ctx):
    return _nums(spark, 0, 5).intersect(_nums(spark, 3, 8))


@prog()
def set_intersect_all(spark, ctx):
    a = spark.sql("SELECT * FROM VALUES (1), (1), (2), (3) AS t(n)")
    b = spark.sql("SELECT * FROM VALUES (1), (1), (1), (3) AS t(n)")
    return a.intersectAll(b)


@prog()
def set_subtract(spark, ctx):
    return _nums(spark, 0, 5).subtract(_nums(spark, 3, 8))


@prog()
def set_except_all(spark, ctx):
    a = spark.sql("SELECT * FROM VALUES (1), (1), (2), (3) AS t(n)")
    b = spark.sql("SELECT * FROM VALUES (1), (3) AS t(n)")
    return a.exceptAll(b)


@prog()
def set_union_by_name(spark, ctx):
    a = spark.sql("SELECT 1 AS x, 'a' AS y")
    b = spark.sql("SELECT 'b' AS y, 2 AS x")
    return a.unionByName(b)


@prog()
def set_union_by_name_missing(spark, ctx):
    a = spark.sql("SELECT 1 AS x, 'a' AS y")
    b = spark.sql("SELECT 2 AS x")
    return a.unionByName(b, allowMissingColumns=True)


@prog()
def set_union_type_widen(spark, ctx):
    a = spark.sql("SELECT 1 AS x")
    b = spark.sql("SELECT 2.5D AS x")
    return a.union(b)


@prog()
def set_union_mismatch(spark, ctx):
    return spark.sql("SELECT 1 AS x").union(spark.sql("SELECT 1 AS a, 2 AS b"))


# --- sort, limit, offset ----------------------------------------------------

@prog(ordered=True)
def sort_asc(spark, ctx):
    return people(spark).orderBy("age", "name")


@prog(ordered=True)
def sort_desc_nulls(spark, ctx):
    return people(spark).orderBy(F.col("age").desc_nulls_last(), "name")


@prog(ordered=True)
def sort_asc_nulls_last(spark, ctx):
    return people(spark).sort(F.asc_nulls_last("city"), F.desc("name"))


@prog(ordered=True)
def sort_limit(spark, ctx):
    return people(spark).orderBy("name").limit(3)


@prog(ordered=True)
def sort_offset(spark, ctx):
    return people(spark).orderBy("name").offset(2)


@prog(ordered=True)
def sort_limit_offset(spark, ctx):
    return spark.range(100).orderBy(F.desc("id")).offset(10).limit(5)


@prog(ordered=True)
def sort_within_partitions(spark, ctx):
    return spark.range(5).repartition(1).sortWithinPartitions(F.desc("id"))


@prog()
def limit_zero(spark, ctx):
    return people(spark).limit(0)


# --- distinct, dropDuplicates -----------------------------------------------

@prog()
def dist_all(spark, ctx):
    return people(spark).select("city").distinct()


@prog()
def dist_drop_dups(spark, ctx):
    return people(spark).dropDuplicates(["city"]).select("city")


@prog()
def dist_drop_dups_all(spark, ctx):
    return sales(spark).select("year", "region").dropDuplicates()


@prog()
def dist_count_distinct(spark, ctx):
    return sales(spark).select(F.countDistinct("year", "region").alias("n"))


@prog()
def dist_drop_dups_within_wm(spark, ctx):
    return sales(spark).select("year").drop_duplicates()


# --- na and stat --------------------------------------------------------------

@prog()
def na_drop_any(spark, ctx):
    return people(spark).na.drop()


@prog()
def na_drop_subset(spark, ctx):
    return people(spark).na.drop(subset=["age"])


@prog()
def na_drop_thresh(spark, ctx):
    return people(spark).dropna(thresh=4)


@prog()
def na_fill_num(spark, ctx):
    return people(spark).na.fill(0)


@prog()
def na_fill_str(spark, ctx):
    return people(spark).na.fill("?")


@prog()
def na_fill_dict(spark, ctx):
    return people(spark).fillna({"age": -1, "city": "none"})


@prog()
def na_replace(spark, ctx):
    return people(spark).na.replace("Paris", "PARIS", "city")


@prog()
def na_replace_dict(spark, ctx):
    return people(spark).replace({"Berlin": "B", "Rome": "R"})


@prog()
def stat_describe(spark, ctx):
    return people(spark).describe("age", "salary")


@prog()
def stat_summary(spark, ctx):
    return people(spark).select("age").summary("count", "min", "max")


@prog()
def stat_corr(spark, ctx):
    return people(spark).stat.corr("age", "salary")


@prog()
def stat_cov(spark, ctx):
    return people(spark).stat.cov("age", "salary")


@prog()
def stat_crosstab(spark, ctx):
    return sales(spark).stat.crosstab("year", "region")


@prog()
def stat_freq_items(spark, ctx):
    r = sales(spark).stat.freqItems(["region"], 0.4).collect()[0]
    return sorted(r[0])


@prog()
def stat_approx_quantile(spark, ctx):
    return spark.range(101).stat.approxQuantile("id", [0.0, 0.5, 1.0], 0.0)


@prog()
def stat_sample_by_count(spark, ctx):
    return spark.range(1000).sample(fraction=1.0).count()


# --- explode and nested types -------------------------------------------------

def _nested(spark):
    return spark.sql(
        "SELECT * FROM VALUES (1, array(1, 2, 3), map('a', 1, 'b', 2), "
        "named_struct('p', 1, 'q', 'x')), (2, array(), map(), "
        "named_struct('p', 2, 'q', NULL)), (3, NULL, NULL, NULL) "
        "AS t(id, arr, m, s)")


@prog()
def nest_explode(spark, ctx):
    return _nested(spark).select("id", F.explode("arr").alias("v"))


@prog()
def nest_explode_outer(spark, ctx):
    return _nested(spark).select("id", F.explode_outer("arr").alias("v"))


@prog()
def nest_posexplode(spark, ctx):
    return _nested(spark).select("id", F.posexplode("arr"))


@prog()
def nest_explode_map(spark, ctx):
    return _nested(spark).select("id", F.explode("m"))


@prog()
def nest_struct_field(spark, ctx):
    return _nested(spark).select("id", "s.p", F.col("s").getField("q"))


@prog()
def nest_struct_star(spark, ctx):
    return _nested(spark).select("s.*")


@prog()
def nest_array_index(spark, ctx):
    return _nested(spark).select(F.col("arr")[0].alias("first"),
                                 F.element_at("arr", -1).alias("last"))


@prog()
def nest_map_key(spark, ctx):
    return _nested(spark).select(F.col("m")["a"].alias("a"),
                                 F.map_keys("m").alias("k"))


@prog()
def nest_size(spark, ctx):
    return _nested(spark).select("id", F.size("arr").alias("n"))


@prog()
def nest_make_struct(spark, ctx):
    return people(spark).select(F.struct("name", "age").alias("s"))


@prog()
def nest_make_array(spark, ctx):
    return people(spark).select(F.array("name", "city").alias("a"))


@prog()
def nest_array_funcs(spark, ctx):
    return _nested(spark).select(F.array_contains("arr", 2).alias("c"),
                                 F.array_max("arr").alias("mx"),
                                 F.sort_array("arr", asc=False).alias("d"))


@prog()
def nest_transform(spark, ctx):
    return _nested(spark).select(F.transform("arr", lambda x: x * 10).alias("t"),
                                 F.filter("arr", lambda x: x > 1).alias("f"))


@prog()
def nest_inline(spark, ctx):
    return spark.sql("SELECT inline(array(named_struct('a', 1, 'b', 'x'), "
                     "named_struct('a', 2, 'b', 'y')))")


@prog()
def nest_to_json(spark, ctx):
    return _nested(spark).select("id", F.to_json("s").alias("j"))


@prog()
def nest_from_json(spark, ctx):
    return spark.sql("SELECT '{\"a\": 1, \"b\": [1, 2]}' AS j").select(
        F.from_json("j", "a INT, b ARRAY<INT>").alias("v"))


@prog()
def nest_collect_nested(spark, ctx):
    return _nested(spark).orderBy("id").collect()


@prog()
def nest_split(spark, ctx):
    return spark.sql("SELECT 'a,b,,c' AS s").select(F.split("s", ",").alias("p"))


# --- temp views and spark.sql with parameters ------------------------------------

@prog()
def view_temp(spark, ctx):
    people(spark).createOrReplaceTempView("v_people")
    return spark.sql("SELECT city, count(*) n FROM v_people GROUP BY city")


@prog()
def view_table(spark, ctx):
    orders(spark).createOrReplaceTempView("v_orders")
    return spark.table("v_orders").filter("amount > 5")


@prog()
def view_global_missing(spark, ctx):
    return spark.sql("SELECT * FROM no_such_view_here")


@prog()
def view_drop(spark, ctx):
    people(spark).createOrReplaceTempView("v_drop")
    return spark.catalog.dropTempView("v_drop")


@prog()
def sql_named_params(spark, ctx):
    return spark.sql("SELECT :a + 1 AS x, :b AS s", args={"a": 41, "b": "hi"})


@prog()
def sql_positional_params(spark, ctx):
    return spark.sql("SELECT ? * 2 AS x, ? AS y", args=[21, "z"])


@prog()
def sql_param_in_filter(spark, ctx):
    people(spark).createOrReplaceTempView("v_people_p")
    return spark.sql("SELECT name FROM v_people_p WHERE age > :m",
                     args={"m": 30})


@prog()
def sql_df_param(spark, ctx):
    return spark.sql("SELECT count(*) AS n FROM {df}", df=people(spark))


@prog()
def sql_cte(spark, ctx):
    return spark.sql("WITH t AS (SELECT id FROM range(10)) "
                     "SELECT sum(id) s FROM t WHERE id % 2 = 0")


@prog()
def sql_values(spark, ctx):
    return spark.sql("VALUES (1, 'a'), (2, 'b')")


@prog()
def sql_case(spark, ctx):
    return spark.sql("SELECT id, CASE WHEN id < 2 THEN 'lo' ELSE 'hi' END c "
                     "FROM range(4)")


@prog()
def sql_show_tables(spark, ctx):
    people(spark).createOrReplaceTempView("v_show")
    return spark.sql("SHOW TABLES").filter("tableName = 'v_show'") \
        .select("tableName", "isTemporary")


# --- catalog ----------------------------------------------------------------

@prog()
def cat_current_db(spark, ctx):
    return spark.catalog.currentDatabase()


@prog()
def cat_list_dbs(spark, ctx):
    return sorted(d.name for d in spark.catalog.listDatabases())


@prog()
def cat_table_exists(spark, ctx):
    people(spark).createOrReplaceTempView("v_exists")
    return (spark.catalog.tableExists("v_exists"),
            spark.catalog.tableExists("v_not_there"))


@prog()
def cat_list_tables(spark, ctx):
    people(spark).createOrReplaceTempView("v_listed")
    return sorted(t.name for t in spark.catalog.listTables()
                  if t.name == "v_listed")


@prog()
def cat_list_columns(spark, ctx):
    people(spark).createOrReplaceTempView("v_cols")
    return [(c.name, c.dataType) for c in spark.catalog.listColumns("v_cols")]


@prog()
def cat_db_exists(spark, ctx):
    return (spark.catalog.databaseExists("default"),
            spark.catalog.databaseExists("no_such_db"))


@prog()
def cat_function_exists(spark, ctx):
    return spark.catalog.functionExists("upper")


@prog()
def cat_current_catalog(spark, ctx):
    return spark.catalog.currentCatalog()


# --- files ------------------------------------------------------------------

@prog()
def read_csv_header(spark, ctx):
    return spark.read.option("header", True).csv(ctx.file("people.csv"))


@prog()
def read_csv_infer(spark, ctx):
    return spark.read.csv(ctx.file("people.csv"), header=True,
                          inferSchema=True)


@prog()
def read_csv_schema(spark, ctx):
    return spark.read.schema("name STRING, age INT, city STRING") \
        .option("header", "true").csv(ctx.file("people.csv"))


@prog()
def read_json(spark, ctx):
    return spark.read.json(ctx.file("events.json"))


@prog()
def read_json_query(spark, ctx):
    return spark.read.json(ctx.file("events.json")) \
        .groupBy("kind").agg(F.sum("value").alias("v"))


@prog()
def read_text(spark, ctx):
    return spark.read.text(ctx.file("people.csv"))


# --- interrupt and reattach ------------------------------------------------------

@prog()
def op_interrupt_all_idle(spark, ctx):
    return spark.interruptAll()


@prog()
def op_interrupt_tag_idle(spark, ctx):
    return spark.interruptTag("nothing-runs-with-this-tag")


@prog()
def op_tagged_query(spark, ctx):
    spark.addTag("diff-tag")
    try:
        return spark.range(5).count(), sorted(spark.getTags())
    finally:
        spark.removeTag("diff-tag")


@prog()
def op_large_result_reattach(spark, ctx):
    df = spark.range(100000).select("id", (F.col("id") * 3).alias("t"))
    n = s = 0
    for r in df.toLocalIterator():
        n += 1
        s += r.t
    return n, s


@prog()
def op_session_id_differs(spark, ctx):
    other = spark.newSession()
    return other.session_id != spark.session_id


# --- errors -----------------------------------------------------------------

@prog()
def err_unresolved_column(spark, ctx):
    return people(spark).select("nope")


@prog()
def err_parse(spark, ctx):
    return spark.sql("SELEC 1")


@prog()
def err_divide_by_zero_ansi(spark, ctx):
    return spark.sql("SELECT 1 / 0 AS x")


@prog()
def err_cast_invalid(spark, ctx):
    return spark.sql("SELECT CAST('abc' AS INT) AS x")


@prog()
def err_try_cast(spark, ctx):
    return spark.sql("SELECT try_cast('abc' AS INT) AS x")


@prog()
def err_unknown_function(spark, ctx):
    return spark.sql("SELECT no_such_fn(1)")


@prog()
def err_table_not_found(spark, ctx):
    return spark.table("no_such_table_anywhere")


@prog()
def err_ambiguous(spark, ctx):
    p, o = people(spark), orders(spark)
    return p.join(o, p.name == o.name).select("name")


@prog()
def err_group_missing(spark, ctx):
    return spark.sql("SELECT city, age FROM VALUES ('a', 1) AS t(city, age) "
                     "GROUP BY city")


@prog()
def err_conf_get_unknown(spark, ctx):
    return spark.conf.get("spark.sql.no.such.setting.ever")


@prog()
def conf_set_get(spark, ctx):
    spark.conf.set("spark.sql.shuffle.partitions", "7")
    return spark.conf.get("spark.sql.shuffle.partitions")


@prog()
def conf_get_default(spark, ctx):
    return spark.conf.get("spark.sql.no.such.setting.ever", "dflt")


# --- SQL expressions, one program each ------------------------------------------

EXPRS = {
    "int_add": "1 + 2",
    "long_mul": "CAST(3000000000 AS BIGINT) * 3",
    "double_div": "7 / 2",
    "int_div": "7 div 2",
    "mod_neg": "-7 % 3",
    "pmod": "pmod(-7, 3)",
    "decimal_add": "1.10 + 2.205",
    "decimal_mul": "CAST(1.5 AS DECIMAL(10,2)) * CAST(2.25 AS DECIMAL(10,3))",
    "decimal_div": "CAST(1 AS DECIMAL(10,2)) / 3",
    "round_half": "round(2.5), round(-2.5), bround(2.5)",
    "floor_ceil": "floor(-1.5), ceil(-1.5)",
    "power": "power(2, 10)",
    "ln_exp": "ln(exp(1.0))",
    "greatest": "greatest(1, 5, 3), least(1, 5, 3)",
    "nan": "CAST('NaN' AS DOUBLE) = CAST('NaN' AS DOUBLE)",
    "inf": "CAST('Infinity' AS DOUBLE) > 1e308",
    "string_concat": "concat('a', 'b', NULL)",
    "concat_op": "'a' || 'b'",
    "upper_lower": "upper('abc'), lower('ABC'), initcap('hello world')",
    "trim": "trim('  x  '), ltrim('  x'), rtrim('x  ')",
    "substring_neg": "substring('abcdef', -3, 2)",
    "instr_locate": "instr('abcabc', 'c'), locate('c', 'abcabc', 4)",
    "replace_str": "replace('aaa', 'a', 'bb')",
    "regexp_replace": "regexp_replace('a1b22c333', '[0-9]+', '#')",
    "regexp_extract": "regexp_extract('foo123bar', '([a-z]+)([0-9]+)', 2)",
    "rlike": "'abc' rlike '^a.c$'",
    "split_part": "split_part('a-b-c', '-', 2)",
    "repeat_reverse": "repeat('ab', 3), reverse('abc')",
    "format_number": "format_number(1234567.891, 2)",
    "format_string": "format_string('%05d %s', 42, 'x')",
    "ascii_chr": "ascii('A'), chr(66)",
    "md5_sha": "md5('spark'), sha1('spark'), sha2('spark', 256)",
    "base64": "base64('spark'), unbase64('c3Bhcms=')",
    "hash": "hash('spark'), hash(1)",
    "crc32": "crc32('spark')",
    "coalesce": "coalesce(NULL, NULL, 3)",
    "nvl": "nvl(NULL, 'x'), nvl2(1, 'a', 'b'), nullif(1, 1)",
    "if_expr": "if(1 > 2, 'a', 'b')",
    "case_simple": "CASE 2 WHEN 1 THEN 'one' WHEN 2 THEN 'two' END",
    "in_list": "3 IN (1, 2, 3), 4 NOT IN (1, 2)",
    "null_in": "NULL IN (1, 2), 1 IN (NULL, 2)",
    "null_safe_eq": "NULL <=> NULL, 1 <=> NULL",
    "bool_ops": "true AND NULL, false AND NULL, true OR NULL",
    "cast_str_int": "CAST('42' AS INT)",
    "cast_double_str": "CAST(1.0E10 AS STRING), CAST(0.1 + 0.2 AS STRING)",
    "cast_bool": "CAST('true' AS BOOLEAN), CAST(0 AS BOOLEAN)",
    "cast_date": "CAST('2024-02-29' AS DATE)",
    "cast_ts": "CAST('2024-02-29 12:34:56' AS TIMESTAMP_NTZ)",
    "cast_decimal": "CAST('12.345' AS DECIMAL(5,1))",
    "date_add": "date_add(DATE'2024-02-28', 2), date_sub(DATE'2024-03-01', 1)",
    "datediff": "datediff(DATE'2024-03-01', DATE'2024-01-01')",
    "months_between": "months_between(DATE'2024-03-31', DATE'2024-01-31')",
    "add_months": "add_months(DATE'2024-01-31', 1)",
    "date_format": "date_format(TIMESTAMP_NTZ'2024-05-06 07:08:09', 'yyyy/MM/dd HH:mm')",
    "to_date": "to_date('06/05/2024', 'dd/MM/yyyy')",
    "year_month_day": "year(DATE'2024-05-06'), month(DATE'2024-05-06'), dayofmonth(DATE'2024-05-06')",
    "dayofweek": "dayofweek(DATE'2024-05-06'), weekofyear(DATE'2024-05-06')",
    "trunc_date": "trunc(DATE'2024-05-06', 'MM'), date_trunc('YEAR', TIMESTAMP_NTZ'2024-05-06 01:02:03')",
    "last_day": "last_day(DATE'2024-02-10'), next_day(DATE'2024-05-06', 'FRI')",
    "make_date": "make_date(2024, 2, 29)",
    "unix_ts": "unix_timestamp('2024-01-01 00:00:00', 'yyyy-MM-dd HH:mm:ss')",
    "interval_add": "DATE'2024-01-31' + INTERVAL 1 MONTH",
    "array_lit": "array(1, 2, NULL)",
    "array_distinct": "array_distinct(array(1, 2, 2, 3, 1))",
    "array_union": "array_union(array(1, 2), array(2, 3))",
    "array_join": "array_join(array('a', NULL, 'b'), ',', '?')",
    "sequence": "sequence(1, 10, 3)",
    "slice": "slice(array(1, 2, 3, 4, 5), 2, 3)",
    "flatten": "flatten(array(array(1), array(2, 3)))",
    "arrays_zip": "arrays_zip(array(1, 2), array('a', 'b'))",
    "map_lit": "map('a', 1, 'b', 2)",
    "map_from_arrays": "map_from_arrays(array('x', 'y'), array(1, 2))",
    "map_values": "map_values(map('a', 1, 'b', 2))",
    "struct_lit": "named_struct('a', 1, 'b', 'x')",
    "aggregate_fn": "aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x)",
    "exists_fn": "exists(array(1, 2, 3), x -> x > 2)",
    "zip_with": "zip_with(array(1, 2), array(10, 20), (a, b) -> a + b)",
    "bit_ops": "5 & 3, 5 | 3, 5 ^ 3, ~5",
    "shift": "shiftleft(1, 10), shiftright(1024, 3)",
    "conv_hex": "hex(255), conv('ff', 16, 10), bin(5)",
    "typeof": "typeof(1), typeof(1.5), typeof('a'), typeof(array(1))",
    "string_compare": "'a' < 'b', 'B' < 'a'",
    "like_escape": "'a_c' LIKE 'a\\\\_c', 'abc' ILIKE 'A%'",
    "sign_abs": "sign(-3.5), abs(-7)",
    "log_fns": "log10(1000), log2(8), log(2, 8)",
    "trig": "sin(0), cos(0), atan2(1, 1)",
    "width_bucket": "width_bucket(5.3, 0.2, 10.6, 5)",
    "uuid_len": "length(uuid())",
    "current_date_type": "typeof(current_date())",
    "stack": "stack(2, 1, 'a', 2, 'b')",
    "elt": "elt(2, 'x', 'y', 'z')",
    "soundex_levenshtein": "soundex('Robert'), levenshtein('kitten', 'sitting')",
    "overflow_ansi": "2147483647 + 1",
    "long_overflow": "9223372036854775807L + 1",
    "string_to_number_cmp": "'10' > 9",
    "decimal_big": "CAST(12345678901234567890.123 AS DECIMAL(38,3)) * 10",
    "avg_decimal": "avg(x) FROM VALUES (1.1), (2.2), (3.3) AS t(x)",
    "sum_decimal": "sum(x) FROM VALUES (1.10), (2.205) AS t(x)",
    "percentile": "percentile(x, 0.5) FROM VALUES (1), (2), (3), (10) AS t(x)",
    "median": "median(x) FROM VALUES (1), (2), (3), (10) AS t(x)",
    "string_agg": "array_sort(collect_list(x)) FROM VALUES ('b'), ('a') AS t(x)",
    "bool_and_or": "bool_and(x), bool_or(x) FROM VALUES (true), (false) AS t(x)",
    "max_by": "max_by(x, y), min_by(x, y) FROM VALUES ('a', 1), ('b', 2) AS t(x, y)",
}


def _expr(text):
    def fn(spark, ctx):
        return spark.sql("SELECT " + text)
    return fn


for _name, _text in EXPRS.items():
    add("expr_" + _name, _expr(_text), ordered=True)
