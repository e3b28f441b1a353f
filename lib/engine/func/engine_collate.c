/* SPDX-License-Identifier: MIT */

/*
 * engine_collate.c: Spark's string collations in the SQLite engine.
 * UTF8_BINARY is SQLite's BINARY; UTF8_LCASE a SQLite collation of that
 * name comparing lower-cased code points.  A string etype's prec says
 * which (SC_ECOLL_LCASE).  expr COLLATE name and collate(expr, name);
 * comparisons where a side is UTF8_LCASE; the collations Spark knows
 * and sc-serve does not give are refused by name.
 */

#include "engine/plan/engine_expr_int.h"

#include <ctype.h>
#include <locale.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>
#include <wctype.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

#define A(i) ((const char *)a[i].sql.data)
#define N(i) ((const char *)a[i].ei.name.data)

/*
 * A collation name: 1 UTF8_LCASE, 0 UTF8_BINARY, -2 one of Spark's that
 * sc-serve does not give (UNICODE..., locales, _RTRIM forms), -1 none
 * of Spark's.  Case does not matter.
 */
static int
collation_of(const char *s)
{
	size_t i, n = strlen(s);

	if (strcasecmp(s, "utf8_lcase") == 0)
		return SC_ECOLL_LCASE;
	if (strcasecmp(s, "utf8_binary") == 0)
		return 0;
	if (strncasecmp(s, "unicode", 7) == 0 ||
	    strncasecmp(s, "utf8_binary_", 12) == 0 ||
	    strncasecmp(s, "utf8_lcase_", 11) == 0)
		return -2;
	/* An ICU locale: "en", "sr_Cyrl_SRB", with _CI, _AI ... */
	for (i = 0; i < n && isalpha((unsigned char)s[i]); i++)
		;
	if (i >= 2 && i <= 3 && (i == n || s[i] == '_'))
		return -2;
	return -1;
}

static int
collation_refused(const char *name, int c, struct sc_error *err)
{
	if (c == -2)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.COLLATION",
		    "0A000",
		    "The collation `%s` is not supported by sc-serve: only "
		    "UTF8_BINARY and UTF8_LCASE.",
		    name);
	return sc_srv_error(err, "COLLATION_INVALID_NAME", "42704",
	    "The value %s does not represent a correct collation name. "
	    "Suggested valid collation names: [UTF8_BINARY, UTF8_LCASE].",
	    name);
}

int
sc_eng_collation_parse_type(const char *name, struct sc_etype *out)
{
	int c = collation_of(name);

	if (c < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	out->t = SC_ARROW_UTF8;
	out->prec = c;
	return 0;
}

/* expr COLLATE name, collate(expr, name). */
static int
collate_call(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedFunction *f, const char *lname,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	const Spark__Connect__Expression *ne;
	struct sc_efarg a[1];
	const char *name;
	int c, rc = -1, t;

	(void)lname;
	ne = f->arguments[1];
	if (ne->expr_type_case != SC_EXPR_(LITERAL) ||
	    ne->literal->literal_type_case != SC_LIT_(STRING))
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "collate() with a collation name that is not a string "
		    "literal is not supported by sc-serve.");
	name = ne->literal->string;
	if ((c = collation_of(name)) < 0)
		return collation_refused(name, c, err);
	sc_buf_init(&a[0].sql, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&a[0].ei);
	if (sc_eng_expr(x, in, f->arguments[0], &a[0].sql, &a[0].ei, err) == -1)
		goto out;
	t = a[0].ei.type.t;
	if (t != SC_ARROW_UTF8 && t != SC_ARROW_LARGE_UTF8 &&
	    t != SC_ETYPE_UNKNOWN && t != SC_ARROW_NULL) {
		sc_srv_error(err, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
		    "42K09",
		    "Cannot resolve \"collate(%s, %s)\" due to data type "
		    "mismatch: the first parameter requires the \"STRING\" "
		    "type.",
		    N(0), name);
		goto out;
	}
	sc_buf_addf(sql, NULL, "(%s COLLATE %s)", A(0),
	    c == SC_ECOLL_LCASE ? "UTF8_LCASE" : "BINARY");
	sc_buf_addf(&ei->name, NULL, "collate(%s, %s)", N(0),
	    c == SC_ECOLL_LCASE ? "UTF8_LCASE" : "UTF8_BINARY");
	sc_eng_set_type(ei, SC_ARROW_UTF8);
	ei->type.prec = c;
	ei->nullable = a[0].ei.nullable;
	rc = 0;
out:
	sc_buf_release(&a[0].sql);
	sc_eng_einfo_release(&a[0].ei);
	return rc;
}

static const struct sc_efdef defs[] = {
	{ "collate", F_CALL, NULL, 2, 2, SC_ARROW_UTF8, .call = collate_call },
};
const struct sc_effamily sc_eng_family_collate = { "collate", defs,
	SC_NELEM(defs) };

/*
 * The UTF8_LCASE collation: strings compared as their code points
 * lower-cased (Unicode's simple mapping where the C.UTF-8 locale has
 * it), in code point order, as Spark compares them.
 */
static locale_t lcase_loc;
static pthread_once_t lcase_once = PTHREAD_ONCE_INIT;

static void
lcase_init(void)
{
	lcase_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

/* The next code point of p[0..n) at *i (a bad byte reads as itself). */
static uint32_t
next_cp(const unsigned char *p, int n, int *i)
{
	uint32_t c = p[*i], v;
	int k = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0, j;

	if (*i + k >= n) {
		k = 0;
	} else if (k > 0) {
		v = c & (0x3fu >> k);
		for (j = 1; j <= k; j++) {
			if ((p[*i + j] & 0xc0) != 0x80) {
				k = 0;
				break;
			}
			v = v << 6 | (p[*i + j] & 0x3fu);
		}
		if (k > 0)
			c = v;
	}
	*i += k + 1;
	return c;
}

static uint32_t
lower_cp(uint32_t c)
{
	if (c < 0x80)
		return c >= 'A' && c <= 'Z' ? c + 32 : c;
	if (lcase_loc != (locale_t)0)
		return (uint32_t)towlower_l((wint_t)c, lcase_loc);
	return c;
}

static int
lcase_cmp(void *arg, int na, const void *a, int nb, const void *b)
{
	const unsigned char *p = a, *q = b;
	int i = 0, j = 0;
	uint32_t x, y;

	(void)arg;
	while (i < na && j < nb) {
		x = lower_cp(next_cp(p, na, &i));
		y = lower_cp(next_cp(q, nb, &j));
		if (x != y)
			return x < y ? -1 : 1;
	}
	return (i < na) - (j < nb);
}

static int
binary_cmp(void *arg, int na, const void *a, int nb, const void *b)
{
	int c = memcmp(a, b, (size_t)(na < nb ? na : nb));

	(void)arg;
	return c != 0 ? c : (na > nb) - (na < nb);
}

/*
 * A comparison where a side is STRING COLLATE UTF8_LCASE compares under
 * that collation, as Spark's does, even where SQLite's expression (a
 * function's result) has lost it.
 */
bool
sc_eng_collate_cmp(const char *lname, struct sc_efarg *a, struct sc_buf *sql,
    struct sc_einfo *ei)
{
	/* Its name, SQLite's operator, the operator Spark's name shows. */
	static const char *const ops[][3] = { { "=", "=", "=" },
		{ "==", "=", "=" }, { "<", "<", "<" }, { "<=", "<=", "<=" },
		{ ">", ">", ">" }, { ">=", ">=", ">=" }, { "!=", "<>", "!" },
		{ "<>", "<>", "!" }, { "<=>", "IS", "<=>" } };
	size_t i;

	if (!(a[0].ei.type.t == SC_ARROW_UTF8 &&
		a[0].ei.type.prec == SC_ECOLL_LCASE) &&
	    !(a[1].ei.type.t == SC_ARROW_UTF8 &&
		a[1].ei.type.prec == SC_ECOLL_LCASE))
		return false;
	for (i = 0; i < SC_NELEM(ops); i++)
		if (strcmp(lname, ops[i][0]) == 0)
			break;
	if (i == SC_NELEM(ops))
		return false;
	sc_buf_addf(sql, NULL, "((%s) COLLATE UTF8_LCASE %s (%s))", A(0),
	    ops[i][1], A(1));
	if (ops[i][2][0] == '!')
		sc_buf_addf(&ei->name, NULL, "(NOT (%s = %s))", N(0), N(1));
	else
		sc_buf_addf(&ei->name, NULL, "(%s %s %s)", N(0), ops[i][2],
		    N(1));
	sc_eng_set_type(ei, SC_ARROW_BOOL);
	ei->nullable = i == SC_NELEM(ops) - 1
	    ? 0
	    : a[0].ei.nullable != 0 || a[1].ei.nullable != 0;
	return true;
}

int
sc_eng_collate_register(sqlite3 *db)
{
	int rc;

	pthread_once(&lcase_once, lcase_init);
	rc = sqlite3_create_collation_v2(db, "UTF8_LCASE", SQLITE_UTF8, NULL,
	    lcase_cmp, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_collation_v2(db, "UTF8_BINARY", SQLITE_UTF8,
		    NULL, binary_cmp, NULL);
	return rc;
}
