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

/*
 * Two joins over the flows, kept across refreshes: by hosts+VNI (counting
 * flows, data flows and their distinct source ports) and by hosts+VNI+
 * source port. They serve reverse pairing and the entropy groups.
 */
static int join_flows(struct analysis *a)
{
	struct analysis_joins *j = &a->joins;
	struct port_key pk[KINDEX_AHEAD];
	__u64 hh[KINDEX_AHEAD], ph[KINDEX_AHEAD];
	int err;

	j->n_host = j->n_port = 0;
	err = buf_grow((void **)&j->host, &j->cap_host, a->n_flows + 1, sizeof(*j->host));
	if (!err)
		err = buf_grow((void **)&j->port, &j->cap_port, a->n_flows + 1, sizeof(*j->port));
	if (!err)
		err = kindex_reset(&j->host_index, a->n_flows);
	if (!err)
		err = kindex_reset(&j->port_index, a->n_flows);
	for (size_t i0 = 0; !err && i0 < a->n_flows; i0 += KINDEX_AHEAD) {
		size_t n = kindex_chunk(i0, a->n_flows);

		for (size_t c = 0; c < n; c++) {
			const struct flow_key *k = &a->flows[i0 + c].r->key;

			pk[c] = (struct port_key){.sport = k->sport};
			host_key_of(&pk[c].hosts, k, false);
			hh[c] = kindex_hash(&pk[c].hosts, sizeof(pk[c].hosts), 0);
			ph[c] = kindex_hash(&pk[c], sizeof(pk[c]), 0);
			kindex_prefetch(&j->host_index, hh[c]);
			kindex_prefetch(&j->port_index, ph[c]);
		}
		for (size_t c = 0; c < n; c++) {
			size_t i = i0 + c;
			bool data = a->flows[i].is_data;
			struct join *h, *p;
			__u32 *slot;

			slot = kindex_slot_hashed(&j->host_index, hh[c], &pk[c].hosts,
						  sizeof(pk[c].hosts), j->host, sizeof(*j->host));
			if (!*slot) {
				j->host[j->n_host] = (struct join){.k = pk[c], .flow = -1};
				*slot = ++j->n_host;
			}
			h = &j->host[*slot - 1];
			slot = kindex_slot_hashed(&j->port_index, ph[c], &pk[c], sizeof(pk[c]),
						  j->port, sizeof(*j->port));
			if (!*slot) {
				j->port[j->n_port] = (struct join){.k = pk[c], .flow = i};
				*slot = ++j->n_port;
			}
			p = &j->port[*slot - 1];
			h->count++;
			if (h->flow < 0 || (data && !a->flows[h->flow].is_data))
				h->flow = i; /* the first flow; the first data flow if any */
			if (data) {
				h->data_qps++;
				h->data_sports += !p->data_seen;
				p->data_seen = true;
			}
		}
	}
	return err;
}

/*
 * ACKs, NAKs and CNPs of a queue pair travel in the other direction with
 * the requester's QP as destination. The QP number of the requester is not
 * in the data packets, so pair by addresses: the reverse flow with the same
 * UDP source port (RoCE NICs derive it from both QP numbers, the same both
 * ways), else the only reverse flow between the two hosts.
 */
static void pair_reverse(struct analysis *a)
{
	struct analysis_joins *j = &a->joins;
	struct port_key want[KINDEX_AHEAD];
	__u64 hh[KINDEX_AHEAD], ph[KINDEX_AHEAD];

	for (size_t i0 = 0; i0 < a->n_flows; i0 += KINDEX_AHEAD) {
		size_t n = kindex_chunk(i0, a->n_flows);

		for (size_t c = 0; c < n; c++) {
			const struct flow_key *k = &a->flows[i0 + c].r->key;

			want[c] = (struct port_key){.sport = k->sport};
			host_key_of(&want[c].hosts, k, true);
			ph[c] = kindex_hash(&want[c], sizeof(want[c]), 0);
			hh[c] = kindex_hash(&want[c].hosts, sizeof(want[c].hosts), 0);
			kindex_prefetch(&j->port_index, ph[c]);
			kindex_prefetch(&j->host_index, hh[c]);
		}
		for (size_t c = 0; c < n; c++) {
			struct flow_view *v = &a->flows[i0 + c];
			__u32 slot;

			slot = kindex_find_hashed(&j->port_index, ph[c], &want[c], sizeof(want[c]),
						  j->port, sizeof(*j->port));
			if (slot) {
				v->reverse = j->port[slot - 1].flow;
				continue;
			}
			slot = kindex_find_hashed(&j->host_index, hh[c], &want[c].hosts,
						  sizeof(want[c].hosts), j->host, sizeof(*j->host));
			if (slot && j->host[slot - 1].count == 1)
				v->reverse = j->host[slot - 1].flow;
		}
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

	for (size_t i = 0; !err && i < j->n_host; i++) {
		if (!j->host[i].data_qps)
			continue;
		a->entropy[a->n_entropy++] =
		    (struct entropy_group){.flow = j->host[i].flow,
					   .qps = j->host[i].data_qps,
					   .sports = j->host[i].data_sports};
	}
	return err;
}

/*
 * The joins and the reverse pairing depend on the flows' keys, order and
 * is_data only: while those are as they were, last refresh's answers hold.
 */
int analysis_join(struct analysis *a)
{
	int err;

	if (a->same_flows && a->joins.valid) {
		for (size_t i = 0; i < a->n_flows; i++)
			a->flows[i].reverse = a->prev[i].reverse;
		return 0;
	}
	a->joins.valid = false;
	err = join_flows(a);
	if (err)
		return err;
	pair_reverse(a);
	a->joins.valid = true;
	return 0;
}

void analysis_joins_free(struct analysis_joins *j)
{
	kindex_free(&j->host_index);
	kindex_free(&j->port_index);
	free(j->host);
	free(j->port);
}
