// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <pcap/pcap.h>
#include <cmocka.h>

#include "source/pcap.h"

static void test_ethernet_unchanged(void **state)
{
	__u8 in[60] = {1, 2, 3}, out[64];

	(void)state;
	assert_int_equal(replay_to_ethernet(DLT_EN10MB, in, sizeof(in), out, sizeof(out)), 60);
	assert_memory_equal(in, out, 60);
	/* Larger than the buffer: refused, never truncated. */
	assert_int_equal(replay_to_ethernet(DLT_EN10MB, in, sizeof(in), out, 59), 0);
}

static void test_cooked_and_raw(void **state)
{
	__u8 sll[20] = {[14] = 0x08, [15] = 0x00, [16] = 0x45, [17] = 0x11};
	__u8 sll2[24] = {[0] = 0x86, [1] = 0xdd, [20] = 0x60};
	__u8 raw6[4] = {0x60, 1, 2, 3}, raw4[4] = {0x45, 0, 0, 4}, out[64];

	(void)state;
	assert_int_equal(replay_to_ethernet(DLT_LINUX_SLL, sll, sizeof(sll), out, sizeof(out)), 18);
	assert_int_equal(out[12], 0x08);
	assert_int_equal(out[13], 0x00);
	assert_memory_equal(out + 14, sll + 16, 4);

	assert_int_equal(replay_to_ethernet(DLT_LINUX_SLL2, sll2, sizeof(sll2), out, sizeof(out)),
			 18);
	assert_int_equal(out[12], 0x86);
	assert_int_equal(out[13], 0xdd);

	assert_int_equal(replay_to_ethernet(DLT_RAW, raw6, 4, out, sizeof(out)), 18);
	assert_int_equal(out[12], 0x86);
	assert_int_equal(replay_to_ethernet(DLT_RAW, raw4, 4, out, sizeof(out)), 18);
	assert_int_equal(out[12], 0x08);
	assert_memory_equal(out + 14, raw4, 4);
}

static void test_short_and_unknown(void **state)
{
	__u8 in[8] = {}, out[64];

	(void)state;
	assert_int_equal(replay_to_ethernet(DLT_LINUX_SLL, in, 8, out, sizeof(out)), 0);
	assert_int_equal(replay_to_ethernet(DLT_LINUX_SLL2, in, 8, out, sizeof(out)), 0);
	assert_int_equal(replay_to_ethernet(DLT_RAW, in, 0, out, sizeof(out)), 0);
	assert_int_equal(replay_to_ethernet(DLT_IEEE802_11, in, 8, out, sizeof(out)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ethernet_unchanged),
	    cmocka_unit_test(test_cooked_and_raw),
	    cmocka_unit_test(test_short_and_unknown),
	};

	return cmocka_run_group_tests_name("replay", tests, NULL, NULL);
}
