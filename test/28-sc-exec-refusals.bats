#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 28-sc-exec-refusals: what sc-exec refuses before it sends anything.
# A token or an Authorization header never goes in the clear to a host
# that is not loopback unless --insecure says so; a CA file that holds
# no certificate is named as such; a plan whose SQL holds a NUL byte is
# not sent cut short; a wrong token gives one error line.  The refusals
# happen before any connection, so the TEST-NET address 192.0.2.1 is
# never contacted.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

setup_file() {
	sc_server_start --token s3cret
}

teardown_file() {
	sc_server_stop
}

setup() {
	sc_server_env
}

REFUSE_TOKEN="sc-exec: refusing to send the token without TLS to '192.0.2.1:15002' (use_ssl=false): use TLS (use_ssl=true or --tls), or --insecure to send it anyway"

@test "a token with use_ssl=false off loopback: exit 2 before connecting" {
	run -2 --separate-stderr sc-exec -t 1s --token t \
	    -s 'sc://192.0.2.1/;use_ssl=false' 'SELECT 1'
	[ "$stderr" = "$REFUSE_TOKEN" ]
	[ -z "$output" ]
	run -2 --separate-stderr sc-exec -t 1s \
	    -s 'sc://192.0.2.1/;use_ssl=false;token=t' 'SELECT 1'
	[ "$stderr" = "$REFUSE_TOKEN" ]
	SPARK_REMOTE='sc://192.0.2.1/;use_ssl=false;token=t' \
	    run -2 --separate-stderr sc-exec -t 1s 'SELECT 1'
	[ "$stderr" = "$REFUSE_TOKEN" ]
	# Exit 2, not 5: no connection was tried for the 1 s of -t.
}

@test "an Authorization header without TLS off loopback: exit 2" {
	run -2 --separate-stderr sc-exec -t 1s -s sc://192.0.2.1 \
	    -H 'authorization=Bearer t' 'SELECT 1'
	[ "$stderr" = "sc-exec: refusing to send the authorization header without TLS to '192.0.2.1:15002': use TLS (use_ssl=true or --tls), or --insecure to send it anyway" ]
}

@test "--insecure: it is sent, so the run tries and fails to connect (4 or 5)" {
	run --separate-stderr sc-exec -t 1s --insecure --token t \
	    -s 'sc://192.0.2.1/;use_ssl=false' 'SELECT 1'
	[ "$status" -eq 4 ] || [ "$status" -eq 5 ]
	[[ "$stderr" == *"192.0.2.1:15002"* ]]
	[[ "$stderr" != *refusing* ]]
	run --separate-stderr sc-exec -t 1s --insecure -s sc://192.0.2.1 \
	    -H 'authorization=Bearer t' 'SELECT 1'
	[ "$status" -eq 4 ] || [ "$status" -eq 5 ]
}

@test "a token without use_ssl off loopback turns TLS on: not refused" {
	run --separate-stderr sc-exec -t 1s --token t -s sc://192.0.2.1 'SELECT 1'
	[ "$status" -eq 4 ] || [ "$status" -eq 5 ]
	[[ "$stderr" != *refusing* ]]
}

@test "loopback addresses may carry a token in the clear" {
	local port=${SPARK_REMOTE##*:}
	run -0 sc-exec --no-header --token s3cret \
	    -s "sc://127.0.0.1:$port/;use_ssl=false" 'SELECT 41 + 1'
	[ "$output" = 42 ]
	run -0 sc-exec --no-header -s "sc://localhost:$port/;token=s3cret" \
	    'SELECT 42'
	[ "$output" = 42 ]
}

# The machine's own name, when it resolves to 127.x, is a host that is
# not a loopback *name*: a token to it is TLS, or --insecure for plain.
@test "a non-loopback name: TLS by default, the clear with --insecure" {
	local name port=${SPARK_REMOTE##*:}
	name=$(hostname)
	case $(getent hosts "$name" | awk '{ print $1; exit }') in
	127.*) ;;
	*) skip "this host's name does not resolve to 127.x" ;;
	esac
	[[ "$name" != localhost* ]] || skip "the host is called localhost"
	# By default the token turns TLS on, which a plaintext server refuses.
	run -7 --separate-stderr sc-exec -t 5s --token s3cret \
	    -s "sc://$name:$port" 'SELECT 1'
	[[ "$stderr" == "sc-exec: cannot connect to '$name:$port': TLS handshake failed"* ]]
	run -2 --separate-stderr sc-exec --token s3cret \
	    -s "sc://$name:$port/;use_ssl=false" 'SELECT 1'
	[[ "$stderr" == "sc-exec: refusing to send the token without TLS to '$name:$port' (use_ssl=false)"* ]]
	run -0 sc-exec --no-header --insecure --token s3cret \
	    -s "sc://$name:$port" 'SELECT 7'
	[ "$output" = 7 ]
}

@test "a CA file with no certificate says so (exit 2), not 'empty address list'" {
	local ca="$BATS_TEST_TMPDIR/ca.pem"
	echo "not a certificate" >"$ca"
	run -2 --separate-stderr sc-exec --tls --ca-file "$ca" 'SELECT 1'
	[ "$stderr" = "sc-exec: CA file '$ca' holds no PEM certificate" ]
	printf -- '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' >"$ca"
	run -2 --separate-stderr sc-exec --tls --ca-file "$ca" 'SELECT 1'
	[ "$stderr" = "sc-exec: CA file '$ca' holds no PEM certificate" ]
	run -9 --separate-stderr sc-exec --tls --ca-file /nonexistent.pem 'SELECT 1'
	[ "$stderr" = "sc-exec: cannot open CA file '/nonexistent.pem': No such file or directory" ]
}

@test "a wrong token: exit 8 and one line, no release failure before it" {
	run -8 --separate-stderr sc-exec --token wrong 'SELECT 1'
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "sc-exec: Invalid authentication token"* ]]
	run -8 --separate-stderr sc-exec 'SELECT 1'
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "sc-exec: No authentication token provided"* ]]
}

@test "a plan file whose SQL holds a NUL byte: exit 2, not a query cut short" {
	local plan="$BATS_TEST_TMPDIR/nul.bin"
	# Plan{root: Relation{sql{query: "SELECT 'a\0b' AS s"}}}
	printf '\x0a\x15\x52\x13\x0a\x11SELECT '"'"'a\x00b'"'"' AS s' >"$plan"
	[ "$(wc -c <"$plan")" -eq 23 ]
	run -2 --separate-stderr sc-exec --token s3cret --plan "$plan"
	[ "$stderr" = "sc-exec: '$plan' holds a string with a NUL byte, which would be sent cut short" ]
	[ -z "$output" ]
	# The same plan with a space instead runs as it is.
	printf '\x0a\x15\x52\x13\x0a\x11SELECT '"'"'a b'"'"' AS s' >"$plan"
	run -0 sc-exec --token s3cret --no-header --plan "$plan"
	[ "$output" = "a b" ]
}
