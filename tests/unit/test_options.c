// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/options.h"

static void test_numbers(void **state)
{
	__u32 v = 7;
	__u16 port;

	(void)state;
	assert_int_equal(opt_parse_u32("--x", "0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(opt_parse_u32("--x", "10", 0, 10, &v), 0);
	assert_int_equal(v, 10);
	/* Out of range, trailing junk, signs, empty, overflow: refused, value kept. */
	assert_int_not_equal(opt_parse_u32("--x", "11", 0, 10, &v), 0);
	assert_int_not_equal(opt_parse_u32("--x", "5x", 0, 10, &v), 0);
	assert_int_not_equal(opt_parse_u32("--x", "-1", 0, 10, &v), 0);
	assert_int_not_equal(opt_parse_u32("--x", "+1", 0, 10, &v), 0);
	assert_int_not_equal(opt_parse_u32("--x", "", 0, 10, &v), 0);
	assert_int_not_equal(opt_parse_u32("--x", NULL, 0, 10, &v), 0);
	assert_int_not_equal(opt_parse_u32("--x", "99999999999999999999999", 0, 10, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(opt_parse_port("--p", "4791", &port), 0);
	assert_int_equal(port, 4791);
	assert_int_not_equal(opt_parse_port("--p", "0", &port), 0);
	assert_int_not_equal(opt_parse_port("--p", "65536", &port), 0);
}

static void test_pairs(void **state)
{
	char ok[] = "up1=/tmp/a.pcap", name[8];
	const char *value;

	(void)state;
	assert_int_equal(opt_split_pair("--path", "NAME=FILE", ok, name, sizeof(name), &value), 0);
	assert_string_equal(name, "up1");
	assert_string_equal(value, "/tmp/a.pcap");
	/* The argument (argv, shown by ps) is left as it was typed. */
	assert_string_equal(ok, "up1=/tmp/a.pcap");
	assert_int_not_equal(
	    opt_split_pair("--path", "NAME=FILE", "up1", name, sizeof(name), &value), 0);
	assert_int_not_equal(
	    opt_split_pair("--path", "NAME=FILE", "=x", name, sizeof(name), &value), 0);
	assert_int_not_equal(
	    opt_split_pair("--path", "NAME=FILE", "up1=", name, sizeof(name), &value), 0);
	/* A name longer than its buffer is refused, not cut. */
	assert_int_not_equal(
	    opt_split_pair("--path", "NAME=FILE", "uplink12=x", name, sizeof(name), &value), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_numbers),
	    cmocka_unit_test(test_pairs),
	};

	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
