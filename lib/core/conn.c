/* SPDX-License-Identifier: MIT */

/*
 * conn.c: the connection options of the client programs, and the server
 * address they add up to.
 */

#include "core/conn.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/cli.h"
#include "core/error.h"
#include "core/uri.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "core/banned.h"

/* Longest user id a URI holds. */
#define USER_ID_MAX (sizeof(((struct sc_uri *)NULL)->user_id) - 1)

const struct option sc_conn_longopts[] = {
	{ "ca-file", required_argument, NULL, SC_CONN_OPT_CA_FILE },
	{ "insecure", no_argument, NULL, SC_CONN_OPT_INSECURE },
	{ "metadata", required_argument, NULL, 'H' },
	{ "server", required_argument, NULL, 's' },
	{ "session-id", required_argument, NULL, SC_CONN_OPT_SESSION_ID },
	{ "tls", no_argument, NULL, SC_CONN_OPT_TLS },
	{ "token", required_argument, NULL, SC_CONN_OPT_TOKEN },
	{ "unreachable-timeout", required_argument, NULL,
	    SC_CONN_OPT_UNREACHABLE },
	{ "user-id", required_argument, NULL, SC_CONN_OPT_USER_ID },
	{ NULL, 0, NULL, 0 },
};

void
sc_conn_opts_init(struct sc_conn_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->headers = NULL;
	o->unreachable_ms = -1;
}

void
sc_conn_opts_release(struct sc_conn_opts *o)
{
	size_t i;

	for (i = 0; i < o->nheaders; i++) {
		free(o->headers[i].key);
		free(o->headers[i].value);
	}
	free(o->headers);
	sc_conn_opts_init(o);
}

/* -H key=value: split and check it as the URI's headers are checked. */
static int
add_header(struct sc_conn_opts *o, const char *arg, struct sc_error *err)
{
	struct sc_error e;
	const char *eq = strchr(arg, '=');
	char *key;
	int rc;

	if (eq == NULL || eq == arg)
		return sc_error_set(err, SC_ST_USAGE,
		    "invalid header '%s': expected key=value", arg);
	key = sc_xstrndup(arg, (size_t)(eq - arg));
	sc_error_init(&e);
	rc = sc_uri_add_metadata(&o->headers, &o->nheaders, key, eq + 1, &e);
	free(key);
	if (rc == -1)
		return sc_error_set(err, SC_ST_USAGE, "invalid header '%s': %s",
		    arg, e.msg);
	return 0;
}

int
sc_conn_opt(struct sc_conn_opts *o, int ch, const char *optarg,
    struct sc_error *err)
{
	struct sc_error e;

	switch (ch) {
	case 'H':
		return add_header(o, optarg, err);
	case 's':
		o->server = optarg;
		return 0;
	case SC_CONN_OPT_CA_FILE:
		o->ca_file = optarg;
		return 0;
	case SC_CONN_OPT_INSECURE:
		o->insecure = true;
		return 0;
	case SC_CONN_OPT_UNREACHABLE:
		sc_error_init(&e);
		if (sc_parse_cli_duration(optarg, &o->unreachable_ms, &e) == -1)
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid --unreachable-timeout: %s", e.msg);
		return 0;
	case SC_CONN_OPT_SESSION_ID:
		if (!sc_uuid_valid(optarg))
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid session id '%s': not a UUID", optarg);
		o->session_id = optarg;
		return 0;
	case SC_CONN_OPT_TLS:
		o->tls = true;
		return 0;
	case SC_CONN_OPT_TOKEN:
		o->token = optarg;
		return 0;
	case SC_CONN_OPT_USER_ID:
		if (strlen(optarg) > USER_ID_MAX)
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid user id: longer than %zu bytes",
			    USER_ID_MAX);
		o->user_id = optarg;
		return 0;
	default:
		return 1;
	}
}

bool
sc_conn_loopback(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (strcasecmp(host, "localhost") == 0 ||
	    strcasecmp(host, "localhost.") == 0 ||
	    strcasecmp(host, "ip6-localhost") == 0)
		return true;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6) ||
		    (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	return false;
}

/*
 * Refuse a secret that would go in the clear to a host that is not
 * loopback.  spec is the address text u was parsed from (NULL: the
 * default).  A token there turns TLS on (sc_client_new()) unless the
 * address says use_ssl=false: the parameter was given when it parsed to
 * false and its key is in the text (keys are not percent-decoded, and a
 * value cannot hold a raw ';').
 */
static int
check_secret(const struct sc_conn_opts *o, const struct sc_uri *u,
    const char *spec, struct sc_error *err)
{
	char target[300];
	bool header = false, no_ssl;
	size_t i;

	for (i = 0; i < u->nparams; i++)
		if (strcmp(u->params[i].key, "authorization") == 0)
			header = true;
	if ((!u->has_token && !header) || u->use_ssl || o->ca_file != NULL ||
	    o->insecure || sc_conn_loopback(u->host))
		return 0;
	no_ssl = spec != NULL && strstr(spec, ";use_ssl=") != NULL;
	if (u->has_token && !no_ssl)
		return 0;
	if (sc_uri_target(u, target, sizeof(target)) == -1)
		snprintf(target, sizeof(target), "%s", u->host);
	return sc_error_set(err, SC_ST_USAGE,
	    "refusing to send the %s without TLS to '%s'%s: use TLS (use_ssl=true or --tls), or --insecure to send it anyway",
	    u->has_token ? "token" : "authorization header", target,
	    u->has_token ? " (use_ssl=false)" : "");
}

int
sc_conn_uri(const struct sc_conn_opts *o, struct sc_uri *u,
    struct sc_error *err)
{
	struct sc_error e;
	const char *spec;
	size_t i;

	spec = o->server;
	if (spec == NULL && (spec = getenv("SPARK_REMOTE")) != NULL &&
	    spec[0] == '\0')
		spec = NULL;
	if (sc_uri_parse_default(u, o->server, err) == -1)
		return -1;
	if (o->token != NULL) {
		if (u->token != NULL) {
			explicit_bzero(u->token, strlen(u->token));
			free(u->token);
		}
		u->token = sc_xstrdup(o->token);
		u->has_token = true;
	}
	if (o->tls)
		u->use_ssl = true;
	if (o->user_id != NULL)
		snprintf(u->user_id, sizeof(u->user_id), "%s", o->user_id);
	if (o->session_id != NULL)
		snprintf(u->session_id, sizeof(u->session_id), "%s",
		    o->session_id);
	for (i = 0; i < o->nheaders; i++) {
		sc_error_init(&e);
		if (sc_uri_add_metadata(&u->params, &u->nparams,
			o->headers[i].key, o->headers[i].value, &e) == -1)
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid header '%s=%s': %s (the server address sets it too)",
			    o->headers[i].key, o->headers[i].value, e.msg);
	}
	return check_secret(o, u, spec, err);
}

const char *
sc_conn_user_id(const struct sc_conn_opts *o, const struct sc_uri *u, char *buf,
    size_t bufsz)
{
	static const char *const vars[] = { "USER", "LOGNAME" };
	struct passwd pw, *pwp = NULL;
	char pwbuf[4096];
	const char *v;
	size_t i;

	if (o != NULL && o->user_id != NULL && o->user_id[0] != '\0') {
		snprintf(buf, bufsz, "%s", o->user_id);
		return buf;
	}
	if (u != NULL && u->user_id[0] != '\0') {
		snprintf(buf, bufsz, "%s", u->user_id);
		return buf;
	}
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if ((v = getenv(vars[i])) != NULL && v[0] != '\0') {
			snprintf(buf, bufsz, "%s", v);
			return buf;
		}
	if (getpwuid_r(geteuid(), &pw, pwbuf, sizeof(pwbuf), &pwp) == 0 &&
	    pwp != NULL && pwp->pw_name != NULL && pwp->pw_name[0] != '\0')
		snprintf(buf, bufsz, "%s", pwp->pw_name);
	else
		snprintf(buf, bufsz, "%lu", (unsigned long)geteuid());
	return buf;
}
