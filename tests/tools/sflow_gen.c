// SPDX-License-Identifier: GPL-2.0
/*
 * sflow_gen - write crafted sFlow v5 datagrams, one file each, made with
 * the test encoder (tests/lib/sflow_enc.c): what a real agent may send but
 * pmacct does not (expanded samples, output ports naming uplinks, dropped
 * and multiple ports, counter samples with port names and an opaque PFC
 * placeholder record, rate changes, IPv6 agents, VXLAN-encapsulated RoCE
 * headers). Seeds for fuzz_sflow; payloads for tests that send datagrams.
 *
 *   sflow_gen DIR [PREFIX]     writes DIR/PREFIXname for each datagram
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "sflow_enc.h"

static __u8 buf[9000];

/* An Ethernet / IPv4 / UDP / VXLAN / Ethernet / IPv4 / UDP 4791 / BTH header. */
static __u32 vxlan_roce(struct frame *f)
{
	fr_init(f);
	fr_eth(f, 0x0800);
	fr_ipv4(f, &(struct fr_ip){.src = "10.0.0.1", .dst = "10.0.1.1"});
	fr_udp(f, 51000, 4789);
	fr_vxlan(f, 0x08, 5001);
	fr_eth(f, 0x0800);
	fr_ipv4(f, &(struct fr_ip){
		       .src = "192.168.0.1", .dst = "192.168.1.1", .dscp = 26, .ecn = FR_CE});
	fr_udp(f, 49152, 4791);
	fr_bth(f, &(struct fr_bth){.opcode = 0x0A, .dest_qp = 0x123, .psn = 1000});
	fr_reth(f, 0x10000, 0x77, 4096);
	fr_payload(f, 128);
	fr_finish(f);
	return f->len < 128 ? f->len : 128;
}

/* Ethernet / IPv6 / UDP 4791 / BTH: the IPv6 packet starts at FR_ETH_LEN. */
static __u32 ipv6_roce(struct frame *f)
{
	fr_init(f);
	fr_eth(f, 0x86DD);
	fr_ipv6(f, &(struct fr_ip){.src = "fd00::1", .dst = "fd00::2", .dscp = 26}, 17);
	fr_udp(f, 49153, 4791);
	fr_bth(f, &(struct fr_bth){.opcode = 0x11, .dest_qp = 0x456, .psn = 77});
	fr_aeth(f, 0, 1);
	fr_icrc(f);
	fr_finish(f);
	return f->len - FR_ETH_LEN;
}

static void put(const char *dir, const char *prefix, const char *name, size_t len)
{
	char path[4096];
	FILE *out;

	if (!len) {
		fprintf(stderr, "sflow_gen: %s did not fit\n", name);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s%s", dir, prefix, name);
	out = fopen(path, "wb");
	if (!out || fwrite(buf, 1, len, out) != len || fclose(out)) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static const __u8 pfc_placeholder[72];
	struct sflow_addr v4 = sfe_ipv4("192.0.2.10"), v6 = sfe_ipv6("2001:db8::10");
	struct sflow_if_counters up = {.if_index = 49,
				       .if_type = 6,
				       .if_speed = 400000000000ULL,
				       .if_direction = 1,
				       .if_status = SFLOW_IF_ADMIN_UP | SFLOW_IF_OPER_UP,
				       .in_octets = 1ULL << 40,
				       .out_octets = 3ULL << 40,
				       .out_discards = 12};
	const char *prefix = argc > 2 ? argv[2] : "";
	struct frame f, f6;
	__u32 hlen, hlen6;
	struct sfe e;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s DIR [PREFIX]\n", argv[0]);
		return 2;
	}
	hlen = vxlan_roce(&f);
	hlen6 = ipv6_roce(&f6);

	/* Compact flow samples: a rate change, uplinks, internal/dropped/multiple. */
	sfe_init(&e, buf, sizeof(buf));
	sfe_datagram(&e, &v4, 0, 1, 1000);
	for (__u32 i = 0; i < 4; i++) {
		static const struct sflow_port out[] = {{.value = 49},
							{.value = 50},
							{.format = 1, .value = 256},
							{.format = 2, .value = 3}};

		sfe_flow_sample(
		    &e, &(struct sfe_flow){.sequence = i + 1,
					   .source = {0, 1},
					   .sampling_rate = i < 2 ? 1000 : 2000,
					   .sample_pool = 4000 * (i + 1),
					   .input = i == 3 ? sfe_internal() : sfe_ifindex(1),
					   .output = out[i]});
		sfe_sampled_header(&e, SFLOW_HEADER_ETHERNET, 4158, 4, f.data, hlen);
		sfe_record(&e, 0, 1001, pfc_placeholder, 16); /* extended_switch */
	}
	put(argv[1], prefix, "flow-compact-v4", sfe_end(&e));

	/* Expanded flow samples from an IPv6 agent, raw IPv4 and IPv6 headers. */
	sfe_datagram(&e, &v6, 1, 77, 2000);
	sfe_flow_sample(&e, &(struct sfe_flow){.expanded = true,
					       .sequence = 9,
					       .source = {0, 0x01000001},
					       .sampling_rate = 4096,
					       .input = sfe_ifindex(0x01000001),
					       .output = sfe_ifindex(0x01000031)});
	sfe_sampled_header(&e, SFLOW_HEADER_IPV4, 4138, 0, f.data + FR_ETH_LEN, hlen - FR_ETH_LEN);
	sfe_flow_sample(&e, &(struct sfe_flow){.expanded = true,
					       .sequence = 10,
					       .sampling_rate = 4096,
					       .output = sfe_multiple(0)});
	sfe_sampled_header(&e, SFLOW_HEADER_IPV6, hlen6, 0, f6.data + FR_ETH_LEN, hlen6);
	put(argv[1], prefix, "flow-expanded-v6", sfe_end(&e));

	/* Counter samples: generic, port name, and a placeholder where PFC would go. */
	sfe_datagram(&e, &v4, 0, 2, 3000);
	sfe_counter_sample(&e, false, 5, &(struct sflow_source){0, 49});
	sfe_if_counters(&e, &up);
	sfe_port_name(&e, "swp49");
	/* Opaque: the PFC structure's format and layout are not confirmed (docs/sflow.md). */
	sfe_record(&e, 0, 11, pfc_placeholder, sizeof(pfc_placeholder));
	sfe_counter_sample(&e, true, 6, &(struct sflow_source){0, 50});
	up.if_index = 50;
	sfe_if_counters(&e, &up);
	sfe_port_name(&e, "swp50");
	put(argv[1], prefix, "counters-v4", sfe_end(&e));

	/* Samples and records this decoder skips, around ones it reads. */
	sfe_datagram(&e, &v4, 2, 3, 4000);
	sfe_raw_sample(&e, 0, 5, pfc_placeholder, 40);
	sfe_raw_sample(&e, 4300, 1002, pfc_placeholder, 13);
	sfe_flow_sample(&e, &(struct sfe_flow){.sequence = 1, .sampling_rate = 1});
	sfe_record(&e, 9999, 1, pfc_placeholder, 7);
	sfe_sampled_header(&e, SFLOW_HEADER_ETHERNET, 60, 0, f.data, 60);
	put(argv[1], prefix, "unknown-skipped", sfe_end(&e));
	return 0;
}
