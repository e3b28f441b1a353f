/* SPDX-License-Identifier: MIT */

/*
 * test-uri.c: connection strings, good and bad, table-driven.
 */

#include "core/uri.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/rpc.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

#define B "invalid server address: "
#define UUID "0f1e2d3c-4b5a-4697-8877-665544332211"

struct good {
	const char *in;
	const char *host;
	int port;
	bool v6;
	bool ssl;
	const char *token; /* NULL: none */
	const char *user_id;
	const char *user_agent;
	const char *session_id;
	long maxmsg; /* 0: default */
	const char *params; /* "k=v,k=v" in order, or "" */
	const char *target;
};

static const struct good goods[] = {
	{ "sc://localhost", "localhost", 15002, false, false, NULL, "", "", "",
	    0, "", "localhost:15002" },
	{ "sc://localhost/", "localhost", 15002, false, false, NULL, "", "", "",
	    0, "", "localhost:15002" },
	{ "sc://h:1", "h", 1, false, false, NULL, "", "", "", 0, "", "h:1" },
	{ "sc://h:65535/", "h", 65535, false, false, NULL, "", "", "", 0, "",
	    "h:65535" },
	{ "sc://h:007", "h", 7, false, false, NULL, "", "", "", 0, "", "h:7" },
	{ "SC://Example.COM:443", "Example.COM", 443, false, false, NULL, "",
	    "", "", 0, "", "Example.COM:443" },
	{ "sc://10.0.0.1:15003", "10.0.0.1", 15003, false, false, NULL, "", "",
	    "", 0, "", "10.0.0.1:15003" },
	{ "sc://my_host-1.example:80", "my_host-1.example", 80, false, false,
	    NULL, "", "", "", 0, "", "my_host-1.example:80" },
	{ "sc://[::1]:15002", "::1", 15002, true, false, NULL, "", "", "", 0,
	    "", "[::1]:15002" },
	{ "sc://[::1]", "::1", 15002, true, false, NULL, "", "", "", 0, "",
	    "[::1]:15002" },
	{ "sc://[2001:db8::7]/;use_ssl=true", "2001:db8::7", 15002, true, true,
	    NULL, "", "", "", 0, "", "[2001:db8::7]:15002" },
	{ "sc://[fe80::1%25eth0]:9", "fe80::1%eth0", 9, true, false, NULL, "",
	    "", "", 0, "", "[fe80::1%eth0]:9" },
	{ "sc://[::ffff:1.2.3.4]:5", "::ffff:1.2.3.4", 5, true, false, NULL, "",
	    "", "", 0, "", "[::ffff:1.2.3.4]:5" },
	{ "localhost:15002", "localhost", 15002, false, false, NULL, "", "", "",
	    0, "", "localhost:15002" },
	{ "example.com", "example.com", 15002, false, false, NULL, "", "", "",
	    0, "", "example.com:15002" },
	{ "127.0.0.1:1", "127.0.0.1", 1, false, false, NULL, "", "", "", 0, "",
	    "127.0.0.1:1" },
	{ "[::1]:15002", "::1", 15002, true, false, NULL, "", "", "", 0, "",
	    "[::1]:15002" },
	{ "[::1]", "::1", 15002, true, false, NULL, "", "", "", 0, "",
	    "[::1]:15002" },
	{ "sc://h/;token=abc", "h", 15002, false, false, "abc", "", "", "", 0,
	    "", "h:15002" },
	{ "sc://h;token=abc", "h", 15002, false, false, "abc", "", "", "", 0,
	    "", "h:15002" },
	{ "sc://h:1/;token=a%2Fb%3d%3D==", "h", 1, false, false, "a/b====", "",
	    "", "", 0, "", "h:1" },
	{ "sc://h/;use_ssl=true", "h", 15002, false, true, NULL, "", "", "", 0,
	    "", "h:15002" },
	{ "sc://h/;use_ssl=FALSE", "h", 15002, false, false, NULL, "", "", "",
	    0, "", "h:15002" },
	{ "sc://h/;user_id=alice;user_agent=my%20app", "h", 15002, false, false,
	    NULL, "alice", "my app", "", 0, "", "h:15002" },
	{ "sc://h/;user_id=", "h", 15002, false, false, NULL, "", "", "", 0, "",
	    "h:15002" },
	{ "sc://h/;session_id=" UUID, "h", 15002, false, false, NULL, "", "",
	    UUID, 0, "", "h:15002" },
	{ "sc://h/;session_id=0F1E2D3C-4B5A-4697-8877-665544332211", "h", 15002,
	    false, false, NULL, "", "", "0F1E2D3C-4B5A-4697-8877-665544332211",
	    0, "", "h:15002" },
	{ "sc://h/;grpc_max_message_size=1048576", "h", 15002, false, false,
	    NULL, "", "", "", 1048576, "", "h:15002" },
	{ "sc://h/;grpc_max_message_size=2147483647", "h", 15002, false, false,
	    NULL, "", "", "", 2147483647L, "", "h:15002" },
	{ "sc://h/;x-my-header=abcd", "h", 15002, false, false, NULL, "", "",
	    "", 0, "x-my-header=abcd", "h:15002" },
	{ "sc://h/;X-Trace.Id=1;b_c=%20v%20;empty=", "h", 15002, false, false,
	    NULL, "", "", "", 0, "x-trace.id=1,b_c= v ,empty=", "h:15002" },
	{ "sc://h/;k-bin=%01%FF", "h", 15002, false, false, NULL, "", "", "", 0,
	    "k-bin=\x01\xff", "h:15002" },
	{ "sc://h/;;token=t;", "h", 15002, false, false, "t", "", "", "", 0, "",
	    "h:15002" },
	{ "sc://h:2/;token=t;use_ssl=true;user_id=u;user_agent=ua;session_id=" UUID
	  ";grpc_max_message_size=5;a=1",
	    "h", 2, false, true, "t", "u", "ua", UUID, 5, "a=1", "h:2" },
	{ "sc://h/;v=a+b", "h", 15002, false, false, NULL, "", "", "", 0,
	    "v=a+b", "h:15002" },
};

struct bad {
	const char *in;
	const char *msg; /* exact message */
};

static const struct bad bads[] = {
	{ "", B "empty address" },
	{ "sc://", B "empty host" },
	{ "sc:///", B "empty host" },
	{ "sc://:15002", B "empty host" },
	{ ":15002", B "empty host" },
	{ "sc://h:", B "missing port after ':'" },
	{ "h:", B "missing port after ':'" },
	{ "sc://h:abc", B "port 'abc' is not a number" },
	{ "sc://h:-1", B "port '-1' is not a number" },
	{ "sc://h:1x", B "port '1x' is not a number" },
	{ "sc://h:+1", B "port '+1' is not a number" },
	{ "sc://h:0", B "port '0' is out of range (1-65535)" },
	{ "sc://h:65536", B "port '65536' is out of range (1-65535)" },
	{ "h:99999999999999999999",
	    B "port '99999999999999999999' is out of range (1-65535)" },
	{ "sc://[::1", B "missing ']' after IPv6 address '::1'" },
	{ "[::1:15002", B "missing ']' after IPv6 address '::1:15002'" },
	{ "sc://[::1]x", B "unexpected 'x' after ']'" },
	{ "[::1]15002", B "unexpected '15002' after ']'" },
	{ "[::1]:", B "missing port after ':'" },
	{ "[::1]:0", B "port '0' is out of range (1-65535)" },
	{ "sc://[]:1", B "empty host" },
	{ "[not-v6]", B "'not-v6' is not a valid IPv6 address" },
	{ "[1.2.3.4]", B "'1.2.3.4' is not a valid IPv6 address" },
	{ "[fe80::1%]", B "'fe80::1%' is not a valid IPv6 address" },
	{ "[fe80::1%e/0]", B "a path or parameters need the 'sc://' form" },
	{ "sc://[fe80::1%e!]", B "'fe80::1%e!' is not a valid IPv6 address" },
	{ "::1", B "too many ':' (write an IPv6 address as '[addr]:port')" },
	{ "sc://a:b:c",
	    B "too many ':' (write an IPv6 address as "
	      "'[addr]:port')" },
	{ "http://h:1", B "unknown scheme 'http' (expected 'sc://')" },
	{ "grpc://h", B "unknown scheme 'grpc' (expected 'sc://')" },
	{ "scs://h", B "unknown scheme 'scs' (expected 'sc://')" },
	{ "sc://h/path",
	    B "unexpected path '/path' (only '/' may follow the "
	      "host)" },
	{ "sc://h//;a=1",
	    B "unexpected path '//' (only '/' may follow the "
	      "host)" },
	{ "sc://h/x;token=secret",
	    B "unexpected path '/x' (only '/' may "
	      "follow the host)" },
	{ "h:1/", B "a path or parameters need the 'sc://' form" },
	{ "h;token=x", B "a path or parameters need the 'sc://' form" },
	{ "sc://h/;token",
	    B "parameter 'token' has no value (expected "
	      "'key=value')" },
	{ "sc://h/;a=1;flag",
	    B "parameter 'flag' has no value (expected "
	      "'key=value')" },
	{ "sc://h/;=v", B "empty parameter name" },
	{ "sc://h/;Token=t",
	    B "parameter names are case-sensitive: 'token', "
	      "not 'Token'" },
	{ "sc://h/;USE_SSL=true",
	    B "parameter names are case-sensitive: "
	      "'use_ssl', not 'USE_SSL'" },
	{ "sc://h/;token=a;token=b", B "duplicate parameter 'token'" },
	{ "sc://h/;use_ssl=true;use_ssl=true",
	    B "duplicate parameter "
	      "'use_ssl'" },
	{ "sc://h/;x-a=1;X-A=2", B "duplicate header 'x-a'" },
	{ "sc://h/;token=", B "token is empty" },
	{ "sc://h/;token=a%0Ab",
	    B "token contains characters not allowed in "
	      "a header" },
	{ "sc://h/;use_ssl=yes",
	    B "use_ssl must be 'true' or 'false', not "
	      "'yes'" },
	{ "sc://h/;use_ssl=", B "use_ssl must be 'true' or 'false', not ''" },
	{ "sc://h/;grpc_max_message_size=0",
	    B "grpc_max_message_size must be "
	      "a positive integer, not '0'" },
	{ "sc://h/;grpc_max_message_size=-5",
	    B "grpc_max_message_size must "
	      "be a positive integer, not '-5'" },
	{ "sc://h/;grpc_max_message_size=1k",
	    B "grpc_max_message_size must "
	      "be a positive integer, not '1k'" },
	{ "sc://h/;grpc_max_message_size=",
	    B "grpc_max_message_size must be "
	      "a positive integer, not ''" },
	{ "sc://h/;grpc_max_message_size=2147483648",
	    B "grpc_max_message_size "
	      "is too large (at most 2147483647)" },
	{ "sc://h/;session_id=abc", B "session_id 'abc' is not a UUID" },
	{ "sc://h/;session_id=" UUID "0",
	    B "session_id '" UUID "0' is not a "
	      "UUID" },
	{ "sc://h/;user_id=%zz",
	    B "bad percent escape '%zz' in parameter "
	      "'user_id'" },
	{ "sc://h/;user_id=a%4",
	    B "bad percent escape '%4' in parameter "
	      "'user_id'" },
	{ "sc://h/;user_id=a%",
	    B "bad percent escape '%' in parameter "
	      "'user_id'" },
	{ "sc://h/;token=%G0",
	    B "bad percent escape '%G0' in parameter "
	      "'token'" },
	{ "sc://h/;user_id=a%00b",
	    B "'%00' is not allowed in parameter "
	      "'user_id'" },
	{ "sc://h/;bad key=1", B "'bad key' is not a valid metadata key" },
	{ "sc://h/;k%41=1", B "'k%41' is not a valid metadata key" },
	{ "sc://h/;grpc-timeout=1", B "'grpc-timeout' is reserved for gRPC" },
	{ "sc://h/;GRPC-Timeout=1", B "'grpc-timeout' is reserved for gRPC" },
	{ "sc://h/;x:y=1", B "'x:y' is not a valid metadata key" },
	{ "sc://h/;x-a=%0A",
	    B "value of 'x-a' contains characters not allowed "
	      "in a header" },
	{ "sc://user@h",
	    B "user names in the address are not supported (use "
	      "';user_id=name')" },
	{ "sc://h?x=1", B "invalid character '?' in host" },
	{ "sc://h#f", B "invalid character '#' in host" },
	{ "sc://h st", B "invalid byte 0x20 in host" },
	{ "h\x01", B "invalid byte 0x01 in host" },
	{ "sc://h\xc3\xa9", B "invalid byte 0xc3 in host" },
};

/* "k=v,k=v" of u's params. */
static void
params_str(const struct sc_uri *u, char *buf, size_t bufsz)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < u->nparams; i++)
		len += (size_t)snprintf(buf + len, bufsz - len, "%s%s=%s",
		    i ? "," : "", u->params[i].key, u->params[i].value);
}

static void
test_good(void)
{
	struct sc_uri u;
	struct sc_error err;
	char buf[512];
	size_t i;
	int rc;

	for (i = 0; i < SC_NELEM(goods); i++) {
		const struct good *g = &goods[i];

		sc_uri_init(&u);
		sc_error_init(&err);
		rc = sc_uri_parse(&u, g->in, &err);
		is_int(rc, 0, "parse '%s'", g->in);
		if (rc != 0) {
			printf("#   error: %s\n", err.msg);
			continue;
		}
		is_str(u.host, g->host, "  host");
		is_int(u.port, g->port, "  port %d", g->port);
		is_int(u.is_ipv6, g->v6, "  is_ipv6 %d", g->v6);
		is_int(u.use_ssl, g->ssl, "  use_ssl %d", g->ssl);
		is_int(u.has_token, g->token != NULL, "  has_token");
		is_str(u.token, g->token, "  token");
		is_str(u.user_id, g->user_id, "  user_id");
		is_str(u.user_agent, g->user_agent, "  user_agent");
		is_str(u.session_id, g->session_id, "  session_id");
		is_int(u.max_message_size,
		    g->maxmsg ? g->maxmsg : SC_RPC_MAX_MESSAGE,
		    "  max_message_size");
		params_str(&u, buf, sizeof(buf));
		is_str(buf, g->params, "  params");
		is_int(sc_uri_target(&u, buf, sizeof(buf)), 0, "  target ok");
		is_str(buf, g->target, "  target");
		is_int(err.status, SC_ST_OK, "  err untouched");
		sc_uri_release(&u);
	}
}

static void
test_bad(void)
{
	struct sc_uri u;
	struct sc_error err;
	size_t i;
	int rc;

	for (i = 0; i < SC_NELEM(bads); i++) {
		sc_uri_init(&u);
		rc = sc_uri_parse(&u, "sc://keep:1/;token=old", NULL);
		rc = sc_uri_parse(&u, bads[i].in, &err);
		is_int(rc, -1, "reject '%s'", bads[i].in);
		is_str(err.msg, bads[i].msg, "  message");
		is_int(err.status, SC_ST_USAGE, "  status usage");
		ok(strcmp(u.host, "keep") == 0 && u.port == 1 &&
			u.token != NULL && strcmp(u.token, "old") == 0,
		    "  previous contents untouched");
		sc_uri_release(&u);
	}
}

static void
test_misc(void)
{
	struct sc_uri u;
	struct sc_error err;
	char buf[300], small[7];
	char *s;

	/* Lengths: host 255 ok, 256 not; user_agent 2047 ok, 2048 not. */
	sc_uri_init(&u);
	memset(buf, 'a', 255);
	buf[255] = '\0';
	is_int(sc_uri_parse(&u, buf, &err), 0, "255-byte host");
	is_int(strlen(u.host), 255, "  kept whole");
	buf[255] = 'a';
	buf[256] = '\0';
	is_int(sc_uri_parse(&u, buf, &err), -1, "256-byte host");
	is_str(err.msg, B "host is too long (256 bytes, at most 255)",
	    "  message");
	s = sc_xasprintf("sc://%s:1", buf);
	is_int(sc_uri_parse(&u, s, &err), -1, "256-byte host in sc://");
	is_str(err.msg, B "host is too long (256 bytes, at most 255)",
	    "  message");
	free(s);

	s = sc_xmalloc(3000);
	memcpy(s, "sc://h/;user_agent=", 19);
	memset(s + 19, 'u', 2047);
	s[19 + 2047] = '\0';
	is_int(sc_uri_parse(&u, s, &err), 0, "2047-byte user_agent");
	is_int(strlen(u.user_agent), 2047, "  kept whole");
	s[19 + 2047] = 'u';
	s[19 + 2048] = '\0';
	is_int(sc_uri_parse(&u, s, &err), -1, "2048-byte user_agent");
	is_str(err.msg, B "user_agent is too long (2048 bytes, at most 2047)",
	    "  message");
	memcpy(s, "sc://h/;user_id=", 16);
	memset(s + 16, 'u', 256);
	s[16 + 256] = '\0';
	is_int(sc_uri_parse(&u, s, &err), -1, "256-byte user_id");
	is_str(err.msg, B "user_id is too long (256 bytes, at most 255)",
	    "  message");
	free(s);

	/* Long input is cut in messages. */
	is_int(
	    sc_uri_parse(&u,
		"sc://h/;session_id="
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaa",
		&err),
	    -1, "long session_id");
	is_str(err.msg,
	    B "session_id '"
	      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	      "...' is not a UUID",
	    "  echo cut at 64 bytes");

	/* The token never appears in a message. */
	is_int(sc_uri_parse(&u, "sc://h:0/;token=hunter2", &err), -1,
	    "bad port with a token");
	ok(strstr(err.msg, "hunter2") == NULL, "  token not in the message");
	sc_uri_release(&u);

	/* NULL input and NULL err. */
	sc_uri_init(&u);
	is_int(sc_uri_parse(&u, NULL, &err), -1, "NULL string");
	is_str(err.msg, B "empty address", "  message");
	is_int(sc_uri_parse(&u, "sc://h:0", NULL), -1, "NULL err");

	/* Format and target, and buffers too small. */
	is_int(sc_uri_parse(&u, "sc://[::1]:7/;token=t", &err), 0, "v6 parse");
	is_int(sc_uri_format(&u, buf, sizeof(buf)), 0, "format ok");
	is_str(buf, "sc://[::1]:7", "format has no token");
	is_int(sc_uri_target(&u, small, sizeof(small)), -1, "target too small");
	is_int(sc_uri_format(&u, small, sizeof(small)), -1, "format too small");
	is_int(sc_uri_parse(&u, "sc://host:15002", &err), 0, "re-parse");
	ok(u.token == NULL && !u.has_token, "re-parse dropped the token");
	is_int(sc_uri_format(&u, buf, sizeof(buf)), 0, "format ok");
	is_str(buf, "sc://host:15002", "format");

	/*
	 * A zone is written back as RFC 6874 spells it, so it reads back
	 * the same even when it starts with "25" (found by make fuzz).
	 */
	is_int(sc_uri_parse(&u, "[::%25252__]", &err), 0, "zone 252__");
	is_str(u.host, "::%252__", "  its host");
	is_int(sc_uri_format(&u, buf, sizeof(buf)), 0, "  format ok");
	is_str(buf, "sc://[::%25252__]:15002",
	    "  formatted with the RFC 6874 escape");
	is_int(sc_uri_parse(&u, buf, &err), 0, "  read back");
	is_str(u.host, "::%252__", "  the same host");
	is_int(sc_uri_target(&u, buf, sizeof(buf)), 0, "  target ok");
	is_str(buf, "[::%252__]:15002",
	    "  the target keeps a bare percent sign");

	/* Release re-initialises. */
	sc_uri_release(&u);
	is_int(u.port, SC_URI_DEFAULT_PORT, "released: default port");
	ok(u.params == NULL && u.nparams == 0 && u.token == NULL,
	    "released: empty");
	sc_uri_release(&u); /* twice is fine */
}

static void
test_default(void)
{
	struct sc_uri u;
	struct sc_error err;

	sc_uri_init(&u);
	unsetenv("SPARK_REMOTE");
	is_int(sc_uri_parse_default(&u, NULL, &err), 0, "no spec, no env");
	is_str(u.host, "localhost", "  localhost");
	is_int(u.port, 15002, "  15002");

	setenv("SPARK_REMOTE", "", 1);
	is_int(sc_uri_parse_default(&u, NULL, &err), 0, "empty env");
	is_str(u.host, "localhost", "  localhost");

	setenv("SPARK_REMOTE", "sc://remote:1234/;user_id=bob", 1);
	is_int(sc_uri_parse_default(&u, NULL, &err), 0, "env");
	is_str(u.host, "remote", "  host from env");
	is_int(u.port, 1234, "  port from env");
	is_str(u.user_id, "bob", "  user_id from env");

	is_int(sc_uri_parse_default(&u, "other:9", &err), 0, "spec wins");
	is_str(u.host, "other", "  host from spec");

	setenv("SPARK_REMOTE", "sc://remote:0", 1);
	is_int(sc_uri_parse_default(&u, NULL, &err), -1, "bad env");
	is_str(err.msg,
	    B "port '0' is out of range (1-65535) "
	      "(from SPARK_REMOTE)",
	    "  message names SPARK_REMOTE");
	is_int(err.status, SC_ST_USAGE, "  usage");
	is_str(u.host, "other", "  u untouched");
	is_int(sc_uri_parse_default(&u, "x:0", &err), -1, "bad spec");
	is_str(err.msg, B "port '0' is out of range (1-65535)",
	    "  message without SPARK_REMOTE");
	unsetenv("SPARK_REMOTE");
	sc_uri_release(&u);
}

/*
 * sc_uri_add_metadata(), the one check of request headers, whether they
 * come from the address or from -H: every refusal leaves the list as it
 * was, every acceptance adds exactly the lower-cased key and the value.
 */
static void
test_add_metadata(void)
{
	static const struct {
		const char *key, *value;
		const char *msg; /* NULL: accepted */
	} t[] = {
		{ "x-trace", "abc", NULL },
		{ "X-Other", "1", NULL },
		{ "x-trace", "again", "duplicate header 'x-trace'" },
		{ "X-TRACE", "again", "duplicate header 'x-trace'" },
		{ "grpc-timeout", "1S", "'grpc-timeout' is reserved for gRPC" },
		{ "Grpc-Encoding", "gzip",
		    "'grpc-encoding' is reserved for gRPC" },
		{ "bad key", "x", "'bad key' is not a valid metadata key" },
		{ "x:y", "x", "'x:y' is not a valid metadata key" },
		{ "", "x", "'' is not a valid metadata key" },
		{ "token", "s3cret",
		    "'token' is a server address parameter, not a header" },
		{ "Session_Id", "x",
		    "'session_id' is a server address parameter, not a header" },
		{ "x-nl", "a\nb",
		    "value of 'x-nl' contains characters not allowed in a "
		    "header" },
		{ "x-raw-bin", "a\nb", NULL },
		{ "x.dots_under", "", NULL },
	};
	struct sc_kv *kv = NULL;
	struct sc_error err;
	size_t n = 0, want = 0, i;
	int rc;

	for (i = 0; i < SC_NELEM(t); i++) {
		sc_error_init(&err);
		rc = sc_uri_add_metadata(&kv, &n, t[i].key, t[i].value, &err);
		if (t[i].msg == NULL) {
			want++;
			is_int(rc, 0, "header '%s' accepted", t[i].key);
			ok(n == want &&
				strcasecmp(kv[n - 1].key, t[i].key) == 0 &&
				strcmp(kv[n - 1].value, t[i].value) == 0,
			    "  added as the last entry");
		} else {
			is_int(rc, -1, "header '%s' refused", t[i].key);
			is_str(err.msg, t[i].msg, "  message");
			is_int(err.status, SC_ST_USAGE, "  status usage");
			is_int(n, want, "  list unchanged");
		}
	}
	is_str(kv[1].key, "x-other", "keys are lower-cased");
	for (i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

int
main(void)
{
	test_good();
	test_bad();
	test_misc();
	test_default();
	test_add_metadata();
	return tap_done();
}
