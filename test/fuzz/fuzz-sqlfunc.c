/* SPDX-License-Identifier: MIT */

/*
 * fuzz-sqlfunc: every SQL function sc-serve's engine registers in SQLite
 * (sc_eng_register_functions(), on a private in-memory database; the
 * list from pragma_function_list), called with arguments decoded from
 * the input.  SQL that SQLite runs as written can reach any of them with
 * any arguments, so none may crash, read past its arguments or trip a
 * sanitizer, whatever it is given: an error or a value is fine.
 *
 * Input: the function, either by name ("sc_ts_from(", then a byte
 * choosing among the argument counts it is registered with) or by two
 * bytes (an index, modulo the number of functions, ordered by name and
 * count); a byte for the argument count of a variadic one (modulo 12);
 * then each argument, a tag byte and its bytes (see next_arg()).
 * Missing bytes read as zero (NULL arguments).  The statement has two
 * rows, the second with arguments of its own, so an aggregate steps
 * twice.  Reproducers in regress/sqlfunc/ name their function, so they
 * stay what they are when functions are added.
 */

#include "fuzz.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/xmem.h"
#include "engine/engine_int.h"
#include "core/banned.h"

/* Arguments of a variadic function: 0 to VARIADIC_MAX - 1. */
#define VARIADIC_MAX 12
/*
 * Long text is at most this long: enough to cross any fixed buffer, and
 * short enough that a quadratic function (levenshtein of two of them)
 * stays well inside the fuzzer's time limit per input.  Results are at
 * most RESULT_MAX bytes (SQLite's length limit on this connection).
 */
#define LONG_MAX_BYTES 2048
#define RESULT_MAX (1 << 20)
/* VM steps before a statement is interrupted. */
#define PROGRESS_MAX 200

struct func {
	char *name;
	char type; /* s, a, w */
	int narg;
};

static sqlite3 *db;
static struct func *funcs;
static size_t nfuncs;
static int progress_ticks;

/* Text arguments that mean something to one function or another. */
static const char *const words[] = {
	"",
	"NaN",
	"Infinity",
	"-Infinity",
	"[1,2,3]",
	"[[1,2],[3,null]]",
	"[[\"a\",1],[\"b\",null]]",
	"{\"a\":1,\"b\":[true]}",
	"[",
	"[\"\\ud800\"]",
	"%s",
	"%d",
	"%n",
	"%1$s %2$s %<s",
	"%-+ 0#,(10.3f",
	"%999999d",
	"%x%o%e%g%a%c%b%h%%",
	"yyyy-MM-dd HH:mm:ss.SSSSSS",
	"EEEE MMMM QQQ a VV xxx XXX zzz G u D w W",
	"'quoted''",
	"2024-02-29",
	"2024-02-29 23:59:59.999999",
	"-290308-12-21 19:59:05.224192",
	"+294247-01-10 04:00:54.775807",
	"UTC",
	"America/New_York",
	"+14:00",
	"GMT-25:00",
	"Mars/Olympus",
	"+",
	"-",
	"*",
	"/",
	"neg",
	"abs",
	"div",
	"sqrt",
	"pow",
	"year",
	"day",
	"second",
	"md5",
	"sha1",
	"sha-256",
	"(a|b)*c",
	"[[:alpha:]]+",
	"a{1,99999}",
	"\\",
	"(?<=x)",
	"ilzfdsb",
	"ss",
	"1 02:03:04.5",
	"INTERVAL '1-2' YEAR TO MONTH",
	"interval '1 02:00:00' day to hour",
	"\xff\xfe\xc3",
	"\xf0\x9f\x98\x80\xe2\x82\xac",
};

static const int64_t ints[] = {
	0,
	1,
	-1,
	2,
	-2,
	3,
	4,
	5,
	7,
	8,
	12,
	16,
	24,
	31,
	32,
	33,
	63,
	64,
	65,
	99,
	100,
	224,
	256,
	384,
	512,
	1000,
	1000000,
	86400000000LL,
	INT8_MIN,
	INT8_MAX,
	INT16_MIN,
	INT16_MAX,
	INT32_MIN,
	INT32_MAX,
	(int64_t)INT32_MAX + 1,
	(int64_t)INT32_MIN - 1,
	INT64_MIN,
	INT64_MIN + 1,
	INT64_MAX,
	INT64_MAX - 1,
	4503599627370496LL,
	9007199254740993LL,
};

static const double reals[] = {
	0.0,
	-0.0,
	0.5,
	-0.5,
	2.5,
	1e-300,
	-1e-300,
	1e308,
	-1e308,
	9.223372036854775807e18,
	-9.223372036854775808e18,
	2147483647.5,
	-2147483648.5,
	1.7976931348623157e308,
	4.9e-324,
};

struct reader {
	const uint8_t *p;
	size_t n;
};

static uint8_t
next_byte(struct reader *r)
{
	if (r->n == 0)
		return 0;
	r->n--;
	return *r->p++;
}

static uint64_t
next_u64(struct reader *r)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | next_byte(r);
	return v;
}

/* Up to want bytes of the input, as they are; their count in *got. */
static const uint8_t *
next_bytes(struct reader *r, size_t want, size_t *got)
{
	const uint8_t *p = r->p;

	if (want > r->n)
		want = r->n;
	r->p += want;
	r->n -= want;
	*got = want;
	return p;
}

/*
 * Bind parameter i from the input: a tag byte (modulo 10) and its
 * bytes.  0 NULL; 1 an integer of 8 bytes; 2 a small one (1 byte); 3
 * one of ints[]; 4 a double of 8 bytes; 5 one of reals[]; 6 text of a
 * length byte and that many bytes (any bytes); 7 the same as a blob; 8
 * one of words[]; 9 a long text, a byte repeated (two length bytes).
 */
static void
next_arg(struct reader *r, sqlite3_stmt *st, int i, char *scratch)
{
	const uint8_t *p;
	uint64_t u;
	double d;
	size_t n;
	uint8_t tag = next_byte(r);

	switch (tag % 10) {
	case 0:
		sqlite3_bind_null(st, i);
		break;
	case 1:
		sqlite3_bind_int64(st, i, (sqlite3_int64)next_u64(r));
		break;
	case 2:
		sqlite3_bind_int64(st, i, (int8_t)next_byte(r));
		break;
	case 3:
		sqlite3_bind_int64(st, i,
		    ints[next_byte(r) % (sizeof(ints) / sizeof(ints[0]))]);
		break;
	case 4:
		u = next_u64(r);
		memcpy(&d, &u, sizeof(d));
		sqlite3_bind_double(st, i, d);
		break;
	case 5:
		sqlite3_bind_double(st, i,
		    reals[next_byte(r) % (sizeof(reals) / sizeof(reals[0]))]);
		break;
	case 6:
	case 7:
		p = next_bytes(r, next_byte(r), &n);
		if (tag % 10 == 6)
			sqlite3_bind_text(st, i, n > 0 ? (const char *)p : "",
			    (int)n, SQLITE_TRANSIENT);
		else
			sqlite3_bind_blob(st, i, n > 0 ? p : (const void *)"",
			    (int)n, SQLITE_TRANSIENT);
		break;
	case 8:
		sqlite3_bind_text(st, i,
		    words[next_byte(r) % (sizeof(words) / sizeof(words[0]))],
		    -1, SQLITE_STATIC);
		break;
	default:
		n = (size_t)next_byte(r) << 8 | next_byte(r);
		n %= LONG_MAX_BYTES;
		memset(scratch, (char)(next_byte(r) | 0x20), n);
		sqlite3_bind_text(st, i, scratch, (int)n, SQLITE_TRANSIENT);
		break;
	}
}

/* The function the input names or numbers. */
static const struct func *
pick(struct reader *r)
{
	const uint8_t *paren = memchr(r->p, '(', r->n < 64 ? r->n : 64);
	size_t len, i, first = nfuncs, count = 0;

	if (paren != NULL) {
		len = (size_t)(paren - r->p);
		for (i = 0; i < nfuncs; i++)
			if (strlen(funcs[i].name) == len &&
			    memcmp(funcs[i].name, r->p, len) == 0) {
				if (count++ == 0)
					first = i;
			}
		if (count > 0) {
			r->n -= len + 1;
			r->p += len + 1;
			return &funcs[first + next_byte(r) % count];
		}
	}
	i = (size_t)next_byte(r) << 8;
	i |= next_byte(r);
	return &funcs[i % nfuncs];
}

static int
progress(void *arg)
{
	(void)arg;
	return ++progress_ticks > PROGRESS_MAX;
}

static int
setup(void)
{
	sqlite3_stmt *st;

	if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
	    sc_eng_register_functions(db) != SQLITE_OK)
		abort();
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, RESULT_MAX);
	sqlite3_progress_handler(db, 100, progress, NULL);
	if (sqlite3_prepare_v2(db,
		"SELECT name, type, narg FROM pragma_function_list "
		"WHERE builtin = 0 AND (name LIKE 'sc\\_%' ESCAPE '\\' "
		"OR name IN ('greatest', 'least')) ORDER BY name, narg",
		-1, &st, NULL) != SQLITE_OK)
		abort();
	while (sqlite3_step(st) == SQLITE_ROW) {
		funcs = sc_xreallocarray(funcs, nfuncs + 1, sizeof(*funcs));
		funcs[nfuncs].name =
		    sc_xstrdup((const char *)sqlite3_column_text(st, 0));
		funcs[nfuncs].type = (char)sqlite3_column_text(st, 1)[0];
		funcs[nfuncs].narg = sqlite3_column_int(st, 2);
		nfuncs++;
	}
	sqlite3_finalize(st);
	if (nfuncs == 0)
		abort();
	return 0;
}

int
sc_fuzz_sqlfunc(const uint8_t *data, size_t n)
{
	static char scratch[LONG_MAX_BYTES];
	struct reader r = { data, n };
	const struct func *f;
	sqlite3_stmt *st = NULL;
	struct sc_buf sql;
	int i, k, row;

	if (db == NULL)
		setup();
	f = pick(&r);
	k = f->narg >= 0 ? f->narg : next_byte(&r) % VARIADIC_MAX;
	/*
	 * Two rows, each with its own arguments (?1..?k, then ?k+1..?2k),
	 * so an aggregate steps twice with different values.
	 */
	sc_buf_init(&sql, SC_BUF_UNLIMITED);
	sc_buf_addf(&sql, NULL, "SELECT %s(", f->name);
	for (i = 0; i < k; i++)
		sc_buf_addf(&sql, NULL, "%sCASE x WHEN 1 THEN ?%d ELSE ?%d END",
		    i > 0 ? ", " : "", i + 1, k + i + 1);
	sc_buf_addf(&sql, NULL, ")%s FROM (SELECT 1 AS x UNION ALL SELECT 2)",
	    f->type == 'w' ? " OVER ()" : "");
	if (sqlite3_prepare_v2(db, (const char *)sql.data, -1, &st, NULL) !=
	    SQLITE_OK)
		abort(); /* every function takes its own count */
	sc_buf_release(&sql);
	for (row = 0; row < 2; row++)
		for (i = 0; i < k; i++)
			next_arg(&r, st, row * k + i + 1, scratch);
	progress_ticks = 0;
	while (sqlite3_step(st) == SQLITE_ROW)
		(void)sqlite3_column_text(st, 0);
	sqlite3_finalize(st);
	return 0;
}

SC_FUZZ_MAIN_FOR(sc_fuzz_sqlfunc)
