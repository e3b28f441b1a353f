/* SPDX-License-Identifier: MIT */

/*
 * service_config.c: the Config RPC: Spark's settings, the server's, and each
 * session's own, with their limits.
 */

#include "server/service_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/log.h"
#include "core/protocol.h"
#include "core/rpc_server.h"
#include "core/timeutil.h"
#include "core/xmem.h"
#include "server/artifact.h"
#include "engine/engine.h"
#include "server/exec.h"
#include "server/session.h"
#include "core/banned.h"

/* Settings a client may read but not change, besides the server's. */
static const struct {
	const char *key;
	const char *value;
} builtins[] = {
	{ "spark.app.name", "sc-serve" },
};

/*
 * Spark's own SQL settings that clients read (PySpark reads several on
 * every server error), with Spark 4's defaults, which Get answers for a
 * key nobody set, and the type Spark converts a value to when it is set
 * (a value that does not convert is refused as Spark refuses it).  A
 * session may set them.  Those marked fixed change semantics sc-serve
 * implements one way only (TIMESTAMP_LTZ, ...), so setting another
 * value is refused rather than silently giving other answers than Spark
 * would.  spark.sql.ansi.enabled, spark.sql.caseSensitive and
 * spark.sql.session.timeZone are not fixed: the engine reads them on
 * every call (engine_int.h's sc_emode).
 */
enum conf_type {
	CT_STRING,
	CT_BOOL,
	CT_INT,
	CT_LONG,
	CT_BYTES, /* a long with an optional size suffix: 50m, 1g */
};

static const struct spark_setting {
	const char *key;
	const char *value;
	bool fixed;
	enum conf_type type;
} spark_settings[] = {
	{ "spark.sql.adaptive.enabled", "true", false, CT_BOOL },
	{ "spark.sql.ansi.doubleQuotedIdentifiers", "false", true, CT_BOOL },
	{ "spark.sql.ansi.enabled", "true", false, CT_BOOL },
	{ "spark.sql.caseSensitive", "false", false, CT_BOOL },
	{ "spark.sql.connect.enrichError.enabled", "true", false, CT_BOOL },
	{ "spark.sql.connect.serverStacktrace.enabled", "true", false,
	    CT_BOOL },
	{ "spark.sql.datetime.java8API.enabled", "false", false, CT_BOOL },
	{ "spark.sql.defaultCatalog", "spark_catalog", true, CT_STRING },
	{ "spark.sql.execution.arrow.localRelationThreshold", "50331648", false,
	    CT_BYTES },
	{ "spark.sql.execution.arrow.maxRecordsPerBatch", "10000", false,
	    CT_INT },
	{ "spark.sql.execution.arrow.pyspark.enabled", "false", false,
	    CT_BOOL },
	{ "spark.sql.execution.arrow.pyspark.selfDestruct.enabled", "false",
	    false, CT_BOOL },
	{ "spark.sql.execution.arrow.useLargeVarTypes", "false", false,
	    CT_BOOL },
	{ "spark.sql.execution.pandas.convertToArrowArraySafely", "false",
	    false, CT_BOOL },
	{ "spark.sql.execution.pandas.inferPandasDictAsMap", "false", false,
	    CT_BOOL },
	{ "spark.sql.execution.pandas.structHandlingMode", "legacy", false,
	    CT_STRING },
	{ "spark.sql.execution.pyspark.binaryAsBytes", "true", false, CT_BOOL },
	{ "spark.sql.execution.pythonUDF.arrow.enabled", "false", false,
	    CT_BOOL },
	{ "spark.sql.execution.pythonUDTF.arrow.enabled", "true", false,
	    CT_BOOL },
	{ "spark.sql.execution.pyspark.udf.simplifiedTraceback.enabled", "true",
	    false, CT_BOOL },
	{ "spark.sql.legacy.timeParserPolicy", "CORRECTED", true, CT_STRING },
	{ "spark.sql.mapKeyDedupPolicy", "EXCEPTION", true, CT_STRING },
	{ "spark.sql.pyspark.inferNestedDictAsStruct.enabled", "false", false,
	    CT_BOOL },
	{ "spark.sql.pyspark.jvmStacktrace.enabled", "false", false, CT_BOOL },
	{ "spark.sql.pyspark.legacy.inferArrayTypeFromFirstElement.enabled",
	    "false", false, CT_BOOL },
	{ "spark.sql.pyspark.legacy.inferMapTypeFromFirstPair.enabled", "false",
	    false, CT_BOOL },
	{ "spark.sql.repl.eagerEval.enabled", "false", false, CT_BOOL },
	{ "spark.sql.repl.eagerEval.maxNumRows", "20", false, CT_INT },
	{ "spark.sql.repl.eagerEval.truncate", "20", false, CT_INT },
	/* createDataFrame reads these five in one call (PySpark 4.1+). */
	{ "spark.sql.session.localRelationBatchOfChunksSizeBytes", "1073741824",
	    false, CT_LONG },
	{ "spark.sql.session.localRelationCacheThreshold", "1048576", false,
	    CT_INT },
	{ "spark.sql.session.localRelationChunkSizeBytes", "16777216", false,
	    CT_LONG },
	{ "spark.sql.session.localRelationChunkSizeRows", "10000", false,
	    CT_INT },
	{ "spark.sql.session.localRelationSizeLimit", "3221225472", false,
	    CT_LONG },
	{ "spark.sql.session.timeZone", "UTC", false, CT_STRING },
	{ "spark.sql.shuffle.partitions", "200", false, CT_INT },
	{ "spark.sql.timestampType", "TIMESTAMP_LTZ", true, CT_STRING },
};

static const struct spark_setting *
spark_setting(const char *key)
{
	size_t i;

	for (i = 0; i < SC_NELEM(spark_settings); i++)
		if (strcmp(key, spark_settings[i].key) == 0)
			return &spark_settings[i];
	return NULL;
}

/* Keys Spark Connect warns about (SparkConnectConfigHandler). */
static const char *const unsupported_keys[] = {
	"spark.sql.execution.arrow.enabled",
	"spark.sql.execution.arrow.pyspark.fallback.enabled",
};

/* ------------------------------------------------------------ Config */

/* Response pairs and warnings, all malloc'ed. */
struct conf_out {
	Spark__Connect__KeyValue **pairs;
	size_t npairs;
	size_t pairs_cap;
	char **warnings;
	size_t nwarnings;
	size_t warnings_cap;
};

/* Make room for one more element in the array v (n used of cap). */
#define GROW(v, n, cap)                                                   \
	do {                                                              \
		if ((n) >= (cap)) {                                       \
			(cap) = (cap) ? (cap)*2 : 16;                     \
			(v) = sc_xreallocarray((v), (cap), sizeof(*(v))); \
		}                                                         \
	} while (0)

static void
out_pair(struct conf_out *o, const char *key, const char *value)
{
	Spark__Connect__KeyValue *kv;

	kv = sc_xmalloc(sizeof(*kv));
	spark__connect__key_value__init(kv);
	kv->key = sc_xstrdup(key);
	if (value != NULL) {
		kv->_value_case = SPARK__CONNECT__KEY_VALUE___VALUE_VALUE;
		kv->value = sc_xstrdup(value);
	}
	GROW(o->pairs, o->npairs, o->pairs_cap);
	o->pairs[o->npairs++] = kv;
}

static void
out_warning(struct conf_out *o, char *text)
{
	GROW(o->warnings, o->nwarnings, o->warnings_cap);
	o->warnings[o->nwarnings++] = text;
}

static void
out_free(struct conf_out *o)
{
	size_t i;

	for (i = 0; i < o->npairs; i++) {
		free(o->pairs[i]->key);
		if (o->pairs[i]->_value_case != 0)
			free(o->pairs[i]->value);
		free(o->pairs[i]);
	}
	free(o->pairs);
	for (i = 0; i < o->nwarnings; i++)
		free(o->warnings[i]);
	free(o->warnings);
}

static void
warn_key(struct conf_out *o, const char *key)
{
	size_t i;

	for (i = 0; i < SC_NELEM(unsupported_keys); i++)
		if (strcmp(key, unsupported_keys[i]) == 0)
			out_warning(o,
			    sc_xasprintf("The SQL config '%s' is "
					 "NOT supported in Spark Connect",
				key));
}

/* The value of key for session s (malloc'ed), or NULL when unset. */
static char *
conf_value(struct sc_session *s, const char *key)
{
	char buf[128], *v;
	size_t i;

	if ((v = sc_session_conf_get(s, key)) != NULL)
		return v;
	if (sc_server_conf_get(s->conf, key, buf, sizeof(buf)) == 0)
		return sc_xstrdup(buf);
	for (i = 0; i < SC_NELEM(builtins); i++)
		if (strcmp(key, builtins[i].key) == 0)
			return sc_xstrdup(builtins[i].value);
	if (spark_setting(key) != NULL)
		return sc_xstrdup(spark_setting(key)->value);
	return NULL;
}

/*
 * The value of key for session s as Spark's GetWithDefault gives it: a
 * value that is set, else NULL (the caller's default wins over a
 * registered setting's own default).
 */
static char *
conf_set_value(struct sc_session *s, const char *key)
{
	char buf[128], *v;
	size_t i;

	if ((v = sc_session_conf_get(s, key)) != NULL)
		return v;
	if (sc_server_conf_get(s->conf, key, buf, sizeof(buf)) == 0)
		return sc_xstrdup(buf);
	for (i = 0; i < SC_NELEM(builtins); i++)
		if (strcmp(key, builtins[i].key) == 0)
			return sc_xstrdup(builtins[i].value);
	return NULL;
}

/*
 * A fixed Spark setting may only be set to the value sc-serve implements
 * (booleans and enumerations in any case, as Spark reads them).
 */
static int
check_fixed(const char *key, const char *value, struct sc_error *err)
{
	const struct spark_setting *ss = spark_setting(key);

	if (strcmp(key, "spark.sql.session.timeZone") == 0)
		return sc_engine_tz_check(key, value, err);
	if (ss == NULL || !ss->fixed || strcasecmp(value, ss->value) == 0)
		return 0;
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.SET_CONFIG", "0A000",
	    "The feature is not supported: setting \"%s\" to \"%s\"; "
	    "sc-serve answers as Spark does with \"%s\" only.",
	    key, value, ss->value);
}

/* s[0..n) without the white space Java's trim() drops (<= ' '). */
static void
trim(const char **s, size_t *n)
{
	while (*n > 0 && (unsigned char)**s <= ' ') {
		(*s)++;
		(*n)--;
	}
	while (*n > 0 && (unsigned char)(*s)[*n - 1] <= ' ')
		(*n)--;
}

/* Java's Long.parseLong of s[0..n): an optional sign, then digits. */
static bool
java_long(const char *s, size_t n, int64_t min, int64_t max)
{
	size_t i = 0;
	bool neg = false;
	uint64_t v = 0, lim;

	if (n > 0 && (s[0] == '-' || s[0] == '+'))
		neg = s[i++] == '-';
	if (i == n)
		return false;
	lim = neg ? (uint64_t) - (min + 1) + 1 : (uint64_t)max;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (v > lim / 10 ||
		    (v == lim / 10 && (uint64_t)(s[i] - '0') > lim % 10))
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	return true;
}

/*
 * A size as Spark's byte strings: digits with an optional unit (b, k,
 * kb, m, mb, g, gb, t, tb, p, pb, any case) and an optional '-', and
 * the number of bytes a long.
 */
static bool
byte_string(const char *s, size_t n)
{
	static const char *const units[] = { "", "b", "k", "kb", "m", "mb", "g",
		"gb", "t", "tb", "p", "pb" };
	static const int shift[] = { 0, 0, 10, 10, 20, 20, 30, 30, 40, 40, 50,
		50 };
	size_t i = 0, d, k;
	char u[3];

	if (n > 0 && s[0] == '-')
		i++;
	for (d = i; d < n && s[d] >= '0' && s[d] <= '9'; d++)
		;
	if (d == i || n - d > 2)
		return false;
	for (k = 0; k < n - d; k++)
		u[k] = (char)tolower((unsigned char)s[d + k]);
	u[n - d] = '\0';
	for (k = 0; k < SC_NELEM(units); k++)
		if (strcmp(u, units[k]) == 0)
			return java_long(s + i, d - i, 0,
			    INT64_MAX >> shift[k]);
	return false;
}

/*
 * A value of a typed Spark setting must convert to its type, as Spark's
 * SQLConf checks when it is set: INVALID_CONF_VALUE.TYPE_MISMATCH.
 */
static int
check_type(const char *key, const char *value, struct sc_error *err)
{
	const struct spark_setting *ss = spark_setting(key);
	const char *s = value, *tn;
	size_t n = strlen(value);
	bool ok;

	if (ss == NULL)
		return 0;
	trim(&s, &n);
	switch (ss->type) {
	case CT_BOOL:
		ok = (n == 4 && strncasecmp(s, "true", 4) == 0) ||
		    (n == 5 && strncasecmp(s, "false", 5) == 0);
		tn = "boolean";
		break;
	case CT_INT:
		ok = java_long(s, n, INT32_MIN, INT32_MAX);
		tn = "int";
		break;
	case CT_LONG:
		ok = java_long(s, n, INT64_MIN, INT64_MAX);
		tn = "long";
		break;
	case CT_BYTES:
		ok = byte_string(s, n);
		tn = "long";
		break;
	default:
		return 0;
	}
	if (ok)
		return 0;
	return sc_srv_error(err, "INVALID_CONF_VALUE.TYPE_MISMATCH", "22022",
	    "The value '%s' in the config \"%s\" is invalid. It should be "
	    "a/an '%s' value.",
	    value, key, tn);
}

/* Whether value may be set for key: its type, then a fixed value. */
static int
check_value(const char *key, const char *value, struct sc_error *err)
{
	if (check_type(key, value, err) == -1)
		return -1;
	return check_fixed(key, value, err);
}

/* Whether key names a server-wide setting a session may not change. */
static bool
is_static(struct sc_session *s, const char *key)
{
	char buf[128];
	size_t i;

	if (sc_svc_has_prefix(key, "spark.connect.") ||
	    sc_svc_has_prefix(key, "sctk."))
		return true;
	if (sc_server_conf_get(s->conf, key, buf, sizeof(buf)) == 0)
		return true;
	for (i = 0; i < SC_NELEM(builtins); i++)
		if (strcmp(key, builtins[i].key) == 0)
			return true;
	return false;
}

static int
cannot_modify(struct sc_error *err, const char *key)
{
	return sc_srv_error(err, "CANNOT_MODIFY_CONFIG", "46110",
	    "Cannot modify the value of the Spark config: \"%s\".", key);
}

/*
 * Set: as Spark, pairs are set in order up to the first error, which
 * silent turns into a warning.  The pairs that can be set go to the
 * session in one batch, so a batch that would pass a session limit
 * (SESSION_CONF_LIMIT_EXCEEDED, even when silent) sets nothing.
 */
static int
conf_set(struct sc_session *s, const Spark__Connect__ConfigRequest__Set *op,
    struct conf_out *o, struct sc_error *err)
{
	const Spark__Connect__KeyValue *kv;
	const char **keys, **values;
	struct sc_error e;
	size_t i, n = 0;
	bool silent, failed = false;
	int rc;

	if (sc_session_conf_check_count(s->conf, op->n_pairs, err) == -1)
		return -1;
	silent = op->_silent_case != 0 && op->silent;
	keys = sc_xcalloc(op->n_pairs ? op->n_pairs : 1, sizeof(*keys));
	values = sc_xcalloc(op->n_pairs ? op->n_pairs : 1, sizeof(*values));
	for (i = 0; i < op->n_pairs && !failed; i++) {
		kv = op->pairs[i];
		warn_key(o, kv->key);
		if (kv->_value_case == 0)
			sc_svc_plain_error(&e,
			    "value cannot be null for key: %s", kv->key);
		else if (is_static(s, kv->key))
			cannot_modify(&e, kv->key);
		else if (check_value(kv->key, kv->value, &e) == -1)
			;
		else {
			keys[n] = kv->key;
			values[n++] = kv->value;
			continue;
		}
		if (!silent)
			failed = true;
		else
			out_warning(o,
			    sc_xasprintf("Failed to set %s to %s due to %s",
				kv->key,
				kv->_value_case != 0 ? kv->value : "null",
				e.msg));
	}
	rc = sc_session_conf_set_many(s, keys, values, n, err);
	free(keys);
	free(values);
	if (rc == 0 && failed) {
		*err = e;
		rc = -1;
	}
	return rc;
}

static int
conf_get(struct sc_session *s, char **keys, size_t n, bool option,
    struct conf_out *o, struct sc_error *err)
{
	char *v;
	size_t i;

	if (sc_session_conf_check_count(s->conf, n, err) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		warn_key(o, keys[i]);
		v = conf_value(s, keys[i]);
		if (v == NULL && !option)
			return sc_srv_error(err, "SQL_CONF_NOT_FOUND", "42K0I",
			    "The SQL config \"%s\" cannot be found. Please "
			    "verify that the config exists.",
			    keys[i]);
		out_pair(o, keys[i], v);
		free(v);
	}
	return 0;
}

static int
conf_get_default(struct sc_session *s,
    const Spark__Connect__ConfigRequest__GetWithDefault *op, struct conf_out *o,
    struct sc_error *err)
{
	const Spark__Connect__KeyValue *kv;
	char *v;
	size_t i;

	if (sc_session_conf_check_count(s->conf, op->n_pairs, err) == -1)
		return -1;
	for (i = 0; i < op->n_pairs; i++) {
		kv = op->pairs[i];
		warn_key(o, kv->key);
		/* As Spark, a default of the wrong type is refused. */
		if (kv->_value_case != 0 &&
		    check_type(kv->key, kv->value, err) == -1)
			return -1;
		v = conf_set_value(s, kv->key);
		out_pair(o, kv->key,
		    v != NULL		       ? v
			: kv->_value_case != 0 ? kv->value
					       : NULL);
		free(v);
	}
	return 0;
}

/*
 * GetAll collects every visible setting with the rank of its source
 * (built-in, server, session: a later source overrides), sorts by key and
 * rank and keeps the last entry of each key: O(n log n).
 */
struct all_entry {
	char *key; /* without the prefix */
	char *value;
	int rank;
};

struct all {
	struct all_entry *v;
	size_t n;
	size_t cap;
	const char *prefix;
	int rank;
};

static void
all_add(const char *key, const char *value, void *arg)
{
	struct all *a = arg;

	if (!sc_svc_has_prefix(key, a->prefix))
		return;
	GROW(a->v, a->n, a->cap);
	a->v[a->n].key = sc_xstrdup(key + strlen(a->prefix));
	a->v[a->n].value = sc_xstrdup(value);
	a->v[a->n].rank = a->rank;
	a->n++;
}

static int
cmp_entry(const void *a, const void *b)
{
	const struct all_entry *x = a, *y = b;
	int r = strcmp(x->key, y->key);

	return r != 0 ? r : x->rank - y->rank;
}

static void
conf_get_all(struct sc_session *s,
    const Spark__Connect__ConfigRequest__GetAll *op, struct conf_out *o)
{
	struct all a;
	size_t i;

	memset(&a, 0, sizeof(a));
	a.prefix = op->_prefix_case != 0 ? op->prefix : "";
	for (i = 0; i < SC_NELEM(builtins); i++)
		all_add(builtins[i].key, builtins[i].value, &a);
	a.rank = 1;
	sc_server_conf_each(s->conf, all_add, &a);
	a.rank = 2;
	sc_session_conf_each(s, all_add, &a);
	if (a.n > 1)
		qsort(a.v, a.n, sizeof(*a.v), cmp_entry);
	for (i = 0; i < a.n; i++) {
		if (i + 1 == a.n || strcmp(a.v[i].key, a.v[i + 1].key) != 0)
			out_pair(o, a.v[i].key, a.v[i].value);
		free(a.v[i].key);
		free(a.v[i].value);
	}
	free(a.v);
}

static int
conf_unset(struct sc_session *s, char **keys, size_t n, struct conf_out *o,
    struct sc_error *err)
{
	size_t i;

	if (sc_session_conf_check_count(s->conf, n, err) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		warn_key(o, keys[i]);
		if (is_static(s, keys[i]))
			return cannot_modify(err, keys[i]);
		sc_session_conf_unset(s, keys[i]);
	}
	return 0;
}

/*
 * Spark answers true for its registered, non-static SQL settings; sctk
 * cannot know Spark's registry, so every spark.sql.* key that is not a
 * server setting counts as a session setting.
 */
static int
conf_is_modifiable(struct sc_session *s, char **keys, size_t n,
    struct conf_out *o, struct sc_error *err)
{
	size_t i;
	bool mod;

	if (sc_session_conf_check_count(s->conf, n, err) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		mod = sc_svc_has_prefix(keys[i], "spark.sql.") &&
		    !is_static(s, keys[i]);
		out_pair(o, keys[i], mod ? "true" : "false");
	}
	return 0;
}

static int
config(struct sc_session *s, const Spark__Connect__ConfigRequest *req,
    struct conf_out *o, struct sc_error *err)
{
	const Spark__Connect__ConfigRequest__Operation *op = req->operation;

	switch (op != NULL
		? op->op_type_case
		: SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE__NOT_SET) {
	case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_SET:
		return conf_set(s, op->set, o, err);
	case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET:
		return conf_get(s, op->get->keys, op->get->n_keys, false, o,
		    err);
	case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET_WITH_DEFAULT:
		return conf_get_default(s, op->get_with_default, o, err);
	case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET_OPTION:
		return conf_get(s, op->get_option->keys, op->get_option->n_keys,
		    true, o, err);
	case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET_ALL:
		conf_get_all(s, op->get_all, o);
		return 0;
	case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_UNSET:
		return conf_unset(s, op->unset->keys, op->unset->n_keys, o,
		    err);
	case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_IS_MODIFIABLE:
		return conf_is_modifiable(s, op->is_modifiable->keys,
		    op->is_modifiable->n_keys, o, err);
	default:
		return sc_svc_plain_error(err,
		    "ConfigRequest.operation is not set or not supported");
	}
}

void
sc_svc_config(struct sc_rpc_call *call, void *arg)
{
	struct sc_server *srv = arg;
	Spark__Connect__ConfigRequest *req;
	Spark__Connect__ConfigResponse resp =
	    SPARK__CONNECT__CONFIG_RESPONSE__INIT;
	struct sc_session *s;
	struct sc_error err;
	struct conf_out o;

	if (!sc_svc_authorized(srv, call) ||
	    (req = sc_svc_decode(call,
		 &spark__connect__config_request__descriptor)) == NULL)
		return;
	s = sc_svc_session(srv, call, USER(req), req->session_id, OBSERVED(req),
	    SC_SESS_GET_OR_CREATE);
	if (s == NULL) {
		sc_svc_free_msg(req);
		return;
	}
	memset(&o, 0, sizeof(o));
	if (config(s, req, &o, &err) == -1)
		sc_srv_finish_error(call, s, &err);
	else {
		resp.session_id = req->session_id;
		resp.server_side_session_id = s->server_side_id;
		resp.n_pairs = o.npairs;
		resp.pairs = o.pairs;
		resp.n_warnings = o.nwarnings;
		resp.warnings = o.warnings;
		sc_svc_reply(call, &resp.base);
	}
	out_free(&o);
	sc_session_unref(s);
	sc_svc_free_msg(req);
}

/* ------------------------------------------------------------ SQL's SET */

/* SQL's SET and RESET work on the session's settings as Config does. */
static char *
sql_get(void *owner, const char *key)
{
	return conf_value(owner, key);
}

static int
sql_set(void *owner, const char *key, const char *value, struct sc_error *err)
{
	struct sc_session *s = owner;

	if (is_static(s, key))
		return cannot_modify(err, key);
	if (check_value(key, value, err) == -1)
		return -1;
	return sc_session_conf_set(s, key, value, err);
}

struct unset_all {
	char **keys;
	size_t n;
};

static void
collect_key(const char *key, const char *value, void *arg)
{
	struct unset_all *u = arg;

	(void)value;
	u->keys = sc_xreallocarray(u->keys, u->n + 1, sizeof(*u->keys));
	u->keys[u->n++] = sc_xstrdup(key);
}

static int
sql_unset(void *owner, const char *key, struct sc_error *err)
{
	struct sc_session *s = owner;
	struct unset_all u = { NULL, 0 };
	size_t i;

	if (key != NULL) {
		if (is_static(s, key))
			return cannot_modify(err, key);
		sc_session_conf_unset(s, key);
		return 0;
	}
	sc_session_conf_each(s, collect_key, &u);
	for (i = 0; i < u.n; i++) {
		sc_session_conf_unset(s, u.keys[i]);
		free(u.keys[i]);
	}
	free(u.keys);
	return 0;
}

static void
sql_each(void *owner, void (*fn)(const char *, const char *, void *), void *arg)
{
	struct sc_session *s = owner;
	struct all a;
	size_t i;

	memset(&a, 0, sizeof(a));
	a.prefix = "";
	for (i = 0; i < SC_NELEM(builtins); i++)
		all_add(builtins[i].key, builtins[i].value, &a);
	a.rank = 1;
	sc_server_conf_each(s->conf, all_add, &a);
	a.rank = 2;
	sc_session_conf_each(s, all_add, &a);
	if (a.n > 1)
		qsort(a.v, a.n, sizeof(*a.v), cmp_entry);
	for (i = 0; i < a.n; i++) {
		if (i + 1 == a.n || strcmp(a.v[i].key, a.v[i + 1].key) != 0)
			fn(a.v[i].key, a.v[i].value, arg);
		free(a.v[i].key);
		free(a.v[i].value);
	}
	free(a.v);
}

const struct sc_engine_conf_ops sc_svc_sql_conf = {
	.get = sql_get,
	.set = sql_set,
	.unset = sql_unset,
	.each = sql_each,
};
