// SPDX-License-Identifier: GPL-2.0
/*
 * source/udp_payload.c: the UDP payload of captured frames built with
 * tests/lib/frames.c, for every link type and header stack it handles,
 * and cut or lying frames; and source/shard.c, the replay workers' RSS
 * over what it finds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <pcap/dlt.h>

#include "frames.h"
#include "source/shard.h"
#include "source/udp_payload.h"

static const __u8 sflow_bytes[] = {0, 0, 0, 5, 0, 0, 0, 1, 192, 0, 2, 1};

static void udp_v4(struct frame *f, int tags, __u16 frag)
{
	fr_init(f);
	if (tags == 2) {
		fr_eth(f, 0x88A8);
		fr_vlan(f, 0, 100, 0x8100);
		fr_vlan(f, 3, 200, 0x0800);
	} else if (tags == 1) {
		fr_eth(f, 0x8100);
		fr_vlan(f, 0, 100, 0x0800);
	} else {
		fr_eth(f, 0x0800);
	}
	fr_ipv4(f, &(struct fr_ip){.src = "192.0.2.1", .dst = "192.0.2.9", .frag = frag});
	fr_udp(f, 40000, 6343);
	fr_bytes(f, sflow_bytes, sizeof(sflow_bytes));
	fr_finish(f);
}

static void expect_sflow(const struct udp_datagram *u, int family)
{
	assert_int_equal(u->family, family);
	assert_int_equal(u->sport, 40000);
	assert_int_equal(u->dport, 6343);
	assert_int_equal(u->len, sizeof(sflow_bytes));
	assert_memory_equal(u->payload, sflow_bytes, sizeof(sflow_bytes));
	assert_false(u->truncated);
}

static void test_ethernet_ipv4_vlans(void **state)
{
	static const __u8 src[4] = {192, 0, 2, 1}, dst[4] = {192, 0, 2, 9};
	struct udp_datagram u;
	struct frame f;

	(void)state;
	for (int tags = 0; tags <= 2; tags++) {
		udp_v4(&f, tags, 0);
		assert_int_equal(udp_payload(DLT_EN10MB, f.data, f.len, &u), UDP_PAYLOAD_OK);
		expect_sflow(&u, 4);
		assert_memory_equal(u.src, src, 4);
		assert_memory_equal(u.dst, dst, 4);
		assert_false(u.fragmented);
	}
}

/* Ethernet pads a short frame to 60 bytes: the payload ends where IP says. */
static void test_ethernet_padding_excluded(void **state)
{
	struct udp_datagram u;
	struct frame f;

	(void)state;
	udp_v4(&f, 0, 0);
	assert_true(f.len < 60);
	memset(f.data + f.len, 0xEE, 60 - f.len);
	assert_int_equal(udp_payload(DLT_EN10MB, f.data, 60, &u), UDP_PAYLOAD_OK);
	expect_sflow(&u, 4);
	/* A UDP length beyond the IP packet stops at IP's end, not the padding's. */
	fr_udp_len(&f, 8 + sizeof(sflow_bytes) + 100);
	fr_finish(&f);
	memset(f.data + f.len, 0xEE, 60 - f.len);
	assert_int_equal(udp_payload(DLT_EN10MB, f.data, 60, &u), UDP_PAYLOAD_OK);
	assert_true(u.truncated);
	assert_int_equal(u.len, sizeof(sflow_bytes));
}

static void test_ipv6_extension_headers(void **state)
{
	static const struct fr_ip ip = {.src = "2001:db8::1", .dst = "2001:db8::2"};
	struct udp_datagram u;
	struct frame f;

	(void)state;
	fr_init(&f);
	fr_eth(&f, 0x86DD);
	fr_ipv6(&f, &ip, 0);
	fr_ipv6_opts(&f, 60, 8);
	fr_ipv6_opts(&f, 43, 16);
	fr_ipv6_routing(&f, 44, 2);
	fr_ipv6_frag(&f, 17, 0, false, 1);
	fr_udp(&f, 40000, 6343);
	fr_bytes(&f, sflow_bytes, sizeof(sflow_bytes));
	fr_finish(&f);
	assert_int_equal(udp_payload(DLT_EN10MB, f.data, f.len, &u), UDP_PAYLOAD_OK);
	expect_sflow(&u, 6);
	assert_int_equal(u.src[15], 1);
	assert_int_equal(u.dst[15], 2);

	/* Five extension headers are more than the parser walks. */
	fr_init(&f);
	fr_eth(&f, 0x86DD);
	fr_ipv6(&f, &ip, 0);
	fr_ipv6_opts(&f, 60, 8);
	fr_ipv6_opts(&f, 60, 8);
	fr_ipv6_opts(&f, 60, 8);
	fr_ipv6_opts(&f, 60, 8);
	fr_ipv6_opts(&f, 17, 8);
	fr_udp(&f, 40000, 6343);
	fr_finish(&f);
	assert_int_equal(udp_payload(DLT_EN10MB, f.data, f.len, &u), UDP_PAYLOAD_NOT_UDP);
}

static void test_fragments(void **state)
{
	static const struct fr_ip ip = {.src = "2001:db8::1", .dst = "2001:db8::2"};
	struct udp_datagram u;
	struct frame f;

	(void)state;
	udp_v4(&f, 0, FR_IP_MF);
	assert_int_equal(udp_payload(DLT_EN10MB, f.data, f.len, &u), UDP_PAYLOAD_OK);
	assert_true(u.fragmented);
	udp_v4(&f, 0, 185);
	assert_int_equal(udp_payload(DLT_EN10MB, f.data, f.len, &u), UDP_PAYLOAD_FRAGMENT);
	udp_v4(&f, 0, 0x1000); /* the offset's top bit */
	assert_int_equal(udp_payload(DLT_EN10MB, f.data, f.len, &u), UDP_PAYLOAD_FRAGMENT);

	fr_init(&f);
	fr_eth(&f, 0x86DD);
	fr_ipv6(&f, &ip, 44);
	fr_ipv6_frag(&f, 17, 0, true, 9);
	fr_udp(&f, 40000, 6343);
	fr_finish(&f);
	assert_int_equal(udp_payload(DLT_EN10MB, f.data, f.len, &u), UDP_PAYLOAD_OK);
	assert_true(u.fragmented);
	fr_init(&f);
	fr_eth(&f, 0x86DD);
	fr_ipv6(&f, &ip, 44);
	fr_ipv6_frag(&f, 17, 100, false, 9);
	fr_bytes(&f, sflow_bytes, 8);
	fr_finish(&f);
	assert_int_equal(udp_payload(DLT_EN10MB, f.data, f.len, &u), UDP_PAYLOAD_FRAGMENT);
}

/* A cut frame: malformed before the UDP header ends, truncated after. */
static void test_every_cut(void **state)
{
	struct udp_datagram u;
	struct frame f;
	__u32 udp_end;

	(void)state;
	udp_v4(&f, 1, 0);
	udp_end = fr_off(&f, FR_H_UDP) + FR_UDP_LEN;
	for (__u32 cut = 0; cut < f.len; cut++) {
		__u8 *copy = malloc(cut ? cut : 1);
		enum udp_payload_result r;

		memcpy(copy, f.data, cut);
		r = udp_payload(DLT_EN10MB, copy, cut, &u);
		if (cut < udp_end) {
			assert_int_equal(r, UDP_PAYLOAD_MALFORMED);
		} else {
			assert_int_equal(r, UDP_PAYLOAD_OK);
			assert_true(u.truncated);
			assert_int_equal(u.len, cut - udp_end);
			assert_true(u.payload + u.len <= copy + cut);
		}
		free(copy);
	}
}

/* Lying lengths: UDP below its header, UDP beyond the IP packet, bad IHL. */
static void test_lying_lengths(void **state)
{
	struct udp_datagram u;
	struct frame f;

	(void)state;
	udp_v4(&f, 0, 0);
	fr_udp_len(&f, 7);
	fr_finish(&f);
	assert_int_equal(udp_payload(DLT_EN10MB, f.data, f.len, &u), UDP_PAYLOAD_MALFORMED);

	udp_v4(&f, 0, 0);
	fr_udp_len(&f, 8 + sizeof(sflow_bytes) + 100);
	fr_finish(&f);
	assert_int_equal(udp_payload(DLT_EN10MB, f.data, f.len, &u), UDP_PAYLOAD_OK);
	assert_true(u.truncated);
	assert_int_equal(u.len, sizeof(sflow_bytes));

	/* A UDP length shorter than the packet: the payload is what UDP says. */
	udp_v4(&f, 0, 0);
	fr_udp_len(&f, 8 + 4);
	fr_finish(&f);
	assert_int_equal(udp_payload(DLT_EN10MB, f.data, f.len, &u), UDP_PAYLOAD_OK);
	assert_int_equal(u.len, 4);

	fr_init(&f);
	fr_eth(&f, 0x0800);
	fr_ipv4(&f, &(struct fr_ip){.src = "192.0.2.1", .dst = "192.0.2.9", .ihl = 15});
	fr_udp(&f, 40000, 6343);
	fr_finish(&f);
	assert_int_equal(udp_payload(DLT_EN10MB, f.data, f.len, &u), UDP_PAYLOAD_MALFORMED);
	fr_init(&f);
	fr_eth(&f, 0x0800);
	fr_ipv4(&f, &(struct fr_ip){.src = "192.0.2.1", .dst = "192.0.2.9", .ihl = 4});
	fr_udp(&f, 40000, 6343);
	fr_finish(&f);
	assert_int_equal(udp_payload(DLT_EN10MB, f.data, f.len, &u), UDP_PAYLOAD_MALFORMED);
}

static void test_not_udp(void **state)
{
	struct udp_datagram u;
	struct frame f;

	(void)state;
	fr_init(&f);
	fr_eth(&f, 0x0800);
	fr_ipv4(&f, &(struct fr_ip){.src = "192.0.2.1", .dst = "192.0.2.9", .proto = 6});
	fr_payload(&f, 20);
	fr_finish(&f);
	assert_int_equal(udp_payload(DLT_EN10MB, f.data, f.len, &u), UDP_PAYLOAD_NOT_UDP);
	fr_init(&f);
	fr_eth(&f, 0x0806);
	fr_payload(&f, 28);
	assert_int_equal(udp_payload(DLT_EN10MB, f.data, f.len, &u), UDP_PAYLOAD_NOT_UDP);
	assert_int_equal(udp_payload(DLT_IEEE802_11, f.data, f.len, &u), UDP_PAYLOAD_NOT_UDP);
}

/* A RoCE frame of one queue pair: PSN and payload vary, the shard does not. */
static __u32 roce_shard(const char *src, __u16 sport, __u32 psn, __u32 payload, int tags)
{
	struct frame f;

	fr_init(&f);
	if (tags) {
		fr_eth(&f, 0x8100);
		fr_vlan(&f, 3, 100, 0x0800);
	} else {
		fr_eth(&f, 0x0800);
	}
	fr_ipv4(&f, &(struct fr_ip){.src = src, .dst = "10.0.0.2", .ecn = FR_ECT0});
	fr_udp(&f, sport, 4791);
	fr_bth(&f, &(struct fr_bth){.opcode = 0x0A, .dest_qp = 17, .psn = psn});
	fr_payload(&f, payload);
	fr_finish(&f);
	return frame_shard(DLT_EN10MB, f.data, f.len);
}

static void test_shard(void **state)
{
	__u32 seen[4] = {}, s0 = roce_shard("10.0.0.1", 49152, 0, 64, 0);
	struct frame a, b;

	(void)state;
	/* One flow, one shard, whatever its PSN, length or VLAN tag. */
	assert_int_equal(roce_shard("10.0.0.1", 49152, 77, 1024, 0), s0);
	assert_int_equal(roce_shard("10.0.0.1", 49152, 78, 0, 1), s0);
	/* Source ports spread over four workers, as RSS spreads them over queues. */
	for (__u16 p = 0; p < 64; p++)
		seen[roce_shard("10.0.0.1", 49152 + p, 0, 64, 0) % 4]++;
	for (int w = 0; w < 4; w++)
		assert_true(seen[w] >= 4);
	/* A fragment goes where the datagram's first fragment went. */
	udp_v4(&a, 0, FR_IP_MF);
	udp_v4(&b, 0, 185);
	assert_int_equal(frame_shard(DLT_EN10MB, a.data, a.len),
			 frame_shard(DLT_EN10MB, b.data, b.len));
	/* GRE (a mirror copy): by its address pair, whatever it carries. */
	fr_init(&a);
	fr_eth(&a, 0x0800);
	fr_ipv4(&a, &(struct fr_ip){.src = "192.0.2.1", .dst = "192.0.2.100", .proto = 47});
	fr_payload(&a, 40);
	fr_finish(&a);
	fr_init(&b);
	fr_eth(&b, 0x0800);
	fr_ipv4(&b, &(struct fr_ip){.src = "192.0.2.1", .dst = "192.0.2.100", .proto = 47});
	fr_payload(&b, 400);
	fr_finish(&b);
	assert_int_equal(frame_shard(DLT_EN10MB, a.data, a.len),
			 frame_shard(DLT_EN10MB, b.data, b.len));
	assert_int_not_equal(frame_shard(DLT_EN10MB, a.data, a.len), 0);
	/* Not IP: shard 0. */
	fr_init(&a);
	fr_eth(&a, 0x0806);
	fr_payload(&a, 28);
	assert_int_equal(frame_shard(DLT_EN10MB, a.data, a.len), 0);
	assert_int_equal(frame_shard(DLT_EN10MB, a.data, 3), 0);
}

/* Linux cooked captures (v1 and v2) and raw IP. */
static void test_other_link_types(void **state)
{
	__u8 buf[256] = {};
	struct udp_datagram u;
	struct frame f;
	__u32 ip_len;

	(void)state;
	udp_v4(&f, 0, 0);
	ip_len = f.len - FR_ETH_LEN;

	buf[14] = 0x08; /* SLL: protocol at 14 */
	memcpy(buf + 16, f.data + FR_ETH_LEN, ip_len);
	assert_int_equal(udp_payload(DLT_LINUX_SLL, buf, 16 + ip_len, &u), UDP_PAYLOAD_OK);
	expect_sflow(&u, 4);
	assert_int_equal(udp_payload(DLT_LINUX_SLL, buf, 15, &u), UDP_PAYLOAD_MALFORMED);

	memset(buf, 0, sizeof(buf));
	buf[0] = 0x08; /* SLL2: protocol at 0 */
	memcpy(buf + 20, f.data + FR_ETH_LEN, ip_len);
	assert_int_equal(udp_payload(DLT_LINUX_SLL2, buf, 20 + ip_len, &u), UDP_PAYLOAD_OK);
	expect_sflow(&u, 4);

	assert_int_equal(udp_payload(DLT_RAW, f.data + FR_ETH_LEN, ip_len, &u), UDP_PAYLOAD_OK);
	expect_sflow(&u, 4);
	assert_int_equal(udp_payload(DLT_RAW, f.data, 0, &u), UDP_PAYLOAD_MALFORMED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ethernet_ipv4_vlans),
	    cmocka_unit_test(test_ethernet_padding_excluded),
	    cmocka_unit_test(test_ipv6_extension_headers),
	    cmocka_unit_test(test_fragments),
	    cmocka_unit_test(test_every_cut),
	    cmocka_unit_test(test_lying_lengths),
	    cmocka_unit_test(test_not_udp),
	    cmocka_unit_test(test_other_link_types),
	    cmocka_unit_test(test_shard),
	};

	return cmocka_run_group_tests_name("udp_payload", tests, NULL, NULL);
}
