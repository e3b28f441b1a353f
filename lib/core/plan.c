/* SPDX-License-Identifier: MIT */

/*
 * plan.c: building the spark.connect.Plan messages a client sends.
 *
 * A built plan is one allocation holding every message of its small
 * tree, pointing at each other; a parsed or adopted plan owns the
 * unpacked message it points into.
 */

#include "core/plan.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/protocol.h"
#include "core/xmem.h"
#include "core/banned.h"

struct sc_plan {
	Spark__Connect__Plan *msg; /* the plan sent: &plan, or in owned */
	ProtobufCMessage *owned; /* unpacked message freed with the plan */
	char *text; /* the SQL, owned */
	Spark__Connect__Plan plan;
	Spark__Connect__Relation rel;
	Spark__Connect__SQL sql;
	Spark__Connect__Range range;
	Spark__Connect__SqlCommand sqlcmd;
	Spark__Connect__Command cmd;
	struct params *params; /* sc_plan_*_params(), or NULL */
};

/* The messages of n parameters, one allocation each array. */
struct params {
	size_t n;
	char **texts; /* names and string values, owned */
	size_t ntexts;
	Spark__Connect__Expression__Literal *lit, **litp;
	Spark__Connect__Expression__Literal__Decimal *dec;
	Spark__Connect__Expression *expr, **exprp;
	Spark__Connect__SqlCommand__ArgsEntry *cargs, **cargsp;
	Spark__Connect__SQL__ArgsEntry *sargs, **sargsp;
	Spark__Connect__SQL__NamedArgumentsEntry *snamed, **snamedp;
};

static struct sc_plan *
plan_new(void)
{
	struct sc_plan *p;

	p = sc_xcalloc(1, sizeof(*p));
	spark__connect__plan__init(&p->plan);
	spark__connect__relation__init(&p->rel);
	spark__connect__sql__init(&p->sql);
	spark__connect__range__init(&p->range);
	spark__connect__sql_command__init(&p->sqlcmd);
	spark__connect__command__init(&p->cmd);
	p->msg = &p->plan;
	return p;
}

/* Relation{sql{query: p->text}} in p->rel. */
static void
sql_relation(struct sc_plan *p)
{
	p->sql.query = p->text;
	p->rel.rel_type_case = SC_REL_(SQL);
	p->rel.sql = &p->sql;
}

struct sc_plan *
sc_plan_sql_command(const char *stmt)
{
	struct sc_plan *p = plan_new();

	p->text = sc_xstrdup(stmt);
	sql_relation(p);
	p->sqlcmd.sql = p->text; /* Spark 3.5 */
	p->sqlcmd.input = &p->rel; /* Spark 4.x */
	p->cmd.command_type_case = SC_CMD_(SQL_COMMAND);
	p->cmd.sql_command = &p->sqlcmd;
	p->plan.op_type_case = SC_PLAN_(COMMAND);
	p->plan.command = &p->cmd;
	return p;
}

struct sc_plan *
sc_plan_sql(const char *stmt)
{
	struct sc_plan *p = plan_new();

	p->text = sc_xstrdup(stmt);
	sql_relation(p);
	p->plan.op_type_case = SC_PLAN_(ROOT);
	p->plan.root = &p->rel;
	return p;
}

/* ---------------------------------------------------------- parameters */

/*
 * A decimal [+-]digits[.digits]: its precision (significant digits of
 * the integer part plus the fraction's, at least 1) and scale.
 */
static int
decimal_shape(const char *s, int *precision, int *scale)
{
	int ip = 0, fp = 0, lead = 0;
	bool point = false;

	if (*s == '+' || *s == '-')
		s++;
	for (; *s != '\0'; s++) {
		if (*s == '.' && !point && lead + ip > 0) {
			point = true;
			continue;
		}
		if (*s < '0' || *s > '9')
			return -1;
		if (point)
			fp++;
		else if (ip > 0 || *s != '0')
			ip++;
		else
			lead++;
	}
	if (lead + ip == 0 || (point && fp == 0) || ip + fp > 38)
		return -1;
	*precision = ip + fp > 0 ? ip + fp : 1;
	*scale = fp;
	return 0;
}

/* The literal of p in l (strings and the decimal borrowed from p). */
static int
param_literal(const struct sc_plan_param *p,
    Spark__Connect__Expression__Literal *l,
    Spark__Connect__Expression__Literal__Decimal *dec)
{
	const char *t = p->text;
	char *end;
	long long ll;
	double d;
	int32_t days;
	int64_t us;
	int prec, scale;

	errno = 0;
	switch (p->type) {
	case SC_VALUE_STRING:
		l->literal_type_case = SC_LIT_(STRING);
		l->string = (char *)t;
		return 0;
	case SC_VALUE_BOOLEAN:
		if (strcasecmp(t, "true") != 0 && strcasecmp(t, "false") != 0)
			return -1;
		l->literal_type_case = SC_LIT_(BOOLEAN);
		l->boolean = strcasecmp(t, "true") == 0;
		return 0;
	case SC_VALUE_INT:
	case SC_VALUE_LONG:
		ll = strtoll(t, &end, 10);
		if (end == t || *end != '\0' || errno != 0 ||
		    (p->type == SC_VALUE_INT &&
			(ll < INT32_MIN || ll > INT32_MAX)))
			return -1;
		if (p->type == SC_VALUE_INT) {
			l->literal_type_case = SC_LIT_(INTEGER);
			l->integer = (int32_t)ll;
		} else {
			l->literal_type_case = SC_LIT_(LONG);
			l->long_ = ll;
		}
		return 0;
	case SC_VALUE_DOUBLE:
		d = strtod(t, &end);
		if (end == t || *end != '\0' || (errno != 0 && !isfinite(d)))
			return -1;
		l->literal_type_case = SC_LIT_(DOUBLE);
		l->double_ = d;
		return 0;
	case SC_VALUE_DECIMAL:
		if (decimal_shape(t, &prec, &scale) == -1)
			return -1;
		dec->value = (char *)t;
		dec->_precision_case =
		    SPARK__CONNECT__EXPRESSION__LITERAL__DECIMAL___PRECISION_PRECISION;
		dec->precision = prec;
		dec->_scale_case =
		    SPARK__CONNECT__EXPRESSION__LITERAL__DECIMAL___SCALE_SCALE;
		dec->scale = scale;
		l->literal_type_case = SC_LIT_(DECIMAL);
		l->decimal = dec;
		return 0;
	case SC_VALUE_DATE:
		if (sc_value_parse_date(t, strlen(t), &days) == -1)
			return -1;
		l->literal_type_case = SC_LIT_(DATE);
		l->date = days;
		return 0;
	case SC_VALUE_TIMESTAMP:
		if (sc_value_parse_timestamp(t, strlen(t), &us) == -1)
			return -1;
		l->literal_type_case = SC_LIT_(TIMESTAMP);
		l->timestamp = us;
		return 0;
	default:
		return -1;
	}
}

int
sc_plan_param_check(const struct sc_plan_param *p, struct sc_error *err)
{
	Spark__Connect__Expression__Literal l =
	    SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
	Spark__Connect__Expression__Literal__Decimal dec =
	    SPARK__CONNECT__EXPRESSION__LITERAL__DECIMAL__INIT;
	struct sc_buf tn;

	if (param_literal(p, &l, &dec) == 0)
		return 0;
	sc_buf_init(&tn, 64);
	if (sc_value_type_name(p->type, 10, 0, SC_VALUE_SIMPLE, &tn, NULL) ==
	    -1)
		sc_buf_reset(&tn);
	sc_error_set(err, SC_ST_USAGE, "'%s' is not a valid %s", p->text,
	    tn.len > 0 ? (const char *)tn.data : "value");
	sc_buf_release(&tn);
	return -1;
}

static char *
keep(struct params *ps, const char *s)
{
	ps->texts[ps->ntexts] = sc_xstrdup(s);
	return ps->texts[ps->ntexts++];
}

/* The messages of v[0..n) in p->params, attached to p->sql and cmd. */
static void
add_params(struct sc_plan *p, const struct sc_plan_param *v, size_t n,
    bool command)
{
	struct params *ps;
	struct sc_plan_param one;
	size_t i, nn = 0;

	if (n == 0)
		return;
	ps = sc_xcalloc(1, sizeof(*ps));
	p->params = ps;
	ps->n = n;
	ps->texts = sc_xcalloc(2 * n, sizeof(*ps->texts));
	ps->lit = sc_xcalloc(n, sizeof(*ps->lit));
	ps->litp = sc_xcalloc(n, sizeof(*ps->litp));
	ps->dec = sc_xcalloc(n, sizeof(*ps->dec));
	ps->expr = sc_xcalloc(n, sizeof(*ps->expr));
	ps->exprp = sc_xcalloc(n, sizeof(*ps->exprp));
	ps->cargs = sc_xcalloc(n, sizeof(*ps->cargs));
	ps->cargsp = sc_xcalloc(n, sizeof(*ps->cargsp));
	ps->sargs = sc_xcalloc(n, sizeof(*ps->sargs));
	ps->sargsp = sc_xcalloc(n, sizeof(*ps->sargsp));
	ps->snamed = sc_xcalloc(n, sizeof(*ps->snamed));
	ps->snamedp = sc_xcalloc(n, sizeof(*ps->snamedp));
	for (i = 0; i < n; i++) {
		spark__connect__expression__literal__init(&ps->lit[i]);
		spark__connect__expression__literal__decimal__init(&ps->dec[i]);
		one = v[i];
		one.text = keep(ps, v[i].text);
		if (param_literal(&one, &ps->lit[i], &ps->dec[i]) == -1)
			SC_BUG("parameter '%s' was not checked", v[i].text);
		ps->litp[i] = &ps->lit[i];
		spark__connect__expression__init(&ps->expr[i]);
		ps->expr[i].expr_type_case = SC_EXPR_(LITERAL);
		ps->expr[i].literal = &ps->lit[i];
		ps->exprp[i] = &ps->expr[i];
		if (v[i].name == NULL)
			continue;
		spark__connect__sql_command__args_entry__init(&ps->cargs[nn]);
		spark__connect__sql__args_entry__init(&ps->sargs[nn]);
		spark__connect__sql__named_arguments_entry__init(
		    &ps->snamed[nn]);
		ps->cargs[nn].key = ps->sargs[nn].key = ps->snamed[nn].key =
		    keep(ps, v[i].name);
		ps->cargs[nn].value = ps->sargs[nn].value = &ps->lit[i];
		ps->snamed[nn].value = &ps->expr[i];
		ps->cargsp[nn] = &ps->cargs[nn];
		ps->sargsp[nn] = &ps->sargs[nn];
		ps->snamedp[nn] = &ps->snamed[nn];
		nn++;
	}
	if (nn > 0) {
		p->sql.n_args = nn;
		p->sql.args = ps->sargsp;
		p->sql.n_named_arguments = nn;
		p->sql.named_arguments = ps->snamedp;
		if (command) {
			p->sqlcmd.n_args = nn;
			p->sqlcmd.args = ps->cargsp;
		}
	} else {
		p->sql.n_pos_args = n;
		p->sql.pos_args = ps->litp;
		p->sql.n_pos_arguments = n;
		p->sql.pos_arguments = ps->exprp;
		if (command) {
			p->sqlcmd.n_pos_args = n;
			p->sqlcmd.pos_args = ps->litp;
		}
	}
}

static void
free_params(struct params *ps)
{
	size_t i;

	if (ps == NULL)
		return;
	for (i = 0; i < ps->ntexts; i++)
		free(ps->texts[i]);
	free(ps->texts);
	free(ps->lit);
	free(ps->litp);
	free(ps->dec);
	free(ps->expr);
	free(ps->exprp);
	free(ps->cargs);
	free(ps->cargsp);
	free(ps->sargs);
	free(ps->sargsp);
	free(ps->snamed);
	free(ps->snamedp);
	free(ps);
}

struct sc_plan *
sc_plan_sql_command_params(const char *stmt, const struct sc_plan_param *v,
    size_t n)
{
	struct sc_plan *p = sc_plan_sql_command(stmt);

	add_params(p, v, n, true);
	return p;
}

struct sc_plan *
sc_plan_sql_params(const char *stmt, const struct sc_plan_param *v, size_t n)
{
	struct sc_plan *p = sc_plan_sql(stmt);

	add_params(p, v, n, false);
	return p;
}

struct sc_plan *
sc_plan_range(int64_t start, int64_t end, int64_t step)
{
	struct sc_plan *p = plan_new();

	p->range._start_case = SPARK__CONNECT__RANGE___START_START;
	p->range.start = start;
	p->range.end = end;
	p->range.step = step;
	p->rel.rel_type_case = SC_REL_(RANGE);
	p->rel.range = &p->range;
	p->plan.op_type_case = SC_PLAN_(ROOT);
	p->plan.root = &p->rel;
	return p;
}

int
sc_plan_check_sql(const void *sql, size_t len, struct sc_error *err)
{
	const char *nul = memchr(sql, '\0', len);

	if (nul != NULL)
		return sc_error_set(err, SC_ST_USAGE,
		    "the SQL holds a NUL byte at offset %zu; it would be cut short there",
		    (size_t)(nul - (const char *)sql));
	return 0;
}

/* One varint at *pp (before end); 0, or -1 if cut short or too long. */
static int
varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t x = 0;
	int shift;

	for (shift = 0; shift < 64 && p < end; shift += 7) {
		x |= (uint64_t)(*p & 0x7f) << shift;
		if ((*p++ & 0x80) == 0) {
			*pp = p;
			*v = x;
			return 0;
		}
	}
	return -1;
}

/*
 * Whether the encoding of a message of type d (n bytes at p) has a
 * string field, at any depth, holding a NUL byte: protobuf-c hands such
 * a string over as a C string, which the next pack cuts at the NUL.
 * The bytes were unpacked already, so they are well framed and nest at
 * most SC_PROTO_MAX_DEPTH deep; anything else just ends the walk.
 */
static bool
nul_in_string(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n,
    unsigned int depth)
{
	const ProtobufCFieldDescriptor *f;
	const uint8_t *end = p + n;
	uint64_t key, v;

	if (depth > SC_PROTO_MAX_DEPTH)
		return false;
	while (p < end) {
		if (varint(&p, end, &key) == -1)
			return false;
		switch (key & 7) {
		case 0:
			if (varint(&p, end, &v) == -1)
				return false;
			break;
		case 1:
		case 5:
			if ((size_t)(end - p) < ((key & 7) == 1 ? 8u : 4u))
				return false;
			p += (key & 7) == 1 ? 8 : 4;
			break;
		case 2:
			if (varint(&p, end, &v) == -1 ||
			    v > (uint64_t)(end - p))
				return false;
			f = (key >> 3) <= 0x1fffffff
			    ? protobuf_c_message_descriptor_get_field(d,
				  (unsigned int)(key >> 3))
			    : NULL;
			if (f != NULL && f->type == PROTOBUF_C_TYPE_STRING &&
			    memchr(p, '\0', (size_t)v) != NULL)
				return true;
			if (f != NULL && f->type == PROTOBUF_C_TYPE_MESSAGE &&
			    nul_in_string(f->descriptor, p, (size_t)v,
				depth + 1))
				return true;
			p += v;
			break;
		default:
			return false;
		}
	}
	return false;
}

struct sc_plan *
sc_plan_parse(const void *bytes, size_t n, const char *what,
    struct sc_error *err)
{
	Spark__Connect__Plan *m;
	struct sc_plan *p;

	m = sc_proto_unpack(&spark__connect__plan__descriptor, bytes, n, NULL);
	if (m == NULL ||
	    (m->op_type_case == SC_PLAN_(ROOT) && m->root == NULL) ||
	    (m->op_type_case == SC_PLAN_(COMMAND) && m->command == NULL) ||
	    m->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE__NOT_SET) {
		if (m != NULL)
			protobuf_c_message_free_unpacked(&m->base, NULL);
		sc_error_set(err, SC_ST_USAGE,
		    "'%s' is not a serialized spark.connect.Plan", what);
		return NULL;
	}
	if (nul_in_string(&spark__connect__plan__descriptor, bytes, n, 0)) {
		protobuf_c_message_free_unpacked(&m->base, NULL);
		sc_error_set(err, SC_ST_USAGE,
		    "'%s' holds a string with a NUL byte, which would be sent cut short",
		    what);
		return NULL;
	}
	p = plan_new();
	p->msg = m;
	p->owned = &m->base;
	return p;
}

struct sc_plan *
sc_plan_adopt_relation(ProtobufCMessage *owner, ProtobufCMessage *rel)
{
	struct sc_plan *p;

	if (rel->descriptor != &spark__connect__relation__descriptor)
		SC_BUG("a %s is not a Relation", rel->descriptor->name);
	p = plan_new();
	p->owned = owner;
	p->plan.op_type_case = SC_PLAN_(ROOT);
	p->plan.root = (Spark__Connect__Relation *)rel;
	return p;
}

void
sc_plan_free(struct sc_plan *p)
{
	if (p == NULL)
		return;
	if (p->owned != NULL)
		protobuf_c_message_free_unpacked(p->owned, NULL);
	free(p->text);
	free_params(p->params);
	free(p);
}

bool
sc_plan_is_sql_command(const struct sc_plan *p)
{
	return p->msg->op_type_case == SC_PLAN_(COMMAND) &&
	    p->msg->command != NULL &&
	    p->msg->command->command_type_case == SC_CMD_(SQL_COMMAND);
}

bool
sc_plan_local_rows(const struct sc_plan *p, const void **data, size_t *len)
{
	const Spark__Connect__Relation *rel = p->msg->root;
	const Spark__Connect__LocalRelation *lr;

	if (p->msg->op_type_case != SC_PLAN_(ROOT) || rel == NULL ||
	    rel->rel_type_case != SC_REL_(LOCAL_RELATION))
		return false;
	lr = rel->local_relation;
	if (lr->_data_case != SPARK__CONNECT__LOCAL_RELATION___DATA_DATA ||
	    lr->data.len == 0)
		return false;
	if (data != NULL)
		*data = lr->data.data;
	if (len != NULL)
		*len = lr->data.len;
	return true;
}

void
sc_plan_attach(const struct sc_plan *p, ProtobufCMessage *m)
{
	sc_proto_set_message(m, "plan", &p->msg->base);
}
