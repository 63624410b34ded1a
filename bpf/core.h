/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * core.h - the one parse-and-account core behind every entry point:
 * parse the frame, classify it, account it. It never changes the packet;
 * the entry points return XDP_PASS / TC_ACT_UNSPEC (TCX_NEXT: the next
 * program on the hook decides, else the packet passes) whatever happens
 * here, but for the one opt-in exception: XDP drops mirror copies when
 * mirror_drop is set (a port that only receives mirror copies).
 */
#ifndef __FP_CORE_H
#define __FP_CORE_H

#include "fabprobe.h"
#include "parsing.h"
#include "maps.h"

/* Load-time settings (skel->rodata), so the verifier prunes what is off. */
const volatile __u16 roce_port = FP_ROCE_PORT_DEFAULT;
const volatile __u16 vxlan_port = FP_VXLAN_PORT_DEFAULT;
const volatile __u8 replay_mode = 0;
/*
 * sFlow: every frame is a switch's sample, whose point is the port the
 * packet left by (its output port): the flows are egress ones there.
 */
const volatile __u8 replay_egress = 0;
/*
 * Sampling: packets per flow and per CPU in all; 0 turns it off. Two CPUs
 * sampling one flow's first packet at once may both take it: one more.
 */
const volatile __u8 sample_per_flow = 0;
const volatile __u32 sample_max_per_cpu = 0;
/* --mirror-port-drop: XDP drops the frames decoded as mirror copies, after counting them. */
const volatile __u8 mirror_drop = 0;
/*
 * The live clock, CLOCK_MONOTONIC in ns at the resolution of the kernel's
 * tick: clock_base_ns + jiffies * clock_tick_ns, both measured by the
 * loader (user/probe/clock.c). bpf_ktime_get_ns() is a call that reads the
 * clock source, about 29 ns a packet on this VM, a third of the program;
 * the verifier inlines bpf_jiffies64() into one load (BENCHMARKS.md).
 * The base wraps as a __u64 on purpose: the sum is right modulo 2^64.
 * clock_tick_ns 0 (--precise-clock, or the tick could not be measured):
 * the precise clock.
 */
const volatile __u64 clock_tick_ns = 0;
const volatile __u64 clock_base_ns = 0;

/*
 * The slot table (fp_slots, fabprobe.h): its buckets, 0 for fp_flows4
 * alone. slot_tag_mask is all ones; tests clear bits of it to make
 * different flows share a bucket and a tag.
 */
const volatile __u32 slot_buckets = 0;
const volatile __u64 slot_tag_mask = ~0ULL;

static const struct flow_counters zero_counters;

enum fp_class {
	FP_CLASS_ROCE,
	FP_CLASS_OTHER,
	FP_CLASS_MALFORMED,
	/* Other, and said: cut between the RoCE port and the BTH's end, no queue pair to count. */
	FP_CLASS_ROCE_CUT,
};

/*
 * A header in error past the RoCE or VXLAN port or a mirror's GRE protocol
 * makes the frame malformed, but for one cut short where the bytes were
 * cut, not sent short: in a truncated mirror copy (the switch left them
 * out on purpose), or past what a capture's snap length kept. The frame is
 * what it shows as far as it goes.
 */
static __always_inline int bad_header(const struct cursor *c, const struct fp_pkt *p, int err,
				      __u32 end)
{
	/* Asked only here, off the path of whole frames: no cost for them. */
	if (err == FP_CUT && ((p->encap & FP_ENCAP_TRUNC) || end > (__u32)(c->end - c->start)))
		return FP_CLASS_OTHER;
	return FP_CLASS_MALFORMED;
}

/*
 * The UDP header is parsed; classify what follows on the RoCE port. A
 * frame cut before the BTH's 12 bytes has no queue pair to count: it is
 * other, and counted as a RoCE packet the cut took (FP_CLASS_ROCE_CUT).
 */
static __always_inline int classify_roce(struct cursor *c, struct fp_pkt *p, __u32 payload_len,
					 bool bad_len, __u32 end)
{
	int err;

	if (bad_len)
		return FP_CLASS_MALFORMED;
	/* The packet ends past the bytes here: parse_bth() may find its headers cut. */
	if (end > (__u32)(c->end - c->start))
		p->encap |= FP_ENCAP_SHORT;
	err = parse_bth(c, payload_len, p);
	if (!err)
		return FP_CLASS_ROCE;
	if (err == FP_CUT && (p->encap & FP_ENCAP_CUT))
		return FP_CLASS_ROCE_CUT;
	return bad_header(c, p, err, end);
}

/*
 * A UDP header the cut took: cut is bad_header()'s class for it. Cut by a
 * capture or a mirror (other) after its destination port, the RoCE port (a
 * 128-byte sFlow header of RoCE in VXLAN over IPv6 in IPv6 ends there), it
 * is a RoCE packet the cut took; else the frame is was. FP_ENCAP_SHORT
 * makes fp_process() count it in roce_cut for a bare frame too.
 */
static __always_inline int udp_cut(const struct cursor *c, struct fp_pkt *p, int cut, int was)
{
	__u8 *udph = c->pos;

	if (cut != FP_CLASS_OTHER || (void *)(udph + 4) > c->end ||
	    ((__u16)udph[2] << 8 | udph[3]) != roce_port)
		return was;
	p->encap |= FP_ENCAP_SHORT;
	return FP_CLASS_ROCE_CUT;
}

/* Ethernet and IP: the steps every frame takes, on the wire, mirrored or in VXLAN. */
static __always_inline int parse_l2_l3(struct cursor *c, struct fp_pkt *p, struct fp_l3 *l3,
				       bool outer)
{
	int proto = parse_eth(c, p, outer);

	if (proto < 0)
		return proto;
	/* However many VLAN tags came before it: one state for the IP header on. */
	cursor_rebase(c);
	return parse_ip(c, proto, l3);
}

/*
 * GRE and the mirror header under the outer IP header l3. When a mirrored
 * Ethernet frame follows, returns FP_ETH_P_TEB with the cursor on it and
 * p holding the observation point: the switch (l3's source), the mirror,
 * its session or key, the direction.
 */
static __always_inline int decap_mirror(struct cursor *c, struct fp_pkt *p, const struct fp_l3 *l3)
{
	__u16 gre_flags;
	int proto;

	proto = parse_gre(c, p, &gre_flags);
	if (proto >= 0)
		proto = parse_mirror(c, p, proto, gre_flags);
	if (proto != FP_ETH_P_TEB)
		return proto;
	p->mirror_src = src_id(c, l3, &p->mirror_flags);
	/* The mirrored frame's own tags, not the collector link's. */
	p->vlan = 0;
	p->pcp = 0;
	p->vlan_tagged = 0;
	p->mirror_off = cursor_rebase(c);
	return proto;
}

/*
 * A mirror copy counts the mirrored packet's bytes as they were on the
 * wire it was copied from: its Ethernet and VLAN headers plus the length
 * its IP header states. Fewer bytes of it reached us when the switch cut
 * the copy (a mirror MTU): the copy is truncated, and its UDP length is
 * checked against the packet's end, not the copy's. *end is that end, as
 * an offset in the frame. l3 is the mirrored IP header when proto >= 0.
 */
static __always_inline void mirror_bytes(struct cursor *c, struct fp_pkt *p, const struct fp_l3 *l3,
					 int proto, __u32 *end)
{
	__u32 orig;

	if (proto < 0) {
		/* The frame on the wire ended inside the mirrored headers. */
		if (proto == FP_CUT && p->len <= (__u32)(c->end - c->start))
			p->encap |= FP_ENCAP_TRUNC;
		return;
	}
	orig = l3->off - p->mirror_off + ip_len(c, l3);
	if (p->len < p->mirror_off + orig)
		p->encap |= FP_ENCAP_TRUNC;
	p->len = orig;
	*end = p->mirror_off + orig;
}

/* The observation point of a mirror copy: the switch, the mirror, its session or key. */
static __always_inline void mirror_key(struct fp_pkt *p)
{
	p->key.flags |= p->mirror_flags;
	p->key.mirror = p->mirror_type;
	p->key.mirror_id = p->mirror_id;
	p->key.mirror_src = p->mirror_src;
}

/*
 * Walk Ethernet, IP, UDP and, in VXLAN, the inner Ethernet, IP and UDP,
 * down to the BTH. A mirror copy (GRE: ERSPAN or TEB) carries a frame that
 * takes the same steps, once: a mirror inside a mirror is not followed.
 * Until a RoCE or VXLAN port, or a mirror's GRE protocol, is seen a bad
 * header only means "not ours"; past it, the frame is malformed, unless
 * the header was cut after it was sent (bad_header()).
 */
static __always_inline int fp_parse(struct cursor *c, struct fp_pkt *p)
{
	struct fp_l3 l3 = {};
	__u32 payload_len, end = p->len;
	bool bad_len;
	__u16 sport;
	int proto;

	proto = parse_l2_l3(c, p, &l3, true);
	if (proto == FP_IPPROTO_GRE) {
		proto = decap_mirror(c, p, &l3);
		if (proto != FP_ETH_P_TEB)
			return proto == FP_CUT ? bad_header(c, p, proto, end) : FP_CLASS_OTHER;
		proto = parse_l2_l3(c, p, &l3, true);
		mirror_bytes(c, p, &l3, proto, &end);
	}
	if (proto != FP_IPPROTO_UDP)
		return FP_CLASS_OTHER;
	cursor_rebase(c);
	proto = parse_udp(c, end, &sport, &payload_len, &bad_len);
	if (proto < 0)
		return udp_cut(c, p, bad_header(c, p, proto, end), FP_CLASS_OTHER);
	if (proto != roce_port && proto != vxlan_port)
		return FP_CLASS_OTHER;
	/* Malformed counts in no flow: said before the key is built, not on each path after. */
	if (bad_len)
		return FP_CLASS_MALFORMED;

	/* Ours: now the key is worth building. */
	__builtin_memset(&p->key, 0, sizeof(p->key));
	copy_addrs(c, p->key.src, p->key.dst, &l3);
	p->key.flags = l3.v6 ? FP_FLOW_IPV6 : 0;
	p->key.sport = sport;
	p->key.dport = proto;
	if (p->encap & FP_ENCAP_MIRROR)
		mirror_key(p);
	p->ecn = l3.tclass & 3;
	p->dscp = l3.tclass >> 2;
	if (proto == roce_port)
		return classify_roce(c, p, payload_len, false, end);

	proto = parse_vxlan(c, &p->key.vni);
	if (proto < 0)
		return bad_header(c, p, proto, end);
	p->encap |= FP_ENCAP_VXLAN;
	p->key.flags |= FP_FLOW_VXLAN;

	proto = parse_l2_l3(c, p, &l3, false);
	if (proto < FP_OTHER)
		return bad_header(c, p, proto, end);
	if (proto != FP_IPPROTO_UDP)
		return FP_CLASS_OTHER;
	cursor_rebase(c);
	copy_addrs(c, p->key.inner_src, p->key.inner_dst, &l3);
	if (l3.v6)
		p->key.flags |= FP_FLOW_INNER_IPV6;
	p->inner_ecn = l3.tclass & 3;

	proto = parse_udp(c, end, &p->key.inner_sport, &payload_len, &bad_len);
	if (proto < 0) {
		int cut = bad_header(c, p, proto, end);

		return udp_cut(c, p, cut, cut);
	}
	if (proto != roce_port)
		return FP_CLASS_OTHER;
	p->key.inner_dport = proto;
	return classify_roce(c, p, payload_len, bad_len, end);
}

/*
 * One flow entry serves every CPU: its counters are atomic adds (a flow's
 * packets come in on one CPU's queue, so the cache line stays there and
 * the add is uncontended), its bitmaps an atomic or of a bit not yet set,
 * and its per-packet fields plain stores of the last packet's values.
 * shared is false where no other CPU writes the counters: a new flow's
 * first value on the stack (where the verifier will not let an atomic
 * address at a variable offset: a constant there), and live, a slot this
 * CPU owns (flows.h, slot_account()). A locked add costs 5 to 7 ns here,
 * two or three of them a RoCE packet (BENCHMARKS.md, part 33). A program
 * runs to its end on its CPU before another starts there (softirq and
 * BH-disabled tc, as for per-CPU maps), so plain adds lose nothing.
 */
#define fp_add(shared, field, v)                                                                   \
	do {                                                                                       \
		if (shared)                                                                        \
			__sync_fetch_and_add(&(field), (v));                                       \
		else                                                                               \
			(field) += (v);                                                            \
	} while (0)

static __always_inline void fp_set_bit(__u64 *map, __u64 bit, bool shared)
{
	if (*map & bit)
		return;
	if (shared)
		__sync_fetch_and_or(map, bit);
	else
		*map |= bit;
}

static __always_inline __u64 live_clock(void)
{
	if (clock_tick_ns)
		return clock_base_ns + bpf_jiffies64() * clock_tick_ns;
	return bpf_ktime_get_ns();
}

/* 24-bit serial number arithmetic (IBTA 9.7.1): is a ahead of b? */
static __always_inline bool psn_after(__u32 a, __u32 b)
{
	__u32 diff = (a - b) & FP_PSN_MASK;

	return diff != 0 && diff < (1U << 23);
}

static __always_inline bool is_request(__u8 opcode)
{
	__u8 transport = opcode & FP_TRANSPORT_MASK;
	__u8 op = opcode & FP_OP_MASK;

	if (transport != FP_TRANSPORT_RC && transport != FP_TRANSPORT_UC &&
	    transport != FP_TRANSPORT_XRC)
		return false;
	return op <= FP_OP_READ_REQ || op == FP_OP_CMP_SWAP || op == FP_OP_FETCH_ADD ||
	       op == FP_OP_SEND_LAST_INV || op == FP_OP_SEND_ONLY_INV;
}

/* psn_track's READ VA, modulo 2^30, in one piece. */
static __always_inline __u32 psn_read_va(const struct psn_track *pt)
{
	return pt->read_va_lo | (__u32)pt->read_va_hi << 16;
}

static __always_inline void psn_set_read_va(struct psn_track *pt, __u32 va)
{
	pt->read_va_lo = va;
	pt->read_va_hi = va >> 16;
}

/*
 * Is a READ request ahead of the highest request PSN a retry of the READ
 * there? A requester that lost READ responses may re-issue the READ from
 * the PSN of the first missing one, its VA and length moved on by the
 * bytes already answered, a PMTU for each PSN (IBTA Vol 1 9.7: a retried
 * READ re-reads a part of the original, with the same PSNs for the same
 * bytes; rxe's req_retry(), the lab's rocegen). So a retry k PSNs on starts
 * k PMTUs on (256 to 4096 bytes each) and ends inside the original. The
 * PSNs a READ reserves are sized for a 256-byte PMTU, so at a larger one
 * the next READ lands among them too; it is no retry: the next piece of a
 * buffer starts k PMTUs on but runs past the original's end, and a read of
 * the same buffer again (perftest's read_bw) starts at the original's VA.
 * psn_track keeps the VA modulo 2^30 (no retry is further on), bits 0-7
 * too: a retry is whole 256-byte units on, so a READ that starts inside
 * one of them, not at the same byte of it, is new. An unrelated READ whose
 * VA matches modulo 1 GiB, and whose PSN and length fit, would pass; so
 * would one that ends past the original's last byte but within its length
 * rounded up to 256 bytes (the exact length is not kept).
 */
static __always_inline bool read_retried(const struct fp_pkt *p, const struct psn_track *pt)
{
	__u32 k = (p->psn - pt->max_psn) & FP_PSN_MASK;
	__u32 reserved = (pt->next_psn_max - pt->max_psn) & FP_PSN_MASK;
	/* The original's length rounded up to 256 bytes: what its PSNs can hold. */
	__u64 held = (__u64)reserved << FP_MIN_PMTU_SHIFT;
	/* How far on the VA is, in bytes, modulo what psn_track keeps. */
	__u32 offset = (p->read_va - psn_read_va(pt)) & ((1U << FP_READ_VA_BITS) - 1);
	int t;

	/* Past the reservation; no READ there (1 PSN); its length unknown; nothing to read. */
	if (k >= reserved || held >= FP_READ_LEN_UNKNOWN || !p->read_len)
		return false;
#ifdef __clang__
#pragma unroll
#endif
	/* k PMTUs of 256 << t bytes on, and no further than the original's end. */
	for (t = 0; t <= FP_MAX_PMTU_SHIFT - FP_MIN_PMTU_SHIFT; t++)
		if (((k << (FP_MIN_PMTU_SHIFT + t)) & ((1U << FP_READ_VA_BITS) - 1)) == offset)
			return ((__u64)k << (FP_MIN_PMTU_SHIFT + t)) + p->read_len <= held;
	return false;
}

/*
 * Retransmit: a request PSN not ahead of the highest seen, or a READ's
 * retry from inside the PSNs of the READ there. Gap: a request PSN ahead
 * of the highest the previous request allowed (one more, or the PSNs a
 * READ request reserves for its responses).
 */
static __always_inline void track_psn(struct fp_pkt *p, struct flow_counters *fs,
				      struct psn_track *pt, bool shared)
{
	bool read = (p->opcode & FP_OP_MASK) == FP_OP_READ_REQ;
	__u32 reserve = 1;
	bool fresh;

	/* The flow's first request starts the tracking. */
	fresh = !pt->tracking;
	if (fresh)
		pt->tracking = 1;
	if (read && p->read_len > 1)
		reserve = (p->read_len + (1U << FP_MIN_PMTU_SHIFT) - 1) >> FP_MIN_PMTU_SHIFT;

	if (!fresh && (!psn_after(p->psn, pt->max_psn) || (read && read_retried(p, pt)))) {
		fp_add(shared, fs->retransmits, 1);
	} else {
		if (!fresh && psn_after(p->psn, pt->next_psn_max))
			fp_add(shared, fs->psn_gaps, 1);
		pt->max_psn = p->psn;
		pt->next_psn_max = (p->psn + reserve) & FP_PSN_MASK;
		psn_set_read_va(pt, p->read_va);
	}
	pt->last_psn = p->psn;
}

static __always_inline bool is_read_response(__u8 opcode)
{
	__u8 transport = opcode & FP_TRANSPORT_MASK;

	if (transport != FP_TRANSPORT_RC && transport != FP_TRANSPORT_XRC)
		return false;
	return (__u8)((opcode & FP_OP_MASK) - FP_OP_READ_RESP_FIRST) <=
	       FP_OP_READ_RESP_ONLY - FP_OP_READ_RESP_FIRST;
}

/*
 * A response carries the PSN of the request it answers, and a responder
 * answers in PSN order. A READ response not ahead of the highest response
 * PSN seen is one sent again: the responder answers a duplicate READ, or a
 * READ retried from the middle of its PSNs, from that PSN on. No gaps
 * here: the PSNs between two READs' responses are other requests'.
 */
static __always_inline void track_read_response(const struct fp_pkt *p, struct flow_counters *fs,
						struct psn_track *pt, bool shared)
{
	if (pt->resp_seen && !psn_after(p->psn, pt->resp_psn)) {
		fp_add(shared, fs->retransmits, 1);
		return;
	}
	pt->resp_psn = p->psn;
	pt->resp_seen = 1;
}

/*
 * An ACK's PSN is the last request it answers: READ responses up to it
 * are sent, so ACKs keep the highest response PSN in step while the QP
 * writes between two READs (else, 2^23 PSNs on, the next READ's responses
 * would look old). Not a NAK: its PSN is the request expected next. Every
 * ACK flow keeps it, READ responses or not: beside the requester's highest
 * PSN it tells which QP an ACK flow answers where QPs share a source port
 * (userspace, joins.c).
 */
static __always_inline void track_ack(const struct fp_pkt *p, struct psn_track *pt)
{
	if (!pt->resp_seen || psn_after(p->psn, pt->resp_psn)) {
		pt->resp_psn = p->psn;
		pt->resp_seen = 1;
	}
}

/*
 * One packet into a flow's counters: the map's entry (shared), or a new
 * flow's first value. pt: the flow's PSN state where fs does not keep it
 * (another CPU owns the flow's slot: flows.h, slot_account()), else NULL:
 * a flow's PSNs are tracked in one place, whichever CPU its packets come
 * in on, and only its counts are split.
 */
static __always_inline void count_packet(struct fp_pkt *p, struct flow_counters *fs,
					 struct psn_track *pt, __u64 now, bool shared)
{
	if (!pt)
		pt = &fs->psn;
	fp_add(shared, fs->bytes, p->len);
	fp_add(shared, fs->ecn[p->ecn & 3], 1);
	if (p->encap & FP_ENCAP_VXLAN)
		fp_add(shared, fs->inner_ecn[p->inner_ecn & 3], 1);
	fp_set_bit(&fs->opcodes[p->opcode >> 6], 1ULL << (p->opcode & 63), shared);
	fs->dscp = p->dscp;
	fs->vlan = p->vlan;
	fs->pcp = p->pcp;
	fs->vlan_tagged = p->vlan_tagged;
	fs->last_opcode = p->opcode;
	if (p->bth_flags & FP_BTH_FECN)
		fp_add(shared, fs->fecn, 1);
	if (p->bth_flags & FP_BTH_BECN)
		fp_add(shared, fs->becn, 1);
	/*
	 * A capture's time may step back: a flow spans its earliest to its
	 * latest packet. Live the clock only goes on (the verifier drops the
	 * compares there).
	 */
	if (!replay_mode || now > fs->last_seen_ns)
		fs->last_seen_ns = now;
	if (replay_mode && now < fs->first_seen_ns)
		fs->first_seen_ns = now;

	/* A CNP's DSCP apart from the other packets': they ride in different classes. */
	if (p->opcode == FP_OPCODE_CNP) {
		fp_set_bit(&fs->cnp_dscp_mask, 1ULL << (p->dscp & 63), shared);
		fp_add(shared, fs->cnp, 1);
		return;
	}
	fp_set_bit(&fs->dscp_mask, 1ULL << (p->dscp & 63), shared);
	if (p->has_aeth && (p->opcode & FP_OP_MASK) == FP_OP_ACK) {
		switch (p->syndrome & FP_AETH_CLASS_MASK) {
		case FP_AETH_CLASS_ACK:
			fp_add(shared, fs->acks, 1);
			track_ack(p, pt);
			break;
		case FP_AETH_CLASS_RNR:
			fp_add(shared, fs->rnr_naks, 1);
			break;
		case FP_AETH_CLASS_NAK:
			fp_add(shared, fs->naks, 1);
			fs->last_nak_code = p->syndrome & FP_AETH_CODE_MASK;
			break;
		}
	} else if (is_request(p->opcode)) {
		track_psn(p, fs, pt, shared);
	} else if (is_read_response(p->opcode)) {
		track_read_response(p, fs, pt, shared);
	}
}

#include "flows.h"

/*
 * Copy the frame to the sample ring: bounded, and only while sampling.
 * The load helpers read past the linear part (XDP fragments, a paged
 * skb) without pulling anything, so a sample is the whole frame up to
 * FP_SAMPLE_SNAP bytes. Samples are the first few packets of a flow, so
 * the helper calls stay off the per-packet path.
 */
static __always_inline void take_sample(void *ctx, bool xdp, struct fp_pkt *p,
					struct flow_counters *fs, struct fp_totals *t,
					__u32 frame_len, __u64 now)
{
	struct fp_sample *s;
	__u64 have, len;
	long err;

	if (fs->samples >= sample_per_flow || t->cnt[FP_CNT_SAMPLES] >= sample_max_per_cpu)
		return;
	s = bpf_ringbuf_reserve(&fp_samples, sizeof(*s), 0);
	if (!s) {
		t->cnt[FP_CNT_SAMPLE_DROPS]++;
		return;
	}
	fs->samples++;
	t->cnt[FP_CNT_SAMPLES]++;
	if (p->key.flags & FP_FLOW_ANY_IPV6)
		s->key = p->key;
	else
		fp_key_from4(&s->key, &p->key4);
	s->ts_ns = now;
	s->wire_len = frame_len;
	/* What is there (a replayed frame may hold fewer bytes than it had on the wire). */
	have = xdp ? bpf_xdp_get_buff_len(ctx) : ((struct __sk_buff *)ctx)->len;
	len = have < FP_SAMPLE_SNAP ? have : FP_SAMPLE_SNAP;
	/*
	 * The verifier must see the bound on the register the helper gets:
	 * an opaque mask keeps the compiler from handing it the unclamped copy.
	 */
	asm volatile("%[len] &= 0x1fff" : [len] "+r"(len));
	if (len < 1 || len > FP_SAMPLE_SNAP) {
		s->cap_len = 0;
		bpf_ringbuf_submit(s, 0);
		return;
	}
	err = xdp ? bpf_xdp_load_bytes(ctx, 0, s->data, len)
		  : bpf_skb_load_bytes(ctx, 0, s->data, len);
	s->cap_len = err ? 0 : len;
	bpf_ringbuf_submit(s, 0);
}

/* Count a mirror copy, and the drop the XDP entry point will make of it. */
static __always_inline void account_mirror(const struct fp_pkt *p, struct fp_totals *t, bool xdp,
					   int class)
{
	t->cnt[FP_CNT_MIRRORED]++;
	if (p->encap & FP_ENCAP_TRUNC)
		t->cnt[FP_CNT_MIRROR_TRUNCATED]++;
	if (class == FP_CLASS_ROCE_CUT)
		t->cnt[FP_CNT_MIRROR_ROCE_CUT]++;
	if (p->mirror_ft)
		t->cnt[FP_CNT_MIRROR_NOT_ETH]++;
	if (xdp && mirror_drop)
		t->cnt[FP_CNT_MIRROR_DROPPED]++;
}

/*
 * Parse, classify, account. data/data_end cover the linear part of the
 * frame. p is the caller's, so that the XDP entry point can see whether
 * the frame was a mirror copy (FP_ENCAP_MIRROR) without a verdict threaded
 * through every return here. In replay the entry point has already taken
 * frame_len and ifindex from the frame's fp_replay_meta, and replay_ts is
 * its capture clock; live, replay_ts is unused and the clock is read here,
 * for RoCE only.
 */
static __always_inline void fp_process(void *ctx, struct fp_pkt *p, void *data, void *data_end,
				       __u32 frame_len, __u32 ifindex, __u8 dir, bool xdp,
				       __u64 replay_ts)
{
	struct cursor c = {.pos = data, .start = data, .end = data_end};
	struct flow_counters *fs;
	struct fp_totals *t;
	__u32 zero = 0;
	__u64 now;
	int class;

	__builtin_memset(p, 0, __builtin_offsetof(struct fp_pkt, key));
	t = bpf_map_lookup_elem(&fp_totals, &zero);
	if (!t)
		return;
	t->cnt[FP_CNT_FRAMES]++;
	t->cnt[FP_CNT_BYTES] += frame_len;

	p->len = frame_len;
	class = fp_parse(&c, p);
	if (p->encap) {
		if (p->encap & FP_ENCAP_VXLAN)
			t->cnt[FP_CNT_VXLAN]++;
		if (p->encap & FP_ENCAP_MIRROR)
			account_mirror(p, t, xdp, class);
		else if (class == FP_CLASS_ROCE_CUT)
			t->cnt[FP_CNT_ROCE_CUT]++;
	}
	if (class == FP_CLASS_MALFORMED) {
		t->cnt[FP_CNT_MALFORMED]++;
		return;
	}
	if (class != FP_CLASS_ROCE) {
		t->cnt[FP_CNT_OTHER]++;
		return;
	}
	t->cnt[FP_CNT_ROCE]++;
	if (p->opcode == FP_OPCODE_CNP)
		t->cnt[FP_CNT_CNP]++;

	now = replay_mode ? replay_ts : live_clock();
	p->key.ifindex = ifindex;
	p->key.dir = replay_egress ? FP_DIR_EGRESS : dir;
#ifdef FP_BENCH_NEW_FLOW
	/*
	 * Benchmark build only (bench/, BENCHMARKS.md): this CPU's frame count
	 * goes into the destination QP, so every frame is a new flow and the
	 * insert path runs on every BPF_PROG_TEST_RUN repeat.
	 */
	p->key.dest_qp ^= (__u32)t->cnt[FP_CNT_FRAMES];
#endif
	fs = account_flow(p, t, now);
	if (sample_per_flow && fs)
		take_sample(ctx, xdp, p, fs, t, frame_len, now);
}

#endif /* __FP_CORE_H */
