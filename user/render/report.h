/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - render a session's picture: the JSON report (a contract
 * other tools parse, see docs/json.md) and the readable text.
 */
#ifndef __FP_REPORT_H
#define __FP_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <linux/types.h>

#include "core/session.h"

struct json;
struct nic_picture;
struct series;

/*
 * Where a bundle came from. A capture's only: replay's reports stay the same
 * from run to run, and tests compare them byte for byte.
 */
struct provenance {
	char host[256];	     /* the hostname of the host that made it */
	const char *version; /* fabprobe's */
	int argc;
	char *const *argv; /* the command from its name on ("capture", ...) */
	time_t started;	   /* when the capture started */
	/*
	 * Why the bundle covers only a part of its input (a capture cut short
	 * or corrupt, a stop or -d before a recording's end, every interface
	 * gone), or NULL: said in the bundle, as its reader sees no stderr.
	 */
	const char *partial;
};

/* One picture to render: what a session holds, or a capture's whole-run analysis. */
struct report {
	const struct snapshot *snap;
	const struct analysis *an; /* NULL: counters only */
	const struct source_desc *src;
	const struct series *series;   /* a capture's time series, or NULL */
	size_t max_flows;	       /* text: flow rows, 0 = all */
	const char *all_flows;	       /* text: what shows every flow (NULL: "--json") */
	const struct nic_picture *nic; /* NIC counters beside the flows, or NULL */
	const char *no_paths;	       /* bundle: why there are no paths, how to name some */
	const struct provenance *prov; /* bundle: where it came from, or NULL */
	const struct alert_log *log;   /* bundle: the alerts refresh by refresh, or NULL */
};

/* The session's current picture. */
struct report report_of(const struct session *ss);

void report_json(FILE *out, const struct report *r);
void report_text(FILE *out, const struct report *r);
/* "2026-11-30T00:10:39Z": a provenance's start, RFC 3339 in UTC. */
const char *provenance_started(char *buf, size_t len, const struct provenance *p);
/* The "provenance" key, for the bundle's documents (report.json, nic.json). */
void report_json_provenance(struct json *j, const struct provenance *p);
/*
 * Flow i's path, as the JSON's: the analysed one (a mirror session is
 * one), else its uplink; "-".
 */
const char *report_flow_path(const struct report *rep, size_t i);
/*
 * Whether flow f was sampled (sFlow): its counters that need every packet
 * (retransmits, PSN gaps) are unknown, JSON null and "-", never 0.
 */
bool report_flow_sampled(const struct report *r, const struct flow_record *f);
/* A path's port columns (sFlow counter samples); "-" each without them. */
struct port_cells {
	char out[32];	   /* output rate, "?" before a second sample */
	char discards[24]; /* output discards */
	const char *oper;  /* "up", "down" */
};
void report_port_cells(struct port_cells *c, const struct port_counters *pc);
/* Whether the paths have group names; *ports: whether any has port counters. */
bool report_paths_named(const struct analysis *a, bool *ports);
/* "imbalance (max/mean): load 1.20, flows 1.00", or why there is none: a group's, the analysis'. */
const char *report_group_balance(char *buf, size_t len, const struct path_group *pg);
const char *report_balance(char *buf, size_t len, const struct analysis *a);
/* The "alerts" key of the JSON report, for documents that embed it (render/report_nic.h). */
void report_json_alerts(struct json *j, const struct analysis *a);

#endif /* __FP_REPORT_H */
