/* SPDX-License-Identifier: MIT */

/*
 * engine_func_extract.c: extract(field, source) (the function form of
 * SQL's EXTRACT(field FROM source)), date_part and datepart: each field
 * is the function of that name (year(), month(), ...), with the name
 * Spark gives the column.
 */

#include "engine/plan/engine_expr_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* Spark's field names and their abbreviations, by function. */
static const struct {
	const char *fn;
	const char *names[7];
} fields[] = {
	{ "year", { "YEAR", "Y", "YEARS", "YR", "YRS", NULL } },
	{ "quarter", { "QUARTER", "QTR", NULL } },
	{ "month", { "MONTH", "MON", "MONS", "MONTHS", NULL } },
	{ "weekofyear", { "WEEK", "W", "WEEKS", NULL } },
	{ "day", { "DAY", "D", "DAYS", NULL } },
	{ "dayofweek", { "DAYOFWEEK", "DOW", NULL } },
	{ "dayofyear", { "DOY", NULL } },
	{ "hour", { "HOUR", "H", "HOURS", "HR", "HRS", NULL } },
	{ "minute", { "MINUTE", "M", "MIN", "MINS", "MINUTES", NULL } },
};

/* Fields Spark has that sc-serve does not give Spark's answer for. */
static const char *const refused[] = { "SECOND", "S", "SEC", "SECONDS", "SECS",
	"YEAROFWEEK", "DAYOFWEEK_ISO", "DOW_ISO" };

static int
sc_eng_extract(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedFunction *f, const char *lname,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	Spark__Connect__Expression__UnresolvedFunction g =
	    SPARK__CONNECT__EXPRESSION__UNRESOLVED_FUNCTION__INIT;
	const Spark__Connect__Expression__Literal *l = NULL;
	struct sc_einfo src;
	struct sc_buf ssql;
	const char *field, *fn = NULL;
	size_t i, k;
	int rc;

	if (f->arguments[0]->expr_type_case == SC_EXPR_(LITERAL))
		l = f->arguments[0]->literal;
	if (l == NULL ||
	    l->literal_type_case !=
		SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING)
		return sc_srv_error(err, "NON_FOLDABLE_ARGUMENT", "42K08",
		    "The function `%s` requires the parameter `field` to be "
		    "a foldable expression of the type \"STRING\".",
		    lname);
	field = l->string;
	/* The source's name, for the column's and the messages. */
	sc_buf_init(&ssql, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&src);
	rc = sc_eng_expr(x, in, f->arguments[1], &ssql, &src, err);
	sc_buf_release(&ssql);
	for (i = 0; fn == NULL && i < SC_NELEM(fields); i++)
		for (k = 0; fields[i].names[k] != NULL; k++)
			if (strcasecmp(field, fields[i].names[k]) == 0)
				fn = fields[i].fn;
	for (i = 0; rc == 0 && fn == NULL && i < SC_NELEM(refused); i++)
		if (strcasecmp(field, refused[i]) == 0)
			rc = sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
			    "0A000",
			    "%s() of the field %s is not supported by "
			    "sc-serve.",
			    lname, field);
	if (rc == 0 && fn == NULL)
		rc = sc_srv_error(err, "INVALID_EXTRACT_FIELD", "42601",
		    "Cannot extract \"%s\" from \"%s\".", field,
		    (const char *)src.name.data);
	if (rc == 0) {
		g.function_name = (char *)fn;
		g.n_arguments = 1;
		g.arguments = &f->arguments[1];
		rc = sc_eng_fncall(x, in, &g, sql, ei, err);
	}
	if (rc == 0) {
		/* Null only for a null date or timestamp, as in Spark. */
		if (src.type.t == SC_ARROW_DATE32 ||
		    src.type.t == SC_ARROW_TIMESTAMP_US)
			ei->nullable = src.nullable;
		sc_buf_reset(&ei->name);
		if (strcmp(lname, "extract") == 0)
			sc_buf_addf(&ei->name, NULL, "extract(%s FROM %s)",
			    field, (const char *)src.name.data);
		else
			sc_buf_addf(&ei->name, NULL, "%s(%s, %s)", lname, field,
			    (const char *)src.name.data);
	}
	sc_eng_einfo_release(&src);
	return rc;
}

static const struct sc_efdef defs[] = {
	{ "extract", F_CALL, NULL, 2, 2, R_UNK, .call = sc_eng_extract },
	{ "date_part", F_CALL, NULL, 2, 2, R_UNK, .call = sc_eng_extract },
	{ "datepart", F_CALL, NULL, 2, 2, R_UNK, .call = sc_eng_extract },
};
const struct sc_effamily sc_eng_family_extract = { "extract", defs,
	SC_NELEM(defs) };
