/* SPDX-License-Identifier: MIT */

/*
 * faultproxy: a TCP proxy for tests that cuts connections.  It listens on
 * 127.0.0.1 port 0, prints the bound port on stdout, forwards to a
 * loopback target, and resets each connection after N bytes (or after a
 * seeded random number of bytes averaging N), up to a maximum number of
 * cuts.  With -S, every tenth of those points is a stall instead, up to
 * that many: the connection goes silent both ways for -D milliseconds
 * (default 3000), then is reset.  It exits after a bounded time, or on
 * SIGTERM/SIGINT, printing its counters on stderr.  Loopback only, by
 * construction.
 *
 *	faultproxy [-c bytes] [-D stall-ms] [-m max-cuts] [-o statsfile]
 *	    [-S max-stalls] [-s seed] [-T seconds] port
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/banned.h"

#define MAXCONN 256
#define BUFSZ 65536

struct half {
	char buf[BUFSZ];
	size_t off, len; /* pending bytes buf[off..len) */
	int eof; /* reader saw EOF */
};

struct pair {
	int cfd, ufd; /* client, upstream; -1 when free */
	int connecting; /* upstream connect in progress */
	struct half up, down; /* client->upstream, upstream->client */
	unsigned long moved, limit; /* 0 limit: never cut */
	long long stall_end; /* stalled until then (now_ms()), or 0 */
};

static struct pair conns[MAXCONN];
static volatile sig_atomic_t stop;
static unsigned long nconns, ncuts, nbytes, nstalls;
static unsigned long stalls_left, stall_ms = 3000;
static const char *statsfile;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: faultproxy [-c bytes] [-D stall-ms] [-m max-cuts] "
	    "[-o statsfile] [-S max-stalls] [-s seed] [-T seconds] port\n");
	exit(2);
}

static unsigned long
number(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0) {
		fprintf(stderr, "faultproxy: invalid %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static void
write_stats(void)
{
	FILE *fp;
	char tmp[4096];

	if (statsfile == NULL)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", statsfile);
	if ((fp = fopen(tmp, "w")) == NULL)
		return;
	fprintf(fp, "connections %lu\ncuts %lu\nbytes %lu\nstalls %lu\n",
	    nconns, ncuts, nbytes, nstalls);
	if (fclose(fp) == 0)
		rename(tmp, statsfile);
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* Close both sides; with rst, abruptly (RST instead of FIN). */
static void
drop(struct pair *p, int rst)
{
	struct linger lg = { 1, 0 };

	if (rst) {
		setsockopt(p->cfd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		setsockopt(p->ufd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	close(p->cfd);
	close(p->ufd);
	p->cfd = p->ufd = -1;
}

/* Read into h from fd; -1 on error, 0 on EOF or nothing, >0 bytes. */
static ssize_t
fill(int fd, struct half *h)
{
	ssize_t n;

	if (h->len != 0 || h->eof)
		return 0;
	n = read(fd, h->buf, sizeof(h->buf));
	if (n == 0)
		h->eof = 1;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n > 0) {
		h->off = 0;
		h->len = (size_t)n;
	}
	return n;
}

/* Write h to fd, counting toward p's limit; -1 on error or a cut. */
static int
flush(struct pair *p, int fd, struct half *h, unsigned long *max_cuts)
{
	size_t want = h->len - h->off;
	ssize_t n;

	if (want == 0)
		return 0;
	if (p->limit > 0 && *max_cuts > 0 && p->moved + want > p->limit)
		want = p->limit > p->moved ? p->limit - p->moved : 0;
	if (want > 0) {
		n = write(fd, h->buf + h->off, want);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		h->off += (size_t)n;
		p->moved += (size_t)n;
		nbytes += (size_t)n;
		if (h->off == h->len)
			h->off = h->len = 0;
	}
	if (p->limit > 0 && *max_cuts > 0 && p->moved >= p->limit) {
		if (stalls_left > 0 && (ncuts + nstalls) % 10 == 9) {
			/* Silence, then the cut (see main()). */
			stalls_left--;
			nstalls++;
			p->stall_end = now_ms() + (long long)stall_ms;
			write_stats();
			return 0;
		}
		ncuts++;
		(*max_cuts)--;
		write_stats();
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sa, up;
	struct pollfd pfd[1 + 2 * MAXCONN];
	struct pair *map[1 + 2 * MAXCONN];
	unsigned long cut = 0, max_cuts = (unsigned long)-1;
	unsigned long seconds = 120, seed = 0;
	socklen_t slen = sizeof(sa);
	time_t end;
	int ch, lfd, fd, i, np, port, one = 1, seeded = 0;
	int err;

	while ((ch = getopt(argc, argv, "c:D:m:o:S:s:T:")) != -1) {
		switch (ch) {
		case 'c':
			cut = number(optarg, "byte count");
			break;
		case 'D':
			stall_ms = number(optarg, "stall time");
			break;
		case 'S':
			stalls_left = number(optarg, "stall count");
			break;
		case 'm':
			max_cuts = number(optarg, "cut count");
			break;
		case 'o':
			statsfile = optarg;
			break;
		case 's':
			seed = number(optarg, "seed");
			seeded = 1;
			break;
		case 'T':
			seconds = number(optarg, "time");
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 1)
		usage();
	port = (int)number(argv[optind], "port");
	if (port < 1 || port > 65535)
		usage();
	if (seconds == 0 || seconds > 3600)
		seconds = 3600;
	srandom((unsigned int)seed);

	memset(&up, 0, sizeof(up));
	up.sin_family = AF_INET;
	up.sin_port = htons((uint16_t)port);
	up.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

	if ((lfd = socket(AF_INET, SOCK_STREAM, 0)) == -1) {
		perror("faultproxy: socket");
		return 1;
	}
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(lfd, 16) == -1 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &slen) == -1) {
		perror("faultproxy: listen");
		return 1;
	}
	nonblock(lfd);
	printf("%d\n", ntohs(sa.sin_port));
	fflush(stdout);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < MAXCONN; i++)
		conns[i].cfd = conns[i].ufd = -1;
	write_stats();

	end = time(NULL) + (time_t)seconds;
	while (!stop && time(NULL) < end) {
		np = 0;
		pfd[np].fd = lfd;
		pfd[np].events = POLLIN;
		map[np++] = NULL;
		for (i = 0; i < MAXCONN; i++) {
			struct pair *p = &conns[i];

			if (p->cfd == -1)
				continue;
			if (p->stall_end != 0 && now_ms() >= p->stall_end) {
				drop(p, 1);
				ncuts++;
				write_stats();
				continue;
			}
			if (p->stall_end != 0)
				continue; /* silent: nothing read, nothing sent */
			pfd[np].fd = p->cfd;
			pfd[np].events =
			    (p->up.len == 0 && !p->up.eof ? POLLIN : 0) |
			    (p->down.len > 0 ? POLLOUT : 0);
			map[np++] = p;
			pfd[np].fd = p->ufd;
			pfd[np].events = p->connecting
			    ? POLLOUT
			    : (p->down.len == 0 && !p->down.eof ? POLLIN : 0) |
				(p->up.len > 0 ? POLLOUT : 0);
			map[np++] = p;
		}
		if (poll(pfd, (nfds_t)np, 200) < 0) {
			if (errno == EINTR)
				continue;
			perror("faultproxy: poll");
			break;
		}
		if (pfd[0].revents & POLLIN) {
			fd = accept(lfd, NULL, NULL);
			for (i = 0; fd != -1 && i < MAXCONN; i++)
				if (conns[i].cfd == -1)
					break;
			if (fd != -1 && i == MAXCONN) {
				close(fd);
				fd = -1;
			}
			if (fd != -1) {
				struct pair *p = &conns[i];

				memset(p, 0, sizeof(*p));
				p->cfd = fd;
				nonblock(fd);
				setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				    sizeof(one));
				p->ufd = socket(AF_INET, SOCK_STREAM, 0);
				nonblock(p->ufd);
				setsockopt(p->ufd, IPPROTO_TCP, TCP_NODELAY,
				    &one, sizeof(one));
				p->connecting = 1;
				if (connect(p->ufd, (struct sockaddr *)&up,
					sizeof(up)) == -1 &&
				    errno != EINPROGRESS)
					drop(p, 0);
				if (cut > 0)
					p->limit = seeded ? 1 +
						(unsigned long)random() %
						    (2 * cut)
							  : cut;
				nconns++;
			}
		}
		for (i = 1; i < np; i += 2) {
			struct pair *p = map[i];
			short cr = pfd[i].revents, ur = pfd[i + 1].revents;

			if (p->cfd == -1)
				continue;
			if (p->connecting) {
				if (ur == 0)
					continue;
				slen = sizeof(err);
				if (getsockopt(p->ufd, SOL_SOCKET, SO_ERROR,
					&err, &slen) == -1 ||
				    err != 0) {
					drop(p, 0);
					continue;
				}
				p->connecting = 0;
				continue;
			}
			if (((cr & POLLIN) && fill(p->cfd, &p->up) < 0) ||
			    ((ur & POLLIN) && fill(p->ufd, &p->down) < 0) ||
			    flush(p, p->ufd, &p->up, &max_cuts) == -1 ||
			    flush(p, p->cfd, &p->down, &max_cuts) == -1 ||
			    (cr & (POLLERR | POLLNVAL)) ||
			    (ur & (POLLERR | POLLNVAL))) {
				drop(p, 1);
				continue;
			}
			if ((p->up.eof && p->up.len == 0) ||
			    (p->down.eof && p->down.len == 0))
				drop(p, 0);
		}
	}
	for (i = 0; i < MAXCONN; i++)
		if (conns[i].cfd != -1)
			drop(&conns[i], 0);
	close(lfd);
	write_stats();
	fprintf(stderr, "faultproxy: %lu connections, %lu cuts, %lu bytes\n",
	    nconns, ncuts, nbytes);
	return 0;
}
