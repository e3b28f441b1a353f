/* SPDX-License-Identifier: MIT */

/*
 * fuzz-status: the decoder of grpc-status-details-bin (a google.rpc.Status
 * with ErrorInfo and RetryInfo, core/error), the status-to-error path a
 * client takes for every failed call, and retry classification.  The
 * first byte is the gRPC code; the input is both the details and, cut at
 * its first NUL, the message.
 */

#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/retry.h"
#include "core/xmem.h"
#include "core/banned.h"

int
sc_fuzz_status(const uint8_t *data, size_t n)
{
	struct sc_error e;
	enum sc_retry_reason why;
	char *msg;
	int code;

	sc_error_init(&e);
	if (sc_error_decode_details(&e, data, n) == 0 &&
	    (strlen(e.errclass) >= sizeof(e.errclass) ||
		strlen(e.sqlstate) >= sizeof(e.sqlstate)))
		abort();

	code = n > 0 ? data[0] % 20 : 0;
	msg = sc_xmalloc(n + 1);
	memcpy(msg, data, n);
	msg[n] = '\0';
	sc_error_init(&e);
	if (sc_error_from_grpc(&e, code, n > 1 ? msg + 1 : "", data, n) != -1 ||
	    memchr(e.msg, '\0', sizeof(e.msg)) == NULL)
		abort();
	sc_error_reword_transport(&e, "127.0.0.1:15002");
	(void)sc_retry_classify(&e, &why);
	(void)sc_exit_code(&e);
	if (sc_error_class_from_message(msg, e.errclass, sizeof(e.errclass)) ==
		0 &&
	    memchr(e.errclass, '\0', sizeof(e.errclass)) == NULL)
		abort();
	free(msg);
	return 0;
}

SC_FUZZ_MAIN_FOR(sc_fuzz_status)
