/* SPDX-License-Identifier: MIT */

/*
 * sc-upload: upload files, standard input or URLs as artifacts of a Spark
 * Connect session (AddArtifacts), as Spark's own clients transfer them,
 * re-sending what the server found corrupt; or ask which artifacts a
 * session holds (ArtifactStatus).
 *
 * main() reads options, names the artifacts, hashes them for --cache,
 * uploads through core/upload and prints one line per artifact; the
 * sources are source.c's, the progress line progress.c's.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cli.h"
#include "core/client.h"
#include "core/conn.h"
#include "core/error.h"
#include "core/log.h"
#include "core/output.h"
#include "core/retry.h"
#include "core/signals.h"
#include "core/upload.h"
#include "core/xmem.h"
#include "sc-upload.h"
#include "core/banned.h"

static const char usage_text[] =
    "usage: sc-upload [-hqVv] [--cache] [--insecure] [--progress | --no-progress]\n"
    "                 [--tls] [-H key=value] [-s server] [-t timeout]\n"
    "                 [--as name] [--ca-file file] [--chunk-size size]\n"
    "                 [--crc-retries n] [--format format] [--from-file file]\n"
    "                 [--kind kind] [--max-retries n] [--session-id uuid]\n"
    "                 [--token token] [--unreachable-timeout time]\n"
    "                 [--user-id id] [source ...]\n"
    "       sc-upload --status [-hqVv] [--insecure] [--tls] [-H key=value]\n"
    "                 [-s server] [-t timeout] [--ca-file file]\n"
    "                 [--format format] [--max-retries n] [--session-id uuid]\n"
    "                 [--token token] [--unreachable-timeout time]\n"
    "                 [--user-id id] name ...\n"
    "\n"
    "  source                 a path, an http://, https:// or file:// URL,\n"
    "                         or - for standard input (needs --as)\n"
    "      --as name          the artifact's name (one source only)\n"
    "      --kind kind        jar, pyfile, file, archive or class (default:\n"
    "                         from the name's extension)\n"
    "      --from-file file   also upload the sources listed in file, one\n"
    "                         per line (- for standard input)\n"
    "      --cache            upload as cache/<sha256> unless the session\n"
    "                         holds it already\n"
    "      --status           print whether the session holds each name\n"
    "      --chunk-size size  bytes per chunk of a large artifact (default\n"
    "                         32k)\n"
    "      --crc-retries n    re-sends of an artifact the server finds\n"
    "                         corrupt (default 3)\n"
    "      --max-retries n    retries of a failed call (default 15)\n"
    "      --format fmt       text (tab-separated, the default) or jsonl\n"
    "      --progress         show progress on standard error\n"
    "      --no-progress      do not (default: show it on a terminal)\n" SC_CONN_HELP_SESSION
	SC_CONN_HELP SC_CLI_COMMON_HELP;

/* Longest line of a --from-file list. */
#define LIST_LINE_MAX 65536
/* Names per ArtifactStatus request. */
#define STATUS_BATCH 1000

struct opts {
	struct sc_cli_common common;
	struct sc_conn_opts conn;
	const char *as;
	const char *from_file;
	const char *chunk_text;
	bool cache, status, jsonl;
	int progress; /* -1: on a terminal */
	uint64_t chunk_size; /* 0: default */
	uint64_t crc_retries; /* UINT64_MAX: default */
	uint64_t max_retries; /* UINT64_MAX: default */
	enum sc_upload_kind kind;
	bool has_kind;
	char **names; /* operands */
	size_t nnames;
};

enum art_result { R_NONE = 0, R_UPLOADED, R_CACHED, R_CRC };

struct art {
	char *operand; /* as given */
	char *name;
	struct source *src;
	uint64_t bytes;
	uint64_t chunks;
	uint32_t crc;
	enum art_result result;
	size_t dup_of; /* --cache: same content as this one (SIZE_MAX: none) */
	size_t item; /* index in the items sent (SIZE_MAX: not sent) */
};

/* ------------------------------------------------------------- options */

static int
opt_format(void *p, const char *s, struct sc_error *err)
{
	struct opts *o = p;

	if (strcmp(s, "text") == 0)
		o->jsonl = false;
	else if (strcmp(s, "jsonl") == 0 || strcmp(s, "json") == 0)
		o->jsonl = true;
	else
		return sc_error_set(err, SC_ST_USAGE,
		    "invalid format '%s': expected text or jsonl", s);
	return 0;
}

static int
opt_kind(void *p, const char *s, struct sc_error *err)
{
	struct opts *o = p;

	if (sc_upload_kind_parse(s, &o->kind, err) == -1)
		return -1;
	o->has_kind = true;
	return 0;
}

static int
opt_chunk(void *p, const char *s, struct sc_error *err)
{
	struct opts *o = p;
	struct sc_error e;

	sc_error_init(&e);
	if (sc_parse_size(s, &o->chunk_size, &e) == -1)
		return sc_error_set(err, SC_ST_USAGE,
		    "invalid --chunk-size: %s", e.msg);
	if (o->chunk_size < SC_UPLOAD_MIN_CHUNK)
		return sc_error_set(err, SC_ST_USAGE,
		    "invalid --chunk-size: '%s' is less than %d bytes", s,
		    SC_UPLOAD_MIN_CHUNK);
	o->chunk_text = s;
	return 0;
}

static void
parse_args(struct opts *o, int argc, char **argv)
{
	const struct sc_cli_opt table[] = {
		SC_CLI_STRING("as", 0, &o->as),
		SC_CLI_FLAG("cache", 0, &o->cache),
		SC_CLI_CALL("chunk-size", 0, o, opt_chunk),
		SC_CLI_UINT("crc-retries", 0, &o->crc_retries, 0, 100),
		SC_CLI_CALL("format", 0, o, opt_format),
		SC_CLI_STRING("from-file", 0, &o->from_file),
		SC_CLI_CALL("kind", 0, o, opt_kind),
		SC_CLI_UINT("max-retries", 0, &o->max_retries, 0, 1000),
		SC_CLI_SET("no-progress", 0, &o->progress, 0),
		SC_CLI_SET("progress", 0, &o->progress, 1),
		SC_CLI_FLAG("status", 0, &o->status),
		SC_CLI_END,
	};
	int i;

	memset(o, 0, sizeof(*o));
	o->progress = -1;
	o->crc_retries = o->max_retries = UINT64_MAX;
	sc_cli_init(&o->common, "sc-upload");
	sc_conn_opts_init(&o->conn);
	i = sc_cli_parse(table, usage_text, &o->common, &o->conn, argc, argv);
	o->names = argv + i;
	o->nnames = (size_t)(argc - i);
}

/* Each forbidden combination, one line and one message each. */
static void
validate(const struct opts *o)
{
	struct sc_error e;
	size_t i, stdin_uses = 0;

	if (o->status) {
		if (o->nnames == 0)
			sc_usage_msg(usage_text,
			    "--status needs artifact names");
		if (o->as != NULL)
			sc_usage_msg(usage_text,
			    "cannot use --status and --as");
		if (o->cache)
			sc_usage_msg(usage_text,
			    "cannot use --status and --cache");
		if (o->has_kind)
			sc_usage_msg(usage_text,
			    "cannot use --status and --kind");
		if (o->from_file != NULL)
			sc_usage_msg(usage_text,
			    "cannot use --status and --from-file");
		if (o->chunk_text != NULL)
			sc_usage_msg(usage_text,
			    "cannot use --status and --chunk-size");
		if (o->crc_retries != UINT64_MAX)
			sc_usage_msg(usage_text,
			    "cannot use --status and --crc-retries");
		if (o->progress >= 0)
			sc_usage_msg(usage_text,
			    "cannot use --status and --progress or --no-progress");
		for (i = 0; i < o->nnames; i++)
			if (sc_upload_name_check(o->names[i], &e) == -1)
				sc_usage_msg(usage_text, "%s", e.msg);
		/* Spark's ArtifactStatus looks in its block manager's cache
		 * only and answers false for any other name, held or not. */
		for (i = 0; i < o->nnames; i++)
			if (strncmp(o->names[i], "cache/", 6) != 0)
				sc_usage_msg(usage_text,
				    "--status can only ask about cache/ names (servers answer false for any other): '%s'",
				    o->names[i]);
		return;
	}
	if (o->nnames == 0 && o->from_file == NULL)
		sc_usage_msg(usage_text,
		    "missing source (a path, a URL, or - for standard input)");
	if (o->cache && o->as != NULL)
		sc_usage_msg(usage_text,
		    "cannot use --cache and --as (the name is the content's SHA-256)");
	if (o->cache && o->has_kind)
		sc_usage_msg(usage_text, "cannot use --cache and --kind");
	if (o->as != NULL && o->as[0] == '/')
		sc_usage_msg(usage_text,
		    "invalid --as '%s': an artifact name is relative (no leading '/')",
		    o->as);
	if (o->as != NULL && o->from_file != NULL)
		sc_usage_msg(usage_text,
		    "cannot use --as and --from-file (--as names one source)");
	if (o->as != NULL && o->nnames > 1)
		sc_usage_msg(usage_text,
		    "--as names one source, %zu were given", o->nnames);
	for (i = 0; i < o->nnames; i++)
		if (strcmp(o->names[i], "-") == 0)
			stdin_uses++;
	if (o->from_file != NULL && strcmp(o->from_file, "-") == 0)
		stdin_uses++;
	if (stdin_uses > 1)
		sc_usage_msg(usage_text,
		    "standard input can be read only once");
}

/* ------------------------------------------------------------- sources */

/* Sources listed in file, one per line (empty lines skipped). */
static int
read_list(const char *file, char ***v, size_t *n, struct sc_error *err)
{
	FILE *fp;
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int rc = 0;

	if (strcmp(file, "-") == 0)
		fp = stdin;
	else if ((fp = fopen(file, "re")) == NULL)
		return sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot read '%s'", file);
	errno = 0;
	while ((len = getline(&line, &cap, fp)) != -1) {
		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len == 0)
			continue;
		if (len > LIST_LINE_MAX || strlen(line) != (size_t)len) {
			rc = sc_error_set(err, SC_ST_USAGE,
			    "line %zu of '%s' is too long or holds a NUL byte",
			    lineno,
			    strcmp(file, "-") == 0 ? "standard input" : file);
			break;
		}
		*v = sc_xreallocarray(*v, *n + 1, sizeof(**v));
		(*v)[(*n)++] = sc_xstrdup(line);
	}
	if (rc == 0 && ferror(fp))
		rc = sc_error_set_errno(err, SC_ST_IO, errno,
		    "cannot read '%s'",
		    strcmp(file, "-") == 0 ? "standard input" : file);
	free(line);
	if (fp != stdin)
		fclose(fp);
	return rc;
}

/* By name, then by position: the first of equal names comes first. */
static int
cmp_art_name(const void *a, const void *b)
{
	const struct art *x = *(struct art *const *)a;
	const struct art *y = *(struct art *const *)b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return x < y ? -1 : x > y;
}

/* Pointers to arts[0..n), sorted by name (free the result). */
static struct art **
sorted_by_name(struct art *arts, size_t n)
{
	struct art **v = sc_xcalloc(n > 0 ? n : 1, sizeof(*v));
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = &arts[i];
	qsort(v, n, sizeof(*v), cmp_art_name);
	return v;
}

/* Whether s is a URL of a scheme sc-upload does not fetch ("ftp://"). */
static bool
other_scheme(const char *s)
{
	size_t n = strspn(s,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");

	return n > 0 && strncmp(s + n, "://", 3) == 0 && !source_is_url(s);
}

/* Name every source; two sources may not share a name. */
static int
name_all(const struct opts *o, struct art *arts, size_t n,
    const struct timespec *dl, struct sc_error *err)
{
	struct sc_upload_naming nm;
	struct art **v;
	size_t i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		arts[i].dup_of = arts[i].item = SIZE_MAX;
		if (other_scheme(arts[i].operand))
			return sc_error_set(err, SC_ST_USAGE,
			    "cannot read '%s': unsupported URL scheme (http://, https:// or file://)",
			    arts[i].operand);
		if (o->cache) {
			arts[i].src = source_new(arts[i].operand, true, dl);
			continue;
		}
		if (sc_upload_name(o->has_kind ? o->kind : SC_UPLOAD_AUTO,
			arts[i].operand, o->as, &nm, err) == -1)
			return -1;
		arts[i].name = nm.name;
		arts[i].src = source_new(nm.source, false, dl);
		free(nm.source);
	}
	if (o->cache)
		return 0;
	v = sorted_by_name(arts, n);
	for (i = 1; i < n; i++)
		if (strcmp(v[i - 1]->name, v[i]->name) == 0) {
			rc = sc_error_set(err, SC_ST_USAGE,
			    "'%s' and '%s' would both be uploaded as '%s'",
			    v[i - 1]->operand, v[i]->operand, v[i]->name);
			break;
		}
	free(v);
	return rc;
}

/* --cache: name each by its SHA-256; the same content goes once. */
static int
hash_all(struct art *arts, size_t n, struct sc_error *err)
{
	char name[SC_UPLOAD_CACHE_NAME_LEN];
	uint8_t digest[32];
	struct art **v;
	size_t i, first;

	for (i = 0; i < n; i++) {
		if (source_hash(arts[i].src, digest, &arts[i].crc,
			&arts[i].bytes, err) == -1)
			return -1;
		sc_upload_cache_name(digest, name);
		arts[i].name = sc_xstrdup(name);
	}
	v = sorted_by_name(arts, n);
	for (i = 0, first = 0; i < n; i++) {
		if (i > 0 && strcmp(v[i]->name, v[first]->name) == 0)
			v[i]->dup_of = (size_t)(v[first] - arts);
		else
			first = i;
	}
	free(v);
	return 0;
}

/* --cache: which of the unique names the session holds already. */
static int
ask_cached(struct sc_client *c, struct art *arts, size_t n,
    const struct timespec *dl, struct sc_error *err)
{
	const char **names;
	size_t *which, m = 0, i, k, len;
	bool *exists;
	int rc = 0;

	names = sc_xcalloc(n > 0 ? n : 1, sizeof(*names));
	which = sc_xcalloc(n > 0 ? n : 1, sizeof(*which));
	exists = sc_xcalloc(n > 0 ? n : 1, sizeof(*exists));
	for (i = 0; i < n; i++)
		if (arts[i].dup_of == SIZE_MAX) {
			names[m] = arts[i].name;
			which[m++] = i;
		}
	for (k = 0; k < m && rc == 0; k += len) {
		len = m - k < STATUS_BATCH ? m - k : STATUS_BATCH;
		rc = sc_client_artifact_status(c, names + k, len, exists + k,
		    dl, err);
	}
	for (i = 0; rc == 0 && i < m; i++)
		if (exists[i])
			arts[which[i]].result = R_CACHED;
	free(names);
	free(which);
	free(exists);
	return rc;
}

/* -------------------------------------------------------------- output */

static const char *const up_cols[] = { "name", "bytes", "chunks", "crc",
	"result", "source" };
static const char *const st_cols[] = { "name", "exists" };

static struct sc_output *
output_new(const struct opts *o, const char *const *cols, size_t n,
    struct sc_error *err)
{
	struct sc_output_opts oo;
	struct sc_output *out;

	memset(&oo, 0, sizeof(oo));
	oo.header = false;
	oo.flush = -1;
	out = sc_output_new(stdout, o->jsonl ? SC_OUT_JSONL : SC_OUT_TSV, &oo);
	if (sc_output_header(out, cols, n, err) == -1) {
		sc_output_free(out);
		return NULL;
	}
	return out;
}

static int
print_art(struct sc_output *out, const struct art *a, struct sc_error *err)
{
	static const char *const words[] = { "", "uploaded", "cached",
		"crc-mismatch" };
	char bytes[24], chunks[24], crc[12];
	struct sc_out_value v[6];

	snprintf(bytes, sizeof(bytes), "%llu", (unsigned long long)a->bytes);
	snprintf(chunks, sizeof(chunks), "%llu", (unsigned long long)a->chunks);
	snprintf(crc, sizeof(crc), "%08x", (unsigned)a->crc);
	v[0] = (struct sc_out_value){ SC_OUT_STRING, a->name, strlen(a->name) };
	v[1] = (struct sc_out_value){ SC_OUT_NUMBER, bytes, strlen(bytes) };
	v[2] = (struct sc_out_value){ SC_OUT_NUMBER, chunks, strlen(chunks) };
	v[3] = (struct sc_out_value){ SC_OUT_STRING, crc, strlen(crc) };
	v[4] = (struct sc_out_value){ SC_OUT_STRING, words[a->result],
		strlen(words[a->result]) };
	v[5] = (struct sc_out_value){ SC_OUT_STRING, a->operand,
		strlen(a->operand) };
	return sc_output_row(out, v, SC_NELEM(v), err);
}

/* --------------------------------------------------------------- events */

static void
on_event(const struct sc_client_event *ev, void *arg)
{
	if (sc_log_level < sc_client_event_level(ev))
		return;
	progress_lock();
	sc_client_log_event(ev, arg);
	progress_unlock();
}

static void
on_progress(void *arg, uint64_t sent, const struct sc_upload_item *it)
{
	(void)arg;
	progress_update(sent, it->name);
}

/* ------------------------------------------------------------ the story */

static int
run_status(const struct opts *o, struct sc_client *c, const struct timespec *dl,
    bool *all, struct sc_error *err)
{
	struct sc_output *out = NULL;
	struct sc_out_value v[2];
	bool *exists;
	size_t i, k, len;
	int rc = 0, missing = 0;

	exists = sc_xcalloc(o->nnames, sizeof(*exists));
	for (k = 0; k < o->nnames && rc == 0; k += len) {
		len = o->nnames - k < STATUS_BATCH ? o->nnames - k
						   : STATUS_BATCH;
		rc = sc_client_artifact_status(c,
		    (const char *const *)o->names + k, len, exists + k, dl,
		    err);
	}
	if (rc == 0 && !o->common.quiet &&
	    (out = output_new(o, st_cols, SC_NELEM(st_cols), err)) == NULL)
		rc = -1;
	for (i = 0; rc == 0 && i < o->nnames; i++) {
		missing += !exists[i];
		if (out == NULL)
			continue;
		v[0] = (struct sc_out_value){ SC_OUT_STRING, o->names[i],
			strlen(o->names[i]) };
		v[1] = (struct sc_out_value){ SC_OUT_BOOL,
			exists[i] ? "true" : "false", exists[i] ? 4 : 5 };
		rc = sc_output_row(out, v, 2, err);
	}
	if (out != NULL && rc == 0)
		rc = sc_output_finish(out, err);
	sc_output_free(out);
	free(exists);
	*all = missing == 0;
	return rc;
}

static int
run_upload(const struct opts *o, struct sc_upload *u, struct art *arts,
    size_t n, const struct timespec *dl, struct sc_error *err)
{
	struct sc_retry_policy pol;
	struct sc_upload_opts uo;
	struct sc_upload_item *items;
	struct sc_output *out = NULL;
	struct sc_error perr;
	uint64_t total = 0;
	int64_t sz;
	size_t i, m = 0;
	bool known = true;
	int rc = 0, prc;

	if (o->cache &&
	    (hash_all(arts, n, err) == -1 ||
		ask_cached(sc_upload_client(u), arts, n, dl, err) == -1))
		return -1;
	items = sc_xcalloc(n > 0 ? n : 1, sizeof(*items));
	for (i = 0; i < n; i++) {
		if (arts[i].dup_of != SIZE_MAX || arts[i].result == R_CACHED)
			continue;
		arts[i].item = m;
		items[m].name = arts[i].name;
		items[m].label = arts[i].operand;
		items[m].src = &source_ops;
		items[m].arg = arts[i].src;
		if ((sz = source_known_size(arts[i].src)) < 0)
			known = false;
		else
			total += (uint64_t)sz;
		m++;
	}

	sc_retry_policy_default(&pol);
	if (o->max_retries != UINT64_MAX)
		pol.max_retries = (int)o->max_retries;
	memset(&uo, 0, sizeof(uo));
	uo.chunk_size = o->chunk_size;
	uo.crc_retries = o->crc_retries == UINT64_MAX ? -1
						      : (int)o->crc_retries;
	uo.policy = &pol;
	uo.deadline = dl;
	uo.progress = on_progress;
	progress_enable(o->progress == 1 ||
		(o->progress < 0 && !o->common.quiet && isatty(STDERR_FILENO)),
	    known ? total : 0);
	if (m > 0)
		rc = sc_upload_send(u, items, m, &uo, err);
	progress_clear();

	/* A line for every artifact whose fate is known. */
	for (i = 0; i < n; i++) {
		struct art *d = &arts[i];
		size_t k = d->dup_of != SIZE_MAX ? d->dup_of : i;
		const struct sc_upload_item *it;

		if (arts[k].item == SIZE_MAX) {
			d->result = arts[k].result; /* cached, or none */
			continue;
		}
		it = &items[arts[k].item];
		/* The same bytes as an earlier source: sent once, for it. */
		if (k != i) {
			d->result = it->result == SC_UPLOAD_STORED ? R_CACHED
			    : it->result == SC_UPLOAD_CRC_MISMATCH ? R_CRC
								   : R_NONE;
			continue;
		}
		if (it->result == SC_UPLOAD_STORED)
			d->result = R_UPLOADED;
		else if (it->result == SC_UPLOAD_CRC_MISMATCH)
			d->result = R_CRC;
		else
			continue;
		d->bytes = it->bytes;
		d->chunks = it->chunks;
		d->crc = it->crc;
	}
	free(items);
	if (o->common.quiet)
		return rc;
	sc_error_init(&perr);
	if ((out = output_new(o, up_cols, SC_NELEM(up_cols), &perr)) == NULL)
		prc = -1;
	else
		prc = 0;
	for (i = 0; prc == 0 && i < n; i++)
		if (arts[i].result != R_NONE)
			prc = print_art(out, &arts[i], &perr);
	if (prc == 0 && out != NULL)
		prc = sc_output_finish(out, &perr);
	sc_output_free(out);
	if (prc == -1 && rc == 0) {
		*err = perr;
		return -1;
	}
	return rc;
}

int
main(int argc, char **argv)
{
	struct sc_signals_opts so = { 0, progress_lock, progress_unlock, NULL };
	struct sc_client_opts co;
	struct sc_upload *u = NULL;
	struct sc_error err;
	struct art *arts = NULL;
	struct opts o;
	const struct timespec *dl;
	char **list = NULL;
	size_t nlist = 0, n = 0, i;
	bool urls = false, all = true;
	uint64_t max_chunk;
	int rc = 0;

	parse_args(&o, argc, argv);
	validate(&o);
	sc_error_init(&err);
	dl = o.common.has_deadline ? &o.common.deadline : NULL;

	if (!o.status) {
		if (o.from_file != NULL &&
		    read_list(o.from_file, &list, &nlist, &err) == -1) {
			if (err.status == SC_ST_USAGE)
				sc_usage_msg(usage_text, "%s", err.msg);
			return sc_report_error(&err);
		}
		n = o.nnames + nlist;
		/* An empty list (nothing changed since...) is no work. */
		if (n == 0) {
			sc_conn_opts_release(&o.conn);
			return SC_EXIT_OK;
		}
		arts = sc_xcalloc(n, sizeof(*arts));
		for (i = 0; i < n; i++) {
			arts[i].operand = i < o.nnames ? sc_xstrdup(o.names[i])
						       : list[i - o.nnames];
			if (source_is_url(arts[i].operand))
				urls = true;
		}
		free(list);
		if (name_all(&o, arts, n, dl, &err) == -1) {
			if (err.status == SC_ST_USAGE)
				sc_usage_msg(usage_text, "%s", err.msg);
			rc = -1;
		}
		for (i = 0; rc == 0 && i < n; i++)
			rc = source_check(arts[i].src, &err);
		if (rc == 0 && urls)
			rc = source_global_init(&err);
	}

	memset(&co, 0, sizeof(co));
	co.on_event = on_event;
	if (rc == 0 &&
	    (sc_signals_start(&so, &err) == -1 ||
		(u = sc_upload_connect(&o.conn, &co, &err)) == NULL))
		rc = -1;
	if (rc == 0 && sc_client_session_is_new(sc_upload_client(u)))
		sc_usage_msg(usage_text,
		    "no session: give --session-id, or session_id= in the server address");
	if (rc == 0 && o.chunk_size > 0) {
		max_chunk =
		    (uint64_t)sc_upload_max_message(u) - SC_UPLOAD_MSG_ROOM;
		if (o.chunk_size > max_chunk)
			sc_usage_msg(usage_text,
			    "invalid --chunk-size: '%s' is more than the message limit (%ld bytes) less 64 KiB",
			    o.chunk_text, sc_upload_max_message(u));
	}
	if (rc == 0) {
		sc_debug("server %s, session %s, user '%s'",
		    sc_client_server(sc_upload_client(u)),
		    sc_client_session_id(sc_upload_client(u)),
		    sc_client_user_id(sc_upload_client(u)));
		if (o.status)
			rc =
			    run_status(&o, sc_upload_client(u), dl, &all, &err);
		else
			rc = run_upload(&o, u, arts, n, dl, &err);
	}

	sc_upload_free(u);
	for (i = 0; i < n; i++) {
		free(arts[i].operand);
		free(arts[i].name);
		source_free(arts[i].src);
	}
	free(arts);
	if (urls)
		source_global_cleanup();
	sc_conn_opts_release(&o.conn);
	if (rc == -1) {
		/* A write error is the one to report, once, with its errno. */
		if (err.status == SC_ST_IO)
			(void)fclose(stdout);
		else
			(void)sc_check_stdout();
		return sc_report_error(&err);
	}
	rc = sc_check_stdout();
	/* --status: every name missing from the session makes it 3. */
	return rc == 0 && !all ? SC_EXIT_NOTFOUND : rc;
}
