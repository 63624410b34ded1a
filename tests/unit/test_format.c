// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "fabprobe.h"
#include "format.h"

static void test_addr_v4(void **state)
{
	__u8 a[16] = { 10, 1, 16, 61 };
	char buf[FP_ADDR_STRLEN];

	(void)state;
	assert_string_equal(fmt_addr(buf, sizeof(buf), a, false), "10.1.16.61");
}

/* RFC 5952: lower case, longest zero run compressed, a lone zero field kept. */
static void test_addr_v6_rfc5952(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "2001:DB8:0:0:0:0:0:1", "2001:db8::1" },
		{ "2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1" },
		{ "2001:0:0:1:0:0:0:1", "2001:0:0:1::1" },
		{ "fe80::", "fe80::" },
		{ "::ffff:10.0.0.1", "::ffff:10.0.0.1" },
	};
	char buf[FP_ADDR_STRLEN];
	__u8 a[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(inet_pton(AF_INET6, cases[i].in, a), 1);
		assert_string_equal(fmt_addr(buf, sizeof(buf), a, true), cases[i].want);
	}
}

static void test_si_units(void **state)
{
	static const struct {
		double v;
		const char *unit, *want;
	} cases[] = {
		{ 0, "B", "0 B" },
		{ 999, "B", "999 B" },
		{ 1000, "B", "1.00 kB" },
		{ 15900, "B", "15.9 kB" },
		{ 1.25e9, "b/s", "1.25 Gb/s" },
		{ 999.96e3, "b/s", "1.00 Mb/s" },
		{ 100e9, "b/s", "100 Gb/s" },
		{ 0.5, "pps", "0.50 pps" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(fmt_si(buf, sizeof(buf), cases[i].v, cases[i].unit),
				    cases[i].want);
}

static void test_trunc(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(fmt_trunc(buf, sizeof(buf), "10.0.0.1", 15), "10.0.0.1");
	/* 2001:db8:aaaa:bbbb:cccc:dddd:eeee:1 into 15 columns: head 7, "…", tail 7. */
	assert_string_equal(fmt_trunc(buf, sizeof(buf), "2001:db8:aaaa:bbbb:cccc:dddd:eeee:1", 15),
			    "2001:db\xe2\x80\xa6" ":eeee:1");
}

static void test_opcode_names(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(fmt_opcode(buf, sizeof(buf), 0x06), "RC WRITE FIRST");
	assert_string_equal(fmt_opcode(buf, sizeof(buf), 0x64), "UD SEND ONLY");
	assert_string_equal(fmt_opcode(buf, sizeof(buf), 0x81), "CNP");
	assert_string_equal(fmt_opcode(buf, sizeof(buf), 0x11), "RC ACK");
	assert_string_equal(fmt_opcode(buf, sizeof(buf), 0x15), "0x15");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addr_v4),	 cmocka_unit_test(test_addr_v6_rfc5952),
		cmocka_unit_test(test_si_units), cmocka_unit_test(test_trunc),
		cmocka_unit_test(test_opcode_names),
	};

	return cmocka_run_group_tests_name("format", tests, NULL, NULL);
}
