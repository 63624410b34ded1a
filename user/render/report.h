/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - render a snapshot: the JSON report (a contract other tools
 * parse, see docs/json.md) and the readable table.
 */
#ifndef __FP_REPORT_H
#define __FP_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "probe/collect.h"

struct analysis;
struct series;

#define FP_NAME_LEN 64

/* What an ifindex (live) or path id (replay) is called, and whether it is an uplink. */
struct iface_name {
	__u32 ifindex;
	char name[FP_NAME_LEN];
	bool uplink;
};

struct report_opts {
	const char *mode; /* "replay" or "live" */
	const struct iface_name *ifaces;
	int n_ifaces;
	__u64 skipped_frames; /* replay: frames the kernel would not run */
	size_t max_flows;     /* text: rows to show, 0 = all */
};

const struct iface_name *report_iface(const struct report_opts *o, __u32 ifindex);

/* a may be NULL: counters only. */
void report_json(FILE *out, const struct snapshot *s, const struct analysis *a,
		 const struct report_opts *o);
/* The same, with the per-second time series of a capture. */
void report_json_with(FILE *out, const struct snapshot *s, const struct analysis *a,
		      const struct report_opts *o, const struct series *series);
void report_text(FILE *out, const struct snapshot *s, const struct analysis *a,
		 const struct report_opts *o);

#endif /* __FP_REPORT_H */
