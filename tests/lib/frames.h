/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frames.h - build test frames one header at a time: Ethernet, 802.1Q and
 * 802.1ad tags, IPv4 (options, fragment fields, DSCP/ECN), IPv6 and its
 * extension headers, UDP, VXLAN, GRE and the ERSPAN mirror headers, and the
 * RoCEv2 transport headers. This is
 * test code that writes frames, not a parser: every field comes from the
 * caller or from a documented default.
 *
 * Length fields (IPv4 total length, IPv6 payload length, UDP length) and
 * the IPv4 header checksum are written by fr_finish() from the bytes that
 * follow each header, unless a test overrides them to make them wrong.
 */
#ifndef __FP_TEST_FRAMES_H
#define __FP_TEST_FRAMES_H

#include <stdbool.h>
#include <linux/types.h>

/* Room for a 9216-byte jumbo frame. */
#define FR_MAX_LEN  9216
#define FR_MAX_LENS 8

/* Wire sizes from the specs, for writing expected byte counts. */
#define FR_ETH_LEN     14
#define FR_VLAN_LEN    4
#define FR_IPV4_LEN    20
#define FR_IPV6_LEN    40
#define FR_UDP_LEN     8
#define FR_VXLAN_LEN   8
#define FR_GRE_LEN     4 /* RFC 2784 base header; C, K and S add 4 bytes each */
#define FR_ERSPAN2_LEN 8
#define FR_ERSPAN3_LEN 12 /* plus 8 with the O bit (platform subheader) */

/* GRE flags (RFC 2784, RFC 2890) and the protocols a mirror uses. */
#define FR_GRE_C       0x8000
#define FR_GRE_R       0x4000
#define FR_GRE_K       0x2000
#define FR_GRE_S       0x1000
#define FR_GRE_ERSPAN  0x88BE
#define FR_GRE_ERSPAN3 0x22EB
#define FR_GRE_TEB     0x6558

/* IPv4 flags and fragment offset (RFC 791), host order. */
#define FR_IP_DF 0x4000
#define FR_IP_MF 0x2000

/* ECN codepoints (RFC 3168 section 5). */
#define FR_NOT_ECT 0
#define FR_ECT1	   1
#define FR_ECT0	   2
#define FR_CE	   3

/* Where each header starts, so a test can cut a frame at a boundary. */
enum fr_hdr {
	FR_H_ETH,
	FR_H_VLAN,
	FR_H_IP,
	FR_H_IP_EXT,
	FR_H_UDP,
	FR_H_GRE,
	FR_H_ERSPAN,
	FR_H_M_ETH, /* the mirrored frame, after GRE and ERSPAN */
	FR_H_M_VLAN,
	FR_H_M_IP,
	FR_H_M_IP_EXT,
	FR_H_M_UDP,
	FR_H_VXLAN,
	FR_H_IN_ETH,
	FR_H_IN_VLAN,
	FR_H_IN_IP,
	FR_H_IN_IP_EXT,
	FR_H_IN_UDP,
	FR_H_BTH,
	FR_H_XRCETH,
	FR_H_DETH,
	FR_H_RETH,
	FR_H_AETH,
	FR_H_ATOMICETH,
	FR_H_ATOMICACKETH,
	FR_H_IMMDT,
	FR_H_IETH,
	FR_H_PAYLOAD,
	FR_H_ICRC,
	FR_H_MAX,
};

enum fr_len_kind {
	FR_LEN_IPV4_TOTAL,
	FR_LEN_IPV6_PAYLOAD,
	FR_LEN_UDP,
};

/* A length field fr_finish() fills in; value >= 0 forces a wrong one. */
struct fr_len_field {
	enum fr_len_kind kind;
	__u32 hdr_off;
	int value;
};

struct frame {
	__u8 data[FR_MAX_LEN];
	__u32 len;	/* bytes present (caplen) */
	__u32 wire_len; /* bytes on the wire; 0 means len */
	__u64 ts_ns;
	__u32 path_id;
	int off[FR_H_MAX]; /* first occurrence of each header, -1 if absent */
	struct fr_len_field lens[FR_MAX_LENS];
	int n_lens;
	bool inner;    /* past a VXLAN header: L2-L4 are the inner ones */
	bool mirrored; /* past a GRE mirror header: L2-L4 are the mirrored frame's */
};

/* IPv4 or IPv6 header fields; addresses as text ("10.0.0.1", "fd00::1"). */
struct fr_ip {
	const char *src;
	const char *dst;
	__u8 dscp;
	__u8 ecn;
	__u8 ttl;	  /* 0: 64 */
	__u8 proto;	  /* IPv4 protocol; 0: UDP */
	__u16 frag;	  /* IPv4 flags | fragment offset (8-byte units) */
	__u8 opt_len;	  /* IPv4 option bytes, a multiple of 4, up to 40 */
	__u8 ihl;	  /* IPv4 IHL to write instead of the true one; 0: true */
	__u32 flow_label; /* IPv6 */
};

/* BTH fields (IBTA 9.2); pkey 0 means the default partition 0xFFFF. */
struct fr_bth {
	__u8 opcode;
	bool se;
	bool migreq;
	__u8 padcnt;
	__u8 tver;
	__u16 pkey;
	bool fecn;
	bool becn;
	__u32 dest_qp;
	bool ackreq;
	__u32 psn;
};

void fr_init(struct frame *f);

/* Ethernet II; ethertype is what follows (a TPID when a tag follows). */
void fr_eth(struct frame *f, __u16 ethertype);
/* The TCI and inner EtherType of a tag whose TPID was the previous type. */
void fr_vlan(struct frame *f, __u8 pcp, __u16 vid, __u16 ethertype);

void fr_ipv4(struct frame *f, const struct fr_ip *ip);
void fr_ipv6(struct frame *f, const struct fr_ip *ip, __u8 nexthdr);
/* Hop-by-hop or destination options header of len bytes, PadN filled. */
void fr_ipv6_opts(struct frame *f, __u8 nexthdr, __u32 len);
/* Segment routing header (type 4) with Segments Left 0 and n segments. */
void fr_ipv6_routing(struct frame *f, __u8 nexthdr, __u8 n_segments);
/* Fragment header: offset in 8-byte units, M flag. */
void fr_ipv6_frag(struct frame *f, __u8 nexthdr, __u16 offset, bool more, __u32 id);

void fr_udp(struct frame *f, __u16 sport, __u16 dport);
/* Make the last UDP header's length field lie. */
void fr_udp_len(struct frame *f, __u16 len);

void fr_vxlan(struct frame *f, __u8 flags, __u32 vni);

/*
 * GRE header with the given flags (C, K, S and anything else, version in
 * the low bits) and protocol; key and sequence number are written when K
 * and S are set, the checksum field as zero when C is. The IP protocol of
 * the header before must be 47. A mirror protocol makes the headers that
 * follow the mirrored frame's (FR_H_M_*).
 */
void fr_gre(struct frame *f, __u16 flags, __u16 proto, __u32 key, __u32 seq);

/* ERSPAN type II header (version 1): VLAN, COS, En, T, session ID, index. */
struct fr_erspan {
	__u8 ver; /* 0: 1 for type II, 2 for type III */
	__u16 vlan;
	__u8 cos;
	__u8 en; /* En (type II) or BSO (type III) */
	bool trunc;
	__u16 session;
	__u32 index;	 /* type II */
	__u32 timestamp; /* type III */
	__u16 sgt;
	bool p;
	__u8 ft;
	__u8 hwid;
	bool egress; /* D */
	__u8 gra;
	bool subheader; /* O: an 8-byte platform-specific subheader follows */
};
void fr_erspan2(struct frame *f, const struct fr_erspan *e);
void fr_erspan3(struct frame *f, const struct fr_erspan *e);

void fr_bth(struct frame *f, const struct fr_bth *bth);
void fr_reth(struct frame *f, __u64 va, __u32 rkey, __u32 dma_len);
void fr_aeth(struct frame *f, __u8 syndrome, __u32 msn);
void fr_deth(struct frame *f, __u32 qkey, __u32 src_qp);
void fr_xrceth(struct frame *f, __u32 xrc_srq);
void fr_atomiceth(struct frame *f, __u64 va, __u32 rkey, __u64 swap_add, __u64 compare);
void fr_atomicacketh(struct frame *f, __u64 orig);
void fr_immdt(struct frame *f, __u32 imm);
void fr_ieth(struct frame *f, __u32 rkey);
/* len bytes of a counting pattern. */
void fr_payload(struct frame *f, __u32 len);
void fr_bytes(struct frame *f, const void *bytes, __u32 len);
/* The invariant CRC's four bytes; the probe does not verify it. */
void fr_icrc(struct frame *f);

/*
 * Write every length field and the IPv4 checksums from the current end of
 * the frame. Call again after fr_cut() for a short but self-consistent
 * frame; skip that for a frame cut in transit (lengths stale).
 */
void fr_finish(struct frame *f);
/*
 * fr_finish() for the length fields of the headers before h only: a switch
 * that truncates a mirror copy writes the outer headers for the copy it
 * sends, and leaves the mirrored packet's as they were.
 */
void fr_finish_before(struct frame *f, enum fr_hdr h);
void fr_cut(struct frame *f, __u32 len);
/* Offset of a header, aborting when the frame has none. */
__u32 fr_off(const struct frame *f, enum fr_hdr h);
__u32 fr_wire_len(const struct frame *f);

#endif /* __FP_TEST_FRAMES_H */
