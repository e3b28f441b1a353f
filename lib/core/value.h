/* SPDX-License-Identifier: MIT */

/*
 * value.h: Spark's text for SQL values and types, in one place, so that
 * a value reads the same whichever side (client or server) printed it.
 *
 *   numbers   Java's Double.toString and Float.toString (JDK 19 and
 *             later, which Spark prints with), decimals as plain text;
 *   dates     days since 1970-01-01, proleptic Gregorian, both ways;
 *   times     microseconds since 1970-01-01 00:00:00, both ways.  A
 *             TIMESTAMP (an instant) and a TIMESTAMP_NTZ (a wall clock)
 *             print alike: the instant in UTC, the wall clock as is;
 *   types     DataType names as Spark spells them in three places.
 *
 * The formatters write into a caller's char array of SC_VALUE_TEXT_MAX
 * bytes, never fail, and return the text length (the NUL is written).
 * The parsers read s[0..n) (no NUL needed) and write *out only on
 * success.
 */

#ifndef SC_VALUE_H
#define SC_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_buf;
struct sc_error;
struct Spark__Connect__DataType;

/* Room for any text a formatter below writes, NUL included. */
#define SC_VALUE_TEXT_MAX 48

/* ------------------------------------------------------------ numbers */

/*
 * Java's Double.toString: the decimal of fewest digits (at least two
 * are considered, so 4.9E-324, not 5.0E-324) that reads back as v,
 * nearest to v among those; plain for 1e-3 <= |v| < 1e7 (100.0, 0.001),
 * else computerized scientific (1.0E7, 1.0E-4, -1.5E300); always a digit
 * after the point; "NaN", "Infinity", "-Infinity", "-0.0".
 */
size_t sc_value_fmt_double(double v, char *buf);
/* Java's Float.toString, by the same rules for a float: 1.4E-45. */
size_t sc_value_fmt_float(float v, char *buf);

/*
 * A DECIMAL(p, scale) value: the unscaled 128-bit two's complement
 * integer hi:lo with a point before its last scale digits, as Java's
 * BigDecimal.toPlainString: 12.30, -0.05, 7 (scale 0).  scale is
 * 0..38 (values outside are clamped).
 */
size_t sc_value_fmt_decimal(int64_t hi, uint64_t lo, int scale, char *buf);

/*
 * Spark's CAST(string AS DECIMAL(precision, scale)): optional spaces,
 * [+-]digits[.digits][e[+-]digits] (digits on either side of the point),
 * optional spaces; rounded half up (away from zero) to scale digits.
 * 0 with the unscaled value in *hi, *lo; -1 if s is not such a number;
 * -2 if it needs more than precision digits.  precision is 1..38 and
 * scale 0..precision.
 */
int sc_value_parse_decimal(const char *s, size_t n, int precision, int scale,
    int64_t *hi, uint64_t *lo);

/* ----------------------------------------------------- dates and times */

/*
 * The one civil-date arithmetic of the tree (proleptic Gregorian, the
 * calendar Spark 3+ uses): days since 1970-01-01 of year y, month m
 * (1..12), day d (1..31), and its inverse.  Any int64 y whose days fit.
 */
int64_t sc_value_days_from_civil(int64_t y, int m, int d);
void sc_value_civil_from_days(int64_t z, int64_t *y, int *m, int *d);

/*
 * YYYY-MM-DD for a date days after 1970-01-01 (before, if negative).
 * Years outside 0000..9999 carry a sign: +10000-01-01, -0001-12-31.
 */
size_t sc_value_fmt_date(int64_t days, char *buf);

/*
 * The date, a space, HH:MM:SS, and ".f" to ".ffffff" only when the
 * fraction is not zero, without trailing zeros: 2024-02-29 13:05:09.12.
 */
size_t sc_value_fmt_timestamp(int64_t us, char *buf);

/*
 * Spark's date forms, spaces around allowed: [+-]yyyy[yy][-m[m][-d[d]]],
 * optionally followed by ' ' or 'T' and anything (a time, ignored).  A
 * missing month or day is 1.  0 and the day number in *days, or -1.
 */
int sc_value_parse_date(const char *s, size_t n, int32_t *days);

/*
 * A date as above, then optionally ' ' or 'T' and h[h]:m[m][:s[s]
 * [.fraction]] (digits after the sixth are dropped), then optionally
 * a zone: Z, UTC or [+-]h[h][[:]mm], with or without a space before.
 * No zone means UTC (the server's session time zone; and what a
 * TIMESTAMP_NTZ holds).  0 and microseconds since the epoch in *us, or
 * -1 (also when the instant does not fit in 64 bits).
 */
int sc_value_parse_timestamp(const char *s, size_t n, int64_t *us);

/* ------------------------------------------------------------- types */

/* Spark SQL data types.  Add new values at the end. */
enum sc_value_type {
	SC_VALUE_VOID = 0,
	SC_VALUE_BOOLEAN,
	SC_VALUE_BYTE,
	SC_VALUE_SHORT,
	SC_VALUE_INT,
	SC_VALUE_LONG,
	SC_VALUE_FLOAT,
	SC_VALUE_DOUBLE,
	SC_VALUE_DECIMAL, /* a = precision, b = scale */
	SC_VALUE_STRING,
	SC_VALUE_CHAR, /* a = length */
	SC_VALUE_VARCHAR, /* a = length */
	SC_VALUE_BINARY,
	SC_VALUE_DATE,
	SC_VALUE_TIMESTAMP,
	SC_VALUE_TIMESTAMP_NTZ,
	SC_VALUE_INTERVAL, /* CalendarIntervalType */
	SC_VALUE_YM_INTERVAL, /* a, b = start, end: 0 year, 1 month */
	SC_VALUE_DT_INTERVAL, /* a, b = start, end: 0 day ... 3 second */
	SC_VALUE_VARIANT,
	SC_VALUE_ARRAY,
	SC_VALUE_MAP,
	SC_VALUE_STRUCT
};

/* Which of Spark's three spellings of a type. */
enum sc_value_style {
	SC_VALUE_SIMPLE = 0, /* simpleString: int, bigint, array<int>,
				map<string,int>, struct<a:int,b:string> */
	SC_VALUE_TYPENAME, /* typeName, as printSchema shows it: integer,
			      long, byte, short; nested: array, map, struct */
	SC_VALUE_SQL /* sql, as CAST and DDL show it: INT, BIGINT,
			ARRAY<INT>, MAP<STRING, INT>, STRUCT<a: INT> */
};

/*
 * Append the name of type t with its parameters a, b (see the enum) in
 * style to out.  For ARRAY, MAP and STRUCT this is the bare word (array,
 * ARRAY); sc_value_datatype_name() spells element types.  0, or -1 if
 * out's limit is hit, or t is not a type (SC_ST_INTERNAL).
 */
int sc_value_type_name(enum sc_value_type t, int a, int b,
    enum sc_value_style style, struct sc_buf *out, struct sc_error *err);

/*
 * Append the name of the DataType message t, element types included
 * (except for SC_VALUE_TYPENAME, where nested types are one word).
 * Absent decimal parameters are Spark's defaults, decimal(10,0); absent
 * interval fields mean year to month and day to second; Unparsed gives
 * its text; NULL or an unknown kind gives "unknown".  0, or -1 if out's
 * limit is hit.
 */
int sc_value_datatype_name(const struct Spark__Connect__DataType *t,
    enum sc_value_style style, struct sc_buf *out, struct sc_error *err);

#endif
