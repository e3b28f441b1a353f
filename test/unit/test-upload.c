/* SPDX-License-Identifier: MIT */

/*
 * test-upload.c: artifact names, Spark's batch and chunk plan at its
 * boundaries, and sc_upload_send() against a fake AddArtifacts server
 * that checks every message, reassembles the artifacts, verifies their
 * CRCs and can report CRC failures or fail calls on demand.
 */

#include "core/upload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/client.h"
#include "core/crc.h"
#include "core/error.h"
#include "core/protocol.h"
#include "core/retry.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

#define SID "00112233-4455-6677-8899-aabbccddeeff"

/* ---------------------------------------------------------------- names */

static void
name_ok(enum sc_upload_kind kind, const char *source, const char *as,
    const char *want_name, const char *want_source)
{
	struct sc_upload_naming n;
	struct sc_error err;

	sc_error_init(&err);
	if (sc_upload_name(kind, source, as, &n, &err) == -1) {
		ok(0, "name of '%s' as '%s': %s", source ? source : "(null)",
		    as ? as : "(null)", err.msg);
		return;
	}
	is_str(n.name, want_name, "name of '%s' (as '%s') is '%s'",
	    source ? source : "(null)", as ? as : "-", want_name);
	is_str(n.source, want_source, "  read from '%s'",
	    want_source ? want_source : "(null)");
	sc_upload_naming_release(&n);
}

static void
name_bad(enum sc_upload_kind kind, const char *source, const char *as,
    const char *want_msg)
{
	struct sc_upload_naming n;
	struct sc_error err;

	sc_error_init(&err);
	is_int(sc_upload_name(kind, source, as, &n, &err), -1,
	    "'%s' as '%s' is refused", source ? source : "(null)",
	    as ? as : "-");
	is_int(err.status, SC_ST_USAGE, "  as a usage error");
	is_str(err.msg, want_msg, "  saying why");
}

static void
test_names(void)
{
	/* The kind from the extension, as PySpark's prefixes. */
	name_ok(SC_UPLOAD_AUTO, "lib/x.jar", NULL, "jars/x.jar", "lib/x.jar");
	name_ok(SC_UPLOAD_AUTO, "a.py", NULL, "pyfiles/a.py", "a.py");
	name_ok(SC_UPLOAD_AUTO, "dep.zip", NULL, "pyfiles/dep.zip", "dep.zip");
	name_ok(SC_UPLOAD_AUTO, "dep.egg", NULL, "pyfiles/dep.egg", "dep.egg");
	name_ok(SC_UPLOAD_AUTO, "/d/env.tar.gz", NULL, "archives/env.tar.gz",
	    "/d/env.tar.gz");
	name_ok(SC_UPLOAD_AUTO, "env.TGZ", NULL, "archives/env.TGZ", "env.TGZ");
	name_ok(SC_UPLOAD_AUTO, "env.tar", NULL, "archives/env.tar", "env.tar");
	name_ok(SC_UPLOAD_AUTO, "A.class", NULL, "classes/A.class", "A.class");
	name_ok(SC_UPLOAD_AUTO, "data.csv", NULL, "files/data.csv", "data.csv");
	name_ok(SC_UPLOAD_AUTO, "noext", NULL, "files/noext", "noext");
	/* A given kind; .zip as an archive. */
	name_ok(SC_UPLOAD_ARCHIVE, "dep.zip", NULL, "archives/dep.zip",
	    "dep.zip");
	name_ok(SC_UPLOAD_FILE, "x.jar", NULL, "files/x.jar", "x.jar");
	name_ok(SC_UPLOAD_PYFILE, "x.jar", NULL, "pyfiles/x.jar", "x.jar");
	/* Archives' fragments: from the operand, which is read without. */
	name_ok(SC_UPLOAD_AUTO, "d/env.tar.gz#env", NULL,
	    "archives/env.tar.gz#env", "d/env.tar.gz");
	name_ok(SC_UPLOAD_ARCHIVE, "dep.zip#dep", NULL, "archives/dep.zip#dep",
	    "dep.zip");
	name_ok(SC_UPLOAD_AUTO, "dep.zip#d", NULL, "archives/dep.zip#d",
	    "dep.zip");
	/* '#' elsewhere is part of the name. */
	name_ok(SC_UPLOAD_AUTO, "a#b.csv", NULL, "files/a#b.csv", "a#b.csv");
	/* --as: used as is with a prefix, else given one. */
	name_ok(SC_UPLOAD_AUTO, "-", "files/sub/x.csv", "files/sub/x.csv", "-");
	name_ok(SC_UPLOAD_AUTO, "t.bin", "data.csv", "files/data.csv", "t.bin");
	name_ok(SC_UPLOAD_AUTO, "t.bin", "dep.py", "pyfiles/dep.py", "t.bin");
	name_ok(SC_UPLOAD_JAR, "t.bin", "jars/u.jar", "jars/u.jar", "t.bin");
	name_ok(SC_UPLOAD_AUTO, "t.bin", "env.tgz#e", "archives/env.tgz#e",
	    "t.bin");
	name_ok(SC_UPLOAD_AUTO, "t#x.tgz", "archives/e.tgz", "archives/e.tgz",
	    "t#x.tgz");
	name_ok(SC_UPLOAD_CLASS, "t.bin", "com/x/Y.class",
	    "classes/com/x/Y.class", "t.bin");
	/* URLs: the last path component, decoded; no query. */
	name_ok(SC_UPLOAD_AUTO, "http://h:8/p/my%20data.csv?x=1", NULL,
	    "files/my data.csv", "http://h:8/p/my%20data.csv?x=1");
	name_ok(SC_UPLOAD_AUTO, "https://h/a/lib.jar", NULL, "jars/lib.jar",
	    "https://h/a/lib.jar");
	name_ok(SC_UPLOAD_AUTO, "file:///tmp/e.tgz#env", NULL,
	    "archives/e.tgz#env", "file:///tmp/e.tgz");
	name_ok(SC_UPLOAD_AUTO, "http://h/x.csv#frag", NULL, "files/x.csv",
	    "http://h/x.csv#frag");
	name_ok(SC_UPLOAD_AUTO, "http://h/x.bin", "env.tgz#e",
	    "archives/env.tgz#e", "http://h/x.bin");

	name_bad(SC_UPLOAD_AUTO, "-", NULL,
	    "standard input needs a name (--as)");
	name_bad(SC_UPLOAD_AUTO, "dir/", NULL,
	    "cannot name an artifact after 'dir/': give a name (--as)");
	name_bad(SC_UPLOAD_AUTO, "..", NULL,
	    "cannot name an artifact after '..': give a name (--as)");
	name_bad(SC_UPLOAD_AUTO, "http://h/", NULL,
	    "cannot name an artifact after 'http://h/': give a name (--as)");
	name_bad(SC_UPLOAD_AUTO, "http://h/a%2Fb", NULL,
	    "cannot name an artifact after 'http://h/a%2Fb': give a name (--as)");
	name_bad(SC_UPLOAD_JAR, "x.txt", NULL,
	    "'x.txt' cannot be a jar: its name must end in .jar");
	name_bad(SC_UPLOAD_PYFILE, "x.txt", NULL,
	    "'x.txt' cannot be a pyfile: its name must end in .py, .zip, .egg or .jar");
	name_bad(SC_UPLOAD_ARCHIVE, "x.txt", NULL,
	    "'x.txt' cannot be an archive: its name must end in .zip, .jar, .tar.gz, .tgz or .tar");
	name_bad(SC_UPLOAD_CLASS, "x.txt", NULL,
	    "'x.txt' cannot be a class: its name must end in .class");
	name_bad(SC_UPLOAD_FILE, "t", "jars/x.jar",
	    "artifact name 'jars/x.jar' is not a file name (files/...)");
	name_bad(SC_UPLOAD_AUTO, "t", "cache/00",
	    "invalid artifact name 'cache/00': cache names are made from the content's SHA-256");
	name_bad(SC_UPLOAD_CACHE, "t", NULL,
	    "cache names are made from the content's SHA-256");
	name_bad(SC_UPLOAD_AUTO, "e.tgz#a#b", NULL,
	    "invalid archive name 'e.tgz#a#b': more than one '#'");
	name_bad(SC_UPLOAD_AUTO, "e.tgz#", NULL,
	    "invalid archive name 'e.tgz#': the fragment after '#' must be a non-empty name");
	name_bad(SC_UPLOAD_AUTO, "t", "../x",
	    "invalid artifact name 'files/../x': '..' component");
	name_bad(SC_UPLOAD_AUTO, "t", "files/a/./b",
	    "invalid artifact name 'files/a/./b': '.' component");
	name_bad(SC_UPLOAD_AUTO, "t", "/etc/passwd",
	    "invalid artifact name 'files//etc/passwd': empty component");
	name_bad(SC_UPLOAD_AUTO, "t", "files/a\\b",
	    "invalid artifact name 'files/a\\b': holds a backslash");
	name_bad(SC_UPLOAD_AUTO, "t", "files/a\tb",
	    "invalid artifact name 'files/a\tb': holds a control character");
	name_bad(SC_UPLOAD_AUTO, "t", "files/",
	    "invalid artifact name 'files/': empty component");
}

static void
test_name_check(void)
{
	struct sc_error err;

	sc_error_init(&err);
	is_int(sc_upload_name_check("files/a/b.csv", &err), 0,
	    "files/a/b.csv is fine");
	is_int(sc_upload_name_check("x", &err), -1, "a name needs a prefix");
	is_str(err.msg, "invalid artifact name 'x': no name after the prefix",
	    "  saying so");
	is_int(sc_upload_name_check("/files/x", &err), -1,
	    "absolute is refused");
	is_str(err.msg, "invalid artifact name '/files/x': absolute",
	    "  saying so");
	is_int(sc_upload_name_check("", &err), -1, "empty is refused");
	is_int(sc_upload_name_check("files/x\x7f", &err), -1, "DEL is refused");
	is_int(sc_upload_name_check("files//x", &err), -1,
	    "an empty component is refused");
}

static void
test_kinds(void)
{
	enum sc_upload_kind k = SC_UPLOAD_AUTO;
	struct sc_error err;

	sc_error_init(&err);
	is_int(sc_upload_kind_parse("archive", &k, &err), 0, "kind archive");
	is_int(k, SC_UPLOAD_ARCHIVE, "  parses");
	is_int(sc_upload_kind_parse("cache", &k, &err), -1,
	    "kind cache is not for --kind");
	is_str(err.msg,
	    "invalid kind 'cache': expected jar, pyfile, file, archive or class",
	    "  saying what is");
	is_str(sc_upload_kind_prefix(SC_UPLOAD_PYFILE), "pyfiles/",
	    "pyfile prefix");
	is_str(sc_upload_kind_prefix(SC_UPLOAD_AUTO), "", "no auto prefix");
}

static void
test_cache_name(void)
{
	/* SHA-256("abc"), FIPS 180-2's example. */
	static const uint8_t d[32] = { 0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf,
		0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0,
		0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff,
		0x61, 0xf2, 0x00, 0x15, 0xad };
	char name[SC_UPLOAD_CACHE_NAME_LEN];

	sc_upload_cache_name(d, name);
	is_str(name,
	    "cache/ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	    "cache name is cache/ and lowercase hex");
}

/* ------------------------------------------------------------- planning */

/* A plan as text: "B0:2" a batch of 2 from artifact 0, "C3/1" chunk 1 of 3. */
static void
plan_text(const uint64_t *sizes, size_t n, uint64_t chunk, char *out,
    size_t outsz)
{
	struct sc_upload_msg m[64];
	size_t k, i, o = 0;

	k = sc_upload_plan(sizes, n, chunk, m, 64);
	out[0] = '\0';
	for (i = 0; i < k && i < 64 && o < outsz; i++) {
		if (m[i].chunked)
			o += (size_t)snprintf(out + o, outsz - o, "%sC%zu/%llu",
			    i ? " " : "", m[i].first,
			    (unsigned long long)m[i].index);
		else
			o += (size_t)snprintf(out + o, outsz - o, "%sB%zu:%zu",
			    i ? " " : "", m[i].first, m[i].count);
	}
}

#define PLAN(want, chunk, ...)                                                 \
	do {                                                                   \
		const uint64_t s_[] = { __VA_ARGS__ };                         \
		char t_[512];                                                  \
		plan_text(s_, SC_NELEM(s_), (chunk), t_, sizeof(t_));          \
		is_str(t_, (want), "plan of { %s }, chunk %llu", #__VA_ARGS__, \
		    (unsigned long long)(chunk));                              \
	} while (0)

static void
test_plan(void)
{
	const uint64_t K = 32768;

	PLAN("B0:1", K, 0);
	PLAN("B0:1", K, 1);
	PLAN("B0:1", K, 32767);
	PLAN("B0:1", K, 32768);
	PLAN("C0/0 C0/1", K, 32769);
	PLAN("C0/0 C0/1", K, 65536);
	PLAN("C0/0 C0/1 C0/2", K, 65537);
	/* A batch takes up to 32 KiB exactly; one byte more flushes it. */
	PLAN("B0:2", K, 1, 32767);
	PLAN("B0:1 B1:1", K, 1, 32768);
	PLAN("B0:2", K, 32768, 0);
	PLAN("B0:3", K, 0, 0, 0);
	PLAN("B0:2 B2:1", K, 16384, 16384, 16384);
	PLAN("B0:1 B1:1 B2:1", K, 20000, 20000, 20000);
	/* A chunked artifact flushes the batch and goes alone. */
	PLAN("B0:1 C1/0 C1/1 B2:1", K, 10, 32769, 10);
	PLAN("C0/0 C0/1 C1/0 C1/1", K, 32769, 32769);
	PLAN("B0:2 C2/0 C2/1 C2/2 B3:3", K, 5, 6, 70000, 7, 8, 9);
	/* The chunk size moves chunks only, never the batch limit. */
	PLAN("C0/0", 1048576, 40000);
	PLAN("B0:1", 1048576, 32768);
	PLAN("C0/0 C0/1 C0/2 C0/3 C0/4", 8192, 40000);
	PLAN("", K, );

	is_int(sc_upload_num_chunks(32769, K), 2, "32769 bytes: 2 chunks");
	is_int(sc_upload_num_chunks(3 * K, K), 3, "3 x 32 KiB: 3 chunks");
	is_int(sc_upload_num_chunks(1ULL << 30, K), 32768,
	    "1 GiB: 32768 chunks");
}

static void
test_planner_steps(void)
{
	struct sc_upload_planner p;
	bool flush;

	sc_upload_planner_init(&p);
	is_int(sc_upload_plan_next(&p, 100, &flush), SC_UPLOAD_STEP_BATCH,
	    "100 bytes: batch");
	is_int(flush, 0, "  no flush");
	is_int(sc_upload_plan_next(&p, 32669, &flush), SC_UPLOAD_STEP_BATCH,
	    "32669 more: batch");
	is_int(flush, 1, "  after a flush (32769 > 32768)");
	is_int(sc_upload_plan_next(&p, 99, &flush), SC_UPLOAD_STEP_BATCH,
	    "99 more: batch");
	is_int(flush, 0, "  fits exactly");
	is_int(sc_upload_plan_next(&p, 40000, &flush), SC_UPLOAD_STEP_CHUNKED,
	    "40000: chunked");
	is_int(flush, 1, "  flushing the batch first");
	is_int(sc_upload_plan_end(&p), 0, "nothing pending at the end");
	(void)sc_upload_plan_next(&p, 1, &flush);
	is_int(sc_upload_plan_end(&p), 1, "a batch pending at the end");
}

/* -------------------------------------------------- sources and a fake */

struct mem {
	const uint8_t *data;
	size_t size; /* what open() says */
	size_t real; /* what read() gives */
	size_t off;
	int opens, closes;
};

static int
mem_open(void *arg, uint64_t *size, struct sc_error *err)
{
	struct mem *m = arg;

	(void)err;
	m->off = 0;
	m->opens++;
	*size = m->size;
	return 0;
}

static ssize_t
mem_read(void *arg, void *buf, size_t n, struct sc_error *err)
{
	struct mem *m = arg;
	size_t k = m->real - m->off;

	(void)err;
	/* Odd short reads, so the reader's loop is exercised. */
	if (k > 1000)
		k = 1000 + m->off % 7;
	if (k > n)
		k = n;
	memcpy(buf, m->data + m->off, k);
	m->off += k;
	return (ssize_t)k;
}

static void
mem_close(void *arg)
{
	((struct mem *)arg)->closes++;
}

static const struct sc_upload_source mem_ops = { mem_open, mem_read,
	mem_close };

/* What the fake server saw and does. */
struct fake {
	int calls;
	int fail_calls; /* the first this many calls end UNAVAILABLE */
	bool refuse; /* every call ends ALREADY_EXISTS with a class */
	const char *bad_name; /* answered with is_crc_successful=false */
	int bad_times; /* ... on its first this many sends */
	int bad_sent;
	bool wrong_name; /* the answer names something else */
	char trace[4096]; /* "1:B[a,b] C<c,3>.. |" per call */
	size_t tlen;
	/* The artifacts of the call being made. */
	char *names[64];
	uint64_t got[64], total[64];
	uint64_t chunks_left[64];
	bool crc_good[64];
	uint32_t whole_crc[64];
	size_t n;
	bool open_chunked;
	char last_error[256];
};

static void trace(struct fake *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void
trace(struct fake *f, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(f->trace + f->tlen, sizeof(f->trace) - f->tlen, fmt, ap);
	va_end(ap);
	if (k > 0 && f->tlen + (size_t)k < sizeof(f->trace))
		f->tlen += (size_t)k;
}

static struct fake *fake_now;

static void *
fake_open(void *ctx, const char *method, const struct timespec *deadline,
    struct sc_error *err)
{
	struct fake *f = ctx;

	(void)deadline;
	(void)err;
	if (strcmp(method, SC_METHOD_ADD_ARTIFACTS) != 0)
		return NULL;
	f->calls++;
	f->n = 0;
	f->open_chunked = false;
	trace(f, "%d:", f->calls);
	return f;
}

static void
fake_add(struct fake *f, const char *name, uint64_t total)
{
	f->names[f->n] = sc_xstrdup(name);
	f->total[f->n] = total;
	f->got[f->n] = 0;
	f->crc_good[f->n] = true;
	f->whole_crc[f->n] = 0;
	f->n++;
}

static void
fake_data(struct fake *f, const ProtobufCBinaryData *d, int64_t crc)
{
	size_t i = f->n - 1;
	uint32_t c = sc_crc32_update(0, d->data, d->len);

	if ((int64_t)c != crc)
		f->crc_good[i] = false;
	f->whole_crc[i] = sc_crc32_update(f->whole_crc[i], d->data, d->len);
	f->got[i] += d->len;
}

static int
fake_write(void *call, const void *msg, size_t len, struct sc_error *err)
{
	struct fake *f = call;
	Spark__Connect__AddArtifactsRequest *r;
	size_t i;

	r = sc_proto_unpack(&spark__connect__add_artifacts_request__descriptor,
	    msg, len, err);
	if (r == NULL)
		return -1;
	if (strcmp(r->session_id, SID) != 0 || r->user_context == NULL ||
	    strcmp(r->user_context->user_id, "tester") != 0)
		trace(f, "!envelope ");
	switch (r->payload_case) {
	case SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_BATCH:
		if (f->open_chunked)
			trace(f, "!open ");
		trace(f, "B[");
		for (i = 0; i < r->batch->n_artifacts; i++) {
			fake_add(f, r->batch->artifacts[i]->name,
			    r->batch->artifacts[i]->data->data.len);
			fake_data(f, &r->batch->artifacts[i]->data->data,
			    r->batch->artifacts[i]->data->crc);
			trace(f, "%s%s", i ? "," : "",
			    r->batch->artifacts[i]->name);
		}
		trace(f, "] ");
		break;
	case SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_BEGIN_CHUNK:
		if (f->open_chunked)
			trace(f, "!open ");
		fake_add(f, r->begin_chunk->name,
		    (uint64_t)r->begin_chunk->total_bytes);
		fake_data(f, &r->begin_chunk->initial_chunk->data,
		    r->begin_chunk->initial_chunk->crc);
		f->chunks_left[f->n - 1] =
		    (uint64_t)r->begin_chunk->num_chunks - 1;
		f->open_chunked = f->chunks_left[f->n - 1] > 0;
		trace(f, "C<%s,%lld>", r->begin_chunk->name,
		    (long long)r->begin_chunk->num_chunks);
		if (!f->open_chunked)
			trace(f, " ");
		break;
	case SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_CHUNK:
		if (!f->open_chunked)
			trace(f, "!nochunk ");
		fake_data(f, &r->chunk->data, r->chunk->crc);
		trace(f, ".");
		if (--f->chunks_left[f->n - 1] == 0) {
			f->open_chunked = false;
			trace(f, " ");
		}
		break;
	default:
		trace(f, "!payload ");
	}
	protobuf_c_message_free_unpacked(&r->base, NULL);
	return 0;
}

static int
fake_finish(void *call, struct sc_buf *resp, struct sc_error *err)
{
	struct fake *f = call;
	Spark__Connect__AddArtifactsResponse r =
	    SPARK__CONNECT__ADD_ARTIFACTS_RESPONSE__INIT;
	Spark__Connect__AddArtifactsResponse__ArtifactSummary s[64], *sp[64];
	size_t i;
	int rc;

	trace(f, "| ");
	for (i = 0; i < f->n; i++)
		if (f->got[i] != f->total[i])
			trace(f, "!size(%s) ", f->names[i]);
	if (f->calls <= f->fail_calls)
		return sc_error_from_grpc(err, SC_GRPC_UNAVAILABLE,
		    "fake server down", NULL, 0);
	if (f->refuse)
		return sc_error_from_grpc(err, SC_GRPC_INTERNAL,
		    "[ARTIFACT_ALREADY_EXISTS] The artifact `files/a` already exists.",
		    NULL, 0);
	for (i = 0; i < f->n; i++) {
		spark__connect__add_artifacts_response__artifact_summary__init(
		    &s[i]);
		s[i].name = f->names[i];
		s[i].is_crc_successful = f->crc_good[i];
		if (f->bad_name != NULL &&
		    strcmp(f->names[i], f->bad_name) == 0 &&
		    f->bad_sent++ < f->bad_times)
			s[i].is_crc_successful = false;
		sp[i] = &s[i];
	}
	if (f->wrong_name && f->n > 0)
		s[0].name = (char *)"files/other";
	r.n_artifacts = f->n;
	r.artifacts = sp;
	r.session_id = (char *)SID;
	r.server_side_session_id = (char *)"srv-1";
	rc = sc_proto_pack(&r.base, resp, err);
	return rc;
}

static void
fake_free(void *call)
{
	struct fake *f = call;
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->names[i]);
	f->n = 0;
}

static const struct sc_upload_transport fake_tr = { fake_open, fake_write,
	fake_finish, fake_free };

static int
no_unary(void *ctx, const char *method, const void *req, size_t reqlen,
    struct sc_buf *resp, const struct timespec *deadline, struct sc_error *err)
{
	(void)ctx;
	(void)method;
	(void)req;
	(void)reqlen;
	(void)resp;
	(void)deadline;
	return sc_error_set(err, SC_ST_INTERNAL, "no unary calls here");
}

static const struct sc_transport no_tr = { NULL, NULL, NULL, NULL, no_unary,
	NULL, NULL, NULL };

static char events[2048];

static void
on_event(const struct sc_client_event *ev, void *arg)
{
	size_t n = strlen(events);

	(void)arg;
	snprintf(events + n, sizeof(events) - n, "%s\n", ev->text);
}

struct rig {
	struct fake f;
	struct sc_client *c;
	struct sc_upload *u;
	struct sc_retry_policy pol;
	struct sc_upload_opts o;
	uint64_t last_sent;
};

static void
on_progress(void *arg, uint64_t sent, const struct sc_upload_item *it)
{
	(void)it;
	((struct rig *)arg)->last_sent = sent;
}

static void
rig_init(struct rig *r)
{
	struct sc_client_opts co;
	struct sc_error err;

	memset(r, 0, sizeof(*r));
	memset(&co, 0, sizeof(co));
	co.session_id = SID;
	co.user_id = "tester";
	co.on_event = on_event;
	sc_error_init(&err);
	r->c = sc_client_new_transport(&no_tr, NULL, NULL, &co, &err);
	if (r->c == NULL)
		SC_BUG("client: %s", err.msg);
	r->u = sc_upload_new(r->c, &fake_tr, &r->f);
	sc_retry_policy_default(&r->pol);
	r->pol.initial_ms = 1;
	r->o.policy = &r->pol;
	r->o.crc_retries = -1;
	r->o.progress = on_progress;
	r->o.progress_arg = r;
	events[0] = '\0';
	fake_now = &r->f;
}

static void
rig_release(struct rig *r)
{
	sc_upload_free(r->u);
	sc_client_free(r->c);
}

static uint8_t *
pattern(size_t n, unsigned seed)
{
	uint8_t *p = sc_xmalloc(n ? n : 1);
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 31 + seed * 7) ^ (i >> 9));
	return p;
}

static void
item_init(struct sc_upload_item *it, struct mem *m, const char *name,
    const uint8_t *data, size_t size)
{
	memset(it, 0, sizeof(*it));
	memset(m, 0, sizeof(*m));
	m->data = data;
	m->size = m->real = size;
	it->name = name;
	it->src = &mem_ops;
	it->arg = m;
}

static void
test_send_mixed(void)
{
	static const size_t sizes[] = { 0, 1, 32767, 32768, 32769, 100000, 5,
		6 };
	static const char *const names[] = { "files/e", "files/one", "files/k1",
		"files/k", "files/k2", "files/big", "files/s5", "files/s6" };
	struct sc_upload_item it[8];
	struct mem m[8];
	uint8_t *data[8];
	struct sc_error err;
	struct rig r;
	size_t i;
	uint64_t total = 0;
	int bad = 0;

	rig_init(&r);
	for (i = 0; i < 8; i++) {
		data[i] = pattern(sizes[i], (unsigned)i);
		item_init(&it[i], &m[i], names[i], data[i], sizes[i]);
		total += sizes[i];
	}
	sc_error_init(&err);
	is_int(sc_upload_send(r.u, it, 8, &r.o, &err), 0,
	    "mixed sizes upload in one call");
	is_str(r.f.trace,
	    "1:B[files/e,files/one,files/k1] B[files/k] C<files/k2,2>. "
	    "C<files/big,4>... B[files/s5,files/s6] | ",
	    "  batched and chunked exactly as Spark's clients");
	for (i = 0; i < 8; i++) {
		bad += it[i].result != SC_UPLOAD_STORED;
		bad += it[i].bytes != sizes[i];
		bad += it[i].crc != sc_crc32_update(0, data[i], sizes[i]);
		bad += it[i].sends != 1;
		bad += m[i].opens != 1 || m[i].closes != 1;
	}
	is_int(bad, 0, "  every item stored, sized, CRC'd, opened once");
	is_int(it[4].chunks, 2, "  32769 bytes took 2 chunks");
	is_int(it[5].chunks, 4, "  100000 bytes took 4 chunks");
	is_int(it[3].chunks, 1, "  32768 bytes went in a batch");
	is_int(r.last_sent, total, "  progress counted every byte");
	is_str(sc_client_server_side_session_id(r.c), "srv-1",
	    "  the answer's server-side session was taken");
	rig_release(&r);
	for (i = 0; i < 8; i++)
		free(data[i]);
}

static void
test_send_chunk_size(void)
{
	struct sc_upload_item it[1];
	struct mem m[1];
	uint8_t *data = pattern(40000, 9);
	struct sc_error err;
	struct rig r;

	rig_init(&r);
	item_init(&it[0], &m[0], "files/x", data, 40000);
	r.o.chunk_size = 8192;
	sc_error_init(&err);
	is_int(sc_upload_send(r.u, it, 1, &r.o, &err), 0, "--chunk-size 8192");
	is_str(r.f.trace, "1:C<files/x,5>.... | ", "  5 chunks of 8 KiB");
	rig_release(&r);
	free(data);
}

static void
test_send_crc_retry(void)
{
	struct sc_upload_item it[3];
	struct mem m[3];
	uint8_t *d0 = pattern(10, 1), *d1 = pattern(50000, 2),
		*d2 = pattern(20, 3);
	struct sc_error err;
	struct rig r;

	rig_init(&r);
	item_init(&it[0], &m[0], "files/a", d0, 10);
	item_init(&it[1], &m[1], "files/b", d1, 50000);
	item_init(&it[2], &m[2], "files/c", d2, 20);
	r.f.bad_name = "files/b";
	r.f.bad_times = 2;
	sc_error_init(&err);
	is_int(sc_upload_send(r.u, it, 3, &r.o, &err), 0,
	    "a CRC failure twice, then success");
	is_str(r.f.trace,
	    "1:B[files/a] C<files/b,2>. B[files/c] | 2:C<files/b,2>. | "
	    "3:C<files/b,2>. | ",
	    "  only the failed artifact was sent again");
	is_int(it[1].sends, 3, "  three sends of it");
	is_int(it[0].sends, 1, "  one of the others");
	is_int(it[1].result, SC_UPLOAD_STORED, "  stored in the end");
	is_str(events,
	    "the server found a CRC mismatch in 'files/b', sending it again (1 of 3)\n"
	    "the server found a CRC mismatch in 'files/b', sending it again (2 of 3)\n",
	    "  each re-send is an event");
	rig_release(&r);

	rig_init(&r);
	item_init(&it[0], &m[0], "files/a", d0, 10);
	item_init(&it[1], &m[1], "files/b", d1, 50000);
	r.f.bad_name = "files/b";
	r.f.bad_times = 100;
	r.o.crc_retries = 2;
	sc_error_init(&err);
	is_int(sc_upload_send(r.u, it, 2, &r.o, &err), -1,
	    "a CRC failure that persists");
	is_int(err.status, SC_ST_INTEGRITY, "  is an integrity error (6)");
	is_str(err.msg,
	    "CRC mismatch on every send of 'files/b' (3 sends each)",
	    "  naming the artifact");
	is_int(r.f.calls, 3, "  after 1 + 2 calls");
	is_int(it[0].result, SC_UPLOAD_STORED, "  the other was stored");
	is_int(it[1].result, SC_UPLOAD_CRC_MISMATCH, "  it was not");
	rig_release(&r);

	rig_init(&r);
	item_init(&it[0], &m[0], "files/b", d1, 50000);
	r.f.bad_name = "files/b";
	r.f.bad_times = 1;
	r.o.crc_retries = 0;
	sc_error_init(&err);
	is_int(sc_upload_send(r.u, it, 1, &r.o, &err), -1,
	    "--crc-retries 0: no re-send");
	is_str(err.msg, "CRC mismatch on every send of 'files/b' (1 send each)",
	    "  saying so");
	rig_release(&r);
	free(d0);
	free(d1);
	free(d2);
}

static void
test_send_retry(void)
{
	struct sc_upload_item it[2];
	struct mem m[2];
	uint8_t *d0 = pattern(10, 1), *d1 = pattern(70000, 2);
	struct sc_error err;
	struct rig r;

	rig_init(&r);
	item_init(&it[0], &m[0], "files/a", d0, 10);
	item_init(&it[1], &m[1], "files/b", d1, 70000);
	r.f.fail_calls = 2;
	sc_error_init(&err);
	is_int(sc_upload_send(r.u, it, 2, &r.o, &err), 0,
	    "UNAVAILABLE twice, then success");
	is_int(r.f.calls, 3, "  three calls");
	is_str(r.f.trace,
	    "1:B[files/a] C<files/b,3>.. | 2:B[files/a] C<files/b,3>.. | "
	    "3:B[files/a] C<files/b,3>.. | ",
	    "  each sending everything again");
	is_int(m[1].opens, 3, "  sources read from the start each time");
	is_int(strncmp(events, "server unavailable, retrying AddArtifacts in ",
		   45),
	    0, "  a retry event");
	rig_release(&r);

	rig_init(&r);
	item_init(&it[0], &m[0], "files/a", d0, 10);
	r.f.fail_calls = 100;
	r.pol.max_retries = 2;
	sc_error_init(&err);
	is_int(sc_upload_send(r.u, it, 1, &r.o, &err), -1,
	    "UNAVAILABLE past the retries");
	is_int(err.status, SC_ST_UNAVAILABLE, "  is status 4");
	is_str(err.msg, "fake server down", "  with the server's message");
	is_int(r.f.calls, 3, "  after 1 + 2 calls");
	is_int(it[0].result, SC_UPLOAD_PENDING, "  the item is pending");
	rig_release(&r);

	rig_init(&r);
	item_init(&it[0], &m[0], "files/a", d0, 10);
	r.f.refuse = true;
	sc_error_init(&err);
	is_int(sc_upload_send(r.u, it, 1, &r.o, &err), -1,
	    "a refusal is not retried");
	is_int(r.f.calls, 1, "  one call");
	is_int(err.status, SC_ST_FAILED, "  status 1");
	is_str(err.errclass, "ARTIFACT_ALREADY_EXISTS", "  with its class");
	rig_release(&r);
	free(d0);
	free(d1);
}

static void
test_send_checks(void)
{
	struct sc_upload_item it[2];
	struct mem m[2];
	uint8_t *d0 = pattern(100, 1), *d1 = pattern(40000, 2);
	struct sc_error err;
	struct rig r;

	rig_init(&r);
	item_init(&it[0], &m[0], "files/a", d0, 100);
	r.f.wrong_name = true;
	sc_error_init(&err);
	is_int(sc_upload_send(r.u, it, 1, &r.o, &err), -1,
	    "an answer naming another artifact");
	is_int(err.status, SC_ST_PROTOCOL, "  is a protocol error");
	is_str(err.msg,
	    "AddArtifacts answer names 'files/other' where 'files/a' was sent",
	    "  saying which");
	rig_release(&r);

	rig_init(&r);
	item_init(&it[0], &m[0], "files/a", d0, 100);
	m[0].real = 60;
	it[0].label = "a.txt";
	sc_error_init(&err);
	is_int(sc_upload_send(r.u, it, 1, &r.o, &err), -1,
	    "a source shorter than it said");
	is_int(err.status, SC_ST_IO, "  is an I/O error");
	is_str(err.msg,
	    "'a.txt' changed while it was read: it ended after 60 of 100 bytes",
	    "  naming the source");
	is_int(r.f.calls, 1, "  not retried");
	is_int(m[0].closes, 1, "  the source was closed");
	rig_release(&r);

	rig_init(&r);
	item_init(&it[0], &m[0], "files/b", d1, 40000);
	m[0].size = 39000;
	sc_error_init(&err);
	is_int(sc_upload_send(r.u, it, 1, &r.o, &err), -1,
	    "a chunked source longer than it said");
	is_str(err.msg,
	    "'files/b' changed while it was read: it has more than 39000 bytes",
	    "  is refused");
	rig_release(&r);

	rig_init(&r);
	item_init(&it[0], &m[0], "files/a", d1, 100);
	item_init(&it[1], &m[1], "files/b", d0, 20);
	m[0].real = 101;
	sc_error_init(&err);
	is_int(sc_upload_send(r.u, it, 2, &r.o, &err), -1,
	    "a batched source longer than it said");
	is_str(err.msg,
	    "'files/a' changed while it was read: it has more than 100 bytes",
	    "  is refused");
	is_str(r.f.trace, "1:", "  before anything was sent");
	rig_release(&r);
	free(d0);
	free(d1);
}

int
main(void)
{
	test_names();
	test_name_check();
	test_kinds();
	test_cache_name();
	test_plan();
	test_planner_steps();
	test_send_mixed();
	test_send_chunk_size();
	test_send_crc_retry();
	test_send_retry();
	test_send_checks();
	return tap_done();
}
