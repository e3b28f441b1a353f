/* SPDX-License-Identifier: MIT */

/*
 * signals.h: SIGINT and SIGTERM for client programs.
 *
 * A client that owns server-side state (an operation it started) must
 * not just die on ^C: the server would keep the operation, and its
 * results, until a timeout.  sc_signals_start() blocks both signals and
 * hands them to one thread, which on the first of them:
 *
 *  1. aborts the operation in progress (sc_signals_watch()), which
 *     queues its ReleaseAll, and logs "interrupted; operation <id>";
 *  2. gives the client's releases a bounded time to go out
 *     (sc_client_release_wait()), warning if they do not;
 *  3. restores the default action and raises the signal again, so the
 *     caller sees the process die of it (status 130 or 143 in a shell).
 *
 * A signal that was ignored when the program started (SIGINT of a
 * background job) stays ignored.  Signals are process-wide, so this
 * module's state is too: one client and one operation at a time.
 * These functions print only through core/log and never exit, but the
 * thread they start ends the process.
 */

#ifndef SC_SIGNALS_H
#define SC_SIGNALS_H

#include <stdbool.h>
#include <stdint.h>

struct sc_client;
struct sc_error;
struct sc_reattach;

struct sc_signals_opts {
	/* How long the thread waits for releases; 0: 2 seconds. */
	int64_t release_wait_ms;
	/*
	 * Called around the thread's messages, so they do not cut through
	 * other output on stderr (a progress line); NULL: nothing.
	 */
	void (*stderr_lock)(void);
	void (*stderr_unlock)(void);
	/*
	 * Called last, just before the signal is raised again: for what
	 * must not outlive the process unattended (a pager); NULL: nothing.
	 */
	void (*before_exit)(void);
};

/*
 * Block SIGINT and SIGTERM in the calling thread (call it before any
 * other thread starts, so they all inherit the mask) and start the
 * thread that takes them.  o may be NULL.  0, or -1 with err set
 * (SC_ST_INTERNAL: "cannot start the signal thread: ...", the signals
 * unblocked again).  Call once.
 */
int sc_signals_start(const struct sc_signals_opts *o, struct sc_error *err);

/* The client whose releases the thread waits for (NULL: none). */
void sc_signals_set_client(struct sc_client *c);

/* The operation in progress, to abort on a signal (NULL: none). */
void sc_signals_watch(struct sc_reattach *it);

/* Whether a signal has come (the thread is then ending the process). */
bool sc_signals_caught(void);

/*
 * Before freeing the client: forget it.  If a signal has come, the
 * signal thread is using the client and will end the process, so this
 * does not return.
 */
void sc_signals_drop_client(void);

/* Wait for the signal thread to end the process.  (never returns) */
void sc_signals_wait(void) __attribute__((noreturn));

#endif
