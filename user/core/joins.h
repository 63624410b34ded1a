/* SPDX-License-Identifier: GPL-2.0 */
/*
 * joins.h - the flows joined by hosts (and VNI) and by hosts and UDP
 * source port: each flow's reverse direction and the entropy groups.
 */
#ifndef __FP_JOINS_H
#define __FP_JOINS_H

#include "core/analysis.h"

/*
 * Join a->flows (after their rates, which list the flows new at their
 * rids in a->fresh) and set each flow's reverse. A flow at the rid it had
 * keeps its joins; every join is counted again. Returns 0 or -ENOMEM.
 */
int analysis_join(struct analysis *a);
/* The entropy groups of the joined flows into a->entropy. */
int analysis_entropy(struct analysis *a);
void analysis_joins_free(struct analysis_joins *j);

#endif /* __FP_JOINS_H */
