/* SPDX-License-Identifier: MIT */

/*
 * test-conn.c: the connection options (core/conn): each option, the
 * refusals with their messages, the address they add up to, secrets
 * that would travel in the clear, the unreachable limit and CA files.
 */

#include "core/conn.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/client.h"
#include "core/error.h"
#include "core/retry.h"
#include "core/uri.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

#define SID "0f0e0d0c-0b0a-4908-8706-050403020100"

/* The value of header key in u, or NULL. */
static const char *
header(const struct sc_uri *u, const char *key)
{
	size_t i;

	for (i = 0; i < u->nparams; i++)
		if (strcmp(u->params[i].key, key) == 0)
			return u->params[i].value;
	return NULL;
}

static void
test_table(void)
{
	struct sc_conn_opts o;
	struct sc_error err;
	const struct option *l, *m;
	char want[64];
	int n = 0;

	sc_conn_opts_init(&o);
	for (l = sc_conn_longopts; l->name != NULL; l++, n++) {
		/* Every option of the table is one sc_conn_opt() takes. */
		is_int(sc_conn_opt(&o, l->val,
			   !l->has_arg				   ? NULL
			       : l->val == SC_CONN_OPT_UNREACHABLE ? "1s"
								   : SID,
			   &err),
		    l->val == 'H' ? -1 : 0, "--%s is a connection option",
		    l->name);
		for (m = l + 1; m->name != NULL; m++)
			ok(m->val != l->val, "  --%s and --%s differ", l->name,
			    m->name);
		snprintf(want, sizeof(want), "--%s ", l->name);
		/* --session-id: each program says it its own way. */
		ok(strstr(SC_CONN_HELP SC_CONN_HELP_SESSION, want) != NULL,
		    "  --%s is in the help", l->name);
		if (l->val < 256)
			ok(strchr(SC_CONN_OPTSTRING, l->val) != NULL,
			    "  -%c is in the option string", l->val);
		else
			ok(l->val >= SC_CONN_OPT_BASE,
			    "  its number is above a program's own");
	}
	is_int(n, 9, "nine connection options");
	is_int(sc_conn_opt(&o, 'f', "x", &err), 1, "-f is not one");
	is_int(sc_conn_opt(&o, 't', "1s", &err), 1, "-t is not one");
	sc_conn_opts_release(&o);
}

static void
test_refused(void)
{
	static const struct {
		int ch;
		const char *arg;
		const char *msg;
	} t[] = {
		{ 'H', "novalue",
		    "invalid header 'novalue': expected key=value" },
		{ 'H', "=v", "invalid header '=v': expected key=value" },
		{ 'H', "grpc-timeout=1S",
		    "invalid header 'grpc-timeout=1S': 'grpc-timeout' is reserved for gRPC" },
		{ 'H', "Bad Key=x",
		    "invalid header 'Bad Key=x': 'Bad Key' is not a valid metadata key" },
		{ 'H', "x-a=\x01",
		    "invalid header 'x-a=\x01': value of 'x-a' contains characters not allowed in a header" },
		{ 'H', "token=x",
		    "invalid header 'token=x': 'token' is a server address parameter, not a header" },
		{ 'H', "X-Dup=2",
		    "invalid header 'X-Dup=2': duplicate header 'x-dup'" },
		{ SC_CONN_OPT_SESSION_ID, "nope",
		    "invalid session id 'nope': not a UUID" },
	};
	struct sc_conn_opts o;
	struct sc_error err;
	char *longid;
	size_t i;

	sc_conn_opts_init(&o);
	is_int(sc_conn_opt(&o, 'H', "x-dup=1", &err), 0, "-H x-dup=1");
	for (i = 0; i < SC_NELEM(t); i++) {
		sc_error_init(&err);
		is_int(sc_conn_opt(&o, t[i].ch, t[i].arg, &err), -1,
		    "refused: %s", t[i].arg);
		is_str(err.msg, t[i].msg, "  message");
		is_int(err.status, SC_ST_USAGE, "  status usage (exit 2)");
	}
	is_int(o.nheaders, 1, "refused headers were not kept");
	ok(o.session_id == NULL, "a refused session id was not kept");
	longid = sc_xcalloc(1, 300);
	memset(longid, 'u', 256);
	is_int(sc_conn_opt(&o, SC_CONN_OPT_USER_ID, longid, &err), -1,
	    "a 256-byte user id is refused");
	is_str(err.msg, "invalid user id: longer than 255 bytes", "  message");
	longid[255] = '\0';
	is_int(sc_conn_opt(&o, SC_CONN_OPT_USER_ID, longid, &err), 0,
	    "a 255-byte one is taken");
	free(longid);
	sc_conn_opts_release(&o);
}

static void
test_uri(void)
{
	struct sc_conn_opts o;
	struct sc_error err;
	struct sc_uri u;

	/* The options on top of the address. */
	sc_conn_opts_init(&o);
	sc_conn_opt(&o, 's', "sc://h:7;token=old;user_id=u0;x-b=1", &err);
	sc_conn_opt(&o, SC_CONN_OPT_TOKEN, "new", &err);
	sc_conn_opt(&o, SC_CONN_OPT_TLS, NULL, &err);
	sc_conn_opt(&o, SC_CONN_OPT_USER_ID, "bob", &err);
	sc_conn_opt(&o, SC_CONN_OPT_SESSION_ID, SID, &err);
	sc_conn_opt(&o, SC_CONN_OPT_CA_FILE, "/ca.pem", &err);
	is_int(sc_conn_opt(&o, 'H', "X-Trace=a=b", &err), 0,
	    "-H X-Trace=a=b (the value may hold '=')");
	sc_uri_init(&u);
	is_int(sc_conn_uri(&o, &u, &err), 0, "address with every option");
	ok(strcmp(u.host, "h") == 0 && u.port == 7, "  host and port");
	ok(u.has_token && strcmp(u.token, "new") == 0,
	    "  --token replaces the address's token");
	ok(u.use_ssl, "  --tls");
	is_str(u.user_id, "bob", "  --user-id replaces user_id");
	is_str(u.session_id, SID, "  --session-id");
	is_str(header(&u, "x-b"), "1", "  the address's own header");
	is_str(header(&u, "x-trace"), "a=b", "  -H, lower-cased key");
	is_str(o.ca_file, "/ca.pem", "  --ca-file kept for the channel");
	sc_uri_release(&u);

	/* A -H header the address sets too. */
	sc_conn_opt(&o, 'H', "x-b=2", &err);
	sc_uri_init(&u);
	is_int(sc_conn_uri(&o, &u, &err), -1, "-H x-b against ;x-b=1");
	is_str(err.msg,
	    "invalid header 'x-b=2': duplicate header 'x-b' (the server address sets it too)",
	    "  message");
	is_int(err.status, SC_ST_USAGE, "  status usage");
	sc_uri_release(&u);
	sc_conn_opts_release(&o);

	/* No -s: $SPARK_REMOTE, else localhost. */
	sc_conn_opts_init(&o);
	setenv("SPARK_REMOTE", "sc://envhost:99", 1);
	sc_uri_init(&u);
	is_int(sc_conn_uri(&o, &u, &err), 0, "address from SPARK_REMOTE");
	ok(strcmp(u.host, "envhost") == 0 && u.port == 99, "  its host");
	sc_uri_release(&u);
	unsetenv("SPARK_REMOTE");
	sc_uri_init(&u);
	is_int(sc_conn_uri(&o, &u, &err), 0, "no address at all");
	ok(strcmp(u.host, "localhost") == 0 && u.port == 15002,
	    "  localhost:15002");
	ok(!u.use_ssl && !u.has_token && u.nparams == 0,
	    "  no TLS, token or header");
	sc_uri_release(&u);

	/* A bad address is the URI's message. */
	o.server = "http://x";
	sc_uri_init(&u);
	is_int(sc_conn_uri(&o, &u, &err), -1, "a bad address");
	is_str(err.msg,
	    "invalid server address: unknown scheme 'http' (expected 'sc://')",
	    "  message");
	sc_uri_release(&u);
	sc_conn_opts_release(&o);
}

static void
test_loopback(void)
{
	static const struct {
		const char *host;
		bool loop;
	} t[] = {
		{ "localhost", true },
		{ "LocalHost", true },
		{ "localhost.", true },
		{ "ip6-localhost", true },
		{ "127.0.0.1", true },
		{ "127.255.3.4", true },
		{ "::1", true },
		{ "0:0:0:0:0:0:0:1", true },
		{ "::ffff:127.0.0.2", true },
		{ "128.0.0.1", false },
		{ "192.0.2.1", false },
		{ "10.0.0.1", false },
		{ "::2", false },
		{ "::ffff:10.0.0.1", false },
		{ "127.evil.example", false },
		{ "localhost.evil.example", false },
		{ "127.0.0.1.nip.io", false },
		{ "", false },
	};
	size_t i;

	for (i = 0; i < SC_NELEM(t); i++)
		is_int(sc_conn_loopback(t[i].host), t[i].loop,
		    "loopback '%s': %s", t[i].host, t[i].loop ? "yes" : "no");
}

/* sc_conn_uri() on spec with the options given; err->msg or "". */
static int
secret(const char *spec, const char *token, bool tls, bool insecure,
    const char *header_opt, struct sc_error *err)
{
	struct sc_conn_opts o;
	struct sc_uri u;
	int rc;

	sc_conn_opts_init(&o);
	sc_error_init(err);
	o.server = spec;
	o.token = token;
	o.tls = tls;
	o.insecure = insecure;
	if (header_opt != NULL)
		sc_conn_opt(&o, 'H', header_opt, err);
	sc_uri_init(&u);
	rc = sc_conn_uri(&o, &u, err);
	sc_uri_release(&u);
	sc_conn_opts_release(&o);
	return rc;
}

static void
test_secrets(void)
{
	struct sc_error err;

	/* Refused: a token with use_ssl=false, a header without TLS. */
	is_int(secret("sc://192.0.2.1/;use_ssl=false", "t", false, false, NULL,
		   &err),
	    -1, "token, use_ssl=false, off loopback: refused");
	is_str(err.msg,
	    "refusing to send the token without TLS to '192.0.2.1:15002' (use_ssl=false): use TLS (use_ssl=true or --tls), or --insecure to send it anyway",
	    "  message");
	is_int(err.status, SC_ST_USAGE, "  exit 2");
	is_int(secret("sc://db.example:7/;token=t;use_ssl=false", NULL, false,
		   false, NULL, &err),
	    -1, "the URI's own token: refused too");
	is_int(secret("sc://[2001:db8::1]:7/;use_ssl=false;token=t", NULL,
		   false, false, NULL, &err),
	    -1, "an IPv6 host: refused");
	is_str(err.msg,
	    "refusing to send the token without TLS to '[2001:db8::1]:7' (use_ssl=false): use TLS (use_ssl=true or --tls), or --insecure to send it anyway",
	    "  message with brackets");
	is_int(secret("sc://127.evil.example/;use_ssl=false", "t", false, false,
		   NULL, &err),
	    -1, "a name that starts like 127.: refused");
	is_int(secret("sc://192.0.2.1", NULL, false, false,
		   "authorization=Bearer t", &err),
	    -1, "an authorization header without TLS: refused");
	is_str(err.msg,
	    "refusing to send the authorization header without TLS to '192.0.2.1:15002': use TLS (use_ssl=true or --tls), or --insecure to send it anyway",
	    "  message");
	is_int(secret("sc://192.0.2.1/;authorization=Bearer%20t", NULL, false,
		   false, NULL, &err),
	    -1, "the same header in the URI: refused");

	/* Allowed. */
	is_int(secret("sc://192.0.2.1/;use_ssl=false", "t", false, true, NULL,
		   &err),
	    0, "--insecure: allowed");
	is_int(secret("sc://192.0.2.1", NULL, false, true,
		   "authorization=Bearer t", &err),
	    0, "--insecure: the header too");
	is_int(secret("sc://192.0.2.1/;use_ssl=false", "t", true, false, NULL,
		   &err),
	    0, "--tls: allowed");
	is_int(secret("sc://192.0.2.1", "t", false, false, NULL, &err), 0,
	    "a token, use_ssl not given: allowed (it turns TLS on)");
	is_int(secret("sc://192.0.2.1/;use_ssl=true", NULL, false, false,
		   "authorization=Bearer t", &err),
	    0, "the header over TLS: allowed");
	is_int(secret("sc://127.0.0.1:9/;use_ssl=false", "t", false, false,
		   NULL, &err),
	    0, "127.0.0.1: allowed");
	is_int(secret("sc://localhost/;use_ssl=false", "t", false, false, NULL,
		   &err),
	    0, "localhost: allowed");
	is_int(secret("sc://[::1]:9/;use_ssl=false", "t", false, false, NULL,
		   &err),
	    0, "::1: allowed");
	is_int(secret("sc://192.0.2.1/;use_ssl=false", NULL, false, false, NULL,
		   &err),
	    0, "no secret: allowed");
	setenv("SPARK_REMOTE", "sc://192.0.2.1/;use_ssl=false;token=t", 1);
	is_int(secret(NULL, NULL, false, false, NULL, &err), -1,
	    "the address from SPARK_REMOTE: refused");
	unsetenv("SPARK_REMOTE");
}

static void
test_unreachable(void)
{
	struct sc_conn_opts o;
	struct sc_client_opts co;
	struct sc_client *c;
	struct sc_error err;

	sc_conn_opts_init(&o);
	is_int(o.unreachable_ms, -1, "--unreachable-timeout: not given");
	is_int(sc_conn_opt(&o, SC_CONN_OPT_UNREACHABLE, "1.5s", &err), 0,
	    "--unreachable-timeout 1.5s");
	is_int(o.unreachable_ms, 1500, "  1500 ms");
	is_int(sc_conn_opt(&o, SC_CONN_OPT_UNREACHABLE, "90", &err), 0,
	    "--unreachable-timeout 90");
	is_int(o.unreachable_ms, 90000, "  a bare number is seconds");
	is_int(sc_conn_opt(&o, SC_CONN_OPT_UNREACHABLE, "1.5s", &err), 0,
	    "--unreachable-timeout 1.5s again");
	is_int(sc_conn_opt(&o, SC_CONN_OPT_UNREACHABLE, "soon", &err), -1,
	    "--unreachable-timeout soon");
	is_str(err.msg,
	    "invalid --unreachable-timeout: 'soon' is not a duration",
	    "  message");
	is_int(err.status, SC_ST_USAGE, "  exit 2");

	/* The client takes it; 0 means never; not given, 60 s. */
	o.server = "sc://127.0.0.1:1";
	c = sc_client_connect(&o, NULL, &err);
	is_int(c != NULL ? sc_client_unreachable_ms(c) : -2, 1500,
	    "the client's limit from the option");
	sc_client_free(c);
	o.unreachable_ms = 0;
	c = sc_client_connect(&o, NULL, &err);
	is_int(c != NULL ? sc_client_unreachable_ms(c) : -2, -1, "0: no limit");
	sc_client_free(c);
	o.unreachable_ms = -1;
	c = sc_client_connect(&o, NULL, &err);
	is_int(c != NULL ? sc_client_unreachable_ms(c) : -2,
	    SC_RETRY_UNREACHABLE_MS, "not given: 60 s");
	sc_client_free(c);
	/* The program's own setting wins over the default. */
	memset(&co, 0, sizeof(co));
	co.unreachable_ms = 2000;
	c = sc_client_connect(&o, &co, &err);
	is_int(c != NULL ? sc_client_unreachable_ms(c) : -2, 2000,
	    "the program's sc_client_opts");
	sc_client_free(c);
	sc_conn_opts_release(&o);
}

/* A CA file must hold a certificate: say so, instead of gRPC's riddle. */
static void
test_ca_file(void)
{
	struct sc_conn_opts o;
	struct sc_client *c;
	struct sc_error err;
	char path[] = "/tmp/sc-test-conn-XXXXXX";
	char want[200];
	int fd;

	if ((fd = mkstemp(path)) == -1 ||
	    write(fd, "not a certificate\n", 18) != 18) {
		ok(0, "cannot make a temporary file");
		return;
	}
	close(fd);
	sc_conn_opts_init(&o);
	o.server = "sc://127.0.0.1:1";
	o.ca_file = path;
	sc_error_init(&err);
	c = sc_client_connect(&o, NULL, &err);
	ok(c == NULL, "a CA file without a certificate is refused");
	snprintf(want, sizeof(want), "CA file '%s' holds no PEM certificate",
	    path);
	is_str(err.msg, want, "  message");
	is_int(err.status, SC_ST_USAGE, "  exit 2");
	sc_client_free(c);

	/* Something that looks like PEM but is not a certificate. */
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd == -1 ||
	    write(fd,
		"-----BEGIN CERTIFICATE-----\nnot base64!\n"
		"-----END CERTIFICATE-----\n",
		67) != 67)
		ok(0, "cannot write the file");
	if (fd != -1)
		close(fd);
	sc_error_init(&err);
	c = sc_client_connect(&o, NULL, &err);
	ok(c == NULL && err.status == SC_ST_USAGE,
	    "a broken PEM block is refused (%s)", err.msg);
	sc_client_free(c);
	unlink(path);

	o.ca_file = "/nonexistent/ca.pem";
	sc_error_init(&err);
	c = sc_client_connect(&o, NULL, &err);
	ok(c == NULL && err.status == SC_ST_IO,
	    "a missing CA file is exit 9 (%s)", err.msg);
	sc_client_free(c);
	sc_conn_opts_release(&o);
}

/* One user id rule: option, URI, USER, LOGNAME, login name, uid. */
static void
test_user_id(void)
{
	struct sc_conn_opts o;
	struct sc_uri u;
	char buf[256], login[256];

	sc_conn_opts_init(&o);
	sc_uri_init(&u);
	unsetenv("USER");
	unsetenv("LOGNAME");
	sc_conn_user_id(NULL, NULL, login, sizeof(login));
	ok(login[0] != '\0', "no USER or LOGNAME: the login name '%s'", login);
	setenv("LOGNAME", "", 1);
	setenv("USER", "", 1);
	is_str(sc_conn_user_id(NULL, NULL, buf, sizeof(buf)), login,
	    "empty USER and LOGNAME count as unset");
	setenv("LOGNAME", "ln", 1);
	is_str(sc_conn_user_id(NULL, NULL, buf, sizeof(buf)), "ln",
	    "LOGNAME without USER");
	setenv("USER", "us", 1);
	is_str(sc_conn_user_id(&o, &u, buf, sizeof(buf)), "us",
	    "USER before LOGNAME");
	snprintf(u.user_id, sizeof(u.user_id), "%s", "uri");
	is_str(sc_conn_user_id(&o, &u, buf, sizeof(buf)), "uri",
	    "the URI's user_id before USER");
	o.user_id = "opt";
	is_str(sc_conn_user_id(&o, &u, buf, sizeof(buf)), "opt",
	    "--user-id first");
	is_str(sc_conn_user_id(&o, &u, buf, 3), "op",
	    "truncated to the buffer");
	unsetenv("USER");
	unsetenv("LOGNAME");
	sc_uri_release(&u);
	sc_conn_opts_release(&o);
}

int
main(void)
{
	test_user_id();
	test_table();
	test_refused();
	test_uri();
	test_loopback();
	test_secrets();
	test_unreachable();
	test_ca_file();
	return tap_done();
}
