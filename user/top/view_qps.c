// SPDX-License-Identifier: GPL-2.0
/*
 * view_qps.c - QPs: one row per queue pair, its data direction and its
 * ACK/NAK/CNP side together. A flow seen at several points is one flow
 * (refresh.c chose the record that stands for it); a side whose partner
 * is not seen gets a row of its own.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "top/ui.h"
#include "util/format.h"
#include "util/radix.h"

enum {
	QC_PAIR,
	QC_VNI,
	QC_QP,
	QC_PEER,
	QC_PATH,
	QC_DATA,
	QC_ACK,
	QC_CE,
	QC_CNP,
	QC_RTX,
	QC_NAK,
	QC_FLAGS,
	QC_OWNER,
	QC_MAX,
};

_Static_assert(QC_MAX <= MAX_COLS, "raise MAX_COLS (table.c copies the columns)");

static const struct column cols[QC_MAX] = {
    [QC_PAIR] = {.title = "QUEUE PAIR (req > resp)", .min = 15},
    [QC_VNI] = {.title = "VNI", .width = 3, .right = true, .drop = 20},
    [QC_QP] = {.title = "QP", .width = 2, .right = true},
    [QC_PEER] = {.title = "PEER", .width = 4, .right = true, .drop = 3},
    [QC_PATH] = {.title = "PATH d/a", .width = 8, .max = 17},
    [QC_DATA] = {.title = "DATA", .width = 9, .right = true},
    [QC_ACK] = {.title = "ACK/CNP", .width = 9, .right = true, .drop = 5},
    [QC_CE] = {COL_COUNTER(FC_CE, "%"), .width = 6, .right = true, .drop = 1},
    [QC_CNP] = {COL_COUNTER(FC_CNP, "/s"), .width = 5, .right = true, .drop = 4},
    [QC_RTX] = {COL_COUNTER(FC_RTX, "/s"), .width = 5, .right = true, .drop = 6},
    [QC_NAK] = {COL_COUNTER(FC_NAKS, "/s"), .width = 5, .right = true, .drop = 7},
    [QC_FLAGS] = {.title = "FLG", .width = 3},
    /* with --nic: the process of the local QP either side belongs to */
    [QC_OWNER] = {.title = "OWNER", .width = 5, .max = 24, .drop = 21},
};

struct qp_row {
	int data;    /* the requester's flow, -1 when only the other side is seen */
	int ack;     /* its reverse: ACKs, NAKs, CNPs, read responses; -1 unknown */
	double busy; /* busy(), cmp's final tie-break: kept by order_rows() */
};

static int order_rows(struct ui *u, struct vstate *vs);

static int build(struct ui *u, struct vstate *vs)
{
	const struct analysis *a = u->an;
	size_t n = a->n_flows;
	struct qp_row *rows;
	__u8 *used;
	int err = rows_grow(vs, n, sizeof(*rows)) ?: scratch_grow(u, n, 1);

	if (err)
		return err;
	rows = vs->rows;
	used = u->scratch;
	memset(used, 0, n + 1);
	vs->n_rows = 0;
	/*
	 * Requesters' flows first, so that each takes its reverse into its
	 * row: its ACKs, NAKs and CNPs, and a READ's responses (data, but the
	 * responder's). Of two requesters each the other's reverse, the
	 * larger flow leads, in any order of the flows. The flows in byte order
	 * (ui.h: rank): where two rows want one reverse, the larger's takes it.
	 */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t k = 0; k < n; k++) {
			int i = u->by_rank[k];
			const struct flow_view *v = &a->flows[i];
			struct qp_row r = {.data = -1, .ack = -1};
			int rev = v->reverse >= 0 ? u->rep_of[v->reverse] : -1;

			if (u->rep_of[i] != i || used[i] || (!pass && !v->is_request))
				continue;
			if (!pass && rev >= 0 && !used[rev] && a->flows[rev].is_request &&
			    a->flows[rev].reverse >= 0 && u->rep_of[a->flows[rev].reverse] == i &&
			    analysis_before(a, rev, i))
				continue;
			if (v->is_request) {
				r.data = i;
				/* A reverse another row took already is that row's. */
				if (rev >= 0 && !used[rev])
					r.ack = rev;
			} else {
				r.ack = i;
			}
			used[i] = 1;
			if (r.ack >= 0)
				used[r.ack] = 1;
			if ((r.data >= 0 && flow_matches(u, r.data)) ||
			    (r.ack >= 0 && flow_matches(u, r.ack)))
				rows[vs->n_rows++] = r;
		}
	}
	return order_rows(u, vs);
}

static const struct flow_view *side(const struct ui *u, int f)
{
	return f >= 0 ? &u->an->flows[f] : NULL;
}

/*
 * The side that carries the payload: the requester's, but a READ's
 * responses (data, and the larger) where they are. CE marks, elephants and
 * collisions are of the payload.
 */
static int payload(const struct ui *u, const struct qp_row *r)
{
	const struct flow_view *d = side(u, r->data), *k = side(u, r->ack);

	if (k && k->is_data && (!d || k->r->c.bytes > d->r->c.bytes))
		return r->ack;
	return r->data;
}

static double value(const struct ui *u, const struct qp_row *r, int col)
{
	const struct flow_view *d = side(u, r->data), *k = side(u, r->ack);
	const struct flow_view *pl = side(u, payload(u, r));
	const struct flow_key *key = &(d ? d : k)->r->key;

	switch (col) {
	case QC_VNI:
		return key->flags & FP_FLOW_VXLAN ? key->vni : -1.0;
	case QC_QP:
		return d ? d->r->key.dest_qp : -1.0;
	case QC_PEER:
		return k ? k->r->key.dest_qp : -1.0;
	case QC_DATA:
		return d ? d->bps : 0;
	case QC_ACK:
		return k ? k->bps : 0;
	case QC_CE:
		return pl ? flow_ce_fraction(&pl->r->c) : 0;
	case QC_CNP:
		return analysis_per_s(u->an, (d ? d->d.cnp : 0) + (k ? k->d.cnp : 0));
	case QC_RTX:
		return d ? analysis_per_s(u->an, d->d.rtx) : 0;
	case QC_NAK:
		return k ? analysis_per_s(u->an, k->d.naks + k->d.rnr_naks) : 0;
	case QC_FLAGS:
		return pl ? pl->elephant * 4 + (u->marks[payload(u, r)] & MARK_COLLISION) * 2 : 0;
	}
	return 0;
}

/* Flow f's place in byte order (ui.h: rank); -1 (no flow) before every flow. */
static int rank_of(const struct ui *u, int f)
{
	return f >= 0 ? u->rank[f] : -1;
}

/* A pair's traffic both ways: cmp's final tie-break, busiest first. */
static double busy(const struct ui *u, const struct qp_row *r)
{
	return value(u, r, QC_DATA) + value(u, r, QC_ACK);
}

/*
 * The rows in the order of cmp's final tie-break (busiest first, then by
 * data flow, then by ACK flow), two stable radix sorts: table_sort() then
 * sorts a million rows by a column's numbers (sort_key), keeping that
 * order among equals, and qsort gives the same order where it sorts.
 */
static int order_rows(struct ui *u, struct vstate *vs)
{
	size_t n = vs->n_rows;
	struct qp_row *rows = vs->rows, *out;
	struct radix_ent *e = sort_room(u, n, n * sizeof(*rows)), *by, *most;
	bool nan = false;

	if (!e)
		return -ENOMEM;
	/*
	 * Each row's traffic once: every comparison of the sorts that follow
	 * (table_sort()'s check of this order, qsort's) reads it here instead
	 * of reading both flows again, far apart at a million rows.
	 */
	for (size_t r = 0; r < n; r++) {
		rows[r].busy = busy(u, &rows[r]);
		nan |= isnan(rows[r].busy);
	}
	if (nan)
		return 0; /* no order to keep: qsort orders them */
	for (size_t r = 0; r < n; r++) {
		e[r].key = (__u64)(__u32)(rank_of(u, rows[r].data) + 1) << 32 |
			   (__u32)(rank_of(u, rows[r].ack) + 1);
		e[r].idx = r;
	}
	by = radix_sort(e, e + n, n);
	most = by == e ? e + n : e;
	for (size_t r = 0; r < n; r++) {
		most[r].key = radix_key_of_double(-rows[by[r].idx].busy);
		most[r].idx = by[r].idx;
	}
	by = radix_sort(most, by, n);
	out = (struct qp_row *)(e + 2 * n);
	for (size_t r = 0; r < n; r++)
		out[r] = rows[by[r].idx];
	memcpy(rows, out, n * sizeof(*rows));
	return 0;
}

/*
 * A column that is a number, as one whose ascending order is the
 * column's natural order (traffic descending: negated); false for text.
 * table.c orders such columns by it.
 */
static bool sort_key(const struct ui *u, int col, const void *row, double *key)
{
	switch (col) {
	case QC_VNI:
	case QC_QP:
	case QC_PEER:
		*key = value(u, row, col);
		return true;
	case QC_DATA:
	case QC_ACK:
	case QC_CE:
	case QC_CNP:
	case QC_RTX:
	case QC_NAK:
	case QC_FLAGS:
		*key = -value(u, row, col);
		return true;
	default: /* the pair, path and owner: text; -1, the tie-break */
		return false;
	}
}

/* The owner of the pair's local QP: through its data side, else its ACK side. */
static const char *pair_owner(const struct ui *u, const struct qp_row *r, char *buf, size_t len)
{
	const char *o = owner_of(u, r->data, buf, len);

	return strcmp(o, "-") ? o : owner_of(u, r->ack, buf, len);
}

static int flow_of(const struct ui *u, const void *row)
{
	const struct qp_row *r = row;

	(void)u;
	return r->data >= 0 ? r->data : r->ack;
}

/* Natural order of a text column, ascending, or the tie-break (numbers: sort_key). */
static int cmp(const struct ui *u, int col, const void *px, const void *py)
{
	const struct qp_row *x = px, *y = py;
	const struct flow_view *p = &u->an->flows[flow_of(u, x)];
	const struct flow_view *q = &u->an->flows[flow_of(u, y)];

	switch (col) {
	case QC_PAIR:
		return cmp_key_ends(&p->r->key, &q->r->key);
	case QC_PATH:
		return strcmp(path_name(u->an, p->path), path_name(u->an, q->path));
	case QC_OWNER: {
		char o[OWNER_LEN], w[OWNER_LEN];

		return strcmp(pair_owner(u, x, o, sizeof(o)), pair_owner(u, y, w, sizeof(w)));
	}
	default: /* -1, the tie-break: busiest first, then by data flow, ACK flow, in byte order */
		return cmp_num(y->busy, x->busy)
			   ?: cmp_num(rank_of(u, x->data), rank_of(u, y->data))
			   ?: cmp_num(rank_of(u, x->ack), rank_of(u, y->ack));
	}
}

static int fit(const struct ui *u, struct column *c, const void *row)
{
	const struct qp_row *q = row;
	const struct flow_view *d, *k, *v;
	char o[OWNER_LEN];

	if (!q) {
		c[QC_OWNER].hidden = !u->ss->nic;
		return 0;
	}
	if (strcmp(pair_owner(u, q, o, sizeof(o)), "-")) {
		c[QC_OWNER].drop = 2;
		grow_width(&c[QC_OWNER], strlen(o));
	}
	d = side(u, q->data);
	k = side(u, q->ack);
	v = d ? d : k;
	if (d)
		grow_width(&c[QC_QP], digits(d->r->key.dest_qp));
	if (k)
		grow_width(&c[QC_PEER], digits(k->r->key.dest_qp));
	if (v->r->key.flags & FP_FLOW_VXLAN) {
		c[QC_VNI].drop = 2;
		grow_width(&c[QC_VNI], digits(v->r->key.vni));
	}
	grow_width(&c[QC_PATH], strlen(path_name(u->an, d ? d->path : -1)) +
				    strlen(path_name(u->an, k ? k->path : -1)) + 1);
	return endpoints_cols(&v->r->key);
}

static void cell(const struct ui *u, const void *row, int col, int width, char *buf, size_t len,
		 enum role *role)
{
	const struct qp_row *q = row;
	const struct flow_view *d = side(u, q->data), *k = side(u, q->ack);
	int pf = payload(u, q);
	const struct flow_view *pl = side(u, pf);

	snprintf(buf, len, "-");
	switch (col) {
	case QC_PAIR:
		endpoints(buf, len, &(d ? d : k)->r->key, !d, width);
		break;
	case QC_VNI:
		vni_text(buf, len, &(d ? d : k)->r->key);
		break;
	case QC_QP:
	case QC_PEER:
		if (value(u, q, col) >= 0)
			snprintf(buf, len, "%.0f", value(u, q, col));
		break;
	case QC_PATH:
		snprintf(buf, len, "%s/%s", path_name(u->an, d ? d->path : -1),
			 path_name(u->an, k ? k->path : -1));
		break;
	case QC_DATA:
		if (d)
			fmt_si(buf, len, d->bps, "b/s");
		*role = d && d->elephant ? R_ELEPH : R_NORMAL;
		break;
	case QC_ACK:
		if (k)
			fmt_si(buf, len, k->bps, "b/s");
		*role = k && pl == k && k->elephant ? R_ELEPH : R_NORMAL;
		break;
	case QC_CE:
		if (pl)
			fmt_pct(buf, len, flow_ce(&pl->r->c), pl->r->c.packets);
		*role = pl && flow_ce(&pl->r->c) ? R_WARN : R_NORMAL;
		break;
	case QC_CNP:
	case QC_RTX:
	case QC_NAK:
		*role = rate_cell(buf, len, value(u, q, col));
		break;
	case QC_FLAGS:
		buf[0] = 0;
		if (pl) {
			flags_text(buf, u, pf);
			*role = flags_role(u, pf);
		}
		break;
	case QC_OWNER: {
		char o[OWNER_LEN];

		snprintf(buf, len, "%s", pair_owner(u, q, o, sizeof(o)));
		break;
	}
	}
}

static void enter(struct ui *u, const void *row)
{
	open_detail(u, flow_of(u, row));
}

const struct view view_qps = {
    .name = "QPs",
    .key = 'Q',
    .cols = cols,
    .n_cols = QC_MAX,
    .default_sort = QC_DATA,
    .row_size = sizeof(struct qp_row),
    .empty = "no RoCE queue pairs yet",
    .empty_ended = "no RoCE queue pairs",
    .empty_filtered = "no queue pair matches the filter (Esc clears it)",
    .enter_hint = "detail",
    .legend = "QP PEER: dest QP each way  PATH d/a: the data's/the ACKs' path  DATA ACK /s: {w}  "
	      "CE%: since seen",
    .build = build,
    .cmp = cmp,
    .sort_key = sort_key,
    .fit = fit,
    .cell = cell,
    .flow_of = flow_of,
    .enter = enter,
};
