/* SPDX-License-Identifier: MIT */

/*
 * source.c: where sc-upload reads artifacts from.  A regular file is read
 * in place with pread(), so a re-send reads it again from the start; a
 * pipe or standard input can be read only once, so it is copied to an
 * unlinked temporary file first; a URL is fetched by libcurl on a thread
 * of its own, which writes the body into a pipe the upload reads, so a
 * large body never sits in memory.  When the response does not say its
 * length the body is copied to a temporary file first, because
 * BeginChunkedArtifact needs the size before the first byte.
 */

#include "sc-upload.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>
#include <openssl/evp.h>

#include "core/crc.h"
#include "core/error.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "core/banned.h"

/* Read size of copies and hashing. */
#define IO_BUF (256 * 1024)
#define CONNECT_TIMEOUT_MS 30000L
/* A fetch that moves less than 1 byte/s for this long is abandoned. */
#define STALL_SECS 60L
#define MAX_REDIRS 5L

enum src_type { SRC_FILE = 0, SRC_STDIN, SRC_URL };

/* A URL being fetched by a thread into a pipe. */
struct fetch {
	CURL *h;
	pthread_t thr;
	int rfd, wfd;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool ready; /* the length is known, or the fetch is over */
	bool done;
	bool joined;
	atomic_bool abort;
	curl_off_t length; /* -1: not given */
	CURLcode rc;
	char errbuf[CURL_ERROR_SIZE];
};

struct source {
	enum src_type type;
	char *path;
	bool spool_always;
	const struct timespec *deadline;
	int fd; /* the file, standard input or the spool; -1 */
	bool keep; /* fd stays open between passes */
	bool spooled;
	uint64_t start; /* offset of the first byte in fd */
	uint64_t size, off;
	struct fetch *f; /* a URL streaming now */
};

bool
source_is_url(const char *path)
{
	return strncasecmp(path, "http://", 7) == 0 ||
	    strncasecmp(path, "https://", 8) == 0 ||
	    strncasecmp(path, "file://", 7) == 0;
}

struct source *
source_new(const char *path, bool spool, const struct timespec *deadline)
{
	struct source *s = sc_xcalloc(1, sizeof(*s));

	s->path = sc_xstrdup(path);
	s->type = strcmp(path, "-") == 0 ? SRC_STDIN
	    : source_is_url(path)	 ? SRC_URL
					 : SRC_FILE;
	s->spool_always = spool;
	s->deadline = deadline;
	s->fd = -1;
	return s;
}

static const char *
what(const struct source *s)
{
	return s->type == SRC_STDIN ? "standard input" : s->path;
}

int
source_check(const struct source *s, struct sc_error *err)
{
	struct stat st;

	if (s->type != SRC_FILE)
		return 0;
	if (stat(s->path, &st) == -1)
		return sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot read '%s'", s->path);
	if (S_ISDIR(st.st_mode))
		return sc_error_set(err, SC_ST_IO,
		    "cannot upload '%s': it is a directory", s->path);
	if (access(s->path, R_OK) == -1)
		return sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot read '%s'", s->path);
	return 0;
}

int64_t
source_known_size(const struct source *s)
{
	struct stat st;

	if (s->spooled)
		return (int64_t)s->size;
	if (s->type == SRC_FILE && stat(s->path, &st) == 0 &&
	    S_ISREG(st.st_mode))
		return (int64_t)st.st_size;
	return -1;
}

/* ------------------------------------------------------------ spooling */

static int
spool_create(const struct source *s, struct sc_error *err)
{
	const char *dir = getenv("TMPDIR");
	char *tmpl;
	int fd;

	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	tmpl = sc_xasprintf("%s/sc-upload-XXXXXX", dir);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd == -1) {
		sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot make a temporary file in '%s' for '%s'", dir,
		    what(s));
		free(tmpl);
		return -1;
	}
	(void)unlink(tmpl);
	free(tmpl);
	return fd;
}

static int
write_all(int fd, const uint8_t *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copy what can be read from in to a new spool, which becomes s's fd. */
static int
spool_from(struct source *s, int in,
    int (*check)(struct source *, struct sc_error *), struct sc_error *err)
{
	uint8_t *buf;
	uint64_t total = 0;
	ssize_t r;
	int out;

	if ((out = spool_create(s, err)) == -1)
		return -1;
	buf = sc_xmalloc(IO_BUF);
	for (;;) {
		r = read(in, buf, IO_BUF);
		if (r == 0)
			break;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			sc_error_set_errno(err, SC_ST_IO, errno,
			    "cannot read '%s'", what(s));
			goto fail;
		}
		if (write_all(out, buf, (size_t)r) == -1) {
			sc_error_set_errno(err, SC_ST_IO, errno,
			    "cannot copy '%s' to a temporary file", what(s));
			goto fail;
		}
		total += (uint64_t)r;
	}
	if (check != NULL && check(s, err) == -1)
		goto fail;
	free(buf);
	s->fd = out;
	s->keep = true;
	s->spooled = true;
	s->start = 0;
	s->size = total;
	return 0;
fail:
	free(buf);
	close(out);
	return -1;
}

/* --------------------------------------------------------------- fetch */

static void
fetch_signal_ready(struct fetch *f)
{
	pthread_mutex_lock(&f->lock);
	if (!f->ready) {
		if (curl_easy_getinfo(f->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T,
			&f->length) != CURLE_OK)
			f->length = -1;
		f->ready = true;
		pthread_cond_broadcast(&f->cond);
	}
	pthread_mutex_unlock(&f->lock);
}

static size_t
on_body(char *p, size_t size, size_t n, void *arg)
{
	struct fetch *f = arg;

	fetch_signal_ready(f);
	if (atomic_load(&f->abort) || write_all(f->wfd, (uint8_t *)p, n) == -1)
		return 0; /* the reader is gone: abort */
	(void)size;
	return n;
}

static int
on_xfer(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	struct fetch *f = arg;

	(void)dt;
	(void)dn;
	(void)ut;
	(void)un;
	return atomic_load(&f->abort) ? 1 : 0;
}

static void *
fetch_main(void *arg)
{
	struct fetch *f = arg;
	CURLcode rc;

	rc = curl_easy_perform(f->h);
	close(f->wfd);
	f->wfd = -1;
	pthread_mutex_lock(&f->lock);
	f->rc = rc;
	f->done = true;
	if (!f->ready) {
		if (curl_easy_getinfo(f->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T,
			&f->length) != CURLE_OK)
			f->length = -1;
		f->ready = true;
	}
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

/* The fetch's error, once it is over. */
static int
fetch_error(const struct source *s, struct fetch *f, struct sc_error *err)
{
	if (f->rc == CURLE_OK)
		return 0;
	return sc_error_set(err, SC_ST_IO, "cannot fetch '%s': %s", s->path,
	    f->errbuf[0] != '\0' ? f->errbuf : curl_easy_strerror(f->rc));
}

static void
fetch_join(struct fetch *f)
{
	if (!f->joined)
		pthread_join(f->thr, NULL);
	f->joined = true;
}

/* Stop the fetch (if still running) and free it. */
static void
fetch_free(struct fetch *f)
{
	if (f == NULL)
		return;
	atomic_store(&f->abort, true);
	if (f->rfd != -1)
		close(f->rfd);
	f->rfd = -1;
	fetch_join(f);
	curl_easy_cleanup(f->h);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

static struct fetch *
fetch_start(const struct source *s, struct sc_error *err)
{
	struct fetch *f = sc_xcalloc(1, sizeof(*f));
	int p[2], e;
	long ms;

	if (pipe2(p, O_CLOEXEC) == -1) {
		sc_error_set_errno(err, SC_ST_INTERNAL, errno,
		    "cannot make a pipe");
		free(f);
		return NULL;
	}
	f->rfd = p[0];
	f->wfd = p[1];
	f->length = -1;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	if ((f->h = curl_easy_init()) == NULL) {
		sc_error_set(err, SC_ST_INTERNAL, "cannot start libcurl");
		goto fail;
	}
	curl_easy_setopt(f->h, CURLOPT_URL, s->path);
	curl_easy_setopt(f->h, CURLOPT_PROTOCOLS_STR, "http,https,file");
	curl_easy_setopt(f->h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(f->h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(f->h, CURLOPT_MAXREDIRS, MAX_REDIRS);
	curl_easy_setopt(f->h, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(f->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(f->h, CURLOPT_USERAGENT, "sc-upload/" SCTK_VERSION);
	curl_easy_setopt(f->h, CURLOPT_ERRORBUFFER, f->errbuf);
	curl_easy_setopt(f->h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(f->h, CURLOPT_WRITEDATA, f);
	curl_easy_setopt(f->h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(f->h, CURLOPT_XFERINFOFUNCTION, on_xfer);
	curl_easy_setopt(f->h, CURLOPT_XFERINFODATA, f);
	curl_easy_setopt(f->h, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
	curl_easy_setopt(f->h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(f->h, CURLOPT_LOW_SPEED_TIME, STALL_SECS);
	if (s->deadline != NULL) {
		ms = (long)sc_ms_until(s->deadline);
		curl_easy_setopt(f->h, CURLOPT_TIMEOUT_MS, ms > 0 ? ms : 1L);
	}
	/* The thread never takes signals: the signal thread does. */
	if ((e = pthread_create(&f->thr, NULL, fetch_main, f)) != 0) {
		sc_error_set_errno(err, SC_ST_INTERNAL, e,
		    "cannot start a thread to fetch '%s'", s->path);
		goto fail;
	}
	return f;
fail:
	if (f->h != NULL)
		curl_easy_cleanup(f->h);
	close(p[0]);
	close(p[1]);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	free(f);
	return NULL;
}

/* Wait until the fetch knows the body's length, or is over. */
static void
fetch_wait_ready(struct fetch *f)
{
	pthread_mutex_lock(&f->lock);
	while (!f->ready)
		pthread_cond_wait(&f->cond, &f->lock);
	pthread_mutex_unlock(&f->lock);
}

/* After the body's end was read: the fetch must have succeeded. */
static int
fetch_finish(struct source *s, struct sc_error *err)
{
	fetch_join(s->f);
	return fetch_error(s, s->f, err);
}

/* ---------------------------------------------------------- the passes */

static int
src_open_url(struct source *s, uint64_t *size, struct sc_error *err)
{
	struct fetch *f;
	int rc;

	if ((f = fetch_start(s, err)) == NULL)
		return -1;
	fetch_wait_ready(f);
	if (f->done && fetch_error(s, f, err) == -1) {
		fetch_free(f);
		return -1;
	}
	s->f = f;
	if (f->length >= 0 && !s->spool_always) {
		s->size = (uint64_t)f->length;
		s->off = 0;
		*size = s->size;
		return 0;
	}
	/* No length (or --cache): the whole body to a temporary file. */
	rc = spool_from(s, f->rfd, fetch_finish, err);
	fetch_free(f);
	s->f = NULL;
	if (rc == -1)
		return -1;
	s->off = 0;
	*size = s->size;
	return 0;
}

/* A descriptor that is not a regular file: copy it, once. */
static int
src_spool_fd(struct source *s, int fd, struct sc_error *err)
{
	return spool_from(s, fd, NULL, err);
}

static int
src_open(void *arg, uint64_t *size, struct sc_error *err)
{
	struct source *s = arg;
	struct stat st;
	off_t pos;
	int fd;

	s->off = 0;
	if (s->spooled) {
		*size = s->size;
		return 0;
	}
	switch (s->type) {
	case SRC_URL:
		return src_open_url(s, size, err);
	case SRC_STDIN:
		if (fstat(STDIN_FILENO, &st) == -1)
			return sc_error_set_errno(err, SC_ST_IO, errno,
			    "cannot read standard input");
		if (S_ISREG(st.st_mode) &&
		    (pos = lseek(STDIN_FILENO, 0, SEEK_CUR)) >= 0 &&
		    pos <= st.st_size) {
			s->fd = STDIN_FILENO;
			s->keep = true;
			s->start = (uint64_t)pos;
			s->size = (uint64_t)(st.st_size - pos);
			*size = s->size;
			return 0;
		}
		if (src_spool_fd(s, STDIN_FILENO, err) == -1)
			return -1;
		*size = s->size;
		return 0;
	default:
		break;
	}
	while ((fd = open(s->path, O_RDONLY | O_CLOEXEC)) == -1)
		if (errno != EINTR)
			return sc_error_set_errno(err, SC_ST_IO, errno,
			    "cannot read '%s'", s->path);
	if (fstat(fd, &st) == -1) {
		sc_error_set_errno(err, SC_ST_IO, errno, "cannot read '%s'",
		    s->path);
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return sc_error_set(err, SC_ST_IO,
		    "cannot upload '%s': it is a directory", s->path);
	}
	if (!S_ISREG(st.st_mode)) {
		/* A pipe, a device: read it once into a temporary file. */
		if (src_spool_fd(s, fd, err) == -1) {
			close(fd);
			return -1;
		}
		close(fd);
		*size = s->size;
		return 0;
	}
	s->fd = fd;
	s->keep = false;
	s->start = 0;
	s->size = (uint64_t)st.st_size;
	*size = s->size;
	return 0;
}

static ssize_t
src_read(void *arg, void *buf, size_t n, struct sc_error *err)
{
	struct source *s = arg;
	ssize_t r;

	if (s->f != NULL) {
		for (;;) {
			r = read(s->f->rfd, buf, n);
			if (r >= 0)
				break;
			if (errno != EINTR)
				return sc_error_set_errno(err, SC_ST_IO, errno,
				    "cannot read '%s'", s->path);
		}
		if (r == 0 && fetch_finish(s, err) == -1)
			return -1;
		s->off += (uint64_t)r;
		return r;
	}
	for (;;) {
		r = pread(s->fd, buf, n, (off_t)(s->start + s->off));
		if (r >= 0)
			break;
		if (errno != EINTR)
			return sc_error_set_errno(err, SC_ST_IO, errno,
			    "cannot read '%s'", what(s));
	}
	s->off += (uint64_t)r;
	return r;
}

static void
src_close(void *arg)
{
	struct source *s = arg;

	if (s->f != NULL) {
		fetch_free(s->f);
		s->f = NULL;
	}
	if (s->fd != -1 && !s->keep) {
		close(s->fd);
		s->fd = -1;
	}
}

const struct sc_upload_source source_ops = { src_open, src_read, src_close };

void
source_free(struct source *s)
{
	if (s == NULL)
		return;
	src_close(s);
	if (s->fd != -1 && s->fd != STDIN_FILENO)
		close(s->fd);
	free(s->path);
	free(s);
}

int
source_hash(struct source *s, uint8_t digest[32], uint32_t *crc, uint64_t *size,
    struct sc_error *err)
{
	EVP_MD_CTX *md;
	uint8_t *buf;
	uint64_t want, total = 0;
	uint32_t c = 0;
	unsigned int dlen = 0;
	ssize_t r;
	int rc = -1;

	if (src_open(s, &want, err) == -1)
		return -1;
	md = EVP_MD_CTX_new();
	buf = sc_xmalloc(IO_BUF);
	if (md == NULL || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
		sc_error_set(err, SC_ST_INTERNAL, "cannot start SHA-256");
		goto out;
	}
	while ((r = src_read(s, buf, IO_BUF, err)) > 0) {
		if (EVP_DigestUpdate(md, buf, (size_t)r) != 1) {
			sc_error_set(err, SC_ST_INTERNAL, "SHA-256 failed");
			goto out;
		}
		c = sc_crc32_update(c, buf, (size_t)r);
		total += (uint64_t)r;
	}
	if (r < 0)
		goto out;
	if (total != want) {
		sc_error_set(err, SC_ST_IO,
		    "'%s' changed while it was read: %llu bytes, expected %llu",
		    what(s), (unsigned long long)total,
		    (unsigned long long)want);
		goto out;
	}
	if (EVP_DigestFinal_ex(md, digest, &dlen) != 1 || dlen != 32) {
		sc_error_set(err, SC_ST_INTERNAL, "SHA-256 failed");
		goto out;
	}
	*crc = c;
	*size = total;
	rc = 0;
out:
	EVP_MD_CTX_free(md);
	free(buf);
	src_close(s);
	return rc;
}

int
source_global_init(struct sc_error *err)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return sc_error_set(err, SC_ST_INTERNAL,
		    "cannot initialise libcurl");
	return 0;
}

void
source_global_cleanup(void)
{
	curl_global_cleanup();
}
