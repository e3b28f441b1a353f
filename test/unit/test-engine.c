/* SPDX-License-Identifier: MIT */

/*
 * test-engine.c: the SQLite engine of sc-serve (lib/engine/).
 * Plans are built as protobuf messages, run into a recording sink whose
 * Arrow batches are decoded with the core reader and compared value by
 * value: every relation and expression kind, SQL parameters, range
 * (native and the range() table function), types, sessions, SqlCommand,
 * errors, interrupts, show_string, tree_string and batch limits.
 */

#include "engine/engine.h"

#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/arrow.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/protocol.h"
#include "core/xmem.h"
#include "server/server.h"
#include "engine/srverror.h"
#include "tap.h"
#include "core/banned.h"

/*
 * Short names for generated constants that core/protocol.h does not
 * have (it has SC_REL_, SC_EXPR_, SC_LIT_, SC_DT_ ...).
 */
#define LITDEC_(x) SPARK__CONNECT__EXPRESSION__LITERAL__DECIMAL___##x
#define STAR_TARGET_(x) \
	SPARK__CONNECT__EXPRESSION__UNRESOLVED_STAR___UNPARSED_TARGET_##x
#define SORT_DIR_(x) \
	SPARK__CONNECT__EXPRESSION__SORT_ORDER__SORT_DIRECTION__SORT_DIRECTION_##x
#define EVAL_(x) SPARK__CONNECT__EXPRESSION__CAST__EVAL_MODE__EVAL_MODE_##x

/* ------------------------------------------------------------------ */
/* Building plans (everything heap-allocated: free_unpacked frees it)  */
/* ------------------------------------------------------------------ */

typedef Spark__Connect__Relation Rel;
typedef Spark__Connect__Expression Expr;

static Rel *
rel_new(void)
{
	Rel *r = sc_xmalloc(sizeof(*r));

	spark__connect__relation__init(r);
	return r;
}

static Expr *
expr_new(void)
{
	Expr *e = sc_xmalloc(sizeof(*e));

	spark__connect__expression__init(e);
	return e;
}

static void
rel_free(Rel *r)
{
	protobuf_c_message_free_unpacked(&r->base, NULL);
}

static Rel *
R_sql(const char *q)
{
	Rel *r = rel_new();
	Spark__Connect__SQL *s = sc_xmalloc(sizeof(*s));

	spark__connect__sql__init(s);
	s->query = sc_xstrdup(q);
	r->rel_type_case = SC_REL_(SQL);
	r->sql = s;
	return r;
}

static Rel *
R_range3(int64_t start, int64_t end, int64_t step, int has_start)
{
	Rel *r = rel_new();
	Spark__Connect__Range *g = sc_xmalloc(sizeof(*g));

	spark__connect__range__init(g);
	if (has_start) {
		g->_start_case = SPARK__CONNECT__RANGE___START_START;
		g->start = start;
	}
	g->end = end;
	g->step = step;
	r->rel_type_case = SC_REL_(RANGE);
	r->range = g;
	return r;
}

static Rel *
R_range(int64_t start, int64_t end)
{
	return R_range3(start, end, 1, 1);
}

static Rel *
R_table(const char *name)
{
	Rel *r = rel_new();
	Spark__Connect__Read *rd = sc_xmalloc(sizeof(*rd));
	Spark__Connect__Read__NamedTable *nt = sc_xmalloc(sizeof(*nt));

	spark__connect__read__init(rd);
	spark__connect__read__named_table__init(nt);
	nt->unparsed_identifier = sc_xstrdup(name);
	rd->read_type_case = SPARK__CONNECT__READ__READ_TYPE_NAMED_TABLE;
	rd->named_table = nt;
	r->rel_type_case = SC_REL_(READ);
	r->read = rd;
	return r;
}

/* Expressions, NULL-terminated. */
static Expr **
exprs(size_t *n, va_list ap)
{
	Expr **v = NULL, *e;

	*n = 0;
	while ((e = va_arg(ap, Expr *)) != NULL) {
		v = sc_xreallocarray(v, *n + 1, sizeof(*v));
		v[(*n)++] = e;
	}
	return v;
}

static Rel *
R_project(Rel *in, ...)
{
	Rel *r = rel_new();
	Spark__Connect__Project *p = sc_xmalloc(sizeof(*p));
	va_list ap;

	spark__connect__project__init(p);
	p->input = in;
	va_start(ap, in);
	p->expressions = exprs(&p->n_expressions, ap);
	va_end(ap);
	r->rel_type_case = SC_REL_(PROJECT);
	r->project = p;
	return r;
}

static Rel *
R_filter(Rel *in, Expr *cond)
{
	Rel *r = rel_new();
	Spark__Connect__Filter *f = sc_xmalloc(sizeof(*f));

	spark__connect__filter__init(f);
	f->input = in;
	f->condition = cond;
	r->rel_type_case = SC_REL_(FILTER);
	r->filter = f;
	return r;
}

typedef Spark__Connect__Expression__SortOrder SortOrder;

static SortOrder *
S_order(Expr *child, int desc, int nulls)
{
	SortOrder *o = sc_xmalloc(sizeof(*o));

	spark__connect__expression__sort_order__init(o);
	o->child = child;
	o->direction = desc ? SORT_DIR_(DESCENDING) : SORT_DIR_(ASCENDING);
	o->null_ordering =
	    (Spark__Connect__Expression__SortOrder__NullOrdering)nulls;
	return o;
}

static Rel *
R_sort(Rel *in, ...)
{
	Rel *r = rel_new();
	Spark__Connect__Sort *s = sc_xmalloc(sizeof(*s));
	SortOrder *o;
	va_list ap;

	spark__connect__sort__init(s);
	s->input = in;
	va_start(ap, in);
	while ((o = va_arg(ap, SortOrder *)) != NULL) {
		s->order = sc_xreallocarray(s->order, s->n_order + 1,
		    sizeof(*s->order));
		s->order[s->n_order++] = o;
	}
	va_end(ap);
	r->rel_type_case = SC_REL_(SORT);
	r->sort = s;
	return r;
}

static Rel *
R_limit(Rel *in, int32_t n)
{
	Rel *r = rel_new();
	Spark__Connect__Limit *l = sc_xmalloc(sizeof(*l));

	spark__connect__limit__init(l);
	l->input = in;
	l->limit = n;
	r->rel_type_case = SC_REL_(LIMIT);
	r->limit = l;
	return r;
}

static Rel *
R_offset(Rel *in, int32_t n)
{
	Rel *r = rel_new();
	Spark__Connect__Offset *o = sc_xmalloc(sizeof(*o));

	spark__connect__offset__init(o);
	o->input = in;
	o->offset = n;
	r->rel_type_case = SC_REL_(OFFSET);
	r->offset = o;
	return r;
}

/* groups then aggregates, each list NULL-terminated. */
static Rel *
R_agg(Rel *in, int type, ...)
{
	Rel *r = rel_new();
	Spark__Connect__Aggregate *a = sc_xmalloc(sizeof(*a));
	va_list ap;

	spark__connect__aggregate__init(a);
	a->input = in;
	a->group_type = (Spark__Connect__Aggregate__GroupType)type;
	va_start(ap, type);
	a->grouping_expressions = exprs(&a->n_grouping_expressions, ap);
	a->aggregate_expressions = exprs(&a->n_aggregate_expressions, ap);
	va_end(ap);
	r->rel_type_case = SC_REL_(AGGREGATE);
	r->aggregate = a;
	return r;
}

static Rel *
R_alias(Rel *in, const char *name)
{
	Rel *r = rel_new();
	Spark__Connect__SubqueryAlias *s = sc_xmalloc(sizeof(*s));

	spark__connect__subquery_alias__init(s);
	s->input = in;
	s->alias = sc_xstrdup(name);
	r->rel_type_case = SC_REL_(SUBQUERY_ALIAS);
	r->subquery_alias = s;
	return r;
}

static Rel *
R_todf(Rel *in, ...)
{
	Rel *r = rel_new();
	Spark__Connect__ToDF *t = sc_xmalloc(sizeof(*t));
	const char *s;
	va_list ap;

	spark__connect__to_df__init(t);
	t->input = in;
	va_start(ap, in);
	while ((s = va_arg(ap, const char *)) != NULL) {
		t->column_names = sc_xreallocarray(t->column_names,
		    t->n_column_names + 1, sizeof(char *));
		t->column_names[t->n_column_names++] = sc_xstrdup(s);
	}
	va_end(ap);
	r->rel_type_case = SC_REL_(TO_DF);
	r->to_df = t;
	return r;
}

#define RENAME_ENTRY \
	spark__connect__with_columns_renamed__rename_columns_map_entry__descriptor

/* Pairs old, new; NULL-terminated. */
static Rel *
R_renamed(Rel *in, ...)
{
	Rel *r = rel_new();
	Spark__Connect__WithColumnsRenamed *w = sc_xmalloc(sizeof(*w));
	const char *f;
	va_list ap;

	spark__connect__with_columns_renamed__init(w);
	w->input = in;
	va_start(ap, in);
	while ((f = va_arg(ap, const char *)) != NULL) {
		Spark__Connect__WithColumnsRenamed__RenameColumnsMapEntry *e;

		e = sc_xmalloc(sizeof(*e));
		protobuf_c_message_init(&RENAME_ENTRY, e);
		e->key = sc_xstrdup(f);
		e->value = sc_xstrdup(va_arg(ap, const char *));
		w->rename_columns_map = sc_xreallocarray(w->rename_columns_map,
		    w->n_rename_columns_map + 1, sizeof(e));
		w->rename_columns_map[w->n_rename_columns_map++] = e;
	}
	va_end(ap);
	r->rel_type_case = SC_REL_(WITH_COLUMNS_RENAMED);
	r->with_columns_renamed = w;
	return r;
}

static Rel *
R_show(Rel *in, int32_t n, int32_t truncate, int vertical)
{
	Rel *r = rel_new();
	Spark__Connect__ShowString *s = sc_xmalloc(sizeof(*s));

	spark__connect__show_string__init(s);
	s->input = in;
	s->num_rows = n;
	s->truncate = truncate;
	s->vertical = vertical;
	r->rel_type_case = SC_REL_(SHOW_STRING);
	r->show_string = s;
	return r;
}

static Rel *
R_local(const void *data, size_t len, const char *schema)
{
	Rel *r = rel_new();
	Spark__Connect__LocalRelation *l = sc_xmalloc(sizeof(*l));

	spark__connect__local_relation__init(l);
	if (data != NULL) {
		l->_data_case = SPARK__CONNECT__LOCAL_RELATION___DATA_DATA;
		l->data.data = sc_xmemdup(data, len);
		l->data.len = len;
	}
	if (schema != NULL) {
		l->_schema_case =
		    SPARK__CONNECT__LOCAL_RELATION___SCHEMA_SCHEMA;
		l->schema = sc_xstrdup(schema);
	}
	r->rel_type_case = SC_REL_(LOCAL_RELATION);
	r->local_relation = l;
	return r;
}

typedef Spark__Connect__Expression__Literal Lit;

static Lit *
lit_new(void)
{
	Lit *l = sc_xmalloc(sizeof(*l));

	spark__connect__expression__literal__init(l);
	return l;
}

static Expr *
E_lit(Lit *l)
{
	Expr *e = expr_new();

	e->expr_type_case = SC_EXPR_(LITERAL);
	e->literal = l;
	return e;
}

static Lit *
L_long(int64_t v)
{
	Lit *l = lit_new();

	l->literal_type_case = SC_LIT_(LONG);
	l->long_ = v;
	return l;
}

static Lit *
L_int(int32_t v)
{
	Lit *l = lit_new();

	l->literal_type_case = SC_LIT_(INTEGER);
	l->integer = v;
	return l;
}

static Lit *
L_str(const char *s)
{
	Lit *l = lit_new();

	l->literal_type_case = SC_LIT_(STRING);
	l->string = sc_xstrdup(s);
	return l;
}

static Lit *
L_double(double d)
{
	Lit *l = lit_new();

	l->literal_type_case = SC_LIT_(DOUBLE);
	l->double_ = d;
	return l;
}

static Lit *
L_float(float f)
{
	Lit *l = lit_new();

	l->literal_type_case = SC_LIT_(FLOAT);
	l->float_ = f;
	return l;
}

static Lit *
L_timestamp(int64_t us, int ntz)
{
	Lit *l = lit_new();

	if (ntz) {
		l->literal_type_case = SC_LIT_(TIMESTAMP_NTZ);
		l->timestamp_ntz = us;
	} else {
		l->literal_type_case = SC_LIT_(TIMESTAMP);
		l->timestamp = us;
	}
	return l;
}

static Lit *
L_bool(int b)
{
	Lit *l = lit_new();

	l->literal_type_case = SC_LIT_(BOOLEAN);
	l->boolean = b;
	return l;
}

static Lit *
L_null(void)
{
	Lit *l = lit_new();
	Spark__Connect__DataType *t = sc_xmalloc(sizeof(*t));
	Spark__Connect__DataType__NULL *n = sc_xmalloc(sizeof(*n));

	spark__connect__data_type__init(t);
	spark__connect__data_type__null__init(n);
	t->kind_case = SC_DT_(NULL);
	t->null = n;
	l->literal_type_case = SC_LIT_(NULL);
	l->null = t;
	return l;
}

static Lit *
L_date(int32_t days)
{
	Lit *l = lit_new();

	l->literal_type_case = SC_LIT_(DATE);
	l->date = days;
	return l;
}

static Lit *
L_decimal(const char *v, int p, int s)
{
	Lit *l = lit_new();
	Spark__Connect__Expression__Literal__Decimal *d =
	    sc_xmalloc(sizeof(*d));

	spark__connect__expression__literal__decimal__init(d);
	d->value = sc_xstrdup(v);
	d->_precision_case = LITDEC_(PRECISION_PRECISION);
	d->precision = p;
	d->_scale_case = LITDEC_(SCALE_SCALE);
	d->scale = s;
	l->literal_type_case = SC_LIT_(DECIMAL);
	l->decimal = d;
	return l;
}

static Expr *
E_col(const char *name)
{
	Expr *e = expr_new();
	Spark__Connect__Expression__UnresolvedAttribute *a =
	    sc_xmalloc(sizeof(*a));

	spark__connect__expression__unresolved_attribute__init(a);
	a->unparsed_identifier = sc_xstrdup(name);
	e->expr_type_case = SC_EXPR_(UNRESOLVED_ATTRIBUTE);
	e->unresolved_attribute = a;
	return e;
}

static Expr *
E_star(const char *target)
{
	Expr *e = expr_new();
	Spark__Connect__Expression__UnresolvedStar *s = sc_xmalloc(sizeof(*s));

	spark__connect__expression__unresolved_star__init(s);
	if (target != NULL) {
		s->_unparsed_target_case = STAR_TARGET_(UNPARSED_TARGET);
		s->unparsed_target = sc_xstrdup(target);
	}
	e->expr_type_case = SC_EXPR_(UNRESOLVED_STAR);
	e->unresolved_star = s;
	return e;
}

static Expr *
E_fn2(const char *name, int distinct, ...)
{
	Expr *e = expr_new();
	Spark__Connect__Expression__UnresolvedFunction *f =
	    sc_xmalloc(sizeof(*f));
	va_list ap;

	spark__connect__expression__unresolved_function__init(f);
	f->function_name = sc_xstrdup(name);
	f->is_distinct = distinct;
	va_start(ap, distinct);
	f->arguments = exprs(&f->n_arguments, ap);
	va_end(ap);
	e->expr_type_case = SC_EXPR_(UNRESOLVED_FUNCTION);
	e->unresolved_function = f;
	return e;
}

#define E_fn(name, ...) E_fn2(name, 0, __VA_ARGS__)

static Expr *
E_alias(Expr *in, const char *name)
{
	Expr *e = expr_new();
	Spark__Connect__Expression__Alias *a = sc_xmalloc(sizeof(*a));

	spark__connect__expression__alias__init(a);
	a->expr = in;
	a->name = sc_xmalloc(sizeof(char *));
	a->name[0] = sc_xstrdup(name);
	a->n_name = 1;
	e->expr_type_case = SC_EXPR_(ALIAS);
	e->alias = a;
	return e;
}

static Expr *
E_cast(Expr *in, const char *type, int try_)
{
	Expr *e = expr_new();
	Spark__Connect__Expression__Cast *c = sc_xmalloc(sizeof(*c));

	spark__connect__expression__cast__init(c);
	c->expr = in;
	c->cast_to_type_case =
	    SPARK__CONNECT__EXPRESSION__CAST__CAST_TO_TYPE_TYPE_STR;
	c->type_str = sc_xstrdup(type);
	if (try_)
		c->eval_mode = EVAL_(TRY);
	e->expr_type_case = SC_EXPR_(CAST);
	e->cast = c;
	return e;
}

static Expr *
E_sqlexpr(const char *s)
{
	Expr *e = expr_new();
	Spark__Connect__Expression__ExpressionString *x =
	    sc_xmalloc(sizeof(*x));

	spark__connect__expression__expression_string__init(x);
	x->expression = sc_xstrdup(s);
	e->expr_type_case = SC_EXPR_(EXPRESSION_STRING);
	e->expression_string = x;
	return e;
}

static void
sql_arg(Spark__Connect__SQL *s, const char *name, Lit *v)
{
	Spark__Connect__SQL__ArgsEntry *a = sc_xmalloc(sizeof(*a));

	spark__connect__sql__args_entry__init(a);
	a->key = sc_xstrdup(name);
	a->value = v;
	s->args = sc_xreallocarray(s->args, s->n_args + 1, sizeof(a));
	s->args[s->n_args++] = a;
}

static void
sql_pos(Spark__Connect__SQL *s, Lit *v)
{
	s->pos_args =
	    sc_xreallocarray(s->pos_args, s->n_pos_args + 1, sizeof(v));
	s->pos_args[s->n_pos_args++] = v;
}

static void
sql_named_expr(Spark__Connect__SQL *s, const char *name, Expr *v)
{
	Spark__Connect__SQL__NamedArgumentsEntry *a = sc_xmalloc(sizeof(*a));

	spark__connect__sql__named_arguments_entry__init(a);
	a->key = sc_xstrdup(name);
	a->value = v;
	s->named_arguments = sc_xreallocarray(s->named_arguments,
	    s->n_named_arguments + 1, sizeof(a));
	s->named_arguments[s->n_named_arguments++] = a;
}

static void
sql_pos_expr(Spark__Connect__SQL *s, Expr *v)
{
	s->pos_arguments = sc_xreallocarray(s->pos_arguments,
	    s->n_pos_arguments + 1, sizeof(v));
	s->pos_arguments[s->n_pos_arguments++] = v;
}

/* ------------------------------------------------------------------ */
/* A recording sink                                                    */
/* ------------------------------------------------------------------ */

struct res {
	struct sc_buf schema; /* "name:type:nullable,..." */
	struct sc_buf data; /* "v,v;v,v;" */
	int nschema;
	int nbatches;
	int64_t rows;
	int64_t sum; /* column 0 as int64 */
	bool sum_only;
	bool bad_offset;
	bool bad_rows;
	int64_t batch_rows[64];
	int stop_after; /* return -1 after this many batches */
};

static void
res_init(struct res *r)
{
	memset(r, 0, sizeof(*r));
	sc_buf_init(&r->schema, SC_BUF_UNLIMITED);
	sc_buf_init(&r->data, SC_BUF_UNLIMITED);
}

static void
res_release(struct res *r)
{
	sc_buf_release(&r->schema);
	sc_buf_release(&r->data);
}

static int
on_schema(void *arg, const Spark__Connect__DataType *dt)
{
	struct res *r = arg;
	size_t i;

	r->nschema++;
	for (i = 0; i < dt->struct_->n_fields; i++) {
		const Spark__Connect__DataType__StructField *f =
		    dt->struct_->fields[i];

		if (i > 0)
			sc_buf_addch(&r->schema, ',', NULL);
		sc_buf_addf(&r->schema, NULL, "%s:", f->name);
		sc_engine_type_name(f->data_type, &r->schema, NULL);
		sc_buf_addf(&r->schema, NULL, ":%s",
		    f->nullable ? "null" : "notnull");
	}
	return 0;
}

static int
decode(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	struct res *r = arg;
	size_t row, col;
	int64_t v;

	for (row = 0; row < b->nrows; row++) {
		if (r->sum_only) {
			if (sc_arrow_get_int64(b, 0, row, &v) == 0)
				r->sum += v;
			continue;
		}
		for (col = 0; col < b->schema->nfields; col++) {
			if (col > 0)
				sc_buf_addch(&r->data, ',', NULL);
			if (sc_arrow_is_null(b, col, row))
				sc_buf_addstr(&r->data, "null", NULL);
			else if (sc_arrow_format_value(b, col, row,
				     SC_ARROW_FMT_TEXT, &r->data, NULL,
				     err) == -1)
				return -1;
		}
		sc_buf_addch(&r->data, ';', NULL);
	}
	return 0;
}

static int
on_batch(void *arg, const uint8_t *ipc, size_t len, int64_t rows,
    int64_t start_offset)
{
	struct res *r = arg;
	struct sc_error err;

	if (start_offset != r->rows)
		r->bad_offset = true;
	if (r->nbatches < 64)
		r->batch_rows[r->nbatches] = rows;
	r->nbatches++;
	r->rows += rows;
	{
		/* Count the rows the stream really holds. */
		size_t before = r->data.len;

		if (sc_arrow_read_stream(ipc, len, decode, r, &err) == -1) {
			printf("# decode failed: %s\n", err.msg);
			r->bad_rows = true;
		}
		if (!r->sum_only) {
			const uint8_t *p = r->data.data + before;
			int64_t n = 0;

			for (; p < r->data.data + r->data.len; p++)
				if (*p == ';')
					n++;
			if (n != rows)
				r->bad_rows = true;
		}
	}
	if (r->stop_after > 0 && r->nbatches >= r->stop_after)
		return -1;
	return 0;
}

static Rel *
relation_copy_for_test(const Rel *m)
{
	uint8_t *b;
	size_t n;
	Rel *r;

	b = sc_proto_pack_alloc(&m->base, &n);
	r = sc_proto_unpack(&spark__connect__relation__descriptor, b, n, NULL);
	free(b);
	return r;
}

static struct sc_engine *eng;
static struct sc_engine_conn *c1, *c2;

static int
run_l(struct sc_engine_conn *c, Rel *root, int64_t max_rows, int64_t max_bytes,
    struct res *r, struct sc_error *err)
{
	struct sc_engine_limits lim = { max_rows, max_bytes };
	struct sc_engine_sink sink = { on_schema, on_batch, r, NULL };
	int rc;

	sc_error_init(err);
	rc = sc_engine_run(c, root, &lim, &sink, err);
	rel_free(root);
	return rc;
}

static int
run(struct sc_engine_conn *c, Rel *root, struct res *r, struct sc_error *err)
{
	return run_l(c, root, 10000, 4 << 20, r, err);
}

/* Run root on c1 and compare schema and data exactly. */
static void
check(Rel *root, const char *schema, const char *data, const char *name)
{
	struct res r;
	struct sc_error err;
	int rc;

	res_init(&r);
	rc = run(c1, root, &r, &err);
	ok(rc == 0, "%s: runs", name);
	if (rc != 0)
		printf("#   error: %s\n", err.msg);
	is_str((const char *)r.schema.data, schema, "%s: schema", name);
	is_str((const char *)r.data.data, data, "%s: data", name);
	ok(r.nschema == 1 && !r.bad_offset && !r.bad_rows && r.nbatches >= 1,
	    "%s: one schema, consistent batches", name);
	res_release(&r);
}

/* Run root on c and expect an error of class cls. */
static void
check_err(struct sc_engine_conn *c, Rel *root, const char *cls,
    const char *name)
{
	struct res r;
	struct sc_error err;
	int rc;

	res_init(&r);
	rc = run(c, root, &r, &err);
	ok(rc == -1, "%s: fails", name);
	is_str(err.errclass, cls, "%s: error class", name);
	if (strcmp(err.errclass, cls) != 0)
		printf("#   message: %s\n", err.msg);
	res_release(&r);
}

static void
exec_sql(struct sc_engine_conn *c, const char *sql)
{
	struct res r;
	struct sc_error err;

	res_init(&r);
	if (run(c, R_sql(sql), &r, &err) == -1)
		printf("# setup '%s' failed: %s\n", sql, err.msg);
	res_release(&r);
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

static void
test_sql_basic(void)
{
	check(R_sql("SELECT 1 AS a, 'x' AS b, 2.5 AS c, NULL AS d, "
		    "x'0102' AS e"),
	    "a:integer:notnull,b:string:notnull,c:decimal(2,1):notnull,"
	    "d:void:null,e:binary:notnull",
	    "1,x,2.5,null,0102;", "sql literals");
	check(R_sql("SELECT X'abc' AS o, x'' AS z, x'00fF' AS h"),
	    "o:binary:notnull,z:binary:notnull,h:binary:notnull", "0abc,,00ff;",
	    "binary literals: an odd digit count, none");
	check(R_sql("SELECT * FROM t ORDER BY a"),
	    "a:integer:notnull,b:string:null,d:date:null,"
	    "p:decimal(10,2):null,f:boolean:null,ts:timestamp:null",
	    "1,one,2024-01-02,1.50,true,2024-01-02 03:04:05;"
	    "2,two,null,null,false,null;3,null,1970-01-01,-0.25,null,"
	    "1970-01-01 00:00:00.5;",
	    "declared types");
}

static void
test_sql_args(void)
{
	Rel *r;
	struct res res;
	struct sc_error err;

	r = R_sql("SELECT a, b FROM t WHERE a = :x OR b = :y ORDER BY a");
	sql_arg(r->sql, "x", L_int(1));
	sql_arg(r->sql, "y", L_str("three"));
	check(r, "a:integer:notnull,b:string:null", "1,one;", "named args");

	r = R_sql("SELECT a, ? AS s FROM t WHERE a >= ? ORDER BY a");
	sql_pos(r->sql, L_str("p"));
	sql_pos(r->sql, L_long(2));
	check(r, "a:integer:notnull,s:string:notnull", "2,p;3,p;",
	    "positional args");

	r = R_sql("SELECT :n + 1 AS v, ? AS w");
	sql_named_expr(r->sql, "n", E_lit(L_long(41)));
	sql_pos_expr(r->sql, E_lit(L_double(0.5)));
	check(r, "v:long:notnull,w:double:notnull", "42,0.5;",
	    "4.x named_arguments and pos_arguments");

	res_init(&res);
	r = R_sql("SELECT :missing AS v");
	ok(run(c1, r, &res, &err) == -1 &&
		strcmp(err.errclass, "UNBOUND_SQL_PARAMETER") == 0 &&
		strcmp(err.sqlstate, "42P02") == 0,
	    "unbound parameter error");
	res_release(&res);
}

static void
test_range(void)
{
	struct res r;
	struct sc_error err;
	int rc;

	check(R_range(0, 5), "id:long:notnull", "0;1;2;3;4;", "range");
	check(R_range3(0, 10, 3, 0), "id:long:notnull", "0;3;6;9;",
	    "range without start, step 3");
	check(R_range3(5, 0, -2, 1), "id:long:notnull", "5;3;1;",
	    "range negative step");
	check(R_range(3, 3), "id:long:notnull", "", "empty range");
	check(R_range3(INT64_MAX - 2, INT64_MAX, 1, 1), "id:long:notnull",
	    "9223372036854775805;9223372036854775806;", "range at INT64_MAX");
	check_err(c1, R_range3(0, 10, 0, 1), "INVALID_PARAMETER_VALUE.RANGE",
	    "range step 0");
	check(R_limit(R_offset(R_range3(0, 100, 10, 1), 2), 3),
	    "id:long:notnull", "20;30;40;", "native offset and limit");
	check(R_todf(R_range(0, 2), "n", NULL), "n:long:notnull", "0;1;",
	    "native toDF");
	check(R_project(R_range(7, 9), E_alias(E_col("id"), "x"), NULL),
	    "x:long:notnull", "7;8;", "native select alias");

	/* Big native range: count and sum exact. */
	res_init(&r);
	r.sum_only = true;
	{
		struct timespec t0, t1;
		double secs;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		rc =
		    run_l(c1, R_range(0, 50000000), 100000, 64 << 20, &r, &err);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		secs = (double)(t1.tv_sec - t0.tv_sec) +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		printf("# native range: 50M rows in %.3f s (%.1f M rows/s)\n",
		    secs, 50.0 / secs);
	}
	ok(rc == 0 && r.rows == 50000000 && r.sum == 1249999975000000LL &&
		r.nbatches == 500 && !r.bad_offset,
	    "native range(0, 50000000): rows, sum, 500 batches");
	res_release(&r);

	/* As a table-valued function. */
	check(R_sql("SELECT id FROM range(4)"), "id:long:notnull", "0;1;2;3;",
	    "range TVF 1 arg");
	check(R_sql("SELECT id FROM range(2, 5)"), "id:long:notnull", "2;3;4;",
	    "range TVF 2 args");
	check(R_sql("SELECT * FROM range(10, 0, -4)"), "id:long:notnull",
	    "10;6;2;", "range TVF 3 args");
	check_err(c1, R_sql("SELECT * FROM range(1, 2, 0)"),
	    "INVALID_PARAMETER_VALUE.RANGE", "range TVF step 0");
	res_init(&r);
	r.sum_only = true;
	rc = run(c1, R_sql("SELECT count(*), sum(id) FROM range(0, 1000000)"),
	    &r, &err);
	ok(rc == 0 && r.rows == 1 && r.sum == 1000000, "TVF count");
	res_release(&r);
	check(R_sql("SELECT count(*) AS n, sum(id) AS s FROM range(0, "
		    "1000000)"),
	    "n:long:notnull,s:long:null", "1000000,499999500000;",
	    "TVF count and sum");
	/* A range under a filter goes through the TVF. */
	check(R_filter(R_range(0, 10),
		  E_fn(">", E_col("id"), E_lit(L_long(6)), NULL)),
	    "id:long:notnull", "7;8;9;", "filter over range");
}

/*
 * Relation{with_columns_renamed{input: range(0, 2), renames: [{id -> n}]}}
 * in wire bytes: the 4.x field 3 is not in proto/.
 */
static Rel *
renamed_4x(void)
{
	Spark__Connect__WithColumnsRenamed w;
	struct sc_buf inner, outer;
	uint8_t *b;
	size_t n;
	Rel *r;
	static const uint8_t rename[] = {
		0x1a, 0x07, /* field 3, 7 bytes */
		0x0a, 0x02, 'i', 'd', /* col_name "id" */
		0x12, 0x01, 'n', /* new_column_name "n" */
	};

	spark__connect__with_columns_renamed__init(&w);
	w.input = R_range(0, 2);
	b = sc_proto_pack_alloc(&w.base, &n);
	rel_free(w.input);
	sc_buf_init(&inner, SC_BUF_UNLIMITED);
	sc_buf_add(&inner, b, n, NULL);
	sc_buf_add(&inner, rename, sizeof(rename), NULL);
	free(b);
	sc_buf_init(&outer, SC_BUF_UNLIMITED);
	sc_buf_addch(&outer, 0x9a, NULL); /* field 19, length-delimited */
	sc_buf_addch(&outer, 0x01, NULL);
	sc_buf_addch(&outer, (int)inner.len, NULL);
	sc_buf_add(&outer, inner.data, inner.len, NULL);
	r = sc_proto_unpack(&spark__connect__relation__descriptor, outer.data,
	    outer.len, NULL);
	sc_buf_release(&inner);
	sc_buf_release(&outer);
	return r;
}

static void
test_relations(void)
{
	check(
	    R_project(R_table("t"), E_col("a"),
		E_alias(E_fn("+", E_col("a"), E_lit(L_long(10)), NULL), "a10"),
		NULL),
	    "a:integer:notnull,a10:long:null", "1,11;2,12;3,13;",
	    "project over named table");
	check(R_project(NULL, E_lit(L_long(1)), E_lit(L_str("s")),
		  E_lit(L_bool(1)), E_lit(L_null()), E_lit(L_double(1e20)),
		  E_lit(L_date(19724)), E_lit(L_decimal("12.345", 6, 3)), NULL),
	    "1:long:notnull,s:string:notnull,true:boolean:notnull,"
	    "NULL:void:null,1.0E20:double:notnull,"
	    "DATE '2024-01-02':date:notnull,12.345:decimal(6,3):notnull",
	    "1,s,true,null,1.0E20,2024-01-02,12.345;",
	    "project without input: literals");
	check(R_filter(R_table("t"),
		  E_fn("==", E_col("b"), E_lit(L_str("two")), NULL)),
	    "a:integer:notnull,b:string:null,"
	    "d:date:null,p:decimal(10,2):null,f:boolean:null,"
	    "ts:timestamp:null",
	    "2,two,null,null,false,null;", "filter");
	check(R_project(R_sort(R_table("t"), S_order(E_col("b"), 1, 0), NULL),
		  E_col("b"), NULL),
	    "b:string:null", "two;one;null;",
	    "sort desc (nulls last by default)");
	check(R_project(R_sort(R_table("t"), S_order(E_col("b"), 0, 2), NULL),
		  E_col("b"), NULL),
	    "b:string:null", "one;two;null;", "sort asc nulls last");
	check(R_project(
		  R_limit(R_sort(R_table("t"), S_order(E_col("a"), 1, 0), NULL),
		      2),
		  E_col("a"), NULL),
	    "a:integer:notnull", "3;2;", "limit over sort");
	check(R_project(R_offset(R_sort(R_table("t"), S_order(E_col("a"), 0, 0),
				     NULL),
			    1),
		  E_col("a"), NULL),
	    "a:integer:notnull", "2;3;", "offset over sort");
	check(R_sort(R_agg(R_table("g"), 1, E_col("k"), NULL,
			 E_fn("count", E_star(NULL), NULL),
			 E_fn("sum", E_col("v"), NULL),
			 E_fn("avg", E_col("v"), NULL),
			 E_fn("min", E_col("v"), NULL),
			 E_fn("max", E_col("v"), NULL),
			 E_fn2("count", 1, E_col("v"), NULL), NULL),
		  S_order(E_col("k"), 0, 0), NULL),
	    "k:string:null,count(1):long:notnull,sum(v):long:null,"
	    "avg(v):double:null,min(v):long:null,max(v):long:null,"
	    "count(DISTINCT v):long:notnull",
	    "a,3,6,2.0,1,3,3;b,2,20,10.0,10,10,1;", "aggregate groupBy");
	check(R_agg(R_table("g"), 1, NULL,
		  E_alias(E_fn("count", E_lit(L_int(1)), NULL), "n"), NULL),
	    "n:long:notnull", "5;", "global aggregate");
	check(R_sort(R_agg(R_table("g"), 2, E_col("k"), NULL,
			 E_fn("count", E_star(NULL), NULL), NULL),
		  S_order(E_col("k"), 0, 0), NULL),
	    "k:string:null,count(1):long:notnull", "null,5;a,3;b,2;",
	    "rollup: a total row with a null key");
	check_err(c1,
	    R_agg(R_table("g"), 4, E_col("k"), NULL,
		E_fn("count", E_star(NULL), NULL), NULL),
	    "INVALID_PLAN_INPUT", "pivot without a pivot column");
	check(R_project(R_filter(R_alias(R_table("t"), "q"),
			    E_fn(">", E_col("q.a"), E_lit(L_long(2)), NULL)),
		  E_col("q.b"), NULL),
	    "b:string:null", "null;", "subquery_alias and qualified names");
	check(R_todf(R_sql("SELECT 1 AS a, 2 AS a"), "x", "y", NULL),
	    "x:integer:notnull,y:integer:notnull", "1,2;",
	    "toDF with duplicate names");
	check_err(c1, R_todf(R_range(0, 1), "x", "y", NULL),
	    "INVALID_PLAN_INPUT", "toDF wrong count");
	check(R_renamed(R_sql("SELECT 1 AS a, 2 AS b"), "A", "aa", "zz", "q",
		  NULL),
	    "aa:integer:notnull,b:integer:notnull", "1,2;",
	    "withColumnsRenamed (case-insensitive, missing ignored)");
	check(renamed_4x(), "n:long:notnull", "0;1;",
	    "withColumnsRenamed 4.x renames field");
	check(R_project(R_table("t"), E_star(NULL), NULL),
	    "a:integer:notnull,b:string:null,d:date:null,"
	    "p:decimal(10,2):null,f:boolean:null,ts:timestamp:null",
	    "1,one,2024-01-02,1.50,true,2024-01-02 03:04:05;"
	    "2,two,null,null,false,null;3,null,1970-01-01,-0.25,null,"
	    "1970-01-01 00:00:00.5;",
	    "star");
	check(R_project(R_alias(R_table("t"), "z"), E_star("z.*"), NULL),
	    "a:integer:notnull,b:string:null,d:date:null,"
	    "p:decimal(10,2):null,f:boolean:null,ts:timestamp:null",
	    "1,one,2024-01-02,1.50,true,2024-01-02 03:04:05;"
	    "2,two,null,null,false,null;3,null,1970-01-01,-0.25,null,"
	    "1970-01-01 00:00:00.5;",
	    "qualified star");
	check(R_table("spark_catalog.default.t2"), "x:long:null", "7;",
	    "spark_catalog.default.t means main.t");
	check_err(c1, R_table("nope"), "TABLE_OR_VIEW_NOT_FOUND",
	    "missing table");
}

static void
test_expressions(void)
{
	Rel *in = R_sql("SELECT 7 AS a, 2 AS b, 'Hello' AS s, NULL AS n, "
			"1.5 AS x");

	check(R_project(in, E_fn("==", E_col("a"), E_lit(L_long(7)), NULL),
		  E_fn("!=", E_col("a"), E_col("b"), NULL),
		  E_fn("<", E_col("a"), E_col("b"), NULL),
		  E_fn("<=", E_col("b"), E_lit(L_long(2)), NULL),
		  E_fn(">", E_col("a"), E_col("b"), NULL),
		  E_fn(">=", E_col("a"), E_lit(L_long(8)), NULL),
		  E_fn("<=>", E_col("n"), E_lit(L_null()), NULL),
		  E_fn("and", E_lit(L_bool(1)), E_lit(L_bool(0)), NULL),
		  E_fn("or", E_lit(L_bool(1)), E_lit(L_bool(0)), NULL),
		  E_fn("not", E_lit(L_bool(0)), NULL),
		  E_fn("isnull", E_col("n"), NULL),
		  E_fn("isnotnull", E_col("n"), NULL), NULL),
	    "(a = 7):boolean:null,(NOT (a = b)):boolean:null,"
	    "(a < b):boolean:null,(b <= 2):boolean:null,(a > b):boolean:null,"
	    "(a >= 8):boolean:null,(n <=> NULL):boolean:notnull,"
	    "(true AND false):boolean:null,(true OR false):boolean:null,"
	    "(NOT false):boolean:null,(n IS NULL):boolean:notnull,"
	    "(n IS NOT NULL):boolean:notnull",
	    "true,true,false,true,true,false,true,false,true,true,true,false;",
	    "comparisons and logic");

	in = R_sql("SELECT 7 AS a, 2 AS b, 'Hello' AS s, NULL AS n, 1.5 AS x");
	check(R_project(in, E_fn("+", E_col("a"), E_col("b"), NULL),
		  E_fn("-", E_col("a"), E_col("b"), NULL),
		  E_fn("*", E_col("a"), E_col("b"), NULL),
		  E_fn("/", E_col("a"), E_col("b"), NULL),
		  E_fn("%", E_col("a"), E_col("b"), NULL),
		  E_fn("-", E_col("a"), NULL),
		  E_fn("abs", E_lit(L_long(-3)), NULL),
		  E_fn("round", E_lit(L_double(2.5)), NULL),
		  E_fn("floor", E_col("x"), NULL),
		  E_fn("ceil", E_col("x"), NULL),
		  E_fn("sqrt", E_lit(L_long(16)), NULL),
		  E_fn("pow", E_lit(L_long(2)), E_lit(L_long(10)), NULL), NULL),
	    "(a + b):integer:notnull,(a - b):integer:notnull,"
	    "(a * b):integer:notnull,(a / b):double:null,(a % b):integer:null,"
	    "(- a):integer:notnull,"
	    "abs(-3):long:null,round(2.5, 0):double:null,floor(x):long:null,"
	    "ceil(x):long:null,SQRT(16):double:null,POWER(2, 10):double:null",
	    "9,5,14,3.5,1,-7,3,3.0,1,2,4.0,1024.0;", "arithmetic and math");

	in = R_sql("SELECT 7 AS a, 2 AS b, ' Hello ' AS s, NULL AS n");
	check(
	    R_project(in, E_fn("upper", E_col("s"), NULL),
		E_fn("lower", E_col("s"), NULL),
		E_fn("length", E_col("s"), NULL),
		E_fn("trim", E_col("s"), NULL), E_fn("ltrim", E_col("s"), NULL),
		E_fn("rtrim", E_col("s"), NULL),
		E_fn("concat", E_col("s"), E_lit(L_str("!")), E_col("a"), NULL),
		E_fn("substring", E_col("s"), E_lit(L_int(0)), E_lit(L_int(3)),
		    NULL),
		E_fn("replace", E_col("s"), E_lit(L_str("l")),
		    E_lit(L_str("L")), NULL),
		E_fn("coalesce", E_col("n"), E_col("b"), NULL),
		E_fn("greatest", E_col("a"), E_col("n"), E_col("b"), NULL),
		E_fn("least", E_col("a"), E_col("n"), E_col("b"), NULL), NULL),
	    "upper(s):string:null,lower(s):string:null,length(s):integer:null,"
	    "trim(s):string:null,ltrim(s):string:null,rtrim(s):string:null,"
	    "concat(s, !, a):string:null,substring(s, 0, 3):string:null,"
	    "replace(s, l, L):string:null,coalesce(n, b):integer:null,"
	    "greatest(a, n, b):integer:null,least(a, n, b):integer:null",
	    " HELLO , hello ,7,Hello,Hello , Hello, Hello !7, He, HeLLo ,2,"
	    "7,2;",
	    "string and null functions");

	in = R_sql("SELECT 7 AS a, 2 AS b, NULL AS n");
	check(R_project(in,
		  E_fn("when", E_fn(">", E_col("a"), E_lit(L_long(5)), NULL),
		      E_lit(L_str("big")), E_lit(L_str("small")), NULL),
		  E_fn("if", E_fn("<", E_col("a"), E_col("b"), NULL),
		      E_lit(L_long(1)), E_lit(L_long(0)), NULL),
		  E_fn("in", E_col("a"), E_lit(L_long(1)), E_lit(L_long(7)),
		      NULL),
		  E_alias(E_cast(E_col("a"), "string", 0), "as_str"),
		  E_cast(E_lit(L_str("12")), "int", 0),
		  E_cast(E_lit(L_str("x")), "int", 1),
		  E_cast(E_lit(L_str("2024-02-29")), "date", 0),
		  E_cast(E_lit(L_str("1.005")), "decimal(5,2)", 0),
		  E_cast(E_fn("==", E_col("a"), E_col("a"), NULL), "string", 0),
		  E_alias(E_sqlexpr("a * 100 + b"), "e"), NULL),
	    "CASE WHEN (a > 5) THEN big ELSE small END:string:null,"
	    "(IF((a < b), 1, 0)):long:null,(a IN (1, 7)):boolean:null,"
	    "as_str:string:notnull,CAST(12 AS INT):integer:notnull,"
	    "CAST(x AS INT):integer:null,CAST(2024-02-29 AS DATE):date:notnull,"
	    "CAST(1.005 AS DECIMAL(5,2)):decimal(5,2):notnull,"
	    "CAST((a = a) AS STRING):string:null,e:integer:notnull",
	    "big,0,true,7,12,null,2024-02-29,1.01,true,702;",
	    "when, if, in, cast, expression_string");
	check_err(c1,
	    R_project(NULL, E_cast(E_lit(L_str("x")), "int", 0), NULL),
	    "CAST_INVALID_INPUT", "ANSI cast error");
	check_err(c1,
	    R_project(NULL, E_fn("nosuchfn", E_lit(L_long(1)), NULL), NULL),
	    "UNRESOLVED_ROUTINE", "unknown function");
	check_err(c1, R_project(R_table("t"), E_col("zz"), NULL),
	    "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION", "unknown column");
}

static void
test_types(void)
{
	check(R_sql("SELECT CASE WHEN id < 2 THEN NULL ELSE id END AS v FROM "
		    "range(4)"),
	    "v:long:null", "null;null;2;3;", "inferred past leading nulls");
	check(R_sql("SELECT CASE WHEN id = 0 THEN 1 ELSE 0.5 END AS v FROM "
		    "range(3)"),
	    "v:double:null", "1.0;0.5;0.5;", "int and real mix");
	check(R_sql("SELECT CASE WHEN id = 0 THEN 1 ELSE 'x' END AS v FROM "
		    "range(2)"),
	    "v:string:null", "1;x;", "int and text mix");
	check(R_sql("SELECT NULL AS v FROM range(2)"), "v:void:null",
	    "null;null;", "all null is void");
	check(R_sql("SELECT * FROM ty"),
	    "i8:byte:null,i16:short:null,i64:long:null,fl:float:null,"
	    "db:double:null,vc:string:null,bn:binary:null,"
	    "tn:timestamp_ntz:null",
	    "1,2,3,0.5,0.25,v,6869,2024-01-01 00:00:00;", "declared types 2");
	check_err(c1, R_sql("SELECT * FROM badint"), "CAST_INVALID_INPUT",
	    "text in an INT column");
	exec_sql(c1, "CREATE TABLE strs(s STRING, `string` STRING)");
	exec_sql(c1, "INSERT INTO strs VALUES ('007', '1e3')");
	check(R_sql("SELECT s, string, CAST(42 AS STRING) AS c, "
		    "CAST('0042' AS STRING) AS d FROM strs"),
	    "s:string:null,string:string:null,c:string:notnull,d:string:notnull",
	    "007,1e3,42,0042;", "STRING columns and casts keep text");
	check(R_sql(
		  "SELECT CAST('2024-01-02' AS DATE) AS d, "
		  "TRY_CAST('x' AS INT) AS i, CAST(CAST(' 12 ' AS INT) + 1 AS "
		  "STRING) AS s, CAST(1.005 AS DECIMAL(4, 2)) AS p, "
		  "CAST('true' AS BOOLEAN) AS b"),
	    "d:date:notnull,i:integer:null,s:string:notnull,"
	    "p:decimal(4,2):notnull,b:boolean:notnull",
	    "2024-01-02,null,13,1.01,true;", "Spark CAST in SQL text");
	check_err(c1, R_sql("SELECT CAST('x' AS INT) AS i"),
	    "CAST_INVALID_INPUT", "ANSI CAST in SQL text");
	check(R_sql("SELECT 'Abc' LIKE 'a%' AS l1, 'Abc' LIKE 'A%' AS l2"),
	    "l1:boolean:null,l2:boolean:null", "false,true;",
	    "LIKE is case-sensitive");
	check_err(c1,
	    R_sql("SELECT CASE WHEN id < 20000 THEN id ELSE 'x' "
		  "END AS v FROM range(20001)"),
	    "INCONSISTENT_COLUMN_TYPE", "late type change");
}

/*
 * Values the server turns into text (literal column names, CAST(x AS
 * STRING), CAST(text AS DECIMAL)) read as the client prints the typed
 * value: Java's Double.toString and Float.toString, Spark's dates.
 */
static void
test_value_text(void)
{
	char digits[120];

	check(R_project(NULL, E_lit(L_double(4.9e-324)),
		  E_cast(E_lit(L_double(4.9e-324)), "string", 0),
		  E_lit(L_double(0x1p-24)),
		  E_cast(E_lit(L_double(0x1p-24)), "string", 0), NULL),
	    "4.9E-324:double:notnull,CAST(4.9E-324 AS STRING):string:notnull,"
	    "5.960464477539063E-8:double:notnull,"
	    "CAST(5.960464477539063E-8 AS STRING):string:notnull",
	    "4.9E-324,4.9E-324,5.960464477539063E-8,5.960464477539063E-8;",
	    "doubles as Java prints them");
	check(R_project(NULL, E_lit(L_float(1.4e-45f)),
		  E_cast(E_lit(L_float(1.4e-45f)), "string", 0),
		  E_lit(L_float(0x1p-96f)),
		  E_cast(E_lit(L_float(0x1p-96f)), "string", 0),
		  E_cast(E_lit(L_float(0.1f)), "string", 0), NULL),
	    "1.4E-45:float:notnull,CAST(1.4E-45 AS STRING):string:notnull,"
	    "1.2621775E-29:float:notnull,"
	    "CAST(1.2621775E-29 AS STRING):string:notnull,"
	    "CAST(0.1 AS STRING):string:notnull",
	    "1.4E-45,1.4E-45,1.2621775E-29,1.2621775E-29,0.1;",
	    "floats as Java prints them");
	check(R_project(NULL, E_lit(L_date(-719529)),
		  E_cast(E_lit(L_date(-719529)), "string", 0),
		  E_lit(L_date(2932897)), E_lit(L_timestamp(-1, 0)),
		  E_cast(E_lit(L_timestamp(-1, 0)), "string", 0),
		  E_lit(L_timestamp(1709211909120000, 1)), NULL),
	    "DATE '-0001-12-31':date:notnull,"
	    "CAST(DATE '-0001-12-31' AS STRING):string:notnull,"
	    "DATE '+10000-01-01':date:notnull,"
	    "TIMESTAMP '1969-12-31 23:59:59.999999':timestamp:notnull,"
	    "CAST(TIMESTAMP '1969-12-31 23:59:59.999999' AS STRING):string:"
	    "notnull,"
	    "TIMESTAMP_NTZ '2024-02-29 13:05:09.12':timestamp_ntz:notnull",
	    "-0001-12-31,-0001-12-31,+10000-01-01,1969-12-31 23:59:59.999999,"
	    "1969-12-31 23:59:59.999999,2024-02-29 13:05:09.12;",
	    "dates and timestamps as Spark prints them");
	/* 0.111...1 with 100 digits after the point: rounded, not refused. */
	memset(digits, '1', sizeof(digits));
	memcpy(digits, "0.", 2);
	digits[102] = '\0';
	check(R_project(NULL,
		  E_alias(E_cast(E_lit(L_double(0.1)), "decimal(5,3)", 0), "a"),
		  E_alias(E_cast(E_lit(L_str("-12.3455")), "decimal(10,3)", 0),
		      "b"),
		  E_alias(E_cast(E_lit(L_str(digits)), "decimal(5,3)", 0), "c"),
		  E_alias(E_cast(E_lit(L_double(1e-300)), "decimal(5,3)", 0),
		      "d"),
		  NULL),
	    "a:decimal(5,3):notnull,b:decimal(10,3):notnull,"
	    "c:decimal(5,3):notnull,d:decimal(5,3):notnull",
	    "0.100,-12.346,0.111,0.000;", "decimals rescaled");
	check(R_sql("SELECT CAST(CAST(4.9E-324 AS DOUBLE) AS STRING) AS s, "
		    "CAST(1e-323 AS DECIMAL(5,3)) AS p"),
	    "s:string:notnull,p:decimal(5,3):notnull", "4.9E-324,0.000;",
	    "CAST in SQL text");
}

/*
 * The type in CAST(x AS type) is read whole however long its text (it
 * once went through a 256-byte buffer, and a longer one left the CAST to
 * SQLite, which reads DECIMAL as NUMERIC).
 */
static void
test_cast_type_text(void)
{
	char sql[600];

	snprintf(sql, sizeof(sql),
	    "SELECT CAST(' 12.345' AS DECIMAL(10,%300s2)) AS p", "");
	check(R_sql(sql), "p:decimal(10,2):notnull", "12.35;",
	    "long CAST type text");
	snprintf(sql, sizeof(sql), "SELECT CAST('abc' AS DECIMAL(10,%300s2))",
	    "");
	check_err(c1, R_sql(sql), "CAST_INVALID_INPUT",
	    "long CAST type text, ANSI error");
}

static void
build_arrow(struct sc_buf *out)
{
	struct sc_arrow_schema s;
	struct sc_arrow_field *f;
	struct sc_arrow_writer *w;
	struct sc_error err;

	sc_arrow_schema_init(&s);
	sc_arrow_schema_add(&s, "id", SC_ARROW_INT64, false);
	sc_arrow_schema_add(&s, "name", SC_ARROW_UTF8, true);
	sc_arrow_schema_add(&s, "x", SC_ARROW_DOUBLE, true);
	sc_arrow_schema_add(&s, "ok", SC_ARROW_BOOL, true);
	sc_arrow_schema_add(&s, "d", SC_ARROW_DATE32, true);
	f = sc_arrow_schema_add(&s, "p", SC_ARROW_DECIMAL128, true);
	f->precision = 10;
	f->scale = 2;
	sc_arrow_schema_add(&s, "i", SC_ARROW_INT32, true);
	w = sc_arrow_writer_new(&s, &err);
	sc_arrow_schema_release(&s);
	sc_arrow_append_int64(w, 0, 1, &err);
	sc_arrow_append_bytes(w, 1, "0123", 4, &err);
	sc_arrow_append_double(w, 2, 1.5, &err);
	sc_arrow_append_bool(w, 3, true, &err);
	sc_arrow_append_int64(w, 4, 19724, &err);
	sc_arrow_append_decimal_str(w, 5, "-12.34", &err);
	sc_arrow_append_int64(w, 6, 5, &err);
	sc_arrow_writer_end_row(w, &err);
	sc_arrow_append_int64(w, 0, 2, &err);
	sc_arrow_append_null(w, 1, &err);
	sc_arrow_append_null(w, 2, &err);
	sc_arrow_append_bool(w, 3, false, &err);
	sc_arrow_append_null(w, 4, &err);
	sc_arrow_append_null(w, 5, &err);
	sc_arrow_append_null(w, 6, &err);
	sc_arrow_writer_end_row(w, &err);
	sc_arrow_writer_flush(w, out, &err);
	sc_arrow_writer_free(w);
}

static void
test_local(void)
{
	struct sc_buf a;

	sc_buf_init(&a, SC_BUF_UNLIMITED);
	build_arrow(&a);
	check(R_local(a.data, a.len, NULL),
	    "id:long:notnull,name:string:null,x:double:null,ok:boolean:null,"
	    "d:date:null,p:decimal(10,2):null,i:integer:null",
	    "1,0123,1.5,true,2024-01-02,-12.34,5;"
	    "2,null,null,false,null,null,null;",
	    "local relation");
	check(R_project(R_filter(R_local(a.data, a.len, NULL),
			    E_fn("==", E_col("ok"), E_lit(L_bool(1)), NULL)),
		  E_col("name"), NULL),
	    "name:string:null", "0123;", "filter over local relation");
	check(R_local(a.data, a.len,
		  "a bigint, b string, c double, "
		  "e boolean, f date, g decimal(10,2), h bigint"),
	    "a:long:null,b:string:null,c:double:null,e:boolean:null,"
	    "f:date:null,g:decimal(10,2):null,h:long:null",
	    "1,0123,1.5,true,2024-01-02,-12.34,5;"
	    "2,null,null,false,null,null,null;",
	    "local relation + DDL schema");
	check(R_local(NULL, 0,
		  "{\"type\":\"struct\",\"fields\":["
		  "{\"name\":\"k\",\"type\":\"integer\",\"nullable\":false,"
		  "\"metadata\":{}},{\"name\":\"v\",\"type\":\"string\","
		  "\"nullable\":true,\"metadata\":{}}]}"),
	    "k:integer:notnull,v:string:null", "", "empty with JSON schema");
	sc_buf_release(&a);
	/* The TEMP table is gone after the run. */
	ok(sc_engine_conn_temp_tables(c1, "_sc_local") == 0,
	    "local relation tables dropped");
}

static void
test_show(void)
{
	check(R_show(R_sql("SELECT a, b FROM t ORDER BY a"), 20, 20, 0),
	    "show_string:string:notnull",
	    "+---+----+\n"
	    "|  a|   b|\n"
	    "+---+----+\n"
	    "|  1| one|\n"
	    "|  2| two|\n"
	    "|  3|NULL|\n"
	    "+---+----+\n;",
	    "show_string");
	check(R_show(R_range(0, 5), 2, 0, 0), "show_string:string:notnull",
	    "+---+\n|id |\n+---+\n|0  |\n|1  |\n+---+\n"
	    "only showing top 2 rows\n;",
	    "show_string untruncated, more");
	check(R_show(R_sql("SELECT 'abcdefghij' AS long_name, 1 AS n"), 5, 5,
		  0),
	    "show_string:string:notnull",
	    "+---------+---+\n|long_name|  n|\n+---------+---+\n"
	    "|    ab...|  1|\n+---------+---+\n;",
	    "show_string truncate 5");
	check(R_show(R_sql("SELECT a, b FROM t ORDER BY a LIMIT 2"), 20, 20, 1),
	    "show_string:string:notnull",
	    "-RECORD 0--\n a   | 1   \n b   | one \n"
	    "-RECORD 1--\n a   | 2   \n b   | two \n;",
	    "show_string vertical");
	check(R_show(R_project(NULL, E_lit(L_double(1e20)),
			 E_alias(E_lit(L_double(0.1)), "d"),
			 E_alias(E_sqlexpr("CAST('hi' AS BINARY)"), "b"),
			 E_alias(E_lit(L_date(0)), "dt"),
			 E_alias(E_lit(L_str("a\tb")), "s"), NULL),
		  20, 20, 0),
	    "show_string:string:notnull",
	    "+------+---+-------+----------+----+\n"
	    "|1.0E20|  d|      b|        dt|   s|\n"
	    "+------+---+-------+----------+----+\n"
	    "|1.0E20|0.1|[68 69]|1970-01-01|a\\tb|\n"
	    "+------+---+-------+----------+----+\n;",
	    "show_string value formats");
	check(R_show(R_sql("SELECT 1 AS x WHERE false"), 20, 20, 0),
	    "show_string:string:notnull", "+---+\n|  x|\n+---+\n+---+\n;",
	    "show_string empty");
	check(R_show(R_sql("SELECT 1 AS x WHERE false"), 20, 20, 1),
	    "show_string:string:notnull", "(0 rows)\n;",
	    "show_string vertical empty");
}

static void
test_tree_string(void)
{
	struct sc_error err;
	char *text = NULL;
	Rel *r;
	Spark__Connect__DataType *dt = NULL;
	int rc;

	r = R_range(0, 3);
	rc = sc_engine_tree_string(c1, r, &text, &err);
	ok(rc == 0, "tree_string range");
	is_str(text, "root\n |-- id: long (nullable = false)\n",
	    "tree_string range text");
	free(text);
	rel_free(r);

	r = R_table("t");
	rc = sc_engine_tree_string(c1, r, &text, &err);
	is_str(rc == 0 ? text : err.msg,
	    "root\n"
	    " |-- a: integer (nullable = false)\n"
	    " |-- b: string (nullable = true)\n"
	    " |-- d: date (nullable = true)\n"
	    " |-- p: decimal(10,2) (nullable = true)\n"
	    " |-- f: boolean (nullable = true)\n"
	    " |-- ts: timestamp (nullable = true)\n",
	    "tree_string table text");
	if (rc == 0)
		free(text);
	rel_free(r);

	r = R_sql("SELECT 1 AS one");
	rc = sc_engine_schema(c1, r, &dt, &err);
	ok(rc == 0 && dt->kind_case == SC_DT_(STRUCT) &&
		dt->struct_->n_fields == 1 &&
		strcmp(dt->struct_->fields[0]->name, "one") == 0 &&
		dt->struct_->fields[0]->data_type->kind_case == SC_DT_(INTEGER),
	    "schema of SELECT 1");
	sc_engine_datatype_free(dt);
	rel_free(r);

	r = R_sql("INSERT INTO g VALUES ('z', 1)");
	rc = sc_engine_schema(c1, r, &dt, &err);
	ok(rc == 0 && dt->struct_->n_fields == 0, "schema of DML: no columns");
	if (rc == 0)
		sc_engine_datatype_free(dt);
	rel_free(r);
	check(R_sql("SELECT count(*) AS n FROM g WHERE k = 'z'"),
	    "n:long:notnull", "0;", "analysis did not run the DML");
	r = R_sql("CREATE TABLE never(x); SELECT 1");
	rc = sc_engine_schema(c1, r, &dt, &err);
	ok(rc == -1 && strcmp(err.errclass, "PARSE_SYNTAX_ERROR") == 0,
	    "schema of several statements is an error");
	rel_free(r);
	check_err(c1, R_sql("SELECT * FROM never"), "TABLE_OR_VIEW_NOT_FOUND",
	    "analysis did not run the DDL");

	r = R_project(R_range(0, 10),
	    E_fn(">", E_col("id"), E_lit(L_long(3)), NULL), NULL);
	rc = sc_engine_explain(c1, r, 1, &text, &err);
	ok(rc == 0 && strstr(text, "== SQL ==") != NULL &&
		strstr(text, "== Physical Plan ==") != NULL &&
		strstr(text, "range") != NULL &&
		strstr(text, "SQLite Program") == NULL,
	    "explain simple");
	if (rc == 0)
		free(text);
	rc = sc_engine_explain(c1, r, 2, &text, &err);
	ok(rc == 0 && strstr(text, "== SQLite Program ==") != NULL &&
		strstr(text, "VFilter") != NULL,
	    "explain extended");
	if (rc == 0)
		free(text);
	rel_free(r);
}

static void
test_sessions(void)
{
	struct sc_error err;

	exec_sql(c1, "CREATE TEMP VIEW tmp1 AS SELECT 5 AS x");
	check(R_sql("SELECT x FROM tmp1"), "x:integer:notnull", "5;",
	    "temp view visible in its session");
	check_err(c2, R_sql("SELECT x FROM tmp1"), "TABLE_OR_VIEW_NOT_FOUND",
	    "temp view invisible in another session");
	exec_sql(c2, "CREATE TABLE shared1(y BIGINT)");
	exec_sql(c2, "INSERT INTO shared1 VALUES (9)");
	check(R_sql("SELECT y FROM shared1"), "y:long:null", "9;",
	    "regular table shared between sessions");
	check_err(c1, R_sql("SELEC 1"), "PARSE_SYNTAX_ERROR", "syntax error");
	check_err(c1, R_sql("CREATE TABLE shared1(z INT)"),
	    "TABLE_OR_VIEW_ALREADY_EXISTS", "table exists");
	(void)err;
}

struct writer {
	struct sc_engine_conn *c;
	int fails;
};

static void *
writer_thread(void *arg)
{
	struct writer *w = arg;
	struct res r;
	struct sc_error err;
	int i;

	for (i = 0; i < 200; i++) {
		res_init(&r);
		if (run(w->c,
			R_sql(i % 2 ? "INSERT INTO conc VALUES (1)"
				    : "SELECT count(*) FROM conc"),
			&r, &err) == -1) {
			printf("# concurrent: %s\n", err.msg);
			w->fails++;
		}
		res_release(&r);
	}
	return NULL;
}

static void
test_concurrency(void)
{
	pthread_t t1, t2;
	struct writer w1 = { c1, 0 }, w2 = { c2, 0 };

	exec_sql(c1, "CREATE TABLE conc(x INT)");
	pthread_create(&t1, NULL, writer_thread, &w1);
	pthread_create(&t2, NULL, writer_thread, &w2);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	ok(w1.fails == 0 && w2.fails == 0,
	    "two sessions reading and writing at once: no errors");
	check(R_sql("SELECT count(*) AS n FROM conc"), "n:long:notnull", "200;",
	    "two sessions: every insert landed");
}

static void
test_file_db(void)
{
	char path[64];
	struct sc_engine *e;
	struct sc_engine_conn *a, *b;
	struct sc_error err;
	struct res r;
	int fd;
	char *wal, *shm;

	tap_template(path, sizeof(path), "sc-engine-test-");
	fd = mkstemp(path);
	close(fd);
	e = sc_engine_new(path, &err);
	ok(e != NULL, "file database opens");
	if (e == NULL)
		return;
	a = sc_engine_conn_new(e, &err);
	b = sc_engine_conn_new(e, &err);
	res_init(&r);
	run(a, R_sql("CREATE TABLE f(x INT)"), &r, &err);
	res_release(&r);
	res_init(&r);
	run(a, R_sql("INSERT INTO f VALUES (1), (2)"), &r, &err);
	res_release(&r);
	res_init(&r);
	ok(run(b, R_sql("SELECT sum(x) AS s FROM f"), &r, &err) == 0 &&
		strcmp((const char *)r.data.data, "3;") == 0,
	    "file database shared between connections");
	res_release(&r);
	/* WAL mode: the log beside the database while connections are open. */
	wal = sc_xasprintf("%s-wal", path);
	shm = sc_xasprintf("%s-shm", path);
	ok(access(wal, F_OK) == 0, "WAL mode");
	sc_engine_conn_free(a);
	sc_engine_conn_free(b);
	sc_engine_free(e);
	unlink(path);
	unlink(wal);
	unlink(shm);
	free(wal);
	free(shm);
}

static void
test_sql_command(void)
{
	Spark__Connect__SqlCommand cmd;
	Spark__Connect__Relation *out = NULL;
	struct sc_error err;
	Rel *in;
	int rc;

	spark__connect__sql_command__init(&cmd);
	cmd.sql = (char *)"CREATE TABLE cmd1(a INT, b STRING)";
	rc = sc_engine_sql_command(c1, &cmd, &out, &err);
	ok(rc == 0 && out != NULL &&
		out->rel_type_case == SC_REL_(LOCAL_RELATION) &&
		out->local_relation->_data_case ==
		    SPARK__CONNECT__LOCAL_RELATION___DATA_DATA,
	    "DDL runs eagerly, gives a local relation");
	if (rc == 0) {
		struct sc_arrow_schema s;

		ok(sc_arrow_read_schema(out->local_relation->data.data,
		       out->local_relation->data.len, &s, &err) == 0 &&
			s.nfields == 0,
		    "DDL output has no columns");
		sc_arrow_schema_release(&s);
		sc_engine_relation_free(out);
	}

	cmd.sql = (char *)"INSERT INTO cmd1 VALUES (1, 'a'), (2, 'b')";
	rc = sc_engine_sql_command(c1, &cmd, &out, &err);
	ok(rc == 0 && out->rel_type_case == SC_REL_(LOCAL_RELATION),
	    "DML runs eagerly");
	if (rc == 0)
		sc_engine_relation_free(out);
	check(R_sql("SELECT a, b FROM cmd1 ORDER BY a"),
	    "a:integer:null,b:string:null", "1,a;2,b;", "DML rows written");
	/* SQLite's RETURNING is no clause of Spark's. */
	cmd.sql = (char *)"INSERT INTO cmd1 VALUES (3, 'c') RETURNING a";
	rc = sc_engine_sql_command(c1, &cmd, &out, &err);
	ok(rc == -1 && strcmp(err.errclass, "PARSE_SYNTAX_ERROR") == 0,
	    "RETURNING: PARSE_SYNTAX_ERROR");

	cmd.sql = (char *)"SELECT * FROM cmd1 WHERE a = :v";
	{
		Spark__Connect__SqlCommand__ArgsEntry ae =
		    SPARK__CONNECT__SQL_COMMAND__ARGS_ENTRY__INIT;
		Spark__Connect__SqlCommand__ArgsEntry *aep = &ae;
		Lit *v = L_long(2);

		ae.key = (char *)"v";
		ae.value = v;
		cmd.n_args = 1;
		cmd.args = &aep;
		rc = sc_engine_sql_command(c1, &cmd, &out, &err);
		cmd.n_args = 0;
		cmd.args = NULL;
		protobuf_c_message_free_unpacked(&v->base, NULL);
	}
	ok(rc == 0 && out->rel_type_case == SC_REL_(SQL) &&
		strcmp(out->sql->query, "SELECT * FROM cmd1 WHERE a = :v") ==
		    0 &&
		out->sql->n_args == 1 &&
		strcmp(out->sql->args[0]->key, "v") == 0 &&
		out->sql->args[0]->value->long_ == 2,
	    "query is echoed with its args (3.5 form)");
	if (rc == 0) {
		/* ... and the echo runs. */
		check(relation_copy_for_test(out),
		    "a:integer:null,b:string:null", "2,b;",
		    "echoed query runs");
		sc_engine_relation_free(out);
	}

	/* 4.x form: input = Relation{sql}. */
	in = R_sql("DELETE FROM cmd1 WHERE a = ?");
	sql_pos(in->sql, L_long(1));
	memset(&cmd, 0, sizeof(cmd));
	spark__connect__sql_command__init(&cmd);
	cmd.input = in;
	rc = sc_engine_sql_command(c1, &cmd, &out, &err);
	ok(rc == 0 && out->rel_type_case == SC_REL_(LOCAL_RELATION),
	    "4.x form DML");
	if (rc == 0)
		sc_engine_relation_free(out);
	rel_free(in);
	check(R_sql("SELECT count(*) AS n FROM cmd1"), "n:long:notnull", "1;",
	    "4.x DML took effect");

	in = R_sql("SELECT 1");
	spark__connect__sql_command__init(&cmd);
	cmd.input = in;
	rc = sc_engine_sql_command(c1, &cmd, &out, &err);
	ok(rc == 0 && out->rel_type_case == SC_REL_(SQL) &&
		strcmp(out->sql->query, "SELECT 1") == 0,
	    "4.x form query echo");
	if (rc == 0)
		sc_engine_relation_free(out);
	rel_free(in);

	spark__connect__sql_command__init(&cmd);
	cmd.sql = (char *)"CREATE TABLE cmd1(x INT)";
	rc = sc_engine_sql_command(c1, &cmd, &out, &err);
	ok(rc == -1 &&
		strcmp(err.errclass, "TABLE_OR_VIEW_ALREADY_EXISTS") == 0 &&
		strstr(err.msg, "SQLSTATE: 42P07") != NULL,
	    "sql_command error in Spark shape");
}

static void
test_unsupported(void)
{
	/* Relation{map_partitions: {}}, Expression{lambda_function: {}}. */
	static const uint8_t join[] = { 0xe2, 0x01, 0x00 };
	static const uint8_t window_expr[] = { 0x52, 0x00 };
	struct sc_error err;
	Rel *r;
	Expr *e;

	r = sc_proto_unpack(&spark__connect__relation__descriptor, join,
	    sizeof(join), &err);
	ok(r != NULL, "unpack map_partitions relation");
	if (r != NULL) {
		struct res res;

		res_init(&res);
		ok(run(c1, r, &res, &err) == -1, "map_partitions fails");
		is_str(err.errclass, "UNSUPPORTED_FEATURE.RELATION",
		    "map_partitions error class");
		is_str(err.sqlstate, "0A000", "map_partitions sqlstate");
		is_str(err.msg,
		    "[UNSUPPORTED_FEATURE.RELATION] The relation type "
		    "'map_partitions' is not supported by sc-serve. "
		    "SQLSTATE: 0A000",
		    "map_partitions message");
		res_release(&res);
	}
	e = sc_proto_unpack(&spark__connect__expression__descriptor,
	    window_expr, sizeof(window_expr), &err);
	ok(e != NULL, "unpack lambda expression");
	if (e != NULL)
		check_err(c1, R_project(R_range(0, 1), e, NULL),
		    "UNSUPPORTED_FEATURE.EXPRESSION", "lambda expression");
}

struct intr {
	struct sc_engine_conn *c;
	int ms;
};

static void *
interrupter(void *arg)
{
	struct intr *in = arg;

	usleep((useconds_t)in->ms * 1000);
	sc_engine_conn_interrupt(in->c);
	return NULL;
}

static void
test_interrupt(void)
{
	pthread_t t;
	struct intr in = { c2, 200 };
	struct res r;
	struct sc_error err;
	int rc;

	/* Not running: no effect on the next run. */
	sc_engine_conn_interrupt(c2);
	check_err(c2, R_sql("SELECT nosuch FROM nosuch"),
	    "TABLE_OR_VIEW_NOT_FOUND", "interrupt while idle is forgotten");

	res_init(&r);
	r.sum_only = true;
	pthread_create(&t, NULL, interrupter, &in);
	rc = run(c2, R_range(0, INT64_MAX), &r, &err);
	pthread_join(t, NULL);
	ok(rc == -1 && strcmp(err.errclass, "OPERATION_CANCELED") == 0 &&
		strcmp(err.sqlstate, "HY008") == 0,
	    "interrupt native range: OPERATION_CANCELED");
	res_release(&r);

	res_init(&r);
	pthread_create(&t, NULL, interrupter, &in);
	rc = run(c2, R_sql("SELECT count(*) FROM range(0, 1000000000000)"), &r,
	    &err);
	pthread_join(t, NULL);
	ok(rc == -1 && strcmp(err.errclass, "OPERATION_CANCELED") == 0,
	    "interrupt SQL: OPERATION_CANCELED");
	res_release(&r);

	/* A sink that stops. */
	res_init(&r);
	r.stop_after = 2;
	rc = run_l(c2, R_range(0, 1000), 100, 1 << 20, &r, &err);
	ok(rc == -1 && strcmp(err.errclass, "OPERATION_CANCELED") == 0 &&
		r.nbatches == 2,
	    "sink stop: OPERATION_CANCELED after 2 batches");
	res_release(&r);

	check(R_range(0, 2), "id:long:notnull", "0;1;",
	    "connection usable after cancel");
}

/* A run in another thread whose sink waits at its first batch. */
struct paused {
	struct sc_engine_conn *c;
	Rel *root;
	atomic_int cancel;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int at_batch; /* reached the first batch */
	int go; /* may continue */
	struct res r;
	struct sc_error err;
	int rc;
};

static int
paused_batch(void *arg, const uint8_t *ipc, size_t len, int64_t rows,
    int64_t start_offset)
{
	struct paused *p = arg;

	pthread_mutex_lock(&p->mu);
	p->at_batch = 1;
	pthread_cond_broadcast(&p->cv);
	while (!p->go)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	return on_batch(&p->r, ipc, len, rows, start_offset);
}

static int
paused_schema(void *arg, const Spark__Connect__DataType *dt)
{
	return on_schema(&((struct paused *)arg)->r, dt);
}

static void *
paused_thread(void *arg)
{
	struct paused *p = arg;
	struct sc_engine_limits lim = { 1000, 1 << 20 };
	struct sc_engine_sink sink = { paused_schema, paused_batch, p, NULL };

	sc_error_init(&p->err);
	p->rc = sc_engine_run_cancelable(p->c, p->root, &lim, &sink, &p->cancel,
	    &p->err);
	rel_free(p->root);
	return NULL;
}

static void
paused_start(struct paused *p, pthread_t *t, struct sc_engine_conn *c,
    Rel *root)
{
	memset(p, 0, sizeof(*p));
	p->c = c;
	p->root = root;
	atomic_init(&p->cancel, 0);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	res_init(&p->r);
	p->r.sum_only = true;
	pthread_create(t, NULL, paused_thread, p);
	pthread_mutex_lock(&p->mu);
	while (!p->at_batch)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

static void
paused_go(struct paused *p, pthread_t t)
{
	pthread_mutex_lock(&p->mu);
	p->go = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(t, NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
}

static void
test_same_session(void)
{
	struct paused a, b;
	pthread_t ta, tb;
	struct sc_buf arrow;

	/* A SQL stream stays open while other calls of the session run. */
	paused_start(&a, &ta, c1, R_sql("SELECT id FROM range(5000)"));
	check(R_sql("SELECT count(*) AS n FROM t"), "n:long:notnull", "3;",
	    "same session: a query while another streams");
	sc_buf_init(&arrow, SC_BUF_UNLIMITED);
	build_arrow(&arrow);
	check(R_project(R_local(arrow.data, arrow.len, NULL), E_col("id"),
		  NULL),
	    "id:long:notnull", "1;2;",
	    "same session: a local relation while another streams");
	sc_buf_release(&arrow);
	paused_go(&a, ta);
	ok(a.rc == 0 && a.r.rows == 5000 && a.r.sum == 12497500 &&
		!a.r.bad_offset,
	    "same session: the paused stream completes");
	res_release(&a.r);
	ok(sc_engine_conn_temp_tables(c1, "_sc_local") == 0,
	    "same session: TEMP table dropped once the stream ended");

	/* Cancel one of two concurrent calls. */
	paused_start(&a, &ta, c1, R_range(0, 1000000));
	paused_start(&b, &tb, c1, R_sql("SELECT id FROM range(100000)"));
	atomic_store(&a.cancel, 1);
	paused_go(&a, ta);
	paused_go(&b, tb);
	ok(a.rc == -1 && strcmp(a.err.errclass, "OPERATION_CANCELED") == 0,
	    "cancelable: the canceled call fails");
	ok(b.rc == 0 && b.r.rows == 100000 && b.r.sum == 4999950000LL,
	    "cancelable: the other call of the session completes");
	res_release(&a.r);
	res_release(&b.r);

	/* sc_engine_conn_interrupt() cancels every call of the session. */
	paused_start(&a, &ta, c1, R_range(0, 1000000));
	paused_start(&b, &tb, c1, R_sql("SELECT id FROM range(100000)"));
	sc_engine_conn_interrupt(c1);
	paused_go(&a, ta);
	paused_go(&b, tb);
	ok(a.rc == -1 && b.rc == -1 &&
		strcmp(a.err.errclass, "OPERATION_CANCELED") == 0 &&
		strcmp(b.err.errclass, "OPERATION_CANCELED") == 0,
	    "interrupt: both calls of the session canceled");
	res_release(&a.r);
	res_release(&b.r);
	check(R_range(0, 1), "id:long:notnull", "0;",
	    "interrupt: a later call runs");
}

static void
test_batching(void)
{
	struct res r;
	struct sc_error err;
	int rc, i;
	bool sizes = true;

	res_init(&r);
	rc = run_l(c1, R_range(0, 100), 30, 1 << 20, &r, &err);
	ok(rc == 0 && r.nbatches == 4 && r.batch_rows[0] == 30 &&
		r.batch_rows[3] == 10 && !r.bad_offset && !r.bad_rows,
	    "native range: 100 rows / max 30 = 4 batches");
	res_release(&r);

	res_init(&r);
	rc = run_l(c1, R_sql("SELECT id FROM range(100)"), 25, 1 << 20, &r,
	    &err);
	ok(rc == 0 && r.nbatches == 4 && !r.bad_offset && !r.bad_rows,
	    "SQL: 100 rows / max 25 = 4 batches");
	res_release(&r);

	/*
	 * int64 rows: 8 bytes of values plus a validity bitmap, each padded
	 * to 8: 31 rows = 248 + 8 = 256 bytes closes a batch of max 256.
	 */
	res_init(&r);
	rc = run_l(c1, R_range(0, 100), 1000, 256, &r, &err);
	for (i = 0; i < 3; i++)
		if (r.batch_rows[i] != 31)
			sizes = false;
	ok(rc == 0 && r.nbatches == 4 && sizes && r.batch_rows[3] == 7,
	    "native range: bytes limit 256 = 31 rows a batch");
	res_release(&r);

	/* Strings of 100 bytes: offsets 4 + data 100 per row. */
	res_init(&r);
	rc = run_l(c1,
	    R_sql("SELECT printf('%0100d', id) AS s FROM "
		  "range(50)"),
	    1000, 1000, &r, &err);
	ok(rc == 0 && r.nbatches == 5 && r.batch_rows[0] == 10 && !r.bad_rows &&
		r.rows == 50,
	    "SQL: bytes limit 1000 with 100-byte strings = 5 batches");
	if (r.nbatches != 5)
		printf("#   %d batches, first %" PRId64 "\n", r.nbatches,
		    r.batch_rows[0]);
	res_release(&r);

	res_init(&r);
	rc = run_l(c1, R_sql("SELECT 1 AS x WHERE false"), 10, 1000, &r, &err);
	ok(rc == 0 && r.nbatches == 1 && r.rows == 0 && r.nschema == 1,
	    "empty result: one 0-row batch");
	res_release(&r);

	res_init(&r);
	rc = run_l(c1, R_sql("CREATE TABLE IF NOT EXISTS emptyddl(x INT)"), 10,
	    1000, &r, &err);
	ok(rc == 0 && r.nbatches == 1 && r.rows == 0 &&
		strcmp((const char *)r.schema.data, "") == 0,
	    "DDL as a root: zero columns, one empty batch");
	if (rc != 0)
		printf("#   %s\n", err.msg);
	res_release(&r);
}

static void
setup(void)
{
	exec_sql(c1,
	    "CREATE TABLE t(a INT NOT NULL, b STRING, d DATE, "
	    "p DECIMAL(10,2), f BOOLEAN, ts TIMESTAMP)");
	exec_sql(c1,
	    "INSERT INTO t VALUES (1, 'one', '2024-01-02', 1.5, 1, "
	    "'2024-01-02 03:04:05'), (2, 'two', NULL, NULL, 0, NULL), "
	    "(3, NULL, '1970-01-01', '-0.25', NULL, '1970-01-01T00:00:00.5Z')");
	exec_sql(c1, "CREATE TABLE g(k STRING, v BIGINT)");
	exec_sql(c1,
	    "INSERT INTO g VALUES ('a', 1), ('a', 2), ('a', 3), "
	    "('b', 10), ('b', 10)");
	exec_sql(c1, "CREATE TABLE t2(x BIGINT)");
	exec_sql(c1, "INSERT INTO t2 VALUES (7)");
	exec_sql(c1,
	    "CREATE TABLE ty(i8 TINYINT, i16 SMALLINT, i64 BIGINT, "
	    "fl FLOAT, db DOUBLE, vc VARCHAR(10), bn BINARY, "
	    "tn TIMESTAMP_NTZ)");
	exec_sql(c1,
	    "INSERT INTO ty VALUES (1, 2, 3, 0.5, 0.25, 'v', "
	    "x'6869', '2024-01-01')");
	exec_sql(c1, "CREATE TABLE badint(i INT)");
	exec_sql(c1, "INSERT INTO badint VALUES ('abc')");
}

/* ------------------------------------------------------------------ */
/* Restrictions and limits (engine_guard.c)                            */
/* ------------------------------------------------------------------ */

/* Run sql on c: rc, and err filled on failure. */
static int
run_sql(struct sc_engine_conn *c, const char *sql, struct sc_error *err)
{
	struct res r;
	int rc;

	res_init(&r);
	rc = run(c, R_sql(sql), &r, err);
	res_release(&r);
	return rc;
}

/* Statements and functions Spark SQL lacks; no file is reached. */
static void
test_guard(void)
{
	Spark__Connect__SqlCommand cmd;
	Spark__Connect__Relation *out = NULL;
	struct sc_error err;
	char path[64], *sql;
	int fd;

	tap_template(path, sizeof(path), "sc-engine-guard-");
	fd = mkstemp(path);
	close(fd);
	unlink(path);
	/* No statement of Spark's: its syntax error, SQLite never sees it. */
	sql = sc_xasprintf("ATTACH 'file:%s?vfs=unix' AS y; "
			   "CREATE TABLE y.t(a)",
	    path);
	check_err(c1, R_sql(sql), "PARSE_SYNTAX_ERROR", "ATTACH of a URI");
	free(sql);
	sql = sc_xasprintf("VACUUM INTO 'file:%s?vfs=unix'", path);
	check_err(c1, R_sql(sql), "PARSE_SYNTAX_ERROR", "VACUUM INTO");
	free(sql);
	ok(access(path, F_OK) == -1, "no file was created");
	check_err(c1, R_sql("DETACH DATABASE main"), "PARSE_SYNTAX_ERROR",
	    "DETACH");
	check_err(c1, R_sql("PRAGMA writable_schema=ON"), "PARSE_SYNTAX_ERROR",
	    "writable_schema");
	check_err(c1, R_sql("PRAGMA database_list"), "PARSE_SYNTAX_ERROR",
	    "a pragma not on the list");
	check_err(c1,
	    R_sql("UPDATE sqlite_master SET sql = '' WHERE name = 'x'"),
	    "TABLE_OR_VIEW_NOT_FOUND",
	    "sqlite_master is not there for a client");
	check_err(c1, R_sql("SELECT fts3_tokenizer('simple')"),
	    "UNRESOLVED_ROUTINE", "fts3_tokenizer");
	/*
	 * No client text reaches the internal functions or SQLite's own
	 * tables: not SQL text SQLite would run, not an expression string,
	 * not a table name.
	 */
	check_err(c1, R_sql("SELECT sc_overlay('a') AS x WHERE 1 = 1"),
	    "UNRESOLVED_ROUTINE", "sc_overlay in SQL text");
	check_err(c1, R_sql("SELECT `SC_TS_FROM`(1, 0) AS x WHERE 1 = 1"),
	    "UNRESOLVED_ROUTINE", "a quoted, upper-case internal name");
	check_err(c1, R_project(NULL, E_sqlexpr("sc_overlay('abc')"), NULL),
	    "UNRESOLVED_ROUTINE", "sc_overlay in an expression string");
	check_err(c1, R_project(NULL, E_sqlexpr("zeroblob(3)"), NULL),
	    "UNRESOLVED_ROUTINE", "a SQLite-only function in an expression");
	check_err(c1, R_table("sqlite_master"), "TABLE_OR_VIEW_NOT_FOUND",
	    "sqlite_master as a DataFrame table");
	check_err(c1, R_sql("SELECT count(*) FROM 'dbstat'"),
	    "PARSE_SYNTAX_ERROR", "dbstat named by a string");
	check_err(c1, R_sql("DELETE FROM dbstat"), "TABLE_OR_VIEW_NOT_FOUND",
	    "dbstat as the table of DELETE");
	check_err(c1, R_sql("SELECT name FROM pragma_function_list"),
	    "TABLE_OR_VIEW_NOT_FOUND", "pragma_function_list");
	/* A view's body is the translator's: the function is not Spark's. */
	check_err(c1,
	    R_sql("CREATE VIEW fv AS SELECT fts3_tokenizer('simple') AS p"),
	    "UNRESOLVED_ROUTINE", "fts3_tokenizer in a view");
	check_err(c1, R_sql("CREATE VIRTUAL TABLE vt USING fts3(c)"),
	    "PARSE_SYNTAX_ERROR", "CREATE VIRTUAL TABLE");
	check_err(c1, R_sql("BEGIN IMMEDIATE"), "PARSE_SYNTAX_ERROR", "BEGIN");
	check_err(c1, R_sql("PRAGMA foreign_keys"), "PARSE_SYNTAX_ERROR",
	    "a pragma that only reads");
	check_err(c1, R_sql("SELECT count(*) AS n FROM pragma_table_info('t')"),
	    "UNSUPPORTED_FEATURE.SQL_SYNTAX", "pragma table-valued function");
	/* The same refusals through SqlCommand. */
	spark__connect__sql_command__init(&cmd);
	cmd.sql = (char *)"PRAGMA journal_mode = OFF";
	sc_error_init(&err);
	ok(sc_engine_sql_command(c1, &cmd, &out, &err) == -1 && out == NULL,
	    "SqlCommand: a pragma with a value fails");
	is_str(err.errclass, "PARSE_SYNTAX_ERROR", "SqlCommand: its class");
}

/* A chain of relations: SQL that SQLite's parser can take. */
static void
test_chains(void)
{
	char *sql;
	Rel *r;
	int i;

	r = R_sql("SELECT id FROM range(100)");
	for (i = 1; i <= 40; i++)
		r = R_filter(r,
		    E_fn(">=", E_col("id"), E_lit(L_long(i)), NULL));
	check(R_agg(r, 1, NULL, E_alias(E_fn("count", E_col("id"), NULL), "n"),
		  E_alias(E_fn("sum", E_col("id"), NULL), "s"), NULL),
	    "n:long:notnull,s:long:null", "60,4170;", "40 chained filters");
	r = R_sql("SELECT id FROM range(100)");
	for (i = 1; i <= 20; i++)
		r = R_project(
		    R_filter(r,
			E_fn(">=", E_col("id"), E_lit(L_long(i)), NULL)),
		    E_col("id"), NULL);
	r = R_limit(R_sort(R_todf(R_alias(r, "q"), "v", NULL),
			S_order(E_col("v"), 1, 0), NULL),
	    2);
	check(r, "v:long:notnull", "99;98;", "20 project/filter pairs");
	/* range(): a hidden column holds its argument (SQLite checks the
	 * constraints past the 16th itself). */
	sql = sc_xasprintf("SELECT count(*) AS n FROM range(100) WHERE %s",
	    "id >= 0 AND id >= 1 AND id >= 2 AND id >= 3 AND id >= 4 AND "
	    "id >= 5 AND id >= 6 AND id >= 7 AND id >= 8 AND id >= 9 AND "
	    "id >= 10 AND id >= 11 AND id >= 12 AND id >= 13 AND "
	    "id >= 14 AND id >= 15 AND id >= 16 AND id >= 17");
	check(R_sql(sql), "n:long:notnull", "83;",
	    "range() with 18 constraints");
	free(sql);
}

/* Run root on c1 and expect class cls and a message starting with msg. */
static void
check_err_msg(Rel *root, const char *cls, const char *msg, const char *name)
{
	struct res r;
	struct sc_error err;
	char *want = sc_xasprintf("[%s] %s", cls, msg);
	int rc;

	res_init(&r);
	rc = run(c1, root, &r, &err);
	ok(rc == -1, "%s: fails", name);
	is_str(err.errclass, cls, "%s: error class", name);
	ok(strncmp(err.msg, want, strlen(want)) == 0, "%s: message", name);
	if (strncmp(err.msg, want, strlen(want)) != 0)
		printf("#   message: %s\n", err.msg);
	free(want);
	res_release(&r);
}

/* n copies of item joined by sep, between head and tail (free it). */
static char *
repeat_sql(const char *head, const char *item, const char *sep, int n,
    const char *tail)
{
	struct sc_buf b;
	int i;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_buf_addstr(&b, head, NULL);
	for (i = 0; i < n; i++) {
		if (i > 0)
			sc_buf_addstr(&b, sep, NULL);
		sc_buf_addstr(&b, item, NULL);
	}
	sc_buf_addstr(&b, tail, NULL);
	sc_buf_addch(&b, '\0', NULL);
	return (char *)sc_buf_detach(&b, NULL);
}

/* A chain of n CTEs, each reading the one before. */
static char *
cte_chain(int n)
{
	struct sc_buf b;
	int i;

	sc_buf_init(&b, SC_BUF_UNLIMITED);
	sc_buf_addstr(&b, "WITH c0 AS (SELECT id FROM range(3))", NULL);
	for (i = 1; i < n; i++)
		sc_buf_addf(&b, NULL, ", c%d AS (SELECT * FROM c%d)", i, i - 1);
	sc_buf_addf(&b, NULL, " SELECT sum(id) AS s FROM c%d", n - 1);
	sc_buf_addch(&b, '\0', NULL);
	return (char *)sc_buf_detach(&b, NULL);
}

/*
 * Client input is never walked without bound: chained operators count
 * towards the parser's depth limit (a chain of 70 000 once overflowed
 * the stack freeing its tree), copies are bounded, a projection wider
 * than SQLite's result is refused up front, and a canceled call stops
 * translating.
 */
static void
test_deep_input(void)
{
	static const char deep[] = "The statement is too complex to parse: "
				   "it nests expressions, subqueries or "
				   "chained operators more than 200 levels "
				   "deep.";
	static const struct {
		const char *head, *item, *sep, *tail;
	} shapes[] = {
		{ "SELECT ", "1", " + ", " AS x" },
		{ "SELECT ", "1", " * ", " AS x" },
		{ "SELECT ", "true", " OR ", " AS x" },
		{ "SELECT ", "true", " AND ", " AS x" },
		{ "SELECT ", "'a'", " || ", " AS x" },
		{ "SELECT ", "1", " = ", " AS x" },
		{ "SELECT count(*) AS n FROM (", "SELECT 1 AS x", " UNION ALL ",
		    ")" },
		{ "SELECT count(*) AS n FROM ", "range(1)", ", ", "" },
		{ "SELECT ", "CAST(1 AS INT)", "::INT", " AS x" },
	};
	struct sc_engine_limits lim = { 1000, 1 << 20 };
	struct sc_engine_sink sink;
	struct sc_error err;
	atomic_int cancel;
	struct res r;
	Spark__Connect__Project *p;
	char *sql, name[64];
	size_t i;
	Rel *root;
	int rc;

	for (i = 0; i < SC_NELEM(shapes); i++) {
		sql = repeat_sql(shapes[i].head, shapes[i].item, shapes[i].sep,
		    100000, shapes[i].tail);
		snprintf(name, sizeof(name), "chain of 100000 '%s'",
		    shapes[i].sep);
		check_err_msg(R_sql(sql), "FAILED_TO_PARSE_TOO_COMPLEX", deep,
		    name);
		free(sql);
	}
	sql = cte_chain(3000);
	check_err_msg(R_sql(sql), "FAILED_TO_PARSE_TOO_COMPLEX", deep,
	    "3000 chained CTEs");
	free(sql);
	sql = cte_chain(40);
	check(R_sql(sql), "s:long:null", "3;", "40 chained CTEs");
	free(sql);
	sql = repeat_sql("SELECT count(*) AS n FROM (", "SELECT 1 AS x",
	    " UNION ALL ", 150, ")");
	check(R_sql(sql), "n:long:notnull", "150;", "UNION ALL of 150");
	free(sql);
	sql = repeat_sql("SELECT ", "1", " + ", 30, " AS x");
	check(R_sql(sql), "x:integer:notnull", "30;", "sum of 30 ones");
	free(sql);
	/* Each BETWEEN copies its left operand: twice the plan each time. */
	sql = repeat_sql("SELECT 1 ", "BETWEEN 0 AND 2", " ", 60, " AS x");
	check_err_msg(R_sql(sql), "FAILED_TO_PARSE_TOO_COMPLEX",
	    "The statement is too complex to parse: its common table "
	    "expressions and repeated operands expand to more than 4194304 "
	    "bytes of plan.",
	    "60 chained BETWEENs");
	free(sql);

	/* A join's columns of one name: each read by its own SQL name. */
	check(R_sql("SELECT * FROM (SELECT 1 AS id, 2 AS `id#1`) a JOIN "
		    "(SELECT 3 AS id, 4 AS `id#2`) b JOIN (SELECT 5 AS id) c"),
	    "id:integer:notnull,id#1:integer:notnull,id:integer:notnull,"
	    "id#2:integer:notnull,id:integer:notnull",
	    "1,2,3,4,5;", "join of columns named alike");
	sql =
	    repeat_sql("SELECT count(*) AS n FROM ", "range(2)", ", ", 12, "");
	check(R_sql(sql), "n:long:notnull", "4096;", "join of 12 ranges");
	free(sql);

	check_err_msg(R_sql("SELECT count(*) AS n FROM range(1) GROUP BY "
			    "GROUPING SETS ((id + 1), (id + 2), (id + 3), "
			    "(id + 4), (id + 5), (id + 6), (id + 7), "
			    "(id + 8), (id + 9), (id + 10), (id + 11), "
			    "(id + 12), (id + 13))"),
	    "UNSUPPORTED_FEATURE.GROUP_TYPE",
	    "Grouping sets over more than 12 expressions are not supported "
	    "by sc-serve.",
	    "GROUPING SETS of 13 keys");

	/* 2001 columns: refused before any is translated. */
	root = R_project(R_sql("SELECT 1 AS a"), E_col("a"), NULL);
	p = root->project;
	p->expressions =
	    sc_xreallocarray(p->expressions, 2001, sizeof(*p->expressions));
	for (i = 1; i < 2001; i++)
		p->expressions[i] = E_col("nosuch");
	p->n_expressions = 2001;
	check_err_msg(root, "UNSUPPORTED_FEATURE.RELATION",
	    "A projection of 2001 columns (more than 2000) is not supported "
	    "by sc-serve.",
	    "2001 columns");

	/* Canceled before it starts: translating stops at once. */
	res_init(&r);
	sink = (struct sc_engine_sink){ on_schema, on_batch, &r, NULL };
	atomic_init(&cancel, 1);
	root = R_project(R_sql("SELECT 1 AS a"), E_col("nosuch"), NULL);
	sc_error_init(&err);
	rc = sc_engine_run_cancelable(c1, root, &lim, &sink, &cancel, &err);
	rel_free(root);
	ok(rc == -1 && strcmp(err.errclass, "OPERATION_CANCELED") == 0,
	    "canceled call stops translating: OPERATION_CANCELED (%s)",
	    err.errclass);
	res_release(&r);
}

/* The value and memory limits, as set by sc_engine_configure(). */
static void
test_limits(void)
{
	struct sc_server_conf conf;
	struct sc_engine_config lim;
	struct sc_engine *e;
	struct sc_engine_conn *c;
	struct sc_error err;
	struct res r;

	sc_server_conf_default(&conf);
	ok(sc_server_conf_set(&conf, "sctk.sql.operationMemory", "16m", &err) ==
		    0 &&
		sc_server_conf_set(&conf, "max-value-size", "1m", &err) == 0,
	    "the limits are settings");
	e = sc_engine_new(NULL, &err);
	if (e == NULL)
		return;
	sc_server_conf_engine(&conf, &lim);
	sc_engine_configure(e, &lim);
	c = sc_engine_conn_new(e, &err);
	ok(c != NULL, "a connection with the limits");
	if (c == NULL) {
		sc_engine_free(e);
		return;
	}
	is_int(run_sql(c, "SELECT count(DISTINCT id) FROM range(1000000000000)",
		   &err),
	    -1, "a count of distinct values stops");
	is_str(err.errclass, "UNABLE_TO_ACQUIRE_MEMORY", "memory: class");
	is_str(err.sqlstate, "53200", "memory: SQLSTATE");
	is_int(err.rpc_code, SC_GRPC_RESOURCE_EXHAUSTED,
	    "memory: RESOURCE_EXHAUSTED");
	ok(strstr(err.msg, "more than the 16777216 bytes") != NULL &&
		strstr(err.msg, "sctk.sql.operationMemory") != NULL,
	    "memory: the message names the limit: %s", err.msg);
	is_int(run_sql(c, "SELECT repeat('x', 1048577)", &err), -1,
	    "a value over the value limit fails");
	is_str(err.errclass, "EXCEED_LIMIT_LENGTH", "value: class");
	is_int(err.rpc_code, SC_GRPC_RESOURCE_EXHAUSTED,
	    "value: RESOURCE_EXHAUSTED");
	res_init(&r);
	ok(run(c, R_sql("SELECT length(repeat('x', 1048576)) AS n"), &r,
	       &err) == 0 &&
		strcmp((const char *)r.data.data, "1048576;") == 0,
	    "a value at the limit passes");
	res_release(&r);
	/* The database's own memory belongs to no operation. */
	res_init(&r);
	ok(run(c, R_sql("CREATE TABLE big(b STRING)"), &r, &err) == 0,
	    "a table for 40 MB");
	res_release(&r);
	res_init(&r);
	ok(run(c,
	       R_sql("INSERT INTO big SELECT repeat('x', 1000000) FROM "
		     "range(40)"),
	       &r, &err) == 0,
	    "40 MB written to the database by one operation: %s",
	    r.data.len > 0 ? "" : err.msg);
	res_release(&r);
	res_init(&r);
	ok(run(c, R_sql("SELECT count(*) AS n FROM big"), &r, &err) == 0 &&
		strcmp((const char *)r.data.data, "40;") == 0,
	    "the connection goes on");
	res_release(&r);
	sc_engine_conn_free(c);
	sc_engine_free(e);
}

/* ------------------------------------------------------------------ */
/* Reading uploaded files (engine_files.c)                             */
/* ------------------------------------------------------------------ */

static char files_dir[64];

/* The resolver: "files/NAME" is NAME in files_dir; owner must be c1. */
static int
files_fn(void *arg, void *owner, const char *name, int *fdp,
    struct sc_error *err)
{
	char path[256];

	(void)arg;
	snprintf(path, sizeof(path), "%s/%s", files_dir, name + 6);
	if (owner != (void *)c1 ||
	    (*fdp = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return sc_srv_error(err, "PATH_NOT_FOUND", "42K03",
		    "Path does not exist: %s.", name);
	return 0;
}

static void
put_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", files_dir, name);
	f = fopen(path, "wb");
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

/* read.data_source of format over one path; opts "k", "v", ..., NULL. */
static Rel *
R_read(const char *format, const char *path, const char *schema, ...)
{
	Rel *r = rel_new();
	Spark__Connect__Read *rd = sc_xmalloc(sizeof(*rd));
	Spark__Connect__Read__DataSource *ds = sc_xmalloc(sizeof(*ds));
	const char *k, *v;
	va_list ap;

	spark__connect__read__init(rd);
	spark__connect__read__data_source__init(ds);
	rd->read_type_case = SPARK__CONNECT__READ__READ_TYPE_DATA_SOURCE;
	rd->data_source = ds;
	r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_READ;
	r->read = rd;
	ds->_format_case = SPARK__CONNECT__READ__DATA_SOURCE___FORMAT_FORMAT;
	ds->format = sc_xstrdup(format);
	if (schema != NULL) {
		ds->_schema_case =
		    SPARK__CONNECT__READ__DATA_SOURCE___SCHEMA_SCHEMA;
		ds->schema = sc_xstrdup(schema);
	}
	ds->paths = sc_xmalloc(sizeof(char *));
	ds->paths[0] = sc_xstrdup(path);
	ds->n_paths = 1;
	va_start(ap, schema);
	while ((k = va_arg(ap, const char *)) != NULL) {
		Spark__Connect__Read__DataSource__OptionsEntry *o =
		    sc_xmalloc(sizeof(*o));

		v = va_arg(ap, const char *);
		spark__connect__read__data_source__options_entry__init(o);
		o->key = sc_xstrdup(k);
		o->value = sc_xstrdup(v);
		ds->options =
		    sc_xreallocarray(ds->options, ds->n_options + 1, sizeof(o));
		ds->options[ds->n_options++] = o;
	}
	va_end(ap);
	return r;
}

static void
test_files(void)
{
	char path[256];

	snprintf(files_dir, sizeof(files_dir), "/tmp/sctk-engine-files-XXXXXX");
	if (mkdtemp(files_dir) == NULL) {
		ok(0, "a directory for files");
		return;
	}
	/* Without a resolver every file is missing. */
	check_err(c1, R_read("csv", "files/a.csv", NULL, NULL),
	    "PATH_NOT_FOUND", "no resolver");
	sc_engine_set_files(eng, files_fn, NULL);
	sc_engine_conn_set_owner(c1, c1);

	/* Quotes, escapes, separators inside quotes, CRLF, short rows. */
	put_file("q.csv",
	    "a,b,c\r\n"
	    "\"x,y\",\"he said \"\"hi\"\"\",\"back\\\"slash\"\r\n"
	    "\r\n"
	    "plain,\"\",\r\n"
	    "\"end\"tail,  sp  \r\n");
	check(R_read("csv", "files/q.csv", NULL, "header", "true", NULL),
	    "a:string:null,b:string:null,c:string:null",
	    "x,y,he said \"hi\",back\"slash;plain,null,null;endtail,  sp  ,"
	    "null;",
	    "csv quoting, CRLF, empty line, short row");
	check(R_read("csv", "files/q.csv", NULL, "header", "true", "escape", "",
		  "nullValue", "-", NULL),
	    "a:string:null,b:string:null,c:string:null",
	    "x,y,he said \"hi\",back\\slash\";plain,,null;endtail,  sp  ,"
	    "null;",
	    "csv without escape; quoted empty is '' when nullValue is set");
	/* Header names: empty ones are _c<i>, duplicates get their index. */
	put_file("h.csv", "k,,K,z\n1,2,3,4,5\n");
	check(R_read("csv", "files/h.csv", NULL, "header", "true",
		  "inferSchema", "true", NULL),
	    "k0:integer:null,_c1:integer:null,K2:integer:null,z:integer:null",
	    "1,2,3,4;", "csv header names, a long row cut");
	/* Inference merges: int+long=long, int+double=double, date+ts=ts. */
	put_file("i.csv",
	    "1,1,2024-01-01,true,1\n"
	    "99999999999,0.5,2024-01-02 03:04:05,false,x\n"
	    ",,,,\n");
	check(R_read("csv", "files/i.csv", NULL, "inferSchema", "true", NULL),
	    "_c0:long:null,_c1:double:null,_c2:timestamp:null,"
	    "_c3:boolean:null,_c4:string:null",
	    "1,1.0,2024-01-01 00:00:00,true,1;99999999999,0.5,"
	    "2024-01-02 03:04:05,false,x;null,null,null,null,null;",
	    "csv inferSchema merges");
	check(R_read("csv", "files/i.csv", NULL, "sep", "|", NULL),
	    "_c0:string:null",
	    "1,1,2024-01-01,true,1;"
	    "99999999999,0.5,2024-01-02 03:04:05,false,x;,,,,;",
	    "csv with another separator");
	check(R_read("csv", "files/i.csv", "a BIGINT, b DOUBLE", NULL),
	    "a:long:null,b:double:null", "1,1.0;99999999999,0.5;null,null;",
	    "csv with a schema");
	/* JSON lines: escapes, surrogates, numbers, nulls, corrupt lines. */
	put_file("j.json",
	    "{\"s\": \"a\\tb\\u00e9\\ud83d\\ude00\", \"n\": -12, "
	    "\"big\": 10000000000000000000}\r\n"
	    "  \n"
	    "{\"n\": 1e2, \"s\": null, \"t\": false, \"big\": 1}\n"
	    "{\"n\": 3,}\n"
	    "[1]\n");
	check(R_read("json", "files/j.json", NULL, NULL),
	    "_corrupt_record:string:null,big:decimal(38,0):null,n:double:null,"
	    "s:string:null,t:boolean:null",
	    "null,10000000000000000000,-12.0,a\tb\xc3\xa9\xf0\x9f\x98\x80,"
	    "null;null,1,100.0,null,false;{\"n\": 3,},null,null,null,null;"
	    "[1],null,null,null,null;",
	    "json lines");
	put_file("nest.json", "{\"a\": {\"b\": 1}}\n");
	check_err(c1, R_read("json", "files/nest.json", NULL, NULL),
	    "UNSUPPORTED_FEATURE.DATA_TYPE", "json nested value");
	put_file("t.txt", "a\r\n\nb\rc\n");
	check(R_read("text", "files/t.txt", NULL, NULL), "value:string:null",
	    "a;;b\rc;", "text lines");
	/* SQL forms. */
	check(R_sql(
		  "SELECT count(*) AS n, sum(_c0) AS s FROM csv.`files/i.csv`"),
	    "n:long:notnull,s:long:null", "3,100000000000;",
	    "csv.`files/...` in SQL");
	check(R_sql("SELECT sum(n) AS s FROM read_files('files/j.json', "
		    "format => 'json') WHERE n > 0"),
	    "s:double:null", "100.0;", "read_files() in SQL");
	check_err(c1, R_sql("SELECT * FROM read_files('files/i.csv', 7)"),
	    "INVALID_PARAMETER_VALUE", "read_files() with a bad argument");
	/* Refusals. */
	check_err(c1, R_read("csv", "/etc/passwd", NULL, NULL),
	    "UNSUPPORTED_FEATURE.DATA_SOURCE", "an absolute path");
	check_err(c1, R_read("orc", "files/i.csv", NULL, NULL),
	    "UNSUPPORTED_FEATURE.DATA_SOURCE", "another format");
	check_err(c1, R_read("csv", "files/i.csv", NULL, "quote", "ab", NULL),
	    "UNSUPPORTED_FEATURE.DATA_SOURCE", "a two-character quote");
	check_err(c1, R_read("csv", "files/none.csv", NULL, NULL),
	    "PATH_NOT_FOUND", "a missing file");
	check_err(c2, R_read("csv", "files/i.csv", NULL, NULL),
	    "PATH_NOT_FOUND", "another connection's owner");
	sc_engine_set_files(eng, NULL, NULL);
	for (const char *const *f = (const char *const[]){ "q.csv", "h.csv",
		 "i.csv", "j.json", "nest.json", "t.txt", NULL };
	     *f != NULL; f++) {
		snprintf(path, sizeof(path), "%s/%s", files_dir, *f);
		unlink(path);
	}
	rmdir(files_dir);
}

/* Rows of a SqlCommand's local relation, as on_batch() writes them. */
static char *
command_rows(const char *sql, struct sc_error *err)
{
	Spark__Connect__SqlCommand cmd;
	Spark__Connect__Relation *out = NULL;
	struct res r;
	char *rows;

	spark__connect__sql_command__init(&cmd);
	cmd.sql = (char *)sql;
	if (sc_engine_sql_command(c1, &cmd, &out, err) == -1)
		return NULL;
	if (out->rel_type_case != SC_REL_(LOCAL_RELATION)) {
		sc_engine_relation_free(out);
		return sc_xstrdup("(a query)");
	}
	res_init(&r);
	if (out->local_relation->_data_case ==
	    SPARK__CONNECT__LOCAL_RELATION___DATA_DATA)
		on_batch(&r, out->local_relation->data.data,
		    out->local_relation->data.len, 0, 0);
	rows = sc_xstrdup(r.data.data != NULL ? (const char *)r.data.data : "");
	res_release(&r);
	sc_engine_relation_free(out);
	return rows;
}

/*
 * Spark SQL text: a query the parser takes has Spark's types and names;
 * text it does not take keeps SQLite's answers; statements give Spark's
 * rows; the analysis kinds that run no SQL.
 */
static void
test_spark_sql(void)
{
	Spark__Connect__DataType *dt = NULL;
	struct sc_engine_storage lv;
	struct sc_error err;
	char *text = NULL;
	int32_t h1 = 0, h2 = 1;
	bool same = false;
	Rel *a, *b;

	check(R_sql("SELECT 7 / 2 AS q, 1L AS l, 1.5 AS d, 'a' LIKE 'A' AS k"),
	    "q:double:null,l:long:notnull,d:decimal(2,1):notnull,"
	    "k:boolean:null",
	    "3.5,1,1.5,false;", "Spark SQL: a query has Spark's types");
	check(R_sql("SELECT 7 / 2 AS q FROM range(1) JOIN range(1)"),
	    "q:double:null", "3.5;", "Spark SQL: a join has Spark's types");
	check(R_project(R_sql("SELECT 7 / 2 AS q, 1 AS i"), E_col("q"),
		  E_col("i"), NULL),
	    "q:double:null,i:integer:notnull", "3.5,1;",
	    "Spark SQL: a sql relation under a projection");
	check(R_sql("SELECT typeof(1) AS t"), "t:string:notnull", "int;",
	    "Spark SQL: typeof() is Spark's");
	check_err(c1, R_sql("SELECT quote('a') AS s"), "UNRESOLVED_ROUTINE",
	    "Spark SQL: a function only SQLite has is not Spark's");
	check(R_sql("SELECT printf('%03d', 7) AS s"), "s:string:notnull",
	    "007;", "Spark SQL: printf is Spark's format_string");
	check_err(c1, R_sql("SELECT hex(1)"), "UNRESOLVED_ROUTINE",
	    "Spark SQL: hex() is refused, not SQLite's");
	check_err(c1, R_sql("SELECT mod(7, 3)"),
	    "UNSUPPORTED_FEATURE.SQL_SYNTAX",
	    "Spark SQL: mod() is refused by name, not SQLite's double");
	check_err(c1, R_sql("SELECT INTERVAL '1 day'"),
	    "UNSUPPORTED_FEATURE.EXPRESSION",
	    "Spark SQL: INTERVAL without fields");
	check_err(c1, R_sql("SELECT id FROM range(3) WHERE id IN (SELECT 1)"),
	    "UNSUPPORTED_FEATURE.SQL_SYNTAX",
	    "Spark SQL: IN (SELECT ...) is refused, not SQLite's");
	check_err(c1,
	    R_sql("SELECT id FROM range(3) WHERE NOT EXISTS (SELECT 1)"),
	    "UNSUPPORTED_FEATURE.SQL_SYNTAX",
	    "Spark SQL: EXISTS is refused, not SQLite's");
	check_err(c1, R_sql("SELECT (SELECT max(id) FROM range(3)) AS m"),
	    "UNSUPPORTED_FEATURE.SQL_SYNTAX",
	    "Spark SQL: a scalar subquery is refused, not SQLite's");
	check(R_sql("SELECT k, count(*) AS n FROM (SELECT id % 2 AS k FROM "
		    "range(5)) GROUP BY k ORDER BY k"),
	    "k:long:null,n:long:notnull", "0,3;1,2;",
	    "Spark SQL: GROUP BY keys are not in the output");
	check(R_sql("SELECT * FROM VALUES (1, 'a'), (2, NULL) AS t(x, y)"),
	    "x:integer:notnull,y:string:null", "1,a;2,null;",
	    "Spark SQL: VALUES");

	exec_sql(c1,
	    "CREATE TABLE ss1 (a INT, b STRING) USING parquet "
	    "OPTIONS (path 'x') COMMENT 'c'");
	text = command_rows("DESCRIBE ss1", &err);
	is_str(text, "a,int,null;b,string,null;", "DESCRIBE: Spark's rows");
	free(text);
	text = command_rows("SHOW TABLES LIKE 'ss1'", &err);
	is_str(text, "default,ss1,false;", "SHOW TABLES: Spark's rows");
	free(text);
	text = command_rows("USE default", &err);
	is_str(text, "", "USE default: no rows");
	free(text);
	is_int(command_rows("USE nodb", &err) == NULL, 1, "USE nodb fails");
	is_str(err.errclass, "SCHEMA_NOT_FOUND", "USE nodb: class");
	is_int(command_rows("SET x.y=1", &err) == NULL, 1,
	    "SET without a session's settings fails");
	is_str(err.errclass, "UNSUPPORTED_FEATURE.SQL_STATEMENT",
	    "SET without a session's settings: class");
	text = command_rows(
	    "CREATE OR REPLACE TEMP VIEW sv AS SELECT 7 / 2 AS q", &err);
	free(text);
	text = command_rows(
	    "CREATE OR REPLACE TEMPORARY VIEW sv AS SELECT 9 / 2 AS q", &err);
	ok(text != NULL, "CREATE OR REPLACE TEMP VIEW twice: %s",
	    text != NULL ? "" : err.msg);
	free(text);
	check(R_sql("SELECT q FROM sv"), "q:double:null", "4.5;",
	    "a view's body keeps Spark's semantics");
	text = command_rows("INSERT INTO TABLE ss1 VALUES (1, 'x')", &err);
	free(text);
	text = command_rows("INSERT OVERWRITE TABLE ss1 VALUES (2, 'y')", &err);
	free(text);
	check(R_sql("SELECT a, b FROM ss1"), "a:integer:null,b:string:null",
	    "2,y;", "INSERT OVERWRITE replaces the rows");
	/* A storage clause that ends the text (read past it once). */
	is_int(command_rows("CREATE TABLE ss2 USING parquet", &err) == NULL, 1,
	    "CREATE TABLE with a clause and nothing else fails");
	is_str(err.errclass, "PARSE_SYNTAX_ERROR",
	    "CREATE TABLE with a clause and nothing else: class");

	ok(sc_engine_ddl_parse("a INT, b DECIMAL(10,2) NOT NULL", &dt, &err) ==
		    0 &&
		dt->kind_case == SC_DT_(STRUCT) && dt->struct_->n_fields == 2 &&
		!dt->struct_->fields[1]->nullable,
	    "ddl_parse: a schema");
	sc_engine_datatype_free(dt);
	dt = NULL;
	ok(sc_engine_ddl_parse(" bigint ", &dt, &err) == 0 &&
		dt->kind_case == SC_DT_(LONG),
	    "ddl_parse: a bare type");
	sc_engine_datatype_free(dt);
	is_int(sc_engine_json_to_ddl("a INT", &text, &err), -1,
	    "json_to_ddl: DDL is not JSON");
	is_str(err.errclass, "INVALID_JSON_SCHEMA", "json_to_ddl: class");
	ok(sc_engine_json_to_ddl("{\"type\":\"struct\",\"fields\":[{\"name\":"
				 "\"a\",\"type\":\"long\",\"nullable\":"
				 "false,\"metadata\":{}}]}",
	       &text, &err) == 0,
	    "json_to_ddl: a schema");
	is_str(text, "a BIGINT NOT NULL", "json_to_ddl: Spark's DDL");
	free(text);

	a = R_range(0, 10);
	b = R_range(0, 10);
	b->common = sc_xmalloc(sizeof(*b->common));
	spark__connect__relation_common__init(b->common);
	b->common->_plan_id_case =
	    SPARK__CONNECT__RELATION_COMMON___PLAN_ID_PLAN_ID;
	b->common->plan_id = 42;
	ok(sc_engine_same_semantics(a, b, &same, &err) == 0 && same,
	    "same_semantics: plan ids do not count");
	ok(sc_engine_semantic_hash(a, &h1, &err) == 0 &&
		sc_engine_semantic_hash(b, &h2, &err) == 0 && h1 == h2,
	    "semantic_hash: plan ids do not count");
	lv.use_disk = true;
	lv.use_memory = false;
	lv.use_off_heap = false;
	lv.deserialized = false;
	lv.replication = 3;
	ok(sc_engine_persist(c1, a, &lv, &err) == 0, "persist");
	memset(&lv, 0, sizeof(lv));
	ok(sc_engine_storage_level(c1, b, &lv, &err) == 0 && lv.use_disk &&
		lv.replication == 3,
	    "get_storage_level: the level persisted");
	ok(sc_engine_storage_level(c2, b, &lv, &err) == 0 && !lv.use_disk &&
		lv.replication == 1,
	    "get_storage_level: another connection's is NONE");
	rel_free(a);
	rel_free(b);
}

int
main(void)
{
	struct sc_error err;

	eng = sc_engine_new(NULL, &err);
	ok(eng != NULL, "in-memory engine");
	c1 = sc_engine_conn_new(eng, &err);
	c2 = sc_engine_conn_new(eng, &err);
	ok(c1 != NULL && c2 != NULL, "two connections");
	if (eng == NULL || c1 == NULL || c2 == NULL)
		return tap_done();
	setup();
	test_sql_basic();
	test_sql_args();
	test_range();
	test_relations();
	test_expressions();
	test_types();
	test_value_text();
	test_cast_type_text();
	test_local();
	test_show();
	test_tree_string();
	test_sessions();
	test_concurrency();
	test_file_db();
	test_sql_command();
	test_unsupported();
	test_interrupt();
	test_same_session();
	test_batching();
	test_guard();
	test_chains();
	test_deep_input();
	test_limits();
	test_files();
	test_spark_sql();
	sc_engine_conn_free(c1);
	sc_engine_conn_free(c2);
	sc_engine_free(eng);
	return tap_done();
}
