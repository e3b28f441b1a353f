/* SPDX-License-Identifier: MIT */

/*
 * engine_expr.c: Spark Connect expressions into SQLite SQL, each with
 * the column name Spark would give it and, where known, its type.
 * Functions are found in the registry (engine_fnreg.c; this file holds
 * its core family) and translated by engine_fncall.c; a name outside
 * it is UNRESOLVED_ROUTINE.  Column
 * references are engine_column.c's, literals engine_literal.c's, the
 * struct, array and map functions engine_collection.c's.
 */

#include "engine/plan/engine_expr_int.h"

#include <string.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/sql/sqlparse.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* Short names for generated constants core/protocol.h does not have. */
#define EVAL_(x) SPARK__CONNECT__EXPRESSION__CAST__EVAL_MODE__EVAL_MODE_##x

/* ------------------------------------------------------------------ */
/* Expressions                                                         */
/* ------------------------------------------------------------------ */

void
sc_eng_einfo_init(struct sc_einfo *ei)
{
	memset(ei, 0, sizeof(*ei));
	sc_buf_init(&ei->name, SC_BUF_UNLIMITED);
	ei->type.t = SC_ETYPE_UNKNOWN;
	ei->nullable = 1;
}

void
sc_eng_einfo_release(struct sc_einfo *ei)
{
	sc_buf_release(&ei->name);
	free(ei->unaliased);
	ei->unaliased = NULL;
}

void
sc_eng_set_type(struct sc_einfo *ei, int t)
{
	memset(&ei->type, 0, sizeof(ei->type));
	ei->type.t = t;
}

/* --- functions ----------------------------------------------------- */

/*
 * The registry's core family: operators, predicates, conditionals (the
 * other families' tables sit in their files; engine_fnreg.c lists
 * them).  Spark semantics kept: "/" is floating division, greatest and
 * least skip NULLs.
 */
static const struct sc_efdef defs[] = {
	{ "==", F_CMP, "=", 2, 2, SC_ARROW_BOOL, .flags = 0,
	    .aliases = SC_EF_ALIASES("=") },
	{ "!=", F_NE, "<>", 2, 2, SC_ARROW_BOOL, .flags = 0,
	    .aliases = SC_EF_ALIASES("<>") },
	{ "<", F_CMP, "<", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "<=", F_CMP, "<=", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ ">", F_CMP, ">", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ ">=", F_CMP, ">=", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "<=>", F_NULLSAFE, "IS", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "+", F_ARITH, "+", 2, 2, R_UNK, .flags = 0 },
	{ "-", F_ARITH, "-", 1, 2, R_UNK, .flags = 0 },
	{ "*", F_ARITH, "*", 2, 2, R_UNK, .flags = 0 },
	{ "%", F_ARITH, "%", 2, 2, R_UNK, .flags = 0 },
	{ "negative", F_NEG, "-", 1, 1, R_ARG, .flags = 0 },
	{ "and", F_LOGIC, "AND", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "or", F_LOGIC, "OR", 2, 2, SC_ARROW_BOOL, .flags = 0 },
	{ "not", F_NOT, "NOT", 1, 1, SC_ARROW_BOOL, .flags = 0,
	    .aliases = SC_EF_ALIASES("!") },
	{ "isnull", F_ISNULL, NULL, 1, 1, SC_ARROW_BOOL, .flags = 0 },
	{ "isnotnull", F_ISNOTNULL, NULL, 1, 1, SC_ARROW_BOOL, .flags = 0 },
	{ "in", F_IN, NULL, 1, -1, SC_ARROW_BOOL, .flags = 0 },
	{ "abs", F_SIMPLE, "abs", 1, 1, R_ARG, .flags = 0 },
	{ "current_database", F_SIMPLE, "current_database", 0, 0, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "current_schema", F_SIMPLE, "current_schema", 0, 0, SC_ARROW_UTF8,
	    .flags = 0 },
	{ "coalesce", F_COALESCE, "coalesce", 1, -1, R_UNK, .flags = 0 },
	{ "nvl", F_COALESCE, "coalesce", 2, 2, R_UNK, .flags = 0,
	    .aliases = SC_EF_ALIASES("ifnull") },
	{ "nullif", F_SIMPLE, "nullif", 2, 2, R_ARG, .flags = 0 },
	{ "nvl2", F_NVL2, NULL, 3, 3, R_UNK, .flags = 0 },
	{ "greatest", F_EXTREME, "greatest", 2, -1, R_UNK, .flags = 0 },
	{ "least", F_EXTREME, "least", 2, -1, R_UNK, .flags = 0 },
	{ "if", F_IF, NULL, 3, 3, R_UNK, .flags = 0,
	    .aliases = SC_EF_ALIASES("iff") },
	{ "when", F_WHEN, NULL, 2, -1, R_UNK, .flags = 0 },
	{ "hash", F_HASH, NULL, 1, -1, SC_ARROW_INT32, .flags = 0 },
};

const struct sc_effamily sc_eng_family_core = { "core", defs, SC_NELEM(defs) };

static bool
is_string(int t)
{
	return t == SC_ARROW_UTF8 || t == SC_ARROW_LARGE_UTF8;
}

/*
 * A string compared with a number or a boolean without ANSI mode: the
 * string cast to the other side's type (a double for a decimal), as
 * Spark's non-ANSI comparison coercion does.  Other pairs are left.
 */
static int
legacy_compare(struct sc_efarg *a)
{
	struct sc_etype to;
	struct sc_buf b;
	size_t s = is_string(a[0].ei.type.t) ? 0 : 1, o = 1 - s;
	int t = a[o].ei.type.t;

	if (!(sc_eng_is_int_type(t) || t == SC_ARROW_FLOAT ||
		t == SC_ARROW_DOUBLE || t == SC_ARROW_DECIMAL128 ||
		t == SC_ARROW_BOOL))
		return 0;
	to = a[o].ei.type;
	if (t == SC_ARROW_DECIMAL128) {
		memset(&to, 0, sizeof(to));
		to.t = SC_ARROW_DOUBLE;
	}
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_buf_addf(&b, NULL, "sc_cast(%s, '", (const char *)a[s].sql.data);
	sc_eng_type_text(&to, SC_VALUE_TYPENAME, &b);
	sc_buf_addstr(&b, "', 0, 'string')", NULL);
	sc_buf_release(&a[s].sql);
	a[s].sql = b;
	a[s].ei.type = to;
	a[s].ei.nullable = 1;
	return 0;
}

int
sc_eng_legacy_strings(int k, const char *fname, struct sc_efarg *a, size_t n,
    struct sc_error *err)
{
	struct sc_buf b;
	size_t i;
	bool str = false;

	if (sc_eng_ansi())
		return 0;
	for (i = 0; i < n; i++)
		str = str || a[i].ei.type.t == SC_ARROW_UTF8 ||
		    a[i].ei.type.t == SC_ARROW_LARGE_UTF8;
	if (!str)
		return 0;
	if ((k == F_CMP || k == F_NE || k == F_NULLSAFE) && n == 2)
		return legacy_compare(a);
	if ((k != F_ARITH && k != F_DIV) || n != 2)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "`%s` of a string with spark.sql.ansi.enabled=false is "
		    "not supported by sc-serve; add a CAST.",
		    fname);
	for (i = 0; i < n; i++) {
		if (a[i].ei.type.t != SC_ARROW_UTF8 &&
		    a[i].ei.type.t != SC_ARROW_LARGE_UTF8)
			continue;
		sc_buf_init(&b, SC_BUF_UNLIMITED);
		sc_buf_addf(&b, NULL, "sc_cast(%s, 'double', 0, 'string')",
		    (const char *)a[i].sql.data);
		sc_buf_release(&a[i].sql);
		a[i].sql = b;
		sc_eng_set_type(&a[i].ei, SC_ARROW_DOUBLE);
		a[i].ei.nullable = 1;
	}
	return 0;
}

/* A lambda variable in scope: its SQL, type and name. */
static int
lambda_var(struct sc_ectx *x,
    const Spark__Connect__Expression__UnresolvedNamedLambdaVariable *v,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	const char *name = v->n_name_parts > 0 ? v->name_parts[0] : "";
	size_t i;

	for (i = x->nlvars; i-- > 0;)
		if (strcmp(x->lvars[i].name, name) == 0) {
			sc_buf_addstr(sql, x->lvars[i].sql, NULL);
			sc_buf_addstr(&ei->name, name, NULL);
			ei->type = x->lvars[i].type;
			ei->nullable = x->lvars[i].nullable;
			return 0;
		}
	return sc_srv_error(err, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
	    "42703", "A lambda variable with name `%s` cannot be resolved.",
	    name);
}

/* a and b name the same nested type, an array's containsNull aside. */
static bool
same_nested_type(const struct sc_etype *a, const struct sc_etype *b)
{
	struct sc_buf ta, tb;
	bool same;

	if (a->t != b->t)
		return false;
	if (a->nest == b->nest)
		return true;
	sc_buf_init(&ta, SC_BUF_UNLIMITED);
	sc_buf_init(&tb, SC_BUF_UNLIMITED);
	sc_eng_type_text(a, SC_VALUE_SQL, &ta);
	sc_eng_type_text(b, SC_VALUE_SQL, &tb);
	same = !ta.failed && !tb.failed && ta.len == tb.len &&
	    memcmp(ta.data, tb.data, ta.len) == 0;
	sc_buf_release(&ta);
	sc_buf_release(&tb);
	return same;
}

static bool
is_int(int t)
{
	return t == SC_ARROW_INT8 || t == SC_ARROW_INT16 ||
	    t == SC_ARROW_INT32 || t == SC_ARROW_INT64;
}

/* The decimal digits integer type t needs (bigint: 20, as Spark). */
static int
int_digits(int t)
{
	switch (t) {
	case SC_ARROW_INT8:
		return 3;
	case SC_ARROW_INT16:
		return 5;
	case SC_ARROW_INT32:
		return 10;
	default:
		return 20;
	}
}

/*
 * Whether Spark's non-ANSI cast from type f to type t may give NULL for
 * a value that is not NULL (its Cast.forceNullable): text that does not
 * parse, a fraction that does not fit, a date from what holds none.  A
 * source type sc-serve cannot tell counts as one that may.
 */
static bool
legacy_cast_nullable(const struct sc_etype *from, const struct sc_etype *to)
{
	int f = from->t, t = to->t;

	if (f == SC_ARROW_NULL)
		return false;
	if (f == SC_ETYPE_UNKNOWN)
		return true;
	if (f == t && t != SC_ARROW_DECIMAL128)
		return false;
	if (f == SC_ARROW_UTF8 || f == SC_ARROW_LARGE_UTF8)
		return t != SC_ARROW_BINARY && t != SC_ARROW_LARGE_BINARY;
	if (t == SC_ARROW_UTF8 || t == SC_ARROW_LARGE_UTF8)
		return false;
	if ((f == SC_ARROW_FLOAT || f == SC_ARROW_DOUBLE) &&
	    t == SC_ARROW_TIMESTAMP_US)
		return true;
	if ((f == SC_ARROW_FLOAT || f == SC_ARROW_DOUBLE ||
		f == SC_ARROW_DECIMAL128) &&
	    is_int(t))
		return true;
	if (f == SC_ARROW_TIMESTAMP_US && t == SC_ARROW_DATE32)
		return false;
	if (t == SC_ARROW_DATE32)
		return true;
	if (f == SC_ARROW_DATE32 && t == SC_ARROW_TIMESTAMP_US)
		return false;
	if (f == SC_ARROW_DATE32)
		return true;
	if (t == SC_ARROW_DECIMAL128 && f == SC_ARROW_DECIMAL128)
		return to->prec - to->scale < from->prec - from->scale ||
		    to->scale < from->scale;
	if (t == SC_ARROW_DECIMAL128)
		/* Only an integer that always fits cannot. */
		return !is_int(f) || to->prec - to->scale < int_digits(f);
	return false;
}

static int
cast(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__Cast *c, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_error *err)
{
	struct sc_buf inner, tn;
	struct sc_einfo iei;
	struct sc_etype to;
	int mode, ic, rc = -1;

	if (c->expr == NULL)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A cast has no expression.");
	if (c->cast_to_type_case ==
	    SPARK__CONNECT__EXPRESSION__CAST__CAST_TO_TYPE_TYPE) {
		if (sc_eng_type_from_proto(c->type, &to, err) == -1)
			return -1;
	} else if (c->cast_to_type_case ==
	    SPARK__CONNECT__EXPRESSION__CAST__CAST_TO_TYPE_TYPE_STR) {
		if (sc_eng_parse_type(c->type_str, strlen(c->type_str), false,
			&to) == -1)
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.DATA_TYPE", "0A000",
			    "The data type '%s' is not supported by sc-serve.",
			    c->type_str);
	} else {
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A cast has no target type.");
	}
	mode = c->eval_mode == EVAL_(TRY) || c->eval_mode == EVAL_(LEGACY);
	sc_buf_init(&inner, SC_BUF_UNLIMITED);
	sc_buf_init(&tn, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&iei);
	if (sc_eng_expr(x, in, c->expr, &inner, &iei, err) == -1)
		goto out;
	/* To or from an interval: engine_interval.c. */
	ic = sc_eng_interval_cast(&iei, (const char *)inner.data, &to,
	    mode != 0, sql, err);
	if (ic == -1)
		goto out;
	if (ic == 1) {
		/* sql is set */
	} else if (to.t == SC_ARROW_STRUCT || to.t == SC_ARROW_LIST ||
	    to.t == SC_ARROW_MAP) {
		/*
		 * To a nested type: a NULL (of type void) is a null of that
		 * type and a value of the same type (containsNull aside)
		 * stays itself; converting between nested types is not done.
		 */
		if (iei.type.t == SC_ARROW_NULL)
			sc_buf_addstr(sql, "NULL", NULL);
		else if (same_nested_type(&iei.type, &to))
			sc_buf_addf(sql, NULL, "(%s)",
			    (const char *)inner.data);
		else {
			sc_eng_type_text(&to, SC_VALUE_SQL, &tn);
			sc_srv_error(err, "UNSUPPORTED_FEATURE.DATA_TYPE",
			    "0A000",
			    "A cast to %s from anything but NULL or that type "
			    "is not supported by sc-serve.",
			    (const char *)tn.data);
			goto out;
		}
	} else {
		sc_buf_addf(sql, NULL, "sc_cast(%s, '",
		    (const char *)inner.data);
		sc_eng_type_text(&to, SC_VALUE_TYPENAME, sql);
		sc_buf_addf(sql, NULL, "', %d", mode);
		if (iei.type.t != SC_ETYPE_UNKNOWN) {
			sc_buf_addstr(sql, ", '", NULL);
			sc_eng_type_text(&iei.type, SC_VALUE_TYPENAME, sql);
			sc_buf_addch(sql, '\'', NULL);
		}
		sc_buf_addch(sql, ')', NULL);
		/* STRING COLLATE UTF8_LCASE: engine_interval.c's collation. */
		if (to.t == SC_ARROW_UTF8 && to.prec == SC_ECOLL_LCASE)
			sc_buf_addstr(sql, " COLLATE UTF8_LCASE", NULL);
	}
	sc_eng_type_text(&to, SC_VALUE_SQL, &tn);
	sc_buf_addf(&ei->name, NULL, "CAST(%s AS %s)",
	    (const char *)iei.name.data, (const char *)tn.data);
	ei->type = to;
	ei->nullable = mode != 0 || iei.nullable ||
	    (!sc_eng_ansi() && legacy_cast_nullable(&iei.type, &to));
	rc = 0;
out:
	sc_buf_release(&inner);
	sc_buf_release(&tn);
	sc_eng_einfo_release(&iei);
	return rc;
}

/*
 * SQL expression text (F.expr(), selectExpr, filter("...")) through the
 * Spark SQL parser and this translator, whose name resolution honours
 * spark.sql.caseSensitive=true (SQLite's would not).  Text the parser
 * does not take as one expression is refused.
 */
static int
expression_text(struct sc_ectx *x, const struct sc_eplan *in, const char *s,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	Spark__Connect__Relation *r = NULL;
	char *q = sc_xasprintf("SELECT %s", s);
	size_t hidden = 0;
	int rc;

	rc = sc_sqlparse(q, &r, &hidden, err);
	free(q);
	if (rc == SC_SQLPARSE_ERROR)
		return -1;
	if (rc == SC_SQLPARSE_OK && r->rel_type_case == SC_REL_(PROJECT) &&
	    r->project->input == NULL && r->project->n_expressions == 1 &&
	    hidden == 0) {
		sc_buf_addch(sql, '(', NULL);
		rc = sc_eng_expr(x, in, r->project->expressions[0], sql, ei,
		    err);
		sc_buf_addch(sql, ')', NULL);
		if (rc == 0 && !ei->aliased) {
			sc_buf_reset(&ei->name);
			sc_buf_addstr(&ei->name, s, NULL);
		}
	} else {
		rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "The SQL expression '%s' is not one that the Spark SQL "
		    "parser of sc-serve takes.",
		    s);
	}
	if (r != NULL)
		protobuf_c_message_free_unpacked(&r->base, NULL);
	return rc;
}

int
sc_eng_expr(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression *e, struct sc_buf *sql,
    struct sc_einfo *ei, struct sc_error *err)
{
	int rc;

	if (e == NULL)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "An expression is missing.");
	if (sc_eng_deeper(x, err) == -1)
		return -1;
	switch (e->expr_type_case) {
	case SC_EXPR_(LITERAL):
		rc = sc_eng_literal(e->literal, sql, ei, err);
		break;
	case SC_EXPR_(UNRESOLVED_ATTRIBUTE):
		if (x->pivot_cond != NULL) {
			/* Inside a pivot value's aggregate: its rows only. */
			struct sc_buf ax;

			sc_buf_init(&ax, SC_BUF_UNLIMITED);
			rc = sc_eng_attribute(in, e->unresolved_attribute, &ax,
			    ei, err);
			if (rc == 0)
				sc_buf_addf(sql, NULL,
				    "(CASE WHEN %s THEN %s END)", x->pivot_cond,
				    (const char *)ax.data);
			sc_buf_release(&ax);
			break;
		}
		rc =
		    sc_eng_attribute(in, e->unresolved_attribute, sql, ei, err);
		break;
	case SC_EXPR_(UNRESOLVED_FUNCTION):
		rc = sc_eng_fncall(x, in, e->unresolved_function, sql, ei, err);
		break;
	case SC_EXPR_(CALL_FUNCTION): {
		/* call_function(name, ...): the builtin of that name. */
		Spark__Connect__Expression__UnresolvedFunction f =
		    SPARK__CONNECT__EXPRESSION__UNRESOLVED_FUNCTION__INIT;

		f.function_name = e->call_function->function_name;
		f.n_arguments = e->call_function->n_arguments;
		f.arguments = e->call_function->arguments;
		rc = sc_eng_fncall(x, in, &f, sql, ei, err);
		break;
	}
	case SC_EXPR_(EXPRESSION_STRING): {
		const char *s = e->expression_string->expression;

		if (s == NULL)
			s = "";
		/* Through the Spark SQL parser: no client text reaches SQLite. */
		rc = expression_text(x, in, s, sql, ei, err);
		break;
	}
	case SC_EXPR_(ALIAS): {
		const Spark__Connect__Expression__Alias *a = e->alias;

		if (a->n_name != 1) {
			rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
			    "0A000",
			    "An alias with %zu names (a multi-column "
			    "alias) is not supported by sc-serve.",
			    a->n_name);
			break;
		}
		rc = sc_eng_expr(x, in, a->expr, sql, ei, err);
		if (rc == 0) {
			/* f(x AS y) is Spark's name for an aliased argument. */
			free(ei->unaliased);
			ei->unaliased = sc_xstrdup((const char *)ei->name.data);
			sc_buf_reset(&ei->name);
			sc_buf_addstr(&ei->name, a->name[0], NULL);
			ei->aliased = true;
		}
		break;
	}
	case SC_EXPR_(CAST):
		rc = cast(x, in, e->cast, sql, ei, err);
		break;
	case SC_EXPR_(WINDOW):
		rc = sc_eng_window(x, in, e->window, sql, ei, err);
		break;
	case SC_EXPR_(UNRESOLVED_NAMED_LAMBDA_VARIABLE):
		rc = lambda_var(x, e->unresolved_named_lambda_variable, sql, ei,
		    err);
		break;
	case SC_EXPR_(UNRESOLVED_EXTRACT_VALUE):
		rc = sc_eng_extract_value(x, in, e->unresolved_extract_value,
		    sql, ei, err);
		break;
	case SC_EXPR_(UNRESOLVED_STAR):
		rc = sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A star (*) can only be a projected column or the "
		    "argument of count().");
		break;
	case SC_EXPR_(SORT_ORDER):
		rc = sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "A sort order can only be used in a sort.");
		break;
	default:
		rc = sc_eng_unsupported_expression(e, err);
		break;
	}
	x->depth--;
	return rc;
}

/*
 * A select list's cast of a column is named as the column, as Spark's
 * analyzer names it (CAST(id AS STRING) is "id"); nested in another
 * expression it keeps its CAST(...) text.
 */
int
sc_eng_cast_name(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression *e, struct sc_einfo *ei,
    struct sc_error *err)
{
	struct sc_einfo cei;
	struct sc_buf csql;
	int rc;

	if (e == NULL || e->expr_type_case != SC_EXPR_(CAST) ||
	    e->cast->expr == NULL ||
	    e->cast->expr->expr_type_case != SC_EXPR_(UNRESOLVED_ATTRIBUTE))
		return 0;
	sc_buf_init(&csql, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&cei);
	rc = sc_eng_expr(x, in, e->cast->expr, &csql, &cei, err);
	if (rc == 0) {
		sc_buf_reset(&ei->name);
		sc_buf_add(&ei->name, cei.name.data, cei.name.len, NULL);
	}
	sc_buf_release(&csql);
	sc_eng_einfo_release(&cei);
	return rc;
}
