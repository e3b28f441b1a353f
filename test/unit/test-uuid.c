/* SPDX-License-Identifier: MIT */

/*
 * test-uuid.c: version 4 UUID generation and validation.
 */

#include "core/uuid.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.h"
#include "tap.h"
#include "core/banned.h"

#define NUUID 1000

static int
cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static void
test_generate(void)
{
	static char ids[NUUID][SC_UUID_STRLEN];
	struct sc_error err;
	size_t i, j;
	int fmt_ok = 1, ver_ok = 1, var_ok = 1, lower_ok = 1;
	int dup = 0, rc_ok = 1;

	for (i = 0; i < NUUID; i++) {
		if (sc_uuid_v4(ids[i], &err) != 0)
			rc_ok = 0;
		if (strlen(ids[i]) != 36 || !sc_uuid_valid(ids[i]))
			fmt_ok = 0;
		if (ids[i][14] != '4')
			ver_ok = 0;
		if (hexval(ids[i][19]) < 8 || hexval(ids[i][19]) > 11)
			var_ok = 0;
		for (j = 0; j < 36; j++)
			if (ids[i][j] != '-' && hexval(ids[i][j]) < 0)
				lower_ok = 0;
	}
	ok(rc_ok, "sc_uuid_v4 returns 0 %d times", NUUID);
	ok(fmt_ok, "every uuid is 36 chars in 8-4-4-4-12 form");
	ok(ver_ok, "version nibble is 4");
	ok(var_ok, "variant bits are 10 (8, 9, a or b)");
	ok(lower_ok, "lower-case hex digits only");
	ok(ids[0][8] == '-' && ids[0][13] == '-' && ids[0][18] == '-' &&
		ids[0][23] == '-',
	    "dashes at 8, 13, 18, 23");
	qsort(ids, NUUID, sizeof(ids[0]), cmp);
	for (i = 1; i < NUUID; i++)
		if (strcmp(ids[i - 1], ids[i]) == 0)
			dup++;
	is_int(dup, 0, "%d uuids are all different", NUUID);
}

static void
test_valid(void)
{
	static const struct {
		const char *s;
		bool valid;
	} t[] = {
		{ "00112233-4455-6677-8899-aabbccddeeff", true },
		{ "00112233-4455-6677-8899-AABBCCDDEEFF", true },
		{ "0f1E2d3C-4b5a-4697-8877-665544332211", true },
		{ "00000000-0000-0000-0000-000000000000", true },
		{ "", false },
		{ "00112233-4455-6677-8899-aabbccddeef", false },
		{ "00112233-4455-6677-8899-aabbccddeeff0", false },
		{ "00112233-4455-6677-8899-aabbccddeefg", false },
		{ "00112233_4455-6677-8899-aabbccddeeff", false },
		{ "001122334-455-6677-8899-aabbccddeeff", false },
		{ "{00112233-4455-6677-8899-aabbccddeeff}", false },
		{ "00112233445566778899aabbccddeeff", false },
		{ " 00112233-4455-6677-8899-aabbccddeeff", false },
		{ "00112233-4455-6677-8899-aabbccddeef ", false },
		{ "00112233-4455-6677-8899-aabbccddee\xff", false },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		is_int(sc_uuid_valid(t[i].s), t[i].valid, "valid('%s') is %s",
		    t[i].s, t[i].valid ? "true" : "false");
	is_int(sc_uuid_valid(NULL), false, "valid(NULL) is false");
}

static void
test_lower(void)
{
	char s[] = "0F1E2D3C-4B5A-4697-8877-AABBCCDDEEFF";
	char t[] = "";

	sc_uuid_lower(s);
	is_str(s, "0f1e2d3c-4b5a-4697-8877-aabbccddeeff", "lower-cased");
	sc_uuid_lower(t);
	is_str(t, "", "empty string unchanged");
}

static void
test_parse(void)
{
	static const uint8_t want[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
		0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
	static const char *const bad[] = { "",
		"00112233-4455-6677-8899-aabbccddeef",
		"00112233-4455-6677-8899-aabbccddeefg",
		"0011223344-55-6677-8899-aabbccddeeff",
		"00112233-4455-6677-8899-aabbccddeeff0" };
	char s[SC_UUID_STRLEN], back[SC_UUID_STRLEN];
	uint8_t b[16];
	size_t i;

	ok(sc_uuid_parse("00112233-4455-6677-8899-AABBccddeeff", b),
	    "parse: mixed case");
	is_mem(b, sizeof(b), want, sizeof(want), "parse: the 16 bytes");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(!sc_uuid_parse(bad[i], b), "parse: '%s' refused", bad[i]);
	ok(!sc_uuid_parse(NULL, b), "parse: NULL refused");
	/* Back to text: the same id. */
	sc_uuid_v4(s, NULL);
	ok(sc_uuid_parse(s, b), "parse: a new id");
	snprintf(back, sizeof(back),
	    "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
	    "%02x%02x%02x%02x%02x%02x",
	    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10],
	    b[11], b[12], b[13], b[14], b[15]);
	is_str(back, s, "parse: the bytes print as the id");
}

/*
 * Ids are drawn from a per-thread block of random bytes: a forked child
 * must not reuse the parent's unused bytes, and neither may a thread.
 */
static void *
thread_id(void *arg)
{
	sc_uuid_v4(arg, NULL);
	return NULL;
}

static void
test_fork_and_threads(void)
{
	char a[SC_UUID_STRLEN], b[SC_UUID_STRLEN], c[SC_UUID_STRLEN];
	char t[SC_UUID_STRLEN] = "";
	int fd[2], st;
	pthread_t th;
	pid_t pid;
	ssize_t n;

	is_int(sc_uuid_v4(a, NULL), 0, "fork: parent id");
	if (pipe(fd) == -1 || (pid = fork()) == -1) {
		ok(0, "fork: pipe and fork");
		return;
	}
	if (pid == 0) {
		close(fd[0]);
		if (sc_uuid_v4(c, NULL) == 0)
			n = write(fd[1], c, sizeof(c));
		_exit(0);
	}
	close(fd[1]);
	n = read(fd[0], c, sizeof(c));
	close(fd[0]);
	waitpid(pid, &st, 0);
	is_int(sc_uuid_v4(b, NULL), 0, "fork: parent's next id");
	ok(n == (ssize_t)sizeof(c) && sc_uuid_valid(c), "fork: child's id");
	ok(strcmp(b, c) != 0 && strcmp(a, c) != 0,
	    "fork: the child's id is not the parent's (%s, %s)", b, c);
	pthread_create(&th, NULL, thread_id, t);
	pthread_join(th, NULL);
	ok(sc_uuid_valid(t) && strcmp(t, b) != 0 && strcmp(t, a) != 0,
	    "thread: an id of its own");
}

int
main(void)
{
	test_generate();
	test_fork_and_threads();
	test_valid();
	test_lower();
	test_parse();
	return tap_done();
}
