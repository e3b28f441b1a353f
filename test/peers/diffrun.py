# SPDX-License-Identifier: MIT
"""diffrun: run the differential programs of programs.py against real
Apache Spark and against sc-serve through PySpark's own client, one
process holding one session on each, and compare: rows, column names,
types and nullability; for failures the Python exception class and the
Spark error class.

    python diffrun.py SPARK_REMOTE SERVE_REMOTE [NAME...]

Prints TAP and ends with "N passed, N failed, N skipped".  A program
passes when both answers are the same, or when sc-serve refuses it by
name (UNSUPPORTED_FEATURE.*, or UNRESOLVED_ROUTINE for a function it
lacks; listed at the end).  Any other error where Spark answers is a
difference.  A program named
in known-differences (NAME  reason) is reported as skipped while it
still differs, and fails once it matches, so that list stays honest.
"""

import concurrent.futures
import logging
import math
import os
import sys
import time
import traceback
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)
os.environ.setdefault("PYARROW_IGNORE_TIMEZONE", "1")

from pyspark.sql import DataFrame, Row, SparkSession  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import programs  # noqa: E402


class Ctx:
    """What a program may ask of the engine it runs on."""

    def __init__(self, spark, engine):
        self.spark = spark
        self.engine = engine
        self.uploaded = set()

    def file(self, name):
        """A data file of test/peers/data as this engine reads it: Spark
        reads the path; sc-serve reads files uploaded to the session."""
        path = os.path.join(HERE, "data", name)
        if self.engine == "spark":
            return path
        if name not in self.uploaded:
            self.spark.addArtifacts(path, file=True)
            self.uploaded.add(name)
        return "files/" + name


def norm_value(v):
    if isinstance(v, Row):
        return ("Row", tuple(v.__fields__), tuple(norm_value(x) for x in v))
    if isinstance(v, (list, tuple)):
        return tuple(norm_value(x) for x in v)
    if isinstance(v, dict):
        return ("map", tuple(sorted((repr(norm_value(k)), norm_value(x))
                                    for k, x in v.items())))
    if isinstance(v, float):
        if math.isnan(v):
            return ("float", "NaN")
        return ("float", v)
    if isinstance(v, bytearray):
        return bytes(v)
    return v


def close(a, b):
    """Equal, floats within a relative 1e-12 (the last bits of a sum
    depend on the order of its terms, which neither engine promises)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) == 2 and a[:1] == ("float",) and b[:1] == ("float",):
            x, y = a[1], b[1]
            if isinstance(x, str) or isinstance(y, str):
                return x == y
            return x == y or abs(x - y) <= 1e-12 * max(abs(x), abs(y))
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return a == b and type(a) is type(b)


def schema_of(df):
    return [(f.name, f.dataType.simpleString(), f.nullable)
            for f in df.schema.fields]


def run_one(prog, ctx):
    """The answer of one program: ("ok", kind, value) or ("err", ...)."""
    try:
        r = prog.fn(ctx.spark, ctx)
        if isinstance(r, DataFrame):
            schema = schema_of(r)
            rows = [norm_value(x) for x in r.collect()]
            if not prog.ordered:
                rows.sort(key=repr)
            return ("ok", "df", (schema, rows))
        if hasattr(r, "to_dict") and hasattr(r, "dtypes"):  # pandas
            return ("ok", "pandas", (list(map(str, r.columns)),
                                     [str(t) for t in r.dtypes],
                                     repr(r.to_dict("split")["data"])))
        return ("ok", "value", norm_value(r))
    except Exception as e:  # noqa: BLE001
        cond = None
        for getter in ("getCondition", "getErrorClass"):
            f = getattr(e, getter, None)
            if f is not None:
                try:
                    cond = f()
                except Exception:  # noqa: BLE001
                    cond = None
                break
        msg = str(e).split("\n")[0][:300]
        return ("err", type(e).__name__, cond, msg)


def same(a, b):
    if a[0] != b[0]:
        return False
    if a[0] == "err":
        return a[1] == b[1] and a[2] == b[2]
    if a[1] != b[1]:
        return False
    if a[1] == "df":
        return a[2][0] == b[2][0] and close(a[2][1], b[2][1])
    if a[1] == "pandas":
        return a[2] == b[2]
    return close(a[2], b[2])


def cause(a, b):
    """One word group for why two answers differ (for the report)."""
    if a[0] == "err" and b[0] == "err":
        if a[2] == b[2]:
            return "exception class %s, not %s" % (b[1], a[1])
        return "error class %s, not %s" % (b[2], a[2])
    if b[0] == "err":
        return "error %s where Spark answers" % (b[2] or b[1])
    if a[0] == "err":
        return "answers where Spark fails with %s" % a[2]
    if a[1] != "df" or b[1] != "df":
        return "value"
    sa, sb = a[2][0], b[2][0]
    if [x[0] for x in sa] != [x[0] for x in sb]:
        return "column names"
    if [x[1] for x in sa] != [x[1] for x in sb]:
        return "types"
    if close(a[2][1], b[2][1]):
        return "nullability"
    return "values"


def show(a):
    if a[0] == "err":
        return "error %s %s: %s" % (a[1], a[2], a[3])
    text = repr(a[2])
    return text if len(text) < 600 else text[:600] + "..."


# The error classes that name what sc-serve does not do: a deliberate
# refusal.  Any other error where Spark answers is a difference.
REFUSALS = ("UNSUPPORTED_FEATURE", "UNRESOLVED_ROUTINE")


def is_refusal(cls):
    return bool(cls) and cls.split(".")[0] in REFUSALS


def load_known():
    known = {}
    path = os.path.join(HERE, "known-differences")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                name, _, reason = line.partition(" ")
                known[name] = reason.strip()
    return known


def main():
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(sys.argv) < 3:
        print("usage: diffrun.py SPARK_REMOTE SERVE_REMOTE [NAME...]",
              file=sys.stderr)
        return 2
    spark_remote, serve_remote = sys.argv[1], sys.argv[2]
    only = set(sys.argv[3:])
    progs = [p for p in programs.ALL if not only or p.name in only]
    known = load_known()
    for name in known:
        if name not in programs.BY_NAME:
            print("# known-differences names no program: %s" % name)
    spark = SparkSession.builder.remote(spark_remote).create()
    serve = SparkSession.builder.remote(serve_remote).create()
    print("1..%d" % len(progs))
    npass = nfail = nskip = 0
    refused, differ = [], []
    t0 = time.time()
    pool = concurrent.futures.ThreadPoolExecutor(2)
    for i, p in enumerate(progs, 1):
        # Both engines at once, each on its own session and thread.
        t = time.time()
        fa = pool.submit(run_one, p, Ctx(spark, "spark"))
        fb = pool.submit(run_one, p, Ctx(serve, "serve"))
        a, b = fa.result(), fb.result()
        if time.time() - t > 5:
            print("# %s took %.0f s" % (p.name, time.time() - t))
        ok = same(a, b)
        refusal = (not ok and a[0] == "ok" and b[0] == "err" and
                   is_refusal(b[2]))
        if p.name in known:
            if ok or refusal:
                print("not ok %d - %s is listed in known-differences but "
                      "now %s" % (i, p.name,
                                  "matches" if ok else "is refused"))
                nfail += 1
            else:
                print("ok %d - %s # SKIP known difference: %s"
                      % (i, p.name, known[p.name]))
                nskip += 1
            continue
        if ok:
            print("ok %d - %s" % (i, p.name))
            npass += 1
        elif refusal:
            print("ok %d - %s (refused: %s)" % (i, p.name, b[2]))
            refused.append((p.name, b[2]))
            npass += 1
        else:
            print("not ok %d - %s" % (i, p.name))
            print("#   cause:    %s" % cause(a, b))
            print("#   spark:    %s" % show(a))
            print("#   sc-serve: %s" % show(b))
            differ.append(p.name)
            nfail += 1
        sys.stdout.flush()
    print("# %d programs in %.0f s" % (len(progs), time.time() - t0))
    if refused:
        print("# refused by sc-serve, by error class:")
        by = {}
        for n, c in refused:
            by.setdefault(c, []).append(n)
        for c in sorted(by):
            print("#   %s (%d): %s" % (c, len(by[c]), " ".join(by[c])))
    line = "%d passed, %d failed" % (npass, nfail)
    if nskip:
        line += ", %d skipped" % nskip
    print(line)
    return 0 if nfail == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
