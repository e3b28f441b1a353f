/* SPDX-License-Identifier: MIT */

/*
 * engine_local.c: LocalRelation (client-side data) for the SQLite engine.
 * The Arrow IPC stream is decoded with the core reader into a TEMP table
 * of the session's connection, dropped when the call ends; its declared
 * column types carry the Spark types.  A schema string (DDL such as
 * "a INT, b STRING" or Spark's JSON) renames and retypes the columns, or
 * describes an empty relation when there is no data.
 */

#include "engine/engine_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

static int
bad_schema(const char *s, const char *why, struct sc_error *err)
{
	return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
	    "Cannot use the local relation schema '%.200s': %s.", s, why);
}

static void
add_col(struct sc_ecol **cols, size_t *n, const char *name, size_t nl,
    const struct sc_etype *t, bool nullable)
{
	struct sc_ecol *c;

	*cols = sc_xreallocarray(*cols, *n + 1, sizeof(**cols));
	c = &(*cols)[(*n)++];
	memset(c, 0, sizeof(*c));
	c->name = sc_xstrndup(name, nl);
	c->type = *t;
	c->nullable = nullable;
}

/* --- JSON schema: {"type":"struct","fields":[{...}, ...]} ----------- */

struct json {
	const char *p;
	const char *end;
};

static void
jws(struct json *j)
{
	while (j->p < j->end && isspace((unsigned char)*j->p))
		j->p++;
}

/* A JSON string into out, unescaped (a column named \u6570 is 数). */
static int
jstring(struct json *j, struct sc_buf *out)
{
	jws(j);
	if (j->p >= j->end || *j->p != '"')
		return -1;
	return sc_eng_json_string(&j->p, j->end, out);
}

static int
jskip(struct json *j, int depth)
{
	struct sc_buf tmp;
	char close;

	if (depth > 32)
		return -1;
	jws(j);
	if (j->p >= j->end)
		return -1;
	if (*j->p == '"') {
		sc_buf_init(&tmp, SC_BUF_UNLIMITED);
		if (jstring(j, &tmp) == -1) {
			sc_buf_release(&tmp);
			return -1;
		}
		sc_buf_release(&tmp);
		return 0;
	}
	if (*j->p == '{' || *j->p == '[') {
		close = *j->p == '{' ? '}' : ']';
		j->p++;
		jws(j);
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return 0;
		}
		for (;;) {
			if (close == '}') {
				sc_buf_init(&tmp, SC_BUF_UNLIMITED);
				if (jstring(j, &tmp) == -1) {
					sc_buf_release(&tmp);
					return -1;
				}
				sc_buf_release(&tmp);
				jws(j);
				if (j->p >= j->end || *j->p++ != ':')
					return -1;
			}
			if (jskip(j, depth + 1) == -1)
				return -1;
			jws(j);
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				continue;
			}
			if (j->p < j->end && *j->p == close) {
				j->p++;
				return 0;
			}
			return -1;
		}
	}
	while (j->p < j->end &&
	    (isalnum((unsigned char)*j->p) || *j->p == '-' || *j->p == '+' ||
		*j->p == '.'))
		j->p++;
	return 0;
}

static int
jexpect(struct json *j, char c)
{
	jws(j);
	if (j->p >= j->end || *j->p != c)
		return -1;
	j->p++;
	return 0;
}

static int jfield(struct json *j, struct sc_ecol **cols, size_t *n,
    const char *all, struct sc_error *err, int depth);
static int jtype(struct json *j, struct sc_etype *t, const char *all,
    struct sc_error *err, int depth);

static int
jbool(struct json *j, bool *out)
{
	jws(j);
	*out = j->end - j->p >= 4 && strncmp(j->p, "true", 4) == 0;
	return jskip(j, 0);
}

/* A type object: {"type":"array","elementType":...,"containsNull":...}. */
static int
jtype_obj(struct json *j, struct sc_etype *t, const char *all,
    struct sc_error *err, int depth)
{
	struct sc_buf key, kind;
	struct sc_etype a, b;
	struct sc_ecol *fc = NULL;
	size_t nf = 0, i;
	bool cnull = true, vnull = true, has_a = false, has_b = false;
	int rc = -1;

	sc_buf_init(&key, SC_BUF_UNLIMITED);
	sc_buf_init(&kind, SC_BUF_UNLIMITED);
	if (depth > 32 || jexpect(j, '{') == -1)
		goto bad;
	for (;;) {
		sc_buf_reset(&key);
		if (jstring(j, &key) == -1 || jexpect(j, ':') == -1)
			goto bad;
		jws(j);
		if (strcmp((const char *)key.data, "type") == 0) {
			if (jstring(j, &kind) == -1)
				goto bad;
		} else if (strcmp((const char *)key.data, "elementType") == 0 ||
		    strcmp((const char *)key.data, "keyType") == 0) {
			if (jtype(j, &a, all, err, depth + 1) == -1)
				goto out;
			has_a = true;
		} else if (strcmp((const char *)key.data, "valueType") == 0) {
			if (jtype(j, &b, all, err, depth + 1) == -1)
				goto out;
			has_b = true;
		} else if (strcmp((const char *)key.data, "containsNull") ==
		    0) {
			if (jbool(j, &cnull) == -1)
				goto bad;
		} else if (strcmp((const char *)key.data,
			       "valueContainsNull") == 0) {
			if (jbool(j, &vnull) == -1)
				goto bad;
		} else if (strcmp((const char *)key.data, "fields") == 0) {
			if (jexpect(j, '[') == -1)
				goto bad;
			jws(j);
			if (j->p < j->end && *j->p == ']') {
				j->p++;
			} else {
				for (;;) {
					if (jfield(j, &fc, &nf, all, err,
						depth + 1) == -1)
						goto out;
					jws(j);
					if (j->p < j->end && *j->p == ',') {
						j->p++;
						continue;
					}
					if (jexpect(j, ']') == -1)
						goto bad;
					break;
				}
			}
		} else if (jskip(j, 0) == -1) {
			goto bad;
		}
		jws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (jexpect(j, '}') == -1)
			goto bad;
		break;
	}
	if (strcmp((const char *)kind.data, "array") == 0 && has_a) {
		rc = sc_eng_nest_array(&a, cnull, t, err);
	} else if (strcmp((const char *)kind.data, "map") == 0 && has_a &&
	    has_b) {
		rc = sc_eng_nest_map(&a, &b, vnull, t, err);
	} else if (strcmp((const char *)kind.data, "struct") == 0) {
		char **names = sc_xcalloc(nf + 1, sizeof(*names));
		struct sc_etype *types = sc_xcalloc(nf + 1, sizeof(*types));
		bool *nulls = sc_xcalloc(nf + 1, sizeof(*nulls));

		for (i = 0; i < nf; i++) {
			names[i] = fc[i].name;
			types[i] = fc[i].type;
			nulls[i] = fc[i].nullable != 0;
		}
		rc = sc_eng_nest_struct(names, types, nulls, nf, t, err);
		free(names);
		free(types);
		free(nulls);
	} else {
		goto bad;
	}
	goto out;
bad:
	rc = bad_schema(all, "malformed JSON", err);
out:
	sc_ecols_free(fc, nf);
	sc_buf_release(&key);
	sc_buf_release(&kind);
	return rc;
}

/* A type: a name ("integer", "decimal(10,2)") or a type object. */
static int
jtype(struct json *j, struct sc_etype *t, const char *all, struct sc_error *err,
    int depth)
{
	struct sc_buf name;
	int rc = 0;

	jws(j);
	if (j->p < j->end && *j->p == '{')
		return jtype_obj(j, t, all, err, depth);
	sc_buf_init(&name, SC_BUF_UNLIMITED);
	if (jstring(j, &name) == -1)
		rc = bad_schema(all, "malformed JSON", err);
	else if (sc_eng_parse_type((const char *)name.data, name.len, false,
		     t) == -1)
		rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE", "0A000",
		    "The data type '%s' is not supported by "
		    "sc-serve.",
		    (const char *)name.data);
	sc_buf_release(&name);
	return rc;
}

/* One field object. */
static int
jfield(struct json *j, struct sc_ecol **cols, size_t *n, const char *all,
    struct sc_error *err, int depth)
{
	struct sc_buf key, name;
	struct sc_etype t;
	bool nullable = true, has_type = false;
	int rc = -1;

	sc_buf_init(&key, SC_BUF_UNLIMITED);
	sc_buf_init(&name, SC_BUF_UNLIMITED);
	if (jexpect(j, '{') == -1)
		goto bad;
	for (;;) {
		sc_buf_reset(&key);
		if (jstring(j, &key) == -1 || jexpect(j, ':') == -1)
			goto bad;
		jws(j);
		if (strcmp((const char *)key.data, "name") == 0) {
			if (jstring(j, &name) == -1)
				goto bad;
		} else if (strcmp((const char *)key.data, "type") == 0) {
			if (jtype(j, &t, all, err, depth) == -1)
				goto out;
			has_type = true;
		} else if (strcmp((const char *)key.data, "nullable") == 0) {
			nullable = j->end - j->p >= 4 &&
			    strncmp(j->p, "true", 4) == 0;
			if (jskip(j, 0) == -1)
				goto bad;
		} else if (jskip(j, 0) == -1) {
			goto bad;
		}
		jws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (jexpect(j, '}') == -1)
			goto bad;
		break;
	}
	if (!has_type)
		goto bad;
	add_col(cols, n, (const char *)name.data, name.len, &t, nullable);
	rc = 0;
	goto out;
bad:
	rc = bad_schema(all, "malformed JSON", err);
out:
	sc_buf_release(&key);
	sc_buf_release(&name);
	return rc;
}

static int
json_schema(const char *s, struct sc_ecol **cols, size_t *n,
    struct sc_error *err)
{
	struct json j = { s, s + strlen(s) };
	struct sc_buf key;
	int rc = -1;
	bool fields = false;

	sc_buf_init(&key, SC_BUF_UNLIMITED);
	if (jexpect(&j, '{') == -1)
		goto bad;
	for (;;) {
		sc_buf_reset(&key);
		if (jstring(&j, &key) == -1 || jexpect(&j, ':') == -1)
			goto bad;
		if (strcmp((const char *)key.data, "fields") == 0) {
			fields = true;
			if (jexpect(&j, '[') == -1)
				goto bad;
			jws(&j);
			if (j.p < j.end && *j.p == ']') {
				j.p++;
			} else {
				for (;;) {
					if (jfield(&j, cols, n, s, err, 0) ==
					    -1)
						goto out;
					jws(&j);
					if (j.p < j.end && *j.p == ',') {
						j.p++;
						continue;
					}
					if (jexpect(&j, ']') == -1)
						goto bad;
					break;
				}
			}
		} else if (jskip(&j, 0) == -1) {
			goto bad;
		}
		jws(&j);
		if (j.p < j.end && *j.p == ',') {
			j.p++;
			continue;
		}
		if (jexpect(&j, '}') == -1)
			goto bad;
		break;
	}
	if (!fields)
		goto bad;
	rc = 0;
	goto out;
bad:
	rc = bad_schema(s, "malformed JSON", err);
out:
	sc_buf_release(&key);
	return rc;
}

/* --- DDL schema: "a INT, `b c` STRING NOT NULL" or struct<a:int> -------- */

static int
ddl_schema(const char *s, struct sc_ecol **cols, size_t *n,
    struct sc_error *err)
{
	const char *p = s, *end = s + strlen(s), *ts, *te;
	struct sc_buf name;
	struct sc_etype t;
	int depth;
	bool nullable;

	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	if (end - p > 7 && strncasecmp(p, "struct<", 7) == 0 &&
	    end[-1] == '>') {
		p += 7;
		end--;
	}
	sc_buf_init(&name, SC_BUF_UNLIMITED);
	while (p < end) {
		sc_buf_reset(&name);
		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p < end && *p == '`') {
			for (p++; p < end; p++) {
				if (*p == '`' && p + 1 < end && p[1] == '`')
					p++;
				else if (*p == '`')
					break;
				sc_buf_addch(&name, *p, NULL);
			}
			if (p >= end)
				goto bad;
			p++;
		} else {
			while (p < end &&
			    (isalnum((unsigned char)*p) || *p == '_'))
				sc_buf_addch(&name, *p++, NULL);
		}
		if (name.len == 0)
			goto bad;
		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p < end && *p == ':')
			p++;
		/* The type runs to a top-level comma. */
		ts = p;
		depth = 0;
		while (p < end && (depth > 0 || *p != ',')) {
			if (*p == '(' || *p == '<')
				depth++;
			else if (*p == ')' || *p == '>')
				depth--;
			else if (*p == '\'')
				for (p++; p < end && *p != '\''; p++)
					;
			p++;
		}
		te = p;
		if (p < end)
			p++;
		nullable = true;
		{
			/* Cut " NOT NULL" and " COMMENT '...'" off the type. */
			const char *q;
			int lvl = 0;

			for (q = ts; q < te; q++) {
				if (*q == '<' || *q == '(')
					lvl++;
				else if (*q == '>' || *q == ')')
					lvl--;
				if (lvl > 0)
					continue;
				if (te - q >= 8 &&
				    strncasecmp(q, "NOT NULL", 8) == 0 &&
				    q > ts && isspace((unsigned char)q[-1])) {
					nullable = false;
					te = q;
					break;
				}
				if (te - q >= 7 &&
				    strncasecmp(q, "COMMENT", 7) == 0 &&
				    q > ts && isspace((unsigned char)q[-1])) {
					te = q;
					break;
				}
			}
		}
		if (sc_eng_parse_type(ts, (size_t)(te - ts), false, &t) == -1) {
			sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE",
			    "0A000",
			    "The data type '%.*s' is not supported by "
			    "sc-serve.",
			    (int)(te - ts), ts);
			sc_buf_release(&name);
			return -1;
		}
		add_col(cols, n, (const char *)name.data, name.len, &t,
		    nullable);
	}
	sc_buf_release(&name);
	if (*n == 0)
		return bad_schema(s, "no columns", err);
	return 0;
bad:
	sc_buf_release(&name);
	return bad_schema(s, "malformed DDL", err);
}

int
sc_eng_schema_string(const char *s, struct sc_ecol **cols, size_t *n,
    struct sc_error *err)
{
	const char *p = s;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '{')
		return json_schema(p, cols, n, err);
	return ddl_schema(p, cols, n, err);
}

/* --- Arrow data ------------------------------------------------------ */

static int
arrow_cols(const struct sc_arrow_schema *as, struct sc_ecol **cols, size_t *n,
    struct sc_error *err)
{
	size_t i;
	struct sc_etype t;

	for (i = 0; i < as->nfields; i++) {
		const struct sc_arrow_field *f = &as->fields[i];

		if (sc_eng_type_from_arrow(f, &t, err) == -1)
			return -1;
		add_col(cols, n, f->name, strlen(f->name), &t, f->nullable);
	}
	return 0;
}

/* A decimal128 unscaled value as text with scale digits after the point. */
static void
dec128_text(int64_t hi, uint64_t lo, int scale, char *buf, size_t sz)
{
	unsigned __int128 bits = (unsigned __int128)(uint64_t)hi << 64 | lo;
	__int128 v = (__int128)bits;
	unsigned __int128 u;
	char d[48];
	int nd = 0, i;
	size_t o = 0;

	u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	do {
		d[nd++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u != 0);
	while (nd <= scale)
		d[nd++] = '0';
	if (v < 0 && o + 1 < sz)
		buf[o++] = '-';
	for (i = nd - 1; i >= 0 && o + 2 < sz; i--) {
		buf[o++] = d[i];
		if (i == scale && scale > 0)
			buf[o++] = '.';
	}
	buf[o] = '\0';
}

struct insert {
	struct sc_ectx *x;
	sqlite3_stmt *st;
	struct sc_buf nested; /* a nested value's JSON text */
};

/*
 * The Arrow reader's errors carry no error class: give them Spark's,
 * keeping the reader's text.  Errors of the engine's own (a value over
 * the limit while inserting) already have one.
 */
static void
arrow_error(struct sc_error *err)
{
	char text[sizeof(err->msg)];

	if (err == NULL || err->errclass[0] != '\0')
		return;
	snprintf(text, sizeof(text), "%s", err->msg);
	if (strstr(text, "unsupported") != NULL)
		sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE", "0A000",
		    "The local relation's Arrow data is not supported by "
		    "sc-serve: %s.",
		    text);
	else
		sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The local relation's Arrow data cannot be read: %s.",
		    text);
}

static int
insert_batch(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	struct insert *ins = arg;
	const struct sc_arrow_schema *s = b->schema;
	size_t r, i;
	int64_t iv;
	double dv;
	const uint8_t *p;
	size_t n;
	char buf[64];
	int rc, brc, col;

	for (r = 0; r < b->nrows; r++) {
		for (i = 0; i < s->nfields; i++) {
			col = (int)i + 1;
			if (sc_arrow_is_null(b, i, r)) {
				sqlite3_bind_null(ins->st, col);
				continue;
			}
			switch (s->fields[i].type) {
			case SC_ARROW_BOOL:
			case SC_ARROW_INT8:
			case SC_ARROW_INT16:
			case SC_ARROW_INT32:
			case SC_ARROW_INT64:
			case SC_ARROW_DURATION_US: /* intervals: integers */
			case SC_ARROW_INTERVAL_YM:
				sc_arrow_get_int64(b, i, r, &iv);
				brc = sqlite3_bind_int64(ins->st, col, iv);
				break;
			case SC_ARROW_FLOAT:
			case SC_ARROW_DOUBLE:
				sc_arrow_get_double(b, i, r, &dv);
				brc = sqlite3_bind_double(ins->st, col, dv);
				break;
			case SC_ARROW_UTF8:
			case SC_ARROW_LARGE_UTF8:
				sc_arrow_get_bytes(b, i, r, &p, &n);
				brc = sqlite3_bind_text(ins->st, col,
				    (const char *)p, (int)n, SQLITE_STATIC);
				break;
			case SC_ARROW_BINARY:
			case SC_ARROW_LARGE_BINARY:
				sc_arrow_get_bytes(b, i, r, &p, &n);
				brc = sqlite3_bind_blob(ins->st, col, p, (int)n,
				    SQLITE_STATIC);
				break;
			case SC_ARROW_DATE32:
				sc_arrow_get_int64(b, i, r, &iv);
				sc_value_fmt_date(iv, buf);
				brc = sqlite3_bind_text(ins->st, col, buf, -1,
				    SQLITE_TRANSIENT);
				break;
			case SC_ARROW_TIMESTAMP_US:
				sc_arrow_get_int64(b, i, r, &iv);
				sc_value_fmt_timestamp(iv, buf);
				brc = sqlite3_bind_text(ins->st, col, buf, -1,
				    SQLITE_TRANSIENT);
				break;
			case SC_ARROW_DECIMAL128: {
				int64_t hi;
				uint64_t lo;

				sc_arrow_get_decimal128(b, i, r, &hi, &lo);
				dec128_text(hi, lo, s->fields[i].scale, buf,
				    sizeof(buf));
				brc = sqlite3_bind_text(ins->st, col, buf, -1,
				    SQLITE_TRANSIENT);
				break;
			}
			case SC_ARROW_STRUCT:
			case SC_ARROW_LIST:
			case SC_ARROW_LARGE_LIST:
			case SC_ARROW_MAP:
				sc_buf_reset(&ins->nested);
				if (sc_arrow_format_value(b, i, r,
					SC_ARROW_FMT_LOSSLESS, &ins->nested,
					NULL, err) == -1)
					return -1;
				brc = sqlite3_bind_text64(ins->st, col,
				    (const char *)ins->nested.data,
				    ins->nested.len, SQLITE_TRANSIENT,
				    SQLITE_UTF8);
				break;
			default:
				brc = sqlite3_bind_null(ins->st, col);
				break;
			}
			/* A value over the value limit is refused, not NULL. */
			if (brc != SQLITE_OK)
				return sc_eng_bind_error(ins->st, brc, err);
		}
		rc = sc_eng_step(ins->x, ins->st);
		sqlite3_reset(ins->st);
		if (rc != SQLITE_DONE)
			return sc_eng_sqlite_error(ins->x, rc, err);
	}
	return 0;
}

/*
 * The rows of one Arrow IPC stream appended to the table of a local
 * relation p made: how a chunked cached relation adds its chunks one at
 * a time, never holding more than one in memory.
 */
int
sc_eng_local_append(struct sc_ectx *x, const struct sc_eplan *p,
    const uint8_t *data, size_t len, struct sc_error *err)
{
	struct sc_arrow_schema as;
	struct sc_buf sql;
	struct insert ins;
	size_t i;
	int rc = -1;

	sc_arrow_schema_init(&as);
	sc_buf_init(&sql, SC_BUF_UNLIMITED);
	memset(&ins, 0, sizeof(ins));
	sc_buf_init(&ins.nested, SC_BUF_UNLIMITED);
	if (sc_arrow_read_schema(data, len, &as, err) == -1) {
		arrow_error(err);
		goto out;
	}
	if (as.nfields != p->ncols) {
		sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "The local relation's schema has %zu columns but "
		    "its data has %zu.",
		    p->ncols, as.nfields);
		goto out;
	}
	sc_buf_addstr(&sql, "INSERT INTO ", NULL);
	sc_buf_addstr(&sql, p->table, NULL);
	sc_buf_addstr(&sql, " VALUES (", NULL);
	for (i = 0; i < p->ncols; i++)
		sc_buf_addstr(&sql, i > 0 ? ", ?" : "?", NULL);
	sc_buf_addch(&sql, ')', NULL);
	ins.x = x;
	if (sc_eng_prepare(x, (const char *)sql.data, sql.len, &ins.st, NULL,
		err) == -1)
		goto out;
	if (sc_arrow_read_stream(data, len, insert_batch, &ins, err) == -1) {
		arrow_error(err);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(ins.st);
	sc_buf_release(&ins.nested);
	sc_arrow_schema_release(&as);
	sc_buf_release(&sql);
	return rc;
}

int
sc_eng_local_relation(struct sc_ectx *x,
    const Spark__Connect__LocalRelation *lr, struct sc_eplan *out,
    struct sc_error *err)
{
	struct sc_arrow_schema as;
	struct sc_ecol *cols = NULL, *scols = NULL;
	size_t n = 0, ns = 0, i;
	struct sc_buf sql;
	char name[48];
	bool data, schema;
	int rc = -1;

	data = lr->_data_case == SPARK__CONNECT__LOCAL_RELATION___DATA_DATA;
	schema = lr->_schema_case ==
		SPARK__CONNECT__LOCAL_RELATION___SCHEMA_SCHEMA &&
	    lr->schema != NULL && lr->schema[0] != '\0';
	sc_arrow_schema_init(&as);
	sc_buf_init(&sql, SC_BUF_UNLIMITED);
	if (!data && !schema)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A local relation needs data or a schema.");
	if (data) {
		if (sc_arrow_read_schema(lr->data.data, lr->data.len, &as,
			err) == -1) {
			arrow_error(err);
			goto out;
		}
		if (arrow_cols(&as, &cols, &n, err) == -1)
			goto out;
	}
	if (schema) {
		if (sc_eng_schema_string(lr->schema, &scols, &ns, err) == -1)
			goto out;
		/* A count that differs from the data's: local_append. */
		sc_ecols_free(cols, n);
		cols = scols;
		n = ns;
		scols = NULL;
	}
	if (n == 0) {
		sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE", "0A000",
		    "Local relations without columns are not supported by "
		    "sc-serve.");
		goto out;
	}
	snprintf(name, sizeof(name), "_sc_local_%u", sc_eng_next_tmp(x->c));
	sc_buf_addstr(&sql, "CREATE TEMP TABLE ", NULL);
	sc_eng_quote_ident(&sql, name);
	sc_buf_addch(&sql, '(', NULL);
	for (i = 0; i < n; i++) {
		if (i > 0)
			sc_buf_addstr(&sql, ", ", NULL);
		sc_eng_quote_ident(&sql, cols[i].name);
		sc_buf_addch(&sql, ' ', NULL);
		sc_eng_type_decl(&cols[i].type, &sql);
		if (!cols[i].nullable)
			sc_buf_addstr(&sql, " NOT NULL", NULL);
	}
	sc_buf_addch(&sql, ')', NULL);
	if (sc_eng_exec(x, (const char *)sql.data, err) == -1)
		goto out;
	sc_eng_add_tmp(x, name);
	sc_buf_reset(&sql);
	sc_buf_addstr(&sql, "temp.", NULL);
	sc_eng_quote_ident(&sql, name);
	out->table = (char *)sc_buf_detach(&sql, NULL);
	sc_buf_addf(&out->sql, NULL, "SELECT * FROM %s", out->table);
	out->cols = cols;
	out->ncols = n;
	cols = NULL;
	rc = data
	    ? sc_eng_local_append(x, out, lr->data.data, lr->data.len, err)
	    : 0;
out:
	sc_ecols_free(cols, n);
	sc_ecols_free(scols, ns);
	sc_arrow_schema_release(&as);
	sc_buf_release(&sql);
	return rc;
}
