// SPDX-License-Identifier: GPL-2.0
/*
 * header.c - the lines around the view: what is watched and for how long,
 * the per-second totals, the flow table's fill, the tabs, the view's
 * legend and the status line with the keys.
 */
#include <string.h>

#include "top/ui.h"
#include "util/format.h"

/*
 * Per-second values: whole numbers from 10 up ("90", not "90.0"), since a
 * tenth of a packet per second over an interval is noise.
 */
const char *rate_text(char *buf, size_t len, double per_s)
{
	if (per_s >= 9.5 && per_s < 999.5)
		snprintf(buf, len, "%.0f", per_s);
	else
		fmt_si_compact(buf, len, per_s);
	return buf;
}

/*
 * The window the rates cover: "last 1.0 s", or the whole capture once it
 * ended: from its first RoCE packet, when that spans less than the capture.
 */
const char *window_text(const struct ui *u, char *buf, size_t len)
{
	double t = u->an->interval_s;
	char d[32];

	if (u->an != &u->whole) {
		snprintf(buf, len, "last %.1f s", t);
		return buf;
	}
	/* Under 10 s to a tenth, as the reports' windows (fmt_window()). */
	if (t < 10)
		snprintf(d, sizeof(d), "%.1f s", t);
	else
		fmt_duration(d, sizeof(d), t);
	snprintf(buf, len, "whole capture (%s%s)", d,
		 analysis_flows_narrower(u->an) ? " from the first RoCE" : "");
	return buf;
}

/*
 * Whether the source marked a point gone. The live source writes
 * "up4*(gone)" into desc.what; points carry no state of their own.
 */
static bool point_gone(const struct source_desc *sd, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = sd->what; (p = strstr(p, name)); p += n) {
		const char *end = p + n;

		if (p != sd->what && p[-1] != ' ')
			continue;
		if (*end == '*')
			end++;
		if (!strncmp(end, "(gone)", 6))
			return true;
	}
	return false;
}

/* "a/b/x.pcap c/y.pcap" -> "x.pcap y.pcap": capture names without their folders. */
static void basenames(char *buf, size_t len, const char *what)
{
	size_t o = 0;

	for (const char *p = what; *p && o + 1 < len; p++) {
		if (*p == '/') {
			while (o && buf[o - 1] != ' ' && buf[o - 1] != '=')
				o--;
			continue;
		}
		buf[o++] = *p;
	}
	buf[o] = 0;
}

/*
 * Line 0: what is watched, how, and for how long. Narrow: captures lose
 * their folders, then the CPU figure goes, then the hooks or pace; last
 * the list is shortened.
 */
static void draw_title(struct ui *u)
{
	const struct source_desc *sd = &u->ss->desc;
	char ifs[512] = "", names[512], how[64], right[96], clock[32], buf[640];
	bool mixed = false;
	size_t o = 0;
	int x, room = 0;

	for (int i = 0; i < sd->n_points; i++)
		mixed |= !sd->points[i].uplink;
	for (int i = 0; i < sd->n_points && o + 2 < sizeof(ifs); i++)
		o += snprintf(ifs + o, sizeof(ifs) - o, "%s%s%s%s", i ? " " : "",
			      sd->points[i].name, mixed && sd->points[i].uplink ? "*" : "",
			      point_gone(sd, sd->points[i].name) ? "(gone)" : "");
	/* sFlow's points are the switch ports it samples (Paths): the title is the listener. */
	if (!sd->n_points || !sd->every_packet)
		snprintf(ifs, sizeof(ifs), "%s", sd->what);
	/* The right side says a recording ended. */
	snprintf(how, sizeof(how), "%s", sd->how);
	if (sd->finite && strstr(how, ", ended"))
		*strstr(how, ", ended") = 0;
	fmt_duration(clock, sizeof(clock), session_clock_s(u->ss));
	x = put(u, 0, 0, COLS, false, false, ui_attr(u, R_TITLE), "fabprobe top ");
	for (int step = 0; step < 4; step++) {
		o = snprintf(right, sizeof(right), "%s %s",
			     !sd->finite    ? "up"
			     : u->ss->ended ? "end of capture at"
					    : "capture time",
			     clock);
		/* Over the last refresh's interval: none comes after a capture's end. */
		if (step < 2 && !u->ss->ended)
			snprintf(right + o, sizeof(right) - o, "  cpu %.1f%%", u->cpu_pct);
		if (step >= 1 && sd->finite)
			basenames(names, sizeof(names), ifs);
		else
			snprintf(names, sizeof(names), "%s", ifs);
		if (step < 3)
			snprintf(buf, sizeof(buf), "%s [%s]", names, how);
		else
			snprintf(buf, sizeof(buf), "%s", names);
		room = COLS - x - fmt_cols(right) - 2;
		if (fmt_cols(buf) <= room)
			break;
	}
	fmt_trunc(names, sizeof(names), buf, room > 3 ? room : 3);
	put(u, 0, x, room, false, false, A_NORMAL, names);
	put(u, 0, COLS - fmt_cols(right), fmt_cols(right), false, false,
	    ui_attr(u, u->ss->ended ? R_WARN : R_NORMAL), right);
}

struct rate_item {
	const char *name;
	double v;
	bool warn;     /* non-zero is worth a colour */
	int drop;      /* too narrow: the highest goes first; 0 stays */
	int drop_zero; /* ... the same while it is 0 */
};

/* Line 1: the totals per second; at 80 columns it loses spaces, then quiet items. */
static void draw_rates(struct ui *u)
{
	const __u64 *d = u->an->totals_delta;
	double dt = u->an->totals_s > 0 ? u->an->totals_s : 1;
	/* The flows' sums are over interval_s: over the totals' window too (a whole capture). */
	double flows = u->an->totals_s > 0 ? u->an->interval_s / u->an->totals_s : 1;
	struct rate_item it[] = {
	    {"frames", d[FP_CNT_FRAMES] / dt, false, 2, 2},
	    {"RoCE", d[FP_CNT_ROCE] / dt, false, 0, 0},
	    {"VXLAN", d[FP_CNT_VXLAN] / dt, false, 1, 3},
	    {"CE", u->ce_per_s * flows, true, 0, 0},
	    {"CNP", u->cnp_per_s * flows, true, 0, 0},
	    {"rtx", u->rtx_per_s * flows, true, 0, 0},
	    /* 0 is the usual value: it goes before a value the operator watches is hidden. */
	    {"malformed", d[FP_CNT_MALFORMED] / dt, true, 0, 4},
	};
	const int n = sizeof(it) / sizeof(it[0]);
	char v[sizeof(it) / sizeof(it[0])][16];
	int drop[sizeof(it) / sizeof(it[0])], sep = 2, x;

	for (int i = 0; i < n; i++) {
		rate_text(v[i], sizeof(v[i]), it[i].v);
		/* Sampled input cannot tell a resend: unknown, not 0. */
		if (!strcmp(it[i].name, "rtx") && !u->ss->desc.every_packet)
			snprintf(v[i], sizeof(v[i]), "-");
		drop[i] = it[i].v > 0 ? it[i].drop : it[i].drop_zero;
	}
	for (;;) {
		int w = strlen("per s:"), worst = -1, last = -1;

		for (int i = 0; i < n; i++) {
			if (drop[i] < 0)
				continue;
			w += (i ? sep : 1) + strlen(it[i].name) + 1 + strlen(v[i]);
			if (drop[i] && (worst < 0 || drop[i] > drop[worst]))
				worst = i;
			last = i;
		}
		if (w <= COLS || last < 0)
			break;
		if (sep == 2)
			sep = 1;
		else
			/* hidden; the last whole, never a value cut at the edge ("rtx 1.4"
			 * of 1.41k) */
			drop[worst >= 0 ? worst : last] = -1;
	}
	x = put(u, 1, 0, COLS, false, false, A_NORMAL, "per s:");
	for (int i = 0; i < n; i++) {
		if (drop[i] < 0)
			continue;
		x += putf(u, 1, x, A_NORMAL, "%*s%s ", i ? sep : 1, "", it[i].name);
		x += put(u, 1, x, COLS - x, false, false,
			 ui_attr(u, it[i].warn && it[i].v > 0 ? R_WARN : R_NORMAL), v[i]);
	}
}

/* Line 2: the flow table, the window, and on the right the filter and events. */
static void draw_table_line(struct ui *u)
{
	const struct session *ss = u->ss;
	const struct source_desc *sd = &ss->desc;
	char fill[16], win[64], left[LINE_MAX_BYTES], r[200] = "";
	int n = 0, w;

	/* Capacity as the IPv4 table's + the IPv6 table's (--flows, --flows6). */
	snprintf(left, sizeof(left), "flows %zu/%u+%u (%s)  evicted %llu  every %.1fs%s%s",
		 ss->snap.n_flows, ss->snap.flow_capacity - ss->snap.flow_capacity6,
		 ss->snap.flow_capacity6,
		 fmt_pct(fill, sizeof(fill), ss->snap.n_flows, ss->snap.flow_capacity),
		 (unsigned long long)snapshot_evictions(&ss->snap), u->t->interval_s,
		 u->an == &u->whole ? "  rates: " : "",
		 u->an == &u->whole ? window_text(u, win, sizeof(win)) : "");
	if (u->filter.n)
		n += snprintf(r + n, sizeof(r) - n, "filter: %s  ", u->filter_text);
	if (u->paused)
		n += snprintf(r + n, sizeof(r) - n, "PAUSED  ");
	/* Interface events (down, gone, back) would garble the screen on stderr. */
	if (sd->event[0])
		n += snprintf(r + n, sizeof(r) - n, "%s", sd->event);
	else if (ss->notice[0])
		n += snprintf(r + n, sizeof(r) - n, "%s", ss->notice);
	/*
	 * The state on the right (a filter, PAUSED, an event) wins over the
	 * table's figures when both do not fit, with two spaces between:
	 * at 40 columns it was drawn past the edge, and narrower than the
	 * two it was glued to them ("evicted 0filter: ...").
	 */
	w = n ? fmt_cols(r) : 0;
	if (w > COLS)
		w = COLS;
	if (!top_nic_only(u) && COLS - w - (n ? 2 : 0) > 0)
		put(u, 2, 0, COLS - w - (n ? 2 : 0), false, false, A_NORMAL, left);
	if (n)
		put(u, 2, COLS - w, w, false, false, ui_attr(u, u->paused ? R_WARN : R_TITLE), r);
}

bool top_nic_only(const struct ui *u)
{
	return u->ss->desc.mode && !strcmp(u->ss->desc.mode, "nic");
}

/*
 * Line 1 with NIC counters alone: no frames to count, and no flow table
 * (line 2 keeps its right side only): what the NIC view holds instead.
 */
static void draw_nic_line(struct ui *u)
{
	const struct nic_state *st = u->ss->nic ? &u->ss->nic->now.st : NULL;
	char ports[32], netdevs[32], qps[32];

	if (st && (st->n_ports || st->n_netdevs))
		putf(u, 1, 0, A_NORMAL, "NIC counters: %s, %s, %s  every %.1fs",
		     fmt_count(ports, sizeof(ports), st->n_ports, "RDMA port"),
		     fmt_count(netdevs, sizeof(netdevs), st->n_netdevs, "netdev"),
		     fmt_count(qps, sizeof(qps), st->n_qps, "QP"), u->t->interval_s);
	else
		putf(u, 1, 0, A_NORMAL, "NIC counters: %s",
		     st && st->info[0] ? st->info : "none read");
}

void draw_header(struct ui *u)
{
	draw_title(u);
	if (!u->have_data) {
		putf(u, 1, 0, ui_attr(u, R_DIM), "collecting: first picture after %.1f s",
		     u->t->interval_s);
		return;
	}
	if (top_nic_only(u))
		draw_nic_line(u);
	else
		draw_rates(u);
	draw_table_line(u);
}

void draw_tabs(struct ui *u)
{
	const struct view *v = views[u->view];
	const struct vstate *vs = &u->vs[u->view];
	int x = 0, alerts = u->ss->log->n_active, wide = 0;
	bool narrow;

	fill_line(HEADER_LINES, A_NORMAL);
	/*
	 * Where every tab's name does not fit (40 columns), the others are
	 * their number alone: the view on screen is always named.
	 */
	for (int i = 0; i < n_views; i++)
		wide +=
		    4 + fmt_cols(views[i]->name) +
		    (views[i] == &view_alerts && alerts ? snprintf(NULL, 0, "(%d)", alerts) : 0);
	narrow = wide > COLS;
	for (int i = 0; i < n_views; i++) {
		bool counted = views[i] == &view_alerts && alerts;
		bool named = !narrow || (i == u->view && !u->overlay);
		char tab[32], name[24] = "";

		if (named)
			snprintf(name, sizeof(name), " %s", views[i]->name);
		if (counted)
			snprintf(tab, sizeof(tab), " %d%s(%d) ", i + 1, name, alerts);
		else
			snprintf(tab, sizeof(tab), " %d%s ", i + 1, name);
		x += put(u, HEADER_LINES, x, COLS - x, false, false,
			 i == u->view && !u->overlay ? ui_attr(u, R_TAB)
						     : ui_attr(u, counted ? R_CRIT : R_NORMAL),
			 tab);
		x += put(u, HEADER_LINES, x, COLS - x, false, false, A_NORMAL, " ");
	}
	if (v->default_sort >= 0 && !u->overlay) {
		char s[64], title[32];
		int w;

		snprintf(s, sizeof(s), "sort %s %s",
			 col_title(title, sizeof(title), &v->cols[vs->sort]),
			 vs->reverse ? "(rev)" : "");
		w = fmt_cols(s);
		if (COLS - w - 1 > x)
			put(u, HEADER_LINES, COLS - w - 1, w, false, false, ui_attr(u, R_DIM), s);
	}
}

/* The line above the status: what the view's columns and marks mean; {w} is the window. */
void draw_legend(struct ui *u)
{
	const struct view *v = u->overlay ? u->overlay : views[u->view];
	const char *legend = v->legend, *w;
	char text[LINE_MAX_BYTES], win[64];

	if (v->legend_sampled && !u->ss->desc.every_packet)
		legend = v->legend_sampled;
	if (!legend || !u->have_data)
		return;
	w = strstr(legend, "{w}");
	if (w)
		snprintf(text, sizeof(text), "%.*s%s%s", (int)(w - legend), legend,
			 window_text(u, win, sizeof(win)), w + 3);
	else
		snprintf(text, sizeof(text), "%s", legend);
	put(u, LINES - 2, 0, COLS, false, false, ui_attr(u, R_DIM), text);
}

void draw_status(struct ui *u)
{
	int y = LINES - 1, x;
	char hints[256], right[64];

	fill_line(y, A_NORMAL);
	if (u->prompt) {
		x = put(u, y, 0, COLS, false, false, ui_attr(u, R_KEY),
			"filter (ip, qp=N, vni=N, path=IF; Esc clears): ");
		x += put(u, y, x, COLS - x - 1, false, false, A_NORMAL, u->edit);
		move(y, x < COLS ? x : COLS - 1);
		return;
	}
	if (u->status[0]) {
		put(u, y, 0, COLS, false, false, ui_attr(u, R_WARN), u->status);
		return;
	}
	status_hints(u, hints, sizeof(hints));
	x = put(u, y, 0, COLS, false, false, ui_attr(u, R_DIM), hints);
	if (u->overlay)
		return;
	right[0] = ' ';
	fmt_count(right + 1, sizeof(right) - 1, u->vs[u->view].n_rows, "row");
	if (COLS - fmt_cols(right) - 1 > x)
		put(u, y, COLS - fmt_cols(right) - 1, fmt_cols(right), false, false,
		    ui_attr(u, R_DIM), right);
}
