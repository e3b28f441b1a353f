/* SPDX-License-Identifier: MIT */

/*
 * child.h: running a function in a child process with its stdout and
 * stderr captured, for unit tests of code that prints, exits or dies of
 * a signal; and taking a process's room for new threads away.
 */

#ifndef SC_TEST_CHILD_H
#define SC_TEST_CHILD_H

#include <stddef.h>
#include <sys/types.h>

struct child {
	pid_t pid;
	int out, err, ready; /* the parent's ends of the pipes */
	int status; /* from waitpid(), after child_finish() */
	char outbuf[4096]; /* what the child wrote, NUL-terminated */
	char errbuf[4096];
};

/*
 * In the child: the descriptor to write one byte to when it is ready to
 * be signalled (child_signal()).
 */
extern int child_ready_fd;

/*
 * Fork and run fn(arg) in the child with stdout and stderr piped back
 * (stdout to stdout_fd instead when it is >= 0); fn normally exits or
 * dies, and returning from it exits 99.
 */
void child_start(struct child *k, void (*fn)(const void *), const void *arg,
    int stdout_fd);

/* Wait until the child wrote to child_ready_fd, then send it sig. */
void child_signal(struct child *k, int sig);

/* Read everything the child writes and wait for it to end. */
void child_finish(struct child *k);

/* Read fd to its end into buf (NUL-terminated, truncated), close it. */
void child_slurp(int fd, char *buf, size_t bufsz);

/* child_start() and child_finish(). */
void child_run(struct child *k, void (*fn)(const void *), const void *arg,
    int stdout_fd);

/*
 * Limit this process's address space to what it uses now plus 1 MiB, so
 * that no new thread's stack fits (glibc reuses the stacks of threads
 * that ended, so call it before any thread ran).  0, or -1.
 */
int child_no_room_for_threads(void);

#endif
