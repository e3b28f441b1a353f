/* SPDX-License-Identifier: MIT */

/*
 * rpc_listen.c: sc-serve's own accept loop for plaintext listeners.
 *
 * gRPC core 1.51 stops accepting for good once accept4() has failed
 * with EMFILE (grpc/grpc#16058, #20418): a flood of idle connections
 * that reaches the fd limit leaves the server deaf after it ends.  So
 * the server binds its plaintext sockets itself, and one thread
 * ("sc-accept") accepts, applies the limits and hands each connection
 * to gRPC (grpc_server_add_channel_from_fd) once its first byte has
 * arrived.  The thread never stops accepting: over a limit a connection
 * is accepted and closed at once, and on EMFILE a reserve descriptor is
 * given up for a moment so the connection can be accepted and closed.
 *
 * gRPC closes a connection it owns without telling anyone, so the
 * thread learns of it by looking: every connection handed over is
 * remembered by its descriptor and socket inode, and a descriptor that
 * is closed or now names another file means the connection is gone.
 * That is checked once a second, before refusing a connection at the
 * limit, and when accept4() returns a descriptor still remembered.
 */

#include "core/rpc_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <grpc/grpc_posix.h>

#include "core/error.h"
#include "core/htab.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "core/banned.h"

#define MAX_LISTEN 4 /* sockets one address may resolve to */
#define SWEEP_MS 1000 /* how often handed-over connections are checked */
#define REPORT_MS 10000 /* at most one report per kind in this time */
#define PAUSE_MS 100 /* accepting paused after an error it cannot shed */
#define ACCEPT_BURST 256 /* accepts per wake-up, so the rest get a turn */
#define MAX_TABLE (1L << 20) /* descriptors the table covers */
#define DEFAULT_GRACE_MS 10000
#define DEFAULT_PEER_MAX 4096
#define FD_RESERVE_MIN 64 /* descriptors kept for everything else */

enum conn_state { C_FREE, C_PENDING, C_ACTIVE };

/* epoll data: the kind in the top bits, an fd or index below. */
#define EV_WAKE (1ULL << 40)
#define EV_LISTEN (2ULL << 40)
#define EV_CONN (3ULL << 40)
#define EV_KIND(u) ((u) & (3ULL << 40))
#define EV_VAL(u) ((int)((u)&0xffffffffULL))

struct peer {
	struct sc_htab_entry e;
	long n; /* connections open */
	char addr[INET6_ADDRSTRLEN]; /* the key */
};

struct conn {
	enum conn_state state;
	struct peer *peer;
	dev_t dev;
	ino_t ino;
	int64_t deadline_ms; /* C_PENDING: closed if silent until then */
	int prev, next; /* C_PENDING: the list in accept order; -1 ends */
	size_t idx; /* C_ACTIVE: position in active[] */
	char uri[64]; /* "ipv4:1.2.3.4:5" as gRPC spells a peer */
};

enum report_kind { R_TOTAL, R_PEER, R_FDS, R_IDLE };

/* A kind of refusal, reported at most once per REPORT_MS. */
struct report {
	enum report_kind kind;
	long count; /* since the last report */
	int64_t last_ms; /* of the last report; 0: none yet */
	char detail[128];
};

struct sc_rpc_listener {
	int lfd[MAX_LISTEN];
	size_t nlfd;
	int port;
	long max_conns;
	long max_peer;
	int64_t grace_ms; /* < 0: none */
	int ep; /* epoll */
	int wake; /* eventfd */
	int reserve; /* /dev/null, given up on EMFILE */
	grpc_server *gs;
	grpc_server_credentials *creds;
	pthread_t tid;
	bool running;
	bool stopping; /* under mu */
	bool paused; /* listen sockets out of epoll */
	int64_t resume_ms;
	int64_t last_sweep_ms;

	pthread_mutex_t mu; /* the table, for sc_rpc_listener_peer() */
	struct conn *conns; /* indexed by fd */
	long nconns_table;
	long live; /* C_PENDING + C_ACTIVE */
	int head, tail; /* C_PENDING in accept order */
	int *active; /* fds of C_ACTIVE */
	size_t nactive;
	struct sc_htab peers;

	struct report r_total, r_peer, r_fds, r_idle;
};

/* ------------------------------------------------------------ limits */

long
sc_rpc_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur == RLIM_INFINITY)
		return MAX_TABLE;
	if (rl.rlim_cur > (rlim_t)MAX_TABLE)
		return MAX_TABLE;
	return (long)rl.rlim_cur;
}

long
sc_rpc_default_max_connections(long fd_limit)
{
	long reserve = fd_limit / 4;

	if (reserve < FD_RESERVE_MIN)
		reserve = FD_RESERVE_MIN;
	return fd_limit - reserve > 1 ? fd_limit - reserve : 1;
}

/* ------------------------------------------------------------ reports */

static void
report_flush(struct report *r, int64_t now)
{
	if (r->count == 0)
		return;
	switch (r->kind) {
	case R_TOTAL:
		sc_warn(
		    "refused %ld connection(s): the server holds %s (--max-connections)",
		    r->count, r->detail);
		break;
	case R_PEER:
		sc_warn(
		    "refused %ld connection(s) over the limit per peer address: %s (--max-peer-connections)",
		    r->count, r->detail);
		break;
	case R_FDS:
		sc_warn(
		    "refused %ld connection(s): out of file descriptors (%s)",
		    r->count, r->detail);
		break;
	case R_IDLE:
		sc_info(
		    "closed %ld connection(s) that sent nothing within %s (--connection-grace)",
		    r->count, r->detail);
		break;
	}
	r->count = 0;
	r->last_ms = now;
}

/*
 * Count n events of r; report at once if the last report was long enough
 * ago, else in reports_tick() when it is.
 */
static void
report_event(struct report *r, long n, int64_t now)
{
	r->count += n;
	if (r->last_ms == 0 || now - r->last_ms >= REPORT_MS)
		report_flush(r, now);
}

static void
reports_tick(struct sc_rpc_listener *l, int64_t now)
{
	struct report *r[] = { &l->r_total, &l->r_peer, &l->r_fds, &l->r_idle };
	size_t i;

	for (i = 0; i < SC_NELEM(r); i++)
		if (now - r[i]->last_ms >= REPORT_MS)
			report_flush(r[i], now);
}

/* ------------------------------------------------------------ the table */

static struct peer *
peer_get(struct sc_rpc_listener *l, const char *addr)
{
	struct sc_htab_entry *e;
	struct peer *p;

	if ((e = sc_htab_find(&l->peers, addr, strlen(addr))) != NULL)
		return SC_HTAB_ITEM(e, struct peer, e);
	p = sc_xcalloc(1, sizeof(*p));
	snprintf(p->addr, sizeof(p->addr), "%s", addr);
	sc_htab_insert(&l->peers, &p->e, p->addr, strlen(p->addr));
	return p;
}

static void
peer_put(struct sc_rpc_listener *l, struct peer *p)
{
	if (--p->n > 0)
		return;
	sc_htab_remove(&l->peers, &p->e);
	free(p);
}

static void
pending_unlink(struct sc_rpc_listener *l, int fd)
{
	struct conn *c = &l->conns[fd];

	if (c->prev >= 0)
		l->conns[c->prev].next = c->next;
	else
		l->head = c->next;
	if (c->next >= 0)
		l->conns[c->next].prev = c->prev;
	else
		l->tail = c->prev;
	c->prev = c->next = -1;
}

/*
 * Forget the connection of fd (with l->mu held).  A pending one is
 * ours and is closed; an active one was gRPC's and is already closed.
 */
static void
conn_forget(struct sc_rpc_listener *l, int fd)
{
	struct conn *c = &l->conns[fd];
	int last;

	if (c->state == C_PENDING) {
		pending_unlink(l, fd);
		(void)epoll_ctl(l->ep, EPOLL_CTL_DEL, fd, NULL);
		close(fd);
	} else if (c->state == C_ACTIVE) {
		last = l->active[--l->nactive];
		l->active[c->idx] = last;
		l->conns[last].idx = c->idx;
	} else
		return;
	peer_put(l, c->peer);
	c->peer = NULL;
	c->state = C_FREE;
	l->live--;
}

/* Is fd still the socket remembered for it? */
static bool
still_open(const struct conn *c, int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_dev == c->dev &&
	    st.st_ino == c->ino;
}

/* Forget the handed-over connections gRPC has closed since the last look. */
static void
sweep(struct sc_rpc_listener *l, int64_t now)
{
	size_t i;
	int fd;

	pthread_mutex_lock(&l->mu);
	for (i = 0; i < l->nactive;) {
		fd = l->active[i];
		if (still_open(&l->conns[fd], fd))
			i++;
		else
			conn_forget(l, fd); /* moved the last one to i */
	}
	pthread_mutex_unlock(&l->mu);
	l->last_sweep_ms = now;
}

/* ------------------------------------------------------------ accepting */

/* gRPC's spelling of a peer ("ipv4:127.0.0.1:5555"), and its address. */
static void
peer_names(const struct sockaddr_storage *ss, char *uri, size_t urisz,
    char *addr, size_t addrsz)
{
	const struct sockaddr_in6 *s6 = (const void *)ss;
	const struct sockaddr_in *s4 = (const void *)ss;
	struct in_addr v4;
	int port;

	if (ss->ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		memcpy(&v4, &s6->sin6_addr.s6_addr[12], sizeof(v4));
		inet_ntop(AF_INET, &v4, addr, (socklen_t)addrsz);
		port = ntohs(s6->sin6_port);
		snprintf(uri, urisz, "ipv4:%s:%d", addr, port);
	} else if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &s6->sin6_addr, addr, (socklen_t)addrsz);
		snprintf(uri, urisz, "ipv6:[%s]:%d", addr,
		    ntohs(s6->sin6_port));
	} else if (ss->ss_family == AF_INET) {
		inet_ntop(AF_INET, &s4->sin_addr, addr, (socklen_t)addrsz);
		snprintf(uri, urisz, "ipv4:%s:%d", addr, ntohs(s4->sin_port));
	} else {
		snprintf(addr, addrsz, "unknown");
		snprintf(uri, urisz, "unknown");
	}
}

/* Close fd at once, without lingering in TIME_WAIT on our side. */
static void
refuse(int fd)
{
	struct linger lg = { 1, 0 };

	(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
}

/* Out of descriptors: give up the reserve to accept and close one. */
static bool
shed(struct sc_rpc_listener *l, int lfd, int64_t now)
{
	int fd;

	if (l->reserve < 0)
		return false;
	close(l->reserve);
	l->reserve = -1;
	if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0)
		refuse(fd);
	l->reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
	snprintf(l->r_fds.detail, sizeof(l->r_fds.detail),
	    "limit %ld; raise it with ulimit -n, or lower --max-connections",
	    sc_rpc_fd_limit());
	report_event(&l->r_fds, 1, now);
	return fd >= 0;
}

static void
pause_accepting(struct sc_rpc_listener *l, int64_t now)
{
	size_t i;

	if (l->paused)
		return;
	for (i = 0; i < l->nlfd; i++)
		(void)epoll_ctl(l->ep, EPOLL_CTL_DEL, l->lfd[i], NULL);
	l->paused = true;
	l->resume_ms = now + PAUSE_MS;
}

static void
resume_accepting(struct sc_rpc_listener *l)
{
	struct epoll_event ev;
	size_t i;

	for (i = 0; i < l->nlfd; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN;
		ev.data.u64 = EV_LISTEN | (uint64_t)i;
		(void)epoll_ctl(l->ep, EPOLL_CTL_ADD, l->lfd[i], &ev);
	}
	l->paused = false;
}

/* Take the new connection fd from ss, or refuse it. */
static void
admit(struct sc_rpc_listener *l, int fd, const struct sockaddr_storage *ss,
    int64_t now)
{
	struct epoll_event ev;
	struct conn *c;
	struct peer *p;
	struct stat st;
	char addr[INET6_ADDRSTRLEN], uri[sizeof(c->uri)];

	if (fd >= l->nconns_table || fstat(fd, &st) == -1) {
		refuse(fd);
		return;
	}
	peer_names(ss, uri, sizeof(uri), addr, sizeof(addr));
	pthread_mutex_lock(&l->mu);
	/* The number is free again, so whatever it was is closed. */
	conn_forget(l, fd);
	pthread_mutex_unlock(&l->mu);
	if (l->live >= l->max_conns && now - l->last_sweep_ms >= PAUSE_MS)
		sweep(l, now);
	if (l->live >= l->max_conns) {
		refuse(fd);
		snprintf(l->r_total.detail, sizeof(l->r_total.detail),
		    "%ld connections, its limit", l->live);
		report_event(&l->r_total, 1, now);
		return;
	}
	pthread_mutex_lock(&l->mu);
	p = peer_get(l, addr);
	if (p->n >= l->max_peer) {
		pthread_mutex_unlock(&l->mu);
		refuse(fd);
		snprintf(l->r_peer.detail, sizeof(l->r_peer.detail),
		    "%s holds %ld connections", addr, l->max_peer);
		report_event(&l->r_peer, 1, now);
		return;
	}
	p->n++;
	l->live++;
	c = &l->conns[fd];
	memset(c, 0, sizeof(*c));
	c->state = C_PENDING;
	c->peer = p;
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	c->deadline_ms = l->grace_ms < 0 ? INT64_MAX : now + l->grace_ms;
	snprintf(c->uri, sizeof(c->uri), "%s", uri);
	c->next = -1;
	c->prev = l->tail;
	if (l->tail >= 0)
		l->conns[l->tail].next = fd;
	else
		l->head = fd;
	l->tail = fd;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN | EPOLLRDHUP;
	ev.data.u64 = EV_CONN | (uint64_t)fd;
	if (epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &ev) == -1)
		conn_forget(l, fd);
	pthread_mutex_unlock(&l->mu);
}

static void
accept_some(struct sc_rpc_listener *l, int lfd, int64_t now)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int i, fd;

	for (i = 0; i < ACCEPT_BURST; i++) {
		len = sizeof(ss);
		fd = accept4(lfd, (struct sockaddr *)&ss, &len,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0) {
			admit(l, fd, &ss, now);
			continue;
		}
		switch (errno) {
		case EAGAIN:
			return;
		case EINTR:
		case ECONNABORTED:
		case EPROTO:
		case EPERM:
			continue;
		case EMFILE:
		case ENFILE:
			if (shed(l, lfd, now))
				continue;
			pause_accepting(l, now);
			return;
		default:
			sc_debug("accept4: %s", strerror(errno));
			pause_accepting(l, now);
			return;
		}
	}
}

/*
 * The first bytes of a pending connection arrived: hand it to gRPC.
 * A connection closed before sending anything is forgotten.
 */
static void
hand_over(struct sc_rpc_listener *l, int fd)
{
	struct conn *c = &l->conns[fd];
	char b;
	ssize_t n;
	int one = 1;

	if (c->state != C_PENDING)
		return;
	n = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	pthread_mutex_lock(&l->mu);
	if (n <= 0) {
		conn_forget(l, fd);
		pthread_mutex_unlock(&l->mu);
		return;
	}
	pending_unlink(l, fd);
	(void)epoll_ctl(l->ep, EPOLL_CTL_DEL, fd, NULL);
	c->state = C_ACTIVE;
	c->idx = l->nactive;
	l->active[l->nactive++] = fd;
	pthread_mutex_unlock(&l->mu);
	/* gRPC's own listener sets it too: no Nagle delay on replies. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	grpc_server_add_channel_from_fd(l->gs, fd, l->creds);
}

/* Close the pending connections whose grace ran out. */
static void
expire(struct sc_rpc_listener *l, int64_t now)
{
	long n = 0;

	pthread_mutex_lock(&l->mu);
	while (l->head >= 0 && l->conns[l->head].deadline_ms <= now) {
		conn_forget(l, l->head);
		n++;
	}
	pthread_mutex_unlock(&l->mu);
	if (n > 0)
		report_event(&l->r_idle, n, now);
}

static int
wait_ms(struct sc_rpc_listener *l, int64_t now)
{
	int64_t until = l->last_sweep_ms + SWEEP_MS;

	if (l->paused && l->resume_ms < until)
		until = l->resume_ms;
	if (l->head >= 0 && l->conns[l->head].deadline_ms < until)
		until = l->conns[l->head].deadline_ms;
	if (until <= now)
		return 0;
	return until - now > SWEEP_MS ? SWEEP_MS : (int)(until - now);
}

static void *
accept_main(void *arg)
{
	struct sc_rpc_listener *l = arg;
	struct epoll_event evs[64];
	uint64_t u;
	int64_t now;
	int i, n;
	bool stop = false;

	pthread_setname_np(pthread_self(), "sc-accept");
	while (!stop) {
		now = sc_mono_ms();
		n = epoll_wait(l->ep, evs, SC_NELEM(evs), wait_ms(l, now));
		now = sc_mono_ms();
		for (i = 0; i < n; i++) {
			u = evs[i].data.u64;
			if (EV_KIND(u) == EV_WAKE) {
				pthread_mutex_lock(&l->mu);
				stop = l->stopping;
				pthread_mutex_unlock(&l->mu);
			} else if (EV_KIND(u) == EV_LISTEN && !l->paused)
				accept_some(l, l->lfd[EV_VAL(u)], now);
			else if (EV_KIND(u) == EV_CONN)
				hand_over(l, EV_VAL(u));
		}
		if (stop)
			break;
		/* A reserve lost to another thread's open() comes back. */
		if (l->reserve < 0)
			l->reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (l->paused && now >= l->resume_ms)
			resume_accepting(l);
		expire(l, now);
		if (now - l->last_sweep_ms >= SWEEP_MS)
			sweep(l, now);
		reports_tick(l, now);
	}
	return NULL;
}

/* ------------------------------------------------------------ set-up */

/* Split "host:port" or "[v6]:port" into host (brackets removed), port. */
static int
split_addr(const char *addr, char *host, size_t hostsz, char *port,
    size_t portsz)
{
	const char *colon = strrchr(addr, ':');
	size_t n;

	if (colon == NULL || strlen(colon + 1) >= portsz)
		return -1;
	n = (size_t)(colon - addr);
	if (n >= 2 && addr[0] == '[' && addr[n - 1] == ']') {
		addr++;
		n -= 2;
	}
	if (n == 0 || n >= hostsz)
		return -1;
	memcpy(host, addr, n);
	host[n] = '\0';
	snprintf(port, portsz, "%s", colon + 1);
	return 0;
}

/* Bind and listen on ai with the given port (0: any); the fd or -1. */
static int
listen_one(const struct addrinfo *ai, int port)
{
	struct sockaddr_storage ss;
	int fd, one = 1;

	if (ai->ai_addrlen > sizeof(ss))
		return -1;
	memcpy(&ss, ai->ai_addr, ai->ai_addrlen);
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
	else if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
	else
		return -1;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (fd == -1)
		return -1;
	/* As gRPC: SO_REUSEADDR, and no SO_REUSEPORT (a busy port fails). */
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, ai->ai_addrlen) == -1 ||
	    listen(fd, SOMAXCONN) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

static int
bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1)
		return -1;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

struct sc_rpc_listener *
sc_rpc_listener_new(const char *addr, const struct sc_rpc_listen_opts *o,
    int *portp, struct sc_error *err)
{
	struct sc_rpc_listener *l;
	struct addrinfo hints, *res, *ai;
	char host[256], port[16];
	int fd, p = 0, e = 0;

	if (split_addr(addr, host, sizeof(host), port, sizeof(port)) == -1) {
		sc_error_set(err, SC_ST_IO, "cannot listen on '%s'", addr);
		return NULL;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if (getaddrinfo(host, port, &hints, &res) != 0) {
		sc_error_set(err, SC_ST_IO, "cannot listen on '%s'", addr);
		return NULL;
	}
	l = sc_xcalloc(1, sizeof(*l));
	l->ep = l->wake = l->reserve = -1;
	l->head = l->tail = -1;
	pthread_mutex_init(&l->mu, NULL);
	sc_htab_init(&l->peers);
	p = (int)strtol(port, NULL, 10);
	for (ai = res; ai != NULL && l->nlfd < MAX_LISTEN; ai = ai->ai_next) {
		if ((fd = listen_one(ai, p)) == -1) {
			e = errno;
			continue;
		}
		if (p == 0)
			p = bound_port(fd);
		l->lfd[l->nlfd++] = fd;
	}
	freeaddrinfo(res);
	if (l->nlfd == 0) {
		sc_error_set_errno(err, SC_ST_IO, e, "cannot listen on '%s'",
		    addr);
		sc_rpc_listener_free(l);
		return NULL;
	}
	l->port = p;
	l->nconns_table = sc_rpc_fd_limit();
	l->max_conns = o->max_conns > 0
	    ? o->max_conns
	    : sc_rpc_default_max_connections(l->nconns_table);
	l->max_peer = o->max_peer_conns > 0 ? o->max_peer_conns
					    : DEFAULT_PEER_MAX;
	l->grace_ms = o->grace_ms != 0 ? o->grace_ms : DEFAULT_GRACE_MS;
	l->r_total.kind = R_TOTAL;
	l->r_peer.kind = R_PEER;
	l->r_fds.kind = R_FDS;
	l->r_idle.kind = R_IDLE;
	snprintf(l->r_idle.detail, sizeof(l->r_idle.detail), "%lld ms",
	    (long long)l->grace_ms);
	*portp = p;
	return l;
}

int
sc_rpc_listener_start(struct sc_rpc_listener *l, grpc_server *gs,
    struct sc_error *err)
{
	struct epoll_event ev;
	int rc;

	l->gs = gs;
	l->creds = grpc_insecure_server_credentials_create();
	l->conns = sc_xcalloc((size_t)l->nconns_table, sizeof(*l->conns));
	l->active = sc_xcalloc((size_t)l->nconns_table, sizeof(*l->active));
	l->reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if ((l->ep = epoll_create1(EPOLL_CLOEXEC)) == -1 ||
	    (l->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) == -1)
		return sc_error_set_errno(err, SC_ST_INTERNAL, errno,
		    "cannot start the accept loop");
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = EV_WAKE;
	if (epoll_ctl(l->ep, EPOLL_CTL_ADD, l->wake, &ev) == -1)
		return sc_error_set_errno(err, SC_ST_INTERNAL, errno,
		    "cannot start the accept loop");
	resume_accepting(l);
	l->last_sweep_ms = sc_mono_ms();
	if ((rc = pthread_create(&l->tid, NULL, accept_main, l)) != 0)
		return sc_error_set_errno(err, SC_ST_INTERNAL, rc,
		    "cannot start the accept loop");
	l->running = true;
	sc_debug(
	    "accepting up to %ld connections, %ld per peer address, %lld ms for a first byte",
	    l->max_conns, l->max_peer, (long long)l->grace_ms);
	return 0;
}

void
sc_rpc_listener_stop(struct sc_rpc_listener *l)
{
	uint64_t one = 1;
	size_t i;

	if (l == NULL)
		return;
	if (l->running) {
		pthread_mutex_lock(&l->mu);
		l->stopping = true;
		pthread_mutex_unlock(&l->mu);
		if (write(l->wake, &one, sizeof(one)) != sizeof(one))
			SC_BUG("cannot wake the accept loop");
		pthread_join(l->tid, NULL);
		l->running = false;
	}
	for (i = 0; i < l->nlfd; i++)
		close(l->lfd[i]);
	l->nlfd = 0;
	if (l->conns != NULL) {
		pthread_mutex_lock(&l->mu);
		while (l->head >= 0)
			conn_forget(l, l->head);
		pthread_mutex_unlock(&l->mu);
	}
}

void
sc_rpc_listener_free(struct sc_rpc_listener *l)
{
	struct sc_htab_entry *e;

	if (l == NULL)
		return;
	sc_rpc_listener_stop(l);
	while ((e = sc_htab_first(&l->peers)) != NULL) {
		sc_htab_remove(&l->peers, e);
		free(SC_HTAB_ITEM(e, struct peer, e));
	}
	sc_htab_release(&l->peers);
	if (l->creds != NULL)
		grpc_server_credentials_release(l->creds);
	if (l->ep >= 0)
		close(l->ep);
	if (l->wake >= 0)
		close(l->wake);
	if (l->reserve >= 0)
		close(l->reserve);
	free(l->conns);
	free(l->active);
	pthread_mutex_destroy(&l->mu);
	free(l);
}

char *
sc_rpc_listener_peer(struct sc_rpc_listener *l, const char *grpc_peer)
{
	char *end, *out = NULL;
	long fd;

	if (l == NULL || grpc_peer == NULL || strncmp(grpc_peer, "fd:", 3) != 0)
		return NULL;
	errno = 0;
	fd = strtol(grpc_peer + 3, &end, 10);
	if (errno != 0 || *end != '\0' || fd < 0 || fd >= l->nconns_table ||
	    l->conns == NULL)
		return NULL;
	pthread_mutex_lock(&l->mu);
	if (l->conns[fd].state == C_ACTIVE)
		out = sc_xstrdup(l->conns[fd].uri);
	pthread_mutex_unlock(&l->mu);
	return out;
}
