// SPDX-License-Identifier: GPL-2.0
/*
 * view_detail.c - one flow in full: its counters since it was first seen
 * and per second over the last interval, the ECN mix, traffic class,
 * opcodes, PSN state (asked of the probe for this flow only), its reverse
 * direction and the uplinks it took over time.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "top/ui.h"
#include "util/format.h"
#include "util/log.h"

/* Lines of the detail, each only while there is room. */
struct lines {
	const struct ui *u;
	int y, y_end;
};

static void line(struct lines *l, int x, attr_t attr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void line(struct lines *l, int x, attr_t attr, const char *fmt, ...)
{
	char buf[LINE_MAX_BYTES];
	va_list ap;

	if (l->y >= l->y_end)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put(l->u, l->y++, x, COLS - x, false, false, attr, buf);
}

static void ecn_line(struct lines *l, const char *what, const __u64 ecn[4])
{
	__u64 total = ecn[0] + ecn[1] + ecn[2] + ecn[3];
	char a[16], b[16], c[16], d[16];

	/* Codepoints (RFC 3168 section 5): 00 Not-ECT, 10 ECT(0), 01 ECT(1), 11 CE. */
	line(l, 0, A_NORMAL, "%-12snot-ECT %s  ECT(0) %s  ECT(1) %s  CE %s", what,
	     fmt_pct(a, sizeof(a), ecn[0], total), fmt_pct(b, sizeof(b), ecn[2], total),
	     fmt_pct(c, sizeof(c), ecn[1], total), fmt_pct(d, sizeof(d), ecn[3], total));
}

static void class_lines(struct lines *l, const struct flow_record *r)
{
	const struct flow_counters *c = &r->c;
	char dscps[256], ops[LINE_MAX_BYTES], t[2][48];
	size_t d = 0, o = 0;

	for (int b = 0; b < 64 && d + 8 < sizeof(dscps); b++)
		if (flow_dscps(r) & (1ULL << b))
			d += snprintf(dscps + d, sizeof(dscps) - d, "%s%d", d ? "," : "", b);
	if (!d)
		snprintf(dscps, sizeof(dscps), "-");
	line(l, 0, A_NORMAL, "class       DSCP %u (seen %s)  VLAN %s  PCP %s", c->dscp, dscps,
	     c->vlan_tagged ? (snprintf(t[0], 16, "%u", c->vlan), t[0]) : "-",
	     c->vlan_tagged ? (snprintf(t[1], 16, "%u", c->pcp), t[1]) : "-");
	for (int op = 0; op < 256 && o + 32 < sizeof(ops); op++)
		if (c->opcodes[op >> 6] & (1ULL << (op & 63)))
			o += snprintf(ops + o, sizeof(ops) - o, "%s%s", o ? ", " : "",
				      fmt_opcode(t[0], sizeof(t[0]), op));
	line(l, 0, A_NORMAL, "opcodes     last %s", fmt_opcode(t[1], sizeof(t[1]), c->last_opcode));
	if (l->y < l->y_end)
		l->y += wrap(l->u, l->y, 12, COLS - 12, l->y_end - l->y < 2 ? l->y_end - l->y : 2,
			     A_NORMAL, o ? ops : "-");
}

static void counter_lines(struct lines *l, int f)
{
	const struct ui *u = l->u;
	const struct analysis *a = u->an;
	const struct flow_view *v = &a->flows[f];
	const struct flow_counters *c = &v->r->c;
	/* One sample in N cannot tell a resend or a gap: unknown, not 0. */
	bool sampled = v->r->samples || !u->ss->desc.every_packet;
	char t[8][48], win[64], rtx[24] = "-", gaps[24] = "-";

	window_text(u, win, sizeof(win));
	if (!sampled) {
		snprintf(rtx, sizeof(rtx), "%llu", (unsigned long long)c->retransmits);
		snprintf(gaps, sizeof(gaps), "%llu", (unsigned long long)c->psn_gaps);
	}
	line(l, 0, A_NORMAL, "path        %s%s%s%s", path_name(a, v->path),
	     v->elephant ? "  elephant" : "",
	     u->marks[f] & MARK_COLLISION ? "  in a collision" : "",
	     v->predicted_path >= 0
		 ? (snprintf(t[0], sizeof(t[0]), "  model predicts path %d", v->predicted_path),
		    t[0])
		 : "");
	line(l, 0, A_NORMAL, "rate        %s  %s  (%s)", fmt_si(t[1], sizeof(t[1]), v->bps, "b/s"),
	     fmt_si(t[2], sizeof(t[2]), analysis_per_s(a, v->d.packets), "pps"), win);
	if (v->r->samples)
		line(
		    l, 0, A_NORMAL,
		    "sampled     %llu samples at 1 in %u: packets, bytes, CE, CNP, ACK and NAK are "
		    "estimates",
		    (unsigned long long)v->r->samples, v->r->rate);
	line(l, 0, A_NORMAL, "since seen  %llu packets, %s  ACK %llu  NAK %llu  RNR %llu",
	     (unsigned long long)c->packets, fmt_si(t[3], sizeof(t[3]), c->bytes, "B"),
	     (unsigned long long)c->acks, (unsigned long long)c->naks,
	     (unsigned long long)c->rnr_naks);
	line(l, 0, A_NORMAL,
	     "            CE %llu  CNP %llu  rtx %s  PSN gaps %s  FECN %llu  BECN %llu",
	     (unsigned long long)flow_ce(c), (unsigned long long)c->cnp, rtx, gaps,
	     (unsigned long long)c->fecn, (unsigned long long)c->becn);
	line(l, 0, A_NORMAL, "per second  CE %s  CNP %s  rtx %s  NAK %s  (%s)",
	     rate_text(t[4], 16, analysis_per_s(a, v->d.ce)),
	     rate_text(t[5], 16, analysis_per_s(a, v->d.cnp)),
	     sampled ? "-" : rate_text(t[6], 16, analysis_per_s(a, v->d.rtx)),
	     rate_text(t[7], 16, analysis_per_s(a, v->d.naks + v->d.rnr_naks)), win);
	ecn_line(l, "ECN", c->ecn);
	if (v->r->key.flags & FP_FLOW_VXLAN)
		ecn_line(l, "inner ECN", c->inner_ecn);
	class_lines(l, v->r);
	if (c->psn.tracking)
		line(l, 0, A_NORMAL, "PSN         last 0x%06x  max 0x%06x  next in order <= 0x%06x",
		     c->psn.last_psn, c->psn.max_psn, c->psn.next_psn_max);
	if (c->psn.resp_seen)
		line(l, 0, A_NORMAL, "PSN         answered (ACKs, READ responses) up to 0x%06x",
		     c->psn.resp_psn);
	if (!c->psn.tracking && !c->psn.resp_seen)
		line(l, 0, ui_attr(u, R_DIM),
		     "PSN         not tracked (only requests, ACKs and READ responses are)");
	if (v->reverse >= 0) {
		const struct flow_view *r = &a->flows[v->reverse];

		line(l, 0, A_NORMAL,
		     "reverse     qp %u on %s: %s, ACK %llu, NAK %llu, CNP %llu (%s/s)",
		     r->r->key.dest_qp, path_name(a, r->path),
		     fmt_si(t[0], sizeof(t[0]), r->bps, "b/s"), (unsigned long long)r->r->c.acks,
		     (unsigned long long)r->r->c.naks, (unsigned long long)r->r->c.cnp,
		     rate_text(t[1], 16, analysis_per_s(a, r->d.cnp)));
	} else {
		line(l, 0, ui_attr(u, R_DIM), "reverse     not seen");
	}
	line(l, 0, A_NORMAL, "seen        first %s ago, last %.1f s ago",
	     fmt_duration(t[0], sizeof(t[0]), flow_age_s(u, v)),
	     u->ss->snap.taken_ns > c->last_seen_ns ? (u->ss->snap.taken_ns - c->last_seen_ns) / 1e9
						    : 0.0);
}

static void history_lines(struct lines *l, const struct path_hist *ph)
{
	const struct ui *u = l->u;
	double now = u->ss->desc.clock_s, recent = u->t->interval_s * 1.5;
	char t[3][48];

	line(l, 0, ui_attr(u, R_TITLE), "path over time%s",
	     ph ? "" : ": not seen carrying traffic on an uplink");
	for (int s = ph ? ph->n - 1 : 0; ph && s >= 0; s--) {
		const struct path_seg *g = &ph->seg[s];
		bool now_on = now - g->to_s < recent;

		line(l, 2, s == ph->n - 1 ? A_BOLD : A_NORMAL, "%-8s from %s ago to %s%s (%s)",
		     iface_name(u, g->ifindex), fmt_duration(t[0], sizeof(t[0]), now - g->from_s),
		     now_on ? "now" : fmt_duration(t[1], sizeof(t[1]), now - g->to_s),
		     now_on ? "" : " ago", fmt_duration(t[2], sizeof(t[2]), g->to_s - g->from_s));
	}
}

static void draw(struct ui *u, struct vstate *vs, int y0, int height)
{
	const struct flow_key *k = &u->detail_key;
	bool v6 = k->flags & FP_FLOW_IPV6, iv6 = k->flags & FP_FLOW_INNER_IPV6;
	char src[FP_ENDPOINT_STRLEN], dst[FP_ENDPOINT_STRLEN], vni[16];
	struct lines l = {u, y0, y0 + height};
	int f = analysis_find(u->an, k);

	(void)vs;
	fill_line(y0, ui_attr(u, R_HEAD));
	line(&l, 0, ui_attr(u, R_HEAD), " flow %s > %s  qp %u  vni %s  seen on %s %s",
	     fmt_endpoint(src, sizeof(src), k->src, v6, k->sport),
	     fmt_endpoint(dst, sizeof(dst), k->dst, v6, k->dport), k->dest_qp,
	     vni_text(vni, sizeof(vni), k), iface_name(u, k->ifindex), fmt_dir(k->dir));
	/* The header's interface is the collector's: say where the switch took the copy. */
	if (k->mirror) {
		static const char *const types[] = {"", "ERSPAN I", "ERSPAN II", "ERSPAN III",
						    "GRE TEB"};
		char sw[48], at[32], session[24] = "";

		if (mirror_has_session(k))
			snprintf(session, sizeof(session), " %s %u",
				 k->mirror == FP_MIRROR_ERSPAN_II ||
					 k->mirror == FP_MIRROR_ERSPAN_III
				     ? "session"
				     : "key",
				 mirror_session_id(k));
		line(&l, 0, A_NORMAL, "mirror copy %s%s from switch %s%s%s",
		     k->mirror < sizeof(types) / sizeof(types[0]) ? types[k->mirror] : "?", session,
		     mirror_switch(sw, sizeof(sw), k),
		     mirror_point(at, sizeof(at), k) ? ", copied at " : "",
		     mirror_point(at, sizeof(at), k) ? at : "");
	}
	if (f < 0) {
		line(&l, 0, ui_attr(u, R_WARN),
		     "not in the latest snapshot: evicted from the flow table or gone");
	} else {
		if (k->flags & FP_FLOW_VXLAN)
			line(&l, 0, A_NORMAL, "inner       %s > %s",
			     fmt_endpoint(src, sizeof(src), k->inner_src, iv6, k->inner_sport),
			     fmt_endpoint(dst, sizeof(dst), k->inner_dst, iv6, k->inner_dport));
		counter_lines(&l, f);
	}
	history_lines(&l, history_find(&u->hist, k));
}

void open_detail(struct ui *u, int flow)
{
	if (flow < 0)
		return;
	u->detail_key = u->an->flows[flow].r->key;
	u->overlay = &view_detail;
}

static void close_detail(struct ui *u, int ch)
{
	(void)ch;
	u->overlay = NULL;
}

static const struct action actions[] = {
    {{27, '\n', '\r', KEY_ENTER, KEY_LEFT, KEY_BACKSPACE},
     "Esc Enter",
     "back to the view",
     "Esc/Enter back",
     close_detail},
};

const struct view view_detail = {
    .name = "Detail",
    .legend = "since seen: since the flow entered the table  per second: {w}",
    .draw = draw,
    .actions = actions,
    .n_actions = sizeof(actions) / sizeof(actions[0]),
};
