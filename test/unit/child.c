/* SPDX-License-Identifier: MIT */

/*
 * child.c: child processes for the unit tests.
 */

#include "child.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/banned.h"

int child_ready_fd = -1;

void
child_start(struct child *k, void (*fn)(const void *), const void *arg,
    int stdout_fd)
{
	int po[2], pe[2], pr[2];

	if (pipe(po) == -1 || pipe(pe) == -1 || pipe(pr) == -1)
		abort();
	fflush(stdout);
	fflush(stderr);
	if ((k->pid = fork()) == -1)
		abort();
	if (k->pid == 0) {
		dup2(stdout_fd >= 0 ? stdout_fd : po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(po[1]);
		close(pe[0]);
		close(pe[1]);
		close(pr[0]);
		child_ready_fd = pr[1];
		fn(arg);
		_exit(99);
	}
	close(po[1]);
	close(pe[1]);
	close(pr[1]);
	k->out = po[0];
	k->err = pe[0];
	k->ready = pr[0];
}

void
child_signal(struct child *k, int sig)
{
	char c;

	if (read(k->ready, &c, 1) == 1)
		kill(k->pid, sig);
}

void
child_slurp(int fd, char *buf, size_t bufsz)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < bufsz && (r = read(fd, buf + n, bufsz - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	close(fd);
}

void
child_finish(struct child *k)
{
	child_slurp(k->out, k->outbuf, sizeof(k->outbuf));
	child_slurp(k->err, k->errbuf, sizeof(k->errbuf));
	close(k->ready);
	waitpid(k->pid, &k->status, 0);
}

void
child_run(struct child *k, void (*fn)(const void *), const void *arg,
    int stdout_fd)
{
	child_start(k, fn, arg, stdout_fd);
	child_finish(k);
}

int
child_no_room_for_threads(void)
{
	char line[256];
	unsigned long kb = 0;
	struct rlimit rl;
	FILE *fp;

	if ((fp = fopen("/proc/self/status", "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "VmSize: %lu kB", &kb) == 1)
			break;
	fclose(fp);
	if (kb == 0 || getrlimit(RLIMIT_AS, &rl) == -1)
		return -1;
	rl.rlim_cur = kb * 1024 + (1UL << 20);
	return setrlimit(RLIMIT_AS, &rl);
}
