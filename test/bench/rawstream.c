/* SPDX-License-Identifier: MIT */

/*
 * rawstream.c: the raw gRPC reference for test/bench/run.  "serve" runs a
 * minimal server on core/rpc with a server-streaming method that sends one
 * pre-packed message N times (each send started from the previous send's
 * sent() callback) and a unary echo; "stream" and "unary" are clients that
 * read and discard.  "upload" is the client-streaming reference: it reads
 * a file in pieces and streams each piece as one message to the server's
 * sink, which counts the bytes and answers once; with --artifact NAME it
 * streams the same pieces to a Spark Connect server's AddArtifacts
 * instead, as BeginChunkedArtifact and ArtifactChunk messages with their
 * CRC-32, packed by hand (the server's share of an upload, without any
 * client logic).  No Spark Connect logic in the server,
 * so sc-serve's and sc-upload's numbers can be read as a fraction of what
 * the transport alone does on this machine.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/crc.h"
#include "core/error.h"
#include "core/protocol.h"
#include "core/rpc.h"
#include "core/rpc_server.h"
#include "core/uri.h"
#include "core/xmem.h"
#include "core/banned.h"

#define M_STREAM "/sctk.bench.Raw/Stream"
#define M_ECHO "/sctk.bench.Raw/Echo"
#define M_SINK "/sctk.bench.Raw/Sink"

/* The largest message the reference sends: below gRPC's receive limit. */
#define MAX_MSG (64UL * 1024 * 1024)
#define MAX_COUNT 100000000ULL

/* The ids in the message: UUID-shaped, as sc-serve's. */
#define UUID0 "00000000-0000-4000-8000-00000000000"

static const char usage_text[] =
    "usage: rawstream serve [--ready-file file] [--threads n]\n"
    "       rawstream stream -s uri --size bytes --count n [--start-at t]\n"
    "       rawstream unary -s uri --count n [--warmup n] [--size bytes]\n"
    "       rawstream upload -s uri --file file [--size bytes]\n"
    "                 [--artifact name --session-id uuid]\n";

#define BENCH_PROG "rawstream"
#include "bench.h"

/* ------------------------------------------------------------ server */

/*
 * The message: an ExecutePlanResponse carrying an ArrowBatch whose filler
 * data makes the packed size exactly size bytes where possible, so the
 * reference moves the same kind and size of message as sc-serve.
 */
static uint8_t *
make_message(size_t size, size_t *lenp)
{
	Spark__Connect__ExecutePlanResponse r =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
	Spark__Connect__ExecutePlanResponse__ArrowBatch b =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH__INIT;
	uint8_t *data, *out;
	size_t dlen, over, len;
	int i;

	r.session_id = (char *)UUID0 "0";
	r.server_side_session_id = (char *)UUID0 "1";
	r.operation_id = (char *)UUID0 "2";
	r.response_id = (char *)UUID0 "3";
	r.response_type_case =
	    SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH;
	r.arrow_batch = &b;
	b.row_count = 10000;
	data = sc_xcalloc(1, size + 1);
	dlen = 0;
	/* The length prefixes grow with dlen; two rounds settle them. */
	for (i = 0; i < 3; i++) {
		b.data.data = data;
		b.data.len = dlen;
		over = protobuf_c_message_get_packed_size(&r.base) - dlen;
		dlen = size > over ? size - over : 0;
	}
	b.data.data = data;
	b.data.len = dlen;
	out = sc_proto_pack_alloc(&r.base, &len);
	free(data);
	*lenp = len;
	return out;
}

struct stream_state {
	uint8_t *msg;
	size_t len;
	uint64_t left;
};

static void
stream_done(struct stream_state *st)
{
	free(st->msg);
	free(st);
}

static void
stream_sent(struct sc_rpc_call *call, bool ok, void *arg)
{
	struct stream_state *st = arg;

	if (!ok) {
		stream_done(st);
		return;
	}
	if (st->left == 0) {
		(void)sc_rpc_call_finish(call, SC_GRPC_OK, NULL, NULL, 0);
		stream_done(st);
		return;
	}
	st->left--;
	if (sc_rpc_call_send(call, st->msg, st->len, stream_sent, st) == -1)
		stream_done(st);
}

/* Request: "COUNT SIZE" in ASCII. */
static void
on_stream(struct sc_rpc_call *call, void *arg)
{
	struct stream_state *st;
	const uint8_t *req;
	char text[64];
	size_t n;
	unsigned long long count, size;

	(void)arg;
	req = sc_rpc_call_request(call, &n);
	if (n == 0 || n >= sizeof(text)) {
		(void)sc_rpc_call_finish(call, SC_GRPC_INVALID_ARGUMENT,
		    "bad request", NULL, 0);
		return;
	}
	memcpy(text, req, n);
	text[n] = '\0';
	if (sscanf(text, "%llu %llu", &count, &size) != 2 ||
	    count > MAX_COUNT || size > MAX_MSG) {
		(void)sc_rpc_call_finish(call, SC_GRPC_INVALID_ARGUMENT,
		    "bad request", NULL, 0);
		return;
	}
	if (count == 0) {
		(void)sc_rpc_call_finish(call, SC_GRPC_OK, NULL, NULL, 0);
		return;
	}
	st = sc_xcalloc(1, sizeof(*st));
	st->msg = make_message((size_t)size, &st->len);
	st->left = count - 1;
	if (sc_rpc_call_send(call, st->msg, st->len, stream_sent, st) == -1)
		stream_done(st);
}

static void
on_echo(struct sc_rpc_call *call, void *arg)
{
	const uint8_t *req;
	size_t n;

	(void)arg;
	req = sc_rpc_call_request(call, &n);
	(void)sc_rpc_call_reply(call, req, n);
}

struct sink {
	uint64_t count, bytes;
};

/* Client-streaming: count the messages and bytes, answer "COUNT BYTES". */
static void
sink_read(struct sc_rpc_call *call, const void *msg, size_t len, bool ok,
    void *arg)
{
	struct sink *st = arg;
	char reply[64];
	int n;

	if (!ok) {
		free(st);
		return;
	}
	if (msg == NULL) {
		n = snprintf(reply, sizeof(reply), "%" PRIu64 " %" PRIu64,
		    st->count, st->bytes);
		(void)sc_rpc_call_reply(call, reply, (size_t)n);
		free(st);
		return;
	}
	st->count++;
	st->bytes += len;
	if (sc_rpc_call_read(call, sink_read, st) == -1)
		free(st);
}

static void
on_sink(struct sc_rpc_call *call, void *arg)
{
	struct sink *st = sc_xcalloc(1, sizeof(*st));

	(void)arg;
	if (sc_rpc_call_read(call, sink_read, st) == -1)
		free(st);
}

static int
serve(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "ready-file", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 }
	};
	struct sc_rpc_server_opts o;
	struct sc_rpc_server *srv;
	struct sc_error err;
	const char *ready = NULL;
	char tmp[4096];
	sigset_t set;
	FILE *f;
	int ch, port, sig;

	memset(&o, 0, sizeof(o));
	o.listen = "127.0.0.1:0";
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'r':
			ready = optarg;
			break;
		case 'n':
			o.nthreads = (int)num_arg(optarg, "thread count", 64);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	/* Block before any thread starts so only sigwait() sees them. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	sc_error_init(&err);
	if ((srv = sc_rpc_server_new(&o, &err)) == NULL ||
	    sc_rpc_server_add_method(srv, M_STREAM, SC_RPC_SERVER_STREAM,
		on_stream, NULL, &err) == -1 ||
	    sc_rpc_server_add_method(srv, M_ECHO, SC_RPC_UNARY, on_echo, NULL,
		&err) == -1 ||
	    sc_rpc_server_add_method(srv, M_SINK, SC_RPC_CLIENT_STREAM, on_sink,
		NULL, &err) == -1 ||
	    sc_rpc_server_start(srv, &port, &err) == -1)
		die("server: %s", err.msg);
	if (ready != NULL) {
		/* Write then rename, so a poller never reads half a line. */
		if (snprintf(tmp, sizeof(tmp), "%s.tmp", ready) >=
		    (int)sizeof(tmp))
			die("ready file name too long");
		if ((f = fopen(tmp, "w")) == NULL)
			die("%s: %s", tmp, strerror(errno));
		fprintf(f, "sc://127.0.0.1:%d\n", port);
		if (fclose(f) != 0 || rename(tmp, ready) != 0)
			die("%s: %s", ready, strerror(errno));
	}
	fprintf(stderr, "rawstream: listening on 127.0.0.1:%d\n", port);
	if (sigwait(&set, &sig) != 0)
		die("sigwait failed");
	sc_rpc_server_shutdown(srv);
	sc_rpc_server_free(srv);
	return 0;
}

/* ------------------------------------------------------------ clients */

struct client_opts {
	const char *server;
	const char *file;
	const char *artifact;
	const char *session_id;
	uint64_t size;
	uint64_t count;
	uint64_t warmup;
	double start_at; /* realtime seconds; 0: now */
};

static void
client_args(int argc, char *argv[], struct client_opts *co)
{
	static const struct option longopts[] = {
		{ "artifact", required_argument, NULL, 'a' },
		{ "count", required_argument, NULL, 'c' },
		{ "file", required_argument, NULL, 'f' },
		{ "session-id", required_argument, NULL, 'i' },
		{ "server", required_argument, NULL, 's' },
		{ "size", required_argument, NULL, 'z' },
		{ "start-at", required_argument, NULL, 'S' },
		{ "warmup", required_argument, NULL, 'w' }, { NULL, 0, NULL, 0 }
	};
	int ch;

	memset(co, 0, sizeof(*co));
	co->warmup = 200;
	while ((ch = getopt_long(argc, argv, "s:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			co->count = num_arg(optarg, "count", MAX_COUNT);
			break;
		case 'a':
			co->artifact = optarg;
			break;
		case 'f':
			co->file = optarg;
			break;
		case 'i':
			co->session_id = optarg;
			break;
		case 's':
			co->server = optarg;
			break;
		case 'S':
			co->start_at = start_at_arg(optarg);
			break;
		case 'z':
			co->size = num_arg(optarg, "size", MAX_MSG);
			break;
		case 'w':
			co->warmup = num_arg(optarg, "warmup", MAX_COUNT);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || co->server == NULL ||
	    (co->count == 0 && co->file == NULL))
		usage();
}

static struct sc_rpc *
connect_to(const char *server)
{
	struct sc_uri u;
	struct sc_error err;
	struct sc_rpc *rpc;

	sc_error_init(&err);
	sc_uri_init(&u);
	if (sc_uri_parse(&u, server, &err) == -1)
		die("%s", err.msg);
	if ((rpc = sc_rpc_new(&u, NULL, &err)) == NULL)
		die("%s", err.msg);
	sc_uri_release(&u);
	return rpc;
}

static int
stream_client(int argc, char *argv[])
{
	struct client_opts co;
	struct sc_rpc *rpc;
	struct sc_rpc_stream *s;
	struct sc_error err;
	struct sc_buf msg;
	char req[64];
	uint64_t msgs = 0, bytes = 0;
	double t0, secs, r0;
	int r, n;

	client_args(argc, argv, &co);
	if (co.size == 0)
		usage();
	rpc = connect_to(co.server);
	sc_error_init(&err);
	sc_buf_init(&msg, SC_BUF_UNLIMITED);
	n = snprintf(req, sizeof(req), "%" PRIu64 " %" PRIu64, co.count,
	    co.size);
	wait_until(co.start_at);
	r0 = real_s();
	t0 = now_s();
	if ((s = sc_rpc_stream_open(rpc, M_STREAM, req, (size_t)n, NULL,
		 &err)) == NULL)
		die("stream: %s", err.msg);
	while ((r = sc_rpc_stream_read(s, &msg, NULL, &err)) == 1) {
		msgs++;
		bytes += msg.len;
	}
	secs = now_s() - t0;
	if (r == -1)
		die("stream: %s", err.msg);
	sc_rpc_stream_free(s);
	sc_buf_release(&msg);
	sc_rpc_free(rpc);
	if (msgs != co.count)
		die("stream: %" PRIu64 " messages, expected %" PRIu64, msgs,
		    co.count);
	printf("msgs=%" PRIu64 " bytes=%" PRIu64 " avg_msg=%.0f secs=%.6f "
	       "msgs_per_s=%.0f mb_per_s=%.2f t_start=%.6f t_end=%.6f\n",
	    msgs, bytes, (double)bytes / (double)msgs, secs,
	    (double)msgs / secs, (double)bytes / secs / 1e6, r0, r0 + secs);
	return 0;
}

static int
unary_client(int argc, char *argv[])
{
	struct client_opts co;
	struct sc_rpc *rpc;
	struct sc_error err;
	struct sc_buf resp;
	uint8_t *req;
	double *lat, t0, sum = 0;
	uint64_t i;

	client_args(argc, argv, &co);
	if (co.size == 0)
		co.size = 32;
	rpc = connect_to(co.server);
	sc_error_init(&err);
	sc_buf_init(&resp, SC_BUF_UNLIMITED);
	req = sc_xmalloc(co.size);
	memset(req, 'x', co.size);
	lat = sc_xcalloc(co.count, sizeof(*lat));
	for (i = 0; i < co.warmup + co.count; i++) {
		sc_buf_reset(&resp);
		t0 = now_s();
		if (sc_rpc_unary(rpc, M_ECHO, req, co.size, &resp, NULL,
			&err) == -1)
			die("unary: %s", err.msg);
		if (resp.len != co.size)
			die("unary: echo of %zu bytes, sent %" PRIu64, resp.len,
			    co.size);
		if (i >= co.warmup) {
			lat[i - co.warmup] = now_s() - t0;
			sum += lat[i - co.warmup];
		}
	}
	qsort(lat, co.count, sizeof(*lat), cmp_double);
	printf("count=%" PRIu64 " p50_us=%.1f p99_us=%.1f mean_us=%.1f "
	       "max_us=%.1f\n",
	    co.count, percentile(lat, co.count, 50) * 1e6,
	    percentile(lat, co.count, 99) * 1e6, sum / (double)co.count * 1e6,
	    lat[co.count - 1] * 1e6);
	free(lat);
	free(req);
	sc_buf_release(&resp);
	sc_rpc_free(rpc);
	return 0;
}

/*
 * One piece as a message: the raw bytes for the sink, or an
 * AddArtifactsRequest (begin_chunk for the first, chunk after) packed
 * into msg.
 */
static const void *
piece_message(const struct client_opts *co, struct sc_buf *msg,
    const uint8_t *data, size_t len, uint64_t index, uint64_t total,
    size_t *lenp)
{
	Spark__Connect__AddArtifactsRequest req =
	    SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__INIT;
	Spark__Connect__AddArtifactsRequest__BeginChunkedArtifact b =
	    SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__BEGIN_CHUNKED_ARTIFACT__INIT;
	Spark__Connect__AddArtifactsRequest__ArtifactChunk c =
	    SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__ARTIFACT_CHUNK__INIT;
	Spark__Connect__UserContext uc = SPARK__CONNECT__USER_CONTEXT__INIT;
	struct sc_error err;

	if (co->artifact == NULL) {
		*lenp = len;
		return data;
	}
	uc.user_id = (char *)"bench";
	req.session_id = (char *)co->session_id;
	req.user_context = &uc;
	c.data.data = (uint8_t *)data;
	c.data.len = len;
	c.crc = sc_crc32_update(0, data, len);
	if (index == 0) {
		b.name = (char *)co->artifact;
		b.total_bytes = (int64_t)total;
		b.num_chunks = (int64_t)((total + co->size - 1) / co->size);
		b.initial_chunk = &c;
		req.payload_case =
		    SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_BEGIN_CHUNK;
		req.begin_chunk = &b;
	} else {
		req.payload_case =
		    SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_CHUNK;
		req.chunk = &c;
	}
	sc_error_init(&err);
	sc_buf_reset(msg);
	if (sc_proto_pack(&req.base, msg, &err) == -1)
		die("pack: %s", err.msg);
	*lenp = msg->len;
	return msg->data;
}

/* The answer: the sink's counts, or one artifact stored with a good CRC. */
static void
check_answer(const struct client_opts *co, const struct sc_buf *resp,
    uint64_t msgs, uint64_t bytes)
{
	Spark__Connect__AddArtifactsResponse *r;
	struct sc_error err;
	uint64_t got_msgs, got_bytes;

	if (co->artifact == NULL) {
		if (sscanf((const char *)resp->data, "%" SCNu64 " %" SCNu64,
			&got_msgs, &got_bytes) != 2 ||
		    got_msgs != msgs || got_bytes != bytes)
			die("upload: the sink counted '%s', sent %" PRIu64
			    " %" PRIu64,
			    (const char *)resp->data, msgs, bytes);
		return;
	}
	sc_error_init(&err);
	r = sc_proto_unpack(&spark__connect__add_artifacts_response__descriptor,
	    resp->data, resp->len, &err);
	if (r == NULL)
		die("upload: %s", err.msg);
	if (r->n_artifacts != 1 ||
	    strcmp(r->artifacts[0]->name, co->artifact) != 0 ||
	    !r->artifacts[0]->is_crc_successful)
		die("upload: the server did not store '%s'", co->artifact);
	protobuf_c_message_free_unpacked(&r->base, NULL);
}

/*
 * The file in --size pieces (default 32 KiB, Spark's chunk), each piece
 * one message, on one client-streaming call: what the transport does
 * with the same bytes as an upload, reading included.
 */
static int
upload_client(int argc, char *argv[])
{
	struct client_opts co;
	struct sc_rpc *rpc;
	struct sc_rpc_upload *up;
	struct sc_error err;
	struct sc_buf resp, msg;
	struct stat st;
	const void *m;
	uint8_t *buf;
	uint64_t msgs = 0, bytes = 0;
	size_t have, mlen;
	ssize_t r;
	double t0, secs;
	int fd;

	client_args(argc, argv, &co);
	if (co.file == NULL || (co.artifact != NULL) != (co.session_id != NULL))
		usage();
	if (co.size == 0)
		co.size = 32768;
	if ((fd = open(co.file, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1)
		die("%s: %s", co.file, strerror(errno));
	rpc = connect_to(co.server);
	sc_error_init(&err);
	sc_buf_init(&resp, SC_BUF_UNLIMITED);
	sc_buf_init(&msg, SC_BUF_UNLIMITED);
	buf = sc_xmalloc(co.size);
	t0 = now_s();
	if ((up = sc_rpc_upload_open(rpc,
		 co.artifact != NULL ? SC_METHOD_ADD_ARTIFACTS : M_SINK, NULL,
		 &err)) == NULL)
		die("upload: %s", err.msg);
	for (;;) {
		/* Whole pieces, as an uploader would send them. */
		have = 0;
		while (have < co.size &&
		    (r = read(fd, buf + have, co.size - have)) != 0) {
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				die("%s: %s", co.file, strerror(errno));
			have += (size_t)r;
		}
		if (have == 0)
			break;
		m = piece_message(&co, &msg, buf, have, msgs,
		    (uint64_t)st.st_size, &mlen);
		if (sc_rpc_upload_write(up, m, mlen, &err) == -1)
			die("upload: %s", err.msg);
		msgs++;
		bytes += have;
	}
	if (sc_rpc_upload_finish(up, &resp, &err) == -1)
		die("upload: %s", err.msg);
	secs = now_s() - t0;
	check_answer(&co, &resp, msgs, bytes);
	sc_rpc_upload_free(up);
	close(fd);
	free(buf);
	sc_buf_release(&resp);
	sc_buf_release(&msg);
	sc_rpc_free(rpc);
	printf("msgs=%" PRIu64 " bytes=%" PRIu64 " secs=%.6f mb_per_s=%.2f\n",
	    msgs, bytes, secs, (double)bytes / secs / 1e6);
	return 0;
}

int
main(int argc, char *argv[])
{
	if (argc < 2)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(argv[1], "serve") == 0)
		return serve(argc - 1, argv + 1);
	if (strcmp(argv[1], "stream") == 0)
		return stream_client(argc - 1, argv + 1);
	if (strcmp(argv[1], "unary") == 0)
		return unary_client(argc - 1, argv + 1);
	if (strcmp(argv[1], "upload") == 0)
		return upload_client(argc - 1, argv + 1);
	usage();
}
