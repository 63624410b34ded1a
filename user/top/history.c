// SPDX-License-Identifier: GPL-2.0
/*
 * history.c - which uplinks each flow took over time, for the detail
 * view: the last PATH_SEGS stretches per flow, kept a while after the
 * flow goes quiet. The alerts' history is core/alert_log's.
 */
#include <stdlib.h>
#include <string.h>

#include "top/ui.h"
#include "util/buf.h"

#define PATH_KEEP_GENS 120 /* refreshes a silent flow's path history survives */

static __u32 *slot_of(struct path_history *h, const struct flow_key *k)
{
	return kindex_slot(&h->index, k, sizeof(*k), h->ph, sizeof(*h->ph));
}

static int reindex(struct path_history *h, size_t want)
{
	int err = kindex_reset(&h->index, want);

	if (err)
		return err;
	for (size_t i = 0; i < h->n; i++)
		*slot_of(h, &h->ph[i].key) = i + 1;
	return 0;
}

/* Forget flows that left the uplinks long ago; amortised over the inserts. */
static int compact(struct path_history *h, size_t live_flows, __u64 gen)
{
	size_t keep = 0, limit = 2 * (live_flows > 1024 ? live_flows : 1024);
	__u64 horizon = gen > PATH_KEEP_GENS ? gen - PATH_KEEP_GENS : 0;

	if (h->n <= limit)
		return 0;
	for (size_t i = 0; i < h->n; i++)
		if (h->ph[i].gen >= horizon)
			h->ph[keep++] = h->ph[i];
	if (keep > limit) {
		keep = 0;
		for (size_t i = 0; i < h->n; i++)
			if (h->ph[i].gen == gen)
				h->ph[keep++] = h->ph[i];
	}
	h->n = keep;
	return reindex(h, h->n + 64);
}

/* Note refresh gen of analysis a, which covers from_s to now_s. */
int history_note(struct path_history *h, const struct analysis *a, __u64 gen, double from_s,
		 double now_s)
{
	int err;

	for (size_t i = 0; i < a->n_flows; i++) {
		const struct flow_view *v = &a->flows[i];
		struct flow_key id;
		struct path_hist *p;
		__u32 *slot;

		/* A record that carried nothing this interval is an old path's leftover. */
		if (v->path < 0 || !v->d.packets)
			continue;
		if ((h->n + 1) * 2 > h->index.size) {
			err = reindex(h, (h->n + 1) * 2);
			if (err)
				return err;
		}
		id = flow_identity(&v->r->key);
		slot = slot_of(h, &id);
		if (!*slot) {
			err = buf_grow((void **)&h->ph, &h->cap, h->n + 1, sizeof(*h->ph));
			if (err)
				return err;
			p = &h->ph[h->n++];
			memset(p, 0, sizeof(*p));
			p->key = id;
			*slot = h->n;
		}
		p = &h->ph[*slot - 1];
		if (p->n && p->seg[p->n - 1].ifindex == flow_point_id(&v->r->key) &&
		    p->gen + 1 >= gen) {
			p->seg[p->n - 1].to_s = now_s;
		} else {
			if (p->n == PATH_SEGS) {
				memmove(p->seg, p->seg + 1, sizeof(p->seg[0]) * (PATH_SEGS - 1));
				p->n--;
			}
			p->seg[p->n].ifindex = flow_point_id(&v->r->key);
			p->seg[p->n].from_s = from_s;
			p->seg[p->n].to_s = now_s;
			p->n++;
		}
		p->gen = gen;
	}
	return compact(h, a->n_flows, gen);
}

const struct path_hist *history_find(struct path_history *h, const struct flow_key *k)
{
	struct flow_key id = flow_identity(k);
	__u32 *slot;

	if (!h->index.size)
		return NULL;
	slot = slot_of(h, &id);
	return *slot ? &h->ph[*slot - 1] : NULL;
}

void history_free(struct path_history *h)
{
	free(h->ph);
	kindex_free(&h->index);
}
