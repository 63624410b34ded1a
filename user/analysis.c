// SPDX-License-Identifier: GPL-2.0
/*
 * analysis.c - rates, paths, elephants and collisions. The detectors that
 * turn them into alerts are in detect.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "buf.h"
#include "detect.h"

/* Hysteresis: an elephant stays one until it falls below this share of the threshold. */
#define ELEPHANT_HOLD  0.8
#define ELEPHANT_SHARE 0.10

void analysis_opts_default(struct analysis_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->imbalance_ratio = 1.5;
	o->rnr_storm_per_s = 10;
	o->data_dscp = 26;
	o->cnp_dscp = 48;
	o->data_pcp = -1;
	o->cnp_pcp = -1;
	hash_config_default(&o->hash);
}

static const char *const type_names[ALERT_TYPE_MAX] = {
    [ALERT_ELEPHANT_COLLISION] = "elephant_collision",
    [ALERT_PREDICTED_COLLISION] = "predicted_collision",
    [ALERT_CE_WITHOUT_CNP] = "ce_without_cnp",
    [ALERT_CNP_WITHOUT_CE] = "cnp_without_ce",
    [ALERT_NOT_ECT_ROCE] = "not_ect_roce",
    [ALERT_WRONG_TRAFFIC_CLASS] = "wrong_traffic_class",
    [ALERT_RETRANSMITS] = "retransmits",
    [ALERT_RNR_NAKS] = "rnr_naks",
    [ALERT_PSN_GAPS] = "psn_gaps",
    [ALERT_LOW_ENTROPY] = "low_entropy",
    [ALERT_PATH_IMBALANCE] = "path_imbalance",
    [ALERT_MALFORMED] = "malformed",
    [ALERT_FLOW_TABLE_PRESSURE] = "flow_table_pressure",
};

const char *alert_type_name(enum alert_type t)
{
	return t < ALERT_TYPE_MAX ? type_names[t] : "?";
}

const char *severity_name(enum severity s)
{
	return s == SEV_CRITICAL ? "critical" : s == SEV_WARNING ? "warning" : "info";
}

/* FNV-1a over the key: the flow table's keys are plain bytes without holes. */
static __u64 key_hash(const struct flow_key *k)
{
	const __u8 *p = (const __u8 *)k;
	__u64 h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* Open addressing over prev[]: slot holds index + 1, 0 is empty. */
static int index_prev(struct analysis *a)
{
	size_t size = 16;

	while (size < a->n_prev * 2)
		size *= 2;
	if (size != a->index_size) {
		free(a->prev_index);
		a->prev_index = malloc(size * sizeof(*a->prev_index));
		if (!a->prev_index) {
			a->index_size = 0;
			return -ENOMEM;
		}
		a->index_size = size;
	}
	memset(a->prev_index, 0, size * sizeof(*a->prev_index));
	for (size_t i = 0; i < a->n_prev; i++) {
		size_t slot = key_hash(&a->prev[i].key) & (size - 1);

		while (a->prev_index[slot])
			slot = (slot + 1) & (size - 1);
		a->prev_index[slot] = i + 1;
	}
	return 0;
}

static const struct prev_flow *find_prev(const struct analysis *a, const struct flow_key *k)
{
	size_t slot;

	if (!a->have_prev || !a->index_size)
		return NULL;
	slot = key_hash(k) & (a->index_size - 1);
	while (a->prev_index[slot]) {
		const struct prev_flow *p = &a->prev[a->prev_index[slot] - 1];

		if (!memcmp(&p->key, k, sizeof(*k)))
			return p;
		slot = (slot + 1) & (a->index_size - 1);
	}
	return NULL;
}

__u64 flow_ce(const struct flow_counters *c)
{
	/* In VXLAN the mark may be on the outer header, the inner one, or both. */
	return c->ecn[3] > c->inner_ecn[3] ? c->ecn[3] : c->inner_ecn[3];
}

/* Requests or read responses: the packets DCQCN and the lossless class are for. */
static bool carries_data(const struct flow_counters *c)
{
	for (int op = 0; op < 256; op++) {
		int low = op & FP_OP_MASK, transport = op & FP_TRANSPORT_MASK;

		if (!(c->opcodes[op >> 6] & (1ULL << (op & 63))))
			continue;
		if (op == FP_OPCODE_CNP || transport == FP_TRANSPORT_CNP)
			continue;
		if (low == FP_OP_ACK || low == FP_OP_ATOMIC_ACK)
			continue;
		return true;
	}
	return false;
}

static int path_of(const struct analysis *a, __u32 ifindex)
{
	for (int i = 0; i < a->n_paths; i++)
		if (a->paths[i].ifindex == ifindex)
			return i;
	return -1;
}

static double read_speed_bps(const char *ifname)
{
	char path[128];
	long mbps = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", ifname);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &mbps) != 1)
		mbps = -1;
	fclose(f);
	return mbps > 0 ? mbps * 1e6 : 0;
}

static void init_paths(struct analysis *a, const struct report_opts *ro)
{
	a->n_paths = 0;
	for (int i = 0; i < ro->n_ifaces && a->n_paths < AN_MAX_PATHS; i++) {
		struct path_view *p = &a->paths[a->n_paths];

		if (!ro->ifaces[i].uplink)
			continue;
		memset(p, 0, sizeof(*p));
		snprintf(p->name, sizeof(p->name), "%s", ro->ifaces[i].name);
		p->ifindex = ro->ifaces[i].ifindex;
		if (!strcmp(ro->mode, "live"))
			p->speed_bps = read_speed_bps(p->name);
		a->n_paths++;
	}
}

/* The flows' own time span, for rates without a previous snapshot. */
static double flows_span_s(const struct snapshot *s)
{
	__u64 first = 0, last = 0;

	for (size_t i = 0; i < s->n_flows; i++) {
		const struct flow_counters *c = &s->flows[i].c;

		if (i == 0 || c->first_seen_ns < first)
			first = c->first_seen_ns;
		if (c->last_seen_ns > last)
			last = c->last_seen_ns;
	}
	return last > first ? (last - first) / 1e9 : 0;
}

static void flow_delta_of(struct flow_delta *d, const struct flow_counters *c)
{
	d->bytes = c->bytes;
	d->packets = c->packets;
	d->ce = flow_ce(c);
	d->cnp = c->cnp;
	d->rtx = c->retransmits;
	d->naks = c->naks;
	d->rnr_naks = c->rnr_naks;
	d->gaps = c->psn_gaps;
	d->not_ect = c->ecn[0];
}

static void flow_delta_sub(struct flow_delta *d, const struct flow_delta *then)
{
	__u64 *x = (__u64 *)d;
	const __u64 *y = (const __u64 *)then;

	for (size_t i = 0; i < sizeof(*d) / sizeof(__u64); i++)
		x[i] -= y[i];
}

static int compute_rates(struct analysis *a, const struct snapshot *s, double dt)
{
	int err = buf_grow((void **)&a->flows, &a->cap_flows, s->n_flows, sizeof(*a->flows));

	if (err)
		return err;
	a->n_flows = s->n_flows;
	for (size_t i = 0; i < s->n_flows; i++) {
		const struct flow_record *r = &s->flows[i];
		const struct prev_flow *p = find_prev(a, &r->key);
		struct flow_view *v = &a->flows[i];

		memset(v, 0, sizeof(*v));
		v->r = r;
		flow_delta_of(&v->d, &r->c);
		/* A flow evicted and back since the last refresh counts from zero. */
		if (p && p->c.packets <= r->c.packets)
			flow_delta_sub(&v->d, &p->c);
		v->bps = v->d.bytes * 8.0 / dt;
		v->pps = v->d.packets / dt;
		v->ce_per_s = v->d.ce / dt;
		v->cnp_per_s = v->d.cnp / dt;
		v->rtx_per_s = v->d.rtx / dt;
		v->ce_fraction = r->c.packets ? (double)flow_ce(&r->c) / r->c.packets : 0;
		v->elephant = p && p->elephant;
		v->path = path_of(a, r->key.ifindex);
		v->reverse = -1;
		v->predicted_path = -1;
		v->is_data = carries_data(&r->c);
	}
	return 0;
}

static double elephant_threshold(const struct analysis *a, const struct analysis_opts *o,
				 const struct flow_view *v)
{
	if (o->elephant_bps > 0)
		return o->elephant_bps;
	if (v->path >= 0 && a->paths[v->path].speed_bps > 0)
		return ELEPHANT_SHARE * a->paths[v->path].speed_bps;
	return ELEPHANT_SHARE * a->group_peak_bps;
}

static void mark_elephants(struct analysis *a, const struct analysis_opts *o)
{
	double group_bps = 0;

	for (size_t i = 0; i < a->n_flows; i++)
		group_bps += a->flows[i].bps;
	if (group_bps > a->group_peak_bps)
		a->group_peak_bps = group_bps;
	a->elephant_bps =
	    o->elephant_bps > 0 ? o->elephant_bps : ELEPHANT_SHARE * a->group_peak_bps;

	for (size_t i = 0; i < a->n_flows; i++) {
		struct flow_view *v = &a->flows[i];
		double thr = elephant_threshold(a, o, v);

		if (thr <= 0 || !v->is_data)
			v->elephant = false;
		else
			v->elephant =
			    v->bps >= thr || (v->elephant && v->bps >= ELEPHANT_HOLD * thr);
	}
}

static void sum_paths(struct analysis *a)
{
	double mean_bytes = 0, mean_flows = 0, max_bytes = 0, max_flows = 0;

	for (size_t i = 0; i < a->n_flows; i++) {
		const struct flow_view *v = &a->flows[i];
		struct path_view *p;

		if (v->path < 0)
			continue;
		p = &a->paths[v->path];
		p->flows++;
		p->elephants += v->elephant;
		p->packets += v->r->c.packets;
		p->bytes += v->r->c.bytes;
		p->bps += v->bps;
	}
	a->imbalance_bytes = a->imbalance_flows = 0;
	if (a->n_paths < 2)
		return;
	/* Balance of what the interval carried (bps), and of flows. */
	for (int i = 0; i < a->n_paths; i++) {
		mean_bytes += a->paths[i].bps / a->n_paths;
		mean_flows += (double)a->paths[i].flows / a->n_paths;
		if (a->paths[i].bps > max_bytes)
			max_bytes = a->paths[i].bps;
		if (a->paths[i].flows > max_flows)
			max_flows = a->paths[i].flows;
	}
	a->imbalance_bytes = mean_bytes > 0 ? max_bytes / mean_bytes : 0;
	a->imbalance_flows = mean_flows > 0 ? max_flows / mean_flows : 0;
}

/* Compact key for pairing a flow with its opposite direction. */
struct pair_key {
	__u8 a[16], b[16];
	__u32 vni;
	__u16 sport;
	__u16 pad;
};

struct pair_entry {
	struct pair_key k;
	int flow;
};

static int cmp_pair_prefix(const struct pair_key *x, const struct pair_key *y)
{
	int c = memcmp(x->a, y->a, 16);

	if (!c)
		c = memcmp(x->b, y->b, 16);
	if (!c)
		c = (x->vni > y->vni) - (x->vni < y->vni);
	return c;
}

static int cmp_pair(const void *pa, const void *pb)
{
	const struct pair_entry *x = pa, *y = pb;
	int c = cmp_pair_prefix(&x->k, &y->k);

	return c ? c : (x->k.sport > y->k.sport) - (x->k.sport < y->k.sport);
}

/*
 * ACKs, NAKs and CNPs of a queue pair travel in the other direction with
 * the requester's QP as destination. The QP number of the requester is not
 * in the data packets, so pair by addresses: the reverse flow with the same
 * UDP source port (RoCE NICs derive it from both QP numbers, the same both
 * ways), else the only reverse flow between the two hosts.
 */
static int pair_reverse(struct analysis *a)
{
	struct pair_entry *e = calloc(a->n_flows ? a->n_flows : 1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < a->n_flows; i++) {
		const struct flow_key *k = &a->flows[i].r->key;

		memcpy(e[i].k.a, k->src, 16);
		memcpy(e[i].k.b, k->dst, 16);
		e[i].k.vni = k->vni;
		e[i].k.sport = k->sport;
		e[i].flow = i;
	}
	qsort(e, a->n_flows, sizeof(*e), cmp_pair);
	for (size_t i = 0; i < a->n_flows; i++) {
		const struct flow_key *k = &a->flows[i].r->key;
		struct pair_key want = {.vni = k->vni, .sport = k->sport};
		size_t lo = 0, hi = a->n_flows, first, n = 0;
		int same_port = -1;

		memcpy(want.a, k->dst, 16);
		memcpy(want.b, k->src, 16);
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (cmp_pair_prefix(&e[mid].k, &want) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		first = lo;
		for (size_t j = first; j < a->n_flows && !cmp_pair_prefix(&e[j].k, &want); j++) {
			n++;
			if (e[j].k.sport == want.sport && same_port < 0)
				same_port = e[j].flow;
		}
		if (same_port >= 0)
			a->flows[i].reverse = same_port;
		else if (n == 1)
			a->flows[i].reverse = e[first].flow;
	}
	free(e);
	return 0;
}

static int add_collision(struct analysis *a, const struct collision *c)
{
	int err = buf_grow((void **)&a->collisions, &a->cap_collisions, a->n_collisions + 1,
			   sizeof(*a->collisions));

	if (!err)
		a->collisions[a->n_collisions++] = *c;
	return err;
}

/*
 * Two or more elephants share one uplink while another uplink could take
 * one of them: within its speed, or (speed unknown) without becoming as
 * loaded as the shared uplink is now.
 */
static int find_collisions(struct analysis *a)
{
	for (int p = 0; p < a->n_paths; p++) {
		const struct path_view *loaded = &a->paths[p];
		struct collision c = {.path = p, .idle_path = -1};
		double smallest = INFINITY;
		int err;

		if (loaded->elephants < 2)
			continue;
		for (size_t i = 0; i < a->n_flows; i++) {
			const struct flow_view *v = &a->flows[i];

			if (v->path != p || !v->elephant)
				continue;
			if (c.n_flows < AN_ALERT_FLOWS)
				c.flows[c.n_flows++] = i;
			if (v->bps < smallest)
				smallest = v->bps;
		}
		for (int q = 0; q < a->n_paths; q++) {
			const struct path_view *idle = &a->paths[q];
			/* Room: the idle uplink's speed, else moving one elephant lowers the peak.
			 */
			bool room = idle->speed_bps > 0 ? idle->bps + smallest <= idle->speed_bps
							: idle->bps + smallest < loaded->bps;

			if (q == p || idle->elephants >= loaded->elephants - 1 || !room)
				continue;
			if (c.idle_path < 0 || idle->bps < a->paths[c.idle_path].bps)
				c.idle_path = q;
		}
		if (c.idle_path < 0)
			continue;
		err = add_collision(a, &c);
		if (err)
			return err;
	}
	return 0;
}

/* The hash model's path for every data flow, and elephants predicted to share one. */
static int predict(struct analysis *a, const struct analysis_opts *o)
{
	int per_path[AN_MAX_PATHS] = {};
	__u32 n = o->hash.n_paths < AN_MAX_PATHS ? o->hash.n_paths : AN_MAX_PATHS;

	if (!o->predict || !n)
		return 0;
	for (size_t i = 0; i < a->n_flows; i++) {
		struct flow_view *v = &a->flows[i];

		if (!v->is_data)
			continue;
		v->predicted_path = hash_path(&o->hash, &v->r->key) % n;
		per_path[v->predicted_path] += v->elephant;
	}
	/* When the model's paths are this group's uplinks, in order. */
	if ((int)n == a->n_paths)
		for (int p = 0; p < a->n_paths; p++)
			a->paths[p].predicted_elephants = per_path[p];
	for (__u32 p = 0; p < n; p++) {
		struct collision c = {.path = p, .idle_path = -1, .predicted = true};
		int err;

		if (per_path[p] < 2)
			continue;
		for (size_t i = 0; i < a->n_flows && c.n_flows < AN_ALERT_FLOWS; i++)
			if (a->flows[i].elephant && a->flows[i].predicted_path == (int)p)
				c.flows[c.n_flows++] = i;
		for (__u32 q = 0; q < n; q++)
			if (c.idle_path < 0 || per_path[q] < per_path[c.idle_path])
				c.idle_path = q;
		err = add_collision(a, &c);
		if (err)
			return err;
	}
	return 0;
}

static int remember(struct analysis *a, const struct snapshot *s)
{
	int err = buf_grow((void **)&a->prev, &a->cap_prev, s->n_flows, sizeof(*a->prev));

	if (err)
		return err;
	a->n_prev = s->n_flows;
	for (size_t i = 0; i < s->n_flows; i++) {
		const struct flow_record *r = &s->flows[i];
		struct prev_flow *p = &a->prev[i];

		p->key = r->key;
		flow_delta_of(&p->c, &r->c);
		p->elephant = a->flows[i].elephant;
	}
	memcpy(a->prev_totals, s->totals, sizeof(a->prev_totals));
	a->prev_taken_ns = s->taken_ns;
	a->have_prev = true;
	return index_prev(a);
}

int analysis_update(struct analysis *a, const struct snapshot *s, const struct report_opts *ro,
		    const struct analysis_opts *o, double span_s)
{
	double dt;
	int err;

	if (a->have_prev && s->taken_ns > a->prev_taken_ns)
		dt = (s->taken_ns - a->prev_taken_ns) / 1e9;
	else
		dt = span_s > 0 ? span_s : flows_span_s(s);
	if (dt <= 0)
		dt = 1e-3; /* one frame, or all in one instant: rates over 1 ms */
	a->interval_s = dt;
	for (int i = 0; i < FP_CNT_MAX; i++)
		a->totals_delta[i] = s->totals[i] - (a->have_prev ? a->prev_totals[i] : 0);

	init_paths(a, ro);
	a->n_collisions = 0;
	a->n_alerts = 0;
	a->n_entropy = 0;
	err = compute_rates(a, s, dt);
	if (!err) {
		mark_elephants(a, o);
		sum_paths(a);
		err = pair_reverse(a);
	}
	if (!err)
		err = find_collisions(a);
	if (!err)
		err = predict(a, o);
	if (!err)
		err = detect_all(a, s, o);
	if (!err)
		err = remember(a, s);
	return err;
}

int analysis_find(const struct analysis *a, const struct flow_key *k)
{
	for (size_t i = 0; i < a->n_flows; i++)
		if (!memcmp(&a->flows[i].r->key, k, sizeof(*k)))
			return i;
	return -1;
}

void analysis_free(struct analysis *a)
{
	free(a->flows);
	free(a->collisions);
	free(a->alerts);
	free(a->entropy);
	free(a->prev);
	free(a->prev_index);
	memset(a, 0, sizeof(*a));
}
