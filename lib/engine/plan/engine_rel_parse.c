/* SPDX-License-Identifier: MIT */

/*
 * engine_rel_parse.c: relations whose rows come from text or from an
 * upload rather than from SQL: parse (spark.read.csv / spark.read.json
 * over a relation of strings, through engine_files.c's readers, each
 * row one record), cached_local_relation (a LocalRelation message the
 * client uploaded as the artifact "cache/<sha-256 hex>") and
 * chunked_cached_local_relation (its rows as several such artifacts).
 */

#include "engine/engine_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

#define PARSE_(x) SPARK__CONNECT__PARSE__PARSE_FORMAT__PARSE_FORMAT_##x

/* Largest cached relation read (Spark's limit for one is 2 GiB). */
#define MAX_CACHED ((int64_t)INT32_MAX)

/* ------------------------------------------------------------------ */
/* parse                                                               */
/* ------------------------------------------------------------------ */

/* The columns of a parse's schema (a struct of flat types). */
static int
parse_schema(const Spark__Connect__DataType *dt, struct sc_ecol **cols,
    size_t *n, struct sc_error *err)
{
	struct sc_etype t;
	const struct sc_enest *s;
	size_t i;

	if (sc_eng_type_from_proto(dt, &t, err) == -1)
		return -1;
	if (t.t != SC_ARROW_STRUCT)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The schema of a parse relation must be a struct.");
	s = t.nest;
	if (s->n == 0)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE",
		    "0A000",
		    "A parse schema without fields is not supported by "
		    "sc-serve.");
	for (i = 0; i < s->n; i++)
		if (s->types[i].t == SC_ARROW_STRUCT ||
		    s->types[i].t == SC_ARROW_LIST ||
		    s->types[i].t == SC_ARROW_MAP)
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.DATA_TYPE", "0A000",
			    "Parsing the nested field `%s` of a CSV or JSON "
			    "record is not supported by sc-serve.",
			    s->names[i]);
	for (i = 0; i < s->n; i++)
		sc_eng_cols_add(cols, n, s->names[i], &s->types[i], 1);
	return 0;
}

int
sc_eng_parse(struct sc_ectx *x, const Spark__Connect__Parse *p,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in, w;
	struct sc_ecol *scols = NULL;
	struct sc_buf ref;
	sqlite3_stmt *st = NULL;
	const char **kv = NULL, *fmt;
	size_t ns = 0, i;
	int rc = -1;

	switch (p->format) {
	case PARSE_(CSV):
		fmt = "csv";
		break;
	case PARSE_(JSON):
		fmt = "json";
		break;
	case PARSE_(XML):
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_SOURCE",
		    "0A000",
		    "Parsing XML records is not supported by sc-serve (it "
		    "parses CSV and JSON).");
	default:
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A parse relation needs the format CSV or JSON.");
	}
	sc_eplan_init(&in);
	sc_eplan_init(&w);
	sc_buf_init(&ref, SC_BUF_UNLIMITED);
	if (sc_eng_rel_input(x, p->input, "parse", &in, err) == -1)
		goto out;
	if (in.ncols != 1) {
		sc_srv_error(err,
		    "UNSUPPORTED_DESERIALIZER.FIELD_NUMBER_MISMATCH", "0A000",
		    "The deserializer is not supported: try to map the %zu "
		    "columns of the input to one string, but failed as the "
		    "number of fields does not line up.",
		    in.ncols);
		goto out;
	}
	if (p->_schema_case == SPARK__CONNECT__PARSE___SCHEMA_SCHEMA &&
	    p->schema != NULL &&
	    parse_schema(p->schema, &scols, &ns, err) == -1)
		goto out;
	kv = sc_xcalloc(2 * p->n_options + 1, sizeof(*kv));
	for (i = 0; i < p->n_options; i++) {
		kv[2 * i] = p->options[i]->key != NULL ? p->options[i]->key
						       : "";
		kv[2 * i + 1] =
		    p->options[i]->value != NULL ? p->options[i]->value : "";
	}
	/* Each row's text: a string as it is, anything else as a string. */
	sc_eng_col_ref(&ref, &in.cols[0]);
	sc_buf_addstr(&w.sql, "SELECT ", NULL);
	if (in.cols[0].type.t == SC_ARROW_UTF8 ||
	    in.cols[0].type.t == SC_ARROW_LARGE_UTF8 ||
	    in.cols[0].type.t == SC_ETYPE_UNKNOWN) {
		sc_buf_add(&w.sql, ref.data, ref.len, NULL);
	} else {
		sc_buf_addf(&w.sql, NULL, "sc_cast(%s, 'string', 0, '",
		    (const char *)ref.data);
		sc_eng_type_text(&in.cols[0].type, SC_VALUE_TYPENAME, &w.sql);
		sc_buf_addstr(&w.sql, "')", NULL);
	}
	sc_buf_addstr(&w.sql, " FROM ", NULL);
	sc_eng_from_item(x, &in, &w, &w.sql);
	sc_eng_plan_finish(&w);
	if (sc_eng_prepare(x, (const char *)w.sql.data, w.sql.len, &st, NULL,
		err) == -1)
		goto out;
	rc = sc_eng_files_rows(x, fmt, kv, 2 * p->n_options, scols, ns, st, out,
	    err);
out:
	sqlite3_finalize(st);
	free(kv);
	sc_ecols_free(scols, ns);
	sc_buf_release(&ref);
	sc_eplan_release(&w);
	sc_eplan_release(&in);
	return rc;
}

/* ------------------------------------------------------------------ */
/* cached_local_relation                                               */
/* ------------------------------------------------------------------ */

static int
not_cached(const char *hash, struct sc_error *err)
{
	return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
	    "Not found any cached local relation with the hash: %s in the "
	    "session.",
	    hash);
}

/* The whole of fd into *data (malloc'ed) and *len: 0 or -1. */
static int
read_all(int fd, const char *name, uint8_t **data, size_t *len,
    struct sc_error *err)
{
	struct stat sb;
	uint8_t *p;
	size_t n = 0, size;
	ssize_t r;

	if (fstat(fd, &sb) == -1)
		return sc_srv_error(err, "FAILED_READ_FILE", "KD001",
		    "Cannot read %s: %s.", name, strerror(errno));
	if (sb.st_size > MAX_CACHED)
		return sc_eng_too_big(err, MAX_CACHED, "A cached relation");
	size = (size_t)sb.st_size;
	p = sc_xmalloc(size + 1);
	while (n < size) {
		r = read(fd, p + n, size - n);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(p);
			return sc_srv_error(err, "FAILED_READ_FILE", "KD001",
			    "Cannot read %s: %s.", name,
			    r == 0 ? "it ended early" : strerror(errno));
		}
		n += (size_t)r;
	}
	*data = p;
	*len = n;
	return 0;
}

/*
 * The artifact cache/<hash> of x's session read whole into *data
 * (malloc'ed, NUL-terminated) and *len: 0 or -1.
 */
static int
read_cached(struct sc_ectx *x, const char *hash, uint8_t **data, size_t *len,
    struct sc_error *err)
{
	struct sc_engine *e = x->c->e;
	struct sc_error ferr;
	char name[160];
	size_t i;
	int fd = -1, rc;

	/* A hash is hex; anything else names no cached relation. */
	for (i = 0; hash[i] != '\0'; i++)
		if (!((hash[i] >= '0' && hash[i] <= '9') ||
			(hash[i] >= 'a' && hash[i] <= 'f') ||
			(hash[i] >= 'A' && hash[i] <= 'F')))
			break;
	if (i == 0 || hash[i] != '\0' || i > 128)
		return not_cached(i > 128 ? "(too long)" : hash, err);
	snprintf(name, sizeof(name), "cache/%s", hash);
	if (e->files == NULL)
		return not_cached(hash, err);
	sc_error_init(&ferr);
	if (e->files(e->files_arg, x->c->owner, name, &fd, &ferr) == -1) {
		if (strcmp(ferr.errclass, "PATH_NOT_FOUND") == 0)
			return not_cached(hash, err);
		if (err != NULL)
			*err = ferr;
		return -1;
	}
	rc = read_all(fd, name, data, len, err);
	close(fd);
	if (rc == 0)
		(*data)[*len] = '\0';
	return rc;
}

int
sc_eng_cached_local(struct sc_ectx *x,
    const Spark__Connect__CachedLocalRelation *c, struct sc_eplan *out,
    struct sc_error *err)
{
	Spark__Connect__LocalRelation *lr;
	const char *hash = c->hash != NULL ? c->hash : "";
	uint8_t *data = NULL;
	size_t len = 0;
	int rc;

	if (read_cached(x, hash, &data, &len, err) == -1)
		return -1;
	lr = spark__connect__local_relation__unpack(NULL, len, data);
	free(data);
	if (lr == NULL)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The cached local relation %s is not a serialized "
		    "LocalRelation.",
		    hash);
	rc = sc_eng_local_relation(x, lr, out, err);
	spark__connect__local_relation__free_unpacked(lr, NULL);
	return rc;
}

/*
 * chunked_cached_local_relation (PySpark 4.1+ past
 * spark.sql.session.localRelationCacheThreshold): each data hash names
 * an Arrow IPC stream of some of the rows, in order, and the schema hash
 * the schema string.  The first chunk makes the table, the others are
 * appended to it one at a time, so the server holds one chunk
 * (spark.sql.session.localRelationChunkSizeBytes, 16 MiB) at most.
 */
int
sc_eng_chunked_local(struct sc_ectx *x,
    const Spark__Connect__ChunkedCachedLocalRelation *c, struct sc_eplan *out,
    struct sc_error *err)
{
	Spark__Connect__LocalRelation lr;
	uint8_t *schema = NULL, *data = NULL;
	size_t len = 0, i;
	int rc = -1;

	spark__connect__local_relation__init(&lr);
	if (c->_schema_hash_case ==
	    SPARK__CONNECT__CHUNKED_CACHED_LOCAL_RELATION___SCHEMA_HASH_SCHEMA_HASH) {
		if (read_cached(x, c->schemahash != NULL ? c->schemahash : "",
			&schema, &len, err) == -1)
			return -1;
		lr._schema_case =
		    SPARK__CONNECT__LOCAL_RELATION___SCHEMA_SCHEMA;
		lr.schema = (char *)schema;
	}
	if (c->n_datahashes == 0) {
		rc = sc_eng_local_relation(x, &lr, out, err);
		goto out;
	}
	for (i = 0; i < c->n_datahashes; i++) {
		if (read_cached(x, c->datahashes[i], &data, &len, err) == -1) {
			rc = -1;
			goto out;
		}
		if (i == 0) {
			lr._data_case =
			    SPARK__CONNECT__LOCAL_RELATION___DATA_DATA;
			lr.data.data = data;
			lr.data.len = len;
			rc = sc_eng_local_relation(x, &lr, out, err);
		} else {
			rc = sc_eng_local_append(x, out, data, len, err);
		}
		free(data);
		data = NULL;
		if (rc == -1)
			goto out;
	}
out:
	free(schema);
	return rc;
}
