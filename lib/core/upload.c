/* SPDX-License-Identifier: MIT */

/*
 * upload.c: artifact names, Spark's transfer plan, and AddArtifacts
 * calls that stream sources chunk by chunk, check the answer, re-send
 * what failed its CRC and retry what failed on the way.
 */

#include "core/upload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "core/buf.h"
#include "core/client.h"
#include "core/conn.h"
#include "core/crc.h"
#include "core/error.h"
#include "core/hex.h"
#include "core/protocol.h"
#include "core/retry.h"
#include "core/rpc.h"
#include "core/timeutil.h"
#include "core/uri.h"
#include "core/xmem.h"
#include "core/banned.h"

/* An event line: a message, plus an sc_error's (1024) and a name. */
#define EVENT_TEXT_MAX 1400
/* Names listed in the error about CRC failures. */
#define CRC_NAMES_SHOWN 10
/* HTTP/2's initial flow-control window (RFC 9113, 6.9.2). */
#define H2_INITIAL_WINDOW 65535

/* ---------------------------------------------------------------- names */

static const struct {
	const char *prefix;
	enum sc_upload_kind kind;
	const char *word;
} kinds[] = {
	{ "jars/", SC_UPLOAD_JAR, "jar" },
	{ "pyfiles/", SC_UPLOAD_PYFILE, "pyfile" },
	{ "files/", SC_UPLOAD_FILE, "file" },
	{ "archives/", SC_UPLOAD_ARCHIVE, "archive" },
	{ "classes/", SC_UPLOAD_CLASS, "class" },
	{ "cache/", SC_UPLOAD_CACHE, "cache" },
};

int
sc_upload_kind_parse(const char *s, enum sc_upload_kind *out,
    struct sc_error *err)
{
	size_t i;

	for (i = 0; i < SC_NELEM(kinds); i++)
		if (kinds[i].kind != SC_UPLOAD_CACHE &&
		    strcmp(s, kinds[i].word) == 0) {
			*out = kinds[i].kind;
			return 0;
		}
	return sc_error_set(err, SC_ST_USAGE,
	    "invalid kind '%s': expected jar, pyfile, file, archive or class",
	    s);
}

const char *
sc_upload_kind_prefix(enum sc_upload_kind kind)
{
	size_t i;

	for (i = 0; i < SC_NELEM(kinds); i++)
		if (kinds[i].kind == kind)
			return kinds[i].prefix;
	return "";
}

static const char *
kind_word(enum sc_upload_kind kind)
{
	size_t i;

	for (i = 0; i < SC_NELEM(kinds); i++)
		if (kinds[i].kind == kind)
			return kinds[i].word;
	return "artifact";
}

static bool
ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && strncasecmp(s + len - n, suffix, n) == 0;
}

/* Whether s[0..len) ends in one of the NULL-terminated suffixes. */
static bool
ends_with_any(const char *s, size_t len, const char *const *suffixes)
{
	for (; *suffixes != NULL; suffixes++)
		if (ends_with(s, len, *suffixes))
			return true;
	return false;
}

static const char *const ext_jar[] = { ".jar", NULL };
static const char *const ext_py[] = { ".py", ".zip", ".egg", NULL };
static const char *const ext_pyfile[] = { ".py", ".zip", ".egg", ".jar", NULL };
static const char *const ext_archive[] = { ".zip", ".jar", ".tar.gz", ".tgz",
	".tar", NULL };
static const char *const ext_tar[] = { ".tar.gz", ".tgz", ".tar", NULL };
static const char *const ext_class[] = { ".class", NULL };

/* The kind a name's extension implies. */
static enum sc_upload_kind
kind_of_ext(const char *s, size_t len)
{
	if (ends_with_any(s, len, ext_jar))
		return SC_UPLOAD_JAR;
	if (ends_with_any(s, len, ext_py))
		return SC_UPLOAD_PYFILE;
	if (ends_with_any(s, len, ext_tar))
		return SC_UPLOAD_ARCHIVE;
	if (ends_with_any(s, len, ext_class))
		return SC_UPLOAD_CLASS;
	return SC_UPLOAD_FILE;
}

/* Whether a name s[0..len) suits kind, as Spark's clients require. */
static const char *
kind_needs(enum sc_upload_kind kind, const char *s, size_t len)
{
	switch (kind) {
	case SC_UPLOAD_JAR:
		return ends_with_any(s, len, ext_jar) ? NULL : ".jar";
	case SC_UPLOAD_PYFILE:
		return ends_with_any(s, len, ext_pyfile)
		    ? NULL
		    : ".py, .zip, .egg or .jar";
	case SC_UPLOAD_ARCHIVE:
		return ends_with_any(s, len, ext_archive)
		    ? NULL
		    : ".zip, .jar, .tar.gz, .tgz or .tar";
	case SC_UPLOAD_CLASS:
		return ends_with_any(s, len, ext_class) ? NULL : ".class";
	default:
		return NULL;
	}
}

/* The kind whose prefix starts s, or AUTO. */
static enum sc_upload_kind
kind_of_prefix(const char *s, size_t *plen)
{
	size_t i, n;

	for (i = 0; i < SC_NELEM(kinds); i++) {
		n = strlen(kinds[i].prefix);
		if (strncmp(s, kinds[i].prefix, n) == 0) {
			*plen = n;
			return kinds[i].kind;
		}
	}
	*plen = 0;
	return SC_UPLOAD_AUTO;
}

static bool
is_url(const char *s)
{
	return strncasecmp(s, "http://", 7) == 0 ||
	    strncasecmp(s, "https://", 8) == 0 ||
	    strncasecmp(s, "file://", 7) == 0;
}

/* s[0..n) percent-decoded, malloc'ed; NULL if it decodes to a NUL. */
static char *
pct_decode(const char *s, size_t n)
{
	char *out = sc_xmalloc(n + 1);
	size_t i, o = 0;
	int h, l;

	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n &&
		    (h = sc_hex_digit((unsigned char)s[i + 1])) >= 0 &&
		    (l = sc_hex_digit((unsigned char)s[i + 2])) >= 0) {
			if (h == 0 && l == 0) {
				free(out);
				return NULL;
			}
			out[o++] = (char)(h * 16 + l);
			i += 2;
		} else
			out[o++] = s[i];
	}
	out[o] = '\0';
	return out;
}

/*
 * A URL's last path component, decoded (malloc'ed), and where its
 * fragment starts (the '#', or the end).  NULL when there is none.
 */
static char *
url_base(const char *url, size_t *frag_at)
{
	const char *p, *path, *end, *slash;
	char *base;

	p = strstr(url, "://") + 3;
	path = p + strcspn(p, "/?#");
	end = path + strcspn(path, "?#");
	*frag_at = strcspn(url, "#");
	if (*path != '/')
		return NULL;
	slash = path;
	for (p = path; p < end; p++)
		if (*p == '/')
			slash = p;
	if (slash + 1 >= end)
		return NULL;
	base = pct_decode(slash + 1, (size_t)(end - slash - 1));
	if (base != NULL && (strchr(base, '/') != NULL || base[0] == '\0')) {
		free(base);
		return NULL;
	}
	return base;
}

int
sc_upload_name_check(const char *name, struct sc_error *err)
{
	const char *p, *c;
	size_t n;

	if (name[0] == '\0')
		return sc_error_set(err, SC_ST_USAGE,
		    "invalid artifact name '': empty");
	if (name[0] == '/')
		return sc_error_set(err, SC_ST_USAGE,
		    "invalid artifact name '%s': absolute", name);
	for (p = name; *p != '\0'; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid artifact name '%s': holds a control character",
			    name);
		if (*p == '\\')
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid artifact name '%s': holds a backslash",
			    name);
	}
	if (strchr(name, '/') == NULL)
		return sc_error_set(err, SC_ST_USAGE,
		    "invalid artifact name '%s': no name after the prefix",
		    name);
	for (c = name;; c += n + 1) {
		n = strcspn(c, "/");
		if (n == 0)
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid artifact name '%s': empty component",
			    name);
		if ((n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid artifact name '%s': '%.*s' component",
			    name, (int)n, c);
		if (c[n] == '\0')
			break;
	}
	return 0;
}

void
sc_upload_naming_release(struct sc_upload_naming *n)
{
	SC_FREE(n->name);
	SC_FREE(n->source);
}

int
sc_upload_name(enum sc_upload_kind kind, const char *source, const char *as,
    struct sc_upload_naming *out, struct sc_error *err)
{
	enum sc_upload_kind pk;
	const char *stem, *hash, *need;
	char *base = NULL, *name = NULL, *src;
	size_t plen, slen, frag_at = 0, srclen;
	bool url = source != NULL && is_url(source);

	if (kind == SC_UPLOAD_CACHE)
		return sc_error_set(err, SC_ST_USAGE,
		    "cache names are made from the content's SHA-256");
	srclen = source != NULL ? strlen(source) : 0;
	if (as != NULL) {
		pk = kind_of_prefix(as, &plen);
		if (pk == SC_UPLOAD_CACHE)
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid artifact name '%s': cache names are made from the content's SHA-256",
			    as);
		if (pk != SC_UPLOAD_AUTO && kind != SC_UPLOAD_AUTO &&
		    pk != kind)
			return sc_error_set(err, SC_ST_USAGE,
			    "artifact name '%s' is not a %s name (%s...)", as,
			    kind_word(kind), sc_upload_kind_prefix(kind));
		if (pk != SC_UPLOAD_AUTO)
			kind = pk;
		stem = as + plen;
	} else if (source == NULL || strcmp(source, "-") == 0) {
		return sc_error_set(err, SC_ST_USAGE,
		    "standard input needs a name (--as)");
	} else if (url) {
		if ((base = url_base(source, &frag_at)) == NULL)
			return sc_error_set(err, SC_ST_USAGE,
			    "cannot name an artifact after '%s': give a name (--as)",
			    source);
		stem = base;
	} else {
		stem = strrchr(source, '/');
		stem = stem != NULL ? stem + 1 : source;
		if (*stem == '\0' || strcmp(stem, ".") == 0 ||
		    strcmp(stem, "..") == 0)
			return sc_error_set(err, SC_ST_USAGE,
			    "cannot name an artifact after '%s': give a name (--as)",
			    source);
	}

	/* An archive's #fragment: in the name, or a URL's own. */
	slen = strlen(stem);
	hash = url && as == NULL ? NULL : strchr(stem, '#');
	if (hash != NULL &&
	    (kind == SC_UPLOAD_ARCHIVE ||
		(kind == SC_UPLOAD_AUTO &&
		    ends_with_any(stem, (size_t)(hash - stem), ext_archive)))) {
		kind = SC_UPLOAD_ARCHIVE;
		slen = (size_t)(hash - stem);
		if (strchr(hash + 1, '#') != NULL) {
			sc_error_set(err, SC_ST_USAGE,
			    "invalid archive name '%s': more than one '#'",
			    stem);
			goto fail;
		}
		if (hash[1] == '\0' || strchr(hash + 1, '/') != NULL) {
			sc_error_set(err, SC_ST_USAGE,
			    "invalid archive name '%s': the fragment after '#' must be a non-empty name",
			    stem);
			goto fail;
		}
		/* A path operand is read without its fragment. */
		if (as == NULL)
			srclen -= strlen(hash);
	} else if (url && as == NULL && source[frag_at] == '#' &&
	    (kind == SC_UPLOAD_ARCHIVE ||
		(kind == SC_UPLOAD_AUTO &&
		    ends_with_any(stem, slen, ext_archive)))) {
		kind = SC_UPLOAD_ARCHIVE;
		hash = source + frag_at;
		if (hash[1] == '\0' || strchr(hash + 1, '/') != NULL ||
		    strchr(hash + 1, '#') != NULL) {
			sc_error_set(err, SC_ST_USAGE,
			    "invalid archive fragment in '%s': it must be one non-empty name",
			    source);
			goto fail;
		}
	} else
		hash = NULL;

	if (kind == SC_UPLOAD_AUTO)
		kind = kind_of_ext(stem, slen);
	if ((need = kind_needs(kind, stem, slen)) != NULL) {
		sc_error_set(err, SC_ST_USAGE,
		    "'%.*s' cannot be a%s %s: its name must end in %s",
		    (int)slen, stem, kind == SC_UPLOAD_ARCHIVE ? "n" : "",
		    kind_word(kind), need);
		goto fail;
	}
	name = sc_xasprintf("%s%.*s%s", sc_upload_kind_prefix(kind), (int)slen,
	    stem, hash != NULL ? hash : "");
	if (sc_upload_name_check(name, err) == -1)
		goto fail;
	if (source == NULL)
		src = NULL;
	else if (url && as == NULL && hash != NULL)
		src = sc_xstrndup(source, frag_at); /* without the fragment */
	else
		src = sc_xstrndup(source, srclen);
	free(base);
	out->name = name;
	out->source = src;
	out->kind = kind;
	return 0;
fail:
	free(base);
	free(name);
	return -1;
}

void
sc_upload_cache_name(const uint8_t digest[32],
    char out[SC_UPLOAD_CACHE_NAME_LEN])
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	memcpy(out, "cache/", 6);
	for (i = 0; i < 32; i++) {
		out[6 + 2 * i] = hex[digest[i] >> 4];
		out[6 + 2 * i + 1] = hex[digest[i] & 15];
	}
	out[6 + 64] = '\0';
}

/* ------------------------------------------------------------- planning */

void
sc_upload_planner_init(struct sc_upload_planner *p)
{
	p->batch_bytes = 0;
	p->batch_len = 0;
}

enum sc_upload_step
sc_upload_plan_next(struct sc_upload_planner *p, uint64_t size, bool *flush)
{
	*flush = false;
	if (size > SC_UPLOAD_CHUNK_SIZE) {
		if (p->batch_len > 0) {
			*flush = true;
			sc_upload_planner_init(p);
		}
		return SC_UPLOAD_STEP_CHUNKED;
	}
	if (p->batch_bytes + size > SC_UPLOAD_CHUNK_SIZE) {
		*flush = true;
		sc_upload_planner_init(p);
	}
	p->batch_bytes += size;
	p->batch_len++;
	return SC_UPLOAD_STEP_BATCH;
}

bool
sc_upload_plan_end(struct sc_upload_planner *p)
{
	bool pending = p->batch_len > 0;

	sc_upload_planner_init(p);
	return pending;
}

uint64_t
sc_upload_num_chunks(uint64_t size, uint64_t chunk_size)
{
	if (size == 0)
		return 1;
	return size / chunk_size + (size % chunk_size != 0);
}

static void
plan_put(struct sc_upload_msg *out, size_t max, size_t *k, bool chunked,
    size_t first, size_t count, uint64_t index)
{
	if (*k < max) {
		out[*k].chunked = chunked;
		out[*k].first = first;
		out[*k].count = count;
		out[*k].index = index;
	}
	(*k)++;
}

size_t
sc_upload_plan(const uint64_t *sizes, size_t n, uint64_t chunk_size,
    struct sc_upload_msg *out, size_t max)
{
	struct sc_upload_planner p;
	size_t i, k = 0, first = 0, count = 0;
	uint64_t j, nc;
	bool flush;

	sc_upload_planner_init(&p);
	for (i = 0; i < n; i++) {
		if (sc_upload_plan_next(&p, sizes[i], &flush) ==
		    SC_UPLOAD_STEP_CHUNKED) {
			if (flush)
				plan_put(out, max, &k, false, first, count, 0);
			count = 0;
			nc = sc_upload_num_chunks(sizes[i], chunk_size);
			for (j = 0; j < nc; j++)
				plan_put(out, max, &k, true, i, 1, j);
			continue;
		}
		if (flush)
			plan_put(out, max, &k, false, first, count, 0);
		if (flush || count == 0) {
			first = i;
			count = 0;
		}
		count++;
	}
	if (sc_upload_plan_end(&p))
		plan_put(out, max, &k, false, first, count, 0);
	return k;
}

const char *
sc_upload_result_str(enum sc_upload_result r)
{
	switch (r) {
	case SC_UPLOAD_STORED:
		return "uploaded";
	case SC_UPLOAD_CRC_MISMATCH:
		return "crc-mismatch";
	default:
		return "pending";
	}
}

/* ------------------------------------------------------------- transport */

struct sc_upload {
	struct sc_client *c;
	bool own_client;
	const struct sc_upload_transport *t;
	void *ctx;
	struct sc_rpc *rpc; /* owned by sc_upload_connect()'s */
	long max_message;
	bool reached; /* an upload call was answered */
};

static void *
up_open(void *ctx, const char *method, const struct timespec *deadline,
    struct sc_error *err)
{
	return sc_rpc_upload_open(ctx, method, deadline, err);
}

static int
up_write(void *call, const void *msg, size_t len, struct sc_error *err)
{
	return sc_rpc_upload_write(call, msg, len, err);
}

static int
up_finish(void *call, struct sc_buf *resp, struct sc_error *err)
{
	return sc_rpc_upload_finish(call, resp, err);
}

static void
up_free(void *call)
{
	sc_rpc_upload_free(call);
}

static const struct sc_upload_transport rpc_upload = { up_open, up_write,
	up_finish, up_free };

/*
 * The client's own calls go over the same channel: a transport whose
 * context is the sc_upload, whose rpc is set once the client exists.
 */
static void *
cl_open(void *ctx, const char *method, const void *req, size_t reqlen,
    const struct timespec *deadline, struct sc_error *err)
{
	struct sc_upload *u = ctx;

	return sc_rpc_stream_open(u->rpc, method, req, reqlen, deadline, err);
}

static int
cl_read(void *st, struct sc_buf *msg, const struct timespec *wait_until,
    struct sc_error *err)
{
	return sc_rpc_stream_read(st, msg, wait_until, err);
}

static void
cl_cancel(void *st)
{
	sc_rpc_stream_cancel(st);
}

static void
cl_sfree(void *st)
{
	sc_rpc_stream_free(st);
}

static int
cl_unary(void *ctx, const char *method, const void *req, size_t reqlen,
    struct sc_buf *resp, const struct timespec *deadline, struct sc_error *err)
{
	struct sc_upload *u = ctx;

	return sc_rpc_unary(u->rpc, method, req, reqlen, resp, deadline, err);
}

static const struct sc_transport client_transport = { cl_open, cl_read,
	cl_cancel, cl_sfree, cl_unary, NULL, NULL, NULL };

struct sc_upload *
sc_upload_connect(const struct sc_conn_opts *co, const struct sc_client_opts *o,
    struct sc_error *err)
{
	struct sc_client_opts opts;
	struct sc_upload *u;
	struct sc_uri uri;

	if (sc_client_conn_opts(co, o, &uri, &opts, err) == -1)
		return NULL;
	/*
	 * The uploads' own channel follows sc_client_new()'s rule: a token
	 * goes to a host that is not loopback over TLS only, unless
	 * --insecure.  Without it the token went out in the clear.
	 */
	if (uri.has_token && !uri.use_ssl && !sc_conn_loopback(uri.host) &&
	    !co->insecure)
		uri.use_ssl = true;
	u = sc_xcalloc(1, sizeof(*u));
	u->t = &rpc_upload;
	u->max_message = uri.max_message_size;
	/* The client (and its thread) first, as sc_client_new() does. */
	u->c = sc_client_new_transport(&client_transport, u, &uri, &opts, err);
	if (u->c == NULL) {
		free(u);
		sc_uri_release(&uri);
		return NULL;
	}
	u->own_client = true;
	u->rpc = sc_rpc_new(&uri, co->ca_file, err);
	sc_uri_release(&uri);
	if (u->rpc == NULL) {
		sc_upload_free(u);
		return NULL;
	}
	u->ctx = u->rpc;
	return u;
}

struct sc_upload *
sc_upload_new(struct sc_client *c, const struct sc_upload_transport *t,
    void *ctx)
{
	struct sc_upload *u = sc_xcalloc(1, sizeof(*u));

	u->c = c;
	u->t = t;
	u->ctx = ctx;
	u->max_message = SC_RPC_MAX_MESSAGE;
	return u;
}

struct sc_client *
sc_upload_client(struct sc_upload *u)
{
	return u->c;
}

long
sc_upload_max_message(const struct sc_upload *u)
{
	return u->max_message;
}

void
sc_upload_free(struct sc_upload *u)
{
	if (u == NULL)
		return;
	if (u->own_client)
		sc_client_free(u->c);
	if (u->rpc != NULL)
		sc_rpc_free(u->rpc);
	free(u);
}

/* --------------------------------------------------------------- a call */

struct call {
	struct sc_upload *u;
	const struct sc_upload_opts *o;
	uint64_t chunk_size;
	void *st; /* the transport's call */
	Spark__Connect__AddArtifactsRequest req;
	struct sc_buf msg; /* one packed request */
	uint8_t *chunk; /* chunk_size bytes */
	uint8_t *arena; /* the pending batch's data */
	size_t arena_len;
	size_t *batch; /* items in the pending batch */
	size_t nbatch, batch_cap;
	Spark__Connect__AddArtifactsRequest__SingleChunkArtifact *sca;
	Spark__Connect__AddArtifactsRequest__ArtifactChunk *scc;
	Spark__Connect__AddArtifactsRequest__SingleChunkArtifact **scp;
	struct sc_upload_item *items;
	uint64_t *sent; /* data bytes handed over, all calls */
	uint64_t wrote; /* request bytes this call handed over */
};

static const char *
label(const struct sc_upload_item *it)
{
	return it->label != NULL ? it->label : it->name;
}

/* Pack the request with its payload set and hand it to the transport. */
static int
send_req(struct call *k, const struct sc_upload_item *it, uint64_t data,
    struct sc_error *err)
{
	sc_buf_reset(&k->msg);
	if (sc_proto_pack(&k->req.base, &k->msg, err) == -1)
		return -1;
	if (k->u->t->write(k->st, k->msg.data, k->msg.len, err) == -1)
		return -1;
	k->wrote += k->msg.len;
	*k->sent += data;
	if (k->o->progress != NULL)
		k->o->progress(k->o->progress_arg, *k->sent, it);
	return 0;
}

/* Read exactly n bytes of it's source into buf. */
static int
read_full(struct sc_upload_item *it, uint8_t *buf, size_t n, uint64_t done,
    uint64_t size, struct sc_error *err)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = it->src->read(it->arg, buf + got, n - got, err);
		if (r < 0)
			return -1;
		if (r == 0)
			return sc_error_set(err, SC_ST_IO,
			    "'%s' changed while it was read: it ended after %llu of %llu bytes",
			    label(it), (unsigned long long)(done + got),
			    (unsigned long long)size);
		got += (size_t)r;
	}
	return 0;
}

/* After size bytes the source must end. */
static int
read_end(struct sc_upload_item *it, uint64_t size, struct sc_error *err)
{
	uint8_t b;
	ssize_t r;

	r = it->src->read(it->arg, &b, 1, err);
	if (r < 0)
		return -1;
	if (r > 0)
		return sc_error_set(err, SC_ST_IO,
		    "'%s' changed while it was read: it has more than %llu bytes",
		    label(it), (unsigned long long)size);
	return 0;
}

static int
flush_batch(struct call *k, struct sc_error *err)
{
	Spark__Connect__AddArtifactsRequest__Batch b =
	    SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__BATCH__INIT;
	struct sc_upload_item *it;
	size_t i, off = 0;
	uint64_t data = 0;

	if (k->nbatch == 0)
		return 0;
	for (i = 0; i < k->nbatch; i++) {
		it = &k->items[k->batch[i]];
		spark__connect__add_artifacts_request__single_chunk_artifact__init(
		    &k->sca[i]);
		spark__connect__add_artifacts_request__artifact_chunk__init(
		    &k->scc[i]);
		k->sca[i].name = (char *)it->name;
		k->sca[i].data = &k->scc[i];
		k->scc[i].data.data = k->arena + off;
		k->scc[i].data.len = (size_t)it->bytes;
		k->scc[i].crc = it->crc;
		k->scp[i] = &k->sca[i];
		off += (size_t)it->bytes;
		data += it->bytes;
	}
	b.n_artifacts = k->nbatch;
	b.artifacts = k->scp;
	k->req.payload_case =
	    SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_BATCH;
	k->req.batch = &b;
	it = &k->items[k->batch[k->nbatch - 1]];
	k->nbatch = 0;
	k->arena_len = 0;
	return send_req(k, it, data, err);
}

/* Read a small artifact into the batch. */
static int
add_to_batch(struct call *k, size_t idx, uint64_t size, struct sc_error *err)
{
	struct sc_upload_item *it = &k->items[idx];

	if (read_full(it, k->arena + k->arena_len, (size_t)size, 0, size,
		err) == -1 ||
	    read_end(it, size, err) == -1)
		return -1;
	it->crc = sc_crc32_update(0, k->arena + k->arena_len, (size_t)size);
	it->chunks = 1;
	k->arena_len += (size_t)size;
	if (k->nbatch == k->batch_cap) {
		k->batch_cap = k->batch_cap ? 2 * k->batch_cap : 64;
		k->batch =
		    sc_xreallocarray(k->batch, k->batch_cap, sizeof(*k->batch));
		k->sca =
		    sc_xreallocarray(k->sca, k->batch_cap, sizeof(*k->sca));
		k->scc =
		    sc_xreallocarray(k->scc, k->batch_cap, sizeof(*k->scc));
		k->scp =
		    sc_xreallocarray(k->scp, k->batch_cap, sizeof(*k->scp));
	}
	k->batch[k->nbatch++] = idx;
	return 0;
}

static int
send_chunked(struct call *k, size_t idx, uint64_t size, struct sc_error *err)
{
	Spark__Connect__AddArtifactsRequest__BeginChunkedArtifact b =
	    SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__BEGIN_CHUNKED_ARTIFACT__INIT;
	Spark__Connect__AddArtifactsRequest__ArtifactChunk c =
	    SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__ARTIFACT_CHUNK__INIT;
	struct sc_upload_item *it = &k->items[idx];
	uint64_t j, nc, done = 0;
	uint32_t crc, all = 0;
	size_t n;

	nc = sc_upload_num_chunks(size, k->chunk_size);
	it->chunks = nc;
	for (j = 0; j < nc; j++) {
		n = (size_t)(size - done < k->chunk_size ? size - done
							 : k->chunk_size);
		if (read_full(it, k->chunk, n, done, size, err) == -1)
			return -1;
		crc = sc_crc32_update(0, k->chunk, n);
		all = (uint32_t)crc32_combine(all, crc, (z_off_t)n);
		done += n;
		if (done == size && read_end(it, size, err) == -1)
			return -1;
		c.data.data = k->chunk;
		c.data.len = n;
		c.crc = crc;
		if (j == 0) {
			b.name = (char *)it->name;
			b.total_bytes = (int64_t)size;
			b.num_chunks = (int64_t)nc;
			b.initial_chunk = &c;
			k->req.payload_case =
			    SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_BEGIN_CHUNK;
			k->req.begin_chunk = &b;
		} else {
			k->req.payload_case =
			    SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_CHUNK;
			k->req.chunk = &c;
		}
		if (send_req(k, it, n, err) == -1)
			return -1;
	}
	it->crc = all;
	return 0;
}

/* Send one artifact, as the plan says. */
static int
send_item(struct call *k, struct sc_upload_planner *p, size_t idx,
    struct sc_error *err)
{
	struct sc_upload_item *it = &k->items[idx];
	uint64_t size;
	bool flush;
	int rc;

	if (it->src->open(it->arg, &size, err) == -1)
		return -1;
	it->bytes = size;
	it->sends++;
	rc = 0;
	if (sc_upload_plan_next(p, size, &flush) == SC_UPLOAD_STEP_CHUNKED) {
		if (flush)
			rc = flush_batch(k, err);
		if (rc == 0)
			rc = send_chunked(k, idx, size, err);
	} else {
		if (flush)
			rc = flush_batch(k, err);
		if (rc == 0)
			rc = add_to_batch(k, idx, size, err);
	}
	it->src->close(it->arg);
	return rc;
}

/* The answer must be for us and name what was sent, in order. */
static int
check_answer(struct call *k, const size_t *idx, size_t n, struct sc_buf *resp,
    bool *crc_ok, struct sc_error *err)
{
	Spark__Connect__AddArtifactsResponse *r;
	const char *got;
	size_t i;
	int rc = -1;

	r = sc_proto_unpack(&spark__connect__add_artifacts_response__descriptor,
	    resp->data, resp->len, err);
	if (r == NULL)
		return -1;
	if (sc_client_check_response(k->u->c, &r->base, NULL, false, err) == -1)
		goto out;
	if (r->n_artifacts != n) {
		sc_error_set(err, SC_ST_PROTOCOL,
		    "AddArtifacts answer lists %zu artifacts, %zu were sent",
		    r->n_artifacts, n);
		goto out;
	}
	for (i = 0; i < n; i++) {
		got = r->artifacts[i]->name;
		if (strcmp(got, k->items[idx[i]].name) != 0) {
			sc_error_set(err, SC_ST_PROTOCOL,
			    "AddArtifacts answer names '%s' where '%s' was sent",
			    got, k->items[idx[i]].name);
			goto out;
		}
		crc_ok[i] = r->artifacts[i]->is_crc_successful;
	}
	rc = 0;
out:
	protobuf_c_message_free_unpacked(&r->base, NULL);
	return rc;
}

/* One AddArtifacts call with items idx[0..n): 0, or -1 with err. */
static int
one_call(struct call *k, const size_t *idx, size_t n, bool *crc_ok,
    struct sc_error *err)
{
	struct sc_upload_planner p;
	struct sc_buf resp;
	size_t i;
	int rc = -1;

	sc_buf_init(&resp, (size_t)k->u->max_message);
	spark__connect__add_artifacts_request__init(&k->req);
	sc_client_stamp(k->u->c, &k->req.base);
	k->nbatch = 0;
	k->arena_len = 0;
	k->wrote = 0;
	k->st = k->u->t->open(k->u->ctx, SC_METHOD_ADD_ARTIFACTS,
	    k->o->deadline, err);
	if (k->st == NULL)
		goto out;
	sc_upload_planner_init(&p);
	for (i = 0; i < n; i++)
		if (send_item(k, &p, idx[i], err) == -1)
			goto out;
	if (sc_upload_plan_end(&p) && flush_batch(k, err) == -1)
		goto out;
	if (k->u->t->finish(k->st, &resp, err) == -1)
		goto out;
	k->u->reached = true;
	if (k->u->c != NULL)
		sc_client_note_status(k->u->c, NULL);
	rc = check_answer(k, idx, n, &resp, crc_ok, err);
out:
	if (rc == -1 && err != NULL && err->rpc_code >= 0 &&
	    err->rpc_code != SC_GRPC_UNAVAILABLE)
		k->u->reached = true;
	/*
	 * More than HTTP/2's initial window went through only if the
	 * server granted more (WINDOW_UPDATE): it answered, even if the
	 * call then died with a bare UNAVAILABLE because it was killed.
	 * Without this a server lost mid-upload got the quick budget of
	 * one never reached, and gave up before it could come back.
	 */
	if (rc == -1 && k->wrote > H2_INITIAL_WINDOW)
		k->u->reached = true;
	if (rc == -1 && k->u->c != NULL && err != NULL)
		sc_client_note_status(k->u->c,
		    k->wrote > H2_INITIAL_WINDOW ? NULL : err);
	if (k->st != NULL)
		k->u->t->free(k->st);
	k->st = NULL;
	sc_buf_release(&resp);
	return rc;
}

static void
emit_retry(struct sc_upload *u, enum sc_retry_reason why,
    const struct sc_error *e, int64_t delay, int attempt, int max,
    const char *text)
{
	struct sc_client_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = SC_CLIENT_EV_RETRY;
	ev.reason = why;
	ev.err = e;
	ev.delay_ms = delay;
	ev.attempt = attempt;
	ev.max_attempts = max;
	ev.text = text;
	sc_client_emit(u->c, &ev);
}

/* one_call(), again while it fails with a retryable error. */
static int
call_retrying(struct call *k, const struct sc_retry_policy *policy,
    const size_t *idx, size_t n, bool *crc_ok, struct sc_error *err)
{
	struct sc_retry_policy pol = *policy;
	struct sc_retry_state rs;
	enum sc_retry_reason why;
	char secs[SC_CLIENT_SECS_STRLEN], text[EVENT_TEXT_MAX];
	struct sc_error e;
	int64_t delay, left;

	sc_retry_state_init(&rs, &pol);
	for (;;) {
		sc_error_init(&e);
		if (one_call(k, idx, n, crc_ok, &e) == 0)
			return 0;
		pol.max_retries = k->u->reached
		    ? policy->max_retries
		    : sc_client_max_retries(k->u->c, policy);
		if (!sc_retry_classify(&e, &why) ||
		    (delay = sc_retry_next_delay(&pol, &rs, e.retry_delay_ms,
			 (uint32_t)random())) < 0 ||
		    (k->o->deadline != NULL &&
			sc_ms_until(k->o->deadline) < delay))
			break;
		/* A server silent for --unreachable-timeout is given up. */
		if (k->u->c != NULL && e.rpc_code == SC_GRPC_UNAVAILABLE) {
			left = sc_client_silence_left(k->u->c);
			if (left == 0) {
				sc_client_no_answer(k->u->c, &e);
				break;
			}
			delay = sc_retry_cap(delay, left);
		}
		sc_client_format_secs(delay, secs);
		snprintf(text, sizeof(text),
		    "%s, retrying AddArtifacts in %s (attempt %d of %d): %s",
		    sc_retry_reason_str(why), secs, rs.attempt, pol.max_retries,
		    e.msg);
		emit_retry(k->u, why, &e, delay, rs.attempt, pol.max_retries,
		    text);
		if (sc_retry_sleep_ms(delay, k->o->deadline) == -1)
			break;
	}
	if (err != NULL)
		*err = e;
	return -1;
}

static void
crc_error(struct sc_upload_item *items, size_t n, int sends,
    struct sc_error *err)
{
	struct sc_buf b;
	size_t i, shown = 0, total = 0;

	sc_buf_init(&b, sizeof(err->msg));
	for (i = 0; i < n; i++) {
		if (items[i].result != SC_UPLOAD_CRC_MISMATCH)
			continue;
		total++;
		if (shown++ < CRC_NAMES_SHOWN)
			(void)sc_buf_addf(&b, NULL, "%s'%s'",
			    shown > 1 ? ", " : "", items[i].name);
	}
	if (total > CRC_NAMES_SHOWN)
		(void)sc_buf_addf(&b, NULL, " and %zu more",
		    total - CRC_NAMES_SHOWN);
	sc_error_set(err, SC_ST_INTEGRITY,
	    "CRC mismatch on every send of %s (%d send%s each)",
	    (const char *)b.data, sends, sends == 1 ? "" : "s");
	sc_buf_release(&b);
}

int
sc_upload_send(struct sc_upload *u, struct sc_upload_item *items, size_t n,
    const struct sc_upload_opts *o, struct sc_error *err)
{
	struct sc_retry_policy defpol;
	const struct sc_retry_policy *policy;
	struct call k;
	size_t *idx, m, i;
	bool *crc_ok;
	uint64_t sent = 0;
	int round, retries, rc = 0;

	memset(&k, 0, sizeof(k));
	k.u = u;
	k.o = o;
	k.items = items;
	k.sent = &sent;
	k.chunk_size = o->chunk_size > 0 ? o->chunk_size : SC_UPLOAD_CHUNK_SIZE;
	retries = o->crc_retries >= 0 ? o->crc_retries : SC_UPLOAD_CRC_RETRIES;
	if (o->policy != NULL)
		policy = o->policy;
	else {
		sc_retry_policy_default(&defpol);
		policy = &defpol;
	}
	sc_buf_init(&k.msg, SC_BUF_UNLIMITED);
	k.chunk = sc_xmalloc((size_t)k.chunk_size);
	k.arena = sc_xmalloc(SC_UPLOAD_CHUNK_SIZE);
	idx = sc_xcalloc(n > 0 ? n : 1, sizeof(*idx));
	crc_ok = sc_xcalloc(n > 0 ? n : 1, sizeof(*crc_ok));
	for (i = 0; i < n; i++) {
		items[i].result = SC_UPLOAD_PENDING;
		items[i].sends = 0;
	}

	for (round = 0;; round++) {
		for (m = 0, i = 0; i < n; i++)
			if (items[i].result == SC_UPLOAD_PENDING)
				idx[m++] = i;
		if (m == 0)
			break;
		if (round > retries) {
			for (i = 0; i < m; i++)
				items[idx[i]].result = SC_UPLOAD_CRC_MISMATCH;
			crc_error(items, n, retries + 1, err);
			rc = -1;
			break;
		}
		if (call_retrying(&k, policy, idx, m, crc_ok, err) == -1) {
			rc = -1;
			break;
		}
		for (i = 0; i < m; i++)
			if (crc_ok[i])
				items[idx[i]].result = SC_UPLOAD_STORED;
		for (i = 0; i < m && round < retries; i++) {
			char text[EVENT_TEXT_MAX];

			if (crc_ok[i])
				continue;
			snprintf(text, sizeof(text),
			    "the server found a CRC mismatch in '%s', sending it again (%d of %d)",
			    items[idx[i]].name, round + 1, retries);
			emit_retry(u, SC_RETRY_UNAVAILABLE, NULL, 0, round + 1,
			    retries, text);
		}
	}
	free(idx);
	free(crc_ok);
	free(k.chunk);
	free(k.arena);
	free(k.batch);
	free(k.sca);
	free(k.scc);
	free(k.scp);
	sc_buf_release(&k.msg);
	return rc;
}
