// SPDX-License-Identifier: GPL-2.0
/*
 * joins.c - the flows joined by hosts and by hosts and source port, for
 * the reverse direction of each flow and the entropy groups; kept across
 * refreshes while the flows stay as they were.
 */
#include <stdlib.h>
#include <string.h>

#include "core/joins.h"
#include "util/buf.h"
#include "util/kindex.h"

/* The hosts (and VNI) of a flow, and with the source port: the keys of the joins below. */
struct host_key {
	__u8 src[16], dst[16];
	__u32 vni;
};

struct port_key {
	struct host_key hosts;
	__u16 sport;
	__u16 pad;
};

struct join {
	struct port_key k; /* at offset 0, for kindex */
	int flow;	   /* first flow with this key */
	int count;	   /* flows with these hosts (host join) */
	int data_qps;	   /* of them carrying data (host join) */
	int data_sports;   /* distinct source ports among those (host join) */
	bool data_seen;	   /* a data flow has this port (port join) */
};

static void host_key_of(struct host_key *h, const struct flow_key *k, bool reverse)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->src, reverse ? k->dst : k->src, 16);
	memcpy(h->dst, reverse ? k->src : k->dst, 16);
	h->vni = k->vni;
}

/* A rid's flow's joins, and those its reverse direction would be in (-1: none). */
struct join_ids {
	int host, port;
	int rhost, rport;
};

static __u32 rid_of(const struct analysis *a, size_t i)
{
	return analysis_rid(a, a->flows[i].r, i);
}

/*
 * The join keys of n flows from i0 (their reverse direction's, with
 * reverse) and their hashes, the index slots fetched ahead of the lookups.
 */
static void hash_chunk(const struct analysis *a, size_t i0, size_t n, bool reverse,
		       struct port_key *pk, __u64 *hh, __u64 *ph)
{
	for (size_t c = 0; c < n; c++) {
		const struct flow_key *k = &a->flows[i0 + c].r->key;

		pk[c] = (struct port_key){.sport = k->sport};
		host_key_of(&pk[c].hosts, k, reverse);
		hh[c] = kindex_hash(&pk[c].hosts, sizeof(pk[c].hosts), 0);
		ph[c] = kindex_hash(&pk[c], sizeof(pk[c]), 0);
		kindex_prefetch(&a->joins.host_index, hh[c]);
		kindex_prefetch(&a->joins.port_index, ph[c]);
	}
}

/* Flow i, a member of id's joins, counted in: flows are counted in byte order. */
static void count_member(struct analysis *a, const struct join_ids *id, size_t i)
{
	struct analysis_joins *j = &a->joins;
	struct join *h = &j->host[id->host], *p = &j->port[id->port];
	bool data = a->flows[i].is_data;

	if (!h->count++)
		j->order[j->n_order++] = id->host;
	if (h->flow < 0 || (data && !a->flows[h->flow].is_data))
		h->flow = i; /* the first flow; the first data flow if any */
	if (p->flow < 0)
		p->flow = i;
	if (data) {
		h->data_qps++;
		h->data_sports += !p->data_seen;
		p->data_seen = true;
	}
}

/*
 * ACKs, NAKs and CNPs of a queue pair travel in the other direction with
 * the requester's QP as destination. The QP number of the requester is not
 * in the data packets, so pair by addresses: the reverse flow with the same
 * UDP source port (RoCE NICs derive it from both QP numbers, the same both
 * ways), else the only reverse flow between the two hosts. Once every flow
 * is counted.
 */
static void set_reverse(struct analysis *a, const struct join_ids *id, size_t i)
{
	const struct analysis_joins *j = &a->joins;

	if (id->rport >= 0)
		a->flows[i].reverse = j->port[id->rport].flow;
	else if (id->rhost >= 0 && j->host[id->rhost].count == 1)
		a->flows[i].reverse = j->host[id->rhost].flow;
}

/*
 * The joins' members: each flow's join by hosts+VNI and by hosts+VNI+
 * source port, made where absent, and the joins its reverse direction
 * would be in; the flows counted and paired on the way, as join_count()
 * and pair_reverse() do when the members stand.
 */
static int join_members(struct analysis *a)
{
	struct analysis_joins *j = &a->joins;
	struct port_key pk[KINDEX_AHEAD];
	__u64 hh[KINDEX_AHEAD], ph[KINDEX_AHEAD];
	int err;

	j->n_host = j->n_port = j->n_order = 0;
	err = buf_grow((void **)&j->host, &j->cap_host, a->n_flows + 1, sizeof(*j->host));
	if (!err)
		err = buf_grow((void **)&j->port, &j->cap_port, a->n_flows + 1, sizeof(*j->port));
	if (!err)
		err = buf_grow((void **)&j->ids, &j->cap_ids, a->n_rids + 1, sizeof(*j->ids));
	if (!err)
		err =
		    buf_grow((void **)&j->order, &j->cap_order, a->n_flows + 1, sizeof(*j->order));
	if (!err)
		err = kindex_reset(&j->host_index, a->n_flows);
	if (!err)
		err = kindex_reset(&j->port_index, a->n_flows);
	for (size_t i0 = 0; !err && i0 < a->n_flows; i0 += KINDEX_AHEAD) {
		size_t n = kindex_chunk(i0, a->n_flows);

		hash_chunk(a, i0, n, false, pk, hh, ph);
		for (size_t c = 0; c < n; c++) {
			struct join_ids *id = &j->ids[rid_of(a, i0 + c)];
			__u32 *slot;

			slot = kindex_slot_hashed(&j->host_index, hh[c], &pk[c].hosts,
						  sizeof(pk[c].hosts), j->host, sizeof(*j->host));
			if (!*slot) {
				j->host[j->n_host] = (struct join){.k = pk[c], .flow = -1};
				*slot = ++j->n_host;
			}
			id->host = *slot - 1;
			slot = kindex_slot_hashed(&j->port_index, ph[c], &pk[c], sizeof(pk[c]),
						  j->port, sizeof(*j->port));
			if (!*slot) {
				j->port[j->n_port] = (struct join){.k = pk[c], .flow = -1};
				*slot = ++j->n_port;
			}
			id->port = *slot - 1;
			count_member(a, id, i0 + c);
		}
	}
	/* Where the reverse direction would be: its port join, else its host join. */
	for (size_t i0 = 0; !err && i0 < a->n_flows; i0 += KINDEX_AHEAD) {
		size_t n = kindex_chunk(i0, a->n_flows);

		hash_chunk(a, i0, n, true, pk, hh, ph);
		for (size_t c = 0; c < n; c++) {
			struct join_ids *id = &j->ids[rid_of(a, i0 + c)];
			__u32 slot;

			slot = kindex_find_hashed(&j->port_index, ph[c], &pk[c], sizeof(pk[c]),
						  j->port, sizeof(*j->port));
			id->rport = (int)slot - 1;
			slot = slot ? 0
				    : kindex_find_hashed(&j->host_index, hh[c], &pk[c].hosts,
							 sizeof(pk[c].hosts), j->host,
							 sizeof(*j->host));
			id->rhost = (int)slot - 1;
			set_reverse(a, id, i0 + c);
		}
	}
	return err;
}

/* Flows ahead of the counting loops, whose joins are far apart at a million. */
#define JOIN_AHEAD 16

static void prefetch_joins(const struct analysis *a, size_t i)
{
	const struct analysis_joins *j = &a->joins;

	if (i + JOIN_AHEAD < a->n_flows)
		__builtin_prefetch(&j->ids[rid_of(a, i + JOIN_AHEAD)]);
	if (i + JOIN_AHEAD / 2 < a->n_flows) {
		const struct join_ids *id = &j->ids[rid_of(a, i + JOIN_AHEAD / 2)];

		__builtin_prefetch(&j->host[id->host]);
		__builtin_prefetch(&j->port[id->port]);
	}
}

/*
 * Count the joins over this refresh's flows, in byte order: flows, data
 * flows and their distinct source ports per hosts, and the first flow
 * (the first data flow, if any) of each join.
 */
static int join_count(struct analysis *a)
{
	struct analysis_joins *j = &a->joins;
	int err = buf_grow((void **)&j->order, &j->cap_order, j->n_host + 1, sizeof(*j->order));

	if (err)
		return err;
	for (size_t h = 0; h < j->n_host; h++) {
		struct join *jh = &j->host[h];

		jh->flow = -1;
		jh->count = jh->data_qps = jh->data_sports = 0;
	}
	for (size_t p = 0; p < j->n_port; p++) {
		j->port[p].flow = -1;
		j->port[p].data_seen = false;
	}
	j->n_order = 0;
	for (size_t i = 0; i < a->n_flows; i++) {
		prefetch_joins(a, i);
		count_member(a, &j->ids[rid_of(a, i)], i);
	}
	return 0;
}

/* Each flow's reverse direction, from the joins counted (set_reverse()). */
static void pair_reverse(struct analysis *a)
{
	for (size_t i = 0; i < a->n_flows; i++) {
		prefetch_joins(a, i);
		set_reverse(a, &a->joins.ids[rid_of(a, i)], i);
	}
}

/*
 * ECMP spreads queue pairs only by what differs between them: between two
 * hosts that is the UDP source port. Groups of data flows per hosts+VNI,
 * with their distinct source ports, in order of the first flow's bytes.
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
 * The joins' members depend on the flows' keys and rids only: while those
 * are as they were, the members stand, and each refresh counts them again
 * in its own order by bytes and with its own data-ness.
 */
int analysis_join(struct analysis *a)
{
	int err;

	if (a->same_flows && a->joins.valid) {
		err = join_count(a);
		if (!err)
			pair_reverse(a);
		return err;
	}
	a->joins.valid = false;
	err = join_members(a);
	a->joins.valid = !err;
	return err;
}

void analysis_joins_free(struct analysis_joins *j)
{
	kindex_free(&j->host_index);
	kindex_free(&j->port_index);
	free(j->host);
	free(j->port);
	free(j->ids);
	free(j->order);
}
