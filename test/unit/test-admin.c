/* SPDX-License-Identifier: MIT */

/*
 * test-admin.c: the pure parts of sc-serve's admin service
 * (lib/server/admin.c): the execution filter, visibility, the loopback
 * rule; the statement text of a plan (exec_table.c); and the session
 * manager's copies for it (sc_sessmgr_list(), sc_sessmgr_tombstones()).
 */

#include "server/admin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/protocol.h"
#include "core/xmem.h"
#include "server/exec_int.h"
#include "server/session.h"
#include "tap.h"
#include "core/banned.h"

#define S1 "00112233-4455-6677-8899-aabbccddeeff"
#define S2 "6f1d2c3b-0000-4000-8000-000000000002"

static char tag_a[] = "etl", tag_b[] = "nightly";
static char *tags2[] = { tag_a, tag_b };

/* A live, detached, FINISHED operation created at 1000, detached at 5000. */
static void
info_init(struct sc_exec_info *i)
{
	memset(i, 0, sizeof(*i));
	i->op_id = "op";
	i->user_id = "alice";
	i->session_id = S1;
	i->state = SC_EXEC_FINISHED;
	i->created_ms = 1000;
	i->attached = false;
	i->attach_change_ms = 5000;
	i->ntags = 2;
	i->tags = tags2;
}

static void
filter_init(struct sc_admin_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->any_state = true;
}

static void
test_filter(void)
{
	struct sc_admin_filter f;
	struct sc_exec_info i;

	info_init(&i);
	filter_init(&f);
	ok(sc_admin_filter_match(&f, &i, 6000, false), "no condition");

	f.session_id = S2;
	ok(!sc_admin_filter_match(&f, &i, 6000, false), "other session");
	f.session_id = S1;
	ok(sc_admin_filter_match(&f, &i, 6000, false), "same session");
	f.session_id = "";
	ok(sc_admin_filter_match(&f, &i, 6000, false), "empty: any session");

	f.user_id = "bob";
	ok(!sc_admin_filter_match(&f, &i, 6000, false), "other user");
	f.user_id = "alice";
	ok(sc_admin_filter_match(&f, &i, 6000, false), "same user");

	f.tag = "nightly";
	ok(sc_admin_filter_match(&f, &i, 6000, false), "second tag");
	f.tag = "night";
	ok(!sc_admin_filter_match(&f, &i, 6000, false), "tags match whole");
	i.ntags = 0;
	f.tag = "etl";
	ok(!sc_admin_filter_match(&f, &i, 6000, false), "untagged");
	i.ntags = 2;

	f.any_state = false;
	f.states = 1u << SC_EXEC_RUNNING;
	ok(!sc_admin_filter_match(&f, &i, 6000, false), "state not wanted");
	ok(sc_admin_filter_match(&f, &i, 6000, true),
	    "identity_only ignores the state");
	f.states |= 1u << SC_EXEC_FINISHED;
	ok(sc_admin_filter_match(&f, &i, 6000, false), "one of the states");
	f.states = 0;
	ok(!sc_admin_filter_match(&f, &i, 6000, false),
	    "only unknown states: nothing matches");
	f.any_state = true;

	f.detached_for_ms = 1000;
	ok(sc_admin_filter_match(&f, &i, 6000, false), "detached 1000 ms");
	ok(!sc_admin_filter_match(&f, &i, 5999, false), "detached 999 ms");
	ok(sc_admin_filter_match(&f, &i, 5999, true),
	    "identity_only ignores detached_for");
	i.attached = true;
	ok(!sc_admin_filter_match(&f, &i, 99999, false), "attached never");
	i.attached = false;
	f.detached_for_ms = 0;

	f.older_than_ms = 5000;
	ok(sc_admin_filter_match(&f, &i, 6000, false), "5000 ms old");
	ok(!sc_admin_filter_match(&f, &i, 5999, false), "4999 ms old");
}

static void
test_visible(void)
{
	ok(sc_admin_visible(true, "", "alice"), "admin sees everything");
	ok(sc_admin_visible(true, "bob", "alice"), "admin ignores caller");
	ok(sc_admin_visible(false, "alice", "alice"), "own user");
	ok(!sc_admin_visible(false, "bob", "alice"), "other user");
	ok(!sc_admin_visible(false, "", ""), "empty caller sees nothing");
	ok(!sc_admin_visible(false, NULL, "alice"), "no caller");
}

static void
test_loopback(void)
{
	static const char *const yes[] = { "ipv4:127.0.0.1:5555",
		"ipv4:127.1.2.3:1", "ipv6:[::1]:5555", "ipv6:%5B::1%5D:5555",
		"ipv6:[::ffff:127.0.0.1]:80", "unix:/tmp/s" };
	static const char *const no[] = { "ipv4:192.0.2.2:5555",
		"ipv4:10.0.0.127:1", "ipv6:[::2]:5555", "ipv6:[fe80::1]:1",
		"ipv4:128.0.0.1:1", "", "127.0.0.1:5" };
	size_t i;

	for (i = 0; i < SC_NELEM(yes); i++)
		ok(sc_admin_peer_is_loopback(yes[i]), "loopback %s", yes[i]);
	for (i = 0; i < SC_NELEM(no); i++)
		ok(!sc_admin_peer_is_loopback(no[i]), "not loopback '%s'",
		    no[i]);
	ok(!sc_admin_peer_is_loopback(NULL), "NULL peer");
}

static const char *
summary_of(const Spark__Connect__Plan *p)
{
	static char out[SC_EXEC_STATEMENT_MAX + 4];

	sc_exec_plan_summary(p, out, sizeof(out));
	return out;
}

static void
test_summary(void)
{
	Spark__Connect__Plan p = SPARK__CONNECT__PLAN__INIT;
	Spark__Connect__Relation r = SPARK__CONNECT__RELATION__INIT;
	Spark__Connect__Relation in = SPARK__CONNECT__RELATION__INIT;
	Spark__Connect__Range rg = SPARK__CONNECT__RANGE__INIT;
	Spark__Connect__SQL sql = SPARK__CONNECT__SQL__INIT;
	Spark__Connect__Limit lim = SPARK__CONNECT__LIMIT__INIT;
	Spark__Connect__Command c = SPARK__CONNECT__COMMAND__INIT;
	Spark__Connect__SqlCommand sc = SPARK__CONNECT__SQL_COMMAND__INIT;
	char text[600], want[SC_EXEC_STATEMENT_MAX + 4];
	char q1[] = "SELECT  a,\n\tb FROM t ", q2[] = "CREATE TABLE t (x INT)";
	char q3[] = "DROP TABLE t";
	const char *got;

	is_str(summary_of(NULL), "(no plan)", "no plan");
	p.op_type_case = SPARK__CONNECT__PLAN__OP_TYPE_ROOT;
	p.root = &r;
	r.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_RANGE;
	r.range = &rg;
	rg.end = 10;
	rg.step = 1;
	is_str(summary_of(&p), "range(0, 10)", "range");
	rg.start = -5;
	rg.step = 3;
	is_str(summary_of(&p), "range(-5, 10, 3)", "range with a step");

	r.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SQL;
	r.sql = &sql;
	sql.query = q1;
	is_str(summary_of(&p), "SELECT a, b FROM t ",
	    "white space runs become one space");

	r.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_LIMIT;
	r.limit = &lim;
	lim.input = &in;
	lim.limit = 3;
	in.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_RANGE;
	in.range = &rg;
	is_str(summary_of(&p), "limit(range(-5, 10, 3))", "a plan node");

	p.op_type_case = SPARK__CONNECT__PLAN__OP_TYPE_COMMAND;
	p.command = &c;
	c.command_type_case = SPARK__CONNECT__COMMAND__COMMAND_TYPE_SQL_COMMAND;
	c.sql_command = &sc;
	sc.input = &r;
	r.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SQL;
	r.sql = &sql; /* r.limit shared its place (a oneof) */
	sql.query = q2;
	is_str(summary_of(&p), "CREATE TABLE t (x INT)", "sql_command 4.x");
	sc.sql = q3;
	is_str(summary_of(&p), "DROP TABLE t", "sql_command 3.5");

	/* Long text: 200 bytes and "...". */
	memset(text, 'x', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	sc.sql = text;
	got = summary_of(&p);
	is_int((long long)strlen(got), 203, "cut to 200 bytes plus ...");
	memset(want, 'x', 200);
	memcpy(want + 200, "...", 4);
	is_str(got, want, "the cut text");
	/* A cut never splits a UTF-8 character. */
	memset(text, 'x', 199);
	for (size_t i = 199; i + 2 < sizeof(text); i += 2)
		memcpy(text + i, "\xc3\xa9", 2);
	text[sizeof(text) - 1] = '\0';
	got = summary_of(&p);
	is_int((long long)strlen(got), 202, "cut before a split character");
	is_str(got + 197, "xx...", "ends with whole characters");
}

static void
test_sessions(void)
{
	struct sc_server_conf conf;
	struct sc_sessmgr *m;
	struct sc_session *s;
	struct sc_session_info *v;
	struct sc_session_tomb *t;
	struct sc_error err;
	char ssid[SC_UUID_STRLEN];
	size_t n;

	sc_server_conf_default(&conf);
	m = sc_sessmgr_new(&conf, NULL);
	sc_sessmgr_list(m, &v, &n);
	is_int((long long)n, 0, "no sessions");
	free(v);
	s = sc_sessmgr_get(m, "alice", S1, NULL, SC_SESS_GET_OR_CREATE, &err);
	ok(s != NULL, "session created");
	sc_session_unref(s);
	s = sc_sessmgr_get(m, "bob", S2, NULL, SC_SESS_GET_OR_CREATE, &err);
	sc_session_unref(s);
	sc_sessmgr_list(m, &v, &n);
	is_int((long long)n, 2, "two sessions");
	is_str(v[0].user_id, "alice", "oldest first: alice");
	is_str(v[0].session_id, S1, "its session id");
	is_int((long long)strlen(v[0].server_side_id), 36, "server-side id");
	ok(v[0].created_ms > 0, "created time");
	ok(v[0].last_access_ms >= v[0].created_ms - 1000, "last access");
	ok(v[0].expires_in_ms > 3590000 && v[0].expires_in_ms <= 3600000,
	    "expires in about an hour");
	is_str(v[1].user_id, "bob", "then bob");
	free(v);

	is_int(sc_sessmgr_release(m, "alice", S1, false, ssid), 1, "released");
	sc_sessmgr_tombstones(m, &t, &n);
	is_int((long long)n, 1, "one tombstone");
	is_str(t[0].user_id, "alice", "tombstone user");
	is_str(t[0].session_id, S1, "tombstone session");
	is_str(t[0].reason, "released", "tombstone reason");
	ok(t[0].at_ms > 0, "tombstone time");
	free(t);
	sc_sessmgr_list(m, &v, &n);
	is_int((long long)n, 1, "one session left");
	free(v);
	sc_sessmgr_free(m);
}

int
main(void)
{
	test_filter();
	test_visible();
	test_loopback();
	test_summary();
	test_sessions();
	return tap_done();
}
