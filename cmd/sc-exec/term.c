/* SPDX-License-Identifier: MIT */

/*
 * term.c: standard output when it is a terminal.  Results go through a
 * stdio stream of our own (fopencookie) so that every write can first
 * erase the progress line on the shared terminal, and so that output
 * taller than the screen can go to a pager instead: it is held until it
 * fills a screen (then the pager starts and gets it all) or ends (then
 * it is written as it is).
 */

#include "sc-exec.h"

#include <sys/ioctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/log.h"
#include "core/banned.h"

/* Output held while it may still fit the screen, at most. */
#define HOLD_MAX ((size_t)1 << 20)

static FILE *cookie_fp;
static bool paging; /* a pager may start */
static bool deciding; /* output is held: not decided yet */
static struct sc_buf held;
static size_t rows_used, col; /* of the held output, on the screen */
static int pager_fd = -1;
static pid_t pager_pid = -1;
static bool pager_gone; /* the pager quit (EPIPE) */
static unsigned short screen_rows = 24, screen_cols = 80;

static void
screen_size(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0) {
		screen_rows = ws.ws_row;
		screen_cols = ws.ws_col;
	}
}

size_t
term_rows(void)
{
	return screen_rows;
}

/* write(2) all of p, or -1 with errno. */
static int
write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* To the terminal, after the progress line is erased. */
static int
to_terminal(const char *p, size_t n)
{
	int rc;

	if (n == 0)
		return 0;
	progress_lock();
	rc = write_all(STDOUT_FILENO, p, n);
	progress_output(p[n - 1] == '\n');
	progress_unlock();
	return rc;
}

/*
 * Start $PAGER (default "less -S") through the shell, reading a pipe
 * that replaces our standard output.  0, or -1 (no pager: write to the
 * terminal after all).
 */
static int
start_pager(void)
{
	const char *pager = getenv("PAGER");
	int fds[2];
	pid_t pid;

	if (pager == NULL)
		pager = "less -S";
	if (pipe2(fds, O_CLOEXEC) == -1)
		return -1;
	if ((pid = fork()) == -1) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		sigset_t none;

		/* Our signal thread's mask is not the pager's. */
		sigemptyset(&none);
		pthread_sigmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		dup2(fds[0], STDIN_FILENO);
		execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	pager_fd = fds[1];
	pager_pid = pid;
	progress_enable(false); /* the pager owns the screen now */
	return 0;
}

/* Count the screen rows p takes after the held output. */
static void
count_rows(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == '\n') {
			rows_used++;
			col = 0;
		} else if (((unsigned char)p[i] & 0xc0) != 0x80 &&
		    ++col > screen_cols) {
			rows_used++; /* the terminal wraps it */
			col = 1;
		}
	}
}

static ssize_t
cookie_write(void *c, const char *p, size_t n)
{
	(void)c;
	if (pager_gone) {
		errno = EPIPE;
		return -1;
	}
	if (pager_fd >= 0) {
		if (write_all(pager_fd, p, n) == -1) {
			if (errno == EPIPE)
				pager_gone = true;
			return -1;
		}
		return (ssize_t)n;
	}
	if (!deciding)
		return to_terminal(p, n) == -1 ? -1 : (ssize_t)n;
	if (sc_buf_add(&held, p, n, NULL) == -1)
		return -1;
	count_rows(p, n);
	/* Taller than the screen (less one row for the prompt): page it. */
	if (rows_used + 1 >= screen_rows || held.len >= HOLD_MAX) {
		deciding = false;
		if (start_pager() == -1)
			return to_terminal((const char *)held.data, held.len) ==
				-1
			    ? -1
			    : (ssize_t)n;
		if (write_all(pager_fd, (const char *)held.data, held.len) ==
		    -1) {
			if (errno == EPIPE)
				pager_gone = true;
			sc_buf_reset(&held);
			return -1;
		}
		sc_buf_reset(&held);
	}
	return (ssize_t)n;
}

FILE *
term_open(bool pager)
{
	cookie_io_functions_t io = { NULL, cookie_write, NULL, NULL };

	screen_size();
	paging = pager;
	sc_buf_init(&held, HOLD_MAX + 65536);
	cookie_fp = fopencookie(NULL, "w", io);
	if (cookie_fp == NULL)
		return stdout;
	setvbuf(cookie_fp, NULL, _IOFBF, 65536);
	term_begin();
	return cookie_fp;
}

void
term_begin(void)
{
	deciding = paging;
	rows_used = col = 0;
	sc_buf_reset(&held);
}

int
term_end(void)
{
	int st, rc = 0;

	if (cookie_fp == NULL)
		return 0;
	fflush(cookie_fp);
	if (deciding && held.len > 0 && !pager_gone)
		rc = to_terminal((const char *)held.data, held.len);
	sc_buf_reset(&held);
	deciding = false;
	if (pager_fd >= 0) {
		close(pager_fd);
		pager_fd = -1;
		while (waitpid(pager_pid, &st, 0) == -1 && errno == EINTR)
			;
		pager_pid = -1;
	}
	return rc;
}

void
term_kill_pager(void)
{
	int st;

	if (pager_pid <= 0)
		return;
	if (pager_fd >= 0)
		close(pager_fd);
	while (waitpid(pager_pid, &st, 0) == -1 && errno == EINTR)
		;
}

bool
term_pager_quit(void)
{
	return pager_gone;
}

void
term_close(void)
{
	if (cookie_fp == NULL)
		return;
	(void)term_end();
	/* Writes after a quit pager fail: nobody is reading them. */
	fclose(cookie_fp);
	cookie_fp = NULL;
	sc_buf_release(&held);
}
