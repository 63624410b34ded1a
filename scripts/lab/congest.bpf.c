// SPDX-License-Identifier: GPL-2.0
/*
 * Lab congestion emulator (never part of the probe): on a spine's egress
 * it CE-marks ECN-capable IPv4 packets while the interface runs above a
 * rate, and randomly drops RoCE request packets so the generator's
 * go-back-N recovery has something to do.
 */
#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "roce_lab.h"

#define NSEC_PER_SEC 1000000000ULL
#define MAX_FRAME    1514
/* Room for the deepest header stack: VXLAN + inner Ethernet/IP/UDP + BTH. */
#define PARSE_LEN   (2 * (ETH_HLEN + 20 + 8) + VXLAN_HDR_LEN + BTH_LEN)
#define IP_ECN_MASK 0x3

const volatile __u64 ce_above_bytes_per_s; /* 0: never mark */
const volatile __u32 drop_permille;

struct rate_bucket {
	struct bpf_spin_lock lock;
	__u64 tokens;
	__u64 last_ns;
};

/* One bucket per interface: the spin lock keeps the refill exact. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rate_bucket);
} congest_rate SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CONGEST_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} congest_stats SEC(".maps");

struct cursor {
	void *pos;
	void *end;
};

static __always_inline void count(__u32 counter, __u64 n)
{
	__u64 *val = bpf_map_lookup_elem(&congest_stats, &counter);

	if (val)
		*val += n;
}

static __always_inline struct iphdr *parse_eth_ipv4(struct cursor *c)
{
	struct ethhdr *eth = c->pos;
	struct iphdr *iph;

	if ((void *)(eth + 1) > c->end || eth->h_proto != bpf_htons(ETH_P_IP))
		return NULL;
	iph = (void *)(eth + 1);
	if ((void *)(iph + 1) > c->end || iph->ihl < 5)
		return NULL;
	if ((void *)iph + iph->ihl * 4 > c->end)
		return NULL;
	c->pos = (void *)iph + iph->ihl * 4;
	return iph;
}

static __always_inline struct udphdr *parse_udp(struct cursor *c, struct iphdr *iph)
{
	struct udphdr *udp = c->pos;

	/* Only first fragments carry the UDP header. */
	if (iph->protocol != IPPROTO_UDP || (iph->frag_off & bpf_htons(0x1fff)))
		return NULL;
	if ((void *)(udp + 1) > c->end)
		return NULL;
	c->pos = udp + 1;
	return udp;
}

/* BTH opcode of a RoCEv2 packet, bare or in VXLAN (RFC 7348); else -1. */
static __always_inline int roce_opcode(struct cursor *c, struct iphdr *outer)
{
	struct udphdr *udp = parse_udp(c, outer);
	struct iphdr *inner;
	__u8 *bth;

	if (!udp)
		return -1;
	if (udp->dest == bpf_htons(VXLAN_UDP_PORT)) {
		c->pos += VXLAN_HDR_LEN;
		inner = parse_eth_ipv4(c);
		if (!inner)
			return -1;
		udp = parse_udp(c, inner);
		if (!udp)
			return -1;
	}
	if (udp->dest != bpf_htons(ROCE_UDP_PORT))
		return -1;
	bth = c->pos;
	if ((void *)(bth + 1) > c->end)
		return -1;
	return *bth;
}

/* RC requests and READ responses carry data; ACKs and CNPs never drop. */
static __always_inline bool should_drop(int opcode)
{
	return drop_permille && opcode >= 0 && opcode < RC_ACK &&
	       bpf_get_prandom_u32() % 1000 < drop_permille;
}

/* Token bucket at the marking threshold; true when it runs dry. */
static __always_inline bool over_rate(__u32 len)
{
	__u64 now = bpf_ktime_get_ns(), delta, burst;
	struct rate_bucket *b;
	__u32 key = 0;
	bool over;

	b = bpf_map_lookup_elem(&congest_rate, &key);
	if (!b)
		return false;
	/* 2 ms of burst, like a shallow switch buffer before ECN kicks in. */
	burst = ce_above_bytes_per_s / 500 + 2 * MAX_FRAME;
	bpf_spin_lock(&b->lock);
	delta = now - b->last_ns;
	if (delta > NSEC_PER_SEC)
		delta = NSEC_PER_SEC;
	b->tokens += delta * ce_above_bytes_per_s / NSEC_PER_SEC;
	if (b->tokens > burst)
		b->tokens = burst;
	b->last_ns = now;
	over = b->tokens < len;
	if (!over)
		b->tokens -= len;
	bpf_spin_unlock(&b->lock);
	return over;
}

/*
 * RFC 3168 section 5: only ECT(0)/ECT(1) may become CE; for VXLAN this
 * is the outer header, which the decapsulating VTEP folds into the inner
 * one (RFC 6040).
 */
static __always_inline bool mark_ce(struct __sk_buff *skb, struct iphdr *iph)
{
	__u8 tos = iph->tos, ecn = tos & IP_ECN_MASK;
	__u16 old_word, new_word;
	int off = ETH_HLEN;

	if (ecn == 0 || ecn == IP_ECN_MASK)
		return false;
	old_word = (__u16)(*(__u8 *)iph) << 8 | tos;
	new_word = old_word | IP_ECN_MASK;
	tos |= IP_ECN_MASK;
	if (bpf_skb_store_bytes(skb, off + offsetof(struct iphdr, tos), &tos, 1, 0))
		return false;
	return !bpf_l3_csum_replace(skb, off + offsetof(struct iphdr, check), bpf_htons(old_word),
				    bpf_htons(new_word), 2);
}

SEC("tc")
int congest(struct __sk_buff *skb)
{
	struct cursor c;
	struct iphdr *iph;
	int opcode;

	/* Headers of locally built or encapsulated frames may be paged. */
	bpf_skb_pull_data(skb, PARSE_LEN);
	c.pos = (void *)(long)skb->data;
	c.end = (void *)(long)skb->data_end;
	count(CONGEST_PACKETS, 1);
	iph = parse_eth_ipv4(&c);
	if (!iph)
		return TC_ACT_OK;
	opcode = roce_opcode(&c, iph);
	if (should_drop(opcode)) {
		count(CONGEST_DROPPED, 1);
		return TC_ACT_SHOT;
	}
	count(CONGEST_BYTES, skb->len);
	if (!ce_above_bytes_per_s || !over_rate(skb->len))
		return TC_ACT_OK;
	count(CONGEST_OVER_RATE, 1);
	if (mark_ce(skb, iph))
		count(CONGEST_MARKED, 1);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
