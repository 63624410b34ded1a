/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * parsing.h - bounds-checked header parsers over a cursor. Each helper
 * advances the cursor past its header and returns the next protocol, or
 * FP_OTHER when the frame is not one we follow, FP_MALFORMED when its
 * header is invalid, or FP_CUT when the header runs past the bytes we
 * have. Whether a bad header makes the frame malformed is the caller's
 * call: only past the RoCE or VXLAN port or a mirror's GRE protocol, and
 * a cut is not an error where the bytes were cut after the frame was
 * sent: by the switch in a truncated mirror copy, or by a capture's snap
 * length (core.h, bad_header()).
 */
#ifndef __FP_PARSING_H
#define __FP_PARSING_H

#include "fabprobe.h"

/* fp_pkt.encap: what the frame came in; one byte every frame tests once. */
#define FP_ENCAP_VXLAN	0x01
#define FP_ENCAP_MIRROR 0x02 /* a mirror copy: the mirror fields after the key are set */
#define FP_ENCAP_TRUNC	0x04 /* a mirror copy shorter than the packet it carries */
/*
 * Fewer of the packet's bytes are readable than it had on the wire: a
 * capture's snap length cut it (replay), or the rest is past an skb's or
 * XDP buffer's linear part. A header cut there is unseen, not malformed.
 * Set on the RoCE port only (classify_roce()); elsewhere it is asked when
 * a header turns out cut (bad_header()), off the path of whole frames.
 */
#define FP_ENCAP_SHORT 0x08
/* Either: a header that runs past the bytes here was cut, not sent short. */
#define FP_ENCAP_CUT (FP_ENCAP_TRUNC | FP_ENCAP_SHORT)

#define FP_OTHER     (-1)
#define FP_MALFORMED (-2)
#define FP_CUT	     (-3)

/* Bound on where a header starts in a frame (cursor_rebase). */
#define FP_MAX_HDR_OFF 0x7FFF

struct cursor {
	void *pos;
	void *start;
	void *end;
};

/*
 * The verifier walks every path through the headers with the cursor at a
 * different known offset, and would verify what follows once for each
 * (VLAN tags, IPv6 extension headers, mirror and VXLAN headers all move
 * it). Re-deriving the cursor from an offset it cannot follow (a pointer
 * difference) makes those paths one state, verified once; at run time the
 * address is the same. No header starts FP_MAX_HDR_OFF (32 KiB) into a
 * frame: before the deepest come three IP headers, each with at most four
 * IPv6 extension headers of 2 KiB.
 */
static __always_inline __u32 cursor_rebase(struct cursor *c)
{
	__u32 off = (c->pos - c->start) & FP_MAX_HDR_OFF;

	c->pos = c->start + off;
	return off;
}

/*
 * What the parser learned about one frame. The head is zeroed for every
 * frame; the key only once the frame turns out to be on the RoCE or VXLAN
 * port, so that other traffic costs as little as possible.
 */
struct fp_pkt {
	__u32 len; /* frame bytes on the wire; a mirror copy's: the mirrored packet's */
	__u32 psn;
	__u32 read_len; /* RETH DMA length of a READ request */
	__u32 read_va;	/* the low 32 bits of its RETH VA */
	__u16 vlan;
	__u8 pcp;
	__u8 vlan_tagged;
	__u8 ecn;
	__u8 inner_ecn;
	__u8 dscp;
	__u8 opcode;
	__u8 bth_flags; /* byte 4 of the BTH: FECN, BECN */
	__u8 syndrome;	/* AETH syndrome when has_aeth */
	__u8 has_aeth;
	__u8 encap; /* FP_ENCAP_* */
	union {
		struct flow_key key;
		/* An IPv4 flow's key, compacted in place for its tables (flows.h, account_flow). */
		struct flow_key4 key4;
	};
	/*
	 * Mirror copies only: what the GRE and ERSPAN headers said, for the
	 * key and the counters. Set before FP_ENCAP_MIRROR, so a frame on the
	 * wire pays nothing for them. Only the flag is tested, so that the
	 * verifier sees one state for every mirror type.
	 */
	__u8 mirror_type;
	__u8 mirror_flags; /* FP_FLOW_MIRROR_* */
	__u8 mirror_ft;	   /* ERSPAN III frame type; not 0: not Ethernet */
	__u32 mirror_id;
	__u32 mirror_src;
	__u32 mirror_off; /* where the mirrored frame starts */
};

/*
 * An IP header's view, so that outer and inner headers share one parser.
 * The header is an offset, not a pointer: a pointer kept from here to the
 * key would carry the checks made along each path to it (its range) and
 * keep those paths apart in the verifier; l3_hdr() checks it again.
 */
struct fp_l3 {
	__u32 off;   /* the IPv4 or IPv6 header's offset in the frame */
	__u8 tclass; /* DSCP << 2 | ECN */
	__u8 v6;
};

static __always_inline int parse_eth(struct cursor *c, struct fp_pkt *p, bool outer)
{
	struct ethhdr *eth = c->pos;
	struct vlan_hdr *vh;
	__u16 proto;
	int i;

	if ((void *)(eth + 1) > c->end)
		return FP_CUT;
	c->pos = eth + 1;
	proto = bpf_ntohs(eth->h_proto);

	/* 802.1ad outer tag and 802.1Q inner tag (QinQ), at most FP_MAX_VLAN. */
#pragma unroll
	for (i = 0; i < FP_MAX_VLAN; i++) {
		if (proto != FP_ETH_P_8021Q && proto != FP_ETH_P_8021AD)
			break;
		vh = c->pos;
		if ((void *)(vh + 1) > c->end)
			return FP_CUT;
		if (outer && i == 0) {
			__u16 tci = bpf_ntohs(vh->h_vlan_TCI);

			p->vlan = tci & 0x0FFF;
			p->pcp = tci >> 13;
			p->vlan_tagged = 1;
		}
		c->pos = vh + 1;
		proto = bpf_ntohs(vh->h_vlan_encapsulated_proto);
	}
	return proto;
}

static __always_inline int parse_ipv4(struct cursor *c, struct fp_l3 *l3)
{
	struct iphdr *iph = c->pos;
	__u32 hlen;

	if ((void *)(iph + 1) > c->end)
		return FP_CUT;
	hlen = iph->ihl * 4;
	if (iph->version != 4 || hlen < sizeof(*iph))
		return FP_MALFORMED;
	/* Options are skipped whole; the IHL is checked before it is trusted. */
	if (c->pos + hlen > c->end)
		return FP_CUT;
	/* A non-first fragment has no UDP header: its first bytes are payload. */
	if (bpf_ntohs(iph->frag_off) & FP_IP_OFFSET)
		return FP_OTHER;
	l3->off = (__u32)((void *)iph - c->start);
	l3->tclass = iph->tos;
	l3->v6 = 0;
	c->pos += hlen;
	return iph->protocol;
}

static __always_inline int parse_ipv6(struct cursor *c, struct fp_l3 *l3)
{
	struct ipv6hdr *ip6h = c->pos;
	struct ipv6_opt_hdr *opt;
	struct frag_hdr *frag;
	__u8 nexthdr;
	int i;

	if ((void *)(ip6h + 1) > c->end)
		return FP_CUT;
	if (ip6h->version != 6)
		return FP_MALFORMED;
	l3->off = (__u32)((void *)ip6h - c->start);
	l3->tclass = ip6h->priority << 4 | ip6h->flow_lbl[0] >> 4;
	l3->v6 = 1;
	c->pos = ip6h + 1;
	nexthdr = ip6h->nexthdr;

	/* The extension headers a UDP datagram may follow, bounded (RFC 8200 4.1). */
#pragma unroll
	for (i = 0; i < FP_MAX_IPV6_EXT; i++) {
		cursor_rebase(c);
		switch (nexthdr) {
		case FP_IPPROTO_HOPOPTS:
		case FP_IPPROTO_ROUTING:
		case FP_IPPROTO_DSTOPTS:
		case FP_IPPROTO_AH:
			opt = c->pos;
			if ((void *)(opt + 1) > c->end)
				return FP_CUT;
			/* 8-byte units less 1; AH's 4-byte units less 2 (RFC 4302). */
			c->pos += nexthdr == FP_IPPROTO_AH ? (opt->hdrlen + 2) * 4
							   : (opt->hdrlen + 1) * 8;
			nexthdr = opt->nexthdr;
			break;
		case FP_IPPROTO_FRAGMENT:
			frag = c->pos;
			if ((void *)(frag + 1) > c->end)
				return FP_CUT;
			if (bpf_ntohs(frag->frag_off) & ~0x7)
				return FP_OTHER;
			nexthdr = frag->nexthdr;
			c->pos = frag + 1;
			break;
		default:
			return nexthdr;
		}
	}
	/* FP_MAX_IPV6_EXT headers were skipped; what follows may still be UDP. */
	if (nexthdr == FP_IPPROTO_HOPOPTS || nexthdr == FP_IPPROTO_ROUTING ||
	    nexthdr == FP_IPPROTO_DSTOPTS || nexthdr == FP_IPPROTO_FRAGMENT ||
	    nexthdr == FP_IPPROTO_AH)
		return FP_OTHER;
	return nexthdr;
}

/* The IP header parse_ip() found: at run time always within the frame. */
static __always_inline void *l3_hdr(const struct cursor *c, const struct fp_l3 *l3)
{
	void *h = c->start + (l3->off & FP_MAX_HDR_OFF);

	if (l3->v6) {
		if (h + sizeof(struct ipv6hdr) > c->end)
			return NULL;
	} else if (h + sizeof(struct iphdr) > c->end) {
		return NULL;
	}
	return h;
}

/* The source address in 32 bits: IPv4 as it is, IPv6 as fp_addr6_digest(). */
static __always_inline __u32 src_id(const struct cursor *c, const struct fp_l3 *l3, __u8 *flags)
{
	void *hdr = l3_hdr(c, l3);
	__u64 hi, lo;
	__u32 a;

	if (!hdr)
		return 0;
	if (!l3->v6) {
		__builtin_memcpy(&a, &((struct iphdr *)hdr)->saddr, 4);
		return a;
	}
	__builtin_memcpy(&hi, &((struct ipv6hdr *)hdr)->saddr, 8);
	__builtin_memcpy(&lo, (__u8 *)&((struct ipv6hdr *)hdr)->saddr + 8, 8);
	*flags |= FP_FLOW_MIRROR_IPV6;
	return fp_addr6_digest(hi, lo);
}

static __always_inline void copy_addrs(const struct cursor *c, __u8 *src, __u8 *dst,
				       const struct fp_l3 *l3)
{
	void *hdr = l3_hdr(c, l3);

	if (!hdr)
		return;
	if (l3->v6) {
		struct ipv6hdr *ip6h = hdr;

		__builtin_memcpy(src, &ip6h->saddr, 16);
		__builtin_memcpy(dst, &ip6h->daddr, 16);
	} else {
		struct iphdr *iph = hdr;

		__builtin_memcpy(src, &iph->saddr, 4);
		__builtin_memcpy(dst, &iph->daddr, 4);
	}
}

static __always_inline int parse_ip(struct cursor *c, int proto, struct fp_l3 *l3)
{
	if (proto == FP_ETH_P_IP)
		return parse_ipv4(c, l3);
	if (proto == FP_ETH_P_IPV6)
		return parse_ipv6(c, l3);
	return FP_OTHER;
}

/* The datagram's length as its header states it: IPv4 total length, IPv6 payload + 40. */
static __always_inline __u32 ip_len(const struct cursor *c, const struct fp_l3 *l3)
{
	void *hdr = l3_hdr(c, l3);

	if (!hdr)
		return 0;
	if (l3->v6)
		return bpf_ntohs(((struct ipv6hdr *)hdr)->payload_len) + sizeof(struct ipv6hdr);
	return bpf_ntohs(((struct iphdr *)hdr)->tot_len);
}

static __always_inline __u32 get_be32(const __u8 *b)
{
	return (__u32)b[0] << 24 | (__u32)b[1] << 16 | (__u32)b[2] << 8 | b[3];
}

/*
 * GRE (RFC 2784, RFC 2890) carrying a mirror: ERSPAN or transparent
 * Ethernet bridging. Returns that protocol, with *flags the GRE flags.
 * Any other protocol or version, RFC 1701 routing, or a header cut before
 * its protocol field is not ours (FP_OTHER). The optional fields are
 * counted, not walked: C, K and S add 4 bytes each, so one cursor step
 * serves every combination. Past the protocol field the header is a
 * mirror's, and cut short it is FP_CUT: malformed if it was sent so.
 */
static __always_inline int parse_gre(struct cursor *c, struct fp_pkt *p, __u16 *flags)
{
	__u8 *gre = c->pos;
	__u32 key_off, hlen;
	__u16 fl, proto;

	if ((void *)(gre + FP_GRE_HLEN) > c->end)
		return FP_OTHER;
	fl = (__u16)gre[0] << 8 | gre[1];
	proto = (__u16)gre[2] << 8 | gre[3];
	if (fl & (FP_GRE_FLAG_R | FP_GRE_VER_MASK))
		return FP_OTHER;
	if (proto != FP_ETH_P_ERSPAN && proto != FP_ETH_P_ERSPAN3 && proto != FP_ETH_P_TEB)
		return FP_OTHER;
	key_off = FP_GRE_HLEN + 4 * !!(fl & FP_GRE_FLAG_C);
	hlen = key_off + 4 * !!(fl & FP_GRE_FLAG_K) + 4 * !!(fl & FP_GRE_FLAG_S);
	if ((void *)(gre + hlen) > c->end)
		return FP_CUT;
	p->mirror_id = 0;
	p->mirror_flags = 0;
	p->mirror_ft = 0;
	if (fl & FP_GRE_FLAG_K) {
		/* Always true after the check above; the verifier wants it said. */
		if ((void *)(gre + key_off + 4) > c->end)
			return FP_CUT;
		p->mirror_id = get_be32(gre + key_off);
		p->mirror_flags = FP_FLOW_MIRROR_KEY;
	}
	c->pos = gre + hlen;
	*flags = fl;
	return proto;
}

/*
 * The mirror header after GRE. Returns FP_ETH_P_TEB when a mirrored
 * Ethernet frame follows, with FP_ENCAP_MIRROR set and the type, session (which
 * names the mirror instead of a GRE key; type II's with its Index),
 * truncation and direction stated.
 * 0x88BE without a sequence number is ERSPAN type I, which has no header
 * of its own (Linux include/net/erspan.h). An ERSPAN version we do not
 * read is not ours; a header cut short is FP_CUT. A type III copy of a
 * frame that is not Ethernet (FT != 0) is decoded, and FP_OTHER says it
 * is not parsed further.
 */
static __always_inline int parse_mirror(struct cursor *c, struct fp_pkt *p, int proto, __u16 flags)
{
	__u8 *h = c->pos;
	__u32 hlen, index = 0;

	if (proto == FP_ETH_P_TEB || (proto == FP_ETH_P_ERSPAN && !(flags & FP_GRE_FLAG_S))) {
		p->mirror_type = proto == FP_ETH_P_TEB ? FP_MIRROR_GRE_TEB : FP_MIRROR_ERSPAN_I;
		p->encap |= FP_ENCAP_MIRROR;
		return FP_ETH_P_TEB;
	}
	if ((void *)(h + FP_ERSPAN2_HLEN) > c->end)
		return FP_CUT;
	if (proto == FP_ETH_P_ERSPAN) {
		if (h[0] >> 4 != FP_ERSPAN2_VER)
			return FP_OTHER;
		p->mirror_type = FP_MIRROR_ERSPAN_II;
		p->mirror_flags = 0; /* not the GRE key: the session names it */
		/* The port the copy was taken at: one session's two ports are two flows. */
		index = (__u32)(h[5] & FP_ERSPAN2_INDEX_HI) << 16 | (__u32)h[6] << 8 | h[7];
		hlen = FP_ERSPAN2_HLEN;
	} else {
		if (h[0] >> 4 != FP_ERSPAN3_VER)
			return FP_OTHER;
		if ((void *)(h + FP_ERSPAN3_HLEN) > c->end)
			return FP_CUT;
		hlen = FP_ERSPAN3_HLEN + FP_ERSPAN3_SUB_HLEN * (h[11] & FP_ERSPAN3_O);
		if ((void *)(h + hlen) > c->end)
			return FP_CUT;
		p->mirror_type = FP_MIRROR_ERSPAN_III;
		p->mirror_flags =
		    h[11] & FP_ERSPAN3_D ? FP_FLOW_MIRROR_EGRESS : FP_FLOW_MIRROR_INGRESS;
		p->mirror_ft = (h[10] >> FP_ERSPAN3_FT_SHIFT) & FP_ERSPAN3_FT_MASK;
	}
	p->mirror_id =
	    index << FP_MIRROR_INDEX_SHIFT | (__u32)(h[2] & FP_ERSPAN_SESSION_HI) << 8 | h[3];
	if (h[2] & FP_ERSPAN_T)
		p->encap |= FP_ENCAP_TRUNC;
	c->pos = h + hlen;
	p->encap |= FP_ENCAP_MIRROR;
	if (p->mirror_ft)
		return FP_OTHER;
	return FP_ETH_P_TEB;
}

/*
 * Returns the UDP destination port. A datagram whose length field is below
 * the header size or beyond the frame is invalid; the caller decides whether
 * that makes the frame malformed (it does on the RoCE and VXLAN ports).
 */
static __always_inline int parse_udp(struct cursor *c, __u32 frame_len, __u16 *sport,
				     __u32 *payload_len, bool *bad_len)
{
	struct udphdr *udph = c->pos;
	__u32 ulen, offset;

	if ((void *)(udph + 1) > c->end)
		return FP_CUT;
	ulen = bpf_ntohs(udph->len);
	offset = c->pos - c->start;
	*bad_len = ulen < sizeof(*udph) || offset + ulen > frame_len;
	*payload_len = ulen - sizeof(*udph);
	*sport = bpf_ntohs(udph->source);
	c->pos = udph + 1;
	return bpf_ntohs(udph->dest);
}

/* RFC 7348 section 5: the I flag must be set for the VNI to be valid. */
static __always_inline int parse_vxlan(struct cursor *c, __u32 *vni)
{
	__u8 *vxh = c->pos;

	if ((void *)(vxh + FP_VXLAN_HLEN) > c->end)
		return FP_CUT;
	if (!(vxh[0] & FP_VXLAN_FLAG_I))
		return FP_MALFORMED;
	*vni = (__u32)vxh[4] << 16 | (__u32)vxh[5] << 8 | vxh[6];
	c->pos = vxh + FP_VXLAN_HLEN;
	return 0;
}

/*
 * Extension headers between the BTH and the payload (IBTA 9.2, A17.4), as
 * lookups rather than chains of compares: one shift and mask each, 1 to
 * 2 ns less a RoCE packet than the compares (BENCHMARKS.md). Lengths are
 * in 4-byte units, one nibble an operation (ops 0-15 in the low word, 16-31
 * in the high one) or a transport (opcode >> 5).
 */
#define FP_NIBBLE(i, units) ((__u64)(units) << (((i)&15) * 4))

/* RETH 4, AETH 1, AtomicAckETH 2, AtomicETH 7, ImmDt 1, IETH 1 (units of 4 bytes). */
#define FP_OP_EXT_LO                                                                               \
	(FP_NIBBLE(FP_OP_SEND_LAST_IMM, 1) | FP_NIBBLE(FP_OP_SEND_ONLY_IMM, 1) |                   \
	 FP_NIBBLE(FP_OP_WRITE_FIRST, 4) | FP_NIBBLE(FP_OP_WRITE_LAST_IMM, 1) |                    \
	 FP_NIBBLE(FP_OP_WRITE_ONLY, 4) | FP_NIBBLE(FP_OP_WRITE_ONLY_IMM, 4 + 1) |                 \
	 FP_NIBBLE(FP_OP_READ_REQ, 4) | FP_NIBBLE(FP_OP_READ_RESP_FIRST, 1) |                      \
	 FP_NIBBLE(FP_OP_READ_RESP_LAST, 1))
#define FP_OP_EXT_HI                                                                               \
	(FP_NIBBLE(FP_OP_READ_RESP_ONLY, 1) | FP_NIBBLE(FP_OP_ACK, 1) |                            \
	 FP_NIBBLE(FP_OP_ATOMIC_ACK, 1 + 2) | FP_NIBBLE(FP_OP_CMP_SWAP, 7) |                       \
	 FP_NIBBLE(FP_OP_FETCH_ADD, 7) | FP_NIBBLE(FP_OP_SEND_LAST_INV, 1) |                       \
	 FP_NIBBLE(FP_OP_SEND_ONLY_INV, 1))

/*
 * Before the operation's headers of a request: RDETH + DETH (RD), DETH
 * (UD), XRCETH (XRC). A response (READ response, ACK, ATOMIC ACK) carries
 * the RDETH alone in RD and no XRCETH in XRC (IBTA 9.3; rxe_opcode.c).
 */
#define FP_TRANSPORT_HDR                                                                           \
	(FP_NIBBLE(FP_TRANSPORT_RD >> 5, 1 + 2) | FP_NIBBLE(FP_TRANSPORT_UD >> 5, 2) |             \
	 FP_NIBBLE(FP_TRANSPORT_XRC >> 5, 1))
#define FP_TRANSPORT_RESP_HDR FP_NIBBLE(FP_TRANSPORT_RD >> 5, 1)
/* The transports whose operations the table above describes (not CNP, not reserved). */
#define FP_TRANSPORT_OPS                                                                           \
	(1U << (FP_TRANSPORT_RC >> 5) | 1U << (FP_TRANSPORT_UC >> 5) |                             \
	 1U << (FP_TRANSPORT_RD >> 5) | 1U << (FP_TRANSPORT_UD >> 5) |                             \
	 1U << (FP_TRANSPORT_XRC >> 5))

static __always_inline __u32 op_ext_len(__u8 op)
{
	__u64 word = op & 16 ? FP_OP_EXT_HI : FP_OP_EXT_LO;

	return ((word >> ((op & 15) * 4)) & 15) * 4;
}

static __always_inline bool op_has_aeth(__u8 op)
{
	return op == FP_OP_READ_RESP_FIRST || op == FP_OP_READ_RESP_LAST ||
	       op == FP_OP_READ_RESP_ONLY || op == FP_OP_ACK || op == FP_OP_ATOMIC_ACK;
}

/* Bytes of transport headers that precede the operation's own headers. */
static __always_inline __u32 transport_hdr_len(__u8 transport, __u8 op)
{
	/* READ_RESP_FIRST (0x0D) to ATOMIC_ACK (0x12): the responses. */
	__u32 table = (__u8)(op - FP_OP_READ_RESP_FIRST) <= FP_OP_ATOMIC_ACK - FP_OP_READ_RESP_FIRST
			  ? FP_TRANSPORT_RESP_HDR
			  : FP_TRANSPORT_HDR;

	return ((table >> ((transport >> 5) * 4)) & 15) * 4;
}

static __always_inline bool transport_has_ops(__u8 transport)
{
	return FP_TRANSPORT_OPS >> (transport >> 5) & 1;
}

/*
 * BTH and the extension headers the accounting needs: RETH (READ length)
 * and AETH (ACK/NAK syndrome). payload_len is the UDP payload length, so a
 * packet too short to hold its headers and the ICRC is malformed. In a
 * truncated mirror copy, or a frame a capture's snap length cut, an
 * extension header may be missing: the packet is still RoCE, without what
 * that header would have told (no ACK/NAK class; a READ's length unknown,
 * so the next request cannot look like a gap).
 */
static __always_inline int parse_bth(struct cursor *c, __u32 payload_len, struct fp_pkt *p)
{
	__u8 *bth = c->pos;
	__u8 transport, op;
	__u32 need;
	__u8 *ext;

	/* Cut here: malformed all the same when its own length is too short for a BTH. */
	if ((void *)(bth + FP_BTH_LEN) > c->end)
		return payload_len < FP_BTH_LEN + FP_ICRC_LEN ? FP_MALFORMED : FP_CUT;
	if ((bth[1] & FP_BTH_TVER_MASK) != 0)
		return FP_MALFORMED;
	p->opcode = bth[0];
	p->bth_flags = bth[4];
	p->key.dest_qp = (__u32)bth[5] << 16 | (__u32)bth[6] << 8 | bth[7];
	p->psn = (__u32)bth[9] << 16 | (__u32)bth[10] << 8 | bth[11];

	transport = p->opcode & FP_TRANSPORT_MASK;
	op = p->opcode & FP_OP_MASK;
	need = FP_BTH_LEN + FP_ICRC_LEN;
	if (p->opcode == FP_OPCODE_CNP)
		need += 16; /* reserved bytes (Annex A17.9.3) */
	else if (transport_has_ops(transport))
		need += transport_hdr_len(transport, op) + op_ext_len(op);
	if (payload_len < need)
		return FP_MALFORMED;

	if (!transport_has_ops(transport))
		return 0;
	ext = bth + FP_BTH_LEN + transport_hdr_len(transport, op);
	if (op == FP_OP_READ_REQ) {
		/* RETH: VA (8), R_Key (4), DMA length (4). */
		if ((void *)(ext + FP_RETH_LEN) > c->end) {
			if (!(p->encap & FP_ENCAP_CUT))
				return FP_CUT;
			p->read_len = FP_READ_LEN_UNKNOWN;
			return 0;
		}
		p->read_va = get_be32(ext + 4);
		/*
		 * At 2^30 and past (IBTA allows up to 2^31) as unknown: its 2^22
		 * PSNs are more than any PMTU of 512 or more reserves, and a
		 * length near 2^32 no longer wraps ceil(len / 256) to 0.
		 */
		p->read_len = get_be32(ext + 12);
		if (p->read_len > FP_READ_LEN_UNKNOWN)
			p->read_len = FP_READ_LEN_UNKNOWN;
	} else if (op_has_aeth(op)) {
		if ((void *)(ext + FP_AETH_LEN) > c->end)
			return p->encap & FP_ENCAP_CUT ? 0 : FP_CUT;
		p->syndrome = ext[0];
		p->has_aeth = 1;
	}
	return 0;
}

#endif /* __FP_PARSING_H */
