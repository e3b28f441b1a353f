/* SPDX-License-Identifier: MIT */

/*
 * test-client.c: the client API (core/client).
 *
 * Against a scripted fake transport: sc_client_call()'s stamping,
 * retries with their event lines, id checks and errors; the event-to-
 * log-line policy; a release worker that cannot start.  Against a real
 * sc-serve ($SCTK_BUILD/bin/sc-serve on 127.0.0.1 port 0): every
 * synchronous call (Config, ArtifactStatus, Interrupt by tag, id and
 * all, ReleaseExecute, ReleaseSession, AnalyzePlan) and a connection
 * that finds nobody listening.
 */

#include "core/client.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/conn.h"
#include "core/error.h"
#include "core/log.h"
#include "core/plan.h"
#include "core/protocol.h"
#include "core/reattach.h"
#include "core/result.h"
#include "core/timeutil.h"
#include "core/uri.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "child.h"
#include "tap.h"
#include "core/banned.h"

#define SID "00112233-4455-6677-8899-aabbccddeeff"

/* ------------------------------------------------------ fake transport */

#define MAXCALLS 8

/* One scripted answer: a gRPC failure, or a ConfigResponse. */
struct answer {
	int code; /* 0: answer */
	const char *msg;
	const char *sid; /* session id answered (NULL: SID) */
	const char *ssid; /* server-side session id answered */
	bool garbage; /* answer bytes that do not parse */
};

static struct {
	struct answer a[MAXCALLS];
	int n, next;
	char observed[MAXCALLS][64]; /* observed ssid per request, "" none */
	char user[MAXCALLS][64];
	char ctype[MAXCALLS][64];
} F;

static int
f_unary(void *ctx, const char *method, const void *req, size_t reqlen,
    struct sc_buf *resp, const struct timespec *deadline, struct sc_error *err)
{
	Spark__Connect__ConfigRequest *r;
	Spark__Connect__ConfigResponse out =
	    SPARK__CONNECT__CONFIG_RESPONSE__INIT;
	const struct answer *a;
	int i = F.next;

	(void)ctx;
	(void)deadline;
	if (strcmp(method, SC_METHOD_CONFIG) != 0 || i >= F.n)
		return sc_error_from_grpc(err, SC_GRPC_FAILED_PRECONDITION,
		    "unexpected call", NULL, 0);
	r = sc_proto_unpack(&spark__connect__config_request__descriptor, req,
	    reqlen, NULL);
	snprintf(F.observed[i], sizeof(F.observed[i]), "%s",
	    r->_client_observed_server_side_session_id_case != 0
		? r->client_observed_server_side_session_id
		: "");
	snprintf(F.user[i], sizeof(F.user[i]), "%s",
	    r->user_context != NULL ? r->user_context->user_id : "");
	snprintf(F.ctype[i], sizeof(F.ctype[i]), "%s",
	    r->_client_type_case != 0 ? r->client_type : "");
	protobuf_c_message_free_unpacked(&r->base, NULL);
	a = &F.a[F.next++];
	if (a->code != 0)
		return sc_error_from_grpc(err, a->code, a->msg, NULL, 0);
	if (a->garbage)
		return sc_buf_add(resp, "\xff\xff", 2, err);
	out.session_id = (char *)(a->sid != NULL ? a->sid : SID);
	out.server_side_session_id = (char *)(a->ssid != NULL ? a->ssid : "");
	return sc_proto_pack(&out.base, resp, err);
}

static void *
f_open(void *ctx, const char *method, const void *req, size_t reqlen,
    const struct timespec *deadline, struct sc_error *err)
{
	(void)ctx;
	(void)method;
	(void)req;
	(void)reqlen;
	(void)deadline;
	sc_error_from_grpc(err, SC_GRPC_UNIMPLEMENTED, "no streams", NULL, 0);
	return NULL;
}

static int
f_read(void *stream, struct sc_buf *msg, const struct timespec *wait_until,
    struct sc_error *err)
{
	(void)stream;
	(void)msg;
	(void)wait_until;
	(void)err;
	return 0;
}

static void
f_stream(void *stream)
{
	(void)stream;
}

static const struct sc_transport fake = { f_open, f_read, f_stream, f_stream,
	f_unary, NULL, NULL, NULL };

static char ev_text[MAXCALLS][512];
static int nev;

static void
on_event(const struct sc_client_event *ev, void *arg)
{
	(void)arg;
	if (nev < MAXCALLS)
		snprintf(ev_text[nev++], sizeof(ev_text[0]), "%s", ev->text);
}

static struct sc_client *
fake_client(void)
{
	struct sc_client_opts o;
	struct sc_client *c;

	memset(&F, 0, sizeof(F));
	nev = 0;
	memset(&o, 0, sizeof(o));
	o.session_id = SID;
	o.user_id = "alice";
	o.on_event = on_event;
	if ((c = sc_client_new_transport(&fake, NULL, NULL, &o, NULL)) == NULL)
		abort();
	return c;
}

/* A GetAll Config request, made the way the synchronous calls do it. */
static int
call(struct sc_client *c, struct sc_error *err)
{
	Spark__Connect__ConfigRequest req =
	    SPARK__CONNECT__CONFIG_REQUEST__INIT;
	Spark__Connect__ConfigRequest__Operation op =
	    SPARK__CONNECT__CONFIG_REQUEST__OPERATION__INIT;
	Spark__Connect__ConfigRequest__GetAll all =
	    SPARK__CONNECT__CONFIG_REQUEST__GET_ALL__INIT;
	void *resp;

	op.op_type_case = SC_CONF_OP_(GET_ALL);
	op.get_all = &all;
	req.operation = &op;
	if (sc_client_call(c, SC_METHOD_CONFIG, &req.base,
		&spark__connect__config_response__descriptor, &resp, NULL,
		err) == -1)
		return -1;
	protobuf_c_message_free_unpacked(resp, NULL);
	return 0;
}

static void
test_call(void)
{
	struct sc_client *c;
	struct sc_error err;

	/* Two UNAVAILABLE, then the answer: retried, one event each. */
	c = fake_client();
	F.a[0] =
	    (struct answer){ SC_GRPC_UNAVAILABLE, "down", NULL, NULL, false };
	F.a[1] = (struct answer){ SC_GRPC_UNAVAILABLE, "still down", NULL, NULL,
		false };
	F.a[2] = (struct answer){ 0, NULL, NULL, "ss-1", false };
	F.a[3] = (struct answer){ 0, NULL, NULL, "ss-1", false };
	F.n = 4;
	is_int(call(c, &err), 0, "call: success after two retries");
	is_int(F.next, 3, "  three attempts");
	is_int(nev, 2, "  two retry events");
	is_str(ev_text[0],
	    "server unavailable, retrying Config in 0.05s (attempt 1 of 3): down",
	    "  first retry line");
	is_str(ev_text[1],
	    "server unavailable, retrying Config in 0.2s (attempt 2 of 3): still down",
	    "  second retry line (3 retries until the server answers)");
	ok(strcmp(F.user[0], "alice") == 0 &&
		strncmp(F.ctype[0], "sctk/", 5) == 0,
	    "  the request carries user and client type");
	is_str(F.observed[2], "", "  no server-side id observed yet");
	ok(sc_client_reached(c), "  the server was reached");
	is_str(sc_client_server_side_session_id(c), "ss-1",
	    "  its server-side id remembered");
	is_int(call(c, &err), 0, "a second call");
	is_str(F.observed[3], "ss-1", "  sends the observed server-side id");
	sc_client_free(c);

	/* Not retryable: the first error comes back. */
	c = fake_client();
	F.a[0] = (struct answer){ SC_GRPC_INVALID_ARGUMENT,
		"[INVALID_PLAN_INPUT] no", NULL, NULL, false };
	F.n = 1;
	is_int(call(c, &err), -1, "INVALID_ARGUMENT: no retry");
	ok(err.status == SC_ST_FAILED && err.rpc_code == 3 &&
		strcmp(err.errclass, "INVALID_PLAN_INPUT") == 0,
	    "  status failed (exit 1), its code and error class");
	is_int(nev, 0, "  no retry event");
	sc_client_free(c);

	/* Answers that are not for us. */
	c = fake_client();
	F.a[0] = (struct answer){ 0, NULL,
		"ffffffff-4455-6677-8899-aabbccddeeff", NULL, false };
	F.a[1] = (struct answer){ 0, NULL, NULL, NULL, true };
	F.a[2] = (struct answer){ 0, NULL, NULL, "ss-1", false };
	F.a[3] = (struct answer){ 0, NULL, NULL, "ss-2", false };
	F.n = 4;
	is_int(call(c, &err), -1, "an answer for another session");
	is_str(err.msg,
	    "server answered for session 'ffffffff-4455-6677-8899-aabbccddeeff', expected '" SID
	    "'",
	    "  message");
	is_int(err.status, SC_ST_PROTOCOL, "  status protocol (exit 7)");
	is_int(call(c, &err), -1, "an answer that does not parse");
	is_str(err.msg, "malformed ConfigResponse message", "  message");
	is_int(call(c, &err), 0, "server-side session ss-1");
	is_int(call(c, &err), -1, "then ss-2");
	is_str(err.msg,
	    "server-side session changed from 'ss-1' to 'ss-2' (the server restarted or the session was re-created)",
	    "  message");
	is_int(F.next, 4, "  none of them retried");
	sc_client_free(c);
}

static void
test_events(void)
{
	struct sc_client_event ev;
	struct sc_client *c;
	struct sc_error err;
	char buf[256];
	int p[2], saved;
	ssize_t n;

	c = fake_client();
	memset(&ev, 0, sizeof(ev));
	ev.client = c;
	ev.kind = SC_CLIENT_EV_RETRY;
	is_int(sc_client_event_level(&ev), SC_LOG_INFO, "a retry: info (-v)");
	ev.kind = SC_CLIENT_EV_RELEASE_FAILED;
	is_int(sc_client_event_level(&ev), SC_LOG_INFO,
	    "a failed release, server never reached: info");
	F.a[0] = (struct answer){ 0, NULL, NULL, NULL, false };
	F.n = 1;
	call(c, &err);
	is_int(sc_client_event_level(&ev), SC_LOG_WARN,
	    "a failed release after the server answered: warning");
	{
		struct sc_error why;

		sc_error_init(&why);
		sc_error_set(&why, SC_ST_TIMEOUT,
		    "ReleaseExecute timed out; last error: timed out waiting");
		ev.err = &why;
		is_int(sc_client_event_level(&ev), SC_LOG_INFO,
		    "a release that timed out (busy server): info");
		why.status = SC_ST_UNAVAILABLE;
		is_int(sc_client_event_level(&ev), SC_LOG_INFO,
		    "a release the server was not there for: info");
		why.status = SC_ST_FAILED;
		is_int(sc_client_event_level(&ev), SC_LOG_WARN,
		    "a release the server refused: warning");
		ok(!sc_client_release_unconfirmed(NULL),
		    "no error: not unconfirmed");
		ev.err = NULL;
	}

	/* sc_client_log_event writes at that level, through core/log. */
	fflush(stderr);
	saved = dup(2);
	if (pipe(p) == -1)
		abort();
	dup2(p[1], 2);
	close(p[1]);
	sc_log_init("sc-test", SC_LOG_STYLE_CLIENT, SC_LOG_WARN);
	ev.text = "ReleaseAll of operation x failed: gone";
	sc_client_log_event(&ev, NULL);
	ev.kind = SC_CLIENT_EV_RETRY;
	ev.text = "hidden at the default level";
	sc_client_log_event(&ev, NULL);
	sc_log_level = SC_LOG_INFO;
	ev.text = "shown with -v";
	sc_client_log_event(&ev, NULL);
	sc_log_level = SC_LOG_WARN;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	buf[n > 0 ? n : 0] = '\0';
	is_str(buf,
	    "sc-test: ReleaseAll of operation x failed: gone\n"
	    "sc-test: shown with -v\n",
	    "log lines by the policy and the log level");
	sc_client_free(c);
}

static void
child_no_worker(const void *arg)
{
	struct sc_client_opts o;
	struct sc_error err;

	(void)arg;
	memset(&o, 0, sizeof(o));
	if (child_no_room_for_threads() == -1)
		exit(3);
	if (sc_client_new_transport(&fake, NULL, NULL, &o, &err) != NULL)
		exit(4);
	fprintf(stderr, "%d %s", (int)err.status, err.msg);
	exit(0);
}

/* A process out of room for threads gets an error, not an abort. */
static void
test_no_worker(void)
{
	struct child k;

	if (getenv("SCTK_SANITIZE") != NULL) {
		ok(1, "# SKIP address-space limits break the sanitizers");
		return;
	}
	child_run(&k, child_no_worker, NULL, -1);
	ok(WIFEXITED(k.status) && WEXITSTATUS(k.status) == 0,
	    "no room for the release worker: sc_client_new fails, no abort");
	is_str(k.errbuf,
	    "10 cannot start the release worker thread: Resource temporarily unavailable",
	    "  SC_ST_INTERNAL (exit 10), with the reason");
}

/* ----------------------------------------------------------- sc-serve */

static char server[128]; /* sc://127.0.0.1:port */
static char tmpdir[64];
static pid_t server_pid = -1;

static bool
start_server(void)
{
	char bin[512], ready[128], log[128];
	const char *build = getenv("SCTK_BUILD");
	int i, n = getenv("SCTK_SANITIZE") != NULL ? 500 : 50, fd;
	FILE *fp;

	snprintf(bin, sizeof(bin), "%s/bin/sc-serve",
	    build != NULL ? build : "build");
	tap_template(tmpdir, sizeof(tmpdir), "sc-test-client");
	if (mkdtemp(tmpdir) == NULL)
		return false;
	snprintf(ready, sizeof(ready), "%s/ready", tmpdir);
	snprintf(log, sizeof(log), "%s/server.log", tmpdir);
	fflush(stdout);
	if ((server_pid = fork()) == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(bin, "sc-serve", "--listen", "127.0.0.1:0",
		    "--ready-file", ready, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < n; i++) {
		if ((fp = fopen(ready, "r")) != NULL) {
			if (fgets(server, sizeof(server), fp) != NULL)
				server[strcspn(server, "\n")] = '\0';
			fclose(fp);
			if (server[0] != '\0')
				return true;
		}
		usleep(100000);
	}
	return false;
}

static void
stop_server(void)
{
	char path[128];
	int i, st = 0;

	if (server_pid > 0) {
		kill(server_pid, SIGTERM);
		for (i = 0; i < 600; i++) {
			if (waitpid(server_pid, &st, WNOHANG) == server_pid)
				break;
			usleep(100000);
		}
		if (i == 600) {
			kill(server_pid, SIGKILL);
			waitpid(server_pid, &st, 0);
		}
		ok(i < 600 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "sc-serve stopped cleanly");
	}
	snprintf(path, sizeof(path), "%s/ready", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/server.log", tmpdir);
	unlink(path);
	rmdir(tmpdir);
}

/* A client of the server, in session sid (NULL: a new one). */
static struct sc_client *
live_client(const char *sid)
{
	struct sc_conn_opts co;
	struct sc_client *c;
	struct sc_error err;

	sc_conn_opts_init(&co);
	co.server = server;
	co.session_id = sid;
	co.user_id = "tester";
	c = sc_client_connect(&co, NULL, &err);
	sc_conn_opts_release(&co);
	if (c == NULL)
		printf("# connect: %s\n", err.msg);
	return c;
}

/* Every Config operation, and the errors Spark gives for two of them. */
static void
test_config(struct sc_client *c, const struct timespec *dl)
{
	static const char *const keys[] = { "spark.sql.sctk.test",
		"spark.sql.sctk.none" };
	static const char *const vals[] = { "on", "dflt" };
	static const char *const fixed[] = { "spark.connect.grpc.port" };
	struct sc_client_conf_req rq;
	struct sc_client_conf out;
	struct sc_error err;
	size_t i;
	bool found = false;

	memset(&rq, 0, sizeof(rq));
	rq.op = SC_CLIENT_CONF_SET;
	rq.keys = keys;
	rq.values = vals;
	rq.n = 1;
	is_int(sc_client_config(c, &rq, &out, dl, &err), 0, "Config set");
	sc_client_conf_release(&out);

	rq.op = SC_CLIENT_CONF_GET;
	is_int(sc_client_config(c, &rq, &out, dl, &err), 0, "Config get");
	ok(out.n == 1 && strcmp(out.keys[0], keys[0]) == 0 &&
		out.values[0] != NULL && strcmp(out.values[0], "on") == 0,
	    "  the value set");
	sc_client_conf_release(&out);

	rq.op = SC_CLIENT_CONF_GET_OPTION;
	rq.n = 2;
	is_int(sc_client_config(c, &rq, &out, dl, &err), 0,
	    "Config get_option");
	ok(out.n == 2 && strcmp(out.values[0], "on") == 0 &&
		out.values[1] == NULL,
	    "  a value, and none for an unset key");
	sc_client_conf_release(&out);

	rq.op = SC_CLIENT_CONF_GET_WITH_DEFAULT;
	is_int(sc_client_config(c, &rq, &out, dl, &err), 0,
	    "Config get_with_default");
	ok(out.n == 2 && strcmp(out.values[0], "on") == 0 &&
		out.values[1] != NULL && strcmp(out.values[1], "dflt") == 0,
	    "  the value, and the default for an unset key");
	sc_client_conf_release(&out);

	rq.op = SC_CLIENT_CONF_IS_MODIFIABLE;
	rq.keys = fixed;
	rq.n = 1;
	is_int(sc_client_config(c, &rq, &out, dl, &err), 0,
	    "Config is_modifiable");
	ok(out.n == 1 && strcmp(out.values[0], "false") == 0,
	    "  a server setting is not");
	sc_client_conf_release(&out);

	rq.op = SC_CLIENT_CONF_GET_ALL;
	rq.prefix = "spark.sql.sctk.";
	is_int(sc_client_config(c, &rq, &out, dl, &err), 0, "Config get_all");
	for (i = 0; i < out.n; i++)
		found = found ||
		    (strstr(out.keys[i], "test") != NULL &&
			strcmp(out.values[i], "on") == 0);
	ok(found, "  holds the setting");
	sc_client_conf_release(&out);

	rq.op = SC_CLIENT_CONF_UNSET;
	rq.keys = keys;
	rq.prefix = NULL;
	is_int(sc_client_config(c, &rq, &out, dl, &err), 0, "Config unset");
	sc_client_conf_release(&out);
	rq.op = SC_CLIENT_CONF_GET;
	is_int(sc_client_config(c, &rq, &out, dl, &err), -1,
	    "Config get of an unset key fails");
	ok(strcmp(err.errclass, "SQL_CONF_NOT_FOUND") == 0 &&
		err.status == SC_ST_FAILED,
	    "  SQL_CONF_NOT_FOUND, exit 1");
	ok(out.n == 0 && out.keys == NULL, "  the answer is left empty");

	rq.op = SC_CLIENT_CONF_SET;
	rq.keys = fixed;
	rq.values = vals;
	is_int(sc_client_config(c, &rq, &out, dl, &err), -1,
	    "Config set of a server setting fails");
	is_str(err.errclass, "CANNOT_MODIFY_CONFIG", "  CANNOT_MODIFY_CONFIG");
	rq.silent = true;
	is_int(sc_client_config(c, &rq, &out, dl, &err), 0,
	    "  silently: no error");
	ok(out.nwarnings == 1 && strstr(out.warnings[0], fixed[0]) != NULL,
	    "  but a warning naming the key");
	sc_client_conf_release(&out);
}

/*
 * Start a long range as operation opid (with tag, if not NULL), read its
 * first response, and leave it running; its response id goes to rid.
 */
static bool
start_op(struct sc_client *c, const char *opid, const char *tag, char rid[128])
{
	struct sc_reattach_exec ex = { opid, &tag, tag != NULL ? 1 : 0 };
	struct sc_reattach *it;
	struct sc_result r;
	struct sc_plan *p;
	struct sc_error err;
	int k;

	p = sc_plan_range(0, 1000000000, 1);
	it = sc_reattach_execute(c, p, &ex, NULL, &err);
	sc_plan_free(p);
	if (it == NULL)
		return false;
	k = sc_reattach_next_result(it, &r, &err);
	if (k == 1) {
		snprintf(rid, 128, "%s",
		    r.response_id != NULL ? r.response_id : "");
		sc_result_release(&r);
	}
	sc_reattach_detach(it);
	return k == 1;
}

static bool
has_id(const struct sc_client_strings *s, const char *id)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i], id) == 0)
			return true;
	return false;
}

static void
test_operations(struct sc_client *c, const struct timespec *dl)
{
	static const char op1[] = "11111111-0000-4000-8000-000000000001";
	static const char op2[] = "11111111-0000-4000-8000-000000000002";
	static const char op3[] = "11111111-0000-4000-8000-000000000003";
	static const char op4[] = "11111111-0000-4000-8000-000000000004";
	struct sc_client_strings ids;
	struct sc_error err;
	char rid[128];
	bool found;

	ok(start_op(c, op1, "nightly", rid), "operation 1 runs, tagged");
	is_int(sc_client_interrupt(c, SC_CLIENT_INTERRUPT_TAG, "nightly", &ids,
		   dl, &err),
	    0, "Interrupt by tag");
	ok(ids.n == 1 && has_id(&ids, op1), "  interrupted operation 1");
	sc_client_strings_release(&ids);
	is_int(sc_client_interrupt(c, SC_CLIENT_INTERRUPT_TAG, "nobody", &ids,
		   dl, &err),
	    0, "Interrupt by a tag nobody has");
	is_int(ids.n, 0, "  interrupted nothing");
	sc_client_strings_release(&ids);

	ok(start_op(c, op2, NULL, rid), "operation 2 runs");
	is_int(sc_client_interrupt(c, SC_CLIENT_INTERRUPT_OPERATION, op2, &ids,
		   dl, &err),
	    0, "Interrupt by operation id");
	ok(ids.n == 1 && has_id(&ids, op2), "  interrupted operation 2");
	sc_client_strings_release(&ids);
	is_int(sc_client_interrupt(c, SC_CLIENT_INTERRUPT_TAG, NULL, &ids, dl,
		   &err),
	    -1, "Interrupt by tag without a tag");
	is_str(err.msg, "no tag to interrupt", "  message");

	ok(start_op(c, op3, NULL, rid) && rid[0] != '\0',
	    "operation 3 runs, a response id read");
	is_int(sc_client_release_execute(c, op3, rid, &found, dl, &err), 0,
	    "ReleaseExecute until that response");
	ok(found, "  the server knew the operation");
	is_int(sc_client_release_execute(c, op3, NULL, &found, dl, &err), 0,
	    "ReleaseExecute all");
	ok(found, "  the server knew the operation");
	is_int(sc_client_release_execute(c, op3, NULL, &found, dl, &err), 0,
	    "ReleaseExecute all again");
	ok(!found, "  the server no longer knows it, which is no error");

	ok(start_op(c, op4, NULL, rid), "operation 4 runs");
	is_int(sc_client_interrupt(c, SC_CLIENT_INTERRUPT_ALL, NULL, &ids, dl,
		   &err),
	    0, "Interrupt all");
	ok(has_id(&ids, op4), "  interrupted operation 4 among them");
	sc_client_strings_release(&ids);
	sc_client_release_execute(c, op1, NULL, NULL, dl, &err);
	sc_client_release_execute(c, op2, NULL, NULL, dl, &err);
	sc_client_release_execute(c, op4, NULL, NULL, dl, &err);
}

static void
test_artifacts_analyze(struct sc_client *c, const struct timespec *dl)
{
	static const char *const names[] = { "jars/a.jar", "cache/abc" };
	struct sc_result_schema *s;
	struct sc_plan *p;
	struct sc_error err;
	struct sc_buf tn;
	bool exists[2] = { true, true };

	is_int(sc_client_artifact_status(c, names, 2, exists, dl, &err), 0,
	    "ArtifactStatus");
	ok(!exists[0] && !exists[1], "  sc-serve holds no artifacts");

	p = sc_plan_sql("SELECT 1 AS a, 'x' AS b");
	is_int(sc_client_analyze_schema(c, p, &s, dl, &err), 0,
	    "AnalyzePlan schema");
	ok(sc_result_schema_ncols(s) == 2 &&
		strcmp(sc_result_schema_name(s, 0), "a") == 0 &&
		strcmp(sc_result_schema_name(s, 1), "b") == 0,
	    "  columns a and b");
	sc_buf_init(&tn, SC_BUF_UNLIMITED);
	is_int(sc_result_schema_type_name(s, 1, &tn, &err), 0,
	    "  b's type name");
	is_str((const char *)tn.data, "string", "  b is a string");
	sc_buf_release(&tn);
	sc_result_schema_free(s);
	sc_plan_free(p);
	p = sc_plan_sql("SELECT * FROM no_such_table");
	is_int(sc_client_analyze_schema(c, p, &s, dl, &err), -1,
	    "AnalyzePlan of a missing table");
	ok(strcmp(err.errclass, "TABLE_OR_VIEW_NOT_FOUND") == 0 &&
		err.status == SC_ST_FAILED,
	    "  TABLE_OR_VIEW_NOT_FOUND, exit 1");
	sc_plan_free(p);
}

static void
test_release_session(const struct timespec *dl)
{
	static const char s1[] = "22222222-0000-4000-8000-000000000001";
	static const char s2[] = "22222222-0000-4000-8000-000000000002";
	static const char *const keys[] = { "spark.sql.sctk.test" };
	struct sc_client_conf_req rq;
	struct sc_client_conf out;
	struct sc_client *c;
	struct sc_error err;

	memset(&rq, 0, sizeof(rq));
	rq.op = SC_CLIENT_CONF_GET_OPTION;
	rq.keys = keys;
	rq.n = 1;

	c = live_client(s1);
	is_int(sc_client_config(c, &rq, &out, dl, &err), 0, "session 1 in use");
	sc_client_conf_release(&out);
	is_int(sc_client_release_session(c, false, dl, &err), 0,
	    "ReleaseSession");
	sc_client_free(c);
	c = live_client(s1);
	is_int(sc_client_config(c, &rq, &out, dl, &err), -1,
	    "  a released session cannot be used again");
	is_str(err.errclass, "INVALID_HANDLE.SESSION_CLOSED",
	    "  INVALID_HANDLE.SESSION_CLOSED");
	sc_client_free(c);

	c = live_client(s2);
	is_int(sc_client_config(c, &rq, &out, dl, &err), 0, "session 2 in use");
	sc_client_conf_release(&out);
	is_int(sc_client_release_session(c, true, dl, &err), 0,
	    "ReleaseSession, reconnect allowed");
	sc_client_free(c);
	c = live_client(s2);
	is_int(sc_client_config(c, &rq, &out, dl, &err), 0,
	    "  the session id starts afresh");
	sc_client_conf_release(&out);
	sc_client_free(c);
}

/* Nobody listening: UNAVAILABLE (exit 4) after the connect retries. */
static void
test_unreachable(void)
{
	struct sc_client_opts o;
	struct sc_client_conf_req rq;
	struct sc_client_conf out;
	struct sc_conn_opts co;
	struct sc_client *c;
	struct sc_error err;

	sc_conn_opts_init(&co);
	co.server = "sc://127.0.0.1:1";
	memset(&o, 0, sizeof(o));
	o.on_event = on_event;
	nev = 0;
	c = sc_client_connect(&co, &o, &err);
	memset(&rq, 0, sizeof(rq));
	rq.op = SC_CLIENT_CONF_GET_ALL;
	is_int(sc_client_config(c, &rq, &out, NULL, &err), -1,
	    "nobody listening: the call fails");
	is_int(err.status, SC_ST_UNAVAILABLE, "  status unavailable (exit 4)");
	is_int(nev, 3, "  after three retries, one event each");
	ok(strncmp(ev_text[0],
	       "server unavailable, retrying Config in 0.05s (attempt 1 of 3): ",
	       62) == 0,
	    "  the first retry line");
	sc_client_free(c);

	/* A -H the address sets too never gets as far as a client. */
	sc_conn_opt(&co, 'H', "x-a=1", &err);
	co.server = "sc://127.0.0.1:1/;x-a=2";
	ok(sc_client_connect(&co, NULL, &err) == NULL &&
		err.status == SC_ST_USAGE,
	    "sc_client_connect refuses a duplicate header (exit 2)");
	sc_conn_opts_release(&co);
}

static void
test_live(void)
{
	struct sc_client *c;
	struct timespec dl;

	if (!start_server()) {
		ok(0, "sc-serve started");
		stop_server();
		return;
	}
	sc_deadline_in_ms(&dl, 60000);
	c = live_client(NULL);
	ok(c != NULL && sc_client_session_is_new(c),
	    "a client in a new session");
	is_str(sc_client_user_id(c), "tester", "  with the --user-id given");
	is_str(sc_client_server(c), server, "  on the server given");
	test_config(c, &dl);
	test_operations(c, &dl);
	test_artifacts_analyze(c, &dl);
	sc_client_release_wait(c, NULL);
	sc_client_free(c);
	test_release_session(&dl);
	stop_server();
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	/* First: glibc would reuse the stack of a thread that has ended. */
	test_no_worker();
	test_call();
	test_events();
	test_unreachable();
	test_live();
	return tap_done();
}
