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
	SPARK_REMOTE=$(head -1 "$BATS_FILE_TMPDIR/server.ready")
	export SPARK_REMOTE
	T=$BATS_TEST_TMPDIR
	TMUX_SOCK=$T/tmux.sock
}

teardown() {
	[ -n "${TMUX_SOCK:-}" ] && tmux -S "$TMUX_SOCK" kill-server 2>/dev/null
	true
}

# term_start [COLS [ROWS]]: a shell in a fresh tmux pane, with this
# file's server, a UTF-8 locale and a plain prompt.
term_start() {
	tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -x "${1:-80}" \
	    -y "${2:-24}" "env -i PATH='$PATH' HOME='$T' TERM=xterm-256color LANG=C.UTF-8 SPARK_REMOTE='$SPARK_REMOTE' PS1='$ ' PAGER='${PAGER_CMD:-less -S}' bash --norc --noprofile" 3>&-
	tmux -S "$TMUX_SOCK" set-option -g history-limit 5000 >/dev/null
	term_wait '$'
}

# term_keys KEYS...: type into the pane (tmux send-keys syntax).
term_keys() {
	tmux -S "$TMUX_SOCK" send-keys "$@"
}

# term_run LINE: type LINE and Enter.
term_run() {
	tmux -S "$TMUX_SOCK" send-keys -l "$1"
	tmux -S "$TMUX_SOCK" send-keys Enter
}

# term_screen: the visible screen and the scrollback, as text.
term_screen() {
	tmux -S "$TMUX_SOCK" capture-pane -p -S - -E -
}

# term_wait TEXT: wait (bounded) until TEXT is on the screen.
term_wait() {
	local i n=100
	[ -n "${SCTK_SANITIZE:-}" ] && n=1000
	for ((i = 0; i < n; i++)); do
		term_screen | grep -qF -- "$1" && return 0
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
	term_wait 'rc=0'
	run term_screen
	[[ "$output" == *$'answer\n42\nrc=0'* ]]
}
