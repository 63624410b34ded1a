/* SPDX-License-Identifier: GPL-2.0 */
/* summary.h - the findings in plain words, then the top flows and paths. */
#ifndef __FP_SUMMARY_H
#define __FP_SUMMARY_H

#include <stdio.h>

#include "render/report.h"

/* What to check next for an alert, one sentence: by its type, and whether it is of mirror sessions.
 */
const char *alert_advice(const struct alert *al);

void summary_text(FILE *out, const struct report *r, double duration_s);
/*
 * Nothing observed, so no alert is no verdict: no RoCE packet (no frame at
 * all, or none RoCE), or NIC counters alone with no RDMA device. What was
 * not seen, "no RoCE traffic: 812 frames from eth2, none of them RoCEv2",
 * or NULL when something was.
 */
const char *report_unseen(const struct report *r, char *buf, size_t len);
/*
 * What the refreshes raised and the whole run does not (a stall, a
 * collision that came and went): the log's entries not active at its end,
 * the whole run's analysis being its last note (session_whole()). The
 * next of them from *i on, NULL past the last; and "at 22-29 s (8
 * refreshes)".
 */
const struct alert_entry *report_cleared(const struct alert_log *log, size_t *i);
const char *report_cleared_when(char *buf, size_t len, const struct alert_entry *e);
/*
 * NIC counters alone, and the RDMA ports read at the start gone at the
 * end (a driver unloaded, a device reset or unplugged): something was
 * observed, then lost, which the findings say instead of "nothing was
 * observed".
 */
bool report_nic_lost(const struct report *r);
/* Why that can be for this kind of input, and where the README says so. */
const char *report_unseen_hint(const struct report *r);
/* Why a bundle has no paths: the report's no_paths, or that its mirror copies carried no RoCE. */
const char *report_no_paths(const struct report *r);
/*
 * Two lines: "host: gpu7, fabprobe 71254ba, started 2026-11-30T00:10:39Z",
 * then the command as a shell would take it back; a third, "partial: ...",
 * when the bundle covers only a part of its input.
 */
void summary_provenance(FILE *out, const struct provenance *p);
/* How long a bundle's run was: "56 s", "0.2 s", "16.2 ms". */
const char *report_observed(char *buf, size_t len, double seconds);
/* Now, as a bundle's files say when they were made: "2026-11-29 18:08:43 UTC". */
const char *report_made(char *buf, size_t len);
/*
 * When the RoCE flows in the report sent, first to last packet, in local
 * time: "2026-06-25 07:14:59 to 07:15:55 UTC"; "no RoCE flows". NIC
 * counters alone watch no packet: "no packets watched (NIC counters
 * only); the NICs counted ..." what they counted of RDMA instead.
 */
const char *report_span(const struct report *r, char *buf, size_t len);

#endif /* __FP_SUMMARY_H */
