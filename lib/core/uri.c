/* SPDX-License-Identifier: MIT */

/*
 * uri.c: parse Spark Connect connection strings and plain host:port
 * addresses into a struct sc_uri with bounded fields.
 *
 * Error messages name the part that is wrong but never repeat the whole
 * string, which may hold a token.
 */

#include "core/uri.h"

#include <arpa/inet.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/hex.h"
#include "core/rpc.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "core/banned.h"

#define BAD "invalid server address: "

/* Parameters with a meaning of their own; the rest become metadata. */
static const char *const known[] = { "token", "use_ssl", "user_id",
	"user_agent", "session_id", "grpc_max_message_size" };

/* Longest piece of input repeated in a message. */
#define ECHO_MAX 64

/*
 * Copy at most ECHO_MAX bytes of s (n bytes) into out for a message,
 * with non-printable bytes shown as '?' and "..." when cut.
 */
static const char *
echo(char *out, size_t outsz, const char *s, size_t n)
{
	size_t i, j = 0;

	for (i = 0; i < n && i < ECHO_MAX && j + 4 < outsz; i++)
		out[j++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (i < n && j + 4 <= outsz) {
		memcpy(out + j, "...", 3);
		j += 3;
	}
	out[j] = '\0';
	return out;
}

void
sc_uri_init(struct sc_uri *u)
{
	memset(u, 0, sizeof(*u));
	u->port = SC_URI_DEFAULT_PORT;
	u->max_message_size = SC_RPC_MAX_MESSAGE;
	u->token = NULL;
	u->params = NULL;
}

void
sc_uri_release(struct sc_uri *u)
{
	size_t i;

	if (u->token != NULL) {
		explicit_bzero(u->token, strlen(u->token));
		free(u->token);
	}
	for (i = 0; i < u->nparams; i++) {
		free(u->params[i].key);
		free(u->params[i].value);
	}
	free(u->params);
	sc_uri_init(u);
}

/*
 * Percent-decode n bytes at s into a new string (*outp, malloc'ed).
 * Decoded NUL bytes are refused: they would silently cut the value.
 */
static int
pct_decode(const char *s, size_t n, const char *key, char **outp,
    struct sc_error *err)
{
	char *out, e[ECHO_MAX + 4];
	size_t i, j = 0;
	int hi, lo;

	out = sc_xmalloc(n + 1);
	for (i = 0; i < n; i++) {
		if (s[i] != '%') {
			out[j++] = s[i];
			continue;
		}
		hi = i + 1 < n ? sc_hex_digit((unsigned char)s[i + 1]) : -1;
		lo = i + 2 < n ? sc_hex_digit((unsigned char)s[i + 2]) : -1;
		if (hi < 0 || lo < 0) {
			free(out);
			return sc_error_set(err, SC_ST_USAGE,
			    BAD "bad percent escape '%s' in parameter '%s'",
			    echo(e, sizeof(e), s + i, n - i < 3 ? n - i : 3),
			    key);
		}
		if (hi == 0 && lo == 0) {
			free(out);
			return sc_error_set(err, SC_ST_USAGE,
			    BAD "'%%00' is not allowed in parameter '%s'", key);
		}
		out[j++] = (char)(hi << 4 | lo);
		i += 2;
	}
	out[j] = '\0';
	*outp = out;
	return 0;
}

/* Characters gRPC allows in (lower-case) metadata keys. */
static bool
metadata_key_ok(const char *k)
{
	const char *p;

	if (*k == '\0')
		return false;
	for (p = k; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
			*p == '-' || *p == '_' || *p == '.'))
			return false;
	return true;
}

/* Keys ending in "-bin" carry binary values. */
static bool
is_bin_key(const char *k)
{
	size_t n = strlen(k);

	return n > 4 && strcmp(k + n - 4, "-bin") == 0;
}

/* Printable ASCII, as gRPC requires of text metadata values. */
static bool
metadata_value_ok(const char *v)
{
	for (; *v != '\0'; v++)
		if ((unsigned char)*v < 0x20 || (unsigned char)*v > 0x7e)
			return false;
	return true;
}

int
sc_uri_add_metadata(struct sc_kv **params, size_t *nparams, const char *key,
    const char *value, struct sc_error *err)
{
	char e[ECHO_MAX + 4];
	char *lk;
	size_t i;
	int rc = 0;

	lk = sc_xstrdup(key);
	for (i = 0; lk[i] != '\0'; i++)
		if (lk[i] >= 'A' && lk[i] <= 'Z')
			lk[i] = (char)(lk[i] - 'A' + 'a');
	for (i = 0; i < SC_NELEM(known); i++)
		if (strcmp(lk, known[i]) == 0)
			break;
	if (i < SC_NELEM(known))
		rc = sc_error_set(err, SC_ST_USAGE,
		    "'%s' is a server address parameter, not a header", lk);
	else if (strncmp(lk, "grpc-", 5) == 0)
		rc = sc_error_set(err, SC_ST_USAGE, "'%s' is reserved for gRPC",
		    echo(e, sizeof(e), lk, strlen(lk)));
	else if (!metadata_key_ok(lk))
		rc = sc_error_set(err, SC_ST_USAGE,
		    "'%s' is not a valid metadata key",
		    echo(e, sizeof(e), key, strlen(key)));
	else if (!is_bin_key(lk) && !metadata_value_ok(value))
		rc = sc_error_set(err, SC_ST_USAGE,
		    "value of '%s' contains characters not allowed in a header",
		    lk);
	else {
		for (i = 0; i < *nparams; i++)
			if (strcmp((*params)[i].key, lk) == 0)
				break;
		if (i < *nparams)
			rc = sc_error_set(err, SC_ST_USAGE,
			    "duplicate header '%s'", lk);
	}
	if (rc == -1) {
		free(lk);
		return -1;
	}
	*params = sc_xreallocarray(*params, *nparams + 1, sizeof(**params));
	(*params)[*nparams].key = lk;
	(*params)[*nparams].value = sc_xstrdup(value);
	(*nparams)++;
	return 0;
}

static int
parse_port(const char *s, size_t n, int *out, struct sc_error *err)
{
	char e[ECHO_MAX + 4];
	long v = 0;
	size_t i;

	if (n == 0)
		return sc_error_set(err, SC_ST_USAGE,
		    BAD "missing port after ':'");
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return sc_error_set(err, SC_ST_USAGE,
			    BAD "port '%s' is not a number",
			    echo(e, sizeof(e), s, n));
		if (v <= 65535)
			v = v * 10 + (s[i] - '0');
	}
	if (v < 1 || v > 65535)
		return sc_error_set(err, SC_ST_USAGE,
		    BAD "port '%s' is out of range (1-65535)",
		    echo(e, sizeof(e), s, n));
	*out = (int)v;
	return 0;
}

static int
host_too_long(size_t n, struct sc_error *err)
{
	return sc_error_set(err, SC_ST_USAGE,
	    BAD "host is too long (%zu bytes, at most %zu)", n,
	    sizeof(((struct sc_uri *)NULL)->host) - 1);
}

/*
 * An IPv6 address from between brackets, optionally with a zone
 * ("fe80::1%eth0", or "%25eth0" as RFC 6874 spells it in URIs).
 */
static int
parse_v6(struct sc_uri *u, const char *s, size_t n, struct sc_error *err)
{
	struct in6_addr a;
	char addr[INET6_ADDRSTRLEN + 1], e[ECHO_MAX + 4];
	const char *pct, *zone = NULL;
	size_t alen, zlen = 0, i = 0;
	int r;

	if (n == 0)
		return sc_error_set(err, SC_ST_USAGE, BAD "empty host");
	pct = memchr(s, '%', n);
	alen = pct != NULL ? (size_t)(pct - s) : n;
	if (pct != NULL) {
		zone = pct + 1;
		zlen = n - alen - 1;
		if (zlen >= 2 && zone[0] == '2' && zone[1] == '5') {
			zone += 2;
			zlen -= 2;
		}
		for (i = 0; i < zlen; i++)
			if (!((zone[i] >= 'a' && zone[i] <= 'z') ||
				(zone[i] >= 'A' && zone[i] <= 'Z') ||
				(zone[i] >= '0' && zone[i] <= '9') ||
				zone[i] == '.' || zone[i] == '-' ||
				zone[i] == '_'))
				break;
	}
	if (alen >= sizeof(addr) || (pct != NULL && (zlen == 0 || i < zlen)))
		goto bad;
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET6, addr, &a) != 1)
		goto bad;
	if (zone != NULL)
		r = snprintf(u->host, sizeof(u->host), "%s%%%.*s", addr,
		    (int)zlen, zone);
	else
		r = snprintf(u->host, sizeof(u->host), "%s", addr);
	if (r < 0 || (size_t)r >= sizeof(u->host))
		return host_too_long((size_t)r, err);
	u->is_ipv6 = true;
	return 0;
bad:
	return sc_error_set(err, SC_ST_USAGE,
	    BAD "'%s' is not a valid IPv6 address", echo(e, sizeof(e), s, n));
}

static int
parse_hostname(struct sc_uri *u, const char *s, size_t n, struct sc_error *err)
{
	size_t i;

	if (n == 0)
		return sc_error_set(err, SC_ST_USAGE, BAD "empty host");
	if (n >= sizeof(u->host))
		return host_too_long(n, err);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_')
			continue;
		if (c == '@')
			return sc_error_set(err, SC_ST_USAGE,
			    BAD "user names in the address are not supported "
				"(use ';user_id=name')");
		if (c > 0x20 && c < 0x7f)
			return sc_error_set(err, SC_ST_USAGE,
			    BAD "invalid character '%c' in host", c);
		return sc_error_set(err, SC_ST_USAGE,
		    BAD "invalid byte 0x%02x in host", c);
	}
	memcpy(u->host, s, n);
	u->host[n] = '\0';
	return 0;
}

/* host, host:port, [v6] or [v6]:port: exactly n bytes at s. */
static int
parse_authority(struct sc_uri *u, const char *s, size_t n, struct sc_error *err)
{
	const char *close, *colon, *end = s + n;
	char e[ECHO_MAX + 4];

	if (n > 0 && s[0] == '[') {
		close = memchr(s, ']', n);
		if (close == NULL)
			return sc_error_set(err, SC_ST_USAGE,
			    BAD "missing ']' after IPv6 address '%s'",
			    echo(e, sizeof(e), s + 1, n - 1));
		if (parse_v6(u, s + 1, (size_t)(close - s - 1), err) == -1)
			return -1;
		if (close + 1 == end)
			return 0;
		if (close[1] != ':')
			return sc_error_set(err, SC_ST_USAGE,
			    BAD "unexpected '%s' after ']'",
			    echo(e, sizeof(e), close + 1,
				(size_t)(end - close - 1)));
		return parse_port(close + 2, (size_t)(end - close - 2),
		    &u->port, err);
	}
	colon = memchr(s, ':', n);
	if (colon != NULL && memchr(colon + 1, ':', (size_t)(end - colon - 1)))
		return sc_error_set(err, SC_ST_USAGE,
		    BAD "too many ':' "
			"(write an IPv6 address as '[addr]:port')");
	if (colon == NULL)
		return parse_hostname(u, s, n, err);
	if (parse_hostname(u, s, (size_t)(colon - s), err) == -1)
		return -1;
	return parse_port(colon + 1, (size_t)(end - colon - 1), &u->port, err);
}

static int
parse_bool(const char *key, const char *v, bool *out, struct sc_error *err)
{
	char e[ECHO_MAX + 4];

	if (strcasecmp(v, "true") == 0)
		*out = true;
	else if (strcasecmp(v, "false") == 0)
		*out = false;
	else
		return sc_error_set(err, SC_ST_USAGE,
		    BAD "%s must be 'true' or 'false', not '%s'", key,
		    echo(e, sizeof(e), v, strlen(v)));
	return 0;
}

static int
parse_msg_size(const char *v, long *out, struct sc_error *err)
{
	char e[ECHO_MAX + 4];
	long x = 0;
	size_t i;

	for (i = 0; v[i] != '\0'; i++) {
		if (v[i] < '0' || v[i] > '9')
			break;
		if (x <= INT_MAX)
			x = x * 10 + (v[i] - '0');
	}
	if (i == 0 || v[i] != '\0' || x == 0)
		return sc_error_set(err, SC_ST_USAGE,
		    BAD "grpc_max_message_size must be a positive integer, "
			"not '%s'",
		    echo(e, sizeof(e), v, strlen(v)));
	if (x > INT_MAX)
		return sc_error_set(err, SC_ST_USAGE,
		    BAD "grpc_max_message_size is too large (at most %d)",
		    INT_MAX);
	*out = x;
	return 0;
}

/* Copy v into a fixed field, or fail naming the key. */
static int
set_field(char *dst, size_t dstsz, const char *key, const char *v,
    struct sc_error *err)
{
	size_t n = strlen(v);

	if (n >= dstsz)
		return sc_error_set(err, SC_ST_USAGE,
		    BAD "%s is too long (%zu bytes, at most %zu)", key, n,
		    dstsz - 1);
	memcpy(dst, v, n + 1);
	return 0;
}

/* One key=value parameter; value already percent-decoded (ours now). */
static int
apply_param(struct sc_uri *u, const char *key, char *value,
    struct sc_error *err)
{
	struct sc_error me;
	char e[ECHO_MAX + 4];
	int rc = 0;

	if (strcmp(key, "token") == 0) {
		if (value[0] == '\0' || !metadata_value_ok(value)) {
			rc = sc_error_set(err, SC_ST_USAGE, BAD "token %s",
			    value[0] == '\0'
				? "is empty"
				: "contains characters not allowed in a header");
			explicit_bzero(value, strlen(value));
			free(value);
			return rc;
		}
		u->token = value;
		u->has_token = true;
		return 0;
	}
	if (strcmp(key, "use_ssl") == 0)
		rc = parse_bool(key, value, &u->use_ssl, err);
	else if (strcmp(key, "user_id") == 0)
		rc = set_field(u->user_id, sizeof(u->user_id), key, value, err);
	else if (strcmp(key, "user_agent") == 0)
		rc = set_field(u->user_agent, sizeof(u->user_agent), key, value,
		    err);
	else if (strcmp(key, "session_id") == 0) {
		if (!sc_uuid_valid(value))
			rc = sc_error_set(err, SC_ST_USAGE,
			    BAD "session_id '%s' is not a UUID",
			    echo(e, sizeof(e), value, strlen(value)));
		else
			rc = set_field(u->session_id, sizeof(u->session_id),
			    key, value, err);
	} else if (strcmp(key, "grpc_max_message_size") == 0)
		rc = parse_msg_size(value, &u->max_message_size, err);
	else {
		sc_error_init(&me);
		rc = sc_uri_add_metadata(&u->params, &u->nparams, key, value,
		    &me);
		if (rc == -1)
			sc_error_set(err, SC_ST_USAGE, BAD "%s", me.msg);
	}
	free(value);
	return rc;
}

/*
 * ";k=v;k=v" (n bytes at s, starting after the first ';').  Empty
 * parameters (";;", a trailing ';') are skipped.  A value may contain
 * '=' (base64 tokens end in it); only the first '=' separates.
 */
static int
parse_params(struct sc_uri *u, const char *s, size_t n, struct sc_error *err)
{
	const char *end = s + n, *semi, *eq, *p;
	char key[128], e[ECHO_MAX + 4];
	char *value = NULL;
	size_t klen, j;
	/* Known keys seen, to catch duplicates (metadata keys are checked
	   in apply_param). */
	bool seen[SC_NELEM(known)] = { false };

	for (p = s; p < end; p = semi + 1) {
		semi = memchr(p, ';', (size_t)(end - p));
		if (semi == NULL)
			semi = end;
		if (semi == p)
			continue;
		eq = memchr(p, '=', (size_t)(semi - p));
		if (eq == NULL)
			return sc_error_set(err, SC_ST_USAGE,
			    BAD "parameter '%s' has no value (expected "
				"'key=value')",
			    echo(e, sizeof(e), p, (size_t)(semi - p)));
		klen = (size_t)(eq - p);
		if (klen == 0)
			return sc_error_set(err, SC_ST_USAGE,
			    BAD "empty parameter name");
		if (klen >= sizeof(key))
			return sc_error_set(err, SC_ST_USAGE,
			    BAD "parameter name '%s' is too long",
			    echo(e, sizeof(e), p, klen));
		memcpy(key, p, klen);
		key[klen] = '\0';
		for (j = 0; j < SC_NELEM(known); j++)
			if (strcasecmp(key, known[j]) == 0)
				break;
		/* "Token=..." would otherwise go out as plain metadata. */
		if (j < SC_NELEM(known) && strcmp(key, known[j]) != 0)
			return sc_error_set(err, SC_ST_USAGE,
			    BAD "parameter names are case-sensitive: '%s', "
				"not '%s'",
			    known[j], key);
		if (j < SC_NELEM(known)) {
			if (seen[j])
				return sc_error_set(err, SC_ST_USAGE,
				    BAD "duplicate parameter '%s'", key);
			seen[j] = true;
		}
		if (pct_decode(eq + 1, (size_t)(semi - eq - 1), key, &value,
			err) == -1)
			return -1;
		if (apply_param(u, key, value, err) == -1)
			return -1;
	}
	return 0;
}

/* Length of a URI scheme ending in "://" at the start of s, or 0. */
static size_t
scheme_len(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++) {
		if ((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z'))
			continue;
		if (i > 0 &&
		    ((s[i] >= '0' && s[i] <= '9') || s[i] == '+' ||
			s[i] == '-' || s[i] == '.'))
			continue;
		break;
	}
	if (i > 0 && strncmp(s + i, "://", 3) == 0)
		return i;
	return 0;
}

static int
parse_into(struct sc_uri *u, const char *s, struct sc_error *err)
{
	const char *auth, *rest;
	char e[ECHO_MAX + 4];
	size_t slen, alen;

	if (s == NULL || s[0] == '\0')
		return sc_error_set(err, SC_ST_USAGE, BAD "empty address");
	slen = scheme_len(s);
	if (slen == 0) {
		/* Plain host, host:port or [v6]:port; no parameters. */
		if (strpbrk(s, ";/") != NULL)
			return sc_error_set(err, SC_ST_USAGE,
			    BAD "a path or parameters need the 'sc://' form");
		return parse_authority(u, s, strlen(s), err);
	}
	if (slen != 2 || strncasecmp(s, "sc", 2) != 0)
		return sc_error_set(err, SC_ST_USAGE,
		    BAD "unknown scheme '%s' (expected 'sc://')",
		    echo(e, sizeof(e), s, slen));
	auth = s + slen + 3;
	alen = strcspn(auth, "/;");
	if (parse_authority(u, auth, alen, err) == -1)
		return -1;
	rest = auth + alen;
	if (*rest == '/')
		rest++;
	if (*rest == '\0')
		return 0;
	if (*rest != ';')
		return sc_error_set(err, SC_ST_USAGE,
		    BAD "unexpected path '/%s' (only '/' may follow the host)",
		    echo(e, sizeof(e), rest, strcspn(rest, ";")));
	return parse_params(u, rest + 1, strlen(rest + 1), err);
}

int
sc_uri_parse(struct sc_uri *u, const char *s, struct sc_error *err)
{
	struct sc_uri t;

	sc_uri_init(&t);
	if (parse_into(&t, s, err) == -1) {
		sc_uri_release(&t);
		return -1;
	}
	sc_uri_release(u);
	*u = t;
	return 0;
}

int
sc_uri_parse_default(struct sc_uri *u, const char *spec, struct sc_error *err)
{
	const char *env;

	if (spec != NULL)
		return sc_uri_parse(u, spec, err);
	env = getenv("SPARK_REMOTE");
	if (env == NULL || env[0] == '\0')
		return sc_uri_parse(u, "sc://localhost", err);
	if (sc_uri_parse(u, env, err) == -1) {
		if (err != NULL)
			sc_error_set(err, SC_ST_USAGE, "%s (from SPARK_REMOTE)",
			    err->msg);
		return -1;
	}
	return 0;
}

static int
write_hostport(const struct sc_uri *u, const char *prefix, char *buf,
    size_t bufsz)
{
	int r;

	if (u->is_ipv6)
		r = snprintf(buf, bufsz, "%s[%s]:%d", prefix, u->host, u->port);
	else
		r = snprintf(buf, bufsz, "%s%s:%d", prefix, u->host, u->port);
	return (r < 0 || (size_t)r >= bufsz) ? -1 : 0;
}

int
sc_uri_target(const struct sc_uri *u, char *buf, size_t bufsz)
{
	return write_hostport(u, "", buf, bufsz);
}

int
sc_uri_format(const struct sc_uri *u, char *buf, size_t bufsz)
{
	const char *pct;
	int r;

	/*
	 * A zone is written "%25zone" (RFC 6874): after a bare '%', a
	 * zone that starts with "25" would lose those two characters when
	 * the address is read back.
	 */
	if (!u->is_ipv6 || (pct = strchr(u->host, '%')) == NULL)
		return write_hostport(u, "sc://", buf, bufsz);
	r = snprintf(buf, bufsz, "sc://[%.*s%%25%s]:%d", (int)(pct - u->host),
	    u->host, pct + 1, u->port);
	return (r < 0 || (size_t)r >= bufsz) ? -1 : 0;
}
