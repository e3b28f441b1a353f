/* SPDX-License-Identifier: MIT */

/*
 * artifact.c: the artifact store behind AddArtifacts and ArtifactStatus.
 *
 * Names are checked first (check_name), so nothing a client sends can
 * reach the disk unchecked; paths are then opened one component at a
 * time beneath a directory descriptor with O_NOFOLLOW, never as a whole
 * string, so neither ".." nor a symbolic link someone planted in the
 * store can lead outside it.  Each session has a record with its
 * committed artifacts (sorted by name) and its quota; the store lock is
 * taken before a record lock, never after.
 */

#include "server/artifact.h"
#include "server/artifact_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/crc.h"
#include "core/error.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "server/server.h"
#include "server/session.h"
#include "core/banned.h"

#define NBUCKETS 256
#define STAGE_PREFIX ".upload-"
#define LOCK_FILE ".lock"

/* A committed artifact. */
struct entry {
	char *name;
	int64_t size;
	int64_t stored_ms;
};

/* One session's artifacts. */
struct record {
	struct record *next; /* hash chain (store lock) */
	char ssid[SC_UUID_STRLEN];
	int refs; /* store lock: the table's and each upload's */
	atomic_bool closed;
	pthread_mutex_t lock; /* everything below */
	int64_t used_bytes, used_files; /* committed */
	int64_t staged_bytes, staged_files; /* reserved by running uploads */
	struct entry **v; /* sorted by name */
	size_t n, cap;
};

struct sc_artifact_store {
	char *dir; /* absolute */
	bool owned; /* private: removed at the end */
	int rootfd;
	int lockfd;
	struct sc_artifact_limits lim;
	/* Bytes stored and reserved by uploads, all sessions (no lock). */
	_Atomic int64_t bytes;
	pthread_mutex_t lock; /* the table, records' refs */
	struct record *b[NBUCKETS];
};

/* An artifact of one AddArtifacts call. */
struct staged {
	char *name; /* as sent */
	char *path; /* stored name: without an archive's #fragment */
	const struct sc_artifact_prefix *pre;
	char tmp[32]; /* staging file beneath the session directory */
	int fd; /* open while data arrives, else -1 */
	bool on_disk; /* tmp exists */
	bool reserved; /* res_* counted in the record's staged_* */
	int64_t res_bytes, res_files;
	bool crc_ok;
	bool chunked;
	bool complete;
	int64_t bytes; /* received */
	int64_t total, nchunks, chunks; /* chunked artifacts */
};

struct sc_artifact_upload {
	struct sc_artifact_store *st;
	struct record *rec;
	char handle[64]; /* the session id the client sent */
	int dirfd; /* the session's directory */
	struct staged *v;
	size_t n, cap;
	size_t open; /* index + 1 of the open chunked artifact, 0: none */
	size_t last_chunked; /* index + 1 when the last payload ended one */
	bool failed;
	struct sc_artifact_summary *sum;
};

/* ------------------------------------------------------------ records */

static size_t
bucket(const char *ssid)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *ssid != '\0'; ssid++)
		h = (h ^ (unsigned char)*ssid) * 1099511628211ULL;
	return (size_t)(h % NBUCKETS);
}

/* Store lock held. */
static struct record *
rec_find(struct sc_artifact_store *st, const char *ssid)
{
	struct record *r;

	for (r = st->b[bucket(ssid)]; r != NULL; r = r->next)
		if (strcmp(r->ssid, ssid) == 0)
			return r;
	return NULL;
}

static void
rec_free(struct record *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->v[i]->name);
		free(r->v[i]);
	}
	free(r->v);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

static void
rec_unref(struct sc_artifact_store *st, struct record *r)
{
	bool last;

	pthread_mutex_lock(&st->lock);
	last = --r->refs == 0;
	pthread_mutex_unlock(&st->lock);
	if (last)
		rec_free(r);
}

/* The index of name in r->v, or where it would go; record lock held. */
static size_t
entry_pos(const struct record *r, const char *name, bool *found)
{
	size_t lo = 0, hi = r->n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(r->v[mid]->name, name);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/* Record a committed artifact of size bytes; record lock held. */
static void
entry_put(struct record *r, const char *name, int64_t size)
{
	struct entry *e;
	bool found;
	size_t i;

	i = entry_pos(r, name, &found);
	if (found) {
		e = r->v[i];
		r->used_bytes += size - e->size;
	} else {
		if (r->n == r->cap) {
			r->cap = r->cap ? 2 * r->cap : 16;
			r->v = sc_xreallocarray(r->v, r->cap, sizeof(*r->v));
		}
		memmove(&r->v[i + 1], &r->v[i], (r->n - i) * sizeof(*r->v));
		e = sc_xcalloc(1, sizeof(*e));
		e->name = sc_xstrdup(name);
		r->v[i] = e;
		r->n++;
		r->used_files++;
		r->used_bytes += size;
	}
	e->size = size;
	e->stored_ms = sc_realtime_ms();
}

/* ------------------------------------------------------------ the store */

struct sc_artifact_store *
sc_artifact_store_new(const char *dir, const struct sc_artifact_limits *limits,
    struct sc_error *err)
{
	struct sc_artifact_store *st;
	struct dirent *de;
	struct stat sb;
	const char *tmp;
	char *tmpl = NULL;
	size_t stale = 0;
	DIR *d;
	int fd;

	st = sc_xcalloc(1, sizeof(*st));
	st->rootfd = st->lockfd = -1;
	st->lim = *limits;
	pthread_mutex_init(&st->lock, NULL);
	if (dir == NULL) {
		if ((tmp = getenv("TMPDIR")) == NULL || tmp[0] != '/')
			tmp = "/tmp";
		tmpl = sc_xasprintf("%s/sc-serve-artifacts-XXXXXX", tmp);
		if (mkdtemp(tmpl) == NULL) {
			sc_error_set_errno(err, SC_ST_IO, errno,
			    "cannot create an artifact directory in '%s'", tmp);
			free(tmpl);
			goto fail;
		}
		dir = tmpl;
	} else if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot create artifact directory '%s'", dir);
		goto fail;
	}
	st->dir = realpath(dir, NULL);
	if (st->dir == NULL) {
		sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot use artifact directory '%s'", dir);
		if (tmpl != NULL)
			rmdir(tmpl);
		free(tmpl);
		goto fail;
	}
	st->owned = tmpl != NULL;
	free(tmpl);
	st->rootfd = open(st->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (st->rootfd == -1 || fstat(st->rootfd, &sb) == -1) {
		sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot open artifact directory '%s'", st->dir);
		goto fail;
	}
	if (sb.st_uid != geteuid() || (sb.st_mode & 077) != 0) {
		sc_error_set(err, SC_ST_IO,
		    "artifact directory '%s' must belong to this user and be private to it (it has mode %04o%s); chmod 700 it",
		    st->dir, (unsigned)(sb.st_mode & 07777),
		    sb.st_uid != geteuid() ? " and another owner" : "");
		goto fail;
	}
	st->lockfd = openat(st->rootfd, LOCK_FILE,
	    O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (st->lockfd == -1) {
		sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot create '%s/%s'", st->dir, LOCK_FILE);
		goto fail;
	}
	if (flock(st->lockfd, LOCK_EX | LOCK_NB) == -1) {
		if (errno == EWOULDBLOCK)
			sc_error_set(err, SC_ST_IO,
			    "artifact directory '%s' is in use by another sc-serve",
			    st->dir);
		else
			sc_error_set_errno(err, SC_ST_IO, errno,
			    "cannot lock '%s/%s'", st->dir, LOCK_FILE);
		close(st->lockfd);
		st->lockfd = -1; /* not ours: leave it */
		goto fail;
	}
	/* Session directories of a server that did not stop cleanly. */
	if (!st->owned && (fd = dup(st->rootfd)) != -1) {
		if ((d = fdopendir(fd)) == NULL)
			close(fd);
		else {
			while ((de = readdir(d)) != NULL)
				if (sc_uuid_valid(de->d_name) &&
				    fstatat(st->rootfd, de->d_name, &sb,
					AT_SYMLINK_NOFOLLOW) == 0 &&
				    S_ISDIR(sb.st_mode) &&
				    sc_artifact_rm_tree(st->rootfd, de->d_name,
					0) == 0)
					stale++;
			closedir(d);
		}
		if (stale > 0)
			sc_info(
			    "removed the artifacts of %zu session%s an earlier server left in '%s'",
			    stale, stale == 1 ? "" : "s", st->dir);
	}
	return st;
fail:
	sc_artifact_store_free(st);
	return NULL;
}

void
sc_artifact_store_free(struct sc_artifact_store *st)
{
	struct record *r, *next;
	size_t i;

	if (st == NULL)
		return;
	for (i = 0; i < NBUCKETS; i++)
		for (r = st->b[i]; r != NULL; r = next) {
			next = r->next;
			if (st->rootfd != -1 &&
			    sc_artifact_rm_tree(st->rootfd, r->ssid, 0) == -1)
				sc_warn(
				    "cannot remove the artifacts of session %s in '%s'",
				    r->ssid, st->dir);
			rec_free(r);
		}
	if (st->lockfd != -1) {
		if (st->rootfd != -1)
			unlinkat(st->rootfd, LOCK_FILE, 0);
		close(st->lockfd);
	}
	if (st->rootfd != -1)
		close(st->rootfd);
	if (st->owned && st->dir != NULL &&
	    sc_artifact_rm_tree(AT_FDCWD, st->dir, 0) == -1)
		sc_warn("cannot remove artifact directory '%s': %s", st->dir,
		    strerror(errno));
	free(st->dir);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

const char *
sc_artifact_store_dir(const struct sc_artifact_store *st)
{
	return st->dir;
}

/* ------------------------------------------------------------ uploads */

/* The session of up was closed (the handle is the client's id). */
static int
session_closed(struct sc_error *err, const struct sc_artifact_upload *up)
{
	return sc_srv_error(err, "INVALID_HANDLE.SESSION_CLOSED", "HY000",
	    "The handle `%s` is invalid. Session was closed.", up->handle);
}

struct sc_artifact_upload *
sc_artifact_upload_new(struct sc_artifact_store *st, struct sc_session *s,
    struct sc_error *err)
{
	struct sc_artifact_upload *up;
	struct record *r;
	int e;

	pthread_mutex_lock(&st->lock);
	/*
	 * Checked under the store lock: a session closed after this has
	 * its record removed (and its directory) after this too.
	 */
	if (sc_session_is_closed(s)) {
		pthread_mutex_unlock(&st->lock);
		sc_srv_error(err, "INVALID_HANDLE.SESSION_CLOSED", "HY000",
		    "The handle `%s` is invalid. Session was closed.",
		    s->session_id);
		return NULL;
	}
	if ((r = rec_find(st, s->server_side_id)) == NULL) {
		r = sc_xcalloc(1, sizeof(*r));
		snprintf(r->ssid, sizeof(r->ssid), "%s", s->server_side_id);
		pthread_mutex_init(&r->lock, NULL);
		atomic_init(&r->closed, false);
		r->refs = 1; /* the table's */
		r->next = st->b[bucket(r->ssid)];
		st->b[bucket(r->ssid)] = r;
	}
	r->refs++;
	pthread_mutex_unlock(&st->lock);

	up = sc_xcalloc(1, sizeof(*up));
	up->st = st;
	up->rec = r;
	snprintf(up->handle, sizeof(up->handle), "%s", s->session_id);
	pthread_mutex_lock(&r->lock);
	if (atomic_load(&r->closed)) {
		pthread_mutex_unlock(&r->lock);
		session_closed(err, up);
		up->dirfd = -1;
		sc_artifact_upload_free(up);
		return NULL;
	}
	if (mkdirat(st->rootfd, r->ssid, 0700) == -1 && errno != EEXIST)
		up->dirfd = -1;
	else
		up->dirfd = openat(st->rootfd, r->ssid,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	e = errno;
	pthread_mutex_unlock(&r->lock);
	if (up->dirfd == -1) {
		sc_warn("artifact store: cannot open '%s/%s': %s", st->dir,
		    r->ssid, strerror(e));
		if (sc_artifact_is_full(e)) {
			sc_srv_error(err, "ARTIFACT_STORE_FULL", "53100",
			    "Cannot store artifacts: the artifact store is out of space (%s).",
			    strerror(e));
			if (err != NULL)
				err->rpc_code = SC_GRPC_RESOURCE_EXHAUSTED;
		} else
			sc_srv_error(err, "INTERNAL_ERROR", "XX000",
			    "Cannot store artifacts: %s.", strerror(e));
		sc_artifact_upload_free(up);
		return NULL;
	}
	return up;
}

/* Drop a staged artifact's file and quota; record lock not held. */
static void
unstage(struct sc_artifact_upload *up, struct staged *a)
{
	if (a->fd != -1) {
		close(a->fd);
		a->fd = -1;
	}
	if (a->on_disk) {
		unlinkat(up->dirfd, a->tmp, 0);
		a->on_disk = false;
	}
	if (a->reserved) {
		pthread_mutex_lock(&up->rec->lock);
		up->rec->staged_files -= a->res_files;
		up->rec->staged_bytes -= a->res_bytes;
		pthread_mutex_unlock(&up->rec->lock);
		atomic_fetch_sub(&up->st->bytes, a->res_bytes);
		a->reserved = false;
	}
}

void
sc_artifact_upload_free(struct sc_artifact_upload *up)
{
	size_t i;

	if (up == NULL)
		return;
	for (i = 0; i < up->n; i++) {
		unstage(up, &up->v[i]);
		free(up->v[i].name);
		free(up->v[i].path);
	}
	free(up->v);
	free(up->sum);
	if (up->dirfd != -1)
		close(up->dirfd);
	rec_unref(up->st, up->rec);
	free(up);
}

static int
fail(struct sc_artifact_upload *up)
{
	up->failed = true;
	return -1;
}

/* A stream error of sctk's own class INVALID_ARTIFACT_STREAM.sub. */
static int __attribute__((format(printf, 4, 5)))
stream_error(struct sc_artifact_upload *up, struct sc_error *err,
    const char *sub, const char *fmt, ...)
{
	char cls[64], text[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(cls, sizeof(cls), "INVALID_ARTIFACT_STREAM.%s", sub);
	sc_srv_error(err, cls, NULL, "%s", text);
	return fail(up);
}

static int
refuse_failed(struct sc_artifact_upload *up, struct sc_error *err)
{
	return sc_srv_error(err, "INTERNAL_ERROR", "XX000",
	    "The artifact upload of session %s already failed.", up->rec->ssid);
}

/* A limit error: ARTIFACT_LIMIT_EXCEEDED.sub, RESOURCE_EXHAUSTED. */
static int __attribute__((format(printf, 4, 5)))
limit_error(struct sc_artifact_upload *up, struct sc_error *err,
    const char *sub, const char *fmt, ...)
{
	char cls[64], text[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(cls, sizeof(cls), "ARTIFACT_LIMIT_EXCEEDED.%s", sub);
	sc_srv_error(err, cls, "54000", "%s", text);
	if (err != NULL)
		err->rpc_code = SC_GRPC_RESOURCE_EXHAUSTED;
	return fail(up);
}

/*
 * Reserve n more bytes under limits.store_bytes: 0, or -1 when the
 * artifacts of all sessions would pass it.
 */
static int
store_reserve(struct sc_artifact_store *st, int64_t n)
{
	int64_t cur = atomic_load(&st->bytes);

	do {
		if (st->lim.store_bytes >= 0 && n > 0 &&
		    n > st->lim.store_bytes - cur)
			return -1;
	} while (!atomic_compare_exchange_weak(&st->bytes, &cur, cur + n));
	return 0;
}

static int
store_full(struct sc_artifact_upload *up, struct sc_error *err,
    const char *shown, int64_t size)
{
	sc_srv_error(err, "ARTIFACT_STORE_FULL", "53100",
	    "Cannot store artifact `%s` of %" PRId64
	    " bytes: the artifacts of all sessions would pass the store's limit of %" PRId64
	    " bytes (sctk.artifact.maxStoreBytes). Release sessions that no longer need theirs.",
	    shown, size, up->st->lim.store_bytes);
	if (err != NULL)
		err->rpc_code = SC_GRPC_RESOURCE_EXHAUSTED;
	return fail(up);
}

/*
 * Append a new artifact: name checked, size reserved in the quota.  A
 * name already stored needs no new file and only the bytes it grows by,
 * so an upload repeated at the limit still goes through.
 */
static struct staged *
add_staged(struct sc_artifact_upload *up, const char *name, int64_t size,
    struct sc_error *err)
{
	const struct sc_artifact_limits *lim = &up->st->lim;
	struct record *r = up->rec;
	char shown[SHOW_MAX + 16], *path;
	int64_t need_files = 1, need_bytes = size;
	struct staged *a;
	struct parsed p;
	bool found;
	size_t i;
	int rc = 0;

	if (sc_artifact_parse_name(name, strlen(name), &p, err) == -1) {
		fail(up);
		return NULL;
	}
	sc_artifact_show_name(name, strlen(name), shown, sizeof(shown));
	if (lim->max_size >= 0 && size > lim->max_size) {
		limit_error(up, err, "SIZE",
		    "Artifact `%s` has %" PRId64 " bytes, more than the "
		    "limit of %" PRId64 " bytes per artifact "
		    "(sctk.artifact.maxSize).",
		    shown, size, lim->max_size);
		return NULL;
	}
	path = sc_xstrndup(name, p.store_len);
	pthread_mutex_lock(&r->lock);
	i = entry_pos(r, path, &found);
	if (found) {
		need_files = 0;
		need_bytes = size > r->v[i]->size ? size - r->v[i]->size : 0;
	}
	if (atomic_load(&r->closed))
		rc = session_closed(err, up);
	else if (lim->session_files >= 0 && need_files > 0 &&
	    r->used_files + r->staged_files >= lim->session_files)
		rc = limit_error(up, err, "SESSION_FILES",
		    "Artifact `%s` would pass the limit of %" PRId64
		    " artifacts per session (sctk.artifact.maxSessionFiles).",
		    shown, lim->session_files);
	else if (lim->session_bytes >= 0 &&
	    need_bytes > lim->session_bytes - r->used_bytes - r->staged_bytes)
		rc = limit_error(up, err, "SESSION_BYTES",
		    "Artifact `%s` of %" PRId64 " bytes would take this "
		    "session's artifacts past the limit of %" PRId64
		    " bytes (sctk.artifact.maxSessionBytes).",
		    shown, size, lim->session_bytes);
	else if (store_reserve(up->st, need_bytes) == -1)
		rc = store_full(up, err, shown, size);
	else {
		r->staged_files += need_files;
		r->staged_bytes += need_bytes;
	}
	pthread_mutex_unlock(&r->lock);
	if (rc == -1) {
		free(path);
		fail(up);
		return NULL;
	}

	if (up->n == up->cap) {
		up->cap = up->cap ? 2 * up->cap : 16;
		up->v = sc_xreallocarray(up->v, up->cap, sizeof(*up->v));
	}
	a = &up->v[up->n++];
	memset(a, 0, sizeof(*a));
	a->fd = -1;
	a->reserved = true;
	a->res_files = need_files;
	a->res_bytes = need_bytes;
	a->total = size;
	a->name = sc_xstrdup(name);
	a->path = path;
	a->pre = p.pre;
	a->crc_ok = true;
	return a;
}

/* Create a's staging file beneath the session's directory. */
static int
stage_open(struct sc_artifact_upload *up, struct staged *a,
    struct sc_error *err)
{
	uint64_t rnd;
	int i, e = EEXIST;

	pthread_mutex_lock(&up->rec->lock);
	if (atomic_load(&up->rec->closed)) {
		pthread_mutex_unlock(&up->rec->lock);
		session_closed(err, up);
		return fail(up);
	}
	for (i = 0; i < 16 && a->fd == -1 && e == EEXIST; i++) {
		if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			rnd =
			    (uint64_t)sc_mono_ms() * 2654435761u + (uint64_t)i;
		snprintf(a->tmp, sizeof(a->tmp), "%s%016" PRIx64, STAGE_PREFIX,
		    rnd);
		a->fd = openat(up->dirfd, a->tmp,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		e = errno;
	}
	pthread_mutex_unlock(&up->rec->lock);
	if (a->fd == -1) {
		sc_artifact_io_error(err, a->name, "create a staging file", e);
		return fail(up);
	}
	a->on_disk = true;
	return 0;
}

static int
stage_write(struct sc_artifact_upload *up, struct staged *a, const void *data,
    size_t len, struct sc_error *err)
{
	const char *p = data;
	ssize_t n;

	while (len > 0) {
		n = write(a->fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			sc_artifact_io_error(err, a->name, "write", errno);
			return fail(up);
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int
stage_close(struct sc_artifact_upload *up, struct staged *a,
    struct sc_error *err)
{
	int fd = a->fd;

	a->fd = -1;
	a->complete = true;
	if (close(fd) == -1) {
		sc_artifact_io_error(err, a->name, "write", errno);
		return fail(up);
	}
	return 0;
}

static bool
crc_matches(const void *data, size_t len, int64_t crc)
{
	return crc >= 0 && crc <= (int64_t)UINT32_MAX &&
	    sc_crc32_update(0, data, len) == (uint32_t)crc;
}

/* A new artifact while a chunked one is open. */
static int
still_open(struct sc_artifact_upload *up, const char *name,
    struct sc_error *err)
{
	const struct staged *a = &up->v[up->open - 1];
	char shown[SHOW_MAX + 16], cur[SHOW_MAX + 16];

	sc_artifact_show_name(name, strlen(name), shown, sizeof(shown));
	sc_artifact_show_name(a->name, strlen(a->name), cur, sizeof(cur));
	return stream_error(up, err, "CHUNKED_ARTIFACT_OPEN",
	    "Artifact `%s` began while chunked artifact `%s` was still "
	    "open: %" PRId64 " of its %" PRId64 " chunks have arrived.",
	    shown, cur, a->chunks, a->nchunks);
}

int
sc_artifact_upload_single(struct sc_artifact_upload *up, const char *name,
    const void *data, size_t len, int64_t crc, struct sc_error *err)
{
	struct staged *a;

	if (up->failed)
		return refuse_failed(up, err);
	if (up->open != 0)
		return still_open(up, name, err);
	up->last_chunked = 0;
	if ((a = add_staged(up, name, (int64_t)len, err)) == NULL ||
	    stage_open(up, a, err) == -1 ||
	    stage_write(up, a, data, len, err) == -1)
		return -1;
	a->bytes = (int64_t)len;
	a->crc_ok = crc_matches(data, len, crc);
	return stage_close(up, a, err);
}

/* Append one chunk to the open chunked artifact a. */
static int
take_chunk(struct sc_artifact_upload *up, struct staged *a, const void *data,
    size_t len, int64_t crc, struct sc_error *err)
{
	char shown[SHOW_MAX + 16];

	sc_artifact_show_name(a->name, strlen(a->name), shown, sizeof(shown));
	if (atomic_load(&up->rec->closed)) {
		session_closed(err, up);
		return fail(up);
	}
	if ((int64_t)len > a->total - a->bytes)
		return stream_error(up, err, "SIZE_MISMATCH",
		    "Chunked artifact `%s` declared %" PRId64
		    " bytes, but chunk %" PRId64 " of %" PRId64
		    " brings it to %" PRId64 " bytes.",
		    shown, a->total, a->chunks + 1, a->nchunks,
		    a->bytes + (int64_t)len);
	if (stage_write(up, a, data, len, err) == -1)
		return -1;
	a->bytes += (int64_t)len;
	a->chunks++;
	if (!crc_matches(data, len, crc))
		a->crc_ok = false;
	if (a->chunks < a->nchunks)
		return 0;
	up->open = 0;
	up->last_chunked = (size_t)(a - up->v) + 1;
	if (a->bytes != a->total)
		return stream_error(up, err, "SIZE_MISMATCH",
		    "Missing data for artifact: %s. All %" PRId64
		    " declared chunks arrived, with %" PRId64 " of the %" PRId64
		    " declared bytes.",
		    shown, a->nchunks, a->bytes, a->total);
	return stage_close(up, a, err);
}

int
sc_artifact_upload_begin(struct sc_artifact_upload *up, const char *name,
    int64_t total_bytes, int64_t num_chunks, const void *data, size_t len,
    int64_t crc, struct sc_error *err)
{
	char shown[SHOW_MAX + 16];
	struct staged *a;

	if (up->failed)
		return refuse_failed(up, err);
	if (up->open != 0)
		return still_open(up, name, err);
	up->last_chunked = 0;
	if (num_chunks < 1 || total_bytes < 0) {
		sc_artifact_show_name(name, strlen(name), shown, sizeof(shown));
		return stream_error(up, err, "BAD_HEADER",
		    "Chunked artifact `%s` declares %" PRId64
		    " bytes in %" PRId64 " chunks; it needs at least one "
		    "chunk and no negative size.",
		    shown, total_bytes, num_chunks);
	}
	if ((a = add_staged(up, name, total_bytes, err)) == NULL ||
	    stage_open(up, a, err) == -1)
		return -1;
	a->chunked = true;
	a->nchunks = num_chunks;
	up->open = up->n;
	return take_chunk(up, a, data, len, crc, err);
}

int
sc_artifact_upload_chunk(struct sc_artifact_upload *up, const void *data,
    size_t len, int64_t crc, struct sc_error *err)
{
	char shown[SHOW_MAX + 16];
	const struct staged *a;

	if (up->failed)
		return refuse_failed(up, err);
	if (up->open != 0)
		return take_chunk(up, &up->v[up->open - 1], data, len, crc,
		    err);
	if (up->last_chunked != 0) {
		a = &up->v[up->last_chunked - 1];
		sc_artifact_show_name(a->name, strlen(a->name), shown,
		    sizeof(shown));
		return stream_error(up, err, "EXCESS_CHUNKS",
		    "Excessive data chunks for artifact: %s, expected "
		    "%" PRId64 " chunks in total. Processed %" PRId64
		    " bytes out of %" PRId64 " bytes.",
		    shown, a->nchunks, a->bytes, a->total);
	}
	return stream_error(up, err, "NO_CHUNKED_ARTIFACT",
	    "An ArtifactChunk arrived with no chunked artifact open; a "
	    "BeginChunkedArtifact must come first.");
}

/* Why a staged artifact was not stored (commit_one()). */
enum conflict {
	NO_CONFLICT,
	OTHER_BYTES, /* a different artifact of that name is stored */
	A_DIRECTORY /* the name is a directory of other artifacts */
};

/*
 * Move one staged artifact into place; record lock held.  *dup is set
 * (and nothing moved) when the name is taken (enum conflict).
 */
static int
commit_one(struct sc_artifact_upload *up, struct staged *a, enum conflict *dup,
    struct sc_error *err)
{
	struct record *r = up->rec;
	struct stat sb;
	const char *base;
	char *copy;
	bool same;
	int pfd, rc = -1;

	*dup = NO_CONFLICT;
	copy = sc_xstrdup(a->path);
	pfd =
	    sc_artifact_open_parent(up->dirfd, copy, &base, true, a->name, err);
	if (pfd == -1) {
		free(copy);
		return -1;
	}
	if (fstatat(pfd, base, &sb, AT_SYMLINK_NOFOLLOW) == -1) {
		if (errno != ENOENT) {
			sc_artifact_io_error(err, a->name,
			    "look at the stored artifact", errno);
			goto out;
		}
	} else if (S_ISLNK(sb.st_mode)) {
		sc_artifact_bad_name(err, a->name, strlen(a->name),
		    "it is a symbolic link in the session's store");
		goto out;
	} else if (!S_ISREG(sb.st_mode)) {
		*dup = S_ISDIR(sb.st_mode) ? A_DIRECTORY : OTHER_BYTES;
		rc = 0;
		goto out;
	} else if (!a->pre->replace) {
		if (sc_artifact_same_content(up->dirfd, a->tmp, pfd, base,
			a->name, &same, err) == -1)
			goto out;
		if (!same)
			*dup = OTHER_BYTES;
		else {
			/* Idempotent: the stored file stays as it is. */
			unlinkat(up->dirfd, a->tmp, 0);
			a->on_disk = false;
			entry_put(r, a->path, a->bytes);
		}
		rc = 0;
		goto out;
	}
	if (renameat(up->dirfd, a->tmp, pfd, base) == -1) {
		sc_artifact_io_error(err, a->name,
		    "move the artifact into place", errno);
		goto out;
	}
	a->on_disk = false;
	entry_put(r, a->path, a->bytes);
	rc = 0;
out:
	if (pfd != up->dirfd)
		close(pfd);
	free(copy);
	return rc;
}

int
sc_artifact_upload_commit(struct sc_artifact_upload *up,
    const struct sc_artifact_summary **v, size_t *n, struct sc_error *err)
{
	struct record *r = up->rec;
	struct staged *a, *first_dup = NULL;
	char shown[SHOW_MAX + 16];
	int64_t used0, released = 0;
	size_t i, ndup = 0;
	enum conflict dup, first = NO_CONFLICT;
	int rc = 0;

	if (up->failed)
		return refuse_failed(up, err);
	if (up->open != 0) {
		a = &up->v[up->open - 1];
		sc_artifact_show_name(a->name, strlen(a->name), shown,
		    sizeof(shown));
		return stream_error(up, err, "UNFINISHED",
		    "The stream ended before chunked artifact `%s` was "
		    "complete: %" PRId64 " of %" PRId64 " chunks and "
		    "%" PRId64 " of %" PRId64 " bytes arrived; nothing of "
		    "this call was stored.",
		    shown, a->chunks, a->nchunks, a->bytes, a->total);
	}
	up->failed = true; /* a commit happens once */
	pthread_mutex_lock(&r->lock);
	if (atomic_load(&r->closed)) {
		pthread_mutex_unlock(&r->lock);
		return session_closed(err, up);
	}
	used0 = r->used_bytes;
	for (i = 0; i < up->n && rc == 0; i++) {
		a = &up->v[i];
		/* The quota now counts it as stored, or not at all. */
		r->staged_files -= a->res_files;
		r->staged_bytes -= a->res_bytes;
		released += a->res_bytes;
		a->reserved = false;
		if (!a->crc_ok)
			continue; /* dropped by unstage() below */
		rc = commit_one(up, a, &dup, err);
		if (rc == 0 && dup != NO_CONFLICT && ndup++ == 0) {
			first_dup = a;
			first = dup;
		}
	}
	atomic_fetch_add(&up->st->bytes, r->used_bytes - used0 - released);
	pthread_mutex_unlock(&r->lock);
	for (i = 0; i < up->n; i++)
		unstage(up, &up->v[i]);
	if (rc == -1)
		return -1;
	if (first_dup != NULL) {
		sc_artifact_show_name(first_dup->path, strlen(first_dup->path),
		    shown, sizeof(shown));
		if (first == A_DIRECTORY)
			return sc_srv_error(err, "ARTIFACT_ALREADY_EXISTS",
			    "42713",
			    "The artifact `%s` cannot be stored: a directory of that name holds other artifacts of this session (`%s/...`). Please choose a different name for the new artifact.%s",
			    shown, shown,
			    ndup > 1
				? " (Other artifacts of this call exist with other content.)"
				: "");
		if (ndup == 1)
			return sc_srv_error(err, "ARTIFACT_ALREADY_EXISTS",
			    "42713",
			    "The artifact `%s` already exists. Please choose a different name for the new artifact because it cannot be overwritten.",
			    shown);
		return sc_srv_error(err, "ARTIFACT_ALREADY_EXISTS", "42713",
		    "The artifact `%s` already exists. Please choose a different name for the new artifact because it cannot be overwritten. (%zu more artifacts of this call exist with other content.)",
		    shown, ndup - 1);
	}
	up->sum = sc_xcalloc(up->n ? up->n : 1, sizeof(*up->sum));
	for (i = 0; i < up->n; i++) {
		up->sum[i].name = up->v[i].name;
		up->sum[i].crc_ok = up->v[i].crc_ok;
	}
	*v = up->sum;
	*n = up->n;
	return 0;
}

/* ------------------------------------------------------------ sessions */

void
sc_artifact_session_closed(struct sc_artifact_store *st,
    const char *server_side_id)
{
	struct record **pp, *r = NULL;

	pthread_mutex_lock(&st->lock);
	for (pp = &st->b[bucket(server_side_id)]; *pp != NULL;
	     pp = &(*pp)->next)
		if (strcmp((*pp)->ssid, server_side_id) == 0) {
			r = *pp;
			*pp = r->next;
			break;
		}
	pthread_mutex_unlock(&st->lock);
	if (r == NULL)
		return;
	pthread_mutex_lock(&r->lock);
	atomic_store(&r->closed, true);
	atomic_fetch_sub(&st->bytes, r->used_bytes);
	r->used_bytes = 0;
	if (sc_artifact_rm_tree(st->rootfd, r->ssid, 0) == -1)
		sc_warn("cannot remove the artifacts of session %s in '%s'",
		    r->ssid, st->dir);
	pthread_mutex_unlock(&r->lock);
	rec_unref(st, r);
}

bool
sc_artifact_cached(struct sc_artifact_store *st, const char *server_side_id,
    const char *name)
{
	struct record *r;
	bool found = false;

	if (strncmp(name, "cache/", 6) != 0 ||
	    sc_artifact_check_name(name, strlen(name), NULL) == -1)
		return false;
	pthread_mutex_lock(&st->lock);
	if ((r = rec_find(st, server_side_id)) != NULL) {
		pthread_mutex_lock(&r->lock);
		(void)entry_pos(r, name, &found);
		pthread_mutex_unlock(&r->lock);
	}
	pthread_mutex_unlock(&st->lock);
	return found;
}

bool
sc_artifact_session_used(struct sc_artifact_store *st,
    const char *server_side_id)
{
	struct record *r;
	bool used = false;

	pthread_mutex_lock(&st->lock);
	if ((r = rec_find(st, server_side_id)) != NULL) {
		pthread_mutex_lock(&r->lock);
		used = r->n > 0 || r->staged_files > 0 || r->staged_bytes > 0 ||
		    r->refs > 1;
		pthread_mutex_unlock(&r->lock);
	}
	pthread_mutex_unlock(&st->lock);
	return used;
}

void
sc_artifact_store_totals(struct sc_artifact_store *st, int64_t *files,
    int64_t *bytes)
{
	struct record *r;
	size_t i;

	*files = *bytes = 0;
	if (st == NULL)
		return;
	pthread_mutex_lock(&st->lock);
	for (i = 0; i < NBUCKETS; i++)
		for (r = st->b[i]; r != NULL; r = r->next) {
			pthread_mutex_lock(&r->lock);
			*files += (int64_t)r->n;
			*bytes += r->used_bytes;
			pthread_mutex_unlock(&r->lock);
		}
	pthread_mutex_unlock(&st->lock);
}

void
sc_artifact_list(struct sc_artifact_store *st, const char *server_side_id,
    struct sc_artifact_info **v, size_t *n)
{
	struct record *r;
	size_t i;

	*v = NULL;
	*n = 0;
	pthread_mutex_lock(&st->lock);
	if ((r = rec_find(st, server_side_id)) != NULL) {
		pthread_mutex_lock(&r->lock);
		if (r->n > 0) {
			*v = sc_xcalloc(r->n, sizeof(**v));
			for (i = 0; i < r->n; i++) {
				(*v)[i].name = sc_xstrdup(r->v[i]->name);
				(*v)[i].size = r->v[i]->size;
				(*v)[i].stored_ms = r->v[i]->stored_ms;
			}
			*n = r->n;
		}
		pthread_mutex_unlock(&r->lock);
	}
	pthread_mutex_unlock(&st->lock);
}

void
sc_artifact_list_free(struct sc_artifact_info *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

static int
not_found(struct sc_error *err, const char *name)
{
	char shown[SHOW_MAX + 16];

	sc_artifact_show_name(name, strlen(name), shown, sizeof(shown));
	return sc_srv_error(err, "PATH_NOT_FOUND", "42K03",
	    "Path does not exist: `%s`.", shown);
}

int
sc_artifact_path(struct sc_artifact_store *st, struct sc_session *s,
    const char *name, int *fdp, char *path, size_t pathsz, struct sc_error *err)
{
	struct record *r;
	struct parsed p;
	struct stat sb;
	const char *base;
	char *copy = NULL;
	int sfd = -1, pfd = -1, fd = -1, rc = -1;
	bool found = false;

	if (sc_artifact_parse_name(name, strlen(name), &p, err) == -1)
		return -1;
	if (!p.pre->files)
		return sc_artifact_bad_name(err, name, strlen(name),
		    "only files/ and cache/ artifacts can be read as data");
	if (st == NULL)
		return not_found(err, name);
	pthread_mutex_lock(&st->lock);
	if ((r = rec_find(st, s->server_side_id)) != NULL)
		r->refs++;
	pthread_mutex_unlock(&st->lock);
	if (r == NULL)
		return not_found(err, name);

	pthread_mutex_lock(&r->lock);
	if (!atomic_load(&r->closed))
		(void)entry_pos(r, name, &found);
	if (!found) {
		not_found(err, name);
		goto out;
	}
	sfd = openat(st->rootfd, r->ssid,
	    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd == -1) {
		sc_artifact_io_error(err, name, "open the session's directory",
		    errno);
		goto out;
	}
	copy = sc_xstrdup(name);
	pfd = sc_artifact_open_parent(sfd, copy, &base, false, name, err);
	if (pfd == -2)
		not_found(err, name);
	if (pfd < 0)
		goto out;
	fd = openat(pfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1 && errno == ENOENT)
		not_found(err, name);
	else if (fd == -1 || fstat(fd, &sb) == -1)
		sc_artifact_io_error(err, name, "open the artifact", errno);
	else if (!S_ISREG(sb.st_mode))
		sc_artifact_bad_name(err, name, strlen(name),
		    "it is not a regular file in the session's store");
	else if (path != NULL &&
	    (size_t)snprintf(path, pathsz, "%s/%s/%s", st->dir, r->ssid,
		name) >= pathsz)
		sc_srv_error(err, "INTERNAL_ERROR", "XX000",
		    "The path of an artifact is longer than %zu bytes.",
		    pathsz);
	else
		rc = 0;
out:
	pthread_mutex_unlock(&r->lock);
	if (pfd >= 0 && pfd != sfd)
		close(pfd);
	if (sfd != -1)
		close(sfd);
	if (rc == 0 && fdp != NULL)
		*fdp = fd;
	else if (fd != -1)
		close(fd);
	free(copy);
	rec_unref(st, r);
	return rc;
}
