// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * walk.bpf.c - the floor of any read of the flow table: a BPF iterator over
 * fp_flows4 (bench/userspace.c attaches it to the probe's map) that copies
 * out only the flows seen after `since`. With since past every flow it
 * copies nothing, and what is left is the kernel's walk of the buckets and
 * entries: what a "changed flows only" refresh would cost at the least.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "fabprobe.h"

__u64 since;

SEC("iter/bpf_map_elem")
int walk_flows4(struct bpf_iter__bpf_map_elem *ctx)
{
	struct flow_key4 *key = ctx->key;
	struct flow_counters *c = ctx->value;

	if (!key || !c || c->last_seen_ns <= since)
		return 0;
	bpf_seq_write(ctx->meta->seq, key, sizeof(*key));
	bpf_seq_write(ctx->meta->seq, c, sizeof(*c));
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
