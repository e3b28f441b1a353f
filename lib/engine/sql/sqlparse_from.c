/* SPDX-License-Identifier: MIT */

/*
 * sqlparse_from.c: a query's FROM items (tables, range(), subqueries
 * and inline VALUES tables), their aliases and scope, and joins.
 */

#include "engine/sql/sqlparse.h"
#include "engine/sql/sqlparse_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/arrow.h"
#include "core/error.h"
#include "core/xmem.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* ------------------------------------------------------------------ */
/* FROM items and joins                                                */
/* ------------------------------------------------------------------ */

/* [AS] alias: the alias (malloc'ed), or NULL when there is none. */
char *
sc_sqlp_opt_alias(struct parser *p)
{
	const struct sc_sqltok *t;
	bool as = sc_sqlp_accept_word(p, "as");
	char *name;

	t = sc_sqlp_cur(p);
	if ((t->kind == SC_TK_WORD && !sc_sqlp_is_reserved(t)) ||
	    t->kind == SC_TK_QIDENT) {
		name = sc_sqlp_ident_text(t);
		p->i++;
		return name;
	}
	if (as)
		sc_sqlp_not_taken(p);
	return NULL;
}

bool
sc_sqlp_int_arg(struct parser *p, int64_t *v)
{
	const struct sc_sqltok *t;
	bool neg = sc_sqlp_accept_op(p, "-");
	long long ll;
	char *end;

	t = sc_sqlp_cur(p);
	if (t->kind != SC_TK_NUM || t->frac || t->exp ||
	    (t->suffix != 0 && t->suffix != 'L'))
		return false;
	errno = 0;
	ll = strtoll(t->s, &end, 10);
	if (errno != 0)
		return false;
	p->i++;
	*v = neg ? -ll : ll;
	return true;
}

/* range(end), range(start, end[, step[, partitions]]) after "range(". */
static Rel *
range_rel(struct parser *p)
{
	Spark__Connect__Range *rg;
	int64_t a[4];
	size_t n = 0;
	Rel *r;

	for (;;) {
		if (n == 4 || !sc_sqlp_int_arg(p, &a[n]))
			return sc_sqlp_not_taken(p);
		n++;
		if (!sc_sqlp_accept_op(p, ","))
			break;
	}
	if (!sc_sqlp_expect_op(p, ")"))
		return NULL;
	rg = sc_xmalloc(sizeof(*rg));
	spark__connect__range__init(rg);
	if (n == 1) {
		rg->end = a[0];
	} else {
		rg->_start_case = SPARK__CONNECT__RANGE___START_START;
		rg->start = a[0];
		rg->end = a[1];
	}
	rg->step = n >= 3 ? a[2] : 1;
	if (n == 4) {
		rg->_num_partitions_case =
		    SPARK__CONNECT__RANGE___NUM_PARTITIONS_NUM_PARTITIONS;
		rg->num_partitions = (int32_t)a[3];
	}
	r = sc_sqlp_rel_new();
	r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_RANGE;
	r->range = rg;
	return r;
}

static Rel *
alias_rel(Rel *in, char *alias)
{
	Spark__Connect__SubqueryAlias *sa;
	Rel *r;

	if (alias == NULL)
		return in;
	sa = sc_xmalloc(sizeof(*sa));
	spark__connect__subquery_alias__init(sa);
	sa->input = in;
	sa->alias = alias;
	r = sc_sqlp_rel_new();
	r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SUBQUERY_ALIAS;
	r->subquery_alias = sa;
	return r;
}

/*
 * A file read as Spark's read.data_source: format fmt, one path and
 * nopts options (all taken); engine_files.c reads it.
 */
static Rel *
files_rel(char *fmt, char *path,
    Spark__Connect__Read__DataSource__OptionsEntry **opts, size_t nopts)
{
	Spark__Connect__Read__DataSource *ds;
	Spark__Connect__Read *rd;
	Rel *r;

	ds = sc_xmalloc(sizeof(*ds));
	spark__connect__read__data_source__init(ds);
	ds->_format_case = SPARK__CONNECT__READ__DATA_SOURCE___FORMAT_FORMAT;
	ds->format = fmt;
	ds->paths = sc_xmalloc(sizeof(*ds->paths));
	ds->paths[0] = path;
	ds->n_paths = 1;
	ds->options = opts;
	ds->n_options = nopts;
	rd = sc_xmalloc(sizeof(*rd));
	spark__connect__read__init(rd);
	rd->read_type_case = SPARK__CONNECT__READ__READ_TYPE_DATA_SOURCE;
	rd->data_source = ds;
	r = sc_sqlp_rel_new();
	r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_READ;
	r->read = rd;
	return r;
}

/*
 * sctk's read_files('path', name => value, ...) after its '(': values
 * are strings, true, false or numbers; format defaults to csv.
 */
static Rel *
read_files(struct parser *p)
{
	Spark__Connect__Read__DataSource__OptionsEntry **opts = NULL, *o;
	const struct sc_sqltok *t = sc_sqlp_cur(p), *v;
	char *path, *fmt = NULL;
	size_t nopts = 0, i;

	if (t->kind != SC_TK_STRING)
		goto bad;
	path = sc_xstrndup((const char *)t->text.data, t->text.len);
	p->i++;
	while (sc_sqlp_accept_op(p, ",")) {
		t = sc_sqlp_cur(p);
		v = sc_sqlp_peek(p, 2);
		if (t->kind != SC_TK_WORD ||
		    !sc_sqlp_tok_op(sc_sqlp_peek(p, 1), "=>") ||
		    (v->kind != SC_TK_STRING && v->kind != SC_TK_WORD &&
			v->kind != SC_TK_NUM)) {
			free(path);
			goto bad_opts;
		}
		o = sc_xmalloc(sizeof(*o));
		spark__connect__read__data_source__options_entry__init(o);
		o->key = sc_xstrndup(t->s, t->n);
		o->value = v->kind == SC_TK_STRING
		    ? sc_xstrndup((const char *)v->text.data, v->text.len)
		    : sc_xstrndup(v->s, v->n);
		p->i += 3;
		if (strcasecmp(o->key, "format") == 0) {
			free(fmt);
			fmt = o->value;
			free(o->key);
			free(o);
			continue;
		}
		opts = sc_xreallocarray(opts, nopts + 1, sizeof(*opts));
		opts[nopts++] = o;
	}
	if (!sc_sqlp_accept_op(p, ")")) {
		free(path);
		free(fmt);
		goto bad_opts;
	}
	return files_rel(fmt != NULL ? fmt : sc_xstrdup("csv"), path, opts,
	    nopts);
bad_opts:
	for (i = 0; i < nopts; i++)
		protobuf_c_message_free_unpacked(&opts[i]->base, NULL);
	free(opts);
bad:
	if (p->fail == 0) {
		p->fail = SC_SQLPARSE_ERROR;
		sc_srv_error(p->err, "INVALID_PARAMETER_VALUE", "22023",
		    "read_files() takes a path string and then name => value options whose values are strings, true or false: read_files('files/x.csv', format => 'csv', header => true).");
	}
	return NULL;
}

/* (a, b, ...) after an alias: in's columns renamed, as toDF() does. */
Rel *
sc_sqlp_to_df(struct parser *p, Rel *in)
{
	Spark__Connect__ToDF *td;
	Rel *r;
	char **names = NULL;
	size_t n = 0;

	p->i++; /* ( */
	for (;;) {
		if (sc_sqlp_cur(p)->kind != SC_TK_WORD &&
		    sc_sqlp_cur(p)->kind != SC_TK_QIDENT)
			break;
		names = sc_xreallocarray(names, n + 1, sizeof(*names));
		names[n++] = sc_sqlp_ident_text(sc_sqlp_cur(p));
		p->i++;
		if (!sc_sqlp_accept_op(p, ","))
			break;
	}
	td = sc_xmalloc(sizeof(*td));
	spark__connect__to_df__init(td);
	td->input = in;
	td->column_names = names;
	td->n_column_names = n;
	r = sc_sqlp_rel_new();
	r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_TO_DF;
	r->to_df = td;
	if (n == 0 || !sc_sqlp_expect_op(p, ")")) {
		sc_sqlp_rel_free(r);
		sc_sqlp_not_taken(p);
		return NULL;
	}
	return r;
}

/* One FROM item: a table, range(...) or (query), with an alias. */
Rel *
sc_sqlp_from_item(struct parser *p)
{
	const struct sc_sqltok *t = sc_sqlp_cur(p);
	Spark__Connect__Read *rd;
	struct sc_buf b;
	Rel *r;
	char *alias;
	size_t k;

	if (sc_sqlp_accept_word(p, "values"))
		return sc_sqlp_values_rel(p);
	if (sc_sqlp_accept_op(p, "(")) {
		if (sc_sqlp_accept_word(p, "values"))
			r = sc_sqlp_values_rel(p);
		else if (sc_sqlp_is_word(p, "select"))
			r = sc_sqlp_query_ops(p);
		else
			return sc_sqlp_not_taken(p);
		if (r == NULL)
			return NULL;
		if (!sc_sqlp_expect_op(p, ")")) {
			sc_sqlp_rel_free(r);
			return NULL;
		}
	} else if (sc_sqlp_tok_word(t, "range") &&
	    sc_sqlp_tok_op(sc_sqlp_peek(p, 1), "(")) {
		p->i += 2;
		if ((r = range_rel(p)) == NULL)
			return NULL;
	} else if ((t->kind == SC_TK_WORD && !sc_sqlp_is_reserved(t)) ||
	    t->kind == SC_TK_QIDENT) {
		/* Files: csv.`files/x.csv` and read_files(...). */
		if (sc_sqlp_tok_op(sc_sqlp_peek(p, 1), ".") &&
		    sc_sqlp_peek(p, 2)->kind == SC_TK_QIDENT &&
		    (sc_sqlp_tok_word(t, "csv") ||
			sc_sqlp_tok_word(t, "json") ||
			sc_sqlp_tok_word(t, "text") ||
			sc_sqlp_tok_word(t, "parquet"))) {
			r = files_rel(sc_xstrndup(t->s, t->n),
			    sc_sqlp_ident_text(sc_sqlp_peek(p, 2)), NULL, 0);
			p->i += 3;
			goto aliased;
		}
		if (sc_sqlp_tok_word(t, "read_files") &&
		    sc_sqlp_tok_op(sc_sqlp_peek(p, 1), "(")) {
			p->i += 2;
			if ((r = read_files(p)) == NULL)
				return NULL;
			goto aliased;
		}
		/* Other table-valued functions. */
		if (sc_sqlp_tok_op(sc_sqlp_peek(p, 1), "("))
			return sc_sqlp_not_taken(p);
		for (k = 0;
		     k < p->nctes && !sc_sqlp_tok_op(sc_sqlp_peek(p, 1), ".");
		     k++) {
			char *name = sc_sqlp_ident_text(t);
			bool match = sc_eng_name_cmp(name, p->ctes[k].name) ==
			    0;

			free(name);
			if (!match)
				continue;
			p->i++;
			if (!sc_sqlp_inline(p, p->ctes[k].height))
				return NULL;
			if ((r = sc_sqlp_rel_dup(p, p->ctes[k].rel)) == NULL)
				return sc_sqlp_not_taken(p);
			r = alias_rel(r, sc_xstrdup(p->ctes[k].name));
			goto aliased;
		}
		sc_buf_init(&b, SC_BUF_UNLIMITED);
		sc_sqlp_add_part(&b, t);
		p->i++;
		while (sc_sqlp_is_op(p, ".") &&
		    (sc_sqlp_peek(p, 1)->kind == SC_TK_WORD ||
			sc_sqlp_peek(p, 1)->kind == SC_TK_QIDENT)) {
			sc_buf_addch(&b, '.', NULL);
			sc_sqlp_add_part(&b, sc_sqlp_peek(p, 1));
			p->i += 2;
		}
		sc_buf_addch(&b, '\0', NULL);
		rd = sc_xmalloc(sizeof(*rd));
		spark__connect__read__init(rd);
		rd->read_type_case =
		    SPARK__CONNECT__READ__READ_TYPE_NAMED_TABLE;
		rd->named_table = sc_xmalloc(sizeof(*rd->named_table));
		spark__connect__read__named_table__init(rd->named_table);
		rd->named_table->unparsed_identifier =
		    (char *)sc_buf_detach(&b, NULL);
		r = sc_sqlp_rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_READ;
		r->read = rd;
	} else {
		return sc_sqlp_not_taken(p);
	}
aliased:
	if (sc_sqlp_is_op(p, "(")) {
		sc_sqlp_rel_free(r);
		return sc_sqlp_not_taken(p);
	}
	alias = sc_sqlp_opt_alias(p);
	if (p->fail != 0) {
		free(alias);
		sc_sqlp_rel_free(r);
		return NULL;
	}
	if (alias != NULL && sc_sqlp_is_op(p, "(")) /* t(a, b): column names */
		r = sc_sqlp_to_df(p, r);
	if (r == NULL) {
		free(alias);
		return NULL;
	}
	return alias_rel(r, alias);
}

/* Stamp a plan id on the joined FROM item r and put its name in scope. */
static void
scope_add(struct parser *p, Rel *r)
{
	char name[256];
	const char *q = NULL;

	if (r->rel_type_case ==
	    SPARK__CONNECT__RELATION__REL_TYPE_SUBQUERY_ALIAS)
		q = r->subquery_alias->alias;
	else if (r->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_READ &&
	    r->read->read_type_case ==
		SPARK__CONNECT__READ__READ_TYPE_NAMED_TABLE) {
		sc_sqlp_last_part(r->read->named_table->unparsed_identifier,
		    name, sizeof(name));
		q = name[0] != '\0' ? name : NULL;
	}
	if (q == NULL || r->common != NULL)
		return;
	r->common = sc_xmalloc(sizeof(*r->common));
	spark__connect__relation_common__init(r->common);
	r->common->_plan_id_case =
	    SPARK__CONNECT__RELATION_COMMON___PLAN_ID_PLAN_ID;
	r->common->plan_id = SQL_PLAN_ID_BASE + p->next_id++;
	p->scope = sc_xreallocarray(p->scope, p->nscope + 1, sizeof(*p->scope));
	p->scope[p->nscope].name = sc_xstrdup(q);
	p->scope[p->nscope].id = r->common->plan_id;
	p->nscope++;
}

/* Drop the names a query put in scope (those from n on). */
void
sc_sqlp_scope_pop(struct parser *p, size_t n)
{
	while (p->nscope > n)
		free(p->scope[--p->nscope].name);
}

void
sc_sqlp_each_child(ProtobufCMessage *m,
    void (*fn)(ProtobufCMessage *child, void *arg), void *arg)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	char *base = (char *)m;
	unsigned i;

	for (i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];

		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) != 0 &&
		    *(uint32_t *)(base + f->quantifier_offset) != f->id)
			continue;
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t c = *(size_t *)(base + f->quantifier_offset), j;
			ProtobufCMessage **v =
			    *(ProtobufCMessage ***)(base + f->offset);

			for (j = 0; j < c; j++)
				if (v[j] != NULL)
					fn(v[j], arg);
		} else {
			ProtobufCMessage *sub =
			    *(ProtobufCMessage **)(base + f->offset);

			if (sub != NULL)
				fn(sub, arg);
		}
	}
}

struct qualify_arg {
	struct parser *p;
	size_t n;
};

static void
qualify_child(ProtobufCMessage *m, void *arg)
{
	struct qualify_arg *q = arg;

	sc_sqlp_qualify(q->p, q->n, m);
}

/*
 * Rewrite the qualified columns of m (an expression, or a message
 * holding expressions) whose qualifier names a joined FROM item in scope
 * from n on: q.x becomes x of that item's plan id.
 */
void
sc_sqlp_qualify(struct parser *p, size_t n, ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	struct qualify_arg q = { p, n };

	if (d == &spark__connect__relation__descriptor)
		return;
	if (d == &spark__connect__expression__unresolved_star__descriptor) {
		Spark__Connect__Expression__UnresolvedStar *st =
		    (Spark__Connect__Expression__UnresolvedStar *)m;
		char qual[256];
		size_t k, len;

		if (st->_unparsed_target_case !=
			SPARK__CONNECT__EXPRESSION__UNRESOLVED_STAR___UNPARSED_TARGET_UNPARSED_TARGET ||
		    st->unparsed_target == NULL)
			return;
		len = strlen(st->unparsed_target);
		if (len > 2 && strcmp(st->unparsed_target + len - 2, ".*") == 0)
			len -= 2;
		if (len >= 2 && st->unparsed_target[0] == '`' &&
		    st->unparsed_target[len - 1] == '`' &&
		    memchr(st->unparsed_target + 1, '`', len - 2) == NULL) {
			memcpy(qual, st->unparsed_target + 1, len - 2);
			qual[len - 2] = '\0';
		} else if (len < sizeof(qual) &&
		    memchr(st->unparsed_target, '.', len) == NULL &&
		    memchr(st->unparsed_target, '`', len) == NULL) {
			memcpy(qual, st->unparsed_target, len);
			qual[len] = '\0';
		} else {
			return;
		}
		for (k = p->nscope; k > n; k--) {
			if (sc_eng_name_cmp(p->scope[k - 1].name, qual) != 0)
				continue;
			free(st->unparsed_target);
			st->unparsed_target = NULL;
			st->_unparsed_target_case =
			    SPARK__CONNECT__EXPRESSION__UNRESOLVED_STAR___UNPARSED_TARGET__NOT_SET;
			st->_plan_id_case =
			    SPARK__CONNECT__EXPRESSION__UNRESOLVED_STAR___PLAN_ID_PLAN_ID;
			st->plan_id = p->scope[k - 1].id;
			return;
		}
		return;
	}
	if (d ==
	    &spark__connect__expression__unresolved_attribute__descriptor) {
		Spark__Connect__Expression__UnresolvedAttribute *a =
		    (Spark__Connect__Expression__UnresolvedAttribute *)m;
		const char *s = a->unparsed_identifier, *dot;
		char qual[256];
		size_t k, len;

		if (s == NULL ||
		    a->_plan_id_case ==
			SPARK__CONNECT__EXPRESSION__UNRESOLVED_ATTRIBUTE___PLAN_ID_PLAN_ID)
			return;
		if (s[0] == '`') {
			if ((dot = strchr(s + 1, '`')) == NULL || dot[1] != '.')
				return;
			len = (size_t)(dot - s - 1);
			dot++;
			s++;
		} else {
			if ((dot = strchr(s, '.')) == NULL)
				return;
			len = (size_t)(dot - s);
		}
		if (len == 0 || len >= sizeof(qual) || dot[1] == '\0')
			return;
		memcpy(qual, s, len);
		qual[len] = '\0';
		for (k = p->nscope; k > n; k--) {
			if (sc_eng_name_cmp(p->scope[k - 1].name, qual) != 0)
				continue;
			s = sc_xstrdup(dot + 1);
			free(a->unparsed_identifier);
			a->unparsed_identifier = (char *)s;
			a->_plan_id_case =
			    SPARK__CONNECT__EXPRESSION__UNRESOLVED_ATTRIBUTE___PLAN_ID_PLAN_ID;
			a->plan_id = p->scope[k - 1].id;
			return;
		}
		return;
	}
	sc_sqlp_each_child(m, qualify_child, &q);
}

/*
 * The join type words before JOIN ("LEFT OUTER", "ANTI", ...) and JOIN:
 * true with *type set, false when the next words start no join.
 */
static bool
join_type(struct parser *p, Spark__Connect__Join__JoinType *type)
{
	size_t at = p->i;

	*type = SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_INNER;
	if (sc_sqlp_accept_word(p, "inner")) {
	} else if (sc_sqlp_accept_word(p, "cross")) {
		*type = SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_CROSS;
	} else if (sc_sqlp_accept_word(p, "left")) {
		*type = SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_OUTER;
		if (sc_sqlp_accept_word(p, "semi"))
			*type =
			    SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_SEMI;
		else if (sc_sqlp_accept_word(p, "anti"))
			*type =
			    SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_ANTI;
		else
			sc_sqlp_accept_word(p, "outer");
	} else if (sc_sqlp_accept_word(p, "right")) {
		*type = SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_RIGHT_OUTER;
		sc_sqlp_accept_word(p, "outer");
	} else if (sc_sqlp_accept_word(p, "full")) {
		*type = SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_FULL_OUTER;
		sc_sqlp_accept_word(p, "outer");
	} else if (sc_sqlp_accept_word(p, "semi")) {
		*type = SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_SEMI;
	} else if (sc_sqlp_accept_word(p, "anti")) {
		*type = SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_ANTI;
	}
	if (sc_sqlp_accept_word(p, "join"))
		return true;
	p->i = at;
	return false;
}

/*
 * The joins after the FROM item left: "a, b", "a [type] JOIN b [ON cond
 * | USING (cols)]", left to right, as Spark's parser nests them.  Takes
 * left; NULL on failure.
 */
Rel *
sc_sqlp_joins(struct parser *p, Rel *left)
{
	Spark__Connect__Join__JoinType type;
	Spark__Connect__Join *j;
	Rel *right, *r;
	size_t n = p->nscope;
	bool comma;

	for (;;) {
		if ((comma = sc_sqlp_accept_op(p, ",")))
			type = SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_CROSS;
		else if (!join_type(p, &type))
			return left;
		if (left->rel_type_case !=
		    SPARK__CONNECT__RELATION__REL_TYPE_JOIN)
			scope_add(p, left);
		/* in the chain sc_sqlp_query() begins before left */
		if (!sc_sqlp_chain_next(p, 1) ||
		    (right = sc_sqlp_from_item(p)) == NULL) {
			sc_sqlp_rel_free(left);
			return NULL;
		}
		scope_add(p, right);
		j = sc_xmalloc(sizeof(*j));
		spark__connect__join__init(j);
		j->left = left;
		j->right = right;
		j->join_type = type;
		r = sc_sqlp_rel_new();
		r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_JOIN;
		r->join = j;
		if (comma) {
			/* a comma join has no condition */
		} else if (sc_sqlp_accept_word(p, "on")) {
			if ((j->join_condition = sc_sqlp_expr(p)) == NULL) {
				sc_sqlp_rel_free(r);
				return NULL;
			}
			sc_sqlp_qualify(p, n, &j->join_condition->base);
			if (type ==
			    SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_CROSS)
				j->join_type =
				    SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_INNER;
		} else if (sc_sqlp_accept_word(p, "using")) {
			if (!sc_sqlp_expect_op(p, "(")) {
				sc_sqlp_rel_free(r);
				return NULL;
			}
			for (;;) {
				char *name = sc_sqlp_ident_text(sc_sqlp_cur(p));

				if (name == NULL) {
					sc_sqlp_rel_free(r);
					return sc_sqlp_not_taken(p);
				}
				p->i++;
				j->using_columns = sc_xreallocarray(
				    j->using_columns, j->n_using_columns + 1,
				    sizeof(*j->using_columns));
				j->using_columns[j->n_using_columns++] = name;
				if (!sc_sqlp_accept_op(p, ","))
					break;
			}
			if (!sc_sqlp_expect_op(p, ")")) {
				sc_sqlp_rel_free(r);
				return NULL;
			}
			/* The translator types its merged keys otherwise. */
			if (type ==
			    SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_FULL_OUTER) {
				sc_sqlp_rel_free(r);
				return sc_sqlp_not_taken(p);
			}
		}
		/* [INNER] JOIN b without a condition: a cross join */
		if (type == SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_INNER &&
		    j->join_condition == NULL && j->n_using_columns == 0)
			j->join_type =
			    SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_CROSS;
		left = r;
	}
}

/* ------------------------------------------------------------------ */
/* VALUES                                                              */
/* ------------------------------------------------------------------ */

/* A column of an inline table: its Arrow type, from its literals. */
struct vcol {
	enum sc_arrow_type type; /* SC_ARROW_NULL until a value is seen */
	int prec, scale; /* DECIMAL128 */
	bool ntz;
	bool nullable;
};

static int
int_rank(enum sc_arrow_type t)
{
	switch (t) {
	case SC_ARROW_INT8:
		return 1;
	case SC_ARROW_INT16:
		return 2;
	case SC_ARROW_INT32:
		return 3;
	case SC_ARROW_INT64:
		return 4;
	default:
		return 0;
	}
}

/* Merge the type of literal l into c: false when Spark's common type
 * is not one this parser computes (then VALUES is not taken). */
static bool
vcol_merge(struct vcol *c, const Spark__Connect__Expression__Literal *l)
{
	struct vcol t;
	int ip;

	memset(&t, 0, sizeof(t));
	switch (l->literal_type_case) {
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_NULL:
		c->nullable = true;
		return true;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BYTE:
		t.type = SC_ARROW_INT8;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_SHORT:
		t.type = SC_ARROW_INT16;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER:
		t.type = SC_ARROW_INT32;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG:
		t.type = SC_ARROW_INT64;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DOUBLE:
		t.type = SC_ARROW_DOUBLE;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_FLOAT:
		t.type = SC_ARROW_FLOAT;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DECIMAL:
		t.type = SC_ARROW_DECIMAL128;
		t.prec = l->decimal->precision;
		t.scale = l->decimal->scale;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING:
		t.type = SC_ARROW_UTF8;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BOOLEAN:
		t.type = SC_ARROW_BOOL;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DATE:
		t.type = SC_ARROW_DATE32;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_TIMESTAMP:
		t.type = SC_ARROW_TIMESTAMP_US;
		break;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_TIMESTAMP_NTZ:
		t.type = SC_ARROW_TIMESTAMP_US;
		t.ntz = true;
		break;
	default:
		return false;
	}
	if (c->type == SC_ARROW_NULL) {
		t.nullable = c->nullable;
		*c = t;
		return true;
	}
	if (int_rank(c->type) > 0 && int_rank(t.type) > 0) {
		if (int_rank(t.type) > int_rank(c->type))
			c->type = t.type;
		return true;
	}
	if (c->type == SC_ARROW_DECIMAL128 && t.type == SC_ARROW_DECIMAL128) {
		ip = c->prec - c->scale > t.prec - t.scale ? c->prec - c->scale
							   : t.prec - t.scale;
		if (t.scale > c->scale)
			c->scale = t.scale;
		c->prec = ip + c->scale;
		return c->prec <= 38;
	}
	return c->type == t.type && c->ntz == t.ntz;
}

static int
vappend(struct sc_arrow_writer *w, size_t col, const struct vcol *c,
    const Spark__Connect__Expression__Literal *l, struct sc_error *err)
{
	switch (l->literal_type_case) {
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_NULL:
		return sc_arrow_append_null(w, col, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BYTE:
		return sc_arrow_append_int64(w, col, l->byte, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_SHORT:
		return sc_arrow_append_int64(w, col, l->short_, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER:
		return sc_arrow_append_int64(w, col, l->integer, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG:
		return sc_arrow_append_int64(w, col, l->long_, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DOUBLE:
		return sc_arrow_append_double(w, col, l->double_, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_FLOAT:
		return sc_arrow_append_double(w, col, l->float_, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DECIMAL:
		return sc_arrow_append_decimal_str(w, col, l->decimal->value,
		    err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING:
		return sc_arrow_append_bytes(w, col, l->string,
		    strlen(l->string), err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BOOLEAN:
		return sc_arrow_append_bool(w, col, l->boolean, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DATE:
		return sc_arrow_append_int64(w, col, l->date, err);
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_TIMESTAMP:
		return sc_arrow_append_int64(w, col, l->timestamp, err);
	default:
		(void)c;
		return sc_arrow_append_int64(w, col, l->timestamp_ntz, err);
	}
}

/*
 * VALUES row, ... [[AS] t[(a, b, ...)]] after the keyword, as Spark's
 * inline table: a local relation (columns col1, col2, ..., typed from
 * their literals), under an alias.  Only literal values are taken.
 */
Rel *
sc_sqlp_values_rel(struct parser *p)
{
	Expr ***rows = NULL, **row;
	size_t nrows = 0, ncols = 0, n, i, j;
	struct vcol *cols = NULL;
	struct sc_arrow_schema as;
	struct sc_arrow_writer *w = NULL;
	struct sc_arrow_field *f;
	struct sc_buf ipc;
	struct sc_error e;
	char **names = NULL, *alias = NULL, name[32];
	size_t nnames = 0;
	Rel *r = NULL, *lr;
	bool paren;

	sc_arrow_schema_init(&as);
	sc_buf_init(&ipc, SC_BUF_UNLIMITED);
	for (;;) {
		paren = sc_sqlp_accept_op(p, "(");
		if (paren)
			row = sc_sqlp_expr_list(p, &n, false);
		else if ((row = sc_xcalloc(1, sizeof(*row))) != NULL &&
		    (row[0] = sc_sqlp_expr(p)) != NULL)
			n = 1;
		else {
			free(row);
			row = NULL;
		}
		if (row == NULL || (paren && !sc_sqlp_expect_op(p, ")")) ||
		    (nrows > 0 && n != ncols)) {
			if (row != NULL)
				sc_sqlp_exprs_free(row, n);
			sc_sqlp_not_taken(p);
			goto out;
		}
		for (i = 0; i < n; i++)
			if (row[i]->expr_type_case !=
			    SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL) {
				sc_sqlp_exprs_free(row, n);
				sc_sqlp_not_taken(p);
				goto out;
			}
		ncols = n;
		rows = sc_xreallocarray(rows, nrows + 1, sizeof(*rows));
		rows[nrows++] = row;
		if (!sc_sqlp_accept_op(p, ","))
			break;
	}
	/* [AS] t [(a, b)] */
	sc_sqlp_accept_word(p, "as");
	if ((sc_sqlp_cur(p)->kind == SC_TK_WORD &&
		!sc_sqlp_is_reserved(sc_sqlp_cur(p))) ||
	    sc_sqlp_cur(p)->kind == SC_TK_QIDENT) {
		alias = sc_sqlp_ident_text(sc_sqlp_cur(p));
		p->i++;
		if (sc_sqlp_accept_op(p, "(")) {
			for (;;) {
				if (sc_sqlp_cur(p)->kind != SC_TK_WORD &&
				    sc_sqlp_cur(p)->kind != SC_TK_QIDENT) {
					sc_sqlp_not_taken(p);
					goto out;
				}
				names = sc_xreallocarray(names, nnames + 1,
				    sizeof(*names));
				names[nnames++] =
				    sc_sqlp_ident_text(sc_sqlp_cur(p));
				p->i++;
				if (!sc_sqlp_accept_op(p, ","))
					break;
			}
			if (!sc_sqlp_expect_op(p, ")") || nnames != ncols) {
				sc_sqlp_not_taken(p);
				goto out;
			}
		}
	}
	cols = sc_xcalloc(ncols, sizeof(*cols));
	for (j = 0; j < ncols; j++)
		for (i = 0; i < nrows; i++)
			if (!vcol_merge(&cols[j], rows[i][j]->literal)) {
				sc_sqlp_not_taken(p);
				goto out;
			}
	for (j = 0; j < ncols; j++) {
		snprintf(name, sizeof(name), "col%zu", j + 1);
		f = sc_arrow_schema_add(&as, names != NULL ? names[j] : name,
		    cols[j].type,
		    cols[j].nullable || cols[j].type == SC_ARROW_NULL);
		f->precision = cols[j].prec;
		f->scale = cols[j].scale;
		if (cols[j].type == SC_ARROW_TIMESTAMP_US && !cols[j].ntz)
			f->tz = sc_xstrdup("UTC");
	}
	if ((w = sc_arrow_writer_new(&as, &e)) == NULL) {
		sc_sqlp_not_taken(p);
		goto out;
	}
	for (i = 0; i < nrows; i++) {
		for (j = 0; j < ncols; j++)
			if (vappend(w, j, &cols[j], rows[i][j]->literal, &e) ==
			    -1) {
				sc_sqlp_not_taken(p);
				goto out;
			}
		if (sc_arrow_writer_end_row(w, &e) == -1) {
			sc_sqlp_not_taken(p);
			goto out;
		}
	}
	if (sc_arrow_writer_flush(w, &ipc, &e) == -1) {
		sc_sqlp_not_taken(p);
		goto out;
	}
	lr = sc_sqlp_rel_new();
	lr->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION;
	lr->local_relation = sc_xmalloc(sizeof(*lr->local_relation));
	spark__connect__local_relation__init(lr->local_relation);
	lr->local_relation->_data_case =
	    SPARK__CONNECT__LOCAL_RELATION___DATA_DATA;
	lr->local_relation->data.len = ipc.len;
	lr->local_relation->data.data = sc_buf_detach(&ipc, NULL);
	r = alias_rel(lr, alias);
	alias = NULL;
out:
	for (i = 0; i < nrows; i++)
		sc_sqlp_exprs_free(rows[i], ncols);
	free(rows);
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	free(alias);
	free(cols);
	sc_arrow_writer_free(w);
	sc_arrow_schema_release(&as);
	sc_buf_release(&ipc);
	return r;
}
