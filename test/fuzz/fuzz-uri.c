/* SPDX-License-Identifier: MIT */

/*
 * fuzz-uri: the sc:// address parser (core/uri) and the connection
 * options built on it (core/conn: headers, the secret check), with the
 * invariants a parsed address must keep.
 */

#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "core/conn.h"
#include "core/error.h"
#include "core/uri.h"
#include "core/uuid.h"
#include "core/xmem.h"
#include "core/banned.h"

int
sc_fuzz_uri(const uint8_t *data, size_t n)
{
	struct sc_conn_opts o;
	struct sc_error err;
	struct sc_uri u, v;
	char buf[600], *s;

	s = sc_xmalloc(n + 1);
	memcpy(s, data, n);
	s[n] = '\0';
	sc_uri_init(&u);
	sc_error_init(&err);
	if (sc_uri_parse(&u, s, &err) == 0) {
		/* What a parsed address promises. */
		if (u.port < 1 || u.port > 65535 ||
		    strlen(u.host) >= sizeof(u.host) ||
		    (u.session_id[0] != '\0' && !sc_uuid_valid(u.session_id)) ||
		    (u.has_token && (u.token == NULL || u.token[0] == '\0')))
			abort();
		(void)sc_conn_loopback(u.host);
		/* Its formatted form parses again, to the same place. */
		if (sc_uri_format(&u, buf, sizeof(buf)) == 0) {
			sc_uri_init(&v);
			if (sc_uri_parse(&v, buf, NULL) == -1 ||
			    strcmp(v.host, u.host) != 0 || v.port != u.port)
				abort();
			sc_uri_release(&v);
		}
		(void)sc_uri_target(&u, buf, sizeof(buf));
	} else if (err.status != SC_ST_USAGE || err.msg[0] == '\0')
		abort();
	sc_uri_release(&u);

	/* The same text as -s, with a token and a header on top. */
	sc_conn_opts_init(&o);
	o.server = s;
	o.token = "t0k3n";
	if (sc_conn_opt(&o, 'H', "x-fuzz=1", NULL) == -1)
		abort();
	sc_uri_init(&u);
	if (sc_conn_uri(&o, &u, &err) == -1 && err.status != SC_ST_USAGE)
		abort();
	sc_uri_release(&u);
	sc_conn_opts_release(&o);
	free(s);
	return 0;
}

SC_FUZZ_MAIN_FOR(sc_fuzz_uri)
