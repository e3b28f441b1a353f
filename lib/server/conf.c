/* SPDX-License-Identifier: MIT */

/*
 * conf.c: sc-serve's settings under their Spark names, each with a short
 * sctk alias (the long option of the same name).  Values are parsed as
 * Spark parses them: durations "500ms", "30s", "5m" (a bare number is
 * milliseconds), sizes "10m", "1g" (a bare number is bytes), booleans
 * "true"/"false".
 */

#include "server/server.h"

#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/cli.h"
#include "core/error.h"
#include "engine/engine.h"
#include "core/rpc.h"
#include "core/banned.h"

#define KIB ((int64_t)1024)
#define MIB (1024 * KIB)
#define GIB (1024 * MIB)

enum kind {
	K_SIZE, /* int64_t bytes */
	K_DURATION, /* int64_t milliseconds */
	K_BOOL, /* bool */
	K_COUNT, /* int64_t */
	K_INT, /* int */
	K_TOKEN /* char[256] secret */
};

/* A value of -1 is accepted besides [min, max] ("never", "disabled"). */
#define F_MINUS1 0x1

static const struct setting {
	const char *name;
	const char *alias;
	enum kind kind;
	size_t off;
	int64_t min;
	int64_t max;
	unsigned flags;
} settings[] = {
	{ "spark.connect.execute.reattachable.observerRetryBufferSize",
	    "retry-buffer", K_SIZE,
	    offsetof(struct sc_server_conf, retry_buffer_size), 0, INT64_MAX,
	    0 },
	{ "spark.connect.execute.reattachable.senderMaxStreamDuration",
	    "max-stream-duration", K_DURATION,
	    offsetof(struct sc_server_conf, max_stream_duration_ms), 0,
	    INT64_MAX, 0 },
	{ "spark.connect.execute.reattachable.senderMaxStreamSize",
	    "max-stream-size", K_SIZE,
	    offsetof(struct sc_server_conf, max_stream_size), 0, INT64_MAX, 0 },
	{ "spark.connect.execute.reattachable.enabled", "reattachable", K_BOOL,
	    offsetof(struct sc_server_conf, reattachable_enabled), 0, 1, 0 },
	{ "spark.connect.execute.manager.detachedTimeout", "detached-timeout",
	    K_DURATION, offsetof(struct sc_server_conf, detached_timeout_ms), 1,
	    INT64_MAX, 0 },
	{ "spark.connect.execute.manager.maintenanceInterval",
	    "maintenance-interval", K_DURATION,
	    offsetof(struct sc_server_conf, maintenance_interval_ms), 1,
	    INT64_MAX, 0 },
	{ "spark.connect.execute.manager.abandonedTombstonesSize",
	    "abandoned-tombstones", K_COUNT,
	    offsetof(struct sc_server_conf, abandoned_tombstones), 0, INT32_MAX,
	    0 },
	{ "spark.connect.session.inactiveOperations.cacheExpiration",
	    "inactive-operations-expiry", K_DURATION,
	    offsetof(struct sc_server_conf, inactive_op_expiry_ms), 0,
	    INT64_MAX, 0 },
	{ "spark.connect.session.manager.defaultSessionTimeout",
	    "session-timeout", K_DURATION,
	    offsetof(struct sc_server_conf, session_timeout_ms), 1, INT64_MAX,
	    F_MINUS1 },
	{ "spark.connect.session.manager.maintenanceInterval",
	    "session-maintenance-interval", K_DURATION,
	    offsetof(struct sc_server_conf, session_maintenance_ms), 1,
	    INT64_MAX, 0 },
	{ "spark.connect.session.manager.closedSessionsTombstonesSize",
	    "closed-session-tombstones", K_COUNT,
	    offsetof(struct sc_server_conf, closed_session_tombstones), 0,
	    INT32_MAX, 0 },
	{ "spark.sql.execution.arrow.maxRecordsPerBatch", "batch-rows", K_COUNT,
	    offsetof(struct sc_server_conf, batch_max_rows), 1, INT32_MAX, 0 },
	{ "spark.connect.grpc.arrow.maxBatchSize", "batch-size", K_SIZE,
	    offsetof(struct sc_server_conf, batch_max_bytes), KIB, INT32_MAX,
	    0 },
	{ "sctk.execute.highWaterBytes", "high-water", K_SIZE,
	    offsetof(struct sc_server_conf, high_water_bytes), KIB, INT64_MAX,
	    0 },
	{ "sctk.execute.maxBufferedBytes", "max-buffered", K_SIZE,
	    offsetof(struct sc_server_conf, max_buffered_bytes), KIB, INT64_MAX,
	    F_MINUS1 },
	{ "spark.connect.progress.reportInterval", "progress-interval",
	    K_DURATION, offsetof(struct sc_server_conf, progress_interval_ms),
	    1, INT64_MAX, F_MINUS1 },
	{ "spark.connect.grpc.maxInboundMessageSize", "max-message-size",
	    K_SIZE, offsetof(struct sc_server_conf, max_message_size), KIB,
	    INT32_MAX, 0 },
	{ "spark.connect.grpc.maxMetadataSize", "max-metadata-size", K_SIZE,
	    offsetof(struct sc_server_conf, max_metadata_size), 0, INT32_MAX,
	    0 },
	{ "sctk.execute.maxThreads", "max-threads", K_INT,
	    offsetof(struct sc_server_conf, max_threads), 1, 4096, 0 },
	{ "sctk.execute.maxRunningPerUser", "max-running-per-user", K_INT,
	    offsetof(struct sc_server_conf, max_running_per_user), 1, 4096, 0 },
	{ "sctk.execute.compensationDelay", "compensation-delay", K_DURATION,
	    offsetof(struct sc_server_conf, compensation_delay_ms), 1,
	    INT32_MAX, F_MINUS1 },
	{ "sctk.execute.threadIdleTimeout", "thread-idle-timeout", K_DURATION,
	    offsetof(struct sc_server_conf, thread_idle_ms), 1, INT32_MAX, 0 },
	/* The SQL engine's limits (sc_engine_configure()). */
	{ "sctk.sql.operationMemory", "operation-memory", K_SIZE,
	    offsetof(struct sc_server_conf, sql_op_memory), 0, INT64_MAX, 0 },
	{ "sctk.sql.maxValueSize", "max-value-size", K_SIZE,
	    offsetof(struct sc_server_conf, sql_max_value), KIB, 1000000000,
	    0 },
	{ "sctk.sql.heapLimit", "heap-limit", K_SIZE,
	    offsetof(struct sc_server_conf, sql_heap_limit), 0, INT64_MAX, 0 },
	{ "sctk.execute.workers", "workers", K_INT,
	    offsetof(struct sc_server_conf, workers), 1, 256, 0 },
	{ "spark.connect.authenticate.token", "token", K_TOKEN,
	    offsetof(struct sc_server_conf, token), 0, 0, 0 },
	{ "sctk.admin.token", "admin-token", K_TOKEN,
	    offsetof(struct sc_server_conf, admin_token), 0, 0, 0 },
	/* Limits: sessions, session conf, shutdown, memory. */
	{ "sctk.session.maxSessions", "max-sessions", K_COUNT,
	    offsetof(struct sc_server_conf, max_sessions), 1, INT32_MAX, 0 },
	{ "sctk.session.maxSessionsPerUser", "max-sessions-per-user", K_COUNT,
	    offsetof(struct sc_server_conf, max_user_sessions), 1, INT32_MAX,
	    0 },
	{ "sctk.session.maxConfKeys", "session-conf-keys", K_COUNT,
	    offsetof(struct sc_server_conf, conf_max_keys), 0, INT32_MAX, 0 },
	{ "sctk.session.maxConfKeySize", "session-conf-key-size", K_SIZE,
	    offsetof(struct sc_server_conf, conf_max_key_size), 1, INT32_MAX,
	    0 },
	{ "sctk.session.maxConfValueSize", "session-conf-value-size", K_SIZE,
	    offsetof(struct sc_server_conf, conf_max_value_size), 0, INT32_MAX,
	    0 },
	{ "sctk.session.maxConfBytes", "session-conf-bytes", K_SIZE,
	    offsetof(struct sc_server_conf, conf_max_bytes), 0, INT64_MAX, 0 },
	{ "sctk.server.shutdownTimeout", "shutdown-timeout", K_DURATION,
	    offsetof(struct sc_server_conf, shutdown_timeout_ms), 1, INT64_MAX,
	    F_MINUS1 },
	{ "sctk.server.mallocArenas", "malloc-arenas", K_INT,
	    offsetof(struct sc_server_conf, malloc_arenas), 0, 1024, 0 },
	{ "sctk.server.trimThreshold", "trim-threshold", K_SIZE,
	    offsetof(struct sc_server_conf, trim_threshold), 0, INT64_MAX, 0 },
	/* Artifacts. */
	{ "sctk.artifact.maxSize", "max-artifact-size", K_SIZE,
	    offsetof(struct sc_server_conf, artifact_max_size), 0, INT64_MAX,
	    F_MINUS1 },
	{ "sctk.artifact.maxSessionBytes", "artifact-session-bytes", K_SIZE,
	    offsetof(struct sc_server_conf, artifact_session_bytes), 0,
	    INT64_MAX, F_MINUS1 },
	{ "sctk.artifact.maxSessionFiles", "artifact-session-files", K_COUNT,
	    offsetof(struct sc_server_conf, artifact_session_files), 0,
	    INT64_MAX, F_MINUS1 },
	{ "sctk.artifact.maxStoreBytes", "max-artifact-store", K_SIZE,
	    offsetof(struct sc_server_conf, artifact_store_bytes), 0, INT64_MAX,
	    F_MINUS1 },
};

#define NSETTINGS (sizeof(settings) / sizeof(settings[0]))

/* What a set token reads as (Spark's redaction text). */
#define REDACTED "*********(redacted)"

void
sc_server_conf_default(struct sc_server_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	conf->retry_buffer_size = 10 * MIB;
	conf->max_stream_duration_ms = 2 * 60 * 1000;
	conf->max_stream_size = GIB;
	conf->reattachable_enabled = true;
	conf->detached_timeout_ms = 5 * 60 * 1000;
	conf->maintenance_interval_ms = 30 * 1000;
	conf->abandoned_tombstones = 10000;
	conf->inactive_op_expiry_ms = 30 * 60 * 1000;
	conf->session_timeout_ms = 60 * 60 * 1000;
	conf->session_maintenance_ms = 30 * 1000;
	conf->closed_session_tombstones = 1000;
	conf->batch_max_rows = 10000;
	conf->batch_max_bytes = 4 * MIB;
	/*
	 * Small, so that a batch is sent while its bytes are still in the
	 * CPU's cache: at 16m the transport read every batch back from main
	 * memory, and streaming ran at 0.7 of raw gRPC instead of 0.9.
	 */
	conf->high_water_bytes = 512 * KIB;
	conf->max_buffered_bytes = 256 * MIB;
	conf->progress_interval_ms = 2000;
	conf->max_message_size = SC_RPC_MAX_MESSAGE;
	conf->max_metadata_size = 1024;
	conf->max_threads = 64;
	conf->max_running_per_user = 16;
	conf->compensation_delay_ms = 200;
	conf->thread_idle_ms = 60 * 1000;
	conf->workers = 4;
	conf->token[0] = '\0';
	conf->admin_token[0] = '\0';
	conf->max_sessions = 10000;
	conf->max_user_sessions = 1000;
	conf->conf_max_keys = 10000;
	conf->conf_max_key_size = KIB;
	conf->conf_max_value_size = 64 * KIB;
	conf->conf_max_bytes = MIB;
	conf->shutdown_timeout_ms = 10 * 1000;
	conf->malloc_arenas = 2;
	conf->trim_threshold = 16 * MIB;
	conf->artifact_max_size = 2 * GIB;
	conf->artifact_session_bytes = 10 * GIB;
	conf->artifact_session_files = 10000;
	conf->artifact_store_bytes = 10 * GIB;
	conf->sql_op_memory = SC_ENGINE_OP_MEMORY;
	conf->sql_max_value = SC_ENGINE_MAX_VALUE;
	conf->sql_heap_limit = SC_ENGINE_HEAP_LIMIT;
}

void
sc_server_conf_engine(const struct sc_server_conf *conf,
    struct sc_engine_config *lim)
{
	lim->op_memory = conf->sql_op_memory;
	lim->max_value = conf->sql_max_value;
	lim->heap_limit = conf->sql_heap_limit;
}

static const struct setting *
lookup(const char *key)
{
	size_t i;

	for (i = 0; i < NSETTINGS; i++)
		if (strcmp(key, settings[i].name) == 0 ||
		    strcmp(key, settings[i].alias) == 0)
			return &settings[i];
	return NULL;
}

/* Parse value per st into *out; message without the key on failure. */
static int
parse_number(const struct setting *st, const char *value, int64_t *out,
    struct sc_error *err)
{
	uint64_t u;
	int64_t v;

	if ((st->flags & F_MINUS1) && strcmp(value, "-1") == 0) {
		*out = -1;
		return 0;
	}
	switch (st->kind) {
	case K_SIZE:
		if (sc_parse_size(value, &u, err) == -1)
			return -1;
		if (u > INT64_MAX)
			return sc_error_set(err, SC_ST_USAGE,
			    "'%s' is too large", value);
		v = (int64_t)u;
		break;
	case K_DURATION:
		if (sc_parse_duration_ms(value, &v, err) == -1)
			return -1;
		break;
	default:
		if (sc_parse_uint(value, 0, INT64_MAX, &u, err) == -1)
			return -1;
		v = (int64_t)u;
		break;
	}
	if (v < st->min)
		return sc_error_set(err, SC_ST_USAGE, "'%s' is too small",
		    value);
	if (v > st->max)
		return sc_error_set(err, SC_ST_USAGE, "'%s' is too large",
		    value);
	*out = v;
	return 0;
}

int
sc_server_conf_set(struct sc_server_conf *conf, const char *key,
    const char *value, struct sc_error *err)
{
	const struct setting *st;
	struct sc_error e;
	char *field;
	int64_t v = 0;

	if ((st = lookup(key)) == NULL)
		return sc_error_set(err, SC_ST_USAGE, "unknown setting '%s'",
		    key);
	field = (char *)conf + st->off;
	switch (st->kind) {
	case K_BOOL:
		if (strcasecmp(value, "true") == 0)
			*(bool *)(void *)field = true;
		else if (strcasecmp(value, "false") == 0)
			*(bool *)(void *)field = false;
		else
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid value for '%s': '%s' is not a boolean",
			    key, value);
		return 0;
	case K_TOKEN: {
		/* Every K_TOKEN field has the size of conf->token. */
		_Static_assert(sizeof(conf->admin_token) == sizeof(conf->token),
		    "token fields differ in size");
	}
		if (strlen(value) >= sizeof(conf->token))
			return sc_error_set(err, SC_ST_USAGE,
			    "invalid value for '%s': longer than %zu bytes",
			    key, sizeof(conf->token) - 1);
		memcpy(field, value, strlen(value) + 1);
		return 0;
	default:
		break;
	}
	if (parse_number(st, value, &v, &e) == -1)
		return sc_error_set(err, SC_ST_USAGE,
		    "invalid value for '%s': %s", key, e.msg);
	if (st->kind == K_INT)
		*(int *)(void *)field = (int)v;
	else
		*(int64_t *)(void *)field = v;
	return 0;
}

/* "10m", "1g", "512k" when exact, else bytes. */
static void
format_size(int64_t v, char *out, size_t outsz)
{
	if (v > 0 && v % GIB == 0)
		snprintf(out, outsz, "%" PRId64 "g", v / GIB);
	else if (v > 0 && v % MIB == 0)
		snprintf(out, outsz, "%" PRId64 "m", v / MIB);
	else if (v > 0 && v % KIB == 0)
		snprintf(out, outsz, "%" PRId64 "k", v / KIB);
	else
		snprintf(out, outsz, "%" PRId64, v);
}

/* "1h", "5m", "30s" when exact, else "250ms"; 0 and -1 bare. */
static void
format_duration(int64_t v, char *out, size_t outsz)
{
	if (v <= 0)
		snprintf(out, outsz, "%" PRId64, v);
	else if (v % 3600000 == 0)
		snprintf(out, outsz, "%" PRId64 "h", v / 3600000);
	else if (v % 60000 == 0)
		snprintf(out, outsz, "%" PRId64 "m", v / 60000);
	else if (v % 1000 == 0)
		snprintf(out, outsz, "%" PRId64 "s", v / 1000);
	else
		snprintf(out, outsz, "%" PRId64 "ms", v);
}

/* Format setting st; false when it has no value (an unset token). */
static bool
format(const struct sc_server_conf *conf, const struct setting *st, char *out,
    size_t outsz)
{
	const char *field = (const char *)conf + st->off;

	switch (st->kind) {
	case K_SIZE:
		format_size(*(const int64_t *)(const void *)field, out, outsz);
		break;
	case K_DURATION:
		format_duration(*(const int64_t *)(const void *)field, out,
		    outsz);
		break;
	case K_BOOL:
		snprintf(out, outsz, "%s",
		    *(const bool *)(const void *)field ? "true" : "false");
		break;
	case K_COUNT:
		snprintf(out, outsz, "%" PRId64,
		    *(const int64_t *)(const void *)field);
		break;
	case K_INT:
		snprintf(out, outsz, "%d", *(const int *)(const void *)field);
		break;
	case K_TOKEN:
		if (field[0] == '\0')
			return false;
		snprintf(out, outsz, "%s", REDACTED);
		break;
	}
	return true;
}

int
sc_server_conf_get(const struct sc_server_conf *conf, const char *key,
    char *out, size_t outsz)
{
	size_t i;

	for (i = 0; i < NSETTINGS; i++)
		if (strcmp(key, settings[i].name) == 0)
			return format(conf, &settings[i], out, outsz) ? 0 : -1;
	return -1;
}

void
sc_server_conf_each(const struct sc_server_conf *conf,
    void (*fn)(const char *key, const char *value, void *arg), void *arg)
{
	char value[64];
	size_t i;

	for (i = 0; i < NSETTINGS; i++)
		if (format(conf, &settings[i], value, sizeof(value)))
			fn(settings[i].name, value, arg);
}
