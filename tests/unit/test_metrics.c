// SPDX-License-Identifier: GPL-2.0
/* Unit tests for the Prometheus/OpenMetrics renderer (user/render/metrics.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "render/metrics.h"

/* A hand-made picture: n flows on two interfaces, flow i at (i + 1) Mbit/s. */
struct fixture {
	struct snapshot snap;
	struct analysis an;
	struct obs_point names[2];
	struct source_desc ro;
	struct metrics_acc acc;
	struct metrics_self self;
	struct metrics_view view;
	struct alert alerts[2];
};

static void fixture_init(struct fixture *f, size_t n, unsigned int top)
{
	memset(f, 0, sizeof(*f));
	f->names[0] = (struct obs_point){.id = 2, .name = "up1", .uplink = true};
	f->names[1] = (struct obs_point){.id = 3, .name = "down1"};
	f->ro = (struct source_desc){
	    .mode = "live", .points = f->names, .n_points = 2, .every_packet = true};
	f->snap.flows = calloc(n ? n : 1, sizeof(*f->snap.flows));
	f->snap.n_flows = f->snap.cap = n;
	f->snap.flow_capacity = 65536;
	f->an.flows = calloc(n ? n : 1, sizeof(*f->an.flows));
	f->an.n_flows = f->an.cap_flows = n;
	for (size_t i = 0; i < n; i++) {
		struct flow_record *r = &f->snap.flows[i];
		struct flow_view *v = &f->an.flows[i];

		r->key.src[0] = 10;
		r->key.src[3] = 1;
		r->key.dst[0] = 10;
		r->key.dst[3] = 2;
		r->key.sport = 49152 + (i & 0x3fff);
		r->key.dport = 4791;
		r->key.dest_qp = (__u32)i;
		r->key.ifindex = i % 2 ? 3 : 2;
		r->key.dir = FP_DIR_EGRESS;
		r->c.packets = 1000 + i;
		r->c.bytes = 1000000 + i;
		r->c.dscp = 26;
		v->r = r;
		v->d.packets = r->c.packets;
		v->d.bytes = r->c.bytes;
		v->bps = (i + 1) * 1e6;
		v->path = i % 2 ? -1 : 0;
	}
	f->an.n_paths = 1;
	snprintf(f->an.paths[0].name, sizeof(f->an.paths[0].name), "up1");
	f->an.paths[0].ifindex = 2;
	f->an.alerts = f->alerts;
	f->self.version = "test";
	f->view = (struct metrics_view){.snap = &f->snap,
					.an = &f->an,
					.src = &f->ro,
					.acc = &f->acc,
					.self = &f->self,
					.top_flows = top};
}

static void fixture_free(struct fixture *f)
{
	free(f->snap.flows);
	free(f->an.flows);
}

static char *render(const struct metrics_view *v, enum metrics_format fmt, bool eof)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	metrics_render(out, fmt, v, eof);
	assert_int_equal(fclose(out), 0);
	return buf;
}

static size_t count_prefix(const char *text, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, prefix, len))
			n++;
	return n;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

/*
 * 0.0.4: every counter family is named ..._total, nothing else is; in
 * OpenMetrics the family drops _total and its samples carry it.
 */
static void test_counter_names(void **state)
{
	struct fixture f;
	char *text[2];

	(void)state;
	fixture_init(&f, 10, 5);
	metrics_accumulate(&f.acc, &f.snap, &f.an);
	text[0] = render(&f.view, METRICS_PROMETHEUS, false);
	text[1] = render(&f.view, METRICS_OPENMETRICS, true);
	for (int fmt = 0; fmt < 2; fmt++) {
		size_t counters = 0;
		char *save = NULL, *copy = strdup(text[fmt]);

		for (char *line = strtok_r(copy, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char name[160], type[16];

			if (sscanf(line, "# TYPE %159s %15s", name, type) != 2)
				continue;
			bool total = ends_with(name, strlen(name), "_total");

			if (!strcmp(type, "counter")) {
				counters++;
				if (fmt == METRICS_PROMETHEUS)
					assert_true(total);
				else
					assert_false(total);
			} else {
				assert_false(total);
			}
		}
		assert_true(counters > 20);
		free(copy);
	}
	/* Samples of a counter are _total in both formats. */
	assert_non_null(strstr(text[0], "\nfabprobe_roce_frames_total 0\n"));
	assert_non_null(strstr(text[1], "\n# TYPE fabprobe_roce_frames counter\n"));
	assert_non_null(strstr(text[1], "\nfabprobe_roce_frames_total 0\n"));
	assert_non_null(strstr(text[1], "# TYPE fabprobe_build info\n"));
	assert_non_null(strstr(text[0], "# TYPE fabprobe_build_info gauge\n"));
	free(text[0]);
	free(text[1]);
	fixture_free(&f);
}

static void test_label_escaping(void **state)
{
	struct fixture f;
	char *buf = NULL, *text;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	metrics_escape_label(out, "a\"b\\c\nd");
	fclose(out);
	assert_string_equal(buf, "a\\\"b\\\\c\\nd");
	free(buf);

	/* UTF-8 as it is; a Latin-1 byte (no valid sequence) U+FFFD: Prometheus refuses invalid
	 * UTF-8. */
	out = open_memstream(&buf, &len);
	metrics_escape_label(out, "caf\xc3\xa9 eth\xe9"
				  "0 \xc3");
	fclose(out);
	assert_string_equal(buf, "caf\xc3\xa9 eth\xef\xbf\xbd"
				 "0 \xef\xbf\xbd");
	free(buf);

	/* Interface names may hold quotes and backslashes: they reach the labels escaped. */
	fixture_init(&f, 2, 5);
	snprintf(f.names[0].name, sizeof(f.names[0].name), "u\"p\\1\n");
	snprintf(f.an.paths[0].name, sizeof(f.an.paths[0].name), "u\"p\\1\n");
	metrics_accumulate(&f.acc, &f.snap, &f.an);
	text = render(&f.view, METRICS_PROMETHEUS, false);
	assert_non_null(
	    strstr(text, "fabprobe_interface_uplink{interface=\"u\\\"p\\\\1\\n\"} 1\n"));
	assert_non_null(strstr(text, ",path=\"u\\\"p\\\\1\\n\"} "));
	/* No raw newline inside a sample: every line starts with # or a name. */
	for (char *p = text; *p; p = strchr(p, '\n') + 1)
		assert_true(*p == '#' || !strncmp(p, "fabprobe_", 9));
	free(text);
	fixture_free(&f);
}

static size_t flow_series(const char *text)
{
	return count_prefix(text, "fabprobe_flow_bytes_per_second{");
}

static void test_top_k_bound(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	/* 100k flows, the default 20: 20 series per flow family, the fastest ones. */
	fixture_init(&f, 100000, METRICS_TOP_FLOWS_DEFAULT);
	text = render(&f.view, METRICS_PROMETHEUS, false);
	assert_int_equal(flow_series(text), 20);
	assert_int_equal(count_prefix(text, "fabprobe_flow_bytes_total{"), 20);
	/* The fastest flow (index 99999, 100 Gbit/s = 12.5 GB/s) comes first. */
	assert_non_null(strstr(text, "dest_qp=\"99999\""));
	assert_non_null(strstr(text, "} 12500000000\n"));
	assert_null(strstr(text, "dest_qp=\"99979\""));
	free(text);

	/* Idle flows are not top flows. */
	for (size_t i = 0; i < f.an.n_flows; i++)
		if (i % 100)
			f.an.flows[i].d.bytes = 0;
	f.view.top_flows = 5000;
	text = render(&f.view, METRICS_PROMETHEUS, false);
	assert_int_equal(flow_series(text), 1000);
	free(text);

	/* 0 turns them off: no family at all. */
	f.view.top_flows = 0;
	text = render(&f.view, METRICS_PROMETHEUS, false);
	assert_null(strstr(text, "fabprobe_flow_bytes_per_second"));
	free(text);
	fixture_free(&f);
}

/*
 * Flows of one rate and one interval's bytes: the top flows are taken by
 * analysis_before() (total bytes, then key), so the same series come out
 * whatever order the snapshot holds the flows in (export leaves it
 * unsorted).
 */
static void test_top_k_ties_in_any_order(void **state)
{
	struct fixture f;
	char *want, *got;
	size_t n = 64;

	(void)state;
	fixture_init(&f, n, METRICS_TOP_FLOWS_DEFAULT);
	for (size_t i = 0; i < n; i++) {
		f.an.flows[i].bps = 1e6;
		f.an.flows[i].d.bytes = 125000;
		/* Half tie on total bytes too: their keys decide. */
		f.snap.flows[i].c.bytes = i % 2 ? 1000000 : 2000000 + i;
	}
	want = render(&f.view, METRICS_PROMETHEUS, false);
	for (size_t i = 0; i < n / 2; i++) {
		struct flow_record r = f.snap.flows[i];
		struct flow_view v = f.an.flows[i];

		f.snap.flows[i] = f.snap.flows[n - 1 - i];
		f.snap.flows[n - 1 - i] = r;
		f.an.flows[i] = f.an.flows[n - 1 - i];
		f.an.flows[n - 1 - i] = v;
	}
	for (size_t i = 0; i < n; i++)
		f.an.flows[i].r = &f.snap.flows[i];
	got = render(&f.view, METRICS_PROMETHEUS, false);
	assert_int_equal(flow_series(got), 20);
	assert_string_equal(got, want);
	free(want);
	free(got);
	fixture_free(&f);
}

static void test_duplicate_labels_once(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	/* Two flows that differ only in what is not a label (dport) make one series. */
	fixture_init(&f, 2, 5);
	f.snap.flows[1].key = f.snap.flows[0].key;
	f.snap.flows[1].key.dport = 4792;
	f.an.flows[1].path = f.an.flows[0].path; /* its interface's, as the key is */
	text = render(&f.view, METRICS_OPENMETRICS, true);
	assert_int_equal(flow_series(text), 1);
	free(text);
	fixture_free(&f);
}

/*
 * Two flows with one set of labels (VXLAN flows of one outer tuple, VNI
 * and QP whose inner hosts differ) are one series: their sums. Showing
 * the faster one alone made its counters jump between the two flows'
 * totals, backwards when the newer, smaller one became the faster. The
 * sums are the same whichever is faster, and count an idle one too.
 */
static void test_duplicate_labels_summed(void **state)
{
	static const char *const want[] = {
	    "fabprobe_flow_bytes_per_second{",	"} 375000\n",
	    "fabprobe_flow_bytes_total{",	"} 1500000\n",
	    "fabprobe_flow_packets_total{",	"} 1500\n",
	    "fabprobe_flow_cnp_packets_total{", "} 7\n",
	};
	struct fixture f;

	(void)state;
	fixture_init(&f, 3, 5);
	/* Flow 0: long-lived, 1000000 bytes; flow 1: newer, 500000; flow 2: another QP. */
	f.snap.flows[1].key = f.snap.flows[0].key;
	f.snap.flows[1].key.inner_src[0] = 1;
	f.an.flows[1].path = f.an.flows[0].path;
	f.snap.flows[0].c.bytes = 1000000;
	f.snap.flows[0].c.packets = 1000;
	f.snap.flows[0].c.cnp = 3;
	f.snap.flows[1].c.bytes = 500000;
	f.snap.flows[1].c.packets = 500;
	f.snap.flows[1].c.cnp = 4;
	f.an.flows[2].d.bytes = 0; /* idle: no series of its own */
	for (int round = 0; round < 3; round++) {
		char *text;

		/* 0 faster, then 1 faster, then 1 alone active (0 idle). */
		f.an.flows[0].bps = round == 0 ? 2e6 : round == 1 ? 1e6 : 0;
		f.an.flows[0].d.bytes = round == 2 ? 0 : 1000;
		f.an.flows[1].bps = 3e6 - f.an.flows[0].bps;
		text = render(&f.view, METRICS_PROMETHEUS, false);
		assert_int_equal(flow_series(text), 1);
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i += 2) {
			const char *p = strstr(text, want[i]);

			assert_non_null(p);
			p = strchr(p, '}');
			assert_non_null(p);
			assert_memory_equal(p, want[i + 1], strlen(want[i + 1]));
		}
		free(text);
	}
	fixture_free(&f);
}

/*
 * One RoCE flow copied by two mirror sessions: its copies are two flows
 * whose labels differ only in path (the session). Both are series; the
 * path label tells them apart, so neither may be dropped as a duplicate.
 */
static void test_labels_differing_in_path_both_kept(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	fixture_init(&f, 2, 5);
	f.snap.flows[1].key = f.snap.flows[0].key;
	f.snap.flows[1].key.mirror = FP_MIRROR_ERSPAN_II;
	f.snap.flows[0].key.mirror = FP_MIRROR_ERSPAN_II;
	f.snap.flows[0].key.mirror_id = 5;
	f.snap.flows[1].key.mirror_id = 6;
	f.an.n_paths = 2;
	snprintf(f.an.paths[0].name, sizeof(f.an.paths[0].name), "erspan:5");
	snprintf(f.an.paths[1].name, sizeof(f.an.paths[1].name), "erspan:6");
	f.an.flows[0].path = 0;
	f.an.flows[1].path = 1;
	text = render(&f.view, METRICS_OPENMETRICS, true);
	assert_int_equal(flow_series(text), 2);
	assert_non_null(strstr(text, "path=\"erspan:5\"} "));
	assert_non_null(strstr(text, "path=\"erspan:6\"} "));
	free(text);
	fixture_free(&f);
}

static void test_openmetrics_eof(void **state)
{
	struct fixture f;
	char *om, *prom, *open;
	size_t len;

	(void)state;
	fixture_init(&f, 3, 5);
	om = render(&f.view, METRICS_OPENMETRICS, true);
	len = strlen(om);
	assert_true(ends_with(om, len, "\n# EOF\n"));
	assert_int_equal(count_prefix(om, "# EOF"), 1);
	prom = render(&f.view, METRICS_PROMETHEUS, true);
	assert_null(strstr(prom, "# EOF"));
	/* The server appends the per-scrape tail and then "# EOF" itself. */
	open = render(&f.view, METRICS_OPENMETRICS, false);
	assert_null(strstr(open, "# EOF"));
	free(om);
	free(prom);
	free(open);
	fixture_free(&f);
}

static void test_alerts_every_type(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	fixture_init(&f, 1, 5);
	f.alerts[0] = (struct alert){.type = ALERT_ELEPHANT_COLLISION, .severity = SEV_CRITICAL};
	f.alerts[1] = (struct alert){.type = ALERT_ELEPHANT_COLLISION, .severity = SEV_CRITICAL};
	f.an.n_alerts = 2;
	text = render(&f.view, METRICS_PROMETHEUS, false);
	assert_int_equal(count_prefix(text, "fabprobe_alerts{"), ALERT_TYPE_MAX * 3);
	assert_non_null(
	    strstr(text, "fabprobe_alerts{type=\"elephant_collision\",severity=\"critical\"} 2\n"));
	assert_non_null(
	    strstr(text, "fabprobe_alerts{type=\"malformed\",severity=\"warning\"} 0\n"));
	free(text);
	fixture_free(&f);
}

/* Per-label counters never go back, though the flows behind them are evicted. */
static void test_accumulate_monotonic(void **state)
{
	struct fixture f;
	const struct flow_delta *up1, *down1;

	(void)state;
	fixture_init(&f, 2, 5); /* flow 0 on up1, flow 1 on down1 */
	f.snap.totals[FP_CNT_FLOW_NEW] = 2;
	metrics_accumulate(&f.acc, &f.snap, &f.an);
	assert_int_equal(f.acc.n_ifaces, 2);
	up1 = &f.acc.ifaces[0].dir[FP_DIR_EGRESS];
	down1 = &f.acc.ifaces[1].dir[FP_DIR_EGRESS];
	assert_int_equal(up1->bytes, 1000000);
	assert_int_equal(down1->bytes, 1000001);

	/* Next refresh: flow 1 evicted, flow 0 carried 500 more bytes. */
	f.snap.flows[0].c.bytes += 500;
	f.an.flows[0].d = (struct flow_delta){.bytes = 500, .packets = 1};
	f.snap.n_flows = f.an.n_flows = 1;
	f.snap.totals[FP_CNT_FLOW_NEW] = 2;
	metrics_accumulate(&f.acc, &f.snap, &f.an);
	assert_int_equal(up1->bytes, 1000500);
	assert_int_equal(down1->bytes, 1000001);
	assert_int_equal(f.acc.dscp[26].bytes, 2000501);

	/* A delta larger than the flow's whole count (wrapped) is clamped to it. */
	f.an.flows[0].d = (struct flow_delta){.bytes = (__u64)-5, .packets = 1};
	metrics_accumulate(&f.acc, &f.snap, &f.an);
	assert_int_equal(up1->bytes, 1000500 + f.snap.flows[0].c.bytes);
	fixture_free(&f);
}

/*
 * up1 deleted and made again (ifindex 2 -> 7): its series keep their
 * counts under its name, and what the new device counts adds to them.
 */
static void test_interface_made_again(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	fixture_init(&f, 2, 5);
	metrics_accumulate(&f.acc, &f.snap, &f.an);
	metrics_acc_moved(&f.acc, 2, 7);
	f.names[0].id = 7;
	f.snap.flows[0].key.ifindex = 7;
	f.an.flows[0].d = (struct flow_delta){.bytes = 500, .packets = 1};
	f.an.flows[1].d = (struct flow_delta){};
	metrics_accumulate(&f.acc, &f.snap, &f.an);
	assert_int_equal(f.acc.n_ifaces, 2);
	text = render(&f.view, METRICS_PROMETHEUS, false);
	assert_non_null(strstr(text, "fabprobe_interface_roce_bytes_total{interface=\"up1\","
				     "direction=\"egress\"} 1000500\n"));
	assert_null(strstr(text, "ifindex"));
	/* Moved onto a key the accumulators know already: the two are summed. */
	metrics_acc_moved(&f.acc, 3, 7);
	assert_int_equal(f.acc.n_ifaces, 1);
	assert_int_equal(f.acc.ifaces[0].dir[FP_DIR_EGRESS].bytes, 2000501);
	free(text);
	fixture_free(&f);
}

/*
 * More interfaces than the accumulators hold (sFlow: every switch port is
 * a point, up to SFLOW_MAX_PORTS): the ports past the bound are summed as
 * interface="other", like VNIs, and never written as a 0 they did not count.
 * Before, each of them was a series that stayed 0 while it carried traffic.
 */
static void test_interface_bound(void **state)
{
	enum { N = METRICS_MAX_IFACES + 6 };
	static struct obs_point pts[N];
	__u64 want = 0, got = 0;
	struct fixture f;
	char *text;
	size_t n = 0;

	(void)state;
	fixture_init(&f, N, 0);
	for (int i = 0; i < N; i++) {
		pts[i] = (struct obs_point){.id = i + 1};
		snprintf(pts[i].name, sizeof(pts[i].name), "p%d", i + 1);
		f.snap.flows[i].key.ifindex = i + 1;
		f.snap.flows[i].key.dir = FP_DIR_INGRESS;
		want += f.an.flows[i].d.packets;
	}
	f.ro.points = pts;
	f.ro.n_points = N;
	metrics_accumulate(&f.acc, &f.snap, &f.an);
	text = render(&f.view, METRICS_PROMETHEUS, false);
	for (const char *p = text; (p = strstr(p, "\nfabprobe_interface_roce_packets_total{"));) {
		const char *dir = strstr(p, "direction=\"ingress\"} ");
		const char *eol = strchr(p + 1, '\n');

		p++;
		if (!dir || dir > eol)
			continue;
		n++;
		/* Every interface carried traffic: none may say 0. */
		assert_true(strtoull(dir + strlen("direction=\"ingress\"} "), NULL, 10) > 0);
		got += strtoull(dir + strlen("direction=\"ingress\"} "), NULL, 10);
	}
	assert_int_equal(got, want);
	assert_int_equal(n, METRICS_MAX_IFACES + 1);
	assert_non_null(strstr(text, "fabprobe_interface_roce_packets_total{interface=\"other\","
				     "direction=\"ingress\"} "));
	free(text);
	fixture_free(&f);
}

/* The interface labels of family fam's samples ("\nfam{interface=\"X\""), joined by ' '. */
static void interfaces_of(const char *text, const char *fam, char *out, size_t len)
{
	char head[160];
	size_t used = 0;

	snprintf(head, sizeof(head), "\n%s{interface=\"", fam);
	out[0] = '\0';
	for (const char *p = text; (p = strstr(p, head));) {
		const char *name = p + strlen(head), *end = strchr(name, '"');
		int n;

		p = end;
		/* One entry an interface, whichever direction comes first. */
		if (!strncmp(end, "\",direction=\"egress\"", strlen("\",direction=\"egress\"")))
			continue;
		n = snprintf(out + used, len - used, "%.*s ", (int)(end - name), name);
		assert_true(n > 0 && (size_t)n < len - used);
		used += n;
	}
}

/*
 * Past METRICS_MAX_IFACES the interfaces that carried traffic are not
 * the first ones named: every interface family names the same ones.
 */
static void test_interface_series_agree(void **state)
{
	enum { N = METRICS_MAX_IFACES + 6, QUIET = 6 };
	static struct obs_point pts[N];
	static char uplink[4096], flows[4096], packets[4096];
	struct fixture f;
	char *text;

	(void)state;
	fixture_init(&f, N - QUIET, 0);
	for (int i = 0; i < N; i++) {
		pts[i] = (struct obs_point){.id = i + 1};
		snprintf(pts[i].name, sizeof(pts[i].name), "p%d", i + 1);
	}
	/* The first QUIET interfaces carry nothing; the 64 after them each a flow. */
	for (int i = 0; i < N - QUIET; i++) {
		f.snap.flows[i].key.ifindex = QUIET + i + 1;
		f.snap.flows[i].key.dir = FP_DIR_INGRESS;
	}
	f.ro.points = pts;
	f.ro.n_points = N;
	metrics_accumulate(&f.acc, &f.snap, &f.an);
	text = render(&f.view, METRICS_PROMETHEUS, false);
	interfaces_of(text, "fabprobe_interface_uplink", uplink, sizeof(uplink));
	interfaces_of(text, "fabprobe_interface_flows", flows, sizeof(flows));
	interfaces_of(text, "fabprobe_interface_roce_packets_total", packets, sizeof(packets));
	assert_non_null(strstr(packets, "p70 "));
	assert_string_equal(uplink, packets);
	assert_string_equal(flows, packets);
	free(text);
	fixture_free(&f);
}

static void test_vni_bound(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	fixture_init(&f, METRICS_MAX_VNIS + 10, 0);
	for (size_t i = 0; i < f.snap.n_flows; i++) {
		f.snap.flows[i].key.flags |= FP_FLOW_VXLAN;
		f.snap.flows[i].key.vni = 1000 + i;
	}
	metrics_accumulate(&f.acc, &f.snap, &f.an);
	text = render(&f.view, METRICS_PROMETHEUS, false);
	assert_int_equal(count_prefix(text, "fabprobe_vni_roce_bytes_total{"),
			 METRICS_MAX_VNIS + 1);
	assert_non_null(strstr(text, "fabprobe_vni_roce_packets_total{vni=\"other\"} "));
	free(text);
	fixture_free(&f);
}

/*
 * sFlow sees one packet in N: retransmits and PSN gaps are unknown (JSON's
 * null), so their series are left out, not 0; every other family keeps
 * its samples. A source that sees every packet keeps them all.
 */
static void test_sampled_unknown_left_out(void **state)
{
	/* Series when every packet is seen: 4 top flows, 2 interfaces x 2 directions, 1 VNI. */
	static const struct {
		const char *prefix;
		size_t every;
	} unknown[] = {
	    {"fabprobe_flow_retransmitted_packets_total{", 4},
	    {"fabprobe_interface_retransmitted_packets_total{", 4},
	    {"fabprobe_interface_psn_gaps_total{", 4},
	    {"fabprobe_vni_retransmitted_packets_total{", 1},
	};
	struct fixture f;
	char *text;

	(void)state;
	for (int sampled = 0; sampled < 2; sampled++) {
		fixture_init(&f, 4, 5);
		for (size_t i = 0; i < f.snap.n_flows; i++) {
			f.snap.flows[i].key.flags |= FP_FLOW_VXLAN;
			f.snap.flows[i].key.vni = 5001;
			if (sampled) {
				f.snap.flows[i].samples = f.snap.flows[i].c.packets / 100;
				f.snap.flows[i].rate = 100;
			}
		}
		if (sampled)
			f.ro =
			    (struct source_desc){.mode = "sflow", .points = f.names, .n_points = 2};
		metrics_accumulate(&f.acc, &f.snap, &f.an);
		text = render(&f.view, METRICS_PROMETHEUS, false);
		for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
			assert_int_equal(count_prefix(text, unknown[i].prefix),
					 sampled ? 0 : unknown[i].every);
		assert_int_equal(count_prefix(text, "fabprobe_flow_packets_total{"), 4);
		assert_int_equal(count_prefix(text, "fabprobe_interface_roce_packets_total{"), 4);
		assert_int_equal(count_prefix(text, "fabprobe_interface_nak_packets_total{"), 4);
		assert_int_equal(count_prefix(text, "fabprobe_vni_roce_packets_total{"), 1);
		free(text);
		fixture_free(&f);
	}
}

/* Frames of a bare IPv4 RoCE flow: an ACK (BTH, AETH, ICRC) and a CNP (A17.9.3). */
#define ACK_FRAME 62
#define CNP_FRAME 74

/*
 * The reverse direction of a queue pair is one flow carrying ACKs in the
 * data class (26) and CNPs in the CNP class (48): each kind counts under
 * its own DSCP, whichever packet came last. An interval of one kind only
 * counts all of it there.
 */
static void test_dscp_by_kind(void **state)
{
	struct fixture f;
	struct flow_record *r;
	struct flow_view *v;
	const struct flow_delta *data, *cnp;
	char *text;

	(void)state;
	fixture_init(&f, 1, 5);
	r = &f.snap.flows[0];
	v = &f.an.flows[0];
	r->key.dir = FP_DIR_INGRESS;
	/* 100 ACKs (3 of them CE) and 40 CNPs; the newest packet a CNP. */
	r->c = (struct flow_counters){.packets = 140,
				      .bytes = 100 * ACK_FRAME + 40 * CNP_FRAME,
				      .ecn = {40, 0, 97, 3},
				      .cnp = 40,
				      .acks = 100,
				      .becn = 40,
				      .dscp_mask = 1ULL << 26,
				      .dscp = 48};
	r->cnp_dscp_mask = 1ULL << 48;
	v->d = (struct flow_delta){.packets = 140,
				   .bytes = r->c.bytes,
				   .ce = 3,
				   .cnp = 40,
				   .acks = 100,
				   .not_ect = 40,
				   .becn = 40};
	metrics_accumulate(&f.acc, &f.snap, &f.an);
	data = &f.acc.dscp[26];
	cnp = &f.acc.dscp[48];
	assert_true(f.acc.dscp_seen == (1ULL << 26 | 1ULL << 48));
	assert_int_equal(data->packets, 100);
	assert_int_equal(data->bytes, 100 * ACK_FRAME);
	assert_int_equal(data->ce, 3);
	assert_int_equal(data->cnp, 0);
	assert_int_equal(data->acks, 100);
	assert_int_equal(cnp->packets, 40);
	assert_int_equal(cnp->bytes, 40 * CNP_FRAME);
	assert_int_equal(cnp->ce, 0);
	assert_int_equal(cnp->cnp, 40);
	assert_int_equal(cnp->becn, 40);
	text = render(&f.view, METRICS_PROMETHEUS, false);
	assert_non_null(strstr(text, "fabprobe_dscp_cnp_packets_total{dscp=\"26\"} 0\n"));
	assert_non_null(strstr(text, "fabprobe_dscp_cnp_packets_total{dscp=\"48\"} 40\n"));
	assert_non_null(strstr(text, "fabprobe_dscp_roce_packets_total{dscp=\"48\"} 40\n"));
	assert_non_null(strstr(text, "fabprobe_dscp_roce_packets_total{dscp=\"26\"} 100\n"));
	free(text);

	/* Then 10 ACKs alone, the newest an ACK; then 5 CNPs alone. */
	r->c.packets += 10;
	r->c.bytes += 10 * ACK_FRAME;
	r->c.acks += 10;
	r->c.dscp = 26;
	v->d = (struct flow_delta){.packets = 10, .bytes = 10 * ACK_FRAME, .acks = 10};
	metrics_accumulate(&f.acc, &f.snap, &f.an);
	assert_int_equal(data->packets, 110);
	assert_int_equal(cnp->packets, 40);
	r->c.packets += 5;
	r->c.bytes += 5 * CNP_FRAME;
	r->c.cnp += 5;
	r->c.dscp = 48;
	v->d = (struct flow_delta){.packets = 5, .bytes = 5 * CNP_FRAME, .cnp = 5};
	metrics_accumulate(&f.acc, &f.snap, &f.an);
	assert_int_equal(data->packets, 110);
	assert_int_equal(data->bytes, 110 * ACK_FRAME);
	assert_int_equal(cnp->packets, 45);
	assert_int_equal(cnp->bytes, 45 * CNP_FRAME);
	assert_int_equal(cnp->cnp, 45);
	fixture_free(&f);
}

/*
 * A CNP's bytes are its frame's size from the flow's headers (tagged,
 * VXLAN, IPv6 inside); CNPs of several DSCPs go under the newest packet's
 * when it is one of them, else under the lowest.
 */
static void test_dscp_by_kind_estimates(void **state)
{
	/* Ethernet + 802.1Q, IPv4, UDP, VXLAN, inner Ethernet, IPv6, UDP, CNP */
	const __u64 cnp_frame = 14 + 4 + 20 + 8 + 8 + 14 + 40 + 8 + 32;
	struct fixture f;
	struct flow_record *r;
	struct flow_view *v;

	(void)state;
	fixture_init(&f, 1, 5);
	r = &f.snap.flows[0];
	v = &f.an.flows[0];
	r->key.flags |= FP_FLOW_VXLAN | FP_FLOW_INNER_IPV6;
	r->c = (struct flow_counters){.packets = 12,
				      .bytes = 10 * 200 + 2 * cnp_frame,
				      .cnp = 2,
				      .vlan_tagged = 1,
				      .dscp_mask = 1ULL << 26,
				      .dscp = 26};
	r->cnp_dscp_mask = 1ULL << 48 | 1ULL << 46;
	v->d = (struct flow_delta){.packets = 12, .bytes = r->c.bytes, .cnp = 2};
	metrics_accumulate(&f.acc, &f.snap, &f.an);
	assert_int_equal(f.acc.dscp[46].packets, 2);
	assert_int_equal(f.acc.dscp[46].bytes, 2 * cnp_frame);
	assert_int_equal(f.acc.dscp[26].packets, 10);
	assert_int_equal(f.acc.dscp[26].bytes, 10 * 200);
	assert_int_equal(f.acc.dscp[48].packets, 0);
	fixture_free(&f);
}

static void test_accept_negotiation(void **state)
{
	(void)state;
	/* What Prometheus 2.x sends. */
	assert_true(metrics_wants_openmetrics(
	    "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
	    "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
	assert_true(metrics_wants_openmetrics("application/openmetrics-text"));
	assert_false(metrics_wants_openmetrics(NULL));
	assert_false(metrics_wants_openmetrics("*/*"));
	assert_false(metrics_wants_openmetrics("text/plain;version=0.0.4"));
	assert_false(metrics_wants_openmetrics("application/openmetrics-text;q=0"));
	assert_false(metrics_wants_openmetrics(
	    "text/plain;version=0.0.4, application/openmetrics-text; q=0.3"));
	assert_false(metrics_wants_openmetrics(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_counter_names),
	    cmocka_unit_test(test_label_escaping),
	    cmocka_unit_test(test_top_k_bound),
	    cmocka_unit_test(test_top_k_ties_in_any_order),
	    cmocka_unit_test(test_duplicate_labels_once),
	    cmocka_unit_test(test_duplicate_labels_summed),
	    cmocka_unit_test(test_labels_differing_in_path_both_kept),
	    cmocka_unit_test(test_openmetrics_eof),
	    cmocka_unit_test(test_alerts_every_type),
	    cmocka_unit_test(test_accumulate_monotonic),
	    cmocka_unit_test(test_dscp_by_kind),
	    cmocka_unit_test(test_dscp_by_kind_estimates),
	    cmocka_unit_test(test_interface_made_again),
	    cmocka_unit_test(test_vni_bound),
	    cmocka_unit_test(test_interface_bound),
	    cmocka_unit_test(test_interface_series_agree),
	    cmocka_unit_test(test_sampled_unknown_left_out),
	    cmocka_unit_test(test_accept_negotiation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
