// SPDX-License-Identifier: GPL-2.0
/*
 * flow_export.c - per-flow delta bookkeeping: baselines by flow key,
 * pending counts, and the idle, active and forced expiries of flow records
 * (flow_export.h). Each observe compacts the flows (where some are done
 * with), makes the index again (where that moved flows, or it is short of
 * room) and walks the snapshot once; emit walks the flows from where it
 * stopped.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis.h"
#include "core/counters.h"
#include "core/flow_export.h"

struct fx_flow {
	/*
	 * The flow as of the last snapshot that had it: its key (at offset
	 * 0, for kindex), cumulative counters, samples and the DSCPs of its
	 * CNPs apart (the classes of its records).
	 */
	struct flow_record last;
	struct flow_export_counts pending; /* counted since the flow's previous record */
	__u64 open_ns;			   /* first packet of the pending counts (estimated) */
	__u64 seen_ns;			   /* taken_ns of the last snapshot that had it */
	__u64 observe;			   /* ... and its number */
	__u64 grew;			   /* the number of the last one with new packets */
	__u8 due;			   /* enum flow_end, 0 when no record is due */
	__u8 due_records;		   /* ... and the records it makes then (by class) */
	bool gone;			   /* left the flow table */
	bool done;			   /* gone and recorded: dropped at the next observe */
};

void flow_export_init(struct flow_export *fx, __u64 active_ns, __u64 idle_ns, size_t max_waiting)
{
	memset(fx, 0, sizeof(*fx));
	fx->active_ns = active_ns;
	fx->idle_ns = idle_ns;
	fx->max_waiting = max_waiting;
}

/* The record's counts of cumulative counters (outer ECN: Not-ECT, ECT(1), ECT(0), CE). */
static void counts_of(const struct flow_counters *c, __u64 samples, struct flow_export_counts *out)
{
	out->v[FX_SAMPLES] = samples;
	out->v[FX_PACKETS] = c->packets;
	out->v[FX_BYTES] = c->bytes;
	out->v[FX_NOT_ECT] = c->ecn[0];
	out->v[FX_ECT1] = c->ecn[1];
	out->v[FX_ECT0] = c->ecn[2];
	out->v[FX_CE] = c->ecn[3];
	out->v[FX_CNP] = c->cnp;
	out->v[FX_ACKS] = c->acks;
	out->v[FX_NAKS] = c->naks;
	out->v[FX_RNR_NAKS] = c->rnr_naks;
	out->v[FX_RETRANSMITS] = c->retransmits;
	out->v[FX_PSN_GAPS] = c->psn_gaps;
}

static bool counts_zero(const struct flow_export_counts *c)
{
	for (int i = 0; i < FX_COUNT_MAX; i++)
		if (c->v[i])
			return false;
	return true;
}

/*
 * Of a flow's samples, those behind part of its packets, in proportion:
 * sFlow samples one packet at a time, so each part of two had one at
 * least.
 */
static __u64 samples_share(__u64 samples, __u64 part, __u64 packets)
{
	__u64 share;

	if (!samples || !packets)
		return 0;
	share = (__u64)(((unsigned __int128)samples * part + packets / 2) / packets);
	if (share < 1)
		share = 1;
	return min_u64(share, samples - 1);
}

/*
 * A flow's pending counts by traffic class: part[0] in class dscp[0] and,
 * when its CNPs rode in another class than its other packets, part[1],
 * the CNPs, in dscp[1] (flow_delta_by_class(): the CNPs' bytes are their
 * frames' size, CE marks the other packets' first, retransmits and PSN
 * gaps the other packets'). Returns the parts, 1 or 2; they add up to the
 * pending counts in every count.
 */
static int by_class(const struct fx_flow *f, __u8 dscp[2], struct flow_export_counts part[2])
{
	const struct flow_export_counts *p = &f->pending;
	struct flow_export_counts *cnp = &part[1];
	struct flow_delta d = {
	    .packets = p->v[FX_PACKETS],
	    .bytes = p->v[FX_BYTES],
	    .ce = p->v[FX_CE],
	    .cnp = p->v[FX_CNP],
	    .rtx = p->v[FX_RETRANSMITS],
	    .naks = p->v[FX_NAKS],
	    .rnr_naks = p->v[FX_RNR_NAKS],
	    .gaps = p->v[FX_PSN_GAPS],
	    .not_ect = p->v[FX_NOT_ECT],
	    .acks = p->v[FX_ACKS],
	};
	struct flow_delta by[2];
	__u64 rest;

	part[0] = *p;
	if (flow_delta_by_class(&f->last, &d, dscp, by) == 1)
		return 1;
	memset(cnp, 0, sizeof(*cnp));
	cnp->v[FX_PACKETS] = by[1].packets;
	cnp->v[FX_BYTES] = by[1].bytes;
	cnp->v[FX_CE] = by[1].ce;
	cnp->v[FX_CNP] = by[1].cnp;
	cnp->v[FX_RETRANSMITS] = by[1].rtx;
	cnp->v[FX_NAKS] = by[1].naks;
	cnp->v[FX_RNR_NAKS] = by[1].rnr_naks;
	cnp->v[FX_PSN_GAPS] = by[1].gaps;
	cnp->v[FX_NOT_ECT] = by[1].not_ect;
	cnp->v[FX_ACKS] = by[1].acks;
	/*
	 * CNPs are sent Not-ECT; any not counted so were ECT: each record's
	 * four ECN counts still add up to its packets.
	 */
	rest = by[1].packets - min_u64(by[1].not_ect + by[1].ce, by[1].packets);
	cnp->v[FX_ECT0] = min_u64(rest, p->v[FX_ECT0]);
	cnp->v[FX_ECT1] = min_u64(rest - cnp->v[FX_ECT0], p->v[FX_ECT1]);
	cnp->v[FX_SAMPLES] = samples_share(p->v[FX_SAMPLES], by[1].packets, d.packets);
	for (int i = 0; i < FX_COUNT_MAX; i++)
		part[0].v[i] -= cnp->v[i];
	return 2;
}

/* The records a flow's pending counts make: one, or two by class. */
static int records_of(const struct fx_flow *f)
{
	struct flow_export_counts part[2];
	__u8 dscp[2];

	return by_class(f, dscp, part);
}

static void set_due(struct flow_export *fx, struct fx_flow *f, enum flow_end reason)
{
	if (!f->due) {
		f->due_records = records_of(f);
		fx->st.due += f->due_records;
	}
	f->due = reason;
}

/*
 * Drop the flows that left the table and have been recorded; past
 * max_waiting flows gone and still waiting, the oldest are given up
 * (counted). The cursor keeps pointing at the same flow, or the next.
 */
static void compact(struct flow_export *fx, size_t max_waiting)
{
	size_t waiting = 0, over = 0, j = 0, cursor = 0;

	for (size_t i = 0; i < fx->n_flows; i++)
		waiting += fx->flows[i].gone && !fx->flows[i].done;
	if (waiting > max_waiting)
		over = waiting - max_waiting;
	if (!over && !fx->n_done)
		return; /* every flow stays where it is, and so does the index */
	fx->index_ok = false;
	for (size_t i = 0; i < fx->n_flows; i++) {
		struct fx_flow *f = &fx->flows[i];

		if (i == fx->cursor)
			cursor = j;
		if (f->gone && !f->done && over) {
			over--;
			fx->st.dropped += records_of(f);
			fx->st.dropped_packets += f->pending.v[FX_PACKETS];
			if (f->due)
				fx->st.due -= f->due_records;
			f->due = 0;
			f->done = true;
		}
		if (f->done)
			continue;
		if (j != i)
			fx->flows[j] = *f;
		j++;
	}
	fx->n_flows = j;
	fx->n_done = 0;
	fx->cursor = cursor < j ? cursor : 0;
}

static int reindex(struct flow_export *fx, size_t extra)
{
	size_t want = fx->n_flows + extra;
	int err;

	if (want > fx->cap_flows) {
		size_t cap = fx->cap_flows ? fx->cap_flows : 1024;
		struct fx_flow *p;

		while (cap < want)
			cap *= 2;
		p = realloc(fx->flows, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		fx->flows = p;
		fx->cap_flows = cap;
	}
	/* Flows that stayed where they were keep their entries; new ones are added. */
	if (fx->index_ok && want <= fx->index.size / 2)
		return 0;
	fx->index_ok = false;
	err = kindex_reset(&fx->index, want);
	if (err)
		return err;
	/* A chunk of keys hashed and their slots fetched ahead: at a million, each is a miss. */
	for (size_t i = 0; i < fx->n_flows; i += KINDEX_AHEAD) {
		size_t m = kindex_chunk(i, fx->n_flows);
		__u64 h[KINDEX_AHEAD];

		for (size_t j = 0; j < m; j++) {
			h[j] = kindex_hash(&fx->flows[i + j].last.key, sizeof(struct flow_key), 0);
			kindex_prefetch(&fx->index, h[j]);
		}
		for (size_t j = 0; j < m; j++)
			*kindex_slot_hashed(&fx->index, h[j], &fx->flows[i + j].last.key,
					    sizeof(struct flow_key), fx->flows,
					    sizeof(*fx->flows)) = i + j + 1;
	}
	fx->index_ok = true;
	return 0;
}

/*
 * One flow in a new snapshot: what it did since the previous one goes into
 * its pending counts. A flow whose first packet time moved on, or whose
 * packets went down, was evicted and inserted again in between: the new
 * incarnation counts from zero (what the old one did after the previous
 * snapshot was never seen by any snapshot). A first time that moved back
 * is the same flow: a replayed capture's time stepped back (bpf/core.h).
 */
static void update(struct flow_export *fx, struct fx_flow *f, const struct flow_record *r,
		   bool fresh, __u64 now_ns)
{
	const struct flow_counters *c = &r->c;
	struct flow_export_counts cur, base = {};
	bool was_zero = counts_zero(&f->pending), grew = false;
	__u64 dscps = f->last.c.dscp_mask, cnp_dscps = f->last.cnp_dscp_mask;

	if (!fresh &&
	    (c->first_seen_ns > f->last.c.first_seen_ns || c->packets < f->last.c.packets)) {
		fresh = true;
		fx->st.incarnations++;
	}
	counts_of(c, r->samples, &cur);
	if (!fresh)
		counts_of(&f->last.c, f->last.samples, &base);
	for (int i = 0; i < FX_COUNT_MAX; i++) {
		/* Counters never go down within an incarnation; a race is clamped, not wrapped. */
		__u64 d = cur.v[i] > base.v[i] ? cur.v[i] - base.v[i] : 0;

		f->pending.v[i] += d;
		grew |= d != 0;
	}
	if (grew && was_zero) {
		/*
		 * The pending record starts with the first packet after the
		 * previous snapshot; the probe keeps no time of it, so the
		 * snapshot's time stands in (within the flow's own span).
		 */
		__u64 open = fresh ? c->first_seen_ns : f->seen_ns;

		if (open < c->first_seen_ns)
			open = c->first_seen_ns;
		if (open > c->last_seen_ns)
			open = c->last_seen_ns;
		f->open_ns = open;
	}
	if (grew)
		f->grew = fx->observes;
	f->last = *r;
	/*
	 * The classes of what is pending, which may be an earlier
	 * incarnation's too (evicted and back): a new one that sent no CNP
	 * yet must not file the old one's CNPs with its ACKs.
	 */
	if (!was_zero) {
		f->last.c.dscp_mask |= dscps;
		f->last.cnp_dscp_mask |= cnp_dscps;
	}
	f->seen_ns = now_ns;
	f->observe = fx->observes;
	f->gone = false;
	/* A record already due takes what came since: it may now be two, or one. */
	if (f->due) {
		int n = records_of(f);

		fx->st.due = fx->st.due - f->due_records + n;
		f->due_records = n;
	}
}

/*
 * Which expiry, if any, makes a present flow's pending record due at now_ns.
 * The active timeout ends a record of a flow still sending; one that had
 * no packet since the previous snapshot has stopped, as far as the probe
 * can tell, and waits for its idle timeout instead, so that a flow's last
 * record says how it ended (its start is only known to a snapshot's
 * precision, which would fire the active timer early).
 */
static void expire(struct flow_export *fx, struct fx_flow *f, __u64 now_ns)
{
	if (counts_zero(&f->pending) || f->due == FLOW_END_IDLE || f->due == FLOW_END_FORCED)
		return;
	if ((__s64)(now_ns - f->last.c.last_seen_ns) >= (__s64)fx->idle_ns)
		set_due(fx, f, FLOW_END_IDLE);
	else if (f->grew == fx->observes && (__s64)(now_ns - f->open_ns) >= (__s64)fx->active_ns)
		set_due(fx, f, FLOW_END_ACTIVE);
}

int flow_export_observe(struct flow_export *fx, const struct snapshot *s)
{
	size_t max_waiting = fx->max_waiting ? fx->max_waiting : s->flow_capacity;
	__u64 now = s->taken_ns;
	int err;

	compact(fx, max_waiting ? max_waiting : 1);
	err = reindex(fx, s->n_flows);
	if (err)
		return err;
	fx->observes++;
	for (size_t i = 0; i < s->n_flows; i += KINDEX_AHEAD) {
		size_t m = kindex_chunk(i, s->n_flows);
		__u64 h[KINDEX_AHEAD];

		for (size_t j = 0; j < m; j++) {
			h[j] = kindex_hash(&s->flows[i + j].key, sizeof(struct flow_key), 0);
			kindex_prefetch(&fx->index, h[j]);
		}
		for (size_t j = 0; j < m; j++) {
			const struct flow_record *r = &s->flows[i + j];
			__u32 *slot = kindex_slot_hashed(&fx->index, h[j], &r->key, sizeof(r->key),
							 fx->flows, sizeof(*fx->flows));
			struct fx_flow *f;
			bool fresh = !*slot;

			if (fresh) {
				f = &fx->flows[fx->n_flows];
				memset(f, 0, sizeof(*f));
				f->last.key = r->key;
				*slot = ++fx->n_flows;
			} else {
				f = &fx->flows[*slot - 1];
			}
			update(fx, f, r, fresh, now);
			expire(fx, f, now);
		}
	}
	for (size_t i = 0; i < fx->n_flows; i++) {
		struct fx_flow *f = &fx->flows[i];

		if (f->observe == fx->observes || f->gone)
			continue;
		/* Left the table: its last counts are final. */
		f->gone = true;
		fx->st.left_table++;
		if (counts_zero(&f->pending)) {
			f->done = true;
			fx->n_done++;
		} else {
			set_due(fx, f, FLOW_END_IDLE);
		}
	}
	return 0;
}

void flow_export_force(struct flow_export *fx)
{
	for (size_t i = 0; i < fx->n_flows; i++) {
		struct fx_flow *f = &fx->flows[i];

		if (!f->done && !f->due && !counts_zero(&f->pending))
			set_due(fx, f, FLOW_END_FORCED);
	}
}

size_t flow_export_emit(struct flow_export *fx, flow_export_emit_fn emit, void *ctx)
{
	size_t taken = 0, n = fx->n_flows, i = fx->cursor;

	for (size_t k = 0; k < n && fx->st.due; k++, i = i + 1 == n ? 0 : i + 1) {
		struct fx_flow *f = &fx->flows[i];
		struct flow_export_counts part[2];
		__u8 dscp[2];
		int parts;

		if (!f->due)
			continue;
		parts = by_class(f, dscp, part);
		for (int j = 0; j < parts; j++) {
			struct flow_export_record r = {
			    .key = &f->last.key,
			    .last = &f->last.c,
			    .delta = part[j],
			    .start_ns = f->open_ns,
			    .end_ns = f->last.c.last_seen_ns,
			    .reason = f->due,
			    .dscp = dscp[j],
			};

			if (emit(ctx, &r)) {
				fx->st.refused++;
				fx->cursor = i;
				return taken;
			}
			/* Taken: what stays pending is the other part's, one record. */
			for (int cnt = 0; cnt < FX_COUNT_MAX; cnt++)
				f->pending.v[cnt] -= part[j].v[cnt];
			f->due_records--;
			fx->st.due--;
			fx->st.records++;
			taken++;
		}
		memset(&f->pending, 0, sizeof(f->pending));
		f->due = 0;
		if (f->gone) {
			f->done = true;
			fx->n_done++;
		}
	}
	fx->cursor = n ? i : 0;
	return taken;
}

void flow_export_sampling(const struct flow_export_record *r, __u32 *rate, __u64 *samples)
{
	__u64 packets = r->delta.v[FX_PACKETS], n = r->delta.v[FX_SAMPLES], mean;

	if (!n) {
		*samples = packets;
		*rate = packets ? 1 : 0;
		return;
	}
	mean = (packets + n / 2) / n;
	*samples = n;
	*rate = mean > UINT32_MAX ? UINT32_MAX : mean ? (__u32)mean : 1;
}

void flow_export_get_stats(const struct flow_export *fx, struct flow_export_stats *st)
{
	*st = fx->st;
	st->flows = fx->n_flows - fx->n_done;
}

void flow_export_free(struct flow_export *fx)
{
	free(fx->flows);
	kindex_free(&fx->index);
	memset(fx, 0, sizeof(*fx));
}
