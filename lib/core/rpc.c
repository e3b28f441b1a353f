/* SPDX-License-Identifier: MIT */

/*
 * rpc.c: the part of the gRPC module both halves use: starting the core
 * once per process, channel arguments, byte buffers, PEM files.  The
 * client is rpc_client.c, the server rpc_server.c (see rpc_int.h).
 */

#include "core/rpc_int.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/log.h"
#include "core/banned.h"

#define MAX_PEM (1L << 20) /* certificate and key files */

static pthread_once_t core_once = PTHREAD_ONCE_INIT;

static void
core_log(gpr_log_func_args *a)
{
	sc_debug("grpc %s:%d: %s", a->file, a->line, a->message);
}

static void
core_init(void)
{
	gpr_set_log_function(core_log);
	if (getenv("GRPC_VERBOSITY") == NULL)
		gpr_set_log_verbosity(GPR_LOG_SEVERITY_ERROR);
}

void
sc_rpc_core_start(void)
{
	(void)pthread_once(&core_once, core_init);
	grpc_init();
}

void
sc_rpc_core_stop(void)
{
	grpc_shutdown();
}

void
sc_rpc_arg_int(grpc_arg *a, const char *key, int v)
{
	a->type = GRPC_ARG_INTEGER;
	a->key = (char *)key;
	a->value.integer = v;
}

int
sc_rpc_limit_arg(long n)
{
	if (n <= 0 || n > INT_MAX)
		return -1;
	return (int)n;
}

void
sc_rpc_op(grpc_op *op, grpc_op_type type)
{
	memset(op, 0, sizeof(*op));
	op->op = type;
}

grpc_byte_buffer *
sc_rpc_make_bb(const void *p, size_t n)
{
	grpc_byte_buffer *bb;
	grpc_slice s;

	s = grpc_slice_malloc(n);
	if (n > 0)
		memcpy(GRPC_SLICE_START_PTR(s), p, n);
	bb = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	return bb;
}

char *
sc_rpc_read_file(const char *path, const char *what, struct sc_error *err)
{
	struct sc_buf b;
	char chunk[8192];
	size_t n;
	FILE *fp;

	if ((fp = fopen(path, "re")) == NULL) {
		sc_error_set_errno(err, SC_ST_IO, errno, "cannot open %s '%s'",
		    what, path);
		return NULL;
	}
	sc_buf_init(&b, MAX_PEM);
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		if (sc_buf_add(&b, chunk, n, NULL) == -1) {
			fclose(fp);
			sc_error_set(err, SC_ST_IO, "%s '%s' is too large",
			    what, path);
			return NULL;
		}
	if (ferror(fp)) {
		sc_error_set_errno(err, SC_ST_IO, errno, "cannot read %s '%s'",
		    what, path);
		fclose(fp);
		sc_buf_release(&b);
		return NULL;
	}
	fclose(fp);
	return (char *)sc_buf_detach(&b, NULL);
}

void
sc_rpc_free_secret(char *s)
{
	if (s != NULL) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}
