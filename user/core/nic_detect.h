/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nic_detect.h - alerts from the NIC's own counters (source/nic.h), over
 * the interval between the last two refreshes: PFC storms, pauses outside
 * the lossless priority, discards on it, RoCE sent outside it, CNPs that one side of DCQCN does
 * not answer, sequence errors, ACK timeouts and RNR retries. Each alert
 * names the device port or the netdev and priority, and says the window.
 * docs/alerts.md has each one, with the thresholds below.
 */
#ifndef __FP_NIC_DETECT_H
#define __FP_NIC_DETECT_H

#include <stddef.h>
#include <linux/types.h>

#include "core/analysis.h"
#include "source/nic.h"

#define NIC_LOSSLESS_PRIO_DEFAULT 3	 /* the common RoCE plan, without --data-pcp */
#define NIC_PAUSE_SHARE_STORM	  0.5	 /* paused this share of the interval: a storm */
#define NIC_SEQ_ERR_PER_S	  1.0	 /* sequence errors and NAKs per second */
#define NIC_RNR_RETRY_PER_S	  10.0	 /* as rnr_naks: RNR NAKs per second make a storm */
#define NIC_ACK_TIMEOUTS_MIN	  1	 /* ACK timeouts in one interval */
#define NIC_CNP_MARKS_MIN	  100	 /* ECN marks in one interval before "no CNP" counts */
#define NIC_DISCARDS_MIN	  1	 /* lossless-priority discards in one interval */
#define NIC_LOSSY_RDMA_PER_S	  1000.0 /* RDMA packets per second before their priority counts */

struct nic_detect_opts {
	int lossless_prio; /* --data-pcp when given, else NIC_LOSSLESS_PRIO_DEFAULT */
	double pause_share_storm;
	double seq_err_per_s;
	double rnr_retry_per_s;
	__u64 ack_timeouts_min;
	__u64 cnp_marks_min;
	__u64 discards_min;
	double lossy_rdma_per_s;
};

void nic_detect_opts_default(struct nic_detect_opts *o);
/*
 * Append the alerts of the last interval to *alerts (grown as needed):
 * none before the second refresh. 0 or -ENOMEM.
 */
int nic_detect(const struct nic_state *s, const struct nic_detect_opts *o, struct alert **alerts,
	       size_t *n_alerts, size_t *cap_alerts);

#endif /* __FP_NIC_DETECT_H */
