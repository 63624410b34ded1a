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

/* The frame's shard: a hash of its outer IP addresses and UDP ports; 0 if not IP. */
__u32 frame_shard(int dlt, const __u8 *frame, size_t caplen);

#endif /* __FP_SHARD_H */
