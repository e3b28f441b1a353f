/* SPDX-License-Identifier: MIT */

/*
 * sc-serve: a Spark Connect server with an embedded SQLite engine.
 *
 * main() parses options into the server settings, starts the engine,
 * the session and execution managers (each with its own maintenance
 * thread) and the gRPC service, announces the bound address (log and
 * --ready-file), then waits for SIGTERM or SIGINT and shuts everything
 * down in order, within sctk.server.shutdownTimeout.  While it waits,
 * the main thread gives memory that the allocator keeps but does not use
 * back to the system.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "core/cli.h"
#include "core/error.h"
#include "core/log.h"
#include "core/rpc_server.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "server/admin.h"
#include "server/artifact.h"
#include "server/auth.h"
#include "engine/engine.h"
#include "server/exec.h"
#include "server/server.h"
#include "server/service.h"
#include "server/session.h"
#include "metrics_http.h"
#include "notify.h"
#include "core/banned.h"

static const char usage_text[] =
    "usage: sc-serve [-hV] [--artifact-dir dir] [--conf key=value]\n"
    "       [--connection-grace duration] [--connection-idle duration]\n"
    "       [--database file] [--detached-timeout duration]\n"
    "       [--listen address] [--log-format format] [--log-level level]\n"
    "       [--maintenance-interval duration] [--max-artifact-size size]\n"
    "       [--max-artifact-store size] [--max-connections n]\n"
    "       [--max-peer-connections n] [--max-stream-duration duration]\n"
    "       [--max-stream-size size] [--metrics-listen address]\n"
    "       [--ready-file file] [--retry-buffer size]\n"
    "       [--session-timeout duration] [--tls-cert file --tls-key file]\n"
    "       [--token token] [--token-file file] [--admin-token token]\n"
    "\n"
    "  --admin-token token        callers presenting it see everything in the\n"
    "                             admin service (sctk.admin.v1)\n"
    "  --artifact-dir dir         keep uploaded artifacts in dir (default: a\n"
    "                             private directory removed at exit)\n"
    "  --conf key=value           set a server setting by its Spark name\n"
    "  --connection-grace d       close a connection that sends nothing\n"
    "                             (TLS: has not finished its handshake)\n"
    "                             within d (10s; -1 never)\n"
    "  --connection-idle d        close a connection without calls after d\n"
    "                             (30m; -1 never)\n"
    "  --database file            SQLite database (default: in memory)\n"
    "  --detached-timeout d       abandon detached operations after d (5m)\n"
    "  -h, --help                 print this help and exit\n"
    "  --listen address           host:port to listen on (127.0.0.1:15002;\n"
    "                             port 0 picks a free port)\n"
    "  --log-format format        text (default) or json: one object per line\n"
    "  --log-level level          error, warn, info (default) or debug\n"
    "  --maintenance-interval d   operation maintenance interval (30s)\n"
    "  --max-artifact-size size   largest artifact accepted (2g; -1 none)\n"
    "  --max-artifact-store size  artifacts of all sessions together (10g;\n"
    "                             -1 none)\n"
    "  --max-connections n        connections at once (default: the fd\n"
    "                             limit less a quarter, at least 64)\n"
    "  --max-peer-connections n   connections at once from one address\n"
    "                             (4096)\n"
    "  --max-stream-duration d    end a result stream after d (2m)\n"
    "  --max-stream-size size     end a result stream after size (1g)\n"
    "  --metrics-listen address   serve GET /metrics (Prometheus text) over\n"
    "                             HTTP on host:port (port 0: a free one)\n"
    "  --ready-file file          write the server's URI there once listening\n"
    "  --retry-buffer size        responses kept for reattach (10m)\n"
    "  --session-timeout d        close idle sessions after d (1h; -1 never)\n"
    "  --tls-cert file            PEM certificate chain (with --tls-key)\n"
    "  --tls-key file             PEM private key (with --tls-cert)\n"
    "  --token token              require 'authorization: Bearer token'\n"
    "  --token-file file          tokens bound to users, 'token user_id' per\n"
    "                             line (re-read on SIGHUP)\n"
    "  -V, --version              print the version and exit\n"
    "\n"
    "A duration d is a number of seconds (30, 1.5) or has units (250ms,\n"
    "2m, 1h30m), as in every sctk program; --conf values keep Spark's\n"
    "units (a bare number of a duration setting is milliseconds).\n";

enum {
	OPT_ADMIN_TOKEN = 256,
	OPT_ARTIFACT_DIR,
	OPT_CONF,
	OPT_CONNECTION_GRACE,
	OPT_CONNECTION_IDLE,
	OPT_DATABASE,
	OPT_DETACHED_TIMEOUT,
	OPT_LISTEN,
	OPT_LOG_FORMAT,
	OPT_LOG_LEVEL,
	OPT_MAINTENANCE_INTERVAL,
	OPT_MAX_ARTIFACT_SIZE,
	OPT_MAX_ARTIFACT_STORE,
	OPT_MAX_CONNECTIONS,
	OPT_MAX_PEER_CONNECTIONS,
	OPT_MAX_STREAM_DURATION,
	OPT_MAX_STREAM_SIZE,
	OPT_METRICS_LISTEN,
	OPT_READY_FILE,
	OPT_RETRY_BUFFER,
	OPT_SESSION_TIMEOUT,
	OPT_TLS_CERT,
	OPT_TLS_KEY,
	OPT_TOKEN,
	OPT_TOKEN_FILE
};

static const struct option longopts[] = { /* sorted */
	{ "admin-token", required_argument, NULL, OPT_ADMIN_TOKEN },
	{ "artifact-dir", required_argument, NULL, OPT_ARTIFACT_DIR },
	{ "conf", required_argument, NULL, OPT_CONF },
	{ "connection-grace", required_argument, NULL, OPT_CONNECTION_GRACE },
	{ "connection-idle", required_argument, NULL, OPT_CONNECTION_IDLE },
	{ "database", required_argument, NULL, OPT_DATABASE },
	{ "detached-timeout", required_argument, NULL, OPT_DETACHED_TIMEOUT },
	{ "help", no_argument, NULL, 'h' },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "log-format", required_argument, NULL, OPT_LOG_FORMAT },
	{ "log-level", required_argument, NULL, OPT_LOG_LEVEL },
	{ "maintenance-interval", required_argument, NULL,
	    OPT_MAINTENANCE_INTERVAL },
	{ "max-artifact-size", required_argument, NULL, OPT_MAX_ARTIFACT_SIZE },
	{ "max-artifact-store", required_argument, NULL,
	    OPT_MAX_ARTIFACT_STORE },
	{ "max-connections", required_argument, NULL, OPT_MAX_CONNECTIONS },
	{ "max-peer-connections", required_argument, NULL,
	    OPT_MAX_PEER_CONNECTIONS },
	{ "max-stream-duration", required_argument, NULL,
	    OPT_MAX_STREAM_DURATION },
	{ "max-stream-size", required_argument, NULL, OPT_MAX_STREAM_SIZE },
	{ "metrics-listen", required_argument, NULL, OPT_METRICS_LISTEN },
	{ "ready-file", required_argument, NULL, OPT_READY_FILE },
	{ "retry-buffer", required_argument, NULL, OPT_RETRY_BUFFER },
	{ "session-timeout", required_argument, NULL, OPT_SESSION_TIMEOUT },
	{ "tls-cert", required_argument, NULL, OPT_TLS_CERT },
	{ "tls-key", required_argument, NULL, OPT_TLS_KEY },
	{ "token", required_argument, NULL, OPT_TOKEN },
	{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
	{ "version", no_argument, NULL, 'V' }, { NULL, 0, NULL, 0 }
};

struct opts {
	const char *artifact_dir;
	const char *listen;
	const char *metrics_listen;
	const char *ready_file;
	const char *database;
	const char *tls_cert;
	const char *tls_key;
	const char *token_file;
	enum sc_log_level level;
	enum sc_log_format log_format;
	char host[256]; /* of listen, as given */
	char metrics_host[256]; /* of metrics_listen */
	int metrics_port;
	long max_conns; /* 0: the rpc module's default */
	long max_peer_conns;
	int64_t grace_ms; /* 0: default, -1: none */
	int64_t idle_ms;
};

/* Set by the TLS listener's watchdog: the server went deaf. */
static atomic_bool deaf;

/*
 * Giving memory back.  floor is the smallest amount of memory the
 * process was seen to hold beyond what is allocated (code, stacks, the
 * allocator's own free memory); memory is returned when that grows by
 * threshold (sctk.server.trimThreshold; 0: never).
 */
struct trim {
	int64_t threshold;
	int64_t floor;
};

/* How often the main thread looks at memory while it waits. */
#define MEMORY_TICK_MS 1000

/* Shutdown watchdog: exits the process if stopping takes too long. */
struct watchdog {
	pthread_t tid;
	sigset_t sigs; /* SIGTERM and SIGINT */
	int64_t timeout_ms; /* -1: no limit */
	char timeout[32]; /* as the setting reads */
	atomic_bool done;
};

/* How often the watchdog checks whether the shutdown finished. */
#define WATCHDOG_POLL_MS 50

/* One --conf or a setting option; a bad one is a usage error. */
static void
set(struct sc_server_conf *conf, const char *key, const char *value)
{
	struct sc_error err;

	if (sc_server_conf_set(conf, key, value, &err) == -1)
		sc_usage_msg(usage_text, "%s", err.msg);
}

static void
set_pair(struct sc_server_conf *conf, const char *arg)
{
	const char *eq;
	char key[256];

	if ((eq = strchr(arg, '=')) == NULL || eq == arg ||
	    (size_t)(eq - arg) >= sizeof(key))
		sc_usage_msg(usage_text, "--conf needs key=value, not '%s'",
		    arg);
	memcpy(key, arg, (size_t)(eq - arg));
	key[eq - arg] = '\0';
	set(conf, key, eq + 1);
}

/*
 * A duration option: -1 (never) or a duration of at least 1 ms, read as
 * every program reads one on its command line (sc_parse_cli_duration():
 * a bare number is seconds).  --conf keeps Spark's units instead.
 */
static int64_t
opt_duration(const char *name, const char *arg)
{
	struct sc_error err;
	int64_t v;

	if (strcmp(arg, "-1") == 0)
		return -1;
	if (sc_parse_cli_duration(arg, &v, &err) == -1)
		sc_usage_msg(usage_text, "invalid %s: %s", name, err.msg);
	if (v == 0)
		sc_usage_msg(usage_text, "invalid %s: '%s' is too small", name,
		    arg);
	return v;
}

/*
 * A setting given by its option (--detached-timeout 300): the value in
 * the command line's units, handed to the setting in milliseconds.
 */
static void
set_duration(struct sc_server_conf *conf, const char *key, const char *arg)
{
	struct sc_error err;
	char name[64], ms[32];
	int64_t v;

	snprintf(name, sizeof(name), "--%s", key);
	if (strcmp(arg, "-1") == 0) {
		set(conf, key, arg);
		return;
	}
	if (sc_parse_cli_duration(arg, &v, &err) == -1)
		sc_usage_msg(usage_text, "invalid %s: %s", name, err.msg);
	snprintf(ms, sizeof(ms), "%" PRId64 "ms", v);
	if (sc_server_conf_set(conf, key, ms, &err) == -1)
		sc_usage_msg(usage_text, "invalid %s: '%s' is too %s", name,
		    arg, v == 0 ? "small" : "large");
}

/* A connection count option, from 1 up. */
static long
opt_count(const char *name, const char *arg)
{
	struct sc_error err;
	uint64_t v;

	if (sc_parse_uint(arg, 1, 100000000, &v, &err) == -1)
		sc_usage_msg(usage_text, "invalid %s: %s", name, err.msg);
	return (long)v;
}

/* Split "host:port" or "[v6]:port"; the host is kept as given. */
/*
 * Split addr (--listen or --metrics-listen: host:port, [v6]:port) into
 * host (hostsz bytes) and *portp; exits 2 when it is not one.
 */
static void
split_address(const char *what, const char *addr, char *host, size_t hostsz,
    int *portp)
{
	struct sc_error err;
	const char *colon;
	uint64_t port;
	size_t n;

	colon = strrchr(addr, ':');
	if (colon == NULL)
		sc_usage_msg(usage_text,
		    "invalid %s address '%s': no port (host:port; "
		    "port 0 takes a free one)",
		    what, addr);
	if (addr[0] != '[' && strchr(addr, ':') != colon)
		sc_usage_msg(usage_text,
		    "invalid %s address '%s': write an IPv6 address as '[addr]:port'",
		    what, addr);
	if (colon == addr || (addr[0] == '[' && colon[-1] != ']'))
		sc_usage_msg(usage_text, "invalid %s address '%s'", what, addr);
	if (sc_parse_uint(colon + 1, 0, 65535, &port, &err) == -1)
		sc_usage_msg(usage_text, "invalid %s address '%s': %s", what,
		    addr, err.msg);
	n = (size_t)(colon - addr);
	if (n >= hostsz)
		sc_usage_msg(usage_text, "invalid %s address '%s'", what, addr);
	memcpy(host, addr, n);
	host[n] = '\0';
	*portp = (int)port;
}

static void
check_listen(struct opts *o)
{
	int port;

	split_address("listen", o->listen, o->host, sizeof(o->host), &port);
	if (o->metrics_listen != NULL)
		split_address("metrics", o->metrics_listen, o->metrics_host,
		    sizeof(o->metrics_host), &o->metrics_port);
}

static void
parse_options(int argc, char *argv[], struct opts *o,
    struct sc_server_conf *conf)
{
	struct sc_cli_common common;
	struct sc_cli_parser p;
	const char *env;
	int ch;

	sc_cli_init(&common, "sc-serve");
	memset(o, 0, sizeof(*o));
	o->listen = "127.0.0.1:15002";
	o->level = SC_LOG_INFO;
	sc_server_conf_default(conf);
	if ((env = getenv("SPARK_CONNECT_AUTHENTICATE_TOKEN")) != NULL)
		set(conf, "spark.connect.authenticate.token", env);
	if ((env = getenv("SCTK_ADMIN_TOKEN")) != NULL)
		set(conf, "sctk.admin.token", env);

	/* Only -h and -V of the common options: no -q, -t or -v here. */
	sc_cli_parser_init(&p, usage_text, "hV", longopts, NULL, NULL);
	while ((ch = sc_cli_next(&p, argc, argv)) != -1) {
		switch (ch) {
		case OPT_ADMIN_TOKEN:
			set(conf, "admin-token", optarg);
			break;
		case OPT_ARTIFACT_DIR:
			o->artifact_dir = optarg;
			break;
		case OPT_CONF:
			set_pair(conf, optarg);
			break;
		case OPT_CONNECTION_GRACE:
			o->grace_ms =
			    opt_duration("--connection-grace", optarg);
			break;
		case OPT_CONNECTION_IDLE:
			o->idle_ms = opt_duration("--connection-idle", optarg);
			break;
		case OPT_DATABASE:
			o->database = optarg;
			break;
		case OPT_DETACHED_TIMEOUT:
			set_duration(conf, "detached-timeout", optarg);
			break;
		case 'h':
		case 'V':
			sc_cli_common_opt(&common, ch, optarg, usage_text);
			break;
		case OPT_LISTEN:
			o->listen = optarg;
			break;
		case OPT_LOG_FORMAT:
			if (sc_log_format_parse(optarg, &o->log_format) == -1)
				sc_usage_msg(usage_text,
				    "invalid log format '%s': expected text or json",
				    optarg);
			break;
		case OPT_LOG_LEVEL:
			if (sc_log_level_parse(optarg, &o->level) == -1)
				sc_usage_msg(usage_text,
				    "invalid log level '%s'", optarg);
			break;
		case OPT_MAINTENANCE_INTERVAL:
			set_duration(conf, "maintenance-interval", optarg);
			break;
		case OPT_MAX_ARTIFACT_SIZE:
			set(conf, "max-artifact-size", optarg);
			break;
		case OPT_MAX_ARTIFACT_STORE:
			set(conf, "max-artifact-store", optarg);
			break;
		case OPT_MAX_CONNECTIONS:
			o->max_conns = opt_count("--max-connections", optarg);
			break;
		case OPT_MAX_PEER_CONNECTIONS:
			o->max_peer_conns =
			    opt_count("--max-peer-connections", optarg);
			break;
		case OPT_MAX_STREAM_DURATION:
			set_duration(conf, "max-stream-duration", optarg);
			break;
		case OPT_MAX_STREAM_SIZE:
			set(conf, "max-stream-size", optarg);
			break;
		case OPT_METRICS_LISTEN:
			o->metrics_listen = optarg;
			break;
		case OPT_READY_FILE:
			o->ready_file = optarg;
			break;
		case OPT_RETRY_BUFFER:
			set(conf, "retry-buffer", optarg);
			break;
		case OPT_SESSION_TIMEOUT:
			set_duration(conf, "session-timeout", optarg);
			break;
		case OPT_TLS_CERT:
			o->tls_cert = optarg;
			break;
		case OPT_TLS_KEY:
			o->tls_key = optarg;
			break;
		case OPT_TOKEN:
			set(conf, "token", optarg);
			break;
		case OPT_TOKEN_FILE:
			o->token_file = optarg;
			break;
		default:
			SC_BUG("option %d in the table but not handled", ch);
		}
	}
	if (optind < argc)
		sc_usage_msg(usage_text, "unexpected operand '%s'",
		    argv[optind]);
	if ((o->tls_cert == NULL) != (o->tls_key == NULL))
		sc_usage_msg(usage_text,
		    "--tls-cert and --tls-key must be given together");
	check_listen(o);
}

/* The reason host:port cannot be bound, found by trying it ourselves. */
static void
bind_reason(const char *host, const char *port, char *out, size_t outsz)
{
	struct addrinfo hints, *res, *ai;
	char h[256];
	size_t n = strlen(host);
	int fd, e = 0, one = 1, r;

	if (n >= 2 && host[0] == '[' && host[n - 1] == ']' &&
	    n - 2 < sizeof(h)) {
		memcpy(h, host + 1, n - 2);
		h[n - 2] = '\0';
	} else
		snprintf(h, sizeof(h), "%s", host);
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if ((r = getaddrinfo(h, port, &hints, &res)) != 0) {
		snprintf(out, outsz, "%s", gai_strerror(r));
		goto lower;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if ((fd = socket(ai->ai_family, ai->ai_socktype,
			 ai->ai_protocol)) == -1) {
			e = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			e = 0;
		else
			e = errno;
		close(fd);
		if (e != 0)
			break;
	}
	freeaddrinfo(res);
	snprintf(out, outsz, "%s",
	    e != 0 ? strerror(e) : "the gRPC library refused the address");
lower:
	if (out[0] >= 'A' && out[0] <= 'Z')
		out[0] = (char)(out[0] - 'A' + 'a');
}

/*
 * Write "sc://host:port\n" (with "/;use_ssl=true" for TLS) to path
 * through a temporary file.
 */
static int
write_ready(const char *path, const char *host, int port, bool tls,
    struct sc_error *err)
{
	char tmp[4096];
	FILE *f;
	int bad;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path,
		(long)getpid()) >= sizeof(tmp))
		return sc_error_set(err, SC_ST_IO,
		    "ready file name '%s' is too long", path);
	if ((f = fopen(tmp, "w")) == NULL)
		return sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot write the ready file '%s'", path);
	/* What a client needs to connect: a TLS server says so. */
	fprintf(f, "sc://%s:%d%s\n", host, port, tls ? "/;use_ssl=true" : "");
	bad = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
	if (fclose(f) != 0 || bad) {
		unlink(tmp);
		return sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot write the ready file '%s'", path);
	}
	if (rename(tmp, path) == -1) {
		unlink(tmp);
		return sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot rename '%s' to '%s'", tmp, path);
	}
	return 0;
}

/*
 * Before anything listens: a ready file that cannot be written, or a
 * database that is a directory, would otherwise fail after the
 * "listening" line, or with SQLite's "unable to open database file".
 */
static int
check_paths(const struct opts *o, struct sc_error *err)
{
	struct stat st;
	char dir[4096];
	const char *slash;
	size_t n;

	if (o->database != NULL && stat(o->database, &st) == 0 &&
	    S_ISDIR(st.st_mode))
		return sc_error_set_errno(err, SC_ST_IO, EISDIR,
		    "cannot open database '%s'", o->database);
	if (o->ready_file == NULL)
		return 0;
	slash = strrchr(o->ready_file, '/');
	n = slash == NULL	     ? 1
	    : slash == o->ready_file ? 1
				     : (size_t)(slash - o->ready_file);
	if (n >= sizeof(dir))
		return sc_error_set(err, SC_ST_IO,
		    "ready file name '%s' is too long", o->ready_file);
	memcpy(dir, slash == NULL ? "." : o->ready_file, n);
	dir[n] = '\0';
	if (access(dir, W_OK | X_OK) == -1)
		return sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot write the ready file '%s'", o->ready_file);
	return 0;
}

/* Resident set size in bytes, or -1. */
static int64_t
rss_bytes(void)
{
	unsigned long long size, resident;
	FILE *f;
	int n;

	if ((f = fopen("/proc/self/statm", "r")) == NULL)
		return -1;
	n = fscanf(f, "%llu %llu", &size, &resident);
	fclose(f);
	if (n != 2)
		return -1;
	return (int64_t)resident * (int64_t)sysconf(_SC_PAGESIZE);
}

/* Bytes the program has allocated and not freed, or -1. */
static int64_t
heap_in_use(void)
{
#ifdef __GLIBC__
	struct mallinfo2 mi = mallinfo2();

	return (int64_t)(mi.uordblks + mi.hblkhd);
#else
	return -1;
#endif
}

/*
 * glibc keeps memory that large requests freed in its arenas (2 GB
 * resident with 156 MiB in use was seen), and gives it back only from
 * the top of the main heap.  When the process holds trim_threshold more
 * than its floor beyond what is in use, malloc_trim() returns the free
 * pages of every arena.  Reading the resident size first keeps this
 * cheap while the process is small.
 */
static void
memory_tick(struct trim *m)
{
	int64_t limit = m->threshold, rss, used, held, after;

	if (limit <= 0 || (rss = rss_bytes()) < 0 || rss - m->floor < limit ||
	    (used = heap_in_use()) < 0)
		return;
	held = rss - used;
	if (held < m->floor)
		m->floor = held;
	if (held - m->floor < limit)
		return;
#ifdef __GLIBC__
	malloc_trim(0);
#endif
	if ((after = rss_bytes()) < 0)
		return;
	sc_debug("returned freed memory: resident %" PRId64 " MiB -> %" PRId64
		 " MiB, %" PRId64 " MiB in use",
	    rss >> 20, after >> 20, used >> 20);
	m->floor = after - used > 0 ? after - used : 0;
}

static void
trim_init(struct trim *t, const struct sc_server_conf *conf)
{
	t->threshold = conf->trim_threshold;
	t->floor = rss_bytes() - heap_in_use();
	if (t->floor < 0)
		t->floor = 0;
}

/*
 * Wait for SIGTERM, SIGINT or SIGHUP (blocked in every thread), looking
 * at memory every MEMORY_TICK_MS meanwhile.  Returns the signal.
 */
static int
wait_for_signal(const sigset_t *sigs, struct trim *t)
{
	struct timespec tick;
	int sig;

	tick.tv_sec = MEMORY_TICK_MS / 1000;
	tick.tv_nsec = (long)(MEMORY_TICK_MS % 1000) * 1000000L;
	for (;;) {
		sig = sigtimedwait(sigs, NULL, &tick);
		if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP)
			return sig;
		if (sig == -1 && errno == EAGAIN)
			memory_tick(t);
	}
}

/* SIGHUP: read the token file again; a bad one leaves the table as it was. */
static void
reload_tokens(struct sc_server *srv)
{
	struct sc_error err;
	size_t n;

	if (sc_auth_reload(srv->auth, &srv->conf, &n, &err) == -1)
		sc_warn("SIGHUP: %s; the %zu tokens read before stay in force",
		    err.msg, sc_auth_count(srv->auth));
	else
		sc_info("SIGHUP: token file '%s' read again: %zu tokens",
		    sc_auth_path(srv->auth), n);
}

/*
 * SIGHUP: a reload, told to the service manager (RELOADING=1, then
 * READY=1); what the server reads again goes between the two.
 */
static void
reload(struct sc_server *srv)
{
	sc_serve_notify_reloading();
	sc_info("SIGHUP: reloading");
	if (srv->auth != NULL)
		reload_tokens(srv);
	sc_serve_notify_reloaded();
}

static void *
watchdog_main(void *arg)
{
	struct watchdog *w = arg;
	struct timespec ts;
	int64_t end, left;
	int sig;

	end = w->timeout_ms < 0 ? -1 : sc_mono_ms() + w->timeout_ms;
	while (!atomic_load(&w->done)) {
		left = end < 0 ? WATCHDOG_POLL_MS : end - sc_mono_ms();
		if (left <= 0) {
			sc_err(
			    "shutdown did not finish within %s (sctk.server.shutdownTimeout); exiting now",
			    w->timeout);
			_exit(SC_EXIT_INTERNAL);
		}
		if (left > WATCHDOG_POLL_MS)
			left = WATCHDOG_POLL_MS;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)left * 1000000L;
		sig = sigtimedwait(&w->sigs, NULL, &ts);
		if ((sig == SIGTERM || sig == SIGINT) &&
		    !atomic_load(&w->done)) {
			sc_err("%s during shutdown; exiting now",
			    sig == SIGTERM ? "SIGTERM" : "SIGINT");
			_exit(SC_EXIT_INTERNAL);
		}
	}
	return NULL;
}

/*
 * From the first SIGTERM or SIGINT on, the process ends within the
 * shutdown timeout, or at once on a second signal, even if a thread is
 * stuck (a long statement, a handler that does not return); exit status
 * 10 then says the shutdown was not clean.  Returns whether it runs:
 * without a thread for it, the shutdown goes on without a bound.
 */
static bool
watchdog_start(struct watchdog *w, const sigset_t *sigs,
    const struct sc_server_conf *conf)
{
	int rc;

	w->sigs = *sigs;
	w->timeout_ms = conf->shutdown_timeout_ms;
	if (sc_server_conf_get(conf, "sctk.server.shutdownTimeout", w->timeout,
		sizeof(w->timeout)) == -1)
		snprintf(w->timeout, sizeof(w->timeout), "%" PRId64 " ms",
		    w->timeout_ms);
	atomic_init(&w->done, false);
	if ((rc = pthread_create(&w->tid, NULL, watchdog_main, w)) != 0) {
		sc_warn("cannot start the shutdown watchdog: %s; shutting "
			"down without sctk.server.shutdownTimeout",
		    strerror(rc));
		return false;
	}
	return true;
}

static void
watchdog_stop(struct watchdog *w)
{
	atomic_store(&w->done, true);
	pthread_join(w->tid, NULL);
}

/*
 * sc_rpc_server_shutdown() cancels every call at once; a status that
 * sc_execmgr_shutdown() queued behind a message still in flight would be
 * lost with it, so give such statuses this long to go out.
 */
#define STATUS_GRACE_MS 250

static void
linger(int64_t ms)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Session close hook: the session's artifacts go with it. */
static void
artifacts_closed_hook(struct sc_session *s, void *arg)
{
	sc_artifact_session_closed(arg, s->server_side_id);
}

/* Keep hook: a session with artifacts is never closed to make room. */
static bool
artifacts_keep_hook(struct sc_session *s, void *arg)
{
	return sc_artifact_session_used(arg, s->server_side_id);
}

/* The engine's resolver of a session's files/ artifacts. */
static int
artifact_files(void *arg, void *owner, const char *name, int *fdp,
    struct sc_error *err)
{
	return sc_artifact_path(arg, owner, name, fdp, NULL, 0, err);
}

/* The artifact store of --artifact-dir, or a private one; NULL on error. */
static struct sc_artifact_store *
open_artifacts(const struct opts *o, const struct sc_server_conf *conf,
    struct sc_error *err)
{
	struct sc_artifact_limits lim;
	struct sc_artifact_store *st;

	lim.max_size = conf->artifact_max_size;
	lim.session_bytes = conf->artifact_session_bytes;
	lim.session_files = conf->artifact_session_files;
	lim.store_bytes = conf->artifact_store_bytes;
	if ((st = sc_artifact_store_new(o->artifact_dir, &lim, err)) != NULL)
		sc_debug("artifacts in '%s'", sc_artifact_store_dir(st));
	return st;
}

/*
 * A start-up failure: logged as every other line of the server is (the
 * log is in the server's format by then), and the matching exit code.
 */
static int
fatal(const struct sc_error *err)
{
	return sc_report_error(err);
}

/*
 * The TLS files, checked before gRPC gets them (it only says it refused
 * the address): each readable, a PEM certificate and a PEM private key,
 * and the key the certificate's.  0, or -1 with err set: SC_ST_IO for a
 * file that cannot be read, SC_ST_USAGE for one that is not what it
 * should be.
 */
static int
check_tls(const char *cert, const char *key, struct sc_error *err)
{
	X509 *x = NULL;
	EVP_PKEY *k = NULL;
	FILE *f;
	int rc = -1;

	if ((f = fopen(cert, "r")) == NULL)
		return sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot read TLS certificate '%s'", cert);
	x = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	if (x == NULL) {
		sc_error_set(err, SC_ST_USAGE,
		    "TLS certificate '%s' is not a PEM certificate", cert);
		goto out;
	}
	if ((f = fopen(key, "r")) == NULL) {
		sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot read TLS key '%s'", key);
		goto out;
	}
	k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (k == NULL)
		sc_error_set(err, SC_ST_USAGE,
		    "TLS key '%s' is not a PEM private key (or it is encrypted)",
		    key);
	else if (X509_check_private_key(x, k) != 1)
		sc_error_set(err, SC_ST_USAGE,
		    "TLS key '%s' does not belong to certificate '%s'", key,
		    cert);
	else
		rc = 0;
out:
	ERR_clear_error();
	EVP_PKEY_free(k);
	X509_free(x);
	return rc;
}

/*
 * The TLS listener stopped accepting and gRPC cannot restart it: shut
 * down as on SIGTERM, and exit 10 so a supervisor starts a new server.
 */
static void
on_deaf(void *arg)
{
	(void)arg;
	if (!atomic_exchange(&deaf, true)) {
		sc_err(
		    "shutting down so that a supervisor can restart sc-serve (exit status 10)");
		kill(getpid(), SIGTERM);
	}
}

/*
 * Every connection costs a descriptor: use all the hard limit allows
 * (gRPC's TLS listener never recovers from running out).
 */
static void
raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1) {
		/* An unlimited hard limit is still capped by fs.nr_open. */
		rl.rlim_cur = 1 << 20;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * Create the RPC server, register the service and bind.  Returns an exit
 * code: SC_EXIT_OK, or the failure's after printing it.
 */
static int
start_rpc(struct sc_server *srv, const struct opts *o, int *port)
{
	struct sc_rpc_server_opts ro;
	struct sc_error err;
	char why[256];

	if (o->tls_cert != NULL &&
	    check_tls(o->tls_cert, o->tls_key, &err) == -1)
		return fatal(&err);
	memset(&ro, 0, sizeof(ro));
	ro.listen = o->listen;
	ro.tls_cert_file = o->tls_cert;
	ro.tls_key_file = o->tls_key;
	ro.max_message_size = (long)srv->conf.max_message_size;
	ro.nthreads = srv->conf.workers > 2 ? srv->conf.workers : 2;
	ro.max_connections = o->max_conns;
	ro.max_peer_connections = o->max_peer_conns;
	ro.grace_ms = o->grace_ms;
	ro.idle_ms = o->idle_ms;
	ro.on_deaf = on_deaf;
	/* sctk.admin.v1 beside the Spark Connect service, on the same port. */
	if ((srv->rpc = sc_rpc_server_new(&ro, &err)) == NULL ||
	    sc_service_register(srv, &err) == -1 ||
	    (srv->admin != NULL && sc_admin_register(srv->admin, &err) == -1))
		return fatal(&err);
	if (sc_rpc_server_start(srv->rpc, port, &err) == -1) {
		if (err.status != SC_ST_IO)
			return fatal(&err);
		bind_reason(o->host, strrchr(o->listen, ':') + 1, why,
		    sizeof(why));
		sc_error_set(&err, SC_ST_IO, "cannot listen on '%s': %s",
		    o->listen, why);
		return fatal(&err);
	}
	return SC_EXIT_OK;
}

/*
 * Tear down in dependency order: operations first, so their streams end
 * with a status, then the RPC server (no call left), then sessions,
 * whose engine connections go before the engine.
 */
static void
stop_server(struct sc_server *srv)
{
	struct sc_exec_counts counts;

	sc_sessmgr_stop(srv->sessions);
	if (srv->execs != NULL) {
		sc_execmgr_counts(srv->execs, &counts);
		sc_execmgr_shutdown(srv->execs);
		sc_admin_shutdown(srv->admin);
		if (counts.attached > 0)
			linger(STATUS_GRACE_MS);
	}
	if (srv->rpc != NULL)
		sc_rpc_server_shutdown(srv->rpc);
	sc_service_drain();
	sc_sessmgr_close_all(srv->sessions);
	sc_execmgr_free(srv->execs);
	srv->execs = NULL;
	/* After the execution manager: it calls the admin service. */
	sc_admin_free(srv->admin);
	srv->admin = NULL;
	sc_sessmgr_free(srv->sessions);
	if (srv->rpc != NULL)
		sc_rpc_server_free(srv->rpc);
	/* After the sessions: their artifacts are gone, then the store. */
	sc_artifact_store_free(srv->artifacts);
	srv->artifacts = NULL;
	sc_engine_free(srv->engine);
	sc_auth_free(srv->auth);
	srv->auth = NULL;
	explicit_bzero(srv->conf.token, sizeof(srv->conf.token));
	explicit_bzero(srv->conf.admin_token, sizeof(srv->conf.admin_token));
}

int
main(int argc, char *argv[])
{
	struct sc_server srv;
	struct opts o;
	struct trim trim;
	struct watchdog dog;
	struct sc_engine_config lim;
	struct metrics_http *mh = NULL;
	struct sc_error err;
	sigset_t sigs;
	int sig, port, mport, rc;
	bool watching = false;

	memset(&srv, 0, sizeof(srv));
	parse_options(argc, argv, &o, &srv.conf);
	sc_log_init("sc-serve", SC_LOG_STYLE_SERVER, o.level);
	sc_log_set_format(o.log_format);
#ifdef __GLIBC__
	/*
	 * Before any thread: fewer arenas hold less freed memory (one per
	 * thread by default, up to eight per core).
	 */
	if (srv.conf.malloc_arenas > 0)
		mallopt(M_ARENA_MAX, srv.conf.malloc_arenas);
	/*
	 * grpc allocates received bytes on its poller thread and frees
	 * them on a completion-queue thread, megabytes at a time during a
	 * large upload.  With glibc's 128 KiB default each free gave the
	 * top of the heap back to the system and the next read took it
	 * again: about four brk calls and a thousand page faults per MiB
	 * received.  Up to 8 MiB of a heap's top is kept instead;
	 * memory_tick() still returns what is held past trimThreshold.
	 */
	mallopt(M_TRIM_THRESHOLD, 8 * 1024 * 1024);
#endif

	/*
	 * Every thread inherits the mask; only sigwait() sees these.  A
	 * shell starts background jobs with SIGINT ignored, and an ignored
	 * signal is discarded even when blocked, so restore the default.
	 */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	/*
	 * SIGHUP is a reload (a service manager's ExecReload=): the token
	 * file, if any, is read again.  It is blocked before it stops being
	 * ignored, so an early one waits for it instead of killing.
	 */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGHUP, SIG_DFL);

	if (o.token_file != NULL &&
	    (srv.auth = sc_auth_new(o.token_file, &srv.conf, &err)) == NULL)
		return fatal(&err);

	srv.started_ms = sc_realtime_ms();
	raise_fd_limit();
	if (check_paths(&o, &err) == -1)
		return fatal(&err);
	if ((srv.engine = sc_engine_new(o.database, &err)) == NULL)
		return fatal(&err);
	sc_server_conf_engine(&srv.conf, &lim);
	sc_engine_configure(srv.engine, &lim);
	if ((srv.artifacts = open_artifacts(&o, &srv.conf, &err)) == NULL) {
		sc_engine_free(srv.engine);
		return fatal(&err);
	}
	sc_engine_set_files(srv.engine, artifact_files, srv.artifacts);
	srv.sessions = sc_sessmgr_new(&srv.conf, srv.engine);
	if ((srv.execs = sc_execmgr_new(&srv.conf, &err)) == NULL) {
		rc = fatal(&err);
		goto out;
	}
	/* A closed session's operations go with it. */
	sc_sessmgr_on_close(srv.sessions, sc_exec_session_closed_hook,
	    srv.execs);
	/* And its uploaded artifacts. */
	sc_sessmgr_on_close(srv.sessions, artifacts_closed_hook, srv.artifacts);
	sc_sessmgr_set_keep(srv.sessions, artifacts_keep_hook, srv.artifacts);
	srv.admin = sc_admin_new(&srv);
	if ((rc = start_rpc(&srv, &o, &port)) != SC_EXIT_OK)
		goto out;
	sc_info("sc-serve %s listening on %s:%d%s", SCTK_VERSION, o.host, port,
	    srv.auth != NULL		    ? " (token required, users bound)"
		: srv.conf.token[0] != '\0' ? " (token required)"
					    : "");
	if (o.metrics_listen != NULL) {
		if ((mh = metrics_http_start(o.metrics_host, o.metrics_port,
			 srv.admin, &mport, &err)) == NULL) {
			rc = fatal(&err);
			goto out;
		}
		sc_info("metrics on http://%s:%d/metrics", o.metrics_host,
		    mport);
	}
	/* The ready file comes last: who reads it finds the line above. */
	if (o.ready_file != NULL &&
	    write_ready(o.ready_file, o.host, port, o.tls_cert != NULL, &err) ==
		-1) {
		rc = fatal(&err);
		goto out;
	}
	if (sc_sessmgr_start(srv.sessions, &err) == -1) {
		rc = fatal(&err);
		goto out;
	}
	/* Told once the port accepts and sessions expire. */
	sc_serve_notify_ready(o.host, port);
	trim_init(&trim, &srv.conf);

	while ((sig = wait_for_signal(&sigs, &trim)) == SIGHUP)
		reload(&srv);
	sc_serve_notify_stopping(sig == SIGTERM ? "SIGTERM" : "SIGINT");
	sc_info("shutting down (%s)", sig == SIGTERM ? "SIGTERM" : "SIGINT");
	watching = watchdog_start(&dog, &sigs, &srv.conf);
	rc = atomic_load(&deaf) ? SC_EXIT_INTERNAL : SC_EXIT_OK;
	if (o.ready_file != NULL)
		unlink(o.ready_file);
out:
	metrics_http_stop(mh);
	stop_server(&srv);
	if (watching)
		watchdog_stop(&dog);
	if (rc == SC_EXIT_OK)
		sc_info("stopped");
	else if (atomic_load(&deaf))
		sc_info("stopped (the listener was deaf)");
	return rc;
}
