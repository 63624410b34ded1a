/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * core.h - the one parse-and-account core behind every entry point:
 * parse the frame, classify it, account it. It never changes the packet;
 * the entry points return XDP_PASS / TC_ACT_OK whatever happens here.
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
/* fp_psn's size minus one (a power of two minus one). */
const volatile __u32 psn_slot_mask = 2 * FP_FLOWS_DEFAULT - 1;
/* Sampling: packets per flow (per CPU) and per CPU in all; 0 turns it off. */
const volatile __u8 sample_per_flow = 0;
const volatile __u32 sample_max_per_cpu = 0;

/*
 * Replay: userspace sets the capture's clock, path and the frame's length
 * on the wire (a capture may hold fewer bytes) before each frame.
 */
__u64 replay_now_ns = 0;
__u32 replay_ifindex = 0;
__u32 replay_wire_len = 0;

static const struct flow_counters zero_counters;

enum fp_class {
	FP_CLASS_ROCE,
	FP_CLASS_OTHER,
	FP_CLASS_MALFORMED,
};

/* The UDP header is parsed; classify what follows on the RoCE port. */
static __always_inline int classify_roce(struct cursor *c, struct fp_pkt *p, __u32 payload_len,
					 bool bad_len)
{
	if (bad_len || parse_bth(c, payload_len, p) < 0)
		return FP_CLASS_MALFORMED;
	return FP_CLASS_ROCE;
}

/*
 * Walk Ethernet, IP, UDP and, in VXLAN, the inner Ethernet, IP and UDP,
 * down to the BTH. Until a RoCE or VXLAN port is seen a bad header only
 * means "not ours"; past it, the frame is malformed.
 */
static __always_inline int fp_parse(struct cursor *c, struct fp_pkt *p)
{
	struct fp_l3 l3 = {};
	__u32 payload_len;
	bool bad_len;
	__u16 sport;
	int proto;

	proto = parse_eth(c, p, true);
	if (proto >= 0)
		proto = parse_ip(c, proto, &l3);
	if (proto != FP_IPPROTO_UDP)
		return FP_CLASS_OTHER;
	proto = parse_udp(c, p->len, &sport, &payload_len, &bad_len);
	if (proto < 0 || (proto != roce_port && proto != vxlan_port))
		return FP_CLASS_OTHER;

	/* Ours: now the key is worth building. */
	__builtin_memset(&p->key, 0, sizeof(p->key));
	copy_addrs(p->key.src, p->key.dst, &l3);
	p->key.flags = l3.v6 ? FP_FLOW_IPV6 : 0;
	p->key.sport = sport;
	p->key.dport = proto;
	p->ecn = l3.tclass & 3;
	p->dscp = l3.tclass >> 2;
	if (proto == roce_port)
		return classify_roce(c, p, payload_len, bad_len);

	if (bad_len || parse_vxlan(c, &p->key.vni) < 0)
		return FP_CLASS_MALFORMED;
	p->vxlan = 1;
	p->key.flags |= FP_FLOW_VXLAN;

	proto = parse_eth(c, p, false);
	if (proto >= 0)
		proto = parse_ip(c, proto, &l3);
	if (proto == FP_MALFORMED)
		return FP_CLASS_MALFORMED;
	if (proto != FP_IPPROTO_UDP)
		return FP_CLASS_OTHER;
	copy_addrs(p->key.inner_src, p->key.inner_dst, &l3);
	if (l3.v6)
		p->key.flags |= FP_FLOW_INNER_IPV6;
	p->inner_ecn = l3.tclass & 3;

	proto = parse_udp(c, p->len, &p->key.inner_sport, &payload_len, &bad_len);
	if (proto < 0)
		return FP_CLASS_MALFORMED;
	if (proto != roce_port)
		return FP_CLASS_OTHER;
	p->key.inner_dport = proto;
	return classify_roce(c, p, payload_len, bad_len);
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

/*
 * Retransmit: a request PSN not ahead of the highest seen. Gap: a request
 * PSN ahead of the highest the previous request allowed (one more, or the
 * PSNs a READ request reserves for its responses).
 */
static __always_inline void track_psn(struct fp_pkt *p, struct flow_counters *fs,
				      struct fp_totals *t)
{
	__u64 tag = fp_key_hash(&p->key);
	__u32 slot = fp_psn_slot(tag, psn_slot_mask);
	struct psn_track *pt;
	__u32 reserve = 1;

	pt = bpf_map_lookup_elem(&fp_psn, &slot);
	if (!pt)
		return;
	if (pt->tag != tag) {
		if (pt->tag)
			t->cnt[FP_CNT_PSN_TAKEOVER]++;
		pt->tag = tag;
		pt->valid = 0;
	}
	if ((p->opcode & FP_OP_MASK) == FP_OP_READ_REQ && p->read_len > 1)
		reserve = (p->read_len + (1U << FP_MIN_PMTU_SHIFT) - 1) >> FP_MIN_PMTU_SHIFT;

	if (pt->valid && !psn_after(p->psn, pt->max_psn)) {
		fs->retransmits++;
	} else {
		if (pt->valid && psn_after(p->psn, pt->next_psn_max))
			fs->psn_gaps++;
		pt->max_psn = p->psn;
		pt->next_psn_max = (p->psn + reserve) & FP_PSN_MASK;
		pt->valid = 1;
	}
	pt->last_psn = p->psn;
}

static __always_inline struct flow_counters *account_flow(struct fp_pkt *p, struct fp_totals *t,
							  __u64 now)
{
	struct flow_counters *fs;

	fs = bpf_map_lookup_elem(&fp_flows, &p->key);
	if (!fs) {
		/* Another CPU may insert the same key first: EEXIST is fine. */
		if (!bpf_map_update_elem(&fp_flows, &p->key, &zero_counters, BPF_NOEXIST))
			t->cnt[FP_CNT_FLOW_NEW]++;
		fs = bpf_map_lookup_elem(&fp_flows, &p->key);
		if (!fs) {
			t->cnt[FP_CNT_FLOW_INSERT_FAIL]++;
			return NULL;
		}
	}

	/* Time 0 is a valid capture timestamp: the first packet, not the clock, says unset. */
	if (!fs->packets)
		fs->first_seen_ns = now;
	fs->packets++;
	fs->bytes += p->len;
	fs->ecn[p->ecn & 3]++;
	if (p->vxlan)
		fs->inner_ecn[p->inner_ecn & 3]++;
	fs->dscp = p->dscp;
	fs->dscp_mask |= 1ULL << (p->dscp & 63);
	fs->vlan = p->vlan;
	fs->pcp = p->pcp;
	fs->vlan_tagged = p->vlan_tagged;
	fs->opcodes[p->opcode >> 6] |= 1ULL << (p->opcode & 63);
	fs->last_opcode = p->opcode;
	if (p->bth_flags & FP_BTH_FECN)
		fs->fecn++;
	if (p->bth_flags & FP_BTH_BECN)
		fs->becn++;
	fs->last_seen_ns = now;

	if (p->opcode == FP_OPCODE_CNP) {
		fs->cnp++;
	} else if (p->has_aeth && (p->opcode & FP_OP_MASK) == FP_OP_ACK) {
		switch (p->syndrome & FP_AETH_CLASS_MASK) {
		case FP_AETH_CLASS_ACK:
			fs->acks++;
			break;
		case FP_AETH_CLASS_RNR:
			fs->rnr_naks++;
			break;
		case FP_AETH_CLASS_NAK:
			fs->naks++;
			fs->last_nak_code = p->syndrome & FP_AETH_CODE_MASK;
			break;
		}
	} else if (is_request(p->opcode)) {
		track_psn(p, fs, t);
	}
	return fs;
}

/* Copy the head of the frame to the sample ring: bounded, and only while sampling. */
static __always_inline void take_sample(struct fp_pkt *p, struct flow_counters *fs,
					struct fp_totals *t, void *data, void *data_end, __u64 now)
{
	struct fp_sample *s;
	__u32 i;

	if (fs->samples >= sample_per_flow || t->cnt[FP_CNT_SAMPLES] >= sample_max_per_cpu)
		return;
	s = bpf_ringbuf_reserve(&fp_samples, sizeof(*s), 0);
	if (!s) {
		t->cnt[FP_CNT_SAMPLE_DROPS]++;
		return;
	}
	fs->samples++;
	t->cnt[FP_CNT_SAMPLES]++;
	s->key = p->key;
	s->ts_ns = now;
	s->wire_len = p->len;
	for (i = 0; i < FP_SAMPLE_SNAP; i++) {
		if (data + i + 1 > data_end)
			break;
		s->data[i] = *(__u8 *)(data + i);
	}
	s->cap_len = i;
	bpf_ringbuf_submit(s, 0);
}

/* Parse, classify, account. data/data_end cover the linear part of the frame. */
static __always_inline void fp_process(void *data, void *data_end, __u32 frame_len, __u32 ifindex,
				       __u8 dir)
{
	struct cursor c = {.pos = data, .start = data, .end = data_end};
	struct flow_counters *fs;
	struct fp_pkt p;
	struct fp_totals *t;
	__u32 zero = 0;
	__u64 now;
	int class;

	if (replay_mode && replay_wire_len > frame_len)
		frame_len = replay_wire_len;
	t = bpf_map_lookup_elem(&fp_totals, &zero);
	if (!t)
		return;
	t->cnt[FP_CNT_FRAMES]++;
	t->cnt[FP_CNT_BYTES] += frame_len;

	__builtin_memset(&p, 0, __builtin_offsetof(struct fp_pkt, key));
	p.len = frame_len;
	class = fp_parse(&c, &p);
	if (p.vxlan)
		t->cnt[FP_CNT_VXLAN]++;
	if (class == FP_CLASS_OTHER) {
		t->cnt[FP_CNT_OTHER]++;
		return;
	}
	if (class == FP_CLASS_MALFORMED) {
		t->cnt[FP_CNT_MALFORMED]++;
		return;
	}
	t->cnt[FP_CNT_ROCE]++;
	if (p.opcode == FP_OPCODE_CNP)
		t->cnt[FP_CNT_CNP]++;

	if (replay_mode) {
		now = replay_now_ns;
		ifindex = replay_ifindex;
	} else {
		now = bpf_ktime_get_ns();
	}
	p.key.ifindex = ifindex;
	p.key.dir = dir;
#ifdef FP_BENCH_NEW_FLOW
	/*
	 * Benchmark build only (bench/, BENCHMARKS.md): this CPU's frame count
	 * goes into the destination QP, so every frame is a new flow and the
	 * insert path runs on every BPF_PROG_TEST_RUN repeat.
	 */
	p.key.dest_qp ^= (__u32)t->cnt[FP_CNT_FRAMES];
#endif
	fs = account_flow(&p, t, now);
	if (sample_per_flow && fs)
		take_sample(&p, fs, t, data, data_end, now);
}

#endif /* __FP_CORE_H */
