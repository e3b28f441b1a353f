/* SPDX-License-Identifier: MIT */

/*
 * metrics_http.c: /metrics for a Prometheus server (metrics_http.h).
 * The socket is ours (bound and listening before the daemon gets it),
 * so a bind failure says why, and port 0 is read back with
 * getsockname().  Each answer is built from a fresh GetStats.
 */

#include "metrics_http.h"

#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/inspect.h"
#include "core/log.h"
#include "core/xmem.h"
#include "server/admin.h"
#include "core/banned.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct metrics_http {
	struct MHD_Daemon *d;
	struct sc_admin *admin;
	int fd;
};

static enum MHD_Result
reply(struct MHD_Connection *c, unsigned int status, const char *type,
    const void *body, size_t len, const char *allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, (void *)(uintptr_t)body,
	    MHD_RESPMEM_MUST_COPY);
	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (allow != NULL)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* The Prometheus text of admin's figures into b; 0 or -1. */
static int
metrics_text(struct sc_admin *admin, struct sc_buf *b, struct sc_error *err)
{
	struct sc_inspect_stats *st;
	uint8_t *packed;
	size_t len;
	int rc;

	packed = sc_admin_stats_pack(admin, &len);
	st = sc_xmalloc(sizeof(*st));
	rc = sc_inspect_stats_unpack(packed, len, st, err);
	if (rc == 0)
		rc = sc_inspect_prometheus(st, b, err);
	free(st);
	free(packed);
	return rc;
}

static enum MHD_Result
answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
    const char *version, const char *upload, size_t *upload_size, void **state)
{
	static const char not_found[] = "not found: try /metrics\n";
	static const char not_allowed[] = "method not allowed\n";
	static const char failed[] = "cannot gather the metrics\n";
	struct metrics_http *mh = cls;
	struct sc_error err;
	struct sc_buf b;
	enum MHD_Result ret;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
		    not_allowed, sizeof(not_allowed) - 1, "GET, HEAD");
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", not_found,
		    sizeof(not_found) - 1, NULL);
	sc_buf_init(&b, 16 * 1024 * 1024);
	if (metrics_text(mh->admin, &b, &err) == -1) {
		sc_warn("/metrics: %s", err.msg);
		ret = reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain",
		    failed, sizeof(failed) - 1, NULL);
	} else
		ret = reply(c, MHD_HTTP_OK, CONTENT_TYPE, b.data, b.len, NULL);
	sc_buf_release(&b);
	return ret;
}

/* libmicrohttpd's own messages, as the server's log lines. */
static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = '\0';
	sc_warn("metrics HTTP server: %s", msg);
}

/* A listening socket on host:port; the fd, or -1 with err set. */
static int
listen_on(const char *host, int port, int *portp, struct sc_error *err)
{
	struct addrinfo hints, *res;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char h[256], p[16];
	size_t n = strlen(host);
	int fd, one = 1, r, e;

	if (n >= 2 && host[0] == '[' && host[n - 1] == ']')
		snprintf(h, sizeof(h), "%.*s", (int)(n - 2), host + 1);
	else
		snprintf(h, sizeof(h), "%s", host);
	snprintf(p, sizeof(p), "%d", port);
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if ((r = getaddrinfo(h, p, &hints, &res)) != 0)
		return sc_error_set(err, SC_ST_IO,
		    "cannot listen on '%s:%d' for metrics: %s", host, port,
		    gai_strerror(r));
	fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC,
	    res->ai_protocol);
	if (fd == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1 ||
	    bind(fd, res->ai_addr, res->ai_addrlen) == -1 ||
	    listen(fd, 64) == -1 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) == -1) {
		e = errno;
		if (fd != -1)
			close(fd);
		freeaddrinfo(res);
		return sc_error_set_errno(err, SC_ST_IO, e,
		    "cannot listen on '%s:%d' for metrics", host, port);
	}
	freeaddrinfo(res);
	*portp = ss.ss_family == AF_INET6
	    ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
	    : ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

struct metrics_http *
metrics_http_start(const char *host, int port, struct sc_admin *admin,
    int *portp, struct sc_error *err)
{
	struct metrics_http *mh;
	int fd, bound;

	if ((fd = listen_on(host, port, &bound, err)) == -1)
		return NULL;
	mh = sc_xcalloc(1, sizeof(*mh));
	mh->admin = admin;
	mh->fd = fd;
	/* The logger first, or MHD prints on its own until it is set. */
	mh->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
		MHD_USE_ERROR_LOG,
	    0, NULL, NULL, answer, mh, MHD_OPTION_EXTERNAL_LOGGER, mhd_log,
	    NULL, MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned int)16, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
	    MHD_OPTION_END);
	if (mh->d == NULL) {
		close(fd);
		free(mh);
		sc_error_set(err, SC_ST_INTERNAL,
		    "cannot start the metrics HTTP server on '%s:%d'", host,
		    bound);
		return NULL;
	}
	*portp = bound;
	return mh;
}

void
metrics_http_stop(struct metrics_http *mh)
{
	if (mh == NULL)
		return;
	MHD_stop_daemon(mh->d); /* closes mh->fd too */
	free(mh);
}
