/* SPDX-License-Identifier: MIT */

/*
 * uuid.c: version 4 UUIDs from the kernel's CSPRNG.  Session and
 * operation ids are chosen by the client, so they must not be guessable
 * or collide; getrandom(2) is the only source used.  Each thread draws
 * its bytes in blocks for several UUIDs at once (a system call per id
 * showed in the server's per-operation cost); a forked child drops the
 * forking thread's unused block, so parent and child never share bytes.
 */

#include "core/uuid.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>

#include "core/error.h"
#include "core/hex.h"
#include "core/banned.h"

static const char hexdigits[] = "0123456789abcdef";

/* Random bytes for 16 UUIDs, used front to back. */
#define POOL_SIZE 256

static _Thread_local uint8_t pool[POOL_SIZE];
static _Thread_local size_t pool_left;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void
pool_drop(void)
{
	explicit_bzero(pool, sizeof(pool));
	pool_left = 0;
}

static void
fork_init(void)
{
	pthread_atfork(NULL, NULL, pool_drop);
}

/* Fill buf with n random bytes, retrying on EINTR and short reads. */
static int
random_bytes(uint8_t *buf, size_t n, struct sc_error *err)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = getrandom(buf + got, n - got, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return sc_error_set_errno(err, SC_ST_INTERNAL, errno,
			    "cannot read random bytes");
		}
		got += (size_t)r;
	}
	return 0;
}

int
sc_uuid_v4(char out[SC_UUID_STRLEN], struct sc_error *err)
{
	uint8_t b[16];
	char s[SC_UUID_STRLEN];
	size_t i, j;

	pthread_once(&fork_once, fork_init);
	if (pool_left < sizeof(b)) {
		if (random_bytes(pool, sizeof(pool), err) == -1)
			return -1;
		pool_left = sizeof(pool);
	}
	memcpy(b, pool + sizeof(pool) - pool_left, sizeof(b));
	explicit_bzero(pool + sizeof(pool) - pool_left, sizeof(b));
	pool_left -= sizeof(b);
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* variant 10xx (RFC 4122) */
	for (i = 0, j = 0; i < sizeof(b); i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			s[j++] = '-';
		s[j++] = hexdigits[b[i] >> 4];
		s[j++] = hexdigits[b[i] & 0x0f];
	}
	s[j] = '\0';
	for (i = 0; i < SC_UUID_STRLEN; i++)
		out[i] = s[i];
	return 0;
}

bool
sc_uuid_valid(const char *s)
{
	size_t i;

	if (s == NULL)
		return false;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
		} else if (sc_hex_digit((unsigned char)s[i]) == -1)
			return false; /* also stops at an early NUL */
	}
	return s[36] == '\0';
}

bool
sc_uuid_parse(const char *s, uint8_t out[16])
{
	int i;

	if (!sc_uuid_valid(s))
		return false;
	/* 8-4-4-4-12: the groups start at 0, 9, 14, 19 and 24. */
	for (i = 0; i < 16; i++) {
		s += i == 4 || i == 6 || i == 8 || i == 10; /* skip a '-' */
		if (sc_hex_decode(s, 1, &out[i]) == -1)
			return false;
		s += 2;
	}
	return true;
}

void
sc_uuid_lower(char *s)
{
	for (; *s != '\0'; s++)
		if (*s >= 'A' && *s <= 'F')
			*s = (char)(*s - 'A' + 'a');
}
