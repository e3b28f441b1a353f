/* SPDX-License-Identifier: MIT */

#ifndef SC_SERVE_METRICS_HTTP_H
#define SC_SERVE_METRICS_HTTP_H

/*
 * sc-serve --metrics-listen: GET /metrics over plain HTTP (Debian's
 * libmicrohttpd, one thread of its own) answers the server's figures
 * as Prometheus text, the same text `sc-inspect stats --format
 * prometheus` writes; any other path is 404, any other method 405.
 */

struct sc_admin;
struct sc_error;
struct metrics_http;

/*
 * Listen on host (an address, "[v6]" bracketed or not) and port (0: a
 * free one) and serve admin's figures; the bound port in *portp.  NULL
 * with err set: SC_ST_IO when the address cannot be bound, SC_ST_INTERNAL
 * when the HTTP server cannot start.
 */
struct metrics_http *metrics_http_start(const char *host, int port,
    struct sc_admin *admin, int *portp, struct sc_error *err);

/* Stop serving and free; NULL is a no-op.  Before admin is freed. */
void metrics_http_stop(struct metrics_http *mh);

#endif
