// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cmd/cli.h"
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

/* --hash-seed in decimal or 0x hex, as the evidence prints it; nothing else in hex. */
static void test_hash_seed(void **state)
{
	struct analysis_opts ao;

	(void)state;
	analysis_opts_default(&ao);
	assert_int_equal(opt_parse_analysis(&ao, OPT_HASH_SEED, "0x10"), 1);
	assert_int_equal(ao.hash.seed, 16);
	assert_int_equal(opt_parse_analysis(&ao, OPT_HASH_SEED, "0XfFfFfFfF"), 1);
	assert_int_equal(ao.hash.seed, 0xFFFFFFFF);
	assert_int_equal(opt_parse_analysis(&ao, OPT_HASH_SEED, "17"), 1);
	assert_int_equal(ao.hash.seed, 17);
	/* A second prefix, a sign, a space, no digit, past 32 bits: refused, seed kept. */
	assert_true(opt_parse_analysis(&ao, OPT_HASH_SEED, "0x0x10") < 0);
	assert_true(opt_parse_analysis(&ao, OPT_HASH_SEED, "0x-1") < 0);
	assert_true(opt_parse_analysis(&ao, OPT_HASH_SEED, "0x 1") < 0);
	assert_true(opt_parse_analysis(&ao, OPT_HASH_SEED, "0x") < 0);
	assert_true(opt_parse_analysis(&ao, OPT_HASH_SEED, "0x100000000") < 0);
	assert_int_equal(ao.hash.seed, 17);
}

/* Sizes in bytes, K, M and G powers of 1024, with or without "iB" or "B". */
static void test_bytes(void **state)
{
	__u64 v = 7;

	(void)state;
	assert_int_equal(opt_parse_bytes("--b", "4096", 0, 1ULL << 40, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(opt_parse_bytes("--b", "64K", 0, 1ULL << 40, &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(opt_parse_bytes("--b", "32m", 0, 1ULL << 40, &v), 0);
	assert_int_equal(v, 32ULL << 20);
	assert_int_equal(opt_parse_bytes("--b", "32MiB", 0, 1ULL << 40, &v), 0);
	assert_int_equal(opt_parse_bytes("--b", "2GB", 0, 1ULL << 40, &v), 0);
	assert_int_equal(v, 2ULL << 30);
	v = 7;
	assert_int_not_equal(opt_parse_bytes("--b", "1T", 0, 1ULL << 40, &v), 0);
	assert_int_not_equal(opt_parse_bytes("--b", "1Mx", 0, 1ULL << 40, &v), 0);
	assert_int_not_equal(opt_parse_bytes("--b", "M", 0, 1ULL << 40, &v), 0);
	assert_int_not_equal(opt_parse_bytes("--b", "", 0, 1ULL << 40, &v), 0);
	assert_int_not_equal(opt_parse_bytes("--b", "-1K", 0, 1ULL << 40, &v), 0);
	assert_int_not_equal(opt_parse_bytes("--b", "2G", 0, 1ULL << 30, &v), 0);
	assert_int_not_equal(opt_parse_bytes("--b", "99999999999999999G", 0, ~0ULL, &v), 0);
	assert_int_equal(v, 7);
}

/*
 * --flows and --flows6 are table sizes: k and M are 1024 and 1048576 entries
 * ("1M", "256k"); the range still holds, and nothing else follows the digits.
 */
static void test_flow_counts(void **state)
{
	struct probe_opts po = PROBE_OPTS_DEFAULT;

	(void)state;
	assert_int_equal(opt_parse_probe(&po, 'F', "1M"), 1);
	assert_int_equal(po.flow_entries, 1048576);
	assert_int_equal(opt_parse_probe(&po, 'F', "256k"), 1);
	assert_int_equal(po.flow_entries, 262144);
	assert_int_equal(opt_parse_probe(&po, 'F', "64K"), 1);
	assert_int_equal(po.flow_entries, 65536);
	assert_int_equal(opt_parse_probe(&po, 'F', "16m"), 1);
	assert_int_equal(po.flow_entries, 1U << 24);
	assert_int_equal(opt_parse_probe(&po, 'F', "1000"), 1);
	assert_int_equal(po.flow_entries, 1000);
	assert_int_equal(opt_parse_probe(&po, OPT_FLOWS6, "1k"), 1);
	assert_int_equal(po.flow6_entries, 1024);
	/* Past 16M, 0, garbage, a bare or doubled suffix, bytes, fractions: refused, kept. */
	assert_true(opt_parse_probe(&po, 'F', "17M") < 0);
	assert_true(opt_parse_probe(&po, 'F', "16385k") < 0);
	assert_true(opt_parse_probe(&po, 'F', "1G") < 0);
	assert_true(opt_parse_probe(&po, 'F', "0k") < 0);
	assert_true(opt_parse_probe(&po, 'F', "12x") < 0);
	assert_true(opt_parse_probe(&po, 'F', "M") < 0);
	assert_true(opt_parse_probe(&po, 'F', "1MM") < 0);
	assert_true(opt_parse_probe(&po, 'F', "1MB") < 0);
	assert_true(opt_parse_probe(&po, 'F', "1.5M") < 0);
	assert_true(opt_parse_probe(&po, 'F', "-1k") < 0);
	assert_true(opt_parse_probe(&po, 'F', "99999999999999999999M") < 0);
	assert_true(opt_parse_probe(&po, 'F', "18014398509481985k") < 0);
	assert_true(opt_parse_probe(&po, OPT_FLOWS6, "32M") < 0);
	assert_int_equal(po.flow_entries, 1000);
	assert_int_equal(po.flow6_entries, 1024);
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
	    cmocka_unit_test(test_numbers),   cmocka_unit_test(test_bytes),
	    cmocka_unit_test(test_hash_seed), cmocka_unit_test(test_flow_counts),
	    cmocka_unit_test(test_pairs),
	};

	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
