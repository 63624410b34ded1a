// SPDX-License-Identifier: GPL-2.0
/*
 * shard.c - a software RSS over a recorded frame's outer headers: which
 * replay worker runs it (see shard.h). Not symmetric: the two directions
 * of a queue pair are two flows, and may run on two workers.
 */
#include <pcap/dlt.h>

#include "source/shard.h"
#include "source/udp_payload.h"

/* FNV-1a, then a murmur3 finaliser so that the low bits (the worker) mix. */
static __u32 mix(__u32 h, const __u8 *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

__u32 frame_shard(int dlt, const __u8 *frame, size_t caplen)
{
	struct udp_datagram u;
	enum udp_payload_result r = udp_payload(dlt, frame, caplen, &u);
	size_t alen = u.family == 6 ? 16 : 4;
	__u32 h = 2166136261u;

	if (!u.family)
		return 0;
	h = mix(h, u.src, alen);
	h = mix(h, u.dst, alen);
	/* Every fragment of a datagram goes where its first went: addresses only. */
	if (r == UDP_PAYLOAD_OK && !u.fragmented) {
		__u8 ports[4] = {u.sport >> 8, u.sport & 0xff, u.dport >> 8, u.dport & 0xff};

		h = mix(h, ports, sizeof(ports));
	}
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

int shard_submit(struct runpool *rp, const __u8 *frame, __u32 len, __u32 wire_len, __u64 ts_ns,
		 __u32 path_id, __u64 tag)
{
	__u32 shard = runpool_threads(rp) > 1 ? frame_shard(DLT_EN10MB, frame, len) : 0;

	return runpool_submit(rp, shard, frame, len, wire_len, ts_ns, path_id, tag);
}
