# SPDX-License-Identifier: MIT
"""vs_spark: one SQL text or one PySpark snippet on real Spark and on
sc-serve, both answers side by side with the differences marked (the
engine of scripts/vs-spark, which starts the servers).

    python vs_spark.py SPARK_REMOTE SERVE_REMOTE sql TEXT
    python vs_spark.py SPARK_REMOTE SERVE_REMOTE py TEXT

A snippet is Python run with `spark`, `F` (functions), `T` (types),
`Row` and `Window` in scope; its value is `result` if it sets one, else
its last expression.  Exit 0 when the answers match, 1 when they differ.
"""

import ast
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diffrun  # noqa: E402  (sets up warnings and logging)
from pyspark.sql import Row, SparkSession, Window  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402
from pyspark.sql import types as T  # noqa: E402


def snippet_fn(text):
    tree = ast.parse(text, "<snippet>", "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    code = compile(tree, "<snippet>", "exec")
    tail = compile(last, "<snippet>", "eval") if last is not None else None

    def fn(spark, ctx):
        env = {"spark": spark, "F": F, "T": T, "Row": Row, "Window": Window,
               "ctx": ctx}
        exec(code, env)
        if "result" in env:
            return env["result"]
        return eval(tail, env) if tail is not None else None
    return fn


def lines_of(a):
    """An answer as lines of text: schema, then rows; or the error."""
    if a[0] == "err":
        return ["error: %s" % (a[2] or "(no error class)"),
                "python: %s" % a[1], "message: %s" % a[3]]
    if a[1] == "df":
        schema, rows = a[2]
        out = ["schema: " + ", ".join(
            "%s %s%s" % (n, t, "" if nullable else " NOT NULL")
            for n, t, nullable in schema)]
        out += ["row: " + repr(r[2] if isinstance(r, tuple) and r and
                               r[0] == "Row" else r) for r in rows]
        return out
    return ["value: " + repr(a[2])]


def main():
    spark_remote, serve_remote, kind, text = sys.argv[1:5]
    if kind == "sql":
        def fn(spark, ctx):
            return spark.sql(text)
    else:
        fn = snippet_fn(text)
    prog = diffrun.programs.Program("vs-spark", fn, ordered=True)
    spark = SparkSession.builder.remote(spark_remote).create()
    serve = SparkSession.builder.remote(serve_remote).create()
    a = diffrun.run_one(prog, diffrun.Ctx(spark, "spark"))
    b = diffrun.run_one(prog, diffrun.Ctx(serve, "serve"))
    la, lb = lines_of(a), lines_of(b)
    w = max([len("Apache Spark")] + [len(x) for x in la])
    w = min(w, 70)
    print("  %-*s | %s" % (w, "Apache Spark", "sc-serve"))
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else ""
        y = lb[i] if i < len(lb) else ""
        # Messages are shown, not judged: "~" where only they differ.
        mark = " " if x == y else "~" if x.startswith("message:") else "*"
        print("%s %-*s | %s" % (mark, w, x, y))
    if diffrun.same(a, b):
        print("same answer")
        return 0
    print("differ: %s" % diffrun.cause(a, b))
    return 1


if __name__ == "__main__":
    sys.exit(main())
