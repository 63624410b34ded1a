/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shard.h - which worker runs a recorded frame: a software RSS.
 *
 * As a NIC's receive-side scaling picks a queue from the outer addresses
 * and ports, this picks a replay worker (probe/runpool.h), so that every
 * frame of a flow runs on the same worker, in order. It reads only the
 * outer headers (source/udp_payload.c) and decides nothing else: no count
 * or key comes from it; RoCE is parsed by the BPF program only. VXLAN
 * spreads, because RFC 7348 puts the inner flow's entropy in the outer
 * source port; an ERSPAN or GRE mirror spreads by switch (outer address
 * pair), each session's copies staying in order on one worker.
 */
#ifndef __FP_SHARD_H
#define __FP_SHARD_H

#include <stddef.h>
#include <linux/types.h>

#include "probe/runpool.h"

/* The frame's shard: a hash of its outer IP addresses and UDP ports; 0 if not IP. */
__u32 frame_shard(int dlt, const __u8 *frame, size_t caplen);

/*
 * runpool_submit() of an Ethernet frame to the worker of its shard (the
 * hash is taken only when the pool has more than one worker).
 */
int shard_submit(struct runpool *rp, const __u8 *frame, __u32 len, __u32 wire_len, __u64 ts_ns,
		 __u32 path_id, __u64 tag);

#endif /* __FP_SHARD_H */
