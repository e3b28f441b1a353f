#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 24-sc-exec-terminal: sc-exec on a real terminal, driven in a private
# tmux server (its own socket, 80x24 unless a test says otherwise) and
# read back with capture-pane.

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
	command -v tmux >/dev/null || skip "tmux is not installed"
	sc_server_env
	T=$BATS_TEST_TMPDIR
	TMUX_SOCK=$T/tmux.sock
}

teardown() {
	[ -n "${TMUX_SOCK:-}" ] && tmux -S "$TMUX_SOCK" kill-server 2>/dev/null
	[ -n "${OTHER_PID:-}" ] && kill -9 "$OTHER_PID" 2>/dev/null
	true
}

# term_start [COLS [ROWS]]: a shell in a fresh tmux pane, with this
# file's server, a UTF-8 locale and a plain prompt.
term_start() {
	tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -x "${1:-80}" \
	    -y "${2:-24}" "env -i PATH='$PATH' HOME='$T' TERM=xterm-256color LANG=C.UTF-8 SPARK_REMOTE='$SPARK_REMOTE' PS1='$ ' PAGER='${PAGER_CMD:-less -S}' bash --norc --noprofile" 3>&-
	tmux -S "$TMUX_SOCK" set-option -g history-limit 5000 >/dev/null
	term_wait -x '$'
}

# term_keys KEYS...: type into the pane (tmux send-keys syntax).
term_keys() {
	tmux -S "$TMUX_SOCK" send-keys "$@"
}

# term_run LINE: type LINE and Enter.  (tmux takes an argument ending in
# ';' as the end of its command: that ';' goes escaped, on its own.)
term_run() {
	if [ "${1%;}" != "$1" ]; then
		tmux -S "$TMUX_SOCK" send-keys -l "${1%;}"
		tmux -S "$TMUX_SOCK" send-keys '\;'
	else
		tmux -S "$TMUX_SOCK" send-keys -l "$1"
	fi
	tmux -S "$TMUX_SOCK" send-keys Enter
}

# term_screen: the visible screen and the scrollback, as text.
term_screen() {
	tmux -S "$TMUX_SOCK" capture-pane -p -S - -E -
}

# term_wait TEXT: wait (bounded) until TEXT is on the screen; with -x,
# until a line is exactly TEXT.
term_wait() {
	local i n=$SCTK_WAIT_STEPS x=
	[ "$1" = -x ] && x=x && shift
	for ((i = 0; i < n; i++)); do
		term_screen | grep -q${x}F -- "$1" && return 0
		sleep 0.1
	done
	echo "timed out waiting for '$1'; the screen:" >&2
	term_screen >&2
	return 1
}

# ------------------------------------------------------ sc-exec - on a tty

@test "sc-exec - on a terminal ends at the first ^D" {
	term_start
	term_run 'sc-exec --format csv -; echo "rc=$?"'
	term_wait 'end it with ^D'
	term_run 'SELECT 40 + 2 AS answer'
	term_keys C-d
	term_wait -x 'rc=0'
	run term_screen
	[[ "$output" == *$'answer\n42\nrc=0'* ]]
}

# term_lines: the screen (and scrollback) without trailing blank lines.
term_lines() {
	term_screen | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

# ----------------------------------------------------- the progress line

@test "the progress line never mixes with results on the same terminal" {
	term_start
	term_run "clear; sc-exec --progress 'SELECT 1 AS a'; sc-exec --progress --range 0:3; echo done"
	term_wait -x done
	run term_lines
	[ "$output" = "$(printf '%s\n' a - 1 id -- ' 0' ' 1' ' 2' done '$')" ] || {
		echo "$output" >&2
		false
	}
}

@test "a long CSV to the terminal has no progress text between its rows" {
	term_start
	# About a second of rows, so the line is drawn many times.
	term_run "clear; sc-exec --progress --no-pager --format csv --no-header --range 0:400000; echo done"
	wait_for_done() { term_screen | grep -qx done; }
	local i
	for ((i = 0; i < 600; i++)); do
		wait_for_done && break
		sleep 0.1
	done
	run term_screen
	# Every line is a number, the command, "done" or the prompt.
	run -1 grep -vxE '[0-9]+|done|\$|\$ clear; .*|' <<<"$output"
	[[ "$(term_screen)" == *$'399998\n399999\ndone'* ]]
}

# --------------------------------------------------------- table layout

@test "table columns line up by display width: CJK, emoji, combining marks" {
	term_start
	term_run "clear; sc-exec \"SELECT '日本語' AS name, 2 AS n UNION ALL SELECT 'cafe\\u0301', 4 UNION ALL SELECT '🙂🙂', 5\"; echo done"
	term_wait -x done
	run term_lines
	[[ "$output" == *"$(printf 'name    n\n------  -\n\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e  2\ncafe\xcc\x81    4\n\xf0\x9f\x99\x82\xf0\x9f\x99\x82    5\ndone')"* ]] || {
		echo "$output" >&2
		false
	}
}

@test "control bytes are escaped, never sent to the terminal" {
	term_start
	term_run "clear; sc-exec \"SELECT 'a\\u001B[31mRED\\u0007' AS s\"; echo done"
	term_wait -x done
	run term_lines
	[[ "$output" == *$'s\n----------------\na\\x1b[31mRED\\x07\ndone'* ]] || {
		echo "$output" >&2
		false
	}
}

@test "a later, wider page brings the header again at the new widths" {
	term_start 80 24
	# 21 rows to a page on 24 lines; row 30 is wider than the first page.
	term_run "clear; sc-exec --no-pager \"SELECT id, CASE WHEN id = 30 THEN 'a much longer value' ELSE 'x' END AS s FROM range(45)\" >/dev/tty; echo done"
	term_wait -x done
	run term_screen
	[ "$(grep -c '^id  s' <<<"$output")" -eq 2 ]
	[[ "$output" == *$'20  x\n\nid  s\n--  -------------------\n21  x\n'* ]]
	[[ "$output" == *$'30  a much longer value\n'* ]]
	[[ "$output" == *$'42  x\n43  x\n44  x\ndone'* ]]
}

@test "--format vertical shows a record per block" {
	term_start
	term_run "clear; sc-exec --format vertical \"SELECT 1 AS id, 'x' AS long_name UNION ALL SELECT 2, NULL\"; echo done"
	term_wait -x done
	run term_lines
	[[ "$output" == *$'-[ RECORD 1 ]\nid        | 1\nlong_name | x\n-[ RECORD 2 ]---\nid        | 2\nlong_name | NULL\ndone'* ]] || {
		echo "$output" >&2
		false
	}
}

# ---------------------------------------------------------------- pager

@test "output taller than the screen goes to less -S; short output does not" {
	term_start 80 24
	term_run "clear; sc-exec --range 0:3; echo short-done"
	term_wait -x short-done
	term_run "clear; sc-exec --range 0:100; echo rc=\$?"
	# less shows the first screenful and waits.
	term_wait -x ':'
	run term_screen
	[[ "$output" == *$'id\n--\n 0\n 1\n'* ]]
	[[ "$output" != *"rc="* ]]
	term_keys q
	term_wait -x 'rc=0'
}

@test "PAGER is used, and --no-pager writes straight to the terminal" {
	PAGER_CMD="tee $BATS_TEST_TMPDIR/paged" term_start 80 24
	term_run "sc-exec --range 0:3 >/dev/tty; echo one"
	term_wait -x one
	[ ! -e "$T/paged" ]
	term_run "sc-exec --range 0:100; echo two"
	term_wait -x two
	[ "$(wc -l <"$T/paged")" -eq 102 ]
	[ "$(tail -1 "$T/paged")" = 99 ]
	rm "$T/paged"
	term_run "sc-exec --no-pager --range 0:100; echo three"
	term_wait -x three
	[ ! -e "$T/paged" ]
}

@test "Arrow data is not written to a terminal" {
	term_start
	term_run "clear; sc-exec --format arrow --range 0:3; echo rc=\$?"
	term_wait -x 'rc=2'
	run term_screen
	[[ "$output" == *"sc-exec: not writing Arrow data to a terminal: redirect it or use -o"* ]]
}

# ---------------------------------------------------------------- prompt

LONG='SELECT count(*) AS n FROM range(200000000);'

# prompt_start [ARGS]: sc-exec at its prompt, then "rc=N" when it ends.
prompt_start() {
	term_start 100 40
	term_run "clear; sc-exec --no-pager $*; echo rc=\$?"
	term_wait -x 'sc-exec>'
}

@test "no SQL on a terminal opens a prompt; statements end at ';' across lines" {
	prompt_start
	term_run "SELECT 1 AS a,"
	term_wait -x '     ...'
	term_run "  'x' AS b; SELECT 2 AS c"
	term_wait -x '1  x'
	term_run ';'
	term_wait -x '2'
	run term_lines
	[[ "$output" == *$'sc-exec> SELECT 1 AS a,\n     ...   \'x\' AS b; SELECT 2 AS c\na  b\n-  -\n1  x\n     ... ;\nc\n-\n2\nsc-exec>'* ]] || {
		echo "$output" >&2
		false
	}
	term_keys C-d
	term_wait -x 'rc=0'
}

@test "history is kept in ~/.sc_exec_history and comes back with Up" {
	prompt_start
	term_run "SELECT 6 * 7 AS answer;"
	term_wait -x '    42'
	term_keys C-d
	term_wait -x 'rc=0'
	grep -q 'answer' "$T/.sc_exec_history"
	# A new session: Up brings the statement back, Enter runs it.
	term_run "clear; sc-exec --no-pager; echo rc=\$?"
	term_wait -x 'sc-exec>'
	term_keys Up
	term_wait 'sc-exec> SELECT 6 * 7 AS answer;'
	term_keys Enter
	term_wait -x '    42'
	term_keys C-d
	term_wait -x 'rc=0'
}

@test "^C ends the running statement on the server and the prompt stays" {
	prompt_start
	term_run "$LONG"
	local op
	sleep 1.5
	term_keys C-c
	term_wait "interrupted"
	op=$(term_screen | sed -n 's/^sc-exec: operation \([0-9a-f-]*\) interrupted$/\1/p')
	[ -n "$op" ]
	# Released while running, so the server stopped it.
	wait_for grep -q "operation $op released (RUNNING)" \
	    "$BATS_FILE_TMPDIR/server.log"
	wait_for grep -q "operation $op canceled" "$BATS_FILE_TMPDIR/server.log"
	term_run "SELECT 'still here' AS s;"
	term_wait -x 'still here'
	term_keys C-d
	term_wait -x 'rc=0'
}

@test "^C while typing drops the statement, not the prompt" {
	prompt_start
	term_run "SELECT 'dropped',"
	term_wait -x '     ...'
	term_keys C-c
	term_run "SELECT 'kept' AS s;"
	term_wait -x 'kept'
	# Had the dropped line stayed, the two would not parse together.
	run term_screen
	[[ "$output" != *"sc-exec: "* ]]
	term_keys C-d
	term_wait -x 'rc=0'
}

@test "meta-commands: \\format, \\x, \\timing, \\conninfo, \\?, \\q" {
	prompt_start
	term_run '\format csv'
	term_run "SELECT 1 AS a, 2 AS b;"
	term_wait -x '1,2'
	term_run '\x'
	term_run "SELECT 3 AS a;"
	term_wait -x 'a | 3'
	term_run '\timing on'
	term_wait -x 'timing on'
	term_run "SELECT 4 AS a;"
	term_wait 'time: '
	term_run '\conninfo'
	term_wait "server ${SPARK_REMOTE}, session "
	term_run '\?'
	term_wait '\detach'
	term_run '\nope'
	term_wait "sc-exec: unknown command '\\nope'; \\? lists them"
	term_run '\q'
	term_wait -x 'rc=0'
}

@test "psql's \\dt, \\d, \\dn and \\i, as Spark SQL the server runs" {
	local sid
	sid=$(cat /proc/sys/kernel/random/uuid)
	sc-exec --session-id "$sid" "CREATE TEMP VIEW tv_meta AS SELECT 1 AS x, 'a' AS s"
	printf 'SELECT 40 + 2 AS answer;\nSELECT 7 AS seven;\n' >"$BATS_TEST_TMPDIR/inc.sql"
	prompt_start --session-id "$sid" --format csv
	term_run '\dt tv_m*'
	term_wait -x '"",tv_meta,true'
	term_run '\d tv_meta'
	term_wait -x 's,string,'
	term_run '\dn'
	term_wait -x 'default'
	term_run "\\i $BATS_TEST_TMPDIR/inc.sql"
	term_wait -x '42'
	term_wait -x '7'
	term_run '\i /nonexistent.sql'
	term_wait -x "sc-exec: cannot open '/nonexistent.sql': No such file or directory"
	# N23: \d alone lists the relations, as psql's does.
	term_run '\d'
	term_wait -x 'namespace,tableName,isTemporary'
	term_run "\\dt it's"
	term_wait -x 'sc-exec: \dt takes a pattern without quotes or backslashes'
	term_run '\q'
	term_wait -x 'rc=0'
}

@test "\\detach runs the statement detached; --attach gets its result later" {
	local sid
	sid=$(cat /proc/sys/kernel/random/uuid)
	prompt_start --session-id "$sid" --format csv
	term_run '\detach'
	term_wait -x 'the next statement runs detached, in a session of its own'
	term_run "$LONG"
	term_wait -x 'sc-exec>' # back at once: the query runs a while
	run term_screen
	local op
	op=$(grep -oE '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' <<<"$output" | tail -1)
	[ -n "$op" ]
	# The session of its own, as the hint names it.
	sid=$(tmux -S "$TMUX_SOCK" capture-pane -p -J -S - -E - | grep -oE "attach with --session-id [0-9a-f-]{36} --attach $op" | cut -d' ' -f4)
	[ -n "$sid" ]
	run -1 grep -q "operation $op finished" "$BATS_FILE_TMPDIR/server.log"
	term_run '\q'
	term_wait -x 'rc=0'
	run -0 sc-exec --session-id "$sid" --format csv --attach "$op"
	[ "$output" = "$(printf 'n\n200000000')" ]
}

# ------------------------------------------- the second trial's minors

# N9: the progress line waits until the SQL typed on the terminal is
# read (it drew over the typing); at the prompt, keys typed while a
# statement runs are not echoed into the progress line but come back at
# the next prompt.
@test "the progress line leaves typed text alone: sc-exec - and type-ahead at the prompt" {
	term_start
	term_run 'sc-exec --progress --format csv -; echo "rc=$?"'
	term_wait 'end it with ^D'
	sleep 2 # the progress line, were it drawn, would be there by now
	term_keys -l 'SELECT 40 + 2 AS answer'
	term_wait -x 'SELECT 40 + 2 AS answer'
	! term_screen | grep -q ' B/s '
	term_keys Enter C-d
	term_wait -x 'rc=0'
	prompt_start --progress
	term_run "$LONG"
	term_wait ' B/s '
	term_keys -l 'SELECT 5 AS typed_ahead'
	term_wait -x 'sc-exec> SELECT 5 AS typed_ahead'
	run term_screen
	[[ "$output" != *"B/s"*"typed_ahead"* ]]
	[[ "$output" == *$'200000000\nsc-exec> SELECT 5 AS typed_ahead'* ]]
	term_keys '\;' Enter
	term_wait -x '          5'
	term_keys C-d
	term_wait -x 'rc=0'
}

# N15: a statement typed over several lines is one history entry, as in
# psql and sqlite3; Up brings it all back and Enter runs it again.
@test "a multi-line statement is one history entry" {
	prompt_start
	term_run "SELECT id,"
	term_run "'row' || id AS label"
	term_run "FROM range(3);"
	term_wait -x ' 2  row2'
	term_keys Up
	term_wait -x "FROM range(3);"
	term_keys Enter
	wait_twice() { [ "$(term_screen | grep -cx ' 2  row2')" -eq 2 ]; }
	wait_for wait_twice
	term_keys C-d
	term_wait -x 'rc=0'
	# One entry (libedit's file starts with a line of its own).
	[ "$(grep -vc '^_HiStOrY_V2_$' "$T/.sc_exec_history")" -eq 1 ]
}

# N23: \x and \format say what they set; \i errors say file:line, as -f
# does; ^D with a statement not ended by ';' says it did not run.
@test "prompt edges: \\x and \\format confirm, \\i says file:line, ^D warns of an unfinished statement" {
	printf 'SELECT 1 AS a;\nSELECT 2 AS b;\nSELECT nosuch FROM nowhere;\n' >"$T/err3.sql"
	prompt_start
	term_run '\x'
	term_wait -x 'format vertical'
	term_run '\format csv'
	term_wait -x 'format csv'
	term_run '\format'
	[ "$(term_screen | grep -cx 'format csv')" -ge 1 ]
	term_run "\\i $T/err3.sql"
	term_wait "sc-exec: $T/err3.sql:3: statement 3: [TABLE_OR_VIEW_NOT_FOUND]"
	term_wait -x 'sc-exec: 2 of 3 statements ran before it, 0 did not run'
	term_run 'SELECT 1 AS never'
	term_wait -x '     ...'
	term_keys C-d
	term_wait -x 'rc=0'
	term_wait -x "sc-exec: the statement typed last has no ';' at its end: not run"
	! term_screen | grep -qx never
}

# N16: as psql, the prompt starts only with a server that answers; and
# after the server restarted (its sessions gone), the prompt goes on in a
# new session instead of failing every statement.
@test "the prompt needs a server at its start, and outlives a server restart" {
	local port ready="$BATS_TEST_TMPDIR/again.ready"
	term_start 100 40
	term_run "clear; sc-exec -s sc://127.0.0.1:1; echo rc=\$?"
	term_wait -x 'rc=4'
	term_wait -x "sc-exec: cannot connect to '127.0.0.1:1': connection refused"
	start_other
	port=${OTHER##*:}
	term_run "clear; sc-exec --no-pager -s $OTHER; echo rc=\$?"
	term_wait -x 'sc-exec>'
	term_run 'SELECT 1 AS before;'
	term_wait -x '     1'
	kill -9 "$OTHER_PID"
	wait "$OTHER_PID" 2>/dev/null || true
	sc-serve --listen "127.0.0.1:$port" --ready-file "$ready" \
	    >"$BATS_TEST_TMPDIR/again.log" 2>&1 3>&- &
	OTHER_PID=$!
	wait_for test -s "$ready"
	term_run 'SELECT 2 AS first_after;'
	term_wait '[INVALID_HANDLE.SESSION_CHANGED]'
	term_wait 'sc-exec: the server restarted: statements now run in session '
	term_run 'SELECT 3 AS second_after;'
	term_wait -x '           3'
	term_keys C-d
	term_wait -x 'rc=0'
	stop_other
}

# N19: while the server is away, the progress line says it reconnects
# (it showed only a falling rate unless -v).
@test "the progress line says when it reconnects, without -v" {
	start_other
	term_start 120 20
	term_run "clear; sc-exec -s $OTHER --unreachable-timeout 20s --range 0:3000000000 >/dev/null; echo rc=\$?"
	term_wait 'B/s'
	kill -9 "$OTHER_PID"
	wait "$OTHER_PID" 2>/dev/null || true
	OTHER_PID=
	term_wait "reconnecting to '127.0.0.1:"
	term_wait -x 'rc=4'
}

# T5: a 'NULL' string and a NULL both show NULL, as in Spark's show();
# --null, and \null at the prompt, tell them apart.
@test "\\null (and --null) tell a 'NULL' string from a NULL" {
	prompt_start
	term_run "SELECT 'NULL' AS s UNION ALL SELECT NULL;"
	wait_two() { [ "$(term_screen | grep -cx NULL)" -eq 2 ]; }
	wait_for wait_two
	term_run '\null (null)'
	term_wait -x 'null shown as (null)'
	term_run "SELECT 'NULL' AS s UNION ALL SELECT NULL;"
	term_wait -x '(null)'
	term_wait -x 'NULL'
	term_run '\null'
	term_wait -x 'null shown as the default'
	term_keys C-d
	term_wait -x 'rc=0'
	run -0 sc-exec --format table --null '(null)' "SELECT 'NULL' AS s UNION ALL SELECT NULL"
	[ "$output" = $'s\n------\nNULL\n(null)' ]
}

# N17: on a terminal, a DML statement's count on a line of its own.
@test "a DELETE on a terminal says DELETE 6, as psql does" {
	term_start
	term_run "clear; sc-exec 'CREATE TABLE dml24 AS SELECT id FROM range(10); DELETE FROM dml24 WHERE id < 6; SELECT count(*) AS n FROM dml24'; echo rc=\$?"
	term_wait -x 'rc=0'
	run term_lines
	[[ "$output" == $'DELETE 6\nn\n-\n4\nrc=0'* ]]
}

# N23: Tab completes Spark SQL's keywords, in the case typed, and the
# prompt's commands (table names are not completed: that needs a call).
@test "Tab completes keywords and backslash commands" {
	prompt_start --format csv
	term_keys -l 'sel'
	term_keys Tab
	term_keys -l '40 + 2 AS n FR'
	term_keys Tab
	term_keys -l 'range(1)'
	term_keys '\;' Enter
	term_wait -x 'sc-exec> select 40 + 2 AS n FROM range(1);'
	term_wait -x '42'
	term_keys -l '\ti'
	term_keys Tab
	term_keys -l 'on'
	term_keys Enter
	term_wait -x 'timing on'
	term_keys C-d
	term_wait -x 'rc=0'
}
