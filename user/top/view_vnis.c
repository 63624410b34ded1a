// SPDX-License-Identifier: GPL-2.0
/* view_vnis.c - VNIs: RoCE traffic per VXLAN network, bare RoCE as "-". */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "top/ui.h"
#include "util/format.h"
#include "util/radix.h"

enum {
	VC_VNI,
	VC_FLOWS,
	VC_QPS,
	VC_ELEPH,
	VC_RATE,
	VC_PPS,
	VC_CE,
	VC_CNP,
	VC_RTX,
	VC_MAX,
};

/* Narrow terminals drop the counts before the rates: RATE and CNP/s stay at 40 columns. */
static const struct column cols[VC_MAX] = {
    [VC_VNI] = {.title = "VNI", COL_NUMBER(8)},
    [VC_FLOWS] = {.title = "FLOWS", COL_NUMBER(7), .drop = 3},
    [VC_QPS] = {.title = "QPS", COL_NUMBER(7), .drop = 5},
    [VC_ELEPH] = {.title = "ELEPHANTS", COL_NUMBER(9), .drop = 4},
    [VC_RATE] = {.title = "RATE", COL_NUMBER(9)},
    [VC_PPS] = {.title = "PPS", COL_NUMBER(5), .drop = 6},
    [VC_CE] = {COL_COUNTER(FC_CE, "/s"), COL_NUMBER(7), .drop = 1},
    [VC_CNP] = {COL_COUNTER(FC_CNP, "/s"), COL_NUMBER(7)},
    [VC_RTX] = {COL_COUNTER(FC_RTX, "/s"), COL_NUMBER(7), .drop = 2},
};

struct vni_row {
	__u32 vni;
	bool vxlan;
	double v[VC_MAX]; /* by column; v[VC_VNI] is the order of the VNI column */
};

static int build(struct ui *u, struct vstate *vs)
{
	const struct analysis *a = u->an;
	struct radix_ent *e, *by;
	struct vni_row *rows;
	size_t n = 0;
	int err = rows_grow(vs, a->n_flows, sizeof(*rows));

	e = err ? NULL : sort_room(u, a->n_flows, 0);
	if (!e)
		return -ENOMEM;
	rows = vs->rows;
	/*
	 * A flow seen at several points counts once (refresh.c chose who
	 * stands for it). The flows by VNI, bare ones first, each VNI's in
	 * byte order (ui.h: rank), so its sums add up the same way every time,
	 * whatever order the snapshot holds them in: a radix sort, not qsort's
	 * comparisons, each reading a flow far from the last at a million flows.
	 */
	for (size_t i = 0; i < a->n_flows; i++) {
		const struct flow_key *k = &a->flows[i].r->key;
		__u64 vni = k->flags & FP_FLOW_VXLAN ? (__u64)k->vni + 1 : 0; /* 24 bits */

		if (u->rep_of[i] != (int)i || !flow_matches(u, i))
			continue;
		e[n].key = vni << 32 | (__u32)u->rank[i];
		e[n++].idx = i;
	}
	by = radix_sort(e, e + n, n);
	vs->n_rows = 0;
	for (size_t i = 0; i < n; i++) {
		const struct flow_view *v = &a->flows[by[i].idx];
		const struct flow_key *k = &v->r->key;
		bool vxlan = k->flags & FP_FLOW_VXLAN;
		struct vni_row *r = vs->n_rows ? &rows[vs->n_rows - 1] : NULL;

		if (!r || r->vxlan != vxlan || (vxlan && r->vni != k->vni)) {
			r = &rows[vs->n_rows++];
			memset(r, 0, sizeof(*r));
			r->vxlan = vxlan;
			r->vni = vxlan ? k->vni : 0;
			r->v[VC_VNI] = vxlan ? k->vni : -1.0;
		}
		r->v[VC_FLOWS]++;
		r->v[VC_QPS] += v->is_data;
		r->v[VC_ELEPH] += v->elephant;
		r->v[VC_RATE] += v->bps;
		r->v[VC_PPS] += analysis_per_s(a, v->d.packets);
		r->v[VC_CE] += analysis_per_s(a, v->d.ce);
		r->v[VC_CNP] += analysis_per_s(a, v->d.cnp);
		r->v[VC_RTX] += analysis_per_s(a, v->d.rtx);
	}
	return 0;
}

/* The VNI ascending, the rest largest first; ties by VNI. */
static int cmp(const struct ui *u, int col, const void *px, const void *py)
{
	const struct vni_row *x = px, *y = py;

	(void)u;
	if (col <= VC_VNI)
		return cmp_num(x->v[VC_VNI], y->v[VC_VNI]);
	return cmp_num(y->v[col], x->v[col]);
}

static void cell(const struct ui *u, const void *row, int col, int width, char *buf, size_t len,
		 enum role *role)
{
	const struct vni_row *r = row;

	(void)u;
	(void)width;
	switch (col) {
	case VC_VNI:
		if (r->vxlan)
			snprintf(buf, len, "%u", r->vni);
		else
			snprintf(buf, len, "-");
		break;
	case VC_FLOWS:
	case VC_QPS:
	case VC_ELEPH:
		snprintf(buf, len, "%.0f", r->v[col]);
		*role = col == VC_ELEPH && r->v[col] ? R_ELEPH : R_NORMAL;
		break;
	case VC_RATE:
		fmt_si(buf, len, r->v[col], "b/s");
		break;
	case VC_PPS:
		/* As Flows writes it: the title is the unit. */
		rate_text(buf, len, r->v[col]);
		break;
	default:
		*role = rate_cell(buf, len, r->v[col]);
	}
}

static void enter(struct ui *u, const void *row)
{
	const struct vni_row *r = row;
	char f[FILTER_LEN];

	if (!r->vxlan)
		return;
	snprintf(f, sizeof(f), "vni=%u", r->vni);
	filter_to_flows(u, f);
}

const struct view view_vnis = {
    .name = "VNIs",
    .key = 'V',
    .cols = cols,
    .n_cols = VC_MAX,
    .default_sort = VC_RATE,
    .row_size = sizeof(struct vni_row),
    .empty = "no RoCE flows yet",
    .empty_ended = "no RoCE flows",
    .empty_filtered = "no RoCE flows match the filter",
    .enter_hint = "its flows",
    .legend = "RATE PPS /s: {w}  QPS: data directions  - is bare RoCE",
    .build = build,
    .cmp = cmp,
    .cell = cell,
    .enter = enter,
};
