// SPDX-License-Identifier: GPL-2.0
/*
 * test_parser - the BPF parser and accounting, run over table-driven frame
 * fixtures with BPF_PROG_TEST_RUN through the probe's own loader
 * (probe_load, probe_run_frame) and collector (collect_snapshot), with the
 * harness in tests/lib/fixture.c. Every test starts from empty maps, so the
 * expected map contents are exact.
 *
 * Expectations come from the specs (IBTA Vol 1 ch. 9 and Annex A17 for
 * RoCEv2, RFC 7348 for VXLAN, RFC 3168 for ECN, RFC 8200 for IPv6), with
 * byte counts written as sums of the header sizes those specs define.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fabprobe.skel.h"
#include "fixture.h"
#include "probe/par.h"
#include "probe/runpool.h"
#include "probe/table_read.h"
#include "source/shard.h"

/* The bare IPv4 flow most fixtures use, and its reverse direction. */
#define KEY_V4                                                                                     \
	{                                                                                          \
		.src = A4, .dst = B4, .sport = SPORT, .dport = ROCE_PORT, .qp = QP_A               \
	}
#define KEY_V4_REV                                                                                 \
	{                                                                                          \
		.src = B4, .dst = A4, .sport = SPORT_B, .dport = ROCE_PORT, .qp = QP_B             \
	}

/* ---- frame builders ---------------------------------------------------- */

static const struct fr_ip ip_a4 = {
    .src = A4, .dst = B4, .dscp = DSCP, .ecn = FR_ECT0, .frag = FR_IP_DF};
static const struct fr_ip ip_b4 = {
    .src = B4, .dst = A4, .dscp = DSCP, .ecn = FR_ECT0, .frag = FR_IP_DF};
static const struct fr_ip ip_a6 = {.src = A6, .dst = B6, .dscp = DSCP, .ecn = FR_ECT0};

/* Ethernet + IPv4 A4 -> B4 (DSCP 26, ECT(0), DF) + UDP to the RoCE port. */
static struct frame *v4(struct fx *fx)
{
	struct frame *f = fx_frame(fx);

	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &ip_a4);
	fr_udp(f, SPORT, ROCE_PORT);
	return f;
}

/* The responder's direction: B4 -> A4, towards the requester's QP_B. */
static struct frame *v4_rev(struct fx *fx)
{
	struct frame *f = fx_frame(fx);

	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &ip_b4);
	fr_udp(f, SPORT_B, ROCE_PORT);
	return f;
}

static void poke16(struct frame *f, __u32 off, __u16 v)
{
	f->data[off] = v >> 8;
	f->data[off + 1] = v;
}

/*
 * The first fragment of a datagram whose UDP length counts the bytes still
 * to come in the later fragments (1480 of them).
 */
static void first_fragment_udp_len(struct frame *f)
{
	__u32 udp = fr_off(f, FR_H_UDP);

	poke16(f, udp + 4, f->len - udp + 1480);
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

static void ack(struct fx *fx, __u8 syndrome, __u32 psn)
{
	struct frame *f = v4_rev(fx);

	bth(f, RC_ACK, QP_B, psn);
	fr_aeth(f, syndrome, 1);
	tail(f, 0);
}

static void b_send_only(struct fx *fx)
{
	send_only(v4(fx), 100);
}

static void b_send_sequence(struct fx *fx)
{
	struct frame *f;

	f = v4(fx);
	bth(f, RC_SEND_FIRST, QP_A, 100);
	tail(f, 1024);
	f = v4(fx);
	bth(f, RC_SEND_MIDDLE, QP_A, 101);
	tail(f, 1024);
	f = v4(fx);
	bth(f, RC_SEND_LAST, QP_A, 102);
	tail(f, 100);
}

static void tagged(struct fx *fx, __u16 tpid1, __u8 pcp1, __u16 vid1, __u16 tpid2, __u8 pcp2,
		   __u16 vid2)
{
	struct frame *f = fx_frame(fx);

	fr_eth(f, tpid1);
	fr_vlan(f, pcp1, vid1, tpid2 ? tpid2 : FP_ETH_P_IP);
	if (tpid2)
		fr_vlan(f, pcp2, vid2, FP_ETH_P_IP);
	fr_ipv4(f, &ip_a4);
	fr_udp(f, SPORT, ROCE_PORT);
	send_only(f, 100);
}

static void b_vlan_one(struct fx *fx)
{
	tagged(fx, FP_ETH_P_8021Q, 3, 100, 0, 0, 0);
}

static void b_vlan_priority(struct fx *fx)
{
	tagged(fx, FP_ETH_P_8021Q, 5, 0, 0, 0, 0);
}

static void b_qinq_ad(struct fx *fx)
{
	tagged(fx, FP_ETH_P_8021AD, 5, 200, FP_ETH_P_8021Q, 3, 100);
}

static void b_qinq_qq(struct fx *fx)
{
	tagged(fx, FP_ETH_P_8021Q, 6, 4094, FP_ETH_P_8021Q, 1, 2);
}

/* IPv6 with the given extension headers in RFC 8200 4.1 order. */
enum {
	EXT_HBH = 1,
	EXT_DST = 2,
	EXT_RT = 4,
	EXT_FRAG = 8,
	EXT_FRAG_LATER = 16,
	EXT_FRAG_MORE = 32
};

static void v6_with(struct fx *fx, unsigned int ext)
{
	static const __u8 order[] = {EXT_HBH, EXT_DST, EXT_RT, EXT_FRAG};
	static const __u8 proto[] = {FP_IPPROTO_HOPOPTS, FP_IPPROTO_DSTOPTS, FP_IPPROTO_ROUTING,
				     FP_IPPROTO_FRAGMENT};
	struct frame *f = fx_frame(fx);
	__u8 next[5];
	int n = 0;

	for (int i = 0; i < 4; i++)
		if (ext & order[i])
			next[n++] = proto[i];
	next[n] = FP_IPPROTO_UDP;
	fr_eth(f, FP_ETH_P_IPV6);
	fr_ipv6(f, &ip_a6, next[0]);
	for (int i = 0; i < n; i++) {
		switch (next[i]) {
		case FP_IPPROTO_HOPOPTS:
			fr_ipv6_opts(f, next[i + 1], 8);
			break;
		case FP_IPPROTO_DSTOPTS:
			fr_ipv6_opts(f, next[i + 1], 16);
			break;
		case FP_IPPROTO_ROUTING:
			fr_ipv6_routing(f, next[i + 1], 2);
			break;
		case FP_IPPROTO_FRAGMENT:
			fr_ipv6_frag(f, next[i + 1], ext & EXT_FRAG_LATER ? 185 : 0,
				     ext & EXT_FRAG_MORE, 0xFAB);
			break;
		}
	}
	fr_udp(f, SPORT, ROCE_PORT);
	send_only(f, 100);
}

static void b_v6(struct fx *fx)
{
	v6_with(fx, 0);
}

static void b_v6_hbh(struct fx *fx)
{
	v6_with(fx, EXT_HBH);
}

static void b_v6_dst(struct fx *fx)
{
	v6_with(fx, EXT_DST);
}

static void b_v6_rt(struct fx *fx)
{
	v6_with(fx, EXT_RT);
}

static void b_v6_atomic_frag(struct fx *fx)
{
	v6_with(fx, EXT_FRAG);
}

static void b_v6_all_ext(struct fx *fx)
{
	v6_with(fx, EXT_HBH | EXT_DST | EXT_RT | EXT_FRAG);
}

/* An authentication header (RFC 4302, 24 bytes with a 96-bit ICV) before UDP. */
static void b_v6_ah(struct fx *fx)
{
	static const __u8 ah[24] = {FP_IPPROTO_UDP, 24 / 4 - 2, 0, 0, 0, 0, 0x10, 0x01, 0, 0, 0, 7};
	struct frame *f = fx_frame(fx);

	fr_eth(f, FP_ETH_P_IPV6);
	fr_ipv6(f, &ip_a6, FP_IPPROTO_AH);
	fr_bytes(f, ah, sizeof(ah));
	fr_udp(f, SPORT, ROCE_PORT);
	send_only(f, 100);
}

static void b_v6_frag_first(struct fx *fx)
{
	v6_with(fx, EXT_FRAG | EXT_FRAG_MORE);
	first_fragment_udp_len(&fx->frames[0]);
}

static void b_v6_frag_later(struct fx *fx)
{
	v6_with(fx, EXT_FRAG | EXT_FRAG_LATER | EXT_FRAG_MORE);
}

static void v4_with(struct fx *fx, const struct fr_ip *ip)
{
	struct frame *f = fx_frame(fx);

	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, ip);
	fr_udp(f, SPORT, ROCE_PORT);
	send_only(f, 100);
}

static void b_v4_opts4(struct fx *fx)
{
	struct fr_ip ip = ip_a4;

	ip.opt_len = 4;
	v4_with(fx, &ip);
}

static void b_v4_opts40(struct fx *fx)
{
	struct fr_ip ip = ip_a4;

	ip.opt_len = 40;
	v4_with(fx, &ip);
}

static void b_v4_ihl4(struct fx *fx)
{
	struct fr_ip ip = ip_a4;

	ip.ihl = 4;
	v4_with(fx, &ip);
}

static void b_v4_frag_first(struct fx *fx)
{
	struct fr_ip ip = ip_a4;

	ip.frag = FR_IP_MF;
	v4_with(fx, &ip);
	first_fragment_udp_len(&fx->frames[0]);
}

/*
 * A middle fragment whose first bytes happen to read as a UDP header to
 * port 4791 and a BTH: fragment offset 185 (1480 bytes in).
 */
static void b_v4_frag_later(struct fx *fx)
{
	struct fr_ip ip = ip_a4;

	ip.frag = FR_IP_MF | 185;
	v4_with(fx, &ip);
}

static void b_v4_frag_last(struct fx *fx)
{
	struct fr_ip ip = ip_a4;

	ip.frag = 185;
	v4_with(fx, &ip);
}

/* VXLAN: outer and inner families, VXLAN flags and what the inner frame holds. */
struct vx_spec {
	bool outer6;
	bool inner6;
	__u8 flags;
	__u8 outer_ecn;
	__u8 inner_ecn;
	__u16 inner_type; /* 0: IP of the inner family */
	__u8 inner_proto; /* 0: UDP */
	__u16 inner_dport;
	__u16 vxlan_port;
};

static struct frame *vxlan(struct fx *fx, const struct vx_spec *vx)
{
	struct fr_ip outer = {.dscp = DSCP, .ecn = vx->outer_ecn};
	struct fr_ip inner = {.dscp = 10, .ecn = vx->inner_ecn};
	struct frame *f = fx_frame(fx);
	__u16 type;

	outer.src = vx->outer6 ? VTEP_A6 : VTEP_A4;
	outer.dst = vx->outer6 ? VTEP_B6 : VTEP_B4;
	inner.src = vx->inner6 ? A6 : A4;
	inner.dst = vx->inner6 ? B6 : B4;
	inner.proto = vx->inner_proto;
	if (vx->outer6) {
		fr_eth(f, FP_ETH_P_IPV6);
		fr_ipv6(f, &outer, FP_IPPROTO_UDP);
	} else {
		fr_eth(f, FP_ETH_P_IP);
		fr_ipv4(f, &outer);
	}
	fr_udp(f, VX_SPORT, vx->vxlan_port ? vx->vxlan_port : VXLAN_PORT);
	fr_vxlan(f, vx->flags ? vx->flags : FP_VXLAN_FLAG_I, VNI);
	type = vx->inner_type ? vx->inner_type : vx->inner6 ? FP_ETH_P_IPV6 : FP_ETH_P_IP;
	fr_eth(f, type);
	if (type == FP_ETH_P_IPV6)
		fr_ipv6(f, &inner, vx->inner_proto ? vx->inner_proto : FP_IPPROTO_UDP);
	else if (type == FP_ETH_P_IP)
		fr_ipv4(f, &inner);
	else
		return f; /* not IP: the caller adds what it carries */
	if (vx->inner_proto && vx->inner_proto != FP_IPPROTO_UDP)
		return f;
	fr_udp(f, SPORT, vx->inner_dport ? vx->inner_dport : ROCE_PORT);
	return f;
}

static void b_vxlan(struct fx *fx)
{
	const struct vx_spec *vx = fx->arg;
	struct frame *f = vxlan(fx, vx);

	if (vx->inner_proto || vx->inner_type || vx->inner_dport) {
		fr_payload(f, 28);
		fr_finish(f);
		return;
	}
	send_only(f, 100);
}

static const struct vx_spec vx_44 = {.outer_ecn = FR_ECT0, .inner_ecn = FR_ECT0};
static const struct vx_spec vx_46 = {.inner6 = true, .outer_ecn = FR_ECT0, .inner_ecn = FR_ECT0};
static const struct vx_spec vx_64 = {.outer6 = true, .outer_ecn = FR_ECT0, .inner_ecn = FR_ECT0};
static const struct vx_spec vx_66 = {
    .outer6 = true, .inner6 = true, .outer_ecn = FR_ECT0, .inner_ecn = FR_ECT0};
static const struct vx_spec vx_rsvd = {.flags = 0xFF, .outer_ecn = FR_ECT0, .inner_ecn = FR_ECT0};
static const struct vx_spec vx_no_i = {.flags = 0x80, .outer_ecn = FR_ECT0, .inner_ecn = FR_ECT0};
static const struct vx_spec vx_dns = {.inner_dport = 53};
static const struct vx_spec vx_arp = {.inner_type = 0x0806};
static const struct vx_spec vx_tcp = {.inner_proto = 6};
static const struct vx_spec vx_port8472 = {
    .outer_ecn = FR_ECT0, .inner_ecn = FR_ECT0, .vxlan_port = 8472};

/* The inner IPv4 header claims IHL 4 past the VXLAN port. */
static void b_vxlan_inner_ihl4(struct fx *fx)
{
	struct frame *f = vxlan(fx, &vx_44);

	send_only(f, 100);
	f->data[fr_off(f, FR_H_IN_IP)] = 0x44;
}

/* Outer (inner) ECN: CE (ECT(0)), ECT(1) (CE), Not-ECT (Not-ECT), ECT(0) (ECT(1)). */
static void b_vxlan_ecn(struct fx *fx)
{
	static const __u8 ecn[4][2] = {
	    {FR_CE, FR_ECT0}, {FR_ECT1, FR_CE}, {FR_NOT_ECT, FR_NOT_ECT}, {FR_ECT0, FR_ECT1}};

	for (int i = 0; i < 4; i++) {
		struct vx_spec vx = {.outer_ecn = ecn[i][0], .inner_ecn = ecn[i][1]};

		send_only(vxlan(fx, &vx), 100 + i);
	}
}

static void b_ecn_all(struct fx *fx)
{
	for (int i = 0; i < 4; i++) {
		struct fr_ip ip = ip_a4;

		ip.ecn = i;
		v4_with(fx, &ip);
	}
	/* v4_with() gives every frame PSN 100: make them in order. */
	for (int i = 0; i < 4; i++)
		fx->frames[i].data[fr_off(&fx->frames[i], FR_H_BTH) + 11] = 100 + i;
}

static void b_dscp_change(struct fx *fx)
{
	static const __u8 dscp[] = {26, 46, 0};

	for (int i = 0; i < 3; i++) {
		struct fr_ip ip = ip_a4;
		struct frame *f = fx_frame(fx);

		ip.dscp = dscp[i];
		fr_eth(f, FP_ETH_P_IP);
		fr_ipv4(f, &ip);
		fr_udp(f, SPORT, ROCE_PORT);
		send_only(f, 100 + i);
	}
}

static void b_acks(struct fx *fx)
{
	ack(fx, SYN_ACK, 100);
	ack(fx, 0x00, 101); /* ACK with credit count 0 */
}

static void b_naks(struct fx *fx)
{
	ack(fx, SYN_NAK_PSN, 100);
	ack(fx, SYN_NAK_INVREQ, 100);
	ack(fx, SYN_NAK_ACCESS, 100);
	ack(fx, SYN_NAK_OPER, 100);
	ack(fx, SYN_NAK_INVRDRQ, 100);
}

static void b_nak_access(struct fx *fx)
{
	ack(fx, SYN_NAK_ACCESS, 100);
}

static void b_rnr(struct fx *fx)
{
	ack(fx, SYN_RNR(0x0E), 100);
	ack(fx, SYN_RNR(0x1F), 100);
	ack(fx, SYN_RNR(0x00), 100);
}

/* Syndrome class 0b10 is reserved (IBTA Table 43): no ACK, NAK or RNR. */
static void b_aeth_reserved(struct fx *fx)
{
	ack(fx, 0x40, 100);
}

/* The requester's PSNs, one SEND_ONLY each; fx->arg ends with ~0U. */
static void b_psns(struct fx *fx)
{
	for (const __u32 *psn = fx->arg; *psn != ~0U; psn++)
		send_only(v4(fx), *psn);
}

static const __u32 psn_wrap[] = {0xFFFFFE, 0xFFFFFF, 0, 1, ~0U};
static const __u32 psn_gap[] = {10, 11, 15, 16, ~0U};
static const __u32 psn_dup[] = {10, 11, 11, 12, ~0U};
static const __u32 psn_gap_wrap[] = {0xFFFFFE, 1, 2, ~0U};
static const __u32 psn_old_wrap[] = {0xFFFFFF, 0, 0xFFFFFF, 1, ~0U};

/* Requester sends 10..14, responder NAKs PSN 12 (sequence error), go-back-N. */
static void b_go_back_n(struct fx *fx)
{
	for (__u32 psn = 10; psn <= 14; psn++)
		send_only(v4(fx), psn);
	ack(fx, SYN_NAK_PSN, 12);
	for (__u32 psn = 12; psn <= 15; psn++)
		send_only(v4(fx), psn);
}

/* READ of dma_len at psn, then a SEND at next_psn. */
struct read_spec {
	__u32 psn;
	__u32 dma_len;
	__u32 next_psn;
};

static void b_read_then_send(struct fx *fx)
{
	const struct read_spec *rs = fx->arg;
	struct frame *f = v4(fx);

	bth(f, RC_READ_REQ, QP_A, rs->psn);
	fr_reth(f, 0x7F0000001000ULL, 0x1234, rs->dma_len);
	tail(f, 0);
	send_only(v4(fx), rs->next_psn);
}

/* PMTU 1024: a READ of N bytes takes ceil(N / 1024) response PSNs. */
static const struct read_spec read_4096 = {.psn = 100, .dma_len = 4096, .next_psn = 104};
static const struct read_spec read_4097 = {.psn = 100, .dma_len = 4097, .next_psn = 105};
static const struct read_spec read_zero = {.psn = 100, .dma_len = 0, .next_psn = 101};
static const struct read_spec read_wrap = {.psn = 0xFFFFFE, .dma_len = 4096, .next_psn = 2};
/* Far beyond anything a READ of 4096 bytes could reserve at any PMTU. */
static const struct read_spec read_gap = {.psn = 100, .dma_len = 4096, .next_psn = 200};
/* Past IBTA's 2^31: no length (as unknown), where ceil(len / 256) wrapped to 0 PSNs. */
static const struct read_spec read_huge = {.psn = 100, .dma_len = 0xFFFFFFFF, .next_psn = 200};

/* One READ request: its PSN, and the RETH's VA (from READ_VA) and DMA length. */
struct read_req {
	__u32 psn;
	__u64 va_off;
	__u32 dma_len;
};

#define READ_VA	  0x7F00DEAD0000ULL
#define READ_RKEY 0x1234
#define READS_END                                                                                  \
	{                                                                                          \
		.dma_len = ~0U                                                                     \
	}

/* The requester's READ requests, fx->arg's until READS_END. */
static void b_reads(struct fx *fx)
{
	for (const struct read_req *r = fx->arg; r->dma_len != ~0U; r++) {
		struct frame *f = v4(fx);

		bth(f, RC_READ_REQ, QP_A, r->psn);
		fr_reth(f, READ_VA + r->va_off, READ_RKEY, r->dma_len);
		tail(f, 0);
	}
}

/*
 * READ retry (IBTA Vol 1 9.7: a retried READ re-reads a part of the
 * original that was not answered, with the same PSNs for the same bytes;
 * rxe's req_retry(), the lab's rocegen): the requester re-issues a READ
 * from the PSN of its first missing response, the VA and length moved past
 * the responses that arrived. PMTU 1024: a
 * READ of 4096 bytes at 100 takes 100-103; its responses from 102 lost, it
 * is re-issued at 102 (the last 2048 bytes), then at 103 (the last 1024).
 * Then two new READs: the next 4096 bytes at 104, the same again at 108.
 */
static const struct read_req reads_reissued[] = {
    {100, 0, 4096},    {102, 2048, 2048}, {103, 3072, 1024},
    {104, 4096, 4096}, {108, 4096, 4096}, READS_END,
};
/* PMTU 4096, across the PSN wrap: 16384 bytes at 0xFFFFFE take 0xFFFFFE-1; re-issued at 0. */
static const struct read_req reads_reissued_wrap[] = {
    {0xFFFFFE, 0, 16384}, {0, 8192, 8192}, {2, 16384, 16384}, READS_END};
/*
 * PMTU 4096, 32 MiB at 1000 (8192 PSNs), re-issued 5000 PSNs (20 MB) on:
 * psn_track keeps VA bits 0-29 (1 GiB), read_va_lo bits 0-15 and
 * read_va_hi the rest, so an offset this far needs both, and matches.
 */
static const struct read_req reads_reissued_far[] = {{1000, 0, 32 << 20},
						     {6000, 5000 << 12, (32 << 20) - (5000 << 12)},
						     {9192, 32 << 20, 4096},
						     READS_END};
/*
 * A retry starts a whole number of PMTUs on, so VA bits 0-7 equal the
 * original's. 600 bytes at 100 (PSNs 100-102 at a 256-byte PMTU), then a
 * new READ of 100 bytes at 101, 600 bytes on: in the 256-byte unit two
 * PMTUs of 256 on would start in, and ending inside the original's 768
 * rounded-up bytes, but 0x58 bytes into it, so no retry. Then a READ of
 * 4096 bytes at 0x1058 re-issued 2 PSNs (2048 bytes, PMTU 1024) on: bits
 * 0-7 not 0, equal, a retry.
 */
static const struct read_req reads_va_low_bits[] = {
    {100, 0, 600}, {101, 600, 100}, {102, 0x1058, 4096}, {104, 0x1058 + 2048, 2048}, READS_END,
};
/*
 * New READs that land inside the PSNs the last one could reserve at a
 * 256-byte PMTU (PMTU here 1024) and are no retries: a buffer read in
 * PMTU-sized pieces one after the other (the next VA is k PMTUs on, but
 * the length does not fit in what is left), and perftest's read_bw, which
 * reads one buffer again and again (rdma_read_bw.pcap: VA unchanged).
 */
static const struct read_req reads_in_order[] = {
    {100, 0, 2048},    {102, 2048, 2048}, {104, 4096, 1024}, {105, 5120, 3000},
    {108, 5120, 3000}, {111, 5120, 3000}, READS_END,
};

/* A READ response of 64 bytes on the responder's direction; FIRST, LAST and ONLY carry an AETH. */
static void read_resp(struct fx *fx, __u8 opcode, __u32 psn)
{
	struct frame *f = v4_rev(fx);

	bth(f, opcode, QP_B, psn);
	if (opcode != RC_READ_RESP_MIDDLE)
		fr_aeth(f, SYN_ACK, 1);
	tail(f, 64);
}

/* The responses to a READ at psn of n packets: FIRST, MIDDLE..., LAST, or ONLY. */
static void read_resps(struct fx *fx, __u32 psn, __u32 n)
{
	__u8 op;

	for (__u32 i = 0; i < n; i++) {
		if (n == 1)
			op = RC_READ_RESP_ONLY;
		else
			op = i == 0	  ? RC_READ_RESP_FIRST
			     : i == n - 1 ? RC_READ_RESP_LAST
					  : RC_READ_RESP_MIDDLE;
		read_resp(fx, op, psn + i);
	}
}

/*
 * A responder answers a duplicate READ again, from its PSN: the READ
 * at 100 (4096 bytes, 100-103) answered, then its re-issue from 102
 * answered (102-103, sent again), then the next READ's (104-107).
 */
static void b_read_resps_resent(struct fx *fx)
{
	read_resps(fx, 100, 4);
	read_resps(fx, 102, 2);
	read_resps(fx, 104, 4);
}

/*
 * READ responses among the ACKs and NAKs of the same direction, which
 * carry the same (the requester's) PSNs. A NAK's PSN is the one expected
 * next, so the response at 202 after it is no resend; an ACK's is one
 * answered, so a response after ACKs that went more than 2^23 on (a QP
 * writing between two READs) is no resend either. The response at 202
 * sent again is one.
 */
static void b_read_resps_acks(struct fx *fx)
{
	read_resps(fx, 100, 1);
	ack(fx, SYN_ACK, 200);
	read_resps(fx, 201, 1);
	ack(fx, SYN_NAK_PSN, 202);
	read_resps(fx, 202, 1);
	ack(fx, SYN_ACK, 150);
	read_resps(fx, 202, 1);
	ack(fx, SYN_ACK, 202 + 0x600000);
	ack(fx, SYN_ACK, 202 + 0xC00000);
	read_resps(fx, 203 + 0xC00000, 1);
}

/*
 * One QP's two PSN spaces on one flow: B's own requests (SENDs from 5000)
 * and B's READ responses to A's requests (from 100). Neither resends.
 */
static void b_read_resps_beside_requests(struct fx *fx)
{
	for (__u32 i = 0; i < 3; i++) {
		struct frame *f = v4_rev(fx);

		bth(f, RC_SEND_ONLY, QP_B, 5000 + i);
		tail(f, 64);
		read_resps(fx, 100 + 2 * i, 2);
	}
}

static void b_fecn_becn(struct fx *fx)
{
	static const bool fb[3][2] = {{true, false}, {false, true}, {true, true}};

	for (int i = 0; i < 3; i++) {
		struct frame *f = v4(fx);

		fr_bth(f, &(struct fr_bth){.opcode = RC_SEND_ONLY,
					   .dest_qp = QP_A,
					   .psn = 100 + i,
					   .fecn = fb[i][0],
					   .becn = fb[i][1]});
		tail(f, 64);
	}
}

/* Annex A17.9.3: BTH with opcode 0x81, 16 reserved bytes, ICRC. */
static void b_cnp(struct fx *fx)
{
	struct frame *f = v4(fx);

	fr_bth(f, &(struct fr_bth){.opcode = CNP, .dest_qp = QP_A, .becn = true});
	fr_payload(f, S_CNP_RSVD);
	fr_icrc(f);
	fr_finish(f);
}

static void b_ud_send(struct fx *fx)
{
	struct frame *f = v4(fx);

	bth(f, UD_SEND_ONLY, QP_A, 7);
	fr_deth(f, 0x80010000, 0x000ABC);
	tail(f, 256);
}

static void b_xrc_send(struct fx *fx)
{
	struct frame *f = v4(fx);

	bth(f, XRC_SEND_ONLY, QP_A, 100);
	fr_xrceth(f, 0x42);
	tail(f, 256);
	f = v4(fx);
	bth(f, XRC_SEND_ONLY, QP_A, 101);
	fr_xrceth(f, 0x42);
	tail(f, 256);
}

static void b_tver1(struct fx *fx)
{
	struct frame *f = v4(fx);

	fr_bth(f, &(struct fr_bth){.opcode = RC_SEND_ONLY, .dest_qp = QP_A, .psn = 1, .tver = 1});
	tail(f, 64);
}

/* Frames to 4791 and to 4792: with roce_port 4792 only the latter is RoCE. */
static void b_two_ports(struct fx *fx)
{
	struct frame *f;

	send_only(v4(fx), 100);
	f = fx_frame(fx);
	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &ip_a4);
	fr_udp(f, SPORT, 4792);
	send_only(f, 101);
}

/* A capture cut to 128 bytes of a frame that was 1066 bytes on the wire. */
static void b_snaplen(struct fx *fx)
{
	struct frame *f = v4(fx);

	bth(f, RC_SEND_ONLY, QP_A, 100);
	tail(f, 1066 - L4(ROCE(0, 0)));
	/* The length fields describe the frame on the wire, not the capture. */
	fr_cut(f, 128);
	f->wire_len = 1066;
}

static void b_two_paths(struct fx *fx)
{
	send_only(v4(fx), 100);
	send_only(v4(fx), 100);
	fx->frames[1].path_id = 3;
}

static void b_timestamps(struct fx *fx)
{
	static const __u64 ts[] = {5, 1000000, 77000000000ULL};

	for (int i = 0; i < 3; i++) {
		send_only(v4(fx), 100 + i);
		fx->frames[i].ts_ns = ts[i];
	}
}

static void udp_len(struct fx *fx, __u16 dport, __u16 len)
{
	struct frame *f = fx_frame(fx);

	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &ip_a4);
	fr_udp(f, SPORT, dport);
	fr_udp_len(f, len);
	send_only(f, 100);
}

static void b_udp_len_7(struct fx *fx)
{
	udp_len(fx, ROCE_PORT, 7);
}

static void b_udp_len_0(struct fx *fx)
{
	udp_len(fx, ROCE_PORT, 0);
}

static void b_udp_len_7_other(struct fx *fx)
{
	udp_len(fx, 5000, 7);
}

static void b_udp_len_beyond(struct fx *fx)
{
	udp_len(fx, ROCE_PORT, FR_UDP_LEN + ROCE(0, 64) + 1);
}

/* A UDP length that leaves room for the BTH and payload but not the ICRC. */
static void b_udp_len_no_icrc(struct fx *fx)
{
	udp_len(fx, ROCE_PORT, FR_UDP_LEN + S_BTH + S_ICRC - 1);
}

static void b_vxlan_udp_len_beyond(struct fx *fx)
{
	struct frame *f = vxlan(fx, &vx_44);

	send_only(f, 100);
	f->data[fr_off(f, FR_H_UDP) + 5] += 1;
}

/* 8 bytes of Ethernet padding after the IP datagram. */
static void b_eth_trailer(struct fx *fx)
{
	struct frame *f = v4(fx);
	static const __u8 pad[8];

	send_only(f, 100);
	fr_bytes(f, pad, sizeof(pad));
}

/* A 4096-byte SEND payload: larger than one page of XDP linear data. */
static void b_jumbo(struct fx *fx)
{
	struct frame *f = v4(fx);

	bth(f, RC_SEND_ONLY, QP_A, 100);
	tail(f, 4096);
}

static void b_not_roce(struct fx *fx)
{
	static const __u8 arp[28] = {0, 1, 8, 0, 6, 4, 0, 1};
	struct fr_ip tcp = ip_a4;
	struct frame *f;

	f = fx_frame(fx); /* UDP to DNS */
	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &ip_a4);
	fr_udp(f, SPORT, 53);
	tail(f, 40);
	f = fx_frame(fx); /* from port 4791, to another: RoCEv2 uses the destination */
	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &ip_a4);
	fr_udp(f, ROCE_PORT, 5000);
	send_only(f, 100);
	f = fx_frame(fx); /* TCP, whose ports would read as 49152 -> 4791 */
	tcp.proto = 6;
	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &tcp);
	fr_udp(f, SPORT, ROCE_PORT);
	send_only(f, 100);
	f = fx_frame(fx); /* ARP */
	fr_eth(f, 0x0806);
	fr_bytes(f, arp, sizeof(arp));
	f = fx_frame(fx); /* IPv6 carrying no next header */
	fr_eth(f, FP_ETH_P_IPV6);
	fr_ipv6(f, &ip_a6, FP_IPPROTO_NONE);
	fr_finish(f);
	f = fx_frame(fx); /* EtherType says IPv4, the version nibble says 6 */
	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &ip_a4);
	fr_udp(f, SPORT, ROCE_PORT);
	send_only(f, 100);
	f->data[FR_ETH_LEN] = 0x65;
}

/* ---- expected values ---------------------------------------------------- */

#define VXSEND(outer, inner_l3) ((outer) + FR_ETH_LEN + (inner_l3) + FR_UDP_LEN + ROCE(0, 64))

/* n responses (ACK), one per timestamp from the first. */
#define C_ACKS(n)                                                                                  \
	.packets = (n), .bytes = (n)*ACK4, .ecn = {[FR_ECT0] = (n)}, .opcodes = {OPB(RC_ACK)},     \
	.dscp_mask = 1ULL << DSCP, .dscp = DSCP, .last_opcode = RC_ACK, .first_seen_ns = TS(0),    \
	.last_seen_ns = TS((n)-1)

#define KEY_V6                                                                                     \
	{                                                                                          \
		.src = A6, .dst = B6, .sport = SPORT, .dport = ROCE_PORT, .qp = QP_A,              \
		.flags = FP_FLOW_IPV6                                                              \
	}

#define VX_TOTALS(bytes)                                                                           \
	{                                                                                          \
		[FP_CNT_FRAMES] = 1, [FP_CNT_BYTES] = (bytes), [FP_CNT_ROCE] = 1,                  \
		[FP_CNT_VXLAN] = 1, [FP_CNT_FLOW_NEW] = 1                                          \
	}
#define VX_C(nbytes)                                                                               \
	.packets = 1, .bytes = (nbytes), .ecn = {[FR_ECT0] = 1}, .inner_ecn = {[FR_ECT0] = 1},     \
	.opcodes = {OPB(RC_SEND_ONLY)}, .dscp_mask = 1ULL << DSCP, .dscp = DSCP,                   \
	.last_opcode = RC_SEND_ONLY, .first_seen_ns = TS(0), .last_seen_ns = TS(0)
#define VX_KEY(os, od, is, id, fl)                                                                 \
	{                                                                                          \
		.src = os, .dst = od, .sport = VX_SPORT, .dport = VXLAN_PORT, .vni = VNI,          \
		.isrc = is, .idst = id, .isport = SPORT, .idport = ROCE_PORT, .qp = QP_A,          \
		.flags = FP_FLOW_VXLAN | (fl)                                                      \
	}

#define READ_THEN_SEND(gaps)                                                                       \
	.totals = T_ROCE(2, L4(ROCE(S_RETH, 0)) + SEND64, 1), .n_flows = 1,                        \
	.flows = {{.k = KEY_V4,                                                                    \
		   .c = {.packets = 2,                                                             \
			 .bytes = L4(ROCE(S_RETH, 0)) + SEND64,                                    \
			 .ecn = {[FR_ECT0] = 2},                                                   \
			 .opcodes = {OPB(RC_READ_REQ) | OPB(RC_SEND_ONLY)},                        \
			 .dscp_mask = 1ULL << DSCP,                                                \
			 .dscp = DSCP,                                                             \
			 .last_opcode = RC_SEND_ONLY,                                              \
			 .psn_gaps = (gaps),                                                       \
			 .first_seen_ns = TS(0),                                                   \
			 .last_seen_ns = TS(1)}}}

/* n READ requests, one per timestamp, rtx of them retries. */
#define READ_REQ L4(ROCE(S_RETH, 0))
#define C_READS(n, rtx)                                                                            \
	.packets = (n), .bytes = (n)*READ_REQ, .ecn = {[FR_ECT0] = (n)},                           \
	.opcodes = {OPB(RC_READ_REQ)}, .dscp_mask = 1ULL << DSCP, .dscp = DSCP,                    \
	.last_opcode = RC_READ_REQ, .retransmits = (rtx), .first_seen_ns = TS(0),                  \
	.last_seen_ns = TS((n)-1)
/* READ responses of 64 bytes: with an AETH (FIRST, LAST, ONLY) and without (MIDDLE). */
#define RESP_AETH L4(ROCE(S_AETH, 64))
#define RESP_MID  L4(ROCE(0, 64))

static const struct fixture fixtures[] = {
    {
	.name = "bare_send_only",
	.build = b_send_only,
	.totals = T_ROCE(1, SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_SEND(SEND64)}}},
	.runs = RUN_TC_INGRESS | RUN_TC_EGRESS | RUN_UNMODIFIED,
    },
    {
	.name = "bare_send_first_middle_last",
	.build = b_send_sequence,
	.totals = T_ROCE(3, 2 * L4(ROCE(0, 1024)) + L4(ROCE(0, 100)), 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4,
		   .c = {.packets = 3,
			 .bytes = 2 * L4(ROCE(0, 1024)) + L4(ROCE(0, 100)),
			 .ecn = {[FR_ECT0] = 3},
			 .opcodes = {OPB(RC_SEND_FIRST) | OPB(RC_SEND_MIDDLE) | OPB(RC_SEND_LAST)},
			 .dscp_mask = 1ULL << DSCP,
			 .dscp = DSCP,
			 .last_opcode = RC_SEND_LAST,
			 .first_seen_ns = TS(0),
			 .last_seen_ns = TS(2)}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "vlan_8021q",
	.build = b_vlan_one,
	.totals = T_ROCE(1, SEND64 + FR_VLAN_LEN, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4,
		   .c = {C_SEND(SEND64 + FR_VLAN_LEN), .vlan = 100, .pcp = 3, .vlan_tagged = 1}}},
	.runs = RUN_TC_INGRESS | RUN_UNMODIFIED,
    },
    {
	.name = "vlan_priority_tag_vid0",
	.build = b_vlan_priority,
	.totals = T_ROCE(1, SEND64 + FR_VLAN_LEN, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4,
		   .c = {C_SEND(SEND64 + FR_VLAN_LEN), .vlan = 0, .pcp = 5, .vlan_tagged = 1}}},
    },
    {
	.name = "vlan_qinq_8021ad_outer",
	.build = b_qinq_ad,
	.totals = T_ROCE(1, SEND64 + 2 * FR_VLAN_LEN, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4,
		   .c = {C_SEND(SEND64 + 2 * FR_VLAN_LEN), .vlan = 200, .pcp = 5,
			 .vlan_tagged = 1}}},
	.runs = RUN_TC_INGRESS | RUN_UNMODIFIED,
    },
    {
	.name = "vlan_qinq_8021q_8021q",
	.build = b_qinq_qq,
	.totals = T_ROCE(1, SEND64 + 2 * FR_VLAN_LEN, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4,
		   .c = {C_SEND(SEND64 + 2 * FR_VLAN_LEN), .vlan = 4094, .pcp = 6,
			 .vlan_tagged = 1}}},
    },
    {
	.name = "ipv6",
	.build = b_v6,
	.totals = T_ROCE(1, L6(ROCE(0, 64)), 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V6, .c = {C_SEND(L6(ROCE(0, 64)))}}},
	.runs = RUN_TC_INGRESS | RUN_UNMODIFIED,
    },
    {
	.name = "ipv6_hop_by_hop",
	.build = b_v6_hbh,
	.totals = T_ROCE(1, L6(ROCE(0, 64)) + 8, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V6, .c = {C_SEND(L6(ROCE(0, 64)) + 8)}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "ipv6_dest_opts",
	.build = b_v6_dst,
	.totals = T_ROCE(1, L6(ROCE(0, 64)) + 16, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V6, .c = {C_SEND(L6(ROCE(0, 64)) + 16)}}},
    },
    {
	.name = "ipv6_routing_srh",
	.build = b_v6_rt,
	.totals = T_ROCE(1, L6(ROCE(0, 64)) + 40, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V6, .c = {C_SEND(L6(ROCE(0, 64)) + 40)}}},
    },
    {
	/* RFC 6946 atomic fragment: offset 0, M 0, the whole datagram. */
	.name = "ipv6_atomic_fragment",
	.build = b_v6_atomic_frag,
	.totals = T_ROCE(1, L6(ROCE(0, 64)) + 8, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V6, .c = {C_SEND(L6(ROCE(0, 64)) + 8)}}},
    },
    {
	/* Hop-by-hop, destination options, routing, fragment: RFC 8200 4.1 order. */
	.name = "ipv6_four_ext_headers",
	.build = b_v6_all_ext,
	.totals = T_ROCE(1, L6(ROCE(0, 64)) + 8 + 16 + 40 + 8, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V6, .c = {C_SEND(L6(ROCE(0, 64)) + 8 + 16 + 40 + 8)}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "ipv6_authentication_header",
	.build = b_v6_ah,
	.totals = T_ROCE(1, L6(ROCE(0, 64)) + 24, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V6, .c = {C_SEND(L6(ROCE(0, 64)) + 24)}}},
    },
    {
	/* The first fragment holds UDP and BTH, but RoCEv2 is never fragmented. */
	.name = "ipv6_first_fragment",
	.build = b_v6_frag_first,
	.totals = T_BAD(1, L6(ROCE(0, 64)) + 8),
    },
    {
	.name = "ipv6_later_fragment",
	.build = b_v6_frag_later,
	.totals = T_OTHER(1, L6(ROCE(0, 64)) + 8),
    },
    {
	.name = "ipv4_options_4",
	.build = b_v4_opts4,
	.totals = T_ROCE(1, SEND64 + 4, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_SEND(SEND64 + 4)}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "ipv4_options_40_ihl15",
	.build = b_v4_opts40,
	.totals = T_ROCE(1, SEND64 + 40, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_SEND(SEND64 + 40)}}},
    },
    {
	.name = "ipv4_ihl_4",
	.build = b_v4_ihl4,
	.totals = T_OTHER(1, SEND64),
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "ipv4_first_fragment",
	.build = b_v4_frag_first,
	.totals = T_BAD(1, SEND64),
    },
    {
	.name = "ipv4_middle_fragment_looks_like_roce",
	.build = b_v4_frag_later,
	.totals = T_OTHER(1, SEND64),
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "ipv4_last_fragment_looks_like_roce",
	.build = b_v4_frag_last,
	.totals = T_OTHER(1, SEND64),
    },
    {
	.name = "vxlan_ipv4_in_ipv4",
	.build = b_vxlan,
	.arg = &vx_44,
	.totals = VX_TOTALS(VXSEND(VX4(0), FR_IPV4_LEN)),
	.n_flows = 1,
	.flows = {{.k = VX_KEY(VTEP_A4, VTEP_B4, A4, B4, 0),
		   .c = {VX_C(VXSEND(VX4(0), FR_IPV4_LEN))}}},
	.runs = RUN_TC_INGRESS | RUN_TC_EGRESS | RUN_UNMODIFIED,
    },
    {
	.name = "vxlan_ipv6_in_ipv4",
	.build = b_vxlan,
	.arg = &vx_46,
	.totals = VX_TOTALS(VXSEND(VX4(0), FR_IPV6_LEN)),
	.n_flows = 1,
	.flows = {{.k = VX_KEY(VTEP_A4, VTEP_B4, A6, B6, FP_FLOW_INNER_IPV6),
		   .c = {VX_C(VXSEND(VX4(0), FR_IPV6_LEN))}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "vxlan_ipv4_in_ipv6",
	.build = b_vxlan,
	.arg = &vx_64,
	.totals = VX_TOTALS(VXSEND(VX6(0), FR_IPV4_LEN)),
	.n_flows = 1,
	.flows = {{.k = VX_KEY(VTEP_A6, VTEP_B6, A4, B4, FP_FLOW_IPV6),
		   .c = {VX_C(VXSEND(VX6(0), FR_IPV4_LEN))}}},
    },
    {
	.name = "vxlan_ipv6_in_ipv6",
	.build = b_vxlan,
	.arg = &vx_66,
	.totals = VX_TOTALS(VXSEND(VX6(0), FR_IPV6_LEN)),
	.n_flows = 1,
	.flows = {{.k = VX_KEY(VTEP_A6, VTEP_B6, A6, B6, FP_FLOW_IPV6 | FP_FLOW_INNER_IPV6),
		   .c = {VX_C(VXSEND(VX6(0), FR_IPV6_LEN))}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	/* RFC 7348 5: reserved bits are ignored on receipt. */
	.name = "vxlan_reserved_flags_set",
	.build = b_vxlan,
	.arg = &vx_rsvd,
	.totals = VX_TOTALS(VXSEND(VX4(0), FR_IPV4_LEN)),
	.n_flows = 1,
	.flows = {{.k = VX_KEY(VTEP_A4, VTEP_B4, A4, B4, 0),
		   .c = {VX_C(VXSEND(VX4(0), FR_IPV4_LEN))}}},
    },
    {
	.name = "vxlan_without_i_flag",
	.build = b_vxlan,
	.arg = &vx_no_i,
	.totals = T_BAD(1, VXSEND(VX4(0), FR_IPV4_LEN)),
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "vxlan_udp_len_beyond_frame",
	.build = b_vxlan_udp_len_beyond,
	.totals = T_BAD(1, VXSEND(VX4(0), FR_IPV4_LEN)),
    },
    {
	.name = "vxlan_inner_ihl_4",
	.build = b_vxlan_inner_ihl4,
	.totals = {[FP_CNT_FRAMES] = 1,
		   [FP_CNT_BYTES] = VXSEND(VX4(0), FR_IPV4_LEN),
		   [FP_CNT_VXLAN] = 1,
		   [FP_CNT_MALFORMED] = 1},
    },
    {
	.name = "vxlan_inner_udp_not_roce",
	.build = b_vxlan,
	.arg = &vx_dns,
	.totals = {[FP_CNT_FRAMES] = 1,
		   [FP_CNT_BYTES] = VX4(FR_ETH_LEN + FR_IPV4_LEN + FR_UDP_LEN + 28),
		   [FP_CNT_VXLAN] = 1,
		   [FP_CNT_OTHER] = 1},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "vxlan_inner_arp",
	.build = b_vxlan,
	.arg = &vx_arp,
	.totals = {[FP_CNT_FRAMES] = 1,
		   [FP_CNT_BYTES] = VX4(FR_ETH_LEN + 28),
		   [FP_CNT_VXLAN] = 1,
		   [FP_CNT_OTHER] = 1},
    },
    {
	.name = "vxlan_inner_tcp",
	.build = b_vxlan,
	.arg = &vx_tcp,
	.totals = {[FP_CNT_FRAMES] = 1,
		   [FP_CNT_BYTES] = VX4(FR_ETH_LEN + FR_IPV4_LEN + 28),
		   [FP_CNT_VXLAN] = 1,
		   [FP_CNT_OTHER] = 1},
    },
    {
	.name = "vxlan_ecn_outer_and_inner",
	.build = b_vxlan_ecn,
	.totals = {[FP_CNT_FRAMES] = 4,
		   [FP_CNT_BYTES] = 4 * VXSEND(VX4(0), FR_IPV4_LEN),
		   [FP_CNT_ROCE] = 4,
		   [FP_CNT_VXLAN] = 4,
		   [FP_CNT_FLOW_NEW] = 1},
	.n_flows = 1,
	.flows = {{.k = VX_KEY(VTEP_A4, VTEP_B4, A4, B4, 0),
		   .c = {.packets = 4,
			 .bytes = 4 * VXSEND(VX4(0), FR_IPV4_LEN),
			 .ecn = {1, 1, 1, 1},
			 .inner_ecn = {[FR_NOT_ECT] = 1, [FR_ECT1] = 1, [FR_ECT0] = 1, [FR_CE] = 1},
			 .opcodes = {OPB(RC_SEND_ONLY)},
			 .dscp_mask = 1ULL << DSCP,
			 .dscp = DSCP,
			 .last_opcode = RC_SEND_ONLY,
			 .first_seen_ns = TS(0),
			 .last_seen_ns = TS(3)}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "vxlan_custom_port_8472",
	.build = b_vxlan,
	.arg = &vx_port8472,
	.vxlan_port = 8472,
	.totals = VX_TOTALS(VXSEND(VX4(0), FR_IPV4_LEN)),
	.n_flows = 1,
	.flows = {{.k = {.src = VTEP_A4,
			 .dst = VTEP_B4,
			 .sport = VX_SPORT,
			 .dport = 8472,
			 .vni = VNI,
			 .isrc = A4,
			 .idst = B4,
			 .isport = SPORT,
			 .idport = ROCE_PORT,
			 .qp = QP_A,
			 .flags = FP_FLOW_VXLAN},
		   .c = {VX_C(VXSEND(VX4(0), FR_IPV4_LEN))}}},
    },
    {
	.name = "vxlan_default_port_not_configured",
	.build = b_vxlan,
	.arg = &vx_44,
	.vxlan_port = 8472,
	.totals = T_OTHER(1, VXSEND(VX4(0), FR_IPV4_LEN)),
    },
    {
	.name = "ecn_all_codepoints",
	.build = b_ecn_all,
	.totals = T_ROCE(4, 4 * SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4,
		   .c = {.packets = 4,
			 .bytes = 4 * SEND64,
			 .ecn = {[FR_NOT_ECT] = 1, [FR_ECT1] = 1, [FR_ECT0] = 1, [FR_CE] = 1},
			 .opcodes = {OPB(RC_SEND_ONLY)},
			 .dscp_mask = 1ULL << DSCP,
			 .dscp = DSCP,
			 .last_opcode = RC_SEND_ONLY,
			 .first_seen_ns = TS(0),
			 .last_seen_ns = TS(3)}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "dscp_last_and_mask",
	.build = b_dscp_change,
	.totals = T_ROCE(3, 3 * SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4,
		   .c = {.packets = 3,
			 .bytes = 3 * SEND64,
			 .ecn = {[FR_ECT0] = 3},
			 .opcodes = {OPB(RC_SEND_ONLY)},
			 .dscp_mask = 1ULL << 26 | 1ULL << 46 | 1ULL << 0,
			 .dscp = 0,
			 .last_opcode = RC_SEND_ONLY,
			 .first_seen_ns = TS(0),
			 .last_seen_ns = TS(2)}}},
    },
    {
	.name = "ack_syndromes",
	.build = b_acks,
	.totals = T_ROCE(2, 2 * ACK4, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4_REV, .c = {C_ACKS(2), .acks = 2}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "nak_codes_0_to_4",
	.build = b_naks,
	.totals = T_ROCE(5, 5 * ACK4, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4_REV, .c = {C_ACKS(5), .naks = 5, .last_nak_code = 4}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "nak_remote_access_error",
	.build = b_nak_access,
	.totals = T_ROCE(1, ACK4, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4_REV, .c = {C_ACKS(1), .naks = 1, .last_nak_code = 2}}},
    },
    {
	.name = "rnr_naks",
	.build = b_rnr,
	.totals = T_ROCE(3, 3 * ACK4, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4_REV, .c = {C_ACKS(3), .rnr_naks = 3}}},
    },
    {
	.name = "aeth_reserved_syndrome_class",
	.build = b_aeth_reserved,
	.totals = T_ROCE(1, ACK4, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4_REV, .c = {C_ACKS(1)}}},
    },
    {
	.name = "psn_wraparound",
	.build = b_psns,
	.arg = psn_wrap,
	.totals = T_ROCE(4, 4 * SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_SENDS(4)}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "psn_forward_gap",
	.build = b_psns,
	.arg = psn_gap,
	.totals = T_ROCE(4, 4 * SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_SENDS(4), .psn_gaps = 1}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "psn_duplicate",
	.build = b_psns,
	.arg = psn_dup,
	.totals = T_ROCE(4, 4 * SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_SENDS(4), .retransmits = 1}}},
    },
    {
	.name = "psn_gap_across_wrap",
	.build = b_psns,
	.arg = psn_gap_wrap,
	.totals = T_ROCE(3, 3 * SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_SENDS(3), .psn_gaps = 1}}},
    },
    {
	.name = "psn_retransmit_across_wrap",
	.build = b_psns,
	.arg = psn_old_wrap,
	.totals = T_ROCE(4, 4 * SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_SENDS(4), .retransmits = 1}}},
    },
    {
	.name = "psn_go_back_n_after_nak",
	.build = b_go_back_n,
	.totals = T_ROCE(10, 9 * SEND64 + ACK4, 2),
	.n_flows = 2,
	.flows = {{.k = KEY_V4,
		   .c = {.packets = 9,
			 .bytes = 9 * SEND64,
			 .ecn = {[FR_ECT0] = 9},
			 .opcodes = {OPB(RC_SEND_ONLY)},
			 .dscp_mask = 1ULL << DSCP,
			 .dscp = DSCP,
			 .last_opcode = RC_SEND_ONLY,
			 .retransmits = 3,
			 .first_seen_ns = TS(0),
			 .last_seen_ns = TS(9)}},
		  {.k = KEY_V4_REV,
		   .c = {.packets = 1,
			 .bytes = ACK4,
			 .ecn = {[FR_ECT0] = 1},
			 .opcodes = {OPB(RC_ACK)},
			 .dscp_mask = 1ULL << DSCP,
			 .dscp = DSCP,
			 .last_opcode = RC_ACK,
			 .naks = 1,
			 .last_nak_code = 0,
			 .first_seen_ns = TS(5),
			 .last_seen_ns = TS(5)}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "read_4096_reserves_4_psns",
	.build = b_read_then_send,
	.arg = &read_4096,
	READ_THEN_SEND(0),
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "read_4097_reserves_5_psns",
	.build = b_read_then_send,
	.arg = &read_4097,
	READ_THEN_SEND(0),
    },
    {
	.name = "read_zero_length_reserves_1_psn",
	.build = b_read_then_send,
	.arg = &read_zero,
	READ_THEN_SEND(0),
    },
    {
	.name = "read_reservation_across_wrap",
	.build = b_read_then_send,
	.arg = &read_wrap,
	READ_THEN_SEND(0),
    },
    {
	.name = "read_then_real_gap",
	.build = b_read_then_send,
	.arg = &read_gap,
	READ_THEN_SEND(1),
    },
    {
	.name = "read_len_past_2_31_no_gap",
	.build = b_read_then_send,
	.arg = &read_huge,
	READ_THEN_SEND(0),
    },
    {
	.name = "read_reissued_mid_range",
	.build = b_reads,
	.arg = reads_reissued,
	.totals = T_ROCE(5, 5 * READ_REQ, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_READS(5, 2)}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "read_reissued_across_wrap",
	.build = b_reads,
	.arg = reads_reissued_wrap,
	.totals = T_ROCE(3, 3 * READ_REQ, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_READS(3, 1)}}},
    },
    {
	.name = "read_reissued_20_mb_on",
	.build = b_reads,
	.arg = reads_reissued_far,
	.totals = T_ROCE(3, 3 * READ_REQ, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_READS(3, 1)}}},
    },
    {
	.name = "read_va_low_bits_equal_in_a_retry",
	.build = b_reads,
	.arg = reads_va_low_bits,
	.totals = T_ROCE(4, 4 * READ_REQ, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_READS(4, 1)}}},
    },
    {
	.name = "read_new_inside_256_reservation",
	.build = b_reads,
	.arg = reads_in_order,
	.totals = T_ROCE(6, 6 * READ_REQ, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_READS(6, 0)}}},
    },
    {
	.name = "read_responses_resent",
	.build = b_read_resps_resent,
	.totals = T_ROCE(10, 6 * RESP_AETH + 4 * RESP_MID, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4_REV,
		   .c = {.packets = 10,
			 .bytes = 6 * RESP_AETH + 4 * RESP_MID,
			 .ecn = {[FR_ECT0] = 10},
			 .opcodes = {OPB(RC_READ_RESP_FIRST) | OPB(RC_READ_RESP_MIDDLE) |
				     OPB(RC_READ_RESP_LAST)},
			 .dscp_mask = 1ULL << DSCP,
			 .dscp = DSCP,
			 .last_opcode = RC_READ_RESP_LAST,
			 .retransmits = 2,
			 .first_seen_ns = TS(0),
			 .last_seen_ns = TS(9)}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "read_responses_among_acks",
	.build = b_read_resps_acks,
	.totals = T_ROCE(10, 5 * RESP_AETH + 5 * ACK4, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4_REV,
		   .c = {.packets = 10,
			 .bytes = 5 * RESP_AETH + 5 * ACK4,
			 .ecn = {[FR_ECT0] = 10},
			 .opcodes = {OPB(RC_READ_RESP_ONLY) | OPB(RC_ACK)},
			 .dscp_mask = 1ULL << DSCP,
			 .dscp = DSCP,
			 .last_opcode = RC_READ_RESP_ONLY,
			 .acks = 4,
			 .naks = 1,
			 .retransmits = 1,
			 .first_seen_ns = TS(0),
			 .last_seen_ns = TS(9)}}},
    },
    {
	.name = "read_responses_beside_requests",
	.build = b_read_resps_beside_requests,
	.totals = T_ROCE(9, 3 * SEND64 + 6 * RESP_AETH, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4_REV,
		   .c = {.packets = 9,
			 .bytes = 3 * SEND64 + 6 * RESP_AETH,
			 .ecn = {[FR_ECT0] = 9},
			 .opcodes = {OPB(RC_SEND_ONLY) | OPB(RC_READ_RESP_FIRST) |
				     OPB(RC_READ_RESP_LAST)},
			 .dscp_mask = 1ULL << DSCP,
			 .dscp = DSCP,
			 .last_opcode = RC_READ_RESP_LAST,
			 .first_seen_ns = TS(0),
			 .last_seen_ns = TS(8)}}},
    },
    {
	.name = "fecn_becn",
	.build = b_fecn_becn,
	.totals = T_ROCE(3, 3 * SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_SENDS(3), .fecn = 2, .becn = 2}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "cnp",
	.build = b_cnp,
	.totals = {[FP_CNT_FRAMES] = 1,
		   [FP_CNT_BYTES] = L4(ROCE(S_CNP_RSVD, 0)),
		   [FP_CNT_ROCE] = 1,
		   [FP_CNT_CNP] = 1,
		   [FP_CNT_FLOW_NEW] = 1},
	.n_flows = 1,
	/* A CNP's DSCP is kept apart from the flow's other packets'. */
	.flows = {{.k = KEY_V4,
		   .c = {.packets = 1,
			 .bytes = L4(ROCE(S_CNP_RSVD, 0)),
			 .ecn = {[FR_ECT0] = 1},
			 .opcodes = {[OPW(CNP)] = OPB(CNP)},
			 .dscp = DSCP,
			 .last_opcode = CNP,
			 .first_seen_ns = TS(0),
			 .last_seen_ns = TS(0),
			 .cnp = 1,
			 .becn = 1},
		   .cnp_dscp_mask = 1ULL << DSCP}},
	.runs = RUN_TC_INGRESS | RUN_UNMODIFIED,
    },
    {
	.name = "ud_send_with_deth",
	.build = b_ud_send,
	.totals = T_ROCE(1, L4(ROCE(S_DETH, 256)), 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_ONE(UD_SEND_ONLY, L4(ROCE(S_DETH, 256)))}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "xrc_send_with_xrceth",
	.build = b_xrc_send,
	.totals = T_ROCE(2, 2 * L4(ROCE(S_XRCETH, 256)), 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4,
		   .c = {.packets = 2,
			 .bytes = 2 * L4(ROCE(S_XRCETH, 256)),
			 .ecn = {[FR_ECT0] = 2},
			 .opcodes = {[OPW(XRC_SEND_ONLY)] = OPB(XRC_SEND_ONLY)},
			 .dscp_mask = 1ULL << DSCP,
			 .dscp = DSCP,
			 .last_opcode = XRC_SEND_ONLY,
			 .first_seen_ns = TS(0),
			 .last_seen_ns = TS(1)}}},
    },
    {
	.name = "bth_tver_1",
	.build = b_tver1,
	.totals = T_BAD(1, SEND64),
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "custom_roce_port_4792",
	.build = b_two_ports,
	.roce_port = 4792,
	.totals = {[FP_CNT_FRAMES] = 2,
		   [FP_CNT_BYTES] = 2 * SEND64,
		   [FP_CNT_ROCE] = 1,
		   [FP_CNT_OTHER] = 1,
		   [FP_CNT_FLOW_NEW] = 1},
	.n_flows = 1,
	.flows = {{.k = {.src = A4, .dst = B4, .sport = SPORT, .dport = 4792, .qp = QP_A},
		   .c = {C_ONE_AT(RC_SEND_ONLY, SEND64, TS(1))}}},
    },
    {
	.name = "wire_len_beyond_caplen",
	.build = b_snaplen,
	.totals = T_ROCE(1, 1066, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_SEND(1066)}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "path_id_is_ifindex",
	.build = b_two_paths,
	.totals = T_ROCE(2, 2 * SEND64, 2),
	.n_flows = 2,
	.flows = {{.k = KEY_V4, .c = {C_SEND(SEND64)}},
		  {.k = {.src = A4,
			 .dst = B4,
			 .sport = SPORT,
			 .dport = ROCE_PORT,
			 .qp = QP_A,
			 .ifindex = 3},
		   .c = {C_ONE_AT(RC_SEND_ONLY, SEND64, TS(1))}}},
    },
    {
	.name = "first_and_last_seen",
	.build = b_timestamps,
	.totals = T_ROCE(3, 3 * SEND64, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_SENDS_AT(3, 5, 77000000000ULL)}}},
    },
    {
	.name = "udp_len_7",
	.build = b_udp_len_7,
	.totals = T_BAD(1, SEND64),
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "udp_len_0",
	.build = b_udp_len_0,
	.totals = T_BAD(1, SEND64),
    },
    {
	.name = "udp_len_7_other_port",
	.build = b_udp_len_7_other,
	.totals = T_OTHER(1, SEND64),
    },
    {
	.name = "udp_len_beyond_frame",
	.build = b_udp_len_beyond,
	.totals = T_BAD(1, SEND64),
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "udp_len_leaves_no_room_for_icrc",
	.build = b_udp_len_no_icrc,
	.totals = T_BAD(1, SEND64),
    },
    {
	.name = "ethernet_trailer_after_datagram",
	.build = b_eth_trailer,
	.totals = T_ROCE(1, SEND64 + 8, 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_SEND(SEND64 + 8)}}},
	.runs = RUN_TC_INGRESS,
    },
    {
	.name = "jumbo_4096_payload",
	.build = b_jumbo,
	.totals = T_ROCE(1, L4(ROCE(0, 4096)), 1),
	.n_flows = 1,
	.flows = {{.k = KEY_V4, .c = {C_SEND(L4(ROCE(0, 4096)))}}},
	.runs = RUN_UNMODIFIED,
    },
    {
	.name = "not_roce",
	.build = b_not_roce,
	.totals =
	    T_OTHER(6, L4(40 + S_ICRC) + 3 * SEND64 + FR_ETH_LEN + 28 + FR_ETH_LEN + FR_IPV6_LEN),
	.runs = RUN_TC_INGRESS,
    },
};

/* ---- every opcode: exact minimum length is RoCE, one byte less is malformed */

struct op_case {
	const char *name;
	__u8 opcode;
	__u32 ext_len; /* headers between BTH and payload, from the spec */
	void (*ext)(struct frame *f);
	__u64 acks;
	__u64 cnp;
};

static void ext_none(struct frame *f)
{
	(void)f;
}

static void ext_reth(struct frame *f)
{
	fr_reth(f, 0x1000, 0x55, 512);
}

static void ext_aeth(struct frame *f)
{
	fr_aeth(f, SYN_ACK, 3);
}

static void ext_immdt(struct frame *f)
{
	fr_immdt(f, 0xC0FFEE);
}

static void ext_ieth(struct frame *f)
{
	fr_ieth(f, 0x77);
}

static void ext_reth_immdt(struct frame *f)
{
	ext_reth(f);
	ext_immdt(f);
}

static void ext_atomic(struct frame *f)
{
	fr_atomiceth(f, 0x2000, 0x66, 1, 0);
}

static void ext_atomic_ack(struct frame *f)
{
	ext_aeth(f);
	fr_atomicacketh(f, 41);
}

static void ext_cnp(struct frame *f)
{
	fr_payload(f, S_CNP_RSVD);
}

static void ext_deth(struct frame *f)
{
	fr_deth(f, 0x11111111, 0x222);
}

static void ext_deth_immdt(struct frame *f)
{
	ext_deth(f);
	ext_immdt(f);
}

static void ext_xrc(struct frame *f)
{
	fr_xrceth(f, 9);
}

static void ext_xrc_reth(struct frame *f)
{
	ext_xrc(f);
	ext_reth(f);
}

static void ext_xrc_atomic(struct frame *f)
{
	ext_xrc(f);
	ext_atomic(f);
}

static void ext_xrc_ieth(struct frame *f)
{
	ext_xrc(f);
	ext_ieth(f);
}

static const struct op_case op_cases[] = {
    {.name = "rc_send_first", .opcode = RC_SEND_FIRST, .ext_len = 0, .ext = ext_none},
    {.name = "rc_send_middle", .opcode = RC_SEND_MIDDLE, .ext_len = 0, .ext = ext_none},
    {.name = "rc_send_last", .opcode = RC_SEND_LAST, .ext_len = 0, .ext = ext_none},
    {.name = "rc_send_last_imm", .opcode = RC_SEND_LAST_IMM, .ext_len = S_IMMDT, .ext = ext_immdt},
    {.name = "rc_send_only", .opcode = RC_SEND_ONLY, .ext_len = 0, .ext = ext_none},
    {.name = "rc_send_only_imm", .opcode = RC_SEND_ONLY_IMM, .ext_len = S_IMMDT, .ext = ext_immdt},
    {.name = "rc_write_first", .opcode = RC_WRITE_FIRST, .ext_len = S_RETH, .ext = ext_reth},
    {.name = "rc_write_middle", .opcode = RC_WRITE_MIDDLE, .ext_len = 0, .ext = ext_none},
    {.name = "rc_write_last", .opcode = RC_WRITE_LAST, .ext_len = 0, .ext = ext_none},
    {.name = "rc_write_last_imm",
     .opcode = RC_WRITE_LAST_IMM,
     .ext_len = S_IMMDT,
     .ext = ext_immdt},
    {.name = "rc_write_only", .opcode = RC_WRITE_ONLY, .ext_len = S_RETH, .ext = ext_reth},
    {.name = "rc_write_only_imm",
     .opcode = RC_WRITE_ONLY_IMM,
     .ext_len = S_RETH + S_IMMDT,
     .ext = ext_reth_immdt},
    {.name = "rc_read_request", .opcode = RC_READ_REQ, .ext_len = S_RETH, .ext = ext_reth},
    {.name = "rc_read_response_first",
     .opcode = RC_READ_RESP_FIRST,
     .ext_len = S_AETH,
     .ext = ext_aeth},
    {.name = "rc_read_response_middle",
     .opcode = RC_READ_RESP_MIDDLE,
     .ext_len = 0,
     .ext = ext_none},
    {.name = "rc_read_response_last",
     .opcode = RC_READ_RESP_LAST,
     .ext_len = S_AETH,
     .ext = ext_aeth},
    {.name = "rc_read_response_only",
     .opcode = RC_READ_RESP_ONLY,
     .ext_len = S_AETH,
     .ext = ext_aeth},
    {.name = "rc_ack", .opcode = RC_ACK, .ext_len = S_AETH, .ext = ext_aeth, .acks = 1},
    {.name = "rc_atomic_ack",
     .opcode = RC_ATOMIC_ACK,
     .ext_len = S_AETH + S_ATOMICACKETH,
     .ext = ext_atomic_ack},
    {.name = "rc_compare_swap", .opcode = RC_CMP_SWAP, .ext_len = S_ATOMICETH, .ext = ext_atomic},
    {.name = "rc_fetch_add", .opcode = RC_FETCH_ADD, .ext_len = S_ATOMICETH, .ext = ext_atomic},
    {.name = "rc_send_last_inv", .opcode = RC_SEND_LAST_INV, .ext_len = S_IETH, .ext = ext_ieth},
    {.name = "rc_send_only_inv", .opcode = RC_SEND_ONLY_INV, .ext_len = S_IETH, .ext = ext_ieth},
    {.name = "uc_send_only", .opcode = UC_SEND_ONLY, .ext_len = 0, .ext = ext_none},
    {.name = "uc_write_only", .opcode = UC_WRITE_ONLY, .ext_len = S_RETH, .ext = ext_reth},
    {.name = "ud_send_only", .opcode = UD_SEND_ONLY, .ext_len = S_DETH, .ext = ext_deth},
    {.name = "ud_send_only_imm",
     .opcode = UD_SEND_ONLY_IMM,
     .ext_len = S_DETH + S_IMMDT,
     .ext = ext_deth_immdt},
    {.name = "cnp", .opcode = CNP, .ext_len = S_CNP_RSVD, .ext = ext_cnp, .cnp = 1},
    {.name = "xrc_send_only", .opcode = XRC_SEND_ONLY, .ext_len = S_XRCETH, .ext = ext_xrc},
    {.name = "xrc_write_only",
     .opcode = XRC_WRITE_ONLY,
     .ext_len = S_XRCETH + S_RETH,
     .ext = ext_xrc_reth},
    {.name = "xrc_read_request",
     .opcode = XRC_READ_REQ,
     .ext_len = S_XRCETH + S_RETH,
     .ext = ext_xrc_reth},
    {.name = "xrc_compare_swap",
     .opcode = XRC_CMP_SWAP,
     .ext_len = S_XRCETH + S_ATOMICETH,
     .ext = ext_xrc_atomic},
    {.name = "xrc_send_only_inv",
     .opcode = XRC_SEND_ONLY_INV,
     .ext_len = S_XRCETH + S_IETH,
     .ext = ext_xrc_ieth},
    /* XRC responses carry no XRCETH (IBTA 9.3; rxe_opcode.c): as RC's. */
    {.name = "xrc_read_response_first",
     .opcode = XRC_READ_RESP_FIRST,
     .ext_len = S_AETH,
     .ext = ext_aeth},
    {.name = "xrc_read_response_middle",
     .opcode = XRC_READ_RESP_MIDDLE,
     .ext_len = 0,
     .ext = ext_none},
    {.name = "xrc_ack", .opcode = XRC_ACK, .ext_len = S_AETH, .ext = ext_aeth, .acks = 1},
    {.name = "xrc_atomic_ack",
     .opcode = XRC_ATOMIC_ACK,
     .ext_len = S_AETH + S_ATOMICACKETH,
     .ext = ext_atomic_ack},
};

/* BTH, the opcode's headers and the ICRC, no payload; short: one byte less. */
static void build_op(struct fx *fx, const struct op_case *oc, bool short_by_one)
{
	struct frame *f = v4(fx);

	bth(f, oc->opcode, QP_A, 100);
	oc->ext(f);
	fr_icrc(f);
	fr_finish(f);
	if (short_by_one) {
		fr_cut(f, f->len - 1);
		fr_finish(f);
	}
}

static void run_opcode(const struct op_case *oc, bool short_by_one)
{
	__u64 len = L4(ROCE(oc->ext_len, 0)) - short_by_one;
	struct fixture fx = {.n_flows = short_by_one ? 0 : 1};

	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
	if (!g_fx.frames)
		g_fx.frames = calloc(FX_MAX_FRAMES, sizeof(*g_fx.frames));
	assert_non_null(g_fx.frames);
	g_fx.n = 0;
	build_op(&g_fx, oc, short_by_one);
	assert_int_equal(g_fx.frames[0].len, len);
	assert_int_equal(probe_run_frame(&g_probe, g_fx.frames[0].data, g_fx.frames[0].len,
					 g_fx.frames[0].len, TS(0), FX_PATH),
			 0);
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);

	fx.totals[FP_CNT_FRAMES] = 1;
	fx.totals[FP_CNT_BYTES] = len;
	if (short_by_one) {
		fx.totals[FP_CNT_MALFORMED] = 1;
	} else {
		fx.totals[FP_CNT_ROCE] = 1;
		fx.totals[FP_CNT_CNP] = oc->cnp;
		fx.totals[FP_CNT_FLOW_NEW] = 1;
		fx.flows[0] = (struct exp_flow){
		    .k = KEY_V4,
		    .c = {.packets = 1,
			  .bytes = len,
			  .ecn = {[FR_ECT0] = 1},
			  .acks = oc->acks,
			  .cnp = oc->cnp,
			  .dscp_mask = oc->cnp ? 0 : 1ULL << DSCP,
			  .dscp = DSCP,
			  .last_opcode = oc->opcode,
			  .first_seen_ns = TS(0),
			  .last_seen_ns = TS(0)},
		};
		fx.flows[0].c.opcodes[OPW(oc->opcode)] = OPB(oc->opcode);
		fx.flows[0].cnp_dscp_mask = oc->cnp ? 1ULL << DSCP : 0;
	}
	check_totals(&g_snap, fx.totals);
	check_flows(&g_snap, &fx, FP_DIR_INGRESS);
}

static void test_opcode(void **state)
{
	run_opcode(*state, false);
}

static void test_opcode_short(void **state)
{
	run_opcode(*state, true);
}

/* ---- truncation at every header boundary -------------------------------- */

enum cut_class { CUT_OTHER, CUT_MALFORMED, CUT_REFUSED };

struct cut_case {
	const char *name;
	void (*build)(struct fx *fx);
	enum fr_hdr at;
	__u32 plus; /* bytes of that header kept */
	bool refit; /* rewrite the length fields to the cut frame */
	bool vxlan; /* decapsulated: outer UDP length valid, VXLAN header whole */
	enum cut_class class;
};

/* QinQ + IPv4 + RDMA WRITE ONLY (RETH). */
static void c_qinq_write(struct fx *fx)
{
	struct frame *f = fx_frame(fx);

	fr_eth(f, FP_ETH_P_8021AD);
	fr_vlan(f, 5, 200, FP_ETH_P_8021Q);
	fr_vlan(f, 3, 100, FP_ETH_P_IP);
	fr_ipv4(f, &ip_a4);
	fr_udp(f, SPORT, ROCE_PORT);
	bth(f, RC_WRITE_ONLY, QP_A, 5);
	fr_reth(f, 0x1000, 0x1, 64);
	tail(f, 64);
}

/* IPv6 + hop-by-hop + RDMA READ request (RETH). */
static void c_v6_read(struct fx *fx)
{
	struct frame *f = fx_frame(fx);

	fr_eth(f, FP_ETH_P_IPV6);
	fr_ipv6(f, &ip_a6, FP_IPPROTO_HOPOPTS);
	fr_ipv6_opts(f, FP_IPPROTO_UDP, 8);
	fr_udp(f, SPORT, ROCE_PORT);
	bth(f, RC_READ_REQ, QP_A, 5);
	fr_reth(f, 0x1000, 0x1, 4096);
	tail(f, 0);
}

/* VXLAN (IPv4 outer, IPv4 inner) carrying an ACK (AETH). */
static void c_vxlan_ack(struct fx *fx)
{
	struct frame *f = vxlan(fx, &vx_44);

	bth(f, RC_ACK, QP_A, 5);
	fr_aeth(f, SYN_ACK, 1);
	tail(f, 0);
}

/* VXLAN (IPv6 outer, IPv6 inner with a VLAN tag) carrying SEND ONLY. */
static void c_vxlan6_send(struct fx *fx)
{
	struct fr_ip inner = {.src = A6, .dst = B6};
	struct frame *f = fx_frame(fx);

	fr_eth(f, FP_ETH_P_IPV6);
	fr_ipv6(f, &(struct fr_ip){.src = VTEP_A6, .dst = VTEP_B6}, FP_IPPROTO_UDP);
	fr_udp(f, VX_SPORT, VXLAN_PORT);
	fr_vxlan(f, FP_VXLAN_FLAG_I, VNI);
	fr_eth(f, FP_ETH_P_8021Q);
	fr_vlan(f, 0, 10, FP_ETH_P_IPV6);
	fr_ipv6(f, &inner, FP_IPPROTO_UDP);
	fr_udp(f, SPORT, ROCE_PORT);
	send_only(f, 5);
}

#define O CUT_OTHER
#define M CUT_MALFORMED
static const struct cut_case cut_cases[] = {
    {"cut_qinq_eth_13", c_qinq_write, FR_H_ETH, 13, false, false, CUT_REFUSED},
    {"cut_qinq_at_vlan", c_qinq_write, FR_H_VLAN, 0, false, false, O},
    {"cut_qinq_in_vlan", c_qinq_write, FR_H_VLAN, 1, false, false, O},
    {"cut_qinq_at_vlan2", c_qinq_write, FR_H_VLAN, 4, false, false, O},
    {"cut_qinq_in_vlan2", c_qinq_write, FR_H_VLAN, 5, false, false, O},
    {"cut_qinq_at_ip", c_qinq_write, FR_H_IP, 0, false, false, O},
    {"cut_qinq_in_ip", c_qinq_write, FR_H_IP, 1, false, false, O},
    {"cut_qinq_in_ip_19", c_qinq_write, FR_H_IP, 19, false, false, O},
    {"cut_qinq_at_udp", c_qinq_write, FR_H_UDP, 0, false, false, O},
    {"cut_qinq_in_udp", c_qinq_write, FR_H_UDP, 1, false, false, O},
    {"cut_qinq_in_udp_3", c_qinq_write, FR_H_UDP, 3, false, false, O},
    {"cut_qinq_in_udp_4", c_qinq_write, FR_H_UDP, 4, false, false, O},
    {"cut_qinq_at_bth", c_qinq_write, FR_H_BTH, 0, false, false, M},
    {"cut_qinq_in_bth", c_qinq_write, FR_H_BTH, 1, false, false, M},
    {"cut_qinq_at_reth", c_qinq_write, FR_H_RETH, 0, false, false, M},
    {"cut_qinq_in_reth", c_qinq_write, FR_H_RETH, 8, false, false, M},
    {"cut_qinq_at_payload", c_qinq_write, FR_H_PAYLOAD, 0, false, false, M},
    {"cut_qinq_at_icrc", c_qinq_write, FR_H_ICRC, 0, false, false, M},
    {"cut_qinq_at_bth_refit", c_qinq_write, FR_H_BTH, 0, true, false, M},
    {"cut_qinq_in_bth_refit", c_qinq_write, FR_H_BTH, 11, true, false, M},
    {"cut_qinq_at_reth_refit", c_qinq_write, FR_H_RETH, 0, true, false, M},
    {"cut_qinq_in_reth_refit", c_qinq_write, FR_H_RETH, 15, true, false, M},
    {"cut_qinq_no_icrc_refit", c_qinq_write, FR_H_PAYLOAD, 0, true, false, M},
    {"cut_v6_at_ip", c_v6_read, FR_H_IP, 0, false, false, O},
    {"cut_v6_in_ip", c_v6_read, FR_H_IP, 39, false, false, O},
    {"cut_v6_at_ext", c_v6_read, FR_H_IP_EXT, 0, false, false, O},
    {"cut_v6_in_ext", c_v6_read, FR_H_IP_EXT, 1, false, false, O},
    {"cut_v6_at_udp", c_v6_read, FR_H_UDP, 0, false, false, O},
    {"cut_v6_in_udp", c_v6_read, FR_H_UDP, 7, false, false, O},
    {"cut_v6_at_bth", c_v6_read, FR_H_BTH, 0, false, false, M},
    {"cut_v6_at_reth", c_v6_read, FR_H_RETH, 0, false, false, M},
    {"cut_v6_in_reth", c_v6_read, FR_H_RETH, 12, false, false, M},
    {"cut_v6_in_reth_refit", c_v6_read, FR_H_RETH, 12, true, false, M},
    {"cut_v6_at_icrc", c_v6_read, FR_H_ICRC, 0, false, false, M},
    {"cut_vxlan_at_vxlan", c_vxlan_ack, FR_H_VXLAN, 0, false, false, M},
    {"cut_vxlan_in_vxlan", c_vxlan_ack, FR_H_VXLAN, 4, false, false, M},
    {"cut_vxlan_at_vxlan_refit", c_vxlan_ack, FR_H_VXLAN, 0, true, false, M},
    {"cut_vxlan_at_inner_eth", c_vxlan_ack, FR_H_IN_ETH, 0, false, false, M},
    {"cut_vxlan_in_inner_eth", c_vxlan_ack, FR_H_IN_ETH, 13, false, false, M},
    {"cut_vxlan_at_inner_eth_refit", c_vxlan_ack, FR_H_IN_ETH, 0, true, true, M},
    {"cut_vxlan_at_inner_ip", c_vxlan_ack, FR_H_IN_IP, 0, false, false, M},
    {"cut_vxlan_in_inner_ip", c_vxlan_ack, FR_H_IN_IP, 10, false, false, M},
    {"cut_vxlan_at_inner_ip_refit", c_vxlan_ack, FR_H_IN_IP, 0, true, true, M},
    {"cut_vxlan_at_inner_udp", c_vxlan_ack, FR_H_IN_UDP, 0, false, false, M},
    {"cut_vxlan_in_inner_udp", c_vxlan_ack, FR_H_IN_UDP, 1, false, false, M},
    {"cut_vxlan_in_inner_udp_4", c_vxlan_ack, FR_H_IN_UDP, 4, false, false, M},
    {"cut_vxlan_at_inner_udp_refit", c_vxlan_ack, FR_H_IN_UDP, 0, true, true, M},
    {"cut_vxlan_at_bth", c_vxlan_ack, FR_H_BTH, 0, false, false, M},
    {"cut_vxlan_in_bth", c_vxlan_ack, FR_H_BTH, 6, false, false, M},
    {"cut_vxlan_at_bth_refit", c_vxlan_ack, FR_H_BTH, 0, true, true, M},
    {"cut_vxlan_at_aeth", c_vxlan_ack, FR_H_AETH, 0, false, false, M},
    {"cut_vxlan_in_aeth", c_vxlan_ack, FR_H_AETH, 1, false, false, M},
    {"cut_vxlan_at_aeth_refit", c_vxlan_ack, FR_H_AETH, 0, true, true, M},
    {"cut_vxlan_at_icrc", c_vxlan_ack, FR_H_ICRC, 0, false, false, M},
    {"cut_vxlan6_in_inner_vlan", c_vxlan6_send, FR_H_IN_VLAN, 2, false, false, M},
    {"cut_vxlan6_in_inner_ip", c_vxlan6_send, FR_H_IN_IP, 39, false, false, M},
    {"cut_vxlan6_in_inner_udp_4", c_vxlan6_send, FR_H_IN_UDP, 4, false, false, M},
    {"cut_vxlan6_in_inner_ip_refit", c_vxlan6_send, FR_H_IN_IP, 39, true, true, M},
    {"cut_vxlan6_at_bth_refit", c_vxlan6_send, FR_H_BTH, 0, true, true, M},
};
#undef O
#undef M

static void test_cut(void **state)
{
	const struct cut_case *cc = *state;
	__u64 want[FP_CNT_MAX] = {0};
	struct frame *f;
	__u32 len;
	int err;

	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
	build(&g_fx, cc->build, NULL);
	f = &g_fx.frames[0];
	len = fr_off(f, cc->at) + cc->plus;
	fr_cut(f, len);
	if (cc->refit)
		fr_finish(f);

	err = probe_run_frame(&g_probe, f->data, f->len, f->len, TS(0), FX_PATH);
	if (cc->class == CUT_REFUSED) {
		/* BPF_PROG_TEST_RUN wants at least an Ethernet header. */
		assert_int_equal(err, -EINVAL);
	} else {
		assert_int_equal(err, 0);
		want[FP_CNT_FRAMES] = 1;
		want[FP_CNT_BYTES] = len;
		want[cc->class == CUT_OTHER ? FP_CNT_OTHER : FP_CNT_MALFORMED] = 1;
		want[FP_CNT_VXLAN] = cc->vxlan;
	}
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	check_totals(&g_snap, want);
	assert_int_equal(g_snap.n_flows, 0);
}

/*
 * The same cuts made by a capture's snap length: the frame was whole on
 * the wire (its wire length says so), only fewer bytes were kept. A header
 * the cut took is unseen, never malformed: before the RoCE port the frame
 * is other; from the RoCE port (the last UDP header's bytes 2-3) to the
 * BTH's end it is other and counted as a RoCE packet the cut took
 * (roce_cut); with the BTH whole it is RoCE.
 */
static void test_cut_snaplen(void **state)
{
	const struct cut_case *cc = *state;
	bool vx = !strncmp(cc->name, "cut_vxlan", 9), port_seen;
	__u64 want[FP_CNT_MAX] = {0};
	struct frame *f;
	__u32 len, wire;
	int err;

	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
	build(&g_fx, cc->build, NULL);
	f = &g_fx.frames[0];
	wire = f->len;
	len = fr_off(f, cc->at) + cc->plus;
	fr_cut(f, len);

	err = probe_run_frame(&g_probe, f->data, f->len, wire, TS(0), FX_PATH);
	if (cc->class == CUT_REFUSED) {
		assert_int_equal(err, -EINVAL);
		return;
	}
	assert_int_equal(err, 0);
	want[FP_CNT_FRAMES] = 1;
	want[FP_CNT_BYTES] = wire;
	/* VXLAN is counted once its header is whole. */
	want[FP_CNT_VXLAN] = vx && (cc->at > FR_H_VXLAN || (cc->at == FR_H_VXLAN && cc->plus >= 8));
	port_seen = cc->at == (vx ? FR_H_IN_UDP : FR_H_UDP) && cc->plus >= 4;
	if (cc->at < FR_H_BTH && !port_seen) {
		want[FP_CNT_OTHER] = 1;
	} else if (port_seen || (cc->at == FR_H_BTH && cc->plus < S_BTH)) {
		want[FP_CNT_OTHER] = 1;
		want[FP_CNT_ROCE_CUT] = 1;
	} else {
		want[FP_CNT_ROCE] = 1;
		want[FP_CNT_FLOW_NEW] = 1;
	}
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	check_totals(&g_snap, want);
	assert_int_equal(g_snap.n_flows, want[FP_CNT_ROCE]);
	if (g_snap.n_flows)
		assert_int_equal(g_snap.flows[0].c.bytes, wire);
}

/*
 * PSNs 1, 2, 3, 4 where the capture cut the READ request at 3 inside its
 * RETH: the request is RoCE with its length unknown, so 4 is no gap.
 */
static void test_snaplen_read_no_gap(void **state)
{
	(void)state;
	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
	g_fx.n = 0;
	for (__u32 psn = 1; psn <= 4; psn++) {
		struct frame *f = v4(&g_fx);

		if (psn != 3) {
			send_only(f, psn);
			continue;
		}
		bth(f, RC_READ_REQ, QP_A, psn);
		fr_reth(f, 0x1000, 0x1, 65536);
		tail(f, 0);
		f->wire_len = f->len;
		fr_cut(f, fr_off(f, FR_H_RETH) + 6);
	}
	for (int i = 0; i < 4; i++) {
		struct frame *f = &g_fx.frames[i];

		assert_int_equal(
		    probe_run_frame(&g_probe, f->data, f->len, fr_wire_len(f), TS(i), FX_PATH), 0);
	}
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	assert_int_equal(g_snap.totals[FP_CNT_ROCE], 4);
	assert_int_equal(g_snap.totals[FP_CNT_MALFORMED], 0);
	assert_int_equal(g_snap.n_flows, 1);
	assert_int_equal(g_snap.flows[0].c.psn_gaps, 0);
	assert_int_equal(g_snap.flows[0].c.retransmits, 0);
}

/*
 * An ACK flow with no READ responses keeps the highest PSN it
 * acknowledged (what pairs QPs that share a source port, joins.c): across
 * the wrap, not moved back by an older ACK, and not by a NAK, whose PSN is
 * the one expected next. A READ response at or below it is one sent again.
 */
static void test_ack_flow_keeps_acked_psn(void **state)
{
	(void)state;
	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
	g_fx.n = 0;
	ack(&g_fx, SYN_ACK, 0xFFFFF0);
	ack(&g_fx, SYN_ACK, 0xFFFFFE);
	ack(&g_fx, SYN_ACK, 3);
	ack(&g_fx, SYN_ACK, 0xFFFFF8);
	ack(&g_fx, SYN_NAK_PSN, 9);
	read_resps(&g_fx, 2, 1);
	for (int i = 0; i < g_fx.n; i++) {
		struct frame *f = &g_fx.frames[i];

		assert_int_equal(probe_run_frame(&g_probe, f->data, f->len, f->len, TS(i), FX_PATH),
				 0);
	}
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	assert_int_equal(g_snap.n_flows, 1);
	assert_int_equal(g_snap.flows[0].c.acks, 4);
	assert_int_equal(g_snap.flows[0].c.naks, 1);
	assert_int_equal(g_snap.flows[0].c.psn.tracking, 0);
	assert_int_equal(g_snap.flows[0].c.psn.resp_seen, 1);
	assert_int_equal(g_snap.flows[0].c.psn.resp_psn, 3);
	assert_int_equal(g_snap.flows[0].c.retransmits, 1);
}

/*
 * Cut inside the BTH, but its UDP length cannot hold a BTH and ICRC at
 * all: malformed, as on the wire, not a RoCE packet the cut took.
 */
static void test_snaplen_short_udp_length(void **state)
{
	struct frame *f;

	(void)state;
	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
	g_fx.n = 0;
	f = v4(&g_fx);
	send_only(f, 1);
	fr_udp_len(f, FR_UDP_LEN + S_BTH + S_ICRC - 1);
	fr_finish(f);
	f->wire_len = f->len;
	fr_cut(f, fr_off(f, FR_H_BTH) + 6);
	assert_int_equal(probe_run_frame(&g_probe, f->data, f->len, f->wire_len, TS(0), FX_PATH),
			 0);
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	assert_int_equal(g_snap.totals[FP_CNT_MALFORMED], 1);
	assert_int_equal(g_snap.totals[FP_CNT_ROCE_CUT], 0);
	assert_int_equal(g_snap.totals[FP_CNT_OTHER], 0);
}

/*
 * docs/sflow.md's table of the header size sFlow needs: where the BTH ends
 * (bare RoCE over IPv4 54, in VXLAN 104, 124 with one IPv6, 144 in IPv6 in
 * IPv6), and what a header cut shorter counts as: a cut after the RoCE
 * port (the inner UDP header's bytes 2-3, 128 in IPv6 in IPv6) or inside
 * the BTH is roce_cut, the whole BTH is RoCE.
 */
struct bth_end_case {
	const char *name;
	const struct vx_spec *vx; /* NULL: bare RoCE */
	bool v6;		  /* bare: over IPv6 */
	__u32 end;
};

static const struct bth_end_case bth_end_cases[] = {
    {"bare_ipv4", NULL, false, 54},
    {"bare_ipv6", NULL, true, 74},
    {"vxlan_ipv4_in_ipv4", &vx_44, false, 104},
    {"vxlan_ipv6_in_ipv4", &vx_46, false, 124},
    {"vxlan_ipv4_in_ipv6", &vx_64, false, 124},
    {"vxlan_ipv6_in_ipv6", &vx_66, false, 144},
};

/* The case's frame up to its BTH. */
static struct frame *bth_end_frame(const struct bth_end_case *bc)
{
	struct frame *f;

	if (bc->vx)
		return vxlan(&g_fx, bc->vx);
	if (!bc->v6)
		return v4(&g_fx);
	f = fx_frame(&g_fx);
	fr_eth(f, FP_ETH_P_IPV6);
	fr_ipv6(f, &ip_a6, FP_IPPROTO_UDP);
	fr_udp(f, SPORT, ROCE_PORT);
	return f;
}

static void test_bth_end(void **state)
{
	const struct bth_end_case *bc = *state;

	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
	g_fx.n = 0;
	for (int i = 0; i < 3; i++) {
		struct frame *f = bth_end_frame(bc);
		__u32 wire, cut;

		send_only(f, 1 + i);
		wire = f->len;
		assert_int_equal(fr_off(f, FR_H_BTH) + S_BTH, bc->end);
		/* After the RoCE port, inside the BTH, then the BTH whole. */
		cut = i == 0 ? fr_off(f, FR_H_BTH) - 4 : i == 1 ? bc->end - 1 : bc->end;
		fr_cut(f, cut);
		assert_int_equal(probe_run_frame(&g_probe, f->data, f->len, wire, TS(i), FX_PATH),
				 0);
	}
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	assert_int_equal(g_snap.totals[FP_CNT_ROCE_CUT], 2);
	assert_int_equal(g_snap.totals[FP_CNT_ROCE], 1);
	assert_int_equal(g_snap.totals[FP_CNT_MALFORMED], 0);
}

/* ---- LRU pressure ---------------------------------------------------------- */

#define LRU_ENTRIES 64
#define LRU_FLOWS   1000

/* Rewrite a built frame's BTH destination QP and PSN in place (no ICRC check reads them). */
static void set_qp_psn(struct frame *f, __u32 qp, __u32 psn)
{
	__u8 *b = f->data + fr_off(f, FR_H_BTH);

	b[5] = qp >> 16;
	b[6] = qp >> 8;
	b[7] = qp;
	b[9] = psn >> 16;
	b[10] = psn >> 8;
	b[11] = psn;
}

/* Flows first .. last, one SEND each, stamped TS(qp). */
static void send_flows(struct frame *f, __u32 first, __u32 last)
{
	for (__u32 qp = first; qp <= last; qp++) {
		set_qp_psn(f, qp, 100);
		assert_int_equal(
		    probe_run_frame(&g_probe, f->data, f->len, f->len, TS(qp), FX_PATH), 0);
	}
}

/*
 * After send_flows(f, 1, sent) of b_send_only: each flow in g_snap is one
 * of ours, whole (one packet at its own time), and the last one sent is
 * there.
 */
static void assert_survivors_whole(__u32 sent)
{
	bool newest = false;

	for (size_t i = 0; i < g_snap.n_flows; i++) {
		const struct flow_record *r = &g_snap.flows[i];
		struct flow_key k;

		key_from(&k, &(struct exp_key)KEY_V4, FP_DIR_INGRESS);
		k.dest_qp = r->key.dest_qp;
		assert_memory_equal(&r->key, &k, sizeof(k));
		assert_in_range(r->key.dest_qp, 1, sent);
		assert_int_equal(r->c.packets, 1);
		assert_int_equal(r->c.bytes, SEND64);
		assert_int_equal(r->c.first_seen_ns, TS(r->key.dest_qp));
		newest |= r->key.dest_qp == sent;
	}
	assert_true(newest);
}

/* A read that starts from no evictions: a snapshot keeps their highest between reads. */
static void forget_evictions(void)
{
	snapshot_free(&g_snap);
}

static void test_lru_pressure(void **state)
{
	__u64 want[FP_CNT_MAX] = {0};
	struct frame *f;

	(void)state;
	forget_evictions();
	load(&g_probe, NULL, LRU_ENTRIES, PROBE_HOOK_XDP);
	build(&g_fx, b_send_only, NULL);
	f = &g_fx.frames[0];
	send_flows(f, 1, LRU_FLOWS);
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);

	want[FP_CNT_FRAMES] = LRU_FLOWS;
	want[FP_CNT_BYTES] = LRU_FLOWS * SEND64;
	want[FP_CNT_ROCE] = LRU_FLOWS;
	want[FP_CNT_FLOW_NEW] = LRU_FLOWS;
	check_totals(&g_snap, want);

	assert_true(g_snap.n_flows > 0);
	assert_true(g_snap.n_flows <= LRU_ENTRIES);
	assert_int_equal(snapshot_evictions(&g_snap), LRU_FLOWS - g_snap.n_flows);
	/* LRU evicts the least recently used, never the flow just inserted. */
	assert_survivors_whole(LRU_FLOWS);
}

/* ---- the slot table ---------------------------------------------------------- */

/* Slots whose tag is published: the IPv4 flows the slot table holds. */
static __u32 slot_entries(const struct probe *p)
{
	__u32 n = 0;

	for (__u32 b = 0; b < p->slot_buckets; b++)
		for (int i = 0; i < FP_SLOT_WAYS; i++)
			n += p->slots[b].tag[i] & 1;
	return n;
}

static __u32 table_entries(int fd)
{
	struct flow_key k, prev;
	__u32 n = 0;

	while (!bpf_map_get_next_key(fd, n ? &prev : NULL, &k)) {
		prev = k;
		n++;
	}
	return n;
}

#define COLLIDE_FLOWS 20

/*
 * Forced collisions: with the tag cut to one bit every flow hashes to
 * bucket 0 with one tag, its first bucket and its second. Eight flows take
 * its slots, the rest fp_flows4, and no two share counters or PSN state:
 * each of 20 queue pairs sends PSN 1, 2, 2 (a retransmit) and 4 (a gap),
 * interleaved. With the tag's top half cut (tag_mask 0xffffffff) every
 * flow's first bucket is 0 but their second buckets differ: the flows past
 * bucket 0's eight take slots there, and bucket 0's claim word counts
 * every claim.
 */
static void slot_collisions(__u32 table, __u64 tag_mask, __u32 in_slots)
{
	static const __u32 psns[] = {1, 2, 2, 4};
	struct frame *f;

	forget_evictions();
	load_tagged(&g_probe, NULL, table, PROBE_HOOK_XDP, tag_mask);
	assert_true(g_probe.slot_buckets > 1);
	build(&g_fx, b_send_only, NULL);
	f = &g_fx.frames[0];
	for (size_t i = 0; i < sizeof(psns) / sizeof(psns[0]); i++)
		for (__u32 qp = 1; qp <= COLLIDE_FLOWS; qp++) {
			set_qp_psn(f, qp, psns[i]);
			assert_int_equal(
			    probe_run_frame(&g_probe, f->data, f->len, f->len, TS(qp), FX_PATH), 0);
		}
	for (int i = 0; i < FP_SLOT_WAYS; i++)
		assert_int_equal(g_probe.slots[0].tag[i] & (tag_mask | 1), g_probe.slots[0].tag[i]);
	assert_int_equal(g_probe.slots[0].claims, in_slots);
	assert_int_equal(slot_entries(&g_probe), in_slots);
	assert_int_equal(table_entries(bpf_map__fd(g_probe.skel->maps.fp_flows4)),
			 COLLIDE_FLOWS - in_slots);
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	assert_int_equal(g_snap.n_flows, COLLIDE_FLOWS);
	assert_int_equal(g_snap.merged, 0);
	assert_int_equal(g_snap.totals[FP_CNT_FLOW_NEW], COLLIDE_FLOWS);
	assert_int_equal(snapshot_evictions(&g_snap), 0);
	for (size_t i = 0; i < g_snap.n_flows; i++) {
		const struct flow_record *r = &g_snap.flows[i];

		assert_in_range(r->key.dest_qp, 1, COLLIDE_FLOWS);
		/* Slots first, bucket 0's in the order the flows came. */
		if (i < FP_SLOT_WAYS)
			assert_int_equal(r->key.dest_qp, i + 1);
		assert_int_equal(r->c.packets, 4);
		assert_int_equal(r->c.retransmits, 1);
		assert_int_equal(r->c.psn_gaps, 1);
		assert_int_equal(r->c.psn.max_psn, 4);
		assert_int_equal(r->c.first_seen_ns, TS(r->key.dest_qp));
	}
}

static void test_slot_collisions(void **state)
{
	(void)state;
	slot_collisions(FX_FLOWS, 1, FP_SLOT_WAYS);
}

/*
 * The same in a table whose slot table is read on one CPU while
 * fp_flows4 is walked on another (collect.c, COLLECT_PAR_MIN_SLOTS): the
 * walk's 12 flows reach the snapshot whole, after the slots'.
 */
static void test_slot_collisions_two_cpus(void **state)
{
	(void)state;
	if (par_parts(2, 1) < 2)
		skip(); /* one CPU: nothing to read beside */
	slot_collisions(100000, 1, FP_SLOT_WAYS);
	assert_true(g_probe.slot_buckets * FP_SLOT_WAYS >= 65536);
}

/*
 * Every flow's first bucket 0, their second buckets apart: all 20 in
 * slots. A flow in its second bucket and in fp_flows4 too (two CPUs raced
 * its first packets: one claimed, the other saw the claim under way) is
 * one record, its counters summed.
 */
static void test_slot_second_bucket(void **state)
{
	struct flow_counters extra = {.bytes = 1000, .ecn = {2}, .last_seen_ns = TS(99)};
	const struct flow_slot *s = NULL;

	(void)state;
	slot_collisions(FX_FLOWS, 0xffffffffULL, COLLIDE_FLOWS);
	for (__u32 b = 1; b < g_probe.slot_buckets && !s; b++)
		for (int i = 0; i < FP_SLOT_WAYS && !s; i++)
			if (g_probe.slots[b].tag[i] & 1)
				s = &g_probe.slots[b].slot[i];
	assert_non_null(s);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(g_probe.skel->maps.fp_flows4), &s->key,
					     &extra, BPF_NOEXIST),
			 0);
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	assert_int_equal(g_snap.n_flows, COLLIDE_FLOWS);
	assert_int_equal(g_snap.merged, 1);
	for (size_t i = 0; i < g_snap.n_flows; i++) {
		const struct flow_record *r = &g_snap.flows[i];
		bool twice = r->key.dest_qp == s->key.dest_qp;

		assert_int_equal(r->c.packets, twice ? 4 + 2 : 4);
		assert_int_equal(r->c.last_seen_ns, twice ? TS(99) : TS(r->key.dest_qp));
	}
}

/*
 * Every one of the 20 flows of test_slot_second_bucket also in fp_flows4:
 * each entry found in its slot, first bucket or second, wherever it
 * falls among the entries collect looks up together (SLOT_AHEAD), and
 * summed into that slot's record.
 */
static void test_slot_second_bucket_every_flow_twice(void **state)
{
	struct flow_counters extra = {.ecn = {2}, .last_seen_ns = TS(99)};
	int fd, copies = 0;

	(void)state;
	slot_collisions(FX_FLOWS, 0xffffffffULL, COLLIDE_FLOWS);
	fd = bpf_map__fd(g_probe.skel->maps.fp_flows4);
	for (__u32 b = 0; b < g_probe.slot_buckets; b++)
		for (int i = 0; i < FP_SLOT_WAYS; i++)
			if (g_probe.slots[b].tag[i] & 1) {
				const struct flow_key4 *k = &g_probe.slots[b].slot[i].key;

				/* Each copy its own bytes: summed into its own flow's record. */
				extra.bytes = 1000 + k->dest_qp;
				assert_int_equal(bpf_map_update_elem(fd, k, &extra, BPF_NOEXIST),
						 0);
				copies++;
			}
	assert_int_equal(copies, COLLIDE_FLOWS);
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	assert_int_equal(g_snap.n_flows, COLLIDE_FLOWS);
	assert_int_equal(g_snap.merged, COLLIDE_FLOWS);
	for (size_t i = 0; i < g_snap.n_flows; i++) {
		assert_int_equal(g_snap.flows[i].c.packets, 4 + 2);
		assert_int_equal(g_snap.flows[i].c.bytes,
				 4 * SEND64 + 1000 + g_snap.flows[i].key.dest_qp);
		assert_int_equal(g_snap.flows[i].c.last_seen_ns, TS(99));
	}
}

/*
 * A claim under way (a slot busy: another CPU writing its key) in a new
 * flow's buckets sends the flow to fp_flows4: that claim may be for the
 * same flow. With none under way, the next new flow claims bucket 0's
 * next free slot, and the claim word counts the claims made.
 */
static void test_slot_claim_under_way(void **state)
{
	int fd;
	struct frame *f;

	(void)state;
	forget_evictions();
	load_tagged(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP, 1);
	fd = bpf_map__fd(g_probe.skel->maps.fp_flows4);
	build(&g_fx, b_send_only, NULL);
	f = &g_fx.frames[0];
	send_flows(f, 1, 1);
	assert_int_equal(g_probe.slots[0].tag[0], 1);
	g_probe.slots[0].tag[FP_SLOT_WAYS - 1] = FP_SLOT_BUSY;
	send_flows(f, 2, 2);
	assert_int_equal(g_probe.slots[0].tag[1], FP_SLOT_FREE);
	assert_int_equal(table_entries(fd), 1);
	assert_int_equal(g_probe.slots[0].claims, 1);
	g_probe.slots[0].tag[FP_SLOT_WAYS - 1] = FP_SLOT_FREE;
	send_flows(f, 3, 3);
	assert_int_equal(g_probe.slots[0].tag[1], 1);
	assert_int_equal(g_probe.slots[0].claims, 2);
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	assert_int_equal(g_snap.n_flows, 3);
	assert_int_equal(g_snap.totals[FP_CNT_FLOW_NEW], 3);
	assert_survivors_whole(3);
}

#define FED_FLOWS 10000

/*
 * fp_flows4's entries widened as the walk gives them (collect.c,
 * table_read.c): 10,000 flows in one bucket's tag, 8 in its slots and
 * the rest in fp_flows4, walked in three batches, the buffers growing
 * at the first read as the walk goes. Every flow reaches the snapshot
 * once and whole, after the slots', read after read.
 */
static void test_fed_while_walked(void **state)
{
	struct frame *f;
	bool *seen;

	(void)state;
	if (par_parts(2, 1) < 2)
		skip(); /* one CPU: nothing to read beside */
	seen = calloc(FED_FLOWS + 1, sizeof(*seen));
	assert_non_null(seen);
	forget_evictions();
	load_tagged(&g_probe, NULL, 100000, PROBE_HOOK_XDP, 1);
	build(&g_fx, b_send_only, NULL);
	f = &g_fx.frames[0];
	send_flows(f, 1, FED_FLOWS);
	for (int read = 0; read < 2; read++) {
		memset(seen, 0, (FED_FLOWS + 1) * sizeof(*seen));
		assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
		assert_int_equal(g_snap.merged, 0);
		assert_int_equal(g_snap.n_flows + snapshot_evictions(&g_snap), FED_FLOWS);
		assert_true(g_snap.n_flows > 2 * TABLE_BATCH + FP_SLOT_WAYS);
		assert_survivors_whole(FED_FLOWS);
		for (size_t i = 0; i < g_snap.n_flows; i++) {
			__u32 qp = g_snap.flows[i].key.dest_qp;

			assert_false(seen[qp]);
			seen[qp] = true;
			if (i < FP_SLOT_WAYS)
				assert_int_equal(qp, i + 1);
		}
	}
	free(seen);
}

#define CHURN_FLOWS 200

/* Each flow's rid in g_snap by its queue pair, checked unique and below n_rids. */
static void rids_by_qp(__u32 *rid, size_t n)
{
	bool *taken = calloc(g_snap.n_rids, sizeof(*taken));

	assert_non_null(taken);
	for (size_t i = 0; i < n; i++)
		rid[i] = UINT32_MAX;
	for (size_t i = 0; i < g_snap.n_flows; i++) {
		const struct flow_record *r = &g_snap.flows[i];

		assert_in_range(r->key.dest_qp, 1, n - 1);
		assert_true(r->rid < g_snap.n_rids);
		assert_false(taken[r->rid]);
		taken[r->rid] = true;
		rid[r->key.dest_qp] = r->rid;
	}
	free(taken);
}

/*
 * A flow keeps its rid while it stays in fp_flows4, whatever its place in
 * the table's walk: 200 flows in one bucket (8 slots, 192 in fp_flows4),
 * every third of fp_flows4's deleted and 60 new ones sent. The survivors
 * keep theirs, the new flows take the rids the gone ones left (so the rids
 * stay as many), and a read with nothing changed changes no rid. The table
 * is large: a 256-entry LRU can evict before it is full (its free entries
 * are handed to each CPU in batches of 128, and those a CPU holds are not
 * another's), which made this test fail now and then on two CPUs.
 */
static void test_table_rids_churn(void **state)
{
	__u32 before[CHURN_FLOWS + 61], after[CHURN_FLOWS + 61];
	int fd;
	__u32 n_rids, gone = 0;
	struct frame *f;

	(void)state;
	forget_evictions();
	load_tagged(&g_probe, NULL, 100000, PROBE_HOOK_XDP, 1);
	fd = bpf_map__fd(g_probe.skel->maps.fp_flows4);
	build(&g_fx, b_send_only, NULL);
	f = &g_fx.frames[0];
	send_flows(f, 1, CHURN_FLOWS);
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	assert_int_equal(g_snap.n_flows, CHURN_FLOWS);
	rids_by_qp(before, CHURN_FLOWS + 61);
	n_rids = g_snap.n_rids;
	assert_int_equal(n_rids, g_probe.slot_buckets * FP_SLOT_WAYS + CHURN_FLOWS - FP_SLOT_WAYS);

	for (size_t i = 0; i < g_snap.n_flows; i++) {
		struct flow_key4 k4;

		if (g_snap.flows[i].key.dest_qp <= FP_SLOT_WAYS || g_snap.flows[i].key.dest_qp % 3)
			continue;
		fp_key4_from(&k4, &g_snap.flows[i].key);
		assert_int_equal(bpf_map_delete_elem(fd, &k4), 0);
		gone++;
	}
	assert_true(gone >= 60);
	send_flows(f, CHURN_FLOWS + 1, CHURN_FLOWS + 60);
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	assert_int_equal(g_snap.n_flows, CHURN_FLOWS - gone + 60);
	rids_by_qp(after, CHURN_FLOWS + 61);
	for (__u32 qp = 1; qp <= CHURN_FLOWS; qp++) {
		bool kept = qp <= FP_SLOT_WAYS || qp % 3;

		assert_int_equal(after[qp], kept ? before[qp] : UINT32_MAX);
	}
	for (__u32 qp = CHURN_FLOWS + 1; qp <= CHURN_FLOWS + 60; qp++) {
		bool was_gone = false;

		for (__u32 old = FP_SLOT_WAYS + 1; old <= CHURN_FLOWS; old++)
			was_gone |= !(old % 3) && before[old] == after[qp];
		assert_true(was_gone);
	}
	assert_int_equal(g_snap.n_rids, n_rids);

	/*
	 * Nothing changed in fp_flows4: its flows keep their rids again. (The
	 * deletions count as evictions, so collect frees the slots, whose
	 * flows are gone from this read.)
	 */
	memcpy(before, after, sizeof(before));
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	rids_by_qp(after, CHURN_FLOWS + 61);
	for (__u32 qp = FP_SLOT_WAYS + 1; qp <= CHURN_FLOWS + 60; qp++)
		assert_int_equal(after[qp], before[qp]);
}

/*
 * A flow counted in two places (two CPUs raced its first packets: one
 * claimed a slot, the other counted in fp_flows4; or, on a CPU that does
 * not see stores in order, claimed a second slot) is one record, its counters summed, its last
 * packet's fields from the entry that saw it. Made here by writing the copies from userspace.
 */
static void test_slot_merge(void **state)
{
	struct flow_counters extra = {.bytes = 1000,
				      .ecn = {3},
				      .cnp = 2,
				      .first_seen_ns = TS(0),
				      .last_seen_ns = TS(9),
				      .dscp_mask = 1ULL << 40,
				      .dscp = 40};
	struct fp_slot_bucket *bk = NULL;
	struct frame *f;
	int way = -1;

	(void)state;
	forget_evictions();
	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
	build(&g_fx, b_send_only, NULL);
	f = &g_fx.frames[0];
	assert_int_equal(probe_run_frame(&g_probe, f->data, f->len, f->len, TS(1), FX_PATH), 0);
	for (__u32 b = 0; b < g_probe.slot_buckets && way < 0; b++)
		for (int i = 0; i < FP_SLOT_WAYS; i++)
			if (g_probe.slots[b].tag[i] & 1) {
				bk = &g_probe.slots[b];
				way = i;
			}
	assert_non_null(bk);
	assert_true(way < FP_SLOT_WAYS - 1);
	/* The same key in fp_flows4, and in the next way of the bucket. */
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(g_probe.skel->maps.fp_flows4),
					     &bk->slot[way].key, &extra, BPF_NOEXIST),
			 0);
	bk->slot[way + 1].key = bk->slot[way].key;
	bk->slot[way + 1].c =
	    (struct flow_counters){.bytes = 7, .ecn = {[3] = 1}, .last_seen_ns = TS(0)};
	bk->tag[way + 1] = bk->tag[way];

	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	assert_int_equal(g_snap.n_flows, 1);
	assert_int_equal(g_snap.merged, 2);
	assert_int_equal(g_snap.flows[0].c.packets, 1 + 3 + 1);
	assert_int_equal(g_snap.flows[0].c.bytes, SEND64 + 1000 + 7);
	assert_int_equal(g_snap.flows[0].c.ecn[3], 1);
	assert_int_equal(g_snap.flows[0].c.cnp, 2);
	assert_int_equal(g_snap.flows[0].c.first_seen_ns, TS(0));
	assert_int_equal(g_snap.flows[0].c.last_seen_ns, TS(9));
	assert_int_equal(g_snap.flows[0].c.dscp, 40);
	assert_true(g_snap.flows[0].c.dscp_mask & (1ULL << 40));
	assert_int_not_equal(g_snap.flows[0].c.dscp_mask, 1ULL << 40);
	/* One flow in three entries, one of them the kernel's: no eviction. */
	assert_int_equal(snapshot_evictions(&g_snap), 0);
}

/*
 * A full table of both kinds: 1024 IPv4 flows' room (768 slots and a
 * 256-entry fp_flows4) and 3000 flows of one packet. Evictions are exact
 * (every flow counted new, once), every survivor is whole, and the newest
 * flow is there: in a slot, or the LRU's most recent entry.
 */
#define SLOT_PRESSURE_FLOWS 3000

static void test_slot_pressure(void **state)
{
	struct frame *f;

	(void)state;
	forget_evictions();
	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
	assert_int_equal(g_probe.slot_buckets * FP_SLOT_WAYS, FX_FLOWS - FX_FLOWS / 4);
	build(&g_fx, b_send_only, NULL);
	f = &g_fx.frames[0];
	send_flows(f, 1, SLOT_PRESSURE_FLOWS);
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	assert_int_equal(g_snap.totals[FP_CNT_FLOW_NEW], SLOT_PRESSURE_FLOWS);
	assert_int_equal(g_snap.totals[FP_CNT_FRAMES], SLOT_PRESSURE_FLOWS);
	assert_true(g_snap.n_flows > FX_FLOWS / 2);
	assert_true(g_snap.n_flows <= FX_FLOWS);
	assert_int_equal(g_snap.merged, 0);
	assert_int_equal(snapshot_evictions(&g_snap), SLOT_PRESSURE_FLOWS - g_snap.n_flows);
	assert_survivors_whole(SLOT_PRESSURE_FLOWS);
}

/*
 * Freeing slots: 2000 flows fill the 768 slots and overflow fp_flows4
 * (256 entries). The read after frees as many slots as fp_flows4 took
 * new flows, its oldest flows' (all older than fp_flows4's oldest); a
 * read with no new flow frees none; new flows then take freed slots. At
 * every read evictions are inserts minus entries, exactly.
 */
static void test_slot_reclaim(void **state)
{
	__u32 in_slots, lru_entries = FX_FLOWS / 4;
	size_t n1;
	struct frame *f;

	(void)state;
	forget_evictions();
	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
	build(&g_fx, b_send_only, NULL);
	f = &g_fx.frames[0];
	send_flows(f, 1, 2000);
	in_slots = slot_entries(&g_probe);
	assert_int_equal(in_slots, FX_FLOWS - lru_entries);

	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	n1 = g_snap.n_flows;
	assert_int_equal(snapshot_evictions(&g_snap), 2000 - n1);
	/* Every flow fp_flows4 holds came after the slots filled: all of them new. */
	assert_int_equal(slot_entries(&g_probe), in_slots - (n1 - in_slots));
	in_slots = slot_entries(&g_probe);

	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	assert_int_equal(g_snap.n_flows, in_slots + (n1 - FX_FLOWS + lru_entries));
	assert_int_equal(slot_entries(&g_probe), in_slots); /* nothing new: nothing freed */
	assert_int_equal(snapshot_evictions(&g_snap), 2000 - g_snap.n_flows);
	for (size_t i = 0; i < g_snap.n_flows; i++) {
		assert_int_equal(g_snap.flows[i].c.packets, 1);
		assert_int_equal(g_snap.flows[i].c.first_seen_ns, TS(g_snap.flows[i].key.dest_qp));
	}

	send_flows(f, 2001, 2100);
	assert_true(slot_entries(&g_probe) > in_slots);
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	assert_int_equal(snapshot_evictions(&g_snap), 2100 - g_snap.n_flows - g_snap.merged);
	assert_int_equal(g_snap.merged, 0);
}

/* From here on, this process's membarrier() fails with EPERM, as a container's seccomp may. */
static int deny_membarrier(void)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_membarrier, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/*
 * Where no grace period can be waited for (membarrier refused), no slot is
 * freed: the tags retired for it are put back, the flows stay whole and
 * counted once, one line says so, and later reads do not try again. In a
 * child process, as the filter cannot be taken off.
 */
static void test_slot_reclaim_refused(void **state)
{
	struct frame *f;
	int status;
	pid_t pid;

	(void)state;
	forget_evictions();
	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
	build(&g_fx, b_send_only, NULL);
	f = &g_fx.frames[0];
	send_flows(f, 1, 2000);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		__u32 in_slots = slot_entries(&g_probe);
		bool ok = !deny_membarrier();

		ok = ok && !collect_snapshot(&g_probe, &g_snap) && g_probe.slots_stuck;
		ok = ok && slot_entries(&g_probe) == in_slots;
		ok = ok && snapshot_evictions(&g_snap) == 2000 - g_snap.n_flows && !g_snap.merged;
		for (__u32 b = 0; ok && b < g_probe.slot_buckets; b++)
			for (int i = 0; i < FP_SLOT_WAYS; i++)
				ok = ok && (g_probe.slots[b].tag[i] & 1);
		ok = ok && !collect_snapshot(&g_probe, &g_snap) &&
		     slot_entries(&g_probe) == in_slots;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/*
 * Each flow keeps its request-PSN state in its own entry: 1000 queue pairs
 * interleaved, each sending PSN 1, 2, 2 (a retransmit) and 4 (a gap), all
 * count exactly one of each. A tracker shared by slot, as a hash-indexed
 * array, loses some: two flows of one slot restart each other's tracking.
 */
static void check_psn_per_flow(void)
{
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	assert_int_equal(g_snap.n_flows, LRU_FLOWS);
	assert_int_equal(g_snap.totals[FP_CNT_FLOW_NEW], LRU_FLOWS);
	assert_int_equal(g_snap.totals[FP_CNT_FRAMES], 4 * LRU_FLOWS);
	for (size_t i = 0; i < g_snap.n_flows; i++) {
		const struct flow_counters *c = &g_snap.flows[i].c;

		assert_int_equal(c->packets, 4);
		assert_int_equal(c->retransmits, 1);
		assert_int_equal(c->psn_gaps, 1);
		assert_int_equal(c->psn.tracking, 1);
		assert_int_equal(c->psn.last_psn, 4);
		assert_int_equal(c->psn.max_psn, 4);
		assert_int_equal(c->psn.next_psn_max, 5);
		assert_int_equal(c->first_seen_ns, TS(g_snap.flows[i].key.dest_qp));
	}
}

/*
 * threads 0: each frame alone through fp_xdp; else through replay's pool
 * of that many threads, in fp_replay's batches, which the frames fill to
 * FP_BATCH_MAX_FRAMES: a flow's four frames land in different batches and,
 * with two threads, every flow stays on its thread in order.
 */
/*
 * loading: the pool loads a probe of its own (runpool_new_loading()).
 * The first frames of flows 1-10 are queued long before the verifier is
 * done (it takes tens of ms; the queueing well under one), one by one for
 * the workers to pack; then, the program loaded, the rest are packed by
 * the submitter into the same unqueued batches, after them. A flow's
 * frames must still run in order (a worker that ran the packed batches
 * before the frames it packs itself would show flows 1-10 their PSN 2,
 * packed, before their PSN 1), and count as the other paths do.
 */
static void run_psn_per_flow(int threads, bool loading)
{
	static const __u32 psns[] = {1, 2, 2, 4};
	struct probe_opts o = fixture_opts(NULL, 2 * LRU_FLOWS, PROBE_HOOK_REPLAY, 0);
	struct runpool *rp = NULL;
	struct probe own = {}, cached;
	struct frame *f;

	load(&g_probe, NULL, 2 * LRU_FLOWS, threads ? PROBE_HOOK_REPLAY : PROBE_HOOK_XDP);
	build(&g_fx, b_send_only, NULL);
	if (threads) {
		rp = loading ? runpool_new_loading(&own, &o, threads)
			     : runpool_new(&g_probe, threads);
		assert_non_null(rp);
	}
	f = &g_fx.frames[0];
	for (size_t i = 0; i < sizeof(psns) / sizeof(psns[0]); i++) {
		for (__u32 qp = 1; qp <= LRU_FLOWS; qp++) {
			if (loading && i == 0 && qp == 11)
				assert_int_equal(runpool_wait_loaded(rp), 0);
			set_qp_psn(f, qp, psns[i]);
			/* Both ways copy the frame before it changes again. */
			if (rp)
				assert_int_equal(
				    shard_submit(rp, f->data, f->len, f->len, TS(qp), FX_PATH, qp),
				    0);
			else
				assert_int_equal(probe_run_frame(&g_probe, f->data, f->len, f->len,
								 TS(qp), FX_PATH),
						 0);
		}
	}
	if (rp) {
		assert_int_equal(runpool_drain(rp), 0);
		assert_int_equal(runpool_refused(rp), 0);
		runpool_free(rp);
	}
	cached = g_probe;
	if (loading)
		g_probe = own;
	check_psn_per_flow();
	g_probe = cached;
	if (loading)
		probe_destroy(&own);
}

static void test_psn_per_flow(void **state)
{
	(void)state;
	run_psn_per_flow(0, false);
}

static void test_psn_per_flow_batches(void **state)
{
	run_psn_per_flow(*(const int *)*state, false);
}

static void test_psn_per_flow_loading(void **state)
{
	run_psn_per_flow(*(const int *)*state, true);
}

/*
 * A pool whose program cannot run (loaded with no program at all): the
 * wait says so, frames queued meanwhile are dropped unrun, nothing counts
 * as refused, and the pool still drains and frees.
 */
static void test_loading_pool_fails(void **state)
{
	struct probe_opts o = fixture_opts(NULL, 2 * LRU_FLOWS, 0, 0);
	struct probe own = {};
	struct runpool *rp;

	(void)state;
	if (geteuid() != 0)
		skip();
	build(&g_fx, b_send_only, NULL);
	rp = runpool_new_loading(&own, &o, 2);
	assert_non_null(rp);
	for (__u32 qp = 1; qp <= 100; qp++) {
		set_qp_psn(&g_fx.frames[0], qp, 1);
		assert_int_equal(shard_submit(rp, g_fx.frames[0].data, g_fx.frames[0].len,
					      g_fx.frames[0].len, TS(qp), FX_PATH, qp),
				 0);
	}
	assert_true(runpool_wait_loaded(rp) < 0);
	assert_int_equal(runpool_drain(rp), 0);
	assert_int_equal(runpool_refused(rp), 0);
	runpool_free(rp);
	assert_int_equal(collect_snapshot(&own, &g_snap), 0);
	assert_int_equal(g_snap.n_flows, 0);
	probe_destroy(&own);
}

/* ---- replay's batches ------------------------------------------------------- */

/* A raw batch of fp_replay: frames' bytes below their records, as probe_batch_add lays them. */
static __u32 raw_batch(__u8 *buf, __u32 size, const struct frame *f, int n, __u32 head_frames)
{
	__u32 pos = size - FP_BATCH_TAIL;

	for (int i = 0; i < n; i++) {
		struct fp_batch_rec r = {
		    .ts_ns = TS(i), .path_id = FX_PATH, .wire_len = f->len, .cap_len = f->len};

		pos -= f->len + sizeof(r);
		memcpy(buf + pos, f->data, f->len);
		memcpy(buf + pos + f->len, &r, sizeof(r));
	}
	pos -= sizeof(struct fp_batch_head);
	memcpy(buf + pos,
	       &(struct fp_batch_head){
		   .magic = FP_BATCH_MAGIC, .frames = head_frames, .len = size - pos},
	       sizeof(struct fp_batch_head));
	return pos;
}

static __u32 run_raw(const __u8 *data, __u32 len)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = data, .data_size_in = len, .repeat = 1);

	assert_int_equal(
	    bpf_prog_test_run_opts(bpf_program__fd(g_probe.skel->progs.fp_replay), &topts), 0);
	return topts.retval;
}

static __u64 frames_counted(void)
{
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	return g_snap.totals[FP_CNT_FRAMES];
}

/*
 * A batch that is not what its head says is refused (XDP_ABORTED, which
 * probe_batch_run() turns into -EPROTO): the frames before the bad record
 * count, none after it. And what the builder will not take.
 */
static void test_replay_batch_refused(void **state)
{
	static __u8 buf[PROBE_BATCH_BYTES + 1024] __attribute__((aligned(8)));
	struct fp_replay_meta m = {.ts_ns = TS(0), .path_id = FX_PATH};
	struct probe_batch *b = calloc(1, sizeof(*b));
	const struct frame *f;
	__u32 at, n;

	(void)state;
	assert_non_null(b);
	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
	assert_int_equal(g_probe.batch_bytes, 0); /* no fp_replay: every frame alone */
	probe_batch_reset(b, &g_probe);
	build(&g_fx, b_send_only, NULL);
	f = &g_fx.frames[0];
	m.wire_len = f->len;
	assert_false(probe_batch_add(b, f->data, f->len, &m));

	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_REPLAY);
	assert_int_equal(g_probe.batch_bytes, PROBE_BATCH_BYTES);

	/* Good: three frames, all counted. */
	at = raw_batch(buf, 1024, f, 3, 3);
	assert_int_equal(run_raw(buf + at, 1024 - at), XDP_PASS_);
	assert_int_equal(frames_counted(), 3);

	/* Not a batch: no magic, or a length other than the data's. */
	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_REPLAY);
	at = raw_batch(buf, 1024, f, 3, 3);
	buf[at] ^= 1;
	assert_int_equal(run_raw(buf + at, 1024 - at), XDP_ABORTED_);
	at = raw_batch(buf, 1024, f, 3, 3);
	assert_int_equal(run_raw(buf + at, 1024 - at - 1), XDP_ABORTED_);
	/* Longer than the kernel lays out in one piece (3520 bytes): cut, and refused. */
	n = (sizeof(buf) - 2 * FP_BATCH_TAIL) / (f->len + sizeof(struct fp_batch_rec));
	at = raw_batch(buf, sizeof(buf), f, n, n);
	assert_true(sizeof(buf) - at > 3520);
	assert_int_equal(run_raw(buf + at, sizeof(buf) - at), XDP_ABORTED_);
	assert_int_equal(frames_counted(), 0);

	/* The head says fewer frames than there are records: those run, then refused. */
	at = raw_batch(buf, 1024, f, 3, 2);
	assert_int_equal(run_raw(buf + at, 1024 - at), XDP_ABORTED_);
	assert_int_equal(frames_counted(), 2);
	/* More than there are: the walk reaches the head, which is no record. */
	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_REPLAY);
	at = raw_batch(buf, 1024, f, 3, 4);
	assert_int_equal(run_raw(buf + at, 1024 - at), XDP_ABORTED_);
	assert_int_equal(frames_counted(), 3);
	/* A record shorter than an Ethernet header, the second one walked: one frame runs. */
	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_REPLAY);
	at = raw_batch(buf, 1024, f, 3, 3);
	buf[1024 - FP_BATCH_TAIL - 2 * (f->len + sizeof(struct fp_batch_rec)) + f->len +
	    offsetof(struct fp_batch_rec, cap_len)] = 13;
	memset(buf + 1024 - FP_BATCH_TAIL - 2 * (f->len + sizeof(struct fp_batch_rec)) + f->len +
		   offsetof(struct fp_batch_rec, cap_len) + 1,
	       0, 3);
	assert_int_equal(run_raw(buf + at, 1024 - at), XDP_ABORTED_);
	assert_int_equal(frames_counted(), 1);

	/* The builder: an Ethernet header at least, FP_BATCH_MAX_FRAMES at most, room kept. */
	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_REPLAY);
	probe_batch_reset(b, &g_probe);
	assert_false(probe_batch_add(b, f->data, FP_BATCH_MIN_CAP - 1, &m));
	for (int i = 0; i < FP_BATCH_MAX_FRAMES; i++)
		assert_true(probe_batch_add(b, f->data, FP_BATCH_MIN_CAP, &m));
	assert_false(probe_batch_add(b, f->data, FP_BATCH_MIN_CAP, &m));
	assert_int_equal(
	    probe_batch_run(&g_probe, bpf_program__fd(g_probe.skel->progs.fp_replay), b), 0);
	assert_int_equal(frames_counted(), FP_BATCH_MAX_FRAMES);
	assert_int_equal(b->frames, 0);
	assert_false(probe_batch_add(b, buf, PROBE_BATCH_BYTES, &m));
	/* The longest frame a batch takes: the batch less its head, tail and one record. */
	n = PROBE_BATCH_BYTES - sizeof(struct fp_batch_head) - FP_BATCH_TAIL -
	    sizeof(struct fp_batch_rec);
	assert_int_equal(n, 3016); /* what docs/design.md and BENCHMARKS.md say */
	assert_false(probe_batch_add(b, buf, n + 1, &m));
	assert_true(probe_batch_add(b, buf, n, &m));
	assert_false(probe_batch_add(b, buf, FP_BATCH_MIN_CAP, &m));
	free(b);
}

/*
 * Two tables: a flow whose addresses are all IPv4 keeps a 48-byte key in
 * the slot table (or fp_flows4), one with an IPv6 address (outer or
 * inner) the whole key in fp_flows6. Each of the six (bare IPv4 and IPv6, VXLAN in all four
 * outer/inner pairs) lands in its table, and the
 * snapshot gives every key back whole: the IPv4 ones widened to the
 * address fields' first 4 bytes, the rest zero, as the parser lays them
 * (the fixtures' exact key checks, v4 and v6 alike, hold them to it).
 */
static void b_families(struct fx *fx)
{
	static const struct vx_spec specs[] = {
	    {.outer6 = false, .inner6 = false},
	    {.outer6 = true, .inner6 = false},
	    {.outer6 = false, .inner6 = true},
	    {.outer6 = true, .inner6 = true},
	};

	send_only(v4(fx), 100);
	v6_with(fx, 0);
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		send_only(vxlan(fx, &specs[i]), 100);
}

static void test_flow_tables_by_family(void **state)
{
	(void)state;
	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
	build(&g_fx, b_families, NULL);
	for (int i = 0; i < g_fx.n; i++) {
		const struct frame *f = &g_fx.frames[i];

		assert_int_equal(probe_run_frame(&g_probe, f->data, f->len, fr_wire_len(f),
						 f->ts_ns, f->path_id),
				 0);
	}
	assert_true(g_probe.slot_buckets > 0);
	assert_int_equal(slot_entries(&g_probe), 2);
	assert_int_equal(table_entries(bpf_map__fd(g_probe.skel->maps.fp_flows4)), 0);
	assert_int_equal(table_entries(bpf_map__fd(g_probe.skel->maps.fp_flows6)), 4);
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	assert_int_equal(g_snap.n_flows, 6);
	assert_int_equal(g_snap.flow_capacity, g_probe.flow_entries + g_probe.flow6_entries);
	for (size_t i = 0; i < g_snap.n_flows; i++) {
		const struct flow_key *k = &g_snap.flows[i].key;
		bool six = k->flags & FP_FLOW_ANY_IPV6;
		static const __u8 zero[12];

		/* The IPv4 flows come first, each address widened. */
		assert_int_equal(six, i >= 2);
		if (!six) {
			assert_memory_equal(k->src + 4, zero, 12);
			assert_memory_equal(k->dst + 4, zero, 12);
			assert_memory_equal(k->inner_src + 4, zero, 12);
			assert_memory_equal(k->inner_dst + 4, zero, 12);
			assert_int_not_equal(k->src[0] | k->src[3], 0);
		}
		assert_int_equal(g_snap.flows[i].c.packets, 1);
		assert_int_equal(k->dest_qp, QP_A);
	}
	/* The key-by-key read (kernels without batch ops) gives the same records, in order. */
	{
		struct snapshot iter = {0};

		assert_int_equal(collect_flows_mode(&g_probe, &iter, false), 0);
		assert_int_equal(iter.n_flows, g_snap.n_flows);
		for (size_t i = 0; i < iter.n_flows; i++) {
			assert_memory_equal(&iter.flows[i].key, &g_snap.flows[i].key,
					    sizeof(struct flow_key));
			assert_memory_equal(&iter.flows[i].c, &g_snap.flows[i].c,
					    sizeof(struct flow_counters));
		}
		snapshot_free(&iter);
	}
}

/*
 * One flow's packets on two CPUs at once. In replay the flow table holds
 * one entry for all CPUs (two when both CPUs' first packets meet), so
 * every add must be atomic or the counts come up short. Live, a slot is
 * its claimer's, which adds plainly, and the other CPU's packets count in
 * an fp_flows4 entry: were they added to the slot too, counts would be
 * lost. Each thread runs a VXLAN WRITE (outer CE, inner ECT(0)) and an
 * ACK SHARED_REPEAT times, pinned to its own CPU where there are two
 * (live: skipped where there are not).
 */
#define SHARED_REPEAT 200000

struct shared_run {
	int prog_fd, cpu;
	const struct frame *f[2];
	int err;
	bool pinned; /* on its CPU when it began */
};

/* Pin this thread to cpu: true if it runs there now. */
static bool pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return !pthread_setaffinity_np(pthread_self(), sizeof(set), &set) && sched_getcpu() == cpu;
}

static void *shared_worker(void *arg)
{
	struct shared_run *r = arg;

	r->pinned = pin_to(r->cpu); /* best effort: in replay one CPU counts right too */
	for (int i = 0; i < 2 && !r->err; i++) {
		const struct frame *f = r->f[i];
		struct fp_replay_meta meta = {
		    .ts_ns = f->ts_ns, .path_id = f->path_id, .wire_len = fr_wire_len(f)};
		__u8 buf[sizeof(meta) + FR_MAX_LEN];
		struct xdp_md ctx = {.data = sizeof(meta), .data_end = sizeof(meta) + f->len};
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = buf, .data_size_in = ctx.data_end,
			    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = SHARED_REPEAT);

		memcpy(buf, &meta, sizeof(meta));
		memcpy(buf + sizeof(meta), f->data, f->len);
		r->err = bpf_prog_test_run_opts(r->prog_fd, &o) ? -errno : 0;
	}
	return NULL;
}

static void b_vxlan_and_ack(struct fx *fx)
{
	struct vx_spec vx = {.outer_ecn = FR_CE, .inner_ecn = FR_ECT0};

	send_only(vxlan(fx, &vx), 100);
	ack(fx, SYN_ACK, 100);
}

static void test_shared_flow_two_cpus(void **state)
{
	bool live = *(const bool *)*state;
	struct probe_opts opts = fixture_opts(NULL, FX_FLOWS, PROBE_HOOK_XDP, 0);
	struct shared_run run[2];
	struct probe lp = {};
	struct probe *p = &g_probe;
	__u32 owned = 0;
	pthread_t th[2];
	const __u64 n = 2ULL * SHARED_REPEAT;

	if (live) {
		if (geteuid() != 0 || sysconf(_SC_NPROCESSORS_ONLN) < 2)
			skip();
		opts.replay = false;
		assert_int_equal(probe_load(&lp, &opts), 0);
		p = &lp;
		snapshot_free(&g_snap); /* another probe's reads */
	} else {
		load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
	}
	build(&g_fx, b_vxlan_and_ack, NULL);
	for (int t = 0; t < 2; t++) {
		run[t] = (struct shared_run){.prog_fd = bpf_program__fd(p->skel->progs.fp_xdp),
					     .cpu = t,
					     .f = {&g_fx.frames[0], &g_fx.frames[1]}};
		assert_int_equal(pthread_create(&th[t], NULL, shared_worker, &run[t]), 0);
	}
	for (int t = 0; t < 2; t++) {
		assert_int_equal(pthread_join(th[t], NULL), 0);
		assert_int_equal(run[t].err, 0);
	}
	assert_int_equal(collect_snapshot(p, &g_snap), 0);
	assert_int_equal(g_snap.totals[FP_CNT_FRAMES], 2 * n);
	/*
	 * Where both threads' first packets of a flow met (the run's timing:
	 * 1 to 2 runs in 40 here), one claimed a slot and the other counted in
	 * an fp_flows4 entry it inserted: two inserts, one flow, merged.
	 */
	assert_int_equal(g_snap.totals[FP_CNT_FLOW_NEW], 2 + g_snap.merged);
	assert_int_equal(slot_entries(p), 2);
	/* Live, on two CPUs: each flow a slot its first CPU owns, and the other's entry. */
	for (__u32 b = 0; b < p->slot_buckets; b++)
		for (int i = 0; i < FP_SLOT_WAYS; i++)
			owned +=
			    (p->slots[b].tag[i] & 1) && (p->slots[b].tag[i] & FP_SLOT_OWNER_MASK);
	assert_int_equal(owned, live ? 2 : 0);
	if (live && run[0].pinned && run[1].pinned)
		assert_int_equal(g_snap.merged, 2);
	assert_int_equal(snapshot_evictions(&g_snap), 0);
	assert_int_equal(g_snap.n_flows, 2);
	for (size_t i = 0; i < g_snap.n_flows; i++) {
		const struct flow_counters *c = &g_snap.flows[i].c;
		bool vx = g_snap.flows[i].key.flags & FP_FLOW_VXLAN;
		const struct frame *f = &g_fx.frames[vx ? 0 : 1];

		assert_int_equal(c->packets, n);
		assert_int_equal(c->bytes, n * fr_wire_len(f));
		if (vx) {
			assert_int_equal(c->ecn[FR_CE], n);
			assert_int_equal(c->inner_ecn[FR_ECT0], n);
		} else {
			assert_int_equal(c->acks, n);
		}
	}
	if (live) {
		snapshot_free(&g_snap);
		probe_destroy(&lp);
	}
}

/* n runs of frame f on this thread, live (no replay metadata). */
static void run_live(const struct probe *p, const struct frame *f, int n)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(probe_run_frame(p, f->data, f->len, fr_wire_len(f), 0, 0), 0);
}

/* The one flow's packets in snapshot s, after a read. */
static __u64 flow_packets(struct probe *p, struct snapshot *s)
{
	assert_int_equal(collect_snapshot(p, s), 0);
	assert_int_equal(s->n_flows, 1);
	return s->flows[0].c.packets;
}

/*
 * The live build (no replay metadata) of opts loaded into p, this thread on
 * CPU 0 and *was its affinity before; the test skipped where that cannot
 * be (not root, one CPU). live_done() undoes it.
 */
static void live_two_cpus(struct probe *p, struct probe_opts *opts, cpu_set_t *was)
{
	if (geteuid() != 0 || sysconf(_SC_NPROCESSORS_ONLN) < 2 ||
	    sched_getaffinity(0, sizeof(*was), was) || !pin_to(0))
		skip();
	opts->replay = false;
	assert_int_equal(probe_load(p, opts), 0);
}

static void live_done(struct probe *p, struct snapshot *s, const cpu_set_t *was)
{
	snapshot_free(s);
	probe_destroy(p);
	sched_setaffinity(0, sizeof(*was), was);
}

/*
 * A slot's flow whose packets reach another CPU: that CPU counts them in
 * an fp_flows4 entry of the flow, which the LRU may evict alone (here: a
 * delete). The flow's counts never step back: what the entry had at the
 * last read stays summed in, and a new entry's packets add to it, also
 * one made again with more packets than the old one had. Once the slot is
 * freed (as slots_reclaim() frees it) and claimed again, what was summed
 * in is the old claim's, and goes.
 */
static void test_slot_entry_evicted_alone(void **state)
{
	struct probe_opts opts = fixture_opts(NULL, FX_FLOWS, PROBE_HOOK_XDP, 0);
	const struct frame *f;
	struct snapshot s = {};
	struct flow_key4 k4;
	struct probe p = {};
	cpu_set_t was;
	int fd;

	(void)state;
	live_two_cpus(&p, &opts, &was);
	fd = bpf_map__fd(p.skel->maps.fp_flows4);
	build(&g_fx, b_send_only, NULL);
	f = &g_fx.frames[0];
	run_live(&p, f, 3); /* CPU 0 claims the slot */
	assert_true(pin_to(1));
	run_live(&p, f, 5);
	assert_int_equal(flow_packets(&p, &s), 8);
	assert_int_equal(s.merged, 1);
	fp_key4_from(&k4, &s.flows[0].key);

	/* Evicted alone: its 5 stay. */
	assert_int_equal(bpf_map_delete_elem(fd, &k4), 0);
	assert_int_equal(flow_packets(&p, &s), 8);
	assert_int_equal(flow_packets(&p, &s), 8);
	run_live(&p, f, 2); /* a new entry */
	assert_int_equal(flow_packets(&p, &s), 10);

	/* Evicted and made again between two reads, with more packets than the 2, later. */
	assert_int_equal(bpf_map_delete_elem(fd, &k4), 0);
	usleep(30 * 1000); /* past a few ticks of the live clock: another first time */
	run_live(&p, f, 4);
	assert_int_equal(flow_packets(&p, &s), 14);
	assert_true(pin_to(0));
	run_live(&p, f, 1);
	assert_int_equal(flow_packets(&p, &s), 15);
	assert_int_equal(s.flows[0].c.bytes, 15 * fr_wire_len(f));

	/*
	 * The slot freed and the entry evicted, then the flow claims a slot
	 * again (the same one: its bucket's first free): a new flow.
	 */
	for (__u32 b = 0; b < p.slot_buckets; b++)
		for (int i = 0; i < FP_SLOT_WAYS; i++)
			if (p.slots[b].tag[i] & 1) {
				memset(&p.slots[b].slot[i], 0, sizeof(p.slots[b].slot[i]));
				__atomic_store_n(&p.slots[b].tag[i], FP_SLOT_FREE,
						 __ATOMIC_RELEASE);
			}
	assert_int_equal(bpf_map_delete_elem(fd, &k4), 0);
	usleep(30 * 1000);
	run_live(&p, f, 2);
	assert_int_equal(flow_packets(&p, &s), 2);
	assert_true(pin_to(1));
	run_live(&p, f, 3);
	assert_int_equal(flow_packets(&p, &s), 5);
	assert_int_equal(s.merged, 1);
	live_done(&p, &s, &was);
}

/*
 * A flow's requests and a READ's responses, one packet on each CPU in
 * turn, live: each slot is its first CPU's, and the other CPU counts in
 * the flow's fp_flows4 entry, but the PSNs are tracked in the slot for
 * both, so retransmits and gaps are what one tracker sees of the whole
 * flow. Requests 10-13, 12 again, a gap to 20, 15 again, a gap to 30:
 * 2 retransmits, 2 gaps. Responses 100, 101, 101 again, 102, 101 again:
 * 2 retransmits. The PSN state is the slot's, also where the entry saw
 * the flow's last packet.
 */
static const __u32 alt_psns[] = {10, 11, 12, 12, 13, 20, 21, 15, 22, 23, 30, 31, ~0U};

static void b_psns_and_responses(struct fx *fx)
{
	static const __u32 resp[] = {100, 101, 101, 102, 101};

	b_psns(fx);
	for (size_t i = 0; i < sizeof(resp) / sizeof(resp[0]); i++)
		read_resp(fx, RC_READ_RESP_ONLY, resp[i]);
}

static void test_slot_psns_two_cpus(void **state)
{
	struct probe_opts opts = fixture_opts(NULL, FX_FLOWS, PROBE_HOOK_XDP, 0);
	struct snapshot s = {};
	struct probe p = {};
	cpu_set_t was;

	(void)state;
	live_two_cpus(&p, &opts, &was);
	build(&g_fx, b_psns_and_responses, alt_psns);
	for (int i = 0; i < g_fx.n; i++) {
		assert_true(pin_to(i % 2));
		/* The last request, on CPU 1, a few ticks later: the entry saw it last. */
		if (i == 11)
			usleep(30 * 1000);
		run_live(&p, &g_fx.frames[i], 1);
	}
	assert_int_equal(collect_snapshot(&p, &s), 0);
	assert_int_equal(s.n_flows, 2);
	assert_int_equal(s.merged, 2);
	for (size_t i = 0; i < s.n_flows; i++) {
		const struct flow_counters *c = &s.flows[i].c;
		bool requests = c->packets == 12;

		assert_int_equal(c->packets, requests ? 12 : 5);
		assert_int_equal(c->retransmits, 2);
		assert_int_equal(c->psn_gaps, requests ? 2 : 0);
		if (requests)
			assert_int_equal(c->psn.max_psn, 31);
		else
			assert_int_equal(c->psn.resp_psn, 102);
	}
	live_done(&p, &s, &was);
}

/*
 * capture's samples, live: a flow's first sample_per_flow packets, however
 * many CPUs its packets reach. 3 packets on CPU 0 (which claims the slot),
 * then 3 on CPU 1 (counted in an fp_flows4 entry): 2 samples, not 2 more
 * for the entry.
 */
static void test_slot_samples_two_cpus(void **state)
{
	struct probe_opts opts = fixture_opts(NULL, FX_FLOWS, PROBE_HOOK_XDP, 0);
	struct snapshot s = {};
	struct probe p = {};
	cpu_set_t was;

	(void)state;
	opts.sample_per_flow = 2;
	opts.sample_max_per_cpu = 100;
	live_two_cpus(&p, &opts, &was);
	build(&g_fx, b_send_only, NULL);
	run_live(&p, &g_fx.frames[0], 3);
	assert_true(pin_to(1));
	run_live(&p, &g_fx.frames[0], 3);
	assert_int_equal(flow_packets(&p, &s), 6);
	assert_int_equal(s.merged, 1);
	assert_int_equal(s.flows[0].c.samples, 2);
	assert_int_equal(s.totals[FP_CNT_SAMPLES], 2);
	live_done(&p, &s, &was);
}

/* ---- main ------------------------------------------------------------------- */

#define N_FIXTURES (sizeof(fixtures) / sizeof(fixtures[0]))
#define N_OPS	   (sizeof(op_cases) / sizeof(op_cases[0]))
#define N_CUTS	   (sizeof(cut_cases) / sizeof(cut_cases[0]))

int main(void)
{
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
	}
	for (size_t i = 0; i < N_OPS; i++) {
		fx_add("opcode/", op_cases[i].name, test_opcode, &op_cases[i]);
		fx_add("opcode_short/", op_cases[i].name, test_opcode_short, &op_cases[i]);
	}
	for (size_t i = 0; i < N_CUTS; i++)
		fx_add("", cut_cases[i].name, test_cut, &cut_cases[i]);
	for (size_t i = 0; i < N_CUTS; i++)
		if (!cut_cases[i].refit)
			fx_add("snaplen/", cut_cases[i].name, test_cut_snaplen, &cut_cases[i]);
	for (size_t i = 0; i < sizeof(bth_end_cases) / sizeof(bth_end_cases[0]); i++)
		fx_add("bth_end/", bth_end_cases[i].name, test_bth_end, &bth_end_cases[i]);
	fx_add("", "snaplen_read_request_cut_in_reth_no_gap", test_snaplen_read_no_gap, NULL);
	fx_add("", "ack_flow_keeps_highest_acked_psn", test_ack_flow_keeps_acked_psn, NULL);
	fx_add("", "snaplen_cut_in_bth_udp_length_too_short", test_snaplen_short_udp_length, NULL);
	fx_add("", "lru_pressure_64_entries_1000_flows", test_lru_pressure, NULL);
	fx_add("", "slot_collisions_one_tag_20_flows", test_slot_collisions, NULL);
	fx_add("", "slot_collisions_one_tag_20_flows_read_on_two_cpus",
	       test_slot_collisions_two_cpus, NULL);
	fx_add("", "slot_second_bucket_20_flows_one_first_bucket", test_slot_second_bucket, NULL);
	fx_add("", "slot_second_bucket_every_flow_twice", test_slot_second_bucket_every_flow_twice,
	       NULL);
	fx_add("", "slot_claim_under_way_sends_new_flow_to_fp_flows4", test_slot_claim_under_way,
	       NULL);
	fx_add("", "fp_flows4_fed_while_walked_10000_flows", test_fed_while_walked, NULL);
	fx_add("", "table_rids_kept_as_flows_come_and_go", test_table_rids_churn, NULL);
	fx_add("", "slot_merge_one_flow_three_entries", test_slot_merge, NULL);
	fx_add("", "slot_pressure_1024_entries_3000_flows", test_slot_pressure, NULL);
	fx_add("", "slot_reclaim_2000_flows", test_slot_reclaim, NULL);
	fx_add("", "slot_reclaim_refused_no_grace_period", test_slot_reclaim_refused, NULL);
	fx_add("", "psn_state_per_flow_1000_flows", test_psn_per_flow, NULL);
	fx_add("", "psn_state_per_flow_1000_flows_replay_batches", test_psn_per_flow_batches,
	       &(const int){1});
	fx_add("", "psn_state_per_flow_1000_flows_replay_batches_2_threads",
	       test_psn_per_flow_batches, &(const int){2});
	fx_add("", "psn_state_per_flow_1000_flows_loading_pool", test_psn_per_flow_loading,
	       &(const int){1});
	fx_add("", "psn_state_per_flow_1000_flows_loading_pool_2_threads",
	       test_psn_per_flow_loading, &(const int){2});
	fx_add("", "loading_pool_no_program", test_loading_pool_fails, NULL);
	fx_add("", "flow_tables_by_family", test_flow_tables_by_family, NULL);
	fx_add("", "replay_batch_refused", test_replay_batch_refused, NULL);
	fx_add("", "shared_flow_two_cpus", test_shared_flow_two_cpus, &(const bool){false});
	fx_add("", "shared_flow_two_cpus_live", test_shared_flow_two_cpus, &(const bool){true});
	fx_add("", "slot_entry_evicted_alone_counts_kept", test_slot_entry_evicted_alone, NULL);
	fx_add("", "slot_psns_two_cpus_live", test_slot_psns_two_cpus, NULL);
	fx_add("", "slot_samples_two_cpus_live", test_slot_samples_two_cpus, NULL);
	return fx_run_all("test_parser");
}
