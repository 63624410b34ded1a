// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "fabprobe.h"
#include "source/source.h"
#include "util/format.h"

static void test_addr_v4(void **state)
{
	__u8 a[16] = {10, 1, 16, 61};
	char buf[FP_ADDR_STRLEN];

	(void)state;
	assert_string_equal(fmt_addr(buf, sizeof(buf), a, false), "10.1.16.61");
}

/* fmt_addr writes IPv4 itself: every value of a byte, in each place, as inet_ntop does. */
static void test_addr_v4_as_inet_ntop(void **state)
{
	char buf[FP_ADDR_STRLEN], want[INET_ADDRSTRLEN], small[8];
	__u8 a[16] = {};

	(void)state;
	for (int v = 0; v < 256; v++) {
		for (int at = 0; at < 4; at++) {
			a[0] = a[1] = a[2] = a[3] = (__u8)(v * 7 + at);
			a[at] = (__u8)v;
			inet_ntop(AF_INET, a, want, sizeof(want));
			assert_string_equal(fmt_addr(buf, sizeof(buf), a, false), want);
		}
	}
	/* A buffer too small for the address gets "?", never a cut address. */
	memset(a, 255, 4);
	assert_string_equal(fmt_addr(small, sizeof(small), a, false), "?");
}

/* RFC 5952: lower case, longest zero run compressed, a lone zero field kept. */
static void test_addr_v6_rfc5952(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
	    {"2001:DB8:0:0:0:0:0:1", "2001:db8::1"},
	    {"2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"},
	    {"2001:0:0:1:0:0:0:1", "2001:0:0:1::1"},
	    {"fe80::", "fe80::"},
	    {"::ffff:10.0.0.1", "::ffff:10.0.0.1"},
	};
	char buf[FP_ADDR_STRLEN];
	__u8 a[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(inet_pton(AF_INET6, cases[i].in, a), 1);
		assert_string_equal(fmt_addr(buf, sizeof(buf), a, true), cases[i].want);
	}
}

/* RFC 5952 section 6: an IPv6 address with a port in brackets, so the port cannot read as a group.
 */
static void test_endpoint(void **state)
{
	__u8 a4[16] = {10, 0, 0, 1}, a6[16] = {0x20, 0x01, 0x0d, 0xb8};
	char buf[FP_ENDPOINT_STRLEN];

	(void)state;
	assert_string_equal(fmt_endpoint(buf, sizeof(buf), a4, false, 4791), "10.0.0.1:4791");
	assert_string_equal(fmt_endpoint(buf, sizeof(buf), a6, true, 4791), "[2001:db8::]:4791");
	memset(a6, 0xff, sizeof(a6));
	assert_string_equal(fmt_endpoint(buf, sizeof(buf), a6, true, 65535),
			    "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535");
}

static void test_si_units(void **state)
{
	static const struct {
		double v;
		const char *unit, *want;
	} cases[] = {
	    {0, "B", "0 B"},
	    {999, "B", "999 B"},
	    {1000, "B", "1.00 kB"},
	    {15900, "B", "15.9 kB"},
	    {1.25e9, "b/s", "1.25 Gb/s"},
	    {999.96e3, "b/s", "1.00 Mb/s"},
	    {100e9, "b/s", "100 Gb/s"},
	    {0.5, "pps", "0.50 pps"},
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
			    "2001:db\xe2\x80\xa6"
			    ":eeee:1");
}

static void test_count(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(fmt_count(buf, sizeof(buf), 0, "frame"), "0 frames");
	assert_string_equal(fmt_count(buf, sizeof(buf), 1, "frame"), "1 frame");
	assert_string_equal(fmt_count(buf, sizeof(buf), 21, "queue pair"), "21 queue pairs");
}

static void test_si_compact(void **state)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
	    {0, "0"},	       {850, "850"},	   {0.5, "0.50"},    {12.34, "12.3"},
	    {999.4, "999"},    {999.5, "1.00k"},   {12345, "12.3k"}, {99960, "100k"},
	    {1.25e9, "1.25G"}, {9.996e6, "10.0M"}, {400e12, "400T"},
	};
	char buf[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_string_equal(fmt_si_compact(buf, sizeof(buf), cases[i].v), cases[i].want);
		/* Fits a 5-column cell. */
		assert_true(strlen(buf) <= 5);
	}
}

static void test_si_rounding_boundaries(void **state)
{
	char buf[32];

	(void)state;
	/* Rounding up never prints four digits: 999.96 Mb/s is 1.00 Gb/s. */
	assert_string_equal(fmt_si(buf, sizeof(buf), 999.96e6, "b/s"), "1.00 Gb/s");
	assert_string_equal(fmt_si(buf, sizeof(buf), 9.996e9, "b/s"), "10.0 Gb/s");
	assert_string_equal(fmt_si(buf, sizeof(buf), 99.96e9, "b/s"), "100 Gb/s");
	assert_string_equal(fmt_si(buf, sizeof(buf), 200e6, "b/s"), "200 Mb/s");
	assert_string_equal(fmt_si(buf, sizeof(buf), 400e9, "b/s"), "400 Gb/s");
}

static void test_pct(void **state)
{
	static const struct {
		double part, whole;
		const char *want;
	} cases[] = {
	    {0, 100, "0%"},	  {1, 0, "-"},	   {1, 1000000, "<0.01%"},
	    {1, 400, "0.25%"},	  {1, 8, "12.5%"}, {9.996, 100, "10.0%"},
	    {99.96, 100, "100%"}, {5, 5, "100%"},  {2, 3, "66.7%"},
	};
	char buf[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(fmt_pct(buf, sizeof(buf), cases[i].part, cases[i].whole),
				    cases[i].want);
}

static void test_duration(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(fmt_duration(buf, sizeof(buf), 0), "0s");
	assert_string_equal(fmt_duration(buf, sizeof(buf), 59.9), "59s");
	assert_string_equal(fmt_duration(buf, sizeof(buf), 187), "3m07s");
	assert_string_equal(fmt_duration(buf, sizeof(buf), 5 * 3600 + 125), "5h02m");
	assert_string_equal(fmt_duration(buf, sizeof(buf), 2 * 86400 + 3 * 3600 + 59), "2d03h");
	assert_string_equal(fmt_duration(buf, sizeof(buf), -3), "0s");
	/* An alert's window: milliseconds below 0.1 s (a 4.5 ms capture said "0.0 s"). */
	assert_string_equal(fmt_window(buf, sizeof(buf), 0.0045, true), "the whole 4.5 ms");
	assert_string_equal(fmt_window(buf, sizeof(buf), 0.1, false), "the last 0.1 s");
	assert_string_equal(fmt_window(buf, sizeof(buf), 5, false), "the last 5.0 s");
	assert_string_equal(fmt_window(buf, sizeof(buf), 56.4, true), "the whole 56s");
}

static void test_trunc_edges(void **state)
{
	char buf[64];

	(void)state;
	/* Exactly fitting text is left alone; one column less loses a character to "…". */
	assert_string_equal(fmt_trunc(buf, sizeof(buf), "10.77.2.13", 10), "10.77.2.13");
	assert_string_equal(fmt_trunc(buf, sizeof(buf), "10.77.2.13", 9), "10.7\xe2\x80\xa6"
									  "2.13");
	assert_int_equal(fmt_cols(buf), 9);
	/* The full-length IPv6 form (39 columns) into 20: the host part survives. */
	fmt_trunc(buf, sizeof(buf), "fd00:1234:5678:9abc:def0:1234:5678:9abc", 20);
	assert_int_equal(fmt_cols(buf), 20);
	assert_string_equal(buf, "fd00:1234\xe2\x80\xa6"
				 ":5678:9abc");
}

static void test_cols(void **state)
{
	(void)state;
	assert_int_equal(fmt_cols(""), 0);
	assert_int_equal(fmt_cols("up1"), 3);
	assert_int_equal(fmt_cols("a\xe2\x80\xa6z"), 3);
}

static void test_pair_trunc(void **state)
{
	const char *a6 = "2001:db8:aaaa:bbbb:cccc:dddd:eeee:11";
	const char *b6 = "2001:db8:aaaa:bbbb:cccc:dddd:eeee:13";
	char buf[128];

	(void)state;
	assert_string_equal(fmt_pair_trunc(buf, sizeof(buf), "10.77.1.11", " > ", "10.77.2.13", 40),
			    "10.77.1.11 > 10.77.2.13");
	/* Two long IPv6 addresses into 31 columns: 14 each, both tails kept. */
	fmt_pair_trunc(buf, sizeof(buf), a6, " > ", b6, 31);
	assert_int_equal(fmt_cols(buf), 31);
	assert_string_equal(buf, "2001:d\xe2\x80\xa6"
				 "eeee:11 > 2001:d\xe2\x80\xa6"
				 "eeee:13");
	/* A short name on one side leaves the rest to the long one. */
	fmt_pair_trunc(buf, sizeof(buf), "10.0.0.1", " > ", b6, 31);
	assert_int_equal(fmt_cols(buf), 31);
	assert_string_equal(buf, "10.0.0.1 > 2001:db8:\xe2\x80\xa6"
				 "dd:eeee:13");
	/* Too narrow to split: the whole pair is shortened. */
	fmt_pair_trunc(buf, sizeof(buf), a6, " > ", b6, 7);
	assert_int_equal(fmt_cols(buf), 7);
}

static void test_bar(void **state)
{
	char buf[32];

	(void)state;
	assert_int_equal(fmt_bar(buf, sizeof(buf), 0.5, 10), 5);
	assert_string_equal(buf, "#####.....");
	assert_int_equal(fmt_bar(buf, sizeof(buf), 0, 4), 0);
	assert_string_equal(buf, "....");
	/* Any load shows as one cell; overload is clamped to a full bar. */
	assert_int_equal(fmt_bar(buf, sizeof(buf), 0.001, 10), 1);
	assert_int_equal(fmt_bar(buf, sizeof(buf), 2.5, 6), 6);
	assert_string_equal(buf, "######");
	assert_int_equal(fmt_bar(buf, sizeof(buf), 0.26, 10), 3);
	/* Never past the buffer. */
	fmt_bar(buf, 5, 1, 10);
	assert_string_equal(buf, "####");
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

/*
 * The read's progress line fits its width, whatever the figures: a line
 * that wraps is repeated, not redrawn. An hour's read of a long-named
 * capture at 80 columns (capture's width: 80 - 3 - 7) keeps 8 columns of
 * the name and drops the time left, then the pace; with room, all of it.
 */
static void test_progress_fits(void **state)
{
	struct source_desc d = {.what = "/var/tmp/incident-2026-11-30-leaf7-uplinks-all.pcap",
				.frames = 123456789,
				.bytes_read = 300000000,
				.bytes_total = 692000000};
	char buf[512];

	(void)state;
	for (int width = 20; width <= 200; width++) {
		source_progress(&d, 3725, width, buf, sizeof(buf));
		if (width >= 41) /* the name's 8, ": ", the percent and the frames */
			assert_in_range(fmt_cols(buf), 0, width);
		assert_non_null(strstr(buf, "43% of 692 MB, 123456789 frames"));
	}
	source_progress(&d, 3725, 70, buf, sizeof(buf));
	*strstr(buf, ": ") = '\0';
	assert_in_range(fmt_cols(buf), 8, 70);
	source_progress(&d, 3725, 200, buf, sizeof(buf));
	assert_non_null(strstr(buf, "in 1h02m (33.1k/s), about 1h21m left"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_addr_v4),
	    cmocka_unit_test(test_addr_v4_as_inet_ntop),
	    cmocka_unit_test(test_addr_v6_rfc5952),
	    cmocka_unit_test(test_endpoint),
	    cmocka_unit_test(test_si_units),
	    cmocka_unit_test(test_trunc),
	    cmocka_unit_test(test_opcode_names),
	    cmocka_unit_test(test_si_compact),
	    cmocka_unit_test(test_count),
	    cmocka_unit_test(test_si_rounding_boundaries),
	    cmocka_unit_test(test_pct),
	    cmocka_unit_test(test_duration),
	    cmocka_unit_test(test_trunc_edges),
	    cmocka_unit_test(test_cols),
	    cmocka_unit_test(test_pair_trunc),
	    cmocka_unit_test(test_bar),
	    cmocka_unit_test(test_progress_fits),
	};

	return cmocka_run_group_tests_name("format", tests, NULL, NULL);
}
