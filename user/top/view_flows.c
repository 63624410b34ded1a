// SPDX-License-Identifier: GPL-2.0
/* view_flows.c - Flows: one row per flow record, each direction of a QP at each point. */
#include <string.h>

#include "top/ui.h"
#include "util/buf.h"
#include "util/format.h"

enum {
	FL_FLOW,
	FL_SPORT,
	FL_VNI,
	FL_QP,
	FL_PATH,
	FL_IF,
	FL_RATE,
	FL_PPS,
	FL_BYTES,
	FL_CE,
	FL_CNP,
	FL_RTX,
	FL_NAK,
	FL_DSCP,
	FL_AGE,
	FL_FLAGS,
	FL_OWNER,
	FL_MAX,
};

_Static_assert(FL_MAX <= MAX_COLS, "raise MAX_COLS (table.c copies the columns)");

static const struct column cols[FL_MAX] = {
    [FL_FLOW] = {.title = "FLOW (src > dst)", .min = 15},
    [FL_SPORT] = {.title = "SPORT", .width = 5, .right = true, .drop = 3},
    /* all "-" without VXLAN: the first to go, until fit() sees a VNI */
    [FL_VNI] = {.title = "VNI", .width = 3, .right = true, .drop = 20},
    [FL_QP] = {.title = "QP", .width = 2, .right = true},
    [FL_PATH] = {.title = "PATH", .width = 4, .max = 8},
    [FL_IF] = {.title = "SEEN ON", .width = 7, .max = 12, .drop = 10},
    [FL_RATE] = {.title = "RATE", .width = 9, .right = true},
    [FL_PPS] = {.title = "PPS", .width = 5, .right = true, .drop = 6},
    [FL_BYTES] = {COL_COUNTER(FC_BYTES, ""), .width = 8, .right = true, .drop = 11},
    [FL_CE] = {COL_COUNTER(FC_CE, "%"), .width = 6, .right = true, .drop = 1},
    [FL_CNP] = {COL_COUNTER(FC_CNP, "/s"), .width = 5, .right = true, .drop = 4},
    [FL_RTX] = {COL_COUNTER(FC_RTX, "/s"), .width = 5, .right = true, .drop = 5},
    [FL_NAK] = {COL_COUNTER(FC_NAKS, "/s"), .width = 5, .right = true, .drop = 8},
    [FL_DSCP] = {.title = "DSCP", .width = 4, .right = true, .drop = 9},
    [FL_AGE] = {.title = "AGE", .width = 6, .right = true, .drop = 12},
    [FL_FLAGS] = {.title = "FLG", .width = 3},
    /* with --nic: the local QP's process; the first to go on a narrow terminal */
    [FL_OWNER] = {.title = "OWNER", .width = 5, .max = 24, .drop = 21},
};

static const struct flow_view *flow(const struct ui *u, const void *row)
{
	return &u->an->flows[*(const int *)row];
}

static int build(struct ui *u, struct vstate *vs)
{
	const struct analysis *a = u->an;
	int err = rows_grow(vs, a->n_flows, sizeof(int));
	int *rows = vs->rows;

	if (err)
		return err;
	/* In byte order: the final tie-break's, which table_sort() keeps among equals. */
	vs->n_rows = 0;
	for (size_t k = 0; k < a->n_flows; k++)
		if (flow_matches(u, u->by_rank[k]))
			rows[vs->n_rows++] = u->by_rank[k];
	return 0;
}

static __u64 naks(const struct flow_view *v)
{
	return v->d.naks + v->d.rnr_naks;
}

static int flag_rank(const struct ui *u, int f)
{
	return u->an->flows[f].elephant * 4 + (u->marks[f] & MARK_COLLISION) * 2;
}

/*
 * A column that is a number, as one whose ascending order is the
 * column's natural order (rates descending: negated); false for text.
 * table.c orders such columns by it.
 */
static bool sort_key(const struct ui *u, int col, const void *row, double *key)
{
	const struct flow_view *p = flow(u, row);
	const struct flow_key *k = &p->r->key;

	switch (col) {
	case FL_SPORT:
		*key = k->sport;
		break;
	case FL_VNI:
		*key = k->flags & FP_FLOW_VXLAN ? k->vni : -1.0;
		break;
	case FL_QP:
		*key = k->dest_qp;
		break;
	case FL_IF:
		*key = k->ifindex * 2 + k->dir;
		break;
	case FL_RATE:
		*key = -p->bps;
		break;
	case FL_PPS:
		*key = -analysis_per_s(u->an, p->d.packets);
		break;
	case FL_CE:
		*key = -flow_ce_fraction(&p->r->c);
		break;
	case FL_CNP:
		*key = -analysis_per_s(u->an, p->d.cnp);
		break;
	case FL_RTX:
		*key = -analysis_per_s(u->an, p->d.rtx);
		break;
	case FL_NAK:
		*key = -(double)naks(p);
		break;
	case FL_DSCP:
		*key = p->r->c.dscp;
		break;
	case FL_AGE:
		*key = -flow_age_s(u, p);
		break;
	case FL_FLAGS:
		*key = -flag_rank(u, *(const int *)row);
		break;
	case FL_BYTES:
		*key = -(double)p->r->c.bytes;
		break;
	default: /* the endpoints, path and owner: text */
		return false;
	}
	return true;
}

/* Natural order of a text column, ascending, or the tie-break (numbers: sort_key). */
static int cmp(const struct ui *u, int col, const void *x, const void *y)
{
	const struct flow_view *p = flow(u, x), *q = flow(u, y);
	int i = *(const int *)x, j = *(const int *)y;

	switch (col) {
	case FL_FLOW:
		return cmp_key_ends(&p->r->key, &q->r->key);
	case FL_PATH:
		return strcmp(path_name(u->an, p->path), path_name(u->an, q->path));
	case FL_OWNER: {
		char o[OWNER_LEN], w[OWNER_LEN];

		return strcmp(owner_of(u, i, o, sizeof(o)), owner_of(u, j, w, sizeof(w)));
	}
	default: /* the tie-break: most bytes first, then by key (ui.h: rank) */
		return cmp_num(u->rank[i], u->rank[j]);
	}
}

static int fit(const struct ui *u, struct column *c, const void *row)
{
	const struct flow_view *v;
	const struct flow_key *k;

	if (!row) {
		c[FL_OWNER].hidden = !u->ss->nic;
		return 0;
	}
	if (u->ss->nic && nic_flow_owner(&u->ss->nic->now, *(const int *)row)) {
		char o[OWNER_LEN];

		c[FL_OWNER].drop = 2;
		grow_width(&c[FL_OWNER], strlen(owner_of(u, *(const int *)row, o, sizeof(o))));
	}
	v = flow(u, row);
	k = &v->r->key;
	grow_width(&c[FL_QP], digits(k->dest_qp));
	if (k->flags & FP_FLOW_VXLAN) {
		c[FL_VNI].drop = 2;
		grow_width(&c[FL_VNI], digits(k->vni));
	}
	grow_width(&c[FL_PATH], strlen(path_name(u->an, v->path)));
	grow_width(&c[FL_IF], strlen(iface_name(u, k->ifindex)) + 4);
	return endpoints_cols(k);
}

static void cell(const struct ui *u, const void *row, int col, int width, char *buf, size_t len,
		 enum role *role)
{
	const struct analysis *a = u->an;
	const struct flow_view *v = flow(u, row);
	const struct flow_key *k = &v->r->key;
	const struct flow_counters *c = &v->r->c;
	int f = *(const int *)row;

	switch (col) {
	case FL_FLOW:
		endpoints(buf, len, k, false, width);
		break;
	case FL_SPORT:
		snprintf(buf, len, "%u", k->sport);
		break;
	case FL_VNI:
		vni_text(buf, len, k);
		break;
	case FL_QP:
		snprintf(buf, len, "%u", k->dest_qp);
		break;
	case FL_PATH:
		fmt_trunc(buf, len, path_name(a, v->path), width);
		break;
	case FL_IF:
		snprintf(buf, len, "%s %s", iface_name(u, k->ifindex),
			 k->dir == FP_DIR_EGRESS ? "out" : "in");
		break;
	case FL_RATE:
		fmt_si(buf, len, v->bps, "b/s");
		*role = v->elephant ? R_ELEPH : R_NORMAL;
		break;
	case FL_PPS:
		rate_text(buf, len, analysis_per_s(a, v->d.packets));
		break;
	case FL_BYTES:
		fmt_si(buf, len, c->bytes, "B");
		break;
	case FL_CE:
		fmt_pct(buf, len, flow_ce(c), c->packets);
		*role = flow_ce(c) ? R_WARN : R_NORMAL;
		break;
	case FL_CNP:
	case FL_RTX:
	case FL_NAK: {
		*role = rate_cell(buf, len,
				  analysis_per_s(a, col == FL_CNP   ? v->d.cnp
						    : col == FL_RTX ? v->d.rtx
								    : naks(v)));
		break;
	}
	case FL_DSCP:
		snprintf(buf, len, "%u", c->dscp);
		break;
	case FL_AGE:
		fmt_duration(buf, len, flow_age_s(u, v));
		break;
	case FL_FLAGS:
		flags_text(buf, u, f);
		*role = flags_role(u, f);
		break;
	case FL_OWNER: {
		char o[OWNER_LEN];

		snprintf(buf, len, "%s", owner_of(u, f, o, sizeof(o)));
		break;
	}
	default:
		buf[0] = 0;
	}
}

static int flow_of(const struct ui *u, const void *row)
{
	(void)u;
	return *(const int *)row;
}

static void enter(struct ui *u, const void *row)
{
	open_detail(u, *(const int *)row);
}

const struct view view_flows = {
    .name = "Flows",
    .key = 'F',
    .cols = cols,
    .n_cols = FL_MAX,
    .default_sort = FL_RATE,
    .row_size = sizeof(int),
    .empty = "no RoCE flows yet",
    .empty_ended = "no RoCE flows",
    .empty_filtered = "no flow matches the filter (Esc clears it)",
    .enter_hint = "detail",
    .legend = "E elephant C collision P predicted  /s: {w}  BYTES CE%: flow total",
    .build = build,
    .cmp = cmp,
    .sort_key = sort_key,
    .fit = fit,
    .cell = cell,
    .flow_of = flow_of,
    .enter = enter,
};
