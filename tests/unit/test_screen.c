// SPDX-License-Identifier: GPL-2.0
/* The dashboard's word wrap (user/top/screen.c): where a long line breaks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "top/ui.h"

/* The lines wrap_cut makes of text at width, joined with '|'. */
static void wrapped(const char *text, int width, char *out, size_t len)
{
	size_t o = 0;

	while (*text && o + 1 < len) {
		int cut = wrap_cut(text, width);

		if (o)
			out[o++] = '|';
		o += snprintf(out + o, len - o, "%.*s", cut, text);
		text += cut;
		while (*text == ' ')
			text++;
	}
	out[o < len ? o : len - 1] = '\0';
}

/*
 * An alert's evidence on an 80-column screen (76 for the text): the unit
 * stayed behind its number, "(over the last 1.0" ending one line and "s)"
 * the next (make demo's elephant_collision in the Alerts view).
 */
static void test_unit_stays_with_its_number(void **state)
{
	char out[256];

	(void)state;
	wrapped("up2 carries 411 Mb/s with 2 elephants; up1 carries 0 b/s (over the last 1.0 s)",
		76, out, sizeof(out));
	assert_string_equal(out,
			    "up2 carries 411 Mb/s with 2 elephants; up1 carries 0 b/s (over the "
			    "last|1.0 s)");
	wrapped("up2 at 411 Mb/s, group mean 129 Mb/s over the last 1.0 s; flows max/mean 2.40", 76,
		out, sizeof(out));
	assert_string_equal(out, "up2 at 411 Mb/s, group mean 129 Mb/s over the last 1.0 s; flows "
				 "max/mean|2.40");
	wrapped("10.77.1.11:49872>10.77.2.13 qp 36: 7295 CNPs back, 0 CE in 23095 packets, in the "
		"last 1.0 s",
		76, out, sizeof(out));
	assert_string_equal(out, "10.77.1.11:49872>10.77.2.13 qp 36: 7295 CNPs back, 0 CE in 23095 "
				 "packets, in|the last 1.0 s");
}

/* Other spaces break as before: the last in the line's second half, else a hard cut. */
static void test_plain_words_wrap_at_the_last_space(void **state)
{
	char out[256];

	(void)state;
	wrapped("2 elephant flows share uplink up2 while up1 has room: ECMP put them on one path",
		76, out, sizeof(out));
	assert_string_equal(out, "2 elephant flows share uplink up2 while up1 has room: ECMP put "
				 "them on one|path");
	wrapped("abcdefghijklmnopqrstuvwxyz", 10, out, sizeof(out));
	assert_string_equal(out, "abcdefghij|klmnopqrst|uvwxyz");
	wrapped("short", 10, out, sizeof(out));
	assert_string_equal(out, "short");
	/* The space before the number instead of the one after it. */
	wrapped("aaaaaa 1 s 2 s bbb", 12, out, sizeof(out));
	assert_string_equal(out, "aaaaaa 1 s|2 s bbb");
	/* Only a number-and-unit space in the line's second half: break there, not mid-word. */
	wrapped("bb 12345678 s", 12, out, sizeof(out));
	assert_string_equal(out, "bb 12345678|s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unit_stays_with_its_number),
	    cmocka_unit_test(test_plain_words_wrap_at_the_last_space),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
