/* SPDX-License-Identifier: MIT */

/*
 * engine_nested_zip.c: sc_zip(a0[, a1, ... a7]), the elements of up to
 * eight JSON arrays side by side, one row per position of the longest
 * (_sc_k), each array's element as sc_each gives it (_sc_v<i>, _sc_t<i>)
 * or NULL past its end.  One pass over each array: zip_with and
 * arrays_zip stay linear in the arrays' length.
 */

#include "engine/engine_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmem.h"
#include "core/banned.h"

#define NZIP 8
/* Columns: _sc_k, then _sc_v<i>, _sc_t<i> pairs, then the hidden j<i>. */
#define ZCOL_V(i) (1 + 2 * (i))
#define ZCOL_T(i) (2 + 2 * (i))
#define ZCOL_J(i) (1 + 2 * NZIP + (i))

struct zarr {
	char *text;
	size_t len;
	size_t pos, end; /* the current element */
	bool done;
};

struct zcursor {
	sqlite3_vtab_cursor base;
	struct zarr a[NZIP];
	int n;
	int64_t k;
	bool eof;
};

/* Find the element at a->pos (after '[' or ','). */
static void
z_seek(struct zarr *a)
{
	const char *b = a->text, *p = b + a->pos, *end = b + a->len, *q;

	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p >= end || *p == ']' || (q = sc_eng_json_skip(p, end)) == NULL) {
		a->done = true;
		return;
	}
	a->pos = (size_t)(p - b);
	a->end = (size_t)(q - b);
}

static void
z_next_elem(struct zarr *a)
{
	size_t p = a->end;

	if (a->done)
		return;
	while (p < a->len && isspace((unsigned char)a->text[p]))
		p++;
	if (p >= a->len || a->text[p] != ',') {
		a->done = true;
		return;
	}
	a->pos = p + 1;
	z_seek(a);
}

static int
z_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **vt, char **errp)
{
	sqlite3_vtab *v;
	int rc;

	(void)aux;
	(void)argc;
	(void)argv;
	(void)errp;
	rc = sqlite3_declare_vtab(db,
	    "CREATE TABLE x(_sc_k INTEGER, _sc_v0, _sc_t0 TEXT, _sc_v1, "
	    "_sc_t1 TEXT, _sc_v2, _sc_t2 TEXT, _sc_v3, _sc_t3 TEXT, _sc_v4, "
	    "_sc_t4 TEXT, _sc_v5, _sc_t5 TEXT, _sc_v6, _sc_t6 TEXT, _sc_v7, "
	    "_sc_t7 TEXT, j0 HIDDEN, j1 HIDDEN, j2 HIDDEN, j3 HIDDEN, "
	    "j4 HIDDEN, j5 HIDDEN, j6 HIDDEN, j7 HIDDEN)");
	if (rc != SQLITE_OK)
		return rc;
	if ((v = sqlite3_malloc(sizeof(*v))) == NULL)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	*vt = v;
	return SQLITE_OK;
}

static int
z_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

/* The arrays are j0 .. j<n-1>, all given as equalities: idxNum n. */
static int
z_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
	int i, j, n = 0, at[NZIP];

	(void)v;
	for (j = 0; j < NZIP; j++)
		at[j] = -1;
	for (i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *ct =
		    &info->aConstraint[i];

		if (ct->iColumn < ZCOL_J(0) || ct->iColumn > ZCOL_J(NZIP - 1))
			continue;
		if (ct->op != SQLITE_INDEX_CONSTRAINT_EQ || !ct->usable)
			return SQLITE_CONSTRAINT;
		at[ct->iColumn - ZCOL_J(0)] = i;
	}
	while (n < NZIP && at[n] >= 0)
		n++;
	for (j = n; j < NZIP; j++)
		if (at[j] >= 0)
			return SQLITE_CONSTRAINT;
	for (j = 0; j < n; j++) {
		info->aConstraintUsage[at[j]].argvIndex = j + 1;
		info->aConstraintUsage[at[j]].omit = 1;
	}
	info->idxNum = n;
	info->estimatedCost = n > 0 ? 10 : 1e12;
	info->estimatedRows = 10;
	return SQLITE_OK;
}

static int
z_open(sqlite3_vtab *v, sqlite3_vtab_cursor **cp)
{
	struct zcursor *c = sqlite3_malloc(sizeof(*c));

	(void)v;
	if (c == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*cp = &c->base;
	return SQLITE_OK;
}

static void
z_clear(struct zcursor *c)
{
	int i;

	for (i = 0; i < NZIP; i++) {
		free(c->a[i].text);
		memset(&c->a[i], 0, sizeof(c->a[i]));
	}
	c->n = 0;
}

static int
z_close(sqlite3_vtab_cursor *cp)
{
	struct zcursor *c = (struct zcursor *)cp;

	z_clear(c);
	sqlite3_free(c);
	return SQLITE_OK;
}

static void
z_settle(struct zcursor *c)
{
	int i;

	c->eof = true;
	for (i = 0; i < c->n; i++)
		if (!c->a[i].done)
			c->eof = false;
}

static int
z_filter(sqlite3_vtab_cursor *cp, int idxnum, const char *idxstr, int argc,
    sqlite3_value **argv)
{
	struct zcursor *c = (struct zcursor *)cp;
	const char *s;
	size_t p;
	int i;

	(void)idxstr;
	z_clear(c);
	c->k = 0;
	c->n = idxnum < argc ? idxnum : argc;
	for (i = 0; i < c->n; i++) {
		struct zarr *a = &c->a[i];

		a->done = true;
		if ((s = (const char *)sqlite3_value_text(argv[i])) == NULL)
			continue;
		a->len = (size_t)sqlite3_value_bytes(argv[i]);
		a->text = sc_xmalloc(a->len + 1);
		memcpy(a->text, s, a->len);
		a->text[a->len] = '\0';
		for (p = 0; p < a->len && isspace((unsigned char)a->text[p]);
		     p++)
			;
		if (p >= a->len || a->text[p] != '[')
			continue;
		a->done = false;
		a->pos = p + 1;
		z_seek(a);
	}
	z_settle(c);
	return SQLITE_OK;
}

static int
z_next(sqlite3_vtab_cursor *cp)
{
	struct zcursor *c = (struct zcursor *)cp;
	int i;

	for (i = 0; i < c->n; i++)
		z_next_elem(&c->a[i]);
	c->k++;
	z_settle(c);
	return SQLITE_OK;
}

static int
z_eof(sqlite3_vtab_cursor *cp)
{
	return ((struct zcursor *)cp)->eof;
}

static int
z_column(sqlite3_vtab_cursor *cp, sqlite3_context *ctx, int col)
{
	struct zcursor *c = (struct zcursor *)cp;
	struct zarr *a;
	int i;

	if (col == 0) {
		sqlite3_result_int64(ctx, c->k);
		return SQLITE_OK;
	}
	if (col >= ZCOL_J(0))
		return SQLITE_OK; /* NULL: the arguments are not read back */
	i = (col - 1) / 2;
	if (i >= c->n || (a = &c->a[i])->done)
		return SQLITE_OK; /* past its end: NULL */
	sc_eng_json_elem(ctx, a->text + a->pos, a->end - a->pos,
	    col == ZCOL_T(i));
	return SQLITE_OK;
}

static int
z_rowid(sqlite3_vtab_cursor *cp, sqlite3_int64 *rowid)
{
	*rowid = ((struct zcursor *)cp)->k;
	return SQLITE_OK;
}

static const sqlite3_module zip_module = {
	.iVersion = 0,
	.xCreate = NULL, /* eponymous only */
	.xConnect = z_connect,
	.xBestIndex = z_best_index,
	.xDisconnect = z_disconnect,
	.xDestroy = z_disconnect,
	.xOpen = z_open,
	.xClose = z_close,
	.xFilter = z_filter,
	.xNext = z_next,
	.xEof = z_eof,
	.xColumn = z_column,
	.xRowid = z_rowid,
};

int
sc_eng_zip_register(sqlite3 *db)
{
	return sqlite3_create_module_v2(db, "sc_zip", &zip_module, NULL, NULL);
}
