// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * fabprobe.bpf.c - thin entry points over the shared core. Every one of
 * them passes the packet on unchanged, whatever the core found; the one
 * exception is opt-in: with mirror_drop, XDP drops mirror copies.
 */
/*
 * No CO-RE: every struct the program reads is a wire format (Ethernet, IP,
 * UDP) or a UAPI context (xdp_md, __sk_buff) the verifier rewrites, whose
 * layout no kernel changes. Without relocations libbpf need not read and
 * parse the kernel's 6 MB BTF at every load (replay's start-up 0.20 ->
 * 0.13 s, BENCHMARKS.md).
 */
#define BPF_NO_PRESERVE_ACCESS_INDEX
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "core.h"

/* From <linux/pkt_cls.h>, which vmlinux.h does not carry (it is a macro). */
#define TC_ACT_OK 0

/*
 * Headers the core must see in the linear part of an skb: the deepest is
 * RoCE in VXLAN in an ERSPAN III copy over IPv6, VLAN tags and all.
 */
#define FP_PULL_LEN 320

/*
 * A multi-buffer frame fills its first buffer (a page, less head- and
 * tailroom) before it uses fragments, so a shorter linear part is the whole
 * frame. Asking bpf_xdp_get_buff_len() only for longer ones saves a helper
 * call, about 9 ns, on every small frame (BENCHMARKS.md).
 */
#define FP_FRAGS_MIN_LINEAR 2048

/* xdp.frags: jumbo frames arrive as multi-buffer; headers sit in the first. */
SEC("xdp.frags")
int fp_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 len = data_end - data, ifindex = ctx->ingress_ifindex;
	struct fp_pkt p;
	__u64 ts = 0;

	if (len >= FP_FRAGS_MIN_LINEAR)
		len = bpf_xdp_get_buff_len(ctx);
	if (replay_mode) {
		struct fp_replay_meta *m = (void *)(long)ctx->data_meta;

		/* A frame run without metadata is still counted, at time 0. */
		if ((void *)(m + 1) <= data) {
			ts = m->ts_ns;
			ifindex = m->path_id;
			if (m->wire_len > len)
				len = m->wire_len;
		}
	}
	fp_process(ctx, &p, data, data_end, len, ifindex, FP_DIR_INGRESS, true, ts);
	/*
	 * --mirror-port-drop, the one exception: the operator says this port
	 * receives nothing but mirror copies. Off, the verifier removes it.
	 */
	if (mirror_drop && (p.encap & FP_ENCAP_MIRROR))
		return XDP_DROP;
	return XDP_PASS;
}

static __always_inline void fp_skb(struct __sk_buff *skb, __u8 dir)
{
	__u32 len = skb->len, ifindex = skb->ifindex;
	__u32 want = len < FP_PULL_LEN ? len : FP_PULL_LEN;
	struct fp_pkt p;
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	__u64 ts = 0;

	/* Replay through tc (the tests): fp_replay_meta in cb[0..3]. */
	if (replay_mode) {
		ts = (__u64)skb->cb[1] << 32 | skb->cb[0];
		ifindex = skb->cb[2];
		if (skb->cb[3] > len)
			len = skb->cb[3];
	}

	/* Non-linear skbs: make the headers readable; the bytes do not change. */
	if (data + want > data_end) {
		bpf_skb_pull_data(skb, want);
		data = (void *)(long)skb->data;
		data_end = (void *)(long)skb->data_end;
	}
	fp_process(skb, &p, data, data_end, len, ifindex, dir, false, ts);
}

/* Loaded with expected attach type BPF_TCX_INGRESS / BPF_TCX_EGRESS. */
SEC("tc")
int fp_tc_ingress(struct __sk_buff *skb)
{
	fp_skb(skb, FP_DIR_INGRESS);
	return TC_ACT_OK;
}

SEC("tc")
int fp_tc_egress(struct __sk_buff *skb)
{
	fp_skb(skb, FP_DIR_EGRESS);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
