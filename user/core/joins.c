// SPDX-License-Identifier: GPL-2.0
/*
 * joins.c - the flows joined by hosts and by hosts and source port, for
 * the reverse direction of each flow and the entropy groups. A join, once
 * made, stays until the joins are made again from nothing; each flow's
 * joins are kept at its rid, and only flows new at their rid are looked up.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/joins.h"
#include "core/joins_int.h"
#include "core/roce_sport.h"
#include "util/buf.h"
#include "util/kindex.h"
#include "util/radix.h"
#include "probe/par.h"

/* The queue pair's hosts (the inner ones in VXLAN, roce_sport.h) and VNI. */
static void host_key_of(struct host_key *h, const struct flow_key *k)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->src, roce_flow_src(k), 16);
	memcpy(h->dst, roce_flow_dst(k), 16);
	h->vni = k->vni;
	h->v6 = roce_flow_v6(k);
}

/* A rid's flow's joins. */
struct join_ids {
	int host, port;
};

/* The k-th flow of a list of flows: flow[k], or k when the list is all of them (NULL). */
static inline __u32 nth(const __u32 *flow, size_t k)
{
	return flow ? flow[k] : k;
}

/* The join key of the flow's reverse direction: its hosts swapped, the same source port. */
static void reverse_of(struct port_key *r, const struct port_key *k)
{
	*r = (struct port_key){.sport = k->sport};
	memcpy(r->hosts.src, k->hosts.dst, 16);
	memcpy(r->hosts.dst, k->hosts.src, 16);
	r->hosts.vni = k->hosts.vni;
	r->hosts.v6 = k->hosts.v6;
}

/*
 * The join keys of a chunk of flows and of their reverse directions, with
 * their hashes, and the index slots of all four fetched ahead of the
 * lookups: a flow new to the joins makes a port join, whose reverse is
 * looked up too, at a million flows a cache miss of its own.
 */
struct join_chunk {
	struct port_key pk[KINDEX_AHEAD], rk[KINDEX_AHEAD];
	__u64 hh[KINDEX_AHEAD], ph[KINDEX_AHEAD], rhh[KINDEX_AHEAD], rph[KINDEX_AHEAD];
};

/* The chunk of n flows from the i0-th of a list (nth()). */
static void hash_chunk(const struct analysis *a, const __u32 *flow, size_t i0, size_t n,
		       struct join_chunk *ch)
{
	const struct analysis_joins *j = &a->joins;

	for (size_t c = 0; c < n; c++) {
		const struct flow_key *k = &a->flows[nth(flow, i0 + c)].r->key;
		struct port_key *pk = &ch->pk[c], *rk = &ch->rk[c];

		*pk = (struct port_key){.sport = roce_flow_sport(k)};
		host_key_of(&pk->hosts, k);
		reverse_of(rk, pk);
		ch->hh[c] = kindex_hash(&pk->hosts, sizeof(pk->hosts), 0);
		ch->ph[c] = kindex_hash(pk, sizeof(*pk), 0);
		ch->rhh[c] = kindex_hash(&rk->hosts, sizeof(rk->hosts), 0);
		ch->rph[c] = kindex_hash(rk, sizeof(*rk), 0);
		kindex_prefetch(&j->host_index, ch->hh[c]);
		kindex_prefetch(&j->port_index, ch->ph[c]);
		kindex_prefetch(&j->host_index, ch->rhh[c]);
		kindex_prefetch(&j->port_index, ch->rph[c]);
	}
}

/*
 * The join of key (hash h) in v (their keys: keys, indexed by x), made
 * where absent and linked with the join of its reverse direction's key
 * (rkey, hash rh) if there is one yet. A key that is its own reverse
 * links to itself.
 */
static __u32 join_of(struct join *v, struct port_key *keys, size_t *n, struct kindex *x, __u64 h,
		     const struct port_key *key, __u64 rh, const struct port_key *rkey, size_t klen)
{
	__u32 *slot = kindex_slot_hashed(x, h, key, klen, keys, sizeof(*keys));
	__u32 e, f;

	if (*slot)
		return *slot - 1;
	e = (*n)++;
	v[e] = (struct join){.rev = -1, .flow = -1};
	keys[e] = *key;
	*slot = e + 1;
	f = kindex_find_hashed(x, rh, rkey, klen, keys, sizeof(*keys));
	v[e].rev = (int)f - 1;
	if (f)
		v[f - 1].rev = e;
	return e;
}

/*
 * n flows of a list (nth()), new at their rids, into their joins: each flow's
 * join by hosts+VNI and by hosts+VNI+source port, made where absent.
 */
static void join_add(struct analysis *a, const __u32 *flow, size_t n)
{
	struct analysis_joins *j = &a->joins;
	struct join_chunk ch;

	for (size_t i0 = 0; i0 < n; i0 += KINDEX_AHEAD) {
		size_t m = kindex_chunk(i0, n);

		hash_chunk(a, flow, i0, m, &ch);
		for (size_t c = 0; c < m; c++) {
			struct join_ids *id = &j->ids[analysis_rid(a, nth(flow, i0 + c))];

			id->host =
			    join_of(j->host, j->host_keys, &j->n_host, &j->host_index, ch.hh[c],
				    &ch.pk[c], ch.rhh[c], &ch.rk[c], sizeof(ch.pk[c].hosts));
			id->port =
			    join_of(j->port, j->port_keys, &j->n_port, &j->port_index, ch.ph[c],
				    &ch.pk[c], ch.rph[c], &ch.rk[c], sizeof(ch.pk[c]));
		}
	}
}

/*
 * No joins: room for twice the flows' joins, so that flows can come and
 * go for a while before the joins are made again from nothing.
 */
static int join_reset(struct analysis *a)
{
	struct analysis_joins *j = &a->joins;
	size_t room = 2 * a->n_flows + 64;
	int err;

	j->n_host = j->n_port = 0;
	err = buf_grow((void **)&j->host, &j->cap_host, room, sizeof(*j->host)) ?:
	      buf_grow((void **)&j->port, &j->cap_port, room, sizeof(*j->port)) ?:
	      buf_grow((void **)&j->host_keys, &j->cap_host_keys, room, sizeof(*j->host_keys)) ?:
	      buf_grow((void **)&j->port_keys, &j->cap_port_keys, room, sizeof(*j->port_keys));
	if (!err)
		err = kindex_reset(&j->host_index, room);
	if (!err)
		err = kindex_reset(&j->port_index, room);
	j->room = err ? 0 : room;
	return err;
}

/*
 * Flows ahead of the counting loops, whose joins are far apart at a
 * million; only those of hosts host_lo to host_hi (a part's) have their
 * joins fetched, and their views' lines the counting reads: a part skips
 * the others' flows, and the hardware's prefetcher loses the stride.
 * always_inline, as analysis.c's prefetch_prev() is.
 */
#define JOIN_AHEAD 16

static inline __attribute__((always_inline)) void prefetch_joins(const struct analysis *a, size_t i,
								 size_t host_lo, size_t host_hi)
{
	const struct analysis_joins *j = &a->joins;

	if (i + JOIN_AHEAD < a->n_flows)
		__builtin_prefetch(&j->ids[analysis_rid(a, i + JOIN_AHEAD)]);
	if (i + JOIN_AHEAD / 2 < a->n_flows) {
		const struct join_ids *id = &j->ids[analysis_rid(a, i + JOIN_AHEAD / 2)];

		if ((size_t)id->host - host_lo >= host_hi - host_lo)
			return; /* another part's */
		__builtin_prefetch(&j->host[id->host]);
		__builtin_prefetch(&j->port[id->port]);
		__builtin_prefetch(&a->flows[i + JOIN_AHEAD / 2].d);
		__builtin_prefetch(&a->flows[i + JOIN_AHEAD / 2].is_data);
	}
}

/* A data flow the entropy counts: over an interval, only one that sent in it. */
static bool entropy_data(const struct analysis *a, size_t i)
{
	const struct flow_view *v = &a->flows[i];

	return v->is_data && (a->whole_run || v->d.packets);
}

/*
 * The queue pairs of source ports more than one QP shares: one QP is
 * counted for each port in join_count(), and every other distinct one
 * here. A QP's flows at two observation points (two mirror sessions, a
 * router's ingress and egress) are one QP: its destination QP, on the
 * same hosts and source port. The pairs (port, QP) of such ports are
 * sorted, and each run of a port's pairs adds its QPs but the first to
 * the port's hosts. Nothing to do where every port has one QP.
 */
static bool on_shared_port(const struct analysis *a, size_t i)
{
	const struct join_ids *id = &a->joins.ids[analysis_rid(a, i)];

	return entropy_data(a, i) && a->joins.port[id->port].qps_differ;
}

static int join_count_shared(struct analysis *a)
{
	struct analysis_joins *j = &a->joins;
	struct radix_ent *e, *sorted;
	size_t n = 0;
	int err;

	for (size_t i = 0; i < a->n_flows; i++)
		n += on_shared_port(a, i);
	err = buf_grow((void **)&j->shared, &j->cap_shared, 2 * n, sizeof(*j->shared));
	if (err)
		return err;
	e = j->shared;
	n = 0;
	for (size_t i = 0; i < a->n_flows; i++) {
		const struct join_ids *id = &j->ids[analysis_rid(a, i)];

		if (on_shared_port(a, i))
			e[n++] = (struct radix_ent){.key = (__u64)id->port << 32 | a->dest_qp[i],
						    .idx = (__u64)id->host};
	}
	sorted = radix_sort(e, e + n, n);
	for (size_t k = 1; k < n; k++)
		if (sorted[k].key != sorted[k - 1].key &&
		    sorted[k].key >> 32 == sorted[k - 1].key >> 32)
			j->host[sorted[k].idx].data_qps++;
	return 0;
}

/* Flow i (data: entropy_data()) takes a join's place as its flow from flow j. */
static bool better_flow(const struct analysis *a, size_t i, bool data, size_t j)
{
	bool was = entropy_data(a, j);

	return data != was ? data : analysis_before(a, i, j);
}

/*
 * The joins are counted in parts, each the host joins of one range of
 * them and their port joins (a port join's hosts are its host join's), so
 * no two parts write one join. Each part reads every flow and counts those
 * of its hosts; it lists its hosts by their first flow in firsts[] from
 * its own first host's place on (in one part, in order[] at once).
 */
struct count_job {
	struct analysis *a;
	int parts;
	size_t lo[PAR_MAX], n_first[PAR_MAX];
	bool crowded[PAR_MAX], shared[PAR_MAX];
};

static void port_reset_part(void *ctx, int part, size_t lo, size_t hi)
{
	struct join *port = ctx;

	(void)part;
	for (size_t p = lo; p < hi; p++) {
		port[p].flow = -1;
		port[p].data_seen = port[p].qps_differ = port[p].many_qps = false;
	}
}

/* Hosts lo to hi, and their ports. */
static void count_part(void *ctx, int part, size_t lo, size_t hi)
{
	struct count_job *c = ctx;
	struct analysis *a = c->a;
	struct analysis_joins *j = &a->joins;
	struct radix_ent *first = &j->firsts[lo];
	bool crowded = false, shared = false;
	size_t n_first = 0;

	for (size_t h = lo; h < hi; h++) {
		struct join *jh = &j->host[h];

		jh->flow = -1;
		jh->count = jh->data_qps = jh->data_sports = 0;
	}
	for (size_t i = 0; i < a->n_flows; i++) {
		const struct join_ids *id = &j->ids[analysis_rid(a, i)];
		struct join *h, *p;
		bool data;

		prefetch_joins(a, i, lo, hi);
		if ((size_t)id->host - lo >= hi - lo)
			continue; /* another part's */
		h = &j->host[id->host];
		p = &j->port[id->port];
		data = entropy_data(a, i);
		if (!h->count++) {
			if (c->parts == 1)
				j->order[n_first++] = id->host;
			else
				first[n_first++] = (struct radix_ent){.key = i, .idx = id->host};
		}
		if (h->flow < 0 || better_flow(a, i, data, (size_t)h->flow))
			h->flow = i; /* the largest flow; the largest data flow if any */
		/*
		 * A second destination QP shows first against every earlier
		 * flow's one QP, so against p->flow's: a port's first flow
		 * has nothing to compare.
		 */
		if (p->flow >= 0 && !p->many_qps && a->dest_qp[i] != a->dest_qp[p->flow])
			p->many_qps = crowded = true;
		if (p->flow < 0 || analysis_before(a, i, (size_t)p->flow))
			p->flow = i;
		if (data && !p->data_seen) {
			h->data_qps++;
			h->data_sports++;
			p->data_seen = true;
			p->qp = a->dest_qp[i];
		} else if (data && a->dest_qp[i] != p->qp) {
			p->qps_differ = shared = true;
		}
	}
	c->lo[part] = lo;
	c->n_first[part] = n_first;
	c->crowded[part] = crowded;
	c->shared[part] = shared;
}

/* The parts' lists of hosts, each in the order of their first flows, merged into j->order. */
static void order_hosts(struct analysis_joins *j, struct count_job *c)
{
	size_t end[PAR_MAX];

	if (c->parts == 1) {
		j->n_order = c->n_first[0];
		return;
	}
	for (int k = 0; k < PAR_MAX; k++)
		end[k] = c->lo[k] + c->n_first[k];
	for (j->n_order = 0;;) {
		int best = -1;

		for (int k = 0; k < PAR_MAX; k++)
			if (c->lo[k] < end[k] &&
			    (best < 0 || j->firsts[c->lo[k]].key < j->firsts[c->lo[best]].key))
				best = k;
		if (best < 0)
			return;
		j->order[j->n_order++] = (int)j->firsts[c->lo[best]++].idx;
	}
}

/*
 * Count the joins over this refresh's flows: flows, data flows' distinct
 * queue pairs and source ports per hosts, and the largest flow (the
 * largest data flow, if any) of each join, in any order of the flows.
 * The host joins' order is the flows': their first flow's. Joins no flow
 * is in now count none and have no flow.
 */
static int join_count(struct analysis *a)
{
	struct analysis_joins *j = &a->joins;
	struct count_job c = {.a = a, .parts = par_parts(a->n_flows, ANALYSIS_PART_MIN)};
	bool shared = false; /* a source port more than one QP uses */
	int err =
	    buf_grow((void **)&j->order, &j->cap_order, j->n_host + 1, sizeof(*j->order))
		?: buf_grow((void **)&j->firsts, &j->cap_firsts, j->n_host + 1, sizeof(*j->firsts));

	if (err)
		return err;
	par_for(j->n_port, ANALYSIS_PART_MIN, port_reset_part, j->port);
	par_run(c.parts, j->n_host, count_part, &c);
	order_hosts(j, &c);
	j->crowded = false;
	for (int k = 0; k < PAR_MAX; k++) {
		j->crowded |= c.crowded[k];
		shared |= c.shared[k];
	}
	return shared ? join_count_shared(a) : 0;
}

/* Flow f's source port has a flow in the other direction: f is that flow's reverse. */
static bool port_answered(const struct analysis *a, int f)
{
	const struct analysis_joins *j = &a->joins;
	int rp = j->port[j->ids[analysis_rid(a, f)].port].rev;

	return rp >= 0 && j->port[rp].flow >= 0;
}

/*
 * The flows of crowded ports (a port, or its reverse, that carries more
 * than one QP), as pair_reverse_part() finds them: (port, QP) and the flow,
 * each part's from its lo on, then gathered (crowded_pairs()).
 */
struct reverse_job {
	struct analysis *a;
	size_t first[PAR_MAX], n[PAR_MAX];
};

/*
 * ACKs, NAKs and CNPs of a queue pair travel in the other direction with
 * the requester's QP as destination. The QP number of the requester is not
 * in the data packets, so pair by addresses: the reverse flow with the same
 * UDP source port (RoCE NICs derive it from both QP numbers, the same both
 * ways), else the only reverse flow between the two hosts, unless its port
 * pairs it with another flow already. A port that carries more than one
 * QP, either way, is left to crowded_pairs().
 */
static void pair_reverse_part(void *ctx, int part, size_t lo, size_t hi)
{
	struct reverse_job *job = ctx;
	struct analysis *a = job->a;
	const struct analysis_joins *j = &a->joins;
	struct radix_ent *e = j->crowded ? j->shared + lo : NULL; /* NULL: not grown */
	size_t n = 0;

	for (size_t i = lo; i < hi; i++) {
		const struct join_ids *id = &j->ids[analysis_rid(a, i)];
		const struct join *p = &j->port[id->port];
		int rp = p->rev, rh = j->host[id->host].rev;

		prefetch_joins(a, i, 0, SIZE_MAX);
		if (rp >= 0 && j->port[rp].flow >= 0) {
			if (!p->many_qps && !j->port[rp].many_qps)
				a->flows[i].reverse = j->port[rp].flow;
			else
				e[n++] = (struct radix_ent){
				    .key = (__u64)id->port << 32 | a->dest_qp[i], .idx = i};
		} else if (rh >= 0 && j->host[rh].count == 1 &&
			   !port_answered(a, j->host[rh].flow)) {
			a->flows[i].reverse = j->host[rh].flow;
		}
	}
	job->first[part] = lo;
	job->n[part] = n;
}

/*
 * The joins are read only here: each part writes its own flows' reverse,
 * and its flows of crowded ports from its own first place on.
 */
static int pair_reverse(struct analysis *a)
{
	struct analysis_joins *j = &a->joins;
	struct reverse_job job = {.a = a};
	size_t n;
	int err = 0;

	if (j->crowded)
		err = buf_grow((void **)&j->shared, &j->cap_shared, 2 * a->n_flows,
			       sizeof(*j->shared))
			  ?: buf_grow((void **)&j->groups, &j->cap_groups, a->n_flows,
				      sizeof(*j->groups));
	if (err)
		return err;
	par_for(a->n_flows, ANALYSIS_PART_MIN, pair_reverse_part, &job);
	if (!j->crowded)
		return 0;
	n = par_gather(j->shared, sizeof(*j->shared), job.first, job.n);
	crowded_pairs(a, radix_sort(j->shared, j->shared + a->n_flows, n), n);
	return 0;
}

/*
 * ECMP spreads queue pairs only by what differs between them: between two
 * hosts that is the UDP source port. Groups of data flows per hosts+VNI,
 * with their distinct source ports, in the order of the flows (their first
 * flow's): by bytes when the snapshot is.
 */
int analysis_entropy(struct analysis *a)
{
	struct analysis_joins *j = &a->joins;
	int err =
	    buf_grow((void **)&a->entropy, &a->cap_entropy, j->n_host + 1, sizeof(*a->entropy));

	for (size_t o = 0; !err && o < j->n_order; o++) {
		const struct join *h = &j->host[j->order[o]];

		if (!h->data_qps)
			continue;
		a->entropy[a->n_entropy++] = (struct entropy_group){
		    .flow = h->flow, .qps = h->data_qps, .sports = h->data_sports};
	}
	return err;
}

/*
 * Join the flows: those at the rid they had (analysis.c's fresh list
 * leaves them out) keep their joins; the others are looked up, and the
 * joins are made again from nothing when they are not valid or would
 * outgrow their room. Then every join is counted in this refresh's order.
 */
int analysis_join(struct analysis *a)
{
	struct analysis_joins *j = &a->joins;
	bool all =
	    !j->valid || j->n_host + a->n_fresh > j->room || j->n_port + a->n_fresh > j->room;
	int err;

	j->valid = false;
	err = buf_grow((void **)&j->ids, &j->cap_ids, a->n_rids + 1, sizeof(*j->ids));
	if (!err && all)
		err = join_reset(a);
	if (err)
		return err;
	if (all)
		join_add(a, NULL, a->n_flows);
	else
		join_add(a, a->fresh, a->n_fresh);
	err = join_count(a);
	if (err)
		return err;
	err = pair_reverse(a);
	if (err)
		return err;
	j->valid = true;
	return 0;
}

void analysis_joins_free(struct analysis_joins *j)
{
	kindex_free(&j->host_index);
	kindex_free(&j->port_index);
	free(j->host);
	free(j->port);
	free(j->host_keys);
	free(j->port_keys);
	free(j->ids);
	free(j->order);
	free(j->firsts);
	free(j->shared);
	free(j->groups);
}
