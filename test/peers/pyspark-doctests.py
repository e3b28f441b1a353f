# SPDX-License-Identifier: MIT
"""pyspark-doctests: PySpark's own tests for Spark Connect, pointed at a
server: the doctests each pyspark.sql.connect module runs from its
_test() (they read SPARK_CONNECT_TESTING_REMOTE).  The pyspark package
ships these; its unittest suites (pyspark.sql.tests.connect) are not in
the package.  A figure to track, not a gate.

No 4.x release on the package index ships those suites (checked:
pyspark 4.0.0 to 4.3.0 and pyspark-client 4.0.0 to 4.2.0, whose
setup.py adds the test packages only when SPARK_TESTING is set at
build time; pyspark-connect is a metapackage), so the doctests are
PySpark's own tests this runs.

    python pyspark-doctests.py REMOTE LOGDIR [MODULE...]

Runs each module in its own process (bounded by PEERS_DOCTEST_TIMEOUT
seconds, default 300) and prints one line per module, "MODULE: N passed,
N failed", then the totals.  Always exits 0.
"""

import os
import subprocess
import sys
import time

MODULES = [
    "pyspark.sql.connect.column",
    "pyspark.sql.connect.conf",
    "pyspark.sql.connect.catalog",
    "pyspark.sql.connect.dataframe",
    "pyspark.sql.connect.functions.builtin",
    "pyspark.sql.connect.group",
    "pyspark.sql.connect.readwriter",
    "pyspark.sql.connect.session",
    "pyspark.sql.connect.window",
    "pyspark.sql.connect.tvf",
    "pyspark.sql.connect.observation",
]

# Run in the child: call the module's _test() with doctest.testmod
# wrapped to report how many examples ran and failed.
CHILD = r"""
import doctest, importlib, logging, sys, warnings
warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)
real = doctest.testmod
totals = [0, 0]
def testmod(*a, **kw):
    r = real(*a, **kw)
    totals[0] += r.attempted
    totals[1] += r.failed
    return r
doctest.testmod = testmod
try:
    importlib.import_module(sys.argv[1])._test()
except SystemExit:
    pass
finally:
    print("DOCTESTS %d %d" % (totals[0], totals[1]), file=sys.__stderr__)
"""


def main():
    remote, logdir = sys.argv[1], sys.argv[2]
    mods = sys.argv[3:] or MODULES
    os.makedirs(logdir, exist_ok=True)
    env = dict(os.environ, SPARK_CONNECT_TESTING_REMOTE=remote,
               PYARROW_IGNORE_TIMEZONE="1")
    import pyspark
    env["SPARK_HOME"] = os.path.dirname(pyspark.__file__)
    limit = int(os.environ.get("PEERS_DOCTEST_TIMEOUT", "300"))
    tp = tf = 0
    for m in mods:
        t0 = time.time()
        log = os.path.join(logdir, m + ".log")
        try:
            with open(log, "w") as f:
                r = subprocess.run([sys.executable, "-c", CHILD, m], env=env,
                                   stdout=f, stderr=subprocess.PIPE,
                                   text=True, timeout=limit)
            last = [x for x in r.stderr.splitlines()
                    if x.startswith("DOCTESTS ")]
            with open(log, "a") as f:
                f.write(r.stderr)
            if not last:
                print("%s: did not run (see %s)" % (m, log))
                continue
            att, fail = map(int, last[-1].split()[1:])
        except subprocess.TimeoutExpired:
            print("%s: stopped after %d s" % (m, limit))
            continue
        print("%s: %d passed, %d failed (%.0f s)"
              % (m, att - fail, fail, time.time() - t0))
        tp += att - fail
        tf += fail
        sys.stdout.flush()
    print("doctests of pyspark.sql.connect: %d passed, %d failed in all"
          % (tp, tf))
    return 0


if __name__ == "__main__":
    sys.exit(main())
