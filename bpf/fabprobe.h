/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * fabprobe.h - everything that crosses the BPF/userspace boundary: map keys
 * and values, counter indices and protocol constants. Included by the BPF
 * programs (after vmlinux.h) and by userspace; never define these twice.
 */
#ifndef __FABPROBE_H
#define __FABPROBE_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* Default UDP ports: IBTA Annex A17 (RoCEv2) and RFC 7348 (VXLAN). */
#define FP_ROCE_PORT_DEFAULT  4791
#define FP_VXLAN_PORT_DEFAULT 4789
#define FP_FLOWS_DEFAULT      65536
/* The IPv6 table (fp_flows6) by default: a quarter of the IPv4 one, at least this. */
#define FP_FLOWS6_MIN 1024

/*
 * Replay: what userspace hands the program ahead of each frame, as XDP
 * metadata (BPF_PROG_TEST_RUN's ctx_in data offset) or, for tc, in the
 * skb's cb[0..3]. Each frame carries its own, so any number of threads can
 * run frames at once. ts_ns is the capture clock, path_id the frame's
 * observation point (flow_key.ifindex), wire_len its length on the wire
 * (a capture may hold fewer bytes).
 */
struct fp_replay_meta {
	__u64 ts_ns;
	__u32 path_id;
	__u32 wire_len;
};

/*
 * Replay in batches (fp_replay): up to FP_BATCH_MAX_FRAMES frames in
 * one BPF_PROG_TEST_RUN, whose fixed cost (about 1.1 us on the VM of
 * BENCHMARKS.md) is otherwise paid once a frame. The program bounds each
 * frame in turn with bpf_xdp_adjust_head/tail, so the parser sees exactly
 * the frame's bytes, as one frame a run would show them.
 *
 * The batch, lowest address first: struct fp_batch_head; one record a
 * frame, the LAST frame's first; FP_BATCH_TAIL bytes of tail. A record is
 * the frame's cap_len bytes and then its struct fp_batch_rec. The program
 * starts at the tail and walks down, so frames run in the order they were
 * added, each seen alone.
 */
#define FP_BATCH_MAGIC	    0x31425046 /* "FPB1" in memory order */
#define FP_BATCH_MAX_FRAMES 64
#define FP_BATCH_TAIL	    16 /* XDP's head and tail keep an Ethernet header's room */
#define FP_BATCH_MIN_CAP    14 /* so does each frame */
#define FP_BATCH_MAX_CAP    4096
#define FP_BATCH_DROP_BITS  7 /* fp_replay_frame's return: bytes, then a drop */

struct fp_batch_head {
	__u32 magic;
	__u32 frames; /* records that follow */
	__u32 len;    /* bytes of the batch, this head and the tail included */
	__u32 pad;
};

struct fp_batch_rec {
	__u64 ts_ns; /* as struct fp_replay_meta */
	__u32 path_id;
	__u32 wire_len;
	__u32 cap_len; /* the frame's bytes, just below this */
	__u32 pad;
};

/* One run of fp_clock (clock.bpf.c): the tick count and the clock read together. */
struct fp_clock_sample {
	__u64 jiffies;
	__u64 mono_ns; /* CLOCK_MONOTONIC, bpf_ktime_get_ns() */
};

/* EtherTypes and IP protocol numbers the parser needs. */
#define FP_ETH_P_IP	    0x0800
#define FP_ETH_P_IPV6	    0x86DD
#define FP_ETH_P_8021Q	    0x8100
#define FP_ETH_P_8021AD	    0x88A8
#define FP_IPPROTO_UDP	    17
#define FP_IPPROTO_GRE	    47
#define FP_IPPROTO_HOPOPTS  0
#define FP_IPPROTO_ROUTING  43
#define FP_IPPROTO_FRAGMENT 44
#define FP_IPPROTO_DSTOPTS  60
#define FP_IPPROTO_AH	    51 /* length in 4-byte units, less 2 (RFC 4302) */
#define FP_IPPROTO_NONE	    59
#define FP_IP_MF	    0x2000
#define FP_IP_OFFSET	    0x1FFF

/* Bounds that keep the verifier's work and the per-packet cost constant. */
#define FP_MAX_VLAN	2
#define FP_MAX_IPV6_EXT 4

/* VXLAN header (RFC 7348 section 5): flags byte with I = 0x08, VNI in 24 bits. */
#define FP_VXLAN_HLEN	8
#define FP_VXLAN_FLAG_I 0x08

/*
 * GRE (RFC 2784; key and sequence number RFC 2890): flags and version in the
 * first 16 bits, then the protocol. C, K and S each add 4 bytes, in that
 * order. R (RFC 1701 source routing) and versions other than 0 are not GRE
 * mirrors.
 */
#define FP_GRE_HLEN	 4
#define FP_GRE_FLAG_C	 0x8000
#define FP_GRE_FLAG_R	 0x4000
#define FP_GRE_FLAG_K	 0x2000
#define FP_GRE_FLAG_S	 0x1000
#define FP_GRE_VER_MASK	 0x0007
#define FP_ETH_P_ERSPAN	 0x88BE /* ERSPAN type I (S clear) and type II (S set) */
#define FP_ETH_P_ERSPAN3 0x22EB /* ERSPAN type III */
#define FP_ETH_P_TEB	 0x6558 /* transparent Ethernet bridging: a plain L2 GRE mirror */

/*
 * ERSPAN headers (draft-foschiano-erspan-03; Linux include/net/erspan.h).
 * Types II and III share the first word: Ver (4), VLAN (12), COS (3),
 * En/BSO (2), T (1), session ID (10). Type III adds a timestamp, the SGT
 * and a last 16 bits of P (1), FT (5), hardware ID (6), D (1), Gra (2),
 * O (1); O set means an 8-byte platform-specific subheader follows.
 */
#define FP_ERSPAN2_HLEN	     8
#define FP_ERSPAN3_HLEN	     12
#define FP_ERSPAN3_SUB_HLEN  8
#define FP_ERSPAN2_VER	     1
#define FP_ERSPAN3_VER	     2
#define FP_ERSPAN_T	     0x04 /* byte 2: the switch truncated the copy */
#define FP_ERSPAN_SESSION_HI 0x03 /* byte 2: session ID bits 9-8, byte 3 the rest */
#define FP_ERSPAN3_FT_SHIFT  2	  /* byte 10: frame type, 0 = Ethernet */
#define FP_ERSPAN3_FT_MASK   0x1F
#define FP_ERSPAN3_D	     0x08 /* byte 11: direction, set = egress */
#define FP_ERSPAN3_O	     0x01 /* byte 11: platform-specific subheader */
#define FP_ERSPAN2_INDEX_HI  0x0F /* byte 5: Index bits 19-16, bytes 6 and 7 the rest */

/*
 * flow_key.mirror_id of an ERSPAN II or III copy: the session ID in its
 * low 10 bits, and for type II the Index above them (20 bits: the port and
 * direction the switch copied at). One session copying a packet at two
 * ports (a server port's rx and an uplink's tx) sends two copies that
 * differ in the Index alone: two flows, each with its own PSN state. The
 * session, its path and its name are the low bits (mirror_session_id()).
 */
#define FP_MIRROR_SESSION_MASK 0x3FF
#define FP_MIRROR_INDEX_SHIFT  10

/* The mirror a frame came in; FP_MIRROR_NONE for a frame seen on the wire. */
enum fp_mirror {
	FP_MIRROR_NONE = 0,
	FP_MIRROR_ERSPAN_I = 1,
	FP_MIRROR_ERSPAN_II = 2,
	FP_MIRROR_ERSPAN_III = 3,
	FP_MIRROR_GRE_TEB = 4,
};

/*
 * RoCEv2 (IBTA Vol 1 ch. 9 and Annex A17). The BTH opcode's top three bits
 * are the transport, the low five the operation.
 */
#define FP_BTH_LEN	    12
#define FP_ICRC_LEN	    4
#define FP_RETH_LEN	    16
#define FP_AETH_LEN	    4
#define FP_DETH_LEN	    8
#define FP_RDETH_LEN	    4
#define FP_XRCETH_LEN	    4
#define FP_ATOMICETH_LEN    28
#define FP_ATOMICACKETH_LEN 8
#define FP_IMMDT_LEN	    4
#define FP_IETH_LEN	    4

#define FP_TRANSPORT_MASK 0xE0
#define FP_TRANSPORT_RC	  0x00
#define FP_TRANSPORT_UC	  0x20
#define FP_TRANSPORT_RD	  0x40
#define FP_TRANSPORT_UD	  0x60
#define FP_TRANSPORT_CNP  0x80
#define FP_TRANSPORT_XRC  0xA0
#define FP_OP_MASK	  0x1F

#define FP_OPCODE_CNP 0x81

enum fp_op {
	FP_OP_SEND_FIRST = 0x00,
	FP_OP_SEND_MIDDLE = 0x01,
	FP_OP_SEND_LAST = 0x02,
	FP_OP_SEND_LAST_IMM = 0x03,
	FP_OP_SEND_ONLY = 0x04,
	FP_OP_SEND_ONLY_IMM = 0x05,
	FP_OP_WRITE_FIRST = 0x06,
	FP_OP_WRITE_MIDDLE = 0x07,
	FP_OP_WRITE_LAST = 0x08,
	FP_OP_WRITE_LAST_IMM = 0x09,
	FP_OP_WRITE_ONLY = 0x0A,
	FP_OP_WRITE_ONLY_IMM = 0x0B,
	FP_OP_READ_REQ = 0x0C,
	FP_OP_READ_RESP_FIRST = 0x0D,
	FP_OP_READ_RESP_MIDDLE = 0x0E,
	FP_OP_READ_RESP_LAST = 0x0F,
	FP_OP_READ_RESP_ONLY = 0x10,
	FP_OP_ACK = 0x11,
	FP_OP_ATOMIC_ACK = 0x12,
	FP_OP_CMP_SWAP = 0x13,
	FP_OP_FETCH_ADD = 0x14,
	FP_OP_SEND_LAST_INV = 0x16,
	FP_OP_SEND_ONLY_INV = 0x17,
};

/* BTH byte 4 carries FECN/BECN, byte 8 AckReq (IBTA 9.2). */
#define FP_BTH_FECN	 0x80
#define FP_BTH_BECN	 0x40
#define FP_BTH_ACKREQ	 0x80
#define FP_BTH_TVER_MASK 0x0F
#define FP_PSN_MASK	 0xFFFFFF

/* AETH syndrome (IBTA 9.7.5.1): bits 6-5 select ACK, RNR NAK or NAK. */
#define FP_AETH_CLASS_MASK 0x60
#define FP_AETH_CLASS_ACK  0x00
#define FP_AETH_CLASS_RNR  0x20
#define FP_AETH_CLASS_NAK  0x60
#define FP_AETH_CODE_MASK  0x1F

/*
 * A READ request reserves one PSN per response packet: ceil(len / PMTU).
 * The PMTU is not on the wire, so the parser allows the most PSNs the
 * smallest IB MTU (256 bytes) could reserve before it calls a jump a gap.
 */
#define FP_MIN_PMTU_SHIFT 8
/* And the largest (4096): a retried READ starts 2^8 to 2^12 bytes a PSN past the original. */
#define FP_MAX_PMTU_SHIFT 12
/* The VA bits psn_track keeps, 0 up to 2^30 (FP_READ_LEN_UNKNOWN). */
#define FP_READ_VA_BITS 30

/*
 * A READ request whose RETH a truncated mirror copy cut off: its length is
 * unknown, so it reserves 2^22 PSNs and no request after it looks like a gap.
 */
#define FP_READ_LEN_UNKNOWN (1U << 30)

/* Global counters: a per-CPU array indexed by this enum, never evicted. */
enum fp_counter {
	FP_CNT_FRAMES,
	FP_CNT_BYTES,
	FP_CNT_ROCE,
	FP_CNT_VXLAN,
	FP_CNT_CNP,
	FP_CNT_OTHER,
	FP_CNT_MALFORMED,
	FP_CNT_FLOW_NEW,
	FP_CNT_FLOW_INSERT_FAIL,
	FP_CNT_SAMPLES,		 /* packets copied to the sample ring */
	FP_CNT_SAMPLE_DROPS,	 /* samples lost to a full ring */
	FP_CNT_MIRRORED,	 /* frames decoded as mirror copies (ERSPAN I/II/III, GRE TEB) */
	FP_CNT_MIRROR_TRUNCATED, /* mirror copies shorter than the packet they mirror */
	FP_CNT_MIRROR_ROCE_CUT,	 /* copies cut between the RoCE port and the BTH's end */
	FP_CNT_MIRROR_NOT_ETH,	 /* ERSPAN III copies of a frame that is not Ethernet (FT != 0) */
	FP_CNT_MIRROR_DROPPED,	 /* mirror copies XDP dropped (mirror_drop) */
	FP_CNT_ROCE_CUT, /* frames whose bytes end between the RoCE port and the BTH's end */
	FP_CNT_MAX,
};

struct fp_totals {
	__u64 cnt[FP_CNT_MAX];
};

/* Where a frame was seen. */
enum fp_dir {
	FP_DIR_INGRESS = 0,
	FP_DIR_EGRESS = 1,
};

/* flow_key.flags */
#define FP_FLOW_VXLAN	       0x01 /* RoCE inside VXLAN: vni and inner_* valid */
#define FP_FLOW_IPV6	       0x02 /* outer addresses are IPv6 */
#define FP_FLOW_INNER_IPV6     0x04 /* inner addresses are IPv6 */
#define FP_FLOW_MIRROR_KEY     0x08 /* mirror_id is the GRE key (types I and TEB) */
#define FP_FLOW_MIRROR_IPV6    0x10 /* mirror_src is a digest of an IPv6 address */
#define FP_FLOW_MIRROR_INGRESS 0x20 /* ERSPAN III copy taken at ingress (D clear) */
#define FP_FLOW_MIRROR_EGRESS  0x40 /* ERSPAN III copy taken at egress (D set) */
/* A flow with any of these keeps its whole key in fp_flows6; the rest, fp_flows4. */
#define FP_FLOW_ANY_IPV6 (FP_FLOW_IPV6 | FP_FLOW_INNER_IPV6)

/*
 * One direction of one RoCE queue pair as seen at one point on the wire.
 * IPv4 addresses are stored in the first four bytes of the 16-byte fields
 * (the rest zero) so that the key has one layout; the flags say which.
 * Keep it free of holes and a multiple of 8 bytes: it is hashed byte for
 * byte. 96 bytes cost the kernel's jhash2 no more rounds than 88 did (3
 * words a round: 22 and 24 words both take 7 and a final one).
 *
 * A mirror copy's src, dst, ports, QP and VXLAN fields are the mirrored
 * packet's. mirror, mirror_id, mirror_src and the FP_FLOW_MIRROR_* flags
 * name where it was copied: the switch, the mirror type, its session or
 * GRE key, the direction. All zero for a frame seen on the wire.
 */
struct flow_key {
	__u8 src[16] __attribute__((aligned(8)));
	__u8 dst[16];
	__u8 inner_src[16];
	__u8 inner_dst[16];
	__u16 sport;
	__u16 dport;
	__u16 inner_sport;
	__u16 inner_dport;
	__u32 vni;
	__u32 dest_qp;
	/*
	 * ERSPAN II/III: the session ID (10 bits), type II's Index above it
	 * (FP_MIRROR_INDEX_SHIFT); I and TEB: the GRE key if any
	 */
	__u32 mirror_id;
	/*
	 * The switch that sent the copy, the outer source address: IPv4 as
	 * in the address fields' first 4 bytes; IPv6 as fp_addr6_digest().
	 */
	__u32 mirror_src;
	__u32 ifindex;
	__u8 dir;
	__u8 flags;
	__u8 mirror; /* enum fp_mirror */
	__u8 pad;
};

/*
 * The key of a flow whose addresses are all IPv4 (fp_flows4): struct
 * flow_key with each 16-byte address field cut to the 4 bytes IPv4 uses.
 * Half the bytes for the kernel to hash and compare on every packet, and
 * 48 bytes less a flow. The fields from sport on are flow_key's, in the
 * same order, so that they copy as one block.
 */
struct flow_key4 {
	__u32 src __attribute__((aligned(8)));
	__u32 dst;
	__u32 inner_src;
	__u32 inner_dst;
	__u16 sport;
	__u16 dport;
	__u16 inner_sport;
	__u16 inner_dport;
	__u32 vni;
	__u32 dest_qp;
	__u32 mirror_id;
	__u32 mirror_src;
	__u32 ifindex;
	__u8 dir;
	__u8 flags;
	__u8 mirror;
	__u8 pad;
};

#define FP_KEY_TAIL  __builtin_offsetof(struct flow_key, sport)
#define FP_KEY4_TAIL __builtin_offsetof(struct flow_key4, sport)
_Static_assert(sizeof(struct flow_key) - FP_KEY_TAIL == sizeof(struct flow_key4) - FP_KEY4_TAIL,
	       "flow_key4 ends with flow_key's fields from sport on");
_Static_assert(sizeof(struct flow_key4) == 48, "flow_key4 is 48 bytes, no holes");

/* A key of a flow with no IPv6 address, in the IPv4 table's form. */
static inline __attribute__((always_inline)) void fp_key4_from(struct flow_key4 *k4,
							       const struct flow_key *k)
{
	__builtin_memcpy(&k4->src, k->src, 4);
	__builtin_memcpy(&k4->dst, k->dst, 4);
	__builtin_memcpy(&k4->inner_src, k->inner_src, 4);
	__builtin_memcpy(&k4->inner_dst, k->inner_dst, 4);
	__builtin_memcpy((char *)k4 + FP_KEY4_TAIL, (const char *)k + FP_KEY_TAIL,
			 sizeof(*k4) - FP_KEY4_TAIL);
}

/* Back (userspace): the whole key of an IPv4 table entry, the address fields' rest zero. */
static inline __attribute__((always_inline)) void fp_key_from4(struct flow_key *k,
							       const struct flow_key4 *k4)
{
	__builtin_memset(k, 0, FP_KEY_TAIL);
	__builtin_memcpy(k->src, &k4->src, 4);
	__builtin_memcpy(k->dst, &k4->dst, 4);
	__builtin_memcpy(k->inner_src, &k4->inner_src, 4);
	__builtin_memcpy(k->inner_dst, &k4->inner_dst, 4);
	__builtin_memcpy((char *)k + FP_KEY_TAIL, (const char *)k4 + FP_KEY4_TAIL,
			 sizeof(*k4) - FP_KEY4_TAIL);
}

/*
 * A 32-bit digest of an IPv6 address (its 16 bytes as two host-order
 * 64-bit words), the same in BPF and userspace: two switches sending
 * mirror copies from different IPv6 addresses get different digests but
 * with odds of 2^-32 a pair.
 */
static inline __attribute__((always_inline)) __u32 fp_addr6_digest(__u64 hi, __u64 lo)
{
	__u64 h = (hi ^ 0x9E3779B97F4A7C15ULL) * 0xFF51AFD7ED558CCDULL;

	h = (h ^ (h >> 32) ^ lo) * 0xC4CEB9FE1A85EC53ULL;
	return (__u32)(h ^ (h >> 32));
}

/*
 * PSN state of a flow (IBTA 9.7.1), kept in the flow's own entry: the
 * flow table holds one entry for all CPUs, so the packets of one queue
 * pair handled on different CPUs (tc egress runs on the sender's CPU)
 * meet the same state, and no two flows ever share it. Updates are plain
 * stores: a race costs at most one misclassified packet, never a lost
 * frame count.
 *
 * One direction of a QP carries two PSN spaces: its sender's requests, and
 * its sender's responses to the other side's requests (READ responses,
 * ACKs), which carry the other side's PSNs. max_psn to tracking follow the
 * requests (tracking is 0 until the flow's first request), resp_* the
 * responses. Bit-fields, 16 bytes in all, as the request state alone was:
 * a flow's value stays 224 bytes (BENCHMARKS.md, Memory).
 */
struct psn_track {
	__u64 max_psn : 24;	 /* highest request PSN seen */
	__u64 next_psn_max : 24; /* highest PSN the next request may carry in order */
	/*
	 * VA bits 0-29 of the request at max_psn, a READ's when next_psn_max
	 * reserves its PSNs: a READ retried from inside them starts a whole
	 * number of PMTUs, so of 256 bytes (bits 0-7 unchanged), and less
	 * than 2^30 bytes on (core.h, read_retried()). Split where the 64-bit
	 * units have room.
	 */
	__u64 read_va_lo : 16;
	__u64 last_psn : 24; /* PSN of the last request packet */
	__u64 tracking : 1;  /* 1 once a request has set the fields above */
	__u64 resp_seen : 1; /* 1 once resp_psn is set */
	__u64 resp_psn : 24; /* highest ACK or READ response PSN */
	__u64 read_va_hi : 14;
};

/*
 * Counters of one flow: one copy shared by every CPU, so that a flow costs
 * the same on a 2-CPU host and a 128-CPU collector. BPF adds atomically
 * (core.h), but in a slot its CPU owns (live: plainly, FP_SLOT_OWNER_MASK).
 * The map keeps no packets: every packet counts in exactly one
 * of ecn[], and userspace sums them (collect.c); its place holds the CNPs'
 * DSCPs.
 */
struct flow_counters {
	/*
	 * In the map the DSCPs the flow's CNPs were sent with (a bitmap: CNPs
	 * and the other packets of a flow ride in different classes, so each
	 * has its own), as packets itself is never kept there. Userspace moves
	 * it to flow_record.cnp_dscp_mask and sets packets (collect.c).
	 */
	union {
		__u64 packets;
		__u64 cnp_dscp_mask;
	};
	__u64 bytes;
	__u64 ecn[4];	    /* outer IP ECN: Not-ECT, ECT(1), ECT(0), CE */
	__u64 inner_ecn[4]; /* same, of the inner IP header in VXLAN */
	__u64 cnp;
	__u64 acks;
	__u64 naks;
	__u64 rnr_naks;
	__u64 retransmits;
	__u64 psn_gaps;
	__u64 fecn;
	__u64 becn;
	__u64 first_seen_ns;
	__u64 last_seen_ns;
	__u64 opcodes[4]; /* bitmap of BTH opcodes seen */
	__u64 dscp_mask;  /* bitmap of DSCP values seen, CNPs' apart (above) */
	struct psn_track psn;
	__u16 vlan; /* outermost VLAN ID, 0 when untagged */
	__u8 dscp;  /* DSCP of the last packet */
	__u8 pcp;   /* PCP of the outermost tag (valid when vlan_tagged) */
	__u8 vlan_tagged;
	__u8 last_opcode;
	__u8 last_nak_code;
	__u8 samples; /* packets of this flow sampled */
};

/*
 * 64-bit hash of len bytes (a multiple of 16) of a key, never 0. Two
 * lanes, each taking every other 8-byte word, so that the multiplies of
 * one wait for half as many others. A multiply carries a difference
 * upwards only, so the lanes meet in a last round that brings their top
 * bytes down to the low bits.
 */
static inline __attribute__((always_inline)) __u64 fp_hash_words(const void *k, unsigned int len)
{
	__u64 a = 0x9E3779B97F4A7C15ULL, b = 0xC2B2AE3D27D4EB4FULL, w, v;
	unsigned int i;

#ifdef __clang__
#pragma unroll
#endif
	for (i = 0; i < len / 16; i++) {
		__builtin_memcpy(&w, (const char *)k + 16 * i, 8);
		__builtin_memcpy(&v, (const char *)k + 16 * i + 8, 8);
		a = (a ^ w) * 0xFF51AFD7ED558CCDULL;
		b = (b ^ v) * 0xC4CEB9FE1A85EC53ULL;
		a ^= a >> 32;
		b ^= b >> 32;
	}
	a = (a ^ (b >> 29) ^ (b << 35)) * 0xFF51AFD7ED558CCDULL;
	a ^= a >> 32;
	return a | 1;
}

/* A flow key's hash (userspace: analysis' index, top, sFlow). */
static inline __attribute__((always_inline)) __u64 fp_key_hash(const struct flow_key *k)
{
	_Static_assert(sizeof(*k) % 16 == 0, "fp_hash_words takes the key 16 bytes a round");
	return fp_hash_words(k, sizeof(*k));
}

/*
 * The slot table (fp_slots): where an IPv4 flow is counted when it can be.
 * An array the program indexes by the key's hash, in buckets of
 * FP_SLOT_WAYS slots. A bucket opens with one tag a slot, a cache line:
 * FP_SLOT_FREE, FP_SLOT_BUSY while the program that claimed the slot
 * writes its key, FP_SLOT_RETIRED while userspace takes it back, or the
 * flow's tag (fp_slot_tag(), odd) once the key is in place. A flow has two
 * candidate buckets: a packet counts in the slot of either whose tag and
 * key are its flow's; a new flow claims the first free slot of its first
 * bucket, else of its second. A claim takes the flow's first bucket's
 * claim word from the value read before the scans that found no slot for
 * the flow (compare-and-swap), so two CPUs claiming for one flow cannot
 * both win, in one bucket or in two. A flow that finds no free slot, or
 * loses a claim, or sees one under way, counts in fp_flows4 as before.
 * Userspace, which maps the array, reads the slots in place and sums any
 * flow it finds both in a slot and in fp_flows4 (collect.c).
 */
#define FP_SLOT_WAYS	8
#define FP_SLOT_FREE	0ULL
#define FP_SLOT_BUSY	2ULL
#define FP_SLOT_RETIRED 4ULL
/* --flows below this: fp_flows4 alone, as buckets need room to spread. */
#define FP_SLOTS_MIN_FLOWS 1024

struct flow_slot {
	struct flow_key4 key;
	struct flow_counters c;
};

struct fp_slot_bucket {
	__u64 tag[FP_SLOT_WAYS];
	/* Claims for the flows whose first bucket this is: one more each. */
	__u64 claims;
	struct flow_slot slot[FP_SLOT_WAYS];
};

/*
 * A published tag's bits 1-12 name the slot's owner: the CPU that claimed
 * it, plus one. Live, only the owner counts in the slot, with plain adds
 * (a flow's packets come in on one CPU's queue); a packet of its flow on
 * another CPU counts in fp_flows4, atomically, and userspace sums the two
 * (collect.c). 0: no owner, every CPU adds atomically (replay, whose
 * workers may share a CPU and preempt each other; a CPU past the bits).
 * The flow's identity is the tag without them (fp_slot_id()); its buckets
 * come from the whole tag.
 */
#define FP_SLOT_OWNER_SHIFT 1
#define FP_SLOT_OWNER_BITS  12
#define FP_SLOT_OWNER_MASK  (((1ULL << FP_SLOT_OWNER_BITS) - 1) << FP_SLOT_OWNER_SHIFT)

/* A tag as a flow's identity: without the owner. */
static inline __attribute__((always_inline)) __u64 fp_slot_id(__u64 tag)
{
	return tag & ~FP_SLOT_OWNER_MASK;
}

/* The owner bits of CPU cpu (0: past what they hold, no owner). */
static inline __attribute__((always_inline)) __u64 fp_slot_owner_of(__u32 cpu)
{
	return cpu + 1 < (1U << FP_SLOT_OWNER_BITS) ? (__u64)(cpu + 1) << FP_SLOT_OWNER_SHIFT : 0;
}

/* The tag of the flow whose key hashes to h; tag_mask is all ones but in tests. */
static inline __attribute__((always_inline)) __u64 fp_slot_tag(__u64 h, __u64 tag_mask)
{
	return (h & tag_mask) | 1;
}

/* Its first bucket of buckets: the top 32 bits of the tag, scaled (no power of two needed). */
static inline __attribute__((always_inline)) __u32 fp_slot_bucket_of(__u64 tag, __u32 buckets)
{
	return (__u32)(((tag >> 32) * buckets) >> 32);
}

/* Its second: the low 32 bits, scaled the same way (the first again, now and then). */
static inline __attribute__((always_inline)) __u32 fp_slot_bucket2_of(__u64 tag, __u32 buckets)
{
	return fp_slot_bucket_of(tag << 32, buckets);
}

/*
 * How --flows IPv4 flows are held: three quarters in slots, in buckets of
 * FP_SLOT_WAYS (none below FP_SLOTS_MIN_FLOWS), the rest in fp_flows4,
 * which takes the flows whose two buckets are full. Buckets fill at random, so
 * the LRU's quarter is what keeps a table 95% full from evicting
 * (BENCHMARKS.md, part 7). The slot table's buckets:
 */
static inline __attribute__((always_inline)) __u32 fp_slot_buckets_for(__u32 flows)
{
	if (flows < FP_SLOTS_MIN_FLOWS)
		return 0;
	return (flows - flows / 4) / FP_SLOT_WAYS;
}

static inline __attribute__((always_inline)) __u64 fp_key4_hash(const struct flow_key4 *k)
{
	_Static_assert(sizeof(*k) % 16 == 0, "fp_hash_words takes the key 16 bytes a round");
	return fp_hash_words(k, sizeof(*k));
}

/*
 * Packet samples (capture's samples.pcapng): the first packets of each new
 * flow, snap length bounded, through a ring buffer. Off unless a command
 * asks for it at load time.
 */
/*
 * Whole frames up to a 4096-byte RoCE MTU with VXLAN or ERSPAN around it:
 * Wireshark's RoCE dissector calls any packet whose payload is cut short
 * malformed, so samples keep the payload too.
 */
#define FP_SAMPLE_SNAP	     4352
#define FP_SAMPLE_RING_BYTES (16 << 20)

struct fp_sample {
	struct flow_key key;
	__u64 ts_ns;
	__u32 wire_len;
	__u32 cap_len;
	__u8 data[FP_SAMPLE_SNAP];
};

#endif /* __FABPROBE_H */
