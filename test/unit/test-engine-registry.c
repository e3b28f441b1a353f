/* SPDX-License-Identifier: MIT */

/*
 * test-engine-registry.c: walks the function registry (every family's
 * table, sc_eng_families[]).  Each entry's name, argument counts and
 * flags must agree with each other and with the other entries of its
 * name; sc_eng_func_find() must find every entry, by any case, for each
 * argument count it takes; every SQLite function a template calls
 * (sc_...()) must be one the engine registers.  A half-added function
 * fails here rather than in a conformance run.
 */

#include "engine/plan/engine_expr_int.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmem.h"
#include "engine/sql/sqlparse.h"
#include "tap.h"
#include "core/banned.h"

/* Kinds whose sql field the translation reads. */
static bool
needs_sql(enum sc_efkind k)
{
	switch (k) {
	case F_CMP:
	case F_ARITH:
	case F_DIV:
	case F_LOGIC:
	case F_SIMPLE:
	case F_EXTREME:
	case F_FLOORCEIL:
	case F_ROUND:
	case F_AGG:
	case F_NOW:
	case F_DATEPART:
	case F_TOTYPE:
	case F_MORE:
	case F_TMPL:
		return true;
	default:
		return false;
	}
}

/* Every name of the registry (an entry's or an alias) and its entry. */
struct named {
	const char *name;
	const struct sc_efdef *def;
	size_t family;
};
static struct named names[1024];
static size_t nnames;

static void
collect_names(void)
{
	const char *const *al;
	size_t f, i;

	for (f = 0; f < sc_eng_nfamilies; f++)
		for (i = 0; i < sc_eng_families[f]->n; i++) {
			const struct sc_efdef *d = &sc_eng_families[f]->defs[i];

			if (nnames < SC_NELEM(names))
				names[nnames++] =
				    (struct named){ d->name, d, f };
			for (al = d->aliases; al != NULL && *al != NULL; al++)
				if (nnames < SC_NELEM(names))
					names[nnames++] =
					    (struct named){ *al, d, f };
		}
}

/* The largest argument count an entry takes (any: INT_MAX). */
static int
top(const struct sc_efdef *d)
{
	return d->max >= 0 ? d->max : INT_MAX;
}

static void
test_entries(void)
{
	size_t f, i, j, bad = 0, n = 0;

	for (f = 0; f < sc_eng_nfamilies; f++) {
		const struct sc_effamily *fam = sc_eng_families[f];

		ok(fam->n > 0, "family %s has entries", fam->name);
		for (i = 0; i < fam->n; i++) {
			const struct sc_efdef *d = &fam->defs[i];
			const char *c;
			bool lower = d->name[0] != '\0';

			n++;
			for (c = d->name; *c != '\0'; c++)
				if (tolower((unsigned char)*c) != *c)
					lower = false;
			if (!lower || strlen(d->name) >= 64 || d->min < 0 ||
			    (d->max >= 0 && d->max < d->min) ||
			    (d->k == F_CALL) != (d->call != NULL) ||
			    (needs_sql(d->k) && d->sql == NULL) ||
			    ((d->flags &
				 (SC_EF_SKIPS_NULLS | SC_EF_WINDOW_OK)) &&
				!(d->flags & SC_EF_AGG)) ||
			    (d->ts_args != 0 && !(d->flags & SC_EF_WALL)) ||
			    (d->max >= 0 && d->max < 32 &&
				d->ts_args >> d->max != 0) ||
			    ((d->k == F_AGG || d->k == F_COUNT) &&
				!(d->flags & SC_EF_AGG)) ||
			    ((d->flags & SC_EF_HOF) && d->k != F_CALL)) {
				ok(0, "entry %s (%s) is consistent", d->name,
				    fam->name);
				bad++;
			}
		}
	}
	ok(bad == 0, "%zu entries: name, arity and flags consistent", n);
	collect_names();
	ok(nnames < SC_NELEM(names) && nnames > 300,
	    "the registry has %zu entries, %zu names with the aliases", n,
	    nnames);

	/*
	 * Entries of one name (or alias): one family, the same flags,
	 * argument counts that do not overlap (else the later could never
	 * be chosen).
	 */
	bad = 0;
	for (i = 0; i < nnames; i++)
		for (j = i + 1; j < nnames; j++) {
			const struct sc_efdef *a = names[i].def;
			const struct sc_efdef *b = names[j].def;

			if (strcmp(names[i].name, names[j].name) != 0)
				continue;
			if (names[i].family != names[j].family || a == b ||
			    a->flags != b->flags || a->ts_args != b->ts_args ||
			    (top(a) >= b->min && top(b) >= a->min)) {
				ok(0, "%s: its entries agree", names[i].name);
				bad++;
			}
		}
	ok(bad == 0, "no name is given twice for one argument count");
}

/* sc_eng_func_find(): every entry, by any case, at each count it takes. */
static void
test_find(void)
{
	size_t i, bad = 0;
	char up[64];
	int k;

	for (i = 0; i < nnames; i++) {
		const struct sc_efdef *d = names[i].def;
		const char *name = names[i].name;
		size_t c;

		for (c = 0; name[c] != '\0'; c++)
			up[c] = (char)toupper((unsigned char)name[c]);
		up[c] = '\0';
		for (k = d->min; k <= (d->max >= 0 ? d->max : d->min + 3); k++)
			if (sc_eng_func_find(name, k) != d ||
			    sc_eng_func_find(up, k) != d)
				bad++;
		if (sc_eng_func_find(name, -1) == NULL)
			bad++;
	}
	ok(bad == 0,
	    "every name and alias is found for each count its entry takes (%zu not)",
	    bad);
	ok(sc_eng_func_find("no_such_function", 1) == NULL,
	    "an unknown name is not found");
	ok(sc_eng_func_find("", 0) == NULL, "the empty name is not found");
	memset(up, 'a', sizeof(up) - 1);
	up[sizeof(up) - 1] = '\0';
	ok(sc_eng_func_find(up, 0) == NULL, "a 63-letter name is not found");
	/* An overload by count; a count no entry takes gives the first. */
	ok(sc_eng_func_find("first", 1) != sc_eng_func_find("first", 2),
	    "first(x) and first(x, ignore_nulls) are two entries");
	ok(sc_eng_func_find("first", 7) == sc_eng_func_find("first", 1),
	    "first with 7 arguments resolves to its first entry");
	ok(sc_eng_func_find("ucase", 1) == sc_eng_func_find("upper", 1) &&
		sc_eng_func_find("ucase", 1) != NULL,
	    "an alias finds its entry");
}

/* What the SQL parser, windows and time zones ask of the flags. */
static void
test_flags(void)
{
	const struct sc_efdef *d;

	ok(sc_sqlp_is_aggregate("SUM"), "sum is an aggregate (any case)");
	ok(sc_sqlp_is_aggregate("approx_count_distinct"),
	    "approx_count_distinct is an aggregate");
	ok(!sc_sqlp_is_aggregate("upper"), "upper is not an aggregate");
	ok(!sc_sqlp_is_aggregate("no_such_function"),
	    "an unknown name is not an aggregate");
	ok(sc_sqlp_aggregate_skips_nulls("count"), "count skips nulls");
	ok(!sc_sqlp_aggregate_skips_nulls("first"), "first keeps nulls");
	ok(!sc_sqlp_aggregate_skips_nulls("upper"),
	    "upper is no aggregate skipping nulls");
	d = sc_eng_func_find("avg", 1);
	ok(d != NULL && (d->flags & SC_EF_WINDOW_OK), "avg runs over a window");
	d = sc_eng_func_find("percentile", 2);
	ok(d != NULL && !(d->flags & SC_EF_WINDOW_OK),
	    "percentile does not run over a window");
	d = sc_eng_func_find("date_trunc", 2);
	ok(d != NULL && (d->flags & SC_EF_WALL) && d->ts_args == 2,
	    "date_trunc reads the wall clock of its second argument");
	d = sc_eng_func_find("transform", 2);
	ok(d != NULL && (d->flags & SC_EF_HOF) && d->k == F_CALL,
	    "transform is higher-order, translated by its own call");
	d = sc_eng_func_find("rand", 0);
	ok(d != NULL && (d->flags & SC_EF_NONDET), "rand is nondeterministic");
}

/* Every sc_...( a template calls is a function the engine registers. */
static void
test_templates(sqlite3 *db)
{
	size_t f, i, bad = 0, seen = 0;

	for (f = 0; f < sc_eng_nfamilies; f++)
		for (i = 0; i < sc_eng_families[f]->n; i++) {
			const struct sc_efdef *d = &sc_eng_families[f]->defs[i];
			const char *p;

			if (d->sql == NULL)
				continue;
			for (p = strstr(d->sql, "sc_"); p != NULL;
			     p = strstr(p + 1, "sc_")) {
				char fn[64];
				size_t len = strspn(p,
				    "abcdefghijklmnopqrstuvwxyz0123456789_");
				sqlite3_stmt *st;
				int found = 0;

				if (p[len] != '(' || len >= sizeof(fn) ||
				    (p > d->sql &&
					(isalnum((unsigned char)p[-1]) ||
					    p[-1] == '_')))
					continue;
				memcpy(fn, p, len);
				fn[len] = '\0';
				seen++;
				if (sqlite3_prepare_v2(db,
					"SELECT 1 FROM pragma_function_list "
					"WHERE name = ?",
					-1, &st, NULL) != SQLITE_OK)
					continue;
				sqlite3_bind_text(st, 1, fn, -1, SQLITE_STATIC);
				found = sqlite3_step(st) == SQLITE_ROW;
				sqlite3_finalize(st);
				if (!found) {
					ok(0, "%s calls %s(), registered",
					    d->name, fn);
					bad++;
				}
			}
		}
	ok(seen > 50 && bad == 0,
	    "%zu calls of sc_ functions in templates, %zu unregistered", seen,
	    bad);
}

int
main(void)
{
	sqlite3 *db;

	test_entries();
	test_find();
	test_flags();
	if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
		ok(0, "open a database");
		return tap_done();
	}
	is_int(sc_eng_register_functions(db), SQLITE_OK,
	    "sc_eng_register_functions");
	test_templates(db);
	sqlite3_close(db);
	return tap_done();
}
