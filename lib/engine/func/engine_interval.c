/* SPDX-License-Identifier: MIT */

/*
 * engine_interval.c: Spark's ANSI interval types in the SQLite engine.
 * A day-time interval (SC_ARROW_DURATION_US) is an INTEGER of
 * microseconds, a year-month one (SC_ARROW_INTERVAL_YM) an INTEGER of
 * months; the etype's prec and scale hold its start and end fields.
 * Here: type names, literals (the protocol's and SQL text's INTERVAL
 * forms, with Spark's names), and the arithmetic Spark's analyzer
 * rewrites: date - date, timestamp - timestamp, date and timestamp ±
 * interval, interval ± interval, interval * and / number, date ±
 * integer.  What sc-serve cannot answer as Spark does is refused by
 * name, never computed on the dates' text.  COLLATE is engine_collate.c's;
 * the SQLite functions of its SQL are engine_interval_fn.c's.
 */

#include "engine/plan/engine_expr_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/value.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

#define A(i) ((const char *)a[i].sql.data)
#define N(i) ((const char *)a[i].ei.name.data)
#define A0(e) ((const char *)(e)->sql.data)

#define US_DAY 86400000000LL
#define DT SC_ARROW_DURATION_US
#define YM SC_ARROW_INTERVAL_YM

/* Fields: DAY HOUR MINUTE SECOND (0..3), YEAR MONTH (0..1). */
static const char *const dt_fields[] = { "day", "hour", "minute", "second" };
static const char *const ym_fields[] = { "year", "month" };
static const int64_t dt_unit[] = { US_DAY, 3600000000LL, 60000000LL,
	1000000LL };

static void
set_ival(struct sc_etype *t, int kind, int start, int end)
{
	memset(t, 0, sizeof(*t));
	t->t = kind;
	t->prec = start;
	t->scale = end;
}

/* A field name ("day", "days"): its kind (DT, YM) and number, or -1. */
static int
field_of(const char *w, size_t n, int *kind)
{
	size_t i, k;

	if (n > 1 && (w[n - 1] == 's' || w[n - 1] == 'S'))
		n--;
	for (i = 0; i < SC_NELEM(dt_fields); i++) {
		k = strlen(dt_fields[i]);
		if (k == n && strncasecmp(w, dt_fields[i], n) == 0) {
			*kind = DT;
			return (int)i;
		}
	}
	for (i = 0; i < SC_NELEM(ym_fields); i++) {
		k = strlen(ym_fields[i]);
		if (k == n && strncasecmp(w, ym_fields[i], n) == 0) {
			*kind = YM;
			return (int)i;
		}
	}
	return -1;
}

int
sc_eng_interval_parse_type(const char *base, struct sc_etype *out)
{
	const char *p = base + 8, *w;
	int k1, k2, f1, f2;

	if (*p++ != ' ')
		return -1;
	w = p;
	while (*p != '\0' && *p != ' ' && *p != '_')
		p++;
	if ((f1 = field_of(w, (size_t)(p - w), &k1)) == -1 ||
	    (size_t)(p - w) != strlen(k1 == DT ? dt_fields[f1] : ym_fields[f1]))
		return -1;
	f2 = f1;
	k2 = k1;
	if (strncmp(p, " to ", 4) == 0 || strncmp(p, "_to_", 4) == 0) {
		w = p + 4;
		if ((f2 = field_of(w, strlen(w), &k2)) == -1 ||
		    strlen(w) !=
			strlen(k2 == DT ? dt_fields[f2] : ym_fields[f2]))
			return -1;
		if (k2 != k1 || f2 <= f1)
			return -1;
	} else if (*p != '\0') {
		return -1;
	}
	set_ival(out, k1, f1, f2);
	return 0;
}

void
sc_eng_interval_decl(const struct sc_etype *t, struct sc_buf *out)
{
	const char *const *f = t->t == DT ? dt_fields : ym_fields;
	const char *s;

	sc_buf_addstr(out, "INTERVAL ", NULL);
	for (s = f[t->prec]; *s != '\0'; s++)
		sc_buf_addch(out, (char)toupper((unsigned char)*s), NULL);
	if (t->scale == t->prec)
		return;
	sc_buf_addstr(out, "_TO_", NULL);
	for (s = f[t->scale]; *s != '\0'; s++)
		sc_buf_addch(out, (char)toupper((unsigned char)*s), NULL);
}

int
sc_eng_interval_from_proto(const Spark__Connect__DataType *t,
    struct sc_etype *out, struct sc_error *err)
{
	int s, e, max;

	if (t->kind_case == SPARK__CONNECT__DATA_TYPE__KIND_DAY_TIME_INTERVAL) {
		const Spark__Connect__DataType__DayTimeInterval *d =
		    t->day_time_interval;

		s = d->_start_field_case ==
			SPARK__CONNECT__DATA_TYPE__DAY_TIME_INTERVAL___START_FIELD_START_FIELD
		    ? d->start_field
		    : 0;
		e = d->_end_field_case ==
			SPARK__CONNECT__DATA_TYPE__DAY_TIME_INTERVAL___END_FIELD_END_FIELD
		    ? d->end_field
		    : 3;
		max = 3;
		set_ival(out, DT, s, e);
	} else {
		const Spark__Connect__DataType__YearMonthInterval *y =
		    t->year_month_interval;

		s = y->_start_field_case ==
			SPARK__CONNECT__DATA_TYPE__YEAR_MONTH_INTERVAL___START_FIELD_START_FIELD
		    ? y->start_field
		    : 0;
		e = y->_end_field_case ==
			SPARK__CONNECT__DATA_TYPE__YEAR_MONTH_INTERVAL___END_FIELD_END_FIELD
		    ? y->end_field
		    : 1;
		max = 1;
		set_ival(out, YM, s, e);
	}
	if (s < 0 || e > max || s > e)
		return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
		    "Invalid interval type fields %d to %d.", s, e);
	return 0;
}

/* Spark's string form of value v of interval type t. */
static void
ival_text(const struct sc_etype *t, int64_t v, char *buf)
{
	if (t->t == YM)
		sc_arrow_fmt_ym_interval(v, t->prec, t->scale, buf);
	else
		sc_arrow_fmt_dt_interval(v, t->prec, t->scale, buf);
}

/* A literal: value v of type (kind, start, end) as SQL, name and type. */
static void
put_literal(int kind, int start, int end, int64_t v, struct sc_buf *sql,
    struct sc_einfo *ei)
{
	char b[SC_ARROW_INTERVAL_TEXT];

	set_ival(&ei->type, kind, start, end);
	sc_buf_addf(sql, NULL, v < 0 ? "(%lld)" : "%lld", (long long)v);
	ival_text(&ei->type, v, b);
	sc_buf_reset(&ei->name);
	sc_buf_addstr(&ei->name, b, NULL);
	ei->nullable = 0;
}

int
sc_eng_interval_literal(const Spark__Connect__Expression__Literal *l,
    struct sc_buf *sql, struct sc_einfo *ei)
{
	if (l->literal_type_case ==
	    SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_YEAR_MONTH_INTERVAL)
		put_literal(YM, 0, 1, l->year_month_interval, sql, ei);
	else
		put_literal(DT, 0, 3, l->day_time_interval, sql, ei);
	return 0;
}

/* ---- SQL text's INTERVAL literals ---------------------------------- */

static int
bad_literal(const char *text, const char *why, struct sc_error *err)
{
	return sc_srv_error(err, "INVALID_INTERVAL_FORMAT", "22006",
	    "Error parsing interval literal '%s': %s.", text, why);
}

/*
 * A number at *s: digits, with a fraction when frac (at most 9 digits,
 * kept to microseconds, truncated as Spark does).  *ip the whole part,
 * *us the fraction in microseconds.
 */
static int
read_num(const char **s, bool frac, int64_t *ip, int64_t *us)
{
	const char *p = *s;
	int64_t v = 0, f = 0;
	int d = 0;

	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (INT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	if (frac && *p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, d++) {
			if (d >= 9)
				return -1;
			if (d < 6)
				f = f * 10 + (*p - '0');
		}
		for (; d < 6; d++)
			f *= 10;
	}
	*s = p;
	*ip = v;
	*us = f;
	return 0;
}

/* v * m + add within int64, else -1. */
static int
mul_add(int64_t v, int64_t m, int64_t add, int64_t *out)
{
	if (v < 0 || (m != 0 && v > (INT64_MAX - add) / m))
		return -1;
	*out = v * m + add;
	return 0;
}

/* 'text' FIELD [TO FIELD]: the value of a qualified string literal. */
int
sc_eng_interval_qualified(const char *text, int kind, int start, int end,
    int64_t *out)
{
	const char *p = text;
	int64_t v = 0, part, us = 0, total = 0;
	bool neg = false;
	int f;

	/* Fields: YEAR 0, MONTH 1; DAY 0, HOUR 1, MINUTE 2, SECOND 3. */
	if (start < 0 || start > end || end > (kind == YM ? 1 : 3))
		return -1;
	while (*p == ' ')
		p++;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (kind == YM) {
		if (read_num(&p, false, &v, &us) == -1)
			return -1;
		if (start == 0 && end == 1) {
			if (*p++ != '-' ||
			    read_num(&p, false, &part, &us) == -1 ||
			    part > 11 || mul_add(v, 12, part, &v) == -1)
				return -1;
		} else if (start == 0 && mul_add(v, 12, 0, &v) == -1) {
			return -1;
		}
		total = v;
		if (total > (int64_t)INT32_MAX + (neg ? 1 : 0))
			return -1;
	} else {
		for (f = start; f <= end; f++) {
			if (f > start && *p++ != (f == 1 ? ' ' : ':'))
				return -1;
			if (read_num(&p, f == 3, &part, &us) == -1)
				return -1;
			if (f > start && part >= (f == 1 ? 24 : 60))
				return -1;
			if (mul_add(part, dt_unit[f], us, &part) == -1 ||
			    total > INT64_MAX - part)
				return -1;
			total += part;
		}
	}
	while (*p == ' ')
		p++;
	if (*p != '\0')
		return -1;
	*out = neg ? -total : total;
	return 0;
}

/*
 * sc_interval_literal(parts...): what sqlparse_expr.c makes of INTERVAL
 * in SQL text, each part a string: a value ("'" then a string's text,
 * or a number's), a field name, or "to".  Either 'text' FIELD [to
 * FIELD], or value FIELD [value FIELD ...].
 */
static int
sql_literal(const Spark__Connect__Expression__UnresolvedFunction *f,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	const char *s[32];
	size_t n = f->n_arguments, i;
	int kind = 0, k, start = 9, end = -1, fld, fld2;
	int64_t total = 0, v, us;
	const char *p;

	if (n == 0 || n > SC_NELEM(s) || (n % 2 == 1 && n != 1))
		goto bad;
	for (i = 0; i < n; i++) {
		const Spark__Connect__Expression *e = f->arguments[i];

		if (e->expr_type_case != SC_EXPR_(LITERAL) ||
		    e->literal->literal_type_case !=
			SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING)
			goto bad;
		s[i] = e->literal->string;
	}
	if (n == 1)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "INTERVAL '%s' without fields is not supported by "
		    "sc-serve: write INTERVAL '...' DAY TO SECOND or the like.",
		    s[0] + (s[0][0] == '\''));
	if (s[0][0] == '\'' &&
	    (n == 2 || (n == 4 && strcmp(s[2], "to") == 0))) {
		fld = field_of(s[1], strlen(s[1]), &kind);
		fld2 = n == 4 ? field_of(s[3], strlen(s[3]), &k) : fld;
		if (fld == -1 || fld2 == -1 || (n == 4 && k != kind) ||
		    fld2 < fld)
			goto bad;
		if (sc_eng_interval_qualified(s[0] + 1, kind, fld, fld2,
			&total) == -1)
			return bad_literal(s[0] + 1,
			    "it does not match the interval's fields", err);
		put_literal(kind, fld, fld2, total, sql, ei);
		return 0;
	}
	for (i = 0; i + 1 < n; i += 2) {
		bool neg = false;
		int64_t part;
		int wk;

		p = s[i] + (s[i][0] == '\'');
		if (*p == '-' || *p == '+')
			neg = *p++ == '-';
		if (strncasecmp(s[i + 1], "week", 4) == 0 &&
		    strlen(s[i + 1]) <= 5) {
			fld = 0;
			wk = DT;
		} else if (strncasecmp(s[i + 1], "millisecond", 11) == 0 ||
		    strncasecmp(s[i + 1], "microsecond", 11) == 0) {
			fld = 3;
			wk = DT;
		} else if ((fld = field_of(s[i + 1], strlen(s[i + 1]), &wk)) ==
		    -1) {
			goto bad;
		}
		if (i > 0 && wk != kind)
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
			    "An INTERVAL literal mixing year-month and "
			    "day-time fields (a calendar interval) is not "
			    "supported by sc-serve.");
		kind = wk;
		if (read_num(&p, wk == DT && fld == 3, &v, &us) == -1 ||
		    *p != '\0')
			return bad_literal(s[i] + (s[i][0] == '\''),
			    "a field's value is not a number it can take", err);
		if (wk == YM)
			k = mul_add(v, fld == 0 ? 12 : 1, 0, &part);
		else if (tolower((unsigned char)s[i + 1][0]) == 'w')
			k = mul_add(v, 7 * US_DAY, 0, &part);
		else if (strncasecmp(s[i + 1], "milli", 5) == 0)
			k = mul_add(v, 1000, us / 1000000, &part);
		else if (strncasecmp(s[i + 1], "micro", 5) == 0)
			k = mul_add(v, 1, 0, &part);
		else
			k = mul_add(v, dt_unit[fld], us, &part);
		if (k == -1 ||
		    (neg ? total < INT64_MIN + part : total > INT64_MAX - part))
			return bad_literal(s[i], "it overflows", err);
		total += neg ? -part : part;
		start = fld < start ? fld : start;
		end = fld > end ? fld : end;
	}
	if (kind == YM && (total > INT32_MAX || total < INT32_MIN))
		return bad_literal(s[0], "it overflows", err);
	put_literal(kind, start, end, total, sql, ei);
	return 0;
bad:
	return sc_srv_error(err, "INVALID_PLAN_INPUT", "22023",
	    "Malformed INTERVAL literal.");
}

/* ---- functions: make_dt_interval, make_ym_interval ---------------- */

/* SQL text's INTERVAL literal, as the parser hands it on. */
static int
literal_call(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedFunction *f, const char *lname,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	(void)x;
	(void)in;
	(void)lname;
	return sql_literal(f, sql, ei, err);
}

static int
make_interval_call(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedFunction *f, const char *lname,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	struct sc_efarg a[4];
	size_t n = f->n_arguments, i, max;
	bool dt = strcmp(lname, "make_dt_interval") == 0;
	int rc = -1;

	max = dt ? 4 : 2;
	for (i = 0; i < n; i++) {
		sc_buf_init(&a[i].sql, SC_BUF_UNLIMITED);
		sc_eng_einfo_init(&a[i].ei);
	}
	for (i = 0; i < n; i++)
		if (sc_eng_expr(x, in, f->arguments[i], &a[i].sql, &a[i].ei,
			err) == -1)
			goto out;
	/* Missing arguments are 0; NULL in any gives NULL. */
	sc_buf_addf(sql, NULL, "sc_make_interval(%d", dt ? 1 : 0);
	for (i = 0; i < max; i++)
		sc_buf_addf(sql, NULL, ", %s", i < n ? A(i) : "0");
	sc_buf_addch(sql, ')', NULL);
	sc_buf_addf(&ei->name, NULL, "%s(", lname);
	for (i = 0; i < max; i++) {
		if (i > 0)
			sc_buf_addstr(&ei->name, ", ", NULL);
		if (i < n)
			sc_buf_addstr(&ei->name, N(i), NULL);
		else
			sc_buf_addstr(&ei->name,
			    dt && i == 3 ? "0.000000" : "0", NULL);
	}
	sc_buf_addch(&ei->name, ')', NULL);
	if (dt)
		set_ival(&ei->type, DT, 0, 3);
	else
		set_ival(&ei->type, YM, 0, 1);
	ei->nullable = 1;
	rc = 0;
out:
	for (i = 0; i < n; i++) {
		sc_buf_release(&a[i].sql);
		sc_eng_einfo_release(&a[i].ei);
	}
	return rc;
}

static const struct sc_efdef defs[] = {
	{ "make_dt_interval", F_CALL, NULL, 0, 4, R_UNK,
	    .call = make_interval_call },
	{ "make_ym_interval", F_CALL, NULL, 0, 2, R_UNK,
	    .call = make_interval_call },
	/* SQL text's INTERVAL '...' unit literals (sqlparse_interval.c). */
	{ "sc_interval_literal", F_CALL, NULL, 0, -1, R_UNK,
	    .call = literal_call },
};
const struct sc_effamily sc_eng_family_interval = { "interval", defs,
	SC_NELEM(defs) };

/* ---- arithmetic ---------------------------------------------------- */

static bool
is_datetime(int t)
{
	return t == SC_ARROW_DATE32 || t == SC_ARROW_TIMESTAMP_US;
}

static bool
is_small_int(int t)
{
	return t == SC_ARROW_INT8 || t == SC_ARROW_INT16 || t == SC_ARROW_INT32;
}

static bool
is_number(int t)
{
	return sc_eng_is_int_type(t) || t == SC_ARROW_FLOAT ||
	    t == SC_ARROW_DOUBLE || t == SC_ARROW_DECIMAL128;
}

static bool
is_ival(int t)
{
	return t == DT || t == YM;
}

/* date + n, n + date, date - n: Spark's date_add and date_sub. */
static void
date_add(const char *d, const char *k, const char *dn, const char *kn, bool sub,
    struct sc_buf *sql, struct sc_einfo *ei)
{
	sc_buf_addf(sql, NULL,
	    "CASE WHEN (%s) IS NULL THEN NULL ELSE date(%s, printf('%%+d "
	    "days', %s(%s))) END",
	    k, d, sub ? "-" : "", k);
	sc_buf_addf(&ei->name, NULL, "%s(%s, %s)",
	    sub ? "date_sub" : "date_add", dn, kn);
	sc_eng_set_type(ei, SC_ARROW_DATE32);
}

/* A timestamp (or a date, at midnight) plus microseconds us. */
static void
ts_plus(const char *ts, const char *us, bool sub, struct sc_buf *sql)
{
	sc_buf_addf(sql, NULL,
	    "sc_us_ts(sc_ival_chk(sc_ts_us(%s) %c (%s), 64))", ts,
	    sub ? '-' : '+', us);
}

/* A date or timestamp plus months m (the day kept within the month). */
static void
months_plus(const char *d, bool date, const char *m, bool sub,
    struct sc_buf *sql)
{
	if (date)
		sc_buf_addf(sql, NULL, "sc_add_months(%s, %s(%s))", d,
		    sub ? "-" : "", m);
	else
		sc_buf_addf(sql, NULL,
		    "(sc_add_months(substr(%s, 1, 10), %s(%s)) || substr(%s, "
		    "11))",
		    d, sub ? "-" : "", m, d);
}

/* Whether the session's time zone is UTC (no offset, ever). */
static bool
utc_session(void)
{
	const struct sc_tz *z = sc_eng_tz_current();

	return (z->data == NULL && z->fixed == 0) ||
	    strcmp(z->id, "UTC") == 0 || strcmp(z->id, "Etc/UTC") == 0 ||
	    strcmp(z->id, "Z") == 0;
}

/*
 * Whether datetime d ± interval i needs the session's wall clock, which
 * this arithmetic does not take yet: a date plus hours (a timestamp at
 * the date's local midnight) or a timestamp plus months (its local date).
 */
static bool
zoned(const struct sc_etype *d, const struct sc_etype *i)
{
	if (utc_session())
		return false;
	if (d->t == SC_ARROW_DATE32)
		return i->t == DT && !(i->prec == 0 && i->scale == 0);
	return i->t == YM && !d->ntz;
}

static int
local_refused(const char *lname, struct sc_error *err)
{
	return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
	    "The feature is not supported: a date or timestamp %s an "
	    "interval that needs the session time zone's wall clock (a date "
	    "and hours, a timestamp and months) when the zone is not UTC.",
	    lname);
}

/* datetime ± interval: l the datetime, r the interval. */
static void
datetime_interval(struct sc_efarg *l, struct sc_efarg *r, bool sub,
    bool swapped, struct sc_buf *sql, struct sc_einfo *ei)
{
	const struct sc_etype *it = &r->ei.type;
	const char *ln = (const char *)l->ei.name.data;
	const char *rn = (const char *)r->ei.name.data;
	bool date = l->ei.type.t == SC_ARROW_DATE32;

	if (it->t == DT && date && it->prec == 0 && it->scale == 0) {
		/* DateAdd(l, ExtractANSIIntervalDays(r)): still a date. */
		sc_buf_addf(sql, NULL,
		    "CASE WHEN (%s) IS NULL THEN NULL ELSE date(%s, "
		    "printf('%%+lld days', %s(%s) / %lld)) END",
		    A0(r), A0(l), sub ? "-" : "", A0(r), (long long)US_DAY);
		sc_buf_addf(&ei->name, NULL,
		    sub ? "date_add(%s, (- extractansiintervaldays(%s)))"
			: "date_add(%s, extractansiintervaldays(%s))",
		    ln, rn);
		sc_eng_set_type(ei, SC_ARROW_DATE32);
		return;
	}
	if (it->t == DT) {
		ts_plus(A0(l), A0(r), sub, sql);
		sc_eng_set_type(ei, SC_ARROW_TIMESTAMP_US);
		ei->type.ntz = !date && l->ei.type.ntz;
	} else {
		months_plus(A0(l), date, A0(r), sub, sql);
		ei->type = l->ei.type;
	}
	if (swapped)
		sc_buf_addf(&ei->name, NULL, "%s + %s", rn, ln);
	else
		sc_buf_addf(&ei->name, NULL, "%s %c %s", ln, sub ? '-' : '+',
		    rn);
}

/* Functions and operators that take intervals as Spark does here. */
static const char *const ival_ok[] = { "=", "==", "<", "<=", ">",
	">=", "!=", "<>", "<=>", "+", "-", "*", "/", "negative", "positive",
	"count", "min", "max", "coalesce", "nvl", "nvl2", "if", "when",
	"isnull", "isnotnull", "typeof", "first", "last", "any_value", "nullif",
	"in", "greatest", "least", "first_value", "last_value", "lag", "lead",
	"nth_value" };

int
sc_eng_interval_cast(const struct sc_einfo *e, const char *inner,
    const struct sc_etype *to, bool try_mode, struct sc_buf *sql,
    struct sc_error *err)
{
	const struct sc_etype *from = &e->type;
	struct sc_buf tn;

	if (!is_ival(from->t) && !is_ival(to->t))
		return 0;
	if (from->t == SC_ARROW_NULL) {
		sc_buf_addstr(sql, "NULL", NULL);
		return 1;
	}
	if (is_ival(from->t) && to->t == SC_ARROW_UTF8) {
		sc_buf_addf(sql, NULL, "sc_ival_text(%s, %d, %d, %d)", inner,
		    from->t == YM, from->prec, from->scale);
		return 1;
	}
	if (is_ival(from->t) && from->t == to->t) {
		/* To other fields: truncated to the new end field. */
		int64_t u = from->t == DT ? dt_unit[to->scale]
		    : to->scale == 0	  ? 12
					  : 1;

		sc_buf_addf(sql, NULL, "((%s) - (%s) %% %lld)", inner, inner,
		    (long long)u);
		return 1;
	}
	if (is_ival(from->t) && sc_eng_is_int_type(to->t) &&
	    from->prec == from->scale) {
		int64_t u = from->t == DT ? dt_unit[from->prec]
		    : from->prec == 0	  ? 12
					  : 1;

		sc_buf_addf(sql, NULL, "sc_intop((%s) / %lld, '+', 0, %d)",
		    inner, (long long)u,
		    to->t == SC_ARROW_INT8	  ? 8
			: to->t == SC_ARROW_INT16 ? 16
			: to->t == SC_ARROW_INT32 ? 32
						  : 64);
		return 1;
	}
	if (is_ival(to->t) && sc_eng_is_int_type(from->t) &&
	    to->prec == to->scale) {
		int64_t u = to->t == DT ? dt_unit[to->prec]
		    : to->prec == 0	? 12
					: 1;

		sc_buf_addf(sql, NULL, "sc_ival_muldiv(%lld, %s, '*', %d)",
		    (long long)u, inner, to->t == DT ? 64 : 32);
		return 1;
	}
	if (is_ival(to->t) &&
	    (from->t == SC_ARROW_UTF8 || from->t == SC_ARROW_LARGE_UTF8)) {
		sc_buf_addf(sql, NULL, "sc_ival_parse(%s, %d, %d, %d, %d)",
		    inner, to->t == YM, to->prec, to->scale, try_mode);
		return 1;
	}
	sc_buf_init(&tn, SC_BUF_UNLIMITED);
	sc_eng_type_text(is_ival(from->t) ? to : from, SC_VALUE_SQL, &tn);
	sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
	    "A cast %s %s is not supported by sc-serve.",
	    is_ival(from->t) ? "to" : "from", (const char *)tn.data);
	sc_buf_release(&tn);
	return -1;
}

int
sc_eng_interval_op(const char *lname, struct sc_efarg *a, size_t n,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	int t0, t1;
	size_t i, k;
	char op;

	if (n == 2 && sc_eng_collate_cmp(lname, a, sql, ei))
		return 1;
	for (i = 0; i < n; i++)
		if (is_ival(a[i].ei.type.t))
			break;
	if (i < n) {
		for (k = 0; k < SC_NELEM(ival_ok); k++)
			if (strcmp(ival_ok[k], lname) == 0)
				break;
		if (k == SC_NELEM(ival_ok))
			return sc_srv_error(err,
			    "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
			    "%s() of an interval (argument %zu, %s) is not "
			    "supported by sc-serve.",
			    lname, i + 1, N(i));
	}
	if (i < n && n == 2 && strchr("=<>!", lname[0]) != NULL &&
	    a[0].ei.type.t != a[1].ei.type.t &&
	    a[0].ei.type.t != SC_ARROW_NULL &&
	    a[1].ei.type.t != SC_ARROW_NULL &&
	    a[0].ei.type.t != SC_ETYPE_UNKNOWN &&
	    a[1].ei.type.t != SC_ETYPE_UNKNOWN)
		/* An interval against a number or the other kind. */
		return sc_srv_error(err,
		    "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES", "42K09",
		    "Cannot resolve \"(%s %s %s)\" due to data type mismatch: "
		    "the left and right operands of the binary operator have "
		    "incompatible types.",
		    N(0), lname, N(1));
	if (n != 2 || lname[0] == '\0' || lname[1] != '\0' ||
	    strchr("+-*/%", lname[0]) == NULL)
		return 0;
	op = lname[0];
	t0 = a[0].ei.type.t;
	t1 = a[1].ei.type.t;
	if (!is_datetime(t0) && !is_datetime(t1) && !is_ival(t0) &&
	    !is_ival(t1))
		return 0;
	ei->nullable = a[0].ei.nullable != 0 || a[1].ei.nullable != 0;
	if (t0 == SC_ARROW_DATE32 && is_small_int(t1) &&
	    (op == '+' || op == '-')) {
		date_add(A(0), A(1), N(0), N(1), op == '-', sql, ei);
		return 1;
	}
	if (t1 == SC_ARROW_DATE32 && is_small_int(t0) && op == '+') {
		date_add(A(1), A(0), N(1), N(0), false, sql, ei);
		return 1;
	}
	if (op == '-' && is_datetime(t0) && is_datetime(t1)) {
		if (t0 != t1 && !utc_session())
			return local_refused(lname, err);
		if (t0 == SC_ARROW_DATE32 && t1 == SC_ARROW_DATE32) {
			sc_buf_addf(sql, NULL,
			    "(CAST(julianday(%s) - julianday(%s) AS INTEGER) "
			    "* %lld)",
			    A(0), A(1), (long long)US_DAY);
			set_ival(&ei->type, DT, 0, 0);
		} else {
			sc_buf_addf(sql, NULL,
			    "sc_ival_chk(sc_ts_us(%s) - sc_ts_us(%s), 64)",
			    A(0), A(1));
			set_ival(&ei->type, DT, 0, 3);
		}
		sc_buf_addf(&ei->name, NULL, "(%s - %s)", N(0), N(1));
		return 1;
	}
	if (is_datetime(t0) && is_ival(t1) && (op == '+' || op == '-')) {
		if (zoned(&a[0].ei.type, &a[1].ei.type))
			return local_refused(lname, err);
		datetime_interval(&a[0], &a[1], op == '-', false, sql, ei);
		return 1;
	}
	if (is_ival(t0) && is_datetime(t1) && op == '+') {
		if (zoned(&a[1].ei.type, &a[0].ei.type))
			return local_refused(lname, err);
		datetime_interval(&a[1], &a[0], false, true, sql, ei);
		return 1;
	}
	if (is_ival(t0) && t0 == t1 && (op == '+' || op == '-')) {
		sc_buf_addf(sql, NULL, "sc_ival_chk(%s %c %s, %d)", A(0), op,
		    A(1), t0 == DT ? 64 : 32);
		sc_buf_addf(&ei->name, NULL, "(%s %c %s)", N(0), op, N(1));
		set_ival(&ei->type, t0,
		    a[0].ei.type.prec < a[1].ei.type.prec ? a[0].ei.type.prec
							  : a[1].ei.type.prec,
		    a[0].ei.type.scale > a[1].ei.type.scale
			? a[0].ei.type.scale
			: a[1].ei.type.scale);
		return 1;
	}
	if ((op == '*' && is_ival(t0) && is_number(t1)) ||
	    (op == '*' && is_number(t0) && is_ival(t1)) ||
	    (op == '/' && is_ival(t0) && is_number(t1))) {
		int it = is_ival(t0) ? 0 : 1;

		sc_buf_addf(sql, NULL, "sc_ival_muldiv(%s, %s, '%c', %d)",
		    A(it), A(1 - it), op, a[it].ei.type.t == DT ? 64 : 32);
		sc_buf_addf(&ei->name, NULL, "(%s %c %s)", N(0), op, N(1));
		if (a[it].ei.type.t == DT)
			set_ival(&ei->type, DT, 0, 3);
		else
			set_ival(&ei->type, YM, 0, 1);
		return 1;
	}
	if ((t0 == SC_ARROW_NULL || t1 == SC_ARROW_NULL) &&
	    (is_ival(t0) || is_ival(t1)) && (op == '+' || op == '-')) {
		int it = is_ival(t0) ? 0 : 1;

		sc_buf_addstr(sql, "NULL", NULL);
		sc_buf_addf(&ei->name, NULL, "(%s %c %s)", N(0), op, N(1));
		ei->type = a[it].ei.type;
		return 1;
	}
	sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
	    "(%s %c %s) is not supported by sc-serve for these argument types.",
	    N(0), op, N(1));
	return -1;
}

bool
sc_eng_interval_cell(const struct sc_etype *t, const struct sc_arrow_batch *b,
    size_t col, size_t row, struct sc_buf *out)
{
	char buf[SC_ARROW_INTERVAL_TEXT];
	int64_t v;

	if (!is_ival(t->t) || sc_arrow_get_int64(b, col, row, &v) == -1)
		return false;
	ival_text(t, v, buf);
	sc_buf_addstr(out, buf, NULL);
	return true;
}
