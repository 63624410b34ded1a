/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - render a session's picture: the JSON report (a contract
 * other tools parse, see docs/json.md) and the readable text.
 */
#ifndef __FP_REPORT_H
#define __FP_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "core/session.h"

struct json;
struct nic_picture;
struct series;

/* One picture to render: what a session holds, or a capture's whole-run analysis. */
struct report {
	const struct snapshot *snap;
	const struct analysis *an; /* NULL: counters only */
	const struct source_desc *src;
	const struct series *series;   /* a capture's time series, or NULL */
	size_t max_flows;	       /* text: flow rows, 0 = all */
	const char *all_flows;	       /* text: the file with every flow (NULL: "--json") */
	const struct nic_picture *nic; /* NIC counters beside the flows, or NULL */
	const char *no_paths;	       /* bundle: why there are no paths, how to name some */
};

/* The session's current picture. */
struct report report_of(const struct session *ss);

void report_json(FILE *out, const struct report *r);
void report_text(FILE *out, const struct report *r);
/* The "alerts" key of the JSON report, for documents that embed it (render/report_nic.h). */
void report_json_alerts(struct json *j, const struct analysis *a);

#endif /* __FP_REPORT_H */
