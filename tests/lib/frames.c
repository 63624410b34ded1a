// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"

_Static_assert(FR_H_M_UDP - FR_H_M_ETH == FR_H_UDP - FR_H_ETH,
	       "mirrored headers mirror the outer ones' order (mark_l2l4)");

static const __u8 mac_dst[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
static const __u8 mac_src[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};

static void die(const char *what)
{
	fprintf(stderr, "frames: %s\n", what);
	abort();
}

static __u8 *room(struct frame *f, __u32 len)
{
	__u8 *p;

	if (f->len + len > FR_MAX_LEN)
		die("frame too long");
	p = f->data + f->len;
	memset(p, 0, len);
	f->len += len;
	return p;
}

static void mark(struct frame *f, enum fr_hdr h)
{
	if (f->off[h] < 0)
		f->off[h] = f->len;
}

/*
 * Outer, mirrored or inner flavour of an L2-L4 header: by whether a GRE
 * mirror or VXLAN header came first. The mirrored flavours follow the outer
 * ones in enum fr_hdr, FR_H_M_ETH - FR_H_ETH apart.
 */
static void mark_l2l4(struct frame *f, enum fr_hdr outer, enum fr_hdr inner)
{
	if (f->inner)
		mark(f, inner);
	else if (f->mirrored)
		mark(f, outer + (FR_H_M_ETH - FR_H_ETH));
	else
		mark(f, outer);
}

static void add_len(struct frame *f, enum fr_len_kind kind, __u32 hdr_off)
{
	if (f->n_lens == FR_MAX_LENS)
		die("too many length fields");
	f->lens[f->n_lens++] = (struct fr_len_field){.kind = kind, .hdr_off = hdr_off, .value = -1};
}

static void put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put24(__u8 *p, __u32 v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static void put32(__u8 *p, __u32 v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static void put64(__u8 *p, __u64 v)
{
	put32(p, v >> 32);
	put32(p + 4, v);
}

static void addr(int family, const char *text, void *out)
{
	if (inet_pton(family, text, out) != 1)
		die("bad address");
}

void fr_init(struct frame *f)
{
	memset(f, 0, sizeof(*f));
	for (int i = 0; i < FR_H_MAX; i++)
		f->off[i] = -1;
}

void fr_eth(struct frame *f, __u16 ethertype)
{
	__u8 *p;

	mark_l2l4(f, FR_H_ETH, FR_H_IN_ETH);
	p = room(f, FR_ETH_LEN);
	memcpy(p, mac_dst, 6);
	memcpy(p + 6, mac_src, 6);
	put16(p + 12, ethertype);
}

void fr_vlan(struct frame *f, __u8 pcp, __u16 vid, __u16 ethertype)
{
	__u8 *p;

	mark_l2l4(f, FR_H_VLAN, FR_H_IN_VLAN);
	p = room(f, FR_VLAN_LEN);
	put16(p, (__u16)(pcp & 7) << 13 | (vid & 0x0FFF));
	put16(p + 2, ethertype);
}

void fr_ipv4(struct frame *f, const struct fr_ip *ip)
{
	__u32 hlen = FR_IPV4_LEN + ip->opt_len;
	__u32 off = f->len;
	__u8 *p;

	if (ip->opt_len % 4 || ip->opt_len > 40)
		die("bad IPv4 option length");
	mark_l2l4(f, FR_H_IP, FR_H_IN_IP);
	p = room(f, hlen);
	p[0] = 0x40 | (ip->ihl ? ip->ihl : hlen / 4);
	p[1] = ip->dscp << 2 | (ip->ecn & 3);
	put16(p + 4, 0x1234);
	put16(p + 6, ip->frag);
	p[8] = ip->ttl ? ip->ttl : 64;
	p[9] = ip->proto ? ip->proto : 17;
	addr(AF_INET, ip->src, p + 12);
	addr(AF_INET, ip->dst, p + 16);
	/* Options: NOPs closed by End of Option List (RFC 791). */
	if (ip->opt_len) {
		memset(p + FR_IPV4_LEN, 1, ip->opt_len - 1);
		p[hlen - 1] = 0;
	}
	add_len(f, FR_LEN_IPV4_TOTAL, off);
}

void fr_ipv6(struct frame *f, const struct fr_ip *ip, __u8 nexthdr)
{
	__u32 tclass = ip->dscp << 2 | (ip->ecn & 3);
	__u32 off = f->len;
	__u8 *p;

	mark_l2l4(f, FR_H_IP, FR_H_IN_IP);
	p = room(f, FR_IPV6_LEN);
	put32(p, 6U << 28 | tclass << 20 | (ip->flow_label & 0xFFFFF));
	p[6] = nexthdr;
	p[7] = ip->ttl ? ip->ttl : 64;
	addr(AF_INET6, ip->src, p + 8);
	addr(AF_INET6, ip->dst, p + 24);
	add_len(f, FR_LEN_IPV6_PAYLOAD, off);
}

void fr_ipv6_opts(struct frame *f, __u8 nexthdr, __u32 len)
{
	__u8 *p;

	if (len < 8 || len % 8 || len > 2048)
		die("bad IPv6 options length");
	mark_l2l4(f, FR_H_IP_EXT, FR_H_IN_IP_EXT);
	p = room(f, len);
	p[0] = nexthdr;
	p[1] = len / 8 - 1;
	/* One PadN option covering the rest (RFC 8200 4.2). */
	p[2] = 1;
	p[3] = len - 4;
}

void fr_ipv6_routing(struct frame *f, __u8 nexthdr, __u8 n_segments)
{
	__u32 len = 8 + 16 * n_segments;
	__u8 *p;

	mark_l2l4(f, FR_H_IP_EXT, FR_H_IN_IP_EXT);
	p = room(f, len);
	p[0] = nexthdr;
	p[1] = len / 8 - 1;
	p[2] = 4; /* Segment Routing Header, RFC 8754 */
	p[3] = 0; /* Segments Left: this node is the last one */
	p[4] = n_segments ? n_segments - 1 : 0;
	for (int i = 0; i < n_segments; i++) {
		p[8 + 16 * i] = 0xfd;
		p[8 + 16 * i + 15] = i + 1;
	}
}

void fr_ipv6_frag(struct frame *f, __u8 nexthdr, __u16 offset, bool more, __u32 id)
{
	__u8 *p;

	mark_l2l4(f, FR_H_IP_EXT, FR_H_IN_IP_EXT);
	p = room(f, 8);
	p[0] = nexthdr;
	put16(p + 2, (__u16)(offset << 3) | more);
	put32(p + 4, id);
}

void fr_udp(struct frame *f, __u16 sport, __u16 dport)
{
	__u32 off = f->len;
	__u8 *p;

	mark_l2l4(f, FR_H_UDP, FR_H_IN_UDP);
	p = room(f, FR_UDP_LEN);
	put16(p, sport);
	put16(p + 2, dport);
	add_len(f, FR_LEN_UDP, off);
}

void fr_udp_len(struct frame *f, __u16 len)
{
	for (int i = f->n_lens - 1; i >= 0; i--) {
		if (f->lens[i].kind == FR_LEN_UDP) {
			f->lens[i].value = len;
			return;
		}
	}
	die("no UDP header");
}

void fr_vxlan(struct frame *f, __u8 flags, __u32 vni)
{
	__u8 *p;

	mark(f, FR_H_VXLAN);
	p = room(f, FR_VXLAN_LEN);
	p[0] = flags;
	put24(p + 4, vni);
	f->inner = true;
}

void fr_gre(struct frame *f, __u16 flags, __u16 proto, __u32 key, __u32 seq)
{
	__u32 len = FR_GRE_LEN + 4 * !!(flags & FR_GRE_C) + 4 * !!(flags & FR_GRE_K) +
		    4 * !!(flags & FR_GRE_S);
	__u8 *p;

	mark(f, FR_H_GRE);
	p = room(f, len);
	put16(p, flags);
	put16(p + 2, proto);
	p += FR_GRE_LEN + 4 * !!(flags & FR_GRE_C);
	if (flags & FR_GRE_K) {
		put32(p, key);
		p += 4;
	}
	if (flags & FR_GRE_S)
		put32(p, seq);
	if (proto == FR_GRE_ERSPAN || proto == FR_GRE_ERSPAN3 || proto == FR_GRE_TEB)
		f->mirrored = true;
}

/* The first word, common to types II and III. */
static void erspan_word0(__u8 *p, const struct fr_erspan *e, __u8 ver)
{
	put16(p, (__u16)(e->ver ? e->ver : ver) << 12 | (e->vlan & 0x0FFF));
	put16(p + 2, (__u16)(e->cos & 7) << 13 | (__u16)(e->en & 3) << 11 | (__u16)e->trunc << 10 |
			 (e->session & 0x03FF));
}

void fr_erspan2(struct frame *f, const struct fr_erspan *e)
{
	__u8 *p;

	mark(f, FR_H_ERSPAN);
	p = room(f, FR_ERSPAN2_LEN);
	erspan_word0(p, e, 1);
	put32(p + 4, e->index & 0xFFFFF);
}

void fr_erspan3(struct frame *f, const struct fr_erspan *e)
{
	__u8 *p;

	mark(f, FR_H_ERSPAN);
	p = room(f, FR_ERSPAN3_LEN + (e->subheader ? 8 : 0));
	erspan_word0(p, e, 2);
	put32(p + 4, e->timestamp);
	put16(p + 8, e->sgt);
	put16(p + 10, (__u16)e->p << 15 | (__u16)(e->ft & 0x1F) << 10 |
			  (__u16)(e->hwid & 0x3F) << 4 | (__u16)e->egress << 3 | (e->gra & 3) << 1 |
			  e->subheader);
	if (e->subheader) {
		/* Platform ID 3: port index and the upper 32 bits of the timestamp. */
		put32(p + 12, 3U << 26 | 0x42);
		put32(p + 16, 0xA5A5);
	}
}

void fr_bth(struct frame *f, const struct fr_bth *bth)
{
	__u8 *p;

	mark(f, FR_H_BTH);
	p = room(f, 12);
	p[0] = bth->opcode;
	p[1] = bth->se << 7 | bth->migreq << 6 | (bth->padcnt & 3) << 4 | (bth->tver & 0xF);
	put16(p + 2, bth->pkey ? bth->pkey : 0xFFFF);
	p[4] = bth->fecn << 7 | bth->becn << 6;
	put24(p + 5, bth->dest_qp);
	p[8] = bth->ackreq << 7;
	put24(p + 9, bth->psn);
}

void fr_reth(struct frame *f, __u64 va, __u32 rkey, __u32 dma_len)
{
	__u8 *p;

	mark(f, FR_H_RETH);
	p = room(f, 16);
	put64(p, va);
	put32(p + 8, rkey);
	put32(p + 12, dma_len);
}

void fr_aeth(struct frame *f, __u8 syndrome, __u32 msn)
{
	__u8 *p;

	mark(f, FR_H_AETH);
	p = room(f, 4);
	p[0] = syndrome;
	put24(p + 1, msn);
}

void fr_deth(struct frame *f, __u32 qkey, __u32 src_qp)
{
	__u8 *p;

	mark(f, FR_H_DETH);
	p = room(f, 8);
	put32(p, qkey);
	put24(p + 5, src_qp);
}

void fr_xrceth(struct frame *f, __u32 xrc_srq)
{
	__u8 *p;

	mark(f, FR_H_XRCETH);
	p = room(f, 4);
	put24(p + 1, xrc_srq);
}

void fr_atomiceth(struct frame *f, __u64 va, __u32 rkey, __u64 swap_add, __u64 compare)
{
	__u8 *p;

	mark(f, FR_H_ATOMICETH);
	p = room(f, 28);
	put64(p, va);
	put32(p + 8, rkey);
	put64(p + 12, swap_add);
	put64(p + 20, compare);
}

void fr_atomicacketh(struct frame *f, __u64 orig)
{
	mark(f, FR_H_ATOMICACKETH);
	put64(room(f, 8), orig);
}

void fr_immdt(struct frame *f, __u32 imm)
{
	mark(f, FR_H_IMMDT);
	put32(room(f, 4), imm);
}

void fr_ieth(struct frame *f, __u32 rkey)
{
	mark(f, FR_H_IETH);
	put32(room(f, 4), rkey);
}

void fr_payload(struct frame *f, __u32 len)
{
	__u8 *p;

	mark(f, FR_H_PAYLOAD);
	p = room(f, len);
	for (__u32 i = 0; i < len; i++)
		p[i] = i;
}

void fr_bytes(struct frame *f, const void *bytes, __u32 len)
{
	memcpy(room(f, len), bytes, len);
}

void fr_icrc(struct frame *f)
{
	mark(f, FR_H_ICRC);
	put32(room(f, 4), 0x1CECC0DE);
}

static __u16 ipv4_csum(const __u8 *hdr, __u32 len)
{
	__u32 sum = 0;

	for (__u32 i = 0; i + 1 < len; i += 2)
		sum += (__u32)hdr[i] << 8 | hdr[i + 1];
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return ~sum;
}

static void finish(struct frame *f, __u32 before)
{
	for (int i = 0; i < f->n_lens; i++) {
		const struct fr_len_field *lf = &f->lens[i];
		__u8 *p = f->data + lf->hdr_off;
		__u32 len;

		if (lf->hdr_off >= before)
			continue;
		if (lf->hdr_off + 8 > f->len)
			continue; /* the field itself was cut off */
		switch (lf->kind) {
		case FR_LEN_IPV4_TOTAL: {
			__u32 hlen = (p[0] & 0xF) * 4;

			put16(p + 2, f->len - lf->hdr_off);
			p[10] = p[11] = 0;
			if (hlen >= FR_IPV4_LEN && lf->hdr_off + hlen <= f->len)
				put16(p + 10, ipv4_csum(p, hlen));
			break;
		}
		case FR_LEN_IPV6_PAYLOAD:
			len = f->len - lf->hdr_off;
			put16(p + 4, len > FR_IPV6_LEN ? len - FR_IPV6_LEN : 0);
			break;
		case FR_LEN_UDP:
			len = lf->value >= 0 ? (__u32)lf->value : f->len - lf->hdr_off;
			put16(p + 4, len);
			break;
		}
	}
}

void fr_finish(struct frame *f)
{
	finish(f, ~0U);
}

void fr_finish_before(struct frame *f, enum fr_hdr h)
{
	finish(f, fr_off(f, h));
}

void fr_cut(struct frame *f, __u32 len)
{
	if (len > f->len)
		die("cut beyond the end");
	f->len = len;
	for (int i = 0; i < FR_H_MAX; i++)
		if (f->off[i] >= (int)len)
			f->off[i] = -1;
}

__u32 fr_off(const struct frame *f, enum fr_hdr h)
{
	if (f->off[h] < 0)
		die("frame has no such header");
	return f->off[h];
}

__u32 fr_wire_len(const struct frame *f)
{
	return f->wire_len ? f->wire_len : f->len;
}
