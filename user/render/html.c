// SPDX-License-Identifier: GPL-2.0
/*
 * html.c - report.html of a capture bundle: the findings, the paths and
 * the top flows, with charts as inline SVG. One file, no scripts, no
 * external assets: it opens from a ticket attachment on an air-gapped desk.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/format.h"
#include "render/html.h"
#include "render/report_mirror.h"
#include "render/summary.h"

#define CHART_W	  720
#define CHART_H	  220
#define MARGIN_L  70
#define MARGIN_B  30
#define MARGIN_T  20
#define TOP_FLOWS 50

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
				      "#9467bd", "#8c564b", "#e377c2", "#17becf"};
/* Past the palette, the same colours dashed, then dotted: 24 series told apart. */
static const char *const dashes[] = {"", " stroke-dasharray='8 4'", " stroke-dasharray='2 3'"};

#define LEGEND_ROW 16
#define BAR_ROW	   34 /* a path's row in the flows chart: its label, its bar below */

/* A line chart of n series over the samples; value(i, k) gives series k at sample i. */
struct line_chart {
	const char *id, *title, *unit;
	int n_series;
	const char *const *names;
	double (*value)(const struct series *s, size_t i, int k);
	const char *none; /* said in the chart when it has no series */
};

static double max_value(const struct series *s, const struct line_chart *c)
{
	double m = 0;

	for (size_t i = 0; i < s->n; i++)
		for (int k = 0; k < c->n_series; k++)
			m = fmax(m, c->value(s, i, k));
	return m > 0 ? m : 1;
}

static void axes(FILE *out, double ymax, double tmax, const char *unit)
{
	char label[32];

	fprintf(out, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#555'/>", MARGIN_L,
		CHART_H - MARGIN_B, CHART_W - 10, CHART_H - MARGIN_B);
	fprintf(out, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#555'/>", MARGIN_L, MARGIN_T,
		MARGIN_L, CHART_H - MARGIN_B);
	for (int g = 0; g <= 4; g++) {
		int y = CHART_H - MARGIN_B - g * (CHART_H - MARGIN_B - MARGIN_T) / 4;

		fprintf(out, "<text x='%d' y='%d' text-anchor='end' font-size='11'>%s</text>",
			MARGIN_L - 6, y + 4, fmt_si(label, sizeof(label), ymax * g / 4, unit));
	}
	fprintf(out, "<text x='%d' y='%d' font-size='11'>0 s</text>", MARGIN_L, CHART_H - 8);
	fprintf(out, "<text x='%d' y='%d' text-anchor='end' font-size='11'>%.0f s</text>",
		CHART_W - 10, CHART_H - 8, tmax);
}

/*
 * The legend under the plot, in as many columns as the longest name lets
 * fit (about 7 px a character): a path name is up to 63 characters, and
 * an SVG clips what it has no room for.
 */
static int legend_columns(const struct line_chart *c)
{
	size_t longest = 1;
	int cols;

	for (int k = 0; k < c->n_series; k++)
		longest = strlen(c->names[k]) > longest ? strlen(c->names[k]) : longest;
	cols = (CHART_W - MARGIN_L) / (int)(30 + 7 * longest);
	return cols < 1 ? 1 : cols > 4 ? 4 : cols;
}

static void legend(FILE *out, const struct line_chart *c, int cols)
{
	int col_w = (CHART_W - MARGIN_L) / cols;

	for (int k = 0; k < c->n_series; k++) {
		int x = MARGIN_L + k % cols * col_w, y = CHART_H + (k / cols + 1) * LEGEND_ROW;

		fprintf(out,
			"<line x1='%d' y1='%d' x2='%d' y2='%d' stroke-width='2' stroke='%s'%s/>", x,
			y - 4, x + 20, y - 4, palette[k % 8], dashes[k / 8 % 3]);
		fprintf(out, "<text x='%d' y='%d' font-size='12'>", x + 26, y);
		fmt_markup(out, c->names[k]);
		fprintf(out, "</text>");
	}
}

static void point(FILE *out, const struct series *s, const struct line_chart *c, int k, size_t i,
		  double xs, double ys)
{
	fprintf(out, "%.1f,%.1f ", MARGIN_L + s->samples[i].t_s * xs,
		CHART_H - MARGIN_B - c->value(s, i, k) * ys);
}

/*
 * Series k's points: every sample while there are no more than two a
 * pixel column, else each column's lowest and highest in time order (a
 * day is 86400 samples a series, 640 columns), so a spike of one
 * sample still shows and the file stays small.
 */
static void polyline_points(FILE *out, const struct series *s, const struct line_chart *c, int k,
			    double xs, double ys)
{
	const int plot_w = CHART_W - 10 - MARGIN_L;
	size_t i = 0;

	if (s->n <= 2 * (size_t)plot_w) {
		for (; i < s->n; i++)
			point(out, s, c, k, i, xs, ys);
		return;
	}
	while (i < s->n) {
		int col = (int)(s->samples[i].t_s * xs);
		size_t lo = i, hi = i;

		for (i++; i < s->n && (int)(s->samples[i].t_s * xs) == col; i++) {
			if (c->value(s, i, k) < c->value(s, lo, k))
				lo = i;
			if (c->value(s, i, k) > c->value(s, hi, k))
				hi = i;
		}
		point(out, s, c, k, lo < hi ? lo : hi, xs, ys);
		if (lo != hi)
			point(out, s, c, k, lo < hi ? hi : lo, xs, ys);
	}
}

static void line_chart(FILE *out, const struct series *s, const struct line_chart *c)
{
	double ymax = max_value(s, c), tmax = s->n ? s->samples[s->n - 1].t_s : 1;
	double xs = (CHART_W - 10 - MARGIN_L) / (tmax > 0 ? tmax : 1);
	double ys = (CHART_H - MARGIN_B - MARGIN_T) / ymax;
	int cols = legend_columns(c), rows = (c->n_series + cols - 1) / cols;

	fprintf(out,
		"<h3>%s</h3>\n<svg id='%s' class='chart' width='%d' height='%d' "
		"xmlns='http://www.w3.org/2000/svg'>",
		c->title, c->id, CHART_W, CHART_H + rows * LEGEND_ROW + (rows ? 6 : 0));
	axes(out, ymax, tmax, c->unit);
	for (int k = 0; k < c->n_series; k++) {
		fprintf(out, "<polyline fill='none' stroke-width='2' stroke='%s'%s points='",
			palette[k % 8], dashes[k / 8 % 3]);
		polyline_points(out, s, c, k, xs, ys);
		fprintf(out, "'/>");
	}
	legend(out, c, cols);
	if (!s->n || !c->n_series) {
		fprintf(out, "<text x='%d' y='%d'>", MARGIN_L + 10, CHART_H / 2);
		fmt_markup(out, !s->n ? "no samples" : c->none ? c->none : "no series");
		fprintf(out, "</text>");
	}
	fprintf(out, "</svg>\n");
}

static double path_bps(const struct series *s, size_t i, int k)
{
	return k < s->samples[i].n_paths ? s->samples[i].path_bps[k] : 0;
}

static double ecn_value(const struct series *s, size_t i, int k)
{
	const struct series_sample *x = &s->samples[i];

	return k == 0 ? x->ce_per_s : k == 1 ? x->cnp_per_s : x->rtx_per_s;
}

/*
 * One row a path, its label over its bar: as many paths as the analysis
 * holds fit, and a long name runs over nothing (bars side by side left a
 * label 50 px, and at 64 paths a bar of negative width).
 */
static void flows_chart(FILE *out, const struct analysis *a, const char *no_paths)
{
	const int bar_max = CHART_W - 20;
	char flows[48], elephants[48];
	__u64 most = 1;

	for (int p = 0; p < a->n_paths; p++)
		most = a->paths[p].flows > most ? a->paths[p].flows : most;
	fprintf(out,
		"<h3>Flows per path</h3>\n<svg id='chart-flows' class='chart' width='%d' "
		"height='%d' xmlns='http://www.w3.org/2000/svg'>",
		CHART_W, a->n_paths ? MARGIN_T + a->n_paths * BAR_ROW : CHART_H);
	for (int p = 0; p < a->n_paths; p++) {
		const struct path_view *pv = &a->paths[p];
		int y = MARGIN_T + p * BAR_ROW;

		fprintf(out, "<text x='10' y='%d' font-size='12'>", y);
		fmt_markup(out, pv->name);
		fprintf(out, ": %s, %s</text>", fmt_count(flows, sizeof(flows), pv->flows, "flow"),
			fmt_count(elephants, sizeof(elephants), pv->elephants, "elephant"));
		fprintf(out, "<rect x='10' y='%d' width='%.1f' height='12' fill='%s'/>", y + 5,
			(double)bar_max * pv->flows / most, palette[p % 8]);
	}
	if (!a->n_paths) {
		fprintf(out, "<text x='%d' y='%d'>", MARGIN_L, CHART_H / 2);
		fmt_markup(out, no_paths ? no_paths : "no paths");
		fprintf(out, "</text>");
	}
	fprintf(out, "</svg>\n");
}

static void findings(FILE *out, const struct report *r)
{
	const struct analysis *a = r->an;
	char unseen[512];

	fprintf(out, "<h2>Findings</h2>\n");
	/* No alert over nothing seen is no verdict (summary.h). */
	if (report_unseen(r, unseen, sizeof(unseen))) {
		fprintf(out, "<p class='warning'><b>%s</b>: ",
			a->n_alerts	     ? "Note"
			: report_nic_lost(r) ? "None, as the RDMA ports read went away"
					     : "None, as nothing was observed");
		fmt_markup(out, unseen);
		fprintf(out, ".<br>");
		fmt_markup(out, report_unseen_hint(r));
		fprintf(out, "</p>\n");
		if (!a->n_alerts)
			return;
	}
	if (!a->n_alerts) {
		fprintf(out, "<p class='ok'>Nothing wrong was seen.</p>\n");
		return;
	}
	fprintf(out, "<ol class='findings'>\n");
	for (size_t i = 0; i < a->n_alerts; i++) {
		const struct alert *al = &a->alerts[i];

		fprintf(out, "<li class='%s'><b>[%s] %s</b>: ", severity_name(al->severity),
			severity_name(al->severity), alert_type_name(al->type));
		fmt_markup(out, al->message);
		fprintf(out, "<br><small>evidence: ");
		fmt_markup(out, al->evidence);
		fprintf(out, "<br>check next: ");
		fmt_markup(out, alert_advice(al));
		fprintf(out, "</small></li>\n");
	}
	fprintf(out, "</ol>\n");
}

/* What the refreshes raised and the whole run does not (report_cleared()). */
static void cleared(FILE *out, const struct alert_log *log)
{
	const struct alert_entry *e;
	size_t shown = 0;
	char when[64];

	for (size_t i = 0; (e = report_cleared(log, &i)); shown++) {
		if (!shown)
			fprintf(out,
				"<h3>Also raised during the run</h3>\n<p>Cleared before its end; "
				"times from its start.</p>\n<ul class='findings'>\n");
		fprintf(out, "<li class='%s'><b>[%s] %s</b> %s: ", severity_name(e->last.severity),
			severity_name(e->last.severity), alert_type_name(e->last.type),
			report_cleared_when(when, sizeof(when), e));
		fmt_markup(out, e->last.message);
		fprintf(out, "<br><small>evidence, when last raised: ");
		fmt_markup(out, e->last.evidence);
		fprintf(out, "</small></li>\n");
	}
	if (shown)
		fprintf(out, "</ul>\n");
}

static void flows_table(FILE *out, const struct report *rep)
{
	const struct snapshot *s = rep->snap;
	const struct analysis *a = rep->an;
	size_t n = s->n_flows < TOP_FLOWS ? s->n_flows : TOP_FLOWS;
	char src[FP_ENDPOINT_STRLEN], dst[FP_ADDR_STRLEN], rate[32], bytes[32],
	    who[NIC_COMM_LEN + 16], window[64], more[48], at[48];

	/* The columns' windows and what sampled input cannot count, as summary.txt says them. */
	fprintf(out,
		"<h2>Top flows</h2>\n<p>rate: over %s; packets to gaps: since the flow entered "
		"the table; NAK: RNR NAKs included",
		analysis_window(a, false, window, sizeof(window)));
	if (s->n_flows && s->flows[0].samples) {
		char rates[48];

		fprintf(out,
			"; sampled %s: packets, bytes, CE, CNP, ACK and NAK are estimates, each "
			"sample times its rate; rtx and gaps need every packet",
			flow_sampling_text(rates, sizeof(rates), s->flows, s->n_flows));
	}
	if (n < s->n_flows)
		fprintf(out, "; the busiest %zu of %zu flows", n, s->n_flows);
	fprintf(out,
		"</p>\n<table><tr><th>src:sport</th><th>dst</th><th>VNI</th>"
		"<th>QP</th><th>path</th><th>rate</th><th>packets</th><th>bytes</th><th>CE</th>"
		"<th>CNP</th><th>ACK</th><th>NAK</th><th>rtx</th><th>gaps</th>%s</tr>\n",
		rep->nic ? "<th>local QP owner</th>" : "");
	for (size_t i = 0; i < n; i++) {
		const struct flow_record *r = &s->flows[i];
		const struct flow_view *v = &a->flows[i];
		bool v6 = r->key.flags & FP_FLOW_IPV6;

		fprintf(out, "<tr%s><td>%s</td><td>%s</td>", v->elephant ? " class='elephant'" : "",
			fmt_endpoint(src, sizeof(src), r->key.src, v6, r->key.sport),
			fmt_addr(dst, sizeof(dst), r->key.dst, v6));
		if (r->key.flags & FP_FLOW_VXLAN)
			fprintf(out, "<td>%u</td>", r->key.vni);
		else
			fprintf(out, "<td>-</td>");
		fprintf(out, "<td>%u</td><td>", r->key.dest_qp);
		fmt_markup(out, report_flow_path(rep, i));
		/* One session's copies at two points are two rows alike: say which is which. */
		fmt_markup(out, report_copied_at(at, sizeof(at), &r->key));
		fprintf(out,
			"</td><td>%s</td><td>%llu</td><td>%s</td><td>%llu</td><td>%llu</"
			"td><td>%llu</td><td>%llu</td>",
			fmt_si(rate, sizeof(rate), v->bps, "b/s"), (unsigned long long)r->c.packets,
			fmt_si(bytes, sizeof(bytes), r->c.bytes, "B"),
			(unsigned long long)flow_ce(&r->c), (unsigned long long)r->c.cnp,
			(unsigned long long)r->c.acks,
			(unsigned long long)(r->c.naks + r->c.rnr_naks));
		/* Retransmits and gaps need every packet: sampled, unknown (JSON null), not 0. */
		if (report_flow_sampled(rep, r))
			fprintf(out, "<td>-</td><td>-</td>");
		else
			fprintf(out, "<td>%llu</td><td>%llu</td>",
				(unsigned long long)r->c.retransmits,
				(unsigned long long)r->c.psn_gaps);
		if (rep->nic) {
			const struct nic_qp *q = nic_flow_owner(rep->nic, i);

			fprintf(out, "<td style='text-align:left'>");
			fmt_markup(out, q ? nic_owner_text(who, sizeof(who), q) : "-");
			fprintf(out, "</td>");
		}
		fprintf(out, "</tr>\n");
	}
	fprintf(out, "</table>\n");
	if (n < s->n_flows)
		fprintf(out, "<p>... %s (%s shows all)</p>\n",
			fmt_count(more, sizeof(more), s->n_flows - n, "more flow"),
			rep->all_flows ? rep->all_flows : "--json");
}

/* A mirror session's counts are of copies: summary.txt's note under its paths, as a paragraph. */
static void copies_note(FILE *out, const struct analysis *a)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return;
	report_copies_note(mem, a);
	if (!fclose(mem) && len) {
		fprintf(out, "<p>");
		fmt_markup(out, text);
		fprintf(out, "</p>\n");
	}
	free(text);
}

/* The paths as summary.txt lists them: group and port columns where the source has them. */
static void paths_table(FILE *out, const struct analysis *a)
{
	char rate[32], bytes[32], bal[96];
	bool ports, named = report_paths_named(a, &ports);

	fprintf(out,
		"<h2>Path balance</h2>\n<table><tr><th>uplink</th>%s<th>flows</th>"
		"<th>elephants</th><th>packets</th><th>bytes</th><th>rate</th>%s</tr>\n",
		named ? "<th>group</th>" : "",
		ports ? "<th>port out</th><th>port discards</th><th>port status</th>" : "");
	for (int p = 0; p < a->n_paths; p++) {
		const struct path_view *pv = &a->paths[p];
		struct port_cells pc;

		fprintf(out, "<tr><td>");
		fmt_markup(out, pv->name);
		if (named) {
			fprintf(out, "</td><td>");
			fmt_markup(out, pv->group >= 0 ? a->groups[pv->group].name : "-");
		}
		fprintf(out, "</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%s</td><td>%s</td>",
			(unsigned long long)pv->flows, (unsigned long long)pv->elephants,
			(unsigned long long)pv->packets,
			fmt_si(bytes, sizeof(bytes), pv->bytes, "B"),
			fmt_si(rate, sizeof(rate), pv->bps, "b/s"));
		report_port_cells(&pc, pv->counters);
		if (ports)
			fprintf(out, "<td>%s</td><td>%s</td><td>%s</td>", pc.out, pc.discards,
				pc.oper);
		fprintf(out, "</tr>\n");
	}
	fprintf(out, "</table>\n");
	copies_note(out, a);
	/* Balance is a group's: each one's, named, where there are several (summary.txt's). */
	if (named || a->n_groups > 1) {
		fprintf(out, "<ul>\n");
		for (int g = 0; g < a->n_groups; g++) {
			fprintf(out, "<li>group ");
			fmt_markup(out, a->groups[g].name[0] ? a->groups[g].name : "-");
			fprintf(out, " %s</li>\n",
				report_group_balance(bal, sizeof(bal), &a->groups[g]));
		}
		fprintf(out, "</ul>\n");
	} else {
		fprintf(out, "<p>%s</p>\n", report_balance(bal, sizeof(bal), a));
	}
}

/* Where the bundle came from, as summary.txt says it. */
static void provenance(FILE *out, const struct provenance *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return;
	summary_provenance(mem, p);
	if (!fclose(mem)) {
		fprintf(out, "<pre class='provenance'>");
		fmt_markup(out, text);
		fprintf(out, "</pre>\n");
	}
	free(text);
	/* Above the findings, where a reader looks first: they judge a part only. */
	if (p->partial) {
		fprintf(out, "<p class='warning'><b>Partial</b>: ");
		fmt_markup(out, p->partial);
		fprintf(out, ".</p>\n");
	}
}

void html_report(FILE *out, const struct report *r, double duration_s)
{
	const struct snapshot *s = r->snap;
	const struct analysis *a = r->an;
	const struct series *series = r->series;
	static const char *const ecn_names[] = {"CE marks/s", "CNPs/s", "retransmits/s"};
	const char *path_names[AN_MAX_PATHS];
	struct line_chart load = {"chart-load",	     "Load per uplink", "b/s",
				  series->n_paths,   path_names,	path_bps,
				  report_no_paths(r)};
	struct line_chart ecn = {
	    "chart-ecn", "CE, CNP and retransmits over time", "/s", 3, ecn_names, ecn_value, NULL};
	char when[64], span[320], observed[32];

	for (int p = 0; p < series->n_paths; p++)
		path_names[p] = series->path_names[p];
	fprintf(out,
		"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>fabprobe capture: ");
	fmt_markup(out, r->src->what);
	fprintf(out,
		"</title>\n"
		"<style>body{font-family:sans-serif;margin:2em;max-width:1100px}"
		"table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;"
		"padding:2px 6px;text-align:right}th{background:#eee}"
		".critical{color:#b00}.warning{color:#a60}.info{color:#036}"
		"tr.elephant{background:#fff3e0}.chart{border:1px solid #ddd;margin-bottom:1em}"
		"pre{white-space:pre-wrap;overflow-wrap:anywhere}"
		"</style></head><body>\n");
	fprintf(out, "<h1>fabprobe capture: ");
	fmt_markup(out, r->src->what);
	fprintf(out, "</h1>\n<p>Input: ");
	fmt_markup(out, r->src->what);
	fprintf(out, " (");
	fmt_markup(out, r->src->how);
	fmt_markup(out, source_uplink_note(r->src));
	fprintf(out, "); RoCE traffic: %s.</p>\n", report_span(r, span, sizeof(span)));
	fprintf(out,
		"<p>Made %s, %s observed; %llu frames, %llu RoCE, "
		"%zu flows, %llu malformed.</p>\n",
		report_made(when, sizeof(when)),
		report_observed(observed, sizeof(observed), duration_s),
		(unsigned long long)s->totals[FP_CNT_FRAMES],
		(unsigned long long)s->totals[FP_CNT_ROCE], s->n_flows,
		(unsigned long long)s->totals[FP_CNT_MALFORMED]);
	if (r->prov)
		provenance(out, r->prov);
	findings(out, r);
	cleared(out, r->log);
	fprintf(out, "<h2>Over time</h2>\n");
	/* Sampled input (sFlow) cannot count resends (JSON null): no line of 0 for them. */
	if (!r->src->every_packet && strcmp(r->src->mode, "nic")) {
		ecn.title = "CE and CNP over time (estimates; retransmits need every packet, which "
			    "sampled input does not see)";
		ecn.n_series = 2;
	}
	line_chart(out, series, &load);
	line_chart(out, series, &ecn);
	flows_chart(out, a, report_no_paths(r));
	paths_table(out, a);
	flows_table(out, r);
	if (r->nic)
		html_nic(out, r->nic);
	fprintf(out, "</body></html>\n");
}
