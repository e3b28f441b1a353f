#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 52-deb-systemd: sc-serve as a Debian service.  The systemd unit passes
# systemd-analyze verify; sc-serve tells a notify socket READY=1 only once
# its port accepts, RELOADING=1 then READY=1 on SIGHUP, STOPPING=1 on
# SIGTERM; make install and make deb carry the unit, completion and man
# pages; the bash completion completes options, values and operands.
# Installing the package for real (apt-get install, then purge) runs only
# as root with CI=true or SCTK_TEST_DEB=1.

bats_require_minimum_version 1.7.0
load helpers/common

setup_file() {
	build=${SCTK_BUILD#"$SCTK_TOP"/}
	# Test files run in parallel: make deb must package the programs
	# the other files test, not relink them under their feet.
	make -q -C "$SCTK_TOP" BUILD="$build" all || {
		echo "the programs in $build are not up to date: make all first" >&2
		return 1
	}
	# The .deb once for the file: make deb into the file's own folder.
	export DEB_FILE="$BATS_FILE_TMPDIR/sctk.deb"
	make -s -C "$SCTK_TOP" BUILD="$build" DEB_DIR="$BATS_FILE_TMPDIR/deb" \
	    DEB_FILE="$DEB_FILE" deb >"$BATS_FILE_TMPDIR/deb.log" 2>&1 ||
	    { cat "$BATS_FILE_TMPDIR/deb.log" >&2; return 1; }
}

setup() {
	build=${SCTK_BUILD#"$SCTK_TOP"/}
	pid=
	lpid=
}

teardown() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	[ -n "$lpid" ] && kill "$lpid" 2>/dev/null
	[ -n "${sockdir:-}" ] && rm -rf "$sockdir"
	return 0
}

# wait_line FILE PATTERN: FILE gets a line matching PATTERN (bounded).
wait_line() {
	local i n=300
	[ -n "${SCTK_SANITIZE:-}" ] && n=1200
	for ((i = 0; i < n; i++)); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "no line matching '$2' in $1:" >&2
	cat "$1" >&2
	return 1
}

# wait_count FILE PATTERN N: FILE gets N lines matching PATTERN (bounded).
wait_count() {
	local i n=300
	[ -n "${SCTK_SANITIZE:-}" ] && n=1200
	for ((i = 0; i < n; i++)); do
		[ "$(grep -cE "$2" "$1" 2>/dev/null)" -ge "$3" ] && return 0
		sleep 0.1
	done
	echo "fewer than $3 lines matching '$2' in $1:" >&2
	cat "$1" >&2
	return 1
}

# start_listener: a notify socket (short path: sun_path is 108 bytes).
start_listener() {
	command -v python3 >/dev/null || skip "python3 is not installed"
	sockdir=$(mktemp -d /tmp/sctk-notify.XXXXXX)
	nlog="$BATS_TEST_TMPDIR/notify.log"
	python3 "$SCTK_TOP/test/helpers/notify-listen.py" "$sockdir/notify" \
	    "$nlog" 3>&- &
	lpid=$!
	wait_line "$nlog" '^listening$'
}

@test "the unit passes systemd-analyze verify" {
	command -v systemd-analyze >/dev/null ||
	    skip "systemd-analyze is absent (apt-get install systemd)"
	local u="$BATS_TEST_TMPDIR/sc-serve.service"
	sed -e "s|@BINDIR@|$SCTK_BUILD/bin|g" -e 's|@SYSCONFDIR@|/etc|g' \
	    "$SCTK_TOP/scripts/debian/sc-serve.service" >"$u"
	run -0 --separate-stderr systemd-analyze verify --man=no "$u"
	[ -z "$output" ]
	[ -z "$stderr" ]
	grep -qx 'Type=notify' "$u"
	grep -qx 'User=sctk' "$u"
	grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' "$u"
	grep -qx 'NoNewPrivileges=yes' "$u"
	grep -qx 'ProtectSystem=strict' "$u"
	grep -qx 'StateDirectory=sctk sctk/artifacts sctk/data' "$u"
	grep -q -- "--artifact-dir /var/lib/sctk/artifacts --database /var/lib/sctk/data/sctk.sqlite" "$u"
}

@test "sd_notify: READY=1 once the port accepts, RELOADING=1 and READY=1 on SIGHUP, STOPPING=1 on SIGTERM" {
	local ready="$BATS_TEST_TMPDIR/ready" slog="$BATS_TEST_TMPDIR/server.log"
	local hp rc
	start_listener
	NOTIFY_SOCKET="$sockdir/notify" sc-serve --listen 127.0.0.1:0 \
	    --ready-file "$ready" >"$slog" 2>&1 3>&- &
	pid=$!
	wait_line "$nlog" '^READY=1'
	hp=$(sed 's|^sc://||' "$ready")
	run -0 sed -n 2p "$nlog"
	[ "$output" = "READY=1 STATUS=listening on $hp [port accepts]" ]

	kill -HUP "$pid"
	wait_line "$nlog" '^RELOADING=1'
	wait_line "$slog" 'SIGHUP: reloading'
	wait_count "$nlog" '^READY=1' 2
	run -0 sed -n 3p "$nlog"
	[[ $output =~ ^RELOADING=1\ STATUS=reloading\ \(SIGHUP\)\ MONOTONIC_USEC=[0-9]+$ ]]
	run -0 sed -n 4p "$nlog"
	[ "$output" = "READY=1 STATUS=listening on $hp [port accepts]" ]

	kill -TERM "$pid"
	# Bounded by sc-serve's own shutdown watchdog (exit 10 past it).
	rc=0
	wait "$pid" || rc=$?
	pid=
	[ "$rc" -eq 0 ]
	run -0 sed -n 5p "$nlog"
	[ "$output" = "STOPPING=1 STATUS=shutting down (SIGTERM)" ]
	run -0 wc -l <"$nlog"
	[ "$output" -eq 5 ]
	grep -q 'stopped$' "$slog"
	check_sanitizer_reports
}

@test "without a listener on NOTIFY_SOCKET sc-serve runs as without one" {
	local ready="$BATS_TEST_TMPDIR/ready" slog="$BATS_TEST_TMPDIR/server.log"
	local rc
	NOTIFY_SOCKET="$BATS_TEST_TMPDIR/nobody" sc-serve --listen 127.0.0.1:0 \
	    --ready-file "$ready" >"$slog" 2>&1 3>&- &
	pid=$!
	wait_line "$slog" 'listening on 127\.0\.0\.1:'
	[ -s "$ready" ]
	run -0 sc-exec -s "$(cat "$ready")" --format csv --no-header 'SELECT 1 + 1'
	[ "$output" = "2" ]
	kill -HUP "$pid"
	wait_line "$slog" 'SIGHUP: reloading'
	kill -TERM "$pid"
	# Bounded by sc-serve's own shutdown watchdog (exit 10 past it).
	rc=0
	wait "$pid" || rc=$?
	pid=
	[ "$rc" -eq 0 ]
	grep -q 'stopped$' "$slog"
	check_sanitizer_reports
}

@test "sc-serve runs under systemd-run as a Type=notify service" {
	[ -d /run/systemd/system ] || skip "systemd is not the init system here"
	[ "$(id -u)" -eq 0 ] || skip "needs root for a system unit"
	local unit="sctk-test-$$-$RANDOM"
	run -0 systemd-run --unit="$unit" --property=Type=notify \
	    --property=TimeoutStartSec=60 --collect \
	    "$SCTK_BUILD/bin/sc-serve" --listen 127.0.0.1:0
	run -0 systemctl show --property=ActiveState --property=StatusText \
	    "$unit"
	local out=$output
	run -0 systemctl stop "$unit"
	[[ $out == *ActiveState=active* ]]
	[[ $out == *"StatusText=listening on 127.0.0.1:"* ]]
}

@test "make install puts the unit, sysusers, tmpfiles, defaults and completion under DESTDIR" {
	local dest="$BATS_TEST_TMPDIR/root" t
	run -0 make -s -C "$SCTK_TOP" BUILD="$build" DESTDIR="$dest" \
	    PREFIX=/usr install
	run -0 grep -x 'ExecStart=/usr/bin/sc-serve .*' \
	    "$dest/usr/lib/systemd/system/sc-serve.service"
	grep -qx 'EnvironmentFile=-/etc/default/sctk' \
	    "$dest/usr/lib/systemd/system/sc-serve.service"
	[ -f "$dest/usr/lib/sysusers.d/sctk.conf" ]
	[ -f "$dest/usr/lib/tmpfiles.d/sctk.conf" ]
	[ -f "$dest/etc/default/sctk" ]
	for t in sc-exec sc-inspect sc-release sc-serve sc-upload; do
		[ -f "$dest/usr/share/bash-completion/completions/$t" ]
	done
	# A PREFIX elsewhere keeps its configuration under it.
	run -0 make -s -C "$SCTK_TOP" BUILD="$build" \
	    DESTDIR="$BATS_TEST_TMPDIR/local" PREFIX=/opt/sctk install
	[ -f "$BATS_TEST_TMPDIR/local/opt/sctk/etc/default/sctk" ]
	grep -qx 'EnvironmentFile=-/opt/sctk/etc/default/sctk' \
	    "$BATS_TEST_TMPDIR/local/opt/sctk/lib/systemd/system/sc-serve.service"
}

@test "make deb: control data, Depends and the files a Debian user expects" {
	local f="$DEB_FILE"
	run -0 dpkg-deb --field "$f" Package Version Architecture
	[ "${lines[0]}" = "Package: sctk" ]
	[ "${lines[1]}" = "Version: 0.1.0-1" ]
	[ "${lines[2]}" = "Architecture: $(dpkg --print-architecture)" ]
	run -0 dpkg-deb --field "$f" Depends
	[[ $output == *"libgrpc29"* ]]
	[[ $output == *"libprotobuf-c1"* ]]
	[[ $output == *"libsystemd0"* ]]
	[[ $output == *"adduser"* ]]
	run -0 dpkg-deb --contents "$f"
	local want
	for want in ./usr/bin/sc-exec ./usr/bin/sc-inspect ./usr/bin/sc-release \
	    ./usr/bin/sc-serve ./usr/bin/sc-upload \
	    ./usr/share/man/man1/sc-serve.1.gz ./usr/share/man/man1/sc-exec.1.gz \
	    ./usr/share/man/man7/sctk.7.gz ./lib/systemd/system/sc-serve.service \
	    ./usr/lib/sysusers.d/sctk.conf ./usr/lib/tmpfiles.d/sctk.conf \
	    ./etc/default/sctk ./usr/share/doc/sctk/copyright \
	    ./usr/share/doc/sctk/changelog.Debian.gz \
	    ./usr/share/bash-completion/completions/sc-serve \
	    ./usr/share/bash-completion/completions/sc-upload; do
		grep -qE " $want\$" <<<"$output" || { echo "missing $want"; false; }
	done
	# Everything root's, and the programs stripped.
	! grep -vE '^[-dl][rwx-]{9} root/root ' <<<"$output"
	local x="$BATS_TEST_TMPDIR/x"
	run -0 dpkg-deb --extract "$f" "$x"
	run -0 file "$x/usr/bin/sc-serve"
	[[ $output == *", stripped"* ]]
	run -0 dpkg-deb --info "$f" conffiles
	[ "$output" = "/etc/default/sctk" ]
	grep -q 'adduser --system' "$SCTK_TOP/scripts/debian/postinst"
}

@test "lintian finds no errors in the package" {
	command -v lintian >/dev/null || skip "lintian is absent (apt-get install lintian)"
	run --separate-stderr lintian --fail-on error "$DEB_FILE"
	echo "$output"
	[ "$status" -eq 0 ]
	! grep -E '^E: ' <<<"$output"
}

# complete WORD...: COMPREPLY for the command line WORD... (the last one
# being completed), one per line, sorted.
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_sctk "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
}

@test "bash completion: options, option values, subcommands and file names" {
	# shellcheck source=/dev/null
	source "$SCTK_TOP/scripts/completion/sctk.bash"
	run -0 complete -p sc-serve
	[ "$output" = "complete -o filenames -F _sctk sc-serve" ]

	run -0 complete_words sc-inspect ''
	[ "$output" = "$(printf '%s\n' list sessions show stats tombstones watch)" ]
	run -0 complete_words sc-inspect --format csv s
	[ "$output" = "$(printf '%s\n' sessions show stats)" ]
	run -0 complete_words sc-inspect sessions ''
	[ "$output" = "" ]
	run -0 complete_words sc-inspect --state r
	[ "$output" = "running" ]
	run -0 complete_words sc-exec --form
	[ "$output" = "--format" ]
	run -0 complete_words sc-exec --format t
	[ "$output" = "$(printf '%s\n' table tsv)" ]
	run -0 complete_words sc-exec -s ''
	[ "$output" = "" ]
	run -0 complete_words sc-serve --log-level ''
	[ "$output" = "$(printf '%s\n' debug error info warn)" ]
	run -0 complete_words sc-serve --log-format ''
	[ "$output" = "$(printf '%s\n' json text)" ]
	run -0 complete_words sc-inspect --format p
	[ "$output" = prometheus ]
	run -0 complete_words sc-serve --artifact-d
	[ "$output" = "--artifact-dir" ]
	run -0 complete_words sc-upload --kind p
	[ "$output" = "pyfile" ]
	run -0 complete_words sc-release --d
	[ "$output" = "--dry-run" ]
	run -0 complete_words "$SCTK_BUILD/bin/sc-release" --d
	[ "$output" = "--dry-run" ]
	run -0 complete_words sc-release -
	[[ $output == *$'\n-n\n'* ]]
	[[ $output == *$'\n--interrupt\n'* ]]

	# Sources and files are file names; --artifact-dir takes directories.
	mkdir -p "$BATS_TEST_TMPDIR/w/art" && cd "$BATS_TEST_TMPDIR/w"
	: >a.jar
	: >app.py
	run -0 complete_words sc-upload a
	[ "$output" = "$(printf '%s\n' a.jar app.py art)" ]
	run -0 complete_words sc-upload --kind jar a.
	[ "$output" = "a.jar" ]
	run -0 complete_words sc-serve --artifact-dir a
	[ "$output" = "art" ]
	run -0 complete_words sc-exec -f app
	[ "$output" = "app.py" ]
}

@test "the package installs with apt, runs as sctk's service files say, and purges cleanly" {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	[ "${CI:-}" = true ] || [ "${SCTK_TEST_DEB:-}" = 1 ] ||
	    skip "installs a package: set SCTK_TEST_DEB=1 (CI=true does)"
	if dpkg-query -W -f='${Status}' sctk 2>/dev/null | grep -q 'ok installed'; then
		skip "sctk is installed on this machine already"
	fi
	local had_user=0 deb="$BATS_TEST_TMPDIR/sctk_test.deb"
	getent passwd sctk >/dev/null && had_user=1
	cp "$DEB_FILE" "$deb"
	chmod 0644 "$deb"
	run -0 env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb"
	run -0 /usr/bin/sc-serve -V
	[ "$output" = "sc-serve 0.1.0" ]
	run -0 getent passwd sctk
	[[ $output == sctk:*:/var/lib/sctk:/usr/sbin/nologin ]]
	run -0 stat -c '%U:%G %a' /var/lib/sctk /var/lib/sctk/artifacts /var/lib/sctk/data
	[ "$output" = "$(printf 'sctk:sctk 750\n%.0s' 1 2 3)" ]
	[ -f /lib/systemd/system/sc-serve.service ]
	[ -f /usr/share/bash-completion/completions/sc-exec ]
	[ -f /usr/share/man/man1/sc-serve.1.gz ]
	# Where systemd runs, postinst started the service: it said READY=1.
	if [ -d /run/systemd/system ]; then
		run -0 systemctl is-active sc-serve
		run -0 systemctl show --property=StatusText sc-serve
		[ "$output" = "StatusText=listening on 127.0.0.1:15002" ]
		run -0 systemctl reload sc-serve
		run -0 systemctl is-active sc-serve
		run -0 systemctl show --property=User --property=Type sc-serve
		[[ $output == *"Type=notify"* ]]
	fi

	run -0 env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq sctk
	[ ! -e /usr/bin/sc-serve ]
	[ ! -e /lib/systemd/system/sc-serve.service ]
	[ ! -e /etc/default/sctk ]
	[ ! -e /var/lib/sctk ]
	run -1 dpkg-query -W -f='${Status}' sctk
	if [ "$had_user" -eq 0 ]; then
		deluser --system --quiet sctk
		getent group sctk >/dev/null && delgroup --system --quiet sctk
	fi
	! getent passwd sctk >/dev/null || [ "$had_user" -eq 1 ]
}
