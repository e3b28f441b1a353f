#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 46-sc-serve-deep-input: nothing a client sends is walked without
# bound.  Long chains of an operator (+ * OR AND || =), UNION ALL,
# joins and CTEs in SQL text are refused by the Spark SQL parser with
# FAILED_TO_PARSE_TOO_COMPLEX, where a chain of 70,000 '+' once killed
# the server (SIGSEGV freeing the refused tree); shapes under the limit
# still give their answers; a DataFrame plan nested past the request
# limit is refused; so is a regular expression nesting groups deeper
# than regcomp() can take; joins of many tables, GROUPING SETS of many
# keys, a plan of 10^6 columns and a chain of 2,000 CTEs are refused at
# once and leave nothing running.  The statements are
# generated here, by python3.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

setup_file() {
	sc_server_start
}

teardown_file() {
	sc_server_stop
}

setup() {
	sc_server_env
}

DEEP='The statement is too complex to parse: it nests expressions, subqueries or chained operators more than 200 levels deep. Divide it into simpler statements. SQLSTATE: 54001'

# chain SHAPE N: a statement with a chain of N terms of SHAPE on stdout.
chain() {
	python3 - "$1" "$2" <<'EOF'
import sys
shape, n = sys.argv[1], int(sys.argv[2])
if shape == "+":
    print("SELECT " + " + ".join(["1"] * n) + " AS x")
elif shape == "*":
    print("SELECT " + " * ".join(["2"] * n) + " AS x")
elif shape == "or":
    print("SELECT " + " OR ".join(["false"] * (n - 1) + ["true"]) + " AS x")
elif shape == "and":
    print("SELECT " + " AND ".join(["true"] * n) + " AS x")
elif shape == "||":
    print("SELECT " + " || ".join(["'a'"] * n) + " AS x")
elif shape == "=":
    print("SELECT " + " = ".join(["true"] * n) + " AS x")
elif shape == "union":
    print("SELECT count(*) AS n FROM ("
          + " UNION ALL ".join(["SELECT 1 AS x"] * n) + ")")
elif shape == "join":
    print("SELECT count(*) AS n FROM "
          + ", ".join("range(1) t%d" % i for i in range(n)))
elif shape == "cte":
    print("WITH c0 AS (SELECT * FROM range(1))"
          + "".join(", c%d AS (SELECT * FROM c%d)" % (i, i - 1)
                    for i in range(1, n))
          + " SELECT * FROM c%d" % (n - 1))
EOF
}

# plan_file FILE KIND N: a serialized spark.connect.Plan over range(1):
# "columns" projects column id N times; "nested" is 1 + (1 + ...) N
# deep.
plan_file() {
	python3 - "$2" "$3" >"$1" <<'EOF'
import sys

def varint(n):
    out = bytearray()
    while True:
        b, n = n & 0x7f, n >> 7
        out.append(b | 0x80 if n else b)
        if not n:
            return bytes(out)

def ld(field, payload):
    return varint(field << 3 | 2) + varint(len(payload)) + payload

kind, n = sys.argv[1], int(sys.argv[2])
rng = ld(15, varint(2 << 3) + varint(1) + varint(3 << 3) + varint(1))
if kind == "columns":
    exprs = ld(3, ld(2, ld(1, b"id"))) * n      # unresolved_attribute id
else:
    one = ld(1, varint(6 << 3) + varint(1))     # literal integer 1
    e = one
    for _ in range(n):                          # unresolved_function +
        e = ld(3, ld(1, b"+") + ld(2, e) + ld(2, one))
    exprs = ld(3, ld(6, ld(1, e) + ld(2, b"x")))  # alias x
sys.stdout.buffer.write(ld(1, ld(3, ld(1, rng) + exprs)))
EOF
}

@test "a chain of 70,000 '+' (140 KB) is refused, not a crash" {
	local f=$BATS_TEST_TMPDIR/q.sql
	chain + 70000 >"$f"
	run -1 --separate-stderr sc-exec -t 60s - <"$f"
	[ "$stderr" = "sc-exec: <stdin>:1: statement 1: [FAILED_TO_PARSE_TOO_COMPLEX] $DEEP" ]
	sc_server_alive
}

@test "chains ten times the limit are refused: + * OR AND || = UNION ALL joins CTEs" {
	local shape
	for shape in + '*' or and '||' = union join cte; do
		run -1 --separate-stderr sc-exec -t 60s "$(chain "$shape" 2000)"
		[ "$stderr" = "sc-exec: [FAILED_TO_PARSE_TOO_COMPLEX] $DEEP" ]
	done
	sc_server_alive
}

@test "chains under the limit give their answers" {
	run -0 sc-exec -t 60s --no-header "$(chain + 30)"
	[ "$output" = 30 ]
	run -0 sc-exec -t 60s --no-header "$(chain '*' 30)"
	[ "$output" = 1073741824 ]
	run -0 sc-exec -t 60s --no-header "$(chain or 60)"
	[ "$output" = true ]
	run -0 sc-exec -t 60s --no-header "$(chain and 60)"
	[ "$output" = true ]
	run -0 sc-exec -t 60s --no-header "$(chain '||' 30)"
	[ "$output" = aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa ]
	run -0 sc-exec -t 60s --no-header "$(chain union 150)"
	[ "$output" = 150 ]
	run -0 sc-exec -t 60s --no-header "$(chain join 40)"
	[ "$output" = 1 ]
	run -0 sc-exec -t 60s --no-header "$(chain cte 40)"
	[ "$output" = 0 ]
}

@test "a join of 190 tables reaches SQLite's limit, not minutes of naming columns" {
	# Naming the join's 190 columns "id" once took n^3 steps (19 s).
	run -1 --separate-stderr sc-exec -t 60s "$(chain join 190)"
	[ "$stderr" = 'sc-exec: [SQLITE_ERROR] at most 64 tables in a join. SQLSTATE: 42000' ]
	run -0 sc-exec -t 60s --no-header "$(chain join 64)"
	[ "$output" = 1 ]
}

@test "GROUPING SETS of 20,000 keys are refused without comparing each pair" {
	local f=$BATS_TEST_TMPDIR/q.sql
	# Each key was compared with every other (packed): over 2 min of CPU.
	python3 -c "print('SELECT count(*) AS n FROM range(1) GROUP BY GROUPING SETS (' + ', '.join('(id + %d)' % i for i in range(20000)) + ')')" >"$f"
	run -1 --separate-stderr sc-exec -t 60s - <"$f"
	[ "$stderr" = 'sc-exec: <stdin>:1: statement 1: [UNSUPPORTED_FEATURE.GROUP_TYPE] Grouping sets over more than 12 expressions are not supported by sc-serve. SQLSTATE: 0A000' ]
	sc_server_alive
}

@test "BETWEEN's repeated operand cannot double the plan without bound" {
	local q
	q="SELECT 1 $(printf 'BETWEEN 0 AND 2 %.0s' {1..60}) AS x"
	run -1 --separate-stderr sc-exec -t 60s "$q"
	[ "$stderr" = 'sc-exec: [FAILED_TO_PARSE_TOO_COMPLEX] The statement is too complex to parse: its common table expressions and repeated operands expand to more than 4194304 bytes of plan. Divide it into simpler statements. SQLSTATE: 54001' ]
	run -0 sc-exec -t 60s --no-header 'SELECT 1 BETWEEN 0 AND 2 AS x'
	[ "$output" = true ]
	sc_server_alive
}

@test "a regular expression of 30,000 nested groups is refused, not a crash" {
	local f=$BATS_TEST_TMPDIR/q.sql
	python3 -c "print(\"SELECT regexp_like('a', '\" + '(' * 30000 + 'a' + ')' * 30000 + \"') AS x\")" >"$f"
	run -1 --separate-stderr sc-exec -t 60s - <"$f"
	[ "$stderr" = 'sc-exec: <stdin>:1: statement 1: [INVALID_PARAMETER_VALUE.PATTERN] The value of parameter `regexp` is invalid: it nests groups more than 256 levels deep. SQLSTATE: 22023' ]
	python3 -c "print(\"SELECT regexp_like('a', '\" + '(' * 256 + 'a' + ')' * 256 + \"') AS x\")" >"$f"
	run -0 sc-exec -t 60s --no-header - <"$f"
	[ "$output" = true ]
	sc_server_alive
}

@test "a DataFrame plan nested past the request limit is refused" {
	local f=$BATS_TEST_TMPDIR/p.bin
	plan_file "$f" nested 30
	run -0 sc-exec -t 60s --no-header --plan "$f"
	[ "$output" = 31 ]
	plan_file "$f" nested 47
	run -1 --separate-stderr sc-exec -t 60s --plan "$f"
	[ "$stderr" = 'sc-exec: ExecutePlanRequest message nested too deeply: messages within messages deeper than the limit of 100 levels (about 47 chained relations or nested expressions) [INVALID_REQUEST]' ]
	sc_server_alive
}

@test "a projection of 10^6 columns (8 MB) is refused before it is translated" {
	local f=$BATS_TEST_TMPDIR/p.bin
	plan_file "$f" columns 1000000
	run -1 --separate-stderr sc-exec -t 120s --plan "$f"
	[ "$stderr" = 'sc-exec: [UNSUPPORTED_FEATURE.RELATION] A projection of 1000000 columns (more than 2000) is not supported by sc-serve. SQLSTATE: 0A000' ]
	plan_file "$f" columns 2000
	run -0 sc-exec -t 60s --no-header --plan "$f"
	[ "${#output}" -eq 3999 ]
	sc_server_alive
}

# nothing_running: no execution of the server is pending or running.
nothing_running() {
	[ -z "$(sc-inspect -t 10s --state pending --state running --ids)" ]
}

@test "2,000 chained CTEs with a 3 s deadline leave nothing running" {
	local f=$BATS_TEST_TMPDIR/q.sql i
	chain cte 2000 >"$f"
	run -1 --separate-stderr sc-exec -t 60s - <"$f"
	[ "$stderr" = "sc-exec: <stdin>:1: statement 1: [FAILED_TO_PARSE_TOO_COMPLEX] $DEEP" ]
	# Refused at once (status 1), or past the deadline on a loaded
	# machine (status 5): either way the server must stop working on it.
	run --separate-stderr sc-exec -t 3s - <"$f"
	[ "$status" -eq 1 ] || [ "$status" -eq 5 ]
	for ((i = 0; i < 200; i++)); do
		nothing_running && break
		sleep 0.1
	done
	nothing_running
	sc_server_alive
}
