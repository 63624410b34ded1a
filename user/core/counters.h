/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counters.h - every counter fabprobe reports, defined once: its JSON key,
 * Prometheus family and help, and the label or column title people read.
 * The JSON report, the text report, the metrics, the dashboard and the
 * time series walk these tables (the way an ethtool driver keeps one
 * stats string table), so adding a counter is an enum entry and a row.
 *
 * Totals: the probe's global counters (enum fp_counter, bpf/fabprobe.h),
 * then those userspace keeps (enum snap_counter, probe/collect.h).
 * Flow counters: what each flow carries, cumulative and per interval.
 */
#ifndef __FP_COUNTERS_H
#define __FP_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "fabprobe.h"

enum counter_kind {
	CK_COUNTER, /* only grows */
	CK_GAUGE,   /* a level now */
};

/* Where a total appears besides the JSON report. */
enum total_flags {
	TF_TEXT = 1 << 0,   /* the text report's totals line */
	TF_RATE = 1 << 1,   /* per second in the dashboards and the time series */
	TF_BYTES = 1 << 2,  /* a byte count: shown with B units */
	TF_ALWAYS = 1 << 3, /* in the text line even when 0 (else only when non-zero) */
};

struct total_def {
	int id;		    /* index into snapshot.totals */
	const char *json;   /* key in the JSON report's "totals" */
	const char *metric; /* Prometheus family without fabprobe_ and _total; NULL: none */
	const char *help;
	const char *label;    /* short name for people: "RoCE", "malformed" */
	const char *rate_key; /* TF_RATE: key of the per-second value in the time series */
	enum counter_kind kind;
	unsigned int flags;
};

extern const struct total_def total_defs[];
extern const size_t n_total_defs;

/* What each flow counts; struct flow_delta (core/analysis.h) has them in this order. */
enum flow_cnt {
	FC_PACKETS,
	FC_BYTES,
	FC_CE,
	FC_CNP,
	FC_RTX,
	FC_NAKS,
	FC_RNR_NAKS,
	FC_GAPS,
	FC_NOT_ECT,
	FC_ACKS,
	FC_FECN,
	FC_BECN,
	FC_MAX,
};

/* Where a flow counter appears. */
enum flow_flags {
	FF_IFACE = 1 << 0,	  /* a per-interface Prometheus counter */
	FF_DSCP = 1 << 1,	  /* ... per DSCP */
	FF_VNI = 1 << 2,	  /* ... per VNI */
	FF_EVERY_PACKET = 1 << 3, /* needs every packet: unknown (null) for sampled input */
};

struct flow_def {
	const char *json;   /* key in a JSON flow object */
	const char *metric; /* per-label family suffix (fabprobe_interface_<metric>_total) */
	const char *help;
	const char *title; /* column title */
	unsigned int flags;
};

extern const struct flow_def flow_defs[FC_MAX];

/* CE marks of a flow: outer or inner header, whichever saw more. */
static inline __u64 flow_ce(const struct flow_counters *c)
{
	/* In VXLAN the mark may be on the outer header, the inner one, or both. */
	return c->ecn[3] > c->inner_ecn[3] ? c->ecn[3] : c->inner_ecn[3];
}

/* CE marks per packet over a flow's life (0 before its first packet). */
static inline double flow_ce_fraction(const struct flow_counters *c)
{
	return c->packets ? (double)flow_ce(c) / c->packets : 0;
}

/*
 * A flow's cumulative value of one counter. Inline: a refresh takes every
 * counter of every flow twice (analysis.c), and a loop over i with the
 * switch folded away costs a million flows about 60 ms less than calls.
 */
static inline __u64 flow_counter(const struct flow_counters *c, enum flow_cnt i)
{
	switch (i) {
	case FC_PACKETS:
		return c->packets;
	case FC_BYTES:
		return c->bytes;
	case FC_CE:
		return flow_ce(c);
	case FC_CNP:
		return c->cnp;
	case FC_RTX:
		return c->retransmits;
	case FC_NAKS:
		return c->naks;
	case FC_RNR_NAKS:
		return c->rnr_naks;
	case FC_GAPS:
		return c->psn_gaps;
	case FC_NOT_ECT:
		return c->ecn[0];
	case FC_ACKS:
		return c->acks;
	case FC_FECN:
		return c->fecn;
	case FC_BECN:
		return c->becn;
	default:
		return 0;
	}
}

struct flow_record;
struct flow_delta;

/*
 * The DSCP under which per-class sums file a flow's CNPs (cnps) or its
 * other packets. CNPs ride in a class of their own (the reverse direction
 * of a queue pair carries ACKs in the data class and CNPs in the CNP
 * class), and the flow keeps the DSCPs of each kind apart
 * (flow_record.cnp_dscp_mask, c.dscp_mask): the one DSCP the kind used.
 * Of several, the newest packet's DSCP when it is one of them, else the
 * lowest; a record that keeps no set (made by hand): the newest packet's.
 */
__u8 flow_class_dscp(const struct flow_record *r, bool cnps);

/*
 * d, what flow r did over an interval, by traffic class: part[0] under
 * dscp[0], and when its CNPs rode in another class than its other
 * packets, part[1] (the CNPs) under dscp[1]. Returns the parts, 1 or 2;
 * they add up to d in every counter. A CNP's bytes are not counted apart:
 * the CNP part's are its frames' size from the flow's headers (IBTA
 * A17.9.3, one 802.1Q tag at most, no IP options), at most d's bytes.
 */
int flow_delta_by_class(const struct flow_record *r, const struct flow_delta *d, __u8 dscp[2],
			struct flow_delta *part);

/*
 * The sampling rates n flows' estimates rest on, each flow's (its mean
 * when it changed), into buf: "1 in R", or "1 in LO to 1 in HI".
 */
const char *flow_sampling_text(char *buf, size_t len, const struct flow_record *flows, size_t n);

/* The smaller of two counts: the class split's and the flow exporter's clamps. */
static inline __u64 min_u64(__u64 a, __u64 b)
{
	return a < b ? a : b;
}

#endif /* __FP_COUNTERS_H */
