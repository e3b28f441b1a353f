/* SPDX-License-Identifier: MIT */

/*
 * test-conf.c: sc-serve settings (lib/server/conf.c): defaults, Spark
 * names and aliases, duration/size/boolean parsing, range checks, the
 * exact error messages, formatting and redaction of the token.
 */

#include "server/server.h"

#include <string.h>

#include "core/error.h"
#include "tap.h"
#include "core/banned.h"

#define RB "spark.connect.execute.reattachable.observerRetryBufferSize"
#define DUR "spark.connect.execute.reattachable.senderMaxStreamDuration"
#define SIZE "spark.connect.execute.reattachable.senderMaxStreamSize"
#define DT "spark.connect.execute.manager.detachedTimeout"
#define ST "spark.connect.session.manager.defaultSessionTimeout"
#define TOKEN "spark.connect.authenticate.token"

static const char *
get(const struct sc_server_conf *c, const char *key)
{
	static char buf[128];

	if (sc_server_conf_get(c, key, buf, sizeof(buf)) == -1)
		return "(none)";
	return buf;
}

static int each_n;
static char each_first[128], each_last[128];
static int each_token;

static void
each(const char *key, const char *value, void *arg)
{
	(void)value;
	(void)arg;
	if (each_n++ == 0)
		snprintf(each_first, sizeof(each_first), "%s", key);
	snprintf(each_last, sizeof(each_last), "%s", key);
	if (strcmp(key, TOKEN) == 0)
		each_token++;
}

static void
test_defaults(void)
{
	struct sc_server_conf c;

	sc_server_conf_default(&c);
	is_int(c.retry_buffer_size, 10 * 1024 * 1024, "retry buffer 10 MiB");
	is_int(c.max_stream_duration_ms, 120000, "stream duration 2 min");
	is_int(c.max_stream_size, 1024LL * 1024 * 1024, "stream size 1 GiB");
	ok(c.reattachable_enabled, "reattachable by default");
	is_int(c.detached_timeout_ms, 300000, "detached timeout 5 min");
	is_int(c.maintenance_interval_ms, 30000, "maintenance 30 s");
	is_int(c.abandoned_tombstones, 10000, "10000 operation tombstones");
	is_int(c.inactive_op_expiry_ms, 1800000, "completed ids 30 min");
	is_int(c.session_timeout_ms, 3600000, "session timeout 60 min");
	is_int(c.session_maintenance_ms, 30000, "session maintenance 30 s");
	is_int(c.closed_session_tombstones, 1000, "1000 session tombstones");
	is_int(c.batch_max_rows, 10000, "10000 rows per batch");
	is_int(c.batch_max_bytes, 4 * 1024 * 1024, "4 MiB per batch");
	is_int(c.max_message_size, 128 * 1024 * 1024, "128 MiB messages");
	is_int(c.max_metadata_size, 1024, "1024 bytes of metadata");
	is_int(c.progress_interval_ms, 2000, "progress every 2 s");
	is_int(c.workers, 4, "4 workers");
	is_str(c.token, "", "no token");

	is_str(get(&c, RB), "10m", "retry buffer reads 10m");
	is_str(get(&c, DUR), "2m", "stream duration reads 2m");
	is_str(get(&c, SIZE), "1g", "stream size reads 1g");
	is_str(get(&c, DT), "5m", "detached timeout reads 5m");
	is_str(get(&c, ST), "1h", "session timeout reads 1h");
	is_str(get(&c, "spark.connect.execute.reattachable.enabled"), "true",
	    "reattachable reads true");
	is_str(get(&c, "spark.sql.execution.arrow.maxRecordsPerBatch"), "10000",
	    "batch rows read 10000");
	is_str(get(&c, "spark.connect.grpc.maxMetadataSize"), "1k",
	    "metadata size reads 1k");
	is_str(get(&c, "sctk.execute.workers"), "4", "workers read 4");
	is_str(get(&c, TOKEN), "(none)", "an unset token has no value");
	is_str(get(&c, "spark.connect.no.such"), "(none)",
	    "an unknown key has no value");
	is_str(get(&c, "retry-buffer"), "(none)",
	    "aliases are not readable names");
}

static void
test_parse(void)
{
	struct sc_server_conf c;
	struct sc_error err;

	sc_server_conf_default(&c);
	is_int(sc_server_conf_set(&c, DT, "5m", &err), 0, "5m parses");
	is_int(c.detached_timeout_ms, 300000, "5m is 300000 ms");
	is_int(sc_server_conf_set(&c, DT, "30s", &err), 0, "30s parses");
	is_int(c.detached_timeout_ms, 30000, "30s is 30000 ms");
	is_int(sc_server_conf_set(&c, DT, "500ms", &err), 0, "500ms parses");
	is_int(c.detached_timeout_ms, 500, "500ms is 500 ms");
	is_int(sc_server_conf_set(&c, DT, "250", &err), 0, "250 parses");
	is_int(c.detached_timeout_ms, 250, "a bare duration is ms");
	is_str(get(&c, DT), "250ms", "250 ms reads 250ms");
	is_int(sc_server_conf_set(&c, DT, "90s", &err), 0, "90s parses");
	is_str(get(&c, DT), "90s", "90 s reads 90s");

	is_int(sc_server_conf_set(&c, RB, "10m", &err), 0, "10m parses");
	is_int(c.retry_buffer_size, 10485760, "10m is 10 MiB");
	is_int(sc_server_conf_set(&c, RB, "1g", &err), 0, "1g parses");
	is_int(c.retry_buffer_size, 1073741824, "1g is 1 GiB");
	is_int(sc_server_conf_set(&c, RB, "4096", &err), 0, "4096 parses");
	is_int(c.retry_buffer_size, 4096, "a bare size is bytes");
	is_str(get(&c, RB), "4k", "4096 bytes read 4k");
	is_int(sc_server_conf_set(&c, RB, "1000", &err), 0, "1000 parses");
	is_str(get(&c, RB), "1000", "1000 bytes read 1000");
	is_int(sc_server_conf_set(&c, RB, "0", &err), 0, "0 parses");
	is_int(c.retry_buffer_size, 0, "a zero retry buffer is allowed");

	is_int(sc_server_conf_set(&c, "retry-buffer", "2m", &err), 0,
	    "the alias retry-buffer works");
	is_int(c.retry_buffer_size, 2 * 1024 * 1024, "alias sets the field");
	is_int(sc_server_conf_set(&c, "max-stream-duration", "0", &err), 0,
	    "a zero stream duration (unlimited) is allowed");
	is_int(c.max_stream_duration_ms, 0, "stream duration 0");
	is_int(sc_server_conf_set(&c, "max-stream-size", "64k", &err), 0,
	    "max-stream-size 64k");
	is_int(c.max_stream_size, 65536, "stream size 64 KiB");

	is_int(sc_server_conf_set(&c,
		   "spark.connect.execute.reattachable."
		   "enabled",
		   "FALSE", &err),
	    0, "FALSE parses");
	ok(!c.reattachable_enabled, "reattachable off");
	is_int(sc_server_conf_set(&c, "reattachable", "true", &err), 0,
	    "true parses");
	ok(c.reattachable_enabled, "reattachable on");

	is_int(sc_server_conf_set(&c, ST, "-1", &err), 0,
	    "session timeout -1 parses");
	is_int(c.session_timeout_ms, -1, "session timeout never");
	is_str(get(&c, ST), "-1", "never reads -1");
	is_int(sc_server_conf_set(&c, "session-timeout", "2h", &err), 0,
	    "session timeout 2h");
	is_int(c.session_timeout_ms, 7200000, "2h is 7200000 ms");

	is_int(sc_server_conf_set(&c, "workers", "8", &err), 0, "workers 8");
	is_int(c.workers, 8, "8 workers");
	is_int(sc_server_conf_set(&c, "sctk.execute.highWaterBytes", "32m",
		   &err),
	    0, "high water 32m");
	is_int(c.high_water_bytes, 32 * 1024 * 1024, "32 MiB high water");
	is_int(c.max_buffered_bytes, 256 * 1024 * 1024,
	    "256 MiB buffered by default");
	is_int(sc_server_conf_set(&c, "max-buffered", "-1", &err), 0,
	    "max-buffered -1");
	is_int(c.max_buffered_bytes, -1, "no limit on buffered bytes");
	is_int(sc_server_conf_set(&c, "spark.connect.progress.reportInterval",
		   "-1", &err),
	    0, "progress -1 disables");
	is_int(c.progress_interval_ms, -1, "progress disabled");
	is_int(sc_server_conf_set(&c,
		   "spark.connect.session.manager."
		   "closedSessionsTombstonesSize",
		   "0", &err),
	    0, "0 tombstones");
	is_int(c.closed_session_tombstones, 0, "no session tombstones");
}

static void
test_errors(void)
{
	struct sc_server_conf c, before;
	struct sc_error err;

	sc_server_conf_default(&c);
	before = c;
	is_int(sc_server_conf_set(&c, "spark.no.such", "1", &err), -1,
	    "unknown key fails");
	is_int(err.status, SC_ST_USAGE, "unknown key is a usage error");
	is_str(err.msg, "unknown setting 'spark.no.such'",
	    "unknown key message");
	is_int(sc_server_conf_set(&c, DT, "abc", &err), -1, "abc fails");
	is_str(err.msg, "invalid value for '" DT "': 'abc' is not a duration",
	    "bad duration message");
	is_int(sc_server_conf_set(&c, "detached-timeout", "0", &err), -1,
	    "a zero detached timeout fails");
	is_str(err.msg,
	    "invalid value for 'detached-timeout': '0' is too "
	    "small",
	    "too small message names the alias as typed");
	is_int(sc_server_conf_set(&c, RB, "10q", &err), -1, "10q fails");
	is_str(err.msg, "invalid value for '" RB "': '10q' is not a size",
	    "bad size message");
	is_int(sc_server_conf_set(&c, RB, "-1", &err), -1,
	    "a negative size fails");
	is_int(sc_server_conf_set(&c, "reattachable", "yes", &err), -1,
	    "yes is not a boolean");
	is_str(err.msg,
	    "invalid value for 'reattachable': 'yes' is not a "
	    "boolean",
	    "bad boolean message");
	is_int(sc_server_conf_set(&c, "workers", "0", &err), -1,
	    "0 workers fails");
	is_str(err.msg, "invalid value for 'workers': '0' is too small",
	    "0 workers message");
	is_int(sc_server_conf_set(&c, "workers", "257", &err), -1,
	    "257 workers fails");
	is_str(err.msg, "invalid value for 'workers': '257' is too large",
	    "257 workers message");
	is_int(sc_server_conf_set(&c, ST, "-2", &err), -1,
	    "session timeout -2 fails");
	is_int(sc_server_conf_set(&c,
		   "spark.connect.grpc."
		   "maxInboundMessageSize",
		   "4g", &err),
	    -1, "a 4 GiB message limit fails");
	ok(memcmp(&c, &before, sizeof(c)) == 0, "failed sets change nothing");
}

static void
test_token(void)
{
	struct sc_server_conf c;
	struct sc_error err;
	char longtok[300];

	sc_server_conf_default(&c);
	each_n = each_token = 0;
	sc_server_conf_each(&c, each, NULL);
	is_int(each_n, 39, "each lists 39 settings without a token");
	is_int(each_token, 0, "each skips an unset token");
	is_str(each_first, RB, "each starts with the retry buffer");
	is_str(each_last, "sctk.artifact.maxStoreBytes",
	    "each ends with the artifact store's limit");
	is_str(get(&c, "sctk.artifact.maxStoreBytes"), "10g",
	    "maxStoreBytes reads 10g");

	is_int(sc_server_conf_set(&c, "token", "s3cret", &err), 0,
	    "token alias sets the token");
	is_str(c.token, "s3cret", "token stored");
	is_str(get(&c, TOKEN), "*********(redacted)", "token is redacted");
	each_n = each_token = 0;
	sc_server_conf_each(&c, each, NULL);
	is_int(each_n, 40, "each lists the token once set");
	is_int(each_token, 1, "each shows the token (redacted)");

	memset(longtok, 'x', sizeof(longtok) - 1);
	longtok[sizeof(longtok) - 1] = '\0';
	is_int(sc_server_conf_set(&c, TOKEN, longtok, &err), -1,
	    "an overlong token fails");
	is_str(err.msg, "invalid value for '" TOKEN "': longer than 255 bytes",
	    "overlong token message does not echo it");
	is_str(c.token, "s3cret", "token unchanged");
	is_int(sc_server_conf_set(&c, TOKEN, "", &err), 0, "empty token");
	is_str(get(&c, TOKEN), "(none)", "empty token means none");

	/* The admin service's token: redacted the same way. */
	is_str(get(&c, "sctk.admin.token"), "(none)", "no admin token");
	is_int(sc_server_conf_set(&c, "admin-token", "adm1n", &err), 0,
	    "admin-token alias sets the admin token");
	is_str(c.admin_token, "adm1n", "admin token stored");
	is_str(c.token, "", "admin token leaves the Spark token alone");
	is_str(get(&c, "sctk.admin.token"), "*********(redacted)",
	    "admin token is redacted");
	each_n = 0;
	sc_server_conf_each(&c, each, NULL);
	is_int(each_n, 40, "each lists the admin token once set");
	is_int(sc_server_conf_set(&c, "sctk.admin.token", longtok, &err), -1,
	    "an overlong admin token fails");
	is_str(err.msg,
	    "invalid value for 'sctk.admin.token': longer than 255 bytes",
	    "overlong admin token message does not echo it");
}

static void
test_limits(void)
{
	struct sc_server_conf c, before;
	struct sc_error err;

	sc_server_conf_default(&c);
	is_int(c.max_sessions, 10000, "10000 sessions");
	is_int(c.max_user_sessions, 1000, "1000 sessions per user");
	is_int(c.conf_max_keys, 10000, "10000 settings per session");
	is_int(c.conf_max_key_size, 1024, "keys up to 1 KiB");
	is_int(c.conf_max_value_size, 65536, "values up to 64 KiB");
	is_int(c.conf_max_bytes, 1048576, "1 MiB of settings per session");
	is_int(c.shutdown_timeout_ms, 10000, "shutdown within 10 s");
	is_int(c.malloc_arenas, 2, "two malloc arenas");
	is_int(c.trim_threshold, 16 * 1024 * 1024, "trim above 16 MiB");
	is_str(get(&c, "sctk.session.maxSessions"), "10000",
	    "maxSessions reads 10000");
	is_str(get(&c, "sctk.session.maxSessionsPerUser"), "1000",
	    "maxSessionsPerUser reads 1000");
	is_str(get(&c, "sctk.session.maxConfKeys"), "10000",
	    "maxConfKeys reads 10000");
	is_str(get(&c, "sctk.session.maxConfKeySize"), "1k",
	    "maxConfKeySize reads 1k");
	is_str(get(&c, "sctk.session.maxConfValueSize"), "64k",
	    "maxConfValueSize reads 64k");
	is_str(get(&c, "sctk.session.maxConfBytes"), "1m",
	    "maxConfBytes reads 1m");
	is_str(get(&c, "sctk.server.shutdownTimeout"), "10s",
	    "shutdownTimeout reads 10s");
	is_str(get(&c, "sctk.server.mallocArenas"), "2",
	    "mallocArenas reads 2");
	is_str(get(&c, "sctk.server.trimThreshold"), "16m",
	    "trimThreshold reads 16m");
	is_str(get(&c, "sctk.artifact.maxSize"), "2g", "maxSize reads 2g");
	is_str(get(&c, "sctk.artifact.maxSessionBytes"), "10g",
	    "maxSessionBytes reads 10g");
	is_str(get(&c, "sctk.artifact.maxSessionFiles"), "10000",
	    "maxSessionFiles reads 10000");
	is_int(sc_server_conf_set(&c, "max-artifact-size", "-1", &err), 0,
	    "max-artifact-size -1 (no limit)");
	is_int(c.artifact_max_size, -1, "no artifact size limit");
	is_int(sc_server_conf_set(&c, "sctk.artifact.maxSessionBytes", "64k",
		   &err),
	    0, "maxSessionBytes 64k");
	is_int(c.artifact_session_bytes, 65536, "64 KiB per session");
	is_int(sc_server_conf_set(&c, "artifact-session-files", "-2", &err), -1,
	    "-2 files is refused");

	is_int(sc_server_conf_set(&c, "max-sessions", "3", &err), 0,
	    "max-sessions 3");
	is_int(c.max_sessions, 3, "3 sessions");
	is_int(sc_server_conf_set(&c, "max-sessions-per-user", "2", &err), 0,
	    "max-sessions-per-user 2");
	is_int(c.max_user_sessions, 2, "2 per user");
	is_int(sc_server_conf_set(&c, "session-conf-keys", "0", &err), 0,
	    "no session settings at all is allowed");
	is_int(c.conf_max_keys, 0, "0 keys");
	is_int(sc_server_conf_set(&c, "session-conf-key-size", "64", &err), 0,
	    "key size 64");
	is_int(c.conf_max_key_size, 64, "64 bytes");
	is_int(sc_server_conf_set(&c, "session-conf-value-size", "1m", &err), 0,
	    "value size 1m");
	is_int(c.conf_max_value_size, 1048576, "1 MiB values");
	is_int(sc_server_conf_set(&c, "session-conf-bytes", "4m", &err), 0,
	    "session-conf-bytes 4m");
	is_int(c.conf_max_bytes, 4194304, "4 MiB of settings");
	is_int(sc_server_conf_set(&c, "shutdown-timeout", "2s", &err), 0,
	    "shutdown-timeout 2s");
	is_int(c.shutdown_timeout_ms, 2000, "2000 ms");
	is_int(sc_server_conf_set(&c, "sctk.server.shutdownTimeout", "-1",
		   &err),
	    0, "shutdown timeout -1 waits for ever");
	is_int(c.shutdown_timeout_ms, -1, "no shutdown limit");
	is_int(sc_server_conf_set(&c, "malloc-arenas", "0", &err), 0,
	    "malloc-arenas 0 keeps glibc's default");
	is_int(c.malloc_arenas, 0, "0 arenas");
	is_int(sc_server_conf_set(&c, "trim-threshold", "0", &err), 0,
	    "trim-threshold 0 turns trimming off");
	is_int(c.trim_threshold, 0, "no trimming");

	before = c;
	is_int(sc_server_conf_set(&c, "max-sessions", "0", &err), -1,
	    "0 sessions fails");
	is_str(err.msg, "invalid value for 'max-sessions': '0' is too small",
	    "0 sessions message");
	is_int(sc_server_conf_set(&c, "max-sessions-per-user", "0", &err), -1,
	    "0 sessions per user fails");
	is_int(sc_server_conf_set(&c, "session-conf-key-size", "0", &err), -1,
	    "0-byte keys fail");
	is_int(sc_server_conf_set(&c, "shutdown-timeout", "0", &err), -1,
	    "a zero shutdown timeout fails");
	is_int(sc_server_conf_set(&c, "shutdown-timeout", "-2", &err), -1,
	    "shutdown timeout -2 fails");
	is_int(sc_server_conf_set(&c, "malloc-arenas", "1025", &err), -1,
	    "1025 arenas fail");
	ok(memcmp(&c, &before, sizeof(c)) == 0, "failed sets change nothing");
}

int
main(void)
{
	test_defaults();
	test_parse();
	test_errors();
	test_token();
	test_limits();
	return tap_done();
}
