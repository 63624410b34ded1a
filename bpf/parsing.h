/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * parsing.h - bounds-checked header parsers over a cursor. Each helper
 * advances the cursor past its header and returns the next protocol, or
 * FP_OTHER when the frame is not one we follow, or FP_MALFORMED when its
 * header is cut short or invalid. Whether a malformed header makes the
 * frame malformed is the caller's call: only on the RoCE and VXLAN ports.
 */
#ifndef __FP_PARSING_H
#define __FP_PARSING_H

#include "fabprobe.h"

#define FP_OTHER     (-1)
#define FP_MALFORMED (-2)

struct cursor {
	void *pos;
	void *start;
	void *end;
};

/*
 * What the parser learned about one frame. The head is zeroed for every
 * frame; the key only once the frame turns out to be on the RoCE or VXLAN
 * port, so that other traffic costs as little as possible.
 */
struct fp_pkt {
	__u32 len; /* frame bytes on the wire */
	__u32 psn;
	__u32 read_len; /* RETH DMA length of a READ request */
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
	__u8 vxlan;
	struct flow_key key;
};

/* An IP header's view, so that outer and inner headers share one parser. */
struct fp_l3 {
	void *hdr;   /* the IPv4 or IPv6 header, bounds checked */
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
		return FP_MALFORMED;
	c->pos = eth + 1;
	proto = bpf_ntohs(eth->h_proto);

	/* 802.1ad outer tag and 802.1Q inner tag (QinQ), at most FP_MAX_VLAN. */
#pragma unroll
	for (i = 0; i < FP_MAX_VLAN; i++) {
		if (proto != FP_ETH_P_8021Q && proto != FP_ETH_P_8021AD)
			break;
		vh = c->pos;
		if ((void *)(vh + 1) > c->end)
			return FP_MALFORMED;
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
		return FP_MALFORMED;
	hlen = iph->ihl * 4;
	if (iph->version != 4 || hlen < sizeof(*iph))
		return FP_MALFORMED;
	/* Options are skipped whole; the IHL is checked before it is trusted. */
	if (c->pos + hlen > c->end)
		return FP_MALFORMED;
	/* A non-first fragment has no UDP header: its first bytes are payload. */
	if (bpf_ntohs(iph->frag_off) & FP_IP_OFFSET)
		return FP_OTHER;
	l3->hdr = iph;
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
		return FP_MALFORMED;
	if (ip6h->version != 6)
		return FP_MALFORMED;
	l3->hdr = ip6h;
	l3->tclass = ip6h->priority << 4 | ip6h->flow_lbl[0] >> 4;
	l3->v6 = 1;
	c->pos = ip6h + 1;
	nexthdr = ip6h->nexthdr;

	/* The extension headers a UDP datagram may follow, bounded (RFC 8200 4.1). */
#pragma unroll
	for (i = 0; i < FP_MAX_IPV6_EXT; i++) {
		switch (nexthdr) {
		case FP_IPPROTO_HOPOPTS:
		case FP_IPPROTO_ROUTING:
		case FP_IPPROTO_DSTOPTS:
			opt = c->pos;
			if ((void *)(opt + 1) > c->end)
				return FP_MALFORMED;
			nexthdr = opt->nexthdr;
			c->pos += (opt->hdrlen + 1) * 8;
			break;
		case FP_IPPROTO_FRAGMENT:
			frag = c->pos;
			if ((void *)(frag + 1) > c->end)
				return FP_MALFORMED;
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
	    nexthdr == FP_IPPROTO_DSTOPTS || nexthdr == FP_IPPROTO_FRAGMENT)
		return FP_OTHER;
	return nexthdr;
}

/* Addresses into a key: IPv4 in the first four bytes of the zeroed fields. */
static __always_inline void copy_addrs(__u8 *src, __u8 *dst, const struct fp_l3 *l3)
{
	if (l3->v6) {
		struct ipv6hdr *ip6h = l3->hdr;

		__builtin_memcpy(src, &ip6h->saddr, 16);
		__builtin_memcpy(dst, &ip6h->daddr, 16);
	} else {
		struct iphdr *iph = l3->hdr;

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
		return FP_MALFORMED;
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
		return FP_MALFORMED;
	if (!(vxh[0] & FP_VXLAN_FLAG_I))
		return FP_MALFORMED;
	*vni = (__u32)vxh[4] << 16 | (__u32)vxh[5] << 8 | vxh[6];
	c->pos = vxh + FP_VXLAN_HLEN;
	return 0;
}

/* Extension headers between the BTH and the payload (IBTA 9.2, A17.4). */
static __always_inline bool op_has_reth(__u8 op)
{
	return op == FP_OP_WRITE_FIRST || op == FP_OP_WRITE_ONLY || op == FP_OP_WRITE_ONLY_IMM ||
	       op == FP_OP_READ_REQ;
}

static __always_inline bool op_has_aeth(__u8 op)
{
	return op == FP_OP_READ_RESP_FIRST || op == FP_OP_READ_RESP_LAST ||
	       op == FP_OP_READ_RESP_ONLY || op == FP_OP_ACK || op == FP_OP_ATOMIC_ACK;
}

static __always_inline __u32 op_ext_len(__u8 op)
{
	__u32 len = 0;

	if (op_has_reth(op))
		len += FP_RETH_LEN;
	if (op_has_aeth(op))
		len += FP_AETH_LEN;
	if (op == FP_OP_ATOMIC_ACK)
		len += FP_ATOMICACKETH_LEN;
	if (op == FP_OP_CMP_SWAP || op == FP_OP_FETCH_ADD)
		len += FP_ATOMICETH_LEN;
	if (op == FP_OP_SEND_LAST_IMM || op == FP_OP_SEND_ONLY_IMM || op == FP_OP_WRITE_LAST_IMM ||
	    op == FP_OP_WRITE_ONLY_IMM)
		len += FP_IMMDT_LEN;
	if (op == FP_OP_SEND_LAST_INV || op == FP_OP_SEND_ONLY_INV)
		len += FP_IETH_LEN;
	return len;
}

/* Bytes of transport headers that precede the operation's own headers. */
static __always_inline __u32 transport_hdr_len(__u8 transport)
{
	switch (transport) {
	case FP_TRANSPORT_XRC:
		return FP_XRCETH_LEN;
	case FP_TRANSPORT_RD:
		return FP_RDETH_LEN + FP_DETH_LEN;
	case FP_TRANSPORT_UD:
		return FP_DETH_LEN;
	default:
		return 0;
	}
}

static __always_inline bool transport_has_ops(__u8 transport)
{
	return transport == FP_TRANSPORT_RC || transport == FP_TRANSPORT_UC ||
	       transport == FP_TRANSPORT_RD || transport == FP_TRANSPORT_UD ||
	       transport == FP_TRANSPORT_XRC;
}

/*
 * BTH and the extension headers the accounting needs: RETH (READ length)
 * and AETH (ACK/NAK syndrome). payload_len is the UDP payload length, so a
 * packet too short to hold its headers and the ICRC is malformed.
 */
static __always_inline int parse_bth(struct cursor *c, __u32 payload_len, struct fp_pkt *p)
{
	__u8 *bth = c->pos;
	__u8 transport, op;
	__u32 need;
	__u8 *ext;

	if ((void *)(bth + FP_BTH_LEN) > c->end)
		return FP_MALFORMED;
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
		need += transport_hdr_len(transport) + op_ext_len(op);
	if (payload_len < need)
		return FP_MALFORMED;

	if (!transport_has_ops(transport))
		return 0;
	ext = bth + FP_BTH_LEN + transport_hdr_len(transport);
	if (op == FP_OP_READ_REQ) {
		/* RETH: VA (8), R_Key (4), DMA length (4). */
		if ((void *)(ext + FP_RETH_LEN) > c->end)
			return FP_MALFORMED;
		p->read_len =
		    (__u32)ext[12] << 24 | (__u32)ext[13] << 16 | (__u32)ext[14] << 8 | ext[15];
	} else if (op_has_aeth(op)) {
		if ((void *)(ext + FP_AETH_LEN) > c->end)
			return FP_MALFORMED;
		p->syndrome = ext[0];
		p->has_aeth = 1;
	}
	return 0;
}

#endif /* __FP_PARSING_H */
