// SPDX-License-Identifier: GPL-2.0
/* The dashboard's filter terms (user/top/filter.c): what parses, and what is refused. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "top/ui.h"

/* Addresses, and the three keys with their values. */
static void test_terms(void **state)
{
	struct filter f;
	char err[128] = "";

	(void)state;
	assert_int_equal(
	    parse_filter("10.77.1 qp=0x11 vni=5001 path=up2 fd00::1", &f, err, sizeof(err)), 0);
	assert_int_equal(f.n, 5);
	assert_int_equal(f.term[0].kind, FT_TEXT);
	assert_string_equal(f.term[0].text, "10.77.1");
	assert_int_equal(f.term[1].kind, FT_QP);
	assert_int_equal(f.term[1].num, 17);
	assert_int_equal(f.term[2].kind, FT_VNI);
	assert_int_equal(f.term[2].num, 5001);
	assert_int_equal(f.term[3].kind, FT_PATH);
	assert_string_equal(f.term[3].text, "up2");
	assert_int_equal(f.term[4].kind, FT_TEXT);
	assert_string_equal(f.term[4].text, "fd00::1");
	assert_int_equal(parse_filter("", &f, err, sizeof(err)), 0);
	assert_int_equal(f.n, 0);
}

/*
 * A key the filter does not know is an error that names it, as a bad
 * value is: taken as an address substring it matched nothing, silently.
 */
static void test_unknown_key(void **state)
{
	static const char *const bad[] = {"foo=1", "10.77.1 Qp=5", "=3", "port=4791"};
	struct filter f;
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *eq = strrchr(bad[i], ' ');
		char key[32];

		err[0] = 0;
		assert_int_equal(parse_filter(bad[i], &f, err, sizeof(err)), -EINVAL);
		eq = eq ? eq + 1 : bad[i];
		snprintf(key, sizeof(key), "'%.*s'", (int)(strchr(eq, '=') - eq + 1), eq);
		assert_non_null(strstr(err, key));
		assert_non_null(strstr(err, "no such key"));
	}
	/* A bad value keeps its own message. */
	assert_int_equal(parse_filter("qp=abc", &f, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "want a number"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_terms),
	    cmocka_unit_test(test_unknown_key),
	};

	return cmocka_run_group_tests_name("filter", tests, NULL, NULL);
}
