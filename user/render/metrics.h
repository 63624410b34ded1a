/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metrics.h - the Prometheus view of a snapshot and its analysis: text
 * exposition format 0.0.4 and OpenMetrics 1.0, and the per-label counters
 * the exporter keeps across refreshes. No HTTP here (export.c serves it).
 */
#ifndef __FP_METRICS_H
#define __FP_METRICS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "core/analysis.h"
#include "probe/collect.h"
#include "source/source.h"

#define METRICS_TOP_FLOWS_DEFAULT 20
#define METRICS_TOP_FLOWS_MAX	  1000
#define METRICS_MAX_IFACES	  64 /* more interfaces than this are summed as interface="other" */
#define METRICS_MAX_VNIS	  256 /* more VNIs than this are summed as vni="other" */

#define METRICS_CT_PROMETHEUS  "text/plain; version=0.0.4; charset=utf-8"
#define METRICS_CT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

enum metrics_format {
	METRICS_PROMETHEUS,  /* text exposition format 0.0.4 */
	METRICS_OPENMETRICS, /* OpenMetrics 1.0 text, ends in "# EOF" */
};

/*
 * Monotonic counters per label, kept by the exporter. The flow table is an
 * LRU: a per-label sum over the flows present goes down when a flow is
 * evicted, so it would be a wrong counter. Instead each refresh adds what
 * every flow did since the previous refresh (analysis flow_view.d), which
 * only ever grows.
 */
struct metrics_iface_acc {
	__u32 ifindex;
	struct flow_delta dir[2]; /* FP_DIR_INGRESS, FP_DIR_EGRESS */
};

struct metrics_vni_acc {
	__u32 vni;
	struct flow_delta c;
};

struct metrics_acc {
	struct metrics_iface_acc ifaces[METRICS_MAX_IFACES];
	int n_ifaces;
	struct metrics_iface_acc iface_other; /* those past METRICS_MAX_IFACES (sFlow ports) */
	bool have_iface_other;
	struct flow_delta dscp[64];
	__u64 dscp_seen; /* bitmap of DSCPs with traffic: only those are exposed */
	struct metrics_vni_acc vnis[METRICS_MAX_VNIS];
	int n_vnis;
	struct flow_delta vni_other;
	bool have_vni_other;
};

/* The exporter's own state, exposed as fabprobe_* self metrics. */
struct metrics_self {
	const char *version;
	double interval_s;
	double start_time_s;	    /* UNIX time the probe was attached */
	double last_refresh_time_s; /* UNIX time of the last good refresh, 0 before */
	double refresh_duration_s;  /* collect + analyse */
	double render_duration_s;   /* the previous render of this text */
	__u64 refreshes;
	bool input_ended; /* a recording read to its end: its final picture, refreshed no more */
};

struct metrics_view {
	const struct snapshot *snap;
	const struct analysis *an; /* flows[] aligned with snap->flows */
	const struct source_desc *src;
	const struct metrics_acc *acc;
	const struct metrics_self *self;
	unsigned int top_flows; /* per-flow series for this many flows, 0: none */
};

/*
 * An interface's counts move with its name: one deleted and made again
 * (a new ifindex) keeps its series, which never go back.
 */
void metrics_acc_moved(struct metrics_acc *acc, __u32 from, __u32 to);
/* Add every flow's counters since the previous refresh to the accumulators. */
void metrics_accumulate(struct metrics_acc *acc, const struct snapshot *s,
			const struct analysis *a);

/* Write the whole exposition; OpenMetrics without the closing "# EOF" unless eof. */
void metrics_render(FILE *out, enum metrics_format fmt, const struct metrics_view *v, bool eof);

/* One gauge family with one sample, as the server appends it per scrape. */
void metrics_render_gauge(FILE *out, const char *name, const char *help, double value);
/* One counter family (base without _total) with one sample, in either format. */
void metrics_render_counter(FILE *out, enum metrics_format fmt, const char *base, const char *help,
			    __u64 value);

/* A label value with \\, \" and \n escaped (both formats). */
void metrics_escape_label(FILE *out, const char *value);

/* True when an HTTP Accept header prefers OpenMetrics text over 0.0.4. */
bool metrics_wants_openmetrics(const char *accept);

#endif /* __FP_METRICS_H */
