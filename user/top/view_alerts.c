// SPDX-License-Identifier: GPL-2.0
/*
 * view_alerts.c - Alerts: the session's alert log (core/alert_log.h), one
 * entry per type and subject, severity first, active before cleared; each
 * with its message and evidence wrapped under it.
 */
#include <string.h>

#include "top/ui.h"
#include "util/format.h"

static const struct alert_entry *entry(const struct ui *u, const void *row)
{
	return &u->ss->log->e[*(const int *)row];
}

static int build(struct ui *u, struct vstate *vs)
{
	const struct alert_log *log = u->ss->log;
	int err = rows_grow(vs, log->n, sizeof(int));

	if (err)
		return err;
	memcpy(vs->rows, log->order, log->n * sizeof(int));
	vs->n_rows = log->n;
	return 0;
}

static int entry_height(const struct alert_entry *h)
{
	int w = COLS - 4 > 10 ? COLS - 4 : 10;

	return 1 + wrap(NULL, -1, 0, w, 2, 0, h->last.message) +
	       wrap(NULL, -1, 0, w, 2, 0, h->last.evidence);
}

static enum role severity_role(enum severity s)
{
	return s == SEV_CRITICAL ? R_CRIT : s == SEV_WARNING ? R_WARN : R_INFO;
}

static void draw(struct ui *u, struct vstate *vs, int y0, int height)
{
	const int *order = vs->rows;
	int rows = vs->n_rows, y = y0;
	double now = u->ss->desc.clock_s;

	if (!rows) {
		putf(u, y0, 1, ui_attr(u, R_DIM), "no alerts so far");
		return;
	}
	/*
	 * Entries differ in height: from where the list is, scroll only until
	 * the selected one fits (a height of one row put each selected entry
	 * first, hiding those above it with the screen half empty); a
	 * selection above the list brings the list up to it. With the rest
	 * of the list as its height, scroll_to() does only that.
	 */
	scroll_to(vs, rows, rows - vs->top);
	for (;;) {
		int used = 0;

		for (int r = vs->top; r <= vs->sel; r++)
			used += entry_height(entry(u, &order[r]));
		if (used <= height || vs->top >= vs->sel)
			break;
		vs->top++;
	}
	for (int r = vs->top; r < rows && y < y0 + height; r++) {
		const struct alert_entry *h = entry(u, &order[r]);
		bool sel = r == vs->sel;
		char first[32], last[32], head[LINE_MAX_BYTES], sev[16];
		int x, w = COLS - 4;

		if (sel)
			fill_line(y, ui_attr(u, R_SEL));
		snprintf(sev, sizeof(sev), "%s", severity_name(h->last.severity));
		for (char *p = sev; *p; p++)
			*p = *p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p;
		x = put(u, y, 0, 10, true, false,
			ui_attr(u, sel ? R_SEL : severity_role(h->last.severity)), sev);
		fmt_duration(first, sizeof(first), now - h->first_s);
		fmt_duration(last, sizeof(last), now - h->last_s);
		snprintf(head, sizeof(head), "%-22s x%-5llu first %s ago, %s%s%s",
			 alert_type_name(h->last.type), (unsigned long long)h->count, first,
			 h->active ? "active" : "cleared, last ", h->active ? "" : last,
			 h->active ? "" : " ago");
		put(u, y, x, COLS - x, false, false,
		    ui_attr(u, sel	   ? R_SEL
			       : h->active ? R_TITLE
					   : R_DIM),
		    head);
		y++;
		y += wrap(u, y < y0 + height ? y : -1, 4, w,
			  y0 + height - y < 2 ? y0 + height - y : 2,
			  ui_attr(u, h->active ? R_NORMAL : R_DIM), h->last.message);
		if (y < y0 + height)
			y += wrap(u, y, 4, w, y0 + height - y < 2 ? y0 + height - y : 2,
				  ui_attr(u, R_DIM), h->last.evidence);
	}
}

static void enter(struct ui *u, const void *row)
{
	const struct alert_entry *h = entry(u, row);
	int flow = h->last.n_flows ? analysis_find(u->an, &h->last.flows[0]) : -1;

	if (flow >= 0)
		open_detail(u, flow);
	else
		snprintf(u->status, sizeof(u->status),
			 h->last.n_flows ? "that flow is no longer in the table"
					 : "this alert names no flow");
}

const struct view view_alerts = {
    .name = "Alerts",
    .key = 'A',
    .default_sort = -1,
    .row_size = sizeof(int),
    .enter_hint = "its flow",
    .legend = "xN: refreshes that raised it  ago: in the source's time  severity first",
    .build = build,
    .enter = enter,
    .draw = draw,
};
