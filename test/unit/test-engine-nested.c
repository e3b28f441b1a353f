/* SPDX-License-Identifier: MIT */

/*
 * test-engine-nested.c: the engine's nested types (engine_nested.c):
 * DDL type names read and written in Spark's spellings, interning, and
 * nested values (the JSON text SQLite holds) written into Arrow struct,
 * list and map columns, malformed text refused.
 */

#include "engine/engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arrow.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

/* Parse s; its simpleString and SQL names into *simple, *sql (static). */
static int
names(const char *s, const char **simple, const char **sql)
{
	static char b1[256], b2[256];
	struct sc_etype t;
	struct sc_buf a, b;

	if (sc_eng_parse_type(s, strlen(s), false, &t) == -1)
		return -1;
	sc_buf_init(&a, SC_BUF_UNLIMITED);
	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_eng_type_text(&t, SC_VALUE_SIMPLE, &a);
	sc_eng_type_text(&t, SC_VALUE_SQL, &b);
	snprintf(b1, sizeof(b1), "%s", (const char *)a.data);
	snprintf(b2, sizeof(b2), "%s", (const char *)b.data);
	sc_buf_release(&a);
	sc_buf_release(&b);
	*simple = b1;
	*sql = b2;
	return 0;
}

static void
test_type_names(void)
{
	static const struct {
		const char *in, *simple, *sql;
	} ok_cases[] = {
		{ "struct<a:int,b:array<string>>",
		    "struct<a:int,b:array<string>>",
		    "STRUCT<a: INT, b: ARRAY<STRING>>" },
		{ " MAP < string , array<bigint> > ",
		    "map<string,array<bigint>>", "MAP<STRING, ARRAY<BIGINT>>" },
		{ "struct<`x y`: decimal(5,2) NOT NULL COMMENT 'c, d', z "
		  "date>",
		    "struct<x y:decimal(5,2),z:date>",
		    "STRUCT<`x y`: DECIMAL(5,2) NOT NULL, z: DATE>" },
		{ "array<struct<m:map<int,timestamp_ntz>>>",
		    "array<struct<m:map<int,timestamp_ntz>>>",
		    "ARRAY<STRUCT<m: MAP<INT, TIMESTAMP_NTZ>>>" },
		{ "struct<>", "struct<>", "STRUCT<>" },
	};
	static const char *const bad[] = { "struct<a int", "array<>",
		"map<int>", "array<int,int>", "struct<a:nosuch>", "array<int>>",
		"struct<:int>" };
	const char *simple, *sql;
	struct sc_etype a, b;
	struct sc_buf deep;
	size_t i;

	for (i = 0; i < SC_NELEM(ok_cases); i++) {
		ok(names(ok_cases[i].in, &simple, &sql) == 0, "parse %s",
		    ok_cases[i].in);
		is_str(simple, ok_cases[i].simple, "simpleString of %s",
		    ok_cases[i].in);
		is_str(sql, ok_cases[i].sql, "sql of %s", ok_cases[i].in);
	}
	for (i = 0; i < SC_NELEM(bad); i++)
		ok(names(bad[i], &simple, &sql) == -1, "refused: %s", bad[i]);
	/* Equal types are one descriptor; nullability tells them apart. */
	sc_eng_parse_type("array<int>", 10, false, &a);
	sc_eng_parse_type("ARRAY< INT >", 12, false, &b);
	ok(a.nest != NULL && a.nest == b.nest, "array<int> is interned");
	sc_eng_parse_type("struct<a:int not null>", 22, false, &a);
	sc_eng_parse_type("struct<a:int>", 13, false, &b);
	ok(a.nest != b.nest, "NOT NULL makes another struct type");
	ok(sc_eng_parse_type("array<int>", 10, true, &a) == -1,
	    "SQLite declared types are never nested");
	sc_buf_init(&deep, SC_BUF_UNLIMITED);
	for (i = 0; i < 40; i++)
		sc_buf_addstr(&deep, "array<", NULL);
	sc_buf_addstr(&deep, "int", NULL);
	for (i = 0; i < 40; i++)
		sc_buf_addch(&deep, '>', NULL);
	ok(sc_eng_parse_type((const char *)deep.data, deep.len, false, &a) ==
		-1,
	    "nesting deeper than 32 refused");
	sc_buf_release(&deep);
}

static int
fmt_fn(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	return sc_arrow_format_value(b, 0, 0, SC_ARROW_FMT_JSON, arg, NULL,
	    err);
}

/* The value v of type ddl after a trip through Arrow, as JSON. */
static const char *
trip(const char *ddl, const char *v)
{
	static char text[512];
	struct sc_arrow_schema s;
	struct sc_arrow_writer *w;
	struct sc_arrow_field *f;
	struct sc_error err;
	struct sc_ecol c;
	struct sc_eval e;
	struct sc_buf out, js;

	sc_error_init(&err);
	memset(&c, 0, sizeof(c));
	c.name = (char *)"c";
	c.nullable = 1;
	if (sc_eng_parse_type(ddl, strlen(ddl), false, &c.type) == -1)
		return "(type)";
	sc_arrow_schema_init(&s);
	f = sc_arrow_schema_add(&s, "c", SC_ARROW_NULL, true);
	sc_eng_arrow_field(&c.type, f);
	w = sc_arrow_writer_new(&s, &err);
	sc_arrow_schema_release(&s);
	memset(&e, 0, sizeof(e));
	e.t = SQLITE_TEXT;
	e.p = (const uint8_t *)v;
	e.n = strlen(v);
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	sc_buf_init(&js, SC_BUF_UNLIMITED);
	if (sc_eng_put(w, 0, &c, &e, 0, &err) == -1 ||
	    sc_arrow_writer_end_row(w, &err) == -1 ||
	    sc_arrow_writer_flush(w, &out, &err) == -1 ||
	    sc_arrow_read_stream(out.data, out.len, fmt_fn, &js, &err) == -1)
		snprintf(text, sizeof(text), "error %s", err.errclass);
	else
		snprintf(text, sizeof(text), "%s", (const char *)js.data);
	sc_arrow_writer_free(w);
	sc_buf_release(&out);
	sc_buf_release(&js);
	return text;
}

static void
test_values(void)
{
	is_str(trip("struct<x:int,y:string>", "[1, \"a\\u00e9\\n\"]"),
	    "{\"x\":1,\"y\":\"a\xc3\xa9\\n\"}", "struct by position");
	is_str(trip("array<struct<b:boolean,d:date>>",
		   "[[true,\"2020-01-02\"],[0,null],null]"),
	    "[{\"b\":true,\"d\":\"2020-01-02\"},{\"b\":false,\"d\":null},"
	    "null]",
	    "array of structs, booleans as true or 0, nulls");
	is_str(trip("map<string,decimal(5,2)>",
		   "[[\"a\",\"12.345\"],[\"b\",3]]"),
	    "{\"a\":12.35,\"b\":3.00}", "map pairs, decimals rounded");
	is_str(trip("array<binary>", "[\"0aff\"]"), "[\"0aff\"]",
	    "binary as hex");
	is_str(trip("array<double>", "[\"NaN\", 1e300, -0.0]"),
	    "[\"NaN\",1.0E300,-0.0]", "doubles, NaN as text");
	is_str(trip("array<bigint>", "[9007199254740993]"),
	    "[9007199254740993]", "bigint beyond a double's precision");
	is_str(trip("struct<x:int>", "[1, 2]"), "error CAST_INVALID_INPUT",
	    "a struct with too many fields");
	is_str(trip("struct<x:int,y:int>", "[1]"), "error CAST_INVALID_INPUT",
	    "a struct with too few fields");
	is_str(trip("array<int>", "[1,"), "error CAST_INVALID_INPUT",
	    "unterminated array");
	is_str(trip("array<int>", "[\"x\"]"), "error CAST_INVALID_INPUT",
	    "text in an int array");
	is_str(trip("array<int>", "[1] x"), "error CAST_INVALID_INPUT",
	    "text after the value");
	is_str(trip("map<string,int>", "[[\"a\"]]"), "error CAST_INVALID_INPUT",
	    "a map entry without a value");
	is_str(trip("array<int>", "[3000000000]"), "error ",
	    "an int out of range fails (the writer's own error)");
}

static void
test_sql(void)
{
	struct sc_etype t;
	struct sc_buf b;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_eng_parse_type("binary", 6, false, &t);
	sc_eng_nest_encode(&t, "x", &b);
	sc_buf_addch(&b, ' ', NULL);
	sc_eng_nest_decode(&t, "y", &b);
	is_str((const char *)b.data, "sc_hex(x) sc_unhex(y)",
	    "binary is hex inside nested values");
	sc_buf_reset(&b);
	sc_eng_parse_type("array<int>", 10, false, &t);
	sc_eng_nest_encode(&t, "x", &b);
	is_str((const char *)b.data, "json(x)", "nested values embed as JSON");
	sc_buf_release(&b);
}

int
main(void)
{
	test_type_names();
	test_values();
	test_sql();
	return tap_done();
}
