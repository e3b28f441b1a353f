/* SPDX-License-Identifier: MIT */

/*
 * test-conn.c: the connection options (core/conn): each option, the
 * refusals with their messages, and the address they add up to.
 */

#include "core/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
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
		is_int(sc_conn_opt(&o, l->val, l->has_arg ? SID : NULL, &err),
		    l->val == 'H' ? -1 : 0, "--%s is a connection option",
		    l->name);
		for (m = l + 1; m->name != NULL; m++)
			ok(m->val != l->val, "  --%s and --%s differ", l->name,
			    m->name);
		snprintf(want, sizeof(want), "--%s ", l->name);
		ok(strstr(SC_CONN_HELP, want) != NULL, "  --%s is in the help",
		    l->name);
		if (l->val < 256)
			ok(strchr(SC_CONN_OPTSTRING, l->val) != NULL,
			    "  -%c is in the option string", l->val);
		else
			ok(l->val >= SC_CONN_OPT_BASE,
			    "  its number is above a program's own");
	}
	is_int(n, 7, "seven connection options");
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

int
main(void)
{
	test_table();
	test_refused();
	test_uri();
	return tap_done();
}
