/* SPDX-License-Identifier: MIT */

/*
 * exec-fake.h: the fake harness the execution manager tests share: fake
 * calls with flow control by hand, a fake runner driven by the plan's SQL
 * text, a fake clock, and helpers that build ExecutePlan, ReattachExecute
 * and ReleaseExecute requests against one manager.
 */

#ifndef SC_TEST_EXEC_FAKE_H
#define SC_TEST_EXEC_FAKE_H

#include "server/exec.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/uuid.h"
#include "server/session.h"

#define OP1 "6a0b3c1e-1111-4aaa-8bbb-000000000001"
#define OP2 "6a0b3c1e-1111-4aaa-8bbb-000000000002"
#define OP3 "6a0b3c1e-1111-4aaa-8bbb-000000000003"
#define OP4 "6a0b3c1e-1111-4aaa-8bbb-000000000004"
#define OP5 "6a0b3c1e-1111-4aaa-8bbb-000000000005"
#define SID "00112233-4455-6677-8899-aabbccddeeff"
#define SID2 "00112233-4455-6677-8899-aabbccddee00"

/* A fake call: every response sent, unpacked, and how it ended. */
struct sc_rpc_call {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	atomic_int refs;
	Spark__Connect__ExecutePlanResponse **msgs;
	size_t nmsgs;
	bool in_flight;
	sc_rpc_sent_fn *sent;
	void *sent_arg;
	bool finished;
	int code;
	char status[2048];
	char errclass[128];
	sc_rpc_close_fn *close_fn;
	void *close_arg;
	int violations; /* send with one in flight */
	int replies; /* last responses sent with the status (reply_ref) */
};

/* What xf_find() saw of one operation. */
struct xf_find {
	const char *id;
	struct sc_exec_info info;
	bool found;
	bool tombstone;
};

extern struct sc_server_conf xf_conf;
extern struct sc_execmgr *xf_mgr;
extern atomic_llong xf_now; /* the fake clock, in ms */
extern atomic_int xf_runs; /* fake runner starts */
extern atomic_int xf_emit_failures; /* runs ended by a failed emit */
/* Set before xf_mgr_start(): the fake transport offers reply_ref. */
extern bool xf_reply_ref;

struct sc_rpc_call *xf_call_new(void);
void xf_call_free(struct sc_rpc_call *c);
bool xf_ack(struct sc_rpc_call *c, bool okay);
void xf_call_close(struct sc_rpc_call *c, bool cancelled);
int xf_call_retire(struct sc_rpc_call *c, int *violations);
void xf_deadline_in(struct timespec *ts, int ms);
bool xf_has_complete(const Spark__Connect__ExecutePlanResponse *r);
bool xf_is_batch(const Spark__Connect__ExecutePlanResponse *r);

void xf_gate_set(bool open);
/*
 * xf_execute() with a program starting "SELECT " sends it as a root SQL
 * relation; the fake runner runs the rest.  Whether the fake runner last
 * ran on the calling thread:
 */
bool xf_last_run_here(void);

/* The ids of the operations the fake runner started, in order. */
#define XF_STARTS_MAX 64
void xf_starts_reset(void);
size_t xf_starts(char out[][SC_UUID_STRLEN], size_t max);

struct sc_session *xf_session_new(const char *user, const char *sid);
void xf_mgr_start(size_t completed_max);
void xf_mgr_stop(void);
void xf_conf_reset(void);
struct sc_rpc_call *xf_execute(struct sc_session *s, const char *opid,
    const char *prog, bool reattachable, const char *tag);
struct sc_rpc_call *xf_reattach(struct sc_session *s, const char *opid,
    const char *last);
int xf_release(struct sc_session *s, const char *opid, int how, const char *id,
    bool *found, struct sc_error *err);
int xf_settled_refs(struct sc_rpc_call *c);
struct xf_find xf_find(const char *id);
bool xf_wait_state(const char *id, enum sc_exec_state st);

#endif
