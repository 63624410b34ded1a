// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "core/ecmp_hash.h"

/* The catalogue check values: CRC of the ASCII string "123456789". */
static void test_crc_check_values(void **state)
{
	const __u8 *check = (const __u8 *)"123456789";

	(void)state;
	assert_int_equal(crc32_ieee(0, check, 9), 0xCBF43926);	 /* CRC-32/ISO-HDLC */
	assert_int_equal(crc16_ccitt(0xFFFF, check, 9), 0x29B1); /* CRC-16/CCITT-FALSE */
}

static const __u8 rss_key[40] = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
    0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
    0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* Microsoft's "Verifying the RSS hash" tables: source then destination. */
static void test_toeplitz_ipv4_vectors(void **state)
{
	static const struct {
		const char *src, *dst;
		__u16 sport, dport;
		__u32 ip_only, with_ports;
	} v[] = {
	    {"66.9.149.187", "161.142.100.80", 2794, 1766, 0x323e8fc2, 0x51ccc178},
	    {"199.92.111.2", "65.69.140.83", 14230, 4739, 0xd718262a, 0xc626b0ea},
	    {"24.19.198.95", "12.22.207.184", 12898, 38024, 0xd2d0a5de, 0x5c2b394a},
	    {"38.27.205.30", "209.142.163.6", 48228, 2217, 0x82989176, 0xafc7327f},
	    {"153.39.163.191", "202.188.127.2", 44251, 1303, 0x5d1809c5, 0x10e828a2},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		__u8 in[12];

		inet_pton(AF_INET, v[i].src, in);
		inet_pton(AF_INET, v[i].dst, in + 4);
		in[8] = v[i].sport >> 8;
		in[9] = v[i].sport & 0xff;
		in[10] = v[i].dport >> 8;
		in[11] = v[i].dport & 0xff;
		assert_int_equal(toeplitz(rss_key, 40, in, 8), v[i].ip_only);
		assert_int_equal(toeplitz(rss_key, 40, in, 12), v[i].with_ports);
	}
}

static void test_toeplitz_ipv6_vector(void **state)
{
	__u8 in[36];

	(void)state;
	inet_pton(AF_INET6, "3ffe:2501:200:1fff::7", in);
	inet_pton(AF_INET6, "3ffe:2501:200:3::1", in + 16);
	in[32] = 2794 >> 8;
	in[33] = 2794 & 0xff;
	in[34] = 1766 >> 8;
	in[35] = 1766 & 0xff;
	assert_int_equal(toeplitz(rss_key, 40, in, 32), 0x2cc18cd5);
	assert_int_equal(toeplitz(rss_key, 40, in, 36), 0x40207d3d);
}

/* The model hashes the flow key's fields in the documented order. */
static void test_flow_hash_uses_fields(void **state)
{
	struct hash_config c;
	struct flow_key k = {.sport = 2794, .dport = 1766};

	(void)state;
	hash_config_default(&c);
	c.model = HASH_TOEPLITZ;
	inet_pton(AF_INET, "66.9.149.187", k.src);
	inet_pton(AF_INET, "161.142.100.80", k.dst);
	assert_int_equal(hash_flow(&c, &k), 0x51ccc178);
	c.fields = HF_SRC_IP | HF_DST_IP;
	assert_int_equal(hash_flow(&c, &k), 0x323e8fc2);
	c.n_paths = 4;
	assert_int_equal(hash_path(&c, &k), 0x323e8fc2 % 4);
	/* crc32-hi takes the path from the upper 16 bits. */
	c.model = HASH_CRC32_HI;
	assert_int_equal(hash_path(&c, &k), (hash_flow(&c, &k) >> 16) % 4);
}

static void test_parse_names(void **state)
{
	enum hash_model m;
	unsigned int f;

	(void)state;
	assert_int_equal(hash_model_parse("toeplitz", &m), 0);
	assert_int_equal(m, HASH_TOEPLITZ);
	assert_int_not_equal(hash_model_parse("md5", &m), 0);
	assert_int_equal(hash_fields_parse("src-ip,dst-ip,qp", &f), 0);
	assert_int_equal(f, HF_SRC_IP | HF_DST_IP | HF_DEST_QP);
	assert_int_not_equal(hash_fields_parse("src-ip,ttl", &f), 0);
	assert_int_not_equal(hash_fields_parse("", &f), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_crc_check_values),
	    cmocka_unit_test(test_toeplitz_ipv4_vectors),
	    cmocka_unit_test(test_toeplitz_ipv6_vector),
	    cmocka_unit_test(test_flow_hash_uses_fields),
	    cmocka_unit_test(test_parse_names),
	};

	return cmocka_run_group_tests_name("hash", tests, NULL, NULL);
}
