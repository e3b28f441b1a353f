/* SPDX-License-Identifier: MIT */

/*
 * conn.h: the connection options every client program takes, in one
 * place: the option table, the help lines, parsing one option, and the
 * server address (struct sc_uri) they add up to.
 *
 *	-s, --server uri     the address; else $SPARK_REMOTE, else localhost
 *	    --token token    bearer token
 *	    --tls            use TLS
 *	    --ca-file file   PEM roots for TLS
 *	    --insecure       allow a token in the clear off loopback
 *	    --session-id id  session id (a UUID)
 *	    --user-id id     user id
 *	    --unreachable-timeout time  give up on a silent server
 *	-H, --metadata k=v   request header, repeatable
 *
 * A program passes a struct sc_conn_opts to sc_cli_parser_init()
 * (core/cli.h), which parses these options with its own; then
 * sc_client_connect() (core/client.h) turns them into a client.  Only
 * the synopsis is the program's to write (it must equal the man page).
 *
 * The options go on top of the address: --token replaces the URI's
 * token, --tls turns use_ssl on, --session-id and --user-id replace the
 * URI's ids, and -H adds headers, validated exactly as the URI's own
 * ";key=value" headers are (sc_uri_add_metadata()).  A -H header may
 * not name an address parameter (token, use_ssl, user_id, user_agent,
 * session_id, grpc_max_message_size) or start with "grpc-".
 *
 * Secrets and TLS: a token (the URI's or --token) or an "authorization"
 * header goes to a host that is not loopback (sc_conn_loopback()) over
 * TLS only.  A token turns TLS on by itself there, as Spark's clients
 * do; but an address that says use_ssl=false, or an authorization
 * header without TLS, is refused, unless --insecure says to send it in
 * the clear (then a token does not turn TLS on either).
 */

#ifndef SC_CONN_H
#define SC_CONN_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_error;
struct sc_kv;
struct sc_uri;

/*
 * Values of the long-only options.  A program numbers its own long-only
 * options from 256 up, below SC_CONN_OPT_BASE, and does not use the
 * letters of SC_CONN_OPTSTRING.
 */
enum {
	SC_CONN_OPT_BASE = 0x1000,
	SC_CONN_OPT_CA_FILE = SC_CONN_OPT_BASE,
	SC_CONN_OPT_SESSION_ID,
	SC_CONN_OPT_TLS,
	SC_CONN_OPT_TOKEN,
	SC_CONN_OPT_USER_ID,
	SC_CONN_OPT_INSECURE,
	SC_CONN_OPT_UNREACHABLE
};

/* The short options, in getopt syntax. */
#define SC_CONN_OPTSTRING "H:s:"

/* The option table (getopt_long), ended by an all-zero entry. */
extern const struct option sc_conn_longopts[];

/* The option list lines, for a usage text (see core/cli.h). */
#define SC_CONN_HELP                                                          \
	"  -H, --metadata k=v     send this gRPC header (repeatable)\n"       \
	"  -s, --server uri       server address (default $SPARK_REMOTE,\n"   \
	"                         else sc://localhost:15002)\n"               \
	"      --user-id id       user id (default from the URI, else the\n"  \
	"                         login name)\n"                              \
	"      --token token      bearer token (enables TLS off localhost)\n" \
	"      --tls              use TLS\n"                                  \
	"      --ca-file file     PEM roots for TLS\n"                        \
	"      --insecure         send a token without TLS off localhost\n"   \
	"      --unreachable-timeout time  give up when the server has not\n" \
	"                         answered for time (default 60s; 0 for\n"    \
	"                         never)\n"

/*
 * The --session-id line of a program whose session defaults to the URI's,
 * else a new one (sc-exec, sc-upload); sc-release and sc-inspect say
 * their own.
 */
#define SC_CONN_HELP_SESSION \
	"      --session-id uuid  session id (default from the URI, else new)\n"

struct sc_conn_opts {
	const char *server; /* -s (borrowed), or NULL */
	const char *token; /* borrowed, or NULL */
	bool tls;
	const char *ca_file; /* borrowed, or NULL */
	const char *session_id; /* borrowed, a UUID, or NULL */
	const char *user_id; /* borrowed, or NULL */
	struct sc_kv *headers; /* -H, lower-cased, checked; owned */
	size_t nheaders;
	bool insecure; /* --insecure */
	int64_t unreachable_ms; /* --unreachable-timeout; -1: not given */
};

/* Empty options (no server, no headers, unreachable_ms -1). */
void sc_conn_opts_init(struct sc_conn_opts *o);
/* Free what the options own; o must be initialised again before reuse. */
void sc_conn_opts_release(struct sc_conn_opts *o);

/*
 * Take one getopt result: 0 when ch is a connection option and its value
 * is good, 1 when ch is not a connection option, -1 with err set
 * (SC_ST_USAGE) for a bad value: "invalid header 'x': expected
 * key=value", "invalid header 'grpc-timeout=1S': 'grpc-timeout' is
 * reserved for gRPC", "invalid header 'x-a=2': duplicate header 'x-a'",
 * "invalid session id 'x': not a UUID", "invalid user id: longer than
 * 255 bytes", "invalid --unreachable-timeout: 'x' is not a duration".
 * optarg is borrowed for as long as o is used (argv's).
 */
int sc_conn_opt(struct sc_conn_opts *o, int ch, const char *optarg,
    struct sc_error *err);

/*
 * The address the options name: -s, else $SPARK_REMOTE, else
 * sc://localhost, parsed into u (initialised by the caller), with the
 * options applied on top.  A -H header the address also sets is refused
 * ("duplicate header 'x-a'"), and so is a secret that would travel in
 * the clear (see above): "refusing to send the token without TLS to
 * 'h:15002' (use_ssl=false): use TLS, or --insecure to send it anyway".
 * 0, or -1 with err set (SC_ST_USAGE).
 */
int sc_conn_uri(const struct sc_conn_opts *o, struct sc_uri *u,
    struct sc_error *err);

/*
 * The user id a client program sends, by one rule for all of them: o's
 * --user-id, else the address's user_id (u), else $USER, else $LOGNAME,
 * else the effective user's name in the password database, else the
 * effective uid as a number.  An empty value counts as absent.  So a
 * cron job, a container or a service without USER is the same user as
 * its owner's shell.  o and u may be NULL.  The id is written into buf
 * (truncated to bufsz - 1 bytes; 256 holds any); returns buf.
 */
const char *sc_conn_user_id(const struct sc_conn_opts *o,
    const struct sc_uri *u, char *buf, size_t bufsz);

/*
 * Whether host names this machine for sure: "localhost" (any case, with
 * or without a final dot), "ip6-localhost", an IPv4 address in
 * 127.0.0.0/8, "::1" or an IPv4-mapped 127.x address.  A name that only
 * starts like one ("127.example.com") is not.
 */
bool sc_conn_loopback(const char *host);

#endif
