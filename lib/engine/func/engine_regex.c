/* SPDX-License-Identifier: MIT */

/*
 * engine_regex.c: Spark's regular expression functions (rlike,
 * regexp_replace, regexp_extract, split) on POSIX extended regular
 * expressions, with the common subset of Java's syntax translated and
 * the rest refused.
 */

#include "engine/engine_int.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/xmem.h"
#include "core/banned.h"

/* ---- regular expressions: Java syntax onto POSIX extended ---------- */

static void
regex_free(void *p)
{
	regfree(p);
	free(p);
}

/*
 * Deepest nesting of groups taken: regcomp() recurses once per group,
 * and 30 000 of them overflowed the query thread's stack.
 */
#define MAX_GROUP_DEPTH 256
#define SC_STR_(x) #x
#define SC_STR(x) SC_STR_(x)

/*
 * Translate the common subset of Java's regex syntax to POSIX ERE:
 * \d \w \s (and upper-case negations), escapes of punctuation, classes,
 * groups, alternation, greedy quantifiers.  Lookaround, lazy or
 * possessive quantifiers, backreferences, named groups and inline
 * flags are refused (-1): POSIX has no such thing, and a wrong match
 * would be a wrong answer.  Groups nested deeper than MAX_GROUP_DEPTH
 * are refused too (-2).
 */
static int
java_to_posix(const char *p, struct sc_buf *out)
{
	bool in_class = false;
	int depth = 0;

	for (; *p != '\0'; p++) {
		if (*p == '\\') {
			p++;
			switch (*p) {
			case 'd':
				sc_buf_addstr(out, in_class ? "0-9" : "[0-9]",
				    NULL);
				break;
			case 'D':
				if (in_class)
					return -1;
				sc_buf_addstr(out, "[^0-9]", NULL);
				break;
			case 'w':
				sc_buf_addstr(out,
				    in_class ? "[:alnum:]_" : "[[:alnum:]_]",
				    NULL);
				break;
			case 'W':
				if (in_class)
					return -1;
				sc_buf_addstr(out, "[^[:alnum:]_]", NULL);
				break;
			case 's':
				sc_buf_addstr(out,
				    in_class ? "[:space:]" : "[[:space:]]",
				    NULL);
				break;
			case 'S':
				if (in_class)
					return -1;
				sc_buf_addstr(out, "[^[:space:]]", NULL);
				break;
			case 't':
				sc_buf_addch(out, '\t', NULL);
				break;
			case 'n':
				sc_buf_addch(out, '\n', NULL);
				break;
			case '\0':
				return -1;
			default:
				if ((*p >= 'a' && *p <= 'z') ||
				    (*p >= 'A' && *p <= 'Z') ||
				    (*p >= '0' && *p <= '9'))
					return -1; /* \b, \1, \p{...}, ... */
				if (in_class) {
					sc_buf_addch(out, *p, NULL);
				} else {
					sc_buf_addch(out, '\\', NULL);
					sc_buf_addch(out, *p, NULL);
				}
				break;
			}
			continue;
		}
		if (in_class) {
			if (*p == ']')
				in_class = false;
			else if (*p == '[')
				return -1; /* nested classes, unions */
			sc_buf_addch(out, *p, NULL);
			continue;
		}
		switch (*p) {
		case '[':
			in_class = true;
			sc_buf_addch(out, '[', NULL);
			if (p[1] == '^')
				sc_buf_addch(out, *++p, NULL);
			if (p[1] == ']')
				sc_buf_addch(out, *++p, NULL);
			break;
		case '(':
			if (p[1] == '?')
				return -1;
			if (++depth > MAX_GROUP_DEPTH)
				return -2;
			sc_buf_addch(out, '(', NULL);
			break;
		case ')':
			depth--;
			sc_buf_addch(out, ')', NULL);
			break;
		case '*':
		case '+':
		case '?':
		case '}':
			sc_buf_addch(out, *p, NULL);
			if (p[1] == '?' || p[1] == '+')
				return -1; /* lazy, possessive */
			break;
		default:
			sc_buf_addch(out, *p, NULL);
			break;
		}
	}
	return in_class ? -1 : 0;
}

/*
 * Limits on a translated pattern, for glibc's regcomp(), whose time and
 * memory grow steeply with anchors (200 '$' take a tenth of a second,
 * 1,600 take 40 s), with nested repetition bounds (((a{1,1000}){1,1000}))
 * takes minutes) and with many quantifiers; it cannot be interrupted.
 */
#define RE_MAX_BYTES 4096
#define RE_MAX_ANCHORS 16
#define RE_MAX_QUANTIFIERS 100
#define RE_MAX_BOUNDS 10000 /* the product of every {n,m}'s larger number */

/* Whether POSIX ERE s is beyond the limits above. */
static bool
too_costly(const char *s)
{
	size_t i, n = strlen(s);
	int anchors = 0, quant = 0;
	long product = 1, a, b;
	char *end;

	if (n > RE_MAX_BYTES)
		return true;
	for (i = 0; i < n; i++) {
		switch (s[i]) {
		case '\\':
			i++;
			break;
		case '[':
			/* a bracket expression, [:classes:] inside it */
			i++;
			if (s[i] == '^')
				i++;
			if (s[i] == ']')
				i++;
			while (i < n && s[i] != ']') {
				if (s[i] == '[' && s[i + 1] == ':') {
					end = strstr(s + i + 2, ":]");
					if (end == NULL)
						return false; /* regcomp refuses it */
					i = (size_t)(end - s) + 2;
				} else {
					i++;
				}
			}
			break;
		case '^':
		case '$':
			anchors++;
			break;
		case '*':
		case '+':
		case '?':
			quant++;
			break;
		case '{':
			quant++;
			a = strtol(s + i + 1, &end, 10);
			b = *end == ',' ? strtol(end + 1, &end, 10) : a;
			if (a > 1000 || b > 1000 || a < 0 || b < 0)
				return true;
			product *= (a > b ? a : b) > 1 ? (a > b ? a : b) : 1;
			if (product > RE_MAX_BOUNDS)
				return true;
			break;
		default:
			break;
		}
	}
	return anchors > RE_MAX_ANCHORS || quant > RE_MAX_QUANTIFIERS;
}

/* The compiled pattern of argument i, cached on the statement. */
static regex_t *
pattern_arg(sqlite3_context *ctx, sqlite3_value **argv, int i)
{
	regex_t *re = sqlite3_get_auxdata(ctx, i);
	struct sc_buf e;
	const char *p;
	int rc;

	if (re != NULL)
		return re;
	if ((p = (const char *)sqlite3_value_text(argv[i])) == NULL)
		return NULL;
	sc_buf_init(&e, SC_BUF_UNLIMITED);
	rc = java_to_posix(p, &e);
	if (rc == -2) {
		sc_buf_release(&e);
		sc_eng_func_fail(ctx,
		    "[INVALID_PARAMETER_VALUE.PATTERN] The value of parameter `regexp` is invalid: it nests groups more than %s levels deep. SQLSTATE: 22023",
		    SC_STR(MAX_GROUP_DEPTH));
		return NULL;
	}
	if (rc == -1) {
		sc_buf_release(&e);
		sc_eng_func_fail(ctx,
		    "[UNSUPPORTED_FEATURE.REGEXP] The regular expression '%s' "
		    "uses Java syntax sc-serve does not support (lookaround, "
		    "lazy quantifiers, backreferences, \\b, \\p, inline "
		    "flags). SQLSTATE: 0A000",
		    p);
		return NULL;
	}
	if (too_costly((const char *)e.data)) {
		sc_buf_release(&e);
		sc_eng_func_fail(ctx,
		    "[UNSUPPORTED_FEATURE.REGEXP] The regular expression "
		    "'%.200s' is beyond what sc-serve compiles (4096 bytes, 16 "
		    "anchors, 100 quantifiers, repetition bounds of 1000 or "
		    "10000 multiplied). SQLSTATE: 0A000",
		    p);
		return NULL;
	}
	re = sc_xmalloc(sizeof(*re));
	rc = regcomp(re, (const char *)e.data, REG_EXTENDED);
	sc_buf_release(&e);
	if (rc != 0) {
		free(re);
		sc_eng_func_fail(ctx,
		    "[INVALID_PARAMETER_VALUE.PATTERN] The value of parameter "
		    "`regexp` is invalid: '%s'. SQLSTATE: 22023",
		    p);
		return NULL;
	}
	sqlite3_set_auxdata(ctx, i, re, regex_free);
	return sqlite3_get_auxdata(ctx, i);
}

static void
rlike_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s;
	regex_t *re;

	(void)argc;
	if ((s = (const char *)sqlite3_value_text(argv[0])) == NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	if ((re = pattern_arg(ctx, argv, 1)) == NULL)
		return;
	sqlite3_result_int(ctx, regexec(re, s, 0, NULL, 0) == 0);
}

/* regexp_replace(str, regexp, rep): $n in rep is group n. */
static void
regexp_replace_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s, *rep, *r;
	regmatch_t m[10];
	struct sc_buf b;
	regex_t *re;
	size_t off = 0, len;
	int flags = 0, g;

	(void)argc;
	if ((s = (const char *)sqlite3_value_text(argv[0])) == NULL ||
	    (rep = (const char *)sqlite3_value_text(argv[2])) == NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	if ((re = pattern_arg(ctx, argv, 1)) == NULL)
		return;
	len = strlen(s);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	while (off <= len && regexec(re, s + off, 10, m, flags) == 0) {
		sc_buf_add(&b, s + off, (size_t)m[0].rm_so, NULL);
		for (r = rep; *r != '\0'; r++) {
			if (*r == '\\' && r[1] != '\0') {
				sc_buf_addch(&b, *++r, NULL);
			} else if (*r == '$' && r[1] >= '0' && r[1] <= '9') {
				g = *++r - '0';
				if (m[g].rm_so >= 0)
					sc_buf_add(&b, s + off + m[g].rm_so,
					    (size_t)(m[g].rm_eo - m[g].rm_so),
					    NULL);
			} else {
				sc_buf_addch(&b, *r, NULL);
			}
		}
		if (m[0].rm_eo == m[0].rm_so) {
			/* An empty match: keep one character and go on. */
			if (off + (size_t)m[0].rm_eo < len)
				sc_buf_addch(&b, s[off + m[0].rm_eo], NULL);
			off += (size_t)m[0].rm_eo + 1;
		} else {
			off += (size_t)m[0].rm_eo;
		}
		flags = REG_NOTBOL;
	}
	if (off < len)
		sc_buf_add(&b, s + off, len - off, NULL);
	sc_eng_func_result_buf(ctx, &b);
}

/* regexp_extract(str, regexp, idx): group idx of the first match. */
static void
regexp_extract_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s;
	regmatch_t m[10];
	regex_t *re;
	sqlite3_int64 idx;

	if ((s = (const char *)sqlite3_value_text(argv[0])) == NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	idx = argc > 2 ? sqlite3_value_int64(argv[2]) : 1;
	if ((re = pattern_arg(ctx, argv, 1)) == NULL)
		return;
	if (idx < 0 || idx > (sqlite3_int64)re->re_nsub || idx > 9) {
		sqlite3_result_error(ctx,
		    "[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX] The value of "
		    "parameter(s) `idx` in `regexp_extract` is invalid: "
		    "Expects group index between 0 and the number of groups. "
		    "SQLSTATE: 22023",
		    -1);
		return;
	}
	if (regexec(re, s, 10, m, 0) != 0 || m[idx].rm_so < 0) {
		sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
		return;
	}
	sqlite3_result_text(ctx, s + m[idx].rm_so,
	    (int)(m[idx].rm_eo - m[idx].rm_so), SQLITE_TRANSIENT);
}

static void
json_str(struct sc_buf *b, const char *s, size_t n)
{
	size_t i;

	sc_buf_addch(b, '"', NULL);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			sc_buf_addf(b, NULL, "\\%c", c);
		else if (c < 0x20)
			sc_buf_addf(b, NULL, "\\u%04x", c);
		else
			sc_buf_addch(b, (char)c, NULL);
	}
	sc_buf_addch(b, '"', NULL);
}

/* split(str, regexp[, limit]): a JSON array of strings. */
static void
split_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s;
	regmatch_t m[1];
	struct sc_buf b;
	regex_t *re;
	size_t off = 0, len, k = 0, from;
	sqlite3_int64 limit;
	int flags = 0;

	if ((s = (const char *)sqlite3_value_text(argv[0])) == NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	limit = argc > 2 ? sqlite3_value_int64(argv[2]) : -1;
	if ((re = pattern_arg(ctx, argv, 1)) == NULL)
		return;
	len = strlen(s);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_buf_addch(&b, '[', NULL);
	from = 0;
	/* Java's split: an empty match splits between characters. */
	while (off < len && (limit <= 0 || (sqlite3_int64)k + 1 < limit) &&
	    regexec(re, s + off, 1, m, flags) == 0) {
		size_t a = off + (size_t)m[0].rm_so,
		       e = off + (size_t)m[0].rm_eo;

		if (e == a) {
			if (a >= len)
				break;
			if (a == 0) {
				off = a + 1;
				flags = REG_NOTBOL;
				continue;
			}
		}
		if (k++ > 0)
			sc_buf_addch(&b, ',', NULL);
		json_str(&b, s + from, a - from);
		from = e;
		off = e > a ? e : a + 1;
		flags = REG_NOTBOL;
	}
	if (k++ > 0)
		sc_buf_addch(&b, ',', NULL);
	json_str(&b, s + from, len - from);
	sc_buf_addch(&b, ']', NULL);
	sc_eng_func_result_buf(ctx, &b);
}

void *
sc_eng_regex_arg(sqlite3_context *ctx, sqlite3_value **argv, int i)
{
	return pattern_arg(ctx, argv, i);
}

int
sc_eng_regex_register(sqlite3 *db)
{
	static const struct sc_efunc scalar[] = {
		{ "sc_rlike", 2, rlike_fn },
		{ "sc_regexp_replace", 3, regexp_replace_fn },
		{ "sc_regexp_extract", 3, regexp_extract_fn },
		{ "sc_split", 2, split_fn },
		{ "sc_split", 3, split_fn },
	};

	return sc_eng_func_add(db, scalar, SC_NELEM(scalar));
}
