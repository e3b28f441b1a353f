# SPDX-License-Identifier: MIT
"""pyspark-suite: PySpark's own Spark Connect unittest suites
(pyspark.sql.tests.connect) pointed at sc-serve.  A figure to track,
not a gate.

No pyspark 4.x distribution ships those suites (see the note in
pyspark-doctests.py), so they come from Spark's source tree: give the
tree's python/ folder.  Only the test modules are taken from it; the
pyspark package itself, pyspark.testing included, stays the installed
one, so the tests judge the client that the other peers use.

    python pyspark-suite.py --spark-src DIR [--serve BIN] [--logdir DIR]
                            [--timeout S] [--conf KEY=VALUE]... [MODULE...]

MODULE is a dotted name (pyspark.sql.tests.connect.test_parity_conf),
a name in that package (test_parity_conf) or a path under DIR; without
one, every test_*.py under DIR/pyspark/sql/tests/connect runs.  It
starts sc-serve (--serve, else $SCTK_BUILD/bin/sc-serve, else
build/bin/sc-serve) on 127.0.0.1 port 0, runs each module in its own
process, bounded by --timeout seconds (PEERS_SUITE_TIMEOUT, default
300), and prints one line per module, the totals, and the failures and
errors grouped by cause: the Spark error class with the Python
exception class, or the exception class alone.  "not run" counts the
tests a class set-up error or the time bound kept from running (unittest
reports a failed setUpClass as one error).

The connect tests pick their server from SPARK_CONNECT_TESTING_REMOTE.
SPARK_SKIP_CONNECT_COMPAT_TESTS makes pyspark report itself as the
Connect-only client, so the tests that need a JVM beside the client
(the classic session they compare with, _jvm, the local server) skip
themselves by their own conditions instead of failing.

--conf adds a setting to the session every test class starts with
(ReusedConnectTestCase.conf), to look past a setting sc-serve lacks and
see what fails behind it; the plain run is the figure.

Without --spark-src (or SCTK_SPARK_SRC) it prints one line saying what
is missing.  Always exits 0 once it runs, 2 on a usage error.
"""

import argparse
import collections
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))

# Run in the child: graft DIR/pyspark/sql/tests onto the installed
# pyspark.sql, run one module, write one JSON line per test.
CHILD = r"""
import json, logging, os, sys, traceback, unittest, warnings
warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)
src, module, out = sys.argv[1:4]
import pyspark.sql
pyspark.sql.__path__.append(os.path.join(src, "pyspark", "sql"))
sink = open(out, "a", buffering=1)
extra = json.loads(os.environ.get("SCTK_SUITE_CONF") or "{}")
if extra:
    from pyspark.testing.connectutils import ReusedConnectTestCase as R
    base = R.conf.__func__
    def conf(cls):
        c = base(cls)
        for k, v in extra.items():
            c.set(k, v)
        return c
    R.conf = classmethod(conf)

def cause(err):
    etype, value = err[0], err[1]
    name = etype.__name__
    cls = None
    for get in ("getCondition", "getErrorClass"):
        try:
            cls = cls or getattr(value, get, lambda: None)()
        except Exception:
            pass
    if cls:
        return "%s [%s]" % (name, cls)
    msg = str(value).strip().splitlines()
    if name == "AssertionError" and msg and msg[0].endswith(" not raised"):
        return "AssertionError: expected exception not raised"
    if name in ("AttributeError", "ImportError", "ModuleNotFoundError",
                "NotImplementedError", "TypeError") and msg:
        return "%s: %s" % (name, msg[0][:90])
    return name

class Result(unittest.TestResult):
    def put(self, test, outcome, err=None, reason=None):
        rec = {"test": test.id(), "outcome": outcome}
        if isinstance(test, unittest.TestCase):
            rec["of"] = getattr(test, "test_case", test).id()
        if err is not None:
            rec["cause"] = cause(err)
            rec["detail"] = "".join(
                traceback.format_exception_only(err[0], err[1]))[-2000:]
        if reason is not None:
            rec["reason"] = str(reason)[:200]
        sink.write(json.dumps(rec) + "\n")
    def addSuccess(self, test):
        super().addSuccess(test)
        self.put(test, "passed")
    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.put(test, "failed", err)
    def addError(self, test, err):
        super().addError(test, err)
        self.put(test, "error", err)
    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.put(test, "skipped", reason=reason)
    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.put(test, "passed")
    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.put(test, "failed", (AssertionError,
                 AssertionError("unexpected success")))
    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            kind = "failed" if issubclass(err[0], self.failureException) \
                else "error"
            self.put(subtest, kind, err)

try:
    suite = unittest.defaultTestLoader.loadTestsFromName(module)
except Exception:
    err = sys.exc_info()
    class Holder:
        def id(self):
            return module + " (import)"
    Result().put(Holder(), "error", err)
    traceback.print_exc()
    sys.exit(0)

# The module's own tests, not the base classes it imports (the loader
# finds ReusedConnectTestCase itself among the module's names).
def own(suite):
    keep = unittest.TestSuite()
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            keep.addTests(own(t))
        elif type(t).__module__ == module or \
                type(t).__module__.startswith("unittest."):
            keep.addTest(t)
    return keep

mine = own(suite)
sink.write(json.dumps({"loaded": mine.countTestCases()}) + "\n")
mine.run(Result())
"""


def say(msg):
    print(msg)
    sys.stdout.flush()


def find_serve(given):
    if given:
        return given
    build = os.environ.get("SCTK_BUILD") or os.path.join(TOP, "build")
    return os.path.join(build, "bin", "sc-serve")


def start_serve(binary, rundir):
    """sc-serve on 127.0.0.1 port 0; its sc:// URI from --ready-file."""
    ready = os.path.join(rundir, "ready")
    if os.path.exists(ready):
        os.unlink(ready)
    log = open(os.path.join(rundir, "serve.log"), "ab")
    proc = subprocess.Popen([binary, "--listen", "127.0.0.1:0",
                             "--ready-file", ready],
                            stdin=subprocess.DEVNULL, stdout=log,
                            stderr=subprocess.STDOUT)
    for _ in range(300):
        if os.path.exists(ready) and os.path.getsize(ready) > 0:
            with open(ready) as f:
                return proc, f.read().strip()
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    stop(proc)
    return None, None


def stop(proc):
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def discover(src):
    base = os.path.join(src, "pyspark", "sql", "tests", "connect")
    mods = []
    for root, dirs, files in os.walk(base):
        dirs.sort()
        for f in sorted(files):
            if f.startswith("test_") and f.endswith(".py"):
                rel = os.path.relpath(os.path.join(root, f[:-3]), src)
                mods.append(rel.replace(os.sep, "."))
    return mods


def as_module(src, name):
    if name.endswith(".py"):
        path = os.path.relpath(os.path.abspath(name), os.path.abspath(src))
        return path[:-3].replace(os.sep, ".")
    if "." not in name:
        return "pyspark.sql.tests.connect." + name
    return name


def run_module(module, src, remote, logdir, limit, env):
    """Returns (records, seconds, note)."""
    out = os.path.join(logdir, module + ".jsonl")
    if os.path.exists(out):
        os.unlink(out)
    t0 = time.time()
    note = ""
    with open(os.path.join(logdir, module + ".log"), "w") as log:
        proc = subprocess.Popen([sys.executable, "-c", CHILD, src, module,
                                 out], env=env, stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            rc = proc.wait(timeout=limit)
            if rc != 0:
                note = "exit %d" % rc
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            note = "stopped after %d s" % limit
    recs = []
    if os.path.exists(out):
        with open(out) as f:
            recs = [json.loads(x) for x in f if x.strip()]
    loaded = sum(r.get("loaded", 0) for r in recs)
    recs = [r for r in recs if "outcome" in r]
    ran = len({r["of"] for r in recs if "of" in r})
    return recs, max(loaded - ran, 0), time.time() - t0, note


def main():
    ap = argparse.ArgumentParser(
        description="PySpark's Spark Connect test suite against sc-serve")
    ap.add_argument("--spark-src", default=os.environ.get("SCTK_SPARK_SRC"),
                    help="the python/ folder of Spark's source tree")
    ap.add_argument("--serve", help="the sc-serve binary")
    ap.add_argument("--logdir", help="per-module logs (default: a "
                    "temporary directory)")
    ap.add_argument("--timeout", type=int,
                    default=int(os.environ.get("PEERS_SUITE_TIMEOUT", "300")),
                    help="seconds per module (300)")
    ap.add_argument("--conf", action="append", default=[],
                    metavar="KEY=VALUE",
                    help="a setting for the tests' sessions")
    ap.add_argument("modules", nargs="*")
    a = ap.parse_args()

    if not a.spark_src:
        say("pyspark-suite: skipped: no Spark sources (give --spark-src "
            "DIR or SCTK_SPARK_SRC: the python/ folder of Spark's tree)")
        return 0
    tests = os.path.join(a.spark_src, "pyspark", "sql", "tests", "connect")
    if not os.path.isdir(tests):
        say("pyspark-suite: skipped: %s has no pyspark/sql/tests/connect"
            % a.spark_src)
        return 0
    serve = find_serve(a.serve)
    if not os.access(serve, os.X_OK):
        say("pyspark-suite: skipped: no sc-serve at %s (build it first)"
            % serve)
        return 0
    try:
        import pyspark
    except ImportError:
        say("pyspark-suite: skipped: pyspark is not installed for %s "
            "(run make peers)" % sys.executable)
        return 0

    extra = {}
    for kv in a.conf:
        k, eq, v = kv.partition("=")
        if not k or not eq:
            ap.error("--conf takes KEY=VALUE, not %r" % kv)
        extra[k] = v
    src = os.path.abspath(a.spark_src)
    mods = [as_module(src, m) for m in a.modules] or discover(src)
    logdir = a.logdir or tempfile.mkdtemp(prefix="pyspark-suite.")
    os.makedirs(logdir, exist_ok=True)

    proc, remote = start_serve(serve, logdir)
    if proc is None:
        say("pyspark-suite: sc-serve did not start (see %s/serve.log)"
            % logdir)
        return 0
    env = dict(os.environ, SPARK_CONNECT_TESTING_REMOTE=remote,
               SPARK_SKIP_CONNECT_COMPAT_TESTS="1",
               PYARROW_IGNORE_TIMEZONE="1",
               SPARK_HOME=os.path.dirname(pyspark.__file__),
               SCTK_SUITE_CONF=json.dumps(extra))
    say("pyspark-suite: pyspark %s against sc-serve at %s; %d modules "
        "from %s (logs: %s)" % (pyspark.__version__, remote, len(mods),
                                src, logdir))
    if extra:
        say("pyspark-suite: the sessions also get %s"
            % ", ".join("%s=%s" % kv for kv in sorted(extra.items())))
    say("%-44s %6s %6s %6s %6s %7s %5s" % ("module", "passed", "failed",
                                           "errors", "skip", "not run",
                                           "s"))
    totals = collections.Counter()
    causes = collections.Counter()
    example = {}
    t0 = time.time()
    try:
        for m in mods:
            if proc.poll() is not None:
                say("pyspark-suite: sc-serve exited (%s); restarting"
                    % proc.returncode)
                proc, remote = start_serve(serve, logdir)
                if proc is None:
                    say("pyspark-suite: sc-serve did not restart")
                    break
                env["SPARK_CONNECT_TESTING_REMOTE"] = remote
            recs, notrun, secs, note = run_module(m, src, remote, logdir,
                                                  a.timeout, env)
            n = collections.Counter(r["outcome"] for r in recs)
            n["not run"] = notrun
            for r in recs:
                if r["outcome"] in ("failed", "error"):
                    causes[r["cause"]] += 1
                    example.setdefault(r["cause"], r["test"])
            totals.update(n)
            short = m.replace("pyspark.sql.tests.connect.", "")
            say("%-44s %6d %6d %6d %6d %7d %5.0f%s"
                % (short, n["passed"], n["failed"], n["error"],
                   n["skipped"], notrun, secs,
                   "  (" + note + ")" if note else ""))
    finally:
        stop(proc)
    say("%-44s %6d %6d %6d %6d %7d %5.0f"
        % ("all", totals["passed"], totals["failed"], totals["error"],
           totals["skipped"], totals["not run"], time.time() - t0))
    if causes:
        say("failures and errors by cause (top 20 of %d):" % len(causes))
        for c, k in causes.most_common(20):
            say("%5d  %s  (e.g. %s)"
                % (k, c, example[c].replace("pyspark.sql.tests.connect.", "")))
    say("pyspark-suite: %d passed, %d failed, %d errors, %d skipped, "
        "%d not run (a figure, not a gate)"
        % (totals["passed"], totals["failed"], totals["error"],
           totals["skipped"], totals["not run"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
