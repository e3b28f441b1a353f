/* SPDX-License-Identifier: MIT */

/*
 * sd_notify(3) messages for systemd's Type=notify services.  Only
 * sc-serve links libsystemd; lib/ stays free of it.
 */

#include "notify.h"
#include <stdio.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include "core/log.h"
#include "core/banned.h"

/* Where READY=1 said the server listens, for the STATUS= after a reload. */
static char listening[300];

static void
send_state(const char *state)
{
	int rc;

	rc = sd_notify(0, state);
	if (rc < 0)
		sc_debug("cannot notify the service manager: %s",
		    strerror(-rc));
}

void
sc_serve_notify_ready(const char *host, int port)
{
	char msg[400];

	snprintf(listening, sizeof(listening), "listening on %s:%d", host,
	    port);
	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=%s", listening);
	send_state(msg);
}

void
sc_serve_notify_reloading(void)
{
	struct timespec ts;
	char msg[128];

	/* MONOTONIC_USEC= lets systemd 253's Type=notify-reload match it. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(msg, sizeof(msg),
	    "RELOADING=1\nSTATUS=reloading (SIGHUP)\nMONOTONIC_USEC=%llu",
	    (unsigned long long)ts.tv_sec * 1000000ULL +
		(unsigned long long)ts.tv_nsec / 1000ULL);
	send_state(msg);
}

void
sc_serve_notify_reloaded(void)
{
	char msg[400];

	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=%s",
	    listening[0] != '\0' ? listening : "ready");
	send_state(msg);
}

void
sc_serve_notify_stopping(const char *signame)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "STOPPING=1\nSTATUS=shutting down (%s)",
	    signame);
	send_state(msg);
}
