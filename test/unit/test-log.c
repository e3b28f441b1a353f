/* SPDX-License-Identifier: MIT */

/*
 * test-log.c: lib/core/log.c.  sc_log_escape() on control bytes,
 * backslashes, valid and invalid UTF-8, C1 controls and line separators,
 * and its cut at the end of the buffer; sc_log_write() in both styles,
 * read back from a temporary file standing in for stderr, so a message
 * that carries a newline is shown to stay one line.
 */

#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "core/banned.h"

typedef size_t escape_fn(char *out, size_t outsz, const char *in, size_t len);

/* Escape the len bytes at in with fn into a static buffer of outsz bytes. */
static const char *
esc_with(escape_fn *fn, const char *in, size_t len, size_t outsz, size_t *used)
{
	static char out[256];
	size_t n;

	memset(out, 'Z', sizeof(out));
	n = fn(out, outsz, in, len);
	if (used != NULL)
		*used = n;
	return out;
}

#define esc(...) esc_with(sc_log_escape, __VA_ARGS__)
#define jesc(...) esc_with(sc_log_json_escape, __VA_ARGS__)
#define ESC(lit) esc(lit, sizeof(lit) - 1, 256, NULL)

static void
test_escape(void)
{
	size_t used;

	is_str(ESC("plain text, 'quoted' \"x\" ~"),
	    "plain text, 'quoted' \"x\" ~", "printable ASCII is kept");
	is_str(ESC(""), "", "empty stays empty");
	is_str(ESC("a\nb\rc\td"), "a\\nb\\rc\\td", "newline, return, tab");
	is_str(ESC("back\\slash"), "back\\\\slash", "backslash doubled");
	is_str(ESC("\x01\x1b[31m\x7f"), "\\x01\\x1b[31m\\x7f",
	    "other controls and DEL as \\xNN");
	is_str(ESC("nul\0after"), "nul\\x00after", "NUL inside the length");
	is_str(ESC("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
	    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	    "two, three and four byte UTF-8 kept");
	is_str(ESC("\xff\xfe"), "\\xff\\xfe", "0xFF 0xFE escaped");
	is_str(ESC("\xc3("), "\\xc3(", "lead byte without continuation");
	is_str(ESC("\x80x"), "\\x80x", "stray continuation byte");
	is_str(ESC("\xc0\xaf"), "\\xc0\\xaf", "overlong two-byte form");
	is_str(ESC("\xe0\x80\xaf"), "\\xe0\\x80\\xaf", "overlong three-byte");
	is_str(ESC("\xed\xa0\x80"), "\\xed\\xa0\\x80", "surrogate U+D800");
	is_str(ESC("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80",
	    "above U+10FFFF");
	is_str(ESC("\xe2\x82"), "\\xe2\\x82", "sequence cut by the end");
	is_str(ESC("\xc2\x85|\xc2\x9b|\xc2\xa0"), "\\u0085|\\u009b|\xc2\xa0",
	    "C1 controls as \\u, U+00A0 kept");
	is_str(ESC("a\xe2\x80\xa8"
		   "b\xe2\x80\xa9"),
	    "a\\u2028b\\u2029", "line and paragraph separators escaped");

	is_str(esc("abc\ndef", 7, 6, &used), "abc\\n", "cut after an escape");
	is_int(used, 4, "four input bytes used");
	is_str(esc("abc\ndef", 7, 5, &used), "abc", "an escape is never split");
	is_int(used, 3, "three input bytes used");
	is_str(esc("a\xc3\xa9", 3, 3, &used), "a",
	    "a character is never split");
	is_int(used, 1, "one input byte used");
	is_str(esc("abc", 3, 1, &used), "", "room for the NUL only");
	is_int(used, 0, "nothing used");
	is_int(sc_log_escape(NULL, 0, "abc", 3), 0, "outsz 0 writes nothing");
}

/* A literal and its length, NUL bytes inside it included. */
#define LIT(s) s, sizeof(s) - 1

static void
test_json_escape(void)
{
	static const struct {
		const char *in;
		size_t len;
		const char *want, *name;
	} cases[] = {
		{ LIT("plain 'text' ~"), "plain 'text' ~", "printable kept" },
		{ LIT("say \"hi\" \\ there"), "say \\\"hi\\\" \\\\ there",
		    "quote and backslash escaped" },
		{ LIT("a\nb\rc\td"), "a\\nb\\rc\\td", "newline, return, tab" },
		{ LIT("\x01\x1b\x7f"), "\\u0001\\u001b\\u007f",
		    "other controls and DEL as \\u00NN" },
		{ LIT("nul\0after"), "nul\\u0000after",
		    "NUL inside the length" },
		{ LIT("caf\xc3\xa9 \xf0\x9f\x98\x80"),
		    "caf\xc3\xa9 \xf0\x9f\x98\x80", "valid UTF-8 kept" },
		{ LIT("\xff\xc3("), "\\ufffd\\ufffd(",
		    "bytes that are not UTF-8 become U+FFFD" },
		{ LIT("\xed\xa0\x80"), "\\ufffd\\ufffd\\ufffd",
		    "a surrogate too" },
		{ LIT("\xc2\x85\xe2\x80\xa8"), "\\u0085\\u2028",
		    "C1 controls and U+2028 escaped" },
	};
	size_t i, used;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_str(jesc(cases[i].in, cases[i].len, 256, NULL),
		    cases[i].want, "%s", cases[i].name);
	is_str(jesc("ab\"c", 4, 4, &used), "ab", "an escape is never split");
	is_int(used, 2, "two input bytes used");
	is_int(sc_log_json_escape(NULL, 0, "abc", 3), 0,
	    "outsz 0 writes nothing");
}

/* Run fn(arg) with stderr on a temporary file; what it wrote. */
static char *
redirect(void (*fn)(const char *), const char *arg)
{
	char path[] = "/tmp/test-log-XXXXXX";
	static char buf[8192];
	int fd, saved;
	ssize_t n;

	if ((fd = mkstemp(path)) == -1)
		return NULL;
	unlink(path);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	fn(arg);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

/* One info and one debug line naming user. */
static void
capture(const char *user)
{
	sc_info("operation started: user '%s'", user);
	sc_debug("user '%s'", user);
}

static int
count_lines(const char *s)
{
	int n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

static void
test_write(void)
{
	const char *forged = "eve\n2026-01-01T00:00:00.000Z 1 E FORGED\xff\xfe";
	char *out, *second;

	sc_log_init("test-log", SC_LOG_STYLE_SERVER, SC_LOG_DEBUG);
	out = redirect(capture, forged);
	ok(out != NULL, "captured the server log");
	is_int(count_lines(out), 2, "two messages, two lines");
	ok(strstr(out,
	       " I operation started: user 'eve\\n2026-01-01T00:00:"
	       "00.000Z 1 E FORGED\\xff\\xfe'\n") != NULL,
	    "info line carries the user id escaped");
	second = strchr(out, '\n') + 1;
	ok(strstr(second,
	       " D capture: user 'eve\\n2026-01-01T00:00:00.000Z "
	       "1 E FORGED\\xff\\xfe'\n") != NULL,
	    "debug line escaped too");
	ok(strncmp(out, "2026-01-01", 10) != 0 &&
		strstr(out, "\n2026-01-01") == NULL,
	    "no line starts with the forged text");

	sc_log_init("test-log", SC_LOG_STYLE_CLIENT, SC_LOG_DEBUG);
	out = redirect(capture, "a\tb");
	is_str(out,
	    "test-log: operation started: user 'a\\tb'\n"
	    "test-log: capture: user 'a\\tb'\n",
	    "client style escapes the same way");
}

/* An event, a plain warning and a debug event, in JSON. */
static void
capture_json(const char *unused)
{
	const struct sc_log_field f[] = {
		SC_LOG_STR("user_id", "eve\"\n\xff"),
		SC_LOG_NUM("rows", -42),
	};

	(void)unused;
	sc_log_init("test-log", SC_LOG_STYLE_SERVER, SC_LOG_INFO);
	sc_log_set_format(SC_LOG_FORMAT_JSON);
	sc_log_event(SC_LOG_INFO, "operation_end", f, 2, "ended: %s", "x\ty");
	sc_warn("plain \"%s\"", "message");
	sc_log_event(SC_LOG_DEBUG, "hidden", f, 2, "below the threshold");
	sc_log_set_format(SC_LOG_FORMAT_TEXT);
}

static void
test_json_write(void)
{
	enum sc_log_format f;
	char *out, *second;

	is_int(sc_log_format_parse("json", &f), 0, "json parses");
	is_int(f, SC_LOG_FORMAT_JSON, "as JSON");
	is_int(sc_log_format_parse("text", &f), 0, "text parses");
	is_int(f, SC_LOG_FORMAT_TEXT, "as text");
	is_int(sc_log_format_parse("JSON", &f), -1, "names are lower case");
	out = redirect(capture_json, NULL);
	ok(out != NULL && strncmp(out, "{\"time\":\"", 9) == 0,
	    "a JSON line starts with its time");
	is_int(count_lines(out), 2,
	    "two lines: the debug event is not written");
	ok(strstr(out, "Z\",\"pid\":") != NULL &&
		strstr(out,
		    ",\"level\":\"info\","
		    "\"event\":\"operation_end\",\"user_id\":\"eve\\\"\\n\\ufffd\","
		    "\"rows\":-42,\"msg\":\"ended: x\\ty\"}\n") != NULL,
	    "event line: level, event, fields escaped, msg");
	second = strchr(out, '\n') + 1;
	ok(strstr(second,
	       ",\"level\":\"warn\",\"msg\":\"plain \\\"message\\\"\"}\n") !=
		NULL,
	    "a plain message is an object too");
}

int
main(void)
{
	test_escape();
	test_json_escape();
	test_write();
	test_json_write();
	return tap_done();
}
