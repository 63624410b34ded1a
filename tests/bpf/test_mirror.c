// SPDX-License-Identifier: GPL-2.0
/*
 * test_mirror - switch mirror copies through the BPF parser: ERSPAN type
 * I, II and III and GRE TEB, over IPv4 and IPv6, with and without a GRE
 * key; the mirrored RoCE packet's flow key and the point it was copied at;
 * truncated copies; GRE that is not a mirror; every header boundary, cut
 * by the switch or by a capture's snap length; and the mirror_drop
 * verdicts. Harness: tests/lib/fixture.c (exact map contents through XDP
 * and tc, as test_parser).
 *
 * Layouts: RFC 2784 and RFC 2890 (GRE), draft-foschiano-erspan-03 and
 * Linux include/net/erspan.h (ERSPAN). Byte counts are sums of the header
 * sizes those define. A mirror copy's flow counts the mirrored packet's
 * bytes (its Ethernet and VLAN headers plus its IP length); the totals
 * count the frames as they arrived.
 *
 * test_mirror --dump DIR writes every frame here to DIR/mirror.pcap and
 * what the probe made of each to DIR/probe.tsv (tests/mirror/tshark_mirror.py
 * compares them with tshark); test_mirror --replay FILE... prints the
 * totals each capture leaves (tests/mirror/ext_check.py).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fabprobe.skel.h"
#include "fixture.h"
#include "fixture_dump.h"

/* The switches that send copies, and the collector they send them to. */
#define SW_A4	  "10.9.0.1"
#define SW_B4	  "10.9.0.2"
#define COLL4	  "10.9.0.100"
#define SW_A6	  "fd09::1"
#define COLL6	  "fd09::100"
#define SESSION	  101
#define SESSION_B 102
#define GRE_KEY	  0xC0FFEE
#define LINK_VLAN 10	  /* the collector link's own tag */
#define INDEX	  0x12345 /* ERSPAN II: the port a copy was taken at */
#define INDEX_B	  0xFEDCB /* another port of the same session */

/* Mirror header sizes after the outer IP header: GRE (+ sequence number) + ERSPAN. */
#define GRE_SEQ	 (FR_GRE_LEN + 4)
#define H_I	 FR_GRE_LEN
#define H_II	 (GRE_SEQ + FR_ERSPAN2_LEN)
#define H_III	 (GRE_SEQ + FR_ERSPAN3_LEN)
#define H_TEB	 FR_GRE_LEN
#define COPY4(h) (FR_ETH_LEN + FR_IPV4_LEN + (h))
#define COPY6(h) (FR_ETH_LEN + FR_IPV6_LEN + (h))

#define ALL(n) ((1U << (n)) - 1)

/* ---- frame builders ---------------------------------------------------- */

struct mirror_spec {
	enum fp_mirror type;
	bool outer6;
	bool link_vlan;	 /* the collector link is tagged */
	__u16 gre_flags; /* beyond the S bit types II and III need: C, K, R, version */
	__u16 proto;	 /* GRE protocol instead of the type's */
	__u16 session;	 /* 0: SESSION */
	__u8 ver;	 /* ERSPAN version instead of the type's */
	bool trunc;	 /* T */
	bool egress;	 /* D (type III) */
	bool subheader;	 /* O (type III) */
	__u8 ft;	 /* frame type (type III) */
	const char *sw;	 /* the switch; NULL: SW_A4 or SW_A6 */
	__u32 index;	 /* type II's Index; 0: INDEX */
};

/* A copy's outer headers: switch -> collector Ethernet, IP, GRE, ERSPAN. */
static struct frame *copy_of(struct fx *fx, const struct mirror_spec *m)
{
	struct fr_ip ip = {.proto = FP_IPPROTO_GRE, .frag = FR_IP_DF};
	struct fr_erspan e = {.session = m->session ? m->session : SESSION,
			      .ver = m->ver,
			      .trunc = m->trunc,
			      .egress = m->egress,
			      .subheader = m->subheader,
			      .ft = m->ft,
			      .index = m->index ? m->index : INDEX,
			      .timestamp = 0xABCD,
			      .hwid = 5};
	struct frame *f = fx_frame(fx);
	__u16 type = m->outer6 ? FP_ETH_P_IPV6 : FP_ETH_P_IP;
	__u16 flags = m->gre_flags, proto = FR_GRE_ERSPAN;

	ip.src = m->sw ? m->sw : m->outer6 ? SW_A6 : SW_A4;
	ip.dst = m->outer6 ? COLL6 : COLL4;
	if (m->link_vlan) {
		fr_eth(f, FP_ETH_P_8021Q);
		fr_vlan(f, 0, LINK_VLAN, type);
	} else {
		fr_eth(f, type);
	}
	if (m->outer6)
		fr_ipv6(f, &ip, FP_IPPROTO_GRE);
	else
		fr_ipv4(f, &ip);
	if (m->type == FP_MIRROR_ERSPAN_II || m->type == FP_MIRROR_ERSPAN_III)
		flags |= FR_GRE_S;
	if (m->type == FP_MIRROR_ERSPAN_III)
		proto = FR_GRE_ERSPAN3;
	if (m->type == FP_MIRROR_GRE_TEB)
		proto = FR_GRE_TEB;
	fr_gre(f, flags, m->proto ? m->proto : proto, GRE_KEY, 7);
	if (m->type == FP_MIRROR_ERSPAN_II)
		fr_erspan2(f, &e);
	else if (m->type == FP_MIRROR_ERSPAN_III)
		fr_erspan3(f, &e);
	return f;
}

static const struct fr_ip ip_a4 = {
    .src = A4, .dst = B4, .dscp = DSCP, .ecn = FR_ECT0, .frag = FR_IP_DF};
static const struct fr_ip ip_b4 = {
    .src = B4, .dst = A4, .dscp = DSCP, .ecn = FR_ECT0, .frag = FR_IP_DF};
static const struct fr_ip ip_a6 = {.src = A6, .dst = B6, .dscp = DSCP, .ecn = FR_ECT0};

/* The mirrored packet's Ethernet, IPv4 A4 -> B4 and UDP to the RoCE port. */
static void mirrored_v4(struct frame *f)
{
	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &ip_a4);
	fr_udp(f, SPORT, ROCE_PORT);
}

static void mirrored_v6(struct frame *f)
{
	fr_eth(f, FP_ETH_P_IPV6);
	fr_ipv6(f, &ip_a6, FP_IPPROTO_UDP);
	fr_udp(f, SPORT, ROCE_PORT);
}

static void bth(struct frame *f, __u8 opcode, __u32 qp, __u32 psn)
{
	fr_bth(f, &(struct fr_bth){.opcode = opcode, .dest_qp = qp, .psn = psn});
}

static void tail(struct frame *f, __u32 payload)
{
	fr_payload(f, payload);
	fr_icrc(f);
	fr_finish(f);
}

static void send_only(struct frame *f, __u32 psn)
{
	bth(f, RC_SEND_ONLY, QP_A, psn);
	tail(f, 64);
}

static void write_only(struct frame *f, __u32 len)
{
	bth(f, RC_WRITE_ONLY, QP_A, 100);
	fr_reth(f, 0x1000, 0x1, len);
	tail(f, len);
}

/*
 * What a switch does to a copy with a mirror MTU: keep the first len bytes
 * of the mirrored frame and write the outer headers for what it sends.
 */
static void truncate_copy(struct frame *f, __u32 len)
{
	fr_cut(f, fr_off(f, FR_H_M_ETH) + len);
	fr_finish_before(f, FR_H_M_ETH);
}

/* A copy (fx->arg) of a SEND ONLY from A4 to B4. */
static void b_send(struct fx *fx)
{
	struct frame *f = copy_of(fx, fx->arg);

	mirrored_v4(f);
	send_only(f, 100);
}

/* A copy of a SEND ONLY in VXLAN: IPv4 VTEPs and hosts, or IPv6 (fx->arg's outer6). */
static void b_vxlan(struct fx *fx)
{
	const struct mirror_spec *m = fx->arg;
	struct frame *f = copy_of(fx, m);
	bool v6 = m->outer6;

	fr_eth(f, v6 ? FP_ETH_P_IPV6 : FP_ETH_P_IP);
	if (v6)
		fr_ipv6(
		    f,
		    &(struct fr_ip){.src = VTEP_A6, .dst = VTEP_B6, .dscp = DSCP, .ecn = FR_ECT0},
		    FP_IPPROTO_UDP);
	else
		fr_ipv4(f, &(struct fr_ip){
			       .src = VTEP_A4, .dst = VTEP_B4, .dscp = DSCP, .ecn = FR_ECT0});
	fr_udp(f, VX_SPORT, VXLAN_PORT);
	fr_vxlan(f, FP_VXLAN_FLAG_I, VNI);
	fr_eth(f, v6 ? FP_ETH_P_IPV6 : FP_ETH_P_IP);
	if (v6)
		fr_ipv6(f, &(struct fr_ip){.src = A6, .dst = B6, .ecn = FR_ECT1}, FP_IPPROTO_UDP);
	else
		fr_ipv4(f, &(struct fr_ip){.src = A4, .dst = B4, .ecn = FR_ECT1});
	fr_udp(f, SPORT, ROCE_PORT);
	send_only(f, 100);
}

/* The mirrored packet was tagged (VLAN 100, PCP 3); the copy's own link maybe too. */
static void b_vlan(struct fx *fx)
{
	struct frame *f = copy_of(fx, fx->arg);

	fr_eth(f, FP_ETH_P_8021Q);
	fr_vlan(f, 3, 100, FP_ETH_P_IP);
	fr_ipv4(f, &ip_a4);
	fr_udp(f, SPORT, ROCE_PORT);
	send_only(f, 100);
}

/* An ACK from B4 to QP_B, copied. */
static void b_ack(struct fx *fx)
{
	struct frame *f = copy_of(fx, fx->arg);

	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &ip_b4);
	fr_udp(f, SPORT_B, ROCE_PORT);
	bth(f, RC_ACK, QP_B, 100);
	fr_aeth(f, SYN_ACK, 1);
	tail(f, 0);
}

static const struct mirror_spec m_i = {.type = FP_MIRROR_ERSPAN_I};
static const struct mirror_spec m_i_key = {.type = FP_MIRROR_ERSPAN_I, .gre_flags = FR_GRE_K};
static const struct mirror_spec m_ii = {.type = FP_MIRROR_ERSPAN_II};
static const struct mirror_spec m_ii_v6 = {.type = FP_MIRROR_ERSPAN_II, .outer6 = true};
static const struct mirror_spec m_ii_key = {.type = FP_MIRROR_ERSPAN_II, .gre_flags = FR_GRE_K};
static const struct mirror_spec m_ii_ck = {.type = FP_MIRROR_ERSPAN_II,
					   .gre_flags = FR_GRE_C | FR_GRE_K};
static const struct mirror_spec m_ii_1023 = {.type = FP_MIRROR_ERSPAN_II, .session = 1023};
static const struct mirror_spec m_ii_link = {.type = FP_MIRROR_ERSPAN_II, .link_vlan = true};
static const struct mirror_spec m_iii = {.type = FP_MIRROR_ERSPAN_III};
static const struct mirror_spec m_iii_eg_o_v6 = {.type = FP_MIRROR_ERSPAN_III,
						 .outer6 = true,
						 .gre_flags = FR_GRE_K,
						 .egress = true,
						 .subheader = true};
static const struct mirror_spec m_iii_v6 = {.type = FP_MIRROR_ERSPAN_III, .outer6 = true};
static const struct mirror_spec m_teb = {.type = FP_MIRROR_GRE_TEB};
static const struct mirror_spec m_teb_key_v6 = {
    .type = FP_MIRROR_GRE_TEB, .outer6 = true, .gre_flags = FR_GRE_K};

/* One packet, copied in two sessions of one switch. */
static void b_two_sessions(struct fx *fx)
{
	struct frame *f;

	f = copy_of(fx, &m_ii);
	mirrored_v4(f);
	send_only(f, 100);
	f = copy_of(fx, &(struct mirror_spec){.type = FP_MIRROR_ERSPAN_II, .session = SESSION_B});
	mirrored_v4(f);
	send_only(f, 100);
}

/*
 * Two switches each copy the same two requests in session 101: two flows,
 * and neither sees the other's PSNs as retransmissions.
 */
static void b_two_switches(struct fx *fx)
{
	for (__u32 psn = 100; psn <= 101; psn++) {
		struct frame *f = copy_of(fx, &m_ii);

		mirrored_v4(f);
		send_only(f, psn);
		f = copy_of(fx, &(struct mirror_spec){.type = FP_MIRROR_ERSPAN_II, .sw = SW_B4});
		mirrored_v4(f);
		send_only(f, psn);
	}
}

/*
 * One type II session copies each of two requests at two ports of a switch
 * (a server port's rx and an uplink's tx): the copies differ in the Index
 * alone. Two flows, and neither sees the other's PSNs as retransmissions.
 */
static void b_two_ports(struct fx *fx)
{
	for (__u32 psn = 100; psn <= 101; psn++) {
		struct frame *f = copy_of(fx, &m_ii);

		mirrored_v4(f);
		send_only(f, psn);
		f = copy_of(fx,
			    &(struct mirror_spec){.type = FP_MIRROR_ERSPAN_II, .index = INDEX_B});
		mirrored_v4(f);
		send_only(f, psn);
	}
}

/* The same request copied twice at one port: a retransmission, as on the wire. */
static void b_one_port_twice(struct fx *fx)
{
	for (int i = 0; i < 2; i++) {
		struct frame *f = copy_of(fx, &m_ii);

		mirrored_v4(f);
		send_only(f, 100);
	}
}

/* The packet on the wire, then a copy of it: two observations. */
static void b_wire_and_copy(struct fx *fx)
{
	struct frame *f = fx_frame(fx);

	mirrored_v4(f);
	send_only(f, 100);
	f = copy_of(fx, &m_ii);
	mirrored_v4(f);
	send_only(f, 100);
}

/* Copies of what is not RoCE: a TCP segment whose ports read as 4791, and ARP. */
static void b_not_roce(struct fx *fx)
{
	static const __u8 arp[28] = {0, 1, 8, 0, 6, 4, 0, 1};
	struct fr_ip tcp = ip_a4;
	struct frame *f;

	tcp.proto = 6;
	f = copy_of(fx, &m_ii);
	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &tcp);
	fr_udp(f, SPORT, ROCE_PORT);
	send_only(f, 100);
	f = copy_of(fx, &m_ii);
	fr_eth(f, 0x0806);
	fr_bytes(f, arp, sizeof(arp));
	fr_finish(f);
}

/* A copy whose mirrored frame is itself a copy: not followed. */
static void b_nested(struct fx *fx)
{
	struct frame *f = copy_of(fx, &m_ii);

	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &(struct fr_ip){.src = SW_B4, .dst = COLL4, .proto = FP_IPPROTO_GRE});
	f->mirrored = false;
	fr_gre(f, FR_GRE_S, FR_GRE_ERSPAN, 0, 1);
	fr_erspan2(f, &(struct fr_erspan){.session = SESSION_B});
	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &ip_a4);
	fr_udp(f, SPORT, ROCE_PORT);
	send_only(f, 100);
}

/* GRE that is no mirror, or a mirror header we do not read: RoCE under each. */
static void b_foreign(struct fx *fx)
{
	static const struct mirror_spec foreign[] = {
	    {.type = FP_MIRROR_ERSPAN_I, .proto = FP_ETH_P_IP}, /* IPv4 in GRE */
	    {.type = FP_MIRROR_ERSPAN_II, .gre_flags = 1},	/* version 1 (PPTP) */
	    {.type = FP_MIRROR_ERSPAN_II, .gre_flags = FR_GRE_R},
	    {.type = FP_MIRROR_ERSPAN_II, .ver = 2},  /* type III's version under 0x88BE */
	    {.type = FP_MIRROR_ERSPAN_III, .ver = 1}, /* type II's under 0x22EB */
	    {.type = FP_MIRROR_ERSPAN_II, .proto = 0x8909},
	};

	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		struct frame *f = copy_of(fx, &foreign[i]);

		if (foreign[i].proto == FP_ETH_P_IP) {
			fr_ipv4(f, &ip_a4);
			fr_udp(f, SPORT, ROCE_PORT);
		} else {
			mirrored_v4(f);
		}
		send_only(f, 100);
	}
}

/* A later fragment of a copy: its first bytes read as GRE but are payload. */
static void b_fragment(struct fx *fx)
{
	struct frame *f = copy_of(fx, &m_ii);

	mirrored_v4(f);
	send_only(f, 100);
	/* Fragment offset 185 (1480 bytes), more fragments. */
	f->data[fr_off(f, FR_H_IP) + 6] = 0x20;
	f->data[fr_off(f, FR_H_IP) + 7] = 185;
}

/* ERSPAN III of a frame that is not Ethernet (FT 3): counted, not parsed. */
static void b_not_ethernet(struct fx *fx)
{
	struct frame *f = copy_of(fx, &(struct mirror_spec){.type = FP_MIRROR_ERSPAN_III, .ft = 3});

	mirrored_v4(f);
	send_only(f, 100);
}

/* The switch sent the mirrored frame's FCS too: 4 bytes after the IP datagram. */
static void b_fcs(struct fx *fx)
{
	static const __u8 fcs[4] = {0xDE, 0xAD, 0xBE, 0xEF};
	struct frame *f = copy_of(fx, &m_ii);

	mirrored_v4(f);
	send_only(f, 100);
	fr_bytes(f, fcs, sizeof(fcs));
	fr_finish_before(f, FR_H_M_ETH);
}

/* The mirrored UDP length reaches past the mirrored IP datagram. */
static void b_udp_len_beyond(struct fx *fx)
{
	struct frame *f = copy_of(fx, &m_ii);

	mirrored_v4(f);
	fr_udp_len(f, FR_UDP_LEN + ROCE(0, 64) + 1);
	send_only(f, 100);
}

/* ---- truncated copies ---------------------------------------------------- */

/* A WRITE of 1024 bytes whose copy keeps 64 bytes: the BTH, not all of the RETH. */
static void b_trunc_write_64(struct fx *fx)
{
	struct frame *f = copy_of(fx, fx->arg);

	mirrored_v4(f);
	write_only(f, 1024);
	truncate_copy(f, 64);
}

static const struct mirror_spec m_ii_t = {.type = FP_MIRROR_ERSPAN_II, .trunc = true};

/* The same in VXLAN cut at 128 bytes (inner BTH and RETH there) or 64 (inner IP cut). */
static void b_trunc_vxlan(struct fx *fx)
{
	struct frame *f = copy_of(fx, &m_ii_t);

	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &(struct fr_ip){.src = VTEP_A4, .dst = VTEP_B4, .dscp = DSCP, .ecn = FR_ECT0});
	fr_udp(f, VX_SPORT, VXLAN_PORT);
	fr_vxlan(f, FP_VXLAN_FLAG_I, VNI);
	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &(struct fr_ip){.src = A4, .dst = B4, .ecn = FR_ECT1});
	fr_udp(f, SPORT, ROCE_PORT);
	write_only(f, 1024);
	truncate_copy(f, (__u32)(uintptr_t)fx->arg == 64 ? 64 : 128);
}

/* IPv6 cut at 64 bytes: the UDP header to the RoCE port is there, the BTH is not. */
static void b_trunc_before_bth(struct fx *fx)
{
	struct frame *f = copy_of(fx, &m_ii);

	mirrored_v6(f);
	send_only(f, 100);
	truncate_copy(f, 64);
}

/*
 * A READ of 1 MiB at PSN 100 whose copy lost the RETH's length, then a SEND
 * at PSN 4196 (the 4096 PSNs a 1 MiB READ reserves at a 256-byte PMTU):
 * with the length unknown the SEND must not look like a gap.
 */
static void b_trunc_read(struct fx *fx)
{
	struct frame *f = copy_of(fx, &m_ii);

	mirrored_v4(f);
	bth(f, RC_READ_REQ, QP_A, 100);
	fr_reth(f, 0x1000, 0x1, 1U << 20);
	tail(f, 0);
	truncate_copy(f, 64);
	f = copy_of(fx, &m_ii);
	mirrored_v4(f);
	send_only(f, 4196);
}

/* An IPv6 ACK cut inside its AETH: RoCE, but no ACK to count. */
static void b_trunc_aeth(struct fx *fx)
{
	struct frame *f = copy_of(fx, &m_ii);

	mirrored_v6(f);
	bth(f, RC_ACK, QP_A, 100);
	fr_aeth(f, SYN_ACK, 1);
	tail(f, 0);
	truncate_copy(f, FR_ETH_LEN + FR_IPV6_LEN + FR_UDP_LEN + S_BTH + 2);
}

/* An IPv4 ACK cut inside its ICRC: the AETH is whole and counts. */
static void b_trunc_icrc(struct fx *fx)
{
	struct frame *f = copy_of(fx, &m_ii);

	mirrored_v4(f);
	bth(f, RC_ACK, QP_A, 100);
	fr_aeth(f, SYN_ACK, 1);
	tail(f, 0);
	truncate_copy(f, ACK4 - 2);
}

/* A truncated copy whose UDP length is past the IP datagram: still malformed. */
static void b_trunc_udp_len(struct fx *fx)
{
	struct frame *f = copy_of(fx, &m_ii_t);

	mirrored_v4(f);
	fr_udp_len(f, FR_UDP_LEN + ROCE(S_RETH, 1024) + 1);
	write_only(f, 1024);
	truncate_copy(f, 128);
}

/*
 * A capture with a snap length (replay): the copy was whole on the wire,
 * the capture kept fx->arg bytes of it. Not a truncated copy.
 */
static void b_snaplen(struct fx *fx)
{
	struct frame *f = copy_of(fx, &m_ii);

	mirrored_v4(f);
	write_only(f, 1024);
	f->wire_len = f->len;
	fr_cut(f, (__u32)(uintptr_t)fx->arg);
}

/* ---- expected values ------------------------------------------------------ */

/* The key's mirror_id of a copy of the given type and session or key (copy_of()'s Index). */
#define MID(type, id) ((id) | ((type) == FP_MIRROR_ERSPAN_II ? II_INDEX(INDEX) : 0))
/* Type II's Index, as the key holds it above the session. */
#define II_INDEX(index) ((__u32)(index) << FP_MIRROR_INDEX_SHIFT)

/* The mirrored SEND's key as a copy of the given type, session or key, switch. */
#define MKEY(type, id, sw, fl) MKEY_ID(type, MID(type, id), sw, fl)
#define MKEY_ID(type, mid, sw, fl)                                                                 \
	{                                                                                          \
		.src = A4, .dst = B4, .sport = SPORT, .dport = ROCE_PORT, .qp = QP_A,              \
		.mirror = (type), .mirror_id = (mid), .msrc = (sw), .flags = (fl)                  \
	}
#define MKEY6(type, id, sw, fl)                                                                    \
	{                                                                                          \
		.src = A6, .dst = B6, .sport = SPORT, .dport = ROCE_PORT, .qp = QP_A,              \
		.mirror = (type), .mirror_id = MID(type, id), .msrc = (sw),                        \
		.flags = FP_FLOW_IPV6 | (fl)                                                       \
	}

/* n copies of RoCE packets making f new flows; the frames' bytes as they arrived. */
#define TM_ROCE(n, bytes, f)                                                                       \
	{                                                                                          \
		[FP_CNT_FRAMES] = (n), [FP_CNT_BYTES] = (bytes), [FP_CNT_ROCE] = (n),              \
		[FP_CNT_FLOW_NEW] = (f), [FP_CNT_MIRRORED] = (n)                                   \
	}
#define TM_TRUNC(bytes)                                                                            \
	{                                                                                          \
		[FP_CNT_FRAMES] = 1, [FP_CNT_BYTES] = (bytes), [FP_CNT_ROCE] = 1,                  \
		[FP_CNT_FLOW_NEW] = 1, [FP_CNT_MIRRORED] = 1, [FP_CNT_MIRROR_TRUNCATED] = 1        \
	}

#define SEND6	  L6(ROCE(0, 64))
#define WRITE1K	  L4(ROCE(S_RETH, 1024))
#define VXSEND4	  VX4(FR_ETH_LEN + FR_IPV4_LEN + FR_UDP_LEN + ROCE(0, 64))
#define VXSEND6	  VX6(FR_ETH_LEN + FR_IPV6_LEN + FR_UDP_LEN + ROCE(0, 64))
#define VXWRITE1K VX4(FR_ETH_LEN + FR_IPV4_LEN + FR_UDP_LEN + ROCE(S_RETH, 1024))

/* A SEND in VXLAN: outer ECT(0) DSCP 26, inner ECT(1). */
#define C_VX(nbytes) C_SEND(nbytes), .inner_ecn = {[FR_ECT1] = 1}

static const struct fixture fixtures[] = {
    {
	.name = "erspan1_ipv4",
	.build = b_send,
	.arg = &m_i,
	.totals = TM_ROCE(1, COPY4(H_I) + SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_I, 0, SW_A4, 0), .c = {C_SEND(SEND64)}}},
	.mirror_frames = ALL(1),
	.runs = RUN_TC_INGRESS | RUN_UNMODIFIED,
    },
    {
	/* Type I names its mirror by the GRE key, when there is one. */
	.name = "erspan1_gre_key",
	.build = b_send,
	.arg = &m_i_key,
	.totals = TM_ROCE(1, COPY4(H_I + 4) + SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_I, GRE_KEY, SW_A4, FP_FLOW_MIRROR_KEY),
		   .c = {C_SEND(SEND64)}}},
	.mirror_frames = ALL(1),
    },
    {
	.name = "erspan2_ipv4",
	.build = b_send,
	.arg = &m_ii,
	.totals = TM_ROCE(1, COPY4(H_II) + SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_A4, 0), .c = {C_SEND(SEND64)}}},
	.mirror_frames = ALL(1),
	.runs = RUN_TC_INGRESS | RUN_TC_EGRESS | RUN_UNMODIFIED,
    },
    {
	.name = "erspan2_ipv6_outer",
	.build = b_send,
	.arg = &m_ii_v6,
	.totals = TM_ROCE(1, COPY6(H_II) + SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_A6, FP_FLOW_MIRROR_IPV6),
		   .c = {C_SEND(SEND64)}}},
	.mirror_frames = ALL(1),
	.runs = RUN_TC_INGRESS,
    },
    {
	/* The session names a type II mirror; a GRE key beside it is not kept. */
	.name = "erspan2_gre_key",
	.build = b_send,
	.arg = &m_ii_key,
	.totals = TM_ROCE(1, COPY4(H_II + 4) + SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_A4, 0), .c = {C_SEND(SEND64)}}},
	.mirror_frames = ALL(1),
    },
    {
	.name = "erspan2_gre_checksum_key_sequence",
	.build = b_send,
	.arg = &m_ii_ck,
	.totals = TM_ROCE(1, COPY4(H_II + 8) + SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_A4, 0), .c = {C_SEND(SEND64)}}},
	.mirror_frames = ALL(1),
    },
    {
	.name = "erspan2_session_1023",
	.build = b_send,
	.arg = &m_ii_1023,
	.totals = TM_ROCE(1, COPY4(H_II) + SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_II, 1023, SW_A4, 0), .c = {C_SEND(SEND64)}}},
	.mirror_frames = ALL(1),
    },
    {
	.name = "erspan2_vxlan",
	.build = b_vxlan,
	.arg = &m_ii,
	.totals = {[FP_CNT_FRAMES] = 1,
		   [FP_CNT_BYTES] = COPY4(H_II) + VXSEND4,
		   [FP_CNT_ROCE] = 1,
		   [FP_CNT_VXLAN] = 1,
		   [FP_CNT_FLOW_NEW] = 1,
		   [FP_CNT_MIRRORED] = 1},
	.n_flows = 1,
	.flows = {{.k = {.src = VTEP_A4,
			 .dst = VTEP_B4,
			 .sport = VX_SPORT,
			 .dport = VXLAN_PORT,
			 .vni = VNI,
			 .isrc = A4,
			 .idst = B4,
			 .isport = SPORT,
			 .idport = ROCE_PORT,
			 .qp = QP_A,
			 .flags = FP_FLOW_VXLAN,
			 .mirror = FP_MIRROR_ERSPAN_II,
			 .mirror_id = MID(FP_MIRROR_ERSPAN_II, SESSION),
			 .msrc = SW_A4},
		   .c = {C_VX(VXSEND4)}}},
	.mirror_frames = ALL(1),
	.runs = RUN_TC_INGRESS | RUN_UNMODIFIED,
    },
    {
	/* The flow's VLAN is the mirrored packet's, not the collector link's. */
	.name = "erspan2_tagged_copy_on_tagged_link",
	.build = b_vlan,
	.arg = &m_ii_link,
	.totals = TM_ROCE(1, FR_VLAN_LEN + COPY4(H_II) + SEND64 + FR_VLAN_LEN, 1),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_A4, 0),
		   .c = {C_SEND(SEND64 + FR_VLAN_LEN), .vlan = 100, .pcp = 3, .vlan_tagged = 1}}},
	.mirror_frames = ALL(1),
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "erspan2_untagged_copy_on_tagged_link",
	.build = b_send,
	.arg = &m_ii_link,
	.totals = TM_ROCE(1, FR_VLAN_LEN + COPY4(H_II) + SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_A4, 0), .c = {C_SEND(SEND64)}}},
	.mirror_frames = ALL(1),
    },
    {
	.name = "erspan2_ack",
	.build = b_ack,
	.arg = &m_ii,
	.totals = TM_ROCE(1, COPY4(H_II) + ACK4, 1),
	.n_flows = 1,
	.flows = {{.k = {.src = B4,
			 .dst = A4,
			 .sport = SPORT_B,
			 .dport = ROCE_PORT,
			 .qp = QP_B,
			 .mirror = FP_MIRROR_ERSPAN_II,
			 .mirror_id = MID(FP_MIRROR_ERSPAN_II, SESSION),
			 .msrc = SW_A4},
		   .c = {C_ONE(RC_ACK, ACK4), .acks = 1}}},
	.mirror_frames = ALL(1),
    },
    {
	.name = "erspan3_ingress",
	.build = b_send,
	.arg = &m_iii,
	.totals = TM_ROCE(1, COPY4(H_III) + SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_III, SESSION, SW_A4, FP_FLOW_MIRROR_INGRESS),
		   .c = {C_SEND(SEND64)}}},
	.mirror_frames = ALL(1),
	.runs = RUN_TC_INGRESS | RUN_UNMODIFIED,
    },
    {
	.name = "erspan3_egress_subheader_gre_key_ipv6_outer",
	.build = b_send,
	.arg = &m_iii_eg_o_v6,
	.totals = TM_ROCE(1, COPY6(H_III + 4 + 8) + SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_III, SESSION, SW_A6,
			     FP_FLOW_MIRROR_EGRESS | FP_FLOW_MIRROR_IPV6),
		   .c = {C_SEND(SEND64)}}},
	.mirror_frames = ALL(1),
	.runs = RUN_TC_INGRESS | RUN_UNMODIFIED,
    },
    {
	.name = "erspan3_vxlan_ipv6",
	.build = b_vxlan,
	.arg = &m_iii_v6,
	.totals = {[FP_CNT_FRAMES] = 1,
		   [FP_CNT_BYTES] = COPY6(H_III) + VXSEND6,
		   [FP_CNT_ROCE] = 1,
		   [FP_CNT_VXLAN] = 1,
		   [FP_CNT_FLOW_NEW] = 1,
		   [FP_CNT_MIRRORED] = 1},
	.n_flows = 1,
	.flows = {{.k = {.src = VTEP_A6,
			 .dst = VTEP_B6,
			 .sport = VX_SPORT,
			 .dport = VXLAN_PORT,
			 .vni = VNI,
			 .isrc = A6,
			 .idst = B6,
			 .isport = SPORT,
			 .idport = ROCE_PORT,
			 .qp = QP_A,
			 .flags = FP_FLOW_VXLAN | FP_FLOW_IPV6 | FP_FLOW_INNER_IPV6 |
				  FP_FLOW_MIRROR_INGRESS | FP_FLOW_MIRROR_IPV6,
			 .mirror = FP_MIRROR_ERSPAN_III,
			 .mirror_id = SESSION,
			 .msrc = SW_A6},
		   .c = {C_VX(VXSEND6)}}},
	.mirror_frames = ALL(1),
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "erspan3_not_ethernet",
	.build = b_not_ethernet,
	.totals = {[FP_CNT_FRAMES] = 1,
		   [FP_CNT_BYTES] = COPY4(H_III) + SEND64,
		   [FP_CNT_OTHER] = 1,
		   [FP_CNT_MIRRORED] = 1,
		   [FP_CNT_MIRROR_NOT_ETH] = 1},
	.mirror_frames = ALL(1),
    },
    {
	.name = "gre_teb",
	.build = b_send,
	.arg = &m_teb,
	.totals = TM_ROCE(1, COPY4(H_TEB) + SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_GRE_TEB, 0, SW_A4, 0), .c = {C_SEND(SEND64)}}},
	.mirror_frames = ALL(1),
	.runs = RUN_TC_INGRESS | RUN_UNMODIFIED,
    },
    {
	.name = "gre_teb_key_ipv6_outer",
	.build = b_send,
	.arg = &m_teb_key_v6,
	.totals = TM_ROCE(1, COPY6(H_TEB + 4) + SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_GRE_TEB, GRE_KEY, SW_A6,
			     FP_FLOW_MIRROR_KEY | FP_FLOW_MIRROR_IPV6),
		   .c = {C_SEND(SEND64)}}},
	.mirror_frames = ALL(1),
    },
    {
	.name = "two_sessions_two_flows",
	.build = b_two_sessions,
	.totals = TM_ROCE(2, 2 * (COPY4(H_II) + SEND64), 2),
	.n_flows = 2,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_A4, 0), .c = {C_SEND(SEND64)}},
		  {.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION_B, SW_A4, 0),
		   .c = {C_ONE_AT(RC_SEND_ONLY, SEND64, TS(1))}}},
	.mirror_frames = ALL(2),
	.runs = RUN_TC_INGRESS,
    },
    {
	/* Type II's Index is in the key: one session's two ports, two flows. */
	.name = "two_ports_two_flows_no_retransmits",
	.build = b_two_ports,
	.totals = TM_ROCE(4, 4 * (COPY4(H_II) + SEND64), 2),
	.n_flows = 2,
	.flows = {{.k = MKEY_ID(FP_MIRROR_ERSPAN_II, SESSION | II_INDEX(INDEX), SW_A4, 0),
		   .c = {C_SENDS_AT(2, TS(0), TS(2))}},
		  {.k = MKEY_ID(FP_MIRROR_ERSPAN_II, SESSION | II_INDEX(INDEX_B), SW_A4, 0),
		   .c = {C_SENDS_AT(2, TS(1), TS(3))}}},
	.mirror_frames = ALL(4),
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "one_port_twice_retransmit",
	.build = b_one_port_twice,
	.totals = TM_ROCE(2, 2 * (COPY4(H_II) + SEND64), 1),
	.n_flows = 1,
	.flows = {{.k = MKEY_ID(FP_MIRROR_ERSPAN_II, SESSION | II_INDEX(INDEX), SW_A4, 0),
		   .c = {C_SENDS_AT(2, TS(0), TS(1)), .retransmits = 1}}},
	.mirror_frames = ALL(2),
    },
    {
	.name = "two_switches_two_flows_no_retransmits",
	.build = b_two_switches,
	.totals = TM_ROCE(4, 4 * (COPY4(H_II) + SEND64), 2),
	.n_flows = 2,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_A4, 0),
		   .c = {C_SENDS_AT(2, TS(0), TS(2))}},
		  {.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_B4, 0),
		   .c = {C_SENDS_AT(2, TS(1), TS(3))}}},
	.mirror_frames = ALL(4),
    },
    {
	.name = "wire_and_copy_two_flows",
	.build = b_wire_and_copy,
	.totals = {[FP_CNT_FRAMES] = 2,
		   [FP_CNT_BYTES] = SEND64 + COPY4(H_II) + SEND64,
		   [FP_CNT_ROCE] = 2,
		   [FP_CNT_FLOW_NEW] = 2,
		   [FP_CNT_MIRRORED] = 1},
	.n_flows = 2,
	.flows = {{.k = MKEY(FP_MIRROR_NONE, 0, NULL, 0), .c = {C_SEND(SEND64)}},
		  {.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_A4, 0),
		   .c = {C_ONE_AT(RC_SEND_ONLY, SEND64, TS(1))}}},
	.mirror_frames = 0x2,
	.runs = RUN_TC_INGRESS | RUN_TC_EGRESS,
    },
    {
	.name = "copies_not_roce",
	.build = b_not_roce,
	.totals = {[FP_CNT_FRAMES] = 2,
		   [FP_CNT_BYTES] = 2 * COPY4(H_II) + SEND64 + FR_ETH_LEN + 28,
		   [FP_CNT_OTHER] = 2,
		   [FP_CNT_MIRRORED] = 2},
	.mirror_frames = ALL(2),
    },
    {
	.name = "copy_in_a_copy_not_followed",
	.build = b_nested,
	.totals = {[FP_CNT_FRAMES] = 1,
		   [FP_CNT_BYTES] = 2 * COPY4(H_II) + SEND64,
		   [FP_CNT_OTHER] = 1,
		   [FP_CNT_MIRRORED] = 1},
	.mirror_frames = ALL(1),
    },
    {
	/* IPv4 in GRE, GRE version 1, the routing bit, ERSPAN versions swapped, CMD. */
	.name = "gre_not_a_mirror",
	.build = b_foreign,
	.totals = T_OTHER(6, COPY4(FR_GRE_LEN) + FR_IPV4_LEN + FR_UDP_LEN + ROCE(0, 64) +
				 4 * (COPY4(H_II) + SEND64) + COPY4(H_III) + SEND64),
    },
    {
	.name = "gre_in_a_later_fragment",
	.build = b_fragment,
	.totals = T_OTHER(1, COPY4(H_II) + SEND64),
    },
    {
	/* The FCS after the datagram is no truncation, and no part of the packet's bytes. */
	.name = "erspan2_copy_with_fcs",
	.build = b_fcs,
	.totals = TM_ROCE(1, COPY4(H_II) + SEND64 + 4, 1),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_A4, 0), .c = {C_SEND(SEND64)}}},
	.mirror_frames = ALL(1),
    },
    {
	.name = "erspan2_udp_length_past_ip",
	.build = b_udp_len_beyond,
	.totals = {[FP_CNT_FRAMES] = 1,
		   [FP_CNT_BYTES] = COPY4(H_II) + SEND64,
		   [FP_CNT_MALFORMED] = 1,
		   [FP_CNT_MIRRORED] = 1},
	.mirror_frames = ALL(1),
    },
    /* ---- truncated copies: the packet's bytes, whatever the copy kept */
    {
	.name = "trunc_t_bit_write_64",
	.build = b_trunc_write_64,
	.arg = &m_ii_t,
	.totals = TM_TRUNC(COPY4(H_II) + 64),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_A4, 0),
		   .c = {C_ONE(RC_WRITE_ONLY, WRITE1K)}}},
	.mirror_frames = ALL(1),
	.runs = RUN_TC_INGRESS | RUN_UNMODIFIED,
    },
    {
	/* No T bit: the IP length says the copy is short. */
	.name = "trunc_mtu_write_64",
	.build = b_trunc_write_64,
	.arg = &m_ii,
	.totals = TM_TRUNC(COPY4(H_II) + 64),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_A4, 0),
		   .c = {C_ONE(RC_WRITE_ONLY, WRITE1K)}}},
	.mirror_frames = ALL(1),
    },
    {
	.name = "trunc_mtu_write_64_erspan1",
	.build = b_trunc_write_64,
	.arg = &m_i,
	.totals = TM_TRUNC(COPY4(H_I) + 64),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_I, 0, SW_A4, 0),
		   .c = {C_ONE(RC_WRITE_ONLY, WRITE1K)}}},
	.mirror_frames = ALL(1),
    },
    {
	.name = "trunc_vxlan_128",
	.build = b_trunc_vxlan,
	.arg = (void *)128,
	.totals = {[FP_CNT_FRAMES] = 1,
		   [FP_CNT_BYTES] = COPY4(H_II) + 128,
		   [FP_CNT_ROCE] = 1,
		   [FP_CNT_VXLAN] = 1,
		   [FP_CNT_FLOW_NEW] = 1,
		   [FP_CNT_MIRRORED] = 1,
		   [FP_CNT_MIRROR_TRUNCATED] = 1},
	.n_flows = 1,
	.flows = {{.k = {.src = VTEP_A4,
			 .dst = VTEP_B4,
			 .sport = VX_SPORT,
			 .dport = VXLAN_PORT,
			 .vni = VNI,
			 .isrc = A4,
			 .idst = B4,
			 .isport = SPORT,
			 .idport = ROCE_PORT,
			 .qp = QP_A,
			 .flags = FP_FLOW_VXLAN,
			 .mirror = FP_MIRROR_ERSPAN_II,
			 .mirror_id = MID(FP_MIRROR_ERSPAN_II, SESSION),
			 .msrc = SW_A4},
		   .c = {C_ONE(RC_WRITE_ONLY, VXWRITE1K), .inner_ecn = {[FR_ECT1] = 1}}}},
	.mirror_frames = ALL(1),
	.runs = RUN_TC_INGRESS,
    },
    {
	/* Cut inside the inner IPv4 header: VXLAN seen, the rest not there. */
	.name = "trunc_vxlan_64",
	.build = b_trunc_vxlan,
	.arg = (void *)64,
	.totals = {[FP_CNT_FRAMES] = 1,
		   [FP_CNT_BYTES] = COPY4(H_II) + 64,
		   [FP_CNT_OTHER] = 1,
		   [FP_CNT_VXLAN] = 1,
		   [FP_CNT_MIRRORED] = 1,
		   [FP_CNT_MIRROR_TRUNCATED] = 1},
	.mirror_frames = ALL(1),
    },
    {
	.name = "trunc_ipv6_before_bth",
	.build = b_trunc_before_bth,
	.totals = {[FP_CNT_FRAMES] = 1,
		   [FP_CNT_BYTES] = COPY4(H_II) + 64,
		   [FP_CNT_OTHER] = 1,
		   [FP_CNT_MIRRORED] = 1,
		   [FP_CNT_MIRROR_TRUNCATED] = 1,
		   [FP_CNT_MIRROR_ROCE_CUT] = 1},
	.mirror_frames = ALL(1),
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "trunc_read_length_unknown_no_gap",
	.build = b_trunc_read,
	.totals = {[FP_CNT_FRAMES] = 2,
		   [FP_CNT_BYTES] = COPY4(H_II) + 64 + COPY4(H_II) + SEND64,
		   [FP_CNT_ROCE] = 2,
		   [FP_CNT_FLOW_NEW] = 1,
		   [FP_CNT_MIRRORED] = 2,
		   [FP_CNT_MIRROR_TRUNCATED] = 1},
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_A4, 0),
		   .c = {.packets = 2,
			 .bytes = L4(ROCE(S_RETH, 0)) + SEND64,
			 .ecn = {[FR_ECT0] = 2},
			 .opcodes = {OPB(RC_READ_REQ) | OPB(RC_SEND_ONLY)},
			 .dscp_mask = 1ULL << DSCP,
			 .dscp = DSCP,
			 .last_opcode = RC_SEND_ONLY,
			 .first_seen_ns = TS(0),
			 .last_seen_ns = TS(1)}}},
	.mirror_frames = ALL(2),
    },
    {
	.name = "trunc_ack_cut_in_aeth",
	.build = b_trunc_aeth,
	.totals = TM_TRUNC(COPY4(H_II) + FR_ETH_LEN + FR_IPV6_LEN + FR_UDP_LEN + S_BTH + 2),
	.n_flows = 1,
	.flows = {{.k = MKEY6(FP_MIRROR_ERSPAN_II, SESSION, SW_A4, 0),
		   .c = {C_ONE(RC_ACK, L6(ROCE(S_AETH, 0)))}}},
	.mirror_frames = ALL(1),
    },
    {
	.name = "trunc_ack_cut_in_icrc",
	.build = b_trunc_icrc,
	.totals = TM_TRUNC(COPY4(H_II) + ACK4 - 2),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_A4, 0),
		   .c = {C_ONE(RC_ACK, ACK4), .acks = 1}}},
	.mirror_frames = ALL(1),
    },
    {
	.name = "trunc_udp_length_past_ip",
	.build = b_trunc_udp_len,
	.totals = {[FP_CNT_FRAMES] = 1,
		   [FP_CNT_BYTES] = COPY4(H_II) + 128,
		   [FP_CNT_MALFORMED] = 1,
		   [FP_CNT_MIRRORED] = 1,
		   [FP_CNT_MIRROR_TRUNCATED] = 1},
	.mirror_frames = ALL(1),
    },
    {
	/* The capture kept the BTH and RETH: RoCE, the packet's bytes, not truncated. */
	.name = "snaplen_capture_keeps_bth",
	.build = b_snaplen,
	.arg = (void *)(COPY4(H_II) + 128),
	.totals = TM_ROCE(1, COPY4(H_II) + WRITE1K, 1),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_A4, 0),
		   .c = {C_ONE(RC_WRITE_ONLY, WRITE1K)}}},
	.mirror_frames = ALL(1),
    },
    {
	/*
	 * Cut by the capture inside the BTH: the copy was whole on the wire
	 * (not truncated), the capture kept too little of it to name a queue
	 * pair. Other, and counted as cut before the BTH; never malformed.
	 */
	.name = "snaplen_capture_cuts_bth",
	.build = b_snaplen,
	.arg = (void *)(COPY4(H_II) + FR_ETH_LEN + FR_IPV4_LEN + FR_UDP_LEN + 6),
	.totals = {[FP_CNT_FRAMES] = 1,
		   [FP_CNT_BYTES] = COPY4(H_II) + WRITE1K,
		   [FP_CNT_OTHER] = 1,
		   [FP_CNT_MIRRORED] = 1,
		   [FP_CNT_MIRROR_ROCE_CUT] = 1},
	.mirror_frames = ALL(1),
    },
    {
	/* The T bit is believed even when the copy is whole. */
	.name = "trunc_t_bit_whole_copy",
	.build = b_send,
	.arg = &m_ii_t,
	.totals = TM_TRUNC(COPY4(H_II) + SEND64),
	.n_flows = 1,
	.flows = {{.k = MKEY(FP_MIRROR_ERSPAN_II, SESSION, SW_A4, 0), .c = {C_SEND(SEND64)}}},
	.mirror_frames = ALL(1),
    },
};

#define N_FIXTURES (sizeof(fixtures) / sizeof(fixtures[0]))

/* ---- --mirror-port-drop ------------------------------------------------------ */

/*
 * The same fixture with mirror_drop: XDP drops exactly the mirror copies
 * (after counting them), tc passes everything and drops nothing.
 */
static void run_drop(const struct fixture *fx, enum fx_prog prog)
{
	struct fixture d = *fx;

	assert_int_equal(__builtin_popcount(fx->mirror_frames), fx->totals[FP_CNT_MIRRORED]);
	d.mirror_drop = true;
	if (prog == PROG_XDP)
		d.totals[FP_CNT_MIRROR_DROPPED] = d.totals[FP_CNT_MIRRORED];
	run_fixture(&d, prog);
}

static void test_drop_xdp(void **state)
{
	run_drop(*state, PROG_XDP);
}

static void test_drop_tc(void **state)
{
	run_drop(*state, PROG_TC_INGRESS);
}

/* ---- cut at every header boundary ------------------------------------------- */

/* What a cut copy is: other, malformed, RoCE, or too short for the kernel. */
enum cut_class { CUT_OTHER, CUT_MALFORMED, CUT_ROCE, CUT_REFUSED };

/*
 * Who cut the frame. COPY: the switch, which wrote the outer headers for
 * what it sent (the frame was that short on the wire). REFIT: every length
 * field rewritten to the cut frame, a short packet copied whole. SNAP: a
 * capture's snap length, the frame whole on the wire (its wire length the
 * uncut one): a header the capture cut is unseen, never malformed.
 */
enum cut_by { CUT_COPY, CUT_REFIT, CUT_SNAP };

struct cut_case {
	const char *name;
	void (*build)(struct fx *fx);
	enum fr_hdr at;
	__u32 plus; /* bytes of that header kept */
	enum cut_by by;
	enum cut_class class;
	unsigned int counted; /* CUT_MIRRORED, ... : the counters it moves besides */
};

#define CUT_MIRRORED 0x1
#define CUT_TRUNC    0x2
#define CUT_ROCE_CUT 0x4
#define CUT_VXLAN    0x8

/* ERSPAN II over IPv4: a tagged IPv4 WRITE ONLY (RETH) of 64 bytes. */
static void c_erspan2_write(struct fx *fx)
{
	struct frame *f = copy_of(fx, &m_ii);

	fr_eth(f, FP_ETH_P_8021Q);
	fr_vlan(f, 3, 100, FP_ETH_P_IP);
	fr_ipv4(f, &ip_a4);
	fr_udp(f, SPORT, ROCE_PORT);
	write_only(f, 64);
}

/* ERSPAN III over IPv6 with a GRE key and the O subheader: an IPv6 ACK. */
static void c_erspan3_ack6(struct fx *fx)
{
	struct frame *f = copy_of(fx, &m_iii_eg_o_v6);

	mirrored_v6(f);
	bth(f, RC_ACK, QP_A, 100);
	fr_aeth(f, SYN_ACK, 1);
	tail(f, 0);
}

/* GRE TEB with a checksum field: an ACK in VXLAN. */
static void c_teb_vxlan_ack(struct fx *fx)
{
	struct frame *f =
	    copy_of(fx, &(struct mirror_spec){.type = FP_MIRROR_GRE_TEB, .gre_flags = FR_GRE_C});

	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &(struct fr_ip){.src = VTEP_A4, .dst = VTEP_B4});
	fr_udp(f, VX_SPORT, VXLAN_PORT);
	fr_vxlan(f, FP_VXLAN_FLAG_I, VNI);
	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &ip_a4);
	fr_udp(f, SPORT, ROCE_PORT);
	bth(f, RC_ACK, QP_A, 5);
	fr_aeth(f, SYN_ACK, 1);
	tail(f, 0);
}

#define O   CUT_OTHER
#define M   CUT_MALFORMED
#define R   CUT_ROCE
#define MIR CUT_MIRRORED
/* Within the mirrored frame a cut copy is a truncated one: never malformed. */
#define TRUNC (CUT_MIRRORED | CUT_TRUNC)
static const struct cut_case cut_cases[] = {
    {"cut_e2_eth_13", c_erspan2_write, FR_H_ETH, 13, CUT_COPY, CUT_REFUSED, 0},
    {"cut_e2_at_ip", c_erspan2_write, FR_H_IP, 0, CUT_COPY, O, 0},
    {"cut_e2_in_ip_19", c_erspan2_write, FR_H_IP, 19, CUT_COPY, O, 0},
    {"cut_e2_at_gre", c_erspan2_write, FR_H_GRE, 0, CUT_COPY, O, 0},
    {"cut_e2_in_gre_3", c_erspan2_write, FR_H_GRE, 3, CUT_COPY, O, 0},
    {"cut_e2_gre_no_sequence", c_erspan2_write, FR_H_GRE, 4, CUT_COPY, M, 0},
    {"cut_e2_in_gre_sequence", c_erspan2_write, FR_H_GRE, 7, CUT_COPY, M, 0},
    {"cut_e2_at_erspan", c_erspan2_write, FR_H_ERSPAN, 0, CUT_COPY, M, 0},
    {"cut_e2_in_erspan_7", c_erspan2_write, FR_H_ERSPAN, 7, CUT_COPY, M, 0},
    {"cut_e2_at_mirrored_eth", c_erspan2_write, FR_H_M_ETH, 0, CUT_COPY, O, TRUNC},
    {"cut_e2_in_mirrored_eth", c_erspan2_write, FR_H_M_ETH, 13, CUT_COPY, O, TRUNC},
    {"cut_e2_in_mirrored_vlan", c_erspan2_write, FR_H_M_VLAN, 3, CUT_COPY, O, TRUNC},
    {"cut_e2_at_mirrored_ip", c_erspan2_write, FR_H_M_IP, 0, CUT_COPY, O, TRUNC},
    {"cut_e2_in_mirrored_ip", c_erspan2_write, FR_H_M_IP, 19, CUT_COPY, O, TRUNC},
    {"cut_e2_at_mirrored_udp", c_erspan2_write, FR_H_M_UDP, 0, CUT_COPY, O, TRUNC},
    {"cut_e2_in_mirrored_udp_3", c_erspan2_write, FR_H_M_UDP, 3, CUT_COPY, O, TRUNC},
    /* The RoCE port seen (bytes 2-3 of the UDP header): a RoCE packet the cut took. */
    {"cut_e2_in_mirrored_udp", c_erspan2_write, FR_H_M_UDP, 7, CUT_COPY, O, TRUNC | CUT_ROCE_CUT},
    {"cut_e2_at_bth", c_erspan2_write, FR_H_BTH, 0, CUT_COPY, O, TRUNC | CUT_ROCE_CUT},
    {"cut_e2_in_bth", c_erspan2_write, FR_H_BTH, 11, CUT_COPY, O, TRUNC | CUT_ROCE_CUT},
    {"cut_e2_at_reth", c_erspan2_write, FR_H_RETH, 0, CUT_COPY, R, TRUNC},
    {"cut_e2_in_reth", c_erspan2_write, FR_H_RETH, 15, CUT_COPY, R, TRUNC},
    {"cut_e2_at_payload", c_erspan2_write, FR_H_PAYLOAD, 0, CUT_COPY, R, TRUNC},
    {"cut_e2_in_icrc", c_erspan2_write, FR_H_ICRC, 3, CUT_COPY, R, TRUNC},
    /* Refit: a short packet copied whole, so a cut past the port is malformed. */
    {"cut_e2_at_mirrored_udp_refit", c_erspan2_write, FR_H_M_UDP, 0, CUT_REFIT, O, MIR},
    {"cut_e2_at_bth_refit", c_erspan2_write, FR_H_BTH, 0, CUT_REFIT, M, MIR},
    {"cut_e2_in_reth_refit", c_erspan2_write, FR_H_RETH, 8, CUT_REFIT, M, MIR},
    {"cut_e2_at_payload_refit", c_erspan2_write, FR_H_PAYLOAD, 0, CUT_REFIT, M, MIR},
    {"cut_e3_at_ip", c_erspan3_ack6, FR_H_IP, 0, CUT_COPY, O, 0},
    {"cut_e3_in_ip_39", c_erspan3_ack6, FR_H_IP, 39, CUT_COPY, O, 0},
    {"cut_e3_at_gre", c_erspan3_ack6, FR_H_GRE, 0, CUT_COPY, O, 0},
    {"cut_e3_gre_no_key", c_erspan3_ack6, FR_H_GRE, 4, CUT_COPY, M, 0},
    {"cut_e3_in_gre_key", c_erspan3_ack6, FR_H_GRE, 6, CUT_COPY, M, 0},
    {"cut_e3_gre_no_sequence", c_erspan3_ack6, FR_H_GRE, 8, CUT_COPY, M, 0},
    {"cut_e3_at_erspan", c_erspan3_ack6, FR_H_ERSPAN, 0, CUT_COPY, M, 0},
    {"cut_e3_in_erspan_8", c_erspan3_ack6, FR_H_ERSPAN, 8, CUT_COPY, M, 0},
    {"cut_e3_in_erspan_11", c_erspan3_ack6, FR_H_ERSPAN, 11, CUT_COPY, M, 0},
    {"cut_e3_no_subheader", c_erspan3_ack6, FR_H_ERSPAN, 12, CUT_COPY, M, 0},
    {"cut_e3_in_subheader", c_erspan3_ack6, FR_H_ERSPAN, 19, CUT_COPY, M, 0},
    {"cut_e3_at_mirrored_eth", c_erspan3_ack6, FR_H_M_ETH, 0, CUT_COPY, O, TRUNC},
    {"cut_e3_in_mirrored_ip_39", c_erspan3_ack6, FR_H_M_IP, 39, CUT_COPY, O, TRUNC},
    {"cut_e3_at_mirrored_udp", c_erspan3_ack6, FR_H_M_UDP, 0, CUT_COPY, O, TRUNC},
    {"cut_e3_at_bth", c_erspan3_ack6, FR_H_BTH, 0, CUT_COPY, O, TRUNC | CUT_ROCE_CUT},
    {"cut_e3_in_bth", c_erspan3_ack6, FR_H_BTH, 6, CUT_COPY, O, TRUNC | CUT_ROCE_CUT},
    {"cut_e3_at_aeth", c_erspan3_ack6, FR_H_AETH, 0, CUT_COPY, R, TRUNC},
    {"cut_e3_at_icrc", c_erspan3_ack6, FR_H_ICRC, 0, CUT_COPY, R, TRUNC},
    {"cut_e3_at_aeth_refit", c_erspan3_ack6, FR_H_AETH, 0, CUT_REFIT, M, MIR},
    {"cut_teb_at_gre", c_teb_vxlan_ack, FR_H_GRE, 0, CUT_COPY, O, 0},
    {"cut_teb_gre_no_checksum", c_teb_vxlan_ack, FR_H_GRE, 4, CUT_COPY, M, 0},
    {"cut_teb_at_mirrored_eth", c_teb_vxlan_ack, FR_H_M_ETH, 0, CUT_COPY, O, TRUNC},
    {"cut_teb_in_mirrored_udp", c_teb_vxlan_ack, FR_H_M_UDP, 4, CUT_COPY, O, TRUNC},
    {"cut_teb_at_vxlan", c_teb_vxlan_ack, FR_H_VXLAN, 0, CUT_COPY, O, TRUNC},
    {"cut_teb_in_vxlan", c_teb_vxlan_ack, FR_H_VXLAN, 7, CUT_COPY, O, TRUNC},
    {"cut_teb_at_inner_eth", c_teb_vxlan_ack, FR_H_IN_ETH, 0, CUT_COPY, O, TRUNC | CUT_VXLAN},
    {"cut_teb_in_inner_ip", c_teb_vxlan_ack, FR_H_IN_IP, 10, CUT_COPY, O, TRUNC | CUT_VXLAN},
    {"cut_teb_in_inner_udp", c_teb_vxlan_ack, FR_H_IN_UDP, 5, CUT_COPY, O,
     TRUNC | CUT_ROCE_CUT | CUT_VXLAN},
    {"cut_teb_at_bth", c_teb_vxlan_ack, FR_H_BTH, 0, CUT_COPY, O, TRUNC | CUT_ROCE_CUT | CUT_VXLAN},
    {"cut_teb_at_aeth", c_teb_vxlan_ack, FR_H_AETH, 0, CUT_COPY, R, TRUNC | CUT_VXLAN},
    {"cut_teb_at_vxlan_refit", c_teb_vxlan_ack, FR_H_VXLAN, 0, CUT_REFIT, M, MIR},
    {"cut_teb_at_inner_ip_refit", c_teb_vxlan_ack, FR_H_IN_IP, 0, CUT_REFIT, M, MIR | CUT_VXLAN},
    {"cut_teb_at_bth_refit", c_teb_vxlan_ack, FR_H_BTH, 0, CUT_REFIT, M, MIR | CUT_VXLAN},
    /*
     * The cuts in the GRE and ERSPAN headers above (malformed: the copy was
     * sent that short), made by a capture of a copy whole on the wire: not
     * malformed, and no copy decoded (docs/json.md, "malformed").
     */
    {"snap_e2_in_gre_3", c_erspan2_write, FR_H_GRE, 3, CUT_SNAP, O, 0},
    {"snap_e2_gre_no_sequence", c_erspan2_write, FR_H_GRE, 4, CUT_SNAP, O, 0},
    {"snap_e2_in_gre_sequence", c_erspan2_write, FR_H_GRE, 7, CUT_SNAP, O, 0},
    {"snap_e2_at_erspan", c_erspan2_write, FR_H_ERSPAN, 0, CUT_SNAP, O, 0},
    {"snap_e2_in_erspan_7", c_erspan2_write, FR_H_ERSPAN, 7, CUT_SNAP, O, 0},
    {"snap_e3_gre_no_key", c_erspan3_ack6, FR_H_GRE, 4, CUT_SNAP, O, 0},
    {"snap_e3_in_gre_key", c_erspan3_ack6, FR_H_GRE, 6, CUT_SNAP, O, 0},
    {"snap_e3_gre_no_sequence", c_erspan3_ack6, FR_H_GRE, 8, CUT_SNAP, O, 0},
    {"snap_e3_at_erspan", c_erspan3_ack6, FR_H_ERSPAN, 0, CUT_SNAP, O, 0},
    {"snap_e3_in_erspan_8", c_erspan3_ack6, FR_H_ERSPAN, 8, CUT_SNAP, O, 0},
    {"snap_e3_in_erspan_11", c_erspan3_ack6, FR_H_ERSPAN, 11, CUT_SNAP, O, 0},
    {"snap_e3_no_subheader", c_erspan3_ack6, FR_H_ERSPAN, 12, CUT_SNAP, O, 0},
    {"snap_e3_in_subheader", c_erspan3_ack6, FR_H_ERSPAN, 19, CUT_SNAP, O, 0},
    {"snap_teb_gre_no_checksum", c_teb_vxlan_ack, FR_H_GRE, 4, CUT_SNAP, O, 0},
    /* Past the mirror header: a copy, not truncated, cut where the capture cut it. */
    {"snap_e2_at_bth", c_erspan2_write, FR_H_BTH, 0, CUT_SNAP, O, MIR | CUT_ROCE_CUT},
    {"snap_e2_in_mirrored_udp_4", c_erspan2_write, FR_H_M_UDP, 4, CUT_SNAP, O, MIR | CUT_ROCE_CUT},
    {"snap_e2_in_reth", c_erspan2_write, FR_H_RETH, 15, CUT_SNAP, R, MIR},
    {"snap_e3_at_aeth", c_erspan3_ack6, FR_H_AETH, 0, CUT_SNAP, R, MIR},
    {"snap_teb_in_vxlan", c_teb_vxlan_ack, FR_H_VXLAN, 7, CUT_SNAP, O, MIR},
    {"snap_teb_in_inner_ip", c_teb_vxlan_ack, FR_H_IN_IP, 10, CUT_SNAP, O, MIR | CUT_VXLAN},
};
#undef O
#undef M
#undef R
#undef TRUNC
#undef MIR

#define N_CUTS (sizeof(cut_cases) / sizeof(cut_cases[0]))

/*
 * Build a cut case's frame: cut as cc->by says, its wire length the cut
 * frame's but for a capture's cut. *packet_len: the mirrored packet's
 * length before the cut.
 */
static struct frame *cut_frame(const struct cut_case *cc, __u32 *packet_len)
{
	struct frame *f;
	__u32 len;

	build(&g_fx, cc->build, NULL);
	f = &g_fx.frames[0];
	len = fr_off(f, cc->at) + cc->plus;
	if (packet_len)
		*packet_len = f->len - fr_off(f, FR_H_M_ETH);
	if (cc->by == CUT_SNAP) {
		f->wire_len = f->len;
		fr_cut(f, len);
	} else if (f->off[FR_H_M_ETH] >= 0 && (__u32)f->off[FR_H_M_ETH] < len) {
		truncate_copy(f, len - fr_off(f, FR_H_M_ETH));
	} else {
		fr_cut(f, len);
		fr_finish(f);
	}
	if (cc->by == CUT_REFIT)
		fr_finish(f);
	return f;
}

static void test_cut(void **state)
{
	const struct cut_case *cc = *state;
	__u64 want[FP_CNT_MAX] = {0};
	__u32 packet_len;
	struct frame *f;
	int err;

	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
	f = cut_frame(cc, &packet_len);
	err = probe_run_frame(&g_probe, f->data, f->len, fr_wire_len(f), TS(0), FX_PATH);
	if (cc->class == CUT_REFUSED) {
		/* BPF_PROG_TEST_RUN wants at least an Ethernet header. */
		assert_int_equal(err, -EINVAL);
	} else {
		assert_int_equal(err, 0);
		want[FP_CNT_FRAMES] = 1;
		want[FP_CNT_BYTES] = fr_wire_len(f);
		want[cc->class == CUT_OTHER  ? FP_CNT_OTHER
		     : cc->class == CUT_ROCE ? FP_CNT_ROCE
					     : FP_CNT_MALFORMED] = 1;
		want[FP_CNT_FLOW_NEW] = cc->class == CUT_ROCE;
		want[FP_CNT_MIRRORED] = !!(cc->counted & CUT_MIRRORED);
		want[FP_CNT_MIRROR_TRUNCATED] = !!(cc->counted & CUT_TRUNC);
		want[FP_CNT_MIRROR_ROCE_CUT] = !!(cc->counted & CUT_ROCE_CUT);
		want[FP_CNT_VXLAN] = !!(cc->counted & CUT_VXLAN);
	}
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	check_totals(&g_snap, want);
	assert_int_equal(g_snap.n_flows, cc->class == CUT_ROCE);
	/* The packet's bytes, not the copy's. */
	if (cc->class == CUT_ROCE)
		assert_int_equal(g_snap.flows[0].c.bytes, packet_len);
}

/* ---- main -------------------------------------------------------------------- */

/* Every frame above, for the tshark comparison. */
static int dump(const char *dir)
{
	size_t max = N_FIXTURES * FX_MAX_FRAMES + N_CUTS, n = 0;
	struct frame *all = calloc(max, sizeof(*all));
	const char **labels = calloc(max, sizeof(*labels));
	int err;

	if (!all || !labels)
		return 1;
	for (size_t i = 0; i < N_FIXTURES; i++) {
		build(&g_fx, fixtures[i].build, fixtures[i].arg);
		for (int j = 0; j < g_fx.n; j++) {
			labels[n] = fixtures[i].name;
			all[n++] = g_fx.frames[j];
		}
	}
	for (size_t i = 0; i < N_CUTS; i++) {
		if (cut_cases[i].class == CUT_REFUSED)
			continue;
		labels[n] = cut_cases[i].name;
		all[n++] = *cut_frame(&cut_cases[i], NULL);
	}
	err = fx_dump_frames(dir, "mirror", all, labels, n);
	free(all);
	free(labels);
	free(g_fx.frames);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--dump"))
		return dump(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "--replay"))
		return fx_replay_totals(argc - 2, argv + 2) ? 1 : 0;
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--dump DIR | --replay CAPTURE...]\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < N_FIXTURES; i++) {
		const struct fixture *fx = &fixtures[i];

		fx_add("xdp/", fx->name, test_xdp, fx);
		fx_add("replay/", fx->name, test_replay, fx);
		fx_add("replay_threads/", fx->name, test_replay_threads, fx);
		if (fx->runs & RUN_TC_INGRESS)
			fx_add("tc_ingress/", fx->name, test_tc_ingress, fx);
		if (fx->runs & RUN_TC_EGRESS)
			fx_add("tc_egress/", fx->name, test_tc_egress, fx);
		if (fx->runs & RUN_UNMODIFIED)
			fx_add("unmodified/", fx->name, test_unmodified, fx);
		fx_add("drop_xdp/", fx->name, test_drop_xdp, fx);
		if (fx->runs & RUN_TC_INGRESS)
			fx_add("drop_tc/", fx->name, test_drop_tc, fx);
	}
	for (size_t i = 0; i < N_CUTS; i++)
		fx_add("", cut_cases[i].name, test_cut, &cut_cases[i]);
	return fx_run_all("test_mirror");
}
