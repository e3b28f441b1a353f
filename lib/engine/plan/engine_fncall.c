/* SPDX-License-Identifier: MIT */

/*
 * engine_fncall.c: a function call (UnresolvedFunction) into SQLite SQL
 * through its registry entry (engine_fnreg.c): its arguments, the SQL
 * of each kind
 * of entry, the result's type (Spark's rules for decimals and integer
 * widths) and the name Spark gives the column.
 */

#include "engine/plan/engine_expr_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

bool
sc_eng_is_int_type(int t)
{
	return t == SC_ARROW_INT8 || t == SC_ARROW_INT16 ||
	    t == SC_ARROW_INT32 || t == SC_ARROW_INT64;
}

static bool
is_num_type(int t)
{
	return sc_eng_is_int_type(t) || t == SC_ARROW_FLOAT ||
	    t == SC_ARROW_DOUBLE;
}

/* The common type of arguments from..n-1 (step apart), or unknown. */
/* Field by field: memcmp would read the padding, never written. */
bool
sc_eng_same_etype(const struct sc_etype *a, const struct sc_etype *b)
{
	/* Nested types are interned: one type, one sc_enest. */
	return a->t == b->t && a->prec == b->prec && a->scale == b->scale &&
	    a->ntz == b->ntz && a->nest == b->nest;
}

/*
 * The common type of two array types: their elements' (a void element
 * takes the other's), containing null when either does; -1 when none.
 */
static int
common_list(const struct sc_etype *x, const struct sc_etype *y,
    struct sc_etype *out)
{
	const struct sc_enest *nx = x->nest, *ny = y->nest;
	struct sc_error e;
	struct sc_etype el;

	if (x->t != SC_ARROW_LIST || y->t != SC_ARROW_LIST || nx == NULL ||
	    ny == NULL)
		return -1;
	if (nx->types[0].t == SC_ARROW_NULL)
		el = ny->types[0];
	else if (ny->types[0].t == SC_ARROW_NULL ||
	    sc_eng_same_etype(&nx->types[0], &ny->types[0]))
		el = nx->types[0];
	else if (sc_eng_is_int_type(nx->types[0].t) &&
	    sc_eng_is_int_type(ny->types[0].t))
		el = nx->types[0].t > ny->types[0].t ? nx->types[0]
						     : ny->types[0];
	else if (is_num_type(nx->types[0].t) && is_num_type(ny->types[0].t) &&
	    nx->types[0].t != SC_ARROW_DECIMAL128 &&
	    ny->types[0].t != SC_ARROW_DECIMAL128) {
		memset(&el, 0, sizeof(el));
		el.t = SC_ARROW_DOUBLE;
	} else if (common_list(&nx->types[0], &ny->types[0], &el) == -1)
		return -1;
	sc_error_init(&e);
	return sc_eng_nest_array(&el, nx->nullable[0] || ny->nullable[0], out,
	    &e);
}

void
sc_eng_common_type(struct sc_einfo *ei, struct sc_efarg *a, size_t from,
    size_t n, size_t step)
{
	struct sc_etype lt;

	size_t i;

	ei->type.t = SC_ETYPE_UNKNOWN;
	for (i = from; i < n; i += step) {
		if (a[i].ei.type.t == SC_ARROW_NULL)
			continue;
		if (a[i].ei.type.t == SC_ETYPE_UNKNOWN) {
			ei->type.t = SC_ETYPE_UNKNOWN;
			return;
		}
		if (ei->type.t == SC_ETYPE_UNKNOWN) {
			ei->type = a[i].ei.type;
		} else if (!sc_eng_same_etype(&ei->type, &a[i].ei.type)) {
			if (common_list(&ei->type, &a[i].ei.type, &lt) == 0) {
				ei->type = lt;
			} else if (is_num_type(ei->type.t) &&
			    is_num_type(a[i].ei.type.t) &&
			    !sc_eng_is_int_type(ei->type.t) !=
				!sc_eng_is_int_type(a[i].ei.type.t)) {
				sc_eng_set_type(ei, SC_ARROW_DOUBLE);
			} else if (sc_eng_is_int_type(ei->type.t) &&
			    sc_eng_is_int_type(a[i].ei.type.t)) {
				if (a[i].ei.type.t > ei->type.t)
					ei->type.t = a[i].ei.type.t;
			} else {
				ei->type.t = SC_ETYPE_UNKNOWN;
				return;
			}
		}
	}
}

/*
 * The decimal(p, s) an exact numeric type widens to in decimal
 * arithmetic (an integer as Spark widens it: int is decimal(10,0)).
 */
static bool
as_decimal(const struct sc_etype *t, int *p, int *s)
{
	*s = 0;
	switch (t->t) {
	case SC_ARROW_DECIMAL128:
		*p = t->prec;
		*s = t->scale;
		return true;
	case SC_ARROW_INT8:
		*p = 3;
		return true;
	case SC_ARROW_INT16:
		*p = 5;
		return true;
	case SC_ARROW_INT32:
		*p = 10;
		return true;
	case SC_ARROW_INT64:
		*p = 20;
		return true;
	default:
		return false;
	}
}

/*
 * Spark's result type of decimal arithmetic (op one of + - * / %), with
 * precision loss allowed (its default): past 38 digits the scale gives
 * way, down to 6.  False unless one side is a decimal and the other a
 * decimal or an integer.
 */
static bool
decimal_result(char op, const struct sc_etype *l, const struct sc_etype *r,
    struct sc_etype *out)
{
	int p1, s1, p2, s2, p, s;

	if (l->t != SC_ARROW_DECIMAL128 && r->t != SC_ARROW_DECIMAL128)
		return false;
	if (!as_decimal(l, &p1, &s1) || !as_decimal(r, &p2, &s2))
		return false;
	switch (op) {
	case '+':
	case '-':
		s = s1 > s2 ? s1 : s2;
		p = (p1 - s1 > p2 - s2 ? p1 - s1 : p2 - s2) + s + 1;
		break;
	case '*':
		p = p1 + p2 + 1;
		s = s1 + s2;
		break;
	case '/':
		s = s1 + p2 + 1 > 6 ? s1 + p2 + 1 : 6;
		p = p1 - s1 + s2 + s;
		break;
	default: /* % */
		s = s1 > s2 ? s1 : s2;
		p = (p1 - s1 < p2 - s2 ? p1 - s1 : p2 - s2) + s;
		break;
	}
	if (p > 38) {
		int intd = p - s, mins = s < 6 ? s : 6;

		s = 38 - intd > mins ? 38 - intd : mins;
		p = 38;
	}
	memset(out, 0, sizeof(*out));
	out->t = SC_ARROW_DECIMAL128;
	out->prec = p;
	out->scale = s;
	return true;
}

/* Bits of an integer type. */
static int
int_bits(int t)
{
	return t == SC_ARROW_INT8 ? 8
	    : t == SC_ARROW_INT16 ? 16
	    : t == SC_ARROW_INT32 ? 32
				  : 64;
}

void
sc_eng_args_list(struct sc_buf *b, struct sc_efarg *a, size_t from, size_t n,
    bool names)
{
	size_t i;

	for (i = from; i < n; i++) {
		if (i > from)
			sc_buf_addstr(b, ", ", NULL);
		if (names && a[i].ei.unaliased != NULL)
			sc_buf_addf(b, NULL, "%s AS %s", a[i].ei.unaliased,
			    (const char *)a[i].ei.name.data);
		else if (names)
			sc_buf_add(b, a[i].ei.name.data, a[i].ei.name.len,
			    NULL);
		else
			sc_buf_add(b, a[i].sql.data, a[i].sql.len, NULL);
	}
}

#define A(i) ((const char *)a[i].sql.data)
#define N(i) ((const char *)a[i].ei.name.data)

/* Expand template t: $1..$9 are arguments (parenthesized), $* all. */
static void template(struct sc_buf *sql, const char *t, struct sc_efarg *a,
    size_t n)
{
	size_t k;

	for (; *t != '\0'; t++) {
		if (t[0] == '$' && t[1] == '*') {
			sc_eng_args_list(sql, a, 0, n, false);
			t++;
		} else if (t[0] == '$' && t[1] >= '1' && t[1] <= '9' &&
		    (size_t)(t[1] - '1') < n) {
			k = (size_t)(t[1] - '1');
			sc_buf_addf(sql, NULL, "(%s)", A(k));
			t++;
		} else {
			sc_buf_addch(sql, *t, NULL);
		}
	}
}

int
sc_eng_wrong_num_args(const char *fname, int min, int max, size_t n,
    struct sc_error *err)
{
	char want[160];
	int i, len;

	/* Spark's forms: 2, [1, 2, 3], > 0 (no upper bound). */
	if (max < 0)
		snprintf(want, sizeof(want), "> %d", min - 1);
	else if (min == max || max - min > 8)
		snprintf(want, sizeof(want), "%d", min == max ? min : max);
	else {
		len = snprintf(want, sizeof(want), "[%d", min);
		for (i = min + 1; i <= max; i++)
			len += snprintf(want + len, sizeof(want) - (size_t)len,
			    ", %d", i);
		snprintf(want + len, sizeof(want) - (size_t)len, "]");
	}
	return sc_srv_error(err, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "42605",
	    "The `%s` requires %s parameters but the actual number is %zu. Please, refer to 'https://spark.apache.org/docs/latest/sql-ref-functions.html' for a fix.",
	    fname, want, n);
}

/*
 * The SQL, type and name of a call of entry fd (any kind but F_CALL)
 * over its translated arguments a[0..n): 0, or -1 with err set.
 */
static int
by_kind(struct sc_ectx *x,
    const Spark__Connect__Expression__UnresolvedFunction *f,
    const struct sc_efdef *fd, const char *lname, struct sc_efarg *a, size_t n,
    bool star, struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	const char *fname = f->function_name != NULL ? f->function_name : "";
	size_t i, k;

	switch (fd->k) {
	case F_CMP:
	case F_LOGIC:
		sc_buf_addf(sql, NULL, "(%s %s %s)", A(0), fd->sql, A(1));
		sc_buf_addf(&ei->name, NULL, "(%s %s %s)", N(0), fd->sql, N(1));
		break;
	case F_NULLSAFE:
		sc_buf_addf(sql, NULL, "(%s IS %s)", A(0), A(1));
		sc_buf_addf(&ei->name, NULL, "(%s <=> %s)", N(0), N(1));
		ei->nullable = 0;
		break;
	case F_NE:
		sc_buf_addf(sql, NULL, "(%s <> %s)", A(0), A(1));
		sc_buf_addf(&ei->name, NULL, "(NOT (%s = %s))", N(0), N(1));
		break;
	case F_ARITH:
		if (n == 1 && sc_eng_is_int_type(a[0].ei.type.t)) {
			/* Spark's unary minus: overflow as in sc_intop. */
			sc_buf_addf(sql, NULL, "sc_intop(0, 'neg', %s, %d)",
			    A(0), int_bits(a[0].ei.type.t));
			sc_buf_addf(&ei->name, NULL, "(- %s)", N(0));
			ei->type = a[0].ei.type;
			ei->nullable = a[0].ei.nullable;
			break;
		}
		if (n == 1) {
			sc_buf_addf(sql, NULL, "(- %s)", A(0));
			sc_buf_addf(&ei->name, NULL, "(- %s)", N(0));
			ei->type = a[0].ei.type;
			ei->nullable = a[0].ei.nullable;
			break;
		}
		/* + - * are null only for a null operand; % also for 0. */
		if (fd->sql[0] != '%')
			ei->nullable = a[0].ei.nullable || a[1].ei.nullable;
		sc_buf_addf(&ei->name, NULL, "(%s %s %s)", N(0), fd->sql, N(1));
		if (decimal_result(fd->sql[0], &a[0].ei.type, &a[1].ei.type,
			&ei->type)) {
			if (fd->sql[0] == '%')
				sc_buf_addf(sql, NULL, "mod(%s, sc_div0(%s))",
				    A(0), A(1));
			else
				sc_buf_addf(sql, NULL, "(%s %s %s)", A(0),
				    fd->sql, A(1));
			break;
		}
		sc_eng_common_type(ei, a, 0, 2, 1);
		if (!is_num_type(ei->type.t))
			ei->type.t = SC_ETYPE_UNKNOWN;
		if (fd->sql[0] == '%' && !is_num_type(ei->type.t))
			/* Unknown types: SQLite's % (integers) as before. */
			sc_buf_addf(sql, NULL, "(%s %% sc_div0(%s))", A(0),
			    A(1));
		else if (fd->sql[0] == '%' && sc_eng_is_int_type(ei->type.t))
			/* Integers: SQLite's % truncates as Java's does. */
			sc_buf_addf(sql, NULL, "(%s %% sc_div0(%s))", A(0),
			    A(1));
		else if (fd->sql[0] == '%')
			sc_buf_addf(sql, NULL, "mod(%s, sc_div0(%s))", A(0),
			    A(1));
		else if (sc_eng_is_int_type(ei->type.t))
			/* Overflow: fails under ANSI mode, else wraps. */
			sc_buf_addf(sql, NULL, "sc_intop(%s, '%s', %s, %d)",
			    A(0), fd->sql, A(1), int_bits(ei->type.t));
		else
			sc_buf_addf(sql, NULL, "(%s %s %s)", A(0), fd->sql,
			    A(1));
		break;
	case F_DIV:
		sc_buf_addf(sql, NULL, "(CAST(%s AS REAL) / sc_div0(%s))", A(0),
		    A(1));
		sc_buf_addf(&ei->name, NULL, "(%s / %s)", N(0), N(1));
		decimal_result('/', &a[0].ei.type, &a[1].ei.type, &ei->type);
		break;
	case F_IDIV:
		/*
		 * Integral division: the quotient truncated, a bigint; the
		 * smallest bigint div -1 overflows (see sc_intop).
		 */
		sc_buf_addf(sql, NULL, "sc_intop(%s, 'div', sc_div0(%s), 64)",
		    A(0), A(1));
		sc_buf_addf(&ei->name, NULL, "(%s div %s)", N(0), N(1));
		break;
	case F_HASH: {
		/* Spark's Murmur3 needs each argument's type: see hash_fn. */
		char tags[64];

		if (n >= sizeof(tags)) {
			sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
			    "0A000",
			    "hash() of %zu arguments is not supported by "
			    "sc-serve.",
			    n);
			return -1;
		}
		for (i = 0; i < n; i++) {
			switch (a[i].ei.type.t) {
			case SC_ARROW_INT8:
			case SC_ARROW_INT16:
			case SC_ARROW_INT32:
				tags[i] = 'i';
				break;
			case SC_ARROW_BOOL:
				tags[i] = 'z';
				break;
			case SC_ARROW_INT64:
				tags[i] = 'l';
				break;
			case SC_ARROW_FLOAT:
				tags[i] = 'f';
				break;
			case SC_ARROW_DOUBLE:
				tags[i] = 'd';
				break;
			case SC_ARROW_UTF8:
			case SC_ARROW_LARGE_UTF8:
			case SC_ARROW_BINARY:
			case SC_ARROW_LARGE_BINARY:
			case SC_ARROW_NULL:
				tags[i] = 's';
				break;
			default:
				sc_srv_error(err,
				    "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
				    "hash() of %s (argument %zu) is not "
				    "supported by sc-serve: only integers, "
				    "booleans, floating point, strings and "
				    "binary.",
				    N(i), i + 1);
				return -1;
			}
		}
		tags[n] = '\0';
		sc_buf_addf(sql, NULL, "sc_hash('%s'", tags);
		for (i = 0; i < n; i++)
			sc_buf_addf(sql, NULL, ", %s", A(i));
		sc_buf_addch(sql, ')', NULL);
		ei->nullable = 0;
		break;
	}
	case F_RAND:
		/*
		 * A seed gives Spark's numbers for one partition
		 * (engine_func_rand.c); without one, any uniform draw
		 * (rand) or a seed drawn now (randn).
		 */
		if (n > 0 && !sc_eng_is_int_type(a[0].ei.type.t) &&
		    a[0].ei.type.t != SC_ARROW_NULL) {
			sc_srv_error(err,
			    "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "42K09",
			    "Cannot resolve \"%s(%s)\" due to data type "
			    "mismatch: the seed must be an int or bigint "
			    "literal.",
			    lname, N(0));
			return -1;
		}
		if (n > 0) {
			sc_buf_addf(sql, NULL, "sc_rand(%s, %d)", A(0),
			    lname[4] == 'n');
			sc_buf_addf(&ei->name, NULL, "%s(%s)", lname, N(0));
		} else if (lname[4] == 'n')
			sc_buf_addstr(sql, "sc_rand(random(), 1)", NULL);
		else
			sc_buf_addstr(sql,
			    "(random() / 18446744073709551616.0 + 0.5)", NULL);
		ei->nullable = 0;
		break;
	case F_MATH:
		/* NaN results (sqrt(-1)) as Spark's NaN: see engine_func.c. */
		sc_buf_addf(sql, NULL, "sc_math('%s', %s%s%s)",
		    lname[0] == 'p' ? "pow" : lname, A(0), n == 2 ? ", " : "",
		    n == 2 ? A(1) : "");
		sc_buf_addf(&ei->name, NULL, "%s(", fd->sql);
		sc_eng_args_list(&ei->name, a, 0, n, true);
		sc_buf_addch(&ei->name, ')', NULL);
		break;
	case F_NOT:
		sc_buf_addf(sql, NULL, "(NOT %s)", A(0));
		sc_buf_addf(&ei->name, NULL, "(NOT %s)", N(0));
		break;
	case F_NEG:
		if (sc_eng_is_int_type(a[0].ei.type.t))
			sc_buf_addf(sql, NULL, "sc_intop(0, 'neg', %s, %d)",
			    A(0), int_bits(a[0].ei.type.t));
		else
			sc_buf_addf(sql, NULL, "(- %s)", A(0));
		sc_buf_addf(&ei->name, NULL, "(- %s)", N(0));
		break;
	case F_ISNULL:
	case F_ISNOTNULL:
		sc_buf_addf(sql, NULL, "(%s IS %sNULL)", A(0),
		    fd->k == F_ISNULL ? "" : "NOT ");
		sc_buf_addf(&ei->name, NULL, "(%s IS %sNULL)", N(0),
		    fd->k == F_ISNULL ? "" : "NOT ");
		ei->nullable = 0;
		break;
	case F_IN:
		sc_buf_addf(sql, NULL, "(%s IN (", A(0));
		sc_eng_args_list(sql, a, 1, n, false);
		sc_buf_addstr(sql, "))", NULL);
		sc_buf_addf(&ei->name, NULL, "(%s IN (", N(0));
		sc_eng_args_list(&ei->name, a, 1, n, true);
		sc_buf_addstr(&ei->name, "))", NULL);
		break;
	case F_LIKE:
		sc_buf_addf(sql, NULL, "(%s LIKE %s ESCAPE '\\')", A(0), A(1));
		sc_buf_addf(&ei->name, NULL, "%s LIKE %s", N(0), N(1));
		break;
	case F_STARTS:
		sc_buf_addf(sql, NULL, "(substr(%s, 1, length(%s)) = %s)", A(0),
		    A(1), A(1));
		break;
	case F_ENDS:
		sc_buf_addf(sql, NULL,
		    "(length(%s) >= length(%s) AND "
		    "substr(%s, length(%s) - length(%s) + 1) = %s)",
		    A(0), A(1), A(0), A(0), A(1), A(1));
		break;
	case F_CONTAINS:
		sc_buf_addf(sql, NULL, "(instr(%s, %s) > 0)", A(0), A(1));
		break;
	case F_SIMPLE:
	case F_EXTREME:
		if (strcmp(lname, "abs") == 0 &&
		    sc_eng_is_int_type(a[0].ei.type.t)) {
			/* Spark's abs(): overflow as in sc_intop. */
			sc_buf_addf(sql, NULL, "sc_intop(0, 'abs', %s, %d)",
			    A(0), int_bits(a[0].ei.type.t));
			break;
		}
		sc_buf_addf(sql, NULL, "%s(", fd->sql);
		sc_eng_args_list(sql, a, 0, n, false);
		sc_buf_addch(sql, ')', NULL);
		if (strncmp(lname, "current_", 8) == 0) {
			/* Spark 4 names both current_schema() */
			sc_buf_addstr(&ei->name, "current_schema()", NULL);
			ei->nullable = 0;
		}
		if (fd->k == F_EXTREME)
			sc_eng_common_type(ei, a, 0, n, 1);
		break;
	case F_REPLACE:
		sc_buf_addf(sql, NULL, "replace(%s, %s, %s)", A(0), A(1),
		    n == 3 ? A(2) : "''");
		break;
	case F_LOG:
		if (n == 1)
			sc_buf_addf(sql, NULL, "ln(%s)", A(0));
		else
			sc_buf_addf(sql, NULL, "log(%s, %s)", A(0), A(1));
		break;
	case F_FLOORCEIL:
		sc_buf_addf(sql, NULL, "CAST(%s(%s) AS INTEGER)", fd->sql,
		    A(0));
		break;
	case F_ROUND:
		sc_buf_addf(sql, NULL, "%s(%s, %s)", fd->sql, A(0),
		    n == 2 ? A(1) : "0");
		sc_buf_addf(&ei->name, NULL, "%s(%s, %s)", lname, N(0),
		    n == 2 ? N(1) : "0");
		if (a[0].ei.type.t == SC_ARROW_DECIMAL128) {
			/* Spark: room for a carry, the scale at most s. */
			int p = a[0].ei.type.prec, s = a[0].ei.type.scale;
			int d = 0, ip = p - s + 1;

			if (n == 2 &&
			    f->arguments[1]->expr_type_case ==
				SC_EXPR_(LITERAL))
				d = (int)strtol(A(1), NULL, 10);
			ei->type = a[0].ei.type;
			if (d < 0) {
				ei->type.prec = ip > 1 - d ? ip : 1 - d;
				ei->type.scale = 0;
			} else {
				ei->type.scale = d < s ? d : s;
				ei->type.prec = ip + ei->type.scale;
			}
			if (ei->type.prec > 38)
				ei->type.prec = 38;
		} else if (sc_eng_is_int_type(a[0].ei.type.t))
			ei->type = a[0].ei.type;
		else if (is_num_type(a[0].ei.type.t))
			sc_eng_set_type(ei, SC_ARROW_DOUBLE);
		break;
	case F_COALESCE:
		if (n == 1) {
			sc_buf_addf(sql, NULL, "(%s)", A(0));
		} else {
			sc_buf_addstr(sql, "coalesce(", NULL);
			sc_eng_args_list(sql, a, 0, n, false);
			sc_buf_addch(sql, ')', NULL);
		}
		sc_eng_common_type(ei, a, 0, n, 1);
		break;
	case F_NVL2:
		sc_buf_addf(sql, NULL,
		    "(CASE WHEN %s IS NOT NULL THEN %s "
		    "ELSE %s END)",
		    A(0), A(1), A(2));
		sc_eng_common_type(ei, a, 1, 3, 1);
		break;
	case F_IF:
		sc_buf_addf(sql, NULL, "(CASE WHEN %s THEN %s ELSE %s END)",
		    A(0), A(1), A(2));
		sc_buf_addf(&ei->name, NULL, "(IF(%s, %s, %s))", N(0), N(1),
		    N(2));
		sc_eng_common_type(ei, a, 1, 3, 1);
		break;
	case F_WHEN:
		sc_buf_addstr(sql, "(CASE", NULL);
		sc_buf_addstr(&ei->name, "CASE", NULL);
		for (k = 0; k + 1 < n; k += 2) {
			sc_buf_addf(sql, NULL, " WHEN %s THEN %s", A(k),
			    A(k + 1));
			sc_buf_addf(&ei->name, NULL, " WHEN %s THEN %s", N(k),
			    N(k + 1));
		}
		if (n % 2 == 1) {
			sc_buf_addf(sql, NULL, " ELSE %s", A(n - 1));
			sc_buf_addf(&ei->name, NULL, " ELSE %s", N(n - 1));
		}
		sc_buf_addstr(sql, " END)", NULL);
		sc_buf_addstr(&ei->name, " END", NULL);
		sc_eng_common_type(ei, a, 1, n, 2);
		if (n % 2 == 1 && ei->type.t != SC_ETYPE_UNKNOWN) {
			struct sc_einfo t;

			sc_eng_einfo_init(&t);
			t.type = ei->type;
			sc_eng_common_type(&t, a, n - 1, n, 1);
			if (!sc_eng_same_etype(&t.type, &ei->type) &&
			    a[n - 1].ei.type.t != SC_ARROW_NULL)
				ei->type.t = SC_ETYPE_UNKNOWN;
			sc_eng_einfo_release(&t);
		}
		break;
	case F_CONCAT:
		if (n > 0 && a[0].ei.type.t == SC_ARROW_LIST) {
			/* concat of arrays: the elements in order. */
			for (i = 0; i < n; i++)
				if (!sc_eng_same_etype(&a[i].ei.type,
					&a[0].ei.type)) {
					sc_eng_wrong_arg(fname,
					    "\"ARRAY\" (all the same)", a, i,
					    err);
					return -1;
				}
			ei->type = a[0].ei.type;
			sc_buf_addstr(sql, "(CASE WHEN ", NULL);
			for (i = 0; i < n; i++)
				sc_buf_addf(sql, NULL, "%s(%s) IS NULL",
				    i > 0 ? " OR " : "", A(i));
			sc_buf_addstr(sql,
			    " THEN NULL ELSE (SELECT "
			    "coalesce(json_group_array(" SC_ENG_ELEM_JSON
			    "), json_array()) FROM (",
			    NULL);
			for (i = 0; i < n; i++)
				sc_buf_addf(sql, NULL,
				    "%sSELECT %zu AS _o, _sc_k, _sc_v, _sc_t "
				    "FROM sc_each(%s)",
				    i > 0 ? " UNION ALL " : "", i, A(i));
			sc_buf_addstr(sql, " ORDER BY _o, _sc_k)) END)", NULL);
			break;
		}
		if (n == 0) {
			sc_buf_addstr(sql, "''", NULL);
		} else {
			sc_buf_addch(sql, '(', NULL);
			for (i = 0; i < n; i++)
				sc_buf_addf(sql, NULL, "%s%s",
				    i > 0 ? " || " : "", A(i));
			if (n == 1)
				sc_buf_addstr(sql, " || ''", NULL);
			sc_buf_addch(sql, ')', NULL);
		}
		break;
	case F_SUBSTR:
		sc_buf_addf(sql, NULL, "substr(%s, iif(%s = 0, 1, %s)", A(0),
		    A(1), A(1));
		if (n == 3)
			sc_buf_addf(sql, NULL, ", max(%s, 0)", A(2));
		sc_buf_addch(sql, ')', NULL);
		if (a[0].ei.type.t != SC_ARROW_BINARY)
			sc_eng_set_type(ei, SC_ARROW_UTF8);
		break;
	case F_COUNT:
		ei->nullable = 0;
		if (star ||
		    (n == 1 &&
			f->arguments[0]->expr_type_case == SC_EXPR_(LITERAL) &&
			!f->is_distinct && a[0].ei.type.t != SC_ARROW_NULL)) {
			if (x->pivot_cond != NULL)
				sc_buf_addf(sql, NULL,
				    "count(CASE WHEN %s THEN 1 END)",
				    x->pivot_cond);
			else
				sc_buf_addstr(sql, "count(*)", NULL);
			sc_buf_addf(&ei->name, NULL, "count(%s)",
			    star ? "1" : N(0));
			break;
		}
		if (n > 1) {
			/*
			 * Rows where no argument is null; distinct: of the
			 * tuples, as one JSON array each (a column's values
			 * have one type, so equal tuples give equal text).
			 */
			sc_buf_addf(sql, NULL, "count(%sCASE WHEN ",
			    f->is_distinct ? "DISTINCT " : "");
			for (k = 0; k < n; k++)
				sc_buf_addf(sql, NULL, "%s(%s) IS NOT NULL",
				    k > 0 ? " AND " : "", A(k));
			if (f->is_distinct) {
				sc_buf_addstr(sql, " THEN json_array(", NULL);
				sc_eng_args_list(sql, a, 0, n, false);
				sc_buf_addstr(sql, ") END)", NULL);
			} else
				sc_buf_addstr(sql, " THEN 1 END)", NULL);
			sc_buf_addf(&ei->name, NULL, "count(%s",
			    f->is_distinct ? "DISTINCT " : "");
			sc_eng_args_list(&ei->name, a, 0, n, true);
			sc_buf_addch(&ei->name, ')', NULL);
			break;
		}
		/* FALLTHROUGH */
	case F_AGG:
		sc_buf_addf(sql, NULL, "%s(%s%s)", fd->sql,
		    f->is_distinct ? "DISTINCT " : "", A(0));
		sc_buf_addf(&ei->name, NULL, "%s(%s%s)", lname,
		    f->is_distinct ? "DISTINCT " : "", N(0));
		if (strcmp(fd->sql, "sum") == 0) {
			if (sc_eng_is_int_type(a[0].ei.type.t))
				sc_eng_set_type(ei, SC_ARROW_INT64);
			else if (is_num_type(a[0].ei.type.t))
				sc_eng_set_type(ei, SC_ARROW_DOUBLE);
		}
		break;
	case F_NOW:
		sc_buf_addstr(sql, fd->sql, NULL);
		sc_buf_addf(&ei->name, NULL, "%s()", lname);
		ei->nullable = 0;
		break;
	case F_DATEPART:
		sc_buf_addf(sql, NULL, "CAST(strftime('%s', %s) AS INTEGER)",
		    fd->sql, A(0));
		break;
	case F_TOTYPE:
		sc_buf_addf(sql, NULL, "sc_cast(%s, '%s', 0)", A(0), fd->sql);
		break;
	case F_NESTED:
		if (sc_eng_nested_fn(fd, fname, f, a, n, sql, ei, err) == -1)
			return -1;
		break;
	case F_GROUPING: {
		unsigned long id = 0;
		size_t gi;

		if (x->ngsql == 0) {
			sc_srv_error(err, "UNSUPPORTED_GROUPING_EXPRESSION",
			    "42K0E",
			    "grouping()/grouping_id() can only be used with "
			    "GroupingSets/Cube/Rollup.");
			return -1;
		}
		for (k = 0; k < (n > 0 ? n : x->ngsql); k++) {
			gi = k;
			if (n > 0) {
				for (gi = 0; gi < x->ngsql; gi++)
					if (strcmp(x->gsql[gi], A(k)) == 0)
						break;
				if (gi == x->ngsql) {
					sc_srv_error(err,
					    "GROUPING_COLUMN_MISMATCH", "42803",
					    "Column of grouping (%s) can't be "
					    "found in grouping columns.",
					    N(k));
					return -1;
				}
			}
			id = id << 1 | !(x->gmask >> gi & 1);
		}
		sc_buf_addf(sql, NULL, "%lu", id);
		ei->nullable = 0;
		break;
	}
	case F_MORE:
		if (sc_eng_more_call(fd, lname, a, n, sql, ei, err) == -1)
			return -1;
		break;
	case F_CALL: /* sc_eng_fncall() called fd->call */
		return -1;
	case F_TMPL:
		if (strcmp(lname, "format_number") == 0 &&
		    a[0].ei.type.t == SC_ARROW_DECIMAL128)
			/* a decimal travels as a double: give its scale */
			sc_buf_addf(sql, NULL, "sc_format_number(%s, %s, %d)",
			    A(0), A(1), a[0].ei.type.scale);
		else
			template(sql, fd->sql, a, n);
		if (strstr(fd->sql, "mod(") != NULL) {
			sc_eng_common_type(ei, a, 0, n, 1);
			if (!is_num_type(ei->type.t))
				ei->type.t = SC_ETYPE_UNKNOWN;
		}
		if (strncmp(fd->sql, "count(", 6) == 0)
			ei->nullable = 0;
		break;
	}
	return 0;
}

int
sc_eng_fncall(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedFunction *f, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_error *err)
{
	const struct sc_efdef *fd;
	struct sc_efarg *a = NULL;
	char lname[64];
	const char *fname = f->function_name != NULL ? f->function_name : "";
	size_t n = f->n_arguments, i, sql0;
	int rc = -1;
	bool star = false;

	for (i = 0; fname[i] != '\0' && i + 1 < sizeof(lname); i++)
		lname[i] = (char)tolower((unsigned char)fname[i]);
	lname[i] = '\0';
	/* Builtins resolve even when the plan marks them user-defined. */
	if ((fd = sc_eng_func_find(fname, (int)n)) == NULL) {
		struct sc_buf q;

		sc_buf_init(&q, SC_BUF_UNLIMITED);
		sc_eng_quote_ident(&q, fname);
		rc = sc_eng_unresolved_routine(x->c, (const char *)q.data, err);
		sc_buf_release(&q);
		return rc;
	}
	if ((int)n < fd->min || (fd->max >= 0 && (int)n > fd->max))
		return sc_eng_wrong_num_args(fname, fd->min, fd->max, n, err);
	if (fd->k == F_CALL)
		return fd->call(x, in, f, lname, sql, ei, err);
	if (f->is_distinct && fd->k != F_COUNT && fd->k != F_AGG)
		return sc_srv_error(err,
		    "INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX",
		    "42000",
		    "Invalid SQL syntax: The function `%s` does not support DISTINCT.",
		    fname);
	a = sc_xcalloc(n + 1, sizeof(*a));
	for (i = 0; i < n; i++) {
		sc_buf_init(&a[i].sql, SC_BUF_UNLIMITED);
		sc_eng_einfo_init(&a[i].ei);
	}
	for (i = 0; i < n; i++) {
		const Spark__Connect__Expression *ae = f->arguments[i];

		if (fd->k == F_COUNT && n == 1 &&
		    ae->expr_type_case == SC_EXPR_(UNRESOLVED_STAR)) {
			star = true;
			continue;
		}
		if (sc_eng_expr(x, in, ae, &a[i].sql, &a[i].ei, err) == -1)
			goto out;
	}
	/* The session time zone's part (engine_tz.c). */
	sc_eng_tz_args(fd, lname, a, n);
	sql0 = sql->len;
	if ((fd->k == F_ARITH || fd->k == F_DIV || fd->k == F_IDIV ||
		fd->k == F_NEG || fd->k == F_CMP || fd->k == F_NE ||
		fd->k == F_NULLSAFE) &&
	    sc_eng_legacy_strings(fd->k, fname, a, n, err) == -1)
		goto out;
	if (fd->rtype == R_ARG && n > 0)
		ei->type = a[0].ei.type;
	else
		sc_eng_set_type(ei,
		    fd->rtype == R_ARG ? SC_ETYPE_UNKNOWN : fd->rtype);
	ei->nullable = 1;
	/* Datetime and interval arithmetic: engine_interval.c. */
	if ((rc = sc_eng_interval_op(lname, a, n, sql, ei, err)) != 0) {
		rc = rc == 1 ? 0 : -1;
		goto out;
	}
	rc = -1;
	if (by_kind(x, f, fd, lname, a, n, star, sql, ei, err) == -1)
		goto out;
	sc_eng_tz_result(lname, a, n, sql, sql0);
	if (ei->name.len == 0) {
		/* Spark names RLike RLIKE(...) and shows regexp_replace's
		 * default position. */
		sc_buf_addf(&ei->name, NULL, "%s(",
		    strcmp(lname, "rlike") == 0 ? "RLIKE" : lname);
		sc_eng_args_list(&ei->name, a, 0, n, true);
		if (strcmp(lname, "regexp_replace") == 0 && n == 3)
			sc_buf_addstr(&ei->name, ", 1", NULL);
		if (strcmp(lname, "overlay") == 0 && n == 3)
			sc_buf_addstr(&ei->name, ", -1", NULL);
		sc_buf_addch(&ei->name, ')', NULL);
	}
	rc = 0;
out:
	for (i = 0; i < n; i++) {
		sc_buf_release(&a[i].sql);
		sc_eng_einfo_release(&a[i].ei);
	}
	free(a);
	return rc;
}
