/* SPDX-License-Identifier: MIT */

/*
 * ids.c: the operation ids sc-release acts on, from its operands and,
 * for "-", from standard input, one per line; each either an id of the
 * --session-id session or a "session/operation" pair.
 */

#include "sc-release.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/file.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "core/banned.h"

/*
 * Standard input is read whole before anything is sent; this bounds it
 * (about 400,000 ids of 37 bytes).
 */
#define INPUT_MAX (16u << 20)

static void
add(struct targets *t, const char *id, size_t line)
{
	if (t->n == t->cap) {
		t->cap = t->cap != 0 ? 2 * t->cap : 16;
		t->v = sc_xreallocarray(t->v, t->cap, sizeof(*t->v));
	}
	const char *slash = strchr(id, '/');
	struct target *x = &t->v[t->n];

	x->id = id;
	x->op = id;
	x->session = NULL;
	x->line = line;
	if (slash != NULL) {
		x->session = sc_xstrndup(id, (size_t)(slash - id));
		x->op = slash + 1;
		x->valid = sc_uuid_valid(x->session) && sc_uuid_valid(x->op);
	} else
		x->valid = sc_uuid_valid(id);
	t->n++;
}

static bool
is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' ||
	    ch == '\v';
}

/*
 * Split the input into lines in place and add the ids.  A NUL byte ends
 * its line's id early, which then is no UUID unless the NUL follows a
 * whole one; so such a line is made invalid outright.
 */
static void
add_lines(struct targets *t, char *p, size_t len)
{
	char *end = p + len, *nl, *s, *e;
	size_t line = 0;
	bool nul;

	while (p < end) {
		line++;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		nul = memchr(p, '\0', (size_t)(nl - p)) != NULL;
		*nl = '\0'; /* input holds one byte past end: the NUL */
		for (s = p; s < nl && is_blank(*s); s++)
			;
		for (e = nl; e > s && is_blank(e[-1]); e--)
			;
		*e = '\0';
		if (s < e && *s != '#') {
			add(t, s, line);
			if (nul)
				t->v[t->n - 1].valid = false;
		}
		p = nl + 1;
	}
}

int
targets_read(struct targets *t, char *const *operands, size_t n,
    struct sc_error *err)
{
	struct sc_buf in;
	size_t i, len;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++) {
		if (strcmp(operands[i], "-") != 0) {
			add(t, operands[i], 0);
			continue;
		}
		sc_buf_init(&in, INPUT_MAX);
		if (sc_file_read("-", &in, err) == -1) {
			sc_buf_release(&in);
			targets_release(t);
			return -1;
		}
		t->input = (char *)sc_buf_detach(&in, &len);
		add_lines(t, t->input, len);
	}
	return 0;
}

void
targets_release(struct targets *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].session);
	free(t->v);
	free(t->input);
	memset(t, 0, sizeof(*t));
}
