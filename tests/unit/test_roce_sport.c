// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "core/roce_sport.h"

/* The vectors of issue 16. */
static void test_issue_vectors(void **state)
{
	(void)state;
	assert_int_equal(roce_udp_sport(0, 0x11, 0x22), 49730);
	assert_int_equal(roce_udp_sport(0, 1, 1), 49153);
}

/*
 * Computed independently, in Python, from the kernel's two steps:
 *   v = l * r; v ^= v >> 20; v ^= v >> 40; fl = v & 0xFFFFF
 *   sport = ((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)) | 0xC000
 */
static const struct {
	__u32 lqpn, rqpn, flow_label;
	__u16 sport;
} table[] = {
    {0x11, 0x22, 0x00242, 49730},	  {0x1, 0x1, 0x00001, 49153},
    {0x0, 0x5, 0x00000, 49152},		  {0x1234, 0x5678, 0x60002, 49178},
    {0xffffff, 0xffffff, 0xfff1e, 65313}, {0xabcdef, 0x123456, 0xac3e3, 50120},
    {0x3e8, 0x7d0, 0xe8481, 50363},	  {0x800000, 0x3, 0x00018, 49176},
    {0x4d, 0x12fd1, 0xb61d8, 57845},	  {0x10a3, 0x10a4, 0x4d87d, 55406},
    {0xffffff, 0x1, 0xffff0, 65487},	  {0x108, 0x109, 0x11148, 53580},
};

static void test_python_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		assert_int_equal(roce_flow_label(table[i].lqpn, table[i].rqpn),
				 table[i].flow_label);
		assert_int_equal(roce_flow_label_sport(table[i].flow_label), table[i].sport);
		assert_int_equal(roce_udp_sport(0, table[i].lqpn, table[i].rqpn), table[i].sport);
	}
}

/*
 * A second formulation, bit by bit: flow label bit b is the XOR of product
 * bits b, b+20 and b+40; port bit b (b < 6) is label bit b XOR label bit
 * b+14, bits 6-13 are label bits 6-13, and bits 14-15 are set.
 */
static __u16 sport_bitwise(__u32 l, __u32 r)
{
	__u64 v = (__u64)l * r;
	__u32 fl = 0;
	__u16 port = 0xC000;

	for (int b = 0; b < 20; b++) {
		unsigned int bit = (v >> b ^ v >> (b + 20) ^ v >> (b + 40)) & 1;

		fl |= bit << b;
	}
	for (int b = 0; b < 14; b++) {
		unsigned int bit = fl >> b & 1;

		if (b < 6)
			bit ^= fl >> (b + 14) & 1;
		port |= bit << b;
	}
	return port;
}

static void test_bitwise_formulation_agrees(void **state)
{
	__u32 x = 2463534242u;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		__u32 l, r;

		/* xorshift32; QP numbers are 24 bits */
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		l = x & 0xFFFFFF;
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		r = x & 0xFFFFFF;
		if (roce_udp_sport(0, l, r) != sport_bitwise(l, r))
			fail_msg("lqpn %#x rqpn %#x: %u, bitwise %u", l, r, roce_udp_sport(0, l, r),
				 sport_bitwise(l, r));
		/* Symmetric: both ends of the pair put the same port on the wire. */
		assert_int_equal(roce_udp_sport(0, l, r), roce_udp_sport(0, r, l));
		assert_true(roce_udp_sport(0, l, r) >= ROCE_UDP_SPORT_MIN);
	}
}

/* A flow label set by the application is folded instead of the QP product. */
static void test_given_flow_label(void **state)
{
	(void)state;
	assert_int_equal(roce_udp_sport(0x00242, 7, 9), 49730);
	assert_int_equal(roce_udp_sport(0xFFFFF, 0x11, 0x22), 0xC000 | (0x3FFF ^ 0x3F));
}

/* The QP's requests as a flow key, and the path is the hash model's. */
static void test_flow_key_and_path(void **state)
{
	struct hash_config c;
	struct flow_key k, manual;
	__u8 src[16] = {0}, dst[16] = {0};

	(void)state;
	inet_pton(AF_INET, "10.0.1.2", src);
	inet_pton(AF_INET, "10.0.2.3", dst);
	roce_qp_flow_key(&k, src, dst, false, 0x11, 0x22);
	assert_int_equal(k.sport, 49730);
	assert_int_equal(k.dport, 4791);
	assert_int_equal(k.dest_qp, 0x22);
	assert_int_equal(k.flags & FP_FLOW_IPV6, 0);
	assert_memory_equal(k.src, src, 4);

	memset(&manual, 0, sizeof(manual));
	memcpy(manual.src, src, 4);
	memcpy(manual.dst, dst, 4);
	manual.sport = 49730;
	manual.dport = 4791;
	manual.dest_qp = 0x22;
	hash_config_default(&c);
	c.n_paths = 8;
	for (int m = 0; m < HASH_MODEL_MAX; m++) {
		c.model = m;
		assert_int_equal(roce_qp_path(&c, src, dst, false, 0x11, 0x22),
				 hash_path(&c, &manual));
	}
	/* The port moves the path: some QP pair lands elsewhere. */
	c.model = HASH_CRC32_LO;
	{
		__u32 first = roce_qp_path(&c, src, dst, false, 0x11, 0x22);
		bool moved = false;

		for (__u32 r = 0x23; r < 0x63 && !moved; r++)
			moved = roce_qp_path(&c, src, dst, false, 0x11, r) != first;
		assert_true(moved);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_issue_vectors),
	    cmocka_unit_test(test_python_table),
	    cmocka_unit_test(test_bitwise_formulation_agrees),
	    cmocka_unit_test(test_given_flow_label),
	    cmocka_unit_test(test_flow_key_and_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
