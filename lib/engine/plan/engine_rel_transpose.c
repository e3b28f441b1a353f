/* SPDX-License-Identifier: MIT */

/*
 * engine_rel_transpose.c: DataFrame.transpose(): the values of the
 * index column become the columns and every other column a row.  As
 * Spark's analyzer does, it reads its input while the plan is
 * translated (index values sorted, nulls left out, at most
 * spark.sql.transposeMaxValues of them) and keeps the result in a TEMP
 * table of the call.
 */

#include "engine/engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* Index values a transpose takes without spark.sql.transposeMaxValues. */
#define MAX_TRANSPOSE_VALUES 500

static bool
is_nested(int t)
{
	return t == SC_ARROW_STRUCT || t == SC_ARROW_LIST || t == SC_ARROW_MAP;
}

static bool
is_string(int t)
{
	return t == SC_ARROW_UTF8 || t == SC_ARROW_LARGE_UTF8;
}

static bool
is_datetime(int t)
{
	return t == SC_ARROW_DATE32 || t == SC_ARROW_TIMESTAMP_US;
}

/* "TYPE" as Spark's toSQLType writes it into a message. */
static void
sql_type(const struct sc_etype *t, struct sc_buf *b)
{
	sc_buf_addch(b, '"', NULL);
	sc_eng_type_text(t, SC_VALUE_SQL, b);
	sc_buf_addch(b, '"', NULL);
}

/* A type as Catalyst's toString writes it (IntegerType, ArrayType(...)). */
static void
catalyst_name(const struct sc_etype *t, struct sc_buf *b)
{
	const struct sc_enest *n = t->nest;
	size_t i;

	switch (t->t) {
	case SC_ARROW_NULL:
		sc_buf_addstr(b, "NullType", NULL);
		return;
	case SC_ARROW_BOOL:
		sc_buf_addstr(b, "BooleanType", NULL);
		return;
	case SC_ARROW_INT8:
		sc_buf_addstr(b, "ByteType", NULL);
		return;
	case SC_ARROW_INT16:
		sc_buf_addstr(b, "ShortType", NULL);
		return;
	case SC_ARROW_INT32:
		sc_buf_addstr(b, "IntegerType", NULL);
		return;
	case SC_ARROW_INT64:
		sc_buf_addstr(b, "LongType", NULL);
		return;
	case SC_ARROW_FLOAT:
		sc_buf_addstr(b, "FloatType", NULL);
		return;
	case SC_ARROW_DOUBLE:
		sc_buf_addstr(b, "DoubleType", NULL);
		return;
	case SC_ARROW_DECIMAL128:
		sc_buf_addf(b, NULL, "DecimalType(%d,%d)", t->prec, t->scale);
		return;
	case SC_ARROW_UTF8:
	case SC_ARROW_LARGE_UTF8:
		sc_buf_addstr(b, "StringType", NULL);
		return;
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_BINARY:
		sc_buf_addstr(b, "BinaryType", NULL);
		return;
	case SC_ARROW_DATE32:
		sc_buf_addstr(b, "DateType", NULL);
		return;
	case SC_ARROW_TIMESTAMP_US:
		sc_buf_addstr(b, t->ntz ? "TimestampNTZType" : "TimestampType",
		    NULL);
		return;
	case SC_ARROW_LIST:
		sc_buf_addstr(b, "ArrayType(", NULL);
		catalyst_name(&n->types[0], b);
		sc_buf_addstr(b, n->nullable[0] ? ",true)" : ",false)", NULL);
		return;
	case SC_ARROW_MAP:
		sc_buf_addstr(b, "MapType(", NULL);
		catalyst_name(&n->types[0], b);
		sc_buf_addch(b, ',', NULL);
		catalyst_name(&n->types[1], b);
		sc_buf_addstr(b, n->nullable[1] ? ",true)" : ",false)", NULL);
		return;
	case SC_ARROW_STRUCT:
		sc_buf_addstr(b, "StructType(", NULL);
		for (i = 0; i < n->n; i++) {
			sc_buf_addstr(b,
			    i > 0 ? ",StructField(" : "StructField(", NULL);
			sc_buf_addstr(b, n->names[i], NULL);
			sc_buf_addch(b, ',', NULL);
			catalyst_name(&n->types[i], b);
			sc_buf_addstr(b, n->nullable[i] ? ",true)" : ",false)",
			    NULL);
		}
		sc_buf_addch(b, ')', NULL);
		return;
	default:
		sc_buf_addstr(b, "UnknownType", NULL);
		return;
	}
}

/* Rank of a non-decimal numeric type in Spark's numeric precedence. */
static int
num_rank(int t)
{
	switch (t) {
	case SC_ARROW_INT8:
		return 0;
	case SC_ARROW_INT16:
		return 1;
	case SC_ARROW_INT32:
		return 2;
	case SC_ARROW_INT64:
		return 3;
	case SC_ARROW_FLOAT:
		return 4;
	case SC_ARROW_DOUBLE:
		return 5;
	default:
		return -1;
	}
}

/* Digits of an integral type as a decimal (DecimalType.forType). */
static int
int_digits(int t)
{
	static const int d[] = { 3, 5, 10, 20 };
	int r = num_rank(t);

	return r >= 0 && r <= 3 ? d[r] : -1;
}

/* Spark's TypeCoercion.findTightestCommonType: true with *out set. */
static bool
tightest(const struct sc_etype *a, const struct sc_etype *b,
    struct sc_etype *out)
{
	const struct sc_etype *d, *o;
	int ra = num_rank(a->t), rb = num_rank(b->t);

	if (is_nested(a->t) || is_nested(b->t)) {
		if (a->t == b->t && a->nest == b->nest) {
			*out = *a;
			return true;
		}
		return false;
	}
	if (sc_eng_same_flat(a, b) || b->t == SC_ARROW_NULL) {
		*out = *a;
		return true;
	}
	if (a->t == SC_ARROW_NULL) {
		*out = *b;
		return true;
	}
	if (ra >= 0 && rb >= 0) {
		*out = ra >= rb ? *a : *b;
		return true;
	}
	if (a->t == SC_ARROW_DECIMAL128 || b->t == SC_ARROW_DECIMAL128) {
		d = a->t == SC_ARROW_DECIMAL128 ? a : b;
		o = d == a ? b : a;
		if (int_digits(o->t) > 0 &&
		    d->prec - d->scale >= int_digits(o->t)) {
			*out = *d;
			return true;
		}
		return false;
	}
	if (is_datetime(a->t) && is_datetime(b->t)) {
		/* date < timestamp_ntz < timestamp */
		if (a->t == SC_ARROW_DATE32)
			*out = *b;
		else if (b->t == SC_ARROW_DATE32)
			*out = *a;
		else
			*out = a->ntz ? *b : *a;
		return true;
	}
	return false;
}

struct tvals {
	char **names; /* each index value, as a string */
	sqlite3_value ***v; /* v[row][col] */
	size_t nrows, ncols;
};

static void
tvals_release(struct tvals *t)
{
	size_t i, k;

	for (i = 0; i < t->nrows; i++) {
		free(t->names[i]);
		for (k = 0; k < t->ncols; k++)
			sqlite3_value_free(t->v[i][k]);
		free(t->v[i]);
	}
	free(t->names);
	free(t->v);
}

/* The index column of t over in: 0 (*idx set) or -1. */
static int
index_column(struct sc_ectx *x, const Spark__Connect__Transpose *t,
    const struct sc_eplan *in, size_t *idx, struct sc_error *err)
{
	const Spark__Connect__Expression *e;
	struct sc_buf b;
	const char *name;
	size_t k, nm = 0;
	int rc;

	if (t->n_index_columns == 0) {
		*idx = 0;
		return 0;
	}
	if (t->n_index_columns > 1)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A transpose takes one index column, not %zu.",
		    t->n_index_columns);
	e = t->index_columns[0];
	if (e == NULL || e->expr_type_case != SC_EXPR_(UNRESOLVED_ATTRIBUTE) ||
	    e->unresolved_attribute->unparsed_identifier == NULL)
		return sc_srv_error(err, "TRANSPOSE_INVALID_INDEX_COLUMN",
		    "42804",
		    "Invalid index column for TRANSPOSE because: Index column "
		    "must be an atomic attribute");
	name = e->unresolved_attribute->unparsed_identifier;
	for (k = 0; k < in->ncols; k++)
		if (sc_eng_name_eq(x, in->cols[k].name, name) && nm++ == 0)
			*idx = k;
	if (nm == 0)
		return sc_eng_unresolved_in(name, in, err);
	if (nm > 1) {
		sc_buf_init(&b, SC_BUF_UNLIMITED);
		sc_eng_quote_ident(&b, name);
		rc = sc_srv_error(err, "AMBIGUOUS_REFERENCE", "42704",
		    "Reference %s is ambiguous, could be: %zu columns.",
		    (const char *)b.data, nm);
		sc_buf_release(&b);
		return rc;
	}
	return 0;
}

/* Read the index values (sorted, at most the limit) and the values. */
static int
transpose_read(struct sc_ectx *x, struct sc_eplan *in, size_t idx,
    const struct sc_etype *common, struct tvals *tv, struct sc_error *err)
{
	struct sc_eplan w;
	struct sc_etype str = { .t = SC_ARROW_UTF8 };
	struct sc_buf q, ref;
	sqlite3_stmt *st = NULL;
	size_t i, k;
	int rc = -1, step;
	int max = x->run != NULL ? x->run->mode.transpose_max
				 : MAX_TRANSPOSE_VALUES;

	sc_eplan_init(&w);
	sc_buf_init(&q, SC_BUF_UNLIMITED);
	sc_buf_init(&ref, SC_BUF_UNLIMITED);
	sc_eng_col_ref(&ref, &in->cols[idx]);
	sc_buf_addstr(&w.sql, "SELECT ", NULL);
	if (is_string(in->cols[idx].type.t))
		sc_buf_add(&w.sql, ref.data, ref.len, NULL);
	else
		sc_eng_ansi_cast((const char *)ref.data, &in->cols[idx].type,
		    &str, &w.sql);
	for (i = 0; i < in->ncols; i++) {
		struct sc_buf c;

		if (i == idx)
			continue;
		sc_buf_addstr(&w.sql, ", ", NULL);
		sc_buf_init(&c, SC_BUF_UNLIMITED);
		sc_eng_col_ref(&c, &in->cols[i]);
		if (in->cols[i].type.t == SC_ARROW_NULL)
			sc_buf_addstr(&w.sql, "NULL", NULL);
		else if (is_nested(common->t) ||
		    sc_eng_same_flat(&in->cols[i].type, common))
			sc_buf_add(&w.sql, c.data, c.len, NULL);
		else
			sc_eng_ansi_cast((const char *)c.data,
			    &in->cols[i].type, common, &w.sql);
		sc_buf_release(&c);
	}
	sc_buf_addstr(&w.sql, " FROM ", NULL);
	sc_eng_from_item(x, in, &w, &w.sql);
	sc_buf_addf(&w.sql, NULL, " WHERE %s IS NOT NULL ORDER BY %s ASC",
	    (const char *)ref.data, (const char *)ref.data);
	sc_buf_addf(&w.sql, NULL, " LIMIT %lld", (long long)max + 1);
	sc_eng_plan_finish(&w);
	if (sc_eng_prepare(x, (const char *)w.sql.data, w.sql.len, &st, NULL,
		err) == -1)
		goto out;
	tv->ncols = in->ncols - 1;
	while ((step = sc_eng_step(x, st)) == SQLITE_ROW) {
		if (tv->nrows == (size_t)max) {
			sc_srv_error(err, "TRANSPOSE_EXCEED_ROW_LIMIT", "54006",
			    "Number of rows exceeds the allowed limit of %d "
			    "for TRANSPOSE. If this was intended, set "
			    "spark.sql.transposeMaxValues to at least the "
			    "current row count.",
			    max);
			goto out;
		}
		tv->names = sc_xreallocarray(tv->names, tv->nrows + 1,
		    sizeof(*tv->names));
		tv->v = sc_xreallocarray(tv->v, tv->nrows + 1, sizeof(*tv->v));
		tv->names[tv->nrows] =
		    sc_xstrndup((const char *)sqlite3_column_text(st, 0),
			(size_t)sqlite3_column_bytes(st, 0));
		tv->v[tv->nrows] = sc_xcalloc(tv->ncols + 1, sizeof(**tv->v));
		tv->nrows++;
		for (k = 0; k < tv->ncols; k++) {
			tv->v[tv->nrows - 1][k] = sqlite3_value_dup(
			    sqlite3_column_value(st, (int)k + 1));
			if (tv->v[tv->nrows - 1][k] == NULL) {
				sc_srv_error(err, "UNABLE_TO_ACQUIRE_MEMORY",
				    "53200",
				    "Out of memory while transposing.");
				goto out;
			}
		}
	}
	if (step != SQLITE_DONE) {
		sc_eng_sqlite_error(x, step, err);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	sc_buf_release(&q);
	sc_buf_release(&ref);
	sc_eplan_release(&w);
	return rc;
}

/* The transposed rows into a TEMP table; out reads it. */
static int
transpose_table(struct sc_ectx *x, const struct sc_eplan *in, size_t idx,
    const struct sc_etype *common, const struct tvals *tv, struct sc_eplan *out,
    struct sc_error *err)
{
	struct sc_etype str = { .t = SC_ARROW_UTF8 };
	struct sc_buf sql;
	sqlite3_stmt *ins = NULL;
	char name[48];
	size_t i, j, row;
	int rc = -1, step, b;

	snprintf(name, sizeof(name), "_sc_transpose_%u", sc_eng_next_tmp(x->c));
	sc_buf_init(&sql, SC_BUF_UNLIMITED);
	sc_buf_addstr(&sql, "CREATE TEMP TABLE ", NULL);
	sc_eng_quote_ident(&sql, name);
	sc_buf_addstr(&sql, "(`key` TEXT NOT NULL", NULL);
	for (j = 0; j < tv->nrows; j++) {
		sc_buf_addf(&sql, NULL, ", `_c%zu` ", j);
		sc_eng_type_decl(common, &sql);
	}
	sc_buf_addch(&sql, ')', NULL);
	if (sc_eng_exec(x, (const char *)sql.data, err) == -1)
		goto out;
	sc_eng_add_tmp(x, name);
	sc_buf_reset(&sql);
	sc_buf_addstr(&sql, "INSERT INTO temp.", NULL);
	sc_eng_quote_ident(&sql, name);
	sc_buf_addstr(&sql, " VALUES (?", NULL);
	for (j = 0; j < tv->nrows; j++)
		sc_buf_addstr(&sql, ", ?", NULL);
	sc_buf_addch(&sql, ')', NULL);
	if (sc_eng_prepare(x, (const char *)sql.data, sql.len, &ins, NULL,
		err) == -1)
		goto out;
	/* One row per column that is not the index, in the input's order. */
	for (i = 0, row = 0; i < in->ncols; i++) {
		if (i == idx)
			continue;
		b = sqlite3_bind_text(ins, 1, in->cols[i].name, -1,
		    SQLITE_TRANSIENT);
		for (j = 0; b == SQLITE_OK && j < tv->nrows; j++)
			b = sqlite3_bind_value(ins, (int)j + 2, tv->v[j][row]);
		if (b != SQLITE_OK) {
			sc_eng_bind_error(ins, b, err);
			goto out;
		}
		step = sc_eng_step(x, ins);
		sqlite3_reset(ins);
		if (step != SQLITE_DONE) {
			sc_eng_sqlite_error(x, step, err);
			goto out;
		}
		row++;
	}
	sc_eng_cols_add(&out->cols, &out->ncols, "key", &str, 0);
	sc_buf_addstr(&out->sql, "SELECT `key`", NULL);
	for (j = 0; j < tv->nrows; j++) {
		sc_buf_addf(&out->sql, NULL, ", `_c%zu` AS ", j);
		sc_eng_quote_ident(&out->sql, tv->names[j]);
		sc_eng_cols_add(&out->cols, &out->ncols, tv->names[j], common,
		    1);
	}
	sc_buf_addstr(&out->sql, " FROM temp.", NULL);
	sc_eng_quote_ident(&out->sql, name);
	rc = 0;
out:
	sqlite3_finalize(ins);
	sc_buf_release(&sql);
	return rc;
}

int
sc_eng_transpose(struct sc_ectx *x, const Spark__Connect__Transpose *t,
    struct sc_eplan *out, struct sc_error *err)
{
	struct sc_eplan in;
	struct sc_etype common = { .t = SC_ARROW_UTF8 }, next;
	struct tvals tv = { .nrows = 0 };
	struct sc_buf b;
	size_t idx = 0, i;
	bool first = true;
	int rc = -1;

	sc_eplan_init(&in);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	if (sc_eng_rel_input(x, t->input, "transpose", &in, err) == -1 ||
	    index_column(x, t, &in, &idx, err) == -1)
		goto out;
	if (in.cols[idx].type.t == SC_ETYPE_UNKNOWN ||
	    in.cols[idx].type.t == SC_ARROW_NULL ||
	    is_nested(in.cols[idx].type.t)) {
		catalyst_name(&in.cols[idx].type, &b);
		sc_srv_error(err, "TRANSPOSE_INVALID_INDEX_COLUMN", "42804",
		    "Invalid index column for TRANSPOSE because: Index column "
		    "must be of atomic type, but found: %s",
		    (const char *)b.data);
		goto out;
	}
	for (i = 0; i < in.ncols; i++) {
		if (i == idx)
			continue;
		if (in.cols[i].type.t == SC_ETYPE_UNKNOWN) {
			sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE",
			    "0A000",
			    "The type of column `%s` is not known to sc-serve "
			    "before it runs, which a transpose needs.",
			    in.cols[i].name);
			goto out;
		}
		if (first) {
			common = in.cols[i].type;
			first = false;
			continue;
		}
		if (!tightest(&common, &in.cols[i].type, &next)) {
			sql_type(&common, &b);
			sc_buf_addstr(&b, " and ", NULL);
			sql_type(&in.cols[i].type, &b);
			sc_srv_error(err, "TRANSPOSE_NO_LEAST_COMMON_TYPE",
			    "42K09",
			    "Transpose requires non-index columns to share a "
			    "least common type, but %s do not.",
			    (const char *)b.data);
			goto out;
		}
		common = next;
	}
	if (transpose_read(x, &in, idx, &common, &tv, err) == -1)
		goto out;
	rc = transpose_table(x, &in, idx, &common, &tv, out, err);
out:
	tvals_release(&tv);
	sc_buf_release(&b);
	sc_eplan_release(&in);
	return rc;
}
