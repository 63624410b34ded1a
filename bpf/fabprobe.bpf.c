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

/*
 * From <linux/pkt_cls.h>, which vmlinux.h does not carry (a macro): the
 * verdict that leaves the packet to whoever comes next. In tcx it is
 * TCX_NEXT, the next program of the chain; in a cls_bpf filter, the next
 * filter; after the last, the packet passes as if nothing had run.
 * TC_ACT_OK would pass it at once, so a program attached after this one
 * (a second fabprobe, another tool's policy) would never see it.
 */
#define TC_ACT_UNSPEC (-1)

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

/*
 * Replay's frame, [ctx->data, ctx->data_end), as fp_xdp runs one, with the
 * clock, path and wire length replay gives. fp_xdp keeps its own copy of
 * these lines: written through this function, its per-packet cost rose 1
 * to 3 ns (abcost, paired), the compiler's register choices around the
 * replay branch.
 */
static __always_inline int xdp_frame(struct xdp_md *ctx, __u32 ifindex, __u32 wire_len, __u64 ts)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 len = data_end - data;
	struct fp_pkt p;

	if (len >= FP_FRAGS_MIN_LINEAR)
		len = bpf_xdp_get_buff_len(ctx);
	if (wire_len > len)
		len = wire_len;
	fp_process(ctx, &p, data, data_end, len, ifindex, FP_DIR_INGRESS, true, ts);
	if (mirror_drop && (p.encap & FP_ENCAP_MIRROR))
		return XDP_DROP;
	return XDP_PASS;
}

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

/*
 * Replay's next frame. Alone: the window is the frame and its struct
 * fp_replay_meta is ahead as XDP metadata, as fp_xdp takes it. In a batch
 * (struct fp_batch_head, fabprobe.h): the window is the frame before (at
 * first, the batch's tail), the next record's struct fp_batch_rec lies
 * just below the window and its frame below that; widen the window down
 * over both, then cut it to the frame alone. Everything is read at the
 * window's edges and nothing lives across the core, which takes all of
 * the stack there is.
 *
 * Returns the frame's record bytes (in a batch) << FP_BATCH_DROP_BITS,
 * plus 1 when its verdict was a drop (a mirror copy, with mirror_drop); 0
 * when the record is not one. Global, so the verifier checks the core
 * once for the program, not once a turn of the batch's loop.
 */
__noinline int fp_replay_frame(struct xdp_md *ctx)
{
	struct fp_replay_meta *m = (void *)(long)ctx->data_meta;
	__u32 prev, cap, path_id, wire_len;
	struct fp_batch_rec *r;
	void *data, *data_end;
	int drop;
	__u64 ts;

	data = (void *)(long)ctx->data;
	if ((void *)(m + 1) <= data) {
		ts = m->ts_ns;
		path_id = m->path_id;
		wire_len = m->wire_len;
	} else {
		prev = ctx->data_end - ctx->data;
		if (bpf_xdp_adjust_head(ctx, -(int)sizeof(*r)))
			return 0;
		data = (void *)(long)ctx->data;
		data_end = (void *)(long)ctx->data_end;
		r = data;
		if ((void *)(r + 1) > data_end)
			return 0;
		cap = r->cap_len;
		ts = r->ts_ns;
		path_id = r->path_id;
		wire_len = r->wire_len;
		if (cap < FP_BATCH_MIN_CAP || cap > FP_BATCH_MAX_CAP)
			return 0;
		if (bpf_xdp_adjust_head(ctx, -(int)cap) ||
		    bpf_xdp_adjust_tail(ctx, -(int)(prev + sizeof(*r))))
			return 0;
	}
	drop = xdp_frame(ctx, path_id, wire_len, ts) != XDP_PASS;
	/* The window is still the frame: its length need not live across the core. */
	return (int)(ctx->data_end - ctx->data + sizeof(*r)) << FP_BATCH_DROP_BITS | drop;
}

/*
 * Replay's entry point, loaded instead of fp_xdp (PROBE_HOOK_REPLAY). A
 * frame with its metadata runs alone, as in fp_xdp. Without metadata the
 * data is a batch, whose frames run in the order they were added:
 * XDP_PASS when every frame passed; XDP_DROP when a mirror copy was
 * dropped (mirror_drop); XDP_ABORTED for a batch that is not what its head
 * says (the kernel cut it short, say), and then its frames from the bad
 * record on are not counted. A batch of no frames passes when the kernel
 * laid all of it out: userspace asks that at load (probe.c).
 */
SEC("xdp.frags")
int fp_replay(struct xdp_md *ctx)
{
	struct fp_replay_meta *m = (void *)(long)ctx->data_meta;
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct fp_batch_head *h = data;
	__u32 frames, len, i;
	__s64 left;
	int r;

	if ((void *)(m + 1) <= data)
		return fp_replay_frame(ctx) & 1 ? XDP_DROP : XDP_PASS;
	if ((void *)(h + 1) > data_end || h->magic != FP_BATCH_MAGIC ||
	    h->len != (__u32)(data_end - data) || h->len < sizeof(*h) + FP_BATCH_TAIL ||
	    h->frames > FP_BATCH_MAX_FRAMES)
		return XDP_ABORTED;
	frames = h->frames;
	len = h->len;
	if (!frames)
		return XDP_PASS;
	/*
	 * The records' bytes, to be counted down by what each frame took; the
	 * drops count up in the low bits. Only ctx, frames and this live
	 * across the calls: the core's frame leaves the loop no stack.
	 */
	left = -((__s64)(len - sizeof(*h) - FP_BATCH_TAIL) << FP_BATCH_DROP_BITS);
	/* The window: the batch's tail. */
	if (bpf_xdp_adjust_head(ctx, (int)(len - FP_BATCH_TAIL)))
		return XDP_ABORTED;
#pragma unroll
	/* Unrolled: a constant index leaves the loop's state in three registers. */
	for (i = 0; i < FP_BATCH_MAX_FRAMES; i++) {
		if (i < frames) {
			r = fp_replay_frame(ctx);
			if (!r)
				return XDP_ABORTED;
			left += r;
		}
	}
	/* Every byte between the head and the tail was a record. */
	if ((__u64)left >> FP_BATCH_DROP_BITS)
		return XDP_ABORTED;
	return left ? XDP_DROP : XDP_PASS;
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
	return TC_ACT_UNSPEC;
}

SEC("tc")
int fp_tc_egress(struct __sk_buff *skb)
{
	fp_skb(skb, FP_DIR_EGRESS);
	return TC_ACT_UNSPEC;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
