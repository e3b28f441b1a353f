/* SPDX-License-Identifier: MIT */

#ifndef SC_SERVE_NOTIFY_H
#define SC_SERVE_NOTIFY_H

/*
 * sc-serve's state for a service manager (systemd's sd_notify(3), through
 * libsystemd): readiness once the port accepts, reloads on SIGHUP, and
 * the shutdown.  Each call also sets STATUS= (systemctl status shows it).
 * With NOTIFY_SOCKET unset every call does nothing; a failure to send is
 * a debug line, never fatal.
 */

/* The listener accepts on host:port: READY=1. */
void sc_serve_notify_ready(const char *host, int port);

/* SIGHUP: RELOADING=1 before the reload, READY=1 after it. */
void sc_serve_notify_reloading(void);
void sc_serve_notify_reloaded(void);

/* The shutdown begins, on the signal named: STOPPING=1. */
void sc_serve_notify_stopping(const char *signame);

#endif
