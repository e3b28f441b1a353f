/* SPDX-License-Identifier: MIT */

/*
 * engine_range.c: range(start, end, step).  Natively, a tight loop that
 * appends int64 values straight into Arrow batches (nothing is ever
 * materialised); in SQL, the eponymous virtual table range(...), so
 * "SELECT id FROM range(10)" works as in Spark SQL.
 */

#include "engine/engine_int.h"

#include <string.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

#define RANGE_STEP_ZERO_MSG                                             \
	"The value of parameter `step` in `range` is invalid: it must " \
	"not be 0."

int
sc_eng_range_count(int64_t start, int64_t end, int64_t step, uint64_t *count,
    struct sc_error *err)
{
	__int128 diff = (__int128)end - start, n;

	if (step == 0)
		return sc_srv_error(err, "INVALID_PARAMETER_VALUE.RANGE",
		    "22023", RANGE_STEP_ZERO_MSG);
	if ((step > 0 && diff <= 0) || (step < 0 && diff >= 0)) {
		*count = 0;
		return 0;
	}
	if (step > 0)
		n = (diff + step - 1) / step;
	else
		n = (diff + step + 1) / step;
	*count = (uint64_t)n;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Native range                                                        */
/* ------------------------------------------------------------------ */

/*
 * Rows that can surely be added before a batch limit is reached: an
 * int64 row grows the writer's estimate by at most 16 bytes (8 of values,
 * and the validity bitmap's padding to 8), so limits stay exact while
 * the rows go in as whole sequences.
 */
static uint64_t
rows_until_check(const struct sc_ebatch *b)
{
	int64_t rows = (int64_t)sc_arrow_writer_rows(b->w);
	int64_t bytes = (int64_t)sc_arrow_writer_bytes(b->w);
	int64_t k = (b->max_bytes - bytes - 1) / 16;

	if (k > b->max_rows - rows)
		k = b->max_rows - rows;
	return k < 1 ? 1 : (uint64_t)k;
}

/*
 * One int64 column, not nullable, filled by sc_arrow_append_int64_seq()
 * in runs of at most 64 Ki rows: no allocation per row, the cancel flag
 * looked at between runs.
 */
int
sc_eng_range_run(struct sc_ectx *x, const struct sc_eplan *p,
    const struct sc_engine_limits *limits, const struct sc_engine_sink *sink,
    struct sc_error *err)
{
	struct sc_ecol col;
	struct sc_ebatch b;
	uint64_t left = p->count, cur = (uint64_t)p->start, k;
	int rc = -1;

	memset(&col, 0, sizeof(col));
	col.name = p->ncols == 1 ? p->cols[0].name : (char *)"id";
	col.type.t = SC_ARROW_INT64;
	col.nullable = 0;
	if (sc_eng_batch_begin(&b, x, &col, 1, limits, sink, err) == -1)
		return -1;
	while (left > 0) {
		if (sc_eng_is_canceled(x->run)) {
			sc_eng_canceled(err);
			goto out;
		}
		k = rows_until_check(&b);
		if (k > left)
			k = left;
		if (k > 65536)
			k = 65536;
		if (sc_arrow_append_int64_seq(b.w, (int64_t)cur, p->step,
			(size_t)k, err) == -1)
			goto out;
		cur += k * (uint64_t)p->step;
		left -= k;
		if ((int64_t)sc_arrow_writer_rows(b.w) >= b.max_rows ||
		    (int64_t)sc_arrow_writer_bytes(b.w) >= b.max_bytes)
			if (sc_eng_batch_flush(&b, err) == -1)
				goto out;
	}
	rc = sc_eng_batch_end(&b, err);
out:
	sc_eng_batch_release(&b);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The range() table-valued function                                   */
/* ------------------------------------------------------------------ */

enum { RCOL_ID = 0, RCOL_START, RCOL_STOP, RCOL_STEP };

struct rcursor {
	sqlite3_vtab_cursor base;
	int64_t start, stop, step;
	int64_t arg[3]; /* the arguments as given, the hidden columns */
	int nargs;
	uint64_t cur;
	uint64_t left;
	int64_t rowid;
};

static int
r_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **vt, char **errp)
{
	sqlite3_vtab *v;
	int rc;

	(void)aux;
	(void)argc;
	(void)argv;
	(void)errp;
	rc = sqlite3_declare_vtab(db,
	    "CREATE TABLE x(id BIGINT NOT NULL, "
	    "start HIDDEN, stop HIDDEN, step HIDDEN)");
	if (rc != SQLITE_OK)
		return rc;
	v = sqlite3_malloc(sizeof(*v));
	if (v == NULL)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	*vt = v;
	return SQLITE_OK;
}

static int
r_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

/*
 * Arguments bind to the hidden columns start, stop, step in order; the
 * bit mask of those given goes to xFilter as idxNum.
 */
static int
r_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
	int i, col, mask = 0, n = 0, idx[4] = { -1, -1, -1, -1 };

	(void)v;
	for (i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *ct =
		    &info->aConstraint[i];

		col = ct->iColumn;
		if (col < RCOL_START || col > RCOL_STEP ||
		    ct->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		if (!ct->usable)
			return SQLITE_CONSTRAINT;
		if (idx[col] < 0) {
			idx[col] = i;
			mask |= 1 << col;
		}
	}
	for (col = RCOL_START; col <= RCOL_STEP; col++) {
		if (idx[col] < 0)
			continue;
		info->aConstraintUsage[idx[col]].argvIndex = ++n;
		info->aConstraintUsage[idx[col]].omit = 1;
	}
	info->idxNum = mask;
	info->estimatedCost = 1000.0;
	info->estimatedRows = 1000;
	return SQLITE_OK;
}

static int
r_open(sqlite3_vtab *v, sqlite3_vtab_cursor **cp)
{
	struct rcursor *c = sqlite3_malloc(sizeof(*c));

	(void)v;
	if (c == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*cp = &c->base;
	return SQLITE_OK;
}

static int
r_close(sqlite3_vtab_cursor *cp)
{
	sqlite3_free(cp);
	return SQLITE_OK;
}

static int
r_fail(sqlite3_vtab_cursor *cp, const char *msg)
{
	sqlite3_free(cp->pVtab->zErrMsg);
	cp->pVtab->zErrMsg = sqlite3_mprintf("%s", msg);
	return SQLITE_ERROR;
}

static int
r_filter(sqlite3_vtab_cursor *cp, int idxnum, const char *idxstr, int argc,
    sqlite3_value **argv)
{
	struct rcursor *c = (struct rcursor *)cp;
	int64_t a[3];
	int i;

	(void)idxnum;
	(void)idxstr;
	if (argc < 1 || argc > 3)
		return r_fail(cp,
		    "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The "
		    "`range` requires [1, 2, 3] parameters but the actual "
		    "number is 0. SQLSTATE: 42605");
	for (i = 0; i < argc; i++) {
		if (sqlite3_value_numeric_type(argv[i]) != SQLITE_INTEGER)
			return r_fail(cp,
			    "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_"
			    "TYPE] The arguments of `range` must be integers. "
			    "SQLSTATE: 42K09");
		a[i] = sqlite3_value_int64(argv[i]);
		c->arg[i] = a[i];
	}
	c->nargs = argc;
	c->start = argc == 1 ? 0 : a[0];
	c->stop = argc == 1 ? a[0] : a[1];
	c->step = argc == 3 ? a[2] : 1;
	if (c->step == 0)
		return r_fail(cp,
		    "[INVALID_PARAMETER_VALUE.RANGE] " RANGE_STEP_ZERO_MSG
		    " SQLSTATE: 22023");
	if (sc_eng_range_count(c->start, c->stop, c->step, &c->left, NULL) ==
	    -1)
		return SQLITE_ERROR;
	c->cur = (uint64_t)c->start;
	c->rowid = 1;
	return SQLITE_OK;
}

static int
r_next(sqlite3_vtab_cursor *cp)
{
	struct rcursor *c = (struct rcursor *)cp;

	c->left--;
	c->cur += (uint64_t)c->step;
	c->rowid++;
	return SQLITE_OK;
}

static int
r_eof(sqlite3_vtab_cursor *cp)
{
	return ((struct rcursor *)cp)->left == 0;
}

static int
r_column(sqlite3_vtab_cursor *cp, sqlite3_context *ctx, int col)
{
	struct rcursor *c = (struct rcursor *)cp;

	switch (col) {
	case RCOL_ID:
		sqlite3_result_int64(ctx, (int64_t)c->cur);
		break;
	default:
		/*
		 * A hidden column is the argument it was given: SQLite may
		 * check "start = <first argument>" itself rather than leave
		 * it to xFilter (it can omit only the first 16 constraints),
		 * and range(10) has start 0 but its first argument is 10.
		 */
		if (col - RCOL_START < c->nargs)
			sqlite3_result_int64(ctx, c->arg[col - RCOL_START]);
		else
			sqlite3_result_null(ctx);
		break;
	}
	return SQLITE_OK;
}

static int
r_rowid(sqlite3_vtab_cursor *cp, sqlite3_int64 *rowid)
{
	*rowid = ((struct rcursor *)cp)->rowid;
	return SQLITE_OK;
}

static const sqlite3_module range_module = {
	.iVersion = 0,
	.xCreate = NULL, /* eponymous only */
	.xConnect = r_connect,
	.xBestIndex = r_best_index,
	.xDisconnect = r_disconnect,
	.xDestroy = r_disconnect,
	.xOpen = r_open,
	.xClose = r_close,
	.xFilter = r_filter,
	.xNext = r_next,
	.xEof = r_eof,
	.xColumn = r_column,
	.xRowid = r_rowid,
};

int
sc_eng_range_module(sqlite3 *db)
{
	return sqlite3_create_module_v2(db, "range", &range_module, NULL, NULL);
}
