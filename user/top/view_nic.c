// SPDX-License-Identifier: GPL-2.0
/*
 * view_nic.c - NIC: what the host's RDMA NICs count (top --nic, --nic-root;
 * core/session_nic.h), in sections: each device port's known counters as
 * rates with their totals under them, PFC per netdev and priority, other
 * netdevs read (-i), and the QP table with each QP's predicted source port
 * and path, the flows matched to it and its owner. Enter on a QP filters
 * Flows to its queue pair.
 */
#include <string.h>

#include "top/ui.h"
#include "util/format.h"

enum nic_row_kind {
	NR_PORT,
	NR_PFC,
	NR_NETDEV,
	NR_QP,
};

struct nic_row {
	enum nic_row_kind kind;
	int idx;  /* port, netdev or QP */
	int prio; /* NR_PFC */
};

#define CELL 9 /* a counter column */

static const struct nic_picture *picture(const struct ui *u)
{
	return u->ss->nic ? &u->ss->nic->now : NULL;
}

static bool pfc_shown(const struct nic_netdev *nd, int prio, int lossless)
{
	bool any = false, moved = false;

	for (int f = 0; f < NIC_PFC_FIELD_MAX; f++) {
		const struct nic_counter *c = nic_pfc(nd, prio, f);

		any |= c != NULL;
		moved |= c && c->value;
	}
	return any && (prio == lossless || moved);
}

static bool has_port(const struct nic_state *s, const char *netdev)
{
	for (size_t i = 0; i < s->n_ports; i++)
		if (!strcmp(s->ports[i].netdev, netdev))
			return true;
	return false;
}

static int build(struct ui *u, struct vstate *vs)
{
	const struct nic_picture *p = picture(u);
	const struct nic_state *s = p ? &p->st : NULL;
	struct nic_row *rows;
	size_t n;
	int err;

	vs->n_rows = 0;
	if (!s)
		return 0;
	n = s->n_ports + s->n_netdevs * (NIC_PRIOS + 1) + s->n_qps;
	err = rows_grow(vs, n, sizeof(*rows));
	if (err)
		return err;
	rows = vs->rows;
	for (size_t i = 0; i < s->n_ports; i++)
		rows[vs->n_rows++] = (struct nic_row){NR_PORT, i, 0};
	for (size_t i = 0; i < s->n_netdevs; i++)
		for (int prio = 0; prio < NIC_PRIOS; prio++)
			if (pfc_shown(&s->netdevs[i], prio, p->lossless_prio))
				rows[vs->n_rows++] = (struct nic_row){NR_PFC, i, prio};
	for (size_t i = 0; i < s->n_netdevs; i++)
		if (!has_port(s, s->netdevs[i].name))
			rows[vs->n_rows++] = (struct nic_row){NR_NETDEV, i, 0};
	for (size_t i = 0; i < s->n_qps; i++)
		rows[vs->n_rows++] = (struct nic_row){NR_QP, i, 0};
	return 0;
}

static int row_lines(const struct nic_row *r)
{
	return r->kind == NR_PORT ? 2 : 1;
}

static const char *rate_of(char *buf, size_t len, const struct nic_counter *c)
{
	if (!c)
		return snprintf(buf, len, "-"), buf;
	if (c->flags & NIC_CNT_NEW)
		return snprintf(buf, len, "?"), buf;
	return rate_text(buf, len, c->per_s);
}

/*
 * A line of cells at the screen's width, ending where a cell ends: put()
 * alone cut it at the edge, and a number cut there reads as another ("48."
 * of 48.2k). Cells are right-aligned and apart by spaces, so the cut backs
 * up to the space before the word it would split.
 */
static void put_cells(struct ui *u, int y, attr_t attr, char *line)
{
	size_t cut = 0;
	int cols = 0;

	/* The byte where column COLS starts (names may be UTF-8). */
	for (; line[cut] && cols < COLS; cols++)
		for (cut++; (line[cut] & 0xC0) == 0x80; cut++)
			;
	if (line[cut] && line[cut] != ' ')
		while (cut > 0 && line[cut - 1] != ' ')
			cut--;
	line[cut] = 0;
	put(u, y, 0, COLS, false, false, attr, line);
}

/* The section title of a kind, and where the columns go. */
static void section_head(struct ui *u, int y, enum nic_row_kind kind)
{
	const struct nic_picture *p = picture(u);
	char line[LINE_MAX_BYTES], t[32];
	size_t o = 0;

	switch (kind) {
	case NR_PORT:
		o = snprintf(line, sizeof(line), "%-24s", "RDMA PORT / NETDEV");
		for (size_t k = 0; k < nic_n_known_rdma && o < sizeof(line); k++) {
			snprintf(t, sizeof(t), "%s/s", nic_known_rdma[k].title);
			o += snprintf(line + o, sizeof(line) - o, " %*s", CELL - 1, t);
		}
		break;
	case NR_PFC:
		snprintf(line, sizeof(line), "%-16s %-5s %9s %9s %9s %9s %8s %8s %8s", "PFC NETDEV",
			 "PRIO", "RXPAUSE/s", "TXPAUSE/s", "RXPAUSED", "TXPAUSED", "BUFDISC",
			 "CONGDISC", "MARKED/s");
		break;
	case NR_NETDEV:
		snprintf(line, sizeof(line), "%-16s %10s %8s  %s", "NETDEV", "STATISTICS", "MOVED",
			 "");
		break;
	case NR_QP:
		snprintf(line, sizeof(line), "%-14s %8s %8s %-4s %-5s %6s %4s %5s  %s%s",
			 "QP DEVICE/PORT", "LQPN", "RQPN", "TYPE", "STATE", "SPORT", "PATH",
			 "FLOWS", "OWNER", p && p->n_coll ? "  (P: shares a predicted path)" : "");
		break;
	}
	fill_line(y, ui_attr(u, R_HEAD));
	put_cells(u, y, ui_attr(u, R_HEAD), line);
}

static void port_lines(struct ui *u, int y, const struct nic_port *pt, bool sel, int height)
{
	char line[LINE_MAX_BYTES], tot[LINE_MAX_BYTES], name[NIC_DEV_LEN + 32], v[32];
	size_t o, t;
	bool bad = false;

	snprintf(name, sizeof(name), "%s/%u %s", pt->device, pt->port,
		 pt->netdev[0] ? pt->netdev : "-");
	o = snprintf(line, sizeof(line), "%-24.24s", name);
	t = snprintf(tot, sizeof(tot), "%-24s", "  total");
	for (size_t k = 0; k < nic_n_known_rdma && o < sizeof(line) && t < sizeof(tot); k++) {
		const struct nic_counter *c = nic_counter_get(&pt->hw, nic_known_rdma[k].name);

		o += snprintf(line + o, sizeof(line) - o, " %*s", CELL - 1,
			      rate_of(v, sizeof(v), c));
		if (c)
			fmt_si_compact(v, sizeof(v), c->value);
		t += snprintf(tot + t, sizeof(tot) - t, " %*s", CELL - 1, c ? v : "-");
		/* The CNP counters move in a healthy fabric; the error ones should not. */
		bad |= k >= 4 && c && c->delta;
	}
	if (sel)
		fill_line(y, ui_attr(u, R_SEL));
	put_cells(u, y, ui_attr(u, sel ? R_SEL : bad ? R_WARN : R_NORMAL), line);
	if (height > 1)
		put_cells(u, y + 1, ui_attr(u, R_DIM), tot);
}

static void pfc_line(struct ui *u, int y, const struct nic_netdev *nd, int prio, bool sel)
{
	const struct nic_picture *p = picture(u);
	double us = p->st.interval_s * 1e6, worst = 0;
	char line[LINE_MAX_BYTES], v[NIC_PFC_FIELD_MAX][32], share[2][16], pr[8];
	bool discards = false;

	for (int f = 0; f < NIC_PFC_FIELD_MAX; f++) {
		const struct nic_counter *c = nic_pfc(nd, prio, f);

		rate_of(v[f], sizeof(v[f]), c);
		if (f == NIC_PFC_BUF_DISCARD || f == NIC_PFC_CONG_DISCARD) {
			discards |= c && c->delta;
			if (c)
				fmt_si_compact(v[f], sizeof(v[f]), c->value);
		}
	}
	for (int d = 0; d < 2; d++) {
		const struct nic_counter *c =
		    nic_pfc(nd, prio, d ? NIC_PFC_TX_PAUSE_US : NIC_PFC_RX_PAUSE_US);

		snprintf(share[d], sizeof(share[d]), "-");
		if (c && !(c->flags & NIC_CNT_NEW) && us > 0) {
			double paused = nic_paused_share(c, p->st.interval_s);

			fmt_pct(share[d], sizeof(share[d]), paused, 1);
			worst = paused > worst ? paused : worst;
		}
	}
	snprintf(pr, sizeof(pr), "%d%s", prio, prio == p->lossless_prio ? "*" : "");
	snprintf(line, sizeof(line), "%-16s %-5s %9s %9s %9s %9s %8s %8s %8s", nd->name, pr,
		 v[NIC_PFC_RX_PAUSE], v[NIC_PFC_TX_PAUSE], share[0], share[1],
		 v[NIC_PFC_BUF_DISCARD], v[NIC_PFC_CONG_DISCARD], v[NIC_PFC_MARKED]);
	if (sel)
		fill_line(y, ui_attr(u, R_SEL));
	put_cells(u, y,
		  ui_attr(u, sel					  ? R_SEL
			     : worst >= NIC_PAUSE_SHARE_STORM || discards ? R_CRIT
			     : worst > 0				  ? R_WARN
									  : R_NORMAL),
		  line);
}

/*
 * Flows of this session matched to QP q, and the destination QP of the
 * first of them in byte order (ui.h: rank), whatever the snapshot's order.
 */
static int qp_flows(const struct ui *u, int q, __u32 *dest_qp)
{
	const struct nic_picture *p = picture(u);
	int n = 0, first = -1;

	for (size_t i = 0; i < p->n_flow_qp && i < u->ss->snap.n_flows; i++) {
		if (p->flow_qp[i] != q)
			continue;
		if (first < 0 || u->rank[i] < u->rank[first])
			first = (int)i;
		n++;
	}
	if (first >= 0 && dest_qp)
		*dest_qp = u->ss->snap.flows[first].key.dest_qp;
	return n;
}

static bool qp_shares_path(const struct nic_picture *p, int q)
{
	for (size_t c = 0; c < p->n_coll; c++)
		for (int k = 0; k < p->coll[c].n_qps; k++)
			if (p->coll[c].qps[k] == q)
				return true;
	return false;
}

static void qp_line(struct ui *u, int y, int q, bool sel)
{
	const struct nic_picture *p = picture(u);
	const struct nic_qp *qp = &p->st.qps[q];
	char line[LINE_MAX_BYTES], where[NIC_DEV_LEN + 16], rq[16], sp[16], path[16], fl[16];
	char owner[NIC_COMM_LEN + 16];
	int flows = qp_flows(u, q, NULL);
	bool shares = qp_shares_path(p, q);

	nic_qp_where(where, sizeof(where), qp);
	snprintf(rq, sizeof(rq), qp->has_rqpn ? "%u" : "-", qp->rqpn);
	snprintf(sp, sizeof(sp), qp->predicted_sport ? "%u" : "-", qp->predicted_sport);
	snprintf(path, sizeof(path), qp->predicted_path >= 0 ? "%d%s" : "-", qp->predicted_path,
		 shares ? "P" : "");
	snprintf(fl, sizeof(fl), flows ? "%d" : "-", flows);
	snprintf(line, sizeof(line), "%-14.14s %8u %8s %-4s %-5s %6s %4s %5s  %s", where, qp->lqpn,
		 rq, nic_qp_type_name(qp->type), nic_qp_state_name(qp->state), sp, path, fl,
		 nic_owner_text(owner, sizeof(owner), qp));
	if (sel)
		fill_line(y, ui_attr(u, R_SEL));
	put_cells(u, y, ui_attr(u, sel ? R_SEL : shares ? R_WARN : flows ? R_NORMAL : R_DIM), line);
}

static void netdev_line(struct ui *u, int y, const struct nic_netdev *nd, bool sel)
{
	char line[LINE_MAX_BYTES];
	size_t moved = 0;

	for (size_t k = 0; k < nd->ethtool.n; k++)
		moved += nic_counter_moved(&nd->ethtool.v[k]);
	snprintf(line, sizeof(line), "%-16s %10zu %8zu  %s", nd->name, nd->ethtool.n, moved,
		 nd->error);
	if (sel)
		fill_line(y, ui_attr(u, R_SEL));
	put_cells(u, y, ui_attr(u, sel ? R_SEL : R_NORMAL), line);
}

/*
 * Lines rows top..last take as draw() puts them: a title before each
 * section, and a blank line before each title but the first.
 */
static int lines_to(const struct nic_row *rows, int top, int last)
{
	int n = 0;

	for (int r = top; r <= last; r++) {
		n += row_lines(&rows[r]);
		if (r == top)
			n++;
		else if (rows[r].kind != rows[r - 1].kind)
			n += 2;
	}
	return n;
}

/*
 * The first row on screen: the selection in view, and no scrolling while
 * the rows from one higher up to the last would fit (rows are of one or
 * two lines, so table.c's scroll_to() cannot count them).
 */
static void scroll_lines(struct vstate *vs, const struct nic_row *rows, int height)
{
	int last = vs->n_rows - 1;

	if (vs->sel > last)
		vs->sel = last;
	if (vs->sel < 0)
		vs->sel = 0;
	if (vs->top > vs->sel)
		vs->top = vs->sel;
	while (vs->top < vs->sel && lines_to(rows, vs->top, vs->sel) > height)
		vs->top++;
	while (vs->top > 0 && lines_to(rows, vs->top - 1, last) <= height)
		vs->top--;
}

static void draw(struct ui *u, struct vstate *vs, int y0, int height)
{
	const struct nic_picture *p = picture(u);
	const struct nic_row *rows = vs->rows;
	int y = y0;

	if (!p) {
		putf(u, y0 + 1, 1, ui_attr(u, R_DIM),
		     "no NIC counters: start top with --nic (this host) or --nic-root DIR");
		return;
	}
	if (p->st.info[0] || p->st.qp_error[0]) {
		putf(u, y++, 1, ui_attr(u, R_WARN), "%s%s%s", p->st.info,
		     p->st.info[0] && p->st.qp_error[0] ? "; " : "", p->st.qp_error);
		height--;
	}
	if (!vs->n_rows)
		return;
	scroll_lines(vs, rows, height);
	for (int r = vs->top; r < (int)vs->n_rows && y < y0 + height; r++) {
		const struct nic_row *row = &rows[r];
		bool sel = r == vs->sel;

		if (r == vs->top || row->kind != rows[r - 1].kind) {
			if (r != vs->top && y + 1 < y0 + height)
				y++; /* a blank line between sections */
			section_head(u, y++, row->kind);
			if (y >= y0 + height)
				break;
		}
		switch (row->kind) {
		case NR_PORT:
			port_lines(u, y, &p->st.ports[row->idx], sel, y0 + height - y);
			break;
		case NR_PFC:
			pfc_line(u, y, &p->st.netdevs[row->idx], row->prio, sel);
			break;
		case NR_NETDEV:
			netdev_line(u, y, &p->st.netdevs[row->idx], sel);
			break;
		case NR_QP:
			qp_line(u, y, row->idx, sel);
			break;
		}
		y += row_lines(row);
	}
}

static void enter(struct ui *u, const void *row)
{
	const struct nic_row *r = row;
	__u32 dest_qp = 0;
	char f[FILTER_LEN];

	if (r->kind != NR_QP) {
		snprintf(u->status, sizeof(u->status), "Enter on a QP shows its flows");
		return;
	}
	if (!qp_flows(u, r->idx, &dest_qp)) {
		snprintf(u->status, sizeof(u->status), "no flow seen for this QP");
		return;
	}
	snprintf(f, sizeof(f), "qp=%u", dest_qp);
	filter_to_flows(u, f);
}

const struct view view_nic = {
    .name = "NIC",
    .key = 'N',
    .default_sort = -1,
    .row_size = sizeof(struct nic_row),
    .enter_hint = "QP's flows",
    .legend = "/s: last NIC interval  * lossless priority  PAUSED: share of it  "
	      "FLOWS: matched by source port and QP",
    .build = build,
    .enter = enter,
    .draw = draw,
};
