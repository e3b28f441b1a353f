/* SPDX-License-Identifier: MIT */

/*
 * engine_fnreg.c: the function registry.  Each family of functions keeps
 * its entries (struct sc_efdef) in a table beside its implementations;
 * this file lists the families and finds an entry by name through one
 * index sorted by name, built once.  What a function is (aggregate,
 * runs over a window, higher-order, reads the session's wall clock) is
 * a flag of its entry, so the SQL parser, the window and time-zone code
 * and sc_eng_fncall() all ask here.
 */

#include "engine/plan/engine_expr_int.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmem.h"
#include "engine/sql/sqlparse.h"
#include "core/banned.h"

/* The families, in the order their entries are tried for one name. */
const struct sc_effamily *const sc_eng_families[] = {
	&sc_eng_family_core,
	&sc_eng_family_num,
	&sc_eng_family_str,
	&sc_eng_family_datetime,
	&sc_eng_family_agg,
	&sc_eng_family_more,
	&sc_eng_family_hof,
	&sc_eng_family_nested,
	&sc_eng_family_extract,
	&sc_eng_family_format,
	&sc_eng_family_hll,
	&sc_eng_family_interval,
	&sc_eng_family_collate,
};
const size_t sc_eng_nfamilies = SC_NELEM(sc_eng_families);

/* One name (an entry's or an alias) and its entry. */
struct fname {
	const char *name;
	const struct sc_efdef *def;
};

static struct fname *index_;
static size_t nindex;
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

/* By name; within a name, in family and table order (stable). */
static int
cmp_fname(const void *pa, const void *pb)
{
	const struct fname *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	return c != 0 ? c : (a->def > b->def) - (a->def < b->def);
}

static void
index_add(const char *name, const struct sc_efdef *d)
{
	index_[nindex].name = name;
	index_[nindex++].def = d;
}

static void
index_init(void)
{
	const struct sc_efdef *d;
	const char *const *al;
	size_t f, i, n = 0;

	for (f = 0; f < sc_eng_nfamilies; f++)
		for (i = 0; i < sc_eng_families[f]->n; i++)
			for (n++, al = sc_eng_families[f]->defs[i].aliases;
			     al != NULL && *al != NULL; al++)
				n++;
	index_ = sc_xcalloc(n, sizeof(*index_));
	for (f = 0; f < sc_eng_nfamilies; f++)
		for (i = 0; i < sc_eng_families[f]->n; i++) {
			d = &sc_eng_families[f]->defs[i];
			index_add(d->name, d);
			for (al = d->aliases; al != NULL && *al != NULL; al++)
				index_add(*al, d);
		}
	/*
	 * Entries of one name sit together in one family's table, so the
	 * address order within a name is that table's order.
	 */
	qsort(index_, nindex, sizeof(*index_), cmp_fname);
}

static int
cmp_key(const void *key, const void *p)
{
	return strcmp(key, ((const struct fname *)p)->name);
}

const struct sc_efdef *
sc_eng_func_find(const char *name, int n)
{
	const struct fname *hit, *lo, *end;
	char lname[64];
	size_t i;

	for (i = 0; name[i] != '\0'; i++) {
		if (i + 1 >= sizeof(lname))
			return NULL;
		lname[i] = (char)tolower((unsigned char)name[i]);
	}
	lname[i] = '\0';
	pthread_once(&index_once, index_init);
	hit = bsearch(lname, index_, nindex, sizeof(*index_), cmp_key);
	if (hit == NULL)
		return NULL;
	for (lo = hit; lo > index_ && strcmp(lo[-1].name, lname) == 0; lo--)
		;
	end = index_ + nindex;
	for (hit = lo; n >= 0 && hit < end && strcmp(hit->name, lname) == 0;
	     hit++)
		if (n >= hit->def->min &&
		    (hit->def->max < 0 || n <= hit->def->max))
			return hit->def;
	return lo->def;
}

/* The SQL parser's questions (sqlparse.h). */
bool
sc_sqlp_is_aggregate(const char *name)
{
	const struct sc_efdef *fd = sc_eng_func_find(name, -1);

	return fd != NULL && (fd->flags & SC_EF_AGG) != 0;
}

bool
sc_sqlp_aggregate_skips_nulls(const char *name)
{
	const struct sc_efdef *fd = sc_eng_func_find(name, -1);

	return fd != NULL && (fd->flags & SC_EF_AGG) != 0 &&
	    (fd->flags & SC_EF_SKIPS_NULLS) != 0;
}
