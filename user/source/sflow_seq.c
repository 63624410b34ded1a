// SPDX-License-Identifier: GPL-2.0
/* sflow_seq.c - datagram loss per sFlow agent; the rule is in sflow_seq.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source/sflow_seq.h"

int sflow_seq_init(struct sflow_seq_track *t, __u32 max_streams)
{
	__u32 size = 16;

	memset(t, 0, sizeof(*t));
	if (max_streams == 0 || max_streams > (1u << 28))
		return -EINVAL;
	while (size < 2 * max_streams)
		size <<= 1;
	t->slots = calloc(size, sizeof(*t->slots));
	if (!t->slots)
		return -ENOMEM;
	t->size = size;
	t->max_streams = max_streams;
	return 0;
}

void sflow_seq_free(struct sflow_seq_track *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* FNV-1a over the stream key; the table is at most half full. */
static __u32 stream_hash(const struct sflow_addr *agent, __u32 sub_agent_id)
{
	__u32 h = 2166136261u;

	h = (h ^ agent->family) * 16777619u;
	for (int i = 0; i < 16; i++)
		h = (h ^ agent->bytes[i]) * 16777619u;
	for (int i = 0; i < 4; i++)
		h = (h ^ (sub_agent_id >> (8 * i) & 0xFF)) * 16777619u;
	return h;
}

static bool same_stream(const struct sflow_seq_stream *s, const struct sflow_addr *agent,
			__u32 sub_agent_id)
{
	return s->sub_agent_id == sub_agent_id && s->agent.family == agent->family &&
	       !memcmp(s->agent.bytes, agent->bytes, sizeof(agent->bytes));
}

/* The stream's slot, or the empty slot where it would go (linear probing). */
static struct sflow_seq_stream *slot(const struct sflow_seq_track *t,
				     const struct sflow_addr *agent, __u32 sub_agent_id)
{
	__u32 i = stream_hash(agent, sub_agent_id) & (t->size - 1);

	if (!t->slots)
		return NULL;
	/* Never full (size >= 2 * max_streams), so the probe ends. */
	while (t->slots[i].used && !same_stream(&t->slots[i], agent, sub_agent_id))
		i = (i + 1) & (t->size - 1);
	return &t->slots[i];
}

const struct sflow_seq_stream *sflow_seq_find(const struct sflow_seq_track *t,
					      const struct sflow_addr *agent, __u32 sub_agent_id)
{
	const struct sflow_seq_stream *s = slot(t, agent, sub_agent_id);

	return s && s->used ? s : NULL;
}

__u32 sflow_seq_update(struct sflow_seq_track *t, const struct sflow_addr *agent,
		       __u32 sub_agent_id, __u32 sequence)
{
	struct sflow_seq_stream *s = slot(t, agent, sub_agent_id);
	__u32 ahead, lost = 0;

	if (!s) {
		t->untracked++;
		return 0;
	}
	if (!s->used) {
		if (t->streams >= t->max_streams) {
			t->untracked++;
			return 0;
		}
		t->streams++;
		s->used = 1;
		s->agent = *agent;
		s->sub_agent_id = sub_agent_id;
		s->last = sequence;
		s->received = 1;
		return 0;
	}
	s->received++;
	ahead = sequence - s->last; /* serial arithmetic: wraps at 2^32 */
	if (ahead == 0) {
		s->duplicates++;
		t->duplicates++;
	} else if (ahead - 1 <= SFLOW_SEQ_MAX_GAP) {
		lost = ahead - 1;
		s->last = sequence;
	} else if (ahead < 0x80000000u) {
		s->jumps++;
		t->jumps++;
		s->last = sequence;
	} else if (s->last - sequence <= SFLOW_SEQ_WINDOW) {
		s->reordered++;
		t->reordered++;
	} else {
		s->restarts++;
		t->restarts++;
		s->last = sequence;
		lost = sequence >= 1 && sequence <= SFLOW_SEQ_WINDOW ? sequence - 1 : 0;
	}
	s->lost += lost;
	t->lost += lost;
	return lost;
}
