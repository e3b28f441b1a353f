/* SPDX-License-Identifier: MIT */

/*
 * uri.h: Spark Connect server addresses.
 *
 * Accepted forms: "sc://host[:port][/][;key=value]*", "host:port",
 * "[v6addr]:port", "[v6addr]" and "host" (port 15002).  Values are
 * percent-decoded.  Known keys: token, use_ssl, user_id, user_agent,
 * session_id, grpc_max_message_size; every other key becomes request
 * metadata (lower-cased, as gRPC requires).
 */

#ifndef SC_URI_H
#define SC_URI_H

#include <stdbool.h>
#include <stddef.h>

struct sc_error;

#define SC_URI_DEFAULT_PORT 15002

struct sc_kv {
	char *key; /* malloc'ed */
	char *value; /* malloc'ed */
};

struct sc_uri {
	char host[256]; /* without brackets */
	int port; /* 1..65535 */
	bool is_ipv6; /* host was bracketed */
	bool use_ssl;
	bool has_token;
	char *token; /* malloc'ed or NULL; wiped on release */
	char user_id[256]; /* "" if not given */
	char user_agent[2048]; /* "" if not given */
	char session_id[64]; /* "" if not given; else a valid UUID */
	long max_message_size; /* bytes, default 128 MiB */
	struct sc_kv *params; /* extra metadata, nparams entries */
	size_t nparams;
};

/* Zero u with defaults (port 15002, 128 MiB); allocates nothing. */
void sc_uri_init(struct sc_uri *u);
/* Free the token (wiped) and params; u is re-initialised. */
void sc_uri_release(struct sc_uri *u);
/*
 * Parse s into u (which must be initialised; previous contents are
 * released first on success).  On failure u is untouched and err says
 * which part is wrong (status SC_ST_USAGE).
 */
int sc_uri_parse(struct sc_uri *u, const char *s, struct sc_error *err);
/*
 * Parse spec, or $SPARK_REMOTE when spec is NULL, or "sc://localhost"
 * when both are absent.
 */
int sc_uri_parse_default(struct sc_uri *u, const char *spec,
    struct sc_error *err);
/*
 * Add the request header key=value to the list (*params, *nparams), as
 * the URI's own ";key=value" parameters are added: the key is
 * lower-cased (gRPC requires it) and must be a valid gRPC metadata key,
 * not starting with "grpc-" (gRPC's own headers), not one of the
 * address parameters above, and not already in the list; a value must
 * be printable ASCII unless the key ends in "-bin".  Key and value are
 * copied.  0, or -1 with err set (SC_ST_USAGE) and the list untouched:
 * "'K' is not a valid metadata key", "'K' is reserved for gRPC", "'K' is
 * a server address parameter, not a header", "value of 'K' contains
 * characters not allowed in a header", "duplicate header 'K'".
 */
int sc_uri_add_metadata(struct sc_kv **params, size_t *nparams, const char *key,
    const char *value, struct sc_error *err);
/* Write the gRPC target ("host:port", "[v6]:port") into buf; 0 or -1. */
int sc_uri_target(const struct sc_uri *u, char *buf, size_t bufsz);
/* Write "sc://host:port" (no secrets) into buf; 0 or -1. */
int sc_uri_format(const struct sc_uri *u, char *buf, size_t bufsz);

#endif
