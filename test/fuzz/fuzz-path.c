/* SPDX-License-Identifier: MIT */

/*
 * fuzz-path: sc-serve's artifact name checks (lib/server/artifact.h): a
 * name as bytes, and the same bytes as a serialized AddArtifactsRequest.
 * A name that passes must not be able to leave the session's directory.
 */

#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "server/artifact.h"
#include "core/banned.h"

/* Whether name (n bytes) has a component that climbs or is absolute. */
static int
escapes(const char *name, size_t n)
{
	size_t i, start = 0;

	if (n == 0 || name[0] == '/' || memchr(name, '\0', n) != NULL ||
	    memchr(name, '\\', n) != NULL)
		return 1;
	for (i = 0; i <= n; i++)
		if (i == n || name[i] == '/') {
			if (i - start == 0 ||
			    (i - start == 2 && name[start] == '.' &&
				name[start + 1] == '.') ||
			    (i - start == 1 && name[start] == '.'))
				return 1;
			start = i + 1;
		}
	return 0;
}

int
sc_fuzz_path(const uint8_t *data, size_t n)
{
	struct sc_error err;

	sc_error_init(&err);
	if (sc_artifact_check_name((const char *)data, n, &err) == 0) {
		if (escapes((const char *)data, n))
			abort();
	} else if (err.msg[0] == '\0')
		abort();
	sc_error_init(&err);
	(void)sc_artifact_check_request(data, n, &err);
	return 0;
}

SC_FUZZ_MAIN_FOR(sc_fuzz_path)
