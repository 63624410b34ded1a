// SPDX-License-Identifier: GPL-2.0
/*
 * render/html.c: report.html says what summary.txt says of the same run
 * (the rate's window, what sampled input cannot count, where the flows it
 * leaves out are), on snapshots built by hand and analysed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "core/analysis.h"
#include "core/mirror.h"
#include "core/series.h"
#include "render/html.h"
#include "render/report.h"

#define MAX_FLOWS  80
#define MAX_POINTS AN_MAX_PATHS

struct fixture {
	struct flow_record flows[MAX_FLOWS];
	struct snapshot snap;
	struct obs_point points[MAX_POINTS];
	struct source_desc src;
	struct analysis_opts ao;
	struct analysis an;
	struct series series;
	char *html;
	double observed_s; /* the run's length as capture gives it; 0: 3 s */
};

static struct fixture fx;

static int setup(void **state)
{
	(void)state;
	memset(&fx, 0, sizeof(fx));
	fx.snap.flows = fx.flows;
	fx.snap.cap = MAX_FLOWS;
	fx.snap.flow_capacity = 1024;
	fx.snap.taken_ns = 3000000000ULL;
	fx.src = (struct source_desc){.mode = "replay", .points = fx.points, .every_packet = true};
	snprintf(fx.src.what, sizeof(fx.src.what), "test.pcap");
	snprintf(fx.src.how, sizeof(fx.src.how), "capture, as fast as it reads, ended");
	analysis_opts_default(&fx.ao);
	fx.ao.elephant_bps = 1e6;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	analysis_free(&fx.an);
	series_free(&fx.series);
	free(fx.html);
	return 0;
}

/* n uplinks named NAME1..NAMEn, ids 101.. */
static void uplinks(int n, const char *name)
{
	for (int i = 0; i < n; i++) {
		fx.points[i] = (struct obs_point){.id = 101 + i, .uplink = true};
		snprintf(fx.points[i].name, sizeof(fx.points[i].name), "%s%d", name, i + 1);
	}
	fx.src.n_points = n;
}

/* A WRITE flow of bytes seen from 1 s to 3 s, on point ifindex (0: none). */
static struct flow_record *add_flow(int i, __u32 ifindex, __u64 bytes)
{
	struct flow_record *r = &fx.flows[fx.snap.n_flows++];
	char src[32];

	snprintf(src, sizeof(src), "10.0.%d.%d", i / 250, i % 250 + 1);
	inet_pton(AF_INET, src, r->key.src);
	inet_pton(AF_INET, "10.9.0.1", r->key.dst);
	r->key.sport = 50000 + i;
	r->key.dport = 4791;
	r->key.dest_qp = 100 + i;
	r->key.ifindex = ifindex;
	r->c.bytes = bytes;
	r->c.packets = bytes / 1000 + 1;
	r->c.ecn[2] = r->c.packets;
	r->c.dscp_mask = 1ULL << 26;
	r->c.dscp = 26;
	r->c.opcodes[0] = 1ULL << FP_OP_WRITE_MIDDLE;
	r->c.first_seen_ns = 1000000000ULL;
	r->c.last_seen_ns = 3000000000ULL;
	return r;
}

/* Analyse over the flows' own span, one series sample, and render report.html. */
static void render(void)
{
	struct report r;
	size_t len = 0;
	FILE *out;

	snapshot_flow_totals(&fx.snap);
	assert_int_equal(analysis_update(&fx.an, &fx.snap, &fx.src, &fx.ao, 0), 0);
	/* One sample at the end, unless a test made the series itself. */
	if (!fx.series.n)
		assert_int_equal(series_add(&fx.series, &fx.an, 3.0), 0);
	memset(&r, 0, sizeof(r));
	r.snap = &fx.snap;
	r.an = &fx.an;
	r.src = &fx.src;
	r.series = &fx.series;
	r.max_flows = 100;
	r.all_flows = "report.json";
	out = open_memstream(&fx.html, &len);
	assert_non_null(out);
	html_report(out, &r, fx.observed_s ? fx.observed_s : 3.0);
	assert_int_equal(fclose(out), 0);
}

/* The rows of the Top flows table, its header left out. */
static int flow_rows(void)
{
	const char *p = strstr(fx.html, "<h2>Top flows</h2>"), *end;
	int n = 0;

	assert_non_null(p);
	end = strstr(p, "</table>");
	assert_non_null(end);
	while ((p = strstr(p + 1, "<tr")) && p < end)
		n++;
	return n - 1;
}

/* The rate column is over the analysis' window, as summary.txt's RATE line says. */
static void test_rate_window_as_summary(void **state)
{
	char w[64], want[96];

	(void)state;
	add_flow(0, 0, 250000);
	render();
	analysis_window(&fx.an, false, w, sizeof(w));
	snprintf(want, sizeof(want), "rate: over %s;", w);
	if (!strstr(fx.html, want))
		fail_msg("no '%s' in the Top flows caption", want);
	assert_null(strstr(fx.html, "over the whole capture"));
}

/*
 * Sampled input (sFlow): retransmits and PSN gaps need every packet, so
 * they are '-' (JSON null, summary.txt '-'), not a reassuring 0; the
 * counts are estimates, and the table says so.
 */
static void test_sampled_no_rtx(void **state)
{
	const char *table, *p;
	int dashes = 0;

	(void)state;
	fx.src.every_packet = false;
	for (int i = 0; i < 3; i++) {
		struct flow_record *r = add_flow(i, 0, 1000000);

		r->samples = 10;
		r->rate = 1000;
	}
	render();
	table = strstr(fx.html, "<h2>Top flows</h2>");
	assert_non_null(table);
	for (p = table; (p = strstr(p, "<td>-</td><td>-</td></tr>")); p++)
		dashes++;
	assert_int_equal(dashes, 3);
	assert_non_null(strstr(table, "estimates"));
	/* Nor a flat line of 0 retransmits/s in the chart over time. */
	{
		const char *ecn = strstr(fx.html, "<svg id='chart-ecn'");
		const char *note = strstr(fx.html, "retransmits need every packet");

		assert_non_null(ecn);
		assert_null(strstr(ecn, ">retransmits/s<"));
		assert_non_null(note);
		assert_true(note < ecn);
	}
}

/*
 * sFlow whose every sample of RoCE the switch cut before the BTH (a
 * 128-byte header of RoCE in VXLAN over IPv6 in IPv6): the hint names the
 * header size, not the ports sampled (it said "No sample was of RoCEv2").
 */
static void test_sampled_roce_cut_hint(void **state)
{
	(void)state;
	fx.src.every_packet = false;
	fx.src.mode = "sflow";
	fx.snap.totals[FP_CNT_FRAMES] = 50;
	fx.snap.totals[FP_CNT_OTHER] = 50;
	fx.snap.totals[FP_CNT_ROCE_CUT] = 50;
	render();
	assert_non_null(strstr(fx.html, "raise the sFlow header size"));
	assert_null(strstr(fx.html, "No sample was of RoCEv2"));
}

/* More flows than the table shows: it says how many more and where they are. */
static void test_more_flows_said(void **state)
{
	(void)state;
	for (int i = 0; i < 60; i++)
		add_flow(i, 0, 100000 + i);
	render();
	/* The busiest 50, as the README and man page say. */
	assert_int_equal(flow_rows(), 50);
	{
		char want[96];

		snprintf(want, sizeof(want), "%d more flows (report.json shows all)",
			 60 - flow_rows());
		if (!strstr(fx.html, want))
			fail_msg("no '%s'", want);
	}
}

/* The first number after key in [p, end), e.g. " x='" -> 70. */
static double attr_after(const char *p, const char *key)
{
	const char *at = strstr(p, key);

	return at ? atof(at + strlen(key)) : -1;
}

/*
 * Chart id fits its words: every text and bar starts inside the SVG's
 * width and height (a legend placed past them is clipped, unseen), no
 * bar has a negative size, and each of the n paths is named in it.
 */
static void chart_fits(const char *id, int n)
{
	char key[64];
	const char *svg, *end, *p;
	double w, h;

	snprintf(key, sizeof(key), "<svg id='%s'", id);
	svg = strstr(fx.html, key);
	assert_non_null(svg);
	end = strstr(svg, "</svg>");
	assert_non_null(end);
	w = attr_after(svg, " width='");
	h = attr_after(svg, " height='");
	for (p = svg + 1; (p = strstr(p, "<text")) && p < end; p++) {
		double x = attr_after(p, " x='"), y = attr_after(p, " y='");
		/* Text starting at x needs room after it; text ending at x, before. */
		bool ends = strstr(p, "text-anchor='end'") &&
			    strstr(p, "text-anchor='end'") < strchr(p, '>');

		if (x < 0 || x > w || (!ends && x >= w - 20) || y < 0 || y > h)
			fail_msg("%s: text at %g,%g outside %gx%g: %.80s", id, x, y, w, h, p);
	}
	/* Texts on one line, left to right, each about 7 px a character at 11-12 px: none over the
	 * next. */
	for (p = svg + 1; (p = strstr(p, "<text")) && p < end; p++) {
		double x = attr_after(p, " x='"), y = attr_after(p, " y='");
		const char *q;

		for (q = svg + 1; (q = strstr(q, "<text")) && q < end; q++) {
			double qx = attr_after(q, " x='"), qy = attr_after(q, " y='");
			const char *text = strchr(p, '>') + 1;
			size_t chars = strcspn(text, "<");

			if (q != p && qy == y && qx > x && qx < x + 7.0 * chars)
				fail_msg("%s: '%.*s' at %g,%g runs over the text at %g", id,
					 (int)chars, text, x, y, qx);
		}
	}
	for (p = svg + 1; (p = strstr(p, "<rect")) && p < end; p++)
		if (attr_after(p, " width='") < 0 || attr_after(p, " height='") < 0)
			fail_msg("%s: a bar of negative size: %.80s", id, p);
	for (int i = 0; i < n; i++) {
		char name[FP_NAME_LEN + 2];
		const char *at;

		snprintf(name, sizeof(name), ">%s", fx.points[i].name);
		at = strstr(svg, name);
		if (!at || at > end)
			fail_msg("%s: %s not named", id, fx.points[i].name);
	}
}

/* Many paths: each is named in the load chart's legend and the flows chart, all of it seen. */
static void test_charts_many_paths(void **state)
{
	(void)state;
	uplinks(12, "leaf1:Ethernet4");
	for (int i = 0; i < 12; i++)
		add_flow(i, 101 + i, 1000000 + i);
	render();
	assert_int_equal(fx.an.n_paths, 12);
	chart_fits("chart-load", 12);
	chart_fits("chart-flows", 12);
}

/* As many paths as the analysis holds: no bar of negative width. */
static void test_charts_most_paths(void **state)
{
	(void)state;
	uplinks(AN_MAX_PATHS, "p");
	for (int i = 0; i < AN_MAX_PATHS; i++)
		add_flow(i, 101 + i, 1000000 + i);
	render();
	assert_int_equal(fx.an.n_paths, AN_MAX_PATHS);
	assert_null(strstr(fx.html, "='-"));
	chart_fits("chart-flows", AN_MAX_PATHS);
}

/* A long command line (twelve --pcap NAME=FILE) wraps: a <pre> that does not runs off the page. */
static void test_provenance_wraps(void **state)
{
	const char *style;

	(void)state;
	add_flow(0, 0, 250000);
	render();
	style = strstr(fx.html, "<style>");
	assert_non_null(style);
	assert_non_null(strstr(style, "pre{white-space:pre-wrap"));
}

/* The NIC section's window has a unit a reader can use: 16 ms, not "over 0 s". */
static void test_nic_window(void **state)
{
	static struct nic_picture pic;
	char *html = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&html, &len);

	(void)state;
	memset(&pic, 0, sizeof(pic));
	pic.st.interval_s = 0.016169;
	assert_non_null(out);
	html_nic(out, &pic);
	assert_int_equal(fclose(out), 0);
	if (!strstr(html, "over the whole 16.2 ms"))
		fail_msg("no window in '%.200s'", html);
	free(html);
}

/*
 * A mirror session's copies of one queue pair at ingress and at egress
 * are two rows, alike but for where the copy was made: each says which
 * (summary.txt's '[copied at ingress]'), and the table says that a
 * session counts copies, as summary.txt does under its paths.
 */
static void test_mirror_copies_told_apart(void **state)
{
	struct flow_record *in, *eg;

	(void)state;
	fx.points[0] = (struct obs_point){.id = MIRROR_POINT_BIT | 101, .uplink = true};
	snprintf(fx.points[0].name, sizeof(fx.points[0].name), "leaf1:eth49");
	fx.src.n_points = 1;
	in = add_flow(1, MIRROR_POINT_BIT | 101, 200000);
	eg = add_flow(1, MIRROR_POINT_BIT | 101, 200000);
	in->key.mirror = eg->key.mirror = FP_MIRROR_ERSPAN_III;
	in->key.flags |= FP_FLOW_MIRROR_INGRESS;
	eg->key.flags |= FP_FLOW_MIRROR_EGRESS;
	render();
	assert_non_null(strstr(fx.html, "copied at ingress"));
	assert_non_null(strstr(fx.html, "copied at egress"));
	assert_non_null(strstr(fx.html, "mirror sessions count copies"));
}

/*
 * Two ECMP groups (an sFlow port map's leaves): the balance is each
 * group's, named, as summary.txt gives it; one unnamed figure was the
 * worst group's, and the table had no group column to tell which.
 */
static void test_balance_per_group(void **state)
{
	(void)state;
	uplinks(4, "up");
	snprintf(fx.points[0].group, FP_NAME_LEN, "leaf1");
	snprintf(fx.points[1].group, FP_NAME_LEN, "leaf1");
	snprintf(fx.points[2].group, FP_NAME_LEN, "leaf2");
	snprintf(fx.points[3].group, FP_NAME_LEN, "leaf2");
	add_flow(0, 101, 4000000);
	add_flow(1, 102, 1000000);
	add_flow(2, 103, 1000000);
	add_flow(3, 104, 1000000);
	render();
	assert_int_equal(fx.an.n_groups, 2);
	assert_non_null(strstr(fx.html, "<th>group</th>"));
	assert_non_null(strstr(fx.html, "group leaf1 imbalance (max/mean): load 1.60, flows 1.00"));
	assert_non_null(strstr(fx.html, "group leaf2 imbalance (max/mean): load 1.00, flows 1.00"));
}

/*
 * A day's capture is 86400 samples a series: drawn point by point, 64
 * paths' load made a report.html of some 75 MB for a chart 640 px wide.
 * A series is drawn as each pixel column's lowest and highest value, so a
 * one-second spike still shows.
 */
static void test_long_series_bounded(void **state)
{
	const char *ecn, *points, *end;
	size_t n = 0;

	(void)state;
	add_flow(0, 0, 250000);
	snapshot_flow_totals(&fx.snap);
	assert_int_equal(analysis_update(&fx.an, &fx.snap, &fx.src, &fx.ao, 0), 0);
	for (int i = 1; i <= 86400; i++)
		assert_int_equal(series_add(&fx.series, &fx.an, i), 0);
	for (size_t i = 0; i < fx.series.n; i++)
		fx.series.samples[i].ce_per_s = 0;
	fx.series.samples[43210].ce_per_s = 1000;
	render();
	ecn = strstr(fx.html, "<svg id='chart-ecn'");
	assert_non_null(ecn);
	points = strstr(ecn, "points='");
	assert_non_null(points);
	end = strchr(points + 8, '\'');
	for (const char *p = points + 8; p < end; p++)
		n += *p == ',';
	if (n > 2 * 640 + 2)
		fail_msg("%zu points for a 640 px plot", n);
	/* The spike, at the plot's top (y = MARGIN_T), is drawn. */
	assert_non_null(memmem(points, end - points, ",20.0 ", 6));
	assert_true(strlen(fx.html) < 200000);
}

/* A capture of 0.2 s was "0 s observed" beside its 800 frames. */
static void test_short_run_observed(void **state)
{
	(void)state;
	add_flow(0, 0, 250000);
	fx.observed_s = 0.2;
	render();
	assert_non_null(strstr(fx.html, ", 0.2 s observed;"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_rate_window_as_summary, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sampled_no_rtx, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_more_flows_said, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_charts_many_paths, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_charts_most_paths, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_provenance_wraps, setup, teardown),
	    cmocka_unit_test(test_nic_window),
	    cmocka_unit_test_setup_teardown(test_mirror_copies_told_apart, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_balance_per_group, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_long_series_bounded, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_short_run_observed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sampled_roce_cut_hint, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
