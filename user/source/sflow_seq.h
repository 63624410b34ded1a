/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sflow_seq.h - lost sFlow datagrams per agent, from datagram sequence
 * numbers (sFlow v5: one sequence per agent address and sub-agent id).
 *
 * The rule, in 32-bit serial arithmetic (RFC 1982), d = seq - last:
 *   first datagram of a stream  -> lost 0, remembered
 *   d == 0                      -> duplicate, lost 0
 *   0 < d <= MAX_GAP + 1        -> lost d - 1 (the gap), seq remembered
 *   MAX_GAP + 1 < d < 2^31      -> jump: lost 0, seq remembered. No loss at
 *                                  sFlow datagram rates makes a gap that
 *                                  wide between two datagrams received
 *                                  (below); it is a restart at a random
 *                                  sequence, a reset or a corrupted number,
 *                                  counted as such (jumps), never as loss.
 *   behind by at most WINDOW    -> reordered: lost 0, last kept. The gap it
 *                                  fell into was already counted as lost;
 *                                  lost never goes down (it feeds _total
 *                                  counters), reordered says by how much
 *                                  it overstates.
 *   behind by more than WINDOW  -> restart (the agent rebooted or reset):
 *                                  seq remembered; lost = seq - 1 when seq
 *                                  <= WINDOW (a new run starts at 1, so the
 *                                  first seq - 1 of it were missed), else 0
 *                                  (where the run restarted is unknown).
 * Limits: an agent that restarts within WINDOW datagrams of its previous
 * start looks like reordering until its sequence passes the old one; a
 * restart that lands at most MAX_GAP ahead of the old sequence is taken for
 * loss. MAX_GAP is 2^24: at 10,000 datagrams/s, more than any agent sends,
 * 28 minutes of every datagram lost; a random 32-bit sequence lands that
 * close ahead once in 256.
 *
 * Streams live in a fixed table sized at init: no allocation per datagram.
 * A stream that finds the table full is not tracked (lost 0, counted).
 */
#ifndef __FP_SFLOW_SEQ_H
#define __FP_SFLOW_SEQ_H

#include <linux/types.h>

#include "source/sflow_decode.h"

#define SFLOW_SEQ_WINDOW  64
#define SFLOW_SEQ_MAX_GAP (1u << 24)

struct sflow_seq_stream {
	struct sflow_addr agent;
	__u8 used;
	__u32 sub_agent_id;
	__u32 last;
	__u64 received, lost, duplicates, reordered, restarts, jumps;
};

struct sflow_seq_track {
	struct sflow_seq_stream *slots;
	__u32 size; /* power of two, at least twice max_streams */
	__u32 max_streams;
	__u32 streams;
	/* Totals over all streams. */
	__u64 lost, duplicates, reordered, restarts, jumps, untracked;
};

/* Room for max_streams (agent, sub-agent) pairs. 0 or -ENOMEM. */
int sflow_seq_init(struct sflow_seq_track *t, __u32 max_streams);
void sflow_seq_free(struct sflow_seq_track *t);

/* Account one datagram; returns how many datagrams its sequence says were lost. */
__u32 sflow_seq_update(struct sflow_seq_track *t, const struct sflow_addr *agent,
		       __u32 sub_agent_id, __u32 sequence);

/* The stream's state, or NULL if it was never seen (or not tracked). */
const struct sflow_seq_stream *sflow_seq_find(const struct sflow_seq_track *t,
					      const struct sflow_addr *agent, __u32 sub_agent_id);

#endif /* __FP_SFLOW_SEQ_H */
