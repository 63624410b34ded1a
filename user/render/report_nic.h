/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_nic.h - render a NIC picture (core/session_nic.h): the JSON keys
 * of docs/json.md (nic, nics[], netdevs[], pfc[], qps[], qp_collisions[],
 * each flow's qp_owner), the NIC-only document of `fabprobe nic --json`
 * and a bundle's nic.json, and the readable text.
 */
#ifndef __FP_REPORT_NIC_H
#define __FP_REPORT_NIC_H

#include <stdio.h>

#include "core/session_nic.h"
#include "render/report.h"
#include "util/json.h"

/* The NIC keys, written into the object j is in. */
void report_nic_json(struct json *j, const struct nic_picture *p);
/* "qp_owner": the local QP of snapshot flow i with its process, or null. */
void report_nic_qp_owner(struct json *j, const struct nic_picture *p, size_t flow);
/* One document: version, mode, the NIC keys and the report's alerts. */
void report_nic_doc(FILE *out, const struct report *r);

/*
 * The NIC picture as text: each RDMA port's known counters with rates, PFC
 * per priority, the netdevs' moving counters, the QP table (max_rows, 0 =
 * all) with owners, and the QPs that share a predicted path.
 */
void report_nic_text(FILE *out, const struct nic_picture *p, size_t max_rows);
/* The alerts, as report_text() lists them. */
void report_alerts_text(FILE *out, const struct analysis *a);

#endif /* __FP_REPORT_NIC_H */
