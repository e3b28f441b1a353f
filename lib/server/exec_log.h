/* SPDX-License-Identifier: MIT */

/*
 * exec_log.h: who did what.  One log line when an operation starts and one
 * when it ends (it leaves the execution manager), each with the user,
 * the session, the operation id, the client's address, a digest of the
 * statement and its first characters; the end line adds the rows and
 * bytes sent, the duration and the outcome.  The field names are
 * listed in man/sc-serve.1 (LOGGING) and never change.
 *
 * The end line also feeds the operation duration histogram (metrics.h).
 */

#ifndef SC_EXEC_LOG_H
#define SC_EXEC_LOG_H

#include <stddef.h>

#include "server/exec_int.h"

/* Room for the digest: 16 hex digits and the NUL. */
#define SC_EXEC_LOG_DIGEST_LEN 17

/*
 * The first 16 hex digits of the SHA-256 of plan's SQL text (a SQL
 * command's or a SQL relation's query), else of the packed plan
 * (packed, len); "" without either.  out has SC_EXEC_LOG_DIGEST_LEN bytes.
 */
void sc_exec_log_digest(const Spark__Connect__Plan *plan, const void *packed,
    size_t len, char *out);

/*
 * op was registered (manager locked): its start line, from what is
 * fixed when it is created.
 */
void sc_exec_log_start(const struct sc_exec_op *op);

/*
 * op leaves the manager (manager and op locked, before it is canceled
 * or its state becomes CLOSED): its end line, and its duration into
 * the metrics.
 */
void sc_exec_log_end(const struct sc_exec_op *op, enum close_how how);

#endif
