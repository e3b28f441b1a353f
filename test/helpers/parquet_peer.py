#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# parquet_peer.py: pyarrow as the independent judge of lib/parquet
# (test/55-parquet-pyarrow.bats).
#
#   gen DIR            write DIR/<case>.parquet with pyarrow: every type
#                      Spark maps, each codec, each encoding, v1 and v2
#                      pages, several row groups and pages, dictionary
#                      fallback, INT96; prints the case names
#   rows N SEED        N rows of the types in SCHEMA (below) as JSON
#                      arrays, in parquet.h's text form, on stdout
#   stats FILE         each row group's min/max/null count of each
#                      primitive column, read by pyarrow, against the
#                      values; exit 1 at the first that differs
#   schema             the Spark schema of the rows "rows" prints
#   check FILE DUMP    compare what pyarrow reads in FILE with DUMP, the
#                      rows as parquet-tool dump prints them (its schema
#                      line first) or as rows printed them; exit 1 and
#                      the first difference when they differ
#
# Values are compared exactly: floats by their bits (NaN as NaN),
# decimals with their scale, timestamps in microseconds.

import datetime
import decimal
import json
import math
import random
import struct
import sys

import pyarrow as pa
import pyarrow.parquet as pq

# The writer's schema for "rows" (Spark DDL, as parquet-tool write takes).
SCHEMA = ("b boolean, i8 tinyint, i16 smallint, i32 int, i64 bigint, "
          "f float, d double, d5 decimal(5,2), d15 decimal(15,3), "
          "d38 decimal(38,10), s string, bin binary, dt date, "
          "ts timestamp, ntz timestamp_ntz, li array<int>, "
          "ls array<string>, m map<string,bigint>, "
          "st struct<a:int,b:array<struct<c:string,d:double>>>, "
          "ll array<array<int>>, req int not null")

EPOCH_DATE = datetime.date(1970, 1, 1)
EPOCH = datetime.datetime(1970, 1, 1)
EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


# ---------------------------------------------------------------- text form

def java_double(x):
    """A float as text that reads back exactly (repr), or NaN/Infinity."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return float(x)


def ts_text(us):
    dt = EPOCH + datetime.timedelta(microseconds=us)
    s = dt.strftime("%Y-%m-%d %H:%M:%S")
    if dt.microsecond:
        s += ("." + "%06d" % dt.microsecond).rstrip("0")
    return s


def us_of_text(s):
    date, _, time = s.partition(" ")
    y, mo, d = (int(x) for x in date.split("-"))
    hh, mm, ss = time.split(":")
    sec, _, frac = ss.partition(".")
    dt = datetime.datetime(y, mo, d, int(hh), int(mm), int(sec))
    us = (dt - EPOCH) // datetime.timedelta(microseconds=1)
    return us + int((frac + "000000")[:6])


def us_of(v):
    if v.tzinfo is not None:
        return (v - EPOCH_UTC) // datetime.timedelta(microseconds=1)
    return (v - EPOCH) // datetime.timedelta(microseconds=1)


# --------------------------------------------------------------- comparing

def same(t, py, ours, where):
    if py is None or ours is None:
        if py is not None or ours is not None:
            fail("%s: pyarrow %r, ours %r" % (where, py, ours))
        return
    if pa.types.is_boolean(t) or pa.types.is_integer(t):
        if pa.types.is_uint64(t):
            ours = int(ours)
        if type(ours) is not type(py) or ours != py:
            fail("%s: pyarrow %r, ours %r" % (where, py, ours))
    elif pa.types.is_floating(t):
        if isinstance(ours, str):
            ok = (ours == "NaN" and math.isnan(py)) or \
                 (ours == "Infinity" and py == math.inf) or \
                 (ours == "-Infinity" and py == -math.inf)
        else:
            fmt = "<f" if pa.types.is_float32(t) else "<d"
            ok = struct.pack(fmt, float(ours)) == struct.pack(fmt, py)
        if not ok:
            fail("%s: pyarrow %r, ours %r" % (where, py, ours))
    elif pa.types.is_decimal(t):
        d = decimal.Decimal(ours)
        if d != py or d.as_tuple().exponent != py.as_tuple().exponent:
            fail("%s: pyarrow %r, ours %r" % (where, py, ours))
    elif pa.types.is_string(t) or pa.types.is_large_string(t):
        if ours != py:
            fail("%s: pyarrow %r, ours %r" % (where, py, ours))
    elif pa.types.is_binary(t) or pa.types.is_fixed_size_binary(t) or \
            pa.types.is_large_binary(t):
        if ours != py.hex():
            fail("%s: pyarrow %r, ours %r" % (where, py.hex(), ours))
    elif pa.types.is_date32(t):
        if ours != py.isoformat():
            fail("%s: pyarrow %r, ours %r" % (where, py, ours))
    elif pa.types.is_timestamp(t):
        if us_of_text(ours) != us_of(py):
            fail("%s: pyarrow %r, ours %r" % (where, py, ours))
    elif pa.types.is_map(t):
        if len(ours) != len(py):
            fail("%s: pyarrow %r, ours %r" % (where, py, ours))
        for i, ((k, v), pair) in enumerate(zip(py, ours)):
            same(t.key_type, k, pair[0], "%s[%d].key" % (where, i))
            same(t.item_type, v, pair[1], "%s[%d].value" % (where, i))
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        if len(ours) != len(py):
            fail("%s: pyarrow %d elements, ours %d" %
                 (where, len(py), len(ours)))
        for i, (p, o) in enumerate(zip(py, ours)):
            same(t.value_type, p, o, "%s[%d]" % (where, i))
    elif pa.types.is_struct(t):
        if len(ours) != t.num_fields:
            fail("%s: pyarrow %r, ours %r" % (where, py, ours))
        for i in range(t.num_fields):
            f = t.field(i)
            same(f.type, py[f.name], ours[i], "%s.%s" % (where, f.name))
    else:
        fail("%s: no comparison for %s" % (where, t))


def check(path, dump):
    # INT96 in microseconds: as nanoseconds, pyarrow wraps past 2262.
    table = pq.read_table(path, coerce_int96_timestamp_unit="us")
    with open(dump) as f:
        lines = [l for l in f.read().split("\n") if l]
    if lines and lines[0].startswith('{"schema"'):
        lines = lines[1:]
    rows = [json.loads(l) for l in lines]
    if len(rows) != table.num_rows:
        fail("%s: pyarrow %d rows, ours %d" % (path, table.num_rows,
                                                len(rows)))
    cols = [c.to_pylist() for c in table.columns]
    for r, row in enumerate(rows):
        if len(row) != table.num_columns:
            fail("row %d: %d values for %d columns" %
                 (r, len(row), table.num_columns))
        for c, field in enumerate(table.schema):
            same(field.type, cols[c][r], row[c],
                 "row %d column %s" % (r, field.name))
    print("%s: %d rows, %d columns equal" % (path, table.num_rows,
                                              table.num_columns))


def stats(path):
    """Each row group's statistics of each top-level primitive column, as
    pyarrow reads them from the footer, against the values themselves."""
    import pyarrow.compute as pc
    f = pq.ParquetFile(path)
    md = f.metadata
    leaves = {md.schema.column(i).path: i for i in range(md.num_columns)}
    checked = 0
    for g in range(md.num_row_groups):
        t = f.read_row_group(g)
        for name in t.column_names:
            typ = t.schema.field(name).type
            if name not in leaves or pa.types.is_nested(typ):
                continue
            st = md.row_group(g).column(leaves[name]).statistics
            col = t.column(name)
            if st is None or st.null_count != col.null_count:
                fail("group %d column %s: null count %s, %d nulls" %
                     (g, name, st and st.null_count, col.null_count))
            if pa.types.is_floating(typ):
                col = pc.filter(col, pc.invert(pc.is_nan(col)))
            mm = pc.min_max(col).as_py()
            if mm["min"] is None:
                if st.has_min_max:
                    fail("group %d column %s: min/max of no values" % (g, name))
                continue
            if pa.types.is_timestamp(typ):
                ok = us_of(st.min) == us_of(mm["min"]) and us_of(st.max) == us_of(mm["max"])
            else:
                ok = st.min == mm["min"] and st.max == mm["max"]
            if not st.has_min_max or not ok:
                fail("group %d column %s: min %r max %r, values %r %r" %
                     (g, name, st.min, st.max, mm["min"], mm["max"]))
            checked += 1
    print("%s: %d statistics equal" % (path, checked))


# ------------------------------------------------------------------ rows

def rows(n, seed):
    rnd = random.Random(seed)

    def maybe(f, p=0.15):
        return None if rnd.random() < p else f()

    def text(k=12):
        alphabet = "abcxyz é中\U0001F600\"\\\n\t"
        return "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, k)))

    def dec(p, s):
        digits = rnd.randint(1, p)
        v = rnd.randint(-(10 ** digits - 1), 10 ** digits - 1)
        t = "%0*d" % (s + 1, abs(v))
        return ("-" if v < 0 else "") + (t[:-s] + "." + t[-s:] if s else t)

    def dbl():
        c = rnd.random()
        if c < 0.05:
            return rnd.choice(["NaN", "Infinity", "-Infinity", -0.0, 0.0])
        return rnd.uniform(-1e6, 1e6) * 10 ** rnd.randint(-30, 30)

    def flt():
        x = dbl()
        if isinstance(x, str):
            return x
        return struct.unpack("<f", struct.pack("<f", max(min(x, 3e38), -3e38)))[0]

    def ts():
        return ts_text(rnd.randint(-2208988800000000, 4102444800000000) //
                       rnd.choice([1, 1000, 1000000]) *
                       1)

    for i in range(n):
        row = [
            maybe(lambda: rnd.random() < 0.5),
            maybe(lambda: rnd.randint(-128, 127)),
            maybe(lambda: rnd.randint(-32768, 32767)),
            maybe(lambda: rnd.choice([rnd.randint(-2**31, 2**31 - 1), i % 7])),
            maybe(lambda: rnd.choice([rnd.randint(-2**63, 2**63 - 1), i])),
            maybe(flt),
            maybe(dbl),
            maybe(lambda: dec(5, 2)),
            maybe(lambda: dec(15, 3)),
            maybe(lambda: dec(38, 10)),
            maybe(lambda: rnd.choice([text(), "same", ""])),
            maybe(lambda: bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 9))).hex()),
            maybe(lambda: (EPOCH_DATE + datetime.timedelta(days=rnd.randint(-700000, 2900000))).isoformat()),
            maybe(ts),
            maybe(ts),
            maybe(lambda: [maybe(lambda: rnd.randint(-5, 5)) for _ in range(rnd.randint(0, 4))]),
            maybe(lambda: [maybe(text) for _ in range(rnd.randint(0, 3))]),
            maybe(lambda: [[k, maybe(lambda: rnd.randint(-9, 9))] for k in rnd.sample(["a", "b", "c", "d"], rnd.randint(0, 3))]),
            maybe(lambda: [maybe(lambda: rnd.randint(0, 9)),
                           maybe(lambda: [maybe(lambda: [maybe(text), maybe(dbl)]) for _ in range(rnd.randint(0, 3))])]),
            maybe(lambda: [maybe(lambda: [maybe(lambda: rnd.randint(0, 3)) for _ in range(rnd.randint(0, 3))]) for _ in range(rnd.randint(0, 3))]),
            i,
        ]
        print(json.dumps(row, ensure_ascii=False))


# ------------------------------------------------------------------- gen

def table(n, seed):
    rnd = random.Random(seed)

    def col(typ, f, p=0.15):
        return pa.array([None if rnd.random() < p else f(i) for i in range(n)], type=typ)

    def text(i):
        return rnd.choice(["", "a", "same", "prefix-%d" % (i // 3), "é中\U0001F600", "x" * rnd.randint(0, 40)])

    utc = "UTC"
    cols = {
        "b": col(pa.bool_(), lambda i: rnd.random() < 0.5),
        "i8": col(pa.int8(), lambda i: rnd.randint(-128, 127)),
        "i16": col(pa.int16(), lambda i: rnd.randint(-32768, 32767)),
        "i32": col(pa.int32(), lambda i: rnd.choice([rnd.randint(-2**31, 2**31 - 1), i, i // 10])),
        "i64": col(pa.int64(), lambda i: rnd.choice([rnd.randint(-2**63, 2**63 - 1), i * 1000, -i])),
        "u8": col(pa.uint8(), lambda i: rnd.randint(0, 255)),
        "u16": col(pa.uint16(), lambda i: rnd.randint(0, 65535)),
        "u32": col(pa.uint32(), lambda i: rnd.randint(0, 2**32 - 1)),
        "u64": col(pa.uint64(), lambda i: rnd.randint(0, 2**64 - 1)),
        "f32": col(pa.float32(), lambda i: rnd.choice([rnd.uniform(-1e6, 1e6), float("nan"), float("inf"), -0.0, 1.5])),
        "f64": col(pa.float64(), lambda i: rnd.choice([rnd.uniform(-1e300, 1e300), float("-inf"), 0.1, i / 7])),
        "d5": col(pa.decimal128(5, 2), lambda i: decimal.Decimal(rnd.randint(-99999, 99999)).scaleb(-2)),
        "d15": col(pa.decimal128(15, 3), lambda i: decimal.Decimal(rnd.randint(-10**15 + 1, 10**15 - 1)).scaleb(-3)),
        "d38": col(pa.decimal128(38, 10), lambda i: decimal.Decimal(rnd.randint(-10**38 + 1, 10**38 - 1)).scaleb(-10)),
        "s": col(pa.string(), text),
        "bin": col(pa.binary(), lambda i: bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 8)))),
        "fix": col(pa.binary(3), lambda i: bytes(rnd.randrange(256) for _ in range(3))),
        "dt": col(pa.date32(), lambda i: EPOCH_DATE + datetime.timedelta(days=rnd.randint(-700000, 2900000))),
        "ts": col(pa.timestamp("us", tz=utc), lambda i: EPOCH_UTC + datetime.timedelta(microseconds=rnd.randint(-2**55, 2**57))),
        "tsms": col(pa.timestamp("ms", tz=utc), lambda i: EPOCH_UTC + datetime.timedelta(milliseconds=rnd.randint(-2**40, 2**41))),
        "ntz": col(pa.timestamp("us"), lambda i: EPOCH + datetime.timedelta(microseconds=rnd.randint(-2**55, 2**57))),
        "li": col(pa.list_(pa.int32()), lambda i: [None if rnd.random() < 0.2 else rnd.randint(-9, 9) for _ in range(rnd.randint(0, 5))]),
        "ls": col(pa.list_(pa.string()), lambda i: [None if rnd.random() < 0.2 else text(i) for _ in range(rnd.randint(0, 3))]),
        "m": col(pa.map_(pa.string(), pa.int64()), lambda i: [(k, None if rnd.random() < 0.2 else rnd.randint(-9, 9)) for k in rnd.sample("abcde", rnd.randint(0, 4))]),
        "st": col(pa.struct([("a", pa.int32()), ("b", pa.list_(pa.struct([("c", pa.string()), ("d", pa.float64())])))]),
                  lambda i: {"a": None if rnd.random() < 0.2 else i,
                             "b": None if rnd.random() < 0.2 else [None if rnd.random() < 0.2 else {"c": None if rnd.random() < 0.3 else text(i), "d": rnd.random()} for _ in range(rnd.randint(0, 3))]}),
        "ll": col(pa.list_(pa.list_(pa.int64())), lambda i: [None if rnd.random() < 0.2 else [rnd.randint(0, 5) for _ in range(rnd.randint(0, 3))] for _ in range(rnd.randint(0, 3))]),
        "req": pa.array(list(range(n)), type=pa.int32()),
    }
    schema = pa.schema([pa.field(k, v.type, nullable=(k != "req")) for k, v in cols.items()])
    return pa.Table.from_arrays(list(cols.values()), schema=schema)


def gen(d):
    base = table(3000, 1)
    small = table(200, 2)
    cases = {}
    for codec in ["none", "snappy", "gzip", "zstd"]:
        cases["codec-" + codec] = (base, dict(compression=codec))
    cases["pages-v2"] = (base, dict(data_page_version="2.0", compression="zstd"))
    cases["pages-v2-none"] = (base, dict(data_page_version="2.0", compression="none"))
    cases["groups-pages"] = (base, dict(row_group_size=700, data_page_size=512, compression="snappy"))
    cases["dict-fallback"] = (base, dict(dictionary_pagesize_limit=256, compression="none"))
    cases["plain"] = (base, dict(use_dictionary=False, compression="none"))
    cases["int96"] = (base.select(["ts", "ntz", "req"]), dict(use_deprecated_int96_timestamps=True))
    cases["legacy-lists"] = (base.select(["li", "ls", "ll", "st", "req"]), dict(use_compliant_nested_type=False))
    ints = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "dt", "ts", "tsms", "ntz"]
    enc = {c: "DELTA_BINARY_PACKED" for c in ints}
    enc.update({"s": "DELTA_BYTE_ARRAY", "bin": "DELTA_LENGTH_BYTE_ARRAY",
                "f32": "BYTE_STREAM_SPLIT", "f64": "BYTE_STREAM_SPLIT",
                "fix": "DELTA_BYTE_ARRAY", "b": "RLE"})
    for v in ["1.0", "2.0"]:
        cases["delta-v" + v[0]] = (base.select(list(enc) + ["req"]),
                                   dict(use_dictionary=False, column_encoding=enc,
                                        data_page_version=v, data_page_size=4096))
    bss = {c: "BYTE_STREAM_SPLIT" for c in ["i32", "i64", "fix", "d5", "d15", "d38"]}
    try:
        pq.write_table(small.select(list(bss)), "%s/probe.parquet" % d,
                       use_dictionary=False, column_encoding=bss, store_decimal_as_integer=True)
        cases["bss-ints"] = (small.select(list(bss) + ["req"]),
                             dict(use_dictionary=False, column_encoding=bss,
                                  store_decimal_as_integer=True))
        cases["decimal-ints"] = (base.select(["d5", "d15", "d38", "req"]),
                                 dict(store_decimal_as_integer=True))
    except (TypeError, pa.ArrowException):
        pass
    cases["empty"] = (base.slice(0, 0), dict())
    cases["all-null"] = (pa.table({"x": pa.array([None] * 50, pa.int32()),
                                   "y": pa.array([None] * 50, pa.list_(pa.string()))}), dict())
    for name, (t, kw) in cases.items():
        pq.write_table(t, "%s/%s.parquet" % (d, name), **kw)
        print(name)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "gen":
        gen(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "rows":
        rows(int(sys.argv[2]), int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "stats":
        stats(sys.argv[2])
    elif len(sys.argv) == 2 and sys.argv[1] == "schema":
        print(SCHEMA)
    else:
        fail("usage: parquet_peer.py gen DIR | rows N SEED | check FILE DUMP | schema")


if __name__ == "__main__":
    main()
