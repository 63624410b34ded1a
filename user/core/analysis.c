// SPDX-License-Identifier: GPL-2.0
/*
 * analysis.c - rates and elephants; paths.c makes the paths and weighs
 * their balance, collisions.c finds where elephants collide, joins.c
 * pairs the flows. The detectors that turn them into
 * alerts are in detect.c.
 */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis.h"
#include "util/buf.h"
#include "util/format.h"
#include "probe/par.h"
#include "util/kindex.h"
#include "util/prefetch.h"
#include "core/collisions.h"
#include "core/detect.h"
#include "core/joins.h"
#include "core/paths.h"

/* Hysteresis: an elephant stays one until it falls below this share of the threshold. */
#define ELEPHANT_HOLD  0.8
#define ELEPHANT_SHARE 0.10
/*
 * A share of the busiest rate needs a floor: in a quiet capture the
 * busiest flow may carry a few kb/s, and nothing that slow is an
 * elephant. --elephant-rate overrides it.
 */
#define ELEPHANT_FLOOR_BPS 1e6

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
    [ALERT_ROCE_STOPPED] = "roce_stopped",
    [ALERT_PFC_STORM] = "pfc_storm",
    [ALERT_PFC_WRONG_PRIORITY] = "pfc_wrong_priority",
    [ALERT_LOSSLESS_DISCARDS] = "lossless_discards",
    [ALERT_NIC_CNP_MISMATCH] = "nic_cnp_mismatch",
    [ALERT_NIC_SEQ_ERRORS] = "nic_seq_errors",
    [ALERT_NIC_ACK_TIMEOUTS] = "nic_ack_timeouts",
    [ALERT_NIC_RNR_RETRIES] = "nic_rnr_retries",
    [ALERT_LOSSY_ROCE] = "lossy_roce",
};

const char *alert_type_name(enum alert_type t)
{
	return t < ALERT_TYPE_MAX ? type_names[t] : "?";
}

struct alert *alert_push(struct alert **v, size_t *n, size_t *cap, enum alert_type type,
			 enum severity sev, int path, const char *subject)
{
	struct alert *al;

	if (buf_grow((void **)v, cap, *n + 1, sizeof(**v)))
		return NULL;
	al = &(*v)[(*n)++];
	memset(al, 0, sizeof(*al));
	al->type = type;
	al->severity = sev;
	al->path = path;
	snprintf(al->subject, sizeof(al->subject), "%s", subject ?: "");
	return al;
}

void alert_printf(char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, AN_MSG_LEN, fmt, ap);
	va_end(ap);
}

const char *severity_name(enum severity s)
{
	return s == SEV_CRITICAL ? "critical" : s == SEV_WARNING ? "warning" : "info";
}

/*
 * prev[]'s records ahead of a loop over the flows, at a million far apart
 * in memory. always_inline: GCC finds a function of nothing but prefetches
 * pure, and drops its calls.
 */
#define PREV_AHEAD 16

static inline __attribute__((always_inline)) void prefetch_prev(const struct analysis *a,
								const struct snapshot *s, size_t i)
{
	__u32 rid;

	if (i >= s->n_flows)
		return;
	rid = analysis_rid(a, i);
	/* Every line of the record (200 bytes: four lines, or five across a boundary). */
	if (rid < a->init_prev)
		prefetch_lines(&a->prev[rid], sizeof(a->prev[0]));
}

/* prev[] by key, each flow's rid + 1, from nothing: room for as many flows again. */
static int index_prev(struct analysis *a, const struct snapshot *s)
{
	const size_t klen = sizeof(a->prev[0].key);
	int err = kindex_reset(&a->prev_index, 2 * s->n_flows);
	__u64 h[KINDEX_AHEAD];

	for (size_t i = 0; !err && i < s->n_flows; i += KINDEX_AHEAD) {
		size_t n = kindex_chunk(i, s->n_flows);

		for (size_t j = 0; j < n; j++) {
			h[j] = kindex_hash(&s->flows[i + j].key, klen, 0);
			kindex_prefetch(&a->prev_index, h[j]);
		}
		for (size_t j = 0; j < n; j++) {
			__u32 rid = analysis_rid(a, i + j);

			*kindex_slot_hashed(&a->prev_index, h[j], &a->prev[rid].key, klen, a->prev,
					    sizeof(*a->prev)) = rid + 1;
		}
	}
	a->index_n = err ? 0 : s->n_flows;
	return err;
}

/*
 * The flows new at their rids into the index (their keys already in
 * prev[]). A key's first entry is the one lookups find, so it is the one
 * moved to the new rid; an entry whose rid now holds another key stays
 * behind, found by no key.
 */
static void index_fresh(struct analysis *a)
{
	const size_t klen = sizeof(a->prev[0].key);
	__u64 h[KINDEX_AHEAD];

	for (size_t f = 0; f < a->n_fresh; f += KINDEX_AHEAD) {
		size_t m = kindex_chunk(f, a->n_fresh);

		for (size_t j = 0; j < m; j++) {
			h[j] = kindex_hash(&a->prev[analysis_rid(a, a->fresh[f + j])].key, klen, 0);
			kindex_prefetch(&a->prev_index, h[j]);
		}
		for (size_t j = 0; j < m; j++) {
			__u32 rid = analysis_rid(a, a->fresh[f + j]);
			__u32 *slot = kindex_slot_hashed(&a->prev_index, h[j], &a->prev[rid].key,
							 klen, a->prev, sizeof(*a->prev));

			a->index_n += !*slot;
			*slot = rid + 1;
		}
	}
}

/*
 * Flow i's record of the previous refresh: at its rid while the flow
 * stays where it was, else found by key. *same: it was at its rid.
 */
static struct prev_flow *find_prev(const struct analysis *a, const struct flow_key *k, __u32 rid,
				   bool *same)
{
	struct prev_flow *p;
	__u32 slot;

	*same = false;
	if (!a->have_prev)
		return NULL;
	p = rid < a->init_prev ? &a->prev[rid] : NULL;
	if (p && p->gen == a->gen && !memcmp(&p->key, k, sizeof(*k))) {
		*same = true;
		return p;
	}
	slot = kindex_find(&a->prev_index, k, sizeof(*k), a->prev, sizeof(*a->prev));
	return slot && a->prev[slot - 1].gen == a->gen ? &a->prev[slot - 1] : NULL;
}

/*
 * Opcode bitmaps of what a flow carried: data are requests or read
 * responses, the packets DCQCN and the lossless class are for: everything
 * of the RC/UC/RD/UD/XRC transports but ACKs, atomic ACKs and CNPs (opcode
 * 0x81, the whole 0x80 transport). Requests are data but read responses:
 * what a requester sends.
 */
static __u64 data_ops[4], request_ops[4];

static void op_masks(void)
{
	static bool made;

	for (int op = 0; op < 256 && !made; op++) {
		int low = op & FP_OP_MASK, transport = op & FP_TRANSPORT_MASK;

		if (transport == FP_TRANSPORT_CNP || low == FP_OP_ACK || low == FP_OP_ATOMIC_ACK)
			continue;
		data_ops[op >> 6] |= 1ULL << (op & 63);
		if (low < FP_OP_READ_RESP_FIRST || low > FP_OP_READ_RESP_ONLY)
			request_ops[op >> 6] |= 1ULL << (op & 63);
	}
	made = true;
}

static bool carries(const struct flow_counters *c, const __u64 ops[4])
{
	return (c->opcodes[0] & ops[0]) | (c->opcodes[1] & ops[1]) | (c->opcodes[2] & ops[2]) |
	       (c->opcodes[3] & ops[3]);
}

/* Over a whole run: since the last RoCE packet, to the snapshot (a capture's end). */
static double quiet_at_end(const struct analysis *a, const struct snapshot *s)
{
	__u64 last = a->last_seen_ns;

	return last && s->taken_ns > last ? (s->taken_ns - last) / 1e9 : 0;
}

_Static_assert(offsetof(struct flow_delta, ce) == FC_CE * sizeof(__u64) &&
		   offsetof(struct flow_delta, becn) == FC_BECN * sizeof(__u64) &&
		   sizeof(struct flow_delta) == FC_MAX * sizeof(__u64),
	       "struct flow_delta follows enum flow_cnt");

static void flow_delta_of(struct flow_delta *d, const struct flow_counters *c)
{
	for (int i = 0; i < FC_MAX; i++)
		d->v[i] = flow_counter(c, i);
}

static void flow_delta_sub(struct flow_delta *d, const struct flow_delta *then)
{
	for (int i = 0; i < FC_MAX; i++)
		d->v[i] -= then->v[i];
}

struct place_job {
	struct analysis *a;
	const struct snapshot *s;
	bool parts;	      /* more than one part: rids are taken atomically */
	bool repeat[PAR_MAX]; /* set by a part that found a rid taken */
};

/*
 * Rid r for this pass; false: a flow had it already. In parts, a rid is
 * taken by exchanging its pass, so that two parts that meet at one rid see
 * it: one of them finds this pass there already.
 */
static inline bool take_rid(struct rid_state *rids, __u32 r, __u32 pass, bool parts)
{
	__u32 was;

	if (parts)
		return __atomic_exchange_n(&rids[r].pass, pass, __ATOMIC_RELAXED) != pass;
	was = rids[r].pass;
	rids[r].pass = pass;
	return was != pass;
}

/* Flows lo to hi under their rids (the analysis' fields in locals: the stores alias them). */
static void place_part(void *ctx, int part, size_t lo, size_t hi)
{
	struct place_job *j = ctx;
	const struct flow_record *flows = j->s->flows;
	struct rid_state *rids = j->a->rids;
	__u32 *pos_rid = j->a->pos_rid, pass = j->a->pass;
	size_t n = j->a->n_rids;
	bool by_pos = j->a->by_pos, parts = j->parts;

	for (size_t i = lo; i < hi; i++) {
		__u32 rid = by_pos ? i : flows[i].rid;

		if (rid >= n || !take_rid(rids, rid, pass, parts)) {
			j->repeat[part] = true;
			return;
		}
		rids[rid].pos = i;
		pos_rid[i] = rid;
	}
}

/*
 * Every flow's place under its rid, once: rids a snapshot repeats or
 * exceeds (not collect's) are not places to keep state by, so the flows'
 * places in the snapshot serve instead. Returns 0 or -ENOMEM.
 */
static int place_rids(struct analysis *a, const struct snapshot *s)
{
	struct place_job j = {.a = a, .s = s};

	a->by_pos = !s->n_rids;
	for (;;) {
		size_t n = a->by_pos ? s->n_flows : s->n_rids;
		bool repeat = false;
		int err = buf_grow_zeroed((void **)&a->rids, &a->cap_rids, &a->init_rids, n,
					  sizeof(*a->rids))
			      ?: buf_grow((void **)&a->pos_rid, &a->cap_pos_rid, s->n_flows,
					  sizeof(*a->pos_rid));

		if (err)
			return err;
		a->n_rids = n;
		a->pass++;
		memset(j.repeat, 0, sizeof(j.repeat));
		j.parts = par_parts(s->n_flows, ANALYSIS_PART_MIN) > 1;
		par_for(s->n_flows, ANALYSIS_PART_MIN, place_part, &j);
		for (int part = 0; part < PAR_MAX; part++)
			repeat |= j.repeat[part];
		if (!repeat)
			return 0;
		a->by_pos = true;
	}
}

/* A path's flows, summed by one part of a loop. */
struct path_sums {
	__u64 flows, packets, bytes;
	__u64 moved; /* bytes since the last refresh: a sum of rates, in any order */
};

struct rates_job {
	struct analysis *a;
	const struct snapshot *s;
	const struct analysis_opts *o;
	double dt;
	/*
	 * Each part's: its flows' bytes moved, their latest last packet, its
	 * fresh flows (a->fresh from first), and each path's flows summed
	 * (from the record's lines the loop reads anyway).
	 */
	__u64 moved[PAR_MAX], last_seen[PAR_MAX];
	size_t first[PAR_MAX], n_fresh[PAR_MAX];
	struct path_sums sum[PAR_MAX][AN_MAX_PATHS];
};

/*
 * Flows lo to hi. Parts write disjoint records: a flow's view, and prev[]
 * only at the flow's own rid with the flow's key, which no other flow has.
 */
static void rates_part(void *ctx, int part, size_t lo, size_t hi)
{
	struct rates_job *j = ctx;
	struct analysis *a = j->a;
	const struct snapshot *s = j->s;
	double dt = j->dt;
	__u32 *fresh = &a->fresh[lo];
	size_t n_fresh = 0;
	__u64 moved = 0, last_seen = 0;

	for (size_t i = lo; i < lo + PREV_AHEAD && i < hi; i++)
		prefetch_prev(a, s, i);
	for (size_t i = lo; i < hi; i++) {
		const struct flow_record *r = &s->flows[i];
		struct flow_view *v = &a->flows[i];
		struct flow_delta now; /* its counters now: prev[]'s next */
		struct prev_flow *p;
		bool same;
		int seen;

		if (i + PREV_AHEAD < hi)
			prefetch_prev(a, s, i + PREV_AHEAD);
		p = find_prev(a, &r->key, analysis_rid(a, i), &same);
		if (!same)
			fresh[n_fresh++] = (__u32)i;
		memset(v, 0, sizeof(*v));
		v->r = r;
		a->dest_qp[i] = r->key.dest_qp;
		flow_delta_of(&now, &r->c);
		v->d = now;
		v->elephant = p && a->was_elephant[p - a->prev];
		/* A flow evicted and back since the last refresh counts from zero. */
		if (p && p->c.packets <= r->c.packets)
			flow_delta_sub(&v->d, &p->c);
		if (same) {
			p->c = now;
			p->gen = a->gen + 1;
		}
		v->bps = v->d.bytes * 8.0 / dt;
		moved += v->d.bytes;
		/* In a line the loop reads anyway: no pass of its own over the records. */
		if (r->c.last_seen_ns > last_seen)
			last_seen = r->c.last_seen_ns;
		v->path = analysis_path_of(a, flow_point_id(&r->key));
		if (v->path >= 0) {
			struct path_sums *ps = &j->sum[part][v->path];

			ps->flows++;
			ps->packets += r->c.packets;
			ps->bytes += r->c.bytes;
			ps->moved += v->d.bytes;
		}
		v->reverse = -1;
		v->predicted_path = -1;
		v->is_data = carries(&r->c, data_ops);
		v->is_request = v->is_data && carries(&r->c, request_ops);
		/* Over an interval, only flows it saw: a silent one is no evidence. */
		v->off_plan = (a->whole_run || v->d.packets) &&
			      detect_wrong_class(r, j->o, v->is_data, a->whole_run, &seen);
	}
	j->moved[part] = moved;
	j->last_seen[part] = last_seen;
	j->first[part] = lo;
	j->n_fresh[part] = n_fresh;
}

/*
 * Rates, and prev[] made this refresh's as it is read (the next gen):
 * a flow at its rid has its counters written there at once, its record
 * in cache; keys are unique, so no other flow reads that record. A flow
 * new at its rid is written after the loop (write_fresh()): the record
 * there may be another flow's, found by key, that moved. *group_bps: the
 * flows' bps summed (their bytes, then divided: the same in any order).
 */
static int compute_rates(struct analysis *a, const struct snapshot *s,
			 const struct analysis_opts *o, double dt, double *group_bps)
{
	int err = buf_grow((void **)&a->flows, &a->cap_flows, s->n_flows, sizeof(*a->flows));
	struct rates_job j = {.a = a, .s = s, .o = o, .dt = dt};
	__u64 moved = 0; /* bytes, every flow's since the last refresh */

	if (!err)
		err = buf_grow((void **)&a->fresh, &a->cap_fresh, s->n_flows, sizeof(*a->fresh));
	if (!err)
		err = buf_grow((void **)&a->dest_qp, &a->cap_dest_qp, s->n_flows,
			       sizeof(*a->dest_qp));
	if (!err)
		err = place_rids(a, s);
	/* Grown records are zeroed: gen 0 is no refresh's, so none is found. */
	if (!err)
		err = buf_grow_zeroed((void **)&a->prev, &a->cap_prev, &a->init_prev, a->n_rids,
				      sizeof(*a->prev));
	if (!err)
		err = buf_grow_zeroed((void **)&a->was_elephant, &a->cap_was_elephant,
				      &a->init_was_elephant, a->n_rids, sizeof(*a->was_elephant));
	if (err)
		return err;
	op_masks();
	a->n_flows = s->n_flows;
	par_for(s->n_flows, ANALYSIS_PART_MIN, rates_part, &j);
	/* Each part's fresh flows after the last part's: in order, as one loop has them. */
	a->n_fresh = par_gather(a->fresh, sizeof(*a->fresh), j.first, j.n_fresh);
	a->last_seen_ns = 0;
	for (int part = 0; part < PAR_MAX; part++) {
		moved += j.moved[part];
		if (j.last_seen[part] > a->last_seen_ns)
			a->last_seen_ns = j.last_seen[part];
	}
	*group_bps = moved * 8.0 / dt; /* whole bytes summed: the same in any order */
	for (int path = 0; path < a->n_paths; path++) {
		struct path_view *p = &a->paths[path];

		moved = 0;
		for (int part = 0; part < PAR_MAX; part++) {
			const struct path_sums *sum = &j.sum[part][path];

			p->flows += sum->flows;
			p->packets += sum->packets;
			p->bytes += sum->bytes;
			moved += sum->moved;
		}
		p->bps = moved * 8.0 / dt;
	}
	/* rids are unique, so as many flows each at its old rid are the same flows. */
	a->same_flows = a->have_prev && a->n_prev == s->n_flows && !a->n_fresh;
	return 0;
}

/* The flows new at their rids into prev[], once every flow has read its record. */
static void write_fresh(struct analysis *a, const struct snapshot *s)
{
	for (size_t f = 0; f < a->n_fresh; f++) {
		const struct flow_record *r = &s->flows[a->fresh[f]];
		struct prev_flow *p = &a->prev[analysis_rid(a, a->fresh[f])];

		p->key = r->key;
		p->gen = a->gen + 1;
		flow_delta_of(&p->c, &r->c);
	}
}

/* The threshold for a flow on path (-1: on none). */
static double elephant_threshold(const struct analysis *a, const struct analysis_opts *o, int path)
{
	double thr;

	if (o->elephant_bps > 0)
		return o->elephant_bps;
	if (path >= 0 && a->paths[path].speed_bps > 0)
		thr = ELEPHANT_SHARE * a->paths[path].speed_bps;
	else
		thr = ELEPHANT_SHARE * a->group_peak_bps;
	return thr > ELEPHANT_FLOOR_BPS ? thr : ELEPHANT_FLOOR_BPS;
}

/*
 * The threshold shown (a->elephant_bps): the one applied to the uplinks'
 * flows, a share of their speed (the slowest's, where they differ); a
 * share of the group's peak where no uplink has a speed.
 */
static double shown_threshold(const struct analysis *a, const struct analysis_opts *o)
{
	double thr = 0;

	for (int p = 0; p < a->n_paths; p++) {
		double t = elephant_threshold(a, o, p);

		if (a->paths[p].speed_bps > 0 && (!thr || t < thr))
			thr = t;
	}
	return thr ? thr : elephant_threshold(a, o, -1);
}

/* mark_elephants()'s pass: each part counts its paths' elephants apart. */
struct elephants_job {
	struct analysis *a;
	const struct analysis_opts *o;
	__u64 elephants[PAR_MAX][AN_MAX_PATHS]; /* each part's, by path */
};

static void elephants_part(void *ctx, int part, size_t lo, size_t hi)
{
	struct elephants_job *j = ctx;
	struct analysis *a = j->a;

	for (size_t i = lo; i < hi; i++) {
		struct flow_view *v = &a->flows[i];
		double thr = elephant_threshold(a, j->o, v->path);

		if (thr <= 0 || !v->is_data)
			v->elephant = false;
		else
			v->elephant =
			    v->bps >= thr || (v->elephant && v->bps >= ELEPHANT_HOLD * thr);
		a->was_elephant[analysis_rid(a, i)] = v->elephant;
		if (v->path >= 0)
			j->elephants[part][v->path] += v->elephant;
	}
}

/* Elephants by this refresh's threshold, and each path's counted (its flows: compute_rates()). */
static void mark_elephants(struct analysis *a, const struct analysis_opts *o, double group_bps)
{
	struct elephants_job j = {.a = a, .o = o};

	if (group_bps > a->group_peak_bps)
		a->group_peak_bps = group_bps;
	a->elephant_bps = shown_threshold(a, o);

	par_for(a->n_flows, ANALYSIS_PART_MIN, elephants_part, &j);
	for (int path = 0; path < a->n_paths; path++)
		for (int part = 0; part < PAR_MAX; part++)
			a->paths[path].elephants += j.elephants[part][path];
}

/* prev[], written as it was read (compute_rates(), write_fresh()), indexed: the next gen. */
static int remember(struct analysis *a, const struct snapshot *s)
{
	bool rebuild = !a->index_ok || a->index_n + a->n_fresh > a->prev_index.size / 2;
	int err = 0;

	a->index_ok = false;
	a->gen++;
	a->n_prev = s->n_flows;
	if (rebuild)
		err = index_prev(a, s);
	else
		index_fresh(a);
	memcpy(a->prev_totals, s->totals, sizeof(a->prev_totals));
	a->prev_taken_ns = s->taken_ns;
	a->have_prev = true;
	a->index_ok = !err;
	a->indexed = !err;
	return err;
}

int analysis_update(struct analysis *a, const struct snapshot *s, const struct source_desc *d,
		    const struct analysis_opts *o, double span_s)
{
	double dt, group_bps;
	int err;

	if (a->have_prev && s->taken_ns > a->prev_taken_ns)
		dt = (s->taken_ns - a->prev_taken_ns) / 1e9;
	else
		dt = span_s > 0 ? span_s : snapshot_span_s(s);
	if (!(dt >= 1e-3))
		dt = 1e-3; /* one frame, or all within 1 ms: rates over 1 ms */
	a->interval_s = dt;
	a->whole_run = !a->have_prev;
	a->totals_s = a->whole_run && d->clock_s > dt ? d->clock_s : dt;
	a->indexed = false;
	for (int i = 0; i < SNAP_CNT_MAX; i++)
		a->totals_delta[i] = s->totals[i] - (a->have_prev ? a->prev_totals[i] : 0);
	/*
	 * Silence counts where every packet is seen (a sampled source may
	 * just draw none), by the time the snapshots moved on: dt is longer
	 * than that where they did not.
	 */
	if (a->whole_run) {
		a->roce_quiet_s = 0; /* quiet_at_end(), once the rates have the last packet */
	} else if (a->totals_delta[FP_CNT_ROCE] || !d->every_packet) {
		a->roce_quiet_s = 0;
	} else if (a->roce_seen && s->taken_ns > a->prev_taken_ns) {
		a->roce_quiet_s += (s->taken_ns - a->prev_taken_ns) / 1e9;
	}
	a->roce_seen |= a->totals_delta[FP_CNT_ROCE] && d->every_packet;

	analysis_init_paths(a, d);
	analysis_add_mirror_paths(a, s, &o->mirror_names);
	a->n_collisions = 0;
	a->n_alerts = 0;
	a->n_entropy = 0;
	err = compute_rates(a, s, o, dt, &group_bps);
	if (!err) {
		if (a->whole_run && d->every_packet)
			a->roce_quiet_s = quiet_at_end(a, s);
		write_fresh(a, s);
		mark_elephants(a, o, group_bps);
		analysis_balance_groups(a);
		err = analysis_join(a);
	}
	if (!err)
		err = analysis_entropy(a);
	if (!err)
		err = analysis_collisions(a);
	if (!err)
		err = analysis_predict(a, o);
	if (!err)
		err = detect_all(a, s, o);
	if (!err)
		err = remember(a, s);
	if (err) {
		/*
		 * prev[] is part this refresh's, part the last's: the next
		 * refresh is a first one, its rates over the flows' lives.
		 */
		a->have_prev = false;
		a->index_ok = false;
		/* And what it wrote (gen + 1) matches no later refresh's gen. */
		a->gen++;
		a->joins.valid = false; /* they may not be prev[]'s */
	}
	return err;
}

void analysis_rank(const struct analysis *a, int list[AN_ALERT_FLOWS], int *n, size_t i)
{
	int k = *n < AN_ALERT_FLOWS ? (*n)++ : AN_ALERT_FLOWS;

	/* Move the later ones down a place, the last off the end when full. */
	for (; k > 0 && analysis_before(a, i, list[k - 1]); k--)
		if (k < AN_ALERT_FLOWS)
			list[k] = list[k - 1];
	if (k < AN_ALERT_FLOWS)
		list[k] = (int)i;
}

const char *analysis_window(const struct analysis *a, bool totals, char *buf, size_t len)
{
	if (!a->whole_run)
		return fmt_window(buf, len, a->interval_s, FMT_WINDOW_LAST);
	if (totals || !analysis_flows_narrower(a))
		return fmt_window(buf, len, totals ? a->totals_s : a->interval_s, FMT_WINDOW_WHOLE);
	return fmt_window(buf, len, a->interval_s, FMT_WINDOW_TRAFFIC);
}

int analysis_find(const struct analysis *a, const struct flow_key *k)
{
	/* After an update prev[] holds this snapshot's flows, indexed by key. */
	if (a->indexed) {
		__u32 slot = kindex_find(&a->prev_index, k, sizeof(*k), a->prev, sizeof(*a->prev));

		/* An entry left behind finds a flow gone since: an older gen. */
		if (!slot || a->prev[slot - 1].gen != a->gen)
			return -1;
		return a->rids[slot - 1].pos;
	}
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
	free(a->was_elephant);
	free(a->rids);
	free(a->pos_rid);
	free(a->fresh);
	free(a->dest_qp);
	kindex_free(&a->prev_index);
	analysis_joins_free(&a->joins);
	memset(a, 0, sizeof(*a));
}
