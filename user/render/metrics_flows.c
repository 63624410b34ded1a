// SPDX-License-Identifier: GPL-2.0
/*
 * metrics_flows.c - the per-flow families (fabprobe_flow_*): series only
 * for the top-K flows by rate (--top-flows), each the sum of every flow of
 * the table that has its labels, so a series' counters never go back when
 * another of its flows becomes the faster. docs/metrics.md lists them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/metrics.h"
#include "render/metrics_write.h"
#include "util/format.h"
#include "util/kindex.h"

struct pick {
	double bps;
	__u64 bytes;
	size_t idx;
};

/* x ranks below y: a lower rate, then fewer bytes in the interval, then analysis_before(). */
static bool pick_less(const struct analysis *an, const struct pick *x, const struct pick *y)
{
	if (x->bps != y->bps)
		return x->bps < y->bps;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes;
	return analysis_before(an, y->idx, x->idx);
}

static void sift_down(const struct analysis *an, struct pick *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct pick t;

		if (l < n && pick_less(an, &h[l], &h[m]))
			m = l;
		if (r < n && pick_less(an, &h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static int pick_cmp_desc(const void *x, const void *y, void *an)
{
	return pick_less(an, x, y) ? 1 : pick_less(an, y, x) ? -1 : 0;
}

/*
 * The K flows with the highest rate (bytes, then analysis_before() break
 * ties: the same flows in any order of the snapshot), largest first:
 * a min-heap of K, so 100k flows cost n log K, not a sort of all of them.
 * Flows idle over the interval are left out.
 */
static size_t top_flows(const struct analysis *a, unsigned int k, struct pick *h)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n_flows; i++) {
		const struct flow_view *f = &a->flows[i];
		struct pick p = {f->bps, f->d.bytes, i};

		if (!f->d.bytes)
			continue;
		if (n < k) {
			h[n++] = p;
			if (n == k)
				for (size_t j = k / 2 + 1; j-- > 0;)
					sift_down(a, h, n, j);
		} else if (pick_less(a, &h[0], &p)) {
			h[0] = p;
			sift_down(a, h, n, 0);
		}
	}
	if (n > 1)
		qsort_r(h, n, sizeof(*h), pick_cmp_desc, (void *)a);
	return n;
}

struct flow_labels {
	const char *iface;
	const char *dir;
	char src[FP_ADDR_STRLEN], dst[FP_ADDR_STRLEN];
	char sport[8], dest_qp[12], vni[12];
	const char *path;
	char ifbuf[32];
	size_t idx;
};

static bool same_labels(const struct flow_labels *a, const struct flow_labels *b)
{
	/* path too: a flow copied by two mirror sessions differs only there. */
	return !strcmp(a->iface, b->iface) && a->dir == b->dir && !strcmp(a->src, b->src) &&
	       !strcmp(a->dst, b->dst) && !strcmp(a->sport, b->sport) &&
	       !strcmp(a->dest_qp, b->dest_qp) && !strcmp(a->vni, b->vni) &&
	       !strcmp(a->path, b->path);
}

static int flow_label_set(const struct flow_labels *f, struct label *l)
{
	l[0] = (struct label){"interface", f->iface};
	l[1] = (struct label){"direction", f->dir};
	l[2] = (struct label){"src", f->src};
	l[3] = (struct label){"dst", f->dst};
	l[4] = (struct label){"sport", f->sport};
	l[5] = (struct label){"dest_qp", f->dest_qp};
	l[6] = (struct label){"vni", f->vni};
	l[7] = (struct label){"path", f->path};
	return 8;
}

/* What one flow's labels say, formatted as they are written. */
static void flow_labels_fill(const struct metrics_view *v, size_t idx, struct flow_labels *x)
{
	const struct analysis *a = v->an;
	const struct flow_view *f = &a->flows[idx];
	const struct flow_key *key = &f->r->key;

	memset(x, 0, sizeof(*x));
	x->idx = idx;
	x->iface = source_point_name(v->src, key->ifindex, x->ifbuf, sizeof(x->ifbuf));
	x->dir = metrics_dir_names[key->dir & 1];
	fmt_addr(x->src, sizeof(x->src), key->src, key->flags & FP_FLOW_IPV6);
	fmt_addr(x->dst, sizeof(x->dst), key->dst, key->flags & FP_FLOW_IPV6);
	snprintf(x->sport, sizeof(x->sport), "%u", key->sport);
	snprintf(x->dest_qp, sizeof(x->dest_qp), "%u", key->dest_qp);
	if (key->flags & FP_FLOW_VXLAN)
		snprintf(x->vni, sizeof(x->vni), "%u", key->vni);
	x->path = f->path >= 0 && f->path < a->n_paths ? a->paths[f->path].name : "";
}

/* A top flow's series: the sums of the flows that share its labels. */
struct flow_sum {
	double bps;
	__u64 bytes, packets, ce, cnp, retransmits;
	bool elephant, sampled;
};

/*
 * A hash of the key fields behind the labels but the interface and path,
 * whose names are compared as strings (an interface made again has a new
 * ifindex under its old name): flows with equal labels hash alike.
 */
static __u32 label_hash(const struct flow_key *k)
{
	__u8 b[48] = {}; /* 44 bytes of fields: kindex_hash takes sixteen a round */
	size_t n = 0;

	memcpy(b + n, k->src, 16), n += 16;
	memcpy(b + n, k->dst, 16), n += 16;
	memcpy(b + n, &k->sport, 2), n += 2;
	memcpy(b + n, &k->dest_qp, 4), n += 4;
	if (k->flags & FP_FLOW_VXLAN)
		memcpy(b + n, &k->vni, 4);
	n += 4;
	b[n++] = k->dir & 1;
	b[n++] = k->flags & (FP_FLOW_IPV6 | FP_FLOW_VXLAN);
	return (__u32)kindex_hash(b, sizeof(b), 0);
}

/* A filter of the kept series' destination QPs: a bit each, by a multiplicative hash. */
#define QP_BITS 4096

static inline size_t qp_bit_of(__u32 qp)
{
	return (qp * 0x9E3779B1u) >> 20; /* the top 12 bits: QP_BITS */
}

static void qp_bit_set(__u64 *bits, __u32 qp)
{
	bits[qp_bit_of(qp) / 64] |= 1ULL << (qp_bit_of(qp) % 64);
}

static bool qp_bit(const __u64 *bits, __u32 qp)
{
	return bits[qp_bit_of(qp) / 64] >> (qp_bit_of(qp) % 64) & 1;
}

/*
 * Sum every flow of the table into the kept series whose labels it has:
 * the flows of one series are one series' worth of traffic, so its
 * counters never go back when another of them becomes the faster, nor
 * when one of them is idle for an interval. One pass over the flows, a
 * table of the kept series by label_hash(); labels are formatted and
 * compared only for the flows that hash like a kept series.
 */
static int sum_flows(const struct metrics_view *v, const struct flow_labels *fl, size_t kept,
		     struct flow_sum *sums)
{
	const struct analysis *a = v->an;
	__u64 qps[QP_BITS / 64] = {};
	size_t size = 1, mask;
	__u32 *slot, *hash;

	while (size < 2 * kept)
		size <<= 1;
	mask = size - 1;
	slot = calloc(size, sizeof(*slot));
	hash = calloc(kept ? kept : 1, sizeof(*hash));
	if (!slot || !hash) {
		free(slot);
		free(hash);
		return -ENOMEM;
	}
	for (size_t i = 0; i < kept; i++) {
		size_t s;

		qp_bit_set(qps, a->flows[fl[i].idx].r->key.dest_qp);
		hash[i] = label_hash(&a->flows[fl[i].idx].r->key);
		for (s = hash[i] & mask; slot[s]; s = (s + 1) & mask)
			;
		slot[s] = (__u32)i + 1;
	}
	for (size_t j = 0; j < a->n_flows; j++) {
		const struct flow_view *f = &a->flows[j];
		struct flow_labels x;
		bool filled = false;
		__u32 h;

		/* Most flows have no kept series' QP: no hash for them. */
		if (!qp_bit(qps, f->r->key.dest_qp))
			continue;
		h = label_hash(&f->r->key);

		for (size_t s = h & mask; slot[s]; s = (s + 1) & mask) {
			size_t i = slot[s] - 1;
			const struct flow_counters *c = &f->r->c;
			struct flow_sum *sum = &sums[i];

			if (hash[i] != h)
				continue;
			if (!filled) {
				flow_labels_fill(v, j, &x);
				filled = true;
			}
			if (!same_labels(&fl[i], &x))
				continue;
			sum->bps += f->bps;
			sum->bytes += c->bytes;
			sum->packets += c->packets;
			sum->ce += flow_ce(c);
			sum->cnp += c->cnp;
			sum->retransmits += c->retransmits;
			sum->elephant |= f->elephant;
			sum->sampled |= f->r->samples != 0;
			break;
		}
	}
	free(slot);
	free(hash);
	return 0;
}

void metrics_render_flows(struct mw *w, const struct metrics_view *v)
{
	static const struct {
		const char *base, *help;
		enum mtype type;
	} fams[] = {
	    {"fabprobe_flow_bytes_per_second", "Rate of a top flow over the last interval",
	     MT_GAUGE},
	    {"fabprobe_flow_bytes", "Bytes of a top flow since it entered the flow table",
	     MT_COUNTER},
	    {"fabprobe_flow_packets", "Packets of a top flow since it entered the flow table",
	     MT_COUNTER},
	    {"fabprobe_flow_ce_packets", "CE-marked packets of a top flow", MT_COUNTER},
	    {"fabprobe_flow_cnp_packets", "CNPs of a top flow", MT_COUNTER},
	    {"fabprobe_flow_retransmitted_packets", "Retransmitted packets of a top flow",
	     MT_COUNTER},
	    {"fabprobe_flow_elephant", "1 when the top flow is an elephant", MT_GAUGE},
	};
	const struct analysis *a = v->an;
	unsigned int k = v->top_flows;
	struct flow_labels *fl = NULL;
	struct flow_sum *sums = NULL;
	struct pick *h = NULL;
	size_t n = 0, kept = 0;
	struct label l[8];

	if (!k)
		return; /* --top-flows 0: no per-flow families at all */
	if (k > METRICS_TOP_FLOWS_MAX)
		k = METRICS_TOP_FLOWS_MAX;
	if (a->n_flows == v->snap->n_flows) {
		h = calloc(k, sizeof(*h));
		fl = calloc(k, sizeof(*fl));
		sums = calloc(k, sizeof(*sums));
		if (h && fl && sums)
			n = top_flows(a, k, h);
	}
	/* A flow is one direction at one interface; with these labels two can coincide. */
	for (size_t i = 0; i < n; i++) {
		struct flow_labels *x = &fl[kept];
		bool dup = false;

		flow_labels_fill(v, h[i].idx, x);
		for (size_t j = 0; j < kept && !dup; j++)
			dup = same_labels(&fl[j], x);
		if (!dup)
			kept++;
	}
	if (kept && sum_flows(v, fl, kept, sums))
		kept = 0;

	for (size_t m = 0; m < sizeof(fams) / sizeof(fams[0]); m++) {
		mw_family(w, fams[m].base, fams[m].type, fams[m].help);
		for (size_t i = 0; i < kept; i++) {
			const struct flow_sum *s = &sums[i];
			int nl = flow_label_set(&fl[i], l);

			switch (m) {
			case 0:
				mw_sample_double(w, l, nl, s->bps / 8);
				break;
			case 1:
				mw_sample_u64(w, l, nl, s->bytes);
				break;
			case 2:
				mw_sample_u64(w, l, nl, s->packets);
				break;
			case 3:
				mw_sample_u64(w, l, nl, s->ce);
				break;
			case 4:
				mw_sample_u64(w, l, nl, s->cnp);
				break;
			case 5:
				/* Unknown for a sampled flow (JSON's null): no sample. */
				if (metrics_known(v, FC_RTX) && !s->sampled)
					mw_sample_u64(w, l, nl, s->retransmits);
				break;
			default:
				mw_sample_u64(w, l, nl, s->elephant);
			}
		}
	}
	free(h);
	free(fl);
	free(sums);
}
