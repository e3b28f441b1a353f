/* SPDX-License-Identifier: MIT */

/*
 * test-value.c: Spark's text for values and types, table-driven.  The
 * double and float rows are what Java's Double.toString and
 * Float.toString (JDK 19 and later) print; the date and time rows are
 * what java.time prints for the same instants (with a space for the T).
 */

#include "core/value.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/protocol.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

/* ------------------------------------------------------------ numbers */

static const struct {
	double v;
	const char *java;
} doubles[] = {
	{ 0.0, "0.0" },
	{ -0.0, "-0.0" },
	{ 1.0, "1.0" },
	{ -1.0, "-1.0" },
	{ 100.0, "100.0" },
	{ 0.1, "0.1" },
	{ 0.3, "0.3" },
	{ 3.14159, "3.14159" },
	{ 0.001, "0.001" }, /* the smallest plain one */
	{ 9.99e-4, "9.99E-4" },
	{ 1e-4, "1.0E-4" },
	{ 9999999.0, "9999999.0" }, /* the largest plain one */
	{ 1e7, "1.0E7" },
	{ 1234567.0, "1234567.0" },
	{ 12345678.0, "1.2345678E7" },
	{ 123456789.0, "1.23456789E8" },
	{ 1e21, "1.0E21" },
	{ 1e23, "1.0E23" },
	{ 2e23, "2.0E23" }, /* older JDKs: 1.9999999999999998E23 */
	{ -1.5e300, "-1.5E300" },
	/* Two digits are considered when one would do: the nearer wins. */
	{ 4.9e-324, "4.9E-324" }, /* Double.MIN_VALUE, not 5.0E-324 */
	{ 2 * 4.9e-324, "9.9E-324" },
	{ DBL_MAX, "1.7976931348623157E308" },
	{ DBL_MIN, "2.2250738585072014E-308" },
	{ 0x0.fffffffffffffp-1022, "2.225073858507201E-308" },
	/*
	 * Powers of two, where the rounding interval is half as wide below
	 * as above: the nearest 16-digit decimal lies below, outside it,
	 * and the one above is the answer (not 17 digits).
	 */
	{ 0x1p-662, "5.225680706521042E-200" },
	{ 0x1p-808, "5.858190679279809E-244" },
	{ 0x1p-140, "7.174648137343064E-43" },
	{ 0x1p-496, "4.887898181599368E-150" },
	{ 0x1p345, "7.167183174968974E103" },
	{ NAN, "NaN" },
	{ INFINITY, "Infinity" },
	{ -INFINITY, "-Infinity" },
};

static const struct {
	float v;
	const char *java;
} floats[] = {
	{ 0.0f, "0.0" },
	{ -0.0f, "-0.0" },
	{ 1.0f, "1.0" },
	{ 0.1f, "0.1" }, /* not 0.10000000149011612 */
	{ 1e7f, "1.0E7" },
	{ 123456789.0f, "1.2345679E8" }, /* older JDKs: 1.23456792E8 */
	{ 1.4e-45f, "1.4E-45" }, /* Float.MIN_VALUE, not 1.0E-45 */
	{ FLT_MAX, "3.4028235E38" },
	{ FLT_MIN, "1.1754944E-38" },
	{ 3.14159f, "3.14159" },
	{ NAN, "NaN" },
	{ -INFINITY, "-Infinity" },
};

static const struct {
	int64_t hi;
	uint64_t lo;
	int scale;
	const char *text;
} decimals[] = {
	{ 0, 1230, 2, "12.30" },
	{ -1, (uint64_t)-5, 2, "-0.05" },
	{ 0, 7, 0, "7" },
	{ 0, 0, 0, "0" },
	{ 0, 0, 3, "0.000" },
	{ -1, (uint64_t)-123, 1, "-12.3" },
	/* 10^38 - 1, the largest DECIMAL(38, s) */
	{ 0x4b3b4ca85a86c47a, 0x098a223fffffffff, 38,
	    "0.99999999999999999999999999999999999999" },
	{ 0x4b3b4ca85a86c47a, 0x098a223fffffffff, 0,
	    "99999999999999999999999999999999999999" },
	{ INT64_MIN, 0, 0, "-170141183460469231731687303715884105728" },
	{ INT64_MIN, 0, 38, "-1.70141183460469231731687303715884105728" },
};

/* CAST(text AS DECIMAL(p, s)): the result as text, or "-1" / "-2". */
static const struct {
	int p, s;
	const char *in;
	const char *out;
} dec_parses[] = {
	{ 5, 2, "123.456", "123.46" },
	{ 5, 2, "123.454", "123.45" },
	{ 5, 2, "-0.005", "-0.01" }, /* half up: away from zero */
	{ 5, 2, "0.004", "0.00" },
	{ 5, 2, "-0.004", "0.00" },
	{ 5, 2, " 1e2 ", "100.00" },
	{ 5, 2, "1E+2", "100.00" },
	{ 5, 2, "12345e-4", "1.23" },
	{ 5, 2, "+.5", "0.50" },
	{ 5, 2, "5.", "5.00" },
	{ 5, 2, "999.994", "999.99" },
	{ 5, 2, "999.995", "-2" }, /* rounds up to 1000.00 */
	{ 5, 2, "1000", "-2" },
	{ 5, 2, "abc", "-1" },
	{ 5, 2, "", "-1" },
	{ 5, 2, " ", "-1" },
	{ 5, 2, ".", "-1" },
	{ 5, 2, "1.2.3", "-1" },
	{ 5, 2, "1e", "-1" },
	{ 5, 2, "1e+", "-1" },
	{ 5, 2, "--1", "-1" },
	{ 5, 2, "1 2", "-1" },
	{ 5, 2, "0x10", "-1" },
	{ 10, 0, "-0", "0" },
	{ 10, 0, "000000000000000000000000000000000000000000000012", "12" },
	{ 10, 2, "1.000000000000000000000000000000000000000000000000001",
	    "1.00" },
	{ 38, 0, "99999999999999999999999999999999999999",
	    "99999999999999999999999999999999999999" },
	{ 38, 0, "100000000000000000000000000000000000000", "-2" },
	{ 38, 0, "-99999999999999999999999999999999999999",
	    "-99999999999999999999999999999999999999" },
	{ 38, 38, "0.1", "0.10000000000000000000000000000000000000" },
	{ 3, 0, "1e99999999", "-2" },
	{ 3, 0, "0e99999999", "0" },
	{ 3, 0, "1e-99999", "0" },
	{ 3, 1, "9.96", "10.0" },
	{ 2, 1, "9.96", "-2" },
	{ 2, 1, "9.94", "9.9" },
};

static void
test_numbers(void)
{
	char buf[SC_VALUE_TEXT_MAX], want[16];
	size_t i, n;
	int64_t hi;
	uint64_t lo;
	int rc;

	for (i = 0; i < SC_NELEM(doubles); i++) {
		n = sc_value_fmt_double(doubles[i].v, buf);
		is_str(buf, doubles[i].java, "doubles[%zu]", i);
		is_int(n, strlen(doubles[i].java), "  length");
	}
	for (i = 0; i < SC_NELEM(floats); i++) {
		n = sc_value_fmt_float(floats[i].v, buf);
		is_str(buf, floats[i].java, "floats[%zu]", i);
		is_int(n, strlen(floats[i].java), "  length");
	}
	for (i = 0; i < SC_NELEM(decimals); i++) {
		n = sc_value_fmt_decimal(decimals[i].hi, decimals[i].lo,
		    decimals[i].scale, buf);
		is_str(buf, decimals[i].text, "decimals[%zu]", i);
		is_int(n, strlen(decimals[i].text), "  length");
	}
	for (i = 0; i < SC_NELEM(dec_parses); i++) {
		rc = sc_value_parse_decimal(dec_parses[i].in,
		    strlen(dec_parses[i].in), dec_parses[i].p, dec_parses[i].s,
		    &hi, &lo);
		if (rc == 0)
			sc_value_fmt_decimal(hi, lo, dec_parses[i].s, buf);
		else
			snprintf(buf, sizeof(buf), "%d", rc);
		snprintf(want, sizeof(want), "(%d,%d)", dec_parses[i].p,
		    dec_parses[i].s);
		is_str(buf, dec_parses[i].out, "CAST('%s' AS DECIMAL%s)",
		    dec_parses[i].in, want);
	}
	/* Only n bytes are read: no NUL needed after them. */
	is_int(sc_value_parse_decimal("12.345", 4, 5, 1, &hi, &lo), 0,
	    "decimal parse reads n bytes");
	is_int((int64_t)lo, 123, "  12.3 of 12.345");
}

/* Significant digits in Java text: first to last non-zero digit. */
static int
sig_digits(const char *s)
{
	const char *p, *first = NULL, *last = NULL;
	int n = 0;

	for (p = s; *p != '\0' && *p != 'E'; p++)
		if (*p >= '1' && *p <= '9') {
			if (first == NULL)
				first = p;
			last = p;
		}
	for (p = first; p != NULL && p <= last; p++)
		n += *p >= '0' && *p <= '9';
	return n;
}

/*
 * Every double and float reads back as itself, in at most 17 (9)
 * significant digits; a quarter of each are powers of two.
 */
static void
test_round_trip(void)
{
	char buf[SC_VALUE_TEXT_MAX];
	uint64_t x = 0x9e3779b97f4a7c15u, u;
	uint32_t u32;
	size_t i, n = 0, bad = 0, longer = 0;
	double d;
	float f;

	for (i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		u = i % 4 == 0 ? (x & 0xfff0000000000000u) : x;
		memcpy(&d, &u, 8);
		if (isfinite(d) && d != 0) {
			sc_value_fmt_double(d, buf);
			bad += strtod(buf, NULL) != d;
			longer += sig_digits(buf) > 17;
			n++;
		}
		u32 = (uint32_t)(x >> 32);
		if (i % 4 == 1)
			u32 &= 0xff800000u;
		memcpy(&f, &u32, 4);
		if (isfinite(f) && f != 0) {
			sc_value_fmt_float(f, buf);
			bad += strtof(buf, NULL) != f;
			longer += sig_digits(buf) > 9;
			n++;
		}
	}
	ok(n > 190000, "%zu random doubles and floats", n);
	is_int(bad, 0, "  each reads back as itself");
	is_int(longer, 0, "  in at most 17 (float: 9) digits");
}

/* ----------------------------------------------------- dates and times */

static const struct {
	int64_t days;
	const char *text;
} dates[] = {
	{ 0, "1970-01-01" },
	{ -1, "1969-12-31" },
	{ 19782, "2024-02-29" },
	{ 2932896, "9999-12-31" },
	{ 2932897, "+10000-01-01" },
	{ -719162, "0001-01-01" },
	{ -719528, "0000-01-01" },
	{ -719529, "-0001-12-31" },
	{ INT32_MIN, "-5877641-06-23" },
	{ INT32_MAX, "+5881580-07-11" },
};

static const struct {
	int64_t us;
	const char *text;
} stamps[] = {
	{ 0, "1970-01-01 00:00:00" },
	{ 1, "1970-01-01 00:00:00.000001" },
	{ -1, "1969-12-31 23:59:59.999999" },
	{ 1709211909120000, "2024-02-29 13:05:09.12" },
	{ 253402300799999999, "9999-12-31 23:59:59.999999" },
	{ 253402300800000000, "+10000-01-01 00:00:00" },
	{ -62167219200000001, "-0001-12-31 23:59:59.999999" },
	{ INT64_MIN, "-290308-12-21 19:59:05.224192" },
	{ INT64_MAX, "+294247-01-10 04:00:54.775807" },
};

/* Text to days: the day number, or INT64_MIN for "not a date". */
static const struct {
	const char *in;
	int64_t days;
} date_parses[] = {
	{ "2024-02-29", 19782 },
	{ " 2024-02-29\t", 19782 },
	{ "2024-1-5", 19727 },
	{ "2024-03", 19783 },
	{ "2024", 19723 },
	{ "+2024-01-01", 19723 },
	{ "-0001-01-01", -719893 },
	{ "2024-02-29T10:00", 19782 },
	{ "2024-02-29 anything", 19782 },
	{ "2023-02-29", INT64_MIN },
	{ "2024-13-01", INT64_MIN },
	{ "2024-00-01", INT64_MIN },
	{ "2024-01-32", INT64_MIN },
	{ "24-01-01", INT64_MIN },
	{ "2024-01-01x", INT64_MIN },
	{ "2024-", INT64_MIN },
	{ "1234567-01-01", INT64_MIN },
	{ "", INT64_MIN },
	{ "+999999-12-31", 364522971 },
	{ "-999999-01-01", -365961662 },
};

static const struct {
	const char *in;
	int64_t us;
	bool ok;
} stamp_parses[] = {
	{ "1970-01-01 00:00:00", 0, true },
	{ "1970-01-01", 0, true },
	{ "1970-01-01T00:00:00.000001Z", 1, true },
	{ "1970-01-01 01:00:00+01:00", 0, true },
	{ "1970-01-01 01:00:00 +01", 0, true },
	{ "1970-01-01 00:00:00 UTC", 0, true },
	{ "1970-01-01 00:00:00utc", 0, true },
	{ "1970-01-01 00:00:00-0130", 5400000000, true },
	{ "1970-01-01 1:2", 3720000000, true },
	{ "1970-01-01 00:00:00.1234567", 123456, true },
	{ "2024-02-29 13:05:09.12", 1709211909120000, true },
	{ "+294247-01-10 04:00:54.775807", INT64_MAX, true },
	{ "-290308-12-21 19:59:05.224192", INT64_MIN, true },
	{ "+294247-01-10 04:00:54.775808", 0, false },
	{ "+999999-01-01", 0, false },
	{ "1970-01-01 24:00:00", 0, false },
	{ "1970-01-01 00:60", 0, false },
	{ "1970-01-01 00", 0, false },
	{ "1970-01-01 00:00:00+19", 0, false },
	{ "1970-01-01 00:00:00 PST", 0, false },
	{ "1970-01-01 00:00:00Zx", 0, false },
};

static void
test_dates(void)
{
	char buf[SC_VALUE_TEXT_MAX];
	size_t i, n;
	int64_t us;
	int32_t d;
	int rc;

	for (i = 0; i < SC_NELEM(dates); i++) {
		n = sc_value_fmt_date(dates[i].days, buf);
		is_str(buf, dates[i].text, "dates[%zu]", i);
		is_int(n, strlen(dates[i].text), "  length");
	}
	for (i = 0; i < SC_NELEM(stamps); i++) {
		n = sc_value_fmt_timestamp(stamps[i].us, buf);
		is_str(buf, stamps[i].text, "stamps[%zu]", i);
		is_int(n, strlen(stamps[i].text), "  length");
	}
	for (i = 0; i < SC_NELEM(date_parses); i++) {
		d = 12345;
		rc = sc_value_parse_date(date_parses[i].in,
		    strlen(date_parses[i].in), &d);
		if (date_parses[i].days == INT64_MIN)
			ok(rc == -1 && d == 12345, "not a date: '%s'",
			    date_parses[i].in);
		else
			ok(rc == 0 && d == date_parses[i].days,
			    "date '%s' is day %lld", date_parses[i].in,
			    (long long)date_parses[i].days);
	}
	for (i = 0; i < SC_NELEM(stamp_parses); i++) {
		us = 12345;
		rc = sc_value_parse_timestamp(stamp_parses[i].in,
		    strlen(stamp_parses[i].in), &us);
		if (!stamp_parses[i].ok)
			ok(rc == -1 && us == 12345, "not a timestamp: '%s'",
			    stamp_parses[i].in);
		else
			ok(rc == 0 && us == stamp_parses[i].us,
			    "timestamp '%s' is %lld us", stamp_parses[i].in,
			    (long long)stamp_parses[i].us);
	}
	/* Each printed form reads back. */
	for (i = 0; i < SC_NELEM(stamps); i++) {
		n = sc_value_fmt_timestamp(stamps[i].us, buf);
		ok(sc_value_parse_timestamp(buf, n, &us) == 0 &&
			us == stamps[i].us,
		    "'%s' reads back", buf);
	}
}

/* ------------------------------------------------------------- types */

/* DataType builders over a static pool: the test frees nothing. */
static Spark__Connect__DataType pool[64];
static size_t npool;

static Spark__Connect__DataType *
dt(Spark__Connect__DataType__KindCase k)
{
	Spark__Connect__DataType *t = &pool[npool++];

	spark__connect__data_type__init(t);
	t->kind_case = k;
	return t;
}

#define K(x) SPARK__CONNECT__DATA_TYPE__KIND_##x

static Spark__Connect__DataType *
dt_decimal(int p, int s)
{
	static Spark__Connect__DataType__Decimal d[4];
	static size_t nd;
	Spark__Connect__DataType *t = dt(K(DECIMAL));

	spark__connect__data_type__decimal__init(&d[nd]);
	if (p >= 0) {
		d[nd]._precision_case =
		    SPARK__CONNECT__DATA_TYPE__DECIMAL___PRECISION_PRECISION;
		d[nd].precision = p;
		d[nd]._scale_case =
		    SPARK__CONNECT__DATA_TYPE__DECIMAL___SCALE_SCALE;
		d[nd].scale = s;
	}
	t->decimal = &d[nd++];
	return t;
}

static Spark__Connect__DataType *
dt_array(Spark__Connect__DataType *e)
{
	static Spark__Connect__DataType__Array a[4];
	static size_t na;
	Spark__Connect__DataType *t = dt(K(ARRAY));

	spark__connect__data_type__array__init(&a[na]);
	a[na].element_type = e;
	t->array = &a[na++];
	return t;
}

static Spark__Connect__DataType *
dt_map(Spark__Connect__DataType *k, Spark__Connect__DataType *v)
{
	static Spark__Connect__DataType__Map m[4];
	static size_t nm;
	Spark__Connect__DataType *t = dt(K(MAP));

	spark__connect__data_type__map__init(&m[nm]);
	m[nm].key_type = k;
	m[nm].value_type = v;
	t->map = &m[nm++];
	return t;
}

static Spark__Connect__DataType *
dt_struct2(const char *n1, Spark__Connect__DataType *t1, const char *n2,
    Spark__Connect__DataType *t2)
{
	static Spark__Connect__DataType__Struct st[4];
	static Spark__Connect__DataType__StructField f[8];
	static Spark__Connect__DataType__StructField *fp[8];
	static size_t ns, nf;
	Spark__Connect__DataType *t = dt(K(STRUCT));

	spark__connect__data_type__struct__init(&st[ns]);
	spark__connect__data_type__struct_field__init(&f[nf]);
	spark__connect__data_type__struct_field__init(&f[nf + 1]);
	f[nf].name = (char *)n1;
	f[nf].data_type = t1;
	f[nf + 1].name = (char *)n2;
	f[nf + 1].data_type = t2;
	fp[nf] = &f[nf];
	fp[nf + 1] = &f[nf + 1];
	st[ns].n_fields = 2;
	st[ns].fields = &fp[nf];
	nf += 2;
	t->struct_ = &st[ns++];
	return t;
}

/* An interval type; start, end < 0 leave the field absent. */
static Spark__Connect__DataType *
dt_interval(bool ym, int start, int end)
{
	static Spark__Connect__DataType__YearMonthInterval y[4];
	static Spark__Connect__DataType__DayTimeInterval d[4];
	static size_t ny, nd;
	Spark__Connect__DataType *t;

	if (ym) {
		t = dt(K(YEAR_MONTH_INTERVAL));
		spark__connect__data_type__year_month_interval__init(&y[ny]);
		if (start >= 0) {
			y[ny]._start_field_case =
			    SPARK__CONNECT__DATA_TYPE__YEAR_MONTH_INTERVAL___START_FIELD_START_FIELD;
			y[ny].start_field = start;
		}
		if (end >= 0) {
			y[ny]._end_field_case =
			    SPARK__CONNECT__DATA_TYPE__YEAR_MONTH_INTERVAL___END_FIELD_END_FIELD;
			y[ny].end_field = end;
		}
		t->year_month_interval = &y[ny++];
		return t;
	}
	t = dt(K(DAY_TIME_INTERVAL));
	spark__connect__data_type__day_time_interval__init(&d[nd]);
	if (start >= 0) {
		d[nd]._start_field_case =
		    SPARK__CONNECT__DATA_TYPE__DAY_TIME_INTERVAL___START_FIELD_START_FIELD;
		d[nd].start_field = start;
	}
	if (end >= 0) {
		d[nd]._end_field_case =
		    SPARK__CONNECT__DATA_TYPE__DAY_TIME_INTERVAL___END_FIELD_END_FIELD;
		d[nd].end_field = end;
	}
	t->day_time_interval = &d[nd++];
	return t;
}

static Spark__Connect__DataType *
dt_len(Spark__Connect__DataType__KindCase k, int len)
{
	static Spark__Connect__DataType__Char c[2];
	static Spark__Connect__DataType__VarChar v[2];
	static size_t nc, nv;
	Spark__Connect__DataType *t = dt(k);

	if (k == K(CHAR)) {
		spark__connect__data_type__char__init(&c[nc]);
		c[nc].length = len;
		t->char_ = &c[nc++];
	} else {
		spark__connect__data_type__var_char__init(&v[nv]);
		v[nv].length = len;
		t->var_char = &v[nv++];
	}
	return t;
}

static Spark__Connect__DataType *
dt_unparsed(const char *s)
{
	static Spark__Connect__DataType__Unparsed u;
	Spark__Connect__DataType *t = dt(K(UNPARSED));

	spark__connect__data_type__unparsed__init(&u);
	u.data_type_string = (char *)s;
	t->unparsed = &u;
	return t;
}

struct type_row {
	const Spark__Connect__DataType *t;
	const char *simple, *type_name, *sql;
};

static void
test_types(void)
{
	const struct type_row rows[] = {
		{ dt(K(NULL)), "void", "void", "VOID" },
		{ dt(K(BOOLEAN)), "boolean", "boolean", "BOOLEAN" },
		{ dt(K(BYTE)), "tinyint", "byte", "TINYINT" },
		{ dt(K(SHORT)), "smallint", "short", "SMALLINT" },
		{ dt(K(INTEGER)), "int", "integer", "INT" },
		{ dt(K(LONG)), "bigint", "long", "BIGINT" },
		{ dt(K(FLOAT)), "float", "float", "FLOAT" },
		{ dt(K(DOUBLE)), "double", "double", "DOUBLE" },
		{ dt_decimal(10, 2), "decimal(10,2)", "decimal(10,2)",
		    "DECIMAL(10,2)" },
		{ dt_decimal(-1, 0), "decimal(10,0)", "decimal(10,0)",
		    "DECIMAL(10,0)" },
		{ dt(K(STRING)), "string", "string", "STRING" },
		{ dt_len(K(CHAR), 5), "char(5)", "char(5)", "CHAR(5)" },
		{ dt_len(K(VAR_CHAR), 20), "varchar(20)", "varchar(20)",
		    "VARCHAR(20)" },
		{ dt(K(BINARY)), "binary", "binary", "BINARY" },
		{ dt(K(DATE)), "date", "date", "DATE" },
		{ dt(K(TIMESTAMP)), "timestamp", "timestamp", "TIMESTAMP" },
		{ dt(K(TIMESTAMP_NTZ)), "timestamp_ntz", "timestamp_ntz",
		    "TIMESTAMP_NTZ" },
		{ dt(K(CALENDAR_INTERVAL)), "interval", "interval",
		    "INTERVAL" },
		{ dt_interval(true, -1, -1), "interval year to month",
		    "interval year to month", "INTERVAL YEAR TO MONTH" },
		{ dt_interval(true, 1, 1), "interval month", "interval month",
		    "INTERVAL MONTH" },
		{ dt_interval(false, -1, -1), "interval day to second",
		    "interval day to second", "INTERVAL DAY TO SECOND" },
		{ dt_interval(false, 1, 2), "interval hour to minute",
		    "interval hour to minute", "INTERVAL HOUR TO MINUTE" },
		{ dt_interval(false, 0, 0), "interval day", "interval day",
		    "INTERVAL DAY" },
		{ dt(K(VARIANT)), "variant", "variant", "VARIANT" },
		{ dt_array(dt(K(INTEGER))), "array<int>", "array",
		    "ARRAY<INT>" },
		{ dt_map(dt(K(STRING)), dt(K(INTEGER))), "map<string,int>",
		    "map", "MAP<STRING, INT>" },
		{ dt_struct2("a", dt(K(INTEGER)), "b c",
		      dt_array(dt_decimal(5, 1))),
		    "struct<a:int,b c:array<decimal(5,1)>>", "struct",
		    "STRUCT<a: INT, `b c`: ARRAY<DECIMAL(5,1)>>" },
		{ dt_struct2("1", dt(K(LONG)), "x`y", dt(K(DATE))),
		    "struct<1:bigint,x`y:date>", "struct",
		    "STRUCT<`1`: BIGINT, `x``y`: DATE>" },
		{ dt_unparsed("geometry"), "geometry", "geometry", "geometry" },
		{ NULL, "unknown", "unknown", "unknown" },
		{ dt(K(_NOT_SET)), "unknown", "unknown", "unknown" },
	};
	static const enum sc_value_style styles[] = { SC_VALUE_SIMPLE,
		SC_VALUE_TYPENAME, SC_VALUE_SQL };
	const char *want;
	struct sc_buf b;
	struct sc_error err;
	size_t i, j;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	for (i = 0; i < SC_NELEM(rows); i++)
		for (j = 0; j < SC_NELEM(styles); j++) {
			want = j == 0 ? rows[i].simple
			    : j == 1  ? rows[i].type_name
				      : rows[i].sql;
			sc_buf_reset(&b);
			ok(sc_value_datatype_name(rows[i].t, styles[j], &b,
			       &err) == 0,
			    "type %s (style %zu)", want, j);
			is_str((char *)b.data, want, "  spelled");
		}
	sc_buf_reset(&b);
	is_int(sc_value_type_name(SC_VALUE_DECIMAL, 38, 4, SC_VALUE_SQL, &b,
		   &err),
	    0, "a flat type by its enum");
	is_str((char *)b.data, "DECIMAL(38,4)", "  spelled");
	sc_error_init(&err);
	is_int(sc_value_type_name((enum sc_value_type)99, 0, 0, SC_VALUE_SIMPLE,
		   &b, &err),
	    -1, "not a type");
	is_int(err.status, SC_ST_INTERNAL, "  a caller bug");
	sc_buf_release(&b);

	/* A bounded buffer: the error, and no partial name kept. */
	sc_buf_init(&b, 8);
	sc_error_init(&err);
	is_int(sc_value_datatype_name(rows[26].t, SC_VALUE_SIMPLE, &b, &err),
	    -1, "type name over the buffer limit fails");
	is_int(err.status, SC_ST_PROTOCOL, "  with the buffer's error");
	is_int(b.len, 0, "  and nothing kept");
	sc_buf_release(&b);
}

int
main(void)
{
	test_numbers();
	test_round_trip();
	test_dates();
	test_types();
	return tap_done();
}
